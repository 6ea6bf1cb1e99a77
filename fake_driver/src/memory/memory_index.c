/* The index of live allocations: blocks in a binary search tree ordered by base address (a treap: each block has a
 * random priority and the tree is a heap on them, so its depth stays logarithmic whatever the order of allocation and
 * free), under a rwlock. Lookups (every copy, fill and kernel argument of command execution goes through
 * zf_memory_find) descend under the read lock; allocation and free insert and remove under the write lock, both in
 * logarithmic time, at 10^6 live allocations too. Mappings never overlap, so the only block that can contain an
 * address is the last one starting at or below it. */
#include "core/zf_core.h"
#include "memory/memory_internal.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static pthread_rwlock_t zf_index_lock = PTHREAD_RWLOCK_INITIALIZER;
static zf_mem_block *zf_root;
static uint32_t zf_priority_state = 0x9e3779b9u; /* guarded by the write lock */
static atomic_uint_fast64_t zf_last_id;

uint64_t zf_index_next_id(void) {
    return (uint64_t)atomic_fetch_add(&zf_last_id, 1) + 1;
}

static uintptr_t zf_block_start(const zf_mem_block *block) {
    return (uintptr_t)block->info.base;
}

static uintptr_t zf_block_end(const zf_mem_block *block) {
    return (uintptr_t)block->info.base + block->info.size;
}

/* The last block starting at or below `address`, or NULL. */
static zf_mem_block *zf_at_or_below(uintptr_t address) {
    zf_mem_block *best = NULL;
    for (zf_mem_block *node = zf_root; node != NULL;) {
        if (zf_block_start(node) <= address) {
            best = node;
            node = node->right;
        } else {
            node = node->left;
        }
    }
    return best;
}

/* The first block starting above `address`, or NULL. */
static zf_mem_block *zf_above(uintptr_t address) {
    zf_mem_block *best = NULL;
    for (zf_mem_block *node = zf_root; node != NULL;) {
        if (zf_block_start(node) > address) {
            best = node;
            node = node->left;
        } else {
            node = node->right;
        }
    }
    return best;
}

/* The block containing `address`, or NULL. */
static zf_mem_block *zf_containing(uintptr_t address) {
    zf_mem_block *block = zf_at_or_below(address);
    return block != NULL && address < zf_block_end(block) ? block : NULL;
}

static zf_mem_block *zf_tree_insert(zf_mem_block *root, zf_mem_block *block) {
    if (root == NULL)
        return block;
    if (zf_block_start(block) < zf_block_start(root)) {
        root->left = zf_tree_insert(root->left, block);
        if (root->left->priority > root->priority) { /* rotate right */
            zf_mem_block *top = root->left;
            root->left = top->right;
            top->right = root;
            return top;
        }
    } else {
        root->right = zf_tree_insert(root->right, block);
        if (root->right->priority > root->priority) { /* rotate left */
            zf_mem_block *top = root->right;
            root->right = top->left;
            top->left = root;
            return top;
        }
    }
    return root;
}

/* The union of two trees, every block of `low` below every block of `high`. */
static zf_mem_block *zf_tree_merge(zf_mem_block *low, zf_mem_block *high) {
    if (low == NULL)
        return high;
    if (high == NULL)
        return low;
    if (low->priority > high->priority) {
        low->right = zf_tree_merge(low->right, high);
        return low;
    }
    high->left = zf_tree_merge(low, high->left);
    return high;
}

static zf_mem_block *zf_tree_remove(zf_mem_block *root, zf_mem_block *block) {
    if (root == block)
        return zf_tree_merge(block->left, block->right);
    if (zf_block_start(block) < zf_block_start(root))
        root->left = zf_tree_remove(root->left, block);
    else
        root->right = zf_tree_remove(root->right, block);
    return root;
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
    zf_mem_block *block = zf_containing(start);
    return block != NULL && block->info.context == context && end <= zf_block_end(block) ? block : NULL;
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

zf_mem_block *zf_memory_hold_mapped(zf_context *context, const void *ptr, size_t size, zf_allocation *out) {
    uintptr_t start, end;
    if (!zf_range(ptr, size, &start, &end))
        return NULL;
    pthread_rwlock_rdlock(&zf_index_lock);
    zf_mem_block *block = zf_at_or_below(start);
    if (block != NULL && (block->info.context != context || end > zf_block_start(block) + block->map_size))
        block = NULL;
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

zf_mem_block *zf_memory_use(zf_context *context, const void *ptr) {
    pthread_rwlock_rdlock(&zf_index_lock);
    zf_mem_block *block = zf_index_fit(context, ptr, 1);
    if (block != NULL)
        zf_block_use(block);
    pthread_rwlock_unlock(&zf_index_lock);
    return block;
}

void zf_memory_unuse(zf_mem_block *block) {
    zf_block_unuse(block);
}

bool zf_memory_range_overruns(zf_context *context, const void *ptr, size_t size) {
    uintptr_t start, end;
    if (!zf_range(ptr, size, &start, &end))
        end = UINTPTR_MAX;
    bool overruns = false;
    pthread_rwlock_rdlock(&zf_index_lock);
    const zf_mem_block *before = zf_at_or_below(start);
    if (before != NULL)
        overruns = before->info.context == context && start < zf_block_end(before) && end > zf_block_end(before);
    /* Any block of the context starting inside the range is overlapped without containing the range's start. */
    for (const zf_mem_block *b = zf_above(start); !overruns && b != NULL && zf_block_start(b) < end;
         b = zf_above(zf_block_start(b)))
        overruns = b->info.context == context;
    pthread_rwlock_unlock(&zf_index_lock);
    return overruns;
}

/* A random priority for a new block (xorshift32; call under the write lock). */
static uint32_t zf_next_priority(void) {
    uint32_t x = zf_priority_state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    zf_priority_state = x;
    return x;
}

void zf_index_insert(zf_mem_block *block) {
    pthread_rwlock_wrlock(&zf_index_lock);
    block->left = block->right = NULL;
    block->priority = zf_next_priority();
    zf_root = zf_tree_insert(zf_root, block);
    pthread_rwlock_unlock(&zf_index_lock);
}

/* Why `base` cannot be released as asked, or NULL when it can. Call under the lock. */
static const char *zf_index_refuse(const zf_mem_block *block, zf_context *context, const void *base, bool imported) {
    if (block == NULL && zf_block_range_quarantined(base, 1))
        return "it was already freed (or closed)";
    if (block == NULL)
        return "it is not an allocation of this driver (or it was freed long ago)";
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
    zf_mem_block *block = zf_containing((uintptr_t)base);
    *why = zf_index_refuse(block, context, base, imported);
    if (*why == NULL)
        zf_root = zf_tree_remove(zf_root, block);
    else
        block = NULL;
    pthread_rwlock_unlock(&zf_index_lock);
    return block;
}

/* Retires the blocks of `context` found in the (detached) tree at `node` and inserts the others into zf_root again:
 * children first, so that a block's links are free to reuse when it is reached. Call under the write lock. */
static void zf_index_sift_context(zf_mem_block *node, zf_context *context) {
    if (node == NULL)
        return;
    zf_index_sift_context(node->left, context);
    zf_index_sift_context(node->right, context);
    node->left = node->right = NULL;
    if (node->info.context == context)
        zf_block_retire(node, false); /* lock order: index, then references, then quarantine */
    else
        zf_root = zf_tree_insert(zf_root, node);
}

void zf_memory_release_context(zf_context *context) {
    pthread_rwlock_wrlock(&zf_index_lock);
    zf_mem_block *all = zf_root;
    zf_root = NULL;
    zf_index_sift_context(all, context);
    pthread_rwlock_unlock(&zf_index_lock);
}

bool zf_index_export(zf_context *context, const void *ptr, const uint8_t fresh_token[ZF_IPC_TOKEN_SIZE],
                     zf_export_info *out, const char **why) {
    pthread_rwlock_wrlock(&zf_index_lock);
    zf_mem_block *block = zf_containing((uintptr_t)ptr);
    *why = zf_index_refuse(block, context, ptr, false);
    if (*why == NULL) {
        if (!block->exported)
            memcpy(block->token, fresh_token, ZF_IPC_TOKEN_SIZE);
        block->exported = true;
        block->ipc_gets++;
        out->id = block->info.id;
        out->size = block->info.size;
        out->map_size = block->map_size;
        out->offset = block->offset;
        memcpy(out->token, block->token, ZF_IPC_TOKEN_SIZE);
    }
    pthread_rwlock_unlock(&zf_index_lock);
    return *why == NULL;
}

int zf_index_export_fd(zf_context *context, const void *ptr, ze_external_memory_type_flags_t type, const char **why) {
    int fd = -1;
    pthread_rwlock_rdlock(&zf_index_lock);
    zf_mem_block *block = zf_containing((uintptr_t)ptr);
    *why = zf_index_refuse(block, context, ptr, false);
    if (*why == NULL && !(block->export_types & type))
        *why = "it was not allocated exportable as that type (ze_external_memory_export_desc_t)";
    if (*why == NULL) {
        fd = fcntl(block->fd, F_DUPFD_CLOEXEC, 0);
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

/* The exported block with this id and token in the tree at `node`, or NULL. */
static zf_mem_block *zf_find_export(zf_mem_block *node, uint64_t id, const uint8_t token[ZF_IPC_TOKEN_SIZE]) {
    if (node == NULL)
        return NULL;
    if (node->info.id == id && node->exported && zf_token_equal(node->token, token))
        return node;
    zf_mem_block *found = zf_find_export(node->left, id, token);
    return found != NULL ? found : zf_find_export(node->right, id, token);
}

zf_mem_block *zf_index_lookup_export(uint64_t id, const uint8_t token[ZF_IPC_TOKEN_SIZE]) {
    pthread_rwlock_rdlock(&zf_index_lock);
    zf_mem_block *found = zf_find_export(zf_root, id, token);
    if (found != NULL)
        zf_block_ref(found);
    pthread_rwlock_unlock(&zf_index_lock);
    return found;
}

bool zf_index_unexport(uint64_t id, const uint8_t token[ZF_IPC_TOKEN_SIZE]) {
    pthread_rwlock_wrlock(&zf_index_lock);
    zf_mem_block *found = zf_find_export(zf_root, id, token);
    if (found != NULL && --found->ipc_gets == 0)
        found->exported = false;
    pthread_rwlock_unlock(&zf_index_lock);
    return found != NULL;
}

/* The block of `context` in the tree at `node` whose own memfd is the file `st` describes, or NULL. */
static zf_mem_block *zf_find_file(zf_mem_block *node, zf_context *context, const struct stat *st) {
    if (node == NULL)
        return NULL;
    struct stat mine;
    if (node->info.context == context && node->arena == NULL && !node->imported && fstat(node->fd, &mine) == 0 &&
        mine.st_dev == st->st_dev && mine.st_ino == st->st_ino)
        return node;
    zf_mem_block *found = zf_find_file(node->left, context, st);
    return found != NULL ? found : zf_find_file(node->right, context, st);
}

void *zf_index_base_of_fd(zf_context *context, int fd) {
    struct stat st;
    if (fstat(fd, &st) != 0)
        return NULL;
    pthread_rwlock_rdlock(&zf_index_lock);
    zf_mem_block *found = zf_find_file(zf_root, context, &st);
    void *base = found != NULL ? found->info.base : NULL;
    pthread_rwlock_unlock(&zf_index_lock);
    return base;
}

const char *zf_index_atomic_attr(zf_context *context, const void *ptr, size_t size, uint32_t *attr, bool set) {
    if (set)
        pthread_rwlock_wrlock(&zf_index_lock);
    else
        pthread_rwlock_rdlock(&zf_index_lock);
    zf_mem_block *block = zf_index_fit(context, ptr, size);
    const char *why = block == NULL                               ? "it is not inside one allocation of hContext"
                      : block->info.type != ZE_MEMORY_TYPE_SHARED ? "it is not a shared allocation"
                                                                  : NULL;
    if (why == NULL && set)
        block->atomic_attr = *attr;
    else if (why == NULL)
        *attr = block->atomic_attr;
    pthread_rwlock_unlock(&zf_index_lock);
    return why;
}
