/* Conformance: kernel timestamps of events, global timestamps written by command lists, and their consistency with
 * zeDeviceGetGlobalTimestamps; on the fake, durations that follow the documented cost model (docs/cost-model.md) and
 * timestamps that repeat exactly from run to run. */
#include "zc_exec.h"

#include <inttypes.h>
#include <stdio.h>

typedef struct zc_timer {
    uint64_t hz;
    uint32_t valid_bits;
    uint32_t kernel_valid_bits;
} zc_timer;

static zc_timer zc_device_timer(ze_device_handle_t device) {
    ze_device_properties_t p = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2};
    zc_assert_success(zeDeviceGetProperties(device, &p));
    return (zc_timer){p.timerResolution, p.timestampValidBits, p.kernelTimestampValidBits};
}

static uint64_t zc_mask(uint64_t value, uint32_t bits) {
    return bits >= 64 ? value : value & ((UINT64_C(1) << bits) - 1);
}

static uint64_t zc_device_now(ze_device_handle_t device) {
    uint64_t host = 0, ticks = 0;
    zc_assert_success(zeDeviceGetGlobalTimestamps(device, &host, &ticks));
    return ticks;
}

/* Fills `size` bytes of `buffer` with a timestamped event, waits, and returns the kernel timestamps. */
static ze_kernel_timestamp_result_t zc_timed_fill(zc_exec *x, ze_command_list_handle_t immediate, void *buffer,
                                                  size_t size, ze_event_handle_t event) {
    const uint32_t pattern = 0x01020304;
    zc_assert_success(zeEventHostReset(event));
    zc_assert_success(zeCommandListAppendMemoryFill(immediate, buffer, &pattern, 4, size, event, 0, NULL));
    zc_assert_success(zeEventHostSynchronize(event, UINT64_MAX));
    ze_kernel_timestamp_result_t result;
    zc_assert_success(zeEventQueryKernelTimestamp(event, &result));
    (void)x;
    return result;
}

static void timestamps_inside_submission_window(void **state) {
    zc_exec *x = *state;
    zc_timer timer = zc_device_timer(x->device);
    ze_command_list_handle_t list = zc_immediate(x, x->compute_ordinal, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_event_pool_handle_t pool = zc_event_pool(x, 1, ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP);
    ze_event_handle_t event = zc_event(pool, 0);
    void *buffer = zc_host_alloc(x, 1u << 20);
    uint64_t before = zc_device_now(x->device);
    ze_kernel_timestamp_result_t ts = zc_timed_fill(x, list, buffer, 1u << 20, event);
    uint64_t after = zc_device_now(x->device);
    assert_true(ts.global.kernelStart <= ts.global.kernelEnd);
    assert_true(ts.global.kernelEnd <= zc_mask(UINT64_MAX, timer.kernel_valid_bits));
    /* Kernel timestamps keep fewer bits: compare within them (the window is far shorter than a wrap). */
    uint64_t b = zc_mask(before, timer.kernel_valid_bits), a = zc_mask(after, timer.kernel_valid_bits);
    if (b <= a && (ts.global.kernelStart < b || ts.global.kernelEnd > a))
        zc_fail("kernel [%" PRIu64 ", %" PRIu64 "] outside the window [%" PRIu64 ", %" PRIu64 "]",
                ts.global.kernelStart, ts.global.kernelEnd, b, a);
    assert_true(ts.context.kernelStart <= ts.context.kernelEnd);
    zc_assert_success(zeCommandListDestroy(list));
    zc_free(x, buffer);
    zc_assert_success(zeEventDestroy(event));
    zc_assert_success(zeEventPoolDestroy(pool));
}

static void timestamps_consecutive_commands_do_not_overlap(void **state) {
    zc_exec *x = *state;
    ze_command_list_handle_t list = zc_immediate(x, x->compute_ordinal, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_event_pool_handle_t pool = zc_event_pool(x, 2, ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP);
    ze_event_handle_t first = zc_event(pool, 0);
    ze_event_handle_t second = zc_event(pool, 1);
    void *buffer = zc_host_alloc(x, 65536);
    const uint8_t one = 1;
    zc_assert_success(zeCommandListAppendMemoryFill(list, buffer, &one, 1, 65536, first, 0, NULL));
    zc_assert_success(zeCommandListAppendMemoryFill(list, buffer, &one, 1, 65536, second, 0, NULL));
    zc_assert_success(zeEventHostSynchronize(second, UINT64_MAX));
    ze_kernel_timestamp_result_t a, b;
    zc_assert_success(zeEventQueryKernelTimestamp(first, &a));
    zc_assert_success(zeEventQueryKernelTimestamp(second, &b));
    assert_true(a.global.kernelEnd <= b.global.kernelStart);
    zc_assert_success(zeCommandListDestroy(list));
    zc_free(x, buffer);
    zc_assert_success(zeEventDestroy(first));
    zc_assert_success(zeEventDestroy(second));
    zc_assert_success(zeEventPoolDestroy(pool));
}

static void timestamps_written_by_list_increase(void **state) {
    zc_exec *x = *state;
    zc_timer timer = zc_device_timer(x->device);
    ze_command_queue_handle_t queue = zc_queue(x, x->compute_ordinal, 0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    uint64_t *stamps = zc_host_alloc(x, 3 * sizeof(uint64_t));
    void *buffer = zc_host_alloc(x, 1u << 20);
    const uint8_t one = 1;
    ze_command_list_handle_t list = zc_list(x, x->compute_ordinal);
    zc_assert_success(zeCommandListAppendWriteGlobalTimestamp(list, &stamps[0], NULL, 0, NULL));
    zc_assert_success(zeCommandListAppendMemoryFill(list, buffer, &one, 1, 1u << 20, NULL, 0, NULL));
    zc_assert_success(zeCommandListAppendWriteGlobalTimestamp(list, &stamps[1], NULL, 0, NULL));
    zc_assert_success(zeCommandListAppendWriteGlobalTimestamp(list, &stamps[2], NULL, 0, NULL));
    uint64_t before = zc_device_now(x->device);
    zc_run(queue, list);
    uint64_t after = zc_device_now(x->device);
    assert_true(before <= stamps[0]);
    assert_true(stamps[0] < stamps[1]);
    assert_true(stamps[1] <= stamps[2]);
    assert_true(stamps[2] <= after);
    assert_true(stamps[2] <= zc_mask(UINT64_MAX, timer.valid_bits));
    zc_assert_result(zeCommandListAppendWriteGlobalTimestamp(list, NULL, NULL, 0, NULL),
                     ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_success(zeCommandListDestroy(list));
    zc_free(x, stamps);
    zc_free(x, buffer);
    zc_assert_success(zeCommandQueueDestroy(queue));
}

static void timestamps_query_command_matches_event_query(void **state) {
    zc_exec *x = *state;
    ze_command_list_handle_t list = zc_immediate(x, x->compute_ordinal, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
    ze_event_pool_handle_t pool = zc_event_pool(x, 2, ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP);
    ze_event_handle_t events[2] = {zc_event(pool, 0), zc_event(pool, 1)};
    void *buffer = zc_host_alloc(x, 4096);
    ze_kernel_timestamp_result_t *results = zc_host_alloc(x, 4 * sizeof *results);
    const uint8_t one = 1;
    zc_assert_success(zeCommandListAppendMemoryFill(list, buffer, &one, 1, 4096, events[0], 0, NULL));
    zc_assert_success(zeCommandListAppendMemoryFill(list, buffer, &one, 1, 2048, events[1], 0, NULL));
    size_t offsets[2] = {2 * sizeof *results, 0};
    zc_assert_success(zeCommandListAppendQueryKernelTimestamps(list, 2, events, results, offsets, NULL, 0, NULL));
    for (int i = 0; i < 2; i++) {
        ze_kernel_timestamp_result_t direct;
        zc_assert_success(zeEventQueryKernelTimestamp(events[i], &direct));
        const ze_kernel_timestamp_result_t *written = i == 0 ? &results[2] : &results[0];
        assert_memory_equal(written, &direct, sizeof direct);
    }
    zc_assert_success(zeCommandListDestroy(list));
    zc_free(x, buffer);
    zc_free(x, results);
    zc_assert_success(zeEventDestroy(events[0]));
    zc_assert_success(zeEventDestroy(events[1]));
    zc_assert_success(zeEventPoolDestroy(pool));
}

/* Fake only: a fill of 1 MiB of host memory takes 100 + 1048576 / 25 ns on a compute engine, of device memory
 * 100 + 1048576 / 200 ns (rounded up), and the event's tick difference is within one tick of that. */
static void zc_check_duration(uint64_t start, uint64_t end, uint64_t ns, uint64_t hz, const char *what) {
    uint64_t ticks = end - start;
    uint64_t low = ns * hz / 1000000000u;
    if (ticks < low || ticks > low + 1)
        zc_fail("%s: %" PRIu64 " ticks, the cost model gives %" PRIu64 " ns = %" PRIu64 "..%" PRIu64 " ticks", what,
                ticks, ns, low, low + 1);
}

static void timestamps_follow_cost_model(void **state) {
    zc_skip_unless_fake();
    zc_exec *x = *state;
    zc_timer timer = zc_device_timer(x->device);
    ze_command_list_handle_t list = zc_immediate(x, x->compute_ordinal, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_event_pool_handle_t pool = zc_event_pool(x, 1, ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP);
    ze_event_handle_t event = zc_event(pool, 0);
    const size_t size = 1u << 20;
    void *host = zc_host_alloc(x, size);
    void *device = zc_device_alloc(x, size);
    ze_kernel_timestamp_result_t ts = zc_timed_fill(x, list, host, size, event);
    zc_check_duration(ts.global.kernelStart, ts.global.kernelEnd, 100 + (size + 24) / 25, timer.hz, "host fill");
    ts = zc_timed_fill(x, list, device, size, event);
    zc_check_duration(ts.global.kernelStart, ts.global.kernelEnd, 100 + (size + 199) / 200, timer.hz, "device fill");
    zc_assert_success(zeCommandListDestroy(list));
    zc_free(x, host);
    zc_free(x, device);
    zc_assert_success(zeEventDestroy(event));
    zc_assert_success(zeEventPoolDestroy(pool));
}

/* The child mode: a fixed workload, printing every timestamp it sees. */
static int zc_workload(int argc, char **argv) {
    (void)argc;
    (void)argv;
    zc_exec *x = zc_child_exec_begin();
    if (x == NULL)
        return 2;
    ze_command_list_handle_t list = zc_immediate(x, x->compute_ordinal, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_event_pool_handle_t pool = zc_event_pool(x, 1, ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP);
    ze_event_handle_t event = zc_event(pool, 0);
    void *buffer = zc_device_alloc(x, 1u << 16);
    for (int i = 0; i < 3; i++) {
        ze_kernel_timestamp_result_t ts = zc_timed_fill(x, list, buffer, (size_t)(i + 1) << 14, event);
        printf("start%d=%" PRIu64 "\nend%d=%" PRIu64 "\nnow%d=%" PRIu64 "\n", i, ts.global.kernelStart, i,
               ts.global.kernelEnd, i, zc_device_now(x->device));
    }
    zc_assert_success(zeCommandListDestroy(list));
    zc_assert_success(zeEventDestroy(event));
    zc_assert_success(zeEventPoolDestroy(pool));
    zc_free(x, buffer);
    return zc_child_exec_end(x);
}

/* The deterministic clock (docs/cost-model.md, "Device time"): the same workload gives the same timestamps. */
static void timestamps_repeat_exactly_across_runs(void **state) {
    zc_skip_unless_fake();
    (void)state;
    const char *const modelled[] = {"ZEFAKE_CLOCK=modelled", NULL};
    zc_child first, second;
    assert_true(zc_run_child_mode("workload", NULL, modelled, ZC_CHILD_TIMEOUT_MS, &first));
    zc_assert_child_ok(&first, "first run");
    assert_true(zc_run_child_mode("workload", NULL, modelled, ZC_CHILD_TIMEOUT_MS, &second));
    zc_assert_child_ok(&second, "second run");
    if (strcmp(first.out, second.out) != 0)
        zc_fail("two runs of the same workload gave different timestamps:\n%s---\n%s", first.out, second.out);
    assert_non_null(strstr(first.out, "end2="));
    zc_child_free(&first);
    zc_child_free(&second);
}

/* Child mode "freed-destination <timestamp|query>": a regular list writing a global timestamp (or the kernel
 * timestamps of an event) into device memory that is freed before the list executes, in a fresh process (the fault
 * marks the device lost for the rest of the process). */
static int zc_child_freed_destination(int argc, char **argv) {
    zc_exec *x = zc_child_exec_begin();
    if (x == NULL || argc < 1)
        return 2;
    ze_command_queue_handle_t queue = zc_queue(x, x->compute_ordinal, 0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_command_list_handle_t list = zc_list(x, x->compute_ordinal);
    ze_event_pool_handle_t pool = zc_event_pool(x, 1, ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP);
    ze_event_handle_t event = zc_event(pool, 0);
    void *target = zc_device_alloc(x, 4096);
    if (strcmp(argv[0], "timestamp") == 0) {
        zc_assert_success(zeCommandListAppendWriteGlobalTimestamp(list, target, NULL, 0, NULL));
    } else {
        zc_assert_success(zeCommandListAppendSignalEvent(list, event));
        zc_assert_success(zeCommandListAppendQueryKernelTimestamps(list, 1, &event, target, NULL, NULL, 0, NULL));
    }
    zc_assert_success(zeCommandListClose(list));
    zc_free(x, target);
    printf("execute=%u\n", (unsigned)zeCommandQueueExecuteCommandLists(queue, 1, &list, NULL));
    printf("synchronize=%u\n", (unsigned)zeCommandQueueSynchronize(queue, UINT64_MAX));
    printf("status=%u\n", (unsigned)zeDeviceGetStatus(x->device));
    zeEventDestroy(event);
    zeEventPoolDestroy(pool);
    zeCommandListDestroy(list);
    zeCommandQueueDestroy(queue);
    return zc_child_exec_end(x);
}

static void timestamps_into_freed_memory_fault_instead_of_crashing(void **state) {
    (void)state;
    zc_skip_unless_fake(); /* how a device fault is reported is zefake's (docs/cost-model.md, "Faults") */
    const char *const kinds[] = {"timestamp", "query"};
    for (size_t i = 0; i < ZC_COUNT(kinds); i++) {
        const char *args[] = {kinds[i], NULL};
        zc_child child;
        assert_true(zc_run_child_mode("freed-destination", args, NULL, ZC_CHILD_TIMEOUT_MS, &child));
        zc_assert_child_ok(&child, "the process writing timestamps into freed memory");
        assert_int_equal(zc_child_number(&child, "execute"), ZE_RESULT_SUCCESS);
        assert_int_equal(zc_child_number(&child, "status"), ZE_RESULT_ERROR_DEVICE_LOST);
        if (strstr(child.err, "freed") == NULL)
            zc_fail("%s: the diagnostic does not name the freed memory:\n%s", kinds[i], child.err);
        zc_child_free(&child);
    }
}

int main(int argc, char **argv) {
#define ZC_FIXTURE exec
    static const struct CMUnitTest tests[] = {
        ZC_T(timestamps_inside_submission_window),
        ZC_T(timestamps_consecutive_commands_do_not_overlap),
        ZC_T(timestamps_written_by_list_increase),
        ZC_T(timestamps_query_command_matches_event_query),
        ZC_T(timestamps_follow_cost_model),
        cmocka_unit_test(timestamps_repeat_exactly_across_runs),
        cmocka_unit_test(timestamps_into_freed_memory_fault_instead_of_crashing),
    };
    static const zc_child_mode modes[] = {{"workload", zc_workload}, {"freed-destination", zc_child_freed_destination}};
    static const zc_suite suite = {ZC_EXECUTABLE,      tests, ZC_COUNT(tests), zc_setup_system,
                                   zc_teardown_system, modes, ZC_COUNT(modes)};
    return zc_main(argc, argv, &suite);
}
