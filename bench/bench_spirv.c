/* SPIR-V execution through the loader into the fake, with the built-in host kernels off (this program sets
 * ZEFAKE_BUILTINS=0) so that the execution engine computes every result, which is checked. For two kernels of the
 * suite, tiled GEMM (conformance/kernels/spirv_gemm.cl, gemm_tiled, 256 x 256 x 256 in 16 x 16 work-groups) and vector
 * add (vadd.cl, vadd_float, 2^20 floats in 256-item work-groups):
 *   - lane-operations per second of the engine as a ratio to the same kernel written as plain C loops compiled into
 *     this program (one host thread; the engine uses every core);
 *   - the same OpenCL C kernel run by Debian's Oclgrind (oclgrind-kernel and a generated .sim file, on as many threads
 *     as the host has cores) when it was found at configure time, timed minus a run of one work-group of the same
 *     file (which compiles the kernel and parses the arguments just the same); its result is checked, to the six
 *     significant digits it prints, when dumping it costs little (ZB_OCLGRIND_CHECKED).
 * A lane-operation is one arithmetic operation of one work-item as the OpenCL C source writes it: a multiply and an
 * add per step of k in GEMM (2 m n k in all), one add per element in vector add; the unit is the same for all three
 * runners (the engine's own count, decoded instructions times lanes, is internal to the driver). Ratios are of times
 * (engine / native, engine / Oclgrind); each time is the fastest of several runs, except Oclgrind's, which runs once.
 * Usage: zefake-bench-spirv [--quick] (ZB_KERNEL_DIR names the compiled test kernels; the OpenCL C sources and
 * oclgrind-kernel are compiled in as ZB_KERNEL_SOURCE_DIR and ZB_OCLGRIND). */
#include <fcntl.h>
#include <level_zero/ze_api.h>
#include <math.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define ZB_PROGRAM "zefake-bench-spirv"
#include "zb_bench.h"
#include "zb_kernels.h"

extern char **environ;

#define ZB_GEMM_TILE  16u
#define ZB_VADD_GROUP 256u

typedef struct zb_spirv {
    ze_context_handle_t context;
    ze_device_handle_t device;
    ze_command_list_handle_t list; /* synchronous immediate: a launch returns once it has completed */
    uint32_t threads;              /* host cores: the engine's threads, and Oclgrind's */
    int repeats;
    int quick;
} zb_spirv;

/* One benchmarked kernel: what the engine, the native loops and Oclgrind are given, and what they must compute. */
typedef struct zb_case {
    const char *file; /* conformance/kernels/<file>.cl and <file>.spv */
    const char *kernel;
    char shape[64]; /* as printed */
    uint32_t global[2], local[2];
    double lane_ops;
    uint32_t n;       /* GEMM: the matrix side; vector add: the elements */
    float *a, *b, *c; /* host allocations of the context */
    float *want;      /* the native result */
    zb_loop native;
    void (*sim_args)(const struct zb_case *, FILE *, const char *dump); /* the .sim file's argument lines */
    void (*set_args)(const struct zb_case *, ze_kernel_handle_t);
} zb_case;

/* ------------------------------------------------------------------------------------------------------------------
 * Set-up */

static void zb_setup(zb_spirv *x) {
    zb_kernel_session(&x->context, &x->device, &x->list);
    x->threads = (uint32_t)zb_host_cores();
}

static float *zb_malloc(size_t count) {
    float *p = malloc(count * sizeof(float));
    if (p == NULL)
        zb_fail("malloc", "out of memory");
    return p;
}

static ze_kernel_handle_t zb_kernel(zb_spirv *x, const zb_case *c, ze_module_handle_t *module) {
    ze_kernel_handle_t kernel = zb_spirv_kernel(x->context, x->device, c->file, c->kernel, c->local, module);
    c->set_args(c, kernel);
    return kernel;
}

static void zb_arg(ze_kernel_handle_t kernel, uint32_t index, size_t size, const void *value) {
    zb_check(zeKernelSetArgumentValue(kernel, index, size, value), "zeKernelSetArgumentValue");
}

/* ------------------------------------------------------------------------------------------------------------------
 * GEMM: C = A x B, n x n floats. Small integer inputs make every partial sum exact, so all runners agree exactly. */

static void zb_gemm_args(const zb_case *c, ze_kernel_handle_t kernel) {
    zb_arg(kernel, 0, sizeof c->a, &c->a);
    zb_arg(kernel, 1, sizeof c->b, &c->b);
    zb_arg(kernel, 2, sizeof c->c, &c->c);
    for (uint32_t i = 3; i < 6; i++)
        zb_arg(kernel, i, sizeof c->n, &c->n);
}

static void zb_sim_floats(FILE *out, const float *values, size_t count) {
    fprintf(out, "<size=%zu float>\n", count * sizeof(float));
    for (size_t i = 0; i < count; i++)
        fprintf(out, "%g%c", (double)values[i], i % 32 == 31 ? '\n' : ' ');
    fputc('\n', out);
}

static void zb_gemm_sim(const zb_case *c, FILE *out, const char *dump) {
    size_t count = (size_t)c->n * c->n;
    zb_sim_floats(out, c->a, count);
    zb_sim_floats(out, c->b, count);
    fprintf(out, "<size=%zu float fill=0%s>\n", count * sizeof(float), dump);
    for (int i = 0; i < 3; i++)
        fprintf(out, "<size=4 uint>\n%u\n", c->n);
}

static void zb_gemm_case(zb_spirv *x, zb_case *c, uint32_t n) {
    size_t count = (size_t)n * n;
    *c = (zb_case){.file = "spirv_gemm",
                   .kernel = "gemm_tiled",
                   .global = {n, n},
                   .local = {ZB_GEMM_TILE, ZB_GEMM_TILE},
                   .lane_ops = 2.0 * n * n * n,
                   .n = n,
                   .a = zb_host_floats(x->context, count),
                   .b = zb_host_floats(x->context, count),
                   .c = zb_host_floats(x->context, count),
                   .want = zb_malloc(count),
                   .native = zb_gemm_loop,
                   .sim_args = zb_gemm_sim,
                   .set_args = zb_gemm_args};
    snprintf(c->shape, sizeof c->shape, "%ux%ux%u", n, n, n);
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; i < 2 * count; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        (i < count ? c->a : c->b)[i % count] = (float)(int)((seed >> 33) % 9) - 4.0f;
    }
}

/* ------------------------------------------------------------------------------------------------------------------
 * Vector add: c[i] = a[i] + b[i] with a[i] = i and b[i] = 2 i (exact below 2^24), as Oclgrind's ranges make them. */

static void zb_vadd_args(const zb_case *c, ze_kernel_handle_t kernel) {
    zb_arg(kernel, 0, sizeof c->a, &c->a);
    zb_arg(kernel, 1, sizeof c->b, &c->b);
    zb_arg(kernel, 2, sizeof c->c, &c->c);
}

static void zb_vadd_sim(const zb_case *c, FILE *out, const char *dump) {
    size_t bytes = (size_t)c->n * sizeof(float);
    fprintf(out, "<size=%zu float range=0:1:%u>\n", bytes, c->n - 1);
    fprintf(out, "<size=%zu float range=0:2:%u>\n", bytes, 2 * (c->n - 1));
    fprintf(out, "<size=%zu float fill=0%s>\n", bytes, dump);
}

static void zb_vadd_case(zb_spirv *x, zb_case *c, uint32_t n) {
    *c = (zb_case){.file = "vadd",
                   .kernel = "vadd_float",
                   .global = {n, 1},
                   .local = {ZB_VADD_GROUP, 1},
                   .lane_ops = n,
                   .n = n,
                   .a = zb_host_floats(x->context, n),
                   .b = zb_host_floats(x->context, n),
                   .c = zb_host_floats(x->context, n),
                   .want = zb_malloc(n),
                   .native = zb_vadd_loop,
                   .sim_args = zb_vadd_sim,
                   .set_args = zb_vadd_args};
    snprintf(c->shape, sizeof c->shape, "%u elements", n);
    for (uint32_t i = 0; i < n; i++) {
        c->a[i] = (float)i;
        c->b[i] = 2.0f * (float)i;
    }
}

static size_t zb_outputs(const zb_case *c) {
    return (size_t)c->global[0] * c->global[1];
}

/* ------------------------------------------------------------------------------------------------------------------
 * The engine and the native loops */

static void zb_check_engine(const zb_case *c) {
    for (size_t i = 0; i < zb_outputs(c); i++)
        if (c->c[i] != c->want[i]) {
            fprintf(stderr, "zefake-bench-spirv: %s: element %zu is %g, expected %g\n", c->kernel, i, (double)c->c[i],
                    (double)c->want[i]);
            exit(EXIT_FAILURE);
        }
}

static double zb_engine_ns(zb_spirv *x, const zb_case *c) {
    ze_module_handle_t module = NULL;
    ze_kernel_handle_t kernel = zb_kernel(x, c, &module);
    ze_group_count_t groups = {c->global[0] / c->local[0], c->global[1] / c->local[1], 1};
    memset(c->c, 0xff, zb_outputs(c) * sizeof(float)); /* NaN: an element the launch did not write shows */
    double best = zb_launch_ns(x->list, kernel, &groups, x->repeats);
    zb_check_engine(c);
    zb_check(zeKernelDestroy(kernel), "zeKernelDestroy");
    zb_check(zeModuleDestroy(module), "zeModuleDestroy");
    return best;
}

static void zb_bench_engine(zb_spirv *x, zb_case *c, double *engine_ns) {
    double native = zb_loop_ns(x->repeats, c->native, c->n, c->a, c->b, c->want);
    *engine_ns = zb_engine_ns(x, c);
    printf("%s %s (%zu work-items, %.0f lane-ops): engine %.2f M lane-ops/s (%.2f ms, %u host threads), ratio %.1f to "
           "native C (%.2f M lane-ops/s, %.3f ms, 1 thread)\n",
           c->kernel, c->shape, zb_outputs(c), c->lane_ops, c->lane_ops / *engine_ns * 1e3, *engine_ns / 1e6,
           x->threads, *engine_ns / native, c->lane_ops / native * 1e3, native / 1e6);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Oclgrind */

#ifndef ZB_OCLGRIND
#define ZB_OCLGRIND ""
#endif
#ifndef ZB_KERNEL_SOURCE_DIR
#define ZB_KERNEL_SOURCE_DIR "."
#endif

static int zb_have_oclgrind(void) {
    return ZB_OCLGRIND[0] != '\0' && access(ZB_OCLGRIND, X_OK) == 0;
}

/* Oclgrind prints a dumped buffer one element a line, which costs more than a large kernel: results of up to this many
 * elements are dumped and checked (GEMM, and vector add in the quick run), larger ones only timed. */
#define ZB_OCLGRIND_CHECKED 65536u

/* The .sim file: the kernel's source, its name, the NDRange (`global`), the work-group size, then the arguments. */
static void zb_write_sim(const zb_case *c, const char *path, const uint32_t global[2]) {
    FILE *out = fopen(path, "w");
    if (out == NULL)
        zb_fail(path, "cannot write the simulation file");
    fprintf(out, "# zefake-bench-spirv: %s %s\n%s/%s.cl\n%s\n", c->kernel, c->shape, ZB_KERNEL_SOURCE_DIR, c->file,
            c->kernel);
    fprintf(out, "%u %u 1\n%u %u 1\n", global[0], global[1], c->local[0], c->local[1]);
    c->sim_args(c, out, zb_outputs(c) <= ZB_OCLGRIND_CHECKED ? " dump" : "");
    fclose(out);
}

/* Runs oclgrind-kernel on `sim` with its output (the dumped result, any diagnostic) in `log`; the wall time in ns. */
static double zb_run_oclgrind(zb_spirv *x, const char *sim, const char *log) {
    char threads[16];
    snprintf(threads, sizeof threads, "%u", x->threads);
    char *argv[] = {"oclgrind-kernel", "--num-threads", threads, (char *)sim, NULL};
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
    pid_t pid;
    int status = 0;
    uint64_t start = zb_now_ns();
    int rc = posix_spawn(&pid, ZB_OCLGRIND, &actions, NULL, argv, environ);
    if (rc == 0)
        waitpid(pid, &status, 0);
    double ns = (double)(zb_now_ns() - start);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        zb_fail(ZB_OCLGRIND " failed, its output is in", log);
    return ns;
}

/* Oclgrind's dump ("  c[i] = value" lines) against the native result, to the six significant digits it prints. */
static void zb_check_oclgrind(const zb_case *c, const char *log) {
    FILE *in = fopen(log, "r");
    if (in == NULL)
        zb_fail(log, "cannot read Oclgrind's output");
    char line[256];
    size_t seen = 0, index;
    float value;
    while (fgets(line, sizeof line, in) != NULL) {
        if (sscanf(line, " c[%zu] = %g", &index, &value) != 2)
            continue;
        float want = index < zb_outputs(c) ? c->want[index] : NAN;
        if (!(fabsf(value - want) <= 5e-6f * fabsf(want)))
            zb_fail(c->kernel, "Oclgrind's result differs from the native one");
        seen++;
    }
    fclose(in);
    if (seen != zb_outputs(c))
        zb_fail(log, "Oclgrind's output lacks the dumped result");
}

static void zb_bench_oclgrind(zb_spirv *x, const zb_case *c, double engine_ns, const char *dir) {
    char sim[512], one[512], log[512];
    snprintf(sim, sizeof sim, "%s/%s.sim", dir, c->file);
    snprintf(one, sizeof one, "%s/%s-one-group.sim", dir, c->file);
    snprintf(log, sizeof log, "%s/%s.log", dir, c->file);
    zb_write_sim(c, sim, c->global);
    double ns = zb_run_oclgrind(x, sim, log), startup = 0;
    int checked = zb_outputs(c) <= ZB_OCLGRIND_CHECKED;
    if (checked)
        zb_check_oclgrind(c, log);
    if (!x->quick) { /* the same file with one work-group: compilation, start-up, argument parsing (and the dump) */
        zb_write_sim(c, one, c->local);
        startup = zb_run_oclgrind(x, one, log);
        ns = ns > startup ? ns - startup : ns;
    }
    char how[96];
    snprintf(how, sizeof how, x->quick ? "start-up included" : "less %.2f s for a run of one work-group",
             startup / 1e9);
    printf("%s %s under oclgrind-kernel: %.3f M lane-ops/s (%.2f s, %s, %u threads, result %s), ratio %.4f to "
           "Oclgrind (the engine is %.0fx faster)\n",
           c->kernel, c->shape, c->lane_ops / ns * 1e3, ns / 1e9, how, x->threads, checked ? "checked" : "not dumped",
           engine_ns / ns, ns / engine_ns);
    unlink(sim);
    unlink(one);
    unlink(log);
}

/* ------------------------------------------------------------------------------------------------------------------ */

static void zb_free_case(zb_spirv *x, zb_case *c) {
    zb_check(zeMemFree(x->context, c->a), "zeMemFree");
    zb_check(zeMemFree(x->context, c->b), "zeMemFree");
    zb_check(zeMemFree(x->context, c->c), "zeMemFree");
    free(c->want);
}

static void zb_bench_case(zb_spirv *x, zb_case *c, const char *dir) {
    double engine_ns = 0;
    zb_bench_engine(x, c, &engine_ns);
    if (dir != NULL)
        zb_bench_oclgrind(x, c, engine_ns, dir);
    zb_free_case(x, c);
}

int main(int argc, char **argv) {
    setenv("ZEFAKE_BUILTINS", "0", 1); /* the engine computes vadd_float too, not the built-in */
    zb_spirv x = {.quick = argc > 1 && strcmp(argv[1], "--quick") == 0};
    x.repeats = x.quick ? 2 : 5;
    zb_setup(&x);
    char dir[] = "/tmp/zefake-bench-spirv-XXXXXX";
    const char *sim_dir = NULL;
    if (zb_have_oclgrind() && (sim_dir = mkdtemp(dir)) == NULL)
        zb_fail(dir, "cannot make a directory for Oclgrind's files");
    zb_case c;
    zb_gemm_case(&x, &c, x.quick ? 32 : 256);
    zb_bench_case(&x, &c, sim_dir);
    zb_vadd_case(&x, &c, x.quick ? 1u << 14 : 1u << 20);
    zb_bench_case(&x, &c, sim_dir);
    if (sim_dir != NULL)
        rmdir(sim_dir);
    else
        printf("oclgrind: skipped, oclgrind-kernel was not found at configure time (install it with `sudo apt-get "
               "install oclgrind` and re-run cmake)\n");
    zb_check(zeCommandListDestroy(x.list), "zeCommandListDestroy");
    zb_check(zeContextDestroy(x.context), "zeContextDestroy");
    return EXIT_SUCCESS;
}
