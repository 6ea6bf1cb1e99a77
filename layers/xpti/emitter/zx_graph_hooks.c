/* Hooks that feed the graph model (zx_graph.c) from the traced calls. They act on successful calls only (a failed
 * call changed nothing, and its arguments may be bad), and only when someone listened to the graph stream at start:
 * otherwise the stream costs nothing but the hook call. */
#include "zx_graph.h"
#include "zx_hooks.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static bool zx_graph_on(const zx_call *call) {
    return call->ctx->listened[ZX_S_GRAPH] && call->result == ZE_RESULT_SUCCESS;
}

static bool zx_graph_listened(const zx_call *call) {
    return call->ctx->listened[ZX_S_GRAPH];
}

/* ------------------------------------------------------------------------------------------------------------------
 * Appended commands */

static zx_append zx_append_of(const zx_call *call, zx_node_kind kind, const char *label, ze_command_list_handle_t list,
                              ze_event_handle_t signal, uint32_t num_waits, const ze_event_handle_t *waits) {
    zx_append a = {call->fwa.function_name, kind, label, list, signal, num_waits, waits, {{0}}, 0};
    zx_append_text(&a, "api", call->fwa.function_name);
    zx_append_number(&a, "command_list", (uint64_t)(uintptr_t)list);
    if (signal != NULL)
        zx_append_number(&a, "signal_event", (uint64_t)(uintptr_t)signal);
    zx_append_number(&a, "wait_events", num_waits);
    return a;
}

/* A kernel launch: the kernel's name, the group count (direct launches), group size and global size. */
static void zx_launch(zx_call *call, ze_command_list_handle_t list, ze_kernel_handle_t kernel,
                      const ze_group_count_t *count, ze_event_handle_t signal, uint32_t num_waits,
                      const ze_event_handle_t *waits) {
    uint32_t group[3];
    bool group_known;
    const char *name = zx_graph_kernel(kernel, group, &group_known);
    zx_append a = zx_append_of(call, ZX_NODE_KERNEL, name != NULL ? name : "kernel", list, signal, num_waits, waits);
    char counts[48], sizes[48], global[72];
    zx_append_text(&a, "kernel_name", name);
    if (count != NULL) {
        snprintf(counts, sizeof counts, "%u,%u,%u", count->groupCountX, count->groupCountY, count->groupCountZ);
        zx_append_text(&a, "group_count", counts);
    }
    if (group_known) {
        snprintf(sizes, sizeof sizes, "%u,%u,%u", group[0], group[1], group[2]);
        zx_append_text(&a, "group_size", sizes);
    }
    if (group_known && count != NULL) {
        snprintf(global, sizeof global, "%" PRIu64 ",%" PRIu64 ",%" PRIu64, (uint64_t)group[0] * count->groupCountX,
                 (uint64_t)group[1] * count->groupCountY, (uint64_t)group[2] * count->groupCountZ);
        zx_append_text(&a, "global_size", global);
    }
    zx_graph_append(call->ctx, &a);
}

void zx_hook_zeCommandListAppendLaunchKernel_end(ze_command_list_append_launch_kernel_params_t *p, zx_call *call) {
    if (zx_graph_on(call))
        zx_launch(call, *p->phCommandList, *p->phKernel, *p->ppLaunchFuncArgs, *p->phSignalEvent, *p->pnumWaitEvents,
                  *p->pphWaitEvents);
}

void zx_hook_zeCommandListAppendLaunchCooperativeKernel_end(
    ze_command_list_append_launch_cooperative_kernel_params_t *p, zx_call *call) {
    if (zx_graph_on(call))
        zx_launch(call, *p->phCommandList, *p->phKernel, *p->ppLaunchFuncArgs, *p->phSignalEvent, *p->pnumWaitEvents,
                  *p->pphWaitEvents);
}

/* The group count of an indirect launch lives in device memory: the host must not read it. */
void zx_hook_zeCommandListAppendLaunchKernelIndirect_end(ze_command_list_append_launch_kernel_indirect_params_t *p,
                                                         zx_call *call) {
    if (zx_graph_on(call))
        zx_launch(call, *p->phCommandList, *p->phKernel, NULL, *p->phSignalEvent, *p->pnumWaitEvents,
                  *p->pphWaitEvents);
}

/* One node for all the kernels: it is one command. Its name lists them, comma-separated, as far as it fits. */
void zx_hook_zeCommandListAppendLaunchMultipleKernelsIndirect_end(
    ze_command_list_append_launch_multiple_kernels_indirect_params_t *p, zx_call *call) {
    if (!zx_graph_on(call))
        return;
    char names[256] = "";
    size_t used = 0;
    for (uint32_t i = 0; *p->pphKernels != NULL && i < *p->pnumKernels && used < sizeof names; i++) {
        uint32_t group[3];
        bool known;
        const char *name = zx_graph_kernel((*p->pphKernels)[i], group, &known);
        int n = snprintf(names + used, sizeof names - used, "%s%s", i > 0 ? "," : "", name != NULL ? name : "kernel");
        used += n > 0 ? (size_t)n : 0;
    }
    zx_append a = zx_append_of(call, ZX_NODE_KERNEL, names, *p->phCommandList, *p->phSignalEvent, *p->pnumWaitEvents,
                               *p->pphWaitEvents);
    zx_append_text(&a, "kernel_name", names);
    zx_append_number(&a, "kernel_count", *p->pnumKernels);
    zx_graph_append(call->ctx, &a);
}

static void zx_copy(zx_call *call, ze_command_list_handle_t list, const void *dst, const void *src, uint64_t size,
                    ze_event_handle_t signal, uint32_t num_waits, const ze_event_handle_t *waits) {
    zx_append a = zx_append_of(call, ZX_NODE_COPY, "memory copy", list, signal, num_waits, waits);
    zx_append_number(&a, "dest_memory_ptr", (uint64_t)(uintptr_t)dst);
    zx_append_number(&a, "src_memory_ptr", (uint64_t)(uintptr_t)src);
    if (size != 0)
        zx_append_number(&a, "memory_size", size);
    zx_graph_append(call->ctx, &a);
}

void zx_hook_zeCommandListAppendMemoryCopy_end(ze_command_list_append_memory_copy_params_t *p, zx_call *call) {
    if (zx_graph_on(call))
        zx_copy(call, *p->phCommandList, *p->pdstptr, *p->psrcptr, *p->psize, *p->phSignalEvent, *p->pnumWaitEvents,
                *p->pphWaitEvents);
}

void zx_hook_zeCommandListAppendMemoryCopyRegion_end(ze_command_list_append_memory_copy_region_params_t *p,
                                                     zx_call *call) {
    if (zx_graph_on(call))
        zx_copy(call, *p->phCommandList, *p->pdstptr, *p->psrcptr, 0, *p->phSignalEvent, *p->pnumWaitEvents,
                *p->pphWaitEvents);
}

void zx_hook_zeCommandListAppendMemoryCopyFromContext_end(ze_command_list_append_memory_copy_from_context_params_t *p,
                                                          zx_call *call) {
    if (zx_graph_on(call))
        zx_copy(call, *p->phCommandList, *p->pdstptr, *p->psrcptr, *p->psize, *p->phSignalEvent, *p->pnumWaitEvents,
                *p->pphWaitEvents);
}

void zx_hook_zeCommandListAppendImageCopy_end(ze_command_list_append_image_copy_params_t *p, zx_call *call) {
    if (zx_graph_on(call))
        zx_copy(call, *p->phCommandList, *p->phDstImage, *p->phSrcImage, 0, *p->phSignalEvent, *p->pnumWaitEvents,
                *p->pphWaitEvents);
}

void zx_hook_zeCommandListAppendImageCopyRegion_end(ze_command_list_append_image_copy_region_params_t *p,
                                                    zx_call *call) {
    if (zx_graph_on(call))
        zx_copy(call, *p->phCommandList, *p->phDstImage, *p->phSrcImage, 0, *p->phSignalEvent, *p->pnumWaitEvents,
                *p->pphWaitEvents);
}

void zx_hook_zeCommandListAppendImageCopyToMemory_end(ze_command_list_append_image_copy_to_memory_params_t *p,
                                                      zx_call *call) {
    if (zx_graph_on(call))
        zx_copy(call, *p->phCommandList, *p->pdstptr, *p->phSrcImage, 0, *p->phSignalEvent, *p->pnumWaitEvents,
                *p->pphWaitEvents);
}

void zx_hook_zeCommandListAppendImageCopyFromMemory_end(ze_command_list_append_image_copy_from_memory_params_t *p,
                                                        zx_call *call) {
    if (zx_graph_on(call))
        zx_copy(call, *p->phCommandList, *p->phDstImage, *p->psrcptr, 0, *p->phSignalEvent, *p->pnumWaitEvents,
                *p->pphWaitEvents);
}

void zx_hook_zeCommandListAppendImageCopyToMemoryExt_end(ze_command_list_append_image_copy_to_memory_ext_params_t *p,
                                                         zx_call *call) {
    if (zx_graph_on(call))
        zx_copy(call, *p->phCommandList, *p->pdstptr, *p->phSrcImage, 0, *p->phSignalEvent, *p->pnumWaitEvents,
                *p->pphWaitEvents);
}

void zx_hook_zeCommandListAppendImageCopyFromMemoryExt_end(
    ze_command_list_append_image_copy_from_memory_ext_params_t *p, zx_call *call) {
    if (zx_graph_on(call))
        zx_copy(call, *p->phCommandList, *p->phDstImage, *p->psrcptr, 0, *p->phSignalEvent, *p->pnumWaitEvents,
                *p->pphWaitEvents);
}

void zx_hook_zeCommandListAppendMemoryFill_end(ze_command_list_append_memory_fill_params_t *p, zx_call *call) {
    if (!zx_graph_on(call))
        return;
    zx_append a = zx_append_of(call, ZX_NODE_FILL, "memory fill", *p->phCommandList, *p->phSignalEvent,
                               *p->pnumWaitEvents, *p->pphWaitEvents);
    zx_append_number(&a, "memory_ptr", (uint64_t)(uintptr_t)*p->pptr);
    zx_append_number(&a, "memory_size", *p->psize);
    zx_append_number(&a, "pattern_size", *p->ppattern_size);
    zx_graph_append(call->ctx, &a);
}

void zx_hook_zeCommandListAppendBarrier_end(ze_command_list_append_barrier_params_t *p, zx_call *call) {
    if (!zx_graph_on(call))
        return;
    zx_append a = zx_append_of(call, ZX_NODE_BARRIER, "barrier", *p->phCommandList, *p->phSignalEvent,
                               *p->pnumWaitEvents, *p->pphWaitEvents);
    zx_graph_append(call->ctx, &a);
}

void zx_hook_zeCommandListAppendMemoryRangesBarrier_end(ze_command_list_append_memory_ranges_barrier_params_t *p,
                                                        zx_call *call) {
    if (!zx_graph_on(call))
        return;
    zx_append a = zx_append_of(call, ZX_NODE_BARRIER, "barrier", *p->phCommandList, *p->phSignalEvent,
                               *p->pnumWaitEvents, *p->pphWaitEvents);
    zx_append_number(&a, "ranges", *p->pnumRanges);
    zx_graph_append(call->ctx, &a);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Event dependencies */

void zx_hook_zeCommandListAppendWaitOnEvents_end(ze_command_list_append_wait_on_events_params_t *p, zx_call *call) {
    if (zx_graph_on(call))
        zx_graph_list_waits(*p->phCommandList, *p->pnumEvents, *p->pphEvents);
}

void zx_hook_zeCommandListAppendSignalEvent_end(ze_command_list_append_signal_event_params_t *p, zx_call *call) {
    if (zx_graph_on(call))
        zx_graph_list_signals(call->ctx, *p->phCommandList, *p->phEvent);
}

void zx_hook_zeCommandListAppendEventReset_end(ze_command_list_append_event_reset_params_t *p, zx_call *call) {
    if (zx_graph_on(call))
        zx_graph_event_forget(call->ctx, *p->phEvent);
}

void zx_hook_zeEventHostReset_end(ze_event_host_reset_params_t *p, zx_call *call) {
    if (zx_graph_on(call))
        zx_graph_event_forget(call->ctx, *p->phEvent);
}

void zx_hook_zeEventHostSignal_end(ze_event_host_signal_params_t *p, zx_call *call) {
    if (zx_graph_on(call))
        zx_graph_event_forget(call->ctx, *p->phEvent);
}

void zx_hook_zeEventDestroy_end(ze_event_destroy_params_t *p, zx_call *call) {
    if (zx_graph_on(call))
        zx_graph_event_forget(call->ctx, *p->phEvent);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Objects */

void zx_hook_zeKernelCreate_end(ze_kernel_create_params_t *p, zx_call *call) {
    if (zx_graph_on(call) && *p->pphKernel != NULL)
        zx_graph_kernel_created(call->ctx, **p->pphKernel, *p->pdesc != NULL ? (*p->pdesc)->pKernelName : NULL);
}

void zx_hook_zeKernelSetGroupSize_end(ze_kernel_set_group_size_params_t *p, zx_call *call) {
    if (zx_graph_on(call))
        zx_graph_kernel_group_size(*p->phKernel, *p->pgroupSizeX, *p->pgroupSizeY, *p->pgroupSizeZ);
}

void zx_hook_zeKernelDestroy_end(ze_kernel_destroy_params_t *p, zx_call *call) {
    if (zx_graph_on(call))
        zx_graph_kernel_destroyed(*p->phKernel);
}

void zx_hook_zeCommandListCreate_end(ze_command_list_create_params_t *p, zx_call *call) {
    if (zx_graph_on(call) && *p->pphCommandList != NULL)
        zx_graph_list_created(call->ctx, **p->pphCommandList, *p->phDevice, NULL);
}

void zx_hook_zeCommandListCreateImmediate_end(ze_command_list_create_immediate_params_t *p, zx_call *call) {
    if (zx_graph_on(call) && *p->pphCommandList != NULL)
        zx_graph_list_created(call->ctx, **p->pphCommandList, *p->phDevice, *p->paltdesc);
}

void zx_hook_zeCommandListReset_end(ze_command_list_reset_params_t *p, zx_call *call) {
    if (zx_graph_on(call))
        zx_graph_list_reset(call->ctx, *p->phCommandList, false);
}

void zx_hook_zeCommandListDestroy_end(ze_command_list_destroy_params_t *p, zx_call *call) {
    if (zx_graph_on(call))
        zx_graph_list_reset(call->ctx, *p->phCommandList, true);
}

void zx_hook_zeCommandQueueCreate_end(ze_command_queue_create_params_t *p, zx_call *call) {
    if (zx_graph_on(call) && *p->pphCommandQueue != NULL)
        zx_graph_queue_created(call->ctx, **p->pphCommandQueue, *p->phDevice, *p->pdesc);
}

void zx_hook_zeCommandQueueDestroy_end(ze_command_queue_destroy_params_t *p, zx_call *call) {
    if (zx_graph_on(call))
        zx_graph_queue_destroyed(call->ctx, *p->phCommandQueue);
}

void zx_hook_zeFenceCreate_end(ze_fence_create_params_t *p, zx_call *call) {
    if (zx_graph_on(call) && *p->pphFence != NULL)
        zx_graph_fence_created(**p->pphFence, *p->phCommandQueue);
}

void zx_hook_zeFenceDestroy_end(ze_fence_destroy_params_t *p, zx_call *call) {
    if (zx_graph_on(call))
        zx_graph_fence_destroyed(*p->phFence);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Execution and completion */

void zx_hook_zeCommandQueueExecuteCommandLists_end(ze_command_queue_execute_command_lists_params_t *p, zx_call *call) {
    if (zx_graph_on(call))
        zx_graph_execute(call->ctx, *p->phCommandQueue, *p->pnumCommandLists, *p->pphCommandLists, *p->phFence);
}

void zx_hook_zeCommandQueueSynchronize_begin(ze_command_queue_synchronize_params_t *p, zx_call *call) {
    if (zx_graph_listened(call))
        zx_graph_wait(call, true, *p->phCommandQueue);
}

void zx_hook_zeCommandQueueSynchronize_end(ze_command_queue_synchronize_params_t *p, zx_call *call) {
    if (zx_graph_on(call))
        zx_graph_queue_done(call->ctx, *p->phCommandQueue);
    if (zx_graph_listened(call))
        zx_graph_wait(call, false, *p->phCommandQueue);
}

void zx_hook_zeFenceHostSynchronize_begin(ze_fence_host_synchronize_params_t *p, zx_call *call) {
    if (zx_graph_listened(call))
        zx_graph_wait(call, true, *p->phFence);
}

void zx_hook_zeFenceHostSynchronize_end(ze_fence_host_synchronize_params_t *p, zx_call *call) {
    if (zx_graph_on(call))
        zx_graph_fence_done(call->ctx, *p->phFence);
    if (zx_graph_listened(call))
        zx_graph_wait(call, false, *p->phFence);
}

void zx_hook_zeEventHostSynchronize_begin(ze_event_host_synchronize_params_t *p, zx_call *call) {
    if (zx_graph_listened(call))
        zx_graph_wait(call, true, *p->phEvent);
}

void zx_hook_zeEventHostSynchronize_end(ze_event_host_synchronize_params_t *p, zx_call *call) {
    if (zx_graph_on(call))
        zx_graph_event_done(call->ctx, *p->phEvent);
    if (zx_graph_listened(call))
        zx_graph_wait(call, false, *p->phEvent);
}

void zx_hook_zeEventQueryStatus_end(ze_event_query_status_params_t *p, zx_call *call) {
    if (zx_graph_on(call))
        zx_graph_event_done(call->ctx, *p->phEvent);
}

void zx_hook_zeFenceQueryStatus_end(ze_fence_query_status_params_t *p, zx_call *call) {
    if (zx_graph_on(call))
        zx_graph_fence_done(call->ctx, *p->phFence);
}
