/* Export data (the API functions of headers 1.6; the format itself needs nothing of them, so the fuzz target reads it
 * in every build): raw metric data with everything its calculation needs, so that another machine, with
 * or without a device, calculates it (docs/metrics.md, "Export data", defines the format byte by byte).
 *
 * zetMetricGroupGetExportDataExp writes a versioned header, the group's description (records, metrics with their
 * formulas, the constants of the tiles the data may name), the record each data set would be paired with (the group's
 * carried snapshot, when the data continues it) and the raw data itself. zetMetricGroupCalculateMetricExportDataExp
 * validates all of it before it reads any record, compiles the formulas again and runs the one calculation of
 * metric_calc.c over it: the values are those zetMetricGroupCalculateMultipleMetricValuesExp gives for the same raw
 * data on the group at the time of the export. Export data is never trusted: anything malformed or cut short is
 * ZE_RESULT_ERROR_INVALID_ARGUMENT with a diagnostic naming the field. */
#include "core/zf_chain.h"
#include "core/zf_core.h"
#include "tools/metrics/zf_metric.h"

#include <stdlib.h>
#include <string.h>

#define ZF_EXPORT_MAGIC       0x584D465Au /* "ZFMX" */
#define ZF_EXPORT_VERSION     1u
#define ZF_EXPORT_HEADER_SIZE 64u
#define ZF_EXPORT_TEXT        256u
#define ZF_EXPORT_TILE_SIZE   64u
#define ZF_EXPORT_SET_SIZE    (8u + ZF_OA_RECORD_SIZE)
#define ZF_EXPORT_METRIC_SIZE (4u * ZF_EXPORT_TEXT + 16u + ZF_EXPORT_TEXT)
#define ZF_EXPORT_MAX_METRICS 4096u
#define ZF_EXPORT_SET_CARRIED 0x1u

/* Header fields */
#define ZF_EX_MAGIC       0u
#define ZF_EX_VERSION     4u
#define ZF_EX_HEADER_SIZE 6u
#define ZF_EX_TOTAL       8u
#define ZF_EX_SAMPLING    16u
#define ZF_EX_DOMAIN      20u
#define ZF_EX_FORMAT      24u
#define ZF_EX_RECORD_SIZE 28u
#define ZF_EX_TS_BITS     32u
#define ZF_EX_METRICS     36u
#define ZF_EX_TILES       40u
#define ZF_EX_SETS        44u
#define ZF_EX_RAW_OFFSET  48u
#define ZF_EX_RAW_SIZE    56u
#define ZF_EX_NAME        ZF_EXPORT_HEADER_SIZE
#define ZF_EX_DESCRIPTION (ZF_EX_NAME + ZF_EXPORT_TEXT)
#define ZF_EX_TABLES      (ZF_EX_DESCRIPTION + ZF_EXPORT_TEXT)

/* Metric entry fields */
#define ZF_EM_NAME        0u
#define ZF_EM_DESCRIPTION 256u
#define ZF_EM_COMPONENT   512u
#define ZF_EM_UNITS       768u
#define ZF_EM_TIER        1024u
#define ZF_EM_TYPE        1028u
#define ZF_EM_VALUE_TYPE  1032u
#define ZF_EM_FORMULA_LEN 1036u
#define ZF_EM_FORMULA     1040u

/* The counts an export holds, and where its tables lie. */
typedef struct zf_export_layout {
    uint32_t metrics;
    uint32_t tiles;
    uint32_t sets;
    size_t tiles_at;
    size_t sets_at;
    size_t metrics_at;
    size_t raw_at;
} zf_export_layout;

static zf_export_layout zf_export_layout_of(uint32_t metrics, uint32_t tiles, uint32_t sets) {
    zf_export_layout l = {.metrics = metrics, .tiles = tiles, .sets = sets, .tiles_at = ZF_EX_TABLES};
    l.sets_at = l.tiles_at + (size_t)tiles * ZF_EXPORT_TILE_SIZE;
    l.metrics_at = l.sets_at + (size_t)sets * ZF_EXPORT_SET_SIZE;
    l.raw_at = l.metrics_at + (size_t)metrics * ZF_EXPORT_METRIC_SIZE;
    return l;
}

/* ---- Writing -------------------------------------------------------------------------------------------------- */

static void zf_put_text(uint8_t *out, const char *text) {
    memset(out, 0, ZF_EXPORT_TEXT);
    memcpy(out, text, strnlen(text, ZF_EXPORT_TEXT - 1));
}

static void zf_put_shape(uint8_t *out, uint32_t tile_id, const zf_tile_shape *shape) {
    memset(out, 0, ZF_EXPORT_TILE_SIZE);
    const uint64_t constants[7] = {shape->xve_count, shape->threads_per_xve, shape->simd_width,  shape->core_mhz,
                                   shape->timer_hz,  shape->compute_engines, shape->copy_engines};
    zf_le32_put(out, tile_id);
    for (uint32_t i = 0; i < 7; i++)
        zf_le64_put(out + 8 + 8 * i, constants[i]);
}

static void zf_put_metric(uint8_t *out, const zf_metric *m) {
    zf_put_text(out + ZF_EM_NAME, m->name);
    zf_put_text(out + ZF_EM_DESCRIPTION, m->description);
    zf_put_text(out + ZF_EM_COMPONENT, m->component);
    zf_put_text(out + ZF_EM_UNITS, m->units);
    zf_le32_put(out + ZF_EM_TIER, m->tier);
    zf_le32_put(out + ZF_EM_TYPE, (uint32_t)m->type);
    zf_le32_put(out + ZF_EM_VALUE_TYPE, (uint32_t)m->value_type);
    zf_le32_put(out + ZF_EM_FORMULA_LEN, (uint32_t)strnlen(m->formula, ZF_EXPORT_TEXT - 1));
    zf_put_text(out + ZF_EM_FORMULA, m->formula);
}

static void zf_put_header(uint8_t *out, const zf_calc_view *v, uint32_t domain, const zf_export_layout *l,
                          size_t raw_size) {
    memset(out, 0, ZF_EXPORT_HEADER_SIZE);
    zf_le32_put(out + ZF_EX_MAGIC, ZF_EXPORT_MAGIC);
    out[ZF_EX_VERSION] = (uint8_t)ZF_EXPORT_VERSION;
    out[ZF_EX_HEADER_SIZE] = (uint8_t)ZF_EXPORT_HEADER_SIZE;
    zf_le64_put(out + ZF_EX_TOTAL, l->raw_at + raw_size);
    zf_le32_put(out + ZF_EX_SAMPLING, v->sampling);
    zf_le32_put(out + ZF_EX_DOMAIN, domain);
    zf_le32_put(out + ZF_EX_FORMAT, (uint32_t)v->format);
    zf_le32_put(out + ZF_EX_RECORD_SIZE, v->record_size);
    zf_le32_put(out + ZF_EX_TS_BITS, v->timestamp_bits);
    zf_le32_put(out + ZF_EX_METRICS, l->metrics);
    zf_le32_put(out + ZF_EX_TILES, l->tiles);
    zf_le32_put(out + ZF_EX_SETS, l->sets);
    zf_le64_put(out + ZF_EX_RAW_OFFSET, l->raw_at);
    zf_le64_put(out + ZF_EX_RAW_SIZE, raw_size);
}

static void zf_export_write(uint8_t *out, const zf_metric_group *g, const zf_calc_view *v, const zf_frame *frame,
                            const zf_export_layout *l, const uint8_t *raw, size_t raw_size) {
    zf_put_header(out, v, g->domain, l, raw_size);
    zf_put_text(out + ZF_EX_NAME, g->name);
    zf_put_text(out + ZF_EX_DESCRIPTION, g->description);
    for (uint32_t t = 0; t < v->num_tiles; t++)
        zf_put_shape(out + l->tiles_at + (size_t)t * ZF_EXPORT_TILE_SIZE, v->tile_ids[t], &v->shapes[t]);
    for (uint32_t i = 0; i < frame->count; i++) {
        uint8_t *entry = out + l->sets_at + (size_t)i * ZF_EXPORT_SET_SIZE;
        zf_metric_carry carry;
        memset(entry, 0, ZF_EXPORT_SET_SIZE);
        if (zf_calc_carried(v, &frame->sets[i], &carry)) {
            zf_le32_put(entry, ZF_EXPORT_SET_CARRIED);
            memcpy(entry + 8, carry.record, ZF_OA_RECORD_SIZE);
        }
    }
    for (uint32_t m = 0; m < v->num_metrics; m++)
        zf_put_metric(out + l->metrics_at + (size_t)m * ZF_EXPORT_METRIC_SIZE, v->metrics[m]);
    if (raw_size > 0)
        memcpy(out + l->raw_at, raw, raw_size);
}

static ze_result_t zf_export_group(zf_metric_group *g, const uint8_t *raw, size_t raw_size, size_t *size,
                                   uint8_t *out) {
    zf_calc_view v;
    zf_calc_view_of(g, &v);
    zf_frame *frame = malloc(sizeof *frame);
    if (frame == NULL)
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory to read the raw data");
    ze_result_t result = ZE_RESULT_SUCCESS;
    if (raw_size == 0) /* no data yet: an export of no records, which calculates no values */
        *frame = (zf_frame){.count = 1, .sets[0] = {.data = raw, .tile = 0, .carry = v.num_tiles}};
    else
        result = zf_calc_parse(&v, raw, raw_size, true, frame);
    zf_export_layout l = zf_export_layout_of(v.num_metrics, v.num_tiles, frame->count);
    size_t needed = l.raw_at + raw_size;
    if (result != ZE_RESULT_SUCCESS) {
        /* the calculation's diagnostic says what is wrong with the raw data */
    } else if (*size == 0 || out == NULL) {
        *size = needed;
    } else if (*size < needed) {
        result = zf_fail(ZE_RESULT_ERROR_INVALID_SIZE, "*pExportDataSize is %zu: the export data takes %zu bytes",
                         *size, needed);
    } else {
        zf_export_write(out, g, &v, frame, &l, raw, raw_size);
        *size = needed;
    }
    free(frame);
    return result;
}

ze_result_t zf_metric_export_data(zf_metric_group *g, const uint8_t *raw, size_t raw_size, size_t *size, uint8_t *out) {
    zf_metric_group_read_lock(g);
    const char *why = zf_metric_group_not_calculable(g);
    ze_result_t result = why != NULL ? zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "%s %s", g->name, why)
                                     : zf_export_group(g, raw, raw_size, size, out);
    zf_metric_group_read_unlock(g);
    return result;
}

/* ---- Reading -------------------------------------------------------------------------------------------------- */

/* An export read back: the view calculation runs over, and what it points into. */
typedef struct zf_export {
    zf_calc_view view;
    uint32_t sets;
    const uint8_t *raw;
    size_t raw_size;
    zf_metric *metrics;
    zf_metric **list;
    char name[ZF_EXPORT_TEXT];
    uint32_t tile_ids[ZF_FRAME_MAX_SETS];
    zf_tile_shape shapes[ZF_FRAME_MAX_SETS];
    zf_metric_carry carry[ZF_FRAME_MAX_SETS];
    char formulas[][ZF_EXPORT_TEXT]; /* one per metric */
} zf_export;

static void zf_export_free(zf_export *e) {
    if (e == NULL)
        return;
    free(e->metrics);
    free(e->list);
    free(e);
}

static ze_result_t zf_bad_export(const char *format, const char *field, uint64_t value) {
    return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, format, field, (unsigned long long)value);
}

/* The record sizes of docs/metrics-raw-formats.md for a format and sampling type; 0 for none. */
static uint32_t zf_export_record_size(uint32_t format, uint32_t sampling) {
    bool time = sampling == ZET_METRIC_GROUP_SAMPLING_TYPE_FLAG_TIME_BASED;
    bool event = sampling == ZET_METRIC_GROUP_SAMPLING_TYPE_FLAG_EVENT_BASED;
    if (format == ZF_METRIC_FORMAT_OA && (time || event))
        return zf_metric_record_size(ZF_METRIC_FORMAT_OA, sampling);
    if (format == ZF_METRIC_FORMAT_EU_STALL && time)
        return ZF_EU_STALL_RECORD_SIZE;
    return 0;
}

static ze_result_t zf_check_header_ids(const uint8_t *d, size_t size) {
    if (size < ZF_EX_TABLES)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                       "exportDataSize is %zu: export data starts with a %u-byte header and the group's name and "
                       "description (%u bytes)",
                       size, ZF_EXPORT_HEADER_SIZE, ZF_EX_TABLES);
    if (zf_le32_get(d + ZF_EX_MAGIC) != ZF_EXPORT_MAGIC)
        return zf_bad_export("pExportData does not start with the export magic \"ZFMX\" (%s 0x%llx)", "found",
                             zf_le32_get(d + ZF_EX_MAGIC));
    uint32_t version = (uint32_t)d[ZF_EX_VERSION] | (uint32_t)d[ZF_EX_VERSION + 1] << 8;
    if (version != ZF_EXPORT_VERSION)
        return zf_bad_export("the export data's %s is %llu: this driver reads version 1", "version", version);
    uint32_t header = (uint32_t)d[ZF_EX_HEADER_SIZE] | (uint32_t)d[ZF_EX_HEADER_SIZE + 1] << 8;
    if (header != ZF_EXPORT_HEADER_SIZE)
        return zf_bad_export("the export data's %s is %llu, not 64", "header size", header);
    if (zf_le64_get(d + ZF_EX_TOTAL) != size)
        return zf_bad_export("the export data declares %s %llu bytes, not exportDataSize (cut short or padded?)",
                             "a total of", zf_le64_get(d + ZF_EX_TOTAL));
    return ZE_RESULT_SUCCESS;
}

static ze_result_t zf_check_header_group(const uint8_t *d) {
    uint32_t sampling = zf_le32_get(d + ZF_EX_SAMPLING), format = zf_le32_get(d + ZF_EX_FORMAT);
    uint32_t record = zf_export_record_size(format, sampling);
    if (record == 0)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                       "the export data's sampling type %u and record format %u are no calculable pair", sampling,
                       format);
    if (zf_le32_get(d + ZF_EX_RECORD_SIZE) != record)
        return zf_bad_export("the export data's %s is %llu, not its format's", "record size",
                             zf_le32_get(d + ZF_EX_RECORD_SIZE));
    uint32_t bits = zf_le32_get(d + ZF_EX_TS_BITS);
    if (bits == 0 || bits > 64)
        return zf_bad_export("the export data's %s %llu is not within 1..64", "timestamp valid bits", bits);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t zf_check_header_tables(const uint8_t *d, zf_export_layout *l) {
    uint32_t metrics = zf_le32_get(d + ZF_EX_METRICS), tiles = zf_le32_get(d + ZF_EX_TILES);
    uint32_t sets = zf_le32_get(d + ZF_EX_SETS);
    if (metrics == 0 || metrics > ZF_EXPORT_MAX_METRICS)
        return zf_bad_export("the export data's %s %llu is not within 1..4096", "metric count", metrics);
    if (tiles == 0 || tiles > ZF_FRAME_MAX_SETS)
        return zf_bad_export("the export data's %s %llu is not within 1..64", "tile count", tiles);
    if (sets == 0 || sets > ZF_FRAME_MAX_SETS)
        return zf_bad_export("the export data's %s %llu is not within 1..64", "set count", sets);
    *l = zf_export_layout_of(metrics, tiles, sets);
    if (zf_le64_get(d + ZF_EX_RAW_OFFSET) != l->raw_at)
        return zf_bad_export("the export data's %s %llu is not where its tables end", "raw data offset",
                             zf_le64_get(d + ZF_EX_RAW_OFFSET));
    uint64_t total = zf_le64_get(d + ZF_EX_TOTAL);
    if (total < l->raw_at || zf_le64_get(d + ZF_EX_RAW_SIZE) != total - l->raw_at)
        return zf_bad_export("the export data's %s %llu does not end at its total size", "raw data size",
                             zf_le64_get(d + ZF_EX_RAW_SIZE));
    return ZE_RESULT_SUCCESS;
}

/* A text field: NUL-terminated within its 256 bytes. */
static bool zf_text_ok(const uint8_t *p) {
    return memchr(p, 0, ZF_EXPORT_TEXT) != NULL;
}

static ze_result_t zf_read_tiles(const uint8_t *d, const zf_export_layout *l, zf_export *e) {
    for (uint32_t t = 0; t < l->tiles; t++) {
        const uint8_t *p = d + l->tiles_at + (size_t)t * ZF_EXPORT_TILE_SIZE;
        e->tile_ids[t] = zf_le32_get(p);
        for (uint32_t u = 0; u < t; u++) {
            if (e->tile_ids[u] == e->tile_ids[t])
                return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "the export data's tiles %u and %u are both tile %u",
                               u, t, e->tile_ids[t]);
        }
        uint64_t c[7];
        for (uint32_t i = 0; i < 7; i++)
            c[i] = zf_le64_get(p + 8 + 8 * i);
        e->shapes[t] = (zf_tile_shape){c[0], c[1], c[2], c[3], c[4], c[5], c[6]};
    }
    return ZE_RESULT_SUCCESS;
}

static ze_result_t zf_read_sets(const uint8_t *d, const zf_export_layout *l, bool streamed, zf_export *e) {
    for (uint32_t i = 0; i < l->sets; i++) {
        const uint8_t *p = d + l->sets_at + (size_t)i * ZF_EXPORT_SET_SIZE;
        uint32_t flags = zf_le32_get(p);
        if ((flags & ~ZF_EXPORT_SET_CARRIED) != 0 || (flags != 0 && !streamed))
            return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                           "the export data's set %u has flags 0x%x: only OA streamer data carries a record (0x1)", i,
                           flags);
        e->carry[i].valid = flags != 0;
        memcpy(e->carry[i].record, p + 8, ZF_OA_RECORD_SIZE);
    }
    return ZE_RESULT_SUCCESS;
}

static bool zf_metric_type_ok(uint32_t type) {
    return type <= ZET_METRIC_TYPE_RAW || (type >= 0x7ffffff9u && type <= 0x7ffffffeu);
}

static bool zf_value_type_ok(uint32_t type) {
    return type == ZET_VALUE_TYPE_UINT32 || type == ZET_VALUE_TYPE_UINT64 || type == ZET_VALUE_TYPE_FLOAT32 ||
           type == ZET_VALUE_TYPE_FLOAT64 || type == ZET_VALUE_TYPE_BOOL8;
}

static ze_result_t zf_read_metric(const uint8_t *p, uint32_t index, zf_metric_format format, zf_export *e) {
    zf_metric *m = &e->metrics[index];
    if (!zf_text_ok(p + ZF_EM_NAME) || !zf_text_ok(p + ZF_EM_DESCRIPTION) || !zf_text_ok(p + ZF_EM_COMPONENT) ||
        !zf_text_ok(p + ZF_EM_UNITS))
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                       "the export data's metric %u has a name, description, component or units without its NUL "
                       "within 256 bytes",
                       index);
    uint32_t type = zf_le32_get(p + ZF_EM_TYPE), value_type = zf_le32_get(p + ZF_EM_VALUE_TYPE);
    if (!zf_metric_type_ok(type) || !zf_value_type_ok(value_type))
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                       "the export data's metric %u has metric type 0x%x and value type %u: not a calculable pair",
                       index, type, value_type);
    uint32_t length = zf_le32_get(p + ZF_EM_FORMULA_LEN);
    const uint8_t *text = p + ZF_EM_FORMULA;
    if (length == 0 || length >= ZF_EXPORT_TEXT || text[length] != 0 || memchr(text, 0, length) != NULL)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                       "the export data's metric %u declares a formula of %u characters that its text does not hold",
                       index, length);
    memcpy(e->formulas[index], text, length + 1);
    memcpy(m->name, p + ZF_EM_NAME, sizeof m->name);
    m->type = (zet_metric_type_t)type;
    m->value_type = (zet_value_type_t)value_type;
    m->floating = value_type == ZET_VALUE_TYPE_FLOAT32 || value_type == ZET_VALUE_TYPE_FLOAT64;
    char why[256];
    if (!zf_metric_compile(m, format, e->formulas[index], why, sizeof why))
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "the export data's metric %u (%s): formula \"%s\": %s", index,
                       m->name, e->formulas[index], why);
    e->list[index] = m;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t zf_read_metrics(const uint8_t *d, const zf_export_layout *l, zf_metric_format format, zf_export *e) {
    e->metrics = calloc(l->metrics, sizeof *e->metrics);
    e->list = calloc(l->metrics, sizeof *e->list);
    if (e->metrics == NULL || e->list == NULL)
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory for %u metrics", l->metrics);
    for (uint32_t m = 0; m < l->metrics; m++) {
        ze_result_t result = zf_read_metric(d + l->metrics_at + (size_t)m * ZF_EXPORT_METRIC_SIZE, m, format, e);
        if (result != ZE_RESULT_SUCCESS)
            return result;
    }
    return ZE_RESULT_SUCCESS;
}

static void zf_export_view(const uint8_t *d, const zf_export_layout *l, zf_export *e) {
    memcpy(e->name, d + ZF_EX_NAME, sizeof e->name);
    e->name[sizeof e->name - 1] = '\0';
    e->sets = l->sets;
    e->raw = d + l->raw_at;
    e->raw_size = (size_t)zf_le64_get(d + ZF_EX_RAW_SIZE);
    e->view = (zf_calc_view){.name = e->name,
                             .sampling = zf_le32_get(d + ZF_EX_SAMPLING),
                             .format = (zf_metric_format)zf_le32_get(d + ZF_EX_FORMAT),
                             .record_size = zf_le32_get(d + ZF_EX_RECORD_SIZE),
                             .timestamp_bits = zf_le32_get(d + ZF_EX_TS_BITS),
                             .num_metrics = l->metrics,
                             .metrics = e->list,
                             .num_tiles = l->tiles,
                             .tile_ids = e->tile_ids,
                             .shapes = e->shapes,
                             .carry_lock = NULL,
                             .carry = e->carry};
}

/* Reads and validates export data completely: its header, tables and formulas (the raw data is checked against
 * them by zf_export_frame). */
static ze_result_t zf_export_read(const uint8_t *d, size_t size, zf_export **out) {
    zf_export_layout l = {0};
    ze_result_t result = zf_check_header_ids(d, size);
    if (result == ZE_RESULT_SUCCESS)
        result = zf_check_header_group(d);
    if (result == ZE_RESULT_SUCCESS)
        result = zf_check_header_tables(d, &l);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    if (!zf_text_ok(d + ZF_EX_NAME) || !zf_text_ok(d + ZF_EX_DESCRIPTION))
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                       "the export data's group name or description has no NUL within its 256 bytes");
    zf_export *e = calloc(1, sizeof *e + (size_t)l.metrics * ZF_EXPORT_TEXT);
    if (e == NULL)
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory to read export data");
    zf_metric_format format = (zf_metric_format)zf_le32_get(d + ZF_EX_FORMAT);
    bool streamed = format == ZF_METRIC_FORMAT_OA &&
                    zf_le32_get(d + ZF_EX_SAMPLING) == ZET_METRIC_GROUP_SAMPLING_TYPE_FLAG_TIME_BASED;
    result = zf_read_tiles(d, &l, e);
    if (result == ZE_RESULT_SUCCESS)
        result = zf_read_sets(d, &l, streamed, e);
    if (result == ZE_RESULT_SUCCESS)
        result = zf_read_metrics(d, &l, format, e);
    if (result != ZE_RESULT_SUCCESS) {
        zf_export_free(e);
        return result;
    }
    zf_export_view(d, &l, e);
    *out = e;
    return ZE_RESULT_SUCCESS;
}

/* The raw data of an export split into its sets, each paired with its own carried record, the first `skip` records
 * of each left out (zet_metric_calculate_exp_desc_t.rawReportSkipCount). */
static ze_result_t zf_export_frame(const zf_export *e, uint32_t skip, zf_frame *frame) {
    ze_result_t result = ZE_RESULT_SUCCESS;
    if (e->raw_size == 0)
        *frame = (zf_frame){.count = 1, .sets[0] = {.data = e->raw}};
    else if ((result = zf_calc_parse(&e->view, e->raw, e->raw_size, true, frame)) != ZE_RESULT_SUCCESS)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                       "the raw data inside the export data is not valid for its group (above: why)");
    if (frame->count != e->sets)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "the export data describes %u sets; its raw data holds %u",
                       e->sets, frame->count);
    for (uint32_t i = 0; i < frame->count; i++) {
        zf_data_set *set = &frame->sets[i];
        size_t records = set->size / e->view.record_size, skipped = skip < records ? skip : records;
        set->data += skipped * e->view.record_size;
        set->size -= skipped * e->view.record_size;
        set->carry = i;
        set->no_carry = skip > 0;
    }
    return ZE_RESULT_SUCCESS;
}

ze_result_t zf_metric_export_calculate(bool max, const uint8_t *data, size_t size, uint32_t skip, uint32_t *set_count,
                                       uint32_t *total, uint32_t *counts, zet_typed_value_t *values) {
    zf_export *e = NULL;
    ze_result_t result = zf_export_read(data, size, &e);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    zf_frame *frame = malloc(sizeof *frame);
    if (frame == NULL)
        result = zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory to read the raw data");
    else
        result = zf_export_frame(e, skip, frame);
    if (result == ZE_RESULT_SUCCESS && (*set_count == 0 || *total == 0 || counts == NULL || values == NULL))
        zf_calc_bound(&e->view, frame, max, set_count, total);
    else if (result == ZE_RESULT_SUCCESS)
        result = zf_calc_sets(&e->view, frame, max, set_count, total, counts, values);
    free(frame);
    zf_export_free(e);
    return result;
}

/* ---- API (headers 1.6) ---------------------------------------------------------------------------------------- */

#if ZF_L0_AT_LEAST(6)
ze_result_t zfi_zetMetricGroupGetExportDataExp(zet_metric_group_handle_t hMetricGroup, const uint8_t *pRawData,
                                               size_t rawDataSize, size_t *pExportDataSize, uint8_t *pExportData) {
    return zf_metric_export_data(zf_metric_group_from(hMetricGroup), pRawData, rawDataSize, pExportDataSize,
                                 pExportData);
}

static ze_result_t zf_check_calculate_desc(const zet_metric_calculate_exp_desc_t *desc) {
    if (desc->stype != 0 && (uint32_t)desc->stype != ZET_STRUCTURE_TYPE_METRICS_CALCULATE_EXP_DESC)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                       "pCalculateDescriptor->stype is 0x%x, not ZET_STRUCTURE_TYPE_METRIC_CALCULATE_EXP_DESC",
                       (unsigned)desc->stype);
    return zf_chain_check(desc->pNext, "pCalculateDescriptor");
}

ze_result_t zfi_zetMetricGroupCalculateMetricExportDataExp(ze_driver_handle_t hDriver,
                                                           zet_metric_group_calculation_type_t type,
                                                           size_t exportDataSize, const uint8_t *pExportData,
                                                           zet_metric_calculate_exp_desc_t *pCalculateDescriptor,
                                                           uint32_t *pSetCount, uint32_t *pTotalMetricValueCount,
                                                           uint32_t *pMetricCounts, zet_typed_value_t *pMetricValues) {
    (void)hDriver; /* no device is needed: the export data holds everything */
    ze_result_t result = zf_check_calculate_desc(pCalculateDescriptor);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    return zf_metric_export_calculate(type == ZET_METRIC_GROUP_CALCULATION_TYPE_MAX_METRIC_VALUES, pExportData,
                                      exportDataSize, pCalculateDescriptor->rawReportSkipCount, pSetCount,
                                      pTotalMetricValueCount, pMetricCounts, pMetricValues);
}
#endif
