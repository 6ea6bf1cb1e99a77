/* Image reads and writes of every kind (test_spirv_engine.c, compiled_image_accesses_match_the_interpreter): each
 * work-item reads at its integer and float coordinates, without a sampler and with one, as floats, integers and
 * unsigned integers, and the results' bits are stored; or writes floats (even work-items) or integers (odd ones) at
 * coordinates of its own. */
#define ZC_READS()                                                                                                     \
    size_t i = get_global_id(0);                                                                                       \
    out[6 * i + 0] = as_uint4(read_imagef(image, ic[i]));                                                              \
    out[6 * i + 1] = as_uint4(read_imagef(image, sampler, ic[i]));                                                     \
    out[6 * i + 2] = as_uint4(read_imagef(image, sampler, fc[i]));                                                     \
    out[6 * i + 3] = as_uint4(read_imagei(image, ic[i]));                                                              \
    out[6 * i + 4] = read_imageui(image, sampler, ic[i]);                                                              \
    out[6 * i + 5] = as_uint4(read_imagei(image, sampler, fc[i]));

kernel void reads_1d(read_only image1d_t image, sampler_t sampler, global const int *ic, global const float *fc,
                     global uint4 *out)
{
    ZC_READS()
}

kernel void reads_2d(read_only image2d_t image, sampler_t sampler, global const int2 *ic, global const float2 *fc,
                     global uint4 *out)
{
    ZC_READS()
}

kernel void reads_3d(read_only image3d_t image, sampler_t sampler, global const int4 *ic, global const float4 *fc,
                     global uint4 *out)
{
    ZC_READS()
}

kernel void reads_1d_array(read_only image1d_array_t image, sampler_t sampler, global const int2 *ic,
                           global const float2 *fc, global uint4 *out)
{
    ZC_READS()
}

kernel void reads_2d_array(read_only image2d_array_t image, sampler_t sampler, global const int4 *ic,
                           global const float4 *fc, global uint4 *out)
{
    ZC_READS()
}

#define ZC_WRITES()                                                                                                    \
    size_t i = get_global_id(0);                                                                                       \
    if (i % 2 == 0)                                                                                                    \
        write_imagef(image, ic[i], as_float4(texel[i]));                                                               \
    else                                                                                                               \
        write_imagei(image, ic[i], as_int4(texel[i]));

kernel void writes_1d(write_only image1d_t image, global const int *ic, global const uint4 *texel)
{
    ZC_WRITES()
}

kernel void writes_2d(write_only image2d_t image, global const int2 *ic, global const uint4 *texel)
{
    ZC_WRITES()
}

kernel void writes_3d(write_only image3d_t image, global const int4 *ic, global const uint4 *texel)
{
    ZC_WRITES()
}

kernel void writes_1d_array(write_only image1d_array_t image, global const int2 *ic, global const uint4 *texel)
{
    ZC_WRITES()
}

kernel void writes_2d_array(write_only image2d_array_t image, global const int4 *ic, global const uint4 *texel)
{
    ZC_WRITES()
}
