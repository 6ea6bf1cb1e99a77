/* Metrics through the loader into the fake, each as a ratio to a plain memory pass over the same bytes measured in
 * the same run:
 *   - calculation throughput: zetMetricGroupCalculateMetricValues over 256-byte streamer records of ComputeBasic;
 *   - streamer read cost: zetMetricStreamerReadData of a full buffer of reports, which writes (snapshots) and copies
 *     them, per report.
 * The streamer part needs device time that moves only when the bench advances it, so the bench runs on the modelled
 * clock (docs/cost-model.md, "Device time: two clocks"); on the host clock a slow runner overflows the buffer.
 * Usage: zefake-bench-metrics [--quick]. */
#include <level_zero/ze_api.h>
#include <level_zero/zet_api.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ZB_PROGRAM "zefake-bench-metrics"
#include "zb_bench.h"

#define ZB_RECORD 256u

typedef struct zb_metrics {
    ze_driver_handle_t driver;
    ze_device_handle_t device; /* a device whose data is plain (a tile, or a device without tiles) */
    ze_context_handle_t context;
} zb_metrics;

static void zb_setup(zb_metrics *m) {
    uint32_t count = 1;
    zb_check(zeInit(0), "zeInit");
    zb_check(zeDriverGet(&count, &m->driver), "zeDriverGet");
    count = 1;
    zb_check(zeDeviceGet(m->driver, &count, &m->device), "zeDeviceGet");
    ze_device_handle_t tile = NULL;
    count = 1;
    if (zeDeviceGetSubDevices(m->device, &count, &tile) == ZE_RESULT_SUCCESS && count == 1)
        m->device = tile;
    ze_context_desc_t desc = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0};
    zb_check(zeContextCreate(m->driver, &desc, &m->context), "zeContextCreate");
}

static zet_metric_group_handle_t zb_group(zb_metrics *m, const char *name) {
    zet_metric_group_handle_t groups[64];
    uint32_t count = 64;
    zb_check(zetMetricGroupGet(m->device, &count, groups), "zetMetricGroupGet");
    for (uint32_t i = 0; i < count; i++) {
        zet_metric_group_properties_t p = {.stype = ZET_STRUCTURE_TYPE_METRIC_GROUP_PROPERTIES};
        zb_check(zetMetricGroupGetProperties(groups[i], &p), "zetMetricGroupGetProperties");
        if (strcmp(p.name, name) == 0 && p.samplingType == ZET_METRIC_GROUP_SAMPLING_TYPE_FLAG_TIME_BASED)
            return groups[i];
    }
    fprintf(stderr, "zefake-bench-metrics: no TIME_BASED group %s\n", name);
    exit(EXIT_FAILURE);
}

/* The baseline: one pass reading every 64-bit word of the bytes, as a calculation reads them at least once. */
static volatile uint64_t zb_sink;

static double zb_memory_pass_ns(const uint8_t *data, size_t size, int repeats) {
    uint64_t start = zb_now_ns();
    for (int r = 0; r < repeats; r++) {
        uint64_t sum = 0;
        for (size_t i = 0; i + 8 <= size; i += 8) {
            uint64_t word;
            memcpy(&word, data + i, sizeof word);
            sum += word;
        }
        zb_sink += sum;
    }
    return (double)(zb_now_ns() - start) / repeats;
}

/* Records of a plausible stream: counters growing at different rates (docs/metrics-raw-formats.md). */
static uint8_t *zb_records(uint32_t n) {
    uint8_t *data = calloc(n, ZB_RECORD);
    if (data == NULL)
        exit(EXIT_FAILURE);
    for (uint32_t i = 0; i < n; i++) {
        uint8_t *rec = data + (size_t)i * ZB_RECORD;
        uint32_t header = (i & 0xffffu) | 1u << 16, ticks = 256u * i, clocks = 10667u * i;
        memcpy(rec, &header, 4);
        memcpy(rec + 8, &ticks, 4);
        memcpy(rec + 16, &clocks, 4);
        for (uint32_t a = 0; a < 20; a++) {
            uint64_t value = (uint64_t)i * (a + 1) * 977u;
            uint32_t low = (uint32_t)value;
            memcpy(rec + 24 + 4 * a, &low, 4);
            rec[152 + a] = (uint8_t)(value >> 32);
        }
    }
    return data;
}

static void zb_bench_calculation(zb_metrics *m, int repeats) {
    zet_metric_group_handle_t group = zb_group(m, "ComputeBasic");
    const uint32_t n = 4096;
    uint8_t *data = zb_records(n);
    size_t size = (size_t)n * ZB_RECORD;
    uint32_t count = 0;
    zb_check(zetMetricGroupCalculateMetricValues(group, ZET_METRIC_GROUP_CALCULATION_TYPE_METRIC_VALUES, size, data,
                                                 &count, NULL),
             "zetMetricGroupCalculateMetricValues");
    zet_typed_value_t *values = calloc(count, sizeof *values);
    if (values == NULL)
        exit(EXIT_FAILURE);
    uint64_t start = zb_now_ns();
    for (int r = 0; r < repeats; r++) {
        uint32_t c = count;
        zb_check(zetMetricGroupCalculateMetricValues(group, ZET_METRIC_GROUP_CALCULATION_TYPE_METRIC_VALUES, size, data,
                                                     &c, values),
                 "zetMetricGroupCalculateMetricValues");
    }
    double calc_ns = (double)(zb_now_ns() - start) / repeats;
    double pass_ns = zb_memory_pass_ns(data, size, repeats * 16);
    printf("calculation of %u ComputeBasic 256-byte records (%u values each): %.0f records/s, ratio %.0f to a memory "
           "pass over the same bytes (%.2f GB/s)\n",
           n, count / n, n / (calc_ns / 1e9), calc_ns / pass_ns, (double)size / pass_ns);
    free(values);
    free(data);
}

/* Fills the streamer's buffer: at the shortest period the modelled clock makes ~19 reports per us of host reads. */
static void zb_advance_clock(zb_metrics *m, uint32_t reads) {
    uint64_t host = 0, device = 0;
    for (uint32_t i = 0; i < reads; i++)
        zb_check(zeDeviceGetGlobalTimestamps(m->device, &host, &device), "zeDeviceGetGlobalTimestamps");
}

static void zb_bench_read(zb_metrics *m, int repeats) {
    zet_metric_group_handle_t group = zb_group(m, "ComputeBasic");
    zb_check(zetContextActivateMetricGroups(m->context, m->device, 1, &group), "zetContextActivateMetricGroups");
    uint8_t *data = NULL;
    double read_ns = 0, pass_ns = 0;
    size_t bytes = 0;
    for (int r = 0; r < repeats; r++) {
        zet_metric_streamer_desc_t desc = {ZET_STRUCTURE_TYPE_METRIC_STREAMER_DESC, NULL, 4096, 0};
        zet_metric_streamer_handle_t streamer = NULL;
        zb_check(zetMetricStreamerOpen(m->context, m->device, group, &desc, NULL, &streamer), "zetMetricStreamerOpen");
        size_t size = 0;
        zb_check(zetMetricStreamerReadData(streamer, UINT32_MAX, &size, NULL), "zetMetricStreamerReadData");
        if (data == NULL && (data = malloc(size)) == NULL)
            exit(EXIT_FAILURE);
        /* Device time for about 90 % of the buffer (the written-back period is rounded up), so nothing is dropped. */
        uint64_t period = desc.samplingPeriod > 0 ? desc.samplingPeriod : 1;
        zb_advance_clock(m, (uint32_t)(2 * desc.notifyEveryNReports * period * 9 / 10 / 1000));
        uint64_t start = zb_now_ns();
        zb_check(zetMetricStreamerReadData(streamer, UINT32_MAX, &size, data), "zetMetricStreamerReadData");
        read_ns += (double)(zb_now_ns() - start);
        bytes = size;
        pass_ns += zb_memory_pass_ns(data, size, 16);
        zb_check(zetMetricStreamerClose(streamer), "zetMetricStreamerClose");
    }
    zb_check(zetContextActivateMetricGroups(m->context, m->device, 0, NULL), "zetContextActivateMetricGroups");
    size_t reports = bytes / ZB_RECORD;
    printf("streamer read of %zu ComputeBasic reports (written and copied): %.0f ns per report, ratio %.0f to a memory "
           "pass over the same bytes\n",
           reports, read_ns / repeats / (double)(reports > 0 ? reports : 1), read_ns / pass_ns);
    free(data);
}

int main(int argc, char **argv) {
    int repeats = argc > 1 && strcmp(argv[1], "--quick") == 0 ? 2 : 20;
    zb_metrics m;
    setenv("ZEFAKE_CLOCK", "modelled", 1);
    zb_setup(&m);
    zb_bench_calculation(&m, repeats);
    zb_bench_read(&m, repeats > 4 ? 5 : 1);
    zb_check(zeContextDestroy(m.context), "zeContextDestroy");
    return EXIT_SUCCESS;
}
