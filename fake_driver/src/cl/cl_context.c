/* Contexts and command queues. A context is a Level Zero context over its devices; a queue is an immediate,
 * asynchronous Level Zero command list on the device's compute engine group. Commands of a queue execute in
 * submission order whatever its properties (an out-of-order queue may, and this one does): each command waits for
 * the one before it (cl_event.c). */
#include "cl/zf_cl.h"
#include "zfcl_generated.h"

#include <stdlib.h>
#include <string.h>

bool zfcl_context_has(cl_context context, cl_device_id device) {
    return zfcl_context_index(context, device) < context->num_devices;
}

cl_uint zfcl_context_index(cl_context context, cl_device_id device) {
    for (cl_uint i = 0; i < context->num_devices; i++)
        if (context->devices[i] == device)
            return i;
    return context->num_devices;
}

void zfcl_call_destructors(zfcl_callback *list, void *object) {
    while (list != NULL) {
        zfcl_callback *next = list->next;
        ((void(CL_CALLBACK *)(void *, void *))list->fn)(object, list->user_data);
        free(list);
        list = next;
    }
}

static void zfcl_context_destroy(cl_context c) {
    zfcl_call_destructors(c->destructors, c);
    zfcl_spares_release(c);
    zfi_zeContextDestroy(c->ze);
    pthread_mutex_destroy(&c->lock);
    free(c->devices);
    free(c->props);
    zfcl_object_free(&c->obj);
}

void zfcl_context_hold(cl_context context) {
    atomic_fetch_add(&context->holds, 1u);
}

void zfcl_context_unhold(cl_context context) {
    if (atomic_fetch_sub(&context->holds, 1u) == 1u)
        zfcl_context_destroy(context);
}

void zfcl_context_notify(cl_context context, const char *message) {
    if (context->notify != NULL)
        context->notify(message, NULL, 0, context->notify_data);
}

/* CL_CONTEXT_PLATFORM (the zefake platform) and CL_CONTEXT_INTEROP_USER_SYNC, each at most once. */
static cl_int zfcl_context_props(const cl_context_properties *props, size_t *count) {
    *count = 0;
    if (props == NULL)
        return CL_SUCCESS;
    bool seen_platform = false, seen_sync = false;
    size_t i = 0;
    for (; props[i] != 0; i += 2) {
        if (props[i] == CL_CONTEXT_PLATFORM && !seen_platform) {
            seen_platform = true;
            if ((cl_platform_id)props[i + 1] != &zfcl_platform)
                return zfcl_fail(CL_INVALID_PLATFORM, "CL_CONTEXT_PLATFORM is not the zefake platform");
        } else if (props[i] == CL_CONTEXT_INTEROP_USER_SYNC && !seen_sync) {
            seen_sync = true;
        } else
            return zfcl_fail(CL_INVALID_PROPERTY, "property 0x%lx is unknown or given twice", (long)props[i]);
    }
    *count = i + 1;
    return CL_SUCCESS;
}

static cl_context zfcl_context_new(const cl_context_properties *props, size_t num_props, cl_uint num_devices,
                                   const cl_device_id *devices, cl_int *err) {
    cl_context c = calloc(1, sizeof *c);
    if (c == NULL)
        return zfcl_null(err, CL_OUT_OF_HOST_MEMORY);
    c->devices = malloc(num_devices * sizeof *c->devices);
    c->props = num_props > 0 ? malloc(num_props * sizeof *c->props) : NULL;
    ze_context_desc_t desc = {.stype = ZE_STRUCTURE_TYPE_CONTEXT_DESC};
    if (c->devices == NULL || (num_props > 0 && c->props == NULL) ||
        zfi_zeContextCreate(zfcl_ze_driver(), &desc, &c->ze) != ZE_RESULT_SUCCESS) {
        free(c->devices);
        free(c->props);
        free(c);
        return zfcl_null(err, CL_OUT_OF_HOST_MEMORY);
    }
    memcpy(c->devices, devices, num_devices * sizeof *devices);
    if (num_props > 0)
        memcpy(c->props, props, num_props * sizeof *props);
    c->num_devices = num_devices;
    c->num_props = num_props;
    atomic_store(&c->holds, 1u); /* the application's references, together */
    pthread_mutex_init(&c->lock, NULL);
    if (!zfcl_register(&c->obj, ZFCL_CONTEXT)) {
        zfcl_context_destroy(c);
        return zfcl_null(err, CL_OUT_OF_HOST_MEMORY);
    }
    if (err != NULL)
        *err = CL_SUCCESS;
    return c;
}

cl_context CL_API_CALL zfcl_clCreateContext(const cl_context_properties *props, cl_uint num_devices,
                                            const cl_device_id *devices,
                                            void(CL_CALLBACK *notify)(const char *, const void *, size_t, void *),
                                            void *user_data, cl_int *err) {
    size_t num_props = 0;
    cl_int e = zfcl_init();
    if (e == CL_SUCCESS)
        e = zfcl_context_props(props, &num_props);
    if (e != CL_SUCCESS)
        return zfcl_null(err, e);
    if (devices == NULL || num_devices == 0)
        return zfcl_null(err, zfcl_fail(CL_INVALID_VALUE, "devices is NULL or num_devices is 0"));
    if (notify == NULL && user_data != NULL)
        return zfcl_null(err, zfcl_fail(CL_INVALID_VALUE, "user_data is given without pfn_notify"));
    for (cl_uint i = 0; i < num_devices; i++)
        if (!zfcl_device_valid(devices[i]))
            return zfcl_null(err, zfcl_fail(CL_INVALID_DEVICE, "devices[%u] is no device of the platform", i));
    cl_context c = zfcl_context_new(props, num_props, num_devices, devices, err);
    if (c != NULL) {
        c->notify = notify;
        c->notify_data = user_data;
    }
    return c;
}

cl_context CL_API_CALL zfcl_clCreateContextFromType(const cl_context_properties *props, cl_device_type type,
                                                    void(CL_CALLBACK *notify)(const char *, const void *, size_t,
                                                                              void *),
                                                    void *user_data, cl_int *err) {
    cl_uint n = 0;
    cl_int e = zfcl_init();
    if (e != CL_SUCCESS)
        return zfcl_null(err, e);
    size_t num_props = 0;
    e = zfcl_context_props(props, &num_props);
    if (e != CL_SUCCESS)
        return zfcl_null(err, e);
    e = zfcl_clGetDeviceIDs(NULL, type, 0, NULL, &n);
    if (e != CL_SUCCESS)
        return zfcl_null(err, e);
    cl_device_id devices[64];
    zfcl_clGetDeviceIDs(NULL, type, n, devices, NULL);
    return zfcl_clCreateContext(props, n, devices, notify, user_data, err);
}

cl_int CL_API_CALL zfcl_clRetainContext(cl_context context) {
    if (!zfcl_live(context, ZFCL_CONTEXT))
        return zfcl_fail(CL_INVALID_CONTEXT, "context is no live context");
    zfcl_retain(&context->obj);
    return CL_SUCCESS;
}

cl_int CL_API_CALL zfcl_clReleaseContext(cl_context context) {
    if (!zfcl_live(context, ZFCL_CONTEXT))
        return zfcl_fail(CL_INVALID_CONTEXT, "context is no live context");
    if (zfcl_release(&context->obj)) {
        zfcl_unregister(&context->obj);
        zfcl_context_unhold(context); /* the application's hold */
    }
    return CL_SUCCESS;
}

cl_int CL_API_CALL zfcl_clGetContextInfo(cl_context c, cl_context_info name, size_t size, void *value,
                                         size_t *size_ret) {
    if (!zfcl_live(c, ZFCL_CONTEXT))
        return zfcl_fail(CL_INVALID_CONTEXT, "context is no live context");
    cl_uint v;
    switch (name) {
    case CL_CONTEXT_REFERENCE_COUNT:
        v = atomic_load(&c->obj.refs);
        return zfcl_info(size, value, size_ret, &v, sizeof v);
    case CL_CONTEXT_NUM_DEVICES:
        return zfcl_info(size, value, size_ret, &c->num_devices, sizeof c->num_devices);
    case CL_CONTEXT_DEVICES:
        return zfcl_info(size, value, size_ret, c->devices, c->num_devices * sizeof *c->devices);
    case CL_CONTEXT_PROPERTIES:
        return zfcl_info(size, value, size_ret, c->props, c->num_props * sizeof *c->props);
    default:
        return zfcl_fail(CL_INVALID_VALUE, "param_name 0x%x is no context query", (unsigned)name);
    }
}

static cl_int zfcl_add_callback(pthread_mutex_t *lock, zfcl_callback **list, void(CL_CALLBACK *fn)(void),
                                void *user_data) {
    zfcl_callback *cb = malloc(sizeof *cb);
    if (cb == NULL)
        return CL_OUT_OF_HOST_MEMORY;
    cb->fn = fn;
    cb->user_data = user_data;
    pthread_mutex_lock(lock);
    cb->next = *list;
    *list = cb;
    pthread_mutex_unlock(lock);
    return CL_SUCCESS;
}

cl_int CL_API_CALL zfcl_clSetContextDestructorCallback(cl_context c, void(CL_CALLBACK *fn)(cl_context, void *),
                                                       void *user_data) {
    if (!zfcl_live(c, ZFCL_CONTEXT))
        return zfcl_fail(CL_INVALID_CONTEXT, "context is no live context");
    if (fn == NULL)
        return zfcl_fail(CL_INVALID_VALUE, "pfn_notify is NULL");
    return zfcl_add_callback(&c->lock, &c->destructors, (void(CL_CALLBACK *)(void))fn, user_data);
}

cl_int CL_API_CALL zfcl_clSetMemObjectDestructorCallback(cl_mem m, void(CL_CALLBACK *fn)(cl_mem, void *),
                                                         void *user_data) {
    if (!zfcl_mem_valid(m))
        return zfcl_fail(CL_INVALID_MEM_OBJECT, "memobj is no live memory object");
    if (fn == NULL)
        return zfcl_fail(CL_INVALID_VALUE, "pfn_notify is NULL");
    return zfcl_add_callback(&m->lock, &m->destructors, (void(CL_CALLBACK *)(void))fn, user_data);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Command queues */

static const cl_command_queue_properties zfcl_queue_known = CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE |
                                                            CL_QUEUE_PROFILING_ENABLE | CL_QUEUE_ON_DEVICE |
                                                            CL_QUEUE_ON_DEVICE_DEFAULT;

/* The engines of the device's compute group (at most ZFCL_MAX_LISTS are used). */
static uint32_t zfcl_compute_engines(cl_device_id d) {
    uint32_t count = 0;
    zfi_zeDeviceGetCommandQueueGroupProperties(d->ze, &count, NULL);
    ze_command_queue_group_properties_t groups[16];
    count = count < 16 ? count : 16;
    for (uint32_t i = 0; i < count; i++)
        groups[i] = (ze_command_queue_group_properties_t){.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_GROUP_PROPERTIES};
    if (zfi_zeDeviceGetCommandQueueGroupProperties(d->ze, &count, groups) != ZE_RESULT_SUCCESS ||
        d->compute_ordinal >= count)
        return 1;
    uint32_t n = groups[d->compute_ordinal].numQueues;
    return n == 0 ? 1 : n < ZFCL_MAX_LISTS ? n : ZFCL_MAX_LISTS;
}

/* One asynchronous immediate list per engine used (index i of the compute group). */
static bool zfcl_queue_lists(cl_command_queue q, cl_context c, cl_device_id d, uint32_t engines) {
    for (uint32_t i = 0; i < engines; i++) {
        ze_command_queue_desc_t desc = {.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC,
                                        .ordinal = d->compute_ordinal,
                                        .index = i,
                                        .mode = ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS};
        if (zfi_zeCommandListCreateImmediate(c->ze, d->ze, &desc, &q->lists[i]) != ZE_RESULT_SUCCESS)
            return false;
        q->num_lists = i + 1;
    }
    q->list = q->lists[0];
    return true;
}

static cl_command_queue zfcl_queue_new(cl_context c, cl_device_id d, cl_command_queue_properties props, cl_int *err) {
    if (props & ~zfcl_queue_known)
        return zfcl_null(err,
                         zfcl_fail(CL_INVALID_VALUE, "properties 0x%llx has unknown bits", (unsigned long long)props));
    if (props & (CL_QUEUE_ON_DEVICE | CL_QUEUE_ON_DEVICE_DEFAULT))
        return zfcl_null(err, zfcl_fail(CL_INVALID_QUEUE_PROPERTIES, "device-side queues are not supported"));
    cl_command_queue q = calloc(1, sizeof *q);
    if (q == NULL)
        return zfcl_null(err, CL_OUT_OF_HOST_MEMORY);
    uint32_t engines = (props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) ? zfcl_compute_engines(d) : 1;
    if (!zfcl_queue_lists(q, c, d, engines) || !zfcl_register(&q->obj, ZFCL_QUEUE)) {
        for (uint32_t i = 0; i < q->num_lists; i++)
            zfi_zeCommandListDestroy(q->lists[i]);
        free(q);
        return zfcl_null(err, CL_OUT_OF_RESOURCES);
    }
    q->context = c;
    q->device = d;
    q->props = props;
    atomic_store(&q->holds, 1u); /* the application's references, together */
    pthread_mutex_init(&q->lock, NULL);
    pthread_mutex_lock(&c->lock);
    q->next_queue = c->queues;
    c->queues = q;
    pthread_mutex_unlock(&c->lock);
    zfcl_context_hold(c);
    if (err != NULL)
        *err = CL_SUCCESS;
    return q;
}

static cl_int zfcl_queue_target(cl_context c, cl_device_id d) {
    if (!zfcl_live(c, ZFCL_CONTEXT))
        return zfcl_fail(CL_INVALID_CONTEXT, "context is no live context");
    if (!zfcl_device_valid(d) || !zfcl_context_has(c, d))
        return zfcl_fail(CL_INVALID_DEVICE, "device is not a device of the context");
    return CL_SUCCESS;
}

cl_command_queue CL_API_CALL zfcl_clCreateCommandQueue(cl_context c, cl_device_id d, cl_command_queue_properties props,
                                                       cl_int *err) {
    cl_int e = zfcl_queue_target(c, d);
    if (e != CL_SUCCESS)
        return zfcl_null(err, e);
    return zfcl_queue_new(c, d, props, err);
}

cl_command_queue CL_API_CALL zfcl_clCreateCommandQueueWithProperties(cl_context c, cl_device_id d,
                                                                     const cl_queue_properties *props, cl_int *err) {
    cl_int e = zfcl_queue_target(c, d);
    if (e != CL_SUCCESS)
        return zfcl_null(err, e);
    cl_command_queue_properties bits = 0;
    bool seen_props = false, seen_size = false;
    size_t n = 0;
    for (; props != NULL && props[n] != 0; n += 2) {
        bool *seen = props[n] == CL_QUEUE_PROPERTIES ? &seen_props : props[n] == CL_QUEUE_SIZE ? &seen_size : NULL;
        if (seen == NULL || *seen)
            return zfcl_null(err, zfcl_fail(CL_INVALID_VALUE, "property 0x%llx is no queue property or is given twice",
                                            (unsigned long long)props[n]));
        *seen = true;
        if (props[n] == CL_QUEUE_PROPERTIES)
            bits = props[n + 1];
    }
    if (seen_size && !(bits & CL_QUEUE_ON_DEVICE))
        return zfcl_null(err, zfcl_fail(CL_INVALID_VALUE, "CL_QUEUE_SIZE is only for device-side queues"));
    cl_command_queue q = zfcl_queue_new(c, d, bits, err);
    if (q != NULL && props != NULL) {
        memcpy(q->given, props, (n + 1) * sizeof *props);
        q->num_given = n + 1;
    }
    return q;
}

/* The commands one queue completes last (zfcl_queue_tails), each retained. */
typedef struct zfcl_tails {
    cl_event *events;
    size_t num;
} zfcl_tails;

/* A destruction waiting for the commands enqueued before it (zfcl_context_defer). */
typedef struct zfcl_deferred {
    void (*destroy)(void *);
    void *object;
    zfcl_tails *queues;
    size_t num_queues;
    struct zfcl_deferred *next;
} zfcl_deferred;

/* Takes the tails of every queue of the context; with the context locked. False without host memory. */
static bool zfcl_context_tails(cl_context c, zfcl_deferred *d) {
    size_t n = 0;
    for (cl_command_queue q = c->queues; q != NULL; q = q->next_queue)
        n++;
    d->queues = calloc(n + 1, sizeof *d->queues);
    if (d->queues == NULL)
        return false;
    for (cl_command_queue q = c->queues; q != NULL; q = q->next_queue) {
        pthread_mutex_lock(&q->lock);
        zfcl_tails *t = &d->queues[d->num_queues++];
        t->events = zfcl_queue_tails(q, &t->num);
        pthread_mutex_unlock(&q->lock);
    }
    return true;
}

/* Whether every tail is done; with the context locked (nothing is released there: an event's destruction takes the
 * context's lock). */
static bool zfcl_deferred_ready(const zfcl_deferred *d) {
    for (size_t i = 0; i < d->num_queues; i++)
        for (size_t j = 0; j < d->queues[i].num; j++)
            if (!zfcl_event_done(d->queues[i].events[j]))
                return false;
    return true;
}

static void zfcl_deferred_run(zfcl_deferred *d) {
    for (size_t i = 0; i < d->num_queues; i++) {
        for (size_t j = 0; j < d->queues[i].num; j++)
            zfcl_event_release(d->queues[i].events[j]);
        free(d->queues[i].events);
    }
    free(d->queues);
    void (*destroy)(void *) = d->destroy;
    void *object = d->object;
    free(d);
    destroy(object);
}

/* The OpenCL API specification (clReleaseMemObject, clReleaseSampler): an object is deleted once commands queued so
 * far that use it have finished. Which commands use it is not known (a kernel may reach a buffer through a pointer),
 * so the destruction waits for every command enqueued so far to a queue of the context, held ones included, without
 * blocking the caller: a release must return even while a command waits for a user event the application sets
 * later. */
void zfcl_context_defer(cl_context c, void (*destroy)(void *), void *object) {
    zfcl_deferred *d = calloc(1, sizeof *d);
    if (d == NULL) { /* it leaks rather than be freed under a command */
        zfcl_fail(CL_OUT_OF_HOST_MEMORY, "no host memory to defer a release: the object is not freed");
        return;
    }
    *d = (zfcl_deferred){.destroy = destroy, .object = object};
    pthread_mutex_lock(&c->lock);
    bool taken = zfcl_context_tails(c, d);
    bool ready = taken && zfcl_deferred_ready(d);
    if (taken && !ready) {
        d->next = c->deferred;
        c->deferred = d;
        atomic_fetch_add(&c->num_deferred, 1u);
    }
    pthread_mutex_unlock(&c->lock);
    if (ready) {
        zfcl_deferred_run(d);
    } else if (!taken) {
        zfcl_fail(CL_OUT_OF_HOST_MEMORY, "no host memory to defer a release: the object is not freed");
        free(d);
    }
}

/* The ready destructions are detached under the lock and run outside it, in the order they were deferred; the last
 * one may release the context, which the caller still holds (through a queue or a command). */
void zfcl_context_reap(cl_context c) {
    if (atomic_load(&c->num_deferred) == 0)
        return;
    zfcl_deferred *ready = NULL;
    pthread_mutex_lock(&c->lock);
    for (zfcl_deferred **at = &c->deferred; *at != NULL;) {
        zfcl_deferred *d = *at;
        if (!zfcl_deferred_ready(d)) {
            at = &d->next;
            continue;
        }
        *at = d->next;
        d->next = ready; /* the list is newest first: reversing it runs the oldest first */
        ready = d;
        atomic_fetch_sub(&c->num_deferred, 1u);
    }
    pthread_mutex_unlock(&c->lock);
    while (ready != NULL) {
        zfcl_deferred *next = ready->next;
        zfcl_deferred_run(ready);
        ready = next;
    }
}

cl_int zfcl_queue_check(cl_command_queue q) {
    return zfcl_live(q, ZFCL_QUEUE) ? CL_SUCCESS
                                    : zfcl_fail(CL_INVALID_COMMAND_QUEUE, "command_queue is no live queue");
}

cl_int CL_API_CALL zfcl_clRetainCommandQueue(cl_command_queue q) {
    cl_int queue_err = zfcl_queue_check(q);
    if (queue_err != CL_SUCCESS)
        return queue_err;
    zfcl_retain(&q->obj);
    return CL_SUCCESS;
}

static void zfcl_queue_unlink(cl_command_queue q) {
    pthread_mutex_lock(&q->context->lock);
    for (cl_command_queue *p = &q->context->queues; *p != NULL; p = &(*p)->next_queue)
        if (*p == q) {
            *p = q->next_queue;
            break;
        }
    pthread_mutex_unlock(&q->context->lock);
}

static void zfcl_queue_destroy(cl_command_queue q) {
    zfcl_queue_unlink(q);
    zfcl_hold_free_done(q, zfcl_hold_take_done(q), true); /* no command of the queue is left */
    for (uint32_t i = 0; i < q->num_lists; i++)
        if (q->held_queues[i] != NULL)
            zfi_zeCommandQueueDestroy(q->held_queues[i]);
    for (uint32_t i = 0; i < q->num_lists; i++)
        zfi_zeCommandListDestroy(q->lists[i]);
    pthread_mutex_destroy(&q->lock);
    cl_context c = q->context;
    zfcl_object_free(&q->obj);
    zfcl_context_unhold(c);
}

void zfcl_queue_hold(cl_command_queue q) {
    atomic_fetch_add(&q->holds, 1u);
}

void zfcl_queue_unhold(cl_command_queue q) {
    if (atomic_fetch_sub(&q->holds, 1u) == 1u)
        zfcl_queue_destroy(q);
}

cl_int CL_API_CALL zfcl_clReleaseCommandQueue(cl_command_queue q) {
    cl_int queue_err = zfcl_queue_check(q);
    if (queue_err != CL_SUCCESS)
        return queue_err;
    if (!zfcl_release(&q->obj))
        return CL_SUCCESS;
    zfcl_queue_finish(q); /* the release flushes; the queue goes when its commands and events are done */
    zfcl_unregister(&q->obj);
    zfcl_queue_forget(q);
    zfcl_queue_unhold(q); /* the application's hold */
    return CL_SUCCESS;
}

cl_int CL_API_CALL zfcl_clGetCommandQueueInfo(cl_command_queue q, cl_command_queue_info name, size_t size, void *value,
                                              size_t *size_ret) {
    cl_int queue_err = zfcl_queue_check(q);
    if (queue_err != CL_SUCCESS)
        return queue_err;
    cl_uint refs = atomic_load(&q->obj.refs);
    cl_command_queue none = NULL;
    switch (name) {
    case CL_QUEUE_CONTEXT:
        return zfcl_info(size, value, size_ret, &q->context, sizeof q->context);
    case CL_QUEUE_DEVICE:
        return zfcl_info(size, value, size_ret, &q->device, sizeof q->device);
    case CL_QUEUE_REFERENCE_COUNT:
        return zfcl_info(size, value, size_ret, &refs, sizeof refs);
    case CL_QUEUE_PROPERTIES:
        return zfcl_info(size, value, size_ret, &q->props, sizeof q->props);
    case CL_QUEUE_PROPERTIES_ARRAY:
        return zfcl_info(size, value, size_ret, q->given, q->num_given * sizeof *q->given);
    case CL_QUEUE_DEVICE_DEFAULT:
        return zfcl_info(size, value, size_ret, &none, sizeof none);
    case CL_QUEUE_SIZE:
        return zfcl_fail(CL_INVALID_COMMAND_QUEUE, "CL_QUEUE_SIZE is only for device-side queues");
    default:
        return zfcl_fail(CL_INVALID_VALUE, "param_name 0x%x is no queue query", (unsigned)name);
    }
}

cl_int CL_API_CALL zfcl_clFlush(cl_command_queue q) {
    cl_int queue_err = zfcl_queue_check(q);
    if (queue_err != CL_SUCCESS)
        return queue_err;
    return CL_SUCCESS; /* an immediate list hands every command to its engine when it is enqueued */
}

cl_int CL_API_CALL zfcl_clFinish(cl_command_queue q) {
    cl_int queue_err = zfcl_queue_check(q);
    if (queue_err != CL_SUCCESS)
        return queue_err;
    return zfcl_queue_finish(q);
}
