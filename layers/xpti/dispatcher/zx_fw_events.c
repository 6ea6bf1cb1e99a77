/* Events, their payloads and metadata, as the current generation of the framework keeps them (docs/xpti.md,
 * "Events and tracepoints").
 *
 * Every event is a tracepoint (zx_fw_tp.h): each xptiMakeEvent or xptiCreateTracepoint makes a new one, whose
 * universal id (uid64, also the event's unique_id) is its address. Payloads are interned: the strings of a payload
 * go to the string table, and all tracepoints of the same payload (name, source file, line, column) share one
 * registered payload entry, which counts their instances and gives the payload's uid fields.
 *
 * Every function taking an event or a uid first looks it up among the live tracepoints, so a released, forgotten or
 * made-up pointer is answered with an error instead of being dereferenced. That lookup takes no lock: tracepoint
 * memory is never freed (a released one is made again later), every address ever allocated is in an insert-only
 * concurrent set, and a tracepoint says itself whether it is live. */
#include "zx_fw_tp.h"
#include "zx_util.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* A payload entry: the interned copy all tracepoints of the same payload share, and how many were made of it. */
typedef struct zx_payload_entry {
    zx_xpti_payload payload;
    uint64_t instances;
    uint64_t hash;
    struct zx_payload_entry *chain; /* next entry with the same hash */
} zx_payload_entry;

static pthread_mutex_t zx_events_lock = PTHREAD_MUTEX_INITIALIZER;
static zx_map zx_payloads_by_hash; /* hash -> chain of entries */
static zx_cset zx_ours;            /* the address of every tracepoint ever allocated: read without a lock */
static zx_vec zx_every;            /* the same tracepoints, for xptiReset */
static zx_vec zx_spare;            /* released tracepoints, made again before new ones are allocated */

zx_tp *zx_fw_tp_live(uint64_t uid) {
    if (!zx_cset_contains(&zx_ours, uid))
        return NULL;
    zx_tp *tp = (zx_tp *)(uintptr_t)uid;
    return atomic_load_explicit(&tp->live, memory_order_acquire) ? tp : NULL;
}

/* The live tracepoint whose event a pointer is, found from the address alone (nothing is read through it). */
static zx_tp *zx_tp_of_event(const zx_xpti_event *event) {
    if (event == NULL)
        return NULL;
    return zx_fw_tp_live((uint64_t)((uintptr_t)event - offsetof(zx_tp, event)));
}

/* ------------------------------------------------------------------------------------------------------------------
 * Payloads */

/* The identifying fields of a payload, interned: interned strings compare by address. */
typedef struct zx_key {
    const char *name;
    const char *source;
    uint32_t line;
    uint32_t column;
    zx_xpti_string_id name_id;
    zx_xpti_string_id file_id;
} zx_key;

static bool zx_key_from(const char *name, const zx_xpti_payload *payload, zx_key *k) {
    const char *given = payload->name != NULL ? payload->name : name;
    const char *source = payload->source_file != NULL && payload->source_file[0] != '\0' ? payload->source_file : NULL;
    k->name = zx_fw_intern(given != NULL && given[0] != '\0' ? given : NULL, &k->name_id);
    k->source = zx_fw_intern(source, &k->file_id);
    k->line = k->source != NULL ? payload->line_no : 0;
    k->column = k->source != NULL ? payload->column_no : 0;
    return k->name != NULL || k->source != NULL;
}

static uint64_t zx_key_hash(const zx_key *k) {
    uint64_t h = zx_mix64((uint64_t)(uintptr_t)k->name);
    h = zx_mix64(h ^ (uint64_t)(uintptr_t)k->source);
    return zx_mix64(h ^ ((uint64_t)k->line << 32 | k->column));
}

static bool zx_key_matches(const zx_payload_entry *e, const zx_key *k) {
    const zx_xpti_payload *p = &e->payload;
    return p->name == k->name && p->source_file == k->source && p->line_no == k->line && p->column_no == k->column;
}

static uint64_t zx_key_flags(const zx_key *k) {
    uint64_t flags = ZX_PAYLOAD_REGISTERED;
    flags |= k->name != NULL ? ZX_PAYLOAD_NAME : 0;
    flags |= k->source != NULL ? ZX_PAYLOAD_SOURCE_FILE | ZX_PAYLOAD_LINE | ZX_PAYLOAD_COLUMN : 0;
    return flags;
}

/* Under zx_events_lock: the entry of a payload, registered when new; NULL when out of memory. */
static zx_payload_entry *zx_payload_entry_of(const zx_key *k) {
    uint64_t hash = zx_key_hash(k);
    zx_payload_entry *e = zx_map_get(&zx_payloads_by_hash, hash);
    while (e != NULL && !zx_key_matches(e, k))
        e = e->chain;
    if (e != NULL)
        return e;
    e = calloc(1, sizeof *e);
    if (e == NULL)
        return NULL;
    e->hash = hash;
    uint64_t file_id = k->file_id > 0 ? (uint64_t)k->file_id : 0;
    uint64_t name_id = k->name_id > 0 ? (uint64_t)k->name_id : 0;
    e->payload = (zx_xpti_payload){.name = k->name,
                                   .source_file = k->source,
                                   .line_no = k->line,
                                   .column_no = k->column,
                                   .flags = zx_key_flags(k),
                                   .uid = {file_id << 32 | k->line, name_id, 1}};
    e->chain = zx_map_get(&zx_payloads_by_hash, hash);
    if (!zx_map_put(&zx_payloads_by_hash, hash, e)) {
        free(e);
        return NULL;
    }
    return e;
}

/* As the framework: a new tracepoint of the payload, whose uid (its address) is the answer, which xptiLookupPayload,
 * xptiQueryPayloadByUID and xptiFindEvent accept; the caller's payload gets the table's strings, the flags
 * (PayloadRegistered and what it carries), uid.p1/p2 and, in `internal`, that uid. 0 (invalid uid) for a payload with
 * neither name nor source file. */
ZX_FW_EXPORT uint64_t xptiRegisterPayload(zx_xpti_payload *payload) {
    zx_tp *tp = payload != NULL ? zx_fw_tp_make(NULL, payload, ZX_ET_ALGORITHM, ZX_ACTIVITY_ACTIVE) : NULL;
    if (tp == NULL)
        return 0;
    const zx_xpti_payload *registered = &tp->payload;
    payload->name = registered->name;
    payload->source_file = registered->source_file;
    payload->flags |= registered->flags & ~(uint64_t)ZX_PAYLOAD_HASH;
    payload->internal = registered->internal;
    payload->uid.p1 = registered->uid.p1;
    payload->uid.p2 = registered->uid.p2;
    return registered->internal;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Tracepoints and events */

/* Under zx_events_lock: a spare tracepoint, or a new one (known to zx_ours before it can be live). */
static zx_tp *zx_tp_take(void) {
    if (zx_spare.count > 0)
        return zx_spare.items[--zx_spare.count];
    zx_tp *tp = calloc(1, sizeof *tp);
    if (tp == NULL)
        return NULL;
    if (!zx_vec_push(&zx_every, tp)) {
        free(tp);
        return NULL;
    }
    if (!zx_cset_add(&zx_ours, (uint64_t)(uintptr_t)tp)) {
        zx_every.count--;
        free(tp);
        return NULL;
    }
    return tp;
}

zx_tp *zx_fw_tp_make(const char *name, const zx_xpti_payload *payload, uint16_t type, int32_t activity) {
    zx_key k;
    if (payload == NULL || !zx_key_from(name, payload, &k))
        return NULL;
    pthread_mutex_lock(&zx_events_lock);
    zx_payload_entry *e = zx_payload_entry_of(&k);
    zx_tp *tp = e != NULL ? zx_tp_take() : NULL;
    if (tp != NULL) {
        zx_fw_tp_init(tp, &e->payload, ++e->instances, type, activity);
        atomic_store_explicit(&tp->live, true, memory_order_release);
    }
    pthread_mutex_unlock(&zx_events_lock);
    return tp;
}

/* A new event each call, as the framework makes a new tracepoint each call: *instance_no tells how many events were
 * made of this payload. NULL without a payload, without instance_no, or for a payload with no name and no file. */
ZX_FW_EXPORT zx_xpti_event *xptiMakeEvent(const char *name, zx_xpti_payload *payload, uint16_t event_type,
                                          int32_t activity, uint64_t *instance_no) {
    if (instance_no == NULL)
        return NULL;
    zx_tp *tp = zx_fw_tp_make(name, payload, event_type, activity);
    if (tp == NULL)
        return NULL;
    *instance_no = tp->event.instance_id;
    return &tp->event;
}

/* The lookups below take no lock (docs/xpti.md, "lock-free path"): a probe of zx_ours and an acquire load. */
ZX_FW_EXPORT const zx_xpti_payload *xptiQueryPayload(zx_xpti_event *event) {
    zx_tp *tp = zx_tp_of_event(event);
    return tp != NULL ? &tp->payload : NULL;
}

ZX_FW_EXPORT const zx_xpti_event *xptiFindEvent(uint64_t uid) {
    zx_tp *tp = zx_fw_tp_live(uid);
    return tp != NULL ? &tp->event : NULL;
}

/* A tracepoint's uid, which is also what xptiRegisterPayload answered. */
ZX_FW_EXPORT const zx_xpti_payload *xptiQueryPayloadByUID(uint64_t uid) {
    zx_tp *tp = zx_fw_tp_live(uid);
    return tp != NULL ? &tp->payload : NULL;
}

ZX_FW_EXPORT const zx_xpti_payload_iface *xptiLookupPayload(uint64_t uid) {
    zx_tp *tp = zx_fw_tp_live(uid);
    return tp != NULL ? &tp->as_payload : NULL;
}

ZX_FW_EXPORT const zx_xpti_event_iface *xptiLookupEvent(uint64_t uid) {
    zx_tp *tp = zx_fw_tp_live(uid);
    return tp != NULL ? &tp->as_event : NULL;
}

/* Under zx_events_lock: a live tracepoint made spare. */
static void zx_tp_retire(zx_tp *tp) {
    atomic_store_explicit(&tp->live, false, memory_order_release);
    zx_fw_tp_clear(tp);
    if (!zx_vec_push(&zx_spare, tp))
        return; /* out of memory: it stays allocated and known (zx_every), just not made again */
}

bool zx_fw_tp_release(zx_tp *tp) {
    pthread_mutex_lock(&zx_events_lock);
    bool live = zx_fw_tp_live((uint64_t)(uintptr_t)tp) == tp;
    if (live)
        zx_tp_retire(tp);
    pthread_mutex_unlock(&zx_events_lock);
    return live;
}

ZX_FW_EXPORT void xptiReleaseEvent(zx_xpti_event *event) {
    zx_tp *tp = zx_tp_of_event(event);
    if (tp != NULL)
        zx_fw_tp_release(tp);
}

/* As the framework's reset: every tracepoint and every payload forgotten, so instance numbers start again at 1. */
void zx_fw_events_reset(void) {
    pthread_mutex_lock(&zx_events_lock);
    for (size_t i = 0; i < zx_every.count; i++) {
        zx_tp *tp = zx_every.items[i];
        if (atomic_load_explicit(&tp->live, memory_order_relaxed))
            zx_tp_retire(tp);
    }
    size_t pos = 0;
    uint64_t hash;
    void *value;
    while (zx_map_next(&zx_payloads_by_hash, &pos, &hash, &value)) {
        for (zx_payload_entry *e = value, *next; e != NULL; e = next) {
            next = e->chain;
            free(e);
        }
    }
    zx_map_clear(&zx_payloads_by_hash);
    pthread_mutex_unlock(&zx_events_lock);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Metadata */

/* As the framework: DUPLICATE when the event already has the key, whose value is replaced; INVALIDARG for a NULL
 * event or key and for an empty key (the string table refuses it). */
ZX_FW_EXPORT zx_xpti_result xptiAddMetadata(zx_xpti_event *event, const char *key, zx_xpti_object_id value) {
    if (event == NULL || key == NULL || key[0] == '\0')
        return ZX_XPTI_INVALIDARG;
    zx_xpti_string_id key_id;
    if (zx_fw_intern(key, &key_id) == NULL)
        return ZX_XPTI_FAIL;
    pthread_mutex_lock(&zx_events_lock);
    zx_tp *tp = zx_tp_of_event(event);
    zx_xpti_result result = tp != NULL ? zx_fw_meta_add(tp, key_id, value) : ZX_XPTI_INVALIDARG;
    pthread_mutex_unlock(&zx_events_lock);
    return result;
}

ZX_FW_EXPORT zx_xpti_metadata *xptiQueryMetadata(zx_xpti_event *event) {
    zx_tp *tp = zx_tp_of_event(event);
    return tp != NULL ? &tp->event.metadata : NULL;
}

ZX_FW_EXPORT zx_xpti_result zx_xpti_metadata_at(zx_xpti_event *event, uint32_t index, const char **key,
                                                zx_xpti_object_id *value) {
    if (key == NULL || value == NULL)
        return ZX_XPTI_INVALIDARG;
    zx_xpti_result result = ZX_XPTI_SUCCESS;
    pthread_mutex_lock(&zx_events_lock);
    zx_tp *tp = zx_tp_of_event(event);
    if (tp == NULL) {
        result = ZX_XPTI_INVALIDARG;
    } else if (index >= tp->meta.count) {
        result = ZX_XPTI_NOTFOUND;
    } else {
        *key = xptiLookupString(tp->meta.nodes[index]->key);
        *value = tp->meta.nodes[index]->value;
    }
    pthread_mutex_unlock(&zx_events_lock);
    return result;
}

zx_xpti_result zx_fw_tp_add_metadata(zx_tp *tp, const char *key, zx_xpti_object_id value) {
    return xptiAddMetadata(&tp->event, key, value);
}
