/* Streams and callbacks, and the notification path.
 *
 * The notification path takes no lock: each stream has pages of 256 trace types, allocated on first registration
 * and published with a release store; each trace type has a list of callback nodes in registration order, appended
 * at the tail with a release store. Nothing of it is ever freed or moved while the library is loaded, so a reader
 * never meets freed memory. Unregistering a callback clears its node's enabled flag (registering it again sets it),
 * which keeps the registration order stable. Counters of enabled callbacks per stream and per type answer
 * xptiCheckTraceEnabled with two loads. Writers (registration) serialise on zx_cb_lock. */
#include "zx_fw.h"
#include "zx_util.h"

#include <stdlib.h>
#include <string.h>

#define ZX_TYPES_PER_PAGE 256
#define ZX_PAGES          (65536 / ZX_TYPES_PER_PAGE)

typedef struct zx_cb_node {
    zx_xpti_callback cb;
    atomic_bool enabled;
    _Atomic(struct zx_cb_node *) next;
} zx_cb_node;

typedef struct zx_slot {
    _Atomic(zx_cb_node *) head;
    zx_cb_node *tail;      /* under zx_cb_lock */
    atomic_uint listeners; /* enabled callbacks */
} zx_slot;

typedef struct zx_stream {
    _Atomic(const char *) name; /* our copy; NULL for an id that only has callbacks */
    atomic_uint listeners;      /* enabled callbacks of every type */
    bool registered;            /* a callback was registered since the last xptiReset; under zx_cb_lock */
    _Atomic(zx_slot *) pages[ZX_PAGES];
} zx_stream;

/* Index = stream id. Names get ids 1..254 (255 is the invalid id); a callback may be registered for an id no name has
 * yet (the framework accepts it), which makes a slot without a name, named when the name gets that id. */
static _Atomic(zx_stream *) zx_streams[256];
static unsigned zx_stream_count; /* under zx_cb_lock */
static pthread_mutex_t zx_cb_lock = PTHREAD_MUTEX_INITIALIZER;
static zx_vec zx_cb_forgotten; /* callback lists xptiReset took out: a notification may still be walking one */

/* ------------------------------------------------------------------------------------------------------------------
 * Streams */

static zx_stream *zx_stream_get(unsigned id) {
    if (id > 255)
        return NULL;
    return atomic_load_explicit(&zx_streams[id], memory_order_acquire);
}

const char *zx_fw_stream_name(uint8_t id) {
    zx_stream *stream = zx_stream_get(id);
    return stream != NULL ? atomic_load_explicit(&stream->name, memory_order_acquire) : NULL;
}

void zx_fw_each_stream(void (*fn)(const char *name, void *arg), void *arg) {
    const char *names[256];
    unsigned count = 0;
    for (unsigned id = 1; id < 256; id++) {
        const char *name = zx_fw_stream_name((uint8_t)id);
        if (name != NULL)
            names[count++] = name;
    }
    for (unsigned i = 0; i < count; i++)
        fn(names[i], arg);
}

/* Under zx_cb_lock: the slot of an id, made when missing; NULL when out of memory. */
static zx_stream *zx_stream_slot(uint8_t id) {
    zx_stream *stream = atomic_load_explicit(&zx_streams[id], memory_order_relaxed);
    if (stream != NULL)
        return stream;
    stream = calloc(1, sizeof *stream);
    if (stream != NULL)
        atomic_store_explicit(&zx_streams[id], stream, memory_order_release);
    return stream;
}

/* Under zx_cb_lock: the next id for a new name; the invalid id when out of memory. Names have their own copies, not
 * string table entries: stream ids are a table of their own in the framework, which xptiReset keeps. */
static uint8_t zx_stream_add(const char *name) {
    uint8_t id = (uint8_t)(zx_stream_count + 1);
    char *copy = strdup(name);
    zx_stream *stream = copy != NULL ? zx_stream_slot(id) : NULL;
    if (stream == NULL) {
        free(copy);
        return ZX_XPTI_INVALID_STREAM;
    }
    atomic_store_explicit(&stream->name, copy, memory_order_release);
    zx_stream_count = id;
    return id;
}

/* Under zx_cb_lock: the id of a name, or the invalid id. */
static uint8_t zx_stream_find(const char *name) {
    for (unsigned i = 1; i <= zx_stream_count; i++) {
        zx_stream *stream = atomic_load_explicit(&zx_streams[i], memory_order_relaxed);
        if (strcmp(stream->name, name) == 0)
            return (uint8_t)i;
    }
    return ZX_XPTI_INVALID_STREAM;
}

/* The id of a stream name, registering it when new; the invalid id (255) for NULL or "" and when all are taken. The
 * framework's own stream is always the first (id 1, the default stream): the framework registers it when it is
 * created, before any other call can. */
ZX_FW_EXPORT uint8_t xptiRegisterStream(const char *stream_name) {
    if (stream_name == NULL || *stream_name == '\0')
        return ZX_XPTI_INVALID_STREAM;
    pthread_mutex_lock(&zx_cb_lock);
    if (zx_stream_count == 0)
        zx_stream_add(ZX_XPTI_FRAMEWORK_STREAM);
    uint8_t id = zx_stream_find(stream_name);
    if (id == ZX_XPTI_INVALID_STREAM && zx_stream_count < ZX_XPTI_INVALID_STREAM - 1)
        id = zx_stream_add(stream_name);
    pthread_mutex_unlock(&zx_cb_lock);
    return id;
}

/* Under zx_cb_lock: disables every callback of a stream. */
static void zx_stream_disable(zx_stream *stream) {
    for (size_t p = 0; p < ZX_PAGES; p++) {
        zx_slot *page = atomic_load_explicit(&stream->pages[p], memory_order_relaxed);
        for (size_t t = 0; page != NULL && t < ZX_TYPES_PER_PAGE; t++) {
            zx_slot *slot = &page[t];
            for (zx_cb_node *n = atomic_load_explicit(&slot->head, memory_order_relaxed); n != NULL;
                 n = atomic_load_explicit(&n->next, memory_order_relaxed)) {
                atomic_store_explicit(&n->enabled, false, memory_order_relaxed);
            }
            atomic_store_explicit(&slot->listeners, 0, memory_order_relaxed);
        }
    }
    atomic_store_explicit(&stream->listeners, 0, memory_order_relaxed);
}

/* Under zx_cb_lock: whether a callback was registered on the stream (since the last xptiReset). */
static bool zx_stream_had_callbacks(const zx_stream *stream) {
    return stream->registered;
}

/* xptiFinalize's and xptiUnregisterStream's part: disables every callback of the stream; its id stays reserved for
 * the name, so ids never change. As the framework: NOTFOUND for a stream on which no callback was ever registered,
 * SUCCESS otherwise (again on a second call). */
zx_xpti_result zx_fw_stream_unregister(const char *stream_name) {
    pthread_mutex_lock(&zx_cb_lock);
    uint8_t id = zx_stream_find(stream_name);
    zx_stream *stream = id != ZX_XPTI_INVALID_STREAM ? zx_stream_get(id) : NULL;
    zx_xpti_result result = stream != NULL && zx_stream_had_callbacks(stream) ? ZX_XPTI_SUCCESS : ZX_XPTI_NOTFOUND;
    if (result == ZX_XPTI_SUCCESS)
        zx_stream_disable(stream);
    pthread_mutex_unlock(&zx_cb_lock);
    return result;
}

/* Under zx_cb_lock: a stream's callback lists emptied; the old nodes (disabled) stay for notifications in flight. */
static void zx_stream_forget(zx_stream *stream) {
    zx_stream_disable(stream);
    for (size_t p = 0; p < ZX_PAGES; p++) {
        zx_slot *page = atomic_load_explicit(&stream->pages[p], memory_order_relaxed);
        for (size_t t = 0; page != NULL && t < ZX_TYPES_PER_PAGE; t++) {
            zx_cb_node *head = atomic_load_explicit(&page[t].head, memory_order_relaxed);
            if (head == NULL || !zx_vec_push(&zx_cb_forgotten, head))
                continue; /* out of memory: the list stays, disabled, and is found again by a new registration */
            atomic_store_explicit(&page[t].head, NULL, memory_order_release);
            page[t].tail = NULL;
        }
    }
    stream->registered = false;
}

/* xptiReset's part, as the framework clears its callbacks: every callback of every stream forgotten, so registering
 * one again answers SUCCESS (not UNDELETE) and unregistering a stream NOTFOUND. */
void zx_fw_callbacks_reset(void) {
    pthread_mutex_lock(&zx_cb_lock);
    for (unsigned id = 0; id < 256; id++) {
        zx_stream *stream = atomic_load_explicit(&zx_streams[id], memory_order_relaxed);
        if (stream != NULL)
            zx_stream_forget(stream);
    }
    pthread_mutex_unlock(&zx_cb_lock);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Callbacks */

/* The slot of a trace type, or NULL when no callback was ever registered in its page. */
static zx_slot *zx_slot_find(zx_stream *stream, uint16_t type) {
    zx_slot *page = atomic_load_explicit(&stream->pages[type / ZX_TYPES_PER_PAGE], memory_order_acquire);
    return page != NULL ? &page[type % ZX_TYPES_PER_PAGE] : NULL;
}

/* Under zx_cb_lock. */
static zx_slot *zx_slot_make(zx_stream *stream, uint16_t type) {
    zx_slot *slot = zx_slot_find(stream, type);
    if (slot != NULL)
        return slot;
    zx_slot *page = calloc(ZX_TYPES_PER_PAGE, sizeof *page);
    if (page == NULL)
        return NULL;
    atomic_store_explicit(&stream->pages[type / ZX_TYPES_PER_PAGE], page, memory_order_release);
    return &page[type % ZX_TYPES_PER_PAGE];
}

static zx_cb_node *zx_node_find(zx_slot *slot, zx_xpti_callback cb) {
    for (zx_cb_node *n = atomic_load_explicit(&slot->head, memory_order_relaxed); n != NULL;
         n = atomic_load_explicit(&n->next, memory_order_relaxed)) {
        if (n->cb == cb)
            return n;
    }
    return NULL;
}

static void zx_count(zx_stream *stream, zx_slot *slot, int delta) {
    atomic_fetch_add_explicit(&slot->listeners, (unsigned)delta, memory_order_relaxed);
    atomic_fetch_add_explicit(&stream->listeners, (unsigned)delta, memory_order_relaxed);
}

/* Under zx_cb_lock: appends a new enabled node; readers see it complete through the release store. */
static zx_xpti_result zx_node_append(zx_stream *stream, zx_slot *slot, zx_xpti_callback cb) {
    zx_cb_node *node = calloc(1, sizeof *node);
    if (node == NULL)
        return ZX_XPTI_FAIL;
    node->cb = cb;
    atomic_init(&node->enabled, true);
    if (slot->tail == NULL)
        atomic_store_explicit(&slot->head, node, memory_order_release);
    else
        atomic_store_explicit(&slot->tail->next, node, memory_order_release);
    slot->tail = node;
    stream->registered = true;
    zx_count(stream, slot, 1);
    return ZX_XPTI_SUCCESS;
}

/* As the framework: DUPLICATE when the callback is registered and enabled for this stream and type, UNDELETE when it
 * was unregistered (it is enabled again), SUCCESS when new, also for a stream id no name has yet. */
ZX_FW_EXPORT zx_xpti_result xptiRegisterCallback(uint8_t stream_id, uint16_t trace_type, zx_xpti_callback cb) {
    if (cb == NULL)
        return ZX_XPTI_INVALIDARG;
    pthread_mutex_lock(&zx_cb_lock);
    zx_xpti_result result = ZX_XPTI_FAIL;
    zx_stream *stream = zx_stream_slot(stream_id);
    zx_slot *slot = stream != NULL ? zx_slot_make(stream, trace_type) : NULL;
    zx_cb_node *node = slot != NULL ? zx_node_find(slot, cb) : NULL;
    if (slot == NULL) {
        result = ZX_XPTI_FAIL;
    } else if (node == NULL) {
        result = zx_node_append(stream, slot, cb);
    } else if (atomic_load_explicit(&node->enabled, memory_order_relaxed)) {
        result = ZX_XPTI_DUPLICATE;
    } else {
        atomic_store_explicit(&node->enabled, true, memory_order_relaxed);
        stream->registered = true;
        zx_count(stream, slot, 1);
        result = ZX_XPTI_UNDELETE;
    }
    pthread_mutex_unlock(&zx_cb_lock);
    return result;
}

/* As the framework: SUCCESS when it was enabled, DUPLICATE when it was already unregistered, NOTFOUND when it was
 * never registered for this stream and type. A notification already running on another thread may still call it
 * once. */
ZX_FW_EXPORT zx_xpti_result xptiUnregisterCallback(uint8_t stream_id, uint16_t trace_type, zx_xpti_callback cb) {
    if (cb == NULL)
        return ZX_XPTI_INVALIDARG;
    zx_stream *stream = zx_stream_get(stream_id);
    if (stream == NULL)
        return ZX_XPTI_NOTFOUND;
    pthread_mutex_lock(&zx_cb_lock);
    zx_xpti_result result = ZX_XPTI_NOTFOUND;
    zx_slot *slot = zx_slot_find(stream, trace_type);
    zx_cb_node *node = slot != NULL ? zx_node_find(slot, cb) : NULL;
    if (node != NULL && atomic_load_explicit(&node->enabled, memory_order_relaxed)) {
        atomic_store_explicit(&node->enabled, false, memory_order_relaxed);
        zx_count(stream, slot, -1);
        result = ZX_XPTI_SUCCESS;
    } else if (node != NULL) {
        result = ZX_XPTI_DUPLICATE;
    }
    pthread_mutex_unlock(&zx_cb_lock);
    return result;
}

/* ------------------------------------------------------------------------------------------------------------------
 * The notification path (no locks) */

ZX_FW_EXPORT bool xptiCheckTraceEnabled(uint16_t stream, uint16_t trace_type) {
    if (!atomic_load_explicit(&zx_fw_trace_on, memory_order_relaxed) || stream == 0)
        return false;
    zx_stream *s = zx_stream_get(stream);
    if (s == NULL)
        return false;
    if (trace_type == 0)
        return atomic_load_explicit(&s->listeners, memory_order_relaxed) != 0;
    zx_slot *slot = zx_slot_find(s, trace_type);
    return slot != NULL && atomic_load_explicit(&slot->listeners, memory_order_relaxed) != 0;
}

/* Types whose notifications may come without an event: the data is all in user_data. 31, function_with_args_end
 * of older headers, is another type in the current ones: it needs an event, as in the framework. */
static bool zx_object_optional(uint16_t type) {
    switch (type) {
    case ZX_TP_FUNCTION_BEGIN:
    case ZX_TP_FUNCTION_END:
    case ZX_TP_FUNCTION_WITH_ARGS_BEGIN:
    case ZX_TP_FUNCTION_WITH_ARGS_END:
    case ZX_TP_MEM_ALLOC_BEGIN:
    case ZX_TP_MEM_ALLOC_END:
    case ZX_TP_MEM_RELEASE_BEGIN:
    case ZX_TP_MEM_RELEASE_END:
    case ZX_TP_OFFLOAD_MEMORY_OBJECT_CONSTRUCT:
    case ZX_TP_OFFLOAD_MEMORY_OBJECT_DESTRUCT:
    case ZX_TP_OFFLOAD_MEMORY_OBJECT_ASSOCIATE:
    case ZX_TP_OFFLOAD_MEMORY_OBJECT_RELEASE:
    case ZX_TP_OFFLOAD_ALLOC_ACCESSOR:
    case ZX_TP_DIAGNOSTICS:
        return true;
    default:
        return false;
    }
}

/* FALSE when tracing is off; INVALIDARG for an event-less notification of a type that needs an event. Callbacks run
 * in registration order on the caller's thread. */
ZX_FW_EXPORT zx_xpti_result xptiNotifySubscribers(uint8_t stream_id, uint16_t trace_type, zx_xpti_event *parent,
                                                  zx_xpti_event *object, uint64_t instance, const void *user_data) {
    if (!atomic_load_explicit(&zx_fw_trace_on, memory_order_relaxed))
        return ZX_XPTI_FALSE;
    if (object == NULL && (user_data == NULL || !zx_object_optional(trace_type)))
        return ZX_XPTI_INVALIDARG;
    zx_stream *stream = zx_stream_get(stream_id);
    zx_slot *slot = stream != NULL ? zx_slot_find(stream, trace_type) : NULL;
    if (slot == NULL)
        return ZX_XPTI_SUCCESS;
    for (zx_cb_node *n = atomic_load_explicit(&slot->head, memory_order_acquire); n != NULL;
         n = atomic_load_explicit(&n->next, memory_order_acquire)) {
        if (atomic_load_explicit(&n->enabled, memory_order_relaxed))
            n->cb(trace_type, parent, object, instance, user_data);
    }
    return ZX_XPTI_SUCCESS;
}
