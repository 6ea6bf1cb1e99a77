/* Start-up of the driver and the compiled tier's on-disk cache (docs/spirv-execution.md, "Compiled tier"), each in a
 * fresh process, as ratios to baselines measured in the same processes:
 *   - zeInit (the loader loading the driver, the driver reading its scenario), against the dlopen of an empty shared
 *     library (ZB_EMPTY_LIBRARY): LLVM is loaded at the first compile, not at zeInit;
 *   - zeInit + the first zeModuleCreate of vadd.cl with a warm driver (the page cache holds it: the second process);
 *   - the first launch of vadd_float (ZEFAKE_EXEC=compiled, 2^20 floats, results checked) in a first process, which
 *     compiles it into an empty cache, and in a second one, which finds it in the cache, against a steady launch.
 * The two processes share a cache directory of their own (ZEFAKE_CACHE_DIR, removed at the end).
 * Usage: zefake-bench-startup [--quick] (ZB_KERNEL_DIR names the compiled test kernels). */
#include <dirent.h>
#include <dlfcn.h>
#include <level_zero/ze_api.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define ZB_PROGRAM "zefake-bench-startup"
#include "zb_bench.h"
#include "zb_kernels.h"

typedef struct zb_startup {
    double dlopen_ns, init_ns, build_ns, first_ns, steady_ns;
} zb_startup;

/* One process's start: what it prints is one line of zb_startup's fields. */
static int zb_child(void) {
    uint64_t start = zb_now_ns();
    void *empty = dlopen(ZB_EMPTY_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    double dlopen_ns = (double)(zb_now_ns() - start);
    if (empty == NULL)
        zb_fail(ZB_EMPTY_LIBRARY, dlerror());
    start = zb_now_ns();
    zb_check(zeInit(0), "zeInit");
    double init_ns = (double)(zb_now_ns() - start);
    ze_context_handle_t context;
    ze_device_handle_t device;
    ze_command_list_handle_t list;
    zb_kernel_session(&context, &device, &list);
    uint32_t n = 1u << 20, local[2] = {256, 1};
    float *a = zb_host_floats(context, n), *b = zb_host_floats(context, n), *c = zb_host_floats(context, n);
    for (uint32_t i = 0; i < n; i++) {
        a[i] = (float)(i % 1000);
        b[i] = (float)(i % 7);
    }
    ze_module_handle_t module;
    start = zb_now_ns();
    ze_kernel_handle_t kernel = zb_spirv_kernel(context, device, "vadd", "vadd_float", local, &module);
    double build_ns = (double)(zb_now_ns() - start);
    zb_check(zeKernelSetArgumentValue(kernel, 0, sizeof a, &a), "argument 0");
    zb_check(zeKernelSetArgumentValue(kernel, 1, sizeof b, &b), "argument 1");
    zb_check(zeKernelSetArgumentValue(kernel, 2, sizeof c, &c), "argument 2");
    ze_group_count_t groups = {n / local[0], 1, 1};
    memset(c, 0, (size_t)n * sizeof *c); /* the output's first touch is the host's, not the launch's */
    double first_ns = zb_launch_ns(list, kernel, &groups, 1);
    double steady_ns = zb_launch_ns(list, kernel, &groups, 5);
    for (uint32_t i = 0; i < n; i++)
        if (c[i] != a[i] + b[i])
            zb_fail("vadd_float", "a result differs from a + b");
    printf("%.0f %.0f %.0f %.0f %.0f\n", dlopen_ns, init_ns, build_ns, first_ns, steady_ns);
    float *buffers[] = {a, b, c}; /* nothing left behind: the sanitizer builds count it as leaks */
    for (size_t i = 0; i < sizeof buffers / sizeof buffers[0]; i++)
        zb_check(zeMemFree(context, buffers[i]), "zeMemFree");
    zb_check(zeKernelDestroy(kernel), "zeKernelDestroy");
    zb_check(zeModuleDestroy(module), "zeModuleDestroy");
    zb_check(zeCommandListDestroy(list), "zeCommandListDestroy");
    zb_check(zeContextDestroy(context), "zeContextDestroy");
    dlclose(empty);
    return 0;
}

static void zb_prepare(const void *dir) {
    setenv("ZEFAKE_CACHE_DIR", dir, 1);
    unsetenv("ZEFAKE_CACHE");
    setenv("ZEFAKE_EXEC", "compiled", 1);
    setenv("ZEFAKE_BUILTINS", "0", 1);
}

static zb_startup zb_run_child(char *self, const char *dir) {
    char *args[] = {self, "--child", NULL};
    char line[256];
    zb_startup s;
    if (!zb_child_line(args, zb_prepare, dir, line, sizeof line) ||
        sscanf(line, "%lf %lf %lf %lf %lf", &s.dlopen_ns, &s.init_ns, &s.build_ns, &s.first_ns, &s.steady_ns) != 5)
        zb_fail("child process", "failed");
    return s;
}

static void zb_remove_dir(const char *dir) {
    DIR *d = opendir(dir);
    struct dirent *entry;
    char path[4200];
    while (d != NULL && (entry = readdir(d)) != NULL) {
        if (entry->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, entry->d_name);
        unlink(path);
    }
    if (d != NULL)
        closedir(d);
    rmdir(dir);
}

/* The median of each field over `runs` pairs of processes (cold cache, then warm). */
static void zb_pairs(char *self, int runs, zb_startup *cold, zb_startup *warm) {
    double fields[2][5][9];
    for (int r = 0; r < runs; r++) {
        char dir[] = "/tmp/zefake-bench-startup-XXXXXX";
        if (mkdtemp(dir) == NULL)
            zb_fail("mkdtemp", "cannot make a cache directory");
        zb_startup s[2] = {zb_run_child(self, dir), zb_run_child(self, dir)};
        zb_remove_dir(dir);
        for (int k = 0; k < 2; k++) {
            double v[5] = {s[k].dlopen_ns, s[k].init_ns, s[k].build_ns, s[k].first_ns, s[k].steady_ns};
            for (int f = 0; f < 5; f++)
                fields[k][f][r] = v[f];
        }
    }
    zb_startup *out[2] = {cold, warm};
    for (int k = 0; k < 2; k++)
        *out[k] =
            (zb_startup){zb_median(fields[k][0], runs), zb_median(fields[k][1], runs), zb_median(fields[k][2], runs),
                         zb_median(fields[k][3], runs), zb_median(fields[k][4], runs)};
}

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "--child") == 0)
        return zb_child();
    bool quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    zb_startup cold, warm;
    zb_pairs(argv[0], quick ? 1 : 5, &cold, &warm);
    printf("zeInit: %.2f ms, ratio %.1f to the dlopen of an empty library (%.0f us)\n", warm.init_ns / 1e6,
           warm.init_ns / warm.dlopen_ns, warm.dlopen_ns / 1e3);
    printf("zeInit + first zeModuleCreate (warm driver): %.2f ms\n", (warm.init_ns + warm.build_ns) / 1e6);
    printf("first launch (vadd_float, 2^20 floats, compiled): empty cache %.1f ms, ratio %.1f to a steady launch; "
           "second process (cached) %.2f ms, ratio %.2f to a steady launch (%.2f ms)\n",
           cold.first_ns / 1e6, cold.first_ns / cold.steady_ns, warm.first_ns / 1e6, warm.first_ns / warm.steady_ns,
           warm.steady_ns / 1e6);
    return 0;
}
