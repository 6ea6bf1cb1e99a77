/* Conformance: metric calculation. On the fake, raw data written by hand from docs/metrics-raw-formats.md must give
 * exactly the values docs/metrics.md predicts: pairwise streamer deltas with the carried record, wraps at 32 and 40
 * bits, query records, EU stall samples summed per IP, MAX_METRIC_VALUES, the multi-tile frame, and every malformed
 * size with its result code. On any driver, random bytes and sizes must not crash the calculation. */
#include "zc_metric.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>

#define ZC_PLAIN ZET_METRIC_GROUP_CALCULATION_TYPE_METRIC_VALUES
#define ZC_MAX   ZET_METRIC_GROUP_CALCULATION_TYPE_MAX_METRIC_VALUES

static bool zc_meteor_lake(void) {
    const char *variant = getenv("ZC_VARIANT");
    return variant != NULL && strcmp(variant, "integrated") == 0;
}

/* The groups the golden tests calculate with live on the first root device. */
static ze_device_handle_t zc_device(void) {
    return zc_sys()->roots[0];
}

static uint64_t zc_hz(void) {
    return zc_device_props(zc_device()).timerResolution;
}

/* The constants formulas read come from a tile of the device (docs/metrics.md, "Formulas"). */
static uint64_t zc_tile_xves(void) {
    ze_device_handle_t tile = zc_device();
    if (zc_subdevice_count(tile) > 0)
        zc_assert_success(zeDeviceGetSubDevices(zc_device(), &(uint32_t){1}, &tile));
    ze_device_properties_t p = zc_device_props(tile);
    return (uint64_t)p.numSlices * p.numSubslicesPerSlice * p.numEUsPerSubslice;
}

static uint64_t zc_at(zet_metric_group_handle_t group, const zc_values *v, uint32_t result, const char *name) {
    return zc_u64(v->values[result * zc_metric_count(group) + zc_metric_index(group, name)]);
}

static double zc_fat(zet_metric_group_handle_t group, const zc_values *v, uint32_t result, const char *name) {
    return zc_f64(v->values[result * zc_metric_count(group) + zc_metric_index(group, name)]);
}

static float zc_percent(uint64_t a, uint64_t b, uint64_t c) {
    double v = (100.0 * (double)a) / ((double)b * (double)c);
    return (float)(v < 100.0 ? v : 100.0);
}

/* Two typed values are the same: the same type and the same value of that type (padding bytes are not values). */
static bool zc_same_values(const zet_typed_value_t *a, const zet_typed_value_t *b, uint32_t count) {
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

/* ---- Streamer snapshots --------------------------------------------------------------------------------------- */

/* TestOa: the timestamp and the GPU clock wrap at 32 bits between the first two reports. */
static void calc_stream_pairs_with_32_bit_wraps(void **state) {
    (void)state;
    zc_skip_unless_fake();
    zet_metric_group_handle_t group = zc_need_group(zc_device(), "TestOa", ZC_TIME_BASED);
    uint8_t raw[4 * ZC_OA_RECORD_SIZE];
    zc_oa_snapshot s = {.sequence = 10, .reason = 1, .context_valid = true, .context_id = 0x100};
    s.timestamp = 0xffffff00u;
    s.gpu_ticks = 0xfffffff0u;
    s.b[1] = 0xfffffff0u;
    s.b[3] = 100;
    s.b[7] = 0xffffffffu;
    zc_write_oa(raw, &s);
    s.sequence = 11;
    s.timestamp = 0x100; /* + 0x200 ticks across the wrap */
    s.gpu_ticks = 0x10;  /* + 0x20 */
    s.b[1] = 0x10;
    s.b[3] = 116;
    s.b[7] = 20; /* + 21 */
    zc_write_oa(raw + ZC_OA_RECORD_SIZE, &s);
    s.sequence = 12;
    s.reason = 2;
    s.marker = 7;
    s.context_valid = false;
    s.timestamp = 0x300;
    s.gpu_ticks = 0x30;
    zc_write_oa(raw + 2 * ZC_OA_RECORD_SIZE, &s);

    uint32_t count = 0;
    zc_assert_success(zetMetricGroupCalculateMetricValues(group, ZC_PLAIN, 3 * ZC_OA_RECORD_SIZE, raw, &count, NULL));
    assert_int_equal(count, 3 * zc_metric_count(group)); /* the count is a bound: pairs give one fewer */
    zc_values v = zc_calculate(group, ZC_PLAIN, raw, 3 * ZC_OA_RECORD_SIZE);
    assert_int_equal(v.count, 2 * zc_metric_count(group));
    uint64_t hz = zc_hz(), time = 0x200 * 1000000000ull / hz;
    assert_int_equal(zc_at(group, &v, 0, "GpuTime"), time);
    assert_int_equal(zc_at(group, &v, 0, "GpuCoreClocks"), 0x20);
    assert_int_equal(zc_at(group, &v, 0, "AvgGpuCoreFrequencyMHz"), 0x20 * 1000 / time);
    assert_int_equal(zc_at(group, &v, 0, "Counter1"), 0x20);
    assert_int_equal(zc_at(group, &v, 0, "Counter3"), 16);
    assert_int_equal(zc_at(group, &v, 0, "Counter7"), 21);
    assert_int_equal(zc_at(group, &v, 0, "Counter8"), 1);
    assert_int_equal(zc_at(group, &v, 0, "QueryBeginTime"), 0xffffff00ull * 1000000000ull / hz);
    assert_int_equal(zc_at(group, &v, 0, "ReportReason"), 1);
    assert_int_equal(zc_at(group, &v, 0, "ContextIdValid"), 1);
    assert_int_equal(zc_at(group, &v, 0, "ContextId"), 0x100);
    assert_int_equal(zc_at(group, &v, 0, "StreamMarker"), 0);
    assert_int_equal(zc_at(group, &v, 1, "ReportReason"), 2);
    assert_int_equal(zc_at(group, &v, 1, "ContextIdValid"), 0);
    assert_int_equal(zc_at(group, &v, 1, "StreamMarker"), 7);
    assert_int_equal(zc_at(group, &v, 1, "Counter1"), 0); /* B1 did not move */
    assert_int_equal(zc_at(group, &v, 1, "GpuCoreClocks"), 0x20);
    free(v.values);

    /* The next call continues the stream: the carried last report pairs with the first new one. */
    s.sequence = 13;
    s.timestamp = 0x500;
    s.gpu_ticks = 0x50;
    zc_write_oa(raw + 3 * ZC_OA_RECORD_SIZE, &s);
    v = zc_calculate(group, ZC_PLAIN, raw + 3 * ZC_OA_RECORD_SIZE, ZC_OA_RECORD_SIZE);
    assert_int_equal(v.count, zc_metric_count(group));
    assert_int_equal(zc_at(group, &v, 0, "GpuCoreClocks"), 0x20);
    free(v.values);
    /* The same data again does not continue the stream (its sequence number does not follow): no pair. */
    v = zc_calculate(group, ZC_PLAIN, raw + 3 * ZC_OA_RECORD_SIZE, ZC_OA_RECORD_SIZE);
    assert_int_equal(v.count, 0);
    free(v.values);
}

/* ComputeBasic: 40-bit counters split into 32 low bits and a high byte, wrapping between reports. */
static void calc_stream_40_bit_counters(void **state) {
    (void)state;
    zc_skip_unless_fake();
    if (zc_meteor_lake())
        skip();
    zet_metric_group_handle_t group = zc_need_group(zc_device(), "ComputeBasic", ZC_TIME_BASED);
    const uint64_t wrap = 1ull << 40;
    uint8_t raw[3 * ZC_OA_RECORD_SIZE];
    zc_oa_snapshot s = {.sequence = 2000, .reason = 1, .timestamp = 1000};
    s.a[0] = wrap - 100;  /* xve_active */
    s.a[1] = 0x12345678;  /* xve_stall */
    s.a[13] = wrap - 1;   /* l3_read_bytes */
    s.a[19] = wrap - 999; /* gpu_clocks */
    zc_write_oa(raw, &s);
    s.sequence = 2001;
    s.timestamp = 1384;
    s.a[0] = 50;                       /* + 150 */
    s.a[1] = 0x12345678 + 0x100000000; /* + 2^32: the high byte moves */
    s.a[13] = 4096;                    /* + 4097 */
    s.a[19] = 1001;                    /* + 2000 */
    zc_write_oa(raw + ZC_OA_RECORD_SIZE, &s);
    s.sequence = 2002;
    s.timestamp = 1768;
    s.a[0] += 1ull << 39; /* far more than the clocks allow: clamped at 100 percent */
    s.a[19] += 10;
    zc_write_oa(raw + 2 * ZC_OA_RECORD_SIZE, &s);
    zc_values v = zc_calculate(group, ZC_PLAIN, raw, sizeof raw);
    assert_int_equal(v.count, 2 * zc_metric_count(group));
    uint64_t xves = zc_tile_xves();
    assert_int_equal(zc_at(group, &v, 0, "GpuSliceClocksCount"), 2000);
    assert_int_equal(zc_at(group, &v, 0, "L3_BYTE_READ"), 4097);
    assert_true(zc_fat(group, &v, 0, "XVE_ACTIVE") == zc_percent(150, xves, 2000));
    assert_true(zc_fat(group, &v, 0, "XVE_STALL") == zc_percent(1ull << 32, xves, 2000));
    assert_true(zc_fat(group, &v, 0, "XVE_BUSY") == zc_percent(150 + (1ull << 32), xves, 2000));
    assert_true(zc_fat(group, &v, 1, "XVE_ACTIVE") == 100.0);
    free(v.values);

    /* MAX_METRIC_VALUES: one set, each metric's maximum over the results. */
    uint32_t count = 0;
    zc_assert_success(zetMetricGroupCalculateMetricValues(group, ZC_MAX, sizeof raw, raw, &count, NULL));
    assert_int_equal(count, zc_metric_count(group));
    s.sequence = 3000; /* a stream of its own: no carried report */
    zc_write_oa(raw, &s);
    v = zc_calculate(group, ZC_MAX, raw, ZC_OA_RECORD_SIZE); /* one report: no result */
    assert_int_equal(v.count, 0);
    free(v.values);
    s.sequence = 4000;
    zc_write_oa(raw, &s);
    zc_oa_snapshot t = s;
    t.sequence = 4001;
    t.a[0] = s.a[0] + 10;
    t.a[19] = s.a[19] + 1000;
    t.timestamp = s.timestamp + 384;
    zc_write_oa(raw + ZC_OA_RECORD_SIZE, &t);
    t.sequence = 4002;
    t.a[0] += 30;
    t.a[19] += 1000;
    t.timestamp += 384;
    zc_write_oa(raw + 2 * ZC_OA_RECORD_SIZE, &t);
    v = zc_calculate(group, ZC_MAX, raw, sizeof raw);
    assert_int_equal(v.count, zc_metric_count(group));
    assert_true(zc_fat(group, &v, 0, "XVE_ACTIVE") == zc_percent(30, xves, 1000));
    assert_int_equal(zc_at(group, &v, 0, "GpuSliceClocksCount"), 1000);
    free(v.values);
}

/* A smaller count than the bound gets exactly that many values, the last report possibly cut. */
static void calc_value_count_limits_the_values(void **state) {
    (void)state;
    zc_skip_unless_fake();
    zet_metric_group_handle_t group = zc_need_group(zc_device(), "TestOa", ZC_TIME_BASED);
    uint8_t raw[3 * ZC_OA_RECORD_SIZE];
    for (uint16_t i = 0; i < 3; i++)
        zc_write_oa(raw + i * ZC_OA_RECORD_SIZE,
                    &(zc_oa_snapshot){.sequence = (uint16_t)(5000 + i), .timestamp = 100u * i, .gpu_ticks = 7u * i});
    zet_typed_value_t values[8];
    uint32_t count = 5;
    zc_assert_success(zetMetricGroupCalculateMetricValues(group, ZC_PLAIN, sizeof raw, raw, &count, values));
    assert_int_equal(count, 5);
    assert_int_equal(zc_u64(values[zc_metric_index(group, "GpuCoreClocks")]), 7);
}

/* ---- Query records -------------------------------------------------------------------------------------------- */

static void calc_query_records(void **state) {
    (void)state;
    zc_skip_unless_fake();
    if (zc_meteor_lake())
        skip();
    zet_metric_group_handle_t group = zc_need_group(zc_device(), "ComputeBasic", ZC_EVENT_BASED);
    uint8_t raw[2 * ZC_QUERY_RECORD_SIZE];
    zc_query_record q = {
        .flags = 0x4, .begin_ns = 123456, .duration_ns = 1000, .ticks = 38, .gpu_ticks = 1600, .context_id = 0x102};
    q.a[0] = 80000;    /* xve_active */
    q.a[3] = 64;       /* threads */
    q.a[16] = 1 << 20; /* mem_write_bytes */
    q.a[19] = 1600;    /* gpu_clocks */
    zc_write_query(raw, &q);
    q.flags = 0x1;
    q.a[0] = 0;
    zc_write_query(raw + ZC_QUERY_RECORD_SIZE, &q);
    uint32_t count = 0;
    zc_assert_success(zetMetricGroupCalculateMetricValues(group, ZC_PLAIN, sizeof raw, raw, &count, NULL));
    assert_int_equal(count, 2 * zc_metric_count(group));
    zc_values v = zc_calculate(group, ZC_PLAIN, raw, sizeof raw);
    assert_int_equal(v.count, 2 * zc_metric_count(group)); /* one result per query record */
    assert_int_equal(zc_at(group, &v, 0, "GpuTime"), 1000);
    assert_int_equal(zc_at(group, &v, 0, "GpuCoreClocks"), 1600);
    assert_int_equal(zc_at(group, &v, 0, "AvgGpuCoreFrequencyMHz"), 1600);
    assert_int_equal(zc_at(group, &v, 0, "XVE_COMPUTE_THREAD_COUNT"), 64);
    assert_int_equal(zc_at(group, &v, 0, "GPU_MEMORY_BYTE_WRITE"), 1 << 20);
    assert_true(zc_fat(group, &v, 0, "XVE_ACTIVE") == zc_percent(80000, zc_tile_xves(), 1600));
    assert_int_equal(zc_at(group, &v, 0, "QueryBeginTime"), 123456);
    assert_int_equal(zc_at(group, &v, 0, "QuerySplitOccurred"), 1);
    assert_int_equal(zc_at(group, &v, 0, "ReportError"), 0);
    assert_int_equal(zc_at(group, &v, 0, "ContextId"), 0x102);
    assert_int_equal(zc_at(group, &v, 1, "ReportError"), 1);
    assert_int_equal(zc_at(group, &v, 1, "QuerySplitOccurred"), 0);
    free(v.values);
}

/* MAX_METRIC_VALUES over query records: one result holding each metric's maximum over the records (the flags too),
 * as the Exp call gives it for the same data. */
static void calc_max_of_query_records(void **state) {
    (void)state;
    zc_skip_unless_fake();
    zet_metric_group_handle_t group = zc_need_group(zc_device(), "TestOa", ZC_EVENT_BASED);
    static const struct {
        uint64_t begin, duration, clocks, b1, b7;
        uint32_t flags;
    } records[3] = {{10, 1000, 300, 30, 5, 0}, {30, 2000, 900, 10, 50, 0x1}, {20, 3000, 600, 20, 7, 0x4}};
    uint8_t raw[3 * ZC_QUERY_RECORD_SIZE];
    uint64_t top[6] = {0}; /* GpuTime, GpuCoreClocks, AvgGpuCoreFrequencyMHz, Counter1, Counter7, QueryBeginTime */
    for (int i = 0; i < 3; i++) {
        zc_query_record q = {.flags = records[i].flags,
                             .begin_ns = records[i].begin,
                             .duration_ns = records[i].duration,
                             .gpu_ticks = records[i].clocks};
        q.b[1] = records[i].b1;
        q.b[7] = records[i].b7;
        zc_write_query(raw + i * ZC_QUERY_RECORD_SIZE, &q);
        const uint64_t values[6] = {
            records[i].duration, records[i].clocks, records[i].clocks * 1000 / records[i].duration,
            records[i].b1,       records[i].b7,     records[i].begin};
        for (int m = 0; m < 6; m++)
            top[m] = values[m] > top[m] ? values[m] : top[m];
    }
    uint32_t count = 0;
    zc_assert_success(zetMetricGroupCalculateMetricValues(group, ZC_MAX, sizeof raw, raw, &count, NULL));
    assert_int_equal(count, zc_metric_count(group));
    zc_values v = zc_calculate(group, ZC_MAX, raw, sizeof raw);
    assert_int_equal(v.count, zc_metric_count(group));
    static const char *const names[6] = {"GpuTime",  "GpuCoreClocks", "AvgGpuCoreFrequencyMHz",
                                         "Counter1", "Counter7",      "QueryBeginTime"};
    for (int m = 0; m < 6; m++)
        assert_int_equal(zc_at(group, &v, 0, names[m]), top[m]);
    assert_int_equal(zc_at(group, &v, 0, "ReportError"), 1);
    assert_int_equal(zc_at(group, &v, 0, "QuerySplitOccurred"), 1);
    assert_int_equal(zc_at(group, &v, 0, "ReportLost"), 0);
    zc_sets s = zc_calculate_sets(group, ZC_MAX, raw, sizeof raw);
    assert_int_equal(s.num_sets, 1);
    assert_int_equal(s.counts[0], v.count);
    assert_true(zc_same_values(s.values, v.values, v.count));
    zc_sets_free(&s);
    free(v.values);
}

/* ---- EU stall samples ----------------------------------------------------------------------------------------- */

static void calc_eu_stall_samples_summed_per_ip(void **state) {
    (void)state;
    zc_skip_unless_fake();
    zet_metric_group_handle_t group = zc_need_group(zc_device(), "EuStallSampling", ZC_TIME_BASED);
    uint8_t raw[3 * ZC_EU_STALL_RECORD_SIZE];
    const uint32_t a[9] = {5, 1, 2, 3, 4, 5, 6, 7, 8}, b[9] = {10, 0, 0, 0, 0, 0, 0, 0, 1}, c[9] = {1};
    zc_write_eu(raw, 0x20, a, 0, 1);
    zc_write_eu(raw + ZC_EU_STALL_RECORD_SIZE, 0x10 | (1ull << 40), b, 0, 2); /* bits above 28 are not the IP */
    zc_write_eu(raw + 2 * ZC_EU_STALL_RECORD_SIZE, 0x20, c, 0, 3);
    uint32_t count = 0;
    zc_assert_success(zetMetricGroupCalculateMetricValues(group, ZC_PLAIN, sizeof raw, raw, &count, NULL));
    assert_int_equal(count, 3 * zc_metric_count(group));
    zc_values v = zc_calculate(group, ZC_PLAIN, raw, sizeof raw);
    assert_int_equal(v.count, 2 * zc_metric_count(group));
    assert_int_equal(zc_at(group, &v, 0, "IP"), 0x10);
    assert_int_equal(zc_at(group, &v, 0, "Active"), 10);
    assert_int_equal(zc_at(group, &v, 0, "OtherStall"), 1);
    assert_int_equal(zc_at(group, &v, 1, "IP"), 0x20);
    assert_int_equal(zc_at(group, &v, 1, "Active"), 6);
    assert_int_equal(zc_at(group, &v, 1, "ControlStall"), 1);
    assert_int_equal(zc_at(group, &v, 1, "SendStall"), 3);
    assert_int_equal(zc_at(group, &v, 1, "OtherStall"), 8);
    free(v.values);
    v = zc_calculate(group, ZC_MAX, raw, sizeof raw);
    assert_int_equal(v.count, zc_metric_count(group));
    assert_int_equal(zc_at(group, &v, 0, "IP"), 0x20);
    assert_int_equal(zc_at(group, &v, 0, "Active"), 10);
    free(v.values);
}

/* ---- Multi-tile frames ---------------------------------------------------------------------------------------- */

static void zc_test_oa_stream(uint8_t *out, uint32_t n, uint16_t first_sequence, uint32_t ticks_step) {
    for (uint32_t i = 0; i < n; i++)
        zc_write_oa(out + i * ZC_OA_RECORD_SIZE, &(zc_oa_snapshot){.sequence = (uint16_t)(first_sequence + i),
                                                                   .timestamp = 1000 + i * 384,
                                                                   .gpu_ticks = i * ticks_step});
}

static void calc_multi_tile_frame(void **state) {
    (void)state;
    zc_skip_unless_fake();
    if (zc_subdevice_count(zc_device()) < 2)
        skip();
    zet_metric_group_handle_t group = zc_need_group(zc_device(), "TestOa", ZC_TIME_BASED);
    uint8_t tile0[2 * ZC_OA_RECORD_SIZE], tile1[3 * ZC_OA_RECORD_SIZE];
    zc_test_oa_stream(tile0, 2, 6000, 11);
    zc_test_oa_stream(tile1, 3, 7000, 13);
    const uint8_t *sections[2] = {tile0, tile1};
    const size_t sizes[2] = {sizeof tile0, sizeof tile1};
    uint8_t frame[48 + sizeof tile0 + sizeof tile1];
    size_t size = zc_write_frame(frame, 2, sections, sizes);
    assert_int_equal(size, sizeof frame);
    uint32_t mc = zc_metric_count(group), count = 0;
    /* Only the multi-set call reads frames. */
    zc_assert_result(zetMetricGroupCalculateMetricValues(group, ZC_PLAIN, size, frame, &count, NULL),
                     ZE_RESULT_ERROR_INVALID_ARGUMENT);
    uint32_t sets = 0, total = 0;
    zc_assert_success(
        zetMetricGroupCalculateMultipleMetricValuesExp(group, ZC_PLAIN, size, frame, &sets, &total, NULL, NULL));
    assert_int_equal(sets, 2);
    assert_int_equal(total, 5 * mc);
    zc_sets s = zc_calculate_sets(group, ZC_PLAIN, frame, size);
    assert_int_equal(s.num_sets, 2);
    assert_int_equal(s.counts[0], mc);
    assert_int_equal(s.counts[1], 2 * mc);
    uint32_t clocks = zc_metric_index(group, "GpuCoreClocks");
    assert_int_equal(zc_u64(s.values[clocks]), 11);
    assert_int_equal(zc_u64(s.values[mc + clocks]), 13);
    assert_int_equal(zc_u64(s.values[2 * mc + clocks]), 13);
    zc_sets_free(&s);

    /* Fewer sets or values asked for: only those are calculated. */
    uint32_t counts[2] = {0, 0};
    zet_typed_value_t values[64];
    sets = 1;
    total = 64;
    zc_test_oa_stream(tile0, 2, 6100, 11);
    zc_test_oa_stream(tile1, 3, 7100, 13);
    size = zc_write_frame(frame, 2, sections, sizes);
    zc_assert_success(
        zetMetricGroupCalculateMultipleMetricValuesExp(group, ZC_PLAIN, size, frame, &sets, &total, counts, values));
    assert_int_equal(sets, 1);
    assert_int_equal(total, mc);
    assert_int_equal(counts[0], mc);

    /* Plain data in the multi-set call: one set. */
    zc_test_oa_stream(tile1, 3, 7200, 13);
    s = zc_calculate_sets(group, ZC_PLAIN, tile1, sizeof tile1);
    assert_int_equal(s.num_sets, 1);
    assert_int_equal(s.counts[0], 2 * mc);
    zc_sets_free(&s);
}

/* MAX_METRIC_VALUES through the Exp call: one set of maxima per section of a frame, each over its own tile's data (a
 * section of one snapshot has no pair, so no value), and one set for plain data. MAX calls keep no record. */
static void calc_max_through_the_exp_call(void **state) {
    (void)state;
    zc_skip_unless_fake();
    zet_metric_group_handle_t group = zc_need_group(zc_device(), "TestOa", ZC_TIME_BASED);
    uint32_t mc = zc_metric_count(group), clocks = zc_metric_index(group, "GpuCoreClocks");
    static const uint32_t steps[3] = {10, 40, 20};
    uint8_t raw[4 * ZC_OA_RECORD_SIZE];
    zc_write_oa(raw, &(zc_oa_snapshot){.sequence = 21990});
    zc_values kept = zc_calculate(group, ZC_PLAIN, raw, ZC_OA_RECORD_SIZE); /* the kept record: 21990 */
    free(kept.values);
    zc_oa_snapshot snapshot = {.sequence = 22000, .timestamp = 1000};
    for (int i = 0; i < 4; i++) {
        zc_write_oa(raw + i * ZC_OA_RECORD_SIZE, &snapshot);
        snapshot.sequence++;
        snapshot.timestamp += 384;
        snapshot.gpu_ticks += i < 3 ? steps[i] : 0;
    }
    zc_sets s = zc_calculate_sets(group, ZC_MAX, raw, sizeof raw);
    assert_int_equal(s.num_sets, 1);
    assert_int_equal(s.counts[0], mc);
    assert_int_equal(zc_u64(s.values[clocks]), 40);
    zc_sets_free(&s);
    /* The MAX call kept no record: the report that follows (22004) has nothing to pair with. */
    zc_write_oa(raw, &snapshot);
    s = zc_calculate_sets(group, ZC_PLAIN, raw, ZC_OA_RECORD_SIZE);
    assert_int_equal(s.counts[0], 0);
    zc_sets_free(&s);
    if (zc_subdevice_count(zc_device()) < 2)
        return;
    uint8_t tile0[3 * ZC_OA_RECORD_SIZE], tile1[ZC_OA_RECORD_SIZE];
    zc_test_oa_stream(tile0, 3, 22100, 7);
    zc_test_oa_stream(tile1, 1, 22200, 9);
    const uint8_t *sections[2] = {tile0, tile1};
    const size_t sizes[2] = {sizeof tile0, sizeof tile1};
    uint8_t frame[48 + sizeof tile0 + sizeof tile1];
    size_t size = zc_write_frame(frame, 2, sections, sizes);
    uint32_t sets = 0, total = 0;
    zc_assert_success(
        zetMetricGroupCalculateMultipleMetricValuesExp(group, ZC_MAX, size, frame, &sets, &total, NULL, NULL));
    assert_int_equal(sets, 2);
    assert_int_equal(total, 2 * mc); /* a bound: a set of maxima per section with a record */
    s = zc_calculate_sets(group, ZC_MAX, frame, size);
    assert_int_equal(s.num_sets, 2);
    assert_int_equal(s.counts[0], mc);
    assert_int_equal(s.counts[1], 0);
    assert_int_equal(zc_u64(s.values[clocks]), 7);
    zc_sets_free(&s);
}

/* ---- Malformed data ------------------------------------------------------------------------------------------- */

static ze_result_t zc_plain_result(zet_metric_group_handle_t group, const uint8_t *data, size_t size) {
    uint32_t count = 0;
    return zetMetricGroupCalculateMetricValues(group, ZC_PLAIN, size, data, &count, NULL);
}

static ze_result_t zc_multi_result(zet_metric_group_handle_t group, const uint8_t *data, size_t size) {
    uint32_t sets = 0, total = 0;
    return zetMetricGroupCalculateMultipleMetricValuesExp(group, ZC_PLAIN, size, data, &sets, &total, NULL, NULL);
}

static void calc_malformed_sizes(void **state) {
    (void)state;
    zet_metric_group_handle_t stream = zc_need_group(zc_device(), "TestOa", ZC_TIME_BASED);
    zet_metric_group_handle_t query = zc_need_group(zc_device(), "TestOa", ZC_EVENT_BASED);
    uint8_t raw[2 * ZC_QUERY_RECORD_SIZE];
    memset(raw, 0, sizeof raw);
    uint32_t count = 0;
    zc_assert_result(zetMetricGroupCalculateMetricValues(stream, ZC_PLAIN, 16, NULL, &count, NULL),
                     ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zetMetricGroupCalculateMetricValues(stream, ZC_PLAIN, 16, raw, NULL, NULL),
                     ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(
        zetMetricGroupCalculateMetricValues(stream, (zet_metric_group_calculation_type_t)2, 16, raw, &count, NULL),
        ZE_RESULT_ERROR_INVALID_ENUMERATION);
    zc_skip_unless_fake();
    zc_assert_result(zc_plain_result(stream, raw, 0), ZE_RESULT_NOT_READY);
    zc_assert_result(zc_multi_result(stream, raw, 0), ZE_RESULT_NOT_READY);
    static const size_t bad_stream[] = {1, 255, 257, 511, ZC_QUERY_RECORD_SIZE};
    for (size_t i = 0; i < ZC_COUNT(bad_stream); i++) {
        zc_assert_result(zc_plain_result(stream, raw, bad_stream[i]), ZE_RESULT_ERROR_INVALID_SIZE);
        zc_assert_result(zc_multi_result(stream, raw, bad_stream[i]), ZE_RESULT_ERROR_INVALID_SIZE);
    }
    static const size_t bad_query[] = {1, ZC_OA_RECORD_SIZE, ZC_QUERY_RECORD_SIZE + 1, 2 * ZC_QUERY_RECORD_SIZE - 8};
    for (size_t i = 0; i < ZC_COUNT(bad_query); i++)
        zc_assert_result(zc_plain_result(query, raw, bad_query[i]), ZE_RESULT_ERROR_INVALID_SIZE);
    zet_metric_group_handle_t eu = zc_find_group(zc_device(), "EuStallSampling", ZC_TIME_BASED);
    if (eu != NULL) {
        zc_assert_result(zc_plain_result(eu, raw, 63), ZE_RESULT_ERROR_INVALID_SIZE);
        zc_assert_result(zc_plain_result(eu, raw, 65), ZE_RESULT_ERROR_INVALID_SIZE);
        zc_assert_success(zc_plain_result(eu, raw, 128));
    }
}

/* An exact-size heap copy, so that AddressSanitizer sees a read past the end. */
static uint8_t *zc_heap_copy(const uint8_t *data, size_t size) {
    uint8_t *copy = malloc(size > 0 ? size : 1);
    assert_non_null(copy);
    memcpy(copy, data, size);
    return copy;
}

/* The results of both calls for `size` bytes of `data`: *plain of zetMetricGroupCalculateMetricValues, *multi of the
 * Exp call. */
static void zc_both_results(zet_metric_group_handle_t group, const uint8_t *data, size_t size, ze_result_t *plain,
                            ze_result_t *multi) {
    uint8_t *copy = zc_heap_copy(data, size);
    *plain = zc_plain_result(group, copy, size);
    *multi = zc_multi_result(group, copy, size);
    free(copy);
}

static void zc_expect_both(zet_metric_group_handle_t group, const uint8_t *data, size_t size, ze_result_t plain,
                           ze_result_t multi, const char *what) {
    ze_result_t got_plain, got_multi;
    zc_both_results(group, data, size, &got_plain, &got_multi);
    if (got_plain != plain || got_multi != multi)
        zc_fail("%s (%zu bytes): %s and %s, expected %s and %s", what, size, zc_result_name(got_plain),
                zc_result_name(got_multi), zc_result_name(plain), zc_result_name(multi));
}

/* docs/metrics-raw-formats.md, "Frame or plain data": data is a frame exactly when it holds at least 16 bytes and
 * starts with the magic. Shorter data is plain whatever it starts with (and no record is that short); a record
 * written by hand that starts with the magic makes its data a frame, which the plain call refuses and the Exp call
 * validates as a frame. The same record without the magic calculates. */
static void calc_data_starting_with_the_magic_is_a_frame(void **state) {
    (void)state;
    zc_skip_unless_fake();
    zet_metric_group_handle_t groups[3] = {zc_need_group(zc_device(), "TestOa", ZC_TIME_BASED),
                                           zc_need_group(zc_device(), "TestOa", ZC_EVENT_BASED),
                                           zc_need_group(zc_device(), "EuStallSampling", ZC_TIME_BASED)};
    uint8_t raw[ZC_QUERY_RECORD_SIZE];
    memset(raw, 0, sizeof raw);
    zc_put32(raw, ZC_FRAME_MAGIC);
    for (int g = 0; g < 3; g++) {
        for (size_t size = 1; size < 16; size++)
            zc_expect_both(groups[g], raw, size, ZE_RESULT_ERROR_INVALID_SIZE, ZE_RESULT_ERROR_INVALID_SIZE,
                           "plain data shorter than a frame header");
    }
    /* 16 bytes with the magic: a frame header announcing one section (32 header bytes) that the data cannot hold. */
    raw[4] = 1;
    raw[6] = 32;
    zc_put32(raw + 8, 1);
    zc_expect_both(groups[0], raw, 16, ZE_RESULT_ERROR_INVALID_ARGUMENT, ZE_RESULT_ERROR_INVALID_SIZE,
                   "a 16-byte frame header");

    zc_write_oa(raw, &(zc_oa_snapshot){.sequence = 21000, .timestamp = 5});
    zc_put32(raw, ZC_FRAME_MAGIC); /* bytes 4..5 (context id) read as the frame version: 0 */
    zc_expect_both(groups[0], raw, ZC_OA_RECORD_SIZE, ZE_RESULT_ERROR_INVALID_ARGUMENT,
                   ZE_RESULT_ERROR_INVALID_ARGUMENT, "an OA snapshot starting with the magic");
    zc_write_oa(raw, &(zc_oa_snapshot){.sequence = 21000, .timestamp = 5});
    zc_expect_both(groups[0], raw, ZC_OA_RECORD_SIZE, ZE_RESULT_SUCCESS, ZE_RESULT_SUCCESS, "the same snapshot");

    zc_query_record q = {.duration_ns = 1000, .gpu_ticks = 1600};
    zc_write_query(raw, &q);
    zc_put32(raw, ZC_FRAME_MAGIC); /* instead of the tag; the flags (0) read as the frame version */
    zc_expect_both(groups[1], raw, ZC_QUERY_RECORD_SIZE, ZE_RESULT_ERROR_INVALID_ARGUMENT,
                   ZE_RESULT_ERROR_INVALID_ARGUMENT, "a query record starting with the magic");
    zc_put32(raw, 0); /* the tag is not checked */
    zc_expect_both(groups[1], raw, ZC_QUERY_RECORD_SIZE, ZE_RESULT_SUCCESS, ZE_RESULT_SUCCESS,
                   "a query record with another tag");

    /* An EU stall IP whose bits above 28 (masked away) make the first word the magic. */
    const uint32_t counts[9] = {1};
    zc_write_eu(raw, ZC_FRAME_MAGIC, counts, 0, 0);
    zc_expect_both(groups[2], raw, ZC_EU_STALL_RECORD_SIZE, ZE_RESULT_ERROR_INVALID_ARGUMENT,
                   ZE_RESULT_ERROR_INVALID_ARGUMENT, "an EU stall sample starting with the magic");
    zc_write_eu(raw, ZC_FRAME_MAGIC & ((1u << 29) - 1), counts, 0, 0);
    zc_values v = zc_calculate(groups[2], ZC_PLAIN, raw, ZC_EU_STALL_RECORD_SIZE);
    assert_int_equal(zc_at(groups[2], &v, 0, "IP"), ZC_FRAME_MAGIC & ((1u << 29) - 1));
    free(v.values);
}

/* A valid two-set frame of TestOa snapshots in buf (header 48 bytes, sections of one record each). */
static size_t zc_valid_frame(uint8_t *buf) {
    uint8_t record[ZC_OA_RECORD_SIZE];
    zc_write_oa(record, &(zc_oa_snapshot){.sequence = 9000});
    const uint8_t *sections[2] = {record, record};
    const size_t sizes[2] = {sizeof record, sizeof record};
    return zc_write_frame(buf, 2, sections, sizes);
}

static void calc_malformed_frames(void **state) {
    (void)state;
    zc_skip_unless_fake();
    if (zc_subdevice_count(zc_device()) < 2)
        skip();
    zet_metric_group_handle_t group = zc_need_group(zc_device(), "TestOa", ZC_TIME_BASED);
    uint8_t buf[48 + 2 * ZC_OA_RECORD_SIZE];
    size_t size = zc_valid_frame(buf);
    zc_assert_success(zc_multi_result(group, buf, size));
    static const struct {
        size_t offset; /* byte to overwrite with a 32-bit value */
        uint32_t value;
        ze_result_t expected;
        const char *what;
    } cases[] = {
        {4, 2, ZE_RESULT_ERROR_INVALID_ARGUMENT, "version 2"},
        {8, 0, ZE_RESULT_ERROR_INVALID_ARGUMENT, "no sets"},
        {8, 65, ZE_RESULT_ERROR_INVALID_ARGUMENT, "65 sets"},
        {8, 3, ZE_RESULT_ERROR_INVALID_ARGUMENT, "header size not 16 + 16 x count"},
        {16, 7, ZE_RESULT_ERROR_INVALID_ARGUMENT, "a tile the device does not have"},
        {32, 0, ZE_RESULT_ERROR_INVALID_ARGUMENT, "the same tile twice"},
        {24, 40, ZE_RESULT_ERROR_INVALID_SIZE, "a section inside the header"},
        {24, 48 + 2 * ZC_OA_RECORD_SIZE + 1, ZE_RESULT_ERROR_INVALID_SIZE, "a section past the end"},
        {28, ZC_OA_RECORD_SIZE + 1, ZE_RESULT_ERROR_INVALID_SIZE, "a section not a multiple of the record"},
        {44, 2 * ZC_OA_RECORD_SIZE, ZE_RESULT_ERROR_INVALID_SIZE, "a section running past the end"},
        {40, 0xfffffff0u, ZE_RESULT_ERROR_INVALID_SIZE, "an offset that wraps around with the size"},
    };
    for (size_t i = 0; i < ZC_COUNT(cases); i++) {
        size = zc_valid_frame(buf);
        if (cases[i].offset == 4) {
            buf[4] = (uint8_t)cases[i].value;
            buf[5] = 0;
        } else {
            zc_put32(buf + cases[i].offset, cases[i].value);
        }
        ze_result_t got = zc_multi_result(group, buf, size);
        if (got != cases[i].expected)
            zc_fail("%s: %s, expected %s", cases[i].what, zc_result_name(got), zc_result_name(cases[i].expected));
    }
    /* Shorter than the header. */
    size = zc_valid_frame(buf);
    zc_assert_result(zc_multi_result(group, buf, 15), ZE_RESULT_ERROR_INVALID_SIZE);
    zc_assert_result(zc_multi_result(group, buf, 40), ZE_RESULT_ERROR_INVALID_SIZE);
}

/* ---- Random data ---------------------------------------------------------------------------------------------- */

static uint64_t zc_random(uint64_t *x) {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

static size_t zc_random_size(uint64_t *seed) {
    static const size_t units[] = {1, 64, 256, 688};
    uint64_t r = zc_random(seed);
    size_t unit = units[r % ZC_COUNT(units)];
    return (r >> 8) % 6 * unit + ((r >> 16) % 4 == 0 ? (r >> 24) % 64 : 0);
}

/* Random bytes, and now and then a frame header with random entries over them. */
static void zc_random_data(uint8_t *data, size_t size, uint64_t *seed) {
    for (size_t i = 0; i < size; i++)
        data[i] = (uint8_t)zc_random(seed);
    if (size < 16 || zc_random(seed) % 3 != 0)
        return;
    uint32_t sets = (uint32_t)(zc_random(seed) % 4) + 1;
    zc_put32(data, ZC_FRAME_MAGIC);
    data[4] = 1;
    data[5] = 0;
    data[6] = (uint8_t)(16 + 16 * sets);
    data[7] = 0;
    zc_put32(data + 8, sets);
    for (uint32_t i = 0; i < sets && 16 + 16 * (i + 1) <= size; i++) {
        uint8_t *entry = data + 16 + 16 * i;
        zc_put32(entry, (uint32_t)(zc_random(seed) % 3));
        zc_put32(entry + 8, (uint32_t)(zc_random(seed) % (size + 8)));
        zc_put32(entry + 12, (uint32_t)(zc_random(seed) % (size + 8)));
    }
}

static bool zc_acceptable(ze_result_t r) {
    return r == ZE_RESULT_SUCCESS || r == ZE_RESULT_NOT_READY || r == ZE_RESULT_ERROR_INVALID_SIZE ||
           r == ZE_RESULT_ERROR_INVALID_ARGUMENT;
}

/* What both calls answered for one input: the count query's results and the values the real calls wrote. */
typedef struct zc_fuzz_outcome {
    ze_result_t plain;
    ze_result_t multi;
    uint64_t values; /* written by the real calls */
} zc_fuzz_outcome;

static void zc_check_acceptable(ze_result_t r, const char *call, size_t size) {
    if (!zc_acceptable(r))
        zc_fail("%s: %s for %zu bytes", call, zc_result_name(r), size);
}

/* zetMetricGroupCalculateMetricValues: the count query, then a real call with a random capacity up to the count. */
static void zc_fuzz_plain_call(zet_metric_group_handle_t group, zet_metric_group_calculation_type_t type,
                               const uint8_t *data, size_t size, uint64_t *seed, zc_fuzz_outcome *out) {
    uint32_t count = 0;
    out->plain = zetMetricGroupCalculateMetricValues(group, type, size, data, &count, NULL);
    zc_check_acceptable(out->plain, "count", size);
    if (out->plain != ZE_RESULT_SUCCESS || count == 0)
        return;
    count = (uint32_t)(zc_random(seed) % count) + 1;
    zet_typed_value_t *values = calloc(count, sizeof *values);
    assert_non_null(values);
    ze_result_t r = zetMetricGroupCalculateMetricValues(group, type, size, data, &count, values);
    free(values);
    zc_check_acceptable(r, "values", size);
    if (zc_driver_is_fake() && r != out->plain)
        zc_fail("values: %s after the count query's %s", zc_result_name(r), zc_result_name(out->plain));
    out->values += count;
}

/* The Exp call: the count query, then a real call with exactly the sets and values it answered. */
static void zc_fuzz_multi_call(zet_metric_group_handle_t group, zet_metric_group_calculation_type_t type,
                               const uint8_t *data, size_t size, zc_fuzz_outcome *out) {
    uint32_t sets = 0, total = 0;
    out->multi = zetMetricGroupCalculateMultipleMetricValuesExp(group, type, size, data, &sets, &total, NULL, NULL);
    zc_check_acceptable(out->multi, "sets", size);
    if (out->multi != ZE_RESULT_SUCCESS || sets == 0 || total == 0)
        return;
    uint32_t *counts = calloc(sets, sizeof *counts);
    zet_typed_value_t *values = calloc(total, sizeof *values);
    assert_true(counts != NULL && values != NULL);
    ze_result_t r =
        zetMetricGroupCalculateMultipleMetricValuesExp(group, type, size, data, &sets, &total, counts, values);
    free(counts);
    free(values);
    zc_check_acceptable(r, "set values", size);
    if (zc_driver_is_fake() && r != out->multi)
        zc_fail("set values: %s after the count query's %s", zc_result_name(r), zc_result_name(out->multi));
    out->values += total;
}

/* Both calls on an exact-size heap copy of the data, so that a read past the end is caught by AddressSanitizer. */
static zc_fuzz_outcome zc_fuzz_calls(zet_metric_group_handle_t group, const uint8_t *data, size_t size,
                                     uint64_t *seed) {
    zet_metric_group_calculation_type_t type = zc_random(seed) % 2 ? ZC_PLAIN : ZC_MAX;
    uint8_t *copy = zc_heap_copy(data, size);
    zc_fuzz_outcome out = {ZE_RESULT_SUCCESS, ZE_RESULT_SUCCESS, 0};
    zc_fuzz_plain_call(group, type, copy, size, seed, &out);
    zc_fuzz_multi_call(group, type, copy, size, &out);
    free(copy);
    return out;
}

static void zc_fuzz_group(zet_metric_group_handle_t group, uint64_t *seed, int iterations) {
    for (int i = 0; i < iterations; i++) {
        size_t size = zc_random_size(seed);
        uint8_t *data = malloc(size > 0 ? size : 1);
        assert_non_null(data);
        zc_random_data(data, size, seed);
        zc_fuzz_calls(group, data, size, seed);
        free(data);
    }
}

static void calc_random_bytes_and_sizes_never_crash(void **state) {
    (void)state;
    const zc_system *sys = zc_sys();
    uint64_t seed = 0x6d657472696373u;
    for (uint32_t d = 0; d < sys->num_all; d++) {
        zc_count_query query = zc_metric_group_query(sys->all[d]);
        uint32_t n = 0;
        zet_metric_group_handle_t *groups = zc_query_all(&query, &n);
        for (uint32_t g = 0; g < n; g++)
            zc_fuzz_group(groups[g], &seed, 150);
        free(groups);
    }
}

/* ---- Mutations of valid data: the record-reading paths, with inputs whose results the documents predict --------- */

#define ZC_MAX_TILES 64u

/* The tile ids a frame of `device`'s data names (docs/metrics-raw-formats.md): its sub-devices, or itself. */
static uint32_t zc_frame_tiles(ze_device_handle_t device, uint32_t ids[ZC_MAX_TILES]) {
    uint32_t n = zc_subdevice_count(device);
    for (uint32_t i = 0; i < n && i < ZC_MAX_TILES; i++)
        ids[i] = i;
    if (n > 0)
        return n < ZC_MAX_TILES ? n : ZC_MAX_TILES;
    ze_device_properties_t p = zc_device_props(device);
    ids[0] = (p.flags & ZE_DEVICE_PROPERTY_FLAG_SUBDEVICE) ? p.subdeviceId : 0;
    return 1;
}

/* The record size of a group's data: OA snapshots (streamers), OA query records, EU stall samples. */
static uint32_t zc_record_size(zet_metric_group_handle_t group) {
    zet_metric_group_properties_t p = zc_group_properties(group);
    if (!(p.samplingType & ZC_TIME_BASED))
        return ZC_QUERY_RECORD_SIZE;
    return strcmp(p.name, "EuStallSampling") == 0 ? ZC_EU_STALL_RECORD_SIZE : ZC_OA_RECORD_SIZE;
}

/* A well-formed record of that size (docs/metrics-raw-formats.md) with random contents: an OA snapshot's header holds
 * `sequence`, a timer or marker reason and zero bits 25-31; a query record its tag and flag bits 0-3; an EU stall
 * sample an IP of 29 bits. */
static void zc_random_record(uint8_t *rec, uint32_t record_size, uint16_t sequence, uint64_t *seed) {
    for (uint32_t i = 0; i < record_size; i++)
        rec[i] = (uint8_t)zc_random(seed);
    uint32_t word = (uint32_t)zc_random(seed);
    if (record_size == ZC_OA_RECORD_SIZE) {
        zc_put32(rec, sequence | (1u + (word & 1u)) << 16 | (word & 2u) << 23);
    } else if (record_size == ZC_QUERY_RECORD_SIZE) {
        zc_put32(rec, ZC_QUERY_TAG);
        zc_put32(rec + 4, word & 0xfu);
    } else {
        zc_put64(rec, word & ((1u << 29) - 1));
    }
}

/* A mutated input and the results docs/metrics-raw-formats.md predicts for it on the fake. */
typedef struct zc_mutant {
    uint8_t data[16 + 16 * ZC_MAX_TILES + ZC_MAX_TILES * 4 * ZC_QUERY_RECORD_SIZE];
    size_t size;
    size_t header; /* 0 for plain data */
    uint32_t sections;
    ze_result_t plain; /* expected of zetMetricGroupCalculateMetricValues */
    ze_result_t multi; /* expected of the Exp call */
} zc_mutant;

/* Valid data of the group: a frame with a section for every tile (two times in three) or plain records (plain data
 * of a multi-tile device is one set too), each part 0..3 (plain: 1..4) whole records, OA snapshots in consecutive
 * sequence. */
static void zc_valid_input(zc_mutant *m, uint32_t record_size, const uint32_t *tiles, uint32_t num_tiles,
                           uint64_t *seed) {
    bool framed = zc_random(seed) % 3 != 0;
    m->sections = framed ? num_tiles : 1;
    m->header = framed ? 16 + 16 * (size_t)m->sections : 0;
    size_t offset = m->header;
    uint16_t sequence = (uint16_t)zc_random(seed);
    if (framed) {
        memset(m->data, 0, m->header);
        zc_put32(m->data, ZC_FRAME_MAGIC);
        m->data[4] = 1;
        m->data[6] = (uint8_t)m->header;
        m->data[7] = (uint8_t)(m->header >> 8);
        zc_put32(m->data + 8, m->sections);
    }
    for (uint32_t i = 0; i < m->sections; i++) {
        uint32_t records = (uint32_t)(zc_random(seed) % 4) + (framed ? 0 : 1);
        if (framed) {
            zc_put32(m->data + 16 + 16 * i, tiles[i]);
            zc_put32(m->data + 24 + 16 * i, (uint32_t)offset);
            zc_put32(m->data + 28 + 16 * i, records * record_size);
        }
        for (uint32_t r = 0; r < records; r++, offset += record_size)
            zc_random_record(m->data + offset, record_size, sequence++, seed);
    }
    m->size = offset;
    m->multi = ZE_RESULT_SUCCESS;
    m->plain = framed ? ZE_RESULT_ERROR_INVALID_ARGUMENT : ZE_RESULT_SUCCESS;
}

/* Flips a few record bytes (never the frame header); plain data must still not start with the magic. */
static void zc_flip_record_bytes(zc_mutant *m, uint64_t *seed) {
    if (m->size == m->header)
        return;
    for (uint64_t flips = zc_random(seed) % 6; flips > 0; flips--)
        m->data[m->header + zc_random(seed) % (m->size - m->header)] ^= (uint8_t)(1 + zc_random(seed) % 255);
    if (m->header == 0 && zc_get32(m->data) == ZC_FRAME_MAGIC)
        m->data[0] ^= 1;
}

/* Cuts 1 .. record size - 1 bytes off the end: plain data is no longer whole records, a frame's last section (or its
 * header) runs past the end; data left shorter than 16 bytes is plain. */
static void zc_truncate(zc_mutant *m, uint32_t record_size, uint64_t *seed) {
    if (m->size < 2)
        return;
    size_t limit = m->size - 1 < record_size - 1 ? m->size - 1 : record_size - 1;
    m->size -= 1 + zc_random(seed) % limit;
    m->multi = ZE_RESULT_ERROR_INVALID_SIZE;
    m->plain = m->header > 0 && m->size >= 16 ? ZE_RESULT_ERROR_INVALID_ARGUMENT : ZE_RESULT_ERROR_INVALID_SIZE;
}

/* Moves one section's size by a whole record, or its offset onto the first section's: valid while the section stays
 * inside the data (sections may overlap). */
static void zc_resize_section(zc_mutant *m, uint32_t record_size, uint64_t *seed) {
    uint32_t i = (uint32_t)(zc_random(seed) % m->sections);
    uint8_t *entry = m->data + 16 + 16 * i;
    uint32_t offset = zc_get32(entry + 8), length = zc_get32(entry + 12);
    switch (zc_random(seed) % 3) {
    case 0:
        length += record_size;
        break;
    case 1:
        length = length >= record_size ? length - record_size : length;
        break;
    default:
        offset = (uint32_t)m->header;
        break;
    }
    zc_put32(entry + 8, offset);
    zc_put32(entry + 12, length);
    m->multi = (size_t)offset + length <= m->size ? ZE_RESULT_SUCCESS : ZE_RESULT_ERROR_INVALID_SIZE;
}

/* Names a random tile in one section: valid while every tile is the device's and named once. */
static void zc_retile_section(zc_mutant *m, const uint32_t *tiles, uint32_t num_tiles, uint64_t *seed) {
    uint32_t i = (uint32_t)(zc_random(seed) % m->sections), tile = (uint32_t)(zc_random(seed) % (num_tiles + 2));
    zc_put32(m->data + 16 + 16 * i, tile);
    bool known = false, repeated = false;
    for (uint32_t t = 0; t < num_tiles; t++)
        known = known || tiles[t] == tile;
    for (uint32_t j = 0; j < m->sections; j++)
        repeated = repeated || (j != i && zc_get32(m->data + 16 + 16 * j) == tile);
    m->multi = known && !repeated ? ZE_RESULT_SUCCESS : ZE_RESULT_ERROR_INVALID_ARGUMENT;
}

static void zc_mutate(zc_mutant *m, uint32_t record_size, const uint32_t *tiles, uint32_t num_tiles, uint64_t *seed) {
    zc_valid_input(m, record_size, tiles, num_tiles, seed);
    zc_flip_record_bytes(m, seed);
    uint64_t kind = zc_random(seed) % 4;
    if (kind == 1)
        zc_truncate(m, record_size, seed);
    else if (kind == 2 && m->header > 0)
        zc_resize_section(m, record_size, seed);
    else if (kind == 3 && m->header > 0)
        zc_retile_section(m, tiles, num_tiles, seed);
}

/* Returns how many of the inputs calculated to at least one value. */
static uint32_t zc_fuzz_mutations(zet_metric_group_handle_t group, ze_device_handle_t device, uint64_t *seed,
                                  uint32_t iterations) {
    uint32_t tiles[ZC_MAX_TILES], num_tiles = zc_frame_tiles(device, tiles), calculated = 0;
    uint32_t record_size = zc_record_size(group);
    zc_mutant *m = malloc(sizeof *m);
    assert_non_null(m);
    for (uint32_t i = 0; i < iterations; i++) {
        zc_mutate(m, record_size, tiles, num_tiles, seed);
        zc_fuzz_outcome out = zc_fuzz_calls(group, m->data, m->size, seed);
        calculated += out.values > 0;
        if (zc_driver_is_fake() && (out.plain != m->plain || out.multi != m->multi))
            zc_fail("a mutated input of %zu bytes (%u sections): %s and %s, expected %s and %s", m->size, m->sections,
                    zc_result_name(out.plain), zc_result_name(out.multi), zc_result_name(m->plain),
                    zc_result_name(m->multi));
    }
    free(m);
    return calculated;
}

/* Valid plain data and frames of every group, mutated: record bytes flipped, section sizes and offsets moved by whole
 * records, tiles renamed, the end cut off. Exact-size heap copies let AddressSanitizer see any read past the data.
 * On the fake every result is the one the validation table predicts, and many inputs calculate values. */
static void calc_mutated_frames_and_records_never_crash(void **state) {
    (void)state;
    const zc_system *sys = zc_sys();
    uint64_t seed = 0x7a6566616b65u;
    for (uint32_t d = 0; d < sys->num_all; d++) {
        zc_count_query query = zc_metric_group_query(sys->all[d]);
        uint32_t n = 0;
        zet_metric_group_handle_t *groups = zc_query_all(&query, &n);
        for (uint32_t g = 0; g < n; g++) {
            uint32_t calculated = zc_fuzz_mutations(groups[g], sys->all[d], &seed, 200);
            if (zc_driver_is_fake() && calculated < 200 / 5)
                zc_fail("only %u of 200 mutated inputs calculated values", calculated);
        }
        free(groups);
    }
}

/* ---- Threads -------------------------------------------------------------------------------------------------- */

/* The calculation may be called from simultaneous threads, also on one group (the carried record has its lock): each
 * thread calculates streams of its own, which never continue another's, and must get exactly the values a single
 * thread gets for the same reports. */
typedef struct zc_calc_job {
    zet_metric_group_handle_t group;
    uint16_t first_sequence;
    uint32_t ticks_step; /* GPU clocks between reports, different per thread */
    uint32_t count;      /* values per call */
    zet_typed_value_t expected[256];
    int failures;
} zc_calc_job;

static void zc_job_records(const zc_calc_job *job, uint16_t first_sequence, uint8_t *raw) {
    for (uint16_t i = 0; i < 4; i++)
        zc_write_oa(raw + i * ZC_OA_RECORD_SIZE, &(zc_oa_snapshot){.sequence = (uint16_t)(first_sequence + i),
                                                                   .timestamp = 1000u * i,
                                                                   .gpu_ticks = job->ticks_step * i});
}

static void *zc_calc_thread(void *arg) {
    zc_calc_job *job = arg;
    uint8_t raw[4 * ZC_OA_RECORD_SIZE];
    zet_typed_value_t values[256];
    for (int round = 0; round < 200; round++) {
        zc_job_records(job, (uint16_t)(job->first_sequence + 8 * round), raw);
        uint32_t count = 256;
        if (zetMetricGroupCalculateMetricValues(job->group, ZC_PLAIN, sizeof raw, raw, &count, values) !=
                ZE_RESULT_SUCCESS ||
            count != job->count || !zc_same_values(values, job->expected, count))
            job->failures++;
    }
    return NULL;
}

/* The values of one call on the job's reports, from this thread alone (a stream no other call continues). */
static void zc_job_reference(zc_calc_job *job, uint16_t first_sequence) {
    uint8_t raw[4 * ZC_OA_RECORD_SIZE];
    zc_job_records(job, (uint16_t)(first_sequence - 2), raw);
    job->count = 256; /* the kept record becomes one the reference does not continue */
    zc_assert_success(
        zetMetricGroupCalculateMetricValues(job->group, ZC_PLAIN, ZC_OA_RECORD_SIZE, raw, &job->count, job->expected));
    zc_job_records(job, first_sequence, raw);
    job->count = 256;
    zc_assert_success(
        zetMetricGroupCalculateMetricValues(job->group, ZC_PLAIN, sizeof raw, raw, &job->count, job->expected));
    assert_int_equal(job->count, 3 * zc_metric_count(job->group));
    if (zc_driver_is_fake()) { /* docs/metrics-raw-formats.md: pairwise differences */
        uint32_t clocks = zc_metric_index(job->group, "GpuCoreClocks"), mc = zc_metric_count(job->group);
        for (uint32_t r = 0; r < 3; r++)
            assert_int_equal(zc_u64(job->expected[r * mc + clocks]), job->ticks_step);
    }
}

static void calc_from_simultaneous_threads(void **state) {
    (void)state;
    zet_metric_group_handle_t group = zc_need_group(zc_device(), "TestOa", ZC_TIME_BASED);
    pthread_t threads[4];
    zc_calc_job *jobs = calloc(4, sizeof *jobs);
    assert_non_null(jobs);
    for (int i = 0; i < 4; i++) {
        jobs[i] = (zc_calc_job){.group = group, .first_sequence = (uint16_t)(10000 + 4000 * i), .ticks_step = 5u + i};
        zc_job_reference(&jobs[i], (uint16_t)(60000 + 16 * i));
    }
    for (int i = 0; i < 4; i++)
        assert_int_equal(pthread_create(&threads[i], NULL, zc_calc_thread, &jobs[i]), 0);
    for (int i = 0; i < 4; i++) {
        pthread_join(threads[i], NULL);
        assert_int_equal(jobs[i].failures, 0);
    }
    free(jobs);
}

int main(int argc, char **argv) {
    static const struct CMUnitTest tests[] = {
        cmocka_unit_test(calc_stream_pairs_with_32_bit_wraps),
        cmocka_unit_test(calc_stream_40_bit_counters),
        cmocka_unit_test(calc_value_count_limits_the_values),
        cmocka_unit_test(calc_query_records),
        cmocka_unit_test(calc_max_of_query_records),
        cmocka_unit_test(calc_eu_stall_samples_summed_per_ip),
        cmocka_unit_test(calc_multi_tile_frame),
        cmocka_unit_test(calc_max_through_the_exp_call),
        cmocka_unit_test(calc_malformed_sizes),
        cmocka_unit_test(calc_malformed_frames),
        cmocka_unit_test(calc_data_starting_with_the_magic_is_a_frame),
        cmocka_unit_test(calc_random_bytes_and_sizes_never_crash),
        cmocka_unit_test(calc_mutated_frames_and_records_never_crash),
        cmocka_unit_test(calc_from_simultaneous_threads),
    };
    static const zc_suite suite = {ZC_EXECUTABLE, tests, ZC_COUNT(tests), zc_setup_system, zc_teardown_system, NULL, 0};
    return zc_main(argc, argv, &suite);
}
