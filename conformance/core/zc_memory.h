/* Helpers shared by the memory conformance tests (test_memory.c, test_memory_ipc.c): the kinds of allocation and
 * how to make one, the byte pattern written and checked, the device limits the tests derive sizes from, and a
 * context of its own. */
#ifndef ZC_MEMORY_H
#define ZC_MEMORY_H

#include "zc_harness.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

static const ze_host_mem_alloc_desc_t zc_host_desc = {ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, NULL, 0};
static const ze_device_mem_alloc_desc_t zc_device_desc = {ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, NULL, 0, 0};
static const ze_context_desc_t zc_context_desc = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0};

typedef enum zc_kind { ZC_HOST, ZC_DEVICE, ZC_SHARED, ZC_SHARED_UNBOUND, ZC_KINDS } zc_kind;

static const char *const zc_kind_names[ZC_KINDS] = {"host", "device", "shared", "shared without device"};

static inline ze_result_t zc_alloc(ze_context_handle_t context, zc_kind kind, ze_device_handle_t device, size_t size,
                                   size_t alignment, void **ptr) {
    switch (kind) {
    case ZC_HOST:
        return zeMemAllocHost(context, &zc_host_desc, size, alignment, ptr);
    case ZC_DEVICE:
        return zeMemAllocDevice(context, &zc_device_desc, size, alignment, device, ptr);
    case ZC_SHARED:
        return zeMemAllocShared(context, &zc_device_desc, &zc_host_desc, size, alignment, device, ptr);
    default:
        return zeMemAllocShared(context, &zc_device_desc, &zc_host_desc, size, alignment, NULL, ptr);
    }
}

static inline ze_memory_type_t zc_kind_type(zc_kind kind) {
    if (kind == ZC_HOST)
        return ZE_MEMORY_TYPE_HOST;
    return kind == ZC_DEVICE ? ZE_MEMORY_TYPE_DEVICE : ZE_MEMORY_TYPE_SHARED;
}

/* Device allocations are host memory only on the fake. */
static inline bool zc_host_can_touch(zc_kind kind) {
    return kind != ZC_DEVICE || zc_driver_is_fake();
}

static inline uint8_t zc_pattern_byte(uint32_t seed, size_t i) {
    return (uint8_t)(seed * 131u + i * 7u + (i >> 9));
}

static inline void zc_fill(void *ptr, size_t size, uint32_t seed) {
    uint8_t *bytes = ptr;
    for (size_t i = 0; i < size; i++)
        bytes[i] = zc_pattern_byte(seed, i);
}

/* The offset of the first byte that differs from the pattern, or size. */
static inline size_t zc_mismatch(const void *ptr, size_t size, uint32_t seed) {
    const uint8_t *bytes = ptr;
    for (size_t i = 0; i < size; i++) {
        if (bytes[i] != zc_pattern_byte(seed, i))
            return i;
    }
    return size;
}

static inline void zc_assert_pattern(const void *ptr, size_t size, uint32_t seed, const char *what) {
    size_t at = zc_mismatch(ptr, size, seed);
    if (at != size)
        fail_msg("%s: byte %zu of %zu differs from the pattern written", what, at, size);
}

static inline ze_device_properties_t zc_device_properties(ze_device_handle_t device) {
    ze_device_properties_t properties = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
    zc_assert_success(zeDeviceGetProperties(device, &properties));
    return properties;
}

static inline uint64_t zc_max_alloc(ze_device_handle_t device) {
    return zc_device_properties(device).maxMemAllocSize;
}

/* The sum of the device's memories' totalSize. */
static inline uint64_t zc_total_memory(ze_device_handle_t device) {
    uint32_t n = 0;
    zc_assert_success(zeDeviceGetMemoryProperties(device, &n, NULL));
    ze_device_memory_properties_t memories[8];
    assert_true(n > 0 && n <= ZC_COUNT(memories));
    for (uint32_t i = 0; i < n; i++)
        memories[i] = (ze_device_memory_properties_t){.stype = ZE_STRUCTURE_TYPE_DEVICE_MEMORY_PROPERTIES};
    zc_assert_success(zeDeviceGetMemoryProperties(device, &n, memories));
    uint64_t total = 0;
    for (uint32_t i = 0; i < n; i++)
        total += memories[i].totalSize;
    return total;
}

static inline ze_memory_allocation_properties_t zc_alloc_properties(ze_context_handle_t context, const void *ptr,
                                                                    ze_device_handle_t *device) {
    ze_memory_allocation_properties_t properties = {.stype = ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES};
    zc_assert_success(zeMemGetAllocProperties(context, ptr, &properties, device));
    return properties;
}

static inline ze_context_handle_t zc_new_context(void) {
    ze_context_handle_t context = NULL;
    zc_assert_success(zeContextCreate(zc_sys()->driver, &zc_context_desc, &context));
    return context;
}

/* Runs zeMemFreeExt; skips the test on a driver without it (it is a 1.3 extension). */
static inline ze_result_t zc_free_ext(ze_context_handle_t context, const ze_memory_free_ext_desc_t *desc, void *ptr) {
    ze_result_t result = zeMemFreeExt(context, desc, ptr);
    if (result == ZE_RESULT_ERROR_UNSUPPORTED_FEATURE && !zc_driver_is_fake())
        skip();
    return result;
}

#endif
