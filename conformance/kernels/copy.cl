/* Built-in kernels (docs/builtin-kernels.md): the fake driver computes these on the host, matched by name and
 * parameter signature. One work-item per element; launch exactly as many work-items as elements. */
kernel void copy(global int *dst, global const int *src)
{
    size_t i = get_global_id(0);
    dst[i] = src[i];
}

kernel void copy_bytes(global uchar *dst, global const uchar *src)
{
    size_t i = get_global_id(0);
    dst[i] = src[i];
}
