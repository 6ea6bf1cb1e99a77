/* The per-call path: every traced function's prologue and epilogue come here.
 *
 * Each call gets a frame on a per-thread stack, handed from the prologue to the epilogue through the tracer's
 * instance slot, and a correlation id from xptiGetUniqueId shared by all its notifications. Nested calls (a call made
 * while another is traced on the same thread) get frames of their own, so their begin and end stay paired. Order of
 * notifications: at begin call stream, debug stream, hook (mem_alloc, graph); at end the reverse, so that the streams
 * nest like the calls do. Every notification is guarded by xptiCheckTraceEnabled. */
#include "zx_emitter.h"

#define ZX_STACK_DEPTH 16

static _Thread_local zx_call zx_stack[ZX_STACK_DEPTH];
static _Thread_local unsigned zx_depth;

static void zx_notify_begin(const zx_ctx *ctx, zx_call *call) {
    if (zx_wants(ctx, ZX_S_CALL, ZX_TP_FUNCTION_BEGIN))
        zx_notify(ctx, ZX_S_CALL, ZX_TP_FUNCTION_BEGIN, NULL, NULL, call->id, call->fwa.function_name);
    if (zx_wants(ctx, ZX_S_DEBUG, ZX_TP_FUNCTION_WITH_ARGS_BEGIN))
        zx_notify(ctx, ZX_S_DEBUG, ZX_TP_FUNCTION_WITH_ARGS_BEGIN, NULL, NULL, call->id, &call->fwa);
}

/* Subscribers built with older headers register 31 for function_with_args_end. The framework takes 31 (another
 * type in its current headers) only with an object, so it goes with one event made at start, and only when nobody
 * listens to 29: as the SYCL runtime's emitters, one end per call, of the type the subscribers know. */
void zx_calls_start(zx_ctx *ctx) {
    if (!zx_wants(ctx, ZX_S_DEBUG, ZX_TP_FUNCTION_WITH_ARGS_END_OLD))
        return;
    zx_xpti_payload payload = {.name = "function_with_args", .flags = ZX_PAYLOAD_NAME};
    uint64_t instance;
    ctx->old_end = ctx->fw.xptiMakeEvent(payload.name, &payload, ZX_ET_ALGORITHM, ZX_ACTIVITY_ACTIVE, &instance);
}

static void zx_notify_end(const zx_ctx *ctx, zx_call *call) {
    call->fwa.ret_data = &call->result;
    bool new_end = zx_wants(ctx, ZX_S_DEBUG, ZX_TP_FUNCTION_WITH_ARGS_END);
    if (new_end)
        zx_notify(ctx, ZX_S_DEBUG, ZX_TP_FUNCTION_WITH_ARGS_END, NULL, NULL, call->id, &call->fwa);
    if (!new_end && ctx->old_end != NULL && zx_wants(ctx, ZX_S_DEBUG, ZX_TP_FUNCTION_WITH_ARGS_END_OLD))
        zx_notify(ctx, ZX_S_DEBUG, ZX_TP_FUNCTION_WITH_ARGS_END_OLD, NULL, ctx->old_end, call->id, &call->fwa);
    if (zx_wants(ctx, ZX_S_CALL, ZX_TP_FUNCTION_END))
        zx_notify(ctx, ZX_S_CALL, ZX_TP_FUNCTION_END, NULL, NULL, call->id, call->fwa.function_name);
}

/* A call deeper than the stack is not traced at all (neither begin nor end), rather than half traced. */
void zx_call_begin(uint32_t fn, void *params, void **instance) {
    const zx_ctx *ctx = zx_ctx_get();
    const zx_function_info *info = zx_function_by_id(fn);
    if (ctx == NULL || info == NULL || zx_depth == ZX_STACK_DEPTH)
        return;
    zx_call *call = &zx_stack[zx_depth++];
    call->ctx = ctx;
    call->id = ctx->fw.xptiGetUniqueId();
    call->fn = fn;
    call->params = params;
    call->result = ZE_RESULT_SUCCESS;
    call->fwa = (zx_function_with_args){fn, info->name, params, NULL, NULL};
    call->text[0] = '\0';
    call->wait = NULL;
    *instance = call;
    zx_notify_begin(ctx, call);
    if (zx_hooks[fn].begin != NULL)
        zx_hooks[fn].begin(call);
}

void zx_call_end(ze_result_t result, void **instance) {
    zx_call *call = *instance;
    if (call == NULL)
        return;
    call->result = result;
    if (zx_hooks[call->fn].end != NULL)
        zx_hooks[call->fn].end(call);
    zx_notify_end(call->ctx, call);
    zx_depth = (unsigned)(call - zx_stack); /* pops this frame and any a missing epilogue left above it */
}
