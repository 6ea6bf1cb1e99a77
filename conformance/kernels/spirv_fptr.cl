/* SPIR-V execution: function pointers (SPV_INTEL_function_pointers; test_spirv_tools.c). Work-items pick different
 * functions through a pointer, and call a function of another module whose pointer the host passes in (from
 * zeModuleGetFunctionPointer). Built with --spirv-ext=+SPV_INTEL_function_pointers and not checked by spirv-val
 * (kernels.cmake says why). */
#pragma OPENCL EXTENSION __cl_clang_function_pointers : enable

typedef int (*unary_t)(int);

__attribute__((noinline)) int increment(int x)
{
    return x + 1;
}

__attribute__((noinline)) int twice(int x)
{
    return x * 2;
}

__attribute__((noinline)) int negate(int x)
{
    return -x;
}

kernel void apply(global int *p, ulong external)
{
    size_t i = get_global_id(0);
    int v = p[i];
    unary_t f = (v % 3 == 0) ? increment : (v % 3 == 1) ? twice : negate;
    v = f(v);
    if (external != 0)
        v += ((unary_t)external)(v);
    p[i] = v;
}
