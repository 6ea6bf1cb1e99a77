/* The graph stream's model of what the application does (docs/xpti.md, "Graph stream"): zx_graph.c keeps it,
 * zx_graph_hooks.c feeds it from the traced calls. Every function here takes the graph lock itself; notifications
 * of the graph stream are made under it, so subscribers see them in one global order. */
#ifndef ZX_GRAPH_H
#define ZX_GRAPH_H

#include "zx_emitter.h"

/* What one appended command is. */
typedef enum zx_node_kind { ZX_NODE_KERNEL, ZX_NODE_COPY, ZX_NODE_FILL, ZX_NODE_BARRIER } zx_node_kind;

/* A metadata entry of a node: a string or an unsigned number. */
typedef struct zx_meta_item {
    const char *key;
    const char *text; /* NULL: the value is `number` */
    uint64_t number;
} zx_meta_item;

#define ZX_META_MAX 12

/* One appended command, as the hooks describe it. */
typedef struct zx_append {
    const char *api; /* the function that appended it */
    zx_node_kind kind;
    const char *label; /* the node's name: a kernel name or the kind of command */
    ze_command_list_handle_t list;
    ze_event_handle_t signal;
    uint32_t num_waits;
    const ze_event_handle_t *waits;
    zx_meta_item meta[ZX_META_MAX];
    unsigned meta_count;
} zx_append;

/* Adds a string entry (nothing for NULL) or a number entry to an append's metadata. */
void zx_append_text(zx_append *a, const char *key, const char *text);
void zx_append_number(zx_append *a, const char *key, uint64_t number);

/* A node for an appended command, its edges, and for immediate lists its task. */
void zx_graph_append(const zx_ctx *ctx, zx_append *a);

/* The name and group size of a kernel (the name interned; NULL when the kernel is unknown). */
const char *zx_graph_kernel(ze_kernel_handle_t kernel, uint32_t group[3], bool *group_known);

/* Objects and their life cycles. */
void zx_graph_kernel_created(const zx_ctx *ctx, ze_kernel_handle_t kernel, const char *name);
void zx_graph_kernel_group_size(ze_kernel_handle_t kernel, uint32_t x, uint32_t y, uint32_t z);
void zx_graph_kernel_destroyed(ze_kernel_handle_t kernel);
void zx_graph_list_created(const zx_ctx *ctx, ze_command_list_handle_t list, ze_device_handle_t device,
                           const ze_command_queue_desc_t *immediate);
void zx_graph_list_reset(const zx_ctx *ctx, ze_command_list_handle_t list, bool destroy);
void zx_graph_queue_created(const zx_ctx *ctx, ze_command_queue_handle_t queue, ze_device_handle_t device,
                            const ze_command_queue_desc_t *desc);
void zx_graph_queue_destroyed(const zx_ctx *ctx, ze_command_queue_handle_t queue);
void zx_graph_fence_created(ze_fence_handle_t fence, ze_command_queue_handle_t queue);
void zx_graph_fence_destroyed(ze_fence_handle_t fence);

/* Events: AppendWaitOnEvents makes the list's next node wait for them; AppendSignalEvent makes the event signalled by
 * the list's last node; a reset, host signal or destroy forgets who signals it. */
void zx_graph_list_waits(ze_command_list_handle_t list, uint32_t count, const ze_event_handle_t *events);
void zx_graph_list_signals(const zx_ctx *ctx, ze_command_list_handle_t list, ze_event_handle_t event);
void zx_graph_event_forget(const zx_ctx *ctx, ze_event_handle_t event);

/* Execution: a submission starts the tasks of the lists' nodes; completion seen by the host ends them. */
void zx_graph_execute(const zx_ctx *ctx, ze_command_queue_handle_t queue, uint32_t count,
                      const ze_command_list_handle_t *lists, ze_fence_handle_t fence);
void zx_graph_queue_done(const zx_ctx *ctx, ze_command_queue_handle_t queue);
void zx_graph_fence_done(const zx_ctx *ctx, ze_fence_handle_t fence);
void zx_graph_event_done(const zx_ctx *ctx, ze_event_handle_t event);

/* wait_begin/wait_end around a host synchronisation call; `what` is the waited-for handle. */
void zx_graph_wait(zx_call *call, bool begin, const void *what);

#endif
