/* Driver-side API tracing (zetTracerExp*): the hooks the generated entry points of the core functions call.
 *
 * A traced call takes one snapshot of the enabled tracers (in enable order) and keeps it to the end: the prologues of
 * the tracers in it run before the call, their epilogues after it, so an epilogue runs exactly when its prologue
 * phase ran, whatever other threads enable or disable meanwhile. Each tracer of the snapshot is counted "in flight"
 * until its epilogue has returned, which is what zetTracerExpDestroy waits for. Calls made from a callback, on the
 * callback's thread, are not traced. */
#ifndef ZF_TRACER_H
#define ZF_TRACER_H

#include "zf_generated.h"

#include <stdatomic.h>
#include <stdbool.h>

/* A callback of any type. Converting a function pointer to another function pointer type and back is defined C;
 * calling it through the wrong type is not, so each traced function has a typed `run` helper. */
typedef void (*zf_trace_cb)(void);

/* What the generic code needs to know about one traced function (generated). */
typedef struct zf_trace_api {
    zf_trace_cb (*pick)(const ze_callbacks_t *table); /* this function's callback in a table, NULL when unset */
    void (*run)(zf_trace_cb cb, void *params, ze_result_t result, void *user_data, void **instance);
} zf_trace_api;

struct zf_tracer;

/* One tracer's part in one call: the callbacks in force when the call began and the call's instance slot. */
typedef struct zf_trace_entry {
    struct zf_tracer *tracer;
    zf_trace_cb prologue;
    zf_trace_cb epilogue;
    void *user_data;
    void *instance;
} zf_trace_entry;

/* Snapshots up to this size live on the caller's stack; larger ones are allocated. */
#define ZF_TRACE_INLINE_ENTRIES 4

typedef struct zf_trace_call {
    const zf_trace_api *api;
    void *params;
    unsigned count;
    zf_trace_entry *entries;
    zf_trace_entry inline_entries[ZF_TRACE_INLINE_ENTRIES];
} zf_trace_call;

/* Number of enabled tracers; read without ordering on every traced call, so an idle tracer system costs one load. */
extern atomic_uint zf_trace_enabled_tracers;

static inline bool zf_trace_active(void) {
    return atomic_load_explicit(&zf_trace_enabled_tracers, memory_order_relaxed) != 0;
}

/* Takes the snapshot and runs the prologues (with ZE_RESULT_SUCCESS as the current result). */
void zf_trace_begin(zf_trace_call *call, const zf_trace_api *api, void *params);

/* Runs the epilogues of the tracers whose prologue phase ran, in the same order, with the call's result; returns it. */
ze_result_t zf_trace_end(zf_trace_call *call, ze_result_t result);

#endif
