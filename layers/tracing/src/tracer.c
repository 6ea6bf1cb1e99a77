/* Tracers of the tracing layer, and the snapshot every traced call takes (see zl_tracer.h).
 *
 * Handles are numbers handed out once and never reused, looked up in the list of live tracers: a NULL, destroyed or
 * made-up handle is answered with ZE_RESULT_ERROR_INVALID_NULL_HANDLE, never dereferenced.
 *
 * The enabled tracers form a list in enable order under a writer-preferring rwlock: calls read it to take their
 * snapshot, the tracer functions write it. Callbacks never run under the lock, so they may call the API, including
 * the tracer functions. Callbacks are copied into the snapshot, so that registering on a disabled tracer whose last
 * calls are still in flight neither races with them nor changes the epilogue they run. */
#include "zl_tracer.h"

#include <layers/zel_tracing_ddi.h>
#include <loader/ze_loader.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* Set in a tracer's in-flight count while its destroy waits, so that the last call to leave wakes it. */
#define ZL_TRACER_WAITING 0x80000000u

typedef struct zl_tracer {
    uintptr_t id; /* the handle's value */
    void *user_data;
    bool enabled;                  /* under zl_lock */
    atomic_uint in_flight;         /* calls whose snapshot holds it, plus ZL_TRACER_WAITING */
    zl_cb prologues[ZL_API_COUNT]; /* written under the write lock, only while disabled */
    zl_cb epilogues[ZL_API_COUNT];
} zl_tracer;

/* A growable array of tracers. */
typedef struct zl_list {
    zl_tracer **items;
    size_t count;
    size_t capacity;
} zl_list;

atomic_uint zl_enabled_tracers;

static pthread_rwlock_t zl_lock = PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP;
static zl_list zl_live;  /* every tracer not destroyed */
static zl_list zl_order; /* the enabled ones, in enable order */
static uintptr_t zl_last_id;
static atomic_bool zl_loaded;

/* Destroy waits here for the last call holding its tracer. Global (not per tracer) so that the call that wakes the
 * waiter never touches the tracer after releasing it. */
static pthread_mutex_t zl_idle_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t zl_idle = PTHREAD_COND_INITIALIZER;

/* The traced call this thread is in, if any: calls from its callbacks are not traced. */
static _Thread_local zl_call *zl_current;

void zl_layer_loaded(void) {
    atomic_store_explicit(&zl_loaded, true, memory_order_release);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Lists (callers hold the write lock) */

static bool zl_list_add(zl_list *list, zl_tracer *tracer) {
    if (list->count == list->capacity) {
        size_t capacity = list->capacity != 0 ? 2 * list->capacity : 8;
        zl_tracer **items = realloc(list->items, capacity * sizeof *items);
        if (items == NULL)
            return false;
        list->items = items;
        list->capacity = capacity;
    }
    list->items[list->count++] = tracer;
    return true;
}

/* Removes a tracer, keeping the order of the others (the enable order). */
static void zl_list_remove(zl_list *list, const zl_tracer *tracer) {
    size_t k = 0;
    for (size_t i = 0; i < list->count; i++) {
        if (list->items[i] != tracer)
            list->items[k++] = list->items[i];
    }
    list->count = k;
}

static zl_tracer *zl_find(zel_tracer_handle_t handle) {
    for (size_t i = 0; i < zl_live.count; i++) {
        if (zl_live.items[i]->id == (uintptr_t)handle)
            return zl_live.items[i];
    }
    return NULL;
}

/* Checks what every function taking a tracer checks first, in the header's order; on success the write lock is held
 * and *out is the live tracer. */
static ze_result_t zl_lock_tracer(zel_tracer_handle_t handle, zl_tracer **out) {
    if (!atomic_load_explicit(&zl_loaded, memory_order_acquire))
        return ZE_RESULT_ERROR_UNINITIALIZED;
    if (handle == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    pthread_rwlock_wrlock(&zl_lock);
    *out = zl_find(handle);
    if (*out != NULL)
        return ZE_RESULT_SUCCESS;
    pthread_rwlock_unlock(&zl_lock);
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Traced calls */

static bool zl_reserve(zl_call *call, size_t n) {
    if (n <= ZL_INLINE_ENTRIES)
        return true;
    call->entries = malloc(n * sizeof *call->entries);
    if (call->entries != NULL)
        return true;
    call->entries = call->inline_entries; /* out of memory: this call goes untraced rather than failing */
    return false;
}

static void zl_snapshot(zl_call *call) {
    pthread_rwlock_rdlock(&zl_lock);
    if (zl_reserve(call, zl_order.count)) {
        for (size_t i = 0; i < zl_order.count; i++) {
            zl_tracer *tracer = zl_order.items[i];
            zl_cb prologue = tracer->prologues[call->api];
            zl_cb epilogue = tracer->epilogues[call->api];
            if (prologue == NULL && epilogue == NULL)
                continue; /* nothing of it can run in this call: destroy need not wait for it */
            /* Ordered by the lock: a destroy sees the count once it could see the tracer disabled. */
            atomic_fetch_add_explicit(&tracer->in_flight, 1, memory_order_relaxed);
            call->entries[call->count++] = (zl_entry){tracer, prologue, epilogue, tracer->user_data, NULL};
        }
    }
    pthread_rwlock_unlock(&zl_lock);
}

void zl_call_begin(zl_call *call, zl_api_id api, void *params) {
    call->api = api;
    call->params = params;
    call->count = 0;
    call->entries = call->inline_entries;
    if (zl_current != NULL)
        return; /* made from a callback on this thread */
    zl_snapshot(call);
    if (call->count == 0)
        return;
    zl_current = call;
    for (unsigned i = 0; i < call->count; i++) {
        zl_entry *entry = &call->entries[i];
        if (entry->prologue != NULL)
            zl_api_run[api](entry->prologue, params, ZE_RESULT_SUCCESS, entry->user_data, &entry->instance);
    }
}

/* Ends the tracer's part in a call. Must not touch the tracer afterwards: a waiting destroy may free it at once. */
static void zl_release(zl_tracer *tracer) {
    unsigned before = atomic_fetch_sub_explicit(&tracer->in_flight, 1, memory_order_acq_rel);
    if (before != (ZL_TRACER_WAITING | 1u))
        return;
    pthread_mutex_lock(&zl_idle_lock);
    pthread_cond_broadcast(&zl_idle);
    pthread_mutex_unlock(&zl_idle_lock);
}

ze_result_t zl_call_end(zl_call *call, ze_result_t result) {
    for (unsigned i = 0; i < call->count; i++) {
        zl_entry *entry = &call->entries[i];
        if (entry->epilogue != NULL)
            zl_api_run[call->api](entry->epilogue, call->params, result, entry->user_data, &entry->instance);
        zl_release(entry->tracer);
    }
    if (zl_current == call)
        zl_current = NULL;
    if (call->entries != call->inline_entries)
        free(call->entries);
    return result;
}

/* True when this thread is inside a traced call that holds `tracer`: waiting for it there would never end. */
static bool zl_current_holds(const zl_tracer *tracer) {
    const zl_call *call = zl_current;
    for (unsigned i = 0; call != NULL && i < call->count; i++) {
        if (call->entries[i].tracer == tracer)
            return true;
    }
    return false;
}

/* ------------------------------------------------------------------------------------------------------------------
 * The tracer API */

static ze_result_t ZE_APICALL zl_tracer_create(const zel_tracer_desc_t *desc, zel_tracer_handle_t *phTracer) {
    if (!atomic_load_explicit(&zl_loaded, memory_order_acquire))
        return ZE_RESULT_ERROR_UNINITIALIZED;
    if (desc == NULL || desc->pUserData == NULL || phTracer == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    zl_tracer *tracer = calloc(1, sizeof *tracer);
    if (tracer == NULL)
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    tracer->user_data = desc->pUserData;
    atomic_init(&tracer->in_flight, 0);
    pthread_rwlock_wrlock(&zl_lock);
    bool added = zl_list_add(&zl_live, tracer);
    if (added)
        tracer->id = ++zl_last_id;
    pthread_rwlock_unlock(&zl_lock);
    if (!added) {
        free(tracer);
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    *phTracer = (zel_tracer_handle_t)tracer->id;
    return ZE_RESULT_SUCCESS;
}

/* Waits until no call holds the tracer any more. */
static void zl_wait_idle(zl_tracer *tracer) {
    pthread_mutex_lock(&zl_idle_lock);
    atomic_fetch_or_explicit(&tracer->in_flight, ZL_TRACER_WAITING, memory_order_acq_rel);
    while ((atomic_load_explicit(&tracer->in_flight, memory_order_acquire) & ~ZL_TRACER_WAITING) != 0)
        pthread_cond_wait(&zl_idle, &zl_idle_lock);
    pthread_mutex_unlock(&zl_idle_lock);
}

static ze_result_t ZE_APICALL zl_tracer_destroy(zel_tracer_handle_t hTracer) {
    zl_tracer *tracer;
    ze_result_t result = zl_lock_tracer(hTracer, &tracer);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    if (tracer->enabled || zl_current_holds(tracer))
        result = ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE; /* in a callback of its own call, waiting would never end */
    else
        zl_list_remove(&zl_live, tracer); /* the handle dies at once; calls in flight still hold the tracer */
    pthread_rwlock_unlock(&zl_lock);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    zl_wait_idle(tracer);
    free(tracer);
    return ZE_RESULT_SUCCESS;
}

/* Callbacks may change only while the tracer is disabled; the stock layer answers ZE_RESULT_ERROR_INVALID_ARGUMENT
 * otherwise, and so does this one. Takes the write lock and the tracer as zl_lock_tracer does. */
static ze_result_t zl_lock_disabled(zel_tracer_handle_t handle, const void *required, zl_tracer **out) {
    ze_result_t result = zl_lock_tracer(handle, out);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    if (required == NULL)
        result = ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    else if ((*out)->enabled)
        result = ZE_RESULT_ERROR_INVALID_ARGUMENT;
    if (result != ZE_RESULT_SUCCESS)
        pthread_rwlock_unlock(&zl_lock);
    return result;
}

static ze_result_t ZE_APICALL zl_tracer_set_prologues(zel_tracer_handle_t hTracer, zel_core_callbacks_t *pCoreCbs) {
    zl_tracer *tracer;
    ze_result_t result = zl_lock_disabled(hTracer, pCoreCbs, &tracer);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    zl_callbacks_from_core(pCoreCbs, tracer->prologues);
    pthread_rwlock_unlock(&zl_lock);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL zl_tracer_set_epilogues(zel_tracer_handle_t hTracer, zel_core_callbacks_t *pCoreCbs) {
    zl_tracer *tracer;
    ze_result_t result = zl_lock_disabled(hTracer, pCoreCbs, &tracer);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    zl_callbacks_from_core(pCoreCbs, tracer->epilogues);
    pthread_rwlock_unlock(&zl_lock);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t zl_enable(zl_tracer *tracer) {
    if (tracer->enabled)
        return ZE_RESULT_SUCCESS;
    if (!zl_list_add(&zl_order, tracer))
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    tracer->enabled = true;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL zl_tracer_set_enabled(zel_tracer_handle_t hTracer, ze_bool_t enable) {
    zl_tracer *tracer;
    ze_result_t result = zl_lock_tracer(hTracer, &tracer);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    if (enable) {
        result = zl_enable(tracer);
    } else if (tracer->enabled) {
        zl_list_remove(&zl_order, tracer);
        tracer->enabled = false;
    }
    atomic_store_explicit(&zl_enabled_tracers, (unsigned)zl_order.count, memory_order_relaxed);
    pthread_rwlock_unlock(&zl_lock);
    return result;
}

/* A NULL callback clears the registration, as in the stock layer. */
ze_result_t zl_tracer_register(zel_tracer_handle_t hTracer, zl_api_id api, zel_tracer_reg_t type, zl_cb callback) {
    zl_tracer *tracer;
    ze_result_t result = zl_lock_tracer(hTracer, &tracer);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    if (type != ZEL_REGISTER_PROLOGUE && type != ZEL_REGISTER_EPILOGUE)
        result = ZE_RESULT_ERROR_INVALID_ENUMERATION;
    else if (tracer->enabled)
        result = ZE_RESULT_ERROR_INVALID_ARGUMENT;
    else if (type == ZEL_REGISTER_PROLOGUE)
        tracer->prologues[api] = callback;
    else
        tracer->epilogues[api] = callback;
    pthread_rwlock_unlock(&zl_lock);
    return result;
}

/* Declared by zel_tracing_register_cb.h, exported by no stock library: tools reach it through this layer. */
ze_result_t ZE_APICALL zelTracerResetAllCallbacks(zel_tracer_handle_t hTracer) {
    zl_tracer *tracer;
    ze_result_t result = zl_lock_tracer(hTracer, &tracer);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    if (tracer->enabled) {
        result = ZE_RESULT_ERROR_INVALID_ARGUMENT;
    } else {
        for (size_t i = 0; i < ZL_API_COUNT; i++) {
            tracer->prologues[i] = NULL;
            tracer->epilogues[i] = NULL;
        }
    }
    pthread_rwlock_unlock(&zl_lock);
    return result;
}

/* ------------------------------------------------------------------------------------------------------------------
 * What the loader looks up besides the core table getters */

ZE_DLLEXPORT ze_result_t ZE_APICALL zelGetTracerApiProcAddrTable(ze_api_version_t version,
                                                                 zel_tracer_dditable_t *pDdiTable) {
    if (pDdiTable == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (ZE_MAJOR_VERSION(version) != 1)
        return ZE_RESULT_ERROR_UNSUPPORTED_VERSION;
    pDdiTable->pfnCreate = zl_tracer_create;
    pDdiTable->pfnDestroy = zl_tracer_destroy;
    pDdiTable->pfnSetPrologues = zl_tracer_set_prologues;
    pDdiTable->pfnSetEpilogues = zl_tracer_set_epilogues;
    pDdiTable->pfnSetEnabled = zl_tracer_set_enabled;
    return ZE_RESULT_SUCCESS;
}

/* The loader lists this in zelLoaderGetVersions, under the same component name as the stock layer. */
ZE_DLLEXPORT ze_result_t ZE_APICALL zelLoaderGetVersion(zel_component_version_t *version);

ZE_DLLEXPORT ze_result_t ZE_APICALL zelLoaderGetVersion(zel_component_version_t *version) {
    if (version == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    snprintf(version->component_name, sizeof version->component_name, "%s", "tracing layer");
    version->spec_version = ZE_API_VERSION_CURRENT;
    version->component_lib_version.major = ZL_VERSION_MAJOR;
    version->component_lib_version.minor = ZL_VERSION_MINOR;
    version->component_lib_version.patch = ZL_VERSION_PATCH;
    return ZE_RESULT_SUCCESS;
}
