/* The tracing layer's tracers and the hooks its generated wrappers call.
 *
 * A traced call takes one snapshot of the enabled tracers (in enable order) and keeps it to the end: the prologues of
 * the tracers in it run before the call, their epilogues after it, so an epilogue runs exactly when its prologue
 * phase ran, whatever other threads enable or disable meanwhile. Each tracer of the snapshot is counted "in flight"
 * until its epilogue has returned, which is what zelTracerDestroy waits for. Calls made from a callback, on the
 * callback's thread, are not traced. */
#ifndef ZL_TRACER_H
#define ZL_TRACER_H

#include "zl_generated.h"

#include <layers/zel_tracing_register_cb.h>
#include <stdatomic.h>
#include <stdbool.h>

struct zl_tracer;

/* One tracer's part in one call: the callbacks in force when the call began and the call's instance slot. */
typedef struct zl_entry {
    struct zl_tracer *tracer;
    zl_cb prologue;
    zl_cb epilogue;
    void *user_data;
    void *instance;
} zl_entry;

/* Snapshots up to this size live on the caller's stack; larger ones are allocated. */
#define ZL_INLINE_ENTRIES 4

typedef struct zl_call {
    zl_api_id api;
    void *params;
    unsigned count;
    zl_entry *entries;
    zl_entry inline_entries[ZL_INLINE_ENTRIES];
} zl_call;

/* Number of enabled tracers; read without ordering on every call, so an idle layer costs one load per call. */
extern atomic_uint zl_enabled_tracers;

static inline bool zl_tracing_active(void) {
    return atomic_load_explicit(&zl_enabled_tracers, memory_order_relaxed) != 0;
}

/* Takes the snapshot and runs the prologues (with ZE_RESULT_SUCCESS as the current result). */
void zl_call_begin(zl_call *call, zl_api_id api, void *params);

/* Runs the epilogues of the tracers whose prologue phase ran, in the same order, with the call's result; returns it. */
ze_result_t zl_call_end(zl_call *call, ze_result_t result);

/* zelTracer<Name>RegisterCallback for the function `api`. */
ze_result_t zl_tracer_register(zel_tracer_handle_t hTracer, zl_api_id api, zel_tracer_reg_t type, zl_cb callback);

/* Called by the table getters: the loader has loaded the layer, so tracers may be created. */
void zl_layer_loaded(void);

#endif
