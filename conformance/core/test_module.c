/* Conformance: modules (zeModuleCreate from SPIR-V and native binaries, build logs, kernel names, properties,
 * globals, function pointers, specialization constants, dynamic linking, zeModuleDestroy).
 *
 * Module globals are device memory on a GPU; only the fake documents them as host-accessible, so tests read and
 * write them directly on the fake only. */
#include "zc_harness.h"
#include "zc_kernel_files.h"

#include <stdlib.h>
#include <string.h>

/* The first root device, where most tests build their modules. */
static ze_device_handle_t zc_device(void) {
    return zc_sys()->roots[0];
}

/* Builds `data` and expects `expected`; returns the build log text (malloc'ed) and destroys the log. */
static char *zc_build_expect(ze_context_handle_t context, ze_module_format_t format, const uint8_t *data, size_t size,
                             const char *flags, const ze_module_constants_t *constants, ze_result_t expected) {
    ze_module_handle_t module = NULL;
    ze_module_build_log_handle_t log = NULL;
    ze_result_t result = zc_module_from(context, zc_device(), format, data, size, flags, constants, &module, &log);
    if (zc_driver_is_fake())
        zc_assert_result(result, expected);
    else if (expected == ZE_RESULT_SUCCESS)
        zc_assert_success(result);
    else
        zc_assert_error(result);
    assert_non_null(log);
    char *text = zc_build_log_text(log);
    zc_assert_success(zeModuleBuildLogDestroy(log));
    if (module != NULL)
        zc_assert_success(zeModuleDestroy(module));
    return text;
}

static void zc_assert_log_contains(const char *text, const char *needle) {
    if (zc_driver_is_fake() && strstr(text, needle) == NULL)
        zc_fail("the build log does not mention '%s':\n%s", needle, text);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Creation */

static void module_create_from_each_test_kernel(void **state) {
    ze_context_handle_t context = *state;
    const char *names[] = {
        "copy",   "fill",   "vadd",         "saxpy",           "gemm",       "spec_constant", "globals",
        "export", "import", "local_memory", "reqd_group_size", "spec_global"};
    for (size_t i = 0; i < ZC_COUNT(names); i++) {
        ze_module_handle_t module = zc_module_create(context, zc_device(), names[i]);
        assert_non_null(module);
        zc_assert_success(zeModuleDestroy(module));
    }
}

static void module_create_on_every_device(void **state) {
    ze_context_handle_t context = *state;
    for (uint32_t i = 0; i < zc_sys()->num_all; i++) {
        ze_module_handle_t module = zc_module_create(context, zc_sys()->all[i], "vadd");
        zc_assert_success(zeModuleDestroy(module));
    }
}

static void module_build_log_on_success(void **state) {
    zc_spirv spirv = zc_load_spirv("vadd");
    char *text =
        zc_build_expect(*state, ZE_MODULE_FORMAT_IL_SPIRV, spirv.data, spirv.size, NULL, NULL, ZE_RESULT_SUCCESS);
    free(text);
    free(spirv.data);
}

static const char **zc_names_of(ze_module_handle_t module, uint32_t *count) {
    *count = 0;
    zc_assert_success(zeModuleGetKernelNames(module, count, NULL));
    const char **names = calloc(*count + 1, sizeof *names);
    assert_non_null(names);
    zc_assert_success(zeModuleGetKernelNames(module, count, names));
    return names;
}

static bool zc_has_name(const char **names, uint32_t count, const char *name) {
    for (uint32_t i = 0; i < count; i++) {
        if (strcmp(names[i], name) == 0)
            return true;
    }
    return false;
}

static ze_result_t zc_kernel_names_call(void *ctx, uint32_t *count, void *items) {
    return zeModuleGetKernelNames((ze_module_handle_t)ctx, count, (const char **)items);
}

static void module_kernel_names(void **state) {
    ze_module_handle_t module = zc_module_create(*state, zc_device(), "vadd");
    uint32_t count = 0;
    const char **names = zc_names_of(module, &count);
    assert_int_equal(count, 2);
    assert_true(zc_has_name(names, count, "vadd_int"));
    assert_true(zc_has_name(names, count, "vadd_float"));
    free(names);
    zc_count_query query = {"zeModuleGetKernelNames", zc_kernel_names_call, module, sizeof(const char *), NULL};
    zc_check_count_semantics(&query);
    zc_assert_success(zeModuleDestroy(module));
    /* A module with no kernel at all is fine too: here one kernel among exported helpers. */
    module = zc_module_create(*state, zc_device(), "export");
    names = zc_names_of(module, &count);
    assert_int_equal(count, 1);
    assert_string_equal(names[0], "use_export");
    free(names);
    zc_assert_success(zeModuleDestroy(module));
}

static void module_properties_flags(void **state) {
    ze_module_properties_t props = {ZE_STRUCTURE_TYPE_MODULE_PROPERTIES, NULL, 0xFFu};
    ze_module_handle_t module = zc_module_create(*state, zc_device(), "vadd");
    zc_assert_success(zeModuleGetProperties(module, &props));
    assert_int_equal(props.flags, 0);
    zc_assert_success(zeModuleDestroy(module));
    module = zc_module_create(*state, zc_device(), "import");
    zc_assert_success(zeModuleGetProperties(module, &props));
    assert_int_equal(props.flags & ZE_MODULE_PROPERTY_FLAG_IMPORTS, ZE_MODULE_PROPERTY_FLAG_IMPORTS);
    zc_assert_success(zeModuleDestroy(module));
}

/* ------------------------------------------------------------------------------------------------------------------
 * Globals and function pointers */

static void module_globals_size_pointer_and_value(void **state) {
    ze_module_handle_t module = zc_module_create(*state, zc_device(), "globals");
    size_t size = 0;
    void *counter = NULL, *again = NULL, *table = NULL;
    zc_assert_success(zeModuleGetGlobalPointer(module, "counter", &size, &counter));
    assert_int_equal(size, sizeof(int32_t));
    assert_non_null(counter);
    zc_assert_success(zeModuleGetGlobalPointer(module, "table", &size, &table));
    assert_int_equal(size, 16 * sizeof(float));
    zc_assert_success(zeModuleGetGlobalPointer(module, "lut", &size, NULL));
    assert_int_equal(size, 4 * sizeof(int32_t));
    zc_assert_success(zeModuleGetGlobalPointer(module, "counter", NULL, &again));
    assert_ptr_equal(again, counter);
    zc_assert_result(zeModuleGetGlobalPointer(module, "no_such_global", &size, &counter),
                     ZE_RESULT_ERROR_INVALID_GLOBAL_NAME);
    if (zc_driver_is_fake()) {
        int32_t value;
        memcpy(&value, again, sizeof value);
        assert_int_equal(value, 5); /* its initializer */
        assert_true(((const float *)table)[2] == 3.0f);
        value = 77;
        memcpy(again, &value, sizeof value);
        zc_assert_success(zeModuleGetGlobalPointer(module, "counter", NULL, &again));
        assert_int_equal(*(const int32_t *)again, 77);
    }
    zc_assert_success(zeModuleDestroy(module));
}

static void module_globals_are_per_module(void **state) {
    ze_module_handle_t a = zc_module_create(*state, zc_device(), "globals");
    ze_module_handle_t b = zc_module_create(*state, zc_device(), "globals");
    void *pa = NULL, *pb = NULL;
    zc_assert_success(zeModuleGetGlobalPointer(a, "counter", NULL, &pa));
    zc_assert_success(zeModuleGetGlobalPointer(b, "counter", NULL, &pb));
    assert_ptr_not_equal(pa, pb);
    zc_assert_success(zeModuleDestroy(a));
    zc_assert_success(zeModuleDestroy(b));
}

static void module_function_pointer(void **state) {
    ze_module_handle_t module = zc_module_create(*state, zc_device(), "export");
    void *fn = NULL, *again = NULL;
    zc_assert_success(zeModuleGetFunctionPointer(module, "add_one", &fn));
    assert_non_null(fn);
    zc_assert_success(zeModuleGetFunctionPointer(module, "add_one", &again));
    assert_ptr_equal(fn, again);
    zc_assert_result(zeModuleGetFunctionPointer(module, "no_such_function", &fn),
                     ZE_RESULT_ERROR_INVALID_FUNCTION_NAME);
    zc_assert_success(zeModuleDestroy(module));
}

/* ------------------------------------------------------------------------------------------------------------------
 * Specialization constants (spec_global.spvasm: globals initialized by SpecIds 7, 10 and 0xFF747469) */

#define ZC_ITT_SPEC_ID 0xFF747469u

typedef struct zc_spec_values {
    uint32_t spec_int;
    uint64_t spec_long;
    uint8_t itt;
} zc_spec_values;

static zc_spec_values zc_read_spec_globals(ze_module_handle_t module) {
    zc_spec_values v = {0, 0, 0};
    void *p = NULL;
    zc_assert_success(zeModuleGetGlobalPointer(module, "spec_int", NULL, &p));
    memcpy(&v.spec_int, p, sizeof v.spec_int);
    zc_assert_success(zeModuleGetGlobalPointer(module, "spec_long", NULL, &p));
    memcpy(&v.spec_long, p, sizeof v.spec_long);
    zc_assert_success(zeModuleGetGlobalPointer(module, "itt_enabled", NULL, &p));
    memcpy(&v.itt, p, sizeof v.itt);
    return v;
}

static ze_module_handle_t zc_spec_module(ze_context_handle_t context, const ze_module_constants_t *constants) {
    zc_spirv spirv = zc_load_spirv("spec_global");
    ze_module_handle_t module = NULL;
    zc_assert_success(zc_module_from(context, zc_device(), ZE_MODULE_FORMAT_IL_SPIRV, spirv.data, spirv.size, NULL,
                                     constants, &module, NULL));
    free(spirv.data);
    return module;
}

static void module_spec_constants_defaults(void **state) {
    zc_skip_unless_fake();
    ze_module_handle_t module = zc_spec_module(*state, NULL);
    zc_spec_values v = zc_read_spec_globals(module);
    assert_int_equal(v.spec_int, 42);
    assert_int_equal(v.spec_long, 0x100000000ull);
    /* The ITT constant defaults to 1 when the environment asks for annotations (module_itt_constant_...). */
    assert_int_equal(v.itt, getenv("INTEL_ENABLE_OFFLOAD_ANNOTATIONS") != NULL ? 1 : 0);
    zc_assert_success(zeModuleDestroy(module));
}

static void module_spec_constants_applied(void **state) {
    uint32_t v32 = 1234;
    uint64_t v64 = 0xABCDEF0123ull;
    uint8_t v8 = 1;
    const uint32_t ids[] = {7, 10, ZC_ITT_SPEC_ID};
    const void *values[] = {&v32, &v64, &v8};
    ze_module_constants_t constants = {3, ids, values};
    ze_module_handle_t module = zc_spec_module(*state, &constants);
    if (zc_driver_is_fake()) {
        zc_spec_values v = zc_read_spec_globals(module);
        assert_int_equal(v.spec_int, 1234);
        assert_int_equal(v.spec_long, 0xABCDEF0123ull);
        assert_int_equal(v.itt, 1);
    }
    zc_assert_success(zeModuleDestroy(module));
    /* The OpenCL C kernel with specialization constants accepts its ids as well. */
    zc_spirv spirv = zc_load_spirv("spec_constant");
    int16_t v16 = 9;
    const uint32_t cl_ids[] = {7, 8};
    const void *cl_values[] = {&v32, &v16};
    ze_module_constants_t cl_constants = {2, cl_ids, cl_values};
    zc_assert_success(zc_module_from(*state, zc_device(), ZE_MODULE_FORMAT_IL_SPIRV, spirv.data, spirv.size, NULL,
                                     &cl_constants, &module, NULL));
    zc_assert_success(zeModuleDestroy(module));
    free(spirv.data);
}

static void module_unknown_spec_id_rejected(void **state) {
    zc_spirv spirv = zc_load_spirv("spec_constant");
    uint32_t value = 5;
    const uint32_t ids[] = {7, 99};
    const void *values[] = {&value, &value};
    ze_module_constants_t constants = {2, ids, values};
    char *text = zc_build_expect(*state, ZE_MODULE_FORMAT_IL_SPIRV, spirv.data, spirv.size, NULL, &constants,
                                 ZE_RESULT_ERROR_INVALID_ARGUMENT);
    zc_assert_log_contains(text, "SpecId 99");
    free(text);
    free(spirv.data);
}

/* `itt <value|default>` in a child whose environment the test chooses: the ITT global of spec_global after
 * zeModuleCreate, with the constant set by the application to <value> or left to its default. */
static int zc_mode_itt(int argc, char **argv) {
    ze_driver_handle_t driver = NULL;
    ze_device_handle_t device = NULL;
    ze_context_handle_t context = NULL;
    uint32_t n = 1;
    ze_context_desc_t desc = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0};
    if (argc < 1 || zeInit(0) != ZE_RESULT_SUCCESS || zeDriverGet(&n, &driver) != ZE_RESULT_SUCCESS ||
        zeDeviceGet(driver, &n, &device) != ZE_RESULT_SUCCESS || zeContextCreate(driver, &desc, &context))
        return 1;
    char path[1024];
    snprintf(path, sizeof path, "%s/spec_global.spv", ZC_KERNEL_DIR);
    FILE *file = fopen(path, "rb");
    static uint8_t data[1 << 16];
    size_t size = file != NULL ? fread(data, 1, sizeof data, file) : 0;
    if (file != NULL)
        fclose(file);
    uint8_t value = (uint8_t)strtoul(argv[0], NULL, 0);
    const uint32_t ids[] = {ZC_ITT_SPEC_ID};
    const void *values[] = {&value};
    ze_module_constants_t constants = {1, ids, values};
    bool set = strcmp(argv[0], "default") != 0;
    ze_module_handle_t module = NULL;
    void *itt = NULL;
    if (zc_module_from(context, device, ZE_MODULE_FORMAT_IL_SPIRV, data, size, NULL, set ? &constants : NULL, &module,
                       NULL) != ZE_RESULT_SUCCESS ||
        zeModuleGetGlobalPointer(module, "itt_enabled", NULL, &itt) != ZE_RESULT_SUCCESS)
        return 2;
    printf("itt=%u\n", *(const uint8_t *)itt);
    zeModuleDestroy(module);
    zeContextDestroy(context);
    return 0;
}

static uint64_t zc_itt_in_child(const char *arg, const char *const env[]) {
    const char *args[] = {arg, NULL};
    zc_child child;
    if (!zc_run_child_mode("itt", args, env, ZC_CHILD_TIMEOUT_MS, &child))
        zc_fail("cannot start a child process");
    zc_assert_child_ok(&child, "the itt child");
    uint64_t value = zc_child_number(&child, "itt");
    zc_child_free(&child);
    return value;
}

static void module_itt_constant_defaults_from_environment(void **state) {
    (void)state;
    zc_skip_unless_fake();
    const char *const with_env[] = {"INTEL_ENABLE_OFFLOAD_ANNOTATIONS=1", NULL};
    const char *const without_env[] = {"INTEL_ENABLE_OFFLOAD_ANNOTATIONS", NULL};
    assert_int_equal(zc_itt_in_child("default", with_env), 1);
    assert_int_equal(zc_itt_in_child("0", with_env), 0); /* the application's value wins */
    assert_int_equal(zc_itt_in_child("default", without_env), 0);
    assert_int_equal(zc_itt_in_child("1", without_env), 1);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Malformed SPIR-V */

static void module_malformed_spirv_build_failure(void **state) {
    zc_spirv spirv = zc_load_spirv("vadd");
    uint8_t *bad = malloc(spirv.size);
    assert_non_null(bad);
    /* Truncated in the middle of an instruction: the module ends with OpFunctionCall (7 words), OpReturn and
     * OpFunctionEnd, so cutting 3 words cuts the call. */
    char *text = zc_build_expect(*state, ZE_MODULE_FORMAT_IL_SPIRV, spirv.data, spirv.size - 12, NULL, NULL,
                                 ZE_RESULT_ERROR_MODULE_BUILD_FAILURE);
    zc_assert_log_contains(text, "SPIR-V word");
    free(text);
    /* Not a whole number of words. */
    text = zc_build_expect(*state, ZE_MODULE_FORMAT_IL_SPIRV, spirv.data, spirv.size - 2, NULL, NULL,
                           ZE_RESULT_ERROR_MODULE_BUILD_FAILURE);
    zc_assert_log_contains(text, "whole words");
    free(text);
    /* Bad magic. */
    memcpy(bad, spirv.data, spirv.size);
    memset(bad, 0x5A, 4);
    text = zc_build_expect(*state, ZE_MODULE_FORMAT_IL_SPIRV, bad, spirv.size, NULL, NULL,
                           ZE_RESULT_ERROR_MODULE_BUILD_FAILURE);
    zc_assert_log_contains(text, "magic");
    free(text);
    /* A word count running past the end (the first instruction, at word 5). */
    memcpy(bad, spirv.data, spirv.size);
    bad[22] = 0xFF;
    bad[23] = 0xFF;
    text = zc_build_expect(*state, ZE_MODULE_FORMAT_IL_SPIRV, bad, spirv.size, NULL, NULL,
                           ZE_RESULT_ERROR_MODULE_BUILD_FAILURE);
    zc_assert_log_contains(text, "SPIR-V word 5");
    zc_assert_log_contains(text, "runs past the end");
    free(text);
    /* A word count of 0. */
    bad[22] = 0;
    bad[23] = 0;
    text = zc_build_expect(*state, ZE_MODULE_FORMAT_IL_SPIRV, bad, spirv.size, NULL, NULL,
                           ZE_RESULT_ERROR_MODULE_BUILD_FAILURE);
    zc_assert_log_contains(text, "word count 0");
    free(text);
    free(bad);
    free(spirv.data);
}

static void module_spirv_newer_than_device_build_failure(void **state) {
    zc_skip_unless_fake();
    ze_device_module_properties_t props = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MODULE_PROPERTIES};
    zc_assert_success(zeDeviceGetModuleProperties(zc_device(), &props));
    if (ZE_MINOR_VERSION(props.spirvVersionSupported) >= 6)
        skip();
    zc_spirv spirv = zc_load_spirv("vadd");
    spirv.data[5] = 6; /* the minor version byte: SPIR-V 1.6 */
    char *text = zc_build_expect(*state, ZE_MODULE_FORMAT_IL_SPIRV, spirv.data, spirv.size, NULL, NULL,
                                 ZE_RESULT_ERROR_MODULE_BUILD_FAILURE);
    zc_assert_log_contains(text, "SPIR-V 1.6 module");
    free(text);
    free(spirv.data);
}

/* Random edits of real modules through the whole API: every outcome is a result code, never a crash. What
 * builds is used as an application would (names, properties, kernels, arguments, group sizes, native binary). */
static uint64_t zc_next(uint64_t *rng) {
    *rng ^= *rng << 13;
    *rng ^= *rng >> 7;
    *rng ^= *rng << 17;
    return *rng;
}

static void zc_use_module(ze_module_handle_t module) {
    uint32_t count = 0;
    const char **names = zc_names_of(module, &count);
    for (uint32_t i = 0; i < count; i++) {
        ze_kernel_desc_t desc = {ZE_STRUCTURE_TYPE_KERNEL_DESC, NULL, 0, names[i]};
        ze_kernel_handle_t kernel = NULL;
        if (zeKernelCreate(module, &desc, &kernel) != ZE_RESULT_SUCCESS)
            continue;
        ze_kernel_properties_t props = {.stype = ZE_STRUCTURE_TYPE_KERNEL_PROPERTIES};
        zc_assert_success(zeKernelGetProperties(kernel, &props));
        uint8_t value[64] = {0};
        for (uint32_t a = 0; a < props.numKernelArgs; a++) {
            for (size_t size = 1; size <= sizeof value; size *= 2)
                zeKernelSetArgumentValue(kernel, a, size, value);
        }
        uint32_t x, y, z;
        zeKernelSuggestGroupSize(kernel, 96, 2, 1, &x, &y, &z);
        zeKernelSetGroupSize(kernel, 8, 1, 1);
        uint32_t attributes = 0;
        char *text = NULL;
        zc_assert_success(zeKernelGetSourceAttributes(kernel, &attributes, &text));
        zc_assert_success(zeKernelDestroy(kernel));
    }
    free(names);
    size_t size = 0;
    zc_assert_success(zeModuleGetNativeBinary(module, &size, NULL));
}

static void module_mutated_spirv_never_crashes(void **state) {
    zc_skip_unless_fake();
    const char *files[] = {"local_memory", "globals", "spec_global", "reqd_group_size"};
    uint64_t rng = 0x2545F4914F6CDD1Dull;
    for (size_t f = 0; f < ZC_COUNT(files); f++) {
        zc_spirv spirv = zc_load_spirv(files[f]);
        uint32_t *words = malloc(spirv.size);
        assert_non_null(words);
        for (int i = 0; i < 300; i++) {
            memcpy(words, spirv.data, spirv.size);
            for (int e = 0; e < 2; e++) {
                size_t at = 5 + (size_t)(zc_next(&rng) % (spirv.size / 4 - 5));
                words[at] = (zc_next(&rng) & 1) ? (uint32_t)zc_next(&rng) : words[at] ^ (1u << (zc_next(&rng) % 32));
            }
            ze_module_handle_t module = NULL;
            ze_module_build_log_handle_t log = NULL;
            ze_result_t result = zc_module_from(*state, zc_device(), ZE_MODULE_FORMAT_IL_SPIRV, (const uint8_t *)words,
                                                spirv.size, NULL, NULL, &module, &log);
            if (result == ZE_RESULT_SUCCESS) {
                zc_use_module(module);
                zc_assert_success(zeModuleDestroy(module));
            }
            free(zc_build_log_text(log));
            zc_assert_success(zeModuleBuildLogDestroy(log));
        }
        free(words);
        free(spirv.data);
    }
}

/* ------------------------------------------------------------------------------------------------------------------
 * Build options and logs */

static void module_build_options_accepted(void **state) {
    zc_spirv spirv = zc_load_spirv("vadd");
    const char *good[] = {"-ze-opt-disable", "-ze-opt-level 1", "-g -ze-opt-large-register-file",
                          "-zet-profile-flags 0x1f", "-some-option-nobody-knows"};
    for (size_t i = 0; i < ZC_COUNT(good); i++)
        free(zc_build_expect(*state, ZE_MODULE_FORMAT_IL_SPIRV, spirv.data, spirv.size, good[i], NULL,
                             ZE_RESULT_SUCCESS));
    if (zc_driver_is_fake()) {
        char *text = zc_build_expect(*state, ZE_MODULE_FORMAT_IL_SPIRV, spirv.data, spirv.size,
                                     "-zet-profile-flags not-hex", NULL, ZE_RESULT_ERROR_MODULE_BUILD_FAILURE);
        zc_assert_log_contains(text, "-zet-profile-flags");
        free(text);
    }
    free(spirv.data);
}

static void module_build_log_size_semantics(void **state) {
    zc_spirv spirv = zc_load_spirv("vadd");
    spirv.data[0] ^= 0xFF; /* bad magic: a failure with a log */
    ze_module_handle_t module = NULL;
    ze_module_build_log_handle_t log = NULL;
    zc_assert_error(zc_module_from(*state, zc_device(), ZE_MODULE_FORMAT_IL_SPIRV, spirv.data, spirv.size, NULL, NULL,
                                   &module, &log));
    assert_non_null(log);
    size_t size = 0;
    zc_assert_success(zeModuleBuildLogGetString(log, &size, NULL));
    assert_true(size >= 1);
    char *text = malloc(size);
    assert_non_null(text);
    size_t given = size;
    zc_assert_success(zeModuleBuildLogGetString(log, &given, text));
    assert_int_equal(strlen(text) + 1, size);
    if (zc_driver_is_fake() && size > 4) {
        char small[4] = {'x', 'x', 'x', 'x'};
        given = sizeof small;
        zc_assert_success(zeModuleBuildLogGetString(log, &given, small));
        assert_int_equal(given, sizeof small);
        assert_int_equal(small[3], '\0');
        assert_memory_equal(small, text, 3);
    }
    free(text);
    zc_assert_result(zeModuleBuildLogGetString(log, NULL, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_success(zeModuleBuildLogDestroy(log));
    if (zc_driver_is_fake())
        zc_assert_result(zeModuleBuildLogDestroy(log), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zeModuleBuildLogDestroy(NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    free(spirv.data);
}

static void module_build_log_outlives_module(void **state) {
    zc_spirv spirv = zc_load_spirv("vadd");
    ze_module_handle_t module = NULL;
    ze_module_build_log_handle_t log = NULL;
    zc_assert_success(zc_module_from(*state, zc_device(), ZE_MODULE_FORMAT_IL_SPIRV, spirv.data, spirv.size, NULL, NULL,
                                     &module, &log));
    zc_assert_success(zeModuleDestroy(module));
    free(zc_build_log_text(log));
    zc_assert_success(zeModuleBuildLogDestroy(log));
    free(spirv.data);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Native binaries */

static uint8_t *zc_native_of(ze_module_handle_t module, size_t *size) {
    *size = 0;
    zc_assert_success(zeModuleGetNativeBinary(module, size, NULL));
    assert_true(*size > 0);
    uint8_t *binary = malloc(*size);
    assert_non_null(binary);
    zc_assert_success(zeModuleGetNativeBinary(module, size, binary));
    return binary;
}

static void module_native_binary_round_trip(void **state) {
    uint32_t v32 = 31337;
    const uint32_t ids[] = {7};
    const void *values[] = {&v32};
    ze_module_constants_t constants = {1, ids, values};
    ze_module_handle_t original = zc_spec_module(*state, &constants);
    size_t size = 0;
    uint8_t *binary = zc_native_of(original, &size);
    ze_module_handle_t copy = NULL;
    zc_assert_success(
        zc_module_from(*state, zc_device(), ZE_MODULE_FORMAT_NATIVE, binary, size, NULL, NULL, &copy, NULL));
    uint32_t count = 0;
    const char **names = zc_names_of(copy, &count);
    assert_int_equal(count, 1);
    assert_string_equal(names[0], "spec_global_kernel");
    free(names);
    if (zc_driver_is_fake()) {
        /* The native binary keeps the specialization the original was built with. */
        assert_int_equal(zc_read_spec_globals(copy).spec_int, 31337);
        size_t again_size = 0;
        uint8_t *again = zc_native_of(copy, &again_size);
        assert_int_equal(again_size, size);
        assert_memory_equal(again, binary, size);
        free(again);
        size_t small = size - 1;
        zc_assert_result(zeModuleGetNativeBinary(copy, &small, binary), ZE_RESULT_ERROR_INVALID_SIZE);
    }
    zc_assert_success(zeModuleDestroy(copy));
    zc_assert_success(zeModuleDestroy(original));
    free(binary);
}

static void module_native_binary_corrupted_rejected(void **state) {
    ze_module_handle_t original = zc_module_create(*state, zc_device(), "vadd");
    size_t size = 0;
    uint8_t *binary = zc_native_of(original, &size);
    uint8_t *bad = malloc(size);
    assert_non_null(bad);
    const size_t flips[] = {0, size / 2, size - 1};
    for (size_t i = 0; i < ZC_COUNT(flips); i++) {
        memcpy(bad, binary, size);
        bad[flips[i]] ^= 0x41;
        free(zc_build_expect(*state, ZE_MODULE_FORMAT_NATIVE, bad, size, NULL, NULL,
                             ZE_RESULT_ERROR_INVALID_NATIVE_BINARY));
    }
    free(zc_build_expect(*state, ZE_MODULE_FORMAT_NATIVE, binary, size / 2, NULL, NULL,
                         ZE_RESULT_ERROR_INVALID_NATIVE_BINARY));
    if (zc_driver_is_fake()) {
        /* docs/modules.md: bytes 16..31 hold the native kernel UUID of the device it was built for. */
        memcpy(bad, binary, size);
        bad[20] ^= 0x01;
        char *text = zc_build_expect(*state, ZE_MODULE_FORMAT_NATIVE, bad, size, NULL, NULL,
                                     ZE_RESULT_ERROR_INVALID_NATIVE_BINARY);
        zc_assert_log_contains(text, "another kind of device");
        free(text);
        /* SPIR-V given as a native binary is not one. */
        zc_spirv spirv = zc_load_spirv("vadd");
        free(zc_build_expect(*state, ZE_MODULE_FORMAT_NATIVE, spirv.data, spirv.size, NULL, NULL,
                             ZE_RESULT_ERROR_INVALID_NATIVE_BINARY));
        free(spirv.data);
    }
    free(bad);
    free(binary);
    zc_assert_success(zeModuleDestroy(original));
}

/* ------------------------------------------------------------------------------------------------------------------
 * Dynamic linking */

static void module_dynamic_link_success(void **state) {
    ze_module_handle_t exporter = zc_module_create(*state, zc_device(), "export");
    ze_module_handle_t importer = zc_module_create(*state, zc_device(), "import");
    ze_kernel_desc_t desc = {ZE_STRUCTURE_TYPE_KERNEL_DESC, NULL, 0, "use_import"};
    ze_kernel_handle_t kernel = NULL;
    zc_assert_result(zeKernelCreate(importer, &desc, &kernel), ZE_RESULT_ERROR_INVALID_MODULE_UNLINKED);
    ze_module_handle_t both[2] = {importer, exporter};
    ze_module_build_log_handle_t log = NULL;
    zc_assert_success(zeModuleDynamicLink(2, both, &log));
    assert_non_null(log);
    free(zc_build_log_text(log));
    zc_assert_success(zeModuleBuildLogDestroy(log));
    ze_module_properties_t props = {ZE_STRUCTURE_TYPE_MODULE_PROPERTIES, NULL, 0};
    zc_assert_success(zeModuleGetProperties(importer, &props));
    assert_int_equal(props.flags & ZE_MODULE_PROPERTY_FLAG_IMPORTS, 0);
    kernel = zc_kernel_create(importer, "use_import");
    zc_assert_success(zeKernelDestroy(kernel));
    /* The importer reaches the exporter's global and function. */
    void *theirs = NULL, *ours = NULL;
    zc_assert_success(zeModuleGetGlobalPointer(exporter, "shared_total", NULL, &theirs));
    zc_assert_success(zeModuleGetGlobalPointer(importer, "shared_total", NULL, &ours));
    assert_ptr_equal(ours, theirs);
    zc_assert_success(zeModuleGetFunctionPointer(exporter, "add_one", &theirs));
    zc_assert_success(zeModuleGetFunctionPointer(importer, "add_one", &ours));
    assert_ptr_equal(ours, theirs);
    /* Linking again is harmless: imports are linked once. */
    zc_assert_success(zeModuleDynamicLink(2, both, NULL));
    zc_assert_success(zeModuleDestroy(importer));
    zc_assert_success(zeModuleDestroy(exporter));
}

static void module_dynamic_link_failures_logged(void **state) {
    ze_module_handle_t importer = zc_module_create(*state, zc_device(), "import");
    ze_module_build_log_handle_t log = NULL;
    zc_assert_result(zeModuleDynamicLink(1, &importer, &log), ZE_RESULT_ERROR_MODULE_LINK_FAILURE);
    assert_non_null(log);
    char *text = zc_build_log_text(log);
    zc_assert_log_contains(text, "unresolved");
    zc_assert_log_contains(text, "add_one");
    zc_assert_log_contains(text, "shared_total");
    free(text);
    zc_assert_success(zeModuleBuildLogDestroy(log));
    /* Two modules exporting the same names: ambiguous, and nothing is linked. */
    ze_module_handle_t first = zc_module_create(*state, zc_device(), "export");
    ze_module_handle_t second = zc_module_create(*state, zc_device(), "export");
    ze_module_handle_t three[3] = {importer, first, second};
    zc_assert_result(zeModuleDynamicLink(3, three, &log), ZE_RESULT_ERROR_MODULE_LINK_FAILURE);
    text = zc_build_log_text(log);
    zc_assert_log_contains(text, "ambiguous");
    free(text);
    zc_assert_success(zeModuleBuildLogDestroy(log));
    ze_module_properties_t props = {ZE_STRUCTURE_TYPE_MODULE_PROPERTIES, NULL, 0};
    zc_assert_success(zeModuleGetProperties(importer, &props));
    assert_int_equal(props.flags & ZE_MODULE_PROPERTY_FLAG_IMPORTS, ZE_MODULE_PROPERTY_FLAG_IMPORTS);
    void *ptr = NULL;
    zc_assert_result(zeModuleGetGlobalPointer(importer, "shared_total", NULL, &ptr),
                     ZE_RESULT_ERROR_INVALID_GLOBAL_NAME);
    zc_assert_success(zeModuleDestroy(second));
    zc_assert_success(zeModuleDestroy(first));
    zc_assert_success(zeModuleDestroy(importer));
}

static void module_exporter_destroyed_first(void **state) {
    ze_module_handle_t exporter = zc_module_create(*state, zc_device(), "export");
    ze_module_handle_t importer = zc_module_create(*state, zc_device(), "import");
    ze_module_handle_t both[2] = {exporter, importer};
    zc_assert_success(zeModuleDynamicLink(2, both, NULL));
    zc_assert_success(zeModuleDestroy(exporter));
    ze_kernel_handle_t kernel = zc_kernel_create(importer, "use_import");
    zc_assert_success(zeKernelDestroy(kernel));
    zc_assert_success(zeModuleDestroy(importer));
}

/* ------------------------------------------------------------------------------------------------------------------
 * Bad inputs */

static void module_create_bad_arguments(void **state) {
    ze_context_handle_t context = *state;
    zc_spirv spirv = zc_load_spirv("vadd");
    ze_module_desc_t desc = {
        ZE_STRUCTURE_TYPE_MODULE_DESC, NULL, ZE_MODULE_FORMAT_IL_SPIRV, spirv.size, spirv.data, NULL, NULL};
    ze_module_handle_t module = NULL;
    zc_assert_result(zeModuleCreate(NULL, zc_device(), &desc, &module, NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zeModuleCreate(context, NULL, &desc, &module, NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zeModuleCreate(context, zc_device(), NULL, &module, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zeModuleCreate(context, zc_device(), &desc, NULL, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    desc.pInputModule = NULL;
    zc_assert_result(zeModuleCreate(context, zc_device(), &desc, &module, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    desc.pInputModule = spirv.data;
    desc.inputSize = 0;
    zc_assert_result(zeModuleCreate(context, zc_device(), &desc, &module, NULL), ZE_RESULT_ERROR_INVALID_SIZE);
    desc.inputSize = spirv.size;
    desc.format = (ze_module_format_t)(ZE_MODULE_FORMAT_NATIVE + 1);
    zc_assert_result(zeModuleCreate(context, zc_device(), &desc, &module, NULL), ZE_RESULT_ERROR_INVALID_ENUMERATION);
    free(spirv.data);
}

static void module_constants_null_arrays(void **state) {
    zc_skip_unless_fake();
    zc_spirv spirv = zc_load_spirv("spec_constant");
    ze_module_constants_t constants = {1, NULL, NULL};
    free(zc_build_expect(*state, ZE_MODULE_FORMAT_IL_SPIRV, spirv.data, spirv.size, NULL, &constants,
                         ZE_RESULT_ERROR_INVALID_NULL_POINTER));
    free(spirv.data);
}

static void module_queries_bad_arguments(void **state) {
    ze_module_handle_t module = zc_module_create(*state, zc_device(), "globals");
    uint32_t count = 0;
    size_t size = 0;
    void *ptr = NULL;
    ze_module_properties_t props = {ZE_STRUCTURE_TYPE_MODULE_PROPERTIES, NULL, 0};
    zc_assert_result(zeModuleGetKernelNames(NULL, &count, NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zeModuleGetKernelNames(module, NULL, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zeModuleGetProperties(NULL, &props), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zeModuleGetProperties(module, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zeModuleGetGlobalPointer(NULL, "counter", &size, &ptr), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zeModuleGetGlobalPointer(module, NULL, &size, &ptr), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zeModuleGetFunctionPointer(NULL, "x", &ptr), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zeModuleGetFunctionPointer(module, NULL, &ptr), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zeModuleGetFunctionPointer(module, "x", NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zeModuleGetNativeBinary(NULL, &size, NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zeModuleGetNativeBinary(module, NULL, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zeModuleDynamicLink(1, NULL, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zeModuleDestroy(NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_success(zeModuleDestroy(module));
}

static void module_use_after_destroy_invalid_null_handle(void **state) {
    zc_skip_unless_fake();
    ze_module_handle_t module = zc_module_create(*state, zc_device(), "vadd");
    zc_assert_success(zeModuleDestroy(module));
    uint32_t count = 0;
    zc_assert_result(zeModuleGetKernelNames(module, &count, NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zeModuleDestroy(module), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zeModuleDynamicLink(1, &module, NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
}

static void module_destroy_with_live_kernel_in_use(void **state) {
    zc_skip_unless_fake();
    ze_module_handle_t module = zc_module_create(*state, zc_device(), "vadd");
    ze_kernel_handle_t kernel = zc_kernel_create(module, "vadd_int");
    zc_assert_result(zeModuleDestroy(module), ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE);
    zc_assert_success(zeKernelDestroy(kernel));
    zc_assert_success(zeModuleDestroy(module));
}

static void module_device_outside_context_rejected(void **state) {
    (void)state;
    zc_skip_unless_fake();
    const zc_system *sys = zc_sys();
    if (sys->num_roots < 2)
        skip();
    ze_context_desc_t desc = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0};
    ze_context_handle_t context = NULL;
    zc_assert_success(zeContextCreateEx(sys->driver, &desc, 1, &sys->roots[0], &context));
    zc_spirv spirv = zc_load_spirv("vadd");
    ze_module_handle_t module = NULL;
    zc_assert_result(zc_module_from(context, sys->roots[1], ZE_MODULE_FORMAT_IL_SPIRV, spirv.data, spirv.size, NULL,
                                    NULL, &module, NULL),
                     ZE_RESULT_ERROR_INVALID_ARGUMENT);
    free(spirv.data);
    zc_assert_success(zeContextDestroy(context));
}

#define ZC_FIXTURE context

int main(int argc, char **argv) {
    static const struct CMUnitTest tests[] = {
        ZC_T(module_create_from_each_test_kernel),
        ZC_T(module_create_on_every_device),
        ZC_T(module_build_log_on_success),
        ZC_T(module_kernel_names),
        ZC_T(module_properties_flags),
        ZC_T(module_globals_size_pointer_and_value),
        ZC_T(module_globals_are_per_module),
        ZC_T(module_function_pointer),
        ZC_T(module_spec_constants_defaults),
        ZC_T(module_spec_constants_applied),
        ZC_T(module_unknown_spec_id_rejected),
        cmocka_unit_test(module_itt_constant_defaults_from_environment),
        ZC_T(module_malformed_spirv_build_failure),
        ZC_T(module_spirv_newer_than_device_build_failure),
        ZC_T(module_mutated_spirv_never_crashes),
        ZC_T(module_build_options_accepted),
        ZC_T(module_build_log_size_semantics),
        ZC_T(module_build_log_outlives_module),
        ZC_T(module_native_binary_round_trip),
        ZC_T(module_native_binary_corrupted_rejected),
        ZC_T(module_dynamic_link_success),
        ZC_T(module_dynamic_link_failures_logged),
        ZC_T(module_exporter_destroyed_first),
        ZC_T(module_create_bad_arguments),
        ZC_T(module_constants_null_arrays),
        ZC_T(module_queries_bad_arguments),
        ZC_T(module_use_after_destroy_invalid_null_handle),
        ZC_T(module_destroy_with_live_kernel_in_use),
        cmocka_unit_test(module_device_outside_context_rejected),
    };
    static const zc_child_mode modes[] = {
        {"itt", zc_mode_itt},
    };
    static const zc_suite suite = {
        ZC_EXECUTABLE, tests, ZC_COUNT(tests), zc_setup_system, zc_teardown_system, modes, ZC_COUNT(modes),
    };
    return zc_main(argc, argv, &suite);
}
