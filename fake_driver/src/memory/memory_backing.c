/* Device memory that is not a USM allocation: the storage of images and of physical memory objects (zf_memory.h).
 * Such a block is made like an allocation's (a memfd mapped MAP_SHARED, charged to a device's memory, reference
 * counted) but never enters the index of allocations, so its addresses are not USM pointers and zeMemFree cannot
 * reach it. */
#include "core/zf_core.h"
#include "memory/memory_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

ze_result_t zf_memory_backing_create(zf_device *device, size_t size, size_t page_size, zf_mem_block **out) {
    if (page_size == 0)
        page_size = zf_host_page_size();
    zf_mem_charge charge = {0};
    if (device != NULL) {
        ze_result_t result = zf_account_charge(device, size, &charge);
        if (result != ZE_RESULT_SUCCESS)
            return result;
    }
    zf_mem_block *block = NULL;
    ze_result_t result = zf_block_create(size, 0, page_size, false, &block); /* exported and mapped again: own file */
    if (result != ZE_RESULT_SUCCESS) {
        zf_account_uncharge(&charge);
        return result;
    }
    block->charge = charge; /* returned when the last reference goes */
    block->info.device = device;
    block->info.type = ZE_MEMORY_TYPE_DEVICE;
    block->info.id = zf_index_next_id();
    *out = block;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zf_memory_backing_import(int fd, size_t size, zf_mem_block **out) {
    zf_mem_block *block = NULL;
    ze_result_t result = zf_external_import_block(fd, size, 0, &block);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    block->info.type = ZE_MEMORY_TYPE_DEVICE;
    block->info.id = zf_index_next_id();
    *out = block;
    return ZE_RESULT_SUCCESS;
}

void *zf_memory_backing_base(const zf_mem_block *block) {
    return block->info.base;
}

size_t zf_memory_backing_size(const zf_mem_block *block) {
    return block->info.size;
}

size_t zf_memory_backing_map_size(const zf_mem_block *block) {
    return block->map_size;
}

uint64_t zf_memory_backing_id(const zf_mem_block *block) {
    return block->info.id;
}

int zf_memory_backing_fd(const zf_mem_block *block) {
    return block->fd;
}

void zf_memory_retain(zf_mem_block *block) {
    zf_block_ref(block);
}
