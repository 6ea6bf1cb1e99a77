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

static const char *zc_arg_info_source =
    "typedef struct { int a; } pair;\n"
    "kernel void args(global const int *restrict src, global volatile uint4 *dst, local float *scratch,\n"
    "                 constant char *c, int n, pair p, read_only image2d_t img, write_only image2d_t out)\n"
    "{\n"
    "}\n";

/* clGetKernelArgInfo of a program built with -cl-kernel-arg-info (OpenCL 3.0, clGetKernelArgInfo): names, type
 * names, address, access and type qualifiers as the source declares them. */
static void test_kernel_arg_info(void **state) {
    zc_cl *t = *state;
    cl_program p = zc_build_source(t, zc_arg_info_source, "-cl-kernel-arg-info");
    cl_int err;
    cl_kernel k = clCreateKernel(p, "args", &err);
    assert_int_equal(err, CL_SUCCESS);
    static const char *names[] = {"src", "dst", "scratch", "c", "n", "p", "img", "out"};
    static const char *types[] = {"int*", "uint4*", "float*", "char*", "int", "pair", "image2d_t", "image2d_t"};
    static const cl_kernel_arg_address_qualifier address[] = {
        CL_KERNEL_ARG_ADDRESS_GLOBAL,   CL_KERNEL_ARG_ADDRESS_GLOBAL,  CL_KERNEL_ARG_ADDRESS_LOCAL,
        CL_KERNEL_ARG_ADDRESS_CONSTANT, CL_KERNEL_ARG_ADDRESS_PRIVATE, CL_KERNEL_ARG_ADDRESS_PRIVATE,
        CL_KERNEL_ARG_ADDRESS_GLOBAL,   CL_KERNEL_ARG_ADDRESS_GLOBAL};
    static const cl_kernel_arg_access_qualifier access[] = {
        CL_KERNEL_ARG_ACCESS_NONE,      CL_KERNEL_ARG_ACCESS_NONE,      CL_KERNEL_ARG_ACCESS_NONE,
        CL_KERNEL_ARG_ACCESS_NONE,      CL_KERNEL_ARG_ACCESS_NONE,      CL_KERNEL_ARG_ACCESS_NONE,
        CL_KERNEL_ARG_ACCESS_READ_ONLY, CL_KERNEL_ARG_ACCESS_WRITE_ONLY};
    static const cl_kernel_arg_type_qualifier quals[] = {CL_KERNEL_ARG_TYPE_CONST | CL_KERNEL_ARG_TYPE_RESTRICT,
                                                         CL_KERNEL_ARG_TYPE_VOLATILE,
                                                         CL_KERNEL_ARG_TYPE_NONE,
                                                         CL_KERNEL_ARG_TYPE_CONST,
                                                         CL_KERNEL_ARG_TYPE_NONE,
                                                         CL_KERNEL_ARG_TYPE_NONE,
                                                         CL_KERNEL_ARG_TYPE_NONE,
                                                         CL_KERNEL_ARG_TYPE_NONE};
    for (cl_uint i = 0; i < 8; i++) {
        char text[64];
        size_t size = 0;
        assert_int_equal(clGetKernelArgInfo(k, i, CL_KERNEL_ARG_NAME, 0, NULL, &size), CL_SUCCESS);
        assert_int_equal(size, strlen(names[i]) + 1);
        assert_int_equal(clGetKernelArgInfo(k, i, CL_KERNEL_ARG_NAME, sizeof text, text, NULL), CL_SUCCESS);
        assert_string_equal(text, names[i]);
        assert_int_equal(clGetKernelArgInfo(k, i, CL_KERNEL_ARG_TYPE_NAME, sizeof text, text, NULL), CL_SUCCESS);
        assert_string_equal(text, types[i]);
        cl_kernel_arg_address_qualifier a = 0;
        assert_int_equal(clGetKernelArgInfo(k, i, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof a, &a, NULL), CL_SUCCESS);
        assert_int_equal(a, address[i]);
        cl_kernel_arg_access_qualifier x = 0;
        assert_int_equal(clGetKernelArgInfo(k, i, CL_KERNEL_ARG_ACCESS_QUALIFIER, sizeof x, &x, NULL), CL_SUCCESS);
        assert_int_equal(x, access[i]);
        cl_kernel_arg_type_qualifier q = 0;
        assert_int_equal(clGetKernelArgInfo(k, i, CL_KERNEL_ARG_TYPE_QUALIFIER, sizeof q, &q, NULL), CL_SUCCESS);
        assert_int_equal(q, quals[i]);
    }
    char small[2];
    assert_int_equal(clGetKernelArgInfo(k, 0, CL_KERNEL_ARG_NAME, sizeof small, small, NULL), CL_INVALID_VALUE);
    assert_int_equal(clGetKernelArgInfo(k, 8, CL_KERNEL_ARG_NAME, 0, NULL, NULL), CL_INVALID_ARG_INDEX);
    clReleaseKernel(k);
    clReleaseProgram(p);
}

/* Without -cl-kernel-arg-info the information is not available, and CL_INVALID_VALUE comes first: a bad param_name
 * or a param_value_size too small for the answer's type. */
static void test_kernel_arg_info_not_available(void **state) {
    zc_cl *t = *state;
    cl_program p = zc_build_source(t, zc_arg_info_source, "");
    cl_int err;
    cl_kernel k = clCreateKernel(p, "args", &err);
    assert_int_equal(err, CL_SUCCESS);
    cl_kernel_arg_address_qualifier a = 0;
    assert_int_equal(clGetKernelArgInfo(k, 0, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof a, &a, NULL),
                     CL_KERNEL_ARG_INFO_NOT_AVAILABLE);
    assert_int_equal(clGetKernelArgInfo(k, 0, 0x7777, sizeof a, &a, NULL), CL_INVALID_VALUE);
    assert_int_equal(clGetKernelArgInfo(k, 0, CL_KERNEL_ARG_ADDRESS_QUALIFIER, 1, &a, NULL), CL_INVALID_VALUE);
    clReleaseKernel(k);
    clReleaseProgram(p);
}

/* clCompileProgram refuses an option the compiler does not know with CL_INVALID_COMPILER_OPTIONS; clLinkProgram
 * takes only the linker options (CL_INVALID_LINKER_OPTIONS otherwise, -enable-link-options only with
 * -create-library). */
static void test_compile_and_link_options(void **state) {
    zc_cl *t = *state;
    cl_int err;
    const char *source = zc_work_dim_source;
    cl_program p = clCreateProgramWithSource(t->context, 1, &source, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    assert_int_equal(clCompileProgram(p, 1, &t->device, "-cl-no-such-option", 0, NULL, NULL, NULL, NULL),
                     CL_INVALID_COMPILER_OPTIONS);
    assert_int_equal(clCompileProgram(p, 1, &t->device, "", 0, NULL, NULL, NULL, NULL), CL_SUCCESS);
    static const char *bad[] = {"-cl-no-such-option", "-DX=1", "-enable-link-options"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        cl_program linked = clLinkProgram(t->context, 1, &t->device, bad[i], 1, &p, NULL, NULL, &err);
        assert_null(linked);
        assert_int_equal(err, CL_INVALID_LINKER_OPTIONS);
    }
    cl_program library =
        clLinkProgram(t->context, 1, &t->device, "-create-library -enable-link-options", 1, &p, NULL, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    cl_program exe = clLinkProgram(t->context, 1, &t->device, "-cl-fast-relaxed-math", 1, &library, NULL, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    clReleaseProgram(exe);
    clReleaseProgram(library);
    clReleaseProgram(p);
}

/* clEnqueueCopyBufferRect with OpenCL's pitch rules: an origin whose x lies past the row pitch is only an offset
 * (origin[2] * slice_pitch + origin[1] * row_pitch + origin[0]), and within one buffer the pitches may differ in one
 * of row and slice. */
static void test_copy_buffer_rect_pitches(void **state) {
    zc_cl *t = *state;
    cl_int err;
    unsigned char data[256], back[256];
    for (int i = 0; i < 256; i++)
        data[i] = (unsigned char)i;
    cl_mem src = clCreateBuffer(t->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof data, data, &err);
    assert_int_equal(err, CL_SUCCESS);
    cl_mem dst = clCreateBuffer(t->context, CL_MEM_READ_WRITE, sizeof back, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    unsigned char zero = 0;
    assert_int_equal(clEnqueueFillBuffer(t->queue, dst, &zero, 1, 0, sizeof back, 0, NULL, NULL), CL_SUCCESS);
    const size_t src_origin[3] = {20, 1, 0}, dst_origin[3] = {0, 0, 0}, region[3] = {4, 2, 1};
    assert_int_equal(
        clEnqueueCopyBufferRect(t->queue, src, dst, src_origin, dst_origin, region, 16, 0, 8, 0, 0, NULL, NULL),
        CL_SUCCESS);
    assert_int_equal(clEnqueueReadBuffer(t->queue, dst, CL_TRUE, 0, sizeof back, back, 0, NULL, NULL), CL_SUCCESS);
    for (int y = 0; y < 2; y++)
        for (int x = 0; x < 4; x++)
            assert_int_equal(back[y * 8 + x], 36 + y * 16 + x);
    /* same buffer, row pitches different, slice pitches equal: valid; rectangles apart */
    const size_t a[3] = {0, 0, 0}, b[3] = {128, 0, 0}, r2[3] = {4, 2, 1};
    assert_int_equal(clEnqueueCopyBufferRect(t->queue, src, src, a, b, r2, 8, 64, 16, 64, 0, NULL, NULL), CL_SUCCESS);
    assert_int_equal(clEnqueueCopyBufferRect(t->queue, src, src, a, b, r2, 8, 64, 16, 128, 0, NULL, NULL),
                     CL_INVALID_VALUE);
    const size_t c[3] = {2, 0, 0};
    assert_int_equal(clEnqueueCopyBufferRect(t->queue, src, src, a, c, r2, 16, 0, 16, 0, 0, NULL, NULL),
                     CL_MEM_COPY_OVERLAP);
    const size_t d[3] = {8, 0, 0};
    assert_int_equal(clEnqueueCopyBufferRect(t->queue, src, src, a, d, r2, 16, 0, 16, 0, 0, NULL, NULL), CL_SUCCESS);
    assert_int_equal(clFinish(t->queue), CL_SUCCESS);
    clReleaseMemObject(src);
    clReleaseMemObject(dst);
}

/* An unmap takes device time in its profile (a benchmark divides by it). */
static void test_unmap_profile_takes_time(void **state) {
    zc_cl *t = *state;
    cl_int err;
    cl_mem m = clCreateBuffer(t->context, CL_MEM_READ_WRITE, 4096, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    void *ptr = clEnqueueMapBuffer(t->queue, m, CL_TRUE, CL_MAP_WRITE, 0, 4096, 0, NULL, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    memset(ptr, 1, 4096);
    cl_event e;
    assert_int_equal(clEnqueueUnmapMemObject(t->queue, m, ptr, 0, NULL, &e), CL_SUCCESS);
    assert_int_equal(clWaitForEvents(1, &e), CL_SUCCESS);
    assert_true(zc_profile(e, CL_PROFILING_COMMAND_END) > zc_profile(e, CL_PROFILING_COMMAND_START));
    clReleaseEvent(e);
    clReleaseMemObject(m);
    void *svm = clSVMAlloc(t->context, CL_MEM_READ_WRITE, 4096, 0);
    assert_non_null(svm);
    assert_int_equal(clEnqueueSVMMap(t->queue, CL_TRUE, CL_MAP_WRITE, svm, 4096, 0, NULL, NULL), CL_SUCCESS);
    assert_int_equal(clEnqueueSVMUnmap(t->queue, svm, 0, NULL, &e), CL_SUCCESS);
    assert_int_equal(clWaitForEvents(1, &e), CL_SUCCESS);
    assert_true(zc_profile(e, CL_PROFILING_COMMAND_END) > zc_profile(e, CL_PROFILING_COMMAND_START));
    clReleaseEvent(e);
    clSVMFree(t->context, svm);
    cl_image_format format = {CL_RGBA, CL_UNORM_INT8};
    cl_image_desc desc = {.image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = 16, .image_height = 16};
    cl_mem image = clCreateImage(t->context, CL_MEM_READ_WRITE, &format, &desc, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    const size_t origin[3] = {0, 0, 0}, region[3] = {16, 16, 1};
    size_t row = 0;
    ptr = clEnqueueMapImage(t->queue, image, CL_TRUE, CL_MAP_WRITE, origin, region, &row, NULL, 0, NULL, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    assert_int_equal(clEnqueueUnmapMemObject(t->queue, image, ptr, 0, NULL, &e), CL_SUCCESS);
    assert_int_equal(clWaitForEvents(1, &e), CL_SUCCESS);
    assert_true(zc_profile(e, CL_PROFILING_COMMAND_END) > zc_profile(e, CL_PROFILING_COMMAND_START));
    clReleaseEvent(e);
    clReleaseMemObject(image);
}

/* CL_KERNEL_ATTRIBUTES names the hinted type as the source does: vec_type_hint(uint4) stays unsigned, although
 * SPIR-V's VecTypeHint carries no signedness. */
static void test_vec_type_hint_signedness(void **state) {
    zc_cl *t = *state;
    static const char *source = "kernel __attribute__((vec_type_hint(uint4))) void u(global uint *p) { p[0] = 1; }\n"
                                "kernel __attribute__((vec_type_hint(int2))) void s(global int *p) { p[0] = 1; }\n"
                                "kernel __attribute__((vec_type_hint(float4))) void f(global float *p) { p[0] = 1; }\n";
    cl_program p = zc_build_source(t, source, "");
    static const char *names[] = {"u", "s", "f"},
                      *hints[] = {"vec_type_hint(uint4)", "vec_type_hint(int2)", "vec_type_hint(float4)"};
    for (int i = 0; i < 3; i++) {
        cl_int err;
        cl_kernel k = clCreateKernel(p, names[i], &err);
        assert_int_equal(err, CL_SUCCESS);
        char text[256] = "";
        assert_int_equal(clGetKernelInfo(k, CL_KERNEL_ATTRIBUTES, sizeof text, text, NULL), CL_SUCCESS);
        if (strstr(text, hints[i]) == NULL)
            fail_msg("kernel %s: attributes '%s' lack '%s'", names[i], text, hints[i]);
        clReleaseKernel(k);
    }
    clReleaseProgram(p);
}

/* CL_MEM_PROPERTIES of an image answers the properties given to clCreateImageWithProperties (the empty list: its
 * terminating 0), and nothing for an image made without (OpenCL 3.0, clGetMemObjectInfo). */
static void test_image_mem_properties(void **state) {
    zc_cl *t = *state;
    cl_int err;
    cl_image_format format = {CL_RGBA, CL_UNORM_INT8};
    cl_image_desc desc = {.image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = 8, .image_height = 8};
    const cl_mem_properties empty[] = {0};
    cl_mem with = clCreateImageWithProperties(t->context, empty, CL_MEM_READ_WRITE, &format, &desc, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    cl_mem without = clCreateImageWithProperties(t->context, NULL, CL_MEM_READ_WRITE, &format, &desc, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    size_t size = 99;
    cl_mem_properties back[4] = {7, 7, 7, 7};
    assert_int_equal(clGetMemObjectInfo(with, CL_MEM_PROPERTIES, sizeof back, back, &size), CL_SUCCESS);
    assert_int_equal(size, sizeof(cl_mem_properties));
    assert_int_equal(back[0], 0);
    assert_int_equal(clGetMemObjectInfo(without, CL_MEM_PROPERTIES, sizeof back, back, &size), CL_SUCCESS);
    assert_int_equal(size, 0);
    clReleaseMemObject(with);
    clReleaseMemObject(without);
}

/* 3D images are offered for writing, so the device reports cl_khr_3d_image_writes and __opencl_c_3d_image_writes
 * (OpenCL 3.0, "Image Format Mapping": a device that supports writes to 3D images reports both), and a kernel writes
 * one. */
static void test_3d_image_writes_reported(void **state) {
    zc_cl *t = *state;
    cl_uint formats = 0;
    assert_int_equal(
        clGetSupportedImageFormats(t->context, CL_MEM_WRITE_ONLY, CL_MEM_OBJECT_IMAGE3D, 0, NULL, &formats),
        CL_SUCCESS);
    assert_true(formats > 0);
    char extensions[2048] = "";
    assert_int_equal(clGetDeviceInfo(t->device, CL_DEVICE_EXTENSIONS, sizeof extensions, extensions, NULL), CL_SUCCESS);
    assert_non_null(strstr(extensions, "cl_khr_3d_image_writes"));
    cl_name_version features[16];
    size_t size = 0;
    assert_int_equal(clGetDeviceInfo(t->device, CL_DEVICE_OPENCL_C_FEATURES, sizeof features, features, &size),
                     CL_SUCCESS);
    bool found = false;
    for (size_t i = 0; i < size / sizeof *features; i++)
        found |= strcmp(features[i].name, "__opencl_c_3d_image_writes") == 0;
    assert_true(found);
    static const char *source = "#pragma OPENCL EXTENSION cl_khr_3d_image_writes : enable\n"
                                "kernel void fill3d(write_only image3d_t img)\n"
                                "{\n"
                                "    int4 at = (int4)(get_global_id(0), get_global_id(1), get_global_id(2), 0);\n"
                                "    write_imageui(img, at, (uint4)(at.x + 4 * at.y + 16 * at.z, 0, 0, 0));\n"
                                "}\n";
    cl_program p = zc_build_source(t, source, "");
    cl_int err;
    cl_kernel k = clCreateKernel(p, "fill3d", &err);
    assert_int_equal(err, CL_SUCCESS);
    cl_image_format format = {CL_R, CL_UNSIGNED_INT32};
    cl_image_desc desc = {.image_type = CL_MEM_OBJECT_IMAGE3D, .image_width = 4, .image_height = 4, .image_depth = 4};
    cl_mem img = clCreateImage(t->context, CL_MEM_WRITE_ONLY, &format, &desc, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    assert_int_equal(clSetKernelArg(k, 0, sizeof img, &img), CL_SUCCESS);
    const size_t global[3] = {4, 4, 4}, origin[3] = {0, 0, 0};
    assert_int_equal(clEnqueueNDRangeKernel(t->queue, k, 3, NULL, global, NULL, 0, NULL, NULL), CL_SUCCESS);
    cl_uint back[64];
    assert_int_equal(clEnqueueReadImage(t->queue, img, CL_TRUE, origin, global, 0, 0, back, 0, NULL, NULL), CL_SUCCESS);
    for (cl_uint i = 0; i < 64; i++)
        assert_int_equal(back[i], i);
    clReleaseMemObject(img);
    clReleaseKernel(k);
    clReleaseProgram(p);
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
        cmocka_unit_test(test_kernel_arg_info),
        cmocka_unit_test(test_kernel_arg_info_not_available),
        cmocka_unit_test(test_compile_and_link_options),
        cmocka_unit_test(test_copy_buffer_rect_pitches),
        cmocka_unit_test(test_unmap_profile_takes_time),
        cmocka_unit_test(test_vec_type_hint_signedness),
        cmocka_unit_test(test_image_mem_properties),
        cmocka_unit_test(test_3d_image_writes_reported),
    };
    return cmocka_run_group_tests_name("opencl_kernels", tests, zc_setup, zc_teardown);
}
