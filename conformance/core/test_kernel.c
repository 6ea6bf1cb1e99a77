/* Conformance: kernels (zeKernelCreate/Destroy, arguments, group sizes, suggestions, properties, name, indirect
 * access, cache configuration, source attributes). Launches are tested with the command lists that run them. */
#include "zc_harness.h"
#include "zc_kernel_files.h"

#include <stdlib.h>
#include <string.h>

typedef struct zc_fixture {
    ze_context_handle_t context;
    ze_module_handle_t vadd;
    ze_module_handle_t local;
    ze_module_handle_t reqd;
} zc_fixture;

static int zc_setup_kernel(void **state) {
    zc_fixture *f = calloc(1, sizeof *f);
    if (f == NULL || zc_setup_context((void **)&f->context) != 0)
        return -1;
    ze_device_handle_t device = zc_sys()->roots[0];
    f->vadd = zc_module_create(f->context, device, "vadd");
    f->local = zc_module_create(f->context, device, "local_memory");
    f->reqd = zc_module_create(f->context, device, "reqd_group_size");
    *state = f;
    return 0;
}

static int zc_teardown_kernel(void **state) {
    zc_fixture *f = *state;
    zeModuleDestroy(f->reqd);
    zeModuleDestroy(f->local);
    zeModuleDestroy(f->vadd);
    int r = zc_teardown_context((void **)&f->context);
    free(f);
    return r;
}

static ze_device_compute_properties_t zc_compute(void) {
    ze_device_compute_properties_t props = {.stype = ZE_STRUCTURE_TYPE_DEVICE_COMPUTE_PROPERTIES};
    zc_assert_success(zeDeviceGetComputeProperties(zc_sys()->roots[0], &props));
    return props;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Create and destroy */

static void kernel_create_destroy(void **state) {
    zc_fixture *f = *state;
    ze_kernel_handle_t a = zc_kernel_create(f->vadd, "vadd_int");
    ze_kernel_handle_t b = zc_kernel_create(f->vadd, "vadd_int");
    ze_kernel_handle_t c = zc_kernel_create(f->vadd, "vadd_float");
    assert_ptr_not_equal(a, b);
    zc_assert_success(zeKernelDestroy(a));
    zc_assert_success(zeKernelDestroy(b));
    zc_assert_success(zeKernelDestroy(c));
}

static void kernel_create_with_flags(void **state) {
    zc_fixture *f = *state;
    ze_kernel_desc_t desc = {ZE_STRUCTURE_TYPE_KERNEL_DESC, NULL, ZE_KERNEL_FLAG_FORCE_RESIDENCY, "vadd_float"};
    ze_kernel_handle_t kernel = NULL;
    zc_assert_success(zeKernelCreate(f->vadd, &desc, &kernel));
    zc_assert_success(zeKernelDestroy(kernel));
    desc.flags = 0x4;
    zc_assert_result(zeKernelCreate(f->vadd, &desc, &kernel), ZE_RESULT_ERROR_INVALID_ENUMERATION);
}

static void kernel_create_unknown_name(void **state) {
    zc_fixture *f = *state;
    ze_kernel_desc_t desc = {ZE_STRUCTURE_TYPE_KERNEL_DESC, NULL, 0, "no_such_kernel"};
    ze_kernel_handle_t kernel = NULL;
    zc_assert_result(zeKernelCreate(f->vadd, &desc, &kernel), ZE_RESULT_ERROR_INVALID_KERNEL_NAME);
    desc.pKernelName = "vadd"; /* a prefix of real names is not a name */
    zc_assert_result(zeKernelCreate(f->vadd, &desc, &kernel), ZE_RESULT_ERROR_INVALID_KERNEL_NAME);
}

static void kernel_create_on_every_device(void **state) {
    zc_fixture *f = *state;
    for (uint32_t i = 0; i < zc_sys()->num_all; i++) {
        ze_module_handle_t module = zc_module_create(f->context, zc_sys()->all[i], "gemm");
        ze_kernel_handle_t kernel = zc_kernel_create(module, "gemm");
        zc_assert_success(zeKernelDestroy(kernel));
        zc_assert_success(zeModuleDestroy(module));
    }
}

/* ------------------------------------------------------------------------------------------------------------------
 * Arguments */

static void kernel_argument_index_and_size(void **state) {
    zc_fixture *f = *state;
    ze_kernel_handle_t kernel = zc_kernel_create(f->vadd, "vadd_int");
    void *ptr = NULL;
    zc_assert_success(zeKernelSetArgumentValue(kernel, 0, sizeof ptr, &ptr));
    zc_assert_success(zeKernelSetArgumentValue(kernel, 2, sizeof ptr, NULL)); /* a null pointer */
    zc_assert_result(zeKernelSetArgumentValue(kernel, 3, sizeof ptr, &ptr),
                     ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX);
    zc_assert_result(zeKernelSetArgumentValue(kernel, UINT32_MAX, sizeof ptr, &ptr),
                     ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX);
    zc_assert_result(zeKernelSetArgumentValue(kernel, 1, 4, &ptr), ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE);
    zc_assert_result(zeKernelSetArgumentValue(kernel, 1, 16, &ptr), ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE);
    zc_assert_success(zeKernelDestroy(kernel));
}

/* reduce_local(global float *in, global float *out, local float *scratch, params_t p, uchar flag, short2 pair) */
static void kernel_argument_kinds(void **state) {
    zc_fixture *f = *state;
    ze_kernel_handle_t kernel = zc_kernel_create(f->local, "reduce_local");
    struct {
        float scale;
        int32_t bias;
        double weight;
    } params = {2.0f, 1, 0.5};
    uint8_t flag = 1;
    int16_t pair[2] = {3, 4};
    zc_assert_success(zeKernelSetArgumentValue(kernel, 2, 256 * sizeof(float), NULL));
    zc_assert_result(zeKernelSetArgumentValue(kernel, 2, 0, NULL), ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE);
    zc_assert_success(zeKernelSetArgumentValue(kernel, 3, sizeof params, &params));
    zc_assert_result(zeKernelSetArgumentValue(kernel, 3, 12, &params), ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE);
    zc_assert_success(zeKernelSetArgumentValue(kernel, 4, sizeof flag, &flag));
    zc_assert_result(zeKernelSetArgumentValue(kernel, 4, 4, &flag), ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE);
    zc_assert_success(zeKernelSetArgumentValue(kernel, 5, sizeof pair, pair));
    zc_assert_result(zeKernelSetArgumentValue(kernel, 6, sizeof pair, pair),
                     ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX);
    if (zc_driver_is_fake()) {
        ze_device_compute_properties_t c = zc_compute();
        zc_assert_result(zeKernelSetArgumentValue(kernel, 2, (size_t)c.maxSharedLocalMemory + 1, NULL),
                         ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE);
    }
    zc_assert_success(zeKernelDestroy(kernel));
}

/* ------------------------------------------------------------------------------------------------------------------
 * Group sizes */

static void kernel_group_size_limits(void **state) {
    zc_fixture *f = *state;
    ze_device_compute_properties_t c = zc_compute();
    ze_kernel_handle_t kernel = zc_kernel_create(f->vadd, "vadd_float");
    zc_assert_success(zeKernelSetGroupSize(kernel, 1, 1, 1));
    zc_assert_success(zeKernelSetGroupSize(
        kernel, c.maxTotalGroupSize < c.maxGroupSizeX ? c.maxTotalGroupSize : c.maxGroupSizeX, 1, 1));
    zc_assert_result(zeKernelSetGroupSize(kernel, c.maxGroupSizeX + 1, 1, 1),
                     ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION);
    zc_assert_result(zeKernelSetGroupSize(kernel, 1, c.maxGroupSizeY + 1, 1),
                     ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION);
    zc_assert_result(zeKernelSetGroupSize(kernel, 1, 1, c.maxGroupSizeZ + 1),
                     ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION);
    zc_assert_result(zeKernelSetGroupSize(kernel, 0, 1, 1), ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION);
    if (c.maxGroupSizeX >= 2 && c.maxGroupSizeY >= 2 && (uint64_t)c.maxGroupSizeX * 2 > c.maxTotalGroupSize)
        zc_assert_result(zeKernelSetGroupSize(kernel, c.maxGroupSizeX, 2, 1),
                         ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION);
    zc_assert_success(zeKernelDestroy(kernel));
}

static void kernel_required_group_size(void **state) {
    zc_fixture *f = *state;
    ze_kernel_handle_t kernel = zc_kernel_create(f->reqd, "fixed_group");
    zc_assert_success(zeKernelSetGroupSize(kernel, 8, 4, 1));
    zc_assert_result(zeKernelSetGroupSize(kernel, 4, 4, 1), ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION);
    uint32_t x = 0, y = 0, z = 0;
    zc_assert_success(zeKernelSuggestGroupSize(kernel, 64, 64, 1, &x, &y, &z));
    assert_true(x == 8 && y == 4 && z == 1);
    zc_assert_success(zeKernelDestroy(kernel));
}

static void kernel_suggest_group_size_divides(void **state) {
    zc_fixture *f = *state;
    ze_device_compute_properties_t c = zc_compute();
    ze_kernel_handle_t kernel = zc_kernel_create(f->vadd, "vadd_int");
    const uint32_t globals[][3] = {{1, 1, 1},     {7, 1, 1},     {1000, 1, 1}, {1024, 1, 1}, {4096, 1, 1},
                                   {12345, 1, 1}, {640, 480, 1}, {64, 64, 64}, {1021, 3, 5}, {1 << 20, 1, 1}};
    for (size_t i = 0; i < ZC_COUNT(globals); i++) {
        uint32_t g[3] = {0, 0, 0};
        zc_assert_success(
            zeKernelSuggestGroupSize(kernel, globals[i][0], globals[i][1], globals[i][2], &g[0], &g[1], &g[2]));
        for (int d = 0; d < 3; d++) {
            assert_true(g[d] >= 1);
            if (globals[i][d] % g[d] != 0)
                zc_fail("global %u x %u x %u: suggested %u x %u x %u does not divide it", globals[i][0], globals[i][1],
                        globals[i][2], g[0], g[1], g[2]);
        }
        assert_true(g[0] <= c.maxGroupSizeX && g[1] <= c.maxGroupSizeY && g[2] <= c.maxGroupSizeZ);
        assert_true((uint64_t)g[0] * g[1] * g[2] <= c.maxTotalGroupSize);
        zc_assert_success(zeKernelSetGroupSize(kernel, g[0], g[1], g[2]));
    }
    uint32_t x, y, z;
    if (zc_driver_is_fake())
        zc_assert_result(zeKernelSuggestGroupSize(kernel, 0, 1, 1, &x, &y, &z),
                         ZE_RESULT_ERROR_INVALID_GLOBAL_WIDTH_DIMENSION);
    zc_assert_result(zeKernelSuggestGroupSize(kernel, 8, 1, 1, NULL, &y, &z), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_success(zeKernelDestroy(kernel));
}

static void kernel_suggest_max_cooperative_group_count(void **state) {
    zc_fixture *f = *state;
    ze_kernel_handle_t kernel = zc_kernel_create(f->vadd, "vadd_int");
    uint32_t count = 0;
    zc_assert_success(zeKernelSuggestMaxCooperativeGroupCount(kernel, &count));
    assert_true(count >= 1);
    uint32_t larger_groups = 0;
    zc_assert_success(zeKernelSetGroupSize(kernel, 256, 1, 1));
    zc_assert_success(zeKernelSuggestMaxCooperativeGroupCount(kernel, &larger_groups));
    assert_true(larger_groups >= 1 && larger_groups <= count);
    zc_assert_result(zeKernelSuggestMaxCooperativeGroupCount(kernel, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_success(zeKernelDestroy(kernel));
}

/* ------------------------------------------------------------------------------------------------------------------
 * Properties, name, attributes */

static ze_kernel_properties_t zc_kernel_props(ze_kernel_handle_t kernel, void *next) {
    ze_kernel_properties_t props;
    memset(&props, 0xA5, sizeof props);
    props.stype = ZE_STRUCTURE_TYPE_KERNEL_PROPERTIES;
    props.pNext = next;
    zc_assert_success(zeKernelGetProperties(kernel, &props));
    return props;
}

static bool zc_is_subgroup_size(uint32_t size) {
    ze_device_compute_properties_t c = zc_compute();
    for (uint32_t i = 0; i < c.numSubGroupSizes; i++) {
        if (c.subGroupSizes[i] == size)
            return true;
    }
    return false;
}

static void kernel_properties(void **state) {
    zc_fixture *f = *state;
    ze_kernel_handle_t kernel = zc_kernel_create(f->vadd, "vadd_int");
    ze_kernel_preferred_group_size_properties_t preferred = {ZE_STRUCTURE_TYPE_KERNEL_PREFERRED_GROUP_SIZE_PROPERTIES,
                                                             NULL, 0};
    ze_kernel_properties_t p = zc_kernel_props(kernel, &preferred);
    assert_int_equal(p.numKernelArgs, 3);
    assert_true(p.requiredGroupSizeX == 0 && p.requiredGroupSizeY == 0 && p.requiredGroupSizeZ == 0);
    assert_int_equal(p.requiredSubgroupSize, 0);
    assert_true(zc_is_subgroup_size(p.maxSubgroupSize));
    assert_true(p.maxNumSubgroups >= 1);
    if (zc_driver_is_fake()) {
        assert_int_equal(p.localMemSize, 0);
        assert_int_equal(p.spillMemSize, 0);
        assert_int_equal(preferred.preferredMultiple, p.maxSubgroupSize);
    }
    ze_kernel_handle_t other = zc_kernel_create(f->vadd, "vadd_float");
    ze_kernel_properties_t q = zc_kernel_props(other, NULL);
    assert_memory_equal(p.uuid.mid, q.uuid.mid, sizeof p.uuid.mid); /* the same module */
    if (zc_driver_is_fake())
        assert_memory_not_equal(p.uuid.kid, q.uuid.kid, sizeof p.uuid.kid);
    zc_assert_success(zeKernelDestroy(other));
    zc_assert_success(zeKernelDestroy(kernel));

    kernel = zc_kernel_create(f->reqd, "fixed_group");
    p = zc_kernel_props(kernel, NULL);
    assert_int_equal(p.numKernelArgs, 1);
    assert_true(p.requiredGroupSizeX == 8 && p.requiredGroupSizeY == 4 && p.requiredGroupSizeZ == 1);
    zc_assert_success(zeKernelDestroy(kernel));

    kernel = zc_kernel_create(f->local, "reduce_local");
    p = zc_kernel_props(kernel, NULL);
    assert_int_equal(p.numKernelArgs, 6);
    if (zc_driver_is_fake())
        assert_int_equal(p.localMemSize, 64 * sizeof(float)); /* its `local float partial[64]` */
    zc_assert_success(zeKernelDestroy(kernel));
}

static void kernel_name_size_semantics(void **state) {
    zc_fixture *f = *state;
    ze_kernel_handle_t kernel = zc_kernel_create(f->vadd, "vadd_float");
    size_t size = 0;
    zc_assert_success(zeKernelGetName(kernel, &size, NULL));
    assert_int_equal(size, strlen("vadd_float") + 1);
    char name[32];
    memset(name, 'x', sizeof name);
    size = sizeof name;
    zc_assert_success(zeKernelGetName(kernel, &size, name));
    assert_string_equal(name, "vadd_float");
    if (zc_driver_is_fake()) {
        char small[5];
        size = sizeof small;
        zc_assert_success(zeKernelGetName(kernel, &size, small));
        assert_int_equal(size, sizeof small);
        assert_string_equal(small, "vadd");
    }
    zc_assert_result(zeKernelGetName(kernel, NULL, name), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_success(zeKernelDestroy(kernel));
}

static char *zc_attributes(ze_kernel_handle_t kernel) {
    uint32_t size = 0;
    char *none = NULL;
    zc_assert_success(zeKernelGetSourceAttributes(kernel, &size, &none));
    assert_true(size >= 1);
    char *text = calloc(1, size + 1);
    assert_non_null(text);
    char *buffer = text;
    zc_assert_success(zeKernelGetSourceAttributes(kernel, &size, &buffer));
    return text;
}

static void kernel_source_attributes(void **state) {
    zc_fixture *f = *state;
    ze_kernel_handle_t kernel = zc_kernel_create(f->reqd, "fixed_group");
    char *text = zc_attributes(kernel);
    assert_non_null(strstr(text, "reqd_work_group_size(8,4,1)"));
    if (zc_driver_is_fake())
        assert_string_equal(text, "reqd_work_group_size(8,4,1) vec_type_hint(float4)");
    free(text);
    if (zc_driver_is_fake()) {
        /* A NULL *pString receives the kernel's own string, whose lifetime is the kernel's. */
        uint32_t size = 1;
        char *own = NULL;
        zc_assert_success(zeKernelGetSourceAttributes(kernel, &size, &own));
        assert_non_null(own);
        assert_int_equal(size, strlen(own) + 1);
    }
    uint32_t size = 0;
    if (ZE_MINOR_VERSION(ZE_API_VERSION_CURRENT) < 5) {
        zc_assert_result(zeKernelGetSourceAttributes(kernel, &size, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    } else { /* later headers: a NULL pString asks for the size */
        size = 1;
        zc_assert_success(zeKernelGetSourceAttributes(kernel, &size, NULL));
        assert_true(size >= 1);
    }
    zc_assert_success(zeKernelDestroy(kernel));
    kernel = zc_kernel_create(f->vadd, "vadd_int");
    text = zc_attributes(kernel);
    assert_string_equal(text, "");
    free(text);
    zc_assert_success(zeKernelDestroy(kernel));
}

static void kernel_indirect_access(void **state) {
    zc_fixture *f = *state;
    ze_kernel_handle_t kernel = zc_kernel_create(f->vadd, "vadd_int");
    ze_kernel_indirect_access_flags_t flags = 0xFF;
    zc_assert_success(zeKernelGetIndirectAccess(kernel, &flags));
    assert_int_equal(flags, 0);
    const ze_kernel_indirect_access_flags_t values[] = {
        ZE_KERNEL_INDIRECT_ACCESS_FLAG_HOST,
        ZE_KERNEL_INDIRECT_ACCESS_FLAG_DEVICE | ZE_KERNEL_INDIRECT_ACCESS_FLAG_SHARED, 0x7, 0};
    for (size_t i = 0; i < ZC_COUNT(values); i++) {
        zc_assert_success(zeKernelSetIndirectAccess(kernel, values[i]));
        zc_assert_success(zeKernelGetIndirectAccess(kernel, &flags));
        assert_int_equal(flags, values[i]);
    }
    zc_assert_result(zeKernelSetIndirectAccess(kernel, 0x8), ZE_RESULT_ERROR_INVALID_ENUMERATION);
    zc_assert_result(zeKernelGetIndirectAccess(kernel, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_success(zeKernelDestroy(kernel));
}

static void kernel_cache_config(void **state) {
    zc_fixture *f = *state;
    ze_kernel_handle_t kernel = zc_kernel_create(f->vadd, "vadd_int");
    const ze_cache_config_flags_t values[] = {0, ZE_CACHE_CONFIG_FLAG_LARGE_SLM, ZE_CACHE_CONFIG_FLAG_LARGE_DATA};
    for (size_t i = 0; i < ZC_COUNT(values); i++) {
        ze_result_t result = zeKernelSetCacheConfig(kernel, values[i]);
        /* The spec lets a device refuse a configuration it does not have; the fake has them all. */
        if (zc_driver_is_fake() || result != ZE_RESULT_ERROR_UNSUPPORTED_FEATURE)
            zc_assert_success(result);
    }
    zc_assert_result(zeKernelSetCacheConfig(kernel, 0x4), ZE_RESULT_ERROR_INVALID_ENUMERATION);
    zc_assert_success(zeKernelDestroy(kernel));
}

/* ------------------------------------------------------------------------------------------------------------------
 * Bad inputs */

static void kernel_bad_arguments(void **state) {
    zc_fixture *f = *state;
    ze_kernel_desc_t desc = {ZE_STRUCTURE_TYPE_KERNEL_DESC, NULL, 0, "vadd_int"};
    ze_kernel_handle_t kernel = NULL;
    zc_assert_result(zeKernelCreate(NULL, &desc, &kernel), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zeKernelCreate(f->vadd, NULL, &kernel), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zeKernelCreate(f->vadd, &desc, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    desc.pKernelName = NULL;
    zc_assert_result(zeKernelCreate(f->vadd, &desc, &kernel), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    uint32_t u = 0;
    size_t size = 0;
    ze_kernel_properties_t props = {.stype = ZE_STRUCTURE_TYPE_KERNEL_PROPERTIES};
    zc_assert_result(zeKernelDestroy(NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zeKernelSetArgumentValue(NULL, 0, 8, NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zeKernelSetGroupSize(NULL, 1, 1, 1), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zeKernelSuggestGroupSize(NULL, 1, 1, 1, &u, &u, &u), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zeKernelGetProperties(NULL, &props), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zeKernelGetName(NULL, &size, NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    kernel = zc_kernel_create(f->vadd, "vadd_int");
    zc_assert_result(zeKernelGetProperties(kernel, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_success(zeKernelDestroy(kernel));
}

static void kernel_use_after_destroy_invalid_null_handle(void **state) {
    zc_skip_unless_fake();
    zc_fixture *f = *state;
    ze_kernel_handle_t kernel = zc_kernel_create(f->vadd, "vadd_int");
    zc_assert_success(zeKernelDestroy(kernel));
    void *ptr = NULL;
    size_t size = 0;
    zc_assert_result(zeKernelSetArgumentValue(kernel, 0, sizeof ptr, &ptr), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zeKernelSetGroupSize(kernel, 1, 1, 1), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zeKernelGetName(kernel, &size, NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zeKernelDestroy(kernel), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    /* A handle of another kind is not a kernel. */
    zc_assert_result(zeKernelSetGroupSize((ze_kernel_handle_t)f->vadd, 1, 1, 1), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Intel's zexKernelGetBaseAddress (docs/extensions.md) */

typedef ze_result_t(ZE_APICALL *zc_get_base_t)(ze_kernel_handle_t, uint64_t *);

static zc_get_base_t zc_get_base_address(void) {
    zc_get_base_t fn = NULL;
    if (zeDriverGetExtensionFunctionAddress(zc_sys()->driver, "zexKernelGetBaseAddress", (void **)&fn) !=
            ZE_RESULT_SUCCESS ||
        fn == NULL)
        skip(); /* a driver without Intel's extension */
    return fn;
}

/* The bases of every kernel of a module (at most 16), its kernels kept alive in `kernels`. */
static uint32_t zc_module_bases(ze_module_handle_t module, zc_get_base_t get_base, ze_kernel_handle_t kernels[16],
                                uint64_t bases[16]) {
    uint32_t count = 0;
    zc_assert_success(zeModuleGetKernelNames(module, &count, NULL));
    const char *names[16];
    count = count < 16 ? count : 16;
    zc_assert_success(zeModuleGetKernelNames(module, &count, names));
    for (uint32_t i = 0; i < count; i++) {
        kernels[i] = zc_kernel_create(module, names[i]);
        zc_assert_success(get_base(kernels[i], &bases[i]));
        assert_true(bases[i] != 0);
        for (uint32_t j = 0; j < i; j++)
            if (bases[i] == bases[j])
                zc_fail("kernels %s and %s share the base address 0x%llx", names[j], names[i],
                        (unsigned long long)bases[i]);
    }
    return count;
}

static uint64_t zc_min_base(const uint64_t *bases, uint32_t count) {
    uint64_t min = UINT64_MAX;
    for (uint32_t i = 0; i < count; i++)
        min = bases[i] < min ? bases[i] : min;
    return min;
}

/* zefake lays a module's kernels out in a range as large as its native binary (at least), 64-byte aligned. */
static void zc_assert_laid_out_in(ze_module_handle_t module, const uint64_t *bases, uint32_t count) {
    size_t native = 0;
    zc_assert_success(zeModuleGetNativeBinary(module, &native, NULL));
    uint64_t first = zc_min_base(bases, count);
    for (uint32_t i = 0; i < count; i++) {
        assert_true(bases[i] % 64 == 0);
        assert_true(bases[i] < first + native);
    }
}

static void kernel_base_address_extension(void **state) {
    zc_fixture *f = *state;
    zc_get_base_t get_base = zc_get_base_address();
    ze_module_handle_t math = zc_module_create(f->context, zc_sys()->roots[0], "spirv_math");
    ze_kernel_handle_t kernels[2][16];
    uint64_t bases[2][16];
    uint32_t n_math = zc_module_bases(math, get_base, kernels[0], bases[0]);
    uint32_t n_vadd = zc_module_bases(f->vadd, get_base, kernels[1], bases[1]);
    assert_true(n_math > 1);
    /* The same kernel created again is the same code. */
    char name[64];
    size_t name_size = sizeof name;
    zc_assert_success(zeKernelGetName(kernels[1][0], &name_size, name));
    ze_kernel_handle_t again = zc_kernel_create(f->vadd, name);
    uint64_t base = 0;
    zc_assert_success(get_base(again, &base));
    assert_int_equal(base, bases[1][0]);
    zc_assert_result(get_base(again, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    if (zc_driver_is_fake()) {
        zc_assert_laid_out_in(math, bases[0], n_math);
        zc_assert_laid_out_in(f->vadd, bases[1], n_vadd);
        size_t native = 0; /* the two modules' ranges do not overlap */
        zc_assert_success(zeModuleGetNativeBinary(math, &native, NULL));
        uint64_t math_first = zc_min_base(bases[0], n_math), vadd_first = zc_min_base(bases[1], n_vadd);
        assert_true(vadd_first >= math_first + native || vadd_first < math_first);
        zc_assert_result(get_base((ze_kernel_handle_t)math, &base), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    }
    zc_assert_success(zeKernelDestroy(again));
    for (uint32_t i = 0; i < n_math; i++)
        zc_assert_success(zeKernelDestroy(kernels[0][i]));
    for (uint32_t i = 0; i < n_vadd; i++)
        zc_assert_success(zeKernelDestroy(kernels[1][i]));
    zc_assert_success(zeModuleDestroy(math));
}

#define ZC_FIXTURE kernel

#if ZC_L0_AT_LEAST(11)
/* zeKernelGetBinaryExp (1.11): the size, then the binary; a smaller size gets its first bytes; the same kernel gives
 * the same bytes, another kernel others. */
static void kernel_get_binary(void **state) {
    zc_fixture *f = *state;
    zc_api_require(zeKernelGetBinaryExp);
    ze_kernel_handle_t kernel = zc_kernel_create(f->vadd, "vadd_int");
    ze_kernel_handle_t other = zc_kernel_create(f->local, "reduce_local");
    uint8_t probe = 0;
    size_t size = 0;
    zc_assert_success(ZC_API(zeKernelGetBinaryExp)(kernel, &size, &probe)); /* *pSize 0: nothing copied */
    assert_int_equal(probe, 0);
    /* Intel's driver answers the size for a NULL binary (docs/tolerances.md) */
    zc_assert_success(ZC_API(zeKernelGetBinaryExp)(kernel, &size, NULL));
    assert_true(size > 0);
    uint8_t *binary = malloc(size), *again = malloc(size);
    size_t got = size + 64;
    zc_assert_success(ZC_API(zeKernelGetBinaryExp)(kernel, &got, binary));
    assert_int_equal(got, size);
    size_t half = size / 2;
    memset(again, 0, size);
    zc_assert_success(ZC_API(zeKernelGetBinaryExp)(kernel, &half, again));
    assert_int_equal(half, size / 2);
    assert_memory_equal(binary, again, half);
    size_t other_size = 0;
    if (zc_driver_is_fake()) {
        assert_int_equal(size % 16, 0); /* 16 bytes per instruction (docs/modules.md) */
        zc_assert_success(ZC_API(zeKernelGetBinaryExp)(other, &other_size, NULL));
        uint8_t *other_binary = malloc(other_size);
        zc_assert_success(ZC_API(zeKernelGetBinaryExp)(other, &other_size, other_binary));
        assert_true(other_size != size || memcmp(other_binary, binary, size) != 0);
        free(other_binary);
    }
    zc_assert_result(ZC_API(zeKernelGetBinaryExp)(NULL, &size, binary), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(ZC_API(zeKernelGetBinaryExp)(kernel, NULL, binary), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    free(binary);
    free(again);
    zc_assert_success(zeKernelDestroy(other));
    zc_assert_success(zeKernelDestroy(kernel));
}
#endif

int main(int argc, char **argv) {
    static const struct CMUnitTest tests[] = {
        ZC_T(kernel_create_destroy),
        ZC_T(kernel_create_with_flags),
        ZC_T(kernel_create_unknown_name),
        ZC_T(kernel_create_on_every_device),
        ZC_T(kernel_argument_index_and_size),
        ZC_T(kernel_argument_kinds),
        ZC_T(kernel_group_size_limits),
        ZC_T(kernel_required_group_size),
        ZC_T(kernel_suggest_group_size_divides),
        ZC_T(kernel_suggest_max_cooperative_group_count),
        ZC_T(kernel_properties),
        ZC_T(kernel_name_size_semantics),
        ZC_T(kernel_source_attributes),
        ZC_T(kernel_indirect_access),
        ZC_T(kernel_cache_config),
        ZC_T(kernel_bad_arguments),
        ZC_T(kernel_use_after_destroy_invalid_null_handle),
        ZC_T(kernel_base_address_extension),
#if ZC_L0_AT_LEAST(11)
        ZC_T(kernel_get_binary),
#endif
    };
    static const zc_suite suite = {
        ZC_EXECUTABLE, tests, ZC_COUNT(tests), zc_setup_system, zc_teardown_system, NULL, 0,
    };
    return zc_main(argc, argv, &suite);
}
