/* Conformance: regular command lists (create, append, close, reset, destroy; fills and the list life cycle). */
#include "zc_exec.h"

static void cmdlist_create_every_group(void **state) {
    zc_exec *x = *state;
    for (uint32_t g = 0; g < x->num_groups; g++) {
        ze_command_list_handle_t list = zc_list(x, g);
        zc_assert_success(zeCommandListClose(list));
        zc_assert_success(zeCommandListReset(list));
        zc_assert_success(zeCommandListDestroy(list));
    }
}

static void cmdlist_bad_ordinal_invalid_argument(void **state) {
    zc_exec *x = *state;
    ze_command_list_desc_t desc = {ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC, NULL, x->num_groups, 0};
    ze_command_list_handle_t list = NULL;
    zc_assert_result(zeCommandListCreate(x->context, x->device, &desc, &list), ZE_RESULT_ERROR_INVALID_ARGUMENT);
}

static void cmdlist_bad_flags_invalid_enumeration(void **state) {
    zc_exec *x = *state;
    ze_command_list_desc_t desc = {ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC, NULL, x->compute_ordinal, 0x80};
    ze_command_list_handle_t list = NULL;
    zc_assert_result(zeCommandListCreate(x->context, x->device, &desc, &list), ZE_RESULT_ERROR_INVALID_ENUMERATION);
}

static void cmdlist_append_after_close_fails_until_reset(void **state) {
    zc_exec *x = *state;
    ze_command_list_handle_t list = zc_list(x, x->compute_ordinal);
    zc_assert_success(zeCommandListClose(list));
    zc_assert_error(zeCommandListAppendBarrier(list, NULL, 0, NULL));
    zc_assert_success(zeCommandListReset(list));
    zc_assert_success(zeCommandListAppendBarrier(list, NULL, 0, NULL));
    zc_assert_success(zeCommandListDestroy(list));
}

static void cmdlist_executes_again_each_submission(void **state) {
    zc_exec *x = *state;
    ze_command_queue_handle_t queue = zc_queue(x, x->compute_ordinal, 0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    uint8_t *buffer = zc_host_alloc(x, 64);
    uint8_t *source = zc_host_alloc(x, 64);
    ze_command_list_handle_t list = zc_list(x, x->compute_ordinal);
    zc_assert_success(zeCommandListAppendMemoryCopy(list, buffer, source, 64, NULL, 0, NULL));
    zc_run(queue, list);
    for (int round = 0; round < 3; round++) {
        memset(source, round + 10, 64);
        zc_assert_success(zeCommandQueueExecuteCommandLists(queue, 1, &list, NULL));
        zc_assert_success(zeCommandQueueSynchronize(queue, UINT64_MAX));
        assert_int_equal(buffer[63], round + 10);
    }
    zc_assert_success(zeCommandListDestroy(list));
    zc_free(x, buffer);
    zc_free(x, source);
    zc_assert_success(zeCommandQueueDestroy(queue));
}

static void cmdlist_reset_discards_commands(void **state) {
    zc_exec *x = *state;
    ze_command_queue_handle_t queue = zc_queue(x, x->compute_ordinal, 0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    uint8_t *buffer = zc_host_alloc(x, 16);
    memset(buffer, 0, 16);
    const uint8_t one = 1;
    ze_command_list_handle_t list = zc_list(x, x->compute_ordinal);
    zc_assert_success(zeCommandListAppendMemoryFill(list, buffer, &one, 1, 16, NULL, 0, NULL));
    zc_assert_success(zeCommandListReset(list));
    zc_run(queue, list);
    assert_int_equal(buffer[0], 0);
    zc_assert_success(zeCommandListDestroy(list));
    zc_free(x, buffer);
    zc_assert_success(zeCommandQueueDestroy(queue));
}

/* A list reset after more commands than it first had room for records anew: only the new commands run. */
static void cmdlist_reset_after_growth_runs_only_new_commands(void **state) {
    zc_exec *x = *state;
    ze_command_queue_handle_t queue = zc_queue(x, x->compute_ordinal, 0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    uint8_t *buffer = zc_host_alloc(x, 64);
    memset(buffer, 0, 64);
    ze_command_list_handle_t list = zc_list(x, x->compute_ordinal);
    for (uint8_t i = 0; i < 40; i++) {
        const uint8_t value = (uint8_t)(100 + i);
        zc_assert_success(zeCommandListAppendMemoryFill(list, buffer + i, &value, 1, 1, NULL, 0, NULL));
    }
    zc_assert_success(zeCommandListReset(list));
    const uint8_t seven = 7;
    zc_assert_success(zeCommandListAppendMemoryFill(list, buffer + 1, &seven, 1, 1, NULL, 0, NULL));
    zc_run(queue, list);
    assert_int_equal(buffer[0], 0);
    assert_int_equal(buffer[1], 7);
    assert_int_equal(buffer[39], 0);
    zc_assert_success(zeCommandListDestroy(list));
    zc_free(x, buffer);
    zc_assert_success(zeCommandQueueDestroy(queue));
}

/* Every power-of-two pattern up to the group's maximum fills with the pattern repeated, truncated at the end. */
static void cmdlist_fill_every_pattern_size(void **state) {
    zc_exec *x = *state;
    ze_command_queue_handle_t queue = zc_queue(x, x->compute_ordinal, 0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    size_t max = x->groups[x->compute_ordinal].maxMemoryFillPatternSize;
    uint8_t pattern[256];
    zc_fill_pattern(pattern, sizeof pattern, 7);
    const size_t size = 1000; /* not a multiple of any pattern size above 8 */
    uint8_t *buffer = zc_host_alloc(x, size);
    for (size_t p = 1; p <= max && p <= sizeof pattern; p *= 2) {
        ze_command_list_handle_t list = zc_list(x, x->compute_ordinal);
        zc_assert_success(zeCommandListAppendMemoryFill(list, buffer, pattern, p, size, NULL, 0, NULL));
        zc_run(queue, list);
        for (size_t i = 0; i < size; i++) {
            if (buffer[i] != pattern[i % p])
                zc_fail("pattern size %zu: byte %zu is %u, expected %u", p, i, buffer[i], pattern[i % p]);
        }
        zc_assert_success(zeCommandListDestroy(list));
    }
    zc_free(x, buffer);
    zc_assert_success(zeCommandQueueDestroy(queue));
}

static void cmdlist_fill_bad_pattern_size_invalid_size(void **state) {
    zc_exec *x = *state;
    size_t max = x->groups[x->compute_ordinal].maxMemoryFillPatternSize;
    uint8_t pattern[512] = {0};
    uint8_t *buffer = zc_host_alloc(x, 1024);
    ze_command_list_handle_t list = zc_list(x, x->compute_ordinal);
    zc_assert_result(zeCommandListAppendMemoryFill(list, buffer, pattern, 3, 1024, NULL, 0, NULL),
                     ZE_RESULT_ERROR_INVALID_SIZE);
    if (max * 2 <= sizeof pattern)
        zc_assert_result(zeCommandListAppendMemoryFill(list, buffer, pattern, max * 2, 1024, NULL, 0, NULL),
                         ZE_RESULT_ERROR_INVALID_SIZE);
    zc_assert_success(zeCommandListDestroy(list));
    zc_free(x, buffer);
}

static void cmdlist_fill_pattern_copied_at_append(void **state) {
    zc_exec *x = *state;
    ze_command_queue_handle_t queue = zc_queue(x, x->compute_ordinal, 0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    uint8_t *buffer = zc_host_alloc(x, 32);
    uint8_t value = 0x5a;
    ze_command_list_handle_t list = zc_list(x, x->compute_ordinal);
    zc_assert_success(zeCommandListAppendMemoryFill(list, buffer, &value, 1, 32, NULL, 0, NULL));
    value = 0x11;
    zc_run(queue, list);
    assert_int_equal(buffer[31], 0x5a);
    zc_assert_success(zeCommandListDestroy(list));
    zc_free(x, buffer);
    zc_assert_success(zeCommandQueueDestroy(queue));
}

static void cmdlist_prefetch_and_advise_accepted(void **state) {
    zc_exec *x = *state;
    ze_command_queue_handle_t queue = zc_queue(x, x->compute_ordinal, 0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    void *buffer = zc_host_alloc(x, 4096);
    ze_command_list_handle_t list = zc_list(x, x->compute_ordinal);
    zc_assert_success(zeCommandListAppendMemoryPrefetch(list, buffer, 4096));
    zc_assert_success(zeCommandListAppendMemAdvise(list, x->device, buffer, 4096, ZE_MEMORY_ADVICE_SET_READ_MOSTLY));
    zc_assert_result(zeCommandListAppendMemAdvise(list, x->device, buffer, 4096, (ze_memory_advice_t)0x100),
                     ZE_RESULT_ERROR_INVALID_ENUMERATION);
    zc_run(queue, list);
    zc_assert_success(zeCommandListDestroy(list));
    zc_free(x, buffer);
    zc_assert_success(zeCommandQueueDestroy(queue));
}

static void cmdlist_bad_inputs(void **state) {
    zc_exec *x = *state;
    ze_command_list_handle_t list = zc_list(x, x->compute_ordinal);
    uint8_t byte = 0;
    ze_event_handle_t null_event = NULL;
    zc_assert_result(zeCommandListClose(NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zeCommandListReset(NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zeCommandListAppendMemoryFill(list, NULL, &byte, 1, 1, NULL, 0, NULL),
                     ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zeCommandListAppendMemoryFill(list, &byte, NULL, 1, 1, NULL, 0, NULL),
                     ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zeCommandListAppendBarrier(list, NULL, 1, NULL), ZE_RESULT_ERROR_INVALID_SIZE);
    zc_assert_result(zeCommandListAppendWaitOnEvents(list, 1, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zeCommandListCreate(x->context, x->device, NULL, &list), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    if (zc_driver_is_fake()) {
        zc_assert_result(zeCommandListAppendWaitOnEvents(list, 1, &null_event), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
        ze_event_handle_t bogus = (ze_event_handle_t)x;
        zc_assert_result(zeCommandListAppendBarrier(list, bogus, 0, NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    }
    zc_assert_success(zeCommandListDestroy(list));
    if (zc_driver_is_fake())
        zc_assert_result(zeCommandListClose(list), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
}

/* Refused in the strict profile; the default one takes it, as Intel's driver does (docs/tolerances.md; both profiles
 * are test_tolerances.c's). */
static void cmdlist_event_of_other_context_strict_refused(void **state) {
    zc_skip_unless_fake();
    const char *strict = getenv("ZEFAKE_STRICT");
    zc_exec *x = *state;
    ze_context_handle_t other = NULL;
    ze_context_desc_t desc = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0};
    zc_assert_success(zeContextCreate(zc_sys()->driver, &desc, &other));
    ze_event_pool_desc_t pdesc = {ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, NULL, ZE_EVENT_POOL_FLAG_HOST_VISIBLE, 1};
    ze_event_pool_handle_t pool = NULL;
    zc_assert_success(zeEventPoolCreate(other, &pdesc, 0, NULL, &pool));
    ze_event_handle_t event = zc_event(pool, 0);
    ze_command_list_handle_t list = zc_list(x, x->compute_ordinal);
    zc_assert_result(zeCommandListAppendBarrier(list, event, 0, NULL),
                     strict != NULL && strcmp(strict, "1") == 0 ? ZE_RESULT_ERROR_INVALID_ARGUMENT : ZE_RESULT_SUCCESS);
    zc_assert_success(zeCommandListDestroy(list));
    zc_assert_success(zeEventDestroy(event));
    zc_assert_success(zeEventPoolDestroy(pool));
    zc_assert_success(zeContextDestroy(other));
}

int main(int argc, char **argv) {
#define ZC_FIXTURE exec
    static const struct CMUnitTest tests[] = {
        ZC_T(cmdlist_create_every_group),
        ZC_T(cmdlist_bad_ordinal_invalid_argument),
        ZC_T(cmdlist_bad_flags_invalid_enumeration),
        ZC_T(cmdlist_append_after_close_fails_until_reset),
        ZC_T(cmdlist_executes_again_each_submission),
        ZC_T(cmdlist_reset_discards_commands),
        ZC_T(cmdlist_reset_after_growth_runs_only_new_commands),
        ZC_T(cmdlist_fill_every_pattern_size),
        ZC_T(cmdlist_fill_bad_pattern_size_invalid_size),
        ZC_T(cmdlist_fill_pattern_copied_at_append),
        ZC_T(cmdlist_prefetch_and_advise_accepted),
        ZC_T(cmdlist_bad_inputs),
        ZC_T(cmdlist_event_of_other_context_strict_refused),
    };
    static const zc_suite suite = {ZC_EXECUTABLE, tests, ZC_COUNT(tests), zc_setup_system, zc_teardown_system, NULL, 0};
    return zc_main(argc, argv, &suite);
}
