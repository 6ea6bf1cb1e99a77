/* Command queues: bound to one engine (group ordinal and index) of a device; they submit closed command lists. */
#include "core/zf_core.h"
#include "exec/zf_exec.h"

#include <stdlib.h>

ze_result_t zf_queue_init(zf_queue *queue, zf_context *context, zf_device *device,
                          const ze_command_queue_desc_t *desc) {
    if (!zf_context_has_device(context, device))
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "hDevice is not a device of hContext");
    const zf_scenario_device *d = device->desc;
    if (desc->ordinal >= d->num_engine_groups)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "desc->ordinal %u: the device has %u queue groups",
                       desc->ordinal, d->num_engine_groups);
    if (desc->index >= d->engine_groups[desc->ordinal].num_queues)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "desc->index %u: queue group %u has %u queues", desc->index,
                       desc->ordinal, d->engine_groups[desc->ordinal].num_queues);
    queue->context = context;
    queue->device = device;
    queue->ordinal = desc->ordinal;
    queue->index = desc->index;
    queue->mode = desc->mode;
    queue->group_flags = d->engine_groups[desc->ordinal].flags;
    return zf_engine_get(device, desc->ordinal, desc->index, &queue->engine);
}

ze_result_t zfi_zeCommandQueueCreate(ze_context_handle_t hContext, ze_device_handle_t hDevice,
                                     const ze_command_queue_desc_t *desc, ze_command_queue_handle_t *phCommandQueue) {
    zf_queue *queue = calloc(1, sizeof *queue);
    if (queue == NULL)
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory for a command queue");
    ze_result_t result = zf_queue_init(queue, zf_context_from(hContext), zf_device_from(hDevice), desc);
    if (result != ZE_RESULT_SUCCESS) {
        free(queue);
        return result;
    }
    if (!zf_object_register(&queue->header, ZF_OBJ_ZE_COMMAND_QUEUE, &queue->context->header)) {
        free(queue);
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory to register a command queue");
    }
    *phCommandQueue = (ze_command_queue_handle_t)queue;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zeCommandQueueDestroy(ze_command_queue_handle_t hCommandQueue) {
    zf_queue *queue = zf_queue_from(hCommandQueue);
    if (zf_queue_wait(queue, 0) != ZE_RESULT_SUCCESS)
        return zf_fail(ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE, "the queue still has work executing");
    zf_object_retire(&queue->header);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zf_queue_check_submittable(const zf_queue *queue, ze_command_list_handle_t handle, uint32_t i) {
    if (!zf_handle_is_live(handle, ZF_OBJ_ZE_COMMAND_LIST))
        return zf_fail(ZE_RESULT_ERROR_INVALID_NULL_HANDLE, "phCommandLists[%u] (%p) is not a live command list", i,
                       (void *)handle);
    const zf_cmdlist *list = zf_cmdlist_from(handle);
    if (list->immediate)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "phCommandLists[%u] is an immediate command list", i);
    if (!list->closed)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "phCommandLists[%u] is not closed", i);
    if (list->ordinal != queue->ordinal)
        return zf_fail(ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE,
                       "phCommandLists[%u] was created for queue group %u, the queue is of group %u", i, list->ordinal,
                       queue->ordinal);
    if (list->device != queue->device)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "phCommandLists[%u] was created for another device", i);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zeCommandQueueExecuteCommandLists(ze_command_queue_handle_t hCommandQueue, uint32_t numCommandLists,
                                                  ze_command_list_handle_t *phCommandLists, ze_fence_handle_t hFence) {
    zf_queue *queue = zf_queue_from(hCommandQueue);
    for (uint32_t i = 0; i < numCommandLists; i++) {
        ze_result_t result = zf_queue_check_submittable(queue, phCommandLists[i], i);
        if (result != ZE_RESULT_SUCCESS)
            return result;
    }
    zf_fence *fence = (zf_fence *)hFence;
    if (fence != NULL && fence->queue != queue)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "hFence was created for another command queue");
    zf_cmdlist **lists = (zf_cmdlist **)phCommandLists;
    bool synchronous = queue->mode == ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS;
    /* A synchronous queue runs the lists itself when its engine is idle: no hand-off to the worker. */
    if (synchronous && zf_engine_run_in_place(queue, lists, numCommandLists, NULL, fence))
        return ZE_RESULT_SUCCESS;
    ze_result_t result = zf_engine_submit(queue, lists, numCommandLists, NULL, fence);
    if (result != ZE_RESULT_SUCCESS || !synchronous)
        return result;
    return zf_queue_wait(queue, UINT64_MAX);
}

ze_result_t zfi_zeCommandQueueSynchronize(ze_command_queue_handle_t hCommandQueue, uint64_t timeout) {
    return zf_queue_wait(zf_queue_from(hCommandQueue), timeout);
}

#if ZF_L0_AT_LEAST(9)
ze_result_t zfi_zeCommandQueueGetOrdinal(ze_command_queue_handle_t hCommandQueue, uint32_t *pOrdinal) {
    *pOrdinal = zf_queue_from(hCommandQueue)->ordinal;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zeCommandQueueGetIndex(ze_command_queue_handle_t hCommandQueue, uint32_t *pIndex) {
    *pIndex = zf_queue_from(hCommandQueue)->index;
    return ZE_RESULT_SUCCESS;
}
#endif
