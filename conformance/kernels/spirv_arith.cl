/* SPIR-V execution: arithmetic of every integer and floating-point type, scalar and vector (test_spirv_exec.c
 * computes the same on the host). Each work-item reads a[i], b[i] and writes ZC_OPS results at out[i * ZC_OPS]. Inputs
 * keep divisors non-zero and away from MIN / -1, as OpenCL leaves those undefined. */
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

#define ZC_OPS 16

#define ARITH_INT(T, NAME)                                                                                            \
    kernel void arith_##NAME(global const T *a, global const T *b, global T *out)                                     \
    {                                                                                                                  \
        size_t i = get_global_id(0);                                                                                   \
        T x = a[i], y = b[i];                                                                                          \
        global T *o = out + i * ZC_OPS;                                                                                \
        o[0] = x + y;                                                                                                  \
        o[1] = x - y;                                                                                                  \
        o[2] = x * y;                                                                                                  \
        o[3] = x / y;                                                                                                  \
        o[4] = (T)(x + 1) % y; /* not x % y: with x / y clang emits a freeze llvm-spirv 14 cannot translate */   \
        o[5] = x & y;                                                                                                  \
        o[6] = x | y;                                                                                                  \
        o[7] = x ^ y;                                                                                                  \
        o[8] = x << y;                                                                                                 \
        o[9] = x >> y;                                                                                                 \
        o[10] = ~x;                                                                                                    \
        o[11] = -x;                                                                                                    \
        o[12] = (x < y) + (x <= y) * 2 + (x > y) * 4 + (x >= y) * 8 + (x == y) * 16 + (x != y) * 32;                  \
        o[13] = max(x, y) - min(x, y);                                                                                 \
        o[14] = x > y ? x : y + 1;                                                                                     \
        o[15] = (T)(x * 3 + y * 5) >> 1;                                                                               \
    }

ARITH_INT(char, char)
ARITH_INT(uchar, uchar)
ARITH_INT(short, short)
ARITH_INT(ushort, ushort)
ARITH_INT(int, int)
ARITH_INT(uint, uint)
ARITH_INT(long, long)
ARITH_INT(ulong, ulong)

#define ARITH_FLOAT(T, NAME)                                                                                          \
    kernel void arith_##NAME(global const T *a, global const T *b, global T *out)                                     \
    {                                                                                                                  \
        size_t i = get_global_id(0);                                                                                   \
        T x = a[i], y = b[i];                                                                                          \
        global T *o = out + i * ZC_OPS;                                                                                \
        o[0] = x + y;                                                                                                  \
        o[1] = x - y;                                                                                                  \
        o[2] = x * y;                                                                                                  \
        o[3] = x / y;                                                                                                  \
        o[4] = fmod(x, y);                                                                                             \
        o[5] = -x;                                                                                                     \
        o[6] = (x < y) + (x <= y) * 2 + (x > y) * 4 + (x >= y) * 8 + (x == y) * 16 + (x != y) * 32;                   \
        o[7] = fmax(x, y);                                                                                             \
        o[8] = fmin(x, y);                                                                                             \
        o[9] = x * y + x;                                                                                              \
        o[10] = fabs(x);                                                                                               \
        o[11] = floor(x);                                                                                              \
        o[12] = ceil(y);                                                                                               \
        o[13] = trunc(x / y);                                                                                          \
        o[14] = x > y ? x : y;                                                                                         \
        o[15] = sqrt(fabs(x));                                                                                         \
    }

ARITH_FLOAT(float, float)
ARITH_FLOAT(double, double)
ARITH_FLOAT(half, half)

/* Vectors: the same element-wise operations on whole vectors (out holds ZC_VOPS vectors per work-item). */
#define ZC_VOPS 8
#define ARITH_VEC(T, NAME, SELECT)                                                                                    \
    kernel void vec_##NAME(global const T *a, global const T *b, global T *out)                                       \
    {                                                                                                                  \
        size_t i = get_global_id(0);                                                                                   \
        T x = a[i], y = b[i];                                                                                          \
        global T *o = out + i * ZC_VOPS;                                                                               \
        o[0] = x + y;                                                                                                  \
        o[1] = x - y;                                                                                                  \
        o[2] = x * y;                                                                                                  \
        o[3] = max(x, y);                                                                                              \
        o[4] = min(x, y);                                                                                              \
        o[5] = select(x, y, SELECT(x < y));                                                                            \
        o[6] = x.s0 + y;                                                                                               \
        o[7] = -x;                                                                                                     \
    }
#define AS_IS(v) (v)

ARITH_VEC(int4, int4, AS_IS)
ARITH_VEC(uchar16, uchar16, as_uchar16)
ARITH_VEC(short8, short8, AS_IS)
ARITH_VEC(long2, long2, AS_IS)
ARITH_VEC(float4, float4, AS_IS)
ARITH_VEC(float3, float3, AS_IS)
ARITH_VEC(double2, double2, AS_IS)
ARITH_VEC(uint3, uint3, as_uint3)
