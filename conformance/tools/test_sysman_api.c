/* Conformance: sysman's API of Level Zero 1.5 and later (zes_api.h), and the extension structures the 1.4 getters
 * fill. zesInit initialises sysman without ZES_ENABLE_SYSMAN, before and without zeInit (checked in a child process
 * that unsets the variable, through the driver's own dispatch tables since a loader older than 1.5 refuses sysman
 * calls before zeInit); the sysman drivers and devices, extensions and their functions, the device mapping of UUIDs,
 * resets with properties, RAS categories, firmware, overclocking and virtual functions answer with the header's
 * count semantics and refuse bad inputs. The rest of the suite runs in the legacy model (ctest sets
 * ZES_ENABLE_SYSMAN=1). The fake's exact answers (docs/sysman.md) are checked where the test says so. */
#include "zc_exec.h"
#include "zc_sysman.h"

#include <string.h>
#include <unistd.h>

/* docs/sysman.md, "Power": a card's domain, then a domain per tile. */
static void zc_check_power_ext(zes_pwr_handle_t power) {
    zes_power_limit_ext_desc_t limit = {.stype = ZES_STRUCTURE_TYPE_POWER_LIMIT_EXT_DESC};
    zes_power_ext_properties_t ext = {
        .stype = ZES_STRUCTURE_TYPE_POWER_EXT_PROPERTIES, .domain = (zes_power_domain_t)0x77, .defaultLimit = &limit};
    zes_power_properties_t p = {.stype = ZES_STRUCTURE_TYPE_POWER_PROPERTIES, .pNext = &ext};
#if ZC_L0_AT_LEAST(8)
    zes_power_domain_exp_properties_t domain = {.stype = ZES_STRUCTURE_TYPE_POWER_DOMAIN_EXP_PROPERTIES};
    ext.pNext = &domain;
#endif
    zc_assert_success(zesPowerGetProperties(power, &p));
    assert_int_not_equal(ext.domain, 0x77); /* filled */
#if ZC_L0_AT_LEAST(8)
    assert_int_equal(domain.powerDomain, ext.domain);
#endif
    if (!zc_driver_is_fake())
        return;
    assert_int_equal(ext.domain, p.onSubdevice ? ZES_POWER_DOMAIN_STACK : ZES_POWER_DOMAIN_CARD);
    assert_int_equal(limit.limit, p.defaultLimit);
    assert_int_equal(limit.level, p.onSubdevice ? ZES_POWER_LEVEL_UNKNOWN : ZES_POWER_LEVEL_SUSTAINED);
    assert_true(limit.limitValueLocked && limit.enabledStateLocked && limit.intervalValueLocked);
    assert_int_equal(limit.interval, p.onSubdevice ? -1 : 1000);
    /* docs/chains.md: an output structure without its stype keeps its chain untouched. */
    zes_power_ext_properties_t kept = {.stype = ZES_STRUCTURE_TYPE_POWER_EXT_PROPERTIES, .domain = 0x77};
    zes_power_properties_t wrong = {.stype = 0, .pNext = &kept};
    zc_assert_success(zesPowerGetProperties(power, &wrong));
    assert_int_equal(kept.domain, 0x77);
    assert_int_equal(wrong.defaultLimit, p.defaultLimit);
}

/* zes_power_ext_properties_t (1.4) and zes_power_domain_exp_properties_t (1.8) in zesPowerGetProperties. */
static void sysman_power_ext_properties(void **state) {
    (void)state;
    const zc_system *sys = zc_sys();
    for (uint32_t d = 0; d < sys->num_all; d++) {
        uint32_t count = 0;
        zes_pwr_handle_t *domains = zc_handles((zes_device_handle_t)sys->all[d], (zc_enum_fn)zesDeviceEnumPowerDomains,
                                               "zesDeviceEnumPowerDomains", &count);
        for (uint32_t i = 0; i < count; i++)
            zc_check_power_ext(domains[i]);
        free(domains);
    }
}

#if ZC_L0_AT_LEAST(7)
static ze_device_properties_t zc_core_props(ze_device_handle_t device) {
    ze_device_properties_t p = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
    zc_assert_success(zeDeviceGetProperties(device, &p));
    return p;
}

/* zes_device_ext_properties_t: "uuid obtained from Sysman API is the same as from core API". */
static void sysman_device_ext_properties(void **state) {
    (void)state;
    const zc_system *sys = zc_sys();
    for (uint32_t d = 0; d < sys->num_all; d++) {
        ze_device_properties_t core = zc_core_props(sys->all[d]);
        zes_device_ext_properties_t ext = {.stype = ZES_STRUCTURE_TYPE_DEVICE_EXT_PROPERTIES};
        zes_device_properties_t p = {.stype = ZES_STRUCTURE_TYPE_DEVICE_PROPERTIES, .pNext = &ext};
        zc_assert_success(zesDeviceGetProperties((zes_device_handle_t)sys->all[d], &p));
        assert_memory_equal(ext.uuid.id, core.uuid.id, sizeof ext.uuid.id);
        if (core.type == ZE_DEVICE_TYPE_GPU)
            assert_int_equal(ext.type, ZES_DEVICE_TYPE_GPU);
        if (zc_driver_is_fake()) /* docs/sysman.md: the core's type and flags */
            assert_int_equal(ext.flags, core.flags);
    }
}

/* zes_engine_ext_properties_t: the fake's cards run without virtual functions. */
static void sysman_engine_ext_properties(void **state) {
    (void)state;
    zes_device_handle_t device = (zes_device_handle_t)zc_sys()->roots[0];
    uint32_t count = 0;
    zes_engine_handle_t *engines =
        zc_handles(device, (zc_enum_fn)zesDeviceEnumEngineGroups, "zesDeviceEnumEngineGroups", &count);
    for (uint32_t i = 0; i < count; i++) {
        zes_engine_ext_properties_t ext = {.stype = ZES_STRUCTURE_TYPE_ENGINE_EXT_PROPERTIES,
                                           .countOfVirtualFunctionInstance = 7};
        zes_engine_properties_t p = {.stype = ZES_STRUCTURE_TYPE_ENGINE_PROPERTIES, .pNext = &ext};
        zc_assert_success(zesEngineGetProperties(engines[i], &p));
        if (zc_driver_is_fake())
            assert_int_equal(ext.countOfVirtualFunctionInstance, 0);
    }
    free(engines);
}
#endif

#if ZC_L0_AT_LEAST(8)
static void sysman_memory_counter_bits(void **state) {
    (void)state;
    zes_mem_handle_t module = zc_memory_module((zes_device_handle_t)zc_sys()->roots[0]);
    zes_mem_bandwidth_counter_bits_exp_properties_t bits = {
        .stype = ZES_STRUCTURE_TYPE_MEM_BANDWIDTH_COUNTER_BITS_EXP_PROPERTIES};
    zes_mem_properties_t p = {.stype = ZES_STRUCTURE_TYPE_MEM_PROPERTIES, .pNext = &bits};
    zc_assert_success(zesMemoryGetProperties(module, &p));
    assert_true(bits.validBitsCount >= 1 && bits.validBitsCount <= 64);
    if (zc_driver_is_fake()) /* docs/sysman.md: 64-bit byte counters */
        assert_int_equal(bits.validBitsCount, 64);
}
#endif

#if ZC_L0_AT_LEAST(5)

/* Sysman calls of this process: through ZC_API, or in the zesInit child through the driver's tables alone. */
static bool zc_direct;
#define ZC_SM(fn) (zc_direct ? ZC_DRIVER_API(fn) : ZC_API(fn))

static ze_result_t zc_drivers_call(void *ctx, uint32_t *count, void *items) {
    (void)ctx;
    return ZC_SM(zesDriverGet)(count, items);
}

static ze_result_t zc_devices_call(void *ctx, uint32_t *count, void *items) {
    return ZC_SM(zesDeviceGet)((zes_driver_handle_t)ctx, count, items);
}

/* The first sysman driver, after checking the count semantics of zesDriverGet. */
static zes_driver_handle_t zc_sysman_driver(void) {
    zc_count_query q = {"zesDriverGet", zc_drivers_call, NULL, sizeof(zes_driver_handle_t), NULL};
    zc_check_count_semantics(&q);
    uint32_t count = 0;
    zes_driver_handle_t *drivers = zc_query_all(&q, &count);
    assert_true(count >= 1);
    zes_driver_handle_t driver = drivers[0];
    free(drivers);
    return driver;
}

/* The sysman devices of a driver, after checking the count semantics of zesDeviceGet. */
static zes_device_handle_t *zc_sysman_devices(zes_driver_handle_t driver, uint32_t *count) {
    zc_count_query q = {"zesDeviceGet", zc_devices_call, driver, sizeof(zes_device_handle_t), NULL};
    zc_check_count_semantics(&q);
    zes_device_handle_t *devices = zc_query_all(&q, count);
    assert_true(*count >= 1);
    return devices;
}

static zes_device_properties_t zc_sysman_props(zes_device_handle_t device) {
    zes_device_properties_t p = {.stype = ZES_STRUCTURE_TYPE_DEVICE_PROPERTIES};
    zc_assert_success(ZC_SM(zesDeviceGetProperties)(device, &p));
    return p;
}

/* The tiles the core reports whatever the hierarchy: a root device's sub-devices, or the root when it has none. */
static uint32_t zc_core_tiles(void) {
    const zc_system *sys = zc_sys();
    uint32_t tiles = 0;
    for (uint32_t r = 0; r < sys->num_roots; r++)
        tiles += sys->num_subdevices[r] > 0 ? sys->num_subdevices[r] : 1;
    return tiles;
}

/* Legacy model (ZES_ENABLE_SYSMAN=1 and zeInit): zesDriverGet and zesDeviceGet answer too, as the header says. */
static void sysman_drivers_and_devices(void **state) {
    (void)state;
    zc_api_require(zesDriverGet);
    zc_api_require(zesDeviceGet);
    zes_driver_handle_t driver = zc_sysman_driver();
    uint32_t count = 0;
    zes_device_handle_t *devices = zc_sysman_devices(driver, &count);
    uint32_t tiles = 0;
    for (uint32_t i = 0; i < count; i++) {
        zes_device_properties_t p = zc_sysman_props(devices[i]);
        assert_int_equal(p.core.flags & ZE_DEVICE_PROPERTY_FLAG_SUBDEVICE, 0); /* a device, not a sub-device */
        tiles += p.numSubdevices > 0 ? p.numSubdevices : 1;
    }
    /* docs/sysman.md: the cards, whatever ZE_FLAT_DEVICE_HIERARCHY says, and the fake's sysman driver is its driver */
    if (zc_driver_is_fake()) {
        assert_ptr_equal(driver, zc_sys()->driver);
        assert_int_equal(tiles, zc_core_tiles());
    }
    free(devices);
}

/* zesInit after the legacy initialisation: sysman is already initialised, and stays as it is. */
static void sysman_init_is_idempotent(void **state) {
    (void)state;
    zc_api_require(zesInit);
    uint32_t before = 0, after = 0;
    zes_device_handle_t *devices = zc_sysman_devices(zc_sysman_driver(), &before);
    zc_assert_success(ZC_API(zesInit)(0));
    zc_assert_success(ZC_API(zesInit)(ZES_INIT_FLAG_PLACEHOLDER));
    zc_assert_result(ZC_API(zesInit)(0x2), ZE_RESULT_ERROR_INVALID_ENUMERATION);
    zes_device_handle_t *again = zc_sysman_devices(zc_sysman_driver(), &after);
    assert_int_equal(after, before);
    assert_memory_equal(again, devices, before * sizeof *devices);
    free(devices);
    free(again);
}

/* The zesInit child: no ZES_ENABLE_SYSMAN, no zeInit before the sysman calls. Prints skip=1 when the driver's tables
 * cannot be reached. */
static int zc_zesinit_child(int argc, char **argv) {
    (void)argc;
    (void)argv;
    zc_direct = true;
    if (ZC_DRIVER_API(zesInit) == NULL || ZC_DRIVER_API(zesDriverGet) == NULL) {
        printf("skip=1\n");
        return 0;
    }
    uint32_t count = 0;
    zc_assert_result(ZC_SM(zesDriverGet)(&count, NULL), ZE_RESULT_ERROR_UNINITIALIZED);
    zc_assert_result(ZC_SM(zesInit)(0x2), ZE_RESULT_ERROR_INVALID_ENUMERATION);
    zc_assert_success(ZC_SM(zesInit)(0));
    zc_assert_success(ZC_SM(zesInit)(0)); /* once per process; again changes nothing */
    zes_driver_handle_t driver = zc_sysman_driver();
    zes_device_handle_t *devices = zc_sysman_devices(driver, &count);
    for (uint32_t i = 0; i < count; i++) {
        zes_device_properties_t p = zc_sysman_props(devices[i]);
        uint32_t engines = 0, domains = 0;
        zc_assert_success(ZC_SM(zesDeviceEnumEngineGroups)(devices[i], &engines, NULL));
        zc_assert_success(ZC_SM(zesDeviceEnumPowerDomains)(devices[i], &domains, NULL));
        printf("device%u_subdevices=%u\ndevice%u_engines=%u\ndevice%u_power=%u\n", i, p.numSubdevices, i, engines, i,
               domains);
#if ZC_L0_AT_LEAST(9)
        ze_bool_t on_sub = 2;
        uint32_t sub_id = 7;
        zes_device_handle_t found = NULL;
        zes_uuid_t uuid;
        memcpy(uuid.id, p.core.uuid.id, sizeof uuid.id);
        zc_assert_success(ZC_SM(zesDriverGetDeviceByUuidExp)(driver, uuid, &found, &on_sub, &sub_id));
        assert_ptr_equal(found, devices[i]);
        assert_false(on_sub);
#endif
    }
    printf("devices=%u\n", count);
    free(devices);
    /* zeInit afterwards: the core handles are sysman handles too (docs/sysman.md, "Initialisation"). */
    zc_direct = false;
    zc_assert_success(zeInit(0));
    uint32_t drivers = 1;
    ze_driver_handle_t core_driver = NULL;
    zc_assert_success(zeDriverGet(&drivers, &core_driver));
    uint32_t roots = 1;
    ze_device_handle_t root = NULL;
    zc_assert_success(zeDeviceGet(core_driver, &roots, &root));
    zes_device_properties_t p = {.stype = ZES_STRUCTURE_TYPE_DEVICE_PROPERTIES};
    printf("core_handle_result=%u\n", (unsigned)zesDeviceGetProperties((zes_device_handle_t)root, &p));
    printf("same_driver=%d\n", core_driver == driver);
    return 0;
}

static void sysman_init_without_enable_sysman(void **state) {
    (void)state;
    static const char *const env[] = {"ZES_ENABLE_SYSMAN", NULL};
    zc_child child;
    assert_true(zc_run_child_mode("zesinit", NULL, env, ZC_CHILD_TIMEOUT_MS, &child));
    zc_assert_child_ok(&child, "zesInit without ZES_ENABLE_SYSMAN");
    char value[16];
    if (zc_child_value(&child, "skip", value, sizeof value)) {
        zc_child_free(&child);
        skip();
    }
    uint64_t devices = zc_child_number(&child, "devices");
    uint64_t tiles = 0;
    for (uint64_t i = 0; i < devices; i++) {
        char key[32];
        snprintf(key, sizeof key, "device%u_subdevices", (unsigned)i);
        uint64_t subs = zc_child_number(&child, key);
        tiles += subs > 0 ? subs : 1;
        snprintf(key, sizeof key, "device%u_engines", (unsigned)i);
        uint64_t engines = zc_child_number(&child, key);
        snprintf(key, sizeof key, "device%u_power", (unsigned)i);
        if (zc_driver_is_fake()) /* docs/sysman.md: a card's engine groups, its card domain and one per tile */
            assert_true(engines >= 1 && zc_child_number(&child, key) == 1 + subs);
    }
    if (zc_driver_is_fake()) { /* the cards of the scenario; the core handles are sysman handles */
        assert_int_equal(tiles, zc_core_tiles());
        assert_int_equal(zc_child_number(&child, "core_handle_result"), ZE_RESULT_SUCCESS);
        assert_int_equal(zc_child_number(&child, "same_driver"), 1);
    }
    zc_child_free(&child);
}

/* Card A (file order 0, PCI bus 5) and card B (file order 1, PCI bus 3), two tiles each. */
static const char zc_order_yaml[] = "schema: 1\n"
                                    "name: sysman-order\n"
                                    "devices:\n"
                                    "  - name: card A\n"
                                    "    type: gpu\n"
                                    "    device_id: 0x1111\n"
                                    "    subdevices: 2\n"
                                    "    topology:\n"
                                    "      slices: 2\n"
                                    "    pci:\n"
                                    "      bus: 5\n"
                                    "  - name: card B\n"
                                    "    type: gpu\n"
                                    "    device_id: 0x2222\n"
                                    "    subdevices: 2\n"
                                    "    topology:\n"
                                    "      slices: 2\n"
                                    "    pci:\n"
                                    "      bus: 3\n";

/* The order child: the device ids of the sysman devices, then of the first core device (zeInit after). */
static int zc_order_child(int argc, char **argv) {
    (void)argc;
    (void)argv;
    zc_direct = true;
    zc_assert_success(ZC_SM(zesInit)(0));
    uint32_t count = 0;
    zes_device_handle_t *devices = zc_sysman_devices(zc_sysman_driver(), &count);
    for (uint32_t i = 0; i < count; i++) {
        zes_device_properties_t p = zc_sysman_props(devices[i]);
        printf("sysman%u=0x%x\nsysman%u_subdevices=%u\n", i, p.core.deviceId, i, p.numSubdevices);
    }
    free(devices);
    zc_assert_success(zeInit(0));
    uint32_t one = 1;
    ze_driver_handle_t driver = NULL;
    ze_device_handle_t first = NULL;
    zc_assert_success(zeDriverGet(&one, &driver));
    zc_assert_success(zeDeviceGet(driver, &one, &first));
    ze_device_properties_t core = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
    zc_assert_success(zeDeviceGetProperties(first, &core));
    printf("devices=%u\ncore0=0x%x\n", count, core.deviceId);
    return 0;
}

/* The header: neither ZE_FLAT_DEVICE_HIERARCHY nor ZE_ENABLE_PCI_ID_DEVICE_ORDER changes zesDeviceGet's list, where
 * zeDeviceGet lists the tiles in PCI order (docs/sysman.md, "Initialisation"). */
static void sysman_devices_ignore_order_and_hierarchy(void **state) {
    (void)state;
    zc_skip_unless_fake();
    if (ZC_DRIVER_API(zesInit) == NULL)
        skip();
    char path[] = "/tmp/zc_sysman_order_XXXXXX.yaml";
    int fd = mkstemps(path, 5);
    assert_true(fd >= 0);
    bool written = write(fd, zc_order_yaml, strlen(zc_order_yaml)) == (ssize_t)strlen(zc_order_yaml);
    close(fd);
    char scenario[64 + sizeof path];
    snprintf(scenario, sizeof scenario, "ZEFAKE_SCENARIO=%s", path);
    const char *const env[] = {scenario, "ZE_ENABLE_PCI_ID_DEVICE_ORDER=1", "ZE_FLAT_DEVICE_HIERARCHY=FLAT",
                               "ZES_ENABLE_SYSMAN", NULL};
    zc_child child;
    bool ran = written && zc_run_child_mode("order", NULL, env, ZC_CHILD_TIMEOUT_MS, &child);
    unlink(path);
    assert_true(ran);
    zc_assert_child_ok(&child, "zesDeviceGet with ZE_ENABLE_PCI_ID_DEVICE_ORDER=1 in FLAT mode");
    assert_int_equal(zc_child_number(&child, "devices"), 2);
    assert_int_equal(zc_child_number(&child, "sysman0"), 0x1111); /* the file's order */
    assert_int_equal(zc_child_number(&child, "sysman1"), 0x2222);
    assert_int_equal(zc_child_number(&child, "sysman0_subdevices"), 2); /* a card, not a tile */
    assert_int_equal(zc_child_number(&child, "core0"), 0x2222);         /* PCI order: card B's first tile */
    zc_child_free(&child);
}

#endif

#if ZC_L0_AT_LEAST(8)

typedef struct zc_sm_extension {
    const char *name;
    const char *functions[4];
} zc_sm_extension;

/* Extensions of zes_api.h with functions, and those functions. */
static const zc_sm_extension zc_sm_extensions[] = {
    {ZES_POWER_LIMITS_EXT_NAME, {"zesPowerGetLimitsExt", "zesPowerSetLimitsExt"}},
    {ZES_ENGINE_ACTIVITY_EXT_NAME, {"zesEngineGetActivityExt"}},
    {ZES_RAS_GET_STATE_EXP_NAME, {"zesRasGetStateExp", "zesRasClearStateExp"}},
    {ZES_FIRMWARE_SECURITY_VERSION_EXP_NAME, {"zesFirmwareGetSecurityVersionExp", "zesFirmwareSetSecurityVersionExp"}},
    {ZES_SYSMAN_DEVICE_MAPPING_EXP_NAME, {"zesDeviceGetSubDevicePropertiesExp", "zesDriverGetDeviceByUuidExp"}},
    {ZES_VIRTUAL_FUNCTION_MANAGEMENT_EXP_NAME, {"zesDeviceEnumEnabledVFExp", "zesVFManagementGetVFCapabilitiesExp"}},
};

/* docs/sysman.md, "Extensions". */
static const char *const zc_fake_extensions[] = {
    ZES_POWER_LIMITS_EXT_NAME,
    ZES_ENGINE_ACTIVITY_EXT_NAME,
    ZES_RAS_GET_STATE_EXP_NAME,
    ZES_MEMORY_BANDWIDTH_COUNTER_BITS_EXP_PROPERTIES_NAME,
    ZES_POWER_DOMAIN_PROPERTIES_EXP_NAME,
#if ZC_L0_AT_LEAST(9)
    ZES_SYSMAN_DEVICE_MAPPING_EXP_NAME,
#endif
#if ZC_L0_AT_LEAST(10)
    ZES_VIRTUAL_FUNCTION_MANAGEMENT_EXP_NAME,
#endif
};

static ze_result_t zc_extensions_call(void *ctx, uint32_t *count, void *items) {
    return ZC_API(zesDriverGetExtensionProperties)((zes_driver_handle_t)ctx, count, items);
}

static bool zc_listed(const zes_driver_extension_properties_t *list, uint32_t count, const char *name) {
    for (uint32_t i = 0; i < count; i++) {
        if (strcmp(list[i].name, name) == 0)
            return true;
    }
    return false;
}

/* Every function of an advertised extension has an address; the fake advertises exactly its list. */
static void zc_check_extension_functions(zes_driver_handle_t driver, const zes_driver_extension_properties_t *list,
                                         uint32_t count) {
    for (size_t e = 0; e < ZC_COUNT(zc_sm_extensions); e++) {
        if (!zc_listed(list, count, zc_sm_extensions[e].name))
            continue;
        for (size_t f = 0; f < 4 && zc_sm_extensions[e].functions[f] != NULL; f++) {
            void *address = NULL;
            zc_assert_success(
                ZC_API(zesDriverGetExtensionFunctionAddress)(driver, zc_sm_extensions[e].functions[f], &address));
            assert_non_null(address);
        }
    }
    if (!zc_driver_is_fake())
        return;
    assert_int_equal(count, ZC_COUNT(zc_fake_extensions));
    for (size_t i = 0; i < ZC_COUNT(zc_fake_extensions); i++)
        assert_true(zc_listed(list, count, zc_fake_extensions[i]));
}

/* The address of zesRasGetStateExp answers as the function does. */
static void zc_check_address_works(zes_driver_handle_t driver) {
    void *address = NULL;
    zc_assert_success(ZC_API(zesDriverGetExtensionFunctionAddress)(driver, "zesRasGetStateExp", &address));
    zes_pfnRasGetStateExp_t get = (zes_pfnRasGetStateExp_t)address;
    zes_ras_handle_t ras = zc_ras_set((zes_device_handle_t)zc_sys()->roots[0], ZES_RAS_ERROR_TYPE_UNCORRECTABLE);
    uint32_t a = 0, b = 0;
    zc_assert_success(get(ras, &a, NULL));
    zc_assert_success(ZC_API(zesRasGetStateExp)(ras, &b, NULL));
    assert_int_equal(a, b);
    zc_assert_result(get(ras, NULL, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
}

static void sysman_extensions(void **state) {
    (void)state;
    zc_api_require(zesDriverGetExtensionProperties);
    zc_api_require(zesDriverGetExtensionFunctionAddress);
    zes_driver_handle_t driver = zc_sysman_driver();
    zc_count_query q = {"zesDriverGetExtensionProperties", zc_extensions_call, driver,
                        sizeof(zes_driver_extension_properties_t), NULL};
    zc_check_count_semantics(&q);
    uint32_t count = 0;
    zes_driver_extension_properties_t *list = zc_query_all(&q, &count);
    for (uint32_t i = 0; i < count; i++) {
        assert_non_null(memchr(list[i].name, '\0', sizeof list[i].name));
        assert_true(list[i].version != 0);
    }
    zc_check_extension_functions(driver, list, count);
    if (zc_driver_is_fake() && zc_listed(list, count, ZES_RAS_GET_STATE_EXP_NAME))
        zc_check_address_works(driver);
    free(list);
}

static void sysman_extensions_bad_inputs(void **state) {
    (void)state;
    zc_api_require(zesDriverGetExtensionFunctionAddress);
    zes_driver_handle_t driver = zc_sysman_driver();
    void *address = &address;
    const ze_result_t null_ptr = ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    zc_assert_result(ZC_API(zesDriverGetExtensionFunctionAddress)(driver, NULL, &address), null_ptr);
    zc_assert_result(ZC_API(zesDriverGetExtensionFunctionAddress)(driver, "zesRasGetStateExp", NULL), null_ptr);
    zc_assert_result(ZC_API(zesDriverGetExtensionFunctionAddress)(NULL, "zesRasGetStateExp", &address),
                     ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(ZC_API(zesDriverGetExtensionProperties)(driver, NULL, NULL), null_ptr);
    zc_assert_error(ZC_API(zesDriverGetExtensionFunctionAddress)(driver, "zesNoSuchFunctionExp", &address));
    if (zc_driver_is_fake()) { /* docs/sysman.md: as zeDriverGetExtensionFunctionAddress answers */
        address = &address;
        zc_assert_result(ZC_API(zesDriverGetExtensionFunctionAddress)(driver, "zesNoSuchFunctionExp", &address),
                         ZE_RESULT_ERROR_INVALID_FUNCTION_NAME);
        assert_null(address);
        zc_assert_result(
            ZC_API(zesDriverGetExtensionFunctionAddress)(driver, "zesFirmwareSetSecurityVersionExp", &address),
            ZE_RESULT_ERROR_INVALID_FUNCTION_NAME); /* not advertised */
    }
    ze_context_handle_t context = NULL;
    ze_context_desc_t desc = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0};
    zc_assert_success(zeContextCreate(zc_sys()->driver, &desc, &context));
    zc_assert_success(zeContextDestroy(context));
    uint32_t count = 0;
    zc_assert_result(ZC_API(zesDriverGetExtensionProperties)((zes_driver_handle_t)context, &count, NULL),
                     ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
}

#endif

#if ZC_L0_AT_LEAST(9)

static void zc_prepare_subdevice(void *item) {
    zes_subdevice_exp_properties_t *p = item;
    p->stype = ZES_STRUCTURE_TYPE_SUBDEVICE_EXP_PROPERTIES;
    p->pNext = NULL;
}

static ze_result_t zc_subdevices_call(void *ctx, uint32_t *count, void *items) {
    return ZC_API(zesDeviceGetSubDevicePropertiesExp)((zes_device_handle_t)ctx, count, items);
}

/* Where a UUID leads: its sysman device, and whether it names a sub-device of it. */
static zes_device_handle_t zc_by_uuid(zes_driver_handle_t driver, const uint8_t id[16], ze_bool_t *on_sub,
                                      uint32_t *sub_id) {
    zes_uuid_t uuid;
    memcpy(uuid.id, id, sizeof uuid.id);
    zes_device_handle_t found = NULL;
    zc_assert_success(ZC_API(zesDriverGetDeviceByUuidExp)(driver, uuid, &found, on_sub, sub_id));
    return found;
}

/* Each sub-device's UUID leads back to its device and id; the device's own UUID to the device. */
static void zc_check_mapping(zes_driver_handle_t driver, zes_device_handle_t device) {
    zc_count_query q = {"zesDeviceGetSubDevicePropertiesExp", zc_subdevices_call, device,
                        sizeof(zes_subdevice_exp_properties_t), zc_prepare_subdevice};
    zc_check_count_semantics(&q);
    uint32_t count = 0;
    zes_subdevice_exp_properties_t *subs = zc_query_all(&q, &count);
    zes_device_properties_t p = zc_sysman_props(device);
    assert_int_equal(count, p.numSubdevices);
    ze_bool_t on_sub = 2;
    uint32_t sub_id = 7;
    assert_ptr_equal(zc_by_uuid(driver, p.core.uuid.id, &on_sub, &sub_id), device);
    assert_false(on_sub);
    for (uint32_t i = 0; i < count; i++) {
        assert_ptr_equal(zc_by_uuid(driver, subs[i].uuid.id, &on_sub, &sub_id), device);
        assert_true(on_sub);
        assert_int_equal(sub_id, subs[i].subdeviceId);
    }
    free(subs);
}

static void sysman_device_mapping(void **state) {
    (void)state;
    zc_api_require(zesDeviceGetSubDevicePropertiesExp);
    zc_api_require(zesDriverGetDeviceByUuidExp);
    zes_driver_handle_t driver = zc_sysman_driver();
    uint32_t count = 0;
    zes_device_handle_t *devices = zc_sysman_devices(driver, &count);
    for (uint32_t i = 0; i < count; i++)
        zc_check_mapping(driver, devices[i]);
    /* The fake: every core device, card or tile in any hierarchy, is a sysman device or a sub-device of one. */
    const zc_system *sys = zc_sys();
    for (uint32_t d = 0; zc_driver_is_fake() && d < sys->num_all; d++) {
        ze_bool_t on_sub = 2;
        uint32_t sub_id = 7;
        zes_device_handle_t found = zc_by_uuid(driver, zc_core_props(sys->all[d]).uuid.id, &on_sub, &sub_id);
        bool listed = false;
        for (uint32_t i = 0; i < count; i++)
            listed |= found == devices[i];
        assert_true(listed);
    }
    free(devices);
}

static void sysman_device_mapping_bad_inputs(void **state) {
    (void)state;
    zc_api_require(zesDriverGetDeviceByUuidExp);
    zes_driver_handle_t driver = zc_sysman_driver();
    zes_uuid_t unknown;
    memset(unknown.id, 0xee, sizeof unknown.id);
    zes_device_handle_t found = NULL;
    ze_bool_t on_sub = 0;
    uint32_t sub_id = 0;
    const ze_result_t null_ptr = ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    zc_assert_result(ZC_API(zesDriverGetDeviceByUuidExp)(driver, unknown, &found, &on_sub, &sub_id),
                     ZE_RESULT_ERROR_INVALID_ARGUMENT);
    zc_assert_result(ZC_API(zesDriverGetDeviceByUuidExp)(driver, unknown, NULL, &on_sub, &sub_id), null_ptr);
    zc_assert_result(ZC_API(zesDriverGetDeviceByUuidExp)(driver, unknown, &found, NULL, &sub_id), null_ptr);
    zc_assert_result(ZC_API(zesDriverGetDeviceByUuidExp)(driver, unknown, &found, &on_sub, NULL), null_ptr);
    zc_assert_result(ZC_API(zesDriverGetDeviceByUuidExp)(NULL, unknown, &found, &on_sub, &sub_id),
                     ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zes_device_handle_t device = (zes_device_handle_t)zc_sys()->roots[0];
    zc_assert_result(ZC_API(zesDeviceGetSubDevicePropertiesExp)(device, NULL, NULL), null_ptr);
    zc_assert_result(ZC_API(zesDeviceGetSubDevicePropertiesExp)(NULL, &sub_id, NULL),
                     ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
}

#endif

#if ZC_L0_AT_LEAST(7)

static uint64_t zc_reset_count(zes_device_handle_t device) {
    zes_ras_state_t s = {.stype = ZES_STRUCTURE_TYPE_RAS_STATE};
    zc_assert_success(zesRasGetState(zc_ras_set(device, ZES_RAS_ERROR_TYPE_UNCORRECTABLE), false, &s));
    return s.category[ZES_RAS_ERROR_CAT_RESET];
}

/* A copy past the end of a 64-byte allocation: the fake does not perform it and records a fault (docs/sysman.md). */
static void zc_fault(zc_exec *x) {
    uint8_t *small = zc_device_alloc(x, 64);
    uint8_t *big = zc_host_alloc(x, 4096);
    ze_command_list_handle_t list = zc_list(x, x->compute_ordinal);
    ze_command_queue_handle_t queue = zc_queue(x, x->compute_ordinal, 0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    zc_assert_success(zeCommandListAppendMemoryCopy(list, small, big, 4096, NULL, 0, NULL));
    zc_run(queue, list);
    zc_assert_success(zeCommandQueueDestroy(queue));
    zc_assert_success(zeCommandListDestroy(list));
    zc_free(x, small);
    zc_free(x, big);
}

/* Every reset type leaves the device usable; the fake counts each reset and clears a recorded fault. */
static void sysman_reset_ext(void **state) {
    zc_exec *x = *state;
    zc_api_require(zesDeviceResetExt);
    zes_device_handle_t device = (zes_device_handle_t)x->device;
    static const zes_reset_type_t types[] = {ZES_RESET_TYPE_WARM, ZES_RESET_TYPE_COLD, ZES_RESET_TYPE_FLR};
    for (size_t i = 0; i < ZC_COUNT(types); i++) {
        uint64_t before = zc_reset_count(device);
        zes_reset_properties_t p = {
            .stype = ZES_STRUCTURE_TYPE_RESET_PROPERTIES, .force = i == 2, .resetType = types[i]};
        zc_assert_success(ZC_API(zesDeviceResetExt)(device, &p));
        zes_device_state_t s = {.stype = ZES_STRUCTURE_TYPE_DEVICE_STATE};
        zc_assert_success(zesDeviceGetState(device, &s));
        assert_int_equal(s.reset, 0);
        zc_assert_success(zeDeviceGetStatus(x->device));
        if (zc_driver_is_fake())
            assert_int_equal(zc_reset_count(device), before + 1);
    }
    if (!zc_driver_is_fake())
        return;
    zc_fault(x);
    zc_assert_result(zeDeviceGetStatus(x->device), ZE_RESULT_ERROR_DEVICE_LOST);
    zes_reset_properties_t p = {
        .stype = ZES_STRUCTURE_TYPE_RESET_PROPERTIES, .force = true, .resetType = ZES_RESET_TYPE_FLR};
    zc_assert_success(ZC_API(zesDeviceResetExt)(device, &p));
    zc_assert_success(zeDeviceGetStatus(x->device));
}

static void sysman_reset_ext_bad_inputs(void **state) {
    zc_exec *x = *state;
    zc_api_require(zesDeviceResetExt);
    zes_device_handle_t device = (zes_device_handle_t)x->device;
    zes_reset_properties_t p = {.stype = ZES_STRUCTURE_TYPE_RESET_PROPERTIES, .resetType = ZES_RESET_TYPE_WARM};
    zc_assert_result(ZC_API(zesDeviceResetExt)(device, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(ZC_API(zesDeviceResetExt)(NULL, &p), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    if (!zc_driver_is_fake())
        return;
    uint64_t before = zc_reset_count(device);
    zes_reset_properties_t wrong = p;
    wrong.stype = ZES_STRUCTURE_TYPE_DEVICE_STATE;
    zc_assert_result(ZC_API(zesDeviceResetExt)(device, &wrong), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    zes_reset_properties_t bad_type = p;
    bad_type.resetType = (zes_reset_type_t)7;
    zc_assert_result(ZC_API(zesDeviceResetExt)(device, &bad_type), ZE_RESULT_ERROR_INVALID_ENUMERATION);
    assert_int_equal(zc_reset_count(device), before); /* nothing refused was done */
}

static ze_result_t zc_ras_exp_call(void *ctx, uint32_t *count, void *items) {
    return ZC_API(zesRasGetStateExp)((zes_ras_handle_t)ctx, count, items);
}

/* The counter of a category in a zesRasGetStateExp answer (UINT64_MAX when absent). */
static uint64_t zc_ras_exp_counter(zes_ras_handle_t ras, zes_ras_error_category_exp_t category) {
    zc_count_query q = {"zesRasGetStateExp", zc_ras_exp_call, ras, sizeof(zes_ras_state_exp_t), NULL};
    uint32_t count = 0;
    zes_ras_state_exp_t *states = zc_query_all(&q, &count);
    uint64_t counter = UINT64_MAX;
    for (uint32_t i = 0; i < count; i++)
        counter = states[i].category == category ? states[i].errorCounter : counter;
    free(states);
    return counter;
}

/* The categories of each error set agree with zesRasGetState's counts; the fake's reset count clears alone. */
static void zc_check_ras_exp(zes_ras_handle_t ras) {
    zc_count_query q = {"zesRasGetStateExp", zc_ras_exp_call, ras, sizeof(zes_ras_state_exp_t), NULL};
    zc_check_count_semantics(&q);
    uint32_t count = 0;
    zes_ras_state_exp_t *states = zc_query_all(&q, &count);
    zes_ras_state_t legacy = {.stype = ZES_STRUCTURE_TYPE_RAS_STATE};
    zc_assert_success(zesRasGetState(ras, false, &legacy));
    for (uint32_t i = 0; i < count; i++) {
        assert_true(states[i].category <= ZES_RAS_ERROR_CATEGORY_EXP_L3FABRIC_ERRORS);
        if ((uint32_t)states[i].category < ZES_MAX_RAS_ERROR_CATEGORY_COUNT)
            assert_int_equal(states[i].errorCounter, legacy.category[states[i].category]);
    }
    if (zc_driver_is_fake()) /* docs/sysman.md: zesRasGetState's seven categories and memory errors */
        assert_int_equal(count, ZES_RAS_ERROR_CATEGORY_EXP_MEMORY_ERRORS + 1);
    free(states);
}

static void sysman_ras_state_exp(void **state) {
    zc_exec *x = *state;
    zc_api_require(zesRasGetStateExp);
    zc_api_require(zesRasClearStateExp);
    zes_device_handle_t device = (zes_device_handle_t)x->device;
    zes_ras_handle_t uncorrectable = zc_ras_set(device, ZES_RAS_ERROR_TYPE_UNCORRECTABLE);
    zc_check_ras_exp(zc_ras_set(device, ZES_RAS_ERROR_TYPE_CORRECTABLE));
    zc_check_ras_exp(uncorrectable);
    if (!zc_driver_is_fake())
        return;
    zc_assert_success(zesDeviceReset(device, false)); /* docs/sysman.md: counted as a reset */
    zc_fault(x);
    uint64_t programming = zc_ras_exp_counter(uncorrectable, ZES_RAS_ERROR_CATEGORY_EXP_PROGRAMMING_ERRORS);
    assert_true(zc_ras_exp_counter(uncorrectable, ZES_RAS_ERROR_CATEGORY_EXP_RESET) >= 1 && programming >= 1);
    zc_assert_success(ZC_API(zesRasClearStateExp)(uncorrectable, ZES_RAS_ERROR_CATEGORY_EXP_RESET));
    assert_int_equal(zc_ras_exp_counter(uncorrectable, ZES_RAS_ERROR_CATEGORY_EXP_RESET), 0);
    assert_int_equal(zc_reset_count(device), 0);
    assert_int_equal(zc_ras_exp_counter(uncorrectable, ZES_RAS_ERROR_CATEGORY_EXP_PROGRAMMING_ERRORS), programming);
    zc_assert_success(ZC_API(zesRasClearStateExp)(uncorrectable, ZES_RAS_ERROR_CATEGORY_EXP_MEMORY_ERRORS));
    zc_assert_success(zesDeviceReset(device, true)); /* the fault's, for the tests after */
}

static void sysman_ras_state_exp_bad_inputs(void **state) {
    zc_exec *x = *state;
    zc_api_require(zesRasGetStateExp);
    zc_api_require(zesRasClearStateExp);
    zes_ras_handle_t ras = zc_ras_set((zes_device_handle_t)x->device, ZES_RAS_ERROR_TYPE_UNCORRECTABLE);
    uint32_t count = 0;
    zc_assert_result(ZC_API(zesRasGetStateExp)(ras, NULL, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(ZC_API(zesRasGetStateExp)(NULL, &count, NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(ZC_API(zesRasClearStateExp)(NULL, ZES_RAS_ERROR_CATEGORY_EXP_RESET),
                     ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(ZC_API(zesRasClearStateExp)(ras, (zes_ras_error_category_exp_t)10),
                     ZE_RESULT_ERROR_INVALID_ENUMERATION);
    zes_freq_handle_t freq = zc_freq_domain(x->device); /* a handle of another kind */
    zc_assert_result(ZC_API(zesRasGetStateExp)((zes_ras_handle_t)freq, &count, NULL),
                     ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    if (zc_driver_is_fake()) /* docs/sysman.md: no fabric errors are counted */
        zc_assert_result(ZC_API(zesRasClearStateExp)(ras, ZES_RAS_ERROR_CATEGORY_EXP_SCALE_ERRORS),
                         ZE_RESULT_ERROR_NOT_AVAILABLE);
}

#endif

#if ZC_L0_AT_LEAST(8)

/* Flash progress and the security version of every firmware; another driver may not offer the latter. */
static void zc_check_firmware(zes_firmware_handle_t firmware) {
    uint32_t percent = 1000;
    ze_result_t result = ZC_API(zesFirmwareGetFlashProgress)(firmware, &percent);
    if (result != ZE_RESULT_ERROR_UNSUPPORTED_FEATURE || zc_driver_is_fake())
        zc_assert_success(result);
    if (result == ZE_RESULT_SUCCESS)
        assert_true(percent <= 100);
    if (zc_driver_is_fake()) /* docs/sysman.md: nothing was ever flashed */
        assert_int_equal(percent, 0);
    zc_assert_result(ZC_API(zesFirmwareGetFlashProgress)(firmware, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
#if ZC_L0_AT_LEAST(9)
    char version[ZES_STRING_PROPERTY_SIZE];
    memset(version, 0x5a, sizeof version);
    result = ZC_API(zesFirmwareGetSecurityVersionExp)(firmware, version);
    if (result != ZE_RESULT_ERROR_UNSUPPORTED_FEATURE || zc_driver_is_fake())
        zc_assert_success(result);
    if (result == ZE_RESULT_SUCCESS)
        assert_non_null(memchr(version, '\0', sizeof version));
    if (zc_driver_is_fake()) /* not modelled: the header's "unknown" */
        assert_string_equal(version, "unknown");
    zc_assert_result(ZC_API(zesFirmwareGetSecurityVersionExp)(firmware, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
#endif
}

static void sysman_firmware_exp(void **state) {
    (void)state;
    zc_api_require(zesFirmwareGetFlashProgress);
    const zc_system *sys = zc_sys();
    for (uint32_t d = 0; d < sys->num_roots; d++) {
        uint32_t count = 0;
        zes_firmware_handle_t *firmware = zc_handles(
            (zes_device_handle_t)sys->roots[d], (zc_enum_fn)zesDeviceEnumFirmwares, "zesDeviceEnumFirmwares", &count);
        for (uint32_t i = 0; i < count; i++)
            zc_check_firmware(firmware[i]);
        free(firmware);
    }
    uint32_t percent = 0;
    zc_assert_result(ZC_API(zesFirmwareGetFlashProgress)(NULL, &percent), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
}

#endif

#if ZC_L0_AT_LEAST(5)

static ze_result_t zc_overclock_call(void *ctx, uint32_t *count, void *items) {
    return ZC_API(zesDeviceEnumOverclockDomains)((zes_device_handle_t)ctx, count, items);
}

/* No overclocking on the fake's cards (docs/sysman.md): no domain, no bit set; Intel's driver answers
 * ZE_RESULT_ERROR_UNSUPPORTED_FEATURE instead. */
static void zc_check_overclock(zes_device_handle_t device) {
    uint32_t count = 0;
    ze_result_t result = ZC_API(zesDeviceEnumOverclockDomains)(device, &count, NULL);
    if (result == ZE_RESULT_ERROR_UNSUPPORTED_FEATURE && !zc_driver_is_fake())
        return;
    zc_assert_success(result);
    zc_count_query q = {"zesDeviceEnumOverclockDomains", zc_overclock_call, device, sizeof(void *), NULL};
    zc_check_count_semantics(&q);
    if (!zc_driver_is_fake())
        return;
    assert_int_equal(count, 0);
    uint32_t domains = 7, controls = 7;
    zc_assert_success(ZC_API(zesDeviceGetOverclockDomains)(device, &domains));
    assert_int_equal(domains, 0);
    zc_assert_success(ZC_API(zesDeviceGetOverclockControls)(device, ZES_OVERCLOCK_DOMAIN_GPU_ALL, &controls));
    assert_int_equal(controls, 0);
    zc_assert_result(ZC_API(zesDeviceGetOverclockControls)(device, (zes_overclock_domain_t)3, &controls),
                     ZE_RESULT_ERROR_INVALID_ENUMERATION);
}

static void sysman_overclock(void **state) {
    (void)state;
    zc_api_require(zesDeviceEnumOverclockDomains);
    const zc_system *sys = zc_sys();
    for (uint32_t d = 0; d < sys->num_all; d++)
        zc_check_overclock((zes_device_handle_t)sys->all[d]);
    zes_device_handle_t device = (zes_device_handle_t)sys->roots[0];
    uint32_t value = 0;
    const ze_result_t null_ptr = ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    zc_assert_result(ZC_API(zesDeviceEnumOverclockDomains)(device, NULL, NULL), null_ptr);
    zc_assert_result(ZC_API(zesDeviceEnumOverclockDomains)(NULL, &value, NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(ZC_API(zesDeviceGetOverclockDomains)(device, NULL), null_ptr);
    zc_assert_result(ZC_API(zesDeviceGetOverclockControls)(device, ZES_OVERCLOCK_DOMAIN_GPU_ALL, NULL), null_ptr);
    zc_assert_result(ZC_API(zesDeviceGetOverclockControls)(device, (zes_overclock_domain_t)512, &value),
                     ZE_RESULT_ERROR_INVALID_ENUMERATION);
}

#endif

#if ZC_L0_AT_LEAST(10)

static ze_result_t zc_vf_call(void *ctx, uint32_t *count, void *items) {
    return ZC_API(zesDeviceEnumEnabledVFExp)((zes_device_handle_t)ctx, count, items);
}

/* The fake's cards run as physical functions without SR-IOV: no virtual function. */
static void sysman_virtual_functions(void **state) {
    (void)state;
    zc_api_require(zesDeviceEnumEnabledVFExp);
    const zc_system *sys = zc_sys();
    for (uint32_t d = 0; d < sys->num_all; d++) {
        zc_count_query q = {"zesDeviceEnumEnabledVFExp", zc_vf_call, sys->all[d], sizeof(void *), NULL};
        zc_check_count_semantics(&q);
        if (zc_driver_is_fake())
            assert_int_equal(zc_count(&q), 0);
    }
    zc_assert_result(ZC_API(zesDeviceEnumEnabledVFExp)((zes_device_handle_t)sys->roots[0], NULL, NULL),
                     ZE_RESULT_ERROR_INVALID_NULL_POINTER);
}

#endif

int main(int argc, char **argv) {
    zc_own_instance();
    static const struct CMUnitTest tests[] = {
        cmocka_unit_test(sysman_power_ext_properties),
#if ZC_L0_AT_LEAST(7)
        cmocka_unit_test(sysman_device_ext_properties),
        cmocka_unit_test(sysman_engine_ext_properties),
#endif
#if ZC_L0_AT_LEAST(8)
        cmocka_unit_test(sysman_memory_counter_bits),
#endif
#if ZC_L0_AT_LEAST(5)
        cmocka_unit_test(sysman_drivers_and_devices),
        cmocka_unit_test(sysman_init_is_idempotent),
        cmocka_unit_test(sysman_init_without_enable_sysman),
        cmocka_unit_test(sysman_devices_ignore_order_and_hierarchy),
        cmocka_unit_test(sysman_overclock),
#endif
#if ZC_L0_AT_LEAST(8)
        cmocka_unit_test(sysman_extensions),
        cmocka_unit_test(sysman_extensions_bad_inputs),
        cmocka_unit_test(sysman_firmware_exp),
#endif
#if ZC_L0_AT_LEAST(9)
        cmocka_unit_test(sysman_device_mapping),
        cmocka_unit_test(sysman_device_mapping_bad_inputs),
#endif
#if ZC_L0_AT_LEAST(7)
        cmocka_unit_test_setup_teardown(sysman_reset_ext, zc_setup_exec, zc_teardown_exec),
        cmocka_unit_test_setup_teardown(sysman_reset_ext_bad_inputs, zc_setup_exec, zc_teardown_exec),
        cmocka_unit_test_setup_teardown(sysman_ras_state_exp, zc_setup_exec, zc_teardown_exec),
        cmocka_unit_test_setup_teardown(sysman_ras_state_exp_bad_inputs, zc_setup_exec, zc_teardown_exec),
#endif
#if ZC_L0_AT_LEAST(10)
        cmocka_unit_test(sysman_virtual_functions),
#endif
    };
#if ZC_L0_AT_LEAST(5)
    static const zc_child_mode modes[] = {{"zesinit", zc_zesinit_child}, {"order", zc_order_child}};
    static const zc_suite suite = {ZC_EXECUTABLE,      tests, ZC_COUNT(tests), zc_setup_system,
                                   zc_teardown_system, modes, ZC_COUNT(modes)};
#else
    static const zc_suite suite = {ZC_EXECUTABLE, tests, ZC_COUNT(tests), zc_setup_system, zc_teardown_system, NULL, 0};
#endif
    return zc_main(argc, argv, &suite);
}
