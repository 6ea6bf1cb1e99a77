/* The conformance suite's subscriber (libzx_test_subscriber.so): it listens to the emitter's streams, checks each
 * notification as it comes (pairing, ids, payloads) and keeps what a test compares with its workload. The test
 * process reaches it with dlopen(<path>, RTLD_NOLOAD) and dlsym.
 *
 * Environment: ZX_TS_STREAMS lists the streams it subscribes to (call,debug,mem,graph,itt; default all, "none" for
 * nothing); ZX_TS_OLD_END=1 makes it register function_with_args_end under its old value 31 instead of 29. */
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

typedef bool (*zx_ts_last_call_fn)(uint32_t function_id, zx_ts_call_record *out);
typedef void (*zx_ts_print_fn)(FILE *out);

/* Prints what it saw as key=value lines (docs in the source). */
#define ZX_TS_PRINT "zx_ts_print"
/* The last call of a function (by id); false when it had none. */
#define ZX_TS_LAST_CALL "zx_ts_last_call"

#endif
