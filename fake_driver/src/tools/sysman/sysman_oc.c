/* Legacy overclocking of a frequency domain (zes_api.h, zesFrequencyOc*; deprecated by the header but still
 * answered): the capabilities the scenario's sysman.overclock gives the GPU domain (docs/sysman.md, "Overclocking").
 * A domain that cannot be overclocked (the shipped data-centre cards) answers ZE_RESULT_ERROR_UNSUPPORTED_FEATURE to
 * every function, the capabilities query included, as Intel's driver does on Linux. On one that can, the settings are
 * checked against the capabilities and take effect through the busy clock (sysman_power.c): OVERRIDE and
 * INTERPOLATIVE raise its top to the frequency target, FIXED locks the clock there and disables throttling, so the
 * cost model runs the device's kernels at that clock; a lowered TjMax moves the temperature sensor's maximum and its
 * critical temperature. The settings belong to the calling process. */
#include "core/zf_chain.h"
#include "tools/sysman/zf_sysman.h"

#include <math.h>

/* The multiple frequencies are set in without the extended mode (the header: "in multiples of 50 Mhz"). */
#define ZF_SM_OC_STEP_MHZ 50.0

/* The highest IccMax a domain takes, as a multiple of its factory value (docs/sysman.md). */
#define ZF_SM_OC_ICC_HEADROOM 1.5

static zf_sm_freq *zf_sm_oc_freq(zes_freq_handle_t handle) {
    return (zf_sm_freq *)handle;
}

static const zf_scenario_overclock *zf_sm_oc_model(const zf_sm_freq *freq) {
    return &freq->owner->device->desc->sysman.overclock;
}

void zf_sm_oc_start(zf_sm_freq *freq) {
    const zf_scenario_sysman *m = &freq->owner->device->desc->sysman;
    double min, max;
    zf_sm_freq_limits(freq->owner, &min, &max);
    freq->oc = (zf_sm_oc){.mode = ZES_OC_MODE_OFF,
                          .frequency_mhz = max,
                          .voltage_v = m->overclock.default_voltage_mv / 1000.0,
                          .offset_v = 0.0,
                          .icc_max_a = m->overclock.icc_max_a,
                          .tj_max_c = m->max_temperature_c};
}

double zf_sm_oc_top(const zf_sm_freq *freq, double top, bool *locked) {
    *locked = freq->oc.mode == ZES_OC_MODE_FIXED;
    if (freq->oc.mode == ZES_OC_MODE_OFF)
        return top;
    double min, max;
    zf_sm_freq_limits(freq->owner, &min, &max);
    /* A range set below the domain's maximum still caps the clock, except in FIXED mode. */
    return *locked || top >= max ? freq->oc.frequency_mhz : top;
}

/* Every function first: a domain the scenario does not let overclock answers as Intel's driver does. */
static ze_result_t zf_sm_oc_require(const zf_sm_freq *freq) {
    if (!zf_sm_oc_model(freq)->supported)
        return zf_fail(ZE_RESULT_ERROR_UNSUPPORTED_FEATURE,
                       "%s: the frequency domain cannot be overclocked (scenario sysman.overclock.supported is false), "
                       "as Intel's driver answers on Linux",
                       freq->owner->device->desc->name);
    return ZE_RESULT_SUCCESS;
}

static double zf_sm_oc_offset_v(const zf_sm_freq *freq) {
    return zf_sm_oc_model(freq)->voltage_offset_mv / 1000.0;
}

ze_result_t zfi_zesFrequencyOcGetCapabilities(zes_freq_handle_t hFrequency, zes_oc_capabilities_t *pOcCapabilities) {
    const zf_sm_freq *freq = zf_sm_oc_freq(hFrequency);
    ze_result_t result = zf_sm_oc_require(freq);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    const zf_scenario_overclock *m = zf_sm_oc_model(freq);
    double min, max;
    zf_sm_freq_limits(freq->owner, &min, &max);
    zes_oc_capabilities_t *c = pOcCapabilities;
    zf_out_check(c, "pOcCapabilities", ZES_STRUCTURE_TYPE_OC_CAPABILITIES);
    c->isOcSupported = true;
    c->maxFactoryDefaultFrequency = max;
    c->maxFactoryDefaultVoltage = m->default_voltage_mv / 1000.0;
    c->maxOcFrequency = m->max_frequency_mhz;
    c->minOcVoltageOffset = -zf_sm_oc_offset_v(freq);
    c->maxOcVoltageOffset = zf_sm_oc_offset_v(freq);
    c->maxOcVoltage = m->max_voltage_mv / 1000.0;
    c->isTjMaxSupported = m->tjmax;
    c->isIccMaxSupported = m->icc_max_a > 0;
    c->isHighVoltModeCapable = false;
    c->isHighVoltModeEnabled = false;
    c->isExtendedModeSupported = m->extended;
    c->isFixedModeSupported = m->fixed_mode;
    return ZE_RESULT_SUCCESS;
}

/* Reads one setting under the lock, once the domain is known to be overclockable. */
static ze_result_t zf_sm_oc_read(const zf_sm_freq *freq, const double *setting, double *out) {
    ze_result_t result = zf_sm_oc_require(freq);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    zf_sm_lock();
    *out = *setting;
    zf_sm_unlock();
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zesFrequencyOcGetFrequencyTarget(zes_freq_handle_t hFrequency, double *pCurrentOcFrequency) {
    const zf_sm_freq *freq = zf_sm_oc_freq(hFrequency);
    return zf_sm_oc_read(freq, &freq->oc.frequency_mhz, pCurrentOcFrequency);
}

/* A target within the domain's minimum and maxOcFrequency (above it: the header's UNSUPPORTED_FEATURE), in whole
 * MHz with the extended mode, else in multiples of 50 MHz. */
static ze_result_t zf_sm_oc_check_frequency(const zf_sm_freq *freq, double mhz) {
    const zf_scenario_overclock *m = zf_sm_oc_model(freq);
    double min, max;
    zf_sm_freq_limits(freq->owner, &min, &max);
    if (isnan(mhz) || mhz < min)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                       "CurrentOcFrequency %g MHz is below the domain's minimum %g MHz", mhz, min);
    if (mhz > m->max_frequency_mhz)
        return zf_fail(ZE_RESULT_ERROR_UNSUPPORTED_FEATURE,
                       "CurrentOcFrequency %g MHz exceeds maxOcFrequency %u MHz (zesFrequencyOcGetCapabilities)", mhz,
                       m->max_frequency_mhz);
    double step = m->extended ? 1.0 : ZF_SM_OC_STEP_MHZ;
    if (fmod(mhz, step) != 0.0)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                       "CurrentOcFrequency %g MHz is not a multiple of %g MHz (isExtendedModeSupported is %s)", mhz,
                       step, m->extended ? "true" : "false");
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zesFrequencyOcSetFrequencyTarget(zes_freq_handle_t hFrequency, double CurrentOcFrequency) {
    zf_sm_freq *freq = zf_sm_oc_freq(hFrequency);
    ze_result_t result = zf_sm_oc_require(freq);
    if (result == ZE_RESULT_SUCCESS)
        result = zf_sm_oc_check_frequency(freq, CurrentOcFrequency);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    zf_sm_lock();
    freq->oc.frequency_mhz = CurrentOcFrequency;
    zf_sm_update_clocks();
    zf_sm_unlock();
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zesFrequencyOcGetVoltageTarget(zes_freq_handle_t hFrequency, double *pCurrentVoltageTarget,
                                               double *pCurrentVoltageOffset) {
    const zf_sm_freq *freq = zf_sm_oc_freq(hFrequency);
    ze_result_t result = zf_sm_oc_require(freq);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    zf_sm_lock();
    *pCurrentVoltageTarget = freq->oc.voltage_v;
    *pCurrentVoltageOffset = freq->oc.offset_v;
    zf_sm_unlock();
    return ZE_RESULT_SUCCESS;
}

/* A voltage above 0 and at most maxOcVoltage, an offset within minOcVoltageOffset..maxOcVoltageOffset (beyond the
 * hardware's values: the header's UNSUPPORTED_FEATURE). */
static ze_result_t zf_sm_oc_check_voltage(const zf_sm_freq *freq, double volts, double offset) {
    double top = zf_sm_oc_model(freq)->max_voltage_mv / 1000.0, range = zf_sm_oc_offset_v(freq);
    if (isnan(volts) || volts <= 0.0)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "CurrentVoltageTarget %g V is not above 0 V", volts);
    if (volts > top)
        return zf_fail(ZE_RESULT_ERROR_UNSUPPORTED_FEATURE,
                       "CurrentVoltageTarget %g V exceeds maxOcVoltage %g V (zesFrequencyOcGetCapabilities)", volts,
                       top);
    if (isnan(offset) || offset < -range || offset > range)
        return zf_fail(ZE_RESULT_ERROR_UNSUPPORTED_FEATURE,
                       "CurrentVoltageOffset %g V leaves minOcVoltageOffset..maxOcVoltageOffset (%g..%g V)", offset,
                       -range, range);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zesFrequencyOcSetVoltageTarget(zes_freq_handle_t hFrequency, double CurrentVoltageTarget,
                                               double CurrentVoltageOffset) {
    zf_sm_freq *freq = zf_sm_oc_freq(hFrequency);
    ze_result_t result = zf_sm_oc_require(freq);
    if (result == ZE_RESULT_SUCCESS)
        result = zf_sm_oc_check_voltage(freq, CurrentVoltageTarget, CurrentVoltageOffset);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    zf_sm_lock();
    freq->oc.voltage_v = CurrentVoltageTarget;
    freq->oc.offset_v = CurrentVoltageOffset;
    zf_sm_unlock();
    return ZE_RESULT_SUCCESS;
}

/* Each mode disables the others (the header), so one mode is in effect at a time; FIXED only where offered. */
ze_result_t zfi_zesFrequencyOcSetMode(zes_freq_handle_t hFrequency, zes_oc_mode_t CurrentOcMode) {
    zf_sm_freq *freq = zf_sm_oc_freq(hFrequency);
    ze_result_t result = zf_sm_oc_require(freq);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    if (CurrentOcMode == ZES_OC_MODE_FIXED && !zf_sm_oc_model(freq)->fixed_mode)
        return zf_fail(ZE_RESULT_ERROR_UNSUPPORTED_FEATURE,
                       "ZES_OC_MODE_FIXED is not offered (zes_oc_capabilities_t.isFixedModeSupported is false)");
    zf_sm_lock();
    freq->oc.mode = CurrentOcMode;
    zf_sm_update_clocks();
    zf_sm_unlock();
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zesFrequencyOcGetMode(zes_freq_handle_t hFrequency, zes_oc_mode_t *pCurrentOcMode) {
    const zf_sm_freq *freq = zf_sm_oc_freq(hFrequency);
    ze_result_t result = zf_sm_oc_require(freq);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    zf_sm_lock();
    *pCurrentOcMode = freq->oc.mode;
    zf_sm_unlock();
    return ZE_RESULT_SUCCESS;
}

static ze_result_t zf_sm_oc_require_icc(const zf_sm_freq *freq) {
    ze_result_t result = zf_sm_oc_require(freq);
    if (result == ZE_RESULT_SUCCESS && zf_sm_oc_model(freq)->icc_max_a == 0)
        return zf_fail(ZE_RESULT_ERROR_UNSUPPORTED_FEATURE,
                       "IccMax cannot be changed on this domain (zes_oc_capabilities_t.isIccMaxSupported is false)");
    return result;
}

ze_result_t zfi_zesFrequencyOcGetIccMax(zes_freq_handle_t hFrequency, double *pOcIccMax) {
    const zf_sm_freq *freq = zf_sm_oc_freq(hFrequency);
    ze_result_t result = zf_sm_oc_require_icc(freq);
    return result == ZE_RESULT_SUCCESS ? zf_sm_oc_read(freq, &freq->oc.icc_max_a, pOcIccMax) : result;
}

/* 0 restores the factory IccMax (the header); another value lies above 0 and at most 1.5 times the factory's. */
ze_result_t zfi_zesFrequencyOcSetIccMax(zes_freq_handle_t hFrequency, double ocIccMax) {
    zf_sm_freq *freq = zf_sm_oc_freq(hFrequency);
    ze_result_t result = zf_sm_oc_require_icc(freq);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    double factory = zf_sm_oc_model(freq)->icc_max_a, top = factory * ZF_SM_OC_ICC_HEADROOM;
    if (isnan(ocIccMax) || ocIccMax < 0.0 || ocIccMax > top)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                       "ocIccMax %g A is too low or too high: 0 (the factory %g A) or above 0 up to %g A", ocIccMax,
                       factory, top);
    zf_sm_lock();
    freq->oc.icc_max_a = ocIccMax == 0.0 ? factory : ocIccMax;
    zf_sm_unlock();
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zesFrequencyOcGetTjMax(zes_freq_handle_t hFrequency, double *pOcTjMax) {
    const zf_sm_freq *freq = zf_sm_oc_freq(hFrequency);
    return zf_sm_oc_read(freq, &freq->oc.tj_max_c, pOcTjMax);
}

/* 0 restores the factory TjMax (the header); another value lies above the thermal model's ambient + 5 K (the
 * critical temperature stays above the ambient) and at most the factory TjMax (above it: "too high"). */
ze_result_t zfi_zesFrequencyOcSetTjMax(zes_freq_handle_t hFrequency, double ocTjMax) {
    zf_sm_freq *freq = zf_sm_oc_freq(hFrequency);
    ze_result_t result = zf_sm_oc_require(freq);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    if (!zf_sm_oc_model(freq)->tjmax)
        return zf_fail(ZE_RESULT_ERROR_UNSUPPORTED_FEATURE,
                       "TjMax cannot be changed on this domain (zes_oc_capabilities_t.isTjMaxSupported is false)");
    const zf_scenario_sysman *m = &freq->owner->device->desc->sysman;
    double bottom = m->ambient_c + 5.0, factory = m->max_temperature_c;
    if (isnan(ocTjMax) || (ocTjMax != 0.0 && (ocTjMax <= bottom || ocTjMax > factory)))
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                       "ocTjMax %g °C: 0 (the factory %g °C) or above %g °C up to the factory's", ocTjMax, factory,
                       bottom);
    zf_sm_lock();
    freq->oc.tj_max_c = ocTjMax == 0.0 ? factory : ocTjMax;
    zf_sm_check_all(); /* the critical temperature moved with it */
    zf_sm_unlock();
    return ZE_RESULT_SUCCESS;
}
