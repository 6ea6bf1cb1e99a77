/* Conformance: the OpenCL C built-in functions of kernels/spirv_math.cl computed by the execution engine: the math
 * functions of float within the ulps OpenCL allows and of double, those returning through output pointers, the
 * integer functions and the geometric functions, each against the same computation on the host. */
#include "zc_spirv.h"

#include <float.h>
#include <inttypes.h>

/* ------------------------------------------------------------------------------------------------------------------
 * Math functions: within the ulps OpenCL allows (its full-profile table; 4 for most here, 16 for the gamma
 * functions), against the host's double-precision results. */

static double zc_ulps(float got, double want) {
    if (isnan(want))
        return isnan(got) ? 0 : INFINITY;
    if (isinf(want))
        return got == (float)want ? 0 : INFINITY;
    int exponent = want == 0 ? -149 : ilogb(want) - 23; /* ilogb(0) is INT_MIN: never subtract from it */
    double ulp = ldexp(1.0, exponent < -149 ? -149 : exponent);
    return fabs((double)got - want) / ulp;
}

static double zc_sinpi(double x) {
    return sin(M_PI * x);
}

static void zc_math_expected(double x, double y, double z, double *r) {
    const double pi = M_PI;
    double v[48] = {sin(x),
                    cos(x),
                    tan(x),
                    asin(x / 11),
                    acos(x / 11),
                    atan(x),
                    atan2(x, y),
                    sinh(x / 4),
                    cosh(x / 4),
                    tanh(x),
                    asinh(x),
                    acosh(x + 1),
                    atanh(x / 11),
                    exp(x / 2),
                    exp2(x),
                    pow(10, x / 3),
                    expm1(x / 2),
                    log(x),
                    log2(x),
                    log10(x),
                    log1p(x),
                    cbrt(x),
                    pow(x, y / 3),
                    x * x * x,
                    pow(x, y / 4),
                    cbrt(x),
                    hypot(x, y),
                    fma(x, y, z),
                    fdim(x, y),
                    fmod(x, y),
                    remainder(x, y),
                    copysign(x, -y),
                    logb(x),
                    ldexp(x, 3),
                    nextafterf((float)x, (float)y),
                    zc_sinpi(x / 3),
                    cos(pi * x / 3),
                    erf(x / 4),
                    erfc(x / 4),
                    tgamma(x / 2 + 0.5),
                    lgamma(x),
                    1 / sqrt(x),
                    rint((float)(x * 3)),
                    round((float)(x * 3)),
                    fabs(x) > fabs(y) ? x : -y,
                    x + (y - x) * 0.25,
                    0,
                    0};
    double t = (x - 1) / 8;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    v[46] = t * t * (3 - 2 * t);
    v[47] = ilogb(x) + (x < 5 ? 0 : 1) + (y - 5 > 0 ? 1 : y - 5 < 0 ? -1 : 0) + (180 / pi) * (pi / 180 * x);
    memcpy(r, v, sizeof v);
}

static void spirv_math_functions_within_ulps(void **state) {
    zc_sx *s = *state;
    const uint32_t n = 128;
    float *a = zc_spirv_buffer(s, n * 4), *b = zc_spirv_buffer(s, n * 4), *c = zc_spirv_buffer(s, n * 4);
    float *o = zc_spirv_buffer(s, n * 48 * 4);
    uint64_t seed = 99;
    for (uint32_t i = 0; i < n; i++) {
        a[i] = 0.25f + (float)(zc_rand(&seed) % 9700) / 1000.0f;
        b[i] = 0.5f + (float)(zc_rand(&seed) % 9000) / 1000.0f;
        c[i] = (float)((int64_t)(zc_rand(&seed) % 2001) - 1000) / 100.0f;
    }
    zc_arg args[] = {ZC_PTR(a), ZC_PTR(b), ZC_PTR(c), ZC_PTR(o)};
    zc_spirv_run(s, "spirv_math", "math_float", n, 16, args, 4);
    for (uint32_t i = 0; i < n; i++) {
        double want[48];
        /* The kernel computes with float arguments: derived arguments (x / 11...) are rounded to float first. */
        zc_math_expected(a[i], b[i], c[i], want);
        for (uint32_t k = 0; k < 48; k++) {
            /* correctly rounded (half an ulp): fma, fdim, fmod, copysign, rint, round, maxmag */
            double limit = k == 39 || k == 40 || k == 38 ? 16 : k == 27 || k == 28 || k == 29 || k == 31 ? 0.5 : 4;
            if (k >= 42 && k <= 44)
                limit = 0.5;
            if (k == 45 || k == 46 || k == 47)
                limit = 64; /* built from several float operations */
            double ulps = zc_ulps(o[i * 48 + k], want[k]);
            if (ulps > limit + 1e-9 && fabs((double)o[i * 48 + k] - want[k]) > 1e-6)
                zc_fail("function %u of (%a, %a, %a): %a, expected %a (%g ulps)", k, (double)a[i], (double)b[i],
                        (double)c[i], (double)o[i * 48 + k], want[k], ulps);
        }
    }
    zc_free(&s->x, a);
    zc_free(&s->x, b);
    zc_free(&s->x, c);
    zc_free(&s->x, o);
}

static void spirv_double_math(void **state) {
    zc_sx *s = *state;
    const uint32_t n = 64;
    double *a = zc_spirv_buffer(s, n * 8), *b = zc_spirv_buffer(s, n * 8), *o = zc_spirv_buffer(s, n * 16 * 8);
    for (uint32_t i = 0; i < n; i++) {
        a[i] = 0.3 + i * 0.137;
        b[i] = 0.7 + (n - i) * 0.091;
    }
    zc_arg args[] = {ZC_PTR(a), ZC_PTR(b), ZC_PTR(o)};
    zc_spirv_run(s, "spirv_math", "math_double", n, 16, args, 3);
    for (uint32_t i = 0; i < n; i++) {
        double x = a[i], y = b[i];
        double want[16] = {sin(x),
                           cos(x),
                           exp(x / 2),
                           log(x),
                           pow(x, y / 3),
                           sqrt(x),
                           atan2(x, y),
                           fma(x, y, x),
                           cbrt(x),
                           hypot(x, y),
                           tanh(x),
                           floor(x * 3) + ceil(y * 3),
                           fmin(x, y) + fmax(x, y),
                           erf(x / 4),
                           log1p(x),
                           exp2(x)};
        for (uint32_t k = 0; k < 16; k++)
            if (fabs(o[i * 16 + k] - want[k]) > 1e-13 * fmax(1.0, fabs(want[k])))
                zc_fail("double function %u of (%a, %a): %a, expected %a", k, x, y, o[i * 16 + k], want[k]);
    }
    zc_free(&s->x, a);
    zc_free(&s->x, b);
    zc_free(&s->x, o);
}

static void spirv_math_with_output_pointers(void **state) {
    zc_sx *s = *state;
    const uint32_t n = 64;
    float *a = zc_spirv_buffer(s, n * 4), *b = zc_spirv_buffer(s, n * 4), *o = zc_spirv_buffer(s, n * 6 * 4);
    int32_t *m = zc_spirv_buffer(s, n * 3 * 4);
    for (uint32_t i = 0; i < n; i++) {
        a[i] = 0.3f + (float)i * 0.77f;
        b[i] = 1.1f + (float)(i % 7);
    }
    zc_arg args[] = {ZC_PTR(a), ZC_PTR(b), ZC_PTR(o), ZC_PTR(m)};
    zc_spirv_run(s, "spirv_math", "math_pointers", n, 16, args, 4);
    for (uint32_t i = 0; i < n; i++) {
        float x = a[i], y = b[i], x15 = x * 1.5f;
        int e, q, sign;
        float whole = floorf(x15), frac = x15 - whole, m0 = frexpf(x, &e), rq = remquof(x, y, &q);
        float lg = lgammaf_r(x, &sign);
        double want[6] = {frac, whole, m0, sinf(x) + 4 * cosf(x), rq, lg};
        int32_t wn[3] = {e, q & 7, sign};
        for (uint32_t k = 0; k < 6; k++)
            if (zc_ulps(o[i * 6 + k], want[k]) > 16 && fabs(o[i * 6 + k] - want[k]) > 1e-5)
                zc_fail("item %u value %u: %a, expected %a", i, k, (double)o[i * 6 + k], want[k]);
        for (uint32_t k = 0; k < 3; k++)
            if (m[i * 3 + k] != wn[k])
                zc_fail("item %u output %u: %d, expected %d", i, k, m[i * 3 + k], wn[k]);
    }
    zc_free(&s->x, a);
    zc_free(&s->x, b);
    zc_free(&s->x, o);
    zc_free(&s->x, m);
}

/* Integer functions, exact. */
static int64_t zc_hi32(int64_t p) {
    return p >> 32;
}

static void zc_int_expected(int32_t x, int32_t y, int32_t z, int32_t *r) {
    uint32_t ux = (uint32_t)x, uy = (uint32_t)y;
    int64_t sum = (int64_t)x + y, dif = (int64_t)x - y, mad = (int64_t)x * y + z;
    int32_t x24 = (int32_t)(ux << 8) >> 8, y24 = (int32_t)(uy << 8) >> 8;
    uint32_t rot = uy % 32;
    r[0] = ux ? __builtin_clz(ux) : 32;
    r[1] = ux ? __builtin_ctz(ux) : 32;
    r[2] = __builtin_popcount(ux);
    r[3] = (int32_t)zc_hi32((int64_t)x * y);
    r[4] = (int32_t)((uint32_t)zc_hi32((int64_t)x * y) + (uint32_t)z);
    r[5] = (int32_t)(sum > INT32_MAX ? INT32_MAX : sum < INT32_MIN ? INT32_MIN : sum);
    r[6] = (int32_t)(dif > INT32_MAX ? INT32_MAX : dif < INT32_MIN ? INT32_MIN : dif);
    r[7] = (int32_t)(sum >> 1);
    r[8] = (int32_t)((sum + 1) >> 1);
    r[9] = (int32_t)(rot ? (ux << rot) | (ux >> (32 - rot)) : ux);
    r[10] = (int32_t)(x < 0 ? 0u - ux : ux);
    r[11] = (int32_t)(uint32_t)(x > y ? (int64_t)x - y : (int64_t)y - x);
    r[12] = x < -1000 ? -1000 : x > 1000 ? 1000 : x;
    uint32_t low24 = (uint32_t)((int64_t)x24 * y24); /* mul24: the low 32 bits of the product */
    r[13] = (int32_t)(low24 + (uint32_t)z);
    r[14] = (int32_t)low24;
    r[15] = (int32_t)(mad > INT32_MAX ? INT32_MAX : mad < INT32_MIN ? INT32_MIN : mad);
    r[16] = (int32_t)(uint32_t)(((uint64_t)ux * uy) >> 32);
    r[17] = (int32_t)((uint64_t)ux + uy > UINT32_MAX ? UINT32_MAX : ux + uy);
    r[18] = (int32_t)(((int32_t)(int16_t)x * 65536 + (int32_t)(uint16_t)y) >> 4);
    r[19] = (x < y ? x : y) ^ (x > z ? x : z);
}

static void spirv_integer_functions(void **state) {
    zc_sx *s = *state;
    const uint32_t n = 256;
    int32_t *a = zc_spirv_buffer(s, n * 4), *b = zc_spirv_buffer(s, n * 4), *c = zc_spirv_buffer(s, n * 4);
    int32_t *o = zc_spirv_buffer(s, n * 20 * 4);
    uint64_t seed = 1234;
    for (uint32_t i = 0; i < n; i++) {
        a[i] = i == 0 ? 0 : i == 1 ? INT32_MIN : i == 2 ? INT32_MAX : (int32_t)zc_rand(&seed);
        b[i] = i == 3 ? -1 : (int32_t)zc_rand(&seed) >> (i % 16);
        c[i] = (int32_t)zc_rand(&seed) >> (i % 24);
    }
    zc_arg args[] = {ZC_PTR(a), ZC_PTR(b), ZC_PTR(c), ZC_PTR(o)};
    zc_spirv_run(s, "spirv_math", "math_int", n, 32, args, 4);
    for (uint32_t i = 0; i < n; i++) {
        int32_t want[20];
        zc_int_expected(a[i], b[i], c[i], want);
        for (uint32_t k = 0; k < 20; k++)
            if (o[i * 20 + k] != want[k])
                zc_fail("function %u of (%d, %d, %d): %d, expected %d", k, a[i], b[i], c[i], o[i * 20 + k], want[k]);
    }
    int64_t *la = zc_spirv_buffer(s, n * 8), *lb = zc_spirv_buffer(s, n * 8), *lo = zc_spirv_buffer(s, n * 6 * 8);
    for (uint32_t i = 0; i < n; i++) {
        la[i] = (int64_t)zc_rand(&seed);
        lb[i] = (int64_t)zc_rand(&seed) >> (i % 60);
    }
    zc_arg largs[] = {ZC_PTR(la), ZC_PTR(lb), ZC_PTR(lo)};
    zc_spirv_run(s, "spirv_math", "math_long", n, 32, largs, 3);
    for (uint32_t i = 0; i < n; i++) {
        int64_t x = la[i], y = lb[i];
        __int128 p = (__int128)x * y, sum = (__int128)x + y;
        unsigned __int128 up = (unsigned __int128)(uint64_t)x * (uint64_t)y;
        uint32_t rot = (uint32_t)((uint64_t)y % 64);
        int64_t want[6] = {
            (int64_t)(p >> 64),
            (int64_t)(uint64_t)(up >> 64),
            sum > INT64_MAX   ? INT64_MAX
            : sum < INT64_MIN ? INT64_MIN
                              : (int64_t)sum,
            (x ? __builtin_clzll((uint64_t)x) : 64) + __builtin_popcountll((uint64_t)y),
            (int64_t)(rot ? ((uint64_t)x << rot) | ((uint64_t)x >> (64 - rot)) : (uint64_t)x),
            (int64_t)(uint64_t)(x > y ? (unsigned __int128)((__int128)x - y) : (unsigned __int128)((__int128)y - x))};
        for (uint32_t k = 0; k < 6; k++)
            if (lo[i * 6 + k] != want[k])
                zc_fail("long function %u of (%lld, %lld): %lld, expected %lld", k, (long long)x, (long long)y,
                        (long long)lo[i * 6 + k], (long long)want[k]);
    }
    void *buffers[] = {a, b, c, o, la, lb, lo};
    for (size_t i = 0; i < ZC_COUNT(buffers); i++)
        zc_free(&s->x, buffers[i]);
}

static void spirv_geometric_functions(void **state) {
    zc_sx *s = *state;
    const uint32_t n = 64;
    float *a = zc_spirv_buffer(s, n * 16), *b = zc_spirv_buffer(s, n * 16), *o = zc_spirv_buffer(s, n * 48);
    float *sc = zc_spirv_buffer(s, n * 16);
    for (uint32_t i = 0; i < n * 4; i++) {
        a[i] = (float)((int)(i * 37 % 23) - 11) / 3.0f;
        b[i] = (float)((int)(i * 53 % 19) - 9) / 5.0f;
    }
    zc_arg args[] = {ZC_PTR(a), ZC_PTR(b), ZC_PTR(o), ZC_PTR(sc)};
    zc_spirv_run(s, "spirv_math", "geometry", n, 16, args, 4);
    for (uint32_t i = 0; i < n; i++) {
        const float *x = &a[i * 4], *y = &b[i * 4];
        double len = sqrt((double)x[0] * x[0] + (double)x[1] * x[1] + (double)x[2] * x[2] + (double)x[3] * x[3]);
        double d2 = 0, dot = 0, dot3 = 0;
        for (int k = 0; k < 4; k++) {
            d2 += ((double)x[k] - y[k]) * ((double)x[k] - y[k]);
            dot += (double)x[k] * y[k];
            dot3 += k < 3 ? (double)x[k] * y[k] : 0;
        }
        double cross[4] = {x[1] * y[2] - x[2] * y[1], x[2] * y[0] - x[0] * y[2], x[0] * y[1] - x[1] * y[0], 0};
        double want_s[4] = {dot, len, sqrt(d2), dot3};
        for (int k = 0; k < 4; k++) {
            double norm = len == 0 ? x[k] : x[k] / len;
            if (fabs(o[i * 12 + k] - cross[k]) > 1e-4 || fabs(o[i * 12 + 8 + k] - cross[k]) > 1e-4 ||
                fabs(o[i * 12 + 4 + k] - norm) > 1e-5 || fabs(sc[i * 4 + k] - want_s[k]) > 1e-4)
                zc_fail("item %u component %d", i, k);
        }
    }
    zc_free(&s->x, a);
    zc_free(&s->x, b);
    zc_free(&s->x, o);
    zc_free(&s->x, sc);
}

/* ------------------------------------------------------------------------------------------------------------------
 * The functions of kernels/spirv_rare.cl, which the kernels above do not reach. */

/* Within a relative `error`: the half_, native_ and fast_ functions, whose accuracy OpenCL leaves to the device
 * (zefake computes them at full precision: docs/spirv-execution.md, "Limits and known gaps"). */
static bool zc_close(float got, double want, double error) {
    return fabs((double)got - want) <= error * (fabs(want) > 1 ? fabs(want) : 1);
}

/* Results r[from] to r[from + count - 1] of rare_float for (x, y), each within 0.1 % of want. */
static void zc_rare_close(const float *r, uint32_t from, const double *want, uint32_t count, float x, float y) {
    for (uint32_t k = 0; k < count; k++)
        if (!zc_close(r[from + k], want[k], 1e-3))
            zc_fail("rare float %u of (%a, %a): %a, expected %a within 0.1 %%", from + k, (double)x, (double)y,
                    (double)r[from + k], want[k]);
}

static float zc_minmag(float x, float y) {
    return fabsf(x) < fabsf(y) ? x : fabsf(y) < fabsf(x) ? y : fmaxf(x, y);
}

static uint32_t zc_float_bits(float f) {
    uint32_t bits;
    memcpy(&bits, &f, 4);
    return bits;
}

static float zc_bits_float(uint32_t bits) {
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

static void spirv_rare_float_functions(void **state) {
    zc_sx *s = *state;
    enum { N = 128, K = 45 };
    float *a = zc_spirv_buffer(s, N * 4), *b = zc_spirv_buffer(s, N * 4), *o = zc_spirv_buffer(s, N * K * 4);
    uint64_t seed = 7;
    for (uint32_t i = 0; i < N; i++) {
        a[i] = 0.25f + (float)(zc_rand(&seed) % 9700) / 1000.0f;
        b[i] = 0.5f + (float)(zc_rand(&seed) % 9000) / 1000.0f;
    }
    zc_arg args[] = {ZC_PTR(a), ZC_PTR(b), ZC_PTR(o)};
    zc_spirv_run(s, "spirv_rare", "rare_float", N, 16, args, 3);
    for (uint32_t i = 0; i < N; i++) {
        const float x = a[i], y = b[i], x11 = x / 11, x23 = x / 23, v = x * 1.75f, ym5 = y - 5, len = hypotf(x, y);
        const float *r = o + i * K;
        /* OpenCL's full-profile ulps: 5 for acospi, asinpi, atanpi, 6 for atan2pi and tanpi; exact for the rest. */
        double ulps[][2] = {{acos(x11) / M_PI, 5}, {asin(x11) / M_PI, 5},  {atan(x) / M_PI, 5}, {atan2(x, y) / M_PI, 6},
                            {tan(M_PI * x23), 6},  {zc_minmag(x, ym5), 0}, {v - truncf(v), 0},  {truncf(v), 0},
                            {fmaxf(x, y), 0},      {fminf(x, y), 0}};
        for (uint32_t k = 0; k < ZC_COUNT(ulps); k++)
            if (zc_ulps(r[k], ulps[k][0]) > ulps[k][1] + 1e-9)
                zc_fail("rare float %u of (%a, %a): %a, expected %a", k, (double)x, (double)y, (double)r[k],
                        ulps[k][0]);
        uint32_t mask = 0xffff0000u;
        float select = zc_bits_float((zc_float_bits(x) & ~mask) | (zc_float_bits(y) & mask));
        double geometry[] = {len, hypotf(x - y, y - 1), y / len};
        double fast[] = {sin(x), exp(x / 4.0), sqrt(x),     1.0 / y,        x / (double)y,
                         cos(x), log2(x),      1 / sqrt(x), pow(x, y / 4.0)};
        zc_rare_close(r, 10, geometry, ZC_COUNT(geometry), x, y);
        zc_rare_close(r, 14, fast, ZC_COUNT(fast), x, y);
        if (zc_float_bits(r[13]) != zc_float_bits(select))
            zc_fail("bitselect of (%a, %a): %a, expected %a", (double)x, (double)y, (double)r[13], (double)select);
        if (r[23] != 1.0f)
            zc_fail("nan(0x12345) compared equal to itself");
        if (zc_float_bits(r[24]) != 0x12345u) /* a quiet NaN that keeps the code in its significand */
            zc_fail("nan(0x12345) has the significand bits 0x%x", zc_float_bits(r[24]));
        if (!zc_close(r[25], (double)x * y + 1, 1e-6))
            zc_fail("mad of (%a, %a): %a", (double)x, (double)y, (double)r[25]);
        double more[] = {cos(x),      exp2(x),  pow(10, x / 4.0), log(x),   log2(x),      log10(x), pow(x, y / 4.0),
                         1 / sqrt(x), tan(x23), sin(x),           tan(x23), exp(x / 4.0), exp2(x),  pow(10, x / 4.0),
                         log(x),      log10(x), sqrt(x),          1.0 / y,  x / (double)y};
        zc_rare_close(r, 26, more, ZC_COUNT(more), x, y);
    }
    zc_free(&s->x, a);
    zc_free(&s->x, b);
    zc_free(&s->x, o);
}

static void zc_rare_uint_expected(uint32_t x, uint32_t y, uint32_t z, uint32_t *r) {
    uint64_t sum = (uint64_t)x + y, product = (uint64_t)x * y, mad = product + z;
    uint32_t x24 = x & 0xffffffu, y24 = y & 0xffffffu;
    int64_t up = (int64_t)(((uint64_t)x << 32) | y);
    r[0] = x;
    r[1] = x > y ? x - y : y - x;
    r[2] = x < 1000u ? 1000u : x > 0x80000000u ? 0x80000000u : x;
    r[3] = (uint32_t)(sum >> 1);
    r[4] = (uint32_t)((sum + 1) >> 1);
    r[5] = (uint32_t)((uint64_t)x24 * y24) + z;
    r[6] = (uint32_t)((uint64_t)x24 * y24);
    r[7] = (uint32_t)(product >> 32) + z;
    r[8] = mad > UINT32_MAX ? UINT32_MAX : (uint32_t)mad;
    r[9] = x > y ? x - y : 0;
    r[10] = (x > y ? x : y) ^ (y < z ? y : z);
    r[11] = (uint32_t)(up >> 40); /* arithmetic: the sign of x's high bit */
    r[12] = ((x & 0xffffu) << 16) | (y & 0xffffu);
    r[13] = (x & ~z) | (y & z);
}

static void spirv_rare_integer_functions(void **state) {
    zc_sx *s = *state;
    enum { N = 256, K = 14 };
    uint32_t *a = zc_spirv_buffer(s, N * 4), *b = zc_spirv_buffer(s, N * 4), *c = zc_spirv_buffer(s, N * 4);
    uint32_t *o = zc_spirv_buffer(s, N * K * 4);
    uint64_t seed = 4321;
    for (uint32_t i = 0; i < N; i++) {
        a[i] = i == 0 ? 0 : i == 1 ? UINT32_MAX : i == 2 ? 0x80000000u : (uint32_t)zc_rand(&seed) >> (i % 20);
        b[i] = i == 3 ? UINT32_MAX : (uint32_t)zc_rand(&seed) >> (i % 16);
        c[i] = (uint32_t)zc_rand(&seed) >> (i % 24);
    }
    zc_arg args[] = {ZC_PTR(a), ZC_PTR(b), ZC_PTR(c), ZC_PTR(o)};
    zc_spirv_run(s, "spirv_rare", "rare_uint", N, 32, args, 4);
    for (uint32_t i = 0; i < N; i++) {
        uint32_t want[K];
        zc_rare_uint_expected(a[i], b[i], c[i], want);
        for (uint32_t k = 0; k < K; k++)
            if (o[i * K + k] != want[k])
                zc_fail("unsigned function %u of (%u, %u, %u): %u, expected %u", k, a[i], b[i], c[i], o[i * K + k],
                        want[k]);
    }
    zc_free(&s->x, a);
    zc_free(&s->x, b);
    zc_free(&s->x, c);
    zc_free(&s->x, o);
}

static void spirv_relational_functions(void **state) {
    zc_sx *s = *state;
    static const float special[] = {0.0f, -0.0f, 1.5f,   -2.25f,  INFINITY, -INFINITY,
                                    NAN,  -NAN,  1e-40f, -1e-42f, FLT_MIN,  FLT_MAX};
    enum { M = ZC_COUNT(special), N = M * M, K = 10 };
    float *a = zc_spirv_buffer(s, N * 4), *b = zc_spirv_buffer(s, N * 4);
    int32_t *o = zc_spirv_buffer(s, N * K * 4);
    for (uint32_t i = 0; i < N; i++) {
        a[i] = special[i / M];
        b[i] = special[i % M];
    }
    zc_arg args[] = {ZC_PTR(a), ZC_PTR(b), ZC_PTR(o)};
    zc_spirv_run(s, "spirv_rare", "rare_relational", N, 16, args, 3);
    for (uint32_t i = 0; i < N; i++) {
        float x = a[i], y = b[i];
        bool ordered = !isnan(x) && !isnan(y);
        int32_t want[K] = {isnan(x) != 0,
                           isinf(x) != 0,
                           isfinite(x) != 0,
                           isnormal(x) != 0,
                           signbit(x) != 0,
                           ordered,
                           !ordered,
                           x < y || x > y,
                           (x >= y) * 2 + (x <= y),
                           (isnan(x) || isnan(y)) * 2 + (isfinite(x) && isfinite(y))};
        for (uint32_t k = 0; k < K; k++)
            if (o[i * K + k] != want[k])
                zc_fail("relational function %u of (%a, %a): %d, expected %d", k, (double)x, (double)y, o[i * K + k],
                        want[k]);
    }
    zc_free(&s->x, a);
    zc_free(&s->x, b);
    zc_free(&s->x, o);
}

/* f as a half rounded to nearest even (0), toward zero (1), toward positive infinity (2) or toward negative infinity
 * (3); f is in the range of normal halves. */
static uint16_t zc_half_rounded(float f, int mode) {
    int exponent;
    frexp(fabs((double)f), &exponent);
    double ulp = ldexp(1.0, exponent - 11), q = fabs((double)f) / ulp;
    bool up = (mode == 2 && f > 0) || (mode == 3 && f < 0); /* away from zero */
    q = mode == 0 ? nearbyint(q) : up ? ceil(q) : trunc(q);
    return zc_float_to_half((float)copysign(q * ulp, (double)f)); /* exact: q * ulp is a half */
}

static void spirv_half_conversions_round_as_asked(void **state) {
    zc_sx *s = *state;
    enum { N = 64 };
    float *a = zc_spirv_buffer(s, N * 16), *o = zc_spirv_buffer(s, N * 2 * 4);
    uint16_t *h = zc_spirv_buffer(s, N * 12 * 2);
    uint64_t seed = 55;
    for (uint32_t i = 0; i < N * 4; i++) { /* most of them between two halves */
        float v = (float)((int64_t)(zc_rand(&seed) % 600001) - 300000) / 997.0f;
        a[i] = fabsf(v) < 0.001f ? 0.4375f : v;
    }
    zc_arg args[] = {ZC_PTR(a), ZC_PTR(h), ZC_PTR(o)};
    zc_spirv_run(s, "spirv_rare", "rare_half", N, 16, args, 3);
    for (uint32_t i = 0; i < N; i++) {
        const float *v = a + i * 4;
        static const int modes[12] = {0, 1, 2, 2, 0, 0, 0, 0, 3, 3, 3, 3};
        for (uint32_t k = 0; k < 12; k++) {
            uint16_t want = zc_half_rounded(v[k % 4], modes[k]);
            if (h[i * 12 + k] != want)
                zc_fail("item %u half %u of %a: 0x%04x, expected 0x%04x", i, k, (double)v[k % 4], h[i * 12 + k], want);
        }
        if (o[i * 2] != zc_half_to_float(h[i * 12 + 1]) || o[i * 2 + 1] != zc_half_to_float(h[i * 12 + 11]))
            zc_fail("item %u: halves loaded back as %a and %a", i, (double)o[i * 2], (double)o[i * 2 + 1]);
    }
    zc_free(&s->x, a);
    zc_free(&s->x, h);
    zc_free(&s->x, o);
}

int main(int argc, char **argv) {
#define ZC_FIXTURE spirv
    static const struct CMUnitTest tests[] = {
        ZC_T(spirv_math_functions_within_ulps),
        ZC_T(spirv_double_math),
        ZC_T(spirv_math_with_output_pointers),
        ZC_T(spirv_integer_functions),
        ZC_T(spirv_geometric_functions),
        ZC_T(spirv_rare_float_functions),
        ZC_T(spirv_rare_integer_functions),
        ZC_T(spirv_relational_functions),
        ZC_T(spirv_half_conversions_round_as_asked),
    };
    static const zc_suite suite = {ZC_EXECUTABLE, tests, ZC_COUNT(tests), zc_setup_system, zc_teardown_system, NULL, 0};
    return zc_main(argc, argv, &suite);
}
