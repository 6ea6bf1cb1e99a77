/* Power, frequency and temperature (zes_api.h, "Power management", "Frequency management", "Temperature"), all
 * following from the work the device executed (docs/sysman.md):
 * - energy: each tile draws an idle power all the time, more while its compute or copy engines are busy, and a cost
 *   per byte moved; a card adds its uncore's idle power to its tiles', so a card's energy is never below the sum of
 *   its tiles'. In µJ with a host steady-clock timestamp in µs, as Intel's driver answers.
 * - power limit: a card's sustained limit below its full draw throttles it: its tiles' compute draws only what the
 *   limit leaves above idle and the frequency drops in proportion; kernels then run at that clock in the cost model,
 *   so they take longer in device time.
 * - frequency: the GPU domain runs at the top of its range while the device is busy (lower when throttled) and drops
 *   to the bottom of it when idle.
 * - temperature: a first-order thermal model driven by the average power between reads. */
#include "core/zf_chain.h"
#include "tools/sysman/zf_sysman.h"

#include <math.h>
#include <stddef.h>

/* The model's constants are the scenario's (its `sysman` keys, docs/scenarios.md); W x µs = µJ. */
static const zf_scenario_sysman *zf_sm_model(const zf_sm_device *sm) {
    return &sm->device->desc->sysman;
}

/* Tile t of sm: its idle draw, what it executed, and the draw of being kept awake (standby NEVER). */
static uint64_t zf_sm_tile_energy(const zf_sm_device *sm, uint32_t t, uint64_t elapsed_us, uint64_t now_us) {
    const zf_sm_tile_work *tile = &sm->tiles[t];
    const zf_scenario_sysman *m = zf_sm_model(sm);
    return (uint64_t)m->tile_idle_w * elapsed_us + (uint64_t)m->tile_awake_w * zf_sm_awake_us(sm, t, now_us) +
           tile->compute_nj / 1000u + (m->tile_copy_w * tile->copy_ns) / 1000u +
           ((tile->bytes_read + tile->bytes_written) * m->picojoules_per_byte) / 1000000u;
}

uint64_t zf_sm_energy_uj(const zf_sm_power *power, uint64_t now_us) {
    const zf_sm_device *sm = power->owner;
    uint64_t elapsed = now_us > sm->start_host_us ? now_us - sm->start_host_us : 0;
    if (!power->card)
        return zf_sm_tile_energy(sm, power->tile, elapsed, now_us);
    uint64_t energy = (uint64_t)zf_sm_model(sm)->card_uncore_w * elapsed;
    for (uint32_t t = 0; t < sm->num_tiles; t++)
        energy += zf_sm_tile_energy(sm, t, elapsed, now_us);
    return energy;
}

/* A card's draw, mW, idle and with every tile computing. */
static int32_t zf_sm_idle_mw(const zf_sm_device *card) {
    const zf_scenario_sysman *m = zf_sm_model(card);
    return (int32_t)((m->card_uncore_w + m->tile_idle_w * card->num_tiles) * 1000u);
}

static int32_t zf_sm_busy_mw(const zf_sm_device *card) {
    return zf_sm_idle_mw(card) + (int32_t)(zf_sm_full_compute_mw(card) * card->num_tiles);
}

/* The range of a card's sustained limit: its idle draw up to the scenario's power_limit_w, or its full draw when that
 * is higher. */
static int32_t zf_sm_max_limit_mw(const zf_sm_device *card) {
    int32_t busy = zf_sm_busy_mw(card);
    int32_t limit = (int32_t)(zf_sm_model(card)->power_limit_w * 1000u);
    return busy > limit ? busy : limit;
}

void zf_sm_power_start(zf_sm_device *sm) {
    sm->limit_enabled = true;
    sm->limit_mw = zf_sm_max_limit_mw(sm);
    sm->interval_ms = 1000;
    sm->throttled_ns = 0;
}

uint32_t zf_sm_full_compute_mw(const zf_sm_device *card) {
    return zf_sm_model(card)->tile_compute_w * 1000u;
}

/* The fraction of the full compute draw the limit leaves, in [0, 1]. */
static double zf_sm_throttle(const zf_sm_device *card) {
    if (!card->limit_enabled || card->limit_mw >= zf_sm_busy_mw(card))
        return 1.0;
    double spare = (double)(card->limit_mw - zf_sm_idle_mw(card));
    return spare <= 0 ? 0.0 : spare / (double)(zf_sm_busy_mw(card) - zf_sm_idle_mw(card));
}

uint32_t zf_sm_compute_mw(const zf_sm_device *card) {
    return (uint32_t)(zf_sm_full_compute_mw(card) * zf_sm_throttle(card));
}

static zf_sm_power *zf_sm_power_from(zes_pwr_handle_t handle) {
    return (zf_sm_power *)handle;
}

ze_result_t zfi_zesDeviceEnumPowerDomains(zes_device_handle_t hDevice, uint32_t *pCount, zes_pwr_handle_t *phPower) {
    zf_sm_device *sm;
    ze_result_t result = zf_sm_device_of(hDevice, &sm);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    zf_sm_fill_handles(pCount, sm->num_power, (void **)phPower, sm->power, sizeof sm->power[0]);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zesDeviceGetCardPowerDomain(zes_device_handle_t hDevice, zes_pwr_handle_t *phPower) {
    zf_sm_device *sm;
    ze_result_t result = zf_sm_device_of(hDevice, &sm);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    if (!sm->power[0].card)
        return zf_fail(ZE_RESULT_ERROR_UNSUPPORTED_FEATURE,
                       "a sub-device has no card power domain: ask its root device");
    *phPower = (zes_pwr_handle_t)&sm->power[0];
    return ZE_RESULT_SUCCESS;
}

/* The factory default of a domain's one limit, for zes_power_ext_properties_t.defaultLimit: a card's sustained limit
 * at its default over 1 s, fixed (every field locked); a tile has no limit (-1, disabled). */
static void zf_sm_default_limit(const zf_sm_power *power, zes_power_limit_ext_desc_t *d) {
    const zf_sm_device *card = zf_sm_card_of(power->owner);
    d->level = power->card ? ZES_POWER_LEVEL_SUSTAINED : ZES_POWER_LEVEL_UNKNOWN;
    d->source = ZES_POWER_SOURCE_ANY;
    d->limitUnit = ZES_LIMIT_UNIT_POWER;
    d->enabledStateLocked = true;
    d->enabled = power->card;
    d->intervalValueLocked = true;
    d->interval = power->card ? 1000 : -1;
    d->limitValueLocked = true;
    d->limit = power->card ? zf_sm_max_limit_mw(card) : -1;
}

/* Extension structures of zesPowerGetProperties: the domain's level (zes_power_ext_properties_t, with the factory
 * default limit when the caller points defaultLimit at a descriptor; zes_power_domain_exp_properties_t, 1.8). */
static void zf_sm_power_ext(const zf_sm_power *power, void *chain) {
    zes_power_domain_t domain = power->card ? ZES_POWER_DOMAIN_CARD : ZES_POWER_DOMAIN_STACK;
    zf_chain_foreach_out(ext, chain) {
        if ((uint32_t)ext->stype == ZES_STRUCTURE_TYPE_POWER_EXT_PROPERTIES) {
            zes_power_ext_properties_t *p = (zes_power_ext_properties_t *)ext;
            p->domain = domain;
            if (p->defaultLimit != NULL)
                zf_sm_default_limit(power, p->defaultLimit);
        }
#if ZF_L0_AT_LEAST(8)
        if ((uint32_t)ext->stype == ZES_STRUCTURE_TYPE_POWER_DOMAIN_EXP_PROPERTIES)
            ((zes_power_domain_exp_properties_t *)ext)->powerDomain = domain;
#endif
    }
}

ze_result_t zfi_zesPowerGetProperties(zes_pwr_handle_t hPower, zes_power_properties_t *pProperties) {
    const zf_sm_power *power = zf_sm_power_from(hPower);
    const zf_device *device = power->owner->device;
    bool tile = !power->card;
    pProperties->onSubdevice = tile;
    pProperties->subdeviceId = zf_sm_on_subdevice(device) ? device->subdevice_id : power->tile;
    const zf_sm_device *card = zf_sm_card_of(power->owner);
    pProperties->canControl = !tile; /* a card's sustained limit */
    pProperties->isEnergyThresholdSupported = true;
    pProperties->defaultLimit = tile ? -1 : zf_sm_max_limit_mw(card);
    pProperties->minLimit = tile ? -1 : zf_sm_idle_mw(card);
    pProperties->maxLimit = tile ? -1 : zf_sm_max_limit_mw(card);
    zf_sm_power_ext(power, zf_out_chain(pProperties, "pProperties", ZES_STRUCTURE_TYPE_POWER_PROPERTIES));
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zesPowerGetEnergyCounter(zes_pwr_handle_t hPower, zes_power_energy_counter_t *pEnergy) {
    const zf_sm_power *power = zf_sm_power_from(hPower);
    uint64_t now = zf_sm_host_us();
    zf_sm_lock();
    pEnergy->energy = zf_sm_energy_uj(power, now);
    zf_sm_unlock();
    pEnergy->timestamp = now;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zesPowerGetLimits(zes_pwr_handle_t hPower, zes_power_sustained_limit_t *pSustained,
                                  zes_power_burst_limit_t *pBurst, zes_power_peak_limit_t *pPeak) {
    const zf_sm_power *power = zf_sm_power_from(hPower);
    const zf_sm_device *card = zf_sm_card_of(power->owner);
    zf_sm_lock();
    if (pSustained != NULL)
        *pSustained = (zes_power_sustained_limit_t){.enabled = power->card && card->limit_enabled,
                                                    .power = power->card ? card->limit_mw : -1,
                                                    .interval = power->card ? card->interval_ms : -1};
    zf_sm_unlock();
    if (pBurst != NULL)
        *pBurst = (zes_power_burst_limit_t){.enabled = false, .power = -1};
    if (pPeak != NULL)
        *pPeak = (zes_power_peak_limit_t){.powerAC = -1, .powerDC = -1};
    return ZE_RESULT_SUCCESS;
}

/* The card's one limit, sustained (zesPowerGetLimits answers the same); a tile has none. */
ze_result_t zfi_zesPowerGetLimitsExt(zes_pwr_handle_t hPower, uint32_t *pCount,
                                     zes_power_limit_ext_desc_t *pSustained) {
    const zf_sm_power *power = zf_sm_power_from(hPower);
    const zf_sm_device *card = zf_sm_card_of(power->owner);
    uint32_t n = zf_count_query(pCount, power->card ? 1 : 0, pSustained);
    zf_sm_lock();
    for (uint32_t i = 0; i < n; i++) {
        zes_power_limit_ext_desc_t *d = &pSustained[i];
        d->level = ZES_POWER_LEVEL_SUSTAINED;
        d->source = ZES_POWER_SOURCE_ANY;
        d->limitUnit = ZES_LIMIT_UNIT_POWER;
        d->enabledStateLocked = false;
        d->enabled = card->limit_enabled;
        d->intervalValueLocked = false;
        d->interval = card->interval_ms;
        d->limitValueLocked = false;
        d->limit = card->limit_mw;
    }
    zf_sm_unlock();
    return ZE_RESULT_SUCCESS;
}

/* A sustained limit is settable on a card domain only (canControl), inside its range, over a positive interval. */
static ze_result_t zf_sm_check_limit(const zf_sm_power *power, int32_t limit_mw, int32_t interval_ms) {
    const zf_sm_device *card = zf_sm_card_of(power->owner);
    if (!power->card)
        return zf_fail(ZE_RESULT_ERROR_UNSUPPORTED_FEATURE,
                       "hPower is a tile's domain, which has no limit (zes_power_properties_t.canControl false)");
    if (limit_mw < zf_sm_idle_mw(card) || limit_mw > zf_sm_max_limit_mw(card))
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                       "the sustained limit %d mW leaves the domain's %d..%d mW (zesPowerGetProperties)", limit_mw,
                       zf_sm_idle_mw(card), zf_sm_max_limit_mw(card));
    if (interval_ms <= 0)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "the sustained limit's interval %d ms is not positive",
                       interval_ms);
    return ZE_RESULT_SUCCESS;
}

static void zf_sm_apply_limit(const zf_sm_power *power, bool enabled, int32_t limit_mw, int32_t interval_ms) {
    zf_sm_device *card = zf_sm_card_of(power->owner);
    zf_sm_lock();
    card->limit_enabled = enabled;
    card->limit_mw = limit_mw;
    card->interval_ms = interval_ms;
    zf_sm_update_clocks();
    zf_sm_unlock();
}

/* Only the sustained limit exists: a burst or peak limit can only be given as absent (disabled, -1). */
ze_result_t zfi_zesPowerSetLimits(zes_pwr_handle_t hPower, const zes_power_sustained_limit_t *pSustained,
                                  const zes_power_burst_limit_t *pBurst, const zes_power_peak_limit_t *pPeak) {
    const zf_sm_power *power = zf_sm_power_from(hPower);
    if (pBurst != NULL && pBurst->enabled)
        return zf_fail(ZE_RESULT_ERROR_UNSUPPORTED_FEATURE, "pBurst->enabled: the domain has no burst limit");
    if (pPeak != NULL && (pPeak->powerAC != -1 || pPeak->powerDC != -1))
        return zf_fail(ZE_RESULT_ERROR_UNSUPPORTED_FEATURE, "pPeak: the domain has no peak limit (powerAC/DC -1)");
    if (pSustained == NULL)
        return ZE_RESULT_SUCCESS;
    ze_result_t result = zf_sm_check_limit(power, pSustained->power, pSustained->interval);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    zf_sm_apply_limit(power, pSustained->enabled, pSustained->power, pSustained->interval);
    return ZE_RESULT_SUCCESS;
}

/* Every descriptor is checked before any is applied, then they are applied in order (zes_api.h). */
ze_result_t zfi_zesPowerSetLimitsExt(zes_pwr_handle_t hPower, uint32_t *pCount,
                                     zes_power_limit_ext_desc_t *pSustained) {
    const zf_sm_power *power = zf_sm_power_from(hPower);
    if (*pCount > 0 && pSustained == NULL)
        return zf_fail(ZE_RESULT_ERROR_INVALID_NULL_POINTER, "pSustained is NULL with *pCount %u", *pCount);
    for (uint32_t i = 0; i < *pCount; i++) {
        const zes_power_limit_ext_desc_t *d = &pSustained[i];
        if (d->level != ZES_POWER_LEVEL_SUSTAINED)
            return zf_fail(ZE_RESULT_ERROR_UNSUPPORTED_FEATURE,
                           "pSustained[%u].level %d: the domain has only a sustained limit", i, (int)d->level);
        ze_result_t result = zf_sm_check_limit(power, d->limit, d->interval);
        if (result != ZE_RESULT_SUCCESS)
            return result;
    }
    for (uint32_t i = 0; i < *pCount; i++)
        zf_sm_apply_limit(power, pSustained[i].enabled, pSustained[i].limit, pSustained[i].interval);
    return ZE_RESULT_SUCCESS;
}

/* Frequency: one GPU domain per device, from the scenario's min_frequency_mhz to its core clock rate. */
void zf_sm_freq_limits(const zf_sm_device *sm, double *min, double *max) {
    double bottom = zf_sm_model(sm)->min_frequency_mhz;
    *max = sm->device->desc->core_clock_rate_mhz;
    *min = *max < bottom ? *max : bottom;
}

static zf_sm_freq *zf_sm_freq_from(zes_freq_handle_t handle) {
    return (zf_sm_freq *)handle;
}

ze_result_t zfi_zesDeviceEnumFrequencyDomains(zes_device_handle_t hDevice, uint32_t *pCount,
                                              zes_freq_handle_t *phFrequency) {
    zf_sm_device *sm;
    ze_result_t result = zf_sm_device_of(hDevice, &sm);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    zf_sm_fill_card_and_tiles(pCount, (void **)phFrequency, sm, offsetof(zf_sm_device, freq));
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zesFrequencyGetProperties(zes_freq_handle_t hFrequency, zes_freq_properties_t *pProperties) {
    const zf_sm_freq *freq = zf_sm_freq_from(hFrequency);
    const zf_device *device = freq->owner->device;
    pProperties->type = ZES_FREQ_DOMAIN_GPU;
    pProperties->onSubdevice = zf_sm_on_subdevice(device);
    pProperties->subdeviceId = zf_sm_subdevice_id(device);
    pProperties->canControl = true;
    pProperties->isThrottleEventSupported = true;
    zf_sm_freq_limits(freq->owner, &pProperties->min, &pProperties->max);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zesFrequencyGetAvailableClocks(zes_freq_handle_t hFrequency, uint32_t *pCount, double *phFrequency) {
    double min, max;
    zf_sm_freq_limits(zf_sm_freq_from(hFrequency)->owner, &min, &max);
    double step = zf_sm_model(zf_sm_freq_from(hFrequency)->owner)->frequency_step_mhz;
    uint32_t available = (uint32_t)((max - min) / step) + 1u;
    uint32_t n = zf_count_query(pCount, available, phFrequency);
    for (uint32_t i = 0; i < n; i++)
        phFrequency[i] = min + i * step;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zesFrequencyGetRange(zes_freq_handle_t hFrequency, zes_freq_range_t *pLimits) {
    zf_sm_freq *freq = zf_sm_freq_from(hFrequency);
    zf_sm_lock();
    *pLimits = freq->range;
    zf_sm_unlock();
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zesFrequencySetRange(zes_freq_handle_t hFrequency, const zes_freq_range_t *pLimits) {
    zf_sm_freq *freq = zf_sm_freq_from(hFrequency);
    double min, max;
    zf_sm_freq_limits(freq->owner, &min, &max);
    if (!(pLimits->min <= pLimits->max))
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "pLimits->min %.1f is above pLimits->max %.1f", pLimits->min,
                       pLimits->max);
    if (pLimits->min < min || pLimits->max > max)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                       "the range %.1f..%.1f MHz leaves the domain's %.1f..%.1f MHz (zesFrequencyGetProperties)",
                       pLimits->min, pLimits->max, min, max);
    zf_sm_lock();
    freq->range = *pLimits;
    zf_sm_update_clocks();
    zf_sm_unlock();
    return ZE_RESULT_SUCCESS;
}

double zf_sm_busy_mhz(const zf_sm_device *sm) {
    zes_freq_range_t range = sm->freq.range;
    bool locked = false;
    double top = zf_sm_oc_top(&sm->freq, range.max, &locked);
    if (locked) /* the fixed overclock mode disables throttling */
        return top;
    if (sm->perf_factor < ZF_SM_PERF_NEUTRAL) /* a low factor trades speed for power (docs/sysman.md) */
        top = range.min + (top - range.min) * sm->perf_factor / ZF_SM_PERF_NEUTRAL;
    /* Throttled, the clock keeps the share of the range above its bottom that the limit leaves of the compute draw. */
    return range.min + (top - range.min) * zf_sm_throttle(zf_sm_card_of((zf_sm_device *)sm));
}

/* Why the busy clock is below the domain's maximum. */
static zes_freq_throttle_reason_flags_t zf_sm_throttle_reasons(const zf_sm_device *sm, double max) {
    zes_freq_throttle_reason_flags_t reasons = 0;
    if (zf_sm_throttle(zf_sm_card_of((zf_sm_device *)sm)) < 1.0)
        reasons |= ZES_FREQ_THROTTLE_REASON_FLAG_AVE_PWR_CAP;
    if (sm->freq.range.max < max || sm->perf_factor < ZF_SM_PERF_NEUTRAL)
        reasons |= ZES_FREQ_THROTTLE_REASON_FLAG_SW_RANGE;
    return reasons;
}

ze_result_t zfi_zesFrequencyGetState(zes_freq_handle_t hFrequency, zes_freq_state_t *pState) {
    zf_sm_freq *freq = zf_sm_freq_from(hFrequency);
    double min, max;
    zf_sm_freq_limits(freq->owner, &min, &max);
    bool busy = zf_sm_device_busy(freq->owner);
    zf_sm_lock();
    zes_freq_range_t range = freq->range;
    double busy_mhz = zf_sm_busy_mhz(freq->owner);
    bool locked = false;
    double request = zf_sm_oc_top(freq, range.max, &locked);
    zes_freq_throttle_reason_flags_t reasons = locked ? 0 : zf_sm_throttle_reasons(freq->owner, max);
    zf_sm_unlock();
    pState->currentVoltage = -1.0; /* not known */
    pState->request = request;
    pState->tdp = max;
    pState->efficient = min;
    pState->actual = busy || locked ? busy_mhz : range.min;
    pState->throttleReasons = busy ? reasons : 0;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zesFrequencyGetThrottleTime(zes_freq_handle_t hFrequency, zes_freq_throttle_time_t *pThrottleTime) {
    /* The device time the card's work ran throttled by its power limit, in µs like the timestamp. */
    zf_sm_device *card = zf_sm_card_of(zf_sm_freq_from(hFrequency)->owner);
    zf_sm_lock();
    pThrottleTime->throttleTime = card->throttled_ns / 1000u;
    zf_sm_unlock();
    pThrottleTime->timestamp = zf_sm_host_us();
    return ZE_RESULT_SUCCESS;
}

/* Temperature: one GPU sensor per device, T' = (ambient + K/W x P - T) / tau, P the average power of the device's
 * first domain since the last read. */
static zf_sm_temp *zf_sm_temp_from(zes_temp_handle_t handle) {
    return (zf_sm_temp *)handle;
}

ze_result_t zfi_zesDeviceEnumTemperatureSensors(zes_device_handle_t hDevice, uint32_t *pCount,
                                                zes_temp_handle_t *phTemperature) {
    zf_sm_device *sm;
    ze_result_t result = zf_sm_device_of(hDevice, &sm);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    zf_sm_fill_handles(pCount, 1, (void **)phTemperature, &sm->temp, sizeof sm->temp);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zesTemperatureGetProperties(zes_temp_handle_t hTemperature, zes_temp_properties_t *pProperties) {
    const zf_device *device = zf_sm_temp_from(hTemperature)->owner->device;
    pProperties->type = ZES_TEMP_SENSORS_GPU;
    pProperties->onSubdevice = zf_sm_on_subdevice(device);
    pProperties->subdeviceId = zf_sm_subdevice_id(device);
    pProperties->maxTemperature = zf_sm_max_temp_c(zf_sm_temp_from(hTemperature)->owner);
    pProperties->isCriticalTempSupported = true;
    pProperties->isThreshold1Supported = true;
    pProperties->isThreshold2Supported = true;
    return ZE_RESULT_SUCCESS;
}

void zf_sm_temp_start(zf_sm_temp *temp) {
    /* Settled at its domain's idle draw (a card's uncore included). */
    const zf_sm_power *power = &temp->owner->power[0];
    const zf_scenario_sysman *m = zf_sm_model(temp->owner);
    uint32_t idle_w =
        m->tile_idle_w * (power->card ? temp->owner->num_tiles : 1) + (power->card ? m->card_uncore_w : 0);
    temp->celsius = m->ambient_c + m->millikelvin_per_w / 1000.0 * idle_w;
    temp->energy_uj = 0;
    temp->updated_us = temp->owner->start_host_us;
    temp->config_pid = UINT32_MAX;
}

double zf_sm_max_temp_c(const zf_sm_device *sm) {
    return sm->freq.oc.tj_max_c; /* the scenario's, unless zesFrequencyOcSetTjMax changed it */
}

/* The most a domain can draw: every tile computing and copying, and the card's uncore. */
static double zf_sm_full_draw_w(const zf_sm_power *power) {
    uint32_t tiles = power->card ? power->owner->num_tiles : 1;
    const zf_scenario_sysman *m = zf_sm_model(power->owner);
    return tiles * (double)(m->tile_idle_w + m->tile_awake_w + m->tile_compute_w + m->tile_copy_w) +
           (power->card ? m->card_uncore_w : 0);
}

/* The sensor heats with the energy its domain drew, at most at the domain's full draw: energy counted at once for
 * work that ran long in device time (a command is counted when it completes) heats it over as long a host time. */
void zf_sm_temp_update(zf_sm_temp *temp, uint64_t now_us) {
    if (now_us <= temp->updated_us)
        return;
    const zf_sm_power *power = &temp->owner->power[0];
    double dt = (double)(now_us - temp->updated_us);
    double drawn = (double)(zf_sm_energy_uj(power, now_us) - temp->energy_uj);
    double used = drawn < zf_sm_full_draw_w(power) * dt ? drawn : zf_sm_full_draw_w(power) * dt;
    const zf_scenario_sysman *m = zf_sm_model(temp->owner);
    double target = m->ambient_c + m->millikelvin_per_w / 1000.0 * used / dt;
    temp->celsius += (target - temp->celsius) * (1.0 - exp(-dt / (m->thermal_tau_ms * 1000.0)));
    temp->energy_uj += (uint64_t)used;
    temp->updated_us = now_us;
}

double zf_sm_average_w(zf_sm_device *sm, uint64_t *since_uj, uint64_t *since_us, uint64_t now_us) {
    const zf_sm_power *power = &sm->power[0];
    uint64_t energy = zf_sm_energy_uj(power, now_us);
    double dt = (double)(now_us > *since_us ? now_us - *since_us : 0);
    double watts = dt > 0 && energy > *since_uj ? (double)(energy - *since_uj) / dt : 0.0;
    *since_uj = energy;
    *since_us = now_us;
    return watts < zf_sm_full_draw_w(power) ? watts : zf_sm_full_draw_w(power);
}

double zf_sm_max_limit_w(const zf_sm_device *sm) {
    return zf_sm_max_limit_mw(zf_sm_card_of((zf_sm_device *)sm)) / 1000.0;
}

ze_result_t zfi_zesTemperatureGetState(zes_temp_handle_t hTemperature, double *pTemperature) {
    zf_sm_temp *temp = zf_sm_temp_from(hTemperature);
    zf_sm_lock();
    zf_sm_temp_update(temp, zf_sm_host_us());
    *pTemperature = temp->celsius;
    zf_sm_unlock();
    return ZE_RESULT_SUCCESS;
}
