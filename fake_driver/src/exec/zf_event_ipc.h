/* Event pools shared between processes (event_ipc.c): what event.c calls. Each call returns at once when no pool is
 * shared, so ordinary events pay one relaxed load. */
#ifndef ZF_EVENT_IPC_H
#define ZF_EVENT_IPC_H

#include "exec/zf_exec.h"

/* zeEventPoolDestroy: refuses a pool opened from an IPC handle (it is closed with zeEventPoolCloseIpcHandle) and
 * stops sharing an exported one. */
ze_result_t zf_event_ipc_pool_destroy(zf_event_pool *pool);

/* zeEventCreate: an event of a shared pool starts in the state the other processes gave its slot. */
void zf_event_ipc_event_created(zf_event *event);

/* zeEventDestroy: the event stops being mirrored. */
void zf_event_ipc_event_destroyed(zf_event *event);

/* zeEventHostSignal, zeEventHostReset, with the execution lock held since the change: the new state is published to
 * the other processes at once, under a generation issued after every slot state this process may still apply, so no
 * older state undoes it. (Commands change events on engine workers; those changes are published by the pool's agent,
 * event_ipc.c.) */
void zf_event_ipc_host_changed(zf_event *event);

#endif
