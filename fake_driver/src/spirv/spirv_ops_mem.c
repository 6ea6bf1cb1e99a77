/* Handlers of pointer and memory operations: address arithmetic, private variables, loads and stores, memory
 * copies, atomics, vector loads and stores and work-group copies. Every access goes through zf_mem (spirv_mem.c),
 * which stops a lane instead of letting it touch memory it may not. Atomics are real host atomics (sequentially
 * consistent): lanes of one wave run one after the other, waves of other threads concurrently. */
#include "spirv_num.h"
#include "spirv_run.h"

/* ------------------------------------------------------------------------------------------------------------------
 * Addresses */

static void zf_add_term(zf_x *x, uint64_t *d, const uint8_t *idx, uint32_t bytes, uint64_t stride) {
    switch (bytes) {
    case 8: {
        const int64_t *v = (const int64_t *)idx;
        ZF_EACH(x, 1, d[i] += (uint64_t)v[i] * stride);
        return;
    }
    case 4: {
        const int32_t *v = (const int32_t *)idx;
        ZF_EACH(x, 1, d[i] += (uint64_t)(int64_t)v[i] * stride);
        return;
    }
    case 2: {
        const int16_t *v = (const int16_t *)idx;
        ZF_EACH(x, 1, d[i] += (uint64_t)(int64_t)v[i] * stride);
        return;
    }
    default: {
        const int8_t *v = (const int8_t *)idx;
        ZF_EACH(x, 1, d[i] += (uint64_t)(int64_t)v[i] * stride);
        return;
    }
    }
}

void zf_h_access(zf_x *x, const zf_dinst *in) {
    const uint32_t *aux = x->code->aux + in->aux;
    uint64_t *d = (uint64_t *)zf_reg(x, in->dst);
    const uint64_t *a = (const uint64_t *)zf_reg(x, in->a);
    uint64_t constant = (uint64_t)aux[1] << 32 | aux[0];
    ZF_EACH(x, 1, d[i] = a[i] + constant);
    for (uint32_t t = 0; t < aux[2]; t++) {
        const uint32_t *term = aux + 3 + 4 * t;
        zf_add_term(x, d, zf_reg(x, term[0]), term[1], (uint64_t)term[3] << 32 | term[2]);
    }
}

void zf_h_ptrdiff(zf_x *x, const zf_dinst *in) {
    uint8_t *d = zf_reg(x, in->dst);
    const uint64_t *a = (const uint64_t *)zf_reg(x, in->a), *b = (const uint64_t *)zf_reg(x, in->b);
    int64_t stride = in->aux ? (int64_t)in->aux : 1;
    ZF_LANES(x, zf_put_u(d, in->type, l, (uint64_t)((int64_t)(a[l] - b[l]) / stride)));
}

void zf_h_gcast(zf_x *x, const zf_dinst *in) {
    uint64_t *d = (uint64_t *)zf_reg(x, in->dst);
    const uint64_t *a = (const uint64_t *)zf_reg(x, in->a);
    ZF_LANES(x, d[l] = zf_mem_storage_of(x->ctx, a[l]) == in->aux ? a[l] : 0);
}

/* get_fence(): CLK_GLOBAL_MEM_FENCE (2) or CLK_LOCAL_MEM_FENCE (1) as SPIR-V memory semantics bits. */
void zf_h_getfence(zf_x *x, const zf_dinst *in) {
    uint32_t *d = (uint32_t *)zf_reg(x, in->dst);
    const uint64_t *a = (const uint64_t *)zf_reg(x, in->a);
    ZF_LANES(x, d[l] = zf_mem_storage_of(x->ctx, a[l]) == 4 ? 0x100u : 0x200u);
}

/* A Function-storage variable: a private slot of its own for this invocation, each lane pointing at its copy. */
void zf_h_var(zf_x *x, const zf_dinst *in) {
    uint64_t *d = (uint64_t *)zf_reg(x, in->dst);
    const char *name = in->c != ZF_REF_NONE ? x->code->strings + in->c : NULL;
    zf_pslot slot = {x->private_base + in->aux, in->asize, x->fn->private_bytes, in->b, 0, name};
    uint32_t s = zf_slot_push(x->ctx, &slot);
    if (s == UINT32_MAX) {
        ZF_LANES(x, zf_fault(x, l, "more than %u private variables live at once", ZF_PRIVATE_MAX_SLOTS));
        return;
    }
    ZF_EACH(x, 1, d[i] = zf_private_address(s, (uint32_t)i));
}

/* ------------------------------------------------------------------------------------------------------------------
 * Loads and stores */

#define ZF_LOAD_SIZED(T)                                                                                               \
    do {                                                                                                               \
        T *d = (T *)dst;                                                                                               \
        zf_mem_window w = zf_window(x);                                                                                \
        ZF_LANES(x, {                                                                                                  \
            const uint8_t *p = zf_mem_via(x, &w, l, ptr[l], sizeof(T), false);                                         \
            if (p != NULL)                                                                                             \
                memcpy(&d[l], p, sizeof(T));                                                                           \
        });                                                                                                            \
    } while (0)

/* A volatile access of one naturally aligned word is a relaxed atomic one; anything else is copied. */
static bool zf_word_access(const void *p, uint32_t size) {
    return (size == 1 || size == 2 || size == 4 || size == 8) && (uintptr_t)p % size == 0;
}

static void zf_volatile_read(void *to, const uint8_t *p, uint32_t size) {
    if (!zf_word_access(p, size)) {
        memcpy(to, p, size);
        return;
    }
    uint64_t v = 0;
    switch (size) {
    case 1:
        v = __atomic_load_n(p, __ATOMIC_RELAXED);
        break;
    case 2:
        v = __atomic_load_n((const uint16_t *)(const void *)p, __ATOMIC_RELAXED);
        break;
    case 4:
        v = __atomic_load_n((const uint32_t *)(const void *)p, __ATOMIC_RELAXED);
        break;
    default:
        v = __atomic_load_n((const uint64_t *)(const void *)p, __ATOMIC_RELAXED);
        break;
    }
    memcpy(to, &v, size); /* little-endian: the low bytes are the value */
}

static void zf_volatile_write(uint8_t *p, const void *from, uint32_t size) {
    if (!zf_word_access(p, size)) {
        if (from != NULL)
            memcpy(p, from, size);
        else
            memset(p, 0, size);
        return;
    }
    uint64_t v = 0;
    if (from != NULL)
        memcpy(&v, from, size);
    switch (size) {
    case 1:
        __atomic_store_n(p, (uint8_t)v, __ATOMIC_RELAXED);
        break;
    case 2:
        __atomic_store_n((uint16_t *)(void *)p, (uint16_t)v, __ATOMIC_RELAXED);
        break;
    case 4:
        __atomic_store_n((uint32_t *)(void *)p, (uint32_t)v, __ATOMIC_RELAXED);
        break;
    default:
        __atomic_store_n((uint64_t *)(void *)p, v, __ATOMIC_RELAXED);
        break;
    }
}

void zf_h_load(zf_x *x, const zf_dinst *in) {
    uint8_t *dst = zf_reg(x, in->dst);
    const uint64_t *ptr = (const uint64_t *)zf_reg(x, in->a);
    zf_count_access(x, ptr[x->lanes[0]], in->size, false);
    if (in->aux & ZF_MEM_VOLATILE) {
        uint32_t size = in->size;
        ZF_LANES(x, {
            const uint8_t *p = zf_mem(x, l, ptr[l], size, false);
            if (p != NULL)
                zf_volatile_read(dst + (size_t)l * size, p, size);
        });
        return;
    }
    switch (in->size) {
    case 1:
        ZF_LOAD_SIZED(uint8_t);
        return;
    case 2:
        ZF_LOAD_SIZED(uint16_t);
        return;
    case 4:
        ZF_LOAD_SIZED(uint32_t);
        return;
    case 8:
        ZF_LOAD_SIZED(uint64_t);
        return;
    default: {
        size_t size = in->size;
        ZF_LANES(x, {
            const uint8_t *p = zf_mem(x, l, ptr[l], in->size, false);
            if (p != NULL)
                memcpy(dst + l * size, p, size);
        });
        return;
    }
    }
}

#define ZF_STORE_SIZED(T)                                                                                              \
    do {                                                                                                               \
        const T *s = (const T *)src;                                                                                   \
        zf_mem_window w = zf_window(x);                                                                                \
        ZF_LANES(x, {                                                                                                  \
            uint8_t *p = zf_mem_via(x, &w, l, ptr[l], sizeof(T), true);                                                \
            if (p != NULL)                                                                                             \
                memcpy(p, &s[l], sizeof(T));                                                                           \
        });                                                                                                            \
    } while (0)

void zf_h_store(zf_x *x, const zf_dinst *in) {
    const uint8_t *src = zf_reg(x, in->b);
    const uint64_t *ptr = (const uint64_t *)zf_reg(x, in->a);
    zf_count_access(x, ptr[x->lanes[0]], in->size, true);
    if (in->aux & ZF_MEM_VOLATILE) {
        uint32_t size = in->size;
        ZF_LANES(x, {
            uint8_t *p = zf_mem(x, l, ptr[l], size, true);
            if (p != NULL)
                zf_volatile_write(p, src + (size_t)l * size, size);
        });
        return;
    }
    switch (in->size) {
    case 1:
        ZF_STORE_SIZED(uint8_t);
        return;
    case 2:
        ZF_STORE_SIZED(uint16_t);
        return;
    case 4:
        ZF_STORE_SIZED(uint32_t);
        return;
    case 8:
        ZF_STORE_SIZED(uint64_t);
        return;
    default: {
        size_t size = in->size;
        ZF_LANES(x, {
            uint8_t *p = zf_mem(x, l, ptr[l], in->size, true);
            if (p != NULL)
                memcpy(p, src + l * size, size);
        });
        return;
    }
    }
}

void zf_h_storez(zf_x *x, const zf_dinst *in) {
    const uint64_t *ptr = (const uint64_t *)zf_reg(x, in->a);
    bool indivisible = (in->aux & ZF_MEM_VOLATILE) != 0;
    zf_count_access(x, ptr[x->lanes[0]], in->size, true);
    ZF_LANES(x, {
        uint8_t *p = zf_mem(x, l, ptr[l], in->size, true);
        if (p != NULL && indivisible)
            zf_volatile_write(p, NULL, in->size);
        else if (p != NULL)
            memset(p, 0, in->size);
    });
}

bool zf_copy_memory(zf_x *x, uint32_t l, uint64_t to, uint64_t from, uint64_t size) {
    if (size == 0)
        return true;
    if (size > UINT32_MAX) {
        zf_fault(x, l, "a memory copy of %llu bytes", (unsigned long long)size);
        return false;
    }
    zf_count_lane(x, from, size, false);
    zf_count_lane(x, to, size, true);
    const uint8_t *s = zf_mem(x, l, from, (uint32_t)size, false);
    uint8_t *d = s != NULL ? zf_mem(x, l, to, (uint32_t)size, true) : NULL;
    if (d == NULL)
        return false;
    memmove(d, s, (size_t)size);
    return true;
}

void zf_h_copymem(zf_x *x, const zf_dinst *in) {
    const uint64_t *to = (const uint64_t *)zf_reg(x, in->a), *from = (const uint64_t *)zf_reg(x, in->b);
    if (in->op == ZF_X_COPYMEM) {
        ZF_LANES(x, zf_copy_memory(x, l, to[l], from[l], in->size));
        return;
    }
    const uint8_t *n = zf_reg(x, in->c);
    ZF_LANES(x, {
        uint64_t size = 0;
        memcpy(&size, n + (size_t)l * in->asize, in->asize);
        zf_copy_memory(x, l, to[l], from[l], size);
    });
}

/* ------------------------------------------------------------------------------------------------------------------
 * Atomics */

static bool zf_atomic_minmax(uint32_t kind, uint64_t old, uint64_t v, uint32_t bits, uint64_t *out) {
    bool replace;
    if (kind == ZF_ATOM_UMIN || kind == ZF_ATOM_UMAX) {
        replace = kind == ZF_ATOM_UMIN ? v < old : v > old;
    } else {
        int64_t so = bits == 32 ? (int32_t)old : (int64_t)old, sv = bits == 32 ? (int32_t)v : (int64_t)v;
        replace = kind == ZF_ATOM_SMIN ? sv < so : sv > so;
    }
    *out = replace ? v : old;
    return replace;
}

uint64_t zf_atomic_float(uint32_t kind, uint64_t old, uint64_t v, uint32_t bits) {
    double a, b, r;
    if (bits == 32) {
        float fa, fb;
        uint32_t ua = (uint32_t)old, ub = (uint32_t)v;
        memcpy(&fa, &ua, 4);
        memcpy(&fb, &ub, 4);
        a = fa;
        b = fb;
    } else {
        memcpy(&a, &old, 8);
        memcpy(&b, &v, 8);
    }
    r = kind == ZF_ATOM_FADD ? a + b : kind == ZF_ATOM_FMIN ? fmin(a, b) : fmax(a, b);
    if (bits == 32) {
        float f = (float)(kind == ZF_ATOM_FADD ? (float)a + (float)b : r);
        uint32_t u;
        memcpy(&u, &f, 4);
        return u;
    }
    uint64_t u;
    memcpy(&u, &r, 8);
    return u;
}

#define ZF_ATOMIC_RMW(T)                                                                                               \
    static uint64_t zf_atomic_rmw_##T(T *p, uint32_t kind, T v, T cmp, uint32_t bits) {                                \
        switch (kind) {                                                                                                \
        case ZF_ATOM_LOAD:                                                                                             \
            return __atomic_load_n(p, __ATOMIC_SEQ_CST);                                                               \
        case ZF_ATOM_STORE:                                                                                            \
            __atomic_store_n(p, v, __ATOMIC_SEQ_CST);                                                                  \
            return 0;                                                                                                  \
        case ZF_ATOM_XCHG:                                                                                             \
            return __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST);                                                        \
        case ZF_ATOM_CMPXCHG:                                                                                          \
            __atomic_compare_exchange_n(p, &cmp, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);                        \
            return cmp;                                                                                                \
        case ZF_ATOM_INC:                                                                                              \
            return __atomic_fetch_add(p, 1, __ATOMIC_SEQ_CST);                                                         \
        case ZF_ATOM_DEC:                                                                                              \
            return __atomic_fetch_sub(p, 1, __ATOMIC_SEQ_CST);                                                         \
        case ZF_ATOM_ADD:                                                                                              \
            return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);                                                         \
        case ZF_ATOM_SUB:                                                                                              \
            return __atomic_fetch_sub(p, v, __ATOMIC_SEQ_CST);                                                         \
        case ZF_ATOM_AND:                                                                                              \
            return __atomic_fetch_and(p, v, __ATOMIC_SEQ_CST);                                                         \
        case ZF_ATOM_OR:                                                                                               \
            return __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST);                                                          \
        case ZF_ATOM_XOR:                                                                                              \
            return __atomic_fetch_xor(p, v, __ATOMIC_SEQ_CST);                                                         \
        case ZF_ATOM_FLAG_TAS:                                                                                         \
            return __atomic_exchange_n(p, (T)1, __ATOMIC_SEQ_CST) != 0;                                                \
        case ZF_ATOM_FLAG_CLEAR:                                                                                       \
            __atomic_store_n(p, (T)0, __ATOMIC_SEQ_CST);                                                               \
            return 0;                                                                                                  \
        default: {                                                                                                     \
            T old = __atomic_load_n(p, __ATOMIC_SEQ_CST);                                                              \
            for (;;) {                                                                                                 \
                uint64_t next;                                                                                         \
                if (kind >= ZF_ATOM_FADD)                                                                              \
                    next = zf_atomic_float(kind, old, v, bits);                                                        \
                else if (!zf_atomic_minmax(kind, old, v, bits, &next))                                                 \
                    return old;                                                                                        \
                if (__atomic_compare_exchange_n(p, &old, (T)next, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))          \
                    return old;                                                                                        \
            }                                                                                                          \
        }                                                                                                              \
        }                                                                                                              \
    }
ZF_ATOMIC_RMW(uint32_t)
ZF_ATOMIC_RMW(uint64_t)

void zf_h_atomic(zf_x *x, const zf_dinst *in) {
    uint32_t bytes = zf_etype_size(in->type), kind = in->aux;
    const uint64_t *ptr = (const uint64_t *)zf_reg(x, in->a);
    const uint8_t *v = in->b != ZF_REF_NONE ? zf_reg(x, in->b) : NULL;
    const uint8_t *c = in->c != ZF_REF_NONE ? zf_reg(x, in->c) : NULL;
    uint8_t *d = in->dst != ZF_REF_NONE ? zf_reg(x, in->dst) : NULL;
    zf_count_access(x, ptr[x->lanes[0]], bytes, false);
    if (kind != ZF_ATOM_LOAD)
        zf_count_access(x, ptr[x->lanes[0]], bytes, true);
    ZF_LANES(x, {
        uint8_t *p = zf_mem(x, l, ptr[l], bytes, kind != ZF_ATOM_LOAD);
        if (p == NULL)
            continue;
        if ((uintptr_t)p % bytes != 0) {
            zf_fault(x, l, "atomic operation on 0x%llx, which is not %u-byte aligned", (unsigned long long)ptr[l],
                     bytes);
            continue;
        }
        uint64_t value = v != NULL ? zf_get_u(v, in->type, l) : 0, cmp = c != NULL ? zf_get_u(c, in->type, l) : 0;
        uint64_t old = bytes == 4
                           ? zf_atomic_rmw_uint32_t((uint32_t *)(void *)p, kind, (uint32_t)value, (uint32_t)cmp, 32)
                           : zf_atomic_rmw_uint64_t((uint64_t *)(void *)p, kind, value, cmp, 64);
        if (d != NULL && in->size == 1)
            d[l] = (uint8_t)(old != 0);
        else if (d != NULL)
            zf_put_u(d, in->type, l, old);
    });
}

/* ------------------------------------------------------------------------------------------------------------------
 * vloadn, vstoren and the half variants */

static uint64_t zf_offset_at(const uint8_t *base, uint32_t bytes, uint32_t l) {
    uint64_t v = 0;
    memcpy(&v, base + (size_t)l * bytes, bytes);
    return v;
}

void zf_h_vload(zf_x *x, const zf_dinst *in) {
    uint32_t kind = in->aux & 0xFFu, n = (in->aux >> 8) & 0xFFu, e = zf_etype_size(in->type);
    size_t slot = zf_slot(in->comps);
    const uint8_t *off = zf_reg(x, in->a);
    const uint64_t *ptr = (const uint64_t *)zf_reg(x, in->b);
    uint8_t *d = zf_reg(x, in->dst);
    uint32_t stride = kind == ZF_VL_HALF_A ? zf_slot(n) : n;
    uint32_t unit = kind == ZF_VL_PLAIN ? e : 2;
    zf_count_access(x, ptr[x->lanes[0]], (uint64_t)n * unit, false);
    ZF_LANES(x, {
        uint64_t addr = ptr[l] + zf_offset_at(off, in->asize, l) * stride * unit;
        const uint8_t *p = zf_mem(x, l, addr, n * unit, false);
        if (p == NULL)
            continue;
        if (kind == ZF_VL_PLAIN) {
            memcpy(d + l * slot * e, p, (size_t)n * e);
            continue;
        }
        for (uint32_t c = 0; c < n; c++) {
            uint16_t h;
            memcpy(&h, p + 2 * c, 2);
            zf_put_f(d, in->type, l * slot + c, zf_h2f(h));
        }
    });
}

void zf_h_vstore(zf_x *x, const zf_dinst *in) {
    uint32_t kind = in->aux & 0xFFu, n = (in->aux >> 8) & 0xFFu, round = (in->aux >> 16) & 7u;
    uint32_t e = zf_etype_size(in->type);
    size_t slot = zf_slot(in->comps);
    const uint8_t *data = zf_reg(x, in->a), *off = zf_reg(x, in->b);
    const uint64_t *ptr = (const uint64_t *)zf_reg(x, in->c);
    uint32_t stride = kind == ZF_VL_HALF_A ? zf_slot(n) : n;
    uint32_t unit = kind == ZF_VL_PLAIN ? e : 2;
    zf_count_access(x, ptr[x->lanes[0]], (uint64_t)n * unit, true);
    ZF_LANES(x, {
        uint64_t addr = ptr[l] + zf_offset_at(off, in->asize, l) * stride * unit;
        uint8_t *p = zf_mem(x, l, addr, n * unit, true);
        if (p == NULL)
            continue;
        if (kind == ZF_VL_PLAIN) {
            memcpy(p, data + l * slot * e, (size_t)n * e);
            continue;
        }
        for (uint32_t c = 0; c < n; c++) {
            uint16_t h = zf_f2h_mode((float)zf_get_f(data, in->type, l * slot + c), round);
            memcpy(p + 2 * c, &h, 2);
        }
    });
}

/* ------------------------------------------------------------------------------------------------------------------
 * async_work_group_copy: made once per group (by its first active lane) when the instruction runs, so it is done
 * by the time any lane of the group waits for it. The stride applies to the side that is not local memory. */

void zf_h_asynccopy(zf_x *x, const zf_dinst *in) {
    const uint32_t *aux = x->code->aux + in->aux;
    const uint64_t *dst = (const uint64_t *)zf_reg(x, aux[0]), *src = (const uint64_t *)zf_reg(x, aux[1]);
    const uint8_t *count = zf_reg(x, aux[2]), *stride = zf_reg(x, aux[3]);
    uint64_t *event = (uint64_t *)zf_reg(x, in->dst);
    const uint64_t *given = (const uint64_t *)zf_reg(x, in->a);
    uint32_t size = in->size, items = x->ctx->group_items, sub = x->ctx->subgroup_size;
    uint64_t last = UINT64_MAX;
    ZF_LANES(x, {
        event[l] = zf_async_event(given[l]);
        /* The group (or sub-group) of the lane: lanes of one are contiguous and come in order. */
        uint64_t key = zf_group_scope_is_subgroup(in) ? (uint64_t)(l / items) << 32 | (l % items) / sub : l / items;
        if (key == last)
            continue;
        last = key;
        uint64_t n = zf_offset_at(count, aux[4], l), s = zf_offset_at(stride, aux[5], l);
        bool to_local = zf_mem_storage_of(x->ctx, dst[l]) == 4;
        for (uint64_t k = 0; k < n && !x->ctx->dead[l]; k++) {
            uint64_t from = src[l] + (to_local ? k * s : k) * size, to = dst[l] + (to_local ? k : k * s) * size;
            zf_copy_memory(x, l, to, from, size);
        }
    });
}
