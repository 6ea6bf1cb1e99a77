/* Virtual functions (zes_api.h, "Virtual Function Management", ZES_experimental_virtual_function_management): the
 * SR-IOV virtual functions the scenario's sysman.virtual_functions enables on a card (none on the shipped scenarios;
 * docs/sysman.md, "Virtual functions"). Every process of the model uses the physical function, so a virtual function
 * runs no work: its engines are idle and its memory unused, while its counters advance with device time. Each is
 * provisioned an equal share of the card's device memory (the physical function keeping one), on the PCI functions
 * after the card's. The functions the header deprecated answer ZE_RESULT_ERROR_UNSUPPORTED_FEATURE, as Intel's driver
 * does (fake_driver/gen/unsupported_reasons.txt). */
#include "core/zf_chain.h"
#include "memory/zf_memory.h"
#include "tools/sysman/zf_sysman.h"

/* Virtual-function handles exist with headers that have them (1.9); before, no function could reach one. */
#if ZF_L0_AT_LEAST(9)
static zf_sm_vf *zf_sm_vf_from(zes_vf_handle_t handle) {
    return (zf_sm_vf *)handle;
}

bool zf_sm_vf_start(zf_sm_device *sm) {
    if (zf_device_reported_as_subdevice(sm->device)) /* the virtual functions are the card's PCI functions */
        return true;
    bool ok = true;
    for (uint32_t i = 0; i < sm->device->desc->sysman.virtual_functions; i++) {
        zf_sm_vf *vf = &sm->vfs[sm->num_vfs++];
        *vf = (zf_sm_vf){.owner = sm, .id = i + 1};
        ok &= zf_object_register(&vf->header, ZF_OBJ_ZES_VF, &sm->device->header);
    }
    return ok;
}
#else
bool zf_sm_vf_start(zf_sm_device *sm) {
    (void)sm;
    return true;
}
#endif

#if ZF_L0_AT_LEAST(10)
ze_result_t zfi_zesDeviceEnumEnabledVFExp(zes_device_handle_t hDevice, uint32_t *pCount, zes_vf_handle_t *phVFhandle) {
    zf_sm_device *sm;
    ze_result_t result = zf_sm_device_of(hDevice, &sm);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    zf_sm_fill_handles(pCount, sm->num_vfs, (void **)phVFhandle, sm->vfs, sizeof sm->vfs[0]);
    return ZE_RESULT_SUCCESS;
}

/* One memory location, the device's: nothing of it is used by the function's (absent) work. */
ze_result_t zfi_zesVFManagementGetVFMemoryUtilizationExp2(zes_vf_handle_t hVFhandle, uint32_t *pCount,
                                                          zes_vf_util_mem_exp2_t *pMemUtil) {
    (void)hVFhandle;
    uint32_t n = zf_count_query(pCount, 1, pMemUtil);
    for (uint32_t i = 0; i < n; i++) {
        zf_out_check(&pMemUtil[i], "pMemUtil[i]", ZES_STRUCTURE_TYPE_VF_UTIL_MEM_EXP2);
        pMemUtil[i].vfMemLocation = ZES_MEM_LOC_DEVICE;
        pMemUtil[i].vfMemUtilized = 0;
    }
    return ZE_RESULT_SUCCESS;
}

/* The engine groups of its card's kinds (compute, copy), each idle: an active counter of 0 against a sampling
 * counter of the card's device time since counting started, in ns. */
ze_result_t zfi_zesVFManagementGetVFEngineUtilizationExp2(zes_vf_handle_t hVFhandle, uint32_t *pCount,
                                                          zes_vf_util_engine_exp2_t *pEngineUtil) {
    zf_sm_device *sm = zf_sm_vf_from(hVFhandle)->owner;
    zes_engine_group_t kinds[2];
    uint32_t available = 0;
    for (uint32_t i = 0; i < sm->num_engines; i++)
        if (sm->engines[i].type == ZES_ENGINE_GROUP_COMPUTE_ALL || sm->engines[i].type == ZES_ENGINE_GROUP_COPY_ALL)
            kinds[available++] = sm->engines[i].type;
    zf_sm_lock();
    uint64_t sampled = zf_sm_device_ns(sm);
    zf_sm_unlock();
    uint32_t n = zf_count_query(pCount, available, pEngineUtil);
    for (uint32_t i = 0; i < n; i++) {
        zf_out_check(&pEngineUtil[i], "pEngineUtil[i]", ZES_STRUCTURE_TYPE_VF_UTIL_ENGINE_EXP2);
        pEngineUtil[i].vfEngineType = kinds[i];
        pEngineUtil[i].activeCounterValue = 0;
        pEngineUtil[i].samplingCounterValue = sampled;
    }
    return ZE_RESULT_SUCCESS;
}
#endif

#if ZF_L0_AT_LEAST(12)
ze_result_t zfi_zesVFManagementGetVFCapabilitiesExp2(zes_vf_handle_t hVFhandle,
                                                     zes_vf_exp2_capabilities_t *pCapability) {
    const zf_sm_vf *vf = zf_sm_vf_from(hVFhandle);
    const zf_device *card = vf->owner->device;
    const zf_scenario_pci *pci = &card->desc->pci;
    uint64_t used, memory;
    zf_memory_device_usage(card->root, &used, &memory);
    zf_out_check(pCapability, "pCapability", ZES_STRUCTURE_TYPE_VF_EXP2_CAPABILITIES);
    pCapability->address = (zes_pci_address_t){pci->domain, pci->bus, pci->device, pci->function + vf->id};
    pCapability->vfDeviceMemSize = memory / (vf->owner->num_vfs + 1u);
    pCapability->vfID = vf->id;
    return ZE_RESULT_SUCCESS;
}
#endif
