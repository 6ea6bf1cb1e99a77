/* Module program (ZE_experimental_module_program), input 0: a kernel calling functions and reading a global that the
 * other inputs export, and a function they call back. SpecId 1 (default 1) is this input's multiplier. */
int __attribute__((overloadable)) __spirv_SpecConstant(int id, int default_value);

extern int program_scale(int x);  /* program_scale.cl */
extern int program_offset(int x); /* program_offset.cl */
extern global int program_bias;   /* program_scale.cl */

int program_twice(int x)
{
    return 2 * x;
}

kernel void program_apply(global int *p)
{
    size_t i = get_global_id(0);
    p[i] = program_offset(program_scale(p[i])) * __spirv_SpecConstant(1, 1) + program_bias;
}
