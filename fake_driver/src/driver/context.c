/* Contexts: the devices they may use. Later object families (memory, queues, lists, events) hang off them; their
 * teardown is the composition root's (ze/lifecycle.c). */
#include "core/zf_core.h"
#include "driver/zf_driver.h"

#include <stdlib.h>

static ze_result_t zf_context_create(zf_driver *driver, uint32_t num_devices, zf_device **devices,
                                     ze_context_handle_t *phContext) {
    zf_context *context = calloc(1, sizeof *context);
    if (context == NULL)
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory for a context");
    context->driver = driver;
    context->num_devices = num_devices;
    context->devices = devices;
    if (!zf_object_register(&context->header, ZF_OBJ_ZE_CONTEXT, &driver->header)) {
        free(context);
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory to register a context");
    }
    *phContext = (ze_context_handle_t)context;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zeContextCreate(ze_driver_handle_t hDriver, const ze_context_desc_t *desc,
                                ze_context_handle_t *phContext) {
    (void)desc;
    zf_driver *driver = zf_driver_from(hDriver);
    zf_device **devices = calloc(driver->num_devices, sizeof *devices);
    if (devices == NULL)
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory for a context's device list");
    for (uint32_t i = 0; i < driver->num_devices; i++)
        devices[i] = driver->visible[i];
    ze_result_t result = zf_context_create(driver, driver->num_devices, devices, phContext);
    if (result != ZE_RESULT_SUCCESS)
        free(devices);
    return result;
}

ze_result_t zfi_zeContextCreateEx(ze_driver_handle_t hDriver, const ze_context_desc_t *desc, uint32_t numDevices,
                                  ze_device_handle_t *phDevices, ze_context_handle_t *phContext) {
    zf_driver *driver = zf_driver_from(hDriver);
    if (numDevices == 0)
        return zfi_zeContextCreate(hDriver, desc, phContext); /* the spec: 0 devices means all of them */
    for (uint32_t i = 0; i < numDevices; i++) {
        if (!zf_handle_is_live(phDevices[i], ZF_OBJ_ZE_DEVICE))
            return zf_fail(ZE_RESULT_ERROR_INVALID_NULL_HANDLE, "phDevices[%u] (%p) is not a live device handle", i,
                           (void *)phDevices[i]);
        if (zf_device_from(phDevices[i])->driver != driver)
            return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "phDevices[%u] belongs to another driver", i);
    }
    zf_device **devices = calloc(numDevices, sizeof *devices);
    if (devices == NULL)
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory for a context's device list");
    for (uint32_t i = 0; i < numDevices; i++)
        devices[i] = zf_device_from(phDevices[i]);
    ze_result_t result = zf_context_create(driver, numDevices, devices, phContext);
    if (result != ZE_RESULT_SUCCESS)
        free(devices);
    return result;
}

bool zf_context_has_device(const zf_context *context, const zf_device *device) {
    for (uint32_t i = 0; i < context->num_devices; i++) {
        if (context->devices[i] == device || context->devices[i] == device->root)
            return true;
    }
    return false;
}

void zf_context_retire(zf_context *context) {
    free(context->devices);
    context->devices = NULL;
    zf_object_retire(&context->header);
}

ze_result_t zfi_zeContextGetStatus(ze_context_handle_t hContext) {
    (void)hContext;
    return ZE_RESULT_SUCCESS;
}
