/* Engines: one worker thread per (device, queue group ordinal, index), created on first use, running submissions in
 * order. Device time is modelled per engine (see zf_exec.h and docs/cost-model.md). */
#include "core/zf_core.h"
#include "core/zf_fault.h"
#include "exec/zf_exec.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ZF_INLINE_LISTS 4u /* lists a submission holds without an array of its own */
/* Submissions an engine's FIFO holds before a submitter waits for room, as a ring buffer full of commands makes a
 * real driver's submitter wait: an application that launches faster than the engine runs then reuses warm records
 * instead of allocating without bound (docs/cost-model.md). A submitter never waits while the engine waits for an
 * event, which the submitter may be the one to signal. */
#define ZF_QUEUE_DEPTH 128u
#define ZF_SPARE_SUBS  (2 * ZF_QUEUE_DEPTH) /* finished submissions an engine keeps for the next ones */

typedef struct zf_submission {
    struct zf_submission *next;
    zf_queue *queue;
    zf_cmdlist **lists; /* borrowed lists: `few`, an owned array, or (run in place) the caller's */
    zf_cmdlist *few[ZF_INLINE_LISTS];
    uint32_t num_lists;
    zf_command single;
    bool has_single;
    bool in_place;   /* run on the submitting thread (zf_engine_run_in_place) */
    uint64_t end_ns; /* in place: the queue's last end once the submission completed */
    zf_fence *fence;
    uint64_t submit_ns;
    zf_uses uses; /* the allocations its commands use, held until each has run; its storage is kept for reuse */
    size_t ran;   /* commands run so far */
} zf_submission;

struct zf_engine {
    zf_device *device;
    uint32_t ordinal;
    uint32_t index;
    pthread_t thread;
    zf_submission *head; /* FIFO, guarded by the sync lock */
    zf_submission *tail;
    pthread_cond_t wake; /* the worker waits here (with the sync lock) for a submission: other broadcasts pass it by */
    pthread_cond_t room; /* submitters wait here (with the sync lock) for room in the FIFO */
    uint32_t queued;     /* submissions in the FIFO, guarded by the sync lock */
    uint32_t throttled;  /* submitters waiting for room, guarded by the sync lock */
    bool blocked;        /* the engine waits for an event; guarded by the sync lock */
    _Atomic uint64_t submissions; /* submissions queued so far: the idle worker watches it before it sleeps */
    _Atomic uint64_t takes;       /* times the worker emptied the FIFO: a full one's submitter watches it */
    zf_submission *spare;         /* finished submissions for reuse, guarded by the sync lock */
    uint32_t num_spare;
    _Atomic bool stop;   /* set under the sync lock; read without it by zf_clock_await */
    uint32_t hold_slot;  /* its entry in zf_holds, or ZF_MAX_HOLDS */
    bool running;        /* a submission taken from the FIFO, or run in place, is running; guarded by the sync lock */
    uint64_t free_at_ns; /* touched only by whoever runs the engine's submission (running) */
    struct zf_engine *next;
};

/* Adaptive: a submitting thread and a worker that sets an event hold it for a few hundred nanoseconds at a time, so a
 * thread that finds it taken spins briefly instead of sleeping in the kernel (a futex wait and wake per collision).
 * Launches that signal an event run about 15 % faster; a process without engines (one thread) pays a few ns more per
 * lock than with glibc's single-thread path of a plain mutex. */
static pthread_mutex_t zf_sync_mutex = PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP;
static pthread_cond_t zf_sync_cond;
static pthread_once_t zf_sync_once = PTHREAD_ONCE_INIT;
static zf_engine *zf_engines; /* guarded by the sync lock */

/* The execution observers (metrics, sysman telemetry, the card's publication), in the order they were added; changed
 * rarely, read by every worker after each command. */
typedef struct zf_observer_slot {
    zf_work_observer observer;
    void *user_data;
} zf_observer_slot;
static zf_observer_slot zf_observers[ZF_MAX_OBSERVERS];
static uint32_t zf_num_observers; /* guarded by zf_observer_lock */
static pthread_rwlock_t zf_observer_lock = PTHREAD_RWLOCK_INITIALIZER;

static void zf_sync_init(void) {
    /* Deadlines are on the monotonic clock, like every other host time in the driver. */
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&zf_sync_cond, &attr);
    pthread_condattr_destroy(&attr);
}

void zf_sync_lock(void) {
    pthread_once(&zf_sync_once, zf_sync_init);
    pthread_mutex_lock(&zf_sync_mutex);
}

void zf_sync_unlock(void) {
    pthread_mutex_unlock(&zf_sync_mutex);
}

void zf_sync_broadcast(void) {
    pthread_cond_broadcast(&zf_sync_cond);
}

uint64_t zf_deadline_after(uint64_t timeout_ns) {
    uint64_t now = zf_host_now_ns();
    return timeout_ns >= UINT64_MAX - now ? UINT64_MAX : now + timeout_ns;
}

bool zf_sync_wait_until(uint64_t deadline_ns) {
    if (deadline_ns == UINT64_MAX) {
        pthread_cond_wait(&zf_sync_cond, &zf_sync_mutex);
        return true;
    }
    if (zf_host_now_ns() >= deadline_ns)
        return false;
    struct timespec ts = {.tv_sec = (time_t)(deadline_ns / 1000000000u), .tv_nsec = (long)(deadline_ns % 1000000000u)};
    return pthread_cond_timedwait(&zf_sync_cond, &zf_sync_mutex, &ts) != ETIMEDOUT;
}

bool zf_sync_await(bool (*ready)(const void *object), const void *object, uint64_t timeout_ns) {
    if (ready(object))
        return true;
    if (timeout_ns == 0)
        return false; /* a zero timeout only tests: no deadline, no clock read */
    uint64_t deadline = zf_deadline_after(timeout_ns);
    while (!ready(object)) {
        if (!zf_sync_wait_until(deadline))
            return ready(object);
    }
    return true;
}

static bool zf_flag_is_set(const void *flag) {
    return *(const bool *)flag;
}

bool zf_sync_await_flag(const bool *flag, const uint64_t *time_set, uint64_t timeout_ns, uint64_t *when) {
    zf_sync_lock();
    bool set = zf_sync_await(zf_flag_is_set, flag, timeout_ns);
    *when = *time_set;
    zf_sync_unlock();
    return set;
}

void zf_sync_clear_flag(bool *flag) {
    zf_sync_lock();
    *flag = false;
    zf_sync_unlock();
}

static uint64_t zf_max_u64(uint64_t a, uint64_t b) {
    return a > b ? a : b;
}

/* A command ran on the queue until `end_ns`; written only by whoever runs the queue's engine. */
static void zf_queue_extend(zf_queue *queue, uint64_t end_ns) {
    if (end_ns > atomic_load_explicit(&queue->last_end_ns, memory_order_relaxed))
        atomic_store_explicit(&queue->last_end_ns, end_ns, memory_order_relaxed);
}

/* ---- Holds: the device time from which an engine's command is still being executed ------------------------------
 *
 * A host clock runs while a command is emulated, and its counters are known only once it has run: a streamer must not
 * write a report for a time the command covers before the command's work is logged (docs/metrics.md, "Which reports
 * exist"). Each engine of a host clock holds the start of the command it runs; streamers write reports up to the
 * earliest hold of the card (zf_engines_hold_ns), and the process publishes it for the other processes of the card. */
#define ZF_MAX_HOLDS 256u
typedef struct zf_hold {
    _Atomic(const zf_device *) root; /* the engine's root device; NULL once the engine is gone */
    _Atomic uint64_t since_ns;       /* UINT64_MAX: nothing running */
} zf_hold;
static zf_hold zf_holds[ZF_MAX_HOLDS];
static _Atomic uint32_t zf_num_holds;

/* A slot for a new engine of a host clock (called with the sync lock held); engines past ZF_MAX_HOLDS hold nothing. */
static uint32_t zf_hold_slot_for(zf_engine *engine) {
    uint32_t n = atomic_load(&zf_num_holds);
    if (!zf_clock_follows_host(zf_device_clock(engine->device)) || n >= ZF_MAX_HOLDS)
        return ZF_MAX_HOLDS;
    atomic_store(&zf_holds[n].since_ns, UINT64_MAX);
    atomic_store(&zf_holds[n].root, engine->device->root);
    atomic_store(&zf_num_holds, n + 1);
    return n;
}

uint64_t zf_engines_hold_ns(const zf_device *root) {
    uint64_t earliest = UINT64_MAX;
    uint32_t n = atomic_load_explicit(&zf_num_holds, memory_order_acquire);
    for (uint32_t i = 0; i < n; i++) {
        const zf_device *of = atomic_load_explicit(&zf_holds[i].root, memory_order_relaxed);
        uint64_t since = atomic_load_explicit(&zf_holds[i].since_ns, memory_order_acquire);
        if (of == root && since < earliest)
            earliest = since;
    }
    return earliest;
}

/* Forgets every engine's hold (the engines stopped; called with the sync lock held). */
static void zf_holds_clear(void) {
    uint32_t n = atomic_load(&zf_num_holds);
    for (uint32_t i = 0; i < n; i++)
        atomic_store(&zf_holds[i].root, NULL);
    atomic_store(&zf_num_holds, 0);
}

static void zf_engine_hold(zf_engine *engine, uint64_t since_ns) {
    if (engine->hold_slot >= ZF_MAX_HOLDS)
        return;
    atomic_store_explicit(&zf_holds[engine->hold_slot].since_ns, since_ns, memory_order_release);
    zf_card_share *shared = engine->device->root->shared;
    if (shared != NULL)
        zf_shared_set_hold(shared, zf_engines_hold_ns(engine->device->root));
}

/* Whether the engine waits for an event; submitters waiting for room may then go on (ZF_QUEUE_DEPTH). Called with the
 * sync lock held. */
static void zf_engine_set_blocked(zf_engine *engine, bool blocked) {
    engine->blocked = blocked;
    if (blocked && engine->throttled > 0)
        pthread_cond_broadcast(&engine->room);
}

typedef enum zf_waited {
    ZF_WAITED,       /* every wait event is signalled */
    ZF_WAIT_STOPPED, /* the engine is stopping */
    ZF_WAIT_HUNG,    /* an event stayed unsignalled past the hang limit */
} zf_waited;

/* A wait that outlasts the device's hang limit is a hang: a real engine waiting on a semaphore nothing signals is
 * reset by the driver's hang detection, as one running a kernel that never ends (docs/spirv-execution.md, "Hangs"). */
static zf_waited zf_wait_hung(const zf_command *command, uint32_t i, uint64_t limit) {
    zf_log(ZF_LOG_ERROR,
           "device hang: a command waited %llu ms for its wait event %u (%p), which nothing signalled: stopped by the "
           "hang detector (two lists waiting for each other, or an event never signalled)",
           (unsigned long long)(limit / 1000000u), i, (void *)command->waits[i]);
    return ZF_WAIT_HUNG;
}

/* Blocks the worker until every wait event is signalled, at most the device's hang limit; *ready_ns becomes the
 * latest signal time. */
static zf_waited zf_engine_wait_events(zf_engine *engine, const zf_command *command, uint64_t *ready_ns) {
    if (command->num_waits == 0)
        return ZF_WAITED; /* nothing to wait for: a stop request is seen before the next command */
    uint64_t limit = zf_device_hang_timeout_ns(engine->device);
    uint64_t deadline = limit != 0 ? zf_deadline_after(limit) : UINT64_MAX;
    zf_waited waited = ZF_WAITED;
    zf_sync_lock();
    for (uint32_t i = 0; i < command->num_waits && waited == ZF_WAITED; i++) {
        zf_event *event = command->waits[i];
        if (!event->signaled && !engine->stop)
            zf_engine_set_blocked(engine, true);
        while (!event->signaled && !engine->stop && waited == ZF_WAITED) {
            if (!zf_sync_wait_until(deadline) && !event->signaled)
                waited = zf_wait_hung(command, i, limit);
        }
        if (engine->stop)
            waited = ZF_WAIT_STOPPED;
        else if (waited == ZF_WAITED)
            *ready_ns = zf_max_u64(*ready_ns, event->signal_ns);
    }
    zf_engine_set_blocked(engine, false);
    zf_sync_unlock();
    return waited;
}

static void zf_event_mark(zf_event *event, zf_device *device, const zf_work_record *record) {
    event->signal_ns = record->end_ns;
    event->faulted = record->faulted || record->lost;
    event->start_ns = record->start_ns;
    event->end_ns = record->end_ns;
    event->timestamp_device = device;
    event->tiles = record->tiles;
    for (uint32_t t = 0; t < record->tiles; t++)
        event->tile_end_ns[t] = record->start_ns + record->tile_ns[t];
    event->signaled = true; /* last: see zf_event */
}

void zf_event_write_interval(const zf_event *event, uint64_t start_ns, uint64_t end_ns,
                             ze_kernel_timestamp_result_t *out) {
    zf_clock *clock = zf_device_clock(event->timestamp_device);
    uint64_t start = zf_clock_mask(zf_clock_ns_to_ticks(clock, start_ns), clock->kernel_valid_bits);
    uint64_t end = zf_clock_mask(zf_clock_ns_to_ticks(clock, end_ns), clock->kernel_valid_bits);
    out->global.kernelStart = start;
    out->global.kernelEnd = end;
    /* The device runs one context at a time: context-active time equals wall time. */
    out->context = out->global;
}

void zf_event_write_kernel_timestamp(const zf_event *event, ze_kernel_timestamp_result_t *out) {
    zf_event_write_interval(event, event->start_ns, event->end_ns, out);
}

bool zf_engine_add_observer(zf_work_observer observer, void *user_data) {
    pthread_rwlock_wrlock(&zf_observer_lock);
    bool added = zf_num_observers < ZF_MAX_OBSERVERS;
    if (added)
        zf_observers[zf_num_observers++] = (zf_observer_slot){observer, user_data};
    pthread_rwlock_unlock(&zf_observer_lock);
    if (!added)
        zf_log(ZF_LOG_ERROR, "internal error: more than %u execution observers (ZF_MAX_OBSERVERS, exec/engine.c)",
               ZF_MAX_OBSERVERS);
    return added;
}

void zf_engine_remove_observer(zf_work_observer observer, void *user_data) {
    pthread_rwlock_wrlock(&zf_observer_lock);
    for (uint32_t i = 0; i < zf_num_observers; i++) {
        if (zf_observers[i].observer == observer && zf_observers[i].user_data == user_data) {
            memmove(&zf_observers[i], &zf_observers[i + 1], (zf_num_observers - i - 1) * sizeof zf_observers[0]);
            zf_num_observers--;
            break;
        }
    }
    pthread_rwlock_unlock(&zf_observer_lock);
}

static void zf_engine_notify(const zf_work_record *record) {
    pthread_rwlock_rdlock(&zf_observer_lock);
    for (uint32_t i = 0; i < zf_num_observers; i++)
        zf_observers[i].observer(record, zf_observers[i].user_data);
    pthread_rwlock_unlock(&zf_observer_lock);
}

/* How long each tile was busy within the command: a kernel launch on several tiles as the cost model said, never past
 * the command's end; anything else on one tile, throughout. */
static void zf_record_tiles(zf_work_record *record) {
    uint64_t span = record->end_ns - record->start_ns;
    if (record->tiles <= 1) {
        record->tiles = 1;
        record->tile_ns[0] = span;
        return;
    }
    for (uint32_t t = 0; t < record->tiles; t++)
        record->tile_ns[t] = record->tile_ns[t] < span ? record->tile_ns[t] : span;
}

/* Called with the sync lock held. */
static void zf_engine_complete(zf_submission *sub, bool wake);

/* Whether running `command` changes an event: a thread may be waiting for it (host waits, a worker's wait events, the
 * event IPC agent), so its completion broadcasts on the sync condition. */
static bool zf_command_changes_event(const zf_command *command) {
    return command->signal != NULL || command->kind == ZF_CMD_SIGNAL_EVENT || command->kind == ZF_CMD_RESET_EVENT;
}

/* How a command or a submission ended for whoever runs it. */
typedef enum zf_ran {
    ZF_RAN_ON,      /* the command ran; its submission goes on */
    ZF_RAN_LOCKED,  /* the submission completed; the sync lock is held */
    ZF_RAN_DONE,    /* the submission completed without the sync lock (zf_engine_complete_quietly) */
    ZF_RAN_STOPPED, /* the engine stops: the submission did not complete */
} zf_ran;

static void zf_engine_complete_quietly(zf_submission *sub);

/* Whether a submission's completion needs the sync lock: it signals its fence, releases a thread that runs in place,
 * or its last command changes an event (whose waiters wait on the sync condition, and which is set in the critical
 * section that completes the submission, so a host thread that saw the event never finds the list or queue still
 * busy). */
static bool zf_completion_needs_lock(const zf_submission *sub, const zf_command *last) {
    return sub->fence != NULL || sub->in_place || zf_command_changes_event(last);
}

/* Runs one command. A command that changes an event does it under the sync lock and wakes its waiters; the last
 * command of a submission completes the submission, in that same critical section (ZF_RAN_LOCKED, the lock still
 * held for the caller), or without the lock when nothing needs it (ZF_RAN_DONE): a launch without an event costs no
 * lock hand-off with the submitting thread. */
static zf_ran zf_engine_run_command(zf_engine *engine, zf_submission *sub, zf_command *command, bool last) {
    zf_queue *queue = sub->queue;
    uint64_t submit_ns = sub->submit_ns;
    /* Modelled: the engine sees a submission its dispatch latency after it was made (docs/cost-model.md). */
    uint64_t start = zf_max_u64(engine->free_at_ns, submit_ns + zf_cost_dispatch_ns(engine->device));
    zf_waited waited = zf_engine_wait_events(engine, command, &start);
    if (waited == ZF_WAIT_STOPPED)
        return ZF_RAN_STOPPED;
    zf_clock *clock = zf_device_clock(engine->device);
    zf_engine_hold(engine, start);
    uint64_t cost = 0;
    zf_work_record record = {.device = engine->device,
                             .ordinal = engine->ordinal,
                             .index = engine->index,
                             .kind = command->kind,
                             .name = command->kind == ZF_CMD_CUSTOM ? command->u.custom.ops->name : NULL,
                             .tiles = 1};
    /* A device lost by an injected rule runs nothing more: the command has no effect and takes no time. */
    zf_device_loss loss = zf_device_command_loss(engine->device);
    ze_result_t result = loss == ZF_LOSS_RUN && waited == ZF_WAITED
                             ? zf_perform(engine->device, queue, command, start, &cost, &record)
                             : ZE_RESULT_ERROR_DEVICE_LOST; /* a hung wait: not performed, completed as a fault */
    /* A launch's records go back to its list's pool before the submission completes: once it has, the application
     * may destroy the list, and the pool with it. */
    if (sub->has_single && zf_command_is_launch(command))
        zf_command_free(command);
    zf_uses_release(&sub->uses, sub->ran++); /* a blocking free of its memory may go on */
    uint64_t end = start + cost;
    engine->free_at_ns = end;
    record.faulted = result != ZE_RESULT_SUCCESS && loss != ZF_LOSS_GONE; /* a lost device faults once */
    record.lost = loss == ZF_LOSS_NOW;
    if (record.lost)
        zf_fault_count_fired();
    if (record.faulted)
        zf_device_record_fault(engine->device,
                               record.lost ? "device lost by an injected fault" : zf_result_name(result));
    record.start_ns = start;
    record.end_ns = end;
    zf_record_tiles(&record);
    /* A host clock: the command completes once device time has passed its end, never earlier; its observers (metrics,
     * telemetry) then see only work the device has done. */
    zf_clock_await(clock, end, &engine->stop);
    zf_engine_notify(&record);
    zf_engine_hold(engine, UINT64_MAX);
    zf_queue_extend(queue, end);
    bool wake = zf_command_changes_event(command);
    if (last && !zf_completion_needs_lock(sub, command)) {
        zf_engine_complete_quietly(sub);
        return ZF_RAN_DONE;
    }
    if (!wake && !last)
        return ZF_RAN_ON;
    zf_sync_lock();
    if (command->kind == ZF_CMD_SIGNAL_EVENT)
        zf_event_mark(command->target_event, engine->device, &record);
    else if (command->kind == ZF_CMD_RESET_EVENT)
        command->target_event->signaled = false;
    if (command->signal != NULL)
        zf_event_mark(command->signal, engine->device, &record);
    if (last) {
        zf_engine_complete(sub, wake); /* which wakes the host's waiters */
        return ZF_RAN_LOCKED;
    }
    zf_sync_broadcast();
    zf_sync_unlock();
    return ZF_RAN_ON;
}

static size_t zf_submission_commands(const zf_submission *sub) {
    if (sub->has_single)
        return 1;
    size_t count = 0;
    for (uint32_t l = 0; l < sub->num_lists; l++)
        count += sub->lists[l]->num_commands;
    return count;
}

/* Runs a submission: ZF_RAN_LOCKED, ZF_RAN_DONE or ZF_RAN_STOPPED, as for its last command. */
static zf_ran zf_engine_run_submission(zf_engine *engine, zf_submission *sub) {
    size_t remaining = zf_submission_commands(sub);
    if (remaining == 0) {
        zf_sync_lock();
        zf_engine_complete(sub, false);
        return ZF_RAN_LOCKED;
    }
    if (sub->has_single)
        return zf_engine_run_command(engine, sub, &sub->single, true);
    /* Once the last command completed the submission, the application may destroy the lists at once: touch nothing
     * of them after it. */
    for (uint32_t l = 0; l < sub->num_lists; l++) {
        zf_cmdlist *list = sub->lists[l];
        size_t count = list->num_commands;
        for (size_t c = 0; c < count; c++) {
            bool last = --remaining == 0;
            zf_ran ran = zf_engine_run_command(engine, sub, &list->commands[c], last);
            if (ran != ZF_RAN_ON)
                return ran;
        }
    }
    return ZF_RAN_STOPPED; /* not reached: the last command ends the submission */
}

/* Threads in zf_queue_wait, on any queue: a completion reads it after its queue may be gone. */
static _Atomic uint32_t zf_queue_waiters;

/* Counts a submission done: its lists leave flight, then its queue's count moves, which is the last the caller may
 * touch of the queue or the lists, for a thread that sees them idle may destroy them (zf_queue_idle reads the count
 * without the sync lock). True when the queue is idle. */
static bool zf_submission_count_done(zf_submission *sub) {
    zf_queue *queue = sub->queue;
    /* Read before: it counts this submission, and only a later one can be missing (a spurious wake-up). */
    uint64_t submitted = atomic_load_explicit(&queue->submitted, memory_order_relaxed);
    for (uint32_t l = 0; l < sub->num_lists; l++)
        atomic_fetch_sub_explicit(&sub->lists[l]->in_flight, 1, memory_order_release);
    return atomic_fetch_add(&queue->completed, 1) + 1 == submitted;
}

/* Completes a submission (with the sync lock held) and wakes the waiters it can release: those of an event its last
 * command changed (`wake`), of its fence, and of its queue once the queue is idle (zf_queue_wait). */
static void zf_engine_complete(zf_submission *sub, bool wake) {
    zf_queue *queue = sub->queue;
    uint64_t end_ns = atomic_load_explicit(&queue->last_end_ns, memory_order_relaxed);
    if (sub->in_place) {
        zf_engine *engine = queue->engine;
        engine->running = false; /* in the critical section that completes it: see zf_engine_run_command */
        sub->end_ns = end_ns;
        if (engine->head != NULL)
            pthread_cond_signal(&engine->wake); /* submitted meanwhile: the worker's turn */
    }
    if (sub->fence != NULL) {
        sub->fence->signaled = true;
        sub->fence->signal_ns = end_ns;
    }
    bool idle = zf_submission_count_done(sub);
    if (wake || sub->in_place || sub->fence != NULL || idle)
        zf_sync_broadcast();
}

/* Completes a submission that changes no event and has no fence without the sync lock (what it changes is atomic).
 * Only zf_queue_wait may wait for it: a waiter counts itself in zf_queue_waiters before it tests the queue, and this
 * counts the submission done before it reads zf_queue_waiters (both sequentially consistent), so either the waiter
 * sees the queue idle or this sees the waiter, and then takes the lock to wake it. */
static void zf_engine_complete_quietly(zf_submission *sub) {
    if (!zf_submission_count_done(sub) || atomic_load(&zf_queue_waiters) == 0)
        return;
    zf_sync_lock();
    zf_sync_broadcast();
    zf_sync_unlock();
}

static void zf_submission_release(zf_submission *sub) {
    zf_uses_release(&sub->uses, SIZE_MAX); /* the commands of a submission that stopped */
    if (sub->has_single)
        zf_command_free(&sub->single);
    if (sub->lists != sub->few)
        free(sub->lists);
}

/* Frees a released submission. */
static void zf_submission_discard(zf_submission *sub) {
    free(sub->uses.items);
    free(sub);
}

static void zf_submission_free(zf_submission *sub) {
    zf_submission_release(sub);
    zf_submission_discard(sub);
}

/* Keeps a finished submission for the engine's next one (steady-state submissions allocate nothing). Called with the
 * sync lock held; true when kept. */
static bool zf_submission_recycle(zf_engine *engine, zf_submission *sub) {
    if (engine->num_spare >= ZF_SPARE_SUBS || engine->stop)
        return false;
    sub->next = engine->spare;
    engine->spare = sub;
    engine->num_spare++;
    return true;
}

/* Host time a thread watches a counter before it sleeps: an idle worker for the next submission, a submitter to a
 * full engine for the worker to empty it. An application that launches in a loop then hands work over without waking
 * a thread (a futex wake and a context switch per launch otherwise). */
#define ZF_LINGER_NS 20000u

static inline void zf_cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

/* Watches `counter` for up to ZF_LINGER_NS with the sync lock released. Called with the sync lock held, and returns
 * with it held. */
static void zf_linger_on(const _Atomic uint64_t *counter) {
    uint64_t seen = atomic_load_explicit(counter, memory_order_relaxed);
    zf_sync_unlock();
    uint64_t until = zf_host_now_ns() + ZF_LINGER_NS;
    for (uint32_t spins = 1; atomic_load_explicit(counter, memory_order_relaxed) == seen; spins++) {
        zf_cpu_relax();
        if (spins % 64 == 0 && zf_host_now_ns() >= until)
            break;
    }
    zf_sync_lock();
}

/* Puts submissions not run back at the front of the FIFO (a stop: zf_engines_shutdown frees them). Called with the
 * sync lock held. */
static void zf_engine_requeue(zf_engine *engine, zf_submission *chain) {
    if (chain == NULL)
        return;
    zf_submission *last = chain;
    while (last->next != NULL)
        last = last->next;
    last->next = engine->head;
    if (engine->head == NULL)
        engine->tail = last;
    engine->head = chain;
}

/* Runs the submissions taken from the FIFO in order, without the sync lock between them, and returns with it held.
 * Returns up to ZF_SPARE_SUBS of them, released, for zf_submission_recycle (the rest are freed on the way). */
static zf_submission *zf_engine_run_chain(zf_engine *engine, zf_submission *sub) {
    zf_submission *done = NULL;
    uint32_t kept = 0;
    for (;;) {
        zf_submission *next = sub->next;
        zf_ran ran = zf_engine_run_submission(engine, sub);
        zf_submission_release(sub);
        if (kept++ < ZF_SPARE_SUBS) {
            sub->next = done;
            done = sub;
        } else {
            zf_submission_discard(sub);
        }
        if (ran == ZF_RAN_STOPPED || next == NULL) {
            if (ran != ZF_RAN_LOCKED)
                zf_sync_lock();
            zf_engine_requeue(engine, ran == ZF_RAN_STOPPED ? next : NULL);
            return done;
        }
        if (ran == ZF_RAN_LOCKED)
            zf_sync_unlock();
        sub = next;
    }
}

/* Takes the FIFO's submissions up to `last` (`count` of them) to run them, the engine then running (the sync lock
 * held). */
static zf_submission *zf_engine_take(zf_engine *engine, zf_submission *last, uint32_t count) {
    zf_submission *chain = engine->head;
    engine->head = last->next;
    if (engine->head == NULL)
        engine->tail = NULL;
    last->next = NULL;
    engine->queued -= count;
    atomic_fetch_add_explicit(&engine->takes, 1, memory_order_relaxed);
    if (engine->throttled > 0)
        pthread_cond_broadcast(&engine->room);
    engine->running = true;
    return chain;
}

/* After a chain ran (zf_engine_run_chain, the sync lock held): its submissions recycled, the engine no longer running;
 * what is queued is the worker's, and an idle engine wakes zf_device_wait_idle. */
static void zf_engine_done(zf_engine *engine, zf_submission *done) {
    while (done != NULL) {
        zf_submission *next = done->next;
        if (!zf_submission_recycle(engine, done))
            zf_submission_discard(done);
        done = next;
    }
    engine->running = false;
    if (engine->head != NULL)
        pthread_cond_signal(&engine->wake);
    else
        zf_sync_broadcast();
}

/* The worker takes the whole FIFO at once: one critical section for every submission queued meanwhile. */
static void *zf_engine_main(void *arg) {
    zf_engine *engine = arg;
    zf_sync_lock();
    for (;;) {
        if (engine->head == NULL && !engine->stop)
            zf_linger_on(&engine->submissions);
        /* running here means a submission runs on another thread (zf_engine_run_in_place, zf_engine_help) */
        while ((engine->head == NULL || engine->running) && !engine->stop)
            pthread_cond_wait(&engine->wake, &zf_sync_mutex);
        if (engine->stop)
            break;
        zf_submission *chain = zf_engine_take(engine, engine->tail, engine->queued);
        zf_sync_unlock();
        zf_engine_done(engine, zf_engine_run_chain(engine, chain));
    }
    zf_sync_unlock();
    return NULL;
}

/* True when no engine of the device has work queued or running (called with the sync lock held). */
static bool zf_device_engines_idle(const void *device) {
    for (zf_engine *e = zf_engines; e != NULL; e = e->next) {
        if (e->device == device && (e->head != NULL || e->running))
            return false;
    }
    return true;
}

bool zf_device_wait_idle(zf_device *device, uint64_t timeout_ns) {
    zf_sync_lock();
    bool idle = zf_sync_await(zf_device_engines_idle, device, timeout_ns);
    zf_sync_unlock();
    return idle;
}

static zf_engine *zf_engine_find(zf_device *device, uint32_t ordinal, uint32_t index) {
    for (zf_engine *e = zf_engines; e != NULL; e = e->next) {
        if (e->device == device && e->ordinal == ordinal && e->index == index)
            return e;
    }
    return NULL;
}

ze_result_t zf_engine_get(zf_device *device, uint32_t ordinal, uint32_t index, zf_engine **out) {
    zf_sync_lock();
    zf_engine *engine = zf_engine_find(device, ordinal, index);
    if (engine == NULL) {
        engine = calloc(1, sizeof *engine);
        if (engine == NULL) {
            zf_sync_unlock();
            return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory for an engine");
        }
        engine->device = device;
        engine->ordinal = ordinal;
        engine->index = index;
        pthread_cond_init(&engine->wake, NULL);
        pthread_cond_init(&engine->room, NULL);
        if (pthread_create(&engine->thread, NULL, zf_engine_main, engine) != 0) {
            pthread_cond_destroy(&engine->wake);
            pthread_cond_destroy(&engine->room);
            free(engine);
            zf_sync_unlock();
            return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "cannot start the engine's worker thread");
        }
        engine->hold_slot = zf_hold_slot_for(engine); /* before the worker can run: it waits for the sync lock */
        engine->next = zf_engines;
        zf_engines = engine;
    }
    zf_sync_unlock();
    *out = engine;
    return ZE_RESULT_SUCCESS;
}

/* Fills a submission; the lists go into its own slots when few (an array otherwise). */
static bool zf_submission_fill(zf_submission *sub, zf_queue *queue, zf_cmdlist **lists, uint32_t num_lists,
                               const zf_command *single, zf_fence *fence) {
    sub->next = NULL;
    sub->queue = queue;
    sub->lists = num_lists <= ZF_INLINE_LISTS ? sub->few : malloc(num_lists * sizeof *sub->lists);
    if (sub->lists == NULL)
        return false;
    if (num_lists > 0)
        memcpy(sub->lists, lists, num_lists * sizeof *lists);
    sub->num_lists = num_lists;
    sub->has_single = single != NULL;
    if (single != NULL)
        sub->single = *single;
    sub->in_place = false;
    sub->fence = fence;
    sub->submit_ns = zf_clock_now_ns(zf_device_clock(queue->device));
    sub->ran = 0;
    return true;
}

/* What a submission changes when it is accepted: its lists are in flight, its fence unsignalled. Called with the sync
 * lock held. */
static void zf_submission_accept(zf_queue *queue, zf_cmdlist **lists, uint32_t num_lists, zf_fence *fence) {
    for (uint32_t l = 0; l < num_lists; l++)
        atomic_fetch_add_explicit(&lists[l]->in_flight, 1, memory_order_relaxed);
    if (fence != NULL)
        fence->signaled = false;
    atomic_fetch_add_explicit(&queue->submitted, 1, memory_order_relaxed);
}

static bool zf_engine_full(const zf_engine *engine) {
    return engine->queued >= ZF_QUEUE_DEPTH && !engine->blocked && !engine->stop;
}

/* Waits (with the sync lock held) until the engine's FIFO has room: spinning first, for the worker empties it every
 * few microseconds when its commands are short, then on the room condition. */
static void zf_engine_wait_room(zf_engine *engine) {
    zf_linger_on(&engine->takes);
    engine->throttled++;
    while (zf_engine_full(engine))
        pthread_cond_wait(&engine->room, &zf_sync_mutex);
    engine->throttled--;
}

/* Holds the allocations the submission's commands use, before it is queued (docs/memory.md, "Freeing memory in use").
 */
static void zf_submission_gather_uses(zf_queue *queue, zf_cmdlist **lists, uint32_t num_lists, const zf_command *single,
                                      zf_uses *uses) {
    if (single != NULL) {
        zf_command_use(queue, single, 0, uses);
        return;
    }
    size_t ordinal = 0;
    for (uint32_t l = 0; l < num_lists; l++)
        for (size_t c = 0; c < lists[l]->num_commands; c++)
            zf_command_use(queue, &lists[l]->commands[c], ordinal++, uses);
}

#define ZF_USES_ROOM 32u /* a submitter gathers this many on its stack without allocating */

ze_result_t zf_engine_submit(zf_queue *queue, zf_cmdlist **lists, uint32_t num_lists, zf_command *single,
                             zf_fence *fence) {
    zf_engine *engine = queue->engine;
    zf_held_block room[ZF_USES_ROOM];
    zf_uses uses = {.items = room, .cap = ZF_USES_ROOM, .borrowed = true};
    zf_submission_gather_uses(queue, lists, num_lists, single, &uses);
    zf_sync_lock();
    if (zf_engine_full(engine))
        zf_engine_wait_room(engine);
    zf_submission *sub = engine->spare;
    if (sub != NULL) {
        engine->spare = sub->next;
        engine->num_spare--;
    } else {
        zf_sync_unlock();
        sub = calloc(1, sizeof *sub);
        zf_sync_lock();
    }
    if (sub == NULL || !zf_submission_fill(sub, queue, lists, num_lists, single, fence)) {
        zf_sync_unlock();
        zf_uses_drop(&uses);
        if (sub != NULL)
            zf_submission_discard(sub);
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory for a submission");
    }
    zf_uses_move(&sub->uses, &uses);
    zf_submission_accept(queue, lists, num_lists, fence);
    if (engine->tail != NULL)
        engine->tail->next = sub;
    else
        engine->head = sub;
    engine->tail = sub;
    engine->queued++;
    atomic_fetch_add_explicit(&engine->submissions, 1, memory_order_relaxed);
    pthread_cond_signal(&engine->wake);
    zf_sync_unlock();
    return ZE_RESULT_SUCCESS;
}

/* Whether the wait events of a single command are all signalled (called with the sync lock held). */
static bool zf_waits_signaled(const zf_command *single) {
    for (uint32_t i = 0; single != NULL && i < single->num_waits; i++)
        if (!single->waits[i]->signaled)
            return false;
    return true;
}

bool zf_engine_run_in_place(zf_queue *queue, zf_cmdlist **lists, uint32_t num_lists, zf_command *single,
                            zf_fence *fence) {
    zf_engine *engine = queue->engine;
    zf_submission sub = {.queue = queue, .lists = lists, .num_lists = num_lists, .in_place = true, .fence = fence};
    if (single != NULL) {
        sub.single = *single;
        sub.has_single = true;
    }
    sub.submit_ns = zf_clock_now_ns(zf_device_clock(queue->device));
    zf_sync_lock();
    /* Idle: nothing queued or running, so running here keeps the engine's order; a single command whose events are
     * not all signalled would block the caller where the worker would block: it goes to the worker. */
    bool idle = engine->head == NULL && !engine->running && !engine->stop && zf_waits_signaled(single);
    if (idle) {
        engine->running = true; /* the worker takes nothing until the submission completes */
        zf_submission_accept(queue, lists, num_lists, fence);
    }
    zf_sync_unlock();
    if (!idle)
        return false;
    if (zf_engine_run_submission(engine, &sub) == ZF_RAN_LOCKED) /* completing it in place takes the lock */
        zf_sync_unlock();
    if (sub.has_single)
        zf_command_free(&sub.single);
    zf_clock_observe(zf_device_clock(queue->device), sub.end_ns);
    return true;
}

/* Whether a queued submission is a single command whose wait events are all signalled (the sync lock held): a thread
 * that runs it cannot block where the worker would wait. */
static bool zf_submission_ready(const zf_submission *sub) {
    return sub->has_single && sub->num_lists == 0 && zf_waits_signaled(&sub->single);
}

/* The FIFO's submissions up to the queue's last one, when they are all ready (the sync lock held): the last, or NULL
 * (nothing of the queue's is queued, or one before it is not ready). What other queues submitted after it stays the
 * worker's. */
static zf_submission *zf_help_until(const zf_engine *engine, const zf_queue *queue, uint32_t *count) {
    zf_submission *last = NULL;
    uint32_t n = 0;
    for (zf_submission *sub = engine->head; sub != NULL; sub = sub->next) {
        if (!zf_submission_ready(sub))
            break;
        n++;
        if (sub->queue == queue) {
            last = sub;
            *count = n;
        }
    }
    return last;
}

bool zf_engine_help(zf_queue *queue) {
    zf_engine *engine = queue->engine;
    uint32_t count = 0;
    zf_sync_lock();
    /* The worker has not taken them (it takes the FIFO when it wakes): running here keeps the engine's order. */
    zf_submission *last = engine->running || engine->stop ? NULL : zf_help_until(engine, queue, &count);
    if (last == NULL) {
        zf_sync_unlock();
        return false;
    }
    zf_submission *chain = zf_engine_take(engine, last, count);
    zf_sync_unlock();
    zf_engine_done(engine, zf_engine_run_chain(engine, chain)); /* which returns with the lock held */
    zf_sync_unlock();
    return true;
}

static bool zf_queue_idle(const void *object) {
    zf_queue *queue = (zf_queue *)object;
    return atomic_load(&queue->completed) == atomic_load_explicit(&queue->submitted, memory_order_relaxed);
}

/* A waiter counts itself in zf_queue_waiters before it tests the queue: see zf_engine_complete_quietly. */
ze_result_t zf_queue_wait(zf_queue *queue, uint64_t timeout_ns) {
    if (!zf_queue_idle(queue)) {
        if (timeout_ns == 0)
            return ZE_RESULT_NOT_READY;
        if (timeout_ns == UINT64_MAX) /* a wait without a timeout may run the work itself: zf_engine_help */
            zf_engine_help(queue);
        zf_sync_lock();
        atomic_fetch_add(&zf_queue_waiters, 1);
        bool idle = zf_sync_await(zf_queue_idle, queue, timeout_ns);
        atomic_fetch_sub(&zf_queue_waiters, 1);
        zf_sync_unlock();
        if (!idle)
            return ZE_RESULT_NOT_READY;
    }
    zf_clock_observe(zf_device_clock(queue->device), atomic_load_explicit(&queue->last_end_ns, memory_order_relaxed));
    return ZE_RESULT_SUCCESS;
}

void zf_engines_shutdown(void) {
    zf_sync_lock();
    zf_holds_clear();
    zf_engine *engines = zf_engines;
    zf_engines = NULL;
    for (zf_engine *e = engines; e != NULL; e = e->next) {
        e->stop = true;
        pthread_cond_signal(&e->wake);
        pthread_cond_broadcast(&e->room);
    }
    zf_sync_broadcast(); /* a worker waiting for an event */
    zf_sync_unlock();
    while (engines != NULL) {
        zf_engine *next = engines->next;
        pthread_join(engines->thread, NULL);
        while (engines->head != NULL) {
            zf_submission *sub = engines->head;
            engines->head = sub->next;
            zf_submission_free(sub);
        }
        while (engines->spare != NULL) {
            zf_submission *sub = engines->spare;
            engines->spare = sub->next;
            zf_submission_discard(sub);
        }
        pthread_cond_destroy(&engines->wake);
        pthread_cond_destroy(&engines->room);
        free(engines);
        engines = next;
    }
}
