/* Conformance: the driver under the loader's modes and stock layers.
 *
 * One small workload runs in fresh processes (this executable re-executed with --workload) under each configuration
 * of the loader: plain, with loader intercept, with the validation layer and with the tracing layer. Each reports
 * its results as key=value lines; the parent checks them, and that bad arguments give the same codes everywhere. */
#include "zc_harness.h"

#include <layers/zel_tracing_api.h>
#include <layers/zel_tracing_register_cb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------------------------------------------------
 * The workload (child side) */

static void zc_report(const char *key, ze_result_t result) {
    printf("%s=%s\n", key, zc_result_name(result));
}

static ze_driver_handle_t zc_workload_driver(void) {
    uint32_t n = 0;
    ze_result_t result = zeDriverGet(&n, NULL);
    printf("drivers=%u\n", n);
    if (result != ZE_RESULT_SUCCESS || n == 0)
        return NULL;
    ze_driver_handle_t *drivers = calloc(n, sizeof *drivers);
    if (drivers == NULL || zeDriverGet(&n, drivers) != ZE_RESULT_SUCCESS) {
        free(drivers);
        return NULL;
    }
    ze_driver_handle_t driver = drivers[0];
    free(drivers);
    return driver;
}

static ze_device_handle_t zc_workload_device(ze_driver_handle_t driver) {
    uint32_t n = 1;
    ze_device_handle_t device = NULL;
    zc_report("device_get", zeDeviceGet(driver, &n, &device));
    printf("devices=%u\n", n);
    ze_device_properties_t properties = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
    zc_report("device_properties", zeDeviceGetProperties(device, &properties));
    printf("device_name=%s\n", properties.name);
    return device;
}

static void zc_workload_context(ze_driver_handle_t driver) {
    ze_context_desc_t desc = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0};
    ze_context_handle_t context = NULL;
    ze_result_t created = zeContextCreate(driver, &desc, &context);
    zc_report("context_create", created);
    if (created == ZE_RESULT_SUCCESS)
        zc_report("context_destroy", zeContextDestroy(context));
}

/* Bad arguments whose codes the headers fix. NULL handles only without intercept: the loader looks inside the
 * handles it wraps and would crash on NULL before any layer or driver could answer. */
static void zc_workload_bad_arguments(ze_driver_handle_t driver, ze_device_handle_t device) {
    ze_context_desc_t bad_flags = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0x2};
    ze_context_handle_t context = NULL;
    zc_report("bad.device_get_null_count", zeDeviceGet(driver, NULL, NULL));
    zc_report("bad.device_properties_null", zeDeviceGetProperties(device, NULL));
    zc_report("bad.context_create_null_desc", zeContextCreate(driver, NULL, &context));
    zc_report("bad.context_create_flags", zeContextCreate(driver, &bad_flags, &context));
    const char *intercept = getenv("ZE_ENABLE_LOADER_INTERCEPT");
    if (intercept == NULL || strcmp(intercept, "1") != 0) {
        ze_device_properties_t properties = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
        zc_report("bad.device_properties_null_device", zeDeviceGetProperties(NULL, &properties));
    }
}

typedef struct zc_trace_counts {
    int prologues;
    int epilogues;
    int paired; /* epilogues that saw their prologue's instance data */
    ze_driver_handle_t driver_seen;
} zc_trace_counts;

static void ZE_APICALL zc_device_get_prologue(ze_device_get_params_t *params, ze_result_t result, void *user,
                                              void **instance) {
    (void)result;
    zc_trace_counts *counts = user;
    counts->prologues++;
    counts->driver_seen = *params->phDriver;
    *instance = counts;
}

static void ZE_APICALL zc_device_get_epilogue(ze_device_get_params_t *params, ze_result_t result, void *user,
                                              void **instance) {
    (void)params;
    (void)result;
    zc_trace_counts *counts = user;
    counts->epilogues++;
    counts->paired += *instance == counts;
}

/* A tracer with a prologue and an epilogue on zeDeviceGet, enabled around exactly one call. */
static void zc_workload_tracing(ze_driver_handle_t driver) {
    static zc_trace_counts counts;
    zel_tracer_desc_t desc = {ZEL_STRUCTURE_TYPE_TRACER_DESC, NULL, &counts};
    zel_tracer_handle_t tracer = NULL;
    ze_result_t created = zelTracerCreate(&desc, &tracer);
    zc_report("tracer_create", created);
    if (created != ZE_RESULT_SUCCESS)
        return;
    zc_report("tracer_prologue",
              zelTracerDeviceGetRegisterCallback(tracer, ZEL_REGISTER_PROLOGUE, zc_device_get_prologue));
    zc_report("tracer_epilogue",
              zelTracerDeviceGetRegisterCallback(tracer, ZEL_REGISTER_EPILOGUE, zc_device_get_epilogue));
    zc_report("tracer_enable", zelTracerSetEnabled(tracer, true));
    uint32_t n = 0;
    zc_report("traced_device_get", zeDeviceGet(driver, &n, NULL));
    zc_report("tracer_disable", zelTracerSetEnabled(tracer, false));
    zc_report("tracer_destroy", zelTracerDestroy(tracer));
    printf("prologues=%d\nepilogues=%d\npaired=%d\nprologue_saw_driver=%d\n", counts.prologues, counts.epilogues,
           counts.paired, counts.driver_seen == driver);
}

/* `--workload [tracing]`: always exits 0 when it gets to the end, so that the parent can tell a crash. */
static int zc_workload(int argc, char **argv) {
    ze_result_t result = zeInit(0);
    zc_report("init", result);
    ze_driver_handle_t driver = result == ZE_RESULT_SUCCESS ? zc_workload_driver() : NULL;
    if (driver != NULL) {
        ze_device_handle_t device = zc_workload_device(driver);
        zc_workload_context(driver);
        zc_workload_bad_arguments(driver, device);
        if (argc > 2 && strcmp(argv[2], "tracing") == 0)
            zc_workload_tracing(driver);
    }
    printf("done=1\n");
    return 0;
}

/* ------------------------------------------------------------------------------------------------------------------
 * The tests (parent side) */

/* The codes the headers fix for the workload's bad arguments. */
static const struct {
    const char *key;
    ze_result_t expected;
    bool uses_null_handle;
} zc_bad_results[] = {
    {"bad.device_get_null_count", ZE_RESULT_ERROR_INVALID_NULL_POINTER, false},
    {"bad.device_properties_null", ZE_RESULT_ERROR_INVALID_NULL_POINTER, false},
    {"bad.context_create_null_desc", ZE_RESULT_ERROR_INVALID_NULL_POINTER, false},
    {"bad.context_create_flags", ZE_RESULT_ERROR_INVALID_ENUMERATION, false},
    {"bad.device_properties_null_device", ZE_RESULT_ERROR_INVALID_NULL_HANDLE, true},
};

static void zc_run_workload(const char *const env[], bool tracing, zc_child *child) {
    const char *const args[] = {"--workload", tracing ? "tracing" : NULL, NULL};
    if (!zc_run_self(args, env, ZC_CHILD_TIMEOUT_MS, child))
        zc_fail("cannot start a child process");
    zc_assert_child_ok(child, "the workload");
    assert_int_equal(zc_child_number(child, "done"), 1);
}

static void zc_expect(const zc_child *child, const char *key, ze_result_t expected) {
    char value[128];
    if (!zc_child_value(child, key, value, sizeof value))
        zc_fail("the workload reported no '%s'; stdout:\n%s\nstderr:\n%s", key, child->out, child->err);
    if (strcmp(value, zc_result_name(expected)) != 0)
        zc_fail("%s was %s, expected %s\nstderr of the workload:\n%s", key, value, zc_result_name(expected),
                child->err);
}

/* The results every configuration must give. */
static void zc_check_workload(const zc_child *child, bool intercept) {
    zc_expect(child, "init", ZE_RESULT_SUCCESS);
    assert_true(zc_child_number(child, "drivers") >= 1);
    zc_expect(child, "device_get", ZE_RESULT_SUCCESS);
    assert_int_equal(zc_child_number(child, "devices"), 1);
    zc_expect(child, "device_properties", ZE_RESULT_SUCCESS);
    zc_expect(child, "context_create", ZE_RESULT_SUCCESS);
    zc_expect(child, "context_destroy", ZE_RESULT_SUCCESS);
    for (size_t i = 0; i < ZC_COUNT(zc_bad_results); i++) {
        if (!(intercept && zc_bad_results[i].uses_null_handle))
            zc_expect(child, zc_bad_results[i].key, zc_bad_results[i].expected);
    }
}

static void workload_plain_succeeds(void **state) {
    (void)state;
    zc_child child;
    zc_run_workload(NULL, false, &child);
    zc_check_workload(&child, false);
    zc_child_free(&child);
}

static void workload_loader_intercept_succeeds(void **state) {
    (void)state;
    const char *const env[] = {"ZE_ENABLE_LOADER_INTERCEPT=1", NULL};
    zc_child child;
    zc_run_workload(env, false, &child);
    zc_check_workload(&child, true);
    zc_child_free(&child);
}

static void workload_validation_layer_same_results(void **state) {
    (void)state;
    const char *const env[] = {"ZE_ENABLE_VALIDATION_LAYER=1", "ZE_ENABLE_PARAMETER_VALIDATION=1", NULL};
    zc_child plain, validated;
    zc_run_workload(NULL, false, &plain);
    zc_run_workload(env, false, &validated);
    zc_check_workload(&validated, false);
    /* Whoever answers a bad argument, the layer or the driver, the application sees the same code. */
    for (size_t i = 0; i < ZC_COUNT(zc_bad_results); i++) {
        char without[128], with[128];
        assert_true(zc_child_value(&plain, zc_bad_results[i].key, without, sizeof without));
        assert_true(zc_child_value(&validated, zc_bad_results[i].key, with, sizeof with));
        if (strcmp(without, with) != 0)
            zc_fail("%s: %s without the validation layer, %s with it", zc_bad_results[i].key, without, with);
    }
    zc_child_free(&plain);
    zc_child_free(&validated);
}

static void workload_tracing_layer_calls_callbacks_once(void **state) {
    (void)state;
    const char *const env[] = {"ZE_ENABLE_TRACING_LAYER=1", NULL};
    zc_child child;
    zc_run_workload(env, true, &child);
    zc_check_workload(&child, false);
    zc_expect(&child, "tracer_create", ZE_RESULT_SUCCESS);
    zc_expect(&child, "tracer_prologue", ZE_RESULT_SUCCESS);
    zc_expect(&child, "tracer_epilogue", ZE_RESULT_SUCCESS);
    zc_expect(&child, "tracer_enable", ZE_RESULT_SUCCESS);
    zc_expect(&child, "traced_device_get", ZE_RESULT_SUCCESS);
    zc_expect(&child, "tracer_disable", ZE_RESULT_SUCCESS);
    zc_expect(&child, "tracer_destroy", ZE_RESULT_SUCCESS);
    assert_int_equal(zc_child_number(&child, "prologues"), 1);
    assert_int_equal(zc_child_number(&child, "epilogues"), 1);
    assert_int_equal(zc_child_number(&child, "paired"), 1);
    assert_int_equal(zc_child_number(&child, "prologue_saw_driver"), 1);
    zc_child_free(&child);
}

int main(int argc, char **argv) {
    if (argc >= 2 && strcmp(argv[1], "--workload") == 0)
        return zc_workload(argc, argv);
    static const struct CMUnitTest tests[] = {
        cmocka_unit_test(workload_plain_succeeds),
        cmocka_unit_test(workload_loader_intercept_succeeds),
        cmocka_unit_test(workload_validation_layer_same_results),
        cmocka_unit_test(workload_tracing_layer_calls_callbacks_once),
    };
    static const zc_suite suite = {ZC_EXECUTABLE, tests, ZC_COUNT(tests), NULL, NULL, NULL, 0};
    return zc_main(argc, argv, &suite);
}
