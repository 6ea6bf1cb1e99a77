/* Services every entry point and implementation uses: initialisation state, diagnostics, argument rejection and
 * the per-call scope that makes sure every error the driver returns is explained at debug level. */
#ifndef ZF_CORE_H
#define ZF_CORE_H

#include "zf_generated.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* The longest pNext chain the driver walks (core/zf_chain.h): a longer one is taken for a cycle (refused where a
 * descriptor is read or an output chain acts, the walk stops where properties are only filled). */
#define ZF_MAX_CHAIN 32u

typedef enum zf_log_level {
    ZF_LOG_NONE = 0,
    ZF_LOG_ERROR = 1,
    ZF_LOG_WARN = 2,
    ZF_LOG_INFO = 3,
    ZF_LOG_DEBUG = 4,
} zf_log_level;

/* Set (once, release) when zeInit has built the driver from a valid scenario; every entry point reads it first, so
 * the read is inline. Only zeInit (driver/driver.c) stores it. */
extern atomic_bool zf_driver_ready;

/* True once zeInit has built the driver from a valid scenario. */
static inline bool zf_driver_is_initialized(void) {
    return atomic_load_explicit(&zf_driver_ready, memory_order_acquire);
}

/* Set (once, release) when the driver's devices are built from a valid scenario, by zeInit or by zesInit, which
 * initialises sysman alone (zes_api.h): sysman entry points read it instead of zf_driver_ready. Only driver/driver.c
 * stores it. */
extern atomic_bool zf_driver_built;

static inline bool zf_driver_is_built(void) {
    return atomic_load_explicit(&zf_driver_built, memory_order_acquire);
}

/* Diagnostics on stderr, prefixed "zefake: <level>: ", filtered by ZEFAKE_LOG (default: warn). */
bool zf_log_enabled(zf_log_level level);
void zf_log(zf_log_level level, const char *format, ...) __attribute__((format(printf, 2, 3)));

/* Generated entry points call these when a check fails; each logs "<function>: <result>: <reason>" at debug level
 * and returns the result. */
ze_result_t zf_reject_uninitialized(zf_api_id api);
ze_result_t zf_reject_argument(zf_api_id api, ze_result_t result, const char *rule);
ze_result_t zf_reject_handle(zf_api_id api, const char *argument, const void *handle);
ze_result_t zf_unsupported(zf_api_id api);
/* A call the headers forbid while another thread calls with the same handle (`argument`), refused with
 * ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE; warned the first time, at debug level after. */
ze_result_t zf_reject_concurrent(zf_api_id api, const char *argument);

/* The strict profile (ZEFAKE_STRICT=1 or the scenario's `strict: true`, docs/tolerances.md): the specification's
 * exact codes where the default profile does what Intel's production driver does instead. */
bool zf_strict(void);
/* zeInit: the scenario's `strict` key, and the count of tolerated violations starts at 0. */
void zf_profile_init(bool scenario_strict);
/* The default profile tolerating a broken rule: counted, and logged at warn level once per rule and API function
 * (later ones at debug level), naming the function being called, the rule of the header (`rule` must be a string
 * literal) and what the driver did instead. */
void zf_tolerate(const char *rule, const char *instead);
/* A generated argument check of fake_driver/gen/tolerated_rules.txt that the arguments break: true (refuse) in the
 * strict profile; in the default one the call goes on, tolerated as zf_tolerate says, and this answers false. */
bool zf_refuse_rule(zf_api_id api, const char *rule, const char *instead);
/* The same with what was wrong (`detail`, e.g. the value seen) between the function's name and the rule. */
void zf_tolerate_detail(const char *rule, const char *detail, const char *instead);
/* A tolerance of what the device executes (no API function is being called), named "device" in the log: counted,
 * and logged at warn level when `first` (the caller decides what is a first time), else at debug level; strict_note
 * says what ZEFAKE_STRICT=1 does instead. */
void zf_tolerate_on_device(bool first, const char *rule, const char *detail, const char *instead,
                           const char *strict_note);
/* A tolerance that both profiles apply, because the function's @returns list no code to refuse with. */
void zf_tolerate_unrefusable(const char *rule, const char *detail, const char *instead);
/* The number of tolerated violations since zeInit or the last reset (zefakeGetToleranceCount);
 * `reset` sets it back to 0 and returns the count before. */
uint64_t zf_tolerance_count(bool reset);

/* Hand-written implementations return through zf_fail, which names the function being called and the reason. */
ze_result_t zf_fail(ze_result_t result, const char *format, ...) __attribute__((format(printf, 2, 3)));

/* The scope of one call into an implementation. Calls nest (a callback may call the API), so the previous scope is
 * kept and restored. */
typedef struct zf_call_scope {
    zf_api_id api;
    bool explained;
    struct zf_call_scope *outer;
} zf_call_scope;

/* The innermost scope of this thread: the initial-exec model reads it at a fixed offset from the thread pointer
 * instead of calling __tls_get_addr (one pointer of the static TLS space glibc reserves for loaded libraries). Every
 * entry point enters and leaves a scope, so both are inline. */
extern _Thread_local zf_call_scope *zf_current_scope __attribute__((tls_model("initial-exec")));

/* An error result leaving a call: this thread's last error description (zf_last_error) becomes the reason zf_fail
 * gave, or names the function and the result when none did (then also logged); returns the result. */
ze_result_t zf_call_error(const zf_call_scope *scope, ze_result_t result);

/* This thread's description of the last error a call returned: "" before any (zeDriverGetLastErrorDescription). */
const char *zf_last_error(void);

static inline void zf_call_enter(zf_call_scope *scope, zf_api_id api) {
    scope->api = api;
    scope->explained = false;
    scope->outer = zf_current_scope;
    zf_current_scope = scope;
}

static inline bool zf_result_is_error(ze_result_t result) {
    return result != ZE_RESULT_SUCCESS && result != ZE_RESULT_NOT_READY && result != ZE_RESULT_WARNING_DROPPED_DATA &&
           result != ZE_RESULT_WARNING_ACTION_REQUIRED;
}

static inline ze_result_t zf_call_leave(zf_call_scope *scope, ze_result_t result) {
    zf_current_scope = scope->outer;
    if (__builtin_expect(zf_result_is_error(result), 0))
        return zf_call_error(scope, result);
    return result;
}

/* The API function currently being called on this thread, for messages; "zefake" outside any call. */
const char *zf_current_api_name(void);

/* The same as an id; ZF_API_COUNT outside any call. */
zf_api_id zf_current_api(void);

/* The count-style query of the specification: when `items` is NULL or `*count` is 0, the caller asks for the number
 * of items, which is written to *count (the result is 0: fill nothing). Otherwise up to *count items are wanted;
 * *count is set to the number that will be written, which is returned. */
static inline uint32_t zf_count_query(uint32_t *count, uint32_t available, const void *items) {
    if (items == NULL || *count == 0) {
        *count = available;
        return 0;
    }
    if (*count > available)
        *count = available;
    return *count;
}

#endif
