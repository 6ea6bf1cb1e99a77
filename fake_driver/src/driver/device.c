/* Devices and sub-devices: built from the scenario, answering every property query from it.
 *
 * A root device with N sub-devices divides its slices and memory evenly among them; every other property is shared
 * (docs/scenarios.md, "Sub-devices"). Out-structs keep the caller's stype and pNext; their chains are followed only
 * under the stype each argument expects (docs/chains.md). */
#include "core/zf_chain.h"
#include "core/zf_core.h"
#include "driver/zf_device_ext.h"
#include "driver/zf_driver.h"
#include "driver/zf_fabric.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void zf_device_uuid(zf_device *device) {
    /* Stable and unique per device: ids, PCI address, root index, sub-device (0 = root) and a zefake tag. */
    const zf_scenario_device *d = device->desc;
    uint8_t *id = device->uuid.id;
    memset(id, 0, ZE_MAX_DEVICE_UUID_SIZE);
    id[0] = (uint8_t)d->vendor_id;
    id[1] = (uint8_t)(d->vendor_id >> 8);
    id[2] = (uint8_t)d->device_id;
    id[3] = (uint8_t)(d->device_id >> 8);
    id[4] = (uint8_t)d->pci.domain;
    id[5] = (uint8_t)d->pci.bus;
    id[6] = (uint8_t)d->pci.device;
    id[7] = (uint8_t)d->pci.function;
    /* The physical device and tile, wherever ZE_AFFINITY_MASK put them (device_select.c): a device reduced to one tile
     * is that tile. */
    const zf_device_origin *origin = &device->driver->origins[device->root_index];
    bool single_tile = origin->num_tiles == 1 && origin->physical_tiles > 1;
    id[8] = (uint8_t)origin->index;
    id[9] = (uint8_t)(device->is_subdevice ? origin->tiles[device->subdevice_id] + 1
                      : single_tile        ? origin->tiles[0] + 1
                                           : 0);
    memcpy(&id[12], "zfk", 4);
}

static void zf_device_build_properties(zf_device *device);

static bool zf_device_register(zf_device *device, zf_driver *driver) {
    zf_device_uuid(device);
    zf_device_build_properties(device);
    return zf_object_register(&device->header, ZF_OBJ_ZE_DEVICE, &driver->header);
}

static bool zf_subdevices_create(zf_device *root) {
    uint32_t n = root->desc->num_subdevices;
    if (n == 0)
        return true;
    root->subdevices = calloc(n, sizeof *root->subdevices);
    if (root->subdevices == NULL)
        return false;
    root->num_subdevices = n;
    for (uint32_t i = 0; i < n; i++) {
        zf_device *sub = &root->subdevices[i];
        sub->driver = root->driver;
        sub->desc = root->desc;
        sub->root = root;
        sub->root_index = root->root_index;
        sub->is_subdevice = true;
        sub->subdevice_id = i;
        sub->share = n;
        if (!zf_device_register(sub, root->driver))
            return false;
    }
    return true;
}

uint32_t zf_device_physical_tile(const zf_device *device) {
    const zf_device_origin *origin = &device->driver->origins[device->root_index];
    if (device->is_subdevice)
        return origin->tiles[device->subdevice_id];
    return origin->num_tiles == 1 && origin->physical_tiles > 1 ? origin->tiles[0] : 0;
}

zf_device *zf_device_with_uuid(zf_driver *driver, const ze_device_uuid_t *uuid) {
    for (uint32_t i = 0; i < driver->scenario.num_devices; i++) {
        zf_device *root = &driver->devices[i];
        if (memcmp(root->uuid.id, uuid->id, sizeof uuid->id) == 0)
            return root;
        for (uint32_t t = 0; t < root->num_subdevices; t++) {
            if (memcmp(root->subdevices[t].uuid.id, uuid->id, sizeof uuid->id) == 0)
                return &root->subdevices[t];
        }
    }
    return NULL;
}

zf_device *zf_device_by_uuid(zf_driver *driver, const ze_device_uuid_t *uuid) {
    zf_device *device = zf_device_with_uuid(driver, uuid);
    return device != NULL ? device->root : NULL;
}

/* Joins the card's state shared with the other processes of the same user and scenario instance (docs/environment.md,
 * "Processes"): ZEFAKE_INSTANCE, or the scenario's name. The card is named by its UUID without the tile, so every
 * process finds it whatever ZE_AFFINITY_MASK kept of it. A host clock then counts from the card's shared origin. */
static void zf_device_share(zf_device *device) {
    const char *instance = getenv("ZEFAKE_INSTANCE");
    if (instance == NULL || instance[0] == '\0')
        instance = device->driver->scenario.name;
    uint8_t key[16];
    memcpy(key, device->uuid.id, sizeof key);
    key[9] = 0;
    device->shared = zf_shared_attach(instance, key);
    if (device->shared != NULL)
        zf_clock_set_origin(&device->clock, zf_shared_clock_origin_ns(device->shared));
}

bool zf_devices_create(zf_driver *driver) {
    uint32_t n = driver->scenario.num_devices;
    driver->devices = calloc(n, sizeof *driver->devices);
    if (driver->devices == NULL)
        return false;
    for (uint32_t i = 0; i < n; i++) {
        zf_device *device = &driver->devices[i];
        device->driver = driver;
        device->desc = &driver->scenario.devices[i];
        device->root = device;
        device->root_index = i;
        device->share = 1;
        zf_clock_init(&device->clock, zf_clock_mode_requested(driver->scenario.clock_mode), &device->desc->timer);
        if (!zf_device_register(device, driver) || !zf_subdevices_create(device))
            return false;
        zf_device_share(device);
    }
    return true;
}

ze_result_t zfi_zeDeviceGet(ze_driver_handle_t hDriver, uint32_t *pCount, ze_device_handle_t *phDevices) {
    zf_driver *driver = zf_driver_from(hDriver);
    uint32_t n = zf_count_query(pCount, driver->num_devices, phDevices);
    for (uint32_t i = 0; i < n; i++)
        phDevices[i] = (ze_device_handle_t)driver->visible[i];
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zeDeviceGetSubDevices(ze_device_handle_t hDevice, uint32_t *pCount, ze_device_handle_t *phSubdevices) {
    zf_device *device = zf_device_from(hDevice);
    uint32_t n = zf_count_query(pCount, device->num_subdevices, phSubdevices);
    for (uint32_t i = 0; i < n; i++)
        phSubdevices[i] = (ze_device_handle_t)&device->subdevices[i];
    return ZE_RESULT_SUCCESS;
}

/* As Intel's driver answers: in FLAT mode no device has a root to traverse to. */
static ze_device_handle_t zf_device_root_of(const zf_device *device) {
    bool flat = device->driver->hierarchy == ZF_HIERARCHY_FLAT;
    return device->is_subdevice && !flat ? (ze_device_handle_t)device->root : NULL;
}

ze_result_t ZE_APICALL zf_device_get_root_device(ze_device_handle_t hDevice, ze_device_handle_t *phRootDevice) {
    if (!zf_handle_is_live(hDevice, ZF_OBJ_ZE_DEVICE))
        return zf_fail(ZE_RESULT_ERROR_INVALID_NULL_HANDLE, "hDevice: not a live device handle");
    if (phRootDevice == NULL)
        return zf_fail(ZE_RESULT_ERROR_INVALID_NULL_POINTER, "the arguments break the rule `nullptr == phRootDevice`");
    *phRootDevice = zf_device_root_of(zf_device_from(hDevice));
    return ZE_RESULT_SUCCESS;
}

#if ZF_L0_AT_LEAST(7)
ze_result_t zfi_zeDeviceGetRootDevice(ze_device_handle_t hDevice, ze_device_handle_t *phRootDevice) {
    *phRootDevice = zf_device_root_of(zf_device_from(hDevice));
    return ZE_RESULT_SUCCESS;
}
#endif

static uint64_t zf_timer_resolution(const zf_scenario_timer *timer, ze_structure_type_t stype) {
    if (stype == ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2)
        return timer->frequency_hz; /* cycles per second */
    uint64_t ns = (1000000000u + timer->frequency_hz / 2) / timer->frequency_hz;
    return ns > 0 ? ns : 1; /* nanoseconds per cycle, never 0 */
}

/* Device properties are fixed once the device exists: built once, copied out on every query (a hot call). */
static void zf_device_build_properties(zf_device *device) {
    const zf_scenario_device *d = device->desc;
    ze_device_properties_t *p = &device->properties;
    p->type = d->type;
    p->vendorId = d->vendor_id;
    p->deviceId = d->device_id;
    bool sub = zf_device_reported_as_subdevice(device);
    p->flags = d->flags | (sub ? ZE_DEVICE_PROPERTY_FLAG_SUBDEVICE : 0);
    p->subdeviceId = sub ? device->subdevice_id : 0;
    p->coreClockRate = d->core_clock_rate_mhz;
    p->maxMemAllocSize = d->max_mem_alloc_size_bytes;
    p->maxHardwareContexts = d->max_hardware_contexts;
    p->maxCommandQueuePriority = d->max_command_queue_priority;
    p->numThreadsPerEU = d->topology.threads_per_eu;
    p->physicalEUSimdWidth = d->topology.simd_width;
    p->numEUsPerSubslice = d->topology.eus_per_subslice;
    p->numSubslicesPerSlice = d->topology.subslices_per_slice;
    p->numSlices = d->topology.slices / device->share;
    p->timestampValidBits = d->timer.valid_bits;
    p->kernelTimestampValidBits = d->timer.kernel_valid_bits;
    p->uuid = device->uuid;
    snprintf(p->name, sizeof p->name, "%s", d->name);
}

ze_result_t zfi_zeDeviceGetProperties(ze_device_handle_t hDevice, ze_device_properties_t *pDeviceProperties) {
    const zf_device *device = zf_device_from(hDevice);
    ze_device_properties_t *p = pDeviceProperties;
    /* Everything after the caller's stype and pNext. */
    const size_t head = offsetof(ze_device_properties_t, type);
    memcpy((char *)p + head, (const char *)&device->properties + head, sizeof *p - head);
    p->timerResolution = zf_timer_resolution(&device->desc->timer, p->stype);
    zf_device_properties_chain(device, zf_out_chain(p, "pDeviceProperties", ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES,
                                                    ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2));
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zeDeviceGetComputeProperties(ze_device_handle_t hDevice,
                                             ze_device_compute_properties_t *pComputeProperties) {
    const zf_scenario_compute *c = &zf_device_from(hDevice)->desc->compute;
    ze_device_compute_properties_t *p = pComputeProperties;
    zf_out_check(p, "pComputeProperties", ZE_STRUCTURE_TYPE_DEVICE_COMPUTE_PROPERTIES);
    p->maxTotalGroupSize = c->max_total_group_size;
    p->maxGroupSizeX = c->max_group_size[0];
    p->maxGroupSizeY = c->max_group_size[1];
    p->maxGroupSizeZ = c->max_group_size[2];
    p->maxGroupCountX = c->max_group_count[0];
    p->maxGroupCountY = c->max_group_count[1];
    p->maxGroupCountZ = c->max_group_count[2];
    p->maxSharedLocalMemory = c->max_shared_local_memory_bytes;
    p->numSubGroupSizes = c->num_sub_group_sizes;
    memset(p->subGroupSizes, 0, sizeof p->subGroupSizes);
    memcpy(p->subGroupSizes, c->sub_group_sizes, c->num_sub_group_sizes * sizeof c->sub_group_sizes[0]);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zeDeviceGetModuleProperties(ze_device_handle_t hDevice,
                                            ze_device_module_properties_t *pModuleProperties) {
    const zf_device *device = zf_device_from(hDevice);
    const zf_scenario_module *m = &device->desc->module;
    ze_device_module_properties_t *p = pModuleProperties;
    p->spirvVersionSupported = m->spirv_version;
    p->flags = m->flags;
    p->fp16flags = (m->flags & ZE_DEVICE_MODULE_FLAG_FP16) ? m->fp16_flags : 0;
    p->fp32flags = m->fp32_flags;
    p->fp64flags = (m->flags & ZE_DEVICE_MODULE_FLAG_FP64) ? m->fp64_flags : 0;
    p->maxArgumentsSize = m->max_arguments_size_bytes;
    p->printfBufferSize = m->printf_buffer_size_bytes;
    /* Native binaries are only valid for the same kind of device: tie the UUID to vendor and device ids. */
    memset(p->nativeKernelSupported.id, 0, sizeof p->nativeKernelSupported.id);
    memcpy(p->nativeKernelSupported.id, "zefake-native", 13);
    p->nativeKernelSupported.id[14] = (uint8_t)device->desc->device_id;
    p->nativeKernelSupported.id[15] = (uint8_t)(device->desc->device_id >> 8);
    zf_device_module_properties_chain(device,
                                      zf_out_chain(p, "pModuleProperties", ZE_STRUCTURE_TYPE_DEVICE_MODULE_PROPERTIES));
    return ZE_RESULT_SUCCESS;
}

ze_result_t
zfi_zeDeviceGetCommandQueueGroupProperties(ze_device_handle_t hDevice, uint32_t *pCount,
                                           ze_command_queue_group_properties_t *pCommandQueueGroupProperties) {
    const zf_scenario_device *d = zf_device_from(hDevice)->desc;
    uint32_t n = zf_count_query(pCount, d->num_engine_groups, pCommandQueueGroupProperties);
    for (uint32_t i = 0; i < n; i++) {
        ze_command_queue_group_properties_t *p = &pCommandQueueGroupProperties[i];
        zf_out_check(p, "pCommandQueueGroupProperties[]", ZE_STRUCTURE_TYPE_COMMAND_QUEUE_GROUP_PROPERTIES);
        p->flags = d->engine_groups[i].flags;
        p->maxMemoryFillPatternSize = (size_t)d->engine_groups[i].max_fill_pattern_size_bytes;
        p->numQueues = d->engine_groups[i].num_queues;
    }
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zeDeviceGetMemoryProperties(ze_device_handle_t hDevice, uint32_t *pCount,
                                            ze_device_memory_properties_t *pMemProperties) {
    const zf_device *device = zf_device_from(hDevice);
    const zf_scenario_device *d = device->desc;
    uint32_t n = zf_count_query(pCount, d->num_memories, pMemProperties);
    for (uint32_t i = 0; i < n; i++) {
        ze_device_memory_properties_t *p = &pMemProperties[i];
        zf_out_check(p, "pMemProperties[]", ZE_STRUCTURE_TYPE_DEVICE_MEMORY_PROPERTIES);
        p->flags = d->memories[i].flags;
        p->maxClockRate = d->memories[i].max_clock_rate_mhz;
        p->maxBusWidth = d->memories[i].max_bus_width_bits / device->share; /* a tile has its share of the card's bus */
        p->totalSize = d->memories[i].total_size_bytes / device->share;
        snprintf(p->name, sizeof p->name, "%s", d->memories[i].name);
    }
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zeDeviceGetMemoryAccessProperties(ze_device_handle_t hDevice,
                                                  ze_device_memory_access_properties_t *pMemAccessProperties) {
    const zf_scenario_memory_access *a = &zf_device_from(hDevice)->desc->memory_access;
    zf_out_check(pMemAccessProperties, "pMemAccessProperties", ZE_STRUCTURE_TYPE_DEVICE_MEMORY_ACCESS_PROPERTIES);
    pMemAccessProperties->hostAllocCapabilities = a->host;
    pMemAccessProperties->deviceAllocCapabilities = a->device;
    pMemAccessProperties->sharedSingleDeviceAllocCapabilities = a->shared_single_device;
    pMemAccessProperties->sharedCrossDeviceAllocCapabilities = a->shared_cross_device;
    pMemAccessProperties->sharedSystemAllocCapabilities = a->shared_system;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zeDeviceGetCacheProperties(ze_device_handle_t hDevice, uint32_t *pCount,
                                           ze_device_cache_properties_t *pCacheProperties) {
    const zf_device *device = zf_device_from(hDevice);
    const zf_scenario_device *d = device->desc;
    uint32_t n = zf_count_query(pCount, d->num_caches, pCacheProperties);
    for (uint32_t i = 0; i < n; i++) {
        pCacheProperties[i].flags = d->caches[i].user_control ? ZE_DEVICE_CACHE_PROPERTY_FLAG_USER_CONTROL : 0;
        pCacheProperties[i].cacheSize = (size_t)d->caches[i].size_bytes;
        zf_device_cache_properties_chain(
            device, i,
            zf_out_chain(&pCacheProperties[i], "pCacheProperties[]", ZE_STRUCTURE_TYPE_DEVICE_CACHE_PROPERTIES));
    }
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zeDeviceGetImageProperties(ze_device_handle_t hDevice, ze_device_image_properties_t *pImageProperties) {
    const zf_scenario_images *i = &zf_device_from(hDevice)->desc->images;
    ze_device_image_properties_t *p = pImageProperties;
    zf_out_check(p, "pImageProperties", ZE_STRUCTURE_TYPE_DEVICE_IMAGE_PROPERTIES);
    p->maxImageDims1D = i->max_dims_1d;
    p->maxImageDims2D = i->max_dims_2d;
    p->maxImageDims3D = i->max_dims_3d;
    p->maxImageBufferSize = i->max_buffer_size_bytes;
    p->maxImageArraySlices = i->max_array_slices;
    p->maxSamplers = i->max_samplers;
    p->maxReadImageArgs = i->max_read_args;
    p->maxWriteImageArgs = i->max_write_args;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zeDeviceGetExternalMemoryProperties(ze_device_handle_t hDevice,
                                                    ze_device_external_memory_properties_t *pExternalMemoryProperties) {
    (void)hDevice;
    zf_out_check(pExternalMemoryProperties, "pExternalMemoryProperties",
                 ZE_STRUCTURE_TYPE_DEVICE_EXTERNAL_MEMORY_PROPERTIES);
    /* Device allocations and images are memfds: exported and imported as descriptors (memory_external.c). */
    const ze_external_memory_type_flags_t types =
        ZE_EXTERNAL_MEMORY_TYPE_FLAG_OPAQUE_FD | ZE_EXTERNAL_MEMORY_TYPE_FLAG_DMA_BUF;
    pExternalMemoryProperties->memoryAllocationImportTypes = types;
    pExternalMemoryProperties->memoryAllocationExportTypes = types;
    pExternalMemoryProperties->imageImportTypes = types;
    pExternalMemoryProperties->imageExportTypes = types;
    return ZE_RESULT_SUCCESS;
}

static ze_device_p2p_property_flags_t zf_p2p_flags(const zf_device *device, const zf_device *peer) {
    if (device->root == peer->root)
        return ZE_DEVICE_P2P_PROPERTY_FLAG_ACCESS | ZE_DEVICE_P2P_PROPERTY_FLAG_ATOMICS; /* tiles of one card */
    const zf_scenario *s = &device->driver->scenario;
    ze_device_p2p_property_flags_t flags = 0;
    if (s->p2p_access)
        flags |= ZE_DEVICE_P2P_PROPERTY_FLAG_ACCESS;
    if (s->p2p_access && s->p2p_atomics)
        flags |= ZE_DEVICE_P2P_PROPERTY_FLAG_ATOMICS;
    return flags;
}

ze_result_t zfi_zeDeviceGetP2PProperties(ze_device_handle_t hDevice, ze_device_handle_t hPeerDevice,
                                         ze_device_p2p_properties_t *pP2PProperties) {
    void *chain = zf_out_chain(pP2PProperties, "pP2PProperties", ZE_STRUCTURE_TYPE_DEVICE_P2P_PROPERTIES);
    pP2PProperties->flags = zf_p2p_flags(zf_device_from(hDevice), zf_device_from(hPeerDevice));
    /* ze_device_p2p_bandwidth_exp_properties_t: the fabric's design route between the two (docs/fabric.md). */
    zf_fabric_p2p_chain(zf_device_from(hDevice), zf_device_from(hPeerDevice), chain);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zeDeviceCanAccessPeer(ze_device_handle_t hDevice, ze_device_handle_t hPeerDevice, ze_bool_t *value) {
    ze_device_p2p_property_flags_t flags = zf_p2p_flags(zf_device_from(hDevice), zf_device_from(hPeerDevice));
    *value = (flags & ZE_DEVICE_P2P_PROPERTY_FLAG_ACCESS) != 0;
    return ZE_RESULT_SUCCESS;
}

/* ZEFAKE_HANG_TIMEOUT_MS as milliseconds, or -1 when unset or not a decimal number (reported). */
static int64_t zf_read_hang_timeout_env_ms(void) {
    const char *value = getenv("ZEFAKE_HANG_TIMEOUT_MS");
    if (value == NULL || *value == '\0')
        return -1;
    char *end = NULL;
    errno = 0;
    unsigned long long ms = strtoull(value, &end, 10);
    if (*end != '\0' || errno != 0 || value[0] == '-' || ms > 86400000ull) {
        zf_log(ZF_LOG_WARN, "ZEFAKE_HANG_TIMEOUT_MS=%s is not a number of milliseconds 0..86400000: ignored", value);
        return -1;
    }
    return (int64_t)ms;
}

/* Read once per process: a launch must not pay for the environment. */
static int64_t zf_hang_timeout_env_ms(void) {
    static _Atomic int64_t cached = -2;
    int64_t ms = atomic_load_explicit(&cached, memory_order_relaxed);
    if (ms == -2) {
        ms = zf_read_hang_timeout_env_ms();
        atomic_store_explicit(&cached, ms, memory_order_relaxed);
    }
    return ms;
}

void zf_device_set_hang_limit(zf_device *device, uint64_t ns) {
    atomic_store_explicit(&device->hang_limit_ns, ns, memory_order_relaxed);
}

uint64_t zf_device_hang_timeout_ns(const zf_device *device) {
    uint64_t set = atomic_load_explicit(&device->hang_limit_ns, memory_order_relaxed);
    if (set != 0)
        return set == ZF_HANG_NO_LIMIT ? 0 : set;
    int64_t ms = zf_hang_timeout_env_ms();
    return (ms >= 0 ? (uint64_t)ms : device->desc->hang_timeout_ms) * 1000000u;
}

void zf_device_record_fault(zf_device *device, const char *what) {
    atomic_fetch_add(&device->faults, 1);
    if (device->root != device)
        atomic_fetch_add(&device->root->faults, 1);
    zf_log(ZF_LOG_ERROR, "%s: execution fault (%s); zeDeviceGetStatus now reports ZE_RESULT_ERROR_DEVICE_LOST",
           device->desc->name, what != NULL ? what : "unknown");
}

/* Values of zf_device.loss besides n > 0 (armed: lost after n - 1 more commands). */
#define ZF_LOSS_DISARMED 0
#define ZF_LOSS_IS_LOST  (-1)

void zf_device_arm_loss(zf_device *device, uint32_t after_commands) {
    atomic_store_explicit(&device->loss, (int64_t)after_commands + 1, memory_order_relaxed);
}

/* One command against one device's state: counts it down, the last one armed loses the device. */
static zf_device_loss zf_device_take_command(zf_device *device) {
    int64_t left = atomic_load_explicit(&device->loss, memory_order_relaxed);
    while (left > 0) {
        int64_t next = left == 1 ? ZF_LOSS_IS_LOST : left - 1;
        if (atomic_compare_exchange_weak_explicit(&device->loss, &left, next, memory_order_relaxed,
                                                  memory_order_relaxed))
            return left == 1 ? ZF_LOSS_NOW : ZF_LOSS_RUN;
    }
    return left == ZF_LOSS_IS_LOST ? ZF_LOSS_GONE : ZF_LOSS_RUN;
}

/* A tile's command counts against the tile and against its card. */
zf_device_loss zf_device_command_loss(zf_device *device) {
    zf_device_loss own = zf_device_take_command(device);
    zf_device_loss card = device->root != device ? zf_device_take_command(device->root) : ZF_LOSS_RUN;
    if (own == ZF_LOSS_GONE || card == ZF_LOSS_GONE)
        return ZF_LOSS_GONE;
    return own == ZF_LOSS_NOW || card == ZF_LOSS_NOW ? ZF_LOSS_NOW : ZF_LOSS_RUN;
}

static uint32_t zf_device_disarm_loss(zf_device *device) {
    uint32_t disarmed = atomic_exchange_explicit(&device->loss, ZF_LOSS_DISARMED, memory_order_relaxed) != 0;
    for (uint32_t i = 0; i < device->num_subdevices; i++)
        disarmed += zf_device_disarm_loss(&device->subdevices[i]);
    return disarmed;
}

uint32_t zf_devices_disarm_loss(zf_driver *driver) {
    uint32_t disarmed = 0;
    for (uint32_t i = 0; i < driver->scenario.num_devices; i++)
        disarmed += zf_device_disarm_loss(&driver->devices[i]);
    return disarmed;
}

/* A reset ends an injected loss: the device runs commands again. */
static void zf_device_end_loss(zf_device *device) {
    int64_t lost = ZF_LOSS_IS_LOST;
    atomic_compare_exchange_strong(&device->loss, &lost, ZF_LOSS_DISARMED);
    for (uint32_t i = 0; i < device->num_subdevices; i++)
        zf_device_end_loss(&device->subdevices[i]);
}

uint32_t zf_device_clear_faults(zf_device *device) {
    zf_device_end_loss(device);
    if (device->root != device) { /* a loss armed on the card ends with the reset of the tile it was seen on */
        int64_t lost = ZF_LOSS_IS_LOST;
        atomic_compare_exchange_strong(&device->root->loss, &lost, ZF_LOSS_DISARMED);
    }
    uint32_t cleared = atomic_exchange(&device->faults, 0);
    if (device->root != device) {
        unsigned root = atomic_load(&device->root->faults);
        while (!atomic_compare_exchange_weak(&device->root->faults, &root, root > cleared ? root - cleared : 0))
            ;
    }
    for (uint32_t i = 0; i < device->num_subdevices; i++)
        atomic_store(&device->subdevices[i].faults, 0);
    return cleared;
}

ze_result_t zfi_zeDeviceGetStatus(ze_device_handle_t hDevice) {
    zf_device *device = zf_device_from(hDevice);
    unsigned faults = atomic_load(&device->faults);
    if (faults > 0)
        return zf_fail(ZE_RESULT_ERROR_DEVICE_LOST, "%u execution fault(s) happened on this device", faults);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zeDeviceGetGlobalTimestamps(ze_device_handle_t hDevice, uint64_t *hostTimestamp,
                                            uint64_t *deviceTimestamp) {
    zf_clock *clock = zf_device_clock(zf_device_from(hDevice));
    uint64_t ticks = 0;
    zf_clock_read_pair(clock, hostTimestamp, &ticks);
    *deviceTimestamp = zf_clock_mask(ticks, clock->valid_bits);
    return ZE_RESULT_SUCCESS;
}
