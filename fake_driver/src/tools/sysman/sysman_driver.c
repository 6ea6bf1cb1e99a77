/* Sysman's drivers and devices (zes_api.h, Level Zero 1.5 and later; docs/sysman.md, "Initialisation"):
 * - zesInit initialises sysman alone: it builds the driver's devices from the scenario, as zeInit would, without
 *   making the core API usable (zeInit still decides that), and enables sysman; later calls change nothing;
 * - zesDriverGet answers the one driver, zesDeviceGet its cards in the order of the scenario file, whatever
 *   ZE_FLAT_DEVICE_HIERARCHY and ZE_ENABLE_PCI_ID_DEVICE_ORDER say, as the header asks. A card's handle is its core
 *   device handle, and the core handles of tiles stay sysman handles too (the legacy model's, docs/sysman.md);
 * - the extensions of zes_api.h whose functions and structures work over the model, and the device mapping
 *   (ZES_experimental_sysman_device_mapping): a device's sub-devices, and the device a UUID names.
 * Every function answers ZE_RESULT_ERROR_UNINITIALIZED until zesInit, or zeInit with ZES_ENABLE_SYSMAN=1. */
#include "core/zf_chain.h"
#include "tools/sysman/zf_sysman.h"

#include <string.h>

#if ZF_L0_AT_LEAST(5)

/* ZES_INIT_FLAG_PLACEHOLDER, the one flag the header's range allows, means nothing ("currently unused"): Intel's driver
 * accepts it too. */
ze_result_t zfi_zesInit(zes_init_flags_t flags) {
    (void)flags;
    if (zf_sm_driver() != NULL)
        return ZE_RESULT_SUCCESS; /* once per process (zes_api.h): the first call counts */
    zf_driver *driver;
    ze_result_t result = zf_driver_build_once(&driver);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    return zf_sm_enable(driver);
}

ze_result_t zfi_zesDriverGet(uint32_t *pCount, zes_driver_handle_t *phDrivers) {
    ze_result_t result = zf_sm_require();
    if (result != ZE_RESULT_SUCCESS)
        return result;
    zf_driver *driver = zf_sm_driver();
    uint32_t available = driver->scenario.num_devices > 0 ? 1 : 0;
    if (zf_count_query(pCount, available, phDrivers) > 0)
        phDrivers[0] = (zes_driver_handle_t)driver;
    return ZE_RESULT_SUCCESS;
}

/* The driver's cards in the order of the scenario file (not of ZE_ENABLE_PCI_ID_DEVICE_ORDER); returns their number. */
static uint32_t zf_sm_cards(zf_driver *driver, zf_device *out[ZF_SCENARIO_MAX_DEVICES]) {
    uint32_t n = driver->scenario.num_devices;
    for (uint32_t i = 0; i < n; i++) {
        zf_device *card = &driver->devices[i];
        uint32_t j = i;
        for (; j > 0 && driver->origins[out[j - 1]->root_index].index > driver->origins[i].index; j--)
            out[j] = out[j - 1];
        out[j] = card;
    }
    return n;
}

ze_result_t zfi_zesDeviceGet(zes_driver_handle_t hDriver, uint32_t *pCount, zes_device_handle_t *phDevices) {
    ze_result_t result = zf_sm_require();
    if (result != ZE_RESULT_SUCCESS)
        return result;
    zf_device *cards[ZF_SCENARIO_MAX_DEVICES];
    uint32_t available = zf_sm_cards(zf_driver_from(hDriver), cards);
    uint32_t n = zf_count_query(pCount, available, phDevices);
    for (uint32_t i = 0; i < n; i++)
        phDevices[i] = (zes_device_handle_t)cards[i];
    return ZE_RESULT_SUCCESS;
}

#endif

#if ZF_L0_AT_LEAST(8)

/* The extensions of zes_api.h that work over the model (docs/sysman.md, "Extensions"). Left out: memory page
 * offlining (not modelled) and the firmware security version (the firmware cannot be written, so its version cannot
 * be raised). */
static const zes_driver_extension_properties_t zf_sm_extensions[] = {
    {ZES_POWER_LIMITS_EXT_NAME, ZES_POWER_LIMITS_EXT_VERSION_CURRENT},
    {ZES_ENGINE_ACTIVITY_EXT_NAME, ZES_ENGINE_ACTIVITY_EXT_VERSION_CURRENT},
    {ZES_RAS_GET_STATE_EXP_NAME, ZES_RAS_STATE_EXP_VERSION_CURRENT},
    {ZES_MEMORY_BANDWIDTH_COUNTER_BITS_EXP_PROPERTIES_NAME, ZES_MEM_BANDWIDTH_COUNTER_BITS_EXP_VERSION_CURRENT},
    {ZES_POWER_DOMAIN_PROPERTIES_EXP_NAME, ZES_POWER_DOMAIN_PROPERTIES_EXP_VERSION_CURRENT},
#if ZF_L0_AT_LEAST(9)
    {ZES_SYSMAN_DEVICE_MAPPING_EXP_NAME, ZES_SYSMAN_DEVICE_MAPPING_EXP_VERSION_CURRENT},
#endif
#if ZF_L0_AT_LEAST(10)
    {ZES_VIRTUAL_FUNCTION_MANAGEMENT_EXP_NAME, ZES_VF_MANAGEMENT_EXP_VERSION_CURRENT},
#endif
};

ze_result_t zfi_zesDriverGetExtensionProperties(zes_driver_handle_t hDriver, uint32_t *pCount,
                                                zes_driver_extension_properties_t *pExtensionProperties) {
    (void)hDriver;
    ze_result_t result = zf_sm_require();
    if (result != ZE_RESULT_SUCCESS)
        return result;
    uint32_t available = sizeof zf_sm_extensions / sizeof zf_sm_extensions[0];
    uint32_t n = zf_count_query(pCount, available, pExtensionProperties);
    for (uint32_t i = 0; i < n; i++)
        pExtensionProperties[i] = zf_sm_extensions[i];
    return ZE_RESULT_SUCCESS;
}

#endif

#if ZF_L0_AT_LEAST(9)

/* A card's tiles; none for a tile or a card without tiles. */
ze_result_t zfi_zesDeviceGetSubDevicePropertiesExp(zes_device_handle_t hDevice, uint32_t *pCount,
                                                   zes_subdevice_exp_properties_t *pSubdeviceProps) {
    zf_sm_device *sm;
    ze_result_t result = zf_sm_device_of(hDevice, &sm);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    const zf_device *device = sm->device;
    uint32_t n = zf_count_query(pCount, device->num_subdevices, pSubdeviceProps);
    for (uint32_t i = 0; i < n; i++) {
        zes_subdevice_exp_properties_t *p = &pSubdeviceProps[i];
        zf_out_check(p, "pSubdeviceProps[i]", ZES_STRUCTURE_TYPE_SUBDEVICE_EXP_PROPERTIES);
        p->subdeviceId = device->subdevices[i].subdevice_id;
        memcpy(p->uuid.id, device->subdevices[i].uuid.id, sizeof p->uuid.id);
    }
    return ZE_RESULT_SUCCESS;
}

/* The card (a device of zesDeviceGet) that is, or holds as a tile, the device of this UUID. */
ze_result_t zfi_zesDriverGetDeviceByUuidExp(zes_driver_handle_t hDriver, zes_uuid_t uuid, zes_device_handle_t *phDevice,
                                            ze_bool_t *onSubdevice, uint32_t *subdeviceId) {
    ze_result_t result = zf_sm_require();
    if (result != ZE_RESULT_SUCCESS)
        return result;
    ze_device_uuid_t id;
    memcpy(id.id, uuid.id, sizeof id.id);
    zf_device *device = zf_device_with_uuid(zf_driver_from(hDriver), &id);
    if (device == NULL)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                       "uuid: no device of the driver (zesDeviceGet) nor any of their sub-devices has it");
    *phDevice = (zes_device_handle_t)device->root;
    *onSubdevice = device->is_subdevice;
    *subdeviceId = device->is_subdevice ? device->subdevice_id : 0;
    return ZE_RESULT_SUCCESS;
}

#endif
