/* Calculation of metric values from raw data (docs/metrics-raw-formats.md).
 *
 * Raw data is never trusted: the frame of multi-tile data is validated before any offset in it is used, every read
 * stays inside the caller's rawDataSize, and any plain data of a valid size calculates (formulas are defined for all
 * field values). Data of 16 bytes or more that starts with the frame magic is a frame, whatever else it holds. Streamer
 * snapshots are calculated pairwise; the last snapshot of a call is carried to the next call on the same group when the
 * next data continues the stream (its first report's sequence number follows). */
#include "core/zf_core.h"
#include "tools/metrics/zf_metric.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned __int128 zf_u128;

/* ---- Frames --------------------------------------------------------------------------------------------------- */

size_t zf_frame_header_size(uint32_t sets) {
    return sets > 1 ? ZF_FRAME_HEADER_SIZE + (size_t)sets * ZF_FRAME_ENTRY_SIZE : 0;
}

void zf_frame_write_header(uint8_t *out, const zf_metric_device *mdev, size_t section_size) {
    uint32_t sets = mdev->num_tiles;
    size_t header = zf_frame_header_size(sets);
    memset(out, 0, header);
    zf_le32_put(out, ZF_FRAME_MAGIC);
    out[4] = (uint8_t)ZF_FRAME_VERSION;
    out[6] = (uint8_t)header;
    out[7] = (uint8_t)(header >> 8);
    zf_le32_put(out + 8, sets);
    for (uint32_t t = 0; t < sets; t++) {
        uint8_t *entry = out + ZF_FRAME_HEADER_SIZE + (size_t)t * ZF_FRAME_ENTRY_SIZE;
        zf_le32_put(entry, mdev->tiles[t]->tile_id);
        zf_le32_put(entry + 8, (uint32_t)(header + (size_t)t * section_size));
        zf_le32_put(entry + 12, (uint32_t)section_size);
    }
}

/* The one rule that tells frames from plain data (docs/metrics-raw-formats.md, "Frame or plain data"): at least a
 * frame header's 16 bytes, starting with the magic. Everything else is plain data, whatever its first bytes. */
static bool zf_is_framed(const uint8_t *data, size_t size) {
    return size >= ZF_FRAME_HEADER_SIZE && zf_le32_get(data) == ZF_FRAME_MAGIC;
}

static bool zf_tile_index(const zf_calc_view *v, uint32_t tile_id, uint32_t *index) {
    for (uint32_t t = 0; t < v->num_tiles; t++) {
        if (v->tile_ids[t] == tile_id) {
            *index = t;
            return true;
        }
    }
    return false;
}

static ze_result_t zf_frame_entry(const zf_calc_view *g, const uint8_t *data, size_t size, uint32_t i, size_t header,
                                  zf_frame *frame) {
    const uint8_t *entry = data + ZF_FRAME_HEADER_SIZE + (size_t)i * ZF_FRAME_ENTRY_SIZE;
    uint32_t tile_id = zf_le32_get(entry), offset = zf_le32_get(entry + 8), length = zf_le32_get(entry + 12);
    uint32_t tile = 0;
    if (!zf_tile_index(g, tile_id, &tile))
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "frame set %u names tile %u, which %s does not have", i,
                       tile_id, g->name);
    for (uint32_t j = 0; j < i; j++) {
        if (frame->sets[j].tile == tile)
            return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "frame sets %u and %u both hold tile %u", j, i, tile_id);
    }
    if (offset < header || offset > size || length > size - offset)
        return zf_fail(ZE_RESULT_ERROR_INVALID_SIZE,
                       "frame set %u (offset %u, size %u) does not lie between the header (%zu bytes) and the end of "
                       "the data (%zu bytes)",
                       i, offset, length, header, size);
    if (length % g->record_size != 0)
        return zf_fail(ZE_RESULT_ERROR_INVALID_SIZE, "frame set %u holds %u bytes, not a multiple of %u-byte records",
                       i, length, g->record_size);
    frame->sets[i] = (zf_data_set){.data = data + offset, .size = length, .tile = tile, .carry = tile};
    return ZE_RESULT_SUCCESS;
}

/* Validates a frame completely before any set is read; `size` is at least ZF_FRAME_HEADER_SIZE (zf_is_framed). */
static ze_result_t zf_frame_parse(const zf_calc_view *g, const uint8_t *data, size_t size, zf_frame *frame) {
    uint32_t version = (uint32_t)data[4] | (uint32_t)data[5] << 8;
    size_t header = (size_t)data[6] | (size_t)data[7] << 8;
    uint32_t count = zf_le32_get(data + 8);
    if (version != ZF_FRAME_VERSION)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "frame version %u is not %u", version, ZF_FRAME_VERSION);
    if (count == 0 || count > ZF_FRAME_MAX_SETS)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "a frame holds 1..%u sets, not %u", ZF_FRAME_MAX_SETS, count);
    if (header != ZF_FRAME_HEADER_SIZE + (size_t)count * ZF_FRAME_ENTRY_SIZE)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "frame header size %zu is not 16 + 16 x %u", header, count);
    if (size < header)
        return zf_fail(ZE_RESULT_ERROR_INVALID_SIZE, "%zu bytes cannot hold the frame header (%zu bytes)", size,
                       header);
    frame->count = count;
    for (uint32_t i = 0; i < count; i++) {
        ze_result_t result = zf_frame_entry(g, data, size, i, header, frame);
        if (result != ZE_RESULT_SUCCESS)
            return result;
    }
    return ZE_RESULT_SUCCESS;
}

/* Plain (unframed) data: one set, carried separately from the tiles of framed data. */
static ze_result_t zf_plain_set(const zf_calc_view *g, const uint8_t *data, size_t size, zf_frame *frame) {
    if (size % g->record_size != 0)
        return zf_fail(ZE_RESULT_ERROR_INVALID_SIZE, "rawDataSize %zu is not a multiple of %s's %u-byte records", size,
                       g->name, g->record_size);
    frame->count = 1;
    frame->sets[0] = (zf_data_set){.data = data, .size = size, .tile = 0, .carry = g->num_tiles};
    return ZE_RESULT_SUCCESS;
}

/* ---- Fields --------------------------------------------------------------------------------------------------- */

/* A counter difference with at most one wrap at its width. */
static uint64_t zf_delta(uint64_t later, uint64_t earlier, uint32_t bits) {
    return zf_clock_mask(zf_clock_mask(later, bits) - zf_clock_mask(earlier, bits), bits);
}

static uint64_t zf_ticks_to_ns(uint64_t ticks, uint64_t hz) {
    zf_u128 ns = (zf_u128)ticks * 1000000000u / (hz > 0 ? hz : 1);
    return ns > UINT64_MAX ? UINT64_MAX : (uint64_t)ns;
}

static void zf_fields_constants(uint64_t *f, const zf_tile_shape *shape) {
    f[ZF_MF_XVE_COUNT] = shape->xve_count;
    f[ZF_MF_THREADS_PER_XVE] = shape->threads_per_xve;
    f[ZF_MF_SIMD_WIDTH] = shape->simd_width;
    f[ZF_MF_CORE_MHZ] = shape->core_mhz;
    f[ZF_MF_TIMER_HZ] = shape->timer_hz;
    f[ZF_MF_COMPUTE_ENGINES] = shape->compute_engines;
    f[ZF_MF_COPY_ENGINES] = shape->copy_engines;
}

static uint64_t zf_oa_a_counter(const uint8_t *rec, uint32_t slot) {
    return (uint64_t)zf_le32_get(rec + ZF_OA_OFF_A_LOW + 4 * slot) | (uint64_t)rec[ZF_OA_OFF_A_HIGH + slot] << 32;
}

static void zf_fields_oa_pair(uint64_t *f, const zf_calc_view *g, const zf_tile_shape *shape, const uint8_t *prev,
                              const uint8_t *cur) {
    uint32_t ts_bits = g->timestamp_bits;
    uint64_t ts_prev = zf_clock_mask(zf_le64_get(prev + ZF_OA_OFF_TIMESTAMP), ts_bits);
    f[ZF_MF_TICKS] = zf_delta(zf_le64_get(cur + ZF_OA_OFF_TIMESTAMP), ts_prev, ts_bits);
    f[ZF_MF_GPU_TICKS] =
        zf_delta(zf_le32_get(cur + ZF_OA_OFF_GPU_TICKS), zf_le32_get(prev + ZF_OA_OFF_GPU_TICKS), ZF_OA_GPU_TICKS_BITS);
    f[ZF_MF_GPU_TIME] = zf_ticks_to_ns(f[ZF_MF_TICKS], shape->timer_hz);
    for (uint32_t i = 0; i < ZF_OA_A_COUNTERS; i++)
        f[ZF_MF_A0 + i] = zf_delta(zf_oa_a_counter(cur, i), zf_oa_a_counter(prev, i), ZF_OA_A_WIDTH);
    for (uint32_t i = 0; i < ZF_OA_FLEX_COUNTERS; i++)
        f[ZF_MF_B0 + i] =
            zf_delta(zf_le32_get(cur + ZF_OA_OFF_B + 4 * i), zf_le32_get(prev + ZF_OA_OFF_B + 4 * i), ZF_OA_FLEX_WIDTH);
    uint32_t header = zf_le32_get(cur + ZF_OA_OFF_HEADER);
    f[ZF_MF_REPORT_REASON] = (header >> 16) & 0xffu;
    f[ZF_MF_CONTEXT_VALID] = (header & ZF_OA_CONTEXT_VALID) ? 1 : 0;
    f[ZF_MF_CONTEXT_ID] = zf_le32_get(cur + ZF_OA_OFF_CONTEXT);
    f[ZF_MF_MARKER] = zf_le32_get(cur + ZF_OA_OFF_MARKER);
    f[ZF_MF_BEGIN_TIME] = zf_ticks_to_ns(ts_prev, shape->timer_hz);
    f[ZF_MF_REPORT_ERROR] = f[ZF_MF_REPORT_LOST] = f[ZF_MF_QUERY_SPLIT] = f[ZF_MF_FREQ_CHANGED] = 0;
}

static void zf_fields_oa_query(uint64_t *f, const uint8_t *rec) {
    f[ZF_MF_TICKS] = zf_le64_get(rec + ZF_QUERY_OFF_TICKS);
    f[ZF_MF_GPU_TICKS] = zf_le64_get(rec + ZF_QUERY_OFF_GPU_TICKS);
    f[ZF_MF_GPU_TIME] = zf_le64_get(rec + ZF_QUERY_OFF_DURATION);
    for (uint32_t i = 0; i < ZF_OA_A_COUNTERS; i++)
        f[ZF_MF_A0 + i] = zf_le64_get(rec + ZF_QUERY_OFF_A + 8 * i);
    for (uint32_t i = 0; i < ZF_OA_FLEX_COUNTERS; i++)
        f[ZF_MF_B0 + i] = zf_le64_get(rec + ZF_QUERY_OFF_B + 8 * i);
    uint32_t flags = zf_le32_get(rec + ZF_QUERY_OFF_FLAGS);
    f[ZF_MF_REPORT_REASON] = 0;
    f[ZF_MF_CONTEXT_VALID] = 1;
    f[ZF_MF_CONTEXT_ID] = zf_le32_get(rec + ZF_QUERY_OFF_CONTEXT);
    f[ZF_MF_MARKER] = 0;
    f[ZF_MF_BEGIN_TIME] = zf_le64_get(rec + ZF_QUERY_OFF_BEGIN);
    f[ZF_MF_REPORT_ERROR] = (flags & ZF_QUERY_FLAG_ERROR) ? 1 : 0;
    f[ZF_MF_REPORT_LOST] = (flags & ZF_QUERY_FLAG_LOST) ? 1 : 0;
    f[ZF_MF_QUERY_SPLIT] = (flags & ZF_QUERY_FLAG_SPLIT) ? 1 : 0;
    f[ZF_MF_FREQ_CHANGED] = (flags & ZF_QUERY_FLAG_FREQ) ? 1 : 0;
}

/* ---- Values --------------------------------------------------------------------------------------------------- */

static zet_typed_value_t zf_metric_value(const zf_metric *m, const uint64_t *fields) {
    zet_typed_value_t v = {.type = m->value_type};
    if (m->floating) {
        double d = zf_formula_eval_float(m->ops, m->num_ops, fields);
        if (m->value_type == ZET_VALUE_TYPE_FLOAT64) {
            v.value.fp64 = d;
        } else {
            /* Converting a double beyond FLT_MAX to float is undefined: clamp first. */
            d = d > FLT_MAX ? FLT_MAX : d < -FLT_MAX ? -FLT_MAX : d;
            v.value.fp32 = (float)d;
        }
        return v;
    }
    uint64_t u = zf_formula_eval_int(m->ops, m->num_ops, fields);
    if (m->value_type == ZET_VALUE_TYPE_UINT32)
        v.value.ui32 = u > UINT32_MAX ? UINT32_MAX : (uint32_t)u;
    else if (m->value_type == ZET_VALUE_TYPE_BOOL8)
        v.value.b8 = u != 0;
    else
        v.value.ui64 = u;
    return v;
}

static bool zf_value_greater(const zet_typed_value_t *a, const zet_typed_value_t *b) {
    switch (a->type) {
    case ZET_VALUE_TYPE_UINT32:
        return a->value.ui32 > b->value.ui32;
    case ZET_VALUE_TYPE_FLOAT32:
        return a->value.fp32 > b->value.fp32;
    case ZET_VALUE_TYPE_FLOAT64:
        return a->value.fp64 > b->value.fp64;
    case ZET_VALUE_TYPE_BOOL8:
        return a->value.b8 > b->value.b8;
    default:
        return a->value.ui64 > b->value.ui64;
    }
}

/* Where results go: consecutive values up to a capacity, or (MAX_METRIC_VALUES) each metric's maximum. */
typedef struct zf_calc_out {
    zet_typed_value_t *values;
    uint64_t capacity;
    uint64_t written;
    bool max;
    bool any;               /* max: a result was seen */
    zet_typed_value_t *top; /* max: group->num_metrics maxima */
} zf_calc_out;

static bool zf_out_full(const zf_calc_out *out) {
    return !out->max && out->written >= out->capacity;
}

static void zf_emit_result(const zf_calc_view *g, const uint64_t *fields, zf_calc_out *out) {
    for (uint32_t m = 0; m < g->num_metrics && !zf_out_full(out); m++) {
        zet_typed_value_t v = zf_metric_value(g->metrics[m], fields);
        if (!out->max)
            out->values[out->written++] = v;
        else if (!out->any || zf_value_greater(&v, &out->top[m]))
            out->top[m] = v;
    }
    out->any = true;
}

/* ---- Data sets ------------------------------------------------------------------------------------------------ */

static bool zf_stream_continues(const uint8_t *previous, const uint8_t *first) {
    uint32_t a = zf_le32_get(previous + ZF_OA_OFF_HEADER) & 0xffffu,
             b = zf_le32_get(first + ZF_OA_OFF_HEADER) & 0xffffu;
    return b == ((a + 1) & 0xffffu);
}

bool zf_calc_carried(const zf_calc_view *v, const zf_data_set *set, zf_metric_carry *carry) {
    if (set->no_carry || v->format != ZF_METRIC_FORMAT_OA ||
        v->sampling != ZET_METRIC_GROUP_SAMPLING_TYPE_FLAG_TIME_BASED || set->size < ZF_OA_RECORD_SIZE)
        return false;
    if (v->carry_lock != NULL)
        pthread_mutex_lock(v->carry_lock);
    *carry = v->carry[set->carry];
    if (v->carry_lock != NULL)
        pthread_mutex_unlock(v->carry_lock);
    return carry->valid && zf_stream_continues(carry->record, set->data);
}

static void zf_calc_stream(const zf_calc_view *g, const zf_data_set *set, uint64_t *fields, zf_calc_out *out,
                           bool update_carry) {
    const zf_tile_shape *shape = &g->shapes[set->tile];
    size_t n = set->size / ZF_OA_RECORD_SIZE;
    if (n == 0)
        return;
    zf_metric_carry carried;
    const uint8_t *prev = zf_calc_carried(g, set, &carried) ? carried.record : NULL;
    for (size_t i = 0; i < n && !zf_out_full(out); i++) {
        const uint8_t *cur = set->data + i * ZF_OA_RECORD_SIZE;
        if (prev != NULL) {
            zf_fields_oa_pair(fields, g, shape, prev, cur);
            zf_emit_result(g, fields, out);
        }
        prev = cur;
    }
    if (!update_carry || g->carry_lock == NULL)
        return;
    pthread_mutex_lock(g->carry_lock);
    g->carry[set->carry].valid = true;
    memcpy(g->carry[set->carry].record, set->data + (n - 1) * ZF_OA_RECORD_SIZE, ZF_OA_RECORD_SIZE);
    pthread_mutex_unlock(g->carry_lock);
}

static void zf_calc_queries(const zf_calc_view *g, const zf_data_set *set, uint64_t *fields, zf_calc_out *out) {
    size_t n = set->size / ZF_OA_QUERY_RECORD_SIZE;
    for (size_t i = 0; i < n && !zf_out_full(out); i++) {
        zf_fields_oa_query(fields, set->data + i * ZF_OA_QUERY_RECORD_SIZE);
        zf_emit_result(g, fields, out);
    }
}

/* EU stall samples are summed per instruction pointer; results come in increasing IP order. */
typedef struct zf_ip_sample {
    uint64_t ip;
    uint64_t counts[ZF_EU_STALL_REASONS];
} zf_ip_sample;

static int zf_compare_ip(const void *a, const void *b) {
    uint64_t x = ((const zf_ip_sample *)a)->ip, y = ((const zf_ip_sample *)b)->ip;
    return x < y ? -1 : x > y;
}

static ze_result_t zf_calc_eu_stall(const zf_calc_view *g, const zf_data_set *set, uint64_t *fields, zf_calc_out *out) {
    size_t n = set->size / ZF_EU_STALL_RECORD_SIZE;
    if (n == 0)
        return ZE_RESULT_SUCCESS;
    zf_ip_sample *samples = malloc(n * sizeof *samples);
    if (samples == NULL)
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory to sort %zu EU stall samples", n);
    for (size_t i = 0; i < n; i++) {
        const uint8_t *rec = set->data + i * ZF_EU_STALL_RECORD_SIZE;
        samples[i].ip = zf_clock_mask(zf_le64_get(rec + ZF_EU_OFF_IP), ZF_EU_IP_BITS);
        for (uint32_t r = 0; r < ZF_EU_STALL_REASONS; r++)
            samples[i].counts[r] = zf_le32_get(rec + ZF_EU_OFF_COUNTS + 4 * r);
    }
    qsort(samples, n, sizeof *samples, zf_compare_ip);
    for (size_t i = 0; i < n && !zf_out_full(out);) {
        fields[ZF_MF_IP] = samples[i].ip;
        for (uint32_t r = 0; r < ZF_EU_STALL_REASONS; r++)
            fields[ZF_MF_ACTIVE + r] = 0;
        size_t j = i;
        for (; j < n && samples[j].ip == samples[i].ip; j++) {
            for (uint32_t r = 0; r < ZF_EU_STALL_REASONS; r++)
                fields[ZF_MF_ACTIVE + r] += samples[j].counts[r];
        }
        zf_emit_result(g, fields, out);
        i = j;
    }
    free(samples);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t zf_calc_set(const zf_calc_view *g, const zf_data_set *set, zf_calc_out *out, bool update_carry) {
    uint64_t fields[ZF_MF_COUNT] = {0};
    zf_fields_constants(fields, &g->shapes[set->tile]);
    if (g->format == ZF_METRIC_FORMAT_EU_STALL)
        return zf_calc_eu_stall(g, set, fields, out);
    if (g->sampling == ZET_METRIC_GROUP_SAMPLING_TYPE_FLAG_TIME_BASED)
        zf_calc_stream(g, set, fields, out, update_carry);
    else
        zf_calc_queries(g, set, fields, out);
    return ZE_RESULT_SUCCESS;
}

/* The most values a set can give: one result per record (pairs may give one fewer, EU samples fewer still). */
static uint64_t zf_set_bound(const zf_calc_view *g, const zf_data_set *set, bool max) {
    uint64_t records = set->size / g->record_size;
    if (max)
        return records > 0 ? g->num_metrics : 0;
    return records > UINT32_MAX ? UINT32_MAX * (uint64_t)g->num_metrics : records * g->num_metrics;
}

static uint32_t zf_clamp32(uint64_t x) {
    return x > UINT32_MAX ? UINT32_MAX : (uint32_t)x;
}

/* Calculates one set into values[0 .. capacity); returns the number written. */
static ze_result_t zf_calc_into(const zf_calc_view *g, const zf_data_set *set, bool max, zet_typed_value_t *values,
                                uint64_t capacity, uint64_t *written) {
    zf_calc_out out = {.values = values, .capacity = capacity, .max = max};
    if (max && (out.top = calloc(g->num_metrics, sizeof *out.top)) == NULL)
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory for maximum values");
    ze_result_t result = zf_calc_set(g, set, &out, !max);
    if (max && out.any) {
        out.written = capacity < g->num_metrics ? capacity : g->num_metrics;
        memcpy(values, out.top, out.written * sizeof *values);
    }
    free(out.top);
    *written = out.written;
    return result;
}

/* ---- Views and parsing ---------------------------------------------------------------------------------------- */

void zf_calc_view_of(const zf_metric_group *group, zf_calc_view *view) {
    const zf_metric_device *mdev = group->mdev;
    *view = (zf_calc_view){.name = group->name,
                           .sampling = group->sampling,
                           .format = group->format,
                           .record_size = group->record_size,
                           .timestamp_bits = mdev->device->desc->metric_options.timestamp_valid_bits,
                           .num_metrics = group->num_metrics,
                           .metrics = group->list,
                           .num_tiles = mdev->num_tiles,
                           .tile_ids = mdev->tile_ids,
                           .shapes = mdev->shapes,
                           .carry_lock = (pthread_mutex_t *)&group->carry_lock,
                           .carry = group->carry};
}

void zf_metric_group_read_lock(zf_metric_group *group) {
    if (group->user != NULL)
        pthread_rwlock_rdlock(&group->list_lock);
}

void zf_metric_group_read_unlock(zf_metric_group *group) {
    if (group->user != NULL)
        pthread_rwlock_unlock(&group->list_lock);
}

const char *zf_metric_group_not_calculable(const zf_metric_group *group) {
#if ZF_L0_AT_LEAST(10)
    if (group->sampling == ZET_METRIC_GROUP_SAMPLING_TYPE_FLAG_EXP_TRACER_BASED)
        return "is a tracer group: its data is decoded (zetMetricTracerDecodeExp), not calculated";
#endif
    if (zf_user_group_not_ready(group) != NULL)
        return "is a user-created group that is not closed (zetMetricGroupCloseExp): its metrics are not final";
    return NULL;
}

ze_result_t zf_calc_parse(const zf_calc_view *g, const uint8_t *data, size_t size, bool allow_frame, zf_frame *frame) {
    if (size == 0 && zf_strict())
        return zf_fail(ZE_RESULT_NOT_READY, "rawDataSize is 0: there is nothing to calculate yet");
    if (size == 0) /* ZE_RESULT_NOT_READY is not among the function's results: no data, no values */
        zf_tolerate("rawDataSize holds raw data", "calculated no values");
    if (!zf_is_framed(data, size))
        return zf_plain_set(g, data, size, frame);
    if (!allow_frame)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                       "pRawData (%zu bytes) starts with the frame magic \"ZFMT\": it is framed per-tile data of a "
                       "multi-tile device, which only zetMetricGroupCalculateMultipleMetricValuesExp calculates",
                       size);
    return zf_frame_parse(g, data, size, frame);
}

void zf_calc_bound(const zf_calc_view *v, const zf_frame *frame, bool max, uint32_t *set_count, uint32_t *total) {
    uint64_t sum = 0;
    for (uint32_t i = 0; i < frame->count; i++)
        sum += zf_set_bound(v, &frame->sets[i], max);
    *set_count = frame->count;
    *total = zf_clamp32(sum);
}

ze_result_t zf_calc_sets(const zf_calc_view *v, const zf_frame *frame, bool max, uint32_t *set_count, uint32_t *total,
                         uint32_t *counts, zet_typed_value_t *values) {
    uint32_t sets = *set_count < frame->count ? *set_count : frame->count;
    uint64_t capacity = *total, used = 0;
    ze_result_t result = ZE_RESULT_SUCCESS;
    for (uint32_t i = 0; i < sets && result == ZE_RESULT_SUCCESS; i++) {
        uint64_t written = 0;
        result = zf_calc_into(v, &frame->sets[i], max, values + used, capacity - used, &written);
        counts[i] = (uint32_t)written;
        used += written;
    }
    *set_count = sets;
    *total = (uint32_t)used;
    return result;
}

/* ---- API ------------------------------------------------------------------------------------------------------ */

static ze_result_t zf_check_calculable(const zf_metric_group *g) {
    const char *why = zf_metric_group_not_calculable(g);
    return why == NULL ? ZE_RESULT_SUCCESS : zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "%s %s", g->name, why);
}

ze_result_t zfi_zetMetricGroupCalculateMetricValues(zet_metric_group_handle_t hMetricGroup,
                                                    zet_metric_group_calculation_type_t type, size_t rawDataSize,
                                                    const uint8_t *pRawData, uint32_t *pMetricValueCount,
                                                    zet_typed_value_t *pMetricValues) {
    zf_metric_group *g = zf_metric_group_from(hMetricGroup);
    bool max = type == ZET_METRIC_GROUP_CALCULATION_TYPE_MAX_METRIC_VALUES;
    zf_metric_group_read_lock(g);
    zf_calc_view v;
    zf_calc_view_of(g, &v);
    zf_frame frame;
    ze_result_t result = zf_check_calculable(g);
    if (result == ZE_RESULT_SUCCESS)
        result = zf_calc_parse(&v, pRawData, rawDataSize, false, &frame);
    if (result == ZE_RESULT_SUCCESS && (*pMetricValueCount == 0 || pMetricValues == NULL)) {
        *pMetricValueCount = zf_clamp32(zf_set_bound(&v, &frame.sets[0], max));
    } else if (result == ZE_RESULT_SUCCESS) {
        uint64_t written = 0;
        result = zf_calc_into(&v, &frame.sets[0], max, pMetricValues, *pMetricValueCount, &written);
        *pMetricValueCount = (uint32_t)written;
    }
    zf_metric_group_read_unlock(g);
    return result;
}

ze_result_t zfi_zetMetricGroupCalculateMultipleMetricValuesExp(zet_metric_group_handle_t hMetricGroup,
                                                               zet_metric_group_calculation_type_t type,
                                                               size_t rawDataSize, const uint8_t *pRawData,
                                                               uint32_t *pSetCount, uint32_t *pTotalMetricValueCount,
                                                               uint32_t *pMetricCounts,
                                                               zet_typed_value_t *pMetricValues) {
    zf_metric_group *g = zf_metric_group_from(hMetricGroup);
    bool max = type == ZET_METRIC_GROUP_CALCULATION_TYPE_MAX_METRIC_VALUES;
    zf_frame *frame = malloc(sizeof *frame);
    if (frame == NULL)
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory to read a frame");
    zf_metric_group_read_lock(g);
    zf_calc_view v;
    zf_calc_view_of(g, &v);
    ze_result_t result = zf_check_calculable(g);
    if (result == ZE_RESULT_SUCCESS)
        result = zf_calc_parse(&v, pRawData, rawDataSize, true, frame);
    if (result == ZE_RESULT_SUCCESS &&
        (*pSetCount == 0 || *pTotalMetricValueCount == 0 || pMetricCounts == NULL || pMetricValues == NULL))
        zf_calc_bound(&v, frame, max, pSetCount, pTotalMetricValueCount);
    else if (result == ZE_RESULT_SUCCESS)
        result = zf_calc_sets(&v, frame, max, pSetCount, pTotalMetricValueCount, pMetricCounts, pMetricValues);
    zf_metric_group_read_unlock(g);
    free(frame);
    return result;
}

void zf_metric_group_reset_carry(zf_metric_group *group) {
    pthread_mutex_lock(&group->carry_lock);
    for (uint32_t i = 0; i <= group->mdev->num_tiles; i++)
        group->carry[i].valid = false;
    pthread_mutex_unlock(&group->carry_lock);
}
