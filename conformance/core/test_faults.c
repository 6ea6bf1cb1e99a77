/* Fault injection (docs/scenarios.md, "faults"; docs/extensions.md, "Fault injection"): calls that answer an injected
 * result without running, and devices lost after a number of commands, armed by a scenario's rules or at run time
 * through the zefake extension. Every check is fake-only.
 *
 * Rules are process-wide, so each test that arms one clears it before it ends; what a scenario arms at zeInit, and
 * devices that are lost, are checked in child processes of their own, which print `key=value` lines. */
#include "zc_harness.h"

#include <level_zero/zes_api.h>
#include <level_zero/zet_api.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static zefake_pfnInjectCallFault_t zc_inject_call;
static zefake_pfnInjectDeviceLost_t zc_inject_lost;
static zefake_pfnClearFaults_t zc_clear_faults;
static zefake_pfnGetInjectedFaultCount_t zc_fault_count;

/* The extension's functions from `driver` (zc_fake_function needs the harness's system, which children lack). */
static void zc_load_extension_of(ze_driver_handle_t driver) {
    void *address[4] = {NULL, NULL, NULL, NULL};
    const char *names[4] = {ZEFAKE_FN_INJECT_CALL_FAULT, ZEFAKE_FN_INJECT_DEVICE_LOST, ZEFAKE_FN_CLEAR_FAULTS,
                            ZEFAKE_FN_GET_INJECTED_FAULT_COUNT};
    for (int i = 0; i < 4; i++)
        zc_assert_success(zeDriverGetExtensionFunctionAddress(driver, names[i], &address[i]));
    zc_inject_call = (zefake_pfnInjectCallFault_t)address[0];
    zc_inject_lost = (zefake_pfnInjectDeviceLost_t)address[1];
    zc_clear_faults = (zefake_pfnClearFaults_t)address[2];
    zc_fault_count = (zefake_pfnGetInjectedFaultCount_t)address[3];
}

static void zc_load_extension(void) {
    zc_load_extension_of(zc_sys()->driver);
}

static uint64_t zc_fired(bool reset) {
    uint64_t count = 0;
    zc_assert_success(zc_fault_count(&count, reset));
    return count;
}

/* zeMemAllocHost with a sentinel in the output: the call's result, and whether the output was left alone. */
static ze_result_t zc_alloc_host(ze_context_handle_t context, bool *untouched) {
    ze_host_mem_alloc_desc_t desc = {ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, NULL, 0};
    void *sentinel = (void *)&desc;
    void *ptr = sentinel;
    ze_result_t result = zeMemAllocHost(context, &desc, 64, 0, &ptr);
    *untouched = ptr == sentinel;
    if (result == ZE_RESULT_SUCCESS)
        zc_assert_success(zeMemFree(context, ptr));
    return result;
}

/* A test that fails halfway leaves no rule armed for the next one. */
static int zc_teardown_faults(void **state) {
    if (zc_clear_faults != NULL)
        zc_clear_faults();
    return zc_teardown_context(state);
}

/* ---- Call rules armed at run time ------------------------------------------------------------------------------ */

static void call_rule_fails_the_calls_after_its_first(void **state) {
    zc_skip_unless_fake();
    zc_load_extension();
    ze_context_handle_t context = *state;
    zc_fired(true);
    zc_assert_success(zc_inject_call("zeMemAllocHost", ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, 1, 2));
    const ze_result_t expected[] = {ZE_RESULT_SUCCESS, ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY,
                                    ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, ZE_RESULT_SUCCESS, ZE_RESULT_SUCCESS};
    for (size_t i = 0; i < ZC_COUNT(expected); i++) {
        bool untouched = false;
        zc_assert_result(zc_alloc_host(context, &untouched), expected[i]);
        if (expected[i] != ZE_RESULT_SUCCESS && !untouched)
            zc_fail("call %zu: the injected failure wrote the output pointer", i + 1);
    }
    assert_int_equal(zc_fired(true), 2);
    zc_assert_success(zc_clear_faults());
}

/* A rejected argument is not a call the rule counts: the argument checks come first. */
static void call_rule_counts_only_calls_that_pass_the_checks(void **state) {
    zc_skip_unless_fake();
    zc_load_extension();
    ze_context_handle_t context = *state;
    zc_assert_success(zc_inject_call("zeMemAllocHost", ZE_RESULT_ERROR_DEVICE_LOST, 0, 1));
    zc_assert_result(zeMemAllocHost(context, NULL, 64, 0, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    bool untouched = false;
    zc_assert_result(zc_alloc_host(context, &untouched), ZE_RESULT_ERROR_DEVICE_LOST);
    zc_assert_result(zc_alloc_host(context, &untouched), ZE_RESULT_SUCCESS);
    zc_assert_success(zc_clear_faults());
}

static void clear_disarms_every_rule(void **state) {
    zc_skip_unless_fake();
    zc_load_extension();
    ze_context_handle_t context = *state;
    zc_assert_success(zc_inject_call("zeMemAllocHost", ZE_RESULT_ERROR_UNKNOWN, 0, ZEFAKE_FAULT_COUNT_ALL));
    bool untouched = false;
    for (int i = 0; i < 3; i++)
        zc_assert_result(zc_alloc_host(context, &untouched), ZE_RESULT_ERROR_UNKNOWN);
    zc_assert_success(zc_clear_faults());
    zc_fired(true);
    zc_assert_result(zc_alloc_host(context, &untouched), ZE_RESULT_SUCCESS);
    assert_int_equal(zc_fired(false), 0);
}

/* ---- Tracing sees the injected result -------------------------------------------------------------------------- */

typedef struct zc_traced {
    int calls;
    ze_result_t last;
} zc_traced;

static void ZE_APICALL zc_on_alloc_host(ze_mem_alloc_host_params_t *params, ze_result_t result, void *user,
                                        void **instance) {
    (void)params;
    (void)instance;
    zc_traced *traced = user;
    traced->calls++;
    traced->last = result;
}

static void tracer_epilogue_sees_the_injected_result(void **state) {
    zc_skip_unless_fake();
    zc_load_extension();
    ze_context_handle_t context = *state;
    zc_traced traced = {0, ZE_RESULT_SUCCESS};
    zet_tracer_exp_desc_t desc = {ZET_STRUCTURE_TYPE_TRACER_EXP_DESC, NULL, &traced};
    zet_tracer_exp_handle_t tracer = NULL;
    zc_assert_success(zetTracerExpCreate(context, &desc, &tracer));
    zet_core_callbacks_t prologues = {0}, epilogues = {0};
    epilogues.Mem.pfnAllocHostCb = zc_on_alloc_host;
    zc_assert_success(zetTracerExpSetPrologues(tracer, &prologues));
    zc_assert_success(zetTracerExpSetEpilogues(tracer, &epilogues));
    zc_assert_success(zetTracerExpSetEnabled(tracer, 1));
    zc_assert_success(zc_inject_call("zeMemAllocHost", ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, 0, 1));
    bool untouched = false;
    zc_assert_result(zc_alloc_host(context, &untouched), ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY);
    zc_assert_success(zetTracerExpSetEnabled(tracer, 0));
    zc_assert_success(zetTracerExpDestroy(tracer));
    zc_assert_success(zc_clear_faults());
    assert_int_equal(traced.calls, 1);
    zc_assert_result(traced.last, ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY);
}

/* ---- Counting across threads ----------------------------------------------------------------------------------- */

#define ZC_THREADS          4
#define ZC_CALLS_PER_THREAD 500

static void *zc_count_failures(void *arg) {
    uintptr_t failed = 0;
    ze_api_version_t version;
    for (int i = 0; i < ZC_CALLS_PER_THREAD; i++)
        failed += zeDriverGetApiVersion(zc_sys()->driver, &version) != ZE_RESULT_SUCCESS;
    (void)arg;
    return (void *)failed;
}

/* Calls are counted atomically: of 2000 calls on four threads, exactly `count` fail (and `after` succeed). */
static void call_rule_counts_exactly_across_threads(void **state) {
    (void)state;
    zc_skip_unless_fake();
    zc_load_extension();
    zc_fired(true);
    zc_assert_success(zc_inject_call("zeDriverGetApiVersion", ZE_RESULT_ERROR_DEVICE_LOST, 300, 1500));
    pthread_t threads[ZC_THREADS];
    for (int t = 0; t < ZC_THREADS; t++)
        assert_int_equal(pthread_create(&threads[t], NULL, zc_count_failures, NULL), 0);
    uintptr_t failed = 0;
    for (int t = 0; t < ZC_THREADS; t++) {
        void *result = NULL;
        assert_int_equal(pthread_join(threads[t], &result), 0);
        failed += (uintptr_t)result;
    }
    zc_assert_success(zc_clear_faults());
    assert_int_equal(failed, 1500);
    assert_int_equal(zc_fired(true), 1500);
}

/* ---- Bad input to the extension -------------------------------------------------------------------------------- */

static void extension_refuses_bad_input(void **state) {
    (void)state;
    zc_skip_unless_fake();
    zc_load_extension();
    const ze_result_t oom = ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    zc_assert_result(zc_inject_call(NULL, oom, 0, 1), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zc_inject_call("zeMemAllocHostt", oom, 0, 1), ZE_RESULT_ERROR_INVALID_FUNCTION_NAME);
    zc_assert_result(zc_inject_call("zefakeGetInfo", oom, 0, 1), ZE_RESULT_ERROR_INVALID_FUNCTION_NAME);
    zc_assert_result(zc_inject_call("zeMemAllocHost", ZE_RESULT_SUCCESS, 0, 1), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    zc_assert_result(zc_inject_call("zeMemAllocHost", (ze_result_t)0x12345, 0, 1), ZE_RESULT_ERROR_INVALID_ENUMERATION);
    zc_assert_result(zc_inject_call("zeMemAllocHost", oom, 0, 0), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    zc_assert_result(zc_inject_lost(NULL, 0), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    ze_device_uuid_t nobody;
    memset(&nobody, 0xA5, sizeof nobody);
    zc_assert_result(zc_inject_lost(&nobody, 0), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    zc_assert_result(zc_fault_count(NULL, 0), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    /* None of them armed anything. */
    zc_fired(true);
    bool untouched = false;
    ze_context_handle_t context = NULL;
    ze_context_desc_t desc = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0};
    zc_assert_success(zeContextCreate(zc_sys()->driver, &desc, &context));
    zc_assert_success(zc_alloc_host(context, &untouched));
    zc_assert_success(zeContextDestroy(context));
    assert_int_equal(zc_fired(false), 0);
}

/* ---- Children: a scenario's rules, lost devices ------------------------------------------------------------------ */

static void zc_put(const char *key, ze_result_t result) {
    printf("%s=%s\n", key, zc_result_name(result));
}

/* Runs `fills` one-byte fills into bytes 0.. of a host buffer on the device; returns how many bytes were written. */
static uint32_t zc_run_fills(ze_context_handle_t context, ze_device_handle_t device, uint32_t fills) {
    ze_host_mem_alloc_desc_t host = {ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, NULL, 0};
    uint8_t *buffer = NULL;
    zc_assert_success(zeMemAllocHost(context, &host, 64, 0, (void **)&buffer));
    memset(buffer, 0, 64);
    ze_command_list_desc_t list_desc = {ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC, NULL, 0, 0};
    ze_command_list_handle_t list = NULL;
    zc_assert_success(zeCommandListCreate(context, device, &list_desc, &list));
    const uint8_t pattern = 0x5A;
    for (uint32_t i = 0; i < fills; i++)
        zc_assert_success(zeCommandListAppendMemoryFill(list, buffer + i, &pattern, 1, 1, NULL, 0, NULL));
    zc_assert_success(zeCommandListClose(list));
    ze_command_queue_desc_t queue_desc = {
        ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, NULL, 0, 0, 0, ZE_COMMAND_QUEUE_MODE_DEFAULT,
        ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
    ze_command_queue_handle_t queue = NULL;
    zc_assert_success(zeCommandQueueCreate(context, device, &queue_desc, &queue));
    zc_assert_success(zeCommandQueueExecuteCommandLists(queue, 1, &list, NULL));
    zc_put("synchronize", zeCommandQueueSynchronize(queue, UINT64_MAX));
    zc_assert_success(zeCommandQueueDestroy(queue));
    zc_assert_success(zeCommandListDestroy(list));
    uint32_t written = 0;
    for (uint32_t i = 0; i < 64; i++)
        written += buffer[i] == pattern;
    zc_assert_success(zeMemFree(context, buffer));
    return written;
}

/* The uncorrectable error set's count of a category (ZES_ENABLE_SYSMAN=1). */
static uint64_t zc_ras_uncorrectable(ze_device_handle_t device, zes_ras_error_cat_t category) {
    zes_ras_handle_t sets[2];
    uint32_t count = 2;
    zc_assert_success(zesDeviceEnumRasErrorSets((zes_device_handle_t)device, &count, sets));
    for (uint32_t i = 0; i < count; i++) {
        zes_ras_properties_t properties = {ZES_STRUCTURE_TYPE_RAS_PROPERTIES, NULL, 0, 0, 0};
        zc_assert_success(zesRasGetProperties(sets[i], &properties));
        zes_ras_state_t ras = {ZES_STRUCTURE_TYPE_RAS_STATE, NULL, {0}};
        zc_assert_success(zesRasGetState(sets[i], 0, &ras));
        if (properties.type == ZES_RAS_ERROR_TYPE_UNCORRECTABLE)
            return ras.category[category];
    }
    zc_fail("no uncorrectable error set");
    return 0;
}

typedef struct zc_child_system {
    ze_driver_handle_t driver;
    ze_device_handle_t devices[4];
    uint32_t num_devices;
    ze_context_handle_t context;
} zc_child_system;

static void zc_child_start(zc_child_system *s) {
    zc_assert_success(zeInit(0));
    uint32_t count = 1;
    zc_assert_success(zeDriverGet(&count, &s->driver));
    s->num_devices = ZC_COUNT(s->devices);
    zc_assert_success(zeDeviceGet(s->driver, &s->num_devices, s->devices));
    ze_context_desc_t desc = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0};
    zc_assert_success(zeContextCreate(s->driver, &desc, &s->context));
    zc_load_extension_of(s->driver);
}

/* In conformance/core/scenarios/faults.yaml: its call rules, then its card's loss after three commands. */
static int zc_child_scenario(int argc, char **argv) {
    (void)argc;
    (void)argv;
    zc_child_system s;
    zc_child_start(&s);
    ze_device_mem_alloc_desc_t desc = {ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, NULL, 0, 0};
    uint32_t untouched = 0;
    for (int i = 1; i <= 5; i++) {
        void *ptr = &desc;
        char key[16];
        snprintf(key, sizeof key, "alloc%d", i);
        ze_result_t result = zeMemAllocDevice(s.context, &desc, 4096, 0, s.devices[0], &ptr);
        zc_put(key, result);
        untouched += result != ZE_RESULT_SUCCESS && ptr == (void *)&desc;
        if (result == ZE_RESULT_SUCCESS)
            zc_assert_success(zeMemFree(s.context, ptr));
    }
    printf("untouched=%u\n", untouched);
    ze_event_pool_desc_t pool_desc = {ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, NULL, 0, 1};
    for (int i = 1; i <= 2; i++) {
        ze_event_pool_handle_t pool = NULL;
        char key[16];
        snprintf(key, sizeof key, "pool%d", i);
        zc_put(key, zeEventPoolCreate(s.context, &pool_desc, 1, &s.devices[0], &pool));
        printf("%s_handle=%d\n", key, pool != NULL);
    }
    zc_put("status_before", zeDeviceGetStatus(s.devices[0]));
    printf("filled=%u\n", zc_run_fills(s.context, s.devices[0], 5));
    zc_put("status_after", zeDeviceGetStatus(s.devices[0]));
    printf("ras_compute=%llu\n",
           (unsigned long long)zc_ras_uncorrectable(s.devices[0], ZES_RAS_ERROR_CAT_COMPUTE_ERRORS));
    printf("ras_programming=%llu\n",
           (unsigned long long)zc_ras_uncorrectable(s.devices[0], ZES_RAS_ERROR_CAT_PROGRAMMING_ERRORS));
    printf("refilled=%u\n", zc_run_fills(s.context, s.devices[0], 2)); /* a lost device runs nothing */
    printf("fired=%llu\n", (unsigned long long)zc_fired(false));
    zc_assert_success(zesDeviceReset((zes_device_handle_t)s.devices[0], 0));
    zc_put("status_reset", zeDeviceGetStatus(s.devices[0]));
    printf("after_reset=%u\n", zc_run_fills(s.context, s.devices[0], 2));
    zc_assert_success(zeContextDestroy(s.context));
    return 0;
}

static void zc_expect(const zc_child *child, const char *key, const char *expected) {
    char value[128];
    if (!zc_child_value(child, key, value, sizeof value))
        zc_fail("the child printed no %s; stdout:\n%s\nstderr:\n%s", key, child->out, child->err);
    if (strcmp(value, expected) != 0)
        zc_fail("%s=%s, expected %s; stderr:\n%s", key, value, expected, child->err);
}

static void scenario_rules_fail_calls_and_lose_the_card(void **state) {
    (void)state;
    zc_skip_unless_fake();
    const char *const env[] = {"ZEFAKE_SCENARIO=" ZC_FAULTS_SCENARIO, "ZES_ENABLE_SYSMAN=1", "ZEFAKE_LOG=warn", NULL};
    zc_child child;
    if (!zc_run_child_mode("scenario", NULL, env, ZC_CHILD_TIMEOUT_MS, &child))
        zc_fail("cannot start a child process");
    zc_assert_child_ok(&child, "the scenario child");
    const char *oom = "ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY";
    const char *alloc[] = {"ZE_RESULT_SUCCESS", "ZE_RESULT_SUCCESS", oom, oom, "ZE_RESULT_SUCCESS"};
    for (int i = 0; i < 5; i++) {
        char key[16];
        snprintf(key, sizeof key, "alloc%d", i + 1);
        zc_expect(&child, key, alloc[i]);
    }
    assert_int_equal(zc_child_number(&child, "untouched"), 2);
    zc_expect(&child, "pool1", "ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY");
    zc_expect(&child, "pool2", "ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY");
    assert_int_equal(zc_child_number(&child, "pool2_handle"), 0);
    zc_expect(&child, "status_before", "ZE_RESULT_SUCCESS");
    assert_int_equal(zc_child_number(&child, "filled"), 3);
    zc_expect(&child, "status_after", "ZE_RESULT_ERROR_DEVICE_LOST");
    assert_int_equal(zc_child_number(&child, "ras_compute"), 1);
    assert_int_equal(zc_child_number(&child, "ras_programming"), 0);
    assert_int_equal(zc_child_number(&child, "refilled"), 0);
    assert_int_equal(zc_child_number(&child, "fired"), 5);
    zc_expect(&child, "status_reset", "ZE_RESULT_SUCCESS");
    assert_int_equal(zc_child_number(&child, "after_reset"), 2);
    if (strstr(child.err, "zeMemAllocDevice: injected fault: call 3 answers ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY "
                          "(faults[0] of ") == NULL)
        zc_fail("no warning names the function, the call and the rule; stderr:\n%s", child.err);
    zc_child_free(&child);
}

/* The default scenario (two tiles, FLAT): the first tile lost at run time after one command; the other tile runs on;
 * zefakeClearFaults lets the tile run commands again while its recorded fault stays. */
static int zc_child_runtime_lost(int argc, char **argv) {
    (void)argc;
    (void)argv;
    zc_child_system s;
    zc_child_start(&s);
    ze_device_properties_t properties;
    memset(&properties, 0, sizeof properties);
    properties.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES;
    zc_assert_success(zeDeviceGetProperties(s.devices[0], &properties));
    zc_assert_success(zc_inject_lost(&properties.uuid, 1));
    printf("filled=%u\n", zc_run_fills(s.context, s.devices[0], 3));
    zc_put("status_lost", zeDeviceGetStatus(s.devices[0]));
    if (s.num_devices > 1) {
        printf("other_filled=%u\n", zc_run_fills(s.context, s.devices[1], 3));
        zc_put("status_other", zeDeviceGetStatus(s.devices[1]));
    }
    zc_assert_success(zc_clear_faults());
    printf("cleared_filled=%u\n", zc_run_fills(s.context, s.devices[0], 3));
    zc_put("status_cleared", zeDeviceGetStatus(s.devices[0]));
    printf("fired=%llu\n", (unsigned long long)zc_fired(false));
    zc_assert_success(zeContextDestroy(s.context));
    return 0;
}

static void runtime_device_lost_after_commands(void **state) {
    (void)state;
    zc_skip_unless_fake();
    const char *const env[] = {"ZEFAKE_LOG=error", NULL};
    zc_child child;
    if (!zc_run_child_mode("runtime_lost", NULL, env, ZC_CHILD_TIMEOUT_MS, &child))
        zc_fail("cannot start a child process");
    zc_assert_child_ok(&child, "the runtime child");
    assert_int_equal(zc_child_number(&child, "filled"), 1);
    zc_expect(&child, "status_lost", "ZE_RESULT_ERROR_DEVICE_LOST");
    assert_int_equal(zc_child_number(&child, "other_filled"), 3);
    zc_expect(&child, "status_other", "ZE_RESULT_SUCCESS");
    assert_int_equal(zc_child_number(&child, "cleared_filled"), 3);
    zc_expect(&child, "status_cleared", "ZE_RESULT_ERROR_DEVICE_LOST");
    assert_int_equal(zc_child_number(&child, "fired"), 1);
    zc_child_free(&child);
}

int main(int argc, char **argv) {
    static const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(call_rule_fails_the_calls_after_its_first, zc_setup_context,
                                        zc_teardown_faults),
        cmocka_unit_test_setup_teardown(call_rule_counts_only_calls_that_pass_the_checks, zc_setup_context,
                                        zc_teardown_faults),
        cmocka_unit_test_setup_teardown(clear_disarms_every_rule, zc_setup_context, zc_teardown_faults),
        cmocka_unit_test_setup_teardown(tracer_epilogue_sees_the_injected_result, zc_setup_context, zc_teardown_faults),
        cmocka_unit_test_setup_teardown(call_rule_counts_exactly_across_threads, zc_setup_context, zc_teardown_faults),
        cmocka_unit_test(extension_refuses_bad_input),
        cmocka_unit_test(scenario_rules_fail_calls_and_lose_the_card),
        cmocka_unit_test(runtime_device_lost_after_commands),
    };
    static const zc_child_mode modes[] = {{"scenario", zc_child_scenario}, {"runtime_lost", zc_child_runtime_lost}};
    static const zc_suite suite = {ZC_EXECUTABLE,      tests, ZC_COUNT(tests), zc_setup_system,
                                   zc_teardown_system, modes, ZC_COUNT(modes)};
    return zc_main(argc, argv, &suite);
}
