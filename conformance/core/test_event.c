/* Conformance: event pools and events (host signal, synchronize, query, reset; device signal, wait, reset; cross-queue
 * dependencies). */
#include "zc_exec.h"

#include <pthread.h>
#include <unistd.h>

static void event_pool_zero_count_invalid_size(void **state) {
    zc_exec *x = *state;
    ze_event_pool_desc_t desc = {ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, NULL, ZE_EVENT_POOL_FLAG_HOST_VISIBLE, 0};
    ze_event_pool_handle_t pool = NULL;
    zc_assert_result(zeEventPoolCreate(x->context, &desc, 0, NULL, &pool), ZE_RESULT_ERROR_INVALID_SIZE);
    desc.count = 1;
    desc.flags = 0xFF;
    zc_assert_result(zeEventPoolCreate(x->context, &desc, 0, NULL, &pool), ZE_RESULT_ERROR_INVALID_ENUMERATION);
    desc.flags = 0;
    zc_assert_result(zeEventPoolCreate(x->context, &desc, 1, NULL, &pool), ZE_RESULT_ERROR_INVALID_SIZE);
}

/* A pool holds what one allocation of its devices could: maxMemAllocSize / 64 bytes per event (docs/events.md). The
 * largest is created and destroyed at once whatever its count; one more event is out of device memory. */
static void event_pool_count_limited_by_device_memory(void **state) {
    zc_skip_unless_fake();
    zc_exec *x = *state;
    ze_device_properties_t props = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
    zc_assert_success(zeDeviceGetProperties(x->device, &props));
    uint64_t most = props.maxMemAllocSize / 64;
    uint32_t largest = most < UINT32_MAX ? (uint32_t)most : UINT32_MAX;
    ze_event_pool_desc_t desc = {ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, NULL, ZE_EVENT_POOL_FLAG_HOST_VISIBLE, 1u << 31};
    ze_event_pool_handle_t pool = NULL;
    if (most < desc.count)
        zc_assert_result(zeEventPoolCreate(x->context, &desc, 1, &x->device, &pool),
                         ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY);
    if (largest < UINT32_MAX) {
        desc.count = largest + 1;
        zc_assert_result(zeEventPoolCreate(x->context, &desc, 1, &x->device, &pool),
                         ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY);
    }
    desc.count = largest;
    zc_assert_success(zeEventPoolCreate(x->context, &desc, 1, &x->device, &pool));
    ze_event_handle_t last = zc_event(pool, largest - 1);
    zc_assert_success(zeEventHostSignal(last));
    zc_assert_success(zeEventDestroy(last));
    zc_assert_success(zeEventPoolDestroy(pool));
}

static void event_index_out_of_range_fails(void **state) {
    zc_exec *x = *state;
    ze_event_pool_handle_t pool = zc_event_pool(x, 2, 0);
    ze_event_desc_t desc = {ZE_STRUCTURE_TYPE_EVENT_DESC, NULL, 2, 0, 0};
    ze_event_handle_t event = NULL;
    zc_assert_error(zeEventCreate(pool, &desc, &event));
    desc.index = 0;
    desc.signal = 0x10;
    zc_assert_result(zeEventCreate(pool, &desc, &event), ZE_RESULT_ERROR_INVALID_ENUMERATION);
    zc_assert_success(zeEventPoolDestroy(pool));
}

static void event_index_in_use_rejected(void **state) {
    zc_skip_unless_fake();
    zc_exec *x = *state;
    ze_event_pool_handle_t pool = zc_event_pool(x, 2, 0);
    ze_event_handle_t first = zc_event(pool, 1);
    ze_event_desc_t desc = {ZE_STRUCTURE_TYPE_EVENT_DESC, NULL, 1, 0, 0};
    ze_event_handle_t second = NULL;
    zc_assert_result(zeEventCreate(pool, &desc, &second), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    zc_assert_result(zeEventPoolDestroy(pool), ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE);
    zc_assert_success(zeEventDestroy(first));
    zc_assert_success(zeEventCreate(pool, &desc, &second));
    zc_assert_success(zeEventDestroy(second));
    zc_assert_success(zeEventPoolDestroy(pool));
}

static void event_host_signal_query_reset(void **state) {
    zc_exec *x = *state;
    ze_event_pool_handle_t pool = zc_event_pool(x, 1, 0);
    ze_event_handle_t event = zc_event(pool, 0);
    zc_assert_result(zeEventQueryStatus(event), ZE_RESULT_NOT_READY);
    zc_assert_result(zeEventHostSynchronize(event, 0), ZE_RESULT_NOT_READY);
    zc_assert_result(zeEventHostSynchronize(event, 2000000), ZE_RESULT_NOT_READY);
    zc_assert_success(zeEventHostSignal(event));
    zc_assert_success(zeEventQueryStatus(event));
    zc_assert_success(zeEventHostSynchronize(event, 0));
    zc_assert_success(zeEventHostSynchronize(event, UINT64_MAX));
    zc_assert_success(zeEventHostReset(event));
    zc_assert_result(zeEventQueryStatus(event), ZE_RESULT_NOT_READY);
    zc_assert_success(zeEventDestroy(event));
    zc_assert_success(zeEventPoolDestroy(pool));
}

static void *zc_signal_later(void *arg) {
    usleep(20000);
    zeEventHostSignal((ze_event_handle_t)arg);
    return NULL;
}

static void event_host_synchronize_forever_wakes_on_signal(void **state) {
    zc_exec *x = *state;
    ze_event_pool_handle_t pool = zc_event_pool(x, 1, 0);
    ze_event_handle_t event = zc_event(pool, 0);
    pthread_t thread;
    assert_int_equal(pthread_create(&thread, NULL, zc_signal_later, event), 0);
    zc_assert_success(zeEventHostSynchronize(event, UINT64_MAX));
    pthread_join(thread, NULL);
    zc_assert_success(zeEventDestroy(event));
    zc_assert_success(zeEventPoolDestroy(pool));
}

static void event_device_signal_and_reset_commands(void **state) {
    zc_exec *x = *state;
    ze_command_queue_handle_t queue = zc_queue(x, x->compute_ordinal, 0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_event_pool_handle_t pool = zc_event_pool(x, 2, 0);
    ze_event_handle_t a = zc_event(pool, 0);
    ze_event_handle_t b = zc_event(pool, 1);
    zc_assert_success(zeEventHostSignal(b));
    ze_command_list_handle_t list = zc_list(x, x->compute_ordinal);
    zc_assert_success(zeCommandListAppendSignalEvent(list, a));
    zc_assert_success(zeCommandListAppendEventReset(list, b));
    zc_run(queue, list);
    zc_assert_success(zeEventQueryStatus(a));
    zc_assert_result(zeEventQueryStatus(b), ZE_RESULT_NOT_READY);
    zc_assert_success(zeCommandListDestroy(list));
    zc_assert_success(zeEventDestroy(a));
    zc_assert_success(zeEventDestroy(b));
    zc_assert_success(zeEventPoolDestroy(pool));
    zc_assert_success(zeCommandQueueDestroy(queue));
}

/* Queue B copies what queue A produced only after A's event: B is submitted first and must wait. */
static void event_orders_work_across_queues(void **state) {
    zc_exec *x = *state;
    uint32_t other = x->copy_ordinal != ZC_NO_ORDINAL ? x->copy_ordinal : x->compute_ordinal;
    uint32_t other_index = other == x->compute_ordinal && x->groups[other].numQueues > 1 ? 1 : 0;
    ze_command_queue_handle_t qa = zc_queue(x, x->compute_ordinal, 0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_command_queue_handle_t qb = zc_queue(x, other, other_index, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_event_pool_handle_t pool = zc_event_pool(x, 2, 0);
    ze_event_handle_t produced = zc_event(pool, 0);
    ze_event_handle_t gate = zc_event(pool, 1);
    uint32_t *mid = zc_device_alloc(x, 4096);
    uint32_t *out = zc_host_alloc(x, 4096);
    const uint32_t value = 0xABCD1234u;
    ze_command_list_handle_t la = zc_list(x, x->compute_ordinal);
    zc_assert_success(zeCommandListAppendWaitOnEvents(la, 1, &gate));
    zc_assert_success(zeCommandListAppendMemoryFill(la, mid, &value, sizeof value, 4096, produced, 0, NULL));
    zc_assert_success(zeCommandListClose(la));
    ze_command_list_handle_t lb = zc_list(x, other);
    zc_assert_success(zeCommandListAppendMemoryCopy(lb, out, mid, 4096, NULL, 1, &produced));
    zc_assert_success(zeCommandListClose(lb));
    zc_assert_success(zeCommandQueueExecuteCommandLists(qb, 1, &lb, NULL));
    zc_assert_success(zeCommandQueueExecuteCommandLists(qa, 1, &la, NULL));
    zc_assert_result(zeCommandQueueSynchronize(qb, 0), ZE_RESULT_NOT_READY);
    zc_assert_success(zeEventHostSignal(gate));
    zc_assert_success(zeCommandQueueSynchronize(qb, UINT64_MAX));
    for (int i = 0; i < 1024; i++)
        assert_int_equal(out[i], value);
    zc_assert_success(zeCommandQueueSynchronize(qa, UINT64_MAX));
    zc_assert_success(zeCommandListDestroy(la));
    zc_assert_success(zeCommandListDestroy(lb));
    zc_free(x, mid);
    zc_free(x, out);
    zc_assert_success(zeEventDestroy(produced));
    zc_assert_success(zeEventDestroy(gate));
    zc_assert_success(zeEventPoolDestroy(pool));
    zc_assert_success(zeCommandQueueDestroy(qa));
    zc_assert_success(zeCommandQueueDestroy(qb));
}

static void event_kernel_timestamp_needs_timestamp_pool(void **state) {
    zc_exec *x = *state;
    ze_event_pool_handle_t pool = zc_event_pool(x, 1, 0);
    ze_event_handle_t event = zc_event(pool, 0);
    zc_assert_success(zeEventHostSignal(event));
    ze_kernel_timestamp_result_t result;
    zc_assert_error(zeEventQueryKernelTimestamp(event, &result));
    zc_assert_result(zeEventQueryKernelTimestamp(event, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_success(zeEventDestroy(event));
    zc_assert_success(zeEventPoolDestroy(pool));
}

#if ZC_L0_AT_LEAST(9)
/* The getters answer what the pool and the event were created with (1.9). */
static void event_getters_answer_creation(void **state) {
    zc_exec *x = *state;
    zc_api_require(zeEventPoolGetFlags);
    ze_event_pool_handle_t pool = zc_event_pool(x, 2, ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP);
    ze_event_desc_t desc = {ZE_STRUCTURE_TYPE_EVENT_DESC, NULL, 1, ZE_EVENT_SCOPE_FLAG_DEVICE,
                            ZE_EVENT_SCOPE_FLAG_HOST};
    ze_event_handle_t event = NULL;
    zc_assert_success(zeEventCreate(pool, &desc, &event));
    ze_event_pool_flags_t flags = 0;
    zc_assert_success(ZC_API(zeEventPoolGetFlags)(pool, &flags));
    assert_int_equal(flags, ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP | ZE_EVENT_POOL_FLAG_HOST_VISIBLE);
    ze_context_handle_t context = NULL;
    zc_assert_success(ZC_API(zeEventPoolGetContextHandle)(pool, &context));
    assert_ptr_equal(context, x->context);
    ze_event_pool_handle_t owner = NULL;
    zc_assert_success(ZC_API(zeEventGetEventPool)(event, &owner));
    assert_ptr_equal(owner, pool);
    ze_event_scope_flags_t signal = 0, wait = 0;
    zc_assert_success(ZC_API(zeEventGetSignalScope)(event, &signal));
    zc_assert_success(ZC_API(zeEventGetWaitScope)(event, &wait));
    assert_int_equal(signal, ZE_EVENT_SCOPE_FLAG_DEVICE);
    assert_int_equal(wait, ZE_EVENT_SCOPE_FLAG_HOST);
    zc_assert_result(ZC_API(zeEventPoolGetFlags)(NULL, &flags), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(ZC_API(zeEventPoolGetFlags)(pool, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(ZC_API(zeEventPoolGetContextHandle)(pool, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(ZC_API(zeEventGetEventPool)(NULL, &owner), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(ZC_API(zeEventGetSignalScope)(event, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(ZC_API(zeEventGetWaitScope)(NULL, &wait), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_success(zeEventDestroy(event));
    if (zc_driver_is_fake())
        zc_assert_result(ZC_API(zeEventGetSignalScope)(event, &signal), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_success(zeEventPoolDestroy(pool));
}
#endif

#if ZC_L0_AT_LEAST(6)
/* An event of `pool_flags` signalled by a barrier of a synchronous immediate list. */
static ze_event_handle_t zc_signalled_by_device(zc_exec *x, ze_event_pool_flags_t pool_flags,
                                                ze_event_pool_handle_t *pool) {
    *pool = zc_event_pool(x, 1, pool_flags);
    ze_event_handle_t event = zc_event(*pool, 0);
    ze_command_list_handle_t list = zc_immediate(x, x->compute_ordinal, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
    zc_assert_success(zeCommandListAppendBarrier(list, event, 0, NULL));
    zc_assert_success(zeEventHostSynchronize(event, UINT64_MAX));
    zc_assert_success(zeCommandListDestroy(list));
    return event;
}

/* ZE_extension_event_query_kernel_timestamps (1.6): the kernel timestamps of zeEventQueryKernelTimestamp, and with
 * ZE_EVENT_POOL_FLAG_KERNEL_MAPPED_TIMESTAMP the same interval on the host's clock, in ns. */
static void event_query_kernel_timestamps_ext(void **state) {
    zc_exec *x = *state;
    zc_api_require(zeEventQueryKernelTimestampsExt);
    ze_event_pool_flags_t kinds[] = {ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP, ZE_EVENT_POOL_FLAG_KERNEL_MAPPED_TIMESTAMP};
    ze_device_properties_t props = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
    zc_assert_success(zeDeviceGetProperties(x->device, &props));
    for (size_t k = 0; k < ZC_COUNT(kinds); k++) {
        ze_event_pool_handle_t pool;
        ze_event_handle_t event = zc_signalled_by_device(x, kinds[k], &pool);
        uint32_t count = 0;
        zc_assert_success(ZC_API(zeEventQueryKernelTimestampsExt)(event, x->device, &count, NULL));
        assert_true(count >= 1 && count <= 16);
        ze_kernel_timestamp_result_t kernel[16];
        ze_synchronized_timestamp_result_ext_t host[16];
        memset(host, 0xa5, sizeof host);
        ze_event_query_kernel_timestamps_results_ext_properties_t results = {
            ZE_STRUCTURE_TYPE_EVENT_QUERY_KERNEL_TIMESTAMPS_RESULTS_EXT_PROPERTIES, NULL, kernel, host};
        zc_assert_success(ZC_API(zeEventQueryKernelTimestampsExt)(event, x->device, &count, &results));
        for (uint32_t t = 0; t < count; t++) {
            assert_true(kernel[t].global.kernelStart <= kernel[t].global.kernelEnd);
            if (kinds[k] != ZE_EVENT_POOL_FLAG_KERNEL_MAPPED_TIMESTAMP) {
                assert_int_equal(host[t].global.kernelStart, 0xa5a5a5a5a5a5a5a5u); /* not asked for: untouched */
                continue;
            }
            assert_true(host[t].global.kernelStart <= host[t].global.kernelEnd);
            uint64_t ticks = kernel[t].global.kernelEnd - kernel[t].global.kernelStart;
            uint64_t ns = host[t].global.kernelEnd - host[t].global.kernelStart;
            /* the same interval: the 1.0 stype's timerResolution is ns per tick, rounded */
            uint64_t tick_ns = props.timerResolution > 0 ? props.timerResolution : 1;
            uint64_t slack = 2 * tick_ns + ns / 50;
            assert_true(ns + slack >= ticks * tick_ns && ns <= ticks * tick_ns + slack);
        }
        zc_assert_success(zeEventDestroy(event));
        zc_assert_success(zeEventPoolDestroy(pool));
    }
}

/* The destination memory stays unmodified while the event is not signalled; bad arguments are refused. */
static void event_query_kernel_timestamps_ext_bad_inputs(void **state) {
    zc_exec *x = *state;
    zc_api_require(zeEventQueryKernelTimestampsExt);
    ze_event_pool_handle_t pool = zc_event_pool(x, 1, ZE_EVENT_POOL_FLAG_KERNEL_MAPPED_TIMESTAMP);
    ze_event_handle_t event = zc_event(pool, 0);
    ze_kernel_timestamp_result_t kernel;
    memset(&kernel, 0x5a, sizeof kernel);
    ze_event_query_kernel_timestamps_results_ext_properties_t results = {
        ZE_STRUCTURE_TYPE_EVENT_QUERY_KERNEL_TIMESTAMPS_RESULTS_EXT_PROPERTIES, NULL, &kernel, NULL};
    uint32_t count = 1;
    ZC_API(zeEventQueryKernelTimestampsExt)(event, x->device, &count, &results);
    assert_int_equal(kernel.global.kernelStart, 0x5a5a5a5a5a5a5a5au);
    zc_assert_result(ZC_API(zeEventQueryKernelTimestampsExt)(NULL, x->device, &count, &results),
                     ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(ZC_API(zeEventQueryKernelTimestampsExt)(event, NULL, &count, &results),
                     ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(ZC_API(zeEventQueryKernelTimestampsExt)(event, x->device, NULL, &results),
                     ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_success(zeEventHostSignal(event));
    if (zc_driver_is_fake()) {
        results.stype = ZE_STRUCTURE_TYPE_EVENT_DESC;
        count = 1;
        zc_assert_result(ZC_API(zeEventQueryKernelTimestampsExt)(event, x->device, &count, &results),
                         ZE_RESULT_ERROR_INVALID_ARGUMENT);
    }
    zc_assert_success(zeEventDestroy(event));
    zc_assert_success(zeEventPoolDestroy(pool));
}
#endif

static void event_bad_handles(void **state) {
    zc_exec *x = *state;
    zc_assert_result(zeEventHostSignal(NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zeEventHostSynchronize(NULL, 0), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zeEventQueryStatus(NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zeEventHostReset(NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zeEventPoolDestroy(NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    ze_event_pool_handle_t pool = zc_event_pool(x, 1, 0);
    ze_event_handle_t event = NULL;
    zc_assert_result(zeEventCreate(pool, NULL, &event), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    event = zc_event(pool, 0);
    zc_assert_success(zeEventDestroy(event));
    if (zc_driver_is_fake()) {
        zc_assert_result(zeEventHostSignal(event), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
        zc_assert_result(zeEventQueryStatus(event), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    }
    zc_assert_success(zeEventPoolDestroy(pool));
    if (zc_driver_is_fake())
        zc_assert_result(zeEventCreate(pool, &(ze_event_desc_t){ZE_STRUCTURE_TYPE_EVENT_DESC, NULL, 0, 0, 0}, &event),
                         ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
}

int main(int argc, char **argv) {
#define ZC_FIXTURE exec
    static const struct CMUnitTest tests[] = {
        ZC_T(event_pool_zero_count_invalid_size),
        ZC_T(event_pool_count_limited_by_device_memory),
        ZC_T(event_index_out_of_range_fails),
        ZC_T(event_index_in_use_rejected),
        ZC_T(event_host_signal_query_reset),
        ZC_T(event_host_synchronize_forever_wakes_on_signal),
        ZC_T(event_device_signal_and_reset_commands),
        ZC_T(event_orders_work_across_queues),
        ZC_T(event_kernel_timestamp_needs_timestamp_pool),
        ZC_T(event_bad_handles),
#if ZC_L0_AT_LEAST(9)
        ZC_T(event_getters_answer_creation),
#endif
#if ZC_L0_AT_LEAST(6)
        ZC_T(event_query_kernel_timestamps_ext),
        ZC_T(event_query_kernel_timestamps_ext_bad_inputs),
#endif
    };
    static const zc_suite suite = {ZC_EXECUTABLE, tests, ZC_COUNT(tests), zc_setup_system, zc_teardown_system, NULL, 0};
    return zc_main(argc, argv, &suite);
}
