/* Arenas: small allocations share large memfds, so that the number of descriptors does not grow with the number of
 * allocations (docs/memory.md "Arenas"). An arena is one memfd of ZF_ARENA_SIZE bytes of pages, followed by a table
 * of IPC seals (one slot per host page of the arena), mapped MAP_SHARED once at an address aligned to
 * ZF_ARENA_MAX_ALIGNMENT. A sub-allocation is a page-rounded range of it: taken from the free list of its size when
 * one is suitably aligned, else from the end of the last arena (a new arena when that is full). Freeing punches the
 * range's pages out of the file at once, so the memory goes back to the system; the address range itself waits in
 * the quarantine of freed ranges (memory_block.c) and comes back here, mapped again, when it leaves it. Files are
 * sparse: an arena costs address space and a descriptor, memory only for the pages written. */
#include "core/zf_core.h"
#include "memory/memory_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define ZF_ARENA_MAX_COUNT 256u
#define ZF_ARENA_CLASSES   (ZF_ARENA_MAX_ALLOC / ZF_ARENA_GRANULE) /* free lists: one per size in granules */

struct zf_arena {
    int fd;
    char *base;    /* the mapping of the ZF_ARENA_SIZE bytes of pages */
    uint64_t used; /* bytes handed out from the start, free ranges included */
};

typedef struct zf_arena_range {
    zf_arena *arena;
    uint64_t offset;
} zf_arena_range;

typedef struct zf_arena_free_list {
    zf_arena_range *ranges;
    size_t count, capacity;
} zf_arena_free_list;

static pthread_mutex_t zf_arena_lock = PTHREAD_MUTEX_INITIALIZER;
static zf_arena zf_arenas[ZF_ARENA_MAX_COUNT];
static size_t zf_arena_count;
static zf_arena_free_list zf_free_lists[ZF_ARENA_CLASSES];

bool zf_arena_fits(size_t map_size, size_t alignment) {
    return map_size > 0 && map_size <= ZF_ARENA_MAX_ALLOC && map_size % ZF_ARENA_GRANULE == 0 &&
           alignment <= ZF_ARENA_MAX_ALIGNMENT;
}

uint64_t zf_arena_seal_offset(uint64_t offset) {
    return ZF_ARENA_SIZE + offset / ZF_ARENA_GRANULE * ZF_ARENA_SEAL_SLOT;
}

int zf_arena_fd(const zf_arena *arena) {
    return arena->fd;
}

static ze_result_t zf_arena_open(zf_arena *arena) {
    int fd = memfd_create("zefake-arena", MFD_CLOEXEC);
    if (fd < 0)
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "memfd_create for a memory arena: %s", strerror(errno));
    if (ftruncate(fd, (off_t)ZF_ARENA_FILE_SIZE) != 0) {
        int error = errno;
        close(fd);
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "cannot size a memory arena: %s", strerror(error));
    }
    fd = zf_fd_move_high(fd);
    void *base = zf_map_aligned(fd, ZF_ARENA_SIZE, ZF_ARENA_MAX_ALIGNMENT);
    if (base == MAP_FAILED) {
        int error = errno;
        close(fd);
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "cannot map a memory arena: %s", strerror(error));
    }
    *arena = (zf_arena){fd, base, 0};
    return ZE_RESULT_SUCCESS;
}

/* A freed range of this size aligned as asked, taken off its free list; false when there is none on top. */
static bool zf_arena_reuse(size_t map_size, size_t alignment, zf_arena_range *out) {
    zf_arena_free_list *list = &zf_free_lists[map_size / ZF_ARENA_GRANULE - 1];
    if (list->count == 0)
        return false;
    zf_arena_range top = list->ranges[list->count - 1];
    if (((uintptr_t)top.arena->base + top.offset) % alignment != 0)
        return false;
    list->count--;
    *out = top;
    return true;
}

/* A range from the end of the last arena, opening a new arena when it is full. */
static ze_result_t zf_arena_extend(size_t map_size, size_t alignment, zf_arena_range *out) {
    zf_arena *arena = zf_arena_count > 0 ? &zf_arenas[zf_arena_count - 1] : NULL;
    uint64_t offset = arena != NULL ? (arena->used + alignment - 1) & ~(uint64_t)(alignment - 1) : 0;
    if (arena == NULL || offset + map_size > ZF_ARENA_SIZE) {
        if (zf_arena_count == ZF_ARENA_MAX_COUNT)
            return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "all %u memory arenas are full", ZF_ARENA_MAX_COUNT);
        ze_result_t result = zf_arena_open(&zf_arenas[zf_arena_count]);
        if (result != ZE_RESULT_SUCCESS)
            return result;
        arena = &zf_arenas[zf_arena_count++];
        offset = 0;
    }
    arena->used = offset + map_size;
    *out = (zf_arena_range){arena, offset};
    return ZE_RESULT_SUCCESS;
}

ze_result_t zf_arena_alloc(size_t map_size, size_t alignment, zf_arena **arena, uint64_t *offset, void **base) {
    if (alignment < ZF_ARENA_GRANULE)
        alignment = ZF_ARENA_GRANULE;
    zf_arena_range range = {NULL, 0};
    ze_result_t result = ZE_RESULT_SUCCESS;
    pthread_mutex_lock(&zf_arena_lock);
    if (!zf_arena_reuse(map_size, alignment, &range))
        result = zf_arena_extend(map_size, alignment, &range);
    pthread_mutex_unlock(&zf_arena_lock);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    *arena = range.arena;
    *offset = range.offset;
    *base = range.arena->base + range.offset;
    return ZE_RESULT_SUCCESS;
}

void zf_arena_release_pages(zf_arena *arena, uint64_t offset, size_t map_size) {
    /* Its seal slot needs nothing: only exported ranges have a seal, and they are never released (memory_block.c). */
    if (fallocate(arena->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)offset, (off_t)map_size) != 0)
        zf_log(ZF_LOG_WARN, "cannot release the pages of a freed allocation: %s", strerror(errno));
}

void zf_arena_recycle(zf_arena *arena, uint64_t offset, size_t map_size) {
    /* The range is the quarantine's inaccessible reservation: map the arena's pages there again. */
    void *at = arena->base + offset;
    if (mmap(at, map_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, arena->fd, (off_t)offset) == MAP_FAILED) {
        zf_log(ZF_LOG_WARN, "cannot map a freed arena range again (%s): it is not reused", strerror(errno));
        return;
    }
    pthread_mutex_lock(&zf_arena_lock);
    zf_arena_free_list *list = &zf_free_lists[map_size / ZF_ARENA_GRANULE - 1];
    if (list->count == list->capacity) {
        size_t capacity = list->capacity > 0 ? list->capacity * 2 : 64;
        zf_arena_range *ranges = realloc(list->ranges, capacity * sizeof *ranges);
        if (ranges != NULL) {
            list->ranges = ranges;
            list->capacity = capacity;
        }
    }
    if (list->count < list->capacity) /* else (no host memory) the range is simply not reused */
        list->ranges[list->count++] = (zf_arena_range){arena, offset};
    pthread_mutex_unlock(&zf_arena_lock);
}
