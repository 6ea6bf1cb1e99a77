/* llvm-spirv-14 writes SPIR-V 1.4 whose entry point leaves out `table`, a UniformConstant variable it reaches only
 * through the initializer of `ptrs` (docs/tolerances.md): spirv-val refuses it, Intel's compiler accepts it. */
constant int table[4] = {3, 5, 7, 11};
constant int *constant ptrs[2] = {&table[0], &table[2]};

kernel void lookup(global int *out, int k)
{
    int i = get_global_id(0);
    out[i] = ptrs[k & 1][i & 1] * (i + 1);
}
