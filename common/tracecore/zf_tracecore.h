/* The tracer core shared by the driver's zetTracerExp* tracers and the tracing layer's zelTracer* tracers: the rules
 * of docs/tracing.md written once, parametrised by the face that uses it (how a callback is found in a callback
 * table and how it is called). It knows no handles and no diagnostics: each face checks its handles, finds its tracer
 * and explains the result codes this core returns.
 *
 * A traced call takes one snapshot of the enabled tracers (in enable order) and keeps it to the end: the prologues of
 * the tracers in it run before the call, their epilogues after it, so an epilogue runs exactly when its prologue
 * phase ran, whatever other threads enable or disable meanwhile. Each tracer of the snapshot is counted "in flight"
 * until its epilogue has returned, which is what a destroy waits for. Calls made from a callback, on the callback's
 * thread, are not traced (by any core of the same library: the driver and the layer each link their own copy). */
#ifndef ZF_TRACECORE_H
#define ZF_TRACECORE_H

#include <level_zero/ze_api.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

/* A callback of any type. Converting a function pointer to another function pointer type and back is defined C;
 * calling it through the wrong type is not, so the face calls it back with its real type (`run`). */
typedef void (*zf_tracecore_cb)(void);

/* What the core asks of its face. `fn` is the face's descriptor of one traced function, opaque to the core. */
typedef struct zf_tracecore_ops {
    size_t table_size; /* bytes of one callback table: a tracer has one for prologues, one for epilogues */
    zf_tracecore_cb (*pick)(const void *table, const void *fn); /* fn's callback in a table, NULL when unset */
    void (*run)(const void *fn, zf_tracecore_cb cb, void *params, ze_result_t result, void *user_data, void **instance);
    void (*untraced)(void); /* told that a call goes untraced for want of host memory; may be NULL */
} zf_tracecore_ops;

typedef enum zf_tracecore_phase { ZF_TRACECORE_PROLOGUES, ZF_TRACECORE_EPILOGUES } zf_tracecore_phase;

/* The core's part of a tracer, embedded in the face's tracer. */
typedef struct zf_tracecore_tracer {
    void *user_data;
    void *tables[2];       /* by phase: the face's storage, written only under the write lock while disabled */
    bool enabled;          /* under the write lock */
    bool destroyed;        /* under the write lock: a racing enable must not bring it back */
    atomic_uint in_flight; /* calls whose snapshot holds it, plus a flag while its destroy waits */
} zf_tracecore_tracer;

/* A growable array of tracers (callers hold the write lock). */
typedef struct zf_tracecore_list {
    zf_tracecore_tracer **items;
    size_t count;
    size_t capacity;
} zf_tracecore_list;

/* One tracer's part in one call: the callbacks in force when the call began and the call's instance slot. */
typedef struct zf_tracecore_entry {
    zf_tracecore_tracer *tracer;
    zf_tracecore_cb prologue;
    zf_tracecore_cb epilogue;
    void *user_data;
    void *instance;
} zf_tracecore_entry;

/* Snapshots up to this size live on the caller's stack; larger ones are allocated. */
#define ZF_TRACECORE_INLINE_ENTRIES 4

typedef struct zf_tracecore_call {
    const void *fn;
    void *params;
    unsigned count;
    zf_tracecore_entry *entries;
    zf_tracecore_entry inline_entries[ZF_TRACECORE_INLINE_ENTRIES];
} zf_tracecore_call;

/* The tracers of one face. The enabled ones form a list in enable order under a writer-preferring rwlock: calls read
 * it to take their snapshot, the tracer functions write it. Callbacks never run under the lock, so they may call the
 * API, including the tracer functions. */
typedef struct zf_tracecore {
    const zf_tracecore_ops *ops;
    atomic_uint enabled_count; /* read without ordering on every call: an idle core costs one load per call */
    pthread_rwlock_t lock;
    zf_tracecore_list order; /* the enabled tracers, in enable order */
    /* Destroy waits here for the last call holding its tracer. Per core (not per tracer) so that the call that wakes
     * the waiter never touches the tracer after releasing it. */
    pthread_mutex_t idle_lock;
    pthread_cond_t idle;
} zf_tracecore;

#define ZF_TRACECORE_INIT(ops_)                                                                                        \
    {                                                                                                                  \
        .ops = (ops_), .lock = PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP,                                      \
        .idle_lock = PTHREAD_MUTEX_INITIALIZER, .idle = PTHREAD_COND_INITIALIZER                                       \
    }

static inline bool zf_tracecore_active(zf_tracecore *core) {
    return atomic_load_explicit(&core->enabled_count, memory_order_relaxed) != 0;
}

/* A new tracer: disabled, keeping `user_data`, with the face's two zeroed tables (ops->table_size bytes each). */
void zf_tracecore_tracer_init(zf_tracecore_tracer *tracer, void *user_data, void *prologues, void *epilogues);

/* Takes the snapshot and runs the prologues (with ZE_RESULT_SUCCESS as the current result). */
void zf_tracecore_begin(zf_tracecore *core, zf_tracecore_call *call, const void *fn, void *params);

/* Runs the epilogues of the tracers whose prologue phase ran, in the same order, with the call's result; returns it. */
ze_result_t zf_tracecore_end(zf_tracecore *core, zf_tracecore_call *call, ze_result_t result);

/* True when this thread is inside a traced call that holds `tracer`: waiting for it there would never end. */
bool zf_tracecore_held_here(const zf_tracecore_tracer *tracer);

/* The write lock, held around every change below. */
void zf_tracecore_lock(zf_tracecore *core);
void zf_tracecore_unlock(zf_tracecore *core);

bool zf_tracecore_list_add(zf_tracecore_list *list, zf_tracecore_tracer *tracer);
void zf_tracecore_list_remove(zf_tracecore_list *list, const zf_tracecore_tracer *tracer);

/* Under the write lock. Enabling appends to the enable order (ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY when the list cannot
 * grow); a destroyed tracer gives ZE_RESULT_ERROR_INVALID_NULL_HANDLE. Neither fails otherwise, calls in flight or
 * not. */
ze_result_t zf_tracecore_set_enabled(zf_tracecore *core, zf_tracecore_tracer *tracer, bool enable);

/* Under the write lock. Callbacks may change only while the tracer is disabled: ZE_RESULT_ERROR_INVALID_ARGUMENT
 * otherwise (the code Intel's driver and the loader's layer answer; the headers name none). A face that writes its
 * tables itself asks this first. */
ze_result_t zf_tracecore_writable(const zf_tracecore_tracer *tracer);

/* Under the write lock: copies a whole table (ops->table_size bytes) over the phase's table, if writable. */
ze_result_t zf_tracecore_set_table(zf_tracecore *core, zf_tracecore_tracer *tracer, zf_tracecore_phase phase,
                                   const void *table);

/* Under the write lock: clears both tables, if writable. */
ze_result_t zf_tracecore_clear(zf_tracecore *core, zf_tracecore_tracer *tracer);

/* Under the write lock: the first half of a destroy. An enabled tracer, or one a call of this thread holds, gives
 * ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE; otherwise the tracer is marked destroyed and the face lets its handle die
 * before unlocking. Calls in flight still hold it: after unlocking, zf_tracecore_wait_idle, then free it. */
ze_result_t zf_tracecore_retire(zf_tracecore_tracer *tracer);

/* Without the lock: waits until no call holds a retired tracer any more. */
void zf_tracecore_wait_idle(zf_tracecore *core, zf_tracecore_tracer *tracer);

#endif
