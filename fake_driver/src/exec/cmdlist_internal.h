/* What the files of command lists share: cmdlist.c (creation, appends), cmdlist_exp.c (clones, regular lists appended
 * to immediate ones) and cmdlist_mutable.c (mutable command lists). */
#ifndef ZF_CMDLIST_INTERNAL_H
#define ZF_CMDLIST_INTERNAL_H

#include "exec/zf_exec.h"

/* A new list of the device's queue group `ordinal`, not registered yet; NULL when out of host memory. */
zf_cmdlist *zf_cmdlist_new(zf_context *context, zf_device *device, uint32_t ordinal);
/* Frees a list that holds no command (never published, or destroyed). */
void zf_cmdlist_discard(zf_cmdlist *list);
/* Registers the list and hands out its handle. */
ze_result_t zf_cmdlist_publish(zf_cmdlist *list, ze_command_list_handle_t *out);
/* An event argument the entry point did not check (an array's item `name`[i]) must be a live event of the list's
 * context. */
ze_result_t zf_check_event(const zf_cmdlist *list, ze_event_handle_t handle, const char *name, uint32_t i);

/* A group count the device can launch. */
ze_result_t zf_check_group_count(const zf_cmdlist *list, const ze_group_count_t *groups);

/* Mutable command lists (cmdlist_mutable.c). A list created with ze_mutable_command_list_exp_desc_t in its
 * descriptor's chain gets its records; the others have none and these do nothing. */
ze_result_t zf_mutable_attach(zf_cmdlist *list, const void *chain);
void zf_mutable_clear(zf_mutable *records);
void zf_mutable_destroy(zf_mutable *records);

#endif
