/* Numbers as the engine's handlers read and write them: half-precision conversions (with OpenCL's rounding modes)
 * and element access by element type for the generic paths (conversions, printf, group operations). */
#ifndef ZF_SPIRV_NUM_H
#define ZF_SPIRV_NUM_H

#include "spirv_form.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

static inline float zf_h2f(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1Fu, mant = h & 0x3FFu, bits;
    if (exp == 0x1F) {
        bits = sign | 0x7F800000u | (mant << 13); /* inf, nan (payload kept) */
    } else if (exp != 0) {
        bits = sign | ((exp + 112) << 23) | (mant << 13);
    } else if (mant == 0) {
        bits = sign;
    } else { /* subnormal half: normalize */
        int e = -1;
        do {
            mant <<= 1;
            e++;
        } while (!(mant & 0x400u));
        bits = sign | ((uint32_t)(112 - e) << 23) | ((mant & 0x3FFu) << 13);
    }
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

/* float -> half with a rounding mode (ZF_ROUND_*; DEFAULT is to nearest even). */
static inline uint16_t zf_f2h_mode(float f, uint32_t mode) {
    uint32_t bits;
    memcpy(&bits, &f, 4);
    uint16_t sign = (uint16_t)((bits >> 16) & 0x8000u);
    bool negative = sign != 0;
    uint32_t exp = (bits >> 23) & 0xFFu, mant = bits & 0x7FFFFFu;
    if (exp == 0xFF)
        return (uint16_t)(sign | 0x7C00u | (mant ? 0x200u | (mant >> 13) : 0));
    /* Round toward zero first, then decide on the discarded bits. */
    int32_t e = (int32_t)exp - 127 + 15;
    uint32_t m = mant | (exp ? 0x800000u : 0), shift;
    uint32_t h, rest, half;
    if (e >= 31) {
        bool to_inf = mode == ZF_ROUND_DEFAULT || mode == ZF_ROUND_RTE || (mode == ZF_ROUND_RTP && !negative) ||
                      (mode == ZF_ROUND_RTN && negative);
        return (uint16_t)(sign | (to_inf ? 0x7C00u : 0x7BFFu));
    }
    if (e <= 0) { /* subnormal half or zero */
        shift = (uint32_t)(14 - e);
        if (shift > 31) {
            h = 0;
            rest = m;
            half = 1u << 31; /* effectively: rest is below half */
            if (m != 0)
                rest = 1;
        } else {
            h = m >> shift;
            rest = m & ((1u << shift) - 1);
            half = 1u << (shift - 1);
        }
    } else {
        h = ((uint32_t)e << 10) | ((m >> 13) & 0x3FFu);
        rest = m & 0x1FFFu;
        half = 0x1000u;
    }
    bool up = false;
    switch (mode) {
    case ZF_ROUND_RTZ:
        break;
    case ZF_ROUND_RTP:
        up = rest != 0 && !negative;
        break;
    case ZF_ROUND_RTN:
        up = rest != 0 && negative;
        break;
    default:
        up = rest > half || (rest == half && (h & 1u));
        break;
    }
    return (uint16_t)(sign | (h + (up ? 1u : 0u)));
}

static inline uint16_t zf_f2h(float f) {
    return zf_f2h_mode(f, ZF_ROUND_DEFAULT);
}

/* Element i of an array of elements of type t. */
static inline uint64_t zf_get_u(const uint8_t *base, uint32_t t, size_t i) {
    switch (zf_etype_size(t)) {
    case 1:
        return base[i];
    case 2: {
        uint16_t v;
        memcpy(&v, base + 2 * i, 2);
        return v;
    }
    case 4: {
        uint32_t v;
        memcpy(&v, base + 4 * i, 4);
        return v;
    }
    default: {
        uint64_t v;
        memcpy(&v, base + 8 * i, 8);
        return v;
    }
    }
}

static inline int64_t zf_get_s(const uint8_t *base, uint32_t t, size_t i) {
    uint64_t v = zf_get_u(base, t, i);
    switch (zf_etype_size(t)) {
    case 1:
        return (int8_t)v;
    case 2:
        return (int16_t)v;
    case 4:
        return (int32_t)v;
    default:
        return (int64_t)v;
    }
}

static inline double zf_get_f(const uint8_t *base, uint32_t t, size_t i) {
    if (t == ZF_T_F16)
        return zf_h2f((uint16_t)zf_get_u(base, t, i));
    if (t == ZF_T_F32) {
        float f;
        memcpy(&f, base + 4 * i, 4);
        return f;
    }
    double d;
    memcpy(&d, base + 8 * i, 8);
    return d;
}

static inline void zf_put_u(uint8_t *base, uint32_t t, size_t i, uint64_t v) {
    switch (zf_etype_size(t)) {
    case 1:
        base[i] = (uint8_t)v;
        return;
    case 2: {
        uint16_t x = (uint16_t)v;
        memcpy(base + 2 * i, &x, 2);
        return;
    }
    case 4: {
        uint32_t x = (uint32_t)v;
        memcpy(base + 4 * i, &x, 4);
        return;
    }
    default:
        memcpy(base + 8 * i, &v, 8);
        return;
    }
}

static inline void zf_put_f(uint8_t *base, uint32_t t, size_t i, double v) {
    if (t == ZF_T_F16) {
        zf_put_u(base, t, i, zf_f2h((float)v));
    } else if (t == ZF_T_F32) {
        float f = (float)v;
        memcpy(base + 4 * i, &f, 4);
    } else {
        memcpy(base + 8 * i, &v, 8);
    }
}

/* A float to an integer: rounded by `mode` (toward zero by default), saturated, NaN to 0. */
static inline uint64_t zf_float_to_int(double v, uint32_t bits, bool to_signed, uint32_t mode) {
    if (isnan(v))
        return 0;
    switch (mode) {
    case ZF_ROUND_RTE:
        v = nearbyint(v);
        break;
    case ZF_ROUND_RTP:
        v = ceil(v);
        break;
    case ZF_ROUND_RTN:
        v = floor(v);
        break;
    default:
        v = trunc(v);
        break;
    }
    if (to_signed) {
        double max = bits == 64 ? 9223372036854775807.0 : (double)((1ull << (bits - 1)) - 1);
        double min = bits == 64 ? -9223372036854775808.0 : -(double)(1ull << (bits - 1));
        if (v >= max)
            return bits == 64 ? (uint64_t)INT64_MAX : (1ull << (bits - 1)) - 1;
        if (v <= min)
            return (uint64_t)(bits == 64 ? INT64_MIN : -(int64_t)(1ull << (bits - 1)));
        return (uint64_t)(int64_t)v;
    }
    double max = bits == 64 ? 18446744073709551615.0 : (double)((1ull << bits) - 1);
    if (v <= 0)
        return 0;
    if (v >= max)
        return bits == 64 ? UINT64_MAX : (1ull << bits) - 1;
    return (uint64_t)v;
}

#endif
