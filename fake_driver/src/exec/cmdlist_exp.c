/* Command lists of the 1.9 experimental extensions: clones of regular lists (ZE_experimental_command_list_clone) and
 * regular lists appended to an immediate list (ZE_experimental_immediate_command_list_append). */
#include "core/zf_core.h"
#include "exec/cmdlist_internal.h"
#include "exec/zf_exec.h"

#include <stdlib.h>

#if ZF_L0_AT_LEAST(9)
/* ------------------------------------------------------------------------------------------------------------------
 * Clones */

static ze_result_t zf_check_cloneable(const zf_cmdlist *source) {
    if (source->immediate || !(source->flags & ZE_COMMAND_LIST_FLAG_EXP_CLONEABLE))
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                       "hCommandList was not created with ZE_COMMAND_LIST_FLAG_EXP_CLONEABLE");
    if (!source->closed)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "hCommandList is not closed");
    return ZE_RESULT_SUCCESS;
}

/* Copies every command of `source` into `clone`, whose array is sized for them. */
static ze_result_t zf_clone_commands(const zf_cmdlist *source, zf_cmdlist *clone) {
    for (size_t i = 0; i < source->num_commands; i++) {
        ze_result_t result = zf_command_clone(&source->commands[i], clone->launch_pool, &clone->commands[i]);
        if (result != ZE_RESULT_SUCCESS)
            return result;
        clone->num_commands = i + 1;
    }
    return ZE_RESULT_SUCCESS;
}

static void zf_clone_discard(zf_cmdlist *clone) {
    for (size_t i = 0; i < clone->num_commands; i++)
        zf_command_free(&clone->commands[i]);
    free(clone->commands);
    zf_cmdlist_discard(clone);
}

/* The clone is a closed regular list of the same device, queue group and flags with copies of the commands: it runs
 * them as the source would, and owns what they own, so it stays valid whatever happens to the source. The source may
 * be executing: recorded commands do not change while it is closed. A mutable source's clone is not mutable. */
ze_result_t zfi_zeCommandListCreateCloneExp(ze_command_list_handle_t hCommandList,
                                            ze_command_list_handle_t *phClonedCommandList) {
    const zf_cmdlist *source = zf_cmdlist_from(hCommandList);
    ze_result_t result = zf_check_cloneable(source);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    zf_cmdlist *clone = zf_cmdlist_new(source->context, source->device, source->ordinal);
    if (clone == NULL)
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory for a command list");
    clone->flags = source->flags;
    clone->closed = true;
    size_t n = source->num_commands;
    clone->commands = n > 0 ? malloc(n * sizeof *clone->commands) : NULL;
    clone->capacity = clone->commands != NULL ? n : 0;
    if (n > 0 && clone->commands == NULL)
        result = zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory for %zu commands", n);
    if (result == ZE_RESULT_SUCCESS)
        result = zf_clone_commands(source, clone);
    if (result == ZE_RESULT_SUCCESS)
        result = zf_cmdlist_publish(clone, phClonedCommandList);
    if (result != ZE_RESULT_SUCCESS)
        zf_clone_discard(clone);
    return result;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Regular lists appended to an immediate list */

static ze_result_t zf_check_appended(const zf_cmdlist *list, uint32_t num, ze_command_list_handle_t *lists) {
    if (!list->immediate)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "hCommandListImmediate is not an immediate command list");
    for (uint32_t i = 0; i < num; i++) {
        ze_result_t result = zf_queue_check_submittable(list->immediate_queue, lists[i], i);
        if (result != ZE_RESULT_SUCCESS)
            return result;
        if (zf_cmdlist_from(lists[i])->context != list->context)
            return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "phCommandLists[%u] belongs to another context", i);
    }
    return ZE_RESULT_SUCCESS;
}

/* The lists go to the immediate list's engine, which runs its commands in order: a barrier waiting for the wait
 * events before them and a barrier signalling the event after them give the order the extension promises (both are
 * commands of 100 ns, docs/cost-model.md). A synchronous immediate list returns once they completed. */
ze_result_t zfi_zeCommandListImmediateAppendCommandListsExp(ze_command_list_handle_t hCommandListImmediate,
                                                            uint32_t numCommandLists,
                                                            ze_command_list_handle_t *phCommandLists,
                                                            ze_event_handle_t hSignalEvent, uint32_t numWaitEvents,
                                                            ze_event_handle_t *phWaitEvents) {
    zf_cmdlist *list = zf_cmdlist_from(hCommandListImmediate);
    ze_result_t result = zf_check_appended(list, numCommandLists, phCommandLists);
    for (uint32_t i = 0; i < numWaitEvents && result == ZE_RESULT_SUCCESS; i++)
        result = zf_check_event(list, phWaitEvents[i], "phWaitEvents", i);
    if (result == ZE_RESULT_SUCCESS && hSignalEvent != NULL)
        result = zf_check_event(list, hSignalEvent, "hSignalEvent", 0);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    zf_queue *queue = list->immediate_queue;
    bool synchronous = queue->mode == ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS;
    if (numWaitEvents > 0)
        result = zfi_zeCommandListAppendBarrier(hCommandListImmediate, NULL, numWaitEvents, phWaitEvents);
    if (result == ZE_RESULT_SUCCESS && numCommandLists > 0)
        result = zf_engine_submit(queue, (zf_cmdlist **)phCommandLists, numCommandLists, NULL, NULL);
    if (result == ZE_RESULT_SUCCESS && hSignalEvent != NULL)
        result = zfi_zeCommandListAppendBarrier(hCommandListImmediate, hSignalEvent, 0, NULL);
    if (result == ZE_RESULT_SUCCESS && synchronous)
        result = zf_queue_wait(queue, UINT64_MAX);
    return result;
}
#endif
