/* Helpers of the tests of the metric functions later headers added (export data, programmables, user-created
 * groups, tracers): a fixture with a context and the vadd module on the first root device, and a known workload to
 * measure (docs/metrics.md). Include after zc_exec.h, zc_kernel_files.h and zc_metric.h, once per executable. */
#ifndef ZC_METRIC_EXP_H
#define ZC_METRIC_EXP_H

#include "zc_exec.h"
#include "zc_kernel_files.h"
#include "zc_metric.h"

#define ZC_WORK_ITEMS      4096u
#define ZC_WORK_COPY_BYTES 16384u

typedef struct zc_metric_fixture {
    zc_exec x;
    ze_module_handle_t vadd;
} zc_metric_fixture;

/* Test fixture (zc_metric_exp.c): *state becomes a zc_metric_fixture; the teardown deactivates the metric groups. */
int zc_setup_metric_fixture(void **state);
int zc_teardown_metric_fixture(void **state);

/* What the caller appends before the work (end false) and after it (end true, with the list's signal event). */
typedef void (*zc_around_fn)(ze_command_list_handle_t list, void *arg, bool end, ze_event_handle_t done);

/* vadd_int over ZC_WORK_ITEMS items (groups of 64) and a device-to-device copy of ZC_WORK_COPY_BYTES, on one list of
 * the compute engine, run and synchronised. */
static inline void zc_run_work(zc_metric_fixture *f, zc_around_fn around, void *arg) {
    zc_exec *x = &f->x;
    void *a = zc_device_alloc(x, ZC_WORK_ITEMS * 4), *b = zc_device_alloc(x, ZC_WORK_ITEMS * 4);
    void *c = zc_device_alloc(x, ZC_WORK_ITEMS * 4), *d = zc_device_alloc(x, ZC_WORK_COPY_BYTES);
    ze_kernel_handle_t kernel = zc_kernel_create(f->vadd, "vadd_int");
    void *args[3] = {a, b, c};
    for (uint32_t i = 0; i < 3; i++)
        zc_assert_success(zeKernelSetArgumentValue(kernel, i, sizeof(void *), &args[i]));
    zc_assert_success(zeKernelSetGroupSize(kernel, 64, 1, 1));
    ze_group_count_t groups = {ZC_WORK_ITEMS / 64, 1, 1};
    ze_event_pool_handle_t events = zc_event_pool(x, 1, 0);
    ze_event_handle_t done = zc_event(events, 0);
    ze_command_list_handle_t list = zc_list(x, x->compute_ordinal);
    if (around != NULL)
        around(list, arg, false, NULL);
    zc_assert_success(zeCommandListAppendLaunchKernel(list, kernel, &groups, NULL, 0, NULL));
    zc_assert_success(
        zeCommandListAppendMemoryCopy(list, d, a, ZC_WORK_COPY_BYTES, around == NULL ? done : NULL, 0, NULL));
    if (around != NULL)
        around(list, arg, true, done);
    ze_command_queue_handle_t queue = zc_queue(x, x->compute_ordinal, 0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    zc_run(queue, list);
    zc_assert_success(zeEventQueryStatus(done));
    zc_assert_success(zeCommandQueueDestroy(queue));
    zc_assert_success(zeCommandListDestroy(list));
    zc_assert_success(zeEventDestroy(done));
    zc_assert_success(zeEventPoolDestroy(events));
    zc_assert_success(zeKernelDestroy(kernel));
    zc_free(x, a);
    zc_free(x, b);
    zc_free(x, c);
    zc_free(x, d);
}

static inline void zc_query_around(ze_command_list_handle_t list, void *arg, bool end, ze_event_handle_t done) {
    zet_metric_query_handle_t query = arg;
    if (end)
        zc_assert_success(zetCommandListAppendMetricQueryEnd(list, query, done, 0, NULL));
    else
        zc_assert_success(zetCommandListAppendMetricQueryBegin(list, query));
}

/* The raw data of the work measured by a query of `group` (activated for it, deactivated after); free it. */
static inline uint8_t *zc_query_work(zc_metric_fixture *f, zet_metric_group_handle_t group, size_t *size) {
    zc_activate(f->x.context, f->x.device, 1, &group);
    zet_metric_query_pool_desc_t desc = {ZET_STRUCTURE_TYPE_METRIC_QUERY_POOL_DESC, NULL,
                                         ZET_METRIC_QUERY_POOL_TYPE_PERFORMANCE, 1};
    zet_metric_query_pool_handle_t pool = NULL;
    zet_metric_query_handle_t query = NULL;
    zc_assert_success(zetMetricQueryPoolCreate(f->x.context, f->x.device, group, &desc, &pool));
    zc_assert_success(zetMetricQueryCreate(pool, 0, &query));
    zc_run_work(f, zc_query_around, query);
    uint8_t *data = zc_query_data(query, size);
    zc_assert_success(zetMetricQueryDestroy(query));
    zc_assert_success(zetMetricQueryPoolDestroy(pool));
    zc_activate(f->x.context, f->x.device, 0, NULL);
    return data;
}

/* The raw data a streamer of `group` reads while the work runs and the device clock moves on by `reads` reads of
 * 1 us each (docs/cost-model.md); free it. */
static inline uint8_t *zc_stream_work(zc_metric_fixture *f, zet_metric_group_handle_t group, uint32_t reads,
                                      size_t *size) {
    zc_activate(f->x.context, f->x.device, 1, &group);
    zet_metric_streamer_desc_t desc = {ZET_STRUCTURE_TYPE_METRIC_STREAMER_DESC, NULL, 64, 1000};
    zet_metric_streamer_handle_t streamer = NULL;
    zc_assert_success(zetMetricStreamerOpen(f->x.context, f->x.device, group, &desc, NULL, &streamer));
    /* First past the first report (the period is below 1 us), so that every report pair sees the whole work. */
    uint64_t host = 0, ticks = 0;
    for (uint32_t i = 0; i < 2; i++)
        zc_assert_success(zeDeviceGetGlobalTimestamps(f->x.device, &host, &ticks));
    zc_run_work(f, NULL, NULL);
    for (uint32_t i = 0; i < reads; i++)
        zc_assert_success(zeDeviceGetGlobalTimestamps(f->x.device, &host, &ticks));
    *size = 0;
    zc_assert_success(zetMetricStreamerReadData(streamer, UINT32_MAX, size, NULL));
    uint8_t *data = malloc(*size + 1);
    assert_non_null(data);
    zc_assert_success(zetMetricStreamerReadData(streamer, UINT32_MAX, size, data));
    zc_assert_success(zetMetricStreamerClose(streamer));
    zc_activate(f->x.context, f->x.device, 0, NULL);
    return data;
}

/* Two results of the multiple-set calculation are the same: sets, counts and values. */
static inline void zc_assert_same_sets(const zc_sets *a, const zc_sets *b) {
    assert_int_equal(a->num_sets, b->num_sets);
    assert_int_equal(a->total, b->total);
    for (uint32_t s = 0; s < a->num_sets; s++)
        assert_int_equal(a->counts[s], b->counts[s]);
    assert_true(zc_same_values(a->values, b->values, a->total));
}

#endif
