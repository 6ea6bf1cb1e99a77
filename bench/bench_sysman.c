/* Cost of one sysman telemetry read through the loader into the fake driver (docs/sysman.md): engine activity of the
 * device's ZES_ENGINE_GROUP_ALL handle and the energy counter of its first power domain, as ratios to a plain core
 * call through the same loader (zeDeviceGetProperties) measured in the same run. The benchmark enables sysman itself
 * (ZES_ENABLE_SYSMAN=1 before zeInit). Usage: zefake-bench-sysman [--quick] */
#include <level_zero/ze_api.h>
#include <level_zero/zes_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ZB_PROGRAM "zefake-bench-sysman"
#include "zb_bench.h"

typedef struct zb_state {
    ze_device_handle_t device;
    zes_engine_handle_t engine;
    zes_pwr_handle_t power;
} zb_state;

static void zb_baseline(void *state, uint64_t iterations) {
    zb_state *s = state;
    ze_device_properties_t props = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
    for (uint64_t i = 0; i < iterations; i++)
        zeDeviceGetProperties(s->device, &props);
}

static void zb_engine_activity(void *state, uint64_t iterations) {
    zb_state *s = state;
    zes_engine_stats_t stats;
    for (uint64_t i = 0; i < iterations; i++)
        zesEngineGetActivity(s->engine, &stats);
}

static void zb_energy(void *state, uint64_t iterations) {
    zb_state *s = state;
    zes_power_energy_counter_t energy;
    for (uint64_t i = 0; i < iterations; i++)
        zesPowerGetEnergyCounter(s->power, &energy);
}

/* The ZES_ENGINE_GROUP_ALL handle of the device. */
static zes_engine_handle_t zb_all_engines(ze_device_handle_t device) {
    zes_engine_handle_t engines[64];
    uint32_t count = 64;
    zb_check(zesDeviceEnumEngineGroups((zes_device_handle_t)device, &count, engines), "zesDeviceEnumEngineGroups");
    for (uint32_t i = 0; i < count; i++) {
        zes_engine_properties_t p = {.stype = ZES_STRUCTURE_TYPE_ENGINE_PROPERTIES};
        zb_check(zesEngineGetProperties(engines[i], &p), "zesEngineGetProperties");
        if (p.type == ZES_ENGINE_GROUP_ALL)
            return engines[i];
    }
    zb_fail("zesDeviceEnumEngineGroups", "no ZES_ENGINE_GROUP_ALL handle");
    return NULL;
}

static void zb_setup(zb_state *s) {
    setenv("ZES_ENABLE_SYSMAN", "1", 1);
    ze_driver_handle_t driver;
    uint32_t count = 1;
    zb_check(zeInit(0), "zeInit");
    zb_check(zeDriverGet(&count, &driver), "zeDriverGet");
    count = 1;
    zb_check(zeDeviceGet(driver, &count, &s->device), "zeDeviceGet");
    if (count == 0)
        zb_fail("zeDeviceGet", "no device (set ZE_ENABLE_ALT_DRIVERS)");
    s->engine = zb_all_engines(s->device);
    count = 1;
    zb_check(zesDeviceEnumPowerDomains((zes_device_handle_t)s->device, &count, &s->power), "zesDeviceEnumPowerDomains");
    if (count == 0)
        zb_fail("zesDeviceEnumPowerDomains", "no power domain");
}

int main(int argc, char **argv) {
    uint64_t iterations = (argc > 1 && strcmp(argv[1], "--quick") == 0) ? 20000 : 2000000;
    zb_state state;
    zb_setup(&state);
    double base = zb_measure_ns(zb_baseline, &state, iterations);
    double activity = zb_measure_ns(zb_engine_activity, &state, iterations);
    double energy = zb_measure_ns(zb_energy, &state, iterations);
    printf("baseline: zeDeviceGetProperties through the loader %.1f ns\n", base);
    printf("zesEngineGetActivity (ZES_ENGINE_GROUP_ALL): %.1f ns, ratio %.2f\n", activity, activity / base);
    printf("zesPowerGetEnergyCounter: %.1f ns, ratio %.2f\n", energy, energy / base);
    return EXIT_SUCCESS;
}
