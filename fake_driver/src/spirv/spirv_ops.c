/* Handlers of value operations: data movement, integer and floating-point arithmetic, comparisons and conversions.
 * Each applies one decoded instruction to the active lanes; integer arithmetic is done on unsigned types (wrapping,
 * never undefined), division by zero and the most negative value divided by -1 give 0, shift amounts are taken
 * modulo the width (as OpenCL C does), and float-to-integer conversions saturate (NaN gives 0). */
#include "spirv_num.h"
#include "spirv_run.h"

#include <fenv.h>

/* The type switches below declare the storage, signed and arithmetic types of each width; an operation uses those it
 * needs. */
#pragma GCC diagnostic ignored "-Wunused-local-typedefs"

#define ZF_A(T) const T *a = (const T *)zf_reg(x, in->a)
#define ZF_B(T) const T *b = (const T *)zf_reg(x, in->b)
#define ZF_D(T) T *d = (T *)zf_reg(x, in->dst)

/* ------------------------------------------------------------------------------------------------------------------
 * Data movement */

void zf_h_mov(zf_x *x, const zf_dinst *in) {
    zf_copy_lanes(x, zf_reg(x, in->dst), zf_reg(x, in->a), in->size);
}

void zf_h_splat(zf_x *x, const zf_dinst *in) {
    uint8_t *d = zf_reg(x, in->dst);
    const uint8_t *a = zf_reg(x, in->a);
    size_t e = zf_etype_size(in->type), slot = zf_slot(in->comps);
    ZF_LANES(x, {
        for (size_t c = 0; c < slot; c++)
            memcpy(d + (l * slot + c) * e, a + l * e, e);
    });
}

void zf_h_extract(zf_x *x, const zf_dinst *in) {
    uint8_t *d = zf_reg(x, in->dst);
    const uint8_t *a = zf_reg(x, in->a);
    size_t size = in->size, from = in->asize, at = in->aux;
    if (size == 8) /* a component of a 64-bit vector (ids, sizes): one move per lane */
        ZF_LANES(x, memcpy(d + l * 8, a + l * from + at, 8));
    else if (size == 4)
        ZF_LANES(x, memcpy(d + l * 4, a + l * from + at, 4));
    else
        ZF_LANES(x, memcpy(d + l * size, a + l * from + at, size));
}

void zf_h_insert(zf_x *x, const zf_dinst *in) {
    uint8_t *d = zf_reg(x, in->dst);
    const uint8_t *a = zf_reg(x, in->a), *b = zf_reg(x, in->b);
    size_t size = in->size, whole = in->asize, at = in->aux;
    ZF_LANES(x, {
        memmove(d + l * whole, a + l * whole, whole);
        memcpy(d + l * whole + at, b + l * size, size);
    });
}

static size_t zf_index_value(const uint8_t *base, uint32_t bytes, size_t l) {
    uint64_t v = 0;
    memcpy(&v, base + l * bytes, bytes); /* little-endian: the low bytes */
    return v > SIZE_MAX ? SIZE_MAX : (size_t)v;
}

void zf_h_vextract(zf_x *x, const zf_dinst *in) {
    uint8_t *d = zf_reg(x, in->dst);
    const uint8_t *a = zf_reg(x, in->a), *b = zf_reg(x, in->b);
    size_t e = zf_etype_size(in->type), slot = zf_slot(in->comps);
    ZF_LANES(x, {
        size_t k = zf_index_value(b, in->asize, l);
        if (k < in->comps)
            memcpy(d + l * e, a + (l * slot + k) * e, e);
        else
            memset(d + l * e, 0, e); /* out of range: undefined in SPIR-V, zero here */
    });
}

void zf_h_vinsert(zf_x *x, const zf_dinst *in) {
    uint8_t *d = zf_reg(x, in->dst);
    const uint8_t *a = zf_reg(x, in->a), *b = zf_reg(x, in->b), *c = zf_reg(x, in->c);
    size_t e = zf_etype_size(in->type), slot = zf_slot(in->comps);
    ZF_LANES(x, {
        memmove(d + l * slot * e, a + l * slot * e, slot * e);
        size_t k = zf_index_value(c, in->asize, l);
        if (k < in->comps)
            memcpy(d + (l * slot + k) * e, b + l * e, e);
    });
}

void zf_h_shuffle(zf_x *x, const zf_dinst *in) {
    const uint32_t *aux = x->code->aux + in->aux;
    uint8_t *d = zf_reg(x, in->dst);
    const uint8_t *a = zf_reg(x, in->a), *b = zf_reg(x, in->b);
    size_t e = zf_etype_size(in->type), slot = zf_slot(in->comps), na = aux[0], sa = zf_slot(aux[0]),
           sb = zf_slot(aux[1]);
    ZF_LANES(x, {
        for (size_t c = 0; c < in->comps; c++) {
            uint32_t k = aux[2 + c];
            uint8_t *to = d + (l * slot + c) * e;
            if (k == 0xFFFFFFFFu)
                memset(to, 0, e);
            else if (k < na)
                memcpy(to, a + (l * sa + k) * e, e);
            else
                memcpy(to, b + (l * sb + k - na) * e, e);
        }
    });
}

void zf_h_gather(zf_x *x, const zf_dinst *in) {
    const uint32_t *aux = x->code->aux + in->aux;
    uint8_t *d = zf_reg(x, in->dst);
    size_t size = in->size;
    ZF_LANES(x, memset(d + l * size, 0, size));
    for (uint32_t p = 0; p < aux[0]; p++) {
        const uint32_t *part = aux + 1 + 3 * p;
        const uint8_t *src = zf_reg(x, part[0]);
        size_t bytes = part[1], at = part[2];
        ZF_LANES(x, memcpy(d + l * size + at, src + l * bytes, bytes));
    }
}

#define ZF_SELECT_SIZED(T)                                                                                             \
    do {                                                                                                               \
        ZF_D(T);                                                                                                       \
        ZF_B(T);                                                                                                       \
        const T *cc = (const T *)zf_reg(x, in->c);                                                                     \
        ZF_EACH(x, 1, d[i] = cond[i] ? b[i] : cc[i]);                                                                  \
    } while (0)

void zf_h_select(zf_x *x, const zf_dinst *in) {
    const uint8_t *cond = zf_reg(x, in->a);
    switch (in->size) {
    case 1:
        ZF_SELECT_SIZED(uint8_t);
        return;
    case 2:
        ZF_SELECT_SIZED(uint16_t);
        return;
    case 4:
        ZF_SELECT_SIZED(uint32_t);
        return;
    case 8:
        ZF_SELECT_SIZED(uint64_t);
        return;
    default: {
        uint8_t *d = zf_reg(x, in->dst);
        const uint8_t *b = zf_reg(x, in->b), *c = zf_reg(x, in->c);
        size_t size = in->size;
        ZF_LANES(x, memmove(d + l * size, (cond[l] ? b : c) + l * size, size));
        return;
    }
    }
}

#define ZF_SELECTV_SIZED(T)                                                                                            \
    do {                                                                                                               \
        ZF_D(T);                                                                                                       \
        ZF_B(T);                                                                                                       \
        const T *cc = (const T *)zf_reg(x, in->c);                                                                     \
        ZF_EACH(x, slot, d[i] = cond[i] ? b[i] : cc[i]);                                                               \
    } while (0)

void zf_h_selectv(zf_x *x, const zf_dinst *in) {
    const uint8_t *cond = zf_reg(x, in->a);
    size_t slot = zf_slot(in->comps);
    switch (zf_etype_size(in->type)) {
    case 1:
        ZF_SELECTV_SIZED(uint8_t);
        return;
    case 2:
        ZF_SELECTV_SIZED(uint16_t);
        return;
    case 4:
        ZF_SELECTV_SIZED(uint32_t);
        return;
    default:
        ZF_SELECTV_SIZED(uint64_t);
        return;
    }
}

/* ------------------------------------------------------------------------------------------------------------------
 * Integers. U is the storage type, S its signed twin, W the type arithmetic is done in (unsigned, at least 32 bits so
 * that small types do not promote to a signed int that could overflow), BITS the width. */

#define ZF_INT_SWITCH(BODY)                                                                                            \
    switch (in->type) {                                                                                                \
    case ZF_T_BOOL:                                                                                                    \
    case ZF_T_I8: {                                                                                                    \
        typedef uint8_t U;                                                                                             \
        typedef int8_t S;                                                                                              \
        typedef uint32_t W;                                                                                            \
        enum { BITS = 8 };                                                                                             \
        BODY;                                                                                                          \
        break;                                                                                                         \
    }                                                                                                                  \
    case ZF_T_I16: {                                                                                                   \
        typedef uint16_t U;                                                                                            \
        typedef int16_t S;                                                                                             \
        typedef uint32_t W;                                                                                            \
        enum { BITS = 16 };                                                                                            \
        BODY;                                                                                                          \
        break;                                                                                                         \
    }                                                                                                                  \
    case ZF_T_I32: {                                                                                                   \
        typedef uint32_t U;                                                                                            \
        typedef int32_t S;                                                                                             \
        typedef uint32_t W;                                                                                            \
        enum { BITS = 32 };                                                                                            \
        BODY;                                                                                                          \
        break;                                                                                                         \
    }                                                                                                                  \
    case ZF_T_I64: {                                                                                                   \
        typedef uint64_t U;                                                                                            \
        typedef int64_t S;                                                                                             \
        typedef uint64_t W;                                                                                            \
        enum { BITS = 64 };                                                                                            \
        BODY;                                                                                                          \
        break;                                                                                                         \
    }                                                                                                                  \
    default:                                                                                                           \
        break;                                                                                                         \
    }

#define ZF_INT_BINARY(name, EXPR)                                                                                      \
    void name(zf_x *x, const zf_dinst *in) {                                                                           \
        size_t per = zf_slot(in->comps);                                                                               \
        ZF_INT_SWITCH({                                                                                                \
            ZF_D(U);                                                                                                   \
            ZF_A(U);                                                                                                   \
            ZF_B(U);                                                                                                   \
            ZF_EACH(x, per, d[i] = (U)(EXPR));                                                                         \
        })                                                                                                             \
    }

#define ZF_INT_UNARY(name, EXPR)                                                                                       \
    void name(zf_x *x, const zf_dinst *in) {                                                                           \
        size_t per = zf_slot(in->comps);                                                                               \
        ZF_INT_SWITCH({                                                                                                \
            ZF_D(U);                                                                                                   \
            ZF_A(U);                                                                                                   \
            ZF_EACH(x, per, d[i] = (U)(EXPR));                                                                         \
        })                                                                                                             \
    }

#define ZF_SMIN ((S)((U)1 << (BITS - 1)))

ZF_INT_BINARY(zf_h_iadd, (W)a[i] + (W)b[i])
ZF_INT_BINARY(zf_h_isub, (W)a[i] - (W)b[i])
ZF_INT_BINARY(zf_h_imul, (W)a[i] * (W)b[i])
ZF_INT_BINARY(zf_h_udiv, b[i] ? (W)a[i] / (W)b[i] : 0)
ZF_INT_BINARY(zf_h_sdiv, (b[i] == 0 || ((S)a[i] == ZF_SMIN && (S)b[i] == -1)) ? 0 : (U)((S)a[i] / (S)b[i]))
ZF_INT_BINARY(zf_h_urem, b[i] ? (W)a[i] % (W)b[i] : 0)
ZF_INT_BINARY(zf_h_srem, (b[i] == 0 || (S)b[i] == -1) ? 0 : (U)((S)a[i] % (S)b[i]))
ZF_INT_BINARY(zf_h_smod, (b[i] == 0 || (S)b[i] == -1) ? 0
                         : ((S)a[i] % (S)b[i] != 0 && (((S)a[i] % (S)b[i] < 0) != ((S)b[i] < 0)))
                             ? (U)((S)a[i] % (S)b[i] + (S)b[i])
                             : (U)((S)a[i] % (S)b[i]))
ZF_INT_BINARY(zf_h_shl, (W)a[i] << (b[i] & (BITS - 1)))
ZF_INT_BINARY(zf_h_shr, (W)a[i] >> (b[i] & (BITS - 1)))
ZF_INT_BINARY(zf_h_sar, (U)((S)a[i] >> (b[i] & (BITS - 1))))
ZF_INT_BINARY(zf_h_and, a[i] & b[i])
ZF_INT_BINARY(zf_h_or, a[i] | b[i])
ZF_INT_BINARY(zf_h_xor, a[i] ^ b[i])
ZF_INT_UNARY(zf_h_inot, ~(W)a[i])
ZF_INT_UNARY(zf_h_ineg, (W)0 - (W)a[i])
ZF_INT_UNARY(zf_h_lnot, a[i] == 0)
ZF_INT_UNARY(zf_h_popcount, __builtin_popcountll((uint64_t)a[i]))

static uint64_t zf_bit_reverse(uint64_t v, unsigned bits) {
    uint64_t r = 0;
    for (unsigned i = 0; i < bits; i++, v >>= 1)
        r = (r << 1) | (v & 1u);
    return r;
}
ZF_INT_UNARY(zf_h_bitrev, zf_bit_reverse(a[i], BITS))

/* {a + b, carry}, {a - b, borrow}, {low, high} of a * b: the second member follows the first. */
static uint64_t zf_mul_high(uint64_t a, uint64_t b, unsigned bits, bool is_signed) {
    if (bits < 64) {
        uint64_t p = is_signed ? (uint64_t)((int64_t)a * (int64_t)b) : a * b;
        return p >> bits;
    }
    unsigned __int128 p =
        is_signed ? (unsigned __int128)((__int128)(int64_t)a * (__int128)(int64_t)b) : (unsigned __int128)a * b;
    return (uint64_t)(p >> 64);
}

void zf_h_extended(zf_x *x, const zf_dinst *in) {
    size_t per = zf_slot(in->comps);
    uint32_t t = in->type, bits = 8 * zf_etype_size(t);
    uint8_t *d = zf_reg(x, in->dst);
    const uint8_t *a = zf_reg(x, in->a), *b = zf_reg(x, in->b);
    uint64_t mask = bits == 64 ? UINT64_MAX : (1ull << bits) - 1;
    ZF_LANES(x, {
        for (size_t c = 0; c < per; c++) {
            size_t i = l * per + c;
            uint64_t u = zf_get_u(a, t, i), v = zf_get_u(b, t, i), lo, hi;
            switch (in->op) {
            case ZF_X_ADDC:
                lo = (u + v) & mask;
                hi = lo < u;
                break;
            case ZF_X_SUBB:
                lo = (u - v) & mask;
                hi = u < v;
                break;
            default: {
                bool is_signed = in->op == ZF_X_SMULX;
                uint64_t su = is_signed ? (uint64_t)zf_get_s(a, t, i) : u,
                         sv = is_signed ? (uint64_t)zf_get_s(b, t, i) : v;
                lo = (su * sv) & mask;
                hi = zf_mul_high(su, sv, bits, is_signed) & mask;
                break;
            }
            }
            zf_put_u(d, t, 2 * l * per + c, lo);
            zf_put_u(d, t, 2 * l * per + per + c, hi);
        }
    });
}

/* ------------------------------------------------------------------------------------------------------------------
 * Floating point: F (storage), T (arithmetic type), LOAD/STORE between them. */

#define ZF_IDENT(v) (v)
#define ZF_FLOAT_SWITCH(BODY)                                                                                          \
    switch (in->type) {                                                                                                \
    case ZF_T_F16: {                                                                                                   \
        typedef uint16_t F;                                                                                            \
        typedef float T;                                                                                               \
        BODY(zf_h2f, zf_f2h);                                                                                          \
        break;                                                                                                         \
    }                                                                                                                  \
    case ZF_T_F32: {                                                                                                   \
        typedef float F;                                                                                               \
        typedef float T;                                                                                               \
        BODY(ZF_IDENT, ZF_IDENT);                                                                                      \
        break;                                                                                                         \
    }                                                                                                                  \
    case ZF_T_F64: {                                                                                                   \
        typedef double F;                                                                                              \
        typedef double T;                                                                                              \
        BODY(ZF_IDENT, ZF_IDENT);                                                                                      \
        break;                                                                                                         \
    }                                                                                                                  \
    default:                                                                                                           \
        break;                                                                                                         \
    }

#define ZF_FLOAT_BINARY(name, EXPR)                                                                                    \
    void name(zf_x *x, const zf_dinst *in) {                                                                           \
        size_t per = zf_slot(in->comps);                                                                               \
        ZF_FLOAT_SWITCH(ZF_FLOAT_BINARY_BODY_##name)                                                                   \
    }

#define ZF_FBIN_BODY(EXPR, LOAD, STORE)                                                                                \
    {                                                                                                                  \
        ZF_D(F);                                                                                                       \
        ZF_A(F);                                                                                                       \
        ZF_B(F);                                                                                                       \
        ZF_EACH(x, per, {                                                                                              \
            T A = LOAD(a[i]), B = LOAD(b[i]);                                                                          \
            d[i] = STORE((T)(EXPR));                                                                                   \
        });                                                                                                            \
    }

static double zf_fmod_sign_of_b(double a, double b) {
    double r = fmod(a, b);
    if (r != 0 && signbit(r) != signbit(b))
        r += b;
    return r;
}

#define ZF_FLOAT_BINARY_BODY_zf_h_fadd(LOAD, STORE) ZF_FBIN_BODY(A + B, LOAD, STORE)
#define ZF_FLOAT_BINARY_BODY_zf_h_fsub(LOAD, STORE) ZF_FBIN_BODY(A - B, LOAD, STORE)
#define ZF_FLOAT_BINARY_BODY_zf_h_fmul(LOAD, STORE) ZF_FBIN_BODY(A *B, LOAD, STORE)
#define ZF_FLOAT_BINARY_BODY_zf_h_fdiv(LOAD, STORE) ZF_FBIN_BODY(A / B, LOAD, STORE)
#define ZF_FLOAT_BINARY_BODY_zf_h_frem(LOAD, STORE) ZF_FBIN_BODY(fmod(A, B), LOAD, STORE)
#define ZF_FLOAT_BINARY_BODY_zf_h_fmod(LOAD, STORE) ZF_FBIN_BODY(zf_fmod_sign_of_b(A, B), LOAD, STORE)
ZF_FLOAT_BINARY(zf_h_fadd, _)
ZF_FLOAT_BINARY(zf_h_fsub, _)
ZF_FLOAT_BINARY(zf_h_fmul, _)
ZF_FLOAT_BINARY(zf_h_fdiv, _)
ZF_FLOAT_BINARY(zf_h_frem, _)
ZF_FLOAT_BINARY(zf_h_fmod, _)

#define ZF_FNEG_BODY(LOAD, STORE)                                                                                      \
    {                                                                                                                  \
        ZF_D(F);                                                                                                       \
        ZF_A(F);                                                                                                       \
        ZF_EACH(x, per, d[i] = STORE((T)-LOAD(a[i])));                                                                 \
    }
void zf_h_fneg(zf_x *x, const zf_dinst *in) {
    size_t per = zf_slot(in->comps);
    if (in->type == ZF_T_F16) { /* flip the sign bit: exact for NaNs too */
        ZF_D(uint16_t);
        ZF_A(uint16_t);
        ZF_EACH(x, per, d[i] = (uint16_t)(a[i] ^ 0x8000u));
        return;
    }
    ZF_FLOAT_SWITCH(ZF_FNEG_BODY)
}

void zf_h_dot(zf_x *x, const zf_dinst *in) {
    uint8_t *d = zf_reg(x, in->dst);
    const uint8_t *a = zf_reg(x, in->a), *b = zf_reg(x, in->b);
    size_t slot = zf_slot(in->comps);
    ZF_LANES(x, {
        double sum = 0;
        if (in->type == ZF_T_F64) {
            for (size_t c = 0; c < in->comps; c++)
                sum += zf_get_f(a, in->type, l * slot + c) * zf_get_f(b, in->type, l * slot + c);
        } else {
            float s = 0; /* in the element precision, component order */
            for (size_t c = 0; c < in->comps; c++)
                s += (float)zf_get_f(a, in->type, l * slot + c) * (float)zf_get_f(b, in->type, l * slot + c);
            sum = s;
        }
        zf_put_f(d, in->type, l, sum);
    });
}

/* ------------------------------------------------------------------------------------------------------------------
 * Comparisons: boolean results (one byte per component). */

#define ZF_INT_COMPARE(name, EXPR)                                                                                     \
    void name(zf_x *x, const zf_dinst *in) {                                                                           \
        size_t per = zf_slot(in->comps);                                                                               \
        uint8_t *d = zf_reg(x, in->dst);                                                                               \
        ZF_INT_SWITCH({                                                                                                \
            ZF_A(U);                                                                                                   \
            ZF_B(U);                                                                                                   \
            ZF_EACH(x, per, d[i] = (uint8_t)(EXPR));                                                                   \
        })                                                                                                             \
    }

ZF_INT_COMPARE(zf_h_ieq, a[i] == b[i])
ZF_INT_COMPARE(zf_h_ine, a[i] != b[i])
ZF_INT_COMPARE(zf_h_ugt, a[i] > b[i])
ZF_INT_COMPARE(zf_h_uge, a[i] >= b[i])
ZF_INT_COMPARE(zf_h_ult, a[i] < b[i])
ZF_INT_COMPARE(zf_h_ule, a[i] <= b[i])
ZF_INT_COMPARE(zf_h_sgt, (S)a[i] > (S)b[i])
ZF_INT_COMPARE(zf_h_sge, (S)a[i] >= (S)b[i])
ZF_INT_COMPARE(zf_h_slt, (S)a[i] < (S)b[i])
ZF_INT_COMPARE(zf_h_sle, (S)a[i] <= (S)b[i])

#define ZF_FLOAT_COMPARE(name, EXPR)                                                                                   \
    void name(zf_x *x, const zf_dinst *in) {                                                                           \
        size_t per = zf_slot(in->comps);                                                                               \
        uint8_t *out = zf_reg(x, in->dst);                                                                             \
        ZF_FLOAT_SWITCH(ZF_FLOAT_COMPARE_BODY_##name)                                                                  \
    }
#define ZF_FCMP_BODY(EXPR, LOAD, STORE)                                                                                \
    {                                                                                                                  \
        ZF_A(F);                                                                                                       \
        ZF_B(F);                                                                                                       \
        ZF_EACH(x, per, {                                                                                              \
            T A = LOAD(a[i]), B = LOAD(b[i]);                                                                          \
            out[i] = (uint8_t)(EXPR);                                                                                  \
        });                                                                                                            \
    }
#define ZF_UNORD(A, B)                          (isnan(A) || isnan(B))
#define ZF_FLOAT_COMPARE_BODY_zf_h_foeq(L, S)   ZF_FCMP_BODY(A == B, L, S)
#define ZF_FLOAT_COMPARE_BODY_zf_h_fueq(L, S)   ZF_FCMP_BODY(ZF_UNORD(A, B) || A == B, L, S)
#define ZF_FLOAT_COMPARE_BODY_zf_h_fone(L, S)   ZF_FCMP_BODY(!ZF_UNORD(A, B) && A != B, L, S)
#define ZF_FLOAT_COMPARE_BODY_zf_h_fune(L, S)   ZF_FCMP_BODY(A != B, L, S)
#define ZF_FLOAT_COMPARE_BODY_zf_h_folt(L, S)   ZF_FCMP_BODY(A < B, L, S)
#define ZF_FLOAT_COMPARE_BODY_zf_h_fult(L, S)   ZF_FCMP_BODY(!(A >= B), L, S)
#define ZF_FLOAT_COMPARE_BODY_zf_h_fogt(L, S)   ZF_FCMP_BODY(A > B, L, S)
#define ZF_FLOAT_COMPARE_BODY_zf_h_fugt(L, S)   ZF_FCMP_BODY(!(A <= B), L, S)
#define ZF_FLOAT_COMPARE_BODY_zf_h_fole(L, S)   ZF_FCMP_BODY(A <= B, L, S)
#define ZF_FLOAT_COMPARE_BODY_zf_h_fule(L, S)   ZF_FCMP_BODY(!(A > B), L, S)
#define ZF_FLOAT_COMPARE_BODY_zf_h_foge(L, S)   ZF_FCMP_BODY(A >= B, L, S)
#define ZF_FLOAT_COMPARE_BODY_zf_h_fuge(L, S)   ZF_FCMP_BODY(!(A < B), L, S)
#define ZF_FLOAT_COMPARE_BODY_zf_h_ford(L, S)   ZF_FCMP_BODY(!ZF_UNORD(A, B), L, S)
#define ZF_FLOAT_COMPARE_BODY_zf_h_funord(L, S) ZF_FCMP_BODY(ZF_UNORD(A, B), L, S)
ZF_FLOAT_COMPARE(zf_h_foeq, _)
ZF_FLOAT_COMPARE(zf_h_fueq, _)
ZF_FLOAT_COMPARE(zf_h_fone, _)
ZF_FLOAT_COMPARE(zf_h_fune, _)
ZF_FLOAT_COMPARE(zf_h_folt, _)
ZF_FLOAT_COMPARE(zf_h_fult, _)
ZF_FLOAT_COMPARE(zf_h_fogt, _)
ZF_FLOAT_COMPARE(zf_h_fugt, _)
ZF_FLOAT_COMPARE(zf_h_fole, _)
ZF_FLOAT_COMPARE(zf_h_fule, _)
ZF_FLOAT_COMPARE(zf_h_foge, _)
ZF_FLOAT_COMPARE(zf_h_fuge, _)
ZF_FLOAT_COMPARE(zf_h_ford, _)
ZF_FLOAT_COMPARE(zf_h_funord, _)

void zf_h_ftest(zf_x *x, const zf_dinst *in) {
    size_t per = zf_slot(in->comps);
    uint8_t *d = zf_reg(x, in->dst);
    const uint8_t *a = zf_reg(x, in->a);
    ZF_EACH(x, per, {
        double v = zf_get_f(a, in->type, i);
        switch (in->op) {
        case ZF_X_ISNAN:
            d[i] = isnan(v) != 0;
            break;
        case ZF_X_ISINF:
            d[i] = isinf(v) != 0;
            break;
        case ZF_X_ISFINITE:
            d[i] = isfinite(v) != 0;
            break;
        case ZF_X_ISNORMAL: /* normal in the element's own precision */
            d[i] = in->type == ZF_T_F64   ? isnormal(v) != 0
                   : in->type == ZF_T_F32 ? isnormal((float)v) != 0
                                          : isfinite(v) && fabs(v) >= 6.103515625e-05;
            break;
        default:
            d[i] = signbit(v) != 0;
            break;
        }
    });
}

void zf_h_any_all(zf_x *x, const zf_dinst *in) {
    uint8_t *d = zf_reg(x, in->dst);
    const uint8_t *a = zf_reg(x, in->a);
    size_t slot = zf_slot(in->comps);
    bool any = in->op == ZF_X_ANY;
    ZF_LANES(x, {
        bool r = !any;
        for (size_t c = 0; c < in->comps; c++)
            r = any ? (r || a[l * slot + c]) : (r && a[l * slot + c]);
        d[l] = r;
    });
}

/* ------------------------------------------------------------------------------------------------------------------
 * Conversions */

/* Integer to integer, the hot case (index arithmetic widens ints to size_t constantly). */
#define ZF_CONV_INT(DU, SRC)                                                                                           \
    do {                                                                                                               \
        DU *d = (DU *)zf_reg(x, in->dst);                                                                              \
        const SRC *a = (const SRC *)zf_reg(x, in->a);                                                                  \
        ZF_EACH(x, per, d[i] = (DU)a[i]);                                                                              \
    } while (0)

#define ZF_CONV_FROM(DU)                                                                                               \
    do {                                                                                                               \
        switch (src * 2 + (sign_src ? 1 : 0)) {                                                                        \
        case ZF_T_I8 * 2:                                                                                              \
        case ZF_T_BOOL * 2:                                                                                            \
            ZF_CONV_INT(DU, uint8_t);                                                                                  \
            return true;                                                                                               \
        case ZF_T_I8 * 2 + 1:                                                                                          \
        case ZF_T_BOOL * 2 + 1:                                                                                        \
            ZF_CONV_INT(DU, int8_t);                                                                                   \
            return true;                                                                                               \
        case ZF_T_I16 * 2:                                                                                             \
            ZF_CONV_INT(DU, uint16_t);                                                                                 \
            return true;                                                                                               \
        case ZF_T_I16 * 2 + 1:                                                                                         \
            ZF_CONV_INT(DU, int16_t);                                                                                  \
            return true;                                                                                               \
        case ZF_T_I32 * 2:                                                                                             \
            ZF_CONV_INT(DU, uint32_t);                                                                                 \
            return true;                                                                                               \
        case ZF_T_I32 * 2 + 1:                                                                                         \
            ZF_CONV_INT(DU, int32_t);                                                                                  \
            return true;                                                                                               \
        case ZF_T_I64 * 2:                                                                                             \
            ZF_CONV_INT(DU, uint64_t);                                                                                 \
            return true;                                                                                               \
        case ZF_T_I64 * 2 + 1:                                                                                         \
            ZF_CONV_INT(DU, int64_t);                                                                                  \
            return true;                                                                                               \
        default:                                                                                                       \
            return false;                                                                                              \
        }                                                                                                              \
    } while (0)

/* Plain (non-saturating) integer conversions: truncation or extension by the source's signedness. */
static bool zf_conv_int_fast(zf_x *x, const zf_dinst *in, size_t per) {
    uint32_t src = in->aux & 0xFFu;
    bool sign_src = (in->aux & ZF_CONV_SRC_SIGNED) != 0;
    switch (in->type) {
    case ZF_T_I8:
        ZF_CONV_FROM(uint8_t);
    case ZF_T_I16:
        ZF_CONV_FROM(uint16_t);
    case ZF_T_I32:
        ZF_CONV_FROM(uint32_t);
    case ZF_T_I64:
        ZF_CONV_FROM(uint64_t);
    default:
        return false;
    }
}

static uint64_t zf_saturate_int(int64_t sv, uint64_t uv, bool from_signed, uint32_t bits, bool to_signed) {
    if (to_signed) {
        int64_t max = bits == 64 ? INT64_MAX : (int64_t)((1ull << (bits - 1)) - 1), min = -max - 1;
        if (from_signed)
            return (uint64_t)(sv > max ? max : sv < min ? min : sv);
        return (uint64_t)(uv > (uint64_t)max ? max : (int64_t)uv);
    }
    uint64_t max = bits == 64 ? UINT64_MAX : (1ull << bits) - 1;
    if (from_signed)
        return sv < 0 ? 0 : (uint64_t)sv > max ? max : (uint64_t)sv;
    return uv > max ? max : uv;
}

static int zf_fe_mode(uint32_t mode) {
    switch (mode) {
    case ZF_ROUND_RTZ:
        return FE_TOWARDZERO;
    case ZF_ROUND_RTP:
        return FE_UPWARD;
    case ZF_ROUND_RTN:
        return FE_DOWNWARD;
    default:
        return FE_TONEAREST;
    }
}

/* One element through the general conversion. */
static void zf_conv_element(const zf_dinst *in, uint8_t *d, const uint8_t *a, size_t i, uint32_t mode) {
    uint32_t src = in->aux & 0xFFu, dst = in->type;
    bool src_signed = (in->aux & ZF_CONV_SRC_SIGNED) != 0, dst_signed = (in->aux & ZF_CONV_DST_SIGNED) != 0;
    bool saturate = (in->aux & ZF_CONV_SATURATE) != 0;
    uint32_t bits = 8 * zf_etype_size(dst);
    if (zf_etype_is_float(src) && zf_etype_is_float(dst)) {
        double v = zf_get_f(a, src, i);
        if (dst == ZF_T_F16)
            zf_put_u(d, dst, i, zf_f2h_mode((float)v, mode));
        else
            zf_put_f(d, dst, i, v);
    } else if (zf_etype_is_float(src)) {
        zf_put_u(d, dst, i, zf_float_to_int(zf_get_f(a, src, i), bits, dst_signed, mode));
    } else if (zf_etype_is_float(dst)) {
        double v = src_signed ? (double)zf_get_s(a, src, i) : (double)zf_get_u(a, src, i);
        if (dst == ZF_T_F32) { /* directly from the integer: one rounding, in the current mode */
            float f = src_signed ? (float)zf_get_s(a, src, i) : (float)zf_get_u(a, src, i);
            zf_put_f(d, dst, i, f);
        } else if (dst == ZF_T_F16) {
            zf_put_u(d, dst, i, zf_f2h_mode((float)v, mode));
        } else {
            zf_put_f(d, dst, i, v);
        }
    } else {
        int64_t sv = zf_get_s(a, src, i);
        uint64_t uv = zf_get_u(a, src, i);
        zf_put_u(d, dst, i,
                 saturate ? zf_saturate_int(sv, uv, src_signed, bits, dst_signed) : (src_signed ? (uint64_t)sv : uv));
    }
}

void zf_h_conv(zf_x *x, const zf_dinst *in) {
    size_t per = zf_slot(in->comps);
    uint32_t src = in->aux & 0xFFu, mode = (in->aux >> ZF_CONV_ROUND_SHIFT) & 7u;
    bool saturate = (in->aux & ZF_CONV_SATURATE) != 0;
    if (!saturate && zf_etype_is_int(src) && zf_etype_is_int(in->type) && zf_conv_int_fast(x, in, per))
        return;
    uint8_t *d = zf_reg(x, in->dst);
    const uint8_t *a = zf_reg(x, in->a);
    /* Conversions that round in the current floating-point mode (to float, or double to float) honour a rounding
     * decoration by switching the mode around the loop. */
    bool switch_mode =
        mode != ZF_ROUND_DEFAULT && mode != ZF_ROUND_RTE && zf_etype_is_float(in->type) && in->type != ZF_T_F16;
    int saved = switch_mode ? fegetround() : 0;
    if (switch_mode)
        fesetround(zf_fe_mode(mode));
    ZF_EACH(x, per, zf_conv_element(in, d, a, i, mode));
    if (switch_mode)
        fesetround(saved);
}

/* ------------------------------------------------------------------------------------------------------------------
 * The table */
