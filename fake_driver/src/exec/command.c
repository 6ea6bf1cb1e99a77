/* Commands as lists record them and engines run them: what a command owns, its release and its copy. */
#include "core/zf_core.h"
#include "exec/zf_exec.h"
#include "module/zf_kernel.h"

#include <stdlib.h>
#include <string.h>

void zf_command_free(zf_command *command) {
    if (command->waits != NULL)
        free(command->waits);
    command->waits = NULL;
    command->num_waits = 0;
    switch (command->kind) {
    case ZF_CMD_FILL:
        free(command->u.fill.pattern);
        command->u.fill.pattern = NULL;
        break;
    case ZF_CMD_QUERY_KERNEL_TIMESTAMPS:
        free(command->u.query.events);
        free(command->u.query.offsets);
        command->u.query.events = NULL;
        command->u.query.offsets = NULL;
        break;
    case ZF_CMD_CUSTOM:
        if (command->u.custom.ops != NULL && command->u.custom.ops->release != NULL)
            command->u.custom.ops->release(command->u.custom.payload);
        command->u.custom.payload = NULL;
        command->u.custom.ops = NULL;
        break;
    case ZF_CMD_LAUNCH:
    case ZF_CMD_LAUNCH_INDIRECT:
    case ZF_CMD_LAUNCH_MULTIPLE_INDIRECT:
        for (uint32_t k = 0; k < command->u.launch.num_kernels; k++)
            zf_kernel_launch_free(zf_launch_at(&command->u.launch, k));
        free(command->u.launch.launches);
        command->u.launch.launches = NULL;
        command->u.launch.one = NULL;
        command->u.launch.num_kernels = 0;
        break;
    default:
        break;
    }
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

static ze_result_t zf_clone_custom(const zf_custom_args *from, zf_custom_args *to) {
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

static ze_result_t zf_clone_launches(const zf_launch_args *from, zf_launch_pool *pool, zf_launch_args *to) {
    *to = *from;
    to->one = NULL;
    to->launches = NULL;
    to->num_kernels = 0;
    if (from->launches != NULL && (to->launches = calloc(from->num_kernels, sizeof *to->launches)) == NULL)
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory to clone a launch");
    for (uint32_t k = 0; k < from->num_kernels; k++) {
        zf_kernel_launch *copy = zf_kernel_launch_clone(zf_launch_at(from, k), pool);
        if (copy == NULL)
            return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory to clone a launch");
        if (to->launches != NULL)
            to->launches[k] = copy;
        else
            to->one = copy;
        to->num_kernels = k + 1;
    }
    return ZE_RESULT_SUCCESS;
}

static ze_result_t zf_clone_owned(const zf_command *command, zf_launch_pool *pool, zf_command *copy) {
    switch (command->kind) {
    case ZF_CMD_FILL:
        return zf_dup(command->u.fill.pattern, command->u.fill.pattern_size, (void **)&copy->u.fill.pattern)
                   ? ZE_RESULT_SUCCESS
                   : zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory to clone a fill");
    case ZF_CMD_QUERY_KERNEL_TIMESTAMPS: {
        const zf_query_timestamps_args *q = &command->u.query;
        bool ok = zf_dup(q->events, q->num_events * sizeof *q->events, (void **)&copy->u.query.events) &&
                  zf_dup(q->offsets, q->offsets != NULL ? q->num_events * sizeof *q->offsets : 0,
                         (void **)&copy->u.query.offsets);
        return ok ? ZE_RESULT_SUCCESS : zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory to clone a query");
    }
    case ZF_CMD_CUSTOM:
        return zf_clone_custom(&command->u.custom, &copy->u.custom);
    case ZF_CMD_LAUNCH:
    case ZF_CMD_LAUNCH_INDIRECT:
    case ZF_CMD_LAUNCH_MULTIPLE_INDIRECT:
        return zf_clone_launches(&command->u.launch, pool, &copy->u.launch);
    default:
        return ZE_RESULT_SUCCESS; /* copies, barriers, event commands: their arguments are values */
    }
}

ze_result_t zf_command_clone(const zf_command *command, zf_launch_pool *pool, zf_command *copy) {
    *copy = *command;
    copy->waits = NULL;
    copy->num_waits = 0;
    switch (command->kind) { /* nothing owned yet, in case the copy fails half-way */
    case ZF_CMD_FILL:
        copy->u.fill.pattern = NULL;
        break;
    case ZF_CMD_QUERY_KERNEL_TIMESTAMPS:
        copy->u.query.events = NULL;
        copy->u.query.offsets = NULL;
        break;
    case ZF_CMD_CUSTOM:
        copy->u.custom = (zf_custom_args){0};
        break;
    default:
        break;
    }
    ze_result_t result = zf_clone_owned(command, pool, copy);
    if (result == ZE_RESULT_SUCCESS &&
        !zf_dup(command->waits, command->num_waits * sizeof *command->waits, (void **)&copy->waits))
        result = zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory to clone a wait list");
    if (result == ZE_RESULT_SUCCESS)
        copy->num_waits = command->num_waits;
    else
        zf_command_free(copy);
    return result;
}
