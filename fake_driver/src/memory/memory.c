/* Unified shared memory: zeMemAllocHost/Device/Shared, zeMemFree(Ext), zeMemGetAllocProperties,
 * zeMemGetAddressRange and residency. Allocations are memfd-backed host memory (memory_block.c, memory_arena.c), found
 * by address through the index (memory_index.c) and charged to the device memory of the scenario (memory_account.c).
 * docs/memory.md explains the choices made where the specification leaves them open. */
#include "core/zf_chain.h"
#include "core/zf_core.h"
#include "memory/memory_internal.h"

#include <stdint.h>

/* One allocation request, once the descriptors are read. */
typedef struct zf_alloc_request {
    zf_context *context;
    zf_device *device; /* the owner (device), the associated device (shared, may be NULL), or NULL (host) */
    ze_memory_type_t type;
    size_t size;
    size_t alignment;
    bool relaxed_size;            /* ZE_RELAXED_ALLOCATION_LIMITS_EXP_FLAG_MAX_SIZE was given */
    zf_external_request external; /* export types and the descriptor to import (memory_external.c) */
} zf_alloc_request;

static ze_result_t zf_check_device_in_context(const zf_context *context, const zf_device *device, const char *arg) {
    if (zf_context_has_device(context, device))
        return ZE_RESULT_SUCCESS;
    return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                   "%s is not a device of the context (nor a sub-device of one of its devices)", arg);
}

static ze_result_t zf_check_stype(ze_structure_type_t got, ze_structure_type_t want, const char *want_name,
                                  const char *arg) {
    if (got == want)
        return ZE_RESULT_SUCCESS;
    return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "%s->stype is 0x%x, not %s (0x%x)", arg, (unsigned)got, want_name,
                   (unsigned)want);
}

static ze_result_t zf_read_relaxed_limits(const ze_relaxed_allocation_limits_exp_desc_t *desc, const char *arg,
                                          zf_alloc_request *request) {
    if (desc->flags > ZE_RELAXED_ALLOCATION_LIMITS_EXP_FLAG_MAX_SIZE)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ENUMERATION,
                       "%s chain: ze_relaxed_allocation_limits_exp_desc_t.flags 0x%x has undefined bits", arg,
                       (unsigned)desc->flags);
    if (desc->flags & ZE_RELAXED_ALLOCATION_LIMITS_EXP_FLAG_MAX_SIZE)
        request->relaxed_size = true;
    return ZE_RESULT_SUCCESS;
}

/* ZE_extension_memory_compression_hints: a hint with exactly one of its two flags; the memory is never compressed. */
ze_result_t zf_memory_check_compression_hints(const ze_memory_compression_hints_ext_desc_t *desc, const char *arg) {
    const ze_memory_compression_hints_ext_flags_t both =
        ZE_MEMORY_COMPRESSION_HINTS_EXT_FLAG_COMPRESSED | ZE_MEMORY_COMPRESSION_HINTS_EXT_FLAG_UNCOMPRESSED;
    if (desc->flags & ~both)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ENUMERATION,
                       "%s chain: ze_memory_compression_hints_ext_desc_t.flags 0x%x has undefined bits", arg,
                       (unsigned)desc->flags);
    if (desc->flags == both)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                       "%s chain: ze_memory_compression_hints_ext_desc_t asks for compressed and uncompressed", arg);
    return ZE_RESULT_SUCCESS;
}

/* One extension structure of an allocation descriptor's chain. Known ones are honoured or refused; unknown ones are
 * skipped, as extensions are meant to be. */
static ze_result_t zf_read_alloc_extension(const ze_base_desc_t *ext, const char *arg, zf_alloc_request *request) {
    switch (ext->stype) {
    case ZE_STRUCTURE_TYPE_RELAXED_ALLOCATION_LIMITS_EXP_DESC:
        return zf_read_relaxed_limits((const ze_relaxed_allocation_limits_exp_desc_t *)ext, arg, request);
    case ZE_STRUCTURE_TYPE_EXTERNAL_MEMORY_IMPORT_FD:
    case ZE_STRUCTURE_TYPE_EXTERNAL_MEMORY_IMPORT_WIN32:
    case ZE_STRUCTURE_TYPE_EXTERNAL_MEMORY_EXPORT_DESC:
        /* The specification lets device allocations (and images) import and export, nothing else. */
        return zf_external_read(ext, arg, request->type == ZE_MEMORY_TYPE_DEVICE, &request->external);
    case ZE_STRUCTURE_TYPE_MEMORY_COMPRESSION_HINTS_EXT_DESC:
        return zf_memory_check_compression_hints((const ze_memory_compression_hints_ext_desc_t *)ext, arg);
    default:
        zf_log(ZF_LOG_DEBUG, "%s: %s chain: ignoring extension structure 0x%x", zf_current_api_name(), arg,
               (unsigned)ext->stype);
        return ZE_RESULT_SUCCESS;
    }
}

static ze_result_t zf_read_alloc_chain(const void *chain, const char *arg, zf_alloc_request *request) {
    ze_result_t result = zf_chain_check(chain, arg);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    zf_chain_foreach(ext, chain) {
        result = zf_read_alloc_extension(ext, arg, request);
        if (result != ZE_RESULT_SUCCESS)
            return result;
    }
    return ZE_RESULT_SUCCESS;
}

static ze_result_t zf_read_device_desc(const ze_device_mem_alloc_desc_t *desc, zf_alloc_request *request) {
    ze_result_t result = zf_check_stype(desc->stype, ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC,
                                        "ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC", "device_desc");
    if (result != ZE_RESULT_SUCCESS)
        return result;
    if (request->device != NULL && desc->ordinal >= request->device->desc->num_memories) {
        if (zf_strict())
            return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                           "device_desc->ordinal %u: the device has %u memories (zeDeviceGetMemoryProperties)",
                           desc->ordinal, request->device->desc->num_memories);
        /* Intel's driver does not read the ordinal; the memory is the device's first (docs/tolerances.md). */
        zf_tolerate("ordinal must be less than the count returned from zeDeviceGetMemoryProperties",
                    "allocated from memory ordinal 0");
    }
    return zf_read_alloc_chain(desc->pNext, "device_desc", request);
}

static ze_result_t zf_read_host_desc(const ze_host_mem_alloc_desc_t *desc, zf_alloc_request *request) {
    ze_result_t result = zf_check_stype(desc->stype, ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC,
                                        "ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC", "host_desc");
    if (result != ZE_RESULT_SUCCESS)
        return result;
    return zf_read_alloc_chain(desc->pNext, "host_desc", request);
}

/* The largest allocation allowed: the device's maxMemAllocSize, or for memory not tied to a device the smallest
 * among the context's devices (every one of them may access it). */
static uint64_t zf_max_alloc_size(const zf_alloc_request *request) {
    if (request->device != NULL)
        return request->device->properties.maxMemAllocSize;
    uint64_t limit = UINT64_MAX;
    for (uint32_t i = 0; i < request->context->num_devices; i++) {
        uint64_t device_limit = request->context->devices[i]->properties.maxMemAllocSize;
        if (device_limit < limit)
            limit = device_limit;
    }
    return limit;
}

static ze_result_t zf_check_limits(const zf_alloc_request *request) {
    uint64_t limit = zf_max_alloc_size(request);
    if (!request->relaxed_size && (uint64_t)request->size > limit)
        return zf_fail(ZE_RESULT_ERROR_UNSUPPORTED_SIZE,
                       "size %zu exceeds maxMemAllocSize %llu (ze_relaxed_allocation_limits_exp_desc_t lifts it)",
                       request->size, (unsigned long long)limit);
    if (request->alignment > ZF_MEMORY_MAX_ALIGNMENT)
        return zf_fail(ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT, "alignment %zu is above zefake's limit of %zu",
                       request->alignment, ZF_MEMORY_MAX_ALIGNMENT);
    return ZE_RESULT_SUCCESS;
}

static size_t zf_page_size_for(const zf_alloc_request *request) {
    return request->device != NULL ? ZF_MEMORY_DEVICE_PAGE_SIZE : zf_host_page_size();
}

static ze_result_t zf_alloc_publish(const zf_alloc_request *request, zf_mem_block *block, void **pptr);

/* Memory imported from a descriptor is the exporter's: nothing is charged here. */
static ze_result_t zf_alloc_imported(const zf_alloc_request *request, void **pptr) {
    zf_mem_block *block = NULL;
    ze_result_t result =
        zf_external_import_block(request->external.import_fd, request->size, request->alignment, &block);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    block->page_size = zf_page_size_for(request);
    return zf_alloc_publish(request, block, pptr);
}

static ze_result_t zf_alloc(const zf_alloc_request *request, void **pptr) {
    ze_result_t result = zf_check_limits(request);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    if (request->external.import_fd >= 0)
        return zf_alloc_imported(request, pptr);
    zf_mem_charge charge = {0};
    if (request->device != NULL) {
        result = zf_account_charge(request->device, request->size, &charge);
        if (result != ZE_RESULT_SUCCESS)
            return result;
    }
    zf_mem_block *block = NULL;
    /* Memory exported as a file descriptor must start its file: it gets one of its own, other memory shares arenas. */
    bool shareable = request->external.export_types == 0;
    result = zf_block_create(request->size, request->alignment, zf_page_size_for(request), shareable, &block);
    if (result != ZE_RESULT_SUCCESS) {
        zf_account_uncharge(&charge);
        return result;
    }
    block->charge = charge; /* from now on the block returns it when it goes */
    return zf_alloc_publish(request, block, pptr);
}

static ze_result_t zf_alloc_publish(const zf_alloc_request *request, zf_mem_block *block, void **pptr) {
    block->export_types = request->external.export_types;
    block->info.context = request->context;
    block->info.device = request->device;
    block->info.type = request->type;
    block->info.id = zf_index_next_id();
    zf_index_insert(block);
    *pptr = block->info.base;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zeMemAllocHost(ze_context_handle_t hContext, const ze_host_mem_alloc_desc_t *host_desc, size_t size,
                               size_t alignment, void **pptr) {
    zf_alloc_request request = {zf_context_from(hContext), NULL, ZE_MEMORY_TYPE_HOST, size, alignment, false, {0, -1}};
    ze_result_t result = zf_read_host_desc(host_desc, &request);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    return zf_alloc(&request, pptr);
}

ze_result_t zfi_zeMemAllocDevice(ze_context_handle_t hContext, const ze_device_mem_alloc_desc_t *device_desc,
                                 size_t size, size_t alignment, ze_device_handle_t hDevice, void **pptr) {
    zf_alloc_request request = {
        zf_context_from(hContext), zf_device_from(hDevice), ZE_MEMORY_TYPE_DEVICE, size, alignment, false, {0, -1}};
    ze_result_t result = zf_check_device_in_context(request.context, request.device, "hDevice");
    if (result == ZE_RESULT_SUCCESS)
        result = zf_read_device_desc(device_desc, &request);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    return zf_alloc(&request, pptr);
}

ze_result_t zfi_zeMemAllocShared(ze_context_handle_t hContext, const ze_device_mem_alloc_desc_t *device_desc,
                                 const ze_host_mem_alloc_desc_t *host_desc, size_t size, size_t alignment,
                                 ze_device_handle_t hDevice, void **pptr) {
    zf_alloc_request request = {
        zf_context_from(hContext), zf_device_from(hDevice), ZE_MEMORY_TYPE_SHARED, size, alignment, false, {0, -1}};
    ze_result_t result = ZE_RESULT_SUCCESS;
    if (request.device != NULL)
        result = zf_check_device_in_context(request.context, request.device, "hDevice");
    if (result == ZE_RESULT_SUCCESS)
        result = zf_read_device_desc(device_desc, &request);
    if (result == ZE_RESULT_SUCCESS)
        result = zf_read_host_desc(host_desc, &request);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    return zf_alloc(&request, pptr);
}

/* How a free treats memory that submitted commands still use (docs/memory.md, "Freeing memory in use"). */
typedef enum zf_free_policy {
    ZF_FREE_PLAIN,    /* zeMemFree, or the policy 0: the device must not be using it */
    ZF_FREE_BLOCKING, /* waits for the commands */
    ZF_FREE_DEFER,    /* frees it after them */
} zf_free_policy;

static ze_result_t zf_free(zf_context *context, void *ptr, zf_free_policy policy) {
    const char *why = NULL;
    zf_mem_block *block = zf_index_remove_base(context, ptr, false, &why);
    if (block == NULL)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "ptr %p cannot be freed: %s", ptr, why);
    bool used = zf_block_retire(block, policy == ZF_FREE_BLOCKING);
    /* Intel's driver frees memory its engines still use once they are done with it; the headers list no result to
     * refuse it with. */
    if (used && policy == ZF_FREE_PLAIN)
        zf_tolerate_unrefusable("the application must ensure the device is not currently referencing the memory "
                                "before it is freed",
                                "a submitted command still uses it",
                                "its pages stay mapped until the commands using it complete, then it is freed");
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zeMemFree(ze_context_handle_t hContext, void *ptr) {
    return zf_free(zf_context_from(hContext), ptr, ZF_FREE_PLAIN);
}

ze_result_t zfi_zeMemFreeExt(ze_context_handle_t hContext, const ze_memory_free_ext_desc_t *pMemFreeDesc, void *ptr) {
    /* Intel's driver never reads the stype: it frees by the freePolicy field (docs/tolerances.md). */
    if (pMemFreeDesc->stype != ZE_STRUCTURE_TYPE_MEMORY_FREE_EXT_DESC && !zf_strict()) {
        zf_tolerate("stype is the type of this structure", "freed by the descriptor's freePolicy");
    } else {
        ze_result_t result = zf_check_stype(pMemFreeDesc->stype, ZE_STRUCTURE_TYPE_MEMORY_FREE_EXT_DESC,
                                            "ZE_STRUCTURE_TYPE_MEMORY_FREE_EXT_DESC", "pMemFreeDesc");
        if (result != ZE_RESULT_SUCCESS)
            return result;
    }
    const ze_driver_memory_free_policy_ext_flags_t policy = pMemFreeDesc->freePolicy;
    if (policy ==
        (ZE_DRIVER_MEMORY_FREE_POLICY_EXT_FLAG_BLOCKING_FREE | ZE_DRIVER_MEMORY_FREE_POLICY_EXT_FLAG_DEFER_FREE))
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                       "pMemFreeDesc->freePolicy 0x%x names two policies; a free has one (0, blocking or defer)",
                       (unsigned)policy);
    /* Every free detaches the allocation now; the blocking policy waits for the submitted commands using it, the
     * others unmap it when the last of them completes. */
    zf_free_policy how = policy == ZE_DRIVER_MEMORY_FREE_POLICY_EXT_FLAG_BLOCKING_FREE ? ZF_FREE_BLOCKING
                         : policy == ZE_DRIVER_MEMORY_FREE_POLICY_EXT_FLAG_DEFER_FREE  ? ZF_FREE_DEFER
                                                                                       : ZF_FREE_PLAIN;
    return zf_free(zf_context_from(hContext), ptr, how);
}

/* The allocation an export request of zeMemGetAllocProperties names. */
typedef struct zf_export_source {
    zf_context *context;
    const void *ptr;
} zf_export_source;

static ze_result_t zf_export_allocation(ze_external_memory_export_fd_t *request, const void *source) {
    const zf_export_source *from = source;
    return zf_external_export(from->context, from->ptr, request);
}

/* Output extensions of zeMemGetAllocProperties: an export as a file descriptor (of an allocation made exportable);
 * others are left untouched. Exports act, so the whole chain is checked before the first: a refused call makes no
 * descriptor. */
static ze_result_t zf_read_properties_chain(zf_context *context, const void *ptr, void *chain) {
    ze_result_t result = zf_chain_check(chain, "pMemAllocProperties");
    if (result != ZE_RESULT_SUCCESS)
        return result;
    if (zf_chain_find(chain, ZE_STRUCTURE_TYPE_EXTERNAL_MEMORY_EXPORT_WIN32) != NULL)
        return zf_fail(ZE_RESULT_ERROR_UNSUPPORTED_FEATURE,
                       "pMemAllocProperties chain: Windows handles cannot be exported on Linux");
    const zf_export_source source = {context, ptr};
    return zf_chain_export_fds(chain, zf_export_allocation, &source);
}

ze_result_t zfi_zeMemGetAllocProperties(ze_context_handle_t hContext, const void *ptr,
                                        ze_memory_allocation_properties_t *pMemAllocProperties,
                                        ze_device_handle_t *phDevice) {
    void *chain =
        zf_out_chain(pMemAllocProperties, "pMemAllocProperties", ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES);
    ze_result_t result = zf_read_properties_chain(zf_context_from(hContext), ptr, chain);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    zf_allocation info;
    zf_mem_block *block = zf_memory_hold(zf_context_from(hContext), ptr, 1, &info);
    /* A pointer that is not an allocation of this context is not an error: its type is unknown. */
    pMemAllocProperties->type = block != NULL ? info.type : ZE_MEMORY_TYPE_UNKNOWN;
    pMemAllocProperties->id = block != NULL ? info.id : 0;
    pMemAllocProperties->pageSize = block != NULL ? block->page_size : 0;
    if (phDevice != NULL)
        *phDevice = block != NULL ? (ze_device_handle_t)info.device : NULL;
    zf_memory_release(block);
    return ZE_RESULT_SUCCESS;
}

#if ZF_L0_AT_LEAST(7)
/* Atomic access attributes of shared allocations: the engine performs every atomic on every memory, from the device,
 * the host or both at once (they are host atomics either way), so each attribute is supported: they are kept per
 * allocation and answered back. A flag and its negation at once contradict each other. */
static ze_result_t zf_check_atomic_attr(ze_memory_atomic_attr_exp_flags_t attr) {
    const ze_memory_atomic_attr_exp_flags_t pairs[][2] = {
        {ZE_MEMORY_ATOMIC_ATTR_EXP_FLAG_NO_HOST_ATOMICS, ZE_MEMORY_ATOMIC_ATTR_EXP_FLAG_HOST_ATOMICS},
        {ZE_MEMORY_ATOMIC_ATTR_EXP_FLAG_NO_DEVICE_ATOMICS, ZE_MEMORY_ATOMIC_ATTR_EXP_FLAG_DEVICE_ATOMICS},
        {ZE_MEMORY_ATOMIC_ATTR_EXP_FLAG_NO_SYSTEM_ATOMICS, ZE_MEMORY_ATOMIC_ATTR_EXP_FLAG_SYSTEM_ATOMICS},
    };
    const ze_memory_atomic_attr_exp_flags_t allowing = ZE_MEMORY_ATOMIC_ATTR_EXP_FLAG_HOST_ATOMICS |
                                                       ZE_MEMORY_ATOMIC_ATTR_EXP_FLAG_DEVICE_ATOMICS |
                                                       ZE_MEMORY_ATOMIC_ATTR_EXP_FLAG_SYSTEM_ATOMICS;
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
        if ((attr & pairs[i][0]) && (attr & pairs[i][1]))
            return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "attr 0x%x both forbids and allows the same atomics",
                           (unsigned)attr);
    if ((attr & ZE_MEMORY_ATOMIC_ATTR_EXP_FLAG_NO_ATOMICS) && (attr & allowing))
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "attr 0x%x: NO_ATOMICS with flags that allow atomics",
                       (unsigned)attr);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t zf_atomic_attr(ze_context_handle_t hContext, ze_device_handle_t hDevice, const void *ptr,
                                  size_t size, uint32_t *attr, bool set) {
    zf_context *context = zf_context_from(hContext);
    ze_result_t result = zf_check_device_in_context(context, zf_device_from(hDevice), "hDevice");
    if (result != ZE_RESULT_SUCCESS)
        return result;
    const char *why = zf_index_atomic_attr(context, ptr, size > 0 ? size : 1, attr, set);
    if (why != NULL)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "ptr %p, size %zu: %s", ptr, size, why);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zeMemSetAtomicAccessAttributeExp(ze_context_handle_t hContext, ze_device_handle_t hDevice,
                                                 const void *ptr, size_t size, ze_memory_atomic_attr_exp_flags_t attr) {
    ze_result_t result = zf_check_atomic_attr(attr);
    uint32_t value = attr;
    return result != ZE_RESULT_SUCCESS ? result : zf_atomic_attr(hContext, hDevice, ptr, size, &value, true);
}

ze_result_t zfi_zeMemGetAtomicAccessAttributeExp(ze_context_handle_t hContext, ze_device_handle_t hDevice,
                                                 const void *ptr, size_t size,
                                                 ze_memory_atomic_attr_exp_flags_t *pAttr) {
    uint32_t value = 0;
    ze_result_t result = zf_atomic_attr(hContext, hDevice, ptr, size, &value, false);
    if (result == ZE_RESULT_SUCCESS)
        *pAttr = value;
    return result;
}
#endif

#if ZF_L0_AT_LEAST(9)
/* The row pitch of a linear 2D image of `elementSizeInBytes`-byte texels (ZE_experimental_bindless_image), by Intel's
 * rule for element sizes (a power of two up to 16 bytes, or 3, 6 or 12) and rows aligned to 64 bytes, the device's
 * cache line. */
ze_result_t zfi_zeMemGetPitchFor2dImage(ze_context_handle_t hContext, ze_device_handle_t hDevice, size_t imageWidth,
                                        size_t imageHeight, unsigned int elementSizeInBytes, size_t *rowPitch) {
    const zf_device *device = zf_device_from(hDevice);
    ze_result_t result = zf_check_device_in_context(zf_context_from(hContext), device, "hDevice");
    if (result != ZE_RESULT_SUCCESS)
        return result;
    unsigned int e = elementSizeInBytes;
    if (e == 0 || (e > 16 && e != 3 && e != 6 && e != 12) || ((e & (e - 1)) != 0 && e != 3 && e != 6 && e != 12))
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                       "elementSizeInBytes %u: a power of two up to 16, or 3, 6 or 12 bytes", elementSizeInBytes);
    const zf_scenario_images *images = &device->desc->images;
    if (imageWidth == 0 || imageHeight == 0 || imageWidth > images->max_dims_2d || imageHeight > images->max_dims_2d)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "image %zu x %zu: each side 1 to maxImageDims2D %u",
                       imageWidth, imageHeight, images->max_dims_2d);
    size_t row = imageWidth * e;
    *rowPitch = (row + 63) / 64 * 64;
    return ZE_RESULT_SUCCESS;
}
#endif

ze_result_t zfi_zeMemGetAddressRange(ze_context_handle_t hContext, const void *ptr, void **pBase, size_t *pSize) {
    zf_allocation info;
    if (!zf_memory_find(zf_context_from(hContext), ptr, 1, &info))
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "ptr %p is not inside an allocation of this context", ptr);
    if (pBase != NULL)
        *pBase = info.base;
    if (pSize != NULL)
        *pSize = info.size;
    return ZE_RESULT_SUCCESS;
}

/* Memory is always resident (it is host memory): residency calls only check that the range is memory the device
 * may be given. */
static ze_result_t zf_check_residency(ze_context_handle_t hContext, ze_device_handle_t hDevice, const void *ptr,
                                      size_t size) {
    zf_context *context = zf_context_from(hContext);
    ze_result_t result = zf_check_device_in_context(context, zf_device_from(hDevice), "hDevice");
    if (result != ZE_RESULT_SUCCESS)
        return result;
    zf_allocation info;
    if (!zf_memory_find(context, ptr, size, &info))
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                       "[ptr %p, +%zu bytes) is not inside one allocation of this context", ptr, size);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zeContextMakeMemoryResident(ze_context_handle_t hContext, ze_device_handle_t hDevice, void *ptr,
                                            size_t size) {
    return zf_check_residency(hContext, hDevice, ptr, size);
}

ze_result_t zfi_zeContextEvictMemory(ze_context_handle_t hContext, ze_device_handle_t hDevice, void *ptr, size_t size) {
    return zf_check_residency(hContext, hDevice, ptr, size);
}
