/* An OpenCL enqueue and clFinish on the zefake platform against PoCL, the CPU implementation users compare with, in
 * the same run through Debian's ocl-icd (OCL_ICD_VENDORS names a directory holding both ICD files). Two commands: a
 * 4 KiB fill and a 1024-item vector add built from OpenCL C. Prints ns per enqueue+finish and the ratio zefake/PoCL;
 * without PoCL installed it says so and prints zefake's figures alone. --quick: fewer iterations. */
#define ZB_PROGRAM "zefake-bench-opencl"
#include "zb_bench.h"

#include "zb_opencl.h"
#include <string.h>

#define ZB_ITEMS 1024

static const char *zb_source = "kernel void vadd(global const int *a, global const int *b, global int *c)\n"
                               "{ size_t i = get_global_id(0); c[i] = a[i] + b[i]; }\n";

typedef struct zb_cl {
    cl_context context;
    cl_command_queue queue;
    cl_mem a, b, c;
    cl_kernel kernel;
} zb_cl;

static void zb_setup(zb_cl *b, cl_platform_id platform) {
    cl_device_id device;
    cl_int err;
    zb_cl_check(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL), "clGetDeviceIDs");
    b->context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    zb_cl_check(err, "clCreateContext");
    b->queue = clCreateCommandQueueWithProperties(b->context, device, NULL, &err);
    zb_cl_check(err, "clCreateCommandQueueWithProperties");
    b->a = clCreateBuffer(b->context, CL_MEM_READ_WRITE, ZB_ITEMS * sizeof(int), NULL, &err);
    b->b = clCreateBuffer(b->context, CL_MEM_READ_WRITE, ZB_ITEMS * sizeof(int), NULL, &err);
    b->c = clCreateBuffer(b->context, CL_MEM_READ_WRITE, ZB_ITEMS * sizeof(int), NULL, &err);
    zb_cl_check(err, "clCreateBuffer");
    cl_program p = clCreateProgramWithSource(b->context, 1, &zb_source, NULL, &err);
    zb_cl_check(clBuildProgram(p, 1, &device, NULL, NULL, NULL), "clBuildProgram");
    b->kernel = clCreateKernel(p, "vadd", &err);
    zb_cl_check(err, "clCreateKernel");
    clReleaseProgram(p);
    clSetKernelArg(b->kernel, 0, sizeof b->a, &b->a);
    clSetKernelArg(b->kernel, 1, sizeof b->b, &b->b);
    clSetKernelArg(b->kernel, 2, sizeof b->c, &b->c);
}

static void zb_teardown(zb_cl *b) {
    clReleaseKernel(b->kernel);
    clReleaseMemObject(b->a);
    clReleaseMemObject(b->b);
    clReleaseMemObject(b->c);
    clReleaseCommandQueue(b->queue);
    clReleaseContext(b->context);
}

static void zb_fill(void *state, uint64_t iterations) {
    zb_cl *b = state;
    int zero = 0;
    for (uint64_t i = 0; i < iterations; i++) {
        zb_cl_check(clEnqueueFillBuffer(b->queue, b->a, &zero, sizeof zero, 0, ZB_ITEMS * sizeof(int), 0, NULL, NULL),
                    "clEnqueueFillBuffer");
        zb_cl_check(clFinish(b->queue), "clFinish");
    }
}

static void zb_vadd(void *state, uint64_t iterations) {
    zb_cl *b = state;
    size_t global = ZB_ITEMS;
    for (uint64_t i = 0; i < iterations; i++) {
        zb_cl_check(clEnqueueNDRangeKernel(b->queue, b->kernel, 1, NULL, &global, NULL, 0, NULL, NULL),
                    "clEnqueueNDRangeKernel");
        zb_cl_check(clFinish(b->queue), "clFinish");
    }
}

/* ns per enqueue+finish of both commands on one platform; false when the platform is not installed. */
static bool zb_run(const char *name, uint64_t iterations, double out[2]) {
    cl_platform_id platform = zb_cl_platform(name, true);
    if (platform == NULL)
        return false;
    zb_cl b;
    zb_setup(&b, platform);
    out[0] = zb_measure_ns(zb_fill, &b, iterations);
    out[1] = zb_measure_ns(zb_vadd, &b, iterations / 4 + 1);
    zb_teardown(&b);
    return true;
}

int main(int argc, char **argv) {
    bool quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    uint64_t iterations = quick ? 20 : 400;
    double ours[2], pocl[2];
    if (!zb_run("zefake", iterations, ours))
        zb_fail("no zefake platform", "set OCL_ICD_VENDORS to the build tree's bench/opencl-vendors");
    bool have_pocl = zb_run("Portable Computing Language", iterations, pocl);
    const char *what[2] = {"fill 4 KiB + finish", "vadd 1024 items + finish"};
    for (int i = 0; i < 2; i++) {
        if (have_pocl)
            printf("%-26s zefake %10.0f ns  pocl %10.0f ns  ratio zefake/pocl %.2f\n", what[i], ours[i], pocl[i],
                   ours[i] / pocl[i]);
        else
            printf("%-26s zefake %10.0f ns  pocl not installed: no ratio\n", what[i], ours[i]);
    }
    return 0;
}
