/* Memory modules (zes_api.h, "Memory management"): one HBM module per device, of the device's memory. Its free bytes
 * are what device-memory accounting leaves (docs/memory.md) and the other processes on the card hold (their share); its
 * read and write counters are the bytes the device's commands moved since counting started. docs/sysman.md. */
#include "core/zf_chain.h"
#include "memory/zf_memory.h"
#include "tools/sysman/zf_sysman.h"

#include <stddef.h>
#include <unistd.h>

static zf_sm_device *zf_sm_memory_owner(zes_mem_handle_t handle) {
    return ((zf_sm_simple *)handle)->owner;
}

ze_result_t zfi_zesDeviceEnumMemoryModules(zes_device_handle_t hDevice, uint32_t *pCount, zes_mem_handle_t *phMemory) {
    zf_sm_device *sm;
    ze_result_t result = zf_sm_device_of(hDevice, &sm);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    zf_sm_fill_card_and_tiles(pCount, (void **)phMemory, sm, offsetof(zf_sm_device, memory));
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zesMemoryGetProperties(zes_mem_handle_t hMemory, zes_mem_properties_t *pProperties) {
    zf_sm_device *sm = zf_sm_memory_owner(hMemory);
    const zf_device *device = sm->device;
    uint64_t used, capacity;
    zf_memory_device_usage(sm->device, &used, &capacity);
    const zf_scenario_memory *memory = &device->desc->memories[0];
    pProperties->type = ZES_MEM_TYPE_HBM;
    pProperties->onSubdevice = zf_sm_on_subdevice(device);
    pProperties->subdeviceId = zf_sm_subdevice_id(device);
    pProperties->location = ZES_MEM_LOC_DEVICE;
    pProperties->physicalSize = capacity;
    pProperties->busWidth = device->desc->num_memories > 0 ? (int32_t)(memory->max_bus_width_bits / device->share) : -1;
    pProperties->numChannels = -1; /* not known */
    void *chain = zf_out_chain(pProperties, "pProperties", ZES_STRUCTURE_TYPE_MEM_PROPERTIES);
#if ZF_L0_AT_LEAST(8)
    /* zes_mem_bandwidth_counter_bits_exp_properties_t: the read and write counters are 64-bit byte counts. */
    zf_chain_foreach_out(ext, chain) {
        if ((uint32_t)ext->stype == ZES_STRUCTURE_TYPE_MEM_BANDWIDTH_COUNTER_BITS_EXP_PROPERTIES)
            ((zes_mem_bandwidth_counter_bits_exp_properties_t *)ext)->validBitsCount = 64;
    }
#else
    (void)chain;
#endif
    return ZE_RESULT_SUCCESS;
}

/* The device memory other processes hold on the device: their share of the card's by the device's capacity. */
static uint64_t zf_sm_others_memory(const zf_sm_device *sm, uint64_t capacity) {
    zf_card_share *shared = zf_device_shared(sm->device);
    if (shared == NULL)
        return 0;
    zf_shared_process list[ZF_SHARED_MAX_PROCESSES];
    uint32_t found = zf_shared_processes(shared, list, ZF_SHARED_MAX_PROCESSES);
    uint64_t others = 0;
    for (uint32_t i = 0; i < found; i++)
        others += list[i].pid != (int32_t)getpid() ? list[i].memory_bytes : 0;
    uint64_t card_used, card_capacity;
    zf_memory_device_usage(sm->device->root, &card_used, &card_capacity);
    return card_capacity > 0 ? (uint64_t)((unsigned __int128)others * capacity / card_capacity) : 0;
}

ze_result_t zfi_zesMemoryGetState(zes_mem_handle_t hMemory, zes_mem_state_t *pState) {
    zf_sm_device *sm = zf_sm_memory_owner(hMemory);
    uint64_t used, capacity;
    zf_memory_device_usage(sm->device, &used, &capacity);
    used += zf_sm_others_memory(sm, capacity);
    pState->health = ZES_MEM_HEALTH_OK;
    pState->size = capacity;
    pState->free = used < capacity ? capacity - used : 0;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zesMemoryGetBandwidth(zes_mem_handle_t hMemory, zes_mem_bandwidth_t *pBandwidth) {
    zf_sm_device *sm = zf_sm_memory_owner(hMemory);
    uint64_t read = 0, written = 0;
    zf_sm_lock();
    for (uint32_t t = 0; t < sm->num_tiles; t++) {
        read += sm->tiles[t].bytes_read;
        written += sm->tiles[t].bytes_written;
    }
    zf_sm_unlock();
    /* The scenario's bandwidth is the card's in bytes per ns; a tile has its share (docs/cost-model.md). */
    uint64_t gbps = sm->device->desc->performance.memory_bandwidth_gbps;
    pBandwidth->readCounter = read;
    pBandwidth->writeCounter = written;
    pBandwidth->maxBandwidth = gbps * 1000000000ull / sm->device->share;
    pBandwidth->timestamp = zf_sm_host_us();
    return ZE_RESULT_SUCCESS;
}
