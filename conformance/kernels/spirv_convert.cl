/* SPIR-V execution: conversions between every kind of type, with the saturating and rounding-mode variants
 * (OpenCL C convert_<type>[_sat][_rte|_rtz|_rtp|_rtn]). test_spirv_exec.c computes the same on the host. */
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

typedef struct {
    int i_rtz, i_rte, i_rtp, i_rtn, i_sat;
    uint u_sat;
    char c_sat;
    uchar uc_sat;
    short s_sat;
    ushort us_sat;
    long l_sat;
    ulong ul_sat;
    float f_from_l_rtz, f_from_l_rtp, f_from_u, f_from_d_rtn, f_from_d_rtp;
    double d_from_f, d_from_l;
    uchar uc_from_i_sat;
    char c_from_u_sat;
    short s_from_l;
    half h_from_f, h_from_f_rtz;
    float f_from_h;
} conv_t;

kernel void convert_all(global const float *f, global const double *d, global const long *l, global conv_t *out)
{
    size_t i = get_global_id(0);
    float x = f[i];
    double y = d[i];
    long z = l[i];
    global conv_t *o = out + i;
    float bounded = clamp(x, -2.0e9f, 2.0e9f);
    o->i_rtz = convert_int_rtz(bounded);
    o->i_rte = convert_int_rte(bounded);
    o->i_rtp = convert_int_rtp(bounded);
    o->i_rtn = convert_int_rtn(bounded);
    o->i_sat = convert_int_sat(x);
    o->u_sat = convert_uint_sat(x);
    o->c_sat = convert_char_sat(x);
    o->uc_sat = convert_uchar_sat(x);
    o->s_sat = convert_short_sat_rte(x);
    o->us_sat = convert_ushort_sat(x);
    o->l_sat = convert_long_sat(y);
    o->ul_sat = convert_ulong_sat(y);
    o->f_from_l_rtz = convert_float_rtz(z);
    o->f_from_l_rtp = convert_float_rtp(z);
    o->f_from_u = convert_float((uint)z);
    o->f_from_d_rtn = convert_float_rtn(y);
    o->f_from_d_rtp = convert_float_rtp(y);
    o->d_from_f = x;
    o->d_from_l = convert_double(z);
    o->uc_from_i_sat = convert_uchar_sat((int)z);
    o->c_from_u_sat = convert_char_sat((uint)z);
    o->s_from_l = (short)z;
    o->h_from_f = convert_half(x);
    o->h_from_f_rtz = convert_half_rtz(x);
    o->f_from_h = (float)(half)x;
}

/* Vector conversions: a whole vector at once. */
kernel void convert_vectors(global const float4 *f, global int4 *sat, global uchar4 *bytes, global float4 *back)
{
    size_t i = get_global_id(0);
    sat[i] = convert_int4_sat_rtn(f[i]);
    bytes[i] = convert_uchar4_sat(f[i]);
    back[i] = convert_float4(convert_short4_sat(f[i]));
}
