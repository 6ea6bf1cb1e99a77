/* Module program, input 1: exports program_scale and the global program_bias, and has a kernel of its own. SpecId 1
 * (default 3) is this input's factor: the same SpecId as the other inputs', each input with its own value. The function
 * is not inlined into the kernel, which would give the module a second constant with the SpecId. */
int __attribute__((overloadable)) __spirv_SpecConstant(int id, int default_value);

global int program_bias = 7;

__attribute__((noinline)) int program_scale(int x)
{
    return x * __spirv_SpecConstant(1, 3);
}

kernel void program_scale_all(global int *p)
{
    p[get_global_id(0)] = program_scale(p[get_global_id(0)]) + program_bias;
}
