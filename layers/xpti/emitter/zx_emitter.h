/* Internals of the emitter (libzexpti.so), shared by its files and its generated code:
 *
 *   zx_emitter.c       start-up (the zeInit wrapper, zx_emitter_init), the framework proxy, finish
 *   zx_calls.c         the per-call path: correlation ids, the call and debug streams, hook dispatch
 *   zx_mem.c           hooks for the mem_alloc stream
 *   zx_graph*.c        hooks for the graph stream
 *   zx_itt.c           the ITT stream: annotations the driver delivers through zefake's extension, not the tracer
 *   zx_emitter_gen.c   (generated) one prologue and epilogue per function, the hook and registration tables
 *
 * The context (framework functions, stream ids) is built before the tracer exists and published once with a release
 * store; callbacks read it with an acquire load and do nothing while it is NULL. */
#ifndef ZX_EMITTER_H
#define ZX_EMITTER_H

#include "zexpti.h"
#include "zx_functions.h"
#include "zx_xpti.h"

#include <layers/zel_tracing_api.h>
#include <stdatomic.h>
#include <stdbool.h>

#define ZX_EXPORT __attribute__((visibility("default")))

/* One traced call, from its prologue to its epilogue: a frame of the per-thread call stack. */
struct zx_ctx;

typedef struct zx_call {
    const struct zx_ctx *ctx; /* the context the prologue saw: the epilogue notifies through it even while the
                                 emitter finishes, so that every begin gets its end */
    uint64_t id;              /* the correlation id: instance of every begin and end notification of the call */
    uint32_t fn;              /* ZX_FN_* */
    void *params;
    ze_result_t result; /* at the epilogue; ret_data of function_with_args_end points here */
    zx_function_with_args fwa;
    uint64_t scratch[2];        /* for hooks: carried from begin to end */
    struct zx_xpti_event *wait; /* a host wait's event, from wait_begin to wait_end (zx_graph_wait) */
    char text[160];             /* for hooks: a string that lives as long as the call */
} zx_call;

typedef struct zx_hook_pair {
    void (*begin)(zx_call *call);
    void (*end)(zx_call *call);
} zx_hook_pair;

typedef struct zx_registration {
    uint32_t fn;
    const char *symbol; /* zelTracer<Name>RegisterCallback */
    ze_result_t (*reg)(void *registration, zel_tracer_handle_t tracer);
    bool hooked; /* has a hook: registered also when only the mem_alloc or graph stream is listened to */
} zx_registration;

extern const zx_hook_pair zx_hooks[ZX_FN_LIMIT];
extern const zx_registration zx_registrations[ZX_FN_COUNT];

/* The prologue and epilogue of every function. */
void zx_call_begin(uint32_t fn, void *params, void **instance);
void zx_call_end(ze_result_t result, void **instance);

typedef enum zx_stream_index { ZX_S_CALL, ZX_S_DEBUG, ZX_S_MEM, ZX_S_GRAPH, ZX_S_ITT, ZX_S_COUNT } zx_stream_index;

/* The framework's functions, looked up by name. */
typedef struct zx_fw {
#define ZX_FW_MEMBER(ret, name, params) zx_pfn_##name name;
    ZX_XPTI_FUNCTIONS(ZX_FW_MEMBER)
#undef ZX_FW_MEMBER
} zx_fw;

typedef ze_result_t(ZE_APICALL *zx_pfn_device_props)(ze_device_handle_t, ze_device_properties_t *);

typedef struct zx_ctx {
    zx_fw fw;
    uint8_t stream[ZX_S_COUNT];
    bool offered[ZX_S_COUNT];         /* initialised: the ITT stream only when a driver delivers annotations */
    bool listened[ZX_S_COUNT];        /* someone listened to the stream at start */
    zx_xpti_event *graph;             /* the graph event: parent of nodes, edges, tasks and signals */
    zx_xpti_event *old_end;           /* the object of function_with_args_end under 31 (zx_calls_start) */
    zx_pfn_device_props device_props; /* the loader's zeDeviceGetProperties, for device names */
} zx_ctx;

extern _Atomic(const zx_ctx *) zx_active;

static inline const zx_ctx *zx_ctx_get(void) {
    return atomic_load_explicit(&zx_active, memory_order_acquire);
}

/* The framework's "is anyone listening" check that guards every notification. */
static inline bool zx_wants(const zx_ctx *ctx, zx_stream_index stream, uint16_t type) {
    return ctx->fw.xptiCheckTraceEnabled(ctx->stream[stream], type);
}

static inline void zx_notify(const zx_ctx *ctx, zx_stream_index stream, uint16_t type, zx_xpti_event *parent,
                             zx_xpti_event *object, uint64_t instance, const void *user_data) {
    ctx->fw.xptiNotifySubscribers(ctx->stream[stream], type, parent, object, instance, user_data);
}

/* A diagnostic on stderr, prefixed "zexpti: ". */
void zx_diag(const char *format, ...) __attribute__((format(printf, 1, 2)));

/* The graph stream's start (graph_create) and finish (closes the tasks still open). */
void zx_graph_start(zx_ctx *ctx);
void zx_graph_finish(const zx_ctx *ctx);

/* A function of the loader, which zeInit has loaded; NULL when absent. */
void *zx_loader_symbol(const char *name);

/* The ITT stream (zx_itt.c), under the set-up lock. probe: whether a driver delivers annotations (one diagnostic
 * when none does); start: registers the driver callback when someone listens, after the context is published; stop:
 * removes it and returns once no call of it is running, before the streams are finalised. */
bool zx_itt_probe(void);
void zx_itt_start(const zx_ctx *ctx);
void zx_itt_stop(void);

/* Makes the event function_with_args_end goes with under 31, when someone listens to 31 (zx_calls.c). */
void zx_calls_start(zx_ctx *ctx);

#endif
