/* The two execution tiers (docs/spirv-execution.md, "Compiled tier") side by side with plain C loops, in one process:
 * vector add (vadd.cl, vadd_float, 16 Mi floats in 256-item work-groups) and naive GEMM (gemm.cl, gemm, fp32
 * 256 x 256 x 256 in 16 x 16 work-groups), launched through the loader into the fake with the built-in host kernels off
 * (this program sets ZEFAKE_BUILTINS=0). Each kernel runs in the interpreter (ZEFAKE_EXEC=interp) and compiled
 * (ZEFAKE_EXEC=compiled; a first launch compiles it and is not timed), every access checked in both; both results are
 * compared with the native loops' element by element. Times are the fastest of several runs; ratios are of times to
 * the native loop's (one host thread; the engine uses every core).
 * Usage: zefake-bench-compiled [--quick] (ZB_KERNEL_DIR names the compiled test kernels). */
#include <level_zero/ze_api.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ZB_PROGRAM "zefake-bench-compiled"
#include "zb_bench.h"
#include "zb_kernels.h"

typedef struct zb_run {
    ze_context_handle_t context;
    ze_device_handle_t device;
    ze_command_list_handle_t list; /* synchronous immediate: a launch returns once it has completed */
    int repeats;
} zb_run;

typedef struct zb_case {
    const char *file, *kernel;
    uint32_t global[2], local[2];
    uint32_t n;
    float *a, *b, *c, *want;
    zb_loop native;
} zb_case;

static size_t zb_outputs(const zb_case *c) {
    return (size_t)c->global[0] * c->global[1];
}

/* ------------------------------------------------------------------------------------------------------------------
 * The kernels and their native loops. Small integer inputs keep every float result exact, so all three agree. */

static void zb_case_make(zb_run *x, zb_case *c, size_t inputs) {
    c->a = zb_host_floats(x->context, inputs);
    c->b = zb_host_floats(x->context, inputs);
    c->c = zb_host_floats(x->context, zb_outputs(c));
    c->want = malloc(zb_outputs(c) * sizeof(float));
    if (c->want == NULL)
        zb_fail("malloc", "out of memory");
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; i < 2 * inputs; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        (i < inputs ? c->a : c->b)[i % inputs] = (float)(int)((seed >> 33) % 9) - 4.0f;
    }
}

/* ------------------------------------------------------------------------------------------------------------------
 * Runs */

static ze_kernel_handle_t zb_kernel(zb_run *x, const zb_case *c, ze_module_handle_t *module) {
    ze_kernel_handle_t kernel = zb_spirv_kernel(x->context, x->device, c->file, c->kernel, c->local, module);
    zb_check(zeKernelSetArgumentValue(kernel, 0, sizeof c->a, &c->a), "argument 0");
    zb_check(zeKernelSetArgumentValue(kernel, 1, sizeof c->b, &c->b), "argument 1");
    zb_check(zeKernelSetArgumentValue(kernel, 2, sizeof c->c, &c->c), "argument 2");
    for (uint32_t i = 3; strcmp(c->kernel, "gemm") == 0 && i < 6; i++)
        zb_check(zeKernelSetArgumentValue(kernel, i, sizeof c->n, &c->n), "matrix side");
    return kernel;
}

static void zb_check_result(const zb_case *c, const char *tier) {
    for (size_t i = 0; i < zb_outputs(c); i++)
        if (c->c[i] != c->want[i]) {
            fprintf(stderr, ZB_PROGRAM ": %s (%s): element %zu is %g, expected %g\n", c->kernel, tier, i,
                    (double)c->c[i], (double)c->want[i]);
            exit(EXIT_FAILURE);
        }
}

/* The fastest launch in tier `tier` (ZEFAKE_EXEC), after one untimed launch (which compiles in the compiled tier). */
static double zb_engine_ns(zb_run *x, const zb_case *c, const char *tier) {
    setenv("ZEFAKE_EXEC", tier, 1);
    ze_module_handle_t module = NULL;
    ze_kernel_handle_t kernel = zb_kernel(x, c, &module);
    ze_group_count_t groups = {c->global[0] / c->local[0], c->global[1] / c->local[1], 1};
    zb_check(zeCommandListAppendLaunchKernel(x->list, kernel, &groups, NULL, 0, NULL), "launch");
    memset(c->c, 0xff, zb_outputs(c) * sizeof(float)); /* NaN: an element the launches did not write shows */
    double best = zb_launch_ns(x->list, kernel, &groups, x->repeats);
    zb_check_result(c, tier);
    zb_check(zeKernelDestroy(kernel), "zeKernelDestroy");
    zb_check(zeModuleDestroy(module), "zeModuleDestroy");
    return best;
}

static void zb_bench(zb_run *x, zb_case *c, const char *shape) {
    double native = zb_loop_ns(x->repeats, c->native, c->n, c->a, c->b, c->want);
    double interp = zb_engine_ns(x, c, "interp");
    double compiled = zb_engine_ns(x, c, "compiled");
    long cores = zb_host_cores();
    printf("%s %s: native C %.2f ms (1 thread); interpreter %.2f ms, ratio %.2f; compiled %.2f ms, ratio %.2f (%ld "
           "host threads); interpreter / compiled %.1f\n",
           c->kernel, shape, native / 1e6, interp / 1e6, interp / native, compiled / 1e6, compiled / native, cores,
           interp / compiled);
}

int main(int argc, char **argv) {
    bool quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    setenv("ZEFAKE_BUILTINS", "0", 1);
    zb_run x = {.repeats = quick ? 1 : 5};
    zb_kernel_session(&x.context, &x.device, &x.list);
    char shape[64];
    uint32_t n = quick ? 1u << 20 : 1u << 24;
    zb_case vadd = {
        .file = "vadd", .kernel = "vadd_float", .global = {n, 1}, .local = {256, 1}, .n = n, .native = zb_vadd_loop};
    zb_case_make(&x, &vadd, n);
    snprintf(shape, sizeof shape, "%u floats", n);
    zb_bench(&x, &vadd, shape);
    uint32_t side = quick ? 64 : 256;
    zb_case gemm = {
        .file = "gemm", .kernel = "gemm", .global = {side, side}, .local = {16, 16}, .n = side, .native = zb_gemm_loop};
    zb_case_make(&x, &gemm, (size_t)side * side);
    snprintf(shape, sizeof shape, "fp32 %ux%ux%u", side, side, side);
    zb_bench(&x, &gemm, shape);
    return 0;
}
