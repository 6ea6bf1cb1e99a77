/* Cost of calls through the loader into the fake driver, as ratios to an empty call through a function pointer
 * measured in the same run. Usage: zefake-bench-calls [--quick] */
#include <inttypes.h>
#include <level_zero/ze_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ZB_PROGRAM "zefake-bench-calls"
#include "zb_bench.h"

typedef struct zb_state {
    ze_driver_handle_t driver;
    ze_device_handle_t device;
} zb_state;

/* The baseline: a call the compiler cannot inline or remove. */
__attribute__((noinline)) static ze_result_t zb_empty(void *state) {
    __asm__ volatile("" ::"r"(state) : "memory");
    return ZE_RESULT_SUCCESS;
}
static ze_result_t (*volatile zb_empty_ptr)(void *) = zb_empty;

static void zb_baseline(void *state, uint64_t iterations) {
    for (uint64_t i = 0; i < iterations; i++)
        zb_empty_ptr(state);
}

static void zb_device_properties(void *state, uint64_t iterations) {
    zb_state *s = state;
    ze_device_properties_t props = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
    for (uint64_t i = 0; i < iterations; i++)
        zeDeviceGetProperties(s->device, &props);
}

static void zb_driver_get(void *state, uint64_t iterations) {
    (void)state;
    for (uint64_t i = 0; i < iterations; i++) {
        uint32_t count = 0;
        zeDriverGet(&count, NULL);
    }
}

static int zb_setup(zb_state *s) {
    uint32_t count = 1;
    if (zeInit(0) != ZE_RESULT_SUCCESS || zeDriverGet(&count, &s->driver) != ZE_RESULT_SUCCESS || count == 0)
        return 1;
    count = 1;
    if (zeDeviceGet(s->driver, &count, &s->device) != ZE_RESULT_SUCCESS || count == 0)
        return 1;
    return 0;
}

int main(int argc, char **argv) {
    uint64_t iterations = (argc > 1 && strcmp(argv[1], "--quick") == 0) ? 20000 : 2000000;
    zb_state state;
    if (zb_setup(&state) != 0) {
        fprintf(stderr, "zefake-bench-calls: no driver (set ZE_ENABLE_ALT_DRIVERS)\n");
        return EXIT_FAILURE;
    }
    double base = zb_measure_ns(zb_baseline, &state, iterations);
    double props = zb_measure_ns(zb_device_properties, &state, iterations);
    double get = zb_measure_ns(zb_driver_get, &state, iterations);
    printf("baseline: empty call through a pointer %.2f ns\n", base);
    printf("zeDeviceGetProperties through the loader: %.1f ns, ratio %.1f\n", props, props / base);
    printf("zeDriverGet through the loader: %.1f ns, ratio %.1f\n", get, get / base);
    return EXIT_SUCCESS;
}
