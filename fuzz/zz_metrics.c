/* Fuzz target: raw metric data (docs/metrics-raw-formats.md, docs/fuzzing.md). The input chooses a metric group of
 * the default scenario's device or one of its sub-devices, the calculation type, the function
 * (zetMetricGroupCalculateMetricValues or its multi-tile form zetMetricGroupCalculateMultipleMetricValuesExp) and
 * the capacity of the caller's arrays; the rest of the input is the raw data. A streamer group carries its last
 * snapshot to the next calculation (docs/metrics.md), so the carry is reset before every input: each input is
 * calculated on its own. */
#include "tools/metrics/zf_metric.h"
#include "zz_common.h"

#include <stdlib.h>

#define ZZ_MAX_GROUPS  64u
#define ZZ_MAX_DEVICES 9u
#define ZZ_MAX_VALUES  (1u << 16)

typedef struct zz_groups {
    uint32_t count;
    zet_metric_group_handle_t groups[ZZ_MAX_GROUPS];
} zz_groups;

static void zz_add_groups(const zz_api *api, ze_device_handle_t device, zz_groups *out) {
    uint32_t count = ZZ_MAX_GROUPS - out->count;
    if (api->metric_group.pfnGet(device, &count, out->groups + out->count) == ZE_RESULT_SUCCESS)
        out->count += count;
}

static const zz_groups *zz_all_groups(const zz_api *api) {
    static zz_groups all;
    static bool listed;
    if (listed)
        return &all;
    ze_device_handle_t devices[ZZ_MAX_DEVICES] = {api->hdevice};
    uint32_t subs = ZZ_MAX_DEVICES - 1;
    if (api->device.pfnGetSubDevices(api->hdevice, &subs, devices + 1) != ZE_RESULT_SUCCESS)
        subs = 0;
    for (uint32_t i = 0; i <= subs; i++)
        zz_add_groups(api, devices[i], &all);
    listed = true;
    return &all;
}

/* Asks for the size first when `query` (the documented two calls), else offers `capacity` values at once. */
static void zz_single(const zz_api *api, zet_metric_group_handle_t g, zet_metric_group_calculation_type_t type,
                      const uint8_t *raw, size_t size, bool query, uint32_t capacity) {
    uint32_t count = 0;
    if (query && (api->metric_group.pfnCalculateMetricValues(g, type, size, raw, &count, NULL) != ZE_RESULT_SUCCESS ||
                  count == 0 || count > ZZ_MAX_VALUES))
        return;
    count = query ? count : capacity;
    zet_typed_value_t *values = calloc(count, sizeof *values);
    if (values != NULL)
        api->metric_group.pfnCalculateMetricValues(g, type, size, raw, &count, values);
    free(values);
}

static void zz_multiple(const zz_api *api, zet_metric_group_handle_t g, zet_metric_group_calculation_type_t type,
                        const uint8_t *raw, size_t size, bool query, uint32_t capacity) {
    uint32_t sets = 0, total = 0;
    if (query && (api->metric_group_exp.pfnCalculateMultipleMetricValuesExp(g, type, size, raw, &sets, &total, NULL,
                                                                            NULL) != ZE_RESULT_SUCCESS ||
                  sets == 0 || total == 0 || total > ZZ_MAX_VALUES || sets > ZZ_MAX_VALUES))
        return;
    sets = query ? sets : 1 + capacity % 4;
    total = query ? total : capacity;
    uint32_t *counts = calloc(sets, sizeof *counts);
    zet_typed_value_t *values = calloc(total, sizeof *values);
    if (counts != NULL && values != NULL)
        api->metric_group_exp.pfnCalculateMultipleMetricValuesExp(g, type, size, raw, &sets, &total, counts, values);
    free(counts);
    free(values);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 3)
        return 0;
    const zz_api *api = zz_api_get();
    const zz_groups *all = zz_all_groups(api);
    if (all->count == 0)
        return 0;
    zet_metric_group_handle_t g = all->groups[data[0] % all->count];
    zf_metric_group_reset_carry(zf_metric_group_from(g));
    zet_metric_group_calculation_type_t type = data[1] & 1 ? ZET_METRIC_GROUP_CALCULATION_TYPE_MAX_METRIC_VALUES
                                                           : ZET_METRIC_GROUP_CALCULATION_TYPE_METRIC_VALUES;
    bool query = data[1] & 4, multiple = data[1] & 2;
    uint32_t capacity = 1 + data[2];
    if (multiple)
        zz_multiple(api, g, type, data + 3, size - 3, query, capacity);
    else
        zz_single(api, g, type, data + 3, size - 3, query, capacity);
    return 0;
}

#ifndef ZEFAKE_LIBFUZZER
int main(int argc, char **argv) {
    return zz_replay(argc, argv, LLVMFuzzerTestOneInput);
}
#endif
