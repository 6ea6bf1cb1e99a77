/* The graph stream: one graph for the process, a node per appended command, edges from event dependencies, a task
 * per execution of a node, signals, and queue creation and destruction (docs/xpti.md, "Graph stream").
 *
 * The model, derived from what the API shows:
 * - Nodes belong to their command list. A regular list's nodes start a task each time the list is submitted with
 *   zeCommandQueueExecuteCommandLists; an immediate list's node starts its task when appended. A task ends when the
 *   host sees the work done: a successful queue, fence or event synchronisation or status query (an event ends the
 *   tasks of the nodes that signal it; a fence the tasks of its submission and of every earlier one on its queue), a
 *   synchronous queue or immediate list at once, and at the latest when the queue (or immediate list) is destroyed,
 *   its list reset or destroyed, or the emitter finishes.
 * - An edge goes from the node that last signalled an event to each later node that waits for it (in its wait list,
 *   or through zeCommandListAppendWaitOnEvents on its list). zeCommandListAppendSignalEvent makes the event
 *   signalled by the list's last node.
 *
 * Memory: nodes are reference counted (their list, the tasks running them, the events they signal) and their XPTI
 * events released with them, so an application that records lists forever does not grow the framework. */
#include "zx_graph.h"
#include "zx_util.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct zx_node {
    unsigned refs;
    zx_xpti_event *event;
    ze_event_handle_t signal;
    zx_vec edges; /* edge events that end at this node, released with it */
} zx_node;

typedef struct zx_task {
    zx_node *node; /* holds a reference */
    uint64_t instance;
    uint64_t submission;
    ze_fence_handle_t fence;
} zx_task;

/* A command queue, or the implicit queue of an immediate list. */
typedef struct zx_queue {
    uint64_t id; /* the queue_id of the stash tuple */
    zx_xpti_event *event;
    bool synchronous;
    uint64_t submissions;
    zx_vec tasks; /* zx_task *, in submission order */
} zx_queue;

typedef struct zx_list {
    ze_device_handle_t device;
    zx_queue *queue; /* immediate lists only */
    zx_vec nodes;    /* regular lists: recorded nodes, each holding a reference */
    zx_vec waits;    /* events the next node waits for (AppendWaitOnEvents) */
    zx_node *last;   /* the last node appended (a reference) */
} zx_list;

typedef struct zx_kernel {
    const char *name; /* interned by the framework */
    uint32_t group[3];
    bool group_known;
} zx_kernel;

static pthread_mutex_t zx_graph_lock = PTHREAD_MUTEX_INITIALIZER;
static zx_map zx_lists;     /* ze_command_list_handle_t -> zx_list */
static zx_map zx_queues;    /* ze_command_queue_handle_t or immediate list -> zx_queue */
static zx_map zx_kernels;   /* ze_kernel_handle_t -> zx_kernel */
static zx_map zx_producers; /* ze_event_handle_t -> zx_node that signals it (a reference) */
static zx_map zx_fences;    /* ze_fence_handle_t -> its queue's handle */
static zx_map zx_devices;   /* ze_device_handle_t -> interned name */
static uint32_t zx_node_serial;
static uint32_t zx_edge_serial;
static uint64_t zx_queue_serial;

static const char *const zx_kind_names[] = {"kernel", "memory_copy", "memory_fill", "barrier"};

static uint64_t zx_key(const void *handle) {
    return (uint64_t)(uintptr_t)handle;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Events and metadata */

static const char *zx_intern(const zx_ctx *ctx, const char *text) {
    char *copy = NULL;
    if (text != NULL)
        ctx->fw.xptiRegisterString(text, &copy);
    return copy;
}

/* An event with a payload unique to this call site and serial number, so that every node, edge and queue is an
 * event of its own (the framework hands out the same event again for the same payload). */
static zx_xpti_event *zx_make_event(const zx_ctx *ctx, const char *name, const char *source, uint32_t serial,
                                    uint16_t type, uint64_t *instance) {
    zx_xpti_payload payload = {
        .name = zx_intern(ctx, name),
        .source_file = source,
        .line_no = serial,
        .column_no = 0,
        .flags = ZX_PAYLOAD_NAME | ZX_PAYLOAD_SOURCE_FILE | ZX_PAYLOAD_LINE | ZX_PAYLOAD_COLUMN,
    };
    *instance = 0;
    return ctx->fw.xptiMakeEvent(payload.name, &payload, type, ZX_ACTIVITY_ACTIVE, instance);
}

static void zx_add_meta(const zx_ctx *ctx, zx_xpti_event *event, const zx_meta_item *item) {
    zx_xpti_object_id value;
    if (item->text != NULL)
        value = ctx->fw.xptiRegisterObject(item->text, strlen(item->text), ZX_METADATA_STRING);
    else
        value = ctx->fw.xptiRegisterObject((const char *)&item->number, sizeof item->number, ZX_METADATA_UNSIGNED);
    if (value != ZX_XPTI_INVALID_ID)
        ctx->fw.xptiAddMetadata(event, item->key, value);
}

void zx_append_text(zx_append *a, const char *key, const char *text) {
    if (text != NULL && a->meta_count < ZX_META_MAX)
        a->meta[a->meta_count++] = (zx_meta_item){key, text, 0};
}

void zx_append_number(zx_append *a, const char *key, uint64_t number) {
    if (a->meta_count < ZX_META_MAX)
        a->meta[a->meta_count++] = (zx_meta_item){key, NULL, number};
}

/* Notifies with the queue's id stashed as ("queue_id", id), as the SYCL stream does. */
static void zx_notify_queue(const zx_ctx *ctx, const zx_queue *queue, uint16_t type, zx_xpti_event *object,
                            uint64_t instance, const void *user_data) {
    if (!zx_wants(ctx, ZX_S_GRAPH, type))
        return;
    bool stashed = ctx->fw.xptiStashTuple("queue_id", queue->id) == ZX_XPTI_SUCCESS;
    zx_notify(ctx, ZX_S_GRAPH, type, ctx->graph, object, instance, user_data);
    if (stashed)
        ctx->fw.xptiUnstashTuple();
}

/* ------------------------------------------------------------------------------------------------------------------
 * Nodes and tasks (under zx_graph_lock) */

static zx_node *zx_node_ref(zx_node *node) {
    if (node != NULL)
        node->refs++;
    return node;
}

static void zx_node_unref(const zx_ctx *ctx, zx_node *node) {
    if (node == NULL || --node->refs > 0)
        return;
    for (size_t i = 0; i < node->edges.count; i++)
        ctx->fw.xptiReleaseEvent(node->edges.items[i]);
    zx_vec_free(&node->edges);
    ctx->fw.xptiReleaseEvent(node->event);
    free(node);
}

static void zx_task_begin(const zx_ctx *ctx, zx_queue *queue, zx_node *node, ze_fence_handle_t fence) {
    zx_task *task = malloc(sizeof *task);
    if (task == NULL)
        return;
    *task = (zx_task){zx_node_ref(node), ctx->fw.xptiGetUniqueId(), queue->submissions, fence};
    if (!zx_vec_push(&queue->tasks, task)) {
        zx_node_unref(ctx, node);
        free(task);
        return;
    }
    zx_notify_queue(ctx, queue, ZX_TP_TASK_BEGIN, node->event, task->instance, NULL);
    if (node->signal != NULL)
        zx_notify_queue(ctx, queue, ZX_TP_SIGNAL, node->event, task->instance, node->signal);
}

static void zx_task_end_at(const zx_ctx *ctx, zx_queue *queue, size_t index) {
    zx_task *task = queue->tasks.items[index];
    zx_vec_remove_at(&queue->tasks, index);
    zx_notify_queue(ctx, queue, ZX_TP_TASK_END, task->node->event, task->instance, NULL);
    zx_node_unref(ctx, task->node);
    free(task);
}

/* Ends the queue's tasks that `done` selects, in submission order. */
static void zx_tasks_end(const zx_ctx *ctx, zx_queue *queue, bool (*done)(const zx_task *, const void *),
                         const void *arg) {
    for (size_t i = 0; i < queue->tasks.count;) {
        if (done == NULL || done(queue->tasks.items[i], arg))
            zx_task_end_at(ctx, queue, i);
        else
            i++;
    }
}

/* Calls fn on every queue. */
static void zx_each_queue(const zx_ctx *ctx, void (*fn)(const zx_ctx *, zx_queue *, const void *), const void *arg) {
    size_t pos = 0;
    uint64_t key;
    void *value;
    while (zx_map_next(&zx_queues, &pos, &key, &value))
        fn(ctx, value, arg);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Queues (under zx_graph_lock) */

static zx_queue *zx_queue_new(const zx_ctx *ctx, const void *handle, ze_device_handle_t device,
                              const ze_command_queue_desc_t *desc, const char *api) {
    zx_queue *queue = calloc(1, sizeof *queue);
    if (queue == NULL)
        return NULL;
    queue->id = ++zx_queue_serial;
    queue->synchronous = desc != NULL && desc->mode == ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS;
    if (!zx_map_put(&zx_queues, zx_key(handle), queue)) {
        free(queue);
        return NULL;
    }
    if (desc == NULL)
        return queue; /* a queue the emitter learns of late: its tasks are tracked, the queue never announced */
    uint64_t instance;
    queue->event = zx_make_event(ctx, "queue", api, (uint32_t)queue->id, ZX_ET_SCHEDULER, &instance);
    if (queue->event == NULL)
        return queue;
    const char *device_name = zx_map_get(&zx_devices, zx_key(device));
    const zx_meta_item meta[] = {
        {"queue_handle", NULL, zx_key(handle)},
        {"queue_id", NULL, queue->id},
        {"device", NULL, zx_key(device)},
        {"ordinal", NULL, desc->ordinal},
        {"index", NULL, desc->index},
        {"synchronous", NULL, queue->synchronous},
        {"immediate", NULL, strcmp(api, "zeCommandListCreateImmediate") == 0},
        {"device_name", device_name, 0},
    };
    for (size_t i = 0; i < ZX_COUNT(meta) - (device_name == NULL); i++)
        zx_add_meta(ctx, queue->event, &meta[i]);
    zx_notify_queue(ctx, queue, ZX_TP_QUEUE_CREATE, queue->event, queue->id, NULL);
    return queue;
}

/* The queue of a handle; one the emitter never saw created (made before it started) is tracked from now on. */
static zx_queue *zx_queue_of(const zx_ctx *ctx, const void *handle) {
    zx_queue *queue = zx_map_get(&zx_queues, zx_key(handle));
    return queue != NULL ? queue : zx_queue_new(ctx, handle, NULL, NULL, "unknown");
}

static void zx_queue_free(const zx_ctx *ctx, const void *handle) {
    zx_queue *queue = zx_map_remove(&zx_queues, zx_key(handle));
    if (queue == NULL)
        return;
    zx_tasks_end(ctx, queue, NULL, NULL);
    if (queue->event != NULL) {
        zx_notify_queue(ctx, queue, ZX_TP_QUEUE_DESTROY, queue->event, queue->id, NULL);
        ctx->fw.xptiReleaseEvent(queue->event);
    }
    zx_vec_free(&queue->tasks);
    free(queue);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Lists (under zx_graph_lock) */

static zx_list *zx_list_of(ze_command_list_handle_t handle) {
    zx_list *list = zx_map_get(&zx_lists, zx_key(handle));
    if (list != NULL)
        return list;
    list = calloc(1, sizeof *list); /* made before the emitter started: a regular list on an unknown device */
    if (list != NULL && !zx_map_put(&zx_lists, zx_key(handle), list)) {
        free(list);
        list = NULL;
    }
    return list;
}

static bool zx_task_of_list(const zx_task *task, const void *list) {
    const zx_list *l = list;
    for (size_t i = 0; i < l->nodes.count; i++) {
        if (l->nodes.items[i] == task->node)
            return true;
    }
    return false;
}

static void zx_end_list_tasks(const zx_ctx *ctx, zx_queue *queue, const void *list) {
    zx_tasks_end(ctx, queue, zx_task_of_list, list);
}

/* Drops the list's recorded nodes; their tasks still open are ended first (a list is reset or destroyed only when
 * its work is done). */
static void zx_list_clear(const zx_ctx *ctx, zx_list *list) {
    if (list->nodes.count > 0)
        zx_each_queue(ctx, zx_end_list_tasks, list);
    for (size_t i = 0; i < list->nodes.count; i++)
        zx_node_unref(ctx, list->nodes.items[i]);
    list->nodes.count = 0;
    list->waits.count = 0;
    zx_node_unref(ctx, list->last);
    list->last = NULL;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Appends */

static void zx_edge(const zx_ctx *ctx, zx_node *from, zx_node *to, ze_event_handle_t via) {
    uint64_t instance;
    zx_xpti_event *edge = zx_make_event(ctx, "edge", "event dependency", ++zx_edge_serial, ZX_ET_GRAPH, &instance);
    if (edge == NULL)
        return;
    if (!zx_vec_push(&to->edges, edge)) {
        ctx->fw.xptiReleaseEvent(edge);
        return;
    }
    /* unique_id, source_id and target_id lie in the prefix every generation with 64-bit ids shares (zx_xpti.h), so
     * these writes hold under an older framework too; the flags word, which only the current one has, is left as
     * the framework set it (docs/xpti.md, "Layout generation"). */
    edge->source_id = from->event->unique_id;
    edge->target_id = to->event->unique_id;
    zx_add_meta(ctx, edge, &(zx_meta_item){"event", NULL, zx_key(via)});
    if (zx_wants(ctx, ZX_S_GRAPH, ZX_TP_EDGE_CREATE))
        zx_notify(ctx, ZX_S_GRAPH, ZX_TP_EDGE_CREATE, ctx->graph, edge, instance, NULL);
}

/* One edge per distinct producer of the events waited for. */
static void zx_edges_from(const zx_ctx *ctx, zx_node *node, uint32_t count, const ze_event_handle_t *events,
                          zx_vec *seen) {
    for (uint32_t i = 0; events != NULL && i < count; i++) {
        zx_node *from = zx_map_get(&zx_producers, zx_key(events[i]));
        bool known = false;
        for (size_t k = 0; from != NULL && k < seen->count && !known; k++)
            known = seen->items[k] == from;
        if (from == NULL || known || from == node)
            continue;
        zx_vec_push(seen, from);
        zx_edge(ctx, from, node, events[i]);
    }
}

static void zx_set_producer(const zx_ctx *ctx, ze_event_handle_t event, zx_node *node) {
    zx_node *old = zx_map_get(&zx_producers, zx_key(event));
    if (old == node)
        return;
    if (zx_map_put(&zx_producers, zx_key(event), zx_node_ref(node)))
        zx_node_unref(ctx, old);
    else
        zx_node_unref(ctx, node);
}

static zx_node *zx_node_new(const zx_ctx *ctx, const zx_append *a, uint64_t *instance) {
    zx_node *node = calloc(1, sizeof *node);
    if (node == NULL)
        return NULL;
    uint16_t type = a->kind == ZX_NODE_BARRIER ? ZX_ET_BARRIER : ZX_ET_ALGORITHM;
    node->event = zx_make_event(ctx, a->label, a->api, ++zx_node_serial, type, instance);
    if (node->event == NULL) {
        free(node);
        return NULL;
    }
    node->refs = 1;
    node->signal = a->signal;
    for (unsigned i = 0; i < a->meta_count; i++)
        zx_add_meta(ctx, node->event, &a->meta[i]);
    return node;
}

static void zx_node_announce(const zx_ctx *ctx, zx_node *node, const zx_append *a, zx_list *list, uint64_t instance) {
    if (zx_wants(ctx, ZX_S_GRAPH, ZX_TP_NODE_CREATE))
        zx_notify(ctx, ZX_S_GRAPH, ZX_TP_NODE_CREATE, ctx->graph, node->event, instance, zx_kind_names[a->kind]);
    zx_vec seen = {0};
    zx_edges_from(ctx, node, a->num_waits, a->waits, &seen);
    zx_edges_from(ctx, node, (uint32_t)list->waits.count, (const ze_event_handle_t *)list->waits.items, &seen);
    zx_vec_free(&seen);
    list->waits.count = 0;
}

void zx_graph_append(const zx_ctx *ctx, zx_append *a) {
    pthread_mutex_lock(&zx_graph_lock);
    zx_list *list = zx_list_of(a->list);
    const char *device = list != NULL ? zx_map_get(&zx_devices, zx_key(list->device)) : NULL;
    zx_append_text(a, "device_name", device);
    if (list != NULL && list->queue != NULL)
        zx_append_number(a, "queue_id", list->queue->id);
    uint64_t instance = 0;
    zx_node *node = list != NULL ? zx_node_new(ctx, a, &instance) : NULL;
    if (node == NULL) {
        pthread_mutex_unlock(&zx_graph_lock);
        return;
    }
    zx_node_announce(ctx, node, a, list, instance);
    if (a->signal != NULL)
        zx_set_producer(ctx, a->signal, node);
    zx_node_unref(ctx, list->last);
    list->last = zx_node_ref(node);
    if (list->queue == NULL && zx_vec_push(&list->nodes, node)) {
        node = NULL; /* the list's reference */
    } else if (list->queue != NULL) {
        zx_task_begin(ctx, list->queue, node, NULL);
        if (list->queue->synchronous)
            zx_tasks_end(ctx, list->queue, NULL, NULL);
    }
    zx_node_unref(ctx, node);
    pthread_mutex_unlock(&zx_graph_lock);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Object life cycles */

static const char *zx_device_name(const zx_ctx *ctx, ze_device_handle_t device) {
    if (device == NULL || ctx->device_props == NULL)
        return NULL;
    pthread_mutex_lock(&zx_graph_lock);
    const char *name = zx_map_get(&zx_devices, zx_key(device));
    pthread_mutex_unlock(&zx_graph_lock);
    if (name != NULL)
        return name;
    /* A call from inside a tracing callback is not traced: the query stays invisible to the streams. */
    ze_device_properties_t props = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
    if (ctx->device_props(device, &props) != ZE_RESULT_SUCCESS)
        return NULL;
    props.name[sizeof props.name - 1] = '\0';
    name = zx_intern(ctx, props.name);
    pthread_mutex_lock(&zx_graph_lock);
    if (name != NULL)
        zx_map_put(&zx_devices, zx_key(device), (void *)name);
    pthread_mutex_unlock(&zx_graph_lock);
    return name;
}

void zx_graph_kernel_created(const zx_ctx *ctx, ze_kernel_handle_t kernel, const char *name) {
    zx_kernel *k = calloc(1, sizeof *k);
    if (k == NULL)
        return;
    k->name = zx_intern(ctx, name != NULL ? name : "kernel");
    pthread_mutex_lock(&zx_graph_lock);
    free(zx_map_remove(&zx_kernels, zx_key(kernel)));
    if (!zx_map_put(&zx_kernels, zx_key(kernel), k))
        free(k);
    pthread_mutex_unlock(&zx_graph_lock);
}

void zx_graph_kernel_group_size(ze_kernel_handle_t kernel, uint32_t x, uint32_t y, uint32_t z) {
    pthread_mutex_lock(&zx_graph_lock);
    zx_kernel *k = zx_map_get(&zx_kernels, zx_key(kernel));
    if (k != NULL) {
        k->group[0] = x;
        k->group[1] = y;
        k->group[2] = z;
        k->group_known = true;
    }
    pthread_mutex_unlock(&zx_graph_lock);
}

void zx_graph_kernel_destroyed(ze_kernel_handle_t kernel) {
    pthread_mutex_lock(&zx_graph_lock);
    free(zx_map_remove(&zx_kernels, zx_key(kernel)));
    pthread_mutex_unlock(&zx_graph_lock);
}

const char *zx_graph_kernel(ze_kernel_handle_t kernel, uint32_t group[3], bool *group_known) {
    pthread_mutex_lock(&zx_graph_lock);
    const zx_kernel *k = zx_map_get(&zx_kernels, zx_key(kernel));
    const char *name = k != NULL ? k->name : NULL;
    *group_known = k != NULL && k->group_known;
    for (int i = 0; i < 3; i++)
        group[i] = k != NULL ? k->group[i] : 0;
    pthread_mutex_unlock(&zx_graph_lock);
    return name;
}

void zx_graph_list_created(const zx_ctx *ctx, ze_command_list_handle_t handle, ze_device_handle_t device,
                           const ze_command_queue_desc_t *immediate) {
    zx_device_name(ctx, device);
    zx_list *list = calloc(1, sizeof *list);
    if (list == NULL)
        return;
    list->device = device;
    pthread_mutex_lock(&zx_graph_lock);
    if (immediate != NULL)
        list->queue = zx_queue_new(ctx, handle, device, immediate, "zeCommandListCreateImmediate");
    if (!zx_map_put(&zx_lists, zx_key(handle), list)) {
        zx_queue_free(ctx, handle);
        free(list);
    }
    pthread_mutex_unlock(&zx_graph_lock);
}

void zx_graph_list_reset(const zx_ctx *ctx, ze_command_list_handle_t handle, bool destroy) {
    pthread_mutex_lock(&zx_graph_lock);
    zx_list *list = destroy ? zx_map_remove(&zx_lists, zx_key(handle)) : zx_map_get(&zx_lists, zx_key(handle));
    if (list != NULL) {
        zx_list_clear(ctx, list);
        if (destroy && list->queue != NULL)
            zx_queue_free(ctx, handle);
    }
    if (destroy && list != NULL) {
        zx_vec_free(&list->nodes);
        zx_vec_free(&list->waits);
        free(list);
    }
    pthread_mutex_unlock(&zx_graph_lock);
}

void zx_graph_queue_created(const zx_ctx *ctx, ze_command_queue_handle_t queue, ze_device_handle_t device,
                            const ze_command_queue_desc_t *desc) {
    zx_device_name(ctx, device);
    pthread_mutex_lock(&zx_graph_lock);
    zx_queue_free(ctx, queue); /* a record left by a queue destroyed untraced */
    zx_queue_new(ctx, queue, device, desc, "zeCommandQueueCreate");
    pthread_mutex_unlock(&zx_graph_lock);
}

void zx_graph_queue_destroyed(const zx_ctx *ctx, ze_command_queue_handle_t queue) {
    pthread_mutex_lock(&zx_graph_lock);
    zx_queue_free(ctx, queue);
    pthread_mutex_unlock(&zx_graph_lock);
}

void zx_graph_fence_created(ze_fence_handle_t fence, ze_command_queue_handle_t queue) {
    pthread_mutex_lock(&zx_graph_lock);
    zx_map_put(&zx_fences, zx_key(fence), queue);
    pthread_mutex_unlock(&zx_graph_lock);
}

void zx_graph_fence_destroyed(ze_fence_handle_t fence) {
    pthread_mutex_lock(&zx_graph_lock);
    zx_map_remove(&zx_fences, zx_key(fence));
    pthread_mutex_unlock(&zx_graph_lock);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Events */

void zx_graph_list_waits(ze_command_list_handle_t handle, uint32_t count, const ze_event_handle_t *events) {
    pthread_mutex_lock(&zx_graph_lock);
    zx_list *list = zx_list_of(handle);
    for (uint32_t i = 0; list != NULL && events != NULL && i < count; i++)
        zx_vec_push(&list->waits, events[i]);
    pthread_mutex_unlock(&zx_graph_lock);
}

/* The event is signalled once the list's earlier commands are done: its producer is the list's last node (none when
 * the list has no node yet, and the event then depends on nothing). */
void zx_graph_list_signals(const zx_ctx *ctx, ze_command_list_handle_t handle, ze_event_handle_t event) {
    pthread_mutex_lock(&zx_graph_lock);
    zx_list *list = zx_list_of(handle);
    if (list != NULL && list->last != NULL)
        zx_set_producer(ctx, event, list->last);
    else
        zx_node_unref(ctx, zx_map_remove(&zx_producers, zx_key(event)));
    pthread_mutex_unlock(&zx_graph_lock);
}

void zx_graph_event_forget(const zx_ctx *ctx, ze_event_handle_t event) {
    pthread_mutex_lock(&zx_graph_lock);
    zx_node_unref(ctx, zx_map_remove(&zx_producers, zx_key(event)));
    pthread_mutex_unlock(&zx_graph_lock);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Execution */

void zx_graph_execute(const zx_ctx *ctx, ze_command_queue_handle_t handle, uint32_t count,
                      const ze_command_list_handle_t *lists, ze_fence_handle_t fence) {
    pthread_mutex_lock(&zx_graph_lock);
    zx_queue *queue = zx_queue_of(ctx, handle);
    if (queue != NULL) {
        queue->submissions++;
        for (uint32_t i = 0; lists != NULL && i < count; i++) {
            zx_list *list = zx_map_get(&zx_lists, zx_key(lists[i]));
            for (size_t n = 0; list != NULL && n < list->nodes.count; n++)
                zx_task_begin(ctx, queue, list->nodes.items[n], fence);
        }
        if (queue->synchronous)
            zx_tasks_end(ctx, queue, NULL, NULL);
    }
    pthread_mutex_unlock(&zx_graph_lock);
}

void zx_graph_queue_done(const zx_ctx *ctx, ze_command_queue_handle_t handle) {
    pthread_mutex_lock(&zx_graph_lock);
    zx_queue *queue = zx_map_get(&zx_queues, zx_key(handle));
    if (queue != NULL)
        zx_tasks_end(ctx, queue, NULL, NULL);
    pthread_mutex_unlock(&zx_graph_lock);
}

static bool zx_task_submitted_by(const zx_task *task, const void *submission) {
    return task->submission <= *(const uint64_t *)submission;
}

/* The fence's last submission on its queue, and every earlier one, are done (a queue runs its lists in order). */
void zx_graph_fence_done(const zx_ctx *ctx, ze_fence_handle_t fence) {
    pthread_mutex_lock(&zx_graph_lock);
    const void *handle = zx_map_get(&zx_fences, zx_key(fence));
    zx_queue *queue = handle != NULL ? zx_map_get(&zx_queues, zx_key(handle)) : NULL;
    uint64_t last = 0;
    for (size_t i = 0; queue != NULL && i < queue->tasks.count; i++) {
        const zx_task *task = queue->tasks.items[i];
        if (task->fence == fence && task->submission > last)
            last = task->submission;
    }
    if (last != 0)
        zx_tasks_end(ctx, queue, zx_task_submitted_by, &last);
    pthread_mutex_unlock(&zx_graph_lock);
}

static bool zx_task_signals(const zx_task *task, const void *event) {
    return task->node->signal == event || zx_map_get(&zx_producers, zx_key(event)) == task->node;
}

static void zx_end_event_tasks(const zx_ctx *ctx, zx_queue *queue, const void *event) {
    zx_tasks_end(ctx, queue, zx_task_signals, event);
}

void zx_graph_event_done(const zx_ctx *ctx, ze_event_handle_t event) {
    pthread_mutex_lock(&zx_graph_lock);
    zx_each_queue(ctx, zx_end_event_tasks, event);
    pthread_mutex_unlock(&zx_graph_lock);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Waits */

/* One event per host wait, made at wait_begin and released after wait_end: the framework makes a new tracepoint for
 * each xptiMakeEvent, so an event per wait kept would grow it for ever. */
void zx_graph_wait(zx_call *call, bool begin, const void *what) {
    const zx_ctx *ctx = call->ctx;
    uint16_t type = begin ? ZX_TP_WAIT_BEGIN : ZX_TP_WAIT_END;
    if (begin && !zx_wants(ctx, ZX_S_GRAPH, ZX_TP_WAIT_BEGIN) && !zx_wants(ctx, ZX_S_GRAPH, ZX_TP_WAIT_END))
        return;
    uint64_t instance;
    pthread_mutex_lock(&zx_graph_lock);
    if (begin) {
        snprintf(call->text, sizeof call->text, "%s(%p)", call->fwa.function_name, what);
        call->wait = zx_make_event(ctx, call->fwa.function_name, "host wait", 0, ZX_ET_BARRIER, &instance);
    }
    if (call->wait != NULL && zx_wants(ctx, ZX_S_GRAPH, type))
        zx_notify(ctx, ZX_S_GRAPH, type, NULL, call->wait, call->id, call->text);
    if (!begin && call->wait != NULL) {
        ctx->fw.xptiReleaseEvent(call->wait);
        call->wait = NULL;
    }
    pthread_mutex_unlock(&zx_graph_lock);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Start and finish */

void zx_graph_start(zx_ctx *ctx) {
    if (!ctx->listened[ZX_S_GRAPH])
        return;
    uint64_t instance;
    ctx->graph = zx_make_event(ctx, "level_zero.graph", "zexpti", 0, ZX_ET_GRAPH, &instance);
    if (ctx->graph != NULL && zx_wants(ctx, ZX_S_GRAPH, ZX_TP_GRAPH_CREATE))
        zx_notify(ctx, ZX_S_GRAPH, ZX_TP_GRAPH_CREATE, NULL, ctx->graph, instance, NULL);
}

static void zx_end_all_tasks(const zx_ctx *ctx, zx_queue *queue, const void *arg) {
    (void)arg;
    zx_tasks_end(ctx, queue, NULL, NULL);
}

/* Closes every task still open, so that each task_begin has its task_end; queues stay (they were not destroyed). */
void zx_graph_finish(const zx_ctx *ctx) {
    pthread_mutex_lock(&zx_graph_lock);
    zx_each_queue(ctx, zx_end_all_tasks, NULL);
    pthread_mutex_unlock(&zx_graph_lock);
}
