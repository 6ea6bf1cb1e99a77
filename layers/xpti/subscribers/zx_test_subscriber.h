/* The conformance suite's subscriber (libzx_test_subscriber.so): it listens to the emitter's streams, checks each
 * notification as it comes (pairing, ids, payloads) and keeps what a test compares with its workload. The test
 * process reaches it with dlopen(<path>, RTLD_NOLOAD) and dlsym.
 *
 * Environment: ZX_TS_STREAMS lists the streams it subscribes to (call,debug,mem,graph,itt; default all, "none" for
 * nothing); ZX_TS_OLD_END=1 makes it register function_with_args_end under its old value 31 instead of 29;
 * ZX_TS_EVENT_FLAGS=1 says the framework's events have the current generation's flags word, which it then checks. */
#ifndef ZX_TEST_SUBSCRIBER_H
#define ZX_TEST_SUBSCRIBER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define ZX_TS_MAX_ARGS 16

/* The last debug-stream call of a function, as its function_with_args_end showed it. */
typedef struct zx_ts_call_record {
    uint64_t instance;
    uint32_t calls; /* how many ends this function had */
    uint32_t num_args;
    uint64_t args[ZX_TS_MAX_ARGS]; /* decoded argument values (zx_function_args) */
    int32_t result;                /* *ret_data */
} zx_ts_call_record;

#define ZX_TS_BEGIN_NAME   80
#define ZX_TS_PROBE_VALUES 6

/* One function_begin (call stream) or function_with_args_begin (debug stream), in the order the subscriber received
 * them (one log for both streams and every thread). */
typedef struct zx_ts_begin_record {
    uint16_t type;               /* 24: function_begin, 28: function_with_args_begin */
    uint32_t function_id;        /* debug: function_with_args_t.function_id; call: 0 (the stream carries no id) */
    char name[ZX_TS_BEGIN_NAME]; /* call: user_data; debug: function_name (copied at the notification) */
    uint64_t instance;           /* the correlation id */
    uint64_t thread;             /* gettid() of the notifying thread */
    const void *args_data;       /* debug: the params pointer (valid during the notification only); call: NULL */
    uint32_t probed;             /* debug: how many values the probe filled */
    uint64_t values[ZX_TS_PROBE_VALUES];
} zx_ts_begin_record;

/* Called (under the subscriber's lock, on the notifying thread) at every function_with_args_begin while set: reads
 * the call's arguments through args_data, which is valid only then, into at most `max` values; returns how many. */
typedef uint32_t (*zx_ts_args_probe_fn)(const char *function_name, const void *args_data, uint64_t *values,
                                        uint32_t max);

typedef bool (*zx_ts_last_call_fn)(uint32_t function_id, zx_ts_call_record *out);
typedef void (*zx_ts_print_fn)(FILE *out);
typedef bool (*zx_ts_begin_at_fn)(uint32_t index, zx_ts_begin_record *out);
typedef void (*zx_ts_set_args_probe_fn)(zx_ts_args_probe_fn probe);

/* Prints what it saw as key=value lines (docs in the source). */
#define ZX_TS_PRINT "zx_ts_print"
/* The last call of a function (by id); false when it had none. */
#define ZX_TS_LAST_CALL "zx_ts_last_call"
/* The index-th begin of the log (from 0); false past its end. The log keeps the first ZX_TS_MAX_BEGINS. */
#define ZX_TS_BEGIN_AT   "zx_ts_begin_at"
#define ZX_TS_MAX_BEGINS 1024
/* Sets (or, with NULL, removes) the argument probe. */
#define ZX_TS_SET_ARGS_PROBE "zx_ts_set_args_probe"

#endif
