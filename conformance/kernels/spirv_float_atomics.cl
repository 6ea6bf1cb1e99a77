/* SPIR-V execution: floating-point atomics (test_spirv_memory.c, and what ZE_extension_float_atomics reports):
 * OpAtomicFAddEXT on floats and doubles in global memory and on floats in local memory, OpAtomicFMinEXT and
 * OpAtomicFMaxEXT on floats, and float atomic load, store and exchange. Every sum is exact in binary floating point. */
kernel void float_atomics(global atomic_float *sum, global atomic_double *dsum, global atomic_float *extremes,
                          global atomic_float *swapped, local atomic_float *group_sum, global float *group_out)
{
    size_t i = get_global_id(0);
    if (get_local_id(0) == 0)
        atomic_store_explicit(group_sum, 0.0f, memory_order_relaxed, memory_scope_work_group);
    barrier(CLK_LOCAL_MEM_FENCE);
    atomic_fetch_add_explicit(sum, 0.5f, memory_order_relaxed, memory_scope_device);
    atomic_fetch_add_explicit(dsum, 0.25, memory_order_relaxed, memory_scope_device);
    atomic_fetch_min_explicit(&extremes[0], (float)i - 100.0f, memory_order_relaxed, memory_scope_device);
    atomic_fetch_max_explicit(&extremes[1], (float)i * 0.5f, memory_order_relaxed, memory_scope_device);
    atomic_exchange_explicit(&swapped[i], (float)i + 0.25f, memory_order_relaxed, memory_scope_device);
    atomic_fetch_add_explicit(group_sum, 1.0f, memory_order_relaxed, memory_scope_work_group);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0)
        group_out[get_group_id(0)] = atomic_load_explicit(group_sum, memory_order_relaxed, memory_scope_work_group);
}
