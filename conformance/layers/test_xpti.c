/* Conformance: the XPTI emitter (layers/xpti, libzexpti.so) with our dispatcher and the suite's test subscriber
 * (docs/xpti.md): the call and debug streams checked call by call against the workload's own list, the mem_alloc
 * and graph streams, the timeline, streams switched off and bad set-ups, threads, and a tool starting the emitter.
 * The set-up of each traced child is zc_xpti.h's; the ITT stream is test_xpti_itt.c's. No test asserts anything
 * about time. */
#include "zc_xpti.h"
#include "zexpti.h"
#include "zx_functions.h"
#include "zx_test_subscriber.h"
#include "zx_xpti.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
        if (info == NULL && zx_function_id_of(e->name) == 0)
            continue; /* a function newer than the headers of this build */
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

/* A subscriber reads metadata through the public xptiQueryMetadata map as well as through our zx_xpti_metadata_at. */
static void graph_metadata_through_the_public_map(void **state) {
    (void)state;
    zc_env env;
    zc_child child;
    zc_env_traced(&env, ZC_XPTI_TEST_SUBSCRIBER, true);
    zc_env_add(&env, "ZX_TS_PUBLIC_METADATA=1");
    zc_run_workload("graph", &env, &child);
    zc_expect_contains(&child, "node_meta.2", "kernel_name=vadd_int;");
    zc_expect_contains(&child, "node_meta.2", "group_size=16,1,1;");
    zc_expect_contains(&child, "node_meta.2", "global_size=64,1,1;");
    zc_child_free(&child);
}

/* Every graph object and parent is read through the layouts: its payload pointer is xptiQueryPayload's; with our
 * dispatcher (current generation), xpti::is_valid_event() accepts each. */
static void graph_matches_the_workload(void **state) {
    (void)state;
    zc_env env;
    zc_child child;
    bool ours = strcmp(zc_xpti_framework(), ZC_XPTI_DISPATCHER) == 0;
    zc_env_traced(&env, ZC_XPTI_TEST_SUBSCRIBER, true);
    if (ours)
        zc_env_add(&env, "ZX_TS_EVENT_FLAGS=1");
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
    zc_expect(&child, "wait_events_live", 0); /* each released after its wait_end */
    zc_expect(&child, "queue_creates", 2);    /* the queue and the immediate list */
    zc_expect(&child, "queue_destroys", 2);
    zc_expect(&child, "parent_bad", 0);
    zc_expect(&child, "stash_bad", 0);
    zc_expect(&child, "payload_bad", 0);
    if (ours) {
        zc_expect(&child, "events_invalid", 0);
        /* Objects and parents: graph_create 1, node_create 5 x 2, edge_create 3 x 2, task begins and ends 18 x 2,
         * signals 7 x 2, wait begins and ends 6 (no parent), queue creates and destroys 4 x 2. */
        zc_expect(&child, "events_valid", 81);
    }
    zc_child_free(&child);
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
 * Streams off, bad set-ups */

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
        cmocka_unit_test(graph_metadata_through_the_public_map),
        cmocka_unit_test(timeline_of_the_graph_workload_is_valid_json),
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
