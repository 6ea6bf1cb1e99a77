/* Helpers shared by the metric conformance tests: finding groups and metrics, calculating, and writing raw records
 * by hand from docs/metrics-raw-formats.md (not from the driver's sources: the tests check the document too). Each
 * test executable includes this header once. */
#ifndef ZC_METRIC_H
#define ZC_METRIC_H

#include "zc_harness.h"

#include <level_zero/zet_api.h>
#include <stdlib.h>
#include <string.h>

#define ZC_TIME_BASED  ZET_METRIC_GROUP_SAMPLING_TYPE_FLAG_TIME_BASED
#define ZC_EVENT_BASED ZET_METRIC_GROUP_SAMPLING_TYPE_FLAG_EVENT_BASED

/* docs/metrics-raw-formats.md */
#define ZC_OA_RECORD_SIZE       256u
#define ZC_QUERY_RECORD_SIZE    688u
#define ZC_EU_STALL_RECORD_SIZE 64u
#define ZC_FRAME_MAGIC          0x544D465Au
#define ZC_QUERY_TAG            0x3151465Au

/* ---- Groups and metrics --------------------------------------------------------------------------------------- */

static inline ze_result_t zc_metric_groups_get(void *ctx, uint32_t *count, void *items) {
    return zetMetricGroupGet((zet_device_handle_t)ctx, count, items);
}

static inline ze_result_t zc_metrics_get(void *ctx, uint32_t *count, void *items) {
    return zetMetricGet((zet_metric_group_handle_t)ctx, count, items);
}

static inline zc_count_query zc_metric_group_query(ze_device_handle_t device) {
    return (zc_count_query){"zetMetricGroupGet", zc_metric_groups_get, device, sizeof(zet_metric_group_handle_t), NULL};
}

static inline zc_count_query zc_metric_query_of(zet_metric_group_handle_t group) {
    return (zc_count_query){"zetMetricGet", zc_metrics_get, group, sizeof(zet_metric_handle_t), NULL};
}

static inline zet_metric_group_properties_t zc_group_properties(zet_metric_group_handle_t group) {
    zet_metric_group_properties_t p = {.stype = ZET_STRUCTURE_TYPE_METRIC_GROUP_PROPERTIES};
    zc_assert_success(zetMetricGroupGetProperties(group, &p));
    return p;
}

static inline zet_metric_properties_t zc_metric_properties(zet_metric_handle_t metric) {
    zet_metric_properties_t p = {.stype = ZET_STRUCTURE_TYPE_METRIC_PROPERTIES};
    zc_assert_success(zetMetricGetProperties(metric, &p));
    return p;
}

/* The group of `device` with this name and sampling type, or NULL. */
static inline zet_metric_group_handle_t zc_find_group(ze_device_handle_t device, const char *name,
                                                      zet_metric_group_sampling_type_flags_t sampling) {
    zc_count_query query = zc_metric_group_query(device);
    uint32_t n = 0;
    zet_metric_group_handle_t *groups = zc_query_all(&query, &n);
    zet_metric_group_handle_t found = NULL;
    for (uint32_t i = 0; i < n && found == NULL; i++) {
        zet_metric_group_properties_t p = zc_group_properties(groups[i]);
        if (strcmp(p.name, name) == 0 && (p.samplingType & sampling))
            found = groups[i];
    }
    free(groups);
    return found;
}

/* As zc_find_group, skipping the test when the group does not exist (other drivers, other scenarios); on the fake
 * driver's default scenario every group the tests use exists, so there a missing group fails. */
static inline zet_metric_group_handle_t zc_need_group(ze_device_handle_t device, const char *name,
                                                      zet_metric_group_sampling_type_flags_t sampling) {
    zet_metric_group_handle_t group = zc_find_group(device, name, sampling);
    if (group == NULL && zc_driver_is_fake() && getenv("ZC_VARIANT") == NULL)
        zc_fail("the default scenario has no %s group %s", sampling == ZC_TIME_BASED ? "TIME_BASED" : "EVENT_BASED",
                name);
    if (group == NULL)
        skip();
    return group;
}

/* The position of a metric in its group (fails when absent). */
static inline uint32_t zc_metric_index(zet_metric_group_handle_t group, const char *name) {
    zc_count_query query = zc_metric_query_of(group);
    uint32_t n = 0;
    zet_metric_handle_t *metrics = zc_query_all(&query, &n);
    uint32_t index = UINT32_MAX;
    for (uint32_t i = 0; i < n && index == UINT32_MAX; i++) {
        if (strcmp(zc_metric_properties(metrics[i]).name, name) == 0)
            index = i;
    }
    free(metrics);
    if (index == UINT32_MAX)
        zc_fail("the group has no metric %s", name);
    return index;
}

static inline uint32_t zc_metric_count(zet_metric_group_handle_t group) {
    return zc_group_properties(group).metricCount;
}

/* The sampling types of the headers: the tracer's came with 1.10 (its groups are decoded, not calculated). */
#if ZC_L0_AT_LEAST(10)
#define ZC_TRACER_BASED ZET_METRIC_GROUP_SAMPLING_TYPE_FLAG_EXP_TRACER_BASED
#else
#define ZC_TRACER_BASED 0u
#endif
#define ZC_ALL_SAMPLING (ZC_TIME_BASED | ZC_EVENT_BASED | ZC_TRACER_BASED)

/* Whether a group's raw data is calculated (streamer and query groups) rather than decoded (tracer groups). */
static inline bool zc_group_calculable(zet_metric_group_handle_t group) {
    return (zc_group_properties(group).samplingType & (ZC_TIME_BASED | ZC_EVENT_BASED)) != 0;
}

/* ---- Calculation ---------------------------------------------------------------------------------------------- */

typedef struct zc_values {
    uint32_t count;
    zet_typed_value_t *values; /* malloc'ed */
} zc_values;

/* zetMetricGroupCalculateMetricValues: the count query, then the calculation (asserts success of both). */
static inline zc_values zc_calculate(zet_metric_group_handle_t group, zet_metric_group_calculation_type_t type,
                                     const uint8_t *data, size_t size) {
    zc_values v = {0, NULL};
    zc_assert_success(zetMetricGroupCalculateMetricValues(group, type, size, data, &v.count, NULL));
    v.values = calloc(v.count + 1, sizeof *v.values);
    if (v.values == NULL)
        zc_fail("out of memory");
    zc_assert_success(zetMetricGroupCalculateMetricValues(group, type, size, data, &v.count, v.values));
    return v;
}

/* zetMetricGroupCalculateMultipleMetricValuesExp: sets and values (asserts success). */
typedef struct zc_sets {
    uint32_t num_sets;
    uint32_t *counts; /* values per set */
    uint32_t total;
    zet_typed_value_t *values;
} zc_sets;

static inline zc_sets zc_calculate_sets(zet_metric_group_handle_t group, zet_metric_group_calculation_type_t type,
                                        const uint8_t *data, size_t size) {
    zc_sets s = {0, NULL, 0, NULL};
    zc_assert_success(
        zetMetricGroupCalculateMultipleMetricValuesExp(group, type, size, data, &s.num_sets, &s.total, NULL, NULL));
    s.counts = calloc(s.num_sets + 1, sizeof *s.counts);
    s.values = calloc(s.total + 1, sizeof *s.values);
    if (s.counts == NULL || s.values == NULL)
        zc_fail("out of memory");
    zc_assert_success(zetMetricGroupCalculateMultipleMetricValuesExp(group, type, size, data, &s.num_sets, &s.total,
                                                                     s.counts, s.values));
    return s;
}

static inline void zc_sets_free(zc_sets *s) {
    free(s->counts);
    free(s->values);
}

/* A value as an unsigned number (integers and booleans) or a double (floats). */
static inline uint64_t zc_u64(zet_typed_value_t v) {
    switch (v.type) {
    case ZET_VALUE_TYPE_UINT32:
        return v.value.ui32;
    case ZET_VALUE_TYPE_BOOL8:
        return v.value.b8;
    case ZET_VALUE_TYPE_UINT64:
        return v.value.ui64;
    default:
        zc_fail("value of type %d is not an integer", (int)v.type);
        return 0;
    }
}

static inline double zc_f64(zet_typed_value_t v) {
    if (v.type == ZET_VALUE_TYPE_FLOAT32)
        return v.value.fp32;
    if (v.type == ZET_VALUE_TYPE_FLOAT64)
        return v.value.fp64;
    return (double)zc_u64(v);
}

/* Two typed values are the same: the same type and the same value of that type (padding bytes are not values). */
static inline bool zc_same_values(const zet_typed_value_t *a, const zet_typed_value_t *b, uint32_t count) {
    for (uint32_t i = 0; i < count; i++) {
        if (a[i].type != b[i].type)
            return false;
        bool same = a[i].type == ZET_VALUE_TYPE_FLOAT32   ? memcmp(&a[i].value.fp32, &b[i].value.fp32, 4) == 0
                    : a[i].type == ZET_VALUE_TYPE_FLOAT64 ? memcmp(&a[i].value.fp64, &b[i].value.fp64, 8) == 0
                    : a[i].type == ZET_VALUE_TYPE_BOOL8   ? a[i].value.b8 == b[i].value.b8
                    : a[i].type == ZET_VALUE_TYPE_UINT32  ? a[i].value.ui32 == b[i].value.ui32
                                                          : a[i].value.ui64 == b[i].value.ui64;
        if (!same)
            return false;
    }
    return true;
}

/* An exact-size heap copy, so that AddressSanitizer sees a read past the end. */
static inline uint8_t *zc_heap_copy(const uint8_t *data, size_t size) {
    uint8_t *copy = malloc(size > 0 ? size : 1);
    assert_non_null(copy);
    memcpy(copy, data, size);
    return copy;
}

/* ---- Raw records written by hand (docs/metrics-raw-formats.md) ------------------------------------------------ */

static inline void zc_put32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static inline void zc_put64(uint8_t *p, uint64_t v) {
    zc_put32(p, (uint32_t)v);
    zc_put32(p + 4, (uint32_t)(v >> 32));
}

static inline uint32_t zc_get32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t zc_get64(const uint8_t *p) {
    return zc_get32(p) | (uint64_t)zc_get32(p + 4) << 32;
}

/* An OA snapshot: counters A0..A31 (40 bits: low 32 at 24 + 4i, high 8 at 152 + i), B0..B7 at 184, C0..C7 at 216. */
typedef struct zc_oa_snapshot {
    uint16_t sequence;
    uint8_t reason;
    bool context_valid;
    uint32_t context_id;
    uint64_t timestamp;
    uint32_t gpu_ticks;
    uint32_t marker;
    uint64_t a[32];
    uint32_t b[8];
    uint32_t c[8];
} zc_oa_snapshot;

static inline void zc_write_oa(uint8_t *rec, const zc_oa_snapshot *s) {
    memset(rec, 0, ZC_OA_RECORD_SIZE);
    zc_put32(rec, s->sequence | (uint32_t)s->reason << 16 | (s->context_valid ? 1u << 24 : 0u));
    zc_put32(rec + 4, s->context_id);
    zc_put64(rec + 8, s->timestamp);
    zc_put32(rec + 16, s->gpu_ticks);
    zc_put32(rec + 20, s->marker);
    for (int i = 0; i < 32; i++) {
        zc_put32(rec + 24 + 4 * i, (uint32_t)s->a[i]);
        rec[152 + i] = (uint8_t)(s->a[i] >> 32);
    }
    for (int i = 0; i < 8; i++) {
        zc_put32(rec + 184 + 4 * i, s->b[i]);
        zc_put32(rec + 216 + 4 * i, s->c[i]);
    }
}

typedef struct zc_query_record {
    uint32_t flags;
    uint64_t begin_ns;
    uint64_t duration_ns;
    uint64_t ticks;
    uint64_t gpu_ticks;
    uint32_t context_id;
    uint64_t a[32];
    uint64_t b[8];
    uint64_t c[8];
} zc_query_record;

static inline void zc_write_query(uint8_t *rec, const zc_query_record *q) {
    memset(rec, 0, ZC_QUERY_RECORD_SIZE);
    zc_put32(rec, ZC_QUERY_TAG);
    zc_put32(rec + 4, q->flags);
    zc_put64(rec + 8, q->begin_ns);
    zc_put64(rec + 16, q->duration_ns);
    zc_put64(rec + 24, q->ticks);
    zc_put64(rec + 32, q->gpu_ticks);
    zc_put32(rec + 40, q->context_id);
    for (int i = 0; i < 32; i++)
        zc_put64(rec + 48 + 8 * i, q->a[i]);
    for (int i = 0; i < 8; i++) {
        zc_put64(rec + 304 + 8 * i, q->b[i]);
        zc_put64(rec + 368 + 8 * i, q->c[i]);
    }
}

/* An EU stall sample: IP, then active and the 8 stall reasons in the document's order. */
static inline void zc_write_eu(uint8_t *rec, uint64_t ip, const uint32_t counts[9], uint32_t tile, uint64_t ts) {
    memset(rec, 0, ZC_EU_STALL_RECORD_SIZE);
    zc_put64(rec, ip);
    for (int i = 0; i < 9; i++)
        zc_put32(rec + 8 + 4 * i, counts[i]);
    zc_put32(rec + 44, tile);
    zc_put64(rec + 48, ts);
}

/* A frame of `sets` sections (tile ids 0..sets-1) placed one after the other: header, then the sections. */
static inline size_t zc_write_frame(uint8_t *out, uint32_t sets, const uint8_t *const *sections, const size_t *sizes) {
    size_t header = 16 + 16 * (size_t)sets, offset = header;
    memset(out, 0, header);
    zc_put32(out, ZC_FRAME_MAGIC);
    out[4] = 1;
    out[6] = (uint8_t)header;
    out[7] = (uint8_t)(header >> 8);
    zc_put32(out + 8, sets);
    for (uint32_t i = 0; i < sets; i++) {
        uint8_t *entry = out + 16 + 16 * i;
        zc_put32(entry, i);
        zc_put32(entry + 8, (uint32_t)offset);
        zc_put32(entry + 12, (uint32_t)sizes[i]);
        memcpy(out + offset, sections[i], sizes[i]);
        offset += sizes[i];
    }
    return offset;
}

/* The records of tile `tile` in data read from a streamer or a query: the frame's section, or all of plain data
 * (a frame is at least 16 bytes starting with the magic). */
static inline const uint8_t *zc_tile_records(const uint8_t *data, size_t size, uint32_t tile, size_t *length) {
    *length = size;
    if (size < 16 || zc_get32(data) != ZC_FRAME_MAGIC)
        return data;
    uint32_t sets = zc_get32(data + 8);
    for (uint32_t i = 0; i < sets; i++) {
        const uint8_t *entry = data + 16 + 16 * i;
        if (zc_get32(entry) == tile) {
            *length = zc_get32(entry + 12);
            return data + zc_get32(entry + 8);
        }
    }
    zc_fail("no section for tile %u", tile);
    return NULL;
}

/* ---- Devices -------------------------------------------------------------------------------------------------- */

static inline ze_device_properties_t zc_device_props(ze_device_handle_t device) {
    ze_device_properties_t p = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2};
    zc_assert_success(zeDeviceGetProperties(device, &p));
    return p;
}

static inline uint32_t zc_subdevice_count(ze_device_handle_t device) {
    uint32_t n = 0;
    zc_assert_success(zeDeviceGetSubDevices(device, &n, NULL));
    return n;
}

/* The tiles a device's metric data covers: its sub-devices, or itself. */
static inline uint32_t zc_tiles(ze_device_handle_t device) {
    uint32_t n = zc_subdevice_count(device);
    return n > 0 ? n : 1;
}

/* Activates exactly these groups on the device (asserts success). */
static inline void zc_activate(ze_context_handle_t context, ze_device_handle_t device, uint32_t count,
                               zet_metric_group_handle_t *groups) {
    zc_assert_success(zetContextActivateMetricGroups(context, device, count, groups));
}

/* The raw data of a query whose end has executed (asserts success); free it. */
static inline uint8_t *zc_query_data(zet_metric_query_handle_t query, size_t *size) {
    *size = 0;
    zc_assert_success(zetMetricQueryGetData(query, size, NULL));
    uint8_t *data = malloc(*size);
    if (data == NULL)
        zc_fail("out of memory");
    zc_assert_success(zetMetricQueryGetData(query, size, data));
    return data;
}

#endif
