/* Cost of XPTI notifications through our dispatcher (layers/xpti, libxptifw.so), as ratios to an empty call through a
 * function pointer measured in the same run:
 *   - with nobody listening: the "is anyone listening" guard (xptiCheckTraceEnabled) an emitter puts before every
 *     notification, and an unguarded notification of a type without callbacks;
 *   - with one empty subscriber callback: a notification, and the composite an emitter pays per event (guard,
 *     correlation id, notification);
 *   - a new event of a known payload and its release (xptiMakeEvent makes a new tracepoint each call, as the
 *     framework does), and a known string (xptiRegisterString);
 *   - the payload of an event (xptiQueryPayload, which subscribers call in their callbacks: lock-free) and of a uid
 *     (xptiQueryPayloadByUID).
 * The published figures of the real framework are ~10 ns per notification and ~55 ns composite (docs/xpti.md).
 * Then, in a child process (this program re-executed), a zeDeviceGetProperties traced by the emitter with all four
 * streams listened to by empty callbacks, as a ratio to the same call before the emitter started.
 * Usage: zefake-bench-xpti [--quick]; library paths are compiled in (ZB_*). */
#include "zexpti.h"
#include "zx_xpti.h"

#include <dlfcn.h>
#include <level_zero/ze_api.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define ZB_PROGRAM "zefake-bench-xpti"
#include "zb_bench.h"

#define ZB_REPEATS 7

typedef struct zb_fw {
#define ZB_MEMBER(ret, name, params) zx_pfn_##name name;
    ZX_XPTI_FUNCTIONS(ZB_MEMBER)
#undef ZB_MEMBER
    zx_pfn_xptiQueryPayloadByUID xptiQueryPayloadByUID;
} zb_fw;

static zb_fw fw;
static uint8_t zb_stream;
static zx_xpti_event *zb_event; /* lives through the run, for the payload lookups */

/* Median ns per call of body(i) over ZB_REPEATS runs of `iterations`. */
static double zb_measure(void (*body)(uint64_t), uint64_t iterations) {
    double samples[ZB_REPEATS];
    for (uint64_t i = 0; i < iterations / 10 + 1; i++) /* warm up */
        body(i);
    for (int r = 0; r < ZB_REPEATS; r++) {
        uint64_t start = zb_now_ns();
        for (uint64_t i = 0; i < iterations; i++)
            body(i);
        samples[r] = (double)(zb_now_ns() - start) / (double)iterations;
    }
    return zb_median(samples, ZB_REPEATS);
}

/* ------------------------------------------------------------------------------------------------------------------
 * The dispatcher */

static void zb_empty_callback(uint16_t type, zx_xpti_event *parent, zx_xpti_event *event, uint64_t instance,
                              const void *user_data) {
    (void)type;
    (void)parent;
    (void)event;
    (void)instance;
    (void)user_data;
}

/* The baseline: the same empty function called through a pointer the compiler cannot see through. */
static void (*volatile zb_indirect)(uint16_t, zx_xpti_event *, zx_xpti_event *, uint64_t,
                                    const void *) = zb_empty_callback;
static volatile bool zb_sink;

static void zb_body_indirect(uint64_t i) {
    zb_indirect(ZX_TP_FUNCTION_BEGIN, NULL, NULL, i, "f");
}

static void zb_body_guard_idle(uint64_t i) {
    (void)i;
    zb_sink = fw.xptiCheckTraceEnabled(zb_stream, ZX_TP_FUNCTION_END);
}

static void zb_body_notify_idle(uint64_t i) {
    fw.xptiNotifySubscribers(zb_stream, ZX_TP_FUNCTION_END, NULL, NULL, i, "f");
}

static void zb_body_notify_one(uint64_t i) {
    fw.xptiNotifySubscribers(zb_stream, ZX_TP_FUNCTION_BEGIN, NULL, NULL, i, "f");
}

static void zb_body_composite(uint64_t i) {
    (void)i;
    if (fw.xptiCheckTraceEnabled(zb_stream, ZX_TP_FUNCTION_BEGIN))
        fw.xptiNotifySubscribers(zb_stream, ZX_TP_FUNCTION_BEGIN, NULL, NULL, fw.xptiGetUniqueId(), "f");
}

static zx_xpti_payload zb_payload = {"bench.kernel", NULL, "bench.c", 1, 1, NULL, 0, 0, {0}};

static void zb_body_payload(uint64_t i) {
    (void)i;
    uint64_t instance;
    zx_xpti_event *event = fw.xptiMakeEvent(NULL, &zb_payload, ZX_ET_ALGORITHM, ZX_ACTIVITY_ACTIVE, &instance);
    zb_sink = event != NULL;
    fw.xptiReleaseEvent(event);
}

static void zb_body_query_payload(uint64_t i) {
    (void)i;
    zb_sink = fw.xptiQueryPayload(zb_event) != NULL;
}

static void zb_body_query_by_uid(uint64_t i) {
    (void)i;
    zb_sink = fw.xptiQueryPayloadByUID(zb_event->unique_id) != NULL;
}

static void zb_body_string(uint64_t i) {
    (void)i;
    char *copy;
    zb_sink = fw.xptiRegisterString("bench.string", &copy) > 0;
}

static bool zb_load_dispatcher(void) {
    void *lib = dlopen(ZB_DISPATCHER, RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL)
        return false;
#define ZB_LOOKUP(ret, name, params)                                                                                   \
    *(void **)&fw.name = dlsym(lib, #name);                                                                            \
    if (fw.name == NULL)                                                                                               \
        return false;
    ZX_XPTI_FUNCTIONS(ZB_LOOKUP)
    ZB_LOOKUP(const zx_xpti_payload *, xptiQueryPayloadByUID, (uint64_t))
#undef ZB_LOOKUP
    uint64_t instance;
    zb_event = fw.xptiMakeEvent(NULL, &zb_payload, ZX_ET_ALGORITHM, ZX_ACTIVITY_ACTIVE, &instance);
    if (zb_event == NULL)
        return false;
    fw.xptiForceSetTraceEnabled(true); /* no subscriber library: the benchmark registers its callback itself */
    zb_stream = fw.xptiRegisterStream("bench.stream");
    return zb_stream != 0 &&
           fw.xptiRegisterCallback(zb_stream, ZX_TP_FUNCTION_BEGIN, zb_empty_callback) == ZX_XPTI_SUCCESS;
}

static int zb_dispatcher(uint64_t iterations) {
    if (!zb_load_dispatcher()) {
        fprintf(stderr, "zefake-bench-xpti: cannot load %s\n", ZB_DISPATCHER);
        return EXIT_FAILURE;
    }
    static const struct {
        const char *name;
        void (*body)(uint64_t);
    } cases[] = {
        {"nobody listening: guard", zb_body_guard_idle},
        {"nobody listening: notify", zb_body_notify_idle},
        {"one empty callback: notify", zb_body_notify_one},
        {"composite: guard+id+notify", zb_body_composite},
        {"new event: MakeEvent+Release", zb_body_payload},
        {"known string: RegisterString", zb_body_string},
        {"payload of an event: QueryPayload", zb_body_query_payload},
        {"payload of a uid: QueryPayloadByUID", zb_body_query_by_uid},
    };
    double base = zb_measure(zb_body_indirect, iterations);
    printf("XPTI through our dispatcher (ns per operation; ratio to an empty indirect call of %.2f ns):\n", base);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double ns = zb_measure(cases[i].body, iterations);
        printf("  %-36s %7.2f ns ratio=%.2f\n", cases[i].name, ns, ns / base);
    }
    printf("  published for the real framework: ~10 ns per notification, ~55 ns composite\n");
    return EXIT_SUCCESS;
}

/* ------------------------------------------------------------------------------------------------------------------
 * The emitter, end to end (child process) */

static ze_device_handle_t zb_device;

static void zb_body_properties(uint64_t i) {
    (void)i;
    ze_device_properties_t props = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
    zeDeviceGetProperties(zb_device, &props);
}

static bool zb_open_device(void) {
    ze_driver_handle_t driver;
    uint32_t count = 1;
    if (zeInit(0) != ZE_RESULT_SUCCESS || zeDriverGet(&count, &driver) != ZE_RESULT_SUCCESS || count == 0)
        return false;
    count = 1;
    return zeDeviceGet(driver, &count, &zb_device) == ZE_RESULT_SUCCESS && count == 1;
}

static int zb_emitter_child(uint64_t iterations) {
    void *emitter = dlopen(ZB_EMITTER, RTLD_NOW | RTLD_LOCAL);
    zx_emitter_state (*init)(void) = NULL;
    if (emitter != NULL)
        *(void **)&init = dlsym(emitter, "zx_emitter_init");
    if (init == NULL || !zb_open_device()) {
        fprintf(stderr, "zefake-bench-xpti: no emitter or no driver (set ZE_ENABLE_ALT_DRIVERS)\n");
        return EXIT_FAILURE;
    }
    double untraced = zb_measure(zb_body_properties, iterations);
    if (init() != ZX_EMITTER_TRACING) {
        fprintf(stderr, "zefake-bench-xpti: the emitter did not start\n");
        return EXIT_FAILURE;
    }
    double traced = zb_measure(zb_body_properties, iterations);
    printf("untraced=%.1f traced=%.1f ratio=%.2f\n", untraced, traced, traced / untraced);
    return EXIT_SUCCESS;
}

static void zb_emitter_environment(void) {
    const char *old = getenv("LD_LIBRARY_PATH");
    char path[8192];
    snprintf(path, sizeof path, "%s%s%s", ZB_LAYER_DIR, old != NULL && *old != '\0' ? ":" : "", old ? old : "");
    setenv("LD_LIBRARY_PATH", path, 1);
    setenv("ZE_ENABLE_TRACING_LAYER", "1", 1);
    setenv("XPTI_FRAMEWORK_DISPATCHER", ZB_DISPATCHER, 1);
    setenv("XPTI_SUBSCRIBERS", ZB_EMPTY_SUBSCRIBER, 1);
    unsetenv("XPTI_TRACE_ENABLE");
}

static void zb_prepare_emitter(const void *unused) {
    (void)unused;
    zb_emitter_environment();
}

/* Runs the child; its report line goes into `line`. */
static bool zb_run_emitter(bool quick, char *line, size_t size) {
    char *args[] = {"zefake-bench-xpti", "--child", quick ? "--quick" : NULL, NULL};
    return zb_child_line(args, zb_prepare_emitter, NULL, line, size);
}

int main(int argc, char **argv) {
    bool quick = false, child = false;
    for (int i = 1; i < argc; i++) {
        quick = quick || strcmp(argv[i], "--quick") == 0;
        child = child || strcmp(argv[i], "--child") == 0;
    }
    if (child)
        return zb_emitter_child(quick ? 2000 : 500000);
    int status = zb_dispatcher(quick ? 20000 : 10000000);
    char line[256] = "";
    printf("zeDeviceGetProperties traced by the emitter, four streams with empty callbacks (ns per call):\n");
    if (!zb_run_emitter(quick, line, sizeof line)) {
        printf("  emitter failed\n");
        return EXIT_FAILURE;
    }
    printf("  emitter %s", line);
    return status;
}
