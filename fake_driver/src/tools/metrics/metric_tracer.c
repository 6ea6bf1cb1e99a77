/* The metric tracer (headers 1.10): event-based metrics of what the engines execute, recorded while a tracer is
 * enabled and decoded into timestamped entries (docs/metrics.md, "Metric tracer").
 *
 * Every device has one tracer group, TRACER_BASED, in a domain of its own. Its events come from the record of each
 * executed command the counter model already receives (zf_metric_observe): the begin and end of kernel launches, of
 * copies and fills, and of every other command, the busy cycles of the tile's engines after each command (a 32-bit
 * value that wraps), and a fault event for a command that faulted. Each event is one 32-byte record in the tracer's
 * buffer; the decoder turns records into zet_metric_entry_exp_t, one set per tile. All tracer state is guarded by
 * the metric lock. */
#include "core/zf_chain.h"
#include "core/zf_core.h"
#include "tools/metrics/zf_metric.h"

#include <stdlib.h>
#include <string.h>

#if ZF_L0_AT_LEAST(10)

#define ZF_TRACE_EVENTS      8u
#define ZF_TRACER_MAX_NOTIFY (1u << 20) /* bytes: a buffer of 2 MiB at most */
#define ZF_TRACER_MAX_GROUPS 8u
#define ZF_ENGINE_CYCLE_BITS 32u

/* Record fields (docs/metrics.md, "Metric tracer") */
#define ZF_TR_OFF_EVENT     0u
#define ZF_TR_OFF_TILE      4u
#define ZF_TR_OFF_TIMESTAMP 8u
#define ZF_TR_OFF_VALUE     16u
#define ZF_TR_OFF_CONTEXT   24u

typedef enum zf_trace_event {
    ZF_TRACE_KERNEL_BEGIN = 0,
    ZF_TRACE_KERNEL_END,
    ZF_TRACE_COPY_BEGIN,
    ZF_TRACE_COPY_END,
    ZF_TRACE_COMMAND_BEGIN,
    ZF_TRACE_COMMAND_END,
    ZF_TRACE_ENGINE_CYCLES,
    ZF_TRACE_FAULT,
} zf_trace_event;

/* The events as metrics of the tracer group and of its decoders (the formula is never evaluated: tracer data is
 * decoded, not calculated). */
static const zf_metric_info_def zf_trace_defs[ZF_TRACE_EVENTS] = {
    {"KernelBegin", "A kernel launch began on an engine of the tile (value: the engine's context id)", "",
     ZET_METRIC_TYPE_EVENT_EXP_START, ZET_VALUE_TYPE_UINT32, "0"},
    {"KernelEnd", "A kernel launch ended on an engine of the tile (value: the engine's context id)", "",
     ZET_METRIC_TYPE_EVENT_EXP_END, ZET_VALUE_TYPE_UINT32, "0"},
    {"CopyBegin", "A copy or fill began on an engine of the tile (value: the engine's context id)", "",
     ZET_METRIC_TYPE_EVENT_EXP_START, ZET_VALUE_TYPE_UINT32, "0"},
    {"CopyEnd", "A copy or fill ended on an engine of the tile (value: the engine's context id)", "",
     ZET_METRIC_TYPE_EVENT_EXP_END, ZET_VALUE_TYPE_UINT32, "0"},
    {"CommandBegin", "Another command began on an engine of the tile (value: the engine's context id)", "",
     ZET_METRIC_TYPE_EVENT_EXP_START, ZET_VALUE_TYPE_UINT32, "0"},
    {"CommandEnd", "Another command ended on an engine of the tile (value: the engine's context id)", "",
     ZET_METRIC_TYPE_EVENT_EXP_END, ZET_VALUE_TYPE_UINT32, "0"},
    {"EngineCycles", "Busy cycles of the tile's engines so far, after a command ended (wraps at 2^32)", "cycles",
     ZET_METRIC_TYPE_EVENT_EXP_MONOTONIC_WRAPS_VALUE, ZET_VALUE_TYPE_UINT64, "0"},
    {"CommandFault", "A command faulted on an engine of the tile (the value has no meaning)", "",
     ZET_METRIC_TYPE_EVENT_EXP_TIMESTAMP, ZET_VALUE_TYPE_UINT32, "0"},
};

typedef struct zf_metric_tracer {
    zf_object header;
    zf_context *context;
    zf_metric_device *mdev;
    uint32_t num_groups;
    zf_metric_group *groups[ZF_TRACER_MAX_GROUPS];
    zf_event *event; /* may be NULL */
    uint32_t notify_bytes;
    bool enabled;
    bool dropped;
    uint8_t *ring;
    size_t capacity; /* bytes, a multiple of the record size */
    size_t head;
    size_t count;
    struct zf_metric_tracer *next;
} zf_metric_tracer;

typedef struct zf_metric_decoder {
    zf_object header;
    zf_metric_device *mdev;
    zf_metric metrics[ZF_TRACE_EVENTS];
} zf_metric_decoder;

static zf_metric_tracer *zf_tracers; /* guarded by the metric lock */

static zf_metric_tracer *zf_tracer_from(zet_metric_tracer_exp_handle_t handle) {
    return (zf_metric_tracer *)handle;
}

static zf_metric_decoder *zf_decoder_from(zet_metric_decoder_exp_handle_t handle) {
    return (zf_metric_decoder *)handle;
}

/* ---- The tracer group ----------------------------------------------------------------------------------------- */

/* A domain of its own: one past the largest of the device's other groups. */
static uint32_t zf_tracer_domain(const zf_metric_device *mdev) {
    uint32_t domain = 0;
    for (uint32_t i = 0; i < mdev->num_groups; i++)
        domain = mdev->groups[i].domain + 1 > domain ? mdev->groups[i].domain + 1 : domain;
    return domain;
}

bool zf_tracer_group_build(zf_metric_group *group, zf_metric_device *mdev) {
    group->mdev = mdev;
    zf_copy_text(group->name, sizeof group->name, "EngineEvents");
    zf_copy_text(group->description, sizeof group->description,
                 "Begin and end events of the commands the engines of the device execute");
    group->sampling = ZET_METRIC_GROUP_SAMPLING_TYPE_FLAG_EXP_TRACER_BASED;
    group->domain = zf_tracer_domain(mdev);
    group->format = ZF_METRIC_FORMAT_OA;
    group->record_size = ZF_TRACE_RECORD_SIZE;
    group->num_metrics = ZF_TRACE_EVENTS;
    group->metrics = calloc(ZF_TRACE_EVENTS, sizeof *group->metrics);
    group->list = calloc(ZF_TRACE_EVENTS, sizeof *group->list);
    group->carry = calloc(mdev->num_tiles + 1u, sizeof *group->carry);
    if (group->metrics == NULL || group->list == NULL || group->carry == NULL)
        return false;
    pthread_mutex_init(&group->carry_lock, NULL);
    pthread_rwlock_init(&group->list_lock, NULL);
    if (!zf_object_register(&group->header, ZF_OBJ_ZET_METRIC_GROUP, &mdev->device->header))
        return false;
    for (uint32_t i = 0; i < ZF_TRACE_EVENTS; i++) {
        group->list[i] = &group->metrics[i];
        if (!zf_metric_init_info(&group->metrics[i], group, &zf_trace_defs[i]))
            return false;
    }
    return true;
}

/* ---- Recording ------------------------------------------------------------------------------------------------ */

static bool zf_tracer_covers(const zf_metric_tracer *t, const zf_metric_tile *tile) {
    for (uint32_t i = 0; i < t->mdev->num_tiles; i++) {
        if (t->mdev->tiles[i] == tile)
            return true;
    }
    return false;
}

/* The class of a command's begin and end events. */
static zf_trace_event zf_trace_begin_event(const zf_work_record *r) {
    if (r->kind == ZF_CMD_LAUNCH || r->kind == ZF_CMD_LAUNCH_INDIRECT || r->kind == ZF_CMD_LAUNCH_MULTIPLE_INDIRECT)
        return ZF_TRACE_KERNEL_BEGIN;
    if (r->kind == ZF_CMD_COPY || r->kind == ZF_CMD_COPY_REGION || r->kind == ZF_CMD_FILL ||
        (r->kind == ZF_CMD_CUSTOM && r->name != NULL && strcmp(r->name, "image copy") == 0))
        return ZF_TRACE_COPY_BEGIN;
    return ZF_TRACE_COMMAND_BEGIN;
}

static void zf_tracer_put(zf_metric_tracer *t, const zf_metric_tile *tile, zf_trace_event event, uint64_t ns,
                          uint64_t value, uint32_t context) {
    if (t->count == t->capacity) {
        t->dropped = true;
        return;
    }
    const zf_clock *clock = zf_device_clock(tile->mdev->device);
    uint8_t *rec = t->ring + (t->head + t->count) % t->capacity;
    memset(rec, 0, ZF_TRACE_RECORD_SIZE);
    zf_le32_put(rec + ZF_TR_OFF_EVENT, event);
    zf_le32_put(rec + ZF_TR_OFF_TILE, tile->tile_id);
    zf_le64_put(rec + ZF_TR_OFF_TIMESTAMP, zf_clock_mask(zf_metric_ns_to_ticks(tile->mdev, ns), clock->valid_bits));
    zf_le64_put(rec + ZF_TR_OFF_VALUE, value);
    zf_le32_put(rec + ZF_TR_OFF_CONTEXT, context);
    t->count += ZF_TRACE_RECORD_SIZE;
}

/* The notification event is signalled once notifyEveryNBytes are collected; the application resets it. */
static void zf_tracer_notify(zf_metric_tracer *t, uint64_t ns) {
    if (t->event == NULL || t->count < t->notify_bytes || !zf_handle_is_live(t->event, ZF_OBJ_ZE_EVENT))
        return;
    zf_sync_lock();
    if (!t->event->signaled) {
        t->event->signal_ns = ns;
        t->event->start_ns = ns;
        t->event->end_ns = ns;
        t->event->timestamp_device = t->mdev->device;
        t->event->signaled = true; /* last: see zf_event */
        zf_sync_broadcast();
    }
    zf_sync_unlock();
}

void zf_tracers_observe(const zf_metric_tile *tile, const zf_work_record *r) {
    uint32_t context = zf_engine_context_id(r->ordinal, r->index);
    zf_trace_event begin = zf_trace_begin_event(r);
    for (zf_metric_tracer *t = zf_tracers; t != NULL; t = t->next) {
        if (!t->enabled || !zf_tracer_covers(t, tile))
            continue;
        uint64_t signals[ZF_SIG_COUNT];
        zf_tile_signals_now(tile, r->end_ns, signals);
        uint64_t cycles = signals[ZF_SIG_COMPUTE_ENGINE_CYCLES] + signals[ZF_SIG_COPY_ENGINE_CYCLES];
        zf_tracer_put(t, tile, begin, r->start_ns, context, context);
        zf_tracer_put(t, tile, begin + 1, r->end_ns, context, context);
        zf_tracer_put(t, tile, ZF_TRACE_ENGINE_CYCLES, r->end_ns, zf_clock_mask(cycles, ZF_ENGINE_CYCLE_BITS), context);
        if (r->faulted)
            zf_tracer_put(t, tile, ZF_TRACE_FAULT, r->end_ns, 0, context);
        zf_tracer_notify(t, r->end_ns);
    }
}

/* ---- Create and destroy --------------------------------------------------------------------------------------- */

static ze_result_t zf_check_tracer_groups(const zf_metric_device *mdev, uint32_t count,
                                          zet_metric_group_handle_t *groups) {
    if (count == 0 || count > ZF_TRACER_MAX_GROUPS)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "metricGroupCount is %u: a tracer traces 1..%u groups", count,
                       ZF_TRACER_MAX_GROUPS);
    for (uint32_t i = 0; i < count; i++) {
        if (!zf_handle_is_live(groups[i], ZF_OBJ_ZET_METRIC_GROUP))
            return zf_fail(ZE_RESULT_ERROR_INVALID_NULL_HANDLE, "phMetricGroups[%u] (%p) is not a live metric group", i,
                           (void *)groups[i]);
        const zf_metric_group *g = zf_metric_group_from(groups[i]);
        const char *mismatch = zf_metric_group_mismatch(g, mdev);
        if (mismatch != NULL)
            return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "phMetricGroups[%u] (%s) %s", i, g->name, mismatch);
        if (g->sampling != ZET_METRIC_GROUP_SAMPLING_TYPE_FLAG_EXP_TRACER_BASED)
            return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                           "phMetricGroups[%u] (%s) is not TRACER_BASED: tracers trace tracer groups", i, g->name);
    }
    return ZE_RESULT_SUCCESS;
}

static ze_result_t zf_check_tracer_arguments(zf_context *context, const zf_metric_device *mdev,
                                             const zet_metric_tracer_exp_desc_t *desc, ze_event_handle_t event) {
    if (!zf_context_has_device(context, mdev->device))
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "hDevice is not a device of hContext");
    if (desc->stype != 0 && (uint32_t)desc->stype != ZET_STRUCTURE_TYPE_METRIC_TRACER_EXP_DESC)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "desc->stype is 0x%x, not METRIC_TRACER_EXP_DESC",
                       (unsigned)desc->stype);
    ze_result_t result = zf_chain_check(desc->pNext, "desc");
    if (result != ZE_RESULT_SUCCESS || event == NULL)
        return result;
    const zf_event_pool *pool = zf_event_from(event)->pool;
    if (pool->context != context)
        return zf_fail(ZE_RESULT_ERROR_INVALID_SYNCHRONIZATION_OBJECT, "hNotificationEvent belongs to another context");
    if (!(pool->flags & ZE_EVENT_POOL_FLAG_HOST_VISIBLE))
        return zf_fail(ZE_RESULT_ERROR_INVALID_SYNCHRONIZATION_OBJECT,
                       "hNotificationEvent's pool was not created with ZE_EVENT_POOL_FLAG_HOST_VISIBLE");
    return ZE_RESULT_SUCCESS;
}

/* One tracer per tile (the events of a tile go to one buffer), and its groups activated; lock held. */
static ze_result_t zf_check_tracer_state(const zf_metric_device *mdev, uint32_t count,
                                         zet_metric_group_handle_t *groups) {
    for (const zf_metric_tracer *t = zf_tracers; t != NULL; t = t->next) {
        for (uint32_t i = 0; i < mdev->num_tiles; i++) {
            if (zf_tracer_covers(t, mdev->tiles[i]))
                return zf_fail(ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE, "a metric tracer already traces tile %u",
                               mdev->tiles[i]->tile_id);
        }
    }
    for (uint32_t i = 0; i < count; i++) {
        const zf_metric_group *g = zf_metric_group_from(groups[i]);
        if (!zf_metric_group_is_active(g))
            return zf_fail(ZE_RESULT_NOT_READY,
                           "phMetricGroups[%u] (%s) is not activated on the device (zetContextActivateMetricGroups)", i,
                           g->name);
    }
    return ZE_RESULT_SUCCESS;
}

/* notifyEveryNBytes becomes a whole number of records within 1..2^15 of them; the buffer holds twice as much. */
static uint32_t zf_round_notify_bytes(zet_metric_tracer_exp_desc_t *desc) {
    uint64_t bytes = desc->notifyEveryNBytes;
    bytes = (bytes + ZF_TRACE_RECORD_SIZE - 1) / ZF_TRACE_RECORD_SIZE * ZF_TRACE_RECORD_SIZE;
    bytes = bytes < ZF_TRACE_RECORD_SIZE   ? ZF_TRACE_RECORD_SIZE
            : bytes > ZF_TRACER_MAX_NOTIFY ? ZF_TRACER_MAX_NOTIFY
                                           : bytes;
    desc->notifyEveryNBytes = (uint32_t)bytes;
    return (uint32_t)bytes;
}

static zf_metric_tracer *zf_tracer_alloc(zf_context *context, zf_metric_device *mdev, uint32_t count,
                                         zet_metric_group_handle_t *groups, zet_metric_tracer_exp_desc_t *desc,
                                         ze_event_handle_t event) {
    zf_metric_tracer *t = calloc(1, sizeof *t);
    if (t == NULL)
        return NULL;
    *t = (zf_metric_tracer){.context = context, .mdev = mdev, .num_groups = count, .event = zf_event_from(event)};
    t->notify_bytes = zf_round_notify_bytes(desc);
    t->capacity = 2 * (size_t)t->notify_bytes;
    t->ring = malloc(t->capacity);
    for (uint32_t i = 0; i < count; i++)
        t->groups[i] = zf_metric_group_from(groups[i]);
    if (t->ring == NULL || !zf_object_register(&t->header, ZF_OBJ_ZET_METRIC_TRACER_EXP, &context->header)) {
        free(t->ring);
        free(t);
        return NULL;
    }
    return t;
}

ze_result_t zfi_zetMetricTracerCreateExp(zet_context_handle_t hContext, zet_device_handle_t hDevice,
                                         uint32_t metricGroupCount, zet_metric_group_handle_t *phMetricGroups,
                                         zet_metric_tracer_exp_desc_t *desc, ze_event_handle_t hNotificationEvent,
                                         zet_metric_tracer_exp_handle_t *phMetricTracer) {
    ze_result_t result = zf_metrics_init();
    if (result != ZE_RESULT_SUCCESS)
        return result;
    zf_context *context = zf_context_from(hContext);
    zf_metric_device *mdev = zf_metric_device_of(zf_device_from(hDevice));
    if ((result = zf_check_tracer_arguments(context, mdev, desc, hNotificationEvent)) != ZE_RESULT_SUCCESS ||
        (result = zf_check_tracer_groups(mdev, metricGroupCount, phMetricGroups)) != ZE_RESULT_SUCCESS)
        return result;
    zf_metric_lock();
    result = zf_check_tracer_state(mdev, metricGroupCount, phMetricGroups);
    zf_metric_tracer *t = NULL;
    if (result == ZE_RESULT_SUCCESS &&
        (t = zf_tracer_alloc(context, mdev, metricGroupCount, phMetricGroups, desc, hNotificationEvent)) == NULL)
        result = zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory for the tracer's buffer");
    if (result == ZE_RESULT_SUCCESS) {
        for (uint32_t i = 0; i < t->num_groups; i++)
            t->groups[i]->users++;
        t->next = zf_tracers;
        zf_tracers = t;
        *phMetricTracer = (zet_metric_tracer_exp_handle_t)t;
    }
    zf_metric_unlock();
    return result;
}

ze_result_t zfi_zetMetricTracerDestroyExp(zet_metric_tracer_exp_handle_t hMetricTracer) {
    zf_metric_tracer *t = zf_tracer_from(hMetricTracer);
    zf_metric_lock();
    for (zf_metric_tracer **p = &zf_tracers; *p != NULL; p = &(*p)->next) {
        if (*p == t) {
            *p = t->next;
            break;
        }
    }
    for (uint32_t i = 0; i < t->num_groups; i++)
        t->groups[i]->users--;
    zf_object_unregister(&t->header);
    zf_metric_unlock();
    free(t->ring);
    zf_object_retire(&t->header);
    return ZE_RESULT_SUCCESS;
}

/* Enabling and disabling take effect at once, so both modes are the same (the synchronous one asks for no more). */
ze_result_t zfi_zetMetricTracerEnableExp(zet_metric_tracer_exp_handle_t hMetricTracer, ze_bool_t synchronous) {
    (void)synchronous;
    zf_metric_lock();
    zf_tracer_from(hMetricTracer)->enabled = true;
    zf_metric_unlock();
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zetMetricTracerDisableExp(zet_metric_tracer_exp_handle_t hMetricTracer, ze_bool_t synchronous) {
    (void)synchronous;
    zf_metric_lock();
    zf_tracer_from(hMetricTracer)->enabled = false;
    zf_metric_unlock();
    return ZE_RESULT_SUCCESS;
}

/* ---- Reading -------------------------------------------------------------------------------------------------- */

static void zf_tracer_copy_out(zf_metric_tracer *t, size_t bytes, uint8_t *out) {
    for (size_t done = 0; done < bytes; done += ZF_TRACE_RECORD_SIZE)
        memcpy(out + done, t->ring + (t->head + done) % t->capacity, ZF_TRACE_RECORD_SIZE);
    t->head = (t->head + bytes) % t->capacity;
    t->count -= bytes;
}

/* SUCCESS while enabled or while data is left; NOT_READY once disabled and drained (zet_api.h); a loss since the
 * last read makes it ZE_RESULT_WARNING_DROPPED_DATA. */
ze_result_t zfi_zetMetricTracerReadDataExp(zet_metric_tracer_exp_handle_t hMetricTracer, size_t *pRawDataSize,
                                           uint8_t *pRawData) {
    zf_metric_tracer *t = zf_tracer_from(hMetricTracer);
    zf_metric_lock();
    bool drained = !t->enabled && t->count == 0;
    if (*pRawDataSize == 0 || pRawData == NULL) {
        *pRawDataSize = t->count;
        zf_metric_unlock();
        return drained ? ZE_RESULT_NOT_READY : ZE_RESULT_SUCCESS;
    }
    size_t bytes = *pRawDataSize / ZF_TRACE_RECORD_SIZE * ZF_TRACE_RECORD_SIZE;
    bytes = bytes < t->count ? bytes : t->count;
    zf_tracer_copy_out(t, bytes, pRawData);
    *pRawDataSize = bytes;
    bool dropped = t->dropped;
    t->dropped = false;
    zf_metric_unlock();
    if (drained)
        return ZE_RESULT_NOT_READY;
    return dropped ? ZE_RESULT_WARNING_DROPPED_DATA : ZE_RESULT_SUCCESS;
}

/* ---- Decoders ------------------------------------------------------------------------------------------------- */

ze_result_t zfi_zetMetricDecoderCreateExp(zet_metric_tracer_exp_handle_t hMetricTracer,
                                          zet_metric_decoder_exp_handle_t *phMetricDecoder) {
    zf_metric_tracer *t = zf_tracer_from(hMetricTracer);
    zf_metric_decoder *d = calloc(1, sizeof *d);
    if (d == NULL)
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory for a decoder");
    d->mdev = t->mdev;
    if (!zf_object_register(&d->header, ZF_OBJ_ZET_METRIC_DECODER_EXP, &t->context->header)) {
        free(d);
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory to register a decoder");
    }
    /* The decodable metrics describe the events of the tracer's groups; they are the decoder's own handles. */
    zf_metric_group *group = t->groups[0];
    uint32_t made = 0;
    for (; made < ZF_TRACE_EVENTS && zf_metric_init_info(&d->metrics[made], group, &zf_trace_defs[made]); made++)
        d->metrics[made].origin = ZF_METRIC_DECODABLE;
    if (made < ZF_TRACE_EVENTS) {
        for (uint32_t i = 0; i < made; i++)
            zf_object_unregister(&d->metrics[i].header);
        zf_object_retire(&d->header);
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory for the decodable metrics");
    }
    *phMetricDecoder = (zet_metric_decoder_exp_handle_t)d;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zetMetricDecoderDestroyExp(zet_metric_decoder_exp_handle_t phMetricDecoder) {
    zf_metric_decoder *d = zf_decoder_from(phMetricDecoder);
    for (uint32_t i = 0; i < ZF_TRACE_EVENTS; i++)
        zf_object_unregister(&d->metrics[i].header);
    zf_object_retire(&d->header);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zetMetricDecoderGetDecodableMetricsExp(zet_metric_decoder_exp_handle_t hMetricDecoder, uint32_t *pCount,
                                                       zet_metric_handle_t *phMetrics) {
    zf_metric_decoder *d = zf_decoder_from(hMetricDecoder);
    uint32_t n = zf_count_query(pCount, ZF_TRACE_EVENTS, phMetrics);
    for (uint32_t i = 0; i < n; i++)
        phMetrics[i] = (zet_metric_handle_t)&d->metrics[i];
    return ZE_RESULT_SUCCESS;
}

/* The event each of phMetrics decodes; every one must be a decodable metric of this decoder. */
static ze_result_t zf_decode_map(const zf_metric_decoder *d, uint32_t count, zet_metric_handle_t *metrics,
                                 int32_t index_of[ZF_TRACE_EVENTS]) {
    for (uint32_t e = 0; e < ZF_TRACE_EVENTS; e++)
        index_of[e] = -1;
    for (uint32_t i = 0; i < count; i++) {
        const zf_metric *m = zf_metric_from(metrics[i]);
        ptrdiff_t e = m - d->metrics;
        if (!zf_handle_is_live(m, ZF_OBJ_ZET_METRIC) || e < 0 || e >= (ptrdiff_t)ZF_TRACE_EVENTS)
            return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                           "phMetrics[%u] (%p) is not a decodable metric of phMetricDecoder "
                           "(zetMetricDecoderGetDecodableMetricsExp)",
                           i, (void *)metrics[i]);
        if (index_of[e] < 0)
            index_of[e] = (int32_t)i;
    }
    return ZE_RESULT_SUCCESS;
}

/* The set (tile index) of every record, validated before any is decoded. */
static ze_result_t zf_decode_check(const zf_metric_device *mdev, const uint8_t *raw, size_t size) {
    if (size % ZF_TRACE_RECORD_SIZE != 0)
        return zf_fail(ZE_RESULT_ERROR_INVALID_SIZE, "*pRawDataSize %zu is not a multiple of the %u-byte records", size,
                       ZF_TRACE_RECORD_SIZE);
    for (size_t off = 0; off < size; off += ZF_TRACE_RECORD_SIZE) {
        uint32_t event = zf_le32_get(raw + off + ZF_TR_OFF_EVENT), tile = zf_le32_get(raw + off + ZF_TR_OFF_TILE);
        bool known = false;
        for (uint32_t t = 0; t < mdev->num_tiles && !known; t++)
            known = mdev->tile_ids[t] == tile;
        if (event >= ZF_TRACE_EVENTS || !known)
            return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                           "record %zu of pRawData has event %u and tile %u: not an event of a tile of the device",
                           off / ZF_TRACE_RECORD_SIZE, event, tile);
    }
    return ZE_RESULT_SUCCESS;
}

static uint32_t zf_tile_set(const zf_metric_device *mdev, uint32_t tile_id) {
    uint32_t t = 0;
    while (t < mdev->num_tiles && mdev->tile_ids[t] != tile_id)
        t++;
    return t;
}

typedef struct zf_decode_job {
    const zf_metric_decoder *decoder;
    const uint8_t *raw;
    size_t size;
    uint32_t sets;
    const int32_t *index_of;
} zf_decode_job;

/* Whether the record decodes into an entry of the sets asked for. */
static bool zf_decodes(const zf_decode_job *job, const uint8_t *rec) {
    return job->index_of[zf_le32_get(rec + ZF_TR_OFF_EVENT)] >= 0 &&
           zf_tile_set(job->decoder->mdev, zf_le32_get(rec + ZF_TR_OFF_TILE)) < job->sets;
}

/* The bytes decoding `capacity` entries takes: the records up to and including the capacity-th decodable one. */
static size_t zf_decode_cut(const zf_decode_job *job, uint64_t capacity, uint64_t *entries) {
    size_t off = 0;
    *entries = 0;
    for (; off < job->size && *entries < capacity; off += ZF_TRACE_RECORD_SIZE)
        *entries += zf_decodes(job, job->raw + off);
    return off;
}

static void zf_decode_entry(const zf_decode_job *job, const uint8_t *rec, zet_metric_entry_exp_t *out) {
    const zf_metric_device *mdev = job->decoder->mdev;
    memset(out, 0, sizeof *out);
    out->value.ui64 = zf_le64_get(rec + ZF_TR_OFF_VALUE);
    out->timeStamp = zf_le64_get(rec + ZF_TR_OFF_TIMESTAMP);
    out->metricIndex = (uint32_t)job->index_of[zf_le32_get(rec + ZF_TR_OFF_EVENT)];
    out->onSubdevice = mdev->device->num_subdevices > 0;
    out->subdeviceId = out->onSubdevice ? zf_le32_get(rec + ZF_TR_OFF_TILE) : 0;
}

/* Entries grouped by set (tile), each set in the order of the records. */
static void zf_decode_sets(const zf_decode_job *job, size_t cut, uint32_t *per_set, zet_metric_entry_exp_t *out) {
    uint32_t n = 0;
    for (uint32_t s = 0; s < job->sets; s++) {
        uint32_t in_set = 0;
        for (size_t off = 0; off < cut; off += ZF_TRACE_RECORD_SIZE) {
            const uint8_t *rec = job->raw + off;
            if (!zf_decodes(job, rec) || zf_tile_set(job->decoder->mdev, zf_le32_get(rec + ZF_TR_OFF_TILE)) != s)
                continue;
            zf_decode_entry(job, rec, &out[n++]);
            in_set++;
        }
        per_set[s] = in_set;
    }
}

ze_result_t zfi_zetMetricTracerDecodeExp(zet_metric_decoder_exp_handle_t phMetricDecoder, size_t *pRawDataSize,
                                         uint8_t *pRawData, uint32_t metricsCount, zet_metric_handle_t *phMetrics,
                                         uint32_t *pSetCount, uint32_t *pMetricEntriesCountPerSet,
                                         uint32_t *pMetricEntriesCount, zet_metric_entry_exp_t *pMetricEntries) {
    const zf_metric_decoder *d = zf_decoder_from(phMetricDecoder);
    if (pRawData == NULL && *pRawDataSize > 0)
        return zf_fail(ZE_RESULT_ERROR_INVALID_NULL_POINTER, "pRawData is NULL with *pRawDataSize %zu", *pRawDataSize);
    int32_t index_of[ZF_TRACE_EVENTS];
    ze_result_t result = zf_decode_map(d, metricsCount, phMetrics, index_of);
    if (result == ZE_RESULT_SUCCESS)
        result = zf_decode_check(d->mdev, pRawData, *pRawDataSize);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    zf_decode_job job = {d, pRawData, *pRawDataSize, d->mdev->num_tiles, index_of};
    uint64_t entries = 0;
    if (*pSetCount == 0 || *pMetricEntriesCount == 0 || pMetricEntriesCountPerSet == NULL || pMetricEntries == NULL) {
        zf_decode_cut(&job, UINT64_MAX, &entries);
        *pSetCount = job.sets;
        *pMetricEntriesCount = entries > UINT32_MAX ? UINT32_MAX : (uint32_t)entries;
        return ZE_RESULT_SUCCESS;
    }
    job.sets = *pSetCount < job.sets ? *pSetCount : job.sets;
    size_t cut = zf_decode_cut(&job, *pMetricEntriesCount, &entries);
    zf_decode_sets(&job, cut, pMetricEntriesCountPerSet, pMetricEntries);
    if (entries == *pMetricEntriesCount && cut < job.size)
        *pRawDataSize = cut; /* the rest is for the next call */
    *pSetCount = job.sets;
    *pMetricEntriesCount = (uint32_t)entries;
    return ZE_RESULT_SUCCESS;
}

#endif
