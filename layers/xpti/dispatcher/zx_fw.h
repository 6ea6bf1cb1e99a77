/* Internals of our XPTI dispatcher (libxptifw.so), shared by its files:
 *
 *   zx_fw_core.c       environment, subscriber loading, stream initialisation, the enabled state, ids, stash,
 *                      defaults, user-defined types
 *   zx_fw_callbacks.c  streams, callbacks, xptiNotifySubscribers and xptiCheckTraceEnabled (lock-free)
 *   zx_fw_strings.c    the string table and the object table of metadata values
 *   zx_fw_events.c     events (tracepoints), payloads and metadata
 *   zx_fw_tracepoints.c  the tracepoint objects' interfaces, the metadata map, tracepoint functions (zx_fw_tp.h)
 *
 * Locks, in the order they may nest: zx_fw_init_lock (recursive: stream initialisation, which calls subscribers) →
 * the callbacks lock → the events lock → the strings lock. Callbacks are never called under a lock other than the
 * init lock (xptiTraceInit/xptiTraceFinish run under it, so that initialisation and finalisation never interleave). */
#ifndef ZX_FW_H
#define ZX_FW_H

#include "zx_xpti.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#define ZX_FW_EXPORT __attribute__((visibility("default")))

/* Tracing is on: enabled by XPTI_TRACE_ENABLE and a subscriber loaded, or forced. Read on every notification. */
extern atomic_bool zx_fw_trace_on;

/* Loads the subscribers once (XPTI_TRACE_ENABLE, XPTI_SUBSCRIBERS). Re-entry from the loading thread (a subscriber's
 * constructor calling the framework) returns at once. */
void zx_fw_ensure_loaded(void);

/* A diagnostic on stderr, prefixed "xptifw: ". */
void zx_fw_diag(const char *format, ...) __attribute__((format(printf, 1, 2)));

/* Interns a string: the table's copy stays valid until the library is unloaded. NULL for NULL or out of memory. */
const char *zx_fw_intern(const char *text, zx_xpti_string_id *id);

/* The name of a registered stream, or NULL. */
const char *zx_fw_stream_name(uint8_t id);

/* Calls fn(name, arg) for every registered stream, in id order, without holding a lock. */
void zx_fw_each_stream(void (*fn)(const char *name, void *arg), void *arg);

/* Disables every callback of a stream (xptiFinalize, xptiUnregisterStream): SUCCESS when callbacks were ever
 * registered on it, NOTFOUND otherwise. Takes the callbacks lock. */
zx_xpti_result zx_fw_stream_unregister(const char *stream_name);

/* xptiReset's part in the callbacks: all forgotten (registering one again is a first registration). */
void zx_fw_callbacks_reset(void);

/* xptiReset's part in the events: forgets every event and payload (their memory stays, to be made again). */
void zx_fw_events_reset(void);

/* xptiReset's part in the strings: ids start again at 1 (the copies stay valid). */
void zx_fw_strings_reset(void);

#endif
