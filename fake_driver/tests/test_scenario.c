/* Unit tests of the scenario parser: shipped files, malformed files, robustness on damaged input, selectors. */
#include "scenario/scenario.h"
#include "zf_generated.h"

#include <dirent.h>
#include <float.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* cmocka.h needs these first. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

/* ---- Helpers ---------------------------------------------------------------------------------------------------- */

static char *read_text(const char *path, size_t *length) {
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *text = NULL;
    size_t used = 0, capacity = 0;
    for (;;) {
        if (used == capacity) {
            capacity = capacity ? capacity * 2 : 4096;
            text = realloc(text, capacity + 1);
            assert_non_null(text);
        }
        size_t n = fread(text + used, 1, capacity - used, f);
        if (n == 0)
            break;
        used += n;
    }
    fclose(f);
    text[used] = '\0';
    *length = used;
    return text;
}

static const zf_scenario_embedded *embedded(const char *name) {
    for (const zf_scenario_embedded *e = zf_scenario_embedded_table; e->name; e++) {
        if (strcmp(e->name, name) == 0)
            return e;
    }
    return NULL;
}

/* A failed parse must leave a NUL-terminated "<source>:<line>: <reason>" message. */
static void assert_clean_error(const char *error, const char *source) {
    assert_true(strnlen(error, ZF_SCENARIO_ERROR_MAX) < ZF_SCENARIO_ERROR_MAX);
    size_t n = strlen(source);
    assert_int_equal(strncmp(error, source, n), 0);
    assert_true(error[n] == ':');
    const char *p = error + n + 1;
    assert_true(*p >= '0' && *p <= '9');
    while (*p >= '0' && *p <= '9')
        p++;
    assert_true(p[0] == ':' && p[1] == ' ' && p[2] != '\0');
}

static bool parse_text(const char *text, zf_scenario *out, char *error) {
    return zf_scenario_parse(text, strlen(text), "test.yaml", out, error);
}

static const char minimal_yaml[] = "schema: 1\n"
                                   "name: minimal\n"
                                   "devices:\n"
                                   "  - name: Minimal GPU\n"
                                   "    type: gpu\n"
                                   "    device_id: 0x1234\n";

/* Parses the minimal scenario with one device key replaced or added, e.g. "    subdevices: 2\n". */
static bool parse_with_device_lines(const char *lines, zf_scenario *out, char *error) {
    char text[2048];
    snprintf(text, sizeof(text), "%s%s", minimal_yaml, lines);
    return parse_text(text, out, error);
}

/* ---- Shipped scenarios ------------------------------------------------------------------------------------------ */

static void scenario_default_has_documented_facts(void **state) {
    (void)state;
    static zf_scenario s;
    char error[ZF_SCENARIO_ERROR_MAX];
    assert_true(zf_scenario_load("default", &s, error));
    assert_string_equal(s.name, "default");
    assert_string_equal(s.source, "<embedded default>");
    assert_int_equal(s.num_devices, 1);
    const zf_scenario_device *d = &s.devices[0];
    assert_string_equal(d->name, "Intel(R) Data Center GPU Max 1550 (zefake)");
    assert_int_equal(d->type, ZE_DEVICE_TYPE_GPU);
    assert_int_equal(d->vendor_id, 0x8086);
    assert_int_equal(d->device_id, 0x0bd5);
    assert_int_equal(d->num_subdevices, 2);
    assert_int_equal(d->topology.slices * d->topology.subslices_per_slice, 128);
    assert_int_equal(d->topology.simd_width, 16);
    assert_int_equal(d->memories[0].total_size_bytes, 128ull << 30);
    assert_int_equal(d->max_mem_alloc_size_bytes, 64ull << 30);
    assert_int_equal(d->num_caches, 2);
    assert_int_equal(d->caches[1].size_bytes, 408ull << 20);
    assert_int_equal(d->num_engine_groups, 3);
    assert_int_equal(d->engine_groups[0].num_queues, 4);
    assert_int_equal(d->engine_groups[2].num_queues, 7);
    assert_int_equal(d->compute.num_sub_group_sizes, 2);
    assert_int_equal(d->compute.sub_group_sizes[1], 32);
    assert_int_equal(d->compute.max_shared_local_memory_bytes, 128u << 10);
    assert_int_equal(d->module.spirv_version, ZE_MAKE_VERSION(1, 4));
    assert_int_equal(d->timer.kernel_valid_bits, 32);
    assert_int_equal(d->flags, ZE_DEVICE_PROPERTY_FLAG_ECC | ZE_DEVICE_PROPERTY_FLAG_ONDEMANDPAGING);
    assert_int_equal(s.clock_mode, ZF_CLOCK_HOST);
}

static void scenario_other_shipped_files_have_documented_facts(void **state) {
    (void)state;
    static zf_scenario s;
    char error[ZF_SCENARIO_ERROR_MAX];
    assert_true(zf_scenario_load("single-tile", &s, error));
    assert_int_equal(s.num_devices, 1);
    assert_int_equal(s.devices[0].num_subdevices, 0);
    assert_int_equal(s.devices[0].device_id, 0x0bda);
    assert_string_equal(s.devices[0].name, "Intel(R) Data Center GPU Max 1100 (zefake)");

    assert_true(zf_scenario_load("two-cards", &s, error));
    assert_int_equal(s.num_devices, 2);
    assert_true(s.p2p_access && s.p2p_atomics);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(s.devices[i].num_subdevices, 2);
        assert_string_equal(s.devices[i].name, "Intel(R) Data Center GPU Max 1550 (zefake)");
        assert_int_equal(s.devices[i].pci.bus, (unsigned)i + 1);
    }

    assert_true(zf_scenario_load("integrated", &s, error));
    assert_int_equal(s.num_devices, 1);
    assert_int_equal(s.devices[0].num_subdevices, 0);
    assert_true(s.devices[0].flags & ZE_DEVICE_PROPERTY_FLAG_INTEGRATED);
    assert_false(s.devices[0].module.flags & ZE_DEVICE_MODULE_FLAG_FP64);
    assert_int_equal(s.devices[0].module.fp64_flags, 0);
}

/* The embedded copies are generated from the files; this checks the generator kept every byte. */
static void scenario_embedded_copies_equal_files(void **state) {
    (void)state;
    static zf_scenario s;
    char error[ZF_SCENARIO_ERROR_MAX];
    size_t count = 0;
    for (const zf_scenario_embedded *e = zf_scenario_embedded_table; e->name; e++, count++) {
        char path[512];
        snprintf(path, sizeof(path), "%s/%s.yaml", ZF_TEST_SCENARIO_DIR, e->name);
        size_t length = 0;
        char *text = read_text(path, &length);
        assert_non_null(text);
        assert_int_equal(length, e->length);
        assert_memory_equal(text, e->yaml, length);
        free(text);
        if (!zf_scenario_load_file(path, &s, error))
            fail_msg("%s", error);
        assert_string_equal(s.name, e->name);
    }
    assert_true(count >= 4);
}

/* ---- Malformed files -------------------------------------------------------------------------------------------- */

/* Each file starts with "# expect: <substring>" and "# line: <n>". */
static void check_bad_file(const char *path) {
    size_t length = 0;
    char *text = read_text(path, &length);
    assert_non_null(text);
    char expect[ZF_SCENARIO_ERROR_MAX] = "";
    unsigned line = 0;
    if (sscanf(text, "# expect: %511[^\n]\n# line: %u", expect, &line) != 2)
        fail_msg("%s: missing '# expect:' and '# line:' header", path);
    free(text);

    static zf_scenario s;
    char error[ZF_SCENARIO_ERROR_MAX];
    if (zf_scenario_load_file(path, &s, error))
        fail_msg("%s: accepted", path);
    char prefix[600];
    snprintf(prefix, sizeof(prefix), "%s:%u: ", path, line);
    if (strncmp(error, prefix, strlen(prefix)) != 0 || !strstr(error, expect))
        fail_msg("%s:\n  got      %s\n  expected %s...%s", path, error, prefix, expect);
}

static void scenario_bad_files_rejected_with_line_and_reason(void **state) {
    (void)state;
    DIR *dir = opendir(ZF_TEST_BAD_DIR);
    assert_non_null(dir);
    size_t count = 0;
    for (struct dirent *entry; (entry = readdir(dir));) {
        size_t n = strlen(entry->d_name);
        if (n < 6 || strcmp(entry->d_name + n - 5, ".yaml") != 0)
            continue;
        char path[512];
        snprintf(path, sizeof(path), "%s/%s", ZF_TEST_BAD_DIR, entry->d_name);
        check_bad_file(path);
        count++;
    }
    closedir(dir);
    assert_true(count >= 10);
}

static void scenario_unknown_key_rejected_with_line(void **state) {
    (void)state;
    static zf_scenario s;
    char error[ZF_SCENARIO_ERROR_MAX];
    assert_false(parse_with_device_lines("    topology:\n      slices: 1\n      slicez: 2\n", &s, error));
    assert_string_equal(error, "test.yaml:9: devices[0].topology.slicez: unknown key");
}

/* ---- Values ----------------------------------------------------------------------------------------------------- */

static void scenario_minimal_file_gets_documented_defaults(void **state) {
    (void)state;
    static zf_scenario s;
    char error[ZF_SCENARIO_ERROR_MAX];
    if (!parse_with_device_lines("    subdevices: 4\n", &s, error))
        fail_msg("%s", error);
    assert_int_equal(s.driver_version, (1u << 24) | (3u << 16));
    assert_int_equal(s.clock_mode, ZF_CLOCK_HOST);
    assert_false(s.p2p_access);
    const zf_scenario_device *d = &s.devices[0];
    assert_int_equal(d->vendor_id, 0x8086);
    assert_int_equal(d->topology.slices, 4);
    assert_int_equal(d->num_memories, 1);
    assert_int_equal(d->memories[0].total_size_bytes, 32ull << 30);
    assert_int_equal(d->max_mem_alloc_size_bytes, 8ull << 30);
    assert_int_equal(d->pci.bus, 1);
    assert_int_equal(d->num_engine_groups, 2);
    assert_int_equal(d->engine_groups[0].max_fill_pattern_size_bytes, 128);
    assert_int_equal(d->engine_groups[1].max_fill_pattern_size_bytes, 4);
    assert_int_equal(d->compute.num_sub_group_sizes, 3);
    assert_int_equal(d->timer.frequency_hz, 38400000);
    assert_int_equal(d->sysman.tile_idle_w, 40);
    assert_int_equal(d->sysman.power_limit_w, 600);
    assert_int_equal(d->sysman.max_temperature_c, 105);
}

static uint64_t parsed_memory_size(const char *value, bool *ok, char *error) {
    static zf_scenario s;
    char lines[256];
    snprintf(lines, sizeof(lines), "    memories: [{name: M, total_size: %s}]\n", value);
    *ok = parse_with_device_lines(lines, &s, error);
    return *ok ? s.devices[0].memories[0].total_size_bytes : 0;
}

static void scenario_integer_syntax_accepts_hex_suffix_separators(void **state) {
    (void)state;
    static const struct {
        const char *text;
        uint64_t value;
    } good[] = {{"1024", 1024},         {"0x400", 1024},       {"1 KiB", 1024},       {"1KiB", 1024},
                {"0x10 MiB", 16 << 20}, {"2 GiB", 2ull << 30}, {"1 TiB", 1ull << 40}, {"1_000_000", 1000000}};
    char error[ZF_SCENARIO_ERROR_MAX];
    bool ok = false;
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        uint64_t value = parsed_memory_size(good[i].text, &ok, error);
        if (!ok)
            fail_msg("%s: %s", good[i].text, error);
        assert_int_equal(value, good[i].value);
    }
    static const char *const bad[] = {"012", "1__0",   "_1",  "1_", "1 kib", "1.5 GiB",
                                      "0x",  "1  KiB", "KiB", "+1", "true"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        parsed_memory_size(bad[i], &ok, error);
        if (ok)
            fail_msg("%s accepted", bad[i]);
        assert_non_null(strstr(error, "expected a size"));
    }
}

static void scenario_huge_numbers_rejected_as_overflow(void **state) {
    (void)state;
    char error[ZF_SCENARIO_ERROR_MAX];
    bool ok = true;
    parsed_memory_size("16777216 TiB", &ok, error);
    assert_false(ok);
    assert_non_null(strstr(error, "does not fit in 64 bits"));
    parsed_memory_size("0xFFFFFFFFFFFFFFFFF", &ok, error);
    assert_false(ok);
    assert_non_null(strstr(error, "does not fit in 64 bits"));
    parsed_memory_size("-1", &ok, error);
    assert_false(ok);
    assert_non_null(strstr(error, "-1 is out of range"));
}

static void scenario_versions_parse_both_forms(void **state) {
    (void)state;
    static zf_scenario s;
    char error[ZF_SCENARIO_ERROR_MAX];
    char text[1024];
    snprintf(text, sizeof(text), "%sdriver_version: 0x01030042\n", minimal_yaml);
    assert_true(parse_text(text, &s, error));
    assert_int_equal(s.driver_version, 0x01030042);
    snprintf(text, sizeof(text), "%sdriver_version: 1.3.66\n", minimal_yaml);
    assert_true(parse_text(text, &s, error));
    assert_int_equal(s.driver_version, 0x01030042);
    snprintf(text, sizeof(text), "%sdriver_version: 1.256.0\n", minimal_yaml);
    assert_false(parse_text(text, &s, error));
    assert_non_null(strstr(error, "driver_version: expected MAJOR.MINOR.BUILD"));
    assert_false(parse_with_device_lines("    module: {spirv_version: 2.0}\n", &s, error));
    assert_non_null(strstr(error, "module.spirv_version: expected a SPIR-V version"));
}

static void scenario_booleans_and_strings_are_strict(void **state) {
    (void)state;
    static zf_scenario s;
    char error[ZF_SCENARIO_ERROR_MAX];
    char text[1024];
    snprintf(text, sizeof(text), "%sp2p: {access: yes}\n", minimal_yaml);
    assert_false(parse_text(text, &s, error));
    assert_string_equal(error, "test.yaml:7: p2p.access: expected true or false, got 'yes'");
    snprintf(text, sizeof(text), "%sdescription:\n", minimal_yaml);
    assert_false(parse_text(text, &s, error));
    assert_non_null(strstr(error, "description: expected a string, got nothing (null)"));
    snprintf(text, sizeof(text), "%sdescription: \"a\\0b\"\n", minimal_yaml);
    assert_false(parse_text(text, &s, error));
    assert_non_null(strstr(error, "must not contain a NUL character"));
    assert_false(parse_with_device_lines("    flags: ecc\n", &s, error));
    assert_non_null(strstr(error, "devices[0].flags: expected a sequence of flag names"));
    assert_false(parse_with_device_lines("    flags: [ecc, ecc]\n", &s, error));
    assert_non_null(strstr(error, "devices[0].flags[1]: flag is listed twice"));
}

/* Rules between keys and value shapes that the files in scenarios-bad do not already cover. */
static void scenario_device_rules_rejected_with_reason(void **state) {
    (void)state;
    static const struct {
        const char *lines;
        const char *expect;
    } cases[] = {
        {"    compute: {max_total_group_size: 16, max_group_size: [16, 16, 16]}\n",
         "test.yaml:7: devices[0].compute.sub_group_sizes: 32 exceeds max_total_group_size (16)"},
        {"    compute: {sub_group_sizes: [32, 16]}\n",
         "devices[0].compute.sub_group_sizes[1]: values must be listed in increasing order without repeats"},
        {"    compute: {max_group_size: [1, 2]}\n", "devices[0].compute.max_group_size: has 2 entries, at least 3"},
        {"    engine_groups: [{flags: [copy, cooperative_kernels]}]\n",
         "devices[0].engine_groups[0].flags: cooperative_kernels requires compute"},
        {"    memories: [{name: \"\", total_size: 1 GiB}]\n", "devices[0].memories[0].name: must not be empty"},
        {"    memories: [{total_size: 1 GiB}]\n", "devices[0].memories[0]: missing required key 'name'"},
        {"    timer: 5\n", "devices[0].timer: expected a mapping, got '5'"},
        {"    vendor_id: {a: 1}\n", "devices[0].vendor_id: expected an integer, got a mapping"},
        {"    caches: [{size: 1 MiB, user_control: 1}]\n",
         "devices[0].caches[0].user_control: expected true or false, got '1'"},
        {"    sysman: {ambient_c: 40, max_temperature_c: 45}\n",
         "devices[0].sysman.max_temperature_c: 45 is not above ambient_c + 5"},
        {"    sysman: {tile_compute_w: 0}\n", "devices[0].sysman.tile_compute_w: 0 is out of range 1..10000"},
    };
    static zf_scenario s;
    char error[ZF_SCENARIO_ERROR_MAX];
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        bool ok = parse_with_device_lines(cases[i].lines, &s, error);
        if (ok || !strstr(error, cases[i].expect))
            fail_msg("case %zu: got '%s', expected '%s'", i, ok ? "success" : error, cases[i].expect);
    }
    /* Long values are quoted in part only, so the reason always fits the message. */
    assert_false(parse_with_device_lines("    core_clock_rate_mhz: 1234567890123456789012345678901234567890123456789\n",
                                         &s, error));
    assert_non_null(strstr(error, "1234567890123456789012345678901234567890... is too large"));
}

static void scenario_non_gpu_device_needs_no_compute_engine(void **state) {
    (void)state;
    static zf_scenario s;
    char error[ZF_SCENARIO_ERROR_MAX];
    static const char text[] = "schema: 1\nname: copy-engine\ndevices:\n"
                               "  - {name: Copier, type: mca, device_id: 1, engine_groups: [{flags: [copy]}]}\n";
    if (!parse_text(text, &s, error))
        fail_msg("%s", error);
    assert_int_equal(s.devices[0].type, ZE_DEVICE_TYPE_MCA);
    assert_int_equal(s.devices[0].engine_groups[0].max_fill_pattern_size_bytes, 4);
}

/* ---- Metric definitions ---------------------------------------------------------------------------------------- */

static const zf_scenario_metric_group *group_named(const zf_scenario *s, const zf_scenario_device *d,
                                                   const char *name) {
    for (uint32_t i = 0; i < d->num_metric_groups; i++) {
        if (strcmp(zf_scenario_text(s, d->metric_groups[i].name), name) == 0)
            return &d->metric_groups[i];
    }
    fail_msg("no metric group %s", name);
    return NULL;
}

static void scenario_default_metric_groups(void **state) {
    (void)state;
    static zf_scenario s;
    char error[ZF_SCENARIO_ERROR_MAX];
    assert_true(zf_scenario_load("default", &s, error));
    const zf_scenario_device *d = &s.devices[0];
    assert_int_equal(d->metric_options.timestamp_valid_bits, 32);
    assert_int_equal(d->metric_options.domain_conflict, ZF_DOMAIN_CONFLICT_ERROR);
    assert_int_equal(d->num_metric_groups, 5);
    const zf_scenario_metric_group *basic = group_named(&s, d, "ComputeBasic");
    assert_int_equal(basic->num_metrics, 28);
    assert_int_equal(basic->domain, 0);
    assert_int_equal(basic->sampling,
                     ZET_METRIC_GROUP_SAMPLING_TYPE_FLAG_TIME_BASED | ZET_METRIC_GROUP_SAMPLING_TYPE_FLAG_EVENT_BASED);
    const zf_scenario_metric *first = &s.metrics[basic->first_metric];
    assert_string_equal(zf_scenario_text(&s, first->name), "GpuTime");
    assert_string_equal(zf_scenario_text(&s, first->units), "ns");
    assert_int_equal(first->type, ZET_METRIC_TYPE_DURATION);
    const zf_scenario_metric_group *test = group_named(&s, d, "TestOa");
    assert_int_equal(test->num_counters, 8);
    assert_int_equal(test->counters[7].multiply, 2);
    assert_int_equal(test->counters[7].divide, 3);
    assert_int_equal(test->counters[0].multiply, 0);
    const zf_scenario_metric_group *eu = group_named(&s, d, "EuStallSampling");
    assert_int_equal(eu->format, ZF_METRIC_FORMAT_EU_STALL);
    assert_int_equal(eu->domain, 100);
    assert_int_equal(eu->sampling, ZET_METRIC_GROUP_SAMPLING_TYPE_FLAG_TIME_BASED);
    assert_int_equal(group_named(&s, d, "EngineActivity")->domain, 1);

    /* The second card of two-cards aliases the first: one copy of the definitions. */
    static zf_scenario two;
    assert_true(zf_scenario_load("two-cards", &two, error));
    assert_int_equal(two.devices[1].num_metric_groups, two.devices[0].num_metric_groups);
    assert_int_equal(two.devices[1].metric_groups[0].first_metric, two.devices[0].metric_groups[0].first_metric);
    assert_int_equal(two.num_metrics, s.num_metrics);
}

/* Compiles a formula for oa records and evaluates it with fields[i] = i * 10 (A0 is then 30). */
static uint64_t eval_int(const char *text) {
    zf_formula_op ops[ZF_FORMULA_MAX_OPS];
    size_t n = 0;
    char why[256];
    if (!zf_formula_compile(text, strlen(text), ZF_METRIC_FORMAT_OA, false, ops, ZF_FORMULA_MAX_OPS, &n, why,
                            sizeof why))
        fail_msg("%s: %s", text, why);
    uint64_t fields[ZF_MF_COUNT];
    for (int i = 0; i < ZF_MF_COUNT; i++)
        fields[i] = (uint64_t)i * 10;
    return zf_formula_eval_int(ops, n, fields);
}

static double eval_float(const char *text, uint64_t field_value) {
    zf_formula_op ops[ZF_FORMULA_MAX_OPS];
    size_t n = 0;
    char why[256];
    if (!zf_formula_compile(text, strlen(text), ZF_METRIC_FORMAT_OA, true, ops, ZF_FORMULA_MAX_OPS, &n, why,
                            sizeof why))
        fail_msg("%s: %s", text, why);
    uint64_t fields[ZF_MF_COUNT];
    for (int i = 0; i < ZF_MF_COUNT; i++)
        fields[i] = field_value;
    return zf_formula_eval_float(ops, n, fields);
}

static void scenario_formulas_compile_and_evaluate(void **state) {
    (void)state;
    assert_int_equal(eval_int("1 + 2 * 3"), 7);
    assert_int_equal(eval_int("(1 + 2) * 3"), 9);
    assert_int_equal(eval_int("7 / 2"), 3);   /* rounds down */
    assert_int_equal(eval_int("10 - 20"), 0); /* stops at 0 */
    assert_int_equal(eval_int("7 / 0"), 0);   /* defined: 0 */
    assert_int_equal(eval_int("min(3, max(1, 2))"), 2);
    assert_int_equal(eval_int("18446744073709551615 * 2"), UINT64_MAX);         /* saturates */
    assert_int_equal(eval_int("18446744073709551615 * 2 / 4"), UINT64_MAX / 2); /* 128-bit intermediates */
    assert_int_equal(eval_int("ticks"), ZF_MF_TICKS * 10);
    assert_int_equal(eval_int("A0"), ZF_MF_A0 * 10);
    assert_int_equal(eval_int("xve_active"), ZF_MF_A0 * 10);        /* the signal A0 carries */
    assert_int_equal(eval_int("gpu_clocks"), (ZF_MF_A0 + 19) * 10); /* A19 */
    assert_int_equal(eval_int("C7 - B0"), (uint64_t)(ZF_MF_C0 + 7 - ZF_MF_B0) * 10);
    assert_int_equal(eval_int("xve_count + core_mhz"), (uint64_t)(ZF_MF_XVE_COUNT + ZF_MF_CORE_MHZ) * 10);
    assert_true(eval_float("1 / 4", 0) == 0.25);
    assert_true(eval_float("0.5 * gpu_ticks", 8) == 4.0);
    assert_true(eval_float("1 - 3", 0) == -2.0);
    assert_true(eval_float("gpu_ticks / 0", 8) == 0.0);
    /* Huge products stay finite (2^1024 would be infinite), so no NaN can follow. */
    double huge = eval_float("ticks * ticks * ticks * ticks * ticks * ticks * ticks * ticks * ticks * ticks * ticks * "
                             "ticks * ticks * ticks * ticks * ticks",
                             UINT64_MAX);
    assert_true(huge <= DBL_MAX && huge > 1e300);
}

static void scenario_formula_errors_explained(void **state) {
    (void)state;
    static const struct {
        const char *text;
        zf_metric_format format;
        bool floating;
        const char *expect;
    } cases[] = {
        {"", ZF_METRIC_FORMAT_OA, false, "expected a number, a name or '(' (at column 1)"},
        {"1 +", ZF_METRIC_FORMAT_OA, false, "expected a number, a name or '(' (at column 4)"},
        {"(1", ZF_METRIC_FORMAT_OA, false, "expected ')' (at column 3)"},
        {"foo * 2", ZF_METRIC_FORMAT_OA, false, "unknown name 'foo' (at column 1)"},
        {"ip", ZF_METRIC_FORMAT_OA, false, "'ip' is not a field of oa records"},
        {"gpu_ticks", ZF_METRIC_FORMAT_EU_STALL, false, "'gpu_ticks' is not a field of eu_stall records"},
        {"min(1)", ZF_METRIC_FORMAT_OA, false, "expected ','"},
        {"sqrt(2)", ZF_METRIC_FORMAT_OA, false, "unknown function 'sqrt' (known: min, max)"},
        {"1.5", ZF_METRIC_FORMAT_OA, false, "decimal number in an integer formula"},
        {"1.", ZF_METRIC_FORMAT_OA, true, "expected digits after the decimal point"},
        {"99999999999999999999", ZF_METRIC_FORMAT_OA, false, "number too large"},
        {"1 2", ZF_METRIC_FORMAT_OA, false, "unexpected '2' after the end of the expression (at column 3)"},
        {"2x", ZF_METRIC_FORMAT_OA, false, "a name cannot start with a digit"},
        {"1 % 2", ZF_METRIC_FORMAT_OA, false, "unexpected '%' after the end"},
        {"1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1", ZF_METRIC_FORMAT_OA, false, "too long: more than 32 operations"},
        {"((((((((((((((((((1))))))))))))))))))", ZF_METRIC_FORMAT_OA, false, "parentheses nested deeper than 16"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        zf_formula_op ops[ZF_FORMULA_MAX_OPS];
        size_t n = 0;
        char why[256] = "";
        bool ok = zf_formula_compile(cases[i].text, strlen(cases[i].text), cases[i].format, cases[i].floating, ops,
                                     ZF_FORMULA_MAX_OPS, &n, why, sizeof why);
        if (ok || !strstr(why, cases[i].expect))
            fail_msg("'%s': got '%s', expected '%s'", cases[i].text, ok ? "success" : why, cases[i].expect);
    }
}

static void scenario_metric_rules_rejected_with_reason(void **state) {
    (void)state;
    static zf_scenario s;
    char error[ZF_SCENARIO_ERROR_MAX];
    static const struct {
        const char *lines;
        const char *expect;
    } cases[] = {
        {"    metric_groups: [{name: A, sampling: [time_based], metrics: [{name: X, formula: ticks}]}]\n",
         "devices[0].metric_groups[0]: missing required key 'domain'"},
        {"    metric_groups: [{name: A, domain: 0, sampling: [], metrics: [{name: X, formula: ticks}]}]\n",
         "devices[0].metric_groups[0].sampling: must list at least one flag"},
        {"    metric_groups: [{name: A, domain: 0, sampling: [time_based], metrics: []}]\n",
         "devices[0].metric_groups[0].metrics: has 0 entries, 1..64 are supported"},
        {"    metric_groups: [{name: A, domain: 0, sampling: [time_based], format: eu_stall, counters: [{signal: "
         "threads}], metrics: [{name: X, formula: ip}]}]\n",
         "devices[0].metric_groups[0].counters: only oa records have programmable counters"},
        {"    metric_groups: [{name: A, domain: 0, sampling: [time_based], metrics: [{name: X, formula: ticks}, "
         "{name: X, formula: ticks}]}]\n",
         "devices[0].metric_groups[0].metrics[1].name: 'X' is already metrics[0]"},
        {"    metric_groups: [{name: A, domain: 0, sampling: [time_based], metrics: [{name: X, type: counter, "
         "formula: ticks}]}]\n",
         "devices[0].metric_groups[0].metrics[0].type: unknown value 'counter'"},
        {"    metric_groups: [{name: A, domain: 0, sampling: [time_based], counters: [{signal: threads, divide: "
         "0}], metrics: [{name: X, formula: B0}]}]\n",
         "devices[0].metric_groups[0].counters[0].divide: 0 is out of range 1..65535"},
        {"    metric_options: {domain_conflict: last}\n",
         "devices[0].metric_options.domain_conflict: unknown value 'last' (known: error, later_wins)"},
        {"    metric_groups: {name: A}\n", "devices[0].metric_groups: expected a sequence, got a mapping"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        bool ok = parse_with_device_lines(cases[i].lines, &s, error);
        if (ok || !strstr(error, cases[i].expect))
            fail_msg("case %zu: got '%s', expected '%s'", i, ok ? "success" : error, cases[i].expect);
    }
}

/* Lists longer than the limits are refused with the limit in the message. */
static void scenario_metric_limits(void **state) {
    (void)state;
    static zf_scenario s;
    char error[ZF_SCENARIO_ERROR_MAX];
    static char text[64 * 1024];
    size_t n = (size_t)snprintf(text, sizeof text,
                                "%s    metric_groups:\n      - name: Big\n        domain: 0\n"
                                "        sampling: [time_based]\n        metrics:\n",
                                minimal_yaml);
    for (int i = 0; i < 65; i++)
        n += (size_t)snprintf(text + n, sizeof text - n, "          - {name: M%d, formula: ticks}\n", i);
    assert_false(parse_text(text, &s, error));
    assert_non_null(strstr(error, "metrics: has 65 entries, 1..64 are supported"));
    n = (size_t)snprintf(text, sizeof text, "%s    metric_groups:\n", minimal_yaml);
    for (int i = 0; i < 17; i++)
        n += (size_t)snprintf(text + n, sizeof text - n,
                              "      - {name: G%d, domain: %d, sampling: [time_based], metrics: [{name: M, formula: "
                              "ticks}]}\n",
                              i, i);
    assert_false(parse_text(text, &s, error));
    assert_non_null(strstr(error, "metric_groups: has 17 entries, at most 16 are supported"));
}

/* ---- Robustness ------------------------------------------------------------------------------------------------- */

/* Parses an exact-size heap copy so AddressSanitizer sees any read past the end. */
static void parse_must_not_crash(const char *text, size_t length, const char *source) {
    static zf_scenario s;
    char error[ZF_SCENARIO_ERROR_MAX];
    char *copy = malloc(length ? length : 1);
    assert_non_null(copy);
    memcpy(copy, text, length);
    if (!zf_scenario_parse(copy, length, source, &s, error))
        assert_clean_error(error, source);
    free(copy);
}

/* Every prefix of the device part, then every 13th into the (long, repetitive) metric definitions and the last: the
 * suite stays fast while every kind of key and value is still cut somewhere. */
static void scenario_truncated_prefixes_parse_or_fail_cleanly(void **state) {
    (void)state;
    const zf_scenario_embedded *e = embedded("default");
    assert_non_null(e);
    const char *metrics = strstr(e->yaml, "    metric_options:");
    assert_non_null(metrics);
    size_t dense = (size_t)(metrics - e->yaml) + 512;
    for (size_t length = 0; length <= e->length; length += length < dense ? 1 : 13)
        parse_must_not_crash(e->yaml, length, "truncated.yaml");
    parse_must_not_crash(e->yaml, e->length - 1, "truncated.yaml");
}

static uint64_t next_random(uint64_t *x) {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

static void scenario_random_mutations_parse_or_fail_cleanly(void **state) {
    (void)state;
    /* Bytes that matter to YAML or to the parser are picked more often than chance would. */
    static const char special[] = ":-[]{},&*!|>'\"%@`#? \n\t0xKiB\\~";
    const zf_scenario_embedded *e = embedded("default");
    assert_non_null(e);
    char *text = malloc(e->length);
    assert_non_null(text);
    uint64_t seed = 0x5ce7a210u;
    for (int iteration = 0; iteration < 3000; iteration++) {
        memcpy(text, e->yaml, e->length);
        int edits = 1 + (int)(next_random(&seed) % 8);
        for (int i = 0; i < edits; i++) {
            size_t at = next_random(&seed) % e->length;
            uint64_t r = next_random(&seed);
            text[at] = (r & 1) ? special[(r >> 1) % (sizeof(special) - 1)] : (char)(r >> 8);
        }
        parse_must_not_crash(text, e->length, "mutated.yaml");
    }
    free(text);
}

static void scenario_deep_nesting_rejected(void **state) {
    (void)state;
    size_t depth = 200000;
    char *text = malloc(depth * 2 + 16);
    assert_non_null(text);
    size_t n = (size_t)sprintf(text, "devices: ");
    memset(text + n, '[', depth);
    memset(text + n + depth, ']', depth);
    static zf_scenario s;
    char error[ZF_SCENARIO_ERROR_MAX];
    assert_false(zf_scenario_parse(text, n + 2 * depth, "deep.yaml", &s, error));
    assert_string_equal(error, "deep.yaml:1: nested deeper than 16 levels");
    free(text);
}

static void scenario_oversized_input_rejected(void **state) {
    (void)state;
    size_t length = (1u << 20) + 1;
    char *text = malloc(length);
    assert_non_null(text);
    memset(text, ' ', length);
    static zf_scenario s;
    char error[ZF_SCENARIO_ERROR_MAX];
    assert_false(zf_scenario_parse(text, length, "big.yaml", &s, error));
    assert_non_null(strstr(error, "big.yaml:0: the scenario is 1048577 bytes"));

    char path[] = "/tmp/zf_test_scenario_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, length), (ssize_t)length);
    close(fd);
    assert_false(zf_scenario_load_file(path, &s, error));
    assert_non_null(strstr(error, ":0: the file is larger than the limit of 1 MiB"));
    unlink(path);
    free(text);
}

static void scenario_degenerate_inputs_fail_cleanly(void **state) {
    (void)state;
    static const char *const inputs[] = {"",
                                         "   \n",
                                         "---\n",
                                         "42\n",
                                         "[]\n",
                                         "{}\n",
                                         "? [a]\n: b\n",
                                         "schema: 1\nname: x\ndevices: []\n",
                                         "\xff\xfe\x00",
                                         "a: b: c\n",
                                         "&a [*a, *a]\n"};
    for (size_t i = 0; i < sizeof(inputs) / sizeof(inputs[0]); i++)
        parse_must_not_crash(inputs[i], strlen(inputs[i]), "degenerate.yaml");
    static zf_scenario s;
    char error[ZF_SCENARIO_ERROR_MAX];
    assert_false(zf_scenario_parse("", 0, "empty.yaml", &s, error));
    assert_string_equal(error, "empty.yaml:1: the scenario is empty");
    assert_false(zf_scenario_parse(NULL, 5, NULL, &s, error));
    assert_non_null(strstr(error, "<input>:0:"));
    assert_false(zf_scenario_parse(minimal_yaml, strlen(minimal_yaml), "x", NULL, error));
    assert_false(zf_scenario_parse(minimal_yaml, strlen(minimal_yaml), "x", &s, NULL));
    assert_false(zf_scenario_load_file(NULL, &s, error));
    assert_false(zf_scenario_load_file("/", &s, error));
    assert_string_equal(error, "/:0: is not a regular file");
}

typedef struct parse_job {
    const char *name;
    int failures;
} parse_job;

static void *parse_repeatedly(void *arg) {
    parse_job *job = arg;
    zf_scenario *s = malloc(sizeof(*s));
    char error[ZF_SCENARIO_ERROR_MAX];
    for (int i = 0; s && i < 40; i++) {
        if (!zf_scenario_load(job->name, s, error) || s->num_devices == 0)
            job->failures++;
    }
    free(s);
    return NULL;
}

static void scenario_concurrent_loads_are_independent(void **state) {
    (void)state;
    static const char *const names[] = {"default", "two-cards", "integrated", "single-tile"};
    pthread_t threads[4];
    parse_job jobs[4];
    for (int i = 0; i < 4; i++) {
        jobs[i] = (parse_job){names[i], 0};
        assert_int_equal(pthread_create(&threads[i], NULL, parse_repeatedly, &jobs[i]), 0);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(threads[i], NULL);
        assert_int_equal(jobs[i].failures, 0);
    }
}

/* ---- Selectors -------------------------------------------------------------------------------------------------- */

static void scenario_selector_resolves_default_name_and_path(void **state) {
    (void)state;
    static zf_scenario s;
    char error[ZF_SCENARIO_ERROR_MAX];
    static const char *const defaults[] = {NULL, "", "default"};
    for (size_t i = 0; i < 3; i++) {
        assert_true(zf_scenario_load(defaults[i], &s, error));
        assert_string_equal(s.source, "<embedded default>");
    }
    assert_true(zf_scenario_load("two-cards", &s, error));
    assert_string_equal(s.source, "<embedded two-cards>");
    assert_int_equal(s.num_devices, 2);

    char path[512];
    snprintf(path, sizeof(path), "%s/integrated.yaml", ZF_TEST_SCENARIO_DIR);
    assert_true(zf_scenario_load(path, &s, error));
    assert_string_equal(s.source, path);
    assert_string_equal(s.name, "integrated");
}

static void scenario_selector_unknown_name_lists_known_names(void **state) {
    (void)state;
    static zf_scenario s;
    char error[ZF_SCENARIO_ERROR_MAX];
    assert_false(zf_scenario_load("no-such-card", &s, error));
    assert_non_null(strstr(error, "no-such-card:0: no shipped scenario has this name (known: default, "));
    assert_non_null(strstr(error, "two-cards"));
    /* Ending in .yaml makes it a path even without a '/'. */
    assert_false(zf_scenario_load("no-such-card.yaml", &s, error));
    assert_string_equal(error, "no-such-card.yaml:0: cannot open: No such file or directory");
}

static void scenario_long_source_label_keeps_tail(void **state) {
    (void)state;
    static zf_scenario s;
    char error[ZF_SCENARIO_ERROR_MAX];
    char source[400];
    memset(source, 'd', sizeof(source) - 1);
    source[sizeof(source) - 1] = '\0';
    memcpy(source + sizeof(source) - 10, "/tail.yml", 9);
    assert_true(zf_scenario_parse(minimal_yaml, strlen(minimal_yaml), source, &s, error));
    assert_int_equal(strlen(s.source), sizeof(s.source) - 1);
    assert_memory_equal(s.source, "...", 3);
    assert_string_equal(s.source + strlen(s.source) - 9, "/tail.yml");
}

/* The `faults` list: names resolved through the generated API registry, documented defaults (after 0, count 1), `all`,
 * and device_lost rules (docs/scenarios.md, "faults"). */
static void scenario_faults_parse_with_defaults(void **state) {
    (void)state;
    static zf_scenario s;
    char error[ZF_SCENARIO_ERROR_MAX];
    const char *faults = "faults:\n"
                         "  - {call: zeMemAllocDevice, result: ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY}\n"
                         "  - {call: zeEventCreate, result: ZE_RESULT_NOT_READY, after: 3, count: all}\n"
                         "  - device_lost: {device: 0, after: 7}\n"
                         "  - device_lost: {device: 0}\n";
    if (!parse_with_device_lines(faults, &s, error))
        fail_msg("%s", error);
    assert_int_equal(s.num_faults, 4);
    assert_false(s.faults[0].device_lost);
    assert_int_equal(s.faults[0].api, ZF_API_zeMemAllocDevice);
    assert_int_equal(s.faults[0].result, ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY);
    assert_int_equal(s.faults[0].after, 0);
    assert_int_equal(s.faults[0].count, 1);
    assert_int_equal(s.faults[0].line, 8);
    assert_int_equal(s.faults[1].api, ZF_API_zeEventCreate);
    assert_int_equal(s.faults[1].result, ZE_RESULT_NOT_READY);
    assert_int_equal(s.faults[1].after, 3);
    assert_true(s.faults[1].count == UINT64_MAX);
    assert_true(s.faults[2].device_lost);
    assert_int_equal(s.faults[2].lost.device, 0);
    assert_int_equal(s.faults[2].lost.after_commands, 7);
    assert_int_equal(s.faults[3].lost.after_commands, 0);
    assert_true(parse_text(minimal_yaml, &s, error));
    assert_int_equal(s.num_faults, 0);
}

/* The fabric (docs/scenarios.md, "fabric"): the shipped values, the defaults of an xe_link section, and the cables
 * checked against the devices once the file is read. */
static void scenario_fabric_parses_and_checks_cables(void **state) {
    (void)state;
    static zf_scenario s;
    char error[ZF_SCENARIO_ERROR_MAX];
    assert_true(zf_scenario_load("two-cards", &s, error));
    assert_int_equal(s.num_xe_links, 16);
    const zf_scenario_fabric *f = &s.devices[1].fabric;
    assert_int_equal(f->mdfi.bandwidth_gbps, 800);
    assert_int_equal(f->mdfi.latency_ns, 150);
    assert_int_equal(f->xe_link.ports_per_tile, 8);
    assert_int_equal(f->xe_link.lanes * f->xe_link.lane_rate_mbps, 4 * 53125);
    assert_int_equal(s.xe_links[15].from.tile, 1);
    assert_int_equal(s.xe_links[15].to.port, 8);
    assert_true(zf_scenario_load("single-tile", &s, error));
    assert_int_equal(s.devices[0].fabric.xe_link.ports_per_tile, 0);
    assert_int_equal(s.devices[0].fabric.mdfi.bandwidth_gbps, 0);
    if (!parse_with_device_lines("    fabric: {xe_link: {ports_per_tile: 2, disabled_ports: [2]}}\n", &s, error))
        fail_msg("%s", error);
    const zf_scenario_xe_link *x = &s.devices[0].fabric.xe_link;
    assert_int_equal(x->lanes, 4);
    assert_int_equal(x->lane_rate_mbps, 53125);
    assert_int_equal(x->latency_ns, 0);
    assert_int_equal(x->num_disabled_ports, 1);
    assert_int_equal(x->disabled_ports[0], 2);
}

static void scenario_fabric_rules_rejected_with_reason(void **state) {
    (void)state;
    static const struct {
        const char *text;
        const char *expect;
    } cases[] = {
        {"xe_links: [{from: {device: 0, port: 1}, to: {device: 5, port: 1}}]\n",
         "xe_links[0].to: device 5 is not a device of the scenario (it has 2)"},
        {"xe_links: [{from: {device: 0, port: 3}, to: {device: 1, port: 1}}]\n",
         "xe_links[0].from: devices[0] has ports 1..2 on each tile, not port 3"},
        {"xe_links: [{from: {device: 0, tile: 1, port: 1}, to: {device: 1, port: 1}}]\n",
         "xe_links[0].from: devices[0] has 1 tile(s), not tile 1"},
        {"xe_links: [{from: {device: 0, port: 1}, to: {device: 0, port: 1}}]\n",
         "xe_links[0]: a cable joins two ports, not port 0.0.1 to itself"},
        {"xe_links: [{from: {device: 0, port: 1}}]\n", "xe_links[0]: missing required key 'to'"},
        {"xe_links: [{from: {device: 0, port: 0}, to: {device: 1, port: 1}}]\n",
         "xe_links[0].from.port: 0 is out of range 1..16"},
    };
    static zf_scenario s;
    char error[ZF_SCENARIO_ERROR_MAX];
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char text[1024];
        snprintf(text, sizeof text,
                 "schema: 1\nname: cables\np2p: {access: true}\n%sdevices:\n"
                 "  - &g {name: G, type: gpu, device_id: 1, fabric: {xe_link: {ports_per_tile: 2}}}\n  - *g\n",
                 cases[i].text);
        bool ok = parse_text(text, &s, error);
        if (ok || !strstr(error, cases[i].expect))
            fail_msg("case %zu: got '%s', expected '%s'", i, ok ? "success" : error, cases[i].expect);
    }
    static const struct {
        const char *lines;
        const char *expect;
    } device_cases[] = {
        {"    fabric: {xe_link: {ports_per_tile: 2, disabled_ports: [3]}}\n",
         "devices[0].fabric.xe_link.disabled_ports: port 3 is not a port of the tile (ports_per_tile is 2)"},
        {"    fabric: {xe_link: {ports_per_tile: 2, lanes: 1, lane_rate_mbps: 1000}}\n",
         "devices[0].fabric.xe_link: lanes x lane_rate_mbps is 1000 Mb/s, less than one byte per ns (8000)"},
        {"    subdevices: 2\n    fabric: {mdfi: {bandwidth_gbps: 800}}\n",
         "devices[0].fabric.mdfi: missing required key 'latency_ns'"},
        {"    fabric: {xe_link: {ports_per_tile: 17}}\n",
         "devices[0].fabric.xe_link.ports_per_tile: 17 is out of range 1..16"},
        {"    fabric: {switches: 1}\n", "devices[0].fabric.switches: unknown key"},
    };
    for (size_t i = 0; i < sizeof(device_cases) / sizeof(device_cases[0]); i++) {
        bool ok = parse_with_device_lines(device_cases[i].lines, &s, error);
        if (ok || !strstr(error, device_cases[i].expect))
            fail_msg("device case %zu: got '%s', expected '%s'", i, ok ? "success" : error, device_cases[i].expect);
    }
    /* A cable needs the devices to reach each other's memory, and ports on both ends. */
    assert_false(
        parse_text("schema: 1\nname: c\nxe_links: [{from: {device: 0, port: 1}, to: {device: 1, port: 1}}]\n"
                   "devices:\n  - &g {name: G, type: gpu, device_id: 1, fabric: {xe_link: {ports_per_tile: 1}}}\n"
                   "  - *g\n",
                   &s, error));
    assert_non_null(strstr(error, "xe_links[0]: Xe Link gives devices access to each other's memory: set p2p.access"));
    assert_false(parse_text("schema: 1\nname: c\np2p: {access: true}\n"
                            "xe_links: [{from: {device: 0, port: 1}, to: {device: 1, port: 1}}]\n"
                            "devices:\n  - {name: G, type: gpu, device_id: 1, fabric: {xe_link: {ports_per_tile: 1}}}\n"
                            "  - {name: H, type: gpu, device_id: 2}\n",
                            &s, error));
    assert_non_null(strstr(error, "xe_links[0].to: devices[1] has no Xe Link ports"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(scenario_default_has_documented_facts),
        cmocka_unit_test(scenario_other_shipped_files_have_documented_facts),
        cmocka_unit_test(scenario_embedded_copies_equal_files),
        cmocka_unit_test(scenario_bad_files_rejected_with_line_and_reason),
        cmocka_unit_test(scenario_faults_parse_with_defaults),
        cmocka_unit_test(scenario_fabric_parses_and_checks_cables),
        cmocka_unit_test(scenario_fabric_rules_rejected_with_reason),
        cmocka_unit_test(scenario_unknown_key_rejected_with_line),
        cmocka_unit_test(scenario_minimal_file_gets_documented_defaults),
        cmocka_unit_test(scenario_integer_syntax_accepts_hex_suffix_separators),
        cmocka_unit_test(scenario_huge_numbers_rejected_as_overflow),
        cmocka_unit_test(scenario_versions_parse_both_forms),
        cmocka_unit_test(scenario_booleans_and_strings_are_strict),
        cmocka_unit_test(scenario_device_rules_rejected_with_reason),
        cmocka_unit_test(scenario_non_gpu_device_needs_no_compute_engine),
        cmocka_unit_test(scenario_default_metric_groups),
        cmocka_unit_test(scenario_formulas_compile_and_evaluate),
        cmocka_unit_test(scenario_formula_errors_explained),
        cmocka_unit_test(scenario_metric_rules_rejected_with_reason),
        cmocka_unit_test(scenario_metric_limits),
        cmocka_unit_test(scenario_truncated_prefixes_parse_or_fail_cleanly),
        cmocka_unit_test(scenario_random_mutations_parse_or_fail_cleanly),
        cmocka_unit_test(scenario_deep_nesting_rejected),
        cmocka_unit_test(scenario_oversized_input_rejected),
        cmocka_unit_test(scenario_degenerate_inputs_fail_cleanly),
        cmocka_unit_test(scenario_concurrent_loads_are_independent),
        cmocka_unit_test(scenario_selector_resolves_default_name_and_path),
        cmocka_unit_test(scenario_selector_unknown_name_lists_known_names),
        cmocka_unit_test(scenario_long_source_label_keeps_tail),
    };
    static const zf_scenario_api_names api_names = {zf_api_number_from_name, zf_result_from_name};
    zf_scenario_use_api_names(&api_names); /* the driver's registry, as zeInit hands it in */
    return cmocka_run_group_tests(tests, NULL, NULL);
}
