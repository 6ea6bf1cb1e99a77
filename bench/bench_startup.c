/* Start-up of the driver and the compiled tier's on-disk cache (docs/spirv-execution.md, "Compiled tier"), each in a
 * fresh process, as ratios to baselines measured in the same processes:
 *   - zeInit (the loader loading the driver, the driver reading its scenario), against the dlopen of an empty shared
 *     library (ZB_EMPTY_LIBRARY): LLVM is loaded at the first compile, not at zeInit;
 *   - zeInit + the first zeModuleCreate of vadd.cl with a warm driver (the page cache holds it: the second process);
 *   - the first launch of vadd_float (ZEFAKE_EXEC=compiled, 2^20 floats, results checked) in a first process, which
 *     compiles it into an empty cache, and in a second one, which finds it in the cache, against a steady launch
 *     (back to back with the one before) and against a launch made as the first is, but of a kernel launched before:
 *     on buffers the host has just made and written, after the engine's threads were idle (the cores' caches and
 *     TLBs hold none of the new buffers, and on a virtual machine a core idle for milliseconds is slow to wake);
 *   - the same vector add in C on buffers the host has just written, its first pass against its steady passes: what
 *     fresh memory costs a first pass without any driver.
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
    double dlopen_ns, init_ns, build_ns, first_ns, steady_ns, again_ns, native_first_ns, native_steady_ns;
} zb_startup;

#define ZB_FIELDS 8
_Static_assert(sizeof(zb_startup) == ZB_FIELDS * sizeof(double), "zb_startup is its fields, in this order");

#define ZB_IDLE_US 5000 /* the engine's threads idle before the launch made as the first is */

/* vadd_float's buffers a, b, c, made and written by the host (the output's first touch is the host's, not the
 * launch's). */
static void zb_fresh_buffers(ze_context_handle_t context, uint32_t n, float *buf[3]) {
    for (int k = 0; k < 3; k++)
        buf[k] = zb_host_floats(context, n);
    for (uint32_t i = 0; i < n; i++) {
        buf[0][i] = (float)(i % 1000);
        buf[1][i] = (float)(i % 7);
    }
    memset(buf[2], 0, (size_t)n * sizeof *buf[2]);
}

/* Fresh buffers, given to the kernel. */
static void zb_vadd_buffers(ze_context_handle_t context, ze_kernel_handle_t kernel, uint32_t n, float *buf[3]) {
    zb_fresh_buffers(context, n, buf);
    for (uint32_t k = 0; k < 3; k++)
        zb_check(zeKernelSetArgumentValue(kernel, k, sizeof buf[k], &buf[k]), "vadd_float's argument");
}

static void zb_vadd_check_and_free(ze_context_handle_t context, uint32_t n, float *buf[3]) {
    for (uint32_t i = 0; i < n; i++)
        if (buf[2][i] != buf[0][i] + buf[1][i])
            zb_fail("vadd_float", "a result differs from a + b");
    for (int k = 0; k < 3; k++) /* nothing left behind: the sanitizer builds count it as leaks */
        zb_check(zeMemFree(context, buf[k]), "zeMemFree");
}

/* The same vector add in C on fresh buffers, on the calling thread: its first pass against its steady passes is what
 * buffers the host has just written cost without any driver (the memory system's share of a first launch). */
static void zb_native_first(ze_context_handle_t context, uint32_t n, double *first_ns, double *steady_ns) {
    float *buf[3];
    zb_fresh_buffers(context, n, buf);
    *first_ns = zb_loop_ns(1, zb_vadd_loop, n, buf[0], buf[1], buf[2]);
    *steady_ns = zb_loop_ns(5, zb_vadd_loop, n, buf[0], buf[1], buf[2]);
    zb_vadd_check_and_free(context, n, buf);
}

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
    ze_module_handle_t module;
    start = zb_now_ns();
    ze_kernel_handle_t kernel = zb_spirv_kernel(context, device, "vadd", "vadd_float", local, &module);
    double build_ns = (double)(zb_now_ns() - start);
    float *first[3], *fresh[3];
    zb_vadd_buffers(context, kernel, n, first);
    ze_group_count_t groups = {n / local[0], 1, 1};
    double first_ns = zb_launch_ns(list, kernel, &groups, 1);
    double steady_ns = zb_launch_ns(list, kernel, &groups, 5);
    zb_vadd_check_and_free(context, n, first);
    usleep(ZB_IDLE_US);
    zb_vadd_buffers(context, kernel, n, fresh);
    double again_ns = zb_launch_ns(list, kernel, &groups, 1);
    zb_vadd_check_and_free(context, n, fresh);
    double native_first_ns, native_steady_ns;
    zb_native_first(context, n, &native_first_ns, &native_steady_ns);
    printf("%.0f %.0f %.0f %.0f %.0f %.0f %.0f %.0f\n", dlopen_ns, init_ns, build_ns, first_ns, steady_ns, again_ns,
           native_first_ns, native_steady_ns);
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
        sscanf(line, "%lf %lf %lf %lf %lf %lf %lf %lf", &s.dlopen_ns, &s.init_ns, &s.build_ns, &s.first_ns,
               &s.steady_ns, &s.again_ns, &s.native_first_ns, &s.native_steady_ns) != ZB_FIELDS)
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
    double fields[2][ZB_FIELDS][9];
    for (int r = 0; r < runs; r++) {
        char dir[] = "/tmp/zefake-bench-startup-XXXXXX";
        if (mkdtemp(dir) == NULL)
            zb_fail("mkdtemp", "cannot make a cache directory");
        zb_startup s[2] = {zb_run_child(self, dir), zb_run_child(self, dir)};
        zb_remove_dir(dir);
        for (int k = 0; k < 2; k++) {
            double v[ZB_FIELDS];
            memcpy(v, &s[k], sizeof v);
            for (int f = 0; f < ZB_FIELDS; f++)
                fields[k][f][r] = v[f];
        }
    }
    zb_startup *out[2] = {cold, warm};
    for (int k = 0; k < 2; k++) {
        double v[ZB_FIELDS];
        for (int f = 0; f < ZB_FIELDS; f++)
            v[f] = zb_median(fields[k][f], runs);
        memcpy(out[k], v, sizeof v);
    }
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
           "second process (cached) %.2f ms, ratio %.2f to a steady launch (%.2f ms) and %.2f to a launch after %d ms "
           "idle on new buffers, as the first launch comes (%.2f ms)\n",
           cold.first_ns / 1e6, cold.first_ns / cold.steady_ns, warm.first_ns / 1e6, warm.first_ns / warm.steady_ns,
           warm.steady_ns / 1e6, warm.first_ns / warm.again_ns, ZB_IDLE_US / 1000, warm.again_ns / 1e6);
    printf("native C (the same vector add, one thread) on buffers the host has just written: first pass %.2f ms, "
           "ratio %.2f to its steady pass (%.2f ms): the fresh buffers' own share of a first launch\n",
           warm.native_first_ns / 1e6, warm.native_first_ns / warm.native_steady_ns, warm.native_steady_ns / 1e6);
    return 0;
}
