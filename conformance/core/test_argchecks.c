/* Conformance: every `nullptr == <param>` rule of the headers' @returns blocks, one test per rule.
 *
 * The cases are generated from the installed headers (fake_driver/gen/zfgen.py writes zc_argcheck_cases.h): each
 * calls one API function with a driver, device or context from the fixture, NULL for the parameter under test, and
 * zeroed scratch buffers for every other pointer, and names the result the header promises. A function the loader
 * lacks is called through the driver's own dispatch table (ZC_API, zc_harness.h). */
#include "zc_harness.h"

#include <level_zero/zes_api.h>
#include <level_zero/zet_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ZC_SCRATCH_BUFFERS 16
#define ZC_SCRATCH_SIZE    4096
#define ZC_SCRATCH_ALIGN   64

typedef struct zc_argcheck_args {
    ze_driver_handle_t driver;
    ze_device_handle_t device;
    ze_context_handle_t context;
    void *scratch[ZC_SCRATCH_BUFFERS];
} zc_argcheck_args;

typedef struct zc_argcheck_case {
    const char *function;
    const char *param;
    ze_result_t expected;
    ze_result_t (*call)(const zc_argcheck_args *);
} zc_argcheck_case;

#include "zc_argcheck_cases.h"

#define ZC_NUM_CASES ZC_COUNT(zc_argcheck_cases)

static zc_argcheck_args zc_args;

static int zc_argchecks_setup(void **state) {
    if (zc_setup_system(state) != 0)
        return -1;
    zc_args.driver = zc_sys()->driver;
    zc_args.device = zc_sys()->roots[0];
    ze_context_desc_t desc = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0};
    ze_result_t result = zeContextCreate(zc_args.driver, &desc, &zc_args.context);
    if (result != ZE_RESULT_SUCCESS) {
        print_error("zeContextCreate returned %s\n", zc_result_name(result));
        return -1;
    }
    for (int i = 0; i < ZC_SCRATCH_BUFFERS; i++) {
        zc_args.scratch[i] = aligned_alloc(ZC_SCRATCH_ALIGN, ZC_SCRATCH_SIZE);
        if (zc_args.scratch[i] == NULL)
            return -1;
    }
    return 0;
}

static int zc_argchecks_teardown(void **state) {
    for (int i = 0; i < ZC_SCRATCH_BUFFERS; i++)
        free(zc_args.scratch[i]);
    if (zc_args.context != NULL)
        zeContextDestroy(zc_args.context);
    memset(&zc_args, 0, sizeof zc_args);
    return zc_teardown_system(state);
}

static void zc_argcheck_test(void **state) {
    const zc_argcheck_case *c = *state;
    /* Zeroed before every case: a driver that wrongly goes on must not see what an earlier case left. */
    for (int i = 0; i < ZC_SCRATCH_BUFFERS; i++)
        memset(zc_args.scratch[i], 0, ZC_SCRATCH_SIZE);
    ze_result_t got = c->call(&zc_args);
    if (got == ZC_API_MISSING) {
        print_message("%s: neither the loader nor the driver's tables have it\n", c->function);
        skip();
    }
    if (got != c->expected)
        zc_fail("%s with %s = NULL returned %s (0x%x), expected %s (0x%x)", c->function, c->param, zc_result_name(got),
                (unsigned)got, zc_result_name(c->expected), (unsigned)c->expected);
}

int main(int argc, char **argv) {
    /* cmocka keeps pointers to the names: they live until the process ends. */
    static struct CMUnitTest tests[ZC_NUM_CASES];
    static char names[ZC_NUM_CASES][160];
    for (size_t i = 0; i < ZC_NUM_CASES; i++) {
        const zc_argcheck_case *c = &zc_argcheck_cases[i];
        snprintf(names[i], sizeof names[i], "%s_%s_null", c->function, c->param);
        tests[i] = (struct CMUnitTest){names[i], zc_argcheck_test, NULL, NULL, (void *)c};
    }
    static const zc_suite suite = {
        ZC_EXECUTABLE, tests, ZC_NUM_CASES, zc_argchecks_setup, zc_argchecks_teardown, NULL, 0,
    };
    return zc_main(argc, argv, &suite);
}
