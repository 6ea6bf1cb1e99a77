/* zefake's own extension functions (ZE_experimental_zefake, include/zefake/zefake_ext.h), handed out by
 * zeDriverGetExtensionFunctionAddress: the one place that knows every area offering one. */
#include "zefake/zefake_ext.h"
#include "core/zf_core.h"
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
    for (int api = 0; api < ZF_API_COUNT; api++) {
        if (strcmp(zf_api_table[api].name, name) == 0) {
            *implemented = zf_api_table[api].implemented;
            return ZE_RESULT_SUCCESS;
        }
    }
    return ZE_RESULT_ERROR_INVALID_FUNCTION_NAME;
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
