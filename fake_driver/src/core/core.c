/* Services every area uses: the log (ZEFAKE_LOG), argument and handle rejections that explain themselves at debug
 * level, and the per-call scope that names the API function being called. */
#include "core/zf_core.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

_Thread_local zf_call_scope *zf_current_scope __attribute__((tls_model("initial-exec")));
atomic_bool zf_driver_ready;
atomic_bool zf_driver_built;

/* ------------------------------------------------------------------------------------------------------------------
 * Profiles */

static atomic_bool zf_scenario_strict;          /* the scenario's `strict` key, set by zeInit */
static atomic_uint_fast64_t zf_tolerated_count; /* since zeInit, or the last reset */

/* ZEFAKE_STRICT overrides the scenario's `strict` key (docs/tolerances.md): "1" is the strict profile, any other
 * value the default one; unset, the key decides (false before zeInit, when no call reaches a tolerance anyway). */
bool zf_strict(void) {
    static atomic_int env_cache = -1; /* -1 unread, 0 "not 1", 1 "1", 2 unset */
    int env = atomic_load_explicit(&env_cache, memory_order_relaxed);
    if (env < 0) {
        const char *value = getenv("ZEFAKE_STRICT");
        env = value == NULL || value[0] == '\0' ? 2 : strcmp(value, "1") == 0;
        atomic_store_explicit(&env_cache, env, memory_order_relaxed);
    }
    if (env != 2)
        return env == 1;
    return atomic_load_explicit(&zf_scenario_strict, memory_order_relaxed);
}

void zf_profile_init(bool scenario_strict) {
    atomic_store_explicit(&zf_scenario_strict, scenario_strict, memory_order_relaxed);
    atomic_store_explicit(&zf_tolerated_count, 0, memory_order_relaxed);
}

/* One warning per rule and API function: the caller's address is not known in the implementations (the generated
 * entry point is the one the application called), so the function stands for the call site. The rules are string
 * literals, compared by address. */
#define ZF_MAX_TOLERATED_SITES 128

typedef struct zf_tolerated_site {
    const char *rule;
    zf_api_id api;
} zf_tolerated_site;

static bool zf_first_at_site(const char *rule, zf_api_id api) {
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    static zf_tolerated_site warned[ZF_MAX_TOLERATED_SITES];
    static unsigned num_warned;
    pthread_mutex_lock(&lock);
    bool first = true;
    for (unsigned i = 0; i < num_warned && first; i++)
        first = warned[i].rule != rule || warned[i].api != api;
    if (first && num_warned < ZF_MAX_TOLERATED_SITES)
        warned[num_warned++] = (zf_tolerated_site){rule, api};
    pthread_mutex_unlock(&lock);
    return first;
}

/* Counts a tolerance and logs it at `level`, from `where` (an API function's name). `strict_note` says what
 * ZEFAKE_STRICT=1 answers instead, for the reader of the warning. */
static void zf_tolerate_log(zf_log_level level, const char *where, const char *rule, const char *detail,
                            const char *instead, const char *strict_note) {
    atomic_fetch_add_explicit(&zf_tolerated_count, 1, memory_order_relaxed);
    zf_log(level, "%s: %s%sthe application breaks the rule '%s'; %s as Intel's driver does (%s; docs/tolerances.md)",
           where, detail != NULL ? detail : "", detail != NULL ? ": " : "", rule, instead, strict_note);
}

static void zf_tolerate_at(zf_api_id api, const char *rule, const char *detail, const char *instead,
                           const char *strict_note) {
    zf_log_level level = zf_first_at_site(rule, api) ? ZF_LOG_WARN : ZF_LOG_DEBUG;
    zf_tolerate_log(level, api < ZF_API_COUNT ? zf_api_table[api].name : "zefake", rule, detail, instead, strict_note);
}

void zf_tolerate_on_device(bool first, const char *rule, const char *detail, const char *instead,
                           const char *strict_note) {
    zf_tolerate_log(first ? ZF_LOG_WARN : ZF_LOG_DEBUG, "device", rule, detail, instead, strict_note);
}

static void zf_tolerate_noted(const char *rule, const char *detail, const char *instead, const char *strict_note) {
    zf_tolerate_at(zf_current_api(), rule, detail, instead, strict_note);
}

bool zf_refuse_rule(zf_api_id api, const char *rule, const char *instead) {
    if (zf_strict())
        return true;
    zf_tolerate_at(api, rule, NULL, instead, "ZEFAKE_STRICT=1: the specification's result");
    return false;
}

void zf_tolerate_detail(const char *rule, const char *detail, const char *instead) {
    /* In the strict profile only the tolerances whose function's @returns allow no refusal are reached. */
    zf_tolerate_noted(rule, detail, instead,
                      zf_strict() ? "the header's @returns allow no other result"
                                  : "ZEFAKE_STRICT=1: the specification's result");
}

void zf_tolerate_unrefusable(const char *rule, const char *detail, const char *instead) {
    zf_tolerate_noted(rule, detail, instead,
                      "the same with ZEFAKE_STRICT=1: the header's @returns allow no other result");
}

void zf_tolerate(const char *rule, const char *instead) {
    zf_tolerate_detail(rule, NULL, instead);
}

uint64_t zf_tolerance_count(bool reset) {
    if (reset)
        return (uint64_t)atomic_exchange_explicit(&zf_tolerated_count, 0, memory_order_relaxed);
    return (uint64_t)atomic_load_explicit(&zf_tolerated_count, memory_order_relaxed);
}

static const char *const zf_level_names[] = {"none", "error", "warn", "info", "debug"};

static zf_log_level zf_read_log_level(void) {
    const char *value = getenv("ZEFAKE_LOG");
    if (value == NULL || value[0] == '\0')
        return ZF_LOG_WARN;
    for (int level = ZF_LOG_NONE; level <= ZF_LOG_DEBUG; level++) {
        if (strcasecmp(value, zf_level_names[level]) == 0)
            return (zf_log_level)level;
    }
    fprintf(stderr, "zefake: warn: ZEFAKE_LOG=%s is not one of none, error, warn, info, debug; using warn\n", value);
    return ZF_LOG_WARN;
}

static atomic_int zf_log_level_cache = -1;

bool zf_log_enabled(zf_log_level level) {
    int current = atomic_load_explicit(&zf_log_level_cache, memory_order_relaxed);
    if (current < 0) {
        current = (int)zf_read_log_level();
        atomic_store_explicit(&zf_log_level_cache, current, memory_order_relaxed);
    }
    return (int)level <= current;
}

void zf_log(zf_log_level level, const char *format, ...) {
    if (!zf_log_enabled(level))
        return;
    /* One fprintf per line keeps lines from different threads whole. */
    char line[1024];
    va_list args;
    va_start(args, format);
    vsnprintf(line, sizeof line, format, args);
    va_end(args);
    fprintf(stderr, "zefake: %s: %s\n", zf_level_names[level], line);
}

static const char *zf_result_text(ze_result_t result) {
    const char *name = zf_result_name(result);
    return name != NULL ? name : "ZE_RESULT_<unknown>";
}

const char *zf_current_api_name(void) {
    return zf_current_scope != NULL ? zf_api_table[zf_current_scope->api].name : "zefake";
}

zf_api_id zf_current_api(void) {
    return zf_current_scope != NULL ? zf_current_scope->api : ZF_API_COUNT;
}

/* zeDriverGetLastErrorDescription: per thread, the explanation of the last call that returned an error, as the
 * debug log gives it. The reason a zf_fail gives waits in `pending` until its call returns an error; a call that
 * recovers (a tolerance) leaves the last description as it was. The texts live in a thread's own heap block (thread
 * specific data, freed when the thread ends): the library's static TLS must stay small, since a library loaded with
 * dlopen shares glibc's little reserve of it. */
typedef struct zf_error_texts {
    char pending[768];
    char last[1024];
} zf_error_texts;

static pthread_key_t zf_error_key;
static pthread_once_t zf_error_once = PTHREAD_ONCE_INIT;

static void zf_error_key_create(void) {
    pthread_key_create(&zf_error_key, free);
}

/* This thread's texts, made on its first error; a static block when there is no memory for one (texts may then mix
 * between threads, results never do). */
static zf_error_texts *zf_error_texts_get(void) {
    static zf_error_texts fallback;
    pthread_once(&zf_error_once, zf_error_key_create);
    zf_error_texts *texts = pthread_getspecific(zf_error_key);
    if (texts == NULL) {
        texts = calloc(1, sizeof *texts);
        if (texts == NULL || pthread_setspecific(zf_error_key, texts) != 0) {
            free(texts);
            return &fallback;
        }
    }
    return texts;
}

const char *zf_last_error(void) {
    pthread_once(&zf_error_once, zf_error_key_create);
    const zf_error_texts *texts = pthread_getspecific(zf_error_key);
    return texts != NULL ? texts->last : "";
}

/* Sets this thread's last error description and logs it at debug level. */
static ze_result_t zf_explain(ze_result_t result, const char *format, ...) __attribute__((format(printf, 2, 3)));
static ze_result_t zf_explain(ze_result_t result, const char *format, ...) {
    zf_error_texts *texts = zf_error_texts_get();
    va_list args;
    va_start(args, format);
    vsnprintf(texts->last, sizeof texts->last, format, args);
    va_end(args);
    zf_log(ZF_LOG_DEBUG, "%s", texts->last);
    return result;
}

ze_result_t zf_reject_uninitialized(zf_api_id api) {
    const char *name = zf_api_table[api].name;
    return zf_explain(ZE_RESULT_ERROR_UNINITIALIZED, "%s: ZE_RESULT_ERROR_UNINITIALIZED: %s", name,
                      strncmp(name, "zes", 3) == 0 ? "neither zesInit nor zeInit has succeeded"
                                                   : "zeInit has not succeeded");
}

ze_result_t zf_reject_argument(zf_api_id api, ze_result_t result, const char *rule) {
    return zf_explain(result, "%s: %s: the arguments break the rule `%s`", zf_api_table[api].name,
                      zf_result_text(result), rule);
}

ze_result_t zf_reject_handle(zf_api_id api, const char *argument, const void *handle) {
    return zf_explain(ZE_RESULT_ERROR_INVALID_NULL_HANDLE,
                      "%s: ZE_RESULT_ERROR_INVALID_NULL_HANDLE: %s (%p) is not a live handle of the expected type",
                      zf_api_table[api].name, argument, handle);
}

/* The specification leaves the behaviour undefined; the driver would corrupt the list's memory. Intel's driver does
 * not detect it: no tolerance can be like it, so both profiles refuse. */
ze_result_t zf_reject_concurrent(zf_api_id api, const char *argument) {
    static atomic_bool warned;
    zf_log_level level = atomic_exchange(&warned, true) ? ZF_LOG_DEBUG : ZF_LOG_WARN;
    if (zf_log_enabled(level))
        zf_log(level,
               "%s: ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE: another thread is calling with the same %s: the application "
               "breaks the rule 'must not call this function from simultaneous threads with the same command list "
               "handle'; this call did nothing",
               zf_api_table[api].name, argument);
    return zf_explain(ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE,
                      "%s: ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE: another thread is calling with the same %s",
                      zf_api_table[api].name, argument);
}

ze_result_t zf_unsupported(zf_api_id api) {
    return zf_explain(ZE_RESULT_ERROR_UNSUPPORTED_FEATURE,
                      "%s: ZE_RESULT_ERROR_UNSUPPORTED_FEATURE: not implemented by zefake (docs/api-support.md)",
                      zf_api_table[api].name);
}

ze_result_t zf_fail(ze_result_t result, const char *format, ...) {
    if (zf_current_scope != NULL)
        zf_current_scope->explained = true;
    zf_error_texts *texts = zf_error_texts_get();
    va_list args;
    va_start(args, format);
    vsnprintf(texts->pending, sizeof texts->pending, format, args);
    va_end(args);
    zf_log(ZF_LOG_DEBUG, "%s: %s: %s", zf_current_api_name(), zf_result_text(result), texts->pending);
    return result;
}

ze_result_t zf_call_error(const zf_call_scope *scope, ze_result_t result) {
    const char *name = zf_api_table[scope->api].name;
    if (!scope->explained)
        return zf_explain(result, "%s: %s", name, zf_result_text(result));
    zf_error_texts *texts = zf_error_texts_get(); /* zf_fail logged it already */
    snprintf(texts->last, sizeof texts->last, "%s: %s: %s", name, zf_result_text(result), texts->pending);
    return result;
}
