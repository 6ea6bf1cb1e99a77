/* zefake-demo-opencl: the OpenCL face as an application sees it through Debian's ICD loader (docs/opencl.md). It finds
 * the zefake platform by name, shows that each OpenCL device is the Level Zero device of the same UUID (one process,
 * one device state), then builds a vector add from OpenCL C and runs it with profiling in device time. Needs
 * OCL_ICD_VENDORS naming the build tree's ICD (scripts/demo.sh sets it) and ZE_ENABLE_ALT_DRIVERS for Level Zero. */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <CL/cl_ext.h>
#include <level_zero/ze_api.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEMO_N 4096

static const char *demo_source = "kernel void vadd(global const float *a, global const float *b, global float *c)\n"
                                 "{ size_t i = get_global_id(0); c[i] = a[i] + b[i]; }\n";

static void demo_check(cl_int err, const char *what) {
    if (err != CL_SUCCESS) {
        fprintf(stderr, "zefake-demo-opencl: %s failed: %d\n", what, err);
        exit(EXIT_FAILURE);
    }
}

static cl_platform_id demo_platform(void) {
    cl_platform_id list[8];
    cl_uint n = 0;
    demo_check(clGetPlatformIDs(8, list, &n), "clGetPlatformIDs");
    for (cl_uint i = 0; i < n && i < 8; i++) {
        char name[64] = "";
        clGetPlatformInfo(list[i], CL_PLATFORM_NAME, sizeof name, name, NULL);
        if (strcmp(name, "zefake") == 0)
            return list[i];
    }
    fprintf(stderr, "zefake-demo-opencl: no zefake platform; set OCL_ICD_VENDORS=<build>/fake_driver/icd\n");
    exit(EXIT_FAILURE);
}

/* The Level Zero device with this UUID, by index; -1 when Level Zero shows none. */
static int demo_ze_index(const cl_uchar *uuid) {
    uint32_t n = 1, count = 0;
    ze_driver_handle_t driver;
    if (zeInit(0) != ZE_RESULT_SUCCESS || zeDriverGet(&n, &driver) != ZE_RESULT_SUCCESS ||
        zeDeviceGet(driver, &count, NULL) != ZE_RESULT_SUCCESS)
        return -1;
    ze_device_handle_t devices[16];
    count = count < 16 ? count : 16;
    zeDeviceGet(driver, &count, devices);
    for (uint32_t i = 0; i < count; i++) {
        ze_device_properties_t props = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
        if (zeDeviceGetProperties(devices[i], &props) == ZE_RESULT_SUCCESS &&
            memcmp(props.uuid.id, uuid, CL_UUID_SIZE_KHR) == 0)
            return (int)i;
    }
    return -1;
}

static void demo_devices(cl_platform_id platform, cl_device_id *first) {
    cl_device_id devices[16];
    cl_uint n = 0;
    demo_check(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 16, devices, &n), "clGetDeviceIDs");
    char version[64] = "";
    clGetPlatformInfo(platform, CL_PLATFORM_VERSION, sizeof version, version, NULL);
    printf("OpenCL platform zefake (%s), %u device(s)\n", version, n);
    for (cl_uint i = 0; i < n && i < 16; i++) {
        char name[128] = "";
        cl_uchar uuid[CL_UUID_SIZE_KHR];
        cl_ulong memory = 0;
        clGetDeviceInfo(devices[i], CL_DEVICE_NAME, sizeof name, name, NULL);
        clGetDeviceInfo(devices[i], CL_DEVICE_UUID_KHR, sizeof uuid, uuid, NULL);
        clGetDeviceInfo(devices[i], CL_DEVICE_GLOBAL_MEM_SIZE, sizeof memory, &memory, NULL);
        printf("  device %u: %s, %llu MiB, Level Zero device %d (same UUID)\n", i, name,
               (unsigned long long)(memory >> 20), demo_ze_index(uuid));
    }
    *first = devices[0];
}

static cl_mem demo_buffer(cl_context context, float *data) {
    cl_int err;
    cl_mem m = clCreateBuffer(context, CL_MEM_COPY_HOST_PTR, DEMO_N * sizeof(float), data, &err);
    demo_check(err, "clCreateBuffer");
    return m;
}

static void demo_vadd(cl_device_id device) {
    cl_int err;
    cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    demo_check(err, "clCreateContext");
    cl_queue_properties props[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
    cl_command_queue queue = clCreateCommandQueueWithProperties(context, device, props, &err);
    demo_check(err, "clCreateCommandQueueWithProperties");
    cl_program program = clCreateProgramWithSource(context, 1, &demo_source, NULL, &err);
    demo_check(clBuildProgram(program, 1, &device, "-cl-std=CL1.2", NULL, NULL), "clBuildProgram");
    cl_kernel kernel = clCreateKernel(program, "vadd", &err);
    static float a[DEMO_N], b[DEMO_N], c[DEMO_N];
    for (int i = 0; i < DEMO_N; i++) {
        a[i] = (float)i;
        b[i] = 0.5f * (float)i;
    }
    cl_mem ma = demo_buffer(context, a), mb = demo_buffer(context, b), mc = demo_buffer(context, c);
    clSetKernelArg(kernel, 0, sizeof ma, &ma);
    clSetKernelArg(kernel, 1, sizeof mb, &mb);
    clSetKernelArg(kernel, 2, sizeof mc, &mc);
    size_t global = DEMO_N;
    cl_event run;
    demo_check(clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, NULL, 0, NULL, &run), "clEnqueueNDRangeKernel");
    demo_check(clEnqueueReadBuffer(queue, mc, CL_TRUE, 0, sizeof c, c, 1, &run, NULL), "clEnqueueReadBuffer");
    int wrong = 0;
    for (int i = 0; i < DEMO_N; i++)
        wrong += c[i] != 1.5f * (float)i;
    cl_ulong start = 0, end = 0;
    clGetEventProfilingInfo(run, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL);
    clGetEventProfilingInfo(run, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL);
    printf("OpenCL vector add of %d floats from OpenCL C: %s, %llu ns of device time\n", DEMO_N,
           wrong == 0 ? "correct" : "WRONG", (unsigned long long)(end - start));
    clReleaseEvent(run);
    clReleaseMemObject(ma);
    clReleaseMemObject(mb);
    clReleaseMemObject(mc);
    clReleaseKernel(kernel);
    clReleaseProgram(program);
    clReleaseCommandQueue(queue);
    clReleaseContext(context);
    if (wrong != 0)
        exit(EXIT_FAILURE);
}

int main(void) {
    cl_device_id device;
    demo_devices(demo_platform(), &device);
    demo_vadd(device);
    return 0;
}
