/* Conformance: metric queries (pools, queries, begin/end commands, data readiness, exclusion with streamers) and, on
 * the fake, a known workload measured by a query giving exactly what the cost model (docs/cost-model.md) and the
 * counter model (docs/metrics.md) predict. */
#include "zc_cost_model.h"
#include "zc_exec.h"
#include "zc_kernel_files.h"
#include "zc_metric.h"
#include "zc_metric_work.h"

#include <inttypes.h>

typedef struct zc_query_fixture {
    zc_exec x;
    ze_module_handle_t vadd;
} zc_query_fixture;

static int zc_setup_query(void **state) {
    void *exec = NULL;
    if (zc_setup_exec(&exec) != 0)
        return -1;
    zc_query_fixture *f = calloc(1, sizeof *f);
    if (f == NULL)
        return -1;
    f->x = *(zc_exec *)exec;
    free(exec);
    f->vadd = zc_module_create(f->x.context, f->x.device, "vadd");
    *state = f;
    return 0;
}

static int zc_teardown_query(void **state) {
    zc_query_fixture *f = *state;
    ze_result_t deactivate = zetContextActivateMetricGroups(f->x.context, f->x.device, 0, NULL);
    bool ok = zeModuleDestroy(f->vadd) == ZE_RESULT_SUCCESS && zeContextDestroy(f->x.context) == ZE_RESULT_SUCCESS;
    free(f);
    return ok && deactivate == ZE_RESULT_SUCCESS ? 0 : -1;
}

static zet_metric_query_pool_handle_t zc_pool(zc_exec *x, zet_metric_group_handle_t group, uint32_t count,
                                              zet_metric_query_pool_type_t type) {
    zet_metric_query_pool_desc_t desc = {ZET_STRUCTURE_TYPE_METRIC_QUERY_POOL_DESC, NULL, type, count};
    zet_metric_query_pool_handle_t pool = NULL;
    zc_assert_success(zetMetricQueryPoolCreate(x->context, x->device, group, &desc, &pool));
    return pool;
}

static zet_metric_query_handle_t zc_query(zet_metric_query_pool_handle_t pool, uint32_t index) {
    zet_metric_query_handle_t query = NULL;
    zc_assert_success(zetMetricQueryCreate(pool, index, &query));
    return query;
}

/* ---- Life cycle ----------------------------------------------------------------------------------------------- */

static void query_pool_and_query_life_cycle(void **state) {
    zc_query_fixture *f = *state;
    zet_metric_group_handle_t group = zc_need_group(f->x.device, "ComputeBasic", ZC_EVENT_BASED);
    zet_metric_query_pool_handle_t pool = zc_pool(&f->x, group, 4, ZET_METRIC_QUERY_POOL_TYPE_PERFORMANCE);
    zet_metric_query_handle_t queries[4];
    for (uint32_t i = 0; i < 4; i++)
        queries[i] = zc_query(pool, i);
    zet_metric_query_handle_t extra = NULL;
    zc_assert_result(zetMetricQueryCreate(pool, 4, &extra), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    zc_assert_result(zetMetricQueryCreate(pool, 0, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    if (zc_driver_is_fake()) {
        zc_assert_result(zetMetricQueryCreate(pool, 1, &extra), ZE_RESULT_ERROR_INVALID_ARGUMENT);
        zc_assert_result(zetMetricQueryPoolDestroy(pool), ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE);
    }
    zc_assert_success(zetMetricQueryReset(queries[2]));
    for (uint32_t i = 0; i < 4; i++)
        zc_assert_success(zetMetricQueryDestroy(queries[i]));
    queries[0] = zc_query(pool, 3); /* an index is free again once its query is destroyed */
    zc_assert_success(zetMetricQueryDestroy(queries[0]));
    zc_assert_success(zetMetricQueryPoolDestroy(pool));
    if (zc_driver_is_fake())
        zc_assert_result(zetMetricQueryDestroy(queries[0]), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
}

static void query_pool_bad_arguments(void **state) {
    zc_query_fixture *f = *state;
    zet_metric_group_handle_t event = zc_need_group(f->x.device, "ComputeBasic", ZC_EVENT_BASED);
    zet_metric_group_handle_t time = zc_need_group(f->x.device, "ComputeBasic", ZC_TIME_BASED);
    zet_metric_query_pool_desc_t desc = {ZET_STRUCTURE_TYPE_METRIC_QUERY_POOL_DESC, NULL,
                                         ZET_METRIC_QUERY_POOL_TYPE_PERFORMANCE, 2};
    zet_metric_query_pool_handle_t pool = NULL;
    zc_assert_result(zetMetricQueryPoolCreate(f->x.context, f->x.device, time, &desc, &pool),
                     ZE_RESULT_ERROR_INVALID_ARGUMENT);
    desc.type = (zet_metric_query_pool_type_t)7;
    zc_assert_result(zetMetricQueryPoolCreate(f->x.context, f->x.device, event, &desc, &pool),
                     ZE_RESULT_ERROR_INVALID_ENUMERATION);
    zc_assert_result(zetMetricQueryPoolCreate(f->x.context, f->x.device, event, NULL, &pool),
                     ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_skip_unless_fake();
    desc.type = ZET_METRIC_QUERY_POOL_TYPE_EXECUTION;
    desc.count = 0;
    zc_assert_result(zetMetricQueryPoolCreate(f->x.context, f->x.device, event, &desc, &pool),
                     ZE_RESULT_ERROR_INVALID_ARGUMENT);
    /* desc->stype: 0 (tools leave it so) or METRIC_QUERY_POOL_DESC; a descriptor of another type is refused. */
    desc.count = 1;
    desc.stype = ZET_STRUCTURE_TYPE_METRIC_STREAMER_DESC;
    zc_assert_result(zetMetricQueryPoolCreate(f->x.context, f->x.device, event, &desc, &pool),
                     ZE_RESULT_ERROR_INVALID_ARGUMENT);
    desc.stype = 0;
    zc_assert_success(zetMetricQueryPoolCreate(f->x.context, f->x.device, event, &desc, &pool));
    zc_assert_success(zetMetricQueryPoolDestroy(pool));
    desc.stype = ZET_STRUCTURE_TYPE_METRIC_QUERY_POOL_DESC;
    if (zc_sys()->num_subdevices[0] > 0) {
        zet_metric_group_handle_t sub = zc_need_group(zc_sys()->subdevices[0][0], "ComputeBasic", ZC_EVENT_BASED);
        desc.count = 1;
        zc_assert_result(zetMetricQueryPoolCreate(f->x.context, f->x.device, sub, &desc, &pool),
                         ZE_RESULT_ERROR_INVALID_ARGUMENT);
    }
}

/* ---- Readiness ------------------------------------------------------------------------------------------------ */

static void query_data_ready_after_the_end_executes(void **state) {
    zc_query_fixture *f = *state;
    zc_exec *x = &f->x;
    zet_metric_group_handle_t group = zc_need_group(x->device, "ComputeBasic", ZC_EVENT_BASED);
    zc_activate(x->context, x->device, 1, &group);
    zet_metric_query_pool_handle_t pool = zc_pool(x, group, 1, ZET_METRIC_QUERY_POOL_TYPE_PERFORMANCE);
    zet_metric_query_handle_t query = zc_query(pool, 0);
    ze_event_pool_handle_t events = zc_event_pool(x, 2, 0);
    ze_event_handle_t gate = zc_event(events, 0), done = zc_event(events, 1);
    ze_command_list_handle_t list = zc_list(x, x->compute_ordinal);
    zc_assert_success(zetCommandListAppendMetricQueryBegin(list, query));
    zc_assert_success(zetCommandListAppendMetricQueryEnd(list, query, done, 1, &gate));
    zc_assert_success(zeCommandListClose(list));
    ze_command_queue_handle_t queue = zc_queue(x, x->compute_ordinal, 0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    zc_assert_success(zeCommandQueueExecuteCommandLists(queue, 1, &list, NULL));
    size_t size = 0;
    zc_assert_success(zetMetricQueryGetData(query, &size, NULL)); /* the size is known at any time */
    assert_true(size > 0);
    uint8_t *data = malloc(size);
    assert_non_null(data);
    if (zc_driver_is_fake()) /* docs/metrics.md: NOT_READY until the end has executed */
        zc_assert_result(zetMetricQueryGetData(query, &size, data), ZE_RESULT_NOT_READY);
    else
        zc_assert_error(zetMetricQueryGetData(query, &size, data));
    zc_assert_result(zeEventQueryStatus(done), ZE_RESULT_NOT_READY);
    zc_assert_success(zeEventHostSignal(gate));
    zc_assert_success(zeEventHostSynchronize(done, UINT64_MAX));
    zc_assert_success(zetMetricQueryGetData(query, &size, data));
    if (zc_driver_is_fake()) {
        zc_assert_success(zetMetricQueryReset(query));
        zc_assert_result(zetMetricQueryGetData(query, &size, data), ZE_RESULT_NOT_READY);
    }
    free(data);
    zc_assert_success(zeCommandQueueSynchronize(queue, UINT64_MAX));
    zc_assert_success(zeCommandQueueDestroy(queue));
    zc_assert_success(zeCommandListDestroy(list));
    zc_assert_success(zeEventDestroy(gate));
    zc_assert_success(zeEventDestroy(done));
    zc_assert_success(zeEventPoolDestroy(events));
    zc_assert_success(zetMetricQueryDestroy(query));
    zc_assert_success(zetMetricQueryPoolDestroy(pool));
}

/* ---- Exclusion ------------------------------------------------------------------------------------------------ */

static void query_pools_and_streamers_exclude_each_other(void **state) {
    zc_query_fixture *f = *state;
    zc_exec *x = &f->x;
    zet_metric_group_handle_t event = zc_need_group(x->device, "ComputeBasic", ZC_EVENT_BASED);
    zet_metric_group_handle_t time = zc_need_group(x->device, "TestOa", ZC_TIME_BASED);
    zet_metric_group_handle_t other = zc_need_group(x->device, "EngineActivity", ZC_TIME_BASED);
    zet_metric_group_handle_t active[2] = {time, other};
    zc_activate(x->context, x->device, 2, active);
    zet_metric_query_pool_handle_t pool = zc_pool(x, event, 1, ZET_METRIC_QUERY_POOL_TYPE_PERFORMANCE);
    zet_metric_streamer_desc_t desc = {ZET_STRUCTURE_TYPE_METRIC_STREAMER_DESC, NULL, 16, 100000};
    zet_metric_streamer_handle_t streamer = NULL;
    zc_assert_result(zetMetricStreamerOpen(x->context, x->device, time, &desc, NULL, &streamer),
                     ZE_RESULT_ERROR_NOT_AVAILABLE);
    if (zc_driver_is_fake()) { /* another domain is another metric source */
        zc_assert_success(zetMetricStreamerOpen(x->context, x->device, other, &desc, NULL, &streamer));
        zc_assert_success(zetMetricStreamerClose(streamer));
    }
    zc_assert_success(zetMetricQueryPoolDestroy(pool));
    zc_assert_success(zetMetricStreamerOpen(x->context, x->device, time, &desc, NULL, &streamer));
    zet_metric_query_pool_desc_t pool_desc = {ZET_STRUCTURE_TYPE_METRIC_QUERY_POOL_DESC, NULL,
                                              ZET_METRIC_QUERY_POOL_TYPE_PERFORMANCE, 1};
    zc_assert_result(zetMetricQueryPoolCreate(x->context, x->device, event, &pool_desc, &pool),
                     ZE_RESULT_ERROR_NOT_AVAILABLE);
    zc_assert_success(zetMetricStreamerClose(streamer));
}

/* ---- Appends -------------------------------------------------------------------------------------------------- */

static void query_append_checks(void **state) {
    zc_query_fixture *f = *state;
    zc_exec *x = &f->x;
    zet_metric_group_handle_t group = zc_need_group(x->device, "ComputeBasic", ZC_EVENT_BASED);
    zet_metric_query_pool_handle_t pool = zc_pool(x, group, 1, ZET_METRIC_QUERY_POOL_TYPE_PERFORMANCE);
    zet_metric_query_handle_t query = zc_query(pool, 0);
    ze_command_list_handle_t list = zc_list(x, x->compute_ordinal);
    zc_assert_result(zetCommandListAppendMetricQueryEnd(list, query, NULL, 1, NULL), ZE_RESULT_ERROR_INVALID_SIZE);
    zc_assert_success(zetCommandListAppendMetricMemoryBarrier(list));
    if (zc_driver_is_fake()) {
        /* The group is not active. */
        zc_assert_result(zetCommandListAppendMetricQueryBegin(list, query), ZE_RESULT_ERROR_NOT_AVAILABLE);
        zc_activate(x->context, x->device, 1, &group);
        if (x->copy_ordinal != ZC_NO_ORDINAL) {
            ze_command_list_handle_t copy = zc_list(x, x->copy_ordinal);
            zc_assert_result(zetCommandListAppendMetricQueryBegin(copy, query), ZE_RESULT_ERROR_INVALID_ARGUMENT);
            zc_assert_success(zeCommandListDestroy(copy));
        }
    }
    zc_assert_success(zeCommandListDestroy(list));
    zc_assert_success(zetMetricQueryDestroy(query));
    zc_assert_success(zetMetricQueryPoolDestroy(pool));
}

/* ---- Exact values (fake) -------------------------------------------------------------------------------------- */

/* What the documents predict for one tile of the measured device. */
typedef struct zc_tile_model {
    uint64_t xves, threads_per_xve, simd;
} zc_tile_model;

static zc_tile_model zc_tile_of(ze_device_handle_t device) {
    uint32_t subs = zc_subdevice_count(device);
    ze_device_handle_t tile = device;
    if (subs > 0)
        zc_assert_success(zeDeviceGetSubDevices(device, &(uint32_t){1}, &tile));
    ze_device_properties_t p = zc_device_props(tile);
    return (zc_tile_model){(uint64_t)p.numSlices * p.numSubslicesPerSlice * p.numEUsPerSubslice, p.numThreadsPerEU,
                           p.physicalEUSimdWidth};
}

static uint64_t zc_cycles(uint64_t ns, uint64_t mhz) {
    return ns * mhz / 1000;
}

static uint64_t zc_div_up(uint64_t a, uint64_t b) {
    return a / b + (a % b != 0);
}

/* Per set (tile): the values of the query (asserts every set has metricCount values). */
static zc_sets zc_query_sets(zet_metric_group_handle_t group, zet_metric_query_handle_t query, uint32_t tiles) {
    size_t size = 0;
    uint8_t *data = zc_query_data(query, &size);
    zc_sets sets = zc_calculate_sets(group, ZET_METRIC_GROUP_CALCULATION_TYPE_METRIC_VALUES, data, size);
    free(data);
    assert_int_equal(sets.num_sets, tiles);
    for (uint32_t s = 0; s < sets.num_sets; s++)
        assert_int_equal(sets.counts[s], zc_metric_count(group));
    return sets;
}

static uint64_t zc_value(zet_metric_group_handle_t group, const zc_sets *sets, uint32_t set, const char *name) {
    return zc_u64(sets->values[set * zc_metric_count(group) + zc_metric_index(group, name)]);
}

static float zc_fvalue(zet_metric_group_handle_t group, const zc_sets *sets, uint32_t set, const char *name) {
    zet_typed_value_t v = sets->values[set * zc_metric_count(group) + zc_metric_index(group, name)];
    assert_int_equal(v.type, ZET_VALUE_TYPE_FLOAT32);
    return v.value.fp32;
}

/* The percentage formula of the scenario, evaluated as the driver does: min(100, 100 * a / (b * c)) in double. */
static float zc_percent(uint64_t a, uint64_t b, uint64_t c) {
    double v = (100.0 * (double)a) / ((double)b * (double)c);
    return (float)(v < 100.0 ? v : 100.0);
}

#define ZC_VADD_ITEMS 4096u
#define ZC_COPY_BYTES 16384u

/* begin, vadd_int over ZC_VADD_ITEMS items, a device-to-device copy of ZC_COPY_BYTES, end: one list, one engine. */
static void zc_run_measured_workload(zc_query_fixture *f, zet_metric_query_handle_t query) {
    zc_exec *x = &f->x;
    void *a = zc_device_alloc(x, ZC_VADD_ITEMS * 4), *b = zc_device_alloc(x, ZC_VADD_ITEMS * 4);
    void *c = zc_device_alloc(x, ZC_VADD_ITEMS * 4), *d = zc_device_alloc(x, ZC_COPY_BYTES);
    ze_kernel_handle_t kernel = zc_kernel_create(f->vadd, "vadd_int");
    void *args[3] = {a, b, c};
    for (uint32_t i = 0; i < 3; i++)
        zc_assert_success(zeKernelSetArgumentValue(kernel, i, sizeof(void *), &args[i]));
    zc_assert_success(zeKernelSetGroupSize(kernel, 64, 1, 1));
    ze_group_count_t groups = {ZC_VADD_ITEMS / 64, 1, 1};
    ze_event_pool_handle_t events = zc_event_pool(x, 1, 0);
    ze_event_handle_t done = zc_event(events, 0);
    ze_command_list_handle_t list = zc_list(x, x->compute_ordinal);
    zc_assert_success(zetCommandListAppendMetricQueryBegin(list, query));
    zc_assert_success(zeCommandListAppendLaunchKernel(list, kernel, &groups, NULL, 0, NULL));
    zc_assert_success(zeCommandListAppendMemoryCopy(list, d, a, ZC_COPY_BYTES, NULL, 0, NULL));
    zc_assert_success(zetCommandListAppendMetricQueryEnd(list, query, done, 0, NULL));
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

static void query_known_workload_gives_the_modelled_values(void **state) {
    zc_query_fixture *f = *state;
    zc_exec *x = &f->x;
    zc_skip_unless_fake();
    const char *variant = getenv("ZC_VARIANT");
    if (variant != NULL && strcmp(variant, "integrated") == 0)
        skip(); /* Meteor Lake metric names */
    zet_metric_group_handle_t group = zc_need_group(x->device, "ComputeBasic", ZC_EVENT_BASED);
    zc_activate(x->context, x->device, 1, &group);
    zet_metric_query_pool_handle_t pool = zc_pool(x, group, 1, ZET_METRIC_QUERY_POOL_TYPE_PERFORMANCE);
    zet_metric_query_handle_t query = zc_query(pool, 0);
    zc_run_measured_workload(f, query);

    /* docs/cost-model.md: durations of the four commands on one engine. */
    ze_device_properties_t p = zc_device_props(x->device);
    uint64_t mhz = p.coreClockRate;
    zc_model model = zc_model_of(x->device);
    uint64_t kernel_ns = zc_model_kernel_ns(&model, &zc_vadd_work, ZC_VADD_ITEMS / 64, 64);
    uint64_t begin_ns = 100, launch_ns = 100 + kernel_ns, copy_ns = 100 + zc_div_up(ZC_COPY_BYTES, 200);
    uint64_t duration = begin_ns + launch_ns + copy_ns;
    /* docs/metrics.md, "Signals": per tile, work shared evenly, time not shared. */
    uint32_t tiles = zc_subdevice_count(x->device) > 0 ? zc_subdevice_count(x->device) : 1;
    zc_tile_model t = zc_tile_of(x->device);
    uint64_t kernel_cycles = zc_cycles(kernel_ns, mhz), dispatch = zc_cycles(2000, mhz);
    uint64_t items = ZC_VADD_ITEMS / tiles, threads = zc_div_up(items, t.simd);
    uint64_t used = threads < t.xves ? threads : t.xves;
    uint64_t stall_cycles = kernel_cycles < dispatch ? kernel_cycles : dispatch;
    uint64_t active = used * (kernel_cycles - stall_cycles), stall = used * stall_cycles;
    uint64_t resident = threads < t.xves * t.threads_per_xve ? threads : t.xves * t.threads_per_xve;
    uint64_t bytes = ZC_COPY_BYTES / tiles;
    /* The kernel's work, shared evenly: SIMD instructions are lane operations over the SIMD width. */
    uint64_t alu0 = zc_div_up(zc_vadd_work.alu * items, t.simd), send = zc_div_up(zc_vadd_work.memory * items, t.simd);
    uint64_t kernel_read = 8 * items, kernel_written = 4 * items;

    zc_sets sets = zc_query_sets(group, query, tiles);
    for (uint32_t s = 0; s < tiles; s++) {
        uint64_t begin = zc_value(group, &sets, s, "QueryBeginTime");
        uint64_t clocks = zc_cycles(begin + duration, mhz) - zc_cycles(begin, mhz);
        assert_int_equal(zc_value(group, &sets, s, "GpuTime"), duration);
        assert_int_equal(zc_value(group, &sets, s, "GpuCoreClocks"), clocks);
        assert_int_equal(zc_value(group, &sets, s, "GpuSliceClocksCount"), clocks);
        assert_int_equal(zc_value(group, &sets, s, "AvgGpuCoreFrequencyMHz"), clocks * 1000 / duration);
        assert_int_equal(zc_value(group, &sets, s, "XVE_COMPUTE_THREAD_COUNT"), threads);
        assert_int_equal(zc_value(group, &sets, s, "XVE_INST_EXECUTED_ALU0_ALL"), alu0);
        assert_int_equal(zc_value(group, &sets, s, "XVE_INST_EXECUTED_ALU1_ALL"), 0);
        assert_int_equal(zc_value(group, &sets, s, "XVE_INST_EXECUTED_SEND_ALL"), send);
        assert_int_equal(zc_value(group, &sets, s, "XVE_INST_EXECUTED_CONTROL_ALL"), 0);
        assert_int_equal(zc_value(group, &sets, s, "XVE_INST_EXECUTED_XMX_ALL"), 0);
        assert_int_equal(zc_value(group, &sets, s, "L3_BYTE_READ"), bytes + kernel_read);
        assert_int_equal(zc_value(group, &sets, s, "L3_BYTE_WRITE"), bytes + kernel_written);
        assert_int_equal(zc_value(group, &sets, s, "GPU_MEMORY_BYTE_READ"), bytes + kernel_read);
        assert_int_equal(zc_value(group, &sets, s, "GPU_MEMORY_BYTE_WRITE"), bytes + kernel_written);
        assert_int_equal(zc_value(group, &sets, s, "XVE_ATOMIC_ACCESS_COUNT"), 0);
        assert_true(zc_fvalue(group, &sets, s, "XVE_ACTIVE") == zc_percent(active, t.xves, clocks));
        assert_true(zc_fvalue(group, &sets, s, "XVE_STALL") == zc_percent(stall, t.xves, clocks));
        assert_true(zc_fvalue(group, &sets, s, "XVE_BUSY") == zc_percent(active + stall, t.xves, clocks));
        assert_true(zc_fvalue(group, &sets, s, "XVE_THREADS_OCCUPANCY_ALL") ==
                    zc_percent(resident * kernel_cycles, t.xves * t.threads_per_xve, clocks));
        assert_int_equal(zc_value(group, &sets, s, "ReportError"), 0);
        assert_int_equal(zc_value(group, &sets, s, "QuerySplitOccurred"), 0);
        assert_int_equal(zc_value(group, &sets, s, "ContextId"), (x->compute_ordinal + 1u) << 8);
        assert_true(zc_fvalue(group, &sets, s, "XVE_ACTIVE") > 0.0f);
    }
    zc_sets_free(&sets);
    zc_assert_success(zetMetricQueryDestroy(query));
    zc_assert_success(zetMetricQueryPoolDestroy(pool));
}

/* TestOa counters are floor(clocks x factor) at each end of a query (docs/metrics.md, the shipped scenarios): set s
 * of a query's values must hold exactly the differences of the two floors. */
static void zc_check_test_oa_counters(zet_metric_group_handle_t group, const zc_sets *sets, uint32_t s, uint64_t mhz) {
    static const struct {
        const char *name;
        uint64_t multiply, divide;
    } factors[] = {{"Counter0", 0, 1}, {"Counter1", 1, 1}, {"Counter2", 1, 1}, {"Counter3", 1, 2},
                   {"Counter4", 1, 3}, {"Counter5", 1, 3}, {"Counter6", 1, 6}, {"Counter7", 2, 3}};
    uint64_t begin = zc_value(group, sets, s, "QueryBeginTime"), time = zc_value(group, sets, s, "GpuTime");
    uint64_t at_begin = zc_cycles(begin, mhz), at_end = zc_cycles(begin + time, mhz);
    assert_int_equal(zc_value(group, sets, s, "GpuCoreClocks"), at_end - at_begin);
    for (size_t i = 0; i < ZC_COUNT(factors); i++) {
        uint64_t want =
            at_end * factors[i].multiply / factors[i].divide - at_begin * factors[i].multiply / factors[i].divide;
        if (zc_value(group, sets, s, factors[i].name) != want)
            zc_fail("%s = %" PRIu64 ", expected %" PRIu64, factors[i].name, zc_value(group, sets, s, factors[i].name),
                    want);
    }
    assert_int_equal(zc_value(group, sets, s, "Counter8"), 1);
}

/* TestOa counters follow the GPU clock over the measured workload. */
static void query_test_oa_counters_follow_the_clock(void **state) {
    zc_query_fixture *f = *state;
    zc_exec *x = &f->x;
    zc_skip_unless_fake();
    zet_metric_group_handle_t group = zc_need_group(x->device, "TestOa", ZC_EVENT_BASED);
    zc_activate(x->context, x->device, 1, &group);
    zet_metric_query_pool_handle_t pool = zc_pool(x, group, 1, ZET_METRIC_QUERY_POOL_TYPE_PERFORMANCE);
    zet_metric_query_handle_t query = zc_query(pool, 0);
    zc_run_measured_workload(f, query);
    uint32_t tiles = zc_tiles(x->device);
    zc_sets sets = zc_query_sets(group, query, tiles);
    uint64_t mhz = zc_device_props(x->device).coreClockRate;
    for (uint32_t s = 0; s < tiles; s++)
        zc_check_test_oa_counters(group, &sets, s, mhz);
    zc_sets_free(&sets);
    zc_assert_success(zetMetricQueryDestroy(query));
    zc_assert_success(zetMetricQueryPoolDestroy(pool));
}

/* begin, `launches` long launches (zc_metric_work.h), end: one list, one engine. */
static void zc_run_long_measured_work(zc_query_fixture *f, zet_metric_query_handle_t query, uint32_t launches) {
    zc_exec *x = &f->x;
    ze_module_handle_t module = zc_module_create(x->context, x->device, "gemm");
    void *buffer = zc_device_alloc(x, 64);
    ze_kernel_handle_t kernel = zc_long_gemm_kernel(module, buffer);
    ze_command_list_handle_t list = zc_list(x, x->compute_ordinal);
    zc_assert_success(zetCommandListAppendMetricQueryBegin(list, query));
    zc_append_long_launches(list, kernel, launches);
    zc_assert_success(zetCommandListAppendMetricQueryEnd(list, query, NULL, 0, NULL));
    ze_command_queue_handle_t queue = zc_queue(x, x->compute_ordinal, 0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    zc_run(queue, list);
    zc_assert_success(zeCommandQueueDestroy(queue));
    zc_assert_success(zeCommandListDestroy(list));
    zc_assert_success(zeKernelDestroy(kernel));
    zc_free(x, buffer);
    zc_assert_success(zeModuleDestroy(module));
}

/* A query around more than 2^32 timestamp ticks of work (and so more than 2^32 GPU clocks): its records hold 64-bit
 * differences (docs/metrics-raw-formats.md), so the ticks, GpuTime, GpuCoreClocks and the TestOa counters keep
 * every bit and equal what the cost model predicts. */
static void query_counters_keep_64_bits_past_2_32_clocks(void **state) {
    zc_query_fixture *f = *state;
    zc_exec *x = &f->x;
    zc_skip_unless_fake();
    zc_skip_without_builtins();
    zet_metric_group_handle_t group = zc_need_group(x->device, "TestOa", ZC_EVENT_BASED);
    zc_activate(x->context, x->device, 1, &group);
    zet_metric_query_pool_handle_t pool = zc_pool(x, group, 1, ZET_METRIC_QUERY_POOL_TYPE_PERFORMANCE);
    zet_metric_query_handle_t query = zc_query(pool, 0);
    uint32_t launches = zc_launches_past_tick_wrap(x->device, 0, 0); /* a duration of more than 2^32 ticks */
    zc_run_long_measured_work(f, query, launches);
    ze_device_properties_t p = zc_device_props(x->device);
    uint64_t duration = 100 + launches * zc_long_launch_ns(x->device); /* the begin command, then the launches */
    uint32_t tiles = zc_tiles(x->device);
    size_t size = 0, length = 0;
    uint8_t *data = zc_query_data(query, &size);
    zc_sets sets = zc_query_sets(group, query, tiles);
    for (uint32_t s = 0; s < tiles; s++) {
        uint64_t begin = zc_value(group, &sets, s, "QueryBeginTime");
        assert_int_equal(zc_value(group, &sets, s, "GpuTime"), duration);
        uint64_t ticks = zc_ticks_at(begin + duration, p.timerResolution) - zc_ticks_at(begin, p.timerResolution);
        assert_true(ticks > (1ull << 32));
        const uint8_t *record = zc_tile_records(data, size, s, &length);
        assert_int_equal(zc_get64(record + 24), ticks);
        assert_true(zc_value(group, &sets, s, "GpuCoreClocks") > (1ull << 32));
        zc_check_test_oa_counters(group, &sets, s, p.coreClockRate);
    }
    zc_sets_free(&sets);
    free(data);
    zc_assert_success(zetMetricQueryDestroy(query));
    zc_assert_success(zetMetricQueryPoolDestroy(pool));
}

/* Two runs of the same workload give the same counters (only the begin time moves). */
static void query_same_workload_same_values(void **state) {
    zc_query_fixture *f = *state;
    zc_exec *x = &f->x;
    zc_skip_unless_fake();
    const char *variant = getenv("ZC_VARIANT");
    if (variant != NULL && strcmp(variant, "integrated") == 0)
        skip(); /* Meteor Lake metric names */
    zet_metric_group_handle_t group = zc_need_group(x->device, "ComputeBasic", ZC_EVENT_BASED);
    zc_activate(x->context, x->device, 1, &group);
    zet_metric_query_pool_handle_t pool = zc_pool(x, group, 2, ZET_METRIC_QUERY_POOL_TYPE_PERFORMANCE);
    zet_metric_query_handle_t first = zc_query(pool, 0), second = zc_query(pool, 1);
    zc_run_measured_workload(f, first);
    zc_run_measured_workload(f, second);
    uint32_t tiles = zc_subdevice_count(x->device) > 0 ? zc_subdevice_count(x->device) : 1;
    zc_sets a = zc_query_sets(group, first, tiles), b = zc_query_sets(group, second, tiles);
    uint32_t count = zc_metric_count(group);
    static const char *const moving[] = {"QueryBeginTime",         "GpuCoreClocks",           "GpuSliceClocksCount",
                                         "AvgGpuCoreFrequencyMHz", "AvgGpuSliceFrequencyMHz", "CoreFrequencyMHz"};
    for (uint32_t i = 0; i < a.total; i++) {
        bool skip_it = false;
        for (size_t m = 0; m < ZC_COUNT(moving); m++)
            skip_it = skip_it || i % count == zc_metric_index(group, moving[m]);
        /* Percentages divide by the clocks, which depend on where in a ns the begin falls. */
        if (skip_it || a.values[i].type == ZET_VALUE_TYPE_FLOAT32)
            continue;
        assert_memory_equal(&a.values[i], &b.values[i], sizeof a.values[i]);
    }
    zc_sets_free(&a);
    zc_sets_free(&b);
    zc_assert_success(zetMetricQueryDestroy(first));
    zc_assert_success(zetMetricQueryDestroy(second));
    zc_assert_success(zetMetricQueryPoolDestroy(pool));
}

static void query_end_without_begin_and_execution_pools(void **state) {
    zc_query_fixture *f = *state;
    zc_exec *x = &f->x;
    zc_skip_unless_fake();
    const char *variant = getenv("ZC_VARIANT");
    if (variant != NULL && strcmp(variant, "integrated") == 0)
        skip(); /* Meteor Lake metric names */
    zet_metric_group_handle_t group = zc_need_group(x->device, "ComputeBasic", ZC_EVENT_BASED);
    zc_activate(x->context, x->device, 1, &group);
    zet_metric_query_pool_handle_t pool = zc_pool(x, group, 1, ZET_METRIC_QUERY_POOL_TYPE_PERFORMANCE);
    zet_metric_query_handle_t query = zc_query(pool, 0);
    ze_command_list_handle_t list = zc_immediate(x, x->compute_ordinal, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
    zc_assert_success(zetCommandListAppendMetricQueryEnd(list, query, NULL, 0, NULL));
    uint32_t tiles = zc_subdevice_count(x->device) > 0 ? zc_subdevice_count(x->device) : 1;
    zc_sets sets = zc_query_sets(group, query, tiles);
    assert_int_equal(zc_value(group, &sets, 0, "ReportError"), 1);
    assert_int_equal(zc_value(group, &sets, 0, "GpuTime"), 0);
    zc_sets_free(&sets);
    zc_assert_success(zetMetricQueryDestroy(query));
    zc_assert_success(zetMetricQueryPoolDestroy(pool));

    /* An EXECUTION pool measures time only. */
    pool = zc_pool(x, group, 1, ZET_METRIC_QUERY_POOL_TYPE_EXECUTION);
    query = zc_query(pool, 0);
    zc_assert_success(zetCommandListAppendMetricQueryBegin(list, query));
    zc_assert_success(zeCommandListAppendBarrier(list, NULL, 0, NULL));
    zc_assert_success(zetCommandListAppendMetricQueryEnd(list, query, NULL, 0, NULL));
    sets = zc_query_sets(group, query, tiles);
    /* Each append to the immediate list is a submission: the barrier and the end start the dispatch latency after
     * the host saw the command before them complete (docs/cost-model.md). */
    assert_int_equal(zc_value(group, &sets, 0, "GpuTime"), 2 * (ZC_MODEL_COMMAND_NS + ZC_MODEL_DISPATCH_NS));
    assert_int_equal(zc_value(group, &sets, 0, "L3_BYTE_READ"), 0);
    zc_sets_free(&sets);
    zc_assert_success(zeCommandListDestroy(list));
    zc_assert_success(zetMetricQueryDestroy(query));
    zc_assert_success(zetMetricQueryPoolDestroy(pool));
}

int main(int argc, char **argv) {
#define ZC_FIXTURE query
    static const struct CMUnitTest tests[] = {
        ZC_T(query_pool_and_query_life_cycle),
        ZC_T(query_pool_bad_arguments),
        ZC_T(query_data_ready_after_the_end_executes),
        ZC_T(query_pools_and_streamers_exclude_each_other),
        ZC_T(query_append_checks),
        ZC_T(query_known_workload_gives_the_modelled_values),
        ZC_T(query_test_oa_counters_follow_the_clock),
        ZC_T(query_counters_keep_64_bits_past_2_32_clocks),
        ZC_T(query_same_workload_same_values),
        ZC_T(query_end_without_begin_and_execution_pools),
    };
    static const zc_suite suite = {ZC_EXECUTABLE, tests, ZC_COUNT(tests), zc_setup_system, zc_teardown_system, NULL, 0};
    return zc_main(argc, argv, &suite);
}
