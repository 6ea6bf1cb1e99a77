/* Module program, input 2: exports program_offset, which calls program_twice back in input 0. SpecId 1 (default 100)
 * is this input's offset. */
int __attribute__((overloadable)) __spirv_SpecConstant(int id, int default_value);

extern int program_twice(int x); /* program_main.cl */

int program_offset(int x)
{
    return program_twice(x) + __spirv_SpecConstant(1, 100);
}
