/* Conformance: device time that tools can trust. A 256^3 GEMM takes no less than the card's peak FLOP rate allows and
 * not absurdly more; the memory counters of a metric query around it see at least the matrices' bytes; a streamer
 * sampling while it runs sees the XVEs active; a global timestamp read before a submission is earlier than the first
 * command's start by less than a millisecond; and a kernel on a root device of N tiles has N kernel timestamps
 * (zeEventQueryTimestampsExp). On zefake these follow from the executed-work model of docs/cost-model.md. */
#include "zc_exec.h"
#include "zc_kernel_files.h"
#include "zc_metric.h"

#include <inttypes.h>
#include <stdio.h>
#include <unistd.h>

#define ZC_DIM       256u
#define ZC_MATRIX    (ZC_DIM * ZC_DIM * sizeof(float))
#define ZC_PERIOD_NS 100000u /* a profiler's period: the reports of a slow emulation of the kernel fit */

typedef struct zc_gemm {
    ze_module_handle_t module;
    ze_kernel_handle_t kernel;
    float *a, *b, *c;
} zc_gemm;

/* C = A x B of 256 x 256 matrices (conformance/kernels/gemm.cl), in device memory. */
static zc_gemm zc_gemm_create(zc_exec *x) {
    zc_gemm g = {.module = zc_module_create(x->context, x->device, "gemm")};
    g.kernel = zc_kernel_create(g.module, "gemm");
    g.a = zc_device_alloc(x, ZC_MATRIX);
    g.b = zc_device_alloc(x, ZC_MATRIX);
    g.c = zc_device_alloc(x, ZC_MATRIX);
    void *args[3] = {g.a, g.b, g.c};
    for (uint32_t i = 0; i < 3; i++)
        zc_assert_success(zeKernelSetArgumentValue(g.kernel, i, sizeof(void *), &args[i]));
    const uint32_t dim = ZC_DIM;
    for (uint32_t i = 3; i < 6; i++)
        zc_assert_success(zeKernelSetArgumentValue(g.kernel, i, sizeof dim, &dim));
    zc_assert_success(zeKernelSetGroupSize(g.kernel, 16, 16, 1));
    return g;
}

static void zc_gemm_append(ze_command_list_handle_t list, const zc_gemm *g, ze_event_handle_t signal) {
    ze_group_count_t groups = {ZC_DIM / 16, ZC_DIM / 16, 1};
    zc_assert_success(zeCommandListAppendLaunchKernel(list, g->kernel, &groups, signal, 0, NULL));
}

static void zc_gemm_destroy(zc_exec *x, zc_gemm *g) {
    zc_free(x, g->a);
    zc_free(x, g->b);
    zc_free(x, g->c);
    zc_assert_success(zeKernelDestroy(g->kernel));
    zc_assert_success(zeModuleDestroy(g->module));
}

/* Runs `list` on a fresh queue of the compute group and waits for it. */
static void zc_execute(zc_exec *x, ze_command_list_handle_t list) {
    ze_command_queue_handle_t queue = zc_queue(x, x->compute_ordinal, 0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    zc_run(queue, list);
    zc_assert_success(zeCommandQueueDestroy(queue));
}

/* Ticks from `from` to `to` of a timer of `bits` valid bits (a wrap in between is allowed). */
static uint64_t zc_ticks_between(uint64_t from, uint64_t to, uint32_t bits) {
    uint64_t mask = bits >= 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
    return (to - from) & mask;
}

/* ---- Duration ------------------------------------------------------------------------------------------------- */

static void gemm_takes_between_1x_and_1000x_its_peak_flop_time(void **state) {
    zc_exec *x = *state;
    zc_gemm g = zc_gemm_create(x);
    ze_event_pool_handle_t pool = zc_event_pool(x, 1, ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP);
    ze_event_handle_t timed = zc_event(pool, 0);
    ze_command_list_handle_t list = zc_list(x, x->compute_ordinal);
    zc_gemm_append(list, &g, timed);
    zc_execute(x, list);
    ze_kernel_timestamp_result_t ts;
    zc_assert_success(zeEventQueryKernelTimestamp(timed, &ts));
    ze_device_properties_t p = zc_device_props(x->device);
    double ns = (double)zc_ticks_between(ts.global.kernelStart, ts.global.kernelEnd, p.kernelTimestampValidBits) * 1e9 /
                (double)p.timerResolution;
    /* Peak: every lane of every XVE retires one fused multiply-add (2 FLOP) per core cycle. */
    double lanes = (double)p.numSlices * p.numSubslicesPerSlice * p.numEUsPerSubslice * p.physicalEUSimdWidth;
    double flop = 2.0 * ZC_DIM * ZC_DIM * ZC_DIM, peak_ns = flop / (lanes * 2.0 * p.coreClockRate * 1e6) * 1e9;
    if (ns < peak_ns || ns > 1000.0 * peak_ns)
        zc_fail("GEMM %u^3 took %.0f ns; the peak FLOP bound is %.0f ns", ZC_DIM, ns, peak_ns);
    zc_assert_success(zeCommandListDestroy(list));
    zc_assert_success(zeEventDestroy(timed));
    zc_assert_success(zeEventPoolDestroy(pool));
    zc_gemm_destroy(x, &g);
}

/* ---- Metrics -------------------------------------------------------------------------------------------------- */

/* The first of `names` the group has (the shipped scenarios use Data Center GPU Max or Meteor Lake names). */
static uint32_t zc_metric_named(zet_metric_group_handle_t group, const char *const names[2]) {
    zc_count_query query = zc_metric_query_of(group);
    uint32_t n = 0, index = UINT32_MAX;
    zet_metric_handle_t *metrics = zc_query_all(&query, &n);
    for (uint32_t k = 0; k < 2 && index == UINT32_MAX; k++)
        for (uint32_t i = 0; i < n && index == UINT32_MAX; i++)
            if (strcmp(zc_metric_properties(metrics[i]).name, names[k]) == 0)
                index = i;
    free(metrics);
    if (index == UINT32_MAX)
        skip(); /* a driver that names it otherwise */
    return index;
}

static const char *const zc_memory_read[2] = {"GPU_MEMORY_BYTE_READ", "GpuMemoryReadBytes"};
static const char *const zc_xve_active[2] = {"XVE_ACTIVE", "XveActive"};

/* The sum of metric `index` over every set of the data (one set per tile). */
static double zc_sum_over_sets(zet_metric_group_handle_t group, const uint8_t *data, size_t size, uint32_t index) {
    zc_sets sets = zc_calculate_sets(group, ZET_METRIC_GROUP_CALCULATION_TYPE_METRIC_VALUES, data, size);
    uint32_t count = zc_metric_count(group);
    double sum = 0.0;
    for (uint32_t s = 0, offset = 0; s < sets.num_sets; offset += sets.counts[s++])
        for (uint32_t v = index; v < sets.counts[s]; v += count)
            sum += sets.values[offset + v].type == ZET_VALUE_TYPE_UINT64 ? (double)zc_u64(sets.values[offset + v])
                                                                         : zc_f64(sets.values[offset + v]);
    zc_sets_free(&sets);
    return sum;
}

static void query_around_gemm_reads_at_least_the_matrices(void **state) {
    zc_exec *x = *state;
    zet_metric_group_handle_t group = zc_need_group(x->device, "ComputeBasic", ZC_EVENT_BASED);
    uint32_t read = zc_metric_named(group, zc_memory_read);
    zc_activate(x->context, x->device, 1, &group);
    zet_metric_query_pool_desc_t desc = {ZET_STRUCTURE_TYPE_METRIC_QUERY_POOL_DESC, NULL,
                                         ZET_METRIC_QUERY_POOL_TYPE_PERFORMANCE, 1};
    zet_metric_query_pool_handle_t pool = NULL;
    zc_assert_success(zetMetricQueryPoolCreate(x->context, x->device, group, &desc, &pool));
    zet_metric_query_handle_t query = NULL;
    zc_assert_success(zetMetricQueryCreate(pool, 0, &query));
    zc_gemm g = zc_gemm_create(x);
    ze_command_list_handle_t list = zc_list(x, x->compute_ordinal);
    zc_assert_success(zetCommandListAppendMetricQueryBegin(list, query));
    zc_gemm_append(list, &g, NULL);
    zc_assert_success(zetCommandListAppendMetricQueryEnd(list, query, NULL, 0, NULL));
    zc_execute(x, list);
    size_t size = 0;
    uint8_t *data = zc_query_data(query, &size);
    double bytes = zc_sum_over_sets(group, data, size, read);
    if (bytes < 2.0 * ZC_MATRIX)
        zc_fail("a query around GEMM %u^3 read %.0f bytes, less than its two input matrices (%zu)", ZC_DIM, bytes,
                2 * ZC_MATRIX);
    free(data);
    zc_assert_success(zeCommandListDestroy(list));
    zc_gemm_destroy(x, &g);
    zc_assert_success(zetMetricQueryDestroy(query));
    zc_assert_success(zetMetricQueryPoolDestroy(pool));
    zc_activate(x->context, x->device, 0, NULL);
}

static uint8_t *zc_streamer_data(zet_metric_streamer_handle_t streamer, size_t *size) {
    *size = 0;
    zc_assert_success(zetMetricStreamerReadData(streamer, UINT32_MAX, size, NULL));
    uint8_t *data = malloc(*size + 1);
    if (data == NULL)
        zc_fail("out of memory");
    zc_assert_success(zetMetricStreamerReadData(streamer, UINT32_MAX, size, data));
    return data;
}

static void streamer_sees_xves_active_during_gemm(void **state) {
    zc_exec *x = *state;
    zet_metric_group_handle_t group = zc_need_group(x->device, "ComputeBasic", ZC_TIME_BASED);
    uint32_t active = zc_metric_named(group, zc_xve_active);
    zc_activate(x->context, x->device, 1, &group);
    zet_metric_streamer_desc_t desc = {ZET_STRUCTURE_TYPE_METRIC_STREAMER_DESC, NULL, 32768, ZC_PERIOD_NS};
    zet_metric_streamer_handle_t streamer = NULL;
    zc_assert_success(zetMetricStreamerOpen(x->context, x->device, group, &desc, NULL, &streamer));
    zc_gemm g = zc_gemm_create(x);
    ze_command_list_handle_t list = zc_list(x, x->compute_ordinal);
    zc_gemm_append(list, &g, NULL);
    zc_execute(x, list);
    /* the device clock runs on for two periods: the report after the kernel's end exists */
    usleep(2 * ZC_PERIOD_NS / 1000);
    uint64_t host = 0, ticks = 0;
    zc_assert_success(zeDeviceGetGlobalTimestamps(x->device, &host, &ticks));
    size_t size = 0;
    uint8_t *data = zc_streamer_data(streamer, &size);
    double sum = zc_sum_over_sets(group, data, size, active);
    if (!(sum > 0.0))
        zc_fail("no streamer report taken during GEMM %u^3 shows active XVEs (%zu bytes of reports)", ZC_DIM, size);
    free(data);
    zc_assert_success(zeCommandListDestroy(list));
    zc_gemm_destroy(x, &g);
    zc_assert_success(zetMetricStreamerClose(streamer));
    zc_activate(x->context, x->device, 0, NULL);
}

/* ---- Timestamps ----------------------------------------------------------------------------------------------- */

static void global_timestamp_before_submit_precedes_the_first_start(void **state) {
    zc_exec *x = *state;
    ze_event_pool_handle_t pool = zc_event_pool(x, 1, ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP);
    ze_event_handle_t timed = zc_event(pool, 0);
    ze_command_list_handle_t list = zc_list(x, x->compute_ordinal);
    zc_assert_success(zeCommandListAppendBarrier(list, timed, 0, NULL));
    zc_assert_success(zeCommandListClose(list));
    ze_command_queue_handle_t queue = zc_queue(x, x->compute_ordinal, 0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    uint64_t host = 0, before = 0;
    zc_assert_success(zeDeviceGetGlobalTimestamps(x->device, &host, &before));
    zc_assert_success(zeCommandQueueExecuteCommandLists(queue, 1, &list, NULL));
    zc_assert_success(zeCommandQueueSynchronize(queue, UINT64_MAX));
    ze_kernel_timestamp_result_t ts;
    zc_assert_success(zeEventQueryKernelTimestamp(timed, &ts));
    ze_device_properties_t p = zc_device_props(x->device);
    uint32_t bits =
        p.kernelTimestampValidBits < p.timestampValidBits ? p.kernelTimestampValidBits : p.timestampValidBits;
    uint64_t ahead = zc_ticks_between(before, ts.global.kernelStart, bits);
    uint64_t limit = p.timerResolution / 1000u; /* ticks in 1 ms */
    if (ahead == 0 || ahead >= limit)
        zc_fail("the first command started %" PRIu64 " ticks after the timestamp read before the submission; expected "
                "more than 0 and less than %" PRIu64 " (1 ms)",
                ahead, limit);
    zc_assert_success(zeCommandQueueDestroy(queue));
    zc_assert_success(zeCommandListDestroy(list));
    zc_assert_success(zeEventDestroy(timed));
    zc_assert_success(zeEventPoolDestroy(pool));
}

/* docs/cost-model.md, "Kernel timestamps per tile": each sub-device answers its own tile's interval. */
static void zc_check_tile_queries(ze_event_handle_t event, ze_device_handle_t root,
                                  const ze_kernel_timestamp_result_t *per_tile, uint32_t tiles) {
    ze_device_handle_t subdevices[8];
    uint32_t n = ZC_COUNT(subdevices);
    zc_assert_success(zeDeviceGetSubDevices(root, &n, subdevices));
    assert_int_equal(n, tiles);
    for (uint32_t t = 0; t < n; t++) {
        uint32_t count = 1;
        ze_kernel_timestamp_result_t own;
        zc_assert_success(zeEventQueryTimestampsExp(event, subdevices[t], &count, &own));
        assert_int_equal(count, 1);
        assert_memory_equal(&own, &per_tile[t], sizeof own);
    }
}

static void composite_launch_has_a_timestamp_per_tile(void **state) {
    zc_exec *x = *state;
    uint32_t tiles = zc_subdevice_count(x->device);
    if (tiles < 2)
        skip(); /* not a composite device */
    zc_gemm g = zc_gemm_create(x);
    ze_event_pool_handle_t pool = zc_event_pool(x, 1, ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP);
    ze_event_handle_t timed = zc_event(pool, 0);
    ze_command_list_handle_t list = zc_list(x, x->compute_ordinal);
    /* 17 x 15 groups of 16 x 16 (the rows past 240 and columns past 256 idle): an odd number of work-groups, which a
     * two-tile card shares unevenly. */
    ze_group_count_t uneven = {ZC_DIM / 16 + 1, ZC_DIM / 16 - 1, 1};
    zc_assert_success(zeCommandListAppendLaunchKernel(list, g.kernel, &uneven, timed, 0, NULL));
    zc_execute(x, list);
    uint32_t count = 0;
    ze_result_t result = zeEventQueryTimestampsExp(timed, x->device, &count, NULL);
    if (result == ZE_RESULT_ERROR_UNSUPPORTED_FEATURE && !zc_driver_is_fake())
        skip(); /* ZE_experimental_event_query_timestamps is optional */
    zc_assert_success(result);
    assert_int_equal(count, tiles);
    ze_kernel_timestamp_result_t *results = calloc(count, sizeof *results), whole;
    assert_non_null(results);
    zc_assert_success(zeEventQueryTimestampsExp(timed, x->device, &count, results));
    zc_assert_success(zeEventQueryKernelTimestamp(timed, &whole));
    ze_device_properties_t p = zc_device_props(x->device);
    for (uint32_t t = 0; t < count; t++) {
        uint64_t span =
            zc_ticks_between(results[t].global.kernelStart, results[t].global.kernelEnd, p.kernelTimestampValidBits);
        uint64_t within =
            zc_ticks_between(whole.global.kernelStart, results[t].global.kernelEnd, p.kernelTimestampValidBits);
        uint64_t total = zc_ticks_between(whole.global.kernelStart, whole.global.kernelEnd, p.kernelTimestampValidBits);
        if (span == 0 || within > total)
            zc_fail("tile %u's kernel timestamps [%" PRIu64 ", %" PRIu64 "] are empty or outside the kernel's", t,
                    results[t].global.kernelStart, results[t].global.kernelEnd);
    }
    if (zc_driver_is_fake()) {
        /* docs/cost-model.md: tile 0 runs 128 of the 255 groups, tile 1 127, so tile 0 ends later. */
        uint64_t later =
            zc_ticks_between(results[1].global.kernelEnd, results[0].global.kernelEnd, p.kernelTimestampValidBits);
        if (later == 0 || later > UINT32_MAX)
            zc_fail("tile 0 (128 groups) ends at %" PRIu64 ", tile 1 (127 groups) at %" PRIu64,
                    results[0].global.kernelEnd, results[1].global.kernelEnd);
        zc_check_tile_queries(timed, x->device, results, count);
    }
    free(results);
    zc_assert_success(zeCommandListDestroy(list));
    zc_assert_success(zeEventDestroy(timed));
    zc_assert_success(zeEventPoolDestroy(pool));
    zc_gemm_destroy(x, &g);
}

int main(int argc, char **argv) {
#define ZC_FIXTURE exec
    static const struct CMUnitTest tests[] = {
        ZC_T(gemm_takes_between_1x_and_1000x_its_peak_flop_time),
        ZC_T(query_around_gemm_reads_at_least_the_matrices),
        ZC_T(streamer_sees_xves_active_during_gemm),
        ZC_T(global_timestamp_before_submit_precedes_the_first_start),
        ZC_T(composite_launch_has_a_timestamp_per_tile),
    };
    static const zc_suite suite = {ZC_EXECUTABLE, tests, ZC_COUNT(tests), zc_setup_system, zc_teardown_system, NULL, 0};
    return zc_main(argc, argv, &suite);
}
