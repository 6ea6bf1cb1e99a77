/* Conformance helpers shared by the sysman executables (zes_api.h, legacy model: core device handles used as sysman
 * device handles): enumerations of component handles, energy reads, the card's power domain and its sustained
 * limit. Include after zc_exec.h. */
#ifndef ZC_SYSMAN_H
#define ZC_SYSMAN_H

#include "zc_exec.h"

#include <level_zero/zes_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

typedef ze_result_t (*zc_enum_fn)(zes_device_handle_t, uint32_t *, void *);

typedef struct zc_enum {
    const char *name;
    zc_enum_fn call;
    bool present; /* the fake's cards have some */
} zc_enum;

typedef struct zc_enum_ctx {
    const zc_enum *e;
    zes_device_handle_t device;
} zc_enum_ctx;

static inline ze_result_t zc_enum_call(void *ctx, uint32_t *count, void *items) {
    const zc_enum_ctx *c = ctx;
    return c->e->call(c->device, count, items);
}

static inline void *zc_handles(zes_device_handle_t device, zc_enum_fn fn, const char *name, uint32_t *count) {
    zc_enum e = {name, fn, true};
    zc_enum_ctx ctx = {&e, device};
    zc_count_query q = {name, zc_enum_call, &ctx, sizeof(void *), NULL};
    return zc_query_all(&q, count);
}

static inline uint64_t zc_energy(zes_pwr_handle_t power, uint64_t *timestamp) {
    zes_power_energy_counter_t e;
    zc_assert_success(zesPowerGetEnergyCounter(power, &e));
    *timestamp = e.timestamp;
    return e.energy;
}

static inline void zc_sleep_ms(unsigned ms) {
    struct timespec ts = {(time_t)(ms / 1000u), (long)(ms % 1000u) * 1000000l};
    nanosleep(&ts, NULL);
}

/* The device's card power domain with its properties, or NULL for a tile reported as a sub-device (zes_api.h). */
static inline zes_pwr_handle_t zc_card_domain(ze_device_handle_t device, zes_power_properties_t *props) {
    zes_pwr_handle_t card = NULL;
    if (zesDeviceGetCardPowerDomain((zes_device_handle_t)device, &card) != ZE_RESULT_SUCCESS)
        return NULL;
    *props = (zes_power_properties_t){.stype = ZES_STRUCTURE_TYPE_POWER_PROPERTIES};
    zc_assert_success(zesPowerGetProperties(card, props));
    return card;
}

static inline void zc_set_sustained(zes_pwr_handle_t card, int32_t mw, int32_t interval) {
    zes_power_sustained_limit_t limit = {.enabled = true, .power = mw, .interval = interval};
    zc_assert_success(zesPowerSetLimits(card, &limit, NULL, NULL));
}

/* Puts this process (and the children it starts) on a scenario instance of its own unless a parent chose one: other
 * suites running at the same time on the same cards would change what the card's processes hold and run
 * (docs/environment.md, "Processes"). */
static inline void zc_own_instance(void) {
    if (getenv("ZC_SYSMAN_INSTANCE") != NULL)
        return;
    char name[64];
    snprintf(name, sizeof name, "zc-sysman-%ld", (long)getpid());
    setenv("ZEFAKE_INSTANCE", name, 1);
    setenv("ZC_SYSMAN_INSTANCE", name, 1);
}

/* The device's engine group of a type, NULL when it has none. */
static inline zes_engine_handle_t zc_engine_of(zes_device_handle_t device, zes_engine_group_t type) {
    uint32_t count = 0;
    zes_engine_handle_t *engines =
        zc_handles(device, (zc_enum_fn)zesDeviceEnumEngineGroups, "zesDeviceEnumEngineGroups", &count);
    zes_engine_handle_t found = NULL;
    for (uint32_t i = 0; i < count && found == NULL; i++) {
        zes_engine_properties_t p = {.stype = ZES_STRUCTURE_TYPE_ENGINE_PROPERTIES};
        zc_assert_success(zesEngineGetProperties(engines[i], &p));
        if (p.type == type)
            found = engines[i];
    }
    free(engines);
    return found;
}

/* The device's first memory module (the test fails without one). */
static inline zes_mem_handle_t zc_memory_module(zes_device_handle_t device) {
    uint32_t count = 0;
    zes_mem_handle_t *modules =
        zc_handles(device, (zc_enum_fn)zesDeviceEnumMemoryModules, "zesDeviceEnumMemoryModules", &count);
    assert_true(count >= 1);
    zes_mem_handle_t module = modules[0];
    free(modules);
    return module;
}

/* The device's first frequency domain. */
static inline zes_freq_handle_t zc_freq_domain(ze_device_handle_t device) {
    zes_freq_handle_t freq = NULL;
    uint32_t one = 1;
    zc_assert_success(zesDeviceEnumFrequencyDomains((zes_device_handle_t)device, &one, &freq));
    return freq;
}

/* The device's error set of a type (the test fails without one). */
static inline zes_ras_handle_t zc_ras_set(zes_device_handle_t device, zes_ras_error_type_t type) {
    uint32_t count = 0;
    zes_ras_handle_t *sets =
        zc_handles(device, (zc_enum_fn)zesDeviceEnumRasErrorSets, "zesDeviceEnumRasErrorSets", &count);
    zes_ras_handle_t found = NULL;
    for (uint32_t i = 0; i < count; i++) {
        zes_ras_properties_t p = {.stype = ZES_STRUCTURE_TYPE_RAS_PROPERTIES};
        zc_assert_success(zesRasGetProperties(sets[i], &p));
        if (p.type == type)
            found = sets[i];
    }
    free(sets);
    assert_non_null(found);
    return found;
}

/* Host monotonic time, ms. */
static inline uint64_t zc_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

#endif
