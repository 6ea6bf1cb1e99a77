/* Conformance: sysman controls with an effect on execution (zes_api.h; ZES_ENABLE_SYSMAN=1 set before zeInit, core
 * device handles used as sysman device handles): a power limit below the workload's draw lowers the clock kernels run
 * at, so the same kernel lasts longer in device time, with throttle reasons and throttle time. The fake's exact model
 * (docs/sysman.md) is checked where the test says so. */
#include "zc_exec.h"
#include "zc_kernel_files.h"
#include "zc_metric_work.h"
#include "zc_sysman.h"

/* Work-groups of the compute-bound launch: idle GEMM work-items (zc_metric_work.h) cost the host nothing with the
 * built-ins and tens of ms of device time on the shipped cards. */
#define ZC_BOUND_GROUPS_X 65536u
#define ZC_BOUND_GROUPS_Y 1024u

static zes_freq_handle_t zc_freq_domain(ze_device_handle_t device) {
    zes_freq_handle_t freq = NULL;
    uint32_t one = 1;
    zc_assert_success(zesDeviceEnumFrequencyDomains((zes_device_handle_t)device, &one, &freq));
    return freq;
}

/* The device time, ns, one launch of `kernel` lasts from its kernel timestamps (the command's interval). */
static uint64_t zc_launch_ns(zc_exec *x, ze_kernel_handle_t kernel, const ze_group_count_t *groups) {
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

/* docs/sysman.md: under a limit at the card's idle draw the clock drops to the bottom of its range, and the cost model
 * runs kernels at that clock: the same compute-bound launch lasts longer by the ratio of the clocks (its fixed set-up
 * and command costs aside), with the average-power-cap reason and throttle time. */
static void sysman_low_limit_lengthens_kernels(void **state) {
    zc_exec *x = *state;
    zc_skip_unless_fake();
    zc_skip_without_builtins();
    zes_power_properties_t p;
    zes_pwr_handle_t card = zc_card_domain(x->device, &p);
    if (card == NULL)
        skip();
    zes_freq_handle_t freq = zc_freq_domain(x->device);
    zes_freq_range_t range;
    zc_assert_success(zesFrequencyGetRange(freq, &range));
    ze_module_handle_t module = zc_module_create(x->context, x->device, "gemm");
    void *buffer = zc_device_alloc(x, 64);
    ze_kernel_handle_t kernel = zc_long_gemm_kernel(module, buffer);
    const ze_group_count_t groups = {ZC_BOUND_GROUPS_X, ZC_BOUND_GROUPS_Y, 1};
    uint64_t full = zc_launch_ns(x, kernel, &groups);
    zes_freq_throttle_time_t before, after;
    zc_assert_success(zesFrequencyGetThrottleTime(freq, &before));
    zc_set_sustained(card, p.minLimit, 1000);
    uint64_t throttled = zc_launch_ns(x, kernel, &groups);
    zc_assert_success(zesFrequencyGetThrottleTime(freq, &after));
    zc_set_sustained(card, p.defaultLimit, 1000);
    uint64_t again = zc_launch_ns(x, kernel, &groups);
    double ratio = (double)(throttled - 2100) / (double)(full - 2100); /* set-up and command: docs/cost-model.md */
    assert_true(ratio > range.max / range.min * 0.99 && ratio < range.max / range.min * 1.01);
    assert_true(after.throttleTime - before.throttleTime >= throttled / 1000u);
    assert_true(again < full + full / 100); /* the default limit gives the full clock back (ticks: whole ones) */
    zc_assert_success(zeKernelDestroy(kernel));
    zc_assert_success(zeModuleDestroy(module));
    zc_free(x, buffer);
}

/* A frequency range below the domain's maximum slows kernels the same way (docs/sysman.md), with the software-range
 * throttle reason while the device is busy. */
static void sysman_frequency_range_sets_kernel_clock(void **state) {
    zc_exec *x = *state;
    zc_skip_unless_fake();
    zc_skip_without_builtins();
    zes_freq_handle_t freq = zc_freq_domain(x->device);
    zes_freq_range_t range;
    zc_assert_success(zesFrequencyGetRange(freq, &range));
    ze_module_handle_t module = zc_module_create(x->context, x->device, "gemm");
    void *buffer = zc_device_alloc(x, 64);
    ze_kernel_handle_t kernel = zc_long_gemm_kernel(module, buffer);
    const ze_group_count_t groups = {ZC_BOUND_GROUPS_X, ZC_BOUND_GROUPS_Y, 1};
    uint64_t full = zc_launch_ns(x, kernel, &groups);
    zes_freq_range_t half = {range.min, range.max / 2};
    zc_assert_success(zesFrequencySetRange(freq, &half));
    uint64_t slow = zc_launch_ns(x, kernel, &groups);
    zes_freq_state_t s = {.stype = ZES_STRUCTURE_TYPE_FREQ_STATE};
    zc_assert_success(zesFrequencyGetState(freq, &s)); /* within the millisecond the device counts as busy */
    zc_assert_success(zesFrequencySetRange(freq, &range));
    double ratio = (double)(slow - 2100) / (double)(full - 2100);
    assert_true(ratio > 1.98 && ratio < 2.02);
    assert_true(s.actual == half.max || (s.throttleReasons == 0 && s.actual == half.min));
    if (s.actual == half.max)
        assert_true((s.throttleReasons & ZES_FREQ_THROTTLE_REASON_FLAG_SW_RANGE) != 0);
    zc_assert_success(zeKernelDestroy(kernel));
    zc_assert_success(zeModuleDestroy(module));
    zc_free(x, buffer);
}

int main(int argc, char **argv) {
    static const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(sysman_low_limit_lengthens_kernels, zc_setup_exec, zc_teardown_exec),
        cmocka_unit_test_setup_teardown(sysman_frequency_range_sets_kernel_clock, zc_setup_exec, zc_teardown_exec),
    };
    static const zc_suite suite = {ZC_EXECUTABLE, tests, ZC_COUNT(tests), zc_setup_system, zc_teardown_system, NULL, 0};
    return zc_main(argc, argv, &suite);
}
