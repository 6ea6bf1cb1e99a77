/* Driver-side API tracing (zetTracerExp*): the hooks the generated entry points of the core functions call, a face
 * over the tracer core (tracecore/zf_tracecore.h, which states the rules: snapshots, pairing, destroy). The driver's
 * callback tables are ze_callbacks_t, the only callback set zetTracerExpSetPrologues/SetEpilogues take. */
#ifndef ZF_TRACER_H
#define ZF_TRACER_H

#include "zf_generated.h"
#include "zf_tracecore.h"

typedef zf_tracecore_cb zf_trace_cb;

/* What the face needs to know about one traced function (generated): the core's `fn` descriptor. */
typedef struct zf_trace_api {
    zf_trace_cb (*pick)(const ze_callbacks_t *table); /* this function's callback in a table, NULL when unset */
    void (*run)(zf_trace_cb cb, void *params, ze_result_t result, void *user_data, void **instance);
} zf_trace_api;

typedef zf_tracecore_call zf_trace_call;

/* The driver's tracers. */
extern zf_tracecore zf_trace_core;

static inline bool zf_trace_active(void) {
    return zf_tracecore_active(&zf_trace_core);
}

/* Takes the snapshot and runs the prologues (with ZE_RESULT_SUCCESS as the current result). */
static inline void zf_trace_begin(zf_trace_call *call, const zf_trace_api *api, void *params) {
    zf_tracecore_begin(&zf_trace_core, call, api, params);
}

/* Runs the epilogues of the tracers whose prologue phase ran, in the same order, with the call's result; returns it. */
static inline ze_result_t zf_trace_end(zf_trace_call *call, ze_result_t result) {
    return zf_tracecore_end(&zf_trace_core, call, result);
}

#endif
