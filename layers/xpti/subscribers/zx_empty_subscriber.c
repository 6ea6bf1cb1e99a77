/* A subscriber whose callbacks return at once, on every trace type the emitter uses: what the benchmark measures the
 * emitter's and the dispatcher's own cost with. */
#include "zx_xpti.h"

#include <stddef.h>

#define ZX_EXPORT_SUB __attribute__((visibility("default")))

static void zx_empty(uint16_t type, zx_xpti_event *parent, zx_xpti_event *event, uint64_t instance,
                     const void *user_data) {
    (void)type;
    (void)parent;
    (void)event;
    (void)instance;
    (void)user_data;
}

ZX_EXPORT_SUB void xptiTraceInit(unsigned major, unsigned minor, const char *version_str, const char *stream_name);
ZX_EXPORT_SUB void xptiTraceFinish(const char *stream_name);

ZX_EXPORT_SUB void xptiTraceInit(unsigned major, unsigned minor, const char *version_str, const char *stream_name) {
    (void)major;
    (void)minor;
    (void)version_str;
    static const uint16_t types[] = {ZX_TP_GRAPH_CREATE,
                                     ZX_TP_NODE_CREATE,
                                     ZX_TP_EDGE_CREATE,
                                     ZX_TP_TASK_BEGIN,
                                     ZX_TP_TASK_END,
                                     ZX_TP_SIGNAL,
                                     ZX_TP_WAIT_BEGIN,
                                     ZX_TP_WAIT_END,
                                     ZX_TP_FUNCTION_BEGIN,
                                     ZX_TP_FUNCTION_END,
                                     ZX_TP_FUNCTION_WITH_ARGS_BEGIN,
                                     ZX_TP_FUNCTION_WITH_ARGS_END,
                                     ZX_TP_MEM_ALLOC_BEGIN,
                                     ZX_TP_MEM_ALLOC_END,
                                     ZX_TP_MEM_RELEASE_BEGIN,
                                     ZX_TP_MEM_RELEASE_END,
                                     ZX_TP_QUEUE_CREATE,
                                     ZX_TP_QUEUE_DESTROY};
    uint8_t stream = xptiRegisterStream(stream_name);
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        xptiRegisterCallback(stream, types[i], zx_empty);
}

ZX_EXPORT_SUB void xptiTraceFinish(const char *stream_name) {
    (void)stream_name;
}
