/* Shared by the OpenCL face's conformance executables (test_opencl.c, test_opencl_events.c): the zefake platform
 * found by name, the group fixture (a context and an in-order profiling queue of its first device), and the helpers
 * that build programs, read SPIR-V files, read event profiles and run the vector add the tests share. */
#ifndef ZC_OPENCL_H
#define ZC_OPENCL_H

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

static const char *const zc_vadd_source = "kernel void vadd(global const int *a, global const int *b, global int *c)\n"
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

static inline cl_platform_id zc_platform(void) {
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
static inline cl_command_queue zc_queue(cl_context context, cl_device_id device, cl_command_queue_properties flags,
                                        cl_int *err) {
    cl_queue_properties props[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE | flags, 0};
    return clCreateCommandQueueWithProperties(context, device, props, err);
}

/* A profiling out-of-order queue of the fixture's device (the test fails without it). */
static inline cl_command_queue zc_out_of_order_queue(zc_cl *t) {
    cl_int err;
    cl_command_queue q = zc_queue(t->context, t->device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &err);
    assert_int_equal(err, CL_SUCCESS);
    return q;
}

static inline int zc_setup(void **state) {
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

static inline int zc_teardown(void **state) {
    zc_cl *t = *state;
    clReleaseCommandQueue(t->queue);
    clReleaseContext(t->context);
    free(t);
    return 0;
}

static inline cl_program zc_build_source(zc_cl *t, const char *source, const char *options) {
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

static inline void *zc_read_file(const char *path, size_t *size) {
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

static inline cl_ulong zc_profile(cl_event e, cl_profiling_info what) {
    cl_ulong v = 0;
    assert_int_equal(clGetEventProfilingInfo(e, what, sizeof v, &v, NULL), CL_SUCCESS);
    return v;
}

static inline cl_int zc_exec_status(cl_event e) {
    cl_int status = 1;
    assert_int_equal(clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL), CL_SUCCESS);
    return status;
}

/* c = a + b with the kernel `name` of p over ZC_N items, checked, with its profiling intervals ordered. */
static inline void zc_run_vadd(zc_cl *t, cl_command_queue q, cl_program p, const char *name, const size_t *local) {
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

#endif
