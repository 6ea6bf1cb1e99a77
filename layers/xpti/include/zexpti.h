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
