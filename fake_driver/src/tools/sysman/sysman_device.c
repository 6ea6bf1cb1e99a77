/* Sysman device functions (zes_api.h, "Device management"): properties and state, reset, processes, PCI, firmware,
 * RAS error sets, ECC, fabric ports (sysman_fabric.c), and the enumerations of components zefake's cards do not have
 * (overclock domains), which answer a count of 0; diagnostics are in sysman_diag.c, fans, LEDs and power supplies in
 * sysman_board.c, virtual functions in sysman_vf.c.
 * docs/sysman.md. */
#include "core/zf_chain.h"
#include "core/zf_shared.h"
#include "memory/zf_memory.h"
#include "tools/sysman/zf_sysman.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* PCIe 4.0 x16 (docs/sysman.md): 16 GT/s per lane with 128b/130b encoding, in bytes per second. */
#define ZF_SM_PCI_GEN           4
#define ZF_SM_PCI_WIDTH         16
#define ZF_SM_PCI_BANDWIDTH     31507692307ll
#define ZF_SM_PCI_MMIO_BAR_SIZE (16ull << 20)

/* The device name, cut to the sysman string size. */
static void zf_sm_copy_name(char out[ZES_STRING_PROPERTY_SIZE], const char *name) {
    size_t n = strnlen(name, ZES_STRING_PROPERTY_SIZE - 1);
    memcpy(out, name, n);
    out[n] = '\0';
}

/* zes_device_ext_properties_t (Level Zero 1.7) in the chain of zesDeviceGetProperties: the core UUID, type and flags
 * (both enumerations share the core's values). */
static void zf_sm_device_ext(const zf_device *device, void *chain) {
#if ZF_L0_AT_LEAST(7)
    zf_chain_foreach_out(ext, chain) {
        if ((uint32_t)ext->stype != ZES_STRUCTURE_TYPE_DEVICE_EXT_PROPERTIES)
            continue;
        zes_device_ext_properties_t *p = (zes_device_ext_properties_t *)ext;
        memcpy(p->uuid.id, device->uuid.id, sizeof p->uuid.id);
        p->type = (zes_device_type_t)device->properties.type;
        p->flags = (zes_device_property_flags_t)device->properties.flags;
    }
#else
    (void)device;
    (void)chain;
#endif
}

ze_result_t zfi_zesDeviceGetProperties(zes_device_handle_t hDevice, zes_device_properties_t *pProperties) {
    zf_sm_device *sm;
    ze_result_t result = zf_sm_device_of(hDevice, &sm);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    zf_device *device = sm->device;
    /* The core properties as zeDeviceGetProperties answers them for this stype (timerResolution in Hz). */
    pProperties->core = (ze_device_properties_t){.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2};
    zfi_zeDeviceGetProperties(hDevice, &pProperties->core);
    pProperties->numSubdevices = device->num_subdevices;
    char *serial = pProperties->serialNumber;
    for (uint32_t i = 0; i < 8; i++) /* derived from the UUID: stable per physical device and tile */
        snprintf(serial + 2 * i, 3, "%02x", device->uuid.id[i]);
    snprintf(pProperties->boardNumber, ZES_STRING_PROPERTY_SIZE, "%s", "unknown");
    zf_sm_copy_name(pProperties->brandName, device->desc->name);
    zf_sm_copy_name(pProperties->modelName, device->desc->name);
    snprintf(pProperties->vendorName, ZES_STRING_PROPERTY_SIZE, "%s", "Intel(R) Corporation");
    snprintf(pProperties->driverVersion, ZES_STRING_PROPERTY_SIZE, "%u", device->driver->scenario.driver_version);
    zf_sm_device_ext(device, zf_out_chain(pProperties, "pProperties", ZES_STRUCTURE_TYPE_DEVICE_PROPERTIES));
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zesDeviceGetState(zes_device_handle_t hDevice, zes_device_state_t *pState) {
    zf_sm_device *sm;
    ze_result_t result = zf_sm_device_of(hDevice, &sm);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    /* A recorded execution fault leaves the device needing a reset, as a hung GPU is reported wedged; a diagnostics
     * run that set up a repair, until the reset performs it (sysman_diag.c). */
    pState->reset = atomic_load(&sm->device->faults) > 0 ? ZES_RESET_REASON_FLAG_WEDGED : 0;
    zf_sm_lock();
    pState->reset |= sm->repair_pending ? ZES_RESET_REASON_FLAG_REPAIR : 0;
    pState->repaired = sm->repaired ? ZES_REPAIR_STATUS_PERFORMED : ZES_REPAIR_STATUS_NOT_PERFORMED;
    zf_sm_unlock();
    return ZE_RESULT_SUCCESS;
}

/* How long zesDeviceReset waits for the device's work to finish before it answers HANDLE_OBJECT_IN_USE. */
#define ZF_SM_RESET_WAIT_NS 10000000000ull

/* A reset of the device: every kind of zesDeviceResetExt does the same, since the model keeps no state a warm, a
 * cold and a function-level reset would treat differently. */
static ze_result_t zf_sm_reset(zf_sm_device *sm, ze_bool_t force) {
    /* Without force the reset waits for the device to be idle; with force it does not wait either, since work
     * already queued cannot be taken back: it completes (or faults) before the fault record is cleared. */
    if (!force && !zf_device_wait_idle(sm->device, ZF_SM_RESET_WAIT_NS))
        return zf_fail(ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE,
                       "the device still runs work after 10 s; pass force to reset it anyway");
    if (force)
        zf_device_wait_idle(sm->device, UINT64_MAX);
    uint32_t cleared = zf_device_clear_faults(sm->device);
    zf_sm_lock();
    sm->resets++;
    sm->repaired |= sm->repair_pending; /* the reset completes the repair a diagnostics run set up */
    sm->repair_pending = false;
    zf_sm_check_all();
    zf_sm_unlock();
    zf_log(ZF_LOG_INFO, "%s: reset %u (%u fault(s) cleared)", sm->device->desc->name, sm->resets, cleared);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zesDeviceReset(zes_device_handle_t hDevice, ze_bool_t force) {
    zf_sm_device *sm;
    ze_result_t result = zf_sm_device_of(hDevice, &sm);
    return result == ZE_RESULT_SUCCESS ? zf_sm_reset(sm, force) : result;
}

#if ZF_L0_AT_LEAST(7)
/* zes_reset_properties_t is a descriptor ([in]): its stype, chain and reset type are checked before the reset. */
static ze_result_t zf_sm_check_reset(const zes_reset_properties_t *p) {
    if (p->stype != ZES_STRUCTURE_TYPE_RESET_PROPERTIES)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                       "pProperties->stype is 0x%x, not ZES_STRUCTURE_TYPE_RESET_PROPERTIES", (unsigned)p->stype);
    if (p->resetType > ZES_RESET_TYPE_FLR)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ENUMERATION, "pProperties->resetType %u is not a zes_reset_type_t",
                       (unsigned)p->resetType);
    return zf_chain_check(p->pNext, "pProperties");
}

ze_result_t zfi_zesDeviceResetExt(zes_device_handle_t hDevice, zes_reset_properties_t *pProperties) {
    zf_sm_device *sm;
    ze_result_t result = zf_sm_device_of(hDevice, &sm);
    if (result == ZE_RESULT_SUCCESS)
        result = zf_sm_check_reset(pProperties);
    return result == ZE_RESULT_SUCCESS ? zf_sm_reset(sm, pProperties->force) : result;
}
#endif

/* The engines of this process's work on the device: the kinds with busy time. */
static zes_engine_type_flags_t zf_sm_own_engines(zf_sm_device *sm) {
    zes_engine_type_flags_t flags = 0;
    zf_sm_lock();
    for (uint32_t i = 0; i < sm->num_engines; i++) {
        const zf_sm_engine *e = &sm->engines[i];
        if (!e->group && e->busy_ns > 0)
            flags |=
                e->type == ZES_ENGINE_GROUP_COMPUTE_SINGLE ? ZES_ENGINE_TYPE_FLAG_COMPUTE : ZES_ENGINE_TYPE_FLAG_DMA;
    }
    zf_sm_unlock();
    return flags;
}

static zes_engine_type_flags_t zf_sm_engine_kinds(uint32_t kinds) {
    return ((kinds & (1u << ZF_SHARED_COMPUTE)) ? ZES_ENGINE_TYPE_FLAG_COMPUTE : 0) |
           ((kinds & (1u << ZF_SHARED_COPY)) ? ZES_ENGINE_TYPE_FLAG_DMA : 0);
}

static void zf_sm_process(zes_process_state_t *out, int32_t pid, uint64_t memory, zes_engine_type_flags_t engines) {
    out->processId = (uint32_t)pid;
    out->memSize = memory;
    out->sharedSize = 0;
    out->engines = engines;
}

ze_result_t zfi_zesDeviceProcessesGetState(zes_device_handle_t hDevice, uint32_t *pCount,
                                           zes_process_state_t *pProcesses) {
    zf_sm_device *sm;
    ze_result_t result = zf_sm_device_of(hDevice, &sm);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    zf_shared_process list[ZF_SHARED_MAX_PROCESSES];
    uint32_t found = 0;
    uint64_t used, card_used, capacity;
    zf_memory_device_usage(sm->device, &used, &capacity);
    zf_card_share *shared = zf_device_shared(sm->device);
    if (shared != NULL) { /* this process's entry brought up to date first */
        zf_memory_device_usage(sm->device->root, &card_used, &capacity);
        zf_shared_set_memory(shared, card_used);
        found = zf_shared_processes(shared, list, ZF_SHARED_MAX_PROCESSES);
    }
    if (found == 0) /* an unshared card: this process alone */
        list[found++] = (zf_shared_process){.pid = (int32_t)getpid()};
    /* The header: *pCount smaller than the number of processes fills none and answers ERROR_INVALID_SIZE. */
    if (pProcesses != NULL && *pCount != 0 && *pCount < found) {
        uint32_t asked = *pCount;
        *pCount = found;
        return zf_fail(ZE_RESULT_ERROR_INVALID_SIZE, "*pCount %u is smaller than the %u processes", asked, found);
    }
    uint32_t n = zf_count_query(pCount, found, pProcesses);
    zes_engine_type_flags_t own = zf_sm_own_engines(sm);
    for (uint32_t i = 0; i < n; i++)
        if (list[i].pid == getpid()) /* this process: its memory on this very device */
            zf_sm_process(&pProcesses[i], list[i].pid, used, own);
        else /* another: its memory on the card, the kinds of engine it used on it */
            zf_sm_process(&pProcesses[i], list[i].pid, list[i].memory_bytes, zf_sm_engine_kinds(list[i].kinds));
    return ZE_RESULT_SUCCESS;
}

static zes_pci_speed_t zf_sm_pci_speed(void) {
    return (zes_pci_speed_t){.gen = ZF_SM_PCI_GEN, .width = ZF_SM_PCI_WIDTH, .maxBandwidth = ZF_SM_PCI_BANDWIDTH};
}

ze_result_t zfi_zesDevicePciGetProperties(zes_device_handle_t hDevice, zes_pci_properties_t *pProperties) {
    zf_sm_device *sm;
    ze_result_t result = zf_sm_device_of(hDevice, &sm);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    const zf_scenario_pci *pci = &sm->device->desc->pci;
    pProperties->address = (zes_pci_address_t){pci->domain, pci->bus, pci->device, pci->function};
    pProperties->maxSpeed = zf_sm_pci_speed();
    pProperties->haveBandwidthCounters = false; /* no counters of the link: rx/tx read 0 */
    pProperties->havePacketCounters = false;
    pProperties->haveReplayCounters = false;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zesDevicePciGetState(zes_device_handle_t hDevice, zes_pci_state_t *pState) {
    zf_sm_device *sm;
    ze_result_t result = zf_sm_device_of(hDevice, &sm);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    pState->status = ZES_PCI_LINK_STATUS_GOOD;
    pState->qualityIssues = 0;
    pState->stabilityIssues = 0;
    pState->speed = zf_sm_pci_speed();
    return ZE_RESULT_SUCCESS;
}

/* Two BARs, as a discrete card has them: BAR 0 the registers (MMIO), BAR 2 the device memory (resizable, whole). */
ze_result_t zfi_zesDevicePciGetBars(zes_device_handle_t hDevice, uint32_t *pCount,
                                    zes_pci_bar_properties_t *pProperties) {
    zf_sm_device *sm;
    ze_result_t result = zf_sm_device_of(hDevice, &sm);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    uint64_t used, memory;
    zf_memory_device_usage(sm->device->root, &used, &memory);
    const zes_pci_bar_properties_t bars[2] = {
        {.stype = ZES_STRUCTURE_TYPE_PCI_BAR_PROPERTIES,
         .type = ZES_PCI_BAR_TYPE_MMIO,
         .index = 0,
         .base = 0x4000000000ull,
         .size = ZF_SM_PCI_MMIO_BAR_SIZE},
        {.stype = ZES_STRUCTURE_TYPE_PCI_BAR_PROPERTIES,
         .type = ZES_PCI_BAR_TYPE_MEM,
         .index = 2,
         .base = 0x6000000000ull,
         .size = memory},
    };
    uint32_t n = zf_count_query(pCount, 2, pProperties);
    for (uint32_t i = 0; i < n; i++) {
        void *next = pProperties[i].pNext; /* the caller's chain stays */
        pProperties[i] = bars[i];
        pProperties[i].pNext = next;
    }
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zesDevicePciGetStats(zes_device_handle_t hDevice, zes_pci_stats_t *pStats) {
    zf_sm_device *sm;
    ze_result_t result = zf_sm_device_of(hDevice, &sm);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    *pStats = (zes_pci_stats_t){.timestamp = zf_sm_host_us(), .speed = zf_sm_pci_speed()};
    return ZE_RESULT_SUCCESS;
}

#if ZF_L0_AT_LEAST(5)
/* A component the card does not have: a count of 0, and no handle is written. */
static ze_result_t zf_sm_enum_none(zes_device_handle_t hDevice, uint32_t *pCount) {
    zf_sm_device *sm;
    ze_result_t result = zf_sm_device_of(hDevice, &sm);
    if (result == ZE_RESULT_SUCCESS)
        *pCount = 0;
    return result;
}

/* Overclocking: the cards have no overclock domain (data-centre parts are not overclocked), so the queries answer the
 * header's "none": a count of 0 and no bit set. Intel's driver answers ZE_RESULT_ERROR_UNSUPPORTED_FEATURE instead;
 * the functions that read or change an overclock state do too here (fake_driver/gen/unsupported_reasons.txt). */
ze_result_t zfi_zesDeviceEnumOverclockDomains(zes_device_handle_t hDevice, uint32_t *pCount,
                                              zes_overclock_handle_t *phDomainHandle) {
    return zf_sm_enum_none(hDevice, pCount);
}

ze_result_t zfi_zesDeviceGetOverclockDomains(zes_device_handle_t hDevice, uint32_t *pOverclockDomains) {
    zf_sm_device *sm;
    ze_result_t result = zf_sm_device_of(hDevice, &sm);
    if (result == ZE_RESULT_SUCCESS)
        *pOverclockDomains = 0;
    return result;
}

/* zes_overclock_domain_t has one bit per value: another value is not an enumerator (the generated check refuses only
 * those above ZES_OVERCLOCK_DOMAIN_ADM). */
ze_result_t zfi_zesDeviceGetOverclockControls(zes_device_handle_t hDevice, zes_overclock_domain_t domainType,
                                              uint32_t *pAvailableControls) {
    zf_sm_device *sm;
    ze_result_t result = zf_sm_device_of(hDevice, &sm);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    uint32_t domain = (uint32_t)domainType;
    if (domain == 0 || (domain & (domain - 1)) != 0)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ENUMERATION, "domainType 0x%x is not a zes_overclock_domain_t", domain);
    *pAvailableControls = 0;
    return ZE_RESULT_SUCCESS;
}
#endif

ze_result_t zfi_zesDeviceEnumFabricPorts(zes_device_handle_t hDevice, uint32_t *pCount,
                                         zes_fabric_port_handle_t *phPort) {
    return zf_sm_enum_fabric_ports(hDevice, pCount, phPort); /* the Xe Link ports of its tiles: sysman_fabric.c */
}

/* Firmware: the card's graphics firmware (GFX), on a device reported as a card; its version is not modelled
 * ("unknown", as the header allows) and it cannot be flashed. */
ze_result_t zfi_zesDeviceEnumFirmwares(zes_device_handle_t hDevice, uint32_t *pCount,
                                       zes_firmware_handle_t *phFirmware) {
    zf_sm_device *sm;
    ze_result_t result = zf_sm_device_of(hDevice, &sm);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    zf_sm_fill_handles(pCount, sm->num_firmware, (void **)phFirmware, &sm->firmware, sizeof sm->firmware);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zesFirmwareGetProperties(zes_firmware_handle_t hFirmware, zes_firmware_properties_t *pProperties) {
    pProperties->onSubdevice = false;
    pProperties->subdeviceId = 0;
    pProperties->canControl = false;
    zf_sm_copy_name(pProperties->name, "GFX");
    zf_sm_copy_name(pProperties->version, "unknown");
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zesFirmwareFlash(zes_firmware_handle_t hFirmware, void *pImage, uint32_t size) {
    return zf_fail(ZE_RESULT_ERROR_UNSUPPORTED_FEATURE,
                   "the firmware cannot be flashed: zesFirmwareGetProperties reports canControl false");
}

#if ZF_L0_AT_LEAST(8)
/* Nothing was ever flashed (zesFirmwareFlash is refused: canControl false), so no update has progressed. */
ze_result_t zfi_zesFirmwareGetFlashProgress(zes_firmware_handle_t hFirmware, uint32_t *pCompletionPercent) {
    *pCompletionPercent = 0;
    return ZE_RESULT_SUCCESS;
}
#endif

#if ZF_L0_AT_LEAST(9)
/* The firmware's security version is not modelled, like its version: "unknown", as the header answers then. */
ze_result_t zfi_zesFirmwareGetSecurityVersionExp(zes_firmware_handle_t hFirmware, char *pVersion) {
    zf_sm_copy_name(pVersion, "unknown");
    return ZE_RESULT_SUCCESS;
}
#endif

/* RAS: a correctable and an uncorrectable error set. Nothing is ever corrected; the uncorrectable set counts the
 * device's resets (ZES_RAS_ERROR_CAT_RESET), the commands that faulted (ZES_RAS_ERROR_CAT_PROGRAMMING_ERRORS: an
 * access outside an allocation, a hang stopped by the detector) and the device losses injected by a fault rule
 * (ZES_RAS_ERROR_CAT_COMPUTE_ERRORS: the failure of the accelerator hardware such a loss stands for). */
ze_result_t zfi_zesDeviceEnumRasErrorSets(zes_device_handle_t hDevice, uint32_t *pCount, zes_ras_handle_t *phRas) {
    zf_sm_device *sm;
    ze_result_t result = zf_sm_device_of(hDevice, &sm);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    zf_sm_fill_handles(pCount, 2, (void **)phRas, sm->ras, sizeof sm->ras[0]);
    return ZE_RESULT_SUCCESS;
}

static zf_sm_ras *zf_sm_ras_from(zes_ras_handle_t handle) {
    return (zf_sm_ras *)handle;
}

ze_result_t zfi_zesRasGetProperties(zes_ras_handle_t hRas, zes_ras_properties_t *pProperties) {
    const zf_sm_ras *ras = zf_sm_ras_from(hRas);
    pProperties->type = ras->type;
    pProperties->onSubdevice = zf_sm_on_subdevice(ras->owner->device);
    pProperties->subdeviceId = zf_sm_subdevice_id(ras->owner->device);
    return ZE_RESULT_SUCCESS;
}

/* The counts since counting started. */
static void zf_sm_ras_totals(const zf_sm_ras *ras, uint64_t counts[ZES_MAX_RAS_ERROR_CATEGORY_COUNT]) {
    for (uint32_t c = 0; c < ZES_MAX_RAS_ERROR_CATEGORY_COUNT; c++)
        counts[c] = 0;
    if (ras->type == ZES_RAS_ERROR_TYPE_UNCORRECTABLE) {
        counts[ZES_RAS_ERROR_CAT_RESET] = ras->owner->resets;
        counts[ZES_RAS_ERROR_CAT_PROGRAMMING_ERRORS] = ras->owner->faulted - ras->owner->lost;
        counts[ZES_RAS_ERROR_CAT_COMPUTE_ERRORS] = ras->owner->lost;
    }
}

void zf_sm_ras_counts(const zf_sm_ras *ras, uint64_t counts[ZES_MAX_RAS_ERROR_CATEGORY_COUNT]) {
    zf_sm_ras_totals(ras, counts);
    for (uint32_t c = 0; c < ZES_MAX_RAS_ERROR_CATEGORY_COUNT; c++)
        counts[c] -= ras->cleared[c];
}

ze_result_t zfi_zesRasGetState(zes_ras_handle_t hRas, ze_bool_t clear, zes_ras_state_t *pState) {
    zf_sm_ras *ras = zf_sm_ras_from(hRas);
    zf_sm_lock();
    zf_sm_ras_counts(ras, pState->category);
    if (clear)
        zf_sm_ras_totals(ras, ras->cleared);
    zf_sm_unlock();
    return ZE_RESULT_SUCCESS;
}

/* Thresholds of an error set (zes_api.h, zes_ras_config_t): an event when the total or a category's count since the
 * last clear goes above its threshold; 0 disables one. */
ze_result_t zfi_zesRasGetConfig(zes_ras_handle_t hRas, zes_ras_config_t *pConfig) {
    zf_sm_ras *ras = zf_sm_ras_from(hRas);
    zf_sm_lock();
    pConfig->totalThreshold = ras->config.totalThreshold;
    for (uint32_t c = 0; c < ZES_MAX_RAS_ERROR_CATEGORY_COUNT; c++)
        pConfig->detailedThresholds.category[c] = ras->config.detailedThresholds.category[c];
    zf_sm_unlock();
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zesRasSetConfig(zes_ras_handle_t hRas, const zes_ras_config_t *pConfig) {
    zf_sm_ras *ras = zf_sm_ras_from(hRas);
    zf_sm_lock();
    ras->config.totalThreshold = pConfig->totalThreshold;
    for (uint32_t c = 0; c < ZES_MAX_RAS_ERROR_CATEGORY_COUNT; c++)
        ras->config.detailedThresholds.category[c] = pConfig->detailedThresholds.category[c];
    zf_sm_check_all(); /* counts already above a new threshold raise at once */
    zf_sm_unlock();
    return ZE_RESULT_SUCCESS;
}

#if ZF_L0_AT_LEAST(7)
/* ZES_extension_ras_state: an error set's counts by category, those of zesRasGetState (the categories of both
 * enumerations share their values up to DISPLAY_ERRORS) and its memory errors, which the HBM of the model never has.
 * Scale-fabric and L3-fabric errors are not counted: the fabric's links have no errors (docs/fabric.md). */
#define ZF_SM_RAS_EXP_CATEGORIES ((uint32_t)ZES_RAS_ERROR_CATEGORY_EXP_MEMORY_ERRORS + 1u)
_Static_assert((int)ZES_RAS_ERROR_CATEGORY_EXP_DISPLAY_ERRORS == (int)ZES_RAS_ERROR_CAT_DISPLAY_ERRORS &&
                   (int)ZES_RAS_ERROR_CATEGORY_EXP_RESET == (int)ZES_RAS_ERROR_CAT_RESET &&
                   ZES_MAX_RAS_ERROR_CATEGORY_COUNT == (int)ZES_RAS_ERROR_CATEGORY_EXP_MEMORY_ERRORS,
               "zes_ras_error_category_exp_t extends zes_ras_error_cat_t");

ze_result_t zfi_zesRasGetStateExp(zes_ras_handle_t hRas, uint32_t *pCount, zes_ras_state_exp_t *pState) {
    const zf_sm_ras *ras = zf_sm_ras_from(hRas);
    uint64_t counts[ZES_MAX_RAS_ERROR_CATEGORY_COUNT];
    zf_sm_lock();
    zf_sm_ras_counts(ras, counts);
    zf_sm_unlock();
    uint32_t n = zf_count_query(pCount, ZF_SM_RAS_EXP_CATEGORIES, pState);
    for (uint32_t c = 0; c < n; c++)
        pState[c] = (zes_ras_state_exp_t){.category = (zes_ras_error_category_exp_t)c,
                                          .errorCounter = c < ZES_MAX_RAS_ERROR_CATEGORY_COUNT ? counts[c] : 0};
    return ZE_RESULT_SUCCESS;
}

/* One category starts again from 0, as a read of zesRasGetState with clear does for all of them. */
ze_result_t zfi_zesRasClearStateExp(zes_ras_handle_t hRas, zes_ras_error_category_exp_t category) {
    zf_sm_ras *ras = zf_sm_ras_from(hRas);
    if ((uint32_t)category >= ZF_SM_RAS_EXP_CATEGORIES)
        return zf_fail(ZE_RESULT_ERROR_NOT_AVAILABLE,
                       "category %u: the error set counts no fabric errors (zesRasGetStateExp lists its categories)",
                       (unsigned)category);
    if ((uint32_t)category >= ZES_MAX_RAS_ERROR_CATEGORY_COUNT)
        return ZE_RESULT_SUCCESS; /* memory errors: always 0 */
    uint64_t totals[ZES_MAX_RAS_ERROR_CATEGORY_COUNT];
    zf_sm_lock();
    zf_sm_ras_totals(ras, totals);
    ras->cleared[category] = totals[category];
    zf_sm_unlock();
    return ZE_RESULT_SUCCESS;
}
#endif

/* ECC: on where the scenario's device has ZE_DEVICE_PROPERTY_FLAG_ECC, never configurable. */
static bool zf_sm_has_ecc(const zf_sm_device *sm) {
    return (sm->device->properties.flags & ZE_DEVICE_PROPERTY_FLAG_ECC) != 0;
}

ze_result_t zfi_zesDeviceEccAvailable(zes_device_handle_t hDevice, ze_bool_t *pAvailable) {
    zf_sm_device *sm;
    ze_result_t result = zf_sm_device_of(hDevice, &sm);
    if (result == ZE_RESULT_SUCCESS)
        *pAvailable = zf_sm_has_ecc(sm);
    return result;
}

ze_result_t zfi_zesDeviceEccConfigurable(zes_device_handle_t hDevice, ze_bool_t *pConfigurable) {
    zf_sm_device *sm;
    ze_result_t result = zf_sm_device_of(hDevice, &sm);
    if (result == ZE_RESULT_SUCCESS)
        *pConfigurable = false;
    return result;
}

ze_result_t zfi_zesDeviceGetEccState(zes_device_handle_t hDevice, zes_device_ecc_properties_t *pState) {
    zf_sm_device *sm;
    ze_result_t result = zf_sm_device_of(hDevice, &sm);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    pState->currentState = zf_sm_has_ecc(sm) ? ZES_DEVICE_ECC_STATE_ENABLED : ZES_DEVICE_ECC_STATE_UNAVAILABLE;
    pState->pendingState = pState->currentState;
    pState->pendingAction = ZES_DEVICE_ACTION_NONE;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zesDeviceSetEccState(zes_device_handle_t hDevice, const zes_device_ecc_desc_t *newState,
                                     zes_device_ecc_properties_t *pState) {
    zf_sm_device *sm;
    ze_result_t result = zf_sm_device_of(hDevice, &sm);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    return zf_fail(ZE_RESULT_ERROR_UNSUPPORTED_FEATURE,
                   "the ECC state of %s cannot be changed: zesDeviceEccConfigurable answers false",
                   sm->device->desc->name);
}
