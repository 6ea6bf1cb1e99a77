/* Events, their payloads and metadata.
 *
 * An event is identified by its payload: the name, source file, line, column and code address. xptiMakeEvent with a
 * payload it has seen returns the same event with its instance count raised; a new payload gets a new event whose
 * unique_id comes from a counter. Payload strings are interned, so the event never points into the caller's memory.
 *
 * Every function taking an event first looks it up among the live events, so a released, forgotten or made-up pointer
 * is answered with an error instead of being dereferenced. */
#include "zx_fw.h"
#include "zx_util.h"

#include <stdlib.h>
#include <string.h>

#define ZX_NO_LINE 0xffffffffu

typedef struct zx_meta {
    const char *key; /* interned */
    zx_xpti_object_id value;
} zx_meta;

typedef struct zx_event {
    zx_xpti_event pub; /* first: the pointer handed out */
    zx_xpti_payload payload;
    uint64_t hash;
    struct zx_event *chain; /* next live event with the same hash */
    zx_meta *meta;
    uint32_t meta_count;
    uint32_t meta_capacity;
} zx_event;

static pthread_mutex_t zx_events_lock = PTHREAD_MUTEX_INITIALIZER;
static zx_map zx_by_hash; /* payload hash -> chain of events */
static zx_map zx_live;    /* address -> event */
static zx_vec zx_retired; /* forgotten by xptiReset, freed at unload */
static uint64_t zx_event_count;

/* The event behind a pointer, if it is live. Under zx_events_lock. */
static zx_event *zx_event_live(const zx_xpti_event *event) {
    return event != NULL ? zx_map_get(&zx_live, (uint64_t)(uintptr_t)event) : NULL;
}

/* The identifying fields of a payload, interned. */
typedef struct zx_key {
    const char *name;
    const char *source;
    uint32_t line;
    uint32_t column;
    const void *code;
} zx_key;

static uint64_t zx_key_hash(const zx_key *k) {
    uint64_t h = zx_mix64((uint64_t)(uintptr_t)k->name);
    h = zx_mix64(h ^ (uint64_t)(uintptr_t)k->source);
    h = zx_mix64(h ^ ((uint64_t)k->line << 32 | k->column));
    return zx_mix64(h ^ (uint64_t)(uintptr_t)k->code);
}

static bool zx_key_matches(const zx_event *e, const zx_key *k) {
    const zx_xpti_payload *p = &e->payload;
    return p->name == k->name && p->source_file == k->source && p->line_no == k->line && p->column_no == k->column &&
           p->code_ptr_va == k->code;
}

/* Interned strings compare by address, which is what makes zx_key_matches exact. */
static bool zx_key_from(const char *name, const zx_xpti_payload *payload, zx_key *k) {
    k->name = zx_fw_intern(payload->name != NULL ? payload->name : name, NULL);
    k->source = zx_fw_intern(payload->source_file, NULL);
    k->line = k->source != NULL ? payload->line_no : ZX_NO_LINE;
    k->column = k->source != NULL ? payload->column_no : ZX_NO_LINE;
    k->code = payload->code_ptr_va;
    return k->name != NULL || k->source != NULL || k->code != NULL;
}

static uint64_t zx_payload_flags(const zx_key *k) {
    uint64_t flags = 0;
    flags |= k->name != NULL ? ZX_PAYLOAD_NAME : 0;
    flags |= k->source != NULL ? ZX_PAYLOAD_SOURCE_FILE : 0;
    flags |= k->line != ZX_NO_LINE ? ZX_PAYLOAD_LINE : 0;
    flags |= k->column != ZX_NO_LINE ? ZX_PAYLOAD_COLUMN : 0;
    flags |= k->code != NULL ? ZX_PAYLOAD_CODE_POINTER : 0;
    return flags;
}

/* Under zx_events_lock. */
static zx_event *zx_event_new(const zx_key *k, uint64_t hash, uint16_t type, int32_t activity) {
    zx_event *e = calloc(1, sizeof *e);
    if (e == NULL)
        return NULL;
    e->pub.unique_id = ++zx_event_count;
    zx_xpti_string_id name_id = ZX_XPTI_INVALID_ID;
    if (k->name != NULL)
        zx_fw_intern(k->name, &name_id);
    e->pub.data_id = name_id > 0 ? (uint64_t)name_id : 0;
    e->pub.event_type = type;
    e->pub.activity_type = (uint16_t)activity;
    e->pub.source_id = -1;
    e->pub.target_id = -1;
    e->pub.payload = &e->payload;
    e->payload = (zx_xpti_payload){
        k->name, NULL, k->source, k->line, k->column, k->code, hash, zx_payload_flags(k), {e->pub.unique_id, 0, 0}};
    e->hash = hash;
    e->chain = zx_map_get(&zx_by_hash, hash);
    if (!zx_map_put(&zx_live, (uint64_t)(uintptr_t)e, e)) {
        free(e);
        return NULL;
    }
    if (!zx_map_put(&zx_by_hash, hash, e)) {
        zx_map_remove(&zx_live, (uint64_t)(uintptr_t)e);
        free(e);
        return NULL;
    }
    return e;
}

ZX_FW_EXPORT zx_xpti_event *xptiMakeEvent(const char *name, zx_xpti_payload *payload, uint16_t event_type,
                                          int32_t activity, uint64_t *instance_no) {
    zx_xpti_payload empty = {.line_no = ZX_NO_LINE, .column_no = ZX_NO_LINE};
    zx_key k;
    if (!zx_key_from(name, payload != NULL ? payload : &empty, &k))
        return NULL;
    uint64_t hash = zx_key_hash(&k);
    pthread_mutex_lock(&zx_events_lock);
    zx_event *e = zx_map_get(&zx_by_hash, hash);
    while (e != NULL && !zx_key_matches(e, &k))
        e = e->chain;
    if (e != NULL)
        e->pub.instance_id++;
    else
        e = zx_event_new(&k, hash, event_type, activity);
    uint64_t instance = 0;
    if (e != NULL) {
        if (e->pub.instance_id == 0)
            e->pub.instance_id = 1;
        instance = e->pub.instance_id;
    }
    pthread_mutex_unlock(&zx_events_lock);
    if (instance_no != NULL && e != NULL)
        *instance_no = instance;
    return e != NULL ? &e->pub : NULL;
}

ZX_FW_EXPORT const zx_xpti_payload *xptiQueryPayload(zx_xpti_event *event) {
    pthread_mutex_lock(&zx_events_lock);
    zx_event *e = zx_event_live(event);
    pthread_mutex_unlock(&zx_events_lock);
    return e != NULL ? &e->payload : NULL;
}

/* Under zx_events_lock: takes the event out of the hash chains and the live set. */
static void zx_event_unlink(zx_event *e) {
    zx_map_remove(&zx_live, (uint64_t)(uintptr_t)e);
    zx_event *head = zx_map_get(&zx_by_hash, e->hash);
    if (head == e) {
        if (e->chain != NULL)
            zx_map_put(&zx_by_hash, e->hash, e->chain); /* replaces an existing key: cannot fail */
        else
            zx_map_remove(&zx_by_hash, e->hash);
        return;
    }
    for (zx_event *p = head; p != NULL; p = p->chain) {
        if (p->chain == e) {
            p->chain = e->chain;
            return;
        }
    }
}

ZX_FW_EXPORT void xptiReleaseEvent(zx_xpti_event *event) {
    pthread_mutex_lock(&zx_events_lock);
    zx_event *e = zx_event_live(event);
    if (e != NULL)
        zx_event_unlink(e);
    pthread_mutex_unlock(&zx_events_lock);
    if (e == NULL)
        return;
    free(e->meta);
    free(e);
}

void zx_fw_events_reset(void) {
    pthread_mutex_lock(&zx_events_lock);
    size_t first = zx_retired.count;
    size_t pos = 0;
    uint64_t key;
    void *value;
    while (zx_map_next(&zx_live, &pos, &key, &value)) {
        if (!zx_vec_push(&zx_retired, value))
            break; /* out of memory: the rest stay live rather than leak into unreachable memory */
    }
    for (size_t i = first; i < zx_retired.count; i++)
        zx_map_remove(&zx_live, (uint64_t)(uintptr_t)zx_retired.items[i]);
    if (zx_live.count == 0)
        zx_map_clear(&zx_by_hash);
    pthread_mutex_unlock(&zx_events_lock);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Metadata */

static bool zx_meta_reserve(zx_event *e) {
    if (e->meta_count < e->meta_capacity)
        return true;
    uint32_t capacity = e->meta_capacity != 0 ? 2 * e->meta_capacity : 8;
    zx_meta *meta = realloc(e->meta, capacity * sizeof *meta);
    if (meta == NULL)
        return false;
    e->meta = meta;
    e->meta_capacity = capacity;
    return true;
}

/* DUPLICATE when the event already has the key (the first value stays). */
ZX_FW_EXPORT zx_xpti_result xptiAddMetadata(zx_xpti_event *event, const char *key, zx_xpti_object_id value) {
    if (event == NULL || key == NULL)
        return ZX_XPTI_INVALIDARG;
    const char *interned = zx_fw_intern(key, NULL);
    if (interned == NULL)
        return ZX_XPTI_FAIL;
    zx_xpti_result result = ZX_XPTI_SUCCESS;
    pthread_mutex_lock(&zx_events_lock);
    zx_event *e = zx_event_live(event);
    for (uint32_t i = 0; e != NULL && i < e->meta_count && result == ZX_XPTI_SUCCESS; i++)
        result = e->meta[i].key == interned ? ZX_XPTI_DUPLICATE : ZX_XPTI_SUCCESS;
    if (e == NULL)
        result = ZX_XPTI_INVALIDARG;
    else if (result == ZX_XPTI_SUCCESS && !zx_meta_reserve(e))
        result = ZX_XPTI_FAIL;
    if (result == ZX_XPTI_SUCCESS)
        e->meta[e->meta_count++] = (zx_meta){interned, value};
    pthread_mutex_unlock(&zx_events_lock);
    return result;
}

ZX_FW_EXPORT zx_xpti_result zx_xpti_metadata_at(zx_xpti_event *event, uint32_t index, const char **key,
                                                zx_xpti_object_id *value) {
    if (key == NULL || value == NULL)
        return ZX_XPTI_INVALIDARG;
    zx_xpti_result result = ZX_XPTI_SUCCESS;
    pthread_mutex_lock(&zx_events_lock);
    zx_event *e = zx_event_live(event);
    if (e == NULL) {
        result = ZX_XPTI_INVALIDARG;
    } else if (index >= e->meta_count) {
        result = ZX_XPTI_NOTFOUND;
    } else {
        *key = e->meta[index].key;
        *value = e->meta[index].value;
    }
    pthread_mutex_unlock(&zx_events_lock);
    return result;
}
