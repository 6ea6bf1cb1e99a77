/* The functions of the command kinds' table (zf_command_kinds, exec/command.c) that live beside what they do:
 * durations in cost.c, effects and used memory in perform.c. Internal to exec/. */
#ifndef ZF_EXEC_COMMAND_KINDS_H
#define ZF_EXEC_COMMAND_KINDS_H

#include "exec/zf_exec.h"

uint64_t zf_cost_copy(const zf_command *command, const zf_queue *queue);
uint64_t zf_cost_copy_region(const zf_command *command, const zf_queue *queue);
uint64_t zf_cost_fill(const zf_command *command, const zf_queue *queue);

void zf_use_copy(const zf_queue *queue, const zf_command *command, size_t ordinal, zf_uses *uses);
void zf_use_copy_region(const zf_queue *queue, const zf_command *command, size_t ordinal, zf_uses *uses);
void zf_use_fill(const zf_queue *queue, const zf_command *command, size_t ordinal, zf_uses *uses);
void zf_use_timestamp(const zf_queue *queue, const zf_command *command, size_t ordinal, zf_uses *uses);
void zf_use_query(const zf_queue *queue, const zf_command *command, size_t ordinal, zf_uses *uses);
void zf_use_launch(const zf_queue *queue, const zf_command *command, size_t ordinal, zf_uses *uses);

ze_result_t zf_perform_copy(zf_device *device, zf_queue *queue, zf_command *command, uint64_t start_ns,
                            uint64_t *cost_ns, zf_work_record *record);
ze_result_t zf_perform_copy_region(zf_device *device, zf_queue *queue, zf_command *command, uint64_t start_ns,
                                   uint64_t *cost_ns, zf_work_record *record);
ze_result_t zf_perform_fill(zf_device *device, zf_queue *queue, zf_command *command, uint64_t start_ns,
                            uint64_t *cost_ns, zf_work_record *record);
ze_result_t zf_perform_timestamp(zf_device *device, zf_queue *queue, zf_command *command, uint64_t start_ns,
                                 uint64_t *cost_ns, zf_work_record *record);
ze_result_t zf_perform_query(zf_device *device, zf_queue *queue, zf_command *command, uint64_t start_ns,
                             uint64_t *cost_ns, zf_work_record *record);
ze_result_t zf_perform_launches(zf_device *device, zf_queue *queue, zf_command *command, uint64_t start_ns,
                                uint64_t *cost_ns, zf_work_record *record);
ze_result_t zf_perform_custom(zf_device *device, zf_queue *queue, zf_command *command, uint64_t start_ns,
                              uint64_t *cost_ns, zf_work_record *record);

#endif
