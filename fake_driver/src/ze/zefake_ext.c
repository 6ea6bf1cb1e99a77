/* zefake's own extension functions (ZE_experimental_zefake, include/zefake/zefake_ext.h), handed out by
 * zeDriverGetExtensionFunctionAddress: the one place that knows every area offering one. */
#include "zefake/zefake_ext.h"
#include "core/zf_core.h"
#include "core/zf_fault.h"
#include "driver/zf_driver.h"
#include "module/zf_kernel.h"

#include <stdio.h>
#include <string.h>

static ze_result_t ZE_APICALL zf_ext_get_info(zefake_info_t *info) {
    if (info == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (info->size < sizeof(zefake_info_t))
        return ZE_RESULT_ERROR_INVALID_SIZE;
    const zf_driver *driver = zf_driver_get();
    if (driver == NULL)
        return ZE_RESULT_ERROR_UNINITIALIZED;
    info->extension_version = ZEFAKE_EXTENSION_VERSION;
    snprintf(info->scenario_name, sizeof info->scenario_name, "%s", driver->scenario.name);
    snprintf(info->scenario_source, sizeof info->scenario_source, "%s", driver->scenario.source);
    info->api_functions = ZF_API_COUNT;
    info->api_implemented = ZF_API_IMPLEMENTED_COUNT;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL zf_ext_is_api_implemented(const char *name, ze_bool_t *implemented) {
    if (name == NULL || implemented == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    zf_api_id api = zf_api_from_name(name);
    if (api == ZF_API_COUNT)
        return ZE_RESULT_ERROR_INVALID_FUNCTION_NAME;
    *implemented = zf_api_table[api].implemented;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL zf_ext_get_tolerance_count(uint64_t *count, ze_bool_t reset) {
    if (count == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    *count = zf_tolerance_count(reset != 0);
    return ZE_RESULT_SUCCESS;
}

static void zf_ext_fill_shared(zf_card_share *shared, zefake_shared_device_t *state) {
    snprintf(state->segment, sizeof state->segment, "%s", zf_shared_name(shared));
    state->clock_origin_ns = zf_shared_clock_origin_ns(shared);
    state->busy_ns = zf_shared_busy_ns(shared);
    zf_shared_process processes[ZEFAKE_MAX_PROCESSES];
    state->num_processes = zf_shared_processes(shared, processes, ZEFAKE_MAX_PROCESSES);
    for (uint32_t i = 0; i < state->num_processes; i++)
        state->processes[i] = (zefake_device_process_t){(uint32_t)processes[i].pid, processes[i].memory_bytes};
}

static ze_result_t ZE_APICALL zf_ext_get_shared_device(const ze_device_uuid_t *uuid, zefake_shared_device_t *state) {
    if (uuid == NULL || state == NULL)
        return zf_fail(ZE_RESULT_ERROR_INVALID_NULL_POINTER, "uuid and state must not be NULL");
    if (state->size < sizeof(zefake_shared_device_t))
        return zf_fail(ZE_RESULT_ERROR_INVALID_SIZE, "state->size is %u, less than sizeof(zefake_shared_device_t)",
                       state->size);
    zf_driver *driver = zf_driver_get();
    if (driver == NULL)
        return zf_fail(ZE_RESULT_ERROR_UNINITIALIZED, "zeInit has not succeeded");
    zf_device *root = zf_device_by_uuid(driver, uuid);
    if (root == NULL)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "uuid: no device of the driver has this UUID");
    uint32_t size = state->size;
    memset(state, 0, sizeof *state);
    state->size = size;
    state->shared = root->shared != NULL;
    if (root->shared != NULL)
        zf_ext_fill_shared(root->shared, state);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL zf_ext_inject_call_fault(const char *function, ze_result_t result, uint32_t after,
                                                       uint32_t count) {
    if (function == NULL)
        return zf_fail(ZE_RESULT_ERROR_INVALID_NULL_POINTER, "zefakeInjectCallFault: function must not be NULL");
    zf_api_id api = zf_api_from_name(function);
    if (api == ZF_API_COUNT)
        return zf_fail(ZE_RESULT_ERROR_INVALID_FUNCTION_NAME,
                       "zefakeInjectCallFault: function: '%.64s' is not an API function of the driver's headers",
                       function);
    if (result == ZE_RESULT_SUCCESS)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                       "zefakeInjectCallFault: result: ZE_RESULT_SUCCESS is no fault; name the result to answer");
    if (zf_result_name(result) == NULL)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ENUMERATION,
                       "zefakeInjectCallFault: result: 0x%x is not a ze_result_t of the headers", (unsigned)result);
    if (count == 0)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                       "zefakeInjectCallFault: count: 0 fails no call; use ZEFAKE_FAULT_COUNT_ALL for every call");
    static atomic_uint armed;
    char origin[64];
    snprintf(origin, sizeof origin, "zefakeInjectCallFault rule %u", atomic_fetch_add(&armed, 1) + 1);
    uint64_t calls = count == ZEFAKE_FAULT_COUNT_ALL ? ZF_FAULT_COUNT_ALL : count;
    if (!zf_fault_arm_call(api, result, after, calls, origin))
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "zefakeInjectCallFault: no host memory for the rule");
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL zf_ext_inject_device_lost(const ze_device_uuid_t *uuid, uint32_t after_commands) {
    if (uuid == NULL)
        return zf_fail(ZE_RESULT_ERROR_INVALID_NULL_POINTER, "zefakeInjectDeviceLost: uuid must not be NULL");
    zf_driver *driver = zf_driver_get();
    if (driver == NULL)
        return zf_fail(ZE_RESULT_ERROR_UNINITIALIZED, "zefakeInjectDeviceLost: zeInit has not succeeded");
    zf_device *device = zf_device_with_uuid(driver, uuid);
    if (device == NULL)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "zefakeInjectDeviceLost: uuid: no device has this UUID");
    zf_device_arm_loss(device, after_commands);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL zf_ext_clear_faults(void) {
    uint32_t calls = zf_fault_clear_calls();
    zf_driver *driver = zf_driver_get();
    uint32_t devices = driver != NULL ? zf_devices_disarm_loss(driver) : 0;
    zf_log(ZF_LOG_INFO, "zefakeClearFaults: %u call rule(s) and %u device loss(es) disarmed", calls, devices);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL zf_ext_get_injected_fault_count(uint64_t *count, ze_bool_t reset) {
    if (count == NULL)
        return zf_fail(ZE_RESULT_ERROR_INVALID_NULL_POINTER, "zefakeGetInjectedFaultCount: count must not be NULL");
    *count = zf_fault_fired(reset != 0);
    return ZE_RESULT_SUCCESS;
}

typedef struct zf_ext_function {
    const char *name;
    void *address;
} zf_ext_function;

ze_result_t zfi_zeDriverGetExtensionFunctionAddress(ze_driver_handle_t hDriver, const char *name,
                                                    void **ppFunctionAddress) {
    (void)hDriver;
    const zf_ext_function functions[] = {
        {ZEFAKE_FN_GET_INFO, (void *)zf_ext_get_info},
        {ZEFAKE_FN_IS_API_IMPLEMENTED, (void *)zf_ext_is_api_implemented},
        {ZEFAKE_FN_SET_ANNOTATION_CALLBACK, (void *)zf_annotation_set_callback},
        {ZEFAKE_FN_GET_TOLERANCE_COUNT, (void *)zf_ext_get_tolerance_count},
        {ZEFAKE_FN_GET_SHARED_DEVICE, (void *)zf_ext_get_shared_device},
        {ZEFAKE_FN_INJECT_CALL_FAULT, (void *)zf_ext_inject_call_fault},
        {ZEFAKE_FN_INJECT_DEVICE_LOST, (void *)zf_ext_inject_device_lost},
        {ZEFAKE_FN_CLEAR_FAULTS, (void *)zf_ext_clear_faults},
        {ZEFAKE_FN_GET_INJECTED_FAULT_COUNT, (void *)zf_ext_get_injected_fault_count},
        {"zeDeviceGetRootDevice", (void *)zf_device_get_root_device},
        {"zexKernelGetBaseAddress", (void *)zf_kernel_get_base_address}, /* Intel's, docs/extensions.md */
    };
    for (size_t i = 0; i < sizeof functions / sizeof functions[0]; i++) {
        if (strcmp(functions[i].name, name) == 0) {
            *ppFunctionAddress = functions[i].address;
            return ZE_RESULT_SUCCESS;
        }
    }
    *ppFunctionAddress = NULL;
    return zf_fail(ZE_RESULT_ERROR_INVALID_FUNCTION_NAME, "name: '%s' is not an extension function of zefake", name);
}
