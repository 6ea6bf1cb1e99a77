/* The arithmetic of the compiled tier (docs/spirv-execution.md, "Compiled tier"): the IR helpers every part of the
 * emitter builds with (constants, byte-addressed loads and stores into the frame, calls of run-time helpers and LLVM
 * intrinsics), the LLVM types of the form's values and the registers' places in the frame, built-in values, and the
 * instructions compiled inline: integer and float arithmetic and comparisons, conversions, selects, composite
 * gathers and the OpenCL.std math calls that map onto LLVM intrinsics. What is not hot enough to deserve inline code
 * runs the interpreter's handler on one work-item (zf_cx_pure_call). */
#include "cx_internal.h"

#include <stdio.h>
#include <stdlib.h>

/* ------------------------------------------------------------------------------------------------------------------
 * IR helpers */

LLVMValueRef zf_cx_i64c(zf_cx_em *e, uint64_t v) {
    return LLVMConstInt(e->i64, v, false);
}

LLVMValueRef zf_cx_gep(zf_cx_em *e, LLVMValueRef p8, uint64_t offset) {
    if (offset == 0)
        return p8;
    LLVMValueRef index = zf_cx_i64c(e, offset);
    return LLVMBuildGEP2(e->b, e->i8, p8, &index, 1, "");
}

LLVMValueRef zf_cx_load_ir(zf_cx_em *e, LLVMTypeRef t, LLVMValueRef p8) {
    LLVMValueRef p = LLVMBuildBitCast(e->b, p8, LLVMPointerType(t, 0), "");
    LLVMValueRef v = LLVMBuildLoad2(e->b, t, p, "");
    LLVMSetAlignment(v, 1);
    return v;
}

void zf_cx_store(zf_cx_em *e, LLVMValueRef v, LLVMValueRef p8) {
    LLVMValueRef p = LLVMBuildBitCast(e->b, p8, LLVMPointerType(LLVMTypeOf(v), 0), "");
    LLVMSetAlignment(LLVMBuildStore(e->b, v, p), 1);
}

void zf_cx_move(zf_cx_em *e, LLVMValueRef dst, LLVMValueRef src, uint64_t size) {
    if (size > 0)
        LLVMBuildMemMove(e->b, dst, 1, src, 1, zf_cx_i64c(e, size));
}

LLVMValueRef zf_cx_alloca(zf_cx_em *e, uint64_t bytes) {
    LLVMValueRef a = LLVMBuildAlloca(e->eb, LLVMArrayType(e->i8, (unsigned)(bytes ? bytes : 1)), "");
    LLVMSetAlignment(a, 16);
    return LLVMBuildBitCast(e->eb, a, e->p8, "");
}

/* A field of the run-time state, from the wave function's copy of it (env): a local copy that no call can change,
 * so the optimizer keeps its fields in registers across the helper calls of cold paths. */
LLVMValueRef zf_cx_rt_field(zf_cx_em *e, size_t offset, LLVMTypeRef t) {
    return zf_cx_load_ir(e, t, zf_cx_gep(e, e->env, offset));
}

LLVMValueRef zf_cx_item(zf_cx_em *e, uint32_t k) {
    LLVMValueRef index = LLVMConstInt(e->i32, k, false);
    return LLVMBuildLoad2(e->b, e->i64, LLVMBuildGEP2(e->b, e->i64, e->item, &index, 1, ""), "");
}

void zf_cx_set_item(zf_cx_em *e, uint32_t k, LLVMValueRef v) {
    LLVMValueRef index = LLVMConstInt(e->i32, k, false);
    LLVMBuildStore(e->b, v, LLVMBuildGEP2(e->b, e->i64, e->item, &index, 1, ""));
}

/* A call of a helper of cx_run.c, by address (the code runs in this process). */
LLVMValueRef zf_cx_call(zf_cx_em *e, void (*helper)(void), LLVMTypeRef ret, LLVMTypeRef *params, unsigned n,
                        LLVMValueRef *args) {
    LLVMTypeRef type = LLVMFunctionType(ret, params, n, false);
    LLVMValueRef callee =
        LLVMConstIntToPtr(LLVMConstInt(e->i64, (uint64_t)(uintptr_t)helper, false), LLVMPointerType(type, 0));
    return LLVMBuildCall2(e->b, type, callee, args, n, "");
}

static LLVMValueRef zf_cx_intrinsic(zf_cx_em *e, const char *name, LLVMTypeRef *types, unsigned ntypes,
                                    LLVMValueRef *args, unsigned nargs) {
    unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
    LLVMValueRef fn = LLVMGetIntrinsicDeclaration(e->m, id, types, ntypes);
    return LLVMBuildCall2(e->b, LLVMIntrinsicGetType(e->c, id, types, ntypes), fn, args, nargs, "");
}

/* ------------------------------------------------------------------------------------------------------------------
 * Types and registers */

static LLVMTypeRef zf_cx_elem(zf_cx_em *e, uint32_t t) {
    switch (t) {
    case ZF_T_BOOL:
    case ZF_T_I8:
        return e->i8;
    case ZF_T_I16:
        return e->i16;
    case ZF_T_I32:
        return e->i32;
    case ZF_T_I64:
        return e->i64;
    case ZF_T_F32:
        return e->f32;
    case ZF_T_F64:
        return e->f64;
    default:
        return NULL;
    }
}

static LLVMTypeRef zf_cx_vtype(zf_cx_em *e, uint32_t t, uint32_t comps) {
    LLVMTypeRef el = zf_cx_elem(e, t);
    uint32_t slot = zf_slot(comps);
    return el == NULL || slot <= 1 ? el : LLVMVectorType(el, slot);
}

/* A built-in value of the work-item, component d. */
static LLVMValueRef zf_cx_builtin(zf_cx_em *e, uint32_t builtin, uint32_t d) {
    LLVMBuilderRef b = e->b;
    size_t gs = offsetof(zf_cx_rt, group_size) + 8 * d, gr = offsetof(zf_cx_rt, groups) + 8 * d,
           off = offsetof(zf_cx_rt, offset) + 8 * d;
    LLVMValueRef lid = zf_cx_item(e, ZF_CX_ITEM_LID + d), grp = zf_cx_item(e, ZF_CX_ITEM_GRP + d);
    LLVMValueRef S = zf_cx_rt_field(e, offsetof(zf_cx_rt, subgroup_size), e->i64);
    LLVMValueRef G = zf_cx_rt_field(e, offsetof(zf_cx_rt, group_items), e->i64);
    LLVMValueRef r = zf_cx_item(e, ZF_CX_ITEM_LANE);
    r = LLVMBuildURem(b, r, G, "");
    switch (builtin) {
    case SpvBuiltInGlobalInvocationId:
        return LLVMBuildAdd(b, zf_cx_rt_field(e, off, e->i64),
                            LLVMBuildAdd(b, LLVMBuildMul(b, grp, zf_cx_rt_field(e, gs, e->i64), ""), lid, ""), "");
    case SpvBuiltInLocalInvocationId:
        return lid;
    case SpvBuiltInWorkgroupId:
        return grp;
    case SpvBuiltInNumWorkgroups:
        return zf_cx_rt_field(e, gr, e->i64);
    case SpvBuiltInWorkgroupSize:
    case SpvBuiltInEnqueuedWorkgroupSize:
        return zf_cx_rt_field(e, gs, e->i64);
    case SpvBuiltInGlobalSize:
        return LLVMBuildMul(b, zf_cx_rt_field(e, gr, e->i64), zf_cx_rt_field(e, gs, e->i64), "");
    case SpvBuiltInGlobalOffset:
        return zf_cx_rt_field(e, off, e->i64);
    case SpvBuiltInLocalInvocationIndex:
        return d == 0 ? r : zf_cx_i64c(e, 0);
    case SpvBuiltInWorkDim:
        return d == 0 ? zf_cx_rt_field(e, offsetof(zf_cx_rt, work_dim), e->i64) : zf_cx_i64c(e, 0);
    case SpvBuiltInGlobalLinearId: {
        if (d != 0)
            return zf_cx_i64c(e, 0);
        LLVMValueRef v = zf_cx_i64c(e, 0);
        for (int k = 2; k >= 0; k--) { /* ((g2 * gy) + g1) * gx + g0, g the id without the offset */
            size_t kgs = offsetof(zf_cx_rt, group_size) + 8 * (size_t)k,
                   kgr = offsetof(zf_cx_rt, groups) + 8 * (size_t)k;
            LLVMValueRef size = zf_cx_rt_field(e, kgs, e->i64);
            LLVMValueRef g = LLVMBuildAdd(b, LLVMBuildMul(b, zf_cx_item(e, ZF_CX_ITEM_GRP + (uint32_t)k), size, ""),
                                          zf_cx_item(e, ZF_CX_ITEM_LID + (uint32_t)k), "");
            v = LLVMBuildAdd(b, LLVMBuildMul(b, v, LLVMBuildMul(b, zf_cx_rt_field(e, kgr, e->i64), size, ""), ""), g,
                             "");
        }
        return v;
    }
    default:
        break;
    }
    if (d != 0)
        return zf_cx_i64c(e, 0);
    LLVMValueRef first = LLVMBuildMul(b, LLVMBuildUDiv(b, r, S, ""), S, "");
    switch (builtin) {
    case SpvBuiltInSubgroupSize: {
        LLVMValueRef rest = LLVMBuildSub(b, G, first, "");
        return LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntULT, rest, S, ""), rest, S, "");
    }
    case SpvBuiltInSubgroupMaxSize:
        return S;
    case SpvBuiltInNumSubgroups:
    case SpvBuiltInNumEnqueuedSubgroups:
        return LLVMBuildUDiv(b, LLVMBuildSub(b, LLVMBuildAdd(b, G, S, ""), zf_cx_i64c(e, 1), ""), S, "");
    case SpvBuiltInSubgroupId:
        return LLVMBuildUDiv(b, r, S, "");
    case SpvBuiltInSubgroupLocalInvocationId:
        return LLVMBuildURem(b, r, S, "");
    default:
        return zf_cx_i64c(e, 0);
    }
}

/* The bytes of a wave entry for this work-item, in a temporary. */
static LLVMValueRef zf_cx_wave_value(zf_cx_em *e, const zf_dwave *w) {
    if (w->kind == ZF_WAVE_LOCALVAR) {
        uint64_t at = UINT64_MAX;
        for (uint32_t k = 0; k < e->kernel->local_count; k++) {
            const zf_dkernel_local *kl = &e->code->kernel_locals[e->kernel->local_first + k];
            if (kl->variable == w->index)
                at = kl->offset;
        }
        LLVMValueRef tmp = zf_cx_alloca(e, 8);
        LLVMValueRef v = zf_cx_i64c(e, 0);
        if (at != UINT64_MAX) {
            LLVMValueRef base =
                LLVMBuildPtrToInt(e->b, zf_cx_rt_field(e, offsetof(zf_cx_rt, local), e->p8), e->i64, "");
            LLVMValueRef slot = LLVMBuildMul(e->b, zf_cx_item(e, ZF_CX_ITEM_SLOT),
                                             zf_cx_rt_field(e, offsetof(zf_cx_rt, local_stride), e->i64), "");
            v = LLVMBuildAdd(e->b, LLVMBuildAdd(e->b, base, slot, ""), zf_cx_i64c(e, at), "");
        }
        zf_cx_store(e, v, tmp);
        return tmp;
    }
    uint32_t es = zf_etype_size(w->type), slot = zf_slot(w->comps);
    LLVMValueRef tmp = zf_cx_alloca(e, (uint64_t)es * slot);
    for (uint32_t d = 0; d < slot; d++) {
        LLVMValueRef v = d < 3 && d < w->comps ? zf_cx_builtin(e, w->index, d) : zf_cx_i64c(e, 0);
        if (es != 8)
            v = LLVMBuildTrunc(e->b, v, LLVMIntTypeInContext(e->c, 8 * (es ? es : 1)), "");
        zf_cx_store(e, v, zf_cx_gep(e, tmp, (uint64_t)d * es));
    }
    return tmp;
}

/* The address of `size` bytes of a register read by the current work-item. */
LLVMValueRef zf_cx_reg(zf_cx_em *e, zf_ref ref, uint32_t size) {
    uint32_t area = ZF_REF_AREA(ref), o = ZF_REF_OFFSET(ref);
    const zf_dprog *code = e->code;
    if (area == ZF_AREA_FRAME)
        return zf_cx_gep(e, e->frame, o);
    if (area == ZF_AREA_CONST) {
        for (uint32_t i = 0; i < code->num_relocs; i++) {
            const zf_dreloc *r = &code->relocs[i];
            if (o + size <= r->offset || o >= r->offset + 8)
                continue;
            if (o != r->offset || size != 8) {
                zf_cx_fail(e, "a partial read of a relocated address");
                return zf_cx_gep(e, e->frame, 0);
            }
            LLVMValueRef relocs = zf_cx_rt_field(e, offsetof(zf_cx_rt, relocs), e->p8);
            LLVMValueRef tmp = zf_cx_alloca(e, 8);
            zf_cx_store(e, zf_cx_load_ir(e, e->i64, zf_cx_gep(e, relocs, 8ull * i)), tmp);
            return tmp;
        }
        LLVMValueRef base = LLVMBuildBitCast(e->b, e->consts, e->p8, "");
        return zf_cx_gep(e, base, o);
    }
    if (area == ZF_AREA_WAVE) {
        for (uint32_t i = 0; i < code->num_waves; i++) {
            const zf_dwave *w = &code->waves[i];
            uint32_t bytes = w->kind == ZF_WAVE_BUILTIN ? zf_etype_size(w->type) * zf_slot(w->comps) : 8;
            if (o < w->offset || o + size > w->offset + bytes)
                continue;
            if (w->kind == ZF_WAVE_POINTER)
                break;
            return zf_cx_gep(e, zf_cx_wave_value(e, w), o - w->offset);
        }
        zf_cx_fail(e, "a pointer to a built-in variable");
        return zf_cx_gep(e, e->frame, 0);
    }
    zf_cx_fail(e, "an operand in no area");
    return zf_cx_gep(e, e->frame, 0);
}

LLVMValueRef zf_cx_dst(zf_cx_em *e, zf_ref ref) {
    if (ZF_REF_AREA(ref) != ZF_AREA_FRAME) {
        zf_cx_fail(e, "a result outside the frame");
        return e->frame;
    }
    return zf_cx_gep(e, e->frame, ZF_REF_OFFSET(ref));
}

/* Bytes of a value type (integers, floats and vectors of them). */
static uint32_t zf_cx_bytes(zf_cx_em *e, LLVMTypeRef t) {
    if (LLVMGetTypeKind(t) == LLVMVectorTypeKind)
        return LLVMGetVectorSize(t) * zf_cx_bytes(e, LLVMGetElementType(t));
    if (LLVMGetTypeKind(t) == LLVMIntegerTypeKind)
        return LLVMGetIntTypeWidth(t) / 8;
    return t == e->f32 ? 4 : 8;
}

static LLVMValueRef zf_cx_value(zf_cx_em *e, LLVMTypeRef t, zf_ref ref) {
    return zf_cx_load_ir(e, t, zf_cx_reg(e, ref, zf_cx_bytes(e, t)));
}

/* ------------------------------------------------------------------------------------------------------------------
 * Arithmetic compiled inline */

static LLVMValueRef zf_cx_splat(zf_cx_em *e, LLVMTypeRef t, uint64_t v, bool is_signed) {
    if (LLVMGetTypeKind(t) != LLVMVectorTypeKind)
        return LLVMConstInt(t, v, is_signed);
    unsigned n = LLVMGetVectorSize(t);
    LLVMValueRef parts[16];
    for (unsigned i = 0; i < n; i++)
        parts[i] = LLVMConstInt(LLVMGetElementType(t), v, is_signed);
    return LLVMConstVector(parts, n);
}

static LLVMValueRef zf_cx_int_binary(zf_cx_em *e, uint32_t op, LLVMTypeRef t, LLVMValueRef a, LLVMValueRef b) {
    LLVMBuilderRef B = e->b;
    LLVMTypeRef el = LLVMGetTypeKind(t) == LLVMVectorTypeKind ? LLVMGetElementType(t) : t;
    unsigned bits = LLVMGetIntTypeWidth(el);
    LLVMValueRef zero = zf_cx_splat(e, t, 0, false), one = zf_cx_splat(e, t, 1, false);
    LLVMValueRef ones = zf_cx_splat(e, t, UINT64_MAX, true);
    switch (op) {
    case ZF_X_IADD:
        return LLVMBuildAdd(B, a, b, "");
    case ZF_X_ISUB:
        return LLVMBuildSub(B, a, b, "");
    case ZF_X_IMUL:
        return LLVMBuildMul(B, a, b, "");
    case ZF_X_AND:
        return LLVMBuildAnd(B, a, b, "");
    case ZF_X_OR:
        return LLVMBuildOr(B, a, b, "");
    case ZF_X_XOR:
        return LLVMBuildXor(B, a, b, "");
    case ZF_X_SHL:
    case ZF_X_SHR:
    case ZF_X_SAR: {
        LLVMValueRef amount = LLVMBuildAnd(B, b, zf_cx_splat(e, t, bits - 1, false), "");
        return op == ZF_X_SHL   ? LLVMBuildShl(B, a, amount, "")
               : op == ZF_X_SHR ? LLVMBuildLShr(B, a, amount, "")
                                : LLVMBuildAShr(B, a, amount, "");
    }
    default:
        break;
    }
    /* Division: a zero divisor (and for signed ones the overflowing -1) gives 0, as in the interpreter. */
    LLVMValueRef bad = LLVMBuildICmp(B, LLVMIntEQ, b, zero, "");
    if (op == ZF_X_SDIV) {
        LLVMValueRef min = zf_cx_splat(e, t, 1ull << (bits - 1), false);
        bad = LLVMBuildOr(
            B, bad,
            LLVMBuildAnd(B, LLVMBuildICmp(B, LLVMIntEQ, a, min, ""), LLVMBuildICmp(B, LLVMIntEQ, b, ones, ""), ""), "");
    } else if (op == ZF_X_SREM) {
        bad = LLVMBuildOr(B, bad, LLVMBuildICmp(B, LLVMIntEQ, b, ones, ""), "");
    }
    LLVMValueRef safe = LLVMBuildSelect(B, bad, one, b, "");
    LLVMValueRef r = op == ZF_X_UDIV   ? LLVMBuildUDiv(B, a, safe, "")
                     : op == ZF_X_SDIV ? LLVMBuildSDiv(B, a, safe, "")
                     : op == ZF_X_UREM ? LLVMBuildURem(B, a, safe, "")
                                       : LLVMBuildSRem(B, a, safe, "");
    return LLVMBuildSelect(B, bad, zero, r, "");
}

static const LLVMIntPredicate zf_cx_ipred[] = {
    [ZF_X_IEQ - ZF_X_IEQ] = LLVMIntEQ,  [ZF_X_INE - ZF_X_IEQ] = LLVMIntNE,  [ZF_X_UGT - ZF_X_IEQ] = LLVMIntUGT,
    [ZF_X_UGE - ZF_X_IEQ] = LLVMIntUGE, [ZF_X_ULT - ZF_X_IEQ] = LLVMIntULT, [ZF_X_ULE - ZF_X_IEQ] = LLVMIntULE,
    [ZF_X_SGT - ZF_X_IEQ] = LLVMIntSGT, [ZF_X_SGE - ZF_X_IEQ] = LLVMIntSGE, [ZF_X_SLT - ZF_X_IEQ] = LLVMIntSLT,
    [ZF_X_SLE - ZF_X_IEQ] = LLVMIntSLE,
};

static const LLVMRealPredicate zf_cx_fpred[] = {
    [ZF_X_FOEQ - ZF_X_FOEQ] = LLVMRealOEQ, [ZF_X_FUEQ - ZF_X_FOEQ] = LLVMRealUEQ,
    [ZF_X_FONE - ZF_X_FOEQ] = LLVMRealONE, [ZF_X_FUNE - ZF_X_FOEQ] = LLVMRealUNE,
    [ZF_X_FOLT - ZF_X_FOEQ] = LLVMRealOLT, [ZF_X_FULT - ZF_X_FOEQ] = LLVMRealULT,
    [ZF_X_FOGT - ZF_X_FOEQ] = LLVMRealOGT, [ZF_X_FUGT - ZF_X_FOEQ] = LLVMRealUGT,
    [ZF_X_FOLE - ZF_X_FOEQ] = LLVMRealOLE, [ZF_X_FULE - ZF_X_FOEQ] = LLVMRealULE,
    [ZF_X_FOGE - ZF_X_FOEQ] = LLVMRealOGE, [ZF_X_FUGE - ZF_X_FOEQ] = LLVMRealUGE,
    [ZF_X_FORD - ZF_X_FOEQ] = LLVMRealORD, [ZF_X_FUNORD - ZF_X_FOEQ] = LLVMRealUNO,
};

/* Float functions of OpenCL.std compiled inline: the others run the interpreter's code. */
static LLVMValueRef zf_cx_ext(zf_cx_em *e, const zf_dinst *in, LLVMTypeRef t) {
    LLVMValueRef a = zf_cx_value(e, t, in->a), b = NULL, c = NULL;
    if (in->b != ZF_REF_NONE)
        b = zf_cx_value(e, t, in->b);
    if (in->c != ZF_REF_NONE)
        c = zf_cx_value(e, t, in->c);
    switch (in->aux) {
    case ZF_CX_E_MAD: /* a multiply then an add, never fused */
        return LLVMBuildFAdd(e->b, LLVMBuildFMul(e->b, a, b, ""), c, "");
    case ZF_CX_E_FMA: {
        LLVMValueRef args[3] = {a, b, c};
        return zf_cx_intrinsic(e, "llvm.fma", &t, 1, args, 3);
    }
    case ZF_CX_E_FMAX:
    case ZF_CX_E_FMIN: {
        LLVMValueRef args[2] = {a, b};
        return zf_cx_intrinsic(e, in->aux == ZF_CX_E_FMAX ? "llvm.maxnum" : "llvm.minnum", &t, 1, args, 2);
    }
    case ZF_CX_E_SQRT:
        return zf_cx_intrinsic(e, "llvm.sqrt", &t, 1, &a, 1);
    default:
        return zf_cx_intrinsic(e, "llvm.fabs", &t, 1, &a, 1);
    }
}

static bool zf_cx_ext_inline(const zf_dinst *in) {
    uint32_t f = in->aux, ta = in->asize & 0xFFu;
    bool args_of_type = ta == in->type && (in->b == ZF_REF_NONE || ((in->asize >> 8) & 0xFFu) == in->type) &&
                        (in->c == ZF_REF_NONE || ((in->asize >> 16) & 0xFFu) == in->type);
    return (in->type == ZF_T_F32 || in->type == ZF_T_F64) && args_of_type &&
           (f == ZF_CX_E_MAD || f == ZF_CX_E_FMA || f == ZF_CX_E_FMAX || f == ZF_CX_E_FMIN || f == ZF_CX_E_SQRT ||
            f == ZF_CX_E_FABS);
}

/* Conversions compiled inline: integer widths, integers to and from floats, floats to floats, in the default
 * rounding; the rest (saturation, rounding modes, halves) run the interpreter's code. */
static LLVMValueRef zf_cx_conv(zf_cx_em *e, const zf_dinst *in) {
    uint32_t src = in->aux & 0xFFu, mode = (in->aux >> ZF_CONV_ROUND_SHIFT) & 7u, dst = in->type;
    bool src_signed = (in->aux & ZF_CONV_SRC_SIGNED) != 0, dst_signed = (in->aux & ZF_CONV_DST_SIGNED) != 0;
    if ((in->aux & ZF_CONV_SATURATE) || src == ZF_T_F16 || dst == ZF_T_F16 || dst == ZF_T_BOOL)
        return NULL;
    LLVMTypeRef ts = zf_cx_vtype(e, src, in->comps), td = zf_cx_vtype(e, dst, in->comps);
    if (ts == NULL || td == NULL)
        return NULL;
    bool fs = zf_etype_is_float(src), fd = zf_etype_is_float(dst);
    if (mode != ZF_ROUND_DEFAULT && !(fs && !fd && mode == ZF_ROUND_RTZ) && !(!fs && !fd))
        return NULL;
    LLVMValueRef a = zf_cx_value(e, ts, in->a);
    unsigned ws = fs ? 0 : zf_etype_size(src), wd = fd ? 0 : zf_etype_size(dst);
    if (!fs && !fd) {
        if (ws == wd)
            return a;
        return wd < ws ? LLVMBuildTrunc(e->b, a, td, "")
                       : (src_signed ? LLVMBuildSExt(e->b, a, td, "") : LLVMBuildZExt(e->b, a, td, ""));
    }
    if (!fs)
        return src_signed ? LLVMBuildSIToFP(e->b, a, td, "") : LLVMBuildUIToFP(e->b, a, td, "");
    if (fd)
        return src == dst ? a : dst == ZF_T_F64 ? LLVMBuildFPExt(e->b, a, td, "") : LLVMBuildFPTrunc(e->b, a, td, "");
    /* Float to integer saturates, NaN gives 0: what llvm.fpto[su]i.sat define. */
    LLVMTypeRef types[2] = {td, ts};
    return zf_cx_intrinsic(e, dst_signed ? "llvm.fptosi.sat" : "llvm.fptoui.sat", types, 2, &a, 1);
}

/* The interpreter's handler on one work-item, operands staged in the scratch area. */
/* Runs the interpreter's handler of `in` through a helper, its operands and result in the scratch slots: zf_cx_pure
 * for an instruction that computes from its operands alone, zf_cx_lane_op (which may fault) for one that also
 * touches memory, images or the work-item's place in its sub-group. */
static void zf_cx_scratch_call(zf_cx_em *e, const zf_dinst *in, bool on_lane) {
    zf_operand_sizes s;
    zf_cx_sizes(e->code, in, &s);
    const zf_ref refs[3] = {in->a, in->b, in->c};
    const uint32_t sizes[3] = {s.a, s.b, s.c};
    for (int k = 0; k < 3; k++)
        if (refs[k] != ZF_REF_NONE && sizes[k] > 0)
            zf_cx_move(e, zf_cx_gep(e, e->scratch, ZF_CX_SCRATCH_SLOT * (k + 1u)), zf_cx_reg(e, refs[k], sizes[k]),
                       sizes[k]);
    LLVMTypeRef params[4] = {e->p8, e->p8, e->p8, e->i64};
    LLVMValueRef inst = LLVMConstIntToPtr(zf_cx_i64c(e, (uint64_t)(uintptr_t)in), e->p8);
    LLVMValueRef args[4] = {e->rt, inst, e->scratch, e->lane};
    if (on_lane) {
        LLVMValueRef killed = zf_cx_call(e, (void (*)(void))zf_cx_lane_op, e->i32, params, 4, args);
        LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(e->c, e->f, "lane op");
        LLVMBuildCondBr(e->b, LLVMBuildICmp(e->b, LLVMIntNE, killed, LLVMConstInt(e->i32, 0, false), ""), e->fault_bb,
                        next);
        LLVMPositionBuilderAtEnd(e->b, next);
    } else {
        zf_cx_call(e, (void (*)(void))zf_cx_pure, LLVMVoidTypeInContext(e->c), params, 3, args);
    }
    if (in->dst != ZF_REF_NONE && s.dst > 0)
        zf_cx_move(e, zf_cx_dst(e, in->dst), e->scratch, s.dst);
}

void zf_cx_pure_call(zf_cx_em *e, const zf_dinst *in) {
    zf_cx_scratch_call(e, in, false);
}

void zf_cx_lane_call(zf_cx_em *e, const zf_dinst *in) {
    zf_cx_scratch_call(e, in, true);
}

/* Typed operations compiled inline; false when the operation runs the interpreter's code. */
bool zf_cx_typed(zf_cx_em *e, const zf_dinst *in) {
    LLVMTypeRef t = zf_cx_vtype(e, in->type, in->comps);
    LLVMBuilderRef B = e->b;
    uint32_t op = in->op;
    LLVMValueRef r = NULL;
    if (op == ZF_X_CONV)
        r = zf_cx_conv(e, in);
    else if (t == NULL)
        return false;
    else if (op == ZF_X_EXT && zf_cx_ext_inline(in))
        r = zf_cx_ext(e, in, t);
    else if (zf_etype_is_int(in->type) || in->type == ZF_T_BOOL) {
        if ((op >= ZF_X_IADD && op <= ZF_X_SREM) || (op >= ZF_X_SHL && op <= ZF_X_XOR))
            r = zf_cx_int_binary(e, op, t, zf_cx_value(e, t, in->a), zf_cx_value(e, t, in->b));
        else if (op == ZF_X_INOT)
            r = LLVMBuildNot(B, zf_cx_value(e, t, in->a), "");
        else if (op == ZF_X_INEG)
            r = LLVMBuildNeg(B, zf_cx_value(e, t, in->a), "");
        else if (op >= ZF_X_IEQ && op <= ZF_X_SLE) {
            LLVMValueRef cmp =
                LLVMBuildICmp(B, zf_cx_ipred[op - ZF_X_IEQ], zf_cx_value(e, t, in->a), zf_cx_value(e, t, in->b), "");
            r = LLVMBuildZExt(B, cmp, zf_cx_vtype(e, ZF_T_BOOL, in->comps), "");
        }
    } else if (zf_etype_is_float(in->type)) {
        if (op >= ZF_X_FADD && op <= ZF_X_FDIV) {
            LLVMValueRef a = zf_cx_value(e, t, in->a), b = zf_cx_value(e, t, in->b);
            r = op == ZF_X_FADD   ? LLVMBuildFAdd(B, a, b, "")
                : op == ZF_X_FSUB ? LLVMBuildFSub(B, a, b, "")
                : op == ZF_X_FMUL ? LLVMBuildFMul(B, a, b, "")
                                  : LLVMBuildFDiv(B, a, b, "");
        } else if (op == ZF_X_FNEG) {
            r = LLVMBuildFNeg(B, zf_cx_value(e, t, in->a), "");
        } else if (op >= ZF_X_FOEQ && op <= ZF_X_FUNORD) {
            LLVMValueRef cmp =
                LLVMBuildFCmp(B, zf_cx_fpred[op - ZF_X_FOEQ], zf_cx_value(e, t, in->a), zf_cx_value(e, t, in->b), "");
            r = LLVMBuildZExt(B, cmp, zf_cx_vtype(e, ZF_T_BOOL, in->comps), "");
        }
    }
    if (r == NULL)
        return false;
    zf_cx_store(e, r, zf_cx_dst(e, in->dst));
    return true;
}

void zf_cx_select(zf_cx_em *e, const zf_dinst *in) {
    uint32_t size = in->size;
    if (size != 1 && size != 2 && size != 4 && size != 8 && size != 16) {
        zf_cx_pure_call(e, in);
        return;
    }
    LLVMTypeRef t = LLVMIntTypeInContext(e->c, 8 * size);
    LLVMValueRef cond = LLVMBuildICmp(e->b, LLVMIntNE, zf_cx_load_ir(e, e->i8, zf_cx_reg(e, in->a, 1)),
                                      LLVMConstInt(e->i8, 0, false), "");
    LLVMValueRef v = LLVMBuildSelect(e->b, cond, zf_cx_load_ir(e, t, zf_cx_reg(e, in->b, size)),
                                     zf_cx_load_ir(e, t, zf_cx_reg(e, in->c, size)), "");
    zf_cx_store(e, v, zf_cx_dst(e, in->dst));
}

void zf_cx_gather(zf_cx_em *e, const zf_dinst *in) {
    const uint32_t *aux = e->code->aux + in->aux;
    LLVMValueRef d = zf_cx_dst(e, in->dst);
    LLVMBuildMemSet(e->b, d, LLVMConstInt(e->i8, 0, false), zf_cx_i64c(e, in->size), 1);
    for (uint32_t p = 0; p < aux[0]; p++) {
        const uint32_t *part = aux + 1 + 3 * p;
        zf_cx_move(e, zf_cx_gep(e, d, part[2]), zf_cx_reg(e, part[0], part[1]), part[1]);
    }
}
