/* SPIR-V execution: images and samplers (test_spirv_memory.c): writes of every texel type, reads back with and
 * without samplers, nearest and linear filtering, normalized coordinates, the addressing modes and size queries. */
kernel void image_gradient(write_only image2d_t image)
{
    int x = get_global_id(0), y = get_global_id(1);
    write_imagef(image, (int2)(x, y), (float4)(x / 15.0f, y / 15.0f, (x + y) / 30.0f, 1.0f));
}

kernel void image_read_int(read_only image2d_t image, global uint4 *out)
{
    int x = get_global_id(0), y = get_global_id(1);
    out[y * get_image_width(image) + x] = read_imageui(image, (int2)(x, y));
}

kernel void image_write_int(write_only image2d_t image, int bias)
{
    int x = get_global_id(0), y = get_global_id(1);
    write_imagei(image, (int2)(x, y), (int4)(x * 40 - 100 + bias, y - 300, x * y, -x));
}

kernel void image_sample(read_only image2d_t image, sampler_t sampler, global const float2 *coords, global float4 *out)
{
    size_t i = get_global_id(0);
    out[i] = read_imagef(image, sampler, coords[i]);
}

const sampler_t inline_sampler = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;

kernel void image_inline_sampler(read_only image2d_t image, global float4 *out)
{
    int x = get_global_id(0), y = get_global_id(1);
    out[y * get_global_size(0) + x] = read_imagef(image, inline_sampler, (int2)(x - 2, y + 3));
}

kernel void image_query(read_only image3d_t volume, read_only image2d_array_t array, global int *out)
{
    out[0] = get_image_width(volume);
    out[1] = get_image_height(volume);
    out[2] = get_image_depth(volume);
    out[3] = (int)get_image_array_size(array);
    out[4] = get_image_channel_data_type(array);
    out[5] = get_image_channel_order(array);
}
