/* Conformance: the program debug API (zetDeviceGetDebugProperties, zetDebugAttach, zetDebugGetRegisterSetProperties
 * and the zetDebug* functions of a session). A device without ZET_DEVICE_DEBUG_PROPERTY_FLAG_ATTACH must refuse
 * zetDebugAttach with ZE_RESULT_ERROR_UNSUPPORTED_FEATURE ("attaching to this device is not supported", zet_api.h);
 * zefake's devices are such devices (docs/api-support.md), and no debug session exists to pass to the others. */
#include "zc_harness.h"

#include <level_zero/zet_api.h>
#include <string.h>
#include <unistd.h>

static zet_device_debug_properties_t zc_debug_properties(ze_device_handle_t device) {
    zet_device_debug_properties_t p;
    memset(&p, 0xa5, sizeof p); /* every bit the driver does not write shows */
    p.stype = ZET_STRUCTURE_TYPE_DEVICE_DEBUG_PROPERTIES;
    p.pNext = NULL;
    zc_assert_success(zetDeviceGetDebugProperties(device, &p));
    return p;
}

static void debug_attach_refused_where_not_supported(void **state) {
    (void)state;
    const zc_system *sys = zc_sys();
    for (uint32_t d = 0; d < sys->num_all; d++) {
        zet_device_debug_properties_t p = zc_debug_properties(sys->all[d]);
        assert_int_equal(p.flags & ~(uint32_t)ZET_DEVICE_DEBUG_PROPERTY_FLAG_ATTACH, 0);
        if (zc_driver_is_fake())
            assert_int_equal(p.flags, 0);
        if (p.flags & ZET_DEVICE_DEBUG_PROPERTY_FLAG_ATTACH)
            continue; /* attaching would really debug this process */
        zet_debug_config_t config = {(uint32_t)getpid()};
        zet_debug_session_handle_t session = (zet_debug_session_handle_t)&config;
        zc_assert_result(zetDebugAttach(sys->all[d], &config, &session), ZE_RESULT_ERROR_UNSUPPORTED_FEATURE);
        assert_ptr_equal(session, (zet_debug_session_handle_t)&config); /* a refused attach gives no session */
    }
}

/* A device that cannot be debugged has no register sets (the count-style query answers 0). */
static void debug_register_sets_none(void **state) {
    (void)state;
    zc_skip_unless_fake(); /* another driver may describe its registers without supporting attach */
    const zc_system *sys = zc_sys();
    for (uint32_t d = 0; d < sys->num_all; d++) {
        uint32_t count = 7;
        zc_assert_success(zetDebugGetRegisterSetProperties(sys->all[d], &count, NULL));
        assert_int_equal(count, 0);
        zet_debug_regset_properties_t sets[2];
        memset(sets, 0x5a, sizeof sets);
        count = 2;
        zc_assert_success(zetDebugGetRegisterSetProperties(sys->all[d], &count, sets));
        assert_int_equal(count, 0);
        assert_int_equal(sets[0].count, 0x5a5a5a5a); /* untouched */
    }
}

static void debug_arguments_checked(void **state) {
    (void)state;
    ze_device_handle_t device = zc_sys()->roots[0];
    zet_debug_config_t config = {(uint32_t)getpid()};
    zet_debug_session_handle_t session = NULL;
    uint32_t count = 0;
    zc_assert_result(zetDeviceGetDebugProperties(NULL, &(zet_device_debug_properties_t){0}),
                     ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zetDeviceGetDebugProperties(device, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zetDebugAttach(NULL, &config, &session), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zetDebugAttach(device, NULL, &session), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zetDebugAttach(device, &config, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zetDebugGetRegisterSetProperties(NULL, &count, NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zetDebugGetRegisterSetProperties(device, NULL, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zetDebugDetach(NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
}

/* With no session, every function of a session refuses the handle it is given: NULL, or anything else (a device
 * handle here), as the generated checks of live handles do. */
static void debug_session_functions_refuse_non_sessions(void **state) {
    (void)state;
    zc_skip_unless_fake(); /* a handle that is not a session is undefined behaviour elsewhere */
    zet_debug_session_handle_t handles[] = {NULL, (zet_debug_session_handle_t)zc_sys()->roots[0]};
    ze_device_thread_t thread = {UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX};
    zet_debug_event_t event;
    memset(&event, 0, sizeof event);
    zet_debug_memory_space_desc_t space = {ZET_STRUCTURE_TYPE_DEBUG_MEMORY_SPACE_DESC, NULL,
                                           ZET_DEBUG_MEMORY_SPACE_TYPE_DEFAULT, 0x1000};
    uint8_t buffer[16] = {0};
    for (size_t i = 0; i < ZC_COUNT(handles); i++) {
        zet_debug_session_handle_t h = handles[i];
        const ze_result_t want = ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
        zc_assert_result(zetDebugDetach(h), want);
        zc_assert_result(zetDebugReadEvent(h, 0, &event), want);
        zc_assert_result(zetDebugAcknowledgeEvent(h, &event), want);
        zc_assert_result(zetDebugInterrupt(h, thread), want);
        zc_assert_result(zetDebugResume(h, thread), want);
        zc_assert_result(zetDebugReadMemory(h, thread, &space, sizeof buffer, buffer), want);
        zc_assert_result(zetDebugWriteMemory(h, thread, &space, sizeof buffer, buffer), want);
        zc_assert_result(zetDebugReadRegisters(h, thread, 0, 0, 1, buffer), want);
        zc_assert_result(zetDebugWriteRegisters(h, thread, 0, 0, 1, buffer), want);
    }
}

#if ZC_L0_AT_LEAST(5)
/* The register sets of a thread (headers 1.5) are asked of a session, and there is none: NULL or any other handle
 * is refused as the other functions of a session refuse it. */
static void debug_thread_register_sets_need_a_session(void **state) {
    (void)state;
    zc_api_require(zetDebugGetThreadRegisterSetProperties);
    __typeof__(&zetDebugGetThreadRegisterSetProperties) get = ZC_API(zetDebugGetThreadRegisterSetProperties);
    ze_device_thread_t thread = {0, 0, 0, 0};
    uint32_t count = 0;
    zc_assert_result(get(NULL, thread, &count, NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_skip_unless_fake(); /* a handle that is not a session is undefined behaviour elsewhere */
    zet_debug_session_handle_t device = (zet_debug_session_handle_t)zc_sys()->roots[0];
    zc_assert_result(get(device, thread, &count, NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(get(device, thread, NULL, NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    assert_int_equal(count, 0);
}
#endif

int main(int argc, char **argv) {
    static const struct CMUnitTest tests[] = {
        cmocka_unit_test(debug_attach_refused_where_not_supported),
        cmocka_unit_test(debug_register_sets_none),
        cmocka_unit_test(debug_arguments_checked),
        cmocka_unit_test(debug_session_functions_refuse_non_sessions),
#if ZC_L0_AT_LEAST(5)
        cmocka_unit_test(debug_thread_register_sets_need_a_session),
#endif
    };
    static const zc_suite suite = {ZC_EXECUTABLE, tests, ZC_COUNT(tests), zc_setup_system, zc_teardown_system, NULL, 0};
    return zc_main(argc, argv, &suite);
}
