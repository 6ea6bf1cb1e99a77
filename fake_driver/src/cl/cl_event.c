/* Events: each OpenCL event is a Level Zero event of its own pool (host-visible, with kernel timestamps), signalled
 * by the command it stands for or, for a user event, by clSetUserEventStatus. Profiling answers device time in
 * nanoseconds from the same clock as Level Zero timestamps: the queued and submit times are the device's global
 * timestamp read at the enqueue, start and end the command's kernel timestamps (docs/cost-model.md). */
#include "cl/zf_cl.h"
#include "exec/zf_exec.h"
#include "zfcl_generated.h"

#include <stdlib.h>
#include <string.h>

/* Level Zero events are reused: one the application released may still be waited for by a command of some queue of
 * the context (the next command of its queue waits for it), so it is retired first and becomes a spare only when every
 * queue of the context is idle, as then no command is left that could wait for it. Called with the context locked. */
static bool zfcl_context_idle(cl_context c) {
    bool idle = true;
    for (cl_command_queue q = c->queues; q != NULL && idle; q = q->next_queue) {
        pthread_mutex_lock(&q->lock);
        idle = q->last == NULL || zfi_zeEventQueryStatus(q->last->ze) == ZE_RESULT_SUCCESS;
        for (uint32_t i = 0; i < q->num_pending && idle; i++)
            idle = zfi_zeEventQueryStatus(q->pending[i]->ze) == ZE_RESULT_SUCCESS;
        pthread_mutex_unlock(&q->lock);
    }
    return idle;
}

static zfcl_spare *zfcl_take_spare(cl_context c) {
    pthread_mutex_lock(&c->lock);
    if (c->spare_events == NULL && c->retired_events != NULL && zfcl_context_idle(c)) {
        for (zfcl_spare *s = c->retired_events; s != NULL; s = s->next)
            zfi_zeEventHostReset(s->ze);
        c->spare_events = c->retired_events;
        c->retired_events = NULL;
    }
    zfcl_spare *s = c->spare_events;
    if (s != NULL)
        c->spare_events = s->next;
    pthread_mutex_unlock(&c->lock);
    return s;
}

static void zfcl_retire(cl_context c, ze_event_pool_handle_t pool, ze_event_handle_t ze) {
    zfcl_spare *s = malloc(sizeof *s);
    if (s == NULL) { /* without host memory the event cannot wait for reuse: it leaks rather than be freed early */
        zfcl_fail(CL_OUT_OF_HOST_MEMORY, "an event could not be kept for reuse");
        return;
    }
    *s = (zfcl_spare){pool, ze, NULL};
    pthread_mutex_lock(&c->lock);
    s->next = c->retired_events;
    c->retired_events = s;
    pthread_mutex_unlock(&c->lock);
}

static void zfcl_spares_free(zfcl_spare *list) {
    while (list != NULL) {
        zfcl_spare *next = list->next;
        zfi_zeEventDestroy(list->ze);
        zfi_zeEventPoolDestroy(list->pool);
        free(list);
        list = next;
    }
}

void zfcl_spares_release(cl_context c) {
    zfcl_spares_free(c->spare_events);
    zfcl_spares_free(c->retired_events);
    c->spare_events = c->retired_events = NULL;
}

static cl_int zfcl_event_create_ze(cl_context c, cl_event e) {
    zfcl_spare *s = zfcl_take_spare(c);
    if (s != NULL) {
        e->pool = s->pool;
        e->ze = s->ze;
        free(s);
        return CL_SUCCESS;
    }
    ze_event_pool_desc_t pool = {.stype = ZE_STRUCTURE_TYPE_EVENT_POOL_DESC,
                                 .flags = ZE_EVENT_POOL_FLAG_HOST_VISIBLE | ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP,
                                 .count = 1};
    ze_event_desc_t desc = {
        .stype = ZE_STRUCTURE_TYPE_EVENT_DESC, .signal = ZE_EVENT_SCOPE_FLAG_HOST, .wait = ZE_EVENT_SCOPE_FLAG_HOST};
    if (zfi_zeEventPoolCreate(c->ze, &pool, 0, NULL, &e->pool) != ZE_RESULT_SUCCESS)
        return CL_OUT_OF_RESOURCES;
    if (zfi_zeEventCreate(e->pool, &desc, &e->ze) != ZE_RESULT_SUCCESS) {
        zfi_zeEventPoolDestroy(e->pool);
        return CL_OUT_OF_RESOURCES;
    }
    return CL_SUCCESS;
}

static cl_event zfcl_event_new(cl_context c, cl_command_queue q, cl_command_type type, cl_int *err) {
    cl_event e = calloc(1, sizeof *e);
    if (e == NULL)
        return zfcl_null(err, CL_OUT_OF_HOST_MEMORY);
    if (zfcl_event_create_ze(c, e) != CL_SUCCESS) {
        free(e);
        return zfcl_null(err, CL_OUT_OF_RESOURCES);
    }
    if (!zfcl_register(&e->obj, ZFCL_EVENT)) {
        zfcl_retire(c, e->pool, e->ze);
        free(e);
        return zfcl_null(err, CL_OUT_OF_HOST_MEMORY);
    }
    e->context = c;
    e->queue = q;
    e->type = type;
    atomic_store(&e->status, CL_SUBMITTED);
    pthread_mutex_init(&e->lock, NULL);
    zfcl_context_hold(c);
    if (q != NULL)
        zfcl_queue_hold(q);
    return e;
}

static void zfcl_event_destroy(cl_event e) {
    zfcl_unregister(&e->obj);
    zfcl_retire(e->context, e->pool, e->ze);
    for (int i = 0; i < 4; i++)
        while (e->callbacks[i] != NULL) {
            zfcl_callback *next = e->callbacks[i]->next;
            free(e->callbacks[i]);
            e->callbacks[i] = next;
        }
    pthread_mutex_destroy(&e->lock);
    free(e->dependents);
    cl_command_queue q = e->queue;
    cl_context c = e->context;
    zfcl_object_free(&e->obj);
    if (q != NULL)
        zfcl_queue_unhold(q);
    zfcl_context_unhold(c);
}

void zfcl_event_release(cl_event e) {
    if (zfcl_release(&e->obj))
        zfcl_event_destroy(e);
}

/* A command whose Level Zero event was signalled by a failure on the device (a fault, a hang): its status becomes
 * CL_OUT_OF_RESOURCES, once, and the context's callback is told (docs/opencl.md, "User events"). */
static cl_int zfcl_event_settle_failure(cl_event e) {
    cl_int submitted = CL_SUBMITTED;
    if (atomic_compare_exchange_strong(&e->status, &submitted, CL_OUT_OF_RESOURCES))
        zfcl_context_notify(e->context, "zefake: a command failed on the device (see ZEFAKE_LOG=debug)");
    return atomic_load(&e->status);
}

/* The execution status: CL_COMPLETE once the Level Zero event is signalled, a negative code for a failed command or
 * user event. */
static cl_int zfcl_event_status(cl_event e) {
    cl_int status = atomic_load(&e->status);
    if (status <= CL_COMPLETE)
        return status;
    if (zfi_zeEventQueryStatus(e->ze) == ZE_RESULT_SUCCESS)
        return e->queue != NULL && zf_event_failed(e->ze) ? zfcl_event_settle_failure(e) : CL_COMPLETE;
    return e->queue != NULL ? CL_SUBMITTED : status;
}

bool zfcl_event_done(cl_event e) {
    return zfcl_event_status(e) <= CL_COMPLETE;
}

cl_int zfcl_event_wait(cl_event e) {
    if (atomic_load(&e->status) < 0)
        return atomic_load(&e->status);
    ze_result_t r = zfi_zeEventHostSynchronize(e->ze, UINT64_MAX);
    if (r != ZE_RESULT_SUCCESS || (e->queue != NULL && zf_event_failed(e->ze))) {
        zfcl_event_settle_failure(e);
        return zfcl_fail(CL_OUT_OF_RESOURCES, "the command failed on the device (see ZEFAKE_LOG=debug)");
    }
    return atomic_load(&e->status) < 0 ? atomic_load(&e->status) : CL_SUCCESS;
}

cl_event *zfcl_queue_tails(cl_command_queue q, size_t *num) {
    size_t n = q->last != NULL ? 1 : q->num_pending;
    cl_event *tails = n > 0 ? malloc(n * sizeof *tails) : NULL;
    *num = tails != NULL ? n : 0;
    for (size_t i = 0; i < *num; i++) {
        tails[i] = q->last != NULL ? q->last : q->pending[i];
        zfcl_retain(&tails[i]->obj);
    }
    return tails;
}

void zfcl_queue_forget(cl_command_queue q) {
    cl_event last = q->last, barrier = q->barrier;
    q->last = q->barrier = NULL;
    if (last != NULL)
        zfcl_event_release(last);
    if (barrier != NULL)
        zfcl_event_release(barrier);
    for (uint32_t i = 0; i < q->num_pending; i++)
        zfcl_event_release(q->pending[i]);
    free(q->pending);
    q->pending = NULL;
    q->num_pending = q->max_pending = 0;
}

cl_int zfcl_queue_finish(cl_command_queue q) {
    for (uint32_t i = 0; i < q->num_lists; i++) /* its lists' queued commands, run here rather than handed off */
        zf_immediate_list_help(q->lists[i]);
    pthread_mutex_lock(&q->lock);
    size_t n;
    cl_event *tails = zfcl_queue_tails(q, &n);
    zfcl_done_list *done = zfcl_hold_take_done(q); /* executed before the tails complete: done when they are */
    pthread_mutex_unlock(&q->lock);
    cl_int err = CL_SUCCESS;
    for (size_t i = 0; i < n; i++) {
        cl_int one = zfcl_event_wait(tails[i]);
        err = err == CL_SUCCESS ? one : err;
        zfcl_event_release(tails[i]);
    }
    free(tails);
    zfcl_hold_free_done(q, done, err == CL_SUCCESS);
    zfcl_context_reap(q->context);
    return err < 0 && err != CL_OUT_OF_RESOURCES ? CL_SUCCESS : err; /* a failed command is its event's status */
}

cl_int zfcl_wait_list(cl_command_queue q, cl_uint num, const cl_event *list) {
    if ((num == 0) != (list == NULL))
        return zfcl_fail(CL_INVALID_EVENT_WAIT_LIST, "num_events_in_wait_list and event_wait_list disagree");
    for (cl_uint i = 0; i < num; i++) {
        if (!zfcl_live(list[i], ZFCL_EVENT))
            return zfcl_fail(CL_INVALID_EVENT_WAIT_LIST, "event_wait_list[%u] is no live event", i);
        if (q != NULL && list[i]->context != q->context)
            return zfcl_fail(CL_INVALID_CONTEXT, "event_wait_list[%u] belongs to another context", i);
    }
    return CL_SUCCESS;
}

/* The commands of the queue a new command waits for: in order the newest; out of order the newest barrier, or for a
 * marker or barrier without wait list every pending command. Called with the queue locked. */
static const cl_event *zfcl_implicit(cl_command_queue q, cl_event e, cl_uint *num) {
    if (!(q->props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)) {
        *num = q->last != NULL ? 1 : 0;
        return &q->last;
    }
    if (e->joins) {
        *num = q->num_pending;
        return q->pending;
    }
    *num = q->barrier != NULL ? 1 : 0;
    return &q->barrier;
}

/* References dropped with the queue locked are released after it is unlocked: a release may destroy the event, which
 * takes the context's lock (taken before queue locks elsewhere). */
typedef struct zfcl_drops {
    cl_event *events;
    uint32_t num;
} zfcl_drops;

static void zfcl_drops_release(zfcl_drops *d) {
    for (uint32_t i = 0; i < d->num; i++)
        zfcl_event_release(d->events[i]);
    free(d->events);
}

/* Moves the pending commands that are complete to `d` (so the list stays short). With the queue locked. */
static void zfcl_pending_prune(cl_command_queue q, zfcl_drops *d) {
    d->events = malloc(q->num_pending * sizeof *d->events);
    if (d->events == NULL)
        return;
    uint32_t kept = 0;
    for (uint32_t i = 0; i < q->num_pending; i++) {
        cl_event p = q->pending[i];
        if (p != q->barrier && zfi_zeEventQueryStatus(p->ze) == ZE_RESULT_SUCCESS)
            d->events[d->num++] = p;
        else
            q->pending[kept++] = p;
    }
    q->num_pending = kept;
}

/* Out of order: the new command becomes pending (and, a barrier, the one later commands wait for); one that waited
 * for every pending command replaces them. With the queue locked; what it drops goes to `d`. */
static void zfcl_pending_add(cl_command_queue q, cl_event e, zfcl_drops *d) {
    if (e->joins || q->num_pending == q->max_pending) {
        zfcl_pending_prune(q, d);
        for (uint32_t i = 0; e->joins && d->events != NULL && i < q->num_pending; i++)
            d->events[d->num++] = q->pending[i]; /* all done when `e` is */
        q->num_pending = e->joins && d->events != NULL ? 0 : q->num_pending;
    }
    if (q->num_pending == q->max_pending) {
        uint32_t max = q->max_pending == 0 ? 16 : q->max_pending * 2;
        cl_event *grown = realloc(q->pending, max * sizeof *grown);
        if (grown == NULL) {
            zfcl_fail(CL_OUT_OF_HOST_MEMORY, "no host memory to track an out-of-order command for clFinish");
            return;
        }
        q->pending = grown;
        q->max_pending = max;
    }
    zfcl_retain(&e->obj);
    q->pending[q->num_pending++] = e;
}

cl_int zfcl_command_begin(cl_command_queue q, cl_command_type type, cl_uint num, const cl_event *list, cl_event *out,
                          ze_event_handle_t **waits, uint32_t *num_waits) {
    cl_int err = zfcl_wait_list(q, num, list);
    if (err != CL_SUCCESS)
        return err;
    zfcl_context_reap(q->context);
    cl_event e = zfcl_event_new(q->context, q, type, &err);
    if (e == NULL)
        return err;
    pthread_mutex_lock(&q->lock); /* held until zfcl_command_end: commands enter the list in order */
    e->joins = (type == CL_COMMAND_MARKER || type == CL_COMMAND_BARRIER) && num == 0;
    cl_uint num_implicit;
    const cl_event *implicit = zfcl_implicit(q, e, &num_implicit);
    e->engine = q->next_list++ % q->num_lists; /* out of order: the engines in turn */
    ze_event_handle_t *w = malloc((num + num_implicit + 1) * sizeof *w);
    err = w == NULL ? CL_OUT_OF_HOST_MEMORY : zfcl_hold_begin(q, e, num, list, num_implicit, implicit);
    if (err != CL_SUCCESS) {
        pthread_mutex_unlock(&q->lock);
        zfcl_event_release(e);
        free(w);
        return err;
    }
    uint32_t n = 0;
    for (cl_uint i = 0; i < num; i++)
        w[n++] = list[i]->ze;
    for (cl_uint i = 0; i < num_implicit; i++)
        w[n++] = implicit[i]->ze;
    if (q->props & CL_QUEUE_PROFILING_ENABLE) {
        e->queued = zfcl_device_now(q->device);
        e->submit = e->queued;
    }
    *out = e;
    *waits = w;
    *num_waits = n;
    return CL_SUCCESS;
}

cl_int zfcl_command_end(cl_command_queue q, cl_event e, cl_event *event_ret, bool blocking) {
    zfcl_hold_end(e);
    zfcl_drops drops = {0};
    cl_event old = NULL;
    if (q->props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) {
        zfcl_pending_add(q, e, &drops);
        if (e->type == CL_COMMAND_BARRIER) { /* later commands wait for it */
            old = q->barrier;
            zfcl_retain(&e->obj);
            q->barrier = e;
        }
    } else {
        old = q->last;
        zfcl_retain(&e->obj);
        q->last = e;
    }
    pthread_mutex_unlock(&q->lock);
    zfcl_drops_release(&drops);
    if (old != NULL)
        zfcl_event_release(old);
    cl_int err = blocking ? zfcl_event_wait(e) : CL_SUCCESS;
    if (event_ret != NULL)
        *event_ret = e;
    else
        zfcl_event_release(e);
    return err < 0 && err != CL_OUT_OF_RESOURCES ? CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST : err;
}

void zfcl_command_abort(cl_command_queue q, cl_event e) {
    zfcl_hold_abort(e);
    pthread_mutex_unlock(&q->lock);
    zfcl_event_release(e);
}

/* A marker or barrier: every earlier command of the queue (all of them execute in order) and the wait list. */
static cl_int zfcl_enqueue_sync(cl_command_queue q, cl_command_type type, cl_uint num, const cl_event *list,
                                cl_event *event_ret) {
    cl_int err = zfcl_queue_check(q);
    cl_event e;
    ze_event_handle_t *w;
    uint32_t nw;
    if (err == CL_SUCCESS)
        err = zfcl_command_begin(q, type, num, list, &e, &w, &nw);
    if (err != CL_SUCCESS)
        return err;
    ze_result_t r = zfi_zeCommandListAppendBarrier(e->list, e->ze, nw, w);
    free(w);
    if (r != ZE_RESULT_SUCCESS) {
        zfcl_command_abort(q, e);
        return zfcl_from_ze(r);
    }
    return zfcl_command_end(q, e, event_ret, false);
}

cl_int CL_API_CALL zfcl_clEnqueueMarkerWithWaitList(cl_command_queue q, cl_uint num, const cl_event *list,
                                                    cl_event *event) {
    return zfcl_enqueue_sync(q, CL_COMMAND_MARKER, num, list, event);
}

cl_int CL_API_CALL zfcl_clEnqueueBarrierWithWaitList(cl_command_queue q, cl_uint num, const cl_event *list,
                                                     cl_event *event) {
    return zfcl_enqueue_sync(q, CL_COMMAND_BARRIER, num, list, event);
}

cl_int CL_API_CALL zfcl_clEnqueueMarker(cl_command_queue q, cl_event *event) {
    if (event == NULL)
        return zfcl_fail(CL_INVALID_VALUE, "event is NULL");
    return zfcl_enqueue_sync(q, CL_COMMAND_MARKER, 0, NULL, event);
}

cl_int CL_API_CALL zfcl_clEnqueueBarrier(cl_command_queue q) {
    return zfcl_enqueue_sync(q, CL_COMMAND_BARRIER, 0, NULL, NULL);
}

cl_int CL_API_CALL zfcl_clEnqueueWaitForEvents(cl_command_queue q, cl_uint num, const cl_event *list) {
    if (num == 0 || list == NULL)
        return zfcl_fail(CL_INVALID_VALUE, "num_events is 0 or event_list is NULL");
    return zfcl_enqueue_sync(q, CL_COMMAND_BARRIER, num, list, NULL);
}

cl_int CL_API_CALL zfcl_clWaitForEvents(cl_uint num, const cl_event *list) {
    if (num == 0 || list == NULL)
        return zfcl_fail(CL_INVALID_VALUE, "num_events is 0 or event_list is NULL");
    for (cl_uint i = 0; i < num; i++) {
        if (!zfcl_live(list[i], ZFCL_EVENT))
            return zfcl_fail(CL_INVALID_EVENT, "event_list[%u] is no live event", i);
        if (list[i]->context != list[0]->context)
            return zfcl_fail(CL_INVALID_CONTEXT, "event_list[%u] belongs to another context than event_list[0]", i);
    }
    cl_int result = CL_SUCCESS;
    for (cl_uint i = 0; i < num; i++)
        if (zfcl_event_wait(list[i]) != CL_SUCCESS)
            result = CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
    zfcl_context_reap(list[0]->context);
    return result;
}

cl_event CL_API_CALL zfcl_clCreateUserEvent(cl_context c, cl_int *err) {
    if (!zfcl_live(c, ZFCL_CONTEXT))
        return zfcl_null(err, zfcl_fail(CL_INVALID_CONTEXT, "context is no live context"));
    cl_event e = zfcl_event_new(c, NULL, CL_COMMAND_USER, err);
    if (e != NULL && err != NULL)
        *err = CL_SUCCESS;
    return e;
}

void zfcl_run_callbacks(cl_event e, cl_int status) {
    for (cl_int s = CL_SUBMITTED; s >= (status < 0 ? CL_COMPLETE : status); s--) {
        pthread_mutex_lock(&e->lock);
        zfcl_callback *list = e->callbacks[s];
        e->callbacks[s] = NULL;
        pthread_mutex_unlock(&e->lock);
        while (list != NULL) {
            zfcl_callback *next = list->next;
            ((void(CL_CALLBACK *)(cl_event, cl_int, void *))list->fn)(e, s == CL_COMPLETE ? status : s,
                                                                      list->user_data);
            free(list);
            list = next;
        }
    }
}

cl_int CL_API_CALL zfcl_clSetUserEventStatus(cl_event e, cl_int status) {
    if (!zfcl_live(e, ZFCL_EVENT) || e->queue != NULL)
        return zfcl_fail(CL_INVALID_EVENT, "event is no live user event");
    if (status > CL_COMPLETE)
        return zfcl_fail(CL_INVALID_VALUE, "execution_status must be CL_COMPLETE or negative");
    cl_int expected = CL_SUBMITTED;
    if (!atomic_compare_exchange_strong(&e->status, &expected, status))
        return zfcl_fail(CL_INVALID_OPERATION, "the status of the user event was already set");
    zfi_zeEventHostSignal(e->ze);
    zfcl_hold_user_set(e, status); /* before the callbacks: they find the waiting commands released or terminated */
    zfcl_run_callbacks(e, status);
    return CL_SUCCESS;
}

static void *zfcl_callback_thread(void *arg) {
    cl_event e = arg;
    cl_int r = zfcl_event_wait(e);
    zfcl_run_callbacks(e, r == CL_SUCCESS ? CL_COMPLETE : r);
    zfcl_event_release(e);
    return NULL;
}

cl_int CL_API_CALL zfcl_clSetEventCallback(cl_event e, cl_int type, void(CL_CALLBACK *fn)(cl_event, cl_int, void *),
                                           void *user_data) {
    if (!zfcl_live(e, ZFCL_EVENT))
        return zfcl_fail(CL_INVALID_EVENT, "event is no live event");
    if (fn == NULL || (type != CL_SUBMITTED && type != CL_RUNNING && type != CL_COMPLETE))
        return zfcl_fail(CL_INVALID_VALUE, "pfn_notify is NULL or command_exec_callback_type is no valid type");
    zfcl_callback *cb = malloc(sizeof *cb);
    if (cb == NULL)
        return CL_OUT_OF_HOST_MEMORY;
    cb->fn = (void(CL_CALLBACK *)(void))fn;
    cb->user_data = user_data;
    pthread_mutex_lock(&e->lock);
    cb->next = e->callbacks[type];
    e->callbacks[type] = cb;
    pthread_mutex_unlock(&e->lock);
    cl_int status = zfcl_event_status(e);
    if (status <= type) { /* reached already (commands are submitted and running once enqueued) */
        zfcl_run_callbacks(e, status);
        return CL_SUCCESS;
    }
    if (e->queue == NULL)
        return CL_SUCCESS; /* clSetUserEventStatus runs it */
    if (type != CL_COMPLETE) {
        zfcl_run_callbacks(e, type);
        return CL_SUCCESS;
    }
    zfcl_retain(&e->obj);
    pthread_t thread;
    if (pthread_create(&thread, NULL, zfcl_callback_thread, e) != 0) {
        zfcl_event_release(e);
        return CL_OUT_OF_HOST_MEMORY;
    }
    pthread_detach(thread);
    return CL_SUCCESS;
}

cl_int CL_API_CALL zfcl_clRetainEvent(cl_event e) {
    if (!zfcl_live(e, ZFCL_EVENT))
        return zfcl_fail(CL_INVALID_EVENT, "event is no live event");
    zfcl_retain(&e->obj);
    return CL_SUCCESS;
}

cl_int CL_API_CALL zfcl_clReleaseEvent(cl_event e) {
    if (!zfcl_live(e, ZFCL_EVENT))
        return zfcl_fail(CL_INVALID_EVENT, "event is no live event");
    zfcl_event_release(e);
    return CL_SUCCESS;
}

cl_int CL_API_CALL zfcl_clGetEventInfo(cl_event e, cl_event_info name, size_t size, void *value, size_t *size_ret) {
    if (!zfcl_live(e, ZFCL_EVENT))
        return zfcl_fail(CL_INVALID_EVENT, "event is no live event");
    cl_int status = zfcl_event_status(e);
    cl_uint refs = atomic_load(&e->obj.refs);
    switch (name) {
    case CL_EVENT_COMMAND_QUEUE:
        return zfcl_info(size, value, size_ret, &e->queue, sizeof e->queue);
    case CL_EVENT_CONTEXT:
        return zfcl_info(size, value, size_ret, &e->context, sizeof e->context);
    case CL_EVENT_COMMAND_TYPE:
        return zfcl_info(size, value, size_ret, &e->type, sizeof e->type);
    case CL_EVENT_COMMAND_EXECUTION_STATUS:
        return zfcl_info(size, value, size_ret, &status, sizeof status);
    case CL_EVENT_REFERENCE_COUNT:
        return zfcl_info(size, value, size_ret, &refs, sizeof refs);
    default:
        return zfcl_fail(CL_INVALID_VALUE, "param_name 0x%x is no event query", (unsigned)name);
    }
}

/* A kernel timestamp has only kernelTimestampValidBits bits: it is placed on the device clock after `ref` (a full
 * timestamp read before the command was submitted). */
static uint64_t zfcl_unwrap(cl_device_id d, uint64_t ts, uint64_t ref) {
    uint32_t bits = d->props.kernelTimestampValidBits;
    if (bits == 0 || bits >= 64)
        return ts;
    uint64_t mask = (UINT64_C(1) << bits) - 1;
    uint64_t full = (ref & ~mask) | (ts & mask);
    return full < ref ? full + mask + 1 : full;
}

cl_int CL_API_CALL zfcl_clGetEventProfilingInfo(cl_event e, cl_profiling_info name, size_t size, void *value,
                                                size_t *size_ret) {
    if (!zfcl_live(e, ZFCL_EVENT))
        return zfcl_fail(CL_INVALID_EVENT, "event is no live event");
    if (e->queue == NULL || !(e->queue->props & CL_QUEUE_PROFILING_ENABLE))
        return zfcl_fail(CL_PROFILING_INFO_NOT_AVAILABLE, "the event is a user event or its queue does not profile");
    if (name < CL_PROFILING_COMMAND_QUEUED || name > CL_PROFILING_COMMAND_COMPLETE)
        return zfcl_fail(CL_INVALID_VALUE, "param_name 0x%x is no profiling query", (unsigned)name);
    if (zfcl_event_status(e) != CL_COMPLETE)
        return zfcl_fail(CL_PROFILING_INFO_NOT_AVAILABLE, "the command is not complete");
    ze_kernel_timestamp_result_t ts;
    if (zfi_zeEventQueryKernelTimestamp(e->ze, &ts) != ZE_RESULT_SUCCESS)
        return zfcl_fail(CL_PROFILING_INFO_NOT_AVAILABLE, "the device recorded no timestamps for the command");
    cl_device_id d = e->queue->device;
    uint64_t hz = d->props.timerResolution != 0 ? d->props.timerResolution : 1000000000u;
    uint64_t ref = (uint64_t)((unsigned __int128)e->submit * hz / 1000000000u);
    cl_ulong v = name == CL_PROFILING_COMMAND_QUEUED   ? e->queued
                 : name == CL_PROFILING_COMMAND_SUBMIT ? e->submit
                 : name == CL_PROFILING_COMMAND_START  ? zfcl_device_ns(d, zfcl_unwrap(d, ts.global.kernelStart, ref))
                                                       : zfcl_device_ns(d, zfcl_unwrap(d, ts.global.kernelEnd, ref));
    return zfcl_info(size, value, size_ret, &v, sizeof v);
}
