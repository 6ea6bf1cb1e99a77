/* Conformance: the extensions of the 1.4 headers a driver advertises in zeDriverGetExtensionProperties. Each test
 * skips unless its extension is advertised (on the fake, the list is exact: docs/extensions.md), then checks the happy
 * path and bad inputs. Image extensions are exercised in test_image as well; here their presence. */
#include "zc_exec.h"
#include "zc_kernel_files.h"

#include <unistd.h>

static bool zc_advertised(const char *name, uint32_t *version) {
    uint32_t n = 0;
    zc_assert_success(zeDriverGetExtensionProperties(zc_sys()->driver, &n, NULL));
    ze_driver_extension_properties_t *list = calloc(n + 1, sizeof *list);
    zc_assert_success(zeDriverGetExtensionProperties(zc_sys()->driver, &n, list));
    bool found = false;
    for (uint32_t i = 0; i < n && !found; i++) {
        found = strcmp(list[i].name, name) == 0;
        if (found && version != NULL)
            *version = list[i].version;
    }
    free(list);
    return found;
}

/* Skips the test unless `name` is advertised; on the fake it must be. */
static void zc_require_extension(const char *name) {
    if (zc_advertised(name, NULL))
        return;
    if (zc_driver_is_fake())
        zc_fail("the fake does not advertise %s", name);
    skip();
}

static void extensions_fake_list_is_exact(void **state) {
    (void)state;
    zc_skip_unless_fake();
    static const struct {
        const char *name;
        uint32_t version;
    } expected[] = {
#define ZEFAKE_EXTENSION(name, version) {name, version},
#include "zefake/zefake_extensions.def"
#undef ZEFAKE_EXTENSION
    };
    uint32_t n = 0;
    zc_assert_success(zeDriverGetExtensionProperties(zc_sys()->driver, &n, NULL));
    assert_int_equal(n, ZC_COUNT(expected));
    for (size_t i = 0; i < ZC_COUNT(expected); i++) {
        uint32_t version = 0;
        if (!zc_advertised(expected[i].name, &version))
            zc_fail("%s is not advertised", expected[i].name);
        assert_int_equal(version, expected[i].version);
    }
}

/* ------------------------------------------------------------------------------------------------------------------
 * Device properties: EU count, LUID, PCI */

static void extension_eu_count(void **state) {
    (void)state;
    zc_require_extension(ZE_EU_COUNT_EXT_NAME);
    const zc_system *sys = zc_sys();
    for (uint32_t i = 0; i < sys->num_all; i++) {
        ze_eu_count_ext_t eus = {ZE_STRUCTURE_TYPE_EU_COUNT_EXT, NULL, 0};
        ze_device_properties_t p = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES, .pNext = &eus};
        zc_assert_success(zeDeviceGetProperties(sys->all[i], &p));
        assert_int_equal(eus.numTotalEUs, p.numSlices * p.numSubslicesPerSlice * p.numEUsPerSubslice);
        assert_ptr_equal(p.pNext, &eus);
    }
}

/* Only capabilities the header defines; a device that adds and subtracts atomically also loads and stores. On the
 * fake, exactly what its execution engine runs (docs/extensions.md). */
static void extension_float_atomics(void **state) {
    (void)state;
    zc_require_extension(ZE_FLOAT_ATOMICS_EXT_NAME);
    const ze_device_fp_atomic_ext_flags_t defined = 0x7u | (0x7u << 16);
    const zc_system *sys = zc_sys();
    for (uint32_t i = 0; i < sys->num_all; i++) {
        ze_float_atomic_ext_properties_t fa = {ZE_STRUCTURE_TYPE_FLOAT_ATOMIC_EXT_PROPERTIES, NULL, ~0u, ~0u, ~0u};
        ze_device_module_properties_t p = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MODULE_PROPERTIES, .pNext = &fa};
        zc_assert_success(zeDeviceGetModuleProperties(sys->all[i], &p));
        const ze_device_fp_atomic_ext_flags_t flags[3] = {fa.fp16Flags, fa.fp32Flags, fa.fp64Flags};
        for (int k = 0; k < 3; k++) {
            assert_int_equal(flags[k] & ~defined, 0);
            if (flags[k] & ZE_DEVICE_FP_ATOMIC_EXT_FLAG_GLOBAL_ADD)
                assert_true(flags[k] & ZE_DEVICE_FP_ATOMIC_EXT_FLAG_GLOBAL_LOAD_STORE);
        }
        if (!(p.flags & ZE_DEVICE_MODULE_FLAG_FP64))
            assert_int_equal(fa.fp64Flags, 0);
        if (zc_driver_is_fake()) {
            assert_int_equal(fa.fp16Flags, 0);
            assert_int_equal(fa.fp32Flags, defined);
            assert_int_equal(fa.fp64Flags, (p.flags & ZE_DEVICE_MODULE_FLAG_FP64) ? defined : 0);
        }
    }
}

static void extension_device_luid(void **state) {
    (void)state;
    zc_require_extension(ZE_DEVICE_LUID_EXT_NAME);
    const zc_system *sys = zc_sys();
    ze_device_luid_ext_properties_t *luids = calloc(sys->num_all, sizeof *luids);
    for (uint32_t i = 0; i < sys->num_all; i++) {
        luids[i] = (ze_device_luid_ext_properties_t){.stype = ZE_STRUCTURE_TYPE_DEVICE_LUID_EXT_PROPERTIES};
        ze_device_properties_t p = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES, .pNext = &luids[i]};
        zc_assert_success(zeDeviceGetProperties(sys->all[i], &p));
        uint32_t mask = luids[i].nodeMask;
        assert_true(mask != 0 && (mask & (mask - 1)) == 0); /* exactly one bit */
        for (uint32_t j = 0; j < i; j++)
            if (memcmp(luids[i].luid.id, luids[j].luid.id, sizeof luids[i].luid.id) == 0)
                zc_fail("devices %u and %u have the same LUID", j, i);
    }
    free(luids);
}

static void extension_pci_properties(void **state) {
    (void)state;
    zc_require_extension(ZE_PCI_PROPERTIES_EXT_NAME);
    const zc_system *sys = zc_sys();
    ze_pci_ext_properties_t *roots = calloc(sys->num_roots, sizeof *roots);
    for (uint32_t r = 0; r < sys->num_roots; r++) {
        roots[r].stype = ZE_STRUCTURE_TYPE_PCI_EXT_PROPERTIES;
        zc_assert_success(zeDevicePciGetPropertiesExt(sys->roots[r], &roots[r]));
        assert_true(roots[r].address.device < 32 && roots[r].address.function < 8);
        assert_true(roots[r].maxSpeed.genVersion == -1 || roots[r].maxSpeed.genVersion > 0);
        for (uint32_t j = 0; j < r; j++)
            if (memcmp(&roots[r].address, &roots[j].address, sizeof roots[r].address) == 0)
                zc_fail("root devices %u and %u have the same PCI address", j, r);
        for (uint32_t s = 0; s < sys->num_subdevices[r]; s++) { /* tiles sit behind their card */
            ze_pci_ext_properties_t tile = {.stype = ZE_STRUCTURE_TYPE_PCI_EXT_PROPERTIES};
            zc_assert_success(zeDevicePciGetPropertiesExt(sys->subdevices[r][s], &tile));
            assert_memory_equal(&tile.address, &roots[r].address, sizeof tile.address);
        }
    }
    zc_assert_result(zeDevicePciGetPropertiesExt(sys->roots[0], NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zeDevicePciGetPropertiesExt(NULL, &roots[0]), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    free(roots);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Cache reservation */

static void extension_cache_reservation(void **state) {
    zc_exec *x = *state;
    zc_require_extension(ZE_CACHE_RESERVATION_EXT_NAME);
    uint32_t n = 4;
    ze_cache_reservation_ext_desc_t reservation[4];
    ze_device_cache_properties_t caches[4];
    for (uint32_t i = 0; i < n; i++) {
        reservation[i] = (ze_cache_reservation_ext_desc_t){ZE_STRUCTURE_TYPE_CACHE_RESERVATION_EXT_DESC, NULL, 1234};
        caches[i] = (ze_device_cache_properties_t){.stype = ZE_STRUCTURE_TYPE_DEVICE_CACHE_PROPERTIES,
                                                   .pNext = &reservation[i]};
    }
    zc_assert_success(zeDeviceGetCacheProperties(x->device, &n, caches));
    uint32_t reservable = UINT32_MAX;
    for (uint32_t i = 0; i < n; i++) {
        assert_true(reservation[i].maxCacheReservationSize <= caches[i].cacheSize);
        if (reservation[i].maxCacheReservationSize > 0 && reservable == UINT32_MAX)
            reservable = i;
    }
    void *ptr = zc_device_alloc(x, 1u << 16);
    if (reservable != UINT32_MAX) {
        size_t max = reservation[reservable].maxCacheReservationSize;
        zc_assert_success(zeDeviceReserveCacheExt(x->device, reservable + 1, max / 2));
        zc_assert_success(zeDeviceSetCacheAdviceExt(x->device, ptr, 1, ZE_CACHE_EXT_REGION_ZE_CACHE_RESERVE_REGION));
        zc_assert_success(zeDeviceReserveCacheExt(x->device, reservable + 1, 0)); /* removes it */
        if (zc_driver_is_fake()) {
            zc_assert_result(zeDeviceReserveCacheExt(x->device, reservable + 1, max + 1),
                             ZE_RESULT_ERROR_UNSUPPORTED_SIZE);
            zc_assert_result(zeDeviceSetCacheAdviceExt(x->device, ptr, 1, ZE_CACHE_EXT_REGION_ZE_CACHE_RESERVE_REGION),
                             ZE_RESULT_ERROR_INVALID_ARGUMENT); /* nothing reserved any more */
        }
    }
    zc_assert_success(zeDeviceSetCacheAdviceExt(x->device, ptr, 1, ZE_CACHE_EXT_REGION_ZE_CACHE_NON_RESERVED_REGION));
    zc_assert_result(zeDeviceSetCacheAdviceExt(x->device, NULL, 1, ZE_CACHE_EXT_REGION_ZE_CACHE_REGION_DEFAULT),
                     ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zeDeviceSetCacheAdviceExt(x->device, ptr, 1, (ze_cache_ext_region_t)3),
                     ZE_RESULT_ERROR_INVALID_ENUMERATION);
    zc_assert_result(zeDeviceReserveCacheExt(NULL, 0, 0), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    if (zc_driver_is_fake()) {
        zc_assert_result(zeDeviceReserveCacheExt(x->device, n + 1, 64), ZE_RESULT_ERROR_INVALID_ARGUMENT);
        for (uint32_t i = 0; i < n; i++)
            if (reservation[i].maxCacheReservationSize == 0)
                zc_assert_result(zeDeviceReserveCacheExt(x->device, i + 1, 64), ZE_RESULT_ERROR_UNSUPPORTED_FEATURE);
    }
    zc_free(x, ptr);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Kernels: global offset, scheduling hints */

static void extension_global_offset(void **state) {
    zc_exec *x = *state;
    zc_require_extension(ZE_GLOBAL_OFFSET_EXP_NAME);
    ze_module_handle_t module = zc_module_create(x->context, x->device, "fill");
    ze_kernel_handle_t kernel = zc_kernel_create(module, "fill");
    int32_t *data = zc_host_alloc(x, 16 * sizeof(int32_t));
    memset(data, 0, 16 * sizeof(int32_t));
    int32_t value = 7;
    zc_assert_success(zeKernelSetArgumentValue(kernel, 0, sizeof data, &data));
    zc_assert_success(zeKernelSetArgumentValue(kernel, 1, sizeof value, &value));
    zc_assert_success(zeKernelSetGroupSize(kernel, 4, 1, 1));
    zc_assert_success(zeKernelSetGlobalOffsetExp(kernel, 8, 0, 0));
    ze_group_count_t groups = {2, 1, 1}; /* items 8..15 */
    ze_command_list_handle_t list = zc_immediate(x, x->compute_ordinal, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
    zc_assert_success(zeCommandListAppendLaunchKernel(list, kernel, &groups, NULL, 0, NULL));
    if (zc_driver_is_fake()) /* zefake computes the built-in fill kernel's result (docs/builtin-kernels.md) */
        for (int i = 0; i < 16; i++)
            assert_int_equal(data[i], i < 8 ? 0 : 7);
    zc_assert_result(zeKernelSetGlobalOffsetExp(NULL, 0, 0, 0), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_success(zeCommandListDestroy(list));
    zc_assert_success(zeKernelDestroy(kernel));
    zc_assert_success(zeModuleDestroy(module));
    zc_free(x, data);
}

static void extension_scheduling_hints(void **state) {
    zc_exec *x = *state;
    zc_require_extension(ZE_KERNEL_SCHEDULING_HINTS_EXP_NAME);
    ze_scheduling_hint_exp_properties_t hints = {ZE_STRUCTURE_TYPE_SCHEDULING_HINT_EXP_PROPERTIES, NULL, 0};
    ze_device_module_properties_t p = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MODULE_PROPERTIES, .pNext = &hints};
    zc_assert_success(zeDeviceGetModuleProperties(x->device, &p));
    assert_int_equal(hints.schedulingHintFlags & ~0x7u, 0);
    ze_module_handle_t module = zc_module_create(x->context, x->device, "empty");
    uint32_t count = 1;
    const char *name = NULL;
    zc_assert_success(zeModuleGetKernelNames(module, &count, &name));
    ze_kernel_handle_t kernel = zc_kernel_create(module, name);
    for (uint32_t bit = 1; bit <= 4; bit <<= 1) {
        if (!(hints.schedulingHintFlags & bit))
            continue;
        ze_scheduling_hint_exp_desc_t hint = {ZE_STRUCTURE_TYPE_SCHEDULING_HINT_EXP_DESC, NULL, bit};
        zc_assert_success(zeKernelSchedulingHintExp(kernel, &hint));
    }
    ze_scheduling_hint_exp_desc_t bad = {ZE_STRUCTURE_TYPE_SCHEDULING_HINT_EXP_DESC, NULL, 0x8};
    zc_assert_result(zeKernelSchedulingHintExp(kernel, &bad), ZE_RESULT_ERROR_INVALID_ENUMERATION);
    zc_assert_result(zeKernelSchedulingHintExp(kernel, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zeKernelSchedulingHintExp(NULL, &bad), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    if (zc_driver_is_fake()) {
        assert_int_equal(hints.schedulingHintFlags, 0x7);
        ze_scheduling_hint_exp_desc_t wrong = {ZE_STRUCTURE_TYPE_KERNEL_DESC, NULL, 1};
        zc_assert_result(zeKernelSchedulingHintExp(kernel, &wrong), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    }
    zc_assert_success(zeKernelDestroy(kernel));
    zc_assert_success(zeModuleDestroy(module));
}

/* ------------------------------------------------------------------------------------------------------------------
 * Events: timestamps per device */

static void extension_event_query_timestamps(void **state) {
    zc_exec *x = *state;
    zc_require_extension(ZE_EVENT_QUERY_TIMESTAMPS_EXP_NAME);
    ze_event_pool_handle_t pool = zc_event_pool(x, 2, ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP);
    ze_event_handle_t event = zc_event(pool, 0), pending = zc_event(pool, 1);
    ze_command_list_handle_t list = zc_immediate(x, x->compute_ordinal, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
    zc_assert_success(zeCommandListAppendBarrier(list, event, 0, NULL));
    zc_assert_success(zeEventHostSynchronize(event, UINT64_MAX));
    uint32_t count = 0;
    zc_assert_success(zeEventQueryTimestampsExp(event, x->device, &count, NULL));
    assert_true(count >= 1);
    ze_kernel_timestamp_result_t *results = calloc(count, sizeof *results), plain;
    zc_assert_success(zeEventQueryTimestampsExp(event, x->device, &count, results));
    zc_assert_success(zeEventQueryKernelTimestamp(event, &plain));
    if (zc_driver_is_fake()) { /* one command, one engine: the event's own timestamps */
        assert_int_equal(count, 1);
        assert_memory_equal(&results[0], &plain, sizeof plain);
        zc_assert_result(zeEventQueryTimestampsExp(pending, x->device, &count, results), ZE_RESULT_NOT_READY);
        ze_event_pool_handle_t plain_pool = zc_event_pool(x, 1, 0);
        ze_event_handle_t untimed = zc_event(plain_pool, 0);
        zc_assert_success(zeEventHostSignal(untimed));
        zc_assert_result(zeEventQueryTimestampsExp(untimed, x->device, &count, results),
                         ZE_RESULT_ERROR_INVALID_ARGUMENT);
        zc_assert_success(zeEventDestroy(untimed));
        zc_assert_success(zeEventPoolDestroy(plain_pool));
    }
    zc_assert_result(zeEventQueryTimestampsExp(event, x->device, NULL, results), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zeEventQueryTimestampsExp(event, NULL, &count, results), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    free(results);
    zc_assert_success(zeCommandListDestroy(list));
    zc_assert_success(zeEventDestroy(event));
    zc_assert_success(zeEventDestroy(pending));
    zc_assert_success(zeEventPoolDestroy(pool));
}

/* ------------------------------------------------------------------------------------------------------------------
 * Modules: linkage inspection */

static void extension_linkage_inspection(void **state) {
    zc_exec *x = *state;
    zc_require_extension(ZE_LINKAGE_INSPECTION_EXT_NAME);
    ze_module_handle_t modules[2] = {zc_module_create(x->context, x->device, "import"),
                                     zc_module_create(x->context, x->device, "export")};
    ze_linkage_inspection_ext_desc_t desc = {ZE_STRUCTURE_TYPE_LINKAGE_INSPECTION_EXT_DESC, NULL,
                                             ZE_LINKAGE_INSPECTION_EXT_FLAG_IMPORTS |
                                                 ZE_LINKAGE_INSPECTION_EXT_FLAG_UNRESOLVABLE_IMPORTS |
                                                 ZE_LINKAGE_INSPECTION_EXT_FLAG_EXPORTS};
    ze_module_build_log_handle_t log = NULL;
    zc_assert_success(zeModuleInspectLinkageExt(&desc, 2, modules, &log));
    char *text = zc_build_log_text(log);
    if (strstr(text, "add_one") == NULL || strstr(text, "shared_total") == NULL)
        zc_fail("the linkage log does not name the imports and exports: %s", text);
    if (zc_driver_is_fake()) {
        const char *unresolvable = strstr(text, "Unresolvable Import Symbol Names:\n");
        const char *exports = strstr(text, "Export Symbol Names:\n");
        assert_non_null(unresolvable);
        assert_non_null(exports);
        /* Both modules together resolve every import: the unresolvable list is empty. */
        assert_ptr_equal(unresolvable + strlen("Unresolvable Import Symbol Names:\n"), exports);
    }
    free(text);
    zc_assert_success(zeModuleBuildLogDestroy(log));
    if (zc_driver_is_fake()) {
        /* The importer alone: its imports cannot be resolved. */
        zc_assert_success(zeModuleInspectLinkageExt(&desc, 1, modules, &log));
        text = zc_build_log_text(log);
        const char *unresolvable = strstr(text, "Unresolvable Import Symbol Names:\n");
        const char *exports = strstr(text, "Export Symbol Names:\n");
        const char *add_one = strstr(text, "\tadd_one\n");
        const char *unresolved_add_one = add_one != NULL ? strstr(add_one + 1, "\tadd_one\n") : NULL;
        /* add_one is listed twice (imports, unresolvable imports), the second time before the exports. */
        if (unresolvable == NULL || exports == NULL || unresolved_add_one == NULL ||
            unresolved_add_one < unresolvable || unresolved_add_one > exports)
            zc_fail("the importer alone does not list add_one as unresolvable: %s", text);
        free(text);
        zc_assert_success(zeModuleBuildLogDestroy(log));
        ze_linkage_inspection_ext_desc_t wrong = desc;
        wrong.stype = ZE_STRUCTURE_TYPE_MODULE_DESC;
        zc_assert_result(zeModuleInspectLinkageExt(&wrong, 2, modules, &log), ZE_RESULT_ERROR_INVALID_ARGUMENT);
        ze_module_handle_t with_null[2] = {modules[0], NULL};
        zc_assert_result(zeModuleInspectLinkageExt(&desc, 2, with_null, &log), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    }
    desc.flags = 0x8;
    zc_assert_result(zeModuleInspectLinkageExt(&desc, 2, modules, &log), ZE_RESULT_ERROR_INVALID_ENUMERATION);
    zc_assert_result(zeModuleInspectLinkageExt(NULL, 2, modules, &log), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zeModuleInspectLinkageExt(&desc, 2, modules, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_success(zeModuleDestroy(modules[0]));
    zc_assert_success(zeModuleDestroy(modules[1]));
}

/* ------------------------------------------------------------------------------------------------------------------
 * Memory: relaxed limits, compression hints, free policies */

static void extension_relaxed_allocation_limits(void **state) {
    zc_exec *x = *state;
    zc_require_extension(ZE_RELAXED_ALLOCATION_LIMITS_EXP_NAME);
    ze_device_properties_t p = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
    zc_assert_success(zeDeviceGetProperties(x->device, &p));
    uint32_t n = 1;
    ze_device_memory_properties_t memory = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MEMORY_PROPERTIES};
    zc_assert_success(zeDeviceGetMemoryProperties(x->device, &n, &memory));
    if (memory.totalSize <= p.maxMemAllocSize)
        skip(); /* nothing between the limit and the capacity to allocate */
    ze_relaxed_allocation_limits_exp_desc_t relaxed = {ZE_STRUCTURE_TYPE_RELAXED_ALLOCATION_LIMITS_EXP_DESC, NULL,
                                                       ZE_RELAXED_ALLOCATION_LIMITS_EXP_FLAG_MAX_SIZE};
    ze_device_mem_alloc_desc_t desc = {ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, &relaxed, 0, 0};
    void *ptr = NULL;
    zc_assert_success(zeMemAllocDevice(x->context, &desc, (size_t)p.maxMemAllocSize + 4096, 0, x->device, &ptr));
    zc_free(x, ptr);
    relaxed.flags = 0x2;
    if (zc_driver_is_fake())
        zc_assert_result(zeMemAllocDevice(x->context, &desc, 4096, 0, x->device, &ptr),
                         ZE_RESULT_ERROR_INVALID_ENUMERATION);
}

static void extension_memory_compression_hints(void **state) {
    zc_exec *x = *state;
    zc_require_extension(ZE_MEMORY_COMPRESSION_HINTS_EXT_NAME);
    ze_memory_compression_hints_ext_desc_t hint = {ZE_STRUCTURE_TYPE_MEMORY_COMPRESSION_HINTS_EXT_DESC, NULL,
                                                   ZE_MEMORY_COMPRESSION_HINTS_EXT_FLAG_COMPRESSED};
    ze_device_mem_alloc_desc_t desc = {ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, &hint, 0, 0};
    void *ptr = NULL;
    zc_assert_success(zeMemAllocDevice(x->context, &desc, 4096, 0, x->device, &ptr));
    zc_free(x, ptr);
    hint.flags = ZE_MEMORY_COMPRESSION_HINTS_EXT_FLAG_UNCOMPRESSED;
    ze_host_mem_alloc_desc_t host = {ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, &hint, 0};
    zc_assert_success(zeMemAllocHost(x->context, &host, 4096, 0, &ptr));
    zc_free(x, ptr);
    if (!zc_driver_is_fake())
        return;
    hint.flags = ZE_MEMORY_COMPRESSION_HINTS_EXT_FLAG_COMPRESSED | ZE_MEMORY_COMPRESSION_HINTS_EXT_FLAG_UNCOMPRESSED;
    zc_assert_result(zeMemAllocDevice(x->context, &desc, 4096, 0, x->device, &ptr), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    hint.flags = 0x4;
    zc_assert_result(zeMemAllocDevice(x->context, &desc, 4096, 0, x->device, &ptr),
                     ZE_RESULT_ERROR_INVALID_ENUMERATION);
}

static void extension_memory_free_policies(void **state) {
    zc_exec *x = *state;
    zc_require_extension(ZE_MEMORY_FREE_POLICIES_EXT_NAME);
    ze_driver_memory_free_ext_properties_t policies = {ZE_STRUCTURE_TYPE_DRIVER_MEMORY_FREE_EXT_PROPERTIES, NULL, 0};
    ze_driver_properties_t p = {.stype = ZE_STRUCTURE_TYPE_DRIVER_PROPERTIES, .pNext = &policies};
    zc_assert_success(zeDriverGetProperties(zc_sys()->driver, &p));
    assert_int_equal(policies.freePolicies & ~0x3u, 0);
    for (uint32_t policy = 1; policy <= 2; policy++) {
        if (!(policies.freePolicies & policy))
            continue;
        void *ptr = zc_device_alloc(x, 4096);
        ze_memory_free_ext_desc_t desc = {ZE_STRUCTURE_TYPE_MEMORY_FREE_EXT_DESC, NULL, policy};
        zc_assert_success(zeMemFreeExt(x->context, &desc, ptr));
    }
    if (zc_driver_is_fake())
        assert_int_equal(policies.freePolicies, ZE_DRIVER_MEMORY_FREE_POLICY_EXT_FLAG_BLOCKING_FREE |
                                                    ZE_DRIVER_MEMORY_FREE_POLICY_EXT_FLAG_DEFER_FREE);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Image extensions: present, and their functions answer (test_image checks them in depth) */

static void extension_image_functions_answer(void **state) {
    zc_exec *x = *state;
    zc_require_extension(ZE_IMAGE_MEMORY_PROPERTIES_EXP_NAME);
    zc_require_extension(ZE_IMAGE_QUERY_ALLOC_PROPERTIES_EXT_NAME);
    zc_require_extension(ZE_IMAGE_VIEW_EXP_NAME);
    zc_require_extension(ZE_IMAGE_VIEW_PLANAR_EXP_NAME);
    zc_require_extension(ZE_IMAGE_COPY_EXT_NAME);
    zc_require_extension(ZE_SRGB_EXT_NAME);
    ze_srgb_ext_desc_t srgb = {ZE_STRUCTURE_TYPE_SRGB_EXT_DESC, NULL, 1};
    ze_image_desc_t desc = {ZE_STRUCTURE_TYPE_IMAGE_DESC,
                            &srgb,
                            0,
                            ZE_IMAGE_TYPE_2D,
                            {ZE_IMAGE_FORMAT_LAYOUT_8_8_8_8, ZE_IMAGE_FORMAT_TYPE_UNORM, ZE_IMAGE_FORMAT_SWIZZLE_R,
                             ZE_IMAGE_FORMAT_SWIZZLE_G, ZE_IMAGE_FORMAT_SWIZZLE_B, ZE_IMAGE_FORMAT_SWIZZLE_A},
                            16,
                            16,
                            1,
                            1,
                            0};
    ze_image_handle_t image = NULL, view = NULL;
    zc_assert_success(zeImageCreate(x->context, x->device, &desc, &image));
    desc.pNext = NULL;
    zc_assert_success(zeImageViewCreateExp(x->context, x->device, &desc, image, &view));
    ze_image_memory_properties_exp_t memory = {.stype = ZE_STRUCTURE_TYPE_IMAGE_MEMORY_EXP_PROPERTIES};
    zc_assert_success(zeImageGetMemoryPropertiesExp(view, &memory));
    assert_true(memory.size >= 16 * 16 * 4);
    ze_image_allocation_ext_properties_t alloc = {.stype = ZE_STRUCTURE_TYPE_IMAGE_ALLOCATION_EXT_PROPERTIES};
    zc_assert_success(zeImageGetAllocPropertiesExt(x->context, image, &alloc));
    uint8_t *host = zc_host_alloc(x, 16 * 16 * 4 * 2);
    ze_command_list_handle_t list = zc_immediate(x, x->compute_ordinal, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
    zc_assert_success(zeCommandListAppendImageCopyToMemoryExt(list, host, image, NULL, 16 * 4 * 2, 0, NULL, 0, NULL));
    zc_assert_success(zeCommandListAppendImageCopyFromMemoryExt(list, image, host, NULL, 16 * 4 * 2, 0, NULL, 0, NULL));
    zc_assert_result(zeImageViewCreateExp(x->context, x->device, &desc, NULL, &view),
                     ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_success(zeCommandListDestroy(list));
    zc_free(x, host);
    zc_assert_success(zeImageDestroy(view));
    zc_assert_success(zeImageDestroy(image));
}

/* ------------------------------------------------------------------------------------------------------------------
 * Core queries the issue lists with the extensions: system barrier */

static void context_system_barrier(void **state) {
    zc_exec *x = *state;
    zc_assert_success(zeContextSystemBarrier(x->context, x->device));
    zc_assert_result(zeContextSystemBarrier(NULL, x->device), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zeContextSystemBarrier(x->context, NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    const zc_system *sys = zc_sys();
    if (!zc_driver_is_fake() || sys->num_roots < 2)
        return;
    ze_context_desc_t cd = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0};
    ze_context_handle_t first_only = NULL;
    zc_assert_success(zeContextCreateEx(sys->driver, &cd, 1, &sys->roots[0], &first_only));
    zc_assert_result(zeContextSystemBarrier(first_only, sys->roots[1]), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    zc_assert_success(zeContextDestroy(first_only));
}

int main(int argc, char **argv) {
    static const struct CMUnitTest tests[] = {
#define ZC_FIXTURE exec
        cmocka_unit_test(extensions_fake_list_is_exact),
        cmocka_unit_test(extension_eu_count),
        cmocka_unit_test(extension_device_luid),
        cmocka_unit_test(extension_float_atomics),
        cmocka_unit_test(extension_pci_properties),
        ZC_T(extension_cache_reservation),
        ZC_T(extension_global_offset),
        ZC_T(extension_scheduling_hints),
        ZC_T(extension_event_query_timestamps),
        ZC_T(extension_linkage_inspection),
        ZC_T(extension_relaxed_allocation_limits),
        ZC_T(extension_memory_compression_hints),
        ZC_T(extension_memory_free_policies),
        ZC_T(extension_image_functions_answer),
        ZC_T(context_system_barrier),
#undef ZC_FIXTURE
    };
    static const zc_suite suite = {ZC_EXECUTABLE, tests, ZC_COUNT(tests), zc_setup_system, zc_teardown_system, NULL, 0};
    return zc_main(argc, argv, &suite);
}
