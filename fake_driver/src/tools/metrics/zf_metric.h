/* Metrics: groups and metrics built from the scenario, the counter model driven by execution, streamers, queries
 * and calculation. docs/metrics.md describes the model and its decisions; docs/metrics-raw-formats.md the records.
 *
 * All mutable metric state (counters, activation, streamers, queries) is guarded by one lock (zf_metric_lock): the
 * counter model is updated by the execution observer on engine workers and read by streamers and queries, and one
 * lock keeps every snapshot consistent. Lock order: with the metric lock held, the driver may take a clock's lock or
 * the execution lock (to signal a notification event); never the other way round. Calculation touches no shared
 * state but a group's carried records, which have their own lock. */
#ifndef ZF_METRIC_H
#define ZF_METRIC_H

#include "core/zf_bytes.h"
#include "driver/zf_driver.h"
#include "exec/zf_exec.h"
#include "module/zf_kernel.h"

#include <pthread.h>
#include <stdint.h>

/* ---- Raw formats (docs/metrics-raw-formats.md) ---------------------------------------------------------------- */

#define ZF_OA_RECORD_SIZE       256u
#define ZF_OA_QUERY_RECORD_SIZE 688u
#define ZF_EU_STALL_RECORD_SIZE 64u

/* OA snapshot record */
#define ZF_OA_OFF_HEADER     0u
#define ZF_OA_OFF_CONTEXT    4u
#define ZF_OA_OFF_TIMESTAMP  8u
#define ZF_OA_OFF_GPU_TICKS  16u
#define ZF_OA_OFF_MARKER     20u
#define ZF_OA_OFF_A_LOW      24u
#define ZF_OA_OFF_A_HIGH     152u
#define ZF_OA_OFF_B          184u
#define ZF_OA_OFF_C          216u
#define ZF_OA_REASON_TIMER   0x01u
#define ZF_OA_REASON_MARKER  0x02u
#define ZF_OA_CONTEXT_VALID  (1u << 24)
#define ZF_OA_A_WIDTH        40u
#define ZF_OA_FLEX_WIDTH     32u
#define ZF_OA_GPU_TICKS_BITS 32u

/* OA query record */
#define ZF_QUERY_TAG           0x3151465Au /* "ZFQ1" */
#define ZF_QUERY_OFF_TAG       0u
#define ZF_QUERY_OFF_FLAGS     4u
#define ZF_QUERY_OFF_BEGIN     8u
#define ZF_QUERY_OFF_DURATION  16u
#define ZF_QUERY_OFF_TICKS     24u
#define ZF_QUERY_OFF_GPU_TICKS 32u
#define ZF_QUERY_OFF_CONTEXT   40u
#define ZF_QUERY_OFF_A         48u
#define ZF_QUERY_OFF_B         304u
#define ZF_QUERY_OFF_C         368u
#define ZF_QUERY_FLAG_ERROR    0x1u
#define ZF_QUERY_FLAG_LOST     0x2u
#define ZF_QUERY_FLAG_SPLIT    0x4u
#define ZF_QUERY_FLAG_FREQ     0x8u

/* EU stall record */
#define ZF_EU_OFF_IP        0u
#define ZF_EU_OFF_COUNTS    8u /* active and 8 stall reasons, u32 each */
#define ZF_EU_OFF_TILE      44u
#define ZF_EU_OFF_TIMESTAMP 48u
#define ZF_EU_IP_BITS       29u

/* Multi-tile frame */
#define ZF_FRAME_MAGIC       0x544D465Au /* "ZFMT" */
#define ZF_FRAME_VERSION     1u
#define ZF_FRAME_HEADER_SIZE 16u
#define ZF_FRAME_ENTRY_SIZE  16u
#define ZF_FRAME_MAX_SETS    64u

/* ---- Objects -------------------------------------------------------------------------------------------------- */

typedef struct zf_metric_device zf_metric_device;
typedef struct zf_metric_group zf_metric_group;
typedef struct zf_metric_tile zf_metric_tile;
typedef struct zf_metric_streamer zf_metric_streamer;

/* Where a metric comes from: a group's own (the scenario's metrics, information entries, the defaults a user group
 * closes with), a programmable (zetMetricCreateFromProgrammableExp, owned by the application) or a tracer's decoder
 * (decodable metrics). */
typedef enum zf_metric_origin {
    ZF_METRIC_PREDEFINED = 0,
    ZF_METRIC_PROGRAMMED,
    ZF_METRIC_DECODABLE,
} zf_metric_origin;

/* What a metric created from a programmable programs: nothing (a fixed A counter), or a flexible counter. */
typedef struct zf_metric_program {
    int32_t flex_slot; /* B0..B7, C0..C7 as 0..15; -1 for a fixed counter */
    zf_scenario_counter counter;
} zf_metric_program;

typedef struct zf_metric {
    zf_object header;
    zf_metric_group *group; /* predefined and decodable: the group it belongs to */
    zf_metric_device *mdev; /* the device it measures */
    zf_metric_origin origin;
    char name[ZET_MAX_METRIC_NAME];
    char description[ZET_MAX_METRIC_DESCRIPTION];
    char component[ZET_MAX_METRIC_COMPONENT];
    char units[ZET_MAX_METRIC_RESULT_UNITS];
    uint32_t tier;
    zet_metric_type_t type;
    zet_value_type_t value_type;
    bool floating;
    const char *formula;      /* the source (export data carries it) */
    const zf_formula_op *ops; /* the scenario's pool, or own_ops */
    size_t num_ops;
    zf_formula_op own_ops[ZF_FORMULA_MAX_OPS];
    /* Programmed metrics: their sampling types, counter, formula and the user groups holding them (metric lock). */
    zet_metric_group_sampling_type_flags_t sampling;
    zf_metric_program program;
    uint32_t refs;
    char own_formula[ZF_FORMULA_MAX_TEXT + 1];
} zf_metric;

/* The record calculation keeps between calls on a streamer group: the previous snapshot of one data set. */
typedef struct zf_metric_carry {
    bool valid;
    uint8_t record[ZF_OA_RECORD_SIZE];
} zf_metric_carry;

typedef struct zf_user_group zf_user_group;

struct zf_metric_group {
    zf_object header;
    zf_metric_device *mdev;
    const zf_scenario_metric_group *desc; /* NULL for user-created and tracer groups */
    char name[ZET_MAX_METRIC_GROUP_NAME];
    char description[ZET_MAX_METRIC_GROUP_DESCRIPTION];
    zet_metric_group_sampling_type_flags_t sampling; /* one flag */
    uint32_t domain;
    zf_metric_format format;
    uint32_t record_size;
    uint32_t num_metrics; /* what zetMetricGet lists: list[0 .. num_metrics) */
    zf_metric **list;
    zf_metric *metrics;    /* the group's own metrics: the scenario's, then the information entries */
    uint32_t num_counters; /* B0..C7 as the group programs them (zf_flex_counter) */
    zf_scenario_counter counters[ZF_OA_FLEX_COUNTERS];
    pthread_mutex_t carry_lock;
    zf_metric_carry *carry; /* one per tile, then one for plain data */
    /* User-created groups (metric_user_group.c): their state, and a lock that calculation holds while it reads the
     * list, which Add, Remove and Close change. NULL for the others. */
    zf_user_group *user;
    pthread_rwlock_t list_lock;
    uint32_t users; /* streamers, query pools and tracers using the group (metric lock) */
};

/* What a tile (a sub-device, or a device without sub-devices) is made of: the constants formulas may use. */
typedef struct zf_tile_shape {
    uint64_t xve_count;
    uint64_t threads_per_xve;
    uint64_t simd_width;
    uint64_t core_mhz;
    uint64_t timer_hz;
    uint64_t compute_engines;
    uint64_t copy_engines;
} zf_tile_shape;

/* One executed command's contribution to a tile's signals, spread evenly over [start_ns, end_ns]. */
typedef struct zf_work_entry {
    uint64_t start_ns;
    uint64_t end_ns;
    uint32_t context_id;
    uint64_t amount[ZF_SIG_COUNT];
    uint32_t num_kernels; /* the kernels the command ran (the latest ZF_KERNEL_CODE_MAX), for EU stall IPs */
    zf_kernel_code kernels[ZF_KERNEL_CODE_MAX];
} zf_work_entry;

/* How a domain of a tile is in use: metric sources are exclusive per tile and domain. */
typedef struct zf_domain_use {
    uint32_t domain;
    zf_metric_streamer *streamer;
    uint32_t pools;
} zf_domain_use;

#define ZF_MAX_DOMAIN_USES 8

/* The GPU clock counts at the frequency the device runs at (zf_cost_clock_mhz): a piece of its history, from device
 * time from_ns, when it had counted `cycles`, at `mhz`. */
typedef struct zf_clock_piece {
    uint64_t from_ns;
    uint64_t cycles;
    uint64_t mhz;
} zf_clock_piece;
#define ZF_CLOCK_PIECES 32u

struct zf_metric_tile {
    zf_metric_device *mdev;                /* the device that is this tile */
    zf_clock_piece clock[ZF_CLOCK_PIECES]; /* in increasing from_ns; clock[0] from device time 0 */
    uint32_t clock_pieces;
    uint32_t tile_id; /* sub-device id, 0 for a device without sub-devices */
    zf_tile_shape shape;
    uint64_t base[ZF_SIG_COUNT]; /* signals of folded work */
    zf_work_entry *log;          /* work not yet folded, while a streamer samples the tile */
    size_t log_count;
    size_t log_capacity;
    uint32_t streamers; /* open streamers sampling this tile */
    uint32_t num_uses;
    zf_domain_use uses[ZF_MAX_DOMAIN_USES];
};

struct zf_metric_device {
    zf_device *device;
    zf_metric_device *root;   /* itself for a root device */
    zf_metric_tile *own_tile; /* NULL for a root device with sub-devices */
    uint32_t num_tiles;       /* tiles its work and data cover */
    zf_metric_tile **tiles;   /* its own tile, or its sub-devices' */
    zf_metric_device **subs;  /* by sub-device id */
    uint64_t latest_end_ns;   /* root devices: the latest end of work executed on the card */
    uint64_t shared_seq;      /* root devices: the next work of other processes to import (zf_metric_import) */
    bool shared_started;
    uint32_t num_groups;
    zf_metric_group *groups;
    uint32_t num_active; /* activated groups, at most one per domain */
    zf_metric_group **active;
    uint32_t *tile_ids; /* tiles[t]->tile_id and tiles[t]->shape, contiguous for calculation (zf_calc_view) */
    zf_tile_shape *shapes;
    uint32_t num_programmables; /* metric_programmable.c */
    struct zf_metric_programmable *programmables;
};

/* ---- Calculation (metric_calc.c) ------------------------------------------------------------------------------ */

/* Everything calculation reads: the records of a group, its metrics and the tiles its data may name. Built from a
 * device's group for the calculation calls, or from export data (metric_export.c), which has no device. */
typedef struct zf_calc_view {
    const char *name;
    zet_metric_group_sampling_type_flags_t sampling;
    zf_metric_format format;
    uint32_t record_size;
    uint32_t timestamp_bits;
    uint32_t num_metrics;
    zf_metric *const *metrics;
    uint32_t num_tiles;
    const uint32_t *tile_ids;
    const zf_tile_shape *shapes;
    pthread_mutex_t *carry_lock; /* NULL: the carried records are read only (export data) */
    zf_metric_carry *carry;      /* one per tile, then one for plain data; or one per set (export data) */
} zf_calc_view;

/* One data set: whole records of one tile. */
typedef struct zf_data_set {
    const uint8_t *data;
    size_t size;
    uint32_t tile;  /* index into the view's tiles (constants) */
    uint32_t carry; /* index into the view's carry */
    bool no_carry;  /* reports were skipped: the set does not continue a carried record */
} zf_data_set;

typedef struct zf_frame {
    uint32_t count;
    zf_data_set sets[ZF_FRAME_MAX_SETS];
} zf_frame;

/* The view of a device's group. */
void zf_calc_view_of(const zf_metric_group *group, zf_calc_view *view);
/* Validates raw data (docs/metrics-raw-formats.md, "Validation") and splits it into sets. */
ze_result_t zf_calc_parse(const zf_calc_view *v, const uint8_t *data, size_t size, bool allow_frame, zf_frame *frame);
/* The count-only answer of the multiple-set call, and the calculation of at most *set_count sets and *total values
 * (both updated); `counts` and `values` as the API's. */
void zf_calc_bound(const zf_calc_view *v, const zf_frame *frame, bool max, uint32_t *set_count, uint32_t *total);
ze_result_t zf_calc_sets(const zf_calc_view *v, const zf_frame *frame, bool max, uint32_t *set_count, uint32_t *total,
                         uint32_t *counts, zet_typed_value_t *values);
/* The record the group would pair the first report of `set` with, if any (a copy in *carry). */
bool zf_calc_carried(const zf_calc_view *v, const zf_data_set *set, zf_metric_carry *carry);
/* Read locks of a user-created group's metric list for the length of a calculation (no-ops for the others). */
void zf_metric_group_read_lock(zf_metric_group *group);
void zf_metric_group_read_unlock(zf_metric_group *group);
/* Why a group's data is not calculated (a tracer's group: decoded instead), or NULL. */
const char *zf_metric_group_not_calculable(const zf_metric_group *group);

/* ---- The metric system ---------------------------------------------------------------------------------------- */

/* Builds the metric objects of every device on first use and registers the execution observer; every metric entry
 * point calls it first. OUT_OF_HOST_MEMORY when that fails. */
ze_result_t zf_metrics_init(void);
/* The metric state of a device (after zf_metrics_init succeeded). */
zf_metric_device *zf_metric_device_of(const zf_device *device);

void zf_metric_lock(void);
void zf_metric_unlock(void);
/* Waits on `cond` with the metric lock held until signalled or `deadline_ns` (host monotonic) passes. */
void zf_metric_wait(pthread_cond_t *cond, uint64_t deadline_ns);

/* Whether a group is activated on its device; lock held. */
bool zf_metric_group_is_active(const zf_metric_group *group);
/* Why a live group cannot be used with `mdev` (another device, root/sub-device mix), or NULL when it can. */
const char *zf_metric_group_mismatch(const zf_metric_group *group, const zf_metric_device *mdev);
/* The checks shared by query pools and streamers: hDevice belongs to hContext and hMetricGroup to hDevice. */
ze_result_t zf_metric_check_target(zf_context *context, zf_metric_device *mdev, const zf_metric_group *group);

/* Stops streamer threads (library unload; called by zf_core.c before the engines stop). */
void zf_metrics_shutdown(void);
/* zeInit hook (registered by the composition root, ze/lifecycle.c): cards shared with a host clock publish their work
 * from zeInit on (docs/environment.md, "Processes"). */
void zf_metrics_start_shared(zf_driver *driver);

/* ---- Counter model (metric_counters.c) ------------------------------------------------------------------------ */

/* Device time up to which reports exist: the later of the clock and the end of the latest executed work. */
uint64_t zf_metric_horizon_ns(zf_metric_device *mdev);

/* The frequencies of the tiles of `root` are read at device time `ns`: a change since the last reading counts from
 * then on (never earlier than the last change); lock held. */
void zf_metric_follow_clock(zf_metric_device *root, uint64_t ns);

/* Signals of a tile at device time `ns`, with logged work prorated (streamers); lock held. */
void zf_tile_signals_at(const zf_metric_tile *tile, uint64_t ns, uint64_t out[ZF_SIG_COUNT]);
/* Signals counting every executed command in full, gpu_clocks at `ns` (queries); lock held. */
void zf_tile_signals_now(const zf_metric_tile *tile, uint64_t ns, uint64_t out[ZF_SIG_COUNT]);
/* The context (engine) whose logged command covers `ns`, if any; lock held. */
bool zf_tile_context_at(const zf_metric_tile *tile, uint64_t ns, uint32_t *context_id);
/* The kernels of the latest logged command that started by `ns` and ran kernels (0 when none); lock held. */
uint32_t zf_tile_kernels_at(const zf_metric_tile *tile, uint64_t ns, zf_kernel_code out[ZF_KERNEL_CODE_MAX]);
/* True when logged work ends after `ns` (the tile is or will be active then); lock held. */
bool zf_tile_active_after(const zf_metric_tile *tile, uint64_t ns);
/* Folds logged work that ended by `ns` into the base; lock held. */
void zf_tile_fold(zf_metric_tile *tile, uint64_t ns);

/* Domain uses (lock held): the use of `domain` on a tile, created when `create` is set (NULL when full). */
zf_domain_use *zf_tile_domain_use(zf_metric_tile *tile, uint32_t domain, bool create);

/* The value of a flexible counter (B0..C7) programmed by `group` from cumulative signals. */
uint64_t zf_flex_counter(const zf_metric_group *group, uint32_t index, const uint64_t signals[ZF_SIG_COUNT]);

/* The context id the records carry for an engine: (ordinal + 1) << 8 | index. */
static inline uint32_t zf_engine_context_id(uint32_t ordinal, uint32_t index) {
    return ((ordinal + 1u) << 8) | (index & 0xffu);
}

/* ---- Streamers (metric_streamer.c) ---------------------------------------------------------------------------- */

/* Writes due reports of every open streamer of a card up to its horizon and signals notification events; lock
 * held. Called by the observer after each command. */
void zf_streamers_advance(zf_metric_device *root);
/* Stops the idle-sampling threads of streamers (library unload). */
void zf_streamers_shutdown(void);

/* ---- Counter model entry point (metric_counters.c) ------------------------------------------------------------ */

/* The execution observer: turns each executed command into signal contributions (lock taken inside). */
void zf_metric_observe(const zf_work_record *record, void *user_data);

/* Imports the work other processes published on the card's shared state since the last import into the tiles of
 * this process (host clocks only; docs/environment.md, "Processes"); lock held. */
void zf_metric_import(zf_metric_device *root);
/* ---- Calculation helpers (metric_calc.c) ---------------------------------------------------------------------- */

/* The size of the frame header of data from `sets` tiles (0 for one: plain data), and the header itself for a
 * device's tiles with sections of `section_size` bytes each, one after the other. */
size_t zf_frame_header_size(uint32_t sets);
void zf_frame_write_header(uint8_t *out, const zf_metric_device *mdev, size_t section_size);

/* Resets a group's carried records (a streamer opened on it). */
void zf_metric_group_reset_carry(zf_metric_group *group);

/* Metric timestamps of a device: ns -> ticks of its card's clock. */
uint64_t zf_metric_ns_to_ticks(const zf_metric_device *mdev, uint64_t ns);
/* The first device time (ns) at which the clock reads `ticks` or more. */
uint64_t zf_metric_ticks_to_ns(const zf_metric_device *mdev, uint64_t ticks);

static inline zf_metric_group *zf_metric_group_from(zet_metric_group_handle_t handle) {
    return (zf_metric_group *)handle;
}

static inline zf_metric *zf_metric_from(zet_metric_handle_t handle) {
    return (zf_metric *)handle;
}

/* ---- Export data (metric_export.c; docs/metrics.md, "Export data") ------------------------------------------- */

/* zetMetricGroupGetExportDataExp and zetMetricGroupCalculateMetricExportDataExp without their API types: the export
 * of `raw` (the size asked with *size 0 or no buffer), and the calculation of export data, the first `skip` records of
 * each set left out. */
ze_result_t zf_metric_export_data(zf_metric_group *group, const uint8_t *raw, size_t raw_size, size_t *size,
                                  uint8_t *out);
ze_result_t zf_metric_export_calculate(bool max, const uint8_t *data, size_t size, uint32_t skip, uint32_t *set_count,
                                       uint32_t *total, uint32_t *counts, zet_typed_value_t *values);

/* ---- Building metrics (metric_system.c) ----------------------------------------------------------------------- */

/* Copies a string into a fixed array, cut to fit and always terminated. */
void zf_copy_text(char *dst, size_t size, const char *src);
/* A predefined metric of `group` (an information entry, or a default of a user group) from its definition; false
 * when out of host memory or when the definition does not compile (a driver bug, logged). */
bool zf_metric_init_info(zf_metric *metric, zf_metric_group *group, const zf_metric_info_def *def);
/* Compiles `formula` into metric->own_ops for records of `format` (metric->value_type set); false with `why`. */
bool zf_metric_compile(zf_metric *metric, zf_metric_format format, const char *formula, char *why, size_t why_size);
/* The record size of groups of a format and sampling type. */
uint32_t zf_metric_record_size(zf_metric_format format, zet_metric_group_sampling_type_flags_t sampling);

/* ---- Programmables and user-created groups (metric_programmable.c, metric_user_group.c) ----------------------- */

/* The domain and source of the OA unit of a device: the domain of its first group with `oa` records. False when the
 * device has none (then it has no programmables). */
bool zf_metric_oa_domain(const zf_metric_device *mdev, uint32_t *domain);
/* Builds the programmables of a device (after its groups); false when out of host memory. */
bool zf_programmables_build(zf_metric_device *mdev);
/* Why a group cannot be activated now (a user-created group that is not closed), or NULL. */
const char *zf_user_group_not_ready(const zf_metric_group *group);

/* ---- Tracers (metric_tracer.c, headers 1.10 and later) -------------------------------------------------------- */

#define ZF_TRACE_RECORD_SIZE 32u

#if ZF_L0_AT_LEAST(10)
/* The tracer group of a device: its built-in events, in a domain of its own (the last group zetMetricGroupGet
 * lists); false when out of host memory. */
bool zf_tracer_group_build(zf_metric_group *group, zf_metric_device *mdev);
/* Records the events of one executed command on a tile for the enabled tracers covering it; lock held. */
void zf_tracers_observe(const zf_metric_tile *tile, const zf_work_record *record);
#else
static inline void zf_tracers_observe(const zf_metric_tile *tile, const zf_work_record *record) {
    (void)tile;
    (void)record;
}
#endif

#endif
