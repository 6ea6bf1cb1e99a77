/* The tracepoint objects of the current generation (docs/xpti.md, "Events and tracepoints"): their virtual functions
 * laid out as the Itanium C++ ABI lays out a vtable (offset to top, type info, then the functions in declaration order,
 * a virtual destructor taking two slots), the event's metadata map in the layout of libstdc++'s
 * std::unordered_map<int, int>,
 * and the tracepoint functions of the framework: create, delete, the per-thread scope data and the universal id. */
#include "zx_fw_tp.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

typedef void (*zx_vfn)(void);

/* The macro below defines every accessor for each interface; each vtable takes the ones its interface has. */
#define ZX_UNUSED __attribute__((unused))

#define ZX_TP_OF(self, member) ((zx_tp *)((char *)(self)-offsetof(zx_tp, member)))

/* ------------------------------------------------------------------------------------------------------------------
 * Metadata: the libstdc++ map. Nodes of one bucket are adjacent in the list; a bucket points at the node before its
 * first one (&before_begin for the bucket at the head). */

static const size_t zx_primes[] = {2, 5, 11, 23, 47, 97, 199, 409, 823, 1741, 3469, 6949, 14033, 28411, 57557};

static size_t zx_bucket_count(size_t elements) {
    for (size_t i = 0; i < ZX_COUNT(zx_primes); i++) {
        if (zx_primes[i] >= elements)
            return zx_primes[i];
    }
    return elements | 1;
}

static size_t zx_bucket_of(const zx_xpti_meta_node *node, size_t count) {
    return (size_t)(int64_t)node->key % count; /* std::hash<int> is the value itself */
}

/* Links every node again for a bucket array of the right size; the previous array is kept until the tracepoint goes,
 * in case a reader still holds it. */
static bool zx_meta_rehash(zx_meta *meta, zx_xpti_metadata *map) {
    size_t count = zx_bucket_count(meta->count);
    zx_xpti_meta_link **buckets = calloc(count, sizeof *buckets);
    if (buckets == NULL || (map->buckets != NULL && !zx_vec_push(&meta->old_buckets, map->buckets))) {
        free(buckets);
        return false;
    }
    map->before_begin.next = NULL;
    for (uint32_t i = 0; i < meta->count; i++) {
        zx_xpti_meta_node *node = meta->nodes[i];
        size_t b = zx_bucket_of(node, count);
        zx_xpti_meta_link *before = buckets[b];
        if (before == NULL) {
            node->next = map->before_begin.next;
            if (node->next != NULL)
                buckets[zx_bucket_of(node->next, count)] = (zx_xpti_meta_link *)node;
            map->before_begin.next = node;
            buckets[b] = &map->before_begin;
        } else {
            node->next = before->next;
            before->next = node;
        }
    }
    map->buckets = buckets;
    map->bucket_count = count;
    map->element_count = meta->count;
    map->max_load_factor = 1.0f;
    map->next_resize = count;
    return true;
}

zx_xpti_result zx_fw_meta_add(zx_tp *tp, zx_xpti_string_id key, zx_xpti_object_id value) {
    zx_meta *meta = &tp->meta;
    for (uint32_t i = 0; i < meta->count; i++) {
        if (meta->nodes[i]->key == key) {
            meta->nodes[i]->value = value;
            return ZX_XPTI_DUPLICATE;
        }
    }
    if (meta->count == meta->capacity) {
        uint32_t capacity = meta->capacity != 0 ? 2 * meta->capacity : 8;
        zx_xpti_meta_node **nodes = realloc(meta->nodes, capacity * sizeof *nodes);
        if (nodes == NULL)
            return ZX_XPTI_FAIL;
        meta->nodes = nodes;
        meta->capacity = capacity;
    }
    zx_xpti_meta_node *node = calloc(1, sizeof *node);
    if (node == NULL)
        return ZX_XPTI_FAIL;
    *node = (zx_xpti_meta_node){NULL, key, value};
    meta->nodes[meta->count++] = node;
    if (!zx_meta_rehash(meta, &tp->event.metadata)) {
        free(meta->nodes[--meta->count]);
        return ZX_XPTI_FAIL;
    }
    return ZX_XPTI_SUCCESS;
}

static void zx_meta_free(zx_meta *meta, zx_xpti_metadata *map) {
    for (uint32_t i = 0; i < meta->count; i++)
        free(meta->nodes[i]);
    free(meta->nodes);
    free(map->buckets);
    for (size_t i = 0; i < meta->old_buckets.count; i++)
        free(meta->old_buckets.items[i]);
    zx_vec_free(&meta->old_buckets);
}

/* ------------------------------------------------------------------------------------------------------------------
 * The shared methods, on the tracepoint */

static uint64_t zx_uid64(const zx_tp *tp) {
    return (uint64_t)(uintptr_t)tp;
}

static const char *zx_tp_name(const zx_tp *tp) {
    return tp->payload.name != NULL ? tp->payload.name : "<unknown>";
}

static const char *zx_tp_file(const zx_tp *tp) {
    return tp->payload.source_file != NULL ? tp->payload.source_file : "<unknown-file>";
}

/* The destructors: the complete-object one does nothing (the framework owns tracepoints), the deleting one (a C++
 * `delete` through an interface) deletes the tracepoint as xptiDeleteTracepoint does. */
static void zx_dtor_complete(void *self) {
    (void)self;
}

#define ZX_SUBOBJECT_METHODS(sub)                                                                                      \
    ZX_UNUSED static void zx_##sub##_dtor_delete(void *self) {                                                         \
        zx_fw_tp_release(ZX_TP_OF(self, as_##sub));                                                                    \
    }                                                                                                                  \
    ZX_UNUSED static zx_xpti_iface *zx_##sub##_payload(void *self) {                                                   \
        return &ZX_TP_OF(self, as_##sub)->as_payload;                                                                  \
    }                                                                                                                  \
    ZX_UNUSED static zx_xpti_iface *zx_##sub##_metadata(void *self) {                                                  \
        return &ZX_TP_OF(self, as_##sub)->as_metadata;                                                                 \
    }                                                                                                                  \
    ZX_UNUSED static uint64_t zx_##sub##_uid64(const void *self) {                                                     \
        return zx_uid64(ZX_TP_OF(self, as_##sub));                                                                     \
    }                                                                                                                  \
    ZX_UNUSED static uint64_t zx_##sub##_instance(const void *self) {                                                  \
        return ZX_TP_OF(self, as_##sub)->event.instance_id;                                                            \
    }                                                                                                                  \
    ZX_UNUSED static zx_xpti_payload *zx_##sub##_payload_ref(void *self) {                                             \
        return &ZX_TP_OF(self, as_##sub)->payload;                                                                     \
    }                                                                                                                  \
    ZX_UNUSED static zx_xpti_event *zx_##sub##_event_ref(void *self) {                                                 \
        return &ZX_TP_OF(self, as_##sub)->event;                                                                       \
    }
ZX_SUBOBJECT_METHODS(payload)
ZX_SUBOBJECT_METHODS(event)
ZX_SUBOBJECT_METHODS(metadata)
ZX_SUBOBJECT_METHODS(tracepoint)

/* ------------------------------------------------------------------------------------------------------------------
 * xpti_payload_t */

static const char *zx_p_name(const void *self) {
    return zx_tp_name(ZX_TP_OF(self, as_payload));
}
static const char *zx_p_file(const void *self) {
    return zx_tp_file(ZX_TP_OF(self, as_payload));
}
static uint32_t zx_p_line(const void *self) {
    return ZX_TP_OF(self, as_payload)->payload.line_no;
}
static uint32_t zx_p_column(const void *self) {
    return ZX_TP_OF(self, as_payload)->payload.column_no;
}
static uint64_t zx_p_flags(const void *self) {
    return ZX_TP_OF(self, as_payload)->payload.flags;
}
static int32_t zx_p_name_id(const void *self) {
    return (int32_t)(ZX_TP_OF(self, as_payload)->payload.uid.p2 & 0xffffffffu);
}
static int32_t zx_p_file_id(const void *self) {
    return (int32_t)(ZX_TP_OF(self, as_payload)->payload.uid.p1 >> 32);
}
static bool zx_p_valid(const void *self) {
    return (ZX_TP_OF(self, as_payload)->payload.flags & (ZX_PAYLOAD_NAME | ZX_PAYLOAD_SOURCE_FILE)) != 0;
}

static const struct {
    intptr_t offset_to_top;
    const void *type_info;
    zx_vfn fn[12];
} zx_payload_vtable = {-(intptr_t)offsetof(zx_tp, as_payload),
                       NULL,
                       {(zx_vfn)zx_dtor_complete, (zx_vfn)zx_payload_dtor_delete, (zx_vfn)zx_p_name, (zx_vfn)zx_p_file,
                        (zx_vfn)zx_p_line, (zx_vfn)zx_p_column, (zx_vfn)zx_p_flags, (zx_vfn)zx_p_name_id,
                        (zx_vfn)zx_p_file_id, (zx_vfn)zx_payload_uid64, (zx_vfn)zx_p_valid,
                        (zx_vfn)zx_payload_payload_ref}};

/* ------------------------------------------------------------------------------------------------------------------
 * xpti_trace_event_t */

static uint16_t zx_e_type(const void *self) {
    return ZX_TP_OF(self, as_event)->event.event_type;
}
static uint16_t zx_e_activity(const void *self) {
    return ZX_TP_OF(self, as_event)->event.activity_type;
}
static uint64_t zx_e_source(const void *self) {
    return (uint64_t)ZX_TP_OF(self, as_event)->event.source_id;
}
static uint64_t zx_e_target(const void *self) {
    return (uint64_t)ZX_TP_OF(self, as_event)->event.target_id;
}
static uint64_t zx_e_flags(const void *self) {
    return ZX_TP_OF(self, as_event)->event.flags;
}
static void zx_e_set_activity(void *self, int32_t activity) {
    ZX_TP_OF(self, as_event)->event.activity_type = (uint16_t)activity;
}
static void zx_e_set_type(void *self, uint16_t type) {
    ZX_TP_OF(self, as_event)->event.event_type = type;
}

static const struct {
    intptr_t offset_to_top;
    const void *type_info;
    zx_vfn fn[15];
} zx_event_vtable = {-(intptr_t)offsetof(zx_tp, as_event),
                     NULL,
                     {(zx_vfn)zx_dtor_complete, (zx_vfn)zx_event_dtor_delete, (zx_vfn)zx_event_payload,
                      (zx_vfn)zx_event_metadata, (zx_vfn)zx_event_uid64, (zx_vfn)zx_event_instance, (zx_vfn)zx_e_type,
                      (zx_vfn)zx_e_activity, (zx_vfn)zx_e_source, (zx_vfn)zx_e_target, (zx_vfn)zx_e_flags,
                      (zx_vfn)zx_e_set_activity, (zx_vfn)zx_e_set_type, (zx_vfn)zx_event_payload_ref,
                      (zx_vfn)zx_event_event_ref}};

/* ------------------------------------------------------------------------------------------------------------------
 * xpti_metadata_t: iteration in the map's order, FALSE past the end */

static zx_xpti_result zx_m_item(zx_tp *tp, char **key, int32_t *value) {
    if (tp->cursor == NULL || key == NULL || value == NULL)
        return ZX_XPTI_FALSE;
    *key = (char *)xptiLookupString(tp->cursor->key);
    *value = tp->cursor->value;
    return ZX_XPTI_SUCCESS;
}
static zx_xpti_result zx_m_first(void *self, char **key, int32_t *value) {
    zx_tp *tp = ZX_TP_OF(self, as_metadata);
    tp->cursor = tp->event.metadata.before_begin.next;
    return zx_m_item(tp, key, value);
}
static zx_xpti_result zx_m_next(void *self, char **key, int32_t *value) {
    zx_tp *tp = ZX_TP_OF(self, as_metadata);
    tp->cursor = tp->cursor != NULL ? tp->cursor->next : NULL;
    return zx_m_item(tp, key, value);
}
static zx_xpti_result zx_m_add(void *self, const char *key, int32_t value) {
    return zx_fw_tp_add_metadata(ZX_TP_OF(self, as_metadata), key, value);
}
static size_t zx_m_count(void *self) {
    return ZX_TP_OF(self, as_metadata)->meta.count;
}

static const struct {
    intptr_t offset_to_top;
    const void *type_info;
    zx_vfn fn[6];
} zx_metadata_vtable = {-(intptr_t)offsetof(zx_tp, as_metadata),
                        NULL,
                        {(zx_vfn)zx_dtor_complete, (zx_vfn)zx_metadata_dtor_delete, (zx_vfn)zx_m_first,
                         (zx_vfn)zx_m_next, (zx_vfn)zx_m_add, (zx_vfn)zx_m_count}};

/* ------------------------------------------------------------------------------------------------------------------
 * xpti_tracepoint_t */

static zx_xpti_iface *zx_t_event(void *self) {
    return &ZX_TP_OF(self, as_tracepoint)->as_event;
}

static const struct {
    intptr_t offset_to_top;
    const void *type_info;
    zx_vfn fn[9];
} zx_tracepoint_vtable = {-(intptr_t)offsetof(zx_tp, as_tracepoint),
                          NULL,
                          {(zx_vfn)zx_dtor_complete, (zx_vfn)zx_tracepoint_dtor_delete, (zx_vfn)zx_tracepoint_payload,
                           (zx_vfn)zx_tracepoint_metadata, (zx_vfn)zx_t_event, (zx_vfn)zx_tracepoint_uid64,
                           (zx_vfn)zx_tracepoint_instance, (zx_vfn)zx_tracepoint_event_ref,
                           (zx_vfn)zx_tracepoint_payload_ref}};

/* ------------------------------------------------------------------------------------------------------------------
 * Life cycle */

/* As the framework's tracepoint: the payload's uid p1 = file id << 32 | line and p2 = name id, its `internal` the
 * uid64 (HashAvailable); the event flagged with what it carries (UID, event type, activity type, payload). */
void zx_fw_tp_init(zx_tp *tp, const zx_xpti_payload *registered, uint64_t instance, uint16_t type, int32_t activity) {
    tp->as_payload.vtable = zx_payload_vtable.fn;
    tp->as_event.vtable = zx_event_vtable.fn;
    tp->as_metadata.vtable = zx_metadata_vtable.fn;
    tp->as_tracepoint.vtable = zx_tracepoint_vtable.fn;
    tp->payload = *registered;
    tp->payload.internal = zx_uid64(tp);
    tp->payload.flags |= ZX_PAYLOAD_HASH;
    tp->payload.uid.p3 = 0;
    tp->event = (zx_xpti_event){.unique_id = zx_uid64(tp),
                                .data_id = instance,
                                .instance_id = instance,
                                .event_type = type,
                                .activity_type = (uint16_t)activity,
                                .source_id = 0,
                                .target_id = 0,
                                .payload = &tp->payload,
                                .flags = ZX_EVENT_UID | ZX_EVENT_TYPE | ZX_EVENT_ACTIVITY_TYPE | ZX_EVENT_PAYLOAD};
}

void zx_fw_tp_clear(zx_tp *tp) {
    zx_meta_free(&tp->meta, &tp->event.metadata);
    tp->meta = (zx_meta){0};
    tp->event.metadata = (zx_xpti_metadata){0};
    tp->cursor = NULL;
}

/* The framework's stand-in for a tracepoint created with neither name nor file: "unknown" in "unknown-file", line
 * and column 0. */
static const zx_xpti_payload zx_unknown_payload = {.name = "unknown", .source_file = "unknown-file"};

static bool zx_text_given(const char *text) {
    return text != NULL && text[0] != '\0';
}

/* As the framework: a tracepoint with neither name nor file is made of the unknown payload, never refused. */
ZX_FW_EXPORT zx_xpti_tracepoint *xptiCreateTracepoint(const char *function, const char *file, uint32_t line,
                                                      uint32_t column) {
    zx_xpti_payload payload = {.name = function, .source_file = file, .line_no = line, .column_no = column};
    if (!zx_text_given(function) && !zx_text_given(file))
        payload = zx_unknown_payload;
    zx_tp *tp = zx_fw_tp_make(NULL, &payload, xptiGetDefaultEventType(), ZX_ACTIVITY_ACTIVE);
    return tp != NULL ? &tp->as_tracepoint : NULL;
}

/* INVALIDARG for NULL, NOTFOUND for a tracepoint that is not live (deleted, or not one of ours). */
ZX_FW_EXPORT zx_xpti_result xptiDeleteTracepoint(zx_xpti_tracepoint *tracepoint) {
    if (tracepoint == NULL)
        return ZX_XPTI_INVALIDARG;
    if (xptiGetTracepointScopeData() == tracepoint)
        xptiUnsetTracepointScopeData();
    return zx_fw_tp_release(ZX_TP_OF(tracepoint, as_tracepoint)) ? ZX_XPTI_SUCCESS : ZX_XPTI_NOTFOUND;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Per-thread scope data and universal id, and the scope notification switch */

static _Thread_local zx_xpti_tracepoint *zx_scope_data;
static _Thread_local uint64_t zx_universal_id;
static atomic_bool zx_scope_notification;

ZX_FW_EXPORT const zx_xpti_tracepoint *xptiGetTracepointScopeData(void) {
    return zx_scope_data;
}

ZX_FW_EXPORT zx_xpti_result xptiSetTracepointScopeData(zx_xpti_tracepoint *tracepoint) {
    if (tracepoint == NULL)
        return ZX_XPTI_INVALIDARG;
    zx_scope_data = tracepoint;
    zx_universal_id = (uint64_t)(uintptr_t)ZX_TP_OF(tracepoint, as_tracepoint);
    return ZX_XPTI_SUCCESS;
}

ZX_FW_EXPORT void xptiUnsetTracepointScopeData(void) {
    zx_scope_data = NULL;
    zx_universal_id = 0;
}

/* A new tracepoint made this thread's scope data; it lives until xptiDeleteTracepoint (or xptiReset). */
ZX_FW_EXPORT const zx_xpti_tracepoint *xptiRegisterTracepointScope(const char *function, const char *file,
                                                                   uint32_t line, uint32_t column) {
    zx_xpti_tracepoint *tracepoint = xptiCreateTracepoint(function, file, line, column);
    if (tracepoint != NULL)
        xptiSetTracepointScopeData(tracepoint);
    return tracepoint;
}

ZX_FW_EXPORT uint64_t xptiGetUniversalId(void) {
    return zx_universal_id;
}

ZX_FW_EXPORT void xptiSetUniversalId(uint64_t uid) {
    zx_universal_id = uid;
}

ZX_FW_EXPORT void xptiEnableTracepointScopeNotification(bool enabled) {
    atomic_store_explicit(&zx_scope_notification, enabled, memory_order_relaxed);
}

ZX_FW_EXPORT bool xptiCheckTracepointScopeNotification(void) {
    return atomic_load_explicit(&zx_scope_notification, memory_order_relaxed);
}
