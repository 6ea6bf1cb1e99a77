/* Sysman thresholds and the events they raise (zes_api.h, "Power management", "Temperature", "RAS"), all crossings
 * following from the model of docs/sysman.md:
 * - energy: zesPowerSetEnergyThreshold arms a threshold on the energy a domain draws from that call on; reaching it
 *   raises ZES_EVENT_TYPE_FLAG_ENERGY_THRESHOLD_CROSSED once and removes it, as the header says;
 * - temperature: the critical temperature and thresholds 1 and 2 raise their events when the thermal model crosses
 *   them in an enabled direction;
 * - RAS: an error set's total or category count since its last clear going above a threshold raises the RAS event
 *   of its type.
 * Crossings are checked when a command completes, a reset is counted, a configuration changes and, while a listener
 * waits, every ZF_SM_CHECK_MS (sysman_events.c): idle energy and cooling need no command to cross a threshold. */
#include "tools/sysman/zf_sysman.h"

#include <unistd.h>

/* The critical temperature: 5 K below TjMax. */
#define ZF_SM_CRITICAL_MARGIN_C 5.0

static zf_sm_power *zf_sm_power_from(zes_pwr_handle_t handle) {
    return (zf_sm_power *)handle;
}

static zf_sm_temp *zf_sm_temp_from(zes_temp_handle_t handle) {
    return (zf_sm_temp *)handle;
}

ze_result_t zfi_zesPowerGetEnergyThreshold(zes_pwr_handle_t hPower, zes_energy_threshold_t *pThreshold) {
    const zf_sm_power *power = zf_sm_power_from(hPower);
    zf_sm_lock();
    pThreshold->enable = power->threshold_armed;
    pThreshold->threshold = power->threshold_armed ? power->threshold_j : 0.0;
    pThreshold->processId = power->threshold_armed ? power->threshold_pid : UINT32_MAX;
    zf_sm_unlock();
    return ZE_RESULT_SUCCESS;
}

/* A threshold of 0 J removes the armed one; any other (positive, finite) value arms a new one from now. */
ze_result_t zfi_zesPowerSetEnergyThreshold(zes_pwr_handle_t hPower, double threshold) {
    zf_sm_power *power = zf_sm_power_from(hPower);
    if (!(threshold >= 0.0 && threshold < 1e15))
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                       "threshold %g J is not a finite energy of 0 (remove the threshold) or more", threshold);
    uint64_t now = zf_sm_host_us();
    zf_sm_lock();
    power->threshold_armed = threshold > 0.0;
    power->threshold_j = threshold;
    power->threshold_base_uj = zf_sm_energy_uj(power, now);
    power->threshold_pid = (uint32_t)getpid();
    zf_sm_unlock();
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zesTemperatureGetConfig(zes_temp_handle_t hTemperature, zes_temp_config_t *pConfig) {
    const zf_sm_temp *temp = zf_sm_temp_from(hTemperature);
    zf_sm_lock();
    pConfig->enableCritical = temp->config.enableCritical;
    pConfig->threshold1 = temp->config.threshold1;
    pConfig->threshold2 = temp->config.threshold2;
    zf_sm_unlock();
    return ZE_RESULT_SUCCESS;
}

/* An enabled threshold must lie below TjMax (the header's INVALID_ARGUMENT). */
static ze_result_t zf_sm_check_temp_threshold(const zf_sm_temp *temp, const zes_temp_threshold_t *t, const char *name) {
    bool enabled = t->enableLowToHigh || t->enableHighToLow;
    double tjmax = zf_sm_max_temp_c(temp->owner);
    if (enabled && !(t->threshold < tjmax && t->threshold > -273.15))
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                       "pConfig->%s.threshold %g °C is not below TjMax %g °C (zes_temp_properties_t.maxTemperature)",
                       name, t->threshold, tjmax);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zesTemperatureSetConfig(zes_temp_handle_t hTemperature, const zes_temp_config_t *pConfig) {
    zf_sm_temp *temp = zf_sm_temp_from(hTemperature);
    ze_result_t result = zf_sm_check_temp_threshold(temp, &pConfig->threshold1, "threshold1");
    if (result == ZE_RESULT_SUCCESS)
        result = zf_sm_check_temp_threshold(temp, &pConfig->threshold2, "threshold2");
    if (result != ZE_RESULT_SUCCESS)
        return result;
    uint64_t now = zf_sm_host_us();
    zf_sm_lock();
    zf_sm_temp_update(temp, now);
    temp->config = (zes_temp_config_t){.enableCritical = pConfig->enableCritical,
                                       .threshold1 = pConfig->threshold1,
                                       .threshold2 = pConfig->threshold2};
    temp->config_pid = (uint32_t)getpid();
    /* Crossings count from the temperature now. */
    temp->above[0] = temp->celsius >= zf_sm_max_temp_c(temp->owner) - ZF_SM_CRITICAL_MARGIN_C;
    temp->above[1] = temp->celsius >= pConfig->threshold1.threshold;
    temp->above[2] = temp->celsius >= pConfig->threshold2.threshold;
    zf_sm_unlock();
    return ZE_RESULT_SUCCESS;
}

static void zf_sm_check_energy(zf_sm_power *power, uint64_t now_us) {
    if (!power->threshold_armed)
        return;
    uint64_t drawn = zf_sm_energy_uj(power, now_us) - power->threshold_base_uj;
    if ((double)drawn < power->threshold_j * 1e6)
        return;
    power->threshold_armed = false; /* reached: removed (zes_api.h) */
    zf_sm_raise(power->owner, ZES_EVENT_TYPE_FLAG_ENERGY_THRESHOLD_CROSSED);
}

/* Whether a crossing of `threshold` from `was_above` to the temperature now raises its event. */
static bool zf_sm_crossed(bool *was_above, double celsius, double threshold, bool up, bool down) {
    bool above = celsius >= threshold;
    bool raised = (above && !*was_above && up) || (!above && *was_above && down);
    *was_above = above;
    return raised;
}

static void zf_sm_check_temp(zf_sm_temp *temp, uint64_t now_us) {
    const zes_temp_config_t *c = &temp->config;
    if (!c->enableCritical && !c->threshold1.enableLowToHigh && !c->threshold1.enableHighToLow &&
        !c->threshold2.enableLowToHigh && !c->threshold2.enableHighToLow)
        return;
    zf_sm_temp_update(temp, now_us);
    double t = temp->celsius;
    zes_event_type_flags_t events = 0;
    if (zf_sm_crossed(&temp->above[0], t, zf_sm_max_temp_c(temp->owner) - ZF_SM_CRITICAL_MARGIN_C, c->enableCritical,
                      false))
        events |= ZES_EVENT_TYPE_FLAG_TEMP_CRITICAL;
    if (zf_sm_crossed(&temp->above[1], t, c->threshold1.threshold, c->threshold1.enableLowToHigh,
                      c->threshold1.enableHighToLow))
        events |= ZES_EVENT_TYPE_FLAG_TEMP_THRESHOLD1;
    if (zf_sm_crossed(&temp->above[2], t, c->threshold2.threshold, c->threshold2.enableLowToHigh,
                      c->threshold2.enableHighToLow))
        events |= ZES_EVENT_TYPE_FLAG_TEMP_THRESHOLD2;
    if (events != 0)
        zf_sm_raise(temp->owner, events);
}

/* Whether a count newly went above an enabled threshold (0 disables it). */
static bool zf_sm_went_over(bool *was_over, uint64_t count, uint64_t threshold) {
    bool over = threshold != 0 && count > threshold;
    bool raised = over && !*was_over;
    *was_over = over;
    return raised;
}

static void zf_sm_check_ras(zf_sm_ras *ras) {
    uint64_t counts[ZES_MAX_RAS_ERROR_CATEGORY_COUNT];
    zf_sm_ras_counts(ras, counts);
    uint64_t total = 0;
    bool raised = false;
    for (uint32_t c = 0; c < ZES_MAX_RAS_ERROR_CATEGORY_COUNT; c++) {
        total += counts[c];
        raised |= zf_sm_went_over(&ras->over[c], counts[c], ras->config.detailedThresholds.category[c]);
    }
    raised |= zf_sm_went_over(&ras->over_total, total, ras->config.totalThreshold);
    if (raised)
        zf_sm_raise(ras->owner, ras->type == ZES_RAS_ERROR_TYPE_CORRECTABLE
                                    ? ZES_EVENT_TYPE_FLAG_RAS_CORRECTABLE_ERRORS
                                    : ZES_EVENT_TYPE_FLAG_RAS_UNCORRECTABLE_ERRORS);
}

void zf_sm_check_thresholds(zf_sm_device *sm, uint64_t now_us) {
    for (uint32_t i = 0; i < sm->num_power; i++)
        zf_sm_check_energy(&sm->power[i], now_us);
    zf_sm_check_temp(&sm->temp, now_us);
    for (uint32_t i = 0; i < 2; i++)
        zf_sm_check_ras(&sm->ras[i]);
}
