/* Command lists: regular lists record commands until closed and run when a queue executes them; immediate lists run
 * each command as it is appended, through an internal queue (synchronously or not, as their queue mode says). */
#include "core/zf_chain.h"
#include "core/zf_core.h"
#include "exec/cmdlist_internal.h"
#include "exec/zf_exec.h"
#include "module/zf_kernel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

zf_cmdlist *zf_cmdlist_new(zf_context *context, zf_device *device, uint32_t ordinal) {
    zf_cmdlist *list = calloc(1, sizeof *list);
    zf_launch_pool *pool = list != NULL ? zf_launch_pool_create() : NULL;
    if (pool == NULL) {
        free(list);
        return NULL;
    }
    list->launch_pool = pool;
    list->context = context;
    list->device = device;
    list->ordinal = ordinal;
    list->group_flags = device->desc->engine_groups[ordinal].flags;
    return list;
}

void zf_cmdlist_discard(zf_cmdlist *list) {
    if (list != NULL) {
        zf_launch_pool_destroy(list->launch_pool);
        zf_mutable_destroy(list->mutable_commands);
    }
    free(list);
}

ze_result_t zf_cmdlist_publish(zf_cmdlist *list, ze_command_list_handle_t *out) {
    if (!zf_object_register(&list->header, ZF_OBJ_ZE_COMMAND_LIST, &list->context->header))
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory to register a command list");
    *out = (ze_command_list_handle_t)list;
    return ZE_RESULT_SUCCESS;
}

/* Every list runs its commands one after the other on its engine (docs/cost-model.md): ZE_COMMAND_LIST_FLAG_IN_ORDER
 * (headers 1.7) asks for what it does anyway, and the reordering RELAXED_ORDERING allows is not taken. The two together
 * are refused by the header's rule in the strict profile; the default one keeps the order, as Intel's driver does. */
static ze_result_t zf_check_list_flags(ze_command_list_flags_t flags) {
#if ZF_L0_AT_LEAST(7)
    const ze_command_list_flags_t both = ZE_COMMAND_LIST_FLAG_IN_ORDER | ZE_COMMAND_LIST_FLAG_RELAXED_ORDERING;
    if ((flags & both) != both)
        return ZE_RESULT_SUCCESS;
    if (zf_strict())
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                       "desc->flags: ZE_COMMAND_LIST_FLAG_IN_ORDER cannot be combined with RELAXED_ORDERING");
    zf_tolerate("ZE_COMMAND_LIST_FLAG_IN_ORDER is not combined with RELAXED_ORDERING", "the commands run in order");
#else
    (void)flags;
#endif
    return ZE_RESULT_SUCCESS;
}

/* An immediate list of a queue created with ZE_COMMAND_QUEUE_FLAG_IN_ORDER (headers 1.7) is an in-order list. */
static ze_command_list_flags_t zf_immediate_list_flags(ze_command_queue_flags_t flags) {
#if ZF_L0_AT_LEAST(7)
    return (flags & ZE_COMMAND_QUEUE_FLAG_IN_ORDER) ? ZE_COMMAND_LIST_FLAG_IN_ORDER : 0;
#else
    (void)flags;
    return 0;
#endif
}

ze_result_t zfi_zeCommandListCreate(ze_context_handle_t hContext, ze_device_handle_t hDevice,
                                    const ze_command_list_desc_t *desc, ze_command_list_handle_t *phCommandList) {
    zf_context *context = zf_context_from(hContext);
    zf_device *device = zf_device_from(hDevice);
    if (!zf_context_has_device(context, device))
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "hDevice is not a device of hContext");
    if (desc->commandQueueGroupOrdinal >= device->desc->num_engine_groups)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "desc->commandQueueGroupOrdinal %u: the device has %u groups",
                       desc->commandQueueGroupOrdinal, device->desc->num_engine_groups);
    ze_result_t result = zf_check_list_flags(desc->flags);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    zf_cmdlist *list = zf_cmdlist_new(context, device, desc->commandQueueGroupOrdinal);
    if (list == NULL)
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory for a command list");
    list->flags = desc->flags;
    result = zf_mutable_attach(list, desc->pNext);
    if (result == ZE_RESULT_SUCCESS)
        result = zf_cmdlist_publish(list, phCommandList);
    if (result != ZE_RESULT_SUCCESS)
        zf_cmdlist_discard(list);
    return result;
}

ze_result_t zfi_zeCommandListCreateImmediate(ze_context_handle_t hContext, ze_device_handle_t hDevice,
                                             const ze_command_queue_desc_t *altdesc,
                                             ze_command_list_handle_t *phCommandList) {
    zf_context *context = zf_context_from(hContext);
    zf_device *device = zf_device_from(hDevice);
    zf_queue *queue = calloc(1, sizeof *queue);
    if (queue == NULL)
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory for an immediate command list");
    ze_result_t result = zf_queue_init(queue, context, device, altdesc);
    zf_cmdlist *list = result == ZE_RESULT_SUCCESS ? zf_cmdlist_new(context, device, altdesc->ordinal) : NULL;
    if (result == ZE_RESULT_SUCCESS && list == NULL)
        result = zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory for an immediate command list");
    if (result == ZE_RESULT_SUCCESS) {
        list->immediate = true;
        list->immediate_queue = queue;
        list->flags = zf_immediate_list_flags(altdesc->flags);
        result = zf_cmdlist_publish(list, phCommandList);
    }
    if (result != ZE_RESULT_SUCCESS) {
        zf_cmdlist_discard(list);
        free(queue);
    }
    return result;
}

/* Drops the recorded commands; the array keeps its capacity for the appends after a reset. */
static void zf_cmdlist_clear(zf_cmdlist *list) {
    for (size_t i = 0; i < list->num_commands; i++) {
        zf_command *command = &list->commands[i];
        if (command->waits != NULL || zf_command_may_own(command))
            zf_command_free(command);
    }
    list->num_commands = 0;
    zf_mutable_clear(list->mutable_commands);
}

/* An immediate list is busy while its own queue has commands not done: the strict profile says so at once; the
 * default one waits for them, as Intel's driver does (docs/tolerances.md), which ends even behind a kernel that never
 * does, since the hang detector stops it. */
static bool zf_cmdlist_immediate_busy(zf_cmdlist *list) {
    if (zf_queue_wait(list->immediate_queue, 0) == ZE_RESULT_SUCCESS)
        return false;
    if (zf_strict())
        return true;
    zf_tolerate("the device must not be referencing the command list", "waited for its commands to complete");
    zf_queue_wait(list->immediate_queue, UINT64_MAX);
    return false;
}

/* A regular list is busy while a queue runs it (inline: one load on every reset). */
static inline bool zf_cmdlist_busy(zf_cmdlist *list) {
    if (atomic_load_explicit(&list->in_flight, memory_order_acquire) > 0)
        return true;
    return list->immediate && zf_cmdlist_immediate_busy(list);
}

ze_result_t zfi_zeCommandListDestroy(ze_command_list_handle_t hCommandList) {
    zf_cmdlist *list = zf_cmdlist_from(hCommandList);
    if (zf_cmdlist_busy(list))
        return zf_fail(ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE, "the command list is still executing");
    zf_object_unregister(&list->header);
    if (list->immediate)
        free(list->immediate_queue);
    zf_cmdlist_clear(list);
    free(list->commands);
    zf_launch_pool_destroy(list->launch_pool); /* every record of it was freed: the list was not busy */
    list->launch_pool = NULL;
    zf_mutable_destroy(list->mutable_commands);
    list->mutable_commands = NULL;
    zf_object_retire(&list->header);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zeCommandListClose(ze_command_list_handle_t hCommandList) {
    zf_cmdlist_from(hCommandList)->closed = true;
    return ZE_RESULT_SUCCESS;
}

/* An immediate list's commands belong to their submissions, not to the list: Intel's driver resets a busy one without
 * waiting for them, and so does the default profile (docs/tolerances.md); its commands run on. */
static bool zf_cmdlist_immediate_reset_refused(zf_cmdlist *list) {
    if (zf_queue_wait(list->immediate_queue, 0) == ZE_RESULT_SUCCESS)
        return false;
    if (zf_strict())
        return true;
    zf_tolerate("the device must not be referencing the command list",
                "reset it without waiting for its commands, which run on");
    return false;
}

ze_result_t zfi_zeCommandListReset(ze_command_list_handle_t hCommandList) {
    zf_cmdlist *list = zf_cmdlist_from(hCommandList);
    bool busy = list->immediate ? zf_cmdlist_immediate_reset_refused(list)
                                : atomic_load_explicit(&list->in_flight, memory_order_acquire) > 0;
    if (busy)
        return zf_fail(ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE, "the command list is still executing");
    zf_cmdlist_clear(list);
    list->closed = false;
    return ZE_RESULT_SUCCESS;
}

/* ------------------------------------------------------------------------------------------------------------------
 * What a list was created with (headers 1.6 and 1.9) */

#if ZF_L0_AT_LEAST(6)
/* An immediate list's commands go to its own queue: waiting for them waits for nothing else. */
static ze_result_t zf_check_immediate(const zf_cmdlist *list, const char *name) {
    if (!list->immediate)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "%s is not an immediate command list", name);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zeCommandListHostSynchronize(ze_command_list_handle_t hCommandList, uint64_t timeout) {
    zf_cmdlist *list = zf_cmdlist_from(hCommandList);
    ze_result_t result = zf_check_immediate(list, "hCommandList");
    return result != ZE_RESULT_SUCCESS ? result : zf_queue_wait(list->immediate_queue, timeout);
}
#endif

#if ZF_L0_AT_LEAST(9)
ze_result_t zfi_zeCommandListGetDeviceHandle(ze_command_list_handle_t hCommandList, ze_device_handle_t *phDevice) {
    *phDevice = (ze_device_handle_t)zf_cmdlist_from(hCommandList)->device;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zeCommandListGetContextHandle(ze_command_list_handle_t hCommandList, ze_context_handle_t *phContext) {
    *phContext = (ze_context_handle_t)zf_cmdlist_from(hCommandList)->context;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zeCommandListGetOrdinal(ze_command_list_handle_t hCommandList, uint32_t *pOrdinal) {
    *pOrdinal = zf_cmdlist_from(hCommandList)->ordinal;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zeCommandListImmediateGetIndex(ze_command_list_handle_t hCommandListImmediate, uint32_t *pIndex) {
    zf_cmdlist *list = zf_cmdlist_from(hCommandListImmediate);
    ze_result_t result = zf_check_immediate(list, "hCommandListImmediate");
    if (result == ZE_RESULT_SUCCESS)
        *pIndex = list->immediate_queue->index;
    return result;
}

ze_result_t zfi_zeCommandListIsImmediate(ze_command_list_handle_t hCommandList, ze_bool_t *pIsImmediate) {
    *pIsImmediate = zf_cmdlist_from(hCommandList)->immediate;
    return ZE_RESULT_SUCCESS;
}
#endif

/* A command of `kind` that owns nothing yet: the common fields and its arguments cleared, for the append to set. */
static inline void zf_command_start(zf_command *command, zf_command_kind kind) {
    command->kind = kind;
    command->signal = NULL;
    command->num_waits = 0;
    command->waits = NULL;
    command->target_event = NULL;
    command->timestamp_dst = NULL;
    command->hint_bytes = 0;
    memset(&command->u, 0, sizeof command->u);
}

/* An event of the list's context; the caller knows it is live. Intel's driver checks no context for the events of
 * a command: one of another context that has the list's device is signalled and waited for there, and here in the
 * default profile (docs/tolerances.md). */
static ze_result_t zf_check_event_context(const zf_cmdlist *list, ze_event_handle_t handle, const char *name,
                                          uint32_t i) {
    const zf_context *owner = zf_event_from(handle)->pool->context;
    if (owner == list->context)
        return ZE_RESULT_SUCCESS;
    if (zf_strict() || !zf_context_has_device(owner, list->device))
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "%s[%u] belongs to another context%s", name, i,
                       zf_strict() ? "" : ", which does not have the command list's device");
    char detail[64];
    snprintf(detail, sizeof detail, "%s[%u] belongs to another context", name, i);
    zf_tolerate_detail("the events of a command and the command list are of the same context", detail,
                       "the event is signalled and waited for as one of the command list's context");
    return ZE_RESULT_SUCCESS;
}

ze_result_t zf_check_event(const zf_cmdlist *list, ze_event_handle_t handle, const char *name, uint32_t i) {
    if (!zf_handle_is_live(handle, ZF_OBJ_ZE_EVENT))
        return zf_fail(ZE_RESULT_ERROR_INVALID_NULL_HANDLE, "%s[%u] (%p) is not a live event", name, i, (void *)handle);
    return zf_check_event_context(list, handle, name, i);
}

/* The signal and wait events of a command being started: each valid, the waits copied into the command. */
static ze_result_t zf_append_events(zf_cmdlist *list, ze_event_handle_t signal, uint32_t num_waits,
                                    ze_event_handle_t *waits, zf_command *command) {
    if (signal != NULL) {
        /* the entry point checked that it is live */
        ze_result_t result = zf_check_event_context(list, signal, "hSignalEvent", 0);
        if (result != ZE_RESULT_SUCCESS)
            return result;
        command->signal = zf_event_from(signal);
    }
    for (uint32_t i = 0; i < num_waits; i++) {
        ze_result_t result = zf_check_event(list, waits[i], "phWaitEvents", i);
        if (result != ZE_RESULT_SUCCESS)
            return result;
    }
    if (num_waits > 0) {
        command->waits = malloc(num_waits * sizeof *command->waits);
        if (command->waits == NULL)
            return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory for %u wait events", num_waits);
        memcpy(command->waits, waits, num_waits * sizeof *waits);
        command->num_waits = num_waits;
    }
    return ZE_RESULT_SUCCESS;
}

/* Starts a command: the list must accept appends, and its signal and wait events must be valid. Inline: a command
 * without events (the common append) costs a few stores. */
static inline ze_result_t zf_append_begin(zf_cmdlist *list, zf_command_kind kind, ze_event_handle_t signal,
                                          uint32_t num_waits, ze_event_handle_t *waits, zf_command *command) {
    zf_command_start(command, kind);
    if (!list->immediate && list->closed)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "the command list is closed; reset it to append again");
    if (signal == NULL && num_waits == 0)
        return ZE_RESULT_SUCCESS;
    return zf_append_events(list, signal, num_waits, waits, command);
}

/* Room for one more command in a regular list's array. */
static bool zf_cmdlist_reserve(zf_cmdlist *list) {
    if (list->num_commands < list->capacity)
        return true;
    size_t capacity = list->capacity == 0 ? 16 : list->capacity * 2;
    zf_command *grown = realloc(list->commands, capacity * sizeof *grown);
    if (grown == NULL)
        return false;
    list->commands = grown;
    list->capacity = capacity;
    return true;
}

/* Where an append builds its command: an open regular list's next slot, so that recording copies nothing, or `local`
 * (an immediate list's command; a closed list's, which a queue may be running, so its array must not move; or when
 * the array cannot grow: zf_append_finish then reports it). */
static inline zf_command *zf_append_slot(zf_cmdlist *list, zf_command *local) {
    if (!list->immediate && !list->closed && zf_cmdlist_reserve(list))
        return &list->commands[list->num_commands];
    return local;
}

/* Ends an immediate list's command, or a regular list's that could not be built in place: run at once by the
 * immediate list's queue, or the failure reported. Frees the command on failure. */
static ze_result_t zf_append_run(zf_cmdlist *list, zf_command *command, ze_result_t result) {
    if (result == ZE_RESULT_SUCCESS && !list->immediate)
        result = zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory to grow the command list");
    if (result == ZE_RESULT_SUCCESS) {
        zf_queue *queue = list->immediate_queue;
        bool synchronous = queue->mode == ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS;
        /* A synchronous list runs the command itself when the engine is idle: no hand-off to the worker. */
        if (synchronous && zf_engine_run_in_place(queue, NULL, 0, command, NULL))
            return ZE_RESULT_SUCCESS;
        result = zf_engine_submit(queue, NULL, 0, command, NULL);
        if (result == ZE_RESULT_SUCCESS) {
            if (synchronous)
                zf_queue_wait(queue, UINT64_MAX);
            return ZE_RESULT_SUCCESS; /* the engine owns the command now */
        }
    }
    zf_command_free(command);
    return result;
}

/* Ends a command built where zf_append_slot said: recorded by a regular list (inline: one increment when it was
 * built in place), run at once by an immediate one. Frees the command on failure. */
static inline ze_result_t zf_append_finish(zf_cmdlist *list, zf_command *command, ze_result_t result) {
    if (result == ZE_RESULT_SUCCESS && !list->immediate && list->commands != NULL &&
        command == &list->commands[list->num_commands]) {
        list->num_commands++; /* built in place */
        return ZE_RESULT_SUCCESS;
    }
    return zf_append_run(list, command, result);
}

static __attribute__((noinline)) ze_result_t zf_append_barrier(zf_cmdlist *list, ze_event_handle_t signal,
                                                               uint32_t num_waits, ze_event_handle_t *waits) {
    zf_command local, *command = zf_append_slot(list, &local);
    ze_result_t result = zf_append_begin(list, ZF_CMD_BARRIER, signal, num_waits, waits, command);
    return zf_append_finish(list, command, result);
}

/* A barrier without events on an open regular list with room, the common one, is recorded without the general
 * path's frame. */
ze_result_t zfi_zeCommandListAppendBarrier(ze_command_list_handle_t hCommandList, ze_event_handle_t hSignalEvent,
                                           uint32_t numWaitEvents, ze_event_handle_t *phWaitEvents) {
    zf_cmdlist *list = zf_cmdlist_from(hCommandList);
    if (hSignalEvent == NULL && numWaitEvents == 0 && !list->immediate && !list->closed &&
        list->num_commands < list->capacity) {
        zf_command_start(&list->commands[list->num_commands++], ZF_CMD_BARRIER);
        return ZE_RESULT_SUCCESS;
    }
    return zf_append_barrier(list, hSignalEvent, numWaitEvents, phWaitEvents);
}

ze_result_t zfi_zeCommandListAppendMemoryRangesBarrier(ze_command_list_handle_t hCommandList, uint32_t numRanges,
                                                       const size_t *pRangeSizes, const void **pRanges,
                                                       ze_event_handle_t hSignalEvent, uint32_t numWaitEvents,
                                                       ze_event_handle_t *phWaitEvents) {
    if (numRanges > 0 && (pRangeSizes == NULL || pRanges == NULL))
        return zf_fail(ZE_RESULT_ERROR_INVALID_NULL_POINTER, "pRangeSizes and pRanges must hold numRanges (%u) items",
                       numRanges);
    /* Engines execute in order and memory is coherent: a ranges barrier is a barrier. */
    return zfi_zeCommandListAppendBarrier(hCommandList, hSignalEvent, numWaitEvents, phWaitEvents);
}

static bool zf_ranges_overlap(const void *a, const void *b, size_t size) {
    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return size > 0 && x < y + size && y < x + size;
}

static ze_result_t zf_append_copy(zf_cmdlist *list, void *dst, const void *src, size_t size, zf_context *src_context,
                                  ze_event_handle_t signal, uint32_t num_waits, ze_event_handle_t *waits) {
    zf_command local, *command = zf_append_slot(list, &local);
    ze_result_t result = zf_append_begin(list, ZF_CMD_COPY, signal, num_waits, waits, command);
    if (result == ZE_RESULT_SUCCESS && zf_ranges_overlap(dst, src, size))
        result = zf_fail(ZE_RESULT_ERROR_OVERLAPPING_REGIONS, "dstptr and srcptr overlap over %zu bytes", size);
    command->u.copy = (zf_copy_args){.dst = dst, .src = src, .size = size, .src_context = src_context};
    return zf_append_finish(list, command, result);
}

ze_result_t zfi_zeCommandListAppendMemoryCopy(ze_command_list_handle_t hCommandList, void *dstptr, const void *srcptr,
                                              size_t size, ze_event_handle_t hSignalEvent, uint32_t numWaitEvents,
                                              ze_event_handle_t *phWaitEvents) {
    return zf_append_copy(zf_cmdlist_from(hCommandList), dstptr, srcptr, size, NULL, hSignalEvent, numWaitEvents,
                          phWaitEvents);
}

ze_result_t zfi_zeCommandListAppendMemoryCopyFromContext(ze_command_list_handle_t hCommandList, void *dstptr,
                                                         ze_context_handle_t hContextSrc, const void *srcptr,
                                                         size_t size, ze_event_handle_t hSignalEvent,
                                                         uint32_t numWaitEvents, ze_event_handle_t *phWaitEvents) {
    return zf_append_copy(zf_cmdlist_from(hCommandList), dstptr, srcptr, size, zf_context_from(hContextSrc),
                          hSignalEvent, numWaitEvents, phWaitEvents);
}

static ze_result_t zf_check_region(const ze_copy_region_t *region, uint32_t pitch, uint32_t slice_pitch,
                                   const char *name) {
    if ((uint64_t)region->originX + region->width > pitch)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "%s: originX + width (%llu) exceeds the pitch %u", name,
                       (unsigned long long)region->originX + region->width, pitch);
    if (region->depth > 1 && (uint64_t)pitch * (region->originY + region->height) > slice_pitch)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "%s: rows of the region exceed the slice pitch %u", name,
                       slice_pitch);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zeCommandListAppendMemoryCopyRegion(ze_command_list_handle_t hCommandList, void *dstptr,
                                                    const ze_copy_region_t *dstRegion, uint32_t dstPitch,
                                                    uint32_t dstSlicePitch, const void *srcptr,
                                                    const ze_copy_region_t *srcRegion, uint32_t srcPitch,
                                                    uint32_t srcSlicePitch, ze_event_handle_t hSignalEvent,
                                                    uint32_t numWaitEvents, ze_event_handle_t *phWaitEvents) {
    zf_cmdlist *list = zf_cmdlist_from(hCommandList);
    zf_command local, *command = zf_append_slot(list, &local);
    ze_result_t result = zf_append_begin(list, ZF_CMD_COPY_REGION, hSignalEvent, numWaitEvents, phWaitEvents, command);
    if (result == ZE_RESULT_SUCCESS && (dstRegion->width != srcRegion->width ||
                                        dstRegion->height != srcRegion->height || dstRegion->depth != srcRegion->depth))
        result = zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "dstRegion and srcRegion differ in width, height or depth");
    if (result == ZE_RESULT_SUCCESS)
        result = zf_check_region(dstRegion, dstPitch, dstSlicePitch, "dstRegion");
    if (result == ZE_RESULT_SUCCESS)
        result = zf_check_region(srcRegion, srcPitch, srcSlicePitch, "srcRegion");
    command->u.region = (zf_copy_region_args){.dst = dstptr,
                                              .src = srcptr,
                                              .dst_region = *dstRegion,
                                              .src_region = *srcRegion,
                                              .dst_pitch = dstPitch,
                                              .dst_slice_pitch = dstSlicePitch,
                                              .src_pitch = srcPitch,
                                              .src_slice_pitch = srcSlicePitch};
    return zf_append_finish(list, command, result);
}

static ze_result_t zf_check_pattern(const zf_cmdlist *list, size_t pattern_size) {
    uint64_t limit = list->device->desc->engine_groups[list->ordinal].max_fill_pattern_size_bytes;
    if (pattern_size == 0 || (pattern_size & (pattern_size - 1)) != 0 || pattern_size > limit)
        return zf_fail(ZE_RESULT_ERROR_INVALID_SIZE,
                       "pattern_size %zu must be a power of two no larger than the group's maxMemoryFillPatternSize "
                       "(%llu)",
                       pattern_size, (unsigned long long)limit);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zeCommandListAppendMemoryFill(ze_command_list_handle_t hCommandList, void *ptr, const void *pattern,
                                              size_t pattern_size, size_t size, ze_event_handle_t hSignalEvent,
                                              uint32_t numWaitEvents, ze_event_handle_t *phWaitEvents) {
    zf_cmdlist *list = zf_cmdlist_from(hCommandList);
    zf_command local, *command = zf_append_slot(list, &local);
    ze_result_t result = zf_append_begin(list, ZF_CMD_FILL, hSignalEvent, numWaitEvents, phWaitEvents, command);
    if (result == ZE_RESULT_SUCCESS)
        result = zf_check_pattern(list, pattern_size);
    if (result == ZE_RESULT_SUCCESS) {
        command->u.fill = (zf_fill_args){.dst = ptr, .size = size, .pattern_size = pattern_size};
        command->u.fill.pattern = malloc(pattern_size); /* the pattern may change after the append returns */
        if (command->u.fill.pattern == NULL)
            result = zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory for the fill pattern");
        else
            memcpy(command->u.fill.pattern, pattern, pattern_size);
    }
    return zf_append_finish(list, command, result);
}

static ze_result_t zf_append_hint(zf_cmdlist *list, uint64_t bytes) {
    zf_command local, *command = zf_append_slot(list, &local);
    ze_result_t result = zf_append_begin(list, ZF_CMD_HINT, NULL, 0, NULL, command);
    command->hint_bytes = bytes;
    return zf_append_finish(list, command, result);
}

ze_result_t zfi_zeCommandListAppendMemoryPrefetch(ze_command_list_handle_t hCommandList, const void *ptr, size_t size) {
    return zf_append_hint(zf_cmdlist_from(hCommandList), size);
}

ze_result_t zfi_zeCommandListAppendMemAdvise(ze_command_list_handle_t hCommandList, ze_device_handle_t hDevice,
                                             const void *ptr, size_t size, ze_memory_advice_t advice) {
    zf_cmdlist *list = zf_cmdlist_from(hCommandList);
    if (!zf_context_has_device(list->context, zf_device_from(hDevice)))
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "hDevice is not a device of the command list's context");
    return zf_append_hint(list, size);
}

static ze_result_t zf_append_event_command(ze_command_list_handle_t hCommandList, zf_command_kind kind,
                                           ze_event_handle_t hEvent) {
    zf_cmdlist *list = zf_cmdlist_from(hCommandList);
    zf_command local, *command = zf_append_slot(list, &local);
    ze_result_t result = zf_append_begin(list, kind, NULL, 0, NULL, command);
    if (result == ZE_RESULT_SUCCESS)
        result = zf_check_event_context(list, hEvent, "hEvent", 0); /* the entry point checked that it is live */
    command->target_event = zf_event_from(hEvent);
    return zf_append_finish(list, command, result);
}

ze_result_t zfi_zeCommandListAppendSignalEvent(ze_command_list_handle_t hCommandList, ze_event_handle_t hEvent) {
    return zf_append_event_command(hCommandList, ZF_CMD_SIGNAL_EVENT, hEvent);
}

ze_result_t zfi_zeCommandListAppendEventReset(ze_command_list_handle_t hCommandList, ze_event_handle_t hEvent) {
    return zf_append_event_command(hCommandList, ZF_CMD_RESET_EVENT, hEvent);
}

ze_result_t zfi_zeCommandListAppendWaitOnEvents(ze_command_list_handle_t hCommandList, uint32_t numEvents,
                                                ze_event_handle_t *phEvents) {
    /* A barrier that waits: later commands of the in-order engine start after it. */
    return zfi_zeCommandListAppendBarrier(hCommandList, NULL, numEvents, phEvents);
}

ze_result_t zfi_zeCommandListAppendWriteGlobalTimestamp(ze_command_list_handle_t hCommandList, uint64_t *dstptr,
                                                        ze_event_handle_t hSignalEvent, uint32_t numWaitEvents,
                                                        ze_event_handle_t *phWaitEvents) {
    zf_cmdlist *list = zf_cmdlist_from(hCommandList);
    zf_command local, *command = zf_append_slot(list, &local);
    ze_result_t result =
        zf_append_begin(list, ZF_CMD_WRITE_TIMESTAMP, hSignalEvent, numWaitEvents, phWaitEvents, command);
    command->timestamp_dst = dstptr;
    return zf_append_finish(list, command, result);
}

static ze_result_t zf_copy_query_events(zf_cmdlist *list, uint32_t num_events, ze_event_handle_t *events,
                                        const size_t *offsets, zf_query_timestamps_args *query) {
    for (uint32_t i = 0; i < num_events; i++) {
        ze_result_t result = zf_check_event(list, events[i], "phEvents", i);
        if (result != ZE_RESULT_SUCCESS)
            return result;
        if (!zf_pool_has_timestamps(zf_event_from(events[i])->pool))
            return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "phEvents[%u] is not from a KERNEL_TIMESTAMP pool", i);
    }
    query->num_events = num_events;
    query->events = malloc((num_events > 0 ? num_events : 1) * sizeof *query->events);
    if (query->events == NULL)
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory for the query");
    memcpy(query->events, events, num_events * sizeof *events);
    if (offsets != NULL) {
        query->offsets = malloc((num_events > 0 ? num_events : 1) * sizeof *offsets);
        if (query->offsets == NULL)
            return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory for the query");
        memcpy(query->offsets, offsets, num_events * sizeof *offsets);
    }
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zeCommandListAppendQueryKernelTimestamps(ze_command_list_handle_t hCommandList, uint32_t numEvents,
                                                         ze_event_handle_t *phEvents, void *dstptr,
                                                         const size_t *pOffsets, ze_event_handle_t hSignalEvent,
                                                         uint32_t numWaitEvents, ze_event_handle_t *phWaitEvents) {
    zf_cmdlist *list = zf_cmdlist_from(hCommandList);
    zf_command local, *command = zf_append_slot(list, &local);
    ze_result_t result =
        zf_append_begin(list, ZF_CMD_QUERY_KERNEL_TIMESTAMPS, hSignalEvent, numWaitEvents, phWaitEvents, command);
    command->u.query.dst = dstptr;
    if (result == ZE_RESULT_SUCCESS)
        result = zf_copy_query_events(list, numEvents, phEvents, pOffsets, &command->u.query);
    return zf_append_finish(list, command, result);
}

/* ---- kernel launches ---- */

/* `live`: the entry point already checked the handle (a single kernel argument, not an array's item). */
static ze_result_t zf_check_kernel(const zf_cmdlist *list, ze_kernel_handle_t handle, uint32_t i, bool live) {
    if (!live && !zf_handle_is_live(handle, ZF_OBJ_ZE_KERNEL))
        return zf_fail(ZE_RESULT_ERROR_INVALID_NULL_HANDLE, "kernel %u (%p) is not a live kernel", i, (void *)handle);
    const zf_kernel *kernel = zf_kernel_from(handle);
    if (zf_kernel_context(kernel) != list->context) {
        if (zf_strict())
            return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "kernel %u belongs to another context", i);
        zf_tolerate("the kernel and the command list must be of the same context",
                    "ran the kernel on the command list's context");
    }
    if (zf_kernel_device(kernel)->root != list->device->root)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "kernel %u was built for another device", i);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t zf_capture_kernels(zf_cmdlist *list, uint32_t num_kernels, ze_kernel_handle_t *kernels, bool live,
                                      zf_launch_args *launch) {
    if (!(list->group_flags & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE))
        return zf_fail(ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE,
                       "kernels need a command list of a compute queue group; group %u is not one", list->ordinal);
    /* One kernel, the usual case, needs no array. */
    if (num_kernels > 1) {
        launch->launches = calloc(num_kernels, sizeof *launch->launches);
        if (launch->launches == NULL)
            return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory for %u launches", num_kernels);
    }
    for (uint32_t k = 0; k < num_kernels; k++) {
        zf_kernel_launch **slot = launch->launches != NULL ? &launch->launches[k] : &launch->one;
        ze_result_t result = zf_check_kernel(list, kernels[k], k, live);
        if (result == ZE_RESULT_SUCCESS)
            result = zf_kernel_capture(zf_kernel_from(kernels[k]), list->launch_pool, slot);
        /* A kernel of another context (tolerated above) works on the allocations of the list's context. */
        if (result == ZE_RESULT_SUCCESS)
            zf_kernel_launch_set_context(*slot, list->context);
        if (result != ZE_RESULT_SUCCESS)
            return result;
        launch->num_kernels = k + 1;
    }
    return ZE_RESULT_SUCCESS;
}

ze_result_t zf_check_group_count(const zf_cmdlist *list, const ze_group_count_t *groups) {
    const zf_scenario_compute *c = &list->device->desc->compute;
    if (groups->groupCountX > c->max_group_count[0] || groups->groupCountY > c->max_group_count[1] ||
        groups->groupCountZ > c->max_group_count[2])
        return zf_fail(ZE_RESULT_ERROR_INVALID_GLOBAL_WIDTH_DIMENSION,
                       "group count (%u, %u, %u) exceeds the device's maximum (%u, %u, %u)", groups->groupCountX,
                       groups->groupCountY, groups->groupCountZ, c->max_group_count[0], c->max_group_count[1],
                       c->max_group_count[2]);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t zf_append_launch(ze_command_list_handle_t hCommandList, zf_command_kind kind, uint32_t num_kernels,
                                    ze_kernel_handle_t *kernels, const ze_group_count_t *groups,
                                    const uint32_t *indirect_count, bool cooperative, ze_event_handle_t signal,
                                    uint32_t num_waits, ze_event_handle_t *waits) {
    zf_cmdlist *list = zf_cmdlist_from(hCommandList);
    zf_command local, *command = zf_append_slot(list, &local);
    ze_result_t result = zf_append_begin(list, kind, signal, num_waits, waits, command);
    if (result == ZE_RESULT_SUCCESS && kind == ZF_CMD_LAUNCH)
        result = zf_check_group_count(list, groups);
    if (result == ZE_RESULT_SUCCESS)
        result =
            zf_capture_kernels(list, num_kernels, kernels, kind != ZF_CMD_LAUNCH_MULTIPLE_INDIRECT, &command->u.launch);
    command->u.launch.cooperative = cooperative;
    if (kind == ZF_CMD_LAUNCH && groups != NULL)
        command->u.launch.groups = *groups;
    else
        command->u.launch.indirect_groups = groups;
    command->u.launch.indirect_count = indirect_count;
    return zf_append_finish(list, command, result);
}

ze_result_t zfi_zeCommandListAppendLaunchKernel(ze_command_list_handle_t hCommandList, ze_kernel_handle_t hKernel,
                                                const ze_group_count_t *pLaunchFuncArgs, ze_event_handle_t hSignalEvent,
                                                uint32_t numWaitEvents, ze_event_handle_t *phWaitEvents) {
    return zf_append_launch(hCommandList, ZF_CMD_LAUNCH, 1, &hKernel, pLaunchFuncArgs, NULL, false, hSignalEvent,
                            numWaitEvents, phWaitEvents);
}

ze_result_t zfi_zeCommandListAppendLaunchCooperativeKernel(ze_command_list_handle_t hCommandList,
                                                           ze_kernel_handle_t hKernel,
                                                           const ze_group_count_t *pLaunchFuncArgs,
                                                           ze_event_handle_t hSignalEvent, uint32_t numWaitEvents,
                                                           ze_event_handle_t *phWaitEvents) {
    zf_cmdlist *list = zf_cmdlist_from(hCommandList);
    if (!(list->group_flags & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COOPERATIVE_KERNELS))
        return zf_fail(ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE, "queue group %u does not support cooperative kernels",
                       list->ordinal);
    return zf_append_launch(hCommandList, ZF_CMD_LAUNCH, 1, &hKernel, pLaunchFuncArgs, NULL, true, hSignalEvent,
                            numWaitEvents, phWaitEvents);
}

ze_result_t zfi_zeCommandListAppendLaunchKernelIndirect(ze_command_list_handle_t hCommandList,
                                                        ze_kernel_handle_t hKernel,
                                                        const ze_group_count_t *pLaunchArgumentsBuffer,
                                                        ze_event_handle_t hSignalEvent, uint32_t numWaitEvents,
                                                        ze_event_handle_t *phWaitEvents) {
    return zf_append_launch(hCommandList, ZF_CMD_LAUNCH_INDIRECT, 1, &hKernel, pLaunchArgumentsBuffer, NULL, false,
                            hSignalEvent, numWaitEvents, phWaitEvents);
}

ze_result_t zfi_zeCommandListAppendLaunchMultipleKernelsIndirect(ze_command_list_handle_t hCommandList,
                                                                 uint32_t numKernels, ze_kernel_handle_t *phKernels,
                                                                 const uint32_t *pCountBuffer,
                                                                 const ze_group_count_t *pLaunchArgumentsBuffer,
                                                                 ze_event_handle_t hSignalEvent, uint32_t numWaitEvents,
                                                                 ze_event_handle_t *phWaitEvents) {
    return zf_append_launch(hCommandList, ZF_CMD_LAUNCH_MULTIPLE_INDIRECT, numKernels, phKernels,
                            pLaunchArgumentsBuffer, pCountBuffer, false, hSignalEvent, numWaitEvents, phWaitEvents);
}

ze_result_t zf_cmdlist_append_custom(ze_command_list_handle_t hCommandList, const zf_command_ops *ops, void *payload,
                                     ze_event_handle_t hSignalEvent, uint32_t numWaitEvents,
                                     ze_event_handle_t *phWaitEvents) {
    zf_cmdlist *list = zf_cmdlist_from(hCommandList);
    zf_command local, *command = zf_append_slot(list, &local);
    ze_result_t result = zf_append_begin(list, ZF_CMD_CUSTOM, hSignalEvent, numWaitEvents, phWaitEvents, command);
    command->u.custom = (zf_custom_args){ops, payload};
    return zf_append_finish(list, command, result);
}

bool zf_immediate_list_help(ze_command_list_handle_t list) {
    zf_cmdlist *l = zf_cmdlist_from(list);
    return l->immediate && zf_engine_help(l->immediate_queue);
}
