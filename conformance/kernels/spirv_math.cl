/* SPIR-V execution: the OpenCL math, integer, common and geometric built-in functions (the OpenCL extended
 * instruction set). test_spirv_exec.c compares each with the host's C library within the precision OpenCL requires. */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

#define ZC_MATH 48
kernel void math_float(global const float *a, global const float *b, global const float *c, global float *o)
{
    size_t i = get_global_id(0);
    float x = a[i], y = b[i], z = c[i];
    global float *r = o + i * ZC_MATH;
    r[0] = sin(x);
    r[1] = cos(x);
    r[2] = tan(x);
    r[3] = asin(x / 11);
    r[4] = acos(x / 11);
    r[5] = atan(x);
    r[6] = atan2(x, y);
    r[7] = sinh(x / 4);
    r[8] = cosh(x / 4);
    r[9] = tanh(x);
    r[10] = asinh(x);
    r[11] = acosh(x + 1);
    r[12] = atanh(x / 11);
    r[13] = exp(x / 2);
    r[14] = exp2(x);
    r[15] = exp10(x / 3);
    r[16] = expm1(x / 2);
    r[17] = log(x);
    r[18] = log2(x);
    r[19] = log10(x);
    r[20] = log1p(x);
    r[21] = cbrt(x);
    r[22] = pow(x, y / 3);
    r[23] = pown(x, 3);
    r[24] = powr(x, y / 4);
    r[25] = rootn(x, 3);
    r[26] = hypot(x, y);
    r[27] = fma(x, y, z);
    r[28] = fdim(x, y);
    r[29] = fmod(x, y);
    r[30] = remainder(x, y);
    r[31] = copysign(x, -y);
    r[32] = logb(x);
    r[33] = ldexp(x, 3);
    r[34] = nextafter(x, y);
    r[35] = sinpi(x / 3);
    r[36] = cospi(x / 3);
    r[37] = erf(x / 4);
    r[38] = erfc(x / 4);
    r[39] = tgamma(x / 2 + 0.5f);
    r[40] = lgamma(x);
    r[41] = rsqrt(x);
    r[42] = rint(x * 3);
    r[43] = round(x * 3);
    r[44] = maxmag(x, -y);
    r[45] = mix(x, y, 0.25f);
    r[46] = smoothstep(1.0f, 9.0f, x);
    r[47] = (float)ilogb(x) + step(5.0f, x) + sign(y - 5) + degrees(1.0f) * radians(x);
}

#define ZC_DMATH 16
kernel void math_double(global const double *a, global const double *b, global double *o)
{
    size_t i = get_global_id(0);
    double x = a[i], y = b[i];
    global double *r = o + i * ZC_DMATH;
    r[0] = sin(x);
    r[1] = cos(x);
    r[2] = exp(x / 2);
    r[3] = log(x);
    r[4] = pow(x, y / 3);
    r[5] = sqrt(x);
    r[6] = atan2(x, y);
    r[7] = fma(x, y, x);
    r[8] = cbrt(x);
    r[9] = hypot(x, y);
    r[10] = tanh(x);
    r[11] = floor(x * 3) + ceil(y * 3);
    r[12] = fmin(x, y) + fmax(x, y);
    r[13] = erf(x / 4);
    r[14] = log1p(x);
    r[15] = exp2(x);
}

/* Functions that also return through a pointer. */
kernel void math_pointers(global const float *a, global const float *b, global float *o, global int *n)
{
    size_t i = get_global_id(0);
    float x = a[i], y = b[i], whole, c;
    int e, q, s;
    o[i * 6 + 0] = fract(x * 1.5f, &whole);
    o[i * 6 + 1] = whole;
    o[i * 6 + 2] = frexp(x, &e);
    o[i * 6 + 3] = sincos(x, &c) + 4 * c;
    o[i * 6 + 4] = remquo(x, y, &q);
    o[i * 6 + 5] = lgamma_r(x, &s);
    n[i * 3 + 0] = e;
    n[i * 3 + 1] = q & 7; /* remquo promises the sign and at least 3 bits */
    n[i * 3 + 2] = s;
}

#define ZC_IMATH 20
kernel void math_int(global const int *a, global const int *b, global const int *c, global int *o)
{
    size_t i = get_global_id(0);
    int x = a[i], y = b[i], z = c[i];
    global int *r = o + i * ZC_IMATH;
    r[0] = clz(x);
    r[1] = ctz(x);
    r[2] = popcount(x);
    r[3] = mul_hi(x, y);
    r[4] = mad_hi(x, y, z);
    r[5] = add_sat(x, y);
    r[6] = sub_sat(x, y);
    r[7] = hadd(x, y);
    r[8] = rhadd(x, y);
    r[9] = rotate(x, y);
    r[10] = abs(x);
    r[11] = abs_diff(x, y);
    r[12] = clamp(x, -1000, 1000);
    r[13] = mad24(x, y, z);
    r[14] = mul24(x, y);
    r[15] = mad_sat(x, y, z);
    r[16] = (int)mul_hi((uint)x, (uint)y);
    r[17] = (int)add_sat((uint)x, (uint)y);
    r[18] = (int)(upsample((short)x, (ushort)y) >> 4);
    r[19] = min(x, y) ^ max(x, z);
}

kernel void math_long(global const long *a, global const long *b, global long *o)
{
    size_t i = get_global_id(0);
    long x = a[i], y = b[i];
    o[i * 6 + 0] = mul_hi(x, y);
    o[i * 6 + 1] = (long)mul_hi((ulong)x, (ulong)y);
    o[i * 6 + 2] = add_sat(x, y);
    o[i * 6 + 3] = clz(x) + popcount(y);
    o[i * 6 + 4] = rotate(x, y);
    o[i * 6 + 5] = (long)abs_diff(x, y);
}

kernel void geometry(global const float4 *a, global const float4 *b, global float4 *o, global float *s)
{
    size_t i = get_global_id(0);
    float4 x = a[i], y = b[i];
    o[i * 3 + 0] = cross(x, y);
    o[i * 3 + 1] = normalize(x);
    o[i * 3 + 2] = (float4)(cross(x.xyz, y.xyz), 0.0f);
    s[i * 4 + 0] = dot(x, y);
    s[i * 4 + 1] = length(x);
    s[i * 4 + 2] = distance(x, y);
    s[i * 4 + 3] = dot(x.xyz, y.xyz);
}
