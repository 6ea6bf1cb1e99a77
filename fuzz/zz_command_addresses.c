/* Fuzz target: commands whose memory arguments are arbitrary host addresses (docs/fuzzing.md, docs/cost-model.md
 * "Faults"). Each 16-byte record of the input appends one command to a synchronous immediate list, which runs it at
 * once: a copy, a region copy, a fill, a global timestamp, a kernel timestamp query, a copy between an image and
 * memory, or a copy from the context. Its destination and source are each chosen by the record: an offset into a
 * device or host allocation (which may run past its end), into ordinary host memory, into a reserved range no page of
 * which is accessible, into read-only pages, an address below 64 KiB, one with its top bit set, or NULL; its size
 * goes up to 64 KiB. A command must either do its work or report a device fault: a crash is the driver's. Writes the
 * target allows land only in memory it owns (ordinary host memory is written within its own buffer), so whatever the
 * driver does right cannot damage the fuzzer. */
#include "zz_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define ZZ_RECORD     16u
#define ZZ_MAX_RECORD 16u /* commands per input */
#define ZZ_SPAN       (64u << 10)
#define ZZ_RESERVED   (1u << 20)

/* What the commands act on, made once for the process. */
typedef struct zz_targets {
    ze_command_list_handle_t list;
    void *device, *host; /* allocations of ZZ_SPAN bytes */
    uint8_t *plain;      /* ordinary host memory: 2 * ZZ_SPAN bytes, so an offset and a size each below ZZ_SPAN fit */
    uint8_t *reserved;   /* ZZ_RESERVED bytes without access */
    uint8_t *readonly;   /* 2 * ZZ_SPAN bytes, read-only */
    ze_image_handle_t image;
    ze_event_handle_t event; /* of a timestamp pool, signalled */
} zz_targets;

static void zz_require(bool ok, const char *what) {
    if (!ok) {
        fprintf(stderr, "zz_command_addresses: %s failed: nothing to fuzz\n", what);
        abort();
    }
}

static void zz_make_memory(const zz_api *api, zz_targets *t) {
    ze_device_mem_alloc_desc_t device = {ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, NULL, 0, 0};
    ze_host_mem_alloc_desc_t host = {ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, NULL, 0};
    zz_require(api->mem.pfnAllocDevice(api->hcontext, &device, ZZ_SPAN, 64, api->hdevice, &t->device) == 0,
               "zeMemAllocDevice");
    zz_require(api->mem.pfnAllocHost(api->hcontext, &host, ZZ_SPAN, 64, &t->host) == 0, "zeMemAllocHost");
    t->plain = calloc(2, ZZ_SPAN);
    void *reserved = mmap(NULL, ZZ_RESERVED, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    void *readonly = mmap(NULL, 2 * ZZ_SPAN, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    zz_require(t->plain != NULL && reserved != MAP_FAILED && readonly != MAP_FAILED, "host memory");
    t->reserved = reserved;
    t->readonly = readonly;
}

static void zz_make_objects(const zz_api *api, zz_targets *t) {
    ze_command_queue_desc_t queue = {.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC,
                                     .mode = ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS};
    zz_require(api->command_list.pfnCreateImmediate(api->hcontext, api->hdevice, &queue, &t->list) == 0,
               "zeCommandListCreateImmediate");
    ze_image_desc_t image = {ZE_STRUCTURE_TYPE_IMAGE_DESC,
                             NULL,
                             0,
                             ZE_IMAGE_TYPE_2D,
                             {ZE_IMAGE_FORMAT_LAYOUT_8_8_8_8, ZE_IMAGE_FORMAT_TYPE_UINT, ZE_IMAGE_FORMAT_SWIZZLE_R,
                              ZE_IMAGE_FORMAT_SWIZZLE_G, ZE_IMAGE_FORMAT_SWIZZLE_B, ZE_IMAGE_FORMAT_SWIZZLE_A},
                             16,
                             16,
                             1,
                             1,
                             0};
    zz_require(api->image.pfnCreate(api->hcontext, api->hdevice, &image, &t->image) == 0, "zeImageCreate");
    ze_event_pool_desc_t pool_desc = {ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, NULL,
                                      ZE_EVENT_POOL_FLAG_HOST_VISIBLE | ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP, 1};
    ze_event_pool_handle_t pool = NULL;
    ze_event_desc_t event = {ZE_STRUCTURE_TYPE_EVENT_DESC, NULL, 0, 0, 0};
    zz_require(api->event_pool.pfnCreate(api->hcontext, &pool_desc, 1, (ze_device_handle_t *)&api->hdevice, &pool) ==
                       0 &&
                   api->event.pfnCreate(pool, &event, &t->event) == 0,
               "a timestamp event");
    api->command_list.pfnAppendSignalEvent(t->list, t->event);
}

static const zz_targets *zz_targets_get(const zz_api *api) {
    static zz_targets targets;
    static bool made;
    if (!made) {
        zz_make_memory(api, &targets);
        zz_make_objects(api, &targets);
        made = true;
    }
    return &targets;
}

/* The address a record's choice names: `offset` below 2^32 from the input. */
static void *zz_address(const zz_targets *t, uint8_t choice, uint32_t offset) {
    switch (choice % 8) {
    case 0:
        return (uint8_t *)t->device + offset % (ZZ_SPAN + 256); /* may run past the allocation */
    case 1:
        return (uint8_t *)t->host + offset % (ZZ_SPAN + 256);
    case 2:
        return t->plain + offset % ZZ_SPAN;
    case 3:
        return t->reserved + offset % ZZ_RESERVED;
    case 4:
        return t->readonly + offset % ZZ_SPAN;
    case 5:
        return (void *)(uintptr_t)(offset & 0xffffu); /* below 64 KiB: never mapped */
    case 6:
        return (void *)(uintptr_t)((uint64_t)offset << 16 | UINT64_C(0x8000000000000000));
    default:
        return NULL;
    }
}

typedef struct zz_command {
    uint8_t op;
    void *dst;
    void *src;
    uint32_t size; /* at most ZZ_SPAN */
} zz_command;

static void zz_region_copy(const zz_targets *t, const zz_api *api, const zz_command *c) {
    uint32_t width = 1 + c->size % 64, height = 1 + (c->size >> 6) % 64;
    ze_copy_region_t region = {0, 0, 0, width, height, 1};
    api->command_list.pfnAppendMemoryCopyRegion(t->list, c->dst, &region, width, 0, c->src, &region, width, 0, NULL, 0,
                                                NULL);
}

static void zz_image_copy(const zz_targets *t, const zz_api *api, const zz_command *c, bool to_memory) {
    ze_image_region_t region = {0, 0, 0, 1 + c->size % 16, 1 + (c->size >> 4) % 16, 1};
    if (to_memory)
        api->command_list.pfnAppendImageCopyToMemory(t->list, c->dst, t->image, &region, NULL, 0, NULL);
    else
        api->command_list.pfnAppendImageCopyFromMemory(t->list, t->image, c->src, &region, NULL, 0, NULL);
}

static void zz_run(const zz_targets *t, const zz_api *api, const zz_command *c) {
    static const uint8_t pattern[4] = {0xde, 0xad, 0xbe, 0xef};
    ze_command_list_dditable_t l = api->command_list;
    ze_event_handle_t event = t->event;
    switch (c->op % 8) {
    case 0:
        l.pfnAppendMemoryCopy(t->list, c->dst, c->src, c->size, NULL, 0, NULL);
        break;
    case 1:
        zz_region_copy(t, api, c);
        break;
    case 2:
        l.pfnAppendMemoryFill(t->list, c->dst, pattern, 1u << (c->size % 3), c->size & ~3u, NULL, 0, NULL);
        break;
    case 3:
        l.pfnAppendWriteGlobalTimestamp(t->list, c->dst, NULL, 0, NULL);
        break;
    case 4:
        l.pfnAppendQueryKernelTimestamps(t->list, 1, &event, c->dst, NULL, NULL, 0, NULL);
        break;
    case 5:
    case 6:
        zz_image_copy(t, api, c, c->op % 8 == 5);
        break;
    default:
        l.pfnAppendMemoryCopyFromContext(t->list, c->dst, api->hcontext, c->src, c->size, NULL, 0, NULL);
        break;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const zz_api *api = zz_api_get();
    const zz_targets *t = zz_targets_get(api);
    zz_bytes bytes = {data, size, 0};
    for (uint32_t i = 0; i < ZZ_MAX_RECORD && bytes.at + ZZ_RECORD <= size; i++) {
        uint8_t op = zz_take8(&bytes), dst = zz_take8(&bytes), src = zz_take8(&bytes);
        (void)zz_take8(&bytes);
        uint32_t length = zz_take32(&bytes), dst_offset = zz_take32(&bytes), src_offset = zz_take32(&bytes);
        /* ordinary host memory is written only inside its own buffer, whatever the driver decides */
        zz_command c = {op, zz_address(t, dst, dst_offset), zz_address(t, src, src_offset), length % (ZZ_SPAN + 1)};
        zz_run(t, api, &c);
    }
    return 0;
}

#ifndef ZEFAKE_LIBFUZZER
int main(int argc, char **argv) {
    return zz_replay(argc, argv, LLVMFuzzerTestOneInput);
}
#endif
