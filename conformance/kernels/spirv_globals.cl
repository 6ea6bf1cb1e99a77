/* SPIR-V execution: module globals and specialization constants (test_spirv_memory.c). The globals keep their
 * values from launch to launch and are the storage zeModuleGetGlobalPointer reports; the specialization constants
 * (SpecId 20: int, default 3; 21: float bits, default 1.5f; 22: a bool, default true) change what the kernel computes
 * and even which code remains (a false constant removes its branch). */
int __attribute__((overloadable)) __spirv_SpecConstant(int id, int default_value);
float __attribute__((overloadable)) __spirv_SpecConstant(int id, float default_value);
bool __attribute__((overloadable)) __spirv_SpecConstant(int id, bool default_value);

global int launches = 0;
global float scale_table[8] = {1, 2, 4, 8, 16, 32, 64, 128};
constant short offsets[4] = {-3, 5, -7, 11};
global int accumulated[4];

kernel void use_globals(global int *out)
{
    size_t i = get_global_id(0);
    int k = __spirv_SpecConstant(20, 3);
    float f = __spirv_SpecConstant(21, 1.5f);
    bool b = __spirv_SpecConstant(22, true);
    int value = (int)(scale_table[i % 8] * f) + offsets[i % 4] * k;
    if (b)
        value += 1000;
    out[i] = value + launches * 100000;
    atomic_add(&accumulated[i % 4], (int)i);
}

/* One work-item: counts a launch in the global that use_globals reads. */
kernel void bump(void)
{
    launches++;
}

/* Out-of-bounds access: work-items past `n` write one element past the end of `a`. */
kernel void out_of_bounds(global int *a, uint n)
{
    size_t i = get_global_id(0);
    a[i < n ? i : n] = (int)i + 1;
}

/* The work-items i with i % period == bad store out of bounds, every other one a[i] = i + 1: the work-items of later
 * waves in a faulted one's place run, and fault again (test_spirv_engine.c). */
kernel void some_out_of_bounds(global int *a, uint n, uint bad, uint period)
{
    size_t i = get_global_id(0);
    a[i % period == bad ? n : i] = (int)i + 1;
}

/* A load through a null pointer for odd work-items. */
kernel void null_load(global int *a, global int *out)
{
    size_t i = get_global_id(0);
    global int *p = (i & 1) ? (global int *)0 : a;
    out[i] = p[i] + 1;
}
