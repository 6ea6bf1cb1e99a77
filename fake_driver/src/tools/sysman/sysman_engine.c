/* Engine groups (zes_api.h, "Engine groups"): one handle per engine of the device's queue groups and one per kind of
 * engine group. Activity counts the busy time of the device's engines since counting started (zeInit), in µs, with a
 * device-time timestamp in µs from the same start, as Intel's driver counts them; a group's active time is the sum of
 * its engines' divided by their number, the work of other processes on the card's same tiles included. docs/sysman.md.
 */
#include "core/zf_chain.h"
#include "tools/sysman/zf_sysman.h"

static zf_sm_engine *zf_sm_engine_from(zes_engine_handle_t handle) {
    return (zf_sm_engine *)handle;
}

ze_result_t zfi_zesDeviceEnumEngineGroups(zes_device_handle_t hDevice, uint32_t *pCount,
                                          zes_engine_handle_t *phEngine) {
    zf_sm_device *sm;
    ze_result_t result = zf_sm_device_of(hDevice, &sm);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    zf_sm_fill_handles(pCount, sm->num_engines, (void **)phEngine, sm->engines, sizeof sm->engines[0]);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zesEngineGetProperties(zes_engine_handle_t hEngine, zes_engine_properties_t *pProperties) {
    zf_sm_engine *engine = zf_sm_engine_from(hEngine);
    const zf_device *device = engine->owner->device;
    pProperties->type = engine->type;
    pProperties->onSubdevice = zf_sm_on_subdevice(device);
    pProperties->subdeviceId = zf_sm_subdevice_id(device);
    void *chain = zf_out_chain(pProperties, "pProperties", ZES_STRUCTURE_TYPE_ENGINE_PROPERTIES);
#if ZF_L0_AT_LEAST(7)
    /* zes_engine_ext_properties_t: no virtual function uses the engine actively (they run no work: sysman_vf.c). */
    zf_chain_foreach_out(ext, chain) {
        if ((uint32_t)ext->stype == ZES_STRUCTURE_TYPE_ENGINE_EXT_PROPERTIES)
            ((zes_engine_ext_properties_t *)ext)->countOfVirtualFunctionInstance = 0;
    }
#else
    (void)chain;
#endif
    return ZE_RESULT_SUCCESS;
}

static bool zf_sm_group_has(const zf_sm_engine *group, const zf_sm_engine *single) {
    switch (group->type) {
    case ZES_ENGINE_GROUP_COMPUTE_ALL:
        return single->type == ZES_ENGINE_GROUP_COMPUTE_SINGLE;
    case ZES_ENGINE_GROUP_COPY_ALL:
        return single->type == ZES_ENGINE_GROUP_COPY_SINGLE;
    default:
        return true;
    }
}

/* The busy time other processes ran on a group's kinds of engine of the device's tiles, their mean over the tiles
 * (lock held; docs/sysman.md, "Other processes"). */
static uint64_t zf_sm_others_busy(const zf_sm_engine *group) {
    const zf_sm_device *card = zf_sm_card_of(group->owner);
    uint32_t physical[ZF_SCENARIO_MAX_SUBDEVICES];
    uint32_t tiles = zf_sm_physical_tiles(group->owner->device, physical);
    uint64_t sum = 0;
    for (uint32_t t = 0; t < tiles; t++) {
        if (physical[t] >= ZF_SHARED_MAX_TILES)
            continue;
        if (group->type != ZES_ENGINE_GROUP_COPY_ALL)
            sum += card->others_ns[physical[t]][ZF_SHARED_COMPUTE];
        if (group->type != ZES_ENGINE_GROUP_COMPUTE_ALL)
            sum += card->others_ns[physical[t]][ZF_SHARED_COPY];
    }
    return sum / tiles;
}

/* Busy ns of an engine handle: its own, or its group's mean with the other processes' work (lock held). */
static uint64_t zf_sm_engine_busy(const zf_sm_engine *engine) {
    if (!engine->group)
        return engine->busy_ns;
    const zf_sm_device *sm = engine->owner;
    uint64_t sum = zf_sm_others_busy(engine);
    uint32_t members = 0;
    for (uint32_t i = 0; i < sm->num_engines; i++) {
        const zf_sm_engine *single = &sm->engines[i];
        if (!single->group && zf_sm_group_has(engine, single)) {
            sum += single->busy_ns;
            members++;
        }
    }
    return members > 0 ? sum / members : 0;
}

/* The activity zesEngineGetActivity answers (lock held). */
static zes_engine_stats_t zf_sm_engine_stats(zf_sm_engine *engine) {
    if (engine->group)
        zf_sm_import_peers(zf_sm_card_of(engine->owner), false);
    uint64_t active_us = zf_sm_engine_busy(engine) / 1000u;
    uint64_t stamp_us = zf_sm_device_ns(engine->owner) / 1000u;
    /* A command still running at the previous read is counted whole when it completes: the timestamp then advances
     * at least as much as the active time did, so utilisation between two reads never exceeds 1. */
    zf_sm_lift *lift = &engine->lift;
    uint64_t lifted = lift->stamp + (active_us - lift->count);
    if (stamp_us < lifted)
        stamp_us = lifted;
    *lift = (zf_sm_lift){active_us, stamp_us};
    return (zes_engine_stats_t){.activeTime = active_us, .timestamp = stamp_us};
}

ze_result_t zfi_zesEngineGetActivity(zes_engine_handle_t hEngine, zes_engine_stats_t *pStats) {
    zf_sm_lock();
    *pStats = zf_sm_engine_stats(zf_sm_engine_from(hEngine));
    zf_sm_unlock();
    return ZE_RESULT_SUCCESS;
}

#if ZF_L0_AT_LEAST(7)
/* ZES_extension_engine_activity: the physical function's activity first, as zesEngineGetActivity answers it, then
 * each virtual function of the card's (idle: they run no work, sysman_vf.c), with the same timestamp. */
ze_result_t zfi_zesEngineGetActivityExt(zes_engine_handle_t hEngine, uint32_t *pCount, zes_engine_stats_t *pStats) {
    zf_sm_engine *engine = zf_sm_engine_from(hEngine);
    uint32_t n = zf_count_query(pCount, 1 + zf_sm_card_of(engine->owner)->num_vfs, pStats);
    if (n == 0)
        return ZE_RESULT_SUCCESS;
    zf_sm_lock();
    pStats[0] = zf_sm_engine_stats(engine);
    zf_sm_unlock();
    for (uint32_t i = 1; i < n; i++)
        pStats[i] = (zes_engine_stats_t){.activeTime = 0, .timestamp = pStats[0].timestamp};
    return ZE_RESULT_SUCCESS;
}
#endif
