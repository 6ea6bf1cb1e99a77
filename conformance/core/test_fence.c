/* Conformance: fences (create, host synchronize with timeouts, query, reset, destroy). */
#include "zc_exec.h"

static ze_fence_handle_t zc_fence(ze_command_queue_handle_t queue, ze_fence_flags_t flags) {
    ze_fence_desc_t desc = {ZE_STRUCTURE_TYPE_FENCE_DESC, NULL, flags};
    ze_fence_handle_t fence = NULL;
    zc_assert_success(zeFenceCreate(queue, &desc, &fence));
    return fence;
}

static void fence_created_signaled_or_not(void **state) {
    zc_exec *x = *state;
    ze_command_queue_handle_t queue = zc_queue(x, x->compute_ordinal, 0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_fence_handle_t plain = zc_fence(queue, 0);
    ze_fence_handle_t signaled = zc_fence(queue, ZE_FENCE_FLAG_SIGNALED);
    zc_assert_result(zeFenceQueryStatus(plain), ZE_RESULT_NOT_READY);
    zc_assert_result(zeFenceHostSynchronize(plain, 1000000), ZE_RESULT_NOT_READY);
    zc_assert_success(zeFenceQueryStatus(signaled));
    zc_assert_success(zeFenceReset(signaled));
    zc_assert_result(zeFenceQueryStatus(signaled), ZE_RESULT_NOT_READY);
    zc_assert_success(zeFenceDestroy(plain));
    zc_assert_success(zeFenceDestroy(signaled));
    zc_assert_success(zeCommandQueueDestroy(queue));
}

static void fence_signaled_when_submission_completes(void **state) {
    zc_exec *x = *state;
    ze_command_queue_handle_t queue = zc_queue(x, x->compute_ordinal, 0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_fence_handle_t fence = zc_fence(queue, 0);
    zc_gated g = zc_gated_list(x);
    zc_assert_success(zeCommandQueueExecuteCommandLists(queue, 1, &g.list, fence));
    zc_assert_result(zeFenceHostSynchronize(fence, 0), ZE_RESULT_NOT_READY);
    zc_assert_success(zeEventHostSignal(g.gate));
    zc_assert_success(zeFenceHostSynchronize(fence, UINT64_MAX));
    zc_assert_success(zeFenceQueryStatus(fence));
    /* Reset and reuse. */
    zc_assert_success(zeFenceReset(fence));
    zc_assert_success(zeCommandQueueExecuteCommandLists(queue, 1, &g.list, fence));
    zc_assert_success(zeFenceHostSynchronize(fence, UINT64_MAX));
    zc_gated_destroy(&g);
    zc_assert_success(zeFenceDestroy(fence));
    zc_assert_success(zeCommandQueueDestroy(queue));
}

static void fence_of_other_queue_rejected(void **state) {
    zc_skip_unless_fake();
    zc_exec *x = *state;
    ze_command_queue_handle_t a = zc_queue(x, x->compute_ordinal, 0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_command_queue_handle_t b = zc_queue(x, x->compute_ordinal, 0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_fence_handle_t fence = zc_fence(b, 0);
    ze_command_list_handle_t list = zc_list(x, x->compute_ordinal);
    zc_assert_success(zeCommandListClose(list));
    zc_assert_result(zeCommandQueueExecuteCommandLists(a, 1, &list, fence), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    zc_assert_success(zeCommandListDestroy(list));
    zc_assert_success(zeFenceDestroy(fence));
    zc_assert_success(zeCommandQueueDestroy(a));
    zc_assert_success(zeCommandQueueDestroy(b));
}

static void fence_bad_inputs(void **state) {
    zc_exec *x = *state;
    ze_command_queue_handle_t queue = zc_queue(x, x->compute_ordinal, 0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_fence_handle_t fence = NULL;
    ze_fence_desc_t desc = {ZE_STRUCTURE_TYPE_FENCE_DESC, NULL, 0x2};
    zc_assert_result(zeFenceCreate(queue, &desc, &fence), ZE_RESULT_ERROR_INVALID_ENUMERATION);
    zc_assert_result(zeFenceCreate(queue, NULL, &fence), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zeFenceCreate(NULL, &desc, &fence), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zeFenceHostSynchronize(NULL, 0), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zeFenceQueryStatus(NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zeFenceReset(NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    fence = zc_fence(queue, 0);
    zc_assert_success(zeFenceDestroy(fence));
    if (zc_driver_is_fake())
        zc_assert_result(zeFenceQueryStatus(fence), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_success(zeCommandQueueDestroy(queue));
}

int main(int argc, char **argv) {
#define ZC_FIXTURE exec
    static const struct CMUnitTest tests[] = {
        ZC_T(fence_created_signaled_or_not),
        ZC_T(fence_signaled_when_submission_completes),
        ZC_T(fence_of_other_queue_rejected),
        ZC_T(fence_bad_inputs),
    };
    static const zc_suite suite = {ZC_EXECUTABLE, tests, ZC_COUNT(tests), zc_setup_system, zc_teardown_system, NULL, 0};
    return zc_main(argc, argv, &suite);
}
