/* Device memory accounting. A root device's memory is physically split among its tiles (sub-devices): each tile
 * holds totalSize / N of every memory, which is what a sub-device reports. An allocation on a sub-device uses its
 * tile; an allocation on a root device is interleaved across all its tiles (as implicit scaling does), so it uses
 * an even share of each. The root device's usage is the sum of its tiles', and an allocation fails with
 * ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY as soon as one tile it needs is full. A device without sub-devices is one
 * tile. Charges are exact byte counts of what the application asked for. */
#include "core/zf_core.h"
#include "memory/memory_internal.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

/* Charges are made under the lock (a check and an add); the counters are stored atomically, so that usage reads
 * (every command's telemetry publication) take no lock. */
static pthread_mutex_t zf_account_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t zf_tile_used[ZF_SCENARIO_MAX_DEVICES][ZF_SCENARIO_MAX_SUBDEVICES];

static void zf_tile_add(uint64_t *used, uint64_t bytes) {
    __atomic_store_n(used, *used + bytes, __ATOMIC_RELAXED);
}

static uint32_t zf_tiles(const zf_device *root) {
    return root->num_subdevices > 0 ? root->num_subdevices : 1;
}

static uint64_t zf_tile_capacity(const zf_device *root) {
    uint64_t capacity = 0;
    for (uint32_t i = 0; i < root->desc->num_memories; i++)
        capacity += root->desc->memories[i].total_size_bytes / zf_tiles(root);
    return capacity;
}

/* Splits `bytes` over the tiles a device uses. */
static void zf_account_split(const zf_device *device, uint64_t bytes, zf_mem_charge *charge) {
    memset(charge, 0, sizeof *charge);
    if (device->is_subdevice) {
        charge->tile[device->subdevice_id] = bytes;
        return;
    }
    uint32_t n = zf_tiles(device);
    for (uint32_t i = 0; i < n; i++)
        charge->tile[i] = bytes / n + (i < bytes % n ? 1 : 0);
}

static ze_result_t zf_account_refuse(const zf_device *device, const zf_mem_charge *charge, uint32_t tile,
                                     uint64_t free_bytes, uint64_t capacity) {
    char name[64];
    if (device->is_subdevice)
        snprintf(name, sizeof name, "sub-device %u of device %u", device->subdevice_id, device->root->root_index);
    else
        snprintf(name, sizeof name, "device %u", device->root_index);
    return zf_fail(ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY,
                   "%s needs %llu bytes of tile %u, which has %llu of its %llu bytes free", name,
                   (unsigned long long)charge->tile[tile], tile, (unsigned long long)free_bytes,
                   (unsigned long long)capacity);
}

ze_result_t zf_account_charge(zf_device *device, uint64_t bytes, zf_mem_charge *charge) {
    zf_device *root = device->root;
    uint64_t capacity = zf_tile_capacity(root);
    uint64_t *used = zf_tile_used[root->root_index];
    zf_account_split(device, bytes, charge);
    pthread_mutex_lock(&zf_account_lock);
    for (uint32_t i = 0; i < zf_tiles(root); i++) {
        if (charge->tile[i] > capacity - used[i]) {
            uint64_t free_bytes = capacity - used[i];
            pthread_mutex_unlock(&zf_account_lock);
            return zf_account_refuse(device, charge, i, free_bytes, capacity);
        }
    }
    for (uint32_t i = 0; i < zf_tiles(root); i++)
        zf_tile_add(&used[i], charge->tile[i]);
    pthread_mutex_unlock(&zf_account_lock);
    charge->root = root;
    return ZE_RESULT_SUCCESS;
}

void zf_account_uncharge(zf_mem_charge *charge) {
    if (charge->root == NULL)
        return;
    uint64_t *used = zf_tile_used[charge->root->root_index];
    pthread_mutex_lock(&zf_account_lock);
    for (uint32_t i = 0; i < zf_tiles(charge->root); i++)
        zf_tile_add(&used[i], -charge->tile[i]);
    pthread_mutex_unlock(&zf_account_lock);
    charge->root = NULL;
}

void zf_memory_device_usage(zf_device *device, uint64_t *used, uint64_t *capacity) {
    zf_device *root = device->root;
    uint32_t first = device->is_subdevice ? device->subdevice_id : 0;
    uint32_t count = device->is_subdevice ? 1 : zf_tiles(root);
    *used = 0;
    for (uint32_t i = first; i < first + count; i++)
        *used += __atomic_load_n(&zf_tile_used[root->root_index][i], __ATOMIC_RELAXED);
    *capacity = zf_tile_capacity(root) * count;
}
