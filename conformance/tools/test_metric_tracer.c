/* Conformance: the metric tracer (headers 1.10 and later): tracer groups, tracers created on activated groups,
 * enabled and disabled, their raw data read and decoded by decoders into entries per sub-device. The loader may lack
 * these functions: the tests call them through ZC_API. On the fake, docs/metrics.md ("Metric tracer") gives the
 * events of each command and the record format. */
#include "zc_exec.h"
#include "zc_kernel_files.h"
#include "zc_metric.h"
#include "zc_metric_exp.h"

#if ZC_L0_AT_LEAST(10)

/* docs/metrics.md, "Metric tracer": the events of the fake's tracer group, in order. */
enum { ZC_KERNEL_BEGIN, ZC_KERNEL_END, ZC_COPY_BEGIN, ZC_COPY_END, ZC_COMMAND_BEGIN, ZC_COMMAND_END, ZC_CYCLES };
#define ZC_TRACE_EVENTS 8u
#define ZC_TRACE_RECORD 32u

static zet_metric_group_handle_t zc_tracer_group(ze_device_handle_t device) {
    zc_count_query query = zc_metric_group_query(device);
    uint32_t n = 0;
    zet_metric_group_handle_t *groups = zc_query_all(&query, &n), found = NULL;
    for (uint32_t i = 0; i < n && found == NULL; i++) {
        if (zc_group_properties(groups[i]).samplingType & ZC_TRACER_BASED)
            found = groups[i];
    }
    free(groups);
    if (found == NULL && zc_driver_is_fake())
        zc_fail("the device has no tracer group");
    if (found == NULL)
        skip();
    return found;
}

static zet_metric_tracer_exp_handle_t zc_tracer(zc_exec *x, zet_metric_group_handle_t group, uint32_t notify,
                                                ze_event_handle_t event) {
    zet_metric_tracer_exp_desc_t desc = {ZET_STRUCTURE_TYPE_METRIC_TRACER_EXP_DESC, NULL, notify};
    zet_metric_tracer_exp_handle_t tracer = NULL;
    zc_assert_success(ZC_API(zetMetricTracerCreateExp)(x->context, x->device, 1, &group, &desc, event, &tracer));
    return tracer;
}

/* Everything the tracer has collected (asserts the result is `expected`); free it. */
static uint8_t *zc_tracer_read(zet_metric_tracer_exp_handle_t tracer, size_t *size, ze_result_t expected) {
    *size = 0;
    ze_result_t result = ZC_API(zetMetricTracerReadDataExp)(tracer, size, NULL);
    assert_true(result == ZE_RESULT_SUCCESS || result == ZE_RESULT_NOT_READY);
    uint8_t *data = malloc(*size + 1);
    assert_non_null(data);
    if (*size > 0)
        zc_assert_result(ZC_API(zetMetricTracerReadDataExp)(tracer, size, data), expected);
    return data;
}

typedef struct zc_decoded {
    uint32_t sets;
    uint32_t total;
    uint32_t per_set[64];
    zet_metric_entry_exp_t *entries;
} zc_decoded;

static zc_decoded zc_decode(zet_metric_decoder_exp_handle_t decoder, uint8_t *raw, size_t size, uint32_t count,
                            zet_metric_handle_t *metrics) {
    zc_decoded d = {0, 0, {0}, NULL};
    __typeof__(&zetMetricTracerDecodeExp) decode = ZC_API(zetMetricTracerDecodeExp);
    zc_assert_success(decode(decoder, &size, raw, count, metrics, &d.sets, NULL, &d.total, NULL));
    assert_true(d.sets <= 64);
    d.entries = calloc(d.total + 1, sizeof *d.entries);
    assert_non_null(d.entries);
    zc_assert_success(decode(decoder, &size, raw, count, metrics, &d.sets, d.per_set, &d.total, d.entries));
    return d;
}

static void tracer_group_and_decodable_metrics(void **state) {
    zc_metric_fixture *f = *state;
    zet_metric_group_handle_t group = zc_tracer_group(f->x.device);
    zet_metric_group_properties_t p = zc_group_properties(group);
    assert_int_equal(p.samplingType, ZC_TRACER_BASED);
    zc_count_query query = zc_metric_query_of(group);
    zc_check_count_semantics(&query);
    zc_skip_unless_fake();
    assert_string_equal(p.name, "EngineEvents");
    assert_int_equal(p.metricCount, ZC_TRACE_EVENTS);
    zet_metric_handle_t metrics[ZC_TRACE_EVENTS];
    uint32_t n = ZC_TRACE_EVENTS;
    zc_assert_success(zetMetricGet(group, &n, metrics));
    assert_string_equal(zc_metric_properties(metrics[ZC_KERNEL_BEGIN]).name, "KernelBegin");
    assert_int_equal(zc_metric_properties(metrics[ZC_KERNEL_BEGIN]).metricType, ZET_METRIC_TYPE_EVENT_EXP_START);
    assert_int_equal(zc_metric_properties(metrics[ZC_COPY_END]).metricType, ZET_METRIC_TYPE_EVENT_EXP_END);
    assert_int_equal(zc_metric_properties(metrics[ZC_CYCLES]).metricType,
                     ZET_METRIC_TYPE_EVENT_EXP_MONOTONIC_WRAPS_VALUE);
    /* Its data is decoded, not calculated. */
    uint8_t record[ZC_TRACE_RECORD] = {0};
    uint32_t count = 0;
    zc_assert_result(zetMetricGroupCalculateMetricValues(group, ZET_METRIC_GROUP_CALCULATION_TYPE_METRIC_VALUES,
                                                         sizeof record, record, &count, NULL),
                     ZE_RESULT_ERROR_INVALID_ARGUMENT);
    /* Streamers and query pools are for the other sampling types. */
    zc_activate(f->x.context, f->x.device, 1, &group);
    zet_metric_streamer_desc_t desc = {ZET_STRUCTURE_TYPE_METRIC_STREAMER_DESC, NULL, 8, 100000};
    zet_metric_streamer_handle_t streamer = NULL;
    zc_assert_result(zetMetricStreamerOpen(f->x.context, f->x.device, group, &desc, NULL, &streamer),
                     ZE_RESULT_ERROR_INVALID_ARGUMENT);
}

/* The work under an enabled tracer: per tile, the kernel's begin and end, then the copy's, each end followed by the
 * busy cycles of the tile's engines so far (docs/metrics.md, "Metric tracer"). */
static void tracer_records_what_the_engines_execute(void **state) {
    zc_metric_fixture *f = *state;
    zc_api_require(zetMetricTracerCreateExp);
    zet_metric_group_handle_t group = zc_tracer_group(f->x.device);
    zc_activate(f->x.context, f->x.device, 1, &group);
    zet_metric_tracer_exp_handle_t tracer = zc_tracer(&f->x, group, 4096, NULL);
    size_t size = 0;
    zc_assert_result(ZC_API(zetMetricTracerReadDataExp)(tracer, &size, NULL), ZE_RESULT_NOT_READY); /* disabled */
    zc_run_work(f, NULL, NULL); /* not traced: the tracer is created disabled */
    zc_assert_success(ZC_API(zetMetricTracerEnableExp)(tracer, true));
    zc_assert_success(ZC_API(zetMetricTracerReadDataExp)(tracer, &size, NULL));
    assert_int_equal(size, 0);
    zc_run_work(f, NULL, NULL);
    zc_assert_success(ZC_API(zetMetricTracerDisableExp)(tracer, true));
    uint8_t *raw = zc_tracer_read(tracer, &size, ZE_RESULT_SUCCESS);
    size_t after = 0;
    zc_assert_result(ZC_API(zetMetricTracerReadDataExp)(tracer, &after, NULL), ZE_RESULT_NOT_READY); /* drained */
    zet_metric_decoder_exp_handle_t decoder = NULL;
    zc_assert_success(ZC_API(zetMetricDecoderCreateExp)(tracer, &decoder));
    uint32_t n = 0;
    zet_metric_handle_t metrics[16];
    zc_assert_success(ZC_API(zetMetricDecoderGetDecodableMetricsExp)(decoder, &n, metrics)); /* the count */
    assert_true(n > 0 && n <= 16);
    zc_assert_success(ZC_API(zetMetricDecoderGetDecodableMetricsExp)(decoder, &n, metrics));
    zc_decoded d = zc_decode(decoder, raw, size, n, metrics);
    uint32_t tiles = zc_tiles(f->x.device);
    assert_int_equal(d.sets, tiles);
    if (zc_driver_is_fake()) {
        assert_int_equal(size, tiles * 6u * ZC_TRACE_RECORD);
        static const uint32_t order[6] = {ZC_KERNEL_BEGIN, ZC_KERNEL_END, ZC_CYCLES,
                                          ZC_COPY_BEGIN,   ZC_COPY_END,   ZC_CYCLES};
        uint32_t context = (f->x.compute_ordinal + 1u) << 8;
        for (uint32_t s = 0, at = 0; s < d.sets; at += d.per_set[s], s++) {
            assert_int_equal(d.per_set[s], 6);
            const zet_metric_entry_exp_t *e = &d.entries[at];
            for (uint32_t i = 0; i < 6; i++) {
                assert_int_equal(e[i].metricIndex, order[i]);
                assert_int_equal(e[i].onSubdevice, tiles > 1);
                if (tiles > 1)
                    assert_int_equal(e[i].subdeviceId, s);
                if (i > 0)
                    assert_true(e[i].timeStamp >= e[i - 1].timeStamp);
            }
            assert_int_equal(e[0].value.ui32, context);
            assert_int_equal(e[4].value.ui32, context);
            assert_true(e[5].value.ui64 > e[2].value.ui64); /* the copy's cycles came on top of the kernel's */
        }
    }
    free(d.entries);
    free(raw);
    zc_assert_success(ZC_API(zetMetricDecoderDestroyExp)(decoder));
    zc_assert_success(ZC_API(zetMetricTracerDestroyExp)(tracer));
    zc_assert_result(ZC_API(zetMetricTracerDestroyExp)(tracer), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
}

static void tracer_create_checks(void **state) {
    zc_metric_fixture *f = *state;
    zc_api_require(zetMetricTracerCreateExp);
    __typeof__(&zetMetricTracerCreateExp) create = ZC_API(zetMetricTracerCreateExp);
    zet_metric_group_handle_t group = zc_tracer_group(f->x.device);
    zet_metric_tracer_exp_desc_t desc = {ZET_STRUCTURE_TYPE_METRIC_TRACER_EXP_DESC, NULL, 100};
    zet_metric_tracer_exp_handle_t tracer = NULL;
    zc_assert_result(create(NULL, f->x.device, 1, &group, &desc, NULL, &tracer), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(create(f->x.context, f->x.device, 1, NULL, &desc, NULL, &tracer),
                     ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(create(f->x.context, f->x.device, 1, &group, NULL, NULL, &tracer),
                     ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_skip_unless_fake();
    zc_assert_result(create(f->x.context, f->x.device, 1, &group, &desc, NULL, &tracer),
                     ZE_RESULT_NOT_READY); /* not activated, as for streamers */
    zc_activate(f->x.context, f->x.device, 1, &group);
    zet_metric_group_handle_t streamed = zc_need_group(f->x.device, "ComputeBasic", ZC_TIME_BASED);
    zc_assert_result(create(f->x.context, f->x.device, 1, &streamed, &desc, NULL, &tracer),
                     ZE_RESULT_ERROR_INVALID_ARGUMENT);
    zc_assert_result(create(f->x.context, f->x.device, 0, &group, &desc, NULL, &tracer),
                     ZE_RESULT_ERROR_INVALID_ARGUMENT);
    desc.stype = ZET_STRUCTURE_TYPE_METRIC_STREAMER_DESC;
    zc_assert_result(create(f->x.context, f->x.device, 1, &group, &desc, NULL, &tracer),
                     ZE_RESULT_ERROR_INVALID_ARGUMENT);
    desc.stype = ZET_STRUCTURE_TYPE_METRIC_TRACER_EXP_DESC;
    ze_event_pool_desc_t pool_desc = {ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, NULL, 0, 1}; /* not host visible */
    ze_event_pool_handle_t pool = NULL;
    zc_assert_success(zeEventPoolCreate(f->x.context, &pool_desc, 1, &f->x.device, &pool));
    ze_event_handle_t hidden = zc_event(pool, 0);
    zc_assert_result(create(f->x.context, f->x.device, 1, &group, &desc, hidden, &tracer),
                     ZE_RESULT_ERROR_INVALID_SYNCHRONIZATION_OBJECT);
    zc_assert_success(create(f->x.context, f->x.device, 1, &group, &desc, NULL, &tracer));
    assert_int_equal(desc.notifyEveryNBytes, 128); /* whole 32-byte records */
    zet_metric_tracer_exp_handle_t second = NULL;
    zc_assert_result(create(f->x.context, f->x.device, 1, &group, &desc, NULL, &second),
                     ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE);
    if (zc_sys()->num_subdevices[0] > 0) { /* a sub-device's tile is traced already */
        ze_device_handle_t sub = zc_sys()->subdevices[0][0];
        zet_metric_group_handle_t sub_group = zc_tracer_group(sub);
        zc_activate(f->x.context, sub, 1, &sub_group);
        zc_assert_result(create(f->x.context, sub, 1, &sub_group, &desc, NULL, &second),
                         ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE);
        zc_activate(f->x.context, sub, 0, NULL);
    }
    zc_assert_success(ZC_API(zetMetricTracerDestroyExp)(tracer));
    desc.notifyEveryNBytes = 1;
    zc_assert_success(create(f->x.context, f->x.device, 1, &group, &desc, NULL, &tracer));
    assert_int_equal(desc.notifyEveryNBytes, ZC_TRACE_RECORD);
    zc_assert_success(ZC_API(zetMetricTracerDestroyExp)(tracer));
    zc_assert_success(zeEventDestroy(hidden));
    zc_assert_success(zeEventPoolDestroy(pool));
}

/* A buffer of two records (notifyEveryNBytes 32): the rest is dropped, and the read says so; the notification event
 * is signalled once 32 bytes are collected. */
static void tracer_overflow_and_notification(void **state) {
    zc_metric_fixture *f = *state;
    zc_api_require(zetMetricTracerCreateExp);
    zc_skip_unless_fake();
    zet_metric_group_handle_t group = zc_tracer_group(f->x.device);
    zc_activate(f->x.context, f->x.device, 1, &group);
    ze_event_pool_handle_t pool = zc_event_pool(&f->x, 1, 0);
    ze_event_handle_t event = zc_event(pool, 0);
    zet_metric_tracer_exp_handle_t tracer = zc_tracer(&f->x, group, 32, event);
    zc_assert_success(ZC_API(zetMetricTracerEnableExp)(tracer, false));
    zc_assert_result(zeEventQueryStatus(event), ZE_RESULT_NOT_READY);
    zc_run_work(f, NULL, NULL);
    zc_assert_success(zeEventQueryStatus(event));
    size_t size = 0;
    uint8_t *raw = zc_tracer_read(tracer, &size, ZE_RESULT_WARNING_DROPPED_DATA);
    assert_int_equal(size, 2 * ZC_TRACE_RECORD);
    free(raw);
    zc_assert_success(ZC_API(zetMetricTracerReadDataExp)(tracer, &size, NULL)); /* enabled: success, empty */
    assert_int_equal(size, 0);
    zc_assert_success(ZC_API(zetMetricTracerDestroyExp)(tracer));
    zc_assert_success(zeEventDestroy(event));
    zc_assert_success(zeEventPoolDestroy(pool));
}

static void zc_record(uint8_t *rec, uint32_t event, uint32_t tile, uint64_t ts, uint64_t value) {
    memset(rec, 0, ZC_TRACE_RECORD);
    zc_put32(rec, event);
    zc_put32(rec + 4, tile);
    zc_put64(rec + 8, ts);
    zc_put64(rec + 16, value);
}

static void tracer_decode_limits_and_bad_data(void **state) {
    zc_metric_fixture *f = *state;
    zc_api_require(zetMetricTracerCreateExp);
    zc_skip_unless_fake(); /* records written by hand (docs/metrics.md) */
    __typeof__(&zetMetricTracerDecodeExp) decode = ZC_API(zetMetricTracerDecodeExp);
    zet_metric_group_handle_t group = zc_tracer_group(f->x.device);
    zc_activate(f->x.context, f->x.device, 1, &group);
    zet_metric_tracer_exp_handle_t tracer = zc_tracer(&f->x, group, 4096, NULL);
    zet_metric_decoder_exp_handle_t decoder = NULL;
    zc_assert_success(ZC_API(zetMetricDecoderCreateExp)(tracer, &decoder));
    zet_metric_handle_t metrics[ZC_TRACE_EVENTS];
    uint32_t n = ZC_TRACE_EVENTS;
    zc_assert_success(ZC_API(zetMetricDecoderGetDecodableMetricsExp)(decoder, &n, metrics));
    uint8_t raw[4 * ZC_TRACE_RECORD];
    zc_record(raw, ZC_KERNEL_BEGIN, 0, 100, 0x100);
    zc_record(raw + 32, ZC_KERNEL_END, 0, 200, 0x100);
    zc_record(raw + 64, ZC_COPY_BEGIN, 0, 300, 0x100);
    zc_record(raw + 96, ZC_COPY_END, 0, 400, 0x100);
    /* Only the kernel's end is asked for: it is entry 0 of phMetrics. */
    zc_decoded d = zc_decode(decoder, raw, sizeof raw, 1, &metrics[ZC_KERNEL_END]);
    assert_int_equal(d.total, 1);
    assert_int_equal(d.entries[0].metricIndex, 0);
    assert_int_equal(d.entries[0].timeStamp, 200);
    free(d.entries);
    /* Room for two entries: the bytes decoded are written back. */
    size_t size = sizeof raw;
    uint32_t sets = 64, per_set[64], total = 2;
    zet_metric_entry_exp_t entries[2];
    zc_assert_success(decode(decoder, &size, raw, n, metrics, &sets, per_set, &total, entries));
    assert_int_equal(total, 2);
    assert_int_equal(size, 2 * ZC_TRACE_RECORD);
    assert_int_equal(entries[1].timeStamp, 200);
    const ze_result_t bad = ZE_RESULT_ERROR_INVALID_ARGUMENT;
    size = sizeof raw - 1;
    zc_assert_result(decode(decoder, &size, raw, n, metrics, &sets, per_set, &total, entries),
                     ZE_RESULT_ERROR_INVALID_SIZE);
    size = sizeof raw;
    zc_record(raw + 96, 99, 0, 400, 0); /* no such event */
    zc_assert_result(decode(decoder, &size, raw, n, metrics, &sets, per_set, &total, entries), bad);
    zc_record(raw + 96, ZC_COPY_END, 77, 400, 0); /* no such tile */
    zc_assert_result(decode(decoder, &size, raw, n, metrics, &sets, per_set, &total, entries), bad);
    zc_record(raw + 96, ZC_COPY_END, 0, 400, 0);
    zet_metric_handle_t of_group = NULL; /* not a decodable metric */
    uint32_t one = 1;
    zc_assert_success(zetMetricGet(group, &one, &of_group));
    zc_assert_result(decode(decoder, &size, raw, 1, &of_group, &sets, per_set, &total, entries), bad);
    zc_assert_result(decode(NULL, &size, raw, n, metrics, &sets, per_set, &total, entries),
                     ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(decode(decoder, NULL, raw, n, metrics, &sets, per_set, &total, entries),
                     ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    /* The decoder outlives its tracer: it holds what decoding needs. */
    zc_assert_success(ZC_API(zetMetricTracerDestroyExp)(tracer));
    size = sizeof raw;
    total = 2;
    zc_assert_success(decode(decoder, &size, raw, n, metrics, &sets, per_set, &total, entries));
    zc_assert_success(ZC_API(zetMetricDecoderDestroyExp)(decoder));
    zc_assert_result(ZC_API(zetMetricDecoderDestroyExp)(decoder), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
}

#endif

/* Whatever the headers: no group the device lists has a sampling type the headers do not name. */
static void listed_groups_have_known_sampling_types(void **state) {
    zc_metric_fixture *f = *state;
    zc_count_query query = zc_metric_group_query(f->x.device);
    uint32_t n = 0;
    zet_metric_group_handle_t *groups = zc_query_all(&query, &n);
    for (uint32_t i = 0; i < n; i++) {
        zet_metric_group_sampling_type_flags_t s = zc_group_properties(groups[i]).samplingType;
        assert_true(s != 0 && (s & ~(uint32_t)ZC_ALL_SAMPLING) == 0);
    }
    free(groups);
}

int main(int argc, char **argv) {
#define ZC_FIXTURE metric_fixture
    static const struct CMUnitTest tests[] = {
        ZC_T(listed_groups_have_known_sampling_types),
#if ZC_L0_AT_LEAST(10)
        ZC_T(tracer_group_and_decodable_metrics),
        ZC_T(tracer_records_what_the_engines_execute),
        ZC_T(tracer_create_checks),
        ZC_T(tracer_overflow_and_notification),
        ZC_T(tracer_decode_limits_and_bad_data),
#endif
    };
    static const zc_suite suite = {ZC_EXECUTABLE, tests, ZC_COUNT(tests), zc_setup_system, zc_teardown_system, NULL, 0};
    return zc_main(argc, argv, &suite);
}
