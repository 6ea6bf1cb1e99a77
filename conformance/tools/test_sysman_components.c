/* Conformance: sysman's optional components in the legacy model (ZES_ENABLE_SYSMAN=1 before zeInit): diagnostics
 * test suites (zesDeviceEnumDiagnosticTestSuites, zesDiagnostics*), fans, LEDs, power supplies and the legacy
 * overclocking of frequency domains (zesFrequencyOc*), engine activity per virtual function (zesEngineGetActivityExt)
 * and the virtual functions (zesDeviceEnumEnabledVFExp, zesVFManagement*Exp2). Every suite answers
 * its properties and tests, a run answers a zes_diag_result_t; every fan, LED and power supply answers its properties
 * and state and takes the settings its properties offer; bad inputs are refused. On the fake the components are the
 * scenario's (docs/sysman.md, "Diagnostics", "Fans, LEDs and power supplies"): the shipped Data Center GPU Max cards
 * run ARRAY and SCAN without errors in their modelled time and have no fan, LED or power supply; the
 * sysman-components scenario's planted faults give their results, a repair needing a reset included, and its fans
 * turn at the speed its thermal model's temperature gives; the shipped cards cannot be overclocked (every
 * zesFrequencyOc* answers ZE_RESULT_ERROR_UNSUPPORTED_FEATURE, as Intel's driver on Linux), the sysman-components
 * card can, within the capabilities it reports, and its modes move the GPU clock; its two virtual functions run no
 * work (idle engines, unused memory), the shipped cards have none. */
#include "zc_kernel_files.h"
#include "zc_metric.h"
#include "zc_metric_work.h"
#include "zc_sysman.h"

#include <math.h>
#include <string.h>

static bool zc_scenario_is(const char *name) {
    zefake_info_t info = {.size = sizeof info};
    zc_fake_info(&info);
    return strcmp(info.scenario_name, name) == 0;
}

/* The fake's scenario with faults planted in its components (conformance/scenarios/sysman-components.yaml). */
static bool zc_components_scenario(void) {
    return zc_driver_is_fake() && zc_scenario_is("sysman-components");
}

/* ---- Diagnostics ---------------------------------------------------------------------------------------------- */

static ze_result_t zc_enum_diags(void *ctx, uint32_t *count, void *items) {
    return zesDeviceEnumDiagnosticTestSuites(ctx, count, items);
}

static zes_diag_handle_t *zc_diags(ze_device_handle_t device, uint32_t *count) {
    return zc_handles((zes_device_handle_t)device, (zc_enum_fn)zesDeviceEnumDiagnosticTestSuites,
                      "zesDeviceEnumDiagnosticTestSuites", count);
}

static zes_diag_properties_t zc_diag_props(zes_diag_handle_t diag) {
    zes_diag_properties_t p = {.stype = ZES_STRUCTURE_TYPE_DIAG_PROPERTIES};
    zc_assert_success(zesDiagnosticsGetProperties(diag, &p));
    return p;
}

/* The suite of that name on the device, NULL when it has none. */
static zes_diag_handle_t zc_diag_named(ze_device_handle_t device, const char *name) {
    uint32_t count = 0;
    zes_diag_handle_t *diags = zc_diags(device, &count);
    zes_diag_handle_t found = NULL;
    for (uint32_t i = 0; i < count && found == NULL; i++)
        if (strcmp(zc_diag_props(diags[i]).name, name) == 0)
            found = diags[i];
    free(diags);
    return found;
}

static bool zc_is_tile(ze_device_handle_t device) {
    return (zc_device_props(device).flags & ZE_DEVICE_PROPERTY_FLAG_SUBDEVICE) != 0;
}

/* The fake's suites (docs/sysman.md): ARRAY and SCAN on the cards of the shipped Data Center GPU Max scenarios. */
static uint32_t zc_fake_suites(ze_device_handle_t device) {
    if (zc_is_tile(device) || zc_scenario_is("integrated"))
        return 0;
    return 2;
}

static ze_result_t zc_diag_tests_query(void *ctx, uint32_t *count, void *items) {
    return zesDiagnosticsGetTests(ctx, count, items);
}

/* A suite's tests come in increasing index order, each named. */
static void zc_check_tests(zes_diag_handle_t diag, bool have_tests) {
    zc_count_query q = {"zesDiagnosticsGetTests", zc_diag_tests_query, diag, sizeof(zes_diag_test_t), NULL};
    uint32_t n = zc_count(&q);
    if (!have_tests)
        return; /* the header leaves the list of a suite without separate tests open */
    assert_true(n > 0);
    zc_check_count_semantics(&q);
    zes_diag_test_t *tests = calloc(n, sizeof *tests);
    zc_assert_success(zesDiagnosticsGetTests(diag, &n, tests));
    for (uint32_t i = 0; i < n; i++) {
        assert_true(tests[i].name[0] != '\0');
        if (i > 0)
            assert_true(tests[i].index > tests[i - 1].index);
    }
    free(tests);
}

static void sysman_diag_suites_answer(void **state) {
    (void)state;
    const zc_system *sys = zc_sys();
    for (uint32_t d = 0; d < sys->num_all; d++) {
        zc_count_query q = {"zesDeviceEnumDiagnosticTestSuites", zc_enum_diags, sys->all[d], sizeof(void *), NULL};
        uint32_t n = zc_count(&q);
        if (n > 0)
            zc_check_count_semantics(&q);
        if (zc_driver_is_fake() && !zc_components_scenario())
            assert_int_equal(n, zc_fake_suites(sys->all[d]));
        zes_diag_handle_t *diags = zc_diags(sys->all[d], &n);
        for (uint32_t i = 0; i < n; i++) {
            zes_diag_properties_t p = zc_diag_props(diags[i]);
            assert_true(p.name[0] != '\0');
            if (!p.onSubdevice)
                assert_int_equal(p.subdeviceId, 0);
            zc_check_tests(diags[i], p.haveTests);
        }
        free(diags);
    }
}

/* The fake's shipped cards name their suites as Intel's driver does on Data Center GPU Max. */
static void sysman_diag_fake_names_its_suites(void **state) {
    (void)state;
    if (!zc_driver_is_fake() || zc_components_scenario() || zc_fake_suites(zc_sys()->all[0]) == 0)
        skip();
    ze_device_handle_t card = zc_sys()->all[0];
    zes_diag_handle_t array = zc_diag_named(card, "ARRAY"), scan = zc_diag_named(card, "SCAN");
    assert_non_null(array);
    assert_non_null(scan);
    assert_false(zc_diag_props(array).haveTests);
    assert_false(zc_diag_props(scan).haveTests);
}

static zes_diag_result_t zc_diag_run(zes_diag_handle_t diag, uint32_t first, uint32_t last, uint64_t *elapsed_ms) {
    zes_diag_result_t result = ZES_DIAG_RESULT_FORCE_UINT32;
    uint64_t start = zc_now_ms();
    zc_assert_success(zesDiagnosticsRunTests(diag, first, last, &result));
    *elapsed_ms = zc_now_ms() - start;
    assert_true(result <= ZES_DIAG_RESULT_REBOOT_FOR_REPAIR);
    return result;
}

/* Every suite of the first device runs whole and answers a result; the fake's shipped cards find no errors, each run
 * taking the suite's modelled time (docs/scenarios.md: 200 ms for ARRAY, 300 ms for SCAN). */
static void sysman_diag_runs_answer(void **state) {
    (void)state;
    ze_device_handle_t device = zc_sys()->all[0];
    uint32_t n = 0;
    zes_diag_handle_t *diags = zc_diags(device, &n);
    bool fake = zc_driver_is_fake() && !zc_components_scenario();
    for (uint32_t i = 0; i < n; i++) {
        uint64_t ms = 0;
        zes_diag_result_t result = zc_diag_run(diags[i], ZES_DIAG_FIRST_TEST_INDEX, ZES_DIAG_LAST_TEST_INDEX, &ms);
        if (!fake)
            continue;
        assert_int_equal(result, ZES_DIAG_RESULT_NO_ERRORS);
        assert_true(ms >= (strcmp(zc_diag_props(diags[i]).name, "ARRAY") == 0 ? 200u : 300u));
    }
    free(diags);
    if (fake) {
        zes_device_state_t s = {.stype = ZES_STRUCTURE_TYPE_DEVICE_STATE};
        zc_assert_success(zesDeviceGetState((zes_device_handle_t)device, &s));
        assert_int_equal(s.reset & ZES_RESET_REASON_FLAG_REPAIR, 0);
    }
}

static zes_device_state_t zc_device_state(ze_device_handle_t device) {
    zes_device_state_t s = {.stype = ZES_STRUCTURE_TYPE_DEVICE_STATE};
    zc_assert_success(zesDeviceGetState((zes_device_handle_t)device, &s));
    return s;
}

static zes_event_type_flags_t zc_listen_now(ze_device_handle_t device) {
    zes_device_handle_t handle = (zes_device_handle_t)device;
    uint32_t with_events = 0;
    zes_event_type_flags_t events = 0;
    zc_assert_success(zesDriverEventListen(zc_sys()->driver, 0, 1, &handle, &with_events, &events));
    return events;
}

/* A planted fault that needs a reboot for repair: the device needs a reset (ZES_RESET_REASON_FLAG_REPAIR, the
 * DEVICE_RESET_REQUIRED event), and the reset performs the repair. */
static void sysman_diag_repair_needs_a_reset(void **state) {
    (void)state;
    if (!zc_components_scenario())
        skip();
    ze_device_handle_t device = zc_sys()->all[0];
    zes_diag_handle_t array = zc_diag_named(device, "ARRAY");
    assert_non_null(array);
    zc_assert_success(zesDeviceEventRegister((zes_device_handle_t)device, ZES_EVENT_TYPE_FLAG_DEVICE_RESET_REQUIRED));
    assert_int_equal(zc_device_state(device).repaired, ZES_REPAIR_STATUS_NOT_PERFORMED);
    uint64_t ms = 0;
    assert_int_equal(zc_diag_run(array, ZES_DIAG_FIRST_TEST_INDEX, ZES_DIAG_LAST_TEST_INDEX, &ms),
                     ZES_DIAG_RESULT_REBOOT_FOR_REPAIR);
    assert_true(ms >= 100);
    assert_int_equal(zc_listen_now(device), ZES_EVENT_TYPE_FLAG_DEVICE_RESET_REQUIRED);
    zes_device_state_t s = zc_device_state(device);
    assert_true((s.reset & ZES_RESET_REASON_FLAG_REPAIR) != 0);
    assert_int_equal(s.repaired, ZES_REPAIR_STATUS_NOT_PERFORMED);
    zc_assert_success(zesDeviceReset((zes_device_handle_t)device, false));
    s = zc_device_state(device);
    assert_int_equal(s.reset & ZES_RESET_REASON_FLAG_REPAIR, 0);
    assert_int_equal(s.repaired, ZES_REPAIR_STATUS_PERFORMED);
    zc_assert_success(zesDeviceEventRegister((zes_device_handle_t)device, 0));
}

/* A suite of separate tests runs the range asked for and answers the worst result of the tests it ran; a test that
 * cannot be repaired ends the run, so the run takes the time of the tests up to it (docs/sysman.md). */
static void sysman_diag_subsets_answer_their_tests(void **state) {
    (void)state;
    if (!zc_components_scenario())
        skip();
    ze_device_handle_t device = zc_sys()->all[0];
    zes_diag_handle_t scan = zc_diag_named(device, "SCAN");
    assert_non_null(scan);
    assert_true(zc_diag_props(scan).haveTests);
    uint32_t n = 0;
    zc_assert_success(zesDiagnosticsGetTests(scan, &n, NULL));
    assert_int_equal(n, 4);
    zes_diag_test_t tests[4];
    zc_assert_success(zesDiagnosticsGetTests(scan, &n, tests));
    assert_string_equal(tests[1].name, "CACHES");
    uint64_t ms = 0;
    assert_int_equal(zc_diag_run(scan, 0, 0, &ms), ZES_DIAG_RESULT_NO_ERRORS);
    assert_true(ms >= 100);
    assert_int_equal(zc_diag_run(scan, 3, 3, &ms), ZES_DIAG_RESULT_NO_ERRORS);
    assert_int_equal(zc_diag_run(scan, 0, 1, &ms), ZES_DIAG_RESULT_REBOOT_FOR_REPAIR);
    assert_true(ms >= 200);
    assert_int_equal(zc_diag_run(scan, ZES_DIAG_FIRST_TEST_INDEX, ZES_DIAG_LAST_TEST_INDEX, &ms),
                     ZES_DIAG_RESULT_FAIL_CANT_REPAIR);
    assert_true(ms >= 300);
    assert_int_equal(zc_diag_run(scan, 3, ZES_DIAG_LAST_TEST_INDEX, &ms), ZES_DIAG_RESULT_NO_ERRORS);
    zc_assert_success(zesDeviceReset((zes_device_handle_t)device, false)); /* the repair of 0..1 */
}

static void sysman_diag_bad_inputs(void **state) {
    (void)state;
    zes_diag_properties_t p = {.stype = ZES_STRUCTURE_TYPE_DIAG_PROPERTIES};
    zes_diag_result_t result;
    uint32_t count = 0;
    zc_assert_result(zesDeviceEnumDiagnosticTestSuites(NULL, &count, NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zesDeviceEnumDiagnosticTestSuites((zes_device_handle_t)zc_sys()->all[0], NULL, NULL),
                     ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zesDiagnosticsGetProperties(NULL, &p), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zesDiagnosticsGetTests(NULL, &count, NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zesDiagnosticsRunTests(NULL, 0, 0, &result), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    uint32_t n = 0;
    zes_diag_handle_t *diags = zc_diags(zc_sys()->all[0], &n);
    for (uint32_t i = 0; i < n; i++) {
        zc_assert_result(zesDiagnosticsGetProperties(diags[i], NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
        zc_assert_result(zesDiagnosticsGetTests(diags[i], NULL, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
        zc_assert_result(zesDiagnosticsRunTests(diags[i], 0, ZES_DIAG_LAST_TEST_INDEX, NULL),
                         ZE_RESULT_ERROR_INVALID_NULL_POINTER);
        if (!zc_driver_is_fake() || !zc_diag_props(diags[i]).haveTests)
            continue;
        /* docs/sysman.md: a range that names no test of the suite */
        uint32_t tests = 0;
        zc_assert_success(zesDiagnosticsGetTests(diags[i], &tests, NULL));
        zc_assert_result(zesDiagnosticsRunTests(diags[i], tests, ZES_DIAG_LAST_TEST_INDEX, &result),
                         ZE_RESULT_ERROR_INVALID_ARGUMENT);
        zc_assert_result(zesDiagnosticsRunTests(diags[i], 1, 0, &result), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    }
    free(diags);
}

/* ---- Fans ------------------------------------------------------------------------------------------------------ */

static zes_fan_handle_t *zc_fans(ze_device_handle_t device, uint32_t *count) {
    return zc_handles((zes_device_handle_t)device, (zc_enum_fn)zesDeviceEnumFans, "zesDeviceEnumFans", count);
}

static zes_fan_properties_t zc_fan_props(zes_fan_handle_t fan) {
    zes_fan_properties_t p = {.stype = ZES_STRUCTURE_TYPE_FAN_PROPERTIES};
    zc_assert_success(zesFanGetProperties(fan, &p));
    return p;
}

static zes_fan_config_t zc_fan_config(zes_fan_handle_t fan) {
    zes_fan_config_t c = {.stype = ZES_STRUCTURE_TYPE_FAN_CONFIG};
    zc_assert_success(zesFanGetConfig(fan, &c));
    return c;
}

static int32_t zc_fan_speed(zes_fan_handle_t fan, zes_fan_speed_units_t units) {
    int32_t speed = -2;
    zc_assert_success(zesFanGetState(fan, units, &speed));
    return speed;
}

/* The device's temperature as its first sensor reads it. */
static double zc_temperature(ze_device_handle_t device) {
    zes_temp_handle_t sensor = NULL;
    uint32_t one = 1;
    zc_assert_success(zesDeviceEnumTemperatureSensors((zes_device_handle_t)device, &one, &sensor));
    double celsius = 0;
    zc_assert_success(zesTemperatureGetState(sensor, &celsius));
    return celsius;
}

/* Every fan answers properties within the header's ranges, a configuration of a supported mode, and a speed in every
 * supported unit that agrees with the other (RPM within maxRPM, percent within 0..100). */
static void sysman_fans_answer(void **state) {
    (void)state;
    const zc_system *sys = zc_sys();
    for (uint32_t d = 0; d < sys->num_all; d++) {
        uint32_t n = 0;
        zes_fan_handle_t *fans = zc_fans(sys->all[d], &n);
        if (zc_driver_is_fake())
            assert_int_equal(n, zc_components_scenario() && !zc_is_tile(sys->all[d]) ? 2 : 0);
        for (uint32_t i = 0; i < n; i++) {
            zes_fan_properties_t p = zc_fan_props(fans[i]);
            assert_true(p.maxPoints == -1 || (p.maxPoints >= 1 && p.maxPoints <= ZES_FAN_TEMP_SPEED_PAIR_COUNT));
            zes_fan_config_t c = zc_fan_config(fans[i]);
            assert_true((p.supportedModes & (1u << c.mode)) != 0);
            if (p.supportedUnits & (1u << ZES_FAN_SPEED_UNITS_PERCENT)) {
                int32_t percent = zc_fan_speed(fans[i], ZES_FAN_SPEED_UNITS_PERCENT);
                assert_true(percent == -1 || (percent >= 0 && percent <= 100));
            }
            if ((p.supportedUnits & (1u << ZES_FAN_SPEED_UNITS_RPM)) && p.maxRPM > 0) {
                int32_t rpm = zc_fan_speed(fans[i], ZES_FAN_SPEED_UNITS_RPM);
                assert_true(rpm == -1 || (rpm >= 0 && rpm <= p.maxRPM));
            }
        }
        free(fans);
    }
}

/* The fake's default mode ramps the speed with the device's temperature (docs/sysman.md): the first fan of
 * sysman-components from 20 % at 30 °C to 100 % at the critical 100 °C. */
static void sysman_fan_default_mode_follows_the_temperature(void **state) {
    (void)state;
    if (!zc_components_scenario())
        skip();
    ze_device_handle_t card = zc_sys()->all[0];
    uint32_t n = 0;
    zes_fan_handle_t *fans = zc_fans(card, &n);
    zes_fan_properties_t p = zc_fan_props(fans[0]);
    assert_int_equal(p.maxRPM, 2800);
    assert_int_equal(p.maxPoints, 8);
    assert_int_equal(p.supportedModes, 0x7);
    assert_int_equal(zc_fan_props(fans[1]).maxPoints, -1);
    assert_int_equal(zc_fan_config(fans[0]).mode, ZES_FAN_SPEED_MODE_DEFAULT);
    assert_int_equal(zc_fan_config(fans[0]).speedFixed.speed, -1);
    double celsius = zc_temperature(card);
    double expected = 20.0 + 80.0 * (celsius - 30.0) / 70.0;
    int32_t percent = zc_fan_speed(fans[0], ZES_FAN_SPEED_UNITS_PERCENT);
    assert_true(fabs(percent - expected) <= 1.0);
    int32_t rpm = zc_fan_speed(fans[0], ZES_FAN_SPEED_UNITS_RPM);
    assert_true(fabs(rpm - expected * 28.0) <= 28.0);
    assert_int_equal(zc_fan_speed(fans[1], ZES_FAN_SPEED_UNITS_PERCENT), 35); /* below its ramp's 40 °C */
    free(fans);
}

/* A fixed speed is answered as set, in either unit; a table gives the speed of its points around the temperature,
 * interpolated; the default mode comes back. */
static void sysman_fan_modes_apply(void **state) {
    (void)state;
    if (!zc_components_scenario())
        skip();
    ze_device_handle_t card = zc_sys()->all[0];
    uint32_t n = 0;
    zes_fan_handle_t *fans = zc_fans(card, &n);
    zes_fan_speed_t fixed = {.speed = 1400, .units = ZES_FAN_SPEED_UNITS_RPM};
    zc_assert_success(zesFanSetFixedSpeedMode(fans[0], &fixed));
    zes_fan_config_t c = zc_fan_config(fans[0]);
    assert_int_equal(c.mode, ZES_FAN_SPEED_MODE_FIXED);
    assert_int_equal(c.speedFixed.speed, 1400);
    assert_int_equal(c.speedFixed.units, ZES_FAN_SPEED_UNITS_RPM);
    assert_int_equal(zc_fan_speed(fans[0], ZES_FAN_SPEED_UNITS_PERCENT), 50);
    assert_int_equal(zc_fan_speed(fans[0], ZES_FAN_SPEED_UNITS_RPM), 1400);
    /* 40 % at 20 °C and 80 % at 60 °C: the idle temperature (about 33.5 °C) lies between them. */
    zes_fan_speed_table_t table = {.numPoints = 2};
    table.table[0] = (zes_fan_temp_speed_t){20, {40, ZES_FAN_SPEED_UNITS_PERCENT}};
    table.table[1] = (zes_fan_temp_speed_t){60, {2240, ZES_FAN_SPEED_UNITS_RPM}};
    zc_assert_success(zesFanSetSpeedTableMode(fans[0], &table));
    c = zc_fan_config(fans[0]);
    assert_int_equal(c.mode, ZES_FAN_SPEED_MODE_TABLE);
    assert_int_equal(c.speedTable.numPoints, 2);
    assert_int_equal(c.speedTable.table[1].temperature, 60);
    double expected = 40.0 + 40.0 * (zc_temperature(card) - 20.0) / 40.0;
    assert_true(fabs(zc_fan_speed(fans[0], ZES_FAN_SPEED_UNITS_PERCENT) - expected) <= 1.0);
    zc_assert_success(zesFanSetDefaultMode(fans[0]));
    assert_int_equal(zc_fan_config(fans[0]).mode, ZES_FAN_SPEED_MODE_DEFAULT);
    free(fans);
}

static void sysman_fan_bad_inputs(void **state) {
    (void)state;
    zes_fan_speed_t speed = {.speed = 50, .units = ZES_FAN_SPEED_UNITS_PERCENT};
    zes_fan_speed_table_t table = {.numPoints = 1};
    int32_t value;
    zc_assert_result(zesFanGetProperties(NULL, &(zes_fan_properties_t){0}), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zesFanSetDefaultMode(NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zesFanSetFixedSpeedMode(NULL, &speed), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zesFanSetSpeedTableMode(NULL, &table), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zesFanGetState(NULL, ZES_FAN_SPEED_UNITS_PERCENT, &value), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    uint32_t n = 0;
    zes_fan_handle_t *fans = zc_fans(zc_sys()->all[0], &n);
    for (uint32_t i = 0; i < n; i++) {
        zc_assert_result(zesFanGetProperties(fans[i], NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
        zc_assert_result(zesFanGetConfig(fans[i], NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
        zc_assert_result(zesFanSetFixedSpeedMode(fans[i], NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
        zc_assert_result(zesFanSetSpeedTableMode(fans[i], NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
        zc_assert_result(zesFanGetState(fans[i], ZES_FAN_SPEED_UNITS_PERCENT, NULL),
                         ZE_RESULT_ERROR_INVALID_NULL_POINTER);
        zc_assert_result(zesFanGetState(fans[i], (zes_fan_speed_units_t)2, &value),
                         ZE_RESULT_ERROR_INVALID_ENUMERATION);
    }
    if (!zc_components_scenario()) {
        free(fans);
        return;
    }
    /* docs/sysman.md: speeds outside 0..100 % or 0..maxRPM, units the fan does not know, tables out of order or of
     * a size outside 1..maxPoints, a table on a fan without table mode; nothing is applied. */
    zes_fan_speed_t bad[] = {
        {101, ZES_FAN_SPEED_UNITS_PERCENT}, {-1, ZES_FAN_SPEED_UNITS_PERCENT}, {2801, ZES_FAN_SPEED_UNITS_RPM}};
    for (size_t b = 0; b < ZC_COUNT(bad); b++)
        zc_assert_result(zesFanSetFixedSpeedMode(fans[0], &bad[b]), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    zes_fan_speed_t units = {50, (zes_fan_speed_units_t)7};
    zc_assert_result(zesFanSetFixedSpeedMode(fans[0], &units), ZE_RESULT_ERROR_UNSUPPORTED_FEATURE);
    table = (zes_fan_speed_table_t){.numPoints = 2};
    table.table[0] = (zes_fan_temp_speed_t){60, {50, ZES_FAN_SPEED_UNITS_PERCENT}};
    table.table[1] = (zes_fan_temp_speed_t){40, {80, ZES_FAN_SPEED_UNITS_PERCENT}};
    zc_assert_result(zesFanSetSpeedTableMode(fans[0], &table), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    table.table[1].temperature = 60;
    zc_assert_result(zesFanSetSpeedTableMode(fans[0], &table), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    table.table[1] = (zes_fan_temp_speed_t){80, {120, ZES_FAN_SPEED_UNITS_PERCENT}};
    zc_assert_result(zesFanSetSpeedTableMode(fans[0], &table), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    table.numPoints = 0;
    zc_assert_result(zesFanSetSpeedTableMode(fans[0], &table), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    table.numPoints = 9;
    zc_assert_result(zesFanSetSpeedTableMode(fans[0], &table), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    table.numPoints = 1;
    zc_assert_result(zesFanSetSpeedTableMode(fans[1], &table), ZE_RESULT_ERROR_UNSUPPORTED_FEATURE);
    assert_int_equal(zc_fan_config(fans[0]).mode, ZES_FAN_SPEED_MODE_DEFAULT);
    assert_int_equal(zc_fan_config(fans[1]).mode, ZES_FAN_SPEED_MODE_DEFAULT);
    free(fans);
}

/* ---- LEDs ------------------------------------------------------------------------------------------------------ */

static zes_led_handle_t *zc_leds(ze_device_handle_t device, uint32_t *count) {
    return zc_handles((zes_device_handle_t)device, (zc_enum_fn)zesDeviceEnumLeds, "zesDeviceEnumLeds", count);
}

static zes_led_state_t zc_led_state(zes_led_handle_t led) {
    zes_led_state_t s = {.stype = ZES_STRUCTURE_TYPE_LED_STATE};
    zc_assert_success(zesLedGetState(led, &s));
    return s;
}

static zes_led_properties_t zc_led_props(zes_led_handle_t led) {
    zes_led_properties_t p = {.stype = ZES_STRUCTURE_TYPE_LED_PROPERTIES};
    zc_assert_success(zesLedGetProperties(led, &p));
    return p;
}

/* Every LED answers its state; one software controls turns off and on, and an RGB one takes a colour. */
static void sysman_leds_answer_and_apply(void **state) {
    (void)state;
    const zc_system *sys = zc_sys();
    for (uint32_t d = 0; d < sys->num_all; d++) {
        uint32_t n = 0;
        zes_led_handle_t *leds = zc_leds(sys->all[d], &n);
        if (zc_driver_is_fake())
            assert_int_equal(n, zc_components_scenario() && !zc_is_tile(sys->all[d]) ? 2 : 0);
        for (uint32_t i = 0; i < n; i++) {
            zes_led_properties_t p = zc_led_props(leds[i]);
            zes_led_state_t before = zc_led_state(leds[i]);
            if (!p.canControl)
                continue;
            zc_assert_success(zesLedSetState(leds[i], !before.isOn));
            assert_int_equal(zc_led_state(leds[i]).isOn, !before.isOn);
            zc_assert_success(zesLedSetState(leds[i], before.isOn));
            zes_led_color_t teal = {0.0, 0.5, 0.5};
            if (!p.haveRGB) {
                zc_assert_result(zesLedSetColor(leds[i], &teal), ZE_RESULT_ERROR_UNSUPPORTED_FEATURE);
                continue;
            }
            zc_assert_success(zesLedSetColor(leds[i], &teal));
            zes_led_state_t after = zc_led_state(leds[i]);
            assert_true(after.color.green == 0.5 && after.color.blue == 0.5 && after.color.red == 0.0);
            zc_assert_success(zesLedSetColor(leds[i], &before.color));
        }
        free(leds);
    }
}

static void sysman_led_bad_inputs(void **state) {
    (void)state;
    zes_led_color_t white = {1.0, 1.0, 1.0};
    zc_assert_result(zesLedGetProperties(NULL, &(zes_led_properties_t){0}), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zesLedGetState(NULL, &(zes_led_state_t){0}), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zesLedSetState(NULL, true), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zesLedSetColor(NULL, &white), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    uint32_t n = 0;
    zes_led_handle_t *leds = zc_leds(zc_sys()->all[0], &n);
    for (uint32_t i = 0; i < n; i++) {
        zc_assert_result(zesLedGetProperties(leds[i], NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
        zc_assert_result(zesLedGetState(leds[i], NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
        zc_assert_result(zesLedSetColor(leds[i], NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
        if (!zc_driver_is_fake() || !zc_led_props(leds[i]).haveRGB)
            continue;
        /* docs/sysman.md: each level lies in the header's range(0.0, 1.0); nothing is applied otherwise */
        zes_led_state_t before = zc_led_state(leds[i]);
        zes_led_color_t bad[] = {{1.5, 0, 0}, {0, -0.1, 0}, {0, 0, NAN}};
        for (size_t b = 0; b < ZC_COUNT(bad); b++)
            zc_assert_result(zesLedSetColor(leds[i], &bad[b]), ZE_RESULT_ERROR_INVALID_ARGUMENT);
        zes_led_state_t after = zc_led_state(leds[i]);
        assert_memory_equal(&after.color, &before.color, sizeof before.color);
    }
    free(leds);
}

/* ---- Power supplies -------------------------------------------------------------------------------------------- */

static zes_psu_handle_t *zc_psus(ze_device_handle_t device, uint32_t *count) {
    return zc_handles((zes_device_handle_t)device, (zc_enum_fn)zesDeviceEnumPsus, "zesDeviceEnumPsus", count);
}

/* Every power supply answers a state within its properties: a current within its limit unless the voltage is
 * reported off its normal range. The fake's sysman-components supply carries the card's idle 35 W at 12 V (about
 * 2.9 A) within its 18.75 A limit, its heatsink halfway between the 30 °C ambient and the device. */
static void sysman_psus_answer(void **state) {
    (void)state;
    const zc_system *sys = zc_sys();
    for (uint32_t d = 0; d < sys->num_all; d++) {
        uint32_t n = 0;
        zes_psu_handle_t *psus = zc_psus(sys->all[d], &n);
        if (zc_driver_is_fake())
            assert_int_equal(n, zc_components_scenario() && !zc_is_tile(sys->all[d]) ? 1 : 0);
        for (uint32_t i = 0; i < n; i++) {
            zes_psu_properties_t p = {.stype = ZES_STRUCTURE_TYPE_PSU_PROPERTIES};
            zc_assert_success(zesPsuGetProperties(psus[i], &p));
            zes_psu_state_t s = {.stype = ZES_STRUCTURE_TYPE_PSU_STATE};
            zc_assert_success(zesPsuGetState(psus[i], &s));
            assert_true(s.voltStatus <= ZES_PSU_VOLTAGE_STATUS_UNDER);
            if (p.ampLimit > 0 && s.current >= 0 && s.voltStatus == ZES_PSU_VOLTAGE_STATUS_NORMAL)
                assert_true(s.current <= p.ampLimit);
            if (!zc_components_scenario())
                continue;
            assert_int_equal(p.ampLimit, 18750);
            assert_false(p.haveFan);
            zc_sleep_ms(20);
            zc_assert_success(zesPsuGetState(psus[i], &s));
            assert_int_equal(s.voltStatus, ZES_PSU_VOLTAGE_STATUS_NORMAL);
            assert_true(s.current >= 2800 && s.current <= 3050);
            assert_true(abs(s.temperature - (int32_t)lround(30.0 + (zc_temperature(sys->all[d]) - 30.0) / 2)) <= 1);
        }
        free(psus);
    }
}

static void sysman_psu_bad_inputs(void **state) {
    (void)state;
    zc_assert_result(zesPsuGetProperties(NULL, &(zes_psu_properties_t){0}), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zesPsuGetState(NULL, &(zes_psu_state_t){0}), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    uint32_t n = 0;
    zes_psu_handle_t *psus = zc_psus(zc_sys()->all[0], &n);
    for (uint32_t i = 0; i < n; i++) {
        zc_assert_result(zesPsuGetProperties(psus[i], NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
        zc_assert_result(zesPsuGetState(psus[i], NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    }
    free(psus);
}

/* ---- Legacy overclocking -------------------------------------------------------------------------------------- */

static zes_freq_handle_t zc_gpu_domain(ze_device_handle_t device) {
    zes_freq_handle_t freq = NULL;
    uint32_t one = 1;
    zc_assert_success(zesDeviceEnumFrequencyDomains((zes_device_handle_t)device, &one, &freq));
    return freq;
}

static zes_freq_state_t zc_freq_state(zes_freq_handle_t freq) {
    zes_freq_state_t s = {.stype = ZES_STRUCTURE_TYPE_FREQ_STATE};
    zc_assert_success(zesFrequencyGetState(freq, &s));
    return s;
}

/* Every domain answers its capabilities, or UNSUPPORTED_FEATURE for all of them when it cannot be overclocked (as
 * Intel's driver on Linux); an overclockable one reports targets within its capabilities. */
static void sysman_oc_capabilities_answer(void **state) {
    (void)state;
    const zc_system *sys = zc_sys();
    for (uint32_t d = 0; d < sys->num_all; d++) {
        zes_freq_handle_t freq = zc_gpu_domain(sys->all[d]);
        zes_oc_capabilities_t c = {.stype = ZES_STRUCTURE_TYPE_OC_CAPABILITIES};
        ze_result_t result = zesFrequencyOcGetCapabilities(freq, &c);
        double value = 0, offset = 0;
        zes_oc_mode_t mode;
        if (result == ZE_RESULT_ERROR_UNSUPPORTED_FEATURE || (result == ZE_RESULT_SUCCESS && !c.isOcSupported)) {
            if (!zc_driver_is_fake())
                continue;
            assert_false(zc_components_scenario());
            zc_assert_result(zesFrequencyOcGetFrequencyTarget(freq, &value), ZE_RESULT_ERROR_UNSUPPORTED_FEATURE);
            zc_assert_result(zesFrequencyOcSetFrequencyTarget(freq, 1000), ZE_RESULT_ERROR_UNSUPPORTED_FEATURE);
            zc_assert_result(zesFrequencyOcGetVoltageTarget(freq, &value, &offset),
                             ZE_RESULT_ERROR_UNSUPPORTED_FEATURE);
            zc_assert_result(zesFrequencyOcSetVoltageTarget(freq, 1.0, 0), ZE_RESULT_ERROR_UNSUPPORTED_FEATURE);
            zc_assert_result(zesFrequencyOcSetMode(freq, ZES_OC_MODE_OFF), ZE_RESULT_ERROR_UNSUPPORTED_FEATURE);
            zc_assert_result(zesFrequencyOcGetMode(freq, &mode), ZE_RESULT_ERROR_UNSUPPORTED_FEATURE);
            zc_assert_result(zesFrequencyOcGetIccMax(freq, &value), ZE_RESULT_ERROR_UNSUPPORTED_FEATURE);
            zc_assert_result(zesFrequencyOcSetIccMax(freq, 0), ZE_RESULT_ERROR_UNSUPPORTED_FEATURE);
            zc_assert_result(zesFrequencyOcGetTjMax(freq, &value), ZE_RESULT_ERROR_UNSUPPORTED_FEATURE);
            zc_assert_result(zesFrequencyOcSetTjMax(freq, 0), ZE_RESULT_ERROR_UNSUPPORTED_FEATURE);
            continue;
        }
        zc_assert_success(result);
        assert_true(c.maxOcFrequency >= c.maxFactoryDefaultFrequency);
        assert_true(c.minOcVoltageOffset <= c.maxOcVoltageOffset);
        zc_assert_success(zesFrequencyOcGetFrequencyTarget(freq, &value));
        assert_true(value <= c.maxOcFrequency);
        zc_assert_success(zesFrequencyOcGetVoltageTarget(freq, &value, &offset));
        assert_true(value <= c.maxOcVoltage && offset >= c.minOcVoltageOffset && offset <= c.maxOcVoltageOffset);
        zc_assert_success(zesFrequencyOcGetMode(freq, &mode));
        assert_true(mode <= ZES_OC_MODE_FIXED);
        if (!zc_components_scenario())
            continue;
        assert_true(c.maxFactoryDefaultFrequency == 2400 && c.maxOcFrequency == 3000);
        assert_true(c.maxFactoryDefaultVoltage == 1.05 && c.maxOcVoltage == 1.2);
        assert_true(c.minOcVoltageOffset == -0.1 && c.maxOcVoltageOffset == 0.1);
        assert_true(c.isFixedModeSupported && c.isIccMaxSupported && c.isTjMaxSupported);
        assert_false(c.isExtendedModeSupported);
        assert_int_equal(mode, ZES_OC_MODE_OFF);
    }
}

/* The fake's modes move the GPU clock (docs/sysman.md): OVERRIDE raises the request to the target, FIXED locks the
 * clock there, idle too, without throttle reasons; OFF gives the factory clock back. */
static void sysman_oc_modes_move_the_clock(void **state) {
    (void)state;
    if (!zc_components_scenario())
        skip();
    zes_freq_handle_t freq = zc_gpu_domain(zc_sys()->all[0]);
    zc_assert_success(zesFrequencyOcSetFrequencyTarget(freq, 2800));
    double target = 0;
    zc_assert_success(zesFrequencyOcGetFrequencyTarget(freq, &target));
    assert_true(target == 2800);
    assert_true(zc_freq_state(freq).request == 2400); /* OFF: the target waits for a mode */
    zc_assert_success(zesFrequencyOcSetMode(freq, ZES_OC_MODE_OVERRIDE));
    zes_oc_mode_t mode;
    zc_assert_success(zesFrequencyOcGetMode(freq, &mode));
    assert_int_equal(mode, ZES_OC_MODE_OVERRIDE);
    assert_true(zc_freq_state(freq).request == 2800);
    zc_assert_success(zesFrequencyOcSetMode(freq, ZES_OC_MODE_FIXED));
    zes_freq_state_t s = zc_freq_state(freq);
    assert_true(s.actual == 2800 && s.request == 2800);
    assert_int_equal(s.throttleReasons, 0);
    zc_assert_success(zesFrequencyOcSetMode(freq, ZES_OC_MODE_OFF));
    s = zc_freq_state(freq);
    assert_true(s.request == 2400 && s.actual < 2800);
    zc_assert_success(zesFrequencyOcSetFrequencyTarget(freq, 2400));
}

/* The targets are checked against the capabilities (docs/sysman.md): beyond the hardware's values the header's
 * UNSUPPORTED_FEATURE, other bad values INVALID_ARGUMENT; 0 restores IccMax and TjMax; TjMax moves the sensor's
 * maximum. Nothing refused is applied. */
static void sysman_oc_targets_are_checked(void **state) {
    (void)state;
    if (!zc_components_scenario())
        skip();
    ze_device_handle_t card = zc_sys()->all[0];
    zes_freq_handle_t freq = zc_gpu_domain(card);
    zc_assert_result(zesFrequencyOcSetFrequencyTarget(freq, 3050), ZE_RESULT_ERROR_UNSUPPORTED_FEATURE);
    zc_assert_result(zesFrequencyOcSetFrequencyTarget(freq, 2825), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    zc_assert_result(zesFrequencyOcSetFrequencyTarget(freq, 100), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    zc_assert_result(zesFrequencyOcSetFrequencyTarget(freq, NAN), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    double value = 0, offset = 0;
    zc_assert_success(zesFrequencyOcGetFrequencyTarget(freq, &value));
    assert_true(value == 2400);
    zc_assert_success(zesFrequencyOcSetVoltageTarget(freq, 1.1, -0.05));
    zc_assert_result(zesFrequencyOcSetVoltageTarget(freq, 1.25, 0), ZE_RESULT_ERROR_UNSUPPORTED_FEATURE);
    zc_assert_result(zesFrequencyOcSetVoltageTarget(freq, 1.1, 0.2), ZE_RESULT_ERROR_UNSUPPORTED_FEATURE);
    zc_assert_result(zesFrequencyOcSetVoltageTarget(freq, 0, 0), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    zc_assert_success(zesFrequencyOcGetVoltageTarget(freq, &value, &offset));
    assert_true(value == 1.1 && offset == -0.05);
    zc_assert_result(zesFrequencyOcSetMode(freq, (zes_oc_mode_t)4), ZE_RESULT_ERROR_INVALID_ENUMERATION);
    zc_assert_success(zesFrequencyOcGetIccMax(freq, &value));
    assert_true(value == 300);
    zc_assert_success(zesFrequencyOcSetIccMax(freq, 400));
    zc_assert_result(zesFrequencyOcSetIccMax(freq, 451), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    zc_assert_result(zesFrequencyOcSetIccMax(freq, -1), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    zc_assert_success(zesFrequencyOcGetIccMax(freq, &value));
    assert_true(value == 400);
    zc_assert_success(zesFrequencyOcSetIccMax(freq, 0));
    zc_assert_success(zesFrequencyOcGetIccMax(freq, &value));
    assert_true(value == 300);
    zc_assert_success(zesFrequencyOcSetTjMax(freq, 95));
    zc_assert_result(zesFrequencyOcSetTjMax(freq, 106), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    zc_assert_result(zesFrequencyOcSetTjMax(freq, 30), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    zc_assert_success(zesFrequencyOcGetTjMax(freq, &value));
    assert_true(value == 95);
    zes_temp_handle_t sensor = NULL;
    uint32_t one = 1;
    zc_assert_success(zesDeviceEnumTemperatureSensors((zes_device_handle_t)card, &one, &sensor));
    zes_temp_properties_t tp = {.stype = ZES_STRUCTURE_TYPE_TEMP_PROPERTIES};
    zc_assert_success(zesTemperatureGetProperties(sensor, &tp));
    assert_true(tp.maxTemperature == 95);
    zc_assert_success(zesFrequencyOcSetTjMax(freq, 0));
    zc_assert_success(zesFrequencyOcGetTjMax(freq, &value));
    assert_true(value == 105);
}

/* The fixed mode runs the device's kernels at the target clock (docs/sysman.md, docs/cost-model.md): a compute-bound
 * launch at 3000 MHz lasts 2400 / 3000 of its time at the factory clock, set-up and command costs (2100 ns) apart. */
static void sysman_oc_fixed_mode_speeds_kernels_up(void **state) {
    zc_exec *x = *state;
    if (!zc_components_scenario())
        skip();
    zc_skip_without_builtins();
    zes_freq_handle_t freq = zc_gpu_domain(x->device);
    ze_module_handle_t module = zc_module_create(x->context, x->device, "gemm");
    void *buffer = zc_device_alloc(x, 64);
    ze_kernel_handle_t kernel = zc_long_gemm_kernel(module, buffer);
    const ze_group_count_t groups = {4096, 1024, 1};
    uint64_t factory = zc_launch_ns(x, kernel, &groups);
    zc_assert_success(zesFrequencyOcSetFrequencyTarget(freq, 3000));
    zc_assert_success(zesFrequencyOcSetMode(freq, ZES_OC_MODE_FIXED));
    uint64_t fast = zc_launch_ns(x, kernel, &groups);
    zc_assert_success(zesFrequencyOcSetMode(freq, ZES_OC_MODE_OFF));
    zc_assert_success(zesFrequencyOcSetFrequencyTarget(freq, 2400));
    uint64_t again = zc_launch_ns(x, kernel, &groups);
    double ratio = (double)(fast - 2100) / (double)(factory - 2100);
    assert_true(ratio > 0.79 && ratio < 0.81);
    assert_true(again > factory - factory / 100 && again < factory + factory / 100);
    zc_assert_success(zeKernelDestroy(kernel));
    zc_assert_success(zeModuleDestroy(module));
    zc_free(x, buffer);
}

static void sysman_oc_bad_inputs(void **state) {
    (void)state;
    double value;
    zes_oc_mode_t mode;
    zes_oc_capabilities_t c = {.stype = ZES_STRUCTURE_TYPE_OC_CAPABILITIES};
    zc_assert_result(zesFrequencyOcGetCapabilities(NULL, &c), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zesFrequencyOcSetFrequencyTarget(NULL, 1000), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zesFrequencyOcSetMode(NULL, ZES_OC_MODE_OFF), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zesFrequencyOcGetTjMax(NULL, &value), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zes_freq_handle_t freq = zc_gpu_domain(zc_sys()->all[0]);
    zc_assert_result(zesFrequencyOcGetCapabilities(freq, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zesFrequencyOcGetFrequencyTarget(freq, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zesFrequencyOcGetVoltageTarget(freq, NULL, &value), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zesFrequencyOcGetVoltageTarget(freq, &value, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zesFrequencyOcGetMode(freq, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zesFrequencyOcGetIccMax(freq, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zesFrequencyOcGetTjMax(freq, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zesFrequencyOcSetMode(freq, (zes_oc_mode_t)(ZES_OC_MODE_FIXED + 1)),
                     ZE_RESULT_ERROR_INVALID_ENUMERATION);
    (void)mode;
}

/* ---- Virtual functions ---------------------------------------------------------------------------------------- */

#if ZC_L0_AT_LEAST(7)

/* The fake's virtual functions of a device: sysman-components' two on its card, none elsewhere, and none with headers
 * older than the virtual-function handle (1.9). */
static uint32_t zc_fake_vfs(ze_device_handle_t device) {
    return ZC_L0_AT_LEAST(9) && zc_components_scenario() && !zc_is_tile(device) ? 2 : 0;
}

/* The physical function's activity comes first, as zesEngineGetActivity counts it, then one per virtual function;
 * another driver may not support the extension for a physical function alone. */
static void sysman_engine_activity_ext_leads_with_the_pf(void **state) {
    (void)state;
    zc_api_require(zesEngineGetActivityExt);
    ze_device_handle_t device = zc_sys()->all[0];
    uint32_t n = 0;
    zes_engine_handle_t *engines =
        zc_handles((zes_device_handle_t)device, (zc_enum_fn)zesDeviceEnumEngineGroups, "zesDeviceEnumEngineGroups", &n);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t count = 0;
        ze_result_t result = ZC_API(zesEngineGetActivityExt)(engines[i], &count, NULL);
        if (result == ZE_RESULT_ERROR_UNSUPPORTED_FEATURE && !zc_driver_is_fake())
            continue;
        zc_assert_success(result);
        assert_true(count >= 1);
        /* a count above the total is corrected (the stats move with time: no byte-for-byte comparison) */
        zes_engine_stats_t *stats = calloc(count + 1, sizeof *stats);
        uint32_t more = count + 1;
        zc_assert_success(ZC_API(zesEngineGetActivityExt)(engines[i], &more, stats));
        assert_int_equal(more, count);
        zes_engine_stats_t later;
        zc_assert_success(zesEngineGetActivity(engines[i], &later));
        assert_true(stats[0].activeTime <= later.activeTime && stats[0].timestamp <= later.timestamp);
        if (zc_driver_is_fake()) {
            assert_int_equal(count, 1 + zc_fake_vfs(device));
            for (uint32_t v = 1; v < count; v++) /* docs/sysman.md: a virtual function runs no work */
                assert_true(stats[v].activeTime == 0 && stats[v].timestamp == stats[0].timestamp);
        }
        free(stats);
    }
    if (n > 0)
        zc_assert_result(ZC_API(zesEngineGetActivityExt)(engines[0], NULL, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    uint32_t count = 0;
    zc_assert_result(ZC_API(zesEngineGetActivityExt)(NULL, &count, NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    free(engines);
}

#endif

#if ZC_L0_AT_LEAST(10)

static zes_vf_handle_t *zc_vfs(ze_device_handle_t device, uint32_t *count) {
    zc_api_require(zesDeviceEnumEnabledVFExp);
    return zc_handles((zes_device_handle_t)device, (zc_enum_fn)ZC_API(zesDeviceEnumEnabledVFExp),
                      "zesDeviceEnumEnabledVFExp", count);
}

static ze_result_t zc_vf_engines_call(void *ctx, uint32_t *count, void *items) {
    zes_vf_util_engine_exp2_t *util = items;
    for (uint32_t i = 0; util != NULL && i < *count; i++)
        util[i] = (zes_vf_util_engine_exp2_t){.stype = ZES_STRUCTURE_TYPE_VF_UTIL_ENGINE_EXP2};
    return ZC_API(zesVFManagementGetVFEngineUtilizationExp2)(ctx, count, items);
}

/* Every virtual function answers its memory and engine utilisation, counters that never run ahead of their sampling
 * counters; the fake's run no work (docs/sysman.md, "Virtual functions"). */
static void sysman_vfs_answer_their_utilisation(void **state) {
    (void)state;
    const zc_system *sys = zc_sys();
    for (uint32_t d = 0; d < sys->num_all; d++) {
        uint32_t n = 0;
        zes_vf_handle_t *vfs = zc_vfs(sys->all[d], &n);
        if (zc_driver_is_fake())
            assert_int_equal(n, zc_fake_vfs(sys->all[d]));
        for (uint32_t i = 0; i < n; i++) {
            uint32_t count = 0;
            zc_assert_success(ZC_API(zesVFManagementGetVFMemoryUtilizationExp2)(vfs[i], &count, NULL));
            zes_vf_util_mem_exp2_t mem[4] = {{.stype = ZES_STRUCTURE_TYPE_VF_UTIL_MEM_EXP2}};
            count = count < 4 ? count : 4;
            zc_assert_success(ZC_API(zesVFManagementGetVFMemoryUtilizationExp2)(vfs[i], &count, mem));
            zc_count_query q = {"zesVFManagementGetVFEngineUtilizationExp2", zc_vf_engines_call, vfs[i],
                                sizeof(zes_vf_util_engine_exp2_t), NULL};
            uint32_t engines = zc_count(&q);
            zes_vf_util_engine_exp2_t first[8], second[8];
            engines = engines < 8 ? engines : 8;
            zc_assert_success(zc_vf_engines_call(vfs[i], &engines, first));
            zc_sleep_ms(2);
            zc_assert_success(zc_vf_engines_call(vfs[i], &engines, second));
            for (uint32_t e = 0; e < engines; e++) {
                assert_true(second[e].samplingCounterValue >= first[e].samplingCounterValue);
                assert_true(second[e].activeCounterValue - first[e].activeCounterValue <=
                            second[e].samplingCounterValue - first[e].samplingCounterValue);
            }
            if (!zc_driver_is_fake())
                continue;
            assert_int_equal(count, 1);
            assert_true(mem[0].vfMemLocation == ZES_MEM_LOC_DEVICE && mem[0].vfMemUtilized == 0);
            assert_true(engines >= 1);
            assert_true(second[0].activeCounterValue == 0 && second[0].samplingCounterValue > 0);
            zes_vf_exp_capabilities_t old = {.stype = ZES_STRUCTURE_TYPE_VF_EXP_CAPABILITIES};
            zc_assert_result(ZC_API(zesVFManagementGetVFCapabilitiesExp)(vfs[i], &old),
                             ZE_RESULT_ERROR_UNSUPPORTED_FEATURE); /* deprecated, as on Intel's driver */
        }
        free(vfs);
    }
    uint32_t count = 0;
    zc_assert_result(ZC_API(zesVFManagementGetVFMemoryUtilizationExp2)(NULL, &count, NULL),
                     ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(ZC_API(zesVFManagementGetVFEngineUtilizationExp2)(NULL, &count, NULL),
                     ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    uint32_t n = 0;
    zes_vf_handle_t *vfs = zc_vfs(zc_sys()->all[0], &n);
    if (n > 0) {
        zc_assert_result(ZC_API(zesVFManagementGetVFMemoryUtilizationExp2)(vfs[0], NULL, NULL),
                         ZE_RESULT_ERROR_INVALID_NULL_POINTER);
        zc_assert_result(ZC_API(zesVFManagementGetVFEngineUtilizationExp2)(vfs[0], NULL, NULL),
                         ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    }
    free(vfs);
}

#endif

#if ZC_L0_AT_LEAST(12)

/* Each virtual function has its own ID and PCI function, and a share of the card's device memory; the fake's two
 * take functions 1 and 2 after the card's and a third of its memory each (docs/sysman.md). */
static void sysman_vf_capabilities(void **state) {
    (void)state;
    zc_api_require(zesVFManagementGetVFCapabilitiesExp2);
    ze_device_handle_t card = zc_sys()->all[0];
    uint32_t n = 0;
    zes_vf_handle_t *vfs = zc_vfs(card, &n);
    zes_pci_properties_t pci = {.stype = ZES_STRUCTURE_TYPE_PCI_PROPERTIES};
    zc_assert_success(zesDevicePciGetProperties((zes_device_handle_t)card, &pci));
    zes_mem_properties_t mem = {.stype = ZES_STRUCTURE_TYPE_MEM_PROPERTIES};
    zc_assert_success(zesMemoryGetProperties(zc_memory_module((zes_device_handle_t)card), &mem));
    uint64_t provisioned = 0;
    for (uint32_t i = 0; i < n; i++) {
        zes_vf_exp2_capabilities_t c = {.stype = ZES_STRUCTURE_TYPE_VF_EXP2_CAPABILITIES};
        zc_assert_success(ZC_API(zesVFManagementGetVFCapabilitiesExp2)(vfs[i], &c));
        assert_true(c.address.function != pci.address.function || c.address.bus != pci.address.bus);
        provisioned += c.vfDeviceMemSize;
        if (!zc_driver_is_fake())
            continue;
        assert_int_equal(c.vfID, i + 1);
        assert_int_equal(c.address.function, pci.address.function + i + 1);
        assert_int_equal(c.vfDeviceMemSize, mem.physicalSize / (n + 1));
    }
    assert_true(provisioned <= mem.physicalSize || mem.physicalSize == 0);
    if (n > 0)
        zc_assert_result(ZC_API(zesVFManagementGetVFCapabilitiesExp2)(vfs[0], NULL),
                         ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zes_vf_exp2_capabilities_t c = {.stype = ZES_STRUCTURE_TYPE_VF_EXP2_CAPABILITIES};
    zc_assert_result(ZC_API(zesVFManagementGetVFCapabilitiesExp2)(NULL, &c), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    free(vfs);
}

#endif

int main(int argc, char **argv) {
    zc_own_instance();
    static const struct CMUnitTest tests[] = {
        cmocka_unit_test(sysman_diag_suites_answer),
        cmocka_unit_test(sysman_diag_fake_names_its_suites),
        cmocka_unit_test(sysman_diag_runs_answer),
        cmocka_unit_test(sysman_diag_repair_needs_a_reset),
        cmocka_unit_test(sysman_diag_subsets_answer_their_tests),
        cmocka_unit_test(sysman_diag_bad_inputs),
        cmocka_unit_test(sysman_fans_answer),
        cmocka_unit_test(sysman_fan_default_mode_follows_the_temperature),
        cmocka_unit_test(sysman_fan_modes_apply),
        cmocka_unit_test(sysman_fan_bad_inputs),
        cmocka_unit_test(sysman_leds_answer_and_apply),
        cmocka_unit_test(sysman_led_bad_inputs),
        cmocka_unit_test(sysman_psus_answer),
        cmocka_unit_test(sysman_psu_bad_inputs),
        cmocka_unit_test(sysman_oc_capabilities_answer),
        cmocka_unit_test(sysman_oc_modes_move_the_clock),
        cmocka_unit_test(sysman_oc_targets_are_checked),
        cmocka_unit_test_setup_teardown(sysman_oc_fixed_mode_speeds_kernels_up, zc_setup_exec, zc_teardown_exec),
        cmocka_unit_test(sysman_oc_bad_inputs),
#if ZC_L0_AT_LEAST(7)
        cmocka_unit_test(sysman_engine_activity_ext_leads_with_the_pf),
#endif
#if ZC_L0_AT_LEAST(10)
        cmocka_unit_test(sysman_vfs_answer_their_utilisation),
#endif
#if ZC_L0_AT_LEAST(12)
        cmocka_unit_test(sysman_vf_capabilities),
#endif
    };
    static const zc_suite suite = {ZC_EXECUTABLE, tests, ZC_COUNT(tests), zc_setup_system, zc_teardown_system, NULL, 0};
    return zc_main(argc, argv, &suite);
}
