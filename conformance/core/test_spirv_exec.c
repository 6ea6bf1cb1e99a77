/* Conformance: kernels compiled from OpenCL C compute what OpenCL C says they compute. Arithmetic of every type and
 * width (scalars, vectors, halves), conversions with saturation and rounding modes, control flow, structs and private
 * memory, built-in ids, vector loads and shuffles: each against the same computation on the host. The kernels are
 * conformance/kernels/spirv_*.cl (and spirv_irreducible.spvasm); the built-in functions are test_spirv_math.c's. */
#include "zc_spirv.h"

#include <fenv.h>
#include <float.h>
#include <inttypes.h>

#define ZC_ITEMS 256u
#define ZC_OPS   16u
#define ZC_VOPS  8u

/* ------------------------------------------------------------------------------------------------------------------
 * Integer arithmetic: U is the unsigned twin and W the type C computes without overflow. Signed inputs stay within a
 * sixteenth of the range (OpenCL leaves signed overflow undefined); unsigned ones use it all. */

#define ZC_INT_CASE(T, U, W, NAME, BITS, SIGNED)                                                                       \
    static void zc_expect_##NAME(T x, T y, T *o) {                                                                     \
        unsigned sh = (unsigned)((U)y & ((BITS) > 32 ? 63u : 31u));                                                    \
        o[0] = (T)((W)(U)x + (W)(U)y);                                                                                 \
        o[1] = (T)((W)(U)x - (W)(U)y);                                                                                 \
        o[2] = (T)((W)(U)x * (W)(U)y);                                                                                 \
        o[3] = (T)(x / y);                                                                                             \
        o[4] = (T)((T)((W)(U)x + 1) % y);                                                                              \
        o[5] = (T)(x & y);                                                                                             \
        o[6] = (T)(x | y);                                                                                             \
        o[7] = (T)(x ^ y);                                                                                             \
        o[8] = (BITS) > 32 ? (T)((uint64_t)(U)x << sh) : (T)((uint32_t)(int32_t)x << sh);                              \
        o[9] = (BITS) > 32 ? (T)(SIGNED ? (T)((int64_t)x >> sh) : (T)((uint64_t)(U)x >> sh))                           \
                           : (T)(SIGNED ? (T)((int32_t)x >> sh) : (T)((uint32_t)(U)x >> sh));                          \
        o[10] = (T)~x;                                                                                                 \
        o[11] = (T)((W)0 - (W)(U)x);                                                                                   \
        o[12] = (T)((x < y) + (x <= y) * 2 + (x > y) * 4 + (x >= y) * 8 + (x == y) * 16 + (x != y) * 32);              \
        o[13] = (T)((W)(U)(x > y ? x : y) - (W)(U)(x < y ? x : y));                                                    \
        o[14] = x > y ? x : (T)((W)(U)y + 1);                                                                          \
        T mix = (T)((W)(U)x * 3 + (W)(U)y * 5);                                                                        \
        o[15] = (BITS) > 32 ? (T)(SIGNED ? (T)((int64_t)mix >> 1) : (T)((uint64_t)(U)mix >> 1))                        \
                            : (T)(SIGNED ? (T)((int32_t)mix >> 1) : (T)((uint32_t)(U)mix >> 1));                       \
    }                                                                                                                  \
    static void zc_inputs_##NAME(T *a, T *b, uint64_t seed) {                                                          \
        for (uint32_t i = 0; i < ZC_ITEMS; i++) {                                                                      \
            U range = (U)((U) ~(U)0 >> 5);                                                                             \
            U ua = (U)zc_rand(&seed), ub = (U)zc_rand(&seed);                                                          \
            if (SIGNED) {                                                                                              \
                ua = (U)(ua >> 5);                                                                                     \
                ub = (U)(ub >> 5);                                                                                     \
            }                                                                                                          \
            a[i] = SIGNED ? (T)((W)ua - (W)(range / 2)) : (T)ua;                                                       \
            b[i] = SIGNED ? (T)((W)ub - (W)(range / 2)) : (T)ub;                                                       \
            if (b[i] == 0 || (SIGNED && b[i] == (T)-1))                                                                \
                b[i] = 7;                                                                                              \
            if (i == 0) { /* equal operands once, for the comparisons */                                               \
                b[i] = a[i] == 0 ? 7 : a[i];                                                                           \
            }                                                                                                          \
        }                                                                                                              \
    }

ZC_INT_CASE(int8_t, uint8_t, uint32_t, char, 8, 1)
ZC_INT_CASE(uint8_t, uint8_t, uint32_t, uchar, 8, 0)
ZC_INT_CASE(int16_t, uint16_t, uint32_t, short, 16, 1)
ZC_INT_CASE(uint16_t, uint16_t, uint32_t, ushort, 16, 0)
ZC_INT_CASE(int32_t, uint32_t, uint32_t, int, 32, 1)
ZC_INT_CASE(uint32_t, uint32_t, uint32_t, uint, 32, 0)
ZC_INT_CASE(int64_t, uint64_t, uint64_t, long, 64, 1)
ZC_INT_CASE(uint64_t, uint64_t, uint64_t, ulong, 64, 0)

#define ZC_RUN_INT(T, NAME, PRI)                                                                                       \
    do {                                                                                                               \
        T *a = zc_spirv_buffer(s, ZC_ITEMS * sizeof(T)), *b = zc_spirv_buffer(s, ZC_ITEMS * sizeof(T));                \
        T *out = zc_spirv_buffer(s, ZC_ITEMS * ZC_OPS * sizeof(T));                                                    \
        zc_inputs_##NAME(a, b, 0x9E3779B97F4A7C15ull + sizeof(T));                                                     \
        zc_arg args[] = {ZC_PTR(a), ZC_PTR(b), ZC_PTR(out)};                                                           \
        zc_spirv_run(s, "spirv_arith", "arith_" #NAME, ZC_ITEMS, 64, args, 3);                                         \
        for (uint32_t i = 0; i < ZC_ITEMS; i++) {                                                                      \
            T want[ZC_OPS];                                                                                            \
            zc_expect_##NAME(a[i], b[i], want);                                                                        \
            for (uint32_t k = 0; k < ZC_OPS; k++)                                                                      \
                if (out[i * ZC_OPS + k] != want[k])                                                                    \
                    zc_fail(#NAME " item %u op %u: %" PRI " %" PRI " gave %" PRI ", expected %" PRI, i, k, a[i], b[i], \
                            out[i * ZC_OPS + k], want[k]);                                                             \
        }                                                                                                              \
        zc_free(&s->x, a);                                                                                             \
        zc_free(&s->x, b);                                                                                             \
        zc_free(&s->x, out);                                                                                           \
    } while (0)

static void spirv_integer_arithmetic_of_every_width(void **state) {
    zc_sx *s = *state;
    ZC_RUN_INT(int8_t, char, PRId8);
    ZC_RUN_INT(uint8_t, uchar, PRIu8);
    ZC_RUN_INT(int16_t, short, PRId16);
    ZC_RUN_INT(uint16_t, ushort, PRIu16);
    ZC_RUN_INT(int32_t, int, PRId32);
    ZC_RUN_INT(uint32_t, uint, PRIu32);
    ZC_RUN_INT(int64_t, long, PRId64);
    ZC_RUN_INT(uint64_t, ulong, PRIu64);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Floating point: float and double computed by the host in their own precision, halves in float and rounded after
 * each operation (what IEEE half arithmetic gives for these operations). */

#define ZC_FLOAT_EXPECT(T, NAME, FMOD, SQRT, FLOOR, CEIL, TRUNC, R)                                                    \
    static void zc_expect_##NAME(T x, T y, T *o) {                                                                     \
        o[0] = R(x + y);                                                                                               \
        o[1] = R(x - y);                                                                                               \
        o[2] = R(x * y);                                                                                               \
        o[3] = R(x / y);                                                                                               \
        o[4] = R(FMOD(x, y));                                                                                          \
        o[5] = R(-x);                                                                                                  \
        o[6] = (T)((x < y) + (x <= y) * 2 + (x > y) * 4 + (x >= y) * 8 + (x == y) * 16 + (x != y) * 32);               \
        o[7] = x > y ? x : y;                                                                                          \
        o[8] = x < y ? x : y;                                                                                          \
        T p = R(x * y);                                                                                                \
        o[9] = R(p + x);                                                                                               \
        o[10] = x < 0 ? -x : x;                                                                                        \
        o[11] = FLOOR(x);                                                                                              \
        o[12] = CEIL(y);                                                                                               \
        o[13] = TRUNC(R(x / y));                                                                                       \
        o[14] = x > y ? x : y;                                                                                         \
        o[15] = R(SQRT(x < 0 ? -x : x));                                                                               \
    }
#define ZC_SAME(v)       (v)
#define ZC_ROUND_HALF(v) zc_half_to_float(zc_float_to_half((float)(v)))
ZC_FLOAT_EXPECT(float, float, fmodf, sqrtf, floorf, ceilf, truncf, ZC_SAME)
ZC_FLOAT_EXPECT(double, double, fmod, sqrt, floor, ceil, trunc, ZC_SAME)
ZC_FLOAT_EXPECT(float, half, fmodf, sqrtf, floorf, ceilf, truncf, ZC_ROUND_HALF)

static void zc_float_inputs(double *a, double *b, uint64_t seed) {
    for (uint32_t i = 0; i < ZC_ITEMS; i++) {
        a[i] = (double)(int64_t)(zc_rand(&seed) % 20001 - 10000) / 100.0;
        b[i] = (double)(int64_t)(zc_rand(&seed) % 20001 - 10000) / 100.0;
        if (b[i] == 0)
            b[i] = 0.5;
        if (i == 0)
            b[i] = a[i];
    }
}

static void spirv_float_arithmetic(void **state) {
    zc_sx *s = *state;
    double a[ZC_ITEMS], b[ZC_ITEMS];
    zc_float_inputs(a, b, 42);
    float *fa = zc_spirv_buffer(s, ZC_ITEMS * 4), *fb = zc_spirv_buffer(s, ZC_ITEMS * 4);
    float *fo = zc_spirv_buffer(s, ZC_ITEMS * ZC_OPS * 4);
    double *da = zc_spirv_buffer(s, ZC_ITEMS * 8), *db = zc_spirv_buffer(s, ZC_ITEMS * 8);
    double *dout = zc_spirv_buffer(s, ZC_ITEMS * ZC_OPS * 8);
    uint16_t *ha = zc_spirv_buffer(s, ZC_ITEMS * 2), *hb = zc_spirv_buffer(s, ZC_ITEMS * 2);
    uint16_t *ho = zc_spirv_buffer(s, ZC_ITEMS * ZC_OPS * 2);
    for (uint32_t i = 0; i < ZC_ITEMS; i++) {
        fa[i] = (float)a[i];
        fb[i] = (float)b[i];
        da[i] = a[i];
        db[i] = b[i];
        ha[i] = zc_float_to_half((float)a[i]);
        hb[i] = zc_float_to_half((float)b[i]);
    }
    zc_arg fargs[] = {ZC_PTR(fa), ZC_PTR(fb), ZC_PTR(fo)}, dargs[] = {ZC_PTR(da), ZC_PTR(db), ZC_PTR(dout)},
           hargs[] = {ZC_PTR(ha), ZC_PTR(hb), ZC_PTR(ho)};
    zc_spirv_run(s, "spirv_arith", "arith_float", ZC_ITEMS, 32, fargs, 3);
    zc_spirv_run(s, "spirv_arith", "arith_double", ZC_ITEMS, 32, dargs, 3);
    zc_spirv_run(s, "spirv_arith", "arith_half", ZC_ITEMS, 32, hargs, 3);
    for (uint32_t i = 0; i < ZC_ITEMS; i++) {
        float wf[ZC_OPS], wh[ZC_OPS];
        double wd[ZC_OPS];
        zc_expect_float(fa[i], fb[i], wf);
        zc_expect_double(da[i], db[i], wd);
        zc_expect_half(zc_half_to_float(ha[i]), zc_half_to_float(hb[i]), wh);
        for (uint32_t k = 0; k < ZC_OPS; k++) {
            if (memcmp(&fo[i * ZC_OPS + k], &wf[k], 4) != 0)
                zc_fail("float item %u op %u: %a %a gave %a, expected %a", i, k, (double)fa[i], (double)fb[i],
                        (double)fo[i * ZC_OPS + k], (double)wf[k]);
            if (memcmp(&dout[i * ZC_OPS + k], &wd[k], 8) != 0)
                zc_fail("double item %u op %u: %a %a gave %a, expected %a", i, k, da[i], db[i], dout[i * ZC_OPS + k],
                        wd[k]);
            if (ho[i * ZC_OPS + k] != zc_float_to_half(wh[k]))
                zc_fail("half item %u op %u: 0x%04x 0x%04x gave 0x%04x, expected 0x%04x", i, k, ha[i], hb[i],
                        ho[i * ZC_OPS + k], zc_float_to_half(wh[k]));
        }
    }
    void *buffers[] = {fa, fb, fo, da, db, dout, ha, hb, ho};
    for (size_t i = 0; i < ZC_COUNT(buffers); i++)
        zc_free(&s->x, buffers[i]);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Vectors: the same element-wise operations on whole vectors; 3-component vectors take the room of 4. */

#define ZC_VEC_CASE(T, N, SLOT, NAME, W)                                                                               \
    static void zc_vec_##NAME(zc_sx *s, uint64_t seed, bool is_float) {                                                \
        T *a = zc_spirv_buffer(s, ZC_ITEMS * SLOT * sizeof(T)), *b = zc_spirv_buffer(s, ZC_ITEMS * SLOT * sizeof(T));  \
        T *o = zc_spirv_buffer(s, ZC_ITEMS * ZC_VOPS * SLOT * sizeof(T));                                              \
        for (uint32_t i = 0; i < ZC_ITEMS * SLOT; i++) {                                                               \
            a[i] = is_float ? (T)((double)(int64_t)(zc_rand(&seed) % 2001 - 1000) / 8) : (T)(zc_rand(&seed) % 97);     \
            b[i] = is_float ? (T)((double)(int64_t)(zc_rand(&seed) % 2001 - 1000) / 8) : (T)(zc_rand(&seed) % 89);     \
        }                                                                                                              \
        zc_arg args[] = {ZC_PTR(a), ZC_PTR(b), ZC_PTR(o)};                                                             \
        zc_spirv_run(s, "spirv_arith", "vec_" #NAME, ZC_ITEMS, 64, args, 3);                                           \
        for (uint32_t i = 0; i < ZC_ITEMS; i++) {                                                                      \
            for (uint32_t c = 0; c < N; c++) {                                                                         \
                T x = a[i * SLOT + c], y = b[i * SLOT + c], x0 = a[i * SLOT];                                          \
                T neg = is_float ? (T)-x : (T)((W)0 - (W)x); /* -0.0, not 0 - 0.0 */                                   \
                T want[ZC_VOPS] = {(T)((W)x + (W)y), (T)((W)x - (W)y), (T)((W)x * (W)y),  x > y ? x : y,               \
                                   x < y ? x : y,    x < y ? y : x,    (T)((W)x0 + (W)y), neg};                        \
                for (uint32_t k = 0; k < ZC_VOPS; k++) {                                                               \
                    T got = o[(i * ZC_VOPS + k) * SLOT + c];                                                           \
                    if (memcmp(&got, &want[k], sizeof got) != 0)                                                       \
                        zc_fail("vec_" #NAME " item %u component %u op %u: %g, expected %g", i, c, k, (double)got,     \
                                (double)want[k]);                                                                      \
                }                                                                                                      \
            }                                                                                                          \
        }                                                                                                              \
        zc_free(&s->x, a);                                                                                             \
        zc_free(&s->x, b);                                                                                             \
        zc_free(&s->x, o);                                                                                             \
    }

ZC_VEC_CASE(int32_t, 4, 4, int4, uint32_t)
ZC_VEC_CASE(uint8_t, 16, 16, uchar16, uint32_t)
ZC_VEC_CASE(int16_t, 8, 8, short8, uint32_t)
ZC_VEC_CASE(int64_t, 2, 2, long2, uint64_t)
ZC_VEC_CASE(float, 4, 4, float4, float)
ZC_VEC_CASE(float, 3, 4, float3, float)
ZC_VEC_CASE(double, 2, 2, double2, double)
ZC_VEC_CASE(uint32_t, 3, 4, uint3, uint32_t)

static void spirv_vector_arithmetic(void **state) {
    zc_sx *s = *state;
    zc_vec_int4(s, 1, false);
    zc_vec_uchar16(s, 2, false);
    zc_vec_short8(s, 3, false);
    zc_vec_long2(s, 4, false);
    zc_vec_float4(s, 5, true);
    zc_vec_float3(s, 6, true);
    zc_vec_double2(s, 7, true);
    zc_vec_uint3(s, 8, false);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Conversions */

typedef struct zc_conv {
    int32_t i_rtz, i_rte, i_rtp, i_rtn, i_sat;
    uint32_t u_sat;
    int8_t c_sat;
    uint8_t uc_sat;
    int16_t s_sat;
    uint16_t us_sat;
    int64_t l_sat;
    uint64_t ul_sat;
    float f_from_l_rtz, f_from_l_rtp, f_from_u, f_from_d_rtn, f_from_d_rtp;
    double d_from_f, d_from_l;
    uint8_t uc_from_i_sat;
    int8_t c_from_u_sat;
    int16_t s_from_l;
    uint16_t h_from_f, h_from_f_rtz;
    float f_from_h;
} zc_conv;

static int64_t zc_sat(double v, double lo, double hi) {
    if (isnan(v))
        return 0;
    return v <= lo ? (int64_t)lo : v >= hi ? (int64_t)hi : (int64_t)v;
}

/* The conversion is made from volatile copies, so that the compiler cannot move it before the mode change. */
static float zc_float_in_mode(double v, int mode, bool from_long, int64_t l) {
    volatile double vv = v;
    volatile int64_t vl = l;
    int saved = fegetround();
    fesetround(mode);
    volatile float f = from_long ? (float)vl : (float)vv;
    fesetround(saved);
    return f;
}

static uint16_t zc_half_rtz(float x) {
    uint16_t h = zc_float_to_half(x);
    if (isnan(x))
        return h;
    if (isinf(zc_half_to_float(h)) && !isinf(x))
        return (uint16_t)((h & 0x8000u) | 0x7BFFu);
    if (fabsf(zc_half_to_float(h)) > fabsf(x))
        h = (uint16_t)(h - 1); /* one step toward zero: the magnitude bits are ordered */
    return h;
}

static zc_conv zc_convert_expected(float x, double y, int64_t z) {
    zc_conv c;
    memset(&c, 0, sizeof c);
    float bounded = fminf(fmaxf(x, -2.0e9f), 2.0e9f); /* OpenCL clamp: NaN becomes the lower bound */
    c.i_rtz = (int32_t)zc_sat(truncf(bounded), INT32_MIN, INT32_MAX);
    c.i_rte = (int32_t)zc_sat(nearbyintf(bounded), INT32_MIN, INT32_MAX);
    c.i_rtp = (int32_t)zc_sat(ceilf(bounded), INT32_MIN, INT32_MAX);
    c.i_rtn = (int32_t)zc_sat(floorf(bounded), INT32_MIN, INT32_MAX);
    c.i_sat = (int32_t)zc_sat(truncf(x), INT32_MIN, INT32_MAX);
    c.u_sat = (uint32_t)zc_sat(truncf(x), 0, UINT32_MAX);
    c.c_sat = (int8_t)zc_sat(truncf(x), INT8_MIN, INT8_MAX);
    c.uc_sat = (uint8_t)zc_sat(truncf(x), 0, UINT8_MAX);
    c.s_sat = (int16_t)zc_sat(nearbyintf(x), INT16_MIN, INT16_MAX);
    c.us_sat = (uint16_t)zc_sat(truncf(x), 0, UINT16_MAX);
    c.l_sat = isnan(y)                      ? 0
              : y >= 9223372036854775807.0  ? INT64_MAX
              : y <= -9223372036854775808.0 ? INT64_MIN
                                            : (int64_t)y;
    c.ul_sat = isnan(y) || y <= 0 ? 0 : y >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)y;
    c.f_from_l_rtz = zc_float_in_mode(0, FE_TOWARDZERO, true, z);
    c.f_from_l_rtp = zc_float_in_mode(0, FE_UPWARD, true, z);
    c.f_from_u = (float)(uint32_t)z;
    c.f_from_d_rtn = zc_float_in_mode(y, FE_DOWNWARD, false, 0);
    c.f_from_d_rtp = zc_float_in_mode(y, FE_UPWARD, false, 0);
    c.d_from_f = x;
    c.d_from_l = (double)z;
    int32_t zi = (int32_t)(uint32_t)(uint64_t)z;
    c.uc_from_i_sat = (uint8_t)(zi < 0 ? 0 : zi > 255 ? 255 : zi);
    uint32_t zu = (uint32_t)(uint64_t)z;
    c.c_from_u_sat = (int8_t)(zu > 127 ? 127 : zu);
    c.s_from_l = (int16_t)(uint16_t)(uint64_t)z;
    c.h_from_f = zc_float_to_half(x);
    c.h_from_f_rtz = zc_half_rtz(x);
    c.f_from_h = zc_half_to_float(zc_float_to_half(x));
    return c;
}

static bool zc_same_bits(const void *a, const void *b, size_t n) {
    return memcmp(a, b, n) == 0;
}

#define ZC_CHECK_FIELD(got, want, field)                                                                               \
    do {                                                                                                               \
        if (!zc_same_bits(&(got).field, &(want).field, sizeof(got).field))                                             \
            zc_fail("item %u: " #field " is %.17g, expected %.17g (inputs %a, %a, %lld)", i, (double)(got).field,      \
                    (double)(want).field, (double)f[i], d[i], (long long)l[i]);                                        \
    } while (0)

static void spirv_conversions_saturate_and_round(void **state) {
    zc_sx *s = *state;
    static const float special[] = {NAN,      INFINITY, -INFINITY,     1e10f,         -1e10f,    2.5f,
                                    -2.5f,    3.5f,     0.5f,          -0.5f,         255.7f,    256.2f,
                                    -1.3f,    70000.0f, 1e-9f,         32767.5f,      -32768.6f, 65519.0f,
                                    65520.0f, -0.0f,    4294967296.0f, 1.00048828125f};
    const uint32_t n = 64;
    float *f = zc_spirv_buffer(s, n * 4);
    double *d = zc_spirv_buffer(s, n * 8);
    int64_t *l = zc_spirv_buffer(s, n * 8);
    zc_conv *out = zc_spirv_buffer(s, n * sizeof *out);
    uint64_t seed = 77;
    for (uint32_t i = 0; i < n; i++) {
        f[i] = i < ZC_COUNT(special) ? special[i] : (float)((int64_t)(zc_rand(&seed) % 200001) - 100000) / 7.0f;
        d[i] = i < ZC_COUNT(special) ? (double)special[i] * 1.0e9 : (double)f[i] * 1.0e12 + 0.3;
        l[i] = (int64_t)zc_rand(&seed) >> (i % 40);
    }
    zc_arg args[] = {ZC_PTR(f), ZC_PTR(d), ZC_PTR(l), ZC_PTR(out)};
    zc_spirv_run(s, "spirv_convert", "convert_all", n, 16, args, 4);
    for (uint32_t i = 0; i < n; i++) {
        zc_conv want = zc_convert_expected(f[i], d[i], l[i]), got = out[i];
        ZC_CHECK_FIELD(got, want, i_rtz);
        ZC_CHECK_FIELD(got, want, i_rte);
        ZC_CHECK_FIELD(got, want, i_rtp);
        ZC_CHECK_FIELD(got, want, i_rtn);
        ZC_CHECK_FIELD(got, want, i_sat);
        ZC_CHECK_FIELD(got, want, u_sat);
        ZC_CHECK_FIELD(got, want, c_sat);
        ZC_CHECK_FIELD(got, want, uc_sat);
        ZC_CHECK_FIELD(got, want, s_sat);
        ZC_CHECK_FIELD(got, want, us_sat);
        ZC_CHECK_FIELD(got, want, l_sat);
        ZC_CHECK_FIELD(got, want, ul_sat);
        ZC_CHECK_FIELD(got, want, f_from_l_rtz);
        ZC_CHECK_FIELD(got, want, f_from_l_rtp);
        ZC_CHECK_FIELD(got, want, f_from_u);
        ZC_CHECK_FIELD(got, want, f_from_d_rtn);
        ZC_CHECK_FIELD(got, want, f_from_d_rtp);
        ZC_CHECK_FIELD(got, want, d_from_f);
        ZC_CHECK_FIELD(got, want, d_from_l);
        ZC_CHECK_FIELD(got, want, uc_from_i_sat);
        ZC_CHECK_FIELD(got, want, c_from_u_sat);
        ZC_CHECK_FIELD(got, want, s_from_l);
        ZC_CHECK_FIELD(got, want, h_from_f);
        ZC_CHECK_FIELD(got, want, h_from_f_rtz);
        ZC_CHECK_FIELD(got, want, f_from_h);
    }
    zc_free(&s->x, f);
    zc_free(&s->x, d);
    zc_free(&s->x, l);
    zc_free(&s->x, out);
}

static void spirv_vector_conversions(void **state) {
    zc_sx *s = *state;
    const uint32_t n = 32;
    float *f = zc_spirv_buffer(s, n * 16);
    int32_t *sat = zc_spirv_buffer(s, n * 16);
    uint8_t *bytes = zc_spirv_buffer(s, n * 4);
    float *back = zc_spirv_buffer(s, n * 16);
    for (uint32_t i = 0; i < n * 4; i++)
        f[i] = ((float)i - 60.0f) * 1234.56f * (i % 3 == 0 ? 1e6f : 1.0f);
    zc_arg args[] = {ZC_PTR(f), ZC_PTR(sat), ZC_PTR(bytes), ZC_PTR(back)};
    zc_spirv_run(s, "spirv_convert", "convert_vectors", n, 8, args, 4);
    for (uint32_t i = 0; i < n * 4; i++) {
        int32_t ws = (int32_t)zc_sat(floorf(f[i]), INT32_MIN, INT32_MAX);
        uint8_t wb = (uint8_t)zc_sat(truncf(f[i]), 0, 255);
        float wf = (float)(int16_t)zc_sat(truncf(f[i]), INT16_MIN, INT16_MAX);
        if (sat[i] != ws || bytes[i] != wb || back[i] != wf)
            zc_fail("component %u of %g: %d %u %g, expected %d %u %g", i, (double)f[i], sat[i], bytes[i],
                    (double)back[i], ws, wb, (double)wf);
    }
    zc_free(&s->x, f);
    zc_free(&s->x, sat);
    zc_free(&s->x, bytes);
    zc_free(&s->x, back);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Control flow: the kernel replayed in C. */

static int zc_collatz(int n) {
    int steps = 0;
    while (n != 1 && steps < 500) {
        n = (n & 1) ? 3 * n + 1 : n / 2;
        steps++;
    }
    return steps;
}

static int zc_sum_sorted(int *v, int n) {
    for (int i = 0; i + 1 < n; i++)
        if (v[i] > v[i + 1]) {
            int t = v[i];
            v[i] = v[i + 1];
            v[i + 1] = t;
        }
    int s = 0;
    for (int i = 0; i < n; i++)
        s = s * 3 + v[i];
    return s;
}

static int zc_control_expected(int v, int untouched) {
    if (v < -50)
        return untouched;
    int r = 0;
    switch (v) {
    case 0:
        r = 10;
        break;
    case 1:
        r = 20; /* falls through */
    case 2:
        r += 5;
        break;
    case 5:
        for (int k = 0; k < 4; k++)
            r += k * v;
        break;
    default:
        r = -1;
    }
    for (int k = 0; k < (v & 15); k++) {
        if (k == 3)
            continue;
        if (k == 11)
            break;
        r += k;
    }
    int w = v < 0 ? -v : v;
    do {
        r ^= w;
        w >>= 1;
    } while (w > 3);
    int g = v;
    for (;;) {
        g *= 2;
        if (g >= 200 || g <= -200)
            break;
        g += 3;
    }
    int arr[6] = {v, 3, -v, 7, v * 2, 1};
    return r + zc_collatz((v < 0 ? -v : v) % 97 + 1) * 1000 + g + zc_sum_sorted(arr, 6);
}

static void spirv_control_flow(void **state) {
    zc_sx *s = *state;
    const uint32_t n = 512;
    int32_t *in = zc_spirv_buffer(s, n * 4), *out = zc_spirv_buffer(s, n * 4);
    uint64_t seed = 5;
    for (uint32_t i = 0; i < n; i++) {
        in[i] = i < 8 ? (int32_t)i - 1 : (int32_t)(zc_rand(&seed) % 1100) - 100;
        out[i] = -777;
    }
    zc_arg args[] = {ZC_PTR(in), ZC_PTR(out)};
    zc_spirv_run(s, "spirv_control", "control", n, 32, args, 2);
    for (uint32_t i = 0; i < n; i++) {
        int want = zc_control_expected(in[i], -777);
        if (out[i] != want)
            zc_fail("item %u (input %d): %d, expected %d", i, in[i], out[i], want);
    }
    zc_free(&s->x, in);
    zc_free(&s->x, out);
}

/* spirv_irreducible.spvasm: a loop with two entries, lanes of a wave entering at either. */
static uint32_t zc_irreducible_expected(uint32_t i) {
    uint32_t x = i % 5, steps = 0;
    bool at_b = (i & 1) != 0;
    for (;;) {
        x = at_b ? 3 * x + 1 : x + 7;
        steps++;
        if (x >= 100)
            return 1000 * x + steps;
        at_b = !at_b;
    }
}

static void spirv_irreducible_control_flow(void **state) {
    zc_sx *s = *state;
    const uint32_t n = 256;
    uint32_t *out = zc_spirv_buffer(s, n * 4);
    zc_arg args[] = {ZC_PTR(out)};
    zc_spirv_run(s, "spirv_irreducible", "irreducible", n, 64, args, 1);
    for (uint32_t i = 0; i < n; i++)
        if (out[i] != zc_irreducible_expected(i))
            zc_fail("item %u: %u, expected %u", i, out[i], zc_irreducible_expected(i));
    zc_free(&s->x, out);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Structs, built-in ids, vectors */

typedef struct zc_item {
    int32_t id;
    float weight;
    int8_t tag[3];
    int64_t total;
    float point[2];
} zc_item;

static zc_item zc_combine(zc_item a, const zc_item *b) {
    zc_item r = a;
    r.total = a.total * 3 + b->total;
    r.weight = a.weight + b->weight;
    r.point[0] = a.point[0] * b->point[0];
    r.point[1] = a.point[1] * b->point[1];
    r.tag[1] = (int8_t)(a.tag[0] + b->tag[2]);
    return r;
}

static void spirv_structs_by_value_and_in_private_memory(void **state) {
    zc_sx *s = *state;
    const uint32_t n = 64;
    zc_item *in = zc_spirv_buffer(s, n * sizeof *in), *out = zc_spirv_buffer(s, n * sizeof *out);
    for (uint32_t i = 0; i < n; i++)
        in[i] = (zc_item){(int32_t)i * 7 - 100,
                          (float)i * 0.5f,
                          {(int8_t)i, (int8_t)(i * 3), (int8_t)(100 - i)},
                          (int64_t)i * 1000 - 5000,
                          {(float)i / 4, 2.0f - (float)i / 8}};
    zc_item seed = {3, 1.25f, {1, 2, 3}, 17, {1.5f, -2.0f}};
    uint32_t count = n;
    zc_arg args[] = {ZC_VAL(seed), ZC_PTR(in), ZC_PTR(out), ZC_VAL(count)};
    zc_spirv_run(s, "spirv_data", "structs", n, 16, args, 4);
    for (uint32_t i = 0; i < n; i++) {
        zc_item items[4], acc = seed;
        for (uint32_t k = 0; k < 4; k++) {
            items[k] = in[(i + k) % n];
            items[k].id += (int32_t)k;
        }
        for (uint32_t k = 0; k < 4; k++)
            if ((items[k].id + (int32_t)i) % 3 != 0)
                acc = zc_combine(acc, &items[k]);
        int32_t bits;
        memcpy(&bits, &acc.weight, 4);
        acc.id = bits ^ (int32_t)i;
        if (out[i].id != acc.id || out[i].total != acc.total || out[i].weight != acc.weight ||
            out[i].point[0] != acc.point[0] || out[i].point[1] != acc.point[1] || out[i].tag[1] != acc.tag[1] ||
            out[i].tag[0] != acc.tag[0] || out[i].tag[2] != acc.tag[2])
            zc_fail("item %u: id %d total %lld weight %g, expected %d %lld %g", i, out[i].id, (long long)out[i].total,
                    (double)out[i].weight, acc.id, (long long)acc.total, (double)acc.weight);
    }
    zc_free(&s->x, in);
    zc_free(&s->x, out);
}

static void spirv_builtin_ids_of_a_3d_launch_with_offset(void **state) {
    zc_sx *s = *state;
    const uint32_t size[3] = {4, 2, 2}, groups[3] = {2, 3, 2}, offset[3] = {5, 7, 11};
    const uint32_t total = size[0] * size[1] * size[2] * groups[0] * groups[1] * groups[2];
    uint64_t *out = zc_spirv_buffer(s, total * 20 * 8);
    ze_kernel_handle_t kernel = zc_kernel_create(zc_spirv_module(s, "spirv_data"), "ids");
    zc_assert_success(zeKernelSetArgumentValue(kernel, 0, sizeof out, &out));
    zc_assert_success(zeKernelSetGroupSize(kernel, size[0], size[1], size[2]));
    bool with_offset = zeKernelSetGlobalOffsetExp(kernel, offset[0], offset[1], offset[2]) == ZE_RESULT_SUCCESS;
    ze_kernel_properties_t props = {.stype = ZE_STRUCTURE_TYPE_KERNEL_PROPERTIES};
    zc_assert_success(zeKernelGetProperties(kernel, &props));
    ze_group_count_t count = {groups[0], groups[1], groups[2]};
    zc_assert_success(zeCommandListAppendLaunchKernel(s->list, kernel, &count, NULL, 0, NULL));
    zc_assert_success(zeKernelDestroy(kernel));
    uint32_t items = size[0] * size[1] * size[2], sg = props.maxSubgroupSize;
    for (uint32_t z = 0; z < groups[2] * size[2]; z++)
        for (uint32_t y = 0; y < groups[1] * size[1]; y++)
            for (uint32_t x = 0; x < groups[0] * size[0]; x++) {
                uint32_t g[3] = {x, y, z}, linear = (z * groups[1] * size[1] + y) * groups[0] * size[0] + x;
                const uint64_t *o = out + (size_t)linear * 20;
                uint32_t local[3] = {x % size[0], y % size[1], z % size[2]};
                uint32_t local_linear = (local[2] * size[1] + local[1]) * size[0] + local[0];
                for (int d = 0; d < 3; d++) {
                    uint64_t off = with_offset ? offset[d] : 0;
                    uint64_t want[4] = {g[d] + off, local[d], g[d] / size[d],
                                        (uint64_t)groups[d] * size[d] * 1000 + size[d] * 10 + groups[d] + off * 100000};
                    for (int k = 0; k < 4; k++)
                        if (o[3 * k + d] != want[k])
                            zc_fail("work-item (%u,%u,%u): value %d of dimension %d is %llu, expected %llu", x, y, z, k,
                                    d, (unsigned long long)o[3 * k + d], (unsigned long long)want[k]);
                }
                uint64_t tail[8] = {linear,
                                    local_linear,
                                    3,
                                    items - local_linear / sg * sg < sg ? items - local_linear / sg * sg : sg,
                                    sg,
                                    (items + sg - 1) / sg,
                                    local_linear / sg,
                                    local_linear % sg};
                for (int k = 0; k < 8; k++)
                    if (o[12 + k] != tail[k])
                        zc_fail("work-item (%u,%u,%u): id %d is %llu, expected %llu", x, y, z, 12 + k,
                                (unsigned long long)o[12 + k], (unsigned long long)tail[k]);
            }
    zc_free(&s->x, out);
}

static int32_t zc_bits(float f) {
    int32_t b;
    memcpy(&b, &f, 4);
    return b;
}

static uint16_t zc_half_rtn(float x) {
    uint16_t h = zc_float_to_half(x);
    float back = zc_half_to_float(h);
    if (back > x) /* one step down: toward -infinity */
        h = (uint16_t)(x > 0 || (x == 0 && !signbit(x)) ? h - 1 : h + 1);
    return h;
}

static void zc_vectors_check(uint32_t i, uint32_t g, const float *f, const int32_t *n, const uint16_t *h,
                             const float *out, const int32_t *io) {
    const float *v = &f[4 * i], *t = &f[1 + 3 * i], *w = &f[i];
    const int32_t *k = &n[4 * i];
    for (int c = 0; c < 4; c++)
        if (out[4 * i + c] != v[3 - c] * 2.0f || h[4 * i + c] != zc_float_to_half(v[c]))
            zc_fail("item %u: vstore4 or vstore_half4 component %d", i, c);
    for (int c = 0; c < 3; c++)
        if (out[4 * g + 3 * i + c] != t[c] + (float)(c + 1))
            zc_fail("item %u: vstore3 component %d", i, c);
    if (h[4 * g + i] != zc_half_rtn(t[1]))
        zc_fail("item %u: vstore_half_rtn of %a gave 0x%04x, expected 0x%04x", i, (double)t[1], h[4 * g + i],
                zc_half_rtn(t[1]));
    float back[4];
    for (int c = 0; c < 4; c++)
        back[c] = zc_half_to_float(zc_float_to_half(v[c]));
    float sh[4] = {v[3], v[0], v[(k[0] & 7) & 3], v[1]};
    float sh2[8] = {back[3], back[2], back[1], back[0], v[0], v[1], v[2], v[3]};
    int pick = k[1] & 3;
    int dyn[2] = {k[2], k[3]};
    dyn[k[0] & 1] = 99;
    float dot = v[0] * w[1];
    dot += v[2] * w[3];
    int32_t want[8] = {zc_bits(((sh[0] + sh[1]) + sh[2]) + sh[3]),
                       zc_bits((sh2[0] - sh2[7]) + sh2[3] * sh2[4]),
                       zc_bits((v[pick] + w[7]) + back[3]),
                       (k[0] > 10 || k[1] > 10 || k[2] > 10 || k[3] > 10) +
                           (k[0] > -10 && k[1] > -10 && k[2] > -10 && k[3] > -10) * 2 +
                           (v[0] > 1.5f || v[1] > 1.5f) * 4,
                       -(v[0] > 2.0f) - 2 * (v[1] > 2.0f) - 4 * (v[2] > 2.0f) - 8 * (v[3] > 2.0f),
                       zc_bits(dot),
                       dyn[0] * 1000 + dyn[1],
                       h[4 * g + i]};
    for (int c = 0; c < 8; c++)
        if (io[8 * i + c] != want[c])
            zc_fail("item %u: result %d is %d (0x%x), expected %d (0x%x)", i, c, io[8 * i + c], io[8 * i + c], want[c],
                    want[c]);
}

static void spirv_vector_loads_stores_and_shuffles(void **state) {
    zc_sx *s = *state;
    const uint32_t g = 64;
    float *f = zc_spirv_buffer(s, (4 * g + 16) * 4), *out = zc_spirv_buffer(s, 8 * g * 4);
    int32_t *n = zc_spirv_buffer(s, 4 * g * 4), *io = zc_spirv_buffer(s, 8 * g * 4);
    uint16_t *h = zc_spirv_buffer(s, 6 * g * 2);
    for (uint32_t i = 0; i < 4 * g + 16; i++)
        f[i] = (float)((int)(i * 29 % 41) - 20) / 6.0f;
    for (uint32_t i = 0; i < 4 * g; i++)
        n[i] = (int32_t)(i * 13 % 31) - 12;
    zc_arg args[] = {ZC_PTR(f), ZC_PTR(n), ZC_PTR(h), ZC_PTR(out), ZC_PTR(io)};
    zc_spirv_run(s, "spirv_data", "vectors", g, 16, args, 5);
    for (uint32_t i = 0; i < g; i++)
        zc_vectors_check(i, g, f, n, h, out, io);
    zc_free(&s->x, f);
    zc_free(&s->x, out);
    zc_free(&s->x, n);
    zc_free(&s->x, io);
    zc_free(&s->x, h);
}

/* spirv_pointers.cl (OpenCL C 1.2, -fwrapv): OpPtrAccessChain walks, and the OpenCL 1.1 atomic functions. */
typedef struct zc_pair {
    int32_t key;
    int16_t weight[3];
} zc_pair;

static int32_t zc_walk_expected(const int32_t *in, uint32_t i, int32_t stride) {
    uint32_t sum = 0; /* the kernel's int arithmetic wraps (-fwrapv) */
    for (int32_t k = 3; k >= 0; k--)
        sum = sum * 3u + (uint32_t)in[i + (uint32_t)(k * stride)];
    return (int32_t)sum;
}

static void spirv_opencl12_pointer_walks_and_atomics(void **state) {
    zc_sx *s = *state;
    const uint32_t n = 192;
    const int32_t stride = 5;
    int32_t *in = zc_spirv_buffer(s, (n + 3 * stride) * 4), *out = zc_spirv_buffer(s, n * 2 * 4);
    zc_pair *pairs = zc_spirv_buffer(s, n * sizeof *pairs);
    int32_t *totals = zc_spirv_buffer(s, 2 * 4);
    uint64_t seed = 99;
    for (uint32_t i = 0; i < n + 3 * stride; i++)
        in[i] = (int32_t)zc_rand(&seed);
    int32_t want_sum = 0, want_max = INT32_MIN;
    for (uint32_t i = 0; i < n; i++) {
        pairs[i] = (zc_pair){(int32_t)(zc_rand(&seed) % 100000) - 50000,
                             {(int16_t)(i * 3), (int16_t)(-(int32_t)i), (int16_t)(i % 17 - 8)}};
        want_sum += pairs[i].weight[2];
        want_max = pairs[i].key > want_max ? pairs[i].key : want_max;
    }
    totals[1] = INT32_MIN;
    zc_arg args[] = {ZC_PTR(in), ZC_PTR(out), ZC_PTR(pairs), ZC_PTR(totals), ZC_VAL(stride)};
    zc_spirv_run(s, "spirv_pointers", "walk", n, 64, args, 5);
    for (uint32_t i = 0; i < n; i++) {
        int32_t walk = zc_walk_expected(in, i, stride), member = pairs[i].key + pairs[i].weight[i % 3];
        if (out[2 * i] != walk || out[2 * i + 1] != member)
            zc_fail("item %u: walk %d and member %d, expected %d and %d", i, out[2 * i], out[2 * i + 1], walk, member);
    }
    assert_int_equal(totals[0], want_sum);
    assert_int_equal(totals[1], want_max);
    zc_free(&s->x, in);
    zc_free(&s->x, out);
    zc_free(&s->x, pairs);
    zc_free(&s->x, totals);
}

/* spirv_core_ops.spvasm: core instructions clang never emits for OpenCL C. */
static uint32_t zc_smod(int32_t x, int32_t y) {
    int32_t r = x % y;
    return (uint32_t)(r != 0 && (r < 0) != (y < 0) ? r + y : r);
}

static float zc_fmod_sign_of_divisor(float x, float y) {
    float r = fmodf(x, y);
    return r != 0 && signbit(r) != signbit(y) ? (float)((double)r + y) : r;
}

static uint32_t zc_bit_reversed(uint32_t x) {
    uint32_t r = 0;
    for (int k = 0; k < 32; k++)
        r |= ((x >> k) & 1u) << (31 - k);
    return r;
}

static void zc_core_ops_expected(uint32_t x, uint32_t y, float fx, float fy, uint32_t *r, float *f) {
    int32_t sx = (int32_t)x, sy = (int32_t)y;
    bool xp = sx > 0, yp = sy > 0, unordered = isnan(fx) || isnan(fy);
    uint64_t up = (uint64_t)x * y;
    int64_t sp = (int64_t)sx * sy;
    uint32_t logic = (xp && yp) | (xp || yp) << 1 | !xp << 2 | (xp == yp) << 3 | (xp != yp) << 4;
    uint32_t cmps = (sx >= sy) | (x <= y) << 1 | (sx <= sy) << 2;
    uint32_t fcmps = (unordered || fx == fy) | (unordered || fx < fy) << 1 | (unordered || fx > fy) << 2 |
                     (unordered || fx <= fy) << 3 | (unordered || fx >= fy) << 4 | (fx < fy || fx > fy) << 5;
    uint32_t want[18] = {0u - x,
                         zc_smod(sx, sy),
                         (uint32_t)(sx % sy),
                         zc_bit_reversed(x),
                         ~x,
                         logic,
                         cmps,
                         x + y,
                         x + y < x,
                         x - y,
                         x < y,
                         (uint32_t)up,
                         (uint32_t)(up >> 32),
                         (uint32_t)sp,
                         (uint32_t)((uint64_t)sp >> 32),
                         x,
                         y,
                         fcmps};
    memcpy(r, want, sizeof want);
    f[0] = fmodf(fx, fy);
    f[1] = zc_fmod_sign_of_divisor(fx, fy);
    f[2] = fx * fx;
    f[3] = fy * fx;
}

static bool zc_same_float(float a, float b) {
    return (isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof a) == 0;
}

static void spirv_core_instructions_clang_does_not_emit(void **state) {
    zc_sx *s = *state;
    static const float special[] = {7.5f, -7.5f, 2.25f, -2.0f, 0.0f, -0.0f, NAN, INFINITY, 1e-3f, 3.0f};
    enum { N = 400, K = 18, STRIDE = 20, M = ZC_COUNT(special) };
    uint32_t *a = zc_spirv_buffer(s, N * 4), *b = zc_spirv_buffer(s, N * 4), *o = zc_spirv_buffer(s, N * STRIDE * 4);
    float *fa = zc_spirv_buffer(s, N * 4), *fb = zc_spirv_buffer(s, N * 4), *fo = zc_spirv_buffer(s, N * 4 * 4);
    uint64_t seed = 31;
    for (uint32_t i = 0; i < N; i++) {
        a[i] = i == 0 ? 0x80000000u : (uint32_t)zc_rand(&seed) >> (i % 29);
        b[i] = (uint32_t)zc_rand(&seed) >> (i % 31);
        if (i % 4 == 1)
            b[i] = 0u - b[i];
        if (b[i] == 0 || b[i] == UINT32_MAX) /* undefined for the division instructions */
            b[i] = 3;
        fa[i] = special[i % M];
        fb[i] = i < M * M ? special[i / M] : (float)(int32_t)(zc_rand(&seed) % 2001 - 1000) / 16.0f;
    }
    memset(o, 0xa5, N * STRIDE * 4); /* slots 18 and 19 of each work-item stay so */
    zc_arg args[] = {ZC_PTR(a), ZC_PTR(b), ZC_PTR(fa), ZC_PTR(fb), ZC_PTR(o), ZC_PTR(fo)};
    zc_spirv_run(s, "spirv_core_ops", "core_ops", N, 16, args, 6);
    for (uint32_t i = 0; i < N; i++) {
        uint32_t want[K];
        float fwant[4];
        zc_core_ops_expected(a[i], b[i], fa[i], fb[i], want, fwant);
        for (uint32_t k = 0; k < K; k++)
            if (o[i * STRIDE + k] != want[k])
                zc_fail("core instruction %u of (0x%x, 0x%x, %a, %a): 0x%x, expected 0x%x", k, a[i], b[i],
                        (double)fa[i], (double)fb[i], o[i * STRIDE + k], want[k]);
        if (o[i * STRIDE + 18] != 0xa5a5a5a5u || o[i * STRIDE + 19] != 0xa5a5a5a5u)
            zc_fail("work-item %u wrote past its 18 results", i);
        for (uint32_t k = 0; k < 4; k++)
            if (!zc_same_float(fo[i * 4 + k], fwant[k]))
                zc_fail("float core instruction %u of (%a, %a): %a, expected %a", k, (double)fa[i], (double)fb[i],
                        (double)fo[i * 4 + k], (double)fwant[k]);
    }
    void *buffers[] = {a, b, o, fa, fb, fo};
    for (size_t i = 0; i < ZC_COUNT(buffers); i++)
        zc_free(&s->x, buffers[i]);
}

int main(int argc, char **argv) {
#define ZC_FIXTURE spirv
    static const struct CMUnitTest tests[] = {
        ZC_T(spirv_integer_arithmetic_of_every_width),
        ZC_T(spirv_float_arithmetic),
        ZC_T(spirv_vector_arithmetic),
        ZC_T(spirv_conversions_saturate_and_round),
        ZC_T(spirv_vector_conversions),
        ZC_T(spirv_control_flow),
        ZC_T(spirv_irreducible_control_flow),
        ZC_T(spirv_structs_by_value_and_in_private_memory),
        ZC_T(spirv_builtin_ids_of_a_3d_launch_with_offset),
        ZC_T(spirv_vector_loads_stores_and_shuffles),
        ZC_T(spirv_opencl12_pointer_walks_and_atomics),
        ZC_T(spirv_core_instructions_clang_does_not_emit),
    };
    static const zc_suite suite = {ZC_EXECUTABLE, tests, ZC_COUNT(tests), zc_setup_system, zc_teardown_system, NULL, 0};
    return zc_main(argc, argv, &suite);
}
