/* Conformance: our XPTI dispatcher (layers/xpti, libxptifw.so) against the framework contract of docs/xpti.md:
 * string table, streams, callbacks per stream and type in registration order, the notification rules, events and
 * payloads, tracepoints, metadata and objects, the stash tuple, defaults, user-defined types, subscriber loading from
 * XPTI_SUBSCRIBERS with XPTI_TRACE_ENABLE, and bad input. Each expectation states the framework's behaviour, so the
 * tests also run against another framework library: ZC_XPTI_FRAMEWORK names it (default ours). The library is
 * dlopen'ed (as the proxy does) and all 48 functions of the proxy's list looked up by name. Tests that depend on the
 * environment run in child processes. No test asserts anything about time. */
#include "zc_harness.h"
#include "zc_xpti_fw.h"
#include "zx_test_subscriber.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static zc_fw zc_x;
static uint64_t zc_instance; /* xptiMakeEvent's instance_no, where a test does not look at it */

static bool zc_ours(void) {
    return zc_x.metadata_at != NULL;
}

static bool zc_load_framework(void) {
    return zc_fw_load(&zc_x);
}

static int zc_setup(void **state) {
    (void)state;
    if (!zc_load_framework()) {
        fprintf(stderr, "test_xpti_dispatcher: cannot load %s or one of its 48 functions\n", zc_xpti_framework());
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Recording callbacks */

#define ZC_MAX_SEEN 32

typedef struct zc_seen {
    int who;
    uint16_t type;
    zx_xpti_event *object;
    uint64_t instance;
    const void *user_data;
} zc_seen;

static zc_seen zc_log[ZC_MAX_SEEN];
static unsigned zc_log_count;

static void zc_record(int who, uint16_t type, zx_xpti_event *object, uint64_t instance, const void *user_data) {
    if (zc_log_count < ZC_MAX_SEEN)
        zc_log[zc_log_count++] = (zc_seen){who, type, object, instance, user_data};
}

static void zc_cb_a(uint16_t t, zx_xpti_event *p, zx_xpti_event *o, uint64_t i, const void *u) {
    (void)p;
    zc_record(1, t, o, i, u);
}

static void zc_cb_b(uint16_t t, zx_xpti_event *p, zx_xpti_event *o, uint64_t i, const void *u) {
    (void)p;
    zc_record(2, t, o, i, u);
}

static void zc_cb_c(uint16_t t, zx_xpti_event *p, zx_xpti_event *o, uint64_t i, const void *u) {
    (void)p;
    zc_record(3, t, o, i, u);
}

/* A stream of its own for a test, with tracing forced on. */
static uint8_t zc_stream(const char *name) {
    zc_x.xptiForceSetTraceEnabled(true);
    uint8_t id = zc_x.xptiRegisterStream(name);
    assert_int_not_equal(id, 0);
    zc_log_count = 0;
    return id;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Strings, streams, ids */

static void strings_same_text_same_id_and_copy(void **state) {
    (void)state;
    char text[] = "zc.string.one";
    char *copy1 = NULL, *copy2 = NULL;
    zx_xpti_string_id id1 = zc_x.xptiRegisterString(text, &copy1);
    text[0] = 'Z'; /* the table keeps its own copy */
    zx_xpti_string_id id2 = zc_x.xptiRegisterString("zc.string.one", &copy2);
    assert_true(id1 > 0);
    assert_int_equal(id1, id2);
    assert_ptr_equal(copy1, copy2);
    assert_string_equal(copy1, "zc.string.one");
    assert_string_equal(zc_x.xptiLookupString(id1), "zc.string.one");
    char *copy3 = NULL;
    zx_xpti_string_id other = zc_x.xptiRegisterString("zc.string.two", &copy3);
    assert_true(other > 0);
    assert_int_not_equal(other, id1);
}

static void strings_bad_input(void **state) {
    (void)state;
    char *copy = (char *)"untouched";
    assert_int_equal(zc_x.xptiRegisterString(NULL, &copy), ZX_XPTI_INVALID_ID);
    assert_int_equal(zc_x.xptiRegisterString("zc.no.copy", NULL), ZX_XPTI_INVALID_ID); /* refused, as the framework */
    assert_null(zc_x.xptiLookupString(0));
    assert_null(zc_x.xptiLookupString(-1));
    assert_null(zc_x.xptiLookupString(INT32_MAX));
    assert_null(zc_x.xptiLookupString(1 << 24));
}

static void streams_same_name_same_id(void **state) {
    (void)state;
    uint8_t a = zc_x.xptiRegisterStream("zc.stream.a");
    uint8_t b = zc_x.xptiRegisterStream("zc.stream.b");
    assert_int_not_equal(a, 0);
    assert_int_not_equal(b, 0);
    assert_int_not_equal(a, b);
    assert_int_equal(zc_x.xptiRegisterStream("zc.stream.a"), a);
    assert_int_not_equal(a, ZX_XPTI_INVALID_STREAM);
    assert_int_equal(zc_x.xptiRegisterStream(NULL), ZX_XPTI_INVALID_STREAM);
    assert_int_equal(zc_x.xptiUnregisterStream("zc.stream.never"), ZX_XPTI_NOTFOUND);
    /* The framework answers NOTFOUND for a stream without callbacks, SUCCESS (again and again) for one with. */
    assert_int_equal(zc_x.xptiUnregisterStream("zc.stream.a"), ZX_XPTI_NOTFOUND);
    assert_int_equal(zc_x.xptiRegisterCallback(a, ZX_TP_SIGNAL, zc_cb_a), ZX_XPTI_SUCCESS);
    assert_int_equal(zc_x.xptiUnregisterStream("zc.stream.a"), ZX_XPTI_SUCCESS);
    assert_int_equal(zc_x.xptiUnregisterStream("zc.stream.a"), ZX_XPTI_SUCCESS);
}

/* As the framework, finalising a stream (or unregistering it) disables its callbacks; registering them again enables
 * them (UNDELETE). */
static void finalize_disables_the_stream_callbacks(void **state) {
    (void)state;
    zc_x.xptiForceSetTraceEnabled(true);
    uint8_t s = zc_x.xptiRegisterStream("zc.finalized");
    assert_int_equal(zc_x.xptiRegisterCallback(s, ZX_TP_SIGNAL, zc_cb_a), ZX_XPTI_SUCCESS);
    assert_int_equal(zc_x.xptiInitialize("zc.finalized", 1, 0, "1.0"), ZX_XPTI_SUCCESS);
    assert_true(zc_x.xptiCheckTraceEnabled(s, ZX_TP_SIGNAL));
    zc_x.xptiFinalize("zc.finalized");
    assert_false(zc_x.xptiCheckTraceEnabled(s, ZX_TP_SIGNAL));
    assert_int_equal(zc_x.xptiRegisterCallback(s, ZX_TP_SIGNAL, zc_cb_a), ZX_XPTI_UNDELETE);
    assert_true(zc_x.xptiCheckTraceEnabled(s, ZX_TP_SIGNAL));
    assert_int_equal(zc_x.xptiUnregisterStream("zc.finalized"), ZX_XPTI_SUCCESS);
    assert_false(zc_x.xptiCheckTraceEnabled(s, ZX_TP_SIGNAL));
    assert_int_equal(zc_x.xptiUnregisterStream(NULL), ZX_XPTI_INVALIDARG);
}

static void unique_ids_increase(void **state) {
    (void)state;
    uint64_t previous = zc_x.xptiGetUniqueId();
    for (int i = 0; i < 100; i++) {
        uint64_t id = zc_x.xptiGetUniqueId();
        assert_true(id > previous);
        previous = id;
    }
}

/* ------------------------------------------------------------------------------------------------------------------
 * Callbacks and notifications */

static void callbacks_run_in_registration_order(void **state) {
    (void)state;
    uint8_t s = zc_stream("zc.order");
    assert_int_equal(zc_x.xptiRegisterCallback(s, ZX_TP_TASK_BEGIN, zc_cb_b), ZX_XPTI_SUCCESS);
    assert_int_equal(zc_x.xptiRegisterCallback(s, ZX_TP_TASK_BEGIN, zc_cb_c), ZX_XPTI_SUCCESS);
    assert_int_equal(zc_x.xptiRegisterCallback(s, ZX_TP_TASK_BEGIN, zc_cb_a), ZX_XPTI_SUCCESS);
    zx_xpti_event *ev = zc_x.xptiMakeEvent("zc.order.event", &(zx_xpti_payload){.name = "zc.order.event"},
                                           ZX_ET_ALGORITHM, ZX_ACTIVITY_ACTIVE, &zc_instance);
    assert_non_null(ev);
    assert_int_equal(zc_x.xptiNotifySubscribers(s, ZX_TP_TASK_BEGIN, NULL, ev, 42, "data"), ZX_XPTI_SUCCESS);
    assert_int_equal(zc_log_count, 3);
    const int order[] = {2, 3, 1};
    for (int i = 0; i < 3; i++) {
        assert_int_equal(zc_log[i].who, order[i]);
        assert_int_equal(zc_log[i].type, ZX_TP_TASK_BEGIN);
        assert_ptr_equal(zc_log[i].object, ev);
        assert_int_equal(zc_log[i].instance, 42);
        assert_string_equal(zc_log[i].user_data, "data");
    }
    /* Other types of the stream and other streams are not called. */
    zc_log_count = 0;
    assert_int_equal(zc_x.xptiNotifySubscribers(s, ZX_TP_TASK_END, NULL, ev, 42, NULL), ZX_XPTI_SUCCESS);
    assert_int_equal(zc_x.xptiNotifySubscribers(zc_stream("zc.order.other"), ZX_TP_TASK_BEGIN, NULL, ev, 1, NULL),
                     ZX_XPTI_SUCCESS);
    assert_int_equal(zc_log_count, 0);
}

static void callbacks_duplicate_unregister_and_again(void **state) {
    (void)state;
    uint8_t s = zc_stream("zc.dup");
    assert_int_equal(zc_x.xptiRegisterCallback(s, ZX_TP_SIGNAL, zc_cb_a), ZX_XPTI_SUCCESS);
    assert_int_equal(zc_x.xptiRegisterCallback(s, ZX_TP_SIGNAL, zc_cb_b), ZX_XPTI_SUCCESS);
    assert_int_equal(zc_x.xptiRegisterCallback(s, ZX_TP_SIGNAL, zc_cb_a), ZX_XPTI_DUPLICATE);
    assert_int_equal(zc_x.xptiUnregisterCallback(s, ZX_TP_SIGNAL, zc_cb_a), ZX_XPTI_SUCCESS);
    assert_int_equal(zc_x.xptiUnregisterCallback(s, ZX_TP_SIGNAL, zc_cb_a), ZX_XPTI_DUPLICATE);  /* already off */
    assert_int_equal(zc_x.xptiUnregisterCallback(s, ZX_TP_TASK_END, zc_cb_a), ZX_XPTI_NOTFOUND); /* never there */
    zx_xpti_event *ev =
        zc_x.xptiMakeEvent("zc.dup.event", &(zx_xpti_payload){.name = "zc.dup.event"}, 0, 0, &zc_instance);
    zc_x.xptiNotifySubscribers(s, ZX_TP_SIGNAL, NULL, ev, 1, NULL);
    assert_int_equal(zc_log_count, 1);
    assert_int_equal(zc_log[0].who, 2);
    /* Registered again (UNDELETE, as the framework answers), it keeps its place before b. */
    assert_int_equal(zc_x.xptiRegisterCallback(s, ZX_TP_SIGNAL, zc_cb_a), ZX_XPTI_UNDELETE);
    zc_log_count = 0;
    zc_x.xptiNotifySubscribers(s, ZX_TP_SIGNAL, NULL, ev, 2, NULL);
    assert_int_equal(zc_log_count, 2);
    assert_int_equal(zc_log[0].who, 1);
    assert_int_equal(zc_log[1].who, 2);
}

static void callbacks_bad_arguments(void **state) {
    (void)state;
    uint8_t s = zc_stream("zc.badcb");
    assert_int_equal(zc_x.xptiRegisterCallback(s, ZX_TP_SIGNAL, NULL), ZX_XPTI_INVALIDARG);
    assert_int_equal(zc_x.xptiUnregisterCallback(s, ZX_TP_SIGNAL, NULL), ZX_XPTI_INVALIDARG);
    /* The framework takes a callback for a stream id no name has yet, and finds nothing to unregister there. */
    assert_int_equal(zc_x.xptiUnregisterCallback(250, ZX_TP_SIGNAL, zc_cb_a), ZX_XPTI_NOTFOUND);
    assert_int_equal(zc_x.xptiRegisterCallback(250, ZX_TP_SIGNAL, zc_cb_a), ZX_XPTI_SUCCESS);
    assert_int_equal(zc_x.xptiUnregisterCallback(250, ZX_TP_SIGNAL, zc_cb_a), ZX_XPTI_SUCCESS);
}

/* Event-less notifications are allowed only with user data and for the types that carry everything in it. */
static void notify_object_rules(void **state) {
    (void)state;
    uint8_t s = zc_stream("zc.rules");
    const uint16_t optional[] = {ZX_TP_FUNCTION_BEGIN,         ZX_TP_FUNCTION_END,    ZX_TP_FUNCTION_WITH_ARGS_BEGIN,
                                 ZX_TP_FUNCTION_WITH_ARGS_END, ZX_TP_MEM_ALLOC_BEGIN, ZX_TP_MEM_RELEASE_END,
                                 ZX_TP_OFFLOAD_ALLOC_ACCESSOR, ZX_TP_DIAGNOSTICS};
    for (size_t i = 0; i < ZC_COUNT(optional); i++) {
        zc_x.xptiRegisterCallback(s, optional[i], zc_cb_a);
        assert_int_equal(zc_x.xptiNotifySubscribers(s, optional[i], NULL, NULL, 1, "data"), ZX_XPTI_SUCCESS);
        assert_int_equal(zc_x.xptiNotifySubscribers(s, optional[i], NULL, NULL, 1, NULL), ZX_XPTI_INVALIDARG);
    }
    assert_int_equal(zc_log_count, ZC_COUNT(optional));
    const uint16_t required[] = {ZX_TP_GRAPH_CREATE,
                                 ZX_TP_NODE_CREATE,
                                 ZX_TP_TASK_BEGIN,
                                 ZX_TP_SIGNAL,
                                 ZX_TP_WAIT_BEGIN,
                                 ZX_TP_QUEUE_CREATE,
                                 ZX_TP_FUNCTION_WITH_ARGS_END_OLD,
                                 0x81};
    for (size_t i = 0; i < ZC_COUNT(required); i++)
        assert_int_equal(zc_x.xptiNotifySubscribers(s, required[i], NULL, NULL, 1, "data"), ZX_XPTI_INVALIDARG);
}

static void tracing_off_notifies_nothing(void **state) {
    (void)state;
    uint8_t s = zc_stream("zc.off");
    zc_x.xptiRegisterCallback(s, ZX_TP_FUNCTION_BEGIN, zc_cb_a);
    assert_true(zc_x.xptiCheckTraceEnabled(s, ZX_TP_FUNCTION_BEGIN));
    zc_x.xptiForceSetTraceEnabled(false);
    assert_false(zc_x.xptiTraceEnabled());
    assert_false(zc_x.xptiCheckTraceEnabled(s, ZX_TP_FUNCTION_BEGIN));
    assert_int_equal(zc_x.xptiNotifySubscribers(s, ZX_TP_FUNCTION_BEGIN, NULL, NULL, 1, "x"), ZX_XPTI_FALSE);
    assert_int_equal(zc_log_count, 0);
    zc_x.xptiForceSetTraceEnabled(true);
    assert_true(zc_x.xptiTraceEnabled());
}

static void check_trace_enabled_by_stream_and_type(void **state) {
    (void)state;
    uint8_t s = zc_stream("zc.check");
    assert_false(zc_x.xptiCheckTraceEnabled(s, 0));
    assert_false(zc_x.xptiCheckTraceEnabled(s, ZX_TP_WAIT_BEGIN));
    zc_x.xptiRegisterCallback(s, ZX_TP_WAIT_BEGIN, zc_cb_a);
    assert_true(zc_x.xptiCheckTraceEnabled(s, 0));
    assert_true(zc_x.xptiCheckTraceEnabled(s, ZX_TP_WAIT_BEGIN));
    assert_false(zc_x.xptiCheckTraceEnabled(s, ZX_TP_WAIT_END));
    assert_false(zc_x.xptiCheckTraceEnabled(0, 0));
    assert_false(zc_x.xptiCheckTraceEnabled(300, 0));
    assert_false(zc_x.xptiCheckTraceEnabled(240, ZX_TP_WAIT_BEGIN));
    zc_x.xptiUnregisterCallback(s, ZX_TP_WAIT_BEGIN, zc_cb_a);
    assert_false(zc_x.xptiCheckTraceEnabled(s, 0));
    /* A user-defined type in a high page. */
    uint16_t user = zc_x.xptiRegisterUserDefinedTracePoint("zc.tool.check", 5);
    zc_x.xptiRegisterCallback(s, user, zc_cb_b);
    assert_true(zc_x.xptiCheckTraceEnabled(s, user));
    assert_int_equal(zc_x.xptiUnregisterStream("zc.check"), ZX_XPTI_SUCCESS);
    assert_false(zc_x.xptiCheckTraceEnabled(s, user));
    assert_int_equal(zc_x.xptiRegisterStream("zc.check"), s); /* the id stays the name's */
}

/* ------------------------------------------------------------------------------------------------------------------
 * Events, payloads, metadata, objects */

/* As the framework: a new event (tracepoint) and unique id each call, the payload interned and counted. */
static void events_new_per_call_payload_interned(void **state) {
    (void)state;
    char name[] = "zc.kernel";
    zx_xpti_payload payload = {.name = name, .source_file = "zc.c", .line_no = 10, .column_no = 2};
    uint64_t i1 = 0, i2 = 0, i3 = 0;
    zx_xpti_event *e1 = zc_x.xptiMakeEvent(NULL, &payload, ZX_ET_ALGORITHM, ZX_ACTIVITY_ACTIVE, &i1);
    zx_xpti_event *e2 = zc_x.xptiMakeEvent(NULL, &payload, ZX_ET_ALGORITHM, ZX_ACTIVITY_ACTIVE, &i2);
    payload.line_no = 11;
    zx_xpti_event *e3 = zc_x.xptiMakeEvent(NULL, &payload, ZX_ET_BARRIER, ZX_ACTIVITY_ACTIVE, &i3);
    assert_non_null(e1);
    assert_non_null(e2);
    assert_ptr_not_equal(e1, e2);
    assert_int_not_equal(e1->unique_id, e2->unique_id);
    assert_int_equal(i1 + 1, i2);
    assert_int_equal(i3, 1);
    assert_int_equal(e1->event_type, ZX_ET_ALGORITHM);
    assert_int_equal(e3->event_type, ZX_ET_BARRIER);
    assert_int_equal(e1->source_id, 0);
    assert_int_equal(e1->target_id, 0);
    assert_ptr_equal(zc_x.xptiFindEvent(e1->unique_id), e1);
    const zx_xpti_payload *p = zc_x.xptiQueryPayload(e1);
    assert_non_null(p);
    assert_ptr_equal(p, e1->payload);
    assert_ptr_equal(zc_x.xptiQueryPayloadByUID(e1->unique_id), p);
    name[0] = 'Z'; /* the payload holds interned copies, not the caller's strings */
    assert_string_equal(p->name, "zc.kernel");
    assert_string_equal(p->source_file, "zc.c");
    assert_int_equal(p->line_no, 10);
    assert_ptr_equal(zc_x.xptiQueryPayload(e2)->name, p->name);
    const uint64_t all = ZX_PAYLOAD_NAME | ZX_PAYLOAD_SOURCE_FILE | ZX_PAYLOAD_LINE | ZX_PAYLOAD_COLUMN;
    assert_int_equal(p->flags & all, all);
    assert_int_equal(p->flags & ZX_PAYLOAD_CODE_POINTER, 0);
    /* uid: file id << 32 | line, then the name's id. */
    char *copy;
    assert_int_equal(p->uid.p1, (uint64_t)zc_x.xptiRegisterString("zc.c", &copy) << 32 | 10);
    assert_int_equal(p->uid.p2, (uint64_t)zc_x.xptiRegisterString("zc.kernel", &copy));
    zc_x.xptiReleaseEvent(e1);
    zc_x.xptiReleaseEvent(e2);
    zc_x.xptiReleaseEvent(e3);
}

/* A tracepoint's virtual functions, called as a C++ caller does: the slot after the two destructors. */
typedef zx_xpti_iface *(*zc_iface_fn)(const zx_xpti_iface *self);
typedef uint64_t (*zc_u64_fn)(const zx_xpti_iface *self);
typedef const char *(*zc_text_fn)(const zx_xpti_iface *self);

static void *zc_slot(const zx_xpti_iface *object, int slot) {
    return *(void **)&object->vtable[slot];
}

/* The current generation's layouts, read at the offsets of the framework's header (xpti_data_types.h) rather than
 * through our structs: trace_event_data_t {unique_id @0, data_id @8, instance_id @16, event_type @24,
 * activity_type @26, source_id @32, target_id @40, reserved {payload @48, metadata @56}, global_user_data @112,
 * flags @120}; payload_t {name @0, stack_trace @8, source_file @16, line_no @24, column_no @28, code_ptr_va @32,
 * internal @40, flags @48, uid {p1 @56, p2 @64, p3 @72}}. */
static uint64_t zc_u64_at(const void *base, size_t offset) {
    uint64_t value;
    memcpy(&value, (const char *)base + offset, sizeof value);
    return value;
}

static const void *zc_ptr_at(const void *base, size_t offset) {
    const void *value;
    memcpy(&value, (const char *)base + offset, sizeof value);
    return value;
}

/* xpti::is_valid_event() as the header defines it: flags != 0, UIDAvailable (1) and PayloadAvailable (1 << 5). */
static bool zc_is_valid_event(const void *event) {
    if (event == NULL)
        return false;
    uint64_t flags = zc_u64_at(event, 120);
    return flags != 0 && (flags & 1u) != 0 && (flags & (1u << 5)) != 0;
}

static void events_and_payloads_in_the_current_layout(void **state) {
    (void)state;
    zx_xpti_payload payload = {.name = "zc.layout", .source_file = "zc_layout.c", .line_no = 21, .column_no = 4};
    uint64_t instance = 0;
    zx_xpti_event *e = zc_x.xptiMakeEvent(NULL, &payload, ZX_ET_BARRIER, ZX_ACTIVITY_OVERHEAD, &instance);
    assert_non_null(e);
    /* The event: flags UIDAvailable 1, EventTypeAvailable 1 << 3, ActivityTypeAvailable 1 << 4, PayloadAvailable
     * 1 << 5 as the framework sets them on a made event; no source or target (1 << 1, 1 << 2). */
    assert_int_equal(zc_u64_at(e, 120), 1u | 1u << 3 | 1u << 4 | 1u << 5);
    assert_true(zc_is_valid_event(e));
    assert_true(zx_xpti_is_valid_event(e));
    zx_xpti_event fake = {0};
    assert_false(zc_is_valid_event(&fake));
    assert_int_equal(zc_u64_at(e, 16), instance);
    assert_int_equal(zc_u64_at(e, 8), instance);
    uint16_t types[2];
    memcpy(types, (const char *)e + 24, sizeof types);
    assert_int_equal(types[0], ZX_ET_BARRIER);
    assert_int_equal(types[1], ZX_ACTIVITY_OVERHEAD);
    assert_int_equal(zc_u64_at(e, 32), 0); /* source_id, target_id: invalid_uid */
    assert_int_equal(zc_u64_at(e, 40), 0);
    const void *p = zc_ptr_at(e, 48);
    assert_ptr_equal(p, zc_x.xptiQueryPayload(e));
    assert_ptr_equal((const char *)e + 56, zc_x.xptiQueryMetadata(e)); /* reserved.metadata, in the event */
    /* The payload: interned strings, line and column, `internal` the event's 64-bit id, flags Name 1, SourceFile
     * 1 << 1, LineInfo 1 << 3, ColumnInfo 1 << 4, PayloadRegistered 1 << 15, HashAvailable 2 << 16. */
    assert_string_equal(zc_ptr_at(p, 0), "zc.layout");
    assert_null(zc_ptr_at(p, 8));
    assert_string_equal(zc_ptr_at(p, 16), "zc_layout.c");
    assert_int_equal(zc_u64_at(p, 24), (uint64_t)4 << 32 | 21);
    assert_int_equal(zc_u64_at(p, 40), zc_u64_at(e, 0));
    const uint64_t flags = 1u | 1u << 1 | 1u << 3 | 1u << 4 | 1u << 15 | 2u << 16;
    assert_int_equal(zc_u64_at(p, 48) & flags, flags);
    assert_int_equal(zc_u64_at(p, 48) & (1u << 2 | 1u << 5), 0); /* no code pointer, no stack trace */
    /* uid: p1 = file string id << 32 | line, p2 = function string id, p3 = 0. */
    char *copy;
    uint64_t file = (uint64_t)zc_x.xptiRegisterString("zc_layout.c", &copy);
    uint64_t function = (uint64_t)zc_x.xptiRegisterString("zc.layout", &copy);
    assert_int_equal(zc_u64_at(p, 56), file << 32 | 21);
    assert_int_equal(zc_u64_at(p, 64), function);
    assert_int_equal(zc_u64_at(p, 72), 0);
    /* The event interface answers the same flags (event_flags()). */
    const zx_xpti_iface *iface = zc_x.xptiLookupEvent(e->unique_id);
    assert_non_null(iface);
    zc_u64_fn event_flags = (zc_u64_fn)zc_slot(iface, ZX_EV_SLOT_FLAGS);
    assert_int_equal(event_flags(iface), zc_u64_at(e, 120));
    zc_x.xptiReleaseEvent(e);
}

static void events_bad_input(void **state) {
    (void)state;
    uint64_t instance = 0;
    assert_null(zc_x.xptiMakeEvent(NULL, NULL, 0, 0, &instance));
    zx_xpti_payload named = {.name = "zc.no.instance"};
    assert_null(zc_x.xptiMakeEvent(NULL, &named, 0, 0, NULL)); /* instance_no is required */
    zx_xpti_payload empty = {0};
    assert_null(zc_x.xptiMakeEvent(NULL, &empty, 0, 0, &instance));
    assert_null(zc_x.xptiQueryPayload(NULL));
    zx_xpti_event fake = {0};
    assert_null(zc_x.xptiQueryPayload(&fake));
    assert_null(zc_x.xptiFindEvent(0));
    assert_null(zc_x.xptiQueryPayloadByUID(0));
    zc_x.xptiReleaseEvent(NULL);
    zc_x.xptiReleaseEvent(&fake); /* not one of its events: ignored */
    assert_int_equal(zc_x.xptiAddMetadata(NULL, "k", 1), ZX_XPTI_INVALIDARG);
    assert_int_equal(zc_x.xptiAddMetadata(&fake, "k", 1), ZX_XPTI_INVALIDARG);
    assert_null(zc_x.xptiQueryMetadata(NULL));
    if (!zc_ours())
        return;
    const char *key;
    zx_xpti_object_id value;
    assert_int_equal(zc_x.metadata_at(&fake, 0, &key, &value), ZX_XPTI_INVALIDARG);
    assert_int_equal(zc_x.metadata_at(NULL, 0, NULL, NULL), ZX_XPTI_INVALIDARG);
}

static void events_released_are_forgotten(void **state) {
    (void)state;
    zx_xpti_payload payload = {.name = "zc.release", .code_ptr_va = (void *)&payload};
    uint64_t instance;
    zx_xpti_event *e = zc_x.xptiMakeEvent(NULL, &payload, 0, 0, &instance);
    assert_non_null(e);
    uint64_t uid = e->unique_id;
    zc_x.xptiReleaseEvent(e);
    assert_null(zc_x.xptiFindEvent(uid));
    zx_xpti_event *again = zc_x.xptiMakeEvent(NULL, &payload, 0, 0, &instance);
    assert_non_null(again);
    assert_ptr_equal(zc_x.xptiFindEvent(again->unique_id), again);
    zc_x.xptiReleaseEvent(again);
}

/* The registered payload's strings are the table's; its uid finds it again. */
static void payloads_registered(void **state) {
    (void)state;
    char name[] = "zc.registered";
    zx_xpti_payload payload = {.name = name, .source_file = "zc_reg.c", .line_no = 7};
    uint64_t uid = zc_x.xptiRegisterPayload(&payload);
    assert_int_not_equal(uid, 0);
    assert_ptr_not_equal(payload.name, name);
    assert_string_equal(payload.name, "zc.registered");
    assert_int_equal(payload.flags & ZX_PAYLOAD_REGISTERED, ZX_PAYLOAD_REGISTERED);
    const zx_xpti_payload *found = zc_x.xptiQueryPayloadByUID(uid);
    assert_non_null(found);
    assert_ptr_equal(found->name, payload.name);
    assert_int_equal(zc_x.xptiRegisterPayload(NULL), 0);
    zx_xpti_payload empty = {0};
    assert_int_equal(zc_x.xptiRegisterPayload(&empty), 0);
}

static void tracepoints_create_lookup_delete(void **state) {
    (void)state;
    zx_xpti_tracepoint *tp = zc_x.xptiCreateTracepoint("zc_function", "zc_tp.c", 12, 3);
    assert_non_null(tp);
    uint64_t uid = ((zc_u64_fn)zc_slot(tp, ZX_TP_SLOT_UID64))(tp);
    assert_int_not_equal(uid, 0);
    assert_int_equal(((zc_u64_fn)zc_slot(tp, ZX_TP_SLOT_INSTANCE))(tp), 1);
    zx_xpti_event *event = ((zx_xpti_event * (*)(const zx_xpti_iface *)) zc_slot(tp, ZX_TP_SLOT_EVENT_REF))(tp);
    zx_xpti_payload *payload = ((zx_xpti_payload * (*)(const zx_xpti_iface *)) zc_slot(tp, ZX_TP_SLOT_PAYLOAD_REF))(tp);
    assert_ptr_equal(zc_x.xptiFindEvent(uid), event);
    assert_string_equal(payload->name, "zc_function");
    assert_int_equal(payload->line_no, 12);
    /* The payload interface: name() is its first function. */
    const zx_xpti_iface *p = zc_x.xptiLookupPayload(uid);
    assert_non_null(p);
    assert_ptr_equal(((zc_iface_fn)zc_slot(tp, ZX_TP_SLOT_PAYLOAD))(tp), p);
    assert_string_equal(((zc_text_fn)zc_slot(p, 2))(p), "zc_function");
    assert_string_equal(((zc_text_fn)zc_slot(p, 3))(p), "zc_tp.c");
    assert_ptr_equal(((zc_iface_fn)zc_slot(tp, ZX_TP_SLOT_EVENT))(tp), zc_x.xptiLookupEvent(uid));
    /* A second one of the same place is another instance. */
    zx_xpti_tracepoint *tp2 = zc_x.xptiCreateTracepoint("zc_function", "zc_tp.c", 12, 3);
    assert_int_equal(((zc_u64_fn)zc_slot(tp2, ZX_TP_SLOT_INSTANCE))(tp2), 2);
    assert_int_equal(zc_x.xptiDeleteTracepoint(tp), ZX_XPTI_SUCCESS);
    assert_int_equal(zc_x.xptiDeleteTracepoint(tp2), ZX_XPTI_SUCCESS);
    assert_null(zc_x.xptiLookupEvent(uid));
    assert_null(zc_x.xptiFindEvent(uid));
}

static void tracepoint_scope_and_universal_id(void **state) {
    (void)state;
    assert_null(zc_x.xptiGetTracepointScopeData());
    const zx_xpti_tracepoint *tp = zc_x.xptiRegisterTracepointScope("zc_scope", "zc_scope.c", 5, 0);
    assert_non_null(tp);
    assert_ptr_equal(zc_x.xptiGetTracepointScopeData(), tp);
    zc_x.xptiUnsetTracepointScopeData();
    assert_null(zc_x.xptiGetTracepointScopeData());
    assert_int_equal(zc_x.xptiSetTracepointScopeData((zx_xpti_tracepoint *)tp), ZX_XPTI_SUCCESS);
    assert_ptr_equal(zc_x.xptiGetTracepointScopeData(), tp);
    zc_x.xptiUnsetTracepointScopeData();
    assert_int_equal(zc_x.xptiDeleteTracepoint((zx_xpti_tracepoint *)tp), ZX_XPTI_SUCCESS);
    zc_x.xptiSetUniversalId(77);
    assert_int_equal(zc_x.xptiGetUniversalId(), 77);
    assert_false(zc_x.xptiCheckTracepointScopeNotification());
    zc_x.xptiEnableTracepointScopeNotification(true);
    assert_true(zc_x.xptiCheckTracepointScopeNotification());
    zc_x.xptiEnableTracepointScopeNotification(false);
}

/* The value of a key in the map xptiQueryMetadata answers (libstdc++'s layout), or INVALID_ID. */
static zx_xpti_object_id zc_meta_value(const zx_xpti_metadata *map, const char *key) {
    for (const zx_xpti_meta_node *n = map->before_begin.next; n != NULL; n = n->next) {
        if (strcmp(zc_x.xptiLookupString(n->key), key) == 0)
            return n->value;
    }
    return ZX_XPTI_INVALID_ID;
}

static void metadata_and_objects(void **state) {
    (void)state;
    zx_xpti_event *e = zc_x.xptiMakeEvent(NULL, &(zx_xpti_payload){.name = "zc.meta"}, 0, 0, &zc_instance);
    uint64_t number = 4096;
    zx_xpti_object_id text = zc_x.xptiRegisterObject("vadd", 4, ZX_METADATA_STRING);
    zx_xpti_object_id size = zc_x.xptiRegisterObject((const char *)&number, sizeof number, ZX_METADATA_UNSIGNED);
    assert_true(text >= 0);                                                         /* ids from 0, as the framework */
    assert_int_equal(zc_x.xptiRegisterObject("vadd", 4, ZX_METADATA_STRING), text); /* stored once */
    assert_int_not_equal(zc_x.xptiRegisterObject("vadd", 4, ZX_METADATA_BINARY), text);
    assert_int_equal(zc_x.xptiAddMetadata(e, "kernel_name", text), ZX_XPTI_SUCCESS);
    assert_int_equal(zc_x.xptiAddMetadata(e, "memory_size", size), ZX_XPTI_SUCCESS);
    assert_int_equal(zc_x.xptiAddMetadata(e, "kernel_name", text), ZX_XPTI_DUPLICATE); /* overwritten: same value */
    const zx_xpti_metadata *map = zc_x.xptiQueryMetadata(e);
    assert_non_null(map);
    assert_int_equal(offsetof(zx_xpti_metadata, element_count), 24); /* libstdc++'s _M_element_count */
    assert_int_equal(map->element_count, 2);
    assert_int_equal(zc_meta_value(map, "kernel_name"), text);
    assert_int_equal(zc_meta_value(map, "memory_size"), size);
    char *copy;
    zx_xpti_string_id key_id = zc_x.xptiRegisterString("memory_size", &copy);
    const zx_xpti_meta_link *before = map->buckets[(size_t)key_id % map->bucket_count];
    assert_non_null(before); /* the bucket points at the node before the key's */
    assert_int_equal(before->next->key, key_id);
    if (!zc_ours())
        return;
    const char *key = NULL;
    zx_xpti_object_id value = 0;
    assert_int_equal(zc_x.metadata_at(e, 0, &key, &value), ZX_XPTI_SUCCESS);
    assert_string_equal(key, "kernel_name");
    zx_xpti_object_data data = zc_x.xptiLookupObject(value);
    assert_int_equal(data.size, 4);
    assert_int_equal(data.type, ZX_METADATA_STRING);
    assert_memory_equal(data.data, "vadd", 4);
    assert_int_equal(zc_x.metadata_at(e, 1, &key, &value), ZX_XPTI_SUCCESS);
    data = zc_x.xptiLookupObject(value);
    assert_int_equal(data.size, sizeof number);
    assert_memory_equal(data.data, &number, sizeof number);
    assert_int_equal(zc_x.metadata_at(e, 2, &key, &value), ZX_XPTI_NOTFOUND);
    data = zc_x.xptiLookupObject(-5);
    assert_null(data.data);
    assert_int_equal(zc_x.xptiRegisterObject(NULL, 3, ZX_METADATA_BINARY), ZX_XPTI_INVALID_ID);
}

/* As the framework, xptiReset forgets events, callbacks and strings (test_xpti_expectations.c checks each restart). */
static void reset_forgets_events_callbacks_and_strings(void **state) {
    (void)state;
    char *copy;
    zx_xpti_string_id id = zc_x.xptiRegisterString("zc.reset.string", &copy);
    zx_xpti_event *e = zc_x.xptiMakeEvent(NULL, &(zx_xpti_payload){.name = "zc.reset.event"}, 0, 0, &zc_instance);
    uint8_t s = zc_stream("zc.reset");
    assert_int_equal(zc_x.xptiRegisterCallback(s, ZX_TP_SIGNAL, zc_cb_a), ZX_XPTI_SUCCESS);
    assert_non_null(zc_x.xptiQueryPayload(e));
    zc_x.xptiReset();
    assert_null(zc_x.xptiFindEvent(e->unique_id));
    assert_null(zc_x.xptiQueryPayload(e));
    assert_false(zc_x.xptiCheckTraceEnabled(s, ZX_TP_SIGNAL));
    assert_int_equal(zc_x.xptiRegisterStream("zc.reset"), s); /* stream ids stay */
    const char *now = zc_x.xptiLookupString(id);
    assert_true(now == NULL || strcmp(now, "zc.reset.string") != 0);
    if (zc_ours()) /* ours keeps the old copies readable */
        assert_string_equal(copy, "zc.reset.string");
}

/* ------------------------------------------------------------------------------------------------------------------
 * Stash, defaults, user-defined types */

static void *zc_stash_elsewhere(void *arg) {
    (void)arg;
    char *key = NULL;
    uint64_t value = 0;
    return (void *)(uintptr_t)(zc_x.xptiGetStashedTuple(&key, &value) == ZX_XPTI_NOTFOUND);
}

static void stash_is_a_per_thread_stack(void **state) {
    (void)state;
    char *key = NULL;
    uint64_t value = 0;
    assert_int_equal(zc_x.xptiGetStashedTuple(&key, &value), ZX_XPTI_NOTFOUND);
    assert_int_equal(zc_x.xptiStashTuple("queue_id", 7), ZX_XPTI_SUCCESS);
    assert_int_equal(zc_x.xptiStashTuple("inner", 8), ZX_XPTI_SUCCESS);
    assert_int_equal(zc_x.xptiGetStashedTuple(&key, &value), ZX_XPTI_SUCCESS);
    assert_string_equal(key, "inner");
    assert_int_equal(value, 8);
    pthread_t thread;
    void *elsewhere_empty = NULL;
    assert_int_equal(pthread_create(&thread, NULL, zc_stash_elsewhere, NULL), 0);
    pthread_join(thread, &elsewhere_empty);
    assert_non_null(elsewhere_empty);
    assert_int_equal(zc_x.xptiStashTuple(NULL, 1), ZX_XPTI_FAIL); /* as the framework answers */
    assert_int_equal(zc_x.xptiGetStashedTuple(NULL, &value), ZX_XPTI_INVALIDARG);
    if (!zc_ours())
        return; /* the framework keeps one tuple per thread, which unstashing leaves (docs/xpti.md, "Differences") */
    zc_x.xptiUnstashTuple();
    assert_int_equal(zc_x.xptiGetStashedTuple(&key, &value), ZX_XPTI_SUCCESS);
    assert_string_equal(key, "queue_id");
    assert_int_equal(value, 7);
    zc_x.xptiUnstashTuple();
    zc_x.xptiUnstashTuple(); /* one more than stashed: nothing happens */
    assert_int_equal(zc_x.xptiGetStashedTuple(&key, &value), ZX_XPTI_NOTFOUND);
    assert_int_equal(zc_x.xptiGetStashedTuple(&key, NULL), ZX_XPTI_INVALIDARG);
}

/* The framework's defaults: its own stream xpti.framework, algorithm events, function_begin; invalid values refused. */
static void defaults_keep_what_was_set(void **state) {
    (void)state;
    assert_int_equal(zc_x.xptiGetDefaultStreamID(), zc_x.xptiRegisterStream(ZX_XPTI_FRAMEWORK_STREAM));
    assert_int_equal(zc_x.xptiGetDefaultEventType(), ZX_ET_ALGORITHM);
    assert_int_equal(zc_x.xptiGetDefaultTraceType(), ZX_TP_FUNCTION_BEGIN);
    assert_int_equal(zc_x.xptiSetDefaultEventType(ZX_ET_UNKNOWN), ZX_XPTI_INVALIDARG);
    assert_int_equal(zc_x.xptiSetDefaultTraceType(0), ZX_XPTI_INVALIDARG);
    assert_int_equal(zc_x.xptiSetDefaultStreamID(ZX_XPTI_INVALID_STREAM), ZX_XPTI_INVALIDARG);
    uint8_t s = zc_stream("zc.default");
    assert_int_equal(zc_x.xptiSetDefaultStreamID(s), ZX_XPTI_SUCCESS);
    assert_int_equal(zc_x.xptiGetDefaultStreamID(), s);
    assert_int_equal(zc_x.xptiSetDefaultEventType(ZX_ET_BARRIER), ZX_XPTI_SUCCESS);
    assert_int_equal(zc_x.xptiGetDefaultEventType(), ZX_ET_BARRIER);
    assert_int_equal(zc_x.xptiSetDefaultTraceType(ZX_TP_TASK_BEGIN), ZX_XPTI_SUCCESS);
    assert_int_equal(zc_x.xptiGetDefaultTraceType(), ZX_TP_TASK_BEGIN);
}

static void user_defined_types_carry_the_tool(void **state) {
    (void)state;
    uint16_t tp1 = zc_x.xptiRegisterUserDefinedTracePoint("zc.tool.one", 3);
    uint16_t tp2 = zc_x.xptiRegisterUserDefinedTracePoint("zc.tool.one", 4);
    uint16_t tp3 = zc_x.xptiRegisterUserDefinedTracePoint("zc.tool.two", 3);
    uint16_t et = zc_x.xptiRegisterUserDefinedEventType("zc.tool.one", 1);
    assert_int_equal(tp1 & 0xff, 0x80 | 3);
    assert_int_equal(tp2 & 0xff, 0x80 | 4);
    assert_int_equal(tp1 >> 8, tp2 >> 8);
    assert_int_not_equal(tp1 >> 8, 0);
    assert_int_not_equal(tp1 >> 8, tp3 >> 8);
    assert_int_equal(et, (tp1 & 0xff00) | 0x81);
    assert_int_equal(zc_x.xptiRegisterUserDefinedTracePoint(NULL, 1), 0);
    assert_int_equal(zc_x.xptiRegisterUserDefinedEventType("", 1), 0);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Threads: notifications while callbacks come and go */

#define ZC_NOTIFIERS 8
#define ZC_ROUNDS    2000

static atomic_ulong zc_threaded_calls;
static uint8_t zc_threaded_stream;
static atomic_bool zc_threaded_stop;

static void zc_cb_count(uint16_t t, zx_xpti_event *p, zx_xpti_event *o, uint64_t i, const void *u) {
    (void)t;
    (void)p;
    (void)o;
    (void)i;
    (void)u;
    atomic_fetch_add_explicit(&zc_threaded_calls, 1, memory_order_relaxed);
}

static void *zc_notifier(void *arg) {
    (void)arg;
    for (int i = 0; i < ZC_ROUNDS; i++) {
        if (zc_x.xptiCheckTraceEnabled(zc_threaded_stream, ZX_TP_FUNCTION_BEGIN))
            zc_x.xptiNotifySubscribers(zc_threaded_stream, ZX_TP_FUNCTION_BEGIN, NULL, NULL, (uint64_t)i, "f");
        zc_x.xptiNotifySubscribers(zc_threaded_stream, ZX_TP_FUNCTION_END, NULL, NULL, (uint64_t)i, "f");
    }
    return NULL;
}

/* Registers and unregisters callbacks of new types while the notifiers run: new pages and nodes get published. */
static void *zc_registrar(void *arg) {
    (void)arg;
    for (uint16_t type = 0x200; !atomic_load(&zc_threaded_stop) && type < 0x2000; type++) {
        zc_x.xptiRegisterCallback(zc_threaded_stream, type, zc_cb_a);
        zc_x.xptiUnregisterCallback(zc_threaded_stream, ZX_TP_FUNCTION_BEGIN, zc_cb_count);
        zc_x.xptiRegisterCallback(zc_threaded_stream, ZX_TP_FUNCTION_BEGIN, zc_cb_count);
    }
    return NULL;
}

static void notify_from_threads_while_registering(void **state) {
    (void)state;
    zc_threaded_stream = zc_stream("zc.threads");
    atomic_store(&zc_threaded_calls, 0);
    atomic_store(&zc_threaded_stop, false);
    assert_int_equal(zc_x.xptiRegisterCallback(zc_threaded_stream, ZX_TP_FUNCTION_END, zc_cb_count), ZX_XPTI_SUCCESS);
    assert_int_equal(zc_x.xptiRegisterCallback(zc_threaded_stream, ZX_TP_FUNCTION_BEGIN, zc_cb_count), ZX_XPTI_SUCCESS);
    pthread_t threads[ZC_NOTIFIERS], registrar;
    assert_int_equal(pthread_create(&registrar, NULL, zc_registrar, NULL), 0);
    for (int i = 0; i < ZC_NOTIFIERS; i++)
        assert_int_equal(pthread_create(&threads[i], NULL, zc_notifier, NULL), 0);
    for (int i = 0; i < ZC_NOTIFIERS; i++)
        pthread_join(threads[i], NULL);
    atomic_store(&zc_threaded_stop, true);
    pthread_join(registrar, NULL);
    /* Every end notification reached the callback that never changed; begins came and went. */
    unsigned long calls = atomic_load(&zc_threaded_calls);
    assert_true(calls >= (unsigned long)ZC_NOTIFIERS * ZC_ROUNDS);
    assert_true(calls <= 2ul * ZC_NOTIFIERS * ZC_ROUNDS);
    assert_int_equal(zc_log_count, 0); /* the types the registrar added were never notified */
}

/* ------------------------------------------------------------------------------------------------------------------
 * Subscriber loading (child processes: the framework reads its environment once) */

/* Child: initialises one stream twice and another once, finalises both and a stream never initialised, printing what
 * the test subscriber saw before the framework is finalised (a framework may unload its subscribers then). */
static int zc_child_subscribers(int argc, char **argv) {
    (void)argc;
    (void)argv;
    if (!zc_load_framework())
        return 2;
    zc_x.xptiFrameworkInitialize();
    printf("trace_enabled=%d\n", zc_x.xptiTraceEnabled() ? 1 : 0);
    printf("init_result=%d\n", (int)zc_x.xptiInitialize("zc.s1", 1, 2, "1.2"));
    zc_x.xptiInitialize("zc.s1", 1, 2, "1.2"); /* subscribers are called on every initialisation */
    zc_x.xptiInitialize("zc.s2", 0, 1, "0.1");
    zc_x.xptiFinalize("zc.s1");
    zc_x.xptiFinalize("zc.s2");
    zc_x.xptiFinalize("zc.never");
    zc_x.xptiFinalize(NULL);
    void *subscriber = dlopen(ZC_XPTI_TEST_SUBSCRIBER, RTLD_NOLOAD | RTLD_LAZY);
    zx_ts_print_fn print = NULL;
    if (subscriber != NULL)
        *(void **)&print = dlsym(subscriber, ZX_TS_PRINT);
    if (print != NULL)
        print(stdout);
    else
        printf("subscriber=absent\n");
    fflush(stdout);
    zc_x.xptiFrameworkFinalize();
    return 0;
}

static void zc_run_subscribers(const char *enable, const char *subscribers, zc_child *child) {
    char enable_var[64], subscribers_var[4096];
    snprintf(enable_var, sizeof enable_var, "XPTI_TRACE_ENABLE=%s", enable != NULL ? enable : "");
    snprintf(subscribers_var, sizeof subscribers_var, "XPTI_SUBSCRIBERS=%s", subscribers);
    const char *env[] = {enable != NULL ? enable_var : "XPTI_TRACE_ENABLE", subscribers_var, NULL};
    assert_true(zc_run_child_mode("subscribers", NULL, env, ZC_CHILD_TIMEOUT_MS, child));
    zc_assert_child_ok(child, "the subscribers child");
}

static void subscribers_loaded_and_initialised_per_stream(void **state) {
    (void)state;
    const char *enabling[] = {NULL, "1", "true"};
    for (size_t i = 0; i < ZC_COUNT(enabling); i++) {
        zc_child child;
        zc_run_subscribers(enabling[i], ZC_XPTI_TEST_SUBSCRIBER, &child);
        assert_int_equal(zc_child_number(&child, "trace_enabled"), 1);
        assert_int_equal(zc_child_number(&child, "init_result"), ZX_XPTI_SUCCESS);
        assert_int_equal(zc_child_number(&child, "inits"), 3);
        /* Every finalisation reaches the subscribers, also that of a stream never initialised; NULL none. */
        assert_int_equal(zc_child_number(&child, "finishes"), 3);
        /* Before the first stream, the framework initialises its own, once. */
        assert_int_equal(zc_child_number(&child, "framework_inits"), 1);
        zc_child_free(&child);
    }
}

static void subscribers_not_loaded_when_disabled(void **state) {
    (void)state;
    const char *disabling[] = {"0", "false", "yes", "TRUE", ""};
    for (size_t i = 0; i < ZC_COUNT(disabling); i++) {
        zc_child child;
        zc_run_subscribers(disabling[i], ZC_XPTI_TEST_SUBSCRIBER, &child);
        assert_int_equal(zc_child_number(&child, "trace_enabled"), 0);
        assert_int_equal(zc_child_number(&child, "init_result"), ZX_XPTI_SUCCESS); /* as with subscribers */
        char value[32];
        if (!zc_child_value(&child, "subscriber", value, sizeof value) || strcmp(value, "absent") != 0)
            zc_fail("XPTI_TRACE_ENABLE=%s loaded the subscriber:\n%s", disabling[i], child.out);
        zc_child_free(&child);
    }
}

static void subscriber_without_an_entry_point_not_loaded(void **state) {
    (void)state;
    zc_child child;
    zc_run_subscribers("1", ZC_XPTI_INCOMPLETE_SUBSCRIBER "," ZC_XPTI_TEST_SUBSCRIBER, &child);
    assert_int_equal(zc_child_number(&child, "trace_enabled"), 1);
    assert_int_equal(zc_child_number(&child, "inits"), 3);
    assert_null(strstr(child.out, "zx_incomplete_subscriber"));
    assert_non_null(strstr(child.err, "does not export xptiTraceFinish"));
    zc_child_free(&child);
    /* Alone, it leaves no subscriber: tracing is off. */
    zc_run_subscribers("1", ZC_XPTI_INCOMPLETE_SUBSCRIBER, &child);
    assert_int_equal(zc_child_number(&child, "trace_enabled"), 0);
    zc_child_free(&child);
}

static void subscriber_bad_paths_skipped_with_a_diagnostic(void **state) {
    (void)state;
    zc_child child;
    zc_run_subscribers("1", "/nonexistent/libnothing.so,," ZC_XPTI_TEST_SUBSCRIBER "," ZC_XPTI_TEST_SUBSCRIBER, &child);
    assert_int_equal(zc_child_number(&child, "trace_enabled"), 1);
    assert_int_equal(zc_child_number(&child, "inits"), 3); /* listed twice, loaded once */
    assert_non_null(strstr(child.err, "xptifw: cannot load subscriber /nonexistent/libnothing.so"));
    zc_child_free(&child);
}

static void initialize_bad_input(void **state) {
    (void)state;
    assert_int_equal(zc_x.xptiInitialize(NULL, 0, 1, "0.1"), ZX_XPTI_INVALIDARG);
    assert_int_equal(zc_x.xptiInitialize("zc.nobody", 0, 1, NULL), ZX_XPTI_INVALIDARG);
    /* No subscriber in this process: SUCCESS all the same, as the framework answers. */
    assert_int_equal(zc_x.xptiInitialize("zc.nobody", 0, 1, "0.1"), ZX_XPTI_SUCCESS);
    zc_x.xptiFinalize("zc.nobody");
    zc_x.xptiFrameworkFinalize(); /* more finalisations than initialisations: nothing happens */
}

int main(int argc, char **argv) {
    static const struct CMUnitTest tests[] = {
        cmocka_unit_test(strings_same_text_same_id_and_copy),
        cmocka_unit_test(strings_bad_input),
        cmocka_unit_test(streams_same_name_same_id),
        cmocka_unit_test(finalize_disables_the_stream_callbacks),
        cmocka_unit_test(unique_ids_increase),
        cmocka_unit_test(callbacks_run_in_registration_order),
        cmocka_unit_test(callbacks_duplicate_unregister_and_again),
        cmocka_unit_test(callbacks_bad_arguments),
        cmocka_unit_test(notify_object_rules),
        cmocka_unit_test(tracing_off_notifies_nothing),
        cmocka_unit_test(check_trace_enabled_by_stream_and_type),
        cmocka_unit_test(events_new_per_call_payload_interned),
        cmocka_unit_test(events_and_payloads_in_the_current_layout),
        cmocka_unit_test(payloads_registered),
        cmocka_unit_test(tracepoints_create_lookup_delete),
        cmocka_unit_test(tracepoint_scope_and_universal_id),
        cmocka_unit_test(events_bad_input),
        cmocka_unit_test(events_released_are_forgotten),
        cmocka_unit_test(metadata_and_objects),
        cmocka_unit_test(reset_forgets_events_callbacks_and_strings),
        cmocka_unit_test(stash_is_a_per_thread_stack),
        cmocka_unit_test(defaults_keep_what_was_set),
        cmocka_unit_test(user_defined_types_carry_the_tool),
        cmocka_unit_test(notify_from_threads_while_registering),
        cmocka_unit_test(subscribers_loaded_and_initialised_per_stream),
        cmocka_unit_test(subscribers_not_loaded_when_disabled),
        cmocka_unit_test(subscriber_without_an_entry_point_not_loaded),
        cmocka_unit_test(subscriber_bad_paths_skipped_with_a_diagnostic),
        cmocka_unit_test(initialize_bad_input),
    };
    static const zc_child_mode modes[] = {{"subscribers", zc_child_subscribers}};
    static const zc_suite suite = {ZC_EXECUTABLE, tests, ZC_COUNT(tests), zc_setup, NULL, modes, ZC_COUNT(modes)};
    return zc_main(argc, argv, &suite);
}
