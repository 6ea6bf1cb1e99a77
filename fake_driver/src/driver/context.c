/* Contexts: the devices they may use. Later object families (memory, queues, lists, events) hang off them; their
 * teardown is the composition root's (ze/lifecycle.c). */
#include "core/zf_core.h"
#include "driver/zf_driver.h"

#include <stdlib.h>

/* One allocation for the context and its device list: children of a destroyed context read the list until the last
 * of them is gone (zf_object_retire keeps the memory until then). */
static ze_result_t zf_context_create(zf_driver *driver, uint32_t num_devices, zf_device *const *devices,
                                     ze_context_handle_t *phContext) {
    zf_context *context = calloc(1, sizeof *context + (size_t)num_devices * sizeof *devices);
    if (context == NULL)
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory for a context");
    context->driver = driver;
    context->num_devices = num_devices;
    context->devices = context->device_list;
    for (uint32_t i = 0; i < num_devices; i++)
        context->device_list[i] = devices[i];
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
    return zf_context_create(driver, driver->num_devices, driver->visible, phContext);
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
    return zf_context_create(driver, numDevices, (zf_device *const *)phDevices, phContext);
}

bool zf_context_has_device(const zf_context *context, const zf_device *device) {
    for (uint32_t i = 0; i < context->num_devices; i++) {
        if (context->devices[i] == device || context->devices[i] == device->root)
            return true;
    }
    return false;
}

void zf_context_retire(zf_context *context) {
    zf_object_retire(&context->header);
}

ze_result_t zfi_zeContextGetStatus(ze_context_handle_t hContext) {
    (void)hContext;
    return ZE_RESULT_SUCCESS;
}
