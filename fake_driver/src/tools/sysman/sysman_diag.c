/* Diagnostics (zes_api.h, "Diagnostics"): the test suites the scenario gives a device reported as a card
 * (docs/sysman.md, "Diagnostics"; docs/scenarios.md, sysman.diagnostics), as Intel's driver offers ARRAY and SCAN on
 * Data Center GPU Max. A run waits for the device's work to finish (the header: running diagnostics may destroy the
 * device's state), takes the suite's modelled time, and answers the worst result of the tests it ran: a test that
 * aborts or cannot be repaired ends the run, one that needs a reboot for repair leaves the device needing a reset
 * (ZES_RESET_REASON_FLAG_REPAIR), which zesDeviceReset then performs. */
#include "core/zf_chain.h"
#include "tools/sysman/zf_sysman.h"

#include <errno.h>
#include <stdio.h>
#include <time.h>

static zf_sm_diag *zf_sm_diag_from(zes_diag_handle_t handle) {
    return (zf_sm_diag *)handle;
}

bool zf_sm_diag_start(zf_sm_device *sm) {
    if (zf_device_reported_as_subdevice(sm->device)) /* the suites test the whole card, as its firmware does */
        return true;
    const zf_scenario_sysman *model = &sm->device->desc->sysman;
    bool ok = true;
    for (uint32_t i = 0; i < model->num_diag_suites; i++) {
        zf_sm_diag *diag = &sm->diags[sm->num_diags++];
        *diag = (zf_sm_diag){.owner = sm, .suite = &model->diag_suites[i]};
        ok &= zf_object_register(&diag->header, ZF_OBJ_ZES_DIAG, &sm->device->header);
    }
    return ok;
}

ze_result_t zfi_zesDeviceEnumDiagnosticTestSuites(zes_device_handle_t hDevice, uint32_t *pCount,
                                                  zes_diag_handle_t *phDiagnostics) {
    zf_sm_device *sm;
    ze_result_t result = zf_sm_device_of(hDevice, &sm);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    zf_sm_fill_handles(pCount, sm->num_diags, (void **)phDiagnostics, sm->diags, sizeof sm->diags[0]);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zesDiagnosticsGetProperties(zes_diag_handle_t hDiagnostics, zes_diag_properties_t *pProperties) {
    const zf_sm_diag *diag = zf_sm_diag_from(hDiagnostics);
    zf_out_check(pProperties, "pProperties", ZES_STRUCTURE_TYPE_DIAG_PROPERTIES);
    pProperties->onSubdevice = zf_sm_on_subdevice(diag->owner->device);
    pProperties->subdeviceId = zf_sm_subdevice_id(diag->owner->device);
    snprintf(pProperties->name, sizeof pProperties->name, "%s", diag->suite->name);
    pProperties->haveTests = diag->suite->num_tests > 0;
    return ZE_RESULT_SUCCESS;
}

/* The tests in order of increasing index: their index is their position in the scenario's list. */
ze_result_t zfi_zesDiagnosticsGetTests(zes_diag_handle_t hDiagnostics, uint32_t *pCount, zes_diag_test_t *pTests) {
    const zf_scenario_diag_suite *suite = zf_sm_diag_from(hDiagnostics)->suite;
    uint32_t n = zf_count_query(pCount, suite->num_tests, pTests);
    for (uint32_t i = 0; i < n; i++) {
        pTests[i].index = i;
        snprintf(pTests[i].name, sizeof pTests[i].name, "%s", suite->tests[i].name);
    }
    return ZE_RESULT_SUCCESS;
}

/* How bad a result is: a run answers the worst of its tests'. */
static uint32_t zf_sm_diag_rank(zes_diag_result_t result) {
    switch (result) {
    case ZES_DIAG_RESULT_REBOOT_FOR_REPAIR:
        return 1;
    case ZES_DIAG_RESULT_FAIL_CANT_REPAIR:
        return 2;
    case ZES_DIAG_RESULT_ABORT:
        return 3;
    default:
        return 0;
    }
}

static bool zf_sm_diag_ends_run(zes_diag_result_t result) {
    return result == ZES_DIAG_RESULT_ABORT || result == ZES_DIAG_RESULT_FAIL_CANT_REPAIR;
}

/* The run of tests first..last: the worst result and the number of tests run (a test that ends the run counts). */
static zes_diag_result_t zf_sm_diag_results(const zf_scenario_diag_suite *suite, uint32_t first, uint32_t last,
                                            uint32_t *run) {
    if (suite->num_tests == 0) {
        *run = 1;
        return suite->result;
    }
    zes_diag_result_t worst = ZES_DIAG_RESULT_NO_ERRORS;
    *run = 0;
    for (uint32_t i = first; i <= last; i++) {
        zes_diag_result_t result = suite->tests[i].result;
        (*run)++;
        if (zf_sm_diag_rank(result) > zf_sm_diag_rank(worst))
            worst = result;
        if (zf_sm_diag_ends_run(result))
            break;
    }
    return worst;
}

/* Blocks for the run's share of the suite's duration (host time, which device time follows). */
static void zf_sm_diag_wait(const zf_scenario_diag_suite *suite, uint32_t run) {
    uint32_t parts = suite->num_tests > 0 ? suite->num_tests : 1;
    uint64_t ns = (uint64_t)suite->duration_ms * 1000000u * run / parts;
    struct timespec left = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};
    while (nanosleep(&left, &left) != 0 && errno == EINTR)
        continue;
}

/* A run that needs a reboot for repair: the device needs a reset, and its registered listeners hear it. */
static void zf_sm_diag_note(zf_sm_device *sm, zes_diag_result_t result) {
    if (result != ZES_DIAG_RESULT_REBOOT_FOR_REPAIR)
        return;
    zf_sm_lock();
    sm->repair_pending = true;
    zf_sm_raise(sm, ZES_EVENT_TYPE_FLAG_DEVICE_RESET_REQUIRED);
    zf_sm_unlock();
}

/* A suite with tests runs those from startIndex to endIndex (ZES_DIAG_LAST_TEST_INDEX, or any index past the last,
 * ends with the last); one without tests always runs whole, whatever the indices, as Intel's driver runs ARRAY and
 * SCAN. */
static ze_result_t zf_sm_diag_range(const zf_scenario_diag_suite *suite, uint32_t start, uint32_t end, uint32_t *last) {
    if (suite->num_tests == 0) {
        *last = 0;
        return ZE_RESULT_SUCCESS;
    }
    if (start >= suite->num_tests)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                       "startIndex %u: suite %s has tests 0..%u (zesDiagnosticsGetTests)", start, suite->name,
                       suite->num_tests - 1);
    if (end < start)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "endIndex %u is below startIndex %u", end, start);
    *last = end < suite->num_tests ? end : suite->num_tests - 1;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zesDiagnosticsRunTests(zes_diag_handle_t hDiagnostics, uint32_t startIndex, uint32_t endIndex,
                                       zes_diag_result_t *pResult) {
    zf_sm_diag *diag = zf_sm_diag_from(hDiagnostics);
    const zf_scenario_diag_suite *suite = diag->suite;
    uint32_t last = 0;
    ze_result_t result = zf_sm_diag_range(suite, startIndex, endIndex, &last);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    zf_device_wait_idle(diag->owner->device, UINT64_MAX);
    uint32_t run;
    zes_diag_result_t outcome = zf_sm_diag_results(suite, startIndex, last, &run);
    zf_sm_diag_wait(suite, run);
    zf_sm_diag_note(diag->owner, outcome);
    zf_log(ZF_LOG_INFO, "%s: diagnostics %s ran %u test(s): result %u", diag->owner->device->desc->name, suite->name,
           run, (unsigned)outcome);
    *pResult = outcome;
    return ZE_RESULT_SUCCESS;
}
