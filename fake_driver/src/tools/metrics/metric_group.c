/* Enumeration of metric groups and metrics, their properties, and the metric timestamps of a group's device. */
#include "core/zf_chain.h"
#include "core/zf_core.h"
#include "tools/metrics/zf_metric.h"

#include <string.h>

ze_result_t zfi_zetMetricGroupGet(zet_device_handle_t hDevice, uint32_t *pCount,
                                  zet_metric_group_handle_t *phMetricGroups) {
    ze_result_t result = zf_metrics_init();
    if (result != ZE_RESULT_SUCCESS)
        return result;
    zf_metric_device *mdev = zf_metric_device_of(zf_device_from(hDevice));
    uint32_t n = zf_count_query(pCount, mdev->num_groups, phMetricGroups);
    for (uint32_t i = 0; i < n; i++)
        phMetricGroups[i] = (zet_metric_group_handle_t)&mdev->groups[i];
    return ZE_RESULT_SUCCESS;
}

/* The metric timer is the device timer (docs/metrics.md, "Groups"): the scenario's timer frequency, and the valid
 * bits of the timestamps in metric records. The structure type's first name (1.5) is kept as an alias by later
 * headers. */
static void zf_group_timestamps_resolution(const zf_metric_group *group, ze_base_properties_t *ext) {
#if ZF_L0_AT_LEAST(5)
    if ((uint32_t)ext->stype != ZET_STRUCTURE_TYPE_GLOBAL_METRICS_TIMESTAMPS_EXP_PROPERTIES)
        return;
    zet_metric_global_timestamps_resolution_exp_t *r = (zet_metric_global_timestamps_resolution_exp_t *)ext;
    r->timerResolution = group->mdev->device->desc->timer.frequency_hz;
    r->timestampValidBits = group->mdev->device->desc->metric_options.timestamp_valid_bits;
#else
    (void)group;
    (void)ext;
#endif
}

/* The group's type (headers 1.11): what the application created, or a collection of metrics; no group exports its
 * data through a dma-buf. */
static void zf_group_type(const zf_metric_group *group, ze_base_properties_t *ext) {
#if ZF_L0_AT_LEAST(11)
    if ((uint32_t)ext->stype != ZET_STRUCTURE_TYPE_METRIC_GROUP_TYPE_EXP)
        return;
    ((zet_metric_group_type_exp_t *)ext)->type =
        group->user != NULL ? ZET_METRIC_GROUP_TYPE_EXP_FLAG_USER_CREATED : ZET_METRIC_GROUP_TYPE_EXP_FLAG_OTHER;
#else
    (void)group;
    (void)ext;
#endif
}

ze_result_t zfi_zetMetricGroupGetProperties(zet_metric_group_handle_t hMetricGroup,
                                            zet_metric_group_properties_t *pProperties) {
    zf_metric_group *group = zf_metric_group_from(hMetricGroup);
    zf_metric_group_read_lock(group);
    memcpy(pProperties->name, group->name, sizeof pProperties->name);
    memcpy(pProperties->description, group->description, sizeof pProperties->description);
    pProperties->samplingType = group->sampling;
    pProperties->domain = group->domain;
    pProperties->metricCount = group->num_metrics;
    zf_metric_group_read_unlock(group);
    zf_chain_foreach_out(ext, zf_out_chain(pProperties, "pProperties", ZET_STRUCTURE_TYPE_METRIC_GROUP_PROPERTIES)) {
        zf_group_timestamps_resolution(group, ext);
        zf_group_type(group, ext);
    }
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zetMetricGet(zet_metric_group_handle_t hMetricGroup, uint32_t *pCount, zet_metric_handle_t *phMetrics) {
    zf_metric_group *group = zf_metric_group_from(hMetricGroup);
    zf_metric_group_read_lock(group);
    uint32_t n = zf_count_query(pCount, group->num_metrics, phMetrics);
    for (uint32_t i = 0; i < n; i++)
        phMetrics[i] = (zet_metric_handle_t)group->list[i];
    zf_metric_group_read_unlock(group);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zetMetricGetProperties(zet_metric_handle_t hMetric, zet_metric_properties_t *pProperties) {
    const zf_metric *metric = zf_metric_from(hMetric);
    zf_out_check(pProperties, "pProperties", ZET_STRUCTURE_TYPE_METRIC_PROPERTIES);
    memcpy(pProperties->name, metric->name, sizeof pProperties->name);
    memcpy(pProperties->description, metric->description, sizeof pProperties->description);
    memcpy(pProperties->component, metric->component, sizeof pProperties->component);
    pProperties->tierNumber = metric->tier;
    pProperties->metricType = metric->type;
    pProperties->resultType = metric->value_type;
    memcpy(pProperties->resultUnits, metric->units, sizeof pProperties->resultUnits);
    return ZE_RESULT_SUCCESS;
}

#if ZF_L0_AT_LEAST(5)
/* One reading of the device clock gives both timestamps, as zeDeviceGetGlobalTimestamps reads it: the global one
 * masked to the device timer's valid bits (or the host's CLOCK_MONOTONIC_RAW time when synchronised with the host), the
 * metric one to the valid bits of metric records, so that it compares with the timestamps of streamer reports and
 * tracer events (the metric timer is the device timer; docs/metrics.md, "Metric timestamps"). */
ze_result_t zfi_zetMetricGroupGetGlobalTimestampsExp(zet_metric_group_handle_t hMetricGroup,
                                                     ze_bool_t synchronizedWithHost, uint64_t *globalTimestamp,
                                                     uint64_t *metricTimestamp) {
    const zf_metric_group *group = zf_metric_group_from(hMetricGroup);
    zf_clock *clock = zf_device_clock(group->mdev->device);
    uint64_t host = 0, ticks = 0;
    zf_clock_read_pair(clock, &host, &ticks);
    *globalTimestamp = synchronizedWithHost ? host : zf_clock_mask(ticks, clock->valid_bits);
    *metricTimestamp = zf_clock_mask(ticks, group->mdev->device->desc->metric_options.timestamp_valid_bits);
    return ZE_RESULT_SUCCESS;
}
#endif
