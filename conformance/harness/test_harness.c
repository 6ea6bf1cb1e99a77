/* Conformance of the harness itself: the child runner, the count-query checks, expected failures and the XML
 * summary. Every conformance result rests on these, so they are checked like the driver is.
 *
 * With ZC_HARNESS_SYNTHETIC=1 the executable runs a synthetic suite instead: tests that pass, fail, crash or skip on
 * purpose. The real tests run it in children with expected-failure files and output modes of their choosing; the
 * variable is inherited by the children the harness itself starts for expected failures. */
#include "zc_harness.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ------------------------------------------------------------------------------------------------------------------
 * The synthetic suite */

static void xfail_passes(void **state) {
    (void)state;
}

static void xfail_fails(void **state) {
    (void)state;
    zc_fail("synthetic failure %d", 1);
}

static void xml_passes(void **state) {
    (void)state;
}

static void xml_fails(void **state) {
    (void)state;
    zc_fail("synthetic failure %d", 42);
}

static void xfail_crashes(void **state) {
    (void)state;
    /* Not a cmocka-catchable signal: the process dies, as it would in a broken driver. */
    signal(SIGABRT, SIG_DFL);
    abort();
}

static void xml_skips(void **state) {
    (void)state;
    skip();
}

/* A count query over three items, correct or with one defect. */
typedef enum zc_defect { ZC_CORRECT, ZC_WRITES_ON_ZERO, ZC_KEEPS_LARGE_COUNT, ZC_WRITES_PAST_COUNT } zc_defect;

static ze_result_t zc_three_items(void *ctx, uint32_t *count, void *items) {
    zc_defect defect = *(const zc_defect *)ctx;
    uint32_t *out = items;
    uint32_t available = 3;
    if (*count == 0 || items == NULL) {
        if (defect == ZC_WRITES_ON_ZERO && items != NULL)
            out[0] = 100;
        *count = available;
        return ZE_RESULT_SUCCESS;
    }
    uint32_t n = *count < available ? *count : available;
    for (uint32_t i = 0; i < n; i++)
        out[i] = 100 + i;
    if (defect == ZC_WRITES_PAST_COUNT && n < available)
        out[n] = 100 + n;
    if (defect != ZC_KEEPS_LARGE_COUNT)
        *count = n;
    return ZE_RESULT_SUCCESS;
}

static void zc_check_three(zc_defect defect) {
    zc_count_query query = {"three", zc_three_items, &defect, sizeof(uint32_t), NULL};
    zc_check_count_semantics(&query);
}

static void count_correct(void **state) {
    (void)state;
    zc_check_three(ZC_CORRECT);
}

static void count_writes_on_zero(void **state) {
    (void)state;
    zc_check_three(ZC_WRITES_ON_ZERO);
}

static void count_keeps_large_count(void **state) {
    (void)state;
    zc_check_three(ZC_KEEPS_LARGE_COUNT);
}

static void count_writes_past_count(void **state) {
    (void)state;
    zc_check_three(ZC_WRITES_PAST_COUNT);
}

static int zc_synthetic_main(int argc, char **argv) {
    static const struct CMUnitTest tests[] = {
        cmocka_unit_test(xfail_passes),
        cmocka_unit_test(xfail_fails),
        cmocka_unit_test(xfail_crashes),
        cmocka_unit_test(xml_passes),
        cmocka_unit_test(xml_fails),
        cmocka_unit_test(xml_skips),
        cmocka_unit_test(count_correct),
        cmocka_unit_test(count_writes_on_zero),
        cmocka_unit_test(count_keeps_large_count),
        cmocka_unit_test(count_writes_past_count),
    };
    static const zc_suite suite = {"synthetic", tests, ZC_COUNT(tests), NULL, NULL, NULL, 0};
    return zc_main(argc, argv, &suite);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Helpers */

static void zc_assert_contains(const char *text, const char *part) {
    if (strstr(text, part) == NULL)
        zc_fail("'%s' not found in:\n%s", part, text);
}

static void zc_assert_lacks(const char *text, const char *part) {
    if (strstr(text, part) != NULL)
        zc_fail("'%s' unexpectedly found in:\n%s", part, text);
}

/* A temporary file holding `text`; the caller unlinks it. */
static void zc_temp_file(char path[64], const char *text) {
    snprintf(path, 64, "/tmp/zc-harness-XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    size_t length = strlen(text);
    assert_int_equal(write(fd, text, length), (ssize_t)length);
    close(fd);
}

/* Runs the synthetic suite (one test when filter is not NULL) with extra environment. */
static void zc_run_synthetic(const char *filter, const char *const extra[], zc_child *child) {
    const char *env[8] = {"ZC_HARNESS_SYNTHETIC=1", "ZC_EXPECTED_FAILURES", "CMOCKA_XML_FILE",
                          "CMOCKA_MESSAGE_OUTPUT=STDOUT"};
    size_t n = 4;
    for (size_t i = 0; extra != NULL && extra[i] != NULL && n + 1 < ZC_COUNT(env); i++)
        env[n++] = extra[i];
    env[n] = NULL;
    const char *args[] = {"--filter", filter, NULL};
    assert_true(zc_run_self(filter != NULL ? args : NULL, env, ZC_CHILD_TIMEOUT_MS, child));
}

/* ------------------------------------------------------------------------------------------------------------------
 * Child processes */

static void child_command_captures_output_and_status(void **state) {
    (void)state;
    const char *const argv[] = {"sh", "-c", "echo out; echo err >&2; exit 3", NULL};
    zc_child child;
    assert_true(zc_run_command(argv, NULL, ZC_CHILD_TIMEOUT_MS, &child));
    assert_true(child.exited);
    assert_int_equal(child.exit_code, 3);
    assert_string_equal(child.out, "out\n");
    assert_string_equal(child.err, "err\n");
    assert_false(zc_child_ok(&child));
    zc_child_free(&child);
}

static void child_command_killed_by_signal_reported(void **state) {
    (void)state;
    const char *const argv[] = {"sh", "-c", "kill -SEGV $$", NULL};
    zc_child child;
    assert_true(zc_run_command(argv, NULL, ZC_CHILD_TIMEOUT_MS, &child));
    assert_false(child.exited);
    assert_int_equal(child.signal, SIGSEGV);
    assert_false(zc_child_ok(&child));
    zc_child_free(&child);
}

static void child_command_past_timeout_killed(void **state) {
    (void)state;
    const char *const argv[] = {"sh", "-c", "sleep 30", NULL};
    zc_child child;
    assert_true(zc_run_command(argv, NULL, 100, &child));
    assert_true(child.timed_out);
    assert_false(zc_child_ok(&child));
    zc_child_free(&child);
}

static void child_environment_set_and_unset(void **state) {
    (void)state;
    setenv("ZC_HARNESS_DROPPED", "present", 1);
    const char *const argv[] = {"sh", "-c",
                                "echo \"value=$ZC_HARNESS_SET\"; echo \"dropped=${ZC_HARNESS_DROPPED-none}\"", NULL};
    const char *const env[] = {"ZC_HARNESS_SET=a=b", "ZC_HARNESS_DROPPED", NULL};
    zc_child child;
    assert_true(zc_run_command(argv, env, ZC_CHILD_TIMEOUT_MS, &child));
    unsetenv("ZC_HARNESS_DROPPED");
    zc_assert_child_ok(&child, "sh");
    char value[64];
    assert_true(zc_child_value(&child, "value", value, sizeof value));
    assert_string_equal(value, "a=b");
    assert_true(zc_child_value(&child, "dropped", value, sizeof value));
    assert_string_equal(value, "none");
    assert_false(zc_child_value(&child, "missing", value, sizeof value));
    zc_child_free(&child);
}

static int zc_child_function(void *arg) {
    printf("number=%d\n", *(int *)arg);
    return 7;
}

static void child_function_runs_in_fork(void **state) {
    (void)state;
    int number = 1234;
    zc_child child;
    assert_true(zc_run_function(zc_child_function, &number, NULL, ZC_CHILD_TIMEOUT_MS, &child));
    assert_true(child.exited);
    assert_int_equal(child.exit_code, 7);
    assert_int_equal(zc_child_number(&child, "number"), 1234);
    zc_child_free(&child);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Count queries, expected failures, XML */

static void count_checks_catch_each_defect(void **state) {
    (void)state;
    zc_child child;
    zc_run_synthetic("count_*", NULL, &child);
    zc_assert_contains(child.out, "[       OK ] count_correct");
    zc_assert_contains(child.out, "[  FAILED  ] count_writes_on_zero");
    zc_assert_contains(child.out, "[  FAILED  ] count_keeps_large_count");
    zc_assert_contains(child.out, "[  FAILED  ] count_writes_past_count");
    zc_child_free(&child);
}

static void expected_failures_pass_and_unexpected_pass_fails(void **state) {
    (void)state;
    char list[64];
    zc_temp_file(list, "# comment\n"
                       "synthetic/xfail_fails\n"
                       "synthetic/xfail_crashes   # a crash is a failure too\n"
                       "synthetic/xfail_passes\n"
                       "other/xfail_passes\n");
    char variable[96];
    snprintf(variable, sizeof variable, "ZC_EXPECTED_FAILURES=%s", list);
    const char *const extra[] = {variable, NULL};
    zc_child child;
    zc_run_synthetic("xfail_*", extra, &child);
    unlink(list);
    assert_true(child.exited);
    assert_int_equal(child.exit_code, 1);
    zc_assert_contains(child.out, "[       OK ] xfail_fails");
    zc_assert_contains(child.out, "[       OK ] xfail_crashes");
    zc_assert_contains(child.out, "[  FAILED  ] xfail_passes");
    zc_assert_contains(child.err, "unexpected pass: remove synthetic/xfail_passes from ");
    zc_assert_lacks(child.err, "names no test");
    zc_child_free(&child);
}

static void xml_results_summarised_on_stdout(void **state) {
    (void)state;
    char dir[] = "/tmp/zc-harness-xml-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char file[128], path[160];
    snprintf(file, sizeof file, "CMOCKA_XML_FILE=%s/%%g.xml", dir);
    snprintf(path, sizeof path, "%s/synthetic.xml", dir);
    const char *const extra[] = {"CMOCKA_MESSAGE_OUTPUT=XML", file, NULL};
    zc_child child = {0};
    /* Twice: cmocka would not overwrite the first file, the harness must. */
    for (int run = 0; run < 2; run++) {
        zc_child_free(&child);
        zc_run_synthetic("xml_*", extra, &child);
    }
    assert_int_equal(child.exit_code, 1);
    zc_assert_contains(child.out, "[  FAILED  ] xml_fails\n    synthetic failure 42");
    zc_assert_contains(child.out, "[  SKIPPED ] xml_skips");
    zc_assert_contains(child.out, "zc: synthetic: 3 tests, 1 failed, 1 skipped");
    zc_assert_lacks(child.out, "<testsuite");
    FILE *xml = fopen(path, "r");
    assert_non_null(xml);
    fclose(xml);
    unlink(path);
    rmdir(dir);
    zc_child_free(&child);
}

int main(int argc, char **argv) {
    if (getenv("ZC_HARNESS_SYNTHETIC") != NULL)
        return zc_synthetic_main(argc, argv);
    static const struct CMUnitTest tests[] = {
        cmocka_unit_test(child_command_captures_output_and_status),
        cmocka_unit_test(child_command_killed_by_signal_reported),
        cmocka_unit_test(child_command_past_timeout_killed),
        cmocka_unit_test(child_environment_set_and_unset),
        cmocka_unit_test(child_function_runs_in_fork),
        cmocka_unit_test(count_checks_catch_each_defect),
        cmocka_unit_test(expected_failures_pass_and_unexpected_pass_fails),
        cmocka_unit_test(xml_results_summarised_on_stdout),
    };
    static const zc_suite suite = {ZC_EXECUTABLE, tests, ZC_COUNT(tests), NULL, NULL, NULL, 0};
    return zc_main(argc, argv, &suite);
}
