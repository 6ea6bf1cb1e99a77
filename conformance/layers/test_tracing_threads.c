/* Conformance: API tracing under threads, against one tracer implementation per executable (ZC_TRACING_TARGET,
 * zc_tracing.h): a callback held in flight by the test while the main thread destroys or re-enables its tracer, and
 * prologues paired with their epilogues while callers call zeDeviceGetProperties and togglers enable, disable (and,
 * where the target allows, destroy) tracers of their own. The stock layer's known defects are listed in
 * conformance/expected/tracing-stock.txt.
 *
 * The threads keep per-thread counters that are read after they are joined. No test asserts anything about time. */
#include "zc_tracing.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------------------------------------------------------------
 * A callback held in flight by the test */

typedef struct zc_gate {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    bool entered;  /* the prologue is waiting */
    bool released; /* the test let it go on */
    atomic_bool destroy_returned;
    bool epilogue_saw_destroy_returned;
    unsigned epilogues;
    void *tracer;
    ze_device_handle_t device; /* taken on the main thread: cmocka's checks are not for other threads */
    ze_result_t destroy_result;
    ze_result_t call_result;
} zc_gate;

static void ZE_APICALL zc_gate_prologue(ze_device_get_properties_params_t *params, ze_result_t result, void *user_data,
                                        void **instance) {
    (void)params;
    (void)result;
    (void)instance;
    zc_gate *gate = user_data;
    pthread_mutex_lock(&gate->lock);
    gate->entered = true;
    pthread_cond_broadcast(&gate->changed);
    while (!gate->released)
        pthread_cond_wait(&gate->changed, &gate->lock);
    pthread_mutex_unlock(&gate->lock);
}

static void ZE_APICALL zc_gate_epilogue(ze_device_get_properties_params_t *params, ze_result_t result, void *user_data,
                                        void **instance) {
    (void)params;
    (void)result;
    (void)instance;
    zc_gate *gate = user_data;
    gate->epilogue_saw_destroy_returned = atomic_load(&gate->destroy_returned);
    gate->epilogues++;
}

static void *zc_gate_caller(void *arg) {
    zc_gate *gate = arg;
    ze_device_properties_t properties = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
    gate->call_result = zeDeviceGetProperties(gate->device, &properties);
    return NULL;
}

static void *zc_gate_destroyer(void *arg) {
    zc_gate *gate = arg;
    gate->destroy_result = zc_tr_destroy(gate->tracer);
    atomic_store(&gate->destroy_returned, true);
    return NULL;
}

/* Creates and enables a gated tracer and starts a call that stops in its prologue. */
static void zc_gate_start(zc_gate *gate, pthread_t *caller) {
    memset(gate, 0, sizeof *gate);
    gate->device = zc_device();
    pthread_mutex_init(&gate->lock, NULL);
    pthread_cond_init(&gate->changed, NULL);
    ze_callbacks_t prologues = {0}, epilogues = {0};
    prologues.Device.pfnGetPropertiesCb = zc_gate_prologue;
    epilogues.Device.pfnGetPropertiesCb = zc_gate_epilogue;
    gate->tracer = zc_tracer_with(gate, &prologues, &epilogues);
    zc_assert_success(zc_tr_enable(gate->tracer, true));
    assert_int_equal(pthread_create(caller, NULL, zc_gate_caller, gate), 0);
    pthread_mutex_lock(&gate->lock);
    while (!gate->entered)
        pthread_cond_wait(&gate->changed, &gate->lock);
    pthread_mutex_unlock(&gate->lock);
}

static void zc_gate_release(zc_gate *gate) {
    pthread_mutex_lock(&gate->lock);
    gate->released = true;
    pthread_cond_broadcast(&gate->changed);
    pthread_mutex_unlock(&gate->lock);
}

static void zc_gate_free(zc_gate *gate) {
    pthread_mutex_destroy(&gate->lock);
    pthread_cond_destroy(&gate->changed);
}

static void destroy_waits_for_callback_in_flight(void **state) {
    (void)state;
    zc_gate gate;
    pthread_t caller, destroyer;
    zc_gate_start(&gate, &caller);
    ze_result_t disabled = zc_tr_enable(gate.tracer, false);
    bool started = pthread_create(&destroyer, NULL, zc_gate_destroyer, &gate) == 0;
    /* Gives the destroyer time to reach the wait; a correct destroy cannot have returned whatever the timing. */
    struct timespec pause = {0, 100 * 1000 * 1000};
    nanosleep(&pause, NULL);
    bool returned_early = atomic_load(&gate.destroy_returned);
    zc_gate_release(&gate);
    pthread_join(caller, NULL);
    if (started)
        pthread_join(destroyer, NULL);
    zc_gate_free(&gate);
    assert_true(started);
    zc_assert_success(disabled);
    assert_false(returned_early);
    zc_assert_success(gate.destroy_result);
    zc_assert_success(gate.call_result);
    assert_int_equal(gate.epilogues, 1);              /* the disabled tracer still got its epilogue */
    assert_false(gate.epilogue_saw_destroy_returned); /* and destroy returned only after it */
}

/* Enabling and disabling again while an earlier call is still in flight. */
static void reenable_while_call_in_flight(void **state) {
    (void)state;
    zc_gate gate;
    pthread_t caller;
    zc_gate_start(&gate, &caller);
    ze_result_t results[3];
    results[0] = zc_tr_enable(gate.tracer, false);
    results[1] = zc_tr_enable(gate.tracer, true);
    results[2] = zc_tr_enable(gate.tracer, false);
    zc_gate_release(&gate);
    pthread_join(caller, NULL);
    ze_result_t destroyed = zc_tr_destroy(gate.tracer);
    zc_gate_free(&gate);
    zc_assert_success(results[0]);
    zc_assert_success(results[1]);
    zc_assert_success(results[2]);
    zc_assert_success(destroyed);
    assert_int_equal(gate.epilogues, 1);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Pairing under threads: callers call zeDeviceGetProperties while togglers enable and disable tracers of their own */

#define ZC_CALLERS          8
#define ZC_TOGGLERS         2
#define ZC_TOGGLES          300
#define ZC_CALLS_PER_YIELD  16
#define ZC_PROGRESS_LIMIT_S 20 /* liveness only: a tracer that never calls its prologue would hang the test */

typedef struct zc_pair_count {
    unsigned prologues;
    unsigned epilogues;
    unsigned mismatched; /* epilogues whose instance slot did not hold what this call's prologue stored */
} zc_pair_count;

typedef struct zc_toggler {
    int index;
    bool destroy_each_cycle; /* destroy the tracer and create a new one in every cycle, while the callers run */
    void *tracer;
    atomic_uint seen;       /* prologues, on any thread */
    unsigned toggles;       /* cycles completed */
    ze_result_t error;      /* the first unexpected result */
    const char *error_call; /* and what gave it */
    bool stalled;           /* no prologue within ZC_PROGRESS_LIMIT_S of enabling */
    atomic_int hold;        /* zc_hold_state: a caller held in its prologue while the tracer is disabled */
} zc_toggler;

/* The first cycle of every toggler disables its tracer while a call is certainly in flight: a caller's prologue is
 * held until the disable has returned, so that what a tracer does then is tested in every run, not by chance. */
typedef enum zc_hold_state { ZC_HOLD_NONE, ZC_HOLD_WANTED, ZC_HOLD_HOLDING, ZC_HOLD_RELEASED } zc_hold_state;

typedef struct zc_caller_report {
    unsigned calls;
    unsigned failures;
} zc_caller_report;

static zc_pair_count zc_pairs[ZC_CALLERS][ZC_TOGGLERS];
static zc_caller_report zc_callers[ZC_CALLERS];
static _Thread_local int zc_caller_index = -1;
static atomic_bool zc_callers_stop;
static ze_device_handle_t zc_callers_device; /* taken on the main thread */

static void ZE_APICALL zc_pair_prologue(ze_device_get_properties_params_t *params, ze_result_t result, void *user_data,
                                        void **instance) {
    (void)params;
    (void)result;
    zc_toggler *toggler = user_data;
    if (zc_caller_index < 0)
        return;
    zc_pair_count *count = &zc_pairs[zc_caller_index][toggler->index];
    count->prologues++;
    *instance = count;
    atomic_fetch_add(&toggler->seen, 1);
    int wanted = ZC_HOLD_WANTED;
    if (atomic_compare_exchange_strong(&toggler->hold, &wanted, ZC_HOLD_HOLDING)) {
        while (atomic_load(&toggler->hold) != ZC_HOLD_RELEASED)
            sched_yield();
    }
}

static void ZE_APICALL zc_pair_epilogue(ze_device_get_properties_params_t *params, ze_result_t result, void *user_data,
                                        void **instance) {
    (void)params;
    (void)result;
    zc_toggler *toggler = user_data;
    if (zc_caller_index < 0)
        return;
    zc_pair_count *count = &zc_pairs[zc_caller_index][toggler->index];
    if (*instance != count)
        count->mismatched++;
    count->epilogues++;
}

static void *zc_pair_caller(void *arg) {
    zc_caller_index = (int)(intptr_t)arg;
    zc_caller_report *report = &zc_callers[zc_caller_index];
    ze_device_properties_t properties = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
    while (!atomic_load(&zc_callers_stop)) {
        if (zeDeviceGetProperties(zc_callers_device, &properties) != ZE_RESULT_SUCCESS)
            report->failures++;
        if (++report->calls % ZC_CALLS_PER_YIELD == 0)
            sched_yield(); /* 10 busy threads on 2 cores: let the togglers run often enough */
    }
    return NULL;
}

static bool zc_toggler_check(zc_toggler *toggler, ze_result_t result, const char *call) {
    if (result == ZE_RESULT_SUCCESS)
        return true;
    toggler->error = result;
    toggler->error_call = call;
    return false;
}

static bool zc_toggler_new_tracer(zc_toggler *toggler) {
    ze_callbacks_t prologues = {0}, epilogues = {0};
    prologues.Device.pfnGetPropertiesCb = zc_pair_prologue;
    epilogues.Device.pfnGetPropertiesCb = zc_pair_epilogue;
    return zc_toggler_check(toggler, zc_tr_create(toggler, &toggler->tracer), "create") &&
           zc_toggler_check(toggler, zc_tr_set(toggler->tracer, true, &prologues), "set prologues") &&
           zc_toggler_check(toggler, zc_tr_set(toggler->tracer, false, &epilogues), "set epilogues");
}

/* zelTracerSetEnabled/zetTracerExpSetEnabled name no error for a live tracer: enabling must succeed also right after
 * a disable that left calls in flight (the stock layer answers ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE there). */
static bool zc_toggler_enable(zc_toggler *toggler) {
    return zc_toggler_check(toggler, zc_tr_enable(toggler->tracer, true), "enable");
}

static bool zc_toggler_wait_for_prologue(zc_toggler *toggler, unsigned before) {
    time_t limit = time(NULL) + ZC_PROGRESS_LIMIT_S;
    while (atomic_load(&toggler->seen) == before) {
        if (time(NULL) > limit) {
            toggler->stalled = true;
            return false;
        }
        sched_yield();
    }
    return true;
}

static bool zc_toggler_wait_for_hold(zc_toggler *toggler) {
    time_t limit = time(NULL) + ZC_PROGRESS_LIMIT_S;
    while (atomic_load(&toggler->hold) != ZC_HOLD_HOLDING) {
        if (time(NULL) > limit) {
            toggler->stalled = true;
            return false;
        }
        sched_yield();
    }
    return true;
}

/* Enable, wait until a caller is in its prologue (held there in the first cycle), disable. */
static bool zc_toggler_enable_disable(zc_toggler *toggler) {
    bool hold = toggler->toggles == 0;
    if (hold)
        atomic_store(&toggler->hold, ZC_HOLD_WANTED);
    unsigned before = atomic_load(&toggler->seen);
    bool ok = zc_toggler_enable(toggler) &&
              (hold ? zc_toggler_wait_for_hold(toggler) : zc_toggler_wait_for_prologue(toggler, before)) &&
              zc_toggler_check(toggler, zc_tr_enable(toggler->tracer, false), "disable");
    if (hold)
        atomic_store(&toggler->hold, ZC_HOLD_RELEASED);
    return ok;
}

static bool zc_toggler_cycle(zc_toggler *toggler) {
    if (!zc_toggler_enable_disable(toggler))
        return false;
    if (!toggler->destroy_each_cycle)
        return true;
    /* Waits for the calls still holding the tracer, while the callers go on calling. */
    return zc_toggler_check(toggler, zc_tr_destroy(toggler->tracer), "destroy") && zc_toggler_new_tracer(toggler);
}

static void *zc_toggler_run(void *arg) {
    zc_toggler *toggler = arg;
    while (toggler->toggles < ZC_TOGGLES && zc_toggler_cycle(toggler))
        toggler->toggles++;
    return NULL;
}

static void zc_pairing_check_togglers(const zc_toggler *togglers) {
    for (int j = 0; j < ZC_TOGGLERS; j++) {
        const zc_toggler *t = &togglers[j];
        if (t->error != ZE_RESULT_SUCCESS)
            fail_msg("toggler %d: %s returned %s after %u cycles", j, t->error_call, zc_result_name(t->error),
                     t->toggles);
        if (t->stalled)
            fail_msg("toggler %d: no prologue within %d s of enabling (cycle %u)", j, ZC_PROGRESS_LIMIT_S, t->toggles);
        assert_int_equal(t->toggles, ZC_TOGGLES);
        print_message("toggler %d: %u cycles, %u prologues\n", j, t->toggles, atomic_load(&t->seen));
    }
}

static void zc_pairing_check_counts(void) {
    for (int k = 0; k < ZC_CALLERS; k++) {
        if (zc_callers[k].failures > 0)
            fail_msg("caller %d: %u of %u calls failed", k, zc_callers[k].failures, zc_callers[k].calls);
        for (int j = 0; j < ZC_TOGGLERS; j++) {
            const zc_pair_count *c = &zc_pairs[k][j];
            if (c->prologues != c->epilogues || c->mismatched != 0)
                fail_msg("caller %d, tracer %d: %u prologues, %u epilogues, %u epilogues without their prologue", k, j,
                         c->prologues, c->epilogues, c->mismatched);
            assert_true(c->prologues <= zc_callers[k].calls);
        }
    }
}

/* Destroys the togglers' tracers once the callers have stopped; the first error, if any. */
static ze_result_t zc_togglers_finish(zc_toggler *togglers) {
    ze_result_t first_error = ZE_RESULT_SUCCESS;
    for (int j = 0; j < ZC_TOGGLERS; j++) {
        zc_tr_enable(togglers[j].tracer, false); /* after an early stop it may still be enabled */
        ze_result_t result = zc_tr_destroy(togglers[j].tracer);
        if (first_error == ZE_RESULT_SUCCESS)
            first_error = result;
    }
    return first_error;
}

static void zc_pairing_run(bool destroy_each_cycle) {
    zc_callers_device = zc_device();
    memset(zc_pairs, 0, sizeof zc_pairs);
    memset(zc_callers, 0, sizeof zc_callers);
    atomic_store(&zc_callers_stop, false);
    static zc_toggler togglers[ZC_TOGGLERS];
    memset(togglers, 0, sizeof togglers);
    for (int j = 0; j < ZC_TOGGLERS; j++) {
        togglers[j] = (zc_toggler){.index = j, .destroy_each_cycle = destroy_each_cycle};
        assert_true(zc_toggler_new_tracer(&togglers[j]));
    }
    pthread_t callers[ZC_CALLERS], toggler_threads[ZC_TOGGLERS];
    for (int k = 0; k < ZC_CALLERS; k++)
        assert_int_equal(pthread_create(&callers[k], NULL, zc_pair_caller, (void *)(intptr_t)k), 0);
    for (int j = 0; j < ZC_TOGGLERS; j++)
        assert_int_equal(pthread_create(&toggler_threads[j], NULL, zc_toggler_run, &togglers[j]), 0);
    for (int j = 0; j < ZC_TOGGLERS; j++)
        pthread_join(toggler_threads[j], NULL);
    atomic_store(&zc_callers_stop, true);
    for (int k = 0; k < ZC_CALLERS; k++)
        pthread_join(callers[k], NULL);
    ze_result_t finished = zc_togglers_finish(togglers);
    zc_pairing_check_togglers(togglers);
    zc_pairing_check_counts();
    zc_assert_success(finished);
}

static void prologue_epilogue_pairing_under_threads(void **state) {
    (void)state;
    zc_pairing_run(false);
}

#if ZC_TRACING_TARGET != ZC_TRACING_STOCK
/* The same with every tracer destroyed while the callers go on calling. Not run on the stock layer: it crashes in
 * about one run in six there, too seldom for an expected failure, which must fail every time (docs/tracing.md). */
static void pairing_with_destroy_under_threads(void **state) {
    (void)state;
    zc_pairing_run(true);
}
#endif

int main(int argc, char **argv) {
    if (getenv(ZC_READY_VARIABLE) == NULL)
        return zc_tracing_reexec(argv);
    static const struct CMUnitTest tests[] = {
        cmocka_unit_test(destroy_waits_for_callback_in_flight),
        cmocka_unit_test(reenable_while_call_in_flight),
        cmocka_unit_test(prologue_epilogue_pairing_under_threads),
#if ZC_TRACING_TARGET != ZC_TRACING_STOCK
        cmocka_unit_test(pairing_with_destroy_under_threads),
#endif
    };
    static const zc_suite suite = {
        ZC_EXECUTABLE, tests, ZC_COUNT(tests), zc_setup_tracing, zc_teardown_tracing, NULL, 0,
    };
    return zc_main(argc, argv, &suite);
}
