/* Long modelled work for the metric tests whose device time must pass 2^32 GPU clocks and 2^32 timestamp ticks.
 *
 * docs/builtin-kernels.md: GEMM costs 4 + 2k cycles per work-item, read from its `k` argument; with m = n = 0 no
 * work-item lies inside C, so a launch touches no memory and does nothing but take its modelled time. One 8 x 8 group
 * with k = 2^31 - 3 costs 2^32 - 2 cycles on each wave (docs/cost-model.md), about 2.7 s of device time at 1.6 GHz:
 * each launch alone runs for more than 2^32 - 2 GPU clocks. Include after zc_exec.h and zc_kernel_files.h. */
#ifndef ZC_METRIC_WORK_H
#define ZC_METRIC_WORK_H

#include "zc_exec.h"
#include "zc_kernel_files.h"
#include "zc_metric.h"

#define ZC_LONG_GEMM_K     2147483645u /* 4 + 2k = 2^32 - 2 cycles per work-item */
#define ZC_LONG_GEMM_ITEMS 64u         /* one 8 x 8 group */

/* docs/cost-model.md: one append of a kernel launch lasts 100 + 2000 + waves x cycles x 1000 / MHz ns. */
static inline uint64_t zc_long_launch_ns(ze_device_handle_t device) {
    ze_device_properties_t p = zc_device_props(device);
    uint64_t lanes = (uint64_t)p.numSlices * p.numSubslicesPerSlice * p.numEUsPerSubslice * p.physicalEUSimdWidth;
    uint64_t waves = (ZC_LONG_GEMM_ITEMS + lanes - 1) / lanes, cycles = 4 + 2 * (uint64_t)ZC_LONG_GEMM_K;
    return 100 + 2000 + waves * cycles * 1000 / p.coreClockRate;
}

/* GPU clocks at device time ns (docs/metrics.md, "Signals": floor(ns x MHz / 1000)). */
static inline uint64_t zc_gpu_clocks_at(uint64_t ns, uint64_t mhz) {
    return (uint64_t)((unsigned __int128)ns * mhz / 1000u);
}

/* Timestamp ticks at device time ns (docs/cost-model.md: whole ticks of each instant). */
static inline uint64_t zc_ticks_at(uint64_t ns, uint64_t hz) {
    return (uint64_t)((unsigned __int128)ns * hz / 1000000000u);
}

/* A GEMM kernel of `module` set up for the long launch; `buffer` stands for all three matrices (none is touched). */
static inline ze_kernel_handle_t zc_long_gemm_kernel(ze_module_handle_t module, void *buffer) {
    ze_kernel_handle_t kernel = zc_kernel_create(module, "gemm");
    const uint32_t empty = 0, k = ZC_LONG_GEMM_K;
    for (uint32_t i = 0; i < 3; i++)
        zc_assert_success(zeKernelSetArgumentValue(kernel, i, sizeof buffer, &buffer));
    zc_assert_success(zeKernelSetArgumentValue(kernel, 3, sizeof empty, &empty));
    zc_assert_success(zeKernelSetArgumentValue(kernel, 4, sizeof empty, &empty));
    zc_assert_success(zeKernelSetArgumentValue(kernel, 5, sizeof k, &k));
    zc_assert_success(zeKernelSetGroupSize(kernel, 8, 8, 1));
    return kernel;
}

/* Appends `launches` long launches to `list`. */
static inline void zc_append_long_launches(ze_command_list_handle_t list, ze_kernel_handle_t kernel,
                                           uint32_t launches) {
    ze_group_count_t groups = {1, 1, 1};
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
