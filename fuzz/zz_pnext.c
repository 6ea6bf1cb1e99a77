/* Fuzz target: pNext chains of property getters (docs/fuzzing.md). Byte 0 of the input chooses a getter; then every
 * 8-byte record describes one struct of the chain, in a slot of its own (so that what the driver writes into one
 * struct never changes another): its stype (4 bytes, any value, those of the headers included), the slot its pNext
 * points to (0: NULL, else slot (n - 1) % ZZ_SLOTS, so chains may loop back or point to themselves) and a byte that
 * fills the rest of the struct with garbage. Slot 0 is the struct passed to the getter. The target uses only the
 * public API, so it holds whatever the driver's chain walk looks like inside. */
#include "zz_common.h"

#include <string.h>

#define ZZ_SLOTS      8u
#define ZZ_SLOT_BYTES 2048u /* larger than any property struct of the headers */
#define ZZ_RECORD     8u

typedef struct zz_header {
    uint32_t stype;
    uint32_t pad;
    void *pNext;
} zz_header;

static _Alignas(16) uint8_t zz_slots[ZZ_SLOTS][ZZ_SLOT_BYTES];

static void zz_build_chain(const uint8_t *data, size_t size) {
    for (uint32_t i = 0; i < ZZ_SLOTS; i++) {
        const uint8_t *r = data + (size_t)i * ZZ_RECORD;
        bool present = (size_t)(i + 1) * ZZ_RECORD <= size;
        memset(zz_slots[i], present ? r[5] : 0, ZZ_SLOT_BYTES);
        if (!present)
            continue;
        zz_header header = {.stype = (uint32_t)r[0] | (uint32_t)r[1] << 8 | (uint32_t)r[2] << 16 | (uint32_t)r[3] << 24,
                            .pNext = r[4] == 0 ? NULL : zz_slots[(r[4] - 1u) % ZZ_SLOTS]};
        memcpy(zz_slots[i], &header, sizeof header);
    }
}

static void zz_device_getter(const zz_api *api, uint8_t which, void *props) {
    ze_device_handle_t d = api->hdevice;
    uint32_t one = 1;
    switch (which) {
    case 0:
        api->device.pfnGetProperties(d, props);
        break;
    case 1:
        api->device.pfnGetComputeProperties(d, props);
        break;
    case 2:
        api->device.pfnGetModuleProperties(d, props);
        break;
    case 3:
        api->device.pfnGetMemoryProperties(d, &one, props);
        break;
    case 4:
        api->device.pfnGetMemoryAccessProperties(d, props);
        break;
    case 5:
        api->device.pfnGetCacheProperties(d, &one, props);
        break;
    case 6:
        api->device.pfnGetImageProperties(d, props);
        break;
    case 7:
        api->device.pfnGetExternalMemoryProperties(d, props);
        break;
    case 8:
        api->device.pfnGetP2PProperties(d, d, props);
        break;
    default:
        api->device.pfnGetCommandQueueGroupProperties(d, &one, props);
        break;
    }
}

/* Getters of other objects: the driver, and an allocation made once. */
static void zz_other_getter(const zz_api *api, uint8_t which, void *props) {
    static void *allocation;
    switch (which) {
    case 0:
        api->driver.pfnGetProperties(api->hdriver, props);
        break;
    case 1:
        api->driver.pfnGetIpcProperties(api->hdriver, props);
        break;
    default:
        if (allocation == NULL) {
            ze_host_mem_alloc_desc_t desc = {.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC};
            api->mem.pfnAllocHost(api->hcontext, &desc, 64, 64, &allocation);
        }
        ze_device_handle_t device = NULL;
        api->mem.pfnGetAllocProperties(api->hcontext, allocation, props, &device);
        break;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1)
        return 0;
    const zz_api *api = zz_api_get();
    uint8_t which = data[0] % 13;
    zz_build_chain(data + 1, size - 1);
    if (which < 10)
        zz_device_getter(api, which, zz_slots[0]);
    else
        zz_other_getter(api, (uint8_t)(which - 10), zz_slots[0]);
    return 0;
}

#ifndef ZEFAKE_LIBFUZZER
int main(int argc, char **argv) {
    return zz_replay(argc, argv, LLVMFuzzerTestOneInput);
}
#endif
