/* The metric system: built on the first metric call from the scenario's metric_groups, for every root device and
 * sub-device, and kept for the life of the driver (like the devices themselves).
 *
 * Building it also registers the execution observer, from which the counters start: work executed before the first
 * metric call is not counted. Counter values are differences in every calculation, so only raw snapshots (never
 * calculated values) depend on when that happened. */
#include "core/zf_core.h"
#include "tools/metrics/zf_metric.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct zf_metric_system {
    zf_driver *driver;
    uint32_t num_roots;
    zf_metric_device *roots; /* by root index; each owns its sub-devices' array */
} zf_metric_system;

static pthread_mutex_t zf_metric_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t zf_metric_init_mutex = PTHREAD_MUTEX_INITIALIZER;
static zf_metric_system *zf_system; /* set once, under the init mutex */

void zf_metric_lock(void) {
    pthread_mutex_lock(&zf_metric_mutex);
}

void zf_metric_unlock(void) {
    pthread_mutex_unlock(&zf_metric_mutex);
}

void zf_metric_wait(pthread_cond_t *cond, uint64_t deadline_ns) {
    struct timespec ts = {.tv_sec = (time_t)(deadline_ns / 1000000000u), .tv_nsec = (long)(deadline_ns % 1000000000u)};
    pthread_cond_timedwait(cond, &zf_metric_mutex, &ts);
}

zf_metric_device *zf_metric_device_of(const zf_device *device) {
    zf_metric_device *root = &zf_system->roots[device->root_index];
    return device->is_subdevice ? root->subs[device->subdevice_id] : root;
}

/* ---- Tiles ---------------------------------------------------------------------------------------------------- */

static zf_tile_shape zf_tile_shape_of(const zf_device *device) {
    const ze_device_properties_t *p = &device->properties;
    const zf_scenario_device *d = device->desc;
    zf_tile_shape shape = {.xve_count = (uint64_t)p->numSlices * p->numSubslicesPerSlice * p->numEUsPerSubslice,
                           .threads_per_xve = p->numThreadsPerEU,
                           .simd_width = p->physicalEUSimdWidth,
                           .core_mhz = p->coreClockRate,
                           .timer_hz = d->timer.frequency_hz};
    for (uint32_t i = 0; i < d->num_engine_groups; i++) {
        if (d->engine_groups[i].flags & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE)
            shape.compute_engines += d->engine_groups[i].num_queues;
        else
            shape.copy_engines += d->engine_groups[i].num_queues;
    }
    return shape;
}

static bool zf_tile_create(zf_metric_device *mdev) {
    zf_metric_tile *tile = calloc(1, sizeof *tile);
    mdev->tiles = calloc(1, sizeof *mdev->tiles);
    if (tile == NULL || mdev->tiles == NULL) {
        free(tile);
        return false;
    }
    tile->mdev = mdev;
    tile->tile_id = zf_device_reported_as_subdevice(mdev->device) ? mdev->device->subdevice_id : 0;
    tile->shape = zf_tile_shape_of(mdev->device);
    mdev->own_tile = tile;
    mdev->tiles[0] = tile;
    mdev->num_tiles = 1;
    return true;
}

/* ---- Metrics and groups --------------------------------------------------------------------------------------- */

void zf_copy_text(char *dst, size_t size, const char *src) {
    size_t n = strnlen(src, size - 1);
    memcpy(dst, src, n);
    dst[n] = '\0';
}

static bool zf_metric_register(zf_metric *metric, zf_metric_group *group) {
    metric->group = group;
    metric->mdev = group->mdev;
    metric->origin = ZF_METRIC_PREDEFINED;
    metric->floating = metric->value_type == ZET_VALUE_TYPE_FLOAT32 || metric->value_type == ZET_VALUE_TYPE_FLOAT64;
    return zf_object_register(&metric->header, ZF_OBJ_ZET_METRIC, &group->header);
}

bool zf_metric_compile(zf_metric *metric, zf_metric_format format, const char *formula, char *why, size_t why_size) {
    bool floating = metric->value_type == ZET_VALUE_TYPE_FLOAT32 || metric->value_type == ZET_VALUE_TYPE_FLOAT64;
    if (!zf_formula_compile(formula, strlen(formula), format, floating, metric->own_ops, ZF_FORMULA_MAX_OPS,
                            &metric->num_ops, why, why_size))
        return false;
    metric->ops = metric->own_ops;
    metric->formula = formula;
    return true;
}

static bool zf_metric_from_scenario(zf_metric *metric, zf_metric_group *group, const zf_scenario *s,
                                    const zf_scenario_metric *m) {
    zf_copy_text(metric->name, sizeof metric->name, zf_scenario_text(s, m->name));
    zf_copy_text(metric->description, sizeof metric->description, zf_scenario_text(s, m->description));
    zf_copy_text(metric->component, sizeof metric->component, zf_scenario_text(s, m->component));
    zf_copy_text(metric->units, sizeof metric->units, zf_scenario_text(s, m->units));
    metric->tier = m->tier;
    metric->type = m->type;
    metric->value_type = m->value_type;
    metric->ops = &s->metric_ops[m->first_op];
    metric->num_ops = m->num_ops;
    metric->formula = zf_scenario_text(s, m->formula_text);
    return zf_metric_register(metric, group);
}

/* Information entries are compiled here from the scenario module's table; they are known to compile. */
bool zf_metric_init_info(zf_metric *metric, zf_metric_group *group, const zf_metric_info_def *def) {
    zf_copy_text(metric->name, sizeof metric->name, def->name);
    zf_copy_text(metric->description, sizeof metric->description, def->description);
    zf_copy_text(metric->component, sizeof metric->component, "GPU");
    zf_copy_text(metric->units, sizeof metric->units, def->units);
    metric->tier = 1;
    metric->type = def->type;
    metric->value_type = def->value_type;
    char why[256];
    if (!zf_metric_compile(metric, group->format, def->formula, why, sizeof why)) {
        zf_log(ZF_LOG_ERROR, "information entry %s does not compile: %s", def->name, why);
        return false;
    }
    return zf_metric_register(metric, group);
}

uint32_t zf_metric_record_size(zf_metric_format format, zet_metric_group_sampling_type_flags_t sampling) {
    if (format == ZF_METRIC_FORMAT_EU_STALL)
        return ZF_EU_STALL_RECORD_SIZE;
    return sampling == ZET_METRIC_GROUP_SAMPLING_TYPE_FLAG_TIME_BASED ? ZF_OA_RECORD_SIZE : ZF_OA_QUERY_RECORD_SIZE;
}

static bool zf_group_build(zf_metric_group *group, zf_metric_device *mdev, const zf_scenario_metric_group *desc,
                           zet_metric_group_sampling_type_flags_t sampling) {
    const zf_scenario *s = &mdev->device->driver->scenario;
    group->mdev = mdev;
    group->desc = desc;
    zf_copy_text(group->name, sizeof group->name, zf_scenario_text(s, desc->name));
    zf_copy_text(group->description, sizeof group->description, zf_scenario_text(s, desc->description));
    group->sampling = sampling;
    group->domain = desc->domain;
    group->format = desc->format;
    group->record_size = zf_metric_record_size(desc->format, sampling);
    group->num_counters = desc->num_counters;
    memcpy(group->counters, desc->counters, sizeof group->counters);
    size_t num_info = 0;
    const zf_metric_info_def *info = zf_metric_info_defs(desc->format, sampling, &num_info);
    group->num_metrics = desc->num_metrics + (uint32_t)num_info;
    group->metrics = calloc(group->num_metrics, sizeof *group->metrics);
    group->list = calloc(group->num_metrics, sizeof *group->list);
    group->carry = calloc(mdev->num_tiles + 1u, sizeof *group->carry);
    if (group->metrics == NULL || group->list == NULL || group->carry == NULL)
        return false;
    for (uint32_t i = 0; i < group->num_metrics; i++)
        group->list[i] = &group->metrics[i];
    pthread_mutex_init(&group->carry_lock, NULL);
    pthread_rwlock_init(&group->list_lock, NULL);
    if (!zf_object_register(&group->header, ZF_OBJ_ZET_METRIC_GROUP, &mdev->device->header))
        return false;
    for (uint32_t i = 0; i < desc->num_metrics; i++) {
        if (!zf_metric_from_scenario(&group->metrics[i], group, s, &s->metrics[desc->first_metric + i]))
            return false;
    }
    for (size_t i = 0; i < num_info; i++) {
        if (!zf_metric_init_info(&group->metrics[desc->num_metrics + i], group, &info[i]))
            return false;
    }
    return true;
}

/* The device's tracer group (headers 1.10 and later: the tracer functions and their sampling type). */
#if ZF_L0_AT_LEAST(10)
#define ZF_TRACER_GROUPS 1u
#else
#define ZF_TRACER_GROUPS 0u
#endif

/* Calculation reads a device's tile ids and shapes as arrays (zf_calc_view). */
static bool zf_tile_arrays(zf_metric_device *mdev) {
    mdev->tile_ids = calloc(mdev->num_tiles, sizeof *mdev->tile_ids);
    mdev->shapes = calloc(mdev->num_tiles, sizeof *mdev->shapes);
    if (mdev->tile_ids == NULL || mdev->shapes == NULL)
        return false;
    for (uint32_t t = 0; t < mdev->num_tiles; t++) {
        mdev->tile_ids[t] = mdev->tiles[t]->tile_id;
        mdev->shapes[t] = mdev->tiles[t]->shape;
    }
    return true;
}

static uint32_t zf_groups_of_entry(const zf_scenario_metric_group *desc) {
    return ((desc->sampling & ZET_METRIC_GROUP_SAMPLING_TYPE_FLAG_TIME_BASED) ? 1u : 0u) +
           ((desc->sampling & ZET_METRIC_GROUP_SAMPLING_TYPE_FLAG_EVENT_BASED) ? 1u : 0u);
}

/* Enumeration order: entries with oa records first, then the others (EU stall), as Intel's driver lists them; each
 * entry gives its TIME_BASED group, then its EVENT_BASED one. */
static bool zf_groups_build(zf_metric_device *mdev) {
    const zf_scenario_device *d = mdev->device->desc;
    uint32_t total = ZF_TRACER_GROUPS;
    for (uint32_t i = 0; i < d->num_metric_groups; i++)
        total += zf_groups_of_entry(&d->metric_groups[i]);
    mdev->active = calloc(total > 0 ? total : 1, sizeof *mdev->active);
    mdev->groups = calloc(total > 0 ? total : 1, sizeof *mdev->groups);
    if (mdev->active == NULL || mdev->groups == NULL || !zf_tile_arrays(mdev))
        return false;
    static const zet_metric_group_sampling_type_flags_t order[2] = {ZET_METRIC_GROUP_SAMPLING_TYPE_FLAG_TIME_BASED,
                                                                    ZET_METRIC_GROUP_SAMPLING_TYPE_FLAG_EVENT_BASED};
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t i = 0; i < d->num_metric_groups; i++) {
            const zf_scenario_metric_group *desc = &d->metric_groups[i];
            if ((desc->format == ZF_METRIC_FORMAT_OA) != (pass == 0))
                continue;
            for (int k = 0; k < 2; k++) {
                if ((desc->sampling & order[k]) &&
                    !zf_group_build(&mdev->groups[mdev->num_groups++], mdev, desc, order[k]))
                    return false;
            }
        }
    }
#if ZF_L0_AT_LEAST(10)
    if (!zf_tracer_group_build(&mdev->groups[mdev->num_groups++], mdev))
        return false;
#endif
    return zf_programmables_build(mdev);
}

/* ---- Devices -------------------------------------------------------------------------------------------------- */

static bool zf_subdevice_build(zf_metric_device *root, uint32_t id) {
    zf_metric_device *sub = calloc(1, sizeof *sub);
    if (sub == NULL)
        return false;
    root->subs[id] = sub;
    root->tiles[id] = NULL;
    sub->device = &root->device->subdevices[id];
    sub->root = root;
    if (!zf_tile_create(sub))
        return false;
    root->tiles[id] = sub->own_tile;
    return zf_groups_build(sub);
}

static bool zf_root_build(zf_metric_device *root, zf_device *device) {
    root->device = device;
    root->root = root;
    if (device->num_subdevices == 0)
        return zf_tile_create(root) && zf_groups_build(root);
    root->subs = calloc(device->num_subdevices, sizeof *root->subs);
    root->tiles = calloc(device->num_subdevices, sizeof *root->tiles);
    if (root->subs == NULL || root->tiles == NULL)
        return false;
    root->num_tiles = device->num_subdevices;
    for (uint32_t i = 0; i < device->num_subdevices; i++) {
        if (!zf_subdevice_build(root, i))
            return false;
    }
    /* The root's groups frame per-tile data, so they are built once its tiles exist. */
    return zf_groups_build(root);
}

static zf_metric_system *zf_system_build(zf_driver *driver) {
    zf_metric_system *sys = calloc(1, sizeof *sys);
    if (sys == NULL)
        return NULL;
    sys->driver = driver;
    sys->num_roots = driver->scenario.num_devices;
    sys->roots = calloc(sys->num_roots, sizeof *sys->roots);
    if (sys->roots == NULL)
        return NULL;
    for (uint32_t i = 0; i < sys->num_roots; i++) {
        if (!zf_root_build(&sys->roots[i], &driver->devices[i]))
            return NULL;
    }
    return sys;
}

ze_result_t zf_metrics_init(void) {
    if (__atomic_load_n(&zf_system, __ATOMIC_ACQUIRE) != NULL)
        return ZE_RESULT_SUCCESS;
    pthread_mutex_lock(&zf_metric_init_mutex);
    ze_result_t result = ZE_RESULT_SUCCESS;
    if (zf_system == NULL) {
        /* A failed build leaves what it made registered and reachable: retrying would only fail again. */
        zf_metric_system *sys = zf_system_build(zf_driver_get());
        if (sys == NULL) {
            result = zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory for the metric groups");
        } else {
            if (!zf_engine_add_observer(zf_metric_observe, sys))
                zf_log(ZF_LOG_ERROR, "metrics: no execution observer slot is free; counters stay at zero");
            __atomic_store_n(&zf_system, sys, __ATOMIC_RELEASE);
        }
    }
    pthread_mutex_unlock(&zf_metric_init_mutex);
    return result;
}

/* A card whose state is shared in host clock mode publishes its work for the streamers of other processes
 * (docs/environment.md, "Processes"): its counters then run from zeInit, not from the first metric call. */
void zf_metrics_start_shared(zf_driver *driver) {
    for (uint32_t i = 0; i < driver->scenario.num_devices; i++) {
        const zf_device *device = &driver->devices[i];
        if (device->shared != NULL && zf_clock_follows_host(&device->clock)) {
            zf_metrics_init();
            return;
        }
    }
}

void zf_metrics_shutdown(void) {
    if (__atomic_load_n(&zf_system, __ATOMIC_ACQUIRE) == NULL)
        return;
    zf_engine_remove_observer(zf_metric_observe, zf_system);
    zf_streamers_shutdown();
}
