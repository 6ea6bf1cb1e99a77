/* Commands as lists record them and engines run them: what a command owns, its release and its copy, and the one
 * table of command kinds (zf_command_kinds) the engine goes through. */
#include "core/zf_core.h"
#include "exec/command_kinds.h"
#include "module/zf_kernel.h"

#include <stdlib.h>
#include <string.h>

static void zf_release_fill(zf_command *command) {
    free(command->u.fill.pattern);
    command->u.fill.pattern = NULL;
}

static void zf_release_query(zf_command *command) {
    free(command->u.query.events);
    free(command->u.query.offsets);
    command->u.query.events = NULL;
    command->u.query.offsets = NULL;
}

static void zf_release_custom(zf_command *command) {
    if (command->u.custom.ops != NULL && command->u.custom.ops->release != NULL)
        command->u.custom.ops->release(command->u.custom.payload);
    command->u.custom = (zf_custom_args){0};
}

static void zf_release_launch(zf_command *command) {
    for (uint32_t k = 0; k < command->u.launch.num_kernels; k++)
        zf_kernel_launch_free(zf_launch_at(&command->u.launch, k));
    free(command->u.launch.launches);
    command->u.launch.launches = NULL;
    command->u.launch.one = NULL;
    command->u.launch.num_kernels = 0;
}

void zf_command_free(zf_command *command) {
    if (command->waits != NULL)
        free(command->waits);
    command->waits = NULL;
    command->num_waits = 0;
    const zf_command_kind_ops *kind = &zf_command_kinds[command->kind];
    if (kind->release != NULL)
        kind->release(command);
}

/* A copy of `size` bytes of `from` in `*to` (nothing for 0 bytes); false when out of host memory. */
static bool zf_dup(const void *from, size_t size, void **to) {
    *to = NULL;
    if (from == NULL || size == 0)
        return true;
    *to = malloc(size);
    if (*to != NULL)
        memcpy(*to, from, size);
    return *to != NULL;
}

static ze_result_t zf_clone_custom(const zf_command *command, zf_launch_pool *pool, zf_command *copy) {
    (void)pool;
    const zf_custom_args *from = &command->u.custom;
    zf_custom_args *to = &copy->u.custom;
    *to = (zf_custom_args){0};
    const zf_command_ops *ops = from->ops;
    to->ops = ops;
    to->payload = from->payload;
    if (ops == NULL || ops->release == NULL)
        return ZE_RESULT_SUCCESS; /* nothing owned: shared */
    if (ops->clone != NULL)
        to->payload = ops->clone(from->payload);
    else if (ops->payload_size > 0)
        zf_dup(from->payload, ops->payload_size, &to->payload);
    else
        return zf_fail(ZE_RESULT_ERROR_UNSUPPORTED_FEATURE, "the command list holds a %s command, which is not cloned",
                       ops->name);
    return to->payload != NULL ? ZE_RESULT_SUCCESS
                               : zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory to clone a %s", ops->name);
}

static ze_result_t zf_clone_launch(const zf_command *command, zf_launch_pool *pool, zf_command *copy) {
    const zf_launch_args *from = &command->u.launch;
    zf_launch_args *to = &copy->u.launch;
    to->one = NULL;
    to->launches = NULL;
    to->num_kernels = 0;
    if (from->launches != NULL && (to->launches = calloc(from->num_kernels, sizeof *to->launches)) == NULL)
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory to clone a launch");
    for (uint32_t k = 0; k < from->num_kernels; k++) {
        zf_kernel_launch *launch = zf_kernel_launch_clone(zf_launch_at(from, k), pool);
        if (launch == NULL)
            return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory to clone a launch");
        if (to->launches != NULL)
            to->launches[k] = launch;
        else
            to->one = launch;
        to->num_kernels = k + 1;
    }
    return ZE_RESULT_SUCCESS;
}

static ze_result_t zf_clone_fill(const zf_command *command, zf_launch_pool *pool, zf_command *copy) {
    (void)pool;
    copy->u.fill.pattern = NULL;
    return zf_dup(command->u.fill.pattern, command->u.fill.pattern_size, (void **)&copy->u.fill.pattern)
               ? ZE_RESULT_SUCCESS
               : zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory to clone a fill");
}

static ze_result_t zf_clone_query(const zf_command *command, zf_launch_pool *pool, zf_command *copy) {
    (void)pool;
    const zf_query_timestamps_args *q = &command->u.query;
    copy->u.query.events = NULL;
    copy->u.query.offsets = NULL;
    bool ok = zf_dup(q->events, q->num_events * sizeof *q->events, (void **)&copy->u.query.events) &&
              zf_dup(q->offsets, q->offsets != NULL ? q->num_events * sizeof *q->offsets : 0,
                     (void **)&copy->u.query.offsets);
    return ok ? ZE_RESULT_SUCCESS : zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory to clone a query");
}

/* Copies, barriers and event commands own nothing: their arguments are values. */
ze_result_t zf_command_clone(const zf_command *command, zf_launch_pool *pool, zf_command *copy) {
    *copy = *command;
    copy->waits = NULL;
    copy->num_waits = 0;
    const zf_command_kind_ops *kind = &zf_command_kinds[command->kind];
    ze_result_t result = kind->clone != NULL ? kind->clone(command, pool, copy) : ZE_RESULT_SUCCESS;
    if (result == ZE_RESULT_SUCCESS &&
        !zf_dup(command->waits, command->num_waits * sizeof *command->waits, (void **)&copy->waits))
        result = zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory to clone a wait list");
    if (result == ZE_RESULT_SUCCESS)
        copy->num_waits = command->num_waits;
    else
        zf_command_free(copy);
    return result;
}

#define ZF_LAUNCH_KIND(label)                                                                                          \
    {                                                                                                                  \
        .name = label, .release = zf_release_launch, .clone = zf_clone_launch, .use = zf_use_launch,                   \
        .perform = zf_perform_launches                                                                                 \
    }

const zf_command_kind_ops zf_command_kinds[ZF_CMD_COUNT] = {
    [ZF_CMD_BARRIER] = {.name = "barrier"},
    [ZF_CMD_COPY] = {.name = "copy", .cost = zf_cost_copy, .use = zf_use_copy, .perform = zf_perform_copy},
    [ZF_CMD_COPY_REGION] = {.name = "region copy",
                            .cost = zf_cost_copy_region,
                            .use = zf_use_copy_region,
                            .perform = zf_perform_copy_region},
    [ZF_CMD_FILL] = {.name = "fill",
                     .release = zf_release_fill,
                     .clone = zf_clone_fill,
                     .cost = zf_cost_fill,
                     .use = zf_use_fill,
                     .perform = zf_perform_fill},
    [ZF_CMD_SIGNAL_EVENT] = {.name = "event signal"},
    [ZF_CMD_RESET_EVENT] = {.name = "event reset"},
    [ZF_CMD_WRITE_TIMESTAMP] = {.name = "global timestamp", .use = zf_use_timestamp, .perform = zf_perform_timestamp},
    [ZF_CMD_QUERY_KERNEL_TIMESTAMPS] = {.name = "kernel timestamp query",
                                        .release = zf_release_query,
                                        .clone = zf_clone_query,
                                        .use = zf_use_query,
                                        .perform = zf_perform_query},
    [ZF_CMD_HINT] = {.name = "memory hint"},
    [ZF_CMD_LAUNCH] = ZF_LAUNCH_KIND("kernel launch"),
    [ZF_CMD_LAUNCH_INDIRECT] = ZF_LAUNCH_KIND("indirect kernel launch"),
    [ZF_CMD_LAUNCH_MULTIPLE_INDIRECT] = ZF_LAUNCH_KIND("indirect kernels launch"),
    [ZF_CMD_CUSTOM] = {.name = "custom",
                       .release = zf_release_custom,
                       .clone = zf_clone_custom,
                       .perform = zf_perform_custom},
};
