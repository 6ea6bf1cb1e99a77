/* Handlers of the OpenCL extended instruction set: math, integer, common, geometric and relational functions and
 * the dynamic shuffles. Single-precision functions use the C library's float versions, doubles the double ones,
 * halves are computed in float and rounded; half_* and native_* functions compute at full precision (within the
 * precision OpenCL requires of them). mad is a multiply then an add, never fused, as the built-in kernels compute. */
#include "spirv_num.h"
#include "spirv_opencl_std.h"
#include "spirv_run.h"

#include <float.h>

#define ZF_PI 3.14159265358979323846

/* ------------------------------------------------------------------------------------------------------------------
 * Floating point, computed in double for doubles and in float for floats and halves. */

static double zf_sinpi(double x) {
    double r = fmod(x, 2.0); /* exact, so that integers give exact zeros */
    if (r == 0 || r == 1 || r == -1)
        return copysign(0.0, x);
    return sin(ZF_PI * r);
}

static double zf_cospi(double x) {
    double r = fmod(fabs(x), 2.0);
    if (r == 0.5 || r == 1.5)
        return 0.0;
    return cos(ZF_PI * r);
}

static double zf_rootn(double x, int n) {
    if (n == 0)
        return NAN;
    if (x < 0 && (n & 1))
        return -pow(-x, 1.0 / n);
    return pow(x, 1.0 / n);
}

static double zf_maxmag(double x, double y) {
    return fabs(x) > fabs(y) ? x : fabs(y) > fabs(x) ? y : fmax(x, y);
}

static double zf_minmag(double x, double y) {
    return fabs(x) < fabs(y) ? x : fabs(y) < fabs(x) ? y : fmin(x, y);
}

static double zf_sign(double x) {
    return isnan(x) ? 0.0 : x > 0 ? 1.0 : x < 0 ? -1.0 : x;
}

static double zf_smoothstep(double e0, double e1, double x) {
    double t = (x - e0) / (e1 - e0);
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    return t * t * (3 - 2 * t);
}

/* One-argument functions shared by both precisions (the float path calls float versions where they matter). */
static double zf_math1_d(uint32_t fn, double a) {
    switch (fn) {
    case ZF_E_ACOS:
        return acos(a);
    case ZF_E_ACOSH:
        return acosh(a);
    case ZF_E_ACOSPI:
        return acos(a) / ZF_PI;
    case ZF_E_ASIN:
        return asin(a);
    case ZF_E_ASINH:
        return asinh(a);
    case ZF_E_ASINPI:
        return asin(a) / ZF_PI;
    case ZF_E_ATAN:
        return atan(a);
    case ZF_E_ATANH:
        return atanh(a);
    case ZF_E_ATANPI:
        return atan(a) / ZF_PI;
    case ZF_E_CBRT:
        return cbrt(a);
    case ZF_E_CEIL:
        return ceil(a);
    case ZF_E_COS:
    case ZF_E_HALF_COS:
    case ZF_E_NATIVE_COS:
        return cos(a);
    case ZF_E_COSH:
        return cosh(a);
    case ZF_E_COSPI:
        return zf_cospi(a);
    case ZF_E_ERFC:
        return erfc(a);
    case ZF_E_ERF:
        return erf(a);
    case ZF_E_EXP:
    case ZF_E_HALF_EXP:
    case ZF_E_NATIVE_EXP:
        return exp(a);
    case ZF_E_EXP2:
    case ZF_E_HALF_EXP2:
    case ZF_E_NATIVE_EXP2:
        return exp2(a);
    case ZF_E_EXP10:
    case ZF_E_HALF_EXP10:
    case ZF_E_NATIVE_EXP10:
        return exp10(a);
    case ZF_E_EXPM1:
        return expm1(a);
    case ZF_E_FABS:
        return fabs(a);
    case ZF_E_FLOOR:
        return floor(a);
    case ZF_E_LGAMMA: {
        int sign;
        return lgamma_r(a, &sign);
    }
    case ZF_E_LOG:
    case ZF_E_HALF_LOG:
    case ZF_E_NATIVE_LOG:
        return log(a);
    case ZF_E_LOG2:
    case ZF_E_HALF_LOG2:
    case ZF_E_NATIVE_LOG2:
        return log2(a);
    case ZF_E_LOG10:
    case ZF_E_HALF_LOG10:
    case ZF_E_NATIVE_LOG10:
        return log10(a);
    case ZF_E_LOG1P:
        return log1p(a);
    case ZF_E_LOGB:
        return logb(a);
    case ZF_E_RINT:
        return rint(a);
    case ZF_E_ROUND:
        return round(a);
    case ZF_E_RSQRT:
    case ZF_E_HALF_RSQRT:
    case ZF_E_NATIVE_RSQRT:
        return 1.0 / sqrt(a);
    case ZF_E_SIN:
    case ZF_E_HALF_SIN:
    case ZF_E_NATIVE_SIN:
        return sin(a);
    case ZF_E_SINH:
        return sinh(a);
    case ZF_E_SINPI:
        return zf_sinpi(a);
    case ZF_E_SQRT:
    case ZF_E_HALF_SQRT:
    case ZF_E_NATIVE_SQRT:
        return sqrt(a);
    case ZF_E_TAN:
    case ZF_E_HALF_TAN:
    case ZF_E_NATIVE_TAN:
        return tan(a);
    case ZF_E_TANH:
        return tanh(a);
    case ZF_E_TANPI:
        return zf_sinpi(a) / zf_cospi(a);
    case ZF_E_TGAMMA:
        return tgamma(a);
    case ZF_E_TRUNC:
        return trunc(a);
    case ZF_E_HALF_RECIP:
    case ZF_E_NATIVE_RECIP:
        return 1.0 / a;
    case ZF_E_DEGREES:
        return a * (180.0 / ZF_PI);
    case ZF_E_RADIANS:
        return a * (ZF_PI / 180.0);
    case ZF_E_SIGN:
        return zf_sign(a);
    default:
        return NAN;
    }
}

static float zf_math1_f(uint32_t fn, float a) {
    switch (fn) {
    case ZF_E_ACOS:
        return acosf(a);
    case ZF_E_ASIN:
        return asinf(a);
    case ZF_E_ATAN:
        return atanf(a);
    case ZF_E_CEIL:
        return ceilf(a);
    case ZF_E_COS:
    case ZF_E_HALF_COS:
    case ZF_E_NATIVE_COS:
        return cosf(a);
    case ZF_E_EXP:
    case ZF_E_HALF_EXP:
    case ZF_E_NATIVE_EXP:
        return expf(a);
    case ZF_E_EXP2:
    case ZF_E_HALF_EXP2:
    case ZF_E_NATIVE_EXP2:
        return exp2f(a);
    case ZF_E_FABS:
        return fabsf(a);
    case ZF_E_FLOOR:
        return floorf(a);
    case ZF_E_LOG:
    case ZF_E_HALF_LOG:
    case ZF_E_NATIVE_LOG:
        return logf(a);
    case ZF_E_LOG2:
    case ZF_E_HALF_LOG2:
    case ZF_E_NATIVE_LOG2:
        return log2f(a);
    case ZF_E_RINT:
        return rintf(a);
    case ZF_E_ROUND:
        return roundf(a);
    case ZF_E_SIN:
    case ZF_E_HALF_SIN:
    case ZF_E_NATIVE_SIN:
        return sinf(a);
    case ZF_E_SQRT:
    case ZF_E_HALF_SQRT:
    case ZF_E_NATIVE_SQRT:
        return sqrtf(a);
    case ZF_E_TAN:
    case ZF_E_HALF_TAN:
    case ZF_E_NATIVE_TAN:
        return tanf(a);
    case ZF_E_TRUNC:
        return truncf(a);
    case ZF_E_RSQRT:
    case ZF_E_HALF_RSQRT:
    case ZF_E_NATIVE_RSQRT:
        return (float)(1.0 / sqrt((double)a));
    default:
        return (float)zf_math1_d(fn, a); /* correctly rounded from double: within OpenCL's ulp limits */
    }
}

static double zf_math2(uint32_t fn, double a, double b, bool single) {
    switch (fn) {
    case ZF_E_ATAN2:
        return atan2(a, b);
    case ZF_E_ATAN2PI:
        return atan2(a, b) / ZF_PI;
    case ZF_E_COPYSIGN:
        return copysign(a, b);
    case ZF_E_FDIM:
        return fdim(a, b);
    case ZF_E_FMAX:
    case ZF_E_FMAX_COMMON:
        return fmax(a, b);
    case ZF_E_FMIN:
    case ZF_E_FMIN_COMMON:
        return fmin(a, b);
    case ZF_E_FMOD:
        return fmod(a, b);
    case ZF_E_HYPOT:
        return hypot(a, b);
    case ZF_E_LDEXP:
        return ldexp(a, (int)b);
    case ZF_E_MAXMAG:
        return zf_maxmag(a, b);
    case ZF_E_MINMAG:
        return zf_minmag(a, b);
    case ZF_E_NEXTAFTER:
        return single ? (double)nextafterf((float)a, (float)b) : nextafter(a, b);
    case ZF_E_POW:
        return pow(a, b);
    case ZF_E_POWN:
        return pow(a, b);
    case ZF_E_POWR:
    case ZF_E_HALF_POWR:
    case ZF_E_NATIVE_POWR:
        return a < 0 ? NAN : pow(a, b);
    case ZF_E_REMAINDER:
        return remainder(a, b);
    case ZF_E_ROOTN:
        return zf_rootn(a, (int)b);
    case ZF_E_HALF_DIVIDE:
    case ZF_E_NATIVE_DIVIDE:
        return single ? (double)((float)a / (float)b) : a / b;
    case ZF_E_STEP:
        return b < a ? 0.0 : 1.0;
    default:
        return NAN;
    }
}

static double zf_math3(uint32_t fn, double a, double b, double c, bool single) {
    switch (fn) {
    case ZF_E_FMA:
        return single ? (double)fmaf((float)a, (float)b, (float)c) : fma(a, b, c);
    case ZF_E_MAD:
        if (single) {
            float p = (float)a * (float)b; /* two roundings: the kernel's a * b + c */
            return (double)(p + (float)c);
        }
        return a * b + c;
    case ZF_E_FCLAMP:
        return fmin(fmax(a, b), c);
    case ZF_E_MIX:
        return single ? (double)((float)a + ((float)b - (float)a) * (float)c) : a + (b - a) * c;
    case ZF_E_SMOOTHSTEP:
        return zf_smoothstep(a, b, c);
    default:
        return NAN;
    }
}

/* The float result of function fn on element i. */
static void zf_ext_float(const zf_dinst *in, uint8_t *d, const uint8_t *a, const uint8_t *b, const uint8_t *c,
                         size_t i) {
    uint32_t fn = in->aux, t = in->type;
    uint32_t ta = in->asize & 0xFFu, tb = (in->asize >> 8) & 0xFFu, tc = (in->asize >> 16) & 0xFFu;
    bool single = t != ZF_T_F64;
    double va = zf_etype_is_float(ta) ? zf_get_f(a, ta, i) : 0;
    double r;
    if (fn == ZF_E_NAN) {
        uint64_t payload = zf_get_u(a, ta, i);
        if (t == ZF_T_F64) {
            uint64_t bits = 0x7FF8000000000000ull | (payload & 0x7FFFFFFFFFFFFull);
            memcpy(d + 8 * i, &bits, 8);
        } else if (t == ZF_T_F32) {
            uint32_t bits = 0x7FC00000u | (uint32_t)(payload & 0x3FFFFFu);
            memcpy(d + 4 * i, &bits, 4);
        } else {
            zf_put_u(d, t, i, 0x7E00u | (payload & 0x1FFu));
        }
        return;
    }
    if (fn == ZF_E_ILOGB) {
        zf_put_u(d, t, i, (uint32_t)(single ? ilogbf((float)va) : ilogb(va)));
        return;
    }
    if (b == NULL)
        r = single ? (double)zf_math1_f(fn, (float)va) : zf_math1_d(fn, va);
    else {
        double vb = zf_etype_is_float(tb) ? zf_get_f(b, tb, i) : (double)zf_get_s(b, tb, i);
        if (c == NULL)
            r = zf_math2(fn, va, vb, single);
        else if (fn == ZF_E_MAD && t == ZF_T_F16) /* two roundings in half precision, as a * b + c in half */
            r = (double)zf_h2f(zf_f2h(zf_h2f(zf_f2h((float)va * (float)vb)) + (float)zf_get_f(c, tc, i)));
        else
            r = zf_math3(fn, va, vb, zf_get_f(c, tc, i), single);
    }
    zf_put_f(d, t, i, single && t == ZF_T_F32 ? (double)(float)r : r);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Integer functions, on the element's bits: u (zero-extended) and s (sign-extended) views. */

static uint64_t zf_clz(uint64_t v, uint32_t bits) {
    return v == 0 ? bits : (uint64_t)__builtin_clzll(v) - (64 - bits);
}

static uint64_t zf_ctz(uint64_t v, uint32_t bits) {
    return v == 0 ? bits : (uint64_t)__builtin_ctzll(v);
}

static __int128 zf_clamp128(__int128 v, __int128 lo, __int128 hi) {
    return v < lo ? lo : v > hi ? hi : v;
}

static uint64_t zf_hi_product(uint64_t a, uint64_t b, uint32_t bits, bool is_signed) {
    __int128 p = is_signed ? (__int128)(int64_t)a * (__int128)(int64_t)b : (__int128)((unsigned __int128)a * b);
    return (uint64_t)((unsigned __int128)p >> bits);
}

static uint64_t zf_int_fn(uint32_t fn, uint32_t bits, uint64_t ua, int64_t sa, uint64_t ub, int64_t sb, uint64_t uc,
                          int64_t sc) {
    uint64_t mask = bits == 64 ? UINT64_MAX : (1ull << bits) - 1;
    __int128 smax = bits == 64 ? (__int128)INT64_MAX : (__int128)((1ll << (bits - 1)) - 1), smin = -smax - 1;
    __int128 umax = (__int128)mask;
    switch (fn) {
    case ZF_E_S_ABS:
        return (uint64_t)(sa < 0 ? -(__int128)sa : sa);
    case ZF_E_U_ABS:
        return ua;
    case ZF_E_S_ABS_DIFF:
        return (uint64_t)(sa > sb ? (__int128)sa - sb : (__int128)sb - sa);
    case ZF_E_U_ABS_DIFF:
        return ua > ub ? ua - ub : ub - ua;
    case ZF_E_S_ADD_SAT:
        return (uint64_t)zf_clamp128((__int128)sa + sb, smin, smax);
    case ZF_E_U_ADD_SAT:
        return (uint64_t)zf_clamp128((__int128)ua + ub, 0, umax);
    case ZF_E_S_SUB_SAT:
        return (uint64_t)zf_clamp128((__int128)sa - sb, smin, smax);
    case ZF_E_U_SUB_SAT:
        return (uint64_t)zf_clamp128((__int128)ua - ub, 0, umax);
    case ZF_E_S_HADD:
        return (uint64_t)(((__int128)sa + sb) >> 1);
    case ZF_E_U_HADD:
        return (uint64_t)(((unsigned __int128)ua + ub) >> 1);
    case ZF_E_S_RHADD:
        return (uint64_t)(((__int128)sa + sb + 1) >> 1);
    case ZF_E_U_RHADD:
        return (uint64_t)(((unsigned __int128)ua + ub + 1) >> 1);
    case ZF_E_S_CLAMP:
        return (uint64_t)(sa < sb ? sb : sa > sc ? sc : sa);
    case ZF_E_U_CLAMP:
        return ua < ub ? ub : ua > uc ? uc : ua;
    case ZF_E_CLZ:
        return zf_clz(ua, bits);
    case ZF_E_CTZ:
        return zf_ctz(ua, bits);
    case ZF_E_POPCOUNT:
        return (uint64_t)__builtin_popcountll(ua);
    case ZF_E_S_MAX:
        return (uint64_t)(sa > sb ? sa : sb);
    case ZF_E_U_MAX:
        return ua > ub ? ua : ub;
    case ZF_E_S_MIN:
        return (uint64_t)(sa < sb ? sa : sb);
    case ZF_E_U_MIN:
        return ua < ub ? ua : ub;
    case ZF_E_S_MUL_HI:
        return zf_hi_product((uint64_t)sa, (uint64_t)sb, bits, true);
    case ZF_E_U_MUL_HI:
        return zf_hi_product(ua, ub, bits, false);
    case ZF_E_S_MAD_HI:
        return zf_hi_product((uint64_t)sa, (uint64_t)sb, bits, true) + uc;
    case ZF_E_U_MAD_HI:
        return zf_hi_product(ua, ub, bits, false) + uc;
    case ZF_E_S_MAD_SAT: {
        __int128 p = (__int128)sa * sb; /* 64-bit operands may overflow even 128 bits: clamp the product first */
        return (uint64_t)zf_clamp128(zf_clamp128(p, smin * 4, smax * 4) + sc, smin, smax);
    }
    case ZF_E_U_MAD_SAT: {
        unsigned __int128 p = (unsigned __int128)ua * ub;
        if (p > (unsigned __int128)umax)
            return mask;
        return (uint64_t)zf_clamp128((__int128)p + (__int128)uc, 0, umax);
    }
    case ZF_E_ROTATE: {
        uint32_t r = (uint32_t)(ub % bits);
        return r == 0 ? ua : ((ua << r) | (ua >> (bits - r)));
    }
    case ZF_E_S_MAD24:
        return (uint64_t)((int64_t)((int32_t)((uint32_t)ua << 8) >> 8) * (int64_t)((int32_t)((uint32_t)ub << 8) >> 8) +
                          sc);
    case ZF_E_U_MAD24:
        return (ua & 0xFFFFFFu) * (ub & 0xFFFFFFu) + uc;
    case ZF_E_S_MUL24:
        return (uint64_t)((int64_t)((int32_t)((uint32_t)ua << 8) >> 8) * (int64_t)((int32_t)((uint32_t)ub << 8) >> 8));
    case ZF_E_U_MUL24:
        return (ua & 0xFFFFFFu) * (ub & 0xFFFFFFu);
    case ZF_E_U_UPSAMPLE:
    case ZF_E_S_UPSAMPLE:
        return (ua << bits) | ub;
    default:
        return 0;
    }
}

static void zf_ext_int(const zf_dinst *in, uint8_t *d, const uint8_t *a, const uint8_t *b, const uint8_t *c, size_t i) {
    uint32_t fn = in->aux, t = in->type;
    uint32_t ta = in->asize & 0xFFu, tb = (in->asize >> 8) & 0xFFu, tc = (in->asize >> 16) & 0xFFu;
    uint32_t bits = 8 * zf_etype_size(ta);
    uint64_t ua = zf_get_u(a, ta, i), ub = b != NULL ? zf_get_u(b, tb, i) : 0, uc = c != NULL ? zf_get_u(c, tc, i) : 0;
    int64_t sa = zf_get_s(a, ta, i), sb = b != NULL ? zf_get_s(b, tb, i) : 0, sc = c != NULL ? zf_get_s(c, tc, i) : 0;
    if (fn == ZF_E_S_UPSAMPLE)
        ua = (uint64_t)sa; /* the high half keeps its sign */
    zf_put_u(d, t, i, zf_int_fn(fn, bits, ua, sa, ub, sb, uc, sc));
}

/* bitselect and select, on the element's bits whatever its type. */
static void zf_ext_select(const zf_dinst *in, uint8_t *d, const uint8_t *a, const uint8_t *b, const uint8_t *c,
                          size_t i) {
    uint32_t t = in->type, tc = (in->asize >> 16) & 0xFFu, bits = 8 * zf_etype_size(t);
    uint64_t ua = zf_get_u(a, t, i), ub = zf_get_u(b, t, i), uc = zf_get_u(c, tc, i);
    if (in->aux == ZF_E_BITSELECT) {
        zf_put_u(d, t, i, (ua & ~uc) | (ub & uc));
        return;
    }
    bool pick_b = in->comps == 1 ? uc != 0 : ((uc >> (bits - 1)) & 1u) != 0; /* vectors test the top bit */
    zf_put_u(d, t, i, pick_b ? ub : ua);
}

/* mad, fma, fmax, fmin on floats: the hot ones get loops of their own. */
static bool zf_ext_fast(zf_x *x, const zf_dinst *in, size_t per) {
    if (in->type != ZF_T_F32)
        return false;
    float *d = (float *)zf_reg(x, in->dst);
    const float *a = (const float *)zf_reg(x, in->a);
    switch (in->aux) {
    case ZF_E_MAD: {
        const float *b = (const float *)zf_reg(x, in->b), *c = (const float *)zf_reg(x, in->c);
        ZF_EACH(x, per, {
            float p = a[i] * b[i];
            d[i] = p + c[i];
        });
        return true;
    }
    case ZF_E_FMA: {
        const float *b = (const float *)zf_reg(x, in->b), *c = (const float *)zf_reg(x, in->c);
        ZF_EACH(x, per, d[i] = fmaf(a[i], b[i], c[i]));
        return true;
    }
    case ZF_E_FMAX:
    case ZF_E_FMIN: {
        const float *b = (const float *)zf_reg(x, in->b);
        bool max = in->aux == ZF_E_FMAX;
        ZF_EACH(x, per, d[i] = max ? fmaxf(a[i], b[i]) : fminf(a[i], b[i]));
        return true;
    }
    case ZF_E_SQRT:
        ZF_EACH(x, per, d[i] = sqrtf(a[i]));
        return true;
    case ZF_E_FABS:
        ZF_EACH(x, per, d[i] = fabsf(a[i]));
        return true;
    default:
        return false;
    }
}

void zf_h_ext(zf_x *x, const zf_dinst *in) {
    size_t per = zf_slot(in->comps);
    if (zf_ext_fast(x, in, per))
        return;
    uint8_t *d = zf_reg(x, in->dst);
    const uint8_t *a = zf_reg(x, in->a);
    const uint8_t *b = in->b != ZF_REF_NONE ? zf_reg(x, in->b) : NULL;
    const uint8_t *c = in->c != ZF_REF_NONE ? zf_reg(x, in->c) : NULL;
    if (in->aux == ZF_E_BITSELECT || in->aux == ZF_E_SELECT)
        ZF_EACH(x, per, zf_ext_select(in, d, a, b, c, i));
    else if (in->aux >= ZF_E_S_ABS)
        ZF_EACH(x, per, zf_ext_int(in, d, a, b, c, i));
    else
        ZF_EACH(x, per, zf_ext_float(in, d, a, b, c, i));
}

/* ------------------------------------------------------------------------------------------------------------------
 * Functions with an output pointer */

static double zf_extp_value(uint32_t fn, double a, double b, bool single, double *second) {
    switch (fn) {
    case ZF_E_FRACT: {
        double fl = floor(a);
        *second = fl;
        if (isinf(a))
            return copysign(0.0, a);
        double limit = single ? (double)0x1.fffffep-1f : 0x1.fffffffffffffp-1;
        return fmin(a - fl, limit);
    }
    case ZF_E_MODF:
        return modf(a, second);
    case ZF_E_SINCOS:
        *second = cos(a);
        return sin(a);
    case ZF_E_FREXP: {
        int e;
        double m = frexp(a, &e);
        *second = e;
        return m;
    }
    case ZF_E_LGAMMA_R: {
        int sign;
        double r = lgamma_r(a, &sign);
        *second = sign;
        return r;
    }
    default: { /* remquo */
        int q;
        double r = single ? (double)remquof((float)a, (float)b, &q) : remquo(a, b, &q);
        *second = q;
        return r;
    }
    }
}

void zf_h_extp(zf_x *x, const zf_dinst *in) {
    size_t slot = zf_slot(in->comps);
    uint32_t t = in->type, out = (in->asize >> 16) & 0xFFu, esize = zf_etype_size(out);
    uint8_t *d = zf_reg(x, in->dst);
    const uint8_t *a = zf_reg(x, in->a), *b = in->b != ZF_REF_NONE ? zf_reg(x, in->b) : NULL;
    const uint64_t *ptr = (const uint64_t *)zf_reg(x, in->c);
    bool single = t != ZF_T_F64;
    ZF_LANES(x, {
        uint8_t *p = zf_mem(x, l, ptr[l], in->comps * esize, true);
        if (p == NULL)
            continue;
        for (size_t c = 0; c < in->comps; c++) {
            size_t i = l * slot + c;
            double second = 0,
                   r = zf_extp_value(in->aux, zf_get_f(a, t, i), b != NULL ? zf_get_f(b, t, i) : 0, single, &second);
            zf_put_f(d, t, i, r);
            if (zf_etype_is_float(out))
                zf_put_f(p, out, c, second);
            else
                zf_put_u(p, out, c, (uint64_t)(int64_t)second);
        }
    });
}

/* ------------------------------------------------------------------------------------------------------------------
 * Geometric functions: sums in double, results rounded to the element type. */

void zf_h_extv(zf_x *x, const zf_dinst *in) {
    size_t slot = zf_slot(in->comps), n = in->comps;
    uint32_t t = in->type;
    uint8_t *d = zf_reg(x, in->dst);
    const uint8_t *a = zf_reg(x, in->a), *b = in->b != ZF_REF_NONE ? zf_reg(x, in->b) : NULL;
    ZF_LANES(x, {
        double v[16], w[16], sum = 0;
        for (size_t c = 0; c < n; c++) {
            v[c] = zf_get_f(a, t, l * slot + c);
            w[c] = b != NULL ? zf_get_f(b, t, l * slot + c) : 0;
        }
        switch (in->aux) {
        case ZF_E_CROSS:
            zf_put_f(d, t, l * slot + 0, v[1] * w[2] - v[2] * w[1]);
            zf_put_f(d, t, l * slot + 1, v[2] * w[0] - v[0] * w[2]);
            zf_put_f(d, t, l * slot + 2, v[0] * w[1] - v[1] * w[0]);
            if (n == 4)
                zf_put_f(d, t, l * slot + 3, 0);
            break;
        case ZF_E_DISTANCE:
        case ZF_E_FAST_DISTANCE:
            for (size_t c = 0; c < n; c++)
                sum += (v[c] - w[c]) * (v[c] - w[c]);
            zf_put_f(d, t, l, sqrt(sum));
            break;
        case ZF_E_LENGTH:
        case ZF_E_FAST_LENGTH:
            for (size_t c = 0; c < n; c++)
                sum += v[c] * v[c];
            zf_put_f(d, t, l, sqrt(sum));
            break;
        default: /* normalize */
            for (size_t c = 0; c < n; c++)
                sum += v[c] * v[c];
            for (size_t c = 0; c < n; c++)
                zf_put_f(d, t, l * slot + c, sum == 0 ? v[c] : v[c] / sqrt(sum));
            break;
        }
    });
}

/* shuffle(x, mask) and shuffle2(x, y, mask): each mask element picks a component (its low bits only). */
void zf_h_xshuffle(zf_x *x, const zf_dinst *in) {
    size_t slot = zf_slot(in->comps), na = in->aux & 0xFFu, sa = zf_slot((uint32_t)na);
    uint32_t mask_type = (in->aux >> 8) & 0xFFu, e = zf_etype_size(in->type);
    bool two = (in->aux >> 16) & 1u;
    uint8_t *d = zf_reg(x, in->dst);
    const uint8_t *a = zf_reg(x, in->a), *b = two ? zf_reg(x, in->b) : NULL, *m = zf_reg(x, in->c);
    size_t range = two ? 2 * na : na;
    ZF_LANES(x, {
        for (size_t c = 0; c < in->comps; c++) {
            size_t k = (size_t)(zf_get_u(m, mask_type, l * slot + c) % range);
            const uint8_t *src = k < na ? a + (l * sa + k) * e : b + (l * sa + k - na) * e;
            memcpy(d + (l * slot + c) * e, src, e);
        }
    });
}
