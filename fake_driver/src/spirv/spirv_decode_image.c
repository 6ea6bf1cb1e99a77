/* The decoder for image instructions: reads, sampled reads, writes and queries of image arguments (OpenCL C's
 * read_image*, write_image*, get_image_*), sampled images (an image and a sampler side by side, 16 bytes) and samplers
 * written in the kernel (OpConstantSampler: a tagged value, not a handle). The image's type and format are those of
 * the argument at launch (spirv_image.c); the decoder checks operand shapes only. */
#include "spirv_decode.h"

#include <string.h>

bool zf_d_is_image_op(uint32_t opcode) {
    return opcode == SpvOpSampledImage || opcode == SpvOpImageSampleExplicitLod ||
           (opcode >= SpvOpImageRead && opcode <= SpvOpImageQuerySize);
}

/* SPIR-V SamplerAddressingMode to ze_sampler_address_mode_t: None, ClampToEdge, Clamp (to border), Repeat,
 * RepeatMirrored. */
bool zf_spirv_inline_sampler(const uint32_t *w, uint32_t count, uint64_t *value) {
    static const uint8_t modes[5] = {0, 2, 3, 1, 4};
    if (count < 6 || w[3] > 4 || w[4] > 1 || w[5] > 1)
        return false;
    *value = ZF_INLINE_SAMPLER | modes[w[3]] | (uint64_t)w[5] << 8 | (uint64_t)w[4] << 16;
    return true;
}

static zf_spirv_status zf_image_operand(zf_decoder *d, uint32_t id, uint32_t size, zf_ref *ref) {
    const zf_tinfo *t;
    zf_spirv_status s = zf_d_operand(d, id, ref, &t);
    if (s == ZF_SPIRV_OK && (t->cls != ZF_TC_OPAQUE || t->size != size))
        return zf_d_malformed(d, "%%%u is not an image%s", id, size == 16 ? " with a sampler" : "");
    return s;
}

static zf_spirv_status zf_sampled_image(zf_decoder *d, const uint32_t *w, uint32_t count) {
    zf_ref res, image, sampler;
    zf_spirv_status s =
        count < 5 ? zf_d_malformed(d, "OpSampledImage needs an image and a sampler") : zf_d_result(d, w[2], w[1], &res);
    if (s == ZF_SPIRV_OK && (s = zf_image_operand(d, w[3], 8, &image)) == ZF_SPIRV_OK)
        s = zf_image_operand(d, w[4], 8, &sampler);
    uint32_t aux = s == ZF_SPIRV_OK ? zf_d_aux(d, 7) : UINT32_MAX;
    if (s != ZF_SPIRV_OK || aux == UINT32_MAX)
        return s != ZF_SPIRV_OK ? s : ZF_SPIRV_NO_MEMORY;
    uint32_t parts[7] = {2, image, 8, 0, sampler, 8, 8};
    memcpy(zf_d_aux_at(d, aux), parts, sizeof parts);
    zf_dinst *in = zf_d_emit(d, ZF_X_GATHER);
    if (in == NULL)
        return ZF_SPIRV_NO_MEMORY;
    in->dst = res;
    in->size = 16;
    in->aux = aux;
    return ZF_SPIRV_OK;
}

/* The image of a sampled image (OpImage): its first 8 bytes. */
static zf_spirv_status zf_image_of(zf_decoder *d, const uint32_t *w, uint32_t count) {
    zf_ref res, sampled;
    zf_spirv_status s =
        count < 4 ? zf_d_malformed(d, "OpImage needs a sampled image") : zf_d_result(d, w[2], w[1], &res);
    if (s == ZF_SPIRV_OK)
        s = zf_image_operand(d, w[3], 16, &sampled);
    zf_dinst *in = s == ZF_SPIRV_OK ? zf_d_emit(d, ZF_X_EXTRACT) : NULL;
    if (in == NULL)
        return s != ZF_SPIRV_OK ? s : ZF_SPIRV_NO_MEMORY;
    in->dst = res;
    in->a = sampled;
    in->size = 8;
    in->asize = 16;
    return ZF_SPIRV_OK;
}

/* Texel values are 4-component vectors of float, half or 32-bit integers. */
static bool zf_texel_type(const zf_tinfo *t) {
    return t->cls == ZF_TC_VECTOR && t->comps == 4 &&
           (t->etype == ZF_T_F32 || t->etype == ZF_T_F16 || t->etype == ZF_T_I32);
}

static zf_spirv_status zf_image_access(zf_decoder *d, uint32_t kind, const uint32_t *w, uint32_t count) {
    bool write = kind == ZF_IMG_WRITE;
    uint32_t first = write ? 1 : 3;
    if (count < first + (write ? 3 : 2))
        return zf_d_malformed(d, "an image access without its operands");
    zf_ref res = ZF_REF_NONE, image, coord, texel = ZF_REF_NONE;
    const zf_tinfo *rt = NULL, *ct, *tt;
    zf_spirv_status s = write ? ZF_SPIRV_OK : zf_d_result(d, w[2], w[1], &res);
    if (s == ZF_SPIRV_OK && !write && (rt = zf_d_type(d, w[1])) == NULL)
        return ZF_SPIRV_MALFORMED;
    if (s == ZF_SPIRV_OK)
        s = zf_image_operand(d, w[first], kind == ZF_IMG_SAMPLE ? 16 : 8, &image);
    if (s == ZF_SPIRV_OK)
        s = zf_d_operand(d, w[first + 1], &coord, &ct);
    if (s == ZF_SPIRV_OK && write && (s = zf_d_operand(d, w[first + 2], &texel, &tt)) == ZF_SPIRV_OK)
        rt = tt;
    if (s != ZF_SPIRV_OK)
        return s;
    bool coords_ok = (ct->cls == ZF_TC_INT || ct->cls == ZF_TC_FLOAT || ct->cls == ZF_TC_VECTOR) && ct->comps <= 4 &&
                     (zf_etype_is_int(ct->etype) || ct->etype == ZF_T_F32) &&
                     (kind == ZF_IMG_SAMPLE || zf_etype_is_int(ct->etype));
    if (!coords_ok || !zf_texel_type(rt))
        return zf_d_malformed(d, "image coordinates or texel of a type OpenCL does not have");
    zf_dinst *in = zf_d_emit(d, ZF_X_IMAGE);
    if (in == NULL)
        return ZF_SPIRV_NO_MEMORY;
    in->dst = res;
    in->a = image;
    in->b = coord;
    in->c = texel;
    in->type = rt->etype;
    in->comps = 4;
    in->size = write ? 0 : rt->size;
    in->asize = (uint32_t)ct->etype | (uint32_t)ct->comps << 8;
    in->aux = kind;
    return ZF_SPIRV_OK;
}

static zf_spirv_status zf_image_query(zf_decoder *d, uint32_t kind, const uint32_t *w, uint32_t count) {
    zf_ref res, image;
    const zf_tinfo *rt;
    zf_spirv_status s =
        count < 4 ? zf_d_malformed(d, "an image query without its image") : zf_d_result(d, w[2], w[1], &res);
    if (s == ZF_SPIRV_OK && (rt = zf_d_type(d, w[1])) == NULL)
        return ZF_SPIRV_MALFORMED;
    if (s == ZF_SPIRV_OK)
        s = zf_image_operand(d, w[3], 8, &image);
    if (s != ZF_SPIRV_OK)
        return s;
    if (!zf_etype_is_int(rt->etype) || (kind != ZF_IMG_QUERY_SIZE && rt->comps != 1) || rt->comps > 4)
        return zf_d_malformed(d, "an image query whose result is not an integer of its shape");
    zf_dinst *in = zf_d_emit(d, ZF_X_IMAGE);
    if (in == NULL)
        return ZF_SPIRV_NO_MEMORY;
    in->dst = res;
    in->a = image;
    in->type = rt->etype;
    in->comps = rt->comps;
    in->size = rt->size;
    in->aux = kind;
    return ZF_SPIRV_OK;
}

zf_spirv_status zf_d_image(zf_decoder *d, const uint32_t *w, uint32_t count) {
    switch (w[0] & 0xFFFFu) {
    case SpvOpSampledImage:
        return zf_sampled_image(d, w, count);
    case SpvOpImage:
        return zf_image_of(d, w, count);
    case SpvOpImageSampleExplicitLod:
        return zf_image_access(d, ZF_IMG_SAMPLE, w, count);
    case SpvOpImageRead:
        return zf_image_access(d, ZF_IMG_READ, w, count);
    case SpvOpImageWrite:
        return zf_image_access(d, ZF_IMG_WRITE, w, count);
    case SpvOpImageQueryFormat:
        return zf_image_query(d, ZF_IMG_QUERY_FORMAT, w, count);
    case SpvOpImageQueryOrder:
        return zf_image_query(d, ZF_IMG_QUERY_ORDER, w, count);
    case SpvOpImageQuerySizeLod:
    case SpvOpImageQuerySize:
        return zf_image_query(d, ZF_IMG_QUERY_SIZE, w, count);
    default:
        return zf_d_unsupported(d, w[0] & 0xFFFFu, "an image instruction OpenCL kernels do not use");
    }
}
