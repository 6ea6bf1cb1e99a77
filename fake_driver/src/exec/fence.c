/* Fences: signalled when a queue submission that carries them completes. */
#include "core/zf_core.h"
#include "exec/zf_exec.h"

#include <stdlib.h>

static zf_fence *zf_fence_from(ze_fence_handle_t handle) {
    return (zf_fence *)handle;
}

ze_result_t zfi_zeFenceCreate(ze_command_queue_handle_t hCommandQueue, const ze_fence_desc_t *desc,
                              ze_fence_handle_t *phFence) {
    zf_queue *queue = zf_queue_from(hCommandQueue);
    zf_fence *fence = calloc(1, sizeof *fence);
    if (fence == NULL)
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory for a fence");
    fence->queue = queue;
    fence->signaled = (desc->flags & ZE_FENCE_FLAG_SIGNALED) != 0;
    if (!zf_object_register(&fence->header, ZF_OBJ_ZE_FENCE, &queue->header)) {
        free(fence);
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory to register a fence");
    }
    *phFence = (ze_fence_handle_t)fence;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zeFenceDestroy(ze_fence_handle_t hFence) {
    zf_object_retire(&zf_fence_from(hFence)->header);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zeFenceHostSynchronize(ze_fence_handle_t hFence, uint64_t timeout) {
    zf_fence *fence = zf_fence_from(hFence);
    uint64_t signal_ns = 0;
    if (!zf_sync_await_flag(&fence->signaled, &fence->signal_ns, timeout, &signal_ns))
        return ZE_RESULT_NOT_READY;
    zf_clock_observe(zf_device_clock(fence->queue->device), signal_ns);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zeFenceQueryStatus(ze_fence_handle_t hFence) {
    return zfi_zeFenceHostSynchronize(hFence, 0);
}

ze_result_t zfi_zeFenceReset(ze_fence_handle_t hFence) {
    zf_sync_clear_flag(&zf_fence_from(hFence)->signaled);
    return ZE_RESULT_SUCCESS;
}
