/* The decoder's memory instructions (variables, loads, stores, copies, access chains, pointer comparisons) and
 * atomics and barriers: every pointer operand's pointee type is checked against the value it moves. */
#include "spirv_decode_inst.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------------------------------------------------
 * Memory */

static zf_spirv_status zf_decode_load(zf_decoder *d, const uint32_t *w, uint32_t count) {
    zf_arg res, p;
    zf_spirv_status s = zf_res_args(d, w, count, &res, &p, NULL);
    if (s != ZF_SPIRV_OK)
        return s;
    const zf_tinfo *pointee = zf_pointee(d, p.t);
    if (pointee == NULL)
        return ZF_SPIRV_MALFORMED;
    if (pointee->size != res.t->size || res.t->size == 0)
        return zf_d_malformed(d, "OpLoad's result type is not the pointee type");
    const zf_dval *pv = &d->vals[w[3]];
    if (pv->kind == ZF_V_BUILTIN) {
        /* Built-in values are registers of the wave area: a load is a copy. */
        const zf_dwave *entry = (const zf_dwave *)d->waves.items + pv->index;
        return zf_emit_mov(d, res.ref, ZF_REF_MAKE(ZF_AREA_WAVE, entry->offset), res.t->size);
    }
    zf_dinst *in = zf_d_emit(d, ZF_X_LOAD);
    if (in == NULL)
        return ZF_SPIRV_NO_MEMORY;
    in->dst = res.ref;
    in->a = p.ref;
    in->size = res.t->size;
    in->aux = count > 4 && (w[4] & ZF_MEM_VOLATILE) != 0 ? ZF_MEM_VOLATILE : 0;
    return ZF_SPIRV_OK;
}

static zf_spirv_status zf_decode_store(zf_decoder *d, const uint32_t *w, uint32_t count) {
    zf_arg p, v;
    zf_spirv_status s = zf_need(d, count, 3);
    if (s == ZF_SPIRV_OK && (s = zf_get(d, w[1], &p)) == ZF_SPIRV_OK)
        s = zf_get(d, w[2], &v);
    if (s != ZF_SPIRV_OK)
        return s;
    const zf_tinfo *pointee = zf_pointee(d, p.t);
    if (pointee == NULL)
        return ZF_SPIRV_MALFORMED;
    if (pointee->size != v.t->size || v.t->size == 0)
        return zf_d_malformed(d, "OpStore's object type is not the pointee type");
    bool zero = d->vals[w[2]].kind == ZF_V_CONST && d->vals[w[2]].null;
    zf_dinst *in = zf_d_emit(d, zero ? ZF_X_STOREZ : ZF_X_STORE);
    if (in == NULL)
        return ZF_SPIRV_NO_MEMORY;
    in->a = p.ref;
    in->b = zero ? ZF_REF_NONE : v.ref;
    in->size = v.t->size;
    in->aux = count > 3 && (w[3] & ZF_MEM_VOLATILE) != 0 ? ZF_MEM_VOLATILE : 0;
    return ZF_SPIRV_OK;
}

static zf_spirv_status zf_decode_copy_memory(zf_decoder *d, const uint32_t *w, uint32_t count) {
    bool sized = (w[0] & 0xFFFFu) == SpvOpCopyMemorySized;
    zf_arg dst, src, n = {ZF_REF_NONE, NULL};
    zf_spirv_status s = zf_need(d, count, sized ? 4 : 3);
    if (s == ZF_SPIRV_OK && (s = zf_get(d, w[1], &dst)) == ZF_SPIRV_OK && (s = zf_get(d, w[2], &src)) == ZF_SPIRV_OK &&
        sized)
        s = zf_get(d, w[3], &n);
    if (s != ZF_SPIRV_OK)
        return s;
    if (dst.t->cls != ZF_TC_POINTER || src.t->cls != ZF_TC_POINTER)
        return zf_d_malformed(d, "memory copy operands are not pointers");
    uint64_t size = 0;
    if (!sized) {
        const zf_tinfo *pointee = zf_pointee(d, dst.t);
        if (pointee == NULL)
            return ZF_SPIRV_MALFORMED;
        size = pointee->size;
    } else if (n.t->cls != ZF_TC_INT) {
        return zf_d_malformed(d, "OpCopyMemorySized's size is not an integer");
    } else if (!zf_d_const_int(d, w[3], &size) || d->vals[w[3]].kind != ZF_V_CONST) {
        size = UINT64_MAX; /* known at run time only */
    }
    if (size != UINT64_MAX && size > UINT32_MAX)
        return zf_d_fail(d, ZF_SPIRV_UNSUPPORTED, "a memory copy of %llu bytes", (unsigned long long)size);
    zf_dinst *in = zf_d_emit(d, size == UINT64_MAX ? ZF_X_COPYMEMN : ZF_X_COPYMEM);
    if (in == NULL)
        return ZF_SPIRV_NO_MEMORY;
    in->a = dst.ref;
    in->b = src.ref;
    if (size == UINT64_MAX) {
        in->c = n.ref;
        in->asize = n.t->size;
    } else {
        in->size = (uint32_t)size;
    }
    return ZF_SPIRV_OK;
}

/* Access chains: base + a constant part + dynamic index * stride terms. */
typedef struct zf_chain {
    int64_t constant;
    uint32_t terms;
    uint32_t aux; /* aux index of the term list being filled */
} zf_chain;

static zf_spirv_status zf_chain_index(zf_decoder *d, zf_chain *c, uint32_t index_id, uint64_t stride) {
    uint64_t value;
    if (d->vals[index_id].kind == ZF_V_CONST && zf_d_const_int(d, index_id, &value)) {
        const zf_tinfo *t = zf_d_type(d, d->vals[index_id].type);
        if (t == NULL)
            return zf_d_malformed(d, "an access chain index without a type");
        int64_t v = t->size == 4   ? (int64_t)(int32_t)value
                    : t->size == 2 ? (int64_t)(int16_t)value
                    : t->size == 1 ? (int64_t)(int8_t)value
                                   : (int64_t)value;
        c->constant = (int64_t)((uint64_t)c->constant + (uint64_t)v * stride); /* address arithmetic wraps */
        return ZF_SPIRV_OK;
    }
    zf_arg idx;
    zf_spirv_status s = zf_get(d, index_id, &idx);
    if (s != ZF_SPIRV_OK)
        return s;
    if (idx.t->cls != ZF_TC_INT)
        return zf_d_malformed(d, "an access chain index that is not an integer scalar");
    uint32_t *x = zf_d_aux_at(d, c->aux + 3 + 4 * c->terms++);
    x[0] = idx.ref;
    x[1] = idx.t->size;
    x[2] = (uint32_t)stride;
    x[3] = (uint32_t)(stride >> 32);
    return ZF_SPIRV_OK;
}

static zf_spirv_status zf_decode_access_chain(zf_decoder *d, const uint32_t *w, uint32_t count) {
    uint32_t opcode = w[0] & 0xFFFFu;
    bool ptr_chain = opcode == SpvOpPtrAccessChain || opcode == SpvOpInBoundsPtrAccessChain;
    zf_arg res, base;
    zf_spirv_status s = zf_need(d, count, ptr_chain ? 5 : 4);
    if (s == ZF_SPIRV_OK && (s = zf_res(d, w, &res)) == ZF_SPIRV_OK)
        s = zf_get(d, w[3], &base);
    if (s != ZF_SPIRV_OK)
        return s;
    if (res.t->cls != ZF_TC_POINTER || base.t->cls != ZF_TC_POINTER)
        return zf_d_malformed(d, "an access chain on something that is not a pointer");
    uint32_t n = count - 4;
    zf_chain c = {0, 0, zf_d_aux(d, 3 + 4 * n)};
    if (c.aux == UINT32_MAX)
        return ZF_SPIRV_NO_MEMORY;
    uint32_t type = base.t->elem;
    for (uint32_t i = 0; i < n && s == ZF_SPIRV_OK; i++) {
        uint32_t index_id = w[4 + i];
        const zf_tinfo *t = zf_d_type(d, type);
        if (t == NULL)
            return ZF_SPIRV_MALFORMED;
        if (index_id == 0 || index_id >= d->m->bound)
            return zf_d_malformed(d, "index id %u is outside the bound", index_id);
        if (ptr_chain && i == 0) {
            s = zf_chain_index(d, &c, index_id, t->size); /* the Element operand steps over whole pointees */
            continue;
        }
        if (t->cls == ZF_TC_STRUCT) {
            uint64_t member;
            if (!zf_d_const_int(d, index_id, &member) || member >= t->length)
                return zf_d_malformed(d, "a struct member index that is not a constant in range");
            uint32_t next, offset = zf_d_member_offset(d, type, (uint32_t)member, &next);
            if (offset == UINT32_MAX)
                return ZF_SPIRV_MALFORMED;
            c.constant += offset;
            type = next;
        } else if (t->cls == ZF_TC_ARRAY || t->cls == ZF_TC_VECTOR) {
            const zf_tinfo *et = zf_d_type(d, t->elem);
            if (et == NULL)
                return ZF_SPIRV_MALFORMED;
            s = zf_chain_index(d, &c, index_id, et->size);
            type = t->elem;
        } else {
            return zf_d_malformed(d, "an access chain index into a type that is not a composite");
        }
    }
    if (s != ZF_SPIRV_OK)
        return s;
    uint32_t *x = zf_d_aux_at(d, c.aux);
    x[0] = (uint32_t)(uint64_t)c.constant;
    x[1] = (uint32_t)((uint64_t)c.constant >> 32);
    x[2] = c.terms;
    if (c.terms == 0 && c.constant == 0)
        return zf_emit_mov(d, res.ref, base.ref, 8);
    zf_dinst *in = zf_d_emit(d, ZF_X_ACCESS);
    if (in == NULL)
        return ZF_SPIRV_NO_MEMORY;
    in->dst = res.ref;
    in->a = base.ref;
    in->aux = c.aux;
    in->size = 8;
    return ZF_SPIRV_OK;
}

static zf_spirv_status zf_decode_variable(zf_decoder *d, const uint32_t *w, uint32_t count) {
    zf_arg res;
    zf_spirv_status s = zf_need(d, count, 4);
    if (s == ZF_SPIRV_OK)
        s = zf_res(d, w, &res);
    if (s != ZF_SPIRV_OK)
        return s;
    if (w[3] != SpvStorageClassFunction)
        return zf_d_malformed(d, "a variable inside a function that is not of storage class Function");
    zf_dinst *in = zf_d_emit(d, ZF_X_VAR);
    if (in == NULL)
        return ZF_SPIRV_NO_MEMORY;
    const zf_tinfo *pointee = zf_pointee(d, res.t);
    if (pointee == NULL)
        return zf_d_malformed(d, "a variable whose type is not a pointer to a sized type");
    in->dst = res.ref;
    in->aux = d->vals[w[2]].index; /* its private offset, assigned with the frame */
    in->size = 8;
    in->asize = (uint32_t)pointee->size;
    in->b = w[2];
    in->c = zf_d_string(d, zf_spirv_id_name(d->m, w[2]));
    if (count < 5)
        return ZF_SPIRV_OK;
    zf_arg init;
    if ((s = zf_get(d, w[4], &init)) != ZF_SPIRV_OK)
        return s;
    if (init.t->size != pointee->size)
        return zf_d_malformed(d, "the initializer does not have the variable's type");
    bool zero = d->vals[w[4]].kind == ZF_V_CONST && d->vals[w[4]].null;
    in = zf_d_emit(d, zero ? ZF_X_STOREZ : ZF_X_STORE);
    if (in == NULL)
        return ZF_SPIRV_NO_MEMORY;
    in->a = res.ref;
    in->b = zero ? ZF_REF_NONE : init.ref;
    in->size = pointee->size;
    return ZF_SPIRV_OK;
}

static zf_spirv_status zf_decode_pointer_compare(zf_decoder *d, const uint32_t *w, uint32_t count) {
    uint32_t opcode = w[0] & 0xFFFFu;
    zf_arg res, a, b;
    zf_spirv_status s = zf_res_args(d, w, count, &res, &a, &b);
    if (s != ZF_SPIRV_OK)
        return s;
    if (a.t->cls != ZF_TC_POINTER || b.t->cls != ZF_TC_POINTER)
        return zf_d_malformed(d, "pointer comparison of non-pointers");
    uint32_t stride = 1;
    if (opcode == SpvOpPtrDiff) {
        const zf_tinfo *pointee = zf_pointee(d, a.t);
        if (pointee == NULL || res.t->cls != ZF_TC_INT)
            return ZF_SPIRV_MALFORMED;
        stride = pointee->size ? pointee->size : 1;
    } else if (res.t->cls != ZF_TC_BOOL) {
        return zf_d_malformed(d, "pointer equality without a boolean result");
    }
    zf_dinst *in = zf_d_emit(d, opcode == SpvOpPtrEqual      ? ZF_X_IEQ
                                : opcode == SpvOpPtrNotEqual ? ZF_X_INE
                                                             : ZF_X_PTRDIFF);
    if (in == NULL)
        return ZF_SPIRV_NO_MEMORY;
    in->dst = res.ref;
    in->a = a.ref;
    in->b = b.ref;
    in->type = opcode == SpvOpPtrDiff ? res.t->etype : ZF_T_I64;
    in->size = res.t->size;
    in->aux = stride;
    return ZF_SPIRV_OK;
}

static zf_spirv_status zf_decode_mem_semantics(zf_decoder *d, const uint32_t *w, uint32_t count) {
    zf_arg res, p;
    zf_spirv_status s = zf_res_args(d, w, count, &res, &p, NULL);
    if (s != ZF_SPIRV_OK)
        return s;
    if (p.t->cls != ZF_TC_POINTER || res.t->size != 4)
        return zf_d_malformed(d, "OpGenericPtrMemSemantics needs a pointer and a 32-bit result");
    zf_dinst *in = zf_d_emit(d, ZF_X_GETFENCE);
    if (in == NULL)
        return ZF_SPIRV_NO_MEMORY;
    in->dst = res.ref;
    in->a = p.ref;
    in->size = 4;
    return ZF_SPIRV_OK;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Atomics and barriers */

typedef struct zf_atomic_form {
    uint16_t opcode;
    uint8_t kind;
    uint8_t value; /* word of the value operand, 0 when none */
    uint8_t comparator;
    uint8_t result; /* has a result */
    uint8_t pointer;
} zf_atomic_form;

static const zf_atomic_form zf_atomic_forms[] = {
    {SpvOpAtomicLoad, ZF_ATOM_LOAD, 0, 0, 1, 3},
    {SpvOpAtomicStore, ZF_ATOM_STORE, 4, 0, 0, 1},
    {SpvOpAtomicExchange, ZF_ATOM_XCHG, 6, 0, 1, 3},
    {SpvOpAtomicCompareExchange, ZF_ATOM_CMPXCHG, 7, 8, 1, 3},
    {SpvOpAtomicCompareExchangeWeak, ZF_ATOM_CMPXCHG, 7, 8, 1, 3},
    {SpvOpAtomicIIncrement, ZF_ATOM_INC, 0, 0, 1, 3},
    {SpvOpAtomicIDecrement, ZF_ATOM_DEC, 0, 0, 1, 3},
    {SpvOpAtomicIAdd, ZF_ATOM_ADD, 6, 0, 1, 3},
    {SpvOpAtomicISub, ZF_ATOM_SUB, 6, 0, 1, 3},
    {SpvOpAtomicSMin, ZF_ATOM_SMIN, 6, 0, 1, 3},
    {SpvOpAtomicUMin, ZF_ATOM_UMIN, 6, 0, 1, 3},
    {SpvOpAtomicSMax, ZF_ATOM_SMAX, 6, 0, 1, 3},
    {SpvOpAtomicUMax, ZF_ATOM_UMAX, 6, 0, 1, 3},
    {SpvOpAtomicAnd, ZF_ATOM_AND, 6, 0, 1, 3},
    {SpvOpAtomicOr, ZF_ATOM_OR, 6, 0, 1, 3},
    {SpvOpAtomicXor, ZF_ATOM_XOR, 6, 0, 1, 3},
    {SpvOpAtomicFlagTestAndSet, ZF_ATOM_FLAG_TAS, 0, 0, 1, 3},
    {SpvOpAtomicFlagClear, ZF_ATOM_FLAG_CLEAR, 0, 0, 0, 1},
    {SpvOpAtomicFAddEXT, ZF_ATOM_FADD, 6, 0, 1, 3},
    {SpvOpAtomicFMinEXT, ZF_ATOM_FMIN, 6, 0, 1, 3},
    {SpvOpAtomicFMaxEXT, ZF_ATOM_FMAX, 6, 0, 1, 3},
};

zf_spirv_status zf_d_atomic(zf_decoder *d, const zf_atomic_form *f, const uint32_t *w, uint32_t count) {
    uint32_t needed = f->comparator ? 9u : f->value ? f->value + 1u : f->pointer + 3u;
    zf_arg res = {ZF_REF_NONE, NULL}, p, v = {ZF_REF_NONE, NULL}, c = {ZF_REF_NONE, NULL};
    zf_spirv_status s = zf_need(d, count, needed);
    if (s == ZF_SPIRV_OK && f->result)
        s = zf_res(d, w, &res);
    if (s == ZF_SPIRV_OK)
        s = zf_get(d, w[f->pointer], &p);
    if (s == ZF_SPIRV_OK && f->value)
        s = zf_get(d, w[f->value], &v);
    if (s == ZF_SPIRV_OK && f->comparator)
        s = zf_get(d, w[f->comparator], &c);
    if (s != ZF_SPIRV_OK)
        return s;
    const zf_tinfo *pointee = zf_pointee(d, p.t);
    if (pointee == NULL)
        return ZF_SPIRV_MALFORMED;
    bool flag = f->kind == ZF_ATOM_FLAG_TAS || f->kind == ZF_ATOM_FLAG_CLEAR;
    bool floating = f->kind == ZF_ATOM_FADD || f->kind == ZF_ATOM_FMIN || f->kind == ZF_ATOM_FMAX;
    const zf_tinfo *t = flag ? pointee : f->result ? res.t : v.t;
    bool ok = t != NULL && (t->size == 4 || t->size == 8) && pointee->size == t->size && t->comps == 1 &&
              (flag || (floating ? zf_etype_is_float(t->etype)
                                 : (zf_etype_is_int(t->etype) || (f->kind <= ZF_ATOM_XCHG && t->cls == ZF_TC_FLOAT))));
    if (ok && f->value && v.t->size != t->size)
        ok = false;
    if (ok && f->comparator && c.t->size != t->size)
        ok = false;
    if (ok && flag && f->result && res.t->cls != ZF_TC_BOOL)
        ok = false;
    if (!ok)
        return zf_d_malformed(d, "atomic operand types do not fit (32- or 64-bit integers or floats)");
    zf_dinst *in = zf_d_emit(d, ZF_X_ATOMIC);
    if (in == NULL)
        return ZF_SPIRV_NO_MEMORY;
    in->dst = res.ref;
    in->a = p.ref;
    in->b = v.ref;
    in->c = c.ref;
    in->type = t->size == 4 ? (floating ? ZF_T_F32 : ZF_T_I32) : (floating ? ZF_T_F64 : ZF_T_I64);
    in->aux = f->kind;
    in->size = f->result ? res.t->size : 0;
    return ZF_SPIRV_OK;
}

zf_spirv_status zf_d_barrier(zf_decoder *d, uint32_t opcode, uint32_t count) {
    zf_spirv_status s = zf_need(d, count, opcode == SpvOpControlBarrier ? 4 : 3);
    if (s != ZF_SPIRV_OK)
        return s;
    return zf_d_emit(d, opcode == SpvOpControlBarrier ? ZF_X_BARRIER : ZF_X_FENCE) ? ZF_SPIRV_OK : ZF_SPIRV_NO_MEMORY;
}

zf_spirv_status zf_d_memory_op(zf_decoder *d, uint32_t opcode, const uint32_t *w, uint32_t count) {
    switch (opcode) {
    case SpvOpLoad:
        return zf_decode_load(d, w, count);
    case SpvOpStore:
        return zf_decode_store(d, w, count);
    case SpvOpCopyMemory:
    case SpvOpCopyMemorySized:
        return zf_decode_copy_memory(d, w, count);
    case SpvOpVariable:
        return zf_decode_variable(d, w, count);
    case SpvOpGenericPtrMemSemantics:
        return zf_decode_mem_semantics(d, w, count);
    case SpvOpPtrEqual:
    case SpvOpPtrNotEqual:
    case SpvOpPtrDiff:
        return zf_decode_pointer_compare(d, w, count);
    default:
        return zf_decode_access_chain(d, w, count);
    }
}

bool zf_d_is_memory_op(uint32_t opcode) {
    return opcode == SpvOpLoad || opcode == SpvOpStore || opcode == SpvOpCopyMemory || opcode == SpvOpCopyMemorySized ||
           opcode == SpvOpVariable || opcode == SpvOpGenericPtrMemSemantics || opcode == SpvOpAccessChain ||
           opcode == SpvOpInBoundsAccessChain || opcode == SpvOpPtrAccessChain ||
           opcode == SpvOpInBoundsPtrAccessChain || (opcode >= SpvOpPtrEqual && opcode <= SpvOpPtrDiff);
}

/* The atomic instruction form of `opcode`; NULL when it is not an atomic. */
const zf_atomic_form *zf_d_atomic_form(uint32_t opcode) {
    for (size_t i = 0; i < sizeof zf_atomic_forms / sizeof zf_atomic_forms[0]; i++)
        if (zf_atomic_forms[i].opcode == opcode)
            return &zf_atomic_forms[i];
    return NULL;
}
