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

static void zc_fuzz_group(zet_metric_group_handle_t group, uint64_t *seed, int iterations) {
    for (int i = 0; i < iterations; i++) {
        size_t size = zc_random_size(seed);
        /* An exact-size heap copy, so a read past the end is caught by AddressSanitizer. */
        uint8_t *data = malloc(size > 0 ? size : 1);
        assert_non_null(data);
        zc_random_data(data, size, seed);
        zet_metric_group_calculation_type_t type = zc_random(seed) % 2 ? ZC_PLAIN : ZC_MAX;
        uint32_t count = 0;
        ze_result_t r = zetMetricGroupCalculateMetricValues(group, type, size, data, &count, NULL);
        if (!zc_acceptable(r))
            zc_fail("count: %s for %zu bytes", zc_result_name(r), size);
        if (r == ZE_RESULT_SUCCESS && count > 0) {
            count = (uint32_t)(zc_random(seed) % (count + 1)) + 1;
            zet_typed_value_t *values = calloc(count, sizeof *values);
            assert_non_null(values);
            r = zetMetricGroupCalculateMetricValues(group, type, size, data, &count, values);
            free(values);
            if (!zc_acceptable(r))
                zc_fail("values: %s for %zu bytes", zc_result_name(r), size);
        }
        uint32_t sets = 0, total = 0;
        r = zetMetricGroupCalculateMultipleMetricValuesExp(group, type, size, data, &sets, &total, NULL, NULL);
        if (!zc_acceptable(r))
            zc_fail("sets: %s for %zu bytes", zc_result_name(r), size);
        if (r == ZE_RESULT_SUCCESS && sets > 0 && total > 0) {
            uint32_t *counts = calloc(sets, sizeof *counts);
            zet_typed_value_t *values = calloc(total, sizeof *values);
            assert_true(counts != NULL && values != NULL);
            r = zetMetricGroupCalculateMultipleMetricValuesExp(group, type, size, data, &sets, &total, counts, values);
            free(counts);
            free(values);
            if (!zc_acceptable(r))
                zc_fail("set values: %s for %zu bytes", zc_result_name(r), size);
        }
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

/* The calculation may be called from simultaneous threads, also on one group (the carried record has its lock). */
typedef struct zc_calc_job {
    zet_metric_group_handle_t group;
    uint16_t first_sequence;
    int failures;
} zc_calc_job;

static void *zc_calc_thread(void *arg) {
    zc_calc_job *job = arg;
    uint8_t raw[4 * ZC_OA_RECORD_SIZE];
    zet_typed_value_t values[256];
    for (int round = 0; round < 200; round++) {
        for (uint16_t i = 0; i < 4; i++)
            zc_write_oa(raw + i * ZC_OA_RECORD_SIZE,
                        &(zc_oa_snapshot){.sequence = (uint16_t)(job->first_sequence + 8 * round + i),
                                          .timestamp = 1000u * i,
                                          .gpu_ticks = 5u * i});
        uint32_t count = 256;
        if (zetMetricGroupCalculateMetricValues(job->group, ZC_PLAIN, sizeof raw, raw, &count, values) !=
            ZE_RESULT_SUCCESS)
            job->failures++;
    }
    return NULL;
}

static void calc_from_simultaneous_threads(void **state) {
    (void)state;
    zet_metric_group_handle_t group = zc_need_group(zc_device(), "TestOa", ZC_TIME_BASED);
    pthread_t threads[4];
    zc_calc_job jobs[4];
    for (int i = 0; i < 4; i++) {
        jobs[i] = (zc_calc_job){group, (uint16_t)(10000 + 4000 * i), 0};
        assert_int_equal(pthread_create(&threads[i], NULL, zc_calc_thread, &jobs[i]), 0);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(threads[i], NULL);
        assert_int_equal(jobs[i].failures, 0);
    }
}

int main(int argc, char **argv) {
    static const struct CMUnitTest tests[] = {
        cmocka_unit_test(calc_stream_pairs_with_32_bit_wraps),
        cmocka_unit_test(calc_stream_40_bit_counters),
        cmocka_unit_test(calc_value_count_limits_the_values),
        cmocka_unit_test(calc_query_records),
        cmocka_unit_test(calc_eu_stall_samples_summed_per_ip),
        cmocka_unit_test(calc_multi_tile_frame),
        cmocka_unit_test(calc_malformed_sizes),
        cmocka_unit_test(calc_malformed_frames),
        cmocka_unit_test(calc_random_bytes_and_sizes_never_crash),
        cmocka_unit_test(calc_from_simultaneous_threads),
    };
    static const zc_suite suite = {ZC_EXECUTABLE, tests, ZC_COUNT(tests), zc_setup_system, zc_teardown_system, NULL, 0};
    return zc_main(argc, argv, &suite);
}
