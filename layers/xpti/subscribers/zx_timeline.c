/* A sample subscriber: writes a Chrome/Perfetto trace-event JSON timeline of the emitter's streams, to open in
 * ui.perfetto.dev or chrome://tracing (docs/xpti.md, "The timeline subscriber").
 *
 *   XPTI_SUBSCRIBERS=<build>/layers/xpti/libzx_timeline.so ZX_TIMELINE_FILE=trace.json ...
 *
 * ZX_TIMELINE_FILE names the output; default zexpti-timeline.<pid>.json in the current directory. What it shows:
 * each Level Zero call as a slice on its thread (the debug stream adds the arguments and the result to the slice),
 * host waits as slices inside them, each task (an execution of a node) as an async slice from task_begin to task_end,
 * nodes, edges, signals and queues as instant events with their metadata, and the USM memory allocated as a counter.
 * With ZX_TIMELINE_ITT=1, also each ITT device annotation as an instant event on the driver thread that ran the
 * work-item: off by default, because a kernel takes six annotations per work-item and a timeline of millions of
 * instants is of no use to a viewer (and costs the kernel a formatted write each).
 *
 * The file is written as the events come (buffered) and closed when the last stream is finalised, or at unload. */
#include "zexpti.h"
#include "zx_functions.h"
#include "zx_xpti.h"

#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define ZX_TL_EXPORT __attribute__((visibility("default")))

/* One event being formatted. Each append is all or nothing, and the last bytes are kept for the closing braces, so
 * that an event with too much to say loses members but stays valid JSON. */
#define ZX_TL_RESERVE 8
typedef struct zx_tl_buf {
    char data[4096];
    size_t len;
} zx_tl_buf;

static pthread_mutex_t zx_tl_lock = PTHREAD_MUTEX_INITIALIZER;
static FILE *zx_tl_file;
static bool zx_tl_first = true;
static bool zx_tl_closed;
static unsigned zx_tl_streams; /* initialised and not yet finalised */
static bool zx_tl_itt_counted; /* the ITT stream is among them */
static int64_t zx_tl_memory;   /* USM bytes allocated */
static zx_pfn_xpti_metadata_at zx_tl_metadata_at;
static pthread_once_t zx_tl_metadata_once = PTHREAD_ONCE_INIT;

/* The arguments of this thread's last call, from the debug stream, for the end of its slice. */
static _Thread_local uint64_t zx_tl_args_instance;
static _Thread_local char zx_tl_args[2048];

/* ------------------------------------------------------------------------------------------------------------------
 * Formatting */

static void zx_tl_put(zx_tl_buf *b, const char *format, ...) __attribute__((format(printf, 2, 3)));

static void zx_tl_put(zx_tl_buf *b, const char *format, ...) {
    size_t room = sizeof b->data - ZX_TL_RESERVE - b->len;
    va_list args;
    va_start(args, format);
    int n = vsnprintf(b->data + b->len, room, format, args);
    va_end(args);
    if (n > 0 && (size_t)n < room)
        b->len += (size_t)n;
    else
        b->data[b->len] = '\0';
}

/* A closing brace: always fits (it uses the reserve). */
static void zx_tl_close(zx_tl_buf *b) {
    if (b->len < sizeof b->data - 1)
        b->data[b->len++] = '}';
    b->data[b->len] = '\0';
}

/* text as the body of a JSON string literal, cut at a character boundary when it does not fit. Bytes outside ASCII
 * are escaped one by one (as \u00XX), so that any bytes a name holds give valid JSON. */
static void zx_tl_escape(const char *text, char *out, size_t size) {
    size_t used = 0;
    for (const unsigned char *p = (const unsigned char *)(text != NULL ? text : ""); *p != '\0'; p++) {
        char piece[8];
        if (*p == '"' || *p == '\\')
            snprintf(piece, sizeof piece, "\\%c", *p);
        else if (*p < 0x20 || *p >= 0x7f)
            snprintf(piece, sizeof piece, "\\u%04x", *p);
        else
            snprintf(piece, sizeof piece, "%c", *p);
        size_t n = strlen(piece);
        if (used + n >= size)
            break;
        memcpy(out + used, piece, n);
        used += n;
    }
    out[used] = '\0';
}

/* A JSON string literal, after `prefix` (e.g. ",\"key\":"), appended as one piece. */
static void zx_tl_put_string(zx_tl_buf *b, const char *prefix, const char *text) {
    char escaped[1024];
    zx_tl_escape(text, escaped, sizeof escaped);
    zx_tl_put(b, "%s\"%s\"", prefix, escaped);
}

static double zx_tl_now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* {"name":...,"cat":...,"ph":...,"ts":...,"pid":...,"tid":... (the caller adds more and zx_tl_emit closes it) */
static void zx_tl_start(zx_tl_buf *b, const char *phase, const char *category, const char *name) {
    b->len = 0;
    zx_tl_put_string(b, "{\"name\":", name);
    zx_tl_put(b, ",\"cat\":\"%s\",\"ph\":\"%s\",\"ts\":%.3f,\"pid\":%d,\"tid\":%d", category, phase, zx_tl_now_us(),
              (int)getpid(), (int)gettid());
}

static void zx_tl_write_locked(const char *text, size_t len) {
    if (zx_tl_file == NULL || zx_tl_closed)
        return;
    fputs(zx_tl_first ? "\n" : ",\n", zx_tl_file);
    fwrite(text, 1, len, zx_tl_file);
    zx_tl_first = false;
}

static void zx_tl_emit(zx_tl_buf *b) {
    zx_tl_close(b);
    pthread_mutex_lock(&zx_tl_lock);
    zx_tl_write_locked(b->data, b->len);
    pthread_mutex_unlock(&zx_tl_lock);
}

/* ------------------------------------------------------------------------------------------------------------------
 * The file */

static void zx_tl_open_locked(void) {
    if (zx_tl_file != NULL || zx_tl_closed)
        return;
    char path[4096];
    const char *name = getenv("ZX_TIMELINE_FILE");
    if (name == NULL || *name == '\0') {
        snprintf(path, sizeof path, "zexpti-timeline.%d.json", (int)getpid());
        name = path;
    }
    zx_tl_file = fopen(name, "w");
    if (zx_tl_file == NULL) {
        fprintf(stderr, "zx_timeline: cannot write %s: %s\n", name, strerror(errno));
        zx_tl_closed = true;
        return;
    }
    fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", zx_tl_file);
    zx_tl_buf b;
    zx_tl_start(&b, "M", "__metadata", "process_name");
    zx_tl_put_string(&b, ",\"args\":{\"name\":", program_invocation_short_name);
    zx_tl_close(&b);
    zx_tl_close(&b);
    zx_tl_write_locked(b.data, b.len);
}

static void zx_tl_close_locked(void) {
    if (zx_tl_file == NULL)
        return;
    fputs("\n]}\n", zx_tl_file);
    fclose(zx_tl_file);
    zx_tl_file = NULL;
    zx_tl_closed = true;
}

__attribute__((destructor)) static void zx_tl_unload(void) {
    pthread_mutex_lock(&zx_tl_lock);
    zx_tl_close_locked();
    pthread_mutex_unlock(&zx_tl_lock);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Calls */

/* Argument names are C identifiers: no escaping needed. */
static void zx_tl_put_arg(zx_tl_buf *b, const zx_arg *arg) {
    switch (arg->kind) {
    case ZX_ARG_UNSIGNED:
    case ZX_ARG_FLAGS:
        zx_tl_put(b, ",\"%s\":%" PRIu64, arg->name, arg->value);
        break;
    case ZX_ARG_SIGNED:
    case ZX_ARG_ENUM:
        zx_tl_put(b, ",\"%s\":%" PRId64, arg->name, (int64_t)arg->value);
        break;
    case ZX_ARG_BOOL:
        zx_tl_put(b, ",\"%s\":%s", arg->name, arg->value != 0 ? "true" : "false");
        break;
    default:
        zx_tl_put(b, ",\"%s\":\"0x%" PRIx64 "\"", arg->name, arg->value);
        break;
    }
}

static void zx_tl_on_call(uint16_t type, zx_xpti_event *parent, zx_xpti_event *event, uint64_t instance,
                          const void *user_data) {
    (void)parent;
    (void)event;
    zx_tl_buf b;
    zx_tl_start(&b, type == ZX_TP_FUNCTION_BEGIN ? "B" : "E", "level_zero", user_data);
    zx_tl_put(&b, ",\"args\":{\"correlation_id\":%" PRIu64, instance);
    if (type == ZX_TP_FUNCTION_END && zx_tl_args_instance == instance)
        zx_tl_put(&b, "%s", zx_tl_args);
    zx_tl_close(&b);
    zx_tl_emit(&b);
}

/* Keeps the arguments and result for the end of the call's slice, which the call stream sends next. */
static void zx_tl_on_debug(uint16_t type, zx_xpti_event *parent, zx_xpti_event *event, uint64_t instance,
                           const void *user_data) {
    (void)type;
    (void)parent;
    (void)event;
    const zx_function_with_args *fwa = user_data;
    if (fwa == NULL || fwa->ret_data == NULL)
        return;
    zx_arg args[ZX_ARGS_MAX];
    uint32_t n = zx_function_args(fwa->function_id, fwa->args_data, args, ZX_ARGS_MAX);
    zx_tl_buf b = {.len = 0};
    b.data[0] = '\0';
    for (uint32_t i = 0; i < n; i++)
        zx_tl_put_arg(&b, &args[i]);
    ze_result_t result = *(const ze_result_t *)fwa->ret_data;
    const char *name = zx_result_name(result);
    if (name != NULL)
        zx_tl_put(&b, ",\"result\":\"%s\"", name);
    else
        zx_tl_put(&b, ",\"result\":\"0x%x\"", (unsigned)result);
    if (b.len >= sizeof zx_tl_args)
        b.len = 0; /* never cut members in half: the slice goes without its arguments */
    memcpy(zx_tl_args, b.data, b.len);
    zx_tl_args[b.len] = '\0';
    zx_tl_args_instance = instance;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Memory */

static void zx_tl_on_mem(uint16_t type, zx_xpti_event *parent, zx_xpti_event *event, uint64_t instance,
                         const void *user_data) {
    (void)parent;
    (void)event;
    (void)instance;
    const zx_mem_alloc_data *data = user_data;
    if (data == NULL || data->alloc_pointer == 0)
        return;
    pthread_mutex_lock(&zx_tl_lock);
    zx_tl_memory += type == ZX_TP_MEM_ALLOC_END ? (int64_t)data->alloc_size : -(int64_t)data->alloc_size;
    int64_t total = zx_tl_memory;
    pthread_mutex_unlock(&zx_tl_lock);
    zx_tl_buf b;
    zx_tl_start(&b, "C", "memory", "USM memory");
    zx_tl_put(&b, ",\"args\":{\"bytes\":%" PRId64, total);
    zx_tl_close(&b);
    zx_tl_emit(&b);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Graph */

static const char *zx_tl_event_name(zx_xpti_event *event) {
    const zx_xpti_payload *payload = event != NULL ? xptiQueryPayload(event) : NULL;
    return payload != NULL && payload->name != NULL ? payload->name : "?";
}

static void zx_tl_find_metadata_at(void) {
    void *framework = dlopen("libxptifw.so", RTLD_NOLOAD | RTLD_LAZY);
    if (framework != NULL)
        *(void **)&zx_tl_metadata_at = dlsym(framework, ZX_XPTI_METADATA_AT);
}

/* The event's metadata as JSON members: through zx_xpti_metadata_at where the framework is ours, else through
 * xptiQueryMetadata. */
static void zx_tl_put_metadata(zx_tl_buf *b, zx_xpti_event *event) {
    pthread_once(&zx_tl_metadata_once, zx_tl_find_metadata_at);
    const char *key;
    zx_xpti_object_id value;
    for (uint32_t i = 0; zx_xpti_metadata_get(zx_tl_metadata_at, event, i, &key, &value); i++) {
        zx_xpti_object_data data = xptiLookupObject(value);
        char name[256];
        zx_tl_escape(key, name, sizeof name);
        if (data.type == ZX_METADATA_UNSIGNED && data.size == sizeof(uint64_t)) {
            uint64_t number;
            memcpy(&number, data.data, sizeof number);
            zx_tl_put(b, ",\"%s\":%" PRIu64, name, number);
        } else {
            char prefix[272];
            snprintf(prefix, sizeof prefix, ",\"%s\":", name);
            zx_tl_put_string(b, prefix, data.data);
        }
    }
}

static void zx_tl_instant(uint16_t type, zx_xpti_event *event, const void *user_data) {
    static const char *const names[] = {[ZX_TP_NODE_CREATE] = "node",
                                        [ZX_TP_EDGE_CREATE] = "edge",
                                        [ZX_TP_SIGNAL] = "signal",
                                        [ZX_TP_QUEUE_CREATE] = "queue create",
                                        [ZX_TP_QUEUE_DESTROY] = "queue destroy",
                                        [ZX_TP_GRAPH_CREATE] = "graph"};
    zx_tl_buf b;
    char name[160];
    const char *what = type < sizeof names / sizeof names[0] && names[type] != NULL ? names[type] : "graph";
    snprintf(name, sizeof name, "%s: %s", what, zx_tl_event_name(event));
    zx_tl_start(&b, "i", "graph", name);
    zx_tl_put(&b, ",\"s\":\"p\",\"args\":{\"uid\":%" PRIu64, event != NULL ? event->unique_id : 0);
    if (type == ZX_TP_NODE_CREATE && user_data != NULL)
        zx_tl_put_string(&b, ",\"kind\":", user_data);
    if (type == ZX_TP_EDGE_CREATE && event != NULL)
        zx_tl_put(&b, ",\"source\":%" PRIu64 ",\"target\":%" PRIu64, event->source_id, event->target_id);
    if (event != NULL)
        zx_tl_put_metadata(&b, event);
    zx_tl_close(&b);
    zx_tl_emit(&b);
}

static void zx_tl_on_graph(uint16_t type, zx_xpti_event *parent, zx_xpti_event *event, uint64_t instance,
                           const void *user_data) {
    (void)parent;
    zx_tl_buf b;
    switch (type) {
    case ZX_TP_TASK_BEGIN:
    case ZX_TP_TASK_END:
        zx_tl_start(&b, type == ZX_TP_TASK_BEGIN ? "b" : "e", "task", zx_tl_event_name(event));
        zx_tl_put(&b, ",\"id\":\"0x%" PRIx64 "\",\"args\":{\"node\":%" PRIu64, instance,
                  event != NULL ? event->unique_id : 0);
        zx_tl_close(&b);
        zx_tl_emit(&b);
        break;
    case ZX_TP_WAIT_BEGIN:
    case ZX_TP_WAIT_END:
        zx_tl_start(&b, type == ZX_TP_WAIT_BEGIN ? "B" : "E", "wait", "host wait");
        zx_tl_put_string(&b, ",\"args\":{\"on\":", user_data);
        zx_tl_close(&b);
        zx_tl_emit(&b);
        break;
    default:
        zx_tl_instant(type, event, user_data);
        break;
    }
}

/* ------------------------------------------------------------------------------------------------------------------
 * ITT annotations (opt-in: ZX_TIMELINE_ITT=1) */

static bool zx_tl_itt_wanted(void) {
    const char *value = getenv("ZX_TIMELINE_ITT");
    return value != NULL && strcmp(value, "1") == 0;
}

static void zx_tl_on_itt(uint16_t type, zx_xpti_event *parent, zx_xpti_event *event, uint64_t instance,
                         const void *user_data) {
    (void)type;
    (void)parent;
    (void)event;
    (void)instance;
    static const char *const names[ZX_ITT_KIND_COUNT] = {"wi_start",  "wi_finish",       "wg_barrier",
                                                         "wi_resume", "atomic_op_start", "atomic_op_finish"};
    const zx_itt_annotation *a = user_data;
    if (a == NULL || a->kind >= ZX_ITT_KIND_COUNT)
        return;
    zx_tl_buf b;
    zx_tl_start(&b, "i", "itt", names[a->kind]);
    zx_tl_put_string(&b, ",\"s\":\"t\",\"args\":{\"kernel\":", a->kernel_name);
    zx_tl_put(&b, ",\"work_item\":%" PRIu64 ",\"group\":\"%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\"", a->work_item_id,
              a->group_id[0], a->group_id[1], a->group_id[2]);
    zx_tl_put(&b, ",\"local\":\"%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\"", a->local_id[0], a->local_id[1], a->local_id[2]);
    if (a->kind == ZX_ITT_ATOMIC_OP_START || a->kind == ZX_ITT_ATOMIC_OP_FINISH)
        zx_tl_put(&b, ",\"object\":\"0x%" PRIx64 "\",\"op\":%u,\"order\":%u", a->atomic_object, a->atomic_op,
                  a->atomic_order);
    zx_tl_close(&b);
    zx_tl_emit(&b);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Entry points */

static void zx_tl_register(uint8_t stream, const uint16_t *types, size_t count, zx_xpti_callback cb) {
    for (size_t i = 0; i < count; i++)
        xptiRegisterCallback(stream, types[i], cb);
}

ZX_TL_EXPORT void xptiTraceInit(unsigned major, unsigned minor, const char *version_str, const char *stream_name);
ZX_TL_EXPORT void xptiTraceFinish(const char *stream_name);

static const uint16_t zx_tl_itt_types[ZX_ITT_KIND_COUNT] = {ZX_TP_ITT_WI_START,        ZX_TP_ITT_WI_FINISH,
                                                            ZX_TP_ITT_WG_BARRIER,      ZX_TP_ITT_WI_RESUME,
                                                            ZX_TP_ITT_ATOMIC_OP_START, ZX_TP_ITT_ATOMIC_OP_FINISH};

static const uint16_t zx_tl_graph_types[] = {
    ZX_TP_GRAPH_CREATE, ZX_TP_NODE_CREATE, ZX_TP_EDGE_CREATE, ZX_TP_TASK_BEGIN,   ZX_TP_TASK_END,
    ZX_TP_SIGNAL,       ZX_TP_WAIT_BEGIN,  ZX_TP_WAIT_END,    ZX_TP_QUEUE_CREATE, ZX_TP_QUEUE_DESTROY};

ZX_TL_EXPORT void xptiTraceInit(unsigned major, unsigned minor, const char *version_str, const char *stream_name) {
    (void)major;
    (void)minor;
    (void)version_str;
    uint8_t id = xptiRegisterStream(stream_name);
    if (strcmp(stream_name, ZX_STREAM_CALL) == 0)
        zx_tl_register(id, (const uint16_t[]){ZX_TP_FUNCTION_BEGIN, ZX_TP_FUNCTION_END}, 2, zx_tl_on_call);
    else if (strcmp(stream_name, ZX_STREAM_DEBUG) == 0)
        zx_tl_register(id, (const uint16_t[]){ZX_TP_FUNCTION_WITH_ARGS_END}, 1, zx_tl_on_debug);
    else if (strcmp(stream_name, ZX_STREAM_MEM) == 0)
        zx_tl_register(id, (const uint16_t[]){ZX_TP_MEM_ALLOC_END, ZX_TP_MEM_RELEASE_END}, 2, zx_tl_on_mem);
    else if (strcmp(stream_name, ZX_STREAM_GRAPH) == 0)
        zx_tl_register(id, zx_tl_graph_types, sizeof zx_tl_graph_types / sizeof zx_tl_graph_types[0], zx_tl_on_graph);
    else if (strcmp(stream_name, ZX_STREAM_ITT) == 0 && zx_tl_itt_wanted())
        zx_tl_register(id, zx_tl_itt_types, ZX_ITT_KIND_COUNT, zx_tl_on_itt);
    else
        return; /* not one of the emitter's streams, or the ITT stream unasked */
    pthread_mutex_lock(&zx_tl_lock);
    zx_tl_streams++;
    zx_tl_itt_counted = zx_tl_itt_counted || strcmp(stream_name, ZX_STREAM_ITT) == 0;
    zx_tl_open_locked();
    pthread_mutex_unlock(&zx_tl_lock);
}

ZX_TL_EXPORT void xptiTraceFinish(const char *stream_name) {
    bool ours = strcmp(stream_name, ZX_STREAM_CALL) == 0 || strcmp(stream_name, ZX_STREAM_DEBUG) == 0 ||
                strcmp(stream_name, ZX_STREAM_MEM) == 0 || strcmp(stream_name, ZX_STREAM_GRAPH) == 0;
    pthread_mutex_lock(&zx_tl_lock);
    if (strcmp(stream_name, ZX_STREAM_ITT) == 0 && zx_tl_itt_counted) {
        ours = true;
        zx_tl_itt_counted = false;
    }
    if (ours && zx_tl_streams > 0 && --zx_tl_streams == 0)
        zx_tl_close_locked();
    pthread_mutex_unlock(&zx_tl_lock);
}
