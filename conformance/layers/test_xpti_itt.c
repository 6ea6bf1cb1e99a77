/* Conformance: the XPTI emitter's ITT stream (docs/xpti.md), offered where a driver delivers device annotations (the
 * fake's extension): every annotation of a kernel's work-items reaches the subscriber, a specialization constant of
 * 0 gives none, a stream nobody listens to stays quiet, the stream alone needs no tracing layer, and the timeline
 * shows the annotations when asked. The set-up of each traced child is zc_xpti.h's. No test asserts anything about
 * time. */
#include "zc_xpti.h"
#include "zexpti.h"
#include "zx_xpti.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------------------------------------------------
 * ITT stream (offered where a driver delivers annotations: the fake's extension) */

static void zc_skip_unless_itt(zc_child *child) {
    if (zc_child_number(child, "fake") != 0)
        return;
    bool required = strcmp(zc_target(), "fake") == 0;
    zc_child_free(child);
    if (required)
        zc_fail("the target is the fake driver but the workload's driver lacks %s", ZEFAKE_EXTENSION_NAME);
    print_message("the ITT stream needs %s, which target %s lacks: skipped\n", ZEFAKE_EXTENSION_NAME, zc_target());
    skip();
}

static void zc_expect_itt_counts(const zc_child *child, uint64_t per_kind) {
    static const char *const kinds[] = {"itt_wi_start",  "itt_wi_finish",       "itt_wg_barrier",
                                        "itt_wi_resume", "itt_atomic_op_start", "itt_atomic_op_finish"};
    for (size_t i = 0; i < ZC_COUNT(kinds); i++)
        zc_expect(child, kinds[i], per_kind);
}

/* The kernel ran as it does untraced: the constant it saw in every work-item and its atomic count. */
static void zc_expect_itt_kernel_ran(const zc_child *child, uint64_t value) {
    zc_expect(child, "itt_value", value);
    zc_expect(child, "itt_value_last", value);
    zc_expect(child, "itt_counter", ZC_ITT_ITEMS);
}

static void itt_stream_carries_every_annotation(void **state) {
    (void)state;
    zc_env env;
    zc_child child;
    zc_env_traced(&env, ZC_XPTI_TEST_SUBSCRIBER, true);
    zc_run_workload("itt", &env, &child);
    zc_skip_unless_itt(&child);
    zc_expect(&child, "emitter", ZX_EMITTER_TRACING);
    zc_expect_itt_kernel_ran(&child, 1);
    zc_expect_itt_counts(&child, ZC_ITT_ITEMS); /* each kind once per work-item */
    zc_expect(&child, "itt_bad", 0);
    zc_expect(&child, "itt_1d_bad", 0);
    zc_expect(&child, "itt_other", 0);
    const uint64_t ids = (uint64_t)ZC_ITT_ITEMS * (ZC_ITT_ITEMS + 1) / 2; /* every work-item started and finished */
    zc_expect(&child, "itt_started", ids);
    zc_expect(&child, "itt_finished", ids);
    zc_expect_text(&child, "itt_kernel", "annotated");
    zc_expect(&child, "itt_group_size", ZC_ITT_GROUP);
    zc_expect_same(&child, "itt_device", "expect.itt_device");
    zc_expect_same(&child, "itt_atomic", "expect.itt_atomic");
    zc_child_free(&child);
}

static void itt_constant_zero_gives_no_notification(void **state) {
    (void)state;
    zc_env env;
    zc_child child;
    zc_env_traced(&env, ZC_XPTI_TEST_SUBSCRIBER, true);
    zc_run_workload("itt-off", &env, &child);
    zc_skip_unless_itt(&child);
    zc_expect(&child, "emitter", ZX_EMITTER_TRACING);
    zc_expect_itt_kernel_ran(&child, 0);
    zc_expect_itt_counts(&child, 0);
    zc_expect(&child, "itt_bad", 0);
    zc_child_free(&child);
}

/* Nobody listens to the ITT stream: the kernel runs with its annotations on and nothing reaches the subscriber. */
static void itt_stream_not_listened_to_is_quiet(void **state) {
    (void)state;
    const char *streams[] = {"ZX_TS_STREAMS=graph", "ZX_TS_STREAMS=none"};
    const zx_emitter_state states[] = {ZX_EMITTER_TRACING, ZX_EMITTER_OFF};
    for (size_t i = 0; i < ZC_COUNT(streams); i++) {
        zc_env env;
        zc_child child;
        zc_env_traced(&env, ZC_XPTI_TEST_SUBSCRIBER, true);
        zc_env_add(&env, streams[i]);
        zc_run_workload("itt", &env, &child);
        zc_skip_unless_itt(&child);
        zc_expect(&child, "emitter", states[i]);
        zc_expect_same(&child, "inits", "expect.streams");
        zc_expect_itt_kernel_ran(&child, 1);
        zc_expect_itt_counts(&child, 0);
        zc_expect(&child, "itt_bad", 0);
        zc_child_free(&child);
    }
}

/* The ITT stream does not come through the tracer: listened to alone, it needs no tracing layer. */
static void itt_stream_alone_needs_no_tracing_layer(void **state) {
    (void)state;
    zc_env env;
    zc_child child;
    zc_env_traced(&env, ZC_XPTI_TEST_SUBSCRIBER, true);
    zc_env_add(&env, "ZE_ENABLE_TRACING_LAYER");
    zc_env_add(&env, "ZX_TS_STREAMS=itt");
    zc_run_workload("itt", &env, &child);
    zc_skip_unless_itt(&child);
    zc_expect(&child, "emitter", ZX_EMITTER_TRACING);
    zc_expect(&child, "call_begins", 0);
    zc_expect_itt_counts(&child, ZC_ITT_ITEMS);
    zc_expect(&child, "itt_bad", 0);
    assert_null(strstr(child.err, "ZE_ENABLE_TRACING_LAYER"));
    zc_child_free(&child);
}

/* The timeline shows annotations as instant events when asked (ZX_TIMELINE_ITT=1), and only then. */
static void timeline_shows_itt_annotations_when_asked(void **state) {
    (void)state;
    char file[4096], file_var[4200];
    zc_result_file(file, sizeof file, "itt-timeline.json");
    snprintf(file_var, sizeof file_var, "ZX_TIMELINE_FILE=%s", file);
    for (int asked = 1; asked >= 0; asked--) {
        remove(file);
        zc_env env;
        zc_child child;
        zc_env_traced(&env, ZC_XPTI_TIMELINE, true);
        zc_env_add(&env, file_var);
        zc_env_add(&env, asked ? "ZX_TIMELINE_ITT=1" : "ZX_TIMELINE_ITT");
        zc_run_workload("itt", &env, &child);
        zc_skip_unless_itt(&child);
        zc_child_free(&child);
        const char *argv[] = {"python3", "-m", "json.tool", file, NULL};
        assert_true(zc_run_command(argv, NULL, ZC_CHILD_TIMEOUT_MS, &child));
        zc_assert_child_ok(&child, "python3 -m json.tool on the timeline");
        const char *parts[] = {"\"cat\": \"itt\"", "\"name\": \"wi_start\"", "\"name\": \"atomic_op_finish\"",
                               "\"kernel\": \"annotated\""};
        for (size_t i = 0; i < ZC_COUNT(parts); i++) {
            if ((strstr(child.out, parts[i]) != NULL) != (asked != 0))
                zc_fail("the timeline %s %s %s", file, asked ? "lacks" : "has, unasked,", parts[i]);
        }
        zc_child_free(&child);
    }
}

int main(int argc, char **argv) {
    static const struct CMUnitTest tests[] = {
        cmocka_unit_test(itt_stream_carries_every_annotation),
        cmocka_unit_test(itt_constant_zero_gives_no_notification),
        cmocka_unit_test(itt_stream_not_listened_to_is_quiet),
        cmocka_unit_test(itt_stream_alone_needs_no_tracing_layer),
        cmocka_unit_test(timeline_shows_itt_annotations_when_asked),
    };
    static const zc_child_mode modes[] = {{"workload", zc_child_workload}};
    static const zc_suite suite = {ZC_EXECUTABLE, tests, ZC_COUNT(tests), NULL, NULL, modes, ZC_COUNT(modes)};
    return zc_main(argc, argv, &suite);
}
