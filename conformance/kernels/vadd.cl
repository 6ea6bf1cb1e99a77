/* Built-in kernels (docs/builtin-kernels.md): c[i] = a[i] + b[i]. */
kernel void vadd_int(global const int *a, global const int *b, global int *c)
{
    size_t i = get_global_id(0);
    c[i] = a[i] + b[i];
}

kernel void vadd_float(global const float *a, global const float *b, global float *c)
{
    size_t i = get_global_id(0);
    c[i] = a[i] + b[i];
}
