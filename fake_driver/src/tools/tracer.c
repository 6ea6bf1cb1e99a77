/* zetTracerExp*: tracers of the core API calls, and the snapshot every traced call takes (see zf_tracer.h).
 *
 * The enabled tracers form a list in enable order under a writer-preferring rwlock: calls read it to take their
 * snapshot, enable/disable/set/destroy write it. Callbacks never run under the lock, so they may call the API,
 * including the tracer functions. Callbacks are copied into the snapshot, so that setting callbacks on a disabled
 * tracer whose last calls are still in flight neither races with them nor changes the epilogue they run. */
#include "core/zf_core.h"
#include "driver/zf_driver.h"
#include "tools/zf_tracer.h"

#include <pthread.h>
#include <stdlib.h>

/* Set in a tracer's in-flight count while its destroy waits, so that the last call to leave wakes it. */
#define ZF_TRACER_WAITING 0x80000000u

typedef struct zf_tracer {
    zf_object header;
    void *user_data;
    ze_callbacks_t prologues; /* written under the write lock, only while disabled */
    ze_callbacks_t epilogues;
    bool enabled;          /* under zf_trace_lock */
    bool destroyed;        /* under zf_trace_lock: a racing enable must not bring it back */
    atomic_uint in_flight; /* calls whose snapshot holds it, plus ZF_TRACER_WAITING */
} zf_tracer;

atomic_uint zf_trace_enabled_tracers;

static pthread_rwlock_t zf_trace_lock = PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP;
static zf_tracer **zf_trace_order; /* the enabled tracers, in enable order */
static size_t zf_trace_order_count;
static size_t zf_trace_order_capacity;

/* Destroy waits here for the last call holding its tracer. Global (not per tracer) so that the call that wakes the
 * waiter never touches the tracer after releasing it. */
static pthread_mutex_t zf_trace_idle_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t zf_trace_idle = PTHREAD_COND_INITIALIZER;

/* The traced call this thread is in, if any: calls from its callbacks are not traced. */
static _Thread_local zf_trace_call *zf_trace_current;

static zf_tracer *zf_tracer_from(zet_tracer_exp_handle_t handle) {
    return (zf_tracer *)handle;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Traced calls */

static bool zf_trace_reserve(zf_trace_call *call, size_t n) {
    if (n <= ZF_TRACE_INLINE_ENTRIES)
        return true;
    call->entries = malloc(n * sizeof *call->entries);
    if (call->entries != NULL)
        return true;
    call->entries = call->inline_entries;
    zf_log(ZF_LOG_WARN, "out of host memory for a tracer snapshot: a call is not traced");
    return false;
}

static void zf_trace_snapshot(zf_trace_call *call) {
    pthread_rwlock_rdlock(&zf_trace_lock);
    if (zf_trace_reserve(call, zf_trace_order_count)) {
        for (size_t i = 0; i < zf_trace_order_count; i++) {
            zf_tracer *tracer = zf_trace_order[i];
            zf_trace_cb prologue = call->api->pick(&tracer->prologues);
            zf_trace_cb epilogue = call->api->pick(&tracer->epilogues);
            if (prologue == NULL && epilogue == NULL)
                continue; /* nothing of it can run in this call: destroy need not wait for it */
            /* Ordered by the lock: a destroy sees the count once it could see the tracer disabled. */
            atomic_fetch_add_explicit(&tracer->in_flight, 1, memory_order_relaxed);
            call->entries[call->count++] = (zf_trace_entry){tracer, prologue, epilogue, tracer->user_data, NULL};
        }
    }
    pthread_rwlock_unlock(&zf_trace_lock);
}

void zf_trace_begin(zf_trace_call *call, const zf_trace_api *api, void *params) {
    call->api = api;
    call->params = params;
    call->count = 0;
    call->entries = call->inline_entries;
    if (zf_trace_current != NULL)
        return; /* made from a callback on this thread */
    zf_trace_snapshot(call);
    if (call->count == 0)
        return;
    zf_trace_current = call;
    for (unsigned i = 0; i < call->count; i++) {
        zf_trace_entry *entry = &call->entries[i];
        if (entry->prologue != NULL)
            api->run(entry->prologue, params, ZE_RESULT_SUCCESS, entry->user_data, &entry->instance);
    }
}

/* Ends the tracer's part in a call. Must not touch the tracer afterwards: a waiting destroy may free it at once. */
static void zf_tracer_release(zf_tracer *tracer) {
    unsigned before = atomic_fetch_sub_explicit(&tracer->in_flight, 1, memory_order_acq_rel);
    if (before != (ZF_TRACER_WAITING | 1u))
        return;
    pthread_mutex_lock(&zf_trace_idle_lock);
    pthread_cond_broadcast(&zf_trace_idle);
    pthread_mutex_unlock(&zf_trace_idle_lock);
}

ze_result_t zf_trace_end(zf_trace_call *call, ze_result_t result) {
    for (unsigned i = 0; i < call->count; i++) {
        zf_trace_entry *entry = &call->entries[i];
        if (entry->epilogue != NULL)
            call->api->run(entry->epilogue, call->params, result, entry->user_data, &entry->instance);
        zf_tracer_release(entry->tracer);
    }
    if (zf_trace_current == call)
        zf_trace_current = NULL;
    if (call->entries != call->inline_entries)
        free(call->entries);
    return result;
}

/* True when this thread is inside a traced call that holds `tracer`: waiting for it there would never end. */
static bool zf_trace_current_holds(const zf_tracer *tracer) {
    const zf_trace_call *call = zf_trace_current;
    for (unsigned i = 0; call != NULL && i < call->count; i++) {
        if (call->entries[i].tracer == tracer)
            return true;
    }
    return false;
}

/* ------------------------------------------------------------------------------------------------------------------
 * The enabled list (callers hold the write lock) */

static ze_result_t zf_trace_order_add(zf_tracer *tracer) {
    if (tracer->enabled)
        return ZE_RESULT_SUCCESS;
    if (zf_trace_order_count == zf_trace_order_capacity) {
        size_t capacity = zf_trace_order_capacity != 0 ? 2 * zf_trace_order_capacity : 8;
        zf_tracer **order = realloc(zf_trace_order, capacity * sizeof *order);
        if (order == NULL)
            return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory to enable another tracer");
        zf_trace_order = order;
        zf_trace_order_capacity = capacity;
    }
    zf_trace_order[zf_trace_order_count++] = tracer;
    tracer->enabled = true;
    atomic_store_explicit(&zf_trace_enabled_tracers, (unsigned)zf_trace_order_count, memory_order_relaxed);
    return ZE_RESULT_SUCCESS;
}

static void zf_trace_order_remove(zf_tracer *tracer) {
    if (!tracer->enabled)
        return;
    size_t k = 0;
    for (size_t i = 0; i < zf_trace_order_count; i++) {
        if (zf_trace_order[i] != tracer)
            zf_trace_order[k++] = zf_trace_order[i]; /* keeps the enable order of the others */
    }
    zf_trace_order_count = k;
    tracer->enabled = false;
    atomic_store_explicit(&zf_trace_enabled_tracers, (unsigned)zf_trace_order_count, memory_order_relaxed);
}

/* ------------------------------------------------------------------------------------------------------------------
 * The API */

ze_result_t zfi_zetTracerExpCreate(zet_context_handle_t hContext, const zet_tracer_exp_desc_t *desc,
                                   zet_tracer_exp_handle_t *phTracer) {
    zf_tracer *tracer = calloc(1, sizeof *tracer);
    if (tracer == NULL)
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory for a tracer");
    tracer->user_data = desc->pUserData;
    atomic_init(&tracer->in_flight, 0);
    if (!zf_object_register(&tracer->header, ZF_OBJ_ZET_TRACER_EXP, &zf_context_from(hContext)->header)) {
        free(tracer);
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory to register a tracer");
    }
    *phTracer = (zet_tracer_exp_handle_t)tracer;
    return ZE_RESULT_SUCCESS;
}

/* Waits until no call holds the tracer any more. */
static void zf_tracer_wait_idle(zf_tracer *tracer) {
    pthread_mutex_lock(&zf_trace_idle_lock);
    atomic_fetch_or_explicit(&tracer->in_flight, ZF_TRACER_WAITING, memory_order_acq_rel);
    while ((atomic_load_explicit(&tracer->in_flight, memory_order_acquire) & ~ZF_TRACER_WAITING) != 0)
        pthread_cond_wait(&zf_trace_idle, &zf_trace_idle_lock);
    pthread_mutex_unlock(&zf_trace_idle_lock);
}

ze_result_t zfi_zetTracerExpDestroy(zet_tracer_exp_handle_t hTracer) {
    zf_tracer *tracer = zf_tracer_from(hTracer);
    if (zf_trace_current_holds(tracer))
        return zf_fail(ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE,
                       "called from a callback of a call that holds this tracer: waiting for it would never end");
    pthread_rwlock_wrlock(&zf_trace_lock);
    if (tracer->enabled) {
        pthread_rwlock_unlock(&zf_trace_lock);
        return zf_fail(ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE, "the tracer is enabled; disable it first");
    }
    tracer->destroyed = true;
    zf_object_unregister(&tracer->header); /* the handle dies at once; calls in flight still hold the object */
    pthread_rwlock_unlock(&zf_trace_lock);
    zf_tracer_wait_idle(tracer);
    zf_object_retire(&tracer->header);
    return ZE_RESULT_SUCCESS;
}

/* The seed and the loader's layer allow callbacks to be set only while the tracer is disabled; the header names no
 * code for it, so the one Intel's driver and the loader's layer answer is used. */
static ze_result_t zf_tracer_set(zet_tracer_exp_handle_t hTracer, const zet_core_callbacks_t *callbacks,
                                 bool prologues) {
    zf_tracer *tracer = zf_tracer_from(hTracer);
    pthread_rwlock_wrlock(&zf_trace_lock);
    bool enabled = tracer->enabled;
    if (!enabled) {
        if (prologues)
            tracer->prologues = *callbacks;
        else
            tracer->epilogues = *callbacks;
    }
    pthread_rwlock_unlock(&zf_trace_lock);
    if (enabled)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "callbacks can only be set while the tracer is disabled");
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zetTracerExpSetPrologues(zet_tracer_exp_handle_t hTracer, zet_core_callbacks_t *pCoreCbs) {
    return zf_tracer_set(hTracer, pCoreCbs, true);
}

ze_result_t zfi_zetTracerExpSetEpilogues(zet_tracer_exp_handle_t hTracer, zet_core_callbacks_t *pCoreCbs) {
    return zf_tracer_set(hTracer, pCoreCbs, false);
}

ze_result_t zfi_zetTracerExpSetEnabled(zet_tracer_exp_handle_t hTracer, ze_bool_t enable) {
    zf_tracer *tracer = zf_tracer_from(hTracer);
    ze_result_t result = ZE_RESULT_SUCCESS;
    pthread_rwlock_wrlock(&zf_trace_lock);
    if (tracer->destroyed)
        result = ZE_RESULT_ERROR_INVALID_NULL_HANDLE; /* destroyed by another thread after the handle check */
    else if (enable)
        result = zf_trace_order_add(tracer);
    else
        zf_trace_order_remove(tracer);
    pthread_rwlock_unlock(&zf_trace_lock);
    return result;
}
