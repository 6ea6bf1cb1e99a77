/* Conformance: sysman (zes*) in the legacy model, ZES_ENABLE_SYSMAN=1 set before zeInit (ctest sets it) and core
 * device handles used as sysman device handles (zes_api.h). Every enumeration answers; engine activity rises with
 * the work executed and never faster than its timestamp; energy is monotonic and rises faster under load; memory
 * free drops by what is allocated; frequency state lies in its range; the process list has the caller; bad inputs
 * are refused. The fake's exact model (docs/sysman.md) is checked where the test says so. */
#include "zc_exec.h"
#include "zc_kernel_files.h"
#include "zc_metric_work.h"
#include "zc_sysman.h"

#include <unistd.h>

/* docs/sysman.md: the fake's firmware belongs to a device reported as a card, not to a tile reported as a
 * sub-device (ZE_DEVICE_PROPERTY_FLAG_SUBDEVICE); the default and two-cards scenarios have Xe Link ports on every
 * tile, the others none (docs/fabric.md); the Data Center GPU Max cards of the shipped scenarios have diagnostics
 * suites, the integrated GPU none. */
static bool zc_fake_has(const zc_enum *e, ze_device_handle_t device) {
    bool tile = (zc_device_props(device).flags & ZE_DEVICE_PROPERTY_FLAG_SUBDEVICE) != 0;
    if (e->call == (zc_enum_fn)zesDeviceEnumDiagnosticTestSuites) {
        zefake_info_t info = {.size = sizeof info};
        zc_fake_info(&info);
        return !tile && strcmp(info.scenario_name, "integrated") != 0;
    }
    if (e->call == (zc_enum_fn)zesDeviceEnumFabricPorts) {
        zefake_info_t info = {.size = sizeof info};
        zc_fake_info(&info);
        return strcmp(info.scenario_name, "default") == 0 || strcmp(info.scenario_name, "two-cards") == 0;
    }
    return e->present && !(tile && e->call == (zc_enum_fn)zesDeviceEnumFirmwares);
}

#define ZC_ENUM(fn, present)                                                                                           \
    { #fn, (zc_enum_fn)fn, present }

static const zc_enum zc_enums[] = {
    ZC_ENUM(zesDeviceEnumDiagnosticTestSuites, false),
    ZC_ENUM(zesDeviceEnumEngineGroups, true),
    ZC_ENUM(zesDeviceEnumFabricPorts, false),
    ZC_ENUM(zesDeviceEnumFans, false),
    ZC_ENUM(zesDeviceEnumFirmwares, true),
    ZC_ENUM(zesDeviceEnumFrequencyDomains, true),
    ZC_ENUM(zesDeviceEnumLeds, false),
    ZC_ENUM(zesDeviceEnumMemoryModules, true),
    ZC_ENUM(zesDeviceEnumPerformanceFactorDomains, true),
    ZC_ENUM(zesDeviceEnumPowerDomains, true),
    ZC_ENUM(zesDeviceEnumPsus, false),
    ZC_ENUM(zesDeviceEnumRasErrorSets, true),
    ZC_ENUM(zesDeviceEnumSchedulers, true),
    ZC_ENUM(zesDeviceEnumStandbyDomains, true),
    ZC_ENUM(zesDeviceEnumTemperatureSensors, true),
};

static void sysman_enumerations_answer(void **state) {
    (void)state;
    const zc_system *sys = zc_sys();
    for (uint32_t d = 0; d < sys->num_all; d++) {
        for (size_t i = 0; i < ZC_COUNT(zc_enums); i++) {
            zc_enum_ctx ctx = {&zc_enums[i], (zes_device_handle_t)sys->all[d]};
            zc_count_query q = {zc_enums[i].name, zc_enum_call, &ctx, sizeof(void *), NULL};
            uint32_t count = zc_count(&q);
            if (count > 0)
                zc_check_count_semantics(&q);
            if (zc_driver_is_fake() && (count > 0) != zc_fake_has(&zc_enums[i], sys->all[d]))
                zc_fail("%s answers %u on device %u", zc_enums[i].name, count, d);
        }
    }
}

static void sysman_device_properties_follow_core(void **state) {
    (void)state;
    const zc_system *sys = zc_sys();
    for (uint32_t d = 0; d < sys->num_all; d++) {
        ze_device_properties_t core = zc_device_props(sys->all[d]);
        zes_device_properties_t p = {.stype = ZES_STRUCTURE_TYPE_DEVICE_PROPERTIES};
        zc_assert_success(zesDeviceGetProperties((zes_device_handle_t)sys->all[d], &p));
        assert_int_equal(p.core.deviceId, core.deviceId);
        assert_memory_equal(&p.core.uuid, &core.uuid, sizeof core.uuid);
        assert_string_equal(p.core.name, core.name);
        if (p.core.stype == ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2) /* both in Hz */
            assert_int_equal(p.core.timerResolution, core.timerResolution);
        uint32_t subs = 0;
        zc_assert_success(zeDeviceGetSubDevices(sys->all[d], &subs, NULL));
        assert_int_equal(p.numSubdevices, subs);
        assert_true(p.vendorName[0] != '\0' && p.modelName[0] != '\0');
        zes_device_state_t s = {.stype = ZES_STRUCTURE_TYPE_DEVICE_STATE};
        zc_assert_success(zesDeviceGetState((zes_device_handle_t)sys->all[d], &s));
        assert_int_equal(s.reset, 0); /* nothing faulted here */
    }
}

static void sysman_pci(void **state) {
    (void)state;
    zes_device_handle_t device = (zes_device_handle_t)zc_sys()->roots[0];
    zes_pci_properties_t p = {.stype = ZES_STRUCTURE_TYPE_PCI_PROPERTIES};
    zc_assert_success(zesDevicePciGetProperties(device, &p));
    assert_true(p.maxSpeed.gen == -1 || p.maxSpeed.gen >= 1);
    zes_pci_state_t s = {.stype = ZES_STRUCTURE_TYPE_PCI_STATE};
    zc_assert_success(zesDevicePciGetState(device, &s));
    assert_true(s.speed.width <= p.maxSpeed.width);
    uint32_t bars = 0;
    zc_assert_success(zesDevicePciGetBars(device, &bars, NULL));
    assert_true(bars >= 1);
    zes_pci_bar_properties_t bar[8];
    for (uint32_t i = 0; i < 8; i++)
        bar[i] = (zes_pci_bar_properties_t){.stype = ZES_STRUCTURE_TYPE_PCI_BAR_PROPERTIES};
    bars = bars > 8 ? 8 : bars;
    zc_assert_success(zesDevicePciGetBars(device, &bars, bar));
    for (uint32_t i = 0; i < bars; i++)
        assert_true(bar[i].size > 0);
    zes_pci_stats_t a, b;
    zc_assert_success(zesDevicePciGetStats(device, &a));
    zc_assert_success(zesDevicePciGetStats(device, &b));
    assert_true(b.timestamp >= a.timestamp);
}

/* Runs one long launch (docs/builtin-kernels.md) on the compute engine 0 of the fixture's device. */
static void zc_run_long_work(zc_exec *x) {
    ze_module_handle_t module = zc_module_create(x->context, x->device, "gemm");
    void *buffer = zc_device_alloc(x, 64);
    ze_kernel_handle_t kernel = zc_long_gemm_kernel(module, buffer);
    ze_command_list_handle_t list = zc_list(x, x->compute_ordinal);
    zc_append_long_launches(list, kernel, 1);
    ze_command_queue_handle_t queue = zc_queue(x, x->compute_ordinal, 0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    zc_run(queue, list);
    zc_assert_success(zeCommandQueueDestroy(queue));
    zc_assert_success(zeCommandListDestroy(list));
    zc_assert_success(zeKernelDestroy(kernel));
    zc_assert_success(zeModuleDestroy(module));
    zc_free(x, buffer);
}

/* Every engine handle's Δactive stays within its Δtimestamp; a compute engine and the compute group rise. */
static void sysman_engine_activity_follows_work(void **state) {
    zc_exec *x = *state;
    zc_skip_without_builtins();
    uint32_t count = 0;
    zes_engine_handle_t *engines = zc_handles((zes_device_handle_t)x->device, (zc_enum_fn)zesDeviceEnumEngineGroups,
                                              "zesDeviceEnumEngineGroups", &count);
    zes_engine_stats_t before[64], after[64];
    count = count > 64 ? 64 : count;
    for (uint32_t i = 0; i < count; i++)
        zc_assert_success(zesEngineGetActivity(engines[i], &before[i]));
    zc_run_long_work(x);
    bool single_rose = false, group_rose = false;
    for (uint32_t i = 0; i < count; i++) {
        zc_assert_success(zesEngineGetActivity(engines[i], &after[i]));
        assert_true(after[i].activeTime >= before[i].activeTime && after[i].timestamp >= before[i].timestamp);
        uint64_t active = after[i].activeTime - before[i].activeTime;
        assert_true(active <= after[i].timestamp - before[i].timestamp);
        zes_engine_properties_t p = {.stype = ZES_STRUCTURE_TYPE_ENGINE_PROPERTIES};
        zc_assert_success(zesEngineGetProperties(engines[i], &p));
        single_rose |= p.type == ZES_ENGINE_GROUP_COMPUTE_SINGLE && active > 0;
        group_rose |= p.type == ZES_ENGINE_GROUP_COMPUTE_ALL && active > 0;
        /* The fake: the engine that ran the launch was busy for all of it (docs/sysman.md). */
        if (zc_driver_is_fake() && i == 0)
            assert_true(active >= zc_long_launch_ns(x->device) / 1000u);
    }
    assert_true(single_rose && group_rose);
    free(engines);
}

static void sysman_energy_rises_faster_under_load(void **state) {
    zc_exec *x = *state;
    zc_skip_without_builtins();
    /* A tile reported as a sub-device (COMBINED mode) has no card domain (zes_api.h): its own domain then. */
    zes_pwr_handle_t card = NULL;
    ze_result_t result = zesDeviceGetCardPowerDomain((zes_device_handle_t)x->device, &card);
    if (result == ZE_RESULT_ERROR_UNSUPPORTED_FEATURE) {
        uint32_t one = 1;
        zc_assert_success(zesDeviceEnumPowerDomains((zes_device_handle_t)x->device, &one, &card));
    } else {
        zc_assert_success(result);
    }
    uint64_t t0, t1, t2;
    uint64_t e0 = zc_energy(card, &t0);
    zc_sleep_ms(20);
    uint64_t e1 = zc_energy(card, &t1);
    zc_run_long_work(x);
    uint64_t e2 = zc_energy(card, &t2);
    assert_true(e1 >= e0 && e2 >= e1 && t1 > t0 && t2 >= t1);
    double idle = (double)(e1 - e0) / (double)(t1 - t0);
    double loaded = (double)(e2 - e1) / (double)(t2 > t1 ? t2 - t1 : 1);
    assert_true(loaded > idle);
    /* A card's energy is at least the sum of its tiles'. */
    uint32_t count = 0;
    zes_pwr_handle_t *domains = zc_handles((zes_device_handle_t)x->device, (zc_enum_fn)zesDeviceEnumPowerDomains,
                                           "zesDeviceEnumPowerDomains", &count);
    uint64_t tiles = 0, stamp;
    for (uint32_t i = 0; i < count; i++) {
        zes_power_properties_t p = {.stype = ZES_STRUCTURE_TYPE_POWER_PROPERTIES};
        zc_assert_success(zesPowerGetProperties(domains[i], &p));
        if (p.onSubdevice)
            tiles += zc_energy(domains[i], &stamp);
    }
    assert_true(zc_energy(card, &stamp) >= tiles);
    zes_power_properties_t props = {.stype = ZES_STRUCTURE_TYPE_POWER_PROPERTIES};
    zc_assert_success(zesPowerGetProperties(card, &props));
    uint32_t limits = 0;
    zc_assert_success(zesPowerGetLimitsExt(card, &limits, NULL));
    if (zc_driver_is_fake() && !props.onSubdevice) { /* docs/sysman.md: the card's sustained limit, locked */
        zes_power_limit_ext_desc_t limit = {.stype = ZES_STRUCTURE_TYPE_POWER_LIMIT_EXT_DESC};
        assert_int_equal(limits, 1);
        zc_assert_success(zesPowerGetLimitsExt(card, &limits, &limit));
        assert_int_equal(limit.level, ZES_POWER_LEVEL_SUSTAINED);
        assert_int_equal(limit.limit, props.defaultLimit);
    }
    uint32_t subs = 0;
    zc_assert_success(zeDeviceGetSubDevices(x->device, &subs, NULL));
    if (zc_driver_is_fake()) /* docs/sysman.md: a card's domain, then one per tile */
        assert_int_equal(count, 1 + subs);
    free(domains);
}

/* A settable card limit reads back through zesPowerGetLimits and zesPowerGetLimitsExt, whichever set it. */
static void sysman_power_limits_round_trip(void **state) {
    zc_exec *x = *state;
    zes_power_properties_t p;
    zes_pwr_handle_t card = zc_card_domain(x->device, &p);
    if (card == NULL || !p.canControl)
        skip();
    int32_t mid = p.minLimit + (p.maxLimit - p.minLimit) / 2;
    zc_set_sustained(card, mid, 500);
    zes_power_sustained_limit_t got;
    zc_assert_success(zesPowerGetLimits(card, &got, NULL, NULL));
    assert_true(got.enabled && got.power == mid && got.interval == 500);
    uint32_t count = 1;
    zes_power_limit_ext_desc_t ext = {.stype = ZES_STRUCTURE_TYPE_POWER_LIMIT_EXT_DESC};
    zc_assert_success(zesPowerGetLimitsExt(card, &count, &ext));
    assert_int_equal(ext.limit, mid);
    assert_int_equal(ext.interval, 500);
    ext.limit = p.minLimit;
    zc_assert_success(zesPowerSetLimitsExt(card, &count, &ext));
    zc_assert_success(zesPowerGetLimits(card, &got, NULL, NULL));
    assert_int_equal(got.power, p.minLimit);
    zc_set_sustained(card, p.defaultLimit, 1000);
}

/* The frequency state while the engine runs the list: read until it shows a throttle reason or the queue is done
 * (the worker may not have started the kernel when the submission returns, and a loaded host may read only after the
 * end), the list submitted again, up to 5 times, while no read saw the device busy. */
static zes_freq_state_t zc_freq_state_while_busy(zes_freq_handle_t freq, ze_command_queue_handle_t queue,
                                                 ze_command_list_handle_t list) {
    zes_freq_state_t s = {.stype = ZES_STRUCTURE_TYPE_FREQ_STATE};
    for (int attempt = 0; attempt < 5 && s.throttleReasons == 0; attempt++) {
        zc_assert_success(zeCommandQueueExecuteCommandLists(queue, 1, &list, NULL));
        do {
            zc_assert_success(zesFrequencyGetState(freq, &s));
        } while (s.throttleReasons == 0 && zeCommandQueueSynchronize(queue, 0) == ZE_RESULT_NOT_READY);
        zc_assert_success(zeCommandQueueSynchronize(queue, UINT64_MAX));
    }
    return s;
}

/* docs/sysman.md: under a limit at the card's idle draw, compute work runs throttled: the clock drops below the top of
 * its range with the average-power-cap reason, throttle time grows, and the card draws no more than the limit. */
static void sysman_power_limit_throttles(void **state) {
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
    zes_freq_throttle_time_t before, after;
    zc_assert_success(zesFrequencyGetThrottleTime(freq, &before));
    zc_set_sustained(card, p.minLimit, 1000);
    ze_module_handle_t module = zc_module_create(x->context, x->device, "gemm");
    void *buffer = zc_device_alloc(x, 64);
    ze_kernel_handle_t kernel = zc_long_gemm_kernel(module, buffer);
    ze_command_list_handle_t list = zc_list(x, x->compute_ordinal);
    zc_append_long_launches(list, kernel, 1);
    zc_assert_success(zeCommandListClose(list));
    ze_command_queue_handle_t queue = zc_queue(x, x->compute_ordinal, 0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    uint64_t t0, t1;
    uint64_t e0 = zc_energy(card, &t0);
    zes_freq_state_t s = zc_freq_state_while_busy(freq, queue, list);
    uint64_t e1 = zc_energy(card, &t1);
    zc_assert_success(zesFrequencyGetThrottleTime(freq, &after));
    zc_set_sustained(card, p.defaultLimit, 1000);
    assert_true(s.actual < range.max);
    assert_true((s.throttleReasons & ZES_FREQ_THROTTLE_REASON_FLAG_AVE_PWR_CAP) != 0);
    assert_true(after.throttleTime - before.throttleTime >= zc_long_launch_ns(x->device) / 1000u);
    /* µJ over µs is W; the limit is in mW (5 % for the memory traffic's share). */
    assert_true((double)(e1 - e0) / (double)(t1 > t0 ? t1 - t0 : 1) <= p.minLimit / 1000.0 * 1.05);
    zc_assert_success(zeCommandQueueDestroy(queue));
    zc_assert_success(zeCommandListDestroy(list));
    zc_assert_success(zeKernelDestroy(kernel));
    zc_assert_success(zeModuleDestroy(module));
    zc_free(x, buffer);
}

static void sysman_memory_free_drops_by_allocation(void **state) {
    zc_exec *x = *state;
    zes_mem_handle_t module = zc_memory_module((zes_device_handle_t)x->device);
    zes_mem_properties_t p = {.stype = ZES_STRUCTURE_TYPE_MEM_PROPERTIES};
    zc_assert_success(zesMemoryGetProperties(module, &p));
    zes_mem_state_t before = {.stype = ZES_STRUCTURE_TYPE_MEM_STATE}, during = before, after = before;
    zc_assert_success(zesMemoryGetState(module, &before));
    assert_true(before.free <= before.size);
    const size_t size = 64u << 20;
    void *ptr = zc_device_alloc(x, size);
    zc_assert_success(zesMemoryGetState(module, &during));
    zc_free(x, ptr);
    zc_assert_success(zesMemoryGetState(module, &after));
    assert_true(before.free - during.free >= size);
    if (zc_driver_is_fake())
        assert_int_equal(before.free - during.free, size);
    assert_int_equal(after.free, before.free);
    zes_mem_bandwidth_t bw;
    zc_assert_success(zesMemoryGetBandwidth(module, &bw));
    assert_true(bw.maxBandwidth > 0);
}

static void sysman_frequency_in_range(void **state) {
    zc_exec *x = *state;
    uint32_t count = 0;
    zes_freq_handle_t *domains = zc_handles((zes_device_handle_t)x->device, (zc_enum_fn)zesDeviceEnumFrequencyDomains,
                                            "zesDeviceEnumFrequencyDomains", &count);
    for (uint32_t i = 0; i < count; i++) {
        zes_freq_properties_t p = {.stype = ZES_STRUCTURE_TYPE_FREQ_PROPERTIES};
        zc_assert_success(zesFrequencyGetProperties(domains[i], &p));
        assert_true(p.min <= p.max);
        uint32_t clocks = 0;
        zc_assert_success(zesFrequencyGetAvailableClocks(domains[i], &clocks, NULL));
        double list[256];
        clocks = clocks > 256 ? 256 : clocks;
        zc_assert_success(zesFrequencyGetAvailableClocks(domains[i], &clocks, list));
        for (uint32_t c = 0; c < clocks; c++)
            assert_true(list[c] >= p.min && list[c] <= p.max);
        zes_freq_range_t range;
        zc_assert_success(zesFrequencyGetRange(domains[i], &range));
        zes_freq_state_t s = {.stype = ZES_STRUCTURE_TYPE_FREQ_STATE};
        zc_assert_success(zesFrequencyGetState(domains[i], &s));
        assert_true(s.actual >= range.min && s.actual <= range.max);
        if (!p.canControl)
            continue;
        zes_freq_range_t low = {p.min, p.min};
        zc_assert_success(zesFrequencySetRange(domains[i], &low));
        zc_assert_success(zesFrequencyGetState(domains[i], &s));
        assert_true(s.actual == p.min);
        zes_freq_range_t inverted = {p.max, p.min};
        if (p.max > p.min)
            zc_assert_error(zesFrequencySetRange(domains[i], &inverted));
        zc_assert_success(zesFrequencySetRange(domains[i], &range));
    }
    free(domains);
}

/* docs/sysman.md: the fake's GPU domain drops to the bottom of its range when the device is idle. */
static void sysman_frequency_idle_is_min(void **state) {
    zc_exec *x = *state;
    zc_skip_unless_fake();
    zes_freq_handle_t domain = NULL;
    uint32_t count = 1;
    zc_assert_success(zesDeviceEnumFrequencyDomains((zes_device_handle_t)x->device, &count, &domain));
    zc_sleep_ms(5); /* past the millisecond a completed command keeps the clock up */
    zes_freq_range_t range;
    zc_assert_success(zesFrequencyGetRange(domain, &range));
    zes_freq_state_t s = {.stype = ZES_STRUCTURE_TYPE_FREQ_STATE};
    zc_assert_success(zesFrequencyGetState(domain, &s));
    assert_true(s.actual == range.min);
}

static void sysman_temperature_plausible(void **state) {
    (void)state;
    const zc_system *sys = zc_sys();
    for (uint32_t d = 0; d < sys->num_all; d++) {
        uint32_t count = 0;
        zes_temp_handle_t *sensors =
            zc_handles((zes_device_handle_t)sys->all[d], (zc_enum_fn)zesDeviceEnumTemperatureSensors,
                       "zesDeviceEnumTemperatureSensors", &count);
        for (uint32_t i = 0; i < count; i++) {
            zes_temp_properties_t p = {.stype = ZES_STRUCTURE_TYPE_TEMP_PROPERTIES};
            zc_assert_success(zesTemperatureGetProperties(sensors[i], &p));
            double t = 0;
            zc_assert_success(zesTemperatureGetState(sensors[i], &t));
            assert_true(t > 0.0 && t < p.maxTemperature);
        }
        free(sensors);
    }
}

/* The sub-device a memory module or frequency domain answers it is on (onSubdevice, subdeviceId). */
static void zc_component_place(bool memory, void *handle, ze_bool_t *on_subdevice, uint32_t *subdevice_id) {
    if (memory) {
        zes_mem_properties_t p = {.stype = ZES_STRUCTURE_TYPE_MEM_PROPERTIES};
        zc_assert_success(zesMemoryGetProperties(handle, &p));
        *on_subdevice = p.onSubdevice;
        *subdevice_id = p.subdeviceId;
        return;
    }
    zes_freq_properties_t p = {.stype = ZES_STRUCTURE_TYPE_FREQ_PROPERTIES};
    zc_assert_success(zesFrequencyGetProperties(handle, &p));
    *on_subdevice = p.onSubdevice;
    *subdevice_id = p.subdeviceId;
}

/* docs/sysman.md: a card with tiles offers its own memory module and frequency domain, then one per tile, each on its
 * sub-device; a device without tiles offers its own only. */
static void sysman_tiles_have_memory_and_frequency(void **state) {
    zc_exec *x = *state;
    zc_skip_unless_fake();
    uint32_t subs = 0;
    zc_assert_success(zeDeviceGetSubDevices(x->device, &subs, NULL));
    for (int kind = 0; kind < 2; kind++) {
        bool memory = kind == 0;
        uint32_t count = 0;
        void **handles =
            memory ? (void **)zc_handles((zes_device_handle_t)x->device, (zc_enum_fn)zesDeviceEnumMemoryModules,
                                         "zesDeviceEnumMemoryModules", &count)
                   : (void **)zc_handles((zes_device_handle_t)x->device, (zc_enum_fn)zesDeviceEnumFrequencyDomains,
                                         "zesDeviceEnumFrequencyDomains", &count);
        assert_int_equal(count, 1 + subs);
        for (uint32_t i = 1; i < count; i++) {
            ze_bool_t on_subdevice = false;
            uint32_t subdevice_id = UINT32_MAX;
            zc_component_place(memory, handles[i], &on_subdevice, &subdevice_id);
            assert_true(on_subdevice);
            assert_int_equal(subdevice_id, i - 1);
        }
        free(handles);
    }
}

static void sysman_processes_list_the_caller(void **state) {
    zc_exec *x = *state;
    void *ptr = zc_device_alloc(x, 1u << 20);
    uint32_t count = 0;
    zc_assert_success(zesDeviceProcessesGetState((zes_device_handle_t)x->device, &count, NULL));
    assert_true(count >= 1);
    zes_process_state_t *list = calloc(count, sizeof *list);
    for (uint32_t i = 0; i < count; i++)
        list[i] = (zes_process_state_t){.stype = ZES_STRUCTURE_TYPE_PROCESS_STATE};
    zc_assert_success(zesDeviceProcessesGetState((zes_device_handle_t)x->device, &count, list));
    bool found = false;
    for (uint32_t i = 0; i < count; i++) {
        if (list[i].processId == (uint32_t)getpid()) {
            found = true;
            assert_true(list[i].memSize >= (1u << 20));
        }
    }
    assert_true(found);
    free(list);
    zc_free(x, ptr);
}

static void sysman_reset_leaves_device_usable(void **state) {
    zc_exec *x = *state;
    zes_device_handle_t device = (zes_device_handle_t)x->device;
    zc_assert_success(zesDeviceReset(device, false));
    zes_device_state_t s = {.stype = ZES_STRUCTURE_TYPE_DEVICE_STATE};
    zc_assert_success(zesDeviceGetState(device, &s));
    assert_int_equal(s.reset, 0);
    zc_assert_success(zeDeviceGetStatus(x->device));
}

/* ECC: a state that is consistent with availability; a device whose ECC is not configurable refuses a change. */
static void sysman_ecc(void **state) {
    (void)state;
    const zc_system *sys = zc_sys();
    for (uint32_t d = 0; d < sys->num_all; d++) {
        zes_device_handle_t device = (zes_device_handle_t)sys->all[d];
        ze_bool_t available = 2, configurable = 2;
        zc_assert_success(zesDeviceEccAvailable(device, &available));
        zc_assert_success(zesDeviceEccConfigurable(device, &configurable));
        zes_device_ecc_properties_t s = {.stype = ZES_STRUCTURE_TYPE_DEVICE_ECC_PROPERTIES};
        zc_assert_success(zesDeviceGetEccState(device, &s));
        assert_true(available ? s.currentState != ZES_DEVICE_ECC_STATE_UNAVAILABLE
                              : s.currentState == ZES_DEVICE_ECC_STATE_UNAVAILABLE);
        if (zc_driver_is_fake()) /* docs/sysman.md: ECC follows ZE_DEVICE_PROPERTY_FLAG_ECC */
            assert_int_equal(available, (zc_device_props(sys->all[d]).flags & ZE_DEVICE_PROPERTY_FLAG_ECC) != 0);
        zes_device_ecc_desc_t want = {.stype = ZES_STRUCTURE_TYPE_DEVICE_ECC_DESC,
                                      .state = ZES_DEVICE_ECC_STATE_DISABLED};
        if (!configurable)
            zc_assert_error(zesDeviceSetEccState(device, &want, &s));
        zc_assert_result(zesDeviceGetEccState(device, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    }
}

/* The state of the device's uncorrectable error set (cleared after the read when `clear`). */
static zes_ras_state_t zc_uncorrectable(zes_device_handle_t device, bool clear) {
    zes_ras_state_t state = {.stype = ZES_STRUCTURE_TYPE_RAS_STATE};
    zc_assert_success(zesRasGetState(zc_ras_set(device, ZES_RAS_ERROR_TYPE_UNCORRECTABLE), clear, &state));
    return state;
}

/* docs/sysman.md: an execution fault (here a copy past the end of its allocation, which the fake does not perform)
 * leaves the device wedged until zesDeviceReset, which clears it. */
static void sysman_reset_clears_a_fault(void **state) {
    zc_exec *x = *state;
    zc_skip_unless_fake();
    zes_device_handle_t device = (zes_device_handle_t)x->device;
    zc_assert_success(zesDeviceEventRegister(device, ZES_EVENT_TYPE_FLAG_DEVICE_RESET_REQUIRED));
    uint32_t with_events = 7;
    zes_event_type_flags_t events = 7;
    zc_assert_success(zesDriverEventListen(zc_sys()->driver, 0, 1, &device, &with_events, &events));
    assert_int_equal(with_events, 0);
    assert_int_equal(events, 0);
    uint8_t *small = zc_device_alloc(x, 64);
    uint8_t *big = zc_host_alloc(x, 4096);
    ze_command_list_handle_t list = zc_list(x, x->compute_ordinal);
    ze_command_queue_handle_t queue = zc_queue(x, x->compute_ordinal, 0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    zc_assert_success(zeCommandListAppendMemoryCopy(list, small, big, 4096, NULL, 0, NULL));
    zc_run(queue, list);
    zc_assert_result(zeDeviceGetStatus(x->device), ZE_RESULT_ERROR_DEVICE_LOST);
    zes_device_state_t s = {.stype = ZES_STRUCTURE_TYPE_DEVICE_STATE};
    zc_assert_success(zesDeviceGetState(device, &s));
    assert_int_equal(s.reset, ZES_RESET_REASON_FLAG_WEDGED);
    /* docs/sysman.md: the fault raised the registered event, received once. */
    zc_assert_success(zesDriverEventListenEx(zc_sys()->driver, 1000, 1, &device, &with_events, &events));
    assert_int_equal(with_events, 1);
    assert_int_equal(events, ZES_EVENT_TYPE_FLAG_DEVICE_RESET_REQUIRED);
    zc_assert_success(zesDriverEventListen(zc_sys()->driver, 10, 1, &device, &with_events, &events));
    assert_int_equal(with_events, 0);
    zc_assert_success(zesDeviceEventRegister(device, 0));
    zes_ras_state_t before = zc_uncorrectable(device, false);
    zc_assert_success(zesDeviceReset(device, true));
    zc_assert_success(zesDeviceGetState(device, &s));
    assert_int_equal(s.reset, 0);
    /* docs/sysman.md: the fault and the reset are counted by the uncorrectable error set, until cleared. */
    zes_ras_state_t after = zc_uncorrectable(device, true);
    assert_int_equal(after.category[ZES_RAS_ERROR_CAT_RESET], before.category[ZES_RAS_ERROR_CAT_RESET] + 1);
    assert_true(after.category[ZES_RAS_ERROR_CAT_PROGRAMMING_ERRORS] >= 1);
    after = zc_uncorrectable(device, false);
    assert_int_equal(after.category[ZES_RAS_ERROR_CAT_RESET], 0);
    assert_int_equal(after.category[ZES_RAS_ERROR_CAT_PROGRAMMING_ERRORS], 0);
    zc_assert_success(zeDeviceGetStatus(x->device));
    zc_assert_success(zeCommandQueueDestroy(queue));
    zc_assert_success(zeCommandListDestroy(list));
    zc_free(x, small);
    zc_free(x, big);
}

static void sysman_bad_inputs(void **state) {
    zc_exec *x = *state;
    zes_device_handle_t device = (zes_device_handle_t)x->device;
    const ze_result_t null_ptr = ZE_RESULT_ERROR_INVALID_NULL_POINTER,
                      null_handle = ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    zc_assert_result(zesDeviceGetProperties(device, NULL), null_ptr);
    zc_assert_result(zesDeviceGetProperties(NULL, NULL), null_handle);
    zc_assert_result(zesDeviceGetState(device, NULL), null_ptr);
    zc_assert_result(zesDeviceProcessesGetState(device, NULL, NULL), null_ptr);
    zc_assert_result(zesDevicePciGetProperties(device, NULL), null_ptr);
    zc_assert_result(zesDevicePciGetBars(device, NULL, NULL), null_ptr);
    zc_assert_result(zesDeviceEnumEngineGroups(device, NULL, NULL), null_ptr);
    zc_assert_result(zesDeviceEnumPowerDomains(NULL, NULL, NULL), null_handle);
    zc_assert_result(zesDeviceGetCardPowerDomain(device, NULL), null_ptr);
    zes_engine_handle_t engine = zc_engine_of(device, ZES_ENGINE_GROUP_ALL);
    assert_non_null(engine);
    zc_assert_result(zesEngineGetActivity(engine, NULL), null_ptr);
    zc_assert_result(zesEngineGetProperties(NULL, NULL), null_handle);
    zc_assert_result(zesMemoryGetState(zc_memory_module(device), NULL), null_ptr);
    zes_freq_handle_t freq = zc_freq_domain((ze_device_handle_t)device);
    zc_assert_result(zesFrequencySetRange(freq, NULL), null_ptr);
    zc_assert_result(zesFrequencyGetState(freq, NULL), null_ptr);
    zes_pwr_handle_t domain = NULL;
    uint32_t one = 1;
    zc_assert_success(zesDeviceEnumPowerDomains(device, &one, &domain));
    zc_assert_result(zesPowerSetLimitsExt(domain, NULL, NULL), null_ptr);
    zes_power_properties_t pp;
    zes_pwr_handle_t card = zc_card_domain(x->device, &pp);
    if (card != NULL && pp.canControl) { /* limits outside the domain's range */
        zes_power_sustained_limit_t low = {.enabled = true, .power = pp.minLimit - 1, .interval = 1000};
        zes_power_sustained_limit_t high = {.enabled = true, .power = pp.maxLimit + 1, .interval = 1000};
        zc_assert_error(zesPowerSetLimits(card, &low, NULL, NULL));
        zc_assert_error(zesPowerSetLimits(card, &high, NULL, NULL));
        uint32_t count = 1;
        zes_power_limit_ext_desc_t ext = {.stype = ZES_STRUCTURE_TYPE_POWER_LIMIT_EXT_DESC,
                                          .level = ZES_POWER_LEVEL_SUSTAINED,
                                          .enabled = true,
                                          .interval = 1000,
                                          .limit = pp.maxLimit + 1};
        zc_assert_error(zesPowerSetLimitsExt(card, &count, &ext));
        if (zc_driver_is_fake()) {
            zc_assert_result(zesPowerSetLimits(card, &high, NULL, NULL), ZE_RESULT_ERROR_INVALID_ARGUMENT);
            zc_assert_result(zesPowerSetLimitsExt(card, &count, NULL), null_ptr);
            zes_power_sustained_limit_t got;
            zc_assert_success(zesPowerGetLimits(card, &got, NULL, NULL));
            assert_int_equal(got.power, pp.defaultLimit); /* nothing refused was applied */
        }
    }
    /* Handles of the wrong kind, and a destroyed object, are not sysman handles. */
    zes_engine_stats_t stats;
    zes_power_energy_counter_t energy;
    zc_assert_result(zesEngineGetActivity((zes_engine_handle_t)freq, &stats), null_handle);
    zc_assert_result(zesPowerGetEnergyCounter((zes_pwr_handle_t)engine, &energy), null_handle);
    ze_context_handle_t context = NULL;
    ze_context_desc_t desc = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0};
    zc_assert_success(zeContextCreate(zc_sys()->driver, &desc, &context));
    zc_assert_success(zeContextDestroy(context));
    zes_device_properties_t p = {.stype = ZES_STRUCTURE_TYPE_DEVICE_PROPERTIES};
    zc_assert_result(zesDeviceGetProperties((zes_device_handle_t)context, &p), null_handle);
    uint32_t with_events = 0;
    zes_event_type_flags_t events = 0;
    zes_device_handle_t stale = (zes_device_handle_t)context;
    zc_assert_result(zesDriverEventListen(zc_sys()->driver, 0, 1, &stale, &with_events, &events),
                     ZE_RESULT_ERROR_INVALID_ARGUMENT);
    zc_assert_result(zesDriverEventListen(zc_sys()->driver, 0, 1, &device, NULL, &events), null_ptr);
    zc_assert_result(zesDeviceEventRegister(device, 0x40000000), ZE_RESULT_ERROR_INVALID_ENUMERATION);
}

/* Firmware: properties with the header's "unknown" where not known; flashing refused where canControl is false. */
static void sysman_firmware(void **state) {
    (void)state;
    const zc_system *sys = zc_sys();
    for (uint32_t d = 0; d < sys->num_roots; d++) {
        uint32_t count = 0;
        zes_firmware_handle_t *firmware = zc_handles(
            (zes_device_handle_t)sys->roots[d], (zc_enum_fn)zesDeviceEnumFirmwares, "zesDeviceEnumFirmwares", &count);
        for (uint32_t i = 0; i < count; i++) {
            zes_firmware_properties_t p = {.stype = ZES_STRUCTURE_TYPE_FIRMWARE_PROPERTIES};
            memset(p.name, 0x5a, sizeof p.name);
            zc_assert_success(zesFirmwareGetProperties(firmware[i], &p));
            assert_non_null(memchr(p.name, '\0', sizeof p.name));
            assert_non_null(memchr(p.version, '\0', sizeof p.version));
            uint8_t image[16] = {0};
            if (!p.canControl)
                zc_assert_error(zesFirmwareFlash(firmware[i], image, sizeof image));
            zc_assert_result(zesFirmwareGetProperties(firmware[i], NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
        }
        bool tile = (zc_device_props(sys->roots[d]).flags & ZE_DEVICE_PROPERTY_FLAG_SUBDEVICE) != 0;
        if (zc_driver_is_fake()) /* docs/sysman.md: the card's GFX firmware */
            assert_int_equal(count, tile ? 0 : 1);
        free(firmware);
    }
}

/* A fresh process without ZES_ENABLE_SYSMAN: core device handles are not sysman handles (Intel's driver answers
 * ZE_RESULT_ERROR_UNINITIALIZED, and so does the fake). */
static int zc_disabled_child(int argc, char **argv) {
    (void)argc;
    (void)argv;
    zc_exec *x = zc_child_exec_begin();
    if (x == NULL)
        return 2;
    zes_device_properties_t p = {.stype = ZES_STRUCTURE_TYPE_DEVICE_PROPERTIES};
    uint32_t count = 0;
    zc_assert_result(zesDeviceGetProperties((zes_device_handle_t)x->device, &p), ZE_RESULT_ERROR_UNINITIALIZED);
    zc_assert_result(zesDeviceEnumEngineGroups((zes_device_handle_t)x->device, &count, NULL),
                     ZE_RESULT_ERROR_UNINITIALIZED);
#if ZC_L0_AT_LEAST(5)
    if (ZC_API(zesDriverGet) != NULL) /* no sysman driver either before zesInit (docs/sysman.md) */
        zc_assert_result(ZC_API(zesDriverGet)(&count, NULL), ZE_RESULT_ERROR_UNINITIALIZED);
#endif
    return zc_child_exec_end(x);
}

static void sysman_needs_enabling(void **state) {
    (void)state;
    zc_skip_unless_fake();
    static const char *const env[] = {"ZES_ENABLE_SYSMAN", NULL};
    zc_child child;
    assert_true(zc_run_child_mode("disabled", NULL, env, 30000, &child));
    zc_assert_child_ok(&child, "sysman without ZES_ENABLE_SYSMAN");
    zc_child_free(&child);
}

int main(int argc, char **argv) {
    zc_own_instance();
    static const struct CMUnitTest tests[] = {
        cmocka_unit_test(sysman_enumerations_answer),
        cmocka_unit_test(sysman_device_properties_follow_core),
        cmocka_unit_test(sysman_pci),
        cmocka_unit_test(sysman_temperature_plausible),
        cmocka_unit_test(sysman_ecc),
        cmocka_unit_test(sysman_needs_enabling),
        cmocka_unit_test(sysman_firmware),
        cmocka_unit_test_setup_teardown(sysman_engine_activity_follows_work, zc_setup_exec, zc_teardown_exec),
        cmocka_unit_test_setup_teardown(sysman_energy_rises_faster_under_load, zc_setup_exec, zc_teardown_exec),
        cmocka_unit_test_setup_teardown(sysman_power_limits_round_trip, zc_setup_exec, zc_teardown_exec),
        cmocka_unit_test_setup_teardown(sysman_power_limit_throttles, zc_setup_exec, zc_teardown_exec),
        cmocka_unit_test_setup_teardown(sysman_memory_free_drops_by_allocation, zc_setup_exec, zc_teardown_exec),
        cmocka_unit_test_setup_teardown(sysman_frequency_in_range, zc_setup_exec, zc_teardown_exec),
        cmocka_unit_test_setup_teardown(sysman_frequency_idle_is_min, zc_setup_exec, zc_teardown_exec),
        cmocka_unit_test_setup_teardown(sysman_tiles_have_memory_and_frequency, zc_setup_exec, zc_teardown_exec),
        cmocka_unit_test_setup_teardown(sysman_processes_list_the_caller, zc_setup_exec, zc_teardown_exec),
        cmocka_unit_test_setup_teardown(sysman_reset_leaves_device_usable, zc_setup_exec, zc_teardown_exec),
        cmocka_unit_test_setup_teardown(sysman_reset_clears_a_fault, zc_setup_exec, zc_teardown_exec),
        cmocka_unit_test_setup_teardown(sysman_bad_inputs, zc_setup_exec, zc_teardown_exec),
    };
    static const zc_child_mode modes[] = {{"disabled", zc_disabled_child}};
    static const zc_suite suite = {ZC_EXECUTABLE,      tests, ZC_COUNT(tests), zc_setup_system,
                                   zc_teardown_system, modes, ZC_COUNT(modes)};
    return zc_main(argc, argv, &suite);
}
