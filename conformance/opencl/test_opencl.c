/* The OpenCL face through Debian's ocl-icd (docs/opencl.md): the zefake platform found by name among the installed
 * ones, every device query, vector adds from OpenCL C and from SPIR-V with profiling in device time (the clock Level
 * Zero reads), programs from binaries and from compile + link, build failures with their log, buffers and their
 * commands, events, and the CL_INVALID_* answers to wrong arguments of every implemented function. */
#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_1_APIS
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>
#include <CL/cl_ext.h>
#include <level_zero/ze_api.h>

#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#define ZC_N 1024

static const char *zc_vadd_source = "kernel void vadd(global const int *a, global const int *b, global int *c)\n"
                                    "{\n"
                                    "    size_t i = get_global_id(0);\n"
                                    "    c[i] = a[i] + b[i];\n"
                                    "}\n"
                                    "kernel void scale(global int *p, int factor, local int *scratch)\n"
                                    "{\n"
                                    "    size_t i = get_global_id(0);\n"
                                    "    scratch[get_local_id(0)] = p[i] * factor;\n"
                                    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
                                    "    p[i] = scratch[get_local_id(0)];\n"
                                    "}\n";

typedef struct zc_cl {
    cl_platform_id platform;
    cl_device_id device;
    cl_context context;
    cl_command_queue queue; /* in order, profiling */
} zc_cl;

static cl_platform_id zc_platform(void) {
    cl_uint n = 0;
    cl_platform_id list[16];
    if (clGetPlatformIDs(16, list, &n) != CL_SUCCESS)
        return NULL;
    for (cl_uint i = 0; i < n && i < 16; i++) {
        char name[64] = "";
        clGetPlatformInfo(list[i], CL_PLATFORM_NAME, sizeof name, name, NULL);
        if (strcmp(name, "zefake") == 0)
            return list[i];
    }
    return NULL;
}

/* A profiling queue of the context's device, with `flags` besides. */
static cl_command_queue zc_queue(cl_context context, cl_device_id device, cl_command_queue_properties flags,
                                 cl_int *err) {
    cl_queue_properties props[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE | flags, 0};
    return clCreateCommandQueueWithProperties(context, device, props, err);
}

/* A profiling out-of-order queue of the fixture's device (the test fails without it). */
static cl_command_queue zc_out_of_order_queue(zc_cl *t) {
    cl_int err;
    cl_command_queue q = zc_queue(t->context, t->device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &err);
    assert_int_equal(err, CL_SUCCESS);
    return q;
}

static int zc_setup(void **state) {
    zc_cl *t = calloc(1, sizeof *t);
    cl_int err;
    t->platform = zc_platform();
    if (t->platform == NULL || clGetDeviceIDs(t->platform, CL_DEVICE_TYPE_GPU, 1, &t->device, NULL) != CL_SUCCESS)
        return -1;
    t->context = clCreateContext(NULL, 1, &t->device, NULL, NULL, &err);
    if (err != CL_SUCCESS)
        return -1;
    t->queue = zc_queue(t->context, t->device, 0, &err);
    *state = t;
    return err == CL_SUCCESS ? 0 : -1;
}

static int zc_teardown(void **state) {
    zc_cl *t = *state;
    clReleaseCommandQueue(t->queue);
    clReleaseContext(t->context);
    free(t);
    return 0;
}

static cl_program zc_build_source(zc_cl *t, const char *source, const char *options) {
    cl_int err;
    cl_program p = clCreateProgramWithSource(t->context, 1, &source, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    err = clBuildProgram(p, 1, &t->device, options, NULL, NULL);
    if (err != CL_SUCCESS) {
        char log[4096] = "";
        clGetProgramBuildInfo(p, t->device, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
        fprintf(stderr, "build log:\n%s\n", log);
    }
    assert_int_equal(err, CL_SUCCESS);
    return p;
}

static void *zc_read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    *size = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    void *data = malloc(*size);
    assert_int_equal(fread(data, 1, *size, f), *size);
    fclose(f);
    return data;
}

static cl_ulong zc_profile(cl_event e, cl_profiling_info what) {
    cl_ulong v = 0;
    assert_int_equal(clGetEventProfilingInfo(e, what, sizeof v, &v, NULL), CL_SUCCESS);
    return v;
}

static cl_int zc_exec_status(cl_event e) {
    cl_int status = 1;
    assert_int_equal(clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL), CL_SUCCESS);
    return status;
}

/* c = a + b with the kernel `name` of p over ZC_N items, checked, with its profiling intervals ordered. */
static void zc_run_vadd(zc_cl *t, cl_command_queue q, cl_program p, const char *name, const size_t *local) {
    cl_int err;
    int a[ZC_N], b[ZC_N], c[ZC_N];
    for (int i = 0; i < ZC_N; i++) {
        a[i] = i;
        b[i] = 3 * i + 1;
        c[i] = -1;
    }
    cl_mem ma = clCreateBuffer(t->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof a, a, &err);
    assert_int_equal(err, CL_SUCCESS);
    cl_mem mb = clCreateBuffer(t->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof b, b, &err);
    cl_mem mc = clCreateBuffer(t->context, CL_MEM_WRITE_ONLY, sizeof c, NULL, &err);
    cl_kernel k = clCreateKernel(p, name, &err);
    assert_int_equal(err, CL_SUCCESS);
    assert_int_equal(clSetKernelArg(k, 0, sizeof ma, &ma), CL_SUCCESS);
    assert_int_equal(clSetKernelArg(k, 1, sizeof mb, &mb), CL_SUCCESS);
    assert_int_equal(clSetKernelArg(k, 2, sizeof mc, &mc), CL_SUCCESS);
    size_t global = ZC_N;
    cl_event run;
    assert_int_equal(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, local, 0, NULL, &run), CL_SUCCESS);
    assert_int_equal(clEnqueueReadBuffer(q, mc, CL_TRUE, 0, sizeof c, c, 1, &run, NULL), CL_SUCCESS);
    for (int i = 0; i < ZC_N; i++)
        assert_int_equal(c[i], 4 * i + 1);
    cl_ulong queued = zc_profile(run, CL_PROFILING_COMMAND_QUEUED),
             submit = zc_profile(run, CL_PROFILING_COMMAND_SUBMIT), start = zc_profile(run, CL_PROFILING_COMMAND_START),
             end = zc_profile(run, CL_PROFILING_COMMAND_END);
    assert_true(queued <= submit);
    assert_true(submit < start);
    assert_true(start < end);
    assert_int_equal(zc_profile(run, CL_PROFILING_COMMAND_COMPLETE), end);
    clReleaseEvent(run);
    clReleaseKernel(k);
    clReleaseMemObject(ma);
    clReleaseMemObject(mb);
    clReleaseMemObject(mc);
}

static void test_platform_by_name(void **state) {
    zc_cl *t = *state;
    char text[256];
    assert_int_equal(clGetPlatformInfo(t->platform, CL_PLATFORM_EXTENSIONS, sizeof text, text, NULL), CL_SUCCESS);
    assert_non_null(strstr(text, "cl_khr_icd"));
    assert_non_null(strstr(text, "cl_khr_il_program"));
    assert_int_equal(clGetPlatformInfo(t->platform, CL_PLATFORM_ICD_SUFFIX_KHR, sizeof text, text, NULL), CL_SUCCESS);
    cl_version v = 0;
    assert_int_equal(clGetPlatformInfo(t->platform, CL_PLATFORM_NUMERIC_VERSION, sizeof v, &v, NULL), CL_SUCCESS);
    assert_int_equal(CL_VERSION_MAJOR(v), 3);
    assert_int_equal(clGetPlatformInfo(t->platform, 0x7fff, sizeof text, text, NULL), CL_INVALID_VALUE);
    assert_int_equal(clGetPlatformInfo(t->platform, CL_PLATFORM_NAME, 2, text, NULL), CL_INVALID_VALUE);
    assert_int_equal(clGetDeviceIDs(t->platform, 0, 1, &t->device, NULL), CL_INVALID_DEVICE_TYPE);
    assert_int_equal(clGetDeviceIDs(t->platform, CL_DEVICE_TYPE_ALL, 0, &t->device, NULL), CL_INVALID_VALUE);
    cl_device_id cpu;
    assert_int_equal(clGetDeviceIDs(t->platform, CL_DEVICE_TYPE_CPU, 1, &cpu, NULL), CL_DEVICE_NOT_FOUND);
}

static const cl_device_info zc_device_queries[] = {CL_DEVICE_TYPE,
                                                   CL_DEVICE_VENDOR_ID,
                                                   CL_DEVICE_MAX_COMPUTE_UNITS,
                                                   CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS,
                                                   CL_DEVICE_MAX_WORK_GROUP_SIZE,
                                                   CL_DEVICE_MAX_WORK_ITEM_SIZES,
                                                   CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR,
                                                   CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE,
                                                   CL_DEVICE_MAX_CLOCK_FREQUENCY,
                                                   CL_DEVICE_ADDRESS_BITS,
                                                   CL_DEVICE_MAX_READ_IMAGE_ARGS,
                                                   CL_DEVICE_MAX_MEM_ALLOC_SIZE,
                                                   CL_DEVICE_IMAGE2D_MAX_WIDTH,
                                                   CL_DEVICE_IMAGE_SUPPORT,
                                                   CL_DEVICE_MAX_PARAMETER_SIZE,
                                                   CL_DEVICE_MAX_SAMPLERS,
                                                   CL_DEVICE_MEM_BASE_ADDR_ALIGN,
                                                   CL_DEVICE_SINGLE_FP_CONFIG,
                                                   CL_DEVICE_DOUBLE_FP_CONFIG,
                                                   CL_DEVICE_GLOBAL_MEM_CACHE_TYPE,
                                                   CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE,
                                                   CL_DEVICE_GLOBAL_MEM_SIZE,
                                                   CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE,
                                                   CL_DEVICE_MAX_CONSTANT_ARGS,
                                                   CL_DEVICE_LOCAL_MEM_TYPE,
                                                   CL_DEVICE_LOCAL_MEM_SIZE,
                                                   CL_DEVICE_ERROR_CORRECTION_SUPPORT,
                                                   CL_DEVICE_PROFILING_TIMER_RESOLUTION,
                                                   CL_DEVICE_ENDIAN_LITTLE,
                                                   CL_DEVICE_AVAILABLE,
                                                   CL_DEVICE_COMPILER_AVAILABLE,
                                                   CL_DEVICE_EXECUTION_CAPABILITIES,
                                                   CL_DEVICE_QUEUE_ON_HOST_PROPERTIES,
                                                   CL_DEVICE_NAME,
                                                   CL_DEVICE_VENDOR,
                                                   CL_DRIVER_VERSION,
                                                   CL_DEVICE_PROFILE,
                                                   CL_DEVICE_VERSION,
                                                   CL_DEVICE_EXTENSIONS,
                                                   CL_DEVICE_PLATFORM,
                                                   CL_DEVICE_HOST_UNIFIED_MEMORY,
                                                   CL_DEVICE_OPENCL_C_VERSION,
                                                   CL_DEVICE_LINKER_AVAILABLE,
                                                   CL_DEVICE_BUILT_IN_KERNELS,
                                                   CL_DEVICE_IMAGE_MAX_BUFFER_SIZE,
                                                   CL_DEVICE_PARENT_DEVICE,
                                                   CL_DEVICE_PARTITION_MAX_SUB_DEVICES,
                                                   CL_DEVICE_PARTITION_PROPERTIES,
                                                   CL_DEVICE_PARTITION_AFFINITY_DOMAIN,
                                                   CL_DEVICE_REFERENCE_COUNT,
                                                   CL_DEVICE_PREFERRED_INTEROP_USER_SYNC,
                                                   CL_DEVICE_PRINTF_BUFFER_SIZE,
                                                   CL_DEVICE_SVM_CAPABILITIES,
                                                   CL_DEVICE_IL_VERSION,
                                                   CL_DEVICE_MAX_NUM_SUB_GROUPS,
                                                   CL_DEVICE_NUMERIC_VERSION,
                                                   CL_DEVICE_EXTENSIONS_WITH_VERSION,
                                                   CL_DEVICE_ILS_WITH_VERSION,
                                                   CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES,
                                                   CL_DEVICE_ATOMIC_FENCE_CAPABILITIES,
                                                   CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT,
                                                   CL_DEVICE_OPENCL_C_ALL_VERSIONS,
                                                   CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE,
                                                   CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT,
                                                   CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT,
                                                   CL_DEVICE_OPENCL_C_FEATURES,
                                                   CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES,
                                                   CL_DEVICE_PIPE_SUPPORT,
                                                   CL_DEVICE_LATEST_CONFORMANCE_VERSION_PASSED,
                                                   CL_DEVICE_UUID_KHR};

static void test_device_queries(void **state) {
    zc_cl *t = *state;
    char value[4096];
    for (size_t i = 0; i < sizeof zc_device_queries / sizeof zc_device_queries[0]; i++) {
        size_t size = 0;
        cl_int err = clGetDeviceInfo(t->device, zc_device_queries[i], sizeof value, value, &size);
        if (err != CL_SUCCESS)
            fail_msg("query 0x%x: %d", (unsigned)zc_device_queries[i], err);
        assert_true(size > 0 || zc_device_queries[i] == CL_DEVICE_BUILT_IN_KERNELS);
    }
    assert_int_equal(clGetDeviceInfo(t->device, CL_DEVICE_IL_VERSION, sizeof value, value, NULL), CL_SUCCESS);
    assert_non_null(strstr(value, "SPIR-V_1.0"));
    assert_int_equal(clGetDeviceInfo(t->device, 0x7fff, sizeof value, value, NULL), CL_INVALID_VALUE);
    assert_int_equal(clGetDeviceInfo(t->device, CL_DEVICE_NAME, 1, value, NULL), CL_INVALID_VALUE);
    assert_int_equal(clGetDeviceInfo((cl_device_id)t->context, CL_DEVICE_NAME, sizeof value, value, NULL),
                     CL_INVALID_DEVICE);
    cl_device_partition_property props[] = {CL_DEVICE_PARTITION_EQUALLY, 2, 0};
    assert_int_equal(clCreateSubDevices(t->device, props, 0, NULL, NULL), CL_INVALID_VALUE);
}

static void test_vadd_from_source_with_profiling(void **state) {
    zc_cl *t = *state;
    cl_program p = zc_build_source(t, zc_vadd_source, "-cl-std=CL1.2 -DUNUSED=1");
    char names[64];
    assert_int_equal(clGetProgramInfo(p, CL_PROGRAM_KERNEL_NAMES, sizeof names, names, NULL), CL_SUCCESS);
    assert_non_null(strstr(names, "vadd"));
    assert_non_null(strstr(names, "scale"));
    size_t local = 64;
    zc_run_vadd(t, t->queue, p, "vadd", &local);
    clReleaseProgram(p);
}

static void test_vadd_from_spirv_out_of_order(void **state) {
    zc_cl *t = *state;
    size_t size;
    void *il = zc_read_file(ZC_KERNEL_DIR "/vadd.spv", &size);
    cl_int err;
    cl_program p = clCreateProgramWithIL(t->context, il, size, &err);
    assert_int_equal(err, CL_SUCCESS);
    assert_int_equal(clBuildProgram(p, 0, NULL, NULL, NULL, NULL), CL_SUCCESS);
    cl_command_queue q = zc_out_of_order_queue(t);
    zc_run_vadd(t, q, p, "vadd_int", NULL); /* NULL local size: the driver chooses */
    size_t got = 0;
    assert_int_equal(clGetProgramInfo(p, CL_PROGRAM_IL, 0, NULL, &got), CL_SUCCESS);
    assert_int_equal(got, size);
    clReleaseCommandQueue(q);
    clReleaseProgram(p);
    free(il);
}

/* An out-of-order queue runs commands without dependencies on several engines of the compute group: two kernels
 * overlap in device time; a barrier orders what follows after both; a marker and clFinish wait for all of them. */
static void test_out_of_order_runs_concurrently(void **state) {
    zc_cl *t = *state;
    cl_int err;
    cl_program p = zc_build_source(t, zc_vadd_source, NULL);
    cl_command_queue q = zc_out_of_order_queue(t);
    static int a[4 * ZC_N], back[4 * ZC_N];
    for (int i = 0; i < 4 * ZC_N; i++)
        a[i] = i;
    cl_mem ma = clCreateBuffer(t->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof a, a, &err);
    cl_mem out[2];
    cl_kernel k[2];
    cl_event run[2], after, marker;
    /* both wait for one user event: released together, neither runs before the other is submitted */
    cl_event gate = clCreateUserEvent(t->context, &err);
    for (int i = 0; i < 2; i++) {
        size_t global = i == 0 ? ZC_N : 4 * ZC_N; /* the second lasts longer */
        out[i] = clCreateBuffer(t->context, CL_MEM_READ_WRITE, sizeof a, NULL, &err);
        k[i] = clCreateKernel(p, "vadd", &err);
        clSetKernelArg(k[i], 0, sizeof ma, &ma);
        clSetKernelArg(k[i], 1, sizeof ma, &ma);
        clSetKernelArg(k[i], 2, sizeof out[i], &out[i]);
        assert_int_equal(clEnqueueNDRangeKernel(q, k[i], 1, NULL, &global, NULL, 1, &gate, &run[i]), CL_SUCCESS);
    }
    assert_int_equal(clEnqueueMarkerWithWaitList(q, 0, NULL, &marker), CL_SUCCESS);
    assert_int_equal(clEnqueueBarrierWithWaitList(q, 0, NULL, NULL), CL_SUCCESS);
    int pattern = 9;
    assert_int_equal(clEnqueueFillBuffer(q, out[0], &pattern, sizeof pattern, 0, sizeof pattern, 0, NULL, &after),
                     CL_SUCCESS);
    assert_int_equal(clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
    assert_int_equal(clWaitForEvents(1, &marker), CL_SUCCESS);
    for (int i = 0; i < 2; i++)
        assert_int_equal(zc_exec_status(run[i]), CL_COMPLETE);
    assert_int_equal(clFinish(q), CL_SUCCESS);
    assert_int_equal(zc_exec_status(after), CL_COMPLETE);
    cl_ulong start[2], end[2];
    for (int i = 0; i < 2; i++) {
        start[i] = zc_profile(run[i], CL_PROFILING_COMMAND_START);
        end[i] = zc_profile(run[i], CL_PROFILING_COMMAND_END);
    }
    assert_true(start[1] < end[0] && start[0] < end[1]); /* the two kernels overlap */
    /* a barrier holds back later commands until every earlier one is done: here one waiting for a user event */
    cl_event user = clCreateUserEvent(t->context, &err), held, late;
    assert_int_equal(clEnqueueMarkerWithWaitList(q, 1, &user, &held), CL_SUCCESS);
    assert_int_equal(clEnqueueBarrierWithWaitList(q, 0, NULL, NULL), CL_SUCCESS);
    assert_int_equal(clEnqueueFillBuffer(q, out[1], &pattern, sizeof pattern, 0, sizeof pattern, 0, NULL, &late),
                     CL_SUCCESS);
    for (int i = 0; i < 20; i++) {
        usleep(5000);
        assert_int_not_equal(zc_exec_status(late), CL_COMPLETE);
    }
    assert_int_equal(clSetUserEventStatus(user, CL_COMPLETE), CL_SUCCESS);
    assert_int_equal(clFinish(q), CL_SUCCESS);
    assert_int_equal(zc_exec_status(late), CL_COMPLETE);
    clReleaseEvent(user);
    clReleaseEvent(held);
    clReleaseEvent(late);
    assert_int_equal(clEnqueueReadBuffer(q, out[0], CL_TRUE, 0, ZC_N * sizeof *back, back, 0, NULL, NULL), CL_SUCCESS);
    assert_int_equal(back[0], pattern); /* the fill ran after the kernel */
    for (int i = 1; i < ZC_N; i++)
        assert_int_equal(back[i], 2 * i);
    for (int i = 0; i < 2; i++) {
        clReleaseEvent(run[i]);
        clReleaseKernel(k[i]);
        clReleaseMemObject(out[i]);
    }
    clReleaseEvent(after);
    clReleaseEvent(marker);
    clReleaseEvent(gate);
    clReleaseMemObject(ma);
    clReleaseCommandQueue(q);
    clReleaseProgram(p);
}

/* The profiling times are the device clock of Level Zero: they fall between two global timestamps read around. */
static void test_profiling_is_level_zero_device_time(void **state) {
    zc_cl *t = *state;
    assert_int_equal(zeInit(0), ZE_RESULT_SUCCESS);
    uint32_t n = 1;
    ze_driver_handle_t driver;
    assert_int_equal(zeDriverGet(&n, &driver), ZE_RESULT_SUCCESS);
    ze_device_handle_t dev;
    n = 1;
    assert_int_equal(zeDeviceGet(driver, &n, &dev), ZE_RESULT_SUCCESS);
    ze_device_properties_t props = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2};
    assert_int_equal(zeDeviceGetProperties(dev, &props), ZE_RESULT_SUCCESS);
    uint64_t host, before, after;
    assert_int_equal(zeDeviceGetGlobalTimestamps(dev, &host, &before), ZE_RESULT_SUCCESS);
    cl_program p = zc_build_source(t, zc_vadd_source, NULL);
    cl_mem m = clCreateBuffer(t->context, CL_MEM_READ_WRITE, 4096, NULL, NULL);
    int zero = 0;
    cl_event e;
    assert_int_equal(clEnqueueFillBuffer(t->queue, m, &zero, sizeof zero, 0, 4096, 0, NULL, &e), CL_SUCCESS);
    assert_int_equal(clFinish(t->queue), CL_SUCCESS);
    assert_int_equal(zeDeviceGetGlobalTimestamps(dev, &host, &after), ZE_RESULT_SUCCESS);
    double ns_per_tick = 1e9 / (double)props.timerResolution;
    cl_ulong device_now = 0, host_now = 0;
    assert_int_equal(clGetDeviceAndHostTimer(t->device, &device_now, &host_now), CL_SUCCESS);
    assert_true((double)device_now >= (double)after * ns_per_tick); /* the same device clock, read later */
    assert_true(host_now > 0);
    assert_int_equal(clGetDeviceAndHostTimer(t->device, NULL, &host_now), CL_INVALID_VALUE);
    cl_ulong start = zc_profile(e, CL_PROFILING_COMMAND_START), end = zc_profile(e, CL_PROFILING_COMMAND_END);
    assert_true((double)start >= (double)before * ns_per_tick - 1.0);
    assert_true((double)end <= (double)after * ns_per_tick + 1.0);
    clReleaseEvent(e);
    clReleaseMemObject(m);
    clReleaseProgram(p);
}

static void test_build_failure_has_log(void **state) {
    zc_cl *t = *state;
    const char *bad = "kernel void broken(global int *p) { p[0] = undeclared_name; }\n";
    cl_int err;
    cl_program p = clCreateProgramWithSource(t->context, 1, &bad, NULL, &err);
    assert_int_equal(clBuildProgram(p, 1, &t->device, NULL, NULL, NULL), CL_BUILD_PROGRAM_FAILURE);
    cl_build_status status;
    assert_int_equal(clGetProgramBuildInfo(p, t->device, CL_PROGRAM_BUILD_STATUS, sizeof status, &status, NULL),
                     CL_SUCCESS);
    assert_int_equal(status, CL_BUILD_ERROR);
    char log[4096] = "";
    assert_int_equal(clGetProgramBuildInfo(p, t->device, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL), CL_SUCCESS);
    assert_non_null(strstr(log, "undeclared_name"));
    assert_non_null(strstr(log, "error"));
    assert_null(clCreateKernel(p, "broken", &err));
    assert_int_equal(err, CL_INVALID_PROGRAM_EXECUTABLE);
    assert_int_equal(clBuildProgram(p, 1, &t->device, "-no-such-option", NULL, NULL), CL_INVALID_BUILD_OPTIONS);
    clReleaseProgram(p);
}

static void test_binary_round_trip(void **state) {
    zc_cl *t = *state;
    cl_program p = zc_build_source(t, zc_vadd_source, NULL);
    size_t size = 0;
    assert_int_equal(clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL), CL_SUCCESS);
    assert_true(size > 0);
    unsigned char *binary = malloc(size);
    assert_int_equal(clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof binary, &binary, NULL), CL_SUCCESS);
    cl_int status, err;
    const unsigned char *in = binary;
    cl_program q = clCreateProgramWithBinary(t->context, 1, &t->device, &size, &in, &status, &err);
    assert_int_equal(err, CL_SUCCESS);
    assert_int_equal(status, CL_SUCCESS);
    assert_int_equal(clBuildProgram(q, 0, NULL, NULL, NULL, NULL), CL_SUCCESS);
    zc_run_vadd(t, t->queue, q, "vadd", NULL);
    unsigned char junk[64] = {1, 2, 3};
    const unsigned char *bad = junk;
    size_t bad_size = sizeof junk;
    assert_null(clCreateProgramWithBinary(t->context, 1, &t->device, &bad_size, &bad, &status, &err));
    assert_int_equal(err, CL_INVALID_BINARY);
    assert_int_equal(status, CL_INVALID_BINARY);
    clReleaseProgram(q);
    clReleaseProgram(p);
    free(binary);
}

static void test_compile_and_link(void **state) {
    zc_cl *t = *state;
    const char *lib = "#include \"twice.h\"\nint twice(int x) { return TWICE(x); }\n";
    const char *header = "#define TWICE(x) (2 * (x))\n";
    const char *main_src = "int twice(int x);\nkernel void run(global int *p) { p[get_global_id(0)] = "
                           "twice(p[get_global_id(0)]); }\n";
    cl_int err;
    cl_program h = clCreateProgramWithSource(t->context, 1, &header, NULL, &err);
    cl_program a = clCreateProgramWithSource(t->context, 1, &lib, NULL, &err);
    cl_program b = clCreateProgramWithSource(t->context, 1, &main_src, NULL, &err);
    const char *names[] = {"twice.h"};
    assert_int_equal(clCompileProgram(a, 0, NULL, NULL, 1, &h, names, NULL, NULL), CL_SUCCESS);
    assert_int_equal(clCompileProgram(b, 0, NULL, NULL, 0, NULL, NULL, NULL, NULL), CL_SUCCESS);
    cl_program_binary_type type;
    assert_int_equal(clGetProgramBuildInfo(a, t->device, CL_PROGRAM_BINARY_TYPE, sizeof type, &type, NULL), CL_SUCCESS);
    assert_int_equal(type, CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT);
    cl_program inputs[] = {b, a};
    cl_program linked = clLinkProgram(t->context, 0, NULL, NULL, 2, inputs, NULL, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    cl_kernel k = clCreateKernel(linked, "run", &err);
    assert_int_equal(err, CL_SUCCESS);
    int data[16];
    for (int i = 0; i < 16; i++)
        data[i] = i;
    cl_mem m = clCreateBuffer(t->context, CL_MEM_USE_HOST_PTR, sizeof data, data, &err);
    assert_int_equal(clSetKernelArg(k, 0, sizeof m, &m), CL_SUCCESS);
    size_t global = 16;
    assert_int_equal(clEnqueueNDRangeKernel(t->queue, k, 1, NULL, &global, NULL, 0, NULL, NULL), CL_SUCCESS);
    int *mapped = clEnqueueMapBuffer(t->queue, m, CL_TRUE, CL_MAP_READ, 0, sizeof data, 0, NULL, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    assert_ptr_equal(mapped, data); /* CL_MEM_USE_HOST_PTR maps at the application's memory */
    for (int i = 0; i < 16; i++)
        assert_int_equal(mapped[i], 2 * i);
    assert_int_equal(clEnqueueUnmapMemObject(t->queue, m, mapped, 0, NULL, NULL), CL_SUCCESS);
    assert_int_equal(clCompileProgram(linked, 0, NULL, NULL, 0, NULL, NULL, NULL, NULL), CL_INVALID_OPERATION);
    assert_null(clLinkProgram(t->context, 0, NULL, NULL, 1, &h, NULL, NULL, &err));
    assert_int_equal(err, CL_INVALID_OPERATION);
    assert_int_equal(clFinish(t->queue), CL_SUCCESS);
    clReleaseMemObject(m);
    clReleaseKernel(k);
    clReleaseProgram(linked);
    clReleaseProgram(a);
    clReleaseProgram(b);
    clReleaseProgram(h);
}

static void test_buffer_commands(void **state) {
    zc_cl *t = *state;
    cl_int err;
    unsigned char host[256], back[256];
    for (int i = 0; i < 256; i++)
        host[i] = (unsigned char)i;
    cl_mem a = clCreateBuffer(t->context, CL_MEM_READ_WRITE, 256, NULL, &err);
    cl_mem b = clCreateBuffer(t->context, CL_MEM_READ_WRITE, 256, NULL, &err);
    assert_int_equal(clEnqueueWriteBuffer(t->queue, a, CL_FALSE, 0, 256, host, 0, NULL, NULL), CL_SUCCESS);
    assert_int_equal(clEnqueueCopyBuffer(t->queue, a, b, 16, 32, 64, 0, NULL, NULL), CL_SUCCESS);
    assert_int_equal(clEnqueueReadBuffer(t->queue, b, CL_TRUE, 32, 64, back, 0, NULL, NULL), CL_SUCCESS);
    assert_memory_equal(back, host + 16, 64);
    uint16_t pattern = 0xabcd;
    assert_int_equal(clEnqueueFillBuffer(t->queue, b, &pattern, 2, 0, 256, 0, NULL, NULL), CL_SUCCESS);
    uint16_t *map = clEnqueueMapBuffer(t->queue, b, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, 256, 0, NULL, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    assert_int_equal(map[100], 0xabcd);
    map[0] = 7;
    cl_uint count = 0;
    assert_int_equal(clGetMemObjectInfo(b, CL_MEM_MAP_COUNT, sizeof count, &count, NULL), CL_SUCCESS);
    assert_int_equal(count, 1);
    assert_int_equal(clEnqueueUnmapMemObject(t->queue, b, map, 0, NULL, NULL), CL_SUCCESS);
    assert_int_equal(clEnqueueUnmapMemObject(t->queue, b, map, 0, NULL, NULL), CL_INVALID_VALUE);
    /* a 4x4 block at (2, 3) of a 16-byte-pitch buffer read into a tight 4x4 block */
    size_t origin[3] = {2, 3, 0}, host_origin[3] = {0, 0, 0}, region[3] = {4, 4, 1};
    unsigned char block[16];
    assert_int_equal(
        clEnqueueReadBufferRect(t->queue, a, CL_TRUE, origin, host_origin, region, 16, 0, 4, 0, block, 0, NULL, NULL),
        CL_SUCCESS);
    for (int y = 0; y < 4; y++)
        for (int x = 0; x < 4; x++)
            assert_int_equal(block[y * 4 + x], (3 + y) * 16 + 2 + x);
    cl_buffer_region sub_region = {128, 64};
    cl_mem sub = clCreateSubBuffer(a, CL_MEM_READ_ONLY, CL_BUFFER_CREATE_TYPE_REGION, &sub_region, &err);
    assert_int_equal(err, CL_SUCCESS);
    assert_int_equal(clEnqueueReadBuffer(t->queue, sub, CL_TRUE, 0, 64, back, 0, NULL, NULL), CL_SUCCESS);
    assert_memory_equal(back, host + 128, 64);
    cl_buffer_region misaligned = {4, 16};
    assert_null(clCreateSubBuffer(a, 0, CL_BUFFER_CREATE_TYPE_REGION, &misaligned, &err));
    assert_int_equal(err, CL_MISALIGNED_SUB_BUFFER_OFFSET);
    clReleaseMemObject(sub);
    clReleaseMemObject(a);
    clReleaseMemObject(b);
}

static int zc_callback_calls;
static void CL_CALLBACK zc_on_complete(cl_event e, cl_int status, void *data) {
    (void)e;
    if (status == CL_COMPLETE)
        __atomic_add_fetch((int *)data, 1, __ATOMIC_SEQ_CST);
}

/* The status each callback of zc_on_status saw, per slot (0: not called). */
static _Atomic cl_int zc_seen_status[3];
static void CL_CALLBACK zc_on_status(cl_event e, cl_int status, void *data) {
    (void)e;
    zc_seen_status[(intptr_t)data] = status;
}

/* Waits (a bounded number of clFinish round trips) until the callback of `slot` has run; returns what it saw. */
static cl_int zc_await_callback(cl_command_queue q, int slot) {
    for (int i = 0; i < 1000 && zc_seen_status[slot] == 0; i++)
        clFinish(q);
    return zc_seen_status[slot];
}

/* A negative user event status terminates every command waiting for it, directly, through other events or as the
 * next command of an in-order queue: none executes, each ends with CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST and
 * its callbacks see that status. Commands enqueued afterwards run. */
static void test_user_event_failure_terminates(void **state) {
    zc_cl *t = *state;
    cl_int err;
    cl_program p = zc_build_source(t, zc_vadd_source, NULL);
    cl_kernel k = clCreateKernel(p, "vadd", &err);
    int a[ZC_N], c[ZC_N];
    for (int i = 0; i < ZC_N; i++)
        a[i] = i;
    cl_mem ma = clCreateBuffer(t->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof a, a, &err);
    cl_mem mc = clCreateBuffer(t->context, CL_MEM_READ_WRITE, sizeof c, NULL, &err);
    int fill = 0x55;
    assert_int_equal(clEnqueueFillBuffer(t->queue, mc, &fill, sizeof fill, 0, sizeof c, 0, NULL, NULL), CL_SUCCESS);
    assert_int_equal(clFinish(t->queue), CL_SUCCESS);
    clSetKernelArg(k, 0, sizeof ma, &ma);
    clSetKernelArg(k, 1, sizeof ma, &ma);
    clSetKernelArg(k, 2, sizeof mc, &mc);
    cl_command_queue other = clCreateCommandQueueWithProperties(t->context, t->device, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    cl_event user = clCreateUserEvent(t->context, &err), run, chained, next;
    size_t global = ZC_N;
    zc_seen_status[0] = zc_seen_status[1] = zc_seen_status[2] = 0;
    assert_int_equal(clEnqueueNDRangeKernel(t->queue, k, 1, NULL, &global, NULL, 1, &user, &run), CL_SUCCESS);
    assert_int_equal(clEnqueueMarkerWithWaitList(other, 1, &run, &chained), CL_SUCCESS); /* through a chain */
    int overwrite = 7;
    assert_int_equal(clEnqueueFillBuffer(t->queue, mc, &overwrite, sizeof overwrite, 0, sizeof c, 0, NULL, &next),
                     CL_SUCCESS); /* in order after the kernel */
    assert_int_equal(clSetEventCallback(run, CL_COMPLETE, zc_on_status, (void *)0), CL_SUCCESS);
    assert_int_equal(clSetEventCallback(chained, CL_COMPLETE, zc_on_status, (void *)1), CL_SUCCESS);
    assert_int_equal(clSetEventCallback(next, CL_COMPLETE, zc_on_status, (void *)2), CL_SUCCESS);
    assert_int_equal(clSetUserEventStatus(user, -42), CL_SUCCESS);
    assert_int_equal(clWaitForEvents(1, &run), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    assert_int_equal(clWaitForEvents(1, &chained), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    assert_int_equal(clFinish(t->queue), CL_SUCCESS); /* clFinish has no such error: it returns once all are done */
    assert_int_equal(clFinish(other), CL_SUCCESS);
    assert_int_equal(zc_exec_status(user), -42);
    assert_int_equal(zc_exec_status(run), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    assert_int_equal(zc_exec_status(chained), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    assert_int_equal(zc_exec_status(next), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    for (int slot = 0; slot < 3; slot++)
        assert_int_equal(zc_await_callback(t->queue, slot), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    /* a blocking command waiting for a terminated one is terminated too, and writes nothing */
    c[0] = -1;
    assert_int_equal(clEnqueueReadBuffer(t->queue, mc, CL_TRUE, 0, sizeof c, c, 1, &chained, NULL),
                     CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    assert_int_equal(c[0], -1);
    /* nothing executed: the buffer keeps its fill; the queue goes on with new commands */
    assert_int_equal(clEnqueueReadBuffer(t->queue, mc, CL_TRUE, 0, sizeof c, c, 0, NULL, NULL), CL_SUCCESS);
    for (int i = 0; i < ZC_N; i++)
        assert_int_equal(c[i], fill);
    /* released with a complete user event, a held chain executes in order */
    cl_event go = clCreateUserEvent(t->context, &err), later;
    assert_int_equal(clEnqueueNDRangeKernel(t->queue, k, 1, NULL, &global, NULL, 1, &go, &later), CL_SUCCESS);
    assert_int_equal(clEnqueueReadBuffer(other, mc, CL_FALSE, 0, sizeof c, c, 1, &later, NULL), CL_SUCCESS);
    assert_int_equal(zc_exec_status(later), CL_SUBMITTED);
    assert_int_equal(clSetUserEventStatus(go, CL_COMPLETE), CL_SUCCESS);
    assert_int_equal(clFinish(other), CL_SUCCESS);
    for (int i = 0; i < ZC_N; i++)
        assert_int_equal(c[i], 2 * i);
    cl_event all[] = {user, run, chained, next, go, later};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        clReleaseEvent(all[i]);
    clReleaseCommandQueue(other);
    clReleaseMemObject(ma);
    clReleaseMemObject(mc);
    clReleaseKernel(k);
    clReleaseProgram(p);
}

static int zc_destroyed[2], zc_destroy_order;
static void CL_CALLBACK zc_on_destroy(cl_context c, void *data) {
    (void)c;
    *(int *)data = ++zc_destroy_order;
}

static void test_events_user_marker_barrier(void **state) {
    zc_cl *t = *state;
    cl_int err;
    cl_event user = clCreateUserEvent(t->context, &err);
    assert_int_equal(err, CL_SUCCESS);
    cl_mem m = clCreateBuffer(t->context, CL_MEM_READ_WRITE, 64, NULL, &err);
    int v = 5, out = 0;
    cl_event write;
    assert_int_equal(clEnqueueWriteBuffer(t->queue, m, CL_FALSE, 0, sizeof v, &v, 1, &user, &write), CL_SUCCESS);
    assert_int_equal(clSetEventCallback(write, CL_COMPLETE, zc_on_complete, &zc_callback_calls), CL_SUCCESS);
    cl_int status;
    assert_int_equal(clGetEventInfo(write, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL),
                     CL_SUCCESS);
    assert_true(status > CL_COMPLETE); /* held back by the user event */
    assert_int_equal(clSetUserEventStatus(user, CL_COMPLETE), CL_SUCCESS);
    assert_int_equal(clSetUserEventStatus(user, CL_COMPLETE), CL_INVALID_OPERATION);
    cl_event marker;
    assert_int_equal(clEnqueueMarkerWithWaitList(t->queue, 1, &write, &marker), CL_SUCCESS);
    assert_int_equal(clEnqueueBarrierWithWaitList(t->queue, 0, NULL, NULL), CL_SUCCESS);
    assert_int_equal(clWaitForEvents(1, &marker), CL_SUCCESS);
    assert_int_equal(clEnqueueReadBuffer(t->queue, m, CL_TRUE, 0, sizeof out, &out, 0, NULL, NULL), CL_SUCCESS);
    assert_int_equal(out, 5);
    for (int i = 0; i < 1000 && __atomic_load_n(&zc_callback_calls, __ATOMIC_SEQ_CST) == 0; i++)
        clFinish(t->queue);
    assert_int_equal(clGetEventInfo(write, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL),
                     CL_SUCCESS);
    assert_int_equal(status, CL_COMPLETE);
    cl_command_type type;
    assert_int_equal(clGetEventInfo(marker, CL_EVENT_COMMAND_TYPE, sizeof type, &type, NULL), CL_SUCCESS);
    assert_int_equal(type, CL_COMMAND_MARKER);
    cl_ulong x;
    assert_int_equal(clGetEventProfilingInfo(user, CL_PROFILING_COMMAND_START, sizeof x, &x, NULL),
                     CL_PROFILING_INFO_NOT_AVAILABLE);
    clReleaseEvent(marker);
    clReleaseEvent(write);
    clReleaseEvent(user);
    clReleaseMemObject(m);
    /* context destructor callbacks run in reverse order of registration */
    cl_context c = clCreateContext(NULL, 1, &t->device, NULL, NULL, &err);
    assert_int_equal(clSetContextDestructorCallback(c, zc_on_destroy, &zc_destroyed[0]), CL_SUCCESS);
    assert_int_equal(clSetContextDestructorCallback(c, zc_on_destroy, &zc_destroyed[1]), CL_SUCCESS);
    assert_int_equal(clReleaseContext(c), CL_SUCCESS);
    assert_int_equal(zc_destroyed[1], 1);
    assert_int_equal(zc_destroyed[0], 2);
}

static void test_kernel_args_and_work_groups(void **state) {
    zc_cl *t = *state;
    cl_program p = zc_build_source(t, zc_vadd_source, NULL);
    cl_int err;
    cl_kernel k = clCreateKernel(p, "scale", &err);
    assert_int_equal(err, CL_SUCCESS);
    int data[64];
    for (int i = 0; i < 64; i++)
        data[i] = i;
    cl_mem m = clCreateBuffer(t->context, CL_MEM_COPY_HOST_PTR, sizeof data, data, &err);
    int factor = 3;
    cl_uint nargs;
    assert_int_equal(clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof nargs, &nargs, NULL), CL_SUCCESS);
    assert_int_equal(nargs, 3);
    assert_int_equal(clSetKernelArg(k, 3, sizeof factor, &factor), CL_INVALID_ARG_INDEX);
    assert_int_equal(clSetKernelArg(k, 1, 2, &factor), CL_INVALID_ARG_SIZE);
    assert_int_equal(clSetKernelArg(k, 1, sizeof factor, NULL), CL_INVALID_ARG_VALUE);
    assert_int_equal(clSetKernelArg(k, 0, 4, &m), CL_INVALID_ARG_SIZE);
    cl_mem bogus = (cl_mem)k;
    assert_int_equal(clSetKernelArg(k, 0, sizeof bogus, &bogus), CL_INVALID_MEM_OBJECT);
    assert_int_equal(clSetKernelArg(k, 2, 64, &factor), CL_INVALID_ARG_VALUE);
    assert_int_equal(clSetKernelArg(k, 2, 0, NULL), CL_INVALID_ARG_SIZE);
    size_t global = 64, local = 16, offset = 16, odd = 5, big = 4096;
    assert_int_equal(clEnqueueNDRangeKernel(t->queue, k, 1, NULL, &global, &local, 0, NULL, NULL),
                     CL_INVALID_KERNEL_ARGS);
    assert_int_equal(clSetKernelArg(k, 0, sizeof m, &m), CL_SUCCESS);
    assert_int_equal(clSetKernelArg(k, 1, sizeof factor, &factor), CL_SUCCESS);
    assert_int_equal(clSetKernelArg(k, 2, local * sizeof(int), NULL), CL_SUCCESS);
    assert_int_equal(clEnqueueNDRangeKernel(t->queue, k, 0, NULL, &global, &local, 0, NULL, NULL),
                     CL_INVALID_WORK_DIMENSION);
    assert_int_equal(clEnqueueNDRangeKernel(t->queue, k, 1, NULL, NULL, &local, 0, NULL, NULL), CL_INVALID_VALUE);
    assert_int_equal(clEnqueueNDRangeKernel(t->queue, k, 1, NULL, &global, &odd, 0, NULL, NULL),
                     CL_INVALID_WORK_GROUP_SIZE);
    assert_int_equal(clEnqueueNDRangeKernel(t->queue, k, 1, NULL, &global, &big, 0, NULL, NULL),
                     CL_INVALID_WORK_ITEM_SIZE);
    size_t rest = 48; /* items 16..63 through the global offset, by a clone with the same arguments */
    cl_kernel clone = clCloneKernel(k, &err);
    assert_int_equal(err, CL_SUCCESS);
    assert_int_equal(clEnqueueNDRangeKernel(t->queue, clone, 1, &offset, &rest, &local, 0, NULL, NULL), CL_SUCCESS);
    clReleaseKernel(clone);
    assert_int_equal(clEnqueueReadBuffer(t->queue, m, CL_TRUE, 0, sizeof data, data, 0, NULL, NULL), CL_SUCCESS);
    for (int i = 0; i < 64; i++)
        assert_int_equal(data[i], i < 16 ? i : 3 * i);
    size_t wg = 0;
    assert_int_equal(clGetKernelWorkGroupInfo(k, t->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg, NULL),
                     CL_SUCCESS);
    assert_true(wg >= 16);
    assert_int_equal(clGetKernelWorkGroupInfo(k, NULL, CL_KERNEL_GLOBAL_WORK_SIZE, sizeof wg, &wg, NULL),
                     CL_INVALID_VALUE);
    assert_int_equal(clGetKernelArgInfo(k, 0, CL_KERNEL_ARG_NAME, 0, NULL, NULL), CL_KERNEL_ARG_INFO_NOT_AVAILABLE);
    size_t sg_size = 0, sg_count = 0;
    assert_int_equal(clGetKernelSubGroupInfo(k, t->device, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE, sizeof local,
                                             &local, sizeof sg_size, &sg_size, NULL),
                     CL_SUCCESS);
    assert_true(sg_size >= 1 && sg_size <= 64);
    assert_int_equal(clGetKernelSubGroupInfo(k, t->device, CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE, sizeof local, &local,
                                             sizeof sg_count, &sg_count, NULL),
                     CL_SUCCESS);
    assert_int_equal(sg_count, (local + sg_size - 1) / sg_size);
    assert_int_equal(clGetKernelSubGroupInfo(k, t->device, CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE, 0, NULL,
                                             sizeof sg_count, &sg_count, NULL),
                     CL_INVALID_VALUE);
    assert_int_equal(clBuildProgram(p, 0, NULL, NULL, NULL, NULL), CL_INVALID_OPERATION); /* a kernel is attached */
    assert_null(clCreateKernel(p, "nope", &err));
    assert_int_equal(err, CL_INVALID_KERNEL_NAME);
    clReleaseMemObject(m);
    clReleaseKernel(k);
    clReleaseProgram(p);
}

/* Wrong arguments of every implemented function class: invalid objects, NULL and out-of-range values. */
static void test_invalid_arguments(void **state) {
    zc_cl *t = *state;
    cl_int err;
    cl_context not_context = (cl_context)t->queue;
    cl_command_queue not_queue = (cl_command_queue)t->context;
    assert_null(clCreateContext(NULL, 0, NULL, NULL, NULL, &err));
    assert_int_equal(err, CL_INVALID_VALUE);
    cl_context_properties bad_props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)t->context, 0};
    assert_null(clCreateContext(bad_props, 1, &t->device, NULL, NULL, &err));
    assert_int_equal(err, CL_INVALID_PLATFORM);
    cl_context_properties unknown[] = {0x7777, 1, 0};
    assert_null(clCreateContext(unknown, 1, &t->device, NULL, NULL, &err));
    assert_int_equal(err, CL_INVALID_PROPERTY);
    cl_device_id not_device = (cl_device_id)t->queue;
    assert_null(clCreateContext(NULL, 1, &not_device, NULL, NULL, &err));
    assert_int_equal(err, CL_INVALID_DEVICE);
    assert_int_equal(clRetainContext(not_context), CL_INVALID_CONTEXT);
    assert_int_equal(clReleaseContext(NULL), CL_INVALID_CONTEXT);
    assert_int_equal(clGetContextInfo(t->context, 0x7777, 0, NULL, NULL), CL_INVALID_VALUE);
    assert_null(clCreateCommandQueue(not_context, t->device, 0, &err));
    assert_int_equal(err, CL_INVALID_CONTEXT);
    assert_null(clCreateCommandQueue(t->context, not_device, 0, &err));
    assert_int_equal(err, CL_INVALID_DEVICE);
    assert_null(clCreateCommandQueue(t->context, t->device, 1u << 20, &err));
    assert_int_equal(err, CL_INVALID_VALUE);
    assert_null(clCreateCommandQueue(t->context, t->device, CL_QUEUE_ON_DEVICE, &err));
    assert_int_equal(err, CL_INVALID_QUEUE_PROPERTIES);
    assert_int_equal(clFinish(not_queue), CL_INVALID_COMMAND_QUEUE);
    assert_int_equal(clFlush(NULL), CL_INVALID_COMMAND_QUEUE);
    assert_int_equal(clGetCommandQueueInfo(t->queue, 0x7777, 0, NULL, NULL), CL_INVALID_VALUE);
    /* buffers */
    assert_null(clCreateBuffer(t->context, 0, 0, NULL, &err));
    assert_int_equal(err, CL_INVALID_BUFFER_SIZE);
    assert_null(clCreateBuffer(t->context, CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY, 16, NULL, &err));
    assert_int_equal(err, CL_INVALID_VALUE);
    assert_null(clCreateBuffer(t->context, CL_MEM_USE_HOST_PTR, 16, NULL, &err));
    assert_int_equal(err, CL_INVALID_HOST_PTR);
    assert_null(clCreateBuffer(not_context, 0, 16, NULL, &err));
    assert_int_equal(err, CL_INVALID_CONTEXT);
    cl_mem_properties mprops[] = {0x7777, 1, 0};
    assert_null(clCreateBufferWithProperties(t->context, mprops, 0, 16, NULL, &err));
    assert_int_equal(err, CL_INVALID_PROPERTY);
    cl_mem m = clCreateBuffer(t->context, CL_MEM_HOST_NO_ACCESS, 64, NULL, &err);
    char host[64];
    assert_int_equal(clEnqueueReadBuffer(t->queue, m, CL_TRUE, 0, 64, host, 0, NULL, NULL), CL_INVALID_OPERATION);
    cl_mem rw = clCreateBuffer(t->context, 0, 64, NULL, &err);
    assert_int_equal(clEnqueueReadBuffer(t->queue, rw, CL_TRUE, 32, 64, host, 0, NULL, NULL), CL_INVALID_VALUE);
    assert_int_equal(clEnqueueReadBuffer(t->queue, rw, CL_TRUE, 0, 64, NULL, 0, NULL, NULL), CL_INVALID_VALUE);
    assert_int_equal(clEnqueueWriteBuffer(not_queue, rw, CL_TRUE, 0, 64, host, 0, NULL, NULL),
                     CL_INVALID_COMMAND_QUEUE);
    assert_int_equal(clEnqueueWriteBuffer(t->queue, (cl_mem)t->queue, CL_TRUE, 0, 64, host, 0, NULL, NULL),
                     CL_INVALID_MEM_OBJECT);
    assert_int_equal(clEnqueueReadBuffer(t->queue, rw, CL_TRUE, 0, 64, host, 1, NULL, NULL),
                     CL_INVALID_EVENT_WAIT_LIST);
    assert_int_equal(clEnqueueCopyBuffer(t->queue, rw, rw, 0, 16, 32, 0, NULL, NULL), CL_MEM_COPY_OVERLAP);
    int pattern = 0;
    assert_int_equal(clEnqueueFillBuffer(t->queue, rw, &pattern, 3, 0, 63, 0, NULL, NULL), CL_INVALID_VALUE);
    assert_null(clEnqueueMapBuffer(t->queue, rw, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE_INVALIDATE_REGION, 0, 64, 0, NULL,
                                   NULL, &err));
    assert_int_equal(err, CL_INVALID_VALUE);
    size_t origin[3] = {0, 0, 0}, region[3] = {16, 8, 1};
    assert_int_equal(
        clEnqueueWriteBufferRect(t->queue, rw, CL_TRUE, origin, origin, region, 16, 0, 16, 0, host, 0, NULL, NULL),
        CL_INVALID_VALUE); /* 16 x 8 bytes do not fit in 64 */
    assert_int_equal(clGetMemObjectInfo(rw, 0x7777, 0, NULL, NULL), CL_INVALID_VALUE);
    assert_int_equal(clReleaseMemObject((cl_mem)t->context), CL_INVALID_MEM_OBJECT);
    assert_int_equal(clSetMemObjectDestructorCallback(rw, NULL, NULL), CL_INVALID_VALUE);
    /* programs, kernels, events */
    assert_null(clCreateProgramWithSource(t->context, 0, NULL, NULL, &err));
    assert_int_equal(err, CL_INVALID_VALUE);
    int not_spirv[8] = {0};
    assert_null(clCreateProgramWithIL(t->context, not_spirv, sizeof not_spirv, &err));
    assert_int_equal(err, CL_INVALID_VALUE);
    assert_int_equal(clBuildProgram((cl_program)t->context, 0, NULL, NULL, NULL, NULL), CL_INVALID_PROGRAM);
    assert_null(clCreateKernel((cl_program)t->context, "x", &err));
    assert_int_equal(err, CL_INVALID_PROGRAM);
    assert_int_equal(clSetKernelArg((cl_kernel)t->context, 0, 0, NULL), CL_INVALID_KERNEL);
    assert_int_equal(clWaitForEvents(0, NULL), CL_INVALID_VALUE);
    cl_event not_event = (cl_event)t->context;
    assert_int_equal(clWaitForEvents(1, &not_event), CL_INVALID_EVENT);
    assert_int_equal(clSetUserEventStatus(not_event, CL_COMPLETE), CL_INVALID_EVENT);
    assert_int_equal(clReleaseEvent(NULL), CL_INVALID_EVENT);
    assert_null(clCreateUserEvent(not_context, &err));
    assert_int_equal(err, CL_INVALID_CONTEXT);
    /* a function the devices do not offer answers its "not supported" result, never a crash */
    assert_null(clSVMAlloc(t->context, 0, 0, 0));
    assert_null(clCreatePipe(t->context, 0, 4, 4, NULL, &err));
    assert_int_equal(err, CL_INVALID_OPERATION);
    clReleaseMemObject(m);
    clReleaseMemObject(rw);
}

/* The wrong-argument answers of the functions test_invalid_arguments leaves out: retain/release and info queries of
 * every object type, programs and kernels, events and profiling, sub-buffers, migration, SVM and USM. */
static void test_invalid_arguments_more(void **state) {
    zc_cl *t = *state;
    cl_int err;
    void *bogus = t->context; /* a live handle of another type */
    char value[64];
    cl_program p = zc_build_source(t, zc_vadd_source, NULL);
    cl_kernel k = clCreateKernel(p, "vadd", &err);
    cl_mem m = clCreateBuffer(t->context, CL_MEM_READ_ONLY, 256, NULL, &err);
    cl_event user = clCreateUserEvent(t->context, &err);
    /* retain, release and info of each type given a handle of another type */
    assert_int_equal(clRetainCommandQueue((cl_command_queue)bogus), CL_INVALID_COMMAND_QUEUE);
    assert_int_equal(clReleaseCommandQueue((cl_command_queue)bogus), CL_INVALID_COMMAND_QUEUE);
    assert_int_equal(clRetainMemObject((cl_mem)bogus), CL_INVALID_MEM_OBJECT);
    assert_int_equal(clRetainProgram((cl_program)bogus), CL_INVALID_PROGRAM);
    assert_int_equal(clReleaseProgram((cl_program)bogus), CL_INVALID_PROGRAM);
    assert_int_equal(clRetainKernel((cl_kernel)bogus), CL_INVALID_KERNEL);
    assert_int_equal(clReleaseKernel((cl_kernel)bogus), CL_INVALID_KERNEL);
    assert_int_equal(clRetainEvent((cl_event)bogus), CL_INVALID_EVENT);
    assert_int_equal(clRetainDevice((cl_device_id)bogus), CL_INVALID_DEVICE);
    assert_int_equal(clReleaseDevice((cl_device_id)bogus), CL_INVALID_DEVICE);
    assert_int_equal(clGetContextInfo((cl_context)t->queue, CL_CONTEXT_NUM_DEVICES, sizeof value, value, NULL),
                     CL_INVALID_CONTEXT);
    assert_int_equal(clGetCommandQueueInfo((cl_command_queue)bogus, CL_QUEUE_CONTEXT, sizeof value, value, NULL),
                     CL_INVALID_COMMAND_QUEUE);
    assert_int_equal(clGetCommandQueueInfo(t->queue, CL_QUEUE_SIZE, sizeof value, value, NULL),
                     CL_INVALID_COMMAND_QUEUE);
    assert_int_equal(clGetMemObjectInfo((cl_mem)bogus, CL_MEM_SIZE, sizeof value, value, NULL), CL_INVALID_MEM_OBJECT);
    assert_int_equal(clGetMemObjectInfo(m, CL_MEM_SIZE, 1, value, NULL), CL_INVALID_VALUE);
    assert_int_equal(clGetProgramInfo((cl_program)bogus, CL_PROGRAM_NUM_KERNELS, sizeof value, value, NULL),
                     CL_INVALID_PROGRAM);
    assert_int_equal(clGetProgramInfo(p, 0x7777, sizeof value, value, NULL), CL_INVALID_VALUE);
    assert_int_equal(clGetProgramBuildInfo(p, (cl_device_id)bogus, CL_PROGRAM_BUILD_LOG, sizeof value, value, NULL),
                     CL_INVALID_DEVICE);
    assert_int_equal(clGetProgramBuildInfo(p, t->device, 0x7777, sizeof value, value, NULL), CL_INVALID_VALUE);
    assert_int_equal(clGetKernelInfo((cl_kernel)bogus, CL_KERNEL_NUM_ARGS, sizeof value, value, NULL),
                     CL_INVALID_KERNEL);
    assert_int_equal(clGetKernelInfo(k, 0x7777, sizeof value, value, NULL), CL_INVALID_VALUE);
    assert_int_equal(
        clGetKernelWorkGroupInfo(k, (cl_device_id)bogus, CL_KERNEL_WORK_GROUP_SIZE, sizeof value, value, NULL),
        CL_INVALID_DEVICE);
    assert_int_equal(clGetKernelArgInfo(k, 9, CL_KERNEL_ARG_NAME, sizeof value, value, NULL), CL_INVALID_ARG_INDEX);
    assert_int_equal(clGetEventInfo((cl_event)bogus, CL_EVENT_CONTEXT, sizeof value, value, NULL), CL_INVALID_EVENT);
    assert_int_equal(clGetEventInfo(user, 0x7777, sizeof value, value, NULL), CL_INVALID_VALUE);
    assert_int_equal(clGetEventProfilingInfo((cl_event)bogus, CL_PROFILING_COMMAND_END, 8, value, NULL),
                     CL_INVALID_EVENT);
    /* programs */
    const char *src = zc_vadd_source;
    assert_int_equal(clBuildProgram(p, 1, NULL, NULL, NULL, NULL), CL_INVALID_VALUE);
    cl_program q = clCreateProgramWithSource(t->context, 1, &src, NULL, &err);
    assert_int_equal(clBuildProgram(q, 1, (cl_device_id *)&bogus, NULL, NULL, NULL), CL_INVALID_DEVICE);
    assert_int_equal(clBuildProgram(q, 0, NULL, NULL, NULL, value), CL_INVALID_VALUE);
    assert_int_equal(clCompileProgram(q, 0, NULL, NULL, 1, NULL, NULL, NULL, NULL), CL_INVALID_VALUE);
    assert_null(clCreateKernel(q, "vadd", &err));
    assert_int_equal(err, CL_INVALID_PROGRAM_EXECUTABLE);
    assert_int_equal(clGetProgramInfo(q, CL_PROGRAM_NUM_KERNELS, sizeof value, value, NULL),
                     CL_INVALID_PROGRAM_EXECUTABLE);
    assert_int_equal(clSetProgramSpecializationConstant(q, 1, 4, value), CL_INVALID_PROGRAM);
    cl_kernel ks[1];
    assert_int_equal(clCreateKernelsInProgram(p, 1, ks, NULL), CL_INVALID_VALUE); /* two kernels */
    assert_int_equal(clCreateKernelsInProgram(q, 2, ks, NULL), CL_INVALID_PROGRAM_EXECUTABLE);
    assert_null(clCreateKernel(p, NULL, &err));
    assert_int_equal(err, CL_INVALID_VALUE);
    const unsigned char *none = NULL;
    size_t zero = 0;
    assert_null(clCreateProgramWithBinary(t->context, 1, &t->device, &zero, &none, NULL, &err));
    assert_int_equal(err, CL_INVALID_VALUE);
    assert_null(clCreateProgramWithBinary(t->context, 0, NULL, NULL, NULL, NULL, &err));
    assert_int_equal(err, CL_INVALID_VALUE);
    assert_null(clCreateProgramWithBuiltInKernels(t->context, 1, &t->device, "no_such_kernel", &err));
    assert_int_equal(err, CL_INVALID_VALUE);
    assert_null(clLinkProgram(t->context, 0, NULL, NULL, 0, NULL, NULL, NULL, &err));
    assert_int_equal(err, CL_INVALID_VALUE);
    assert_null(clLinkProgram(t->context, 0, NULL, NULL, 1, (cl_program *)&bogus, NULL, NULL, &err));
    assert_int_equal(err, CL_INVALID_PROGRAM);
    assert_int_equal(clUnloadPlatformCompiler((cl_platform_id)bogus), CL_INVALID_PLATFORM);
    assert_null(clGetExtensionFunctionAddressForPlatform(t->platform, "clNoSuchFunctionINTEL"));
    /* sub-buffers, migration, markers */
    cl_buffer_region region = {0, 64};
    assert_null(clCreateSubBuffer(m, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region, &err));
    assert_int_equal(err, CL_INVALID_VALUE); /* wider than the read-only parent */
    assert_null(clCreateSubBuffer(m, 0, 0x7777, &region, &err));
    assert_int_equal(err, CL_INVALID_VALUE);
    cl_buffer_region outside = {128, 256};
    assert_null(clCreateSubBuffer(m, 0, CL_BUFFER_CREATE_TYPE_REGION, &outside, &err));
    assert_int_equal(err, CL_INVALID_VALUE);
    cl_buffer_region empty = {0, 0};
    assert_null(clCreateSubBuffer(m, 0, CL_BUFFER_CREATE_TYPE_REGION, &empty, &err));
    assert_int_equal(err, CL_INVALID_BUFFER_SIZE);
    assert_int_equal(clEnqueueMigrateMemObjects(t->queue, 0, NULL, 0, 0, NULL, NULL), CL_INVALID_VALUE);
    assert_int_equal(clEnqueueMigrateMemObjects(t->queue, 1, &m, 0x7777, 0, NULL, NULL), CL_INVALID_VALUE);
    assert_int_equal(clEnqueueMarker(t->queue, NULL), CL_INVALID_VALUE);
    assert_int_equal(clEnqueueBarrierWithWaitList((cl_command_queue)bogus, 0, NULL, NULL), CL_INVALID_COMMAND_QUEUE);
    assert_int_equal(clEnqueueWaitForEvents(t->queue, 0, NULL), CL_INVALID_VALUE);
    assert_int_equal(clEnqueueTask(t->queue, (cl_kernel)bogus, 0, NULL, NULL), CL_INVALID_KERNEL);
    assert_int_equal(clSetEventCallback(user, 0x7777, zc_on_complete, NULL), CL_INVALID_VALUE);
    assert_int_equal(clSetUserEventStatus(user, CL_SUBMITTED), CL_INVALID_VALUE);
    assert_int_equal(clCreateSubDevices((cl_device_id)bogus, NULL, 0, NULL, NULL), CL_INVALID_DEVICE);
    assert_int_equal(clSetContextDestructorCallback(t->context, NULL, NULL), CL_INVALID_VALUE);
    /* SVM and USM */
    assert_int_equal(clEnqueueSVMMemFill(t->queue, NULL, value, 4, 64, 0, NULL, NULL), CL_INVALID_VALUE);
    assert_int_equal(clEnqueueSVMMap(t->queue, CL_TRUE, 0x7777, value, 4, 0, NULL, NULL), CL_INVALID_VALUE);
    assert_int_equal(clEnqueueSVMFree(t->queue, 1, NULL, NULL, NULL, 0, NULL, NULL), CL_INVALID_VALUE);
    assert_int_equal(clSetKernelExecInfo(k, 0x7777, sizeof value, value), CL_INVALID_VALUE);
    cl_bool yes = CL_TRUE;
    assert_int_equal(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM, sizeof yes, &yes),
                     CL_INVALID_OPERATION);
    assert_int_equal(clSetKernelArgSVMPointer((cl_kernel)bogus, 0, NULL), CL_INVALID_KERNEL);
    assert_null(clCloneKernel((cl_kernel)bogus, &err));
    assert_int_equal(err, CL_INVALID_KERNEL);
    clDeviceMemAllocINTEL_fn device_alloc =
        (clDeviceMemAllocINTEL_fn)clGetExtensionFunctionAddressForPlatform(t->platform, "clDeviceMemAllocINTEL");
    cl_mem_properties_intel bad_props[] = {0x7777, 0, 0};
    assert_null(device_alloc(t->context, t->device, bad_props, 64, 0, &err));
    assert_int_equal(err, CL_INVALID_PROPERTY);
    assert_null(device_alloc(t->context, NULL, NULL, 64, 0, &err));
    assert_int_equal(err, CL_INVALID_DEVICE);
    assert_null(device_alloc(t->context, t->device, NULL, 64, 3, &err));
    assert_int_equal(err, CL_INVALID_VALUE);
    assert_null(device_alloc((cl_context)t->queue, t->device, NULL, 64, 0, &err));
    assert_int_equal(err, CL_INVALID_CONTEXT);
    clReleaseProgram(q);
    clReleaseEvent(user);
    clReleaseMemObject(m);
    clReleaseKernel(k);
    clReleaseProgram(p);
}

/* A context of every device (the program built for each) and, on cards with Level Zero sub-devices
 * (ZE_FLAT_DEVICE_HIERARCHY=COMPOSITE), a context of a sub-device: the vector add runs on the last device of each. */
static void zc_vadd_on_last(zc_cl *t, cl_uint n, const cl_device_id *devices) {
    cl_int err;
    zc_cl other = {.platform = t->platform, .device = devices[n - 1]};
    other.context = clCreateContext(NULL, n, devices, NULL, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    other.queue = zc_queue(other.context, other.device, 0, &err);
    assert_int_equal(err, CL_SUCCESS);
    cl_program p = clCreateProgramWithSource(other.context, 1, &zc_vadd_source, NULL, &err);
    assert_int_equal(clBuildProgram(p, 0, NULL, NULL, NULL, NULL), CL_SUCCESS);
    size_t sizes[8] = {0};
    assert_int_equal(clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof sizes, sizes, NULL), CL_SUCCESS);
    for (cl_uint i = 0; i < n; i++)
        assert_true(sizes[i] > 0); /* built for every device of the context */
    zc_run_vadd(&other, other.queue, p, "vadd", NULL);
    clReleaseProgram(p);
    clReleaseCommandQueue(other.queue);
    clReleaseContext(other.context);
}

static void test_all_devices_and_sub_devices(void **state) {
    zc_cl *t = *state;
    cl_device_id devices[8];
    cl_uint n = 0;
    assert_int_equal(clGetDeviceIDs(t->platform, CL_DEVICE_TYPE_ALL, 8, devices, &n), CL_SUCCESS);
    zc_vadd_on_last(t, n < 8 ? n : 8, devices);
    cl_uint max_subs = 0;
    assert_int_equal(clGetDeviceInfo(devices[0], CL_DEVICE_PARTITION_MAX_SUB_DEVICES, sizeof max_subs, &max_subs, NULL),
                     CL_SUCCESS);
    if (max_subs == 0)
        return; /* FLAT: the root devices are the tiles */
    cl_device_partition_property props[] = {CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN, CL_DEVICE_AFFINITY_DOMAIN_NUMA, 0};
    cl_device_id subs[8];
    cl_uint count = 0;
    assert_int_equal(clCreateSubDevices(devices[0], props, 8, subs, &count), CL_SUCCESS);
    assert_int_equal(count, max_subs);
    cl_device_id parent = NULL;
    assert_int_equal(clGetDeviceInfo(subs[0], CL_DEVICE_PARENT_DEVICE, sizeof parent, &parent, NULL), CL_SUCCESS);
    assert_ptr_equal(parent, devices[0]);
    zc_vadd_on_last(t, 1, &subs[count - 1]);
    assert_int_equal(clCreateSubDevices(devices[0], props, 1, subs, NULL), CL_INVALID_VALUE);
}

/* Images: formats, creation with data, write, read, fill, copies between images and with buffers, map and unmap, a
 * kernel sampling one image into another, 3D images and arrays, samplers, and the codes of wrong image arguments. */
static const char *zc_image_source =
    "const sampler_t smp = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;\n"
    "kernel void invert(read_only image2d_t in, write_only image2d_t out)\n"
    "{\n"
    "    int2 p = (int2)(get_global_id(0), get_global_id(1));\n"
    "    float4 v = read_imagef(in, smp, p);\n"
    "    write_imagef(out, p, (float4)(1.0f) - v);\n"
    "}\n"
    "kernel void pick(read_only image2d_t in, sampler_t s, global uint *out)\n"
    "{\n"
    "    out[0] = read_imageui(in, s, (int2)(1, 2)).x;\n"
    "}\n";

static cl_mem zc_image2d(zc_cl *t, cl_channel_type type, size_t w, size_t h, void *data) {
    cl_image_format format = {CL_RGBA, type};
    cl_image_desc desc = {.image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = w, .image_height = h};
    cl_int err;
    cl_mem m = clCreateImage(t->context, data != NULL ? CL_MEM_COPY_HOST_PTR : 0, &format, &desc, data, &err);
    assert_int_equal(err, CL_SUCCESS);
    return m;
}

static void test_images(void **state) {
    zc_cl *t = *state;
    cl_int err;
    cl_uint count = 0;
    assert_int_equal(clGetSupportedImageFormats(t->context, CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE2D, 0, NULL, &count),
                     CL_SUCCESS);
    assert_true(count >= 36);
    unsigned char pixels[8 * 4 * 4], back[8 * 4 * 4];
    for (int i = 0; i < (int)sizeof pixels; i++)
        pixels[i] = (unsigned char)(i * 3);
    cl_mem a = zc_image2d(t, CL_UNORM_INT8, 8, 4, pixels);
    size_t origin[3] = {0, 0, 0}, whole[3] = {8, 4, 1};
    assert_int_equal(clEnqueueReadImage(t->queue, a, CL_TRUE, origin, whole, 0, 0, back, 0, NULL, NULL), CL_SUCCESS);
    assert_memory_equal(back, pixels, sizeof pixels);
    /* fill a 2x2 block at (3, 1) with 0.5 (128 in UNORM_INT8) */
    float half[4] = {0.5f, 0.5f, 0.5f, 1.0f};
    size_t at[3] = {3, 1, 0}, block[3] = {2, 2, 1};
    assert_int_equal(clEnqueueFillImage(t->queue, a, half, at, block, 0, NULL, NULL), CL_SUCCESS);
    assert_int_equal(clEnqueueReadImage(t->queue, a, CL_TRUE, origin, whole, 0, 0, back, 0, NULL, NULL), CL_SUCCESS);
    assert_int_equal(back[(1 * 8 + 3) * 4], 128);
    assert_int_equal(back[(2 * 8 + 4) * 4 + 3], 255);
    assert_int_equal(back[0], pixels[0]);
    /* a kernel inverts a into b; b copied to a buffer and back into c */
    cl_mem b = zc_image2d(t, CL_UNORM_INT8, 8, 4, NULL);
    cl_program p = zc_build_source(t, zc_image_source, NULL);
    cl_kernel k = clCreateKernel(p, "invert", &err);
    assert_int_equal(clSetKernelArg(k, 0, sizeof a, &a), CL_SUCCESS);
    assert_int_equal(clSetKernelArg(k, 1, sizeof b, &b), CL_SUCCESS);
    size_t global[2] = {8, 4};
    assert_int_equal(clEnqueueNDRangeKernel(t->queue, k, 2, NULL, global, NULL, 0, NULL, NULL), CL_SUCCESS);
    cl_mem buffer = clCreateBuffer(t->context, CL_MEM_READ_WRITE, sizeof pixels, NULL, &err);
    assert_int_equal(clEnqueueCopyImageToBuffer(t->queue, b, buffer, origin, whole, 0, 0, NULL, NULL), CL_SUCCESS);
    cl_mem c = zc_image2d(t, CL_UNORM_INT8, 8, 4, NULL);
    assert_int_equal(clEnqueueCopyBufferToImage(t->queue, buffer, c, 0, origin, whole, 0, NULL, NULL), CL_SUCCESS);
    size_t row = 0;
    unsigned char *map = clEnqueueMapImage(t->queue, c, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, origin, whole, &row, NULL,
                                           0, NULL, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    assert_true(row >= 8 * 4);
    for (int y = 0; y < 4; y++)
        for (int x = 0; x < 8; x++)
            assert_int_equal(map[y * row + x * 4], 255 - back[(y * 8 + x) * 4]);
    map[0] = 7; /* written back at unmap */
    assert_int_equal(clEnqueueUnmapMemObject(t->queue, c, map, 0, NULL, NULL), CL_SUCCESS);
    unsigned char first[4];
    size_t one[3] = {1, 1, 1};
    assert_int_equal(clEnqueueReadImage(t->queue, c, CL_TRUE, origin, one, 0, 0, first, 0, NULL, NULL), CL_SUCCESS);
    assert_int_equal(first[0], 7);
    /* image to image copy of a block */
    size_t to[3] = {5, 2, 0};
    assert_int_equal(clEnqueueCopyImage(t->queue, a, c, origin, to, block, 0, NULL, NULL), CL_SUCCESS);
    assert_int_equal(clEnqueueReadImage(t->queue, c, CL_TRUE, to, one, 0, 0, first, 0, NULL, NULL), CL_SUCCESS);
    assert_int_equal(first[0], pixels[0]);
    /* a sampler argument: an unsigned integer image read at (1, 2) */
    cl_uint ints[8 * 4 * 4];
    for (int i = 0; i < 8 * 4 * 4; i++)
        ints[i] = (cl_uint)i;
    cl_mem u = zc_image2d(t, CL_UNSIGNED_INT32, 8, 4, ints);
    cl_sampler smp = clCreateSampler(t->context, CL_FALSE, CL_ADDRESS_CLAMP_TO_EDGE, CL_FILTER_NEAREST, &err);
    assert_int_equal(err, CL_SUCCESS);
    cl_kernel pick = clCreateKernel(p, "pick", &err);
    cl_mem out = clCreateBuffer(t->context, CL_MEM_READ_WRITE, sizeof(cl_uint), NULL, &err);
    assert_int_equal(clSetKernelArg(pick, 0, sizeof u, &u), CL_SUCCESS);
    assert_int_equal(clSetKernelArg(pick, 1, sizeof smp, &smp), CL_SUCCESS);
    assert_int_equal(clSetKernelArg(pick, 2, sizeof out, &out), CL_SUCCESS);
    assert_int_equal(clSetKernelArg(pick, 1, sizeof smp, &u), CL_INVALID_SAMPLER);
    assert_int_equal(clSetKernelArg(pick, 0, sizeof out, &out), CL_INVALID_MEM_OBJECT);
    assert_int_equal(clEnqueueTask(t->queue, pick, 0, NULL, NULL), CL_SUCCESS);
    cl_uint picked = 0;
    assert_int_equal(clEnqueueReadBuffer(t->queue, out, CL_TRUE, 0, sizeof picked, &picked, 0, NULL, NULL), CL_SUCCESS);
    assert_int_equal(picked, (2 * 8 + 1) * 4);
    cl_addressing_mode mode = 0;
    assert_int_equal(clGetSamplerInfo(smp, CL_SAMPLER_ADDRESSING_MODE, sizeof mode, &mode, NULL), CL_SUCCESS);
    assert_int_equal(mode, CL_ADDRESS_CLAMP_TO_EDGE);
    /* 3D images and 2D arrays round trip */
    cl_image_format rf = {CL_R, CL_FLOAT};
    cl_image_desc d3 = {.image_type = CL_MEM_OBJECT_IMAGE3D, .image_width = 4, .image_height = 3, .image_depth = 2};
    cl_image_desc da = {
        .image_type = CL_MEM_OBJECT_IMAGE2D_ARRAY, .image_width = 4, .image_height = 3, .image_array_size = 2};
    float vol[24], vol_back[24];
    for (int i = 0; i < 24; i++)
        vol[i] = (float)i * 0.25f;
    size_t box[3] = {4, 3, 2};
    const cl_image_desc *descs[2] = {&d3, &da};
    for (int i = 0; i < 2; i++) {
        cl_mem v = clCreateImage(t->context, 0, &rf, descs[i], NULL, &err);
        assert_int_equal(err, CL_SUCCESS);
        assert_int_equal(clEnqueueWriteImage(t->queue, v, CL_FALSE, origin, box, 0, 0, vol, 0, NULL, NULL), CL_SUCCESS);
        assert_int_equal(clEnqueueReadImage(t->queue, v, CL_TRUE, origin, box, 0, 0, vol_back, 0, NULL, NULL),
                         CL_SUCCESS);
        assert_memory_equal(vol, vol_back, sizeof vol);
        size_t depth = 0;
        assert_int_equal(clGetImageInfo(v, i == 0 ? CL_IMAGE_DEPTH : CL_IMAGE_ARRAY_SIZE, sizeof depth, &depth, NULL),
                         CL_SUCCESS);
        assert_int_equal(depth, 2);
        clReleaseMemObject(v);
    }
    /* wrong arguments */
    cl_image_format bgra = {CL_BGRA, CL_UNORM_INT8}, bogus_format = {0x1, CL_FLOAT};
    cl_image_desc d2 = {.image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = 4, .image_height = 4};
    assert_null(clCreateImage(t->context, 0, &bgra, &d2, NULL, &err));
    assert_int_equal(err, CL_IMAGE_FORMAT_NOT_SUPPORTED);
    assert_null(clCreateImage(t->context, 0, &bogus_format, &d2, NULL, &err));
    assert_int_equal(err, CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
    cl_image_desc zero_w = {.image_type = CL_MEM_OBJECT_IMAGE2D, .image_height = 4};
    assert_null(clCreateImage(t->context, 0, &rf, &zero_w, NULL, &err));
    assert_int_equal(err, CL_INVALID_IMAGE_DESCRIPTOR);
    cl_image_desc huge = {.image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = 1u << 20, .image_height = 4};
    assert_null(clCreateImage(t->context, 0, &rf, &huge, NULL, &err));
    assert_int_equal(err, CL_INVALID_IMAGE_SIZE);
    size_t outside[3] = {9, 1, 1};
    assert_int_equal(clEnqueueReadImage(t->queue, a, CL_TRUE, origin, outside, 0, 0, back, 0, NULL, NULL),
                     CL_INVALID_VALUE);
    assert_int_equal(clEnqueueCopyImage(t->queue, a, u, origin, origin, block, 0, NULL, NULL),
                     CL_IMAGE_FORMAT_MISMATCH);
    assert_int_equal(clEnqueueReadBuffer(t->queue, a, CL_TRUE, 0, 4, back, 0, NULL, NULL), CL_INVALID_MEM_OBJECT);
    assert_int_equal(clGetImageInfo(buffer, CL_IMAGE_WIDTH, sizeof row, &row, NULL), CL_INVALID_MEM_OBJECT);
    assert_null(clCreateSampler(t->context, CL_FALSE, 0x7777, CL_FILTER_NEAREST, &err));
    assert_int_equal(err, CL_INVALID_VALUE);
    assert_int_equal(clReleaseSampler((cl_sampler)t->context), CL_INVALID_SAMPLER);
    clReleaseSampler(smp);
    clReleaseMemObject(out);
    clReleaseKernel(pick);
    clReleaseKernel(k);
    clReleaseProgram(p);
    clReleaseMemObject(u);
    clReleaseMemObject(buffer);
    clReleaseMemObject(a);
    clReleaseMemObject(b);
    clReleaseMemObject(c);
}

/* 1D buffer images: the image and its buffer are the same bytes, through host commands and kernels. */
static const char *zc_buffer_image_source = "kernel void twice(read_only image1d_buffer_t in, write_only "
                                            "image1d_buffer_t out)\n"
                                            "{\n"
                                            "    int i = get_global_id(0);\n"
                                            "    write_imageui(out, i, read_imageui(in, i) * 2);\n"
                                            "}\n";

static void test_buffer_images(void **state) {
    zc_cl *t = *state;
    cl_int err;
    size_t max = 0;
    assert_int_equal(clGetDeviceInfo(t->device, CL_DEVICE_IMAGE_MAX_BUFFER_SIZE, sizeof max, &max, NULL), CL_SUCCESS);
    assert_true(max >= 65536); /* the OpenCL 1.2 full profile minimum */
    cl_uint count = 0;
    assert_int_equal(
        clGetSupportedImageFormats(t->context, CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE1D_BUFFER, 0, NULL, &count),
        CL_SUCCESS);
    assert_true(count >= 36);
    enum { W = 64 };
    cl_uint data[W * 4], back[W * 4];
    for (int i = 0; i < W * 4; i++)
        data[i] = (cl_uint)i;
    cl_mem buffer = clCreateBuffer(t->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof data, data, &err);
    cl_mem out_buffer = clCreateBuffer(t->context, CL_MEM_READ_WRITE, sizeof data, NULL, &err);
    cl_image_format f = {CL_RGBA, CL_UNSIGNED_INT32};
    cl_image_desc d = {.image_type = CL_MEM_OBJECT_IMAGE1D_BUFFER, .image_width = W, .buffer = buffer};
    cl_mem image = clCreateImage(t->context, 0, &f, &d, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    d.buffer = out_buffer;
    cl_mem out = clCreateImage(t->context, CL_MEM_WRITE_ONLY, &f, &d, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    cl_mem associated = NULL;
    assert_int_equal(clGetImageInfo(image, CL_IMAGE_BUFFER, sizeof associated, &associated, NULL), CL_SUCCESS);
    assert_ptr_equal(associated, buffer);
    assert_int_equal(clGetMemObjectInfo(image, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof associated, &associated, NULL),
                     CL_SUCCESS);
    assert_ptr_equal(associated, buffer);
    cl_mem_object_type type = 0;
    assert_int_equal(clGetMemObjectInfo(image, CL_MEM_TYPE, sizeof type, &type, NULL), CL_SUCCESS);
    assert_int_equal(type, CL_MEM_OBJECT_IMAGE1D_BUFFER);
    /* the image reads what the buffer holds; a write through the image shows in the buffer */
    size_t origin[3] = {0, 0, 0}, whole[3] = {W, 1, 1}, second[3] = {1, 0, 0}, one[3] = {1, 1, 1};
    assert_int_equal(clEnqueueReadImage(t->queue, image, CL_TRUE, origin, whole, 0, 0, back, 0, NULL, NULL),
                     CL_SUCCESS);
    assert_memory_equal(back, data, sizeof data);
    cl_uint pixel[4] = {11, 12, 13, 14};
    assert_int_equal(clEnqueueWriteImage(t->queue, image, CL_TRUE, second, one, 0, 0, pixel, 0, NULL, NULL),
                     CL_SUCCESS);
    assert_int_equal(clEnqueueReadBuffer(t->queue, buffer, CL_TRUE, 0, sizeof back, back, 0, NULL, NULL), CL_SUCCESS);
    assert_memory_equal(back + 4, pixel, sizeof pixel);
    assert_int_equal(back[0], 0);
    assert_int_equal(back[8], 8);
    /* a kernel reads one buffer image and writes another: the second buffer holds the result */
    cl_program p = zc_build_source(t, zc_buffer_image_source, NULL);
    cl_kernel k = clCreateKernel(p, "twice", &err);
    assert_int_equal(clSetKernelArg(k, 0, sizeof image, &image), CL_SUCCESS);
    assert_int_equal(clSetKernelArg(k, 1, sizeof out, &out), CL_SUCCESS);
    size_t global = W;
    assert_int_equal(clEnqueueNDRangeKernel(t->queue, k, 1, NULL, &global, NULL, 0, NULL, NULL), CL_SUCCESS);
    assert_int_equal(clEnqueueReadBuffer(t->queue, out_buffer, CL_TRUE, 0, sizeof back, back, 0, NULL, NULL),
                     CL_SUCCESS);
    for (int i = 0; i < W * 4; i++)
        assert_int_equal(back[i], 2 * (i >= 4 && i < 8 ? pixel[i - 4] : data[i]));
    /* wrong arguments */
    d.buffer = NULL;
    assert_null(clCreateImage(t->context, 0, &f, &d, NULL, &err));
    assert_int_equal(err, CL_INVALID_IMAGE_DESCRIPTOR);
    d.buffer = buffer;
    d.image_width = W + 1; /* more pixels than the buffer holds */
    assert_null(clCreateImage(t->context, 0, &f, &d, NULL, &err));
    assert_int_equal(err, CL_INVALID_IMAGE_SIZE);
    d.image_width = W;
    assert_null(clCreateImage(t->context, CL_MEM_USE_HOST_PTR, &f, &d, data, &err));
    assert_int_equal(err, CL_INVALID_VALUE);
    cl_mem read_only = clCreateBuffer(t->context, CL_MEM_READ_ONLY, sizeof data, NULL, &err);
    d.buffer = read_only;
    assert_null(clCreateImage(t->context, CL_MEM_WRITE_ONLY, &f, &d, NULL, &err));
    assert_int_equal(err, CL_INVALID_VALUE);
    cl_image_desc d2 = {.image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = 8, .image_height = 8, .buffer = buffer};
    assert_null(clCreateImage(t->context, 0, &f, &d2, NULL, &err));
    assert_int_equal(err, CL_INVALID_IMAGE_DESCRIPTOR);
    /* the image holds its buffer: released first, the buffer stays usable through the image */
    clReleaseMemObject(buffer);
    assert_int_equal(clEnqueueReadImage(t->queue, image, CL_TRUE, second, one, 0, 0, back, 0, NULL, NULL), CL_SUCCESS);
    assert_memory_equal(back, pixel, sizeof pixel);
    clReleaseMemObject(read_only);
    clReleaseKernel(k);
    clReleaseProgram(p);
    clReleaseMemObject(image);
    clReleaseMemObject(out);
    clReleaseMemObject(out_buffer);
}

static void test_svm_and_usm(void **state) {
    zc_cl *t = *state;
    cl_device_svm_capabilities caps = 0;
    assert_int_equal(clGetDeviceInfo(t->device, CL_DEVICE_SVM_CAPABILITIES, sizeof caps, &caps, NULL), CL_SUCCESS);
    assert_true(caps & CL_DEVICE_SVM_FINE_GRAIN_BUFFER);
    cl_program p = zc_build_source(t, zc_vadd_source, "-cl-std=CL2.0");
    cl_int err;
    cl_kernel k = clCreateKernel(p, "vadd", &err);
    int *a = clSVMAlloc(t->context, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER, 64 * sizeof(int), 0);
    int *b = clSVMAlloc(t->context, CL_MEM_READ_WRITE, 64 * sizeof(int), 64);
    assert_non_null(a);
    assert_non_null(b);
    assert_null(clSVMAlloc(t->context, CL_MEM_SVM_ATOMICS | CL_MEM_SVM_FINE_GRAIN_BUFFER, 64, 0));
    for (int i = 0; i < 64; i++)
        a[i] = i; /* fine-grained: written by the host in place */
    int seven = 7;
    assert_int_equal(clEnqueueSVMMemFill(t->queue, b, &seven, sizeof seven, 64 * sizeof(int), 0, NULL, NULL),
                     CL_SUCCESS);
    /* c is a buffer over USM shared memory (CL_MEM_USE_HOST_PTR of a USM pointer uses it in place) */
    clSharedMemAllocINTEL_fn shared_alloc =
        (clSharedMemAllocINTEL_fn)clGetExtensionFunctionAddressForPlatform(t->platform, "clSharedMemAllocINTEL");
    clDeviceMemAllocINTEL_fn device_alloc =
        (clDeviceMemAllocINTEL_fn)clGetExtensionFunctionAddressForPlatform(t->platform, "clDeviceMemAllocINTEL");
    clMemFreeINTEL_fn usm_free =
        (clMemFreeINTEL_fn)clGetExtensionFunctionAddressForPlatform(t->platform, "clMemFreeINTEL");
    clEnqueueMemcpyINTEL_fn usm_copy =
        (clEnqueueMemcpyINTEL_fn)clGetExtensionFunctionAddressForPlatform(t->platform, "clEnqueueMemcpyINTEL");
    clGetMemAllocInfoINTEL_fn usm_info =
        (clGetMemAllocInfoINTEL_fn)clGetExtensionFunctionAddressForPlatform(t->platform, "clGetMemAllocInfoINTEL");
    assert_non_null(shared_alloc);
    assert_non_null(device_alloc);
    assert_non_null(usm_free);
    assert_non_null(usm_copy);
    assert_non_null(usm_info);
    int *c = shared_alloc(t->context, t->device, NULL, 64 * sizeof(int), 0, &err);
    assert_int_equal(err, CL_SUCCESS);
    cl_mem mc = clCreateBuffer(t->context, CL_MEM_USE_HOST_PTR, 64 * sizeof(int), c, &err);
    assert_int_equal(err, CL_SUCCESS);
    cl_bool uses_svm = CL_FALSE;
    assert_int_equal(clGetMemObjectInfo(mc, CL_MEM_USES_SVM_POINTER, sizeof uses_svm, &uses_svm, NULL), CL_SUCCESS);
    assert_true(uses_svm);
    assert_int_equal(clSetKernelArgSVMPointer(k, 0, a), CL_SUCCESS);
    assert_int_equal(clSetKernelArgSVMPointer(k, 1, b), CL_SUCCESS);
    assert_int_equal(clSetKernelArg(k, 2, sizeof mc, &mc), CL_SUCCESS);
    size_t global = 64;
    assert_int_equal(clEnqueueNDRangeKernel(t->queue, k, 1, NULL, &global, NULL, 0, NULL, NULL), CL_SUCCESS);
    int *d = device_alloc(t->context, t->device, NULL, 64 * sizeof(int), 0, &err);
    assert_int_equal(err, CL_SUCCESS);
    int out[64];
    assert_int_equal(usm_copy(t->queue, CL_FALSE, d, c, sizeof out, 0, NULL, NULL), CL_SUCCESS);
    assert_int_equal(usm_copy(t->queue, CL_TRUE, out, d, sizeof out, 0, NULL, NULL), CL_SUCCESS);
    for (int i = 0; i < 64; i++) {
        assert_int_equal(out[i], i + 7);
        assert_int_equal(c[i], i + 7);
    }
    cl_unified_shared_memory_type_intel type = 0;
    assert_int_equal(usm_info(t->context, d + 3, CL_MEM_ALLOC_TYPE_INTEL, sizeof type, &type, NULL), CL_SUCCESS);
    assert_int_equal(type, CL_MEM_TYPE_DEVICE_INTEL);
    void *base = NULL;
    assert_int_equal(usm_info(t->context, d + 3, CL_MEM_ALLOC_BASE_PTR_INTEL, sizeof base, &base, NULL), CL_SUCCESS);
    assert_ptr_equal(base, d);
    assert_int_equal(usm_info(t->context, out, CL_MEM_ALLOC_TYPE_INTEL, sizeof type, &type, NULL), CL_SUCCESS);
    assert_int_equal(type, CL_MEM_TYPE_UNKNOWN_INTEL);
    assert_int_equal(usm_free(t->context, out), CL_INVALID_VALUE);
    assert_int_equal(clSetKernelArgSVMPointer(k, 3, a), CL_INVALID_ARG_INDEX);
    assert_int_equal(clEnqueueSVMMemcpy(t->queue, CL_TRUE, a, a + 1, 16, 0, NULL, NULL), CL_MEM_COPY_OVERLAP);
    assert_int_equal(clFinish(t->queue), CL_SUCCESS);
    clReleaseMemObject(mc);
    assert_int_equal(usm_free(t->context, c), CL_SUCCESS);
    assert_int_equal(usm_free(t->context, d), CL_SUCCESS);
    clSVMFree(t->context, a);
    void *ptrs[] = {b};
    assert_int_equal(clEnqueueSVMFree(t->queue, 1, ptrs, NULL, NULL, 0, NULL, NULL), CL_SUCCESS);
    clReleaseKernel(k);
    clReleaseProgram(p);
}

static void test_printf_and_rect_copies(void **state) {
    zc_cl *t = *state;
    const char *source = "kernel void hello(int v) { if (get_global_id(0) == 1) printf(\"item %d says %d\\n\", "
                         "(int)get_global_id(0), v); }\n";
    cl_program p = zc_build_source(t, source, NULL);
    cl_int err;
    cl_kernel k = clCreateKernel(p, "hello", &err);
    int v = 42;
    assert_int_equal(clSetKernelArg(k, 0, sizeof v, &v), CL_SUCCESS);
    char path[] = "/tmp/zc-opencl-printf-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    fflush(stdout);
    int saved = dup(STDOUT_FILENO);
    dup2(fd, STDOUT_FILENO);
    size_t global = 4;
    err = clEnqueueNDRangeKernel(t->queue, k, 1, NULL, &global, NULL, 0, NULL, NULL);
    cl_int finished = clFinish(t->queue);
    fflush(stdout);
    dup2(saved, STDOUT_FILENO);
    close(saved);
    assert_int_equal(err, CL_SUCCESS);
    assert_int_equal(finished, CL_SUCCESS);
    char text[256] = "";
    lseek(fd, 0, SEEK_SET);
    ssize_t n = read(fd, text, sizeof text - 1);
    close(fd);
    unlink(path);
    assert_true(n > 0);
    assert_non_null(strstr(text, "item 1 says 42"));
    clReleaseKernel(k);
    clReleaseProgram(p);
    /* a 3x2 block written at (1, 1) of an 8-byte-pitch buffer, copied to (4, 0) of another, read back whole */
    cl_mem a = clCreateBuffer(t->context, CL_MEM_READ_WRITE, 32, NULL, &err);
    cl_mem b = clCreateBuffer(t->context, CL_MEM_READ_WRITE, 32, NULL, &err);
    unsigned char zero[32] = {0}, block[6] = {1, 2, 3, 4, 5, 6}, all[32];
    assert_int_equal(clEnqueueWriteBuffer(t->queue, a, CL_FALSE, 0, 32, zero, 0, NULL, NULL), CL_SUCCESS);
    assert_int_equal(clEnqueueWriteBuffer(t->queue, b, CL_FALSE, 0, 32, zero, 0, NULL, NULL), CL_SUCCESS);
    size_t at[3] = {1, 1, 0}, host0[3] = {0, 0, 0}, to[3] = {4, 0, 0}, region[3] = {3, 2, 1};
    assert_int_equal(
        clEnqueueWriteBufferRect(t->queue, a, CL_FALSE, at, host0, region, 8, 0, 3, 0, block, 0, NULL, NULL),
        CL_SUCCESS);
    assert_int_equal(clEnqueueCopyBufferRect(t->queue, a, b, at, to, region, 8, 0, 8, 0, 0, NULL, NULL), CL_SUCCESS);
    assert_int_equal(clEnqueueReadBuffer(t->queue, b, CL_TRUE, 0, 32, all, 0, NULL, NULL), CL_SUCCESS);
    for (int y = 0; y < 4; y++)
        for (int x = 0; x < 8; x++) {
            int expected = (y < 2 && x >= 4 && x < 7) ? block[y * 3 + x - 4] : 0;
            assert_int_equal(all[y * 8 + x], expected);
        }
    clReleaseMemObject(a);
    clReleaseMemObject(b);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_platform_by_name),
        cmocka_unit_test(test_device_queries),
        cmocka_unit_test(test_vadd_from_source_with_profiling),
        cmocka_unit_test(test_vadd_from_spirv_out_of_order),
        cmocka_unit_test(test_profiling_is_level_zero_device_time),
        cmocka_unit_test(test_build_failure_has_log),
        cmocka_unit_test(test_binary_round_trip),
        cmocka_unit_test(test_compile_and_link),
        cmocka_unit_test(test_buffer_commands),
        cmocka_unit_test(test_events_user_marker_barrier),
        cmocka_unit_test(test_user_event_failure_terminates),
        cmocka_unit_test(test_out_of_order_runs_concurrently),
        cmocka_unit_test(test_kernel_args_and_work_groups),
        cmocka_unit_test(test_invalid_arguments),
        cmocka_unit_test(test_invalid_arguments_more),
        cmocka_unit_test(test_all_devices_and_sub_devices),
        cmocka_unit_test(test_images),
        cmocka_unit_test(test_buffer_images),
        cmocka_unit_test(test_svm_and_usm),
        cmocka_unit_test(test_printf_and_rect_copies),
    };
    return cmocka_run_group_tests_name("opencl", tests, zc_setup, zc_teardown);
}
