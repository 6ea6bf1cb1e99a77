/* Metric streamers: time-based sampling of a device's counters into a bounded buffer of raw reports.
 *
 * Reports are due at every multiple of the sampling period on the device clock (in ticks), idle periods included. A
 * report exists once the device has reached its time (zf_metric_horizon_ns; docs/metrics.md, "Which reports exist").
 * Reports are written when the device passes their time: after each executed command (by the execution observer),
 * when the host reads, when a marker executes, and, with a host clock and a notification event, by a thread of the
 * streamer while the device is idle. As the OA unit's buffer does, a full buffer loses its oldest reports to the new
 * ones, and the next read answers ZE_RESULT_WARNING_DROPPED_DATA. */
#include "core/zf_core.h"
#include "tools/metrics/zf_metric.h"

#include <stdlib.h>
#include <string.h>

#define ZF_STREAMER_MAX_NOTIFY 32768u /* capacity 2 x 32768 reports: 16 MiB of 256-byte reports per tile */
#define ZF_STREAMER_MIN_TICKS  2u     /* the shortest period the OA unit takes */
#define ZF_EU_SAMPLE_CYCLES    256u   /* XVE cycles per EU stall sample */
#define ZF_EU_IP_SLOTS         16u    /* instruction pointers the samples cycle through when no kernel is known */
#define ZF_EU_IP_UNIT          8u     /* bytes per IP unit: the address of IP n is 8 n */
#define ZF_IDLE_POLL_MIN       1000000u
#define ZF_IDLE_POLL_MAX       100000000u

struct zf_metric_streamer {
    zf_object header;
    zf_context *context;
    zf_metric_device *mdev;
    zf_metric_group *group;
    zf_event *event; /* may be NULL */
    uint64_t serial;
    uint64_t period_ticks;
    uint32_t capacity; /* reports per tile */
    uint64_t next_k;   /* the next report is due at next_k x period_ticks */
    uint64_t last_ns;  /* the time of the latest report written or dropped */
    uint16_t seq;
    uint32_t marker;
    bool dropped;
    uint32_t head;
    uint32_t count;
    uint8_t **rings;                   /* per tile: capacity records */
    uint64_t (*eu_prev)[ZF_SIG_COUNT]; /* EU stall: the signals at the previous sample, per tile */
    bool thread_started;
    bool stop;
    pthread_t thread;
    pthread_cond_t wake;
    struct zf_metric_streamer *next;
};

static zf_metric_streamer *zf_streamers; /* open streamers; guarded by the metric lock */
static uint64_t zf_streamer_serial;

static zf_metric_streamer *zf_streamer_from(zet_metric_streamer_handle_t handle) {
    return (zf_metric_streamer *)handle;
}

static uint64_t zf_report_ns(const zf_metric_streamer *s, uint64_t k) {
    return zf_metric_ticks_to_ns(s->mdev, k * s->period_ticks);
}

/* ---- Writing reports ------------------------------------------------------------------------------------------ */

static uint32_t zf_timestamp_bits(const zf_metric_streamer *s) {
    return s->mdev->device->desc->metric_options.timestamp_valid_bits;
}

typedef struct zf_snapshot_info {
    uint16_t seq;
    uint8_t reason;
    uint32_t marker;
    uint64_t ns;
} zf_snapshot_info;

static void zf_write_oa_snapshot(uint8_t *rec, const zf_metric_streamer *s, const zf_metric_tile *tile,
                                 const zf_snapshot_info *info) {
    uint64_t sig[ZF_SIG_COUNT];
    zf_tile_signals_at(tile, info->ns, sig);
    uint32_t context = 0;
    bool valid = zf_tile_context_at(tile, info->ns, &context);
    memset(rec, 0, ZF_OA_RECORD_SIZE);
    zf_le32_put(rec + ZF_OA_OFF_HEADER, info->seq | (uint32_t)info->reason << 16 | (valid ? ZF_OA_CONTEXT_VALID : 0u));
    zf_le32_put(rec + ZF_OA_OFF_CONTEXT, context);
    zf_le64_put(rec + ZF_OA_OFF_TIMESTAMP,
                zf_clock_mask(zf_metric_ns_to_ticks(s->mdev, info->ns), zf_timestamp_bits(s)));
    zf_le32_put(rec + ZF_OA_OFF_GPU_TICKS, (uint32_t)sig[ZF_SIG_GPU_CLOCKS]);
    zf_le32_put(rec + ZF_OA_OFF_MARKER, info->marker);
    for (int signal = 0; signal < ZF_SIG_COUNT; signal++) {
        uint32_t slot = zf_signal_a_slot((zf_metric_signal)signal);
        zf_le32_put(rec + ZF_OA_OFF_A_LOW + 4 * slot, (uint32_t)sig[signal]);
        rec[ZF_OA_OFF_A_HIGH + slot] = (uint8_t)(sig[signal] >> 32);
    }
    for (uint32_t i = 0; i < ZF_OA_FLEX_COUNTERS; i++)
        zf_le32_put(rec + ZF_OA_OFF_B + 4 * i, (uint32_t)zf_flex_counter(s->group, i, sig));
}

/* The slot of the next report in every tile's ring: a full buffer loses its oldest report. */
static uint32_t zf_streamer_slot(zf_metric_streamer *s) {
    if (s->count == s->capacity) {
        s->dropped = true;
        s->head = (s->head + 1) % s->capacity;
        s->count--;
    }
    return (s->head + s->count++) % s->capacity;
}

static void zf_streamer_write_oa(zf_metric_streamer *s, uint64_t ns, uint8_t reason) {
    zf_snapshot_info info = {.seq = s->seq++, .reason = reason, .marker = s->marker, .ns = ns};
    s->last_ns = ns;
    uint32_t slot = zf_streamer_slot(s);
    for (uint32_t t = 0; t < s->mdev->num_tiles; t++)
        zf_write_oa_snapshot(s->rings[t] + (size_t)slot * ZF_OA_RECORD_SIZE, s, s->mdev->tiles[t], &info);
}

/* More reports due than the buffer holds: those that the last `capacity` of them would overwrite are lost at once,
 * with every report the buffer held (sequence numbers still count them). */
static void zf_streamer_skip_lost(zf_metric_streamer *s, uint64_t last_k) {
    uint64_t due = last_k - s->next_k + 1;
    if (due <= s->capacity)
        return;
    uint64_t lost = due - s->capacity;
    s->seq = (uint16_t)(s->seq + lost);
    s->next_k += lost;
    s->head = 0;
    s->count = 0;
    s->dropped = true;
}

/* Samples of a cumulative XVE cycle count between two snapshots. */
static uint64_t zf_eu_samples(uint64_t now, uint64_t before) {
    return now / ZF_EU_SAMPLE_CYCLES - before / ZF_EU_SAMPLE_CYCLES;
}

/* The IP of sample k of a tile: instruction k mod n of one of the kernels of the latest command that ran kernels on
 * the tile (the k-th of them in turn), as an address in 8-byte units (docs/metrics.md, "Kernel addresses"). */
static uint64_t zf_eu_ip(const zf_metric_tile *tile, uint64_t k, uint64_t ns) {
    zf_kernel_code kernels[ZF_KERNEL_CODE_MAX];
    uint32_t n = zf_tile_kernels_at(tile, ns, kernels);
    if (n == 0)
        return (k % ZF_EU_IP_SLOTS) * 16u;
    const zf_kernel_code *code = &kernels[k % n];
    uint64_t address = code->base + (k % code->instructions) * ZF_KERNEL_INSTRUCTION_BYTES;
    return address / ZF_EU_IP_UNIT;
}

static void zf_write_eu_record(uint8_t *rec, const zf_metric_streamer *s, const zf_metric_tile *tile, uint64_t k,
                               uint64_t ns, uint64_t active, uint64_t stall) {
    /* Stall samples in fixed shares: control 1/8, pipe 1/4, send 3/8, dist 0, sbid 1/8, sync 1/16, instfetch 1/16,
     * other the rest. */
    uint32_t counts[ZF_EU_STALL_REASONS] = {(uint32_t)active,
                                            (uint32_t)(stall / 8),
                                            (uint32_t)(stall / 4),
                                            (uint32_t)(stall / 8 * 3),
                                            0,
                                            (uint32_t)(stall / 8),
                                            (uint32_t)(stall / 16),
                                            (uint32_t)(stall / 16),
                                            0};
    uint64_t attributed = 0;
    for (uint32_t i = 1; i < ZF_EU_STALL_REASONS - 1; i++)
        attributed += counts[i];
    counts[ZF_EU_STALL_REASONS - 1] = (uint32_t)(stall - attributed);
    memset(rec, 0, ZF_EU_STALL_RECORD_SIZE);
    zf_le64_put(rec + ZF_EU_OFF_IP, zf_eu_ip(tile, k, ns));
    for (uint32_t i = 0; i < ZF_EU_STALL_REASONS; i++)
        zf_le32_put(rec + ZF_EU_OFF_COUNTS + 4 * i, counts[i]);
    zf_le32_put(rec + ZF_EU_OFF_TILE, tile->tile_id);
    zf_le64_put(rec + ZF_EU_OFF_TIMESTAMP, zf_clock_mask(zf_metric_ns_to_ticks(s->mdev, ns), zf_timestamp_bits(s)));
}

/* One EU stall sample at report k: a record per tile when any tile had XVE activity since the previous sample. */
static void zf_streamer_sample_eu(zf_metric_streamer *s, uint64_t k, uint64_t ns) {
    uint64_t active[ZF_SCENARIO_MAX_SUBDEVICES] = {0}, stall[ZF_SCENARIO_MAX_SUBDEVICES] = {0};
    bool any = false;
    for (uint32_t t = 0; t < s->mdev->num_tiles; t++) {
        uint64_t now[ZF_SIG_COUNT];
        zf_tile_signals_at(s->mdev->tiles[t], ns, now);
        active[t] = zf_eu_samples(now[ZF_SIG_XVE_ACTIVE], s->eu_prev[t][ZF_SIG_XVE_ACTIVE]);
        stall[t] = zf_eu_samples(now[ZF_SIG_XVE_STALL], s->eu_prev[t][ZF_SIG_XVE_STALL]);
        any = any || active[t] > 0 || stall[t] > 0;
        memcpy(s->eu_prev[t], now, sizeof now);
    }
    s->last_ns = ns;
    if (!any)
        return;
    uint32_t slot = zf_streamer_slot(s);
    for (uint32_t t = 0; t < s->mdev->num_tiles; t++)
        zf_write_eu_record(s->rings[t] + (size_t)slot * ZF_EU_STALL_RECORD_SIZE, s, s->mdev->tiles[t], k, ns, active[t],
                           stall[t]);
}

static bool zf_streamer_tiles_active_after(const zf_metric_streamer *s, uint64_t ns) {
    for (uint32_t t = 0; t < s->mdev->num_tiles; t++) {
        if (zf_tile_active_after(s->mdev->tiles[t], ns))
            return true;
    }
    return false;
}

/* An idle EU stall stream has nothing to sample: jump to the last due report. */
static void zf_streamer_skip_idle(zf_metric_streamer *s, uint64_t last_k) {
    s->next_k = last_k + 1;
    s->last_ns = zf_report_ns(s, last_k);
    for (uint32_t t = 0; t < s->mdev->num_tiles; t++)
        zf_tile_signals_at(s->mdev->tiles[t], s->last_ns, s->eu_prev[t]);
}

static bool zf_streamer_uses_tile(const zf_metric_streamer *s, const zf_metric_tile *tile) {
    for (uint32_t t = 0; t < s->mdev->num_tiles; t++) {
        if (s->mdev->tiles[t] == tile)
            return true;
    }
    return false;
}

/* Work that ended before every streamer of a tile wrote its latest report is counted in full from now on. */
static void zf_tile_fold_for_streamers(zf_metric_tile *tile) {
    uint64_t limit = UINT64_MAX;
    for (const zf_metric_streamer *s = zf_streamers; s != NULL; s = s->next) {
        if (zf_streamer_uses_tile(s, tile) && s->last_ns < limit)
            limit = s->last_ns;
    }
    zf_tile_fold(tile, limit);
}

/* Writes every report due up to `horizon_ns`. */
static void zf_streamer_materialise(zf_metric_streamer *s, uint64_t horizon_ns) {
    zf_metric_import(s->mdev->root); /* what other processes ran on the card counts too */
    zf_metric_follow_clock(s->mdev->root, horizon_ns);
    uint64_t last_k = zf_metric_ns_to_ticks(s->mdev, horizon_ns) / s->period_ticks;
    if (s->group->format == ZF_METRIC_FORMAT_OA && s->next_k <= last_k)
        zf_streamer_skip_lost(s, last_k);
    while (s->next_k <= last_k) {
        uint64_t ns = zf_report_ns(s, s->next_k);
        if (s->group->format == ZF_METRIC_FORMAT_OA) {
            zf_streamer_write_oa(s, ns, ZF_OA_REASON_TIMER);
        } else {
            if (!zf_streamer_tiles_active_after(s, s->last_ns)) {
                zf_streamer_skip_idle(s, last_k);
                break;
            }
            zf_streamer_sample_eu(s, s->next_k, ns);
        }
        s->next_k++;
    }
    for (uint32_t t = 0; t < s->mdev->num_tiles; t++)
        zf_tile_fold_for_streamers(s->mdev->tiles[t]);
}

/* The notification event is signalled whenever a report is readable (as with Intel's driver); the application
 * resets it. */
static void zf_streamer_notify(zf_metric_streamer *s) {
    if (s->event == NULL || s->count == 0 || !zf_handle_is_live(s->event, ZF_OBJ_ZE_EVENT))
        return;
    zf_sync_lock();
    if (!s->event->signaled) {
        s->event->signal_ns = s->last_ns;
        s->event->start_ns = s->last_ns;
        s->event->end_ns = s->last_ns;
        s->event->timestamp_device = s->mdev->device;
        s->event->signaled = true; /* last: see zf_event */
        zf_sync_broadcast();
    }
    zf_sync_unlock();
}

void zf_streamers_advance(zf_metric_device *root) {
    for (zf_metric_streamer *s = zf_streamers; s != NULL; s = s->next) {
        if (s->mdev->root != root)
            continue;
        zf_streamer_materialise(s, zf_metric_horizon_ns(root));
        zf_streamer_notify(s);
    }
}

/* ---- Idle sampling of a host clock
 * ----------------------------------------------------------------------------------- */

static void *zf_streamer_thread(void *arg) {
    zf_metric_streamer *s = arg;
    uint64_t period_ns = zf_metric_ticks_to_ns(s->mdev, s->period_ticks);
    uint64_t poll = period_ns < ZF_IDLE_POLL_MIN   ? ZF_IDLE_POLL_MIN
                    : period_ns > ZF_IDLE_POLL_MAX ? ZF_IDLE_POLL_MAX
                                                   : period_ns;
    zf_metric_lock();
    while (!s->stop) {
        zf_streamer_materialise(s, zf_metric_horizon_ns(s->mdev->root));
        zf_streamer_notify(s);
        zf_metric_wait(&s->wake, zf_host_now_ns() + poll);
    }
    zf_metric_unlock();
    return NULL;
}

static void zf_streamer_start_thread(zf_metric_streamer *s) {
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&s->wake, &attr);
    pthread_condattr_destroy(&attr);
    if (!zf_clock_follows_host(zf_device_clock(s->mdev->device)) || s->event == NULL)
        return;
    s->thread_started = pthread_create(&s->thread, NULL, zf_streamer_thread, s) == 0;
    if (!s->thread_started)
        zf_log(ZF_LOG_WARN, "metrics: no thread for idle sampling; reports appear when work runs or on reads");
}

/* Stops the thread; returns whether there is one to join (the caller joins it without the lock). */
static bool zf_streamer_stop_thread(zf_metric_streamer *s) {
    s->stop = true;
    pthread_cond_broadcast(&s->wake);
    return s->thread_started;
}

void zf_streamers_shutdown(void) {
    zf_metric_lock();
    for (zf_metric_streamer *s = zf_streamers; s != NULL; s = s->next) {
        if (!zf_streamer_stop_thread(s))
            continue;
        zf_metric_unlock();
        pthread_join(s->thread, NULL);
        zf_metric_lock();
        s->thread_started = false;
    }
    zf_metric_unlock();
}

/* ---- Open ----------------------------------------------------------------------------------------------------- */

static uint64_t zf_pow2_floor(uint64_t x) {
    uint64_t p = 1;
    while (p <= x / 2)
        p *= 2;
    return p;
}

/* The longest period over which no counter can wrap twice: the fastest A counter (thread cycles of every compute
 * engine of a tile) at 40 bits, the GPU clock at 32 bits and the timestamp at its valid bits. */
static uint64_t zf_max_period_ticks(const zf_metric_device *mdev) {
    const zf_tile_shape *shape = &mdev->tiles[0]->shape;
    unsigned __int128 rate = (unsigned __int128)shape->xve_count * shape->threads_per_xve * shape->core_mhz *
                             (shape->compute_engines > 0 ? shape->compute_engines : 1);
    unsigned __int128 a_ns = rate > 0 ? ((unsigned __int128)1 << 40) * 1000u / rate : UINT64_MAX;
    unsigned __int128 clock_ns = ((unsigned __int128)1 << 32) * 1000u / (shape->core_mhz > 0 ? shape->core_mhz : 1);
    unsigned __int128 ns = a_ns < clock_ns ? a_ns : clock_ns;
    uint64_t ticks = zf_metric_ns_to_ticks(mdev, ns > UINT64_MAX ? UINT64_MAX : (uint64_t)ns);
    uint32_t bits = mdev->device->desc->metric_options.timestamp_valid_bits;
    uint64_t half_wrap = UINT64_C(1) << (bits - 1);
    ticks = ticks < half_wrap ? ticks : half_wrap;
    return zf_pow2_floor(ticks > ZF_STREAMER_MIN_TICKS ? ticks : ZF_STREAMER_MIN_TICKS);
}

/* The OA unit samples at power-of-two multiples of the timestamp tick: the period is rounded down to one (between
 * the shortest and the longest the model allows) and written back, rounded up to whole ns. */
static uint64_t zf_round_period(const zf_metric_device *mdev, zet_metric_streamer_desc_t *desc) {
    uint64_t requested = zf_metric_ns_to_ticks(mdev, desc->samplingPeriod);
    uint64_t ticks = zf_pow2_floor(requested > ZF_STREAMER_MIN_TICKS ? requested : ZF_STREAMER_MIN_TICKS);
    uint64_t longest = zf_max_period_ticks(mdev);
    ticks = ticks < longest ? ticks : longest;
    uint64_t ns = zf_metric_ticks_to_ns(mdev, ticks);
    desc->samplingPeriod = ns > UINT32_MAX ? UINT32_MAX : (uint32_t)ns;
    return ticks;
}

/* notifyEveryNReports becomes a power of two in 1..32768; the buffer holds twice as many reports. */
static uint32_t zf_round_notify(zet_metric_streamer_desc_t *desc) {
    uint32_t n = 1;
    while (n < desc->notifyEveryNReports && n < ZF_STREAMER_MAX_NOTIFY)
        n *= 2;
    desc->notifyEveryNReports = n;
    return 2 * n;
}

static ze_result_t zf_check_open_arguments(zf_context *context, zf_metric_device *mdev, const zf_metric_group *group,
                                           const zet_metric_streamer_desc_t *desc, ze_event_handle_t event) {
    ze_result_t target = zf_metric_check_target(context, mdev, group);
    if (target != ZE_RESULT_SUCCESS)
        return target;
    if (desc->stype != 0 && desc->stype != ZET_STRUCTURE_TYPE_METRIC_STREAMER_DESC)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "desc->stype is 0x%x, not METRIC_STREAMER_DESC",
                       (unsigned)desc->stype);
    if (event == NULL)
        return ZE_RESULT_SUCCESS;
    const zf_event_pool *pool = zf_event_from(event)->pool;
    if (pool->context != context)
        return zf_fail(ZE_RESULT_ERROR_INVALID_SYNCHRONIZATION_OBJECT, "hNotificationEvent belongs to another context");
    if (!(pool->flags & ZE_EVENT_POOL_FLAG_HOST_VISIBLE))
        return zf_fail(ZE_RESULT_ERROR_INVALID_SYNCHRONIZATION_OBJECT,
                       "hNotificationEvent's pool was not created with ZE_EVENT_POOL_FLAG_HOST_VISIBLE");
    return ZE_RESULT_SUCCESS;
}

/* The checks of Intel's driver, in its order (docs/metrics.md); lock held. */
static ze_result_t zf_check_open_state(const zf_metric_device *mdev, const zf_metric_group *group) {
    for (uint32_t t = 0; t < mdev->num_tiles; t++) {
        const zf_domain_use *use = zf_tile_domain_use(mdev->tiles[t], group->domain, false);
        if (use != NULL && use->streamer != NULL)
            return zf_fail(ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE,
                           "a streamer of domain %u is already open on the device", group->domain);
    }
    for (uint32_t t = 0; t < mdev->num_tiles; t++) {
        const zf_domain_use *use = zf_tile_domain_use(mdev->tiles[t], group->domain, false);
        if (use != NULL && use->pools > 0)
            return zf_fail(ZE_RESULT_ERROR_NOT_AVAILABLE,
                           "metric query pools of domain %u exist on the device: destroy them first", group->domain);
    }
    if (group->sampling != ZET_METRIC_GROUP_SAMPLING_TYPE_FLAG_TIME_BASED)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "%s is not a TIME_BASED group: streamers need one",
                       group->name);
    if (!zf_metric_group_is_active(group))
        return zf_fail(ZE_RESULT_NOT_READY, "%s is not activated on the device (zetContextActivateMetricGroups)",
                       group->name);
    return ZE_RESULT_SUCCESS;
}

static void zf_streamer_free(zf_metric_streamer *s) {
    if (s->rings != NULL) {
        for (uint32_t t = 0; t < s->mdev->num_tiles; t++)
            free(s->rings[t]);
    }
    free(s->rings);
    free(s->eu_prev);
    free(s);
}

static zf_metric_streamer *zf_streamer_alloc(zf_metric_device *mdev, zf_metric_group *group, uint32_t capacity) {
    zf_metric_streamer *s = calloc(1, sizeof *s);
    if (s == NULL)
        return NULL;
    s->mdev = mdev;
    s->group = group;
    s->capacity = capacity;
    s->rings = calloc(mdev->num_tiles, sizeof *s->rings);
    s->eu_prev = calloc(mdev->num_tiles, sizeof *s->eu_prev);
    if (s->rings == NULL || s->eu_prev == NULL) {
        zf_streamer_free(s);
        return NULL;
    }
    for (uint32_t t = 0; t < mdev->num_tiles; t++) {
        if ((s->rings[t] = malloc((size_t)capacity * group->record_size)) == NULL) {
            zf_streamer_free(s);
            return NULL;
        }
    }
    return s;
}

/* Claims the domain on every tile and starts the report schedule at the device's horizon; lock held. */
static bool zf_streamer_attach(zf_metric_streamer *s) {
    zf_metric_device *mdev = s->mdev;
    for (uint32_t t = 0; t < mdev->num_tiles; t++) {
        if (zf_tile_domain_use(mdev->tiles[t], s->group->domain, true) == NULL)
            return false;
    }
    zf_metric_import(mdev->root); /* from now on, other processes' work is imported */
    uint64_t start = zf_metric_horizon_ns(mdev);
    for (uint32_t t = 0; t < mdev->num_tiles; t++) {
        zf_metric_tile *tile = mdev->tiles[t];
        zf_tile_domain_use(tile, s->group->domain, false)->streamer = s;
        tile->streamers++;
        zf_tile_signals_at(tile, start, s->eu_prev[t]);
    }
    s->next_k = zf_metric_ns_to_ticks(mdev, start) / s->period_ticks + 1;
    s->last_ns = start;
    s->serial = ++zf_streamer_serial;
    s->next = zf_streamers;
    zf_streamers = s;
    s->group->users++; /* a user-created group keeps its metrics while streamed */
    return true;
}

ze_result_t zfi_zetMetricStreamerOpen(zet_context_handle_t hContext, zet_device_handle_t hDevice,
                                      zet_metric_group_handle_t hMetricGroup, zet_metric_streamer_desc_t *desc,
                                      ze_event_handle_t hNotificationEvent,
                                      zet_metric_streamer_handle_t *phMetricStreamer) {
    ze_result_t result = zf_metrics_init();
    if (result != ZE_RESULT_SUCCESS)
        return result;
    zf_context *context = zf_context_from(hContext);
    zf_metric_device *mdev = zf_metric_device_of(zf_device_from(hDevice));
    zf_metric_group *group = zf_metric_group_from(hMetricGroup);
    result = zf_check_open_arguments(context, mdev, group, desc, hNotificationEvent);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    zf_metric_lock();
    result = zf_check_open_state(mdev, group);
    if (result != ZE_RESULT_SUCCESS) {
        zf_metric_unlock();
        return result;
    }
    uint64_t period = zf_round_period(mdev, desc);
    zf_metric_streamer *s = zf_streamer_alloc(mdev, group, zf_round_notify(desc));
    if (s != NULL) {
        s->context = context;
        s->event = zf_event_from(hNotificationEvent);
        s->period_ticks = period;
    }
    if (s == NULL || !zf_object_register(&s->header, ZF_OBJ_ZET_METRIC_STREAMER, &context->header)) {
        zf_metric_unlock();
        if (s != NULL)
            zf_streamer_free(s);
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory for the streamer's buffer");
    }
    if (!zf_streamer_attach(s)) {
        zf_metric_unlock();
        zf_object_unregister(&s->header);
        zf_streamer_free(s);
        return zf_fail(ZE_RESULT_ERROR_NOT_AVAILABLE, "more than %d metric domains in use on a tile",
                       ZF_MAX_DOMAIN_USES);
    }
    zf_metric_group_reset_carry(group);
    zf_streamer_start_thread(s);
    zf_metric_unlock();
    *phMetricStreamer = (zet_metric_streamer_handle_t)s;
    return ZE_RESULT_SUCCESS;
}

/* ---- Close ---------------------------------------------------------------------------------------------------- */

static void zf_streamer_detach(zf_metric_streamer *s) {
    s->group->users--;
    for (zf_metric_streamer **p = &zf_streamers; *p != NULL; p = &(*p)->next) {
        if (*p == s) {
            *p = s->next;
            break;
        }
    }
    for (uint32_t t = 0; t < s->mdev->num_tiles; t++) {
        zf_metric_tile *tile = s->mdev->tiles[t];
        zf_tile_domain_use(tile, s->group->domain, false)->streamer = NULL;
        tile->streamers--;
        zf_tile_fold_for_streamers(tile);
    }
}

ze_result_t zfi_zetMetricStreamerClose(zet_metric_streamer_handle_t hMetricStreamer) {
    zf_metric_streamer *s = zf_streamer_from(hMetricStreamer);
    zf_object_unregister(&s->header);
    zf_metric_lock();
    zf_streamer_detach(s);
    bool join = zf_streamer_stop_thread(s);
    zf_metric_unlock();
    if (join)
        pthread_join(s->thread, NULL);
    pthread_cond_destroy(&s->wake);
    for (uint32_t t = 0; t < s->mdev->num_tiles; t++)
        free(s->rings[t]);
    free(s->rings);
    free(s->eu_prev);
    s->rings = NULL;
    s->eu_prev = NULL;
    zf_object_retire(&s->header);
    return ZE_RESULT_SUCCESS;
}

/* ---- Read ----------------------------------------------------------------------------------------------------- */

static size_t zf_streamer_bytes(const zf_metric_streamer *s, uint32_t reports) {
    return zf_frame_header_size(s->mdev->num_tiles) + (size_t)reports * s->mdev->num_tiles * s->group->record_size;
}

/* The number of reports that fit in `size` bytes (for every tile, with the frame header of a multi-tile card). */
static uint32_t zf_reports_fitting(const zf_metric_streamer *s, size_t size) {
    size_t header = zf_frame_header_size(s->mdev->num_tiles);
    if (size <= header)
        return 0;
    size_t per_report = (size_t)s->mdev->num_tiles * s->group->record_size;
    size_t n = (size - header) / per_report;
    return n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

/* Moves the n oldest reports out of the rings: per tile, one after the other, in a frame on a multi-tile card. */
static void zf_streamer_copy_out(zf_metric_streamer *s, uint32_t n, uint8_t *out) {
    uint32_t tiles = s->mdev->num_tiles, rs = s->group->record_size;
    size_t header = zf_frame_header_size(tiles), section = (size_t)n * rs;
    if (tiles > 1)
        zf_frame_write_header(out, s->mdev, section);
    for (uint32_t t = 0; t < tiles; t++) {
        uint8_t *dst = out + header + t * section;
        for (uint32_t i = 0; i < n; i++)
            memcpy(dst + (size_t)i * rs, s->rings[t] + (size_t)((s->head + i) % s->capacity) * rs, rs);
    }
    s->head = (s->head + n) % s->capacity;
    s->count -= n;
}

ze_result_t zfi_zetMetricStreamerReadData(zet_metric_streamer_handle_t hMetricStreamer, uint32_t maxReportCount,
                                          size_t *pRawDataSize, uint8_t *pRawData) {
    zf_metric_streamer *s = zf_streamer_from(hMetricStreamer);
    zf_metric_lock();
    zf_streamer_materialise(s, zf_metric_horizon_ns(s->mdev->root));
    /* Size 0 asks for the buffer's capacity (Intel's answer): more reports may arrive before the real read. */
    if (*pRawDataSize == 0 || pRawData == NULL) {
        *pRawDataSize = zf_streamer_bytes(s, s->capacity);
        zf_metric_unlock();
        return ZE_RESULT_SUCCESS;
    }
    uint32_t n = s->count < maxReportCount ? s->count : maxReportCount;
    uint32_t fitting = zf_reports_fitting(s, *pRawDataSize);
    n = n < fitting ? n : fitting;
    *pRawDataSize = n > 0 ? zf_streamer_bytes(s, n) : 0;
    if (n > 0)
        zf_streamer_copy_out(s, n, pRawData);
    bool dropped = s->dropped;
    s->dropped = false;
    uint64_t seen_ns = s->last_ns;
    zf_clock *clock = zf_device_clock(s->mdev->device);
    zf_metric_unlock();
    /* The host has seen the device at the time of the latest report: the clock never reads earlier again. */
    zf_clock_observe(clock, seen_ns);
    return dropped ? ZE_RESULT_WARNING_DROPPED_DATA : ZE_RESULT_SUCCESS;
}

/* ---- Markers -------------------------------------------------------------------------------------------------- */

typedef struct zf_marker_payload {
    zf_metric_streamer *streamer;
    uint64_t serial;
    uint32_t value;
} zf_marker_payload;

/* On the engine at the marker's start: reports due before it are written first, then a marker report at its time
 * (never before the latest report); later reports carry the value as StreamMarker. */
static ze_result_t zf_marker_perform(void *payload, zf_queue *queue, uint64_t start_ns, uint64_t *cost_ns) {
    (void)queue;
    (void)cost_ns;
    zf_marker_payload *p = payload;
    zf_metric_lock();
    zf_metric_streamer *s = p->streamer;
    if (zf_handle_is_live(s, ZF_OBJ_ZET_METRIC_STREAMER) && s->serial == p->serial) {
        zf_streamer_materialise(s, start_ns);
        s->marker = p->value;
        zf_streamer_write_oa(s, start_ns > s->last_ns ? start_ns : s->last_ns, ZF_OA_REASON_MARKER);
        zf_streamer_notify(s);
    } else {
        zf_log(ZF_LOG_INFO, "metrics: a stream marker executed after its streamer was closed; ignored");
    }
    zf_metric_unlock();
    return ZE_RESULT_SUCCESS;
}

static const zf_command_ops zf_marker_ops = {.name = "metric streamer marker",
                                             .perform = zf_marker_perform,
                                             .release = free,
                                             .payload_size = sizeof(zf_marker_payload)};

ze_result_t zfi_zetCommandListAppendMetricStreamerMarker(zet_command_list_handle_t hCommandList,
                                                         zet_metric_streamer_handle_t hMetricStreamer, uint32_t value) {
    zf_cmdlist *list = zf_cmdlist_from(hCommandList);
    zf_metric_streamer *s = zf_streamer_from(hMetricStreamer);
    if (list->context != s->context)
        return zf_fail(
            ZE_RESULT_ERROR_INVALID_ARGUMENT,
            "hCommandList and hMetricStreamer belong to different contexts (the specification: same context)");
    if (list->device != s->mdev->device)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                       "hCommandList is not on hMetricStreamer's device: the streamer is not accessible to it");
    if (!(list->group_flags & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_METRICS))
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                       "hCommandList's engine group has no METRICS flag: markers need one that has");
    /* As Intel's driver answers for its instruction-pointer sampling streamer: markers are an OA feature. */
    if (s->group->format != ZF_METRIC_FORMAT_OA)
        return zf_fail(ZE_RESULT_ERROR_UNSUPPORTED_FEATURE,
                       "hMetricStreamer samples %s, whose records carry no stream markers (OA groups only)",
                       s->group->name);
    zf_marker_payload *payload = malloc(sizeof *payload);
    if (payload == NULL)
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory for a marker");
    *payload = (zf_marker_payload){.streamer = s, .serial = s->serial, .value = value};
    return zf_cmdlist_append_custom(hCommandList, &zf_marker_ops, payload, NULL, 0, NULL);
}
