/* The index of live allocations: blocks sorted by base address in one array, under a rwlock. Lookups (every copy,
 * fill and kernel argument of command execution goes through zf_memory_find) are binary searches under the read
 * lock; allocation and free insert and remove under the write lock. Mappings never overlap, so the only block that
 * can contain an address is the last one starting at or below it. */
#include "core/zf_core.h"
#include "memory/memory_internal.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static pthread_rwlock_t zf_index_lock = PTHREAD_RWLOCK_INITIALIZER;
static zf_mem_block **zf_blocks;
static size_t zf_block_count;
static size_t zf_block_capacity;
static atomic_uint_fast64_t zf_last_id;

uint64_t zf_index_next_id(void) {
    return (uint64_t)atomic_fetch_add(&zf_last_id, 1) + 1;
}

/* The position of the first block whose base is above `address`. */
static size_t zf_upper_bound(uintptr_t address) {
    size_t low = 0, high = zf_block_count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if ((uintptr_t)zf_blocks[middle]->info.base <= address)
            low = middle + 1;
        else
            high = middle;
    }
    return low;
}

static uintptr_t zf_block_end(const zf_mem_block *block) {
    return (uintptr_t)block->info.base + block->info.size;
}

/* The position of the block containing `address`, or zf_block_count. */
static size_t zf_position_of(uintptr_t address) {
    size_t above = zf_upper_bound(address);
    if (above == 0 || address >= zf_block_end(zf_blocks[above - 1]))
        return zf_block_count;
    return above - 1;
}

/* [ptr, ptr + size) with size 0 read as 1; false when it wraps around the address space. */
static bool zf_range(const void *ptr, size_t size, uintptr_t *start, uintptr_t *end) {
    *start = (uintptr_t)ptr;
    *end = *start + (size > 0 ? size : 1);
    return *end > *start;
}

/* The block of `context` holding all of [ptr, ptr + size); NULL otherwise. Call under the lock. */
static zf_mem_block *zf_index_fit(zf_context *context, const void *ptr, size_t size) {
    uintptr_t start, end;
    if (!zf_range(ptr, size, &start, &end))
        return NULL;
    size_t i = zf_position_of(start);
    if (i == zf_block_count)
        return NULL;
    zf_mem_block *block = zf_blocks[i];
    return block->info.context == context && end <= zf_block_end(block) ? block : NULL;
}

bool zf_memory_find(zf_context *context, const void *ptr, size_t size, zf_allocation *out) {
    pthread_rwlock_rdlock(&zf_index_lock);
    zf_mem_block *block = zf_index_fit(context, ptr, size);
    if (block != NULL)
        *out = block->info;
    pthread_rwlock_unlock(&zf_index_lock);
    return block != NULL;
}

zf_mem_block *zf_memory_hold(zf_context *context, const void *ptr, size_t size, zf_allocation *out) {
    pthread_rwlock_rdlock(&zf_index_lock);
    zf_mem_block *block = zf_index_fit(context, ptr, size);
    if (block != NULL) {
        zf_block_ref(block);
        *out = block->info;
    }
    pthread_rwlock_unlock(&zf_index_lock);
    return block;
}

void zf_memory_release(zf_mem_block *block) {
    if (block != NULL)
        zf_block_unref(block);
}

bool zf_memory_range_overruns(zf_context *context, const void *ptr, size_t size) {
    uintptr_t start, end;
    if (!zf_range(ptr, size, &start, &end))
        end = UINTPTR_MAX;
    bool overruns = false;
    pthread_rwlock_rdlock(&zf_index_lock);
    size_t i = zf_upper_bound(start);
    if (i > 0) {
        const zf_mem_block *before = zf_blocks[i - 1];
        overruns = before->info.context == context && start < zf_block_end(before) && end > zf_block_end(before);
    }
    /* Any block of the context starting inside the range is overlapped without containing the range's start. */
    for (; !overruns && i < zf_block_count && (uintptr_t)zf_blocks[i]->info.base < end; i++)
        overruns = zf_blocks[i]->info.context == context;
    pthread_rwlock_unlock(&zf_index_lock);
    return overruns;
}

static bool zf_index_grow(void) {
    if (zf_block_count < zf_block_capacity)
        return true;
    size_t capacity = zf_block_capacity > 0 ? zf_block_capacity * 2 : 64;
    zf_mem_block **blocks = realloc(zf_blocks, capacity * sizeof *blocks);
    if (blocks == NULL)
        return false;
    zf_blocks = blocks;
    zf_block_capacity = capacity;
    return true;
}

bool zf_index_insert(zf_mem_block *block) {
    pthread_rwlock_wrlock(&zf_index_lock);
    bool grown = zf_index_grow();
    if (grown) {
        size_t at = zf_upper_bound((uintptr_t)block->info.base);
        memmove(&zf_blocks[at + 1], &zf_blocks[at], (zf_block_count - at) * sizeof *zf_blocks);
        zf_blocks[at] = block;
        zf_block_count++;
    }
    pthread_rwlock_unlock(&zf_index_lock);
    return grown;
}

static void zf_index_remove_at(size_t at) {
    memmove(&zf_blocks[at], &zf_blocks[at + 1], (zf_block_count - at - 1) * sizeof *zf_blocks);
    zf_block_count--;
}

/* Why `base` cannot be released as asked, or NULL when it can. Call under the lock. */
static const char *zf_index_refuse(size_t at, zf_context *context, const void *base, bool imported) {
    if (at == zf_block_count && zf_block_range_quarantined(base, 1))
        return "it was already freed (or closed)";
    if (at == zf_block_count)
        return "it is not an allocation of this driver (or it was freed long ago)";
    const zf_mem_block *block = zf_blocks[at];
    if (block->info.context != context)
        return "it belongs to another context";
    if (block->info.base != base)
        return "it points inside an allocation, not at its base";
    if (block->imported && !imported)
        return "it was opened from an IPC handle: release it with zeMemCloseIpcHandle";
    if (!block->imported && imported)
        return "it was not opened with zeMemOpenIpcHandle: release it with zeMemFree";
    return NULL;
}

zf_mem_block *zf_index_remove_base(zf_context *context, const void *base, bool imported, const char **why) {
    pthread_rwlock_wrlock(&zf_index_lock);
    size_t at = zf_position_of((uintptr_t)base);
    *why = zf_index_refuse(at, context, base, imported);
    zf_mem_block *block = NULL;
    if (*why == NULL) {
        block = zf_blocks[at];
        zf_index_remove_at(at);
    }
    pthread_rwlock_unlock(&zf_index_lock);
    return block;
}

void zf_memory_release_context(zf_context *context) {
    pthread_rwlock_wrlock(&zf_index_lock);
    size_t kept = 0;
    for (size_t i = 0; i < zf_block_count; i++) {
        zf_mem_block *block = zf_blocks[i];
        if (block->info.context == context)
            zf_block_retire(block, false); /* lock order: index, then references, then quarantine */
        else
            zf_blocks[kept++] = block;
    }
    zf_block_count = kept;
    pthread_rwlock_unlock(&zf_index_lock);
}

bool zf_index_export(zf_context *context, const void *ptr, const uint8_t fresh_token[ZF_IPC_TOKEN_SIZE],
                     zf_export_info *out, const char **why) {
    pthread_rwlock_wrlock(&zf_index_lock);
    size_t at = zf_position_of((uintptr_t)ptr);
    *why = zf_index_refuse(at, context, ptr, false);
    if (*why == NULL) {
        zf_mem_block *block = zf_blocks[at];
        if (!block->exported)
            memcpy(block->token, fresh_token, ZF_IPC_TOKEN_SIZE);
        block->exported = true;
        out->id = block->info.id;
        out->size = block->info.size;
        out->map_size = block->map_size;
        memcpy(out->token, block->token, ZF_IPC_TOKEN_SIZE);
    }
    pthread_rwlock_unlock(&zf_index_lock);
    return *why == NULL;
}

int zf_index_export_fd(zf_context *context, const void *ptr, ze_external_memory_type_flags_t type, const char **why) {
    int fd = -1;
    pthread_rwlock_rdlock(&zf_index_lock);
    size_t at = zf_position_of((uintptr_t)ptr);
    *why = zf_index_refuse(at, context, ptr, false);
    if (*why == NULL && !(zf_blocks[at]->export_types & type))
        *why = "it was not allocated exportable as that type (ze_external_memory_export_desc_t)";
    if (*why == NULL) {
        fd = fcntl(zf_blocks[at]->fd, F_DUPFD_CLOEXEC, 0);
        if (fd < 0)
            *why = "the process has no descriptor left (RLIMIT_NOFILE)";
    }
    pthread_rwlock_unlock(&zf_index_lock);
    return fd;
}

static bool zf_token_equal(const uint8_t *a, const uint8_t *b) {
    uint8_t difference = 0;
    for (size_t i = 0; i < ZF_IPC_TOKEN_SIZE; i++)
        difference |= (uint8_t)(a[i] ^ b[i]);
    return difference == 0;
}

zf_mem_block *zf_index_lookup_export(uint64_t id, const uint8_t token[ZF_IPC_TOKEN_SIZE]) {
    zf_mem_block *found = NULL;
    pthread_rwlock_rdlock(&zf_index_lock);
    for (size_t i = 0; i < zf_block_count && found == NULL; i++) {
        zf_mem_block *block = zf_blocks[i];
        if (block->info.id == id && block->exported && zf_token_equal(block->token, token))
            found = block;
    }
    if (found != NULL)
        zf_block_ref(found);
    pthread_rwlock_unlock(&zf_index_lock);
    return found;
}
