/* Backing memory of allocations: a range of an arena (memory_arena.c) for small ones, a memfd of its own for the
 * others, mapped MAP_SHARED (IPC hands the same pages to other processes), aligned by over-reserving address space;
 * the reference count that keeps a block mapped while command execution holds it (and the count of submitted
 * commands using it, which a blocking free waits for); and the quarantine of freed
 * address ranges. */
#include "core/zf_core.h"
#include "memory/memory_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Memfds are moved to descriptors at or above this one when the process's limit allows, so that an application
 * with many allocations keeps its low descriptors (and select()) for itself. */
#define ZF_MEMFD_LOW_WATER 1024

/* Freed ranges held back: at most this many, covering at most this much address space (user space has 128 TiB). */
#define ZF_QUARANTINE_RANGES 1024u
#define ZF_QUARANTINE_BYTES  ((size_t)1 << 40)

static pthread_mutex_t zf_block_ref_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t zf_block_ref_cond = PTHREAD_COND_INITIALIZER;

typedef struct zf_quarantined {
    uintptr_t start;
    size_t size;
    zf_arena *arena; /* the range goes back to its arena when it leaves the quarantine; NULL: it is unmapped */
    uint64_t offset;
} zf_quarantined;

static pthread_mutex_t zf_quarantine_lock = PTHREAD_MUTEX_INITIALIZER;
static zf_quarantined zf_quarantine[ZF_QUARANTINE_RANGES];
static size_t zf_quarantine_first; /* the oldest entry */
static size_t zf_quarantine_count;
static size_t zf_quarantine_bytes;

size_t zf_host_page_size(void) {
    long page = sysconf(_SC_PAGESIZE);
    return page > 0 ? (size_t)page : 4096u;
}

/* value rounded up to a multiple of `to` (a power of two); 0 when that overflows. */
static size_t zf_round_up(size_t value, size_t to) {
    if (value > SIZE_MAX - (to - 1))
        return 0;
    return (value + to - 1) & ~(to - 1);
}

int zf_fd_move_high(int fd) {
    if (fd >= ZF_MEMFD_LOW_WATER)
        return fd;
    int high = fcntl(fd, F_DUPFD_CLOEXEC, ZF_MEMFD_LOW_WATER);
    if (high < 0)
        return fd; /* the limit is too low to move it: keep the low one */
    close(fd);
    return high;
}

static ze_result_t zf_memfd_create(size_t map_size, int *out) {
    int fd = memfd_create("zefake-usm", MFD_CLOEXEC);
    if (fd < 0)
        return zf_fail(
            ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "memfd_create: %s%s", strerror(errno),
            errno == EMFILE ? " (each large or exportable allocation holds one descriptor: raise RLIMIT_NOFILE)" : "");
    if (ftruncate(fd, (off_t)map_size) != 0) {
        int error = errno;
        close(fd);
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "cannot size the backing memfd to %zu bytes: %s", map_size,
                       strerror(error));
    }
    *out = zf_fd_move_high(fd);
    return ZE_RESULT_SUCCESS;
}

/* Maps fd at an address aligned to `alignment`: reserves map_size + alignment of address space, maps the memfd at
 * the aligned address inside it and returns the slack on both sides. */
void *zf_map_aligned(int fd, size_t map_size, size_t alignment) {
    if (alignment <= zf_host_page_size())
        return mmap(NULL, map_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    size_t span = map_size + alignment; /* the caller checked that this does not overflow */
    char *reserve = mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (reserve == MAP_FAILED)
        return MAP_FAILED;
    uintptr_t aligned = ((uintptr_t)reserve + alignment - 1) & ~(uintptr_t)(alignment - 1);
    void *mapped = mmap((void *)aligned, map_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
    if (mapped == MAP_FAILED) {
        munmap(reserve, span);
        return MAP_FAILED;
    }
    size_t head = aligned - (uintptr_t)reserve;
    size_t tail = span - head - map_size;
    if (head > 0)
        munmap(reserve, head);
    if (tail > 0)
        munmap((char *)aligned + map_size, tail);
    return mapped;
}

/* The block's pages in an arena. */
static ze_result_t zf_block_in_arena(zf_mem_block *block, size_t map_size, size_t align) {
    void *base = NULL;
    ze_result_t result = zf_arena_alloc(map_size, align, &block->arena, &block->offset, &base);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    block->fd = zf_arena_fd(block->arena);
    block->info.base = base;
    return ZE_RESULT_SUCCESS;
}

/* The block's pages in a memfd of its own. */
static ze_result_t zf_block_own_file(zf_mem_block *block, size_t map_size, size_t align) {
    ze_result_t result = zf_memfd_create(map_size, &block->fd);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    void *base = zf_map_aligned(block->fd, map_size, align);
    if (base == MAP_FAILED) {
        int error = errno;
        close(block->fd);
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "cannot map %zu bytes aligned to %zu: %s", map_size, align,
                       strerror(error));
    }
    block->info.base = base;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zf_block_create(size_t size, size_t alignment, size_t page_size, bool shareable, zf_mem_block **out) {
    size_t map_size = zf_round_up(size, page_size);
    size_t align = alignment > page_size ? alignment : page_size;
    if (map_size == 0 || map_size > SIZE_MAX - align || map_size > (size_t)INT64_MAX)
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "%zu bytes aligned to %zu do not fit the address space",
                       size, align);
    zf_mem_block *block = calloc(1, sizeof *block);
    if (block == NULL)
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory for an allocation record");
    ze_result_t result = shareable && zf_arena_fits(map_size, align) ? zf_block_in_arena(block, map_size, align)
                                                                     : zf_block_own_file(block, map_size, align);
    if (result != ZE_RESULT_SUCCESS) {
        free(block);
        return result;
    }
    block->info.size = size;
    block->map_size = map_size;
    block->page_size = page_size;
    block->refs = 1;
    *out = block;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zf_block_import(int fd, size_t size, size_t map_size, uint64_t offset, zf_mem_block **out) {
    zf_mem_block *block = calloc(1, sizeof *block);
    if (block == NULL)
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory for an allocation record");
    void *base = mmap(NULL, map_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)offset);
    if (base == MAP_FAILED) {
        int error = errno;
        free(block);
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "cannot map the %zu bytes of the IPC handle: %s", map_size,
                       strerror(error));
    }
    block->fd = zf_fd_move_high(fd);
    block->offset = offset;
    block->info.base = base;
    block->info.size = size;
    block->map_size = map_size;
    block->page_size = map_size % ZF_MEMORY_DEVICE_PAGE_SIZE == 0 ? ZF_MEMORY_DEVICE_PAGE_SIZE : zf_host_page_size();
    block->imported = true;
    block->refs = 1;
    *out = block;
    return ZE_RESULT_SUCCESS;
}

static void zf_quarantine_drop_oldest(void) {
    zf_quarantined *oldest = &zf_quarantine[zf_quarantine_first];
    if (oldest->arena != NULL)
        zf_arena_recycle(oldest->arena, oldest->offset, oldest->size);
    else
        munmap((void *)oldest->start, oldest->size);
    zf_quarantine_bytes -= oldest->size;
    zf_quarantine_first = (zf_quarantine_first + 1) % ZF_QUARANTINE_RANGES;
    zf_quarantine_count--;
}

/* Returns the pages of a freed mapping to the system but keeps its addresses taken (inaccessible) for a while, so
 * that the next allocations land elsewhere: a stale pointer then faults or is recognised as freed, instead of
 * reaching (or freeing) a newer allocation that happens to reuse the address. */
static void zf_quarantine_add(void *base, size_t size, zf_arena *arena, uint64_t offset) {
    void *reserved = mmap(base, size, PROT_NONE, MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (reserved == MAP_FAILED || size > ZF_QUARANTINE_BYTES) {
        if (arena == NULL) /* an arena's range stays its arena's: never reused, it cannot be taken by anyone else */
            munmap(base, size);
        return;
    }
    pthread_mutex_lock(&zf_quarantine_lock);
    while (zf_quarantine_count == ZF_QUARANTINE_RANGES || zf_quarantine_bytes + size > ZF_QUARANTINE_BYTES)
        zf_quarantine_drop_oldest();
    size_t slot = (zf_quarantine_first + zf_quarantine_count) % ZF_QUARANTINE_RANGES;
    zf_quarantine[slot] = (zf_quarantined){(uintptr_t)base, size, arena, offset};
    zf_quarantine_count++;
    zf_quarantine_bytes += size;
    pthread_mutex_unlock(&zf_quarantine_lock);
}

bool zf_block_range_quarantined(const void *ptr, size_t size) {
    uintptr_t start = (uintptr_t)ptr;
    uintptr_t end = start + (size > 0 ? size : 1);
    if (end < start)
        end = UINTPTR_MAX;
    bool found = false;
    pthread_mutex_lock(&zf_quarantine_lock);
    for (size_t i = 0; i < zf_quarantine_count && !found; i++) {
        const zf_quarantined *q = &zf_quarantine[(zf_quarantine_first + i) % ZF_QUARANTINE_RANGES];
        found = start < q->start + q->size && q->start < end;
    }
    pthread_mutex_unlock(&zf_quarantine_lock);
    return found;
}

bool zf_memory_range_freed(const void *ptr, size_t size) {
    /* Unmapped pages of a virtual reservation are as unreachable as freed memory. */
    return zf_block_range_quarantined(ptr, size) || zf_virtual_range_inaccessible(ptr, size);
}

static void zf_block_destroy(zf_mem_block *block) {
    /* An exported range keeps its pages for the processes that opened it, as the file of an allocation of its own
     * does, and is never handed out again (docs/memory.md "Arenas"). */
    zf_arena *reuse = block->exported ? NULL : block->arena;
    if (reuse != NULL)
        zf_arena_release_pages(reuse, block->offset, block->map_size);
    zf_quarantine_add(block->info.base, block->map_size, reuse, block->offset);
    if (block->arena == NULL)
        close(block->fd);
    zf_account_uncharge(&block->charge);
    free(block);
}

void zf_block_ref(zf_mem_block *block) {
    pthread_mutex_lock(&zf_block_ref_lock);
    block->refs++;
    pthread_mutex_unlock(&zf_block_ref_lock);
}

void zf_block_unref(zf_mem_block *block) {
    pthread_mutex_lock(&zf_block_ref_lock);
    bool last = --block->refs == 0;
    pthread_mutex_unlock(&zf_block_ref_lock);
    if (last)
        zf_block_destroy(block);
}

void zf_block_use(zf_mem_block *block) {
    pthread_mutex_lock(&zf_block_ref_lock);
    block->refs++;
    block->uses++;
    pthread_mutex_unlock(&zf_block_ref_lock);
}

void zf_block_unuse(zf_mem_block *block) {
    pthread_mutex_lock(&zf_block_ref_lock);
    bool last = --block->refs == 0;
    if (--block->uses == 0 && !last)
        pthread_cond_broadcast(&zf_block_ref_cond); /* a blocking free may be waiting for this one */
    pthread_mutex_unlock(&zf_block_ref_lock);
    if (last)
        zf_block_destroy(block);
}

bool zf_block_retire(zf_mem_block *block, bool wait) {
    pthread_mutex_lock(&zf_block_ref_lock);
    bool used = block->uses > 0;
    while (wait && block->uses > 0)
        pthread_cond_wait(&zf_block_ref_cond, &zf_block_ref_lock);
    bool last = --block->refs == 0;
    pthread_mutex_unlock(&zf_block_ref_lock);
    if (last)
        zf_block_destroy(block);
    return used;
}
