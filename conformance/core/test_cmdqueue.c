/* Conformance: command queues (zeCommandQueueCreate, Destroy, ExecuteCommandLists, Synchronize). */
#include "zc_exec.h"

#include <pthread.h>
#include <time.h>

static void cmdqueue_every_group_and_index_creates(void **state) {
    zc_exec *x = *state;
    for (uint32_t g = 0; g < x->num_groups; g++) {
        for (uint32_t i = 0; i < x->groups[g].numQueues; i++) {
            ze_command_queue_handle_t queue = zc_queue(x, g, i, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
            zc_assert_success(zeCommandQueueSynchronize(queue, 0));
            zc_assert_success(zeCommandQueueDestroy(queue));
        }
    }
}

static void cmdqueue_ordinal_out_of_range_invalid_argument(void **state) {
    zc_exec *x = *state;
    ze_command_queue_desc_t desc = {
        ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, NULL, x->num_groups, 0, 0, ZE_COMMAND_QUEUE_MODE_DEFAULT,
        ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
    ze_command_queue_handle_t queue = NULL;
    zc_assert_result(zeCommandQueueCreate(x->context, x->device, &desc, &queue), ZE_RESULT_ERROR_INVALID_ARGUMENT);
}

static void cmdqueue_index_out_of_range_invalid_argument(void **state) {
    zc_exec *x = *state;
    ze_command_queue_desc_t desc = {ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC,    NULL, x->compute_ordinal,
                                    x->groups[x->compute_ordinal].numQueues, 0,    ZE_COMMAND_QUEUE_MODE_DEFAULT,
                                    ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
    ze_command_queue_handle_t queue = NULL;
    zc_assert_result(zeCommandQueueCreate(x->context, x->device, &desc, &queue), ZE_RESULT_ERROR_INVALID_ARGUMENT);
}

static void cmdqueue_bad_mode_and_priority_invalid_enumeration(void **state) {
    zc_exec *x = *state;
    ze_command_queue_desc_t desc = {
        ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, NULL, x->compute_ordinal, 0, 0, (ze_command_queue_mode_t)7,
        ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
    ze_command_queue_handle_t queue = NULL;
    zc_assert_result(zeCommandQueueCreate(x->context, x->device, &desc, &queue), ZE_RESULT_ERROR_INVALID_ENUMERATION);
    desc.mode = ZE_COMMAND_QUEUE_MODE_DEFAULT;
    desc.priority = (ze_command_queue_priority_t)9;
    zc_assert_result(zeCommandQueueCreate(x->context, x->device, &desc, &queue), ZE_RESULT_ERROR_INVALID_ENUMERATION);
}

static void cmdqueue_priorities_accepted(void **state) {
    zc_exec *x = *state;
    const ze_command_queue_priority_t priorities[] = {ZE_COMMAND_QUEUE_PRIORITY_NORMAL,
                                                      ZE_COMMAND_QUEUE_PRIORITY_PRIORITY_LOW,
                                                      ZE_COMMAND_QUEUE_PRIORITY_PRIORITY_HIGH};
    for (size_t i = 0; i < ZC_COUNT(priorities); i++) {
        ze_command_queue_desc_t desc = {ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, NULL,         x->compute_ordinal, 0, 0,
                                        ZE_COMMAND_QUEUE_MODE_DEFAULT,        priorities[i]};
        ze_command_queue_handle_t queue = NULL;
        zc_assert_success(zeCommandQueueCreate(x->context, x->device, &desc, &queue));
        zc_assert_success(zeCommandQueueDestroy(queue));
    }
}

static void cmdqueue_execute_open_list_fails(void **state) {
    zc_exec *x = *state;
    ze_command_queue_handle_t queue = zc_queue(x, x->compute_ordinal, 0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_command_list_handle_t list = zc_list(x, x->compute_ordinal);
    zc_assert_error(zeCommandQueueExecuteCommandLists(queue, 1, &list, NULL));
    zc_assert_success(zeCommandListDestroy(list));
    zc_assert_success(zeCommandQueueDestroy(queue));
}

static void cmdqueue_execute_other_group_invalid_command_list_type(void **state) {
    zc_exec *x = *state;
    if (x->copy_ordinal == ZC_NO_ORDINAL)
        skip();
    ze_command_queue_handle_t queue = zc_queue(x, x->compute_ordinal, 0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_command_list_handle_t list = zc_list(x, x->copy_ordinal);
    zc_assert_success(zeCommandListClose(list));
    zc_assert_result(zeCommandQueueExecuteCommandLists(queue, 1, &list, NULL),
                     ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE);
    zc_assert_success(zeCommandListDestroy(list));
    zc_assert_success(zeCommandQueueDestroy(queue));
}

static void cmdqueue_execute_immediate_list_fails(void **state) {
    zc_exec *x = *state;
    ze_command_queue_handle_t queue = zc_queue(x, x->compute_ordinal, 0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_command_list_handle_t list = zc_immediate(x, x->compute_ordinal, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    zc_assert_error(zeCommandQueueExecuteCommandLists(queue, 1, &list, NULL));
    zc_assert_success(zeCommandListDestroy(list));
    zc_assert_success(zeCommandQueueDestroy(queue));
}

static void cmdqueue_execute_zero_lists_invalid_size(void **state) {
    zc_exec *x = *state;
    ze_command_queue_handle_t queue = zc_queue(x, x->compute_ordinal, 0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_command_list_handle_t list = NULL;
    zc_assert_result(zeCommandQueueExecuteCommandLists(queue, 0, &list, NULL), ZE_RESULT_ERROR_INVALID_SIZE);
    zc_assert_success(zeCommandQueueDestroy(queue));
}

/* A list that waits for an event only the host will signal keeps the queue busy until then. */
static void cmdqueue_synchronize_times_out_until_work_can_finish(void **state) {
    zc_exec *x = *state;
    ze_command_queue_handle_t queue = zc_queue(x, x->compute_ordinal, 0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    zc_gated g = zc_gated_list(x);
    zc_assert_success(zeCommandQueueExecuteCommandLists(queue, 1, &g.list, NULL));
    zc_assert_result(zeCommandQueueSynchronize(queue, 0), ZE_RESULT_NOT_READY);
    zc_assert_result(zeCommandQueueSynchronize(queue, 1000000), ZE_RESULT_NOT_READY);
    zc_assert_success(zeEventHostSignal(g.gate));
    zc_assert_success(zeCommandQueueSynchronize(queue, UINT64_MAX));
    zc_gated_destroy(&g);
    zc_assert_success(zeCommandQueueDestroy(queue));
}

static void cmdqueue_synchronous_mode_returns_after_completion(void **state) {
    zc_exec *x = *state;
    ze_command_queue_handle_t queue = zc_queue(x, x->compute_ordinal, 0, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
    uint32_t *buffer = zc_host_alloc(x, 4096);
    const uint32_t pattern = 0xC0FFEE11u;
    ze_command_list_handle_t list = zc_list(x, x->compute_ordinal);
    zc_assert_success(zeCommandListAppendMemoryFill(list, buffer, &pattern, sizeof pattern, 4096, NULL, 0, NULL));
    zc_assert_success(zeCommandListClose(list));
    zc_assert_success(zeCommandQueueExecuteCommandLists(queue, 1, &list, NULL));
    for (size_t i = 0; i < 1024; i++)
        assert_int_equal(buffer[i], pattern);
    zc_assert_success(zeCommandListDestroy(list));
    zc_free(x, buffer);
    zc_assert_success(zeCommandQueueDestroy(queue));
}

/* Signals the gate of a zc_gated list from another thread after 20 ms. */
static void *zc_open_gate_later(void *gate) {
    struct timespec pause = {0, 20 * 1000 * 1000};
    nanosleep(&pause, NULL);
    zeEventHostSignal((ze_event_handle_t)gate);
    return NULL;
}

/* A synchronous queue whose engine is busy with another queue's lists runs its own after them and signals its fence. */
static void cmdqueue_synchronous_runs_after_busy_engine(void **state) {
    zc_skip_unless_fake(); /* queues of one engine run in order: zefake's engines, not the specification */
    zc_exec *x = *state;
    ze_command_queue_handle_t async = zc_queue(x, x->compute_ordinal, 0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_command_queue_handle_t sync = zc_queue(x, x->compute_ordinal, 0, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
    uint8_t *buffer = zc_host_alloc(x, 256);
    const uint8_t one = 1, two = 2;
    zc_gated g = zc_gated_list(x);
    ze_command_list_handle_t lists[2] = {zc_list(x, x->compute_ordinal), zc_list(x, x->compute_ordinal)};
    zc_assert_success(zeCommandListAppendMemoryFill(lists[0], buffer, &one, 1, 256, NULL, 0, NULL));
    zc_assert_success(zeCommandListAppendMemoryFill(lists[1], buffer, &two, 1, 256, NULL, 0, NULL));
    zc_assert_success(zeCommandListClose(lists[0]));
    zc_assert_success(zeCommandListClose(lists[1]));
    ze_command_list_handle_t first[2] = {g.list, lists[0]};
    zc_assert_success(zeCommandQueueExecuteCommandLists(async, 2, first, NULL));
    ze_fence_desc_t fdesc = {ZE_STRUCTURE_TYPE_FENCE_DESC, NULL, 0};
    ze_fence_handle_t fence = NULL;
    zc_assert_success(zeFenceCreate(sync, &fdesc, &fence));
    pthread_t thread;
    assert_int_equal(pthread_create(&thread, NULL, zc_open_gate_later, g.gate), 0);
    zc_assert_success(zeCommandQueueExecuteCommandLists(sync, 1, &lists[1], fence));
    zc_assert_success(zeFenceQueryStatus(fence));
    zc_assert_success(zeCommandQueueSynchronize(async, 0)); /* the other queue's lists ran first */
    assert_int_equal(buffer[0], 2);
    assert_int_equal(buffer[255], 2);
    pthread_join(thread, NULL);
    zc_assert_success(zeFenceDestroy(fence));
    zc_assert_success(zeCommandListDestroy(lists[0]));
    zc_assert_success(zeCommandListDestroy(lists[1]));
    zc_gated_destroy(&g);
    zc_free(x, buffer);
    zc_assert_success(zeCommandQueueDestroy(sync));
    zc_assert_success(zeCommandQueueDestroy(async));
}

/* Opens a gate after 20 s unless released before: a waiter that nobody wakes then fails its test instead of hanging
 * it. */
typedef struct zc_watchdog {
    ze_event_handle_t gate;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool released;
    bool fired;
} zc_watchdog;

static void *zc_watchdog_main(void *arg) {
    zc_watchdog *w = arg;
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 20;
    pthread_mutex_lock(&w->lock);
    while (!w->released && pthread_cond_timedwait(&w->cond, &w->lock, &deadline) == 0)
        ;
    if (!w->released) {
        w->fired = true;
        zeEventHostSignal(w->gate);
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

/* Whether the watchdog had to open the gate; releases it. */
static bool zc_watchdog_release(zc_watchdog *w, pthread_t thread) {
    pthread_mutex_lock(&w->lock);
    w->released = true;
    bool fired = w->fired;
    pthread_cond_signal(&w->cond);
    pthread_mutex_unlock(&w->lock);
    pthread_join(thread, NULL);
    return fired;
}

/* A queue whose lists are done is idle, and a thread waiting for it returns, while the engine still waits for another
 * queue's gate (zefake: both queues are one engine, which runs their lists in order). */
static void cmdqueue_idle_queue_returns_while_engine_waits(void **state) {
    zc_skip_unless_fake();
    zc_exec *x = *state;
    ze_command_queue_handle_t first = zc_queue(x, x->compute_ordinal, 0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_command_queue_handle_t second = zc_queue(x, x->compute_ordinal, 0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    const size_t size = 64u << 20; /* long enough for the wait below to start before the fill ends */
    uint8_t *buffer = zc_device_alloc(x, size);
    const uint8_t seven = 7;
    ze_command_list_handle_t list = zc_list(x, x->compute_ordinal);
    zc_assert_success(zeCommandListAppendMemoryFill(list, buffer, &seven, 1, size, NULL, 0, NULL));
    zc_assert_success(zeCommandListClose(list));
    zc_gated g = zc_gated_list(x);
    zc_assert_success(zeCommandQueueExecuteCommandLists(first, 1, &list, NULL));
    zc_assert_success(zeCommandQueueExecuteCommandLists(second, 1, &g.list, NULL));
    zc_watchdog w = {.gate = g.gate, .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};
    pthread_t thread;
    assert_int_equal(pthread_create(&thread, NULL, zc_watchdog_main, &w), 0);
    ze_result_t waited = zeCommandQueueSynchronize(first, UINT64_MAX);
    bool fired = zc_watchdog_release(&w, thread);
    if (!fired)
        zc_assert_success(zeEventHostSignal(g.gate));
    zc_assert_success(zeCommandQueueSynchronize(second, UINT64_MAX));
    zc_assert_success(waited);
    assert_false(fired); /* the waiter returned while the gate was closed */
    zc_assert_success(zeCommandListDestroy(list));
    zc_gated_destroy(&g);
    zc_free(x, buffer);
    zc_assert_success(zeCommandQueueDestroy(second));
    zc_assert_success(zeCommandQueueDestroy(first));
}

static void cmdqueue_lists_run_in_submission_order(void **state) {
    zc_exec *x = *state;
    ze_command_queue_handle_t queue = zc_queue(x, x->compute_ordinal, 0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    uint8_t *buffer = zc_host_alloc(x, 256);
    ze_command_list_handle_t lists[3];
    for (uint8_t i = 0; i < 3; i++) {
        uint8_t value = (uint8_t)(i + 1);
        lists[i] = zc_list(x, x->compute_ordinal);
        zc_assert_success(zeCommandListAppendMemoryFill(lists[i], buffer, &value, 1, 256, NULL, 0, NULL));
        zc_assert_success(zeCommandListClose(lists[i]));
    }
    zc_assert_success(zeCommandQueueExecuteCommandLists(queue, 3, lists, NULL));
    zc_assert_success(zeCommandQueueSynchronize(queue, UINT64_MAX));
    assert_int_equal(buffer[0], 3);
    assert_int_equal(buffer[255], 3);
    for (int i = 0; i < 3; i++)
        zc_assert_success(zeCommandListDestroy(lists[i]));
    zc_free(x, buffer);
    zc_assert_success(zeCommandQueueDestroy(queue));
}

static void cmdqueue_destroy_while_busy_in_use(void **state) {
    zc_skip_unless_fake();
    zc_exec *x = *state;
    ze_command_queue_handle_t queue = zc_queue(x, x->compute_ordinal, 0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    zc_gated g = zc_gated_list(x);
    zc_assert_success(zeCommandQueueExecuteCommandLists(queue, 1, &g.list, NULL));
    zc_assert_result(zeCommandQueueDestroy(queue), ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE);
    zc_assert_result(zeCommandListDestroy(g.list), ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE);
    zc_assert_result(zeCommandListReset(g.list), ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE);
    zc_assert_success(zeEventHostSignal(g.gate));
    zc_assert_success(zeCommandQueueSynchronize(queue, UINT64_MAX));
    zc_gated_destroy(&g);
    zc_assert_success(zeCommandQueueDestroy(queue));
}

static void cmdqueue_bad_handles(void **state) {
    zc_exec *x = *state;
    ze_command_queue_handle_t queue = zc_queue(x, x->compute_ordinal, 0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_command_list_handle_t null_list = NULL;
    zc_assert_result(zeCommandQueueExecuteCommandLists(NULL, 1, &null_list, NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zeCommandQueueExecuteCommandLists(queue, 1, NULL, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zeCommandQueueSynchronize(NULL, 0), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_success(zeCommandQueueDestroy(queue));
    if (!zc_driver_is_fake())
        return;
    /* Use after destroy, and a list handle that is not a list. */
    zc_assert_result(zeCommandQueueSynchronize(queue, 0), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    ze_command_queue_handle_t other = zc_queue(x, x->compute_ordinal, 0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_command_list_handle_t bogus = (ze_command_list_handle_t)x;
    zc_assert_result(zeCommandQueueExecuteCommandLists(other, 1, &bogus, NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_success(zeCommandQueueDestroy(other));
}

static void cmdqueue_device_outside_context_invalid_argument(void **state) {
    zc_skip_unless_fake();
    const zc_system *sys = zc_sys();
    if (sys->num_roots < 2)
        skip();
    ze_context_handle_t context = NULL;
    ze_context_desc_t cdesc = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0};
    zc_assert_success(zeContextCreateEx(sys->driver, &cdesc, 1, &sys->roots[0], &context));
    ze_command_queue_desc_t desc = {ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, NULL, 0, 0, 0, ZE_COMMAND_QUEUE_MODE_DEFAULT,
                                    ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
    ze_command_queue_handle_t queue = NULL;
    zc_assert_result(zeCommandQueueCreate(context, sys->roots[1], &desc, &queue), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    zc_assert_success(zeContextDestroy(context));
    (void)state;
}

#if ZC_L0_AT_LEAST(9)
/* zeCommandQueueGetOrdinal and zeCommandQueueGetIndex (1.9) answer what each queue was created with. */
static void cmdqueue_getters_answer_creation(void **state) {
    zc_exec *x = *state;
    zc_api_require(zeCommandQueueGetOrdinal);
    for (uint32_t g = 0; g < x->num_groups; g++) {
        ze_command_queue_handle_t queue = zc_queue(x, g, x->groups[g].numQueues - 1, ZE_COMMAND_QUEUE_MODE_DEFAULT);
        uint32_t ordinal = UINT32_MAX, index = UINT32_MAX;
        zc_assert_success(ZC_API(zeCommandQueueGetOrdinal)(queue, &ordinal));
        zc_assert_success(ZC_API(zeCommandQueueGetIndex)(queue, &index));
        assert_int_equal(ordinal, g);
        assert_int_equal(index, x->groups[g].numQueues - 1);
        zc_assert_result(ZC_API(zeCommandQueueGetOrdinal)(queue, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
        zc_assert_result(ZC_API(zeCommandQueueGetIndex)(queue, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
        zc_assert_success(zeCommandQueueDestroy(queue));
    }
    uint32_t value = 0;
    zc_assert_result(ZC_API(zeCommandQueueGetOrdinal)(NULL, &value), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(ZC_API(zeCommandQueueGetIndex)(NULL, &value), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
}
#endif

int main(int argc, char **argv) {
#define ZC_FIXTURE exec
    static const struct CMUnitTest tests[] = {
        ZC_T(cmdqueue_every_group_and_index_creates),
        ZC_T(cmdqueue_ordinal_out_of_range_invalid_argument),
        ZC_T(cmdqueue_index_out_of_range_invalid_argument),
        ZC_T(cmdqueue_bad_mode_and_priority_invalid_enumeration),
        ZC_T(cmdqueue_priorities_accepted),
        ZC_T(cmdqueue_execute_open_list_fails),
        ZC_T(cmdqueue_execute_other_group_invalid_command_list_type),
        ZC_T(cmdqueue_execute_immediate_list_fails),
        ZC_T(cmdqueue_execute_zero_lists_invalid_size),
        ZC_T(cmdqueue_synchronize_times_out_until_work_can_finish),
        ZC_T(cmdqueue_synchronous_mode_returns_after_completion),
        ZC_T(cmdqueue_lists_run_in_submission_order),
        ZC_T(cmdqueue_synchronous_runs_after_busy_engine),
        ZC_T(cmdqueue_idle_queue_returns_while_engine_waits),
        ZC_T(cmdqueue_destroy_while_busy_in_use),
        ZC_T(cmdqueue_bad_handles),
        ZC_T(cmdqueue_device_outside_context_invalid_argument),
#if ZC_L0_AT_LEAST(9)
        ZC_T(cmdqueue_getters_answer_creation),
#endif
    };
    static const zc_suite suite = {ZC_EXECUTABLE, tests, ZC_COUNT(tests), zc_setup_system, zc_teardown_system, NULL, 0};
    return zc_main(argc, argv, &suite);
}
