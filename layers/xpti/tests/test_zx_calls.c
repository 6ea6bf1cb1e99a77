/* Unit test of the emitter's per-call path (emitter/zx_calls.c), linked alone with a fake framework that writes every
 * notification as a token, and a hook table of its own. It drives zx_call_begin/zx_call_end as a tracer's prologues
 * and epilogues would, including what the conformance suite cannot reach: both tracing layers leave calls made from a
 * callback untraced, so no traced workload nests calls on a thread, but the emitter is written for a tracer that
 * does (docs/xpti.md, "One traced call"). Checked: nested calls get frames of their own and pair inside the outer call
 * (also a call made from a subscriber callback), the order of streams and hooks at begin and end, a missing epilogue
 * popped by the outer end, calls deeper than the stack untraced, per-thread stacks under interleaving, the guards.
 *
 * Tokens: c<type>#<id>:<function id> (call stream, the id looked up from the name it carries),
 * d<type>#<id>:<function id>:p<params> (debug stream; at end =<result in hex>, at begin =! when ret_data is set),
 * hb/he#<id>:<function id>:p<params> (hook begin/end; he adds =<result>). Runs every test; exits non-zero when one
 * failed. */
#include "zx_emitter.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

enum { ZT_CALL_STREAM = 1, ZT_DEBUG_STREAM = 2 };

static pthread_mutex_t zt_lock = PTHREAD_MUTEX_INITIALIZER;
static char zt_trace[4096];
static uint64_t zt_next_id;
static bool zt_debug_listened = true;
static int zt_params[32]; /* params of call k: &zt_params[k] */

/* A call to make from inside the next debug-stream begin notification of `outer`: a tracer that traced calls made
 * from callbacks would see it nested there. */
static struct {
    uint64_t outer;
    uint32_t fn;
    ze_result_t result;
} zt_reenter;

static void zt_log(const char *format, ...) __attribute__((format(printf, 1, 2)));

static void zt_log(const char *format, ...) {
    pthread_mutex_lock(&zt_lock);
    size_t used = strlen(zt_trace);
    if (used > 0 && used + 1 < sizeof zt_trace)
        zt_trace[used++] = ' ';
    va_list args;
    va_start(args, format);
    vsnprintf(zt_trace + used, sizeof zt_trace - used, format, args);
    va_end(args);
    pthread_mutex_unlock(&zt_lock);
}

static long zt_label(const void *params) {
    const int *p = params;
    return p >= zt_params && p < zt_params + 32 ? (long)(p - zt_params) : -1;
}

/* ------------------------------------------------------------------------------------------------------------------
 * The fake framework and hooks */

static uint64_t zt_unique_id(void) {
    pthread_mutex_lock(&zt_lock);
    uint64_t id = ++zt_next_id;
    pthread_mutex_unlock(&zt_lock);
    return id;
}

static bool zt_check(uint16_t stream, uint16_t type) {
    if (stream == ZT_DEBUG_STREAM)
        return zt_debug_listened && (type == ZX_TP_FUNCTION_WITH_ARGS_BEGIN || type == ZX_TP_FUNCTION_WITH_ARGS_END);
    return stream == ZT_CALL_STREAM;
}

static void zt_debug(uint16_t type, uint64_t instance, const zx_function_with_args *fwa) {
    long label = zt_label(fwa->args_data);
    if (type == ZX_TP_FUNCTION_WITH_ARGS_BEGIN) {
        zt_log("d%u#%llu:%u:p%ld%s", type, (unsigned long long)instance, fwa->function_id, label,
               fwa->ret_data != NULL ? "=!" : "");
        return;
    }
    unsigned result = fwa->ret_data != NULL ? (unsigned)*(const ze_result_t *)fwa->ret_data : 0xdeadu;
    zt_log("d%u#%llu:%u:p%ld=%x", type, (unsigned long long)instance, fwa->function_id, label, result);
}

static void zt_reenter_if_asked(uint16_t type, uint64_t instance) {
    if (type != ZX_TP_FUNCTION_WITH_ARGS_BEGIN || zt_reenter.outer == 0 || instance != zt_reenter.outer)
        return;
    zt_reenter.outer = 0;
    void *slot = NULL;
    zx_call_begin(zt_reenter.fn, &zt_params[9], &slot);
    zx_call_end(zt_reenter.result, &slot);
}

static zx_xpti_result zt_notify(uint8_t stream, uint16_t type, zx_xpti_event *parent, zx_xpti_event *object,
                                uint64_t instance, const void *user_data) {
    if (parent != NULL || object != NULL || user_data == NULL) {
        zt_log("bad");
        return ZX_XPTI_SUCCESS;
    }
    if (stream == ZT_CALL_STREAM)
        zt_log("c%u#%llu:%u", type, (unsigned long long)instance, zx_function_id_of(user_data));
    else
        zt_debug(type, instance, user_data);
    zt_reenter_if_asked(type, instance);
    return ZX_XPTI_SUCCESS;
}

static void zt_hook_begin(zx_call *call) {
    zt_log("hb#%llu:%u:p%ld", (unsigned long long)call->id, call->fn, zt_label(call->params));
}

static void zt_hook_end(zx_call *call) {
    zt_log("he#%llu:%u:p%ld=%x", (unsigned long long)call->id, call->fn, zt_label(call->params),
           (unsigned)call->result);
}

/* What zx_calls.c takes from the rest of the emitter: the published context and the hook table. */
_Atomic(const zx_ctx *) zx_active;
const zx_hook_pair zx_hooks[ZX_FN_LIMIT] = {[ZX_FN_zeMemAllocDevice] = {zt_hook_begin, zt_hook_end}};

static zx_ctx zt_ctx;

static void zt_reset(bool active) {
    memset(&zt_ctx, 0, sizeof zt_ctx);
    zt_ctx.fw.xptiGetUniqueId = zt_unique_id;
    zt_ctx.fw.xptiCheckTraceEnabled = zt_check;
    zt_ctx.fw.xptiNotifySubscribers = zt_notify;
    zt_ctx.stream[ZX_S_CALL] = ZT_CALL_STREAM;
    zt_ctx.stream[ZX_S_DEBUG] = ZT_DEBUG_STREAM;
    atomic_store(&zx_active, active ? &zt_ctx : NULL);
    zt_trace[0] = '\0';
    zt_next_id = 0;
    zt_debug_listened = true;
    zt_reenter.outer = 0;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Checks */

static int zt_expect_trace(const char *test, const char *expected) {
    if (strcmp(zt_trace, expected) == 0)
        return 0;
    fprintf(stderr, "test_zx_calls: %s:\n  got      %s\n  expected %s\n", test, zt_trace, expected);
    return 1;
}

static int zt_expect(const char *test, bool ok, const char *what) {
    if (!ok)
        fprintf(stderr, "test_zx_calls: %s: %s\n", test, what);
    return !ok;
}

#define ZT_BAD ZE_RESULT_ERROR_INVALID_ARGUMENT /* 78000004 in the tokens */

/* zeInit (98) traced around zeMemAllocDevice (113, hooked) around zeDeviceGetProperties (55): each call pairs
 * inside the one it is nested in, with its own id, params and result; hooks come after the streams at begin and
 * before them at end. */
static int nested_calls_pair_inside_their_outer_call(void) {
    zt_reset(true);
    void *a = NULL, *b = NULL, *c = NULL;
    zx_call_begin(ZX_FN_zeInit, &zt_params[0], &a);
    zx_call_begin(ZX_FN_zeMemAllocDevice, &zt_params[1], &b);
    zx_call_begin(ZX_FN_zeDeviceGetProperties, &zt_params[2], &c);
    zx_call_end(ZT_BAD, &c);
    zx_call_end(ZE_RESULT_SUCCESS, &b);
    zx_call_end(ZE_RESULT_ERROR_UNINITIALIZED, &a);
    int failed = zt_expect_trace(__func__, "c24#1:98 d28#1:98:p0 "
                                           "c24#2:113 d28#2:113:p1 hb#2:113:p1 "
                                           "c24#3:55 d28#3:55:p2 d29#3:55:p2=78000004 c25#3:55 "
                                           "he#2:113:p1=0 d29#2:113:p1=0 c25#2:113 "
                                           "d29#1:98:p0=78000001 c25#1:98");
    failed |= zt_expect(__func__, a != b && b != c && a != c, "nested calls share a frame");
    void *again = NULL; /* the stack is empty again: the next call gets the bottom frame */
    zx_call_begin(ZX_FN_zeInit, &zt_params[3], &again);
    zx_call_end(ZE_RESULT_SUCCESS, &again);
    return failed | zt_expect(__func__, again == a, "the stack was not emptied by the three ends");
}

/* A call made from inside a subscriber callback (here: the outer call's function_with_args_begin) nests there. */
static int call_from_a_callback_nests_in_the_notifying_call(void) {
    zt_reset(true);
    zt_reenter.outer = 1;
    zt_reenter.fn = ZX_FN_zeDeviceGetProperties;
    zt_reenter.result = ZT_BAD;
    void *a = NULL;
    zx_call_begin(ZX_FN_zeMemAllocDevice, &zt_params[0], &a);
    zx_call_end(ZE_RESULT_SUCCESS, &a);
    return zt_expect_trace(__func__, "c24#1:113 d28#1:113:p0 "
                                     "c24#2:55 d28#2:55:p9 d29#2:55:p9=78000004 c25#2:55 "
                                     "hb#1:113:p0 he#1:113:p0=0 d29#1:113:p0=0 c25#1:113");
}

/* An inner call whose epilogue never came: the outer end notifies the outer call and pops both frames. */
static int missing_inner_epilogue_is_popped_by_the_outer_end(void) {
    zt_reset(true);
    void *a = NULL, *b = NULL;
    zx_call_begin(ZX_FN_zeInit, &zt_params[0], &a);
    zx_call_begin(ZX_FN_zeDeviceGetProperties, &zt_params[1], &b);
    zx_call_end(ZE_RESULT_SUCCESS, &a);
    int failed = zt_expect_trace(__func__, "c24#1:98 d28#1:98:p0 c24#2:55 d28#2:55:p1 d29#1:98:p0=0 c25#1:98");
    void *again = NULL;
    zx_call_begin(ZX_FN_zeInit, &zt_params[2], &again);
    zx_call_end(ZE_RESULT_SUCCESS, &again);
    return failed | zt_expect(__func__, again == a, "the outer end left the inner frame on the stack");
}

/* 16 nested calls are traced; the 17th gets neither begin nor end; the 16 then end in order. */
static int call_deeper_than_the_stack_is_not_traced(void) {
    zt_reset(true);
    void *slots[17] = {0};
    for (int i = 0; i < 17; i++)
        zx_call_begin(ZX_FN_zeDeviceGetProperties, &zt_params[i], &slots[i]);
    int framed = 0;
    for (int i = 0; i < 17; i++)
        framed += slots[i] != NULL;
    int failed = zt_expect(__func__, framed == 16 && slots[16] == NULL, "not exactly the first 16 calls got frames");
    failed |= zt_expect(__func__, strstr(zt_trace, "p16") == NULL && strstr(zt_trace, "#17") == NULL,
                        "the 17th call was notified");
    zx_call_end(ZE_RESULT_SUCCESS, &slots[16]);
    zt_trace[0] = '\0';
    for (int i = 15; i >= 0; i--)
        zx_call_end(ZE_RESULT_SUCCESS, &slots[i]);
    char expected[2048] = "";
    for (int i = 15; i >= 0; i--) {
        size_t used = strlen(expected);
        snprintf(expected + used, sizeof expected - used, "%sd29#%d:55:p%d=0 c25#%d:55", i < 15 ? " " : "", i + 1, i,
                 i + 1);
    }
    return failed | zt_expect_trace(__func__, expected);
}

/* Nobody listens to the debug stream: the call stream and the hooks alone, still nested. */
static int debug_stream_not_listened_gets_no_notification(void) {
    zt_reset(true);
    zt_debug_listened = false;
    void *a = NULL, *b = NULL;
    zx_call_begin(ZX_FN_zeMemAllocDevice, &zt_params[0], &a);
    zx_call_begin(ZX_FN_zeDeviceGetProperties, &zt_params[1], &b);
    zx_call_end(ZE_RESULT_SUCCESS, &b);
    zx_call_end(ZE_RESULT_SUCCESS, &a);
    return zt_expect_trace(__func__, "c24#1:113 hb#1:113:p0 c24#2:55 c25#2:55 he#1:113:p0=0 c25#1:113");
}

/* No context published (emitter off), or an id outside the table: nothing traced, the slot stays NULL. */
static int untraced_calls_leave_the_slot_empty(void) {
    zt_reset(false);
    void *a = NULL;
    zx_call_begin(ZX_FN_zeInit, &zt_params[0], &a);
    zx_call_end(ZE_RESULT_SUCCESS, &a);
    int failed = zt_expect(__func__, a == NULL, "a call was traced without a context");
    zt_reset(true);
    zx_call_begin(ZX_FN_NONE, &zt_params[0], &a);
    zx_call_end(ZE_RESULT_SUCCESS, &a);
    failed |= zt_expect(__func__, a == NULL, "function id 0 was traced");
    return failed | zt_expect_trace(__func__, "");
}

/* ------------------------------------------------------------------------------------------------------------------
 * Two threads, interleaved step by step: each has its own stack. On one shared stack, thread 2's D would take the
 * frame of its open call B once thread 1 popped A, and B's end would carry D's id. */

typedef struct zt_step {
    int step;
    bool begin;
    uint32_t fn;
    int call; /* params &zt_params[call], slot slots[call] */
} zt_step;

static pthread_mutex_t zt_turn_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t zt_turn_changed = PTHREAD_COND_INITIALIZER;
static int zt_turn;
static void *zt_slots[8];

static void zt_run_step(const zt_step *s) {
    pthread_mutex_lock(&zt_turn_lock);
    while (zt_turn != s->step)
        pthread_cond_wait(&zt_turn_changed, &zt_turn_lock);
    pthread_mutex_unlock(&zt_turn_lock);
    if (s->begin)
        zx_call_begin(s->fn, &zt_params[s->call], &zt_slots[s->call]);
    else
        zx_call_end(ZE_RESULT_SUCCESS, &zt_slots[s->call]);
    pthread_mutex_lock(&zt_turn_lock);
    zt_turn++;
    pthread_cond_broadcast(&zt_turn_changed);
    pthread_mutex_unlock(&zt_turn_lock);
}

static void *zt_run_steps(void *arg) {
    for (const zt_step *s = arg; s->step >= 0; s++)
        zt_run_step(s);
    return NULL;
}

static int threads_interleaved_keep_their_own_stacks(void) {
    zt_reset(true);
    static const zt_step first[] = {{0, true, ZX_FN_zeInit, 0},
                                    {2, false, 0, 0},
                                    {3, true, ZX_FN_zeContextCreate, 2},
                                    {7, false, 0, 2},
                                    {-1, false, 0, 0}};
    static const zt_step second[] = {{1, true, ZX_FN_zeDeviceGetProperties, 1},
                                     {4, true, ZX_FN_zeDriverGet, 3},
                                     {5, false, 0, 3},
                                     {6, false, 0, 1},
                                     {-1, false, 0, 0}};
    zt_turn = 0;
    memset(zt_slots, 0, sizeof zt_slots);
    pthread_t threads[2];
    if (pthread_create(&threads[0], NULL, zt_run_steps, (void *)first) != 0 ||
        pthread_create(&threads[1], NULL, zt_run_steps, (void *)second) != 0)
        return zt_expect(__func__, false, "cannot start the threads");
    pthread_join(threads[0], NULL);
    pthread_join(threads[1], NULL);
    char expected[512];
    snprintf(expected, sizeof expected,
             "c24#1:98 d28#1:98:p0 c24#2:55 d28#2:55:p1 d29#1:98:p0=0 c25#1:98 c24#3:%u d28#3:%u:p2 "
             "c24#4:%u d28#4:%u:p3 d29#4:%u:p3=0 c25#4:%u d29#2:55:p1=0 c25#2:55 d29#3:%u:p2=0 c25#3:%u",
             ZX_FN_zeContextCreate, ZX_FN_zeContextCreate, ZX_FN_zeDriverGet, ZX_FN_zeDriverGet, ZX_FN_zeDriverGet,
             ZX_FN_zeDriverGet, ZX_FN_zeContextCreate, ZX_FN_zeContextCreate);
    return zt_expect_trace(__func__, expected);
}

int main(void) {
    int failed = nested_calls_pair_inside_their_outer_call();
    failed |= call_from_a_callback_nests_in_the_notifying_call();
    failed |= missing_inner_epilogue_is_popped_by_the_outer_end();
    failed |= call_deeper_than_the_stack_is_not_traced();
    failed |= debug_stream_not_listened_gets_no_notification();
    failed |= untraced_calls_leave_the_slot_empty();
    failed |= threads_interleaved_keep_their_own_stacks();
    puts(failed ? "test_zx_calls: FAILED" : "test_zx_calls: calls nest and pair per thread");
    return failed;
}
