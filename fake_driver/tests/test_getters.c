/* The driver as the loader sees it: loaded with dlopen, its getters called for various versions. Checks that only
 * the getters are exported, that each getter fills exactly the slots of the requested version, and that entry points
 * refuse to work before zeInit. */
#include <dlfcn.h>
#include <level_zero/ze_ddi.h>
#include <level_zero/zes_ddi.h>
#include <level_zero/zet_ddi.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#ifndef ZF_DRIVER_PATH
#error "ZF_DRIVER_PATH must name the built driver"
#endif

static void *zf_test_driver;

static int zf_test_open(void **state) {
    (void)state;
    zf_test_driver = dlopen(ZF_DRIVER_PATH, RTLD_NOW | RTLD_LOCAL);
    return zf_test_driver == NULL ? -1 : 0;
}

static void *zf_test_symbol(const char *name) {
    void *symbol = dlsym(zf_test_driver, name);
    assert_non_null(symbol);
    return symbol;
}

#define ZF_SENTINEL ((void *)(uintptr_t)0x5e5e5e5e5e5e5e5eull)

static void zf_test_fill(void *table, size_t size) {
    void **slots = table;
    for (size_t i = 0; i < size / sizeof(void *); i++)
        slots[i] = ZF_SENTINEL;
}

static void getters_device_table_v1_0_leaves_newer_slots_untouched(void **state) {
    (void)state;
    ze_pfnGetDeviceProcAddrTable_t get = (ze_pfnGetDeviceProcAddrTable_t)zf_test_symbol("zeGetDeviceProcAddrTable");
    ze_device_dditable_t table;
    zf_test_fill(&table, sizeof table);
    assert_int_equal(get(ZE_API_VERSION_1_0, &table), ZE_RESULT_SUCCESS);
    assert_ptr_not_equal(table.pfnGetStatus, ZF_SENTINEL);       /* 1.0 */
    assert_ptr_equal(table.pfnGetGlobalTimestamps, ZF_SENTINEL); /* 1.1 */
    assert_ptr_equal(table.pfnReserveCacheExt, ZF_SENTINEL);     /* 1.2 */
    assert_ptr_equal(table.pfnPciGetPropertiesExt, ZF_SENTINEL); /* 1.3 */
}

static void getters_device_table_v1_2_fills_up_to_1_2(void **state) {
    (void)state;
    ze_pfnGetDeviceProcAddrTable_t get = (ze_pfnGetDeviceProcAddrTable_t)zf_test_symbol("zeGetDeviceProcAddrTable");
    ze_device_dditable_t table;
    zf_test_fill(&table, sizeof table);
    assert_int_equal(get(ZE_API_VERSION_1_2, &table), ZE_RESULT_SUCCESS);
    assert_ptr_not_equal(table.pfnGetGlobalTimestamps, ZF_SENTINEL);
    assert_ptr_not_equal(table.pfnSetCacheAdviceExt, ZF_SENTINEL);
    assert_ptr_equal(table.pfnPciGetPropertiesExt, ZF_SENTINEL);
}

static void getters_every_table_at_current_version_has_no_empty_slot(void **state) {
    (void)state;
    ze_context_dditable_t context;
    zf_test_fill(&context, sizeof context);
    ze_pfnGetContextProcAddrTable_t get = (ze_pfnGetContextProcAddrTable_t)zf_test_symbol("zeGetContextProcAddrTable");
    assert_int_equal(get(ZE_API_VERSION_CURRENT, &context), ZE_RESULT_SUCCESS);
    void **slots = (void **)&context;
    for (size_t i = 0; i < sizeof context / sizeof(void *); i++) {
        assert_ptr_not_equal(slots[i], ZF_SENTINEL);
        assert_non_null(slots[i]);
    }
}

static void getters_future_minor_version_accepted(void **state) {
    (void)state;
    ze_pfnGetGlobalProcAddrTable_t get = (ze_pfnGetGlobalProcAddrTable_t)zf_test_symbol("zeGetGlobalProcAddrTable");
    ze_global_dditable_t table = {0};
    assert_int_equal(get(ZE_MAKE_VERSION(1, 99), &table), ZE_RESULT_SUCCESS);
    assert_non_null(table.pfnInit);
}

static void getters_other_major_version_rejected(void **state) {
    (void)state;
    ze_pfnGetGlobalProcAddrTable_t get = (ze_pfnGetGlobalProcAddrTable_t)zf_test_symbol("zeGetGlobalProcAddrTable");
    ze_global_dditable_t table = {0};
    assert_int_equal(get(ZE_MAKE_VERSION(2, 0), &table), ZE_RESULT_ERROR_UNSUPPORTED_VERSION);
    assert_null(table.pfnInit);
}

static void getters_null_table_rejected(void **state) {
    (void)state;
    zet_pfnGetMetricGroupProcAddrTable_t get =
        (zet_pfnGetMetricGroupProcAddrTable_t)zf_test_symbol("zetGetMetricGroupProcAddrTable");
    assert_int_equal(get(ZE_API_VERSION_CURRENT, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
}

static void getters_sysman_tables_filled(void **state) {
    (void)state;
    zes_pfnGetDeviceProcAddrTable_t get = (zes_pfnGetDeviceProcAddrTable_t)zf_test_symbol("zesGetDeviceProcAddrTable");
    zes_device_dditable_t table;
    zf_test_fill(&table, sizeof table);
    assert_int_equal(get(ZE_API_VERSION_CURRENT, &table), ZE_RESULT_SUCCESS);
    assert_ptr_not_equal(table.pfnGetProperties, ZF_SENTINEL);
    assert_ptr_not_equal(table.pfnEccAvailable, ZF_SENTINEL);
}

static void entry_points_before_zeinit_answer_uninitialized(void **state) {
    (void)state;
    ze_pfnGetDriverProcAddrTable_t get = (ze_pfnGetDriverProcAddrTable_t)zf_test_symbol("zeGetDriverProcAddrTable");
    ze_driver_dditable_t table = {0};
    assert_int_equal(get(ZE_API_VERSION_CURRENT, &table), ZE_RESULT_SUCCESS);
    uint32_t count = 0;
    assert_int_equal(table.pfnGet(&count, NULL), ZE_RESULT_ERROR_UNINITIALIZED);
}

static void exports_are_only_public_getters(void **state) {
    (void)state;
    /* Implementation names must never equal public API names (the loader would interpose them). */
    assert_null(dlsym(zf_test_driver, "zeInit"));
    assert_null(dlsym(zf_test_driver, "zeDriverGet"));
    assert_null(dlsym(zf_test_driver, "zfi_zeInit"));
    assert_null(dlsym(zf_test_driver, "zf_log"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(entry_points_before_zeinit_answer_uninitialized),
        cmocka_unit_test(getters_device_table_v1_0_leaves_newer_slots_untouched),
        cmocka_unit_test(getters_device_table_v1_2_fills_up_to_1_2),
        cmocka_unit_test(getters_every_table_at_current_version_has_no_empty_slot),
        cmocka_unit_test(getters_future_minor_version_accepted),
        cmocka_unit_test(getters_other_major_version_rejected),
        cmocka_unit_test(getters_null_table_rejected),
        cmocka_unit_test(getters_sysman_tables_filled),
        cmocka_unit_test(exports_are_only_public_getters),
    };
    return cmocka_run_group_tests_name("getters", tests, zf_test_open, NULL);
}
