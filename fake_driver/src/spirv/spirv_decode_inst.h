/* What the files of the instruction decoder share: spirv_decode_inst.c (arithmetic, logic, comparisons and the
 * dispatcher), spirv_decode_value.c (conversions and composites), spirv_decode_mem.c (memory, atomics, barriers),
 * spirv_decode_call.c (calls) and spirv_decode_group.c (work-group and sub-group operations). The small operand
 * helpers are inline so that each file checks operands the same way. */
#ifndef ZF_SPIRV_DECODE_INST_H
#define ZF_SPIRV_DECODE_INST_H

#include "spirv_decode.h"

/* An operand and its type. */
typedef struct zf_arg {
    zf_ref ref;
    const zf_tinfo *t;
} zf_arg;

static inline zf_spirv_status zf_get(zf_decoder *d, uint32_t id, zf_arg *out) {
    return zf_d_operand(d, id, &out->ref, &out->t);
}

static inline bool zf_is_scalar_or_vector(const zf_tinfo *t) {
    return t->cls == ZF_TC_BOOL || t->cls == ZF_TC_INT || t->cls == ZF_TC_FLOAT || t->cls == ZF_TC_VECTOR;
}

static inline zf_spirv_status zf_need(zf_decoder *d, uint32_t count, uint32_t minimum) {
    if (count >= minimum)
        return ZF_SPIRV_OK;
    return zf_d_malformed(d, "word count %u is less than the %u this instruction needs", count, minimum);
}

/* The result of the instruction: its frame slot and type. */
static inline zf_spirv_status zf_res(zf_decoder *d, const uint32_t *w, zf_arg *out) {
    zf_spirv_status s = zf_d_result(d, w[2], w[1], &out->ref);
    if (s != ZF_SPIRV_OK)
        return s;
    out->t = zf_d_type(d, w[1]);
    return out->t != NULL ? ZF_SPIRV_OK : zf_d_malformed(d, "result type %%%u is not a type", w[1]);
}

/* The result (words 1, 2) and one operand (word 3), or two (words 3, 4) when b is not NULL, of an instruction. */
static inline zf_spirv_status zf_res_args(zf_decoder *d, const uint32_t *w, uint32_t count, zf_arg *res, zf_arg *a,
                                          zf_arg *b) {
    zf_spirv_status s = zf_need(d, count, b != NULL ? 5 : 4);
    if (s == ZF_SPIRV_OK)
        s = zf_res(d, w, res);
    if (s == ZF_SPIRV_OK)
        s = zf_get(d, w[3], a);
    if (s == ZF_SPIRV_OK && b != NULL)
        s = zf_get(d, w[4], b);
    return s;
}

/* Emits op with the result's element type and components. */
static inline zf_dinst *zf_emit_typed(zf_decoder *d, uint32_t op, const zf_arg *res) {
    zf_dinst *in = zf_d_emit(d, op);
    if (in != NULL) {
        in->dst = res->ref;
        in->type = res->t->etype;
        in->comps = res->t->comps;
        in->size = res->t->size;
    }
    return in;
}

/* A temporary frame slot holding the scalar `scalar` in each component of a vector of `like`'s shape. */
static inline zf_spirv_status zf_splat(zf_decoder *d, const zf_arg *scalar, const zf_tinfo *like, zf_ref *out) {
    *out = zf_d_frame_slot(d, like->size, like->align);
    if (*out == ZF_REF_NONE)
        return ZF_SPIRV_UNSUPPORTED;
    zf_dinst *in = zf_d_emit(d, ZF_X_SPLAT);
    if (in == NULL)
        return ZF_SPIRV_NO_MEMORY;
    in->dst = *out;
    in->a = scalar->ref;
    in->type = like->etype;
    in->comps = like->comps;
    in->size = like->size;
    return ZF_SPIRV_OK;
}

/* A temporary holding `a` converted to the integer shape of `like` (shift amounts of another width). */
static inline zf_spirv_status zf_int_resize(zf_decoder *d, const zf_arg *a, const zf_tinfo *like, zf_ref *out) {
    if (a->t->size == like->size) {
        *out = a->ref;
        return ZF_SPIRV_OK;
    }
    *out = zf_d_frame_slot(d, like->size, like->align);
    zf_dinst *in = *out == ZF_REF_NONE ? NULL : zf_d_emit(d, ZF_X_CONV);
    if (in == NULL)
        return d->failed ? ZF_SPIRV_UNSUPPORTED : ZF_SPIRV_NO_MEMORY;
    in->dst = *out;
    in->a = a->ref;
    in->type = like->etype;
    in->comps = like->comps;
    in->aux = a->t->etype;
    return ZF_SPIRV_OK;
}

static inline zf_spirv_status zf_emit_mov(zf_decoder *d, zf_ref dst, zf_ref src, uint32_t size) {
    zf_dinst *in = zf_d_emit(d, ZF_X_MOV);
    if (in == NULL)
        return ZF_SPIRV_NO_MEMORY;
    in->dst = dst;
    in->a = src;
    in->size = size;
    return ZF_SPIRV_OK;
}

/* The type a pointer operand points to; NULL (logged) when it is not a pointer. */
static inline const zf_tinfo *zf_pointee(zf_decoder *d, const zf_tinfo *pointer) {
    if (pointer->cls != ZF_TC_POINTER) {
        zf_d_malformed(d, "an operand that should be a pointer is not");
        return NULL;
    }
    return zf_d_type(d, pointer->elem);
}

/* The instruction families each file decodes, for the dispatcher (spirv_decode_inst.c). */
typedef struct zf_atomic_form zf_atomic_form;
/* spirv_decode_value.c */
zf_spirv_status zf_d_composite_op(zf_decoder *d, uint32_t opcode, const uint32_t *w, uint32_t count);
zf_spirv_status zf_d_conversion_op(zf_decoder *d, uint32_t opcode, const uint32_t *w, uint32_t count);
zf_spirv_status zf_d_select(zf_decoder *d, const uint32_t *w, uint32_t count);
/* spirv_decode_mem.c */
zf_spirv_status zf_d_memory_op(zf_decoder *d, uint32_t opcode, const uint32_t *w, uint32_t count);
bool zf_d_is_memory_op(uint32_t opcode);
zf_spirv_status zf_d_atomic(zf_decoder *d, const zf_atomic_form *f, const uint32_t *w, uint32_t count);
zf_spirv_status zf_d_barrier(zf_decoder *d, uint32_t opcode, uint32_t count);
const zf_atomic_form *zf_d_atomic_form(uint32_t opcode);
/* spirv_decode_call.c */
zf_spirv_status zf_d_call(zf_decoder *d, const uint32_t *w, uint32_t count);
zf_spirv_status zf_d_pointer_call(zf_decoder *d, const uint32_t *w, uint32_t count);
/* spirv_decode_group.c */
zf_spirv_status zf_d_group(zf_decoder *d, const uint32_t *w, uint32_t count);
zf_spirv_status zf_d_async_copy(zf_decoder *d, const uint32_t *w, uint32_t count);
zf_spirv_status zf_d_sg_shuffle(zf_decoder *d, const uint32_t *w, uint32_t count);
zf_spirv_status zf_d_sg_block(zf_decoder *d, const uint32_t *w, uint32_t count);
zf_spirv_status zf_d_sg_image_block(zf_decoder *d, const uint32_t *w, uint32_t count);

#endif
