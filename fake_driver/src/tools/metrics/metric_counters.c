/* The counter model: every executed command adds to the signals of the tiles it ran on (docs/metrics.md,
 * "Signals"). The amounts are a pure function of the zf_work_record and the tile's shape, so the same workload gives
 * the same counters; time-derived signals (timestamps, GPU clocks) come from the device clock.
 *
 * While a streamer samples a tile, each command's amounts are kept in a log and spread evenly over the command's
 * [start, end] interval, so a report written in the middle of a kernel sees the part of it that has run. Work that
 * ended before the last report written is folded into the base and forgotten. */
#include "core/zf_core.h"
#include "memory/zf_memory.h"
#include "tools/metrics/zf_metric.h"

#include <stdlib.h>
#include <string.h>

typedef unsigned __int128 zf_u128;

static uint64_t zf_sat64(zf_u128 x) {
    return x > UINT64_MAX ? UINT64_MAX : (uint64_t)x;
}

static uint64_t zf_mul_sat(uint64_t a, uint64_t b) {
    return zf_sat64((zf_u128)a * b);
}

uint64_t zf_metric_ns_to_ticks(const zf_metric_device *mdev, uint64_t ns) {
    return zf_clock_ns_to_ticks(zf_device_clock(mdev->device), ns);
}

uint64_t zf_metric_ticks_to_ns(const zf_metric_device *mdev, uint64_t ticks) {
    uint64_t hz = mdev->device->desc->timer.frequency_hz;
    zf_u128 scaled = (zf_u128)ticks * 1000000000u;
    return zf_sat64(scaled / hz + (scaled % hz != 0));
}

/* How long reports wait for a command another process of the card still executes: one stopped in a debugger, or
 * stuck, must not stop this process's streamers for good (docs/metrics.md, "Which reports exist"). */
#define ZF_METRIC_OTHERS_WAIT_NS 1000000000u

/* A host clock: device time now, but never past a command still being executed on the card (its counters are not
 * known yet: zf_engines_hold_ns), for another process's command at most ZF_METRIC_OTHERS_WAIT_NS. A modelled clock:
 * the later of its time and the end of the latest command. */
uint64_t zf_metric_horizon_ns(zf_metric_device *mdev) {
    zf_clock *clock = zf_device_clock(mdev->device);
    uint64_t now = zf_clock_now_ns(clock);
    if (!zf_clock_follows_host(clock)) {
        uint64_t end = mdev->root->latest_end_ns;
        return now > end ? now : end;
    }
    zf_device *root = mdev->root->device;
    uint64_t hold = zf_engines_hold_ns(root);
    if (root->shared != NULL) {
        uint64_t others = zf_shared_hold_ns(root->shared);
        if (others < hold && now - others <= ZF_METRIC_OTHERS_WAIT_NS)
            hold = others;
    }
    return now < hold ? now : hold;
}

static uint64_t zf_cycles(uint64_t ns, uint64_t mhz) {
    return zf_sat64((zf_u128)ns * mhz / 1000u);
}

/* ---- The GPU clock -------------------------------------------------------------------------------------------- */

static const zf_clock_piece *zf_clock_piece_at(const zf_metric_tile *tile, uint64_t ns) {
    uint32_t i = tile->clock_pieces;
    while (i > 1 && tile->clock[i - 1].from_ns > ns)
        i--;
    return &tile->clock[i - 1];
}

/* GPU clocks at device time `ns`: floor(ns x MHz / 1000) at a constant frequency. */
static uint64_t zf_tile_gpu_clocks(const zf_metric_tile *tile, uint64_t ns) {
    if (tile->clock_pieces == 0)
        return zf_cycles(ns, tile->shape.core_mhz);
    const zf_clock_piece *piece = zf_clock_piece_at(tile, ns);
    uint64_t since = ns > piece->from_ns ? ns - piece->from_ns : 0;
    return piece->cycles + zf_cycles(since, piece->mhz);
}

static uint64_t zf_tile_mhz(const zf_metric_tile *tile) {
    return tile->clock_pieces > 0 ? tile->clock[tile->clock_pieces - 1].mhz : tile->shape.core_mhz;
}

/* A full history forgets its oldest piece but one: readings that far back are long written. */
static void zf_tile_clock_change(zf_metric_tile *tile, uint64_t ns, uint64_t mhz) {
    if (tile->clock_pieces == 0)
        tile->clock[tile->clock_pieces++] = (zf_clock_piece){0, 0, tile->shape.core_mhz};
    const zf_clock_piece *last = &tile->clock[tile->clock_pieces - 1];
    uint64_t from = ns > last->from_ns ? ns : last->from_ns;
    zf_clock_piece piece = {from, zf_tile_gpu_clocks(tile, from), mhz};
    if (tile->clock_pieces == ZF_CLOCK_PIECES) {
        memmove(&tile->clock[1], &tile->clock[2], (ZF_CLOCK_PIECES - 2) * sizeof tile->clock[0]);
        tile->clock_pieces--;
    }
    tile->clock[tile->clock_pieces++] = piece;
}

void zf_metric_follow_clock(zf_metric_device *root, uint64_t ns) {
    for (uint32_t t = 0; t < root->num_tiles; t++) {
        zf_metric_tile *tile = root->tiles[t];
        uint64_t mhz = zf_cost_clock_mhz(tile->mdev->device);
        if (mhz != zf_tile_mhz(tile))
            zf_tile_clock_change(tile, ns, mhz);
    }
}

/* Amount x shared among `parts` tiles: tile i gets x / parts, plus one if i < x % parts. */
static uint64_t zf_split(uint64_t x, uint32_t index, uint32_t parts) {
    return x / parts + (index < x % parts ? 1u : 0u);
}

static bool zf_is_launch(zf_command_kind kind) {
    return kind == ZF_CMD_LAUNCH || kind == ZF_CMD_LAUNCH_INDIRECT || kind == ZF_CMD_LAUNCH_MULTIPLE_INDIRECT;
}

/* SIMD instructions of tile `index`: its share of `lane_ops` over the SIMD width, rounded up. */
static uint64_t zf_instructions(uint64_t lane_ops, uint32_t index, uint32_t parts, uint64_t simd) {
    uint64_t share = zf_split(lane_ops, index, parts);
    return share / simd + (share % simd != 0);
}

/* A kernel command on tile `index`: XVE time from the cost model's kernel cycles (its launch set-up is stall, the rest
 * active), instructions and atomics from what the kernels executed (the record's zf_work_counts). */
static void zf_kernel_amounts(const zf_work_record *r, uint32_t index, uint32_t parts, const zf_tile_shape *shape,
                              uint64_t mhz, uint64_t amount[ZF_SIG_COUNT]) {
    uint64_t items = zf_split(r->work_items, index, parts), kernel_cycles = r->kernel_cycles;
    if (items == 0 || kernel_cycles == 0)
        return;
    uint64_t simd = shape->simd_width > 0 ? shape->simd_width : 1;
    uint64_t threads = items / simd + (items % simd != 0);
    uint64_t used = threads < shape->xve_count ? threads : shape->xve_count;
    uint64_t dispatch = zf_cycles(r->device->desc->performance.kernel_launch_ns, mhz);
    uint64_t stall_cycles = kernel_cycles < dispatch ? kernel_cycles : dispatch;
    uint64_t slots = zf_mul_sat(shape->xve_count, shape->threads_per_xve);
    amount[ZF_SIG_XVE_ACTIVE] = zf_mul_sat(used, kernel_cycles - stall_cycles);
    amount[ZF_SIG_XVE_STALL] = zf_mul_sat(used, stall_cycles);
    amount[ZF_SIG_THREAD_CYCLES] = zf_mul_sat(threads < slots ? threads : slots, kernel_cycles);
    amount[ZF_SIG_THREADS] = threads;
    const uint64_t *ops = r->work.ops;
    amount[ZF_SIG_ALU0_INST] = zf_instructions(ops[ZF_OPS_ALU], index, parts, simd);
    amount[ZF_SIG_ALU1_INST] = zf_instructions(ops[ZF_OPS_MATH], index, parts, simd);
    amount[ZF_SIG_SEND_INST] = zf_instructions(ops[ZF_OPS_MEMORY], index, parts, simd);
    amount[ZF_SIG_CONTROL_INST] = zf_instructions(ops[ZF_OPS_BARRIER], index, parts, simd);
    amount[ZF_SIG_BARRIERS] = amount[ZF_SIG_CONTROL_INST];
    amount[ZF_SIG_ATOMICS] = zf_split(ops[ZF_OPS_ATOMIC], index, parts);
    /* ALU1 (math) co-issues with ALU0 while both have work. */
    uint64_t alu0 = amount[ZF_SIG_ALU0_INST], alu1 = amount[ZF_SIG_ALU1_INST];
    amount[ZF_SIG_ALU0_ALU1_CYCLES] = alu0 < alu1 ? alu0 : alu1;
}

/* What one command adds to tile `index` of the `parts` tiles it ran on. Work (items, bytes) is shared among the tiles;
 * time (engine and kernel cycles) is not: each tile's engine is busy for the whole command. */
static void zf_work_amounts(const zf_work_record *r, const zf_metric_tile *tile, uint32_t index, uint32_t parts,
                            bool compute, uint64_t amount[ZF_SIG_COUNT]) {
    const zf_tile_shape *shape = &tile->shape;
    uint64_t mhz = zf_tile_mhz(tile);
    uint64_t cycles = zf_cycles(r->end_ns - r->start_ns, mhz);
    amount[compute ? ZF_SIG_COMPUTE_ENGINE_CYCLES : ZF_SIG_COPY_ENGINE_CYCLES] = cycles;
    uint64_t read = zf_split(r->bytes_read, index, parts), written = zf_split(r->bytes_written, index, parts);
    amount[ZF_SIG_MEM_READ_BYTES] = read;
    amount[ZF_SIG_MEM_WRITE_BYTES] = written;
    if (compute) {
        amount[ZF_SIG_L3_READ_BYTES] = read;
        amount[ZF_SIG_L3_WRITE_BYTES] = written;
    }
    if (zf_is_launch(r->kind))
        zf_kernel_amounts(r, index, parts, shape, mhz, amount);
}

static void zf_add_amounts(uint64_t *to, const uint64_t *amount) {
    for (int s = 0; s < ZF_SIG_COUNT; s++)
        to[s] += amount[s];
}

static void zf_tile_add(zf_metric_tile *tile, const zf_work_entry *entry) {
    if (tile->streamers == 0) {
        zf_add_amounts(tile->base, entry->amount);
        return;
    }
    if (tile->log_count == tile->log_capacity) {
        size_t capacity = tile->log_capacity ? tile->log_capacity * 2 : 64;
        zf_work_entry *grown = realloc(tile->log, capacity * sizeof *grown);
        if (grown == NULL) {
            /* Counted in full at once: reports lose the spreading of this command, not the command. */
            zf_log(ZF_LOG_WARN, "metrics: no host memory to log work; counted without spreading");
            zf_add_amounts(tile->base, entry->amount);
            return;
        }
        tile->log = grown;
        tile->log_capacity = capacity;
    }
    tile->log[tile->log_count++] = *entry;
}

_Static_assert(ZF_SHARED_MAX_KERNELS == ZF_KERNEL_CODE_MAX, "a shared work entry names a command's kernels");

/* Publishes one tile's part of a command on the card's shared state (host clocks only: in modelled mode device times
 * of different processes are unrelated), with the code ranges of its kernels, and the memory the process holds on the
 * card. */
static void zf_metric_share(const zf_metric_device *mdev, const zf_work_entry *entries, uint32_t count) {
    zf_card_share *shared = zf_device_shared(mdev->device);
    if (shared == NULL)
        return;
    if (zf_clock_follows_host(zf_device_clock(mdev->device))) {
        for (uint32_t t = 0; t < count; t++) {
            zf_shared_work work = {.tile = zf_device_physical_tile(mdev->tiles[t]->mdev->device),
                                   .start_ns = entries[t].start_ns,
                                   .end_ns = entries[t].end_ns,
                                   .context_id = entries[t].context_id,
                                   .num_kernels = entries[t].num_kernels};
            for (uint32_t k = 0; k < entries[t].num_kernels; k++) {
                work.code_base[k] = entries[t].kernels[k].base;
                work.code_instructions[k] = entries[t].kernels[k].instructions;
            }
            memcpy(work.amount, entries[t].amount, sizeof work.amount);
            zf_shared_publish(shared, &work);
        }
    }
    uint64_t used = 0, capacity = 0;
    zf_memory_device_usage(mdev->device->root, &used, &capacity);
    zf_shared_set_memory(shared, used);
}

void zf_metric_observe(const zf_work_record *r, void *user_data) {
    (void)user_data;
    zf_metric_device *mdev = zf_metric_device_of(r->device);
    const zf_scenario_device *d = r->device->desc;
    bool compute = r->ordinal < d->num_engine_groups &&
                   (d->engine_groups[r->ordinal].flags & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE);
    zf_kernel_code kernels[ZF_KERNEL_CODE_MAX];
    uint32_t num_kernels = zf_kernel_isa_take_ran(kernels); /* the observer runs on the worker that ran them */
    zf_work_entry entries[ZF_SCENARIO_MAX_SUBDEVICES];
    zf_metric_lock();
    zf_metric_follow_clock(mdev->root, r->start_ns);
    for (uint32_t t = 0; t < mdev->num_tiles; t++) {
        zf_metric_tile *tile = mdev->tiles[t];
        zf_work_entry *entry = &entries[t];
        *entry = (zf_work_entry){.start_ns = r->start_ns,
                                 .end_ns = r->end_ns,
                                 .context_id = zf_engine_context_id(r->ordinal, r->index),
                                 .num_kernels = num_kernels};
        memcpy(entry->kernels, kernels, num_kernels * sizeof kernels[0]);
        zf_work_amounts(r, tile, t, mdev->num_tiles, compute, entry->amount);
        zf_tile_add(tile, entry);
        zf_tracers_observe(tile, r);
    }
    if (r->end_ns > mdev->root->latest_end_ns)
        mdev->root->latest_end_ns = r->end_ns;
    zf_streamers_advance(mdev->root);
    zf_metric_unlock();
    zf_metric_share(mdev, entries, mdev->num_tiles);
}

/* Adds another process's work to the tiles of this process that are the same physical tile. */
static void zf_metric_import_one(zf_metric_device *root, const zf_shared_work *work) {
    for (uint32_t t = 0; t < root->num_tiles; t++) {
        zf_metric_tile *tile = root->tiles[t];
        if (zf_device_physical_tile(tile->mdev->device) != work->tile)
            continue;
        zf_work_entry entry = {.start_ns = work->start_ns,
                               .end_ns = work->end_ns,
                               .context_id = work->context_id,
                               .num_kernels =
                                   work->num_kernels < ZF_KERNEL_CODE_MAX ? work->num_kernels : ZF_KERNEL_CODE_MAX};
        for (uint32_t k = 0; k < entry.num_kernels; k++)
            entry.kernels[k] = (zf_kernel_code){work->code_base[k], work->code_instructions[k]};
        memcpy(entry.amount, work->amount, sizeof entry.amount);
        zf_tile_add(tile, &entry);
    }
    if (work->end_ns > root->latest_end_ns)
        root->latest_end_ns = work->end_ns;
}

void zf_metric_import(zf_metric_device *root) {
    zf_card_share *shared = zf_device_shared(root->device);
    if (shared == NULL || !zf_clock_follows_host(zf_device_clock(root->device)))
        return;
    if (!root->shared_started) {
        root->shared_seq = zf_shared_next_seq(shared);
        root->shared_started = true;
    }
    zf_shared_work work[64];
    uint32_t n;
    while ((n = zf_shared_collect(shared, &root->shared_seq, work, 64)) > 0) {
        for (uint32_t i = 0; i < n; i++)
            zf_metric_import_one(root, &work[i]);
    }
}

/* ---- Reading the signals -------------------------------------------------------------------------------------- */

static void zf_signals_base(const zf_metric_tile *tile, uint64_t ns, uint64_t out[ZF_SIG_COUNT]) {
    for (int s = 0; s < ZF_SIG_COUNT; s++)
        out[s] = tile->base[s];
    out[ZF_SIG_GPU_CLOCKS] = zf_tile_gpu_clocks(tile, ns);
}

void zf_tile_signals_at(const zf_metric_tile *tile, uint64_t ns, uint64_t out[ZF_SIG_COUNT]) {
    zf_signals_base(tile, ns, out);
    for (size_t i = 0; i < tile->log_count; i++) {
        const zf_work_entry *e = &tile->log[i];
        if (ns <= e->start_ns)
            continue;
        if (ns >= e->end_ns) {
            zf_add_amounts(out, e->amount);
            continue;
        }
        uint64_t done = ns - e->start_ns, length = e->end_ns - e->start_ns;
        for (int s = 0; s < ZF_SIG_COUNT; s++)
            out[s] += (uint64_t)((zf_u128)e->amount[s] * done / length);
    }
}

void zf_tile_signals_now(const zf_metric_tile *tile, uint64_t ns, uint64_t out[ZF_SIG_COUNT]) {
    zf_signals_base(tile, ns, out);
    for (size_t i = 0; i < tile->log_count; i++)
        zf_add_amounts(out, tile->log[i].amount);
}

bool zf_tile_context_at(const zf_metric_tile *tile, uint64_t ns, uint32_t *context_id) {
    bool found = false;
    uint64_t latest_start = 0;
    for (size_t i = 0; i < tile->log_count; i++) {
        const zf_work_entry *e = &tile->log[i];
        if (e->start_ns <= ns && ns < e->end_ns && (!found || e->start_ns >= latest_start)) {
            found = true;
            latest_start = e->start_ns;
            *context_id = e->context_id;
        }
    }
    return found;
}

uint32_t zf_tile_kernels_at(const zf_metric_tile *tile, uint64_t ns, zf_kernel_code out[ZF_KERNEL_CODE_MAX]) {
    const zf_work_entry *latest = NULL;
    for (size_t i = 0; i < tile->log_count; i++) {
        const zf_work_entry *e = &tile->log[i];
        if (e->num_kernels > 0 && e->start_ns <= ns && (latest == NULL || e->start_ns >= latest->start_ns))
            latest = e;
    }
    if (latest == NULL)
        return 0;
    memcpy(out, latest->kernels, latest->num_kernels * sizeof out[0]);
    return latest->num_kernels;
}

bool zf_tile_active_after(const zf_metric_tile *tile, uint64_t ns) {
    for (size_t i = 0; i < tile->log_count; i++) {
        if (tile->log[i].end_ns > ns)
            return true;
    }
    return false;
}

void zf_tile_fold(zf_metric_tile *tile, uint64_t ns) {
    size_t kept = 0;
    for (size_t i = 0; i < tile->log_count; i++) {
        if (tile->log[i].end_ns <= ns)
            zf_add_amounts(tile->base, tile->log[i].amount);
        else
            tile->log[kept++] = tile->log[i];
    }
    tile->log_count = kept;
}

zf_domain_use *zf_tile_domain_use(zf_metric_tile *tile, uint32_t domain, bool create) {
    for (uint32_t i = 0; i < tile->num_uses; i++) {
        if (tile->uses[i].domain == domain)
            return &tile->uses[i];
    }
    if (!create)
        return NULL;
    for (uint32_t i = 0; i < tile->num_uses; i++) {
        if (tile->uses[i].streamer == NULL && tile->uses[i].pools == 0) {
            tile->uses[i].domain = domain;
            return &tile->uses[i];
        }
    }
    if (tile->num_uses == ZF_MAX_DOMAIN_USES)
        return NULL;
    zf_domain_use *use = &tile->uses[tile->num_uses++];
    *use = (zf_domain_use){.domain = domain};
    return use;
}

uint64_t zf_flex_counter(const zf_metric_group *group, uint32_t index, const uint64_t signals[ZF_SIG_COUNT]) {
    if (index >= group->num_counters)
        return 0;
    const zf_scenario_counter *c = &group->counters[index];
    /* Counters wrap: keeping the low 64 bits (the records keep fewer still) is the hardware's behaviour. */
    return (uint64_t)((zf_u128)signals[c->signal] * c->multiply / c->divide);
}
