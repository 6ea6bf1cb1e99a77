/* Conformance: immediate command lists (synchronous and asynchronous). */
#include "zc_exec.h"

#include <pthread.h>
#include <time.h>

/* Signals an event from another thread after 20 ms: the main thread is blocked in a synchronous append meanwhile. */
static void *zc_signal_later(void *event) {
    struct timespec pause = {0, 20 * 1000 * 1000};
    nanosleep(&pause, NULL);
    zeEventHostSignal((ze_event_handle_t)event);
    return NULL;
}

static void immediate_synchronous_done_on_return(void **state) {
    zc_exec *x = *state;
    ze_command_list_handle_t list = zc_immediate(x, x->compute_ordinal, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
    uint8_t *src = zc_host_alloc(x, 8192);
    uint8_t *dst = zc_device_alloc(x, 8192);
    uint8_t *back = zc_host_alloc(x, 8192);
    zc_fill_pattern(src, 8192, 5);
    zc_assert_success(zeCommandListAppendMemoryCopy(list, dst, src, 8192, NULL, 0, NULL));
    zc_assert_success(zeCommandListAppendMemoryCopy(list, back, dst, 8192, NULL, 0, NULL));
    assert_memory_equal(back, src, 8192);
    zc_assert_success(zeCommandListDestroy(list));
    zc_free(x, src);
    zc_free(x, dst);
    zc_free(x, back);
}

static void immediate_asynchronous_completes_by_event(void **state) {
    zc_exec *x = *state;
    ze_command_list_handle_t list = zc_immediate(x, x->compute_ordinal, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_event_pool_handle_t pool = zc_event_pool(x, 2, 0);
    ze_event_handle_t gate = zc_event(pool, 0);
    ze_event_handle_t done = zc_event(pool, 1);
    uint32_t *buffer = zc_host_alloc(x, 4096);
    memset(buffer, 0, 4096);
    const uint32_t value = 77;
    zc_assert_success(zeCommandListAppendMemoryFill(list, buffer, &value, sizeof value, 4096, done, 1, &gate));
    zc_assert_result(zeEventQueryStatus(done), ZE_RESULT_NOT_READY);
    zc_assert_success(zeEventHostSignal(gate));
    zc_assert_success(zeEventHostSynchronize(done, UINT64_MAX));
    assert_int_equal(buffer[1023], value);
    zc_assert_success(zeCommandListDestroy(list));
    zc_free(x, buffer);
    zc_assert_success(zeEventDestroy(gate));
    zc_assert_success(zeEventDestroy(done));
    zc_assert_success(zeEventPoolDestroy(pool));
}

static void immediate_commands_run_in_order(void **state) {
    zc_exec *x = *state;
    ze_command_list_handle_t list = zc_immediate(x, x->compute_ordinal, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_event_pool_handle_t pool = zc_event_pool(x, 1, 0);
    ze_event_handle_t done = zc_event(pool, 0);
    uint8_t *buffer = zc_host_alloc(x, 1024);
    for (uint8_t v = 1; v <= 20; v++)
        zc_assert_success(zeCommandListAppendMemoryFill(list, buffer, &v, 1, 1024, v == 20 ? done : NULL, 0, NULL));
    zc_assert_success(zeEventHostSynchronize(done, UINT64_MAX));
    assert_int_equal(buffer[0], 20);
    assert_int_equal(buffer[1023], 20);
    zc_assert_success(zeCommandListDestroy(list));
    zc_free(x, buffer);
    zc_assert_success(zeEventDestroy(done));
    zc_assert_success(zeEventPoolDestroy(pool));
}

/* A synchronous list on an engine that is still busy with another list's command runs after it, never before. */
static void immediate_synchronous_runs_after_busy_engine(void **state) {
    zc_skip_unless_fake(); /* queues of one engine run in order: zefake's engines, not the specification */
    zc_exec *x = *state;
    ze_command_list_handle_t async = zc_immediate(x, x->compute_ordinal, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_command_list_handle_t sync = zc_immediate(x, x->compute_ordinal, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
    ze_event_pool_handle_t pool = zc_event_pool(x, 2, 0);
    ze_event_handle_t gate = zc_event(pool, 0);
    ze_event_handle_t first = zc_event(pool, 1);
    uint8_t *buffer = zc_host_alloc(x, 256);
    const uint8_t one = 1, two = 2;
    zc_assert_success(zeCommandListAppendMemoryFill(async, buffer, &one, 1, 256, first, 1, &gate));
    pthread_t thread;
    assert_int_equal(pthread_create(&thread, NULL, zc_signal_later, gate), 0);
    zc_assert_success(zeCommandListAppendMemoryFill(sync, buffer, &two, 1, 256, NULL, 0, NULL));
    zc_assert_success(zeEventQueryStatus(first)); /* the earlier command completed first */
    assert_int_equal(buffer[0], 2);
    assert_int_equal(buffer[255], 2);
    pthread_join(thread, NULL);
    zc_assert_success(zeCommandListDestroy(sync));
    zc_assert_success(zeCommandListDestroy(async));
    zc_free(x, buffer);
    zc_assert_success(zeEventDestroy(gate));
    zc_assert_success(zeEventDestroy(first));
    zc_assert_success(zeEventPoolDestroy(pool));
}

/* Commands of a synchronous list signal their events before the append returns, with kernel timestamps in the order
 * the commands ran. */
static void immediate_synchronous_signals_in_device_order(void **state) {
    zc_exec *x = *state;
    ze_command_list_handle_t list = zc_immediate(x, x->compute_ordinal, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
    ze_event_pool_handle_t pool = zc_event_pool(x, 2, ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP);
    ze_event_handle_t events[2] = {zc_event(pool, 0), zc_event(pool, 1)};
    uint8_t *buffer = zc_host_alloc(x, 1 << 16);
    ze_kernel_timestamp_result_t times[2];
    for (int i = 0; i < 2; i++) {
        const uint8_t value = (uint8_t)(i + 1);
        zc_assert_success(zeCommandListAppendMemoryFill(list, buffer, &value, 1, 1 << 16, events[i], 0, NULL));
        zc_assert_success(zeEventQueryStatus(events[i]));
        zc_assert_success(zeEventQueryKernelTimestamp(events[i], &times[i]));
        assert_true(times[i].global.kernelStart < times[i].global.kernelEnd);
    }
    assert_true(times[0].global.kernelEnd <= times[1].global.kernelStart);
    zc_assert_success(zeEventHostReset(events[0]));
    zc_assert_result(zeEventQueryStatus(events[0]), ZE_RESULT_NOT_READY);
    zc_assert_result(zeEventHostSynchronize(events[0], 0), ZE_RESULT_NOT_READY);
    zc_assert_success(zeCommandListDestroy(list));
    zc_free(x, buffer);
    zc_assert_success(zeEventDestroy(events[0]));
    zc_assert_success(zeEventDestroy(events[1]));
    zc_assert_success(zeEventPoolDestroy(pool));
}

/* Appends many more commands than an engine queues (zefake: 128) behind one that waits for a host event: the appends
 * all return before the event is signalled, for an engine that waits for an event never makes its submitters wait
 * for room. They run on a thread of their own, so that a submitter that did wait fails the test instead of hanging
 * it. */
#define ZC_GATED_APPENDS 2000u

typedef struct zc_gate_appends {
    ze_command_list_handle_t list;
    uint32_t *buffer;
    ze_result_t result;
    pthread_mutex_t lock;
    pthread_cond_t done_cond;
    bool done;
} zc_gate_appends;

static void *zc_append_behind_gate(void *arg) {
    zc_gate_appends *g = arg;
    ze_result_t result = ZE_RESULT_SUCCESS;
    for (uint32_t i = 1; i <= ZC_GATED_APPENDS && result == ZE_RESULT_SUCCESS; i++)
        result = zeCommandListAppendMemoryFill(g->list, g->buffer, &i, sizeof i, 64, NULL, 0, NULL);
    pthread_mutex_lock(&g->lock);
    g->result = result;
    g->done = true;
    pthread_cond_signal(&g->done_cond);
    pthread_mutex_unlock(&g->lock);
    return NULL;
}

static void immediate_many_appends_behind_a_host_gate(void **state) {
    zc_exec *x = *state;
    ze_command_list_handle_t list = zc_immediate(x, x->compute_ordinal, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_event_pool_handle_t pool = zc_event_pool(x, 2, 0);
    ze_event_handle_t gate = zc_event(pool, 0);
    ze_event_handle_t done = zc_event(pool, 1);
    zc_gate_appends g = {.list = list,
                         .buffer = zc_host_alloc(x, 64),
                         .lock = PTHREAD_MUTEX_INITIALIZER,
                         .done_cond = PTHREAD_COND_INITIALIZER};
    memset(g.buffer, 0, 64);
    zc_assert_success(zeCommandListAppendBarrier(list, NULL, 1, &gate));
    pthread_t thread;
    assert_int_equal(pthread_create(&thread, NULL, zc_append_behind_gate, &g), 0);
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 20;
    pthread_mutex_lock(&g.lock);
    while (!g.done && pthread_cond_timedwait(&g.done_cond, &g.lock, &deadline) == 0)
        ;
    bool appended = g.done;
    pthread_mutex_unlock(&g.lock);
    assert_int_equal(g.buffer[0], 0);           /* nothing ran past the gate */
    zc_assert_success(zeEventHostSignal(gate)); /* which also ends a submitter that waited */
    pthread_join(thread, NULL);
    assert_true(appended);
    zc_assert_success(g.result);
    zc_assert_success(zeCommandListAppendBarrier(list, done, 0, NULL));
    zc_assert_success(zeEventHostSynchronize(done, UINT64_MAX));
    assert_int_equal(g.buffer[15], ZC_GATED_APPENDS);
    zc_assert_success(zeCommandListDestroy(list));
    zc_free(x, g.buffer);
    zc_assert_success(zeEventDestroy(gate));
    zc_assert_success(zeEventDestroy(done));
    zc_assert_success(zeEventPoolDestroy(pool));
}

static void immediate_bad_descriptor(void **state) {
    zc_exec *x = *state;
    ze_command_queue_desc_t desc = {
        ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, NULL, x->num_groups, 0, 0, ZE_COMMAND_QUEUE_MODE_DEFAULT,
        ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
    ze_command_list_handle_t list = NULL;
    zc_assert_result(zeCommandListCreateImmediate(x->context, x->device, &desc, &list),
                     ZE_RESULT_ERROR_INVALID_ARGUMENT);
    desc.ordinal = x->compute_ordinal;
    desc.mode = (ze_command_queue_mode_t)5;
    zc_assert_result(zeCommandListCreateImmediate(x->context, x->device, &desc, &list),
                     ZE_RESULT_ERROR_INVALID_ENUMERATION);
    zc_assert_result(zeCommandListCreateImmediate(x->context, x->device, NULL, &list),
                     ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zeCommandListCreateImmediate(NULL, x->device, &desc, &list), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
}

#if ZC_L0_AT_LEAST(6)
/* zeCommandListHostSynchronize (1.6) waits for an immediate list's commands only, up to its timeout. */
static void immediate_host_synchronize(void **state) {
    zc_exec *x = *state;
    zc_api_require(zeCommandListHostSynchronize);
    ze_command_list_handle_t list = zc_immediate(x, x->compute_ordinal, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_event_pool_handle_t pool = zc_event_pool(x, 1, 0);
    ze_event_handle_t gate = zc_event(pool, 0);
    zc_assert_success(ZC_API(zeCommandListHostSynchronize)(list, 0)); /* nothing appended yet */
    zc_assert_success(zeCommandListAppendBarrier(list, NULL, 1, &gate));
    zc_assert_result(ZC_API(zeCommandListHostSynchronize)(list, 0), ZE_RESULT_NOT_READY);
    zc_assert_result(ZC_API(zeCommandListHostSynchronize)(list, 1000000), ZE_RESULT_NOT_READY);
    zc_assert_success(zeEventHostSignal(gate));
    zc_assert_success(ZC_API(zeCommandListHostSynchronize)(list, UINT64_MAX));
    ze_command_list_handle_t regular = zc_list(x, x->compute_ordinal);
    zc_assert_result(ZC_API(zeCommandListHostSynchronize)(regular, 0), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    zc_assert_result(ZC_API(zeCommandListHostSynchronize)(NULL, 0), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_success(zeCommandListDestroy(regular));
    zc_assert_success(zeCommandListDestroy(list));
    if (zc_driver_is_fake())
        zc_assert_result(ZC_API(zeCommandListHostSynchronize)(list, 0), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_success(zeEventDestroy(gate));
    zc_assert_success(zeEventPoolDestroy(pool));
}
#endif

#if ZC_L0_AT_LEAST(9)
/* The command list getters (1.9) answer what each list was created with. */
static void list_getters_answer_creation(void **state) {
    zc_exec *x = *state;
    zc_api_require(zeCommandListIsImmediate);
    uint32_t last = x->groups[x->compute_ordinal].numQueues - 1;
    ze_command_queue_desc_t desc = {
        ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, NULL, x->compute_ordinal, last, 0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS,
        ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
    ze_command_list_handle_t immediate = NULL;
    zc_assert_success(zeCommandListCreateImmediate(x->context, x->device, &desc, &immediate));
    ze_command_list_handle_t regular = zc_list(x, x->compute_ordinal);
    ze_bool_t is_immediate = 2;
    zc_assert_success(ZC_API(zeCommandListIsImmediate)(immediate, &is_immediate));
    assert_true(is_immediate);
    zc_assert_success(ZC_API(zeCommandListIsImmediate)(regular, &is_immediate));
    assert_false(is_immediate);
    uint32_t ordinal = UINT32_MAX, index = UINT32_MAX;
    zc_assert_success(ZC_API(zeCommandListGetOrdinal)(immediate, &ordinal));
    assert_int_equal(ordinal, x->compute_ordinal);
    zc_assert_success(ZC_API(zeCommandListImmediateGetIndex)(immediate, &index));
    assert_int_equal(index, last);
    ze_device_handle_t device = NULL;
    ze_context_handle_t context = NULL;
    zc_assert_success(ZC_API(zeCommandListGetDeviceHandle)(regular, &device));
    zc_assert_success(ZC_API(zeCommandListGetContextHandle)(regular, &context));
    assert_ptr_equal(device, x->device);
    assert_ptr_equal(context, x->context);
    zc_assert_result(ZC_API(zeCommandListImmediateGetIndex)(regular, &index), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    zc_assert_result(ZC_API(zeCommandListIsImmediate)(regular, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(ZC_API(zeCommandListGetOrdinal)(NULL, &ordinal), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(ZC_API(zeCommandListGetDeviceHandle)(regular, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(ZC_API(zeCommandListGetContextHandle)(NULL, &context), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(ZC_API(zeCommandListImmediateGetIndex)(immediate, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_success(zeCommandListDestroy(regular));
    zc_assert_success(zeCommandListDestroy(immediate));
}
#endif

int main(int argc, char **argv) {
#define ZC_FIXTURE exec
    static const struct CMUnitTest tests[] = {
        ZC_T(immediate_synchronous_done_on_return),
        ZC_T(immediate_asynchronous_completes_by_event),
        ZC_T(immediate_commands_run_in_order),
        ZC_T(immediate_synchronous_runs_after_busy_engine),
        ZC_T(immediate_synchronous_signals_in_device_order),
        ZC_T(immediate_many_appends_behind_a_host_gate),
        ZC_T(immediate_bad_descriptor),
#if ZC_L0_AT_LEAST(6)
        ZC_T(immediate_host_synchronize),
#endif
#if ZC_L0_AT_LEAST(9)
        ZC_T(list_getters_answer_creation),
#endif
    };
    static const zc_suite suite = {ZC_EXECUTABLE, tests, ZC_COUNT(tests), zc_setup_system, zc_teardown_system, NULL, 0};
    return zc_main(argc, argv, &suite);
}
