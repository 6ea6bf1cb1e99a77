/* Conformance: several threads appending to their own command lists and submitting to shared queues, while others
 * use immediate lists and events; every thread checks its own data. */
#include "zc_exec.h"

#include <pthread.h>
#include <stdio.h>

#define ZC_THREADS 8
#define ZC_ROUNDS  50
#define ZC_BYTES   4096

typedef struct zc_worker {
    zc_exec *x;
    ze_command_queue_handle_t queue;
    uint32_t id;
    uint32_t failures;
    char first_failure[160];
} zc_worker;

static void zc_worker_fail(zc_worker *w, const char *what, uint32_t round) {
    if (w->failures++ == 0)
        snprintf(w->first_failure, sizeof w->first_failure, "thread %u round %u: %s", w->id, round, what);
}

/* Fill with a per-round value, copy to a second buffer, check it on the host. */
static void zc_worker_round(zc_worker *w, uint8_t *a, uint8_t *b, ze_event_handle_t done, uint32_t round) {
    uint8_t value = (uint8_t)(w->id * 31 + round);
    ze_command_list_handle_t list = NULL;
    ze_command_list_desc_t desc = {ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC, NULL, w->x->compute_ordinal, 0};
    if (zeCommandListCreate(w->x->context, w->x->device, &desc, &list) != ZE_RESULT_SUCCESS) {
        zc_worker_fail(w, "zeCommandListCreate failed", round);
        return;
    }
    bool ok = zeCommandListAppendMemoryFill(list, a, &value, 1, ZC_BYTES, NULL, 0, NULL) == ZE_RESULT_SUCCESS &&
              zeCommandListAppendBarrier(list, NULL, 0, NULL) == ZE_RESULT_SUCCESS &&
              zeCommandListAppendMemoryCopy(list, b, a, ZC_BYTES, done, 0, NULL) == ZE_RESULT_SUCCESS &&
              zeCommandListClose(list) == ZE_RESULT_SUCCESS &&
              zeCommandQueueExecuteCommandLists(w->queue, 1, &list, NULL) == ZE_RESULT_SUCCESS &&
              zeEventHostSynchronize(done, UINT64_MAX) == ZE_RESULT_SUCCESS &&
              zeEventHostReset(done) == ZE_RESULT_SUCCESS;
    if (!ok)
        zc_worker_fail(w, "a call failed", round);
    else if (b[0] != value || b[ZC_BYTES - 1] != value)
        zc_worker_fail(w, "wrong data", round);
    if (zeCommandListDestroy(list) != ZE_RESULT_SUCCESS)
        zc_worker_fail(w, "zeCommandListDestroy failed", round);
}

static void *zc_worker_main(void *arg) {
    zc_worker *w = arg;
    ze_host_mem_alloc_desc_t hdesc = {ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, NULL, 0};
    void *a = NULL, *b = NULL;
    ze_event_pool_desc_t pdesc = {ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, NULL, ZE_EVENT_POOL_FLAG_HOST_VISIBLE, 1};
    ze_event_pool_handle_t pool = NULL;
    ze_event_desc_t edesc = {ZE_STRUCTURE_TYPE_EVENT_DESC, NULL, 0, 0, 0};
    ze_event_handle_t done = NULL;
    if (zeMemAllocHost(w->x->context, &hdesc, ZC_BYTES, 64, &a) != ZE_RESULT_SUCCESS ||
        zeMemAllocHost(w->x->context, &hdesc, ZC_BYTES, 64, &b) != ZE_RESULT_SUCCESS ||
        zeEventPoolCreate(w->x->context, &pdesc, 0, NULL, &pool) != ZE_RESULT_SUCCESS ||
        zeEventCreate(pool, &edesc, &done) != ZE_RESULT_SUCCESS) {
        zc_worker_fail(w, "set-up failed", 0);
        return NULL;
    }
    for (uint32_t round = 0; round < ZC_ROUNDS; round++)
        zc_worker_round(w, a, b, done, round);
    if (zeEventDestroy(done) != ZE_RESULT_SUCCESS || zeEventPoolDestroy(pool) != ZE_RESULT_SUCCESS ||
        zeMemFree(w->x->context, a) != ZE_RESULT_SUCCESS || zeMemFree(w->x->context, b) != ZE_RESULT_SUCCESS)
        zc_worker_fail(w, "clean-up failed", ZC_ROUNDS);
    return NULL;
}

static void multithread_lists_on_shared_queues(void **state) {
    zc_exec *x = *state;
    uint32_t queues = x->groups[x->compute_ordinal].numQueues > 1 ? 2 : 1;
    ze_command_queue_handle_t shared[2];
    for (uint32_t q = 0; q < queues; q++)
        shared[q] = zc_queue(x, x->compute_ordinal, q, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    pthread_t threads[ZC_THREADS];
    zc_worker workers[ZC_THREADS];
    for (uint32_t i = 0; i < ZC_THREADS; i++) {
        workers[i] = (zc_worker){.x = x, .queue = shared[i % queues], .id = i};
        assert_int_equal(pthread_create(&threads[i], NULL, zc_worker_main, &workers[i]), 0);
    }
    for (uint32_t i = 0; i < ZC_THREADS; i++)
        pthread_join(threads[i], NULL);
    for (uint32_t i = 0; i < ZC_THREADS; i++) {
        if (workers[i].failures > 0)
            zc_fail("%u failure(s); first: %s", workers[i].failures, workers[i].first_failure);
    }
    for (uint32_t q = 0; q < queues; q++) {
        zc_assert_success(zeCommandQueueSynchronize(shared[q], UINT64_MAX));
        zc_assert_success(zeCommandQueueDestroy(shared[q]));
    }
}

int main(int argc, char **argv) {
    static const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(multithread_lists_on_shared_queues, zc_setup_exec, zc_teardown_exec),
    };
    static const zc_suite suite = {ZC_EXECUTABLE, tests, ZC_COUNT(tests), zc_setup_system, zc_teardown_system, NULL, 0};
    return zc_main(argc, argv, &suite);
}
