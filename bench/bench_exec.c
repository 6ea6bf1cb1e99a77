/* Execution through the loader into the fake, each as a ratio to a baseline measured in the same run:
 *   - zeEventQueryStatus of a signalled event, and zeCommandListAppendBarrier + zeCommandListReset on a regular list,
 *     vs an empty indirect call;
 *   - launches of an empty kernel through an asynchronous immediate list, per launch, vs an empty indirect call and,
 *     when the build found OpenCL and PoCL is installed, vs PoCL's enqueue rate for the same kernel (its platform found
 *     by name through libOpenCL);
 *   - launches of the same kernel that each signal an event, and launches through a synchronous immediate list, vs
 *     the asynchronous ones without an event;
 *   - a 1 MiB host-to-device copy through a synchronous immediate list, and a 64 MiB device-to-host one, vs memcpy of
 *     the same size in the same process;
 *   - event signal -> host wake-up latency (one thread signals with zeEventHostSignal, another waits in
 *     zeEventHostSynchronize, ping-pong) vs the same ping-pong with a pthread mutex and condition variable.
 * The driver's own costs are what it measures, so it runs on the modelled clock unless ZEFAKE_CLOCK says otherwise: on
 * the host clock a command completes only once device time has passed its end (docs/cost-model.md), so a launch takes
 * at least the scenario's dispatch latency and a copy runs at its link's speed, figures of the modelled hardware.
 * Usage: zefake-bench-exec [--quick] (ZB_KERNEL_DIR names the compiled test kernels). */
#include <level_zero/ze_api.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ZB_PROGRAM "zefake-bench-exec"
#include "zb_bench.h"

typedef struct zb_exec {
    ze_context_handle_t context;
    ze_device_handle_t device;
    uint32_t compute_ordinal;
} zb_exec;

static void zb_setup(zb_exec *x) {
    ze_driver_handle_t driver = NULL;
    uint32_t count = 1;
    zb_check(zeInit(0), "zeInit");
    zb_check(zeDriverGet(&count, &driver), "zeDriverGet");
    count = 1;
    zb_check(zeDeviceGet(driver, &count, &x->device), "zeDeviceGet");
    ze_context_desc_t desc = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0};
    zb_check(zeContextCreate(driver, &desc, &x->context), "zeContextCreate");
    ze_command_queue_group_properties_t groups[16];
    count = 16;
    for (uint32_t i = 0; i < count; i++)
        groups[i] = (ze_command_queue_group_properties_t){.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_GROUP_PROPERTIES};
    zb_check(zeDeviceGetCommandQueueGroupProperties(x->device, &count, groups), "queue groups");
    for (x->compute_ordinal = 0; x->compute_ordinal < count; x->compute_ordinal++)
        if (groups[x->compute_ordinal].flags & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE)
            break;
}

static ze_command_list_handle_t zb_immediate(zb_exec *x, ze_command_queue_mode_t mode) {
    ze_command_queue_desc_t desc = {ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, NULL, x->compute_ordinal, 0, 0, mode,
                                    ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
    ze_command_list_handle_t list = NULL;
    zb_check(zeCommandListCreateImmediate(x->context, x->device, &desc, &list), "zeCommandListCreateImmediate");
    return list;
}

__attribute__((noinline)) static void zb_empty(void *arg) {
    __asm__ volatile("" ::"r"(arg) : "memory");
}
static void (*volatile zb_empty_ptr)(void *) = zb_empty;

static void zb_call_body(void *state, uint64_t n) {
    for (uint64_t i = 0; i < n; i++)
        zb_empty_ptr(state);
}

/* The baseline of the host-side rows: an empty call through a function pointer (median of several runs). */
static double zb_baseline_call_ns(uint64_t n) {
    return zb_measure_ns(zb_call_body, &n, n);
}

/* Runs of what a row compares, one after the other and again (the machine may be shared): the median of each. */
#define ZB_ROUNDS 5

/* ns of `body` per iteration and, into *base_ns, of an empty indirect call: runs of both alternated, medians. */
static double zb_versus_call_ns(zb_body body, void *state, uint64_t n, double *base_ns) {
    double subject[ZB_MEASURE_REPEATS], base[ZB_MEASURE_REPEATS];
    body(state, n / 10 + 1);
    for (int r = 0; r < ZB_MEASURE_REPEATS; r++) {
        uint64_t start = zb_now_ns();
        zb_call_body(&n, n);
        base[r] = (double)(zb_now_ns() - start) / (double)n;
        start = zb_now_ns();
        body(state, n);
        subject[r] = (double)(zb_now_ns() - start) / (double)n;
    }
    *base_ns = zb_median(base, ZB_MEASURE_REPEATS);
    return zb_median(subject, ZB_MEASURE_REPEATS);
}

/* ---- host-side calls ---- */

static void zb_query_body(void *state, uint64_t n) {
    ze_event_handle_t event = state;
    for (uint64_t i = 0; i < n; i++)
        if (zeEventQueryStatus(event) != ZE_RESULT_SUCCESS)
            zb_fail("zeEventQueryStatus", "a signalled event is not reported signalled");
}

static void zb_bench_query(zb_exec *x, uint64_t n) {
    ze_event_pool_desc_t pdesc = {ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, NULL, ZE_EVENT_POOL_FLAG_HOST_VISIBLE, 1};
    ze_event_pool_handle_t pool = NULL;
    zb_check(zeEventPoolCreate(x->context, &pdesc, 1, &x->device, &pool), "zeEventPoolCreate");
    ze_event_desc_t edesc = {ZE_STRUCTURE_TYPE_EVENT_DESC, NULL, 0, 0, 0};
    ze_event_handle_t event = NULL;
    zb_check(zeEventCreate(pool, &edesc, &event), "zeEventCreate");
    zb_check(zeEventHostSignal(event), "zeEventHostSignal");
    double base = 0;
    double ns = zb_versus_call_ns(zb_query_body, event, n, &base);
    printf("zeEventQueryStatus of a signalled event: %.1f ns, ratio %.1f to an indirect call (%.2f ns; goal <= 6)\n",
           ns, ns / base, base);
    zb_check(zeEventDestroy(event), "zeEventDestroy");
    zb_check(zeEventPoolDestroy(pool), "zeEventPoolDestroy");
}

static void zb_barrier_reset_body(void *state, uint64_t n) {
    ze_command_list_handle_t list = state;
    for (uint64_t i = 0; i < n; i++) {
        zb_check(zeCommandListAppendBarrier(list, NULL, 0, NULL), "zeCommandListAppendBarrier");
        zb_check(zeCommandListReset(list), "zeCommandListReset");
    }
}

static void zb_bench_barrier_reset(zb_exec *x, uint64_t n) {
    ze_command_list_desc_t desc = {ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC, NULL, x->compute_ordinal, 0};
    ze_command_list_handle_t list = NULL;
    zb_check(zeCommandListCreate(x->context, x->device, &desc, &list), "zeCommandListCreate");
    double base = 0;
    double ns = zb_versus_call_ns(zb_barrier_reset_body, list, n, &base);
    printf("zeCommandListAppendBarrier + zeCommandListReset: %.1f ns, ratio %.1f to an indirect call (%.2f ns; goal <= "
           "15)\n",
           ns, ns / base, base);
    zb_check(zeCommandListDestroy(list), "zeCommandListDestroy");
}

/* ---- launches ---- */

static ze_kernel_handle_t zb_empty_kernel(zb_exec *x, ze_module_handle_t *module) {
    char path[1024];
    const char *dir = getenv("ZB_KERNEL_DIR");
    snprintf(path, sizeof path, "%s/empty.spv", dir != NULL ? dir : ".");
    FILE *file = fopen(path, "rb");
    if (file == NULL) {
        fprintf(stderr, "zefake-bench-exec: cannot open %s (set ZB_KERNEL_DIR)\n", path);
        exit(EXIT_FAILURE);
    }
    static uint8_t spirv[1 << 16];
    size_t size = fread(spirv, 1, sizeof spirv, file);
    fclose(file);
    ze_module_desc_t desc = {ZE_STRUCTURE_TYPE_MODULE_DESC, NULL, ZE_MODULE_FORMAT_IL_SPIRV, size, spirv, NULL, NULL};
    zb_check(zeModuleCreate(x->context, x->device, &desc, module, NULL), "zeModuleCreate");
    ze_kernel_desc_t kdesc = {ZE_STRUCTURE_TYPE_KERNEL_DESC, NULL, 0, "empty"};
    ze_kernel_handle_t kernel = NULL;
    zb_check(zeKernelCreate(*module, &kdesc, &kernel), "zeKernelCreate");
    void *null_pointer = NULL;
    zb_check(zeKernelSetArgumentValue(kernel, 0, sizeof null_pointer, &null_pointer), "zeKernelSetArgumentValue");
    zb_check(zeKernelSetGroupSize(kernel, 1, 1, 1), "zeKernelSetGroupSize");
    return kernel;
}

/* Waits for everything appended to an immediate list: a barrier signals `done`. */
static void zb_drain(ze_command_list_handle_t list, ze_event_handle_t done) {
    zb_check(zeCommandListAppendBarrier(list, done, 0, NULL), "zeCommandListAppendBarrier");
    zb_check(zeEventHostSynchronize(done, UINT64_MAX), "zeEventHostSynchronize");
    zb_check(zeEventHostReset(done), "zeEventHostReset");
}

/* ns per launch of `n` empty-kernel launches through an immediate list of `mode`, the wait for them included; with
 * `signal_each`, every launch signals an event (as a runtime that hands out an event per kernel does). */
static double zb_launch_ns(zb_exec *x, ze_kernel_handle_t kernel, ze_command_queue_mode_t mode, uint64_t n,
                           bool signal_each) {
    ze_event_pool_desc_t pdesc = {ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, NULL, ZE_EVENT_POOL_FLAG_HOST_VISIBLE, 2};
    ze_event_pool_handle_t pool = NULL;
    zb_check(zeEventPoolCreate(x->context, &pdesc, 1, &x->device, &pool), "zeEventPoolCreate");
    ze_event_desc_t edesc = {ZE_STRUCTURE_TYPE_EVENT_DESC, NULL, 0, 0, 0};
    ze_event_handle_t done = NULL, each = NULL;
    zb_check(zeEventCreate(pool, &edesc, &done), "zeEventCreate");
    edesc.index = 1;
    zb_check(zeEventCreate(pool, &edesc, &each), "zeEventCreate");
    ze_event_handle_t signal = signal_each ? each : NULL;
    ze_command_list_handle_t list = zb_immediate(x, mode);
    ze_group_count_t groups = {1, 1, 1};
    zb_check(zeCommandListAppendLaunchKernel(list, kernel, &groups, NULL, 0, NULL), "warm-up launch");
    zb_drain(list, done);
    uint64_t start = zb_now_ns();
    for (uint64_t i = 0; i < n; i++)
        zb_check(zeCommandListAppendLaunchKernel(list, kernel, &groups, signal, 0, NULL), "launch");
    zb_drain(list, done);
    double ns = (double)(zb_now_ns() - start) / (double)n;
    zb_check(zeCommandListDestroy(list), "zeCommandListDestroy");
    zb_check(zeEventDestroy(each), "zeEventDestroy");
    zb_check(zeEventDestroy(done), "zeEventDestroy");
    zb_check(zeEventPoolDestroy(pool), "zeEventPoolDestroy");
    return ns;
}

#ifdef ZB_OPENCL
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

/* PoCL's platform, found by name among those libOpenCL's ICD loader offers; NULL when it is not installed. */
static cl_platform_id zb_pocl_platform(void) {
    cl_platform_id platforms[16];
    cl_uint count = 0;
    if (clGetPlatformIDs(16, platforms, &count) != CL_SUCCESS)
        return NULL;
    for (cl_uint i = 0; i < count && i < 16; i++) {
        char name[256] = "";
        clGetPlatformInfo(platforms[i], CL_PLATFORM_NAME, sizeof name, name, NULL);
        if (strstr(name, "Portable Computing Language") != NULL || strstr(name, "PoCL") != NULL ||
            strstr(name, "pocl") != NULL)
            return platforms[i];
    }
    return NULL;
}

static const char zb_empty_source[] = "kernel void empty(global int *unused) {}";

/* ns per enqueue of `n` launches of the same empty kernel on PoCL's in-order queue, clFinish included; 0 (with the
 * reason printed) when PoCL cannot run it. */
static double zb_pocl_launch_ns(uint64_t n, bool say) {
    cl_platform_id platform = zb_pocl_platform();
    cl_device_id device = NULL;
    if (platform == NULL || clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL) != CL_SUCCESS) {
        if (say)
            printf("PoCL comparison skipped: no PoCL platform through libOpenCL (apt-get install pocl-opencl-icd)\n");
        return 0;
    }
    cl_int err = CL_SUCCESS;
    cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    cl_command_queue queue = err == CL_SUCCESS ? clCreateCommandQueue(context, device, 0, &err) : NULL;
    const char *source = zb_empty_source;
    cl_program program = err == CL_SUCCESS ? clCreateProgramWithSource(context, 1, &source, NULL, &err) : NULL;
    if (err == CL_SUCCESS)
        err = clBuildProgram(program, 1, &device, "", NULL, NULL);
    cl_kernel kernel = err == CL_SUCCESS ? clCreateKernel(program, "empty", &err) : NULL;
    cl_mem none = NULL;
    if (err == CL_SUCCESS)
        err = clSetKernelArg(kernel, 0, sizeof none, &none);
    size_t one = 1;
    double ns = 0;
    if (err == CL_SUCCESS) {
        err = clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &one, &one, 0, NULL, NULL); /* warm-up */
        clFinish(queue);
        uint64_t start = zb_now_ns();
        for (uint64_t i = 0; i < n && err == CL_SUCCESS; i++)
            err = clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &one, &one, 0, NULL, NULL);
        clFinish(queue);
        ns = (double)(zb_now_ns() - start) / (double)n;
    }
    if (err != CL_SUCCESS) {
        if (say)
            printf("PoCL comparison skipped: OpenCL error %d\n", (int)err);
        ns = 0;
    }
    if (kernel != NULL)
        clReleaseKernel(kernel);
    if (program != NULL)
        clReleaseProgram(program);
    if (queue != NULL)
        clReleaseCommandQueue(queue);
    if (context != NULL)
        clReleaseContext(context);
    return ns;
}
#else
static double zb_pocl_launch_ns(uint64_t n, bool say) {
    (void)n;
    if (say)
        printf("PoCL comparison skipped: the build found no OpenCL (apt-get install ocl-icd-opencl-dev "
               "pocl-opencl-icd, then re-run cmake)\n");
    return 0;
}
#endif

static void zb_bench_launch(zb_exec *x, uint64_t n, bool quick) {
    ze_module_handle_t module = NULL;
    ze_kernel_handle_t kernel = zb_empty_kernel(x, &module);
    double base = zb_baseline_call_ns(n * 100);
    double async[ZB_ROUNDS], evented[ZB_ROUNDS], sync[ZB_ROUNDS], pocl[ZB_ROUNDS];
    int rounds = quick ? 1 : ZB_ROUNDS;
    for (int r = 0; r < rounds; r++) {
        async[r] = zb_launch_ns(x, kernel, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS, n, false);
        evented[r] = zb_launch_ns(x, kernel, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS, n, true);
        sync[r] = zb_launch_ns(x, kernel, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS, n, false);
        pocl[r] = zb_pocl_launch_ns(n, r == 0);
    }
    double async_ns = zb_median(async, rounds), evented_ns = zb_median(evented, rounds);
    double sync_ns = zb_median(sync, rounds), pocl_ns = zb_median(pocl, rounds);
    printf("empty kernel launch through an immediate list: %.0f ns per launch (%.0f launches/s), ratio %.0f to an "
           "empty call (%.2f ns)\n",
           async_ns, 1e9 / async_ns, async_ns / base, base);
    if (pocl_ns > 0)
        printf("empty kernel launch rate, asynchronous immediate list: %.0f launches/s, ratio %.2f to PoCL's enqueue "
               "rate (%.0f launches/s; goal >= 2)\n",
               1e9 / async_ns, pocl_ns / async_ns, 1e9 / pocl_ns);
    printf("empty kernel launch through a synchronous immediate list: %.0f ns per launch, ratio %.2f to the "
           "asynchronous launch (goal <= 2)\n",
           sync_ns, sync_ns / async_ns);
    printf("empty kernel launch signalling an event each, asynchronous immediate list: %.0f ns per launch, ratio %.2f "
           "to the launch without\n",
           evented_ns, evented_ns / async_ns);
    zb_check(zeKernelDestroy(kernel), "zeKernelDestroy");
    zb_check(zeModuleDestroy(module), "zeModuleDestroy");
}

/* ---- copies ---- */

/* ns per copy through a synchronous immediate list and, into *memcpy_ns, by memcpy: batches of `rounds` copies of
 * each, alternated, the median batch of each. */
static double zb_copy_ns(zb_exec *x, void *dst, const void *src, size_t size, int rounds, double *memcpy_ns) {
    ze_command_list_handle_t list = zb_immediate(x, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
    zb_check(zeCommandListAppendMemoryCopy(list, dst, src, size, NULL, 0, NULL), "warm-up copy");
    double driver[ZB_ROUNDS], host[ZB_ROUNDS];
    for (int b = 0; b < ZB_ROUNDS; b++) {
        uint64_t start = zb_now_ns();
        for (int r = 0; r < rounds; r++)
            zb_check(zeCommandListAppendMemoryCopy(list, dst, src, size, NULL, 0, NULL), "copy");
        driver[b] = (double)(zb_now_ns() - start) / rounds;
        start = zb_now_ns();
        for (int r = 0; r < rounds; r++) {
            memcpy(dst, src, size);
            __asm__ volatile("" ::"r"(dst) : "memory");
        }
        host[b] = (double)(zb_now_ns() - start) / rounds;
    }
    *memcpy_ns = zb_median(host, ZB_ROUNDS);
    zb_check(zeCommandListDestroy(list), "zeCommandListDestroy");
    return zb_median(driver, ZB_ROUNDS);
}

static void zb_bench_copy(zb_exec *x, size_t size, int rounds, bool to_device) {
    ze_device_mem_alloc_desc_t ddesc = {ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, NULL, 0, 0};
    ze_host_mem_alloc_desc_t hdesc = {ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, NULL, 0};
    void *device = NULL, *host = NULL;
    zb_check(zeMemAllocDevice(x->context, &ddesc, size, 64, x->device, &device), "zeMemAllocDevice");
    zb_check(zeMemAllocHost(x->context, &hdesc, size, 64, &host), "zeMemAllocHost");
    memset(host, 1, size);
    double memcpy_ns = 0;
    double driver_ns = to_device ? zb_copy_ns(x, device, host, size, rounds, &memcpy_ns)
                                 : zb_copy_ns(x, host, device, size, rounds, &memcpy_ns);
    if (to_device)
        printf("host-to-device copy of %zu MiB through a synchronous immediate list: %.2f GB/s, %.0f %% of memcpy "
               "(%.2f GB/s; goal >= 80 %%)\n",
               size >> 20, (double)size / driver_ns, 100 * memcpy_ns / driver_ns, (double)size / memcpy_ns);
    else
        printf("memory copy of %zu MiB through a synchronous immediate list: %.2f GB/s, ratio %.2f to memcpy (%.2f "
               "GB/s)\n",
               size >> 20, (double)size / driver_ns, driver_ns / memcpy_ns, (double)size / memcpy_ns);
    zb_check(zeMemFree(x->context, device), "zeMemFree");
    zb_check(zeMemFree(x->context, host), "zeMemFree");
}

/* Ping-pong: the main thread signals `ping` and waits for `pong`; the partner does the opposite. */
typedef struct zb_pingpong {
    ze_event_handle_t ping, pong;
    uint64_t rounds;
} zb_pingpong;

static void *zb_partner(void *arg) {
    zb_pingpong *p = arg;
    for (uint64_t i = 0; i < p->rounds; i++) {
        zeEventHostSynchronize(p->ping, UINT64_MAX);
        zeEventHostReset(p->ping);
        zeEventHostSignal(p->pong);
    }
    return NULL;
}

typedef struct zb_condpong {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int turn; /* 0: main's turn to ping, 1: partner's */
    uint64_t rounds;
} zb_condpong;

static void *zb_cond_partner(void *arg) {
    zb_condpong *p = arg;
    pthread_mutex_lock(&p->lock);
    for (uint64_t i = 0; i < p->rounds; i++) {
        while (p->turn != 1)
            pthread_cond_wait(&p->cond, &p->lock);
        p->turn = 0;
        pthread_cond_broadcast(&p->cond);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

static double zb_cond_round_trip_ns(uint64_t rounds) {
    zb_condpong p = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, rounds};
    pthread_t thread;
    pthread_create(&thread, NULL, zb_cond_partner, &p);
    uint64_t start = zb_now_ns();
    pthread_mutex_lock(&p.lock);
    for (uint64_t i = 0; i < rounds; i++) {
        p.turn = 1;
        pthread_cond_broadcast(&p.cond);
        while (p.turn != 0)
            pthread_cond_wait(&p.cond, &p.lock);
    }
    pthread_mutex_unlock(&p.lock);
    double ns = (double)(zb_now_ns() - start) / (double)rounds;
    pthread_join(thread, NULL);
    return ns;
}

static void zb_bench_event_latency(zb_exec *x, uint64_t rounds) {
    ze_event_pool_desc_t pdesc = {ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, NULL, ZE_EVENT_POOL_FLAG_HOST_VISIBLE, 2};
    ze_event_pool_handle_t pool = NULL;
    zb_check(zeEventPoolCreate(x->context, &pdesc, 1, &x->device, &pool), "zeEventPoolCreate");
    zb_pingpong p = {NULL, NULL, rounds};
    ze_event_desc_t edesc = {ZE_STRUCTURE_TYPE_EVENT_DESC, NULL, 0, 0, 0};
    zb_check(zeEventCreate(pool, &edesc, &p.ping), "zeEventCreate");
    edesc.index = 1;
    zb_check(zeEventCreate(pool, &edesc, &p.pong), "zeEventCreate");
    double base = zb_cond_round_trip_ns(rounds);
    pthread_t thread;
    pthread_create(&thread, NULL, zb_partner, &p);
    uint64_t start = zb_now_ns();
    for (uint64_t i = 0; i < rounds; i++) {
        zeEventHostSignal(p.ping);
        zeEventHostSynchronize(p.pong, UINT64_MAX);
        zeEventHostReset(p.pong);
    }
    double ns = (double)(zb_now_ns() - start) / (double)rounds;
    pthread_join(thread, NULL);
    printf("event signal -> host wake-up round trip: %.0f ns, ratio %.2f to a mutex/condition-variable round trip "
           "(%.0f ns)\n",
           ns, ns / base, base);
    zb_check(zeEventDestroy(p.ping), "zeEventDestroy");
    zb_check(zeEventDestroy(p.pong), "zeEventDestroy");
    zb_check(zeEventPoolDestroy(pool), "zeEventPoolDestroy");
}

int main(int argc, char **argv) {
    int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    zb_exec x;
    setenv("ZEFAKE_CLOCK", "modelled", 0);
    printf("device clock: %s (ZEFAKE_CLOCK)\n", getenv("ZEFAKE_CLOCK"));
    zb_setup(&x);
    zb_bench_query(&x, quick ? 20000 : 2000000);
    zb_bench_barrier_reset(&x, quick ? 20000 : 1000000);
    zb_bench_launch(&x, quick ? 2000 : 100000, quick);
    zb_bench_copy(&x, 1u << 20, quick ? 4 : 400, true);
    zb_bench_copy(&x, quick ? (4u << 20) : (64u << 20), quick ? 1 : 4, false);
    zb_bench_event_latency(&x, quick ? 500 : 20000);
    zb_check(zeContextDestroy(x.context), "zeContextDestroy");
    return EXIT_SUCCESS;
}
