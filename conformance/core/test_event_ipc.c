/* Conformance: event pools shared between processes (zeEventPoolGetIpcHandle, zeEventPoolOpenIpcHandle,
 * zeEventPoolCloseIpcHandle): events signalled and reset by the host or by commands in one process or context and
 * observed in the other, in both directions; who closes and who destroys; bad handles. */
#include "zc_exec.h"

#include <pthread.h>
#include <stdio.h>
#include <time.h>

#define ZC_WAIT_NS (20ull * 1000 * 1000 * 1000) /* a bound on waits, never reached when the driver works */

static void zc_require_event_ipc(void) {
    ze_driver_ipc_properties_t p = {.stype = ZE_STRUCTURE_TYPE_DRIVER_IPC_PROPERTIES};
    zc_assert_success(zeDriverGetIpcProperties(zc_sys()->driver, &p));
    if (zc_driver_is_fake())
        assert_true(p.flags & ZE_IPC_PROPERTY_FLAG_EVENT_POOL);
    else if (!(p.flags & ZE_IPC_PROPERTY_FLAG_EVENT_POOL))
        skip();
}

static ze_event_pool_handle_t zc_ipc_pool(ze_context_handle_t context, ze_device_handle_t device, uint32_t count) {
    ze_event_pool_desc_t desc = {ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, NULL,
                                 ZE_EVENT_POOL_FLAG_IPC | ZE_EVENT_POOL_FLAG_HOST_VISIBLE, count};
    ze_event_pool_handle_t pool = NULL;
    zc_assert_success(zeEventPoolCreate(context, &desc, 1, &device, &pool));
    return pool;
}

static ze_context_handle_t zc_new_context(void) {
    ze_context_desc_t desc = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0};
    ze_context_handle_t context = NULL;
    zc_assert_success(zeContextCreate(zc_sys()->driver, &desc, &context));
    return context;
}

/* The other side's view changes a little later: poll its status, bounded. */
static ze_result_t zc_status_eventually(ze_event_handle_t event, ze_result_t wanted) {
    ze_result_t status = zeEventQueryStatus(event);
    for (int i = 0; i < 20000 && status != wanted; i++) {
        nanosleep(&(struct timespec){0, 1000000}, NULL);
        status = zeEventQueryStatus(event);
    }
    return status;
}

static void event_ipc_pool_without_flag_refused(void **state) {
    zc_exec *x = *state;
    zc_require_event_ipc();
    ze_event_pool_handle_t pool = zc_event_pool(x, 2, 0);
    ze_ipc_event_pool_handle_t handle;
    zc_assert_result(zeEventPoolGetIpcHandle(pool, &handle), ZE_RESULT_ERROR_INVALID_SYNCHRONIZATION_OBJECT);
    zc_assert_result(zeEventPoolGetIpcHandle(pool, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zeEventPoolGetIpcHandle(NULL, &handle), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_success(zeEventPoolDestroy(pool));
}

static void event_ipc_open_in_another_context(void **state) {
    zc_exec *x = *state;
    zc_require_event_ipc();
    ze_event_pool_handle_t pool = zc_ipc_pool(x->context, x->device, 4);
    ze_ipc_event_pool_handle_t handle;
    zc_assert_success(zeEventPoolGetIpcHandle(pool, &handle));
    ze_context_handle_t other = zc_new_context();
    ze_event_pool_handle_t opened = NULL;
    zc_assert_success(zeEventPoolOpenIpcHandle(other, handle, &opened));
    ze_event_handle_t mine = zc_event(pool, 1), theirs = zc_event(opened, 1);
    /* Host signal here, observed there; host reset there, observed here. */
    zc_assert_result(zeEventQueryStatus(theirs), ZE_RESULT_NOT_READY);
    zc_assert_success(zeEventHostSignal(mine));
    zc_assert_success(zeEventHostSynchronize(theirs, ZC_WAIT_NS));
    zc_assert_success(zeEventHostReset(theirs));
    zc_assert_result(zc_status_eventually(mine, ZE_RESULT_NOT_READY), ZE_RESULT_NOT_READY);
    /* A command there signals; the host here waits. */
    ze_command_queue_desc_t qd = {
        ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, NULL, x->compute_ordinal, 0, 0, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS,
        ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
    ze_command_list_handle_t their_list = NULL;
    zc_assert_success(zeCommandListCreateImmediate(other, x->device, &qd, &their_list));
    zc_assert_success(zeCommandListAppendSignalEvent(their_list, theirs));
    zc_assert_success(zeEventHostSynchronize(mine, ZC_WAIT_NS));
    /* A command here waits for the host there. */
    zc_assert_success(zeEventHostReset(mine));
    zc_assert_result(zc_status_eventually(theirs, ZE_RESULT_NOT_READY), ZE_RESULT_NOT_READY);
    ze_event_handle_t done_here = zc_event(pool, 2);
    ze_command_list_handle_t my_list = zc_immediate(x, x->compute_ordinal, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    zc_assert_success(zeCommandListAppendBarrier(my_list, done_here, 1, &mine));
    zc_assert_result(zeEventQueryStatus(done_here), ZE_RESULT_NOT_READY);
    zc_assert_success(zeEventHostSignal(theirs));
    zc_assert_success(zeEventHostSynchronize(done_here, ZC_WAIT_NS));
    zc_assert_success(zeCommandListDestroy(my_list));
    zc_assert_success(zeCommandListDestroy(their_list));
    zc_assert_success(zeEventDestroy(done_here));
    zc_assert_success(zeEventDestroy(theirs));
    zc_assert_success(zeEventPoolCloseIpcHandle(opened));
    zc_assert_success(zeEventDestroy(mine));
    zc_assert_success(zeEventPoolDestroy(pool));
    zc_assert_success(zeContextDestroy(other));
}

static void event_ipc_event_created_after_signal_sees_it(void **state) {
    zc_exec *x = *state;
    zc_require_event_ipc();
    ze_event_pool_handle_t pool = zc_ipc_pool(x->context, x->device, 2);
    ze_event_handle_t mine = zc_event(pool, 0);
    zc_assert_success(zeEventHostSignal(mine));
    ze_ipc_event_pool_handle_t handle;
    zc_assert_success(zeEventPoolGetIpcHandle(pool, &handle));
    ze_event_pool_handle_t opened = NULL;
    zc_assert_success(zeEventPoolOpenIpcHandle(x->context, handle, &opened)); /* the same process may open it too */
    ze_event_handle_t theirs = zc_event(opened, 0);
    zc_assert_success(zeEventHostSynchronize(theirs, ZC_WAIT_NS));
    zc_assert_success(zeEventDestroy(theirs));
    zc_assert_success(zeEventPoolCloseIpcHandle(opened));
    zc_assert_success(zeEventDestroy(mine));
    zc_assert_success(zeEventPoolDestroy(pool));
}

static void event_ipc_close_and_destroy_rules(void **state) {
    zc_exec *x = *state;
    zc_require_event_ipc();
    zc_skip_unless_fake(); /* the specification names no error for the wrong call (docs/events.md) */
    ze_event_pool_handle_t pool = zc_ipc_pool(x->context, x->device, 2);
    ze_ipc_event_pool_handle_t handle, again;
    zc_assert_success(zeEventPoolGetIpcHandle(pool, &handle));
    zc_assert_success(zeEventPoolGetIpcHandle(pool, &again));
    assert_memory_equal(handle.data, again.data, sizeof handle.data);
    ze_event_pool_handle_t opened = NULL;
    zc_assert_success(zeEventPoolOpenIpcHandle(x->context, handle, &opened));
    zc_assert_result(zeEventPoolDestroy(opened), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    zc_assert_result(zeEventPoolCloseIpcHandle(pool), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    /* Closing destroys the events opened in this process. */
    ze_event_handle_t theirs = zc_event(opened, 1);
    zc_assert_success(zeEventPoolCloseIpcHandle(opened));
    zc_assert_result(zeEventQueryStatus(theirs), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zeEventPoolCloseIpcHandle(opened), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    /* Once the exporter destroys the pool, its handle opens nothing. */
    zc_assert_success(zeEventPoolDestroy(pool));
    zc_assert_result(zeEventPoolOpenIpcHandle(x->context, handle, &opened), ZE_RESULT_ERROR_INVALID_ARGUMENT);
}

static void event_ipc_bad_handles(void **state) {
    zc_exec *x = *state;
    zc_require_event_ipc();
    ze_event_pool_handle_t opened = NULL;
    ze_ipc_event_pool_handle_t handle;
    memset(&handle, 0, sizeof handle);
    zc_assert_result(zeEventPoolOpenIpcHandle(x->context, handle, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zeEventPoolOpenIpcHandle(NULL, handle, &opened), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zeEventPoolCloseIpcHandle(NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    if (!zc_driver_is_fake())
        return;
    zc_assert_result(zeEventPoolOpenIpcHandle(x->context, handle, &opened), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    ze_event_pool_handle_t pool = zc_ipc_pool(x->context, x->device, 2);
    zc_assert_success(zeEventPoolGetIpcHandle(pool, &handle));
    ze_ipc_event_pool_handle_t forged = handle;
    forged.data[40] ^= 1; /* a bit of the token */
    zc_assert_result(zeEventPoolOpenIpcHandle(x->context, forged, &opened), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    forged = handle;
    forged.data[12] ^= 1; /* the event count */
    zc_assert_result(zeEventPoolOpenIpcHandle(x->context, forged, &opened), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    /* The flags (bytes 56..59): another valid flag than the pool's, an unknown bit, and IPC missing. */
    static const uint8_t flag_flips[] = {ZE_EVENT_POOL_FLAG_HOST_VISIBLE, 0x80, ZE_EVENT_POOL_FLAG_IPC};
    for (size_t i = 0; i < sizeof flag_flips; i++) {
        forged = handle;
        forged.data[56] ^= flag_flips[i];
        zc_assert_result(zeEventPoolOpenIpcHandle(x->context, forged, &opened), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    }
    zc_assert_success(zeEventPoolDestroy(pool));
}

/* A destroyed pool has no IPC handle to give (zefake detects the stale handle; elsewhere it is undefined). */
static void event_ipc_destroyed_pool_refused(void **state) {
    zc_exec *x = *state;
    zc_require_event_ipc();
    zc_skip_unless_fake();
    ze_event_pool_handle_t pool = zc_ipc_pool(x->context, x->device, 2);
    zc_assert_success(zeEventPoolDestroy(pool));
    ze_ipc_event_pool_handle_t handle;
    zc_assert_result(zeEventPoolGetIpcHandle(pool, &handle), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zeEventPoolCloseIpcHandle(pool), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Between processes */

/* Child mode "events <hex handle>": opens the pool, signals event 1 with a command, then waits for the parent to
 * signal event 0 from its host. */
static int zc_child_events(int argc, char **argv) {
    ze_ipc_event_pool_handle_t handle;
    if (argc != 1 || !zc_hex_decode(argv[0], handle.data, sizeof handle.data))
        return 2;
    void *state = NULL;
    if (zc_setup_system(&state) != 0 || zc_setup_exec(&state) != 0)
        return 3;
    zc_exec *x = state;
    ze_event_pool_handle_t pool = NULL;
    ze_result_t result = zeEventPoolOpenIpcHandle(x->context, handle, &pool);
    printf("open=%u\n", (unsigned)result);
    if (result != ZE_RESULT_SUCCESS)
        return 4;
    ze_event_desc_t desc = {ZE_STRUCTURE_TYPE_EVENT_DESC, NULL, 0, ZE_EVENT_SCOPE_FLAG_HOST, ZE_EVENT_SCOPE_FLAG_HOST};
    ze_event_handle_t from_parent = NULL, to_parent = NULL;
    zeEventCreate(pool, &desc, &from_parent);
    desc.index = 1;
    zeEventCreate(pool, &desc, &to_parent);
    ze_command_queue_desc_t qd = {
        ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, NULL, x->compute_ordinal, 0, 0, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS,
        ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
    ze_command_list_handle_t list = NULL;
    zeCommandListCreateImmediate(x->context, x->device, &qd, &list);
    printf("signal=%u\n", (unsigned)zeCommandListAppendSignalEvent(list, to_parent));
    printf("observed=%u\n", (unsigned)zeEventHostSynchronize(from_parent, ZC_WAIT_NS));
    zeCommandListDestroy(list);
    zeEventDestroy(from_parent);
    zeEventDestroy(to_parent);
    printf("close=%u\n", (unsigned)zeEventPoolCloseIpcHandle(pool));
    return zc_child_exec_end(x);
}

typedef struct zc_parent_side {
    ze_event_handle_t from_child, to_child;
    ze_result_t observed, signalled;
} zc_parent_side;

/* The parent's part, on a thread while the child runs: wait for the child's command, answer from the host. */
static void *zc_parent_answers(void *arg) {
    zc_parent_side *side = arg;
    side->observed = zeEventHostSynchronize(side->from_child, ZC_WAIT_NS);
    side->signalled = side->observed == ZE_RESULT_SUCCESS ? zeEventHostSignal(side->to_child) : side->observed;
    return NULL;
}

static void event_ipc_between_processes(void **state) {
    zc_exec *x = *state;
    zc_require_event_ipc();
    ze_event_pool_handle_t pool = zc_ipc_pool(x->context, x->device, 4);
    zc_parent_side side = {zc_event(pool, 1), zc_event(pool, 0), ZE_RESULT_ERROR_UNKNOWN, ZE_RESULT_ERROR_UNKNOWN};
    ze_ipc_event_pool_handle_t handle;
    zc_assert_success(zeEventPoolGetIpcHandle(pool, &handle));
    char hex[2 * ZE_MAX_IPC_HANDLE_SIZE + 1];
    zc_hex_encode(handle.data, sizeof handle.data, hex);
    pthread_t thread;
    assert_int_equal(pthread_create(&thread, NULL, zc_parent_answers, &side), 0);
    const char *args[] = {hex, NULL};
    zc_child child;
    bool started = zc_run_child_mode("events", args, NULL, ZC_CHILD_TIMEOUT_MS, &child);
    if (!started)
        zeEventHostSignal(side.from_child); /* let the thread end */
    pthread_join(thread, NULL);
    assert_true(started);
    zc_assert_child_ok(&child, "the process that opened the event pool");
    assert_int_equal(zc_child_number(&child, "open"), ZE_RESULT_SUCCESS);
    assert_int_equal(zc_child_number(&child, "signal"), ZE_RESULT_SUCCESS);
    assert_int_equal(zc_child_number(&child, "observed"), ZE_RESULT_SUCCESS);
    assert_int_equal(zc_child_number(&child, "close"), ZE_RESULT_SUCCESS);
    zc_child_free(&child);
    zc_assert_result(side.observed, ZE_RESULT_SUCCESS);
    zc_assert_result(side.signalled, ZE_RESULT_SUCCESS);
    zc_assert_success(zeEventDestroy(side.from_child));
    zc_assert_success(zeEventDestroy(side.to_child));
    zc_assert_success(zeEventPoolDestroy(pool));
}

int main(int argc, char **argv) {
    static const struct CMUnitTest tests[] = {
#define ZC_TEST(name) cmocka_unit_test_setup_teardown(name, zc_setup_exec, zc_teardown_exec)
        ZC_TEST(event_ipc_pool_without_flag_refused),
        ZC_TEST(event_ipc_open_in_another_context),
        ZC_TEST(event_ipc_event_created_after_signal_sees_it),
        ZC_TEST(event_ipc_close_and_destroy_rules),
        ZC_TEST(event_ipc_bad_handles),
        ZC_TEST(event_ipc_destroyed_pool_refused),
        ZC_TEST(event_ipc_between_processes),
#undef ZC_TEST
    };
    static const zc_child_mode modes[] = {{"events", zc_child_events}};
    static const zc_suite suite = {
        ZC_EXECUTABLE, tests, ZC_COUNT(tests), zc_setup_system, zc_teardown_system, modes, ZC_COUNT(modes),
    };
    return zc_main(argc, argv, &suite);
}
