/* The conformance suite's subscriber (zx_test_subscriber.h). Each callback checks what the streams promise
 * (docs/xpti.md) and counts violations; zx_ts_print reports, as key=value lines:
 *
 * (ZX_TS_PUBLIC_METADATA=1: metadata read through xptiQueryMetadata only; ZX_TS_EVENT_FLAGS=1: the framework hands
 * out events of the current generation, whose flags word is checked; ZX_TS_DETAIL=<0..3>: the stream detail level
 * it asks for, through xptiQuerySubscriberStreamDetailLevel)
 *
 *   inits, finishes, callbacks                 xptiTraceInit/Finish calls (but those of the framework's own stream,
 *   framework_inits, framework_finishes        xpti.framework, counted apart), callbacks of any kind
 *   call_begins, call_ends, call_mismatches    function_begin/_end; a mismatch is an end that is not the end of this
 *   call_bad, call_non_increasing              thread's innermost open call (instance and name), bad user data, an
 *                                              instance not above the thread's previous one
 *   debug_begins, debug_ends, debug_old_ends,  function_with_args_begin/_end (old_ends: under 31); bad ids are ids
 *   debug_mismatches, debug_bad_ids,           whose name in the table differs from function_name, bad ret a begin
 *   debug_bad_ret                              with ret_data or an end without
 *   begins_logged, begins_unlogged             the log of function_begin and function_with_args_begin (both
 *                                              streams, every thread, in arrival order; zx_ts_begin_at reads it):
 *                                              begins kept, begins past ZX_TS_MAX_BEGINS dropped
 *   mem_alloc_pairs, mem_release_pairs,        mem_alloc/_release pairs on one thread with the same instance and
 *   mem_mismatches, alloc.<i>, release.<i>     size; alloc.<i>=<pointer>:<size>, release.<i>=<pointer>:<size>
 *   graph_creates, nodes, edges, task_begins,  the graph stream; node.<i>=<kind>:<name>, node_meta.<i>=k=v;...,
 *   task_pairs, task_mismatches, signals,      edge.<i>=<source node>-><target node> (node indices), tasks=<node of
 *   signal_bad, wait_pairs, wait_mismatches,   each task_begin, in order>; parent_bad counts graph notifications
 *   queue_creates, queue_destroys,             whose parent is not the graph; stash_bad those without the
 *   parent_bad, stash_bad                      ("queue_id", id) tuple
 *   wait_events_live                           wait events the framework still finds (xptiFindEvent) when printed
 *   payload_bad, events_valid, events_invalid  graph objects and parents whose payload pointer (@48, every
 *                                              generation) is not xptiQueryPayload's; with ZX_TS_EVENT_FLAGS=1,
 *                                              those xpti::is_valid_event() accepts (flags word) and rejects
 *   itt_<kind> (itt_wi_start, ...)             the ITT stream: notifications per annotation kind; itt_bad those that
 *   itt_bad, itt_1d_bad                        break the stream's contract (docs/xpti.md: type 32 + kind, instance =
 *   itt_started, itt_finished                  work_item_id, NULL parent and object, size, a local id below the
 *   itt_kernel, itt_device, itt_group_size,    group size, atomic fields 0 on other kinds); itt_1d_bad 1-D ones whose
 *   itt_atomic (object:op:order)               work_item_id is not group_id[0] * group_size + local_id[0];
 *   itt_other                                  started/finished the sums of work_item_id + 1 over wi_start/wi_finish;
 *                                              the values of the first annotation (of the first atomic one for
 *                                              itt_atomic) and itt_other, how many later ones differ from them */
#include "zx_test_subscriber.h"
#include "zexpti.h"
#include "zx_functions.h"
#include "zx_xpti.h"

#include <dlfcn.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ZX_TS_EXPORT    __attribute__((visibility("default")))
#define ZX_TS_DEPTH     64
#define ZX_TS_MAX_NODES 256
#define ZX_TS_MAX_LOG   256

typedef struct zx_ts_frame {
    uint64_t instance;
    const void *data; /* call: the name; debug: args_data; mem: the size */
    uint16_t type;
} zx_ts_frame;

typedef struct zx_ts_stack {
    zx_ts_frame frames[ZX_TS_DEPTH];
    unsigned depth;
} zx_ts_stack;

typedef struct zx_ts_node {
    uint64_t uid;
    char kind[24];
    char name[64];
    char meta[320];
} zx_ts_node;

typedef struct zx_ts_pending {
    uint64_t instance;
    uint64_t uid;
} zx_ts_pending;

enum {
    ZX_C_INITS,
    ZX_C_FINISHES,
    ZX_C_CALLBACKS,
    ZX_C_CALL_BEGINS,
    ZX_C_CALL_ENDS,
    ZX_C_CALL_MISMATCHES,
    ZX_C_CALL_BAD,
    ZX_C_CALL_NON_INCREASING,
    ZX_C_DEBUG_BEGINS,
    ZX_C_DEBUG_ENDS,
    ZX_C_DEBUG_OLD_ENDS,
    ZX_C_DEBUG_MISMATCHES,
    ZX_C_DEBUG_BAD_IDS,
    ZX_C_DEBUG_BAD_RET,
    ZX_C_MEM_ALLOC_PAIRS,
    ZX_C_MEM_RELEASE_PAIRS,
    ZX_C_MEM_MISMATCHES,
    ZX_C_GRAPH_CREATES,
    ZX_C_TASK_BEGINS,
    ZX_C_TASK_PAIRS,
    ZX_C_TASK_MISMATCHES,
    ZX_C_SIGNALS,
    ZX_C_SIGNAL_BAD,
    ZX_C_WAIT_PAIRS,
    ZX_C_WAIT_MISMATCHES,
    ZX_C_QUEUE_CREATES,
    ZX_C_QUEUE_DESTROYS,
    ZX_C_PARENT_BAD,
    ZX_C_STASH_BAD,
    ZX_C_ITT_BAD,
    ZX_C_ITT_1D_BAD,
    ZX_C_ITT_OTHER,
    ZX_C_FRAMEWORK_INITS,
    ZX_C_FRAMEWORK_FINISHES,
    ZX_C_PAYLOAD_BAD,
    ZX_C_EVENTS_VALID,
    ZX_C_EVENTS_INVALID,
    ZX_C_COUNT
};

static const char *const zx_counter_names[ZX_C_COUNT] = {"inits",           "finishes",
                                                         "callbacks",       "call_begins",
                                                         "call_ends",       "call_mismatches",
                                                         "call_bad",        "call_non_increasing",
                                                         "debug_begins",    "debug_ends",
                                                         "debug_old_ends",  "debug_mismatches",
                                                         "debug_bad_ids",   "debug_bad_ret",
                                                         "mem_alloc_pairs", "mem_release_pairs",
                                                         "mem_mismatches",  "graph_creates",
                                                         "task_begins",     "task_pairs",
                                                         "task_mismatches", "signals",
                                                         "signal_bad",      "wait_pairs",
                                                         "wait_mismatches", "queue_creates",
                                                         "queue_destroys",  "parent_bad",
                                                         "stash_bad",       "itt_bad",
                                                         "itt_1d_bad",      "itt_other",
                                                         "framework_inits", "framework_finishes",
                                                         "payload_bad",     "events_valid",
                                                         "events_invalid"};

static atomic_ulong zx_counters[ZX_C_COUNT];

static _Thread_local zx_ts_stack zx_call_stack, zx_debug_stack, zx_mem_stack;
static _Thread_local uint64_t zx_last_instance;

static pthread_mutex_t zx_lock = PTHREAD_MUTEX_INITIALIZER;
static zx_ts_call_record zx_last_calls[ZX_FN_LIMIT];
static uint64_t zx_allocs[ZX_TS_MAX_LOG][2], zx_releases[ZX_TS_MAX_LOG][2];
static unsigned zx_alloc_count, zx_release_count;
static uint64_t zx_graph_uid;
static zx_ts_node zx_nodes[ZX_TS_MAX_NODES];
static unsigned zx_node_count;
static uint64_t zx_edges[ZX_TS_MAX_NODES][2];
static unsigned zx_edge_count;
static uint64_t zx_wait_uids[ZX_TS_MAX_NODES]; /* the object of each wait_end */
static unsigned zx_wait_count;
static zx_ts_pending zx_tasks_open[ZX_TS_MAX_NODES], zx_waits_open[ZX_TS_MAX_NODES];
static unsigned zx_tasks_open_count, zx_waits_open_count;
static int zx_task_order[ZX_TS_MAX_LOG];
static unsigned zx_task_order_count;
static zx_pfn_xpti_metadata_at zx_metadata_at;
static zx_ts_begin_record zx_begins[ZX_TS_MAX_BEGINS];
static unsigned zx_begin_count;
static unsigned long zx_begins_unlogged;
static zx_ts_args_probe_fn zx_args_probe;
static pthread_once_t zx_metadata_once = PTHREAD_ONCE_INIT;

/* The ITT stream: counts are atomic (notifications come from several driver threads at once); the values of the
 * first annotation are kept under zx_lock. */
static const char *const zx_itt_names[ZX_ITT_KIND_COUNT] = {
    "itt_wi_start", "itt_wi_finish", "itt_wg_barrier", "itt_wi_resume", "itt_atomic_op_start", "itt_atomic_op_finish"};
static atomic_ulong zx_itt_counts[ZX_ITT_KIND_COUNT];
static atomic_ullong zx_itt_started, zx_itt_finished;
typedef struct zx_ts_itt_first {
    bool seen, atomic_seen;
    char kernel[64];
    uint64_t device, group_size;
    uint64_t atomic[3]; /* object, op, order */
} zx_ts_itt_first;
static zx_ts_itt_first zx_itt_first;

static void zx_count(int counter) {
    atomic_fetch_add_explicit(&zx_counters[counter], 1, memory_order_relaxed);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Per-thread pairing */

static void zx_push(zx_ts_stack *stack, uint16_t type, uint64_t instance, const void *data) {
    if (stack->depth < ZX_TS_DEPTH)
        stack->frames[stack->depth] = (zx_ts_frame){instance, data, type};
    stack->depth++;
}

/* Pops the innermost frame when the end matches it (type begin + 1, same instance); false otherwise. */
static bool zx_pop(zx_ts_stack *stack, uint16_t end_type, uint64_t instance, const void **data) {
    if (stack->depth == 0 || stack->depth > ZX_TS_DEPTH)
        return false;
    const zx_ts_frame *top = &stack->frames[stack->depth - 1];
    if (top->instance != instance || top->type + 1 != end_type)
        return false;
    *data = top->data;
    stack->depth--;
    return true;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Call and debug streams */

/* Appends a begin to the log; for the debug stream the probe (if set) reads the arguments while args is valid. */
static void zx_log_begin(uint16_t type, uint32_t function_id, const char *name, uint64_t instance, const void *args) {
    pthread_mutex_lock(&zx_lock);
    if (zx_begin_count == ZX_TS_MAX_BEGINS) {
        zx_begins_unlogged++;
        pthread_mutex_unlock(&zx_lock);
        return;
    }
    zx_ts_begin_record *r = &zx_begins[zx_begin_count++];
    *r = (zx_ts_begin_record){.type = type, .function_id = function_id, .instance = instance};
    r->thread = (uint64_t)gettid();
    r->args_data = args;
    snprintf(r->name, sizeof r->name, "%s", name != NULL ? name : "");
    if (args != NULL && zx_args_probe != NULL) {
        uint32_t n = zx_args_probe(r->name, args, r->values, ZX_TS_PROBE_VALUES);
        r->probed = n < ZX_TS_PROBE_VALUES ? n : ZX_TS_PROBE_VALUES;
    }
    pthread_mutex_unlock(&zx_lock);
}

static void zx_on_call(uint16_t type, zx_xpti_event *parent, zx_xpti_event *event, uint64_t instance,
                       const void *user_data) {
    zx_count(ZX_C_CALLBACKS);
    if (parent != NULL || event != NULL || user_data == NULL)
        zx_count(ZX_C_CALL_BAD);
    if (type == ZX_TP_FUNCTION_BEGIN) {
        zx_count(ZX_C_CALL_BEGINS);
        if (instance <= zx_last_instance)
            zx_count(ZX_C_CALL_NON_INCREASING);
        zx_last_instance = instance;
        zx_push(&zx_call_stack, type, instance, user_data);
        zx_log_begin(type, 0, user_data, instance, NULL);
        return;
    }
    zx_count(ZX_C_CALL_ENDS);
    const void *name = NULL;
    if (!zx_pop(&zx_call_stack, type, instance, &name) || name == NULL || user_data == NULL ||
        strcmp(name, user_data) != 0)
        zx_count(ZX_C_CALL_MISMATCHES);
}

static bool zx_id_matches(const zx_function_with_args *fwa) {
    const zx_function_info *info = zx_function_by_id(fwa->function_id);
    return info != NULL && fwa->function_name != NULL && strcmp(info->name, fwa->function_name) == 0;
}

static void zx_record_call(const zx_function_with_args *fwa, uint64_t instance) {
    zx_arg args[ZX_TS_MAX_ARGS];
    uint32_t n = zx_function_args(fwa->function_id, fwa->args_data, args, ZX_TS_MAX_ARGS);
    pthread_mutex_lock(&zx_lock);
    zx_ts_call_record *r = &zx_last_calls[fwa->function_id];
    r->instance = instance;
    r->calls++;
    r->num_args = n;
    for (uint32_t i = 0; i < n; i++)
        r->args[i] = args[i].value;
    r->result = *(const int32_t *)fwa->ret_data;
    pthread_mutex_unlock(&zx_lock);
}

static void zx_on_debug(uint16_t type, zx_xpti_event *parent, zx_xpti_event *event, uint64_t instance,
                        const void *user_data) {
    zx_count(ZX_C_CALLBACKS);
    const zx_function_with_args *fwa = user_data;
    if (fwa != NULL && type == ZX_TP_FUNCTION_WITH_ARGS_BEGIN) /* logged whatever its id: tests check ids */
        zx_log_begin(type, fwa->function_id, fwa->function_name, instance, fwa->args_data);
    if (fwa == NULL || parent != NULL || (event != NULL) != (type == ZX_TP_FUNCTION_WITH_ARGS_END_OLD) ||
        !zx_id_matches(fwa)) {
        zx_count(ZX_C_DEBUG_BAD_IDS);
        return;
    }
    if (type == ZX_TP_FUNCTION_WITH_ARGS_BEGIN) {
        zx_count(ZX_C_DEBUG_BEGINS);
        if (fwa->ret_data != NULL)
            zx_count(ZX_C_DEBUG_BAD_RET);
        zx_push(&zx_debug_stack, ZX_TP_FUNCTION_WITH_ARGS_BEGIN, instance, fwa->args_data);
        return;
    }
    zx_count(type == ZX_TP_FUNCTION_WITH_ARGS_END ? ZX_C_DEBUG_ENDS : ZX_C_DEBUG_OLD_ENDS);
    const void *args = NULL;
    if (!zx_pop(&zx_debug_stack, ZX_TP_FUNCTION_WITH_ARGS_END, instance, &args) || args != fwa->args_data)
        zx_count(ZX_C_DEBUG_MISMATCHES);
    if (fwa->ret_data == NULL) {
        zx_count(ZX_C_DEBUG_BAD_RET);
        return;
    }
    zx_record_call(fwa, instance);
}

/* ------------------------------------------------------------------------------------------------------------------
 * mem_alloc stream */

static void zx_log_mem(uint16_t type, const zx_mem_alloc_data *data) {
    pthread_mutex_lock(&zx_lock);
    bool alloc = type == ZX_TP_MEM_ALLOC_END;
    unsigned *count = alloc ? &zx_alloc_count : &zx_release_count;
    uint64_t(*log)[2] = alloc ? zx_allocs : zx_releases;
    if (*count < ZX_TS_MAX_LOG) {
        log[*count][0] = data->alloc_pointer;
        log[*count][1] = data->alloc_size;
        (*count)++;
    }
    pthread_mutex_unlock(&zx_lock);
}

static void zx_on_mem(uint16_t type, zx_xpti_event *parent, zx_xpti_event *event, uint64_t instance,
                      const void *user_data) {
    zx_count(ZX_C_CALLBACKS);
    const zx_mem_alloc_data *data = user_data;
    if (data == NULL || parent != NULL || event != NULL) {
        zx_count(ZX_C_MEM_MISMATCHES);
        return;
    }
    if (type == ZX_TP_MEM_ALLOC_BEGIN || type == ZX_TP_MEM_RELEASE_BEGIN) {
        const void *key = type == ZX_TP_MEM_ALLOC_BEGIN ? (const void *)(uintptr_t)data->alloc_size
                                                        : (const void *)data->alloc_pointer;
        zx_push(&zx_mem_stack, type, instance, key);
        return;
    }
    const void *key = NULL;
    bool paired = zx_pop(&zx_mem_stack, type, instance, &key);
    bool same = type == ZX_TP_MEM_ALLOC_END ? key == (const void *)(uintptr_t)data->alloc_size
                                            : key == (const void *)data->alloc_pointer;
    if (!paired || !same) {
        zx_count(ZX_C_MEM_MISMATCHES);
        return;
    }
    zx_count(type == ZX_TP_MEM_ALLOC_END ? ZX_C_MEM_ALLOC_PAIRS : ZX_C_MEM_RELEASE_PAIRS);
    zx_log_mem(type, data);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Graph stream (notifications arrive one at a time: the emitter serialises them) */

static int zx_node_index(uint64_t uid) {
    for (unsigned i = 0; i < zx_node_count; i++) {
        if (zx_nodes[i].uid == uid)
            return (int)i;
    }
    return -1;
}

/* ZX_TS_PUBLIC_METADATA=1: read metadata only through the framework's public xptiQueryMetadata, as with a framework
 * that is not ours. */
static void zx_find_metadata_at(void) {
    const char *public_only = getenv("ZX_TS_PUBLIC_METADATA");
    void *framework = dlopen("libxptifw.so", RTLD_NOLOAD | RTLD_LAZY);
    if (framework != NULL && (public_only == NULL || strcmp(public_only, "1") != 0))
        *(void **)&zx_metadata_at = dlsym(framework, ZX_XPTI_METADATA_AT);
}

/* "key=value;..." of an event's metadata (zx_xpti_metadata_at where the framework is ours, else xptiQueryMetadata). */
static void zx_read_meta(zx_xpti_event *event, char *out, size_t size) {
    pthread_once(&zx_metadata_once, zx_find_metadata_at);
    size_t used = 0;
    const char *key;
    zx_xpti_object_id value;
    out[0] = '\0';
    for (uint32_t i = 0; zx_xpti_metadata_get(zx_metadata_at, event, i, &key, &value); i++) {
        zx_xpti_object_data data = xptiLookupObject(value);
        int n;
        if (data.type == ZX_METADATA_UNSIGNED && data.size == sizeof(uint64_t)) {
            uint64_t number;
            memcpy(&number, data.data, sizeof number);
            n = snprintf(out + used, size - used, "%s=%" PRIu64 ";", key, number);
        } else {
            n = snprintf(out + used, size - used, "%s=%.*s;", key, (int)data.size, data.data ? data.data : "");
        }
        if (n < 0 || (size_t)n >= size - used)
            break;
        used += (size_t)n;
    }
}

static void zx_on_node(zx_xpti_event *event, const void *user_data) {
    if (zx_node_count == ZX_TS_MAX_NODES || event == NULL)
        return;
    zx_ts_node *node = &zx_nodes[zx_node_count++];
    const zx_xpti_payload *payload = xptiQueryPayload(event);
    node->uid = event->unique_id;
    snprintf(node->kind, sizeof node->kind, "%s", user_data != NULL ? (const char *)user_data : "?");
    snprintf(node->name, sizeof node->name, "%s", payload != NULL && payload->name ? payload->name : "?");
    zx_read_meta(event, node->meta, sizeof node->meta);
}

static bool zx_take(zx_ts_pending *open, unsigned *count, uint64_t instance, uint64_t uid) {
    for (unsigned i = 0; i < *count; i++) {
        if (open[i].instance != instance)
            continue;
        bool same = open[i].uid == uid;
        open[i] = open[--*count];
        return same;
    }
    return false;
}

static void zx_put(zx_ts_pending *open, unsigned *count, uint64_t instance, uint64_t uid) {
    if (*count < ZX_TS_MAX_NODES)
        open[(*count)++] = (zx_ts_pending){instance, uid};
}

static bool zx_queue_stashed(void) {
    char *key = NULL;
    uint64_t value = 0;
    return xptiGetStashedTuple(&key, &value) == ZX_XPTI_SUCCESS && key != NULL && strcmp(key, "queue_id") == 0 &&
           value != 0;
}

static void zx_on_task(uint16_t type, zx_xpti_event *event, uint64_t instance) {
    if (!zx_queue_stashed())
        zx_count(ZX_C_STASH_BAD);
    if (type == ZX_TP_TASK_BEGIN) {
        zx_count(ZX_C_TASK_BEGINS);
        zx_put(zx_tasks_open, &zx_tasks_open_count, instance, event->unique_id);
        if (zx_task_order_count < ZX_TS_MAX_LOG)
            zx_task_order[zx_task_order_count++] = zx_node_index(event->unique_id);
        return;
    }
    zx_count(zx_take(zx_tasks_open, &zx_tasks_open_count, instance, event->unique_id) ? ZX_C_TASK_PAIRS
                                                                                      : ZX_C_TASK_MISMATCHES);
}

static void zx_on_graph_item(uint16_t type, zx_xpti_event *event, uint64_t instance, const void *user_data) {
    switch (type) {
    case ZX_TP_NODE_CREATE:
        zx_on_node(event, user_data);
        break;
    case ZX_TP_EDGE_CREATE:
        if (zx_edge_count < ZX_TS_MAX_NODES) {
            zx_edges[zx_edge_count][0] = event->source_id;
            zx_edges[zx_edge_count++][1] = event->target_id;
        }
        break;
    case ZX_TP_TASK_BEGIN:
    case ZX_TP_TASK_END:
        zx_on_task(type, event, instance);
        break;
    case ZX_TP_SIGNAL:
        zx_count(ZX_C_SIGNALS);
        if (user_data == NULL || zx_node_index(event->unique_id) < 0 || !zx_queue_stashed())
            zx_count(ZX_C_SIGNAL_BAD);
        break;
    default:
        break;
    }
}

/* ZX_TS_EVENT_FLAGS=1: events have the current generation's flags word (an older framework's end before it). */
static bool zx_event_flags;

/* Reads a graph event through the layouts: the payload pointer every generation has, the flags word when asked. */
static void zx_check_event(const zx_xpti_event *event) {
    if (event == NULL)
        return;
    if (event->payload != xptiQueryPayload((zx_xpti_event *)event))
        zx_count(ZX_C_PAYLOAD_BAD);
    if (zx_event_flags)
        zx_count(zx_xpti_is_valid_event(event) ? ZX_C_EVENTS_VALID : ZX_C_EVENTS_INVALID);
}

static void zx_on_graph(uint16_t type, zx_xpti_event *parent, zx_xpti_event *event, uint64_t instance,
                        const void *user_data) {
    zx_count(ZX_C_CALLBACKS);
    zx_check_event(parent);
    zx_check_event(event);
    pthread_mutex_lock(&zx_lock);
    if (type == ZX_TP_GRAPH_CREATE) {
        zx_count(ZX_C_GRAPH_CREATES);
        zx_graph_uid = event != NULL ? event->unique_id : 0;
    } else if (type == ZX_TP_WAIT_BEGIN) {
        zx_put(zx_waits_open, &zx_waits_open_count, instance, event != NULL ? event->unique_id : 0);
    } else if (type == ZX_TP_WAIT_END) {
        bool paired = zx_take(zx_waits_open, &zx_waits_open_count, instance, event != NULL ? event->unique_id : 0);
        zx_count(paired && user_data != NULL ? ZX_C_WAIT_PAIRS : ZX_C_WAIT_MISMATCHES);
        if (event != NULL && zx_wait_count < ZX_TS_MAX_NODES)
            zx_wait_uids[zx_wait_count++] = event->unique_id;
    } else if (type == ZX_TP_QUEUE_CREATE || type == ZX_TP_QUEUE_DESTROY) {
        zx_count(type == ZX_TP_QUEUE_CREATE ? ZX_C_QUEUE_CREATES : ZX_C_QUEUE_DESTROYS);
        if (!zx_queue_stashed())
            zx_count(ZX_C_STASH_BAD);
    } else if (event != NULL) {
        if (parent == NULL || parent->unique_id != zx_graph_uid)
            zx_count(ZX_C_PARENT_BAD);
        zx_on_graph_item(type, event, instance, user_data);
    }
    pthread_mutex_unlock(&zx_lock);
}

/* ------------------------------------------------------------------------------------------------------------------
 * ITT stream (notifications come from the driver's worker threads, several at once) */

static bool zx_itt_is_atomic(uint32_t kind) {
    return kind == ZX_ITT_ATOMIC_OP_START || kind == ZX_ITT_ATOMIC_OP_FINISH;
}

/* What the stream promises whatever the kernel: docs/xpti.md, "sycl.experimental.level_zero.itt". */
static bool zx_itt_valid(uint16_t type, const zx_xpti_event *parent, const zx_xpti_event *event, uint64_t instance,
                         const zx_itt_annotation *a) {
    if (a == NULL || parent != NULL || event != NULL || a->size < sizeof *a || a->kind >= ZX_ITT_KIND_COUNT)
        return false;
    if (type != ZX_TP_ITT_BASE + a->kind || instance != a->work_item_id || a->kernel_name == NULL || a->reserved != 0)
        return false;
    for (int d = 0; d < 3; d++) {
        if (a->local_id[d] >= a->group_size)
            return false;
    }
    return zx_itt_is_atomic(a->kind) || (a->atomic_object == 0 && a->atomic_op == 0 && a->atomic_order == 0);
}

static bool zx_itt_one_d(const zx_itt_annotation *a) {
    return a->group_id[1] == 0 && a->group_id[2] == 0 && a->local_id[1] == 0 && a->local_id[2] == 0;
}

/* Under zx_lock: keeps the first annotation's values, or tells whether this one differs from them. */
static bool zx_itt_differs(const zx_itt_annotation *a) {
    zx_ts_itt_first *f = &zx_itt_first;
    bool differs = false;
    if (!f->seen) {
        f->seen = true;
        snprintf(f->kernel, sizeof f->kernel, "%s", a->kernel_name);
        f->device = (uint64_t)(uintptr_t)a->device;
        f->group_size = a->group_size;
    } else {
        differs = strncmp(f->kernel, a->kernel_name, sizeof f->kernel - 1) != 0 ||
                  f->device != (uint64_t)(uintptr_t)a->device || f->group_size != a->group_size;
    }
    if (!zx_itt_is_atomic(a->kind))
        return differs;
    uint64_t atomic[3] = {a->atomic_object, a->atomic_op, a->atomic_order};
    if (!f->atomic_seen) {
        f->atomic_seen = true;
        memcpy(f->atomic, atomic, sizeof atomic);
        return differs;
    }
    return differs || memcmp(f->atomic, atomic, sizeof atomic) != 0;
}

static void zx_on_itt(uint16_t type, zx_xpti_event *parent, zx_xpti_event *event, uint64_t instance,
                      const void *user_data) {
    zx_count(ZX_C_CALLBACKS);
    const zx_itt_annotation *a = user_data;
    if (!zx_itt_valid(type, parent, event, instance, a)) {
        zx_count(ZX_C_ITT_BAD);
        return;
    }
    atomic_fetch_add_explicit(&zx_itt_counts[a->kind], 1, memory_order_relaxed);
    if (a->kind == ZX_ITT_WI_START)
        atomic_fetch_add_explicit(&zx_itt_started, a->work_item_id + 1, memory_order_relaxed);
    if (a->kind == ZX_ITT_WI_FINISH)
        atomic_fetch_add_explicit(&zx_itt_finished, a->work_item_id + 1, memory_order_relaxed);
    if (zx_itt_one_d(a) && a->work_item_id != a->group_id[0] * a->group_size + a->local_id[0])
        zx_count(ZX_C_ITT_1D_BAD);
    pthread_mutex_lock(&zx_lock);
    bool differs = zx_itt_differs(a);
    pthread_mutex_unlock(&zx_lock);
    if (differs)
        zx_count(ZX_C_ITT_OTHER);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Entry points */

static bool zx_wanted(const char *short_name) {
    const char *list = getenv("ZX_TS_STREAMS");
    if (list == NULL)
        return true;
    size_t n = strlen(short_name);
    for (const char *p = strstr(list, short_name); p != NULL; p = strstr(p + 1, short_name)) {
        if ((p == list || p[-1] == ',') && (p[n] == '\0' || p[n] == ','))
            return true;
    }
    return false;
}

static void zx_register(uint8_t stream, const uint16_t *types, size_t count, zx_xpti_callback cb) {
    for (size_t i = 0; i < count; i++)
        xptiRegisterCallback(stream, types[i], cb);
}

ZX_TS_EXPORT void xptiTraceInit(unsigned major, unsigned minor, const char *version_str, const char *stream_name);
ZX_TS_EXPORT void xptiTraceFinish(const char *stream_name);
ZX_TS_EXPORT bool xptiQuerySubscriberStreamDetailLevel(const char *stream_name, uint8_t *level);
ZX_TS_EXPORT void zx_ts_print(FILE *out);
ZX_TS_EXPORT bool zx_ts_last_call(uint32_t function_id, zx_ts_call_record *out);
ZX_TS_EXPORT bool zx_ts_begin_at(uint32_t index, zx_ts_begin_record *out);
ZX_TS_EXPORT void zx_ts_set_args_probe(zx_ts_args_probe_fn probe);

/* The subscriber stays loaded whatever the framework does at its finalisation (a framework may unload its
 * subscribers then), so that its report can still be read afterwards. */
static void zx_stay_loaded(void) {
    Dl_info info;
    if (dladdr((void *)zx_stay_loaded, &info) != 0 && info.dli_fname != NULL)
        dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
}

ZX_TS_EXPORT void xptiTraceInit(unsigned major, unsigned minor, const char *version_str, const char *stream_name) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, zx_stay_loaded);
    (void)major;
    (void)minor;
    (void)version_str;
    bool framework = strcmp(stream_name, ZX_XPTI_FRAMEWORK_STREAM) == 0;
    zx_count(framework ? ZX_C_FRAMEWORK_INITS : ZX_C_INITS);
    uint8_t id = xptiRegisterStream(stream_name);
    bool old_end = getenv("ZX_TS_OLD_END") != NULL && strcmp(getenv("ZX_TS_OLD_END"), "1") == 0;
    zx_event_flags = getenv("ZX_TS_EVENT_FLAGS") != NULL && strcmp(getenv("ZX_TS_EVENT_FLAGS"), "1") == 0;
    if (strcmp(stream_name, ZX_STREAM_CALL) == 0 && zx_wanted("call")) {
        zx_register(id, (const uint16_t[]){ZX_TP_FUNCTION_BEGIN, ZX_TP_FUNCTION_END}, 2, zx_on_call);
    } else if (strcmp(stream_name, ZX_STREAM_DEBUG) == 0 && zx_wanted("debug")) {
        uint16_t end = old_end ? ZX_TP_FUNCTION_WITH_ARGS_END_OLD : ZX_TP_FUNCTION_WITH_ARGS_END;
        zx_register(id, (const uint16_t[]){ZX_TP_FUNCTION_WITH_ARGS_BEGIN, end}, 2, zx_on_debug);
    } else if (strcmp(stream_name, ZX_STREAM_MEM) == 0 && zx_wanted("mem")) {
        const uint16_t types[] = {ZX_TP_MEM_ALLOC_BEGIN, ZX_TP_MEM_ALLOC_END, ZX_TP_MEM_RELEASE_BEGIN,
                                  ZX_TP_MEM_RELEASE_END};
        zx_register(id, types, 4, zx_on_mem);
    } else if (strcmp(stream_name, ZX_STREAM_GRAPH) == 0 && zx_wanted("graph")) {
        const uint16_t types[] = {ZX_TP_GRAPH_CREATE, ZX_TP_NODE_CREATE,  ZX_TP_EDGE_CREATE, ZX_TP_TASK_BEGIN,
                                  ZX_TP_TASK_END,     ZX_TP_SIGNAL,       ZX_TP_WAIT_BEGIN,  ZX_TP_WAIT_END,
                                  ZX_TP_QUEUE_CREATE, ZX_TP_QUEUE_DESTROY};
        zx_register(id, types, sizeof types / sizeof types[0], zx_on_graph);
    } else if (strcmp(stream_name, ZX_STREAM_ITT) == 0 && zx_wanted("itt")) {
        for (uint16_t kind = 0; kind < ZX_ITT_KIND_COUNT; kind++)
            xptiRegisterCallback(id, (uint16_t)(ZX_TP_ITT_BASE + kind), zx_on_itt);
    }
}

ZX_TS_EXPORT void xptiTraceFinish(const char *stream_name) {
    zx_count(strcmp(stream_name, ZX_XPTI_FRAMEWORK_STREAM) == 0 ? ZX_C_FRAMEWORK_FINISHES : ZX_C_FINISHES);
}

/* ZX_TS_DETAIL=<0..3>: the detail level asked for every stream; unset: none asked (the framework assumes NORMAL). */
ZX_TS_EXPORT bool xptiQuerySubscriberStreamDetailLevel(const char *stream_name, uint8_t *level) {
    (void)stream_name;
    const char *asked = getenv("ZX_TS_DETAIL");
    if (asked == NULL || asked[0] < '0' || asked[0] > '3' || asked[1] != '\0' || level == NULL)
        return false;
    *level = (uint8_t)(asked[0] - '0');
    return true;
}

ZX_TS_EXPORT bool zx_ts_last_call(uint32_t function_id, zx_ts_call_record *out) {
    if (function_id >= ZX_FN_LIMIT || out == NULL)
        return false;
    pthread_mutex_lock(&zx_lock);
    *out = zx_last_calls[function_id];
    pthread_mutex_unlock(&zx_lock);
    return out->calls > 0;
}

ZX_TS_EXPORT bool zx_ts_begin_at(uint32_t index, zx_ts_begin_record *out) {
    if (out == NULL)
        return false;
    pthread_mutex_lock(&zx_lock);
    bool found = index < zx_begin_count;
    if (found)
        *out = zx_begins[index];
    pthread_mutex_unlock(&zx_lock);
    return found;
}

ZX_TS_EXPORT void zx_ts_set_args_probe(zx_ts_args_probe_fn probe) {
    pthread_mutex_lock(&zx_lock);
    zx_args_probe = probe;
    pthread_mutex_unlock(&zx_lock);
}

static void zx_print_graph(FILE *out) {
    fprintf(out, "nodes=%u\nedges=%u\n", zx_node_count, zx_edge_count);
    for (unsigned i = 0; i < zx_node_count; i++)
        fprintf(out, "node.%u=%s:%s\nnode_meta.%u=%s\n", i, zx_nodes[i].kind, zx_nodes[i].name, i, zx_nodes[i].meta);
    for (unsigned i = 0; i < zx_edge_count; i++)
        fprintf(out, "edge.%u=%d->%d\n", i, zx_node_index(zx_edges[i][0]), zx_node_index(zx_edges[i][1]));
    fputs("tasks=", out);
    for (unsigned i = 0; i < zx_task_order_count; i++)
        fprintf(out, "%s%d", i > 0 ? "," : "", zx_task_order[i]);
    fputc('\n', out);
    unsigned live = 0;
    for (unsigned i = 0; i < zx_wait_count; i++)
        live += xptiFindEvent(zx_wait_uids[i]) != NULL;
    fprintf(out, "wait_events_live=%u\n", live);
}

/* Under zx_lock. */
static void zx_print_itt(FILE *out) {
    for (int k = 0; k < ZX_ITT_KIND_COUNT; k++)
        fprintf(out, "%s=%lu\n", zx_itt_names[k], atomic_load(&zx_itt_counts[k]));
    fprintf(out, "itt_started=%llu\nitt_finished=%llu\n", atomic_load(&zx_itt_started), atomic_load(&zx_itt_finished));
    const zx_ts_itt_first *f = &zx_itt_first;
    if (f->seen)
        fprintf(out, "itt_kernel=%s\nitt_device=%" PRIu64 "\nitt_group_size=%" PRIu64 "\n", f->kernel, f->device,
                f->group_size);
    if (f->atomic_seen)
        fprintf(out, "itt_atomic=%" PRIu64 ":%" PRIu64 ":%" PRIu64 "\n", f->atomic[0], f->atomic[1], f->atomic[2]);
}

ZX_TS_EXPORT void zx_ts_print(FILE *out) {
    pthread_mutex_lock(&zx_lock);
    for (int i = 0; i < ZX_C_COUNT; i++)
        fprintf(out, "%s=%lu\n", zx_counter_names[i], atomic_load(&zx_counters[i]));
    fprintf(out, "begins_logged=%u\nbegins_unlogged=%lu\n", zx_begin_count, zx_begins_unlogged);
    for (unsigned i = 0; i < zx_alloc_count; i++)
        fprintf(out, "alloc.%u=0x%" PRIx64 ":%" PRIu64 "\n", i, zx_allocs[i][0], zx_allocs[i][1]);
    for (unsigned i = 0; i < zx_release_count; i++)
        fprintf(out, "release.%u=0x%" PRIx64 ":%" PRIu64 "\n", i, zx_releases[i][0], zx_releases[i][1]);
    zx_print_graph(out);
    zx_print_itt(out);
    pthread_mutex_unlock(&zx_lock);
    fflush(out);
}
