/* Cost of calls through the loader into the fake driver, as ratios to an empty call through a function pointer
 * measured in the same run. Usage: zefake-bench-calls [--quick] */
#include <inttypes.h>
#include <level_zero/ze_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BENCH_REPEATS 7

typedef void (*bench_body)(void *state, uint64_t iterations);

typedef struct bench_state {
    ze_driver_handle_t driver;
    ze_device_handle_t device;
} bench_state;

static uint64_t bench_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The baseline: a call the compiler cannot inline or remove. */
__attribute__((noinline)) static ze_result_t bench_empty(void *state) {
    __asm__ volatile("" ::"r"(state) : "memory");
    return ZE_RESULT_SUCCESS;
}
static ze_result_t (*volatile bench_empty_ptr)(void *) = bench_empty;

static void bench_baseline(void *state, uint64_t iterations) {
    for (uint64_t i = 0; i < iterations; i++)
        bench_empty_ptr(state);
}

static void bench_device_properties(void *state, uint64_t iterations) {
    bench_state *s = state;
    ze_device_properties_t props = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
    for (uint64_t i = 0; i < iterations; i++)
        zeDeviceGetProperties(s->device, &props);
}

static void bench_driver_get(void *state, uint64_t iterations) {
    (void)state;
    for (uint64_t i = 0; i < iterations; i++) {
        uint32_t count = 0;
        zeDriverGet(&count, NULL);
    }
}

/* Median ns per iteration over BENCH_REPEATS runs. */
static double bench_measure(bench_body body, void *state, uint64_t iterations) {
    double samples[BENCH_REPEATS];
    body(state, iterations / 10 + 1); /* warm up */
    for (int r = 0; r < BENCH_REPEATS; r++) {
        uint64_t start = bench_now_ns();
        body(state, iterations);
        samples[r] = (double)(bench_now_ns() - start) / (double)iterations;
    }
    for (int i = 1; i < BENCH_REPEATS; i++)
        for (int j = i; j > 0 && samples[j - 1] > samples[j]; j--) {
            double t = samples[j];
            samples[j] = samples[j - 1];
            samples[j - 1] = t;
        }
    return samples[BENCH_REPEATS / 2];
}

static int bench_setup(bench_state *s) {
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
    bench_state state;
    if (bench_setup(&state) != 0) {
        fprintf(stderr, "zefake-bench-calls: no driver (set ZE_ENABLE_ALT_DRIVERS)\n");
        return EXIT_FAILURE;
    }
    double base = bench_measure(bench_baseline, &state, iterations);
    double props = bench_measure(bench_device_properties, &state, iterations);
    double get = bench_measure(bench_driver_get, &state, iterations);
    printf("baseline: empty call through a pointer %.2f ns\n", base);
    printf("zeDeviceGetProperties through the loader: %.1f ns, ratio %.1f\n", props, props / base);
    printf("zeDriverGet through the loader: %.1f ns, ratio %.1f\n", get, get / base);
    return EXIT_SUCCESS;
}
