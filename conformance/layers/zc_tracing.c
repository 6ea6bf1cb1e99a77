/* The target's environment and one interface over its tracer functions (zc_tracing.h). */
#include "zc_tracing.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ------------------------------------------------------------------------------------------------------------------
 * The target's environment */

#if ZC_TRACING_TARGET == ZC_TRACING_OURS
static bool zc_prepend_library_path(const char *dir) {
    const char *old = getenv("LD_LIBRARY_PATH");
    char value[8192];
    int n = snprintf(value, sizeof value, "%s%s%s", dir, old != NULL && *old != '\0' ? ":" : "", old ? old : "");
    return n > 0 && (size_t)n < sizeof value && setenv("LD_LIBRARY_PATH", value, 1) == 0;
}
#endif

/* Sets the target's variables and re-executes this program: the loader reads them when it starts, the dynamic linker
 * reads LD_LIBRARY_PATH only when a process starts. */
int zc_tracing_reexec(char **argv) {
    setenv(ZC_READY_VARIABLE, "1", 1);
#if ZC_TRACING_TARGET == ZC_TRACING_DRIVER
    setenv("ZET_ENABLE_API_TRACING_EXP", "1", 1); /* Intel's driver traces only when asked; the fake always does */
#if ZC_TRACING_INTERCEPT
    setenv("ZE_ENABLE_LOADER_INTERCEPT", "1", 1);
#endif
#else
    setenv("ZE_ENABLE_TRACING_LAYER", "1", 1);
#endif
#if ZC_TRACING_TARGET == ZC_TRACING_OURS
    if (!zc_prepend_library_path(ZC_OUR_LAYER_DIR)) {
        fprintf(stderr, "%s: cannot set LD_LIBRARY_PATH\n", ZC_EXECUTABLE);
        return 2;
    }
#endif
    execv("/proc/self/exe", argv);
    fprintf(stderr, "%s: cannot re-execute itself: %s\n", ZC_EXECUTABLE, strerror(errno));
    return 2;
}

/* ------------------------------------------------------------------------------------------------------------------
 * One interface over zetTracerExp* and zelTracer* */

static ze_context_handle_t zc_context; /* the driver's tracers belong to a context */

ze_result_t zc_tr_create_desc(void *user_data, void **tracer, bool null_desc) {
#if ZC_TRACING_TARGET == ZC_TRACING_DRIVER
    zet_tracer_exp_desc_t desc = {ZET_STRUCTURE_TYPE_TRACER_EXP_DESC, NULL, user_data};
    zet_tracer_exp_handle_t handle = NULL;
    ze_result_t result = zetTracerExpCreate(zc_context, null_desc ? NULL : &desc, tracer != NULL ? &handle : NULL);
#else
    zel_tracer_desc_t desc = {ZEL_STRUCTURE_TYPE_TRACER_DESC, NULL, user_data};
    zel_tracer_handle_t handle = NULL;
    ze_result_t result = zelTracerCreate(null_desc ? NULL : &desc, tracer != NULL ? &handle : NULL);
#endif
    if (tracer != NULL)
        *tracer = (void *)handle;
    return result;
}

ze_result_t zc_tr_create(void *user_data, void **tracer) {
    return zc_tr_create_desc(user_data, tracer, false);
}

ze_result_t zc_tr_destroy(void *tracer) {
#if ZC_TRACING_TARGET == ZC_TRACING_DRIVER
    return zetTracerExpDestroy((zet_tracer_exp_handle_t)tracer);
#else
    return zelTracerDestroy((zel_tracer_handle_t)tracer);
#endif
}

ze_result_t zc_tr_set(void *tracer, bool prologues, ze_callbacks_t *callbacks) {
#if ZC_TRACING_TARGET == ZC_TRACING_DRIVER
    zet_tracer_exp_handle_t handle = (zet_tracer_exp_handle_t)tracer;
    return prologues ? zetTracerExpSetPrologues(handle, callbacks) : zetTracerExpSetEpilogues(handle, callbacks);
#else
    zel_tracer_handle_t handle = (zel_tracer_handle_t)tracer;
    return prologues ? zelTracerSetPrologues(handle, callbacks) : zelTracerSetEpilogues(handle, callbacks);
#endif
}

ze_result_t zc_tr_enable(void *tracer, bool enable) {
#if ZC_TRACING_TARGET == ZC_TRACING_DRIVER
    return zetTracerExpSetEnabled((zet_tracer_exp_handle_t)tracer, enable);
#else
    return zelTracerSetEnabled((zel_tracer_handle_t)tracer, enable);
#endif
}

/* A tracer with these prologues and epilogues (asserts success). */
void *zc_tracer_with(void *user_data, ze_callbacks_t *prologues, ze_callbacks_t *epilogues) {
    void *tracer = NULL;
    zc_assert_success(zc_tr_create(user_data, &tracer));
    assert_non_null(tracer);
    zc_assert_success(zc_tr_set(tracer, true, prologues));
    zc_assert_success(zc_tr_set(tracer, false, epilogues));
    return tracer;
}

void zc_tracer_finish(void *tracer) {
    zc_assert_success(zc_tr_enable(tracer, false));
    zc_assert_success(zc_tr_destroy(tracer));
}

int zc_setup_tracing(void **state) {
    if (zc_setup_system(state) != 0)
        return -1;
    ze_context_desc_t desc = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0};
    return zeContextCreate(zc_sys()->driver, &desc, &zc_context) == ZE_RESULT_SUCCESS ? 0 : -1;
}

int zc_teardown_tracing(void **state) {
    if (zc_context != NULL)
        zeContextDestroy(zc_context);
    return zc_teardown_system(state);
}

ze_device_handle_t zc_device(void) {
    return zc_sys()->roots[0];
}

void zc_get_properties(void) {
    ze_device_properties_t properties = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
    zc_assert_success(zeDeviceGetProperties(zc_device(), &properties));
}
