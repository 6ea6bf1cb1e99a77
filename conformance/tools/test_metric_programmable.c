/* Conformance: programmable metrics and user-created metric groups (headers 1.9 and later): programmables, their
 * parameters, metrics created from them, groups made of such metrics (zetDeviceCreateMetricGroupsFromMetricsExp,
 * zetMetricGroupCreateExp and the add, remove, close and destroy calls), activated, queried, streamed and calculated
 * like the predefined groups. The loader may lack these functions: the tests call them through ZC_API. On the fake,
 * docs/metrics.md ("Programmable metrics", "User-created groups") gives the exact answers. */
#include "zc_exec.h"
#include "zc_kernel_files.h"
#include "zc_metric.h"
#include "zc_metric_exp.h"

#if ZC_L0_AT_LEAST(9)

static ze_result_t zc_programmables_get(void *ctx, uint32_t *count, void *items) {
    return ZC_API(zetMetricProgrammableGetExp)((zet_device_handle_t)ctx, count, items);
}

static zc_count_query zc_programmable_query(ze_device_handle_t device) {
    return (zc_count_query){"zetMetricProgrammableGetExp", zc_programmables_get, device,
                            sizeof(zet_metric_programmable_exp_handle_t), NULL};
}

static zet_metric_programmable_exp_properties_t zc_programmable_props(zet_metric_programmable_exp_handle_t p) {
    zet_metric_programmable_exp_properties_t props = {.stype = ZET_STRUCTURE_TYPE_METRIC_PROGRAMMABLE_EXP_PROPERTIES};
    zc_assert_success(ZC_API(zetMetricProgrammableGetPropertiesExp)(p, &props));
    return props;
}

/* The programmable of `device` named `name` (docs/metrics.md: a signal's name, or B0..C7); skips elsewhere. */
static zet_metric_programmable_exp_handle_t zc_need_programmable(ze_device_handle_t device, const char *name) {
    zc_count_query query = zc_programmable_query(device);
    uint32_t n = 0;
    zet_metric_programmable_exp_handle_t *all = zc_query_all(&query, &n), found = NULL;
    for (uint32_t i = 0; i < n && found == NULL; i++) {
        if (strcmp(zc_programmable_props(all[i]).name, name) == 0)
            found = all[i];
    }
    free(all);
    if (found == NULL && zc_driver_is_fake())
        zc_fail("no programmable %s", name);
    if (found == NULL)
        skip();
    return found;
}

/* One metric from a programmable with the first `count` parameters given (asserts success). */
static zet_metric_handle_t zc_create_metric(zet_metric_programmable_exp_handle_t p, const uint64_t *values,
                                            uint32_t count, const char *name) {
    zet_metric_programmable_param_value_exp_t params[4];
    memset(params, 0, sizeof params);
    for (uint32_t i = 0; i < count; i++)
        params[i].value.ui64 = values[i];
    uint32_t n = 0;
    zet_metric_handle_t metric = NULL;
    zc_assert_success(ZC_API(zetMetricCreateFromProgrammableExp)(p, params, count, name, "a test metric", &n, NULL));
    assert_int_equal(n, 1);
    zc_assert_success(ZC_API(zetMetricCreateFromProgrammableExp)(p, params, count, name, "a test metric", &n, &metric));
    assert_int_equal(n, 1);
    return metric;
}

/* ---- Programmables -------------------------------------------------------------------------------------------- */

static void zc_check_params(zet_metric_programmable_exp_handle_t p, uint32_t count) {
    zet_metric_programmable_param_info_exp_t info[8];
    memset(info, 0, sizeof info);
    for (uint32_t i = 0; i < 8; i++)
        info[i].stype = ZET_STRUCTURE_TYPE_METRIC_PROGRAMMABLE_PARAM_INFO_EXP;
    uint32_t n = 8;
    zc_assert_success(ZC_API(zetMetricProgrammableGetParamInfoExp)(p, &n, info));
    assert_int_equal(n, count);
    for (uint32_t i = 0; i < count; i++) {
        assert_true(info[i].name[0] != '\0' && info[i].valueInfoCount > 0);
        zet_metric_programmable_param_value_info_exp_t values[32];
        memset(values, 0, sizeof values);
        for (uint32_t v = 0; v < 32; v++)
            values[v].stype = ZET_STRUCTURE_TYPE_METRIC_PROGRAMMABLE_PARAM_VALUE_INFO_EXP;
        uint32_t m = 32;
        zc_assert_success(ZC_API(zetMetricProgrammableGetParamValueInfoExp)(p, i, &m, values));
        assert_int_equal(m, info[i].valueInfoCount);
    }
}

static void programmables_enumerated_with_their_parameters(void **state) {
    zc_metric_fixture *f = *state;
    zc_api_require(zetMetricProgrammableGetExp);
    zc_count_query query = zc_programmable_query(f->x.device);
    zc_check_count_semantics(&query);
    uint32_t n = 0;
    zet_metric_programmable_exp_handle_t *all = zc_query_all(&query, &n);
    uint32_t oa_domain = zc_group_properties(zc_need_group(f->x.device, "ComputeBasic", ZC_TIME_BASED)).domain;
    for (uint32_t i = 0; i < n; i++) {
        zet_metric_programmable_exp_properties_t p = zc_programmable_props(all[i]);
        assert_true(p.name[0] != '\0' && memchr(p.name, 0, sizeof p.name) != NULL);
        assert_true(p.parameterCount > 0);
        zc_check_params(all[i], p.parameterCount);
        if (zc_driver_is_fake()) {
            assert_int_equal(p.domain, oa_domain);
            assert_int_equal(p.sourceId, 1);
            assert_int_equal(p.samplingType, ZC_TIME_BASED | ZC_EVENT_BASED);
        }
    }
    free(all);
    zc_skip_unless_fake();
    assert_int_equal(n, 20 + 16); /* a fixed counter per signal, and B0..B7, C0..C7 */
    zet_metric_programmable_exp_handle_t b3 = zc_need_programmable(f->x.device, "B3");
    assert_int_equal(zc_programmable_props(b3).parameterCount, 4);
    zet_metric_programmable_param_info_exp_t info[4] = {
        {.stype = ZET_STRUCTURE_TYPE_METRIC_PROGRAMMABLE_PARAM_INFO_EXP}};
    uint32_t count = 4;
    zc_assert_success(ZC_API(zetMetricProgrammableGetParamInfoExp)(b3, &count, info));
    assert_string_equal(info[0].name, "signal");
    assert_int_equal(info[0].valueInfoCount, 20);
    assert_int_equal(info[1].valueInfoType, ZET_VALUE_INFO_TYPE_EXP_UINT64_RANGE);
    assert_int_equal(info[1].defaultValue.ui64, 1);
    assert_int_equal(info[3].type, ZET_METRIC_PROGRAMMABLE_PARAM_TYPE_EXP_NORMALIZATION_RATE);
    zet_metric_programmable_param_value_info_exp_t range = {
        .stype = ZET_STRUCTURE_TYPE_METRIC_PROGRAMMABLE_PARAM_VALUE_INFO_EXP};
    count = 1;
    zc_assert_success(ZC_API(zetMetricProgrammableGetParamValueInfoExp)(b3, 2, &count, &range));
    assert_int_equal(range.valueInfo.ui64Range.ui64Min, 1);
    assert_int_equal(range.valueInfo.ui64Range.ui64Max, 65535);
    zet_metric_programmable_exp_handle_t active = zc_need_programmable(f->x.device, "xve_active");
    assert_int_equal(zc_programmable_props(active).parameterCount, 2); /* rate, utilization */
    assert_int_equal(zc_programmable_props(zc_need_programmable(f->x.device, "threads")).parameterCount, 1);
}

static void programmable_bad_arguments(void **state) {
    zc_metric_fixture *f = *state;
    zc_api_require(zetMetricProgrammableGetExp);
    uint32_t count = 0;
    zc_assert_result(ZC_API(zetMetricProgrammableGetExp)(NULL, &count, NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(ZC_API(zetMetricProgrammableGetExp)(f->x.device, NULL, NULL),
                     ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_skip_unless_fake();
    zet_metric_programmable_exp_handle_t p = zc_need_programmable(f->x.device, "xve_active");
    zet_metric_programmable_exp_properties_t props = {.stype = ZET_STRUCTURE_TYPE_METRIC_PROGRAMMABLE_EXP_PROPERTIES};
    zc_assert_result(ZC_API(zetMetricProgrammableGetPropertiesExp)(NULL, &props), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(ZC_API(zetMetricProgrammableGetPropertiesExp)(p, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(
        ZC_API(zetMetricProgrammableGetPropertiesExp)((zet_metric_programmable_exp_handle_t)f->x.device, &props),
        ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zet_metric_programmable_param_info_exp_t info = {.stype = ZET_STRUCTURE_TYPE_METRIC_PROGRAMMABLE_PARAM_INFO_EXP};
    count = 0; /* [range(1, *pParameterCount)]: at least one */
    zc_assert_result(ZC_API(zetMetricProgrammableGetParamInfoExp)(p, &count, &info), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    count = 1;
    zc_assert_result(ZC_API(zetMetricProgrammableGetParamInfoExp)(p, &count, NULL),
                     ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zet_metric_programmable_param_value_info_exp_t value = {
        .stype = ZET_STRUCTURE_TYPE_METRIC_PROGRAMMABLE_PARAM_VALUE_INFO_EXP};
    zc_assert_result(ZC_API(zetMetricProgrammableGetParamValueInfoExp)(p, 2, &count, &value),
                     ZE_RESULT_ERROR_INVALID_ARGUMENT); /* it has 2 parameters */
    count = 0;
    zc_assert_result(ZC_API(zetMetricProgrammableGetParamValueInfoExp)(p, 0, &count, &value),
                     ZE_RESULT_ERROR_INVALID_ARGUMENT);
    count = 5; /* more than there are: corrected */
    zet_metric_programmable_param_value_info_exp_t values[5];
    memset(values, 0, sizeof values);
    zc_assert_success(ZC_API(zetMetricProgrammableGetParamValueInfoExp)(p, 0, &count, values));
    assert_int_equal(count, 2);
    assert_int_equal(values[1].valueInfo.ui32, 1);
}

/* ---- Metrics from programmables ------------------------------------------------------------------------------- */

static void metrics_from_programmables(void **state) {
    zc_metric_fixture *f = *state;
    zc_api_require(zetMetricCreateFromProgrammableExp);
    zc_skip_unless_fake(); /* the programmables are the fake's (docs/metrics.md) */
    zet_metric_programmable_exp_handle_t active = zc_need_programmable(f->x.device, "xve_active");
    static const uint64_t raw[2] = {0, 0}, rate[2] = {1, 0}, utilization[2] = {0, 1};
    const uint64_t *choices[3] = {raw, rate, utilization};
    static const zet_metric_type_t types[3] = {ZET_METRIC_TYPE_EVENT, ZET_METRIC_TYPE_THROUGHPUT,
                                               ZET_METRIC_TYPE_DURATION};
    static const zet_value_type_t values[3] = {ZET_VALUE_TYPE_UINT64, ZET_VALUE_TYPE_FLOAT32, ZET_VALUE_TYPE_FLOAT32};
    static const char *const units[3] = {"cycles", "cycles/ns", "percent"};
    for (int i = 0; i < 3; i++) {
        zet_metric_handle_t m = zc_create_metric(active, choices[i], i == 0 ? 0 : 2, "MyActive");
        zet_metric_properties_t p = zc_metric_properties(m);
        assert_string_equal(p.name, "MyActive");
        assert_string_equal(p.description, "a test metric");
        assert_int_equal(p.metricType, types[i]);
        assert_int_equal(p.resultType, values[i]);
        assert_string_equal(p.resultUnits, units[i]);
        zc_assert_success(ZC_API(zetMetricDestroyExp)(m));
        zc_assert_result(ZC_API(zetMetricDestroyExp)(m), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    }
#if ZC_L0_AT_LEAST(11)
    zc_api_require(zetMetricCreateFromProgrammableExp2);
    zet_metric_programmable_param_value_exp_t one = {{.ui32 = 1}};
    uint32_t n = 1;
    zet_metric_handle_t m = NULL;
    zc_assert_success(ZC_API(zetMetricCreateFromProgrammableExp2)(active, 1, &one, "Rate", "", &n, &m));
    assert_int_equal(zc_metric_properties(m).metricType, ZET_METRIC_TYPE_THROUGHPUT);
    zc_assert_success(ZC_API(zetMetricDestroyExp)(m));
#endif
}

static void metrics_from_programmables_bad_arguments(void **state) {
    zc_metric_fixture *f = *state;
    zc_api_require(zetMetricCreateFromProgrammableExp);
    zc_skip_unless_fake();
    __typeof__(&zetMetricCreateFromProgrammableExp) create = ZC_API(zetMetricCreateFromProgrammableExp);
    zet_metric_programmable_exp_handle_t active = zc_need_programmable(f->x.device, "xve_active");
    zet_metric_programmable_exp_handle_t b0 = zc_need_programmable(f->x.device, "B0");
    zet_metric_programmable_param_value_exp_t v[5];
    memset(v, 0, sizeof v);
    uint32_t n = 1;
    zet_metric_handle_t m = NULL;
    const ze_result_t bad = ZE_RESULT_ERROR_INVALID_ARGUMENT;
    zc_assert_result(create(NULL, v, 0, "a", "b", &n, &m), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(create(active, NULL, 0, "a", "b", &n, &m), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(create(active, v, 0, NULL, "b", &n, &m), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(create(active, v, 0, "a", "b", NULL, &m), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(create(active, v, 3, "a", "b", &n, &m), bad); /* 2 parameters */
    v[0].value.ui32 = 2;                                           /* rate is 0 or 1 */
    zc_assert_result(create(active, v, 1, "a", "b", &n, &m), bad);
    v[0].value.ui32 = 1;
    v[1].value.ui32 = 1; /* rate and utilization together */
    zc_assert_result(create(active, v, 2, "a", "b", &n, &m), bad);
    memset(v, 0, sizeof v);
    v[0].value.ui32 = 20; /* signals are 0..19 */
    zc_assert_result(create(b0, v, 1, "a", "b", &n, &m), bad);
    v[0].value.ui32 = 0;
    v[2].value.ui64 = 0; /* divide by 0 */
    zc_assert_result(create(b0, v, 3, "a", "b", &n, &m), bad);
    v[2].value.ui64 = 1;
    v[1].value.ui64 = 70000; /* multiply beyond 65535 */
    zc_assert_result(create(b0, v, 3, "a", "b", &n, &m), bad);
    char long_name[ZET_MAX_METRIC_NAME + 8];
    memset(long_name, 'n', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = '\0';
    zc_assert_result(create(b0, v, 0, long_name, "b", &n, &m), bad);
    /* A predefined metric is its group's: it cannot be destroyed. */
    zet_metric_group_handle_t group = zc_need_group(f->x.device, "ComputeBasic", ZC_TIME_BASED);
    zet_metric_handle_t predefined = NULL;
    n = 1;
    zc_assert_success(zetMetricGet(group, &n, &predefined));
    zc_assert_result(ZC_API(zetMetricDestroyExp)(predefined), bad);
    zc_assert_result(ZC_API(zetMetricDestroyExp)(NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
}

/* ---- User-created groups -------------------------------------------------------------------------------------- */

/* The metrics of the tests below: GPU memory bytes read (fixed A15), XVE activity as a percentage (fixed A0),
 * flexible counter B0 programmed with half the bytes read, and the XVE activity as a count. */
typedef struct zc_user_metrics {
    zet_metric_handle_t read;
    zet_metric_handle_t active;
    zet_metric_handle_t half;
    zet_metric_handle_t active_cycles; /* the count behind `active` */
} zc_user_metrics;

static zc_user_metrics zc_user_metrics_create(ze_device_handle_t device) {
    static const uint64_t utilization[2] = {0, 1}, half[3] = {16 /* mem_read_bytes */, 1, 2};
    zc_user_metrics m;
    m.read = zc_create_metric(zc_need_programmable(device, "mem_read_bytes"), NULL, 0, "Read");
    m.active = zc_create_metric(zc_need_programmable(device, "xve_active"), utilization, 2, "Active");
    m.half = zc_create_metric(zc_need_programmable(device, "B0"), half, 3, "HalfRead");
    m.active_cycles = zc_create_metric(zc_need_programmable(device, "xve_active"), NULL, 0, "ActiveCycles");
    return m;
}

static void zc_user_metrics_destroy(const zc_user_metrics *m) {
    zc_assert_success(ZC_API(zetMetricDestroyExp)(m->read));
    zc_assert_success(ZC_API(zetMetricDestroyExp)(m->active));
    zc_assert_success(ZC_API(zetMetricDestroyExp)(m->half));
    zc_assert_success(ZC_API(zetMetricDestroyExp)(m->active_cycles));
}

#if ZC_L0_AT_LEAST(10)
/* zetDeviceCreateMetricGroupsFromMetricsExp over the four metrics: an EVENT_BASED group, then a TIME_BASED one. */
static void zc_user_groups(ze_device_handle_t device, const zc_user_metrics *m, zet_metric_group_handle_t out[2]) {
    zet_metric_handle_t metrics[4] = {m->read, m->active, m->half, m->active_cycles};
    uint32_t n = 0;
    __typeof__(&zetDeviceCreateMetricGroupsFromMetricsExp) create = ZC_API(zetDeviceCreateMetricGroupsFromMetricsExp);
    zc_assert_success(create(device, 4, metrics, "User", "made by the test", &n, NULL));
    assert_int_equal(n, 2);
    zc_assert_success(create(device, 4, metrics, "User", "made by the test", &n, out));
    assert_int_equal(n, 2);
    zet_metric_group_properties_t p0 = zc_group_properties(out[0]), p1 = zc_group_properties(out[1]);
    assert_string_equal(p0.name, "User0");
    assert_string_equal(p1.name, "User1");
    assert_int_equal(p0.samplingType, ZC_EVENT_BASED);
    assert_int_equal(p1.samplingType, ZC_TIME_BASED);
}

static float zc_float_of(const zc_sets *s, uint32_t set, uint32_t count, uint32_t index) {
    zet_typed_value_t v = s->values[set * count + index];
    assert_int_equal(v.type, ZET_VALUE_TYPE_FLOAT32);
    return v.value.fp32;
}

/* A user group queried around the work gives what the predefined ComputeBasic group gives for the same metrics (the
 * GPU clocks of two runs may differ by one: the percentage is checked against the group's own clocks), and the
 * flexible counter half of the bytes (each query end reads floor(cumulative / 2)). */
static void user_group_query_measures_like_the_predefined_group(void **state) {
    zc_metric_fixture *f = *state;
    zc_api_require(zetDeviceCreateMetricGroupsFromMetricsExp);
    zc_skip_unless_fake();
    const char *variant = getenv("ZC_VARIANT");
    if (variant != NULL && strcmp(variant, "integrated") == 0)
        skip(); /* Meteor Lake metric names */
    zc_user_metrics m = zc_user_metrics_create(f->x.device);
    zet_metric_group_handle_t user[2];
    zc_user_groups(f->x.device, &m, user);
    uint32_t count = zc_metric_count(user[0]);
    assert_int_equal(count, 3 + 4 + 7); /* the defaults, the four metrics, the information entries */
    zet_metric_handle_t listed[16];
    uint32_t n = 16;
    zc_assert_success(zetMetricGet(user[0], &n, listed));
    assert_ptr_equal(listed[3], m.read);
    assert_ptr_equal(listed[5], m.half);
    assert_string_equal(zc_metric_properties(listed[0]).name, "GpuTime");
    assert_string_equal(zc_metric_properties(listed[7]).name, "QueryBeginTime");
#if ZC_L0_AT_LEAST(11)
    zet_metric_group_type_exp_t type = {.stype = ZET_STRUCTURE_TYPE_METRIC_GROUP_TYPE_EXP};
    zet_metric_group_properties_t p = {.stype = ZET_STRUCTURE_TYPE_METRIC_GROUP_PROPERTIES, .pNext = &type};
    zc_assert_success(zetMetricGroupGetProperties(user[0], &p));
    assert_int_equal(type.type, ZET_METRIC_GROUP_TYPE_EXP_FLAG_USER_CREATED);
#endif
    size_t size = 0, basic_size = 0;
    uint8_t *raw = zc_query_work(f, user[0], &size);
    zet_metric_group_handle_t basic = zc_need_group(f->x.device, "ComputeBasic", ZC_EVENT_BASED);
    uint8_t *basic_raw = zc_query_work(f, basic, &basic_size);
    zc_sets s = zc_calculate_sets(user[0], ZET_METRIC_GROUP_CALCULATION_TYPE_METRIC_VALUES, raw, size);
    zc_sets b = zc_calculate_sets(basic, ZET_METRIC_GROUP_CALCULATION_TYPE_METRIC_VALUES, basic_raw, basic_size);
    uint32_t basic_count = zc_metric_count(basic);
    ze_device_properties_t props =
        zc_device_props(zc_sys()->num_subdevices[0] > 0 ? zc_sys()->subdevices[0][0] : f->x.device);
    uint64_t xves = (uint64_t)props.numSlices * props.numSubslicesPerSlice * props.numEUsPerSubslice;
    assert_int_equal(s.num_sets, b.num_sets);
    for (uint32_t t = 0; t < s.num_sets; t++) {
        uint64_t read = zc_u64(s.values[t * count + 3]);
        assert_int_equal(read, zc_u64(b.values[t * basic_count + zc_metric_index(basic, "GPU_MEMORY_BYTE_READ")]));
        assert_int_equal(zc_u64(s.values[t * count + 0]),
                         zc_u64(b.values[t * basic_count + zc_metric_index(basic, "GpuTime")]));
        double percent =
            100.0 * (double)zc_u64(s.values[t * count + 6]) / ((double)xves * (double)zc_u64(s.values[t * count + 1]));
        assert_true(zc_float_of(&s, t, count, 4) == (float)(percent < 100.0 ? percent : 100.0));
        assert_true(zc_float_of(&s, t, count, 4) > 0.0f);
        uint64_t half = zc_u64(s.values[t * count + 5]);
        assert_true(half == read / 2 || half == (read + 1) / 2);
        assert_true(read > 0);
    }
    zc_sets_free(&s);
    zc_sets_free(&b);
    free(raw);
    free(basic_raw);
    for (int i = 0; i < 2; i++)
        zc_assert_success(ZC_API(zetMetricGroupDestroyExp)(user[i]));
    zc_user_metrics_destroy(&m);
}

/* The TIME_BASED user group streamed: per tile, the results add up to the bytes the work read there
 * (docs/metrics.md, "Signals"), and its export data calculates to the same values. */
static void user_group_streamed_and_calculated(void **state) {
    zc_metric_fixture *f = *state;
    zc_api_require(zetDeviceCreateMetricGroupsFromMetricsExp);
    zc_skip_unless_fake();
    zc_user_metrics m = zc_user_metrics_create(f->x.device);
    zet_metric_group_handle_t user[2];
    zc_user_groups(f->x.device, &m, user);
    size_t size = 0;
    uint8_t *raw = zc_stream_work(f, user[1], 20, &size);
#if ZC_L0_AT_LEAST(6)
    size_t export_size = 0;
    zc_assert_success(ZC_API(zetMetricGroupGetExportDataExp)(user[1], raw, size, &export_size, NULL));
    uint8_t *exported = malloc(export_size);
    assert_non_null(exported);
    zc_assert_success(ZC_API(zetMetricGroupGetExportDataExp)(user[1], raw, size, &export_size, exported));
#endif
    zc_sets s = zc_calculate_sets(user[1], ZET_METRIC_GROUP_CALCULATION_TYPE_METRIC_VALUES, raw, size);
    uint32_t count = zc_metric_count(user[1]), tiles = zc_tiles(f->x.device);
    assert_int_equal(s.num_sets, tiles);
    uint64_t expected = (ZC_WORK_COPY_BYTES + 8u * ZC_WORK_ITEMS) / tiles; /* the copy and the kernel's loads */
    for (uint32_t t = 0, at = 0; t < s.num_sets; at += s.counts[t], t++) {
        uint64_t read = 0;
        for (uint32_t r = 0; r < s.counts[t] / count; r++)
            read += zc_u64(s.values[at + r * count + 3]);
        assert_int_equal(read, expected);
    }
#if ZC_L0_AT_LEAST(6)
    zet_metric_calculate_exp_desc_t desc = {ZET_STRUCTURE_TYPE_METRICS_CALCULATE_EXP_DESC, NULL, 0};
    zc_sets e = {0, NULL, 0, NULL};
    __typeof__(&zetMetricGroupCalculateMetricExportDataExp) calc = ZC_API(zetMetricGroupCalculateMetricExportDataExp);
    zc_assert_success(calc(zc_sys()->driver, ZET_METRIC_GROUP_CALCULATION_TYPE_METRIC_VALUES, export_size, exported,
                           &desc, &e.num_sets, &e.total, NULL, NULL));
    e.counts = calloc(e.num_sets, sizeof *e.counts);
    e.values = calloc(e.total, sizeof *e.values);
    zc_assert_success(calc(zc_sys()->driver, ZET_METRIC_GROUP_CALCULATION_TYPE_METRIC_VALUES, export_size, exported,
                           &desc, &e.num_sets, &e.total, e.counts, e.values));
    zc_assert_same_sets(&e, &s);
    zc_sets_free(&e);
    free(exported);
#endif
    zc_sets_free(&s);
    free(raw);
    for (int i = 0; i < 2; i++)
        zc_assert_success(ZC_API(zetMetricGroupDestroyExp)(user[i]));
    zc_user_metrics_destroy(&m);
}

static void groups_from_metrics_bad_arguments(void **state) {
    zc_metric_fixture *f = *state;
    zc_api_require(zetDeviceCreateMetricGroupsFromMetricsExp);
    zc_skip_unless_fake();
    __typeof__(&zetDeviceCreateMetricGroupsFromMetricsExp) create = ZC_API(zetDeviceCreateMetricGroupsFromMetricsExp);
    zc_user_metrics m = zc_user_metrics_create(f->x.device);
    static const uint64_t third[3] = {0 /* gpu_clocks */, 1, 3};
    zet_metric_handle_t other_half = zc_create_metric(zc_need_programmable(f->x.device, "B0"), third, 3, "Third");
    zet_metric_group_handle_t groups[4];
    uint32_t n = 0;
    const ze_result_t bad = ZE_RESULT_ERROR_INVALID_ARGUMENT;
    zet_metric_handle_t two_b0[2] = {m.half, other_half}; /* one flexible counter: they overlap */
    zc_assert_success(create(f->x.device, 2, two_b0, "B", "", &n, NULL));
    assert_int_equal(n, 4);
    n = 3;
    zc_assert_result(create(f->x.device, 2, two_b0, "B", "", &n, groups), bad); /* fewer than they make */
    n = 4;
    zc_assert_success(create(f->x.device, 2, two_b0, "B", "", &n, groups));
    for (uint32_t i = 0; i < 4; i++)
        zc_assert_success(ZC_API(zetMetricGroupDestroyExp)(groups[i]));
    n = 0;
    zc_assert_result(create(f->x.device, 0, two_b0, "B", "", &n, NULL), bad);
    zet_metric_group_handle_t basic = zc_need_group(f->x.device, "ComputeBasic", ZC_TIME_BASED);
    zet_metric_handle_t predefined[1];
    uint32_t one = 1;
    zc_assert_success(zetMetricGet(basic, &one, predefined));
    zc_assert_result(create(f->x.device, 1, predefined, "B", "", &n, NULL), bad);
    zet_metric_handle_t with_null[2] = {m.read, NULL};
    zc_assert_result(create(f->x.device, 2, with_null, "B", "", &n, NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    if (zc_sys()->num_subdevices[0] > 0)
        zc_assert_result(create(zc_sys()->subdevices[0][0], 1, &m.read, "B", "", &n, NULL), bad);
    char long_prefix[80];
    memset(long_prefix, 'p', sizeof long_prefix - 1);
    long_prefix[sizeof long_prefix - 1] = '\0';
    zc_assert_result(create(f->x.device, 1, &m.read, long_prefix, "", &n, NULL), bad);
    zc_assert_success(ZC_API(zetMetricDestroyExp)(other_half));
    zc_user_metrics_destroy(&m);
}
#endif

static zet_metric_group_handle_t zc_created_group(ze_device_handle_t device, const char *name,
                                                  zet_metric_group_sampling_type_flags_t sampling) {
    zet_metric_group_handle_t group = NULL;
    zc_assert_success(ZC_API(zetMetricGroupCreateExp)(device, name, "made by the test", sampling, &group));
    return group;
}

static void user_group_life_cycle(void **state) {
    zc_metric_fixture *f = *state;
    zc_api_require(zetMetricGroupCreateExp);
    zc_skip_unless_fake();
    zc_user_metrics m = zc_user_metrics_create(f->x.device);
    zet_metric_group_handle_t g = zc_created_group(f->x.device, "Mine", ZC_TIME_BASED);
    const ze_result_t bad = ZE_RESULT_ERROR_INVALID_ARGUMENT, in_use = ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE;
    assert_int_equal(zc_metric_count(g), 0);
    zc_assert_result(ZC_API(zetMetricGroupCloseExp)(g), ZE_RESULT_NOT_READY);                /* nothing to close with */
    zc_assert_result(zetContextActivateMetricGroups(f->x.context, f->x.device, 1, &g), bad); /* not closed */
    zc_assert_success(ZC_API(zetMetricGroupAddMetricExp)(g, m.read, NULL, NULL));
    zc_assert_success(ZC_API(zetMetricGroupAddMetricExp)(g, m.read, NULL, NULL)); /* once only */
    zc_assert_success(ZC_API(zetMetricGroupAddMetricExp)(g, m.half, NULL, NULL));
    assert_int_equal(zc_metric_count(g), 2); /* open: the application's metrics only */
    uint8_t record[ZC_OA_RECORD_SIZE] = {0};
    uint32_t values = 0;
    zc_assert_result(zetMetricGroupCalculateMetricValues(g, ZET_METRIC_GROUP_CALCULATION_TYPE_METRIC_VALUES,
                                                         sizeof record, record, &values, NULL),
                     bad);
    zc_assert_success(ZC_API(zetMetricGroupRemoveMetricExp)(g, m.read));
    zc_assert_result(ZC_API(zetMetricGroupRemoveMetricExp)(g, m.read), bad); /* not in it any more */
    zc_assert_success(ZC_API(zetMetricGroupAddMetricExp)(g, m.read, NULL, NULL));
    zc_assert_success(ZC_API(zetMetricGroupCloseExp)(g));
    zc_assert_success(ZC_API(zetMetricGroupCloseExp)(g)); /* closed already */
    assert_int_equal(zc_metric_count(g), 3 + 2 + 6);
    zc_activate(f->x.context, f->x.device, 1, &g);
    zc_assert_result(ZC_API(zetMetricGroupAddMetricExp)(g, m.active, NULL, NULL), in_use);
    zc_assert_result(ZC_API(zetMetricGroupRemoveMetricExp)(g, m.read), in_use);
    zc_assert_result(ZC_API(zetMetricGroupCloseExp)(g), in_use);
    zc_assert_result(ZC_API(zetMetricGroupDestroyExp)(g), in_use);
    zc_assert_result(ZC_API(zetMetricDestroyExp)(m.read), in_use); /* still in the group */
    /* Streamed, then deactivated: the streamer still uses the group. */
    zet_metric_streamer_desc_t desc = {ZET_STRUCTURE_TYPE_METRIC_STREAMER_DESC, NULL, 8, 100000};
    zet_metric_streamer_handle_t streamer = NULL;
    zc_assert_success(zetMetricStreamerOpen(f->x.context, f->x.device, g, &desc, NULL, &streamer));
    zc_activate(f->x.context, f->x.device, 0, NULL);
    zc_assert_result(ZC_API(zetMetricGroupDestroyExp)(g), in_use);
    zc_assert_success(zetMetricStreamerClose(streamer));
    zc_assert_success(ZC_API(zetMetricGroupDestroyExp)(g));
    zc_assert_result(ZC_API(zetMetricGroupDestroyExp)(g), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_user_metrics_destroy(&m); /* the destroyed group held none of them any more */
}

static void user_group_bad_arguments(void **state) {
    zc_metric_fixture *f = *state;
    zc_api_require(zetMetricGroupCreateExp);
    zc_skip_unless_fake();
    __typeof__(&zetMetricGroupCreateExp) create = ZC_API(zetMetricGroupCreateExp);
    zet_metric_group_handle_t g = NULL;
    const ze_result_t bad = ZE_RESULT_ERROR_INVALID_ARGUMENT;
    zc_assert_result(create(NULL, "a", "b", ZC_TIME_BASED, &g), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(create(f->x.device, NULL, "b", ZC_TIME_BASED, &g), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(create(f->x.device, "a", "b", 0x8, &g), ZE_RESULT_ERROR_INVALID_ENUMERATION);
    zc_assert_result(create(f->x.device, "a", "b", ZC_TIME_BASED | ZC_EVENT_BASED, &g), bad);
    zc_assert_result(create(f->x.device, "a", "b", 0, &g), bad);
    zc_assert_result(create(f->x.device, "a", "b", 0x4 /* tracer based */, &g), bad);
    /* Predefined groups and metrics do not change. */
    zc_user_metrics m = zc_user_metrics_create(f->x.device);
    zet_metric_group_handle_t basic = zc_need_group(f->x.device, "ComputeBasic", ZC_TIME_BASED);
    zc_assert_result(ZC_API(zetMetricGroupAddMetricExp)(basic, m.read, NULL, NULL), bad);
    zc_assert_result(ZC_API(zetMetricGroupRemoveMetricExp)(basic, m.read), bad);
    zc_assert_result(ZC_API(zetMetricGroupCloseExp)(basic), bad);
    zc_assert_result(ZC_API(zetMetricGroupDestroyExp)(basic), bad);
    g = zc_created_group(f->x.device, "Mine", ZC_EVENT_BASED);
    zet_metric_handle_t predefined = NULL;
    uint32_t one = 1;
    zc_assert_success(zetMetricGet(basic, &one, &predefined));
    size_t error_size = 0;
    zc_assert_result(ZC_API(zetMetricGroupAddMetricExp)(g, predefined, &error_size, NULL), bad);
    assert_true(error_size > 1); /* the size of the reason */
    char *why = malloc(error_size);
    assert_non_null(why);
    zc_assert_result(ZC_API(zetMetricGroupAddMetricExp)(g, predefined, &error_size, why), bad);
    assert_int_equal(strlen(why) + 1, error_size);
    free(why);
    zc_assert_result(ZC_API(zetMetricGroupRemoveMetricExp)(g, predefined), bad);
    /* One flexible counter holds one programming: a second metric of B0 is refused, with the reason. */
    static const uint64_t third[3] = {0, 1, 3};
    zet_metric_handle_t other = zc_create_metric(zc_need_programmable(f->x.device, "B0"), third, 3, "Third");
    zc_assert_success(ZC_API(zetMetricGroupAddMetricExp)(g, m.half, NULL, NULL));
    char reason[8];
    error_size = sizeof reason;
    zc_assert_result(ZC_API(zetMetricGroupAddMetricExp)(g, other, &error_size, reason), bad);
    assert_int_equal(error_size, sizeof reason); /* cut to the buffer, terminated */
    assert_int_equal(strlen(reason), sizeof reason - 1);
    if (zc_sys()->num_subdevices[0] > 0) { /* a metric of another device */
        zet_metric_handle_t sub =
            zc_create_metric(zc_need_programmable(zc_sys()->subdevices[0][0], "threads"), NULL, 0, "Threads");
        zc_assert_result(ZC_API(zetMetricGroupAddMetricExp)(g, sub, NULL, NULL), bad);
        zc_assert_success(ZC_API(zetMetricDestroyExp)(sub));
    }
    zc_assert_result(ZC_API(zetMetricGroupAddMetricExp)(g, NULL, NULL, NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_success(ZC_API(zetMetricGroupDestroyExp)(g));
    zc_assert_success(ZC_API(zetMetricDestroyExp)(other));
    zc_user_metrics_destroy(&m);
}

#endif

/* Whatever the headers: the groups zetMetricGroupGet lists are the device's own; none is created by the suite (the
 * groups the tests above create are the application's and never listed). */
static void predefined_groups_are_the_listed_ones(void **state) {
    zc_metric_fixture *f = *state;
    zc_count_query query = zc_metric_group_query(f->x.device);
    uint32_t before = zc_count(&query);
#if ZC_L0_AT_LEAST(9)
    if (ZC_API(zetMetricGroupCreateExp) != NULL && zc_driver_is_fake()) {
        zet_metric_group_handle_t g = zc_created_group(f->x.device, "Unlisted", ZC_EVENT_BASED);
        assert_int_equal(zc_count(&query), before);
        zc_assert_success(ZC_API(zetMetricGroupDestroyExp)(g));
    }
#endif
    assert_true(before > 0);
    zc_check_count_semantics(&query);
}

int main(int argc, char **argv) {
#define ZC_FIXTURE metric_fixture
    static const struct CMUnitTest tests[] = {
        ZC_T(predefined_groups_are_the_listed_ones),
#if ZC_L0_AT_LEAST(9)
        ZC_T(programmables_enumerated_with_their_parameters),
        ZC_T(programmable_bad_arguments),
        ZC_T(metrics_from_programmables),
        ZC_T(metrics_from_programmables_bad_arguments),
        ZC_T(user_group_life_cycle),
        ZC_T(user_group_bad_arguments),
#endif
#if ZC_L0_AT_LEAST(10)
        ZC_T(user_group_query_measures_like_the_predefined_group),
        ZC_T(user_group_streamed_and_calculated),
        ZC_T(groups_from_metrics_bad_arguments),
#endif
    };
    static const zc_suite suite = {ZC_EXECUTABLE, tests, ZC_COUNT(tests), zc_setup_system, zc_teardown_system, NULL, 0};
    return zc_main(argc, argv, &suite);
}
