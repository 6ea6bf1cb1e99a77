/* The registry of live objects: an open-addressing hash set of object addresses, read-mostly, under a rwlock.
 * Removal leaves a tombstone; the table is rebuilt when tombstones and live entries fill it past 3/4. */
#include "core/zf_object.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#define ZF_REGISTRY_MIN_CAPACITY 256u
#define ZF_QUARANTINE_SIZE       1024u

typedef struct zf_registry_slot {
    uintptr_t key; /* 0 = empty, ZF_TOMBSTONE = removed */
    zf_obj_type type;
} zf_registry_slot;

#define ZF_TOMBSTONE ((uintptr_t)1)

static pthread_rwlock_t zf_registry_lock = PTHREAD_RWLOCK_INITIALIZER;
static zf_registry_slot *zf_slots;
static size_t zf_capacity; /* a power of two */
static size_t zf_used;     /* live entries + tombstones */
static unsigned zf_counts[ZF_OBJ_TYPE_COUNT];

static zf_object *zf_quarantine[ZF_QUARANTINE_SIZE];
static size_t zf_quarantine_next;

static size_t zf_hash(uintptr_t key) {
    /* Objects are at least 16-byte aligned: mix the high bits in so that neighbours spread. */
    uint64_t x = (uint64_t)key;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return (size_t)x;
}

static zf_registry_slot *zf_find(uintptr_t key) {
    if (zf_capacity == 0)
        return NULL;
    size_t mask = zf_capacity - 1;
    for (size_t i = zf_hash(key) & mask, probes = 0; probes < zf_capacity; i = (i + 1) & mask, probes++) {
        if (zf_slots[i].key == key)
            return &zf_slots[i];
        if (zf_slots[i].key == 0)
            return NULL;
    }
    return NULL;
}

static void zf_insert_unlocked(zf_registry_slot *slots, size_t capacity, uintptr_t key, zf_obj_type type) {
    size_t mask = capacity - 1;
    size_t i = zf_hash(key) & mask;
    while (slots[i].key > ZF_TOMBSTONE)
        i = (i + 1) & mask;
    slots[i].key = key;
    slots[i].type = type;
}

static bool zf_rebuild(size_t live) {
    size_t capacity = ZF_REGISTRY_MIN_CAPACITY;
    while (capacity < live * 4)
        capacity *= 2;
    zf_registry_slot *slots = calloc(capacity, sizeof *slots);
    if (slots == NULL)
        return false;
    for (size_t i = 0; i < zf_capacity; i++) {
        if (zf_slots[i].key > ZF_TOMBSTONE)
            zf_insert_unlocked(slots, capacity, zf_slots[i].key, zf_slots[i].type);
    }
    free(zf_slots);
    zf_slots = slots;
    zf_capacity = capacity;
    zf_used = live;
    return true;
}

static size_t zf_live_count(void) {
    size_t live = 0;
    for (int t = 0; t < ZF_OBJ_TYPE_COUNT; t++)
        live += zf_counts[t];
    return live;
}

bool zf_object_register(zf_object *object, zf_obj_type type, zf_object *owner) {
    object->dispatch = NULL;
    object->type = type;
    object->owner = owner;
    pthread_rwlock_wrlock(&zf_registry_lock);
    bool ok = true;
    if ((zf_used + 1) * 4 > zf_capacity * 3)
        ok = zf_rebuild(zf_live_count() + 1);
    if (ok) {
        zf_insert_unlocked(zf_slots, zf_capacity, (uintptr_t)object, type);
        zf_used++;
        zf_counts[type]++;
    }
    pthread_rwlock_unlock(&zf_registry_lock);
    return ok;
}

void zf_object_unregister(zf_object *object) {
    pthread_rwlock_wrlock(&zf_registry_lock);
    zf_registry_slot *slot = zf_find((uintptr_t)object);
    if (slot != NULL) {
        zf_counts[slot->type]--;
        slot->key = ZF_TOMBSTONE;
    }
    pthread_rwlock_unlock(&zf_registry_lock);
}

void zf_object_retire(zf_object *object) {
    zf_object_unregister(object);
    pthread_rwlock_wrlock(&zf_registry_lock);
    zf_object *oldest = zf_quarantine[zf_quarantine_next];
    zf_quarantine[zf_quarantine_next] = object;
    zf_quarantine_next = (zf_quarantine_next + 1) % ZF_QUARANTINE_SIZE;
    pthread_rwlock_unlock(&zf_registry_lock);
    free(oldest);
}

bool zf_handle_is_live(const void *handle, zf_obj_type type) {
    if ((uintptr_t)handle <= ZF_TOMBSTONE)
        return false;
    pthread_rwlock_rdlock(&zf_registry_lock);
    const zf_registry_slot *slot = zf_find((uintptr_t)handle);
    bool live = slot != NULL && slot->type == type;
    pthread_rwlock_unlock(&zf_registry_lock);
    return live;
}

unsigned zf_object_count(zf_obj_type type) {
    pthread_rwlock_rdlock(&zf_registry_lock);
    unsigned count = zf_counts[type];
    pthread_rwlock_unlock(&zf_registry_lock);
    return count;
}

/* Frees what is still quarantined when the library is unloaded (zf_core.c), so leak checkers see a clean exit. */
void zf_registry_release(void) {
    for (size_t i = 0; i < ZF_QUARANTINE_SIZE; i++) {
        free(zf_quarantine[i]);
        zf_quarantine[i] = NULL;
    }
    free(zf_slots);
    zf_slots = NULL;
    zf_capacity = 0;
    zf_used = 0;
}
