/* The OpenCL face through Debian's ocl-icd (docs/opencl.md): kernels as the OpenCL 3.0 specifications run them,
 * checked in both execution tiers (ZEFAKE_EXEC=interp and compiled, docs/spirv-execution.md) -- get_work_dim() is
 * the work_dim of clEnqueueNDRangeKernel (OpenCL C 3.0, "Work-Item Functions"), and a struct passed by value to a
 * function is the callee's own copy (C99 semantics, which OpenCL C follows). */
#include "zc_opencl.h"

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

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_work_dim_is_the_launch_dimension),
        cmocka_unit_test(test_struct_by_value_is_copied),
    };
    return cmocka_run_group_tests_name("opencl_kernels", tests, zc_setup, zc_teardown);
}
