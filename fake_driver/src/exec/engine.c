/* Engines: one worker thread per (device, queue group ordinal, index), created on first use, running submissions in
 * order. Device time is modelled per engine (see zf_exec.h and docs/cost-model.md). */
#include "core/zf_core.h"
#include "exec/zf_exec.h"
#include "memory/zf_memory.h"
#include "module/zf_kernel.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ZF_INLINE_LISTS 4u  /* lists a submission holds without an array of its own */
#define ZF_SPARE_SUBS   64u /* finished submissions an engine keeps for the next ones */

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
} zf_submission;

struct zf_engine {
    zf_device *device;
    uint32_t ordinal;
    uint32_t index;
    pthread_t thread;
    zf_submission *head; /* FIFO, guarded by the sync lock */
    zf_submission *tail;
    pthread_cond_t wake; /* the worker waits here (with the sync lock) for a submission: other broadcasts pass it by */
    _Atomic uint64_t submissions; /* submissions queued so far: the idle worker watches it before it sleeps */
    zf_submission *spare;         /* finished submissions for reuse, guarded by the sync lock */
    uint32_t num_spare;
    bool stop;
    bool running;        /* a submission taken from the FIFO, or run in place, is running; guarded by the sync lock */
    uint64_t free_at_ns; /* touched only by whoever runs the engine's submission (running) */
    struct zf_engine *next;
};

static pthread_mutex_t zf_sync_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t zf_sync_cond;
static pthread_once_t zf_sync_once = PTHREAD_ONCE_INIT;
static zf_engine *zf_engines; /* guarded by the sync lock */

/* The execution observer; set rarely (when metrics start), read by every worker after each command. */
typedef struct zf_observer_slot {
    zf_work_observer observer;
    void *user_data;
} zf_observer_slot;
static zf_observer_slot zf_observer;
static pthread_rwlock_t zf_observer_lock = PTHREAD_RWLOCK_INITIALIZER;
/* Permanent observers (sysman telemetry), called after the metrics one; only added, never removed. */
#define ZF_MAX_PERMANENT_OBSERVERS 4u
static zf_observer_slot zf_permanent[ZF_MAX_PERMANENT_OBSERVERS];
static uint32_t zf_num_permanent; /* guarded by zf_observer_lock */

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

static bool zf_is_realtime(const zf_engine *engine) {
    return zf_device_clock(engine->device)->mode == ZF_CLOCK_REALTIME;
}

/* Blocks the worker until every wait event is signalled; returns the latest signal time, or false when stopping. */
static bool zf_engine_wait_events(zf_engine *engine, const zf_command *command, uint64_t *ready_ns) {
    if (command->num_waits == 0)
        return true; /* nothing to wait for: a stop request is seen before the next command */
    zf_sync_lock();
    for (uint32_t i = 0; i < command->num_waits; i++) {
        zf_event *event = command->waits[i];
        while (!event->signaled && !engine->stop)
            zf_sync_wait_until(UINT64_MAX);
        if (engine->stop)
            break;
        *ready_ns = zf_max_u64(*ready_ns, event->signal_ns);
    }
    bool running = !engine->stop;
    zf_sync_unlock();
    return running;
}

static void zf_event_mark(zf_event *event, zf_device *device, const zf_work_record *record) {
    event->signal_ns = record->end_ns;
    event->start_ns = record->start_ns;
    event->end_ns = record->end_ns;
    event->timestamp_device = device;
    event->tiles = record->tiles;
    for (uint32_t t = 0; t < record->tiles; t++)
        event->tile_end_ns[t] = record->start_ns + record->tile_ns[t];
    event->signaled = true; /* last: see zf_event */
}

static void zf_write_timestamp(zf_device *device, uint64_t *dst, uint64_t ns) {
    zf_clock *clock = zf_device_clock(device);
    *dst = zf_clock_mask(zf_clock_ns_to_ticks(clock, ns), clock->valid_bits);
}

static void zf_write_interval(const zf_event *event, uint64_t start_ns, uint64_t end_ns,
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
    zf_write_interval(event, event->start_ns, event->end_ns, out);
}

void zf_event_write_tile_timestamp(const zf_event *event, uint32_t tile, ze_kernel_timestamp_result_t *out) {
    zf_write_interval(event, event->start_ns, tile < event->tiles ? event->tile_end_ns[tile] : event->end_ns, out);
}

/* Host-side effect of a command: returns its result, sets *cost_ns to its modelled duration and fills the work the
 * record reports (bytes, work-items, cycles). */
static ze_result_t zf_perform(zf_engine *engine, zf_queue *queue, zf_command *command, uint64_t start_ns,
                              uint64_t *cost_ns, zf_work_record *record);

void zf_engine_set_observer(zf_work_observer observer, void *user_data) {
    pthread_rwlock_wrlock(&zf_observer_lock);
    zf_observer.observer = observer;
    zf_observer.user_data = user_data;
    pthread_rwlock_unlock(&zf_observer_lock);
}

bool zf_engine_add_observer(zf_work_observer observer, void *user_data) {
    pthread_rwlock_wrlock(&zf_observer_lock);
    bool added = zf_num_permanent < ZF_MAX_PERMANENT_OBSERVERS;
    if (added)
        zf_permanent[zf_num_permanent++] = (zf_observer_slot){observer, user_data};
    pthread_rwlock_unlock(&zf_observer_lock);
    return added;
}

static void zf_engine_notify(const zf_work_record *record) {
    pthread_rwlock_rdlock(&zf_observer_lock);
    if (zf_observer.observer != NULL)
        zf_observer.observer(record, zf_observer.user_data);
    for (uint32_t i = 0; i < zf_num_permanent; i++)
        zf_permanent[i].observer(record, zf_permanent[i].user_data);
    pthread_rwlock_unlock(&zf_observer_lock);
}

/* How long each tile was busy within the command: a kernel launch on several tiles (modelled mode) as the cost model
 * said, never past the command's end; anything else on one tile, throughout. */
static void zf_record_tiles(zf_work_record *record, bool realtime) {
    uint64_t span = record->end_ns - record->start_ns;
    if (realtime || record->tiles <= 1) {
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

/* Runs one command. The last command of a submission completes the submission in the same critical section that
 * signals its event, so a host thread that saw the event never finds the list or queue still busy. Only a completion
 * that can end a wait broadcasts: a host thread waiting behind a long run of launches is not woken by each of them
 * (a futex wake and a context switch per command otherwise). */
static void zf_engine_run_command(zf_engine *engine, zf_submission *sub, zf_command *command, bool last) {
    zf_queue *queue = sub->queue;
    uint64_t submit_ns = sub->submit_ns;
    /* Modelled: the engine sees a submission its dispatch latency after it was made (docs/cost-model.md). */
    uint64_t start = zf_max_u64(engine->free_at_ns, submit_ns + zf_cost_dispatch_ns(engine->device));
    if (!zf_engine_wait_events(engine, command, &start))
        return;
    zf_clock *clock = zf_device_clock(engine->device);
    if (zf_is_realtime(engine))
        start = zf_clock_now_ns(clock);
    uint64_t cost = 0;
    zf_work_record record = {.device = engine->device,
                             .ordinal = engine->ordinal,
                             .index = engine->index,
                             .kind = command->kind,
                             .name = command->kind == ZF_CMD_CUSTOM ? command->u.custom.ops->name : NULL,
                             .tiles = 1};
    ze_result_t result = zf_perform(engine, queue, command, start, &cost, &record);
    /* A launch's records go back to its list's pool before the submission completes: once it has, the application
     * may destroy the list, and the pool with it. */
    if (sub->has_single && zf_command_is_launch(command))
        zf_command_free(command);
    uint64_t end = zf_is_realtime(engine) ? zf_max_u64(zf_clock_now_ns(clock), start) : start + cost;
    engine->free_at_ns = end;
    if (result != ZE_RESULT_SUCCESS)
        zf_device_record_fault(engine->device, zf_result_name(result));
    record.start_ns = start;
    record.end_ns = end;
    zf_record_tiles(&record, zf_is_realtime(engine));
    record.faulted = result != ZE_RESULT_SUCCESS;
    zf_engine_notify(&record);
    zf_sync_lock();
    if (command->kind == ZF_CMD_SIGNAL_EVENT)
        zf_event_mark(command->target_event, engine->device, &record);
    else if (command->kind == ZF_CMD_RESET_EVENT)
        command->target_event->signaled = false;
    if (command->signal != NULL)
        zf_event_mark(command->signal, engine->device, &record);
    queue->last_end_ns = zf_max_u64(queue->last_end_ns, end);
    bool wake = zf_command_changes_event(command);
    if (last)
        zf_engine_complete(sub, wake); /* which wakes the host's waiters */
    else if (wake)
        zf_sync_broadcast();
    zf_sync_unlock();
}

static size_t zf_submission_commands(const zf_submission *sub) {
    if (sub->has_single)
        return 1;
    size_t count = 0;
    for (uint32_t l = 0; l < sub->num_lists; l++)
        count += sub->lists[l]->num_commands;
    return count;
}

static void zf_engine_run_submission(zf_engine *engine, zf_submission *sub) {
    size_t remaining = zf_submission_commands(sub);
    if (remaining == 0) {
        zf_sync_lock();
        zf_engine_complete(sub, false);
        zf_sync_unlock();
        return;
    }
    if (sub->has_single) {
        zf_engine_run_command(engine, sub, &sub->single, true);
        return;
    }
    /* Once the last command completed the submission, the application may destroy the lists at once: touch nothing
     * of them after it. */
    for (uint32_t l = 0; l < sub->num_lists; l++) {
        zf_cmdlist *list = sub->lists[l];
        size_t count = list->num_commands;
        for (size_t c = 0; c < count; c++) {
            bool last = --remaining == 0;
            zf_engine_run_command(engine, sub, &list->commands[c], last);
            if (last)
                return;
        }
    }
}

/* Completes a submission (with the sync lock held) and wakes the waiters it can release: those of an event its last
 * command changed (`wake`), of its fence, and of its queue once the queue is idle (zf_queue_wait). */
static void zf_engine_complete(zf_submission *sub, bool wake) {
    if (sub->in_place) {
        zf_engine *engine = sub->queue->engine;
        engine->running = false; /* in the critical section that completes it: see zf_engine_run_command */
        sub->end_ns = sub->queue->last_end_ns;
        if (engine->head != NULL)
            pthread_cond_signal(&engine->wake); /* submitted meanwhile: the worker's turn */
    }
    sub->queue->completed++;
    for (uint32_t l = 0; l < sub->num_lists; l++)
        sub->lists[l]->in_flight--;
    if (sub->fence != NULL) {
        sub->fence->signaled = true;
        sub->fence->signal_ns = sub->queue->last_end_ns;
    }
    if (wake || sub->in_place || sub->fence != NULL || sub->queue->completed == sub->queue->submitted)
        zf_sync_broadcast();
}

static void zf_submission_release(zf_submission *sub) {
    if (sub->has_single)
        zf_command_free(&sub->single);
    if (sub->lists != sub->few)
        free(sub->lists);
}

static void zf_submission_free(zf_submission *sub) {
    zf_submission_release(sub);
    free(sub);
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

/* Host time an idle worker watches for the next submission before it sleeps: an application that launches in a loop
 * then hands work over without waking a thread (a futex wake and a context switch per launch otherwise). */
#define ZF_LINGER_NS 20000u

static inline void zf_cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

/* Called with the sync lock held, and returns with it held. */
static void zf_engine_linger(zf_engine *engine) {
    uint64_t seen = atomic_load_explicit(&engine->submissions, memory_order_relaxed);
    zf_sync_unlock();
    uint64_t until = zf_host_now_ns() + ZF_LINGER_NS;
    for (uint32_t spins = 1; atomic_load_explicit(&engine->submissions, memory_order_relaxed) == seen; spins++) {
        zf_cpu_relax();
        if (spins % 64 == 0 && zf_host_now_ns() >= until)
            break;
    }
    zf_sync_lock();
}

static void *zf_engine_main(void *arg) {
    zf_engine *engine = arg;
    zf_sync_lock();
    for (;;) {
        if (engine->head == NULL && !engine->stop)
            zf_engine_linger(engine);
        /* running here means a submission runs in place on another thread (zf_engine_run_in_place) */
        while ((engine->head == NULL || engine->running) && !engine->stop)
            pthread_cond_wait(&engine->wake, &zf_sync_mutex);
        if (engine->stop)
            break;
        zf_submission *sub = engine->head;
        engine->head = sub->next;
        if (engine->head == NULL)
            engine->tail = NULL;
        engine->running = true;
        zf_sync_unlock();
        zf_engine_run_submission(engine, sub);
        zf_submission_release(sub);
        zf_sync_lock();
        if (!zf_submission_recycle(engine, sub))
            free(sub);
        engine->running = false;
        if (engine->head == NULL)
            zf_sync_broadcast(); /* the engine is idle: zf_device_wait_idle */
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
        if (pthread_create(&engine->thread, NULL, zf_engine_main, engine) != 0) {
            pthread_cond_destroy(&engine->wake);
            free(engine);
            zf_sync_unlock();
            return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "cannot start the engine's worker thread");
        }
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
    return true;
}

/* What a submission changes when it is accepted: its lists are in flight, its fence unsignalled. Called with the sync
 * lock held. */
static void zf_submission_accept(zf_queue *queue, zf_cmdlist **lists, uint32_t num_lists, zf_fence *fence) {
    for (uint32_t l = 0; l < num_lists; l++)
        lists[l]->in_flight++;
    if (fence != NULL)
        fence->signaled = false;
    queue->submitted++;
}

ze_result_t zf_engine_submit(zf_queue *queue, zf_cmdlist **lists, uint32_t num_lists, zf_command *single,
                             zf_fence *fence) {
    zf_engine *engine = queue->engine;
    zf_sync_lock();
    zf_submission *sub = engine->spare;
    if (sub != NULL) {
        engine->spare = sub->next;
        engine->num_spare--;
    } else {
        zf_sync_unlock();
        sub = malloc(sizeof *sub);
        zf_sync_lock();
    }
    if (sub == NULL || !zf_submission_fill(sub, queue, lists, num_lists, single, fence)) {
        zf_sync_unlock();
        free(sub);
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory for a submission");
    }
    zf_submission_accept(queue, lists, num_lists, fence);
    if (engine->tail != NULL)
        engine->tail->next = sub;
    else
        engine->head = sub;
    engine->tail = sub;
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
    zf_engine_run_submission(engine, &sub);
    if (sub.has_single)
        zf_command_free(&sub.single);
    zf_clock_observe(zf_device_clock(queue->device), sub.end_ns);
    return true;
}

static bool zf_queue_idle(const void *object) {
    const zf_queue *queue = object;
    return queue->completed == queue->submitted;
}

ze_result_t zf_queue_wait(zf_queue *queue, uint64_t timeout_ns) {
    zf_sync_lock();
    bool idle = zf_sync_await(zf_queue_idle, queue, timeout_ns);
    uint64_t end = queue->last_end_ns;
    zf_sync_unlock();
    if (!idle)
        return ZE_RESULT_NOT_READY;
    zf_clock_observe(zf_device_clock(queue->device), end);
    return ZE_RESULT_SUCCESS;
}

void zf_engines_shutdown(void) {
    zf_sync_lock();
    zf_engine *engines = zf_engines;
    zf_engines = NULL;
    for (zf_engine *e = engines; e != NULL; e = e->next) {
        e->stop = true;
        pthread_cond_signal(&e->wake);
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
            free(sub);
        }
        pthread_cond_destroy(&engines->wake);
        free(engines);
        engines = next;
    }
}

/* ---- what each command does on the host ---- */

/* Before a command touches [ptr, ptr + size): the range must not run past its allocation nor reach freed memory (or
 * virtual memory mapped without access; for a write, mapped read-only), and an allocation it lies in is held mapped
 * until zf_access_end, even if the application frees it meanwhile. Plain host memory the driver did not allocate is
 * accessed as it is. */
static ze_result_t zf_access_begin(zf_context *context, const void *ptr, size_t size, bool write, const char *what,
                                   zf_mem_block **hold) {
    *hold = NULL;
    if (size == 0)
        return ZE_RESULT_SUCCESS;
    if (zf_memory_range_overruns(context, ptr, size)) {
        zf_log(ZF_LOG_ERROR, "device fault: %s [%p, +%zu) runs past the end of its allocation", what, ptr, size);
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    }
    zf_allocation allocation;
    *hold = zf_memory_hold(context, ptr, size, &allocation);
    if (*hold != NULL)
        return ZE_RESULT_SUCCESS;
    if (zf_memory_range_freed(ptr, size)) {
        zf_log(ZF_LOG_ERROR, "device fault: %s [%p, +%zu) is in freed or unmapped memory", what, ptr, size);
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    }
    zf_vm_span span;
    if (write && zf_virtual_span(ptr, size, &span) && span.access == ZE_MEMORY_ACCESS_ATTRIBUTE_READONLY) {
        zf_log(ZF_LOG_ERROR, "device fault: %s writes [%p, +%zu), virtual memory mapped read-only", what, ptr, size);
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    }
    return ZE_RESULT_SUCCESS;
}

static void zf_access_end(zf_mem_block *hold) {
    if (hold != NULL)
        zf_memory_release(hold);
}

/* The two ranges a copy touches, each in the context it belongs to. */
typedef struct zf_transfer {
    zf_context *dst_context, *src_context;
    void *dst;
    const void *src;
    size_t dst_extent, src_extent;
} zf_transfer;

static ze_result_t zf_transfer_begin(const zf_transfer *t, const char *what, zf_mem_block *holds[2]) {
    ze_result_t result = zf_access_begin(t->dst_context, t->dst, t->dst_extent, true, what, &holds[0]);
    if (result == ZE_RESULT_SUCCESS)
        result = zf_access_begin(t->src_context, t->src, t->src_extent, false, what, &holds[1]);
    return result;
}

static void zf_transfer_end(zf_mem_block *holds[2]) {
    zf_access_end(holds[0]);
    zf_access_end(holds[1]);
}

static ze_result_t zf_perform_copy(zf_queue *queue, const zf_copy_args *copy) {
    zf_transfer t = {queue->context, copy->src_context != NULL ? copy->src_context : queue->context,
                     copy->dst,      copy->src,
                     copy->size,     copy->size};
    zf_mem_block *holds[2] = {NULL, NULL};
    ze_result_t result = zf_transfer_begin(&t, "copy", holds);
    if (result == ZE_RESULT_SUCCESS && copy->size > 0)
        memmove(copy->dst, copy->src, copy->size);
    zf_transfer_end(holds);
    return result;
}

static size_t zf_region_extent(const ze_copy_region_t *r, uint32_t pitch, uint32_t slice_pitch) {
    uint32_t depth = r->depth == 0 ? 1 : r->depth;
    if (r->width == 0 || r->height == 0)
        return 0;
    return (size_t)(r->originZ + depth - 1) * slice_pitch + (size_t)(r->originY + r->height - 1) * pitch + r->originX +
           r->width;
}

static void zf_copy_rows(const zf_copy_region_args *a) {
    uint32_t depth = a->src_region.depth == 0 ? 1 : a->src_region.depth;
    for (uint32_t z = 0; z < depth; z++) {
        for (uint32_t y = 0; y < a->src_region.height; y++) {
            const char *src = (const char *)a->src + (size_t)(a->src_region.originZ + z) * a->src_slice_pitch +
                              (size_t)(a->src_region.originY + y) * a->src_pitch + a->src_region.originX;
            char *dst = (char *)a->dst + (size_t)(a->dst_region.originZ + z) * a->dst_slice_pitch +
                        (size_t)(a->dst_region.originY + y) * a->dst_pitch + a->dst_region.originX;
            memmove(dst, src, a->src_region.width);
        }
    }
}

static ze_result_t zf_perform_copy_region(zf_queue *queue, const zf_copy_region_args *a) {
    zf_transfer t = {queue->context,
                     queue->context,
                     a->dst,
                     a->src,
                     zf_region_extent(&a->dst_region, a->dst_pitch, a->dst_slice_pitch),
                     zf_region_extent(&a->src_region, a->src_pitch, a->src_slice_pitch)};
    zf_mem_block *holds[2] = {NULL, NULL};
    ze_result_t result = zf_transfer_begin(&t, "region copy", holds);
    if (result == ZE_RESULT_SUCCESS)
        zf_copy_rows(a);
    zf_transfer_end(holds);
    return result;
}

static ze_result_t zf_perform_fill(zf_queue *queue, const zf_fill_args *fill) {
    zf_mem_block *hold = NULL;
    ze_result_t result = zf_access_begin(queue->context, fill->dst, fill->size, true, "fill", &hold);
    if (result == ZE_RESULT_SUCCESS) {
        uint8_t *dst = fill->dst;
        if (fill->pattern_size == 1) {
            memset(dst, fill->pattern[0], fill->size);
        } else {
            for (size_t i = 0; i < fill->size; i++)
                dst[i] = fill->pattern[i % fill->pattern_size];
        }
    }
    zf_access_end(hold);
    return result;
}

/* A small read or write of the device in the application's memory (the other side is the driver's), checked like a
 * copy: `write` says which side is the application's. */
static ze_result_t zf_device_access(zf_context *context, void *dst, const void *src, size_t size, bool write,
                                    const char *what) {
    zf_mem_block *hold = NULL;
    ze_result_t result = zf_access_begin(context, write ? dst : src, size, write, what, &hold);
    if (result == ZE_RESULT_SUCCESS)
        memcpy(dst, src, size);
    zf_access_end(hold);
    return result;
}

static ze_result_t zf_perform_write_timestamp(zf_engine *engine, zf_queue *queue, uint64_t *dst, uint64_t ns) {
    uint64_t ticks;
    zf_write_timestamp(engine->device, &ticks, ns);
    return zf_device_access(queue->context, dst, &ticks, sizeof ticks, true, "global timestamp");
}

static ze_result_t zf_perform_query_timestamps(zf_queue *queue, const zf_query_timestamps_args *q) {
    ze_result_t result = ZE_RESULT_SUCCESS;
    for (uint32_t i = 0; i < q->num_events && result == ZE_RESULT_SUCCESS; i++) {
        size_t offset = q->offsets != NULL ? q->offsets[i] : i * sizeof(ze_kernel_timestamp_result_t);
        ze_kernel_timestamp_result_t timestamp = {{0, 0}, {0, 0}};
        zf_sync_lock();
        if (q->events[i]->signaled && q->events[i]->timestamp_device != NULL)
            zf_event_write_kernel_timestamp(q->events[i], &timestamp);
        zf_sync_unlock();
        result = zf_device_access(queue->context, (char *)q->dst + offset, &timestamp, sizeof timestamp, true,
                                  "kernel timestamp query");
    }
    return result;
}

/* Runs one kernel, then adds what it executed and the time it took on each tile to the record. */
static ze_result_t zf_launch_one(zf_device *device, zf_kernel_launch *launch, const ze_group_count_t *groups,
                                 zf_work_record *record) {
    zf_work_counts work = {0};
    ze_result_t result = zf_kernel_launch_run(launch, groups, &work);
    uint32_t size[3];
    zf_kernel_launch_group_size(launch, size);
    uint64_t tile_ns[ZF_SCENARIO_MAX_SUBDEVICES];
    zf_cost_kernel_tiles(&work, groups, (uint64_t)size[0] * size[1] * size[2], device, tile_ns);
    for (uint32_t t = 0; t < record->tiles; t++)
        record->tile_ns[t] += tile_ns[t];
    record->work_items += zf_launch_work_items(launch, groups);
    zf_work_add(&record->work, &work);
    return result;
}

static ze_result_t zf_perform_launch(zf_engine *engine, zf_queue *queue, const zf_launch_args *launch,
                                     uint64_t *cost_ns, zf_work_record *record) {
    uint32_t count = launch->num_kernels, indirect_count = 0;
    if (launch->indirect_count != NULL) {
        /* the device reads the count at execution, bounded by the append */
        ze_result_t read = zf_device_access(queue->context, &indirect_count, launch->indirect_count,
                                            sizeof indirect_count, false, "indirect kernel count");
        if (read != ZE_RESULT_SUCCESS)
            return read;
        count = indirect_count < count ? indirect_count : count;
    }
    ze_result_t result = ZE_RESULT_SUCCESS;
    record->tiles = zf_device_tiles(engine->device);
    for (uint32_t t = 0; t < record->tiles; t++)
        record->tile_ns[t] = *cost_ns;
    for (uint32_t k = 0; k < count; k++) {
        ze_group_count_t groups = launch->groups;
        if (launch->indirect_groups != NULL) {
            ze_result_t read = zf_device_access(queue->context, &groups, &launch->indirect_groups[k], sizeof groups,
                                                false, "indirect group count");
            if (read != ZE_RESULT_SUCCESS)
                return read;
        }
        ze_result_t r = zf_launch_one(engine->device, zf_launch_at(launch, k), &groups, record);
        if (r != ZE_RESULT_SUCCESS)
            result = r;
    }
    /* The command lasts until its slowest tile is done. */
    uint64_t longest = 0;
    for (uint32_t t = 0; t < record->tiles; t++)
        longest = zf_max_u64(longest, record->tile_ns[t]);
    record->kernel_cycles = zf_ns_to_cycles(longest - *cost_ns, engine->device);
    record->bytes_read = record->work.read[ZF_SPACE_GLOBAL];
    record->bytes_written = record->work.written[ZF_SPACE_GLOBAL];
    *cost_ns = longest;
    return result;
}

static ze_result_t zf_perform(zf_engine *engine, zf_queue *queue, zf_command *command, uint64_t start_ns,
                              uint64_t *cost_ns, zf_work_record *record) {
    *cost_ns = zf_cost_command_ns(command, queue);
    switch (command->kind) {
    case ZF_CMD_COPY:
        record->bytes_read = record->bytes_written = command->u.copy.size;
        return zf_perform_copy(queue, &command->u.copy);
    case ZF_CMD_COPY_REGION:
        record->bytes_read = record->bytes_written = zf_region_bytes(&command->u.region.src_region);
        return zf_perform_copy_region(queue, &command->u.region);
    case ZF_CMD_FILL:
        record->bytes_written = command->u.fill.size;
        return zf_perform_fill(queue, &command->u.fill);
    case ZF_CMD_WRITE_TIMESTAMP:
        return zf_perform_write_timestamp(engine, queue, command->timestamp_dst, start_ns);
    case ZF_CMD_QUERY_KERNEL_TIMESTAMPS:
        return zf_perform_query_timestamps(queue, &command->u.query);
    case ZF_CMD_LAUNCH:
    case ZF_CMD_LAUNCH_INDIRECT:
    case ZF_CMD_LAUNCH_MULTIPLE_INDIRECT:
        return zf_perform_launch(engine, queue, &command->u.launch, cost_ns, record);
    case ZF_CMD_CUSTOM:
        return command->u.custom.ops->perform(command->u.custom.payload, queue, start_ns, cost_ns);
    case ZF_CMD_BARRIER:
    case ZF_CMD_SIGNAL_EVENT:
    case ZF_CMD_RESET_EVENT:
    case ZF_CMD_HINT:
        return ZE_RESULT_SUCCESS;
    }
    return ZE_RESULT_SUCCESS;
}
