/* zetTracerExp*: the driver's face over the tracer core (see zf_tracer.h). Tracer handles are objects of the driver's
 * registry, checked by the generated entry points before these functions run; this file adds what only the driver
 * has: the registry, ze_callbacks_t tables and diagnostics naming the rule a call broke. */
#include "core/zf_core.h"
#include "driver/zf_driver.h"
#include "tools/zf_tracer.h"

#include <stdlib.h>

typedef struct zf_tracer {
    zf_object header;
    zf_tracecore_tracer core;
    ze_callbacks_t prologues; /* the core's tables */
    ze_callbacks_t epilogues;
} zf_tracer;

static zf_tracecore_cb zf_trace_pick(const void *table, const void *fn) {
    return ((const zf_trace_api *)fn)->pick(table);
}

static void zf_trace_run(const void *fn, zf_tracecore_cb cb, void *params, ze_result_t result, void *user_data,
                         void **instance) {
    ((const zf_trace_api *)fn)->run(cb, params, result, user_data, instance);
}

static void zf_trace_untraced(void) {
    zf_log(ZF_LOG_WARN, "out of host memory for a tracer snapshot: a call is not traced");
}

static const zf_tracecore_ops zf_trace_ops = {sizeof(ze_callbacks_t), zf_trace_pick, zf_trace_run, zf_trace_untraced};

zf_tracecore zf_trace_core = ZF_TRACECORE_INIT(&zf_trace_ops);

static zf_tracer *zf_tracer_from(zet_tracer_exp_handle_t handle) {
    return (zf_tracer *)handle;
}

ze_result_t zfi_zetTracerExpCreate(zet_context_handle_t hContext, const zet_tracer_exp_desc_t *desc,
                                   zet_tracer_exp_handle_t *phTracer) {
    zf_tracer *tracer = calloc(1, sizeof *tracer);
    if (tracer == NULL)
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory for a tracer");
    zf_tracecore_tracer_init(&tracer->core, desc->pUserData, &tracer->prologues, &tracer->epilogues);
    if (!zf_object_register(&tracer->header, ZF_OBJ_ZET_TRACER_EXP, &zf_context_from(hContext)->header)) {
        free(tracer);
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory to register a tracer");
    }
    *phTracer = (zet_tracer_exp_handle_t)tracer;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zetTracerExpDestroy(zet_tracer_exp_handle_t hTracer) {
    zf_tracer *tracer = zf_tracer_from(hTracer);
    if (zf_tracecore_held_here(&tracer->core))
        return zf_fail(ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE,
                       "called from a callback of a call that holds this tracer: waiting for it would never end");
    zf_tracecore_lock(&zf_trace_core);
    ze_result_t result = zf_tracecore_retire(&tracer->core);
    if (result == ZE_RESULT_SUCCESS)
        zf_object_unregister(&tracer->header); /* the handle dies at once; calls in flight still hold the object */
    zf_tracecore_unlock(&zf_trace_core);
    if (result != ZE_RESULT_SUCCESS)
        return zf_fail(result, "the tracer is enabled; disable it first");
    zf_tracecore_wait_idle(&zf_trace_core, &tracer->core);
    zf_object_retire(&tracer->header);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t zf_tracer_set(zet_tracer_exp_handle_t hTracer, const zet_core_callbacks_t *callbacks,
                                 zf_tracecore_phase phase) {
    zf_tracer *tracer = zf_tracer_from(hTracer);
    zf_tracecore_lock(&zf_trace_core);
    ze_result_t result = zf_tracecore_set_table(&zf_trace_core, &tracer->core, phase, callbacks);
    zf_tracecore_unlock(&zf_trace_core);
    if (result != ZE_RESULT_SUCCESS)
        return zf_fail(result, "callbacks can only be set while the tracer is disabled");
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zetTracerExpSetPrologues(zet_tracer_exp_handle_t hTracer, zet_core_callbacks_t *pCoreCbs) {
    return zf_tracer_set(hTracer, pCoreCbs, ZF_TRACECORE_PROLOGUES);
}

ze_result_t zfi_zetTracerExpSetEpilogues(zet_tracer_exp_handle_t hTracer, zet_core_callbacks_t *pCoreCbs) {
    return zf_tracer_set(hTracer, pCoreCbs, ZF_TRACECORE_EPILOGUES);
}

ze_result_t zfi_zetTracerExpSetEnabled(zet_tracer_exp_handle_t hTracer, ze_bool_t enable) {
    zf_tracer *tracer = zf_tracer_from(hTracer);
    zf_tracecore_lock(&zf_trace_core);
    ze_result_t result = zf_tracecore_set_enabled(&zf_trace_core, &tracer->core, enable != 0);
    zf_tracecore_unlock(&zf_trace_core);
    if (result == ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY)
        return zf_fail(result, "no host memory to enable another tracer");
    return result; /* ZE_RESULT_ERROR_INVALID_NULL_HANDLE: destroyed by another thread after the handle check */
}
