/* Conformance of the fake driver's scenarios (fake-only): what ZEFAKE_SCENARIO selects is what the driver shows.
 *
 * Every check runs in a fresh child process, since a scenario is read once, at the first zeInit. The tests are made
 * from the files at run time:
 * - each shipped scenario (ZC_SCENARIO_DIR/<name>.yaml), selected by name and by path, shows the devices its file
 *   describes (read here with libyaml), and the four documented ones have their documented shape;
 * - each malformed file (ZC_BAD_SCENARIO_DIR, first line "# expect: <text>", optional "# line: <n>") makes zeInit
 *   fail with that text, the file and the line on stderr, and a later call does not crash. */
#include "zc_harness.h"

#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#define ZC_MAX_DEVICES 16
#define ZC_TEXT_MAX    512

/* ------------------------------------------------------------------------------------------------------------------
 * The child: describes what the driver shows */

static void zc_describe_root(uint32_t i, ze_device_handle_t device) {
    ze_device_properties_t p = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
    uint32_t subdevices = 0;
    ze_result_t properties = zeDeviceGetProperties(device, &p);
    ze_result_t sub = zeDeviceGetSubDevices(device, &subdevices, NULL);
    printf("root%u.result=%s\n", i, zc_result_name(properties != ZE_RESULT_SUCCESS ? properties : sub));
    printf("root%u.name=%s\nroot%u.type=%d\nroot%u.flags=%u\nroot%u.subdevices=%u\n", i, p.name, i, (int)p.type, i,
           (unsigned)p.flags, i, subdevices);
}

static void zc_describe_fake(ze_driver_handle_t driver) {
    zefake_pfnGetInfo_t get_info = NULL;
    if (zeDriverGetExtensionFunctionAddress(driver, ZEFAKE_FN_GET_INFO, (void **)&get_info) != ZE_RESULT_SUCCESS)
        return;
    zefake_info_t info = {.size = sizeof info};
    if (get_info(&info) == ZE_RESULT_SUCCESS)
        printf("scenario_name=%s\nscenario_source=%s\n", info.scenario_name, info.scenario_source);
}

static void zc_describe_system(void) {
    uint32_t n = 1;
    ze_driver_handle_t driver = NULL;
    ze_result_t result = zeDriverGet(&n, &driver);
    printf("driver_get=%s\ndrivers=%u\n", zc_result_name(result), n);
    if (result != ZE_RESULT_SUCCESS || n == 0)
        return;
    ze_device_handle_t roots[ZC_MAX_DEVICES + 1];
    uint32_t count = ZC_MAX_DEVICES + 1;
    result = zeDeviceGet(driver, &count, roots);
    printf("device_get=%s\nroots=%u\n", zc_result_name(result), count);
    for (uint32_t i = 0; result == ZE_RESULT_SUCCESS && i < count; i++)
        zc_describe_root(i, roots[i]);
    zc_describe_fake(driver);
}

/* `describe`: zeInit, then either the devices or, after a failure, one more call that must not crash. */
static int zc_mode_describe(int argc, char **argv) {
    (void)argc;
    (void)argv;
    ze_result_t result = zeInit(0);
    printf("init=%s\n", zc_result_name(result));
    if (result == ZE_RESULT_SUCCESS) {
        zc_describe_system();
    } else {
        uint32_t n = 0;
        printf("after_failure=%s\n", zc_result_name(zeDriverGet(&n, NULL)));
    }
    printf("done=1\n");
    return 0;
}

static void zc_run_describe(const char *selector, zc_child *child) {
    char variable[ZC_TEXT_MAX];
    snprintf(variable, sizeof variable, "ZEFAKE_SCENARIO=%s", selector);
    const char *const env[] = {variable, NULL};
    if (!zc_run_child_mode("describe", NULL, env, ZC_CHILD_TIMEOUT_MS, child))
        zc_fail("cannot start a child process");
    zc_assert_child_ok(child, selector);
    if (zc_child_number(child, "done") != 1)
        zc_fail("the child for %s did not finish", selector);
}

static void zc_assert_child_text(const zc_child *child, const char *key, const char *expected) {
    char value[ZC_TEXT_MAX];
    if (!zc_child_value(child, key, value, sizeof value))
        zc_fail("the child reported no '%s'; stdout:\n%s\nstderr:\n%s", key, child->out, child->err);
    if (strcmp(value, expected) != 0)
        zc_fail("%s is '%s', expected '%s'\nstderr of the child:\n%s", key, value, expected, child->err);
}

/* ------------------------------------------------------------------------------------------------------------------
 * What a scenario file describes, read with libyaml (aliases resolved, as the driver sees them) */

typedef struct zc_yaml_device {
    char name[ZE_MAX_DEVICE_NAME];
    ze_device_type_t type;
    ze_device_property_flags_t flags;
    uint32_t subdevices;
} zc_yaml_device;

typedef struct zc_yaml_scenario {
    char name[ZC_TEXT_MAX];
    uint32_t num_devices;
    zc_yaml_device devices[ZC_MAX_DEVICES];
} zc_yaml_scenario;

static const char *zc_scalar(yaml_node_t *node) {
    return node != NULL && node->type == YAML_SCALAR_NODE ? (const char *)node->data.scalar.value : NULL;
}

/* The value of `key` in a mapping node, or NULL. */
static yaml_node_t *zc_yaml_get(yaml_document_t *doc, yaml_node_t *mapping, const char *key) {
    if (mapping == NULL || mapping->type != YAML_MAPPING_NODE)
        return NULL;
    for (yaml_node_pair_t *pair = mapping->data.mapping.pairs.start; pair < mapping->data.mapping.pairs.top; pair++) {
        const char *name = zc_scalar(yaml_document_get_node(doc, pair->key));
        if (name != NULL && strcmp(name, key) == 0)
            return yaml_document_get_node(doc, pair->value);
    }
    return NULL;
}

static ze_device_type_t zc_yaml_type(const char *text) {
    static const struct {
        const char *name;
        ze_device_type_t type;
    } types[] = {{"gpu", ZE_DEVICE_TYPE_GPU},
                 {"cpu", ZE_DEVICE_TYPE_CPU},
                 {"fpga", ZE_DEVICE_TYPE_FPGA},
                 {"mca", ZE_DEVICE_TYPE_MCA},
                 {"vpu", ZE_DEVICE_TYPE_VPU}};
    for (size_t i = 0; text != NULL && i < ZC_COUNT(types); i++) {
        if (strcmp(text, types[i].name) == 0)
            return types[i].type;
    }
    zc_fail("unknown device type '%s' in a shipped scenario", text != NULL ? text : "(none)");
    return ZE_DEVICE_TYPE_FORCE_UINT32;
}

static ze_device_property_flags_t zc_yaml_flags(yaml_document_t *doc, yaml_node_t *list) {
    static const struct {
        const char *name;
        ze_device_property_flags_t flag;
    } flags[] = {{"integrated", ZE_DEVICE_PROPERTY_FLAG_INTEGRATED},
                 {"ecc", ZE_DEVICE_PROPERTY_FLAG_ECC},
                 {"ondemandpaging", ZE_DEVICE_PROPERTY_FLAG_ONDEMANDPAGING}};
    ze_device_property_flags_t result = 0;
    if (list == NULL || list->type != YAML_SEQUENCE_NODE)
        return 0;
    for (yaml_node_item_t *item = list->data.sequence.items.start; item < list->data.sequence.items.top; item++) {
        const char *text = zc_scalar(yaml_document_get_node(doc, *item));
        for (size_t i = 0; text != NULL && i < ZC_COUNT(flags); i++)
            result |= strcmp(text, flags[i].name) == 0 ? flags[i].flag : 0;
    }
    return result;
}

static void zc_yaml_device_read(yaml_document_t *doc, yaml_node_t *node, zc_yaml_device *device) {
    const char *name = zc_scalar(zc_yaml_get(doc, node, "name"));
    const char *subdevices = zc_scalar(zc_yaml_get(doc, node, "subdevices"));
    snprintf(device->name, sizeof device->name, "%s", name != NULL ? name : "");
    device->type = zc_yaml_type(zc_scalar(zc_yaml_get(doc, node, "type")));
    device->flags = zc_yaml_flags(doc, zc_yaml_get(doc, node, "flags"));
    device->subdevices = subdevices != NULL ? (uint32_t)strtoul(subdevices, NULL, 0) : 0;
}

static void zc_yaml_read(const char *path, zc_yaml_scenario *out) {
    memset(out, 0, sizeof *out);
    FILE *file = fopen(path, "rb");
    if (file == NULL)
        zc_fail("cannot open %s", path);
    yaml_parser_t parser;
    yaml_document_t doc;
    yaml_parser_initialize(&parser);
    yaml_parser_set_input_file(&parser, file);
    int loaded = yaml_parser_load(&parser, &doc);
    yaml_parser_delete(&parser);
    fclose(file);
    if (!loaded)
        zc_fail("libyaml cannot read the shipped scenario %s", path);
    yaml_node_t *root = yaml_document_get_root_node(&doc);
    const char *name = zc_scalar(zc_yaml_get(&doc, root, "name"));
    snprintf(out->name, sizeof out->name, "%s", name != NULL ? name : "");
    yaml_node_t *devices = zc_yaml_get(&doc, root, "devices");
    if (devices != NULL && devices->type == YAML_SEQUENCE_NODE) {
        for (yaml_node_item_t *item = devices->data.sequence.items.start;
             item < devices->data.sequence.items.top && out->num_devices < ZC_MAX_DEVICES; item++)
            zc_yaml_device_read(&doc, yaml_document_get_node(&doc, *item), &out->devices[out->num_devices++]);
    }
    yaml_document_delete(&doc);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Shipped scenarios */

/* The shapes docs and the mission promise for the shipped scenarios, independent of the files. */
typedef struct zc_shape {
    const char *name;
    uint32_t roots;
    uint32_t subdevices_per_root;
    bool integrated;
} zc_shape;

static const zc_shape zc_shapes[] = {
    {"default", 1, 2, false},
    {"single-tile", 1, 0, false},
    {"two-cards", 2, 2, false},
    {"integrated", 1, 0, true},
};

typedef struct zc_shipped {
    char name[ZC_TEXT_MAX]; /* file name without .yaml */
    char path[ZC_TEXT_MAX];
    bool by_path;
} zc_shipped;

static void zc_check_shape(const zc_child *child, const char *name) {
    for (size_t s = 0; s < ZC_COUNT(zc_shapes); s++) {
        if (strcmp(zc_shapes[s].name, name) != 0)
            continue;
        assert_int_equal(zc_child_number(child, "roots"), zc_shapes[s].roots);
        for (uint32_t i = 0; i < zc_shapes[s].roots; i++) {
            char key[64];
            snprintf(key, sizeof key, "root%u.subdevices", i);
            assert_int_equal(zc_child_number(child, key), zc_shapes[s].subdevices_per_root);
            snprintf(key, sizeof key, "root%u.flags", i);
            bool integrated = (zc_child_number(child, key) & ZE_DEVICE_PROPERTY_FLAG_INTEGRATED) != 0;
            assert_int_equal(integrated, zc_shapes[s].integrated);
        }
    }
}

static void zc_check_device(const zc_child *child, uint32_t i, const zc_yaml_device *expected) {
    char key[64];
    snprintf(key, sizeof key, "root%u.result", i);
    zc_assert_child_text(child, key, "ZE_RESULT_SUCCESS");
    snprintf(key, sizeof key, "root%u.name", i);
    zc_assert_child_text(child, key, expected->name);
    snprintf(key, sizeof key, "root%u.type", i);
    assert_int_equal(zc_child_number(child, key), expected->type);
    snprintf(key, sizeof key, "root%u.flags", i);
    assert_int_equal(zc_child_number(child, key), expected->flags);
    snprintf(key, sizeof key, "root%u.subdevices", i);
    assert_int_equal(zc_child_number(child, key), expected->subdevices);
}

static void zc_shipped_test(void **state) {
    zc_skip_unless_fake();
    const zc_shipped *shipped = *state;
    zc_yaml_scenario expected;
    zc_yaml_read(shipped->path, &expected);
    zc_child child;
    zc_run_describe(shipped->by_path ? shipped->path : shipped->name, &child);
    zc_assert_child_text(&child, "init", "ZE_RESULT_SUCCESS");
    assert_int_equal(zc_child_number(&child, "drivers"), 1);
    zc_assert_child_text(&child, "scenario_name", expected.name);
    if (shipped->by_path)
        zc_assert_child_text(&child, "scenario_source", shipped->path);
    assert_int_equal(zc_child_number(&child, "roots"), expected.num_devices);
    for (uint32_t i = 0; i < expected.num_devices; i++)
        zc_check_device(&child, i, &expected.devices[i]);
    zc_check_shape(&child, shipped->name);
    zc_child_free(&child);
}

static void shipped_scenarios_include_documented_ones(void **state) {
    (void)state;
    zc_skip_unless_fake();
    for (size_t s = 0; s < ZC_COUNT(zc_shapes); s++) {
        char path[ZC_TEXT_MAX];
        snprintf(path, sizeof path, "%s/%s.yaml", ZC_SCENARIO_DIR, zc_shapes[s].name);
        FILE *file = fopen(path, "r");
        if (file == NULL)
            zc_fail("the shipped scenario %s is missing", path);
        fclose(file);
    }
}

static void default_selectors_give_embedded_default(void **state) {
    (void)state;
    zc_skip_unless_fake();
    /* An empty ZEFAKE_SCENARIO and the name "default" both select the copy compiled into the driver. */
    const char *const selectors[] = {"", "default"};
    for (size_t i = 0; i < ZC_COUNT(selectors); i++) {
        zc_child child;
        zc_run_describe(selectors[i], &child);
        zc_assert_child_text(&child, "init", "ZE_RESULT_SUCCESS");
        zc_assert_child_text(&child, "scenario_name", "default");
        zc_assert_child_text(&child, "scenario_source", "<embedded default>");
        zc_child_free(&child);
    }
}

static void unknown_scenario_name_lists_known_names(void **state) {
    (void)state;
    zc_skip_unless_fake();
    zc_child child;
    zc_run_describe("no-such-scenario", &child);
    zc_assert_child_text(&child, "init", "ZE_RESULT_ERROR_UNINITIALIZED");
    if (strstr(child.err, "no-such-scenario") == NULL)
        zc_fail("stderr does not name the unknown scenario:\n%s", child.err);
    for (size_t s = 0; s < ZC_COUNT(zc_shapes); s++) {
        if (strstr(child.err, zc_shapes[s].name) == NULL)
            zc_fail("stderr does not list the known scenario '%s':\n%s", zc_shapes[s].name, child.err);
    }
    zc_child_free(&child);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Malformed scenarios */

typedef struct zc_bad {
    char path[ZC_TEXT_MAX];
} zc_bad;

/* The text after `prefix` on line `line` (1-based) of the file, or false. */
static bool zc_header_value(const char *path, int line, const char *prefix, char *value, size_t size) {
    FILE *file = fopen(path, "r");
    if (file == NULL)
        return false;
    char buffer[ZC_TEXT_MAX];
    bool found = false;
    for (int i = 1; fgets(buffer, sizeof buffer, file) != NULL && i <= line; i++) {
        if (i < line || strncmp(buffer, prefix, strlen(prefix)) != 0)
            continue;
        snprintf(value, size, "%s", buffer + strlen(prefix));
        value[strcspn(value, "\r\n")] = '\0';
        found = true;
    }
    fclose(file);
    return found;
}

/* True when `text` contains "<path>:<digits>: ". */
static bool zc_has_path_and_line(const char *text, const char *path) {
    size_t length = strlen(path);
    for (const char *p = strstr(text, path); p != NULL; p = strstr(p + 1, path)) {
        const char *q = p + length;
        if (*q++ != ':')
            continue;
        const char *digits = q;
        while (*q >= '0' && *q <= '9')
            q++;
        if (q > digits && q[0] == ':' && q[1] == ' ')
            return true;
    }
    return false;
}

static void zc_bad_test(void **state) {
    zc_skip_unless_fake();
    const zc_bad *bad = *state;
    char expect[ZC_TEXT_MAX], line[32];
    if (!zc_header_value(bad->path, 1, "# expect: ", expect, sizeof expect))
        zc_fail("%s does not start with '# expect: <message>'", bad->path);
    zc_child child;
    zc_run_describe(bad->path, &child);
    zc_assert_child_text(&child, "init", "ZE_RESULT_ERROR_UNINITIALIZED");
    if (!zc_child_value(&child, "after_failure", line, sizeof line))
        zc_fail("the child did not report the call after the failed zeInit");
    char header[ZC_TEXT_MAX + 64];
    snprintf(header, sizeof header, "zefake: error: cannot load scenario (ZEFAKE_SCENARIO=%s): ", bad->path);
    if (strstr(child.err, header) == NULL)
        zc_fail("stderr lacks '%s':\n%s", header, child.err);
    if (strstr(child.err, expect) == NULL)
        zc_fail("stderr lacks '%s':\n%s", expect, child.err);
    if (!zc_has_path_and_line(child.err, bad->path))
        zc_fail("stderr lacks '%s:<line>: ':\n%s", bad->path, child.err);
    if (zc_header_value(bad->path, 2, "# line: ", line, sizeof line)) {
        char located[ZC_TEXT_MAX + sizeof line + 8];
        snprintf(located, sizeof located, "%s:%s: ", bad->path, line);
        if (strstr(child.err, located) == NULL)
            zc_fail("stderr lacks '%s':\n%s", located, child.err);
    }
    zc_child_free(&child);
}

static size_t zc_glob(const char *pattern, glob_t *found) {
    memset(found, 0, sizeof *found);
    return glob(pattern, 0, NULL, found) == 0 ? found->gl_pathc : 0;
}

static void bad_scenario_files_present(void **state) {
    (void)state;
    zc_skip_unless_fake();
    glob_t found;
    size_t n = zc_glob(ZC_BAD_SCENARIO_DIR "/*.yaml", &found);
    globfree(&found);
    if (n == 0)
        zc_fail("no malformed scenario in %s: the rejection tests would silently vanish", ZC_BAD_SCENARIO_DIR);
}

/* ------------------------------------------------------------------------------------------------------------------
 * The test list, made from the files */

/* "<prefix><stem><suffix>", living until the process ends (cmocka keeps the pointer); NULL when out of memory. */
static char *zc_test_name(const char *prefix, const char *stem, const char *suffix) {
    char *name = NULL;
    return asprintf(&name, "%s%s%s", prefix, stem, suffix) < 0 ? NULL : name;
}

static void zc_file_stem(const char *path, char *stem, size_t size) {
    const char *base = strrchr(path, '/');
    snprintf(stem, size, "%s", base != NULL ? base + 1 : path);
    char *dot = strrchr(stem, '.');
    if (dot != NULL)
        *dot = '\0';
}

/* Everything built here lives until the process ends: cmocka keeps the names and states. */
static bool zc_add_shipped(struct CMUnitTest *tests, size_t *n, const char *path) {
    static const char *const ways[] = {"_by_name_shows_its_devices", "_by_path_shows_its_devices"};
    for (int way = 0; way < 2; way++) {
        zc_shipped *shipped = calloc(1, sizeof *shipped);
        if (shipped == NULL)
            return false;
        snprintf(shipped->path, sizeof shipped->path, "%s", path);
        zc_file_stem(path, shipped->name, sizeof shipped->name);
        shipped->by_path = way == 1;
        char *name = zc_test_name("scenario_", shipped->name, ways[way]);
        if (name == NULL)
            return false;
        tests[(*n)++] = (struct CMUnitTest){name, zc_shipped_test, NULL, NULL, shipped};
    }
    return true;
}

static bool zc_add_bad(struct CMUnitTest *tests, size_t *n, const char *path) {
    zc_bad *bad = calloc(1, sizeof *bad);
    if (bad == NULL)
        return false;
    snprintf(bad->path, sizeof bad->path, "%s", path);
    char stem[ZC_TEXT_MAX];
    zc_file_stem(path, stem, sizeof stem);
    char *name = zc_test_name("bad_scenario_", stem, "_rejected");
    if (name == NULL)
        return false;
    tests[(*n)++] = (struct CMUnitTest){name, zc_bad_test, NULL, NULL, bad};
    return true;
}

int main(int argc, char **argv) {
    static const struct CMUnitTest fixed[] = {
        cmocka_unit_test(shipped_scenarios_include_documented_ones),
        cmocka_unit_test(default_selectors_give_embedded_default),
        cmocka_unit_test(unknown_scenario_name_lists_known_names),
        cmocka_unit_test(bad_scenario_files_present),
    };
    glob_t shipped, bad;
    size_t num_shipped = zc_glob(ZC_SCENARIO_DIR "/*.yaml", &shipped);
    size_t num_bad = zc_glob(ZC_BAD_SCENARIO_DIR "/*.yaml", &bad);
    /* Static: leak checkers look for what the tests point to after main has returned. */
    static struct CMUnitTest *tests;
    tests = calloc(ZC_COUNT(fixed) + 2 * num_shipped + num_bad, sizeof *tests);
    if (tests == NULL)
        return 2;
    size_t n = 0;
    bool ok = true;
    for (size_t i = 0; i < ZC_COUNT(fixed); i++)
        tests[n++] = fixed[i];
    for (size_t i = 0; ok && i < num_shipped; i++)
        ok = zc_add_shipped(tests, &n, shipped.gl_pathv[i]);
    for (size_t i = 0; ok && i < num_bad; i++)
        ok = zc_add_bad(tests, &n, bad.gl_pathv[i]);
    globfree(&shipped);
    globfree(&bad);
    if (!ok)
        return 2;
    static const zc_child_mode modes[] = {{"describe", zc_mode_describe}};
    zc_suite suite = {ZC_EXECUTABLE, tests, n, zc_setup_system, zc_teardown_system, modes, ZC_COUNT(modes)};
    return zc_main(argc, argv, &suite);
}
