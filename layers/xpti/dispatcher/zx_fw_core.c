/* The framework's environment, subscribers and stream life cycle, and the small per-process services (unique ids,
 * the stash, defaults, user-defined types). See docs/xpti.md, "Our dispatcher". */
#include "zx_fw.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ZX_FW_MAX_SUBSCRIBERS 32
#define ZX_FW_STASH_DEPTH     16
#define ZX_FW_MAX_TOOLS       127 /* tool ids fit the high byte of a user-defined type, 0 excluded */

typedef struct zx_subscriber {
    void *handle;
    zx_xpti_trace_init_fn init;
    zx_xpti_trace_finish_fn finish;
    zx_xpti_query_detail_fn query_detail; /* optional: xptiQuerySubscriberStreamDetailLevel */
} zx_subscriber;

atomic_bool zx_fw_trace_on;

/* Written once while loading, read after zx_fw_ensure_loaded (ordered by zx_load_state). */
static zx_subscriber zx_subscribers[ZX_FW_MAX_SUBSCRIBERS];
static unsigned zx_subscriber_count;

static atomic_int zx_load_state; /* 0 not loaded, 2 loaded */
static pthread_mutex_t zx_load_lock = PTHREAD_MUTEX_INITIALIZER;
static _Thread_local bool zx_loading_here;

/* Serialises stream initialisation and finalisation, which call the subscribers; recursive, so that a subscriber may
 * initialise another stream from its xptiTraceInit. */
static pthread_mutex_t zx_init_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static bool zx_initialized[256]; /* per stream id, under zx_init_lock */
static unsigned zx_framework_users;

static atomic_uint_least64_t zx_unique_id;
static atomic_uchar zx_default_stream = 1; /* xpti.framework, always the first stream (zx_fw_callbacks.c) */

/* Per stream id, the effective detail level + 1; 0 until the stream is initialised: NORMAL, as the framework. */
static atomic_uchar zx_detail_levels[256];
static atomic_ushort zx_default_event_type = ZX_ET_ALGORITHM; /* the framework's defaults */
static atomic_ushort zx_default_trace_type = ZX_TP_FUNCTION_BEGIN;

static pthread_mutex_t zx_tools_lock = PTHREAD_MUTEX_INITIALIZER;
static char *zx_tools[ZX_FW_MAX_TOOLS + 1];

typedef struct zx_tuple {
    char *key;
    uint64_t value;
} zx_tuple;
static _Thread_local zx_tuple zx_stash[ZX_FW_STASH_DEPTH];
static _Thread_local unsigned zx_stash_depth;

void zx_fw_diag(const char *format, ...) {
    va_list args;
    va_start(args, format);
    fputs("xptifw: ", stderr);
    vfprintf(stderr, format, args);
    fputc('\n', stderr);
    va_end(args);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Environment and subscribers */

/* XPTI_TRACE_ENABLE: unset, "1" or "true" enable; anything else disables. */
static bool zx_env_enabled(void) {
    const char *value = getenv("XPTI_TRACE_ENABLE");
    return value == NULL || strcmp(value, "1") == 0 || strcmp(value, "true") == 0;
}

static bool zx_already_loaded(void *handle) {
    for (unsigned i = 0; i < zx_subscriber_count; i++) {
        if (zx_subscribers[i].handle == handle)
            return true;
    }
    return false;
}

/* Loads one subscriber; it is kept only when it exports both entry points. */
static void zx_load_subscriber(const char *path) {
    if (zx_subscriber_count == ZX_FW_MAX_SUBSCRIBERS) {
        zx_fw_diag("%s: more than %d subscribers; not loaded", path, ZX_FW_MAX_SUBSCRIBERS);
        return;
    }
    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        zx_fw_diag("cannot load subscriber %s: %s", path, dlerror());
        return;
    }
    zx_subscriber s = {handle, NULL, NULL, NULL};
    *(void **)&s.init = dlsym(handle, "xptiTraceInit");
    *(void **)&s.finish = dlsym(handle, "xptiTraceFinish");
    *(void **)&s.query_detail = dlsym(handle, "xptiQuerySubscriberStreamDetailLevel");
    if (s.init == NULL || s.finish == NULL || zx_already_loaded(handle)) {
        if (s.init == NULL || s.finish == NULL)
            zx_fw_diag("subscriber %s does not export %s; not loaded", path,
                       s.init == NULL ? "xptiTraceInit" : "xptiTraceFinish");
        dlclose(handle);
        return;
    }
    zx_subscribers[zx_subscriber_count++] = s;
}

/* XPTI_SUBSCRIBERS: libraries separated by commas; empty entries are skipped. */
static void zx_load_subscribers(const char *list) {
    char *copy = strdup(list);
    if (copy == NULL)
        return;
    char *save = NULL;
    for (char *path = strtok_r(copy, ",", &save); path != NULL; path = strtok_r(NULL, ",", &save))
        zx_load_subscriber(path);
    free(copy);
}

/* As the framework when it is created: the subscribers, the enabled state, and its own stream, the default one. */
static void zx_fw_load(void) {
    const char *list = getenv("XPTI_SUBSCRIBERS");
    bool enabled = zx_env_enabled();
    if (enabled && list != NULL)
        zx_load_subscribers(list);
    atomic_store_explicit(&zx_fw_trace_on, enabled && zx_subscriber_count > 0, memory_order_relaxed);
    atomic_store_explicit(&zx_default_stream, xptiRegisterStream(ZX_XPTI_FRAMEWORK_STREAM), memory_order_relaxed);
}

void zx_fw_ensure_loaded(void) {
    if (atomic_load_explicit(&zx_load_state, memory_order_acquire) == 2 || zx_loading_here)
        return;
    pthread_mutex_lock(&zx_load_lock);
    if (atomic_load_explicit(&zx_load_state, memory_order_relaxed) != 2) {
        zx_loading_here = true;
        zx_fw_load();
        zx_loading_here = false;
        atomic_store_explicit(&zx_load_state, 2, memory_order_release);
    }
    pthread_mutex_unlock(&zx_load_lock);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Framework and stream life cycle */

ZX_FW_EXPORT void xptiFrameworkInitialize(void) {
    zx_fw_ensure_loaded();
    pthread_mutex_lock(&zx_init_lock);
    zx_framework_users++;
    pthread_mutex_unlock(&zx_init_lock);
}

/* Under zx_init_lock: a stream still initialised is finalised. */
static void zx_finalize_each(const char *name, void *arg) {
    (void)arg;
    uint8_t id = xptiRegisterStream(name);
    if (id != ZX_XPTI_INVALID_STREAM && zx_initialized[id])
        xptiFinalize(name);
}

/* The last user's finalisation finalises every stream still initialised, so that subscribers can write their
 * results; the subscribers stay loaded (a late notification must still find its callback's code). */
ZX_FW_EXPORT void xptiFrameworkFinalize(void) {
    pthread_mutex_lock(&zx_init_lock);
    bool last = zx_framework_users == 1;
    if (zx_framework_users > 0)
        zx_framework_users--;
    if (last)
        zx_fw_each_stream(zx_finalize_each, NULL);
    pthread_mutex_unlock(&zx_init_lock);
}

/* As the framework: the most detailed level any subscriber asks for the stream, each asking NORMAL unless its
 * xptiQuerySubscriberStreamDetailLevel says otherwise; NONE without subscribers. */
static uint8_t zx_detail_level_asked(const char *name) {
    uint8_t level = ZX_DETAIL_NONE;
    for (unsigned i = 0; i < zx_subscriber_count; i++) {
        uint8_t asked = ZX_DETAIL_NORMAL;
        if (zx_subscribers[i].query_detail != NULL)
            zx_subscribers[i].query_detail(name, &asked);
        level = asked > level ? asked : level;
    }
    return level;
}

/* Under zx_init_lock: calls every subscriber's xptiTraceInit for the stream, on every initialisation, as the
 * framework does, then asks them the stream's detail level. */
static void zx_initialize_stream(uint8_t id, uint32_t major, uint32_t minor, const char *version) {
    zx_initialized[id] = true;
    const char *name = zx_fw_stream_name(id);
    for (unsigned i = 0; i < zx_subscriber_count; i++)
        zx_subscribers[i].init(major, minor, version, name);
    atomic_store_explicit(&zx_detail_levels[id], (uint8_t)(zx_detail_level_asked(name) + 1), memory_order_release);
}

/* The level stream emitters may consult before emitting optional data; NORMAL for a stream never initialised. */
ZX_FW_EXPORT uint8_t xptiGetEffectiveStreamDetailLevel(uint8_t stream) {
    uint8_t stored = atomic_load_explicit(&zx_detail_levels[stream], memory_order_acquire);
    return stored == 0 ? ZX_DETAIL_NORMAL : (uint8_t)(stored - 1);
}

/* As the framework: INVALIDARG for a NULL stream or version, SUCCESS otherwise, with or without subscribers. Before
 * the first stream, the framework's own stream is initialised, once (version 1.0). */
ZX_FW_EXPORT zx_xpti_result xptiInitialize(const char *stream, uint32_t major, uint32_t minor, const char *version) {
    static bool framework_stream_done; /* under zx_init_lock */
    if (stream == NULL || version == NULL)
        return ZX_XPTI_INVALIDARG;
    zx_fw_ensure_loaded();
    uint8_t id = xptiRegisterStream(stream);
    if (id == ZX_XPTI_INVALID_STREAM)
        return ZX_XPTI_INVALIDARG;
    pthread_mutex_lock(&zx_init_lock);
    if (!framework_stream_done) {
        framework_stream_done = true;
        zx_initialize_stream(xptiRegisterStream(ZX_XPTI_FRAMEWORK_STREAM), 1, 0, "1.0.0");
    }
    zx_initialize_stream(id, major, minor, version);
    pthread_mutex_unlock(&zx_init_lock);
    return ZX_XPTI_SUCCESS;
}

/* As the framework: every subscriber's xptiTraceFinish for the stream (whether or not it was initialised), then
 * every callback of the stream disabled; the answer is the callbacks' (zx_fw_stream_unregister). */
static zx_xpti_result zx_finalize_stream(const char *stream) {
    pthread_mutex_lock(&zx_init_lock);
    uint8_t id = xptiRegisterStream(stream);
    if (id != ZX_XPTI_INVALID_STREAM)
        zx_initialized[id] = false;
    for (unsigned i = 0; i < zx_subscriber_count; i++)
        zx_subscribers[i].finish(stream);
    pthread_mutex_unlock(&zx_init_lock);
    return zx_fw_stream_unregister(stream);
}

ZX_FW_EXPORT void xptiFinalize(const char *stream) {
    if (stream != NULL)
        zx_finalize_stream(stream);
}

/* The framework's unregistration is its finalisation: NOTFOUND for a stream without callbacks, SUCCESS otherwise. */
ZX_FW_EXPORT zx_xpti_result xptiUnregisterStream(const char *stream_name) {
    if (stream_name == NULL)
        return ZX_XPTI_INVALIDARG;
    return zx_finalize_stream(stream_name);
}

ZX_FW_EXPORT bool xptiTraceEnabled(void) {
    zx_fw_ensure_loaded();
    return atomic_load_explicit(&zx_fw_trace_on, memory_order_relaxed);
}

ZX_FW_EXPORT void xptiForceSetTraceEnabled(bool enabled) {
    zx_fw_ensure_loaded(); /* so that a later first load cannot overwrite the forced state */
    atomic_store_explicit(&zx_fw_trace_on, enabled, memory_order_relaxed);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Ids, stash, defaults */

ZX_FW_EXPORT uint64_t xptiGetUniqueId(void) {
    return atomic_fetch_add_explicit(&zx_unique_id, 1, memory_order_relaxed) + 1;
}

/* A per-thread stack of tuples; the key is kept as given (the caller keeps it alive until it unstashes). */
/* FAIL for a NULL key (as the framework) or a full stack. */
ZX_FW_EXPORT zx_xpti_result xptiStashTuple(const char *key, uint64_t value) {
    if (key == NULL)
        return ZX_XPTI_FAIL;
    if (zx_stash_depth == ZX_FW_STASH_DEPTH)
        return ZX_XPTI_FAIL;
    zx_stash[zx_stash_depth++] = (zx_tuple){(char *)key, value};
    return ZX_XPTI_SUCCESS;
}

ZX_FW_EXPORT void xptiUnstashTuple(void) {
    if (zx_stash_depth > 0)
        zx_stash_depth--;
}

ZX_FW_EXPORT zx_xpti_result xptiGetStashedTuple(char **key, uint64_t *value) {
    if (key == NULL || value == NULL)
        return ZX_XPTI_INVALIDARG;
    if (zx_stash_depth == 0)
        return ZX_XPTI_NOTFOUND;
    *key = zx_stash[zx_stash_depth - 1].key;
    *value = zx_stash[zx_stash_depth - 1].value;
    return ZX_XPTI_SUCCESS;
}

ZX_FW_EXPORT uint8_t xptiGetDefaultStreamID(void) {
    return atomic_load_explicit(&zx_default_stream, memory_order_relaxed);
}

/* As the framework: INVALIDARG for an id that is negative as an int8_t (128..255, the invalid id among them); any
 * other is taken, whether or not a stream has it yet. */
ZX_FW_EXPORT zx_xpti_result xptiSetDefaultStreamID(uint8_t stream_id) {
    if ((int8_t)stream_id < 0)
        return ZX_XPTI_INVALIDARG;
    atomic_store_explicit(&zx_default_stream, stream_id, memory_order_relaxed);
    return ZX_XPTI_SUCCESS;
}

ZX_FW_EXPORT uint16_t xptiGetDefaultEventType(void) {
    return atomic_load_explicit(&zx_default_event_type, memory_order_relaxed);
}

/* INVALIDARG for unknown_event (0). */
ZX_FW_EXPORT zx_xpti_result xptiSetDefaultEventType(uint16_t event_type) {
    if (event_type == ZX_ET_UNKNOWN)
        return ZX_XPTI_INVALIDARG;
    atomic_store_explicit(&zx_default_event_type, event_type, memory_order_relaxed);
    return ZX_XPTI_SUCCESS;
}

ZX_FW_EXPORT uint16_t xptiGetDefaultTraceType(void) {
    return atomic_load_explicit(&zx_default_trace_type, memory_order_relaxed);
}

/* INVALIDARG for unknown_type (0). */
ZX_FW_EXPORT zx_xpti_result xptiSetDefaultTraceType(uint16_t trace_type) {
    if (trace_type == 0)
        return ZX_XPTI_INVALIDARG;
    atomic_store_explicit(&zx_default_trace_type, trace_type, memory_order_relaxed);
    return ZX_XPTI_SUCCESS;
}

/* ------------------------------------------------------------------------------------------------------------------
 * User-defined types: (tool id << 8) | 0x80 | value, the tool id being 1.. in the order tools first register. */

static uint16_t zx_tool_id(const char *tool) {
    uint16_t id = 0;
    pthread_mutex_lock(&zx_tools_lock);
    for (uint16_t i = 1; i <= ZX_FW_MAX_TOOLS && id == 0; i++) {
        if (zx_tools[i] == NULL) {
            zx_tools[i] = strdup(tool);
            id = zx_tools[i] != NULL ? i : 0;
            break;
        }
        if (strcmp(zx_tools[i], tool) == 0)
            id = i;
    }
    pthread_mutex_unlock(&zx_tools_lock);
    return id;
}

static uint16_t zx_user_defined(const char *tool, uint8_t value) {
    if (tool == NULL || *tool == '\0')
        return 0;
    uint16_t id = zx_tool_id(tool);
    return id == 0 ? 0 : (uint16_t)(id << 8 | 0x80u | (value & 0x7fu));
}

ZX_FW_EXPORT uint16_t xptiRegisterUserDefinedTracePoint(const char *tool_name, uint8_t user_defined_tp) {
    return zx_user_defined(tool_name, user_defined_tp);
}

ZX_FW_EXPORT uint16_t xptiRegisterUserDefinedEventType(const char *tool_name, uint8_t user_defined_event) {
    return zx_user_defined(tool_name, user_defined_event);
}

/* As the framework: events, payloads (instance numbers start again at 1), callbacks and strings forgotten, unique ids
 * and detail levels back to their start. Stream ids, objects, subscribers, the defaults and per-thread data stay; no
 * memory a subscriber or emitter may still hold is freed. */
ZX_FW_EXPORT void xptiReset(void) {
    zx_fw_events_reset();
    zx_fw_callbacks_reset();
    zx_fw_strings_reset();
    atomic_store_explicit(&zx_unique_id, 0, memory_order_relaxed);
    for (size_t id = 0; id < 256; id++)
        atomic_store_explicit(&zx_detail_levels[id], 0, memory_order_relaxed);
}
