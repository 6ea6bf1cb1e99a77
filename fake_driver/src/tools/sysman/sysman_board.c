/* The board's components (zes_api.h, "Fans", "LEDs", "Power supplies"): the fans, LEDs and power supplies the
 * scenario gives a device reported as a card (docs/sysman.md, "Fans, LEDs and power supplies"; docs/scenarios.md,
 * sysman.fans, leds, psus). Their readings follow the one thermal and power model of sysman_power.c: a fan's speed
 * follows the device's temperature (its default ramp, or the speed table set), a power supply's current is the card's
 * average power at its voltage and its heatsink warms with the card. The settings belong to the calling process. */
#include "core/zf_chain.h"
#include "tools/sysman/zf_sysman.h"

#include <math.h>
#include <stdio.h>

static zf_sm_fan *zf_sm_fan_from(zes_fan_handle_t handle) {
    return (zf_sm_fan *)handle;
}

static zf_sm_led *zf_sm_led_from(zes_led_handle_t handle) {
    return (zf_sm_led *)handle;
}

static zf_sm_psu *zf_sm_psu_from(zes_psu_handle_t handle) {
    return (zf_sm_psu *)handle;
}

static bool zf_sm_board_register(zf_object *object, zf_obj_type type, zf_sm_device *sm) {
    return zf_object_register(object, type, &sm->device->header);
}

/* A fan starts in its default mode, with no fixed speed and no table; an LED on, white when it has colours. */
bool zf_sm_board_start(zf_sm_device *sm) {
    if (zf_device_reported_as_subdevice(sm->device)) /* the board's components belong to the card */
        return true;
    const zf_scenario_sysman *m = &sm->device->desc->sysman;
    bool ok = true;
    for (uint32_t i = 0; i < m->num_fans; i++) {
        zf_sm_fan *fan = &sm->fans[sm->num_fans++];
        *fan = (zf_sm_fan){.owner = sm, .model = &m->fans[i], .mode = ZES_FAN_SPEED_MODE_DEFAULT};
        fan->fixed = (zes_fan_speed_t){.speed = -1, .units = ZES_FAN_SPEED_UNITS_PERCENT};
        ok &= zf_sm_board_register(&fan->header, ZF_OBJ_ZES_FAN, sm);
    }
    for (uint32_t i = 0; i < m->num_leds; i++) {
        zf_sm_led *led = &sm->leds[sm->num_leds++];
        double c = m->leds[i].rgb ? 1.0 : -1.0; /* a single-colour LED's colour is not known */
        *led = (zf_sm_led){.owner = sm, .model = &m->leds[i], .on = true, .color = {c, c, c}};
        ok &= zf_sm_board_register(&led->header, ZF_OBJ_ZES_LED, sm);
    }
    for (uint32_t i = 0; i < m->num_psus; i++) {
        zf_sm_psu *psu = &sm->psus[sm->num_psus++];
        *psu = (zf_sm_psu){.owner = sm, .model = &m->psus[i], .read_us = sm->start_host_us};
        ok &= zf_sm_board_register(&psu->header, ZF_OBJ_ZES_PSU, sm);
    }
    return ok;
}

/* ---- Fans ------------------------------------------------------------------------------------------------------ */

ze_result_t zfi_zesDeviceEnumFans(zes_device_handle_t hDevice, uint32_t *pCount, zes_fan_handle_t *phFan) {
    zf_sm_device *sm;
    ze_result_t result = zf_sm_device_of(hDevice, &sm);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    zf_sm_fill_handles(pCount, sm->num_fans, (void **)phFan, sm->fans, sizeof sm->fans[0]);
    return ZE_RESULT_SUCCESS;
}

static bool zf_sm_fan_has_table(const zf_sm_fan *fan) {
    return fan->model->max_points > 0;
}

ze_result_t zfi_zesFanGetProperties(zes_fan_handle_t hFan, zes_fan_properties_t *pProperties) {
    const zf_sm_fan *fan = zf_sm_fan_from(hFan);
    zf_out_check(pProperties, "pProperties", ZES_STRUCTURE_TYPE_FAN_PROPERTIES);
    pProperties->onSubdevice = false;
    pProperties->subdeviceId = 0;
    pProperties->canControl = true;
    pProperties->supportedModes = (1u << ZES_FAN_SPEED_MODE_DEFAULT) | (1u << ZES_FAN_SPEED_MODE_FIXED) |
                                  (zf_sm_fan_has_table(fan) ? 1u << ZES_FAN_SPEED_MODE_TABLE : 0);
    pProperties->supportedUnits = (1u << ZES_FAN_SPEED_UNITS_RPM) | (1u << ZES_FAN_SPEED_UNITS_PERCENT);
    pProperties->maxRPM = (int32_t)fan->model->max_rpm;
    pProperties->maxPoints = zf_sm_fan_has_table(fan) ? (int32_t)fan->model->max_points : -1;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zesFanGetConfig(zes_fan_handle_t hFan, zes_fan_config_t *pConfig) {
    const zf_sm_fan *fan = zf_sm_fan_from(hFan);
    zf_out_check(pConfig, "pConfig", ZES_STRUCTURE_TYPE_FAN_CONFIG);
    zf_sm_lock();
    pConfig->mode = fan->mode;
    pConfig->speedFixed = fan->fixed;
    pConfig->speedTable = fan->table;
    zf_sm_unlock();
    if (!zf_sm_fan_has_table(fan))
        pConfig->speedTable.numPoints = -1; /* the header: no table supported by the hardware */
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zesFanSetDefaultMode(zes_fan_handle_t hFan) {
    zf_sm_fan *fan = zf_sm_fan_from(hFan);
    zf_sm_lock();
    fan->mode = ZES_FAN_SPEED_MODE_DEFAULT;
    zf_sm_unlock();
    return ZE_RESULT_SUCCESS;
}

/* A speed the fan can run at: its units supported (both are), its value within 0..100 % or 0..maxRPM. */
static ze_result_t zf_sm_fan_check_speed(const zf_sm_fan *fan, const zes_fan_speed_t *speed, const char *arg) {
    if (speed->units != ZES_FAN_SPEED_UNITS_RPM && speed->units != ZES_FAN_SPEED_UNITS_PERCENT)
        return zf_fail(ZE_RESULT_ERROR_UNSUPPORTED_FEATURE,
                       "%s.units %u is not a zes_fan_speed_units_t the fan supports (supportedUnits)", arg,
                       (unsigned)speed->units);
    int32_t top = speed->units == ZES_FAN_SPEED_UNITS_PERCENT ? 100 : (int32_t)fan->model->max_rpm;
    if (speed->speed < 0 || speed->speed > top)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "%s.speed %d is outside 0..%d %s", arg, speed->speed, top,
                       speed->units == ZES_FAN_SPEED_UNITS_PERCENT ? "%" : "rpm (maxRPM)");
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zesFanSetFixedSpeedMode(zes_fan_handle_t hFan, const zes_fan_speed_t *speed) {
    zf_sm_fan *fan = zf_sm_fan_from(hFan);
    ze_result_t result = zf_sm_fan_check_speed(fan, speed, "speed");
    if (result != ZE_RESULT_SUCCESS)
        return result;
    zf_sm_lock();
    fan->mode = ZES_FAN_SPEED_MODE_FIXED;
    fan->fixed = *speed;
    zf_sm_unlock();
    return ZE_RESULT_SUCCESS;
}

/* A table of 1..maxPoints points, each a speed the fan can run at, at temperatures from lowest to highest (each
 * listed once: two speeds for one temperature would make the table ambiguous). */
static ze_result_t zf_sm_fan_check_table(const zf_sm_fan *fan, const zes_fan_speed_table_t *t) {
    if (!zf_sm_fan_has_table(fan))
        return zf_fail(ZE_RESULT_ERROR_UNSUPPORTED_FEATURE,
                       "the fan has no speed table mode (zes_fan_properties_t.maxPoints is -1)");
    if (t->numPoints < 1 || t->numPoints > (int32_t)fan->model->max_points)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "speedTable->numPoints %d is outside 1..%u (maxPoints)",
                       t->numPoints, fan->model->max_points);
    for (int32_t i = 0; i < t->numPoints; i++) {
        char arg[48];
        snprintf(arg, sizeof arg, "speedTable->table[%d].speed", i);
        ze_result_t result = zf_sm_fan_check_speed(fan, &t->table[i].speed, arg);
        if (result != ZE_RESULT_SUCCESS)
            return result;
        if (i > 0 && t->table[i].temperature <= t->table[i - 1].temperature)
            return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                           "speedTable->table[%d].temperature %u is not above table[%d]'s %u: the pairs must be "
                           "sorted on temperature from lowest to highest",
                           i, t->table[i].temperature, i - 1, t->table[i - 1].temperature);
    }
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zesFanSetSpeedTableMode(zes_fan_handle_t hFan, const zes_fan_speed_table_t *speedTable) {
    zf_sm_fan *fan = zf_sm_fan_from(hFan);
    ze_result_t result = zf_sm_fan_check_table(fan, speedTable);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    zf_sm_lock();
    fan->mode = ZES_FAN_SPEED_MODE_TABLE;
    fan->table = (zes_fan_speed_table_t){.numPoints = speedTable->numPoints};
    for (int32_t i = 0; i < speedTable->numPoints; i++)
        fan->table.table[i] = speedTable->table[i];
    zf_sm_unlock();
    return ZE_RESULT_SUCCESS;
}

static double zf_sm_fan_percent_of(const zf_sm_fan *fan, zes_fan_speed_t speed) {
    return speed.units == ZES_FAN_SPEED_UNITS_PERCENT ? speed.speed : 100.0 * speed.speed / fan->model->max_rpm;
}

/* The default mode: min_percent up to ramp_start_c, then a straight ramp to full speed at the critical temperature. */
static double zf_sm_fan_default_percent(const zf_sm_fan *fan, double celsius) {
    double start = fan->model->ramp_start_c;
    double critical = zf_sm_max_temp_c(fan->owner) - 5.0;
    double f = (celsius - start) / (critical - start);
    f = f < 0.0 ? 0.0 : (f > 1.0 ? 1.0 : f);
    return fan->model->min_percent + (100.0 - fan->model->min_percent) * f;
}

/* The table mode: the speed of the points around the temperature, interpolated; the end points' beyond them. */
static double zf_sm_fan_table_percent(const zf_sm_fan *fan, double celsius) {
    const zes_fan_speed_table_t *t = &fan->table;
    int32_t last = t->numPoints - 1;
    if (celsius <= t->table[0].temperature)
        return zf_sm_fan_percent_of(fan, t->table[0].speed);
    for (int32_t i = 1; i <= last; i++) {
        if (celsius > t->table[i].temperature)
            continue;
        double lo = zf_sm_fan_percent_of(fan, t->table[i - 1].speed), hi = zf_sm_fan_percent_of(fan, t->table[i].speed);
        double f = (celsius - t->table[i - 1].temperature) / (t->table[i].temperature - t->table[i - 1].temperature);
        return lo + (hi - lo) * f;
    }
    return zf_sm_fan_percent_of(fan, t->table[last].speed);
}

/* The fan's speed now, % of its maximum (lock held): its mode's at the device's temperature. */
static double zf_sm_fan_percent(zf_sm_fan *fan) {
    if (fan->mode == ZES_FAN_SPEED_MODE_FIXED)
        return zf_sm_fan_percent_of(fan, fan->fixed);
    zf_sm_temp_update(&fan->owner->temp, zf_sm_host_us());
    double celsius = fan->owner->temp.celsius;
    return fan->mode == ZES_FAN_SPEED_MODE_TABLE ? zf_sm_fan_table_percent(fan, celsius)
                                                 : zf_sm_fan_default_percent(fan, celsius);
}

ze_result_t zfi_zesFanGetState(zes_fan_handle_t hFan, zes_fan_speed_units_t units, int32_t *pSpeed) {
    zf_sm_fan *fan = zf_sm_fan_from(hFan);
    zf_sm_lock();
    double percent = zf_sm_fan_percent(fan);
    zf_sm_unlock();
    double value = units == ZES_FAN_SPEED_UNITS_PERCENT ? percent : percent * fan->model->max_rpm / 100.0;
    *pSpeed = (int32_t)lround(value);
    return ZE_RESULT_SUCCESS;
}

/* ---- LEDs ------------------------------------------------------------------------------------------------------ */

ze_result_t zfi_zesDeviceEnumLeds(zes_device_handle_t hDevice, uint32_t *pCount, zes_led_handle_t *phLed) {
    zf_sm_device *sm;
    ze_result_t result = zf_sm_device_of(hDevice, &sm);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    zf_sm_fill_handles(pCount, sm->num_leds, (void **)phLed, sm->leds, sizeof sm->leds[0]);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zesLedGetProperties(zes_led_handle_t hLed, zes_led_properties_t *pProperties) {
    const zf_sm_led *led = zf_sm_led_from(hLed);
    zf_out_check(pProperties, "pProperties", ZES_STRUCTURE_TYPE_LED_PROPERTIES);
    pProperties->onSubdevice = false;
    pProperties->subdeviceId = 0;
    pProperties->canControl = true;
    pProperties->haveRGB = led->model->rgb;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zesLedGetState(zes_led_handle_t hLed, zes_led_state_t *pState) {
    const zf_sm_led *led = zf_sm_led_from(hLed);
    zf_out_check(pState, "pState", ZES_STRUCTURE_TYPE_LED_STATE);
    zf_sm_lock();
    pState->isOn = led->on;
    pState->color = led->color;
    zf_sm_unlock();
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zesLedSetState(zes_led_handle_t hLed, ze_bool_t enable) {
    zf_sm_led *led = zf_sm_led_from(hLed);
    zf_sm_lock();
    led->on = enable != 0;
    zf_sm_unlock();
    return ZE_RESULT_SUCCESS;
}

static bool zf_sm_led_level_ok(double level) {
    return level >= 0.0 && level <= 1.0; /* a NaN is outside too */
}

ze_result_t zfi_zesLedSetColor(zes_led_handle_t hLed, const zes_led_color_t *pColor) {
    zf_sm_led *led = zf_sm_led_from(hLed);
    if (!led->model->rgb)
        return zf_fail(ZE_RESULT_ERROR_UNSUPPORTED_FEATURE,
                       "the LED has a single colour (zes_led_properties_t.haveRGB is false)");
    if (!zf_sm_led_level_ok(pColor->red) || !zf_sm_led_level_ok(pColor->green) || !zf_sm_led_level_ok(pColor->blue))
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                       "pColor {%g, %g, %g}: each of red, green and blue must lie in 0.0..1.0", pColor->red,
                       pColor->green, pColor->blue);
    zf_sm_lock();
    led->color = *pColor;
    zf_sm_unlock();
    return ZE_RESULT_SUCCESS;
}

/* ---- Power supplies -------------------------------------------------------------------------------------------- */

ze_result_t zfi_zesDeviceEnumPsus(zes_device_handle_t hDevice, uint32_t *pCount, zes_psu_handle_t *phPsu) {
    zf_sm_device *sm;
    ze_result_t result = zf_sm_device_of(hDevice, &sm);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    zf_sm_fill_handles(pCount, sm->num_psus, (void **)phPsu, sm->psus, sizeof sm->psus[0]);
    return ZE_RESULT_SUCCESS;
}

/* The current limit, mA: the scenario's, else what the card's highest power limit draws at the supply's voltage. */
static int32_t zf_sm_psu_limit_ma(const zf_sm_psu *psu) {
    if (psu->model->amp_limit_ma > 0)
        return (int32_t)psu->model->amp_limit_ma;
    return (int32_t)lround(zf_sm_max_limit_w(psu->owner) * 1000.0 / psu->model->volts);
}

ze_result_t zfi_zesPsuGetProperties(zes_psu_handle_t hPsu, zes_psu_properties_t *pProperties) {
    const zf_sm_psu *psu = zf_sm_psu_from(hPsu);
    zf_out_check(pProperties, "pProperties", ZES_STRUCTURE_TYPE_PSU_PROPERTIES);
    pProperties->onSubdevice = false;
    pProperties->subdeviceId = 0;
    pProperties->haveFan = psu->model->fan;
    pProperties->ampLimit = zf_sm_psu_limit_ma(psu);
    return ZE_RESULT_SUCCESS;
}

/* The card's power since the last read, shared evenly by its supplies, at the supply's voltage; its heatsink halfway
 * between the ambient and the device's temperature. A current above the limit makes the voltage sag (UNDER). */
ze_result_t zfi_zesPsuGetState(zes_psu_handle_t hPsu, zes_psu_state_t *pState) {
    zf_sm_psu *psu = zf_sm_psu_from(hPsu);
    zf_out_check(pState, "pState", ZES_STRUCTURE_TYPE_PSU_STATE);
    zf_sm_device *sm = psu->owner;
    uint64_t now = zf_sm_host_us();
    zf_sm_lock();
    double watts = zf_sm_average_w(sm, &psu->read_uj, &psu->read_us, now) / sm->num_psus;
    zf_sm_temp_update(&sm->temp, now);
    double ambient = sm->device->desc->sysman.ambient_c;
    double heatsink = ambient + (sm->temp.celsius - ambient) / 2.0;
    zf_sm_unlock();
    int32_t current = (int32_t)lround(watts * 1000.0 / psu->model->volts);
    pState->voltStatus =
        current > zf_sm_psu_limit_ma(psu) ? ZES_PSU_VOLTAGE_STATUS_UNDER : ZES_PSU_VOLTAGE_STATUS_NORMAL;
    pState->fanFailed = false;
    pState->temperature = (int32_t)lround(heatsink);
    pState->current = current;
    return ZE_RESULT_SUCCESS;
}
