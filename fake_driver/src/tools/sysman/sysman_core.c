/* Sysman's state and its counting: enabled by zesInit, or by ZES_ENABLE_SYSMAN=1 at zeInit (docs/environment.md),
 * when every device's component handles are built and a permanent execution observer starts adding what each command
 * did to the counters of its device (docs/sysman.md). Counting covers the work of the calling process; the work of
 * other processes comes from the card's shared state, where every process, sysman enabled or not, publishes its
 * commands' busy time and its memory (docs/sysman.md, "Other processes"). */
#include "tools/sysman/zf_sysman.h"

#include "memory/zf_memory.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t zf_sm_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t zf_sm_enable_mutex = PTHREAD_MUTEX_INITIALIZER; /* zesInit and zeInit may race */
static zf_sm_device *zf_sm_devices;        /* every root device and its sub-devices; kept until unload */
static _Atomic uint32_t zf_sm_num_devices; /* stored (release) once zf_sm_devices is complete: 0 until enabled */
static zf_driver *zf_sm_the_driver;

void zf_sm_lock(void) {
    pthread_mutex_lock(&zf_sm_mutex);
}

void zf_sm_unlock(void) {
    pthread_mutex_unlock(&zf_sm_mutex);
}

int zf_sm_cond_timedwait(pthread_cond_t *cond, const struct timespec *deadline) {
    return pthread_cond_timedwait(cond, &zf_sm_mutex, deadline);
}

uint64_t zf_sm_host_us(void) {
    return zf_host_now_ns() / 1000u;
}

static zf_sm_device *zf_sm_find(const zf_device *device) {
    uint32_t n = atomic_load_explicit(&zf_sm_num_devices, memory_order_acquire);
    for (uint32_t i = 0; i < n; i++) {
        if (zf_sm_devices[i].device == device)
            return &zf_sm_devices[i];
    }
    return NULL;
}

zf_driver *zf_sm_driver(void) {
    return atomic_load_explicit(&zf_sm_num_devices, memory_order_acquire) > 0 ? zf_sm_the_driver : NULL;
}

ze_result_t zf_sm_require(void) {
    if (zf_sm_driver() == NULL)
        return zf_fail(ZE_RESULT_ERROR_UNINITIALIZED,
                       "sysman is not initialised: call zesInit, or set ZES_ENABLE_SYSMAN=1 before zeInit");
    return ZE_RESULT_SUCCESS;
}

ze_result_t zf_sm_device_of(zes_device_handle_t hDevice, zf_sm_device **out) {
    *out = zf_sm_find(zf_device_from(hDevice));
    if (*out == NULL)
        return zf_fail(ZE_RESULT_ERROR_UNINITIALIZED,
                       "sysman is not initialised: call zesInit, or set ZES_ENABLE_SYSMAN=1 before zeInit to use "
                       "device handles as sysman device handles");
    return ZE_RESULT_SUCCESS;
}

uint64_t zf_sm_device_ns(zf_sm_device *sm) {
    uint64_t now = zf_clock_now_ns(zf_device_clock(sm->device));
    if (now < sm->last_end_ns)
        now = sm->last_end_ns;
    return now > sm->start_ns ? now - sm->start_ns : 0;
}

bool zf_sm_device_busy(zf_sm_device *sm) {
    if (!zf_device_wait_idle(sm->device, 0))
        return true;
    zf_sm_lock();
    bool recent = sm->last_host_us != 0 && zf_sm_host_us() - sm->last_host_us < 1000u;
    zf_sm_unlock();
    return recent;
}

void zf_sm_fill_handles(uint32_t *pCount, uint32_t available, void **out, void *objects, size_t stride) {
    uint32_t n = zf_count_query(pCount, available, out);
    for (uint32_t i = 0; i < n; i++)
        out[i] = (char *)objects + i * stride;
}

void zf_sm_fill_card_and_tiles(uint32_t *pCount, void **out, zf_sm_device *sm, size_t member) {
    void *handles[1 + ZF_SCENARIO_MAX_SUBDEVICES];
    uint32_t available = 0;
    handles[available++] = (char *)sm + member;
    const zf_device *device = sm->device;
    for (uint32_t t = 0; !device->is_subdevice && t < device->num_subdevices; t++) {
        zf_sm_device *tile = zf_sm_find(&device->subdevices[t]);
        if (tile != NULL)
            handles[available++] = (char *)tile + member;
    }
    uint32_t n = zf_count_query(pCount, available, out);
    for (uint32_t i = 0; i < n; i++)
        out[i] = handles[i];
}

/* The engine handles of a device: one per engine of each queue group (compute groups first-class, copy groups as
 * copy engines), then one *_ALL group per kind present and ZES_ENGINE_GROUP_ALL. */
static void zf_sm_add_engine(zf_sm_device *sm, zes_engine_group_t type, bool group, uint32_t ordinal, uint32_t index) {
    zf_sm_engine *e = &sm->engines[sm->num_engines++];
    *e = (zf_sm_engine){.owner = sm, .type = type, .group = group, .ordinal = ordinal, .index = index};
}

static void zf_sm_build_engines(zf_sm_device *sm) {
    const zf_scenario_device *desc = sm->device->desc;
    bool compute = false, copy = false;
    for (uint32_t g = 0; g < desc->num_engine_groups; g++) {
        bool is_compute = (desc->engine_groups[g].flags & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE) != 0;
        compute |= is_compute;
        copy |= !is_compute;
        for (uint32_t i = 0; i < desc->engine_groups[g].num_queues && sm->num_engines + 3 < ZF_SM_MAX_ENGINES; i++)
            zf_sm_add_engine(sm, is_compute ? ZES_ENGINE_GROUP_COMPUTE_SINGLE : ZES_ENGINE_GROUP_COPY_SINGLE, false, g,
                             i);
    }
    if (compute)
        zf_sm_add_engine(sm, ZES_ENGINE_GROUP_COMPUTE_ALL, true, 0, 0);
    if (copy)
        zf_sm_add_engine(sm, ZES_ENGINE_GROUP_COPY_ALL, true, 0, 0);
    zf_sm_add_engine(sm, ZES_ENGINE_GROUP_ALL, true, 0, 0);
}

static bool zf_sm_register(zf_object *object, zf_obj_type type, zf_device *device) {
    return zf_object_register(object, type, &device->header);
}

static bool zf_sm_register_all(zf_sm_device *sm) {
    bool ok = true;
    for (uint32_t i = 0; i < sm->num_engines; i++)
        ok &= zf_sm_register(&sm->engines[i].header, ZF_OBJ_ZES_ENGINE, sm->device);
    for (uint32_t i = 0; i < sm->num_power; i++)
        ok &= zf_sm_register(&sm->power[i].header, ZF_OBJ_ZES_PWR, sm->device);
    ok &= zf_sm_register(&sm->memory.header, ZF_OBJ_ZES_MEM, sm->device);
    if (sm->num_firmware > 0)
        ok &= zf_sm_register(&sm->firmware.header, ZF_OBJ_ZES_FIRMWARE, sm->device);
    ok &= zf_sm_register(&sm->freq.header, ZF_OBJ_ZES_FREQ, sm->device);
    ok &= zf_sm_register(&sm->temp.header, ZF_OBJ_ZES_TEMP, sm->device);
    for (uint32_t i = 0; i < 2; i++)
        ok &= zf_sm_register(&sm->ras[i].header, ZF_OBJ_ZES_RAS, sm->device);
    ok &= zf_sm_register(&sm->perf.header, ZF_OBJ_ZES_PERF, sm->device);
    ok &= zf_sm_register(&sm->sched.header, ZF_OBJ_ZES_SCHED, sm->device);
    for (uint32_t t = 0; t < sm->num_tiles; t++)
        ok &= zf_sm_register(&sm->standby[t].header, ZF_OBJ_ZES_STANDBY, sm->device);
    return ok;
}

static bool zf_sm_build(zf_sm_device *sm, zf_device *device) {
    sm->device = device;
    sm->num_tiles = device->num_subdevices > 0 ? device->num_subdevices : 1;
    zf_sm_build_engines(sm);
    /* A sub-device's one domain is its tile; a root device's (a tile in FLAT mode too) is the card, then each of its
     * tiles. */
    sm->power[sm->num_power++] =
        (zf_sm_power){.owner = sm, .card = !zf_device_reported_as_subdevice(device), .threshold_pid = UINT32_MAX};
    for (uint32_t t = 0; device->num_subdevices > 0 && t < device->num_subdevices; t++)
        sm->power[sm->num_power++] = (zf_sm_power){.owner = sm, .card = false, .tile = t, .threshold_pid = UINT32_MAX};
    sm->memory.owner = sm;
    sm->firmware.owner = sm;
    sm->num_firmware = zf_device_reported_as_subdevice(device) ? 0 : 1;
    sm->freq.owner = sm;
    zf_sm_freq_limits(sm, &sm->freq.range.min, &sm->freq.range.max);
    zf_sm_oc_start(&sm->freq);
    sm->temp.owner = sm;
    sm->ras[0] = (zf_sm_ras){.owner = sm, .type = ZES_RAS_ERROR_TYPE_CORRECTABLE};
    sm->ras[1] = (zf_sm_ras){.owner = sm, .type = ZES_RAS_ERROR_TYPE_UNCORRECTABLE};
    sm->perf_factor = ZF_SM_PERF_NEUTRAL;
    sm->start_ns = zf_clock_now_ns(zf_device_clock(device));
    sm->start_host_us = zf_sm_host_us();
    zf_sm_temp_start(&sm->temp);
    zf_sm_power_start(sm);
    zf_sm_control_start(sm);
    bool ok = zf_sm_register_all(sm);
    ok &= zf_sm_diag_start(sm);
    ok &= zf_sm_vf_start(sm);
    return ok && zf_sm_board_start(sm);
}

/* Every device a handle can name, in any hierarchy mode: each card and each of its tiles. */
static uint32_t zf_sm_count_devices(const zf_driver *driver) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < driver->scenario.num_devices; i++)
        n += 1 + driver->devices[i].num_subdevices;
    return n;
}

/* Adds one command's busy time and bytes to a tile's work. */
static void zf_sm_add_tile(zf_sm_tile_work *tile, bool compute, uint64_t busy_ns, uint64_t read, uint64_t written,
                           uint32_t compute_mw) {
    if (compute)
        tile->compute_nj += busy_ns * compute_mw / 1000u;
    else
        tile->copy_ns += busy_ns;
    tile->bytes_read += read;
    tile->bytes_written += written;
}

/* A command of `sm`'s device on its tile `t` (busy_ns) also ran on the matching tile of its card or sub-device. */
static void zf_sm_add_work(zf_sm_device *sm, uint32_t t, bool compute, uint64_t busy_ns, uint64_t read,
                           uint64_t written, uint32_t compute_mw) {
    zf_sm_add_tile(&sm->tiles[t], compute, busy_ns, read, written, compute_mw);
    zf_device *device = sm->device;
    zf_sm_device *other = NULL;
    uint32_t other_tile = 0;
    if (device->is_subdevice) {
        other = zf_sm_find(device->root);
        other_tile = device->subdevice_id;
    } else if (device->num_subdevices > 0) {
        other = zf_sm_find(&device->subdevices[t]);
    }
    if (other != NULL && other_tile < other->num_tiles)
        zf_sm_add_tile(&other->tiles[other_tile], compute, busy_ns, read, written, compute_mw);
}

static zf_sm_engine *zf_sm_engine_of(zf_sm_device *sm, uint32_t ordinal, uint32_t index) {
    for (uint32_t i = 0; i < sm->num_engines; i++) {
        zf_sm_engine *e = &sm->engines[i];
        if (!e->group && e->ordinal == ordinal && e->index == index)
            return e;
    }
    return NULL;
}

zf_sm_device *zf_sm_card_of(zf_sm_device *sm) {
    zf_sm_device *card = sm->device->is_subdevice ? zf_sm_find(sm->device->root) : NULL;
    return card != NULL ? card : sm;
}

/* A compute command ran (lock held): at a clock below the domain's maximum after one that did not, the frequency
 * started being throttled (ZES_EVENT_TYPE_FLAG_FREQ_THROTTLED). */
static void zf_sm_note_clock(zf_sm_device *sm) {
    double min, max;
    zf_sm_freq_limits(sm, &min, &max);
    bool throttled = atomic_load_explicit(&sm->kernel_mhz, memory_order_relaxed) < (uint32_t)max;
    if (throttled && !sm->ran_throttled)
        zf_sm_raise(sm, ZES_EVENT_TYPE_FLAG_FREQ_THROTTLED);
    sm->ran_throttled = throttled;
}

static void zf_sm_observe(const zf_work_record *record, void *user_data) {
    zf_sm_lock();
    zf_sm_device *sm = zf_sm_find(record->device);
    if (sm == NULL || record->end_ns <= sm->start_ns) {
        zf_sm_unlock();
        return;
    }
    uint64_t start = record->start_ns > sm->start_ns ? record->start_ns : sm->start_ns;
    zf_sm_engine *engine = zf_sm_engine_of(sm, record->ordinal, record->index);
    if (engine != NULL)
        engine->busy_ns += record->end_ns - start;
    bool compute = engine == NULL || engine->type == ZES_ENGINE_GROUP_COMPUTE_SINGLE;
    zf_sm_device *card = zf_sm_card_of(sm);
    uint32_t compute_mw = zf_sm_compute_mw(card);
    if (compute && compute_mw < zf_sm_full_compute_mw(card))
        card->throttled_ns += record->end_ns - start;
    if (compute)
        zf_sm_note_clock(sm);
    uint32_t tiles = sm->num_tiles > 1 && record->tiles > 1 ? record->tiles : 1;
    for (uint32_t t = 0; t < tiles && t < sm->num_tiles; t++) {
        uint64_t busy = tiles > 1 ? record->tile_ns[t] : record->end_ns - start;
        zf_sm_add_work(sm, t, compute, busy, record->bytes_read / tiles, record->bytes_written / tiles, compute_mw);
    }
    if (record->faulted) {
        sm->faulted++;
        sm->lost += record->lost;
        zf_sm_raise(sm, ZES_EVENT_TYPE_FLAG_DEVICE_RESET_REQUIRED);
    }
    if (record->end_ns > sm->last_end_ns)
        sm->last_end_ns = record->end_ns;
    sm->last_host_us = zf_sm_host_us();
    zf_sm_check_all(); /* the card and its tiles drew the command's energy */
    zf_sm_unlock();
}

void zf_sm_check_all(void) {
    uint64_t now = zf_sm_host_us();
    uint32_t n = atomic_load_explicit(&zf_sm_num_devices, memory_order_relaxed);
    for (uint32_t i = 0; i < n; i++)
        zf_sm_check_thresholds(&zf_sm_devices[i], now);
}

void zf_sm_update_clocks(void) {
    uint32_t n = atomic_load_explicit(&zf_sm_num_devices, memory_order_relaxed);
    for (uint32_t i = 0; i < n; i++) {
        zf_sm_device *sm = &zf_sm_devices[i];
        atomic_store_explicit(&sm->kernel_mhz, (uint32_t)(zf_sm_busy_mhz(sm) + 0.5), memory_order_relaxed);
    }
}

/* The cost model's clock hook (docs/cost-model.md): the busy clock of the device's frequency domain. The device
 * list is complete before the hook is set, and never changes after. */
static uint32_t zf_sm_kernel_mhz(const zf_device *device) {
    const zf_sm_device *sm = zf_sm_find(device);
    return sm != NULL ? atomic_load_explicit(&sm->kernel_mhz, memory_order_relaxed) : 0;
}

uint32_t zf_sm_physical_tiles(const zf_device *device, uint32_t out[ZF_SCENARIO_MAX_SUBDEVICES]) {
    if (device->is_subdevice || device->num_subdevices == 0) {
        out[0] = zf_device_physical_tile(device);
        return 1;
    }
    for (uint32_t t = 0; t < device->num_subdevices; t++)
        out[t] = zf_device_physical_tile(&device->subdevices[t]);
    return device->num_subdevices;
}

static const zf_sm_peer *zf_sm_find_peer(const zf_sm_device *card, int32_t pid) {
    for (uint32_t i = 0; i < card->num_peers; i++) {
        if (card->peers[i].pid == pid)
            return &card->peers[i];
    }
    return NULL;
}

/* Adds what one other process ran since it was last read (all of it for a process new since counting started). */
static void zf_sm_add_peer(zf_sm_device *card, const zf_shared_process *p, bool baseline) {
    const zf_sm_peer *before = zf_sm_find_peer(card, p->pid);
    for (uint32_t t = 0; t < ZF_SHARED_MAX_TILES && !baseline; t++) {
        for (uint32_t k = 0; k < ZF_SHARED_KINDS; k++) {
            uint64_t last = before != NULL ? before->busy_ns[t][k] : 0;
            card->others_ns[t][k] += p->busy_ns[t][k] > last ? p->busy_ns[t][k] - last : 0;
        }
    }
}

void zf_sm_import_peers(zf_sm_device *card, bool baseline) {
    zf_card_share *shared = zf_device_shared(card->device);
    if (shared == NULL)
        return;
    zf_shared_process list[ZF_SHARED_MAX_PROCESSES];
    uint32_t found = zf_shared_processes(shared, list, ZF_SHARED_MAX_PROCESSES);
    zf_sm_peer now[ZF_SHARED_MAX_PROCESSES];
    uint32_t n = 0;
    for (uint32_t i = 0; i < found; i++) {
        if (list[i].pid == (int32_t)getpid())
            continue;
        zf_sm_add_peer(card, &list[i], baseline);
        now[n].pid = list[i].pid;
        memcpy(now[n].busy_ns, list[i].busy_ns, sizeof now[n].busy_ns);
        n++;
    }
    memcpy(card->peers, now, n * sizeof now[0]); /* processes gone are forgotten */
    card->num_peers = n;
}

/* Publishes a command's engine busy time per physical tile, and the memory the process holds, on the card's shared
 * state, so that monitors in other processes see them (docs/sysman.md, "Other processes"): in every process, with or
 * without ZES_ENABLE_SYSMAN. */
static void zf_sm_publish(const zf_work_record *record, void *user_data) {
    (void)user_data;
    zf_device *device = record->device;
    zf_card_share *shared = zf_device_shared(device);
    if (shared == NULL)
        return;
    const zf_scenario_device *d = device->desc;
    bool compute = record->ordinal < d->num_engine_groups &&
                   (d->engine_groups[record->ordinal].flags & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE) != 0;
    uint32_t physical[ZF_SCENARIO_MAX_SUBDEVICES];
    uint32_t tiles = zf_sm_physical_tiles(device, physical);
    tiles = record->tiles > 1 && record->tiles <= tiles ? record->tiles : 1;
    uint64_t start = record->start_ns < record->end_ns ? record->start_ns : record->end_ns;
    uint64_t busy[ZF_SHARED_MAX_TILES] = {0};
    for (uint32_t t = 0; t < tiles; t++) {
        if (physical[t] < ZF_SHARED_MAX_TILES)
            busy[physical[t]] += tiles > 1 ? record->tile_ns[t] : record->end_ns - start;
    }
    uint64_t used, capacity;
    zf_memory_device_usage(device->root, &used, &capacity);
    zf_shared_add_work(shared, busy, compute ? ZF_SHARED_COMPUTE : ZF_SHARED_COPY, used);
}

static bool zf_sm_enabled_by_env(void) {
    const char *value = getenv("ZES_ENABLE_SYSMAN");
    return value != NULL && strcmp(value, "1") == 0;
}

/* Builds the state of every device, each card and each of its tiles (any hierarchy mode names them), and starts
 * counting (enable mutex held). */
static ze_result_t zf_sm_build_all(zf_driver *driver) {
    uint32_t count = zf_sm_count_devices(driver);
    zf_sm_device *devices = calloc(count, sizeof *devices);
    if (devices == NULL)
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "sysman: no host memory for %u devices", count);
    uint32_t n = 0;
    bool ok = true;
    for (uint32_t i = 0; i < driver->scenario.num_devices; i++) {
        zf_device *root = &driver->devices[i];
        ok &= zf_sm_build(&devices[n++], root);
        for (uint32_t s = 0; s < root->num_subdevices; s++)
            ok &= zf_sm_build(&devices[n++], &root->subdevices[s]);
    }
    if (!ok)
        zf_log(ZF_LOG_ERROR, "sysman: no host memory to register its handles; some are not valid");
    zf_sm_lock();
    zf_sm_devices = devices;
    zf_sm_the_driver = driver;
    atomic_store_explicit(&zf_sm_num_devices, count, memory_order_release);
    zf_sm_update_clocks();
    for (uint32_t i = 0; i < count; i++)
        if (!devices[i].device->is_subdevice)
            zf_sm_import_peers(&devices[i], true);
    zf_sm_unlock();
    zf_cost_set_clock_hook(zf_sm_kernel_mhz);
    if (!zf_engine_add_observer(zf_sm_observe, NULL))
        zf_log(ZF_LOG_ERROR, "sysman: no execution observer slot is free; telemetry stays at idle");
    return ZE_RESULT_SUCCESS;
}

ze_result_t zf_sm_enable(zf_driver *driver) {
    pthread_mutex_lock(&zf_sm_enable_mutex);
    ze_result_t result = zf_sm_driver() == NULL ? zf_sm_build_all(driver) : ZE_RESULT_SUCCESS;
    pthread_mutex_unlock(&zf_sm_enable_mutex);
    return result;
}

/* zeInit: every process publishes its work for the monitors of other processes; with ZES_ENABLE_SYSMAN=1 sysman
 * starts here unless zesInit started it before. */
void zf_sm_start(zf_driver *driver) {
    static atomic_bool publishing;
    if (!atomic_exchange(&publishing, true) && !zf_engine_add_observer(zf_sm_publish, NULL))
        zf_log(ZF_LOG_ERROR, "sysman: no execution observer slot is free; other processes do not see this one's work");
    if (zf_sm_enabled_by_env() && zf_sm_enable(driver) != ZE_RESULT_SUCCESS)
        zf_log(ZF_LOG_ERROR, "sysman: ZES_ENABLE_SYSMAN=1, but sysman stays disabled (no host memory)");
}
