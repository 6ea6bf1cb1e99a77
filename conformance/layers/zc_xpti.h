/* The XPTI emitter tests (test_xpti.c, test_xpti_itt.c) run each workload in a child process set up as a user would
 * trace an unmodified application: LD_PRELOAD of the emitter, ZE_ENABLE_TRACING_LAYER=1 (with our tracing layer
 * first in LD_LIBRARY_PATH, or the stock one: ZC_XPTI_STOCK_LAYER), XPTI_FRAMEWORK_DISPATCHER and XPTI_SUBSCRIBERS.
 * The child prints what the test subscriber saw (key=value lines) next to what the workload did (docs/xpti.md);
 * zc_xpti.c holds both sides. */
#ifndef ZC_XPTI_H
#define ZC_XPTI_H

#include "zc_harness.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#if !defined(ZC_XPTI_EMITTER) || !defined(ZC_XPTI_DISPATCHER) || !defined(ZC_XPTI_TEST_SUBSCRIBER) ||                  \
    !defined(ZC_XPTI_TIMELINE) || !defined(ZC_XPTI_INCOMPLETE_SUBSCRIBER) || !defined(ZC_OUR_LAYER_DIR) ||             \
    !defined(ZC_XPTI_PRELOAD_PREFIX) || !defined(ZC_RESULTS_DIR)
#error "the XPTI libraries, the tracing layer's directory, the preload prefix and the results directory are required"
#endif
#ifndef ZC_XPTI_STOCK_LAYER
#define ZC_XPTI_STOCK_LAYER 0
#endif

/* The framework library the tests use: ZC_XPTI_FRAMEWORK when set and not empty (another framework, e.g. Intel's
 * libxptifw.so), else our dispatcher. */
static inline const char *zc_xpti_framework(void) {
    const char *path = getenv("ZC_XPTI_FRAMEWORK");
    return path != NULL && *path != '\0' ? path : ZC_XPTI_DISPATCHER;
}

/* The most calls the sequence workload lists. */
#define ZC_SEQ_MAX 32

/* The ITT workload: spirv_itt.cl's `annotated` over ZC_ITT_ITEMS work-items in groups of ZC_ITT_GROUP. */
#define ZC_ITT_ITEMS 128u
#define ZC_ITT_GROUP 32u

/* ---- Test side ----------------------------------------------------------------------------------------------------
 */

/* A child's environment changes as zc_run_child_mode takes them (vars, NULL-terminated), with their storage. */
typedef struct zc_env {
    char preload[4096];
    char library_path[8192];
    char dispatcher[4096];
    char subscribers[8192];
    const char *vars[24];
    size_t count;
} zc_env;

void zc_env_add(zc_env *env, const char *var);
void zc_env_traced(zc_env *env, const char *subscribers, bool preload);
void zc_run_workload(const char *workload, zc_env *env, zc_child *child);
void zc_expect(const zc_child *child, const char *key, uint64_t expected);
void zc_expect_text(const zc_child *child, const char *key, const char *expected);
void zc_expect_same(const zc_child *child, const char *key, const char *other);
void zc_expect_contains(const zc_child *child, const char *key, const char *part);
void zc_expect_untraced(const zc_child *child);
void zc_result_file(char *file, size_t size, const char *what);

/* ---- Child side ---------------------------------------------------------------------------------------------------
 */

/* The child mode "workload": runs the workload its first argument names and prints the report. */
int zc_child_workload(int argc, char **argv);

#endif
