/* Kernel attributes: a required work-group size and a vector type hint (zeKernelGetSourceAttributes). */
__attribute__((reqd_work_group_size(8, 4, 1))) __attribute__((vec_type_hint(float4)))
kernel void fixed_group(global int *out)
{
    out[get_global_id(0) + get_global_id(1) * get_global_size(0)] = 1;
}
