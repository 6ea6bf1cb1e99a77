/* Unified shared memory: host, device and shared allocations backed by host memory, and the lookups that command
 * execution uses to validate and cost copies. (Implemented in memory.c.) */
#ifndef ZF_MEMORY_H
#define ZF_MEMORY_H

#include "zf_driver.h"

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

/* An allocation kept mapped by command execution (opaque). */
typedef struct zf_mem_block zf_mem_block;

/* Like zf_memory_find, and also keeps the allocation mapped until zf_memory_release: if the application frees it
 * meanwhile (zeMemFree, zeMemFreeExt with the defer policy, zeContextDestroy), the pointer stops being an allocation
 * at once but its memory stays readable and writable for the holder, and is unmapped (and its device memory
 * returned) when the last hold is released. zeMemFreeExt with the blocking policy waits for every hold to go. Take a
 * hold for each allocation a submitted command touches, release it when the command completes. NULL when the range
 * is not entirely inside one allocation of `context`. */
zf_mem_block *zf_memory_hold(zf_context *context, const void *ptr, size_t size, zf_allocation *out);
void zf_memory_release(zf_mem_block *block);

/* True when [ptr, ptr + size) touches the addresses of a recently freed allocation. Freed allocations leave their
 * address range reserved and inaccessible for a while (docs/memory.md), so that a stale pointer is neither handed out
 * again nor silently reaches newer memory: execution reports such a range instead of touching it (which would fault).
 * size 0 is treated as 1. */
bool zf_memory_range_freed(const void *ptr, size_t size);

/* Device memory in use on `device` and its capacity, in bytes: a sub-device's own tile, or the sum over a root
 * device's tiles (the sum of zeDeviceGetMemoryProperties' totalSize for that device). */
void zf_memory_device_usage(zf_device *device, uint64_t *used, uint64_t *capacity);

/* Stops the IPC server thread and closes its socket (library unload). */
void zf_ipc_shutdown(void);

#endif
