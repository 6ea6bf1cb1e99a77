/* Conformance: sysman's optional components in the legacy model (ZES_ENABLE_SYSMAN=1 before zeInit): diagnostics
 * test suites (zesDeviceEnumDiagnosticTestSuites, zesDiagnostics*). Every suite answers its properties and tests, a
 * run answers a zes_diag_result_t, and bad inputs are refused. On the fake the suites are the scenario's
 * (docs/sysman.md, "Diagnostics"): the shipped Data Center GPU Max cards run ARRAY and SCAN without errors in their
 * modelled time, and the sysman-components scenario's planted faults give their results, a repair needing a reset
 * included. */
#include "zc_metric.h"
#include "zc_sysman.h"

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

int main(int argc, char **argv) {
    zc_own_instance();
    static const struct CMUnitTest tests[] = {
        cmocka_unit_test(sysman_diag_suites_answer),
        cmocka_unit_test(sysman_diag_fake_names_its_suites),
        cmocka_unit_test(sysman_diag_runs_answer),
        cmocka_unit_test(sysman_diag_repair_needs_a_reset),
        cmocka_unit_test(sysman_diag_subsets_answer_their_tests),
        cmocka_unit_test(sysman_diag_bad_inputs),
    };
    static const zc_suite suite = {ZC_EXECUTABLE, tests, ZC_COUNT(tests), zc_setup_system, zc_teardown_system, NULL, 0};
    return zc_main(argc, argv, &suite);
}
