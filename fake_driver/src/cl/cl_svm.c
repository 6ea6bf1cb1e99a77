/* Shared virtual memory (coarse- and fine-grained buffers) and cl_intel_unified_shared_memory: both are Level Zero
 * USM allocations of the context's Level Zero context, so an SVM pointer, a USM pointer and a buffer created over
 * either (CL_MEM_USE_HOST_PTR) are the same memory, counted in the device's memory like every allocation. Their
 * commands are the Level Zero copies and fills of the queue's list. */
#include "cl/zf_cl.h"
#include "zfcl_generated.h"

#include <stdlib.h>
#include <string.h>

size_t zfcl_usm_size(cl_context c, const void *ptr) {
    ze_memory_allocation_properties_t props = {.stype = ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES};
    void *base = NULL;
    size_t size = 0;
    if (ptr == NULL || zfi_zeMemGetAllocProperties(c->ze, ptr, &props, NULL) != ZE_RESULT_SUCCESS ||
        props.type == ZE_MEMORY_TYPE_UNKNOWN || zfi_zeMemGetAddressRange(c->ze, ptr, &base, &size) != ZE_RESULT_SUCCESS)
        return 0;
    return size - (size_t)((const char *)ptr - (const char *)base);
}

static bool zfcl_is_base(cl_context c, const void *ptr) {
    void *base = NULL;
    size_t size = 0;
    return zfcl_usm_size(c, ptr) > 0 && zfi_zeMemGetAddressRange(c->ze, ptr, &base, &size) == ZE_RESULT_SUCCESS &&
           base == ptr;
}

static void zfcl_usm_free(cl_context c, void *ptr) {
    ze_memory_free_ext_desc_t desc = {.stype = ZE_STRUCTURE_TYPE_MEMORY_FREE_EXT_DESC,
                                      .freePolicy = ZE_DRIVER_MEMORY_FREE_POLICY_EXT_FLAG_BLOCKING_FREE};
    zfi_zeMemFreeExt(c->ze, &desc, ptr);
}

typedef enum zfcl_usm_kind { ZFCL_USM_HOST, ZFCL_USM_DEVICE, ZFCL_USM_SHARED } zfcl_usm_kind;

static void *zfcl_alloc(cl_context c, zfcl_usm_kind kind, cl_device_id d, size_t size, size_t alignment, cl_int *err) {
    if (size == 0 || size > c->devices[0]->props.maxMemAllocSize)
        return zfcl_null(
            err, zfcl_fail(CL_INVALID_BUFFER_SIZE, "size %zu is 0 or above CL_DEVICE_MAX_MEM_ALLOC_SIZE", size));
    if ((alignment & (alignment - 1)) != 0 || alignment > 4096)
        return zfcl_null(err, zfcl_fail(CL_INVALID_VALUE, "alignment %zu is not a power of two up to 4096", alignment));
    ze_device_mem_alloc_desc_t dd = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC};
    ze_host_mem_alloc_desc_t hd = {.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC};
    void *ptr = NULL;
    ze_result_t r = kind == ZFCL_USM_HOST ? zfi_zeMemAllocHost(c->ze, &hd, size, alignment, &ptr)
                    : kind == ZFCL_USM_DEVICE
                        ? zfi_zeMemAllocDevice(c->ze, &dd, size, alignment, d->ze, &ptr)
                        : zfi_zeMemAllocShared(c->ze, &dd, &hd, size, alignment, d != NULL ? d->ze : NULL, &ptr);
    if (r != ZE_RESULT_SUCCESS)
        return zfcl_null(
            err, zfcl_fail(CL_OUT_OF_RESOURCES, "the allocation of %zu bytes failed (0x%x)", size, (unsigned)r));
    if (err != NULL)
        *err = CL_SUCCESS;
    return ptr;
}

/* ------------------------------------------------------------------------------------------------------------------
 * SVM */

void *CL_API_CALL zfcl_clSVMAlloc(cl_context c, cl_svm_mem_flags flags, size_t size, cl_uint alignment) {
    const cl_svm_mem_flags access = CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY;
    if (!zfcl_live(c, ZFCL_CONTEXT)) {
        zfcl_fail(CL_INVALID_CONTEXT, "context is no live context");
        return NULL;
    }
    cl_svm_mem_flags a = flags & access;
    if ((flags & ~(access | CL_MEM_SVM_FINE_GRAIN_BUFFER)) != 0 || (a & (a - 1)) != 0) {
        zfcl_fail(CL_INVALID_VALUE, "flags 0x%llx: unknown bits, SVM atomics (not supported) or several access flags",
                  (unsigned long long)flags);
        return NULL;
    }
    return zfcl_alloc(c, ZFCL_USM_SHARED, c->num_devices == 1 ? c->devices[0] : NULL, size, alignment, NULL);
}

void CL_API_CALL zfcl_clSVMFree(cl_context c, void *ptr) {
    if (!zfcl_live(c, ZFCL_CONTEXT) || ptr == NULL)
        return;
    if (!zfcl_is_base(c, ptr)) {
        zfcl_fail(CL_INVALID_VALUE, "svm_pointer %p is no SVM allocation of the context", ptr);
        return;
    }
    zfcl_usm_free(c, ptr);
}

static cl_int zfcl_memcpy(cl_command_queue q, cl_command_type type, cl_bool blocking, void *dst, const void *src,
                          size_t size, cl_uint num, const cl_event *list, cl_event *event) {
    cl_int err = zfcl_queue_check(q);
    if (err != CL_SUCCESS)
        return err;
    if (dst == NULL || src == NULL)
        return zfcl_fail(CL_INVALID_VALUE, "dst_ptr or src_ptr is NULL");
    if (zfcl_overlap(dst, src, size))
        return zfcl_fail(CL_MEM_COPY_OVERLAP, "the source and destination overlap");
    zfcl_copy c = {dst, src, size};
    return zfcl_enqueue_copy(q, type, c, blocking, num, list, event);
}

static cl_int zfcl_memfill(cl_command_queue q, cl_command_type type, void *ptr, const void *pattern,
                           size_t pattern_size, size_t size, cl_uint num, const cl_event *list, cl_event *event) {
    cl_int err = zfcl_queue_check(q);
    if (err != CL_SUCCESS)
        return err;
    if (ptr == NULL || pattern == NULL || pattern_size == 0 || pattern_size > 128 ||
        (pattern_size & (pattern_size - 1)) != 0 || (uintptr_t)ptr % pattern_size != 0 || size % pattern_size != 0)
        return zfcl_fail(CL_INVALID_VALUE, "pattern must be 1 to 128 bytes (a power of two) dividing the pointer's "
                                           "alignment and size");
    return zfcl_enqueue_fill(q, type, ptr, pattern, pattern_size, size, num, list, event);
}

cl_int CL_API_CALL zfcl_clEnqueueSVMMemcpy(cl_command_queue q, cl_bool blocking, void *dst, const void *src,
                                           size_t size, cl_uint num, const cl_event *list, cl_event *event) {
    return zfcl_memcpy(q, CL_COMMAND_SVM_MEMCPY, blocking, dst, src, size, num, list, event);
}

cl_int CL_API_CALL zfcl_clEnqueueSVMMemFill(cl_command_queue q, void *ptr, const void *pattern, size_t pattern_size,
                                            size_t size, cl_uint num, const cl_event *list, cl_event *event) {
    return zfcl_memfill(q, CL_COMMAND_SVM_MEMFILL, ptr, pattern, pattern_size, size, num, list, event);
}

/* SVM memory is used in place: map and unmap are ordering points of the queue. */
static cl_int zfcl_svm_point(cl_command_queue q, cl_command_type type, cl_bool blocking, const void *ptr, size_t size,
                             cl_uint num, const cl_event *list, cl_event *event) {
    cl_int err = zfcl_queue_check(q);
    if (err != CL_SUCCESS)
        return err;
    if (ptr == NULL || (type == CL_COMMAND_SVM_MAP && size == 0))
        return zfcl_fail(CL_INVALID_VALUE, "svm_ptr is NULL or size is 0");
    zfcl_copy none = {NULL, NULL, 0};
    return zfcl_enqueue_copy(q, type, none, blocking, num, list, event);
}

cl_int CL_API_CALL zfcl_clEnqueueSVMMap(cl_command_queue q, cl_bool blocking, cl_map_flags flags, void *ptr,
                                        size_t size, cl_uint num, const cl_event *list, cl_event *event) {
    const cl_map_flags known = CL_MAP_READ | CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION;
    if ((flags & ~known) || ((flags & CL_MAP_WRITE_INVALIDATE_REGION) && (flags & (CL_MAP_READ | CL_MAP_WRITE))))
        return zfcl_fail(CL_INVALID_VALUE, "map_flags 0x%llx is invalid", (unsigned long long)flags);
    return zfcl_svm_point(q, CL_COMMAND_SVM_MAP, blocking, ptr, size, num, list, event);
}

cl_int CL_API_CALL zfcl_clEnqueueSVMUnmap(cl_command_queue q, void *ptr, cl_uint num, const cl_event *list,
                                          cl_event *event) {
    return zfcl_svm_point(q, CL_COMMAND_SVM_UNMAP, CL_FALSE, ptr, 1, num, list, event);
}

cl_int CL_API_CALL zfcl_clEnqueueSVMMigrateMem(cl_command_queue q, cl_uint num_ptrs, const void **ptrs,
                                               const size_t *sizes, cl_mem_migration_flags flags, cl_uint num,
                                               const cl_event *list, cl_event *event) {
    (void)sizes;
    (void)flags;
    if (num_ptrs == 0 || ptrs == NULL)
        return zfcl_fail(CL_INVALID_VALUE, "num_svm_pointers is 0 or svm_pointers is NULL");
    return zfcl_svm_point(q, CL_COMMAND_SVM_MIGRATE_MEM, CL_FALSE, ptrs[0], 1, num, list, event);
}

/* The frees happen once the commands before it are done: the command is an ordering point waited for here. */
cl_int CL_API_CALL zfcl_clEnqueueSVMFree(cl_command_queue q, cl_uint num_ptrs, void *ptrs[],
                                         void(CL_CALLBACK *fn)(cl_command_queue, cl_uint, void *[], void *),
                                         void *user_data, cl_uint num, const cl_event *list, cl_event *event) {
    cl_int err = zfcl_queue_check(q);
    if (err != CL_SUCCESS)
        return err;
    if ((num_ptrs == 0) != (ptrs == NULL))
        return zfcl_fail(CL_INVALID_VALUE, "num_svm_pointers and svm_pointers disagree");
    for (cl_uint i = 0; i < num_ptrs; i++)
        if (ptrs[i] == NULL)
            return zfcl_fail(CL_INVALID_VALUE, "svm_pointers[%u] is NULL", i);
    zfcl_copy none = {NULL, NULL, 0};
    err = zfcl_enqueue_copy(q, CL_COMMAND_SVM_FREE, none, true, num, list, event);
    if (err != CL_SUCCESS)
        return err;
    if (fn != NULL)
        fn(q, num_ptrs, ptrs, user_data);
    else
        for (cl_uint i = 0; i < num_ptrs; i++)
            zfcl_clSVMFree(q->context, ptrs[i]);
    return CL_SUCCESS;
}

cl_int CL_API_CALL zfcl_clSetKernelArgSVMPointer(cl_kernel k, cl_uint index, const void *ptr) {
    return zfcl_set_kernel_pointer(k, index, ptr);
}

cl_int CL_API_CALL zfcl_clSetKernelExecInfo(cl_kernel k, cl_kernel_exec_info name, size_t size, const void *value) {
    if (!zfcl_live(k, ZFCL_KERNEL))
        return zfcl_fail(CL_INVALID_KERNEL, "kernel is no live kernel");
    if (value == NULL || size == 0)
        return zfcl_fail(CL_INVALID_VALUE, "param_value is NULL or param_value_size is 0");
    switch (name) {
    case CL_KERNEL_EXEC_INFO_SVM_PTRS:
    case CL_KERNEL_EXEC_INFO_USM_PTRS_INTEL:
        return CL_SUCCESS; /* every allocation of the context is reachable by the kernel */
    case CL_KERNEL_EXEC_INFO_INDIRECT_HOST_ACCESS_INTEL:
    case CL_KERNEL_EXEC_INFO_INDIRECT_DEVICE_ACCESS_INTEL:
    case CL_KERNEL_EXEC_INFO_INDIRECT_SHARED_ACCESS_INTEL:
        return size == sizeof(cl_bool) ? CL_SUCCESS : zfcl_fail(CL_INVALID_VALUE, "the value is a cl_bool");
    case CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM:
        if (size != sizeof(cl_bool))
            return zfcl_fail(CL_INVALID_VALUE, "the value is a cl_bool");
        return *(const cl_bool *)value ? zfcl_fail(CL_INVALID_OPERATION, "the devices have no fine-grained system SVM")
                                       : CL_SUCCESS;
    default:
        return zfcl_fail(CL_INVALID_VALUE, "param_name 0x%x is no kernel execution information", (unsigned)name);
    }
}

/* ------------------------------------------------------------------------------------------------------------------
 * cl_intel_unified_shared_memory */

static cl_int zfcl_usm_props(const cl_mem_properties_intel *props) {
    for (size_t i = 0; props != NULL && props[i] != 0; i += 2)
        if (props[i] != CL_MEM_ALLOC_FLAGS_INTEL ||
            (props[i + 1] & ~(cl_mem_properties_intel)(CL_MEM_ALLOC_WRITE_COMBINED_INTEL |
                                                       CL_MEM_ALLOC_INITIAL_PLACEMENT_DEVICE_INTEL |
                                                       CL_MEM_ALLOC_INITIAL_PLACEMENT_HOST_INTEL)))
            return zfcl_fail(CL_INVALID_PROPERTY, "property 0x%llx or its value is not supported",
                             (unsigned long long)props[i]);
    return CL_SUCCESS;
}

static void *zfcl_usm_alloc(cl_context c, zfcl_usm_kind kind, cl_device_id d, const cl_mem_properties_intel *props,
                            size_t size, cl_uint alignment, cl_int *err) {
    if (!zfcl_live(c, ZFCL_CONTEXT))
        return zfcl_null(err, zfcl_fail(CL_INVALID_CONTEXT, "context is no live context"));
    if ((kind == ZFCL_USM_DEVICE || d != NULL) && (!zfcl_device_valid(d) || !zfcl_context_has(c, d)))
        return zfcl_null(err, zfcl_fail(CL_INVALID_DEVICE, "device is not a device of the context"));
    cl_int e = zfcl_usm_props(props);
    if (e != CL_SUCCESS)
        return zfcl_null(err, e);
    return zfcl_alloc(c, kind, d, size, alignment, err);
}

static void *CL_API_CALL zfcl_ext_clHostMemAllocINTEL(cl_context c, const cl_mem_properties_intel *props, size_t size,
                                                      cl_uint alignment, cl_int *err) {
    return zfcl_usm_alloc(c, ZFCL_USM_HOST, NULL, props, size, alignment, err);
}

static void *CL_API_CALL zfcl_ext_clDeviceMemAllocINTEL(cl_context c, cl_device_id d,
                                                        const cl_mem_properties_intel *props, size_t size,
                                                        cl_uint alignment, cl_int *err) {
    return zfcl_usm_alloc(c, ZFCL_USM_DEVICE, d, props, size, alignment, err);
}

static void *CL_API_CALL zfcl_ext_clSharedMemAllocINTEL(cl_context c, cl_device_id d,
                                                        const cl_mem_properties_intel *props, size_t size,
                                                        cl_uint alignment, cl_int *err) {
    return zfcl_usm_alloc(c, ZFCL_USM_SHARED, d, props, size, alignment, err);
}

static cl_int CL_API_CALL zfcl_ext_clMemBlockingFreeINTEL(cl_context c, void *ptr) {
    if (!zfcl_live(c, ZFCL_CONTEXT))
        return zfcl_fail(CL_INVALID_CONTEXT, "context is no live context");
    if (ptr == NULL)
        return CL_SUCCESS;
    if (!zfcl_is_base(c, ptr))
        return zfcl_fail(CL_INVALID_VALUE, "ptr %p is no USM allocation of the context", ptr);
    zfcl_usm_free(c, ptr);
    return CL_SUCCESS;
}

/* The Level Zero free waits for the commands using the memory, which clMemFreeINTEL may do too. */
static cl_int CL_API_CALL zfcl_ext_clMemFreeINTEL(cl_context c, void *ptr) {
    return zfcl_ext_clMemBlockingFreeINTEL(c, ptr);
}

static cl_unified_shared_memory_type_intel zfcl_usm_type(ze_memory_type_t type) {
    switch (type) {
    case ZE_MEMORY_TYPE_HOST:
        return CL_MEM_TYPE_HOST_INTEL;
    case ZE_MEMORY_TYPE_DEVICE:
        return CL_MEM_TYPE_DEVICE_INTEL;
    case ZE_MEMORY_TYPE_SHARED:
        return CL_MEM_TYPE_SHARED_INTEL;
    default:
        return CL_MEM_TYPE_UNKNOWN_INTEL;
    }
}

static cl_device_id zfcl_device_of(cl_context c, ze_device_handle_t ze) {
    for (cl_uint i = 0; ze != NULL && i < c->num_devices; i++)
        if (c->devices[i]->ze == ze)
            return c->devices[i];
    return NULL;
}

static cl_int CL_API_CALL zfcl_ext_clGetMemAllocInfoINTEL(cl_context c, const void *ptr, cl_mem_info_intel name,
                                                          size_t size, void *value, size_t *size_ret) {
    if (!zfcl_live(c, ZFCL_CONTEXT))
        return zfcl_fail(CL_INVALID_CONTEXT, "context is no live context");
    ze_memory_allocation_properties_t props = {.stype = ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES};
    ze_device_handle_t owner = NULL;
    void *base = NULL;
    size_t bytes = 0;
    bool known = zfcl_usm_size(c, ptr) > 0 &&
                 zfi_zeMemGetAllocProperties(c->ze, ptr, &props, &owner) == ZE_RESULT_SUCCESS &&
                 zfi_zeMemGetAddressRange(c->ze, ptr, &base, &bytes) == ZE_RESULT_SUCCESS;
    cl_unified_shared_memory_type_intel type = known ? zfcl_usm_type(props.type) : CL_MEM_TYPE_UNKNOWN_INTEL;
    cl_device_id device = known ? zfcl_device_of(c, owner) : NULL;
    switch (name) {
    case CL_MEM_ALLOC_TYPE_INTEL:
        return zfcl_info(size, value, size_ret, &type, sizeof type);
    case CL_MEM_ALLOC_BASE_PTR_INTEL:
        return zfcl_info(size, value, size_ret, &base, sizeof base);
    case CL_MEM_ALLOC_SIZE_INTEL:
        return zfcl_info(size, value, size_ret, &bytes, sizeof bytes);
    case CL_MEM_ALLOC_DEVICE_INTEL:
        return zfcl_info(size, value, size_ret, &device, sizeof device);
    default:
        return zfcl_fail(CL_INVALID_VALUE, "param_name 0x%x is no allocation query", (unsigned)name);
    }
}

static cl_int CL_API_CALL zfcl_ext_clSetKernelArgMemPointerINTEL(cl_kernel k, cl_uint index, const void *ptr) {
    return zfcl_set_kernel_pointer(k, index, ptr);
}

static cl_int CL_API_CALL zfcl_ext_clEnqueueMemFillINTEL(cl_command_queue q, void *ptr, const void *pattern,
                                                         size_t pattern_size, size_t size, cl_uint num,
                                                         const cl_event *list, cl_event *event) {
    return zfcl_memfill(q, CL_COMMAND_MEMFILL_INTEL, ptr, pattern, pattern_size, size, num, list, event);
}

static cl_int CL_API_CALL zfcl_ext_clEnqueueMemsetINTEL(cl_command_queue q, void *ptr, cl_int value, size_t size,
                                                        cl_uint num, const cl_event *list, cl_event *event) {
    cl_uchar byte = (cl_uchar)value;
    return zfcl_memfill(q, CL_COMMAND_MEMFILL_INTEL, ptr, &byte, 1, size, num, list, event);
}

static cl_int CL_API_CALL zfcl_ext_clEnqueueMemcpyINTEL(cl_command_queue q, cl_bool blocking, void *dst,
                                                        const void *src, size_t size, cl_uint num, const cl_event *list,
                                                        cl_event *event) {
    return zfcl_memcpy(q, CL_COMMAND_MEMCPY_INTEL, blocking, dst, src, size, num, list, event);
}

static cl_int CL_API_CALL zfcl_ext_clEnqueueMigrateMemINTEL(cl_command_queue q, const void *ptr, size_t size,
                                                            cl_mem_migration_flags flags, cl_uint num,
                                                            const cl_event *list, cl_event *event) {
    (void)flags;
    return zfcl_svm_point(q, CL_COMMAND_MIGRATEMEM_INTEL, CL_FALSE, ptr, size, num, list, event);
}

static cl_int CL_API_CALL zfcl_ext_clEnqueueMemAdviseINTEL(cl_command_queue q, const void *ptr, size_t size,
                                                           cl_mem_advice_intel advice, cl_uint num,
                                                           const cl_event *list, cl_event *event) {
    (void)advice; /* advice changes no result on these devices */
    return zfcl_svm_point(q, CL_COMMAND_MEMADVISE_INTEL, CL_FALSE, ptr, size, num, list, event);
}

/* Typed as the extension header declares them, so that a signature that drifts does not compile. */
static const struct {
    clHostMemAllocINTEL_fn host;
    clDeviceMemAllocINTEL_fn device;
    clSharedMemAllocINTEL_fn shared;
    clMemFreeINTEL_fn free;
    clMemBlockingFreeINTEL_fn blocking_free;
    clGetMemAllocInfoINTEL_fn info;
    clSetKernelArgMemPointerINTEL_fn arg;
    clEnqueueMemFillINTEL_fn fill;
    clEnqueueMemsetINTEL_fn memset;
    clEnqueueMemcpyINTEL_fn memcpy;
    clEnqueueMigrateMemINTEL_fn migrate;
    clEnqueueMemAdviseINTEL_fn advise;
} zfcl_usm = {zfcl_ext_clHostMemAllocINTEL,           zfcl_ext_clDeviceMemAllocINTEL,
              zfcl_ext_clSharedMemAllocINTEL,         zfcl_ext_clMemFreeINTEL,
              zfcl_ext_clMemBlockingFreeINTEL,        zfcl_ext_clGetMemAllocInfoINTEL,
              zfcl_ext_clSetKernelArgMemPointerINTEL, zfcl_ext_clEnqueueMemFillINTEL,
              zfcl_ext_clEnqueueMemsetINTEL,          zfcl_ext_clEnqueueMemcpyINTEL,
              zfcl_ext_clEnqueueMigrateMemINTEL,      zfcl_ext_clEnqueueMemAdviseINTEL};

void *zfcl_usm_function(const char *name) {
    static const char *const names[] = {
        "clHostMemAllocINTEL",    "clDeviceMemAllocINTEL",  "clSharedMemAllocINTEL",         "clMemFreeINTEL",
        "clMemBlockingFreeINTEL", "clGetMemAllocInfoINTEL", "clSetKernelArgMemPointerINTEL", "clEnqueueMemFillINTEL",
        "clEnqueueMemsetINTEL",   "clEnqueueMemcpyINTEL",   "clEnqueueMigrateMemINTEL",      "clEnqueueMemAdviseINTEL"};
    void *const fns[] = {(void *)(uintptr_t)zfcl_usm.host,          (void *)(uintptr_t)zfcl_usm.device,
                         (void *)(uintptr_t)zfcl_usm.shared,        (void *)(uintptr_t)zfcl_usm.free,
                         (void *)(uintptr_t)zfcl_usm.blocking_free, (void *)(uintptr_t)zfcl_usm.info,
                         (void *)(uintptr_t)zfcl_usm.arg,           (void *)(uintptr_t)zfcl_usm.fill,
                         (void *)(uintptr_t)zfcl_usm.memset,        (void *)(uintptr_t)zfcl_usm.memcpy,
                         (void *)(uintptr_t)zfcl_usm.migrate,       (void *)(uintptr_t)zfcl_usm.advise};
    for (size_t i = 0; name != NULL && i < sizeof names / sizeof names[0]; i++)
        if (strcmp(name, names[i]) == 0)
            return fns[i];
    return NULL;
}
