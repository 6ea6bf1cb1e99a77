/* The mem_alloc stream: mem_alloc_begin/_end around every USM allocation, mem_release_begin/_end around every free,
 * each with a mem_alloc_data_t (mem_object_handle 0: USM has no memory object; guard_zone_size 0). The instance is
 * the call's correlation id. alloc_pointer is 0 at alloc_begin and after a failed allocation. The sizes of live
 * allocations are remembered so that the release notifications carry them too. */
#include "zx_emitter.h"
#include "zx_hooks.h"
#include "zx_util.h"

#include <pthread.h>

static pthread_mutex_t zx_mem_lock = PTHREAD_MUTEX_INITIALIZER;
static zx_map zx_mem_sizes; /* pointer -> size + 1 (map values must not be NULL) */

static void zx_mem_notify(const zx_call *call, uint16_t type, const void *pointer, size_t size) {
    const zx_ctx *ctx = call->ctx;
    if (!zx_wants(ctx, ZX_S_MEM, type))
        return;
    zx_mem_alloc_data data = {0, (uintptr_t)pointer, size, 0, NULL};
    zx_notify(ctx, ZX_S_MEM, type, NULL, NULL, call->id, &data);
}

static void zx_alloc_begin(zx_call *call, size_t size) {
    call->scratch[0] = size;
    zx_mem_notify(call, ZX_TP_MEM_ALLOC_BEGIN, NULL, size);
}

static void zx_alloc_end(zx_call *call, void **pointer_out) {
    size_t size = (size_t)call->scratch[0];
    void *pointer = call->result == ZE_RESULT_SUCCESS && pointer_out != NULL ? *pointer_out : NULL;
    if (pointer != NULL && call->ctx->listened[ZX_S_MEM]) {
        pthread_mutex_lock(&zx_mem_lock);
        zx_map_put(&zx_mem_sizes, (uint64_t)(uintptr_t)pointer, (void *)(uintptr_t)(size + 1));
        pthread_mutex_unlock(&zx_mem_lock);
    }
    zx_mem_notify(call, ZX_TP_MEM_ALLOC_END, pointer, size);
}

static size_t zx_size_of(const void *pointer) {
    pthread_mutex_lock(&zx_mem_lock);
    uintptr_t stored = (uintptr_t)zx_map_get(&zx_mem_sizes, (uint64_t)(uintptr_t)pointer);
    pthread_mutex_unlock(&zx_mem_lock);
    return stored != 0 ? (size_t)(stored - 1) : 0;
}

static void zx_release_begin(zx_call *call, const void *pointer) {
    call->scratch[0] = pointer != NULL ? zx_size_of(pointer) : 0;
    zx_mem_notify(call, ZX_TP_MEM_RELEASE_BEGIN, pointer, (size_t)call->scratch[0]);
}

static void zx_release_end(zx_call *call, const void *pointer) {
    if (call->result == ZE_RESULT_SUCCESS && pointer != NULL) {
        pthread_mutex_lock(&zx_mem_lock);
        zx_map_remove(&zx_mem_sizes, (uint64_t)(uintptr_t)pointer);
        pthread_mutex_unlock(&zx_mem_lock);
    }
    zx_mem_notify(call, ZX_TP_MEM_RELEASE_END, pointer, (size_t)call->scratch[0]);
}

void zx_hook_zeMemAllocHost_begin(ze_mem_alloc_host_params_t *params, zx_call *call) {
    zx_alloc_begin(call, *params->psize);
}

void zx_hook_zeMemAllocHost_end(ze_mem_alloc_host_params_t *params, zx_call *call) {
    zx_alloc_end(call, *params->ppptr);
}

void zx_hook_zeMemAllocDevice_begin(ze_mem_alloc_device_params_t *params, zx_call *call) {
    zx_alloc_begin(call, *params->psize);
}

void zx_hook_zeMemAllocDevice_end(ze_mem_alloc_device_params_t *params, zx_call *call) {
    zx_alloc_end(call, *params->ppptr);
}

void zx_hook_zeMemAllocShared_begin(ze_mem_alloc_shared_params_t *params, zx_call *call) {
    zx_alloc_begin(call, *params->psize);
}

void zx_hook_zeMemAllocShared_end(ze_mem_alloc_shared_params_t *params, zx_call *call) {
    zx_alloc_end(call, *params->ppptr);
}

void zx_hook_zeMemFree_begin(ze_mem_free_params_t *params, zx_call *call) {
    zx_release_begin(call, *params->pptr);
}

void zx_hook_zeMemFree_end(ze_mem_free_params_t *params, zx_call *call) {
    zx_release_end(call, *params->pptr);
}

void zx_hook_zeMemFreeExt_begin(ze_mem_free_ext_params_t *params, zx_call *call) {
    zx_release_begin(call, *params->pptr);
}

void zx_hook_zeMemFreeExt_end(ze_mem_free_ext_params_t *params, zx_call *call) {
    zx_release_end(call, *params->pptr);
}
