/* Conformance: barriers (plain, with wait events and a signal event, memory ranges) and wait-on-events. */
#include "zc_exec.h"

/* Everything after a barrier that waits on a host-signalled gate runs only once the gate opens. */
static void barrier_with_wait_event_holds_later_commands(void **state) {
    zc_exec *x = *state;
    ze_command_queue_handle_t queue = zc_queue(x, x->compute_ordinal, 0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_event_pool_handle_t pool = zc_event_pool(x, 2, 0);
    ze_event_handle_t gate = zc_event(pool, 0);
    ze_event_handle_t passed = zc_event(pool, 1);
    uint8_t *buffer = zc_host_alloc(x, 64);
    memset(buffer, 0, 64);
    const uint8_t value = 9;
    ze_command_list_handle_t list = zc_list(x, x->compute_ordinal);
    zc_assert_success(zeCommandListAppendBarrier(list, passed, 1, &gate));
    zc_assert_success(zeCommandListAppendMemoryFill(list, buffer, &value, 1, 64, NULL, 0, NULL));
    zc_assert_success(zeCommandListClose(list));
    zc_assert_success(zeCommandQueueExecuteCommandLists(queue, 1, &list, NULL));
    zc_assert_result(zeEventHostSynchronize(passed, 5000000), ZE_RESULT_NOT_READY);
    assert_int_equal(buffer[0], 0);
    zc_assert_success(zeEventHostSignal(gate));
    zc_assert_success(zeEventHostSynchronize(passed, UINT64_MAX));
    zc_assert_success(zeCommandQueueSynchronize(queue, UINT64_MAX));
    assert_int_equal(buffer[63], value);
    zc_assert_success(zeCommandListDestroy(list));
    zc_free(x, buffer);
    zc_assert_success(zeEventDestroy(gate));
    zc_assert_success(zeEventDestroy(passed));
    zc_assert_success(zeEventPoolDestroy(pool));
    zc_assert_success(zeCommandQueueDestroy(queue));
}

static void barrier_memory_ranges_signals(void **state) {
    zc_exec *x = *state;
    ze_command_queue_handle_t queue = zc_queue(x, x->compute_ordinal, 0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_event_pool_handle_t pool = zc_event_pool(x, 1, 0);
    ze_event_handle_t done = zc_event(pool, 0);
    uint8_t *buffer = zc_host_alloc(x, 256);
    const void *ranges[2] = {buffer, buffer + 128};
    const size_t sizes[2] = {64, 64};
    ze_command_list_handle_t list = zc_list(x, x->compute_ordinal);
    zc_assert_success(zeCommandListAppendMemoryRangesBarrier(list, 2, sizes, ranges, done, 0, NULL));
    zc_assert_result(zeCommandListAppendMemoryRangesBarrier(list, 2, NULL, ranges, NULL, 0, NULL),
                     ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_run(queue, list);
    zc_assert_success(zeEventQueryStatus(done));
    zc_assert_success(zeCommandListDestroy(list));
    zc_free(x, buffer);
    zc_assert_success(zeEventDestroy(done));
    zc_assert_success(zeEventPoolDestroy(pool));
    zc_assert_success(zeCommandQueueDestroy(queue));
}

static void barrier_wait_on_several_events(void **state) {
    zc_exec *x = *state;
    ze_command_queue_handle_t queue = zc_queue(x, x->compute_ordinal, 0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_event_pool_handle_t pool = zc_event_pool(x, 4, 0);
    ze_event_handle_t events[3];
    for (uint32_t i = 0; i < 3; i++)
        events[i] = zc_event(pool, i);
    ze_event_handle_t done = zc_event(pool, 3);
    ze_command_list_handle_t list = zc_list(x, x->compute_ordinal);
    zc_assert_success(zeCommandListAppendWaitOnEvents(list, 3, events));
    zc_assert_success(zeCommandListAppendSignalEvent(list, done));
    zc_assert_success(zeCommandListClose(list));
    zc_assert_success(zeCommandQueueExecuteCommandLists(queue, 1, &list, NULL));
    for (uint32_t i = 0; i < 3; i++) {
        zc_assert_result(zeEventHostSynchronize(done, 1000000), ZE_RESULT_NOT_READY);
        zc_assert_success(zeEventHostSignal(events[i]));
    }
    zc_assert_success(zeEventHostSynchronize(done, UINT64_MAX));
    zc_assert_success(zeCommandQueueSynchronize(queue, UINT64_MAX));
    zc_assert_success(zeCommandListDestroy(list));
    for (uint32_t i = 0; i < 3; i++)
        zc_assert_success(zeEventDestroy(events[i]));
    zc_assert_success(zeEventDestroy(done));
    zc_assert_success(zeEventPoolDestroy(pool));
    zc_assert_success(zeCommandQueueDestroy(queue));
}

int main(int argc, char **argv) {
#define ZC_FIXTURE exec
    static const struct CMUnitTest tests[] = {
        ZC_T(barrier_with_wait_event_holds_later_commands),
        ZC_T(barrier_memory_ranges_signals),
        ZC_T(barrier_wait_on_several_events),
    };
    static const zc_suite suite = {ZC_EXECUTABLE, tests, ZC_COUNT(tests), zc_setup_system, zc_teardown_system, NULL, 0};
    return zc_main(argc, argv, &suite);
}
