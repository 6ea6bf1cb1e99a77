/* Device extensions: PCI properties (ZE_extension_pci_properties), the structures chained to device property queries
 * (ZE_extension_device_luid, ZE_extension_eu_count, ZE_experimental_scheduling_hints, ZE_extension_cache_reservation),
 * cache reservation itself, and zeContextSystemBarrier. docs/extensions.md lists what each answers. */
#include "core/zf_chain.h"
#include "core/zf_core.h"
#include "driver/zf_device_ext.h"

#include <pthread.h>
#include <string.h>

/* Every scheduling hint the header defines: the fake's scheduler has no use for them, which the specification allows
 * ("a hint ... may be ignored"). */
#define ZF_SCHEDULING_HINTS                                                                                            \
    (ZE_SCHEDULING_HINT_EXP_FLAG_OLDEST_FIRST | ZE_SCHEDULING_HINT_EXP_FLAG_ROUND_ROBIN |                              \
     ZE_SCHEDULING_HINT_EXP_FLAG_STALL_BASED_ROUND_ROBIN)

/* ------------------------------------------------------------------------------------------------------------------
 * Property chains */

static void zf_fill_luid(const zf_device *device, ze_device_luid_ext_properties_t *p) {
    /* Stable and unique per device: FNV-1a of the device UUID. */
    uint64_t hash = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < sizeof device->uuid.id; i++)
        hash = (hash ^ device->uuid.id[i]) * 0x100000001b3ull;
    memcpy(p->luid.id, &hash, sizeof p->luid.id);
    /* One bit: the node of a linked adapter, which is what a tile is. */
    p->nodeMask = 1u << (device->is_subdevice ? device->subdevice_id : 0);
}

/* The structures of later headers chained to zeDeviceGetProperties: kernel timestamps of events, also on the host's
 * clock (ZE_extension_event_query_kernel_timestamps, 1.6), and what a mutable command may change
 * (ZE_experimental_mutable_command_list, 1.9: everything but graph arguments). Others are left alone. */
static void zf_newer_device_property(ze_base_properties_t *ext) {
#if ZF_L0_AT_LEAST(6)
    if (ext->stype == ZE_STRUCTURE_TYPE_EVENT_QUERY_KERNEL_TIMESTAMPS_EXT_PROPERTIES)
        ((ze_event_query_kernel_timestamps_ext_properties_t *)ext)->flags =
            ZE_EVENT_QUERY_KERNEL_TIMESTAMPS_EXT_FLAG_KERNEL | ZE_EVENT_QUERY_KERNEL_TIMESTAMPS_EXT_FLAG_SYNCHRONIZED;
#endif
#if ZF_L0_AT_LEAST(9)
    if (ext->stype == ZE_STRUCTURE_TYPE_MUTABLE_COMMAND_LIST_EXP_PROPERTIES) {
        ze_mutable_command_list_exp_properties_t *p = (ze_mutable_command_list_exp_properties_t *)ext;
        p->mutableCommandListFlags = 0;
        p->mutableCommandFlags = ~(ze_mutable_command_exp_flags_t)ZE_MUTABLE_COMMAND_EXP_FLAG_GRAPH_ARGUMENTS &
                                 (ZE_MUTABLE_COMMAND_EXP_FLAG_GRAPH_ARGUMENTS * 2 - 1);
    }
#else
    (void)ext;
#endif
}

void zf_device_properties_chain(const zf_device *device, void *next) {
    zf_chain_foreach_out(ext, next) {
        if (ext->stype == ZE_STRUCTURE_TYPE_DEVICE_LUID_EXT_PROPERTIES)
            zf_fill_luid(device, (ze_device_luid_ext_properties_t *)ext);
        else if (ext->stype == ZE_STRUCTURE_TYPE_EU_COUNT_EXT)
            ((ze_eu_count_ext_t *)ext)->numTotalEUs = device->properties.numSlices *
                                                      device->properties.numSubslicesPerSlice *
                                                      device->properties.numEUsPerSubslice;
        else
            zf_newer_device_property(ext);
    }
}

/* The execution engine's floating-point atomics (docs/spirv-execution.md): load, store, exchange, add
 * (OpAtomicFAddEXT), min and max (OpAtomicFMinEXT, OpAtomicFMaxEXT) on 32- and 64-bit floats in global and local
 * memory; none on halves. */
static void zf_float_atomics(const zf_device *device, ze_float_atomic_ext_properties_t *p) {
    const ze_device_fp_atomic_ext_flags_t all =
        ZE_DEVICE_FP_ATOMIC_EXT_FLAG_GLOBAL_LOAD_STORE | ZE_DEVICE_FP_ATOMIC_EXT_FLAG_GLOBAL_ADD |
        ZE_DEVICE_FP_ATOMIC_EXT_FLAG_GLOBAL_MIN_MAX | ZE_DEVICE_FP_ATOMIC_EXT_FLAG_LOCAL_LOAD_STORE |
        ZE_DEVICE_FP_ATOMIC_EXT_FLAG_LOCAL_ADD | ZE_DEVICE_FP_ATOMIC_EXT_FLAG_LOCAL_MIN_MAX;
    p->fp16Flags = 0;
    p->fp32Flags = all;
    p->fp64Flags = (device->desc->module.flags & ZE_DEVICE_MODULE_FLAG_FP64) != 0 ? all : 0;
}

void zf_device_module_properties_chain(const zf_device *device, void *next) {
    zf_chain_foreach_out(ext, next) {
        if (ext->stype == ZE_STRUCTURE_TYPE_SCHEDULING_HINT_EXP_PROPERTIES)
            ((ze_scheduling_hint_exp_properties_t *)ext)->schedulingHintFlags = ZF_SCHEDULING_HINTS;
        else if (ext->stype == ZE_STRUCTURE_TYPE_FLOAT_ATOMIC_EXT_PROPERTIES)
            zf_float_atomics(device, (ze_float_atomic_ext_properties_t *)ext);
    }
}

/* A cache the application may reserve part of: one with user control (the scenario's user_control). */
static size_t zf_reservable(const zf_device *device, uint32_t index) {
    const zf_scenario_cache *cache = &device->desc->caches[index];
    return cache->user_control ? (size_t)cache->size_bytes : 0;
}

void zf_device_cache_properties_chain(const zf_device *device, uint32_t index, void *next) {
    zf_chain_foreach_out(ext, next) {
        /* The header calls it a desc, but it is an output chained to the cache properties. */
        if (ext->stype == ZE_STRUCTURE_TYPE_CACHE_RESERVATION_EXT_DESC)
            ((ze_cache_reservation_ext_desc_t *)ext)->maxCacheReservationSize = zf_reservable(device, index);
    }
}

/* ------------------------------------------------------------------------------------------------------------------
 * PCI */

ze_result_t zfi_zeDevicePciGetPropertiesExt(ze_device_handle_t hDevice, ze_pci_ext_properties_t *pPciProperties) {
    const zf_scenario_pci *pci = &zf_device_from(hDevice)->desc->pci;
    zf_out_check(pPciProperties, "pPciProperties", ZE_STRUCTURE_TYPE_PCI_EXT_PROPERTIES);
    /* Tiles sit behind their card's function. The scenario has no link description: speed is unknown (-1), which the
     * header allows. */
    pPciProperties->address = (ze_pci_address_ext_t){pci->domain, pci->bus, pci->device, pci->function};
    pPciProperties->maxSpeed = (ze_pci_speed_ext_t){-1, -1, -1};
    return ZE_RESULT_SUCCESS;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Cache reservation */

/* Reserved bytes per device (root index, then 0 for the root or 1 + sub-device id) and cache. */
static pthread_mutex_t zf_reservation_lock = PTHREAD_MUTEX_INITIALIZER;
static size_t zf_reserved[ZF_SCENARIO_MAX_DEVICES][ZF_SCENARIO_MAX_SUBDEVICES + 1][ZF_SCENARIO_MAX_CACHES];

static size_t *zf_reservation_slot(const zf_device *device, uint32_t cache) {
    return &zf_reserved[device->root_index][device->is_subdevice ? device->subdevice_id + 1 : 0][cache];
}

ze_result_t zfi_zeDeviceReserveCacheExt(ze_device_handle_t hDevice, size_t cacheLevel, size_t cacheReservationSize) {
    const zf_device *device = zf_device_from(hDevice);
    uint32_t caches = device->desc->num_caches;
    if (caches == 0 || cacheLevel > caches)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "cacheLevel %zu: the device has %u cache level(s)", cacheLevel,
                       caches);
    uint32_t index = cacheLevel == 0 ? caches - 1 : (uint32_t)cacheLevel - 1; /* 0: the last level */
    size_t limit = zf_reservable(device, index);
    if (limit == 0)
        return zf_fail(ZE_RESULT_ERROR_UNSUPPORTED_FEATURE,
                       "cache level %u is not under user control (its maxCacheReservationSize is 0)", index + 1);
    if (cacheReservationSize > limit)
        return zf_fail(ZE_RESULT_ERROR_UNSUPPORTED_SIZE, "%zu bytes exceed the cache's maxCacheReservationSize %zu",
                       cacheReservationSize, limit);
    pthread_mutex_lock(&zf_reservation_lock);
    *zf_reservation_slot(device, index) = cacheReservationSize; /* 0 removes the reservation */
    pthread_mutex_unlock(&zf_reservation_lock);
    return ZE_RESULT_SUCCESS;
}

static bool zf_has_reservation(const zf_device *device) {
    bool any = false;
    pthread_mutex_lock(&zf_reservation_lock);
    for (uint32_t i = 0; i < device->desc->num_caches; i++)
        any = any || *zf_reservation_slot(device, i) > 0;
    pthread_mutex_unlock(&zf_reservation_lock);
    return any;
}

ze_result_t zfi_zeDeviceSetCacheAdviceExt(ze_device_handle_t hDevice, void *ptr, size_t regionSize,
                                          ze_cache_ext_region_t cacheRegion) {
    (void)ptr; /* the fake has no cache model: the advice is checked and has no effect */
    if (regionSize == 0)
        return zf_fail(ZE_RESULT_ERROR_INVALID_SIZE, "regionSize is 0 pages");
    if (cacheRegion == ZE_CACHE_EXT_REGION_ZE_CACHE_RESERVE_REGION && !zf_has_reservation(zf_device_from(hDevice)))
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                       "the reserved region is empty: reserve cache with zeDeviceReserveCacheExt first");
    return ZE_RESULT_SUCCESS;
}

/* ------------------------------------------------------------------------------------------------------------------
 * System barrier */

ze_result_t zfi_zeContextSystemBarrier(ze_context_handle_t hContext, ze_device_handle_t hDevice) {
    if (!zf_context_has_device(zf_context_from(hContext), zf_device_from(hDevice)))
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                       "hDevice is not a device of hContext (nor a sub-device of one)");
    /* Device memory is host memory written in program order: in-bound writes are observable already. */
    return ZE_RESULT_SUCCESS;
}
