/* Command execution: engines with worker threads, command queues, command lists, events and fences.
 *
 * Every device (root and sub-device) has the engines its scenario describes (group ordinal x index). An engine's
 * worker runs submissions in order. Device time follows the cost model (docs/cost-model.md): each engine keeps a
 * timeline, a command starts when its engine is free, when it was submitted and when its wait events were signalled,
 * and lasts its modelled duration. All shared state (event and fence states, queue counters, engine FIFOs) is changed
 * under one lock with one condition variable for host waits (each engine's worker waits for submissions on its own):
 * simple, and waits are rare compared to appends. A synchronous submission runs on the calling thread when its engine
 * is idle (zf_engine_run_in_place). Event states are also read without the lock (zeEventQueryStatus). */
#ifndef ZF_EXEC_H
#define ZF_EXEC_H

#include "driver/zf_driver.h"
#include "spirv/spirv_exec.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

typedef struct zf_kernel_launch zf_kernel_launch;
typedef struct zf_launch_pool zf_launch_pool;
typedef struct zf_engine zf_engine;
typedef struct zf_event_pool zf_event_pool;
typedef struct zf_queue zf_queue;

typedef struct zf_event {
    zf_object header;
    zf_event_pool *pool;
    uint32_t index;
    ze_event_scope_flags_t signal_scope, wait_scope; /* as created (zeEventGetSignalScope, zeEventGetWaitScope) */
    /* Written under the sync lock. The three atomic fields are also read without it (zeEventQueryStatus): a signal
     * stores signaled last, so a reader that sees it set finds the signal's time and device. */
    _Atomic bool signaled;
    _Atomic uint64_t signal_ns; /* device time of the signal */
    _Atomic bool faulted;       /* the signalling command failed on the device (a fault, a hang, a lost device) */
    uint64_t start_ns;          /* the signalling command's start and end (kernel timestamps) */
    uint64_t end_ns;
    zf_device *_Atomic timestamp_device; /* whose clock the timestamps are on */
    uint32_t tiles;                      /* kernel timestamps: one per tile the command ran on, ending at tile_end_ns */
    uint64_t tile_end_ns[ZF_SCENARIO_MAX_SUBDEVICES];
} zf_event;

struct zf_event_pool {
    zf_object header;
    zf_context *context;
    ze_event_pool_flags_t flags;
    uint32_t count;
    zf_event **events;     /* by index; guarded by the sync lock */
    _Atomic uint32_t refs; /* the pool's handle and each live event: the last to go frees the pool */
};

/* What one event takes of a device's memory on Intel's GPUs (a cache line): a pool holds at most maxMemAllocSize
 * divided by it, the smallest maxMemAllocSize of its devices (docs/events.md, "Limits"). */
#define ZF_EVENT_DEVICE_BYTES 64u

/* Whether the pool's events record kernel timestamps: ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP, or (headers 1.6)
 * ZE_EVENT_POOL_FLAG_KERNEL_MAPPED_TIMESTAMP, whose events also give them on the host's clock. */
static inline bool zf_pool_has_timestamps(const zf_event_pool *pool) {
    ze_event_pool_flags_t kinds = ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP;
#if ZF_L0_AT_LEAST(6)
    kinds |= ZE_EVENT_POOL_FLAG_KERNEL_MAPPED_TIMESTAMP;
#endif
    return (pool->flags & kinds) != 0;
}

typedef struct zf_fence {
    zf_object header;
    zf_queue *queue;
    bool signaled; /* guarded by the sync lock */
    uint64_t signal_ns;
} zf_fence;

typedef enum zf_command_kind {
    ZF_CMD_BARRIER,
    ZF_CMD_COPY,
    ZF_CMD_COPY_REGION,
    ZF_CMD_FILL,
    ZF_CMD_SIGNAL_EVENT,
    ZF_CMD_RESET_EVENT,
    ZF_CMD_WRITE_TIMESTAMP,
    ZF_CMD_QUERY_KERNEL_TIMESTAMPS,
    ZF_CMD_HINT, /* prefetch and memory advice: validated at append, cost only */
    ZF_CMD_LAUNCH,
    ZF_CMD_LAUNCH_INDIRECT,
    ZF_CMD_LAUNCH_MULTIPLE_INDIRECT,
    ZF_CMD_CUSTOM, /* a command family implemented outside the engine: see zf_command_ops */
    ZF_CMD_COUNT
} zf_command_kind;

/* What a command family implemented in its own file (metric queries, image copies...) tells the engine. perform runs on
 * the engine's worker at the command's start time (device ns) and adds the command's modelled duration to *cost_ns
 * (the 100 ns of every command are already there); an error result is recorded as a device fault. release frees the
 * payload when the command is discarded (list reset or destroy, immediate command done); it may be NULL. A clone of
 * the command list (zeCommandListCreateCloneExp) copies the payload with clone, or, when clone is NULL, as one block
 * of payload_size bytes (a payload release frees with free), or shares it when release is NULL. */
typedef struct zf_command_ops {
    const char *name; /* for diagnostics, e.g. "metric query begin" */
    ze_result_t (*perform)(void *payload, zf_queue *queue, uint64_t start_ns, uint64_t *cost_ns);
    void (*release)(void *payload);
    void *(*clone)(const void *payload); /* NULL when out of host memory */
    size_t payload_size;
} zf_command_ops;

typedef struct zf_custom_args {
    const zf_command_ops *ops;
    void *payload;
} zf_custom_args;

typedef struct zf_copy_args {
    void *dst;
    const void *src;
    size_t size;
    zf_context *src_context; /* for copies from another context */
} zf_copy_args;

typedef struct zf_copy_region_args {
    void *dst;
    const void *src;
    ze_copy_region_t dst_region, src_region;
    uint32_t dst_pitch, dst_slice_pitch, src_pitch, src_slice_pitch;
} zf_copy_region_args;

typedef struct zf_fill_args {
    void *dst;
    size_t size;
    size_t pattern_size;
    uint8_t *pattern; /* owned copy */
} zf_fill_args;

typedef struct zf_query_timestamps_args {
    uint32_t num_events;
    zf_event **events; /* owned array */
    void *dst;
    size_t *offsets; /* owned copy, or NULL for packed results */
} zf_query_timestamps_args;

typedef struct zf_launch_args {
    uint32_t num_kernels;
    zf_kernel_launch *one;                   /* the launch of a one-kernel command (owned), without an array */
    zf_kernel_launch **launches;             /* owned, for several kernels; NULL with one (zf_launch_at) */
    ze_group_count_t groups;                 /* direct launches */
    const ze_group_count_t *indirect_groups; /* read at execution */
    const uint32_t *indirect_count;          /* read at execution (multiple indirect) */
    bool cooperative;
} zf_launch_args;

/* Launch k of a command. */
static inline zf_kernel_launch *zf_launch_at(const zf_launch_args *launch, uint32_t k) {
    return launch->launches != NULL ? launch->launches[k] : launch->one;
}

typedef struct zf_command {
    zf_command_kind kind;
    zf_event *signal; /* may be NULL */
    uint32_t num_waits;
    zf_event **waits;        /* owned array */
    zf_event *target_event;  /* SIGNAL_EVENT, RESET_EVENT */
    uint64_t *timestamp_dst; /* WRITE_TIMESTAMP */
    uint64_t hint_bytes;     /* HINT: bytes covered (for cost) */
    union {
        zf_copy_args copy;
        zf_copy_region_args region;
        zf_fill_args fill;
        zf_query_timestamps_args query;
        zf_launch_args launch;
        zf_custom_args custom;
    } u;
} zf_command;

typedef struct zf_mutable zf_mutable;

typedef struct zf_cmdlist {
    zf_object header;
    zf_context *context;
    zf_device *device;
    uint32_t ordinal;
    ze_command_list_flags_t flags; /* as created; an immediate list in order has ZE_COMMAND_LIST_FLAG_IN_ORDER */
    zf_mutable *mutable_commands;  /* a mutable command list's records (cmdlist_mutable.c), else NULL */
    ze_command_queue_group_property_flags_t group_flags;
    bool immediate;
    bool closed;
    zf_command *commands;
    size_t num_commands;
    size_t capacity;
    _Atomic uint64_t in_flight;  /* submissions accepted and not yet completed */
    zf_queue *immediate_queue;   /* the queue behind an immediate list */
    zf_launch_pool *launch_pool; /* its launches' records (module/zf_kernel.h) */
} zf_cmdlist;

struct zf_queue {
    zf_object header;
    zf_context *context;
    zf_device *device;
    uint32_t ordinal;
    uint32_t index;
    ze_command_queue_mode_t mode;
    ze_command_queue_group_property_flags_t group_flags;
    zf_engine *engine;
    _Atomic uint64_t submitted; /* changed under the sync lock by submitters */
    /* Changed by whoever runs the engine (completions without the sync lock: see zf_queue_wait), on a line of their
     * own. */
    _Alignas(64) _Atomic uint64_t completed;
    _Atomic uint64_t last_end_ns;
};

/* The lock and condition variable that guard all execution state. */
void zf_sync_lock(void);
void zf_sync_unlock(void);
void zf_sync_broadcast(void);
/* Waits on the condition until `deadline_ns` (host monotonic; UINT64_MAX = forever). False on time-out. Call with the
 * lock held. */
bool zf_sync_wait_until(uint64_t deadline_ns);
uint64_t zf_deadline_after(uint64_t timeout_ns);
/* Waits until ready(object) holds or timeout_ns passes (0 = just test it; UINT64_MAX = forever); returns whether it
 * holds. Call with the lock held. */
bool zf_sync_await(bool (*ready)(const void *object), const void *object, uint64_t timeout_ns);
/* Takes the lock and waits like zf_sync_await for a flag it guards; *when receives *time_set (the device time the
 * flag was set, valid when it is). */
bool zf_sync_await_flag(const bool *flag, const uint64_t *time_set, uint64_t timeout_ns, uint64_t *when);
/* Clears a flag the lock guards (event and fence resets). */
void zf_sync_clear_flag(bool *flag);

/* Binds a queue (or an immediate list's internal queue) to its engine after checking ordinal and index. */
ze_result_t zf_queue_init(zf_queue *queue, zf_context *context, zf_device *device, const ze_command_queue_desc_t *desc);

/* Whether phCommandLists[i] (`handle`) may be executed by the queue: a live, closed, regular list of its device and
 * queue group. */
ze_result_t zf_queue_check_submittable(const zf_queue *queue, ze_command_list_handle_t handle, uint32_t i);

/* The engine of a device for a queue group ordinal and index, created (with its worker) on first use. */
ze_result_t zf_engine_get(zf_device *device, uint32_t ordinal, uint32_t index, zf_engine **out);

/* Submits commands to an engine. `lists` are kept alive (in_flight) until done; `single` is an immediate list's one
 * command, whose resources the engine frees. The fence may be NULL. */
ze_result_t zf_engine_submit(zf_queue *queue, zf_cmdlist **lists, uint32_t num_lists, zf_command *single,
                             zf_fence *fence);

/* Runs a submission (as zf_engine_submit takes it) on the calling thread when the queue's engine is idle: the same
 * ordering, device time, faults, observers and event and fence signals as on the worker, without the hand-off; the
 * host has then seen it complete, as after zf_queue_wait. False,
 * with nothing done, when the engine is busy or a wait event of `single` is not signalled yet: submit it then. A single
 * command's resources are freed once it ran. */
bool zf_engine_run_in_place(zf_queue *queue, zf_cmdlist **lists, uint32_t num_lists, zf_command *single,
                            zf_fence *fence);

/* Runs, on the calling thread, the submissions queued on the queue's engine that its worker has not taken yet, when
 * they are single commands (an immediate list's) whose wait events are all signalled: a thread about to wait without
 * a timeout for them does their work instead of waking the worker and sleeping until it is done (two thread hand-offs
 * a launch; docs/cost-model.md, "Waiting threads run queued work"). The same order, device time, faults, observers
 * and signals as on the worker. False when it ran nothing (the worker is running, nothing is queued, or a command
 * waits for an event not signalled yet). */
bool zf_engine_help(zf_queue *queue);
/* zf_engine_help for the queue behind an immediate list (the OpenCL face's, before it waits for its commands). */
bool zf_immediate_list_help(ze_command_list_handle_t list);

/* Waits until every submission to the queue has completed, or the timeout (ns) passes: SUCCESS or NOT_READY. A wait
 * without a timeout first runs what it can of the queued work itself (zf_engine_help). */
ze_result_t zf_queue_wait(zf_queue *queue, uint64_t timeout_ns);

/* Stops every engine worker (library unload). */
void zf_engines_shutdown(void);

/* Releases what a command owns; a second call releases nothing. */
void zf_command_free(zf_command *command);

/* The allocations the commands of a submission use (memory/zf_memory.h, zf_memory_use), each held from the
 * submission until its command has run, so that a free meanwhile waits for it (blocking policy) or leaves the pages
 * mapped until then (docs/memory.md, "Freeing memory in use"). Items are in command order. */
typedef struct zf_held_block {
    struct zf_mem_block *block;
    size_t command; /* the command's place in its submission */
} zf_held_block;

typedef struct zf_uses {
    zf_held_block *items;
    size_t count, cap;
    size_t next;   /* the first item not released yet */
    bool borrowed; /* items is the caller's storage (a submitter's stack), not to be freed or grown in place */
} zf_uses;

/* Adds the allocations `command`, the submission's `ordinal`th, touches in its queue's context (exec/perform.c). Out
 * of host memory, the command goes without: it still holds its memory while it runs. */
void zf_command_use(const zf_queue *queue, const zf_command *command, size_t ordinal, zf_uses *uses);
/* Releases the items of the commands up to `ordinal` (SIZE_MAX: all) that are not released yet. */
void zf_uses_release(zf_uses *uses, size_t ordinal);
/* Moves the items of `from` into `to` (empty, its storage kept for reuse) and frees the storage `from` owns; out of
 * host memory, they are released instead. */
void zf_uses_move(zf_uses *to, zf_uses *from);
/* Releases every item and frees the storage `uses` owns. */
void zf_uses_drop(zf_uses *uses);

/* Copies a recorded command into `copy`, owning copies of what it owns (launch records from `pool`):
 * ZE_RESULT_SUCCESS, OUT_OF_HOST_MEMORY, or UNSUPPORTED_FEATURE for a command whose payload cannot be copied. */
ze_result_t zf_command_clone(const zf_command *command, zf_launch_pool *pool, zf_command *copy);

/* What the engine does with a command of each kind: one entry per kind in exec/command.c (zf_command_kinds), the
 * functions beside what they do (command.c: what a command owns; cost.c: its duration; perform.c: its effect and the
 * memory it uses). A NULL member does nothing (cost: the command overhead alone). Adding a kind is one entry there
 * (docs/command-lists.md, "Command kinds"). */
typedef struct zf_work_record zf_work_record;
typedef struct zf_command_kind_ops {
    const char *name;
    void (*release)(zf_command *command); /* frees what it owns */
    /* Copies what `command` owns into `copy` (a bitwise copy of it): on failure `copy` owns only what was copied. */
    ze_result_t (*clone)(const zf_command *command, zf_launch_pool *pool, zf_command *copy);
    uint64_t (*cost)(const zf_command *command, const zf_queue *queue);
    void (*use)(const zf_queue *queue, const zf_command *command, size_t ordinal, zf_uses *uses);
    ze_result_t (*perform)(zf_device *device, zf_queue *queue, zf_command *command, uint64_t start_ns,
                           uint64_t *cost_ns, zf_work_record *record);
} zf_command_kind_ops;

extern const zf_command_kind_ops zf_command_kinds[ZF_CMD_COUNT];

static inline bool zf_command_is_launch(const zf_command *command) {
    return command->kind == ZF_CMD_LAUNCH || command->kind == ZF_CMD_LAUNCH_INDIRECT ||
           command->kind == ZF_CMD_LAUNCH_MULTIPLE_INDIRECT;
}

/* Whether a command of its kind can own memory besides its wait list (what zf_command_free releases by kind): a
 * reset skips the others without a call. */
static inline bool zf_command_may_own(const zf_command *command) {
    return zf_command_kinds[command->kind].release != NULL;
}

/* Modelled duration of a command, in device nanoseconds (docs/cost-model.md). */
uint64_t zf_cost_command_ns(const zf_command *command, const zf_queue *queue);

/* Bytes a region copy moves; work-items of a launch of `groups` work-groups; device cycles in `ns` at the device's
 * core clock. */
uint64_t zf_region_bytes(const ze_copy_region_t *region);
uint64_t zf_launch_work_items(const zf_kernel_launch *launch, const ze_group_count_t *groups);
uint64_t zf_ns_to_cycles(uint64_t ns, const zf_device *device);

/* The scenario's fixed costs (docs/cost-model.md): every command, and from a submission to its first command. */
uint64_t zf_cost_overhead_ns(const zf_device *device);
uint64_t zf_cost_dispatch_ns(const zf_device *device);

/* Sets the hook answering the clock, MHz, a device's kernels run at (sysman: docs/sysman.md); NULL, 0 or a value at
 * or above the scenario's core clock leave the core clock. The hook is called on engine workers, lock-free. */
typedef uint32_t (*zf_cost_clock_fn)(const zf_device *device);
void zf_cost_set_clock_hook(zf_cost_clock_fn hook);

/* The clock, in MHz, the device runs at now: the scenario's core clock, or the one the hook answers (lower, or higher
 * for an overclocked domain). Kernels last their cycles at it, and the metrics' GPU clock counts at it
 * (docs/metrics.md, "Signals"). */
uint32_t zf_cost_clock_mhz(const zf_device *device);

/* Tiles a command of `device` runs on: every tile of a root device that has sub-devices (implicit scaling), else 1. */
uint32_t zf_device_tiles(const zf_device *device);

/* Lane cycles of executed work: its operations weighted by the cycles of their class. */
uint64_t zf_work_lane_cycles(const zf_work_counts *work);
/* The part/whole share of work (each count scaled, rounded down). */
void zf_work_share(const zf_work_counts *work, uint64_t part, uint64_t whole, zf_work_counts *out);

/* Modelled duration of one kernel that executed `work` as `groups` work-groups of `group_items` work-items on
 * `device`: one value per tile it runs on (zf_device_tiles), in device ns, the launch set-up included. */
void zf_cost_kernel_tiles(const zf_work_counts *work, const ze_group_count_t *groups, uint64_t group_items,
                          const zf_device *device, uint64_t tile_ns[]);

/* The kernel timestamps of a signalled event, in ticks of its device's clock masked to the kernel valid bits: those of
 * the whole command, or of the interval [start_ns, end_ns] of its device time (a tile's) with
 * zf_event_write_interval. */
void zf_event_write_kernel_timestamp(const zf_event *event, ze_kernel_timestamp_result_t *out);
void zf_event_write_interval(const zf_event *event, uint64_t start_ns, uint64_t end_ns,
                             ze_kernel_timestamp_result_t *out);
/* A consistent copy of an event whose kernel timestamps are ready: ZE_RESULT_ERROR_INVALID_ARGUMENT when its pool has
 * no KERNEL_TIMESTAMP flag, ZE_RESULT_NOT_READY until a command signalled it. */
ze_result_t zf_event_timestamp_snapshot(zf_event *event, zf_event *copy);
/* Whether the event is signalled by a command that failed on the device (the OpenCL face's CL_OUT_OF_RESOURCES). */
bool zf_event_failed(ze_event_handle_t event);

/* Appends a command of a family implemented outside the engine: the list checks (closed state, signal and wait
 * events) and the immediate-list behaviour are those of every append. The payload is owned by the command from then
 * on, also when the append fails (ops->release frees it). */
ze_result_t zf_cmdlist_append_custom(ze_command_list_handle_t hCommandList, const zf_command_ops *ops, void *payload,
                                     ze_event_handle_t hSignalEvent, uint32_t numWaitEvents,
                                     ze_event_handle_t *phWaitEvents);

/* What each executed command did, for observers that model the device's counters (metrics). Times are device ns. */
struct zf_work_record {
    zf_device *device; /* the device of the queue the command ran on */
    uint32_t ordinal;  /* its queue group and engine index */
    uint32_t index;
    zf_command_kind kind;
    const char *name; /* the custom command's ops->name, or NULL */
    uint64_t start_ns;
    uint64_t end_ns;
    uint64_t bytes_read;
    uint64_t bytes_written;
    uint64_t work_items;    /* kernel launches: work-items of all the launches of the command */
    uint64_t kernel_cycles; /* kernel launches: modelled device cycles spent in the kernels (the longest tile's) */
    zf_work_counts work;    /* kernel launches: what the kernels executed, summed (zf_kernel_launch_run) */
    uint32_t tiles;         /* kernel launches: the tiles they ran on (zf_device_tiles); 1 for other commands */
    uint64_t tile_ns[ZF_SCENARIO_MAX_SUBDEVICES]; /* how long each tile was busy from the start, in device ns */
    bool faulted;
    bool lost; /* the fault is an injected device loss (docs/scenarios.md, "faults"): the command did not run */
};

typedef void (*zf_work_observer)(const zf_work_record *record, void *user_data);

/* Plain host memory a command touches (not in an allocation of the driver): every byte mapped for the access, the
 * check kernels make (/proc/self/maps, zf_host_range_unusable); otherwise a device fault is logged, naming `what`,
 * and ZE_RESULT_ERROR_DEVICE_LOST returned: the engine reports it as for a kernel, the process lives. */
ze_result_t zf_command_host_check(const void *ptr, size_t size, bool write, const char *what);

/* Host-side effect of a command an engine of `device` runs from `start_ns` (exec/perform.c): returns its result, sets
 * *cost_ns to its modelled duration and fills the work the record reports (bytes, work-items, cycles). */
ze_result_t zf_perform(zf_device *device, zf_queue *queue, zf_command *command, uint64_t start_ns, uint64_t *cost_ns,
                       zf_work_record *record);

/* The one list of execution observers (metrics, sysman telemetry...): each is called, in the order they were added, on
 * the thread that ran each command (an engine worker, or the caller of a synchronous submission) after the command,
 * before its event is signalled. Adding fails loudly (an error naming ZF_MAX_OBSERVERS) when the list is full;
 * removing takes out the entry of that observer and user_data. */
#define ZF_MAX_OBSERVERS 8u
bool zf_engine_add_observer(zf_work_observer observer, void *user_data);
void zf_engine_remove_observer(zf_work_observer observer, void *user_data);

/* Waits until no engine of `device` has work queued or running, or timeout_ns passes (UINT64_MAX: forever); returns
 * whether it is idle. */
bool zf_device_wait_idle(zf_device *device, uint64_t timeout_ns);

/* Host clock: the earliest device time from which a command of an engine of this process on the card of `root` is
 * still being executed (UINT64_MAX when none): its counters are not known yet, so no report may cover it. */
uint64_t zf_engines_hold_ns(const zf_device *root);

static inline zf_event *zf_event_from(ze_event_handle_t handle) {
    return (zf_event *)handle;
}

static inline zf_cmdlist *zf_cmdlist_from(ze_command_list_handle_t handle) {
    return (zf_cmdlist *)handle;
}

static inline zf_queue *zf_queue_from(ze_command_queue_handle_t handle) {
    return (zf_queue *)handle;
}

#endif
