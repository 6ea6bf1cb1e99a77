/* Unified shared memory: host, device and shared allocations backed by host memory, and the lookups that command
 * execution uses to validate and cost copies. (Implemented in memory.c.) */
#ifndef ZF_MEMORY_H
#define ZF_MEMORY_H

#include "driver/zf_driver.h"

#include <stddef.h>
#include <stdint.h>

/* One USM allocation. Allocations are not handles: applications name them by pointer. */
typedef struct zf_allocation {
    zf_context *context;
    zf_device *device; /* NULL for host allocations; the associated device for shared ones (may be NULL) */
    ze_memory_type_t type;
    void *base;  /* what the application sees */
    size_t size; /* what the application asked for */
    uint64_t id; /* unique for the life of the process, never reused */
} zf_allocation;

/* The allocation of `context` that contains every byte of [ptr, ptr + size), copied into *out; false when the range
 * is not entirely inside one allocation (it may still be ordinary host memory, which copies accept). Safe to call
 * from engine worker threads concurrently with allocation and free. size 0 is treated as 1. */
bool zf_memory_find(zf_context *context, const void *ptr, size_t size, zf_allocation *out);

/* True when [ptr, ptr + size) overlaps some allocation of `context` without fitting inside it: an out-of-bounds
 * access that execution reports instead of performing. */
bool zf_memory_range_overruns(zf_context *context, const void *ptr, size_t size);

/* Frees every allocation still owned by a context being destroyed. */
void zf_memory_release_context(zf_context *context);

/* Unmaps and frees every virtual memory reservation of a context being destroyed (memory_virtual.c). */
void zf_memory_release_reservations(zf_context *context);

/* An allocation kept mapped by command execution (opaque). */
typedef struct zf_mem_block zf_mem_block;

/* Like zf_memory_find, and also keeps the allocation mapped until zf_memory_release: if the application frees it
 * meanwhile (zeMemFree, zeMemFreeExt, zeContextDestroy), the pointer stops being an allocation at once but its
 * memory stays readable and writable for the holder, and is unmapped (and its device memory returned) when the last
 * hold is released. NULL when the range is not entirely inside one allocation of `context`. */
zf_mem_block *zf_memory_hold(zf_context *context, const void *ptr, size_t size, zf_allocation *out);
void zf_memory_release(zf_mem_block *block);
/* Like zf_memory_hold for a range that may also cover the rest of the allocation's last page (its padding: sizes are
 * rounded up to the allocation's page size, docs/memory.md "Backing"). */
zf_mem_block *zf_memory_hold_mapped(zf_context *context, const void *ptr, size_t size, zf_allocation *out);

/* A hold of the allocation of `context` that `ptr` points into, for a submitted command, from its submission until
 * it completes (zf_memory_unuse): zeMemFreeExt with the blocking policy waits for these holds to go, the other frees
 * detach the allocation at once and unmap it when the last goes (docs/memory.md, "Freeing memory in use"). NULL when
 * `ptr` is in no allocation of `context`. */
zf_mem_block *zf_memory_use(zf_context *context, const void *ptr);
void zf_memory_unuse(zf_mem_block *block);

/* True when [ptr, ptr + size) touches the addresses of a recently freed allocation, or pages of a virtual reservation
 * that are not mapped or not accessible (zeVirtualMemReserve, docs/virtual-memory.md). Freed allocations leave their
 * address range reserved and inaccessible for a while (docs/memory.md), so that a stale pointer is neither handed out
 * again nor silently reaches newer memory: execution reports such a range instead of touching it (which would fault).
 * size 0 is treated as 1. */
bool zf_memory_range_freed(const void *ptr, size_t size);

/* A range of a virtual memory reservation (zeVirtualMemReserve) as device accesses see it. */
typedef struct zf_vm_span {
    uintptr_t start, end;                /* [start, end): one access attribute throughout */
    ze_memory_access_attribute_t access; /* NONE: not mapped, or mapped without access */
} zf_vm_span;

/* Whether [ptr, ptr + size) touches a reservation. If it does, *span holds it: the run of adjacent mappings with the
 * range's access attribute around it, or the range itself with its most restrictive attribute when it crosses
 * attributes (NONE when part of it is not mapped or lies outside the reservation). size 0 is treated as 1. A range
 * mapped for access stays valid while the application leaves the mapping alone, as on a device. */
bool zf_virtual_span(const void *ptr, size_t size, zf_vm_span *span);

/* Device memory in use on `device` and its capacity, in bytes: a sub-device's own tile, or the sum over a root
 * device's tiles (the sum of zeDeviceGetMemoryProperties' totalSize for that device). */
void zf_memory_device_usage(zf_device *device, uint64_t *used, uint64_t *capacity);

/* ---- device memory that is not a USM allocation (memory_backing.c) ----
 * The storage of images and of physical memory objects: a memfd like any allocation's (so that it can be exported as
 * a file descriptor or mapped again elsewhere), charged to a device's memory, but not in the index of allocations,
 * so its addresses are not USM pointers. Reference counted like allocations: the last zf_memory_release unmaps it
 * (its addresses are held back, docs/memory.md) and returns its device memory. */

/* size bytes (rounded up to page_size, a multiple of the host page size; 0 for the host's) charged to `device` (NULL:
 * not charged). ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY when a tile of the device lacks room. */
ze_result_t zf_memory_backing_create(zf_device *device, size_t size, size_t page_size, zf_mem_block **out);
/* A backing block for a file descriptor given by the application (external memory import): the descriptor is
 * duplicated, so the caller keeps its own. At least `size` bytes must be mappable from it. */
ze_result_t zf_memory_backing_import(int fd, size_t size, zf_mem_block **out);
void *zf_memory_backing_base(const zf_mem_block *block);
size_t zf_memory_backing_size(const zf_mem_block *block);     /* the size asked for */
size_t zf_memory_backing_map_size(const zf_mem_block *block); /* the memfd's size */
int zf_memory_backing_fd(const zf_mem_block *block);          /* owned by the block */
uint64_t zf_memory_backing_id(const zf_mem_block *block);     /* unique, from the allocation ids */
void zf_memory_retain(zf_mem_block *block);                   /* one more reference (released by zf_memory_release) */

/* ---- descriptor chains shared with images ---- */

/* External memory asked for by a descriptor chain: the types to export as, and a descriptor to import. */
typedef struct zf_external_request {
    ze_external_memory_type_flags_t export_types;
    int import_fd; /* -1: no import */
} zf_external_request;

/* Reads one external-memory structure of a descriptor chain (ze_external_memory_import_fd_t, its win32 twin, or
 * ze_external_memory_export_desc_t). `supported`: whether the object may import and export (the specification lets
 * device allocations and images do so). */
ze_result_t zf_external_read(const ze_base_desc_t *ext, const char *arg, bool supported, zf_external_request *request);

/* Checks a ze_memory_compression_hints_ext_desc_t (a hint: nothing is compressed). */
ze_result_t zf_memory_check_compression_hints(const ze_memory_compression_hints_ext_desc_t *desc, const char *arg);

/* ---- IPC of objects that are not allocations (memory_ipc.c) ----
 * The memory IPC server also hands out descriptors registered here (event pools' shared state), to peers of the same
 * user that present the ticket's id and 128-bit token, exactly as for allocations (docs/memory.md). */
typedef struct zf_ipc_ticket {
    uint32_t pid;   /* the exporting process */
    uint64_t nonce; /* its server's */
    uint64_t id;
    uint64_t size; /* of the file behind the descriptor */
    uint8_t token[16];
} zf_ipc_ticket;

/* Shares (a duplicate of) fd, whose file holds `size` bytes, until zf_ipc_unshare_fd; starts the server. */
ze_result_t zf_ipc_share_fd(int fd, uint64_t size, zf_ipc_ticket *ticket);
void zf_ipc_unshare_fd(uint64_t id);
/* Asks the process a ticket names for its descriptor; ZE_RESULT_ERROR_INVALID_ARGUMENT when refused or gone. */
ze_result_t zf_ipc_fetch_shared(const zf_ipc_ticket *ticket, int *fd);

/* Stops the IPC server thread and closes its socket (library unload). */
void zf_ipc_shutdown(void);

#endif
