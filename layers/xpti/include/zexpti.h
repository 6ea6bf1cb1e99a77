/* libzexpti.so: the XPTI emitter for Level Zero (docs/xpti.md).
 *
 * An unmodified application is traced with environment variables alone:
 *
 *   LD_PRELOAD=libzexpti.so ZE_ENABLE_TRACING_LAYER=1 \
 *   XPTI_FRAMEWORK_DISPATCHER=/path/libxptifw.so XPTI_SUBSCRIBERS=/path/libtool.so ./app
 *
 * The library defines zeInit: the application's zeInit reaches it first, calls the loader's, and then starts the
 * emitter, because the loader's tracer API works only after zeInit. A tool that links the library instead (or an
 * application that reaches zeInit through dlsym on the loader) calls zx_emitter_init itself after zeInit. */
#ifndef ZEXPTI_H
#define ZEXPTI_H

#include <stdint.h>

/* The streams and the versions they are initialised with (xptiInitialize's major and minor). */
#define ZX_STREAM_CALL        "sycl.experimental.level_zero.call"
#define ZX_STREAM_CALL_MAJOR  0
#define ZX_STREAM_CALL_MINOR  1
#define ZX_STREAM_DEBUG       "sycl.experimental.level_zero.debug"
#define ZX_STREAM_DEBUG_MAJOR 0
#define ZX_STREAM_DEBUG_MINOR 1
#define ZX_STREAM_MEM         "sycl.experimental.mem_alloc"
#define ZX_STREAM_MEM_MAJOR   0
#define ZX_STREAM_MEM_MINOR   1
#define ZX_STREAM_GRAPH       "sycl.experimental.level_zero.graph"
#define ZX_STREAM_GRAPH_MAJOR 1
#define ZX_STREAM_GRAPH_MINOR 0
#define ZX_STREAM_ITT         "sycl.experimental.level_zero.itt"
#define ZX_STREAM_ITT_MAJOR   1
#define ZX_STREAM_ITT_MINOR   0

/* ------------------------------------------------------------------------------------------------------------------
 * The ITT stream (docs/xpti.md, "sycl.experimental.level_zero.itt"): one notification per ITT device annotation a
 * work-item takes. Offered only when a driver delivers annotations (zefake's extension ZE_experimental_zefake).
 * parent and object are NULL, instance is the work-item's id, user_data a const zx_itt_annotation *. */

/* The annotation kinds, the values of the driver's zefake_annotation_kind_t. */
typedef enum zx_itt_kind {
    ZX_ITT_WI_START = 0,         /* __itt_offload_wi_start_wrapper: a work-item starts */
    ZX_ITT_WI_FINISH = 1,        /* __itt_offload_wi_finish_wrapper: it ends */
    ZX_ITT_WG_BARRIER = 2,       /* __itt_offload_wg_barrier_wrapper: it waits at a work-group barrier */
    ZX_ITT_WI_RESUME = 3,        /* __itt_offload_wi_resume_wrapper: it resumes after the barrier */
    ZX_ITT_ATOMIC_OP_START = 4,  /* __itt_offload_atomic_op_start: an atomic operation starts */
    ZX_ITT_ATOMIC_OP_FINISH = 5, /* __itt_offload_atomic_op_finish: it has finished */
    ZX_ITT_KIND_COUNT = 6
} zx_itt_kind;

/* Trace point type of each kind: ZX_TP_ITT_BASE + kind, so that every start is even and its finish the odd number
 * after it, as XPTI's begin/end pairs are. XPTI frameworks accept a notification without an event only for a few
 * types (function, mem_alloc/mem_release, offload memory object, diagnostics); 32-37 are the six of them that form
 * three begin/end pairs. On this stream they mean the kinds below, not memory operations. */
#define ZX_TP_ITT_BASE 32
enum {
    ZX_TP_ITT_WI_START = ZX_TP_ITT_BASE + ZX_ITT_WI_START,                 /* 32 */
    ZX_TP_ITT_WI_FINISH = ZX_TP_ITT_BASE + ZX_ITT_WI_FINISH,               /* 33 */
    ZX_TP_ITT_WG_BARRIER = ZX_TP_ITT_BASE + ZX_ITT_WG_BARRIER,             /* 34 */
    ZX_TP_ITT_WI_RESUME = ZX_TP_ITT_BASE + ZX_ITT_WI_RESUME,               /* 35 */
    ZX_TP_ITT_ATOMIC_OP_START = ZX_TP_ITT_BASE + ZX_ITT_ATOMIC_OP_START,   /* 36 */
    ZX_TP_ITT_ATOMIC_OP_FINISH = ZX_TP_ITT_BASE + ZX_ITT_ATOMIC_OP_FINISH, /* 37 */
};

/* One annotation (104 bytes on x86-64; offsets below). Valid during the notification only. Minor versions of the
 * stream only append fields: read `size` before a field added later. */
typedef struct zx_itt_annotation {
    uint32_t size;           /* @0: sizeof(zx_itt_annotation) of the emitter */
    uint32_t kind;           /* @4: zx_itt_kind */
    const char *kernel_name; /* @8: the kernel's entry-point name; never NULL ("" when the driver gave none) */
    void *device;            /* @16: the ze_device_handle_t the kernel was built for, as the driver knows it */
    uint64_t group_id[3];    /* @24: get_group_id(0..2) */
    uint64_t local_id[3];    /* @48: get_local_id(0..2) */
    uint64_t work_item_id;   /* @72: get_global_linear_id(), also the notification's instance */
    uint32_t group_size;     /* @80: work-items in the work-group */
    uint32_t atomic_op;      /* @84: atomic kinds: the __itt_atomic_mem_op_t the kernel passed, else 0 */
    uint64_t atomic_object;  /* @88: atomic kinds: the address the kernel passed, else 0 */
    uint32_t atomic_order;   /* @96: atomic kinds: the __itt_atomic_mem_order_t the kernel passed, else 0 */
    uint32_t reserved;       /* @100: 0 */
} zx_itt_annotation;

typedef enum zx_emitter_state {
    ZX_EMITTER_NOT_STARTED = 0, /* zeInit has not succeeded yet, or nobody asked */
    ZX_EMITTER_OFF = 1,         /* decided: no framework, tracing disabled, nobody listening, or no tracer */
    ZX_EMITTER_TRACING = 2,     /* the tracer is enabled and the streams are initialised */
    ZX_EMITTER_FINISHED = 3,    /* zx_emitter_finish ran (at exit at the latest) */
} zx_emitter_state;

/* Starts the emitter once Level Zero is initialised: loads the framework named by XPTI_FRAMEWORK_DISPATCHER,
 * initialises the streams, and creates and enables a tracer when someone listens. Before a successful zeInit it does
 * nothing and returns ZX_EMITTER_NOT_STARTED; after that the first call decides and later calls return the state.
 * Thread-safe. Diagnostics go to stderr, prefixed "zexpti: ". */
zx_emitter_state zx_emitter_init(void);

/* Stops tracing: disables and destroys the tracer, ends tasks still open, finalises the streams (subscribers then
 * write their results). Registered with atexit by zx_emitter_init; calling it earlier is allowed. */
void zx_emitter_finish(void);

zx_emitter_state zx_emitter_status(void);

#endif
