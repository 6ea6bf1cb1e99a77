/* Fuzz target: IPC handles (docs/memory.md, docs/events.md, docs/fuzzing.md). Once per process the target exports a
 * device allocation (zeMemGetIpcHandle) and an IPC event pool (zeEventPoolGetIpcHandle); each input is XORed onto
 * those real handles: an input of zeros opens the real ones, a few changed bytes reach the token, id and nonce
 * checks of the exporting server, and any other handle is reachable too. Bytes 0-63 change the memory handle, 64-127
 * the event-pool handle, byte 128 chooses the ze_ipc_memory_flags_t of the open. Whatever opens is closed again. */
#include "zz_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct zz_exports {
    ze_ipc_mem_handle_t mem;
    ze_ipc_event_pool_handle_t pool;
} zz_exports;

static void zz_need(ze_result_t result, const char *what) {
    if (result != ZE_RESULT_SUCCESS) {
        fprintf(stderr, "fuzz target: %s failed (0x%x)\n", what, (unsigned)result);
        abort();
    }
}

static const zz_exports *zz_exported(const zz_api *api) {
    static zz_exports exports;
    static bool made;
    if (made)
        return &exports;
    ze_device_mem_alloc_desc_t mem_desc = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC};
    void *ptr = NULL;
    zz_need(api->mem.pfnAllocDevice(api->hcontext, &mem_desc, 4096, 64, api->hdevice, &ptr), "zeMemAllocDevice");
    zz_need(api->mem.pfnGetIpcHandle(api->hcontext, ptr, &exports.mem), "zeMemGetIpcHandle");
    ze_event_pool_desc_t pool_desc = {
        .stype = ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, .flags = ZE_EVENT_POOL_FLAG_IPC, .count = 4};
    ze_device_handle_t device = api->hdevice;
    ze_event_pool_handle_t pool = NULL;
    zz_need(api->event_pool.pfnCreate(api->hcontext, &pool_desc, 1, &device, &pool), "zeEventPoolCreate");
    zz_need(api->event_pool.pfnGetIpcHandle(pool, &exports.pool), "zeEventPoolGetIpcHandle");
    made = true;
    return &exports;
}

static void zz_xor(char *out, const uint8_t *data, size_t size, size_t from, size_t count) {
    for (size_t i = 0; i < count && from + i < size; i++)
        out[i] ^= (char)data[from + i];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const zz_api *api = zz_api_get();
    const zz_exports *exports = zz_exported(api);
    ze_ipc_mem_handle_t mem = exports->mem;
    ze_ipc_event_pool_handle_t pool = exports->pool;
    zz_xor(mem.data, data, size, 0, sizeof mem.data);
    zz_xor(pool.data, data, size, sizeof mem.data, sizeof pool.data);
    size_t flag_at = sizeof mem.data + sizeof pool.data;
    ze_ipc_memory_flags_t flags = flag_at < size ? data[flag_at] & 3u : 0;
    void *ptr = NULL;
    if (api->mem.pfnOpenIpcHandle(api->hcontext, api->hdevice, mem, flags, &ptr) == ZE_RESULT_SUCCESS)
        api->mem.pfnCloseIpcHandle(api->hcontext, ptr);
    ze_event_pool_handle_t opened = NULL;
    if (api->event_pool.pfnOpenIpcHandle(api->hcontext, pool, &opened) == ZE_RESULT_SUCCESS)
        api->event_pool.pfnCloseIpcHandle(opened);
    return 0;
}

#ifndef ZEFAKE_LIBFUZZER
int main(int argc, char **argv) {
    return zz_replay(argc, argv, LLVMFuzzerTestOneInput);
}
#endif
