/* Conformance: zeInit and the driver object (zeDriverGet*, extensions). */
#include "zc_harness.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Threads that call zeInit at once in a fresh process. */
#define ZC_INIT_THREADS 8

/* ------------------------------------------------------------------------------------------------------------------
 * Child modes: what a fresh process reports */

static void zc_report_driver_count(void) {
    uint32_t n = 0;
    ze_result_t result = zeDriverGet(&n, NULL);
    printf("driver_get=%s\ndrivers=%u\n", zc_result_name(result), n);
}

/* `init <flags>...`: calls zeInit with each value in turn, then counts the drivers. */
static int zc_mode_init(int argc, char **argv) {
    for (int i = 0; i < argc; i++) {
        ze_init_flags_t flags = (ze_init_flags_t)strtoul(argv[i], NULL, 0);
        printf("init%d=%s\n", i, zc_result_name(zeInit(flags)));
    }
    zc_report_driver_count();
    return 0;
}

static void *zc_init_thread(void *arg) {
    *(ze_result_t *)arg = zeInit(0);
    return NULL;
}

/* `init-threads`: the first zeInit of the process, from several threads at once. */
static int zc_mode_init_threads(int argc, char **argv) {
    (void)argc;
    (void)argv;
    pthread_t threads[ZC_INIT_THREADS];
    ze_result_t results[ZC_INIT_THREADS];
    for (int i = 0; i < ZC_INIT_THREADS; i++)
        pthread_create(&threads[i], NULL, zc_init_thread, &results[i]);
    unsigned failures = 0;
    for (int i = 0; i < ZC_INIT_THREADS; i++) {
        pthread_join(threads[i], NULL);
        if (results[i] != ZE_RESULT_SUCCESS) {
            printf("thread%d=%s\n", i, zc_result_name(results[i]));
            failures++;
        }
    }
    printf("init_failures=%u\n", failures);
    zc_report_driver_count();
    return 0;
}

static void zc_print_uuid(const char *key, const uint8_t *id, size_t size) {
    printf("%s=", key);
    for (size_t i = 0; i < size; i++)
        printf("%02x", id[i]);
    printf("\n");
}

/* `driver-properties`: the first driver's uuid and version. */
static int zc_mode_driver_properties(int argc, char **argv) {
    (void)argc;
    (void)argv;
    uint32_t n = 1;
    ze_driver_handle_t driver = NULL;
    ze_driver_properties_t properties = {ZE_STRUCTURE_TYPE_DRIVER_PROPERTIES, NULL, {{0}}, 0};
    if (zeInit(0) != ZE_RESULT_SUCCESS || zeDriverGet(&n, &driver) != ZE_RESULT_SUCCESS || n == 0 ||
        zeDriverGetProperties(driver, &properties) != ZE_RESULT_SUCCESS)
        return 1;
    zc_print_uuid("uuid", properties.uuid.id, ZE_MAX_DRIVER_UUID_SIZE);
    printf("driver_version=%u\n", properties.driverVersion);
    return 0;
}

#if ZC_L0_AT_LEAST(10)
/* `init-drivers <flags> [stype] [init-first]`: a fresh process's zeInitDrivers with desc->flags = <flags> (and
 * desc->stype, by default the right one; after zeInit(<init-first>) when given), called twice: the result, the count
 * asked with NULL, and the devices of the driver handle returned. */
static int zc_mode_init_drivers(int argc, char **argv) {
    if (argc > 2)
        printf("init=%s\n", zc_result_name(zeInit((ze_init_flags_t)strtoul(argv[2], NULL, 0))));
    ze_init_driver_type_desc_t desc = {ZE_STRUCTURE_TYPE_INIT_DRIVER_TYPE_DESC, NULL, 0};
    desc.flags = argc > 0 ? (ze_init_driver_type_flags_t)strtoul(argv[0], NULL, 0) : ZE_INIT_DRIVER_TYPE_FLAG_GPU;
    if (argc > 1)
        desc.stype = (ze_structure_type_t)strtoul(argv[1], NULL, 0);
    if (ZC_API(zeInitDrivers) == NULL) {
        printf("init_drivers=missing\n");
        return 0;
    }
    uint32_t count = 0;
    ze_result_t result = ZC_API(zeInitDrivers)(&count, NULL, &desc);
    printf("init_drivers=%s\ncount=%u\n", zc_result_name(result), count);
    ze_driver_handle_t first = NULL, again = NULL;
    uint32_t one = 1;
    if (result == ZE_RESULT_SUCCESS && count > 0)
        result = ZC_API(zeInitDrivers)(&one, &first, &desc);
    one = 1;
    if (result == ZE_RESULT_SUCCESS && count > 0)
        result = ZC_API(zeInitDrivers)(&one, &again, &desc);
    printf("second=%s\nsame=%d\n", zc_result_name(result), first == again);
    /* the handle is the loader's when the loader has zeInitDrivers, else the driver's own */
    bool loader = strcmp(zc_api_source("zeInitDrivers", ZC_SLOT_zeInitDrivers), "loader") == 0;
    uint32_t devices = 0;
    if (first != NULL)
        (loader ? ZC_API(zeDeviceGet) : ZC_DRIVER_API(zeDeviceGet))(first, &devices, NULL);
    printf("devices=%u\n", devices);
    return 0;
}

static void zc_init_drivers_child(const char *const args[], const char *const env[], zc_child *child) {
    if (!zc_run_child_mode("init-drivers", args, env, ZC_CHILD_TIMEOUT_MS, child))
        zc_fail("cannot start a child process");
    zc_assert_child_ok(child, "the init-drivers child");
    char value[64];
    if (zc_child_value(child, "init_drivers", value, sizeof value) && strcmp(value, "missing") == 0) {
        zc_child_free(child);
        zc_api_require(zeInitDrivers);
    }
}
#endif

/* Runs `init` in a child with the given flags and environment; the caller frees the child. */
static void zc_run_init_child(const char *const flags[], const char *const env[], zc_child *child) {
    if (!zc_run_child_mode("init", flags, env, ZC_CHILD_TIMEOUT_MS, child))
        zc_fail("cannot start a child process");
    zc_assert_child_ok(child, "the init child");
}

static void zc_assert_child_result(const zc_child *child, const char *key, ze_result_t expected) {
    char value[128];
    if (!zc_child_value(child, key, value, sizeof value))
        zc_fail("the child reported no '%s'; stdout:\n%s\nstderr:\n%s", key, child->out, child->err);
    if (strcmp(value, zc_result_name(expected)) != 0)
        zc_fail("in the child, %s was %s; expected %s\nstderr:\n%s", key, value, zc_result_name(expected), child->err);
}

/* ------------------------------------------------------------------------------------------------------------------
 * zeInit */

static void init_called_again_succeeds(void **state) {
    (void)state;
    /* The fixture already initialised: every later call must succeed too. */
    for (int i = 0; i < 16; i++)
        zc_assert_success(zeInit(0));
}

static void init_gpu_only_after_init_succeeds(void **state) {
    (void)state;
    zc_assert_success(zeInit(ZE_INIT_FLAG_GPU_ONLY));
    zc_assert_success(zeInit(0));
}

static void init_invalid_flags_after_init_invalid_enumeration(void **state) {
    (void)state;
    /* In a child: a rejected zeInit may leave the loader's state changed for the rest of the process. */
    const char *const flags[] = {"0", "0x4", NULL};
    zc_child child;
    zc_run_init_child(flags, NULL, &child);
    zc_assert_child_result(&child, "init0", ZE_RESULT_SUCCESS);
    zc_assert_child_result(&child, "init1", ZE_RESULT_ERROR_INVALID_ENUMERATION);
    zc_child_free(&child);
}

static void init_invalid_flags_first_call_invalid_enumeration(void **state) {
    (void)state;
    const char *const flags[] = {"0x4", NULL};
    zc_child child;
    zc_run_init_child(flags, NULL, &child);
    zc_assert_child_result(&child, "init0", ZE_RESULT_ERROR_INVALID_ENUMERATION);
    zc_child_free(&child);
}

static void init_from_threads_all_succeed(void **state) {
    (void)state;
    zc_child child;
    if (!zc_run_child_mode("init-threads", NULL, NULL, ZC_CHILD_TIMEOUT_MS, &child))
        zc_fail("cannot start a child process");
    zc_assert_child_ok(&child, "the init-threads child");
    assert_int_equal(zc_child_number(&child, "init_failures"), 0);
    zc_assert_child_result(&child, "driver_get", ZE_RESULT_SUCCESS);
    assert_true(zc_child_number(&child, "drivers") >= 1);
    zc_child_free(&child);
}

static void init_vpu_only_on_gpu_scenario_reports_no_driver(void **state) {
    (void)state;
    zc_skip_unless_fake();
    /* The default scenario has GPUs only: asking for VPUs succeeds and finds no driver. */
    const char *const flags[] = {"2", NULL}; /* ZE_INIT_FLAG_VPU_ONLY */
    const char *const env[] = {"ZEFAKE_SCENARIO=default", NULL};
    zc_child child;
    zc_run_init_child(flags, env, &child);
    zc_assert_child_result(&child, "init0", ZE_RESULT_SUCCESS);
    zc_assert_child_result(&child, "driver_get", ZE_RESULT_SUCCESS);
    assert_int_equal(zc_child_number(&child, "drivers"), 0);
    zc_child_free(&child);
}

#if ZC_L0_AT_LEAST(10)
/* ------------------------------------------------------------------------------------------------------------------
 * zeInitDrivers (1.10) */

static void init_drivers_gpu_finds_the_driver(void **state) {
    (void)state;
    const char *const args[] = {"1", NULL}; /* ZE_INIT_DRIVER_TYPE_FLAG_GPU */
    zc_child child;
    zc_init_drivers_child(args, NULL, &child);
    zc_assert_child_result(&child, "init_drivers", ZE_RESULT_SUCCESS);
    assert_true(zc_child_number(&child, "count") >= 1);
    zc_assert_child_result(&child, "second", ZE_RESULT_SUCCESS);
    assert_int_equal(zc_child_number(&child, "same"), 1); /* identical handles, call after call */
    assert_true(zc_child_number(&child, "devices") >= 1);
    zc_child_free(&child);
}

static void init_drivers_every_type_finds_the_driver(void **state) {
    (void)state;
    const char *const both[] = {"3", NULL}, *const all[] = {"0xffffffff", NULL};
    const char *const *cases[] = {both, all};
    for (size_t i = 0; i < ZC_COUNT(cases); i++) {
        zc_child child;
        zc_init_drivers_child(cases[i], NULL, &child);
        zc_assert_child_result(&child, "init_drivers", ZE_RESULT_SUCCESS);
        assert_true(zc_child_number(&child, "count") >= 1);
        zc_child_free(&child);
    }
}

static void init_drivers_npu_only_finds_no_gpu_driver(void **state) {
    (void)state;
    zc_skip_unless_fake(); /* the default scenario has GPUs only; another machine may have an NPU driver */
    const char *const args[] = {"2", NULL}; /* ZE_INIT_DRIVER_TYPE_FLAG_NPU */
    const char *const env[] = {"ZEFAKE_SCENARIO=default", NULL};
    zc_child child;
    zc_init_drivers_child(args, env, &child);
    zc_assert_child_result(&child, "init_drivers", ZE_RESULT_ERROR_UNINITIALIZED);
    assert_int_equal(zc_child_number(&child, "count"), 0);
    zc_child_free(&child);
}

static void init_drivers_bad_flags_invalid_enumeration(void **state) {
    (void)state;
    const char *const zero[] = {"0", NULL}, *const unknown[] = {"0x4", NULL};
    const char *const *cases[] = {zero, unknown};
    for (size_t i = 0; i < ZC_COUNT(cases); i++) {
        zc_child child;
        zc_init_drivers_child(cases[i], NULL, &child);
        zc_assert_child_result(&child, "init_drivers", ZE_RESULT_ERROR_INVALID_ENUMERATION);
        zc_child_free(&child);
    }
}

/* Intel's driver reads only desc->flags: a zeroed stype is tolerated, the strict profile refuses it. */
static void init_drivers_zero_stype_tolerated(void **state) {
    (void)state;
    zc_skip_unless_fake();
    const char *const args[] = {"1", "0", NULL};
    const char *const strict[] = {"ZEFAKE_STRICT=1", NULL};
    zc_child child;
    zc_init_drivers_child(args, NULL, &child);
    zc_assert_child_result(&child, "init_drivers", ZE_RESULT_SUCCESS);
    zc_child_free(&child);
    zc_init_drivers_child(args, strict, &child);
    zc_assert_child_result(&child, "init_drivers", ZE_RESULT_ERROR_INVALID_ARGUMENT);
    zc_child_free(&child);
}

/* A driver zeInit made visible is the one zeInitDrivers returns, not initialised again. */
static void init_drivers_after_init_same_driver(void **state) {
    (void)state;
    const char *const args[] = {"1", "0x00020021", "1", NULL}; /* after zeInit(ZE_INIT_FLAG_GPU_ONLY) */
    zc_child child;
    zc_init_drivers_child(args, NULL, &child);
    zc_assert_child_result(&child, "init", ZE_RESULT_SUCCESS);
    zc_assert_child_result(&child, "init_drivers", ZE_RESULT_SUCCESS);
    assert_int_equal(zc_child_number(&child, "same"), 1);
    zc_child_free(&child);
}

static void init_drivers_null_arguments_invalid_null_pointer(void **state) {
    (void)state;
    zc_api_require(zeInitDrivers);
    ze_init_driver_type_desc_t desc = {ZE_STRUCTURE_TYPE_INIT_DRIVER_TYPE_DESC, NULL, ZE_INIT_DRIVER_TYPE_FLAG_GPU};
    uint32_t count = 0;
    zc_assert_result(ZC_API(zeInitDrivers)(NULL, NULL, &desc), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(ZC_API(zeInitDrivers)(&count, NULL, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
}
#endif

#if ZC_L0_AT_LEAST(6)
/* ------------------------------------------------------------------------------------------------------------------
 * zeDriverGetLastErrorDescription (1.6) */

static const char *zc_last_error(void) {
    const char *text = NULL;
    zc_assert_success(ZC_API(zeDriverGetLastErrorDescription)(zc_sys()->driver, &text));
    assert_non_null(text);
    return text;
}

static void *zc_fail_in_thread(void *arg) {
    (void)arg;
    ze_context_handle_t context = NULL;
    zeContextCreate(zc_sys()->driver, NULL, &context); /* an error of this thread only */
    return NULL;
}

static void last_error_describes_the_failed_call(void **state) {
    (void)state;
    zc_api_require(zeDriverGetLastErrorDescription);
    ze_context_desc_t desc = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0};
    zc_assert_result(zeContextCreate(zc_sys()->driver, &desc, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    char first[1024];
    snprintf(first, sizeof first, "%s", zc_last_error());
    if (zc_driver_is_fake() && (strstr(first, "zeContextCreate") == NULL || strstr(first, "phContext") == NULL))
        zc_fail("the last error names neither the function nor the argument: '%s'", first);
    /* a successful call leaves it; another thread's error too */
    ze_context_handle_t context = NULL;
    zc_assert_success(zeContextCreate(zc_sys()->driver, &desc, &context));
    pthread_t thread;
    assert_int_equal(pthread_create(&thread, NULL, zc_fail_in_thread, NULL), 0);
    pthread_join(thread, NULL);
    assert_string_equal(zc_last_error(), first);
    zc_assert_success(zeContextDestroy(context));
}

static void last_error_null_arguments(void **state) {
    (void)state;
    zc_api_require(zeDriverGetLastErrorDescription);
    const char *text = NULL;
    zc_assert_result(ZC_API(zeDriverGetLastErrorDescription)(NULL, &text), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(ZC_API(zeDriverGetLastErrorDescription)(zc_sys()->driver, NULL),
                     ZE_RESULT_ERROR_INVALID_NULL_POINTER);
}
#endif

/* ------------------------------------------------------------------------------------------------------------------
 * zeDriverGet */

static ze_result_t zc_driver_get(void *ctx, uint32_t *count, void *items) {
    (void)ctx;
    return zeDriverGet(count, items);
}

static void driver_get_count_semantics(void **state) {
    (void)state;
    zc_count_query query = {"zeDriverGet", zc_driver_get, NULL, sizeof(ze_driver_handle_t), NULL};
    zc_check_count_semantics(&query);
    assert_true(zc_count(&query) >= 1);
}

static void driver_get_first_is_fixture_driver(void **state) {
    (void)state;
    uint32_t n = 1;
    ze_driver_handle_t driver = NULL;
    zc_assert_success(zeDriverGet(&n, &driver));
    assert_int_equal(n, 1);
    assert_ptr_equal(driver, zc_sys()->driver);
}

static void driver_get_null_count_invalid_null_pointer(void **state) {
    (void)state;
    ze_driver_handle_t driver = NULL;
    zc_assert_result(zeDriverGet(NULL, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zeDriverGet(NULL, &driver), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    assert_null(driver);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Versions and properties */

static void driver_api_version_major_is_1(void **state) {
    (void)state;
    ze_api_version_t version = ZE_API_VERSION_FORCE_UINT32;
    zc_assert_success(zeDriverGetApiVersion(zc_sys()->driver, &version));
    assert_int_equal(ZE_MAJOR_VERSION(version), 1);
}

static void driver_properties_keep_stype_and_pnext(void **state) {
    (void)state;
    ze_driver_properties_t properties;
    memset(&properties, 0xa5, sizeof properties);
    properties.stype = ZE_STRUCTURE_TYPE_DRIVER_PROPERTIES;
    properties.pNext = NULL;
    zc_assert_success(zeDriverGetProperties(zc_sys()->driver, &properties));
    assert_int_equal(properties.stype, ZE_STRUCTURE_TYPE_DRIVER_PROPERTIES);
    assert_null(properties.pNext);
    /* The uuid and version were written: the fill pattern is gone from at least one byte of them. */
    ze_driver_properties_t pattern;
    memset(&pattern, 0xa5, sizeof pattern);
    assert_false(memcmp(&properties.uuid, &pattern.uuid, sizeof pattern.uuid) == 0 &&
                 properties.driverVersion == pattern.driverVersion);
}

static void driver_properties_uuid_stable_across_processes(void **state) {
    (void)state;
    ze_driver_properties_t properties = {ZE_STRUCTURE_TYPE_DRIVER_PROPERTIES, NULL, {{0}}, 0};
    zc_assert_success(zeDriverGetProperties(zc_sys()->driver, &properties));
    char mine[2 * ZE_MAX_DRIVER_UUID_SIZE + 1];
    for (size_t i = 0; i < ZE_MAX_DRIVER_UUID_SIZE; i++)
        snprintf(mine + 2 * i, 3, "%02x", properties.uuid.id[i]);

    zc_child child;
    if (!zc_run_child_mode("driver-properties", NULL, NULL, ZC_CHILD_TIMEOUT_MS, &child))
        zc_fail("cannot start a child process");
    zc_assert_child_ok(&child, "the driver-properties child");
    char theirs[128];
    assert_true(zc_child_value(&child, "uuid", theirs, sizeof theirs));
    assert_string_equal(theirs, mine);
    assert_int_equal(zc_child_number(&child, "driver_version"), properties.driverVersion);
    zc_child_free(&child);
}

static void driver_ipc_properties_flags_are_defined(void **state) {
    (void)state;
    ze_driver_ipc_properties_t properties = {ZE_STRUCTURE_TYPE_DRIVER_IPC_PROPERTIES, NULL, ~0u};
    zc_assert_success(zeDriverGetIpcProperties(zc_sys()->driver, &properties));
    assert_int_equal(properties.stype, ZE_STRUCTURE_TYPE_DRIVER_IPC_PROPERTIES);
    assert_null(properties.pNext);
    const ze_ipc_property_flags_t defined = ZE_IPC_PROPERTY_FLAG_MEMORY | ZE_IPC_PROPERTY_FLAG_EVENT_POOL;
    assert_int_equal(properties.flags & ~defined, 0);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Extensions */

static ze_result_t zc_extension_properties(void *ctx, uint32_t *count, void *items) {
    (void)ctx;
    return zeDriverGetExtensionProperties(zc_sys()->driver, count, items);
}

static const zc_count_query zc_extension_query = {"zeDriverGetExtensionProperties", zc_extension_properties, NULL,
                                                  sizeof(ze_driver_extension_properties_t), NULL};

static void extension_properties_count_semantics(void **state) {
    (void)state;
    zc_check_count_semantics(&zc_extension_query);
}

static void extension_properties_names_terminated_and_unique(void **state) {
    (void)state;
    uint32_t n = 0;
    ze_driver_extension_properties_t *extensions = zc_query_all(&zc_extension_query, &n);
    for (uint32_t i = 0; i < n; i++) {
        size_t length = strnlen(extensions[i].name, ZE_MAX_EXTENSION_NAME);
        assert_true(length > 0);
        assert_true(length < ZE_MAX_EXTENSION_NAME);
        for (uint32_t j = 0; j < i; j++)
            assert_string_not_equal(extensions[i].name, extensions[j].name);
    }
    free(extensions);
}

static void extension_zefake_listed_with_version(void **state) {
    (void)state;
    zc_skip_unless_fake();
    uint32_t n = 0;
    ze_driver_extension_properties_t *extensions = zc_query_all(&zc_extension_query, &n);
    uint32_t version = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (strcmp(extensions[i].name, ZEFAKE_EXTENSION_NAME) == 0)
            version = extensions[i].version;
    }
    free(extensions);
    assert_int_equal(version, ZEFAKE_EXTENSION_VERSION);
}

/* The scenario name the fake should report: the shipped scenario ZEFAKE_SCENARIO names (shipped files are named
 * after their `name`), the default when unset; NULL for a path, whose file may say anything. */
static const char *zc_expected_scenario(void) {
    const char *selector = getenv("ZEFAKE_SCENARIO");
    if (selector == NULL || *selector == '\0')
        return "default";
    size_t length = strlen(selector);
    if (strchr(selector, '/') != NULL || (length >= 5 && strcmp(selector + length - 5, ".yaml") == 0))
        return NULL;
    return selector;
}

static void extension_get_info_reports_scenario(void **state) {
    (void)state;
    zc_skip_unless_fake();
    zefake_info_t info;
    zc_fake_info(&info);
    assert_int_equal(info.extension_version, ZEFAKE_EXTENSION_VERSION);
    assert_true(info.scenario_name[0] != '\0');
    if (zc_expected_scenario() != NULL)
        assert_string_equal(info.scenario_name, zc_expected_scenario());
    if (getenv("ZEFAKE_SCENARIO") == NULL)
        assert_string_equal(info.scenario_source, "<embedded default>");
    assert_true(info.api_functions > 0);
    assert_true(info.api_implemented > 0);
    assert_true(info.api_implemented <= info.api_functions);
}

static void extension_get_info_bad_arguments(void **state) {
    (void)state;
    zc_skip_unless_fake();
    zefake_pfnGetInfo_t get_info = (zefake_pfnGetInfo_t)zc_fake_function(ZEFAKE_FN_GET_INFO);
    zc_assert_result(get_info(NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zefake_info_t info;
    memset(&info, 0, sizeof info);
    info.size = sizeof info.size;
    zc_assert_result(get_info(&info), ZE_RESULT_ERROR_INVALID_SIZE);
}

static void extension_is_api_implemented_answers(void **state) {
    (void)state;
    zc_skip_unless_fake();
    zefake_pfnIsApiImplemented_t is_implemented =
        (zefake_pfnIsApiImplemented_t)zc_fake_function(ZEFAKE_FN_IS_API_IMPLEMENTED);
    ze_bool_t implemented = false;
    zc_assert_success(is_implemented("zeDriverGet", &implemented));
    assert_true(implemented);
    zc_assert_result(is_implemented("zeNoSuchFunction", &implemented), ZE_RESULT_ERROR_INVALID_FUNCTION_NAME);
    zc_assert_result(is_implemented(NULL, &implemented), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(is_implemented("zeDriverGet", NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
}

static void extension_function_unknown_name_invalid_function_name(void **state) {
    (void)state;
    void *function = NULL;
    zc_assert_result(zeDriverGetExtensionFunctionAddress(zc_sys()->driver, "zeNoSuchExtensionFunction", &function),
                     ZE_RESULT_ERROR_INVALID_FUNCTION_NAME);
}

static void extension_function_null_name_invalid_null_pointer(void **state) {
    (void)state;
    void *function = NULL;
    zc_assert_result(zeDriverGetExtensionFunctionAddress(zc_sys()->driver, NULL, &function),
                     ZE_RESULT_ERROR_INVALID_NULL_POINTER);
}

static void extension_function_null_address_invalid_null_pointer(void **state) {
    (void)state;
    zc_assert_result(zeDriverGetExtensionFunctionAddress(zc_sys()->driver, ZEFAKE_FN_GET_INFO, NULL),
                     ZE_RESULT_ERROR_INVALID_NULL_POINTER);
}

int main(int argc, char **argv) {
    static const struct CMUnitTest tests[] = {
        cmocka_unit_test(init_called_again_succeeds),
        cmocka_unit_test(init_gpu_only_after_init_succeeds),
        cmocka_unit_test(init_invalid_flags_after_init_invalid_enumeration),
        cmocka_unit_test(init_invalid_flags_first_call_invalid_enumeration),
        cmocka_unit_test(init_from_threads_all_succeed),
        cmocka_unit_test(init_vpu_only_on_gpu_scenario_reports_no_driver),
#if ZC_L0_AT_LEAST(10)
        cmocka_unit_test(init_drivers_gpu_finds_the_driver),
        cmocka_unit_test(init_drivers_every_type_finds_the_driver),
        cmocka_unit_test(init_drivers_npu_only_finds_no_gpu_driver),
        cmocka_unit_test(init_drivers_bad_flags_invalid_enumeration),
        cmocka_unit_test(init_drivers_zero_stype_tolerated),
        cmocka_unit_test(init_drivers_after_init_same_driver),
        cmocka_unit_test(init_drivers_null_arguments_invalid_null_pointer),
#endif
#if ZC_L0_AT_LEAST(6)
        cmocka_unit_test(last_error_describes_the_failed_call),
        cmocka_unit_test(last_error_null_arguments),
#endif
        cmocka_unit_test(driver_get_count_semantics),
        cmocka_unit_test(driver_get_first_is_fixture_driver),
        cmocka_unit_test(driver_get_null_count_invalid_null_pointer),
        cmocka_unit_test(driver_api_version_major_is_1),
        cmocka_unit_test(driver_properties_keep_stype_and_pnext),
        cmocka_unit_test(driver_properties_uuid_stable_across_processes),
        cmocka_unit_test(driver_ipc_properties_flags_are_defined),
        cmocka_unit_test(extension_properties_count_semantics),
        cmocka_unit_test(extension_properties_names_terminated_and_unique),
        cmocka_unit_test(extension_zefake_listed_with_version),
        cmocka_unit_test(extension_get_info_reports_scenario),
        cmocka_unit_test(extension_get_info_bad_arguments),
        cmocka_unit_test(extension_is_api_implemented_answers),
        cmocka_unit_test(extension_function_unknown_name_invalid_function_name),
        cmocka_unit_test(extension_function_null_name_invalid_null_pointer),
        cmocka_unit_test(extension_function_null_address_invalid_null_pointer),
    };
    static const zc_child_mode modes[] = {
        {"init", zc_mode_init},
        {"init-threads", zc_mode_init_threads},
        {"driver-properties", zc_mode_driver_properties},
#if ZC_L0_AT_LEAST(10)
        {"init-drivers", zc_mode_init_drivers},
#endif
    };
    static const zc_suite suite = {
        ZC_EXECUTABLE, tests, ZC_COUNT(tests), zc_setup_system, zc_teardown_system, modes, ZC_COUNT(modes),
    };
    return zc_main(argc, argv, &suite);
}
