/* The cost model: how long each command takes in device time. Documented in docs/cost-model.md; any change here
 * must change that document and the tests that predict timestamps from it. */
#include "exec/zf_exec.h"
#include "memory/zf_memory.h"
#include "module/zf_kernel.h"

/* Every command: the engine decoding it and signalling. */
#define ZF_COST_COMMAND_NS 100u
/* A kernel launch on top of that: dispatch and thread-group set-up. */
#define ZF_COST_KERNEL_LAUNCH_NS 2000u
/* Copy bandwidths in bytes per ns (= GB/s). */
#define ZF_BANDWIDTH_COMPUTE_ENGINE 200u
#define ZF_BANDWIDTH_COPY_ENGINE    50u
#define ZF_BANDWIDTH_HOST_LINK      25u

static uint64_t zf_div_ceil(uint64_t a, uint64_t b) {
    return a / b + (a % b != 0);
}

/* Host memory (host allocations and memory the driver did not allocate) is behind the host link. */
static bool zf_is_device_memory(zf_context *context, const void *ptr, size_t size) {
    zf_allocation allocation;
    return zf_memory_find(context, ptr, size, &allocation) && allocation.type != ZE_MEMORY_TYPE_HOST;
}

static uint64_t zf_bandwidth(const zf_queue *queue, bool crosses_host_link) {
    if (crosses_host_link)
        return ZF_BANDWIDTH_HOST_LINK;
    return (queue->group_flags & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE) ? ZF_BANDWIDTH_COMPUTE_ENGINE
                                                                               : ZF_BANDWIDTH_COPY_ENGINE;
}

static uint64_t zf_cost_transfer_ns(const zf_queue *queue, const void *dst, const void *src, uint64_t bytes) {
    bool host = !zf_is_device_memory(queue->context, dst, (size_t)bytes) ||
                (src != NULL && !zf_is_device_memory(queue->context, src, (size_t)bytes));
    return ZF_COST_COMMAND_NS + zf_div_ceil(bytes, zf_bandwidth(queue, host));
}

uint64_t zf_region_bytes(const ze_copy_region_t *region) {
    return (uint64_t)region->width * region->height * (region->depth == 0 ? 1 : region->depth);
}

uint64_t zf_cost_command_ns(const zf_command *command, const zf_queue *queue) {
    switch (command->kind) {
    case ZF_CMD_COPY:
        return zf_cost_transfer_ns(queue, command->u.copy.dst, command->u.copy.src, command->u.copy.size);
    case ZF_CMD_COPY_REGION:
        return zf_cost_transfer_ns(queue, command->u.region.dst, command->u.region.src,
                                   zf_region_bytes(&command->u.region.src_region));
    case ZF_CMD_FILL:
        return zf_cost_transfer_ns(queue, command->u.fill.dst, NULL, command->u.fill.size);
    case ZF_CMD_LAUNCH:
    case ZF_CMD_LAUNCH_INDIRECT:
    case ZF_CMD_LAUNCH_MULTIPLE_INDIRECT:
        return ZF_COST_COMMAND_NS; /* each kernel's own cost is added when its group count is known */
    default:
        return ZF_COST_COMMAND_NS;
    }
}

uint64_t zf_launch_work_items(const zf_kernel_launch *launch, const ze_group_count_t *groups) {
    uint32_t size[3];
    zf_kernel_launch_group_size(launch, size);
    unsigned __int128 items = (unsigned __int128)groups->groupCountX * groups->groupCountY * groups->groupCountZ *
                              size[0] * size[1] * size[2];
    return items > UINT64_MAX ? UINT64_MAX : (uint64_t)items;
}

uint64_t zf_ns_to_cycles(uint64_t ns, const zf_device *device) {
    return (uint64_t)((unsigned __int128)ns * device->properties.coreClockRate / 1000u);
}

uint64_t zf_cost_kernel_ns(const zf_kernel_launch *launch, const ze_group_count_t *groups, const zf_device *device) {
    uint64_t items = zf_launch_work_items(launch, groups);
    const ze_device_properties_t *p = &device->properties;
    uint64_t lanes = (uint64_t)p->numSlices * p->numSubslicesPerSlice * p->numEUsPerSubslice * p->physicalEUSimdWidth;
    if (lanes == 0)
        lanes = 1;
    unsigned __int128 waves = zf_div_ceil(items, lanes);
    unsigned __int128 cycles = waves * zf_kernel_launch_cycles_per_item(launch);
    unsigned __int128 ns = cycles * 1000u / (p->coreClockRate > 0 ? p->coreClockRate : 1);
    ns += ZF_COST_KERNEL_LAUNCH_NS;
    return ns > UINT64_MAX ? UINT64_MAX : (uint64_t)ns;
}
