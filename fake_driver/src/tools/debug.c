/* The program debug API (zetDeviceGetDebugProperties, zetDebug*): zefake's devices do not support debugging, and
 * answer as such a device does in zet_api.h. zetDeviceGetDebugProperties reports no flags (no
 * ZET_DEVICE_DEBUG_PROPERTY_FLAG_ATTACH), zetDebugAttach refuses with ZE_RESULT_ERROR_UNSUPPORTED_FEATURE ("attaching
 * to this device is not supported") and a device has no register sets. So no debug session ever exists: the
 * generated entry points refuse every hDebug as not a live handle before these functions run, and the functions
 * taking a session answer the same should one reach them. docs/api-support.md lists them. */
#include "core/zf_chain.h"
#include "core/zf_core.h"
#include "driver/zf_driver.h"

ze_result_t zfi_zetDeviceGetDebugProperties(zet_device_handle_t hDevice,
                                            zet_device_debug_properties_t *pDebugProperties) {
    zf_out_check(pDebugProperties, "pDebugProperties", ZET_STRUCTURE_TYPE_DEVICE_DEBUG_PROPERTIES);
    pDebugProperties->flags = 0; /* no ZET_DEVICE_DEBUG_PROPERTY_FLAG_ATTACH */
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zetDebugAttach(zet_device_handle_t hDevice, const zet_debug_config_t *config,
                               zet_debug_session_handle_t *phDebug) {
    return zf_fail(ZE_RESULT_ERROR_UNSUPPORTED_FEATURE,
                   "attaching to %s is not supported: zetDeviceGetDebugProperties reports no "
                   "ZET_DEVICE_DEBUG_PROPERTY_FLAG_ATTACH",
                   zf_device_from(hDevice)->properties.name);
}

ze_result_t zfi_zetDebugGetRegisterSetProperties(zet_device_handle_t hDevice, uint32_t *pCount,
                                                 zet_debug_regset_properties_t *pRegisterSetProperties) {
    zf_count_query(pCount, 0, pRegisterSetProperties); /* no register sets: nothing to fill */
    return ZE_RESULT_SUCCESS;
}

/* What every function taking a session answers: there is none (the header's code for a handle that is not one). */
static ze_result_t zf_debug_no_session(zet_debug_session_handle_t hDebug) {
    return zf_fail(ZE_RESULT_ERROR_INVALID_NULL_HANDLE,
                   "hDebug %p is not a debug session: zetDebugAttach refuses every device of zefake", (void *)hDebug);
}

ze_result_t zfi_zetDebugDetach(zet_debug_session_handle_t hDebug) {
    return zf_debug_no_session(hDebug);
}

ze_result_t zfi_zetDebugReadEvent(zet_debug_session_handle_t hDebug, uint64_t timeout, zet_debug_event_t *event) {
    return zf_debug_no_session(hDebug);
}

ze_result_t zfi_zetDebugAcknowledgeEvent(zet_debug_session_handle_t hDebug, const zet_debug_event_t *event) {
    return zf_debug_no_session(hDebug);
}

ze_result_t zfi_zetDebugInterrupt(zet_debug_session_handle_t hDebug, ze_device_thread_t thread) {
    return zf_debug_no_session(hDebug);
}

ze_result_t zfi_zetDebugResume(zet_debug_session_handle_t hDebug, ze_device_thread_t thread) {
    return zf_debug_no_session(hDebug);
}

ze_result_t zfi_zetDebugReadMemory(zet_debug_session_handle_t hDebug, ze_device_thread_t thread,
                                   const zet_debug_memory_space_desc_t *desc, size_t size, void *buffer) {
    return zf_debug_no_session(hDebug);
}

ze_result_t zfi_zetDebugWriteMemory(zet_debug_session_handle_t hDebug, ze_device_thread_t thread,
                                    const zet_debug_memory_space_desc_t *desc, size_t size, const void *buffer) {
    return zf_debug_no_session(hDebug);
}

ze_result_t zfi_zetDebugReadRegisters(zet_debug_session_handle_t hDebug, ze_device_thread_t thread, uint32_t type,
                                      uint32_t start, uint32_t count, void *pRegisterValues) {
    return zf_debug_no_session(hDebug);
}

ze_result_t zfi_zetDebugWriteRegisters(zet_debug_session_handle_t hDebug, ze_device_thread_t thread, uint32_t type,
                                       uint32_t start, uint32_t count, void *pRegisterValues) {
    return zf_debug_no_session(hDebug);
}

#if ZF_L0_AT_LEAST(5)
/* A thread's register sets exist only in a debug session (the thread must be stopped in it), and there is none. */
ze_result_t zfi_zetDebugGetThreadRegisterSetProperties(zet_debug_session_handle_t hDebug, ze_device_thread_t thread,
                                                       uint32_t *pCount,
                                                       zet_debug_regset_properties_t *pRegisterSetProperties) {
    return zf_debug_no_session(hDebug);
}
#endif
