/* Tracepoints of our dispatcher: the object behind every event (docs/xpti.md, "Events and tracepoints").
 *
 * A tracepoint is laid out as the framework's C++ tracepoint objects are seen by their callers: four interface
 * subobjects, each one vtable pointer (payload, event, metadata, tracepoint, in this order), so that a caller of
 * xptiCreateTracepoint, xptiLookupPayload or xptiLookupEvent can call their virtual functions; then the event handed to
 * callbacks (with its metadata map), its payload and the metadata's nodes in order. Its universal id (uid64) is its
 * address. A released tracepoint's memory is never given back: it waits, not live, to be made again, so that a lookup
 * of any pointer or uid can tell without a lock whether it is a live tracepoint (zx_fw_events.c). */
#ifndef ZX_FW_TP_H
#define ZX_FW_TP_H

#include "zx_fw.h"
#include "zx_util.h"

/* An event's metadata besides the map xptiQueryMetadata hands out (the event's own `metadata`, as in the framework):
 * the nodes in the order they were added. */
typedef struct zx_meta {
    zx_xpti_meta_node **nodes;
    uint32_t count;
    uint32_t capacity;
    zx_vec old_buckets; /* bucket arrays replaced by a later addition, freed with the tracepoint */
} zx_meta;

typedef struct zx_tp {
    zx_xpti_iface as_payload; /* @0, the order of the framework's base classes */
    zx_xpti_iface as_event;
    zx_xpti_iface as_metadata;
    zx_xpti_iface as_tracepoint;
    zx_xpti_event event;
    zx_xpti_payload payload;
    zx_meta meta;
    zx_xpti_meta_node *cursor; /* first_item / next_item */
    atomic_bool live;          /* made and not released: written under the events lock, read without it */
} zx_tp;

/* A new live tracepoint of the payload (interned); NULL for a payload with neither name nor file, or out of memory. */
zx_tp *zx_fw_tp_make(const char *name, const zx_xpti_payload *payload, uint16_t type, int32_t activity);

/* Fills a new tracepoint from its registered payload (zx_fw_tracepoints.c). */
void zx_fw_tp_init(zx_tp *tp, const zx_xpti_payload *registered, uint64_t instance, uint16_t type, int32_t activity);

/* The live tracepoint of a uid (its address), or NULL; lock-free, reads nothing through a uid that is not one of ours.
 */
zx_tp *zx_fw_tp_live(uint64_t uid);

/* Takes a live tracepoint out (its memory waits to be made again); false when it is not live. */
bool zx_fw_tp_release(zx_tp *tp);

/* Frees what a tracepoint no longer live holds besides itself (its metadata). Under the events lock. */
void zx_fw_tp_clear(zx_tp *tp);

/* Adds a key (string id) and value to a tracepoint's event; DUPLICATE when the key was there, whose value is then
 * replaced (as the framework). Under the events lock. */
zx_xpti_result zx_fw_meta_add(zx_tp *tp, zx_xpti_string_id key, zx_xpti_object_id value);

/* xptiAddMetadata on a tracepoint's event. */
zx_xpti_result zx_fw_tp_add_metadata(zx_tp *tp, const char *key, zx_xpti_object_id value);

#endif
