/* Fuzz target: metric export data (docs/metrics.md, "Export data"; docs/fuzzing.md). The input chooses a metric group
 * of the default scenario's device or one of its sub-devices, the calculation type, the reports to skip and the
 * capacity of the caller's arrays, and then either
 * - gives the export data itself (mode bit 1), or
 * - gives raw data (a 16-bit length, then the bytes) that the driver exports for the group, followed by patches of
 *   3 bytes each (a 16-bit offset into the export data and a byte XORed there) and a final cut of up to 255 bytes:
 *   valid export data damaged in place, so the mutations reach every table of the format.
 * The export data is then calculated (count query first, then the values) with the internal form of
 * zetMetricGroupCalculateMetricExportDataExp, so the target runs whatever headers the build has. Carried records are
 * reset before every input: each input is exported on its own. */
#include "tools/metrics/zf_metric.h"
#include "zz_common.h"

#include <stdlib.h>
#include <string.h>

#define ZZ_MAX_GROUPS  64u
#define ZZ_MAX_DEVICES 9u
#define ZZ_MAX_VALUES  (1u << 16)

typedef struct zz_groups {
    uint32_t count;
    zet_metric_group_handle_t groups[ZZ_MAX_GROUPS];
} zz_groups;

static const zz_groups *zz_all_groups(const zz_api *api) {
    static zz_groups all;
    static bool listed;
    if (listed)
        return &all;
    ze_device_handle_t devices[ZZ_MAX_DEVICES] = {api->hdevice};
    uint32_t subs = ZZ_MAX_DEVICES - 1;
    if (api->device.pfnGetSubDevices(api->hdevice, &subs, devices + 1) != ZE_RESULT_SUCCESS)
        subs = 0;
    for (uint32_t i = 0; i <= subs; i++) {
        uint32_t count = ZZ_MAX_GROUPS - all.count;
        if (api->metric_group.pfnGet(devices[i], &count, all.groups + all.count) == ZE_RESULT_SUCCESS)
            all.count += count;
    }
    listed = true;
    return &all;
}

static void zz_calculate(bool max, const uint8_t *data, size_t size, uint32_t skip, uint32_t capacity) {
    uint32_t sets = 0, total = 0;
    if (zf_metric_export_calculate(max, data, size, skip, &sets, &total, NULL, NULL) != ZE_RESULT_SUCCESS ||
        sets == 0 || total == 0)
        return;
    sets = sets > ZZ_MAX_VALUES ? ZZ_MAX_VALUES : sets;
    total = total < capacity ? total : capacity;
    uint32_t *counts = calloc(sets, sizeof *counts);
    zet_typed_value_t *values = calloc(total, sizeof *values);
    if (counts != NULL && values != NULL)
        zf_metric_export_calculate(max, data, size, skip, &sets, &total, counts, values);
    free(counts);
    free(values);
}

/* The driver's export of the input's raw data, then the input's patches and cut; NULL when the group refuses the
 * raw data. */
static uint8_t *zz_damaged_export(zf_metric_group *g, zz_bytes *in, size_t *size) {
    size_t raw_size = zz_take8(in) | (size_t)zz_take8(in) << 8;
    raw_size = raw_size < in->size - in->at ? raw_size : in->size - in->at;
    const uint8_t *raw = in->data + in->at;
    in->at += raw_size;
    *size = 0;
    if (zf_metric_export_data(g, raw, raw_size, size, NULL) != ZE_RESULT_SUCCESS || *size == 0)
        return NULL;
    uint8_t *out = malloc(*size);
    if (out == NULL || zf_metric_export_data(g, raw, raw_size, size, out) != ZE_RESULT_SUCCESS) {
        free(out);
        return NULL;
    }
    while (in->size - in->at >= 4) {
        size_t at = (zz_take8(in) | (size_t)zz_take8(in) << 8) % *size;
        out[at] ^= zz_take8(in);
    }
    size_t cut = zz_take8(in);
    *size -= cut < *size ? cut : *size;
    uint8_t *exact = malloc(*size > 0 ? *size : 1); /* exact size: AddressSanitizer sees any read past the end */
    if (exact != NULL)
        memcpy(exact, out, *size);
    free(out);
    return exact;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 3)
        return 0;
    const zz_api *api = zz_api_get();
    const zz_groups *all = zz_all_groups(api);
    if (all->count == 0)
        return 0;
    zf_metric_group *g = zf_metric_group_from(all->groups[data[0] % all->count]);
    zf_metric_group_reset_carry(g);
    bool max = data[1] & 1, direct = data[1] & 2;
    uint32_t skip = (data[1] >> 2) & 0x7u, capacity = 1 + data[2] * 64u;
    zz_bytes in = {data + 3, size - 3, 0};
    if (direct) {
        /* An exact-size copy: AddressSanitizer sees any read past the end. */
        uint8_t *copy = malloc(in.size > 0 ? in.size : 1);
        if (copy != NULL) {
            memcpy(copy, in.data, in.size);
            zz_calculate(max, copy, in.size, skip, capacity);
        }
        free(copy);
        return 0;
    }
    size_t export_size = 0;
    uint8_t *exported = zz_damaged_export(g, &in, &export_size);
    if (exported != NULL)
        zz_calculate(max, exported, export_size, skip, capacity);
    free(exported);
    return 0;
}

#ifndef ZEFAKE_LIBFUZZER
int main(int argc, char **argv) {
    return zz_replay(argc, argv, LLVMFuzzerTestOneInput);
}
#endif
