/* Execution through the loader into the fake, each as a ratio to a baseline measured in the same run:
 *   - launches of an empty kernel through an asynchronous immediate list, per launch, vs an empty indirect call;
 *   - a 64 MiB device-to-host memory copy through a synchronous immediate list vs memcpy of the same size;
 *   - event signal -> host wake-up latency (one thread signals with zeEventHostSignal, another waits in
 *     zeEventHostSynchronize, ping-pong) vs the same ping-pong with a pthread mutex and condition variable.
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

static double zb_baseline_call_ns(uint64_t n) {
    uint64_t start = zb_now_ns();
    for (uint64_t i = 0; i < n; i++)
        zb_empty_ptr(&n);
    return (double)(zb_now_ns() - start) / (double)n;
}

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

static void zb_bench_launch(zb_exec *x, uint64_t n) {
    ze_module_handle_t module = NULL;
    ze_kernel_handle_t kernel = zb_empty_kernel(x, &module);
    ze_command_list_handle_t list = zb_immediate(x, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_group_count_t groups = {1, 1, 1};
    double base = zb_baseline_call_ns(n * 100);
    uint64_t start = zb_now_ns();
    for (uint64_t i = 0; i < n; i++)
        zb_check(zeCommandListAppendLaunchKernel(list, kernel, &groups, NULL, 0, NULL), "launch");
    zb_check(zeCommandListDestroy(list), "zeCommandListDestroy"); /* waits for the launches to finish */
    double per_launch = (double)(zb_now_ns() - start) / (double)n;
    printf("empty kernel launch through an immediate list: %.0f ns per launch (%.0f launches/s), ratio %.0f to an "
           "empty call (%.2f ns)\n",
           per_launch, 1e9 / per_launch, per_launch / base, base);
    zb_check(zeKernelDestroy(kernel), "zeKernelDestroy");
    zb_check(zeModuleDestroy(module), "zeModuleDestroy");
}

static void zb_bench_copy(zb_exec *x, size_t size, int rounds) {
    ze_device_mem_alloc_desc_t ddesc = {ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, NULL, 0, 0};
    ze_host_mem_alloc_desc_t hdesc = {ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, NULL, 0};
    void *device = NULL, *host = NULL;
    zb_check(zeMemAllocDevice(x->context, &ddesc, size, 64, x->device, &device), "zeMemAllocDevice");
    zb_check(zeMemAllocHost(x->context, &hdesc, size, 64, &host), "zeMemAllocHost");
    memset(host, 1, size);
    ze_command_list_handle_t list = zb_immediate(x, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
    zb_check(zeCommandListAppendMemoryCopy(list, device, host, size, NULL, 0, NULL), "warm-up copy");
    uint64_t start = zb_now_ns();
    for (int r = 0; r < rounds; r++)
        zb_check(zeCommandListAppendMemoryCopy(list, host, device, size, NULL, 0, NULL), "copy");
    double driver_ns = (double)(zb_now_ns() - start) / rounds;
    start = zb_now_ns();
    for (int r = 0; r < rounds; r++) {
        memcpy(host, device, size);
        __asm__ volatile("" ::"r"(host) : "memory");
    }
    double memcpy_ns = (double)(zb_now_ns() - start) / rounds;
    printf("memory copy of %zu MiB through a synchronous immediate list: %.2f GB/s, ratio %.2f to memcpy (%.2f GB/s)\n",
           size >> 20, (double)size / driver_ns, driver_ns / memcpy_ns, (double)size / memcpy_ns);
    zb_check(zeCommandListDestroy(list), "zeCommandListDestroy");
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
    zb_setup(&x);
    zb_bench_launch(&x, quick ? 2000 : 200000);
    zb_bench_copy(&x, quick ? (4u << 20) : (64u << 20), quick ? 2 : 10);
    zb_bench_event_latency(&x, quick ? 500 : 20000);
    zb_check(zeContextDestroy(x.context), "zeContextDestroy");
    return EXIT_SUCCESS;
}
