/* The device-time model of docs/cost-model.md, written from that document, for tests that predict zefake's modelled
 * durations and counters. A kernel is described by what one work-item executes (docs/builtin-kernels.md gives it for
 * the built-ins); the model answers how long each tile of the device is busy with it. Include once per test file. */
#ifndef ZC_COST_MODEL_H
#define ZC_COST_MODEL_H

#include "zc_harness.h"

#include <stdint.h>

/* The scenario's fixed costs (docs/scenarios.md, "performance"; the shipped scenarios use these). */
#define ZC_MODEL_COMMAND_NS  100u
#define ZC_MODEL_LAUNCH_NS   2000u
#define ZC_MODEL_DISPATCH_NS 4000u

/* What one work-item executes: operations by class and global bytes moved. */
typedef struct zc_item_work {
    uint64_t alu, math, memory, barrier, atomic;
    uint64_t bytes;
} zc_item_work;

/* The built-in vadd_int (docs/builtin-kernels.md): 9 ALU operations, 3 memory instructions, 12 bytes. */
static const zc_item_work zc_vadd_work = {.alu = 9, .memory = 3, .bytes = 12};

/* One tile of a device as the model sees it. */
typedef struct zc_model {
    uint32_t tiles; /* a root device with sub-devices runs kernels on all of them */
    uint64_t xves;  /* per tile */
    uint64_t simd, threads_per_xve, mhz;
    uint64_t bandwidth; /* bytes per ns per tile */
} zc_model;

static inline uint64_t zc_model_div_up(uint64_t a, uint64_t b) {
    return a / b + (a % b != 0);
}

/* The model of a root device: its shape from its properties, its memory bandwidth from its memory properties (the
 * shipped scenarios set performance.memory_bandwidth_gbps to clock x bus width / 8, in GB/s). */
static inline zc_model zc_model_of(ze_device_handle_t device) {
    ze_device_properties_t p = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
    zc_assert_success(zeDeviceGetProperties(device, &p));
    uint32_t subdevices = 0;
    zc_assert_success(zeDeviceGetSubDevices(device, &subdevices, NULL));
    ze_device_memory_properties_t memory = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MEMORY_PROPERTIES};
    uint32_t count = 1;
    zc_assert_success(zeDeviceGetMemoryProperties(device, &count, &memory));
    zc_model m = {.tiles = subdevices > 0 ? subdevices : 1};
    m.xves = (uint64_t)p.numSlices * p.numSubslicesPerSlice * p.numEUsPerSubslice / m.tiles;
    m.simd = p.physicalEUSimdWidth;
    m.threads_per_xve = p.numThreadsPerEU;
    m.mhz = p.coreClockRate;
    m.bandwidth = (uint64_t)memory.maxClockRate * memory.maxBusWidth / 8000u / m.tiles;
    return m;
}

/* Lane cycles of one work-item: ALU 1, math 4, memory 2, barrier 4, atomic 8 per operation. */
static inline uint64_t zc_item_cycles(const zc_item_work *w) {
    return w->alu + 4 * w->math + 2 * w->memory + 4 * w->barrier + 8 * w->atomic;
}

/* Device ns of `cycles` core cycles, rounded up. */
static inline uint64_t zc_model_cycles_ns(uint64_t cycles, uint64_t mhz) {
    return zc_model_div_up(cycles * 1000u, mhz);
}

/* One tile running `groups` work-groups of `group_items`: launch set-up plus the longest of compute (at the lanes the
 * groups occupy), one work-item's stream times the rounds of hardware threads, and memory. */
static inline uint64_t zc_model_tile_ns(const zc_model *m, const zc_item_work *w, uint64_t groups,
                                        uint64_t group_items) {
    uint64_t items = groups * group_items, threads = groups * zc_model_div_up(group_items, m->simd);
    if (threads == 0)
        return ZC_MODEL_LAUNCH_NS;
    uint64_t cycles = zc_item_cycles(w) * items;
    uint64_t lanes = (threads < m->xves ? threads : m->xves) * (group_items < m->simd ? group_items : m->simd);
    uint64_t compute = zc_model_cycles_ns(zc_model_div_up(cycles, lanes), m->mhz);
    uint64_t rounds = zc_model_div_up(threads, m->xves * m->threads_per_xve);
    uint64_t stream = zc_model_cycles_ns(zc_item_cycles(w) * rounds, m->mhz);
    uint64_t memory = zc_model_div_up(w->bytes * items, m->bandwidth);
    uint64_t longest = compute > stream ? compute : stream;
    return ZC_MODEL_LAUNCH_NS + (longest > memory ? longest : memory);
}

/* Tile t's share of `groups` work-groups (implicit scaling). */
static inline uint64_t zc_model_tile_groups(const zc_model *m, uint64_t groups, uint32_t t) {
    return groups / m->tiles + (t < groups % m->tiles ? 1u : 0u);
}

/* The kernel's duration on the device: its slowest tile. */
static inline uint64_t zc_model_kernel_ns(const zc_model *m, const zc_item_work *w, uint64_t groups,
                                          uint64_t group_items) {
    uint64_t longest = 0;
    for (uint32_t t = 0; t < m->tiles; t++) {
        uint64_t ns = zc_model_tile_ns(m, w, zc_model_tile_groups(m, groups, t), group_items);
        longest = ns > longest ? ns : longest;
    }
    return longest;
}

#endif
