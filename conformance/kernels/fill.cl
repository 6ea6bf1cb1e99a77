/* Built-in kernel (docs/builtin-kernels.md): dst[i] = value for every work-item i. */
kernel void fill(global int *dst, int value)
{
    dst[get_global_id(0)] = value;
}
