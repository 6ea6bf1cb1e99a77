/* Every handle the driver hands out is a pointer to an object that starts with this header, and is listed in a
 * registry of live objects. Entry points look a handle up in the registry before touching it, so a destroyed,
 * foreign or bogus handle is answered with an error instead of being dereferenced. */
#ifndef ZF_OBJECT_H
#define ZF_OBJECT_H

#include "zf_generated.h"

#include <stdbool.h>

typedef struct zf_object {
    /* Reserved for the dispatch-table block of the loader's DDI-handles extension (newer loaders): it must be the
     * first word of every handle. Unused with the 1.4 headers. */
    void *dispatch;
    zf_obj_type type;
    struct zf_object *owner; /* the object this one belongs to (a device's driver, a context's driver...) */
} zf_object;

/* Registers a live object; it becomes a valid handle. False when out of host memory. */
bool zf_object_register(zf_object *object, zf_obj_type type, zf_object *owner);

/* Unregisters an object: its handle stops being valid at once. The memory of heap objects is released through
 * zf_object_retire so that a stale handle cannot come back to life at the same address soon after. */
void zf_object_unregister(zf_object *object);

/* Unregisters and frees (with free()) a heap-allocated object. The most recently retired objects are kept in
 * quarantine before their memory is released, so that use-after-destroy of a recent handle is still detected. */
void zf_object_retire(zf_object *object);

/* True when `handle` is a live object of `type`; never dereferences anything but the registry. */
bool zf_handle_is_live(const void *handle, zf_obj_type type);

/* Number of live objects of a type (for leak checks in tests and for "in use" decisions). */
unsigned zf_object_count(zf_obj_type type);

/* Releases the registry and the quarantined objects (library unload, after every worker stopped). */
void zf_registry_release(void);

#endif
