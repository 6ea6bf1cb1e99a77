/* Held commands: a command that waits for a user event whose status is not set yet, directly or through other such
 * commands, is not handed to the device. It is appended to a regular Level Zero command list of its own and
 * registered with every event it waits for that is not settled. When the last of them settles it is executed (the
 * list goes to the queue's Level Zero command queue, in the order the commands were released, so an engine never
 * waits for a command submitted after it); when one of them fails (clSetUserEventStatus with a negative status, or a
 * command terminated that way) it is terminated: its list is destroyed unexecuted, its status becomes
 * CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, its callbacks run and its Level Zero event is signalled from the host
 * so that waits end. The commands waiting for it, including the next command of an in-order queue, follow it
 * (docs/opencl.md, "User events"). One lock guards the hold state of every event; it is taken inside a queue's lock
 * and never while calling the application. */
#include "cl/zf_cl.h"
#include "zfcl_generated.h"

#include <stdlib.h>

static pthread_mutex_t zfcl_hold_lock = PTHREAD_MUTEX_INITIALIZER;

/* What to do once the lock is released: terminate commands (signal, callbacks) and drop references. */
typedef struct zfcl_event_set {
    cl_event *events;
    size_t num, max;
} zfcl_event_set;

typedef struct zfcl_hold_work {
    zfcl_event_set terminated; /* each holds a reference of its own */
    zfcl_event_set drops;
} zfcl_hold_work;

/* Without host memory the event is not recorded: it stays referenced (leaks) rather than be freed early. */
static void zfcl_set_add(zfcl_event_set *set, cl_event e) {
    if (set->num == set->max) {
        size_t max = set->max == 0 ? 8 : set->max * 2;
        cl_event *grown = realloc(set->events, max * sizeof *grown);
        if (grown == NULL) {
            zfcl_fail(CL_OUT_OF_HOST_MEMORY, "no host memory to settle a held command");
            return;
        }
        set->events = grown;
        set->max = max;
    }
    set->events[set->num++] = e;
}

/* Whether an event is not settled yet: a user event without status, or a held command neither executed nor
 * terminated. Called with the lock held. */
static bool zfcl_unsettled(cl_event e) {
    if (e->queue == NULL)
        return atomic_load(&e->status) == CL_SUBMITTED;
    return e->held && !e->settled;
}

static bool zfcl_add_dependent(cl_event on, cl_event e) {
    if (on->num_dependents == on->max_dependents) {
        cl_uint max = on->max_dependents == 0 ? 4 : on->max_dependents * 2;
        cl_event *grown = realloc(on->dependents, max * sizeof *grown);
        if (grown == NULL)
            return false;
        on->dependents = grown;
        on->max_dependents = max;
    }
    zfcl_retain(&e->obj);
    on->dependents[on->num_dependents++] = e;
    return true;
}

/* Whether commands waiting for `on` are terminated: a user event set to a negative status, or a command terminated
 * for that reason (a command that faulted on the device does not terminate the commands after it). */
static bool zfcl_terminates(cl_event on) {
    cl_int status = atomic_load(&on->status);
    return on->queue == NULL ? status < 0 : status == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
}

/* Registers `e` with one event it waits for; called with the lock held. */
static cl_int zfcl_hold_on(cl_event e, cl_event on) {
    if (zfcl_terminates(on)) {
        e->held = true;
        e->settled = true; /* terminated before it was appended */
        atomic_store(&e->status, CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
        return CL_SUCCESS;
    }
    if (!zfcl_unsettled(on))
        return CL_SUCCESS;
    if (!zfcl_add_dependent(on, e))
        return zfcl_fail(CL_OUT_OF_HOST_MEMORY, "no host memory to hold a command for its events");
    e->held = true;
    e->blockers++;
    return CL_SUCCESS;
}

static cl_int zfcl_held_list(cl_command_queue q, cl_event e) {
    ze_command_list_desc_t desc = {.stype = ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC,
                                   .commandQueueGroupOrdinal = q->device->compute_ordinal};
    if (zfi_zeCommandListCreate(q->context->ze, q->device->ze, &desc, &e->list) != ZE_RESULT_SUCCESS)
        return zfcl_fail(CL_OUT_OF_RESOURCES, "no command list to hold a command for its events");
    ze_command_queue_handle_t *held_queue = &q->held_queues[e->engine]; /* the engine of the command's list */
    if (*held_queue != NULL)
        return CL_SUCCESS;
    ze_command_queue_desc_t qdesc = {.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC,
                                     .ordinal = q->device->compute_ordinal,
                                     .index = e->engine,
                                     .mode = ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS};
    if (zfi_zeCommandQueueCreate(q->context->ze, q->device->ze, &qdesc, held_queue) == ZE_RESULT_SUCCESS)
        return CL_SUCCESS;
    zfi_zeCommandListDestroy(e->list);
    e->list = NULL;
    return zfcl_fail(CL_OUT_OF_RESOURCES, "no command queue to execute held commands");
}

cl_int zfcl_hold_begin(cl_command_queue q, cl_event e, cl_uint num, const cl_event *list, cl_uint num_implicit,
                       const cl_event *implicit) {
    e->list = q->lists[e->engine];
    pthread_mutex_lock(&zfcl_hold_lock);
    cl_int err = CL_SUCCESS;
    for (cl_uint i = 0; i < num && err == CL_SUCCESS; i++)
        err = zfcl_hold_on(e, list[i]);
    /* It waits for commands of its queue too (in order, the newest): held with them, terminated with them while they
     * are held, but a command enqueued after the termination runs (the terminated command's event is signalled). */
    for (cl_uint i = 0; i < num_implicit && err == CL_SUCCESS; i++)
        if (!zfcl_terminates(implicit[i]))
            err = zfcl_hold_on(e, implicit[i]);
    e->building = e->held;
    pthread_mutex_unlock(&zfcl_hold_lock);
    if (err == CL_SUCCESS && e->held)
        err = zfcl_held_list(q, e);
    if (err != CL_SUCCESS)
        zfcl_hold_abort(e);
    return err;
}

/* Submits a released command; called with the lock held, so releases reach the engine in dependency order. */
static void zfcl_execute(cl_event e) {
    cl_command_queue q = e->queue;
    zfcl_done_list *done = malloc(sizeof *done);
    ze_result_t r = zfi_zeCommandQueueExecuteCommandLists(q->held_queues[e->engine], 1, &e->list, NULL);
    if (r != ZE_RESULT_SUCCESS) { /* the command cannot run: it fails like a command that faulted on the device */
        zfcl_fail(CL_OUT_OF_RESOURCES, "a released command could not be submitted (Level Zero result 0x%x)",
                  (unsigned)r);
        atomic_store(&e->status, CL_OUT_OF_RESOURCES);
        zfi_zeEventHostSignal(e->ze);
    }
    if (done == NULL) { /* the list stays alive rather than be destroyed while it executes */
        zfcl_fail(CL_OUT_OF_HOST_MEMORY, "a held command's list could not be kept for destruction");
        return;
    }
    *done = (zfcl_done_list){e->list, q->done_lists};
    q->done_lists = done;
}

static void zfcl_settle(cl_event e, bool failed, zfcl_hold_work *w);

/* Settles the dependents of `e`, which settled itself; called with the lock held. */
static void zfcl_settle_dependents(cl_event e, bool failed, zfcl_hold_work *w) {
    for (cl_uint i = 0; i < e->num_dependents; i++) {
        cl_event d = e->dependents[i];
        zfcl_set_add(&w->drops, d); /* its reference from this list */
        if (d->settled)
            continue;
        d->blockers--;
        if (failed || (d->blockers == 0 && !d->building))
            zfcl_settle(d, failed, w);
    }
    free(e->dependents);
    e->dependents = NULL;
    e->num_dependents = e->max_dependents = 0;
}

static void zfcl_settle(cl_event e, bool failed, zfcl_hold_work *w) {
    e->settled = true;
    if (failed) {
        atomic_store(&e->status, CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
        if (!e->building) { /* else the enqueue still appending it terminates it at its end */
            zfcl_retain(&e->obj);
            zfcl_set_add(&w->terminated, e);
        }
    } else {
        zfi_zeCommandListClose(e->list);
        zfcl_execute(e);
    }
    zfcl_settle_dependents(e, failed, w);
}

/* A terminated command, outside the lock: its list goes unexecuted, its callbacks run, then its event is signalled
 * so that waits end (a waiter woken by the signal finds the callbacks done). */
static void zfcl_terminate(cl_event e) {
    zfi_zeCommandListDestroy(e->list);
    e->list = NULL;
    zfcl_run_callbacks(e, CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    zfi_zeEventHostSignal(e->ze);
}

static void zfcl_work_run(zfcl_hold_work *w) {
    for (size_t i = 0; i < w->terminated.num; i++) {
        zfcl_terminate(w->terminated.events[i]);
        zfcl_event_release(w->terminated.events[i]);
    }
    for (size_t i = 0; i < w->drops.num; i++)
        zfcl_event_release(w->drops.events[i]);
    free(w->terminated.events);
    free(w->drops.events);
}

void zfcl_hold_end(cl_event e) {
    if (!e->held)
        return;
    zfcl_hold_work w = {0};
    pthread_mutex_lock(&zfcl_hold_lock);
    e->building = false;
    bool terminated = atomic_load(&e->status) < 0;
    if (!terminated && e->blockers == 0 && !e->settled)
        zfcl_settle(e, false, &w);
    pthread_mutex_unlock(&zfcl_hold_lock);
    if (terminated)
        zfcl_terminate(e);
    zfcl_work_run(&w);
}

void zfcl_hold_abort(cl_event e) {
    if (!e->held)
        return;
    pthread_mutex_lock(&zfcl_hold_lock);
    e->settled = true; /* the events it registered with skip it */
    e->building = false;
    pthread_mutex_unlock(&zfcl_hold_lock);
    if (e->list != NULL)
        zfi_zeCommandListDestroy(e->list);
    e->list = NULL;
}

void zfcl_hold_user_set(cl_event user, cl_int status) {
    zfcl_hold_work w = {0};
    pthread_mutex_lock(&zfcl_hold_lock); /* the status is set: no command registers with the event any more */
    zfcl_settle_dependents(user, status < 0, &w);
    pthread_mutex_unlock(&zfcl_hold_lock);
    zfcl_work_run(&w);
}

zfcl_done_list *zfcl_hold_take_done(cl_command_queue q) {
    pthread_mutex_lock(&zfcl_hold_lock);
    zfcl_done_list *list = q->done_lists;
    q->done_lists = NULL;
    pthread_mutex_unlock(&zfcl_hold_lock);
    return list;
}

void zfcl_hold_free_done(cl_command_queue q, zfcl_done_list *list, bool idle) {
    if (!idle && list != NULL) { /* some may still execute: kept for a later clFinish or the queue's end */
        zfcl_done_list *tail = list;
        while (tail->next != NULL)
            tail = tail->next;
        pthread_mutex_lock(&zfcl_hold_lock);
        tail->next = q->done_lists;
        q->done_lists = list;
        pthread_mutex_unlock(&zfcl_hold_lock);
        return;
    }
    while (list != NULL) {
        zfcl_done_list *next = list->next;
        zfi_zeCommandListDestroy(list->list);
        free(list);
        list = next;
    }
}
