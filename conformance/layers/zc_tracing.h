/* What the API tracing tests (test_tracing.c, test_tracing_threads.c) share, for the one tracer implementation an
 * executable checks (ZC_TRACING_TARGET):
 *
 *   ZC_TRACING_DRIVER  the driver's own tracers (zetTracerExp*) through the loader; with ZC_TRACING_INTERCEPT=1 under
 *                      ZE_ENABLE_LOADER_INTERCEPT=1
 *   ZC_TRACING_STOCK   the loader's stock tracing layer (ZE_ENABLE_TRACING_LAYER=1)
 *   ZC_TRACING_OURS    layers/tracing: the same, with its directory (ZC_OUR_LAYER_DIR) first in LD_LIBRARY_PATH
 *
 * An executable sets the environment of its target and re-executes itself before the loader starts, so it runs the
 * same by hand as under ctest; the tests then reach the target through one interface over zetTracerExp* and
 * zelTracer* (zc_tracing.c). */
#ifndef ZC_TRACING_H
#define ZC_TRACING_H

#include "zc_harness.h"

#include <layers/zel_tracing_api.h>
#include <level_zero/zet_api.h>
#include <stdbool.h>

#define ZC_TRACING_DRIVER 1
#define ZC_TRACING_STOCK  2
#define ZC_TRACING_OURS   3

#ifndef ZC_TRACING_TARGET
#error "ZC_TRACING_TARGET must be ZC_TRACING_DRIVER, ZC_TRACING_STOCK or ZC_TRACING_OURS"
#endif
#ifndef ZC_TRACING_INTERCEPT
#define ZC_TRACING_INTERCEPT 0
#endif
#if ZC_TRACING_TARGET == ZC_TRACING_OURS && !defined(ZC_OUR_LAYER_DIR)
#error "ZC_OUR_LAYER_DIR must name the directory of layers/tracing's library"
#endif
#define ZC_LAYER_TARGET (ZC_TRACING_TARGET != ZC_TRACING_DRIVER)

#define ZC_LAYER_SONAME "libze_tracing_layer.so.1"

/* Set in the re-executed process: the target's environment is in place. */
#define ZC_READY_VARIABLE "ZC_TRACING_READY"

/* Sets the target's variables and re-executes this program (returns only on failure, with the exit status). */
int zc_tracing_reexec(char **argv);

/* The target's tracer functions; `tracer` is a zet_tracer_exp_handle_t or a zel_tracer_handle_t. null_desc passes a
 * NULL descriptor. */
ze_result_t zc_tr_create_desc(void *user_data, void **tracer, bool null_desc);
ze_result_t zc_tr_create(void *user_data, void **tracer);
ze_result_t zc_tr_destroy(void *tracer);
ze_result_t zc_tr_set(void *tracer, bool prologues, ze_callbacks_t *callbacks);
ze_result_t zc_tr_enable(void *tracer, bool enable);

/* A tracer with these prologues and epilogues (asserts success). */
void *zc_tracer_with(void *user_data, ze_callbacks_t *prologues, ze_callbacks_t *epilogues);
/* Disables and destroys the tracer (asserts success). */
void zc_tracer_finish(void *tracer);

/* Group set-up: the system and the context the driver's tracers belong to. */
int zc_setup_tracing(void **state);
int zc_teardown_tracing(void **state);

/* The device the tests call zeDeviceGetProperties on, and that call (asserts success). */
ze_device_handle_t zc_device(void);
void zc_get_properties(void);

#endif
