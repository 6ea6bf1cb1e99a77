/* The registry of live objects: a radix map from an address to the type of the object registered there, read without
 * any lock. The map has two levels: address bits 47..28 index a static root (8 MiB of zero pages until used), and
 * each leaf holds one type byte per 8-byte granule of a 256 MiB window (0: no live object); a leaf is 32 MiB of
 * address space whose pages the system provides zeroed when first touched, so only the pages over objects use memory.
 * Leaves are published with release stores and never freed while the library is loaded, so a reader walking them
 * concurrently with registration and removal reads only memory of the registry: a handle check never dereferences
 * the handle and costs the same two loads and a byte whether 10 or 10^6 objects are live (no hashing, no probing, no
 * rebuild). Registration and removal are serialised by one mutex; they store the type byte atomically, so a reader
 * sees an object either live or not, never half-registered. The memory of the map grows with the address span of the
 * objects, not with the number of registrations: 1/8 of the heap span holding objects. */
#include "core/zf_object.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#define ZF_QUARANTINE_SIZE 1024u

_Static_assert(ZF_OBJ_TYPE_COUNT + ZF_OBJ_FACE_TYPES <= UINT8_MAX, "an object type fits the registry's type byte");

static pthread_mutex_t zf_registry_lock = PTHREAD_MUTEX_INITIALIZER; /* writers only */
_Atomic(zf_registry_leaf *) zf_registry_root[ZF_ROOT_SLOTS];
static _Atomic unsigned zf_counts[ZF_OBJ_TYPE_COUNT + ZF_OBJ_FACE_TYPES];

/* The root slots that hold a leaf (guarded by zf_registry_lock), so that releasing the registry touches no other page
 * of the root table: most of it is never written, and reading or writing all of it costs every process at exit. */
static size_t *zf_leaf_slots;
static size_t zf_leaf_count, zf_leaf_room;
static zf_object *zf_quarantine[ZF_QUARANTINE_SIZE]; /* guarded by zf_registry_lock */
static size_t zf_quarantine_next;

/* Like zf_registry_slot, creating the nodes on the way (under the writers' lock). NULL when out of host memory. */
static _Atomic uint8_t *zf_slot_make(uintptr_t address) {
    if ((address >> ZF_ADDRESS_BITS) != 0 || (address & ((1u << ZF_GRANULE_SHIFT) - 1)) != 0)
        return NULL;
    _Atomic(zf_registry_leaf *) *leaf_slot = &zf_registry_root[address >> ZF_LEAF_SHIFT];
    zf_registry_leaf *leaf = atomic_load_explicit(leaf_slot, memory_order_relaxed);
    if (leaf == NULL) {
        if (zf_leaf_count == zf_leaf_room) {
            size_t room = zf_leaf_room ? 2 * zf_leaf_room : 16;
            size_t *slots = realloc(zf_leaf_slots, room * sizeof *slots);
            if (slots == NULL)
                return NULL;
            zf_leaf_slots = slots;
            zf_leaf_room = room;
        }
        leaf = calloc(1, sizeof *leaf); /* large: its pages are only touched where objects are */
        if (leaf == NULL)
            return NULL;
        zf_leaf_slots[zf_leaf_count++] = address >> ZF_LEAF_SHIFT;
        atomic_store_explicit(leaf_slot, leaf, memory_order_release);
    }
    return &leaf->type[(address >> ZF_GRANULE_SHIFT) & (ZF_LEAF_SLOTS - 1)];
}

bool zf_object_register(zf_object *object, zf_obj_type type, zf_object *owner) {
    object->dispatch = NULL;
    object->type = type;
    object->children = 0;
    object->owner = owner;
    object->retire_pending = false;
    atomic_init(&object->claimed, false);
    pthread_mutex_lock(&zf_registry_lock);
    _Atomic uint8_t *slot = zf_slot_make((uintptr_t)object);
    if (slot != NULL) {
        /* release: a reader that sees the type also sees the header written above */
        atomic_store_explicit(slot, (uint8_t)type, memory_order_release);
        atomic_fetch_add_explicit(&zf_counts[type], 1, memory_order_relaxed);
        if (owner != NULL)
            owner->children++;
    }
    pthread_mutex_unlock(&zf_registry_lock);
    return slot != NULL;
}

/* Puts a retired object into quarantine (under the lock); returns the oldest one, which the caller frees unlocked. */
static zf_object *zf_quarantine_push(zf_object *object) {
    zf_object *oldest = zf_quarantine[zf_quarantine_next];
    zf_quarantine[zf_quarantine_next] = object;
    zf_quarantine_next = (zf_quarantine_next + 1) % ZF_QUARANTINE_SIZE;
    return oldest;
}

/* Under the lock: one child fewer; an owner retired before it goes to quarantine after its last child (not freed at
 * once: the child's destroy may still read it). Returns what the caller frees. */
static zf_object *zf_owner_release(zf_object *owner) {
    if (owner == NULL || owner->children == 0 || --owner->children != 0 || !owner->retire_pending)
        return NULL;
    owner->retire_pending = false;
    return zf_quarantine_push(owner);
}

void zf_object_unregister(zf_object *object) {
    zf_object *evicted = NULL;
    pthread_mutex_lock(&zf_registry_lock);
    _Atomic uint8_t *slot = zf_registry_slot((uintptr_t)object);
    uint8_t type = slot != NULL ? atomic_load_explicit(slot, memory_order_relaxed) : 0;
    if (type != ZF_OBJ_NONE) {
        atomic_store_explicit(slot, ZF_OBJ_NONE, memory_order_release);
        atomic_fetch_sub_explicit(&zf_counts[type], 1, memory_order_relaxed);
        evicted = zf_owner_release(object->owner);
    }
    pthread_mutex_unlock(&zf_registry_lock);
    free(evicted);
}

void zf_object_retire(zf_object *object) {
    zf_object_unregister(object);
    zf_object *evicted = NULL;
    pthread_mutex_lock(&zf_registry_lock);
    if (object->children > 0)
        object->retire_pending = true; /* zf_owner_release quarantines it */
    else
        evicted = zf_quarantine_push(object);
    pthread_mutex_unlock(&zf_registry_lock);
    free(evicted);
}

unsigned zf_object_count(zf_obj_type type) {
    return atomic_load_explicit(&zf_counts[type], memory_order_relaxed);
}

/* Frees what is still quarantined and the map itself when the library is unloaded (zf_core.c), so leak checkers see a
 * clean exit. Every thread that could check a handle has stopped by then. */
void zf_registry_release(void) {
    pthread_mutex_lock(&zf_registry_lock);
    for (size_t i = 0; i < ZF_QUARANTINE_SIZE; i++) {
        free(zf_quarantine[i]);
        zf_quarantine[i] = NULL;
    }
    for (size_t i = 0; i < zf_leaf_count; i++)
        free(atomic_exchange_explicit(&zf_registry_root[zf_leaf_slots[i]], NULL, memory_order_relaxed));
    free(zf_leaf_slots);
    zf_leaf_slots = NULL;
    zf_leaf_count = zf_leaf_room = 0;
    pthread_mutex_unlock(&zf_registry_lock);
}
