/* Conformance: metric group and metric enumeration (zetMetricGroupGet, zetMetricGet and their properties). On the
 * fake, the groups of the default scenario as docs/metrics.md lists them. */
#include "zc_metric.h"

#include <stdio.h>

static bool zc_valid_metric_type(zet_metric_type_t type) {
#if ZC_L0_AT_LEAST(11)
    if (type == ZET_METRIC_TYPE_EVENT_EXP_TIMESTAMP || type == ZET_METRIC_TYPE_EVENT_EXP_START ||
        type == ZET_METRIC_TYPE_EVENT_EXP_END || type == ZET_METRIC_TYPE_EVENT_EXP_MONOTONIC_WRAPS_VALUE)
        return true;
#endif
    return (type >= ZET_METRIC_TYPE_DURATION && type <= ZET_METRIC_TYPE_RAW) || type == ZET_METRIC_TYPE_IP_EXP;
}

static void zc_check_group(zet_metric_group_handle_t group) {
    zet_metric_group_properties_t p = zc_group_properties(group);
    assert_true(p.name[0] != '\0');
    assert_true(memchr(p.name, '\0', sizeof p.name) != NULL);
    assert_true(memchr(p.description, '\0', sizeof p.description) != NULL);
    assert_true(p.samplingType & ZC_ALL_SAMPLING);
    assert_int_equal(p.samplingType & ~(uint32_t)ZC_ALL_SAMPLING, 0);
    zc_count_query query = zc_metric_query_of(group);
    assert_int_equal(zc_count(&query), p.metricCount);
    zc_check_count_semantics(&query);
    uint32_t n = 0;
    zet_metric_handle_t *metrics = zc_query_all(&query, &n);
    for (uint32_t i = 0; i < n; i++) {
        zet_metric_properties_t m = zc_metric_properties(metrics[i]);
        if (m.name[0] == '\0' || !zc_valid_metric_type(m.metricType) || m.resultType > ZET_VALUE_TYPE_BOOL8)
            zc_fail("%s: metric %u (%s) has type %d and result type %d", p.name, i, m.name, (int)m.metricType,
                    (int)m.resultType);
    }
    free(metrics);
}

static void metric_groups_count_semantics_on_every_device(void **state) {
    (void)state;
    const zc_system *sys = zc_sys();
    for (uint32_t d = 0; d < sys->num_all; d++) {
        zc_count_query query = zc_metric_group_query(sys->all[d]);
        zc_check_count_semantics(&query);
        uint32_t n = 0;
        zet_metric_group_handle_t *groups = zc_query_all(&query, &n);
        for (uint32_t i = 0; i < n; i++)
            zc_check_group(groups[i]);
        free(groups);
    }
}

/* Tools fill the properties with stype left 0 and expect the call to work. */
static void metric_properties_accept_stype_zero(void **state) {
    (void)state;
    zet_metric_group_handle_t group = zc_need_group(zc_sys()->roots[0], "ComputeBasic", ZC_TIME_BASED);
    zet_metric_group_properties_t gp;
    memset(&gp, 0, sizeof gp);
    zc_assert_success(zetMetricGroupGetProperties(group, &gp));
    assert_string_equal(gp.name, "ComputeBasic");
    zet_metric_handle_t metric = NULL;
    uint32_t one = 1;
    zc_assert_success(zetMetricGet(group, &one, &metric));
    zet_metric_properties_t mp;
    memset(&mp, 0, sizeof mp);
    zc_assert_success(zetMetricGetProperties(metric, &mp));
    assert_true(mp.name[0] != '\0');
    if (zc_driver_is_fake()) {
        /* docs/chains.md: any other stype is answered too, the base fields only, stype and pNext kept. */
        memset(&gp, 0, sizeof gp);
        gp.stype = ZET_STRUCTURE_TYPE_METRIC_PROPERTIES;
        zc_assert_success(zetMetricGroupGetProperties(group, &gp));
        assert_int_equal(gp.stype, ZET_STRUCTURE_TYPE_METRIC_PROPERTIES);
        assert_string_equal(gp.name, "ComputeBasic");
        memset(&mp, 0, sizeof mp);
        mp.stype = ZET_STRUCTURE_TYPE_METRIC_GROUP_PROPERTIES;
        zc_assert_success(zetMetricGetProperties(metric, &mp));
        assert_int_equal(mp.stype, ZET_STRUCTURE_TYPE_METRIC_GROUP_PROPERTIES);
        assert_true(mp.name[0] != '\0');
    }
}

/* docs/chains.md: properties of garbage bytes (stype and pNext included) are answered without following pNext. */
static void metric_properties_answer_garbage_structs(void **state) {
    (void)state;
    zc_skip_unless_fake();
    zet_metric_group_handle_t group = zc_need_group(zc_sys()->roots[0], "ComputeBasic", ZC_TIME_BASED);
    zet_metric_group_properties_t gp;
    memset(&gp, 0xa5, sizeof gp);
    zc_assert_success(zetMetricGroupGetProperties(group, &gp));
    assert_string_equal(gp.name, "ComputeBasic");
    assert_int_equal(gp.metricCount, zc_group_properties(group).metricCount);
    zet_metric_handle_t metric = NULL;
    uint32_t one = 1;
    zc_assert_success(zetMetricGet(group, &one, &metric));
    zet_metric_properties_t mp;
    memset(&mp, 0xa5, sizeof mp);
    zc_assert_success(zetMetricGetProperties(metric, &mp));
    assert_string_equal(mp.name, zc_metric_properties(metric).name);
    uint32_t pattern;
    memset(&pattern, 0xa5, sizeof pattern);
    assert_int_equal((uint32_t)gp.stype, pattern);
    assert_int_equal((uint32_t)mp.stype, pattern);
}

static void metric_arguments_checked(void **state) {
    (void)state;
    zet_metric_group_handle_t group = zc_need_group(zc_sys()->roots[0], "ComputeBasic", ZC_TIME_BASED);
    zc_assert_result(zetMetricGroupGet(zc_sys()->roots[0], NULL, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zetMetricGroupGetProperties(group, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zetMetricGet(group, NULL, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zetMetricGet(NULL, NULL, NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    if (zc_driver_is_fake()) {
        uint32_t count = 0;
        /* A handle of another type is not a metric group. */
        zc_assert_result(zetMetricGet((zet_metric_group_handle_t)zc_sys()->roots[0], &count, NULL),
                         ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    }
}

/* ---- The default scenario (fake only) ------------------------------------------------------------------------- */

typedef struct zc_expected_group {
    const char *name;
    uint32_t sampling;
    uint32_t domain;
} zc_expected_group;

static void metric_groups_of_default_scenario(void **state) {
    (void)state;
    zc_skip_unless_fake();
    if (getenv("ZC_VARIANT") != NULL)
        skip();
    static const zc_expected_group expected[] = {
        {"ComputeBasic", ZC_TIME_BASED, 0},
        {"ComputeBasic", ZC_EVENT_BASED, 0},
        {"MemProfile", ZC_TIME_BASED, 0},
        {"MemProfile", ZC_EVENT_BASED, 0},
        {"TestOa", ZC_TIME_BASED, 0},
        {"TestOa", ZC_EVENT_BASED, 0},
        {"EngineActivity", ZC_TIME_BASED, 1},
        {"EngineActivity", ZC_EVENT_BASED, 1},
        {"EuStallSampling", ZC_TIME_BASED, 100},
#if ZC_L0_AT_LEAST(10)
        {"EngineEvents", ZC_TRACER_BASED, 101}, /* the tracer's events, in a domain of their own */
#endif
    };
    const zc_system *sys = zc_sys();
    for (uint32_t d = 0; d < sys->num_all; d++) {
        zc_count_query query = zc_metric_group_query(sys->all[d]);
        uint32_t n = 0;
        zet_metric_group_handle_t *groups = zc_query_all(&query, &n);
        assert_int_equal(n, ZC_COUNT(expected));
        for (uint32_t i = 0; i < n; i++) {
            zet_metric_group_properties_t p = zc_group_properties(groups[i]);
            if (strcmp(p.name, expected[i].name) != 0 || p.samplingType != expected[i].sampling ||
                p.domain != expected[i].domain)
                zc_fail("device %u group %u: %s sampling %u domain %u, expected %s %u %u", d, i, p.name, p.samplingType,
                        p.domain, expected[i].name, expected[i].sampling, expected[i].domain);
        }
        free(groups);
    }
}

typedef struct zc_expected_metric {
    const char *name;
    zet_metric_type_t type;
    zet_value_type_t value;
    const char *units;
} zc_expected_metric;

static void zc_check_metric(zet_metric_group_handle_t group, const zc_expected_metric *e) {
    zet_metric_handle_t metrics[64];
    uint32_t n = 64;
    zc_assert_success(zetMetricGet(group, &n, metrics));
    uint32_t index = zc_metric_index(group, e->name);
    zet_metric_properties_t p = zc_metric_properties(metrics[index]);
    if (p.metricType != e->type || p.resultType != e->value || strcmp(p.resultUnits, e->units) != 0)
        zc_fail("%s: type %d, value %d, units '%s'; expected %d, %d, '%s'", e->name, (int)p.metricType,
                (int)p.resultType, p.resultUnits, (int)e->type, (int)e->value, e->units);
}

static void metric_compute_basic_names_types_and_information(void **state) {
    (void)state;
    zc_skip_unless_fake();
    const char *variant = getenv("ZC_VARIANT");
    if (variant != NULL && strcmp(variant, "integrated") == 0)
        skip(); /* Meteor Lake names: XveActive... */
    zet_metric_group_handle_t time = zc_need_group(zc_sys()->roots[0], "ComputeBasic", ZC_TIME_BASED);
    zet_metric_group_handle_t event = zc_need_group(zc_sys()->roots[0], "ComputeBasic", ZC_EVENT_BASED);
    static const zc_expected_metric expected[] = {
        {"GpuTime", ZET_METRIC_TYPE_DURATION, ZET_VALUE_TYPE_UINT64, "ns"},
        {"GpuCoreClocks", ZET_METRIC_TYPE_EVENT, ZET_VALUE_TYPE_UINT64, "cycles"},
        {"AvgGpuCoreFrequencyMHz", ZET_METRIC_TYPE_THROUGHPUT, ZET_VALUE_TYPE_UINT64, "MHz"},
        {"XVE_ACTIVE", ZET_METRIC_TYPE_DURATION, ZET_VALUE_TYPE_FLOAT32, "percent"},
        {"XVE_STALL", ZET_METRIC_TYPE_DURATION, ZET_VALUE_TYPE_FLOAT32, "percent"},
        {"XVE_BUSY", ZET_METRIC_TYPE_DURATION, ZET_VALUE_TYPE_FLOAT32, "percent"},
        {"XVE_THREADS_OCCUPANCY_ALL", ZET_METRIC_TYPE_DURATION, ZET_VALUE_TYPE_FLOAT32, "percent"},
        {"XVE_COMPUTE_THREAD_COUNT", ZET_METRIC_TYPE_EVENT, ZET_VALUE_TYPE_UINT64, "threads"},
        {"L3_BYTE_READ", ZET_METRIC_TYPE_THROUGHPUT, ZET_VALUE_TYPE_UINT64, "bytes"},
        {"GPU_MEMORY_BYTE_WRITE", ZET_METRIC_TYPE_THROUGHPUT, ZET_VALUE_TYPE_UINT64, "bytes"},
    };
    for (size_t i = 0; i < ZC_COUNT(expected); i++) {
        zc_check_metric(time, &expected[i]);
        zc_check_metric(event, &expected[i]);
    }
    /* 28 metrics, then the information entries, which metricCount includes. */
    static const char *const time_info[] = {"QueryBeginTime", "CoreFrequencyMHz", "ReportReason",
                                            "ContextIdValid", "ContextId",        "StreamMarker"};
    static const char *const event_info[] = {"QueryBeginTime",     "CoreFrequencyMHz", "CoreFrequencyChanged",
                                             "QuerySplitOccurred", "ReportError",      "ReportLost",
                                             "ContextId"};
    assert_int_equal(zc_metric_count(time), 28 + ZC_COUNT(time_info));
    assert_int_equal(zc_metric_count(event), 28 + ZC_COUNT(event_info));
    for (uint32_t i = 0; i < ZC_COUNT(time_info); i++)
        assert_int_equal(zc_metric_index(time, time_info[i]), 28 + i);
    for (uint32_t i = 0; i < ZC_COUNT(event_info); i++)
        assert_int_equal(zc_metric_index(event, event_info[i]), 28 + i);
    assert_int_equal(zc_metric_index(time, "GpuTime"), 0);
}

static void metric_eu_stall_sampling_group(void **state) {
    (void)state;
    zc_skip_unless_fake();
    zet_metric_group_handle_t group = zc_need_group(zc_sys()->roots[0], "EuStallSampling", ZC_TIME_BASED);
    assert_null(zc_find_group(zc_sys()->roots[0], "EuStallSampling", ZC_EVENT_BASED));
    assert_int_equal(zc_group_properties(group).domain, 100);
    static const char *const names[] = {"IP",        "Active",    "ControlStall", "PipeStall",       "SendStall",
                                        "DistStall", "SbidStall", "SyncStall",    "InstrFetchStall", "OtherStall"};
    assert_int_equal(zc_metric_count(group), ZC_COUNT(names));
    for (uint32_t i = 0; i < ZC_COUNT(names); i++)
        assert_int_equal(zc_metric_index(group, names[i]), i);
    zet_metric_handle_t ip = NULL;
    uint32_t one = 1;
    zc_assert_success(zetMetricGet(group, &one, &ip));
    assert_int_equal(zc_metric_properties(ip).metricType, ZET_METRIC_TYPE_IP_EXP);
}

/* Sub-devices have groups of their own: distinct handles with the same names. */
static void metric_groups_on_subdevices_are_their_own(void **state) {
    (void)state;
    const zc_system *sys = zc_sys();
    if (sys->num_subdevices[0] == 0)
        skip();
    zet_metric_group_handle_t root = zc_need_group(sys->roots[0], "ComputeBasic", ZC_TIME_BASED);
    for (uint32_t s = 0; s < sys->num_subdevices[0]; s++) {
        zet_metric_group_handle_t sub = zc_need_group(sys->subdevices[0][s], "ComputeBasic", ZC_TIME_BASED);
        assert_ptr_not_equal(sub, root);
        assert_int_equal(zc_metric_count(sub), zc_metric_count(root));
    }
}

int main(int argc, char **argv) {
    static const struct CMUnitTest tests[] = {
        cmocka_unit_test(metric_groups_count_semantics_on_every_device),
        cmocka_unit_test(metric_properties_accept_stype_zero),
        cmocka_unit_test(metric_properties_answer_garbage_structs),
        cmocka_unit_test(metric_arguments_checked),
        cmocka_unit_test(metric_groups_of_default_scenario),
        cmocka_unit_test(metric_compute_basic_names_types_and_information),
        cmocka_unit_test(metric_eu_stall_sampling_group),
        cmocka_unit_test(metric_groups_on_subdevices_are_their_own),
    };
    static const zc_suite suite = {ZC_EXECUTABLE, tests, ZC_COUNT(tests), zc_setup_system, zc_teardown_system, NULL, 0};
    return zc_main(argc, argv, &suite);
}
