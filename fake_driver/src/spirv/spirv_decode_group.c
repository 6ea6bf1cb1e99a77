/* The decoder's work-group and sub-group operations: OpGroup* collectives, async copies, and the
 * SPV_INTEL_subgroups shuffles and block reads and writes. */
#include "spirv_decode_inst.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------------------------------------------------
 * Work-group and sub-group operations */

static zf_spirv_status zf_scope_of(zf_decoder *d, uint32_t id, uint32_t *scope) {
    uint64_t value;
    if (!zf_d_const_int(d, id, &value))
        return zf_d_malformed(d, "a scope that is not a constant");
    if (value != SpvScopeWorkgroup && value != SpvScopeSubgroup)
        return zf_d_fail(d, ZF_SPIRV_UNSUPPORTED, "group operations of scope %llu (only work-group and sub-group)",
                         (unsigned long long)value);
    *scope = (uint32_t)value;
    return ZF_SPIRV_OK;
}

zf_spirv_status zf_d_group(zf_decoder *d, const uint32_t *w, uint32_t count) {
    uint32_t opcode = w[0] & 0xFFFFu, scope, kind = opcode - SpvOpGroupAll, operation = SpvGroupOperationReduce;
    bool collective = opcode >= SpvOpGroupIAdd;
    zf_arg res, x, id = {ZF_REF_NONE, NULL};
    zf_spirv_status s = zf_need(d, count, collective || opcode == SpvOpGroupBroadcast ? 6 : 5);
    if (s == ZF_SPIRV_OK && (s = zf_res(d, w, &res)) == ZF_SPIRV_OK)
        s = zf_scope_of(d, w[3], &scope);
    if (s == ZF_SPIRV_OK)
        s = zf_get(d, w[collective ? 5 : 4], &x);
    if (s == ZF_SPIRV_OK && opcode == SpvOpGroupBroadcast)
        s = zf_get(d, w[5], &id);
    if (s != ZF_SPIRV_OK)
        return s;
    if (collective) {
        operation = w[4];
        if (operation > SpvGroupOperationExclusiveScan)
            return zf_d_fail(d, ZF_SPIRV_UNSUPPORTED, "group operation %u (reduce and scans only)", operation);
    }
    if (!zf_is_scalar_or_vector(x.t) || x.t->comps != 1 || res.t->size != x.t->size ||
        (opcode == SpvOpGroupBroadcast && (id.t->cls != ZF_TC_INT && id.t->cls != ZF_TC_VECTOR)))
        return zf_d_malformed(d, "group operation on a type that is not a scalar");
    zf_dinst *in = zf_emit_typed(d, ZF_X_GROUP, &res);
    if (in == NULL)
        return ZF_SPIRV_NO_MEMORY;
    in->a = x.ref;
    in->b = id.ref;
    in->type = x.t->etype;
    in->asize = id.t != NULL ? id.t->size : 0;
    in->aux = kind | (scope << 8) | (operation << 12);
    if (id.t != NULL) {
        in->comps = 1;
        in->aux |= (uint32_t)(id.t->comps) << 16; /* local id components */
        in->aux |= (uint32_t)(id.t->etype == ZF_T_I64) << 20;
    }
    return ZF_SPIRV_OK;
}

zf_spirv_status zf_d_async_copy(zf_decoder *d, const uint32_t *w, uint32_t count) {
    zf_arg res, dst, src, n, stride, event;
    zf_spirv_status s = zf_need(d, count, 9);
    uint32_t scope;
    if (s == ZF_SPIRV_OK && (s = zf_res(d, w, &res)) == ZF_SPIRV_OK && (s = zf_scope_of(d, w[3], &scope)) == 0 &&
        (s = zf_get(d, w[4], &dst)) == ZF_SPIRV_OK && (s = zf_get(d, w[5], &src)) == ZF_SPIRV_OK &&
        (s = zf_get(d, w[6], &n)) == ZF_SPIRV_OK && (s = zf_get(d, w[7], &stride)) == ZF_SPIRV_OK)
        s = zf_get(d, w[8], &event);
    if (s != ZF_SPIRV_OK)
        return s;
    const zf_tinfo *elem = dst.t->cls == ZF_TC_POINTER ? zf_pointee(d, dst.t) : NULL;
    if (elem == NULL || src.t->cls != ZF_TC_POINTER || n.t->cls != ZF_TC_INT || stride.t->cls != ZF_TC_INT ||
        res.t->size != 8)
        return zf_d_malformed(d, "OpGroupAsyncCopy operands have the wrong types");
    uint32_t aux = zf_d_aux(d, 6);
    if (aux == UINT32_MAX)
        return ZF_SPIRV_NO_MEMORY;
    uint32_t *x = zf_d_aux_at(d, aux);
    x[0] = dst.ref;
    x[1] = src.ref;
    x[2] = n.ref;
    x[3] = stride.ref;
    x[4] = n.t->size;
    x[5] = stride.t->size;
    zf_dinst *in = zf_d_emit(d, ZF_X_ASYNCCOPY);
    if (in == NULL)
        return ZF_SPIRV_NO_MEMORY;
    in->dst = res.ref;
    in->a = event.ref;
    in->size = elem->size;
    in->aux = aux;
    /* With the source's storage class, the copy knows which side is local (the direction of the copy). */
    in->comps = 1;
    in->type = scope == SpvScopeSubgroup ? 1 : 0;
    return ZF_SPIRV_OK;
}

zf_spirv_status zf_d_sg_shuffle(zf_decoder *d, const uint32_t *w, uint32_t count) {
    uint32_t opcode = w[0] & 0xFFFFu, kind = opcode - SpvOpSubgroupShuffleINTEL;
    bool two = kind == ZF_SG_SHUFFLE_DOWN || kind == ZF_SG_SHUFFLE_UP;
    zf_arg res, a, b, c = {ZF_REF_NONE, NULL};
    zf_spirv_status s = zf_need(d, count, two ? 6 : 5);
    if (s == ZF_SPIRV_OK && (s = zf_res(d, w, &res)) == ZF_SPIRV_OK && (s = zf_get(d, w[3], &a)) == ZF_SPIRV_OK)
        s = zf_get(d, w[4], &b);
    if (s == ZF_SPIRV_OK && two)
        s = zf_get(d, w[5], &c);
    if (s != ZF_SPIRV_OK)
        return s;
    zf_arg *index = two ? &c : &b;
    if (a.t->size != res.t->size || index->t->size != 4 || (two && b.t->size != res.t->size))
        return zf_d_malformed(d, "sub-group shuffle operands have the wrong types");
    zf_dinst *in = zf_d_emit(d, ZF_X_SGSHUFFLE);
    if (in == NULL)
        return ZF_SPIRV_NO_MEMORY;
    in->dst = res.ref;
    in->size = res.t->size;
    in->aux = kind;
    /* a: the value (the previous one for up), b: the index/delta, c: the second value (next for down, current for
     * up). */
    if (kind == ZF_SG_SHUFFLE_UP) {
        in->a = b.ref; /* current */
        in->c = a.ref; /* previous */
    } else {
        in->a = a.ref;
        in->c = two ? b.ref : ZF_REF_NONE;
    }
    in->b = index->ref;
    return ZF_SPIRV_OK;
}

/* The values of sub-group block reads and writes: what the intel_sub_group_block_* functions of OpenCL C have, a
 * scalar or a vector of 2, 4 or 8 integers of any width. */
static bool zf_block_shape(const zf_tinfo *t) {
    return (t->cls == ZF_TC_INT || t->cls == ZF_TC_VECTOR) && zf_etype_is_int(t->etype) &&
           (t->comps == 1 || t->comps == 2 || t->comps == 4 || t->comps == 8);
}

static zf_spirv_status zf_emit_block(zf_decoder *d, uint32_t op, const zf_arg *value, bool write, zf_ref target,
                                     zf_ref coord) {
    zf_dinst *in = zf_d_emit(d, op);
    if (in == NULL)
        return ZF_SPIRV_NO_MEMORY;
    in->dst = write ? ZF_REF_NONE : value->ref;
    in->a = target;
    in->type = value->t->etype;
    in->comps = value->t->comps;
    in->size = value->t->size;
    in->aux = write ? ZF_SGB_WRITE : ZF_SGB_READ;
    if (op == ZF_X_SGBLOCK) {
        in->b = write ? value->ref : ZF_REF_NONE;
    } else {
        in->b = coord;
        in->c = write ? value->ref : ZF_REF_NONE;
    }
    return ZF_SPIRV_OK;
}

/* OpSubgroupBlockReadINTEL (result type, result, pointer) and OpSubgroupBlockWriteINTEL (pointer, data). The
 * element width is the value's: the functions name it (_uc, _us, none, _ul), whatever the pointer's type says. */
zf_spirv_status zf_d_sg_block(zf_decoder *d, const uint32_t *w, uint32_t count) {
    uint32_t opcode = w[0] & 0xFFFFu;
    bool write = opcode == SpvOpSubgroupBlockWriteINTEL;
    zf_arg value, p;
    zf_spirv_status s = zf_need(d, count, write ? 3 : 4);
    if (s == ZF_SPIRV_OK)
        s = write ? zf_get(d, w[2], &value) : zf_res(d, w, &value);
    if (s == ZF_SPIRV_OK)
        s = zf_get(d, w[write ? 1 : 3], &p);
    if (s != ZF_SPIRV_OK)
        return s;
    if (p.t->cls != ZF_TC_POINTER)
        return zf_d_malformed(d, "a sub-group block access through a value that is not a pointer");
    if (!zf_block_shape(value.t))
        return zf_d_unsupported(d, opcode, "a block that is not 1, 2, 4 or 8 integers per work-item");
    return zf_emit_block(d, ZF_X_SGBLOCK, &value, write, p.ref, ZF_REF_NONE);
}

/* Whether a value is an image of a 2D, non-arrayed OpTypeImage: cl_intel_subgroups defines image block accesses on
 * image2d_t only. */
static bool zf_is_image_2d(zf_decoder *d, uint32_t id, const zf_tinfo *t) {
    const zf_spirv_idinfo *type = zf_spirv_id(d->m, d->vals[id].type);
    if (t->cls != ZF_TC_OPAQUE || t->size != 8 || type == NULL || type->opcode != SpvOpTypeImage)
        return false;
    const uint32_t *tw = &d->m->words[type->def];
    return tw[3] == SpvDim2D && tw[5] == 0; /* not Arrayed (the reader checked that the 9 words are there) */
}

/* OpSubgroupImageBlockReadINTEL (result type, result, image, coordinate) and OpSubgroupImageBlockWriteINTEL (image,
 * coordinate, data). */
zf_spirv_status zf_d_sg_image_block(zf_decoder *d, const uint32_t *w, uint32_t count) {
    uint32_t opcode = w[0] & 0xFFFFu, first = opcode == SpvOpSubgroupImageBlockWriteINTEL ? 1 : 3;
    bool write = first == 1;
    zf_arg value, image, coord;
    zf_spirv_status s = zf_need(d, count, write ? 4 : 5);
    if (s == ZF_SPIRV_OK)
        s = write ? zf_get(d, w[3], &value) : zf_res(d, w, &value);
    if (s == ZF_SPIRV_OK && (s = zf_get(d, w[first], &image)) == ZF_SPIRV_OK)
        s = zf_get(d, w[first + 1], &coord);
    if (s != ZF_SPIRV_OK)
        return s;
    if (!zf_is_image_2d(d, w[first], image.t))
        return zf_d_unsupported(d, opcode, "an image that is not a 2D image (image2d_t)");
    if (coord.t->cls != ZF_TC_VECTOR || coord.t->comps != 2 || coord.t->etype != ZF_T_I32)
        return zf_d_malformed(d, "a sub-group image block coordinate that is not an int2");
    if (!zf_block_shape(value.t))
        return zf_d_unsupported(d, opcode, "a block that is not 1, 2, 4 or 8 integers per work-item");
    return zf_emit_block(d, ZF_X_IMGBLOCK, &value, write, image.ref, coord.ref);
}
