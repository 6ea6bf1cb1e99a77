/* Virtual memory: zeVirtualMemQueryPageSize, Reserve, Free, Map, Unmap, SetAccessAttribute, GetAccessAttribute.
 *
 * A reservation is host address space reserved with PROT_NONE. Mapping a range of it to a physical memory object
 * maps that object's memfd there (MAP_SHARED | MAP_FIXED), so two ranges mapped to the same pages, in one process or
 * in several, see each other's writes. Unmapping puts inaccessible address space back. Each reservation keeps its
 * mappings sorted; every call works in whole pages of ZF_VM_PAGE (docs/virtual-memory.md has the rules and the result
 * codes chosen where the specification names none). */
#include "core/zf_core.h"
#include "memory/memory_internal.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* One mapped range of a reservation. */
typedef struct zf_vmap {
    uintptr_t start;
    size_t size;
    zf_physical_mem *physical;
    size_t offset; /* into the physical memory */
    ze_memory_access_attribute_t access;
} zf_vmap;

typedef struct zf_reservation {
    zf_context *context;
    uintptr_t start;
    size_t size;
    zf_vmap *maps; /* sorted by start, never overlapping */
    size_t num_maps;
    size_t capacity;
} zf_reservation;

static pthread_mutex_t zf_vm_lock = PTHREAD_MUTEX_INITIALIZER;
static zf_reservation **zf_reservations; /* unsorted; few */
static size_t zf_num_reservations;
static atomic_size_t zf_reservation_count; /* for the lock-free fast path of command execution */

/* ------------------------------------------------------------------------------------------------------------------
 * Bookkeeping (callers hold the lock) */

static zf_reservation *zf_reservation_of(uintptr_t start, size_t size) {
    for (size_t i = 0; i < zf_num_reservations; i++) {
        zf_reservation *r = zf_reservations[i];
        if (start >= r->start && size <= r->size && start - r->start <= r->size - size)
            return r;
    }
    return NULL;
}

/* The reservation of `context` holding all of [ptr, ptr + size), or NULL with a zf_fail reason. */
static zf_reservation *zf_find_reservation(zf_context *context, const void *ptr, size_t size, ze_result_t *result) {
    zf_reservation *r = zf_reservation_of((uintptr_t)ptr, size);
    if (r == NULL)
        *result = zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                          "[%p, +%zu) is not inside one range reserved with zeVirtualMemReserve", ptr, size);
    else if (r->context != context)
        *result = zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "[%p, +%zu) was reserved in another context", ptr, size);
    return r != NULL && r->context == context ? r : NULL;
}

static bool zf_maps_grow(zf_reservation *r, size_t more) {
    if (r->num_maps + more <= r->capacity)
        return true;
    size_t capacity = r->capacity > 0 ? r->capacity * 2 : 8;
    while (capacity < r->num_maps + more)
        capacity *= 2;
    zf_vmap *maps = realloc(r->maps, capacity * sizeof *maps);
    if (maps == NULL)
        return false;
    r->maps = maps;
    r->capacity = capacity;
    return true;
}

/* Position of the first mapping ending after `address`. */
static size_t zf_first_map_after(const zf_reservation *r, uintptr_t address) {
    size_t i = 0;
    while (i < r->num_maps && r->maps[i].start + r->maps[i].size <= address)
        i++;
    return i;
}

/* Whether every page of [start, end) is mapped. */
static bool zf_fully_mapped(const zf_reservation *r, uintptr_t start, uintptr_t end) {
    uintptr_t at = start;
    for (size_t i = zf_first_map_after(r, start); i < r->num_maps && at < end; i++) {
        if (r->maps[i].start > at)
            return false;
        at = r->maps[i].start + r->maps[i].size;
    }
    return at >= end;
}

static bool zf_any_mapped(const zf_reservation *r, uintptr_t start, uintptr_t end) {
    size_t i = zf_first_map_after(r, start);
    return i < r->num_maps && r->maps[i].start < end;
}

/* Splits the mapping containing `address` (if any, and not at its start) in two, so that a mapping starts there. */
static bool zf_split_at(zf_reservation *r, uintptr_t address) {
    size_t i = zf_first_map_after(r, address);
    if (i == r->num_maps || r->maps[i].start >= address)
        return true;
    if (!zf_maps_grow(r, 1))
        return false;
    zf_vmap *m = &r->maps[i];
    zf_vmap tail = *m;
    size_t head = address - m->start;
    m->size = head;
    tail.start = address;
    tail.size -= head;
    tail.offset += head;
    memmove(&r->maps[i + 2], &r->maps[i + 1], (r->num_maps - i - 1) * sizeof *r->maps);
    r->maps[i + 1] = tail;
    r->num_maps++;
    tail.physical->mappings++;
    return true;
}

static int zf_protection(ze_memory_access_attribute_t access) {
    /* Read-only pages stay writable for the host: command execution cannot tell a device read from a write before
     * doing it, and a write to a read-only mapping would kill the process (docs/virtual-memory.md). */
    return access == ZE_MEMORY_ACCESS_ATTRIBUTE_NONE ? PROT_NONE : PROT_READ | PROT_WRITE;
}

/* Puts inaccessible reserved address space back over [start, start + size). */
static void zf_unmap_pages(uintptr_t start, size_t size) {
    mmap((void *)start, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
}

/* Removes the mappings lying inside [start, end) (already split at both ends). */
static void zf_remove_maps(zf_reservation *r, uintptr_t start, uintptr_t end) {
    size_t first = zf_first_map_after(r, start), last = first;
    while (last < r->num_maps && r->maps[last].start < end) {
        r->maps[last].physical->mappings--;
        last++;
    }
    memmove(&r->maps[first], &r->maps[last], (r->num_maps - last) * sizeof *r->maps);
    r->num_maps -= last - first;
    zf_unmap_pages(start, end - start);
}

static void zf_reservation_destroy(zf_reservation *r) {
    for (size_t i = 0; i < r->num_maps; i++)
        r->maps[i].physical->mappings--;
    munmap((void *)r->start, r->size);
    free(r->maps);
    free(r);
}

static void zf_forget_reservation(size_t index) {
    zf_reservations[index] = zf_reservations[--zf_num_reservations];
    atomic_store(&zf_reservation_count, zf_num_reservations);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Checks shared by the calls */

static ze_result_t zf_check_pages(const void *ptr, size_t size) {
    if ((uintptr_t)ptr % ZF_VM_PAGE != 0)
        return zf_fail(ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT, "%p is not aligned to the page size %zu", ptr,
                       ZF_VM_PAGE);
    if (size % ZF_VM_PAGE != 0)
        return zf_fail(ZE_RESULT_ERROR_UNSUPPORTED_SIZE, "size %zu is not a multiple of the page size %zu", size,
                       ZF_VM_PAGE);
    if ((uintptr_t)ptr + size < (uintptr_t)ptr)
        return zf_fail(ZE_RESULT_ERROR_UNSUPPORTED_SIZE, "[%p, +%zu) wraps around the address space", ptr, size);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zeVirtualMemQueryPageSize(ze_context_handle_t hContext, ze_device_handle_t hDevice, size_t size,
                                          size_t *pagesize) {
    if (!zf_context_has_device(zf_context_from(hContext), zf_device_from(hDevice)))
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                       "hDevice is not a device of hContext (nor a sub-device of one)");
    /* Large ranges get large pages, as on Xe devices. */
    *pagesize = size >= ZF_VM_LARGE_PAGE ? ZF_VM_LARGE_PAGE : ZF_VM_PAGE;
    return ZE_RESULT_SUCCESS;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Reserve and free */

/* Reserves at `hint` when that range is free (MAP_FIXED_NOREPLACE never replaces a mapping), else anywhere. */
static void *zf_reserve_address_space(const void *hint, size_t size) {
    if (hint != NULL) {
        void *at = mmap((void *)hint, size, PROT_NONE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
        if (at != MAP_FAILED && at == hint)
            return at;
        if (at != MAP_FAILED)
            munmap(at, size); /* a kernel that ignored the flag put it elsewhere: align it ourselves */
    }
    size_t span = size + ZF_VM_PAGE;
    char *reserve = mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (reserve == MAP_FAILED)
        return MAP_FAILED;
    uintptr_t aligned = ((uintptr_t)reserve + ZF_VM_PAGE - 1) & ~(uintptr_t)(ZF_VM_PAGE - 1);
    size_t head = aligned - (uintptr_t)reserve;
    if (head > 0)
        munmap(reserve, head);
    if (span - head - size > 0)
        munmap((char *)aligned + size, span - head - size);
    return (void *)aligned;
}

ze_result_t zfi_zeVirtualMemReserve(ze_context_handle_t hContext, const void *pStart, size_t size, void **pptr) {
    ze_result_t result = zf_check_pages(pStart, size);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    zf_reservation *r = calloc(1, sizeof *r);
    if (r == NULL)
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory for a reservation");
    pthread_mutex_lock(&zf_vm_lock);
    zf_reservation **grown = realloc(zf_reservations, (zf_num_reservations + 1) * sizeof *grown);
    void *at = grown != NULL ? zf_reserve_address_space(pStart, size) : MAP_FAILED;
    if (grown != NULL)
        zf_reservations = grown;
    if (at == MAP_FAILED) {
        int error = errno;
        pthread_mutex_unlock(&zf_vm_lock);
        free(r);
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "cannot reserve %zu bytes of address space: %s", size,
                       strerror(error));
    }
    r->context = zf_context_from(hContext);
    r->start = (uintptr_t)at;
    r->size = size;
    zf_reservations[zf_num_reservations++] = r;
    atomic_store(&zf_reservation_count, zf_num_reservations);
    pthread_mutex_unlock(&zf_vm_lock);
    *pptr = at;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zeVirtualMemFree(ze_context_handle_t hContext, const void *ptr, size_t size) {
    ze_result_t result = zf_check_pages(ptr, size);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    zf_context *context = zf_context_from(hContext);
    pthread_mutex_lock(&zf_vm_lock);
    size_t i = 0;
    while (i < zf_num_reservations && zf_reservations[i]->start != (uintptr_t)ptr)
        i++;
    zf_reservation *r = i < zf_num_reservations ? zf_reservations[i] : NULL;
    if (r == NULL || r->context != context || r->size != size) {
        pthread_mutex_unlock(&zf_vm_lock);
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "[%p, +%zu) is not a reservation of this context: %s", ptr,
                       size,
                       r == NULL               ? "no reservation starts there"
                       : r->context != context ? "it was reserved in another context"
                                               : "the size differs from the reservation's");
    }
    zf_forget_reservation(i);
    zf_reservation_destroy(r); /* unmaps what is still mapped; the physical memory objects stay */
    pthread_mutex_unlock(&zf_vm_lock);
    return ZE_RESULT_SUCCESS;
}

void zf_memory_release_reservations(zf_context *context) {
    pthread_mutex_lock(&zf_vm_lock);
    for (size_t i = 0; i < zf_num_reservations;) {
        zf_reservation *r = zf_reservations[i];
        if (r->context != context) {
            i++;
            continue;
        }
        zf_forget_reservation(i);
        zf_reservation_destroy(r);
    }
    pthread_mutex_unlock(&zf_vm_lock);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Map and unmap */

static ze_result_t zf_check_physical(const zf_physical_mem *physical, zf_context *context, size_t offset, size_t size) {
    if (physical->context != context)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "hPhysicalMemory belongs to another context");
    if (offset % ZF_VM_PAGE != 0)
        return zf_fail(ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT, "offset %zu is not a multiple of the page size %zu",
                       offset, ZF_VM_PAGE);
    if (offset > physical->size || size > physical->size - offset)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                       "offset %zu + size %zu run past the end of the physical memory (%zu bytes)", offset, size,
                       physical->size);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t zf_map_locked(zf_context *context, const void *ptr, size_t size, zf_physical_mem *physical,
                                 size_t offset, ze_memory_access_attribute_t access) {
    ze_result_t result = ZE_RESULT_SUCCESS;
    zf_reservation *r = zf_find_reservation(context, ptr, size, &result);
    if (r == NULL)
        return result;
    uintptr_t start = (uintptr_t)ptr;
    if (zf_any_mapped(r, start, start + size))
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "[%p, +%zu) overlaps a mapped range: unmap it first", ptr,
                       size);
    if (!zf_maps_grow(r, 1))
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory to record a mapping");
    void *mapped = mmap((void *)ptr, size, zf_protection(access), MAP_SHARED | MAP_FIXED,
                        zf_memory_backing_fd(physical->block), (off_t)offset);
    if (mapped == MAP_FAILED)
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "cannot map %zu bytes at %p: %s", size, ptr,
                       strerror(errno));
    size_t at = zf_first_map_after(r, start);
    memmove(&r->maps[at + 1], &r->maps[at], (r->num_maps - at) * sizeof *r->maps);
    r->maps[at] = (zf_vmap){start, size, physical, offset, access};
    r->num_maps++;
    physical->mappings++;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zeVirtualMemMap(ze_context_handle_t hContext, const void *ptr, size_t size,
                                ze_physical_mem_handle_t hPhysicalMemory, size_t offset,
                                ze_memory_access_attribute_t access) {
    zf_context *context = zf_context_from(hContext);
    zf_physical_mem *physical = (zf_physical_mem *)hPhysicalMemory;
    ze_result_t result = zf_check_pages(ptr, size);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    pthread_mutex_lock(&zf_vm_lock);
    /* The physical memory may have been destroyed by another thread since the entry point looked. */
    if (!zf_handle_is_live(physical, ZF_OBJ_ZE_PHYSICAL_MEM))
        result = zf_fail(ZE_RESULT_ERROR_INVALID_NULL_HANDLE, "hPhysicalMemory was destroyed");
    if (result == ZE_RESULT_SUCCESS)
        result = zf_check_physical(physical, context, offset, size);
    if (result == ZE_RESULT_SUCCESS)
        result = zf_map_locked(context, ptr, size, physical, offset, access);
    pthread_mutex_unlock(&zf_vm_lock);
    return result;
}

/* The mapped range [ptr, ptr + size) of a reservation of `context`, split so that mappings start and end at its
 * edges; NULL (with a reason in *result) when some page of it is not mapped. Call with the lock held. */
/* Splits the mappings at both ends of [ptr, +size), so that each mapping lies inside the range or outside it. */
static zf_reservation *zf_split_range(zf_reservation *r, const void *ptr, size_t size, ze_result_t *result) {
    uintptr_t start = (uintptr_t)ptr;
    if (!zf_split_at(r, start) || !zf_split_at(r, start + size)) {
        *result = zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory to split a mapping");
        return NULL;
    }
    return r;
}

static zf_reservation *zf_mapped_range(zf_context *context, const void *ptr, size_t size, ze_result_t *result) {
    zf_reservation *r = zf_find_reservation(context, ptr, size, result);
    if (r == NULL)
        return NULL;
    uintptr_t start = (uintptr_t)ptr;
    if (!zf_fully_mapped(r, start, start + size)) {
        *result = zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "[%p, +%zu) is not mapped in full", ptr, size);
        return NULL;
    }
    return zf_split_range(r, ptr, size, result);
}

ze_result_t zfi_zeVirtualMemUnmap(ze_context_handle_t hContext, const void *ptr, size_t size) {
    ze_result_t result = zf_check_pages(ptr, size);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    pthread_mutex_lock(&zf_vm_lock);
    zf_reservation *r = zf_mapped_range(zf_context_from(hContext), ptr, size, &result);
    if (r != NULL)
        zf_remove_maps(r, (uintptr_t)ptr, (uintptr_t)ptr + size);
    pthread_mutex_unlock(&zf_vm_lock);
    return result;
}

bool zf_physical_unregister_unmapped(zf_physical_mem *physical) {
    pthread_mutex_lock(&zf_vm_lock);
    bool unmapped = physical->mappings == 0;
    if (unmapped)
        zf_object_unregister(&physical->header);
    pthread_mutex_unlock(&zf_vm_lock);
    return unmapped;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Access attributes */

/* Sets the access of the mappings inside [ptr, +size) (split at both ends); the holes between them stay
 * inaccessible. */
static ze_result_t zf_set_access_locked(zf_reservation *r, const void *ptr, size_t size,
                                        ze_memory_access_attribute_t access) {
    uintptr_t end = (uintptr_t)ptr + size;
    for (size_t i = zf_first_map_after(r, (uintptr_t)ptr); i < r->num_maps && r->maps[i].start < end; i++) {
        zf_vmap *m = &r->maps[i];
        if (mprotect((void *)m->start, m->size, zf_protection(access)) != 0)
            return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "mprotect: %s", strerror(errno));
        m->access = access;
    }
    return ZE_RESULT_SUCCESS;
}

/* The range whose access is set: mapped in full in the strict profile; the default one, as Intel's driver, sets the
 * access of the mapped pages of a range with holes (docs/tolerances.md). */
static zf_reservation *zf_access_range(zf_context *context, const void *ptr, size_t size, ze_result_t *result) {
    zf_reservation *r = zf_find_reservation(context, ptr, size, result);
    if (r == NULL || zf_fully_mapped(r, (uintptr_t)ptr, (uintptr_t)ptr + size) || zf_strict())
        return r != NULL ? zf_mapped_range(context, ptr, size, result) : NULL;
    zf_tolerate("the range must be mapped", "set the access of its mapped pages");
    return zf_split_range(r, ptr, size, result);
}

ze_result_t zfi_zeVirtualMemSetAccessAttribute(ze_context_handle_t hContext, const void *ptr, size_t size,
                                               ze_memory_access_attribute_t access) {
    ze_result_t result = zf_check_pages(ptr, size);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    pthread_mutex_lock(&zf_vm_lock);
    zf_reservation *r = zf_access_range(zf_context_from(hContext), ptr, size, &result);
    if (r != NULL)
        result = zf_set_access_locked(r, ptr, size, access);
    pthread_mutex_unlock(&zf_vm_lock);
    return result;
}

/* The access of the page at `address` (NONE when not mapped) and where the run of pages with that access ends. */
static ze_memory_access_attribute_t zf_access_run(const zf_reservation *r, uintptr_t address, uintptr_t *run_end) {
    size_t i = zf_first_map_after(r, address);
    if (i == r->num_maps || r->maps[i].start > address) {
        *run_end = i < r->num_maps ? r->maps[i].start : r->start + r->size;
        return ZE_MEMORY_ACCESS_ATTRIBUTE_NONE;
    }
    const zf_vmap *m = &r->maps[i];
    *run_end = m->start + m->size;
    return m->access;
}

ze_result_t zfi_zeVirtualMemGetAccessAttribute(ze_context_handle_t hContext, const void *ptr, size_t size,
                                               ze_memory_access_attribute_t *access, size_t *outSize) {
    ze_result_t result = zf_check_pages(ptr, size);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    pthread_mutex_lock(&zf_vm_lock);
    zf_reservation *r = zf_find_reservation(zf_context_from(hContext), ptr, size, &result);
    if (r != NULL) {
        uintptr_t start = (uintptr_t)ptr, end = start + size, at = start;
        ze_memory_access_attribute_t first = zf_access_run(r, start, &at);
        uintptr_t next_end = at;
        while (at < end && zf_access_run(r, at, &next_end) == first)
            at = next_end;
        *access = first;
        *outSize = (at < end ? at : end) - start;
    }
    pthread_mutex_unlock(&zf_vm_lock);
    return result;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Command execution */

/* Access attributes from the most to the least restrictive. */
static int zf_access_rank(ze_memory_access_attribute_t access) {
    return access == ZE_MEMORY_ACCESS_ATTRIBUTE_NONE ? 0 : access == ZE_MEMORY_ACCESS_ATTRIBUTE_READONLY ? 1 : 2;
}

/* The run of adjacent mappings with the access attribute of the page at `address` (mapped). */
static zf_vm_span zf_uniform_run(const zf_reservation *r, uintptr_t address) {
    size_t i = zf_first_map_after(r, address);
    zf_vm_span run = {r->maps[i].start, r->maps[i].start + r->maps[i].size, r->maps[i].access};
    for (size_t k = i;
         k > 0 && r->maps[k - 1].start + r->maps[k - 1].size == run.start && r->maps[k - 1].access == run.access; k--)
        run.start = r->maps[k - 1].start;
    for (size_t k = i + 1; k < r->num_maps && r->maps[k].start == run.end && r->maps[k].access == run.access; k++)
        run.end = r->maps[k].start + r->maps[k].size;
    return run;
}

static void zf_span_in(const zf_reservation *r, uintptr_t start, uintptr_t end, zf_vm_span *span) {
    *span = (zf_vm_span){start, end, ZE_MEMORY_ACCESS_ATTRIBUTE_NONE};
    if (start < r->start || end > r->start + r->size)
        return; /* partly outside the reservation */
    uintptr_t run_end = start;
    ze_memory_access_attribute_t first = zf_access_run(r, start, &run_end), least = first;
    for (uintptr_t at = run_end; at < end && zf_access_rank(least) > 0;) {
        ze_memory_access_attribute_t next = zf_access_run(r, at, &run_end);
        least = zf_access_rank(next) < zf_access_rank(least) ? next : least;
        at = run_end;
    }
    span->access = least;
    if (least == first && first != ZE_MEMORY_ACCESS_ATTRIBUTE_NONE && end <= run_end)
        *span = zf_uniform_run(r, start);
}

bool zf_virtual_span(const void *ptr, size_t size, zf_vm_span *span) {
    if (atomic_load_explicit(&zf_reservation_count, memory_order_relaxed) == 0)
        return false;
    uintptr_t start = (uintptr_t)ptr, end = start + (size > 0 ? size : 1);
    if (end < start)
        end = UINTPTR_MAX;
    bool found = false;
    pthread_mutex_lock(&zf_vm_lock);
    for (size_t i = 0; i < zf_num_reservations && !found; i++) {
        const zf_reservation *r = zf_reservations[i];
        found = start < r->start + r->size && end > r->start;
        if (found)
            zf_span_in(r, start, end, span);
    }
    pthread_mutex_unlock(&zf_vm_lock);
    return found;
}

bool zf_virtual_range_inaccessible(const void *ptr, size_t size) {
    zf_vm_span span;
    return zf_virtual_span(ptr, size, &span) && span.access == ZE_MEMORY_ACCESS_ATTRIBUTE_NONE;
}
