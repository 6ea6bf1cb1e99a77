/* What the benchmarks of SPIR-V kernels (bench_spirv.c, bench_compiled.c) share: a context with a synchronous
 * immediate command list on the compute group, host allocations of floats, a kernel of a compiled test kernel file
 * (ZB_KERNEL_DIR/<file>.spv) and the plain C loops whose results the kernels must match. Include after zb_bench.h. */
#ifndef ZB_KERNELS_H
#define ZB_KERNELS_H

#include <level_zero/ze_api.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef ZB_BENCH_H
#error "include zb_bench.h before zb_kernels.h"
#endif

/* The ordinal of the device's first command queue group that runs compute. */
static inline uint32_t zb_compute_ordinal(ze_device_handle_t device) {
    ze_command_queue_group_properties_t groups[16];
    uint32_t count = 16, ordinal = 0;
    for (uint32_t i = 0; i < count; i++)
        groups[i] = (ze_command_queue_group_properties_t){.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_GROUP_PROPERTIES};
    zb_check(zeDeviceGetCommandQueueGroupProperties(device, &count, groups), "queue groups");
    while (ordinal < count && !(groups[ordinal].flags & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE))
        ordinal++;
    return ordinal;
}

/* The first device of the first driver, a context, and a synchronous immediate list (a launch returns once it has
 * completed). */
static inline void zb_kernel_session(ze_context_handle_t *context, ze_device_handle_t *device,
                                     ze_command_list_handle_t *list) {
    ze_driver_handle_t driver = NULL;
    uint32_t count = 1;
    zb_check(zeInit(0), "zeInit");
    zb_check(zeDriverGet(&count, &driver), "zeDriverGet");
    count = 1;
    zb_check(zeDeviceGet(driver, &count, device), "zeDeviceGet");
    ze_context_desc_t desc = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0};
    zb_check(zeContextCreate(driver, &desc, context), "zeContextCreate");
    ze_command_queue_desc_t qdesc = {ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC,
                                     NULL,
                                     zb_compute_ordinal(*device),
                                     0,
                                     0,
                                     ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS,
                                     ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
    zb_check(zeCommandListCreateImmediate(*context, *device, &qdesc, list), "zeCommandListCreateImmediate");
}

static inline float *zb_host_floats(ze_context_handle_t context, size_t count) {
    ze_host_mem_alloc_desc_t desc = {ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, NULL, 0};
    void *p = NULL;
    zb_check(zeMemAllocHost(context, &desc, count * sizeof(float), 64, &p), "zeMemAllocHost");
    return p;
}

/* Kernel `name` of ZB_KERNEL_DIR/<file>.spv (the current directory without it) with a local[0] x local[1] group; its
 * module in *module. The caller sets the arguments. */
static inline ze_kernel_handle_t zb_spirv_kernel(ze_context_handle_t context, ze_device_handle_t device,
                                                 const char *file, const char *name, const uint32_t local[2],
                                                 ze_module_handle_t *module) {
    char path[1024];
    const char *dir = getenv("ZB_KERNEL_DIR");
    snprintf(path, sizeof path, "%s/%s.spv", dir != NULL ? dir : ".", file);
    FILE *stream = fopen(path, "rb");
    if (stream == NULL)
        zb_fail(path, "cannot open it (set ZB_KERNEL_DIR)");
    static uint8_t spirv[1 << 18];
    size_t size = fread(spirv, 1, sizeof spirv, stream);
    fclose(stream);
    ze_module_desc_t desc = {ZE_STRUCTURE_TYPE_MODULE_DESC, NULL, ZE_MODULE_FORMAT_IL_SPIRV, size, spirv, NULL, NULL};
    zb_check(zeModuleCreate(context, device, &desc, module, NULL), "zeModuleCreate");
    ze_kernel_desc_t kdesc = {ZE_STRUCTURE_TYPE_KERNEL_DESC, NULL, 0, name};
    ze_kernel_handle_t kernel = NULL;
    zb_check(zeKernelCreate(*module, &kdesc, &kernel), "zeKernelCreate");
    zb_check(zeKernelSetGroupSize(kernel, local[0], local[1], 1), "zeKernelSetGroupSize");
    return kernel;
}

/* A native loop: out from a and b, n the vector's elements or the matrix side. */
typedef void (*zb_loop)(uint32_t n, const float *a, const float *b, float *out);

/* out = a + b, n floats. */
static inline void zb_vadd_loop(uint32_t n, const float *a, const float *b, float *out) {
    for (uint32_t i = 0; i < n; i++)
        out[i] = a[i] + b[i];
}

/* out = a x b, n x n floats in rows. */
static inline void zb_gemm_loop(uint32_t n, const float *a, const float *b, float *out) {
    for (uint32_t row = 0; row < n; row++)
        for (uint32_t col = 0; col < n; col++) {
            float sum = 0.0f;
            for (uint32_t i = 0; i < n; i++)
                sum += a[(size_t)row * n + i] * b[(size_t)i * n + col];
            out[(size_t)row * n + col] = sum;
        }
}

/* The fastest of `repeats` runs of a native loop, ns. */
static inline double zb_loop_ns(int repeats, zb_loop loop, uint32_t n, const float *a, const float *b, float *out) {
    double best = INFINITY;
    for (int r = 0; r < repeats; r++) {
        uint64_t start = zb_now_ns();
        loop(n, a, b, out);
        __asm__ volatile("" ::"r"(out) : "memory");
        double ns = (double)(zb_now_ns() - start);
        best = ns < best ? ns : best;
    }
    return best;
}

/* The fastest of `repeats` launches of kernel on a synchronous immediate list (each returns once it completed), ns. */
static inline double zb_launch_ns(ze_command_list_handle_t list, ze_kernel_handle_t kernel,
                                  const ze_group_count_t *groups, int repeats) {
    double best = INFINITY;
    for (int r = 0; r < repeats; r++) {
        uint64_t start = zb_now_ns();
        zb_check(zeCommandListAppendLaunchKernel(list, kernel, groups, NULL, 0, NULL), "launch");
        double ns = (double)(zb_now_ns() - start);
        best = ns < best ? ns : best;
    }
    return best;
}

#endif
