/* Enumeration of metric groups and metrics, and their properties. */
#include "core/zf_chain.h"
#include "core/zf_core.h"
#include "tools/metrics/zf_metric.h"

#include <string.h>

static zf_metric *zf_metric_from(zet_metric_handle_t handle) {
    return (zf_metric *)handle;
}

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

/* Newer headers let a pNext chain ask for the resolution of metric timestamps; the 1.4 headers do not have it. */
static void zf_group_extensions(const zf_metric_group *group, void *next) {
#ifdef ZET_GLOBAL_METRICS_TIMESTAMPS_EXP_NAME
    zf_chain_foreach_out(ext, next) {
        if ((uint32_t)ext->stype != ZET_STRUCTURE_TYPE_METRIC_GLOBAL_TIMESTAMPS_RESOLUTION_EXP)
            continue;
        zet_metric_global_timestamps_resolution_exp_t *r = (zet_metric_global_timestamps_resolution_exp_t *)ext;
        r->timerResolution = group->mdev->device->desc->timer.frequency_hz;
        r->timestampValidBits = group->mdev->device->desc->metric_options.timestamp_valid_bits;
    }
#else
    (void)group;
    (void)next;
#endif
}

ze_result_t zfi_zetMetricGroupGetProperties(zet_metric_group_handle_t hMetricGroup,
                                            zet_metric_group_properties_t *pProperties) {
    const zf_metric_group *group = zf_metric_group_from(hMetricGroup);
    memcpy(pProperties->name, group->name, sizeof pProperties->name);
    memcpy(pProperties->description, group->description, sizeof pProperties->description);
    pProperties->samplingType = group->sampling;
    pProperties->domain = group->domain;
    pProperties->metricCount = group->num_metrics;
    zf_group_extensions(group, zf_out_chain(pProperties, "pProperties", ZET_STRUCTURE_TYPE_METRIC_GROUP_PROPERTIES));
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zetMetricGet(zet_metric_group_handle_t hMetricGroup, uint32_t *pCount, zet_metric_handle_t *phMetrics) {
    zf_metric_group *group = zf_metric_group_from(hMetricGroup);
    uint32_t n = zf_count_query(pCount, group->num_metrics, phMetrics);
    for (uint32_t i = 0; i < n; i++)
        phMetrics[i] = (zet_metric_handle_t)&group->metrics[i];
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
