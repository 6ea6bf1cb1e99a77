/* Image and sampler arguments (test_image, test_sampler): a kernel that samples an image and one that writes one. */
kernel void image_sample(read_only image2d_t image, sampler_t sampler, global float4 *out)
{
    int x = get_global_id(0), y = get_global_id(1);
    out[y * get_image_width(image) + x] = read_imagef(image, sampler, (int2)(x, y));
}

kernel void image_fill(write_only image2d_t image, float4 value)
{
    write_imagef(image, (int2)(get_global_id(0), get_global_id(1)), value);
}
