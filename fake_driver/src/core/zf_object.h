/* Every handle the driver hands out is a pointer to an object that starts with this header, and is listed in a
 * registry of live objects. Entry points look a handle up in the registry before touching it, so a destroyed,
 * foreign or bogus handle is answered with an error instead of being dereferenced. */
#ifndef ZF_OBJECT_H
#define ZF_OBJECT_H

#include "zf_generated.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct zf_object {
    /* Reserved for the dispatch-table block of the loader's DDI-handles extension (newer loaders): it must be the
     * first word of every handle. Unused with the 1.4 headers. */
    void *dispatch;
    zf_obj_type type;
    uint32_t children;       /* registered objects whose owner this is (guarded by the registry's lock) */
    struct zf_object *owner; /* the object this one belongs to (a device's driver, a context's driver...) */
    bool retire_pending;     /* retired while children were registered: freed after the last of them */
    atomic_bool claimed;     /* a call the headers make exclusive is running on it (zf_object_claim) */
} zf_object;

/* Types beyond the Level Zero handles' (zf_obj_type): the OpenCL face registers its objects as ZF_OBJ_TYPE_COUNT plus
 * its kind (cl/zf_cl.h), so that they share the registry and the quarantine of freed handles. */
#define ZF_OBJ_FACE_TYPES 16u

/* Registers a live object; it becomes a valid handle, counted among its owner's children. False when out of host
 * memory. */
bool zf_object_register(zf_object *object, zf_obj_type type, zf_object *owner);

/* Unregisters an object: its handle stops being valid at once. The memory of heap objects is released through
 * zf_object_retire so that a stale handle cannot come back to life at the same address soon after. */
void zf_object_unregister(zf_object *object);

/* Unregisters and frees (with free()) a heap-allocated object. The most recently retired objects are kept in
 * quarantine before their memory is released, so that use-after-destroy of a recent handle is still detected. An
 * object retired while it still has registered children (a context destroyed before its event pools, lists and
 * modules) keeps its memory until the last of them is unregistered: children read their owner's fields to the end. */
void zf_object_retire(zf_object *object);

/* For the calls the headers forbid simultaneous threads to make with the same handle (command lists): true when
 * this thread now holds `handle` for its call, false when another thread holds it. One atomic exchange, and the
 * release store of zf_object_unclaim: the holder's changes are seen by the next holder. */
static inline bool zf_object_claim(const void *handle) {
    return !atomic_exchange_explicit(&((zf_object *)handle)->claimed, true, memory_order_acquire);
}

static inline void zf_object_unclaim(const void *handle) {
    atomic_store_explicit(&((zf_object *)handle)->claimed, false, memory_order_release);
}

/* The registry's radix map (core/object.c says how it works). Its shape is here because every entry point checks its
 * handles, inline: two dependent loads and the type byte, no call. */
#define ZF_GRANULE_SHIFT 3u  /* objects are at least 8-byte aligned */
#define ZF_LEAF_SHIFT    28u /* one leaf covers 256 MiB of address space */
#define ZF_ADDRESS_BITS  48u /* user space of x86-64 and AArch64 (4-level page tables) */
#define ZF_LEAF_SLOTS    ((size_t)1 << (ZF_LEAF_SHIFT - ZF_GRANULE_SHIFT))
#define ZF_ROOT_SLOTS    ((size_t)1 << (ZF_ADDRESS_BITS - ZF_LEAF_SHIFT))

typedef struct zf_registry_leaf {
    _Atomic uint8_t type[ZF_LEAF_SLOTS]; /* a zf_obj_type per granule */
} zf_registry_leaf;

extern _Atomic(zf_registry_leaf *) zf_registry_root[ZF_ROOT_SLOTS];

/* The type byte of the granule at `address`, or NULL when no leaf covers it (nothing was ever registered there). */
static inline __attribute__((always_inline)) _Atomic uint8_t *zf_registry_slot(uintptr_t address) {
    if ((address >> ZF_ADDRESS_BITS) != 0 || (address & ((1u << ZF_GRANULE_SHIFT) - 1)) != 0)
        return NULL;
    zf_registry_leaf *leaf = atomic_load_explicit(&zf_registry_root[address >> ZF_LEAF_SHIFT], memory_order_acquire);
    if (leaf == NULL)
        return NULL;
    return &leaf->type[(address >> ZF_GRANULE_SHIFT) & (ZF_LEAF_SLOTS - 1)];
}

/* True when `handle` is a live object of `type`; never dereferences anything but the registry. */
static inline __attribute__((always_inline)) bool zf_handle_is_live(const void *handle, zf_obj_type type) {
    const _Atomic uint8_t *slot = zf_registry_slot((uintptr_t)handle);
    return slot != NULL && type != ZF_OBJ_NONE && atomic_load_explicit(slot, memory_order_acquire) == (uint8_t)type;
}

/* Number of live objects of a type (for leak checks in tests and for "in use" decisions). */
unsigned zf_object_count(zf_obj_type type);

/* Releases the registry and the quarantined objects (library unload, after every worker stopped). */
void zf_registry_release(void);

#endif
