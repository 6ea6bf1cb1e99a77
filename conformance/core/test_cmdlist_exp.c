/* Conformance: command lists of the later headers: in-order lists (1.7), clones and regular lists appended to an
 * immediate list (1.9), mutable command lists (1.9, kernel switches 1.10). Each kernel here is a fill of the
 * conformance kernels (kernels/fill.cl, kernels/copy.cl); results are read back with copies to host memory. Built only
 * with headers of 1.7 or later (conformance/CMakeLists.txt). */
#include "zc_exec.h"
#include "zc_kernel_files.h"

#define ZC_N 256

/* A test's kernels and buffers: fill (dst, value) and copy (dst, src) over ZC_N integers. */
typedef struct zc_kernels {
    ze_module_handle_t fill_module, copy_module;
    ze_kernel_handle_t fill, copy;
    int32_t *device, *host, *source;
} zc_kernels;

static zc_kernels zc_kernels_make(zc_exec *x) {
    zc_kernels k;
    k.fill_module = zc_module_create(x->context, x->device, "fill");
    k.copy_module = zc_module_create(x->context, x->device, "copy");
    k.fill = zc_kernel_create(k.fill_module, "fill");
    k.copy = zc_kernel_create(k.copy_module, "copy");
    zc_assert_success(zeKernelSetGroupSize(k.fill, 64, 1, 1));
    zc_assert_success(zeKernelSetGroupSize(k.copy, 64, 1, 1));
    k.device = zc_device_alloc(x, ZC_N * sizeof(int32_t));
    k.host = zc_host_alloc(x, ZC_N * sizeof(int32_t));
    k.source = zc_host_alloc(x, ZC_N * sizeof(int32_t));
    memset(k.host, 0, ZC_N * sizeof(int32_t));
    return k;
}

static void zc_kernels_free(zc_exec *x, zc_kernels *k) {
    zc_free(x, k->device);
    zc_free(x, k->host);
    zc_free(x, k->source);
    zc_assert_success(zeKernelDestroy(k->fill));
    zc_assert_success(zeKernelDestroy(k->copy));
    zc_assert_success(zeModuleDestroy(k->fill_module));
    zc_assert_success(zeModuleDestroy(k->copy_module));
}

static const ze_group_count_t zc_groups = {ZC_N / 64, 1, 1};

/* fill(k->device, value), then a copy of k->device into k->host, without events. */
static void zc_append_fill_and_read(ze_command_list_handle_t list, zc_kernels *k, int32_t value) {
    zc_assert_success(zeKernelSetArgumentValue(k->fill, 0, sizeof k->device, &k->device));
    zc_assert_success(zeKernelSetArgumentValue(k->fill, 1, sizeof value, &value));
    zc_assert_success(zeCommandListAppendLaunchKernel(list, k->fill, &zc_groups, NULL, 0, NULL));
    zc_assert_success(zeCommandListAppendMemoryCopy(list, k->host, k->device, ZC_N * sizeof(int32_t), NULL, 0, NULL));
}

static void zc_expect_all(const int32_t *host, int32_t value, const char *what) {
    for (int i = 0; i < ZC_N; i++)
        if (host[i] != value)
            zc_fail("%s: element %d is %d, expected %d", what, i, host[i], value);
}

#if ZC_L0_AT_LEAST(7)
/* ------------------------------------------------------------------------------------------------------------------
 * In-order lists (1.7) */

/* An in-order immediate list runs a kernel and then a copy of what it wrote, without an event between them. */
static void inorder_immediate_kernel_then_copy(void **state) {
    zc_exec *x = *state;
    zc_api_require(zeCommandListHostSynchronize);
    zc_kernels k = zc_kernels_make(x);
    ze_command_queue_desc_t desc = {ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC,
                                    NULL,
                                    x->compute_ordinal,
                                    0,
                                    ZE_COMMAND_QUEUE_FLAG_IN_ORDER,
                                    ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS,
                                    ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
    ze_command_list_handle_t list = NULL;
    zc_assert_success(zeCommandListCreateImmediate(x->context, x->device, &desc, &list));
    for (int32_t round = 1; round <= 16; round++) {
        zc_append_fill_and_read(list, &k, round);
        zc_assert_success(ZC_API(zeCommandListHostSynchronize)(list, UINT64_MAX));
        zc_expect_all(k.host, round, "the copy after the kernel");
    }
    zc_assert_success(zeCommandListDestroy(list));
    zc_kernels_free(x, &k);
}

/* A regular in-order list: the same, executed by a queue. */
static void inorder_regular_kernel_then_copy(void **state) {
    zc_exec *x = *state;
    zc_kernels k = zc_kernels_make(x);
    ze_command_list_desc_t desc = {ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC, NULL, x->compute_ordinal,
                                   ZE_COMMAND_LIST_FLAG_IN_ORDER};
    ze_command_list_handle_t list = NULL;
    zc_assert_success(zeCommandListCreate(x->context, x->device, &desc, &list));
    zc_append_fill_and_read(list, &k, 42);
    ze_command_queue_handle_t queue = zc_queue(x, x->compute_ordinal, 0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    zc_run(queue, list);
    zc_expect_all(k.host, 42, "the copy after the kernel");
    zc_assert_success(zeCommandListDestroy(list));
    zc_assert_success(zeCommandQueueDestroy(queue));
    zc_kernels_free(x, &k);
}
#endif

#if ZC_L0_AT_LEAST(9)
/* ------------------------------------------------------------------------------------------------------------------
 * Clones (1.9) */

static ze_command_list_handle_t zc_list_flags(zc_exec *x, ze_command_list_flags_t flags, const void *next) {
    ze_command_list_desc_t desc = {ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC, next, x->compute_ordinal, flags};
    ze_command_list_handle_t list = NULL;
    zc_assert_success(zeCommandListCreate(x->context, x->device, &desc, &list));
    return list;
}

/* The clone runs the source's commands (with the arguments captured at the source's appends). */
static void clone_runs_the_source_commands(void **state) {
    zc_exec *x = *state;
    zc_api_require(zeCommandListCreateCloneExp);
    zc_kernels k = zc_kernels_make(x);
    ze_command_list_handle_t source = zc_list_flags(x, ZE_COMMAND_LIST_FLAG_EXP_CLONEABLE, NULL);
    zc_append_fill_and_read(source, &k, 9);
    ze_command_list_handle_t clone = NULL;
    zc_assert_result(ZC_API(zeCommandListCreateCloneExp)(source, &clone), ZE_RESULT_ERROR_INVALID_ARGUMENT); /* open */
    zc_assert_success(zeCommandListClose(source));
    zc_assert_success(ZC_API(zeCommandListCreateCloneExp)(source, &clone));
    ze_command_queue_handle_t queue = zc_queue(x, x->compute_ordinal, 0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    zc_assert_success(zeCommandQueueExecuteCommandLists(queue, 1, &clone, NULL));
    zc_assert_success(zeCommandQueueSynchronize(queue, UINT64_MAX));
    zc_expect_all(k.host, 9, "the clone's copy");
    /* the source runs as before */
    memset(k.host, 0, ZC_N * sizeof(int32_t));
    zc_assert_success(zeCommandQueueExecuteCommandLists(queue, 1, &source, NULL));
    zc_assert_success(zeCommandQueueSynchronize(queue, UINT64_MAX));
    zc_expect_all(k.host, 9, "the source's copy");
    zc_assert_success(zeCommandListDestroy(clone));
    zc_assert_success(zeCommandListDestroy(source));
    zc_assert_success(zeCommandQueueDestroy(queue));
    zc_kernels_free(x, &k);
}

static void clone_bad_inputs(void **state) {
    zc_exec *x = *state;
    zc_api_require(zeCommandListCreateCloneExp);
    ze_command_list_handle_t plain = zc_list(x, x->compute_ordinal), clone = NULL;
    zc_assert_success(zeCommandListClose(plain));
    zc_assert_result(ZC_API(zeCommandListCreateCloneExp)(plain, &clone), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    zc_assert_result(ZC_API(zeCommandListCreateCloneExp)(NULL, &clone), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(ZC_API(zeCommandListCreateCloneExp)(plain, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_success(zeCommandListDestroy(plain));
    if (zc_driver_is_fake())
        zc_assert_result(ZC_API(zeCommandListCreateCloneExp)(plain, &clone), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Regular lists appended to an immediate list (1.9) */

/* The appended list starts after the wait events and the signal event comes after it. */
static void immediate_append_waits_and_signals(void **state) {
    zc_exec *x = *state;
    zc_api_require(zeCommandListImmediateAppendCommandListsExp);
    zc_kernels k = zc_kernels_make(x);
    ze_command_list_handle_t regular = zc_list(x, x->compute_ordinal);
    zc_append_fill_and_read(regular, &k, 5);
    zc_assert_success(zeCommandListClose(regular));
    ze_command_list_handle_t immediate = zc_immediate(x, x->compute_ordinal, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_event_pool_handle_t pool = zc_event_pool(x, 2, 0);
    ze_event_handle_t gate = zc_event(pool, 0), done = zc_event(pool, 1);
    zc_assert_success(ZC_API(zeCommandListImmediateAppendCommandListsExp)(immediate, 1, &regular, done, 1, &gate));
    zc_assert_result(zeEventHostSynchronize(done, 2000000), ZE_RESULT_NOT_READY);
    zc_expect_all(k.host, 0, "the host memory before the gate");
    zc_assert_success(zeEventHostSignal(gate));
    zc_assert_success(zeEventHostSynchronize(done, UINT64_MAX));
    zc_expect_all(k.host, 5, "the appended list's copy");
    zc_assert_success(zeCommandListDestroy(immediate));
    zc_assert_success(zeCommandListDestroy(regular));
    zc_assert_success(zeEventDestroy(gate));
    zc_assert_success(zeEventDestroy(done));
    zc_assert_success(zeEventPoolDestroy(pool));
    zc_kernels_free(x, &k);
}

static void immediate_append_bad_inputs(void **state) {
    zc_exec *x = *state;
    zc_api_require(zeCommandListImmediateAppendCommandListsExp);
    ze_command_list_handle_t open = zc_list(x, x->compute_ordinal), closed = zc_list(x, x->compute_ordinal);
    zc_assert_success(zeCommandListClose(closed));
    ze_command_list_handle_t immediate = zc_immediate(x, x->compute_ordinal, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
    zc_assert_result(ZC_API(zeCommandListImmediateAppendCommandListsExp)(closed, 1, &closed, NULL, 0, NULL),
                     ZE_RESULT_ERROR_INVALID_ARGUMENT); /* not an immediate list */
    zc_assert_result(ZC_API(zeCommandListImmediateAppendCommandListsExp)(immediate, 1, &open, NULL, 0, NULL),
                     ZE_RESULT_ERROR_INVALID_ARGUMENT); /* not closed */
    zc_assert_result(ZC_API(zeCommandListImmediateAppendCommandListsExp)(immediate, 1, &immediate, NULL, 0, NULL),
                     ZE_RESULT_ERROR_INVALID_ARGUMENT); /* an immediate list appended */
    zc_assert_result(ZC_API(zeCommandListImmediateAppendCommandListsExp)(NULL, 1, &closed, NULL, 0, NULL),
                     ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(ZC_API(zeCommandListImmediateAppendCommandListsExp)(immediate, 1, NULL, NULL, 0, NULL),
                     ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_success(ZC_API(zeCommandListImmediateAppendCommandListsExp)(immediate, 1, &closed, NULL, 0, NULL));
    zc_assert_success(zeCommandListDestroy(immediate));
    zc_assert_success(zeCommandListDestroy(open));
    zc_assert_success(zeCommandListDestroy(closed));
}

/* ------------------------------------------------------------------------------------------------------------------
 * Mutable command lists (1.9, kernel switches 1.10) */

static ze_command_list_handle_t zc_mutable_list(zc_exec *x) {
    ze_mutable_command_list_exp_desc_t mutable_desc = {ZE_STRUCTURE_TYPE_MUTABLE_COMMAND_LIST_EXP_DESC, NULL, 0};
    return zc_list_flags(x, 0, &mutable_desc);
}

static uint64_t zc_next_id(ze_command_list_handle_t list, ze_mutable_command_exp_flags_t flags) {
    ze_mutable_command_id_exp_desc_t desc = {ZE_STRUCTURE_TYPE_MUTABLE_COMMAND_ID_EXP_DESC, NULL, flags};
    uint64_t id = 0;
    zc_assert_success(ZC_API(zeCommandListGetNextCommandIdExp)(list, &desc, &id));
    return id;
}

static void zc_execute(ze_command_queue_handle_t queue, ze_command_list_handle_t list) {
    zc_assert_success(zeCommandQueueExecuteCommandLists(queue, 1, &list, NULL));
    zc_assert_success(zeCommandQueueSynchronize(queue, UINT64_MAX));
}

/* Skips unless the device lets mutable commands change `flags`. */
static void zc_require_mutable(zc_exec *x, ze_mutable_command_exp_flags_t flags) {
    zc_api_require(zeCommandListGetNextCommandIdExp);
    ze_mutable_command_list_exp_properties_t mutable_props = {
        .stype = ZE_STRUCTURE_TYPE_MUTABLE_COMMAND_LIST_EXP_PROPERTIES};
    ze_device_properties_t props = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES, .pNext = &mutable_props};
    zc_assert_success(zeDeviceGetProperties(x->device, &props));
    if ((mutable_props.mutableCommandFlags & flags) == flags)
        return;
    if (zc_driver_is_fake())
        zc_fail("the fake's mutableCommandFlags 0x%x lack 0x%x", mutable_props.mutableCommandFlags, flags);
    skip();
}

/* A launch's argument and group count change between executions; the copy after it sees the new values. */
static void mutable_arguments_and_group_count(void **state) {
    zc_exec *x = *state;
    zc_require_mutable(x, ZE_MUTABLE_COMMAND_EXP_FLAG_KERNEL_ARGUMENTS | ZE_MUTABLE_COMMAND_EXP_FLAG_GROUP_COUNT);
    zc_kernels k = zc_kernels_make(x);
    ze_command_list_handle_t list = zc_mutable_list(x);
    uint64_t id = zc_next_id(list, 0);
    zc_append_fill_and_read(list, &k, 1);
    zc_assert_success(zeCommandListClose(list));
    ze_command_queue_handle_t queue = zc_queue(x, x->compute_ordinal, 0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    zc_execute(queue, list);
    zc_expect_all(k.host, 1, "before the change");
    int32_t value = 7;
    ze_group_count_t half = {ZC_N / 128, 1, 1};
    ze_mutable_group_count_exp_desc_t count = {ZE_STRUCTURE_TYPE_MUTABLE_GROUP_COUNT_EXP_DESC, NULL, id, &half};
    ze_mutable_kernel_argument_exp_desc_t arg = {
        ZE_STRUCTURE_TYPE_MUTABLE_KERNEL_ARGUMENT_EXP_DESC, &count, id, 1, sizeof value, &value};
    ze_mutable_commands_exp_desc_t desc = {ZE_STRUCTURE_TYPE_MUTABLE_COMMANDS_EXP_DESC, &arg, 0};
    zc_assert_success(ZC_API(zeCommandListUpdateMutableCommandsExp)(list, &desc));
    zc_assert_success(zeCommandListClose(list));
    zc_execute(queue, list);
    for (int i = 0; i < ZC_N; i++)
        if (k.host[i] != (i < ZC_N / 2 ? 7 : 1))
            zc_fail("element %d is %d after the change of the value and the group count", i, k.host[i]);
    zc_assert_success(zeCommandListDestroy(list));
    zc_assert_success(zeCommandQueueDestroy(queue));
    zc_kernels_free(x, &k);
}

/* The signal event of a named command changes, and its wait events (their number is the command's). */
static void mutable_events(void **state) {
    zc_exec *x = *state;
    zc_require_mutable(x, ZE_MUTABLE_COMMAND_EXP_FLAG_SIGNAL_EVENT | ZE_MUTABLE_COMMAND_EXP_FLAG_WAIT_EVENTS);
    ze_event_pool_handle_t pool = zc_event_pool(x, 3, 0);
    ze_event_handle_t first = zc_event(pool, 0), second = zc_event(pool, 1), gate = zc_event(pool, 2);
    ze_command_list_handle_t list = zc_mutable_list(x);
    uint64_t id = zc_next_id(list, ZE_MUTABLE_COMMAND_EXP_FLAG_SIGNAL_EVENT | ZE_MUTABLE_COMMAND_EXP_FLAG_WAIT_EVENTS);
    zc_assert_success(zeCommandListAppendBarrier(list, first, 1, &gate));
    zc_assert_success(zeCommandListClose(list));
    zc_assert_success(ZC_API(zeCommandListUpdateMutableCommandSignalEventExp)(list, id, second));
    zc_assert_result(
        ZC_API(zeCommandListUpdateMutableCommandWaitEventsExp)(list, id, 2, (ze_event_handle_t[]){gate, gate}),
        ZE_RESULT_ERROR_INVALID_SIZE);
    ze_event_handle_t none = NULL;
    zc_assert_success(ZC_API(zeCommandListUpdateMutableCommandWaitEventsExp)(list, id, 1, &none)); /* no wait now */
    zc_assert_success(zeCommandListClose(list));
    ze_command_queue_handle_t queue = zc_queue(x, x->compute_ordinal, 0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    zc_execute(queue, list); /* would not end if the barrier still waited for the gate */
    zc_assert_success(zeEventQueryStatus(second));
    zc_assert_result(zeEventQueryStatus(first), ZE_RESULT_NOT_READY);
    zc_assert_success(zeCommandListDestroy(list));
    zc_assert_success(zeCommandQueueDestroy(queue));
    zc_assert_success(zeEventDestroy(first));
    zc_assert_success(zeEventDestroy(second));
    zc_assert_success(zeEventDestroy(gate));
    zc_assert_success(zeEventPoolDestroy(pool));
}

static void mutable_bad_inputs(void **state) {
    zc_exec *x = *state;
    zc_require_mutable(x, ZE_MUTABLE_COMMAND_EXP_FLAG_KERNEL_ARGUMENTS);
    zc_kernels k = zc_kernels_make(x);
    ze_command_list_handle_t plain = zc_list(x, x->compute_ordinal), list = zc_mutable_list(x);
    ze_mutable_command_id_exp_desc_t id_desc = {ZE_STRUCTURE_TYPE_MUTABLE_COMMAND_ID_EXP_DESC, NULL, 0};
    uint64_t id = 0;
    zc_assert_result(ZC_API(zeCommandListGetNextCommandIdExp)(plain, &id_desc, &id), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    zc_assert_result(ZC_API(zeCommandListGetNextCommandIdExp)(list, NULL, &id), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(ZC_API(zeCommandListGetNextCommandIdExp)(list, &id_desc, NULL),
                     ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    id_desc.flags = 0x100;
    zc_assert_result(ZC_API(zeCommandListGetNextCommandIdExp)(list, &id_desc, &id),
                     ZE_RESULT_ERROR_INVALID_ENUMERATION);
    id = zc_next_id(list, ZE_MUTABLE_COMMAND_EXP_FLAG_GROUP_SIZE); /* not the arguments */
    zc_append_fill_and_read(list, &k, 3);
    zc_assert_success(zeCommandListClose(list));
    id_desc.flags = 0;
    uint64_t after_close = 0;
    zc_assert_result(ZC_API(zeCommandListGetNextCommandIdExp)(list, &id_desc, &after_close),
                     ZE_RESULT_ERROR_INVALID_ARGUMENT);
    int32_t value = 4;
    ze_mutable_kernel_argument_exp_desc_t arg = {
        ZE_STRUCTURE_TYPE_MUTABLE_KERNEL_ARGUMENT_EXP_DESC, NULL, id, 1, sizeof value, &value};
    ze_mutable_commands_exp_desc_t desc = {ZE_STRUCTURE_TYPE_MUTABLE_COMMANDS_EXP_DESC, &arg, 0};
    zc_assert_result(ZC_API(zeCommandListUpdateMutableCommandsExp)(list, &desc), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    arg.commandId = id + 99; /* no such command */
    zc_assert_result(ZC_API(zeCommandListUpdateMutableCommandsExp)(list, &desc), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    zc_assert_result(ZC_API(zeCommandListUpdateMutableCommandsExp)(list, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    ze_mutable_group_size_exp_desc_t size = {ZE_STRUCTURE_TYPE_MUTABLE_GROUP_SIZE_EXP_DESC, NULL, id, 0, 1, 1};
    desc.pNext = &size;
    zc_assert_result(ZC_API(zeCommandListUpdateMutableCommandsExp)(list, &desc),
                     ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION);
    zc_assert_success(zeCommandListDestroy(list));
    zc_assert_success(zeCommandListDestroy(plain));
    zc_kernels_free(x, &k);
}

#if ZC_L0_AT_LEAST(10)
/* The named launch switches from fill to copy, whose arguments the updates that follow set. */
static void mutable_kernel_switch(void **state) {
    zc_exec *x = *state;
    zc_require_mutable(x,
                       ZE_MUTABLE_COMMAND_EXP_FLAG_KERNEL_INSTRUCTION | ZE_MUTABLE_COMMAND_EXP_FLAG_KERNEL_ARGUMENTS);
    zc_api_require(zeCommandListUpdateMutableCommandKernelsExp);
    zc_kernels k = zc_kernels_make(x);
    ze_command_list_handle_t list = zc_mutable_list(x);
    ze_mutable_command_id_exp_desc_t id_desc = {ZE_STRUCTURE_TYPE_MUTABLE_COMMAND_ID_EXP_DESC, NULL,
                                                ZE_MUTABLE_COMMAND_EXP_FLAG_KERNEL_INSTRUCTION |
                                                    ZE_MUTABLE_COMMAND_EXP_FLAG_KERNEL_ARGUMENTS};
    ze_kernel_handle_t both[] = {k.fill, k.copy};
    uint64_t id = 0;
    zc_assert_success(ZC_API(zeCommandListGetNextCommandIdWithKernelsExp)(list, &id_desc, 2, both, &id));
    zc_append_fill_and_read(list, &k, 2);
    zc_assert_success(zeCommandListClose(list));
    ze_command_queue_handle_t queue = zc_queue(x, x->compute_ordinal, 0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    zc_execute(queue, list);
    zc_expect_all(k.host, 2, "the fill");
    for (int i = 0; i < ZC_N; i++)
        k.source[i] = 1000 + i;
    zc_assert_success(ZC_API(zeCommandListUpdateMutableCommandKernelsExp)(list, 1, &id, &k.copy));
    ze_mutable_kernel_argument_exp_desc_t src = {
        ZE_STRUCTURE_TYPE_MUTABLE_KERNEL_ARGUMENT_EXP_DESC, NULL, id, 1, sizeof k.source, &k.source};
    ze_mutable_kernel_argument_exp_desc_t dst = {
        ZE_STRUCTURE_TYPE_MUTABLE_KERNEL_ARGUMENT_EXP_DESC, &src, id, 0, sizeof k.device, &k.device};
    ze_mutable_commands_exp_desc_t desc = {ZE_STRUCTURE_TYPE_MUTABLE_COMMANDS_EXP_DESC, &dst, 0};
    zc_assert_success(ZC_API(zeCommandListUpdateMutableCommandsExp)(list, &desc));
    zc_assert_success(zeCommandListClose(list));
    zc_execute(queue, list);
    for (int i = 0; i < ZC_N; i++)
        if (k.host[i] != 1000 + i)
            zc_fail("element %d is %d after the switch to copy", i, k.host[i]);
    /* a kernel not named for the command is refused */
    ze_kernel_handle_t other = zc_kernel_create(k.fill_module, "fill");
    zc_assert_result(ZC_API(zeCommandListUpdateMutableCommandKernelsExp)(list, 1, &id, &other),
                     ZE_RESULT_ERROR_INVALID_KERNEL_HANDLE);
    zc_assert_success(zeKernelDestroy(other));
    zc_assert_success(zeCommandListDestroy(list));
    zc_assert_success(zeCommandQueueDestroy(queue));
    zc_kernels_free(x, &k);
}
#endif

/* Changes are refused while a queue runs the list. */
static void mutable_refused_while_executing(void **state) {
    zc_exec *x = *state;
    zc_require_mutable(x, ZE_MUTABLE_COMMAND_EXP_FLAG_SIGNAL_EVENT);
    zc_skip_unless_fake(); /* the specification leaves it undefined */
    ze_event_pool_handle_t pool = zc_event_pool(x, 2, 0);
    ze_event_handle_t gate = zc_event(pool, 0), signal = zc_event(pool, 1);
    ze_command_list_handle_t list = zc_mutable_list(x);
    uint64_t id = zc_next_id(list, ZE_MUTABLE_COMMAND_EXP_FLAG_SIGNAL_EVENT);
    zc_assert_success(zeCommandListAppendBarrier(list, signal, 1, &gate));
    zc_assert_success(zeCommandListClose(list));
    ze_command_queue_handle_t queue = zc_queue(x, x->compute_ordinal, 0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    zc_assert_success(zeCommandQueueExecuteCommandLists(queue, 1, &list, NULL));
    zc_assert_result(ZC_API(zeCommandListUpdateMutableCommandSignalEventExp)(list, id, NULL),
                     ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE);
    zc_assert_success(zeEventHostSignal(gate));
    zc_assert_success(zeCommandQueueSynchronize(queue, UINT64_MAX));
    zc_assert_success(ZC_API(zeCommandListUpdateMutableCommandSignalEventExp)(list, id, NULL));
    zc_assert_success(zeCommandListDestroy(list));
    zc_assert_success(zeCommandQueueDestroy(queue));
    zc_assert_success(zeEventDestroy(gate));
    zc_assert_success(zeEventDestroy(signal));
    zc_assert_success(zeEventPoolDestroy(pool));
}
#endif

int main(int argc, char **argv) {
#define ZC_FIXTURE exec
    static const struct CMUnitTest tests[] = {
#if ZC_L0_AT_LEAST(7)
        ZC_T(inorder_immediate_kernel_then_copy),
        ZC_T(inorder_regular_kernel_then_copy),
#endif
#if ZC_L0_AT_LEAST(9)
        ZC_T(clone_runs_the_source_commands),
        ZC_T(clone_bad_inputs),
        ZC_T(immediate_append_waits_and_signals),
        ZC_T(immediate_append_bad_inputs),
        ZC_T(mutable_arguments_and_group_count),
        ZC_T(mutable_events),
        ZC_T(mutable_bad_inputs),
        ZC_T(mutable_refused_while_executing),
#endif
#if ZC_L0_AT_LEAST(10)
        ZC_T(mutable_kernel_switch),
#endif
    };
    static const zc_suite suite = {ZC_EXECUTABLE, tests, ZC_COUNT(tests), zc_setup_system, zc_teardown_system, NULL, 0};
    return zc_main(argc, argv, &suite);
}
