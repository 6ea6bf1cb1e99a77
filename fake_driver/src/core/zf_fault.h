/* Fault injection of API calls (docs/scenarios.md, "faults"; docs/extensions.md): rules that make a function answer
 * an error result instead of running, so that applications and tools can test their error paths without a GPU.
 *
 * A rule names one API function: its first `after` calls run normally, then `count` calls (or every later one) answer
 * the rule's result. Each rule counts the calls of its function that pass the argument checks, process-wide and
 * atomically. Rules come from the scenario at zeInit and from the zefake extension at run time; they are never freed
 * while the process runs, so a call that found a rule may keep reading it after the rules were cleared. */
#ifndef ZF_FAULT_H
#define ZF_FAULT_H

#include "core/zf_core.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* `count` of a rule that fails every call from its `after` on. */
#define ZF_FAULT_COUNT_ALL UINT64_MAX

/* The number of armed call rules: every generated entry point reads it once (relaxed) after its argument checks. */
extern atomic_uint zf_fault_armed_rules;

static inline bool zf_fault_armed(void) {
    return atomic_load_explicit(&zf_fault_armed_rules, memory_order_relaxed) != 0;
}

/* Arms a rule: calls `after` + 1 .. `after` + `count` of `api` answer `result` (not ZE_RESULT_SUCCESS). `origin` names
 * the rule in the warning each injected result logs (copied). False when out of host memory. */
bool zf_fault_arm_call(zf_api_id api, ze_result_t result, uint64_t after, uint64_t count, const char *origin);

/* Counts a call of `api` against the armed rules of that function; ZE_RESULT_SUCCESS lets it run, anything else is
 * the injected result, logged as a warning naming the function, the call's number and the rule. `scope` (the call's,
 * NULL for a function without implementation) is marked explained. */
ze_result_t zf_fault_inject(zf_api_id api, zf_call_scope *scope);

/* Disarms every call rule; returns how many were armed. */
uint32_t zf_fault_clear_calls(void);

/* Counts one injected fault of another kind (a device lost by a rule). */
void zf_fault_count_fired(void);

/* The number of injected faults (failed calls and lost devices) since the process started or the last reset;
 * `reset` sets it back to 0 and returns the count before. */
uint64_t zf_fault_fired(bool reset);

/* Frees every rule ever armed: only when the library unloads (ze/lifecycle.c), when no call can run. */
void zf_fault_release(void);

#endif
