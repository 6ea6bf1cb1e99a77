// Built-in functions and instructions the rest of the corpus does not reach (docs/spirv-execution.md, "Limits and
// known gaps"), each against the host's computation (conformance/core/test_spirv_math.c).
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

/* Float functions of x in [0.25, 10), y in [0.5, 10). */
#define ZC_RARE_FLOAT 45
kernel void rare_float(global const float *a, global const float *b, global float *o)
{
    size_t i = get_global_id(0);
    float x = a[i], y = b[i], whole;
    global float *r = o + i * ZC_RARE_FLOAT;
    r[0] = acospi(x / 11);
    r[1] = asinpi(x / 11);
    r[2] = atanpi(x);
    r[3] = atan2pi(x, y);
    r[4] = tanpi(x / 23);
    r[5] = minmag(x, y - 5);
    r[6] = modf(x * 1.75f, &whole);
    r[7] = whole;
    r[8] = max(x, y);  /* fmax_common */
    r[9] = min(x, y);  /* fmin_common */
    r[10] = fast_length((float2)(x, y));
    r[11] = fast_distance((float2)(x, y), (float2)(y, 1));
    r[12] = fast_normalize((float2)(x, y)).y;
    r[13] = bitselect(x, y, as_float(0xffff0000u));
    r[14] = half_sin(x);
    r[15] = half_exp(x / 4);
    r[16] = half_sqrt(x);
    r[17] = half_recip(y);
    r[18] = half_divide(x, y);
    r[19] = native_cos(x);
    r[20] = native_log2(x);
    r[21] = native_rsqrt(x);
    r[22] = native_powr(x, y / 4);
    r[23] = nan(0x12345u) != nan(0x12345u) ? 1.0f : 0.0f;
    r[24] = as_float(as_uint(nan(0x12345u)) & 0x3fffffu); /* the payload, as the bits of a float */
    r[25] = mad(x, y, 1.0f);
    r[26] = half_cos(x);
    r[27] = half_exp2(x);
    r[28] = half_exp10(x / 4);
    r[29] = half_log(x);
    r[30] = half_log2(x);
    r[31] = half_log10(x);
    r[32] = half_powr(x, y / 4);
    r[33] = half_rsqrt(x);
    r[34] = half_tan(x / 23);
    r[35] = native_sin(x);
    r[36] = native_tan(x / 23);
    r[37] = native_exp(x / 4);
    r[38] = native_exp2(x);
    r[39] = native_exp10(x / 4);
    r[40] = native_log(x);
    r[41] = native_log10(x);
    r[42] = native_sqrt(x);
    r[43] = native_recip(y);
    r[44] = native_divide(x, y);
}

/* Unsigned integer functions. */
#define ZC_RARE_UINT 14
kernel void rare_uint(global const uint *a, global const uint *b, global const uint *c, global uint *o)
{
    size_t i = get_global_id(0);
    uint x = a[i], y = b[i], z = c[i];
    global uint *r = o + i * ZC_RARE_UINT;
    r[0] = abs(x);
    r[1] = abs_diff(x, y);
    r[2] = clamp(x, 1000u, 0x80000000u);
    r[3] = hadd(x, y);
    r[4] = rhadd(x, y);
    r[5] = mad24(x & 0xffffffu, y & 0xffffffu, z); /* 24-bit operands: other values give what the device gives */
    r[6] = mul24(x & 0xffffffu, y & 0xffffffu);
    r[7] = mad_hi(x, y, z);
    r[8] = mad_sat(x, y, z);
    r[9] = sub_sat(x, y);
    r[10] = max(x, y) ^ min(y, z);
    r[11] = (uint)(upsample((int)x, y) >> 40);
    r[12] = (uint)upsample((short)x, (ushort)y);
    r[13] = bitselect(x, y, z);
}

/* Relational functions of any floats: NaNs, infinities, zeros, subnormals. */
#define ZC_RARE_REL 10
kernel void rare_relational(global const float *a, global const float *b, global int *o)
{
    size_t i = get_global_id(0);
    float x = a[i], y = b[i];
    global int *r = o + i * ZC_RARE_REL;
    r[0] = isnan(x);
    r[1] = isinf(x);
    r[2] = isfinite(x);
    r[3] = isnormal(x);
    r[4] = signbit(x);
    r[5] = isordered(x, y);
    r[6] = isunordered(x, y);
    r[7] = islessgreater(x, y);
    r[8] = isgreaterequal(x, y) * 2 + islessequal(x, y);
    r[9] = any(isnan((float4)(x, y, 1, 2))) * 2 + all(isfinite((float4)(x, y, 1, 2)));
}

/* Half conversions with each rounding mode, aligned and not: item i owns halves 12i to 12i + 11. */
kernel void rare_half(global const float *a, global half *h, global float *o)
{
    size_t i = get_global_id(0);
    float4 v = vload4(i, a);
    vstore_half(v.x, i * 12, h);
    vstore_half_rtz(v.y, i * 12 + 1, h);
    vstore_half2_rtp((float2)(v.z, v.w), i * 6 + 1, h);
    vstorea_half4(v, i * 3 + 1, h);
    vstorea_half4_rtn(v, i * 3 + 2, h);
    prefetch(a + i * 4, 4);
    o[i * 2 + 0] = vload_half(i * 12 + 1, h);
    o[i * 2 + 1] = vloada_half4(i * 3 + 2, h).w;
}

/* Each work-item subtracts, takes minima and maxima and exchanges into counters shared by all; compares and swaps in
 * a slot of its own (the host writes slot i as 2i: the swap succeeds where i % 3 == 0). */
kernel void rare_atomics(global const uint *values, global uint *shared, global uint *slots, global uint *old,
                         global atomic_flag *flag, global int *flag_seen)
{
    size_t i = get_global_id(0);
    uint v = values[i];
    atomic_sub(&shared[0], v);
    atomic_min(&shared[1], v);
    atomic_max(&shared[2], v);
    atomic_xchg(&shared[3], v);
    old[i] = atomic_cmpxchg(&slots[i], i % 3 == 0 ? (uint)i * 2 : 1u, (uint)i + 5);
    if (i == 0) {
        flag_seen[0] = atomic_flag_test_and_set(flag);
        atomic_flag_clear(flag);
        flag_seen[1] = atomic_flag_test_and_set(flag);
        atomic_flag_clear_explicit(flag, memory_order_release);
    }
}
