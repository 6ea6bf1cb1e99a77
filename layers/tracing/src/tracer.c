/* Tracers of the tracing layer: its face over the tracer core (see zl_tracer.h).
 *
 * Handles are numbers handed out once and never reused, looked up in the list of live tracers under the core's write
 * lock: a NULL, destroyed or made-up handle is answered with ZE_RESULT_ERROR_INVALID_NULL_HANDLE, never dereferenced.
 * Arguments are checked in the header's order: the handle first, then the other arguments, then the core's rules. */
#include "zl_tracer.h"

#include <layers/zel_tracing_ddi.h>
#include <loader/ze_loader.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct zl_tracer {
    zf_tracecore_tracer core;      /* first: the live list holds the core's part */
    uintptr_t id;                  /* the handle's value */
    zl_cb prologues[ZL_API_COUNT]; /* the core's tables */
    zl_cb epilogues[ZL_API_COUNT];
} zl_tracer;

static zf_tracecore_cb zl_pick(const void *table, const void *fn) {
    return ((const zl_cb *)table)[((const zl_api *)fn)->id];
}

static void zl_run(const void *fn, zf_tracecore_cb cb, void *params, ze_result_t result, void *user_data,
                   void **instance) {
    ((const zl_api *)fn)->run(cb, params, result, user_data, instance);
}

/* Out of memory for a snapshot: the call goes untraced, silently (a layer has no log of its own). */
static const zf_tracecore_ops zl_ops = {sizeof(zl_cb[ZL_API_COUNT]), zl_pick, zl_run, NULL};

zf_tracecore zl_core = ZF_TRACECORE_INIT(&zl_ops);

static zf_tracecore_list zl_live; /* every tracer not destroyed, under the core's write lock */
static uintptr_t zl_last_id;
static atomic_bool zl_loaded;

void zl_layer_loaded(void) {
    atomic_store_explicit(&zl_loaded, true, memory_order_release);
}

static zl_tracer *zl_find(zel_tracer_handle_t handle) {
    for (size_t i = 0; i < zl_live.count; i++) {
        zl_tracer *tracer = (zl_tracer *)zl_live.items[i];
        if (tracer->id == (uintptr_t)handle)
            return tracer;
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
    zf_tracecore_lock(&zl_core);
    *out = zl_find(handle);
    if (*out != NULL)
        return ZE_RESULT_SUCCESS;
    zf_tracecore_unlock(&zl_core);
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
}

/* ------------------------------------------------------------------------------------------------------------------
 * The tracer API */

/* The strict profile of the driver (ZEFAKE_STRICT=1, docs/tolerances.md), read by the layer itself: the layer has
 * no scenario and no log of its own. */
static bool zl_strict(void) {
    const char *value = getenv("ZEFAKE_STRICT");
    return value != NULL && strcmp(value, "1") == 0;
}

/* The loader's tracing layer accepts a NULL pUserData (the callbacks receive NULL): the default profile does the
 * same, with one warning on stderr unless ZEFAKE_LOG silences warnings (docs/tolerances.md). */
static bool zl_null_user_data_tolerated(void) {
    if (zl_strict())
        return false;
    static atomic_bool warned;
    const char *log = getenv("ZEFAKE_LOG");
    bool quiet = log != NULL && (strcasecmp(log, "none") == 0 || strcasecmp(log, "error") == 0);
    if (!quiet && !atomic_exchange(&warned, true))
        fprintf(stderr,
                "zefake: warn: zelTracerCreate: the application breaks the rule 'desc->pUserData is not nullptr'; "
                "accepted it, the callbacks receiving NULL, as Intel's loader does "
                "(ZEFAKE_STRICT=1: the specification's result; docs/tolerances.md)\n");
    return true;
}

static ze_result_t ZE_APICALL zl_tracer_create(const zel_tracer_desc_t *desc, zel_tracer_handle_t *phTracer) {
    if (!atomic_load_explicit(&zl_loaded, memory_order_acquire))
        return ZE_RESULT_ERROR_UNINITIALIZED;
    if (desc == NULL || phTracer == NULL || (desc->pUserData == NULL && !zl_null_user_data_tolerated()))
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    zl_tracer *tracer = calloc(1, sizeof *tracer);
    if (tracer == NULL)
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    zf_tracecore_tracer_init(&tracer->core, desc->pUserData, tracer->prologues, tracer->epilogues);
    zf_tracecore_lock(&zl_core);
    bool added = zf_tracecore_list_add(&zl_live, &tracer->core);
    if (added)
        tracer->id = ++zl_last_id;
    zf_tracecore_unlock(&zl_core);
    if (!added) {
        free(tracer);
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    *phTracer = (zel_tracer_handle_t)tracer->id;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL zl_tracer_destroy(zel_tracer_handle_t hTracer) {
    zl_tracer *tracer;
    ze_result_t result = zl_lock_tracer(hTracer, &tracer);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    result = zf_tracecore_retire(&tracer->core);
    if (result == ZE_RESULT_SUCCESS)
        zf_tracecore_list_remove(&zl_live, &tracer->core); /* the handle dies at once; calls in flight hold it */
    zf_tracecore_unlock(&zl_core);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    zf_tracecore_wait_idle(&zl_core, &tracer->core);
    free(tracer);
    return ZE_RESULT_SUCCESS;
}

/* Replaces the callbacks of the 1.0 set (zelTracerSetPrologues/SetEpilogues); those of newer functions stay. */
static ze_result_t zl_tracer_set(zel_tracer_handle_t hTracer, const zel_core_callbacks_t *callbacks,
                                 zf_tracecore_phase phase) {
    zl_tracer *tracer;
    ze_result_t result = zl_lock_tracer(hTracer, &tracer);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    if (callbacks == NULL)
        result = ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    else
        result = zf_tracecore_writable(&tracer->core);
    if (result == ZE_RESULT_SUCCESS)
        zl_callbacks_from_core(callbacks, tracer->core.tables[phase]);
    zf_tracecore_unlock(&zl_core);
    return result;
}

static ze_result_t ZE_APICALL zl_tracer_set_prologues(zel_tracer_handle_t hTracer, zel_core_callbacks_t *pCoreCbs) {
    return zl_tracer_set(hTracer, pCoreCbs, ZF_TRACECORE_PROLOGUES);
}

static ze_result_t ZE_APICALL zl_tracer_set_epilogues(zel_tracer_handle_t hTracer, zel_core_callbacks_t *pCoreCbs) {
    return zl_tracer_set(hTracer, pCoreCbs, ZF_TRACECORE_EPILOGUES);
}

static ze_result_t ZE_APICALL zl_tracer_set_enabled(zel_tracer_handle_t hTracer, ze_bool_t enable) {
    zl_tracer *tracer;
    ze_result_t result = zl_lock_tracer(hTracer, &tracer);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    result = zf_tracecore_set_enabled(&zl_core, &tracer->core, enable != 0);
    zf_tracecore_unlock(&zl_core);
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
    else
        result = zf_tracecore_writable(&tracer->core);
    if (result == ZE_RESULT_SUCCESS && type == ZEL_REGISTER_PROLOGUE)
        tracer->prologues[api] = callback;
    else if (result == ZE_RESULT_SUCCESS)
        tracer->epilogues[api] = callback;
    zf_tracecore_unlock(&zl_core);
    return result;
}

/* Declared by zel_tracing_register_cb.h, exported by no stock library: tools reach it through this layer. */
ze_result_t ZE_APICALL zelTracerResetAllCallbacks(zel_tracer_handle_t hTracer) {
    zl_tracer *tracer;
    ze_result_t result = zl_lock_tracer(hTracer, &tracer);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    result = zf_tracecore_clear(&zl_core, &tracer->core);
    zf_tracecore_unlock(&zl_core);
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
