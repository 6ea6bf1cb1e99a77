/* Conformance: the XPTI emitter (layers/xpti, libzexpti.so) with our dispatcher and the suite's test subscriber
 * (docs/xpti.md). Each test runs a workload in a child process set up as a user would trace an unmodified
 * application: LD_PRELOAD of the emitter, ZE_ENABLE_TRACING_LAYER=1 (with our tracing layer first in
 * LD_LIBRARY_PATH, or the stock one: ZC_XPTI_STOCK_LAYER), XPTI_FRAMEWORK_DISPATCHER and XPTI_SUBSCRIBERS. The
 * child prints what the test subscriber saw (key=value lines) next to what the workload did; the test compares.
 * No test asserts anything about time. */
#include "zc_harness.h"
#include "zc_kernel_files.h"
#include "zexpti.h"
#include "zx_functions.h"
#include "zx_test_subscriber.h"
#include "zx_xpti.h"

#include <dlfcn.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if !defined(ZC_XPTI_EMITTER) || !defined(ZC_XPTI_DISPATCHER) || !defined(ZC_XPTI_TEST_SUBSCRIBER) ||                  \
    !defined(ZC_XPTI_TIMELINE) || !defined(ZC_XPTI_INCOMPLETE_SUBSCRIBER) || !defined(ZC_OUR_LAYER_DIR) ||             \
    !defined(ZC_XPTI_PRELOAD_PREFIX) || !defined(ZC_RESULTS_DIR)
#error "the XPTI libraries, the tracing layer's directory, the preload prefix and the results directory are required"
#endif
#ifndef ZC_XPTI_STOCK_LAYER
#define ZC_XPTI_STOCK_LAYER 0
#endif

/* ------------------------------------------------------------------------------------------------------------------
 * Child environments */

typedef struct zc_env {
    char preload[4096];
    char library_path[8192];
    char dispatcher[4096];
    char subscribers[8192];
    const char *vars[24];
    size_t count;
} zc_env;

static void zc_env_add(zc_env *env, const char *var) {
    if (env->count + 1 < ZC_COUNT(env->vars))
        env->vars[env->count++] = var;
    env->vars[env->count] = NULL;
}

/* The traced set-up: emitter preloaded (after the sanitizer runtime of a sanitized build), the tracing layer, our
 * dispatcher, the given subscribers (NULL: none), any XPTI_TRACE_ENABLE of the caller removed. */
static void zc_env_traced(zc_env *env, const char *subscribers, bool preload) {
    memset(env, 0, sizeof *env);
    const char *prefix = ZC_XPTI_PRELOAD_PREFIX;
    snprintf(env->preload, sizeof env->preload, "LD_PRELOAD=%s%s%s", prefix, *prefix != '\0' ? " " : "",
             preload ? ZC_XPTI_EMITTER : "");
    zc_env_add(env, env->preload);
    zc_env_add(env, "ZE_ENABLE_TRACING_LAYER=1");
    if (!ZC_XPTI_STOCK_LAYER) {
        const char *old = getenv("LD_LIBRARY_PATH");
        snprintf(env->library_path, sizeof env->library_path, "LD_LIBRARY_PATH=%s%s%s", ZC_OUR_LAYER_DIR,
                 old != NULL && *old != '\0' ? ":" : "", old != NULL ? old : "");
        zc_env_add(env, env->library_path);
    }
    snprintf(env->dispatcher, sizeof env->dispatcher, "XPTI_FRAMEWORK_DISPATCHER=%s", ZC_XPTI_DISPATCHER);
    zc_env_add(env, env->dispatcher);
    if (subscribers != NULL) {
        snprintf(env->subscribers, sizeof env->subscribers, "XPTI_SUBSCRIBERS=%s", subscribers);
        zc_env_add(env, env->subscribers);
    } else {
        zc_env_add(env, "XPTI_SUBSCRIBERS");
    }
    zc_env_add(env, "XPTI_TRACE_ENABLE");
    zc_env_add(env, "ZX_TS_STREAMS");
    zc_env_add(env, "ZX_TS_OLD_END");
}

/* Runs `workload` traced; the child must exit with 0. */
static void zc_run_workload(const char *workload, zc_env *env, zc_child *child) {
    const char *args[] = {workload, NULL};
    assert_true(zc_run_child_mode("workload", args, env->vars, ZC_CHILD_TIMEOUT_MS, child));
    zc_assert_child_ok(child, workload);
}

static void zc_expect(const zc_child *child, const char *key, uint64_t expected) {
    uint64_t got = zc_child_number(child, key);
    if (got != expected)
        zc_fail("%s=%" PRIu64 ", expected %" PRIu64 "\nchild output:\n%s\nchild stderr:\n%s", key, got, expected,
                child->out, child->err);
}

static void zc_expect_text(const zc_child *child, const char *key, const char *expected) {
    char value[512];
    if (!zc_child_value(child, key, value, sizeof value) || strcmp(value, expected) != 0)
        zc_fail("%s is '%s', expected '%s'\nchild output:\n%s", key, value, expected, child->out);
}

/* Two keys with the same value (what the workload did and what the subscriber saw). */
static void zc_expect_same(const zc_child *child, const char *key, const char *other) {
    char a[512] = "", b[512] = "";
    bool got_a = zc_child_value(child, key, a, sizeof a);
    bool got_b = zc_child_value(child, other, b, sizeof b);
    if (!got_a || !got_b || strcmp(a, b) != 0)
        zc_fail("%s='%s' but %s='%s'\nchild output:\n%s", key, a, other, b, child->out);
}

/* ------------------------------------------------------------------------------------------------------------------
 * The workloads (child side) */

/* The workload's own list of the Level Zero calls it makes, in order, with the calling thread: ZC_SEQ(fn, args...)
 * lists `fn` (the identifier called, stringified: nothing comes from the emitter's tables) and then calls it. Calls
 * that ZC_EXPECT_ARGS precedes also carry the argument values a probe must read through the debug stream's
 * args_data at begin. Only the main thread lists calls, or a thread it joins before listing more. */
#define ZC_SEQ_MAX  32
#define ZC_SEQ_ARGS 6

typedef struct zc_seq_entry {
    const char *name;
    uint64_t thread;
    uint32_t arg_count; /* 0: no expectation */
    uint64_t args[ZC_SEQ_ARGS];
} zc_seq_entry;

static zc_seq_entry zc_seq[ZC_SEQ_MAX];
static unsigned zc_seq_count;
static zc_seq_entry zc_seq_pending; /* the argument expectation for the next listed call */

static void zc_seq_add(const char *name) {
    if (zc_seq_count < ZC_SEQ_MAX) {
        zc_seq[zc_seq_count] = zc_seq_pending;
        zc_seq[zc_seq_count].name = name;
        zc_seq[zc_seq_count].thread = (uint64_t)gettid();
    }
    zc_seq_count++;
    zc_seq_pending = (zc_seq_entry){0};
}

static void zc_seq_expect(const uint64_t *values, size_t count) {
    zc_seq_pending.arg_count = (uint32_t)(count < ZC_SEQ_ARGS ? count : ZC_SEQ_ARGS);
    memcpy(zc_seq_pending.args, values, zc_seq_pending.arg_count * sizeof *values);
}

#define ZC_SEQ(fn, ...) (zc_seq_add(#fn), fn(__VA_ARGS__))
#define ZC_EXPECT_ARGS(...)                                                                                            \
    zc_seq_expect((const uint64_t[]){__VA_ARGS__}, sizeof((const uint64_t[]){__VA_ARGS__}) / sizeof(uint64_t))
#define ZC_U64(x) ((uint64_t)(uintptr_t)(x))

typedef struct zc_l0 {
    ze_driver_handle_t driver;
    ze_device_handle_t device;
    ze_context_handle_t context;
} zc_l0;

static bool zc_l0_open(zc_l0 *l0) {
    uint32_t count = 1;
    ze_context_desc_t desc = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0};
    if (ZC_SEQ(zeInit, 0) != ZE_RESULT_SUCCESS || ZC_SEQ(zeDriverGet, &count, &l0->driver) != ZE_RESULT_SUCCESS ||
        count == 0)
        return false;
    count = 1;
    return ZC_SEQ(zeDeviceGet, l0->driver, &count, &l0->device) == ZE_RESULT_SUCCESS && count == 1 &&
           ZC_SEQ(zeContextCreate, l0->driver, &desc, &l0->context) == ZE_RESULT_SUCCESS;
}

#define ZC_CHECK(call)                                                                                                 \
    do {                                                                                                               \
        ze_result_t zc_r = (call);                                                                                     \
        if (zc_r != ZE_RESULT_SUCCESS) {                                                                               \
            fprintf(stderr, "%s:%d: %s gave 0x%x\n", __FILE__, __LINE__, #call, (unsigned)zc_r);                       \
            return 1;                                                                                                  \
        }                                                                                                              \
    } while (0)

/* Calls with known arguments and results: the debug stream's params and results are compared with these. */
static int zc_work_basic(zc_l0 *l0) {
    ze_device_properties_t props = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
    ZC_CHECK(zeDeviceGetProperties(l0->device, &props));
    printf("expect.props_device=%" PRIu64 "\nexpect.props_pointer=%" PRIu64 "\n", (uint64_t)(uintptr_t)l0->device,
           (uint64_t)(uintptr_t)&props);
    zx_ts_call_record r;
    zx_ts_last_call_fn last = NULL;
    void *subscriber = dlopen(ZC_XPTI_TEST_SUBSCRIBER, RTLD_NOLOAD | RTLD_LAZY);
    if (subscriber != NULL)
        *(void **)&last = dlsym(subscriber, ZX_TS_LAST_CALL);
    if (last != NULL && last(ZX_FN_zeDeviceGetProperties, &r))
        printf("seen.props_device=%" PRIu64 "\nseen.props_pointer=%" PRIu64 "\nseen.props_result=%d\n", r.args[0],
               r.args[1], r.result);
    ze_result_t bad = zeDeviceGetProperties(l0->device, NULL);
    printf("expect.bad_result=%d\n", (int)bad);
    if (last != NULL && last(ZX_FN_zeDeviceGetProperties, &r))
        printf("seen.bad_result=%d\nseen.bad_pointer=%" PRIu64 "\nseen.props_calls=%u\n", r.result, r.args[1], r.calls);
    void *memory = NULL;
    ze_device_mem_alloc_desc_t desc = {ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, NULL, 0, 0};
    ZC_CHECK(zeMemAllocDevice(l0->context, &desc, 3000, 64, l0->device, &memory));
    if (last != NULL && last(ZX_FN_zeMemAllocDevice, &r))
        printf("seen.alloc_size=%" PRIu64 "\nseen.alloc_alignment=%" PRIu64 "\nseen.alloc_out=%" PRIu64 "\n", r.args[2],
               r.args[3], r.args[5]);
    printf("expect.alloc_out=%" PRIu64 "\n", (uint64_t)(uintptr_t)&memory);
    ZC_CHECK(zeMemFree(l0->context, memory));
    return 0;
}

/* Allocations of every kind, one that fails, and their frees. */
static int zc_work_mem(zc_l0 *l0) {
    ze_host_mem_alloc_desc_t host = {ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, NULL, 0};
    ze_device_mem_alloc_desc_t dev = {ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, NULL, 0, 0};
    void *p[3] = {NULL, NULL, NULL};
    ZC_CHECK(zeMemAllocHost(l0->context, &host, 4096, 64, &p[0]));
    ZC_CHECK(zeMemAllocDevice(l0->context, &dev, 8192, 64, l0->device, &p[1]));
    ZC_CHECK(zeMemAllocShared(l0->context, &dev, &host, 12288, 64, l0->device, &p[2]));
    void *none = NULL;
    ze_result_t bad = zeMemAllocHost(l0->context, &host, 0, 64, &none); /* size 0: an error */
    printf("bad_alloc_failed=%d\n", bad != ZE_RESULT_SUCCESS);
    const uint64_t sizes[] = {4096, 8192, 12288};
    for (int i = 0; i < 3; i++) {
        printf("expect.alloc.%d=0x%" PRIx64 ":%" PRIu64 "\n", i, (uint64_t)(uintptr_t)p[i], sizes[i]);
        printf("expect.release.%d=0x%" PRIx64 ":%" PRIu64 "\n", i, (uint64_t)(uintptr_t)p[i], sizes[i]);
        ZC_CHECK(zeMemFree(l0->context, p[i]));
    }
    return 0;
}

/* The known graph: fill A (e0) -> copy A to B (waits e0, e1) -> vadd (waits e1, e2) -> barrier (waits e2), executed
 * twice on a queue; then a copy on an immediate list, waited for with its event. */
typedef struct zc_graph_objects {
    ze_event_pool_handle_t pool;
    ze_event_handle_t events[4];
    ze_module_handle_t module;
    ze_kernel_handle_t kernel;
    ze_command_queue_handle_t queue;
    ze_command_list_handle_t list;
    ze_command_list_handle_t immediate;
    int32_t *a, *b, *c;
} zc_graph_objects;

static int zc_graph_create(zc_l0 *l0, zc_graph_objects *g) {
    ze_event_pool_desc_t pool_desc = {ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, NULL, ZE_EVENT_POOL_FLAG_HOST_VISIBLE, 4};
    ZC_CHECK(zeEventPoolCreate(l0->context, &pool_desc, 1, &l0->device, &g->pool));
    for (uint32_t i = 0; i < 4; i++) {
        ze_event_desc_t desc = {ZE_STRUCTURE_TYPE_EVENT_DESC, NULL, i, ZE_EVENT_SCOPE_FLAG_HOST,
                                ZE_EVENT_SCOPE_FLAG_HOST};
        ZC_CHECK(zeEventCreate(g->pool, &desc, &g->events[i]));
    }
    ze_host_mem_alloc_desc_t host = {ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, NULL, 0};
    ZC_CHECK(zeMemAllocHost(l0->context, &host, 256, 64, (void **)&g->a));
    ZC_CHECK(zeMemAllocHost(l0->context, &host, 256, 64, (void **)&g->b));
    ZC_CHECK(zeMemAllocHost(l0->context, &host, 256, 64, (void **)&g->c));
    zc_spirv spirv = zc_load_spirv("vadd");
    ze_module_desc_t module_desc = {
        ZE_STRUCTURE_TYPE_MODULE_DESC, NULL, ZE_MODULE_FORMAT_IL_SPIRV, spirv.size, spirv.data, NULL, NULL};
    ze_result_t built = zeModuleCreate(l0->context, l0->device, &module_desc, &g->module, NULL);
    free(spirv.data);
    ZC_CHECK(built);
    ze_kernel_desc_t kernel_desc = {ZE_STRUCTURE_TYPE_KERNEL_DESC, NULL, 0, "vadd_int"};
    ZC_CHECK(zeKernelCreate(g->module, &kernel_desc, &g->kernel));
    ZC_CHECK(zeKernelSetGroupSize(g->kernel, 16, 1, 1));
    ZC_CHECK(zeKernelSetArgumentValue(g->kernel, 0, sizeof g->a, &g->a));
    ZC_CHECK(zeKernelSetArgumentValue(g->kernel, 1, sizeof g->b, &g->b));
    ZC_CHECK(zeKernelSetArgumentValue(g->kernel, 2, sizeof g->c, &g->c));
    ze_command_queue_desc_t queue_desc = {
        ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, NULL, 0, 0, 0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS,
        ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
    ZC_CHECK(zeCommandQueueCreate(l0->context, l0->device, &queue_desc, &g->queue));
    ze_command_list_desc_t list_desc = {ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC, NULL, 0, 0};
    ZC_CHECK(zeCommandListCreate(l0->context, l0->device, &list_desc, &g->list));
    ZC_CHECK(zeCommandListCreateImmediate(l0->context, l0->device, &queue_desc, &g->immediate));
    return 0;
}

static int zc_graph_record(zc_graph_objects *g) {
    const int pattern = 3;
    ze_group_count_t groups = {4, 1, 1};
    ze_event_handle_t *e = g->events;
    ZC_CHECK(zeCommandListAppendMemoryFill(g->list, g->a, &pattern, sizeof pattern, 256, e[0], 0, NULL));
    ZC_CHECK(zeCommandListAppendMemoryCopy(g->list, g->b, g->a, 256, e[1], 1, &e[0]));
    ZC_CHECK(zeCommandListAppendLaunchKernel(g->list, g->kernel, &groups, e[2], 1, &e[1]));
    ZC_CHECK(zeCommandListAppendBarrier(g->list, NULL, 1, &e[2]));
    ZC_CHECK(zeCommandListClose(g->list));
    return 0;
}

static int zc_graph_run(zc_graph_objects *g) {
    for (int round = 0; round < 2; round++) {
        for (int i = 0; i < 3; i++)
            ZC_CHECK(zeEventHostReset(g->events[i]));
        ZC_CHECK(zeCommandQueueExecuteCommandLists(g->queue, 1, &g->list, NULL));
        ZC_CHECK(zeCommandQueueSynchronize(g->queue, UINT64_MAX));
    }
    ZC_CHECK(zeCommandListAppendMemoryCopy(g->immediate, g->a, g->c, 256, g->events[3], 0, NULL));
    ZC_CHECK(zeEventHostSynchronize(g->events[3], UINT64_MAX));
    printf("vadd_result=%d\n", (int)g->c[5]);
    return 0;
}

static int zc_graph_destroy(zc_l0 *l0, zc_graph_objects *g) {
    ZC_CHECK(zeCommandListDestroy(g->immediate));
    ZC_CHECK(zeCommandListDestroy(g->list));
    ZC_CHECK(zeCommandQueueDestroy(g->queue));
    ZC_CHECK(zeKernelDestroy(g->kernel));
    ZC_CHECK(zeModuleDestroy(g->module));
    for (int i = 0; i < 4; i++)
        ZC_CHECK(zeEventDestroy(g->events[i]));
    ZC_CHECK(zeEventPoolDestroy(g->pool));
    ZC_CHECK(zeMemFree(l0->context, g->a));
    ZC_CHECK(zeMemFree(l0->context, g->b));
    ZC_CHECK(zeMemFree(l0->context, g->c));
    return 0;
}

static int zc_work_graph(zc_l0 *l0) {
    zc_graph_objects g = {0};
    if (zc_graph_create(l0, &g) != 0 || zc_graph_record(&g) != 0 || zc_graph_run(&g) != 0)
        return 1;
    return zc_graph_destroy(l0, &g);
}

#define ZC_THREADS      8
#define ZC_THREAD_CALLS 300

static void *zc_thread_calls(void *arg) {
    zc_l0 *l0 = arg;
    ze_host_mem_alloc_desc_t host = {ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, NULL, 0};
    for (int i = 0; i < ZC_THREAD_CALLS; i++) {
        ze_device_properties_t props = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
        zeDeviceGetProperties(l0->device, &props);
        void *p = NULL;
        if (i % 10 == 0 && zeMemAllocHost(l0->context, &host, 64, 64, &p) == ZE_RESULT_SUCCESS)
            zeMemFree(l0->context, p);
    }
    return NULL;
}

static int zc_work_threads(zc_l0 *l0) {
    pthread_t threads[ZC_THREADS];
    for (int i = 0; i < ZC_THREADS; i++) {
        if (pthread_create(&threads[i], NULL, zc_thread_calls, l0) != 0)
            return 1;
    }
    for (int i = 0; i < ZC_THREADS; i++)
        pthread_join(threads[i], NULL);
    printf("expect.props_calls=%d\nexpect.mem_pairs=%d\n", ZC_THREADS * ZC_THREAD_CALLS,
           ZC_THREADS * ZC_THREAD_CALLS / 10);
    return 0;
}

/* The sequence workload: a known list of calls (zc_l0_open's and zeContextDestroy included) on two threads, a
 * failing one among them, with the arguments of five of them. The probe reads those arguments with the headers'
 * own params types, at function_with_args_begin, while args_data is valid. */
typedef uint32_t (*zc_probe_fn)(const void *args, uint64_t *values);

static uint32_t zc_probe_device_props(const void *args, uint64_t *v) {
    const ze_device_get_properties_params_t *p = args;
    v[0] = ZC_U64(*p->phDevice);
    v[1] = ZC_U64(*p->ppDeviceProperties);
    return 2;
}

static uint32_t zc_probe_alloc_device(const void *args, uint64_t *v) {
    const ze_mem_alloc_device_params_t *p = args;
    v[0] = ZC_U64(*p->phContext);
    v[1] = ZC_U64(*p->pdevice_desc);
    v[2] = *p->psize;
    v[3] = *p->palignment;
    v[4] = ZC_U64(*p->phDevice);
    v[5] = ZC_U64(*p->ppptr);
    return 6;
}

static uint32_t zc_probe_copy(const void *args, uint64_t *v) {
    const ze_command_list_append_memory_copy_params_t *p = args;
    v[0] = ZC_U64(*p->phCommandList);
    v[1] = ZC_U64(*p->pdstptr);
    v[2] = ZC_U64(*p->psrcptr);
    v[3] = *p->psize;
    v[4] = ZC_U64(*p->phSignalEvent);
    v[5] = *p->pnumWaitEvents;
    return 6;
}

static uint32_t zc_probe_free(const void *args, uint64_t *v) {
    const ze_mem_free_params_t *p = args;
    v[0] = ZC_U64(*p->phContext);
    v[1] = ZC_U64(*p->pptr);
    return 2;
}

static uint32_t zc_probe_args(const char *function_name, const void *args_data, uint64_t *values, uint32_t max) {
    static const struct {
        const char *name;
        zc_probe_fn probe;
    } probes[] = {{"zeDeviceGetProperties", zc_probe_device_props},
                  {"zeMemAllocDevice", zc_probe_alloc_device},
                  {"zeCommandListAppendMemoryCopy", zc_probe_copy},
                  {"zeMemFree", zc_probe_free}};
    for (size_t i = 0; i < ZC_COUNT(probes) && max >= ZC_SEQ_ARGS; i++) {
        if (strcmp(function_name, probes[i].name) == 0)
            return probes[i].probe(args_data, values);
    }
    return 0;
}

typedef struct zc_seq_copy {
    zc_l0 *l0;
    void *dst, *src;
    int failed;
} zc_seq_copy;

static int zc_seq_copy_calls(zc_seq_copy *copy) {
    ze_command_queue_desc_t desc = {
        ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, NULL, 0, 0, 0, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS,
        ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
    ze_command_list_handle_t list = NULL;
    ZC_CHECK(ZC_SEQ(zeCommandListCreateImmediate, copy->l0->context, copy->l0->device, &desc, &list));
    ZC_EXPECT_ARGS(ZC_U64(list), ZC_U64(copy->dst), ZC_U64(copy->src), 256, 0, 0);
    ZC_CHECK(ZC_SEQ(zeCommandListAppendMemoryCopy, list, copy->dst, copy->src, 256, NULL, 0, NULL));
    ZC_CHECK(ZC_SEQ(zeCommandListDestroy, list));
    return 0;
}

static void *zc_seq_copy_thread(void *arg) {
    zc_seq_copy *copy = arg;
    copy->failed = zc_seq_copy_calls(copy);
    return NULL;
}

static int zc_work_sequence(zc_l0 *l0) {
    zx_ts_set_args_probe_fn set_probe = NULL;
    void *subscriber = dlopen(ZC_XPTI_TEST_SUBSCRIBER, RTLD_NOLOAD | RTLD_LAZY);
    if (subscriber != NULL)
        *(void **)&set_probe = dlsym(subscriber, ZX_TS_SET_ARGS_PROBE);
    if (set_probe != NULL)
        set_probe(zc_probe_args);
    ze_device_properties_t props = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
    ZC_EXPECT_ARGS(ZC_U64(l0->device), ZC_U64(&props));
    ZC_CHECK(ZC_SEQ(zeDeviceGetProperties, l0->device, &props));
    ZC_EXPECT_ARGS(ZC_U64(l0->device), 0);
    if (ZC_SEQ(zeDeviceGetProperties, l0->device, NULL) == ZE_RESULT_SUCCESS)
        return 1;
    ze_device_mem_alloc_desc_t dev_desc = {ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, NULL, 0, 0};
    ze_host_mem_alloc_desc_t host_desc = {ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, NULL, 0};
    void *dev = NULL, *host = NULL;
    ZC_EXPECT_ARGS(ZC_U64(l0->context), ZC_U64(&dev_desc), 3000, 64, ZC_U64(l0->device), ZC_U64(&dev));
    ZC_CHECK(ZC_SEQ(zeMemAllocDevice, l0->context, &dev_desc, 3000, 64, l0->device, &dev));
    ZC_CHECK(ZC_SEQ(zeMemAllocHost, l0->context, &host_desc, 4096, 64, &host));
    zc_seq_copy copy = {l0, dev, host, 1};
    pthread_t thread;
    if (pthread_create(&thread, NULL, zc_seq_copy_thread, &copy) != 0 || pthread_join(thread, NULL) != 0 ||
        copy.failed != 0)
        return 1;
    ZC_EXPECT_ARGS(ZC_U64(l0->context), ZC_U64(dev));
    ZC_CHECK(ZC_SEQ(zeMemFree, l0->context, dev));
    ZC_CHECK(ZC_SEQ(zeMemFree, l0->context, host));
    return 0;
}

/* The workload's list ("expect.seq.<i>=<function> <thread> <arguments>") and the subscriber's log of begins
 * ("begin.<i>=<type> <function id> <name> <instance> <thread> <values>"); "-" for no values. */
static void zc_print_values(const uint64_t *values, uint32_t count) {
    for (uint32_t i = 0; i < count; i++)
        printf("%s%" PRIu64, i > 0 ? "," : " ", values[i]);
    puts(count == 0 ? " -" : "");
}

static void zc_print_sequence(void) {
    printf("expect.seq_count=%u\n", zc_seq_count);
    for (unsigned i = 0; i < zc_seq_count && i < ZC_SEQ_MAX; i++) {
        printf("expect.seq.%u=%s %" PRIu64, i, zc_seq[i].name, zc_seq[i].thread);
        zc_print_values(zc_seq[i].args, zc_seq[i].arg_count);
    }
    zx_ts_begin_at_fn begin_at = NULL;
    void *subscriber = dlopen(ZC_XPTI_TEST_SUBSCRIBER, RTLD_NOLOAD | RTLD_LAZY);
    if (subscriber != NULL)
        *(void **)&begin_at = dlsym(subscriber, ZX_TS_BEGIN_AT);
    zx_ts_begin_record r;
    for (uint32_t i = 0; begin_at != NULL && begin_at(i, &r); i++) {
        printf("begin.%u=%u %u %s %" PRIu64 " %" PRIu64, i, r.type, r.function_id, r.name[0] ? r.name : "?", r.instance,
               r.thread);
        zc_print_values(r.values, r.probed);
    }
}

/* Whether the driver lists the zefake extension, which delivers ITT annotations: the emitter then offers a fifth
 * stream (docs/xpti.md). */
static bool zc_driver_has_fake_extension(const zc_l0 *l0) {
    ze_driver_extension_properties_t props[64];
    uint32_t count = ZC_COUNT(props);
    if (zeDriverGetExtensionProperties(l0->driver, &count, props) != ZE_RESULT_SUCCESS)
        return false;
    for (uint32_t i = 0; i < count && i < ZC_COUNT(props); i++) {
        if (strcmp(props[i].name, ZEFAKE_EXTENSION_NAME) == 0)
            return true;
    }
    return false;
}

/* ITT device annotations: spirv_itt.cl's `annotated` over ZC_ITT_ITEMS work-items in groups of ZC_ITT_GROUP, with
 * specialization constant 0xFF747469 set to `value` (as test_spirv_tools.c launches it). Each work-item takes each
 * of the six annotations once; the atomic ones name `counter`, operation 1 and order 5. */
#define ZC_ITT_SPEC_ID 0xFF747469u
#define ZC_ITT_ITEMS   128u
#define ZC_ITT_GROUP   32u

static int zc_itt_kernel(zc_l0 *l0, uint8_t value, ze_module_handle_t *module, ze_kernel_handle_t *kernel) {
    zc_spirv spirv = zc_load_spirv("spirv_itt");
    uint32_t id = ZC_ITT_SPEC_ID;
    const void *values[] = {&value};
    ze_module_constants_t constants = {1, &id, values};
    ze_module_desc_t desc = {
        ZE_STRUCTURE_TYPE_MODULE_DESC, NULL, ZE_MODULE_FORMAT_IL_SPIRV, spirv.size, spirv.data, NULL, &constants};
    ze_result_t built = zeModuleCreate(l0->context, l0->device, &desc, module, NULL);
    free(spirv.data);
    ZC_CHECK(built);
    ze_kernel_desc_t kernel_desc = {ZE_STRUCTURE_TYPE_KERNEL_DESC, NULL, 0, "annotated"};
    ZC_CHECK(zeKernelCreate(*module, &kernel_desc, kernel));
    return 0;
}

static int zc_itt_launch(zc_l0 *l0, ze_kernel_handle_t kernel, int32_t *counter, int32_t *out) {
    ZC_CHECK(zeKernelSetArgumentValue(kernel, 0, sizeof counter, &counter));
    ZC_CHECK(zeKernelSetArgumentValue(kernel, 1, sizeof out, &out));
    ZC_CHECK(zeKernelSetGroupSize(kernel, ZC_ITT_GROUP, 1, 1));
    ze_command_queue_desc_t desc = {
        ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, NULL, 0, 0, 0, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS,
        ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
    ze_command_list_handle_t list = NULL;
    ZC_CHECK(zeCommandListCreateImmediate(l0->context, l0->device, &desc, &list));
    ze_group_count_t groups = {ZC_ITT_ITEMS / ZC_ITT_GROUP, 1, 1};
    ze_result_t launched = zeCommandListAppendLaunchKernel(list, kernel, &groups, NULL, 0, NULL);
    ZC_CHECK(zeCommandListDestroy(list));
    ZC_CHECK(launched);
    return 0;
}

/* Prints the constant the kernel saw, its atomic count, and what the ITT stream must carry. Other drivers do not know
 * the wrappers: the test skips there, so nothing is launched. */
static int zc_work_itt(zc_l0 *l0, uint8_t value) {
    if (!zc_driver_has_fake_extension(l0))
        return 0;
    ze_host_mem_alloc_desc_t host = {ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, NULL, 0};
    int32_t *counter = NULL, *out = NULL;
    ZC_CHECK(zeMemAllocHost(l0->context, &host, sizeof *counter, 64, (void **)&counter));
    ZC_CHECK(zeMemAllocHost(l0->context, &host, ZC_ITT_ITEMS * sizeof *out, 64, (void **)&out));
    *counter = 0;
    memset(out, 0xff, ZC_ITT_ITEMS * sizeof *out);
    ze_module_handle_t module = NULL;
    ze_kernel_handle_t kernel = NULL;
    if (zc_itt_kernel(l0, value, &module, &kernel) != 0 || zc_itt_launch(l0, kernel, counter, out) != 0)
        return 1;
    printf("itt_value=%d\nitt_value_last=%d\nitt_counter=%d\n", (int)out[0], (int)out[ZC_ITT_ITEMS - 1], (int)*counter);
    printf("expect.itt_device=%" PRIu64 "\nexpect.itt_atomic=%" PRIu64 ":1:5\n", (uint64_t)(uintptr_t)l0->device,
           (uint64_t)(uintptr_t)counter);
    ZC_CHECK(zeKernelDestroy(kernel));
    ZC_CHECK(zeModuleDestroy(module));
    ZC_CHECK(zeMemFree(l0->context, counter));
    ZC_CHECK(zeMemFree(l0->context, out));
    return 0;
}

/* What the subscriber saw, the emitter's state, and (for the debug stream) zeDeviceGetProperties' last record. */
static void zc_report(void) {
    void *subscriber = dlopen(ZC_XPTI_TEST_SUBSCRIBER, RTLD_NOLOAD | RTLD_LAZY);
    zx_ts_print_fn print = NULL;
    zx_ts_last_call_fn last = NULL;
    if (subscriber != NULL) {
        *(void **)&print = dlsym(subscriber, ZX_TS_PRINT);
        *(void **)&last = dlsym(subscriber, ZX_TS_LAST_CALL);
    }
    zx_ts_call_record r;
    if (last != NULL && last(ZX_FN_zeDeviceGetProperties, &r))
        printf("seen.props_calls=%u\n", r.calls);
    if (print != NULL)
        print(stdout);
    else
        printf("subscriber=absent\n");
}

typedef zx_emitter_state (*zc_state_fn)(void);
typedef void (*zc_finish_fn)(void);

/* The emitter's functions: in the global scope when preloaded, else from the library the tool mode opened. */
static void *zc_emitter_symbol(void *emitter, const char *name) {
    return dlsym(emitter != NULL ? emitter : RTLD_DEFAULT, name);
}

/* Child: runs a workload. With "tool" the emitter is not preloaded: the child opens it and calls zx_emitter_init
 * itself, first before zeInit (nothing happens), then after. The emitter is finished explicitly before the report,
 * so that the streams are finalised and every task closed. */
static int zc_child_workload(int argc, char **argv) {
    const char *name = argc > 0 ? argv[0] : "basic";
    bool tool = strcmp(name, "tool") == 0;
    void *emitter = tool ? dlopen(ZC_XPTI_EMITTER, RTLD_NOW | RTLD_LOCAL) : NULL;
    zc_state_fn init = NULL, status = NULL;
    zc_finish_fn finish = NULL;
    *(void **)&init = zc_emitter_symbol(emitter, "zx_emitter_init");
    *(void **)&status = zc_emitter_symbol(emitter, "zx_emitter_status");
    *(void **)&finish = zc_emitter_symbol(emitter, "zx_emitter_finish");
    if (tool && init != NULL)
        printf("before_init=%d\n", (int)init());
    zc_l0 l0;
    if (!zc_l0_open(&l0))
        return 3;
    if (tool && init != NULL)
        printf("after_init=%d\n", (int)init());
    int failed = 0;
    if (strcmp(name, "basic") == 0 || tool)
        failed = zc_work_basic(&l0);
    else if (strcmp(name, "mem") == 0)
        failed = zc_work_mem(&l0);
    else if (strcmp(name, "graph") == 0)
        failed = zc_work_graph(&l0);
    else if (strcmp(name, "threads") == 0)
        failed = zc_work_threads(&l0);
    else if (strcmp(name, "itt") == 0 || strcmp(name, "itt-off") == 0)
        failed = zc_work_itt(&l0, strcmp(name, "itt") == 0 ? 1 : 0);
    else if (strcmp(name, "sequence") == 0)
        failed = zc_work_sequence(&l0);
    ZC_SEQ(zeContextDestroy, l0.context);
    printf("emitter=%d\n", status != NULL ? (int)status() : -1);
    if (finish != NULL)
        finish();
    bool fake = zc_driver_has_fake_extension(&l0); /* after finish: not traced */
    printf("fake=%d\nexpect.streams=%d\n", fake, fake ? 5 : 4);
    zc_report();
    if (strcmp(name, "sequence") == 0)
        zc_print_sequence();
    return failed;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Call and debug streams */

static void call_stream_pairs_every_call(void **state) {
    (void)state;
    zc_env env;
    zc_child child;
    zc_env_traced(&env, ZC_XPTI_TEST_SUBSCRIBER, true);
    zc_run_workload("basic", &env, &child);
    zc_expect(&child, "emitter", ZX_EMITTER_TRACING);
    zc_expect_same(&child, "inits", "expect.streams");
    zc_expect_same(&child, "finishes", "expect.streams");
    uint64_t begins = zc_child_number(&child, "call_begins");
    if (begins < 8)
        zc_fail("only %" PRIu64 " calls traced:\n%s", begins, child.out);
    zc_expect(&child, "call_ends", begins);
    zc_expect(&child, "call_mismatches", 0);
    zc_expect(&child, "call_bad", 0);
    zc_expect(&child, "call_non_increasing", 0);
    zc_child_free(&child);
}

/* ------------------------------------------------------------------------------------------------------------------
 * The sequence workload, checked call by call against its own list and layers/xpti/gen/function_ids.txt */

typedef struct zc_listed {
    char name[ZX_TS_BEGIN_NAME];
    uint64_t thread;
    char args[256]; /* "v0,v1,...", or "-" */
} zc_listed;

typedef struct zc_begin {
    unsigned type;
    uint32_t id;
    char name[ZX_TS_BEGIN_NAME];
    uint64_t instance;
    uint64_t thread;
    char values[256]; /* what the probe read, as zc_listed.args */
} zc_begin;

static zc_listed zc_listed_at(const zc_child *child, unsigned index) {
    char key[32], value[512] = "";
    zc_listed l = {0};
    snprintf(key, sizeof key, "expect.seq.%u", index);
    if (!zc_child_value(child, key, value, sizeof value) ||
        sscanf(value, "%79s %" SCNu64 " %255s", l.name, &l.thread, l.args) != 3)
        zc_fail("the workload listed no call %u ('%s')\nchild output:\n%s", index, value, child->out);
    return l;
}

static zc_begin zc_begin_at(const zc_child *child, unsigned index) {
    char key[32], value[512] = "";
    zc_begin b = {0};
    snprintf(key, sizeof key, "begin.%u", index);
    if (!zc_child_value(child, key, value, sizeof value) ||
        sscanf(value, "%u %" SCNu32 " %79s %" SCNu64 " %" SCNu64 " %255s", &b.type, &b.id, b.name, &b.instance,
               &b.thread, b.values) != 6)
        zc_fail("the subscriber logged no begin %u ('%s')\nchild output:\n%s", index, value, child->out);
    return b;
}

/* Runs the sequence workload; returns how many calls it listed. Its first is zeInit, which is not traced: the
 * emitter starts in its zeInit wrapper once the loader's zeInit returned (and starts no tracer before). */
static unsigned zc_run_sequence(zc_child *child) {
    zc_env env;
    zc_env_traced(&env, ZC_XPTI_TEST_SUBSCRIBER, true);
    zc_run_workload("sequence", &env, child);
    zc_expect(child, "emitter", ZX_EMITTER_TRACING);
    unsigned listed = (unsigned)zc_child_number(child, "expect.seq_count");
    if (listed < 2 || listed > ZC_SEQ_MAX || strcmp(zc_listed_at(child, 0).name, "zeInit") != 0)
        zc_fail("the workload listed %u calls, not zeInit first\n%s", listed, child->out);
    return listed;
}

/* The begin of listed call `call` on `type`'s stream: each call has its function_begin, then its
 * function_with_args_begin, and nothing comes between the calls. */
static zc_begin zc_begin_of(const zc_child *child, unsigned call, uint16_t type) {
    return zc_begin_at(child, 2 * (call - 1) + (type == ZX_TP_FUNCTION_WITH_ARGS_BEGIN));
}

static void zc_expect_begin(const zc_child *child, unsigned call, const zc_listed *listed, uint16_t type) {
    zc_begin b = zc_begin_of(child, call, type);
    if (b.type != type || strcmp(b.name, listed->name) != 0 || b.thread != listed->thread)
        zc_fail("call %u is %s on thread %" PRIu64 ", but begin %u of type %u names %s on thread %" PRIu64
                "\nchild output:\n%s",
                call, listed->name, listed->thread, 2 * (call - 1) + (type == ZX_TP_FUNCTION_WITH_ARGS_BEGIN), b.type,
                b.name, b.thread, child->out);
}

typedef struct zc_thread_ids {
    uint64_t thread[ZC_SEQ_MAX];
    uint64_t last[ZC_SEQ_MAX]; /* the thread's last correlation id */
    unsigned count;
} zc_thread_ids;

/* Correlation ids: the same at both begins of a call, above the previous call's on its thread, never reused. */
static void zc_expect_correlation(const zc_child *child, unsigned call, uint64_t *seen, zc_thread_ids *threads) {
    zc_begin c = zc_begin_of(child, call, ZX_TP_FUNCTION_BEGIN);
    zc_begin d = zc_begin_of(child, call, ZX_TP_FUNCTION_WITH_ARGS_BEGIN);
    if (c.instance != d.instance)
        zc_fail("call %u (%s): correlation id %" PRIu64 " on the call stream, %" PRIu64 " on the debug stream", call,
                c.name, c.instance, d.instance);
    for (unsigned i = 1; i < call; i++) {
        if (seen[i] == c.instance)
            zc_fail("calls %u and %u share correlation id %" PRIu64, i, call, c.instance);
    }
    seen[call] = c.instance;
    unsigned t = 0;
    while (t < threads->count && threads->thread[t] != c.thread)
        t++;
    if (t == threads->count) {
        threads->thread[threads->count++] = c.thread;
    } else if (c.instance <= threads->last[t]) {
        zc_fail("call %u (%s): correlation id %" PRIu64 " not above its thread's previous %" PRIu64, call, c.name,
                c.instance, threads->last[t]);
    }
    threads->last[t] = c.instance;
}

/* The subscriber's log of begins is the workload's list of calls, exactly: names, order, threads, and one
 * correlation id per call shared by its two begins. */
static void call_and_debug_begins_are_the_workloads_calls_in_order(void **state) {
    (void)state;
    zc_child child;
    unsigned listed = zc_run_sequence(&child);
    zc_expect(&child, "begins_logged", 2 * (uint64_t)(listed - 1));
    zc_expect(&child, "begins_unlogged", 0);
    uint64_t seen[ZC_SEQ_MAX] = {0};
    zc_thread_ids threads = {0};
    for (unsigned call = 1; call < listed; call++) {
        zc_listed l = zc_listed_at(&child, call);
        zc_expect_begin(&child, call, &l, ZX_TP_FUNCTION_BEGIN);
        zc_expect_begin(&child, call, &l, ZX_TP_FUNCTION_WITH_ARGS_BEGIN);
        zc_expect_correlation(&child, call, seen, &threads);
    }
    assert_int_equal(threads.count, 2); /* the workload's two threads */
    zc_child_free(&child);
}

/* layers/xpti/gen/function_ids.txt (ZC_XPTI_FUNCTION_IDS), the list the function-id table of docs/xpti.md is
 * generated from (and checked against by docs_xpti_function_ids_current), read here rather than taken from the
 * emitter's generated table. */
typedef struct zc_id_entry {
    uint32_t id;
    char name[ZX_TS_BEGIN_NAME];
} zc_id_entry;

typedef struct zc_id_file {
    zc_id_entry entries[1024];
    unsigned count;
} zc_id_file;

static void zc_id_file_path(char *path, size_t size) {
    snprintf(path, size, "%s", ZC_XPTI_FUNCTION_IDS);
}

static void zc_id_file_read(zc_id_file *ids) {
    char path[4096], line[256];
    zc_id_file_path(path, sizeof path);
    FILE *file = fopen(path, "r");
    if (file == NULL)
        zc_fail("cannot read %s", path);
    ids->count = 0;
    while (fgets(line, sizeof line, file) != NULL && ids->count < ZC_COUNT(ids->entries)) {
        zc_id_entry *e = &ids->entries[ids->count];
        if (line[0] != '#' && sscanf(line, "%" SCNu32 " %79s", &e->id, e->name) == 2)
            ids->count++;
    }
    fclose(file);
}

static uint32_t zc_id_file_find(const zc_id_file *ids, const char *name) {
    for (unsigned i = 0; i < ids->count; i++) {
        if (strcmp(ids->entries[i].name, name) == 0)
            return ids->entries[i].id;
    }
    return 0;
}

/* Ids are stable: fixed by layers/xpti/gen/function_ids.txt and documented in docs/xpti.md. The emitter's generated
 * table follows the file, and every function_with_args_begin of the sequence workload carries the file's id of the
 * function the workload called (looked up by the workload's name, not the emitter's). */
static void debug_ids_and_names_match_the_table(void **state) {
    (void)state;
    assert_int_equal(ZX_FN_zeCommandListAppendBarrier, 1);
    assert_int_equal(ZX_FN_zeDeviceGetProperties, 55);
    assert_int_equal(ZX_FN_zeInit, 98);
    assert_int_equal(ZX_FN_zeVirtualMemUnmap, 144);
    static zc_id_file ids;
    zc_id_file_read(&ids);
    if (ids.count < 144)
        zc_fail("function_ids.txt lists %u functions, fewer than the 144 of spec 1.4", ids.count);
    for (unsigned i = 0; i < ids.count; i++) {
        const zc_id_entry *e = &ids.entries[i];
        const zx_function_info *info = zx_function_by_id(e->id);
        if (info == NULL || strcmp(info->name, e->name) != 0 || zx_function_id_of(e->name) != e->id)
            zc_fail("function_ids.txt gives %s id %u; the emitter's table names %s for it", e->name, e->id,
                    info != NULL ? info->name : "nothing");
    }
    zc_child child;
    unsigned listed = zc_run_sequence(&child);
    for (unsigned call = 1; call < listed; call++) {
        zc_listed l = zc_listed_at(&child, call);
        zc_begin d = zc_begin_of(&child, call, ZX_TP_FUNCTION_WITH_ARGS_BEGIN);
        uint32_t id = zc_id_file_find(&ids, l.name);
        if (id == 0 || d.id != id || strcmp(d.name, l.name) != 0)
            zc_fail("call %u is %s, id %u in function_ids.txt; the debug stream gave id %u, name %s", call, l.name, id,
                    d.id, d.name);
    }
    uint64_t begins = zc_child_number(&child, "call_begins");
    zc_expect(&child, "debug_begins", begins);
    zc_expect(&child, "debug_ends", begins);
    zc_expect(&child, "debug_bad_ids", 0);
    zc_expect(&child, "debug_mismatches", 0);
    zc_expect(&child, "debug_bad_ret", 0);
    zc_child_free(&child);
}

/* At function_with_args_begin, args_data is the call's params struct: read through the headers' own params types,
 * it points to exactly the arguments the workload passed (five calls: a failing one, one on the other thread). */
static void debug_params_at_begin_are_the_calls_arguments(void **state) {
    (void)state;
    zc_child child;
    unsigned listed = zc_run_sequence(&child);
    unsigned checked = 0;
    for (unsigned call = 1; call < listed; call++) {
        zc_listed l = zc_listed_at(&child, call);
        if (strcmp(l.args, "-") == 0)
            continue;
        zc_begin d = zc_begin_of(&child, call, ZX_TP_FUNCTION_WITH_ARGS_BEGIN);
        if (strcmp(d.values, l.args) != 0)
            zc_fail("call %u (%s) passed %s; the probe read %s through args_data", call, l.name, l.args, d.values);
        checked++;
    }
    assert_int_equal(checked, 5);
    zc_child_free(&child);
}

static void debug_params_are_the_calls(void **state) {
    (void)state;
    zc_env env;
    zc_child child;
    zc_env_traced(&env, ZC_XPTI_TEST_SUBSCRIBER, true);
    zc_run_workload("basic", &env, &child);
    zc_expect_same(&child, "seen.props_device", "expect.props_device");
    zc_expect_same(&child, "seen.props_pointer", "expect.props_pointer");
    zc_expect(&child, "seen.bad_pointer", 0);
    zc_expect(&child, "seen.alloc_size", 3000);
    zc_expect(&child, "seen.alloc_alignment", 64);
    zc_expect_same(&child, "seen.alloc_out", "expect.alloc_out");
    zc_child_free(&child);
}

static void debug_result_is_what_the_application_got(void **state) {
    (void)state;
    zc_env env;
    zc_child child;
    zc_env_traced(&env, ZC_XPTI_TEST_SUBSCRIBER, true);
    zc_run_workload("basic", &env, &child);
    zc_expect(&child, "seen.props_result", ZE_RESULT_SUCCESS);
    zc_expect(&child, "expect.bad_result", ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_expect_same(&child, "seen.bad_result", "expect.bad_result");
    zc_expect(&child, "seen.props_calls", 2);
    zc_child_free(&child);
}

/* Subscribers built with older headers register 31 for function_with_args_end: they get their ends there. */
static void old_subscribers_get_function_with_args_end_31(void **state) {
    (void)state;
    zc_env env;
    zc_child child;
    zc_env_traced(&env, ZC_XPTI_TEST_SUBSCRIBER, true);
    zc_env_add(&env, "ZX_TS_OLD_END=1");
    zc_run_workload("basic", &env, &child);
    uint64_t begins = zc_child_number(&child, "debug_begins");
    assert_true(begins > 0);
    zc_expect(&child, "debug_old_ends", begins);
    zc_expect(&child, "debug_ends", 0);
    zc_expect(&child, "debug_mismatches", 0);
    zc_child_free(&child);
}

/* ------------------------------------------------------------------------------------------------------------------
 * mem_alloc stream */

static void mem_alloc_pairs_carry_pointer_and_size(void **state) {
    (void)state;
    zc_env env;
    zc_child child;
    zc_env_traced(&env, ZC_XPTI_TEST_SUBSCRIBER, true);
    zc_run_workload("mem", &env, &child);
    zc_expect(&child, "bad_alloc_failed", 1);
    zc_expect(&child, "mem_alloc_pairs", 4); /* the failed one too, with pointer 0 */
    zc_expect(&child, "mem_release_pairs", 3);
    zc_expect(&child, "mem_mismatches", 0);
    char key[32], expected[32];
    for (int i = 0; i < 3; i++) {
        snprintf(key, sizeof key, "alloc.%d", i);
        snprintf(expected, sizeof expected, "expect.alloc.%d", i);
        zc_expect_same(&child, key, expected);
        snprintf(key, sizeof key, "release.%d", i);
        snprintf(expected, sizeof expected, "expect.release.%d", i);
        zc_expect_same(&child, key, expected);
    }
    zc_expect_text(&child, "alloc.3", "0x0:0");
    zc_child_free(&child);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Graph stream */

static void zc_expect_contains(const zc_child *child, const char *key, const char *part) {
    char value[512] = "";
    if (!zc_child_value(child, key, value, sizeof value) || strstr(value, part) == NULL)
        zc_fail("%s is '%s', which lacks '%s'", key, value, part);
}

static void graph_matches_the_workload(void **state) {
    (void)state;
    zc_env env;
    zc_child child;
    zc_env_traced(&env, ZC_XPTI_TEST_SUBSCRIBER, true);
    zc_run_workload("graph", &env, &child);
    zc_expect(&child, "vadd_result", 6); /* 3 + 3: the workload really ran */
    zc_expect(&child, "graph_creates", 1);
    zc_expect(&child, "nodes", 5);
    zc_expect_text(&child, "node.0", "memory_fill:memory fill");
    zc_expect_text(&child, "node.1", "memory_copy:memory copy");
    zc_expect_text(&child, "node.2", "kernel:vadd_int");
    zc_expect_text(&child, "node.3", "barrier:barrier");
    zc_expect_text(&child, "node.4", "memory_copy:memory copy");
    zc_expect_contains(&child, "node_meta.2", "kernel_name=vadd_int;");
    zc_expect_contains(&child, "node_meta.2", "group_count=4,1,1;");
    zc_expect_contains(&child, "node_meta.2", "group_size=16,1,1;");
    zc_expect_contains(&child, "node_meta.2", "global_size=64,1,1;");
    zc_expect_contains(&child, "node_meta.2", "device_name=");
    zc_expect_contains(&child, "node_meta.0", "memory_size=256;");
    zc_expect_contains(&child, "node_meta.4", "queue_id=");
    zc_expect(&child, "edges", 3);
    zc_expect_text(&child, "edge.0", "0->1");
    zc_expect_text(&child, "edge.1", "1->2");
    zc_expect_text(&child, "edge.2", "2->3");
    zc_expect_text(&child, "tasks", "0,1,2,3,0,1,2,3,4"); /* the list ran twice, then the immediate copy */
    zc_expect(&child, "task_begins", 9);
    zc_expect(&child, "task_pairs", 9);
    zc_expect(&child, "task_mismatches", 0);
    zc_expect(&child, "signals", 7); /* three signalling nodes twice, and the immediate copy */
    zc_expect(&child, "signal_bad", 0);
    zc_expect(&child, "wait_pairs", 3); /* two queue synchronisations, one event synchronisation */
    zc_expect(&child, "wait_mismatches", 0);
    zc_expect(&child, "queue_creates", 2); /* the queue and the immediate list */
    zc_expect(&child, "queue_destroys", 2);
    zc_expect(&child, "parent_bad", 0);
    zc_expect(&child, "stash_bad", 0);
    zc_child_free(&child);
}

/* A file of the results directory for this run: runs of the same executable in other variants (ZC_VARIANT, e.g.
 * no-builtins) may run at the same time and must not share it. */
static void zc_result_file(char *file, size_t size, const char *what) {
    const char *variant = getenv("ZC_VARIANT");
    snprintf(file, size, "%s/%s%s%s-%s", ZC_RESULTS_DIR, ZC_EXECUTABLE, variant != NULL ? "." : "",
             variant != NULL ? variant : "", what);
}

static void timeline_of_the_graph_workload_is_valid_json(void **state) {
    (void)state;
    char file[4096], file_var[4200];
    zc_result_file(file, sizeof file, "timeline.json");
    snprintf(file_var, sizeof file_var, "ZX_TIMELINE_FILE=%s", file);
    remove(file);
    zc_env env;
    zc_child child;
    zc_env_traced(&env, ZC_XPTI_TIMELINE, true);
    zc_env_add(&env, file_var);
    zc_run_workload("graph", &env, &child);
    zc_child_free(&child);
    const char *argv[] = {"python3", "-m", "json.tool", file, NULL};
    assert_true(zc_run_command(argv, NULL, ZC_CHILD_TIMEOUT_MS, &child));
    zc_assert_child_ok(&child, "python3 -m json.tool on the timeline");
    /* json.tool's output: one member per line, a space after each colon. */
    const char *parts[] = {"\"traceEvents\": [",
                           "\"ph\": \"b\"",
                           "\"ph\": \"e\"",
                           "\"name\": \"vadd_int\"",
                           "\"name\": \"zeCommandQueueExecuteCommandLists\"",
                           "\"cat\": \"wait\"",
                           "\"name\": \"USM memory\""};
    for (size_t i = 0; i < ZC_COUNT(parts); i++) {
        if (strstr(child.out, parts[i]) == NULL)
            zc_fail("the timeline %s lacks %s", file, parts[i]);
    }
    zc_child_free(&child);
}

/* ------------------------------------------------------------------------------------------------------------------
 * ITT stream (offered where a driver delivers annotations: the fake's extension) */

static void zc_skip_unless_itt(zc_child *child) {
    if (zc_child_number(child, "fake") != 0)
        return;
    bool required = strcmp(zc_target(), "fake") == 0;
    zc_child_free(child);
    if (required)
        zc_fail("the target is the fake driver but the workload's driver lacks %s", ZEFAKE_EXTENSION_NAME);
    print_message("the ITT stream needs %s, which target %s lacks: skipped\n", ZEFAKE_EXTENSION_NAME, zc_target());
    skip();
}

static void zc_expect_itt_counts(const zc_child *child, uint64_t per_kind) {
    static const char *const kinds[] = {"itt_wi_start",  "itt_wi_finish",       "itt_wg_barrier",
                                        "itt_wi_resume", "itt_atomic_op_start", "itt_atomic_op_finish"};
    for (size_t i = 0; i < ZC_COUNT(kinds); i++)
        zc_expect(child, kinds[i], per_kind);
}

/* The kernel ran as it does untraced: the constant it saw in every work-item and its atomic count. */
static void zc_expect_itt_kernel_ran(const zc_child *child, uint64_t value) {
    zc_expect(child, "itt_value", value);
    zc_expect(child, "itt_value_last", value);
    zc_expect(child, "itt_counter", ZC_ITT_ITEMS);
}

static void itt_stream_carries_every_annotation(void **state) {
    (void)state;
    zc_env env;
    zc_child child;
    zc_env_traced(&env, ZC_XPTI_TEST_SUBSCRIBER, true);
    zc_run_workload("itt", &env, &child);
    zc_skip_unless_itt(&child);
    zc_expect(&child, "emitter", ZX_EMITTER_TRACING);
    zc_expect_itt_kernel_ran(&child, 1);
    zc_expect_itt_counts(&child, ZC_ITT_ITEMS); /* each kind once per work-item */
    zc_expect(&child, "itt_bad", 0);
    zc_expect(&child, "itt_1d_bad", 0);
    zc_expect(&child, "itt_other", 0);
    const uint64_t ids = (uint64_t)ZC_ITT_ITEMS * (ZC_ITT_ITEMS + 1) / 2; /* every work-item started and finished */
    zc_expect(&child, "itt_started", ids);
    zc_expect(&child, "itt_finished", ids);
    zc_expect_text(&child, "itt_kernel", "annotated");
    zc_expect(&child, "itt_group_size", ZC_ITT_GROUP);
    zc_expect_same(&child, "itt_device", "expect.itt_device");
    zc_expect_same(&child, "itt_atomic", "expect.itt_atomic");
    zc_child_free(&child);
}

static void itt_constant_zero_gives_no_notification(void **state) {
    (void)state;
    zc_env env;
    zc_child child;
    zc_env_traced(&env, ZC_XPTI_TEST_SUBSCRIBER, true);
    zc_run_workload("itt-off", &env, &child);
    zc_skip_unless_itt(&child);
    zc_expect(&child, "emitter", ZX_EMITTER_TRACING);
    zc_expect_itt_kernel_ran(&child, 0);
    zc_expect_itt_counts(&child, 0);
    zc_expect(&child, "itt_bad", 0);
    zc_child_free(&child);
}

/* Nobody listens to the ITT stream: the kernel runs with its annotations on and nothing reaches the subscriber. */
static void itt_stream_not_listened_to_is_quiet(void **state) {
    (void)state;
    const char *streams[] = {"ZX_TS_STREAMS=graph", "ZX_TS_STREAMS=none"};
    const zx_emitter_state states[] = {ZX_EMITTER_TRACING, ZX_EMITTER_OFF};
    for (size_t i = 0; i < ZC_COUNT(streams); i++) {
        zc_env env;
        zc_child child;
        zc_env_traced(&env, ZC_XPTI_TEST_SUBSCRIBER, true);
        zc_env_add(&env, streams[i]);
        zc_run_workload("itt", &env, &child);
        zc_skip_unless_itt(&child);
        zc_expect(&child, "emitter", states[i]);
        zc_expect_same(&child, "inits", "expect.streams");
        zc_expect_itt_kernel_ran(&child, 1);
        zc_expect_itt_counts(&child, 0);
        zc_expect(&child, "itt_bad", 0);
        zc_child_free(&child);
    }
}

/* The ITT stream does not come through the tracer: listened to alone, it needs no tracing layer. */
static void itt_stream_alone_needs_no_tracing_layer(void **state) {
    (void)state;
    zc_env env;
    zc_child child;
    zc_env_traced(&env, ZC_XPTI_TEST_SUBSCRIBER, true);
    zc_env_add(&env, "ZE_ENABLE_TRACING_LAYER");
    zc_env_add(&env, "ZX_TS_STREAMS=itt");
    zc_run_workload("itt", &env, &child);
    zc_skip_unless_itt(&child);
    zc_expect(&child, "emitter", ZX_EMITTER_TRACING);
    zc_expect(&child, "call_begins", 0);
    zc_expect_itt_counts(&child, ZC_ITT_ITEMS);
    zc_expect(&child, "itt_bad", 0);
    assert_null(strstr(child.err, "ZE_ENABLE_TRACING_LAYER"));
    zc_child_free(&child);
}

/* The timeline shows annotations as instant events when asked (ZX_TIMELINE_ITT=1), and only then. */
static void timeline_shows_itt_annotations_when_asked(void **state) {
    (void)state;
    char file[4096], file_var[4200];
    zc_result_file(file, sizeof file, "itt-timeline.json");
    snprintf(file_var, sizeof file_var, "ZX_TIMELINE_FILE=%s", file);
    for (int asked = 1; asked >= 0; asked--) {
        remove(file);
        zc_env env;
        zc_child child;
        zc_env_traced(&env, ZC_XPTI_TIMELINE, true);
        zc_env_add(&env, file_var);
        zc_env_add(&env, asked ? "ZX_TIMELINE_ITT=1" : "ZX_TIMELINE_ITT");
        zc_run_workload("itt", &env, &child);
        zc_skip_unless_itt(&child);
        zc_child_free(&child);
        const char *argv[] = {"python3", "-m", "json.tool", file, NULL};
        assert_true(zc_run_command(argv, NULL, ZC_CHILD_TIMEOUT_MS, &child));
        zc_assert_child_ok(&child, "python3 -m json.tool on the timeline");
        const char *parts[] = {"\"cat\": \"itt\"", "\"name\": \"wi_start\"", "\"name\": \"atomic_op_finish\"",
                               "\"kernel\": \"annotated\""};
        for (size_t i = 0; i < ZC_COUNT(parts); i++) {
            if ((strstr(child.out, parts[i]) != NULL) != (asked != 0))
                zc_fail("the timeline %s %s %s", file, asked ? "lacks" : "has, unasked,", parts[i]);
        }
        zc_child_free(&child);
    }
}

/* ------------------------------------------------------------------------------------------------------------------
 * Streams off, bad set-ups */

static void zc_expect_untraced(const zc_child *child) {
    zc_expect(child, "callbacks", 0);
    zc_expect(child, "call_begins", 0);
    zc_expect(child, "nodes", 0);
}

static void streams_off_no_callbacks_no_crash(void **state) {
    (void)state;
    const char *disabling[] = {"XPTI_TRACE_ENABLE=0", "XPTI_TRACE_ENABLE=false", "XPTI_TRACE_ENABLE=maybe"};
    for (size_t i = 0; i < ZC_COUNT(disabling); i++) {
        zc_env env;
        zc_child child;
        zc_env_traced(&env, ZC_XPTI_TEST_SUBSCRIBER, true);
        zc_env_add(&env, disabling[i]);
        zc_run_workload("graph", &env, &child);
        zc_expect(&child, "emitter", ZX_EMITTER_OFF);
        zc_expect_text(&child, "subscriber", "absent"); /* the framework was not even loaded */
        zc_child_free(&child);
    }
    /* Loaded and initialised, but listening to nothing: no tracer, no callback. */
    zc_env env;
    zc_child child;
    zc_env_traced(&env, ZC_XPTI_TEST_SUBSCRIBER, true);
    zc_env_add(&env, "ZX_TS_STREAMS=none");
    zc_run_workload("graph", &env, &child);
    zc_expect(&child, "emitter", ZX_EMITTER_OFF);
    zc_expect_same(&child, "inits", "expect.streams");
    zc_expect_untraced(&child);
    zc_child_free(&child);
}

/* A stream nobody listens to gets no notification while the others do. */
static void only_the_listened_streams_notify(void **state) {
    (void)state;
    zc_env env;
    zc_child child;
    zc_env_traced(&env, ZC_XPTI_TEST_SUBSCRIBER, true);
    zc_env_add(&env, "ZX_TS_STREAMS=graph");
    zc_run_workload("graph", &env, &child);
    zc_expect(&child, "emitter", ZX_EMITTER_TRACING);
    zc_expect(&child, "call_begins", 0);
    zc_expect(&child, "debug_begins", 0);
    zc_expect(&child, "mem_alloc_pairs", 0);
    zc_expect(&child, "nodes", 5);
    zc_expect(&child, "task_pairs", 9);
    zc_child_free(&child);
    zc_env_traced(&env, ZC_XPTI_TEST_SUBSCRIBER, true);
    zc_env_add(&env, "ZX_TS_STREAMS=call,mem");
    zc_run_workload("graph", &env, &child);
    assert_true(zc_child_number(&child, "call_begins") > 0);
    zc_expect(&child, "mem_alloc_pairs", 3);
    zc_expect(&child, "debug_begins", 0);
    zc_expect(&child, "nodes", 0);
    zc_expect(&child, "graph_creates", 0);
    zc_child_free(&child);
}

static void subscriber_missing_an_entry_point_is_not_loaded(void **state) {
    (void)state;
    zc_env env;
    zc_child child;
    zc_env_traced(&env, ZC_XPTI_INCOMPLETE_SUBSCRIBER "," ZC_XPTI_TEST_SUBSCRIBER, true);
    zc_run_workload("basic", &env, &child);
    zc_expect(&child, "emitter", ZX_EMITTER_TRACING);
    zc_expect_same(&child, "inits", "expect.streams");
    assert_null(strstr(child.out, "zx_incomplete_subscriber"));
    assert_non_null(strstr(child.err, "does not export xptiTraceFinish"));
    zc_child_free(&child);
    zc_env_traced(&env, ZC_XPTI_INCOMPLETE_SUBSCRIBER, true);
    zc_run_workload("basic", &env, &child);
    zc_expect(&child, "emitter", ZX_EMITTER_OFF); /* no subscriber loaded: tracing is off */
    assert_null(strstr(child.out, "zx_incomplete_subscriber"));
    zc_child_free(&child);
}

static void bad_dispatcher_leaves_tracing_off_with_a_diagnostic(void **state) {
    (void)state;
    const struct {
        const char *var;
        const char *diagnostic;
    } cases[] = {
        {"XPTI_FRAMEWORK_DISPATCHER=/nonexistent/libxptifw.so",
         "zexpti: cannot load XPTI_FRAMEWORK_DISPATCHER=/nonexistent/libxptifw.so"},
        {"XPTI_FRAMEWORK_DISPATCHER=" ZC_XPTI_INCOMPLETE_SUBSCRIBER, "does not export xptiFrameworkInitialize"},
    };
    for (size_t i = 0; i < ZC_COUNT(cases); i++) {
        zc_env env;
        zc_child child;
        zc_env_traced(&env, ZC_XPTI_TEST_SUBSCRIBER, true);
        zc_env_add(&env, cases[i].var);
        zc_run_workload("graph", &env, &child);
        zc_expect(&child, "emitter", ZX_EMITTER_OFF);
        zc_expect_text(&child, "subscriber", "absent");
        if (strstr(child.err, cases[i].diagnostic) == NULL)
            zc_fail("no diagnostic '%s' on stderr:\n%s", cases[i].diagnostic, child.err);
        zc_child_free(&child);
    }
}

/* Without ZE_ENABLE_TRACING_LAYER the loader has no tracer: the emitter says so and the application runs on. */
static void no_tracing_layer_leaves_tracing_off_with_a_diagnostic(void **state) {
    (void)state;
    zc_env env;
    zc_child child;
    zc_env_traced(&env, ZC_XPTI_TEST_SUBSCRIBER, true);
    zc_env_add(&env, "ZE_ENABLE_TRACING_LAYER");
    zc_run_workload("basic", &env, &child);
    zc_expect(&child, "emitter", ZX_EMITTER_OFF);
    zc_expect(&child, "callbacks", 0);
    assert_non_null(strstr(child.err, "ZE_ENABLE_TRACING_LAYER=1"));
    zc_child_free(&child);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Threads, tools */

static void eight_threads_lose_no_pair(void **state) {
    (void)state;
    zc_env env;
    zc_child child;
    zc_env_traced(&env, ZC_XPTI_TEST_SUBSCRIBER, true);
    zc_run_workload("threads", &env, &child);
    uint64_t begins = zc_child_number(&child, "call_begins");
    zc_expect(&child, "call_ends", begins);
    zc_expect(&child, "call_mismatches", 0);
    zc_expect(&child, "call_non_increasing", 0);
    zc_expect(&child, "debug_ends", begins);
    zc_expect(&child, "debug_mismatches", 0);
    zc_expect_same(&child, "seen.props_calls", "expect.props_calls");
    zc_expect_same(&child, "mem_alloc_pairs", "expect.mem_pairs");
    zc_expect_same(&child, "mem_release_pairs", "expect.mem_pairs");
    zc_expect(&child, "mem_mismatches", 0);
    zc_child_free(&child);
}

static void tool_starts_the_emitter_after_zeInit(void **state) {
    (void)state;
    zc_env env;
    zc_child child;
    zc_env_traced(&env, ZC_XPTI_TEST_SUBSCRIBER, false);
    zc_run_workload("tool", &env, &child);
    zc_expect(&child, "before_init", ZX_EMITTER_NOT_STARTED);
    zc_expect(&child, "after_init", ZX_EMITTER_TRACING);
    zc_expect_same(&child, "inits", "expect.streams");
    zc_expect_same(&child, "seen.props_device", "expect.props_device");
    uint64_t begins = zc_child_number(&child, "call_begins");
    assert_true(begins > 0);
    zc_expect(&child, "call_ends", begins);
    zc_child_free(&child);
}

int main(int argc, char **argv) {
    static const struct CMUnitTest tests[] = {
        cmocka_unit_test(call_stream_pairs_every_call),
        cmocka_unit_test(call_and_debug_begins_are_the_workloads_calls_in_order),
        cmocka_unit_test(debug_ids_and_names_match_the_table),
        cmocka_unit_test(debug_params_at_begin_are_the_calls_arguments),
        cmocka_unit_test(debug_params_are_the_calls),
        cmocka_unit_test(debug_result_is_what_the_application_got),
        cmocka_unit_test(old_subscribers_get_function_with_args_end_31),
        cmocka_unit_test(mem_alloc_pairs_carry_pointer_and_size),
        cmocka_unit_test(graph_matches_the_workload),
        cmocka_unit_test(timeline_of_the_graph_workload_is_valid_json),
        cmocka_unit_test(itt_stream_carries_every_annotation),
        cmocka_unit_test(itt_constant_zero_gives_no_notification),
        cmocka_unit_test(itt_stream_not_listened_to_is_quiet),
        cmocka_unit_test(itt_stream_alone_needs_no_tracing_layer),
        cmocka_unit_test(timeline_shows_itt_annotations_when_asked),
        cmocka_unit_test(streams_off_no_callbacks_no_crash),
        cmocka_unit_test(only_the_listened_streams_notify),
        cmocka_unit_test(subscriber_missing_an_entry_point_is_not_loaded),
        cmocka_unit_test(bad_dispatcher_leaves_tracing_off_with_a_diagnostic),
        cmocka_unit_test(no_tracing_layer_leaves_tracing_off_with_a_diagnostic),
        cmocka_unit_test(eight_threads_lose_no_pair),
        cmocka_unit_test(tool_starts_the_emitter_after_zeInit),
    };
    static const zc_child_mode modes[] = {{"workload", zc_child_workload}};
    static const zc_suite suite = {ZC_EXECUTABLE, tests, ZC_COUNT(tests), NULL, NULL, modes, ZC_COUNT(modes)};
    return zc_main(argc, argv, &suite);
}
