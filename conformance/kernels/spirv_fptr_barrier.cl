/* SPIR-V execution: calls through a function pointer of functions that wait at a work-group barrier
 * (test_spirv_tools.c). Every work-item of the group calls the same function (chosen by an argument), which passes
 * the work-item's value through local memory and returns its right-hand or left-hand neighbour's. Built as
 * spirv_fptr.cl is (kernels.cmake). */
#pragma OPENCL EXTENSION __cl_clang_function_pointers : enable

typedef int (*exchange_t)(local int *, int);

__attribute__((noinline)) int from_right(local int *tile, int v)
{
    size_t l = get_local_id(0), n = get_local_size(0);
    tile[l] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    return tile[(l + 1) % n];
}

__attribute__((noinline)) int from_left(local int *tile, int v)
{
    size_t l = get_local_id(0), n = get_local_size(0);
    tile[l] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    return tile[(l + n - 1) % n];
}

kernel void neighbour(global int *p, uint left)
{
    local int tile[64];
    size_t i = get_global_id(0);
    exchange_t f = left ? from_left : from_right;
    p[i] = p[i] * 10 + f(tile, p[i]);
}
