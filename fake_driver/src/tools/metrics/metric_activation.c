/* zetContextActivateMetricGroups: which groups program a device's counters, at most one per domain.
 *
 * Activation is device state (the counters are the device's), set through any context that holds the device. Two
 * groups of one domain conflict: the specification's ZE_RESULT_ERROR_INVALID_ARGUMENT by default, or, with the
 * scenario's metric_options.domain_conflict: later_wins, Intel's current behaviour (the later group is activated). */
#include "core/zf_core.h"
#include "tools/metrics/zf_metric.h"

#include <stdlib.h>

const char *zf_metric_group_mismatch(const zf_metric_group *group, const zf_metric_device *mdev) {
    const zf_device *owner = group->mdev->device;
    if (group->mdev == mdev)
        return NULL;
    if (owner->root == mdev->device)
        return "belongs to a sub-device of hDevice (root and sub-device groups cannot be mixed)";
    if (mdev->device->root == owner)
        return "belongs to the root device of hDevice (root and sub-device groups cannot be mixed)";
    return "belongs to another device";
}

ze_result_t zf_metric_check_target(zf_context *context, zf_metric_device *mdev, const zf_metric_group *group) {
    if (!zf_context_has_device(context, mdev->device))
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "hDevice is not a device of hContext");
    const char *mismatch = zf_metric_group_mismatch(group, mdev);
    if (mismatch != NULL)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "hMetricGroup (%s) %s", group->name, mismatch);
    return ZE_RESULT_SUCCESS;
}

bool zf_metric_group_is_active(const zf_metric_group *group) {
    const zf_metric_device *mdev = group->mdev;
    for (uint32_t i = 0; i < mdev->num_active; i++) {
        if (mdev->active[i] == group)
            return true;
    }
    return false;
}

static ze_result_t zf_check_groups(const zf_metric_device *mdev, uint32_t count, zet_metric_group_handle_t *groups) {
    for (uint32_t i = 0; i < count; i++) {
        if (!zf_handle_is_live(groups[i], ZF_OBJ_ZET_METRIC_GROUP))
            return zf_fail(ZE_RESULT_ERROR_INVALID_NULL_HANDLE, "phMetricGroups[%u] (%p) is not a live metric group", i,
                           (void *)groups[i]);
        const zf_metric_group *group = zf_metric_group_from(groups[i]);
        const char *mismatch = zf_metric_group_mismatch(group, mdev);
        if (mismatch != NULL)
            return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "phMetricGroups[%u] (%s) %s", i, group->name, mismatch);
    }
    return ZE_RESULT_SUCCESS;
}

/* The groups to activate, one per domain, in the order given; *count receives their number. */
static ze_result_t zf_select_groups(const zf_metric_device *mdev, uint32_t count, zet_metric_group_handle_t *groups,
                                    zf_metric_group **selected, uint32_t *num_selected) {
    bool later_wins = mdev->device->desc->metric_options.domain_conflict == ZF_DOMAIN_CONFLICT_LATER_WINS;
    uint32_t n = 0;
    for (uint32_t i = 0; i < count; i++) {
        zf_metric_group *group = zf_metric_group_from(groups[i]);
        uint32_t j = 0;
        while (j < n && selected[j]->domain != group->domain)
            j++;
        if (j < n && selected[j] != group && !later_wins)
            return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                           "phMetricGroups[%u] (%s) and an earlier group (%s) share domain %u: groups of one domain "
                           "cannot be active together",
                           i, group->name, selected[j]->name, group->domain);
        selected[j] = group;
        if (j == n)
            n++;
    }
    *num_selected = n;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zetContextActivateMetricGroups(zet_context_handle_t hContext, zet_device_handle_t hDevice,
                                               uint32_t count, zet_metric_group_handle_t *phMetricGroups) {
    ze_result_t result = zf_metrics_init();
    if (result != ZE_RESULT_SUCCESS)
        return result;
    zf_device *device = zf_device_from(hDevice);
    if (!zf_context_has_device(zf_context_from(hContext), device))
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "hDevice is not a device of hContext");
    zf_metric_device *mdev = zf_metric_device_of(device);
    /* count 0 deactivates everything, whatever phMetricGroups holds (tools pass a stale array). */
    if (count > 0 && (result = zf_check_groups(mdev, count, phMetricGroups)) != ZE_RESULT_SUCCESS)
        return result;
    zf_metric_group **selected = calloc(mdev->num_groups > 0 ? mdev->num_groups : 1, sizeof *selected);
    if (selected == NULL)
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory to activate metric groups");
    uint32_t n = 0;
    if (count > 0)
        result = zf_select_groups(mdev, count, phMetricGroups, selected, &n);
    if (result == ZE_RESULT_SUCCESS) {
        zf_metric_lock();
        for (uint32_t i = 0; i < n; i++)
            mdev->active[i] = selected[i];
        mdev->num_active = n;
        zf_metric_unlock();
    }
    free(selected);
    return result;
}
