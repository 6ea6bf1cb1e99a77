/* Conformance: device time as a GPU shows it (docs/cost-model.md, "Device time"). The host half of every
 * host/device timestamp pair is CLOCK_MONOTONIC_RAW, the device clock runs with the host's while the host waits,
 * every device interval of a submission lies between the submission and the synchronisation that saw it complete, a
 * time-based streamer writes a report for every period that passed (idle ones too), and the metrics' GPU clock runs
 * at the frequency sysman set. Exact figures of the cost model are checked on the fake only. */
#include "zc_cost_model.h"
#include "zc_exec.h"
#include "zc_kernel_files.h"
#include "zc_metric.h"

#include <inttypes.h>
#include <time.h>
#include <unistd.h>

#define ZC_NS_PER_S   1000000000u
#define ZC_PAIR_SLACK 1000000u /* 1 ms: how far the host half of a pair may be from CLOCK_MONOTONIC_RAW beside it */

static uint64_t zc_raw_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    return (uint64_t)ts.tv_sec * ZC_NS_PER_S + (uint64_t)ts.tv_nsec;
}

static void zc_sleep_ms(unsigned ms) {
    struct timespec ts = {.tv_sec = ms / 1000u, .tv_nsec = (long)(ms % 1000u) * 1000000L};
    nanosleep(&ts, NULL);
}

typedef struct zc_pair {
    uint64_t host, device;
} zc_pair;

static zc_pair zc_global_pair(ze_device_handle_t device) {
    zc_pair pair = {0, 0};
    zc_assert_success(zeDeviceGetGlobalTimestamps(device, &pair.host, &pair.device));
    return pair;
}

/* ---- Host/device pairs ---------------------------------------------------------------------------------------- */

static void host_clock_pairs_with_monotonic_raw(void **state) {
    zc_exec *x = *state;
    for (int i = 0; i < 100; i++) {
        uint64_t before = zc_raw_ns();
        zc_pair pair = zc_global_pair(x->device);
        uint64_t after = zc_raw_ns();
        if (pair.host + ZC_PAIR_SLACK < before || pair.host > after + ZC_PAIR_SLACK)
            zc_fail("host timestamp %" PRIu64 " is not CLOCK_MONOTONIC_RAW: %" PRIu64 "..%" PRIu64 " beside it",
                    pair.host, before, after);
    }
}

/* While the host sleeps the device clock goes on, at the host's rate (within 2 %). */
static void host_clock_device_time_runs_while_the_host_waits(void **state) {
    zc_exec *x = *state;
    ze_device_properties_t p = zc_device_props(x->device);
    uint64_t mask = p.timestampValidBits >= 64 ? UINT64_MAX : (UINT64_C(1) << p.timestampValidBits) - 1;
    zc_pair first = zc_global_pair(x->device);
    zc_sleep_ms(20);
    zc_pair second = zc_global_pair(x->device);
    double host_ns = (double)(second.host - first.host);
    double device_ns = (double)((second.device - first.device) & mask) * ZC_NS_PER_S / (double)p.timerResolution;
    if (device_ns < host_ns * 0.98 || device_ns > host_ns * 1.02)
        zc_fail("the device clock advanced %.0f ns while the host's advanced %.0f ns", device_ns, host_ns);
}

/* ---- Device intervals of a submission ------------------------------------------------------------------------- */

typedef struct zc_gemm_run {
    ze_module_handle_t module;
    ze_kernel_handle_t kernel;
    float *a, *b, *c;
} zc_gemm_run;

/* The GEMM kernel of conformance/kernels on 8x8 outputs with inner dimension k, one group of 64 work-items. */
static zc_gemm_run zc_gemm_prepare(zc_exec *x, uint32_t k) {
    const uint32_t m = 8, n = 8;
    zc_gemm_run g = {.module = zc_module_create(x->context, x->device, "gemm")};
    g.kernel = zc_kernel_create(g.module, "gemm");
    g.a = zc_host_alloc(x, (size_t)m * k * 4);
    g.b = zc_host_alloc(x, (size_t)k * n * 4);
    g.c = zc_host_alloc(x, (size_t)m * n * 4);
    memset(g.a, 0, (size_t)m * k * 4);
    memset(g.b, 0, (size_t)k * n * 4);
    void *args[3] = {g.a, g.b, g.c};
    for (uint32_t i = 0; i < 3; i++)
        zc_assert_success(zeKernelSetArgumentValue(g.kernel, i, sizeof(void *), &args[i]));
    zc_assert_success(zeKernelSetArgumentValue(g.kernel, 3, sizeof m, &m));
    zc_assert_success(zeKernelSetArgumentValue(g.kernel, 4, sizeof n, &n));
    zc_assert_success(zeKernelSetArgumentValue(g.kernel, 5, sizeof k, &k));
    zc_assert_success(zeKernelSetGroupSize(g.kernel, 8, 8, 1));
    return g;
}

static void zc_gemm_release(zc_exec *x, zc_gemm_run *g) {
    zc_assert_success(zeKernelDestroy(g->kernel));
    zc_assert_success(zeModuleDestroy(g->module));
    zc_free(x, g->a);
    zc_free(x, g->b);
    zc_free(x, g->c);
}

/* Whether device time `t` (kernel timestamp bits) lies in [from, to] of the device timer, modulo the kernel bits. */
static bool zc_within(uint64_t t, uint64_t from, uint64_t to, uint32_t bits) {
    uint64_t mask = bits >= 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
    return ((t - from) & mask) <= ((to - from) & mask);
}

static void host_clock_intervals_lie_between_submission_and_sync(void **state) {
    zc_exec *x = *state;
    ze_device_properties_t p = zc_device_props(x->device);
    zc_gemm_run g = zc_gemm_prepare(x, 256);
    void *from = zc_device_alloc(x, 1u << 20), *to = zc_host_alloc(x, 1u << 20);
    ze_event_pool_handle_t pool = zc_event_pool(x, 2, ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP);
    ze_event_handle_t events[2] = {zc_event(pool, 0), zc_event(pool, 1)};
    ze_command_list_handle_t list = zc_list(x, x->compute_ordinal);
    ze_group_count_t groups = {1, 1, 1};
    zc_assert_success(zeCommandListAppendLaunchKernel(list, g.kernel, &groups, events[0], 0, NULL));
    zc_assert_success(zeCommandListAppendMemoryCopy(list, to, from, 1u << 20, events[1], 0, NULL));
    ze_command_queue_handle_t queue = zc_queue(x, x->compute_ordinal, 0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    zc_assert_success(zeCommandListClose(list));
    zc_pair submitted = zc_global_pair(x->device);
    zc_assert_success(zeCommandQueueExecuteCommandLists(queue, 1, &list, NULL));
    zc_assert_success(zeCommandQueueSynchronize(queue, UINT64_MAX));
    zc_pair synchronised = zc_global_pair(x->device);
    uint64_t from_ticks = submitted.device, to_ticks = synchronised.device;
    for (int i = 0; i < 2; i++) {
        ze_kernel_timestamp_result_t ts;
        zc_assert_success(zeEventQueryKernelTimestamp(events[i], &ts));
        if (!zc_within(ts.global.kernelStart, from_ticks, to_ticks, p.kernelTimestampValidBits) ||
            !zc_within(ts.global.kernelEnd, ts.global.kernelStart, to_ticks, p.kernelTimestampValidBits))
            zc_fail("command %d ran %" PRIu64 "..%" PRIu64 ": not between the submission at %" PRIu64
                    " and the synchronisation's return at %" PRIu64 " (device ticks)",
                    i, (uint64_t)ts.global.kernelStart, (uint64_t)ts.global.kernelEnd, from_ticks, to_ticks);
    }
    zc_assert_success(zeCommandQueueDestroy(queue));
    zc_assert_success(zeCommandListDestroy(list));
    for (int i = 0; i < 2; i++)
        zc_assert_success(zeEventDestroy(events[i]));
    zc_assert_success(zeEventPoolDestroy(pool));
    zc_free(x, from);
    zc_free(x, to);
    zc_gemm_release(x, &g);
}

/* ---- Streamers ------------------------------------------------------------------------------------------------ */

static const char *const zc_xve_active_names[2] = {"XVE_ACTIVE", "XveActive"};

static uint32_t zc_metric_of(zet_metric_group_handle_t group, const char *const names[2]) {
    for (int k = 0; k < 2; k++) {
        zc_count_query query = zc_metric_query_of(group);
        uint32_t n = 0;
        zet_metric_handle_t *metrics = zc_query_all(&query, &n);
        for (uint32_t i = 0; i < n; i++) {
            if (strcmp(zc_metric_properties(metrics[i]).name, names[k]) == 0) {
                free(metrics);
                return i;
            }
        }
        free(metrics);
    }
    skip(); /* a driver that names it otherwise */
    return 0;
}

static uint8_t *zc_read_reports(zet_metric_streamer_handle_t streamer, size_t *size) {
    *size = 0;
    zc_assert_success(zetMetricStreamerReadData(streamer, UINT32_MAX, size, NULL));
    uint8_t *data = malloc(*size + 1);
    assert_non_null(data);
    zc_assert_success(zetMetricStreamerReadData(streamer, UINT32_MAX, size, data));
    return data;
}

/* A 100 us streamer read after a short kernel and a 50 ms sleep: a report for every period that passed (hardware
 * writes about 500), the ones that cover the kernel with active XVEs, the rest idle. */
static void host_clock_streamer_reports_every_period(void **state) {
    zc_exec *x = *state;
    zet_metric_group_handle_t group =
        zc_need_group(x->device, "ComputeBasic", ZET_METRIC_GROUP_SAMPLING_TYPE_FLAG_TIME_BASED);
    uint32_t active = zc_metric_of(group, zc_xve_active_names);
    zc_activate(x->context, x->device, 1, &group);
    zet_metric_streamer_desc_t desc = {ZET_STRUCTURE_TYPE_METRIC_STREAMER_DESC, NULL, 32768, 100000};
    zet_metric_streamer_handle_t streamer = NULL;
    zc_assert_success(zetMetricStreamerOpen(x->context, x->device, group, &desc, NULL, &streamer));
    zc_gemm_run g = zc_gemm_prepare(x, 256);
    ze_command_list_handle_t list = zc_immediate(x, x->compute_ordinal, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
    ze_group_count_t groups = {1, 1, 1};
    zc_assert_success(zeCommandListAppendLaunchKernel(list, g.kernel, &groups, NULL, 0, NULL));
    zc_sleep_ms(50);
    size_t size = 0;
    uint8_t *data = zc_read_reports(streamer, &size);
    zc_sets sets = zc_calculate_sets(group, ZET_METRIC_GROUP_CALCULATION_TYPE_METRIC_VALUES, data, size);
    uint32_t count = zc_metric_count(group), busy = 0, idle = 0;
    for (uint32_t s = 0, offset = 0; s < sets.num_sets; offset += sets.counts[s++]) {
        for (uint32_t v = active; v < sets.counts[s]; v += count) {
            if (zc_f64(sets.values[offset + v]) > 0.0)
                busy++;
            else
                idle++;
        }
    }
    uint32_t reports = (busy + idle) / sets.num_sets;
    if (reports < 400 || busy == 0)
        zc_fail("%u reports per tile after 50 ms of a %u ns period (at least 400 expected), %u with active XVEs",
                reports, desc.samplingPeriod, busy);
    if (zc_driver_is_fake() && busy > 3 * sets.num_sets)
        zc_fail("%u reports show active XVEs: more than the periods a microseconds kernel covers", busy);
    zc_sets_free(&sets);
    free(data);
    zc_assert_success(zeCommandListDestroy(list));
    zc_gemm_release(x, &g);
    zc_assert_success(zetMetricStreamerClose(streamer));
    zc_activate(x->context, x->device, 0, NULL);
}

/* ---- One clock model ------------------------------------------------------------------------------------------ */

static zes_freq_handle_t zc_gpu_frequency_domain(ze_device_handle_t device) {
    uint32_t n = 0;
    zc_assert_success(zesDeviceEnumFrequencyDomains((zes_device_handle_t)device, &n, NULL));
    zes_freq_handle_t domains[8];
    n = n < 8 ? n : 8;
    zc_assert_success(zesDeviceEnumFrequencyDomains((zes_device_handle_t)device, &n, domains));
    for (uint32_t i = 0; i < n; i++) {
        zes_freq_properties_t p = {.stype = ZES_STRUCTURE_TYPE_FREQ_PROPERTIES};
        zc_assert_success(zesFrequencyGetProperties(domains[i], &p));
        if (p.type == ZES_FREQ_DOMAIN_GPU)
            return domains[i];
    }
    skip();
    return NULL;
}

/* The average frequency a query around a kernel measures, in MHz. */
static double zc_measured_mhz(zc_exec *x, zc_gemm_run *g) {
    zet_metric_group_handle_t group =
        zc_need_group(x->device, "ComputeBasic", ZET_METRIC_GROUP_SAMPLING_TYPE_FLAG_EVENT_BASED);
    uint32_t frequency = zc_metric_index(group, "AvgGpuCoreFrequencyMHz");
    zc_activate(x->context, x->device, 1, &group);
    zet_metric_query_pool_desc_t desc = {ZET_STRUCTURE_TYPE_METRIC_QUERY_POOL_DESC, NULL,
                                         ZET_METRIC_QUERY_POOL_TYPE_PERFORMANCE, 1};
    zet_metric_query_pool_handle_t pool = NULL;
    zet_metric_query_handle_t query = NULL;
    zc_assert_success(zetMetricQueryPoolCreate(x->context, x->device, group, &desc, &pool));
    zc_assert_success(zetMetricQueryCreate(pool, 0, &query));
    ze_command_list_handle_t list = zc_list(x, x->compute_ordinal);
    ze_group_count_t groups = {1, 1, 1};
    zc_assert_success(zetCommandListAppendMetricQueryBegin(list, query));
    zc_assert_success(zeCommandListAppendLaunchKernel(list, g->kernel, &groups, NULL, 0, NULL));
    zc_assert_success(zetCommandListAppendMetricQueryEnd(list, query, NULL, 0, NULL));
    ze_command_queue_handle_t queue = zc_queue(x, x->compute_ordinal, 0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    zc_run(queue, list);
    size_t size = 0;
    uint8_t *data = zc_query_data(query, &size);
    zc_sets sets = zc_calculate_sets(group, ZET_METRIC_GROUP_CALCULATION_TYPE_METRIC_VALUES, data, size);
    double mhz = zc_f64(sets.values[frequency]);
    zc_sets_free(&sets);
    free(data);
    zc_assert_success(zeCommandQueueDestroy(queue));
    zc_assert_success(zeCommandListDestroy(list));
    zc_assert_success(zetMetricQueryDestroy(query));
    zc_assert_success(zetMetricQueryPoolDestroy(pool));
    zc_activate(x->context, x->device, 0, NULL);
    return mhz;
}

/* After zesFrequencySetRange to 300 MHz kernels run at 300 MHz, and the metrics' frequency reads 300. */
static void host_clock_frequency_metric_follows_sysman(void **state) {
    zc_exec *x = *state;
    zc_skip_unless_fake();
    zes_freq_handle_t domain = zc_gpu_frequency_domain(x->device);
    zes_freq_range_t saved;
    zc_assert_success(zesFrequencyGetRange(domain, &saved));
    zc_gemm_run g = zc_gemm_prepare(x, 256);
    double unthrottled = zc_measured_mhz(x, &g);
    zes_freq_range_t low = {300.0, 300.0};
    zc_assert_success(zesFrequencySetRange(domain, &low));
    zes_freq_state_t s = {.stype = ZES_STRUCTURE_TYPE_FREQ_STATE};
    double throttled = zc_measured_mhz(x, &g);
    zc_assert_success(zesFrequencyGetState(domain, &s));
    zc_assert_success(zesFrequencySetRange(domain, &saved));
    zc_gemm_release(x, &g);
    if (throttled < 299.0 || throttled > 301.0)
        zc_fail("AvgGpuCoreFrequencyMHz reads %.1f after zesFrequencySetRange(300, 300) (sysman: %.0f MHz)", throttled,
                s.actual);
    assert_true(unthrottled > 301.0);
}

/* ---- The clock variable --------------------------------------------------------------------------------------- */

static int zc_child_read_clock(int argc, char **argv) {
    (void)argc;
    (void)argv;
    zc_exec *x = zc_child_exec_begin();
    if (x == NULL)
        return 2;
    zc_pair pair = zc_global_pair(x->device);
    printf("device=%" PRIu64 "\n", pair.device);
    return zc_child_exec_end(x);
}

/* ZEFAKE_CLOCK=modelled starts a deterministic clock at 0; a bad value is named in a warning and the scenario's
 * clock is kept. */
static void host_clock_variable_chooses_the_clock(void **state) {
    (void)state;
    zc_skip_unless_fake();
    const char *const modelled[] = {"ZEFAKE_CLOCK=modelled", NULL};
    const char *const bad[] = {"ZEFAKE_CLOCK=fast", "ZEFAKE_LOG=warn", NULL};
    zc_child child;
    assert_true(zc_run_child_mode("read-clock", NULL, modelled, ZC_CHILD_TIMEOUT_MS, &child));
    zc_assert_child_ok(&child, "the modelled child");
    uint64_t first = zc_child_number(&child, "device");
    zc_child_free(&child);
    assert_true(first < 1000u); /* one read step of 1 us, in ticks of a MHz-range timer */
    assert_true(zc_run_child_mode("read-clock", NULL, bad, ZC_CHILD_TIMEOUT_MS, &child));
    zc_assert_child_ok(&child, "the child with a bad ZEFAKE_CLOCK");
    if (strstr(child.err, "ZEFAKE_CLOCK=fast is not host or modelled") == NULL)
        zc_fail("no warning names the bad ZEFAKE_CLOCK; stderr:\n%s", child.err);
    zc_child_free(&child);
}

int main(int argc, char **argv) {
#define ZC_FIXTURE exec
    static const struct CMUnitTest tests[] = {
        ZC_T(host_clock_pairs_with_monotonic_raw),
        ZC_T(host_clock_device_time_runs_while_the_host_waits),
        ZC_T(host_clock_intervals_lie_between_submission_and_sync),
        ZC_T(host_clock_streamer_reports_every_period),
        ZC_T(host_clock_frequency_metric_follows_sysman),
        ZC_T(host_clock_variable_chooses_the_clock),
    };
    static const zc_child_mode modes[] = {{"read-clock", zc_child_read_clock}};
    static const zc_suite suite = {ZC_EXECUTABLE,      tests, ZC_COUNT(tests), zc_setup_system,
                                   zc_teardown_system, modes, ZC_COUNT(modes)};
    return zc_main(argc, argv, &suite);
}
