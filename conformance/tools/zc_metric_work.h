/* Long modelled work for the metric tests whose device time must pass 2^32 GPU clocks and 2^32 timestamp ticks.
 *
 * docs/builtin-kernels.md: with m = n = 0 no work-item of GEMM lies inside C, so each only checks its bounds (10 ALU
 * operations) and the built-in touches no memory and computes nothing: a launch of 2^33 groups of 32 x 32 work-items
 * costs the host nothing, while the cost model (docs/cost-model.md) gives it 10 lane cycles per work-item spread over
 * the device's lanes, more than 2^32 GPU clocks on the shipped scenarios. Without the built-ins the execution engine
 * would really run those 2^43 work-items: the tests that use this work skip in that variant. Include after zc_exec.h
 * and zc_kernel_files.h. */
#ifndef ZC_METRIC_WORK_H
#define ZC_METRIC_WORK_H

#include "zc_cost_model.h"
#include "zc_exec.h"
#include "zc_kernel_files.h"
#include "zc_metric.h"

#define ZC_LONG_GROUPS_X 8388608u /* 2^23 x 2^10 groups of 1024 work-items */
#define ZC_LONG_GROUPS_Y 1024u

/* The idle GEMM work-item (docs/builtin-kernels.md). */
static const zc_item_work zc_idle_gemm_work = {.alu = 10};

/* The long launches need the built-ins' fast path (see above). */
static inline void zc_skip_without_builtins(void) {
    const char *builtins = getenv("ZEFAKE_BUILTINS");
    if (builtins != NULL && strcmp(builtins, "0") == 0)
        skip();
}

/* docs/cost-model.md: one append of the long launch lasts the command plus the kernel's slowest tile. */
static inline uint64_t zc_long_launch_ns(ze_device_handle_t device) {
    zc_model m = zc_model_of(device);
    return ZC_MODEL_COMMAND_NS +
           zc_model_kernel_ns(&m, &zc_idle_gemm_work, (uint64_t)ZC_LONG_GROUPS_X * ZC_LONG_GROUPS_Y, 1024);
}

/* GPU clocks at device time ns (docs/metrics.md, "Signals": floor(ns x MHz / 1000)). */
static inline uint64_t zc_gpu_clocks_at(uint64_t ns, uint64_t mhz) {
    return (uint64_t)((unsigned __int128)ns * mhz / 1000u);
}

/* Timestamp ticks at device time ns (docs/cost-model.md: whole ticks of each instant). */
static inline uint64_t zc_ticks_at(uint64_t ns, uint64_t hz) {
    return (uint64_t)((unsigned __int128)ns * hz / 1000000000u);
}

/* The device time, ns, one launch of `kernel` on the compute engine lasts from its kernel timestamps (the command's
 * interval). */
static inline uint64_t zc_launch_ns(zc_exec *x, ze_kernel_handle_t kernel, const ze_group_count_t *groups) {
    ze_event_pool_handle_t pool = zc_event_pool(x, 1, ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP);
    ze_event_handle_t event = zc_event(pool, 0);
    ze_command_list_handle_t list = zc_list(x, x->compute_ordinal);
    zc_assert_success(zeCommandListAppendLaunchKernel(list, kernel, groups, event, 0, NULL));
    ze_command_queue_handle_t queue = zc_queue(x, x->compute_ordinal, 0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    zc_run(queue, list);
    ze_kernel_timestamp_result_t ts;
    zc_assert_success(zeEventQueryKernelTimestamp(event, &ts));
    ze_device_properties_t p = zc_device_props(x->device);
    uint64_t mask = p.kernelTimestampValidBits >= 64 ? UINT64_MAX : (1ull << p.kernelTimestampValidBits) - 1u;
    uint64_t ticks = (ts.context.kernelEnd - ts.context.kernelStart) & mask;
    zc_assert_success(zeCommandQueueDestroy(queue));
    zc_assert_success(zeCommandListDestroy(list));
    zc_assert_success(zeEventDestroy(event));
    zc_assert_success(zeEventPoolDestroy(pool));
    return (uint64_t)((unsigned __int128)ticks * 1000000000u / p.timerResolution);
}

/* A GEMM kernel of `module` set up for the long launch; `buffer` stands for all three matrices (none is touched). */
static inline ze_kernel_handle_t zc_long_gemm_kernel(ze_module_handle_t module, void *buffer) {
    ze_kernel_handle_t kernel = zc_kernel_create(module, "gemm");
    const uint32_t empty = 0, k = 1;
    for (uint32_t i = 0; i < 3; i++)
        zc_assert_success(zeKernelSetArgumentValue(kernel, i, sizeof buffer, &buffer));
    zc_assert_success(zeKernelSetArgumentValue(kernel, 3, sizeof empty, &empty));
    zc_assert_success(zeKernelSetArgumentValue(kernel, 4, sizeof empty, &empty));
    zc_assert_success(zeKernelSetArgumentValue(kernel, 5, sizeof k, &k));
    zc_assert_success(zeKernelSetGroupSize(kernel, 32, 32, 1));
    return kernel;
}

/* Appends `launches` long launches to `list`. */
static inline void zc_append_long_launches(ze_command_list_handle_t list, ze_kernel_handle_t kernel,
                                           uint32_t launches) {
    ze_group_count_t groups = {ZC_LONG_GROUPS_X, ZC_LONG_GROUPS_Y, 1};
    for (uint32_t i = 0; i < launches; i++)
        zc_assert_success(zeCommandListAppendLaunchKernel(list, kernel, &groups, NULL, 0, NULL));
}

/* The launches needed for device time to go from `ticks_now` past the next multiple of 2^32 ticks by `margin` ticks
 * (at least two, so that the GPU clock passes 2^32 inside the work too). */
static inline uint32_t zc_launches_past_tick_wrap(ze_device_handle_t device, uint64_t ticks_now, uint64_t margin) {
    uint64_t hz = zc_device_props(device).timerResolution;
    uint64_t per_launch = zc_ticks_at(zc_long_launch_ns(device), hz);
    uint64_t needed = (1ull << 32) - (ticks_now & 0xffffffffu) + margin;
    uint64_t launches = needed / per_launch + 1;
    return launches < 2 ? 2 : (uint32_t)launches;
}

/* Device time now, in ticks; the modelled clock moves 1 us per read (docs/cost-model.md). */
static inline uint64_t zc_device_ticks(ze_device_handle_t device) {
    uint64_t host = 0, ticks = 0;
    zc_assert_success(zeDeviceGetGlobalTimestamps(device, &host, &ticks));
    return ticks;
}

#endif
