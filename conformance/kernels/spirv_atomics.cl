/* SPIR-V execution: atomics under contention (test_spirv_memory.c): every work-item of a launch updates the same
 * few words, from several threads of the host at once. */
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable

/* counters: [0] incremented by everyone, [1] decremented, [2] min, [3] max, [4] and, [5] or, [6] xor, [7] xchg */
kernel void contention(global int *counters, global int *seen, global const int *values, global long *wide)
{
    size_t i = get_global_id(0);
    int v = values[i];
    int old = atomic_inc(&counters[0]);
    seen[old] += 1; /* every old value appears exactly once */
    atomic_dec(&counters[1]);
    atomic_min(&counters[2], v);
    atomic_max(&counters[3], v);
    atomic_and(&counters[4], ~(1 << (i % 31)));
    atomic_or(&counters[5], 1 << (i % 29));
    atomic_xor(&counters[6], v);
    atomic_xchg(&counters[7], (int)i);
    atom_add(&wide[0], (long)v << 20);
    atom_max(&wide[1], (long)v * 1000000000L);
}

/* A histogram straight into global bins: every work-item's increment contends with the others' for a few cache
 * lines (the engine's thread choice, test_spirv_engine.c). */
kernel void bins(global const uint *data, global uint *bins)
{
    atomic_inc(&bins[data[get_global_id(0)] & 255u]);
}

/* A histogram in local memory merged into global bins. */
kernel void histogram(global const uchar *data, global uint *bins, local uint *local_bins, uint n)
{
    size_t l = get_local_id(0), size = get_local_size(0);
    for (size_t b = l; b < 64; b += size)
        local_bins[b] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t i = get_global_id(0); i < n; i += get_global_size(0))
        atomic_inc(&local_bins[data[i] % 64]);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t b = l; b < 64; b += size)
        atomic_add(&bins[b], local_bins[b]);
}

/* A float sum made with compare-and-exchange, and the OpenCL 2.0 atomics with explicit orders. */
kernel void cas_and_c11(global float *sum, global atomic_int *c11, global atomic_flag *flag, global atomic_int *won)
{
    size_t i = get_global_id(0);
    float add = (float)(i % 8);
    global volatile uint *bits = (global volatile uint *)sum;
    uint seen = *bits, before;
    do {
        before = seen;
        seen = atomic_cmpxchg(bits, before, as_uint(as_float(before) + add));
    } while (seen != before);
    atomic_fetch_add_explicit(&c11[0], 2, memory_order_relaxed, memory_scope_device);
    int want = 0;
    atomic_compare_exchange_strong_explicit(&c11[1], &want, (int)i + 1, memory_order_acq_rel, memory_order_acquire,
                                            memory_scope_device);
    atomic_fetch_max_explicit(&c11[2], (int)i, memory_order_seq_cst, memory_scope_device);
    if (!atomic_flag_test_and_set_explicit(flag, memory_order_acquire, memory_scope_device))
        atomic_fetch_add(&won[0], 1);
}
