/* The OpenCL face through Debian's ocl-icd (docs/opencl.md): the zefake platform found by name among the installed
 * ones, every device query, vector adds from OpenCL C and from SPIR-V with profiling in device time (the clock Level
 * Zero reads), programs from binaries and from compile + link, buffers and their commands, kernel arguments and work
 * groups, every device and sub-device, shared virtual memory and USM, printf and rectangular copies. */
#include "zc_opencl.h"

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
    /* The two kernels overlap in device time when the clock is the deterministic one, which starts both at the
     * user event. On the host clock each starts when the host handed it over, after its release, and microsecond
     * kernels released one after the other need not overlap, as on hardware (docs/cost-model.md, "Device time"). */
    const char *clock = getenv("ZEFAKE_CLOCK");
    if (clock != NULL && strcmp(clock, "modelled") == 0)
        assert_true(start[1] < end[0] && start[0] < end[1]);
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
static void zc_vadd_on_last(zc_cl *t, cl_uint n, const cl_device_id *devices) {
    cl_int err;
    zc_cl other = {.platform = t->platform, .device = devices[n - 1]};
    other.context = clCreateContext(NULL, n, devices, NULL, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    other.queue = zc_queue(other.context, other.device, 0, &err);
    assert_int_equal(err, CL_SUCCESS);
    const char *source = zc_vadd_source;
    cl_program p = clCreateProgramWithSource(other.context, 1, &source, NULL, &err);
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
        cmocka_unit_test(test_out_of_order_runs_concurrently),
        cmocka_unit_test(test_kernel_args_and_work_groups),
        cmocka_unit_test(test_all_devices_and_sub_devices),
        cmocka_unit_test(test_svm_and_usm),
        cmocka_unit_test(test_printf_and_rect_copies),
    };
    return cmocka_run_group_tests_name("opencl", tests, zc_setup, zc_teardown);
}
