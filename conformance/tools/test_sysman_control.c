/* Conformance: sysman controls with an effect on execution (zes_api.h; ZES_ENABLE_SYSMAN=1 set before zeInit, core
 * device handles used as sysman device handles): a power limit below the workload's draw lowers the clock kernels run
 * at, so the same kernel lasts longer in device time, with throttle reasons and throttle time. The fake's exact model
 * (docs/sysman.md) is checked where the test says so. */
#include "zc_exec.h"
#include "zc_kernel_files.h"
#include "zc_metric_work.h"
#include "zc_sysman.h"

#include <pthread.h>
#include <unistd.h>

/* Work-groups of the compute-bound launch: idle GEMM work-items (zc_metric_work.h) cost the host nothing with the
 * built-ins and tens of ms of device time on the shipped cards. */
#define ZC_BOUND_GROUPS_X 65536u
#define ZC_BOUND_GROUPS_Y 1024u

/* Runs the compute-bound launch once; answers its device time, ns. */
static uint64_t zc_run_heating_once(zc_exec *x) {
    ze_module_handle_t module = zc_module_create(x->context, x->device, "gemm");
    void *buffer = zc_device_alloc(x, 64);
    ze_kernel_handle_t kernel = zc_long_gemm_kernel(module, buffer);
    const ze_group_count_t groups = {ZC_BOUND_GROUPS_X, ZC_BOUND_GROUPS_Y, 1};
    uint64_t ns = zc_launch_ns(x, kernel, &groups);
    zc_assert_success(zeKernelDestroy(kernel));
    zc_assert_success(zeModuleDestroy(module));
    zc_free(x, buffer);
    return ns;
}

/* Runs the compute-bound launch until the device has computed for 150 ms; answers that device time, ns. */
static uint64_t zc_run_heating_work(zc_exec *x) {
    ze_module_handle_t module = zc_module_create(x->context, x->device, "gemm");
    void *buffer = zc_device_alloc(x, 64);
    ze_kernel_handle_t kernel = zc_long_gemm_kernel(module, buffer);
    const ze_group_count_t groups = {ZC_BOUND_GROUPS_X, ZC_BOUND_GROUPS_Y, 1};
    uint64_t ns = 0;
    while (ns < 150000000u)
        ns += zc_launch_ns(x, kernel, &groups);
    zc_assert_success(zeKernelDestroy(kernel));
    zc_assert_success(zeModuleDestroy(module));
    zc_free(x, buffer);
    return ns;
}

/* docs/sysman.md: under a limit at the card's idle draw the clock drops to the bottom of its range, and the cost model
 * runs kernels at that clock: the same compute-bound launch lasts longer by the ratio of the clocks (its fixed set-up
 * and command costs aside), with throttle time and one event when throttling starts. */
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
    zes_device_handle_t device = (zes_device_handle_t)x->device;
    zc_assert_success(zesDeviceEventRegister(device, ZES_EVENT_TYPE_FLAG_FREQ_THROTTLED));
    zc_set_sustained(card, p.minLimit, 1000);
    uint64_t throttled = zc_launch_ns(x, kernel, &groups);
    zc_launch_ns(x, kernel, &groups); /* still throttled: no new event */
    zc_assert_success(zesFrequencyGetThrottleTime(freq, &after));
    zc_set_sustained(card, p.defaultLimit, 1000);
    uint64_t again = zc_launch_ns(x, kernel, &groups);
    uint32_t with_events = 0;
    zes_event_type_flags_t events = 0;
    zc_assert_success(zesDriverEventListen(zc_sys()->driver, 0, 1, &device, &with_events, &events));
    assert_int_equal(events, ZES_EVENT_TYPE_FLAG_FREQ_THROTTLED);
    zc_assert_success(zesDriverEventListen(zc_sys()->driver, 0, 1, &device, &with_events, &events));
    assert_int_equal(events, 0);
    zc_assert_success(zesDeviceEventRegister(device, 0));
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

/* Listens to one device's events for at most timeout_ms; answers the events and sets *elapsed_ms. */
static zes_event_type_flags_t zc_listen(zes_device_handle_t device, uint64_t timeout_ms, uint64_t *elapsed_ms) {
    uint32_t with_events = 0;
    zes_event_type_flags_t events = 0;
    uint64_t start = zc_now_ms();
    zc_assert_success(zesDriverEventListenEx(zc_sys()->driver, timeout_ms, 1, &device, &with_events, &events));
    *elapsed_ms = zc_now_ms() - start;
    assert_int_equal(with_events, events != 0 ? 1 : 0);
    return events;
}

/* An energy threshold arms on the energy drawn from the call on; the idle draw alone crosses a small one while the
 * listener waits, the event arrives once and the threshold is removed (zes_api.h). */
static void sysman_energy_threshold_event(void **state) {
    zc_exec *x = *state;
    zes_device_handle_t device = (zes_device_handle_t)x->device;
    zes_pwr_handle_t power = NULL;
    uint32_t one = 1;
    zc_assert_success(zesDeviceEnumPowerDomains(device, &one, &power));
    zes_power_properties_t p = {.stype = ZES_STRUCTURE_TYPE_POWER_PROPERTIES};
    zc_assert_success(zesPowerGetProperties(power, &p));
    if (!p.isEnergyThresholdSupported)
        skip();
    zc_assert_success(zesDeviceEventRegister(device, ZES_EVENT_TYPE_FLAG_ENERGY_THRESHOLD_CROSSED));
    zc_assert_success(zesPowerSetEnergyThreshold(power, 0.05)); /* 50 mJ: about 1 ms of a tile's idle draw */
    zes_energy_threshold_t t;
    zc_assert_success(zesPowerGetEnergyThreshold(power, &t));
    assert_true(t.enable && t.threshold == 0.05 && t.processId == (uint32_t)getpid());
    uint64_t elapsed;
    zes_event_type_flags_t events = zc_listen(device, 10000, &elapsed);
    assert_int_equal(events, ZES_EVENT_TYPE_FLAG_ENERGY_THRESHOLD_CROSSED);
    assert_true(elapsed < 5000);
    assert_int_equal(zc_listen(device, 20, &elapsed), 0); /* once */
    zc_assert_success(zesPowerGetEnergyThreshold(power, &t));
    assert_true(!t.enable && t.threshold == 0.0 && t.processId == UINT32_MAX);
    /* Removed by a threshold of 0: nothing is raised. */
    zc_assert_success(zesPowerSetEnergyThreshold(power, 0.05));
    zc_assert_success(zesPowerSetEnergyThreshold(power, 0.0));
    assert_int_equal(zc_listen(device, 30, &elapsed), 0);
    zc_assert_success(zesDeviceEventRegister(device, 0));
    if (zc_driver_is_fake())
        zc_assert_result(zesPowerSetEnergyThreshold(power, -1.0), ZE_RESULT_ERROR_INVALID_ARGUMENT);
}

static zes_temp_handle_t zc_temp_sensor(zes_device_handle_t device, zes_temp_properties_t *p) {
    zes_temp_handle_t temp = NULL;
    uint32_t one = 1;
    zc_assert_success(zesDeviceEnumTemperatureSensors(device, &one, &temp));
    *p = (zes_temp_properties_t){.stype = ZES_STRUCTURE_TYPE_TEMP_PROPERTIES};
    zc_assert_success(zesTemperatureGetProperties(temp, p));
    return temp;
}

/* docs/sysman.md: the thermal model heats the sensor past threshold 1 when work completes (the event wakes the
 * listener), and cools it back below threshold 2 with no work while the listener waits. */
static void sysman_temperature_threshold_events(void **state) {
    zc_exec *x = *state;
    zc_skip_unless_fake();
    zc_skip_without_builtins();
    zes_device_handle_t device = (zes_device_handle_t)x->device;
    zes_temp_properties_t p;
    zes_temp_handle_t temp = zc_temp_sensor(device, &p);
    assert_true(p.isThreshold1Supported && p.isThreshold2Supported && p.isCriticalTempSupported);
    double now;
    zc_assert_success(zesTemperatureGetState(temp, &now));
    zes_temp_config_t c = {.stype = ZES_STRUCTURE_TYPE_TEMP_CONFIG,
                           .threshold1 = {.enableLowToHigh = true, .threshold = now + 1.0}};
    zc_assert_success(zesTemperatureSetConfig(temp, &c));
    zes_temp_config_t got = {.stype = ZES_STRUCTURE_TYPE_TEMP_CONFIG};
    zc_assert_success(zesTemperatureGetConfig(temp, &got));
    assert_true(got.threshold1.enableLowToHigh && !got.threshold1.enableHighToLow &&
                got.threshold1.threshold == now + 1.0);
    assert_true(!got.enableCritical && !got.threshold2.enableLowToHigh && !got.threshold2.enableHighToLow);
    zc_assert_success(
        zesDeviceEventRegister(device, ZES_EVENT_TYPE_FLAG_TEMP_THRESHOLD1 | ZES_EVENT_TYPE_FLAG_TEMP_THRESHOLD2));
    uint64_t elapsed;
    assert_int_equal(zc_listen(device, 0, &elapsed), 0);
    uint64_t heating_ms = zc_run_heating_work(x) / 1000000u;
    assert_int_equal(zc_listen(device, 5000, &elapsed), ZES_EVENT_TYPE_FLAG_TEMP_THRESHOLD1);
    zc_sleep_ms((unsigned)heating_ms + 50); /* the sensor heats for as long as the work ran (docs/sysman.md) */
    double hot;
    zc_assert_success(zesTemperatureGetState(temp, &hot));
    assert_true(hot >= now + 1.0);
    c = (zes_temp_config_t){.stype = ZES_STRUCTURE_TYPE_TEMP_CONFIG,
                            .threshold2 = {.enableHighToLow = true, .threshold = hot - 0.2}};
    zc_assert_success(zesTemperatureSetConfig(temp, &c));
    assert_int_equal(zc_listen(device, 10000, &elapsed), ZES_EVENT_TYPE_FLAG_TEMP_THRESHOLD2);
    assert_true(elapsed < 5000);
    double cooler;
    zc_assert_success(zesTemperatureGetState(temp, &cooler));
    assert_true(cooler < hot - 0.2);
    zc_assert_success(zesDeviceEventRegister(device, 0));
    zes_temp_config_t off = {.stype = ZES_STRUCTURE_TYPE_TEMP_CONFIG};
    zc_assert_success(zesTemperatureSetConfig(temp, &off));
    /* A threshold enabled at or above TjMax is refused; a disabled one is not checked. */
    c = (zes_temp_config_t){.stype = ZES_STRUCTURE_TYPE_TEMP_CONFIG,
                            .threshold1 = {.enableLowToHigh = true, .threshold = p.maxTemperature}};
    zc_assert_result(zesTemperatureSetConfig(temp, &c), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    c.threshold1.enableLowToHigh = false;
    zc_assert_success(zesTemperatureSetConfig(temp, &c));
}

typedef struct zc_listener {
    zes_device_handle_t device;
    zes_event_type_flags_t events;
    uint32_t with_events;
    ze_result_t result;
    uint64_t elapsed_ms;
} zc_listener;

/* Listens for 20 s (long enough to fail, not to hang, when the event does not wake it). */
static void *zc_listen_long(void *arg) {
    zc_listener *l = arg;
    uint64_t start = zc_now_ms();
    l->result = zesDriverEventListen(zc_sys()->driver, 20000, 1, &l->device, &l->with_events, &l->events);
    l->elapsed_ms = zc_now_ms() - start;
    return NULL;
}

/* A RAS threshold: the uncorrectable set's total going above it (a fault, then the reset that clears it) raises the
 * event, which wakes a waiting listener. */
static void sysman_ras_threshold_wakes_listener(void **state) {
    zc_exec *x = *state;
    zc_skip_unless_fake();
    zes_device_handle_t device = (zes_device_handle_t)x->device;
    zes_ras_handle_t ras = zc_ras_set(device, ZES_RAS_ERROR_TYPE_UNCORRECTABLE);
    zes_ras_state_t cleared = {.stype = ZES_STRUCTURE_TYPE_RAS_STATE};
    zc_assert_success(zesRasGetState(ras, true, &cleared));
    zes_ras_config_t c = {.stype = ZES_STRUCTURE_TYPE_RAS_CONFIG, .totalThreshold = 1};
    c.detailedThresholds.category[ZES_RAS_ERROR_CAT_RESET] = 5;
    zc_assert_success(zesRasSetConfig(ras, &c));
    zes_ras_config_t got = {.stype = ZES_STRUCTURE_TYPE_RAS_CONFIG};
    zc_assert_success(zesRasGetConfig(ras, &got));
    assert_int_equal(got.totalThreshold, 1);
    assert_int_equal(got.detailedThresholds.category[ZES_RAS_ERROR_CAT_RESET], 5);
    zc_assert_success(zesDeviceEventRegister(device, ZES_EVENT_TYPE_FLAG_RAS_UNCORRECTABLE_ERRORS));
    uint8_t *small = zc_device_alloc(x, 64);
    uint8_t *big = zc_host_alloc(x, 4096);
    ze_command_list_handle_t list = zc_list(x, x->compute_ordinal);
    ze_command_queue_handle_t queue = zc_queue(x, x->compute_ordinal, 0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    zc_assert_success(zeCommandListAppendMemoryCopy(list, small, big, 4096, NULL, 0, NULL));
    zc_run(queue, list); /* one fault: the total is 1, not above the threshold */
    uint64_t elapsed;
    assert_int_equal(zc_listen(device, 0, &elapsed), 0);
    zc_listener l = {.device = device};
    pthread_t thread;
    assert_int_equal(pthread_create(&thread, NULL, zc_listen_long, &l), 0);
    zc_sleep_ms(20);
    zc_assert_success(zesDeviceReset(device, true)); /* a reset: 2 */
    pthread_join(thread, NULL);
    zc_assert_success(l.result);
    assert_true(l.elapsed_ms < 5000);
    assert_int_equal(l.with_events, 1);
    assert_int_equal(l.events, ZES_EVENT_TYPE_FLAG_RAS_UNCORRECTABLE_ERRORS);
    zc_assert_success(zesDeviceEventRegister(device, 0));
    zes_ras_config_t off = {.stype = ZES_STRUCTURE_TYPE_RAS_CONFIG};
    zc_assert_success(zesRasSetConfig(ras, &off));
    zc_assert_success(zesRasGetState(ras, true, &cleared));
    zc_assert_success(zeCommandQueueDestroy(queue));
    zc_assert_success(zeCommandListDestroy(list));
    zc_free(x, small);
    zc_free(x, big);
}

static zes_sched_handle_t zc_scheduler(zes_device_handle_t device) {
    uint32_t count = 0;
    zc_assert_success(zesDeviceEnumSchedulers(device, &count, NULL));
    if (count == 0)
        return NULL;
    zes_sched_handle_t sched = NULL;
    count = 1;
    zc_assert_success(zesDeviceEnumSchedulers(device, &count, &sched));
    return sched;
}

typedef struct zc_release {
    volatile int32_t *flag;
    unsigned after_ms; /* 0: never */
} zc_release;

static void *zc_release_later(void *arg) {
    zc_release *r = arg;
    zc_sleep_ms(r->after_ms);
    __atomic_store_n(r->flag, 1, __ATOMIC_SEQ_CST); /* the spinning kernel reads it atomically */
    return NULL;
}

/* Runs the `spin` kernel of conformance/kernels/spirv_faults.cl once, released by the host after `release_ms` (0:
 * never, it ends only when stopped as a hang); answers the host ms until it ended. */
static uint64_t zc_run_spin(zc_exec *x, unsigned release_ms) {
    int32_t *flag = zc_host_alloc(x, 4), *out = zc_host_alloc(x, 4);
    *flag = 0;
    ze_module_handle_t module = zc_module_create(x->context, x->device, "spirv_faults");
    ze_kernel_handle_t spin = zc_kernel_create(module, "spin");
    zc_assert_success(zeKernelSetArgumentValue(spin, 0, sizeof flag, &flag));
    zc_assert_success(zeKernelSetArgumentValue(spin, 1, sizeof out, &out));
    zc_assert_success(zeKernelSetGroupSize(spin, 1, 1, 1));
    ze_command_list_handle_t list = zc_list(x, x->compute_ordinal);
    const ze_group_count_t one = {1, 1, 1};
    zc_assert_success(zeCommandListAppendLaunchKernel(list, spin, &one, NULL, 0, NULL));
    ze_command_queue_handle_t queue = zc_queue(x, x->compute_ordinal, 0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    zc_release release = {flag, release_ms};
    pthread_t releaser;
    if (release_ms > 0)
        assert_int_equal(pthread_create(&releaser, NULL, zc_release_later, &release), 0);
    uint64_t start = zc_now_ms();
    zc_run(queue, list);
    uint64_t elapsed = zc_now_ms() - start;
    if (release_ms > 0)
        pthread_join(releaser, NULL);
    zc_assert_success(zeCommandQueueDestroy(queue));
    zc_assert_success(zeCommandListDestroy(list));
    zc_assert_success(zeKernelDestroy(spin));
    zc_assert_success(zeModuleDestroy(module));
    zc_free(x, flag);
    zc_free(x, out);
    return elapsed;
}

/* docs/sysman.md: the compute scheduler starts in TIMESLICE mode; TIMEOUT mode's watchdog stops a kernel that runs
 * longer, as the hang detector does (the device is lost until reset), applied at once (no reload). */
static void sysman_scheduler_watchdog_stops_kernel(void **state) {
    zc_exec *x = *state;
    zes_device_handle_t device = (zes_device_handle_t)x->device;
    zes_sched_handle_t sched = zc_scheduler(device);
    if (sched == NULL)
        skip();
    zes_sched_properties_t p = {.stype = ZES_STRUCTURE_TYPE_SCHED_PROPERTIES};
    zc_assert_success(zesSchedulerGetProperties(sched, &p));
    if (!p.canControl || (p.supportedModes & (1u << ZES_SCHED_MODE_TIMEOUT)) == 0)
        skip();
    zes_sched_mode_t mode;
    zc_assert_success(zesSchedulerGetCurrentMode(sched, &mode));
    if (zc_driver_is_fake()) {
        assert_int_equal(mode, ZES_SCHED_MODE_TIMESLICE);
        assert_int_equal(p.engines, ZES_ENGINE_TYPE_FLAG_COMPUTE);
    }
    zes_sched_timeslice_properties_t slice = {.stype = ZES_STRUCTURE_TYPE_SCHED_TIMESLICE_PROPERTIES};
    zc_assert_success(zesSchedulerGetTimesliceModeProperties(sched, true, &slice));
    zes_sched_timeout_properties_t timeout = {.stype = ZES_STRUCTURE_TYPE_SCHED_TIMEOUT_PROPERTIES};
    zc_assert_success(zesSchedulerGetTimeoutModeProperties(sched, true, &timeout));
    ze_bool_t reload = true;
    timeout.watchdogTimeout = 20000; /* 20 ms */
    zc_assert_success(zesSchedulerSetTimeoutMode(sched, &timeout, &reload));
    assert_false(reload);
    zc_assert_success(zesSchedulerGetCurrentMode(sched, &mode));
    assert_int_equal(mode, ZES_SCHED_MODE_TIMEOUT);
    zes_sched_timeout_properties_t got = {.stype = ZES_STRUCTURE_TYPE_SCHED_TIMEOUT_PROPERTIES};
    zc_assert_success(zesSchedulerGetTimeoutModeProperties(sched, false, &got));
    assert_int_equal(got.watchdogTimeout, 20000);
    if (zc_driver_is_fake()) {
        uint64_t ms = zc_run_spin(x, 0);
        assert_true(ms >= 20 && ms < 10000);
        zc_assert_result(zeDeviceGetStatus(x->device), ZE_RESULT_ERROR_DEVICE_LOST);
        zc_assert_success(zesDeviceReset(device, true));
    }
    slice.interval = 2000;
    zc_assert_success(zesSchedulerSetTimesliceMode(sched, &slice, &reload));
    assert_false(reload);
    zes_sched_timeslice_properties_t slice_got = {.stype = ZES_STRUCTURE_TYPE_SCHED_TIMESLICE_PROPERTIES};
    zc_assert_success(zesSchedulerGetTimesliceModeProperties(sched, false, &slice_got));
    assert_int_equal(slice_got.interval, 2000);
    assert_int_equal(slice_got.yieldTimeout, slice.yieldTimeout);
    zc_assert_success(zesSchedulerSetExclusiveMode(sched, &reload));
    zc_assert_success(zesSchedulerGetCurrentMode(sched, &mode));
    assert_int_equal(mode, ZES_SCHED_MODE_EXCLUSIVE);
    zc_assert_success(zesSchedulerGetTimesliceModeProperties(sched, true, &slice));
    zc_assert_success(zesSchedulerSetTimesliceMode(sched, &slice, &reload));
    if (zc_driver_is_fake()) {
        timeout.watchdogTimeout = 100; /* below the 5 ms minimum (docs/sysman.md) */
        zc_assert_result(zesSchedulerSetTimeoutMode(sched, &timeout, &reload), ZE_RESULT_ERROR_INVALID_ARGUMENT);
        slice.interval = 0;
        zc_assert_result(zesSchedulerSetTimesliceMode(sched, &slice, &reload), ZE_RESULT_ERROR_INVALID_ARGUMENT);
        zc_assert_result(zesSchedulerSetComputeUnitDebugMode(sched, &reload), ZE_RESULT_ERROR_UNSUPPORTED_FEATURE);
    }
}

/* Child "modes" (ZEFAKE_HANG_TIMEOUT_MS=50 set by the parent): a kernel the host releases after 300 ms, run in the
 * default TIMESLICE mode (the 50 ms hang limit stops it) and in EXCLUSIVE mode (no limit: it completes). */
static int zc_modes_child(int argc, char **argv) {
    (void)argc;
    (void)argv;
    zc_exec *x = zc_child_exec_begin();
    if (x == NULL)
        return 2;
    zes_device_handle_t device = (zes_device_handle_t)x->device;
    zes_sched_handle_t sched = zc_scheduler(device);
    assert_non_null(sched);
    zc_run_spin(x, 300);
    printf("timeslice_lost=%d\n", zeDeviceGetStatus(x->device) == ZE_RESULT_ERROR_DEVICE_LOST);
    zc_assert_success(zesDeviceReset(device, true));
    ze_bool_t reload = true;
    zc_assert_success(zesSchedulerSetExclusiveMode(sched, &reload));
    uint64_t ms = zc_run_spin(x, 300);
    printf("exclusive_lost=%d\nexclusive_ms=%llu\n", zeDeviceGetStatus(x->device) == ZE_RESULT_ERROR_DEVICE_LOST,
           (unsigned long long)ms);
    fflush(stdout);
    return zc_child_exec_end(x);
}

/* docs/sysman.md, "Controls": TIMESLICE keeps the device's hang limit, EXCLUSIVE lifts it. */
static void sysman_exclusive_mode_lifts_hang_limit(void **state) {
    (void)state;
    zc_skip_unless_fake();
    static const char *const env[] = {"ZEFAKE_HANG_TIMEOUT_MS=50", NULL};
    zc_child child;
    assert_true(zc_run_child_mode("modes", NULL, env, 30000, &child));
    zc_assert_child_ok(&child, "the scheduler modes child");
    assert_int_equal(zc_child_number(&child, "timeslice_lost"), 1);
    assert_int_equal(zc_child_number(&child, "exclusive_lost"), 0);
    assert_true(zc_child_number(&child, "exclusive_ms") >= 300);
    zc_child_free(&child);
}

/* The power of a domain over `ms` of idle host time, W. */
static double zc_idle_watts(zes_pwr_handle_t power, unsigned ms) {
    uint64_t t0, t1;
    uint64_t e0 = zc_energy(power, &t0);
    zc_sleep_ms(ms);
    uint64_t e1 = zc_energy(power, &t1);
    return (double)(e1 - e0) / (double)(t1 - t0);
}

static void zc_set_standby(zes_standby_handle_t *domains, uint32_t count, zes_standby_promo_mode_t mode) {
    for (uint32_t i = 0; i < count; i++) {
        zc_assert_success(zesStandbySetMode(domains[i], mode));
        zes_standby_promo_mode_t got;
        zc_assert_success(zesStandbyGetMode(domains[i], &got));
        assert_int_equal(got, mode);
    }
}

/* docs/sysman.md: one standby domain per tile, DEFAULT at first; NEVER keeps a tile awake, 20 W above its idle
 * draw. */
static void sysman_standby_never_raises_idle_power(void **state) {
    zc_exec *x = *state;
    zes_device_handle_t device = (zes_device_handle_t)x->device;
    uint32_t count = 0;
    zes_standby_handle_t *domains =
        zc_handles(device, (zc_enum_fn)zesDeviceEnumStandbyDomains, "zesDeviceEnumStandbyDomains", &count);
    for (uint32_t i = 0; i < count; i++) {
        zes_standby_properties_t p = {.stype = ZES_STRUCTURE_TYPE_STANDBY_PROPERTIES};
        zc_assert_success(zesStandbyGetProperties(domains[i], &p));
        assert_int_equal(p.type, ZES_STANDBY_TYPE_GLOBAL);
    }
    if (zc_driver_is_fake()) {
        uint32_t subs = 0;
        zc_assert_success(zeDeviceGetSubDevices(x->device, &subs, NULL));
        assert_int_equal(count, subs > 0 ? subs : 1);
        zes_standby_promo_mode_t mode;
        zc_assert_success(zesStandbyGetMode(domains[0], &mode));
        assert_int_equal(mode, ZES_STANDBY_PROMO_MODE_DEFAULT);
        zes_pwr_handle_t power = NULL;
        uint32_t one = 1;
        zc_assert_success(zesDeviceEnumPowerDomains(device, &one, &power));
        double asleep = zc_idle_watts(power, 30);
        zc_set_standby(domains, count, ZES_STANDBY_PROMO_MODE_NEVER);
        double awake = zc_idle_watts(power, 30);
        zc_set_standby(domains, count, ZES_STANDBY_PROMO_MODE_DEFAULT);
        double again = zc_idle_watts(power, 30);
        assert_true(awake - asleep > 19.0 * count && awake - asleep < 21.0 * count);
        assert_true(again - asleep < 1.0 && asleep - again < 1.0);
    }
    free(domains);
}

/* docs/sysman.md: the compute performance factor is 50 by default; below 50 it lowers the busy clock between the
 * range's top (50) and its bottom (0), so kernels run longer; a factor outside 0..100 is refused. */
static void sysman_performance_factor_scales_clock(void **state) {
    zc_exec *x = *state;
    zes_device_handle_t device = (zes_device_handle_t)x->device;
    uint32_t count = 0;
    zes_perf_handle_t *domains = zc_handles(device, (zc_enum_fn)zesDeviceEnumPerformanceFactorDomains,
                                            "zesDeviceEnumPerformanceFactorDomains", &count);
    for (uint32_t i = 0; i < count; i++) {
        zes_perf_properties_t p = {.stype = ZES_STRUCTURE_TYPE_PERF_PROPERTIES};
        zc_assert_success(zesPerformanceFactorGetProperties(domains[i], &p));
        double factor = -1;
        zc_assert_success(zesPerformanceFactorGetConfig(domains[i], &factor));
        assert_true(factor >= 0.0 && factor <= 100.0);
    }
    if (zc_driver_is_fake()) {
        zc_skip_without_builtins();
        assert_int_equal(count, 1);
        double factor;
        zc_assert_success(zesPerformanceFactorGetConfig(domains[0], &factor));
        assert_true(factor == 50.0);
        zes_freq_range_t range;
        zc_assert_success(zesFrequencyGetRange(zc_freq_domain(x->device), &range));
        uint64_t full = zc_run_heating_once(x);
        zc_assert_success(zesPerformanceFactorSetConfig(domains[0], 25.0));
        uint64_t slow = zc_run_heating_once(x);
        zc_assert_success(zesPerformanceFactorSetConfig(domains[0], 50.0));
        double expected = range.max / (range.min + (range.max - range.min) * 25.0 / 50.0);
        double ratio = (double)(slow - 2100) / (double)(full - 2100);
        assert_true(ratio > expected * 0.99 && ratio < expected * 1.01);
        zc_assert_result(zesPerformanceFactorSetConfig(domains[0], 100.5), ZE_RESULT_ERROR_INVALID_ARGUMENT);
        zc_assert_result(zesPerformanceFactorSetConfig(domains[0], -1.0), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    }
    free(domains);
}

#define ZC_WORKER_BYTES (64u << 20)

static bool zc_file_exists(const char *dir, const char *name) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return access(path, F_OK) == 0;
}

static void zc_touch(const char *dir, const char *name) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fclose(f);
}

/* Child "work <dir>": a plain application (no ZES_ENABLE_SYSMAN) on the same card holds device memory and runs a
 * kernel, then says so (<dir>/ready) and stays until the monitor is done (<dir>/done, at most 20 s). */
static int zc_work_child(int argc, char **argv) {
    if (argc < 1)
        return 2;
    zc_exec *x = zc_child_exec_begin();
    if (x == NULL)
        return 2;
    void *held = zc_device_alloc(x, ZC_WORKER_BYTES);
    zc_run_heating_once(x);
    zc_touch(argv[0], "ready");
    for (uint64_t start = zc_now_ms(); !zc_file_exists(argv[0], "done") && zc_now_ms() - start < 20000;)
        zc_sleep_ms(5);
    zc_free(x, held);
    return zc_child_exec_end(x);
}

typedef struct zc_worker {
    const char *dir;
    zc_child child;
    bool started;
} zc_worker;

static void *zc_run_worker(void *arg) {
    zc_worker *w = arg;
    const char *args[] = {w->dir, NULL};
    static const char *const env[] = {"ZES_ENABLE_SYSMAN", NULL};
    w->started = zc_run_child_mode("work", args, env, 30000, &w->child);
    return NULL;
}

/* The entry of another process in the device's process list, false when there is none. */
static bool zc_other_process(zes_device_handle_t device, zes_process_state_t *out) {
    uint32_t count = 0;
    zc_assert_success(zesDeviceProcessesGetState(device, &count, NULL));
    zes_process_state_t list[64];
    count = count > 64 ? 64 : count;
    zc_assert_success(zesDeviceProcessesGetState(device, &count, list));
    for (uint32_t i = 0; i < count; i++) {
        if (list[i].processId != (uint32_t)getpid()) {
            *out = list[i];
            return true;
        }
    }
    return false;
}

/* docs/sysman.md, "Other processes": a monitor sees another process on the card (fork and exec of this executable):
 * its process entry with its memory and engines, its device memory in the module's free bytes, and its kernel in the
 * compute group's activity; once it left, its entry is gone. */
static void sysman_monitor_sees_other_process(void **state) {
    zc_exec *x = *state;
    zc_skip_unless_fake();
    zc_skip_without_builtins();
    zes_device_handle_t device = (zes_device_handle_t)x->device;
    zes_engine_handle_t group = zc_engine_of(device, ZES_ENGINE_GROUP_COMPUTE_ALL);
    assert_non_null(group);
    zes_mem_handle_t memory = zc_memory_module(device);
    zes_engine_stats_t a, b;
    zes_mem_state_t before = {.stype = ZES_STRUCTURE_TYPE_MEM_STATE}, during = before;
    zc_assert_success(zesEngineGetActivity(group, &a));
    zc_assert_success(zesMemoryGetState(memory, &before));
    zes_process_state_t other;
    assert_false(zc_other_process(device, &other));
    char dir[] = "/tmp/zc-sysman-XXXXXX";
    assert_non_null(mkdtemp(dir));
    zc_worker w = {.dir = dir};
    pthread_t thread;
    assert_int_equal(pthread_create(&thread, NULL, zc_run_worker, &w), 0);
    for (uint64_t start = zc_now_ms(); !zc_file_exists(dir, "ready") && zc_now_ms() - start < 20000;)
        zc_sleep_ms(5);
    bool ready = zc_file_exists(dir, "ready");
    bool listed = ready && zc_other_process(device, &other);
    zc_assert_success(zesEngineGetActivity(group, &b));
    zc_assert_success(zesMemoryGetState(memory, &during));
    zc_touch(dir, "done");
    pthread_join(thread, NULL);
    assert_true(w.started);
    zc_assert_child_ok(&w.child, "the worker");
    zc_child_free(&w.child);
    char path[600];
    snprintf(path, sizeof path, "%s/ready", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/done", dir);
    unlink(path);
    rmdir(dir);
    assert_true(ready && listed);
    assert_true(other.memSize >= ZC_WORKER_BYTES);
    assert_true((other.engines & ZES_ENGINE_TYPE_FLAG_COMPUTE) != 0);
    assert_true(during.free < before.free);
    assert_true(b.activeTime > a.activeTime);
    assert_true(b.activeTime - a.activeTime <= b.timestamp - a.timestamp);
    assert_false(zc_other_process(device, &other)); /* it left */
}

/* A card with its own sysman model (docs/scenarios.md, `sysman`): one tile, 100 W idle and 50 W of uncore, 400 W of
 * compute, a 700 W limit, clocks from 500 MHz every 100 MHz up to its 1000 MHz core clock, TjMax 90 °C. */
static const char zc_model_yaml[] =
    "schema: 1\n"
    "name: sysman-model\n"
    "devices:\n"
    "  - name: Model GPU\n"
    "    type: gpu\n"
    "    device_id: 0x1234\n"
    "    core_clock_rate_mhz: 1000\n"
    "    sysman: {tile_idle_w: 100, card_uncore_w: 50, tile_compute_w: 400, power_limit_w: 700,\n"
    "             min_frequency_mhz: 500, frequency_step_mhz: 100, ambient_c: 20,\n"
    "             millikelvin_per_w: 200, max_temperature_c: 90}\n";

static int zc_model_child(int argc, char **argv) {
    (void)argc;
    (void)argv;
    zc_exec *x = zc_child_exec_begin();
    if (x == NULL)
        return 2;
    zes_power_properties_t p;
    zes_pwr_handle_t card = zc_card_domain(x->device, &p);
    assert_non_null(card);
    printf("min_limit=%d\nmax_limit=%d\n", p.minLimit, p.maxLimit);
    uint32_t clocks = 0;
    zc_assert_success(zesFrequencyGetAvailableClocks(zc_freq_domain(x->device), &clocks, NULL));
    printf("clocks=%u\n", clocks);
    zes_temp_properties_t t;
    zes_temp_handle_t temp = zc_temp_sensor((zes_device_handle_t)x->device, &t);
    double celsius = 0;
    zc_assert_success(zesTemperatureGetState(temp, &celsius));
    printf("tjmax=%u\nidle_c=%u\n", (unsigned)t.maxTemperature, (unsigned)(celsius + 0.5));
    fflush(stdout);
    return zc_child_exec_end(x);
}

/* The scenario's sysman keys set the model: the limit's range (idle draw 150 W; the 700 W limit, above the 550 W full
 * draw), the available clocks (500..1000 MHz by 100: 6), TjMax, and the idle temperature (20 °C + 0.2 K/W x 150 W). */
static void sysman_scenario_sets_model(void **state) {
    (void)state;
    zc_skip_unless_fake();
    zc_child child;
    assert_true(zc_run_child_in_scenario("model", zc_model_yaml, 30000, &child));
    zc_assert_child_ok(&child, "the child on the model card");
    assert_int_equal(zc_child_number(&child, "min_limit"), 150000);
    assert_int_equal(zc_child_number(&child, "max_limit"), 700000);
    assert_int_equal(zc_child_number(&child, "clocks"), 6);
    assert_int_equal(zc_child_number(&child, "tjmax"), 90);
    assert_int_equal(zc_child_number(&child, "idle_c"), 50);
    zc_child_free(&child);
}

/* NULL handles, NULL pointers and handles of the wrong kind are refused by every threshold and control function. */
static void sysman_control_bad_inputs(void **state) {
    zc_exec *x = *state;
    zes_device_handle_t device = (zes_device_handle_t)x->device;
    const ze_result_t null_ptr = ZE_RESULT_ERROR_INVALID_NULL_POINTER,
                      null_handle = ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    zes_pwr_handle_t power = NULL;
    zes_temp_handle_t temp = NULL;
    uint32_t one = 1;
    zc_assert_success(zesDeviceEnumPowerDomains(device, &one, &power));
    zc_assert_success(zesDeviceEnumTemperatureSensors(device, &one, &temp));
    zes_ras_handle_t ras = zc_ras_set(device, ZES_RAS_ERROR_TYPE_UNCORRECTABLE);
    zes_energy_threshold_t threshold;
    zes_temp_config_t temp_config = {.stype = ZES_STRUCTURE_TYPE_TEMP_CONFIG};
    zes_ras_config_t ras_config = {.stype = ZES_STRUCTURE_TYPE_RAS_CONFIG};
    zc_assert_result(zesPowerGetEnergyThreshold(power, NULL), null_ptr);
    zc_assert_result(zesPowerGetEnergyThreshold(NULL, &threshold), null_handle);
    zc_assert_result(zesPowerGetEnergyThreshold((zes_pwr_handle_t)temp, &threshold), null_handle);
    zc_assert_result(zesPowerSetEnergyThreshold(NULL, 1.0), null_handle);
    zc_assert_result(zesPowerSetEnergyThreshold((zes_pwr_handle_t)ras, 1.0), null_handle);
    zc_assert_result(zesTemperatureGetConfig(temp, NULL), null_ptr);
    zc_assert_result(zesTemperatureGetConfig(NULL, &temp_config), null_handle);
    zc_assert_result(zesTemperatureGetConfig((zes_temp_handle_t)power, &temp_config), null_handle);
    zc_assert_result(zesTemperatureSetConfig(temp, NULL), null_ptr);
    zc_assert_result(zesTemperatureSetConfig((zes_temp_handle_t)ras, &temp_config), null_handle);
    zc_assert_result(zesRasGetConfig(ras, NULL), null_ptr);
    zc_assert_result(zesRasGetConfig((zes_ras_handle_t)power, &ras_config), null_handle);
    zc_assert_result(zesRasSetConfig(ras, NULL), null_ptr);
    zc_assert_result(zesRasSetConfig(NULL, &ras_config), null_handle);
    zes_sched_handle_t sched = zc_scheduler(device);
    zes_standby_handle_t standby = NULL;
    zes_perf_handle_t perf = NULL;
    one = 1;
    zc_assert_success(zesDeviceEnumStandbyDomains(device, &one, &standby));
    one = 1;
    zc_assert_success(zesDeviceEnumPerformanceFactorDomains(device, &one, &perf));
    zc_assert_result(zesDeviceEnumSchedulers(device, NULL, NULL), null_ptr);
    zc_assert_result(zesDeviceEnumStandbyDomains(NULL, &one, NULL), null_handle);
    zc_assert_result(zesDeviceEnumPerformanceFactorDomains(device, NULL, NULL), null_ptr);
    ze_bool_t reload;
    zes_sched_mode_t mode;
    zes_sched_timeout_properties_t timeout = {.stype = ZES_STRUCTURE_TYPE_SCHED_TIMEOUT_PROPERTIES};
    zes_sched_timeslice_properties_t slice = {.stype = ZES_STRUCTURE_TYPE_SCHED_TIMESLICE_PROPERTIES};
    if (sched != NULL) {
        zes_sched_properties_t sp = {.stype = ZES_STRUCTURE_TYPE_SCHED_PROPERTIES};
        zc_assert_result(zesSchedulerGetProperties(sched, NULL), null_ptr);
        zc_assert_result(zesSchedulerGetProperties((zes_sched_handle_t)power, &sp), null_handle);
        zc_assert_result(zesSchedulerGetCurrentMode(sched, NULL), null_ptr);
        zc_assert_result(zesSchedulerGetCurrentMode(NULL, &mode), null_handle);
        zc_assert_result(zesSchedulerGetTimeoutModeProperties(sched, false, NULL), null_ptr);
        zc_assert_result(zesSchedulerGetTimesliceModeProperties((zes_sched_handle_t)temp, false, &slice), null_handle);
        zc_assert_result(zesSchedulerSetTimeoutMode(sched, &timeout, NULL), null_ptr);
        zc_assert_result(zesSchedulerSetTimeoutMode(sched, NULL, &reload), null_ptr);
        zc_assert_result(zesSchedulerSetTimesliceMode(sched, NULL, &reload), null_ptr);
        zc_assert_result(zesSchedulerSetTimesliceMode(NULL, &slice, &reload), null_handle);
        zc_assert_result(zesSchedulerSetExclusiveMode(sched, NULL), null_ptr);
        zc_assert_result(zesSchedulerSetExclusiveMode((zes_sched_handle_t)ras, &reload), null_handle);
        zc_assert_result(zesSchedulerSetComputeUnitDebugMode(sched, NULL), null_ptr);
    }
    zes_standby_properties_t sbp = {.stype = ZES_STRUCTURE_TYPE_STANDBY_PROPERTIES};
    zes_standby_promo_mode_t promo;
    zc_assert_result(zesStandbyGetProperties(standby, NULL), null_ptr);
    zc_assert_result(zesStandbyGetProperties((zes_standby_handle_t)power, &sbp), null_handle);
    zc_assert_result(zesStandbyGetMode(standby, NULL), null_ptr);
    zc_assert_result(zesStandbyGetMode(NULL, &promo), null_handle);
    zc_assert_result(zesStandbySetMode(standby, (zes_standby_promo_mode_t)7), ZE_RESULT_ERROR_INVALID_ENUMERATION);
    zc_assert_result(zesStandbySetMode((zes_standby_handle_t)temp, ZES_STANDBY_PROMO_MODE_DEFAULT), null_handle);
    zes_perf_properties_t pp = {.stype = ZES_STRUCTURE_TYPE_PERF_PROPERTIES};
    double factor;
    zc_assert_result(zesPerformanceFactorGetProperties(perf, NULL), null_ptr);
    zc_assert_result(zesPerformanceFactorGetProperties((zes_perf_handle_t)ras, &pp), null_handle);
    zc_assert_result(zesPerformanceFactorGetConfig(perf, NULL), null_ptr);
    zc_assert_result(zesPerformanceFactorGetConfig(NULL, &factor), null_handle);
    zc_assert_result(zesPerformanceFactorSetConfig((zes_perf_handle_t)standby, 50.0), null_handle);
    zes_device_handle_t none = NULL;
    uint32_t with_events = 0;
    zes_event_type_flags_t events = 0;
    zc_assert_result(zesDriverEventListenEx(zc_sys()->driver, 0, 1, &device, &with_events, NULL), null_ptr);
    zc_assert_result(zesDriverEventListenEx(zc_sys()->driver, 0, 1, &none, &with_events, &events),
                     zc_driver_is_fake() ? ZE_RESULT_ERROR_INVALID_ARGUMENT : null_handle);
    zc_assert_result(zesDriverEventListenEx(NULL, 0, 1, &device, &with_events, &events), null_handle);
}

int main(int argc, char **argv) {
    zc_own_instance();
    static const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(sysman_low_limit_lengthens_kernels, zc_setup_exec, zc_teardown_exec),
        cmocka_unit_test_setup_teardown(sysman_frequency_range_sets_kernel_clock, zc_setup_exec, zc_teardown_exec),
        cmocka_unit_test_setup_teardown(sysman_energy_threshold_event, zc_setup_exec, zc_teardown_exec),
        cmocka_unit_test_setup_teardown(sysman_temperature_threshold_events, zc_setup_exec, zc_teardown_exec),
        cmocka_unit_test_setup_teardown(sysman_ras_threshold_wakes_listener, zc_setup_exec, zc_teardown_exec),
        cmocka_unit_test_setup_teardown(sysman_scheduler_watchdog_stops_kernel, zc_setup_exec, zc_teardown_exec),
        cmocka_unit_test(sysman_exclusive_mode_lifts_hang_limit),
        cmocka_unit_test_setup_teardown(sysman_standby_never_raises_idle_power, zc_setup_exec, zc_teardown_exec),
        cmocka_unit_test_setup_teardown(sysman_performance_factor_scales_clock, zc_setup_exec, zc_teardown_exec),
        cmocka_unit_test_setup_teardown(sysman_monitor_sees_other_process, zc_setup_exec, zc_teardown_exec),
        cmocka_unit_test_setup_teardown(sysman_control_bad_inputs, zc_setup_exec, zc_teardown_exec),
        cmocka_unit_test(sysman_scenario_sets_model),
    };
    static const zc_child_mode modes[] = {
        {"work", zc_work_child}, {"model", zc_model_child}, {"modes", zc_modes_child}};
    static const zc_suite suite = {ZC_EXECUTABLE,      tests, ZC_COUNT(tests), zc_setup_system,
                                   zc_teardown_system, modes, ZC_COUNT(modes)};
    return zc_main(argc, argv, &suite);
}
