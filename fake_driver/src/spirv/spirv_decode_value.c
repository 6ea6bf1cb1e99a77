/* The decoder's conversions (numeric, pointer casts, bitcasts) and composites (extract, insert, shuffle, construct,
 * select): instructions that reshape values, each checked against the SPIR-V types of its operands and result. */
#include "spirv_decode_inst.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------------------------------------------------
 * Conversions */

static uint32_t zf_round_of(const zf_decoder *d, uint32_t id) {
    return (d->dec[id] >> ZF_DV_ROUND_SHIFT) & 7u;
}

static zf_spirv_status zf_decode_convert(zf_decoder *d, const uint32_t *w, uint32_t count) {
    uint32_t opcode = w[0] & 0xFFFFu;
    zf_arg res, a;
    zf_spirv_status s = zf_res_args(d, w, count, &res, &a, NULL);
    if (s != ZF_SPIRV_OK)
        return s;
    bool src_float = opcode == SpvOpConvertFToU || opcode == SpvOpConvertFToS || opcode == SpvOpFConvert;
    bool dst_float = opcode == SpvOpConvertSToF || opcode == SpvOpConvertUToF || opcode == SpvOpFConvert;
    if (!zf_is_scalar_or_vector(res.t) || !zf_is_scalar_or_vector(a.t) || a.t->comps != res.t->comps ||
        zf_etype_is_float(a.t->etype) != src_float || zf_etype_is_float(res.t->etype) != dst_float ||
        a.t->etype == ZF_T_BOOL || res.t->etype == ZF_T_BOOL)
        return zf_d_malformed(d, "conversion operand and result types do not fit the instruction");
    uint32_t flags = a.t->etype;
    if (opcode == SpvOpConvertSToF || opcode == SpvOpSConvert || opcode == SpvOpSatConvertSToU)
        flags |= ZF_CONV_SRC_SIGNED;
    if (opcode == SpvOpConvertFToS || opcode == SpvOpSConvert || opcode == SpvOpSatConvertUToS)
        flags |= ZF_CONV_DST_SIGNED;
    if (opcode == SpvOpSatConvertSToU || opcode == SpvOpSatConvertUToS || (d->dec[w[2]] & ZF_DV_SATURATE))
        flags |= ZF_CONV_SATURATE;
    flags |= zf_round_of(d, w[2]) << ZF_CONV_ROUND_SHIFT;
    zf_dinst *in = zf_emit_typed(d, ZF_X_CONV, &res);
    if (in == NULL)
        return ZF_SPIRV_NO_MEMORY;
    in->a = a.ref;
    in->aux = flags;
    return ZF_SPIRV_OK;
}

/* Pointer <-> integer conversions and casts between pointers: bit copies, widened or narrowed as needed. */
static zf_spirv_status zf_decode_pointer_cast(zf_decoder *d, const uint32_t *w, uint32_t count) {
    uint32_t opcode = w[0] & 0xFFFFu;
    zf_arg res, a;
    zf_spirv_status s = zf_res_args(d, w, count, &res, &a, NULL);
    if (s != ZF_SPIRV_OK)
        return s;
    if (opcode == SpvOpGenericCastToPtrExplicit) {
        if (count < 5 || a.t->cls != ZF_TC_POINTER || res.t->cls != ZF_TC_POINTER)
            return zf_d_malformed(d, "OpGenericCastToPtrExplicit needs a pointer and a storage class");
        zf_dinst *in = zf_d_emit(d, ZF_X_GCAST);
        if (in == NULL)
            return ZF_SPIRV_NO_MEMORY;
        in->dst = res.ref;
        in->a = a.ref;
        in->aux = w[4];
        in->size = 8;
        return ZF_SPIRV_OK;
    }
    if (opcode == SpvOpBitcast && res.t->size != a.t->size)
        return zf_d_malformed(d, "OpBitcast between types of different sizes (%u and %u)", a.t->size, res.t->size);
    if (res.t->size == a.t->size)
        return zf_emit_mov(d, res.ref, a.ref, res.t->size);
    if ((res.t->size != 4 && res.t->size != 8) || (a.t->size != 4 && a.t->size != 8))
        return zf_d_malformed(d, "a pointer conversion with an integer of %u bytes",
                              res.t->size == 8 ? a.t->size : res.t->size);
    zf_dinst *in = zf_d_emit(d, ZF_X_CONV);
    if (in == NULL)
        return ZF_SPIRV_NO_MEMORY;
    in->dst = res.ref;
    in->a = a.ref;
    in->type = res.t->size == 8 ? ZF_T_I64 : ZF_T_I32;
    in->aux = a.t->size == 8 ? ZF_T_I64 : ZF_T_I32;
    in->size = res.t->size;
    return ZF_SPIRV_OK;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Composites */

/* Walks literal indices into a composite type: byte offset and the type reached. */
static zf_spirv_status zf_walk_literals(zf_decoder *d, uint32_t type, const uint32_t *idx, uint32_t n, uint32_t *offset,
                                        const zf_tinfo **reached) {
    uint64_t at = 0;
    const zf_tinfo *t = zf_d_type(d, type);
    for (uint32_t i = 0; t != NULL && i < n; i++) {
        uint32_t next;
        if (t->cls == ZF_TC_STRUCT) {
            if (idx[i] >= t->length)
                return zf_d_malformed(d, "member index %u of a struct with %u members", idx[i], t->length);
            uint32_t off = zf_d_member_offset(d, type, idx[i], &next);
            if (off == UINT32_MAX)
                return ZF_SPIRV_MALFORMED;
            at += off;
        } else if (t->cls == ZF_TC_ARRAY || t->cls == ZF_TC_VECTOR) {
            uint32_t limit = t->cls == ZF_TC_ARRAY ? t->length : t->comps;
            if (idx[i] >= limit)
                return zf_d_malformed(d, "index %u of a composite with %u elements", idx[i], limit);
            next = t->elem;
            const zf_tinfo *et = zf_d_type(d, next);
            if (et == NULL)
                return ZF_SPIRV_MALFORMED;
            at += (uint64_t)idx[i] * et->size;
        } else {
            return zf_d_malformed(d, "an index into a type that is not a composite");
        }
        type = next;
        t = zf_d_type(d, type);
    }
    if (t == NULL)
        return ZF_SPIRV_MALFORMED;
    *offset = (uint32_t)at;
    *reached = t;
    return ZF_SPIRV_OK;
}

static zf_spirv_status zf_decode_extract(zf_decoder *d, const uint32_t *w, uint32_t count) {
    zf_arg res, c;
    const zf_tinfo *reached;
    uint32_t offset;
    zf_spirv_status s = zf_need(d, count, 5);
    if (s == ZF_SPIRV_OK && (s = zf_res(d, w, &res)) == ZF_SPIRV_OK && (s = zf_get(d, w[3], &c)) == ZF_SPIRV_OK)
        s = zf_walk_literals(d, d->vals[w[3]].type, &w[4], count - 4, &offset, &reached);
    if (s != ZF_SPIRV_OK)
        return s;
    if (reached->size != res.t->size || offset + (uint64_t)res.t->size > c.t->size)
        return zf_d_malformed(d, "OpCompositeExtract's result type is not the extracted member's");
    if (offset == 0 && res.t->size == c.t->size)
        return zf_emit_mov(d, res.ref, c.ref, res.t->size);
    zf_dinst *in = zf_d_emit(d, ZF_X_EXTRACT);
    if (in == NULL)
        return ZF_SPIRV_NO_MEMORY;
    in->dst = res.ref;
    in->a = c.ref;
    in->size = res.t->size;
    in->asize = c.t->size;
    in->aux = offset;
    return ZF_SPIRV_OK;
}

static zf_spirv_status zf_decode_insert(zf_decoder *d, const uint32_t *w, uint32_t count) {
    zf_arg res, obj, c;
    const zf_tinfo *reached;
    uint32_t offset;
    zf_spirv_status s = zf_need(d, count, 6);
    if (s == ZF_SPIRV_OK && (s = zf_res(d, w, &res)) == ZF_SPIRV_OK && (s = zf_get(d, w[3], &obj)) == ZF_SPIRV_OK &&
        (s = zf_get(d, w[4], &c)) == ZF_SPIRV_OK)
        s = zf_walk_literals(d, d->vals[w[4]].type, &w[5], count - 5, &offset, &reached);
    if (s != ZF_SPIRV_OK)
        return s;
    if (reached->size != obj.t->size || res.t->size != c.t->size || offset + (uint64_t)obj.t->size > c.t->size)
        return zf_d_malformed(d, "OpCompositeInsert's object does not fit the member");
    zf_dinst *in = zf_d_emit(d, ZF_X_INSERT);
    if (in == NULL)
        return ZF_SPIRV_NO_MEMORY;
    in->dst = res.ref;
    in->a = c.ref;
    in->b = obj.ref;
    in->size = obj.t->size;
    in->asize = c.t->size;
    in->aux = offset;
    return ZF_SPIRV_OK;
}

static zf_spirv_status zf_decode_dynamic(zf_decoder *d, const uint32_t *w, uint32_t count) {
    bool insert = (w[0] & 0xFFFFu) == SpvOpVectorInsertDynamic;
    zf_arg res, v, comp = {ZF_REF_NONE, NULL}, index;
    zf_spirv_status s = zf_need(d, count, insert ? 6 : 5);
    if (s == ZF_SPIRV_OK && (s = zf_res(d, w, &res)) == ZF_SPIRV_OK && (s = zf_get(d, w[3], &v)) == ZF_SPIRV_OK &&
        insert)
        s = zf_get(d, w[4], &comp);
    if (s == ZF_SPIRV_OK)
        s = zf_get(d, w[insert ? 5 : 4], &index);
    if (s != ZF_SPIRV_OK)
        return s;
    uint32_t elem = zf_etype_size(v.t->etype);
    if (v.t->cls != ZF_TC_VECTOR || index.t->cls != ZF_TC_INT ||
        (insert ? (comp.t->size != elem || res.t->size != v.t->size) : res.t->size != elem))
        return zf_d_malformed(d, "dynamic vector access with mismatched types");
    zf_dinst *in = zf_d_emit(d, insert ? ZF_X_VINSERT : ZF_X_VEXTRACT);
    if (in == NULL)
        return ZF_SPIRV_NO_MEMORY;
    in->dst = res.ref;
    in->a = v.ref;
    in->type = v.t->etype;
    in->comps = v.t->comps;
    in->asize = index.t->size;
    in->size = res.t->size;
    if (insert) {
        in->b = comp.ref;
        in->c = index.ref;
    } else {
        in->b = index.ref;
    }
    return ZF_SPIRV_OK;
}

static zf_spirv_status zf_decode_shuffle(zf_decoder *d, const uint32_t *w, uint32_t count) {
    zf_arg res, a, b;
    zf_spirv_status s = zf_res_args(d, w, count, &res, &a, &b);
    if (s != ZF_SPIRV_OK)
        return s;
    uint32_t n = count - 5;
    if (res.t->cls != ZF_TC_VECTOR || a.t->cls != ZF_TC_VECTOR || b.t->cls != ZF_TC_VECTOR || n != res.t->comps ||
        a.t->etype != res.t->etype || b.t->etype != res.t->etype)
        return zf_d_malformed(d, "OpVectorShuffle with mismatched vector types");
    uint32_t aux = zf_d_aux(d, 2 + n);
    if (aux == UINT32_MAX)
        return ZF_SPIRV_NO_MEMORY;
    uint32_t *x = zf_d_aux_at(d, aux);
    x[0] = a.t->comps;
    x[1] = b.t->comps;
    for (uint32_t i = 0; i < n; i++) {
        if (w[5 + i] != 0xFFFFFFFFu && w[5 + i] >= a.t->comps + b.t->comps)
            return zf_d_malformed(d, "shuffle component %u out of range", w[5 + i]);
        x[2 + i] = w[5 + i];
    }
    zf_dinst *in = zf_emit_typed(d, ZF_X_SHUFFLE, &res);
    if (in == NULL)
        return ZF_SPIRV_NO_MEMORY;
    in->a = a.ref;
    in->b = b.ref;
    in->aux = aux;
    return ZF_SPIRV_OK;
}

/* Where a constituent of a vector being constructed goes: vectors concatenate the components of their parts. */
static zf_spirv_status zf_vector_part(zf_decoder *d, const zf_arg *res, const zf_tinfo *part, uint32_t *components,
                                      uint32_t *offset, uint32_t *bytes) {
    uint32_t elem = zf_etype_size(res->t->etype);
    uint32_t n = part->cls == ZF_TC_VECTOR ? part->comps : 1;
    if (part->etype != res->t->etype || *components + n > res->t->comps)
        return zf_d_malformed(d, "OpCompositeConstruct constituents do not make the vector");
    *offset = *components * elem;
    *bytes = n * elem;
    *components += n;
    return ZF_SPIRV_OK;
}

static zf_spirv_status zf_decode_construct(zf_decoder *d, const uint32_t *w, uint32_t count) {
    zf_arg res;
    zf_spirv_status s = zf_need(d, count, 3);
    if (s == ZF_SPIRV_OK)
        s = zf_res(d, w, &res);
    if (s != ZF_SPIRV_OK)
        return s;
    uint32_t n = count - 3, components = 0;
    if (res.t->cls != ZF_TC_VECTOR && res.t->cls != ZF_TC_STRUCT && res.t->cls != ZF_TC_ARRAY)
        return zf_d_malformed(d, "OpCompositeConstruct of a type that is not a composite");
    if (res.t->cls != ZF_TC_VECTOR && n != res.t->length)
        return zf_d_malformed(d, "OpCompositeConstruct with %u constituents for %u members", n, res.t->length);
    uint32_t aux = zf_d_aux(d, 1 + 3 * n);
    if (aux == UINT32_MAX)
        return ZF_SPIRV_NO_MEMORY;
    zf_d_aux_at(d, aux)[0] = n;
    for (uint32_t i = 0; i < n; i++) {
        zf_arg part;
        if ((s = zf_get(d, w[3 + i], &part)) != ZF_SPIRV_OK)
            return s;
        uint32_t offset = 0, bytes = part.t->size, member;
        if (res.t->cls == ZF_TC_VECTOR) {
            s = zf_vector_part(d, &res, part.t, &components, &offset, &bytes);
        } else if (res.t->cls == ZF_TC_STRUCT) {
            offset = zf_d_member_offset(d, w[1], i, &member);
            const zf_tinfo *mt = offset == UINT32_MAX ? NULL : zf_d_type(d, member);
            if (mt == NULL || mt->size != part.t->size)
                s = zf_d_malformed(d, "constituent %u does not have its member's type", i);
        } else {
            const zf_tinfo *et = zf_d_type(d, res.t->elem);
            offset = et != NULL ? i * et->size : 0;
            if (et == NULL || et->size != part.t->size)
                s = zf_d_malformed(d, "constituent %u does not have the element type", i);
        }
        if (s != ZF_SPIRV_OK)
            return s;
        uint32_t *x = zf_d_aux_at(d, aux + 1 + 3 * i);
        x[0] = part.ref;
        x[1] = bytes;
        x[2] = offset;
    }
    if (res.t->cls == ZF_TC_VECTOR && components != res.t->comps)
        return zf_d_malformed(d, "OpCompositeConstruct gives %u of %u components", components, res.t->comps);
    zf_dinst *in = zf_d_emit(d, ZF_X_GATHER);
    if (in == NULL)
        return ZF_SPIRV_NO_MEMORY;
    in->dst = res.ref;
    in->size = res.t->size;
    in->aux = aux;
    return ZF_SPIRV_OK;
}

zf_spirv_status zf_d_select(zf_decoder *d, const uint32_t *w, uint32_t count) {
    zf_arg res, cond, x, y;
    zf_spirv_status s = zf_need(d, count, 6);
    if (s == ZF_SPIRV_OK && (s = zf_res(d, w, &res)) == ZF_SPIRV_OK && (s = zf_get(d, w[3], &cond)) == ZF_SPIRV_OK &&
        (s = zf_get(d, w[4], &x)) == ZF_SPIRV_OK)
        s = zf_get(d, w[5], &y);
    if (s != ZF_SPIRV_OK)
        return s;
    if (cond.t->etype != ZF_T_BOOL || x.t->size != res.t->size || y.t->size != res.t->size)
        return zf_d_malformed(d, "OpSelect with mismatched types");
    bool vector = cond.t->comps > 1;
    if (vector && (res.t->cls != ZF_TC_VECTOR || res.t->comps != cond.t->comps))
        return zf_d_malformed(d, "OpSelect's condition and objects have different component counts");
    zf_dinst *in = vector ? zf_emit_typed(d, ZF_X_SELECTV, &res) : zf_d_emit(d, ZF_X_SELECT);
    if (in == NULL)
        return ZF_SPIRV_NO_MEMORY;
    in->dst = res.ref;
    in->a = cond.ref;
    in->b = x.ref;
    in->c = y.ref;
    in->size = res.t->size;
    return ZF_SPIRV_OK;
}

static zf_spirv_status zf_decode_copy_object(zf_decoder *d, const uint32_t *w, uint32_t count) {
    zf_arg res, a;
    zf_spirv_status s = zf_res_args(d, w, count, &res, &a, NULL);
    if (s != ZF_SPIRV_OK)
        return s;
    if (a.t->size != res.t->size)
        return zf_d_malformed(d, "OpCopyObject changes the size of its operand");
    return zf_emit_mov(d, res.ref, a.ref, res.t->size);
}

zf_spirv_status zf_d_composite_op(zf_decoder *d, uint32_t opcode, const uint32_t *w, uint32_t count) {
    switch (opcode) {
    case SpvOpVectorExtractDynamic:
    case SpvOpVectorInsertDynamic:
        return zf_decode_dynamic(d, w, count);
    case SpvOpVectorShuffle:
        return zf_decode_shuffle(d, w, count);
    case SpvOpCompositeConstruct:
        return zf_decode_construct(d, w, count);
    case SpvOpCompositeExtract:
        return zf_decode_extract(d, w, count);
    case SpvOpCompositeInsert:
        return zf_decode_insert(d, w, count);
    default:
        return zf_decode_copy_object(d, w, count);
    }
}

zf_spirv_status zf_d_conversion_op(zf_decoder *d, uint32_t opcode, const uint32_t *w, uint32_t count) {
    switch (opcode) {
    case SpvOpConvertPtrToU:
    case SpvOpConvertUToPtr:
    case SpvOpPtrCastToGeneric:
    case SpvOpGenericCastToPtr:
    case SpvOpGenericCastToPtrExplicit:
    case SpvOpBitcast:
        return zf_decode_pointer_cast(d, w, count);
    case SpvOpQuantizeToF16:
        return zf_d_unsupported(d, opcode, "OpQuantizeToF16 belongs to shaders");
    default:
        return zf_decode_convert(d, w, count);
    }
}
