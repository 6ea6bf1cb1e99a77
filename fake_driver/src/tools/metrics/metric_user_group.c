/* User-created metric groups (headers 1.9): groups of metrics created from programmables, which the application
 * builds, closes, activates, streams or queries and calculates like the scenario's (docs/metrics.md, "User-created
 * groups").
 *
 * A user group has one sampling type and the records of the OA unit (docs/metrics-raw-formats.md). Closing it fixes
 * its metrics as Intel's driver does: the defaults of an OA set first (GpuTime, GpuCoreClocks,
 * AvgGpuCoreFrequencyMHz), the application's metrics in the order they were added, then the information entries of
 * the sampling type; the flexible counters its metrics program become the group's B and C counters. A group that is
 * activated, or used by a streamer or a query pool, cannot change. The metric list changes under the group's list
 * lock, which calculation holds for reading. */
#include "core/zf_core.h"
#include "tools/metrics/zf_metric.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct zf_user_group {
    _Atomic bool closed;
    uint32_t num_members; /* the application's metrics, in the order added */
    uint32_t capacity;
    zf_metric **members;
    uint32_t num_defaults; /* group->metrics: the defaults, then the information entries */
    uint32_t num_info;
};

const char *zf_user_group_not_ready(const zf_metric_group *group) {
    if (group->user == NULL || atomic_load(&group->user->closed))
        return NULL;
    return "is a user-created group that is not closed (zetMetricGroupCloseExp)";
}

#if ZF_L0_AT_LEAST(9)

/* The metrics every OA set of Intel's starts with. */
static const zf_metric_info_def zf_user_defaults[] = {
    {"GpuTime", "Time elapsed on the GPU during the measurement", "ns", ZET_METRIC_TYPE_DURATION, ZET_VALUE_TYPE_UINT64,
     "gpu_time"},
    {"GpuCoreClocks", "The total number of GPU core clocks elapsed during the measurement", "cycles",
     ZET_METRIC_TYPE_EVENT, ZET_VALUE_TYPE_UINT64, "gpu_ticks"},
    {"AvgGpuCoreFrequencyMHz", "Average GPU core frequency in the measurement", "MHz", ZET_METRIC_TYPE_THROUGHPUT,
     ZET_VALUE_TYPE_UINT64, "gpu_ticks * 1000 / gpu_time"},
};

#define ZF_USER_DEFAULTS (sizeof zf_user_defaults / sizeof zf_user_defaults[0])

/* ---- Checks --------------------------------------------------------------------------------------------------- */

static ze_result_t zf_check_user_group(const zf_metric_group *group) {
    if (group->user == NULL)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                       "hMetricGroup (%s) is a predefined group: only user-created groups change", group->name);
    return ZE_RESULT_SUCCESS;
}

/* A group that is active or that a streamer, query pool or tracer uses keeps its metrics; lock held. */
static ze_result_t zf_check_unused(const zf_metric_group *group) {
    if (zf_metric_group_is_active(group))
        return zf_fail(ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE, "hMetricGroup (%s) is activated: deactivate it first",
                       group->name);
    if (group->users > 0)
        return zf_fail(ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE,
                       "hMetricGroup (%s) is used by %u streamers or query pools: close and destroy them first",
                       group->name, group->users);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t zf_check_changeable(const zf_metric_group *group) {
    ze_result_t result = zf_check_user_group(group);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    zf_metric_lock();
    result = zf_check_unused(group);
    zf_metric_unlock();
    return result;
}

static ze_result_t zf_check_name(const char *text, size_t max, const char *argument) {
    if (strnlen(text, max) == max)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "%s has no NUL within %zu characters", argument, max);
    return ZE_RESULT_SUCCESS;
}

/* ---- Creating and destroying ---------------------------------------------------------------------------------- */

static void zf_user_group_free(zf_metric_group *group) {
    if (group->user != NULL) {
        free(group->user->members);
        free(group->user);
    }
    free(group->metrics);
    free(group->list);
    free(group->carry);
}

static bool zf_user_group_defaults(zf_metric_group *group) {
    size_t num_info = 0;
    const zf_metric_info_def *info = zf_metric_info_defs(ZF_METRIC_FORMAT_OA, group->sampling, &num_info);
    zf_user_group *user = group->user;
    user->num_defaults = ZF_USER_DEFAULTS;
    user->num_info = (uint32_t)num_info;
    group->metrics = calloc(ZF_USER_DEFAULTS + num_info, sizeof *group->metrics);
    if (group->metrics == NULL)
        return false;
    for (uint32_t i = 0; i < ZF_USER_DEFAULTS + num_info; i++) {
        const zf_metric_info_def *def = i < ZF_USER_DEFAULTS ? &zf_user_defaults[i] : &info[i - ZF_USER_DEFAULTS];
        if (!zf_metric_init_info(&group->metrics[i], group, def))
            return false;
    }
    return true;
}

static void zf_user_group_unregister(zf_metric_group *group) {
    for (uint32_t i = 0; group->metrics != NULL && i < group->user->num_defaults + group->user->num_info; i++) {
        if (zf_handle_is_live(&group->metrics[i], ZF_OBJ_ZET_METRIC))
            zf_object_unregister(&group->metrics[i].header);
    }
}

static ze_result_t zf_user_group_create(zf_metric_device *mdev, const char *name, const char *description,
                                        zet_metric_group_sampling_type_flags_t sampling, zf_metric_group **out) {
    zf_metric_group *g = calloc(1, sizeof *g);
    if (g == NULL)
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory for a metric group");
    zf_metric_oa_domain(mdev, &g->domain);
    g->mdev = mdev;
    zf_copy_text(g->name, sizeof g->name, name);
    zf_copy_text(g->description, sizeof g->description, description);
    g->sampling = sampling;
    g->format = ZF_METRIC_FORMAT_OA;
    g->record_size = zf_metric_record_size(ZF_METRIC_FORMAT_OA, sampling);
    g->user = calloc(1, sizeof *g->user);
    g->carry = calloc(mdev->num_tiles + 1u, sizeof *g->carry);
    pthread_mutex_init(&g->carry_lock, NULL);
    pthread_rwlock_init(&g->list_lock, NULL);
    /* Registered first: the defaults name the group as their owner. */
    if (g->user == NULL || g->carry == NULL ||
        !zf_object_register(&g->header, ZF_OBJ_ZET_METRIC_GROUP, &mdev->device->header)) {
        zf_user_group_free(g);
        free(g);
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory for a metric group");
    }
    if (!zf_user_group_defaults(g)) {
        zf_user_group_unregister(g);
        zf_user_group_free(g);
        zf_object_retire(&g->header);
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory for the metrics of a metric group");
    }
    *out = g;
    return ZE_RESULT_SUCCESS;
}

static void zf_user_group_destroy(zf_metric_group *g) {
    zf_metric_lock();
    for (uint32_t i = 0; i < g->user->num_members; i++)
        g->user->members[i]->refs--;
    zf_metric_unlock();
    zf_user_group_unregister(g);
    zf_object_unregister(&g->header);
    pthread_rwlock_destroy(&g->list_lock);
    pthread_mutex_destroy(&g->carry_lock);
    zf_user_group_free(g);
    zf_object_retire(&g->header);
}

static ze_result_t zf_check_sampling(zet_metric_group_sampling_type_flags_t sampling) {
    if (sampling != ZET_METRIC_GROUP_SAMPLING_TYPE_FLAG_EVENT_BASED &&
        sampling != ZET_METRIC_GROUP_SAMPLING_TYPE_FLAG_TIME_BASED)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                       "samplingType 0x%x: a user-created group is either EVENT_BASED or TIME_BASED", sampling);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t zf_check_oa_unit(const zf_metric_device *mdev) {
    uint32_t domain = 0;
    if (!zf_metric_oa_domain(mdev, &domain))
        return zf_fail(ZE_RESULT_ERROR_UNSUPPORTED_FEATURE,
                       "%s has no OA metric groups, so no programmable metrics to build groups of",
                       mdev->device->properties.name);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zetMetricGroupCreateExp(zet_device_handle_t hDevice, const char *pName, const char *pDescription,
                                        zet_metric_group_sampling_type_flags_t samplingType,
                                        zet_metric_group_handle_t *phMetricGroup) {
    ze_result_t result = zf_metrics_init();
    if (result != ZE_RESULT_SUCCESS)
        return result;
    zf_metric_device *mdev = zf_metric_device_of(zf_device_from(hDevice));
    if ((result = zf_check_name(pName, ZET_MAX_METRIC_GROUP_NAME, "pName")) != ZE_RESULT_SUCCESS ||
        (result = zf_check_name(pDescription, ZET_MAX_METRIC_GROUP_DESCRIPTION, "pDescription")) != ZE_RESULT_SUCCESS ||
        (result = zf_check_sampling(samplingType)) != ZE_RESULT_SUCCESS ||
        (result = zf_check_oa_unit(mdev)) != ZE_RESULT_SUCCESS)
        return result;
    zf_metric_group *g = NULL;
    result = zf_user_group_create(mdev, pName, pDescription, samplingType, &g);
    if (result == ZE_RESULT_SUCCESS)
        *phMetricGroup = (zet_metric_group_handle_t)g;
    return result;
}

ze_result_t zfi_zetMetricGroupDestroyExp(zet_metric_group_handle_t hMetricGroup) {
    zf_metric_group *g = zf_metric_group_from(hMetricGroup);
    ze_result_t result = zf_check_user_group(g);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    pthread_rwlock_wrlock(&g->list_lock);
    zf_metric_lock();
    result = zf_check_unused(g);
    zf_metric_unlock();
    pthread_rwlock_unlock(&g->list_lock);
    if (result == ZE_RESULT_SUCCESS)
        zf_user_group_destroy(g);
    return result;
}

/* ---- Adding and removing metrics ------------------------------------------------------------------------------ */

/* The error string of zetMetricGroupAddMetricExp: its size asked with *size 0 (or no buffer), else as much of it as
 * fits, always terminated. */
static void zf_error_string(size_t *size, char *out, const char *text) {
    if (size == NULL)
        return;
    size_t needed = strlen(text) + 1;
    if (*size == 0 || out == NULL) {
        *size = needed;
        return;
    }
    size_t n = *size < needed ? *size : needed;
    memcpy(out, text, n - 1);
    out[n - 1] = '\0';
    *size = n;
}

static int32_t zf_member_index(const zf_user_group *user, const zf_metric *m) {
    for (uint32_t i = 0; i < user->num_members; i++) {
        if (user->members[i] == m)
            return (int32_t)i;
    }
    return -1;
}

/* A member programming the same flexible counter, if any. */
static const zf_metric *zf_counter_taken(const zf_user_group *user, const zf_metric *m) {
    for (uint32_t i = 0; m->program.flex_slot >= 0 && i < user->num_members; i++) {
        if (user->members[i]->program.flex_slot == m->program.flex_slot)
            return user->members[i];
    }
    return NULL;
}

/* Why `m` cannot join the group (NULL when it can): the text of the error string. */
static const char *zf_join_refusal(const zf_metric_group *g, const zf_metric *m, char *why, size_t size) {
    if (m->origin != ZF_METRIC_PROGRAMMED)
        return "the metric is predefined (not created from a programmable): it cannot be added to a group";
    if (m->mdev != g->mdev)
        return "the metric was created for another device than the group's";
    if ((m->sampling & g->sampling) != g->sampling)
        return "the metric does not support the group's sampling type";
    const zf_metric *other = zf_counter_taken(g->user, m);
    if (other == NULL)
        return NULL;
    snprintf(why, size, "the metric's flexible counter %c%d is already programmed by the group's metric %.100s",
             m->program.flex_slot < 8 ? 'B' : 'C', m->program.flex_slot % 8, other->name);
    return why;
}

static bool zf_member_add(zf_user_group *user, zf_metric *m) {
    if (user->num_members == user->capacity) {
        uint32_t capacity = user->capacity ? user->capacity * 2 : 8;
        zf_metric **grown = realloc(user->members, capacity * sizeof *grown);
        if (grown == NULL)
            return false;
        user->members = grown;
        user->capacity = capacity;
    }
    user->members[user->num_members++] = m;
    return true;
}

/* An open group lists the application's metrics only (Intel's driver drops the defaults when a closed group opens
 * again); closing lists them all. */
static bool zf_group_list_members(zf_metric_group *g) {
    zf_user_group *user = g->user;
    zf_metric **list = calloc(user->num_members + 1u, sizeof *list);
    if (list == NULL)
        return false;
    memcpy(list, user->members, (size_t)user->num_members * sizeof *list);
    free(g->list);
    g->list = list;
    g->num_metrics = user->num_members;
    atomic_store(&user->closed, false);
    return true;
}

/* Adds `m` (the caller holds the list lock); the error string explains a refusal. */
static ze_result_t zf_group_add(zf_metric_group *g, zf_metric *m, size_t *error_size, char *error) {
    char why[256];
    const char *refusal = zf_join_refusal(g, m, why, sizeof why);
    if (refusal != NULL) {
        zf_error_string(error_size, error, refusal);
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "hMetric (%s) cannot join %s: %s", m->name, g->name, refusal);
    }
    if (zf_member_index(g->user, m) >= 0)
        return ZE_RESULT_SUCCESS; /* "would add the metric only once" */
    if (!zf_member_add(g->user, m))
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory to add a metric");
    if (!zf_group_list_members(g)) {
        g->user->num_members--;
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory to add a metric");
    }
    zf_metric_lock();
    m->refs++;
    zf_metric_unlock();
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zetMetricGroupAddMetricExp(zet_metric_group_handle_t hMetricGroup, zet_metric_handle_t hMetric,
                                           size_t *pErrorStringSize, char *pErrorString) {
    zf_metric_group *g = zf_metric_group_from(hMetricGroup);
    pthread_rwlock_t *lock = g->user != NULL ? &g->list_lock : NULL;
    if (lock != NULL)
        pthread_rwlock_wrlock(lock);
    ze_result_t result = zf_check_changeable(g);
    if (result == ZE_RESULT_SUCCESS)
        result = zf_group_add(g, zf_metric_from(hMetric), pErrorStringSize, pErrorString);
    if (lock != NULL)
        pthread_rwlock_unlock(lock);
    return result;
}

static ze_result_t zf_group_remove(zf_metric_group *g, zf_metric *m) {
    if (m->origin != ZF_METRIC_PROGRAMMED)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                       "hMetric (%s) is predefined: only metrics created from programmables are removed", m->name);
    /* The header's answer; Intel's driver answers ZE_RESULT_SUCCESS and removes nothing (docs/metrics.md). */
    int32_t index = zf_member_index(g->user, m);
    if (index < 0)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "hMetric (%s) was not added to %s", m->name, g->name);
    zf_user_group *user = g->user;
    zf_metric **list = calloc(user->num_members, sizeof *list);
    if (list == NULL)
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory to remove a metric");
    memmove(&user->members[index], &user->members[index + 1],
            (size_t)(user->num_members - (uint32_t)index - 1) * sizeof *user->members);
    user->num_members--;
    memcpy(list, user->members, (size_t)user->num_members * sizeof *list);
    free(g->list);
    g->list = list;
    g->num_metrics = user->num_members;
    atomic_store(&user->closed, false);
    zf_metric_lock();
    m->refs--;
    zf_metric_unlock();
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zetMetricGroupRemoveMetricExp(zet_metric_group_handle_t hMetricGroup, zet_metric_handle_t hMetric) {
    zf_metric_group *g = zf_metric_group_from(hMetricGroup);
    pthread_rwlock_t *lock = g->user != NULL ? &g->list_lock : NULL;
    if (lock != NULL)
        pthread_rwlock_wrlock(lock);
    ze_result_t result = zf_check_changeable(g);
    if (result == ZE_RESULT_SUCCESS)
        result = zf_group_remove(g, zf_metric_from(hMetric));
    if (lock != NULL)
        pthread_rwlock_unlock(lock);
    return result;
}

/* ---- Closing -------------------------------------------------------------------------------------------------- */

/* The flexible counters the members program; the others read 0 (multiply 0). */
static void zf_group_program(zf_metric_group *g) {
    g->num_counters = ZF_OA_FLEX_COUNTERS;
    for (uint32_t i = 0; i < ZF_OA_FLEX_COUNTERS; i++)
        g->counters[i] = (zf_scenario_counter){.signal = ZF_SIG_GPU_CLOCKS, .multiply = 0, .divide = 1};
    for (uint32_t i = 0; i < g->user->num_members; i++) {
        const zf_metric_program *p = &g->user->members[i]->program;
        if (p->flex_slot >= 0)
            g->counters[p->flex_slot] = p->counter;
    }
}

static ze_result_t zf_group_close(zf_metric_group *g) {
    zf_user_group *user = g->user;
    if (atomic_load(&user->closed))
        return ZE_RESULT_SUCCESS;
    if (user->num_members == 0)
        return zf_fail(ZE_RESULT_NOT_READY, "%s has no metric to close with (as Intel's driver answers)", g->name);
    uint32_t total = user->num_defaults + user->num_members + user->num_info;
    zf_metric **list = calloc(total, sizeof *list);
    if (list == NULL)
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory to close %s", g->name);
    uint32_t n = 0;
    for (uint32_t i = 0; i < user->num_defaults; i++)
        list[n++] = &g->metrics[i];
    for (uint32_t i = 0; i < user->num_members; i++)
        list[n++] = user->members[i];
    for (uint32_t i = 0; i < user->num_info; i++)
        list[n++] = &g->metrics[user->num_defaults + i];
    free(g->list);
    g->list = list;
    g->num_metrics = total;
    zf_group_program(g);
    zf_metric_group_reset_carry(g);
    atomic_store(&user->closed, true);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zetMetricGroupCloseExp(zet_metric_group_handle_t hMetricGroup) {
    zf_metric_group *g = zf_metric_group_from(hMetricGroup);
    pthread_rwlock_t *lock = g->user != NULL ? &g->list_lock : NULL;
    if (lock != NULL)
        pthread_rwlock_wrlock(lock);
    ze_result_t result = zf_check_changeable(g);
    if (result == ZE_RESULT_SUCCESS)
        result = zf_group_close(g);
    if (lock != NULL)
        pthread_rwlock_unlock(lock);
    return result;
}

#endif

#if ZF_L0_AT_LEAST(10)
/* ---- Groups from metrics -------------------------------------------------------------------------------------- */

/* Where zetDeviceCreateMetricGroupsFromMetricsExp puts each metric: per sampling type (EVENT_BASED groups first, then
 * TIME_BASED, as Intel's driver orders them), in the first group whose flexible counters the metric does not
 * overlap. Fixed counters overlap nothing: without flexible counters one group per sampling type holds them all. */
typedef struct zf_group_plan {
    uint32_t groups;
    zet_metric_group_sampling_type_flags_t sampling[2 * ZF_FRAME_MAX_SETS];
    uint32_t *bin; /* per sampling pass and metric: its group, UINT32_MAX when listed earlier */
} zf_group_plan;

static uint32_t zf_plan_bin(const zf_group_plan *plan, uint32_t first, uint32_t *slots, const zf_metric *m) {
    uint32_t bin = first;
    while (bin < plan->groups && m->program.flex_slot >= 0 && (slots[bin] >> m->program.flex_slot & 1u))
        bin++;
    return bin;
}

static bool zf_plan_groups(zf_group_plan *plan, uint32_t count, zf_metric *const *metrics) {
    static const zet_metric_group_sampling_type_flags_t passes[2] = {ZET_METRIC_GROUP_SAMPLING_TYPE_FLAG_EVENT_BASED,
                                                                     ZET_METRIC_GROUP_SAMPLING_TYPE_FLAG_TIME_BASED};
    uint32_t slots[2 * ZF_FRAME_MAX_SETS] = {0};
    for (uint32_t pass = 0; pass < 2; pass++) {
        uint32_t first = plan->groups;
        for (uint32_t i = 0; i < count; i++) {
            uint32_t *bin = &plan->bin[pass * count + i];
            bool earlier = false;
            for (uint32_t j = 0; j < i && !earlier; j++)
                earlier = metrics[j] == metrics[i];
            *bin = UINT32_MAX;
            if (earlier || !(metrics[i]->sampling & passes[pass]))
                continue;
            *bin = zf_plan_bin(plan, first, slots, metrics[i]);
            if (*bin == plan->groups && plan->groups == 2 * ZF_FRAME_MAX_SETS)
                return false;
            if (*bin == plan->groups)
                plan->sampling[plan->groups++] = passes[pass];
            if (metrics[i]->program.flex_slot >= 0)
                slots[*bin] |= 1u << metrics[i]->program.flex_slot;
        }
    }
    return true;
}

static ze_result_t zf_check_from_metrics(const zf_metric_device *mdev, uint32_t count, zet_metric_handle_t *metrics,
                                         const char *prefix, const char *description) {
    if (count == 0)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "metricCount is 0: there is nothing to make groups of");
    for (uint32_t i = 0; i < count; i++) {
        if (!zf_handle_is_live(metrics[i], ZF_OBJ_ZET_METRIC))
            return zf_fail(ZE_RESULT_ERROR_INVALID_NULL_HANDLE, "phMetrics[%u] (%p) is not a live metric", i,
                           (void *)metrics[i]);
        const zf_metric *m = zf_metric_from(metrics[i]);
        if (m->origin != ZF_METRIC_PROGRAMMED || m->mdev != mdev)
            return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "phMetrics[%u] (%s) %s", i, m->name,
                           m->origin != ZF_METRIC_PROGRAMMED ? "is predefined (not created from a programmable)"
                                                             : "was created for another device");
    }
    ze_result_t result = zf_check_name(prefix, ZET_MAX_METRIC_GROUP_NAME_PREFIX_EXP, "pMetricGroupNamePrefix");
    return result != ZE_RESULT_SUCCESS ? result
                                       : zf_check_name(description, ZET_MAX_METRIC_GROUP_DESCRIPTION, "pDescription");
}

/* Creates, fills and closes the planned groups; on failure destroys those it made. */
static ze_result_t zf_build_planned(zf_metric_device *mdev, const zf_group_plan *plan, uint32_t count,
                                    zf_metric *const *metrics, const char *prefix, const char *description,
                                    zet_metric_group_handle_t *out) {
    ze_result_t result = ZE_RESULT_SUCCESS;
    uint32_t made = 0;
    for (; made < plan->groups && result == ZE_RESULT_SUCCESS; made++) {
        char name[ZET_MAX_METRIC_GROUP_NAME];
        snprintf(name, sizeof name, "%s%u", prefix, made);
        zf_metric_group *g = NULL;
        if ((result = zf_user_group_create(mdev, name, description, plan->sampling[made], &g)) != ZE_RESULT_SUCCESS)
            break;
        out[made] = (zet_metric_group_handle_t)g;
        for (uint32_t i = 0; i < 2 * count && result == ZE_RESULT_SUCCESS; i++) {
            if (plan->bin[i] == made)
                result = zf_group_add(g, metrics[i % count], NULL, NULL);
        }
        if (result == ZE_RESULT_SUCCESS)
            result = zf_group_close(g);
    }
    for (uint32_t i = 0; result != ZE_RESULT_SUCCESS && i < made && i < plan->groups; i++) {
        if (zf_handle_is_live(out[i], ZF_OBJ_ZET_METRIC_GROUP))
            zf_user_group_destroy(zf_metric_group_from(out[i]));
    }
    return result;
}

ze_result_t zfi_zetDeviceCreateMetricGroupsFromMetricsExp(zet_device_handle_t hDevice, uint32_t metricCount,
                                                          zet_metric_handle_t *phMetrics,
                                                          const char *pMetricGroupNamePrefix, const char *pDescription,
                                                          uint32_t *pMetricGroupCount,
                                                          zet_metric_group_handle_t *phMetricGroup) {
    ze_result_t result = zf_metrics_init();
    if (result != ZE_RESULT_SUCCESS)
        return result;
    zf_metric_device *mdev = zf_metric_device_of(zf_device_from(hDevice));
    result = zf_check_from_metrics(mdev, metricCount, phMetrics, pMetricGroupNamePrefix, pDescription);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    zf_group_plan plan = {.bin = calloc(2 * (size_t)metricCount, sizeof *plan.bin)};
    zf_metric *const *metrics = (zf_metric *const *)phMetrics;
    if (plan.bin == NULL)
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory to arrange %u metrics", metricCount);
    if (!zf_plan_groups(&plan, metricCount, metrics))
        result =
            zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "the metrics need more than %u groups", 2 * ZF_FRAME_MAX_SETS);
    else if (*pMetricGroupCount == 0 || phMetricGroup == NULL)
        *pMetricGroupCount = plan.groups;
    else if (*pMetricGroupCount < plan.groups)
        result = zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                         "*pMetricGroupCount is %u: the metrics make %u groups (ask with 0 first)", *pMetricGroupCount,
                         plan.groups);
    else if ((result = zf_build_planned(mdev, &plan, metricCount, metrics, pMetricGroupNamePrefix, pDescription,
                                        phMetricGroup)) == ZE_RESULT_SUCCESS)
        *pMetricGroupCount = plan.groups;
    free(plan.bin);
    return result;
}
#endif
