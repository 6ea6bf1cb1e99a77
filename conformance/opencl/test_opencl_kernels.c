/* The OpenCL face through Debian's ocl-icd (docs/opencl.md): kernels as the OpenCL 3.0 specifications run them,
 * checked in both execution tiers (ZEFAKE_EXEC=interp and compiled, docs/spirv-execution.md) -- get_work_dim() is
 * the work_dim of clEnqueueNDRangeKernel (OpenCL C 3.0, "Work-Item Functions"), and a struct passed by value to a
 * function is the callee's own copy (C99 semantics, which OpenCL C follows) -- and the compilation of OpenCL C:
 * code clang-14 emits `freeze` for, program-scope constants reached through other constants, kernels of many
 * parameters, __OPENCL_VERSION__ and include directories relative to the application's working directory. The
 * .strict run (ZEFAKE_STRICT=1) checks the strict profile's refusals. */
#include "zc_opencl.h"

#include <stdbool.h>
#include <sys/stat.h>

static bool zc_strict(void) {
    const char *v = getenv("ZEFAKE_STRICT");
    return v != NULL && strcmp(v, "1") == 0;
}

/* clBuildProgram's result for `source` with `options`, the program in *out (released by the caller). */
static cl_int zc_try_build(zc_cl *t, const char *source, const char *options, cl_program *out) {
    cl_int err;
    *out = clCreateProgramWithSource(t->context, 1, &source, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    return clBuildProgram(*out, 1, &t->device, options, NULL, NULL);
}

/* Runs kernel `name` of `p` over `n` items on a buffer of n ints holding `in` (NULL: zeros), the int arguments
 * `values` after it, and reads the buffer back into `out`. */
static void zc_run_ints(zc_cl *t, cl_program p, const char *name, size_t n, const cl_int *in, const cl_int *values,
                        cl_uint num_values, cl_int *out) {
    cl_int err;
    cl_kernel k = clCreateKernel(p, name, &err);
    assert_int_equal(err, CL_SUCCESS);
    cl_mem m = clCreateBuffer(t->context, CL_MEM_READ_WRITE, n * sizeof(cl_int), NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    if (in != NULL)
        assert_int_equal(clEnqueueWriteBuffer(t->queue, m, CL_TRUE, 0, n * sizeof *in, in, 0, NULL, NULL), CL_SUCCESS);
    assert_int_equal(clSetKernelArg(k, 0, sizeof m, &m), CL_SUCCESS);
    for (cl_uint i = 0; i < num_values; i++)
        assert_int_equal(clSetKernelArg(k, i + 1, sizeof values[i], &values[i]), CL_SUCCESS);
    assert_int_equal(clEnqueueNDRangeKernel(t->queue, k, 1, NULL, &n, NULL, 0, NULL, NULL), CL_SUCCESS);
    assert_int_equal(clEnqueueReadBuffer(t->queue, m, CL_TRUE, 0, n * sizeof *out, out, 0, NULL, NULL), CL_SUCCESS);
    clReleaseMemObject(m);
    clReleaseKernel(k);
}

static const char *const zc_tiers[] = {"interp", "compiled"};

static const char *zc_work_dim_source =
    "kernel void dims(global uint *out)\n"
    "{\n"
    "    if (get_global_id(0) == 0 && get_global_id(1) == 0 && get_global_id(2) == 0)\n"
    "        out[0] = get_work_dim();\n"
    "}\n";

/* The value a one-word kernel writes for a launch of `dims` dimensions of `global` items. */
static cl_uint zc_run_one_word(zc_cl *t, cl_kernel k, cl_uint dims, const size_t *global) {
    cl_int err;
    cl_uint v = 0xdeadu;
    cl_mem out = clCreateBuffer(t->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof v, &v, &err);
    assert_int_equal(err, CL_SUCCESS);
    assert_int_equal(clSetKernelArg(k, 0, sizeof out, &out), CL_SUCCESS);
    assert_int_equal(clEnqueueNDRangeKernel(t->queue, k, dims, NULL, global, NULL, 0, NULL, NULL), CL_SUCCESS);
    assert_int_equal(clEnqueueReadBuffer(t->queue, out, CL_TRUE, 0, sizeof v, &v, 0, NULL, NULL), CL_SUCCESS);
    clReleaseMemObject(out);
    return v;
}

/* get_work_dim() is the launch's work_dim, whatever the sizes: a 2-D launch of 1 x 1 items answers 2, a 3-D one of
 * 1 x 1 x 1 answers 3, a 1-D one 1. */
static void test_work_dim_is_the_launch_dimension(void **state) {
    zc_cl *t = *state;
    cl_program p = zc_build_source(t, zc_work_dim_source, "");
    cl_int err;
    cl_kernel k = clCreateKernel(p, "dims", &err);
    assert_int_equal(err, CL_SUCCESS);
    const size_t ones[3] = {1, 1, 1}, wide[3] = {8, 1, 1};
    for (size_t tier = 0; tier < sizeof zc_tiers / sizeof *zc_tiers; tier++) {
        setenv("ZEFAKE_EXEC", zc_tiers[tier], 1);
        for (cl_uint dims = 1; dims <= 3; dims++) {
            assert_int_equal(zc_run_one_word(t, k, dims, ones), dims);
            assert_int_equal(zc_run_one_word(t, k, dims, wide), dims);
        }
    }
    unsetenv("ZEFAKE_EXEC");
    clReleaseKernel(k);
    clReleaseProgram(p);
}

/* `keep` makes the callee's stores to its copy observable, so that the optimizer keeps them. */
static const char *zc_byval_source = "typedef struct { int a; int b[4]; } pair;\n"
                                     "__attribute__((noinline)) void keep(private pair *p, global int *out)\n"
                                     "{\n"
                                     "    out[6] = p->a + p->b[1];\n"
                                     "}\n"
                                     "__attribute__((noinline)) int change(pair s, global int *out)\n"
                                     "{\n"
                                     "    s.a = 99;\n"
                                     "    s.b[1] = 7;\n"
                                     "    keep(&s, out);\n"
                                     "    return s.a + s.b[1];\n"
                                     "}\n"
                                     "kernel void byval(global int *out, pair in)\n"
                                     "{\n"
                                     "    pair s = in;\n"
                                     "    out[0] = change(s, out);\n"
                                     "    out[1] = s.a;\n"
                                     "    out[2] = s.b[1];\n"
                                     "    out[3] = change(in, out);\n"
                                     "    out[4] = in.a;\n"
                                     "    out[5] = in.b[1];\n"
                                     "}\n";

typedef struct zc_pair {
    cl_int a;
    cl_int b[4];
} zc_pair;

/* A struct passed by value to a function (SPIR-V FuncParamAttr ByVal) is the callee's copy: the callee's changes
 * reach neither the caller's struct nor the kernel's by-value argument. */
static void test_struct_by_value_is_copied(void **state) {
    zc_cl *t = *state;
    cl_program p = zc_build_source(t, zc_byval_source, "");
    cl_int err;
    cl_kernel k = clCreateKernel(p, "byval", &err);
    assert_int_equal(err, CL_SUCCESS);
    cl_mem out = clCreateBuffer(t->context, CL_MEM_READ_WRITE, 7 * sizeof(cl_int), NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    zc_pair in = {5, {1, 2, 3, 4}};
    assert_int_equal(clSetKernelArg(k, 0, sizeof out, &out), CL_SUCCESS);
    assert_int_equal(clSetKernelArg(k, 1, sizeof in, &in), CL_SUCCESS);
    for (size_t tier = 0; tier < sizeof zc_tiers / sizeof *zc_tiers; tier++) {
        setenv("ZEFAKE_EXEC", zc_tiers[tier], 1);
        cl_int back[7] = {0};
        size_t global = 4;
        assert_int_equal(clEnqueueNDRangeKernel(t->queue, k, 1, NULL, &global, NULL, 0, NULL, NULL), CL_SUCCESS);
        assert_int_equal(clEnqueueReadBuffer(t->queue, out, CL_TRUE, 0, sizeof back, back, 0, NULL, NULL), CL_SUCCESS);
        const cl_int expected[7] = {106, 5, 2, 106, 5, 2, 106};
        for (int i = 0; i < 7; i++)
            if (back[i] != expected[i])
                fail_msg("%s tier: word %d is %d, expected %d", zc_tiers[tier], i, back[i], expected[i]);
    }
    unsetenv("ZEFAKE_EXEC");
    clReleaseMemObject(out);
    clReleaseKernel(k);
    clReleaseProgram(p);
}

/* clang-14 emits `freeze` for a division and remainder of one loaded value at -O2 (the OpenCL default), which
 * llvm-spirv-14 cannot translate: the build succeeds and the kernel computes the quotient plus the remainder. */
static void test_freeze_compiles(void **state) {
    zc_cl *t = *state;
    static const char *source = "kernel void divmod(global uint *a, uint n)\n"
                                "{\n"
                                "    uint i = get_global_id(0);\n"
                                "    a[i] = a[i] / n + a[i] % n;\n"
                                "}\n";
    cl_program p = zc_build_source(t, source, "");
    cl_int in[64], out[64], seven = 7;
    for (int i = 0; i < 64; i++)
        in[i] = 3 * i + 1;
    zc_run_ints(t, p, "divmod", 64, in, &seven, 1, out);
    for (int i = 0; i < 64; i++)
        assert_int_equal(out[i], in[i] / 7 + in[i] % 7);
    clReleaseProgram(p);
}

/* llvm-spirv-14 writes SPIR-V 1.4 whose entry point omits `table`, reached only through the initializer of `ptrs`:
 * accepted with a warning in the build log (docs/tolerances.md), refused in the strict profile. */
static void test_unlisted_uniform_constant(void **state) {
    zc_cl *t = *state;
    static const char *source = "constant int table[4] = {3, 5, 7, 11};\n"
                                "constant int *constant ptrs[2] = {&table[0], &table[2]};\n"
                                "kernel void lookup(global int *out, int k)\n"
                                "{\n"
                                "    int i = get_global_id(0);\n"
                                "    out[i] = ptrs[k & 1][i & 1] * (i + 1);\n"
                                "}\n";
    cl_program p;
    cl_int err = zc_try_build(t, source, "", &p);
    char log[4096] = "";
    clGetProgramBuildInfo(p, t->device, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
    if (zc_strict()) {
        assert_int_equal(err, CL_BUILD_PROGRAM_FAILURE);
        assert_non_null(strstr(log, "not listed as an interface"));
        clReleaseProgram(p);
        return;
    }
    if (err != CL_SUCCESS)
        fail_msg("build failed (%d): %s", err, log);
    assert_non_null(strstr(log, "not listed in its OpEntryPoint interface"));
    cl_int out[8], one = 1;
    zc_run_ints(t, p, "lookup", 8, NULL, &one, 1, out);
    for (int i = 0; i < 8; i++)
        assert_int_equal(out[i], (i & 1 ? 11 : 7) * (i + 1));
    clReleaseProgram(p);
}

#define ZC_MANY 300

/* A kernel of 301 parameters (a buffer and 300 ints, 1,208 bytes) fits CL_DEVICE_MAX_PARAMETER_SIZE: it builds,
 * takes every argument and sums them. */
static void test_many_parameters(void **state) {
    zc_cl *t = *state;
    size_t max_size = 0;
    assert_int_equal(clGetDeviceInfo(t->device, CL_DEVICE_MAX_PARAMETER_SIZE, sizeof max_size, &max_size, NULL),
                     CL_SUCCESS);
    assert_true(max_size >= 8 + ZC_MANY * sizeof(cl_int));
    size_t cap = 64 * ZC_MANY + 256;
    char *source = malloc(cap);
    assert_non_null(source);
    size_t at = (size_t)snprintf(source, cap, "kernel void many(global int *out");
    for (int i = 0; i < ZC_MANY; i++)
        at += (size_t)snprintf(source + at, cap - at, ", int a%d", i);
    at += (size_t)snprintf(source + at, cap - at, ")\n{\n    out[get_global_id(0)] = 0");
    for (int i = 0; i < ZC_MANY; i++)
        at += (size_t)snprintf(source + at, cap - at, " + a%d", i);
    snprintf(source + at, cap - at, ";\n}\n");
    cl_program p = zc_build_source(t, source, "");
    free(source);
    cl_int values[ZC_MANY], out[4], sum = 0;
    for (int i = 0; i < ZC_MANY; i++)
        sum += values[i] = 2 * i + 1;
    zc_run_ints(t, p, "many", 4, NULL, values, ZC_MANY, out);
    for (int i = 0; i < 4; i++)
        assert_int_equal(out[i], sum);
    clReleaseProgram(p);
}

/* __OPENCL_VERSION__ is the device's OpenCL version, 300 (OpenCL C 3.0, "Predefined Macros"). */
static void test_opencl_version_macro(void **state) {
    zc_cl *t = *state;
    static const char *source = "kernel void version(global int *out)\n"
                                "{\n"
                                "    out[get_global_id(0)] = __OPENCL_VERSION__;\n"
                                "}\n";
    cl_program p = zc_build_source(t, source, "");
    cl_int out[1];
    zc_run_ints(t, p, "version", 1, NULL, NULL, 0, out);
    assert_int_equal(out[0], 300);
    clReleaseProgram(p);
}

/* -I with a relative directory, joined or separate, names a directory of the application's working directory. */
static void test_relative_include(void **state) {
    zc_cl *t = *state;
    char dir[64];
    snprintf(dir, sizeof dir, "zc-include-%d", (int)getpid());
    assert_int_equal(mkdir(dir, 0700), 0);
    char header[128];
    snprintf(header, sizeof header, "%s/zc_relative.h", dir);
    FILE *f = fopen(header, "w");
    assert_non_null(f);
    fputs("#define ZC_RELATIVE 42\n", f);
    fclose(f);
    static const char *source = "#include \"zc_relative.h\"\n"
                                "kernel void relative(global int *out)\n"
                                "{\n"
                                "    out[get_global_id(0)] = ZC_RELATIVE;\n"
                                "}\n";
    char joined[96], separate[96];
    snprintf(joined, sizeof joined, "-I%s", dir);
    snprintf(separate, sizeof separate, "-I %s", dir);
    const char *options[] = {joined, separate};
    for (int i = 0; i < 2; i++) {
        cl_program p = zc_build_source(t, source, options[i]);
        cl_int out[1];
        zc_run_ints(t, p, "relative", 1, NULL, NULL, 0, out);
        assert_int_equal(out[0], 42);
        clReleaseProgram(p);
    }
    remove(header);
    rmdir(dir);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_work_dim_is_the_launch_dimension),
        cmocka_unit_test(test_struct_by_value_is_copied),
        cmocka_unit_test(test_freeze_compiles),
        cmocka_unit_test(test_unlisted_uniform_constant),
        cmocka_unit_test(test_many_parameters),
        cmocka_unit_test(test_opencl_version_macro),
        cmocka_unit_test(test_relative_include),
    };
    return cmocka_run_group_tests_name("opencl_kernels", tests, zc_setup, zc_teardown);
}
