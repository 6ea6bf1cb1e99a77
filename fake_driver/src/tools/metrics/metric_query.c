/* Metric queries: pools of event-based measurements taken by begin and end commands on an engine.
 *
 * The begin command snapshots the counters of the tiles of the pool's device (every executed command counted in
 * full, the GPU clock at the command's start); the end command snapshots them again and writes one query record per
 * tile holding the differences (docs/metrics-raw-formats.md). The data is ready once the end command has executed,
 * before its signal event is signalled; zetMetricQueryGetData answers ZE_RESULT_NOT_READY until then. */
#include "core/zf_core.h"
#include "tools/metrics/zf_metric.h"

#include <stdlib.h>
#include <string.h>

typedef struct zf_metric_query zf_metric_query;

typedef struct zf_metric_query_pool {
    zf_object header;
    zf_context *context;
    zf_metric_device *mdev;
    zf_metric_group *group;
    zet_metric_query_pool_type_t type;
    uint32_t count;
    zf_metric_query *queries; /* live queries, guarded by the metric lock */
} zf_metric_query_pool;

typedef enum zf_query_state {
    ZF_QUERY_IDLE,
    ZF_QUERY_BEGUN, /* the begin executed */
    ZF_QUERY_READY, /* the end executed: data holds the records */
} zf_query_state;

struct zf_metric_query {
    zf_object header;
    zf_metric_query_pool *pool;
    uint32_t index;
    uint64_t serial;
    zf_metric_query *next;
    zf_query_state state;
    uint64_t begin_ns;
    uint32_t begin_context;
    uint64_t (*begin_signals)[ZF_SIG_COUNT]; /* per tile */
    uint8_t *data;                           /* per tile, ZF_OA_QUERY_RECORD_SIZE each */
};

static uint64_t zf_query_serial;

static zf_metric_query_pool *zf_pool_from(zet_metric_query_pool_handle_t handle) {
    return (zf_metric_query_pool *)handle;
}

static zf_metric_query *zf_query_from(zet_metric_query_handle_t handle) {
    return (zf_metric_query *)handle;
}

/* ---- Pools ---------------------------------------------------------------------------------------------------- */

static ze_result_t zf_check_pool_arguments(zf_context *context, zf_metric_device *mdev, const zf_metric_group *group,
                                           const zet_metric_query_pool_desc_t *desc) {
    ze_result_t target = zf_metric_check_target(context, mdev, group);
    if (target != ZE_RESULT_SUCCESS)
        return target;
    if (desc->stype != 0 && desc->stype != ZET_STRUCTURE_TYPE_METRIC_QUERY_POOL_DESC)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "desc->stype is 0x%x, not METRIC_QUERY_POOL_DESC",
                       (unsigned)desc->stype);
    if (desc->count == 0)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "desc->count is 0: a pool holds at least one query");
    return ZE_RESULT_SUCCESS;
}

/* Pools exclude an open streamer of their domain on any of their tiles; lock held. */
static ze_result_t zf_pool_attach(zf_metric_device *mdev, zf_metric_group *group) {
    for (uint32_t t = 0; t < mdev->num_tiles; t++) {
        const zf_domain_use *use = zf_tile_domain_use(mdev->tiles[t], group->domain, false);
        if (use != NULL && use->streamer != NULL)
            return zf_fail(ZE_RESULT_ERROR_NOT_AVAILABLE,
                           "a metric streamer of domain %u is open on the device: close it first", group->domain);
    }
    if (group->sampling != ZET_METRIC_GROUP_SAMPLING_TYPE_FLAG_EVENT_BASED)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "%s is not an EVENT_BASED group: query pools need one",
                       group->name);
    for (uint32_t t = 0; t < mdev->num_tiles; t++) {
        if (zf_tile_domain_use(mdev->tiles[t], group->domain, true) == NULL)
            return zf_fail(ZE_RESULT_ERROR_NOT_AVAILABLE, "more than %d metric domains in use on a tile",
                           ZF_MAX_DOMAIN_USES);
    }
    for (uint32_t t = 0; t < mdev->num_tiles; t++)
        zf_tile_domain_use(mdev->tiles[t], group->domain, false)->pools++;
    group->users++; /* a user-created group keeps its metrics while a pool uses it */
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zetMetricQueryPoolCreate(zet_context_handle_t hContext, zet_device_handle_t hDevice,
                                         zet_metric_group_handle_t hMetricGroup,
                                         const zet_metric_query_pool_desc_t *desc,
                                         zet_metric_query_pool_handle_t *phMetricQueryPool) {
    ze_result_t result = zf_metrics_init();
    if (result != ZE_RESULT_SUCCESS)
        return result;
    zf_context *context = zf_context_from(hContext);
    zf_metric_device *mdev = zf_metric_device_of(zf_device_from(hDevice));
    zf_metric_group *group = zf_metric_group_from(hMetricGroup);
    result = zf_check_pool_arguments(context, mdev, group, desc);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    zf_metric_query_pool *pool = calloc(1, sizeof *pool);
    if (pool == NULL)
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory for a query pool");
    *pool = (zf_metric_query_pool){
        .context = context, .mdev = mdev, .group = group, .type = desc->type, .count = desc->count};
    if (!zf_object_register(&pool->header, ZF_OBJ_ZET_METRIC_QUERY_POOL, &context->header)) {
        free(pool);
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory to register a query pool");
    }
    zf_metric_lock();
    result = zf_pool_attach(mdev, group);
    zf_metric_unlock();
    if (result != ZE_RESULT_SUCCESS) {
        zf_object_retire(&pool->header);
        return result;
    }
    *phMetricQueryPool = (zet_metric_query_pool_handle_t)pool;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zetMetricQueryPoolDestroy(zet_metric_query_pool_handle_t hMetricQueryPool) {
    zf_metric_query_pool *pool = zf_pool_from(hMetricQueryPool);
    zf_metric_lock();
    if (pool->queries != NULL) {
        zf_metric_unlock();
        return zf_fail(ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE, "queries created from the pool must be destroyed first");
    }
    for (uint32_t t = 0; t < pool->mdev->num_tiles; t++)
        zf_tile_domain_use(pool->mdev->tiles[t], pool->group->domain, false)->pools--;
    pool->group->users--;
    zf_metric_unlock();
    zf_object_retire(&pool->header);
    return ZE_RESULT_SUCCESS;
}

/* ---- Queries -------------------------------------------------------------------------------------------------- */

static void zf_query_free(zf_metric_query *query) {
    free(query->begin_signals);
    free(query->data);
    query->begin_signals = NULL;
    query->data = NULL;
}

ze_result_t zfi_zetMetricQueryCreate(zet_metric_query_pool_handle_t hMetricQueryPool, uint32_t index,
                                     zet_metric_query_handle_t *phMetricQuery) {
    zf_metric_query_pool *pool = zf_pool_from(hMetricQueryPool);
    if (index >= pool->count)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "index %u is not less than the pool's count %u", index,
                       pool->count);
    zf_metric_query *query = calloc(1, sizeof *query);
    uint32_t tiles = pool->mdev->num_tiles;
    if (query != NULL) {
        query->begin_signals = calloc(tiles, sizeof *query->begin_signals);
        query->data = calloc(tiles, ZF_OA_QUERY_RECORD_SIZE);
    }
    if (query == NULL || query->begin_signals == NULL || query->data == NULL) {
        if (query != NULL)
            zf_query_free(query);
        free(query);
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory for a query");
    }
    query->pool = pool;
    query->index = index;
    zf_metric_lock();
    for (const zf_metric_query *q = pool->queries; q != NULL; q = q->next) {
        if (q->index == index) {
            zf_metric_unlock();
            zf_query_free(query);
            free(query);
            return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "index %u already holds a live query", index);
        }
    }
    query->serial = ++zf_query_serial;
    bool registered = zf_object_register(&query->header, ZF_OBJ_ZET_METRIC_QUERY, &pool->header);
    if (registered) {
        query->next = pool->queries;
        pool->queries = query;
    }
    zf_metric_unlock();
    if (!registered) {
        zf_query_free(query);
        free(query);
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory to register a query");
    }
    *phMetricQuery = (zet_metric_query_handle_t)query;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zetMetricQueryDestroy(zet_metric_query_handle_t hMetricQuery) {
    zf_metric_query *query = zf_query_from(hMetricQuery);
    zf_metric_lock();
    if (query->state == ZF_QUERY_BEGUN) {
        zf_metric_unlock();
        return zf_fail(ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE,
                       "the query has begun and its end has not executed: the device is using it");
    }
    for (zf_metric_query **p = &query->pool->queries; *p != NULL; p = &(*p)->next) {
        if (*p == query) {
            *p = query->next;
            break;
        }
    }
    zf_object_unregister(&query->header);
    zf_metric_unlock();
    zf_query_free(query);
    zf_object_retire(&query->header);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zetMetricQueryReset(zet_metric_query_handle_t hMetricQuery) {
    zf_metric_query *query = zf_query_from(hMetricQuery);
    zf_metric_lock();
    query->state = ZF_QUERY_IDLE;
    zf_metric_unlock();
    return ZE_RESULT_SUCCESS;
}

/* ---- Begin and end commands ----------------------------------------------------------------------------------- */

typedef struct zf_query_payload {
    zf_metric_query *query;
    uint64_t serial;
} zf_query_payload;

/* The query the command was appended for, if it still exists; lock held. */
static zf_metric_query *zf_payload_query(const zf_query_payload *p) {
    if (zf_handle_is_live(p->query, ZF_OBJ_ZET_METRIC_QUERY) && p->query->serial == p->serial)
        return p->query;
    zf_log(ZF_LOG_INFO, "metrics: a query command executed after its query was destroyed; ignored");
    return NULL;
}

static ze_result_t zf_begin_perform(void *payload, zf_queue *queue, uint64_t start_ns, uint64_t *cost_ns) {
    (void)cost_ns;
    zf_metric_lock();
    zf_metric_query *query = zf_payload_query(payload);
    if (query != NULL) {
        const zf_metric_device *mdev = query->pool->mdev;
        zf_metric_follow_clock(mdev->root, start_ns);
        for (uint32_t t = 0; t < mdev->num_tiles; t++)
            zf_tile_signals_now(mdev->tiles[t], start_ns, query->begin_signals[t]);
        query->begin_ns = start_ns;
        query->begin_context = zf_engine_context_id(queue->ordinal, queue->index);
        query->state = ZF_QUERY_BEGUN;
    }
    zf_metric_unlock();
    return ZE_RESULT_SUCCESS;
}

typedef struct zf_query_end {
    uint64_t ns;
    uint32_t context;
    uint32_t flags;
} zf_query_end;

/* One tile's record: the differences between the begin and end snapshots (zero counters for EXECUTION pools). */
static void zf_write_query_record(uint8_t *rec, const zf_metric_query *query, const zf_metric_tile *tile,
                                  const uint64_t *begin, const zf_query_end *end) {
    const zf_metric_query_pool *pool = query->pool;
    uint64_t now[ZF_SIG_COUNT];
    zf_tile_signals_now(tile, end->ns, now);
    memset(rec, 0, ZF_OA_QUERY_RECORD_SIZE);
    zf_le32_put(rec + ZF_QUERY_OFF_TAG, ZF_QUERY_TAG);
    zf_le32_put(rec + ZF_QUERY_OFF_FLAGS, end->flags);
    zf_le64_put(rec + ZF_QUERY_OFF_BEGIN, query->begin_ns);
    zf_le64_put(rec + ZF_QUERY_OFF_DURATION, end->ns - query->begin_ns);
    zf_le64_put(rec + ZF_QUERY_OFF_TICKS,
                zf_metric_ns_to_ticks(pool->mdev, end->ns) - zf_metric_ns_to_ticks(pool->mdev, query->begin_ns));
    zf_le64_put(rec + ZF_QUERY_OFF_GPU_TICKS, now[ZF_SIG_GPU_CLOCKS] - begin[ZF_SIG_GPU_CLOCKS]);
    zf_le32_put(rec + ZF_QUERY_OFF_CONTEXT, end->context);
    if (pool->type == ZET_METRIC_QUERY_POOL_TYPE_EXECUTION)
        return;
    for (int signal = 0; signal < ZF_SIG_COUNT; signal++)
        zf_le64_put(rec + ZF_QUERY_OFF_A + 8 * zf_signal_a_slot((zf_metric_signal)signal), now[signal] - begin[signal]);
    for (uint32_t i = 0; i < ZF_OA_FLEX_COUNTERS; i++)
        zf_le64_put(rec + ZF_QUERY_OFF_B + 8 * i,
                    zf_flex_counter(pool->group, i, now) - zf_flex_counter(pool->group, i, begin));
}

static ze_result_t zf_end_perform(void *payload, zf_queue *queue, uint64_t start_ns, uint64_t *cost_ns) {
    (void)cost_ns;
    zf_metric_lock();
    zf_metric_query *query = zf_payload_query(payload);
    if (query != NULL) {
        zf_query_end end = {.ns = start_ns, .context = zf_engine_context_id(queue->ordinal, queue->index)};
        zf_metric_follow_clock(query->pool->mdev->root, start_ns);
        if (query->state != ZF_QUERY_BEGUN) {
            /* An end without a begin measures nothing: an empty interval flagged as an error. */
            end.flags = ZF_QUERY_FLAG_ERROR;
            query->begin_ns = start_ns;
            for (uint32_t t = 0; t < query->pool->mdev->num_tiles; t++)
                zf_tile_signals_now(query->pool->mdev->tiles[t], start_ns, query->begin_signals[t]);
        } else if (query->begin_context != end.context) {
            end.flags = ZF_QUERY_FLAG_SPLIT;
        }
        const zf_metric_device *mdev = query->pool->mdev;
        for (uint32_t t = 0; t < mdev->num_tiles; t++)
            zf_write_query_record(query->data + (size_t)t * ZF_OA_QUERY_RECORD_SIZE, query, mdev->tiles[t],
                                  query->begin_signals[t], &end);
        query->state = ZF_QUERY_READY;
    }
    zf_metric_unlock();
    return ZE_RESULT_SUCCESS;
}

static const zf_command_ops zf_begin_ops = {.name = "metric query begin",
                                            .perform = zf_begin_perform,
                                            .release = free,
                                            .payload_size = sizeof(zf_query_payload)};
static const zf_command_ops zf_end_ops = {
    .name = "metric query end", .perform = zf_end_perform, .release = free, .payload_size = sizeof(zf_query_payload)};

static ze_result_t zf_check_query_list(const zf_cmdlist *list, const zf_metric_query *query) {
    const zf_metric_query_pool *pool = query->pool;
    if (list->context != pool->context) {
        if (zf_strict())
            return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "the command list and the query belong to other contexts");
        zf_tolerate("the metric query pool and the command list must be of the same context",
                    "recorded the query on the command list");
    }
    if (list->device != pool->mdev->device)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "the command list is not on the query pool's device");
    if (!(list->group_flags & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_METRICS))
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                       "the command list's engine group has no METRICS flag: queries need one that has");
    zf_metric_lock();
    bool active = zf_metric_group_is_active(pool->group);
    zf_metric_unlock();
    if (!active)
        return zf_fail(ZE_RESULT_ERROR_NOT_AVAILABLE,
                       "%s is not activated on the device (zetContextActivateMetricGroups)", pool->group->name);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t zf_append_query_command(zet_command_list_handle_t hCommandList, zf_metric_query *query,
                                           const zf_command_ops *ops, ze_event_handle_t signal, uint32_t num_waits,
                                           ze_event_handle_t *waits) {
    ze_result_t result = zf_check_query_list(zf_cmdlist_from(hCommandList), query);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    zf_query_payload *payload = malloc(sizeof *payload);
    if (payload == NULL)
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory for a query command");
    *payload = (zf_query_payload){.query = query, .serial = query->serial};
    return zf_cmdlist_append_custom(hCommandList, ops, payload, signal, num_waits, waits);
}

ze_result_t zfi_zetCommandListAppendMetricQueryBegin(zet_command_list_handle_t hCommandList,
                                                     zet_metric_query_handle_t hMetricQuery) {
    return zf_append_query_command(hCommandList, zf_query_from(hMetricQuery), &zf_begin_ops, NULL, 0, NULL);
}

ze_result_t zfi_zetCommandListAppendMetricQueryEnd(zet_command_list_handle_t hCommandList,
                                                   zet_metric_query_handle_t hMetricQuery,
                                                   ze_event_handle_t hSignalEvent, uint32_t numWaitEvents,
                                                   ze_event_handle_t *phWaitEvents) {
    return zf_append_query_command(hCommandList, zf_query_from(hMetricQuery), &zf_end_ops, hSignalEvent, numWaitEvents,
                                   phWaitEvents);
}

/* Caches are coherent in the model: the barrier is an ordinary 100 ns command, kept in order with the others. */
static ze_result_t zf_barrier_perform(void *payload, zf_queue *queue, uint64_t start_ns, uint64_t *cost_ns) {
    (void)payload;
    (void)queue;
    (void)start_ns;
    (void)cost_ns;
    return ZE_RESULT_SUCCESS;
}

static const zf_command_ops zf_barrier_ops = {.name = "metric memory barrier", .perform = zf_barrier_perform};

ze_result_t zfi_zetCommandListAppendMetricMemoryBarrier(zet_command_list_handle_t hCommandList) {
    return zf_cmdlist_append_custom(hCommandList, &zf_barrier_ops, NULL, NULL, 0, NULL);
}

/* ---- Data ----------------------------------------------------------------------------------------------------- */

static size_t zf_query_bytes(uint32_t tiles) {
    return zf_frame_header_size(tiles) + (size_t)tiles * ZF_OA_QUERY_RECORD_SIZE;
}

static void zf_query_copy_out(const zf_metric_query *query, uint8_t *out) {
    const zf_metric_device *mdev = query->pool->mdev;
    size_t header = zf_frame_header_size(mdev->num_tiles);
    if (mdev->num_tiles > 1)
        zf_frame_write_header(out, mdev, ZF_OA_QUERY_RECORD_SIZE);
    memcpy(out + header, query->data, (size_t)mdev->num_tiles * ZF_OA_QUERY_RECORD_SIZE);
}

ze_result_t zfi_zetMetricQueryGetData(zet_metric_query_handle_t hMetricQuery, size_t *pRawDataSize, uint8_t *pRawData) {
    zf_metric_query *query = zf_query_from(hMetricQuery);
    size_t full = zf_query_bytes(query->pool->mdev->num_tiles);
    if (*pRawDataSize == 0 || pRawData == NULL) {
        *pRawDataSize = full;
        return ZE_RESULT_SUCCESS;
    }
    zf_metric_lock();
    ze_result_t result = ZE_RESULT_SUCCESS;
    if (query->state != ZF_QUERY_READY)
        result = zf_fail(ZE_RESULT_NOT_READY, "the query's end command has not executed yet");
    else if (*pRawDataSize < full)
        *pRawDataSize = 0; /* the one report does not fit: none is retrieved */
    else {
        zf_query_copy_out(query, pRawData);
        *pRawDataSize = full;
    }
    zf_metric_unlock();
    return result;
}
