/* Conformance: contexts (zeContextCreate, zeContextCreateEx, zeContextDestroy, zeContextGetStatus). */
#include "zc_harness.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define ZC_THREADS             8
#define ZC_CONTEXTS_PER_THREAD 200

static const ze_context_desc_t zc_desc = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0};

/* Creates a context with zeContextCreateEx on `devices`, checks it and destroys it. */
static void zc_create_ex_and_destroy(uint32_t n, ze_device_handle_t *devices) {
    ze_context_handle_t context = NULL;
    zc_assert_success(zeContextCreateEx(zc_sys()->driver, &zc_desc, n, devices, &context));
    assert_non_null(context);
    zc_assert_success(zeContextGetStatus(context));
    zc_assert_success(zeContextDestroy(context));
}

static void context_create_status_destroy(void **state) {
    (void)state;
    ze_context_handle_t context = NULL;
    zc_assert_success(zeContextCreate(zc_sys()->driver, &zc_desc, &context));
    assert_non_null(context);
    zc_assert_success(zeContextGetStatus(context));
    zc_assert_success(zeContextDestroy(context));
}

static void context_live_handles_distinct(void **state) {
    ze_context_handle_t fixture = *state;
    ze_context_handle_t other = NULL;
    zc_assert_success(zeContextCreate(zc_sys()->driver, &zc_desc, &other));
    assert_ptr_not_equal(other, fixture);
    zc_assert_success(zeContextGetStatus(fixture));
    zc_assert_success(zeContextDestroy(other));
    /* Destroying one context leaves the other usable. */
    zc_assert_success(zeContextGetStatus(fixture));
}

static void context_create_ex_each_root_device(void **state) {
    (void)state;
    const zc_system *sys = zc_sys();
    for (uint32_t i = 0; i < sys->num_roots; i++)
        zc_create_ex_and_destroy(1, &sys->roots[i]);
    zc_create_ex_and_destroy(sys->num_roots, sys->roots);
}

static void context_create_ex_subdevice_subsets(void **state) {
    (void)state;
    const zc_system *sys = zc_sys();
    for (uint32_t i = 0; i < sys->num_roots; i++) {
        for (uint32_t j = 0; j < sys->num_subdevices[i]; j++)
            zc_create_ex_and_destroy(1, &sys->subdevices[i][j]);
        if (sys->num_subdevices[i] > 0)
            zc_create_ex_and_destroy(sys->num_subdevices[i], sys->subdevices[i]);
    }
}

static void context_create_ex_zero_devices_success(void **state) {
    (void)state;
    zc_create_ex_and_destroy(0, NULL);
}

static void context_create_ex_null_devices_with_count_invalid_size(void **state) {
    (void)state;
    ze_context_handle_t context = NULL;
    zc_assert_result(zeContextCreateEx(zc_sys()->driver, &zc_desc, 1, NULL, &context), ZE_RESULT_ERROR_INVALID_SIZE);
}

static void context_create_ex_null_device_entry_fails(void **state) {
    (void)state;
    ze_device_handle_t devices[2] = {zc_sys()->roots[0], NULL};
    ze_context_handle_t context = NULL;
    ze_result_t result = zeContextCreateEx(zc_sys()->driver, &zc_desc, 2, devices, &context);
    /* The spec requires an error but names none; the fake promises INVALID_NULL_HANDLE. */
    zc_assert_error(result);
    if (zc_driver_is_fake())
        zc_assert_result(result, ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
}

static void context_create_ex_bogus_device_invalid_null_handle(void **state) {
    (void)state;
    /* A pointer that was never a device handle is undefined behaviour for the spec; the fake detects it. */
    zc_skip_unless_fake();
    uint64_t bogus_object[64] = {0};
    ze_device_handle_t devices[1] = {(ze_device_handle_t)bogus_object};
    ze_context_handle_t context = NULL;
    zc_assert_result(zeContextCreateEx(zc_sys()->driver, &zc_desc, 1, devices, &context),
                     ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
}

static void context_flags_out_of_range_invalid_enumeration(void **state) {
    (void)state;
    const ze_context_desc_t bad = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0x2}; /* header rule: 0x1 < desc->flags */
    ze_context_handle_t context = NULL;
    zc_assert_result(zeContextCreate(zc_sys()->driver, &bad, &context), ZE_RESULT_ERROR_INVALID_ENUMERATION);
    zc_assert_result(zeContextCreateEx(zc_sys()->driver, &bad, 0, NULL, &context), ZE_RESULT_ERROR_INVALID_ENUMERATION);
}

static void context_defined_flag_success(void **state) {
    (void)state;
    const ze_context_desc_t desc = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, ZE_CONTEXT_FLAG_TBD};
    ze_context_handle_t context = NULL;
    zc_assert_success(zeContextCreate(zc_sys()->driver, &desc, &context));
    zc_assert_success(zeContextDestroy(context));
}

static void context_create_bad_arguments(void **state) {
    (void)state;
    ze_driver_handle_t driver = zc_sys()->driver;
    ze_context_handle_t context = NULL;
    zc_assert_result(zeContextCreate(NULL, &zc_desc, &context), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zeContextCreate(driver, NULL, &context), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zeContextCreate(driver, &zc_desc, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zeContextCreateEx(NULL, &zc_desc, 0, NULL, &context), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zeContextCreateEx(driver, NULL, 0, NULL, &context), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zeContextCreateEx(driver, &zc_desc, 0, NULL, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zeContextDestroy(NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zeContextGetStatus(NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
}

static void context_use_after_destroy_invalid_null_handle(void **state) {
    (void)state;
    /* Undefined for the spec; the fake checks handles against its live objects. */
    zc_skip_unless_fake();
    ze_context_handle_t context = NULL;
    zc_assert_success(zeContextCreate(zc_sys()->driver, &zc_desc, &context));
    zc_assert_success(zeContextDestroy(context));
    zc_assert_result(zeContextGetStatus(context), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zeContextDestroy(context), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Children of a destroyed context */

#define ZC_CHURN_CONTEXTS 1100 /* more retired objects than the driver keeps in quarantine */

static void zc_print_result(const char *key, ze_result_t result) {
    printf("%s=%s\n", key, zc_result_name(result));
    fflush(stdout); /* a crash must not take what was printed with it */
}

/* The objects a context's children are made of: an event of a pool, a queue with its fence, a regular list. */
typedef struct zc_orphans {
    ze_event_pool_handle_t pool;
    ze_event_handle_t event;
    ze_command_queue_handle_t queue;
    ze_fence_handle_t fence;
    ze_command_list_handle_t list;
} zc_orphans;

static bool zc_orphans_create(ze_context_handle_t context, ze_device_handle_t device, zc_orphans *o) {
    ze_event_pool_desc_t pool_desc = {ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, NULL, ZE_EVENT_POOL_FLAG_HOST_VISIBLE, 4};
    ze_event_desc_t event_desc = {ZE_STRUCTURE_TYPE_EVENT_DESC, NULL, 0, 0, 0};
    ze_command_queue_desc_t queue_desc = {.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC};
    ze_fence_desc_t fence_desc = {ZE_STRUCTURE_TYPE_FENCE_DESC, NULL, 0};
    ze_command_list_desc_t list_desc = {ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC, NULL, 0, 0};
    return zeEventPoolCreate(context, &pool_desc, 1, &device, &o->pool) == ZE_RESULT_SUCCESS &&
           zeEventCreate(o->pool, &event_desc, &o->event) == ZE_RESULT_SUCCESS &&
           zeCommandQueueCreate(context, device, &queue_desc, &o->queue) == ZE_RESULT_SUCCESS &&
           zeFenceCreate(o->queue, &fence_desc, &o->fence) == ZE_RESULT_SUCCESS &&
           zeCommandListCreate(context, device, &list_desc, &o->list) == ZE_RESULT_SUCCESS;
}

/* Every call a child of a destroyed context may get; each answers (the test checks which). */
static void zc_orphans_use(const zc_orphans *o, const char *when) {
    char key[64];
    snprintf(key, sizeof key, "%s.signal", when);
    zc_print_result(key, zeEventHostSignal(o->event));
    snprintf(key, sizeof key, "%s.query", when);
    zc_print_result(key, zeEventQueryStatus(o->event));
    snprintf(key, sizeof key, "%s.reset", when);
    zc_print_result(key, zeEventHostReset(o->event));
    snprintf(key, sizeof key, "%s.append", when);
    zc_print_result(key, zeCommandListAppendSignalEvent(o->list, o->event));
    snprintf(key, sizeof key, "%s.close", when);
    zc_print_result(key, zeCommandListClose(o->list));
    snprintf(key, sizeof key, "%s.execute", when);
    zc_print_result(key,
                    zeCommandQueueExecuteCommandLists(o->queue, 1, (ze_command_list_handle_t *)&o->list, o->fence));
    snprintf(key, sizeof key, "%s.fence", when);
    zc_print_result(key, zeFenceHostSynchronize(o->fence, UINT64_MAX));
    snprintf(key, sizeof key, "%s.event", when);
    zc_print_result(key, zeEventHostSynchronize(o->event, UINT64_MAX));
    zeCommandListReset(o->list);
    zeFenceReset(o->fence);
}

/* Creates children of a context, destroys the context, uses them, retires many other objects (so that a freed
 * context would be reused memory by then), uses them again and destroys them. */
static int zc_child_orphans(int argc, char **argv) {
    (void)argc;
    (void)argv;
    uint32_t count = 1;
    ze_driver_handle_t driver = NULL;
    ze_device_handle_t device = NULL;
    ze_context_handle_t context = NULL;
    zc_orphans o;
    if (zeInit(0) != ZE_RESULT_SUCCESS || zeDriverGet(&count, &driver) != ZE_RESULT_SUCCESS ||
        zeDeviceGet(driver, &count, &device) != ZE_RESULT_SUCCESS ||
        zeContextCreate(driver, &zc_desc, &context) != ZE_RESULT_SUCCESS || !zc_orphans_create(context, device, &o))
        return 2;
    zc_print_result("destroy", zeContextDestroy(context));
    zc_orphans_use(&o, "after");
    for (int i = 0; i < ZC_CHURN_CONTEXTS; i++) {
        ze_context_handle_t other = NULL;
        if (zeContextCreate(driver, &zc_desc, &other) != ZE_RESULT_SUCCESS ||
            zeContextDestroy(other) != ZE_RESULT_SUCCESS)
            return 3;
    }
    zc_orphans_use(&o, "churn");
    zc_print_result("list", zeCommandListDestroy(o.list));
    zc_print_result("fence", zeFenceDestroy(o.fence));
    zc_print_result("queue", zeCommandQueueDestroy(o.queue));
    zc_print_result("event", zeEventDestroy(o.event));
    zc_print_result("pool", zeEventPoolDestroy(o.pool));
    return 0;
}

static void zc_assert_child_result(const zc_child *child, const char *key, const char *expected) {
    char value[64];
    if (!zc_child_value(child, key, value, sizeof value))
        zc_fail("no result for %s; stdout:\n%s\nstderr:\n%s", key, child->out, child->err);
    if (strcmp(value, expected) != 0)
        zc_fail("%s: %s, expected %s", key, value, expected);
}

/* Undefined for the spec (a destroyed context's children); the fake keeps the context's device list until its last
 * child is destroyed, so its children answer as before, even after the context's memory would have been reused. */
static void context_children_answer_after_destroy(void **state) {
    (void)state;
    zc_skip_unless_fake();
    zc_child child;
    if (!zc_run_child_mode("orphans", NULL, NULL, ZC_CHILD_TIMEOUT_MS, &child))
        zc_fail("cannot start a child process");
    zc_assert_child_ok(&child, "children of a destroyed context");
    static const char *const calls[] = {"signal", "query", "reset", "append", "close", "execute", "fence", "event"};
    for (size_t i = 0; i < ZC_COUNT(calls); i++) {
        char key[64];
        snprintf(key, sizeof key, "after.%s", calls[i]);
        zc_assert_child_result(&child, key, "ZE_RESULT_SUCCESS");
        snprintf(key, sizeof key, "churn.%s", calls[i]);
        zc_assert_child_result(&child, key, "ZE_RESULT_SUCCESS");
    }
    static const char *const destroys[] = {"list", "fence", "queue", "event", "pool"};
    for (size_t i = 0; i < ZC_COUNT(destroys); i++)
        zc_assert_child_result(&child, destroys[i], "ZE_RESULT_SUCCESS");
    zc_child_free(&child);
}

/* Threads cannot use cmocka's assertions: each counts its failures and keeps the first bad result. */
typedef struct zc_thread_report {
    ze_driver_handle_t driver; /* in: the harness's accessors may assert, so threads get the driver here */
    unsigned failures;
    ze_result_t first_error;
} zc_thread_report;

static void zc_thread_check(zc_thread_report *report, ze_result_t result) {
    if (result == ZE_RESULT_SUCCESS)
        return;
    if (report->failures++ == 0)
        report->first_error = result;
}

static void *zc_context_thread(void *arg) {
    zc_thread_report *report = arg;
    for (int i = 0; i < ZC_CONTEXTS_PER_THREAD; i++) {
        ze_context_handle_t context = NULL;
        ze_result_t result = zeContextCreate(report->driver, &zc_desc, &context);
        zc_thread_check(report, result);
        if (result != ZE_RESULT_SUCCESS)
            continue;
        zc_thread_check(report, zeContextGetStatus(context));
        zc_thread_check(report, zeContextDestroy(context));
    }
    return NULL;
}

static void context_create_destroy_from_threads(void **state) {
    (void)state;
    pthread_t threads[ZC_THREADS];
    zc_thread_report reports[ZC_THREADS];
    memset(reports, 0, sizeof reports);
    for (int i = 0; i < ZC_THREADS; i++) {
        reports[i].driver = zc_sys()->driver;
        assert_int_equal(pthread_create(&threads[i], NULL, zc_context_thread, &reports[i]), 0);
    }
    for (int i = 0; i < ZC_THREADS; i++)
        pthread_join(threads[i], NULL);
    for (int i = 0; i < ZC_THREADS; i++) {
        if (reports[i].failures > 0)
            zc_fail("thread %d: %u calls failed, the first with %s", i, reports[i].failures,
                    zc_result_name(reports[i].first_error));
    }
}

int main(int argc, char **argv) {
    static const struct CMUnitTest tests[] = {
        cmocka_unit_test(context_create_status_destroy),
        cmocka_unit_test_setup_teardown(context_live_handles_distinct, zc_setup_context, zc_teardown_context),
        cmocka_unit_test(context_create_ex_each_root_device),
        cmocka_unit_test(context_create_ex_subdevice_subsets),
        cmocka_unit_test(context_create_ex_zero_devices_success),
        cmocka_unit_test(context_create_ex_null_devices_with_count_invalid_size),
        cmocka_unit_test(context_create_ex_null_device_entry_fails),
        cmocka_unit_test(context_create_ex_bogus_device_invalid_null_handle),
        cmocka_unit_test(context_flags_out_of_range_invalid_enumeration),
        cmocka_unit_test(context_defined_flag_success),
        cmocka_unit_test(context_create_bad_arguments),
        cmocka_unit_test(context_use_after_destroy_invalid_null_handle),
        cmocka_unit_test(context_create_destroy_from_threads),
        cmocka_unit_test(context_children_answer_after_destroy),
    };
    static const zc_child_mode modes[] = {{"orphans", zc_child_orphans}};
    static const zc_suite suite = {
        ZC_EXECUTABLE, tests, ZC_COUNT(tests), zc_setup_system, zc_teardown_system, modes, ZC_COUNT(modes),
    };
    return zc_main(argc, argv, &suite);
}
