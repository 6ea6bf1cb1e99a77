/* Helpers shared by the execution conformance tests (queues, lists, events, fences, copies): each test executable
 * includes this header once. Everything is created on the first root device of the system fixture. */
#ifndef ZC_EXEC_H
#define ZC_EXEC_H

#include "zc_harness.h"

#include <stdlib.h>
#include <string.h>

#define ZC_NO_ORDINAL UINT32_MAX

typedef struct zc_exec {
    ze_context_handle_t context;
    ze_device_handle_t device;
    uint32_t compute_ordinal; /* a group with COMPUTE */
    uint32_t copy_ordinal;    /* a group with COPY and without COMPUTE, or ZC_NO_ORDINAL */
    uint32_t num_groups;
    ze_command_queue_group_properties_t groups[16];
} zc_exec;

/* Fills the queue groups and the compute and copy ordinals of x->device (zc_exec.c, with the fixture). */
void zc_exec_groups(zc_exec *x);

/* Test fixture (zc_exec.c): *state becomes a zc_exec with a fresh context on the first root device. */
int zc_setup_exec(void **state);
int zc_teardown_exec(void **state);

static inline ze_command_queue_handle_t zc_queue(zc_exec *x, uint32_t ordinal, uint32_t index,
                                                 ze_command_queue_mode_t mode) {
    ze_command_queue_desc_t desc = {ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, NULL, ordinal, index, 0, mode,
                                    ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
    ze_command_queue_handle_t queue = NULL;
    zc_assert_success(zeCommandQueueCreate(x->context, x->device, &desc, &queue));
    return queue;
}

static inline ze_command_list_handle_t zc_list(zc_exec *x, uint32_t ordinal) {
    ze_command_list_desc_t desc = {ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC, NULL, ordinal, 0};
    ze_command_list_handle_t list = NULL;
    zc_assert_success(zeCommandListCreate(x->context, x->device, &desc, &list));
    return list;
}

static inline ze_command_list_handle_t zc_immediate(zc_exec *x, uint32_t ordinal, ze_command_queue_mode_t mode) {
    ze_command_queue_desc_t desc = {ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, NULL, ordinal, 0, 0, mode,
                                    ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
    ze_command_list_handle_t list = NULL;
    zc_assert_success(zeCommandListCreateImmediate(x->context, x->device, &desc, &list));
    return list;
}

static inline ze_event_pool_handle_t zc_event_pool(zc_exec *x, uint32_t count, ze_event_pool_flags_t flags) {
    ze_event_pool_desc_t desc = {ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, NULL, flags | ZE_EVENT_POOL_FLAG_HOST_VISIBLE,
                                 count};
    ze_event_pool_handle_t pool = NULL;
    zc_assert_success(zeEventPoolCreate(x->context, &desc, 1, &x->device, &pool));
    return pool;
}

static inline ze_event_handle_t zc_event(ze_event_pool_handle_t pool, uint32_t index) {
    ze_event_desc_t desc = {ZE_STRUCTURE_TYPE_EVENT_DESC, NULL, index, ZE_EVENT_SCOPE_FLAG_HOST,
                            ZE_EVENT_SCOPE_FLAG_HOST};
    ze_event_handle_t event = NULL;
    zc_assert_success(zeEventCreate(pool, &desc, &event));
    return event;
}

/* Closes a list, runs it on the queue and waits for the queue. */
static inline void zc_run(ze_command_queue_handle_t queue, ze_command_list_handle_t list) {
    zc_assert_success(zeCommandListClose(list));
    zc_assert_success(zeCommandQueueExecuteCommandLists(queue, 1, &list, NULL));
    zc_assert_success(zeCommandQueueSynchronize(queue, UINT64_MAX));
}

/* A closed list whose only command waits for `gate`, an event only the host signals: once submitted it keeps its
 * queue busy until the test signals the gate. */
typedef struct zc_gated {
    ze_event_pool_handle_t pool;
    ze_event_handle_t gate;
    ze_command_list_handle_t list;
} zc_gated;

static inline zc_gated zc_gated_list(zc_exec *x) {
    zc_gated g;
    g.pool = zc_event_pool(x, 1, 0);
    g.gate = zc_event(g.pool, 0);
    g.list = zc_list(x, x->compute_ordinal);
    zc_assert_success(zeCommandListAppendWaitOnEvents(g.list, 1, &g.gate));
    zc_assert_success(zeCommandListClose(g.list));
    return g;
}

static inline void zc_gated_destroy(zc_gated *g) {
    zc_assert_success(zeCommandListDestroy(g->list));
    zc_assert_success(zeEventDestroy(g->gate));
    zc_assert_success(zeEventPoolDestroy(g->pool));
}

/* For child modes: the system and execution fixtures in a fresh process (NULL when they cannot be set up), and their
 * teardown, whose result is the child's exit status. */
static inline zc_exec *zc_child_exec_begin(void) {
    void *state = NULL;
    if (zc_setup_system(&state) != 0 || zc_setup_exec(&state) != 0)
        return NULL;
    return state;
}

static inline int zc_child_exec_end(zc_exec *x) {
    void *state = x;
    return zc_teardown_exec(&state) == 0 && zc_teardown_system(NULL) == 0 ? 0 : 3;
}

/* A host allocation of the context (so copies work on every driver). */
static inline void *zc_host_alloc(zc_exec *x, size_t size) {
    ze_host_mem_alloc_desc_t desc = {ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, NULL, 0};
    void *ptr = NULL;
    zc_assert_success(zeMemAllocHost(x->context, &desc, size, 64, &ptr));
    return ptr;
}

static inline void *zc_device_alloc(zc_exec *x, size_t size) {
    ze_device_mem_alloc_desc_t desc = {ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, NULL, 0, 0};
    void *ptr = NULL;
    zc_assert_success(zeMemAllocDevice(x->context, &desc, size, 64, x->device, &ptr));
    return ptr;
}

static inline void zc_free(zc_exec *x, void *ptr) {
    zc_assert_success(zeMemFree(x->context, ptr));
}

static inline void zc_fill_pattern(uint8_t *buffer, size_t size, uint32_t seed) {
    for (size_t i = 0; i < size; i++)
        buffer[i] = (uint8_t)(i * 131u + seed);
}

#endif
