/* SPIR-V execution: generic pointers cast back to their storage class (OpGenericCastToPtrExplicit through to_global,
 * to_local and to_private), their fence flags (OpGenericPtrMemSemantics), and the C11 atomic load and store
 * (OpAtomicLoad, OpAtomicStore) (test_spirv_memory.c). Work-groups of 64. */
kernel void casts(global int *data, global int *out, global atomic_int *flags)
{
    local int scratch[64];
    int i = (int)get_global_id(0), l = (int)get_local_id(0);
    int priv = i * 7;
    generic int *g = l % 3 == 0 ? (generic int *)&data[i] : l % 3 == 1 ? (generic int *)&scratch[l] : &priv;
    scratch[l] = i * 5;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[i * 4] = (to_global(g) != 0) + 2 * (to_local(g) != 0) + 4 * (to_private(g) != 0);
    out[i * 4 + 1] = *g;
    atomic_store_explicit(&flags[i], i + 1, memory_order_release, memory_scope_device);
    out[i * 4 + 2] = atomic_load_explicit(&flags[i], memory_order_acquire, memory_scope_device);
    out[i * 4 + 3] = l % 3 == 2 ? -1 : (int)get_fence(g);
}
