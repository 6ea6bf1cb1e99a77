/* Sysman controls with an effect on execution and energy (zes_api.h, "Scheduler management", "Standby domains",
 * "Performance factor"), docs/sysman.md, "Controls":
 * - one scheduler for a device's compute engines: its mode sets the hang detector's limit for the device's kernels
 *   (TIMEOUT: the watchdog; TIMESLICE: the default limit; EXCLUSIVE: none), applied at once (no reload); no
 *   compute-unit debug mode, since the device has no debug support (zesSchedulerSetComputeUnitDebugMode answers
 *   UNSUPPORTED_FEATURE, fake_driver/gen/unsupported_reasons.txt);
 * - one standby domain per tile: NEVER keeps the tile awake, which adds to its idle draw in the energy model;
 * - one compute performance-factor domain: a factor below 50 lowers the clock the cost model runs kernels at. */
#include "tools/sysman/zf_sysman.h"

#define ZF_SM_SCHED_MODES                                                                                              \
    ((1u << ZES_SCHED_MODE_TIMEOUT) | (1u << ZES_SCHED_MODE_TIMESLICE) | (1u << ZES_SCHED_MODE_EXCLUSIVE))
#define ZF_SM_MIN_WATCHDOG_US     5000u /* the shortest watchdog: 5 ms */
#define ZF_SM_DEFAULT_INTERVAL_US 5000u /* TIMESLICE defaults */
#define ZF_SM_DEFAULT_YIELD_US    640000u

static uint64_t zf_sm_default_watchdog_us(const zf_device *device) {
    uint64_t ns = zf_device_hang_timeout_ns(device);
    return ns == 0 ? ZES_SCHED_WATCHDOG_DISABLE : ns / 1000u;
}

void zf_sm_control_start(zf_sm_device *sm) {
    sm->perf.owner = sm;
    sm->sched = (zf_sm_sched){.owner = sm,
                              .mode = ZES_SCHED_MODE_TIMESLICE,
                              .interval_us = ZF_SM_DEFAULT_INTERVAL_US,
                              .yield_us = ZF_SM_DEFAULT_YIELD_US,
                              .default_watchdog_us = zf_sm_default_watchdog_us(sm->device)};
    sm->sched.watchdog_us = sm->sched.default_watchdog_us;
    for (uint32_t t = 0; t < sm->num_tiles; t++)
        sm->standby[t] = (zf_sm_standby){.owner = sm, .tile = t};
}

/* Schedulers. */

static zf_sm_sched *zf_sm_sched_from(zes_sched_handle_t handle) {
    return (zf_sm_sched *)handle;
}

ze_result_t zfi_zesDeviceEnumSchedulers(zes_device_handle_t hDevice, uint32_t *pCount,
                                        zes_sched_handle_t *phScheduler) {
    zf_sm_device *sm;
    ze_result_t result = zf_sm_device_of(hDevice, &sm);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    zf_sm_fill_handles(pCount, 1, (void **)phScheduler, &sm->sched, sizeof sm->sched);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zesSchedulerGetProperties(zes_sched_handle_t hScheduler, zes_sched_properties_t *pProperties) {
    const zf_device *device = zf_sm_sched_from(hScheduler)->owner->device;
    pProperties->onSubdevice = zf_sm_on_subdevice(device);
    pProperties->subdeviceId = zf_sm_subdevice_id(device);
    pProperties->canControl = true;
    pProperties->engines = ZES_ENGINE_TYPE_FLAG_COMPUTE;
    pProperties->supportedModes = ZF_SM_SCHED_MODES;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zesSchedulerGetCurrentMode(zes_sched_handle_t hScheduler, zes_sched_mode_t *pMode) {
    zf_sm_sched *sched = zf_sm_sched_from(hScheduler);
    zf_sm_lock();
    *pMode = sched->mode;
    zf_sm_unlock();
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zesSchedulerGetTimeoutModeProperties(zes_sched_handle_t hScheduler, ze_bool_t getDefaults,
                                                     zes_sched_timeout_properties_t *pConfig) {
    zf_sm_sched *sched = zf_sm_sched_from(hScheduler);
    zf_sm_lock();
    pConfig->watchdogTimeout = getDefaults ? sched->default_watchdog_us : sched->watchdog_us;
    zf_sm_unlock();
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zesSchedulerGetTimesliceModeProperties(zes_sched_handle_t hScheduler, ze_bool_t getDefaults,
                                                       zes_sched_timeslice_properties_t *pConfig) {
    zf_sm_sched *sched = zf_sm_sched_from(hScheduler);
    zf_sm_lock();
    pConfig->interval = getDefaults ? ZF_SM_DEFAULT_INTERVAL_US : sched->interval_us;
    pConfig->yieldTimeout = getDefaults ? ZF_SM_DEFAULT_YIELD_US : sched->yield_us;
    zf_sm_unlock();
    return ZE_RESULT_SUCCESS;
}

/* The hang limit of a mode, ns, for zf_device_set_hang_limit. */
static uint64_t zf_sm_mode_hang_ns(const zf_sm_sched *sched) {
    switch (sched->mode) {
    case ZES_SCHED_MODE_TIMEOUT:
        return sched->watchdog_us == ZES_SCHED_WATCHDOG_DISABLE ? ZF_HANG_NO_LIMIT : sched->watchdog_us * 1000u;
    case ZES_SCHED_MODE_EXCLUSIVE:
        return ZF_HANG_NO_LIMIT;
    default:
        return 0; /* the default limit */
    }
}

/* Applies the scheduler's mode (lock held) to the device's kernels, and to its tiles' (the same engines). */
static void zf_sm_apply_mode(zf_sm_sched *sched, zes_sched_mode_t mode, ze_bool_t *pNeedReload) {
    sched->mode = mode;
    zf_device *device = sched->owner->device;
    uint64_t ns = zf_sm_mode_hang_ns(sched);
    zf_device_set_hang_limit(device, ns);
    for (uint32_t s = 0; s < device->num_subdevices; s++)
        zf_device_set_hang_limit(&device->subdevices[s], ns);
    *pNeedReload = false; /* applied at once */
}

ze_result_t zfi_zesSchedulerSetTimeoutMode(zes_sched_handle_t hScheduler, zes_sched_timeout_properties_t *pProperties,
                                           ze_bool_t *pNeedReload) {
    zf_sm_sched *sched = zf_sm_sched_from(hScheduler);
    uint64_t watchdog = pProperties->watchdogTimeout;
    if (watchdog < ZF_SM_MIN_WATCHDOG_US)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                       "pProperties->watchdogTimeout %llu us is below the %u us minimum (ZES_SCHED_WATCHDOG_DISABLE "
                       "turns it off)",
                       (unsigned long long)watchdog, ZF_SM_MIN_WATCHDOG_US);
    zf_sm_lock();
    sched->watchdog_us = watchdog;
    zf_sm_apply_mode(sched, ZES_SCHED_MODE_TIMEOUT, pNeedReload);
    zf_sm_unlock();
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zesSchedulerSetTimesliceMode(zes_sched_handle_t hScheduler,
                                             zes_sched_timeslice_properties_t *pProperties, ze_bool_t *pNeedReload) {
    zf_sm_sched *sched = zf_sm_sched_from(hScheduler);
    if (pProperties->interval == 0 || pProperties->yieldTimeout == 0)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                       "pProperties->interval %llu us and yieldTimeout %llu us must both be above 0",
                       (unsigned long long)pProperties->interval, (unsigned long long)pProperties->yieldTimeout);
    zf_sm_lock();
    sched->interval_us = pProperties->interval;
    sched->yield_us = pProperties->yieldTimeout;
    zf_sm_apply_mode(sched, ZES_SCHED_MODE_TIMESLICE, pNeedReload);
    zf_sm_unlock();
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zesSchedulerSetExclusiveMode(zes_sched_handle_t hScheduler, ze_bool_t *pNeedReload) {
    zf_sm_sched *sched = zf_sm_sched_from(hScheduler);
    zf_sm_lock();
    zf_sm_apply_mode(sched, ZES_SCHED_MODE_EXCLUSIVE, pNeedReload);
    zf_sm_unlock();
    return ZE_RESULT_SUCCESS;
}

/* Standby domains: one per tile; NEVER keeps it awake from now on. */

static zf_sm_standby *zf_sm_standby_from(zes_standby_handle_t handle) {
    return (zf_sm_standby *)handle;
}

/* Where the physical tile `t` of `sm` keeps its standby state: its card's device, at the tile's index there. */
static uint32_t zf_sm_physical_tile(const zf_sm_device *sm, uint32_t t) {
    return sm->device->is_subdevice ? sm->device->subdevice_id : t;
}

uint64_t zf_sm_awake_us(const zf_sm_device *sm, uint32_t t, uint64_t now_us) {
    const zf_sm_device *card = zf_sm_card_of((zf_sm_device *)sm);
    uint32_t p = zf_sm_physical_tile(sm, t);
    uint64_t since = card->awake_since_us[p];
    return card->awake_us[p] + (since != 0 && now_us > since ? now_us - since : 0);
}

ze_result_t zfi_zesDeviceEnumStandbyDomains(zes_device_handle_t hDevice, uint32_t *pCount,
                                            zes_standby_handle_t *phStandby) {
    zf_sm_device *sm;
    ze_result_t result = zf_sm_device_of(hDevice, &sm);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    zf_sm_fill_handles(pCount, sm->num_tiles, (void **)phStandby, sm->standby, sizeof sm->standby[0]);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zesStandbyGetProperties(zes_standby_handle_t hStandby, zes_standby_properties_t *pProperties) {
    const zf_sm_standby *standby = zf_sm_standby_from(hStandby);
    const zf_device *device = standby->owner->device;
    pProperties->type = ZES_STANDBY_TYPE_GLOBAL;
    pProperties->onSubdevice = zf_sm_on_subdevice(device) || device->num_subdevices > 0;
    pProperties->subdeviceId = zf_sm_on_subdevice(device) ? device->subdevice_id : standby->tile;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zesStandbyGetMode(zes_standby_handle_t hStandby, zes_standby_promo_mode_t *pMode) {
    const zf_sm_standby *standby = zf_sm_standby_from(hStandby);
    const zf_sm_device *card = zf_sm_card_of(standby->owner);
    zf_sm_lock();
    bool awake = card->awake_since_us[zf_sm_physical_tile(standby->owner, standby->tile)] != 0;
    zf_sm_unlock();
    *pMode = awake ? ZES_STANDBY_PROMO_MODE_NEVER : ZES_STANDBY_PROMO_MODE_DEFAULT;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zesStandbySetMode(zes_standby_handle_t hStandby, zes_standby_promo_mode_t mode) {
    const zf_sm_standby *standby = zf_sm_standby_from(hStandby);
    zf_sm_device *card = zf_sm_card_of(standby->owner);
    uint32_t p = zf_sm_physical_tile(standby->owner, standby->tile);
    uint64_t now = zf_sm_host_us();
    zf_sm_lock();
    if (mode == ZES_STANDBY_PROMO_MODE_NEVER && card->awake_since_us[p] == 0) {
        card->awake_since_us[p] = now;
    } else if (mode == ZES_STANDBY_PROMO_MODE_DEFAULT && card->awake_since_us[p] != 0) {
        card->awake_us[p] += now - card->awake_since_us[p];
        card->awake_since_us[p] = 0;
    }
    zf_sm_unlock();
    return ZE_RESULT_SUCCESS;
}

/* Performance factor: one compute domain per device (the cards have no media engines). */

static zf_sm_device *zf_sm_perf_owner(zes_perf_handle_t handle) {
    return ((zf_sm_simple *)handle)->owner;
}

ze_result_t zfi_zesDeviceEnumPerformanceFactorDomains(zes_device_handle_t hDevice, uint32_t *pCount,
                                                      zes_perf_handle_t *phPerf) {
    zf_sm_device *sm;
    ze_result_t result = zf_sm_device_of(hDevice, &sm);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    zf_sm_fill_handles(pCount, 1, (void **)phPerf, &sm->perf, sizeof sm->perf);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zesPerformanceFactorGetProperties(zes_perf_handle_t hPerf, zes_perf_properties_t *pProperties) {
    const zf_device *device = zf_sm_perf_owner(hPerf)->device;
    pProperties->onSubdevice = zf_sm_on_subdevice(device);
    pProperties->subdeviceId = zf_sm_subdevice_id(device);
    pProperties->engines = ZES_ENGINE_TYPE_FLAG_COMPUTE;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zesPerformanceFactorGetConfig(zes_perf_handle_t hPerf, double *pFactor) {
    zf_sm_device *sm = zf_sm_perf_owner(hPerf);
    zf_sm_lock();
    *pFactor = sm->perf_factor;
    zf_sm_unlock();
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zesPerformanceFactorSetConfig(zes_perf_handle_t hPerf, double factor) {
    zf_sm_device *sm = zf_sm_perf_owner(hPerf);
    if (!(factor >= 0.0 && factor <= 100.0))
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "factor %g is not between 0 and 100", factor);
    zf_sm_lock();
    sm->perf_factor = factor;
    zf_sm_update_clocks();
    zf_sm_unlock();
    return ZE_RESULT_SUCCESS;
}
