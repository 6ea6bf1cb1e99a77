/* Accesses past the end of an allocation that stay inside its last page (test_spirv_memory.c, "Padding"): real GPUs
 * perform them, and programs rely on it (docs/tolerances.md). */

/* An 8-element loop over a 7-element buffer: the 8th load reads the allocation's padding. */
kernel void sum_eight(global const int *in, global int *out)
{
    int sum = 0;
    for (int i = 0; i < 8; i++)
        sum += in[i];
    out[0] = sum;
}

/* An int2 store into an int[1]: its second half lands in the padding. */
kernel void wide_store(global int *p)
{
    *(global int2 *)p = (int2)(5, 6);
}
