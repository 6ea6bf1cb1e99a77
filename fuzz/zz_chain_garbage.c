/* Fuzz target: pNext chains whose pointers are garbage (docs/fuzzing.md, docs/chains.md). Byte 0 chooses a call (a
 * descriptor of a create or allocate function, or an output structure of a getter); then 16-byte records describe
 * where the chain goes: record 0 the head structure's pNext, record n the pNext of slot n - 1, each slot a 2 KiB
 * struct of its own whose stype (4 bytes) and fill byte come from its record. A link is NULL, the start of a slot, any
 * byte inside a slot (misaligned ones included), or a value of the record made impossible for a structure: below
 * 64 KiB, or with its top bit set (kernel and non-canonical addresses, 0xA5A5... among them). Every pointer the target
 * makes, and every word of a slot a walk can read as a pNext (ZZ_PAD), is mapped or refused by the walker's rule, so
 * a crash is the driver's. The head itself is well formed (its
 * stype the call expects, its other fields valid), so the calls reach the walk. Whatever a call creates is destroyed
 * again. */
#include "zz_common.h"

#include <string.h>

#define ZZ_SLOTS      8u
#define ZZ_SLOT_BYTES 2048u /* larger than any structure of the headers */
#define ZZ_RECORD     16u
#define ZZ_CALLS      24u

/* A structure linked at 8 bytes before a slot's end reads the next slot's stype and padding as its pNext: padding with
 * the top bit set makes that word a kernel address, which the walker refuses, whatever the stype. (So do the fill
 * bytes, read as a pointer: 8 equal bytes are 0 or above user space.) */
#define ZZ_PAD 0xA5A5A5A5u

typedef struct zz_header {
    uint32_t stype;
    uint32_t pad;
    void *pNext;
} zz_header;

/* One slot more than the chain uses: a structure written at the last byte of the last slot stays in the array. */
static _Alignas(64) uint8_t zz_arena[ZZ_SLOTS + 1][ZZ_SLOT_BYTES];

static uint64_t zz_read64(const uint8_t *bytes) {
    uint64_t value = 0;
    for (int i = 0; i < 8; i++)
        value |= (uint64_t)bytes[i] << (8 * i);
    return value;
}

/* The pointer a record's link names. */
static void *zz_link(const uint8_t *record) {
    uint8_t slot = record[5] % ZZ_SLOTS;
    uint64_t raw = zz_read64(record + 8);
    switch (record[4] % 5) {
    case 0:
        return NULL;
    case 1:
        return zz_arena[slot];
    case 2:
        return zz_arena[slot] + raw % ZZ_SLOT_BYTES;
    case 3:
        return (void *)(uintptr_t)(raw & 0xffffu); /* below 64 KiB: never mapped */
    default:
        return (void *)(uintptr_t)(raw | UINT64_C(0x8000000000000000));
    }
}

static const uint8_t *zz_record(const uint8_t *data, size_t size, uint32_t i) {
    static const uint8_t none[ZZ_RECORD];
    return (size_t)(i + 1) * ZZ_RECORD <= size ? data + (size_t)i * ZZ_RECORD : none;
}

/* Fills the slots and returns the head's pNext. */
static void *zz_build_chain(const uint8_t *data, size_t size) {
    memset(zz_arena[ZZ_SLOTS], 0, ZZ_SLOT_BYTES);
    for (uint32_t i = 0; i < ZZ_SLOTS; i++) {
        const uint8_t *r = zz_record(data, size, i + 1);
        memset(zz_arena[i], r[6], ZZ_SLOT_BYTES);
        zz_header header = {.stype = (uint32_t)r[0] | (uint32_t)r[1] << 8 | (uint32_t)r[2] << 16 | (uint32_t)r[3] << 24,
                            .pad = ZZ_PAD,
                            .pNext = zz_link(r)};
        memcpy(zz_arena[i], &header, sizeof header);
    }
    return zz_link(zz_record(data, size, 0));
}

/* ---- descriptors ---- */

static void zz_alloc(const zz_api *api, uint8_t which, void *next) {
    ze_device_mem_alloc_desc_t device = {ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, which == 1 ? next : NULL, 0, 0};
    ze_host_mem_alloc_desc_t host = {ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, which != 1 ? next : NULL, 0};
    void *ptr = NULL;
    ze_result_t result;
    if (which == 0)
        result = api->mem.pfnAllocHost(api->hcontext, &host, 4096, 64, &ptr);
    else if (which == 1)
        result = api->mem.pfnAllocDevice(api->hcontext, &device, 4096, 64, api->hdevice, &ptr);
    else
        result = api->mem.pfnAllocShared(api->hcontext, &device, &host, 4096, 64, api->hdevice, &ptr);
    if (result == ZE_RESULT_SUCCESS)
        api->mem.pfnFree(api->hcontext, ptr);
}

static ze_image_desc_t zz_image_desc(void *next) {
    ze_image_desc_t desc = {ZE_STRUCTURE_TYPE_IMAGE_DESC,
                            next,
                            0,
                            ZE_IMAGE_TYPE_2D,
                            {ZE_IMAGE_FORMAT_LAYOUT_8_8_8_8, ZE_IMAGE_FORMAT_TYPE_UINT, ZE_IMAGE_FORMAT_SWIZZLE_R,
                             ZE_IMAGE_FORMAT_SWIZZLE_G, ZE_IMAGE_FORMAT_SWIZZLE_B, ZE_IMAGE_FORMAT_SWIZZLE_A},
                            8,
                            8,
                            1,
                            1,
                            0};
    return desc;
}

static void zz_image(const zz_api *api, bool create, void *next) {
    ze_image_desc_t desc = zz_image_desc(next);
    if (!create) {
        ze_image_properties_t props = {ZE_STRUCTURE_TYPE_IMAGE_PROPERTIES, NULL, 0};
        api->image.pfnGetProperties(api->hdevice, &desc, &props);
        return;
    }
    ze_image_handle_t image = NULL;
    if (api->image.pfnCreate(api->hcontext, api->hdevice, &desc, &image) == ZE_RESULT_SUCCESS)
        api->image.pfnDestroy(image);
}

static void zz_execution(const zz_api *api, uint8_t which, void *next) {
    if (which == 0) {
        ze_event_pool_desc_t desc = {ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, next, ZE_EVENT_POOL_FLAG_HOST_VISIBLE, 4};
        ze_event_pool_handle_t pool = NULL;
        if (api->event_pool.pfnCreate(api->hcontext, &desc, 0, NULL, &pool) == ZE_RESULT_SUCCESS)
            api->event_pool.pfnDestroy(pool);
    } else if (which == 1) {
        ze_command_queue_desc_t desc = {.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, .pNext = next};
        ze_command_queue_handle_t queue = NULL;
        if (api->command_queue.pfnCreate(api->hcontext, api->hdevice, &desc, &queue) == ZE_RESULT_SUCCESS)
            api->command_queue.pfnDestroy(queue);
    } else if (which == 2) {
        ze_command_list_desc_t desc = {ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC, next, 0, 0};
        ze_command_list_handle_t list = NULL;
        if (api->command_list.pfnCreate(api->hcontext, api->hdevice, &desc, &list) == ZE_RESULT_SUCCESS)
            api->command_list.pfnDestroy(list);
    } else {
        ze_command_queue_desc_t desc = {.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, .pNext = next};
        ze_command_list_handle_t list = NULL;
        if (api->command_list.pfnCreateImmediate(api->hcontext, api->hdevice, &desc, &list) == ZE_RESULT_SUCCESS)
            api->command_list.pfnDestroy(list);
    }
}

static void zz_others(const zz_api *api, uint8_t which, void *next) {
    if (which == 0) {
        ze_sampler_desc_t desc = {ZE_STRUCTURE_TYPE_SAMPLER_DESC, next, ZE_SAMPLER_ADDRESS_MODE_NONE,
                                  ZE_SAMPLER_FILTER_MODE_NEAREST, 0};
        ze_sampler_handle_t sampler = NULL;
        if (api->sampler.pfnCreate(api->hcontext, api->hdevice, &desc, &sampler) == ZE_RESULT_SUCCESS)
            api->sampler.pfnDestroy(sampler);
    } else {
        ze_context_desc_t desc = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, next, 0};
        ze_context_handle_t context = NULL;
        if (api->context.pfnCreate(api->hdriver, &desc, &context) == ZE_RESULT_SUCCESS)
            api->context.pfnDestroy(context);
    }
}

/* ---- output structures ---- */

typedef union zz_out {
    zz_header header;
    uint8_t bytes[1024];
} zz_out;

static void zz_getter(const zz_api *api, uint8_t which, void *next) {
    static const uint32_t stypes[] = {
        ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES,
        ZE_STRUCTURE_TYPE_DEVICE_COMPUTE_PROPERTIES,
        ZE_STRUCTURE_TYPE_DEVICE_MODULE_PROPERTIES,
        ZE_STRUCTURE_TYPE_DEVICE_MEMORY_PROPERTIES,
        ZE_STRUCTURE_TYPE_DEVICE_MEMORY_ACCESS_PROPERTIES,
        ZE_STRUCTURE_TYPE_DEVICE_CACHE_PROPERTIES,
        ZE_STRUCTURE_TYPE_DEVICE_IMAGE_PROPERTIES,
        ZE_STRUCTURE_TYPE_DEVICE_EXTERNAL_MEMORY_PROPERTIES,
        ZE_STRUCTURE_TYPE_DEVICE_P2P_PROPERTIES,
        ZE_STRUCTURE_TYPE_COMMAND_QUEUE_GROUP_PROPERTIES,
        ZE_STRUCTURE_TYPE_DRIVER_PROPERTIES,
        ZE_STRUCTURE_TYPE_DRIVER_IPC_PROPERTIES,
    };
    static zz_out out;
    memset(&out, 0, sizeof out);
    out.header.stype = stypes[which % (sizeof stypes / sizeof stypes[0])];
    out.header.pNext = next;
    ze_device_handle_t d = api->hdevice;
    uint32_t one = 1;
    switch (which % (sizeof stypes / sizeof stypes[0])) {
    case 0:
        api->device.pfnGetProperties(d, (void *)&out);
        break;
    case 1:
        api->device.pfnGetComputeProperties(d, (void *)&out);
        break;
    case 2:
        api->device.pfnGetModuleProperties(d, (void *)&out);
        break;
    case 3:
        api->device.pfnGetMemoryProperties(d, &one, (void *)&out);
        break;
    case 4:
        api->device.pfnGetMemoryAccessProperties(d, (void *)&out);
        break;
    case 5:
        api->device.pfnGetCacheProperties(d, &one, (void *)&out);
        break;
    case 6:
        api->device.pfnGetImageProperties(d, (void *)&out);
        break;
    case 7:
        api->device.pfnGetExternalMemoryProperties(d, (void *)&out);
        break;
    case 8:
        api->device.pfnGetP2PProperties(d, d, (void *)&out);
        break;
    case 9:
        api->device.pfnGetCommandQueueGroupProperties(d, &one, (void *)&out);
        break;
    case 10:
        api->driver.pfnGetProperties(api->hdriver, (void *)&out);
        break;
    default:
        api->driver.pfnGetIpcProperties(api->hdriver, (void *)&out);
        break;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1)
        return 0;
    const zz_api *api = zz_api_get();
    uint8_t which = data[0] % ZZ_CALLS;
    void *next = zz_build_chain(data + 1, size - 1);
    if (which < 3)
        zz_alloc(api, which, next);
    else if (which < 5)
        zz_image(api, which == 3, next);
    else if (which < 9)
        zz_execution(api, (uint8_t)(which - 5), next);
    else if (which < 11)
        zz_others(api, (uint8_t)(which - 9), next);
    else
        zz_getter(api, (uint8_t)(which - 11), next);
    return 0;
}

#ifndef ZEFAKE_LIBFUZZER
int main(int argc, char **argv) {
    return zz_replay(argc, argv, LLVMFuzzerTestOneInput);
}
#endif
