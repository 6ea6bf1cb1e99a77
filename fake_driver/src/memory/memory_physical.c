/* Physical memory objects: zePhysicalMemCreate and zePhysicalMemDestroy. A physical memory object is device memory
 * without an address: a memfd charged to its device (memory_backing.c) that zeVirtualMemMap maps into reserved
 * address ranges, as many times and at as many places as the application wants (memory_virtual.c). */
#include "core/zf_core.h"
#include "memory/memory_internal.h"

#include <stdlib.h>

/* ZE_PHYSICAL_MEM_FLAG_ALLOCATE_ON_HOST (headers 1.11): host pages, not charged to the device's memory. */
static bool zf_physical_on_host(const ze_physical_mem_desc_t *desc) {
#if ZF_L0_AT_LEAST(11)
    return (desc->flags & ZE_PHYSICAL_MEM_FLAG_ALLOCATE_ON_HOST) != 0;
#else
    (void)desc;
    return false;
#endif
}

ze_result_t zfi_zePhysicalMemCreate(ze_context_handle_t hContext, ze_device_handle_t hDevice,
                                    ze_physical_mem_desc_t *desc, ze_physical_mem_handle_t *phPhysicalMemory) {
    zf_context *context = zf_context_from(hContext);
    zf_device *device = zf_device_from(hDevice);
    if (desc->stype != ZE_STRUCTURE_TYPE_PHYSICAL_MEM_DESC)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "desc->stype is 0x%x, not ZE_STRUCTURE_TYPE_PHYSICAL_MEM_DESC",
                       (unsigned)desc->stype);
    if (!zf_context_has_device(context, device))
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                       "hDevice is not a device of hContext (nor a sub-device of one)");
    if (desc->size % ZF_VM_PAGE != 0)
        return zf_fail(ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT,
                       "desc->size %zu is not a multiple of the page size %zu (zeVirtualMemQueryPageSize)", desc->size,
                       ZF_VM_PAGE);
    if (desc->size > device->properties.maxMemAllocSize)
        return zf_fail(ZE_RESULT_ERROR_UNSUPPORTED_SIZE, "desc->size %zu exceeds maxMemAllocSize %llu", desc->size,
                       (unsigned long long)device->properties.maxMemAllocSize);
    zf_physical_mem *physical = calloc(1, sizeof *physical);
    if (physical == NULL)
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory for a physical memory object");
    ze_result_t result =
        zf_memory_backing_create(zf_physical_on_host(desc) ? NULL : device, desc->size, ZF_VM_PAGE, &physical->block);
    if (result != ZE_RESULT_SUCCESS) {
        free(physical);
        return result;
    }
    physical->context = context;
    physical->device = device;
    physical->size = desc->size;
    if (!zf_object_register(&physical->header, ZF_OBJ_ZE_PHYSICAL_MEM, &context->header)) {
        zf_memory_release(physical->block);
        free(physical);
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory to register a physical memory object");
    }
    *phPhysicalMemory = (ze_physical_mem_handle_t)physical;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zePhysicalMemDestroy(ze_context_handle_t hContext, ze_physical_mem_handle_t hPhysicalMemory) {
    zf_physical_mem *physical = (zf_physical_mem *)hPhysicalMemory;
    if (physical->context != zf_context_from(hContext))
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "hPhysicalMemory belongs to another context");
    if (!zf_physical_unregister_unmapped(physical))
        return zf_fail(ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE,
                       "the physical memory is still mapped: zeVirtualMemUnmap (or zeVirtualMemFree) it first");
    zf_memory_release(physical->block); /* the pages go, and the device memory is returned */
    physical->block = NULL;
    zf_object_retire(&physical->header);
    return ZE_RESULT_SUCCESS;
}
