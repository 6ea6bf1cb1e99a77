/* Image accesses of the compiled tier (docs/spirv-execution.md, "Compiled tier"). A read, sampled read or write of a
 * plain image (whole-byte components, zf_image_plain_of; nearest filtering) is compiled inline: its coordinates
 * rounded and checked, its texel loaded or stored and converted as the interpreter's codec converts it. Each access
 * has a site in the thread's run-time state (zf_cx_texsite) that remembers the image and sampler it last looked up;
 * any other image, format or sampler, and every fault, goes to the interpreter's handler (zf_cx_lane_call). */
#include "cx_internal.h"

#include <math.h>

#define ZF_CX_SITE(field) offsetof(zf_cx_texsite, field)

static LLVMValueRef zf_cx_site_i64(zf_cx_em *e, LLVMValueRef site, size_t offset) {
    return zf_cx_load_ir(e, e->i64, zf_cx_gep(e, site, offset));
}

static LLVMValueRef zf_cx_site_u32(zf_cx_em *e, LLVMValueRef site, size_t offset) {
    return zf_cx_load_ir(e, e->i32, zf_cx_gep(e, site, offset));
}

static LLVMValueRef zf_cx_site_vec(zf_cx_em *e, LLVMValueRef site, size_t offset) {
    return zf_cx_load_ir(e, LLVMVectorType(e->i32, 4), zf_cx_gep(e, site, offset));
}

/* The site's entry for (image, sampler): looked up again when it holds other handles. */
static void zf_cx_site_lookup(zf_cx_em *e, const zf_dinst *in, LLVMValueRef site, LLVMValueRef image,
                              LLVMValueRef sampler) {
    LLVMBuilderRef B = e->b;
    LLVMValueRef same =
        LLVMBuildAnd(B, LLVMBuildICmp(B, LLVMIntEQ, zf_cx_site_i64(e, site, ZF_CX_SITE(image)), image, ""),
                     LLVMBuildICmp(B, LLVMIntEQ, zf_cx_site_i64(e, site, ZF_CX_SITE(sampler)), sampler, ""), "");
    LLVMValueRef hit = LLVMBuildAnd(
        B, same, LLVMBuildICmp(B, LLVMIntNE, zf_cx_site_i64(e, site, ZF_CX_SITE(filled)), zf_cx_i64c(e, 0), ""), "");
    LLVMBasicBlockRef fill = LLVMAppendBasicBlockInContext(e->c, e->f, "image lookup");
    LLVMBasicBlockRef ready = LLVMAppendBasicBlockInContext(e->c, e->f, "image known");
    LLVMBuildCondBr(B, hit, ready, fill);
    LLVMPositionBuilderAtEnd(B, fill);
    LLVMTypeRef params[5] = {e->p8, e->p8, e->p8, e->i64, e->i64};
    LLVMValueRef args[5] = {e->rt, zf_cx_inst_ref(e, in), site, image, sampler};
    zf_cx_call(e, ZF_CX_HELPER(zf_cx_texsite_fill), LLVMVoidTypeInContext(e->c), params, 5, args);
    LLVMBuildBr(B, ready);
    LLVMPositionBuilderAtEnd(B, ready);
}

/* (int64_t)floor(v) as the interpreter computes it on x86-64: INT64_MIN for NaN and values out of range. */
static LLVMValueRef zf_cx_floor_to_i64(zf_cx_em *e, LLVMValueRef v) {
    LLVMBuilderRef B = e->b;
    LLVMValueRef f = zf_cx_intrinsic(e, "llvm.floor", &e->f64, 1, &v, 1);
    LLVMValueRef inside = LLVMBuildAnd(B, LLVMBuildFCmp(B, LLVMRealOLT, f, LLVMConstReal(e->f64, 0x1p63), ""),
                                       LLVMBuildFCmp(B, LLVMRealOGE, f, LLVMConstReal(e->f64, -0x1p63), ""), "");
    return LLVMBuildSelect(B, inside, LLVMBuildFPToSI(B, f, e->i64, ""), zf_cx_i64c(e, 1ull << 63), "");
}

/* Coordinate d of the read, as a pixel index before addressing. */
static LLVMValueRef zf_cx_coord(zf_cx_em *e, const zf_dinst *in, LLVMValueRef site, uint32_t d) {
    LLVMBuilderRef B = e->b;
    uint32_t type = in->asize & 0xFFu, count = (in->asize >> 8) & 0xFFu;
    if (d >= count)
        return zf_cx_i64c(e, 0);
    LLVMValueRef at = zf_cx_gep(e, zf_cx_reg(e, in->b, 4u * count), 4u * d);
    if (type == ZF_T_I32)
        return LLVMBuildSExt(B, zf_cx_load_ir(e, e->i32, at), e->i64, "");
    LLVMValueRef c = LLVMBuildFPExt(B, zf_cx_load_ir(e, e->f32, at), e->f64, "");
    if (in->aux == ZF_IMG_SAMPLE) {
        LLVMValueRef extent = LLVMBuildUIToFP(B, zf_cx_site_i64(e, site, ZF_CX_SITE(extent) + 8u * d), e->f64, "");
        LLVMValueRef normalized = LLVMBuildICmp(B, LLVMIntNE, zf_cx_site_u32(e, site, ZF_CX_SITE(normalized)),
                                                LLVMConstInt(e->i32, 0, 0), "");
        c = LLVMBuildSelect(B, normalized, LLVMBuildFMul(B, c, extent, ""), c, "");
    }
    return zf_cx_floor_to_i64(e, c);
}

/* The texel's offset in the image, and whether it is inside the image and its memory (*inside). */
static LLVMValueRef zf_cx_texel_offset(zf_cx_em *e, const zf_dinst *in, LLVMValueRef site, LLVMValueRef *inside) {
    LLVMBuilderRef B = e->b;
    LLVMValueRef clamp =
        LLVMBuildICmp(B, LLVMIntNE, zf_cx_site_u32(e, site, ZF_CX_SITE(clamp)), LLVMConstInt(e->i32, 0, 0), "");
    LLVMValueRef offset = zf_cx_i64c(e, 0), ok = LLVMConstInt(e->i1, 1, 0);
    for (uint32_t d = 0; d < 3; d++) {
        LLVMValueRef x =
            LLVMBuildAnd(B, zf_cx_coord(e, in, site, d), zf_cx_site_i64(e, site, ZF_CX_SITE(keep) + 8u * d), "");
        LLVMValueRef extent = zf_cx_site_i64(e, site, ZF_CX_SITE(extent) + 8u * d);
        LLVMValueRef last = LLVMBuildSub(B, extent, zf_cx_i64c(e, 1), "");
        LLVMValueRef low =
            LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntSLT, x, zf_cx_i64c(e, 0), ""), zf_cx_i64c(e, 0), x, "");
        LLVMValueRef edge = LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntSGT, low, last, ""), last, low, "");
        x = LLVMBuildSelect(B, clamp, edge, x, "");
        ok = LLVMBuildAnd(B, ok, LLVMBuildICmp(B, LLVMIntULT, x, extent, ""), "");
        offset =
            LLVMBuildAdd(B, offset, LLVMBuildMul(B, x, zf_cx_site_i64(e, site, ZF_CX_SITE(pitch) + 8u * d), ""), "");
    }
    LLVMValueRef end = LLVMBuildAdd(B, offset, zf_cx_site_i64(e, site, ZF_CX_SITE(pitch)), "");
    *inside = LLVMBuildAnd(B, ok, LLVMBuildICmp(B, LLVMIntULE, end, zf_cx_site_i64(e, site, ZF_CX_SITE(size)), ""), "");
    return offset;
}

/* The bits of a float after the codec's trip through a double, which quiets a signalling NaN. */
static LLVMValueRef zf_cx_quiet(zf_cx_em *e, LLVMValueRef v) {
    LLVMBuilderRef B = e->b;
    LLVMValueRef magnitude = LLVMBuildAnd(B, v, LLVMConstInt(e->i32, 0x7FFFFFFFu, 0), "");
    LLVMValueRef nan = LLVMBuildICmp(B, LLVMIntUGT, magnitude, LLVMConstInt(e->i32, 0x7F800000u, 0), "");
    LLVMValueRef quiet = LLVMBuildSelect(B, nan, LLVMConstInt(e->i32, 0x00400000u, 0), LLVMConstInt(e->i32, 0, 0), "");
    return LLVMBuildOr(B, v, quiet, "");
}

/* The plain formats the inline code decodes and encodes for texels of type `type`, into out; how many. */
#define ZF_CX_PLAIN_FORMATS 27u
static uint32_t zf_cx_plain_formats(uint32_t type, uint32_t out[ZF_CX_PLAIN_FORMATS]) {
    static const uint32_t widths[3] = {1, 2, 4}; /* components per pixel, and bytes per component */
    uint32_t n = 0;
    for (uint32_t k = 0; k < 3; k++)
        for (uint32_t s = 0; s < 3; s++)
            for (uint32_t channel = ZF_CH_UINT; channel <= ZF_CH_FLOAT; channel++)
                if (zf_cx_texel_decodes(ZF_PLAIN_FORMAT(widths[k], widths[s], channel), type) &&
                    n < ZF_CX_PLAIN_FORMATS)
                    out[n++] = ZF_PLAIN_FORMAT(widths[k], widths[s], channel);
    return n;
}

/* A case of the switch on the site's format, the builder at its block. */
static void zf_cx_format_case(zf_cx_em *e, LLVMValueRef sw, uint32_t format) {
    LLVMBasicBlockRef bb = LLVMAppendBasicBlockInContext(e->c, e->f, "format");
    LLVMAddCase(sw, LLVMConstInt(e->i32, format, 0), bb);
    LLVMPositionBuilderAtEnd(e->b, bb);
}

/* Component c of a plain format at p, as the 32 bits of the result's channel (zf_decode_pixel, then zf_put_f). */
static LLVMValueRef zf_cx_component(zf_cx_em *e, uint32_t format, LLVMValueRef p, uint32_t c) {
    LLVMBuilderRef B = e->b;
    uint32_t bytes = (format >> 4) & 0xFu, channel = (format >> 8) - 1u, bits = 8u * bytes;
    LLVMValueRef v = zf_cx_load_ir(e, LLVMIntTypeInContext(e->c, bits), zf_cx_gep(e, p, (uint64_t)c * bytes));
    if (channel == ZF_CH_FLOAT)
        return zf_cx_quiet(e, v);
    if (channel == ZF_CH_UINT || channel == ZF_CH_SINT)
        return bits == 32              ? v
               : channel == ZF_CH_SINT ? LLVMBuildSExt(B, v, e->i32, "")
                                       : LLVMBuildZExt(B, v, e->i32, "");
    LLVMValueRef f;
    if (channel == ZF_CH_UNORM) {
        f = LLVMBuildFDiv(B, LLVMBuildUIToFP(B, v, e->f64, ""), LLVMConstReal(e->f64, ldexp(1, (int)bits) - 1), "");
    } else {
        f = LLVMBuildFDiv(B, LLVMBuildSIToFP(B, v, e->f64, ""), LLVMConstReal(e->f64, ldexp(1, (int)bits - 1) - 1), "");
        LLVMValueRef minus = LLVMConstReal(e->f64, -1.0);
        f = LLVMBuildSelect(B, LLVMBuildFCmp(B, LLVMRealOLT, f, minus, ""), minus, f, "");
    }
    return LLVMBuildBitCast(B, LLVMBuildFPTrunc(B, f, e->f32, ""), e->i32, "");
}

/* The texel at p of a plain format, channels masked by the site's swizzle constants. */
static LLVMValueRef zf_cx_decode(zf_cx_em *e, uint32_t format, LLVMValueRef p, LLVMValueRef site) {
    LLVMBuilderRef B = e->b;
    uint32_t comps = format & 0xFu;
    LLVMValueRef v = LLVMConstNull(LLVMVectorType(e->i32, 4));
    for (uint32_t c = 0; c < comps; c++)
        v = LLVMBuildInsertElement(B, v, zf_cx_component(e, format, p, c), LLVMConstInt(e->i32, c, 0), "");
    v = LLVMBuildAnd(B, v, zf_cx_site_vec(e, site, ZF_CX_SITE(and_mask)), "");
    return LLVMBuildOr(B, v, zf_cx_site_vec(e, site, ZF_CX_SITE(or_mask)), "");
}

/* The inline read: the texel (or the border) into the result. */
static void zf_cx_plain_read(zf_cx_em *e, const zf_dinst *in, LLVMValueRef site, LLVMBasicBlockRef join) {
    LLVMBuilderRef B = e->b;
    LLVMValueRef inside, offset = zf_cx_texel_offset(e, in, site, &inside);
    LLVMBasicBlockRef border = LLVMAppendBasicBlockInContext(e->c, e->f, "texel outside");
    LLVMBasicBlockRef load = LLVMAppendBasicBlockInContext(e->c, e->f, "texel");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(e->c, e->f, "texel read");
    LLVMBuildCondBr(B, inside, load, border);
    LLVMPositionBuilderAtEnd(B, load);
    LLVMValueRef p =
        LLVMBuildGEP2(B, e->i8, zf_cx_load_ir(e, e->p8, zf_cx_gep(e, site, ZF_CX_SITE(base))), &offset, 1, "");
    LLVMValueRef sw = LLVMBuildSwitch(B, zf_cx_site_u32(e, site, ZF_CX_SITE(format)), border, 18);
    LLVMTypeRef v4 = LLVMVectorType(e->i32, 4);
    uint32_t formats[ZF_CX_PLAIN_FORMATS], n = zf_cx_plain_formats(in->type, formats);
    LLVMValueRef values[ZF_CX_PLAIN_FORMATS + 1];
    LLVMBasicBlockRef from[ZF_CX_PLAIN_FORMATS + 1];
    for (uint32_t k = 0; k < n; k++) {
        zf_cx_format_case(e, sw, formats[k]);
        values[k] = zf_cx_decode(e, formats[k], p, site);
        from[k] = LLVMGetInsertBlock(B);
        LLVMBuildBr(B, done);
    }
    LLVMPositionBuilderAtEnd(B, border);
    values[n] = zf_cx_site_vec(e, site, ZF_CX_SITE(border));
    from[n++] = LLVMGetInsertBlock(B);
    LLVMBuildBr(B, done);
    LLVMPositionBuilderAtEnd(B, done);
    LLVMValueRef texel = LLVMBuildPhi(B, v4, "");
    LLVMAddIncoming(texel, values, from, n);
    zf_cx_store(e, texel, zf_cx_dst(e, in->dst));
    LLVMBuildBr(B, join);
}

/* A channel of the texel (its 32 bits) as component bits of a plain format, rounded and saturated as the codec does
 * it (zf_get_texel, then zf_encode_component). */
static LLVMValueRef zf_cx_encode(zf_cx_em *e, uint32_t format, LLVMValueRef v) {
    LLVMBuilderRef B = e->b;
    uint32_t bytes = (format >> 4) & 0xFu, channel = (format >> 8) - 1u, bits = 8u * bytes;
    LLVMTypeRef t = LLVMIntTypeInContext(e->c, bits);
    if (channel == ZF_CH_FLOAT)
        return zf_cx_quiet(e, v);
    if (channel == ZF_CH_UINT || channel == ZF_CH_SINT) {
        int64_t hi = channel == ZF_CH_UINT ? (int64_t)((1ull << bits) - 1) : (int64_t)((1ull << (bits - 1)) - 1);
        int64_t lo = channel == ZF_CH_UINT ? 0 : -hi - 1;
        LLVMValueRef i = LLVMBuildSExt(B, v, e->i64, ""), hic = zf_cx_i64c(e, (uint64_t)hi),
                     loc = zf_cx_i64c(e, (uint64_t)lo);
        i = LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntSLT, i, loc, ""), loc, i, "");
        i = LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntSGT, i, hic, ""), hic, i, "");
        return LLVMBuildTrunc(B, i, t, "");
    }
    bool snorm = channel == ZF_CH_SNORM;
    LLVMValueRef f = LLVMBuildFPExt(B, LLVMBuildBitCast(B, v, e->f32, ""), e->f64, "");
    LLVMValueRef low = LLVMConstReal(e->f64, snorm ? -1.0 : 0.0), one = LLVMConstReal(e->f64, 1.0);
    LLVMValueRef nan = LLVMBuildFCmp(B, LLVMRealUNO, f, f, "");
    f = LLVMBuildSelect(B, LLVMBuildFCmp(B, LLVMRealOLT, f, low, ""), low, f, "");
    f = LLVMBuildSelect(B, LLVMBuildFCmp(B, LLVMRealOGT, f, one, ""), one, f, "");
    f = LLVMBuildSelect(B, nan, LLVMConstReal(e->f64, 0.0), f, "");
    double scale = snorm ? ldexp(1, (int)bits - 1) - 1 : ldexp(1, (int)bits) - 1;
    LLVMValueRef scaled = LLVMBuildFMul(B, f, LLVMConstReal(e->f64, scale), "");
    LLVMValueRef r = zf_cx_intrinsic(e, "llvm.rint", &e->f64, 1, &scaled, 1); /* nearbyint: to nearest, even */
    return LLVMBuildTrunc(B, LLVMBuildFPToSI(B, r, e->i64, ""), t, "");
}

/* The inline write: the texel's channels encoded into the pixel, when it is inside the image (else dropped). */
static void zf_cx_plain_write(zf_cx_em *e, const zf_dinst *in, LLVMValueRef site, LLVMBasicBlockRef join) {
    LLVMBuilderRef B = e->b;
    LLVMValueRef inside, offset = zf_cx_texel_offset(e, in, site, &inside);
    LLVMBasicBlockRef store = LLVMAppendBasicBlockInContext(e->c, e->f, "texel write");
    LLVMBuildCondBr(B, inside, store, join);
    LLVMPositionBuilderAtEnd(B, store);
    LLVMValueRef p =
        LLVMBuildGEP2(B, e->i8, zf_cx_load_ir(e, e->p8, zf_cx_gep(e, site, ZF_CX_SITE(base))), &offset, 1, "");
    LLVMValueRef texel = zf_cx_load_ir(e, LLVMVectorType(e->i32, 4), zf_cx_reg(e, in->c, 16));
    texel = LLVMBuildAnd(B, texel, zf_cx_site_vec(e, site, ZF_CX_SITE(and_mask)), ""); /* 0 encodes to 0 */
    LLVMValueRef sw = LLVMBuildSwitch(B, zf_cx_site_u32(e, site, ZF_CX_SITE(format)), join, 18);
    uint32_t formats[ZF_CX_PLAIN_FORMATS], n = zf_cx_plain_formats(in->type, formats);
    for (uint32_t k = 0; k < n; k++) {
        uint32_t comps = formats[k] & 0xFu, bytes = (formats[k] >> 4) & 0xFu;
        zf_cx_format_case(e, sw, formats[k]);
        for (uint32_t c = 0; c < comps; c++) {
            LLVMValueRef v = LLVMBuildExtractElement(B, texel, LLVMConstInt(e->i32, c, 0), "");
            zf_cx_store(e, zf_cx_encode(e, formats[k], v), zf_cx_gep(e, p, (uint64_t)c * bytes));
        }
        LLVMBuildBr(B, join);
    }
}

void zf_cx_image_access(zf_cx_em *e, const zf_dinst *in) {
    uint32_t type = in->asize & 0xFFu, count = (in->asize >> 8) & 0xFFu;
    bool read = in->aux == ZF_IMG_READ || in->aux == ZF_IMG_SAMPLE, write = in->aux == ZF_IMG_WRITE;
    bool result = in->comps == 4 && (in->type == ZF_T_F32 || in->type == ZF_T_I32);
    if (!(read || write) || !result || (type != ZF_T_I32 && type != ZF_T_F32) || count == 0 || count > 4 ||
        e->num_texsites >= ZF_CX_MAX_TEXSITES) {
        zf_cx_lane_call(e, in);
        return;
    }
    LLVMBuilderRef B = e->b;
    LLVMValueRef sites = zf_cx_rt_field(e, offsetof(zf_cx_rt, texsites), e->p8);
    LLVMValueRef site = zf_cx_gep(e, sites, (uint64_t)e->num_texsites++ * sizeof(zf_cx_texsite));
    LLVMValueRef handles = zf_cx_reg(e, in->a, in->aux == ZF_IMG_SAMPLE ? 16u : 8u);
    LLVMValueRef image = zf_cx_load_ir(e, e->i64, handles);
    LLVMValueRef sampler =
        in->aux == ZF_IMG_SAMPLE ? zf_cx_load_ir(e, e->i64, zf_cx_gep(e, handles, 8)) : zf_cx_i64c(e, 0);
    zf_cx_site_lookup(e, in, site, image, sampler);
    LLVMBasicBlockRef slow = LLVMAppendBasicBlockInContext(e->c, e->f, "image by handler");
    LLVMBasicBlockRef fast = LLVMAppendBasicBlockInContext(e->c, e->f, "image inline");
    LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(e->c, e->f, "image done");
    LLVMValueRef plain =
        LLVMBuildICmp(B, LLVMIntNE, zf_cx_site_u32(e, site, ZF_CX_SITE(format)), LLVMConstInt(e->i32, 0, 0), "");
    LLVMBuildCondBr(B, plain, fast, slow);
    LLVMPositionBuilderAtEnd(B, fast);
    if (write)
        zf_cx_plain_write(e, in, site, join);
    else
        zf_cx_plain_read(e, in, site, join);
    LLVMPositionBuilderAtEnd(B, slow);
    zf_cx_lane_call(e, in);
    LLVMBuildBr(B, join);
    LLVMPositionBuilderAtEnd(B, join);
}
