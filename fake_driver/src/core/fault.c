/* Fault injection of API calls (zf_fault.h): the armed rules, counted and fired by the generated entry points.
 *
 * The armed rules form one list that calls walk without a lock: a rule is complete before it is linked, and links
 * only grow at the tail. Clearing detaches the list and marks its rules inactive; the rules stay allocated (on a
 * second list only the lock's holder touches) until the library unloads, so a call still walking a detached list
 * reads valid, inactive rules. */
#include "core/zf_fault.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define ZF_FAULT_ORIGIN_MAX 192
/* Injected results each rule logs at warn level; later ones go to debug level, so that `count: all` on a function
 * called in a loop does not flood stderr. */
#define ZF_FAULT_WARNINGS 10

typedef struct zf_fault_rule {
    zf_api_id api;
    ze_result_t result;
    uint64_t after;
    uint64_t count; /* ZF_FAULT_COUNT_ALL: every call from `after` on */
    atomic_uint_fast64_t calls;
    atomic_uint_fast64_t fired;
    atomic_bool active;
    char origin[ZF_FAULT_ORIGIN_MAX];
    _Atomic(struct zf_fault_rule *) next; /* the armed list */
    struct zf_fault_rule *kept;           /* every rule ever armed, freed at unload */
} zf_fault_rule;

atomic_uint zf_fault_armed_rules;
static _Atomic(zf_fault_rule *) zf_fault_head;
static zf_fault_rule *zf_fault_all;
static pthread_mutex_t zf_fault_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_uint_fast64_t zf_fault_fired_count;

/* Appends under the lock: the last rule's link is published with release, after the rule is complete. */
static void zf_fault_append(zf_fault_rule *rule) {
    zf_fault_rule *last = atomic_load_explicit(&zf_fault_head, memory_order_relaxed);
    if (last == NULL) {
        atomic_store_explicit(&zf_fault_head, rule, memory_order_release);
        return;
    }
    for (zf_fault_rule *next; (next = atomic_load_explicit(&last->next, memory_order_relaxed)) != NULL;)
        last = next;
    atomic_store_explicit(&last->next, rule, memory_order_release);
}

bool zf_fault_arm_call(zf_api_id api, ze_result_t result, uint64_t after, uint64_t count, const char *origin) {
    zf_fault_rule *rule = calloc(1, sizeof *rule);
    if (rule == NULL)
        return false;
    *rule = (zf_fault_rule){.api = api, .result = result, .after = after, .count = count};
    atomic_init(&rule->calls, 0);
    atomic_init(&rule->fired, 0);
    atomic_init(&rule->active, true);
    snprintf(rule->origin, sizeof rule->origin, "%s", origin);
    pthread_mutex_lock(&zf_fault_lock);
    rule->kept = zf_fault_all;
    zf_fault_all = rule;
    zf_fault_append(rule);
    atomic_fetch_add_explicit(&zf_fault_armed_rules, 1, memory_order_relaxed);
    pthread_mutex_unlock(&zf_fault_lock);
    return true;
}

/* Whether the call numbered `n` (from 0) of the rule's function is one the rule fails. */
static bool zf_fault_hits(const zf_fault_rule *rule, uint64_t n) {
    if (n < rule->after)
        return false;
    return rule->count == ZF_FAULT_COUNT_ALL || n - rule->after < rule->count;
}

static ze_result_t zf_fault_fire(zf_fault_rule *rule, uint64_t n, zf_call_scope *scope) {
    atomic_fetch_add_explicit(&zf_fault_fired_count, 1, memory_order_relaxed);
    if (scope != NULL)
        scope->explained = true;
    uint64_t fired = atomic_fetch_add_explicit(&rule->fired, 1, memory_order_relaxed) + 1;
    zf_log_level level = fired <= ZF_FAULT_WARNINGS ? ZF_LOG_WARN : ZF_LOG_DEBUG;
    if (!zf_log_enabled(level))
        return rule->result;
    const char *name = zf_result_name(rule->result);
    zf_log(level, "%s: injected fault: call %" PRIu64 " answers %s (%s)%s", zf_api_table[rule->api].name, n + 1,
           name != NULL ? name : "a result without a name", rule->origin,
           fired == ZF_FAULT_WARNINGS ? "; later faults of this rule are logged at debug level" : "");
    return rule->result;
}

/* Every active rule of the function counts the call; the first, in the order armed, that fails it gives the result. */
ze_result_t zf_fault_inject(zf_api_id api, zf_call_scope *scope) {
    zf_fault_rule *fired = NULL;
    uint64_t fired_n = 0;
    for (zf_fault_rule *rule = atomic_load_explicit(&zf_fault_head, memory_order_acquire); rule != NULL;
         rule = atomic_load_explicit(&rule->next, memory_order_acquire)) {
        if (rule->api != api || !atomic_load_explicit(&rule->active, memory_order_relaxed))
            continue;
        uint64_t n = atomic_fetch_add_explicit(&rule->calls, 1, memory_order_relaxed);
        if (fired == NULL && zf_fault_hits(rule, n)) {
            fired = rule;
            fired_n = n;
        }
    }
    return fired != NULL ? zf_fault_fire(fired, fired_n, scope) : ZE_RESULT_SUCCESS;
}

uint32_t zf_fault_clear_calls(void) {
    pthread_mutex_lock(&zf_fault_lock);
    zf_fault_rule *rule = atomic_exchange_explicit(&zf_fault_head, NULL, memory_order_acq_rel);
    for (; rule != NULL; rule = atomic_load_explicit(&rule->next, memory_order_relaxed))
        atomic_store_explicit(&rule->active, false, memory_order_relaxed);
    uint32_t armed = atomic_exchange_explicit(&zf_fault_armed_rules, 0, memory_order_relaxed);
    pthread_mutex_unlock(&zf_fault_lock);
    return armed;
}

void zf_fault_count_fired(void) {
    atomic_fetch_add_explicit(&zf_fault_fired_count, 1, memory_order_relaxed);
}

uint64_t zf_fault_fired(bool reset) {
    if (reset)
        return (uint64_t)atomic_exchange_explicit(&zf_fault_fired_count, 0, memory_order_relaxed);
    return (uint64_t)atomic_load_explicit(&zf_fault_fired_count, memory_order_relaxed);
}

void zf_fault_release(void) {
    zf_fault_clear_calls();
    pthread_mutex_lock(&zf_fault_lock);
    while (zf_fault_all != NULL) {
        zf_fault_rule *rule = zf_fault_all;
        zf_fault_all = rule->kept;
        free(rule);
    }
    pthread_mutex_unlock(&zf_fault_lock);
}
