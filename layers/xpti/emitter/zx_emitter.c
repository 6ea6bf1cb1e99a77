/* Start-up and finish of the emitter.
 *
 * Start-up is lazy: the loader's tracer API answers ZE_RESULT_ERROR_UNINITIALIZED until the application's zeInit
 * succeeded. So this library defines zeInit: with LD_PRELOAD it is found before the loader's, calls the next zeInit in
 * the search order (the loader's) and, when that succeeds, starts the emitter. A tool that links the library calls
 * zx_emitter_init after zeInit instead. Nothing happens in a process that never calls zeInit: no framework is loaded.
 *
 * Start-up order: find the loader (already loaded by then) → load the framework (XPTI_FRAMEWORK_DISPATCHER, every
 * function required, like the real proxy) → look for a driver that delivers ITT annotations → initialise the four
 * streams, and the ITT stream when such a driver exists (subscribers register their callbacks in xptiTraceInit) → if
 * anyone listens to the four, a tracer with callbacks on every traced function (or only on the hooked ones when
 * nobody listens to the call and debug streams), and graph_create → publish the context → set the driver's
 * annotation callback when the ITT stream is listened to → enable the tracer. The ITT stream needs no tracer: when it
 * is the only one listened to, none is created. Any failure leaves tracing off with a diagnostic, the application
 * untouched. */
#include "zx_emitter.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ZX_LOADER_SONAME "libze_loader.so.1"

_Atomic(const zx_ctx *) zx_active;

static pthread_mutex_t zx_setup_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_int zx_state; /* zx_emitter_state */
static zx_ctx zx_context;   /* filled under zx_setup_lock before it is published */
static zel_tracer_handle_t zx_tracer;
static void *zx_loader;

typedef ze_result_t(ZE_APICALL *zx_pfn_init)(ze_init_flags_t);
typedef ze_result_t(ZE_APICALL *zx_pfn_driver_get)(uint32_t *, ze_driver_handle_t *);
typedef ze_result_t(ZE_APICALL *zx_pfn_tracer_create)(const zel_tracer_desc_t *, zel_tracer_handle_t *);
typedef ze_result_t(ZE_APICALL *zx_pfn_tracer_enable)(zel_tracer_handle_t, ze_bool_t);
typedef ze_result_t(ZE_APICALL *zx_pfn_tracer_destroy)(zel_tracer_handle_t);

static const struct {
    const char *name;
    uint32_t major;
    uint32_t minor;
    const char *version;
} zx_streams[ZX_S_COUNT] = {
    [ZX_S_CALL] = {ZX_STREAM_CALL, ZX_STREAM_CALL_MAJOR, ZX_STREAM_CALL_MINOR, "0.1"},
    [ZX_S_DEBUG] = {ZX_STREAM_DEBUG, ZX_STREAM_DEBUG_MAJOR, ZX_STREAM_DEBUG_MINOR, "0.1"},
    [ZX_S_MEM] = {ZX_STREAM_MEM, ZX_STREAM_MEM_MAJOR, ZX_STREAM_MEM_MINOR, "0.1"},
    [ZX_S_GRAPH] = {ZX_STREAM_GRAPH, ZX_STREAM_GRAPH_MAJOR, ZX_STREAM_GRAPH_MINOR, "1.0"},
    [ZX_S_ITT] = {ZX_STREAM_ITT, ZX_STREAM_ITT_MAJOR, ZX_STREAM_ITT_MINOR, "1.0"},
};

void zx_diag(const char *format, ...) {
    va_list args;
    va_start(args, format);
    fputs("zexpti: ", stderr);
    vfprintf(stderr, format, args);
    fputc('\n', stderr);
    va_end(args);
}

/* ------------------------------------------------------------------------------------------------------------------
 * The framework proxy */

/* XPTI_TRACE_ENABLE as the framework reads it: unset, "1" or "true" enable. */
static bool zx_trace_enabled_by_env(void) {
    const char *value = getenv("XPTI_TRACE_ENABLE");
    return value == NULL || strcmp(value, "1") == 0 || strcmp(value, "true") == 0;
}

/* Looks up every framework function; a single one missing leaves tracing off, as with the real proxy. */
static bool zx_proxy_resolve(void *framework, const char *path, zx_fw *fw) {
#define ZX_RESOLVE(ret, name, params)                                                                                  \
    *(void **)&fw->name = dlsym(framework, #name);                                                                     \
    if (fw->name == NULL) {                                                                                            \
        zx_diag("%s does not export " #name "; tracing stays off", path);                                              \
        return false;                                                                                                  \
    }
    ZX_XPTI_FUNCTIONS(ZX_RESOLVE)
#undef ZX_RESOLVE
    return true;
}

/* Loads the framework named by XPTI_FRAMEWORK_DISPATCHER. Silent when unset or disabled (nobody asked). The library
 * is never closed: subscribers' callbacks may still be running on other threads at exit. */
static bool zx_proxy_load(zx_fw *fw) {
    const char *path = getenv("XPTI_FRAMEWORK_DISPATCHER");
    if (!zx_trace_enabled_by_env() || path == NULL || *path == '\0')
        return false;
    void *framework = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (framework == NULL) {
        zx_diag("cannot load XPTI_FRAMEWORK_DISPATCHER=%s: %s; tracing stays off", path, dlerror());
        return false;
    }
    if (zx_proxy_resolve(framework, path, fw))
        return true;
    dlclose(framework);
    return false;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Streams */

/* The four tracer streams are always offered; the ITT stream only when a driver delivers annotations, and only
 * looked for when tracing is enabled, so that an untraced process gets no diagnostic about it. */
static void zx_streams_offer(zx_ctx *ctx, bool enabled) {
    for (int s = 0; s < ZX_S_COUNT; s++)
        ctx->offered[s] = s != ZX_S_ITT;
    ctx->offered[ZX_S_ITT] = enabled && zx_itt_probe();
}

static bool zx_streams_start(zx_ctx *ctx) {
    bool any = false;
    for (int s = 0; s < ZX_S_COUNT; s++) {
        if (!ctx->offered[s])
            continue;
        ctx->stream[s] = ctx->fw.xptiRegisterStream(zx_streams[s].name);
        ctx->fw.xptiInitialize(zx_streams[s].name, zx_streams[s].major, zx_streams[s].minor, zx_streams[s].version);
        bool valid = ctx->stream[s] != 0 && ctx->stream[s] != ZX_XPTI_INVALID_STREAM;
        ctx->listened[s] = valid && ctx->fw.xptiCheckTraceEnabled(ctx->stream[s], 0);
        any = any || ctx->listened[s];
    }
    return any;
}

static void zx_streams_finish(const zx_ctx *ctx) {
    for (int s = ZX_S_COUNT - 1; s >= 0; s--) {
        if (ctx->offered[s])
            ctx->fw.xptiFinalize(zx_streams[s].name);
    }
    ctx->fw.xptiFrameworkFinalize();
}

/* ------------------------------------------------------------------------------------------------------------------
 * The tracer */

void *zx_loader_symbol(const char *name) {
    return zx_loader != NULL ? dlsym(zx_loader, name) : NULL;
}

/* True once the loader answers calls: zeInit succeeded in this process. */
static bool zx_level_zero_ready(void) {
    if (zx_loader == NULL)
        zx_loader = dlopen(ZX_LOADER_SONAME, RTLD_NOLOAD | RTLD_LAZY);
    zx_pfn_driver_get driver_get;
    *(void **)&driver_get = zx_loader_symbol("zeDriverGet");
    uint32_t count = 0;
    return driver_get != NULL && driver_get(&count, NULL) == ZE_RESULT_SUCCESS;
}

/* Registers the prologue and epilogue of every function the listened streams need. A function the loader has no
 * registration function for (an older loader) is skipped. */
static ze_result_t zx_tracer_register(const zx_ctx *ctx, zel_tracer_handle_t tracer) {
    bool all = ctx->listened[ZX_S_CALL] || ctx->listened[ZX_S_DEBUG];
    for (size_t i = 0; i < ZX_FN_COUNT; i++) {
        const zx_registration *r = &zx_registrations[i];
        void *symbol = (all || r->hooked) ? zx_loader_symbol(r->symbol) : NULL;
        ze_result_t result = symbol != NULL ? r->reg(symbol, tracer) : ZE_RESULT_SUCCESS;
        if (result != ZE_RESULT_SUCCESS)
            return result;
    }
    return ZE_RESULT_SUCCESS;
}

static bool zx_tracer_start(const zx_ctx *ctx) {
    zx_pfn_tracer_create create;
    zx_pfn_tracer_destroy destroy;
    *(void **)&create = zx_loader_symbol("zelTracerCreate");
    *(void **)&destroy = zx_loader_symbol("zelTracerDestroy");
    if (create == NULL || destroy == NULL) {
        zx_diag("the Level Zero loader has no tracer API; tracing stays off");
        return false;
    }
    static int user_data; /* the layer requires one; the callbacks use the published context instead */
    zel_tracer_desc_t desc = {ZEL_STRUCTURE_TYPE_TRACER_DESC, NULL, &user_data};
    ze_result_t result = create(&desc, &zx_tracer);
    if (result == ZE_RESULT_SUCCESS)
        result = zx_tracer_register(ctx, zx_tracer);
    if (result == ZE_RESULT_SUCCESS)
        return true;
    zx_diag("cannot set up a Level Zero tracer (0x%x%s); tracing stays off", (unsigned)result,
            result == ZE_RESULT_ERROR_UNINITIALIZED ? ": set ZE_ENABLE_TRACING_LAYER=1" : "");
    if (zx_tracer != NULL)
        destroy(zx_tracer);
    zx_tracer = NULL;
    return false;
}

/* Only the four streams of traced calls need a tracer. */
static bool zx_tracer_needed(const zx_ctx *ctx) {
    return ctx->listened[ZX_S_CALL] || ctx->listened[ZX_S_DEBUG] || ctx->listened[ZX_S_MEM] ||
           ctx->listened[ZX_S_GRAPH];
}

static void zx_tracer_enable(bool enable) {
    zx_pfn_tracer_enable set_enabled;
    *(void **)&set_enabled = zx_loader_symbol("zelTracerSetEnabled");
    if (set_enabled != NULL && zx_tracer != NULL)
        set_enabled(zx_tracer, enable);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Start-up and finish */

static void zx_at_exit(void) {
    zx_emitter_finish();
}

/* Under zx_setup_lock. */
static zx_emitter_state zx_start(void) {
    zx_ctx *ctx = &zx_context;
    if (!zx_proxy_load(&ctx->fw))
        return ZX_EMITTER_OFF;
    ctx->fw.xptiFrameworkInitialize();
    bool enabled = ctx->fw.xptiTraceEnabled();
    zx_streams_offer(ctx, enabled);
    bool listened = enabled && zx_streams_start(ctx);
    if (!listened || (zx_tracer_needed(ctx) && !zx_tracer_start(ctx))) {
        zx_streams_finish(ctx);
        return ZX_EMITTER_OFF;
    }
    *(void **)&ctx->device_props = zx_loader_symbol("zeDeviceGetProperties");
    zx_graph_start(ctx);
    zx_calls_start(ctx);
    atomic_store_explicit(&zx_active, ctx, memory_order_release);
    zx_itt_start(ctx);
    zx_tracer_enable(true);
    atexit(zx_at_exit);
    return ZX_EMITTER_TRACING;
}

ZX_EXPORT zx_emitter_state zx_emitter_init(void) {
    zx_emitter_state state = (zx_emitter_state)atomic_load_explicit(&zx_state, memory_order_acquire);
    if (state != ZX_EMITTER_NOT_STARTED)
        return state;
    pthread_mutex_lock(&zx_setup_lock);
    state = (zx_emitter_state)atomic_load_explicit(&zx_state, memory_order_relaxed);
    if (state == ZX_EMITTER_NOT_STARTED && zx_level_zero_ready()) {
        state = zx_start();
        atomic_store_explicit(&zx_state, state, memory_order_release);
    }
    pthread_mutex_unlock(&zx_setup_lock);
    return state;
}

/* Stops callbacks first (unpublish; remove the driver's annotation callback and disable and destroy the tracer, both
 * of which wait for callbacks in flight), then closes what the graph stream still has open, then lets the
 * subscribers finish. */
ZX_EXPORT void zx_emitter_finish(void) {
    pthread_mutex_lock(&zx_setup_lock);
    zx_emitter_state state = (zx_emitter_state)atomic_load_explicit(&zx_state, memory_order_relaxed);
    if (state == ZX_EMITTER_TRACING) {
        atomic_store_explicit(&zx_active, NULL, memory_order_release);
        zx_itt_stop();
        zx_tracer_enable(false);
        zx_pfn_tracer_destroy destroy;
        *(void **)&destroy = zx_loader_symbol("zelTracerDestroy");
        if (destroy != NULL && zx_tracer != NULL)
            destroy(zx_tracer);
        zx_tracer = NULL;
        zx_graph_finish(&zx_context);
        zx_streams_finish(&zx_context);
    }
    atomic_store_explicit(&zx_state, ZX_EMITTER_FINISHED, memory_order_release);
    pthread_mutex_unlock(&zx_setup_lock);
}

ZX_EXPORT zx_emitter_state zx_emitter_status(void) {
    return (zx_emitter_state)atomic_load_explicit(&zx_state, memory_order_acquire);
}

/* ------------------------------------------------------------------------------------------------------------------
 * The zeInit wrapper */

static _Thread_local bool zx_in_init;

/* The next zeInit after this library in the search order: the loader's when preloaded or linked before it. */
ZX_EXPORT ze_result_t ZE_APICALL zeInit(ze_init_flags_t flags) {
    zx_pfn_init next;
    *(void **)&next = dlsym(RTLD_NEXT, "zeInit");
    if (next == NULL)
        return ZE_RESULT_ERROR_UNINITIALIZED;
    if (zx_in_init)
        return next(flags); /* a zeInit from inside the loader's: never start there */
    zx_in_init = true;
    ze_result_t result = next(flags);
    zx_in_init = false;
    if (result == ZE_RESULT_SUCCESS)
        zx_emitter_init();
    return result;
}
