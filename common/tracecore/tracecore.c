/* The tracer core (see zf_tracecore.h): snapshots, the enable order, the rules for changing callbacks, and destroy
 * waiting for the calls in flight.
 *
 * Callbacks are copied into the snapshot, so that changing the callbacks of a disabled tracer whose last calls are
 * still in flight neither races with them nor changes the epilogue they run. */
#include "zf_tracecore.h"

#include <stdlib.h>
#include <string.h>

/* Set in a tracer's in-flight count while its destroy waits, so that the last call to leave wakes it. */
#define ZF_TRACECORE_WAITING 0x80000000u

/* The traced call this thread is in, if any: calls from its callbacks are not traced. */
static _Thread_local zf_tracecore_call *zf_tracecore_current;

void zf_tracecore_tracer_init(zf_tracecore_tracer *tracer, void *user_data, void *prologues, void *epilogues) {
    tracer->user_data = user_data;
    tracer->tables[ZF_TRACECORE_PROLOGUES] = prologues;
    tracer->tables[ZF_TRACECORE_EPILOGUES] = epilogues;
    tracer->enabled = false;
    tracer->destroyed = false;
    atomic_init(&tracer->in_flight, 0);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Traced calls */

static bool zf_tracecore_reserve(zf_tracecore *core, zf_tracecore_call *call, size_t n) {
    if (n <= ZF_TRACECORE_INLINE_ENTRIES)
        return true;
    call->entries = malloc(n * sizeof *call->entries);
    if (call->entries != NULL)
        return true;
    call->entries = call->inline_entries; /* out of memory: this call goes untraced rather than failing */
    if (core->ops->untraced != NULL)
        core->ops->untraced();
    return false;
}

static void zf_tracecore_snapshot(zf_tracecore *core, zf_tracecore_call *call) {
    pthread_rwlock_rdlock(&core->lock);
    if (zf_tracecore_reserve(core, call, core->order.count)) {
        for (size_t i = 0; i < core->order.count; i++) {
            zf_tracecore_tracer *tracer = core->order.items[i];
            zf_tracecore_cb prologue = core->ops->pick(tracer->tables[ZF_TRACECORE_PROLOGUES], call->fn);
            zf_tracecore_cb epilogue = core->ops->pick(tracer->tables[ZF_TRACECORE_EPILOGUES], call->fn);
            if (prologue == NULL && epilogue == NULL)
                continue; /* nothing of it can run in this call: destroy need not wait for it */
            /* Ordered by the lock: a destroy sees the count once it could see the tracer disabled. */
            atomic_fetch_add_explicit(&tracer->in_flight, 1, memory_order_relaxed);
            call->entries[call->count++] = (zf_tracecore_entry){tracer, prologue, epilogue, tracer->user_data, NULL};
        }
    }
    pthread_rwlock_unlock(&core->lock);
}

void zf_tracecore_begin(zf_tracecore *core, zf_tracecore_call *call, const void *fn, void *params) {
    call->fn = fn;
    call->params = params;
    call->count = 0;
    call->entries = call->inline_entries;
    if (zf_tracecore_current != NULL)
        return; /* made from a callback on this thread */
    zf_tracecore_snapshot(core, call);
    if (call->count == 0)
        return;
    zf_tracecore_current = call;
    for (unsigned i = 0; i < call->count; i++) {
        zf_tracecore_entry *entry = &call->entries[i];
        if (entry->prologue != NULL)
            core->ops->run(fn, entry->prologue, params, ZE_RESULT_SUCCESS, entry->user_data, &entry->instance);
    }
}

/* Ends the tracer's part in a call. Must not touch the tracer afterwards: a waiting destroy may free it at once. */
static void zf_tracecore_release(zf_tracecore *core, zf_tracecore_tracer *tracer) {
    unsigned before = atomic_fetch_sub_explicit(&tracer->in_flight, 1, memory_order_acq_rel);
    if (before != (ZF_TRACECORE_WAITING | 1u))
        return;
    pthread_mutex_lock(&core->idle_lock);
    pthread_cond_broadcast(&core->idle);
    pthread_mutex_unlock(&core->idle_lock);
}

ze_result_t zf_tracecore_end(zf_tracecore *core, zf_tracecore_call *call, ze_result_t result) {
    for (unsigned i = 0; i < call->count; i++) {
        zf_tracecore_entry *entry = &call->entries[i];
        if (entry->epilogue != NULL)
            core->ops->run(call->fn, entry->epilogue, call->params, result, entry->user_data, &entry->instance);
        zf_tracecore_release(core, entry->tracer);
    }
    if (zf_tracecore_current == call)
        zf_tracecore_current = NULL;
    if (call->entries != call->inline_entries)
        free(call->entries);
    return result;
}

bool zf_tracecore_held_here(const zf_tracecore_tracer *tracer) {
    const zf_tracecore_call *call = zf_tracecore_current;
    for (unsigned i = 0; call != NULL && i < call->count; i++) {
        if (call->entries[i].tracer == tracer)
            return true;
    }
    return false;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Lists and the enable order (callers hold the write lock) */

void zf_tracecore_lock(zf_tracecore *core) {
    pthread_rwlock_wrlock(&core->lock);
}

void zf_tracecore_unlock(zf_tracecore *core) {
    pthread_rwlock_unlock(&core->lock);
}

bool zf_tracecore_list_add(zf_tracecore_list *list, zf_tracecore_tracer *tracer) {
    if (list->count == list->capacity) {
        size_t capacity = list->capacity != 0 ? 2 * list->capacity : 8;
        zf_tracecore_tracer **items = realloc(list->items, capacity * sizeof *items);
        if (items == NULL)
            return false;
        list->items = items;
        list->capacity = capacity;
    }
    list->items[list->count++] = tracer;
    return true;
}

/* Keeps the order of the others (for the enable order, the order their callbacks run in). */
void zf_tracecore_list_remove(zf_tracecore_list *list, const zf_tracecore_tracer *tracer) {
    size_t k = 0;
    for (size_t i = 0; i < list->count; i++) {
        if (list->items[i] != tracer)
            list->items[k++] = list->items[i];
    }
    list->count = k;
}

static ze_result_t zf_tracecore_enable(zf_tracecore *core, zf_tracecore_tracer *tracer) {
    if (tracer->enabled)
        return ZE_RESULT_SUCCESS;
    if (!zf_tracecore_list_add(&core->order, tracer))
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    tracer->enabled = true;
    return ZE_RESULT_SUCCESS;
}

static void zf_tracecore_disable(zf_tracecore *core, zf_tracecore_tracer *tracer) {
    if (!tracer->enabled)
        return;
    zf_tracecore_list_remove(&core->order, tracer);
    tracer->enabled = false;
}

ze_result_t zf_tracecore_set_enabled(zf_tracecore *core, zf_tracecore_tracer *tracer, bool enable) {
    if (tracer->destroyed)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE; /* destroyed by another thread after the face's handle check */
    ze_result_t result = ZE_RESULT_SUCCESS;
    if (enable)
        result = zf_tracecore_enable(core, tracer);
    else
        zf_tracecore_disable(core, tracer);
    atomic_store_explicit(&core->enabled_count, (unsigned)core->order.count, memory_order_relaxed);
    return result;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Callbacks and destroy (callers hold the write lock, but for the wait) */

ze_result_t zf_tracecore_writable(const zf_tracecore_tracer *tracer) {
    return tracer->enabled ? ZE_RESULT_ERROR_INVALID_ARGUMENT : ZE_RESULT_SUCCESS;
}

ze_result_t zf_tracecore_set_table(zf_tracecore *core, zf_tracecore_tracer *tracer, zf_tracecore_phase phase,
                                   const void *table) {
    ze_result_t result = zf_tracecore_writable(tracer);
    if (result == ZE_RESULT_SUCCESS)
        memcpy(tracer->tables[phase], table, core->ops->table_size);
    return result;
}

ze_result_t zf_tracecore_clear(zf_tracecore *core, zf_tracecore_tracer *tracer) {
    ze_result_t result = zf_tracecore_writable(tracer);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    memset(tracer->tables[ZF_TRACECORE_PROLOGUES], 0, core->ops->table_size); /* all-zero is NULL on our targets */
    memset(tracer->tables[ZF_TRACECORE_EPILOGUES], 0, core->ops->table_size);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zf_tracecore_retire(zf_tracecore_tracer *tracer) {
    if (tracer->enabled || zf_tracecore_held_here(tracer))
        return ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE;
    tracer->destroyed = true;
    return ZE_RESULT_SUCCESS;
}

void zf_tracecore_wait_idle(zf_tracecore *core, zf_tracecore_tracer *tracer) {
    pthread_mutex_lock(&core->idle_lock);
    atomic_fetch_or_explicit(&tracer->in_flight, ZF_TRACECORE_WAITING, memory_order_acq_rel);
    while ((atomic_load_explicit(&tracer->in_flight, memory_order_acquire) & ~ZF_TRACECORE_WAITING) != 0)
        pthread_cond_wait(&core->idle, &core->idle_lock);
    pthread_mutex_unlock(&core->idle_lock);
}
