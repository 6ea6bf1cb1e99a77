/* Mutable command lists (ZE_experimental_mutable_command_list 1.1, headers 1.9 and 1.10, docs/command-lists.md): a
 * regular list created with ze_mutable_command_list_exp_desc_t hands out an identifier for the next command it
 * records, and the commands so named may then be changed between executions: a launch's arguments, group count,
 * group size, global offset and kernel, any command's signal and wait events. The identifier of the command recorded
 * at index i is i + 1. The records below say what each named command may change. A change is refused while a queue
 * runs the list. */
#include "core/zf_chain.h"
#include "core/zf_core.h"
#include "exec/cmdlist_internal.h"
#include "exec/zf_exec.h"
#include "module/zf_kernel.h"

#include <stdlib.h>
#include <string.h>

typedef struct zf_mutable_record {
    uint64_t id;
    uint32_t flags;   /* ze_mutable_command_exp_flags_t: what may change */
    bool waits_known; /* wait_slots holds the command's original number of wait events */
    uint32_t wait_slots;
    ze_kernel_handle_t *kernels; /* the kernels the command may switch to */
    uint32_t num_kernels;
} zf_mutable_record;

struct zf_mutable {
    zf_mutable_record *records;
    uint32_t num, max;
};

void zf_mutable_clear(zf_mutable *m) {
    if (m == NULL)
        return;
    for (uint32_t i = 0; i < m->num; i++)
        free(m->records[i].kernels);
    m->num = 0;
}

void zf_mutable_destroy(zf_mutable *m) {
    zf_mutable_clear(m);
    if (m != NULL)
        free(m->records);
    free(m);
}

#if ZF_L0_AT_LEAST(9)
/* What every named command of the device may change: all but graph arguments (the device runs no graphs). */
#define ZF_MUTABLE_FLAGS                                                                                               \
    (ZE_MUTABLE_COMMAND_EXP_FLAG_KERNEL_ARGUMENTS | ZE_MUTABLE_COMMAND_EXP_FLAG_GROUP_COUNT |                          \
     ZE_MUTABLE_COMMAND_EXP_FLAG_GROUP_SIZE | ZE_MUTABLE_COMMAND_EXP_FLAG_GLOBAL_OFFSET |                              \
     ZE_MUTABLE_COMMAND_EXP_FLAG_SIGNAL_EVENT | ZE_MUTABLE_COMMAND_EXP_FLAG_WAIT_EVENTS |                              \
     ZE_MUTABLE_COMMAND_EXP_FLAG_KERNEL_INSTRUCTION)

ze_result_t zf_mutable_attach(zf_cmdlist *list, const void *chain) {
    const ze_base_desc_t *desc = zf_chain_find(chain, ZE_STRUCTURE_TYPE_MUTABLE_COMMAND_LIST_EXP_DESC);
    if (desc == NULL)
        return ZE_RESULT_SUCCESS;
    const ze_mutable_command_list_exp_desc_t *mutable_desc = (const ze_mutable_command_list_exp_desc_t *)desc;
    if (mutable_desc->flags & ~(ze_mutable_command_list_exp_flags_t)ZE_MUTABLE_COMMAND_LIST_EXP_FLAG_RESERVED)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ENUMERATION, "ze_mutable_command_list_exp_desc_t::flags 0x%x",
                       (unsigned)mutable_desc->flags);
    list->mutable_commands = calloc(1, sizeof *list->mutable_commands);
    if (list->mutable_commands == NULL)
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory for a mutable command list");
    return ZE_RESULT_SUCCESS;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Identifiers */

static zf_mutable_record *zf_record_of(zf_mutable *m, uint64_t id) {
    for (uint32_t i = 0; i < m->num; i++)
        if (m->records[i].id == id)
            return &m->records[i];
    return NULL;
}

/* The record of the next command: made, or (asked again before an append) made anew. */
static zf_mutable_record *zf_record_next(zf_cmdlist *list) {
    zf_mutable *m = list->mutable_commands;
    uint64_t id = (uint64_t)list->num_commands + 1;
    zf_mutable_record *record = zf_record_of(m, id);
    if (record != NULL) {
        free(record->kernels);
    } else {
        if (m->num == m->max) {
            uint32_t max = m->max == 0 ? 16 : m->max * 2;
            zf_mutable_record *grown = realloc(m->records, max * sizeof *grown);
            if (grown == NULL)
                return NULL;
            m->records = grown;
            m->max = max;
        }
        record = &m->records[m->num++];
    }
    *record = (zf_mutable_record){.id = id};
    return record;
}

static ze_result_t zf_check_id_request(const zf_cmdlist *list, const ze_mutable_command_id_exp_desc_t *desc) {
    if (list->mutable_commands == NULL)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "hCommandList is not a mutable command list");
    if (list->closed)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "hCommandList is closed: reset it to append again");
    if (desc->stype != ZE_STRUCTURE_TYPE_MUTABLE_COMMAND_ID_EXP_DESC)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                       "desc->stype is 0x%x, not ZE_STRUCTURE_TYPE_MUTABLE_COMMAND_ID_EXP_DESC", (unsigned)desc->stype);
    if (desc->flags & ZE_MUTABLE_COMMAND_EXP_FLAG_GRAPH_ARGUMENTS)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                       "desc->flags: graph arguments are not among the device's mutableCommandFlags");
    return ZE_RESULT_SUCCESS;
}

/* 0 stands for every change but the kernel's. */
static ze_mutable_command_exp_flags_t zf_requested(const ze_mutable_command_id_exp_desc_t *desc) {
    return desc->flags != 0 ? desc->flags : ZF_MUTABLE_FLAGS & ~ZE_MUTABLE_COMMAND_EXP_FLAG_KERNEL_INSTRUCTION;
}

ze_result_t zfi_zeCommandListGetNextCommandIdExp(ze_command_list_handle_t hCommandList,
                                                 const ze_mutable_command_id_exp_desc_t *desc, uint64_t *pCommandId) {
    zf_cmdlist *list = zf_cmdlist_from(hCommandList);
    ze_result_t result = zf_check_id_request(list, desc);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    zf_mutable_record *record = zf_record_next(list);
    if (record == NULL)
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory to name a mutable command");
    record->flags = zf_requested(desc);
    *pCommandId = record->id;
    return ZE_RESULT_SUCCESS;
}

#if ZF_L0_AT_LEAST(10)
static ze_result_t zf_check_kernels(const zf_cmdlist *list, uint32_t num, ze_kernel_handle_t *kernels) {
    for (uint32_t i = 0; i < num; i++) {
        if (!zf_handle_is_live(kernels[i], ZF_OBJ_ZE_KERNEL))
            return zf_fail(ZE_RESULT_ERROR_INVALID_NULL_HANDLE, "phKernels[%u] (%p) is not a live kernel", i,
                           (void *)kernels[i]);
        if (zf_kernel_device(zf_kernel_from(kernels[i])) != list->device)
            return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "phKernels[%u] was built for another device", i);
    }
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zeCommandListGetNextCommandIdWithKernelsExp(ze_command_list_handle_t hCommandList,
                                                            const ze_mutable_command_id_exp_desc_t *desc,
                                                            uint32_t numKernels, ze_kernel_handle_t *phKernels,
                                                            uint64_t *pCommandId) {
    zf_cmdlist *list = zf_cmdlist_from(hCommandList);
    ze_result_t result = zf_check_id_request(list, desc);
    if (result == ZE_RESULT_SUCCESS && numKernels > 0 && phKernels == NULL)
        result = zf_fail(ZE_RESULT_ERROR_INVALID_NULL_POINTER, "phKernels is NULL with numKernels %u", numKernels);
    if (result == ZE_RESULT_SUCCESS)
        result = zf_check_kernels(list, numKernels, phKernels);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    ze_kernel_handle_t *kernels = numKernels > 0 ? malloc(numKernels * sizeof *kernels) : NULL;
    zf_mutable_record *record = numKernels == 0 || kernels != NULL ? zf_record_next(list) : NULL;
    if (record == NULL) {
        free(kernels);
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory to name a mutable command");
    }
    if (numKernels > 0)
        memcpy(kernels, phKernels, numKernels * sizeof *kernels);
    record->flags = zf_requested(desc);
    record->kernels = kernels;
    record->num_kernels = numKernels;
    *pCommandId = record->id;
    return ZE_RESULT_SUCCESS;
}
#endif

/* ------------------------------------------------------------------------------------------------------------------
 * Changes */

/* The command `id` names and its record, when it may change as `flag` says. */
static ze_result_t zf_named_command(zf_cmdlist *list, uint64_t id, ze_mutable_command_exp_flags_t flag,
                                    zf_command **command, zf_mutable_record **record) {
    if (list->mutable_commands == NULL)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "hCommandList is not a mutable command list");
    if (atomic_load_explicit(&list->in_flight, memory_order_acquire) > 0)
        return zf_fail(ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE,
                       "a queue is executing the command list: synchronize before changing its commands");
    *record = zf_record_of(list->mutable_commands, id);
    if (*record == NULL || id == 0 || id > list->num_commands)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "commandId %llu names no command of the list",
                       (unsigned long long)id);
    if (!((*record)->flags & flag))
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                       "commandId %llu: its zeCommandListGetNextCommandIdExp flags 0x%x do not include 0x%x",
                       (unsigned long long)id, (unsigned)(*record)->flags, (unsigned)flag);
    *command = &list->commands[id - 1];
    return ZE_RESULT_SUCCESS;
}

/* The one launch of a launch command named by `id`, when it may change as `flag` says. */
static ze_result_t zf_named_launch(zf_cmdlist *list, uint64_t id, ze_mutable_command_exp_flags_t flag,
                                   zf_command **command, zf_kernel_launch **launch) {
    zf_mutable_record *record;
    ze_result_t result = zf_named_command(list, id, flag, command, &record);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    if (!zf_command_is_launch(*command) || (*command)->u.launch.num_kernels != 1)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "commandId %llu is not the launch of one kernel",
                       (unsigned long long)id);
    *launch = zf_launch_at(&(*command)->u.launch, 0);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t zf_update_argument(zf_cmdlist *list, const ze_mutable_kernel_argument_exp_desc_t *d) {
    zf_command *command;
    zf_kernel_launch *launch;
    ze_result_t result =
        zf_named_launch(list, d->commandId, ZE_MUTABLE_COMMAND_EXP_FLAG_KERNEL_ARGUMENTS, &command, &launch);
    return result != ZE_RESULT_SUCCESS ? result
                                       : zf_kernel_launch_set_argument(launch, d->argIndex, d->argSize, d->pArgValue);
}

static ze_result_t zf_update_group_count(zf_cmdlist *list, const ze_mutable_group_count_exp_desc_t *d) {
    zf_command *command;
    zf_kernel_launch *launch;
    ze_result_t result =
        zf_named_launch(list, d->commandId, ZE_MUTABLE_COMMAND_EXP_FLAG_GROUP_COUNT, &command, &launch);
    if (result == ZE_RESULT_SUCCESS && command->kind != ZF_CMD_LAUNCH)
        result = zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                         "commandId %llu: an indirect launch reads its group count "
                         "from memory",
                         (unsigned long long)d->commandId);
    if (result == ZE_RESULT_SUCCESS && d->pGroupCount == NULL)
        result =
            zf_fail(ZE_RESULT_ERROR_INVALID_NULL_POINTER, "ze_mutable_group_count_exp_desc_t::pGroupCount is NULL");
    if (result == ZE_RESULT_SUCCESS)
        result = zf_check_group_count(list, d->pGroupCount);
    if (result == ZE_RESULT_SUCCESS)
        command->u.launch.groups = *d->pGroupCount;
    return result;
}

static ze_result_t zf_update_group_size(zf_cmdlist *list, const ze_mutable_group_size_exp_desc_t *d) {
    zf_command *command;
    zf_kernel_launch *launch;
    ze_result_t result = zf_named_launch(list, d->commandId, ZE_MUTABLE_COMMAND_EXP_FLAG_GROUP_SIZE, &command, &launch);
    const uint32_t size[3] = {d->groupSizeX, d->groupSizeY, d->groupSizeZ};
    return result != ZE_RESULT_SUCCESS ? result : zf_kernel_launch_set_group_size(launch, size);
}

static ze_result_t zf_update_offset(zf_cmdlist *list, const ze_mutable_global_offset_exp_desc_t *d) {
    zf_command *command;
    zf_kernel_launch *launch;
    ze_result_t result =
        zf_named_launch(list, d->commandId, ZE_MUTABLE_COMMAND_EXP_FLAG_GLOBAL_OFFSET, &command, &launch);
    if (result == ZE_RESULT_SUCCESS)
        zf_kernel_launch_set_offset(launch, (const uint32_t[3]){d->offsetX, d->offsetY, d->offsetZ});
    return result;
}

static ze_result_t zf_update_one(zf_cmdlist *list, const ze_base_desc_t *d) {
    switch ((uint32_t)d->stype) {
    case ZE_STRUCTURE_TYPE_MUTABLE_KERNEL_ARGUMENT_EXP_DESC:
        return zf_update_argument(list, (const ze_mutable_kernel_argument_exp_desc_t *)d);
    case ZE_STRUCTURE_TYPE_MUTABLE_GROUP_COUNT_EXP_DESC:
        return zf_update_group_count(list, (const ze_mutable_group_count_exp_desc_t *)d);
    case ZE_STRUCTURE_TYPE_MUTABLE_GROUP_SIZE_EXP_DESC:
        return zf_update_group_size(list, (const ze_mutable_group_size_exp_desc_t *)d);
    case ZE_STRUCTURE_TYPE_MUTABLE_GLOBAL_OFFSET_EXP_DESC:
        return zf_update_offset(list, (const ze_mutable_global_offset_exp_desc_t *)d);
    default:
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "desc chain: stype 0x%x is no change a mutable command takes",
                       (unsigned)d->stype);
    }
}

/* The changes of the chain, in its order; the first refused one stops there (the earlier ones stay made). */
ze_result_t zfi_zeCommandListUpdateMutableCommandsExp(ze_command_list_handle_t hCommandList,
                                                      const ze_mutable_commands_exp_desc_t *desc) {
    zf_cmdlist *list = zf_cmdlist_from(hCommandList);
    if (desc->stype != ZE_STRUCTURE_TYPE_MUTABLE_COMMANDS_EXP_DESC)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                       "desc->stype is 0x%x, not ZE_STRUCTURE_TYPE_MUTABLE_COMMANDS_EXP_DESC", (unsigned)desc->stype);
    if (desc->flags != 0)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "desc->flags must be 0, not 0x%x", (unsigned)desc->flags);
    ze_result_t result = zf_chain_check(desc->pNext, "desc");
    zf_chain_foreach(d, desc->pNext) {
        if (result != ZE_RESULT_SUCCESS)
            break;
        result = zf_update_one(list, d);
    }
    return result;
}

ze_result_t zfi_zeCommandListUpdateMutableCommandSignalEventExp(ze_command_list_handle_t hCommandList,
                                                                uint64_t commandId, ze_event_handle_t hSignalEvent) {
    zf_cmdlist *list = zf_cmdlist_from(hCommandList);
    zf_command *command;
    zf_mutable_record *record;
    ze_result_t result = zf_named_command(list, commandId, ZE_MUTABLE_COMMAND_EXP_FLAG_SIGNAL_EVENT, &command, &record);
    if (result == ZE_RESULT_SUCCESS && hSignalEvent != NULL)
        result = zf_check_event(list, hSignalEvent, "hSignalEvent", 0);
    if (result == ZE_RESULT_SUCCESS)
        command->signal = zf_event_from(hSignalEvent);
    return result;
}

/* The command waits for the events given that are not NULL; their number must be the command's original one. */
static ze_result_t zf_replace_waits(zf_command *command, uint32_t num, ze_event_handle_t *events) {
    uint32_t kept = 0;
    for (uint32_t i = 0; events != NULL && i < num; i++)
        kept += events[i] != NULL;
    zf_event **waits = kept > 0 ? malloc(kept * sizeof *waits) : NULL;
    if (kept > 0 && waits == NULL)
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory for %u wait events", kept);
    kept = 0;
    for (uint32_t i = 0; events != NULL && i < num; i++)
        if (events[i] != NULL)
            waits[kept++] = zf_event_from(events[i]);
    free(command->waits);
    command->waits = waits;
    command->num_waits = kept;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zeCommandListUpdateMutableCommandWaitEventsExp(ze_command_list_handle_t hCommandList,
                                                               uint64_t commandId, uint32_t numWaitEvents,
                                                               ze_event_handle_t *phWaitEvents) {
    zf_cmdlist *list = zf_cmdlist_from(hCommandList);
    zf_command *command;
    zf_mutable_record *record;
    ze_result_t result = zf_named_command(list, commandId, ZE_MUTABLE_COMMAND_EXP_FLAG_WAIT_EVENTS, &command, &record);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    if (!record->waits_known) {
        record->wait_slots = command->num_waits;
        record->waits_known = true;
    }
    if (numWaitEvents != record->wait_slots)
        return zf_fail(ZE_RESULT_ERROR_INVALID_SIZE, "numWaitEvents %u: the command was recorded with %u wait events",
                       numWaitEvents, record->wait_slots);
    for (uint32_t i = 0; phWaitEvents != NULL && i < numWaitEvents; i++) {
        result = phWaitEvents[i] != NULL ? zf_check_event(list, phWaitEvents[i], "phWaitEvents", i) : ZE_RESULT_SUCCESS;
        if (result != ZE_RESULT_SUCCESS)
            return result;
    }
    return zf_replace_waits(command, numWaitEvents, phWaitEvents);
}

#if ZF_L0_AT_LEAST(10)
static bool zf_record_offers(const zf_mutable_record *record, ze_kernel_handle_t kernel) {
    for (uint32_t i = 0; i < record->num_kernels; i++)
        if (record->kernels[i] == kernel)
            return true;
    return false;
}

/* The command launches `kernel` from now on, with its current group size and offset and with the arguments it has
 * set (zeros for the others), which updates of the same list then change. */
static ze_result_t zf_switch_kernel(zf_cmdlist *list, uint64_t id, ze_kernel_handle_t kernel) {
    zf_command *command;
    zf_kernel_launch *old;
    ze_result_t result = zf_named_launch(list, id, ZE_MUTABLE_COMMAND_EXP_FLAG_KERNEL_INSTRUCTION, &command, &old);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    if (!zf_handle_is_live(kernel, ZF_OBJ_ZE_KERNEL) ||
        !zf_record_offers(zf_record_of(list->mutable_commands, id), kernel))
        return zf_fail(
            ZE_RESULT_ERROR_INVALID_KERNEL_HANDLE,
            "commandId %llu: the kernel is not among those zeCommandListGetNextCommandIdWithKernelsExp named",
            (unsigned long long)id);
    zf_kernel_launch *launch = NULL;
    result = zf_kernel_capture_for_mutation(zf_kernel_from(kernel), list->launch_pool, &launch);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    zf_kernel_launch_set_context(launch, list->context);
    zf_kernel_launch_free(old);
    command->u.launch.one = launch;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zeCommandListUpdateMutableCommandKernelsExp(ze_command_list_handle_t hCommandList, uint32_t numKernels,
                                                            uint64_t *pCommandId, ze_kernel_handle_t *phKernels) {
    zf_cmdlist *list = zf_cmdlist_from(hCommandList);
    ze_result_t result = ZE_RESULT_SUCCESS;
    for (uint32_t i = 0; i < numKernels && result == ZE_RESULT_SUCCESS; i++)
        result = zf_switch_kernel(list, pCommandId[i], phKernels[i]);
    return result;
}
#endif

#else
ze_result_t zf_mutable_attach(zf_cmdlist *list, const void *chain) {
    (void)list;
    (void)chain;
    return ZE_RESULT_SUCCESS;
}
#endif
