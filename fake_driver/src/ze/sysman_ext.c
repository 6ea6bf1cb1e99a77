/* zesDriverGetExtensionFunctionAddress (Level Zero 1.8): the functions of the sysman extensions
 * zesDriverGetExtensionProperties advertises (tools/sysman/sysman_driver.c, docs/sysman.md, "Extensions"), each as its
 * dispatch-table slot holds it, so that a call through the address is checked, traced and fault-injected like any
 * other. The composition root hands them out because only it sees the generated getters. */
#include "core/zf_core.h"
#include "tools/sysman/zf_sysman.h"

#include <level_zero/zes_ddi.h>
#include <string.h>

#if ZF_L0_AT_LEAST(8)

typedef struct zf_sm_ext_function {
    const char *name;
    void *address;
} zf_sm_ext_function;

#define ZF_SM_EXT_MAX 24u

/* Fills `out` with the extension functions; returns their number. */
static uint32_t zf_sm_ext_functions(zf_sm_ext_function out[ZF_SM_EXT_MAX]) {
    uint32_t n = 0;
    zes_power_dditable_t power = {0};
    zesGetPowerProcAddrTable(ZE_API_VERSION_CURRENT, &power); /* ZES_extension_power_limits */
    out[n++] = (zf_sm_ext_function){"zesPowerGetLimitsExt", (void *)power.pfnGetLimitsExt};
    out[n++] = (zf_sm_ext_function){"zesPowerSetLimitsExt", (void *)power.pfnSetLimitsExt};
    zes_ras_exp_dditable_t ras = {0};
    zesGetRasExpProcAddrTable(ZE_API_VERSION_CURRENT, &ras); /* ZES_extension_ras_state */
    out[n++] = (zf_sm_ext_function){"zesRasGetStateExp", (void *)ras.pfnGetStateExp};
    out[n++] = (zf_sm_ext_function){"zesRasClearStateExp", (void *)ras.pfnClearStateExp};
    zes_engine_dditable_t engine = {0};
    zesGetEngineProcAddrTable(ZE_API_VERSION_CURRENT, &engine); /* ZES_extension_engine_activity */
    out[n++] = (zf_sm_ext_function){"zesEngineGetActivityExt", (void *)engine.pfnGetActivityExt};
#if ZF_L0_AT_LEAST(9)
    zes_device_exp_dditable_t device = {0};
    zesGetDeviceExpProcAddrTable(ZE_API_VERSION_CURRENT, &device); /* ZES_experimental_sysman_device_mapping */
    out[n++] = (zf_sm_ext_function){"zesDeviceGetSubDevicePropertiesExp", (void *)device.pfnGetSubDevicePropertiesExp};
    zes_driver_exp_dditable_t driver = {0};
    zesGetDriverExpProcAddrTable(ZE_API_VERSION_CURRENT, &driver);
    out[n++] = (zf_sm_ext_function){"zesDriverGetDeviceByUuidExp", (void *)driver.pfnGetDeviceByUuidExp};
#endif
#if ZF_L0_AT_LEAST(10)
    /* ZES_experimental_virtual_function_management: the virtual functions of the scenario (docs/sysman.md); the
     * functions the header deprecated answer ZE_RESULT_ERROR_UNSUPPORTED_FEATURE as their slots do. */
    zes_vf_management_exp_dditable_t vf = {0};
    zesGetVFManagementExpProcAddrTable(ZE_API_VERSION_CURRENT, &vf);
    out[n++] = (zf_sm_ext_function){"zesDeviceEnumActiveVFExp", (void *)device.pfnEnumActiveVFExp};
    out[n++] = (zf_sm_ext_function){"zesDeviceEnumEnabledVFExp", (void *)device.pfnEnumEnabledVFExp};
    out[n++] = (zf_sm_ext_function){"zesVFManagementGetVFPropertiesExp", (void *)vf.pfnGetVFPropertiesExp};
    out[n++] =
        (zf_sm_ext_function){"zesVFManagementGetVFMemoryUtilizationExp", (void *)vf.pfnGetVFMemoryUtilizationExp};
    out[n++] =
        (zf_sm_ext_function){"zesVFManagementGetVFEngineUtilizationExp", (void *)vf.pfnGetVFEngineUtilizationExp};
    out[n++] = (zf_sm_ext_function){"zesVFManagementSetVFTelemetryModeExp", (void *)vf.pfnSetVFTelemetryModeExp};
    out[n++] = (zf_sm_ext_function){"zesVFManagementSetVFTelemetrySamplingIntervalExp",
                                    (void *)vf.pfnSetVFTelemetrySamplingIntervalExp};
    out[n++] = (zf_sm_ext_function){"zesVFManagementGetVFCapabilitiesExp", (void *)vf.pfnGetVFCapabilitiesExp};
    out[n++] =
        (zf_sm_ext_function){"zesVFManagementGetVFMemoryUtilizationExp2", (void *)vf.pfnGetVFMemoryUtilizationExp2};
    out[n++] =
        (zf_sm_ext_function){"zesVFManagementGetVFEngineUtilizationExp2", (void *)vf.pfnGetVFEngineUtilizationExp2};
#endif
#if ZF_L0_AT_LEAST(12)
    out[n++] = (zf_sm_ext_function){"zesVFManagementGetVFCapabilitiesExp2", (void *)vf.pfnGetVFCapabilitiesExp2};
#endif
    return n;
}

/* An unknown name answers ZE_RESULT_ERROR_INVALID_FUNCTION_NAME, as zeDriverGetExtensionFunctionAddress does
 * (ze/zefake_ext.c); the header names no code for it (Intel's driver answers ZE_RESULT_ERROR_INVALID_ARGUMENT). */
ze_result_t zfi_zesDriverGetExtensionFunctionAddress(zes_driver_handle_t hDriver, const char *name,
                                                     void **ppFunctionAddress) {
    (void)hDriver;
    *ppFunctionAddress = NULL;
    ze_result_t result = zf_sm_require();
    if (result != ZE_RESULT_SUCCESS)
        return result;
    zf_sm_ext_function functions[ZF_SM_EXT_MAX];
    uint32_t n = zf_sm_ext_functions(functions);
    for (uint32_t i = 0; i < n; i++) {
        if (strcmp(functions[i].name, name) == 0) {
            *ppFunctionAddress = functions[i].address;
            return ZE_RESULT_SUCCESS;
        }
    }
    return zf_fail(ZE_RESULT_ERROR_INVALID_FUNCTION_NAME,
                   "name: '%s' is not a function of a sysman extension zesDriverGetExtensionProperties lists", name);
}

#endif
