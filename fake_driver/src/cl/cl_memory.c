/* Buffers and sub-buffers over Level Zero shared allocations of the context (device-memory accounting included), and
 * the buffer commands: read, write, copy, fill (Level Zero copies and fills on the queue's list, so they are ordered
 * and timed like kernels), their rectangular forms (region copies), map and unmap. A CL_MEM_USE_HOST_PTR buffer keeps
 * the application's memory in step at map (device to host) and unmap (host to device); every other buffer maps in
 * place. */
#include "cl/zf_cl.h"
#include "zfcl_generated.h"

#include <stdlib.h>
#include <string.h>

static const cl_mem_flags zfcl_access = CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY;
static const cl_mem_flags zfcl_host_access = CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS;
static const cl_mem_flags zfcl_host_ptr_flags = CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR;

bool zfcl_mem_valid(cl_mem m) {
    return zfcl_live(m, ZFCL_MEM);
}

bool zfcl_buffer_valid(cl_mem m) {
    return zfcl_live(m, ZFCL_MEM) && m->type == CL_MEM_OBJECT_BUFFER;
}

static bool zfcl_at_most_one(cl_mem_flags flags, cl_mem_flags group) {
    cl_mem_flags f = flags & group;
    return (f & (f - 1)) == 0;
}

cl_int zfcl_mem_flags_check(cl_mem_flags flags) {
    const cl_mem_flags known = zfcl_access | zfcl_host_access | zfcl_host_ptr_flags | CL_MEM_KERNEL_READ_AND_WRITE;
    if (flags & ~known)
        return zfcl_fail(CL_INVALID_VALUE, "flags 0x%llx has unknown bits", (unsigned long long)flags);
    if (!zfcl_at_most_one(flags, zfcl_access) || !zfcl_at_most_one(flags, zfcl_host_access))
        return zfcl_fail(CL_INVALID_VALUE, "flags combines exclusive device or host access flags");
    if ((flags & CL_MEM_USE_HOST_PTR) && (flags & (CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR)))
        return zfcl_fail(CL_INVALID_VALUE, "CL_MEM_USE_HOST_PTR excludes CL_MEM_ALLOC_HOST_PTR and COPY_HOST_PTR");
    return CL_SUCCESS;
}

cl_mem zfcl_mem_new(cl_context c, cl_mem_flags flags, size_t size, cl_int *err) {
    cl_mem m = calloc(1, sizeof *m);
    if (m == NULL)
        return zfcl_null(err, CL_OUT_OF_HOST_MEMORY);
    m->context = c;
    m->flags = (flags & zfcl_access) ? flags : flags | CL_MEM_READ_WRITE;
    m->size = size;
    m->type = CL_MEM_OBJECT_BUFFER;
    pthread_mutex_init(&m->lock, NULL);
    return m;
}

cl_mem zfcl_mem_publish(cl_mem m, cl_int *err) {
    if (!zfcl_register(&m->obj, ZFCL_MEM)) {
        free(m);
        return zfcl_null(err, CL_OUT_OF_HOST_MEMORY);
    }
    zfcl_context_hold(m->context);
    if (err != NULL)
        *err = CL_SUCCESS;
    return m;
}

static cl_mem zfcl_buffer(cl_context c, cl_mem_flags flags, size_t size, void *host_ptr, cl_int *err) {
    if (!zfcl_live(c, ZFCL_CONTEXT))
        return zfcl_null(err, zfcl_fail(CL_INVALID_CONTEXT, "context is no live context"));
    cl_int e = zfcl_mem_flags_check(flags);
    if (e != CL_SUCCESS)
        return zfcl_null(err, e);
    uint64_t max = c->devices[0]->props.maxMemAllocSize;
    if (size == 0 || size > max)
        return zfcl_null(
            err, zfcl_fail(CL_INVALID_BUFFER_SIZE, "size %zu is 0 or above CL_DEVICE_MAX_MEM_ALLOC_SIZE", size));
    if ((host_ptr == NULL) == ((flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR)) != 0))
        return zfcl_null(err, zfcl_fail(CL_INVALID_HOST_PTR, "host_ptr must be given exactly with "
                                                             "CL_MEM_USE_HOST_PTR or CL_MEM_COPY_HOST_PTR"));
    cl_mem m = zfcl_mem_new(c, flags, size, err);
    if (m == NULL)
        return NULL;
    if ((flags & CL_MEM_USE_HOST_PTR) && zfcl_usm_size(c, host_ptr) >= size) {
        m->ptr = host_ptr; /* SVM or USM memory of the context: the buffer uses it in place */
        m->svm = true;
        return zfcl_mem_publish(m, err);
    }
    ze_device_mem_alloc_desc_t dd = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC};
    ze_host_mem_alloc_desc_t hd = {.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC};
    ze_device_handle_t dev = c->num_devices == 1 ? c->devices[0]->ze : NULL;
    ze_result_t r = zfi_zeMemAllocShared(c->ze, &dd, &hd, size, 128, dev, &m->ptr);
    if (r != ZE_RESULT_SUCCESS) {
        free(m);
        return zfcl_null(err, zfcl_fail(CL_MEM_OBJECT_ALLOCATION_FAILURE, "the allocation of %zu bytes failed", size));
    }
    if (host_ptr != NULL)
        memcpy(m->ptr, host_ptr, size);
    if (flags & CL_MEM_USE_HOST_PTR)
        m->host_ptr = host_ptr;
    return zfcl_mem_publish(m, err);
}

cl_mem CL_API_CALL zfcl_clCreateBuffer(cl_context c, cl_mem_flags flags, size_t size, void *host_ptr, cl_int *err) {
    return zfcl_buffer(c, flags, size, host_ptr, err);
}

cl_mem CL_API_CALL zfcl_clCreateBufferWithProperties(cl_context c, const cl_mem_properties *props, cl_mem_flags flags,
                                                     size_t size, void *host_ptr, cl_int *err) {
    if (props != NULL && props[0] != 0)
        return zfcl_null(err, zfcl_fail(CL_INVALID_PROPERTY, "no buffer property is supported (0x%llx given)",
                                        (unsigned long long)props[0]));
    cl_mem m = zfcl_buffer(c, flags, size, host_ptr, err);
    if (m != NULL && props != NULL)
        m->num_props = 1; /* the empty list given: reported back as given */
    return m;
}

/* A sub-buffer inherits what its flags leave open from its parent and must not widen the parent's access. */
static cl_int zfcl_sub_flags(cl_mem parent, cl_mem_flags *flags) {
    cl_mem_flags f = *flags;
    cl_int e = zfcl_mem_flags_check(f);
    if (e != CL_SUCCESS)
        return e;
    if (f & zfcl_host_ptr_flags)
        return zfcl_fail(CL_INVALID_VALUE, "a sub-buffer takes no host pointer flags");
    cl_mem_flags p = parent->flags;
    if (((p & CL_MEM_WRITE_ONLY) && (f & (CL_MEM_READ_WRITE | CL_MEM_READ_ONLY))) ||
        ((p & CL_MEM_READ_ONLY) && (f & (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY))) ||
        ((p & CL_MEM_HOST_WRITE_ONLY) && (f & CL_MEM_HOST_READ_ONLY)) ||
        ((p & CL_MEM_HOST_READ_ONLY) && (f & CL_MEM_HOST_WRITE_ONLY)) ||
        ((p & CL_MEM_HOST_NO_ACCESS) && (f & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_WRITE_ONLY))))
        return zfcl_fail(CL_INVALID_VALUE, "flags widen the parent buffer's access");
    if (!(f & zfcl_access))
        f |= p & zfcl_access;
    if (!(f & zfcl_host_access))
        f |= p & zfcl_host_access;
    *flags = f | (p & zfcl_host_ptr_flags);
    return CL_SUCCESS;
}

cl_mem CL_API_CALL zfcl_clCreateSubBuffer(cl_mem parent, cl_mem_flags flags, cl_buffer_create_type type,
                                          const void *info, cl_int *err) {
    if (!zfcl_buffer_valid(parent) || parent->parent != NULL)
        return zfcl_null(err, zfcl_fail(CL_INVALID_MEM_OBJECT, "buffer is no live buffer (or is a sub-buffer)"));
    cl_int e = zfcl_sub_flags(parent, &flags);
    if (e != CL_SUCCESS)
        return zfcl_null(err, e);
    if (type != CL_BUFFER_CREATE_TYPE_REGION || info == NULL)
        return zfcl_null(err, zfcl_fail(CL_INVALID_VALUE, "buffer_create_type must be CL_BUFFER_CREATE_TYPE_REGION "
                                                          "with a region"));
    const cl_buffer_region *region = info;
    if (region->size == 0)
        return zfcl_null(err, zfcl_fail(CL_INVALID_BUFFER_SIZE, "the region's size is 0"));
    if (region->origin > parent->size || region->size > parent->size - region->origin)
        return zfcl_null(err, zfcl_fail(CL_INVALID_VALUE, "the region lies outside the buffer"));
    if (region->origin % 128 != 0)
        return zfcl_null(err, zfcl_fail(CL_MISALIGNED_SUB_BUFFER_OFFSET,
                                        "the region's origin is not a multiple of CL_DEVICE_MEM_BASE_ADDR_ALIGN"));
    cl_mem m = zfcl_mem_new(parent->context, flags, region->size, err);
    if (m == NULL)
        return NULL;
    m->parent = parent;
    m->origin = region->origin;
    m->ptr = (char *)parent->ptr + region->origin;
    m->host_ptr = parent->host_ptr != NULL ? (char *)parent->host_ptr + region->origin : NULL;
    zfcl_retain(&parent->obj);
    return zfcl_mem_publish(m, err);
}

cl_int CL_API_CALL zfcl_clRetainMemObject(cl_mem m) {
    if (!zfcl_mem_valid(m))
        return zfcl_fail(CL_INVALID_MEM_OBJECT, "memobj is no live memory object");
    zfcl_retain(&m->obj);
    return CL_SUCCESS;
}

/* Once no command can use it (zfcl_context_defer): the destructor callbacks, then its memory. */
static void zfcl_mem_destroy(void *object) {
    cl_mem m = object;
    zfcl_call_destructors(m->destructors, m);
    if (m->image != NULL)
        zfi_zeImageDestroy(m->image);
    if (m->parent != NULL) { /* a sub-buffer's or a 1D buffer image's buffer */
        zfcl_clReleaseMemObject(m->parent);
    } else if (m->image == NULL && !m->svm) {
        ze_memory_free_ext_desc_t desc = {.stype = ZE_STRUCTURE_TYPE_MEMORY_FREE_EXT_DESC,
                                          .freePolicy = ZE_DRIVER_MEMORY_FREE_POLICY_EXT_FLAG_BLOCKING_FREE};
        zfi_zeMemFreeExt(m->context->ze, &desc, m->ptr);
    }
    while (m->mappings != NULL) {
        zfcl_mapping *next = m->mappings->next;
        free(m->mappings);
        m->mappings = next;
    }
    pthread_mutex_destroy(&m->lock);
    cl_context c = m->context;
    zfcl_object_free(&m->obj);
    zfcl_context_unhold(c);
}

cl_int CL_API_CALL zfcl_clReleaseMemObject(cl_mem m) {
    if (!zfcl_mem_valid(m))
        return zfcl_fail(CL_INVALID_MEM_OBJECT, "memobj is no live memory object");
    if (!zfcl_release(&m->obj))
        return CL_SUCCESS;
    zfcl_unregister(&m->obj); /* the handle dies now, the object once no command can use it */
    zfcl_context_defer(m->context, zfcl_mem_destroy, m);
    return CL_SUCCESS;
}

cl_int CL_API_CALL zfcl_clGetMemObjectInfo(cl_mem m, cl_mem_info name, size_t size, void *value, size_t *size_ret) {
    if (!zfcl_mem_valid(m))
        return zfcl_fail(CL_INVALID_MEM_OBJECT, "memobj is no live memory object");
    cl_mem_object_type type = m->type;
    cl_uint maps = atomic_load(&m->maps), refs = atomic_load(&m->obj.refs);
    cl_bool svm = m->svm || (m->parent != NULL && m->parent->svm);
    switch (name) {
    case CL_MEM_TYPE:
        return zfcl_info(size, value, size_ret, &type, sizeof type);
    case CL_MEM_FLAGS:
        return zfcl_info(size, value, size_ret, &m->flags, sizeof m->flags);
    case CL_MEM_SIZE:
        return zfcl_info(size, value, size_ret, &m->size, sizeof m->size);
    case CL_MEM_HOST_PTR: {
        void *host = m->host_ptr != NULL ? m->host_ptr : svm ? m->ptr : NULL;
        return zfcl_info(size, value, size_ret, &host, sizeof host);
    }
    case CL_MEM_MAP_COUNT:
        return zfcl_info(size, value, size_ret, &maps, sizeof maps);
    case CL_MEM_REFERENCE_COUNT:
        return zfcl_info(size, value, size_ret, &refs, sizeof refs);
    case CL_MEM_CONTEXT:
        return zfcl_info(size, value, size_ret, &m->context, sizeof m->context);
    case CL_MEM_ASSOCIATED_MEMOBJECT:
        return zfcl_info(size, value, size_ret, &m->parent, sizeof m->parent);
    case CL_MEM_OFFSET:
        return zfcl_info(size, value, size_ret, &m->origin, sizeof m->origin);
    case CL_MEM_USES_SVM_POINTER:
        return zfcl_info(size, value, size_ret, &svm, sizeof svm);
    case CL_MEM_PROPERTIES:
        return zfcl_info(size, value, size_ret, m->props, m->num_props * sizeof m->props[0]);
    default:
        return zfcl_fail(CL_INVALID_VALUE, "param_name 0x%x is no memory object query", (unsigned)name);
    }
}

/* ------------------------------------------------------------------------------------------------------------------
 * Commands */

/* The checks every buffer command shares: a live queue, a live buffer of its context, a range inside the buffer. */
cl_int zfcl_check_buffer(cl_command_queue q, cl_mem m, size_t offset, size_t size) {
    cl_int queue_err = zfcl_queue_check(q);
    if (queue_err != CL_SUCCESS)
        return queue_err;
    if (!zfcl_buffer_valid(m))
        return zfcl_fail(CL_INVALID_MEM_OBJECT, "buffer is no live buffer");
    if (m->context != q->context)
        return zfcl_fail(CL_INVALID_CONTEXT, "the buffer and the queue belong to different contexts");
    if (offset > m->size || size > m->size - offset)
        return zfcl_fail(CL_INVALID_VALUE, "offset %zu + size %zu lies outside the buffer of %zu bytes", offset, size,
                         m->size);
    return CL_SUCCESS;
}

cl_int zfcl_host_may(cl_mem m, bool read) {
    cl_mem_flags denied = CL_MEM_HOST_NO_ACCESS | (read ? CL_MEM_HOST_WRITE_ONLY : CL_MEM_HOST_READ_ONLY);
    return (m->flags & denied) ? zfcl_fail(CL_INVALID_OPERATION, "the buffer's host access flags forbid the %s",
                                           read ? "read" : "write")
                               : CL_SUCCESS;
}

cl_int zfcl_enqueue_copy(cl_command_queue q, cl_command_type type, zfcl_copy copy, bool blocking, cl_uint num,
                         const cl_event *list, cl_event *event_ret) {
    cl_event e;
    ze_event_handle_t *w;
    uint32_t nw;
    cl_int err = zfcl_command_begin(q, type, num, list, &e, &w, &nw);
    if (err != CL_SUCCESS)
        return err;
    ze_result_t r = copy.size == 0
                        ? zfi_zeCommandListAppendBarrier(e->list, e->ze, nw, w)
                        : zfi_zeCommandListAppendMemoryCopy(e->list, copy.dst, copy.src, copy.size, e->ze, nw, w);
    free(w);
    if (r != ZE_RESULT_SUCCESS) {
        zfcl_command_abort(q, e);
        return zfcl_from_ze(r);
    }
    return zfcl_command_end(q, e, event_ret, blocking);
}

/* The checks clEnqueueReadBuffer and clEnqueueWriteBuffer share: the buffer range, the host pointer, the host
 * access flags. */
static cl_int zfcl_check_host_copy(cl_command_queue q, cl_mem m, size_t offset, size_t size, const void *ptr,
                                   bool read) {
    cl_int err = zfcl_check_buffer(q, m, offset, size);
    if (err == CL_SUCCESS && (ptr == NULL || size == 0))
        err = zfcl_fail(CL_INVALID_VALUE, "ptr is NULL or size is 0");
    if (err == CL_SUCCESS)
        err = zfcl_host_may(m, read);
    return err;
}

cl_int CL_API_CALL zfcl_clEnqueueReadBuffer(cl_command_queue q, cl_mem m, cl_bool blocking, size_t offset, size_t size,
                                            void *ptr, cl_uint num, const cl_event *list, cl_event *event) {
    cl_int err = zfcl_check_host_copy(q, m, offset, size, ptr, true);
    if (err != CL_SUCCESS)
        return err;
    zfcl_copy c = {ptr, (char *)m->ptr + offset, size};
    return zfcl_enqueue_copy(q, CL_COMMAND_READ_BUFFER, c, blocking, num, list, event);
}

cl_int CL_API_CALL zfcl_clEnqueueWriteBuffer(cl_command_queue q, cl_mem m, cl_bool blocking, size_t offset, size_t size,
                                             const void *ptr, cl_uint num, const cl_event *list, cl_event *event) {
    cl_int err = zfcl_check_host_copy(q, m, offset, size, ptr, false);
    if (err != CL_SUCCESS)
        return err;
    zfcl_copy c = {(char *)m->ptr + offset, ptr, size};
    return zfcl_enqueue_copy(q, CL_COMMAND_WRITE_BUFFER, c, blocking, num, list, event);
}

cl_int CL_API_CALL zfcl_clEnqueueCopyBuffer(cl_command_queue q, cl_mem src, cl_mem dst, size_t src_offset,
                                            size_t dst_offset, size_t size, cl_uint num, const cl_event *list,
                                            cl_event *event) {
    cl_int err = zfcl_check_buffer(q, src, src_offset, size);
    if (err == CL_SUCCESS)
        err = zfcl_check_buffer(q, dst, dst_offset, size);
    if (err == CL_SUCCESS && size == 0)
        err = zfcl_fail(CL_INVALID_VALUE, "size is 0");
    if (err == CL_SUCCESS && zfcl_overlap((char *)src->ptr + src_offset, (char *)dst->ptr + dst_offset, size))
        err = zfcl_fail(CL_MEM_COPY_OVERLAP, "the source and destination regions overlap");
    if (err != CL_SUCCESS)
        return err;
    zfcl_copy c = {(char *)dst->ptr + dst_offset, (char *)src->ptr + src_offset, size};
    return zfcl_enqueue_copy(q, CL_COMMAND_COPY_BUFFER, c, false, num, list, event);
}

cl_int zfcl_enqueue_fill(cl_command_queue q, cl_command_type type, void *ptr, const void *pattern, size_t pattern_size,
                         size_t size, cl_uint num, const cl_event *list, cl_event *event) {
    cl_event e;
    ze_event_handle_t *w;
    uint32_t nw;
    cl_int err = zfcl_command_begin(q, type, num, list, &e, &w, &nw);
    if (err != CL_SUCCESS)
        return err;
    ze_result_t r = size == 0
                        ? zfi_zeCommandListAppendBarrier(e->list, e->ze, nw, w)
                        : zfi_zeCommandListAppendMemoryFill(e->list, ptr, pattern, pattern_size, size, e->ze, nw, w);
    free(w);
    if (r != ZE_RESULT_SUCCESS) {
        zfcl_command_abort(q, e);
        return zfcl_from_ze(r);
    }
    return zfcl_command_end(q, e, event, false);
}

cl_int CL_API_CALL zfcl_clEnqueueFillBuffer(cl_command_queue q, cl_mem m, const void *pattern, size_t pattern_size,
                                            size_t offset, size_t size, cl_uint num, const cl_event *list,
                                            cl_event *event) {
    cl_int err = zfcl_check_buffer(q, m, offset, size);
    if (err != CL_SUCCESS)
        return err;
    if (pattern == NULL || pattern_size == 0 || pattern_size > 128 || (pattern_size & (pattern_size - 1)) != 0 ||
        offset % pattern_size != 0 || size % pattern_size != 0)
        return zfcl_fail(CL_INVALID_VALUE,
                         "pattern must be 1 to 128 bytes (a power of two) and divide offset and size");
    return zfcl_enqueue_fill(q, CL_COMMAND_FILL_BUFFER, (char *)m->ptr + offset, pattern, pattern_size, size, num, list,
                             event);
}

void *CL_API_CALL zfcl_clEnqueueMapBuffer(cl_command_queue q, cl_mem m, cl_bool blocking, cl_map_flags flags,
                                          size_t offset, size_t size, cl_uint num, const cl_event *list,
                                          cl_event *event, cl_int *errcode) {
    cl_int err = zfcl_check_buffer(q, m, offset, size);
    const cl_map_flags known = CL_MAP_READ | CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION;
    if (err == CL_SUCCESS && (size == 0 || (flags & ~known) != 0 ||
                              ((flags & CL_MAP_WRITE_INVALIDATE_REGION) && (flags & (CL_MAP_READ | CL_MAP_WRITE)))))
        err = zfcl_fail(CL_INVALID_VALUE, "size is 0 or map_flags is invalid");
    if (err == CL_SUCCESS && (flags & CL_MAP_READ))
        err = zfcl_host_may(m, true);
    if (err == CL_SUCCESS && (flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION)))
        err = zfcl_host_may(m, false);
    zfcl_mapping *map = err == CL_SUCCESS ? malloc(sizeof *map) : NULL;
    if (err == CL_SUCCESS && map == NULL)
        err = CL_OUT_OF_HOST_MEMORY;
    if (err != CL_SUCCESS)
        return zfcl_null(errcode, err);
    char *host = m->host_ptr != NULL ? (char *)m->host_ptr + offset : (char *)m->ptr + offset;
    /* mapped in place, or the application's memory brought up to date */
    zfcl_copy c = {host, (char *)m->ptr + offset,
                   m->host_ptr != NULL && !(flags & CL_MAP_WRITE_INVALIDATE_REGION) ? size : 0};
    err = zfcl_enqueue_copy(q, CL_COMMAND_MAP_BUFFER, c, blocking, num, list, event);
    if (err != CL_SUCCESS) {
        free(map);
        return zfcl_null(errcode, err);
    }
    *map = (zfcl_mapping){.ptr = host, .offset = offset, .size = size, .flags = flags};
    pthread_mutex_lock(&m->lock);
    map->next = m->mappings;
    m->mappings = map;
    pthread_mutex_unlock(&m->lock);
    atomic_fetch_add(&m->maps, 1u);
    if (errcode != NULL)
        *errcode = CL_SUCCESS;
    return host;
}

zfcl_mapping *zfcl_take_mapping(cl_mem m, void *ptr) {
    pthread_mutex_lock(&m->lock);
    zfcl_mapping *found = NULL;
    for (zfcl_mapping **p = &m->mappings; *p != NULL; p = &(*p)->next)
        if ((*p)->ptr == ptr) {
            found = *p;
            *p = found->next;
            break;
        }
    pthread_mutex_unlock(&m->lock);
    return found;
}

cl_int CL_API_CALL zfcl_clEnqueueUnmapMemObject(cl_command_queue q, cl_mem m, void *ptr, cl_uint num,
                                                const cl_event *list, cl_event *event) {
    if (zfcl_image_valid(m))
        return zfcl_image_unmap(q, m, ptr, num, list, event);
    cl_int err = zfcl_check_buffer(q, m, 0, 0);
    if (err != CL_SUCCESS)
        return err;
    err = zfcl_wait_list(q, num, list);
    if (err != CL_SUCCESS)
        return err;
    zfcl_mapping *map = zfcl_take_mapping(m, ptr);
    if (map == NULL)
        return zfcl_fail(CL_INVALID_VALUE, "mapped_ptr is no pointer mapped from this memory object");
    bool back = m->host_ptr != NULL && (map->flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION));
    zfcl_copy c = {(char *)m->ptr + map->offset, map->ptr, back ? map->size : 0};
    free(map);
    atomic_fetch_sub(&m->maps, 1u);
    return zfcl_enqueue_copy(q, CL_COMMAND_UNMAP_MEM_OBJECT, c, false, num, list, event);
}

cl_int CL_API_CALL zfcl_clEnqueueMigrateMemObjects(cl_command_queue q, cl_uint num_mems, const cl_mem *mems,
                                                   cl_mem_migration_flags flags, cl_uint num, const cl_event *list,
                                                   cl_event *event) {
    cl_int queue_err = zfcl_queue_check(q);
    if (queue_err != CL_SUCCESS)
        return queue_err;
    if (num_mems == 0 || mems == NULL ||
        (flags & ~(cl_mem_migration_flags)(CL_MIGRATE_MEM_OBJECT_HOST | CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED)))
        return zfcl_fail(CL_INVALID_VALUE, "num_mem_objects is 0, mem_objects is NULL or flags is invalid");
    for (cl_uint i = 0; i < num_mems; i++) {
        cl_int err = zfcl_check_buffer(q, mems[i], 0, 0);
        if (err != CL_SUCCESS)
            return err;
    }
    zfcl_copy none = {NULL, NULL, 0}; /* shared allocations need no migration: an ordering point only */
    return zfcl_enqueue_copy(q, CL_COMMAND_MIGRATE_MEM_OBJECTS, none, false, num, list, event);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Rectangular copies */

typedef struct zfcl_rect {
    const size_t *origin;
    size_t row, slice; /* pitches, defaults applied */
} zfcl_rect;

static cl_int zfcl_rect_pitches(const size_t *region, size_t *row, size_t *slice) {
    if (region == NULL || region[0] == 0 || region[1] == 0 || region[2] == 0)
        return zfcl_fail(CL_INVALID_VALUE, "region is NULL or has a 0 dimension");
    if (*row == 0)
        *row = region[0];
    if (*slice == 0)
        *slice = region[1] * *row;
    if (*row < region[0] || *slice < region[1] * *row || *slice % *row != 0)
        return zfcl_fail(CL_INVALID_VALUE, "a row pitch is below region[0] or a slice pitch below region[1] * pitch");
    return CL_SUCCESS;
}

/* The last byte the rectangle touches must lie inside a buffer of `size` bytes. */
static cl_int zfcl_rect_inside(const size_t *origin, const size_t *region, size_t row, size_t slice, size_t size) {
    if (origin == NULL)
        return zfcl_fail(CL_INVALID_VALUE, "an origin is NULL");
    size_t end = (origin[2] + region[2] - 1) * slice + (origin[1] + region[1] - 1) * row + origin[0] + region[0];
    return end > size ? zfcl_fail(CL_INVALID_VALUE, "the rectangle ends at byte %zu of a buffer of %zu", end, size)
                      : CL_SUCCESS;
}

/* The byte offset of a rectangle's origin (OpenCL 3.0, clEnqueueReadBufferRect: origin[2] * slice_pitch +
 * origin[1] * row_pitch + origin[0]). OpenCL lets origin[0] run past the row pitch, which a Level Zero copy region's
 * originX may not: the face moves the pointers by the offsets and copies regions at origin 0. */
static size_t zfcl_rect_offset(const zfcl_rect *r) {
    return r->origin[2] * r->slice + r->origin[1] * r->row + r->origin[0];
}

static ze_copy_region_t zfcl_region(const size_t *region) {
    return (ze_copy_region_t){0, 0, 0, (uint32_t)region[0], (uint32_t)region[1], (uint32_t)region[2]};
}

static cl_int zfcl_enqueue_rect(cl_command_queue q, cl_command_type type, void *dst, zfcl_rect d, const void *src,
                                zfcl_rect s, const size_t *region, bool blocking, cl_uint num, const cl_event *list,
                                cl_event *event) {
    cl_event e;
    ze_event_handle_t *w;
    uint32_t nw;
    cl_int err = zfcl_command_begin(q, type, num, list, &e, &w, &nw);
    if (err != CL_SUCCESS)
        return err;
    ze_copy_region_t dr = zfcl_region(region), sr = zfcl_region(region);
    ze_result_t r = zfi_zeCommandListAppendMemoryCopyRegion(
        e->list, (char *)dst + zfcl_rect_offset(&d), &dr, (uint32_t)d.row, (uint32_t)d.slice,
        (const char *)src + zfcl_rect_offset(&s), &sr, (uint32_t)s.row, (uint32_t)s.slice, e->ze, nw, w);
    free(w);
    if (r != ZE_RESULT_SUCCESS) {
        zfcl_command_abort(q, e);
        return zfcl_from_ze(r);
    }
    return zfcl_command_end(q, e, event, blocking);
}

/* The checks clEnqueueReadBufferRect and clEnqueueWriteBufferRect share; on success b and h hold the buffer and
 * host rectangles with their pitches defaulted. */
static cl_int zfcl_check_host_rect(cl_command_queue q, cl_mem m, const void *ptr, const size_t *region, bool read,
                                   zfcl_rect *b, zfcl_rect *h) {
    cl_int err = zfcl_check_buffer(q, m, 0, 0);
    if (err == CL_SUCCESS && ptr == NULL)
        err = zfcl_fail(CL_INVALID_VALUE, "ptr is NULL");
    if (err == CL_SUCCESS)
        err = zfcl_rect_pitches(region, &b->row, &b->slice);
    if (err == CL_SUCCESS)
        err = zfcl_rect_pitches(region, &h->row, &h->slice);
    if (err == CL_SUCCESS)
        err = zfcl_rect_inside(b->origin, region, b->row, b->slice, m->size);
    if (err == CL_SUCCESS && h->origin == NULL)
        err = zfcl_fail(CL_INVALID_VALUE, "host_origin is NULL");
    if (err == CL_SUCCESS)
        err = zfcl_host_may(m, read);
    return err;
}

cl_int CL_API_CALL zfcl_clEnqueueReadBufferRect(cl_command_queue q, cl_mem m, cl_bool blocking,
                                                const size_t *buffer_origin, const size_t *host_origin,
                                                const size_t *region, size_t buffer_row, size_t buffer_slice,
                                                size_t host_row, size_t host_slice, void *ptr, cl_uint num,
                                                const cl_event *list, cl_event *event) {
    zfcl_rect h = {host_origin, host_row, host_slice}, b = {buffer_origin, buffer_row, buffer_slice};
    cl_int err = zfcl_check_host_rect(q, m, ptr, region, true, &b, &h);
    if (err != CL_SUCCESS)
        return err;
    return zfcl_enqueue_rect(q, CL_COMMAND_READ_BUFFER_RECT, ptr, h, m->ptr, b, region, blocking, num, list, event);
}

cl_int CL_API_CALL zfcl_clEnqueueWriteBufferRect(cl_command_queue q, cl_mem m, cl_bool blocking,
                                                 const size_t *buffer_origin, const size_t *host_origin,
                                                 const size_t *region, size_t buffer_row, size_t buffer_slice,
                                                 size_t host_row, size_t host_slice, const void *ptr, cl_uint num,
                                                 const cl_event *list, cl_event *event) {
    zfcl_rect h = {host_origin, host_row, host_slice}, b = {buffer_origin, buffer_row, buffer_slice};
    cl_int err = zfcl_check_host_rect(q, m, ptr, region, false, &b, &h);
    if (err != CL_SUCCESS)
        return err;
    return zfcl_enqueue_rect(q, CL_COMMAND_WRITE_BUFFER_RECT, m->ptr, b, ptr, h, region, blocking, num, list, event);
}

/* A rectangle as a box of the buffer seen with its pitches: its first byte's column, row and slice. */
static void zfcl_box_of(const zfcl_rect *r, size_t at[3]) {
    size_t offset = zfcl_rect_offset(r);
    at[2] = offset / r->slice;
    at[1] = offset % r->slice / r->row;
    at[0] = offset % r->row;
}

/* Whether two rectangles share a byte of memory: boxes compared dimension by dimension when both see the memory with
 * the same pitches and neither wraps a row, otherwise their spans of bytes. */
static bool zfcl_rects_overlap(cl_mem src, const zfcl_rect *s, cl_mem dst, const zfcl_rect *d, const size_t *region) {
    const char *a = (const char *)src->ptr + zfcl_rect_offset(s), *b = (const char *)dst->ptr + zfcl_rect_offset(d);
    size_t span_a = (region[2] - 1) * s->slice + (region[1] - 1) * s->row + region[0];
    size_t span_b = (region[2] - 1) * d->slice + (region[1] - 1) * d->row + region[0];
    if (a >= b + span_b || b >= a + span_a)
        return false;
    if (src->ptr != dst->ptr || s->row != d->row || s->slice != d->slice)
        return true;
    size_t x[3], y[3];
    zfcl_box_of(s, x);
    zfcl_box_of(d, y);
    if (x[0] + region[0] > s->row || y[0] + region[0] > d->row)
        return true;
    for (int i = 0; i < 3; i++)
        if (x[i] >= y[i] + region[i] || y[i] >= x[i] + region[i])
            return false;
    return true;
}

cl_int CL_API_CALL zfcl_clEnqueueCopyBufferRect(cl_command_queue q, cl_mem src, cl_mem dst, const size_t *src_origin,
                                                const size_t *dst_origin, const size_t *region, size_t src_row,
                                                size_t src_slice, size_t dst_row, size_t dst_slice, cl_uint num,
                                                const cl_event *list, cl_event *event) {
    cl_int err = zfcl_check_buffer(q, src, 0, 0);
    if (err == CL_SUCCESS)
        err = zfcl_check_buffer(q, dst, 0, 0);
    if (err == CL_SUCCESS)
        err = zfcl_rect_pitches(region, &src_row, &src_slice);
    if (err == CL_SUCCESS)
        err = zfcl_rect_pitches(region, &dst_row, &dst_slice);
    if (err == CL_SUCCESS)
        err = zfcl_rect_inside(src_origin, region, src_row, src_slice, src->size);
    if (err == CL_SUCCESS)
        err = zfcl_rect_inside(dst_origin, region, dst_row, dst_slice, dst->size);
    /* OpenCL 3.0, clEnqueueCopyBufferRect: within one buffer, CL_INVALID_VALUE when the slice pitches differ and the
     * row pitches differ too. */
    if (err == CL_SUCCESS && src == dst && src_row != dst_row && src_slice != dst_slice)
        err = zfcl_fail(CL_INVALID_VALUE, "a copy within one buffer with both its row and slice pitches different");
    zfcl_rect s = {src_origin, src_row, src_slice}, d = {dst_origin, dst_row, dst_slice};
    if (err == CL_SUCCESS && zfcl_rects_overlap(src, &s, dst, &d, region))
        err = zfcl_fail(CL_MEM_COPY_OVERLAP, "the source and destination rectangles overlap in the same memory");
    if (err != CL_SUCCESS)
        return err;
    return zfcl_enqueue_rect(q, CL_COMMAND_COPY_BUFFER_RECT, dst->ptr, d, src->ptr, s, region, false, num, list, event);
}
