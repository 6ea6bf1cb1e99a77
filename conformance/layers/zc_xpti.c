/* The XPTI tests' two sides (zc_xpti.h): in the test, the environment of a traced child and the checks of what it
 * printed; in the child, the workloads run under the emitter and the report of what the test subscriber saw. */
#include "zc_xpti.h"
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

/* ------------------------------------------------------------------------------------------------------------------
 * Child environments */

void zc_env_add(zc_env *env, const char *var) {
    if (env->count + 1 < ZC_COUNT(env->vars))
        env->vars[env->count++] = var;
    env->vars[env->count] = NULL;
}

/* The traced set-up: emitter preloaded (after the sanitizer runtime of a sanitized build), the tracing layer, our
 * dispatcher, the given subscribers (NULL: none), any XPTI_TRACE_ENABLE of the caller removed. */
void zc_env_traced(zc_env *env, const char *subscribers, bool preload) {
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
    snprintf(env->dispatcher, sizeof env->dispatcher, "XPTI_FRAMEWORK_DISPATCHER=%s", zc_xpti_framework());
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
    zc_env_add(env, "ZX_TS_PUBLIC_METADATA");
}

/* Runs `workload` traced; the child must exit with 0. */
void zc_run_workload(const char *workload, zc_env *env, zc_child *child) {
    const char *args[] = {workload, NULL};
    assert_true(zc_run_child_mode("workload", args, env->vars, ZC_CHILD_TIMEOUT_MS, child));
    zc_assert_child_ok(child, workload);
}

void zc_expect(const zc_child *child, const char *key, uint64_t expected) {
    uint64_t got = zc_child_number(child, key);
    if (got != expected)
        zc_fail("%s=%" PRIu64 ", expected %" PRIu64 "\nchild output:\n%s\nchild stderr:\n%s", key, got, expected,
                child->out, child->err);
}

void zc_expect_text(const zc_child *child, const char *key, const char *expected) {
    char value[512];
    if (!zc_child_value(child, key, value, sizeof value) || strcmp(value, expected) != 0)
        zc_fail("%s is '%s', expected '%s'\nchild output:\n%s", key, value, expected, child->out);
}

/* Two keys with the same value (what the workload did and what the subscriber saw). */
void zc_expect_same(const zc_child *child, const char *key, const char *other) {
    char a[512] = "", b[512] = "";
    bool got_a = zc_child_value(child, key, a, sizeof a);
    bool got_b = zc_child_value(child, other, b, sizeof b);
    if (!got_a || !got_b || strcmp(a, b) != 0)
        zc_fail("%s='%s' but %s='%s'\nchild output:\n%s", key, a, other, b, child->out);
}

void zc_expect_contains(const zc_child *child, const char *key, const char *part) {
    char value[512] = "";
    if (!zc_child_value(child, key, value, sizeof value) || strstr(value, part) == NULL)
        zc_fail("%s is '%s', which lacks '%s'", key, value, part);
}

/* A file of the results directory for this run: runs of the same executable in other variants (ZC_VARIANT, e.g.
 * no-builtins) may run at the same time and must not share it. */
void zc_result_file(char *file, size_t size, const char *what) {
    const char *variant = getenv("ZC_VARIANT");
    snprintf(file, size, "%s/%s%s%s-%s", ZC_RESULTS_DIR, ZC_EXECUTABLE, variant != NULL ? "." : "",
             variant != NULL ? variant : "", what);
}

void zc_expect_untraced(const zc_child *child) {
    zc_expect(child, "callbacks", 0);
    zc_expect(child, "call_begins", 0);
    zc_expect(child, "nodes", 0);
}

/* ------------------------------------------------------------------------------------------------------------------
 * The workloads (child side) */

/* The workload's own list of the Level Zero calls it makes, in order, with the calling thread: ZC_SEQ(fn, args...)
 * lists `fn` (the identifier called, stringified: nothing comes from the emitter's tables) and then calls it. Calls
 * that ZC_EXPECT_ARGS precedes also carry the argument values a probe must read through the debug stream's
 * args_data at begin. Only the main thread lists calls, or a thread it joins before listing more. */
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
int zc_child_workload(int argc, char **argv) {
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
