/* Running a suite: command line, expected failures, the JUnit XML results and their summary.
 *
 * Expected failures: ZC_EXPECTED_FAILURES names a file of "<executable>/<test>" lines ('#' starts a comment). Each
 * listed test of this executable is replaced by one that re-executes the executable to run the original alone
 * (`--zc-run-one <test>`): a failure or a crash there is the expected outcome and passes; a pass fails with
 * "unexpected pass: remove <key> from <file>", so that the list shrinks as implementations improve.
 *
 * Results: with CMOCKA_MESSAGE_OUTPUT=XML and CMOCKA_XML_FILE=<dir>/%g.xml cmocka writes JUnit XML and prints nothing
 * else, so the harness reads the file back and prints the failures and skips on stdout. cmocka 1.1.5 does not
 * overwrite an existing file (it prints to stdout instead), so the file is removed before the run. */
#include "zc_harness.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#define ZC_KEY_MAX 512

typedef struct zc_xfail {
    char key[ZC_KEY_MAX]; /* "<executable>/<test>" */
    const char *test;     /* the test's name */
    const char *file;     /* the expected-failures file */
    unsigned line;        /* its line there */
    bool used;            /* matches a test of this executable */
} zc_xfail;

typedef struct zc_xfail_list {
    zc_xfail *items;
    size_t count;
} zc_xfail_list;

/* The suite being run, for the group fixture trampolines. */
static const zc_suite *zc_current_suite;

/* ------------------------------------------------------------------------------------------------------------------
 * The expected-failures file */

static char *zc_trim(char *text) {
    char *hash = strchr(text, '#');
    if (hash != NULL)
        *hash = '\0';
    while (*text == ' ' || *text == '\t')
        text++;
    size_t n = strlen(text);
    while (n > 0 && (text[n - 1] == ' ' || text[n - 1] == '\t' || text[n - 1] == '\n' || text[n - 1] == '\r'))
        text[--n] = '\0';
    return text;
}

static bool zc_xfail_add(zc_xfail_list *list, const char *key, const char *file, unsigned line) {
    zc_xfail *items = realloc(list->items, (list->count + 1) * sizeof *items);
    if (items == NULL)
        return false;
    list->items = items;
    zc_xfail *x = &items[list->count++];
    memset(x, 0, sizeof *x);
    snprintf(x->key, sizeof x->key, "%s", key);
    x->file = file;
    x->line = line;
    return true;
}

/* Reads the entries of `suite_name` from the file named by ZC_EXPECTED_FAILURES; false if it cannot be read. */
static bool zc_xfail_load(const char *suite_name, zc_xfail_list *list) {
    memset(list, 0, sizeof *list);
    const char *path = getenv("ZC_EXPECTED_FAILURES");
    if (path == NULL || *path == '\0')
        return true;
    FILE *file = fopen(path, "r");
    if (file == NULL) {
        fprintf(stderr, "zc: cannot read ZC_EXPECTED_FAILURES=%s: %s\n", path, strerror(errno));
        return false;
    }
    size_t prefix = strlen(suite_name);
    char buffer[ZC_KEY_MAX];
    bool ok = true;
    for (unsigned line = 1; ok && fgets(buffer, sizeof buffer, file) != NULL; line++) {
        char *entry = zc_trim(buffer);
        if (strncmp(entry, suite_name, prefix) == 0 && entry[prefix] == '/')
            ok = zc_xfail_add(list, entry, path, line);
    }
    fclose(file);
    return ok;
}

static zc_xfail *zc_xfail_find(zc_xfail_list *list, const char *suite_name, const char *test) {
    char key[ZC_KEY_MAX];
    snprintf(key, sizeof key, "%s/%s", suite_name, test);
    for (size_t i = 0; i < list->count; i++) {
        if (strcmp(list->items[i].key, key) == 0)
            return &list->items[i];
    }
    return NULL;
}

/* ------------------------------------------------------------------------------------------------------------------
 * The test that stands in for an expected failure */

static void zc_print_indented(const char *label, const char *text) {
    if (text == NULL || *text == '\0')
        return;
    print_message("  %s:\n", label);
    for (const char *line = text; *line != '\0';) {
        const char *end = strchr(line, '\n');
        int length = end != NULL ? (int)(end - line) : (int)strlen(line);
        print_message("    %.*s\n", length, line);
        line = end != NULL ? end + 1 : line + length;
    }
}

static void zc_xfail_test(void **state) {
    const zc_xfail *x = *state;
    const char *args[] = {"--zc-run-one", x->test, NULL};
    /* The child reports in plain text, and runs the original test rather than this stand-in. */
    const char *env[] = {"CMOCKA_MESSAGE_OUTPUT=STDOUT", "CMOCKA_XML_FILE", "ZC_EXPECTED_FAILURES", NULL};
    zc_child child;
    if (!zc_run_self(args, env, ZC_CHILD_TIMEOUT_MS, &child))
        zc_fail("cannot start a child process for the expected failure %s", x->key);
    bool passed = zc_child_ok(&child);
    bool skipped = passed && strstr(child.out, "[  SKIPPED ]") != NULL;
    char status[128];
    zc_child_status(&child, status, sizeof status);
    if (!passed) {
        print_message("expected failure of %s (%s:%u): %s\n", x->key, x->file, x->line, status);
        zc_print_indented("its output", child.out);
        zc_print_indented("its errors", child.err);
    }
    zc_child_free(&child);
    if (skipped)
        skip();
    if (passed)
        zc_fail("unexpected pass: remove %s from %s (line %u)", x->key, x->file, x->line);
}

/* A copy of the tests where the expected failures are replaced by stand-ins. */
static struct CMUnitTest *zc_tests_with_xfails(const zc_suite *suite, zc_xfail_list *xfails) {
    struct CMUnitTest *tests = calloc(suite->num_tests, sizeof *tests);
    if (tests == NULL)
        return NULL;
    for (size_t i = 0; i < suite->num_tests; i++) {
        tests[i] = suite->tests[i];
        zc_xfail *x = zc_xfail_find(xfails, suite->name, tests[i].name);
        if (x == NULL)
            continue;
        x->used = true;
        x->test = tests[i].name;
        tests[i] = (struct CMUnitTest){tests[i].name, zc_xfail_test, NULL, NULL, x};
    }
    for (size_t i = 0; i < xfails->count; i++) {
        if (!xfails->items[i].used)
            fprintf(stderr, "zc: warning: %s:%u: '%s' names no test of %s\n", xfails->items[i].file,
                    xfails->items[i].line, xfails->items[i].key, suite->name);
    }
    return tests;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Group fixtures. cmocka passes a non-NULL group state to every test in place of its own initial state, which would
 * hide the stand-ins' records: the suite's state stays here instead. */

static void *zc_group_state;

static int zc_group_setup(void **state) {
    (void)state;
    return zc_current_suite->setup(&zc_group_state);
}

static int zc_group_teardown(void **state) {
    (void)state;
    return zc_current_suite->teardown(&zc_group_state);
}

static int zc_run_group(const zc_suite *suite, const char *group, const struct CMUnitTest *tests, size_t n) {
    zc_current_suite = suite;
    int failed = _cmocka_run_group_tests(group, tests, n, suite->setup != NULL ? zc_group_setup : NULL,
                                         suite->teardown != NULL ? zc_group_teardown : NULL);
    return failed == 0 ? 0 : 1;
}

/* ------------------------------------------------------------------------------------------------------------------
 * XML results */

static bool zc_xml_output(void) {
    const char *output = getenv("CMOCKA_MESSAGE_OUTPUT");
    return output != NULL && strcasecmp(output, "XML") == 0 && getenv("CMOCKA_XML_FILE") != NULL;
}

/* CMOCKA_XML_FILE with every %g replaced by the group name. */
static void zc_xml_path(const char *group, char *path, size_t size) {
    const char *pattern = getenv("CMOCKA_XML_FILE");
    size_t k = 0;
    for (const char *p = pattern; *p != '\0' && k + 1 < size; p++) {
        if (p[0] == '%' && p[1] == 'g') {
            k += (size_t)snprintf(path + k, size - k, "%s", group);
            k = k < size ? k : size - 1;
            p++;
        } else {
            path[k++] = *p;
        }
    }
    path[k] = '\0';
}

static void zc_mkdir_parents(const char *path) {
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    for (char *slash = strchr(dir + 1, '/'); slash != NULL; slash = strchr(slash + 1, '/')) {
        *slash = '\0';
        mkdir(dir, 0755);
        *slash = '/';
    }
}

static char *zc_read_file(const char *path) {
    FILE *file = fopen(path, "r");
    if (file == NULL)
        return NULL;
    fseek(file, 0, SEEK_END);
    long size = ftell(file);
    fseek(file, 0, SEEK_SET);
    char *text = size >= 0 ? malloc((size_t)size + 1) : NULL;
    if (text != NULL) {
        size_t n = fread(text, 1, (size_t)size, file);
        text[n] = '\0';
    }
    fclose(file);
    return text;
}

/* Prints `length` bytes of text, each line indented. */
static void zc_print_block(const char *text, size_t length) {
    const char *end = text + length;
    while (text < end) {
        const char *newline = memchr(text, '\n', (size_t)(end - text));
        const char *stop = newline != NULL ? newline : end;
        printf("    %.*s\n", (int)(stop - text), text);
        text = stop + 1;
    }
}

/* Prints one <testcase> if it failed or was skipped; returns where the next one may start. */
static const char *zc_xml_testcase(const char *start, unsigned *failed, unsigned *skipped) {
    const char *name = start + strlen("<testcase name=\"");
    const char *name_end = strchr(name, '"');
    const char *end = strstr(start, "</testcase>");
    if (name_end == NULL || end == NULL)
        return NULL;
    int name_length = (int)(name_end - name);
    const char *failure = strstr(start, "<failure><![CDATA[");
    if (failure != NULL && failure < end) {
        const char *text = failure + strlen("<failure><![CDATA[");
        const char *text_end = strstr(text, "]]>");
        printf("[  FAILED  ] %.*s\n", name_length, name);
        zc_print_block(text, text_end != NULL ? (size_t)(text_end - text) : 0);
        (*failed)++;
    }
    const char *skip = strstr(start, "<skipped/>");
    if (skip != NULL && skip < end) {
        printf("[  SKIPPED ] %.*s\n", name_length, name);
        (*skipped)++;
    }
    return end;
}

/* In XML mode nothing reaches the terminal: show the failures and skips so that ctest --output-on-failure explains
 * a failure without opening the file. */
static void zc_xml_summary(const char *group, const char *path) {
    char *xml = zc_read_file(path);
    if (xml == NULL) {
        printf("zc: %s: no results in %s (the run was cut short)\n", group, path);
        return;
    }
    unsigned tests = 0, failed = 0, skipped = 0;
    const char *p = xml;
    while (p != NULL && (p = strstr(p, "<testcase name=\"")) != NULL) {
        tests++;
        p = zc_xml_testcase(p, &failed, &skipped);
    }
    const char *setup_error = strstr(xml, "errors=\"");
    if (setup_error != NULL && strncmp(setup_error, "errors=\"0\"", 10) != 0)
        printf("zc: %s: the group fixture failed, so no test ran (the reason is on stderr)\n", group);
    printf("zc: %s: %u tests, %u failed, %u skipped (target %s); JUnit XML: %s\n", group, tests, failed, skipped,
           zc_target(), path);
    free(xml);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Command line */

/* The group name: the executable, plus the variant (e.g. a scenario) when ctest runs it more than once. */
static void zc_group_name(const zc_suite *suite, char *group, size_t size) {
    const char *variant = getenv("ZC_VARIANT");
    if (variant != NULL && *variant != '\0')
        snprintf(group, size, "%s.%s", suite->name, variant);
    else
        snprintf(group, size, "%s", suite->name);
}

static int zc_run_all(const zc_suite *suite) {
    char group[256];
    zc_group_name(suite, group, sizeof group);
    zc_xfail_list xfails;
    if (!zc_xfail_load(suite->name, &xfails))
        return 2;
    struct CMUnitTest *tests = zc_tests_with_xfails(suite, &xfails);
    if (tests == NULL)
        return 2;
    char path[4096] = "";
    if (zc_xml_output()) {
        zc_xml_path(group, path, sizeof path);
        zc_mkdir_parents(path);
        remove(path);
    }
    int status = zc_run_group(suite, group, tests, suite->num_tests);
    if (*path != '\0')
        zc_xml_summary(group, path);
    free(tests);
    free(xfails.items);
    return status;
}

static int zc_run_one(const zc_suite *suite, const char *name) {
    for (size_t i = 0; i < suite->num_tests; i++) {
        if (strcmp(suite->tests[i].name, name) == 0)
            return zc_run_group(suite, suite->name, &suite->tests[i], 1);
    }
    fprintf(stderr, "zc: %s has no test '%s'\n", suite->name, name);
    return 2;
}

static int zc_run_mode(const zc_suite *suite, const char *mode, int argc, char **argv) {
    for (size_t i = 0; i < suite->num_modes; i++) {
        if (strcmp(suite->modes[i].name, mode) == 0)
            return suite->modes[i].run(argc, argv);
    }
    fprintf(stderr, "zc: %s has no child mode '%s'\n", suite->name, mode);
    return 2;
}

static int zc_usage(const zc_suite *suite) {
    fprintf(stderr,
            "usage: %s [--list | --filter <pattern> | --zc-run-one <test> | --zc-child <mode> [args...]]\n"
            "environment: ZC_TARGET, ZC_EXPECTED_FAILURES, ZC_VARIANT, CMOCKA_MESSAGE_OUTPUT, CMOCKA_XML_FILE\n",
            suite->name);
    return 2;
}

int zc_main(int argc, char **argv, const zc_suite *suite) {
    if (argc >= 3 && strcmp(argv[1], "--zc-child") == 0)
        return zc_run_mode(suite, argv[2], argc - 3, argv + 3);
    if (argc == 3 && strcmp(argv[1], "--zc-run-one") == 0)
        return zc_run_one(suite, argv[2]);
    if (argc == 2 && strcmp(argv[1], "--list") == 0) {
        for (size_t i = 0; i < suite->num_tests; i++)
            printf("%s\n", suite->tests[i].name);
        return 0;
    }
    if (argc == 3 && strcmp(argv[1], "--filter") == 0) {
        cmocka_set_test_filter(argv[2]);
        return zc_run_all(suite);
    }
    if (argc != 1)
        return zc_usage(suite);
    return zc_run_all(suite);
}
