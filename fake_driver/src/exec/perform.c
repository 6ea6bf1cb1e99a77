/* What each command does on the host when an engine runs it (exec/engine.c), and the work and device time it
 * reports. */
#include "core/zf_core.h"
#include "exec/command_kinds.h"
#include "memory/zf_memory.h"
#include "module/zf_kernel.h"

#include <stdlib.h>
#include <string.h>

static void zf_write_timestamp(zf_device *device, uint64_t *dst, uint64_t ns) {
    zf_clock *clock = zf_device_clock(device);
    *dst = zf_clock_mask(zf_clock_ns_to_ticks(clock, ns), clock->valid_bits);
}

ze_result_t zf_command_host_check(const void *ptr, size_t size, bool write, const char *what) {
    zf_vm_span span;
    if (zf_virtual_span(ptr, size, &span) && span.access != ZE_MEMORY_ACCESS_ATTRIBUTE_NONE)
        return ZE_RESULT_SUCCESS; /* a reservation's mapped pages: the virtual memory rules decide */
    const char *unusable = zf_host_range_unusable(ptr, size, write);
    if (unusable == NULL)
        return ZE_RESULT_SUCCESS;
    zf_log(ZF_LOG_ERROR, "device fault: %s %s [%p, +%zu), host memory %s", what, write ? "writes" : "reads", ptr, size,
           unusable);
    return ZE_RESULT_ERROR_DEVICE_LOST;
}

/* Before a command touches [ptr, ptr + size): the range must not run past its allocation nor reach freed memory (or
 * virtual memory mapped without access; for a write, mapped read-only), and an allocation it lies in is held mapped
 * until zf_access_end, even if the application frees it meanwhile. Plain host memory the driver did not allocate
 * must be mapped for the access, as for kernels (zf_command_host_check). */
static ze_result_t zf_access_begin(zf_context *context, const void *ptr, size_t size, bool write, const char *what,
                                   zf_mem_block **hold) {
    *hold = NULL;
    if (size == 0)
        return ZE_RESULT_SUCCESS;
    if (zf_memory_range_overruns(context, ptr, size)) {
        zf_log(ZF_LOG_ERROR, "device fault: %s [%p, +%zu) runs past the end of its allocation", what, ptr, size);
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    }
    zf_allocation allocation;
    *hold = zf_memory_hold(context, ptr, size, &allocation);
    if (*hold != NULL)
        return ZE_RESULT_SUCCESS;
    if (zf_memory_range_freed(ptr, size)) {
        zf_log(ZF_LOG_ERROR, "device fault: %s [%p, +%zu) is in freed or unmapped memory", what, ptr, size);
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    }
    zf_vm_span span;
    if (write && zf_virtual_span(ptr, size, &span) && span.access == ZE_MEMORY_ACCESS_ATTRIBUTE_READONLY) {
        zf_log(ZF_LOG_ERROR, "device fault: %s writes [%p, +%zu), virtual memory mapped read-only", what, ptr, size);
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    }
    return zf_command_host_check(ptr, size, write, what);
}

static void zf_access_end(zf_mem_block *hold) {
    if (hold != NULL)
        zf_memory_release(hold);
}

/* The two ranges a copy touches, each in the context it belongs to. */
typedef struct zf_transfer {
    zf_context *dst_context, *src_context;
    void *dst;
    const void *src;
    size_t dst_extent, src_extent;
} zf_transfer;

static ze_result_t zf_transfer_begin(const zf_transfer *t, const char *what, zf_mem_block *holds[2]) {
    ze_result_t result = zf_access_begin(t->dst_context, t->dst, t->dst_extent, true, what, &holds[0]);
    if (result == ZE_RESULT_SUCCESS)
        result = zf_access_begin(t->src_context, t->src, t->src_extent, false, what, &holds[1]);
    return result;
}

static void zf_transfer_end(zf_mem_block *holds[2]) {
    zf_access_end(holds[0]);
    zf_access_end(holds[1]);
}

static ze_result_t zf_do_copy(zf_queue *queue, const zf_copy_args *copy) {
    zf_transfer t = {queue->context, copy->src_context != NULL ? copy->src_context : queue->context,
                     copy->dst,      copy->src,
                     copy->size,     copy->size};
    zf_mem_block *holds[2] = {NULL, NULL};
    ze_result_t result = zf_transfer_begin(&t, "copy", holds);
    if (result == ZE_RESULT_SUCCESS && copy->size > 0)
        memmove(copy->dst, copy->src, copy->size);
    zf_transfer_end(holds);
    return result;
}

static size_t zf_region_extent(const ze_copy_region_t *r, uint32_t pitch, uint32_t slice_pitch) {
    uint32_t depth = r->depth == 0 ? 1 : r->depth;
    if (r->width == 0 || r->height == 0)
        return 0;
    return (size_t)(r->originZ + depth - 1) * slice_pitch + (size_t)(r->originY + r->height - 1) * pitch + r->originX +
           r->width;
}

static void zf_copy_rows(const zf_copy_region_args *a) {
    uint32_t depth = a->src_region.depth == 0 ? 1 : a->src_region.depth;
    for (uint32_t z = 0; z < depth; z++) {
        for (uint32_t y = 0; y < a->src_region.height; y++) {
            const char *src = (const char *)a->src + (size_t)(a->src_region.originZ + z) * a->src_slice_pitch +
                              (size_t)(a->src_region.originY + y) * a->src_pitch + a->src_region.originX;
            char *dst = (char *)a->dst + (size_t)(a->dst_region.originZ + z) * a->dst_slice_pitch +
                        (size_t)(a->dst_region.originY + y) * a->dst_pitch + a->dst_region.originX;
            memmove(dst, src, a->src_region.width);
        }
    }
}

static ze_result_t zf_do_copy_region(zf_queue *queue, const zf_copy_region_args *a) {
    zf_transfer t = {queue->context,
                     queue->context,
                     a->dst,
                     a->src,
                     zf_region_extent(&a->dst_region, a->dst_pitch, a->dst_slice_pitch),
                     zf_region_extent(&a->src_region, a->src_pitch, a->src_slice_pitch)};
    zf_mem_block *holds[2] = {NULL, NULL};
    ze_result_t result = zf_transfer_begin(&t, "region copy", holds);
    if (result == ZE_RESULT_SUCCESS)
        zf_copy_rows(a);
    zf_transfer_end(holds);
    return result;
}

static ze_result_t zf_do_fill(zf_queue *queue, const zf_fill_args *fill) {
    zf_mem_block *hold = NULL;
    ze_result_t result = zf_access_begin(queue->context, fill->dst, fill->size, true, "fill", &hold);
    if (result == ZE_RESULT_SUCCESS) {
        uint8_t *dst = fill->dst;
        if (fill->pattern_size == 1) {
            memset(dst, fill->pattern[0], fill->size);
        } else {
            for (size_t i = 0; i < fill->size; i++)
                dst[i] = fill->pattern[i % fill->pattern_size];
        }
    }
    zf_access_end(hold);
    return result;
}

/* A small read or write of the device in the application's memory (the other side is the driver's), checked like a
 * copy: `write` says which side is the application's. */
static ze_result_t zf_device_access(zf_context *context, void *dst, const void *src, size_t size, bool write,
                                    const char *what) {
    zf_mem_block *hold = NULL;
    ze_result_t result = zf_access_begin(context, write ? dst : src, size, write, what, &hold);
    if (result == ZE_RESULT_SUCCESS)
        memcpy(dst, src, size);
    zf_access_end(hold);
    return result;
}

static ze_result_t zf_do_write_timestamp(zf_device *device, zf_queue *queue, uint64_t *dst, uint64_t ns) {
    uint64_t ticks;
    zf_write_timestamp(device, &ticks, ns);
    return zf_device_access(queue->context, dst, &ticks, sizeof ticks, true, "global timestamp");
}

static ze_result_t zf_do_query_timestamps(zf_queue *queue, const zf_query_timestamps_args *q) {
    ze_result_t result = ZE_RESULT_SUCCESS;
    for (uint32_t i = 0; i < q->num_events && result == ZE_RESULT_SUCCESS; i++) {
        size_t offset = q->offsets != NULL ? q->offsets[i] : i * sizeof(ze_kernel_timestamp_result_t);
        ze_kernel_timestamp_result_t timestamp = {{0, 0}, {0, 0}};
        zf_sync_lock();
        if (q->events[i]->signaled && q->events[i]->timestamp_device != NULL)
            zf_event_write_kernel_timestamp(q->events[i], &timestamp);
        zf_sync_unlock();
        result = zf_device_access(queue->context, (char *)q->dst + offset, &timestamp, sizeof timestamp, true,
                                  "kernel timestamp query");
    }
    return result;
}

/* Runs one kernel, then adds what it executed and the time it took on each tile to the record. */
static ze_result_t zf_launch_one(zf_device *device, zf_kernel_launch *launch, const ze_group_count_t *groups,
                                 zf_work_record *record) {
    zf_work_counts work = {0};
    ze_result_t result = zf_kernel_launch_run(launch, groups, &work);
    uint32_t size[3];
    zf_kernel_launch_group_size(launch, size);
    uint64_t tile_ns[ZF_SCENARIO_MAX_SUBDEVICES];
    zf_cost_kernel_tiles(&work, groups, (uint64_t)size[0] * size[1] * size[2], device, tile_ns);
    for (uint32_t t = 0; t < record->tiles; t++)
        record->tile_ns[t] += tile_ns[t];
    record->work_items += zf_launch_work_items(launch, groups);
    zf_work_add(&record->work, &work);
    return result;
}

static ze_result_t zf_do_launches(zf_device *device, zf_queue *queue, const zf_launch_args *launch, uint64_t *cost_ns,
                                  zf_work_record *record) {
    uint32_t count = launch->num_kernels, indirect_count = 0;
    if (launch->indirect_count != NULL) {
        /* the device reads the count at execution, bounded by the append */
        ze_result_t read = zf_device_access(queue->context, &indirect_count, launch->indirect_count,
                                            sizeof indirect_count, false, "indirect kernel count");
        if (read != ZE_RESULT_SUCCESS)
            return read;
        count = indirect_count < count ? indirect_count : count;
    }
    ze_result_t result = ZE_RESULT_SUCCESS;
    record->tiles = zf_device_tiles(device);
    for (uint32_t t = 0; t < record->tiles; t++)
        record->tile_ns[t] = *cost_ns;
    for (uint32_t k = 0; k < count; k++) {
        ze_group_count_t groups = launch->groups;
        if (launch->indirect_groups != NULL) {
            ze_result_t read = zf_device_access(queue->context, &groups, &launch->indirect_groups[k], sizeof groups,
                                                false, "indirect group count");
            if (read != ZE_RESULT_SUCCESS)
                return read;
        }
        ze_result_t r = zf_launch_one(device, zf_launch_at(launch, k), &groups, record);
        if (r != ZE_RESULT_SUCCESS)
            result = r;
    }
    /* The command lasts until its slowest tile is done. */
    uint64_t longest = 0;
    for (uint32_t t = 0; t < record->tiles; t++)
        longest = record->tile_ns[t] > longest ? record->tile_ns[t] : longest;
    record->kernel_cycles = zf_ns_to_cycles(longest - *cost_ns, device);
    record->bytes_read = record->work.read[ZF_SPACE_GLOBAL];
    record->bytes_written = record->work.written[ZF_SPACE_GLOBAL];
    *cost_ns = longest;
    return result;
}

/* ------------------------------------------------------------------------------------------------------------------
 * The allocations a submitted command uses: the ranges zf_perform touches */

/* Room for `cap` items, moved off borrowed storage; false when out of host memory. */
static bool zf_uses_grow(zf_uses *uses, size_t cap) {
    zf_held_block *grown = uses->borrowed ? malloc(cap * sizeof *grown) : realloc(uses->items, cap * sizeof *grown);
    if (grown == NULL)
        return false;
    if (uses->borrowed && uses->count > 0)
        memcpy(grown, uses->items, uses->count * sizeof *grown);
    uses->items = grown;
    uses->cap = cap;
    uses->borrowed = false;
    return true;
}

static void zf_use_add(zf_uses *uses, zf_context *context, const void *ptr, size_t ordinal) {
    if (ptr == NULL)
        return;
    zf_mem_block *block = zf_memory_use(context, ptr);
    if (block == NULL)
        return; /* host memory of the application's, or a range the command will report */
    if (uses->count == uses->cap && !zf_uses_grow(uses, uses->cap != 0 ? uses->cap * 2 : 16)) {
        zf_memory_unuse(block);
        zf_log(ZF_LOG_DEBUG, "no host memory to hold the allocation at %p from its submission", ptr);
        return;
    }
    uses->items[uses->count++] = (zf_held_block){block, ordinal};
}

typedef struct zf_pointer_use {
    zf_uses *uses;
    size_t ordinal;
} zf_pointer_use;

static void zf_use_pointer(void *user, zf_context *context, const void *pointer) {
    const zf_pointer_use *use = user;
    zf_use_add(use->uses, context, pointer, use->ordinal);
}

static void zf_use_launch_args(const zf_queue *queue, const zf_launch_args *launch, size_t ordinal, zf_uses *uses) {
    zf_use_add(uses, queue->context, launch->indirect_groups, ordinal);
    zf_use_add(uses, queue->context, launch->indirect_count, ordinal);
    zf_pointer_use use = {uses, ordinal};
    for (uint32_t k = 0; k < launch->num_kernels; k++)
        zf_kernel_launch_pointers(zf_launch_at(launch, k), zf_use_pointer, &use);
}

void zf_use_copy(const zf_queue *queue, const zf_command *command, size_t ordinal, zf_uses *uses) {
    const zf_copy_args *copy = &command->u.copy;
    zf_use_add(uses, queue->context, copy->dst, ordinal);
    zf_use_add(uses, copy->src_context != NULL ? copy->src_context : queue->context, copy->src, ordinal);
}

void zf_use_copy_region(const zf_queue *queue, const zf_command *command, size_t ordinal, zf_uses *uses) {
    zf_use_add(uses, queue->context, command->u.region.dst, ordinal);
    zf_use_add(uses, queue->context, command->u.region.src, ordinal);
}

void zf_use_fill(const zf_queue *queue, const zf_command *command, size_t ordinal, zf_uses *uses) {
    zf_use_add(uses, queue->context, command->u.fill.dst, ordinal);
}

void zf_use_timestamp(const zf_queue *queue, const zf_command *command, size_t ordinal, zf_uses *uses) {
    zf_use_add(uses, queue->context, command->timestamp_dst, ordinal);
}

void zf_use_query(const zf_queue *queue, const zf_command *command, size_t ordinal, zf_uses *uses) {
    zf_use_add(uses, queue->context, command->u.query.dst, ordinal);
}

void zf_use_launch(const zf_queue *queue, const zf_command *command, size_t ordinal, zf_uses *uses) {
    zf_use_launch_args(queue, &command->u.launch, ordinal, uses);
}

/* Barriers, events and hints use no memory; custom commands hold what they touch while they run. */
void zf_command_use(const zf_queue *queue, const zf_command *command, size_t ordinal, zf_uses *uses) {
    const zf_command_kind_ops *kind = &zf_command_kinds[command->kind];
    if (kind->use != NULL)
        kind->use(queue, command, ordinal, uses);
}

void zf_uses_release(zf_uses *uses, size_t ordinal) {
    while (uses->next < uses->count && (ordinal == SIZE_MAX || uses->items[uses->next].command <= ordinal))
        zf_memory_unuse(uses->items[uses->next++].block);
    if (uses->next == uses->count)
        uses->next = uses->count = 0;
}

void zf_uses_drop(zf_uses *uses) {
    zf_uses_release(uses, SIZE_MAX);
    if (!uses->borrowed)
        free(uses->items);
    *uses = (zf_uses){0};
}

void zf_uses_move(zf_uses *to, zf_uses *from) {
    if (from->count > to->cap && !zf_uses_grow(to, from->count)) {
        zf_log(ZF_LOG_DEBUG, "no host memory to hold a submission's allocations until it runs");
    } else if (from->count > 0) {
        memcpy(to->items, from->items, from->count * sizeof *to->items);
        to->count = from->count;
        to->next = 0;
        from->count = 0; /* moved: nothing left to release */
    }
    zf_uses_drop(from);
}

ze_result_t zf_perform_copy(zf_device *device, zf_queue *queue, zf_command *command, uint64_t start_ns,
                            uint64_t *cost_ns, zf_work_record *record) {
    (void)device;
    (void)start_ns;
    (void)cost_ns;
    record->bytes_read = record->bytes_written = command->u.copy.size;
    return zf_do_copy(queue, &command->u.copy);
}

ze_result_t zf_perform_copy_region(zf_device *device, zf_queue *queue, zf_command *command, uint64_t start_ns,
                                   uint64_t *cost_ns, zf_work_record *record) {
    (void)device;
    (void)start_ns;
    (void)cost_ns;
    record->bytes_read = record->bytes_written = zf_region_bytes(&command->u.region.src_region);
    return zf_do_copy_region(queue, &command->u.region);
}

ze_result_t zf_perform_fill(zf_device *device, zf_queue *queue, zf_command *command, uint64_t start_ns,
                            uint64_t *cost_ns, zf_work_record *record) {
    (void)device;
    (void)start_ns;
    (void)cost_ns;
    record->bytes_written = command->u.fill.size;
    return zf_do_fill(queue, &command->u.fill);
}

ze_result_t zf_perform_timestamp(zf_device *device, zf_queue *queue, zf_command *command, uint64_t start_ns,
                                 uint64_t *cost_ns, zf_work_record *record) {
    (void)cost_ns;
    (void)record;
    return zf_do_write_timestamp(device, queue, command->timestamp_dst, start_ns);
}

ze_result_t zf_perform_query(zf_device *device, zf_queue *queue, zf_command *command, uint64_t start_ns,
                             uint64_t *cost_ns, zf_work_record *record) {
    (void)device;
    (void)start_ns;
    (void)cost_ns;
    (void)record;
    return zf_do_query_timestamps(queue, &command->u.query);
}

ze_result_t zf_perform_launches(zf_device *device, zf_queue *queue, zf_command *command, uint64_t start_ns,
                                uint64_t *cost_ns, zf_work_record *record) {
    (void)start_ns;
    return zf_do_launches(device, queue, &command->u.launch, cost_ns, record);
}

ze_result_t zf_perform_custom(zf_device *device, zf_queue *queue, zf_command *command, uint64_t start_ns,
                              uint64_t *cost_ns, zf_work_record *record) {
    (void)device;
    (void)record;
    return command->u.custom.ops->perform(command->u.custom.payload, queue, start_ns, cost_ns);
}

ze_result_t zf_perform(zf_device *device, zf_queue *queue, zf_command *command, uint64_t start_ns, uint64_t *cost_ns,
                       zf_work_record *record) {
    *cost_ns = zf_cost_command_ns(command, queue);
    const zf_command_kind_ops *kind = &zf_command_kinds[command->kind];
    return kind->perform != NULL ? kind->perform(device, queue, command, start_ns, cost_ns, record) : ZE_RESULT_SUCCESS;
}
