/* Conformance: metric streamers. The order of zetMetricStreamerOpen's checks, the period and notification count
 * written back, the capacity answer of a size-0 read, reports at the sampling period while idle and while work
 * runs, the notification event, overflow, markers, EU stall sampling. Exact timings and raw fields are checked on the
 * fake (docs/metrics.md, docs/metrics-raw-formats.md). */
#include "zc_cost_model.h"
#include "zc_exec.h"
#include "zc_kernel_files.h"
#include "zc_metric.h"
#include "zc_metric_work.h"

#include <inttypes.h>
#include <stdio.h>
#include <unistd.h>

typedef struct zc_streamer_fixture {
    zc_exec x;
    ze_module_handle_t gemm;
} zc_streamer_fixture;

static int zc_setup_streamer(void **state) {
    void *exec = NULL;
    if (zc_setup_exec(&exec) != 0)
        return -1;
    zc_streamer_fixture *f = calloc(1, sizeof *f);
    if (f == NULL)
        return -1;
    f->x = *(zc_exec *)exec;
    free(exec);
    f->gemm = zc_module_create(f->x.context, f->x.device, "gemm");
    *state = f;
    return 0;
}

static int zc_teardown_streamer(void **state) {
    zc_streamer_fixture *f = *state;
    ze_result_t deactivate = zetContextActivateMetricGroups(f->x.context, f->x.device, 0, NULL);
    bool ok = zeModuleDestroy(f->gemm) == ZE_RESULT_SUCCESS && zeContextDestroy(f->x.context) == ZE_RESULT_SUCCESS;
    free(f);
    return ok && deactivate == ZE_RESULT_SUCCESS ? 0 : -1;
}

static zet_metric_streamer_handle_t zc_open(zc_exec *x, zet_metric_group_handle_t group,
                                            zet_metric_streamer_desc_t *desc, ze_event_handle_t event) {
    zet_metric_streamer_handle_t streamer = NULL;
    zc_assert_success(zetMetricStreamerOpen(x->context, x->device, group, desc, event, &streamer));
    return streamer;
}

/* Reads every available report: the capacity answer, then the read. *result receives the read's result. */
static uint8_t *zc_read(zet_metric_streamer_handle_t streamer, uint32_t max_reports, size_t *size,
                        ze_result_t *result) {
    *size = 0;
    zc_assert_success(zetMetricStreamerReadData(streamer, max_reports, size, NULL));
    uint8_t *data = malloc(*size + 1);
    if (data == NULL)
        zc_fail("out of memory");
    *result = zetMetricStreamerReadData(streamer, max_reports, size, data);
    if (*result != ZE_RESULT_SUCCESS && *result != ZE_RESULT_WARNING_DROPPED_DATA)
        zc_fail("zetMetricStreamerReadData: %s", zc_result_name(*result));
    return data;
}

/* Device time passes through host reads of the clock (1 us each on the modelled clock, docs/cost-model.md). */
static uint64_t zc_advance_clock(ze_device_handle_t device, uint32_t reads) {
    uint64_t host = 0, ticks = 0;
    for (uint32_t i = 0; i < reads; i++)
        zc_assert_success(zeDeviceGetGlobalTimestamps(device, &host, &ticks));
    return ticks;
}

static uint64_t zc_timer_hz(ze_device_handle_t device) {
    return zc_device_props(device).timerResolution;
}

/* The period the fake samples at for a request (docs/metrics.md): ticks rounded down to a power of two, >= 2. */
static uint64_t zc_period_ticks(ze_device_handle_t device, uint64_t requested_ns) {
    uint64_t ticks = requested_ns * zc_timer_hz(device) / 1000000000u, p = 2;
    while (p * 2 <= ticks)
        p *= 2;
    return p;
}

/* GEMM of 8x8 outputs with a long inner dimension: one long kernel (docs/builtin-kernels.md: 4 + 2k cycles). */
static void zc_run_gemm(zc_streamer_fixture *f, uint32_t k) {
    zc_exec *x = &f->x;
    const uint32_t m = 8, n = 8;
    float *a = zc_host_alloc(x, (size_t)m * k * 4), *b = zc_host_alloc(x, (size_t)k * n * 4);
    float *c = zc_host_alloc(x, (size_t)m * n * 4);
    memset(a, 0, (size_t)m * k * 4);
    memset(b, 0, (size_t)k * n * 4);
    ze_kernel_handle_t kernel = zc_kernel_create(f->gemm, "gemm");
    void *args[3] = {a, b, c};
    for (uint32_t i = 0; i < 3; i++)
        zc_assert_success(zeKernelSetArgumentValue(kernel, i, sizeof(void *), &args[i]));
    zc_assert_success(zeKernelSetArgumentValue(kernel, 3, sizeof m, &m));
    zc_assert_success(zeKernelSetArgumentValue(kernel, 4, sizeof n, &n));
    zc_assert_success(zeKernelSetArgumentValue(kernel, 5, sizeof k, &k));
    zc_assert_success(zeKernelSetGroupSize(kernel, 8, 8, 1));
    ze_group_count_t groups = {1, 1, 1};
    ze_command_list_handle_t list = zc_list(x, x->compute_ordinal);
    zc_assert_success(zeCommandListAppendLaunchKernel(list, kernel, &groups, NULL, 0, NULL));
    ze_command_queue_handle_t queue = zc_queue(x, x->compute_ordinal, 0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    zc_run(queue, list);
    zc_assert_success(zeCommandQueueDestroy(queue));
    zc_assert_success(zeCommandListDestroy(list));
    zc_assert_success(zeKernelDestroy(kernel));
    zc_free(x, a);
    zc_free(x, b);
    zc_free(x, c);
}

/* ---- Open ----------------------------------------------------------------------------------------------------- */

/* Intel's order: a streamer already open, then query pools, then the sampling type, then activation. */
static void streamer_open_checks_in_order(void **state) {
    zc_streamer_fixture *f = *state;
    zc_exec *x = &f->x;
    zet_metric_group_handle_t test = zc_need_group(x->device, "TestOa", ZC_TIME_BASED);
    zet_metric_group_handle_t basic_time = zc_need_group(x->device, "ComputeBasic", ZC_TIME_BASED);
    zet_metric_group_handle_t basic_event = zc_need_group(x->device, "ComputeBasic", ZC_EVENT_BASED);
    zc_activate(x->context, x->device, 1, &test);
    zet_metric_streamer_desc_t desc = {ZET_STRUCTURE_TYPE_METRIC_STREAMER_DESC, NULL, 16, 100000};
    zet_metric_streamer_handle_t open = zc_open(x, test, &desc, NULL), other = NULL;
    zc_assert_result(zetMetricStreamerOpen(x->context, x->device, test, &desc, NULL, &other),
                     ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE);
    zc_assert_result(zetMetricStreamerOpen(x->context, x->device, basic_event, &desc, NULL, &other),
                     ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE);
    zc_assert_success(zetMetricStreamerClose(open));

    zet_metric_query_pool_desc_t pool_desc = {ZET_STRUCTURE_TYPE_METRIC_QUERY_POOL_DESC, NULL,
                                              ZET_METRIC_QUERY_POOL_TYPE_PERFORMANCE, 1};
    zet_metric_query_pool_handle_t pool = NULL;
    zc_assert_success(zetMetricQueryPoolCreate(x->context, x->device, basic_event, &pool_desc, &pool));
    zc_assert_result(zetMetricStreamerOpen(x->context, x->device, basic_event, &desc, NULL, &other),
                     ZE_RESULT_ERROR_NOT_AVAILABLE);
    zc_assert_result(zetMetricStreamerOpen(x->context, x->device, test, &desc, NULL, &other),
                     ZE_RESULT_ERROR_NOT_AVAILABLE);
    zc_assert_success(zetMetricQueryPoolDestroy(pool));

    zc_assert_result(zetMetricStreamerOpen(x->context, x->device, basic_event, &desc, NULL, &other),
                     ZE_RESULT_ERROR_INVALID_ARGUMENT);
    zc_assert_result(zetMetricStreamerOpen(x->context, x->device, basic_time, &desc, NULL, &other),
                     ZE_RESULT_NOT_READY);
    zc_assert_result(zetMetricStreamerOpen(x->context, x->device, test, NULL, NULL, &other),
                     ZE_RESULT_ERROR_INVALID_NULL_POINTER);
}

/* A host-visible event of its own context (the caller destroys the pool and the event). */
static ze_event_handle_t zc_event_in(ze_context_handle_t context, ze_device_handle_t device,
                                     ze_event_pool_handle_t *pool) {
    ze_event_pool_desc_t desc = {ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, NULL, ZE_EVENT_POOL_FLAG_HOST_VISIBLE, 1};
    zc_assert_success(zeEventPoolCreate(context, &desc, 1, &device, pool));
    return zc_event(*pool, 0);
}

/* Argument errors of zetMetricStreamerOpen (docs/metrics.md, "Streamer"): a group of a sub-device on the root device,
 * a descriptor of another type, a notification event of another context. They come before the state checks: a
 * streamer of the group is open meanwhile, yet none of them answers ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE. */
static void streamer_open_bad_arguments(void **state) {
    zc_streamer_fixture *f = *state;
    zc_exec *x = &f->x;
    zet_metric_group_handle_t group = zc_need_group(x->device, "TestOa", ZC_TIME_BASED);
    zc_activate(x->context, x->device, 1, &group);
    zet_metric_streamer_desc_t desc = {ZET_STRUCTURE_TYPE_METRIC_STREAMER_DESC, NULL, 16, 100000};
    zet_metric_streamer_handle_t streamer = NULL, open = zc_open(x, group, &desc, NULL);
    if (zc_subdevice_count(x->device) > 0) {
        ze_device_handle_t sub = zc_sys()->subdevices[0][0];
        zet_metric_group_handle_t sub_group = zc_need_group(sub, "TestOa", ZC_TIME_BASED);
        zc_activate(x->context, sub, 1, &sub_group);
        ze_result_t r = zetMetricStreamerOpen(x->context, x->device, sub_group, &desc, NULL, &streamer);
        if (zc_driver_is_fake())
            zc_assert_result(r, ZE_RESULT_ERROR_INVALID_ARGUMENT);
        else
            zc_assert_error(r);
        zc_activate(x->context, sub, 0, NULL);
    }
    if (!zc_driver_is_fake())
        zc_assert_success(zetMetricStreamerClose(open));
    zc_skip_unless_fake(); /* the specification names no result for the next two */
    zet_metric_streamer_desc_t wrong = desc;
    wrong.stype = ZET_STRUCTURE_TYPE_METRIC_QUERY_POOL_DESC;
    zc_assert_result(zetMetricStreamerOpen(x->context, x->device, group, &wrong, NULL, &streamer),
                     ZE_RESULT_ERROR_INVALID_ARGUMENT);
    ze_context_desc_t context_desc = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0};
    ze_context_handle_t other = NULL;
    zc_assert_success(zeContextCreate(zc_sys()->driver, &context_desc, &other));
    ze_event_pool_handle_t pool = NULL;
    ze_event_handle_t event = zc_event_in(other, x->device, &pool);
    zc_assert_result(zetMetricStreamerOpen(x->context, x->device, group, &desc, event, &streamer),
                     ZE_RESULT_ERROR_INVALID_SYNCHRONIZATION_OBJECT);
    zc_assert_success(zeEventDestroy(event));
    zc_assert_success(zeEventPoolDestroy(pool));
    zc_assert_success(zeContextDestroy(other));
    zc_assert_success(zetMetricStreamerClose(open));
    /* None of them opened anything; stype 0 (tools leave it so) opens. */
    wrong.stype = 0;
    zc_assert_success(zetMetricStreamerClose(zc_open(x, group, &wrong, NULL)));
}

/* A closed streamer is a stale handle: every call on it is refused (zefake detects it; elsewhere it is undefined). */
static void streamer_closed_handle_refused(void **state) {
    zc_streamer_fixture *f = *state;
    zc_exec *x = &f->x;
    zc_skip_unless_fake();
    zet_metric_group_handle_t group = zc_need_group(x->device, "TestOa", ZC_TIME_BASED);
    zc_activate(x->context, x->device, 1, &group);
    zet_metric_streamer_desc_t desc = {ZET_STRUCTURE_TYPE_METRIC_STREAMER_DESC, NULL, 16, 100000};
    zet_metric_streamer_handle_t streamer = zc_open(x, group, &desc, NULL);
    zc_assert_success(zetMetricStreamerClose(streamer));
    size_t size = 0;
    zc_assert_result(zetMetricStreamerReadData(streamer, UINT32_MAX, &size, NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zetMetricStreamerClose(streamer), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    ze_command_list_handle_t list = zc_immediate(x, x->compute_ordinal, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
    zc_assert_result(zetCommandListAppendMetricStreamerMarker(list, streamer, 7), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_success(zeCommandListDestroy(list));
    /* The group can be streamed again. */
    zc_assert_success(zetMetricStreamerClose(zc_open(x, group, &desc, NULL)));
}

static void streamer_period_and_notification_count_written_back(void **state) {
    zc_streamer_fixture *f = *state;
    zc_exec *x = &f->x;
    zet_metric_group_handle_t group = zc_need_group(x->device, "TestOa", ZC_TIME_BASED);
    zc_activate(x->context, x->device, 1, &group);
    zet_metric_streamer_desc_t desc = {ZET_STRUCTURE_TYPE_METRIC_STREAMER_DESC, NULL, 100, 10000};
    zet_metric_streamer_handle_t streamer = zc_open(x, group, &desc, NULL);
    assert_true(desc.samplingPeriod > 0 && desc.notifyEveryNReports > 0);
    if (zc_driver_is_fake()) {
        uint64_t hz = zc_timer_hz(x->device), ticks = zc_period_ticks(x->device, 10000);
        assert_int_equal(desc.samplingPeriod, (ticks * 1000000000u + hz - 1) / hz);
        assert_int_equal(desc.notifyEveryNReports, 128);
        /* Size 0 answers the capacity: 2 x notifyEveryNReports reports of every tile (in a frame with several). */
        size_t size = 0;
        zc_assert_success(zetMetricStreamerReadData(streamer, UINT32_MAX, &size, NULL));
        uint32_t tiles = zc_tiles(x->device);
        assert_int_equal(size, (tiles > 1 ? 16 + 16 * tiles : 0) + (size_t)tiles * 256 * ZC_OA_RECORD_SIZE);
    }
    zc_assert_success(zetMetricStreamerClose(streamer));
    if (zc_driver_is_fake()) {
        /* The shortest period is 2 ticks; the longest keeps every counter from wrapping twice between reports. */
        zet_metric_streamer_desc_t shortest = {ZET_STRUCTURE_TYPE_METRIC_STREAMER_DESC, NULL, 0, 0};
        streamer = zc_open(x, group, &shortest, NULL);
        uint64_t hz = zc_timer_hz(x->device);
        assert_int_equal(shortest.samplingPeriod, (2 * 1000000000u + hz - 1) / hz);
        assert_int_equal(shortest.notifyEveryNReports, 1);
        zc_assert_success(zetMetricStreamerClose(streamer));
        zet_metric_streamer_desc_t longest = {0, NULL, UINT32_MAX, UINT32_MAX};
        streamer = zc_open(x, group, &longest, NULL);
        assert_true(longest.samplingPeriod < UINT32_MAX);
        assert_int_equal(longest.notifyEveryNReports, 32768);
        zc_assert_success(zetMetricStreamerClose(streamer));
    }
}

/* ---- Reports -------------------------------------------------------------------------------------------------- */

/* While idle, the modelled clock moves through host reads: reports exist at every period up to the device time. */
static void streamer_reports_at_the_period_while_idle(void **state) {
    zc_streamer_fixture *f = *state;
    zc_exec *x = &f->x;
    zc_skip_unless_fake();
    zet_metric_group_handle_t group = zc_need_group(x->device, "TestOa", ZC_TIME_BASED);
    zc_activate(x->context, x->device, 1, &group);
    zet_metric_streamer_desc_t desc = {ZET_STRUCTURE_TYPE_METRIC_STREAMER_DESC, NULL, 1024, 10000};
    zet_metric_streamer_handle_t streamer = zc_open(x, group, &desc, NULL);
    uint64_t period = zc_period_ticks(x->device, 10000);
    uint64_t now = zc_advance_clock(x->device, 60); /* 60 us */
    size_t size = 0, length = 0;
    ze_result_t result;
    uint8_t *data = zc_read(streamer, UINT32_MAX, &size, &result);
    zc_assert_success(result);
    const uint8_t *records = zc_tile_records(data, size, 0, &length);
    size_t n = length / ZC_OA_RECORD_SIZE;
    assert_true(n >= 60000 / (period * 1000000000u / zc_timer_hz(x->device)) - 1);
    uint64_t last = 0;
    for (size_t i = 0; i < n; i++) {
        const uint8_t *rec = records + i * ZC_OA_RECORD_SIZE;
        uint64_t ts = zc_get64(rec + 8);
        assert_int_equal(ts % period, 0);
        if (i > 0)
            assert_int_equal(ts, last + period);
        assert_int_equal(zc_get32(rec) & 0xffff, i);       /* sequence numbers from 0 */
        assert_int_equal((zc_get32(rec) >> 16) & 0xff, 1); /* timer reports */
        last = ts;
    }
    /* Every report due by the device time, none after it. */
    assert_true(last <= (now & 0xffffffffu) && (now & 0xffffffffu) < last + period);

    /* N reports give N - 1 results (the first has no predecessor). */
    zc_values v = zc_calculate(group, ZET_METRIC_GROUP_CALCULATION_TYPE_METRIC_VALUES, records, length);
    uint32_t count = zc_metric_count(group);
    assert_int_equal(v.count, (n - 1) * count);
    uint64_t hz = zc_timer_hz(x->device);
    for (size_t r = 0; r + 1 < n; r++)
        assert_int_equal(zc_u64(v.values[r * count + zc_metric_index(group, "GpuTime")]), period * 1000000000u / hz);
    free(v.values);
    free(data);
    zc_assert_success(zetMetricStreamerClose(streamer));
}

/* Reports written while a kernel runs see the part of it that has run: the counters between the first and the last
 * report add up to exactly the kernel's modelled XVE cycles, spread over the reports that cover it. */
static void streamer_reports_while_work_runs(void **state) {
    zc_streamer_fixture *f = *state;
    zc_exec *x = &f->x;
    zc_skip_unless_fake();
    const char *variant = getenv("ZC_VARIANT");
    if (variant != NULL && strcmp(variant, "integrated") == 0)
        skip(); /* Meteor Lake metric names */
    zet_metric_group_handle_t group = zc_need_group(x->device, "ComputeBasic", ZC_TIME_BASED);
    zc_activate(x->context, x->device, 1, &group);
    zet_metric_streamer_desc_t desc = {ZET_STRUCTURE_TYPE_METRIC_STREAMER_DESC, NULL, 4096, 10000};
    zet_metric_streamer_handle_t streamer = zc_open(x, group, &desc, NULL);
    zc_advance_clock(x->device, 20); /* the first report comes before the kernel */
    const uint32_t k = 40000;
    zc_run_gemm(f, k);
    zc_advance_clock(x->device, 20);
    size_t size = 0, length = 0;
    ze_result_t result;
    uint8_t *data = zc_read(streamer, UINT32_MAX, &size, &result);
    zc_assert_success(result);
    ze_device_properties_t p = zc_device_props(x->device);
    /* docs/builtin-kernels.md: each of the 64 work-items inside C runs 22 + 11k ALU operations and 1 + 2k memory
     * instructions and moves 8k + 4 bytes; docs/cost-model.md gives the kernel's time. */
    zc_item_work gemm = {.alu = 22 + 11 * (uint64_t)k, .memory = 1 + 2 * (uint64_t)k, .bytes = 8 * (uint64_t)k + 4};
    zc_model model = zc_model_of(x->device);
    uint64_t kernel_ns = zc_model_kernel_ns(&model, &gemm, 1, 64);
    uint64_t kernel_cycles = kernel_ns * p.coreClockRate / 1000, dispatch = 2000 * p.coreClockRate / 1000;
    uint32_t tiles = zc_tiles(x->device);
    for (uint32_t t = 0; t < tiles; t++) {
        const uint8_t *records = zc_tile_records(data, size, t, &length);
        size_t n = length / ZC_OA_RECORD_SIZE;
        assert_true(n > 3);
        uint64_t threads = (64 / tiles + zc_device_props(x->device).physicalEUSimdWidth - 1) /
                           zc_device_props(x->device).physicalEUSimdWidth;
        const uint8_t *first = records, *last = records + (n - 1) * ZC_OA_RECORD_SIZE;
        uint64_t a0_first = zc_get32(first + 24) | (uint64_t)first[152] << 32;
        uint64_t a0_last = zc_get32(last + 24) | (uint64_t)last[152] << 32;
        assert_int_equal((a0_last - a0_first) & ((1ull << 40) - 1), threads * (kernel_cycles - dispatch));
        /* The kernel is spread: several reports show XVE activity. */
        zc_values v = zc_calculate(group, ZET_METRIC_GROUP_CALCULATION_TYPE_METRIC_VALUES, records, length);
        uint32_t count = zc_metric_count(group), busy = 0;
        for (uint32_t r = 0; r < v.count / count; r++)
            busy += zc_f64(v.values[r * count + zc_metric_index(group, "XVE_ACTIVE")]) > 0.0;
        assert_true(busy >= 3);
        free(v.values);
    }
    free(data);
    zc_assert_success(zetMetricStreamerClose(streamer));
}

/* ---- Counters that wrap (fake) -------------------------------------------------------------------------------- */

/* What docs/metrics.md predicts for the reports of a streamer with period P ticks: report k is due at P x k ticks,
 * that is at device time ceil(k x P x 10^9 / timer Hz) ns, and carries the GPU clocks of that instant. */
typedef struct zc_stream_model {
    uint64_t period; /* P, ticks */
    uint64_t hz, mhz;
    uint64_t first_k, last_k;
} zc_stream_model;

static uint64_t zc_report_clocks(const zc_stream_model *m, uint64_t k) {
    unsigned __int128 scaled = (unsigned __int128)k * m->period * 1000000000u;
    uint64_t ns = (uint64_t)(scaled / m->hz + (scaled % m->hz != 0));
    return zc_gpu_clocks_at(ns, m->mhz);
}

/* The raw records of one tile: report k = first_k + i at index i, and the timestamp and the GPU clock each wrapped
 * (a later report with a smaller raw value) at least once. */
static void zc_check_wrapped_records(const uint8_t *records, size_t length, const zc_stream_model *m) {
    size_t n = length / ZC_OA_RECORD_SIZE;
    assert_int_equal(n, m->last_k - m->first_k + 1);
    bool timestamp_wrapped = false, clock_wrapped = false;
    for (size_t i = 0; i < n; i++) {
        const uint8_t *rec = records + i * ZC_OA_RECORD_SIZE;
        /* timestamp_valid_bits is 32 in the shipped scenarios (docs/scenarios.md) */
        assert_int_equal(zc_get64(rec + 8), ((m->first_k + i) * m->period) & 0xffffffffu);
        assert_int_equal(zc_get32(rec + 16), zc_report_clocks(m, m->first_k + i) & 0xffffffffu);
        if (i > 0) {
            timestamp_wrapped = timestamp_wrapped || zc_get64(rec + 8) < zc_get64(rec - ZC_OA_RECORD_SIZE + 8);
            clock_wrapped = clock_wrapped || zc_get32(rec + 16) < zc_get32(rec - ZC_OA_RECORD_SIZE + 16);
        }
    }
    assert_true(timestamp_wrapped && clock_wrapped);
}

/* TestOa values of one tile's results: result r pairs reports first_k + r and first_k + r + 1. */
static void zc_check_wrapped_values(zet_metric_group_handle_t group, const zet_typed_value_t *values, uint32_t count,
                                    const zc_stream_model *m) {
    uint32_t mc = zc_metric_count(group);
    uint32_t time = zc_metric_index(group, "GpuTime"), clocks = zc_metric_index(group, "GpuCoreClocks");
    uint32_t c1 = zc_metric_index(group, "Counter1"), c3 = zc_metric_index(group, "Counter3");
    uint32_t c7 = zc_metric_index(group, "Counter7"), c8 = zc_metric_index(group, "Counter8");
    assert_int_equal(count, (m->last_k - m->first_k) * mc);
    uint64_t total = 0;
    for (uint32_t r = 0; r < count / mc; r++) {
        const zet_typed_value_t *row = values + (size_t)r * mc;
        uint64_t before = zc_report_clocks(m, m->first_k + r), after = zc_report_clocks(m, m->first_k + r + 1);
        assert_int_equal(zc_u64(row[time]), m->period * 1000000000u / m->hz);
        assert_int_equal(zc_u64(row[clocks]), after - before);
        assert_int_equal(zc_u64(row[c1]), after - before);
        assert_int_equal(zc_u64(row[c3]), after / 2 - before / 2);
        assert_int_equal(zc_u64(row[c7]), after * 2 / 3 - before * 2 / 3);
        assert_int_equal(zc_u64(row[c8]), 1);
        total += zc_u64(row[clocks]);
    }
    assert_true(total > (1ull << 32)); /* the results cover more than a whole turn of the 32-bit clock */
}

/* Device time passes 2^32 GPU clocks (on every launch) and 2^32 timestamp ticks while a TestOa streamer samples the
 * long modelled launches of zc_metric_work.h. Each pair of reports still calculates exactly what the documents
 * predict across both wraps, and the reports end where the cost model says the work ends. */
static void streamer_counters_wrap_under_long_kernels(void **state) {
    zc_streamer_fixture *f = *state;
    zc_exec *x = &f->x;
    zc_skip_unless_fake();
    zc_skip_without_builtins();
    zet_metric_group_handle_t group = zc_need_group(x->device, "TestOa", ZC_TIME_BASED);
    zc_activate(x->context, x->device, 1, &group);
    ze_device_properties_t p = zc_device_props(x->device);
    zc_stream_model m = {.hz = p.timerResolution, .mhz = p.coreClockRate};
    uint64_t before = zc_device_ticks(x->device);
    zet_metric_streamer_desc_t desc = {ZET_STRUCTURE_TYPE_METRIC_STREAMER_DESC, NULL, 16384, 20000000};
    zet_metric_streamer_handle_t streamer = zc_open(x, group, &desc, NULL);
    m.period = zc_period_ticks(x->device, desc.samplingPeriod);
    assert_int_equal(desc.samplingPeriod, (m.period * 1000000000u + m.hz - 1) / m.hz);
    uint32_t launches = zc_launches_past_tick_wrap(x->device, before, 2 * m.period);
    void *buffer = zc_device_alloc(x, 64);
    ze_kernel_handle_t kernel = zc_long_gemm_kernel(f->gemm, buffer);
    ze_command_list_handle_t list = zc_list(x, x->compute_ordinal);
    zc_append_long_launches(list, kernel, launches);
    ze_command_queue_handle_t queue = zc_queue(x, x->compute_ordinal, 0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    zc_run(queue, list);
    uint64_t after = zc_device_ticks(x->device); /* 1 us after the end of the work */
    /* the dispatch latency, the launches, then the read's microsecond (docs/cost-model.md) */
    uint64_t work = zc_ticks_at(ZC_MODEL_DISPATCH_NS + launches * zc_long_launch_ns(x->device) + 1000, m.hz);
    assert_true(after - before == work || after - before == work + 1);
    m.first_k = before / m.period + 1;
    m.last_k = after / m.period;
    size_t size = 0, length = 0;
    ze_result_t result;
    uint8_t *data = zc_read(streamer, UINT32_MAX, &size, &result);
    zc_assert_success(result);
    zc_sets sets = zc_calculate_sets(group, ZET_METRIC_GROUP_CALCULATION_TYPE_METRIC_VALUES, data, size);
    assert_int_equal(sets.num_sets, zc_tiles(x->device));
    for (uint32_t t = 0, offset = 0; t < sets.num_sets; offset += sets.counts[t++]) {
        const uint8_t *records = zc_tile_records(data, size, t, &length);
        zc_check_wrapped_records(records, length, &m);
        zc_check_wrapped_values(group, sets.values + offset, sets.counts[t], &m);
    }
    zc_sets_free(&sets);
    free(data);
    zc_assert_success(zetMetricStreamerClose(streamer));
    zc_assert_success(zeCommandQueueDestroy(queue));
    zc_assert_success(zeCommandListDestroy(list));
    zc_assert_success(zeKernelDestroy(kernel));
    zc_free(x, buffer);
}

static void streamer_notification_event_signalled_when_reports_are_readable(void **state) {
    zc_streamer_fixture *f = *state;
    zc_exec *x = &f->x;
    zet_metric_group_handle_t group = zc_need_group(x->device, "TestOa", ZC_TIME_BASED);
    zc_activate(x->context, x->device, 1, &group);
    ze_event_pool_handle_t pool = zc_event_pool(x, 1, 0);
    ze_event_handle_t event = zc_event(pool, 0);
    zet_metric_streamer_desc_t desc = {ZET_STRUCTURE_TYPE_METRIC_STREAMER_DESC, NULL, 8, 10000};
    zet_metric_streamer_handle_t streamer = zc_open(x, group, &desc, event);
    if (zc_driver_is_fake())
        zc_assert_result(zeEventQueryStatus(event), ZE_RESULT_NOT_READY);
    zc_run_gemm(f, 20000); /* longer than several periods */
    zc_assert_success(zeEventHostSynchronize(event, 5000000000u));
    size_t size = 0;
    ze_result_t result;
    free(zc_read(streamer, UINT32_MAX, &size, &result));
    assert_true(size > 0);
    if (zc_driver_is_fake()) {
        /* The application resets the event; the next reports signal it again. */
        zc_assert_success(zeEventHostReset(event));
        zc_assert_result(zeEventQueryStatus(event), ZE_RESULT_NOT_READY);
        zc_run_gemm(f, 20000);
        zc_assert_success(zeEventQueryStatus(event));
    }
    zc_assert_success(zetMetricStreamerClose(streamer));
    zc_assert_success(zeEventDestroy(event));
    zc_assert_success(zeEventPoolDestroy(pool));
}

static void streamer_notification_event_must_be_host_visible(void **state) {
    zc_streamer_fixture *f = *state;
    zc_exec *x = &f->x;
    zc_skip_unless_fake();
    zet_metric_group_handle_t group = zc_need_group(x->device, "TestOa", ZC_TIME_BASED);
    zc_activate(x->context, x->device, 1, &group);
    ze_event_pool_desc_t pool_desc = {ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, NULL, 0, 1};
    ze_event_pool_handle_t pool = NULL;
    zc_assert_success(zeEventPoolCreate(x->context, &pool_desc, 1, &x->device, &pool));
    ze_event_handle_t event = zc_event(pool, 0);
    zet_metric_streamer_desc_t desc = {ZET_STRUCTURE_TYPE_METRIC_STREAMER_DESC, NULL, 8, 10000};
    zet_metric_streamer_handle_t streamer = NULL;
    zc_assert_result(zetMetricStreamerOpen(x->context, x->device, group, &desc, event, &streamer),
                     ZE_RESULT_ERROR_INVALID_SYNCHRONIZATION_OBJECT);
    zc_assert_success(zeEventDestroy(event));
    zc_assert_success(zeEventPoolDestroy(pool));
}

/* A full buffer loses its oldest reports to the new ones, as the OA unit's does; the read says so once. */
static void streamer_overflow_warns_and_loses_the_oldest_reports(void **state) {
    zc_streamer_fixture *f = *state;
    zc_exec *x = &f->x;
    zc_skip_unless_fake();
    zet_metric_group_handle_t group = zc_need_group(x->device, "TestOa", ZC_TIME_BASED);
    zc_activate(x->context, x->device, 1, &group);
    zet_metric_streamer_desc_t desc = {ZET_STRUCTURE_TYPE_METRIC_STREAMER_DESC, NULL, 1, 10000};
    zet_metric_streamer_handle_t streamer = zc_open(x, group, &desc, NULL);
    assert_int_equal(desc.notifyEveryNReports, 1);   /* a buffer of 2 reports */
    uint64_t now = zc_advance_clock(x->device, 100); /* ~15 periods */
    size_t size = 0, length = 0;
    ze_result_t result;
    uint8_t *data = zc_read(streamer, UINT32_MAX, &size, &result);
    zc_assert_result(result, ZE_RESULT_WARNING_DROPPED_DATA);
    const uint8_t *records = zc_tile_records(data, size, 0, &length);
    assert_int_equal(length, 2 * ZC_OA_RECORD_SIZE);
    uint64_t period = zc_period_ticks(x->device, 10000);
    /* the two newest reports: the last one due by the read, and the one before it */
    uint32_t seq = zc_get32(records + ZC_OA_RECORD_SIZE) & 0xffff;
    assert_true(seq > 2);
    assert_int_equal(zc_get32(records) & 0xffff, seq - 1);
    assert_int_equal(zc_get64(records + ZC_OA_RECORD_SIZE + 8), (now / period * period) & 0xffffffffu);
    assert_int_equal(zc_get64(records + ZC_OA_RECORD_SIZE + 8) - zc_get64(records + 8), period);
    free(data);
    /* Reported once; the dropped reports still count in the sequence numbers of later ones. */
    data = zc_read(streamer, UINT32_MAX, &size, &result);
    zc_assert_success(result);
    assert_int_equal(size, 0);
    free(data);
    zc_advance_clock(x->device, 8);
    data = zc_read(streamer, UINT32_MAX, &size, &result);
    records = zc_tile_records(data, size, 0, &length);
    assert_true(length >= ZC_OA_RECORD_SIZE);
    assert_int_equal(zc_get32(records) & 0xffff, seq + 1);
    free(data);
    zc_assert_success(zetMetricStreamerClose(streamer));
}

/* The sequence numbers of tile t's reports in data read from a streamer must be first, first + 1, ...; returns how
 * many reports there are. */
static size_t zc_check_sequence(const uint8_t *data, size_t size, uint32_t tile, uint32_t first) {
    size_t length = 0;
    const uint8_t *records = zc_tile_records(data, size, tile, &length);
    assert_int_equal(length % ZC_OA_RECORD_SIZE, 0);
    size_t n = length / ZC_OA_RECORD_SIZE;
    for (size_t i = 0; i < n; i++)
        assert_int_equal(zc_get32(records + i * ZC_OA_RECORD_SIZE) & 0xffff, (first + i) & 0xffff);
    return n;
}

/* maxReportCount 2 returns exactly the 2 oldest reports of every tile; the others stay in the buffer, intact and in
 * order: the next read starts with the third report, and its calculation continues the stream of the first read. */
static void streamer_read_respects_max_report_count(void **state) {
    zc_streamer_fixture *f = *state;
    zc_exec *x = &f->x;
    zet_metric_group_handle_t group = zc_need_group(x->device, "TestOa", ZC_TIME_BASED);
    zc_activate(x->context, x->device, 1, &group);
    zet_metric_streamer_desc_t desc = {ZET_STRUCTURE_TYPE_METRIC_STREAMER_DESC, NULL, 64, 10000};
    zet_metric_streamer_handle_t streamer = zc_open(x, group, &desc, NULL);
    zc_run_gemm(f, 20000); /* about 27 us: 4 reports at the fake's 6667 ns period */
    size_t size = 0, length = 0;
    ze_result_t result;
    uint8_t *data = zc_read(streamer, 2, &size, &result);
    uint32_t tiles = zc_tiles(x->device);
    for (uint32_t t = 0; t < tiles; t++) {
        zc_tile_records(data, size, t, &length);
        assert_true(length <= 2 * ZC_OA_RECORD_SIZE);
    }
    if (zc_driver_is_fake()) {
        zc_assert_success(result);
        assert_int_equal(size, (tiles > 1 ? 16 + 16 * tiles : 0) + 2 * (size_t)tiles * ZC_OA_RECORD_SIZE);
        size_t rest_size = 0;
        uint8_t *rest_data = zc_read(streamer, UINT32_MAX, &rest_size, &result);
        zc_assert_success(result);
        for (uint32_t t = 0; t < tiles; t++) {
            assert_int_equal(zc_check_sequence(data, size, t, 0), 2);
            assert_true(zc_check_sequence(rest_data, rest_size, t, 2) >= 1);
        }
        /* The first read's last report is carried: the rest gives one result per report. */
        uint32_t count = zc_metric_count(group);
        zc_sets first = zc_calculate_sets(group, ZET_METRIC_GROUP_CALCULATION_TYPE_METRIC_VALUES, data, size);
        zc_sets rest = zc_calculate_sets(group, ZET_METRIC_GROUP_CALCULATION_TYPE_METRIC_VALUES, rest_data, rest_size);
        for (uint32_t t = 0; t < tiles; t++) {
            zc_tile_records(rest_data, rest_size, t, &length);
            assert_int_equal(first.counts[t], count);
            assert_int_equal(rest.counts[t], length / ZC_OA_RECORD_SIZE * count);
        }
        zc_sets_free(&first);
        zc_sets_free(&rest);
        free(rest_data);
    }
    free(data);
    zc_assert_result(zetMetricStreamerReadData(streamer, UINT32_MAX, NULL, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_success(zetMetricStreamerClose(streamer));
}

/* A marker writes a report of its own (reason 2) and later reports carry its value as StreamMarker. */
static void streamer_markers_show_in_later_reports(void **state) {
    zc_streamer_fixture *f = *state;
    zc_exec *x = &f->x;
    zc_skip_unless_fake();
    zet_metric_group_handle_t group = zc_need_group(x->device, "TestOa", ZC_TIME_BASED);
    zc_activate(x->context, x->device, 1, &group);
    zet_metric_streamer_desc_t desc = {ZET_STRUCTURE_TYPE_METRIC_STREAMER_DESC, NULL, 1024, 10000};
    zet_metric_streamer_handle_t streamer = zc_open(x, group, &desc, NULL);
    zc_advance_clock(x->device, 30);
    ze_command_list_handle_t list = zc_immediate(x, x->compute_ordinal, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
    zc_assert_success(zetCommandListAppendMetricStreamerMarker(list, streamer, 0xabc));
    zc_advance_clock(x->device, 30);
    size_t size = 0, length = 0;
    ze_result_t result;
    uint8_t *data = zc_read(streamer, UINT32_MAX, &size, &result);
    const uint8_t *records = zc_tile_records(data, size, 0, &length);
    size_t n = length / ZC_OA_RECORD_SIZE, marker_at = n;
    for (size_t i = 0; i < n; i++) {
        const uint8_t *rec = records + i * ZC_OA_RECORD_SIZE;
        uint32_t reason = (zc_get32(rec) >> 16) & 0xff, marker = zc_get32(rec + 20);
        if (reason == 2 && marker_at == n)
            marker_at = i;
        assert_int_equal(marker, i < marker_at ? 0 : 0xabc);
    }
    assert_true(marker_at > 0 && marker_at + 1 < n);
    zc_values v = zc_calculate(group, ZET_METRIC_GROUP_CALCULATION_TYPE_METRIC_VALUES, records, length);
    uint32_t count = zc_metric_count(group);
    /* Result r pairs reports r and r + 1. */
    assert_int_equal(zc_u64(v.values[(marker_at - 1) * count + zc_metric_index(group, "ReportReason")]), 2);
    assert_int_equal(zc_u64(v.values[(marker_at - 1) * count + zc_metric_index(group, "StreamMarker")]), 0xabc);
    assert_int_equal(zc_u64(v.values[marker_at * count + zc_metric_index(group, "StreamMarker")]), 0xabc);
    assert_int_equal(zc_u64(v.values[0 * count + zc_metric_index(group, "StreamMarker")]), 0);
    free(v.values);
    free(data);
    zc_assert_success(zeCommandListDestroy(list));
    zc_assert_success(zetMetricStreamerClose(streamer));
    /* A marker for a closed streamer is refused at append time (the handle is gone). */
    list = zc_immediate(x, x->compute_ordinal, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
    zc_assert_result(zetCommandListAppendMetricStreamerMarker(list, streamer, 1), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_success(zeCommandListDestroy(list));
}

/* An immediate list on an engine group with the METRICS flag of `device` in `context`. */
static ze_command_list_handle_t zc_metrics_list(ze_context_handle_t context, ze_device_handle_t device) {
    zc_exec y = {.context = context, .device = device};
    zc_exec_groups(&y);
    uint32_t ordinal = y.compute_ordinal;
    for (uint32_t i = 0; i < y.num_groups; i++) {
        if (y.groups[i].flags & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_METRICS) {
            ordinal = i;
            break;
        }
    }
    return zc_immediate(&y, ordinal, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
}

static void zc_assert_marker_refused(ze_command_list_handle_t list, zet_metric_streamer_handle_t streamer,
                                     ze_result_t expected, const char *what) {
    ze_result_t got = zetCommandListAppendMetricStreamerMarker(list, streamer, 0x5eed);
    if (got != expected)
        zc_fail("a marker %s: %s, expected %s", what, zc_result_name(got), zc_result_name(expected));
    zc_assert_success(zeCommandListDestroy(list));
}

/* Markers go on a list of the streamer's device and context whose engine group has the METRICS flag, for an OA
 * streamer (docs/metrics.md, "Markers"). A refused marker leaves no trace in the reports. */
static void streamer_marker_on_a_wrong_list_or_streamer_is_refused(void **state) {
    zc_streamer_fixture *f = *state;
    zc_exec *x = &f->x;
    zc_skip_unless_fake(); /* the specification leaves these to the application */
    zet_metric_group_handle_t oa = zc_need_group(x->device, "TestOa", ZC_TIME_BASED);
    zet_metric_group_handle_t eu = zc_need_group(x->device, "EuStallSampling", ZC_TIME_BASED);
    zet_metric_group_handle_t both[2] = {oa, eu};
    zc_activate(x->context, x->device, 2, both);
    zet_metric_streamer_desc_t desc = {ZET_STRUCTURE_TYPE_METRIC_STREAMER_DESC, NULL, 1024, 10000};
    zet_metric_streamer_handle_t streamer = zc_open(x, oa, &desc, NULL), eu_streamer = zc_open(x, eu, &desc, NULL);
    if (x->copy_ordinal != ZC_NO_ORDINAL)
        zc_assert_marker_refused(zc_immediate(x, x->copy_ordinal, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS), streamer,
                                 ZE_RESULT_ERROR_INVALID_ARGUMENT, "on a copy engine");
    zc_assert_marker_refused(zc_metrics_list(x->context, x->device), eu_streamer, ZE_RESULT_ERROR_UNSUPPORTED_FEATURE,
                             "for an EU stall streamer");
    const zc_system *sys = zc_sys();
    ze_device_handle_t other = sys->num_subdevices[0] > 0 ? sys->subdevices[0][0]
                               : sys->num_roots > 1       ? sys->roots[1]
                                                          : NULL;
    if (other != NULL)
        zc_assert_marker_refused(zc_metrics_list(x->context, other), streamer, ZE_RESULT_ERROR_INVALID_ARGUMENT,
                                 "on another device's list");
    ze_context_desc_t context_desc = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0};
    ze_context_handle_t context = NULL;
    zc_assert_success(zeContextCreate(sys->driver, &context_desc, &context));
    zc_assert_marker_refused(zc_metrics_list(context, x->device), streamer, ZE_RESULT_ERROR_INVALID_ARGUMENT,
                             "on another context's list");
    zc_assert_success(zeContextDestroy(context));
    zc_advance_clock(x->device, 30);
    size_t size = 0, length = 0;
    ze_result_t result;
    uint8_t *data = zc_read(streamer, UINT32_MAX, &size, &result);
    const uint8_t *records = zc_tile_records(data, size, 0, &length);
    assert_true(length >= ZC_OA_RECORD_SIZE);
    for (size_t i = 0; i < length / ZC_OA_RECORD_SIZE; i++) {
        assert_int_equal((zc_get32(records + i * ZC_OA_RECORD_SIZE) >> 16) & 0xff, 1); /* timer reports only */
        assert_int_equal(zc_get32(records + i * ZC_OA_RECORD_SIZE + 20), 0);           /* no marker value */
    }
    free(data);
    zc_assert_success(zetMetricStreamerClose(eu_streamer));
    zc_assert_success(zetMetricStreamerClose(streamer));
}

/* The code range of the gemm kernel: its base address (Intel's zexKernelGetBaseAddress) and the module's native
 * binary size, which bounds where zefake lays the module's kernels out (docs/metrics.md, "Kernel addresses"). */
static void zc_gemm_range(zc_streamer_fixture *f, ze_kernel_handle_t kernel, uint64_t *base, uint64_t *end) {
    ze_result_t(ZE_APICALL * get_base)(ze_kernel_handle_t, uint64_t *) = NULL;
    zc_assert_success(
        zeDriverGetExtensionFunctionAddress(zc_sys()->driver, "zexKernelGetBaseAddress", (void **)&get_base));
    zc_assert_success(get_base(kernel, base));
    size_t native = 0;
    zc_assert_success(zeModuleGetNativeBinary(f->gemm, &native, NULL));
    *end = *base + native;
}

/* Instruction-pointer samples while a kernel runs, summed per IP by the calculation: each IP (in 8-byte units) is the
 * address of an instruction of the running kernel. */
static void streamer_eu_stall_sampling(void **state) {
    zc_streamer_fixture *f = *state;
    zc_exec *x = &f->x;
    zc_skip_unless_fake();
    ze_kernel_handle_t held = zc_kernel_create(f->gemm, "gemm"); /* the kernel of the run, alive throughout */
    uint64_t base = 0, end = 0;
    zc_gemm_range(f, held, &base, &end);
    zet_metric_group_handle_t group = zc_need_group(x->device, "EuStallSampling", ZC_TIME_BASED);
    zc_activate(x->context, x->device, 1, &group);
    zet_metric_streamer_desc_t desc = {ZET_STRUCTURE_TYPE_METRIC_STREAMER_DESC, NULL, 4096, 10000};
    zet_metric_streamer_handle_t streamer = zc_open(x, group, &desc, NULL);
    zc_advance_clock(x->device, 20); /* idle: no samples */
    size_t size = 0;
    ze_result_t result;
    free(zc_read(streamer, UINT32_MAX, &size, &result));
    assert_int_equal(size, 0);
    zc_run_gemm(f, 40000);
    uint8_t *data = zc_read(streamer, UINT32_MAX, &size, &result);
    assert_true(size > 0);
    zc_sets sets = zc_calculate_sets(group, ZET_METRIC_GROUP_CALCULATION_TYPE_METRIC_VALUES, data, size);
    assert_int_equal(sets.num_sets, zc_tiles(x->device));
    uint32_t count = zc_metric_count(group), offset = 0;
    for (uint32_t s = 0; s < sets.num_sets; s++) {
        uint64_t previous_ip = 0, samples = 0;
        for (uint32_t r = 0; r < sets.counts[s] / count; r++) {
            const zet_typed_value_t *row = &sets.values[offset + r * count];
            uint64_t ip = zc_u64(row[0]);
            if (ip * 8 < base || ip * 8 >= end || (ip * 8 - base) % 16 != 0)
                zc_fail("IP 0x%llx (address 0x%llx) is no instruction of the kernel at 0x%llx..0x%llx",
                        (unsigned long long)ip, (unsigned long long)ip * 8, (unsigned long long)base,
                        (unsigned long long)end);
            assert_true(r == 0 || ip > previous_ip);
            previous_ip = ip;
            for (uint32_t m = 1; m < count; m++)
                samples += zc_u64(row[m]);
        }
        assert_true(samples > 0);
        offset += sets.counts[s];
    }
    zc_sets_free(&sets);
    free(data);
    zc_assert_success(zetMetricStreamerClose(streamer));
    zc_assert_success(zeKernelDestroy(held));
}

/* Streamer data of a multi-tile root device is framed per tile; the plain calculation refuses it. */
static void streamer_root_device_data_is_framed_per_tile(void **state) {
    zc_streamer_fixture *f = *state;
    zc_exec *x = &f->x;
    zc_skip_unless_fake();
    uint32_t tiles = zc_subdevice_count(x->device);
    if (tiles == 0)
        skip();
    zet_metric_group_handle_t group = zc_need_group(x->device, "TestOa", ZC_TIME_BASED);
    zc_activate(x->context, x->device, 1, &group);
    zet_metric_streamer_desc_t desc = {ZET_STRUCTURE_TYPE_METRIC_STREAMER_DESC, NULL, 64, 10000};
    zet_metric_streamer_handle_t streamer = zc_open(x, group, &desc, NULL);
    zc_advance_clock(x->device, 40);
    size_t size = 0;
    ze_result_t result;
    uint8_t *data = zc_read(streamer, UINT32_MAX, &size, &result);
    assert_int_equal(zc_get32(data), ZC_FRAME_MAGIC);
    assert_int_equal(zc_get32(data + 8), tiles);
    uint32_t count = 0;
    zc_assert_result(zetMetricGroupCalculateMetricValues(group, ZET_METRIC_GROUP_CALCULATION_TYPE_METRIC_VALUES, size,
                                                         data, &count, NULL),
                     ZE_RESULT_ERROR_INVALID_ARGUMENT);
    zc_sets sets = zc_calculate_sets(group, ZET_METRIC_GROUP_CALCULATION_TYPE_METRIC_VALUES, data, size);
    assert_int_equal(sets.num_sets, tiles);
    for (uint32_t s = 1; s < tiles; s++)
        assert_int_equal(sets.counts[s], sets.counts[0]);
    assert_true(sets.counts[0] > 0);
    zc_sets_free(&sets);
    free(data);
    zc_assert_success(zetMetricStreamerClose(streamer));
}

/* Two engines run kernels at the same time while a streamer samples: every worker feeds the counters, and between
 * a report before and a report after both kernels the XVE cycles add up to both. */
static void streamer_concurrent_engines_are_all_counted(void **state) {
    zc_streamer_fixture *f = *state;
    zc_exec *x = &f->x;
    zc_skip_unless_fake();
    if (x->groups[x->compute_ordinal].numQueues < 2)
        skip(); /* needs two compute engines */
    zet_metric_group_handle_t group = zc_need_group(x->device, "ComputeBasic", ZC_TIME_BASED);
    zc_activate(x->context, x->device, 1, &group);
    zet_metric_streamer_desc_t desc = {ZET_STRUCTURE_TYPE_METRIC_STREAMER_DESC, NULL, 4096, 10000};
    zet_metric_streamer_handle_t streamer = zc_open(x, group, &desc, NULL);
    zc_advance_clock(x->device, 20);
    const uint32_t m = 8, n = 8, k = 20000;
    float *a = zc_host_alloc(x, (size_t)m * k * 4), *b = zc_host_alloc(x, (size_t)k * n * 4);
    float *c = zc_host_alloc(x, (size_t)m * n * 4 * 2);
    memset(a, 0, (size_t)m * k * 4);
    memset(b, 0, (size_t)k * n * 4);
    ze_kernel_handle_t kernels[2];
    ze_command_list_handle_t lists[2];
    ze_command_queue_handle_t queues[2];
    for (uint32_t q = 0; q < 2; q++) {
        kernels[q] = zc_kernel_create(f->gemm, "gemm");
        void *args[3] = {a, b, c + q * m * n};
        for (uint32_t i = 0; i < 3; i++)
            zc_assert_success(zeKernelSetArgumentValue(kernels[q], i, sizeof(void *), &args[i]));
        zc_assert_success(zeKernelSetArgumentValue(kernels[q], 3, sizeof m, &m));
        zc_assert_success(zeKernelSetArgumentValue(kernels[q], 4, sizeof n, &n));
        zc_assert_success(zeKernelSetArgumentValue(kernels[q], 5, sizeof k, &k));
        zc_assert_success(zeKernelSetGroupSize(kernels[q], 8, 8, 1));
        lists[q] = zc_list(x, x->compute_ordinal);
        ze_group_count_t groups = {1, 1, 1};
        zc_assert_success(zeCommandListAppendLaunchKernel(lists[q], kernels[q], &groups, NULL, 0, NULL));
        zc_assert_success(zeCommandListClose(lists[q]));
        queues[q] = zc_queue(x, x->compute_ordinal, q, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    }
    for (uint32_t q = 0; q < 2; q++)
        zc_assert_success(zeCommandQueueExecuteCommandLists(queues[q], 1, &lists[q], NULL));
    for (uint32_t q = 0; q < 2; q++)
        zc_assert_success(zeCommandQueueSynchronize(queues[q], UINT64_MAX));
    zc_advance_clock(x->device, 20);
    size_t size = 0, length = 0;
    ze_result_t result;
    uint8_t *data = zc_read(streamer, UINT32_MAX, &size, &result);
    ze_device_properties_t p = zc_device_props(x->device);
    /* docs/builtin-kernels.md: each of the 64 work-items inside C runs 22 + 11k ALU operations and 1 + 2k memory
     * instructions and moves 8k + 4 bytes; docs/cost-model.md gives the kernel's time. */
    zc_item_work gemm = {.alu = 22 + 11 * (uint64_t)k, .memory = 1 + 2 * (uint64_t)k, .bytes = 8 * (uint64_t)k + 4};
    zc_model model = zc_model_of(x->device);
    uint64_t kernel_ns = zc_model_kernel_ns(&model, &gemm, 1, 64);
    uint64_t cycles = kernel_ns * p.coreClockRate / 1000, dispatch = 2000 * p.coreClockRate / 1000;
    uint32_t tiles = zc_tiles(x->device);
    uint64_t threads = (64 / tiles + p.physicalEUSimdWidth - 1) / p.physicalEUSimdWidth;
    for (uint32_t t = 0; t < tiles; t++) {
        const uint8_t *records = zc_tile_records(data, size, t, &length);
        size_t count = length / ZC_OA_RECORD_SIZE;
        assert_true(count > 2);
        const uint8_t *first = records, *last = records + (count - 1) * ZC_OA_RECORD_SIZE;
        uint64_t a0 =
            (zc_get32(last + 24) | (uint64_t)last[152] << 32) - (zc_get32(first + 24) | (uint64_t)first[152] << 32);
        assert_int_equal(a0 & ((1ull << 40) - 1), 2 * threads * (cycles - dispatch));
    }
    free(data);
    for (uint32_t q = 0; q < 2; q++) {
        zc_assert_success(zeCommandQueueDestroy(queues[q]));
        zc_assert_success(zeCommandListDestroy(lists[q]));
        zc_assert_success(zeKernelDestroy(kernels[q]));
    }
    zc_free(x, a);
    zc_free(x, b);
    zc_free(x, c);
    zc_assert_success(zetMetricStreamerClose(streamer));
}

/* ---- Host clock (fake only; `realtime`, its former name): reports appear while idle, and the event is signalled
 * without any work ---------------------------------------------------------------------------------------------- */

static const char zc_realtime_yaml[] =
    "schema: 1\n"
    "name: realtime\n"
    "clock: {mode: realtime}\n"
    "devices:\n"
    "  - name: Realtime GPU\n"
    "    type: gpu\n"
    "    device_id: 0x1234\n"
    "    metric_groups:\n"
    "      - {name: Clocks, domain: 0, sampling: [time_based], counters: [{signal: gpu_clocks}],\n"
    "         metrics: [{name: Counter0, formula: B0}]}\n";

static int zc_child_realtime(int argc, char **argv) {
    (void)argc;
    (void)argv;
    zc_exec *x = zc_child_exec_begin();
    if (x == NULL)
        return 2;
    zet_metric_group_handle_t group = zc_find_group(x->device, "Clocks", ZC_TIME_BASED);
    if (group == NULL || zetContextActivateMetricGroups(x->context, x->device, 1, &group) != ZE_RESULT_SUCCESS)
        return 3;
    ze_event_pool_desc_t pool_desc = {ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, NULL, ZE_EVENT_POOL_FLAG_HOST_VISIBLE, 1};
    ze_event_pool_handle_t pool = NULL;
    ze_event_handle_t event = NULL;
    ze_event_desc_t event_desc = {ZE_STRUCTURE_TYPE_EVENT_DESC, NULL, 0, 0, 0};
    zet_metric_streamer_desc_t desc = {ZET_STRUCTURE_TYPE_METRIC_STREAMER_DESC, NULL, 4, 100000};
    zet_metric_streamer_handle_t streamer = NULL;
    if (zeEventPoolCreate(x->context, &pool_desc, 1, &x->device, &pool) != ZE_RESULT_SUCCESS ||
        zeEventCreate(pool, &event_desc, &event) != ZE_RESULT_SUCCESS ||
        zetMetricStreamerOpen(x->context, x->device, group, &desc, event, &streamer) != ZE_RESULT_SUCCESS)
        return 4;
    ze_result_t sync = zeEventHostSynchronize(event, 10000000000u);
    size_t size = 0;
    zetMetricStreamerReadData(streamer, UINT32_MAX, &size, NULL);
    uint8_t *data = malloc(size);
    ze_result_t read = data != NULL ? zetMetricStreamerReadData(streamer, UINT32_MAX, &size, data)
                                    : ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    printf("sync=%s\nread=%s\nreports=%zu\n", zc_result_name(sync), zc_result_name(read), size / ZC_OA_RECORD_SIZE);
    free(data);
    zetMetricStreamerClose(streamer);
    zeEventDestroy(event);
    zeEventPoolDestroy(pool);
    return zc_child_exec_end(x);
}

static void streamer_realtime_clock_samples_while_idle(void **state) {
    (void)state;
    zc_skip_unless_fake();
    zc_child child;
    char instance[64]; /* a card of its own: host-clock cards are shared by the processes of an instance */
    snprintf(instance, sizeof instance, "zc-realtime-%d", (int)getpid());
    setenv("ZEFAKE_INSTANCE", instance, 1);
    unsetenv("ZEFAKE_CLOCK"); /* the scenario's clock, not this suite's deterministic one */
    bool started = zc_run_child_in_scenario("realtime", zc_realtime_yaml, ZC_CHILD_TIMEOUT_MS, &child);
    setenv("ZEFAKE_CLOCK", "modelled", 1);
    unsetenv("ZEFAKE_INSTANCE");
    assert_true(started);
    zc_assert_child_ok(&child, "the realtime child");
    char value[64];
    assert_true(zc_child_value(&child, "sync", value, sizeof value));
    assert_string_equal(value, "ZE_RESULT_SUCCESS");
    assert_true(zc_child_number(&child, "reports") >= 1);
    zc_child_free(&child);
}

int main(int argc, char **argv) {
#define ZC_FIXTURE streamer
    static const struct CMUnitTest tests[] = {
        ZC_T(streamer_open_checks_in_order),
        ZC_T(streamer_open_bad_arguments),
        ZC_T(streamer_closed_handle_refused),
        ZC_T(streamer_period_and_notification_count_written_back),
        ZC_T(streamer_reports_at_the_period_while_idle),
        ZC_T(streamer_reports_while_work_runs),
        ZC_T(streamer_counters_wrap_under_long_kernels),
        ZC_T(streamer_notification_event_signalled_when_reports_are_readable),
        ZC_T(streamer_notification_event_must_be_host_visible),
        ZC_T(streamer_overflow_warns_and_loses_the_oldest_reports),
        ZC_T(streamer_read_respects_max_report_count),
        ZC_T(streamer_markers_show_in_later_reports),
        ZC_T(streamer_marker_on_a_wrong_list_or_streamer_is_refused),
        ZC_T(streamer_eu_stall_sampling),
        ZC_T(streamer_root_device_data_is_framed_per_tile),
        ZC_T(streamer_concurrent_engines_are_all_counted),
        ZC_T(streamer_realtime_clock_samples_while_idle),
    };
    static const zc_child_mode modes[] = {{"realtime", zc_child_realtime}};
    static const zc_suite suite = {ZC_EXECUTABLE,      tests, ZC_COUNT(tests), zc_setup_system,
                                   zc_teardown_system, modes, ZC_COUNT(modes)};
    return zc_main(argc, argv, &suite);
}
