/* Conformance: metric calculation. On the fake, raw data written by hand from docs/metrics-raw-formats.md must give
 * exactly the values docs/metrics.md predicts: pairwise streamer deltas with the carried record, wraps at 32 and 40
 * bits, query records, EU stall samples summed per IP, MAX_METRIC_VALUES, the multi-tile frame, and every malformed
 * size with its result code. Random, mutated and concurrent calculations are test_metric_calc_random.c's. */
#include "zc_metric.h"

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
    };
    static const zc_suite suite = {ZC_EXECUTABLE, tests, ZC_COUNT(tests), zc_setup_system, zc_teardown_system, NULL, 0};
    return zc_main(argc, argv, &suite);
}
