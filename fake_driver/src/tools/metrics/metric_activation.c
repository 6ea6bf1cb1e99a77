/* zetContextActivateMetricGroups: which groups program a device's counters, at most one per domain.
 *
 * Activation is device state (the counters are the device's), set through any context that holds the device. Two
 * groups of one domain conflict: the specification's ZE_RESULT_ERROR_INVALID_ARGUMENT by default, or, with the
 * scenario's metric_options.domain_conflict: later_wins, Intel's current behaviour (the later group is activated). */
#include "core/zf_core.h"
#include "tools/metrics/zf_metric.h"

#include <stdlib.h>
#include <string.h>

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

/* Activation also needs every user-created group closed (zetMetricGroupCloseExp: "a necessary step before
 * activation"). */
static ze_result_t zf_check_ready(uint32_t count, zet_metric_group_handle_t *groups) {
    for (uint32_t i = 0; i < count; i++) {
        const zf_metric_group *group = zf_metric_group_from(groups[i]);
        const char *why = zf_user_group_not_ready(group);
        if (why != NULL)
            return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "phMetricGroups[%u] (%s) %s", i, group->name, why);
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
    if (count > 0 && (result = zf_check_ready(count, phMetricGroups)) != ZE_RESULT_SUCCESS)
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

#if ZF_L0_AT_LEAST(10)
/* ---- Concurrent groups ---------------------------------------------------------------------------------------- */

/* The rank of entry i among the entries of its domain: the set it goes to. Groups of one domain cannot be collected
 * together (they cannot be active together), groups of different domains can: so the sets needed are as many as the
 * entries of the most used domain, and set k holds the k-th entry of every domain, in the order given. A group listed
 * twice is two entries of its domain, as Intel's driver places every entry of its OA source in a set of its own. */
static uint32_t zf_domain_rank(const zet_metric_group_handle_t *groups, uint32_t i) {
    uint32_t domain = zf_metric_group_from(groups[i])->domain, rank = 0;
    for (uint32_t j = 0; j < i; j++)
        rank += zf_metric_group_from(groups[j])->domain == domain;
    return rank;
}

static void zf_arrange_concurrent(zet_metric_group_handle_t *groups, uint32_t count, const uint32_t *ranks,
                                  zet_metric_group_handle_t *arranged, uint32_t sets, uint32_t *per_set) {
    uint32_t n = 0;
    for (uint32_t k = 0; k < sets; k++) {
        uint32_t in_set = 0;
        for (uint32_t i = 0; i < count; i++) {
            if (ranks[i] == k) {
                arranged[n++] = groups[i];
                in_set++;
            }
        }
        if (per_set != NULL)
            per_set[k] = in_set;
    }
    memcpy(groups, arranged, (size_t)count * sizeof *groups);
}

ze_result_t zfi_zetDeviceGetConcurrentMetricGroupsExp(zet_device_handle_t hDevice, uint32_t metricGroupCount,
                                                      zet_metric_group_handle_t *phMetricGroups,
                                                      uint32_t *pMetricGroupsCountPerConcurrentGroup,
                                                      uint32_t *pConcurrentGroupCount) {
    ze_result_t result = zf_metrics_init();
    if (result != ZE_RESULT_SUCCESS)
        return result;
    if (pConcurrentGroupCount == NULL)
        return zf_fail(ZE_RESULT_ERROR_INVALID_NULL_POINTER, "pConcurrentGroupCount is NULL");
    zf_metric_device *mdev = zf_metric_device_of(zf_device_from(hDevice));
    if ((result = zf_check_groups(mdev, metricGroupCount, phMetricGroups)) != ZE_RESULT_SUCCESS)
        return result;
    uint32_t *ranks = calloc((size_t)metricGroupCount + 1, sizeof *ranks);
    zet_metric_group_handle_t *arranged = calloc((size_t)metricGroupCount + 1, sizeof *arranged);
    if (ranks == NULL || arranged == NULL) {
        free(ranks);
        free(arranged);
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory to arrange %u metric groups",
                       metricGroupCount);
    }
    uint32_t sets = 0;
    for (uint32_t i = 0; i < metricGroupCount; i++) {
        ranks[i] = zf_domain_rank(phMetricGroups, i);
        sets = ranks[i] + 1 > sets ? ranks[i] + 1 : sets;
    }
    if (*pConcurrentGroupCount == 0)
        *pConcurrentGroupCount = sets;
    else if (*pConcurrentGroupCount != sets)
        result = zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                         "*pConcurrentGroupCount is %u: the groups need %u concurrent sets (ask with 0 first)",
                         *pConcurrentGroupCount, sets);
    else
        zf_arrange_concurrent(phMetricGroups, metricGroupCount, ranks, arranged, sets,
                              pMetricGroupsCountPerConcurrentGroup);
    free(ranks);
    free(arranged);
    return result;
}
#endif
