/* Conformance: the metric functions of headers 1.5 to 1.10 around groups and their data: metric timestamps
 * (zetMetricGroupGetGlobalTimestampsExp), the extension structures of group properties, export data
 * (zetMetricGroupGetExportDataExp, zetMetricGroupCalculateMetricExportDataExp: the values equal those of
 * zetMetricGroupCalculateMultipleMetricValuesExp) and concurrent groups (zetDeviceGetConcurrentMetricGroupsExp). The
 * loader may lack these functions: the tests call them through ZC_API. On the fake, docs/metrics.md gives the exact
 * answers and the export format. */
#include "zc_exec.h"
#include "zc_kernel_files.h"
#include "zc_metric.h"
#include "zc_metric_exp.h"

/* Whatever the headers: an extension structure the driver does not know, in the chain of group properties, is left
 * as it is and the properties are filled (the rule of every output chain, docs/chains.md). */
static void metric_group_properties_skip_unknown_extensions(void **state) {
    zc_metric_fixture *f = *state;
    zet_metric_group_handle_t group = zc_need_group(f->x.device, "ComputeBasic", ZC_TIME_BASED);
    struct {
        zet_structure_type_t stype;
        void *pNext;
        uint64_t payload;
    } unknown = {(zet_structure_type_t)0x7ffffff0, NULL, 0x1234};
    zet_metric_group_properties_t p = {.stype = ZET_STRUCTURE_TYPE_METRIC_GROUP_PROPERTIES, .pNext = &unknown};
    zc_assert_success(zetMetricGroupGetProperties(group, &p));
    assert_string_equal(p.name, "ComputeBasic");
    assert_int_equal(p.samplingType, ZC_TIME_BASED);
    assert_int_equal(unknown.payload, 0x1234);
    assert_ptr_equal(p.pNext, &unknown);
}

#if ZC_L0_AT_LEAST(5)

/* ---- Metric timestamps ---------------------------------------------------------------------------------------- */

static uint64_t zc_mask(uint64_t x, uint32_t bits) {
    return bits >= 64 ? x : x & ((UINT64_C(1) << bits) - 1);
}

static void metric_timestamps_follow_the_device_clock(void **state) {
    zc_metric_fixture *f = *state;
    zc_api_require(zetMetricGroupGetGlobalTimestampsExp);
    zet_metric_group_handle_t group = zc_need_group(f->x.device, "ComputeBasic", ZC_TIME_BASED);
    uint64_t host0 = 0, dev0 = 0, host1 = 0, dev1 = 0, global = 0, metric = 0, host = 0, metric2 = 0;
    zc_assert_success(zeDeviceGetGlobalTimestamps(f->x.device, &host0, &dev0));
    zc_assert_success(ZC_API(zetMetricGroupGetGlobalTimestampsExp)(group, false, &global, &metric));
    zc_assert_success(ZC_API(zetMetricGroupGetGlobalTimestampsExp)(group, true, &host, &metric2));
    zc_assert_success(zeDeviceGetGlobalTimestamps(f->x.device, &host1, &dev1));
    assert_true(host0 <= host && host <= host1); /* synchronised with the host: the host's clock */
    zc_skip_unless_fake();
    /* docs/metrics.md, "Metric timestamps": one device clock; each read moves a modelled clock on by 1 us. */
    assert_true(dev0 < global && global < dev1);
    zet_metric_global_timestamps_resolution_exp_t r = {.stype =
                                                           ZET_STRUCTURE_TYPE_GLOBAL_METRICS_TIMESTAMPS_EXP_PROPERTIES};
    zet_metric_group_properties_t p = {.stype = ZET_STRUCTURE_TYPE_METRIC_GROUP_PROPERTIES, .pNext = &r};
    zc_assert_success(zetMetricGroupGetProperties(group, &p));
    assert_int_equal(metric, zc_mask(global, (uint32_t)r.timestampValidBits));
    assert_true(zc_mask(metric2, (uint32_t)r.timestampValidBits) == metric2 && metric2 != metric);
}

static void metric_timestamps_bad_arguments(void **state) {
    zc_metric_fixture *f = *state;
    zc_api_require(zetMetricGroupGetGlobalTimestampsExp);
    zet_metric_group_handle_t group = zc_need_group(f->x.device, "ComputeBasic", ZC_TIME_BASED);
    uint64_t a = 0, b = 0;
    zc_assert_result(ZC_API(zetMetricGroupGetGlobalTimestampsExp)(NULL, false, &a, &b),
                     ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(ZC_API(zetMetricGroupGetGlobalTimestampsExp)(group, false, NULL, &b),
                     ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(ZC_API(zetMetricGroupGetGlobalTimestampsExp)(group, false, &a, NULL),
                     ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_skip_unless_fake(); /* a handle that is not a group is undefined behaviour elsewhere */
    zc_assert_result(
        ZC_API(zetMetricGroupGetGlobalTimestampsExp)((zet_metric_group_handle_t)f->x.device, false, &a, &b),
        ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
}

/* ---- Extension structures of group properties ----------------------------------------------------------------- */

static void metric_group_properties_extensions(void **state) {
    zc_metric_fixture *f = *state;
    zc_count_query query = zc_metric_group_query(f->x.device);
    uint32_t n = 0;
    zet_metric_group_handle_t *groups = zc_query_all(&query, &n);
    uint64_t hz = zc_device_props(f->x.device).timerResolution;
    for (uint32_t i = 0; i < n; i++) {
        zet_metric_global_timestamps_resolution_exp_t r = {
            .stype = ZET_STRUCTURE_TYPE_GLOBAL_METRICS_TIMESTAMPS_EXP_PROPERTIES};
        zet_metric_group_properties_t p = {.stype = ZET_STRUCTURE_TYPE_METRIC_GROUP_PROPERTIES, .pNext = &r};
#if ZC_L0_AT_LEAST(11)
        zet_metric_group_type_exp_t type = {.stype = ZET_STRUCTURE_TYPE_METRIC_GROUP_TYPE_EXP, .type = 0x5a5a};
        r.pNext = &type;
#endif
        zc_assert_success(zetMetricGroupGetProperties(groups[i], &p));
        assert_true(r.timerResolution > 0 && r.timestampValidBits > 0 && r.timestampValidBits <= 64);
        if (zc_driver_is_fake())
            assert_int_equal(r.timerResolution, hz); /* the metric timer is the device timer */
#if ZC_L0_AT_LEAST(11)
        if (zc_driver_is_fake())
            assert_int_equal(type.type, ZET_METRIC_GROUP_TYPE_EXP_FLAG_OTHER);
#endif
        /* With another stype the chain is not followed (docs/chains.md): the extension keeps its values. */
        zet_metric_global_timestamps_resolution_exp_t untouched = {
            .stype = ZET_STRUCTURE_TYPE_GLOBAL_METRICS_TIMESTAMPS_EXP_PROPERTIES,
            .timerResolution = 7,
            .timestampValidBits = 9};
        zet_metric_group_properties_t wrong = {.stype = ZET_STRUCTURE_TYPE_METRIC_PROPERTIES, .pNext = &untouched};
        zc_assert_success(zetMetricGroupGetProperties(groups[i], &wrong));
        if (zc_driver_is_fake())
            assert_true(untouched.timerResolution == 7 && untouched.timestampValidBits == 9);
    }
    free(groups);
}

#endif

#if ZC_L0_AT_LEAST(6)

/* ---- Export data ---------------------------------------------------------------------------------------------- */

static uint8_t *zc_export(zet_metric_group_handle_t group, const uint8_t *raw, size_t raw_size, size_t *size) {
    *size = 0;
    zc_assert_success(ZC_API(zetMetricGroupGetExportDataExp)(group, raw, raw_size, size, NULL));
    uint8_t *data = malloc(*size);
    assert_non_null(data);
    size_t room = *size;
    zc_assert_success(ZC_API(zetMetricGroupGetExportDataExp)(group, raw, raw_size, size, data));
    assert_int_equal(*size, room);
    return data;
}

static ze_result_t zc_calc_export(zet_metric_group_calculation_type_t type, const uint8_t *data, size_t size,
                                  uint32_t skip, zc_sets *s) {
    zet_metric_calculate_exp_desc_t desc = {ZET_STRUCTURE_TYPE_METRICS_CALCULATE_EXP_DESC, NULL, skip};
    *s = (zc_sets){0, NULL, 0, NULL};
    ze_result_t result = ZC_API(zetMetricGroupCalculateMetricExportDataExp)(zc_sys()->driver, type, size, data, &desc,
                                                                            &s->num_sets, &s->total, NULL, NULL);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    s->counts = calloc(s->num_sets + 1, sizeof *s->counts);
    s->values = calloc(s->total + 1, sizeof *s->values);
    assert_true(s->counts != NULL && s->values != NULL);
    return ZC_API(zetMetricGroupCalculateMetricExportDataExp)(zc_sys()->driver, type, size, data, &desc, &s->num_sets,
                                                              &s->total, s->counts, s->values);
}

/* Exported, then calculated from the export data: exactly the direct calculation of the same raw data, both types. */
static void zc_check_export_equals_direct(zet_metric_group_handle_t group, const uint8_t *raw, size_t raw_size) {
    static const zet_metric_group_calculation_type_t types[2] = {ZET_METRIC_GROUP_CALCULATION_TYPE_MAX_METRIC_VALUES,
                                                                 ZET_METRIC_GROUP_CALCULATION_TYPE_METRIC_VALUES};
    for (int t = 0; t < 2; t++) {
        size_t size = 0;
        uint8_t *data = zc_export(group, raw, raw_size, &size);
        zc_sets exported;
        zc_assert_success(zc_calc_export(types[t], data, size, 0, &exported));
        zc_sets direct = zc_calculate_sets(group, types[t], raw, raw_size);
        zc_assert_same_sets(&exported, &direct);
        assert_true(direct.total > 0);
        zc_sets_free(&exported);
        zc_sets_free(&direct);
        free(data);
    }
}

static void export_of_streamed_and_queried_data_calculates_the_same(void **state) {
    zc_metric_fixture *f = *state;
    zc_api_require(zetMetricGroupGetExportDataExp);
    zc_api_require(zetMetricGroupCalculateMetricExportDataExp);
    static const char *const names[] = {"ComputeBasic", "TestOa", "MemProfile"};
    for (size_t i = 0; i < ZC_COUNT(names); i++) {
        zet_metric_group_handle_t time = zc_need_group(f->x.device, names[i], ZC_TIME_BASED);
        zet_metric_group_handle_t event = zc_need_group(f->x.device, names[i], ZC_EVENT_BASED);
        size_t size = 0;
        uint8_t *raw = zc_stream_work(f, time, 20, &size);
        zc_check_export_equals_direct(time, raw, size);
        free(raw);
        raw = zc_query_work(f, event, &size);
        zc_check_export_equals_direct(event, raw, size);
        free(raw);
    }
}

/* n TestOa snapshots 1000 ticks apart, sequence numbers from `first`. */
static uint8_t *zc_snapshots(uint32_t n, uint16_t first) {
    uint8_t *data = calloc(n, ZC_OA_RECORD_SIZE);
    assert_non_null(data);
    for (uint32_t i = 0; i < n; i++) {
        zc_oa_snapshot s = {
            .sequence = (uint16_t)(first + i), .reason = 1, .timestamp = 1000u * i, .gpu_ticks = 1600u * i};
        for (int c = 0; c < 8; c++)
            s.b[c] = (uint32_t)(i * 100u * (uint32_t)(c + 1));
        s.a[19] = 1600u * i;
        zc_write_oa(data + (size_t)i * ZC_OA_RECORD_SIZE, &s);
    }
    return data;
}

/* Data that continues a stream the group already calculated is paired with the carried snapshot (docs/metrics.md,
 * "Calculation"): the export carries it, so the export data gives the values of the direct call. */
static void export_carries_the_record_the_group_would_pair(void **state) {
    (void)state;
    zc_api_require(zetMetricGroupGetExportDataExp);
    zc_api_require(zetMetricGroupCalculateMetricExportDataExp);
    zc_skip_unless_fake(); /* the carried record is the fake's (docs/metrics.md) */
    zet_metric_group_handle_t group = zc_need_group(zc_sys()->all[zc_sys()->num_all - 1], "TestOa", ZC_TIME_BASED);
    uint8_t *data = zc_snapshots(12, 0);
    zc_values first = zc_calculate(group, ZET_METRIC_GROUP_CALCULATION_TYPE_METRIC_VALUES, data, 5 * ZC_OA_RECORD_SIZE);
    uint32_t count = zc_metric_count(group);
    assert_int_equal(first.count, 4 * count);
    free(first.values);
    const uint8_t *rest = data + 5 * ZC_OA_RECORD_SIZE;
    size_t rest_size = 7 * ZC_OA_RECORD_SIZE, size = 0;
    uint8_t *exported = zc_export(group, rest, rest_size, &size);
    zc_sets from_export;
    zc_assert_success(zc_calc_export(ZET_METRIC_GROUP_CALCULATION_TYPE_METRIC_VALUES, exported, size, 0, &from_export));
    assert_int_equal(from_export.total, 7 * count); /* 7 reports, the first paired with the carried one */
    zc_sets direct = zc_calculate_sets(group, ZET_METRIC_GROUP_CALCULATION_TYPE_METRIC_VALUES, rest, rest_size);
    zc_assert_same_sets(&from_export, &direct);
    zc_sets_free(&direct);
    zc_sets_free(&from_export);
    /* rawReportSkipCount: the first reports are left out, and with them the carried record. */
    zc_assert_success(zc_calc_export(ZET_METRIC_GROUP_CALCULATION_TYPE_METRIC_VALUES, exported, size, 3, &from_export));
    direct = zc_calculate_sets(group, ZET_METRIC_GROUP_CALCULATION_TYPE_METRIC_VALUES, rest + 3 * ZC_OA_RECORD_SIZE,
                               4 * ZC_OA_RECORD_SIZE);
    zc_assert_same_sets(&from_export, &direct);
    assert_int_equal(from_export.total, 3 * count);
    zc_sets_free(&direct);
    zc_sets_free(&from_export);
    zc_assert_success(
        zc_calc_export(ZET_METRIC_GROUP_CALCULATION_TYPE_METRIC_VALUES, exported, size, 99, &from_export));
    assert_int_equal(from_export.total, 0);
    zc_sets_free(&from_export);
    free(exported);
    free(data);
}

static void export_data_bad_arguments(void **state) {
    zc_metric_fixture *f = *state;
    zc_api_require(zetMetricGroupGetExportDataExp);
    zet_metric_group_handle_t group = zc_need_group(f->x.device, "TestOa", ZC_TIME_BASED);
    uint8_t *raw = zc_snapshots(3, 0);
    size_t size = 0;
    zc_assert_result(ZC_API(zetMetricGroupGetExportDataExp)(NULL, raw, ZC_OA_RECORD_SIZE, &size, NULL),
                     ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(ZC_API(zetMetricGroupGetExportDataExp)(group, NULL, ZC_OA_RECORD_SIZE, &size, NULL),
                     ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(ZC_API(zetMetricGroupGetExportDataExp)(group, raw, ZC_OA_RECORD_SIZE, NULL, NULL),
                     ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_skip_unless_fake();
    /* The raw data is validated as the calculation validates it (docs/metrics-raw-formats.md, "Validation"). */
    zc_assert_result(ZC_API(zetMetricGroupGetExportDataExp)(group, raw, ZC_OA_RECORD_SIZE + 1, &size, NULL),
                     ZE_RESULT_ERROR_INVALID_SIZE);
    zc_assert_success(ZC_API(zetMetricGroupGetExportDataExp)(group, raw, 3 * ZC_OA_RECORD_SIZE, &size, NULL));
    uint8_t small[64];
    size_t too_small = sizeof small;
    zc_assert_result(ZC_API(zetMetricGroupGetExportDataExp)(group, raw, 3 * ZC_OA_RECORD_SIZE, &too_small, small),
                     ZE_RESULT_ERROR_INVALID_SIZE);
#if ZC_L0_AT_LEAST(10)
    zet_metric_group_handle_t tracer = zc_find_group(f->x.device, "EngineEvents", ZC_TRACER_BASED);
    assert_non_null(tracer);
    zc_assert_result(ZC_API(zetMetricGroupGetExportDataExp)(tracer, raw, 32, &size, NULL),
                     ZE_RESULT_ERROR_INVALID_ARGUMENT);
#endif
    free(raw);
}

/* docs/metrics.md, "Export data": the header fields and where the tables lie. */
#define ZC_EX_TABLES      576u
#define ZC_EX_TILE_SIZE   64u
#define ZC_EX_SET_SIZE    264u
#define ZC_EX_METRIC_SIZE 1296u

typedef struct zc_export_case {
    const char *what;
    size_t offset;
    uint64_t value;
    int width; /* bytes written (little-endian) */
} zc_export_case;

static void zc_put(uint8_t *p, uint64_t v, int width) {
    for (int i = 0; i < width; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* Each case changes one field of valid export data: the calculation refuses it with INVALID_ARGUMENT. */
static void zc_check_bad_export(const uint8_t *good, size_t size, const zc_export_case *c) {
    uint8_t *bad = zc_heap_copy(good, size);
    zc_put(bad + c->offset, c->value, c->width);
    zc_sets s;
    ze_result_t result = zc_calc_export(ZET_METRIC_GROUP_CALCULATION_TYPE_METRIC_VALUES, bad, size, 0, &s);
    if (result != ZE_RESULT_ERROR_INVALID_ARGUMENT)
        zc_fail("export data with %s: %s, expected ZE_RESULT_ERROR_INVALID_ARGUMENT", c->what, zc_result_name(result));
    free(bad);
}

static void export_data_malformed_or_cut_short_is_refused(void **state) {
    zc_metric_fixture *f = *state;
    zc_api_require(zetMetricGroupGetExportDataExp);
    zc_api_require(zetMetricGroupCalculateMetricExportDataExp);
    zc_skip_unless_fake(); /* the export format is the fake's */
    zet_metric_group_handle_t group = zc_need_group(f->x.device, "TestOa", ZC_EVENT_BASED);
    uint8_t record[ZC_QUERY_RECORD_SIZE];
    zc_write_query(record, &(zc_query_record){.duration_ns = 1000, .ticks = 38, .gpu_ticks = 1600});
    size_t size = 0;
    uint8_t *good = zc_export(group, record, sizeof record, &size);
    uint32_t metrics = zc_get32(good + 36), tiles = zc_get32(good + 40);
    size_t metrics_at = ZC_EX_TABLES + tiles * ZC_EX_TILE_SIZE + ZC_EX_SET_SIZE;
    const zc_export_case cases[] = {
        {"another magic", 0, 0x11111111, 4},
        {"version 2", 4, 2, 2},
        {"a header size of 65", 6, 65, 2},
        {"a total size one larger", 8, size + 1, 8},
        {"sampling type 3", 16, 3, 4},
        {"record format 2", 24, 2, 4},
        {"the snapshot's record size", 28, 256, 4},
        {"0 timestamp bits", 32, 0, 4},
        {"65 timestamp bits", 32, 65, 4},
        {"no metric", 36, 0, 4},
        {"one metric more", 36, metrics + 1, 4},
        {"no tile", 40, 0, 4},
        {"65 tiles", 40, 65, 4},
        {"two sets for plain data", 44, 2, 4},
        {"a raw data offset moved", 48, metrics_at + metrics * ZC_EX_METRIC_SIZE + 1, 8},
        {"a raw data size one larger", 56, sizeof record + 1, 8},
        {"a carried record of query data", ZC_EX_TABLES + tiles * ZC_EX_TILE_SIZE, 1, 4},
        {"a metric of value type 9", metrics_at + 1032, 9, 4},
        {"a metric of type 100", metrics_at + 1028, 100, 4},
        {"a formula length of 0", metrics_at + 1036, 0, 4},
        {"a formula length past its text", metrics_at + 1036, 200, 4},
        {"a formula naming no field", metrics_at + 1040, 0x7a7a7a7a7a7a7a7au, 8},
        {"raw data starting with the frame magic", metrics_at + metrics * ZC_EX_METRIC_SIZE, ZC_FRAME_MAGIC, 4},
    };
    for (size_t i = 0; i < ZC_COUNT(cases); i++)
        zc_check_bad_export(good, size, &cases[i]);
    uint8_t *unnamed = zc_heap_copy(good, size);
    memset(unnamed + 64, 'A', 256); /* the group's name without its NUL */
    zc_sets s;
    zc_assert_result(zc_calc_export(ZET_METRIC_GROUP_CALCULATION_TYPE_METRIC_VALUES, unnamed, size, 0, &s),
                     ZE_RESULT_ERROR_INVALID_ARGUMENT);
    free(unnamed);
    if (tiles > 1) {
        zc_export_case same = {"two tiles of one id", ZC_EX_TABLES + ZC_EX_TILE_SIZE, zc_get32(good + ZC_EX_TABLES), 4};
        zc_check_bad_export(good, size, &same);
    }
    /* Cut short anywhere: refused, never read past the end (exact-size heap copies). */
    for (size_t cut = 0; cut < size; cut += cut < 700 ? 1 : 97) {
        uint8_t *prefix = zc_heap_copy(good, cut);
        zc_assert_result(zc_calc_export(ZET_METRIC_GROUP_CALCULATION_TYPE_METRIC_VALUES, prefix, cut, 0, &s),
                         ZE_RESULT_ERROR_INVALID_ARGUMENT);
        free(prefix);
    }
    free(good);
}

static void export_calculation_bad_arguments(void **state) {
    zc_metric_fixture *f = *state;
    zc_api_require(zetMetricGroupGetExportDataExp);
    zc_api_require(zetMetricGroupCalculateMetricExportDataExp);
    zet_metric_group_handle_t group = zc_need_group(f->x.device, "TestOa", ZC_TIME_BASED);
    uint8_t *raw = zc_snapshots(4, 0);
    size_t size = 0;
    uint8_t *data = zc_export(group, raw, 4 * ZC_OA_RECORD_SIZE, &size);
    zet_metric_calculate_exp_desc_t desc = {ZET_STRUCTURE_TYPE_METRICS_CALCULATE_EXP_DESC, NULL, 0};
    uint32_t sets = 0, total = 0;
    __typeof__(&zetMetricGroupCalculateMetricExportDataExp) calc = ZC_API(zetMetricGroupCalculateMetricExportDataExp);
    const zet_metric_group_calculation_type_t values = ZET_METRIC_GROUP_CALCULATION_TYPE_METRIC_VALUES;
    zc_assert_result(calc(NULL, values, size, data, &desc, &sets, &total, NULL, NULL),
                     ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(
        calc(zc_sys()->driver, (zet_metric_group_calculation_type_t)2, size, data, &desc, &sets, &total, NULL, NULL),
        ZE_RESULT_ERROR_INVALID_ENUMERATION);
    zc_assert_result(calc(zc_sys()->driver, values, size, NULL, &desc, &sets, &total, NULL, NULL),
                     ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(calc(zc_sys()->driver, values, size, data, NULL, &sets, &total, NULL, NULL),
                     ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(calc(zc_sys()->driver, values, size, data, &desc, NULL, &total, NULL, NULL),
                     ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(calc(zc_sys()->driver, values, size, data, &desc, &sets, NULL, NULL, NULL),
                     ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_skip_unless_fake();
    desc.stype = ZET_STRUCTURE_TYPE_METRIC_STREAMER_DESC;
    zc_assert_result(calc(zc_sys()->driver, values, size, data, &desc, &sets, &total, NULL, NULL),
                     ZE_RESULT_ERROR_INVALID_ARGUMENT);
    desc.stype = 0; /* as tools leave it */
    zc_assert_success(calc(zc_sys()->driver, values, size, data, &desc, &sets, &total, NULL, NULL));
    assert_int_equal(sets, 1);
    assert_int_equal(total, 4 * zc_metric_count(group)); /* a bound: 3 pairs give 3 results */
    /* Fewer values than there are: exactly that many. */
    uint32_t counts[1] = {0};
    zet_typed_value_t few[5];
    total = 5;
    zc_assert_success(calc(zc_sys()->driver, values, size, data, &desc, &sets, &total, counts, few));
    assert_int_equal(total, 5);
    assert_int_equal(counts[0], 5);
    free(data);
    free(raw);
}

/* Random damage to valid export data: refused or calculated, never a crash (AddressSanitizer sees any overread). */
static void export_data_random_damage_never_crashes(void **state) {
    zc_metric_fixture *f = *state;
    zc_api_require(zetMetricGroupGetExportDataExp);
    zc_api_require(zetMetricGroupCalculateMetricExportDataExp);
    zc_skip_unless_fake();
    zet_metric_group_handle_t group = zc_need_group(f->x.device, "MemProfile", ZC_TIME_BASED);
    size_t raw_size = 0, size = 0;
    uint8_t *raw = zc_stream_work(f, group, 10, &raw_size);
    uint8_t *good = zc_export(group, raw, raw_size, &size);
    uint64_t seed = 0x6578706f7274u;
    for (int i = 0; i < 400; i++) {
        uint8_t *bad = zc_heap_copy(good, size);
        for (int k = 0; k < 1 + i % 4; k++) {
            seed = seed * 6364136223846793005u + 1442695040888963407u;
            size_t at = (size_t)(seed >> 33) % (i % 2 ? size : ZC_EX_TABLES + 2 * ZC_EX_TILE_SIZE);
            bad[at] ^= (uint8_t)(1u << ((seed >> 20) & 7));
        }
        zc_sets s;
        ze_result_t result = zc_calc_export(ZET_METRIC_GROUP_CALCULATION_TYPE_METRIC_VALUES, bad, size, 0, &s);
        if (result != ZE_RESULT_SUCCESS && result != ZE_RESULT_ERROR_INVALID_ARGUMENT)
            zc_fail("damaged export data: %s", zc_result_name(result));
        if (result == ZE_RESULT_SUCCESS)
            zc_sets_free(&s);
        free(bad);
    }
    free(good);
    free(raw);
}

#endif

#if ZC_L0_AT_LEAST(10)

/* ---- Concurrent groups ---------------------------------------------------------------------------------------- */

static uint32_t zc_domain(zet_metric_group_handle_t group) {
    return zc_group_properties(group).domain;
}

/* Every set holds groups of distinct domains and can be activated; the sets are as few as the most used domain. */
static void concurrent_groups_follow_the_domains(void **state) {
    zc_metric_fixture *f = *state;
    zc_api_require(zetDeviceGetConcurrentMetricGroupsExp);
    zc_count_query query = zc_metric_group_query(f->x.device);
    uint32_t n = 0;
    zet_metric_group_handle_t *groups = zc_query_all(&query, &n);
    uint32_t most = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t same = 0;
        for (uint32_t j = 0; j < n; j++)
            same += zc_domain(groups[j]) == zc_domain(groups[i]);
        most = same > most ? same : most;
    }
    uint32_t sets = 0;
    __typeof__(&zetDeviceGetConcurrentMetricGroupsExp) concurrent = ZC_API(zetDeviceGetConcurrentMetricGroupsExp);
    zc_assert_success(concurrent(f->x.device, n, groups, NULL, &sets));
    assert_int_equal(sets, most);
    uint32_t *per_set = calloc(sets + 1, sizeof *per_set);
    assert_non_null(per_set);
    zc_assert_success(concurrent(f->x.device, n, groups, per_set, &sets));
    uint32_t at = 0;
    for (uint32_t s = 0; s < sets; s++) {
        for (uint32_t i = at; i < at + per_set[s]; i++) {
            for (uint32_t j = at; j < i; j++)
                assert_int_not_equal(zc_domain(groups[i]), zc_domain(groups[j]));
        }
        zc_activate(f->x.context, f->x.device, per_set[s], groups + at);
        at += per_set[s];
    }
    assert_int_equal(at, n);
    zc_activate(f->x.context, f->x.device, 0, NULL);
    if (zc_driver_is_fake()) { /* set 0: the first group of each domain, in the order given */
        zet_metric_group_handle_t *again = zc_query_all(&query, &n);
        assert_ptr_equal(groups[0], again[0]);
        free(again);
    }
    free(per_set);
    free(groups);
}

static void concurrent_groups_bad_arguments(void **state) {
    zc_metric_fixture *f = *state;
    zc_api_require(zetDeviceGetConcurrentMetricGroupsExp);
    __typeof__(&zetDeviceGetConcurrentMetricGroupsExp) concurrent = ZC_API(zetDeviceGetConcurrentMetricGroupsExp);
    zet_metric_group_handle_t groups[2] = {zc_need_group(f->x.device, "ComputeBasic", ZC_TIME_BASED),
                                           zc_need_group(f->x.device, "TestOa", ZC_TIME_BASED)};
    uint32_t sets = 0, per_set[2];
    zc_assert_result(concurrent(NULL, 2, groups, per_set, &sets), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(concurrent(f->x.device, 2, NULL, per_set, &sets), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_skip_unless_fake();
    zc_assert_result(concurrent(f->x.device, 2, groups, per_set, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    sets = 1; /* two groups of one domain need two sets */
    zc_assert_result(concurrent(f->x.device, 2, groups, per_set, &sets), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    zet_metric_group_handle_t with_null[2] = {groups[0], NULL};
    sets = 0;
    zc_assert_result(concurrent(f->x.device, 2, with_null, per_set, &sets), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_success(concurrent(f->x.device, 0, groups, per_set, &sets));
    assert_int_equal(sets, 0);
    if (zc_sys()->num_subdevices[0] > 0) {
        zet_metric_group_handle_t sub = zc_need_group(zc_sys()->subdevices[0][0], "ComputeBasic", ZC_TIME_BASED);
        zc_assert_result(concurrent(f->x.device, 1, &sub, per_set, &sets), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    }
}

#endif

int main(int argc, char **argv) {
#define ZC_FIXTURE metric_fixture
    static const struct CMUnitTest tests[] = {
        ZC_T(metric_group_properties_skip_unknown_extensions),
#if ZC_L0_AT_LEAST(5)
        ZC_T(metric_timestamps_follow_the_device_clock),
        ZC_T(metric_timestamps_bad_arguments),
        ZC_T(metric_group_properties_extensions),
#endif
#if ZC_L0_AT_LEAST(6)
        ZC_T(export_of_streamed_and_queried_data_calculates_the_same),
        ZC_T(export_carries_the_record_the_group_would_pair),
        ZC_T(export_data_bad_arguments),
        ZC_T(export_data_malformed_or_cut_short_is_refused),
        ZC_T(export_calculation_bad_arguments),
        ZC_T(export_data_random_damage_never_crashes),
#endif
#if ZC_L0_AT_LEAST(10)
        ZC_T(concurrent_groups_follow_the_domains),
        ZC_T(concurrent_groups_bad_arguments),
#endif
    };
    static const zc_suite suite = {ZC_EXECUTABLE, tests, ZC_COUNT(tests), zc_setup_system, zc_teardown_system, NULL, 0};
    return zc_main(argc, argv, &suite);
}
