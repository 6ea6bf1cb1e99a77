/* Shared between the memory files (memory.c, memory_arena.c, memory_block.c, memory_index.c, memory_account.c,
 * memory_ipc.c, memory_backing.c, memory_external.c); not for the rest of the driver, which uses zf_memory.h.
 *
 * An allocation is a block: a memfd (its own, or a range of an arena) mapped MAP_SHARED (so that IPC can hand the same
 * pages to another process), its device-memory charge, and a reference count. The index of live blocks holds one
 * reference; every hold taken by command execution holds one more. A block leaves the index when it is freed, and is
 * unmapped when its last reference goes, so memory an engine still reads is never pulled from under it. */
#ifndef ZF_MEMORY_INTERNAL_H
#define ZF_MEMORY_INTERNAL_H

#include "memory/zf_memory.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Page size reported for device and shared-with-device allocations (Xe's 64 KiB device pages); host allocations and
 * shared allocations without a device use the host's page size. */
#define ZF_MEMORY_DEVICE_PAGE_SIZE ((size_t)64 << 10)

/* Larger alignments are refused with ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT: the address space reserved to align is
 * size + alignment. */
#define ZF_MEMORY_MAX_ALIGNMENT ((size_t)1 << 40)

#define ZF_IPC_TOKEN_SIZE 16

/* Device memory charged for one allocation: bytes per tile (sub-device) of one root device. */
typedef struct zf_mem_charge {
    zf_device *root; /* NULL: nothing charged */
    uint64_t tile[ZF_SCENARIO_MAX_SUBDEVICES];
} zf_mem_charge;

typedef struct zf_arena zf_arena;

struct zf_mem_block {
    zf_allocation info;
    /* the index's tree (memory_index.c), next to info.base so that a descent reads one cache line per level */
    struct zf_mem_block *left, *right;
    uint32_t priority; /* a heap order on random priorities */
    size_t map_size;   /* the mapping at info.base: size rounded up to the page size */
    size_t page_size;
    int fd;          /* the memfd: the block's own, or its arena's (memory_arena.c) */
    zf_arena *arena; /* NULL: the block owns fd */
    uint64_t offset; /* where info.base's pages start in fd's file */
    bool imported;   /* opened from an IPC handle: closed with zeMemCloseIpcHandle, never charged */
    zf_mem_charge charge;
    unsigned refs;                                /* guarded by the reference lock of memory_block.c */
    unsigned uses;                                /* of refs, those of submitted commands; reference lock */
    bool exported;                                /* a token was issued; guarded by the index lock */
    uint32_t ipc_gets;                            /* zeMemGetIpcHandle calls not returned by zeMemPutIpcHandle */
    uint32_t atomic_attr;                         /* zeMemSetAtomicAccessAttributeExp's last flags; index lock */
    ze_external_memory_type_flags_t export_types; /* external memory: the types it may be exported as (fixed) */
    uint8_t token[ZF_IPC_TOKEN_SIZE];
};

/* ---- memory_block.c: backing memory and block lifetime ---- */

size_t zf_host_page_size(void);

/* A new block of `size` bytes (rounded up to page_size), aligned to max(alignment, page_size), with one reference
 * (the index's). With `shareable`, a small block is a range of an arena (memory_arena.c); otherwise, and for large
 * blocks, it has a memfd of its own (memory that is exported as a file descriptor, or mapped again elsewhere, must
 * start at offset 0 of its file). Fails with ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY (and a reason) when the system
 * refuses. */
ze_result_t zf_block_create(size_t size, size_t alignment, size_t page_size, bool shareable, zf_mem_block **out);

/* Moves a new descriptor at or above 1024 when the process's limit allows (the application keeps its low ones). */
int zf_fd_move_high(int fd);

/* Maps fd (map_size bytes) at an address aligned to `alignment`; MAP_FAILED when the system refuses. */
void *zf_map_aligned(int fd, size_t map_size, size_t alignment);

/* A block mapping map_size bytes at `offset` of someone else's memfd (IPC import); takes ownership of fd on success. */
ze_result_t zf_block_import(int fd, size_t size, size_t map_size, uint64_t offset, zf_mem_block **out);

/* Reference counting: the last unref unmaps the memory (its addresses are held back, see docs/memory.md), releases
 * its device-memory charge and frees the block. */
void zf_block_ref(zf_mem_block *block);
void zf_block_unref(zf_mem_block *block);

/* A reference of a submitted command (zf_memory_use), counted apart from the others (an image made on the memory,
 * a backing of physical memory) because a blocking free waits for these only. */
void zf_block_use(zf_mem_block *block);
void zf_block_unuse(zf_mem_block *block);

/* Drops the index's reference of a block that has left the index. With `wait`, first blocks until no submitted
 * command uses it any more: ZE_DRIVER_MEMORY_FREE_POLICY_EXT_FLAG_BLOCKING_FREE. Returns whether a submitted command
 * used it when called (without `wait`, the memory is then unmapped once the last of them completes). */
bool zf_block_retire(zf_mem_block *block, bool wait);

/* True when [ptr, ptr + size) overlaps the address range of a recently freed allocation (held back, unmapped). */
bool zf_block_range_quarantined(const void *ptr, size_t size);

/* ---- memory_arena.c: small allocations as ranges of shared memfds ---- */

#define ZF_ARENA_SIZE          ((uint64_t)4 << 30) /* bytes of pages per arena */
#define ZF_ARENA_GRANULE       ((uint64_t)4 << 10) /* ranges are multiples of the host page */
#define ZF_ARENA_MAX_ALLOC     ((size_t)2 << 20)   /* larger allocations have a memfd of their own */
#define ZF_ARENA_MAX_ALIGNMENT ((size_t)2 << 20)   /* so do more strictly aligned ones */
#define ZF_ARENA_SEAL_SLOT     ((uint64_t)128)     /* bytes of the seal table per granule (memory_ipc.c) */
#define ZF_ARENA_FILE_SIZE     (ZF_ARENA_SIZE + ZF_ARENA_SIZE / ZF_ARENA_GRANULE * ZF_ARENA_SEAL_SLOT)

/* Whether a block of map_size bytes (page-rounded) aligned to `alignment` is made in an arena. */
bool zf_arena_fits(size_t map_size, size_t alignment);

/* A range of map_size bytes aligned to `alignment` (both as zf_arena_fits accepts): its arena, its offset in the
 * arena's file and its address. ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY when no arena can be made. */
ze_result_t zf_arena_alloc(size_t map_size, size_t alignment, zf_arena **arena, uint64_t *offset, void **base);

/* Gives the pages of a freed range that was never exported back to the system; the range stays mapped. */
void zf_arena_release_pages(zf_arena *arena, uint64_t offset, size_t map_size);

/* Maps a range that left the quarantine of freed ranges again and makes it available to zf_arena_alloc. */
void zf_arena_recycle(zf_arena *arena, uint64_t offset, size_t map_size);

int zf_arena_fd(const zf_arena *arena);

/* Where the seal of the IPC handle of the allocation at `offset` of an arena is kept in the arena's file. */
uint64_t zf_arena_seal_offset(uint64_t offset);

/* ---- memory_external.c: external memory (file descriptors) ---- */

/* A block of `size` bytes mapping the application's descriptor (which stays the application's). */
ze_result_t zf_external_import_block(int fd, size_t size, size_t alignment, zf_mem_block **out);

/* Answers a ze_external_memory_export_fd_t of zeMemGetAllocProperties for the allocation at ptr. */
ze_result_t zf_external_export(zf_context *context, const void *ptr, ze_external_memory_export_fd_t *request);

/* ---- memory_physical.c and memory_virtual.c: reserved address ranges mapped to physical memory objects ---- */

/* Virtual memory pages: every address, size and offset of the virtual memory calls is a multiple of this.
 * zeVirtualMemQueryPageSize answers it, or ZF_VM_LARGE_PAGE for sizes of at least that much. */
#define ZF_VM_PAGE       ((size_t)64 << 10)
#define ZF_VM_LARGE_PAGE ((size_t)2 << 20)

typedef struct zf_physical_mem {
    zf_object header;
    zf_context *context;
    zf_device *device;
    zf_mem_block *block; /* its pages: a memfd charged to the device */
    size_t size;
    unsigned mappings; /* virtual ranges mapped to it; guarded by the virtual memory lock (memory_virtual.c) */
} zf_physical_mem;

/* Whether [ptr, ptr + size) touches a page of a reservation that is not mapped or whose access is NONE: command
 * execution reports such a range instead of touching it. */
bool zf_virtual_range_inaccessible(const void *ptr, size_t size);

/* Unregisters a physical memory object unless it is mapped somewhere (then it cannot be destroyed: false). Atomic with
 * respect to zeVirtualMemMap. */
bool zf_physical_unregister_unmapped(zf_physical_mem *physical);

/* ---- memory_index.c: the live blocks, sorted by address, under a rwlock ---- */

/* The next allocation id (never reused). */
uint64_t zf_index_next_id(void);

/* Inserts a block. */
void zf_index_insert(zf_mem_block *block);

/* Removes the block whose base is exactly `base`, if it belongs to `context` and its `imported` flag is as given;
 * the caller inherits the index's reference. Otherwise NULL, and *why says what is wrong with `base`. */
zf_mem_block *zf_index_remove_base(zf_context *context, const void *base, bool imported, const char **why);

/* A new descriptor (close-on-exec) for the memfd of the allocation of `context` based exactly at `ptr`, which must
 * have been made exportable as `type`; -1 with *why otherwise. */
int zf_index_export_fd(zf_context *context, const void *ptr, ze_external_memory_type_flags_t type, const char **why);

/* What an importer needs to know of an exported allocation. */
typedef struct zf_export_info {
    uint64_t id;
    uint64_t size;
    uint64_t map_size;
    uint64_t offset; /* of its pages in its memfd (arenas) */
    uint8_t token[ZF_IPC_TOKEN_SIZE];
} zf_export_info;

/* Marks the allocation of `context` based at `ptr` exported (its token becomes fresh_token the first time; later
 * exports keep the first token) and describes it. False, with *why, when ptr is not such an allocation. */
bool zf_index_export(zf_context *context, const void *ptr, const uint8_t fresh_token[ZF_IPC_TOKEN_SIZE],
                     zf_export_info *out, const char **why);

/* The exported block with this id and token, with a reference taken; NULL when there is none (or the token is
 * wrong). The token is compared in constant time. */
zf_mem_block *zf_index_lookup_export(uint64_t id, const uint8_t token[ZF_IPC_TOKEN_SIZE]);

/* Returns one zf_index_export of the block with this id and token (zeMemPutIpcHandle): when the last is returned the
 * token is revoked, as freeing revokes it. False when no exported block has them. */
bool zf_index_unexport(uint64_t id, const uint8_t token[ZF_IPC_TOKEN_SIZE]);

/* The atomic access attributes of the shared allocation of `context` holding [ptr, ptr + size): stored from *attr
 * (`set`) or read into it. NULL, or why the range is not such an allocation. */
const char *zf_index_atomic_attr(zf_context *context, const void *ptr, size_t size, uint32_t *attr, bool set);

/* The base of the allocation of `context` with a memfd of its own that `fd` is a descriptor of (the same file), or
 * NULL. */
void *zf_index_base_of_fd(zf_context *context, int fd);

/* ---- memory_account.c: device memory per tile ---- */

/* Charges `bytes` to `device`: a sub-device's own tile, or a root device's tiles evenly (an allocation on a root
 * device is interleaved across its tiles). ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY when a tile lacks room. */
ze_result_t zf_account_charge(zf_device *device, uint64_t bytes, zf_mem_charge *charge);
void zf_account_uncharge(zf_mem_charge *charge);

#endif
