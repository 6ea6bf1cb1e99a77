/* Conformance: the expectations of the XPTI framework's own unit tests that a replacement dispatcher must meet
 * (docs/xpti.md, "Our dispatcher"), one test each: the unknown payload of a tracepoint created with neither name nor
 * file, what xptiReset forgets and restarts, the registered payload's hash and universal id and its lookup, the
 * default stream, the metadata rules, the first object id, the effective stream detail level; and the lock-free
 * lookups under threads. Each states the framework's behaviour, so the file also runs against another framework:
 * ZC_XPTI_FRAMEWORK names it (default ours). The library is dlopen'ed and its functions looked up by name; the order
 * of the tests matters where one needs a first call (the default stream, the first object). */
#include "zc_harness.h"
#include "zc_xpti_fw.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

static zc_fw zc_x;

static bool zc_load(void) {
    return zc_fw_load(&zc_x);
}

static int zc_setup(void **state) {
    (void)state;
    if (!zc_load()) {
        fprintf(stderr, "test_xpti_expectations: cannot load %s or one of its 48 functions\n", zc_xpti_framework());
        return -1;
    }
    return 0;
}

/* A virtual function of an interface object, called as a C++ caller does. */
static void *zc_slot(const zx_xpti_iface *object, int slot) {
    return *(void **)&object->vtable[slot];
}

static zx_xpti_payload *zc_tp_payload(const zx_xpti_tracepoint *tp) {
    return ((zx_xpti_payload * (*)(const zx_xpti_iface *)) zc_slot(tp, ZX_TP_SLOT_PAYLOAD_REF))(tp);
}

static uint64_t zc_tp_u64(const zx_xpti_tracepoint *tp, int slot) {
    return ((uint64_t(*)(const zx_xpti_iface *))zc_slot(tp, slot))(tp);
}

/* The 64-bit universal id a payload carries: `internal`, valid only with HashAvailable (payload_flag_t). */
static uint64_t zc_universal_id(const zx_xpti_payload *payload) {
    return (payload->flags & ZX_PAYLOAD_HASH) != 0 ? payload->internal : 0;
}

/* ------------------------------------------------------------------------------------------------------------------
 * U2: the default stream */

/* The framework registers its own stream, xpti.framework, when it is created, before it answers anything else: the
 * default stream id is that stream's, never 0 once the framework is up (ours is up from its first call), and a stream
 * registered later gets a later id. */
static void default_stream_is_the_framework_stream(void **state) {
    (void)state;
    uint8_t first = zc_x.xptiGetDefaultStreamID(); /* the very first call this process makes into it */
    if (zc_x.metadata_at != NULL)
        assert_int_equal(first, 1);
    char *copy;
    zc_x.xptiRegisterString("zc.up", &copy); /* any call creates the framework */
    uint8_t framework = zc_x.xptiRegisterStream(ZX_XPTI_FRAMEWORK_STREAM);
    assert_int_not_equal(framework, 0);
    assert_int_equal(zc_x.xptiGetDefaultStreamID(), framework);
    assert_true(zc_x.xptiRegisterStream("zc.later") > framework);
}

/* The framework takes any id that is not negative as an int8_t, whether a stream has it or not. */
static void default_stream_set_to_an_id_without_a_name(void **state) {
    (void)state;
    uint8_t framework = zc_x.xptiGetDefaultStreamID();
    assert_int_equal(zc_x.xptiSetDefaultStreamID(42), ZX_XPTI_SUCCESS);
    assert_int_equal(zc_x.xptiGetDefaultStreamID(), 42);
    assert_int_equal(zc_x.xptiSetDefaultStreamID((uint8_t)-1), ZX_XPTI_INVALIDARG);
    assert_int_equal(zc_x.xptiSetDefaultStreamID(128), ZX_XPTI_INVALIDARG);
    assert_int_equal(zc_x.xptiGetDefaultStreamID(), 42); /* a refused id changes nothing */
    assert_int_equal(zc_x.xptiSetDefaultStreamID(127), ZX_XPTI_SUCCESS);
    assert_int_equal(zc_x.xptiSetDefaultStreamID(framework), ZX_XPTI_SUCCESS);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Objects (before any test registers one) */

static void first_object_id_is_zero(void **state) {
    (void)state;
    zx_xpti_object_id first = zc_x.xptiRegisterObject("zc.first", 8, ZX_METADATA_STRING);
    assert_int_equal(first, 0);
    assert_int_equal(zc_x.xptiRegisterObject("zc.second", 9, ZX_METADATA_STRING), 1);
    zx_xpti_object_data data = zc_x.xptiLookupObject(0);
    assert_int_equal(data.size, 8);
    assert_memory_equal(data.data, "zc.first", 8);
    assert_int_equal(zc_x.xptiRegisterObject(NULL, 0, ZX_METADATA_BINARY), ZX_XPTI_INVALID_ID);
}

/* ------------------------------------------------------------------------------------------------------------------
 * U1: a tracepoint with neither name nor file */

static void create_tracepoint_without_name_or_file_is_unknown(void **state) {
    (void)state;
    const char *none[][2] = {{NULL, NULL}, {"", ""}, {"", NULL}};
    for (size_t i = 0; i < ZC_COUNT(none); i++) {
        zx_xpti_tracepoint *tp = zc_x.xptiCreateTracepoint(none[i][0], none[i][1], 0, 0);
        assert_non_null(tp);
        const zx_xpti_payload *payload = zc_tp_payload(tp);
        assert_non_null(payload->name);
        assert_string_equal(payload->name, "unknown");
        assert_string_equal(payload->source_file, "unknown-file");
        assert_int_equal(payload->line_no, 0);
        assert_int_equal(payload->column_no, 0);
        assert_int_equal(payload->flags & (ZX_PAYLOAD_NAME | ZX_PAYLOAD_SOURCE_FILE),
                         ZX_PAYLOAD_NAME | ZX_PAYLOAD_SOURCE_FILE);
        assert_non_null(zc_x.xptiFindEvent(zc_tp_u64(tp, ZX_TP_SLOT_UID64)));
        assert_int_equal(zc_x.xptiDeleteTracepoint(tp), ZX_XPTI_SUCCESS);
    }
    /* Only the location of the stand-in counts: a line without a name or file is not kept. */
    zx_xpti_tracepoint *tp = zc_x.xptiCreateTracepoint(NULL, NULL, 17, 3);
    assert_non_null(tp);
    assert_int_equal(zc_tp_payload(tp)->line_no, 0);
    zc_x.xptiDeleteTracepoint(tp);
}

/* ------------------------------------------------------------------------------------------------------------------
 * U3, U4: xptiReset */

static atomic_int zc_calls;

static void zc_count_call(uint16_t t, zx_xpti_event *p, zx_xpti_event *o, uint64_t i, const void *u) {
    (void)t;
    (void)p;
    (void)o;
    (void)i;
    (void)u;
    atomic_fetch_add(&zc_calls, 1);
}

/* The framework clears its callbacks: registering one again is a first registration (SUCCESS, not UNDELETE), the
 * stream has none to unregister, a notification calls it once. */
static void reset_forgets_callbacks(void **state) {
    (void)state;
    zc_x.xptiForceSetTraceEnabled(true);
    uint8_t s = zc_x.xptiRegisterStream("zc.reset.callbacks");
    assert_int_equal(zc_x.xptiRegisterCallback(s, ZX_TP_SIGNAL, zc_count_call), ZX_XPTI_SUCCESS);
    assert_int_equal(zc_x.xptiUnregisterCallback(s, ZX_TP_SIGNAL, zc_count_call), ZX_XPTI_SUCCESS);
    zc_x.xptiReset();
    assert_int_equal(zc_x.xptiUnregisterStream("zc.reset.callbacks"), ZX_XPTI_NOTFOUND);
    assert_int_equal(zc_x.xptiUnregisterCallback(s, ZX_TP_SIGNAL, zc_count_call), ZX_XPTI_NOTFOUND);
    assert_int_equal(zc_x.xptiRegisterCallback(s, ZX_TP_SIGNAL, zc_count_call), ZX_XPTI_SUCCESS);
    assert_int_equal(zc_x.xptiRegisterCallback(s, ZX_TP_SIGNAL, zc_count_call), ZX_XPTI_DUPLICATE);
    zx_xpti_tracepoint *tp = zc_x.xptiCreateTracepoint("zc_reset", "zc_reset.c", 1, 0);
    zx_xpti_event *event = ((zx_xpti_event * (*)(const zx_xpti_iface *)) zc_slot(tp, ZX_TP_SLOT_EVENT_REF))(tp);
    atomic_store(&zc_calls, 0);
    assert_int_equal(zc_x.xptiNotifySubscribers(s, ZX_TP_SIGNAL, NULL, event, 1, NULL), ZX_XPTI_SUCCESS);
    assert_int_equal(atomic_load(&zc_calls), 1);
    assert_int_equal(zc_x.xptiRegisterStream("zc.reset.callbacks"), s); /* stream ids stay */
    zc_x.xptiDeleteTracepoint(tp);
    zc_x.xptiReset();
    zc_x.xptiForceSetTraceEnabled(false);
}

/* The framework forgets its payloads, so a payload seen before is new again (instance 1); events are gone, unique ids
 * and string ids start again at 1. */
static void reset_restarts_instances_and_ids(void **state) {
    (void)state;
    zx_xpti_payload payload = {.name = "zc.reset.event", .source_file = "zc_reset.c", .line_no = 2};
    uint64_t instance = 0;
    zx_xpti_event *e1 = zc_x.xptiMakeEvent(NULL, &payload, ZX_ET_ALGORITHM, ZX_ACTIVITY_ACTIVE, &instance);
    zc_x.xptiMakeEvent(NULL, &payload, ZX_ET_ALGORITHM, ZX_ACTIVITY_ACTIVE, &instance);
    assert_int_equal(instance, 2);
    uint64_t uid = e1->unique_id;
    zc_x.xptiGetUniqueId();
    zc_x.xptiReset();
    char *copy;
    assert_int_equal(zc_x.xptiRegisterString("zc.after.reset", &copy), 1);
    assert_int_equal(zc_x.xptiGetUniqueId(), 1);
    assert_null(zc_x.xptiFindEvent(uid));
    zx_xpti_payload again = {.name = "zc.reset.event", .source_file = "zc_reset.c", .line_no = 2};
    zx_xpti_event *e = zc_x.xptiMakeEvent(NULL, &again, ZX_ET_ALGORITHM, ZX_ACTIVITY_ACTIVE, &instance);
    assert_non_null(e);
    assert_int_equal(instance, 1);
    zx_xpti_tracepoint *tp = zc_x.xptiCreateTracepoint("zc.reset.event", "zc_reset.c", 2, 0);
    assert_int_equal(zc_tp_u64(tp, ZX_TP_SLOT_INSTANCE), 2);
    zc_x.xptiReleaseEvent(e);
    zc_x.xptiDeleteTracepoint(tp);
}

/* ------------------------------------------------------------------------------------------------------------------
 * U5, lookup: registered payloads */

/* xptiRegisterPayload answers the 64-bit uid of what it registered; the framework's payload carries HashAvailable
 * with that uid in `internal`, so its universal id is the uid; the caller's payload is marked registered and holds
 * the uid too. */
static void registered_payload_has_hash_and_universal_id(void **state) {
    (void)state;
    zx_xpti_payload p = {.name = "zc.registered", .source_file = "zc_registered.c", .line_no = 10};
    uint64_t uid = zc_x.xptiRegisterPayload(&p);
    assert_int_not_equal(uid, 0);
    assert_int_equal(p.internal, uid);
    assert_int_equal(p.flags & ZX_PAYLOAD_REGISTERED, ZX_PAYLOAD_REGISTERED);
    const zx_xpti_payload *registered = zc_x.xptiQueryPayloadByUID(uid);
    assert_non_null(registered);
    assert_int_equal(registered->flags & ZX_PAYLOAD_HASH, ZX_PAYLOAD_HASH);
    assert_int_equal(zc_universal_id(registered), uid);
    assert_int_equal(registered->uid.p1, p.uid.p1);
    assert_int_equal(registered->uid.p2, p.uid.p2);
    assert_string_equal(registered->name, "zc.registered");
    /* Registering it again is another instance with another uid. */
    zx_xpti_payload q = {.name = "zc.registered", .source_file = "zc_registered.c", .line_no = 10};
    uint64_t other = zc_x.xptiRegisterPayload(&q);
    assert_int_not_equal(other, 0);
    assert_int_not_equal(other, uid);
    assert_int_equal(zc_x.xptiRegisterPayload(&(zx_xpti_payload){0}), 0);
}

/* C++ subscribers read names and locations through xptiLookupPayload of the uid xptiRegisterPayload answered. */
static void lookup_payload_of_a_registered_payload(void **state) {
    (void)state;
    zx_xpti_payload p = {.name = "zc.looked.up", .source_file = "zc_lookup.c", .line_no = 33, .column_no = 4};
    uint64_t uid = zc_x.xptiRegisterPayload(&p);
    const zx_xpti_payload_iface *iface = zc_x.xptiLookupPayload(uid);
    assert_non_null(iface);
    typedef const char *(*text_fn)(const zx_xpti_iface *);
    typedef uint32_t (*number_fn)(const zx_xpti_iface *);
    assert_string_equal(((text_fn)zc_slot(iface, ZX_PL_SLOT_NAME))(iface), "zc.looked.up");
    assert_string_equal(((text_fn)zc_slot(iface, ZX_PL_SLOT_SOURCE_FILE))(iface), "zc_lookup.c");
    assert_int_equal(((number_fn)zc_slot(iface, ZX_PL_SLOT_LINE_NO))(iface), 33);
    assert_int_equal(((uint64_t(*)(const zx_xpti_iface *))zc_slot(iface, ZX_PL_SLOT_UID64))(iface), uid);
    zx_xpti_payload *ref =
        ((zx_xpti_payload * (*)(const zx_xpti_iface *)) zc_slot(iface, ZX_PL_SLOT_PAYLOAD_REF))(iface);
    assert_ptr_equal(ref, zc_x.xptiQueryPayloadByUID(uid));
    assert_null(zc_x.xptiLookupPayload(0));
    assert_null(zc_x.xptiLookupPayload(10000));
}

/* ------------------------------------------------------------------------------------------------------------------
 * Metadata */

/* The framework overwrites the value of a key an event has, and says so (DUPLICATE). */
static void duplicate_metadata_key_overwrites(void **state) {
    (void)state;
    uint64_t instance;
    zx_xpti_event *e = zc_x.xptiMakeEvent(NULL, &(zx_xpti_payload){.name = "zc.meta.dup"}, 0, 0, &instance);
    zx_xpti_object_id first = zc_x.xptiRegisterObject("one", 3, ZX_METADATA_STRING);
    zx_xpti_object_id second = zc_x.xptiRegisterObject("two", 3, ZX_METADATA_STRING);
    assert_int_equal(zc_x.xptiAddMetadata(e, "zc.key", first), ZX_XPTI_SUCCESS);
    assert_int_equal(zc_x.xptiAddMetadata(e, "zc.key", second), ZX_XPTI_DUPLICATE);
    const zx_xpti_metadata *map = zc_x.xptiQueryMetadata(e);
    assert_int_equal(map->element_count, 1);
    char *copy;
    zx_xpti_string_id key = zc_x.xptiRegisterString("zc.key", &copy);
    const zx_xpti_meta_node *node = map->before_begin.next;
    assert_non_null(node);
    assert_int_equal(node->key, key);
    assert_int_equal(node->value, second);
    zc_x.xptiReleaseEvent(e);
}

/* The string table refuses an empty string, so the framework refuses an empty key. */
static void empty_metadata_key_refused(void **state) {
    (void)state;
    uint64_t instance;
    zx_xpti_event *e = zc_x.xptiMakeEvent(NULL, &(zx_xpti_payload){.name = "zc.meta.empty"}, 0, 0, &instance);
    zx_xpti_object_id value = zc_x.xptiRegisterObject("v", 1, ZX_METADATA_STRING);
    assert_int_equal(zc_x.xptiAddMetadata(e, "", value), ZX_XPTI_INVALIDARG);
    assert_int_equal(zc_x.xptiQueryMetadata(e)->element_count, 0);
    char *copy = (char *)"untouched";
    assert_int_equal(zc_x.xptiRegisterString("", &copy), ZX_XPTI_INVALID_ID);
    zc_x.xptiReleaseEvent(e);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Stream detail levels */

/* Exported; NORMAL for a stream no one initialised (and again after xptiReset); the most detailed level its
 * subscribers ask for once initialised: NONE without subscribers. */
static void effective_detail_level_exported(void **state) {
    (void)state;
    assert_non_null(zc_x.xptiGetEffectiveStreamDetailLevel);
    uint8_t s = zc_x.xptiRegisterStream("zc.detail");
    assert_int_equal(zc_x.xptiGetEffectiveStreamDetailLevel(s), ZX_DETAIL_NORMAL);
    assert_int_equal(zc_x.xptiInitialize("zc.detail", 1, 0, "1.0"), ZX_XPTI_SUCCESS);
    assert_int_equal(zc_x.xptiGetEffectiveStreamDetailLevel(s), ZX_DETAIL_NONE); /* no subscriber in this process */
    zc_x.xptiFinalize("zc.detail");
    zc_x.xptiReset();
    assert_int_equal(zc_x.xptiGetEffectiveStreamDetailLevel(s), ZX_DETAIL_NORMAL);
}

/* Child: the levels of a stream before and after its initialisation, with the test subscriber loaded. */
static int zc_child_detail(int argc, char **argv) {
    (void)argc;
    (void)argv;
    if (!zc_load() || zc_x.xptiGetEffectiveStreamDetailLevel == NULL)
        return 2;
    zc_x.xptiFrameworkInitialize();
    uint8_t s = zc_x.xptiRegisterStream("zc.detail.child");
    printf("before=%u\n", zc_x.xptiGetEffectiveStreamDetailLevel(s));
    zc_x.xptiInitialize("zc.detail.child", 1, 0, "1.0");
    printf("after=%u\n", zc_x.xptiGetEffectiveStreamDetailLevel(s));
    fflush(stdout);
    zc_x.xptiFrameworkFinalize();
    return 0;
}

static uint64_t zc_detail_in_child(const char *asked, const char *key) {
    char subscribers[4096];
    snprintf(subscribers, sizeof subscribers, "XPTI_SUBSCRIBERS=%s", ZC_XPTI_TEST_SUBSCRIBER);
    const char *env[] = {"XPTI_TRACE_ENABLE", subscribers, asked, NULL};
    zc_child child;
    assert_true(zc_run_child_mode("detail", NULL, env, ZC_CHILD_TIMEOUT_MS, &child));
    zc_assert_child_ok(&child, "the detail-level child");
    uint64_t level = zc_child_number(&child, key);
    zc_child_free(&child);
    return level;
}

/* A subscriber that says nothing asks NORMAL; one that asks VERBOSE (the test subscriber with ZX_TS_DETAIL=3) gets
 * it. */
static void effective_detail_level_is_what_subscribers_ask(void **state) {
    (void)state;
    assert_int_equal(zc_detail_in_child("ZX_TS_DETAIL", "before"), ZX_DETAIL_NORMAL);
    assert_int_equal(zc_detail_in_child("ZX_TS_DETAIL", "after"), ZX_DETAIL_NORMAL);
    assert_int_equal(zc_detail_in_child("ZX_TS_DETAIL=3", "after"), ZX_DETAIL_VERBOSE);
    assert_int_equal(zc_detail_in_child("ZX_TS_DETAIL=1", "after"), ZX_DETAIL_BASIC);
}

/* ------------------------------------------------------------------------------------------------------------------
 * The lookups under threads */

#define ZC_THREADS 4
#define ZC_ROUNDS  2000

static zx_xpti_event *zc_shared_event;
static const zx_xpti_payload *zc_shared_payload;

/* Each thread makes, queries and releases events of its own while all query one shared event: every live event is
 * found, with its own payload, whatever the others make and release meanwhile. */
static void *zc_lookup_worker(void *arg) {
    uintptr_t failures = 0;
    char name[32];
    snprintf(name, sizeof name, "zc.thread.%u", (unsigned)(uintptr_t)arg);
    for (int i = 0; i < ZC_ROUNDS; i++) {
        uint64_t instance;
        zx_xpti_event *e = zc_x.xptiMakeEvent(NULL, &(zx_xpti_payload){.name = name}, 0, 0, &instance);
        const zx_xpti_payload *p = zc_x.xptiQueryPayload(e);
        failures += p == NULL || strcmp(p->name, name) != 0;
        failures += zc_x.xptiFindEvent(e->unique_id) != e;
        failures += zc_x.xptiQueryPayload(zc_shared_event) != zc_shared_payload;
        failures += zc_x.xptiQueryPayloadByUID(e->unique_id) != p;
        zc_x.xptiReleaseEvent(e); /* its memory may be another thread's next event at once: not looked at again */
    }
    return (void *)failures;
}

static void query_payload_from_threads(void **state) {
    (void)state;
    uint64_t instance;
    zc_shared_event = zc_x.xptiMakeEvent(NULL, &(zx_xpti_payload){.name = "zc.shared"}, 0, 0, &instance);
    zc_shared_payload = zc_x.xptiQueryPayload(zc_shared_event);
    assert_non_null(zc_shared_payload);
    pthread_t threads[ZC_THREADS];
    for (uintptr_t i = 0; i < ZC_THREADS; i++)
        assert_int_equal(pthread_create(&threads[i], NULL, zc_lookup_worker, (void *)i), 0);
    uintptr_t failures = 0;
    for (int i = 0; i < ZC_THREADS; i++) {
        void *result;
        pthread_join(threads[i], &result);
        failures += (uintptr_t)result;
    }
    assert_int_equal(failures, 0);
    zc_x.xptiReleaseEvent(zc_shared_event);
    assert_null(zc_x.xptiQueryPayload(zc_shared_event));
}

int main(int argc, char **argv) {
    static const struct CMUnitTest tests[] = {
        cmocka_unit_test(default_stream_is_the_framework_stream),
        cmocka_unit_test(default_stream_set_to_an_id_without_a_name),
        cmocka_unit_test(first_object_id_is_zero),
        cmocka_unit_test(create_tracepoint_without_name_or_file_is_unknown),
        cmocka_unit_test(reset_forgets_callbacks),
        cmocka_unit_test(reset_restarts_instances_and_ids),
        cmocka_unit_test(registered_payload_has_hash_and_universal_id),
        cmocka_unit_test(lookup_payload_of_a_registered_payload),
        cmocka_unit_test(duplicate_metadata_key_overwrites),
        cmocka_unit_test(empty_metadata_key_refused),
        cmocka_unit_test(effective_detail_level_exported),
        cmocka_unit_test(effective_detail_level_is_what_subscribers_ask),
        cmocka_unit_test(query_payload_from_threads),
    };
    static const zc_child_mode modes[] = {{"detail", zc_child_detail}};
    static const zc_suite suite = {ZC_EXECUTABLE, tests, ZC_COUNT(tests), zc_setup, NULL, modes, ZC_COUNT(modes)};
    return zc_main(argc, argv, &suite);
}
