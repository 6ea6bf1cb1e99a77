/* The cost model: how long each command takes in device time. Documented in docs/cost-model.md; any change here
 * must change that document and the tests that predict timestamps from it. */
#include "driver/zf_fabric.h"
#include "exec/command_kinds.h"
#include "memory/zf_memory.h"
#include "module/zf_kernel.h"

#include <stdatomic.h>

/* Copy bandwidths in bytes per ns (= GB/s). */
#define ZF_BANDWIDTH_COMPUTE_ENGINE 200u
#define ZF_BANDWIDTH_COPY_ENGINE    50u
#define ZF_BANDWIDTH_HOST_LINK      25u

/* Cycles one lane spends on one operation of each class (zf_work_counts.ops): one ALU operation per lane and cycle is
 * the card's peak, transcendental functions take 4, memory messages 2, barriers 4 and atomics 8 more. */
static const uint32_t zf_class_cycles[ZF_OPS_COUNT] = {
    [ZF_OPS_ALU] = 1, [ZF_OPS_MATH] = 4, [ZF_OPS_MEMORY] = 2, [ZF_OPS_BARRIER] = 4, [ZF_OPS_ATOMIC] = 8};

static uint64_t zf_div_ceil(uint64_t a, uint64_t b) {
    return a / b + (a % b != 0);
}

/* Host memory (host allocations and memory the driver did not allocate) is behind the host link. The device whose
 * memory a device allocation is goes to *device (NULL for other memory). */
static bool zf_is_device_memory(zf_context *context, const void *ptr, size_t size, const zf_device **device) {
    zf_allocation allocation;
    bool found = zf_memory_find(context, ptr, size, &allocation);
    *device = found && allocation.type == ZE_MEMORY_TYPE_DEVICE ? allocation.device : NULL;
    return found && allocation.type != ZE_MEMORY_TYPE_HOST;
}

static uint64_t zf_bandwidth(const zf_queue *queue, bool crosses_host_link) {
    if (crosses_host_link)
        return ZF_BANDWIDTH_HOST_LINK;
    return (queue->group_flags & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE) ? ZF_BANDWIDTH_COMPUTE_ENGINE
                                                                               : ZF_BANDWIDTH_COPY_ENGINE;
}

/* A copy between the device memories of two tiles or cards crosses the fabric (docs/fabric.md, "Copies"): its route
 * limits the bandwidth (MDFI between tiles of a card, Xe Link between cards, the host's PCIe between cards no Xe Link
 * joins) and adds its latency; the route's ports count its bytes. */
static uint64_t zf_cost_peer_ns(const zf_queue *queue, const zf_device *src, const zf_device *dst, uint64_t bytes,
                                uint64_t *bandwidth) {
    zf_route route;
    zf_fabric_transfer(queue->device->driver, src, dst, bytes, &route);
    uint64_t limit = route.kind == ZF_ROUTE_PCIE ? ZF_BANDWIDTH_HOST_LINK : route.bandwidth;
    if (limit > 0 && limit < *bandwidth)
        *bandwidth = limit;
    return route.latency_known ? route.latency_ns : 0;
}

static uint64_t zf_cost_transfer_ns(const zf_queue *queue, const void *dst, const void *src, uint64_t bytes) {
    const zf_device *dst_device = NULL, *src_device = NULL;
    bool host = !zf_is_device_memory(queue->context, dst, (size_t)bytes, &dst_device) ||
                (src != NULL && !zf_is_device_memory(queue->context, src, (size_t)bytes, &src_device));
    uint64_t bandwidth = zf_bandwidth(queue, host);
    uint64_t latency = 0;
    if (!host && src_device != NULL && dst_device != NULL && src_device != dst_device)
        latency = zf_cost_peer_ns(queue, src_device, dst_device, bytes, &bandwidth);
    return zf_cost_overhead_ns(queue->device) + latency + zf_div_ceil(bytes, bandwidth);
}

uint64_t zf_region_bytes(const ze_copy_region_t *region) {
    return (uint64_t)region->width * region->height * (region->depth == 0 ? 1 : region->depth);
}

uint64_t zf_cost_copy(const zf_command *command, const zf_queue *queue) {
    return zf_cost_transfer_ns(queue, command->u.copy.dst, command->u.copy.src, command->u.copy.size);
}

uint64_t zf_cost_copy_region(const zf_command *command, const zf_queue *queue) {
    return zf_cost_transfer_ns(queue, command->u.region.dst, command->u.region.src,
                               zf_region_bytes(&command->u.region.src_region));
}

uint64_t zf_cost_fill(const zf_command *command, const zf_queue *queue) {
    return zf_cost_transfer_ns(queue, command->u.fill.dst, NULL, command->u.fill.size);
}

/* The other kinds cost the command overhead; a launch's kernels add their own cost once they have run. */
uint64_t zf_cost_command_ns(const zf_command *command, const zf_queue *queue) {
    const zf_command_kind_ops *kind = &zf_command_kinds[command->kind];
    return kind->cost != NULL ? kind->cost(command, queue) : zf_cost_overhead_ns(queue->device);
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

uint64_t zf_cost_overhead_ns(const zf_device *device) {
    return device->desc->performance.command_ns;
}

uint64_t zf_cost_dispatch_ns(const zf_device *device) {
    return device->desc->performance.dispatch_latency_ns;
}

uint32_t zf_device_tiles(const zf_device *device) {
    return device == device->root && device->num_subdevices > 0 ? device->num_subdevices : 1;
}

/* The share of the card's memory bandwidth one tile has, in bytes per ns. */
static uint64_t zf_tile_bandwidth(const zf_device *device) {
    const zf_scenario_device *d = device->desc;
    uint64_t bandwidth = d->performance.memory_bandwidth_gbps / (d->num_subdevices > 0 ? d->num_subdevices : 1);
    return bandwidth > 0 ? bandwidth : 1;
}

static uint64_t zf_sat(unsigned __int128 x) {
    return x > UINT64_MAX ? UINT64_MAX : (uint64_t)x;
}

static uint64_t zf_cycles_to_ns(unsigned __int128 cycles, uint32_t mhz) {
    return zf_sat(zf_div_ceil(zf_sat(cycles * 1000u), mhz > 0 ? mhz : 1));
}

uint64_t zf_work_lane_cycles(const zf_work_counts *work) {
    unsigned __int128 cycles = 0;
    for (int k = 0; k < ZF_OPS_COUNT; k++)
        cycles += (unsigned __int128)work->ops[k] * zf_class_cycles[k];
    return zf_sat(cycles);
}

/* The clock kernels run at (docs/cost-model.md, "Kernels"): the scenario's core clock unless a tool (sysman's power
 * limit, frequency range or performance factor: docs/sysman.md) has set a hook answering a lower one. */
static _Atomic(zf_cost_clock_fn) zf_cost_clock_hook;

void zf_cost_set_clock_hook(zf_cost_clock_fn hook) {
    atomic_store_explicit(&zf_cost_clock_hook, hook, memory_order_release);
}

uint32_t zf_cost_clock_mhz(const zf_device *device) {
    zf_cost_clock_fn hook = atomic_load_explicit(&zf_cost_clock_hook, memory_order_acquire);
    uint32_t mhz = hook != NULL ? hook(device) : 0;
    /* Above the core clock only for an overclocked frequency domain (docs/sysman.md, "Overclocking"). */
    return mhz > 0 ? mhz : device->properties.coreClockRate;
}

/* The roofline of docs/cost-model.md ("Kernels") for one tile running `work` as `groups` work-groups of `group_items`
 * work-items: the longest of compute at the lanes the groups occupy, one work-item's own instruction stream times the
 * rounds of hardware threads, and the global bytes at the tile's bandwidth. */
static uint64_t zf_tile_kernel_ns(const zf_work_counts *work, uint64_t groups, uint64_t group_items,
                                  const zf_device *device, uint32_t tiles) {
    const ze_device_properties_t *p = &device->properties;
    uint64_t xves = (uint64_t)p->numSlices * p->numSubslicesPerSlice * p->numEUsPerSubslice / tiles;
    uint64_t simd = p->physicalEUSimdWidth > 0 ? p->physicalEUSimdWidth : 1;
    uint64_t slots = xves * (p->numThreadsPerEU > 0 ? p->numThreadsPerEU : 1);
    uint64_t threads = zf_sat((unsigned __int128)groups * zf_div_ceil(group_items, simd));
    uint64_t items = zf_sat((unsigned __int128)groups * group_items);
    uint64_t ns = device->desc->performance.kernel_launch_ns;
    if (threads == 0 || xves == 0)
        return ns;
    uint64_t cycles = zf_work_lane_cycles(work);
    uint64_t lanes = (threads < xves ? threads : xves) * (group_items < simd ? group_items : simd);
    uint32_t mhz = zf_cost_clock_mhz(device);
    uint64_t compute = zf_cycles_to_ns(zf_div_ceil(cycles, lanes), mhz);
    uint64_t rounds = zf_div_ceil(threads, slots);
    uint64_t stream = zf_cycles_to_ns((unsigned __int128)zf_div_ceil(cycles, items) * rounds, mhz);
    uint64_t memory =
        zf_div_ceil(work->read[ZF_SPACE_GLOBAL] + work->written[ZF_SPACE_GLOBAL], zf_tile_bandwidth(device));
    uint64_t longest = compute > stream ? compute : stream;
    longest = longest > memory ? longest : memory;
    return zf_sat((unsigned __int128)ns + longest);
}

/* x × part ÷ whole, exactly: in 64 bits when the product fits (every launch costs this per count and tile). */
static uint64_t zf_scale(uint64_t x, uint64_t part, uint64_t whole) {
    uint64_t product;
    if (whole == 0)
        return 0;
    if (part == whole)
        return x;
    if (!__builtin_mul_overflow(x, part, &product))
        return product / whole;
    return zf_sat((unsigned __int128)x * part / whole);
}

void zf_work_share(const zf_work_counts *work, uint64_t part, uint64_t whole, zf_work_counts *out) {
    for (int k = 0; k < ZF_OPS_COUNT; k++)
        out->ops[k] = zf_scale(work->ops[k], part, whole);
    for (int k = 0; k < ZF_SPACE_COUNT; k++) {
        out->read[k] = zf_scale(work->read[k], part, whole);
        out->written[k] = zf_scale(work->written[k], part, whole);
    }
}

void zf_cost_kernel_tiles(const zf_work_counts *work, const ze_group_count_t *groups, uint64_t group_items,
                          const zf_device *device, uint64_t tile_ns[]) {
    uint32_t tiles = zf_device_tiles(device);
    uint64_t total = (uint64_t)groups->groupCountX * groups->groupCountY * groups->groupCountZ;
    for (uint32_t t = 0; t < tiles; t++) {
        /* Implicit scaling: tile t runs total / tiles work-groups, one more when t < total mod tiles. */
        uint64_t mine = total / tiles + (t < total % tiles ? 1u : 0u);
        zf_work_counts share;
        zf_work_share(work, mine, total, &share);
        tile_ns[t] = zf_tile_kernel_ns(&share, mine, group_items, device, tiles);
    }
}
