/* The decoded form of one kernel -> LLVM IR (docs/spirv-execution.md, "Compiled tier").
 *
 * Each function of the form becomes an internal LLVM function that runs one work-item:
 *     i1 f(i8* rt, i64* counts, i64* item, i8* args, i8* ret)      (true: the work-item faulted)
 * Its registers live in one byte array (the frame, an alloca) addressed by the operands' per-lane offsets, exactly as
 * in the interpreter's frame with one lane: every instruction loads its operands from it and stores its result into
 * it, and LLVM's SROA turns the array into SSA values. Constants come from a constant global with the form's constant
 * bytes (so LLVM folds them), relocations from the run-time state, built-in values are computed from the work-item's
 * ids. The external function zf_cx_wave(rt) runs the kernel's entry function for every work-item of a wave, group by
 * group, in loops over local ids.
 *
 * Memory accesses are checked: a pointer whose every definition derives from kernel argument k (provenance, found by
 * a fixpoint over the entry function) is compared with k's allocation (zf_cx_window, loop-invariant, so the compare is
 * one subtraction and one branch, and the access an offset from the window's base); any other pointer, and any access
 * the compare refuses, goes through zf_cx_mem, the interpreter's check and fault. Instructions that compute from their
 * operands alone and are not hot enough to deserve inline code run the interpreter's handler on one work-item
 * (zf_cx_pure). What the tier does not compile is refused with a reason (zf_cx_check_inst) and the kernel runs in the
 * interpreter. */
#include "cx_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void zf_cx_fail(zf_cx_em *e, const char *format, ...) {
    if (e->failed)
        return;
    e->failed = true;
    va_list args;
    va_start(args, format);
    vsnprintf(e->why, e->why_size, format, args);
    va_end(args);
}

/* ------------------------------------------------------------------------------------------------------------------
 * What is compiled */

bool zf_cx_is_pure(uint32_t op) {
    switch (op) {
    case ZF_X_SPLAT:
    case ZF_X_VEXTRACT:
    case ZF_X_VINSERT:
    case ZF_X_SHUFFLE:
    case ZF_X_SELECT:
    case ZF_X_SELECTV:
    case ZF_X_CONV:
    case ZF_X_DOT:
    case ZF_X_EXT:
    case ZF_X_EXTV:
    case ZF_X_XSHUFFLE:
    case ZF_X_PTRDIFF:
    case ZF_X_GCAST: /* which storage an address is in: the interpreter's lookup, no access */
    case ZF_X_GETFENCE:
        return true;
    default:
        return op >= ZF_X_IADD && op <= ZF_X_ALL;
    }
}

/* Instructions run by the interpreter's handler on the one work-item (zf_cx_lane_op). */
static bool zf_cx_is_lane_op(uint32_t op) {
    return op == ZF_X_IMAGE || op == ZF_X_SGBLOCK || op == ZF_X_IMGBLOCK || op == ZF_X_VLOAD || op == ZF_X_VSTORE ||
           op == ZF_X_EXTP || op == ZF_X_ITT;
}

/* NULL when the tier compiles the instruction, else why not. */
static const char *zf_cx_check_inst(const zf_dprog *code, const zf_dinst *in) {
    switch (in->op) {
    case ZF_X_NOP:
    case ZF_X_MOV:
    case ZF_X_EXTRACT:
    case ZF_X_INSERT:
    case ZF_X_GATHER:
    case ZF_X_ACCESS:
    case ZF_X_BR:
    case ZF_X_BRC:
    case ZF_X_SWITCH:
    case ZF_X_RET:
    case ZF_X_RETV:
    case ZF_X_UNREACHABLE:
    case ZF_X_FENCE:
    case ZF_X_VAR:
    case ZF_X_BARRIER: /* in the entry function, without private variables: zf_cx_reach */
        return NULL;
    case ZF_X_LOAD:
    case ZF_X_STORE:
    case ZF_X_STOREZ:
    case ZF_X_COPYMEM:
    case ZF_X_COPYMEMN:
        return NULL;
    case ZF_X_ATOMIC:
        return in->aux < ZF_ATOM_COUNT &&
                       (in->dst == ZF_REF_NONE || in->size == 1 || in->size == zf_etype_size(in->type))
                   ? NULL
                   : "an atomic result of another size";
    case ZF_X_CALL: {
        const zf_dfunc *callee = &code->funcs[code->aux[in->aux]];
        return (callee->flags & ZF_FUNC_HAS_BODY) ? NULL : "a call of a function without a body";
    }
    case ZF_X_CALLP: /* and no function of the program it may call waits at a barrier: zf_cx_check_visit */
        return in->size > ZF_CX_SCRATCH_SLOT ? "a call through a function pointer with a result larger than 256 bytes"
                                             : NULL;
    case ZF_X_PRINTF:
    case ZF_X_ASYNCCOPY:
        return NULL;
    default:
        break;
    }
    if (zf_cx_is_pure(in->op) || zf_cx_is_lane_op(in->op) || zf_cx_exchanges(in->op)) {
        zf_operand_sizes s;
        if (!zf_cx_sizes(code, in, &s) || s.dst > ZF_CX_SCRATCH_SLOT || s.a > ZF_CX_SCRATCH_SLOT ||
            s.b > ZF_CX_SCRATCH_SLOT || s.c > ZF_CX_SCRATCH_SLOT)
            return "an operand larger than 256 bytes";
        return NULL;
    }
    return zf_xop_name(in->op);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Control flow */

/* Whether the unchecked copy computes register r before the phi copies would write it (zf_cx_remat_phis). */
static bool zf_cx_remade(const zf_cx_em *e, zf_ref r) {
    for (uint32_t k = 0; e->mode == ZF_CX_UNCHECKED && k < e->num_remat; k++)
        if (e->remat[k].dst == r)
            return true;
    return false;
}

static void zf_cx_copies(zf_cx_em *e, uint32_t first, uint32_t count) {
    for (uint32_t i = 0; i < count; i++) {
        const zf_dcopy *c = &e->code->copies[first + i];
        if (e->mode == ZF_CX_STEP)
            zf_cx_step_move(e, c->dst, c->src, c->size);
        else if (!zf_cx_remade(e, c->dst)) /* the same value, made where it dominates: no phi for LLVM to merge */
            zf_cx_move(e, zf_cx_dst(e, c->dst), zf_cx_reg(e, c->src, c->size), c->size);
    }
}

/* A block that makes an edge's copies and goes to its target. */
static LLVMBasicBlockRef zf_cx_edge(zf_cx_em *e, uint32_t edge) {
    LLVMBasicBlockRef here = LLVMGetInsertBlock(e->b);
    LLVMBasicBlockRef bb = LLVMAppendBasicBlockInContext(e->c, e->f, "edge");
    const zf_dedge *ed = &e->code->edges[edge];
    LLVMPositionBuilderAtEnd(e->b, bb);
    zf_cx_copies(e, ed->copy_first, ed->copy_count);
    LLVMBuildBr(e->b, e->bbs[ed->target]);
    LLVMPositionBuilderAtEnd(e->b, here);
    return bb;
}

static void zf_cx_switch(zf_cx_em *e, const zf_dinst *in) {
    const uint32_t *aux = e->code->aux + in->aux;
    uint32_t bytes = zf_etype_size(in->type);
    LLVMTypeRef t = LLVMIntTypeInContext(e->c, 8 * bytes);
    LLVMValueRef v = zf_cx_load_ir(e, t, zf_cx_reg(e, in->a, bytes));
    uint64_t mask = bytes < 8 ? (1ull << (8 * bytes)) - 1 : UINT64_MAX;
    LLVMBasicBlockRef here = LLVMGetInsertBlock(e->b);
    LLVMBasicBlockRef def = zf_cx_edge(e, aux[1]);
    LLVMPositionBuilderAtEnd(e->b, here);
    LLVMValueRef sw = LLVMBuildSwitch(e->b, v, def, aux[0]);
    for (uint32_t i = 0; i < aux[0]; i++) {
        const uint32_t *c = aux + 2 + 3 * i;
        uint64_t literal = ((uint64_t)c[1] << 32 | c[0]) & mask;
        bool seen = false; /* the first case of a value wins, as in the interpreter */
        for (uint32_t j = 0; j < i; j++) {
            const uint32_t *p = aux + 2 + 3 * j;
            seen |= (((uint64_t)p[1] << 32 | p[0]) & mask) == literal;
        }
        if (!seen)
            LLVMAddCase(sw, LLVMConstInt(t, literal, false), zf_cx_edge(e, c[2]));
    }
}

/* ------------------------------------------------------------------------------------------------------------------
 * Instructions and blocks */

void zf_cx_inst(zf_cx_em *e, const zf_dinst *in) {
    if (e->mode == ZF_CX_PROBE && !zf_cx_probe_inst(e, in))
        return;
    if (e->mode == ZF_CX_UNCHECKED && zf_cx_unchecked_widening(e, in, UINT32_MAX))
        return;
    switch (in->op) {
    case ZF_X_NOP:
        return;
    case ZF_X_MOV:
        zf_cx_move(e, zf_cx_dst(e, in->dst), zf_cx_reg(e, in->a, in->size), in->size);
        return;
    case ZF_X_EXTRACT:
        zf_cx_move(e, zf_cx_dst(e, in->dst), zf_cx_gep(e, zf_cx_reg(e, in->a, in->asize), in->aux), in->size);
        return;
    case ZF_X_INSERT: {
        LLVMValueRef d = zf_cx_dst(e, in->dst);
        zf_cx_move(e, d, zf_cx_reg(e, in->a, in->asize), in->asize);
        zf_cx_move(e, zf_cx_gep(e, d, in->aux), zf_cx_reg(e, in->b, in->size), in->size);
        return;
    }
    case ZF_X_GATHER:
        zf_cx_gather(e, in);
        return;
    case ZF_X_SELECT:
        zf_cx_select(e, in);
        return;
    case ZF_X_ACCESS:
        zf_cx_address(e, in);
        return;
    case ZF_X_LOAD:
    case ZF_X_STORE:
    case ZF_X_STOREZ:
        zf_cx_memory(e, in);
        return;
    case ZF_X_COPYMEM:
    case ZF_X_COPYMEMN:
        zf_cx_copy_inst(e, in);
        return;
    case ZF_X_ATOMIC:
        zf_cx_atomic(e, in);
        return;
    case ZF_X_FENCE:
        LLVMBuildFence(e->b, LLVMAtomicOrderingSequentiallyConsistent, false, "");
        return;
    case ZF_X_BR: {
        const zf_dedge *ed = &e->code->edges[in->aux];
        zf_cx_copies(e, ed->copy_first, ed->copy_count);
        LLVMBuildBr(e->b, e->bbs[ed->target]);
        return;
    }
    case ZF_X_BRC: {
        LLVMValueRef cond = LLVMBuildICmp(e->b, LLVMIntNE, zf_cx_load_ir(e, e->i8, zf_cx_reg(e, in->a, 1)),
                                          LLVMConstInt(e->i8, 0, false), "");
        LLVMBasicBlockRef t = zf_cx_edge(e, in->aux), f = zf_cx_edge(e, in->aux + 1);
        LLVMBuildCondBr(e->b, cond, t, f);
        return;
    }
    case ZF_X_SWITCH:
        zf_cx_switch(e, in);
        return;
    case ZF_X_RETV: /* no more than the caller's buffer holds */
        zf_cx_move(e, e->ret, zf_cx_reg(e, in->a, in->size), in->size < e->fn->ret_size ? in->size : e->fn->ret_size);
        zf_cx_return(e, false);
        return;
    case ZF_X_RET:
        zf_cx_return(e, false);
        return;
    case ZF_X_VAR:
        zf_cx_var(e, in);
        return;
    case ZF_X_BARRIER:
        zf_cx_barrier(e);
        return;
    case ZF_X_UNREACHABLE:
        zf_cx_unreachable_inst(e);
        return;
    case ZF_X_CALL:
        zf_cx_call_inst(e, in);
        return;
    case ZF_X_CALLP:
    case ZF_X_PRINTF:
    case ZF_X_ASYNCCOPY:
        zf_cx_list_inst(e, in);
        return;
    case ZF_X_GROUP:
    case ZF_X_SGSHUFFLE:
        zf_cx_exchange_inst(e, in);
        return;
    case ZF_X_IMAGE:
        zf_cx_image_access(e, in);
        return;
    case ZF_X_VLOAD:
    case ZF_X_VSTORE:
        if (!zf_cx_vector_memory(e, in))
            zf_cx_lane_call(e, in);
        return;
    default:
        if (zf_cx_is_lane_op(in->op))
            zf_cx_lane_call(e, in);
        else if (!zf_cx_typed(e, in))
            zf_cx_pure_call(e, in);
        return;
    }
}

/* The unchecked copy's phis of one computation (cx_emit_hoist.c): computed again into the phi's register before the
 * terminator of the block that dominates where they land. */
static void zf_cx_remat_phis(zf_cx_em *e, uint32_t block) {
    for (uint32_t r = 0; e->mode == ZF_CX_UNCHECKED && r < e->num_remat; r++) {
        if (e->remat[r].block != block)
            continue;
        zf_dinst again = e->code->insts[e->remat[r].inst];
        again.dst = e->remat[r].dst;
        if (!zf_cx_unchecked_widening(e, &again, e->remat[r].inst))
            zf_cx_inst(e, &again);
    }
}

/* Block entry: the hang detector at loop heads, the block's counter, the phi commits. */
static void zf_cx_block_entry(zf_cx_em *e, uint32_t b, bool loop_head) {
    LLVMBuilderRef B = e->b;
    if (e->mode == ZF_CX_PROBE) { /* it counts no block, and makes only the phi copies of one value */
        const zf_dblock *blk = &e->code->blocks[e->fn->block_first + b];
        zf_cx_probe_copies(e, blk->commit_first, blk->commit_count);
        return;
    }
    if (loop_head) {
        LLVMValueRef index = LLVMConstInt(e->i32, ZF_CX_ITEM_COUNT, false);
        LLVMValueRef budget = LLVMBuildGEP2(B, e->i64, e->item, &index, 1, "");
        LLVMValueRef left = LLVMBuildSub(B, LLVMBuildLoad2(B, e->i64, budget, ""), zf_cx_i64c(e, 1), "");
        LLVMBuildStore(B, left, budget);
        LLVMBasicBlockRef poll = LLVMAppendBasicBlockInContext(e->c, e->f, "poll");
        LLVMBasicBlockRef go = LLVMAppendBasicBlockInContext(e->c, e->f, "go");
        LLVMBuildCondBr(B, LLVMBuildICmp(B, LLVMIntEQ, left, zf_cx_i64c(e, 0), ""), poll, go);
        LLVMPositionBuilderAtEnd(B, poll);
        LLVMTypeRef params[2] = {e->p8, e->i64};
        LLVMValueRef args[2] = {e->rt, e->lane};
        bool step = e->mode == ZF_CX_STEP; /* the copy in step leaves, and the work-items one by one look at once */
        LLVMValueRef stop = step ? zf_cx_call(e, ZF_CX_HELPER(zf_cx_deadline), e->i32, params, 1, args)
                                 : zf_cx_call(e, ZF_CX_HELPER(zf_cx_poll), e->i32, params, 2, args);
        LLVMValueRef stops = LLVMBuildICmp(B, LLVMIntNE, stop, LLVMConstInt(e->i32, 0, false), "");
        LLVMValueRef period = zf_cx_load_ir(e, e->i64, zf_cx_gep(e, e->rt, offsetof(zf_cx_rt, poll_period)));
        LLVMBuildStore(B, step ? LLVMBuildSelect(B, stops, zf_cx_i64c(e, 1), period, "") : period, budget);
        LLVMBuildCondBr(B, stops, e->fault_bb, go);
        e->leaves = true;
        LLVMPositionBuilderAtEnd(B, go);
    }
    /* The unchecked copy's counters are 32-bit (cx_emit_count.c): a work-item enters each of its blocks once at most.
     */
    LLVMTypeRef t = e->mode == ZF_CX_UNCHECKED ? e->i32 : e->i64;
    LLVMValueRef index = zf_cx_i64c(e, e->cur);
    LLVMValueRef counter =
        LLVMBuildGEP2(B, t, LLVMBuildBitCast(B, e->counts, LLVMPointerType(t, 0), ""), &index, 1, "");
    LLVMValueRef counted =
        LLVMBuildStore(B,
                       LLVMBuildAdd(B, LLVMBuildLoad2(B, t, counter, ""),
                                    LLVMConstInt(t, e->mode == ZF_CX_STEP ? e->step_lanes : 1, false), ""),
                       counter);
    if (e->count_stores != NULL)
        e->count_stores[b] = counted;
    const zf_dblock *blk = &e->code->blocks[e->fn->block_first + b];
    zf_cx_copies(e, blk->commit_first, blk->commit_count);
}

/* Whether an edge of the function goes back to block b (or to itself): b heads a loop. */
static bool zf_cx_edge_back(const zf_cx_em *e, uint32_t from, uint32_t edge) {
    return e->code->edges[edge].target <= from;
}

bool *zf_cx_loop_heads(zf_cx_em *e) {
    const zf_dfunc *fn = e->fn;
    bool *heads = calloc(fn->block_count ? fn->block_count : 1, sizeof *heads);
    if (heads == NULL)
        return NULL;
    for (uint32_t b = 0; b < fn->block_count; b++) {
        const zf_dblock *blk = &e->code->blocks[fn->block_first + b];
        const zf_dinst *in = &e->code->insts[blk->first + blk->count - 1];
        uint32_t edges[2] = {in->aux, in->aux + 1}, n = in->op == ZF_X_BR ? 1 : in->op == ZF_X_BRC ? 2 : 0;
        for (uint32_t k = 0; k < n; k++)
            if (zf_cx_edge_back(e, b, edges[k]))
                heads[e->code->edges[edges[k]].target] = true;
        const uint32_t *aux = in->op == ZF_X_SWITCH ? e->code->aux + in->aux : NULL;
        for (uint32_t k = 0; aux != NULL && k <= aux[0]; k++) {
            uint32_t edge = k == aux[0] ? aux[1] : aux[2 + 3 * k + 2];
            if (zf_cx_edge_back(e, b, edge))
                heads[e->code->edges[edge].target] = true;
        }
    }
    return heads;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Functions */

/* The function's first blocks: its allocas, then the start (ids, windows, a resuming work-item's dispatch, the
 * parameters), which it returns. */
static LLVMBasicBlockRef zf_cx_function_start(zf_cx_em *e, uint32_t fi) {
    const zf_dfunc *fn = &e->code->funcs[fi];
    e->fn = fn;
    e->is_entry = fi == e->kernel->function;
    e->f = e->fns[fi];
    e->rt = LLVMGetParam(e->f, 0);
    e->counts = LLVMGetParam(e->f, 1);
    e->item = LLVMGetParam(e->f, 2);
    e->args = LLVMGetParam(e->f, 3);
    e->ret = LLVMGetParam(e->f, 4);
    LLVMBasicBlockRef allocas = LLVMAppendBasicBlockInContext(e->c, e->f, "allocas");
    LLVMPositionBuilderAtEnd(e->eb, allocas);
    LLVMBasicBlockRef start = LLVMAppendBasicBlockInContext(e->c, e->f, "start");
    LLVMPositionBuilderAtEnd(e->b, start);
    e->frame = zf_cx_alloca(e, fn->frame_bytes);
    e->scratch = zf_cx_alloca(e, 4 * ZF_CX_SCRATCH_SLOT);
    e->lane = zf_cx_item(e, ZF_CX_ITEM_LANE);
    if (e->mode == ZF_CX_STEP)
        zf_cx_step_start(e);
    e->priv = e->mark = NULL;
    if (e->mode == ZF_CX_PROBE) {
        e->probe_bad = LLVMBuildAlloca(e->eb, e->i1, "");
        LLVMBuildStore(e->b, LLVMConstInt(e->i1, 0, false), e->probe_bad);
    }
    if (e->mode == ZF_CX_UNCHECKED)
        zf_cx_unchecked_sites(e);
    bool resumable = e->barriers && e->resumable[fi];
    e->record = NULL;
    if (resumable) { /* based on a loaded pointer rather than made of an integer: LLVM tells it from other memory */
        LLVMValueRef at = zf_cx_item(e, ZF_CX_ITEM_SPILL);
        e->record = LLVMBuildGEP2(e->b, e->i8, zf_cx_rt_field(e, offsetof(zf_cx_rt, spill), e->p8), &at, 1, "");
    }
    if (zf_cx_has_vars(e->code, fn) && resumable) {
        /* A function that may wait keeps its variables in the work-item's record, and their slots until the end of
         * the group (zf_cx_group_regions): other work-items run while it waits, so slots are not freed in call order */
        e->priv = zf_cx_gep(e, e->record, e->private_at[fi]);
    } else if (zf_cx_has_vars(e->code, fn)) {
        e->priv = zf_cx_alloca(e, fn->private_bytes);
        LLVMTypeRef p8 = e->p8;
        e->mark = zf_cx_call(e, ZF_CX_HELPER(zf_cx_slots_mark), e->i64, &p8, 1, &e->rt);
    }
    /* Every kernel argument's window (the optimizer drops those no access uses). */
    LLVMValueRef wins = zf_cx_rt_field(e, offsetof(zf_cx_rt, win), e->p8);
    for (uint32_t k = 0; k < e->num_kinds; k++) {
        e->win_base[k] = zf_cx_load_invariant(e, e->p8, zf_cx_gep(e, wins, sizeof(zf_cx_window) * k));
        e->win_lo[k] = LLVMBuildPtrToInt(e->b, e->win_base[k], e->i64, "");
        e->win_span[k] = zf_cx_load_invariant(e, e->i64, zf_cx_gep(e, wins, sizeof(zf_cx_window) * k + 8));
    }
    e->win_base[e->num_kinds] = zf_cx_rt_field(e, offsetof(zf_cx_rt, local), e->p8);
    e->win_lo[e->num_kinds] = LLVMBuildPtrToInt(e->b, e->win_base[e->num_kinds], e->i64, "");
    e->win_span[e->num_kinds] = zf_cx_rt_field(e, offsetof(zf_cx_rt, local_span), e->i64);
    e->dispatch = NULL;
    if (e->barriers && e->resumable[fi]) { /* a work-item resuming goes to its resume point */
        e->resumes = 0;
        LLVMValueRef resuming = LLVMBuildICmp(e->b, LLVMIntEQ, zf_cx_item(e, ZF_CX_ITEM_STATE), zf_cx_i64c(e, 1), "");
        LLVMValueRef point = zf_cx_load_ir(e, e->i32, zf_cx_gep(e, e->record, e->resume_at[fi]));
        point = LLVMBuildSelect(e->b, resuming, point, LLVMConstInt(e->i32, 0, false), "");
        uint32_t sub = 0;
        if (e->region != UINT32_MAX) /* a path's copy: the optimizer keeps only what its resume point reaches */
            point = LLVMConstInt(e->i32, zf_cx_path_point(e, fi, e->region, &sub), false);
        LLVMBasicBlockRef fresh = LLVMAppendBasicBlockInContext(e->c, e->f, "fresh");
        e->dispatch = LLVMBuildSwitch(e->b, point, fresh, 4);
        LLVMPositionBuilderAtEnd(e->b, fresh);
    }
    uint64_t at = 0;
    for (uint32_t k = 0; k < fn->param_count; k++) {
        const zf_dparam *p = &e->code->params[fn->param_first + k];
        zf_cx_move(e, zf_cx_dst(e, p->ref), zf_cx_gep(e, e->args, at), p->size);
        at += p->size;
    }
    return start;
}

/* Whether bail points pay in the kernel's regions: where the accesses of its functions that may wait are many (at
 * least 8 for each barrier or call that may wait, on average), a region's code then runs without slow paths to merge
 * back; in a few instructions between barriers the saves cost more than the merges they spare. One choice for the
 * kernel, as a caller must pass on its callee's bailing. */
static bool zf_cx_bails_pay(const zf_cx_em *e) {
    if (!e->barriers || e->num_regions == 0)
        return false;
    uint32_t accesses = 0, waits = 0;
    for (uint32_t f = 0; f < e->code->num_funcs; f++) {
        const zf_dfunc *fn = &e->code->funcs[f];
        for (uint32_t b = 0; e->fns[f] != NULL && e->resumable[f] && b < fn->block_count; b++) {
            const zf_dblock *blk = &e->code->blocks[fn->block_first + b];
            for (uint32_t i = blk->first; i < blk->first + blk->count; i++) {
                const zf_dinst *in = &e->code->insts[i];
                accesses += in->op == ZF_X_LOAD || in->op == ZF_X_STORE || in->op == ZF_X_STOREZ;
                waits += zf_cx_waits(in->op) || (in->op == ZF_X_CALL && e->resumable[e->code->aux[in->aux]]);
            }
        }
    }
    return accesses >= 8u * (waits + 1u);
}

void zf_cx_function_body(zf_cx_em *e, uint32_t fi) {
    LLVMBasicBlockRef start = zf_cx_function_start(e, fi);
    const zf_dfunc *fn = e->fn;
    e->bbs = calloc(fn->block_count ? fn->block_count : 1, sizeof *e->bbs);
    bool *heads = zf_cx_loop_heads(e);
    e->count_stores =
        e->mode == ZF_CX_UNCHECKED ? calloc(fn->block_count ? fn->block_count : 1, sizeof(LLVMValueRef)) : NULL;
    if (e->bbs == NULL || heads == NULL || (e->mode == ZF_CX_UNCHECKED && e->count_stores == NULL)) {
        zf_cx_fail(e, "out of host memory");
        free(e->bbs);
        free(heads);
        free(e->count_stores);
        e->count_stores = NULL;
        return;
    }
    zf_cx_provenance(e, fi);
    e->live_in = NULL;
    e->written = NULL;
    if (e->barriers && e->resumable[fi] && !zf_cx_liveness(e)) {
        free(e->live_in);
        e->live_in = NULL;
    }
    uint32_t sub = 0, point = e->region != UINT32_MAX ? zf_cx_path_point(e, fi, e->region, &sub) : 0;
    if (e->live_in != NULL && point > 0)
        zf_cx_region_writes(e, point);
    for (uint32_t b = 0; b < fn->block_count; b++)
        e->bbs[b] = LLVMAppendBasicBlockInContext(e->c, e->f, "block");
    e->fault_bb = LLVMAppendBasicBlockInContext(e->c, e->f, "fault");
    e->leaves = false;
    LLVMBuildBr(e->b, e->bbs[0]);
    zf_cx_fault_edges_close(e); /* a fault before the first block moved nothing the table counts */
    /* Bail points in the functions that may wait of a kernel run region by region: their regions' copies leave at
     * them, their generic functions resume there (zf_cx_bail). */
    bool regions = e->bails_pay && e->resumable[fi] && e->mode == ZF_CX_CHECKED;
    e->bails = (regions && e->region != UINT32_MAX) || e->mode == ZF_CX_STEP; /* the copy in step bails too */
    e->bail_resumes = regions && e->region == UINT32_MAX;
    for (uint32_t b = 0; b < fn->block_count && !e->failed; b++) {
        e->cur = e->block_base[fi] + b;
        LLVMPositionBuilderAtEnd(e->b, e->bbs[b]);
        zf_cx_block_entry(e, b, heads[b]);
        const zf_dblock *blk = &e->code->blocks[fn->block_first + b];
        e->blk = b;
        for (uint32_t i = 0; i < blk->count && !e->failed; i++) {
            e->idx = i;
            if (i + 1 == blk->count)
                zf_cx_remat_phis(e, fn->block_first + b);
            if (e->bail_resumes && zf_cx_bail_point(e, &e->code->insts[blk->first + i]))
                zf_cx_bail_resume(e);
            if (e->mode == ZF_CX_STEP)
                zf_cx_step_inst(e, &e->code->insts[blk->first + i]);
            else
                zf_cx_inst(e, &e->code->insts[blk->first + i]);
        }
        zf_cx_fault_edges_close(e);
    }
    e->bails = e->bail_resumes = false;
    if (e->mode == ZF_CX_UNCHECKED)
        e->unchecked_leaves |= e->leaves;
    if (e->count_stores != NULL && !e->failed)
        zf_cx_count_derive(e, e->count_stores);
    free(e->count_stores);
    e->count_stores = NULL;
    LLVMPositionBuilderAtEnd(e->b, e->fault_bb);
    zf_cx_return(e, true);
    LLVMBuildBr(e->eb, start);
    free(e->bbs);
    free(heads);
    free(e->live_in);
    e->live_in = NULL;
    free(e->written);
    e->written = NULL;
}

/* A function as its generic form. */
static void zf_cx_function(zf_cx_em *e, uint32_t fi) {
    e->region = UINT32_MAX;
    e->counting = true;
    zf_cx_function_body(e, fi);
}

/* The state's parameters are whole states: reads of its fields may then be hoisted out of conditional code too. */
static void zf_cx_state_param(zf_cx_em *e, LLVMValueRef fn, unsigned index) {
    unsigned kind = LLVMGetEnumAttributeKindForName("dereferenceable", 15);
    LLVMAddAttributeAtIndex(fn, index, LLVMCreateEnumAttribute(e->c, kind, sizeof(zf_cx_rt)));
}

/* A generated function of the kernel, internal to its module. */
LLVMValueRef zf_cx_new_function(zf_cx_em *e, const char *name) {
    LLVMValueRef fn = LLVMAddFunction(e->m, name, e->fn_type);
    LLVMSetLinkage(fn, LLVMInternalLinkage);
    zf_cx_state_param(e, fn, 1);
    return fn;
}

LLVMValueRef zf_cx_copy_of(zf_cx_em *e, uint32_t f, uint32_t p) {
    if (e->copies[f][p] != NULL)
        return e->copies[f][p];
    char name[48];
    snprintf(name, sizeof name, "zf_cx_f%u_path%u", f, p);
    LLVMValueRef fn = zf_cx_new_function(e, name);
    e->copies[f][p] = fn;
    e->pending[e->num_pending++] = (uint64_t)f << 32 | p;
    return fn;
}

uint32_t zf_cx_path_point(const zf_cx_em *e, uint32_t f, uint32_t p, uint32_t *callee_path) {
    *callee_path = 0;
    uint32_t k = 0;
    for (uint32_t j = 1; p > 0 && e->path_base[f][j] <= p; j++) /* the last point whose paths start at or before p */
        k = j;
    if (k > 0 && e->point_callee[f][k] != UINT32_MAX)
        *callee_path = p - e->path_base[f][k] + 1;
    return k;
}

/* The entry function's copy for every region, and the copies of callees those reach. */
static void zf_cx_regions(zf_cx_em *e) {
    uint32_t entry = e->kernel->function;
    for (uint32_t p = 0; p < e->num_regions; p++)
        zf_cx_copy_of(e, entry, p);
    e->counting = false; /* the block table counted the generic functions' accesses */
    while (e->num_pending > 0 && !e->failed) {
        uint64_t job = e->pending[--e->num_pending];
        uint32_t f = (uint32_t)(job >> 32);
        LLVMValueRef generic = e->fns[f];
        e->fns[f] = e->copies[f][(uint32_t)job];
        e->region = (uint32_t)job;
        zf_cx_function_body(e, f);
        e->fns[f] = generic;
    }
    e->region = UINT32_MAX;
    e->counting = true;
}

/* Counts the resume points of every resumable function as zf_cx_function_body numbers them (barriers and calls of
 * resumable functions, in block and instruction order), and its paths; order: callees before callers. The copies
 * are made when the entry function has at most ZF_CX_MAX_REGIONS paths (else groups run in rounds). */
#define ZF_CX_MAX_REGIONS 256u

static uint32_t zf_cx_count_points(const zf_cx_em *e, const zf_dfunc *fn) {
    const zf_dprog *code = e->code;
    uint32_t points = 0;
    for (uint32_t i = 0; i < fn->block_count; i++) {
        const zf_dblock *blk = &code->blocks[fn->block_first + i];
        for (uint32_t x = 0; x < blk->count; x++) {
            const zf_dinst *in = &code->insts[blk->first + x];
            points += zf_cx_waits(in->op) || (in->op == ZF_X_CALL && e->resumable[code->aux[in->aux]]);
        }
    }
    return points;
}

static bool zf_cx_function_paths(zf_cx_em *e, uint32_t f) {
    const zf_dprog *code = e->code;
    const zf_dfunc *fn = &code->funcs[f];
    uint32_t points = zf_cx_count_points(e, fn);
    e->path_base[f] = calloc(points + 2, sizeof **e->path_base);
    e->point_callee[f] = calloc(points + 2, sizeof **e->point_callee);
    if (e->path_base[f] == NULL || e->point_callee[f] == NULL)
        return false;
    uint64_t paths = 1;
    uint32_t k = 0;
    for (uint32_t i = 0; i < fn->block_count; i++) {
        const zf_dblock *blk = &code->blocks[fn->block_first + i];
        for (uint32_t x = 0; x < blk->count; x++) {
            const zf_dinst *in = &code->insts[blk->first + x];
            uint32_t callee = in->op == ZF_X_CALL ? code->aux[in->aux] : UINT32_MAX;
            if (!zf_cx_waits(in->op) && (callee == UINT32_MAX || !e->resumable[callee]))
                continue;
            e->path_base[f][++k] = (uint32_t)(paths < UINT32_MAX ? paths : UINT32_MAX - 1);
            e->point_callee[f][k] = callee;
            paths += callee == UINT32_MAX ? 1 : e->paths[callee] - 1;
        }
    }
    e->path_base[f][k + 1] = UINT32_MAX; /* ends the search of zf_cx_path_point */
    e->paths[f] = (uint32_t)(paths < UINT32_MAX ? paths : UINT32_MAX - 1);
    e->copies[f] = calloc(e->paths[f] <= ZF_CX_MAX_REGIONS ? e->paths[f] : 1, sizeof **e->copies);
    return e->copies[f] != NULL;
}

static bool zf_cx_paths(zf_cx_em *e, const uint32_t *order, uint32_t n) {
    const zf_dprog *code = e->code;
    e->paths = calloc(code->num_funcs, sizeof *e->paths);
    e->path_base = calloc(code->num_funcs, sizeof *e->path_base);
    e->point_callee = calloc(code->num_funcs, sizeof *e->point_callee);
    e->copies = calloc(code->num_funcs, sizeof *e->copies);
    if (e->paths == NULL || e->path_base == NULL || e->point_callee == NULL || e->copies == NULL)
        return false;
    uint64_t total = 0;
    for (uint32_t j = 0; j < n; j++) {
        if (e->resumable[order[j]] && !zf_cx_function_paths(e, order[j]))
            return false;
        total += e->paths[order[j]];
    }
    uint32_t regions = e->paths[e->kernel->function];
    e->num_regions = regions <= ZF_CX_MAX_REGIONS ? regions : 0;
    e->pending = calloc(e->num_regions ? total : 1, sizeof *e->pending);
    return e->pending != NULL;
}

static void zf_cx_paths_free(zf_cx_em *e) {
    for (uint32_t f = 0; f < e->code->num_funcs; f++) {
        free(e->path_base != NULL ? e->path_base[f] : NULL);
        free(e->point_callee != NULL ? e->point_callee[f] : NULL);
        free(e->copies != NULL ? e->copies[f] : NULL);
    }
    free(e->paths);
    free(e->path_base);
    free(e->point_callee);
    free(e->copies);
    free(e->pending);
}

/* ------------------------------------------------------------------------------------------------------------------
 * The wave function */

zf_cx_loop zf_cx_loop_begin(zf_cx_em *e, LLVMValueRef n) {
    zf_cx_loop l;
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(e->b);
    l.head = LLVMAppendBasicBlockInContext(e->c, e->f, "head");
    l.body = LLVMAppendBasicBlockInContext(e->c, e->f, "body");
    l.exit = LLVMAppendBasicBlockInContext(e->c, e->f, "exit");
    LLVMBuildBr(e->b, l.head);
    LLVMPositionBuilderAtEnd(e->b, l.head);
    l.i = LLVMBuildPhi(e->b, e->i64, "");
    LLVMValueRef zero = zf_cx_i64c(e, 0);
    LLVMAddIncoming(l.i, &zero, &pre, 1);
    LLVMBuildCondBr(e->b, LLVMBuildICmp(e->b, LLVMIntULT, l.i, n, ""), l.body, l.exit);
    LLVMPositionBuilderAtEnd(e->b, l.body);
    return l;
}

/* Returns the loop's back edge. */
LLVMValueRef zf_cx_loop_end(zf_cx_em *e, zf_cx_loop *l) {
    LLVMValueRef next = LLVMBuildAdd(e->b, l->i, zf_cx_i64c(e, 1), "");
    LLVMBasicBlockRef here = LLVMGetInsertBlock(e->b);
    LLVMValueRef back = LLVMBuildBr(e->b, l->head);
    LLVMAddIncoming(l->i, &next, &here, 1);
    LLVMPositionBuilderAtEnd(e->b, l->exit);
    return back;
}

static LLVMValueRef zf_cx_rt_u64(zf_cx_em *e, size_t offset) {
    return zf_cx_rt_field(e, offset, e->i64);
}

/* The arguments of the entry function for every work-item (values) and for a group (local memory pointers). */
/* The arguments of the entry function: values once per wave, local memory pointers per group (`slot`), pointers to the
 * private copies of by-value arguments per work-item (`lane`): the interpreter's private addresses of the bottom
 * slots, one per such argument in order. */
static void zf_cx_wave_args(zf_cx_em *e, const zf_dfunc *entry, zf_xarg_kind which, LLVMValueRef slot,
                            LLVMValueRef lane) {
    uint64_t at = 0;
    uint32_t byval = 0;
    for (uint32_t k = 0; k < entry->param_count; k++) {
        const zf_dparam *p = &e->code->params[entry->param_first + k];
        zf_xarg_kind kind = k < e->num_kinds ? e->kinds[k] : ZF_XARG_VALUE;
        LLVMValueRef dst = zf_cx_gep(e, e->args, at);
        at += p->size;
        byval += kind == ZF_XARG_BYVAL;
        if (kind != which)
            continue;
        if (kind == ZF_XARG_BYVAL) {
            LLVMValueRef v = LLVMBuildOr(e->b, zf_cx_i64c(e, zf_private_address(byval - 1, 0)),
                                         LLVMBuildShl(e->b, lane, zf_cx_i64c(e, ZF_PRIVATE_OFFSET_BITS), ""), "");
            LLVMValueRef tmp = zf_cx_alloca(e, 8);
            zf_cx_store(e, v, tmp);
            zf_cx_move(e, dst, tmp, p->size < 8 ? p->size : 8);
            continue;
        }
        if (kind == ZF_XARG_VALUE) {
            LLVMValueRef argv = zf_cx_rt_field(e, offsetof(zf_cx_rt, argv), e->p8);
            LLVMValueRef value = zf_cx_load_ir(e, e->p8, zf_cx_gep(e, argv, 8ull * k));
            LLVMBuildMemCpy(e->b, dst, 1, value, 1, zf_cx_i64c(e, p->size));
            continue;
        }
        LLVMValueRef base = LLVMBuildPtrToInt(e->b, zf_cx_rt_field(e, offsetof(zf_cx_rt, local), e->p8), e->i64, "");
        LLVMValueRef offs = zf_cx_rt_field(e, offsetof(zf_cx_rt, local_at), e->p8);
        LLVMValueRef v = LLVMBuildAdd(
            e->b, base,
            LLVMBuildAdd(e->b, LLVMBuildMul(e->b, slot, zf_cx_rt_u64(e, offsetof(zf_cx_rt, local_stride)), ""),
                         zf_cx_load_ir(e, e->i64, zf_cx_gep(e, offs, 8ull * k)), ""),
            "");
        LLVMValueRef tmp = zf_cx_alloca(e, 8);
        zf_cx_store(e, v, tmp);
        zf_cx_move(e, dst, tmp, p->size < 8 ? p->size : 8);
    }
}

/* Kernels with barriers run a group region by region (docs/spirv-execution.md, "How a work-group runs"). A region
 * is the code from a resume point (the start, or right after a barrier) to the next barrier the work-items reach,
 * compiled as a function of its own; the wave runs it as a loop over the group's work-items, each one saving the
 * values it still needs in its record when it reaches the barrier. When every work-item of the group stopped at the
 * same barrier (as OpenCL requires of a barrier in a kernel), that barrier's region runs next; when they stopped at
 * different points (a barrier in divergent control flow, or a fault), the group goes on in rounds of the generic
 * function, each waiting work-item resuming where it waits, until none waits. */
typedef struct zf_cx_group {
    LLVMValueRef next;      /* i64: the region to run next */
    LLVMValueRef generic;   /* i1: the group runs in rounds of the generic function */
    LLVMValueRef exit;      /* i64: where the work-items run so far stopped (ZF_CX_UNSET before the first) */
    LLVMValueRef mixed;     /* i1: they did not all stop at the same point */
    LLVMValueRef waiting;   /* i64: how many wait at a barrier */
    LLVMValueRef started;   /* i1: the work-items' states are set (a first round starts every work-item) */
    LLVMValueRef bailed;    /* i64: the work-item of a region's loop that bailed */
    LLVMValueRef ran;       /* i64: how many a region's loop ran (with `single`) */
    LLVMBasicBlockRef tail; /* where a region's loop goes when one bails (NULL outside them) */
    uint64_t single;        /* a region's loop: the one place its work-items can wait at, else ZF_CX_UNSET */
} zf_cx_group;

/* Where a work-item stopped, besides a resume point of the entry function. */
#define ZF_CX_UNSET  UINT64_MAX
#define ZF_CX_ENDED  (UINT64_MAX - 1)
#define ZF_CX_FAILED (UINT64_MAX - 2)

static LLVMValueRef zf_cx_var_of(zf_cx_em *e, LLVMTypeRef t) {
    return LLVMBuildBitCast(e->b, zf_cx_alloca(e, 8), LLVMPointerType(t, 0), "");
}

/* A work-item's state after its run (waiting, or done) and the count of those waiting; whether it waits. With
 * `waited`, its state says it waits already (the region after a barrier all the group waited at): only a work-item
 * that finishes writes it. */
static LLVMValueRef zf_cx_turn_state(zf_cx_em *e, LLVMValueRef at, LLVMValueRef faulted, const zf_cx_group *g,
                                     bool waited) {
    LLVMBuilderRef B = e->b;
    LLVMValueRef waits =
        LLVMBuildAnd(B, LLVMBuildNot(B, faulted, ""),
                     LLVMBuildICmp(B, LLVMIntEQ, zf_cx_item(e, ZF_CX_ITEM_STATE), zf_cx_i64c(e, 2), ""), "");
    if (waited) {
        LLVMBasicBlockRef ends = LLVMAppendBasicBlockInContext(e->c, e->f, "ends");
        LLVMBasicBlockRef counted = LLVMAppendBasicBlockInContext(e->c, e->f, "counted");
        zf_cx_likely(e, LLVMBuildCondBr(B, waits, counted, ends));
        LLVMPositionBuilderAtEnd(B, ends);
        LLVMBuildStore(B, zf_cx_i64c(e, ZF_CX_DONE), at);
        LLVMBuildBr(B, counted);
        LLVMPositionBuilderAtEnd(B, counted);
    } else {
        LLVMBuildStore(B, LLVMBuildSelect(B, waits, zf_cx_i64c(e, 1), zf_cx_i64c(e, ZF_CX_DONE), ""), at);
    }
    LLVMValueRef count = LLVMBuildLoad2(B, e->i64, g->waiting, "");
    LLVMBuildStore(B, LLVMBuildAdd(B, count, LLVMBuildZExt(B, waits, e->i64, ""), ""), g->waiting);
    return waits;
}

/* What a work-item's run leaves for its group: its state, the count of those waiting, and where it stopped. */
static void zf_cx_turn_end(zf_cx_em *e, LLVMValueRef at, LLVMValueRef faulted, const zf_cx_group *g) {
    LLVMBuilderRef B = e->b;
    LLVMValueRef waits = zf_cx_turn_state(e, at, faulted, g, false);
    LLVMValueRef stopped =
        LLVMBuildSelect(B, waits, zf_cx_item(e, ZF_CX_ITEM_PATH),
                        LLVMBuildSelect(B, faulted, zf_cx_i64c(e, ZF_CX_FAILED), zf_cx_i64c(e, ZF_CX_ENDED), ""), "");
    LLVMValueRef before = LLVMBuildLoad2(B, e->i64, g->exit, "");
    LLVMValueRef differs = LLVMBuildAnd(B, LLVMBuildICmp(B, LLVMIntNE, before, zf_cx_i64c(e, ZF_CX_UNSET), ""),
                                        LLVMBuildICmp(B, LLVMIntNE, before, stopped, ""), "");
    LLVMBuildStore(B, LLVMBuildOr(B, LLVMBuildLoad2(B, e->i1, g->mixed, ""), differs, ""), g->mixed);
    LLVMBuildStore(B, stopped, g->exit);
}

/* The same in a region's loop whose work-items can wait at one place only (g->single): where they stopped follows
 * from the counts after the loop (zf_cx_single_exit), which keeps the comparisons out of the loop. A region after
 * the first runs only when every work-item of the group waited at its barrier (else the group goes on in rounds),
 * so their states say so already. */
static void zf_cx_turn_end_single(zf_cx_em *e, LLVMValueRef at, LLVMValueRef faulted, const zf_cx_group *g,
                                  uint32_t region) {
    LLVMBuilderRef B = e->b;
    zf_cx_turn_state(e, at, faulted, g, region > 0);
    LLVMBuildStore(B, LLVMBuildAdd(B, LLVMBuildLoad2(B, e->i64, g->ran, ""), zf_cx_i64c(e, 1), ""), g->ran);
}

/* After such a loop (or the part of it before a work-item bailed): the place they stopped at and whether they did
 * not all stop there, as zf_cx_turn_end would have left them. */
static void zf_cx_single_exit(zf_cx_em *e, const zf_cx_group *g) {
    LLVMBuilderRef B = e->b;
    LLVMValueRef waiting = LLVMBuildLoad2(B, e->i64, g->waiting, ""), ran = LLVMBuildLoad2(B, e->i64, g->ran, "");
    LLVMValueRef any = LLVMBuildICmp(B, LLVMIntNE, waiting, zf_cx_i64c(e, 0), "");
    LLVMValueRef some = LLVMBuildAnd(B, any, LLVMBuildICmp(B, LLVMIntNE, waiting, ran, ""), "");
    LLVMBuildStore(B, LLVMBuildOr(B, LLVMBuildLoad2(B, e->i1, g->mixed, ""), some, ""), g->mixed);
    LLVMValueRef none = LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntNE, ran, zf_cx_i64c(e, 0), ""),
                                        zf_cx_i64c(e, ZF_CX_ENDED), zf_cx_i64c(e, ZF_CX_UNSET), "");
    LLVMBuildStore(B, LLVMBuildSelect(B, any, zf_cx_i64c(e, g->single), none, ""), g->exit);
}

/* The places the work-items of a region can wait at (zf_cx_region_single_path): the first path found, and whether
 * there are more. */
typedef struct zf_cx_waits_seen {
    const zf_cx_em *e;
    uint64_t path;
    bool many;
} zf_cx_waits_seen;

/* Where resume point j (from 1) of function f is: its block and instruction. */
static bool zf_cx_point_at(const zf_cx_em *e, uint32_t f, uint32_t j, uint32_t *block, uint32_t *at) {
    const zf_dfunc *fn = &e->code->funcs[f];
    for (uint32_t b = 0, k = 0; b < fn->block_count; b++) {
        const zf_dblock *blk = &e->code->blocks[fn->block_first + b];
        for (uint32_t i = 0; i < blk->count; i++) {
            if (zf_cx_is_resume_point(e, &e->code->insts[blk->first + i]) && ++k == j) {
                *block = b;
                *at = i;
                return true;
            }
        }
    }
    return false;
}

static void zf_cx_seen_path(zf_cx_waits_seen *w, uint64_t path) {
    w->many |= w->path != 0 && w->path != path;
    w->path = path;
}

/* The waits function f's code reaches from instruction `at` of block `block` without crossing one (their paths
 * numbered from offset, as zf_cx_suspend numbers them); whether it can return. The code after a call of a function
 * that may wait is followed when the callee can return; callees deeper than one call count as many places. */
static bool zf_cx_scan_waits(zf_cx_waits_seen *w, uint32_t f, uint32_t block, uint32_t at, uint64_t offset, int depth) {
    const zf_cx_em *e = w->e;
    const zf_dfunc *fn = &e->code->funcs[f];
    uint32_t *first_point = calloc(fn->block_count + 1, sizeof *first_point), *stack = NULL, top = 0;
    uint8_t *seen = calloc(fn->block_count + 1, 1);
    bool returns = false;
    if (first_point != NULL && seen != NULL)
        stack = malloc((fn->block_count + 1) * sizeof *stack);
    w->many |= stack == NULL || depth > 1;
    for (uint32_t b = 0, k = 0; !w->many && b < fn->block_count; b++) {
        const zf_dblock *blk = &e->code->blocks[fn->block_first + b];
        first_point[b] = k;
        for (uint32_t i = 0; i < blk->count; i++)
            k += zf_cx_is_resume_point(e, &e->code->insts[blk->first + i]);
    }
    for (bool first = true; !w->many && (first || top > 0); first = false) {
        uint32_t b = first ? block : stack[--top], i = first ? at : 0, point = first_point[b];
        const zf_dblock *blk = &e->code->blocks[fn->block_first + b];
        for (uint32_t x = 0; x < i; x++)
            point += zf_cx_is_resume_point(e, &e->code->insts[blk->first + x]);
        bool waits = false;
        for (; i < blk->count && !waits && !w->many; i++) {
            const zf_dinst *in = &e->code->insts[blk->first + i];
            returns |= in->op == ZF_X_RET || in->op == ZF_X_RETV;
            if (!zf_cx_is_resume_point(e, in))
                continue;
            point++;
            if (in->op != ZF_X_CALL) {
                zf_cx_seen_path(w, offset + e->path_base[f][point]);
                waits = true;
            } else { /* a fresh call: the callee's waits from its start; the caller goes on if it can return */
                waits =
                    !zf_cx_scan_waits(w, e->code->aux[in->aux], 0, 0, offset + e->path_base[f][point] - 1, depth + 1);
            }
        }
        uint32_t edge;
        const zf_dinst *term = &e->code->insts[blk->first + blk->count - 1];
        for (uint32_t k = 0; !waits && zf_cx_term_edge(e->code, term, k, &edge); k++) {
            uint32_t to = e->code->edges[edge].target;
            if (!seen[to]) {
                seen[to] = 1;
                stack[top++] = to;
            }
        }
    }
    free(first_point);
    free(seen);
    free(stack);
    return returns;
}

/* The waits of region r of function f (resumed after its resume point, in f or in the callee it calls there; a
 * collective's work-item may also wait there again); whether the code can return without waiting. */
static bool zf_cx_scan_region(zf_cx_waits_seen *w, uint32_t f, uint32_t r, uint64_t offset, int depth) {
    const zf_cx_em *e = w->e;
    uint32_t sub = 0, k = zf_cx_path_point(e, f, r, &sub), block = 0, at = 0;
    if (k == 0) /* the function's start */
        return zf_cx_scan_waits(w, f, 0, 0, offset, depth);
    if (!zf_cx_point_at(e, f, k, &block, &at) || depth > 1) {
        w->many = true;
        return false;
    }
    const zf_dinst *in = &e->code->insts[e->code->blocks[e->code->funcs[f].block_first + block].first + at];
    if (in->op == ZF_X_CALL) { /* resumed in the callee: its waits after its point, then the caller's after the call */
        bool back = zf_cx_scan_region(w, e->code->aux[in->aux], sub, offset + e->path_base[f][k] - 1, depth + 1);
        return back && !w->many && zf_cx_scan_waits(w, f, block, at + 1, offset, depth);
    }
    if (in->op != ZF_X_BARRIER)
        zf_cx_seen_path(w, offset + e->path_base[f][k]);
    return zf_cx_scan_waits(w, f, block, at + 1, offset, depth);
}

/* The one place the work-items of region r can wait at, as the path they stop at (ZF_CX_ENDED when they can only
 * end), or ZF_CX_UNSET when they can wait at more (or the code is too deep to tell). */
static uint64_t zf_cx_region_single_path(const zf_cx_em *e, uint32_t r) {
    zf_cx_waits_seen w = {e, 0, false};
    zf_cx_scan_region(&w, e->kernel->function, r, 0, 0);
    return w.many ? ZF_CX_UNSET : w.path != 0 ? w.path : ZF_CX_ENDED;
}

/* Runs `callee` for work-item `lane` in `state` (0 to start, 1 to resume); whether it faulted. */
static LLVMValueRef zf_cx_turn_call(zf_cx_em *e, LLVMValueRef lane, LLVMValueRef callee, LLVMValueRef state) {
    LLVMBuilderRef B = e->b;
    zf_cx_set_item(e, ZF_CX_ITEM_STATE, state);
    zf_cx_set_item(e, ZF_CX_ITEM_SPILL, LLVMBuildMul(B, lane, zf_cx_i64c(e, e->spill_bytes), ""));
    LLVMValueRef call_args[5] = {e->rt, e->counts, e->item, e->args, e->ret};
    return LLVMBuildCall2(B, e->fn_type, callee, call_args, 5, "");
}

static LLVMValueRef zf_cx_state_at(zf_cx_em *e, LLVMValueRef lane) {
    LLVMValueRef states = zf_cx_rt_field(e, offsetof(zf_cx_rt, states), e->p64);
    return LLVMBuildGEP2(e->b, e->i64, states, &lane, 1, "");
}

/* One work-item's run of a region (region < num_regions) or its turn in a round of the generic function. A work-item
 * that bails in a region's copy sends the rest of the group's loop to g->tail. */
static void zf_cx_turn(zf_cx_em *e, LLVMValueRef lane, uint32_t region, const zf_cx_group *g) {
    LLVMBuilderRef B = e->b;
    LLVMValueRef at = zf_cx_state_at(e, lane);
    LLVMValueRef state = zf_cx_i64c(e, region == 0 ? 0 : 1), callee = e->fns[e->kernel->function];
    LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(e->c, e->f, "next");
    if (region < e->num_regions) {
        callee = e->copies[e->kernel->function][region];
    } else { /* a round: a work-item that has finished stays so */
        state = LLVMBuildSelect(B, LLVMBuildLoad2(B, e->i1, g->started, ""), LLVMBuildLoad2(B, e->i64, at, ""),
                                zf_cx_i64c(e, 0), "");
        LLVMBasicBlockRef run = LLVMAppendBasicBlockInContext(e->c, e->f, "turn");
        LLVMBuildCondBr(B, LLVMBuildICmp(B, LLVMIntEQ, state, zf_cx_i64c(e, ZF_CX_DONE), ""), next, run);
        LLVMPositionBuilderAtEnd(B, run);
    }
    LLVMValueRef faulted = zf_cx_turn_call(e, lane, callee, state);
    if (region < e->num_regions && g->tail != NULL) {
        LLVMBasicBlockRef ran = LLVMAppendBasicBlockInContext(e->c, e->f, "ran");
        LLVMValueRef bailed = LLVMBuildAnd(
            B, LLVMBuildNot(B, faulted, ""),
            LLVMBuildICmp(B, LLVMIntEQ, zf_cx_item(e, ZF_CX_ITEM_STATE), zf_cx_i64c(e, ZF_CX_BAILED), ""), "");
        LLVMBuildStore(B, lane, g->bailed);
        zf_cx_likely(e, LLVMBuildCondBr(B, LLVMBuildNot(B, bailed, ""), ran, g->tail));
        LLVMPositionBuilderAtEnd(B, ran);
    }
    if (region < e->num_regions && g->single != ZF_CX_UNSET)
        zf_cx_turn_end_single(e, at, faulted, g, region);
    else
        zf_cx_turn_end(e, at, faulted, g);
    LLVMBuildBr(B, next);
    LLVMPositionBuilderAtEnd(B, next);
}

/* The rest of a region's loop after work-item `g->bailed` bailed: it and the work-items after it in the generic
 * function (it resumes at its bail point, the others where the region starts), each up to the next barrier. */
static void zf_cx_bailed_rest(zf_cx_em *e, const zf_dfunc *entry, const LLVMValueRef *gs, LLVMValueRef base,
                              uint32_t region, const zf_cx_group *g) {
    LLVMBuilderRef B = e->b;
    LLVMValueRef from = LLVMBuildLoad2(B, e->i64, g->bailed, "");
    LLVMValueRef items = zf_cx_rt_u64(e, offsetof(zf_cx_rt, group_items));
    LLVMValueRef count = LLVMBuildSub(B, LLVMBuildAdd(B, base, items, ""), from, "");
    zf_cx_loop l = zf_cx_loop_begin(e, count);
    LLVMValueRef lane = LLVMBuildAdd(B, from, l.i, ""), r = LLVMBuildSub(B, lane, base, "");
    LLVMValueRef row = LLVMBuildUDiv(B, r, gs[0], "");
    zf_cx_set_item(e, ZF_CX_ITEM_LANE, lane);
    zf_cx_wave_args(e, entry, ZF_XARG_BYVAL, NULL, lane);
    zf_cx_set_item(e, ZF_CX_ITEM_LID, LLVMBuildURem(B, r, gs[0], ""));
    zf_cx_set_item(e, ZF_CX_ITEM_LID + 1, LLVMBuildURem(B, row, gs[1], ""));
    zf_cx_set_item(e, ZF_CX_ITEM_LID + 2, LLVMBuildUDiv(B, row, gs[1], ""));
    LLVMValueRef resumes = LLVMBuildICmp(B, LLVMIntEQ, l.i, zf_cx_i64c(e, 0), "");
    LLVMValueRef state = LLVMBuildSelect(B, resumes, zf_cx_i64c(e, 1), zf_cx_i64c(e, region == 0 ? 0 : 1), "");
    LLVMValueRef faulted = zf_cx_turn_call(e, lane, e->fns[e->kernel->function], state);
    zf_cx_turn_end(e, zf_cx_state_at(e, lane), faulted, g);
    zf_cx_loop_end(e, &l);
}

/* The loops over a group's local ids z, y, x, running `region` (or a round) for each work-item. */
static void zf_cx_item_copy(zf_cx_em *e, LLVMValueRef to, LLVMValueRef from, uint32_t k) {
    LLVMValueRef index = LLVMConstInt(e->i32, k, false);
    LLVMValueRef v = LLVMBuildLoad2(e->b, e->i64, LLVMBuildGEP2(e->b, e->i64, from, &index, 1, ""), "");
    LLVMBuildStore(e->b, v, LLVMBuildGEP2(e->b, e->i64, to, &index, 1, ""));
}

/* The unchecked copy's counters of one row (e->row_counts), zeroed before its loop. */
static void zf_cx_row_counts_zero(zf_cx_em *e) {
    LLVMBuildMemSet(e->b, LLVMBuildBitCast(e->b, e->row_counts, e->p8, ""), LLVMConstInt(e->i8, 0, false),
                    zf_cx_i64c(e, 4ull * e->num_blocks), 4);
}

/* After the unchecked copy's loop over a row (`back`, its back edge): the row's counts go to the group's. The loop's
 * sums start from zero, and the sum of one row does not wait for the previous one's. */
static void zf_cx_row_counts_add(zf_cx_em *e, LLVMValueRef back) {
    /* its proven accesses do not depend on each other's (cx_emit_hoist.c) */
    LLVMSetMetadata(back, LLVMGetMDKindIDInContext(e->c, "llvm.loop", 9), e->parallel_loop);
    LLVMTypeRef p32 = LLVMPointerType(e->i32, 0);
    LLVMValueRef from = LLVMBuildBitCast(e->b, e->row_counts, p32, ""),
                 to = LLVMBuildBitCast(e->b, e->ucounts, p32, "");
    for (uint32_t j = 0; j < e->num_blocks; j++) {
        LLVMValueRef index = zf_cx_i64c(e, j);
        LLVMValueRef at = LLVMBuildGEP2(e->b, e->i32, to, &index, 1, "");
        LLVMValueRef add = LLVMBuildLoad2(e->b, e->i32, LLVMBuildGEP2(e->b, e->i32, from, &index, 1, ""), "");
        LLVMBuildStore(e->b, LLVMBuildAdd(e->b, LLVMBuildLoad2(e->b, e->i32, at, ""), add, ""), at);
    }
}

/* The unchecked copy for the current work-item, its counts into the row's. */
static void zf_cx_unchecked_call(zf_cx_em *e) {
    LLVMValueRef call_args[5] = {e->rt, e->row_counts, e->item, e->args, e->ret};
    LLVMBuildCall2(e->b, e->fn_type, e->unchecked_fn, call_args, 5, "");
}

/* The copy in step for the work-items from the current one (at `lane`, local id x); when it bails, the checked
 * function for each of them, one by one. */
static void zf_cx_step_call(zf_cx_em *e, LLVMValueRef lane) {
    LLVMBuilderRef B = e->b;
    LLVMValueRef call_args[5] = {e->rt, e->counts, e->item, e->args, e->ret};
    LLVMValueRef bailed = LLVMBuildCall2(B, e->fn_type, e->step_fn, call_args, 5, "");
    LLVMBasicBlockRef one = LLVMAppendBasicBlockInContext(e->c, e->f, "one by one");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(e->c, e->f, "stepped");
    zf_cx_likely(e, LLVMBuildCondBr(B, LLVMBuildNot(B, bailed, ""), done, one));
    LLVMPositionBuilderAtEnd(B, one);
    LLVMValueRef x = zf_cx_item(e, ZF_CX_ITEM_LID);
    zf_cx_loop j = zf_cx_loop_begin(e, zf_cx_i64c(e, e->step_lanes));
    zf_cx_set_item(e, ZF_CX_ITEM_LANE, LLVMBuildAdd(B, lane, j.i, ""));
    zf_cx_set_item(e, ZF_CX_ITEM_LID, LLVMBuildAdd(B, x, j.i, ""));
    LLVMBuildCall2(B, e->fn_type, e->fns[e->kernel->function], call_args, 5, "");
    zf_cx_loop_end(e, &j);
    LLVMBuildBr(B, done);
    LLVMPositionBuilderAtEnd(B, done);
}

/* The loop over row (y, z) of the group: `region` (or a round) of each work-item, or `callee` when g is NULL. */
static void zf_cx_row_items(zf_cx_em *e, const zf_dfunc *entry, const LLVMValueRef *gs, LLVMValueRef base,
                            LLVMValueRef y, LLVMValueRef z, uint32_t region, const zf_cx_group *g,
                            LLVMValueRef callee) {
    LLVMValueRef row = LLVMBuildMul(e->b, gs[0], LLVMBuildAdd(e->b, y, LLVMBuildMul(e->b, gs[1], z, ""), ""), "");
    bool unchecked = g == NULL && callee == e->unchecked_fn;
    if (unchecked)
        zf_cx_row_counts_zero(e);
    bool step = g == NULL && !unchecked && e->step_fn != NULL; /* a loop over the row's runs of work-items in step */
    zf_cx_loop x = zf_cx_loop_begin(e, step ? zf_cx_i64c(e, e->fixed_size[0] / e->step_lanes) : gs[0]);
    LLVMValueRef at = step ? LLVMBuildMul(e->b, x.i, zf_cx_i64c(e, e->step_lanes), "") : x.i;
    LLVMValueRef lane = LLVMBuildAdd(e->b, base, LLVMBuildAdd(e->b, row, at, ""), "");
    zf_cx_set_item(e, ZF_CX_ITEM_LANE, lane);
    zf_cx_wave_args(e, entry, ZF_XARG_BYVAL, NULL, lane);
    zf_cx_set_item(e, ZF_CX_ITEM_LID, at);
    zf_cx_set_item(e, ZF_CX_ITEM_LID + 1, y);
    zf_cx_set_item(e, ZF_CX_ITEM_LID + 2, z);
    if (g != NULL) {
        zf_cx_turn(e, lane, region, g);
    } else if (unchecked) {
        zf_cx_set_item(e, ZF_CX_ITEM_ALONG, x.i);
        zf_cx_unchecked_call(e);
    } else if (step) {
        zf_cx_step_call(e, lane);
    } else {
        LLVMValueRef call_args[5] = {e->rt, e->counts, e->item, e->args, e->ret};
        LLVMBuildCall2(e->b, e->fn_type, callee, call_args, 5, "");
    }
    LLVMValueRef back = zf_cx_loop_end(e, &x);
    if (unchecked)
        zf_cx_row_counts_add(e, back);
}

static void zf_cx_item_loops(zf_cx_em *e, const zf_dfunc *entry, const LLVMValueRef *gs, LLVMValueRef base,
                             uint32_t region, const zf_cx_group *g, LLVMValueRef callee) {
    zf_cx_loop z = zf_cx_loop_begin(e, gs[2]);
    zf_cx_loop y = zf_cx_loop_begin(e, gs[1]);
    zf_cx_row_items(e, entry, gs, base, y.i, z.i, region, g, callee);
    zf_cx_loop_end(e, &y);
    zf_cx_loop_end(e, &z);
}

/* The loops over a group's work-items when its rows from `lo` to `hi` (local id y) run the unchecked copy and the
 * others the checked function: in the order of the checked loops, so that a fault leaves the same work done before
 * it. Each is called from one place, so that the optimizer inlines them (and what they call) and keeps the work-item
 * in registers: per z, a loop over the rows that runs the checked function's row, or at row `lo` the unchecked
 * copy's loop over its rows. */
static void zf_cx_split_loops(zf_cx_em *e, const zf_dfunc *entry, const LLVMValueRef *gs, LLVMValueRef base,
                              LLVMValueRef lo, LLVMValueRef hi) {
    LLVMBuilderRef B = e->b;
    zf_cx_loop z = zf_cx_loop_begin(e, gs[2]);
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(B);
    LLVMBasicBlockRef head = LLVMAppendBasicBlockInContext(e->c, e->f, "rows");
    LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(e->c, e->f, "row");
    LLVMBasicBlockRef fast = LLVMAppendBasicBlockInContext(e->c, e->f, "proven rows");
    LLVMBasicBlockRef slow = LLVMAppendBasicBlockInContext(e->c, e->f, "checked row");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(e->c, e->f, "rows done");
    LLVMBuildBr(B, head);
    LLVMPositionBuilderAtEnd(B, head);
    LLVMValueRef y = LLVMBuildPhi(B, e->i64, ""), zero = zf_cx_i64c(e, 0);
    LLVMAddIncoming(y, &zero, &pre, 1);
    LLVMBuildCondBr(B, LLVMBuildICmp(B, LLVMIntULT, y, gs[1], ""), body, done);
    LLVMPositionBuilderAtEnd(B, body);
    LLVMValueRef at_lo =
        LLVMBuildAnd(B, LLVMBuildICmp(B, LLVMIntEQ, y, lo, ""), LLVMBuildICmp(B, LLVMIntULT, lo, hi, ""), "");
    LLVMBuildCondBr(B, at_lo, fast, slow);
    LLVMPositionBuilderAtEnd(B, fast);
    zf_cx_loop rows = zf_cx_loop_begin(e, LLVMBuildSub(B, hi, lo, ""));
    zf_cx_row_items(e, entry, gs, base, LLVMBuildAdd(B, lo, rows.i, ""), z.i, 0, NULL, e->unchecked_fn);
    zf_cx_loop_end(e, &rows);
    LLVMBasicBlockRef fast_end = LLVMGetInsertBlock(B);
    LLVMBuildBr(B, head);
    LLVMPositionBuilderAtEnd(B, slow);
    zf_cx_row_items(e, entry, gs, base, y, z.i, 0, NULL, e->fns[e->kernel->function]);
    LLVMValueRef next = LLVMBuildAdd(B, y, zf_cx_i64c(e, 1), "");
    LLVMBasicBlockRef slow_end = LLVMGetInsertBlock(B);
    LLVMBuildBr(B, head);
    LLVMValueRef values[2] = {hi, next};
    LLVMBasicBlockRef from[2] = {fast_end, slow_end};
    LLVMAddIncoming(y, values, from, 2);
    LLVMPositionBuilderAtEnd(B, done);
    zf_cx_loop_end(e, &z);
}

/* Which rows of the group (local id y) the unchecked copy may run, into lo and hi: a proof of the whole group, and
 * when it fails, of the group but its first and last rows (as at the top and bottom edges of a stencil's grid) when
 * it is flat in z and has 3 rows at least; none else. Both proofs are one in the code, a loop of two tries. */
static void zf_cx_group_rows(zf_cx_em *e, const LLVMValueRef *gs, LLVMValueRef base, LLVMValueRef table,
                             LLVMValueRef lo, LLVMValueRef hi) {
    LLVMBuilderRef B = e->b;
    LLVMValueRef one = zf_cx_i64c(e, 1), zero = zf_cx_i64c(e, 0);
    LLVMValueRef splits = LLVMBuildAnd(B, LLVMBuildICmp(B, LLVMIntUGE, gs[1], zf_cx_i64c(e, 3), ""),
                                       LLVMBuildICmp(B, LLVMIntEQ, gs[2], one, ""), "");
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(B);
    LLVMBasicBlockRef attempt = LLVMAppendBasicBlockInContext(e->c, e->f, "group proof");
    LLVMBasicBlockRef held = LLVMAppendBasicBlockInContext(e->c, e->f, "proven rows");
    LLVMBasicBlockRef failed = LLVMAppendBasicBlockInContext(e->c, e->f, "not proven");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(e->c, e->f, "rows known");
    LLVMBuildStore(B, zero, lo);
    LLVMBuildStore(B, zero, hi);
    LLVMBuildBr(B, attempt);
    LLVMPositionBuilderAtEnd(B, attempt);
    LLVMValueRef first = LLVMBuildPhi(B, e->i64, ""); /* 0, then 1 */
    LLVMAddIncoming(first, &zero, &pre, 1);
    LLVMValueRef rows = LLVMBuildSub(B, gs[1], LLVMBuildShl(B, first, one, ""), "");
    LLVMValueRef box[3] = {gs[0], rows, gs[2]};
    LLVMValueRef items = LLVMBuildMul(B, LLVMBuildMul(B, gs[0], rows, ""), gs[2], "");
    LLVMBuildCondBr(B, zf_cx_hoist_proof(e, box, first, base, items, table), held, failed);
    LLVMPositionBuilderAtEnd(B, held);
    LLVMBuildStore(B, first, lo);
    LLVMBuildStore(B, LLVMBuildAdd(B, first, rows, ""), hi);
    LLVMBuildBr(B, done);
    LLVMPositionBuilderAtEnd(B, failed);
    LLVMValueRef again = LLVMBuildAnd(B, splits, LLVMBuildICmp(B, LLVMIntEQ, first, zero, ""), "");
    LLVMAddIncoming(first, &one, &failed, 1);
    LLVMBuildCondBr(B, again, attempt, done);
    LLVMPositionBuilderAtEnd(B, done);
}

/* The loops over a group's work-items; for a kernel whose checks can be made per group, the unchecked copy's for
 * the rows the group's proof covers (all of them when it holds, or when wave_proven, the wave's box proof, does: NULL
 * when the wave does not look at it), the checked function's for the others. */
static void zf_cx_items(zf_cx_em *e, const zf_dfunc *entry, const LLVMValueRef *gs, LLVMValueRef base, uint32_t region,
                        const zf_cx_group *g, LLVMValueRef wave_proven) {
    LLVMBuilderRef B = e->b;
    if (g != NULL || e->unchecked_fn == NULL) {
        zf_cx_item_loops(e, entry, gs, base, region, g, e->fns[e->kernel->function]);
        return;
    }
    LLVMValueRef lo = zf_cx_var_of(e, e->i64), hi = zf_cx_var_of(e, e->i64);
    LLVMBasicBlockRef run = LLVMAppendBasicBlockInContext(e->c, e->f, "rows");
    if (wave_proven != NULL) {
        LLVMBasicBlockRef own = LLVMAppendBasicBlockInContext(e->c, e->f, "group");
        LLVMBasicBlockRef boxed = LLVMAppendBasicBlockInContext(e->c, e->f, "box proven");
        LLVMBuildCondBr(B, wave_proven, boxed, own);
        LLVMPositionBuilderAtEnd(B, boxed);
        zf_cx_box_sites(e, LLVMBuildMul(B, gs[0], zf_cx_item(e, ZF_CX_ITEM_SLOT), ""));
        LLVMBuildStore(B, zf_cx_i64c(e, 0), lo);
        LLVMBuildStore(B, gs[1], hi);
        LLVMBuildBr(B, run);
        LLVMPositionBuilderAtEnd(B, own);
    }
    LLVMValueRef index = LLVMConstInt(e->i32, ZF_CX_ITEM_SITES, false);
    zf_cx_group_rows(e, gs, base, LLVMBuildGEP2(B, e->i64, e->item, &index, 1, ""), lo, hi);
    LLVMBuildBr(B, run);
    LLVMPositionBuilderAtEnd(B, run);
    zf_cx_split_loops(e, entry, gs, base, LLVMBuildLoad2(B, e->i64, lo, ""), LLVMBuildLoad2(B, e->i64, hi, ""));
}

/* A wave the box proof covers (zf_cx_wave_proof: its groups are one run along dimension 0), row by row: for each
 * local id z and y, one loop along x over that row of every group of the wave, all through the unchecked copy. No
 * work-item of it can fault, so only the order between its groups differs from the checked loops', which OpenCL
 * leaves open (docs/spirv-execution.md, "Rows across the wave"): the wave's accesses run along rows of memory rather
 * than down one group's rows before the next (the 5-point stencil's 16 x 16 groups read 18 rows of lines each), and
 * what a row costs beyond its work-items (its counters' sums) is shared by the wave's groups. The sites' origin is the
 * box's, and a work-item's place along x from it its x in the box (ZF_CX_ITEM_ALONG), so that LLVM sees consecutive
 * accesses across the groups. */
static void zf_cx_wave_rows(zf_cx_em *e, const zf_dfunc *entry, const LLVMValueRef *gs, LLVMValueRef items) {
    LLVMBuilderRef B = e->b;
    LLVMValueRef first_x = zf_cx_item(e, ZF_CX_ITEM_GRP); /* the wave proof set the first group's ids */
    LLVMValueRef width = LLVMBuildMul(B, gs[0], zf_cx_rt_u64(e, offsetof(zf_cx_rt, wave_groups)), "");
    zf_cx_box_sites(e, zf_cx_i64c(e, 0));
    zf_cx_loop z = zf_cx_loop_begin(e, gs[2]);
    zf_cx_loop y = zf_cx_loop_begin(e, gs[1]);
    LLVMValueRef row = LLVMBuildMul(B, gs[0], LLVMBuildAdd(B, y.i, LLVMBuildMul(B, gs[1], z.i, ""), ""), "");
    zf_cx_row_counts_zero(e);
    zf_cx_loop x = zf_cx_loop_begin(e, width);
    LLVMValueRef slot = LLVMBuildUDiv(B, x.i, gs[0], ""), lid = LLVMBuildURem(B, x.i, gs[0], "");
    LLVMValueRef lane = LLVMBuildAdd(B, LLVMBuildMul(B, slot, items, ""), LLVMBuildAdd(B, row, lid, ""), "");
    zf_cx_set_item(e, ZF_CX_ITEM_SLOT, slot);
    zf_cx_set_item(e, ZF_CX_ITEM_GRP, LLVMBuildAdd(B, first_x, slot, ""));
    zf_cx_set_item(e, ZF_CX_ITEM_LANE, lane);
    zf_cx_set_item(e, ZF_CX_ITEM_LID, lid);
    zf_cx_set_item(e, ZF_CX_ITEM_LID + 1, y.i);
    zf_cx_set_item(e, ZF_CX_ITEM_LID + 2, z.i);
    zf_cx_set_item(e, ZF_CX_ITEM_ALONG, x.i);
    zf_cx_wave_args(e, entry, ZF_XARG_LOCAL, slot, NULL);
    zf_cx_wave_args(e, entry, ZF_XARG_BYVAL, NULL, lane);
    zf_cx_unchecked_call(e);
    zf_cx_row_counts_add(e, zf_cx_loop_end(e, &x));
    zf_cx_loop_end(e, &y);
    zf_cx_loop_end(e, &z);
}

/* A region's own work-item and counters (e->item, e->counts) back into the wave's. */
static void zf_cx_region_state_back(zf_cx_em *e, LLVMValueRef item, LLVMValueRef counts) {
    LLVMBuilderRef B = e->b;
    zf_cx_item_copy(e, item, e->item, ZF_CX_ITEM_COUNT);
    zf_cx_item_copy(e, item, e->item, ZF_CX_ITEM_PATH);
    zf_cx_item_copy(e, item, e->item, ZF_CX_ITEM_STATE);
    for (uint32_t j = 0; j < e->num_blocks; j++) {
        LLVMValueRef index = zf_cx_i64c(e, j);
        LLVMValueRef to = LLVMBuildGEP2(B, e->i64, counts, &index, 1, "");
        LLVMValueRef from = LLVMBuildGEP2(B, e->i64, e->counts, &index, 1, "");
        LLVMBuildStore(B, LLVMBuildAdd(B, LLVMBuildLoad2(B, e->i64, to, ""), LLVMBuildLoad2(B, e->i64, from, ""), ""),
                       to);
    }
}

/* A region's loop over the group's work-items with state of its own (the work-item, the block counters, the entry
 * function's arguments and result), which the generic function does not see: nothing escapes, so the optimizer keeps
 * it in registers. The hang detector's budget and the counters go back to the wave's after the loop. */
static void zf_cx_region_items(zf_cx_em *e, const zf_dfunc *entry, const LLVMValueRef *gs, LLVMValueRef base,
                               uint32_t region, const zf_cx_group *g, uint64_t arg_bytes) {
    LLVMBuilderRef B = e->b;
    LLVMValueRef item = e->item, counts = e->counts, args = e->args, ret = e->ret;
    e->item = LLVMBuildBitCast(B, zf_cx_alloca(e, 8ull * (ZF_CX_ITEM_COUNT + 1)), e->p64, "");
    e->counts = LLVMBuildBitCast(B, zf_cx_alloca(e, 8ull * (e->num_blocks ? e->num_blocks : 1)), e->p64, "");
    e->args = zf_cx_alloca(e, arg_bytes);
    e->ret = zf_cx_alloca(e, entry->ret_size);
    LLVMBuildMemCpy(B, LLVMBuildBitCast(B, e->item, e->p8, ""), 8, LLVMBuildBitCast(B, item, e->p8, ""), 8,
                    zf_cx_i64c(e, 8ull * (ZF_CX_ITEM_COUNT + 1)));
    LLVMBuildMemSet(B, LLVMBuildBitCast(B, e->counts, e->p8, ""), LLVMConstInt(e->i8, 0, false),
                    zf_cx_i64c(e, 8ull * e->num_blocks), 8);
    if (arg_bytes > 0)
        LLVMBuildMemCpy(B, e->args, 1, args, 1, zf_cx_i64c(e, arg_bytes));
    zf_cx_group loop = *g;
    loop.tail = LLVMAppendBasicBlockInContext(e->c, e->f, "bailed");
    loop.single = zf_cx_region_single_path(e, region);
    zf_cx_items(e, entry, gs, base, region, &loop, NULL);
    LLVMBasicBlockRef ran = LLVMAppendBasicBlockInContext(e->c, e->f, "region ran");
    if (loop.single != ZF_CX_UNSET)
        zf_cx_single_exit(e, &loop);
    zf_cx_region_state_back(e, item, counts);
    LLVMBuildBr(B, ran);
    /* A work-item bailed: the region's state goes back to the wave's, which the generic function sees, first. */
    LLVMPositionBuilderAtEnd(B, loop.tail);
    if (loop.single != ZF_CX_UNSET)
        zf_cx_single_exit(e, &loop); /* the work-items after it in the generic function compare with it */
    zf_cx_region_state_back(e, item, counts);
    e->item = item;
    e->counts = counts;
    e->args = args;
    e->ret = ret;
    zf_cx_bailed_rest(e, entry, gs, base, region, &loop);
    LLVMBuildBr(B, ran);
    LLVMPositionBuilderAtEnd(B, ran);
}

/* A group of a kernel with barriers: its regions, or rounds once its work-items diverged, until none waits. */
static void zf_cx_group_regions(zf_cx_em *e, const zf_dfunc *entry, const LLVMValueRef *gs, LLVMValueRef base,
                                LLVMValueRef group, uint64_t arg_bytes) {
    LLVMBuilderRef B = e->b;
    zf_cx_group g = {zf_cx_var_of(e, e->i64),
                     zf_cx_var_of(e, e->i1),
                     zf_cx_var_of(e, e->i64),
                     zf_cx_var_of(e, e->i1),
                     zf_cx_var_of(e, e->i64),
                     zf_cx_var_of(e, e->i1),
                     zf_cx_var_of(e, e->i64),
                     zf_cx_var_of(e, e->i64),
                     NULL,
                     ZF_CX_UNSET};
    LLVMBuildStore(B, zf_cx_i64c(e, 0), g.next);
    LLVMBuildStore(B, LLVMConstInt(e->i1, 0, false), g.generic);
    LLVMBuildStore(B, LLVMConstInt(e->i1, 0, false), g.started);
    LLVMBasicBlockRef head = LLVMAppendBasicBlockInContext(e->c, e->f, "regions");
    LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(e->c, e->f, "stopped");
    LLVMBasicBlockRef rounds = LLVMAppendBasicBlockInContext(e->c, e->f, "rounds");
    LLVMBasicBlockRef pick = LLVMAppendBasicBlockInContext(e->c, e->f, "pick");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(e->c, e->f, "group done");
    LLVMBuildBr(B, head);
    LLVMPositionBuilderAtEnd(B, head);
    LLVMBuildStore(B, zf_cx_i64c(e, ZF_CX_UNSET), g.exit);
    LLVMBuildStore(B, LLVMConstInt(e->i1, 0, false), g.mixed);
    LLVMBuildStore(B, zf_cx_i64c(e, 0), g.waiting);
    LLVMBuildStore(B, zf_cx_i64c(e, 0), g.ran);
    LLVMBuildCondBr(B, LLVMBuildLoad2(B, e->i1, g.generic, ""), rounds, pick);
    LLVMPositionBuilderAtEnd(B, pick);
    LLVMValueRef sw = LLVMBuildSwitch(B, LLVMBuildLoad2(B, e->i64, g.next, ""), rounds, e->num_regions);
    for (uint32_t k = 0; k < e->num_regions; k++) {
        LLVMBasicBlockRef bb = LLVMAppendBasicBlockInContext(e->c, e->f, "region");
        LLVMAddCase(sw, zf_cx_i64c(e, k), bb);
        LLVMPositionBuilderAtEnd(B, bb);
        zf_cx_region_items(e, entry, gs, base, k, &g, arg_bytes);
        LLVMBuildBr(B, join);
    }
    LLVMPositionBuilderAtEnd(B, rounds);
    LLVMBuildStore(B, LLVMConstInt(e->i1, 1, false), g.generic);
    zf_cx_items(e, entry, gs, base, UINT32_MAX, &g, NULL);
    LLVMBuildBr(B, join);
    /* None waits: the group is done. Else the common barrier's region runs next, or rounds once they diverged. */
    LLVMPositionBuilderAtEnd(B, join);
    LLVMBuildStore(B, LLVMConstInt(e->i1, 1, false), g.started);
    LLVMBasicBlockRef again = LLVMAppendBasicBlockInContext(e->c, e->f, "again");
    LLVMValueRef none = LLVMBuildICmp(B, LLVMIntEQ, LLVMBuildLoad2(B, e->i64, g.waiting, ""), zf_cx_i64c(e, 0), "");
    LLVMBuildCondBr(B, none, done, again);
    LLVMPositionBuilderAtEnd(B, again);
    LLVMValueRef was = LLVMBuildLoad2(B, e->i1, g.generic, "");
    LLVMValueRef generic = LLVMBuildOr(B, was, LLVMBuildLoad2(B, e->i1, g.mixed, ""), "");
    LLVMBasicBlockRef tell = LLVMAppendBasicBlockInContext(e->c, e->f, "diverged");
    LLVMBasicBlockRef go = LLVMAppendBasicBlockInContext(e->c, e->f, "go on");
    LLVMBuildCondBr(B, LLVMBuildAnd(B, generic, LLVMBuildNot(B, was, ""), ""), tell, go);
    LLVMPositionBuilderAtEnd(B, tell);
    LLVMTypeRef params[2] = {e->p8, e->i64};
    LLVMValueRef args[2] = {e->rt, group};
    zf_cx_call(e, ZF_CX_HELPER(zf_cx_diverged), LLVMVoidTypeInContext(e->c), params, 2, args);
    LLVMBuildBr(B, go);
    LLVMPositionBuilderAtEnd(B, go);
    LLVMBuildStore(B, generic, g.generic);
    LLVMBuildStore(B, LLVMBuildLoad2(B, e->i64, g.exit, ""), g.next);
    LLVMBuildBr(B, head);
    LLVMPositionBuilderAtEnd(B, done);
    if (e->vars) { /* the group's private slots */
        LLVMValueRef pop[2] = {e->rt, e->wave_mark};
        zf_cx_call(e, ZF_CX_HELPER(zf_cx_slots_pop), LLVMVoidTypeInContext(e->c), params, 2, pop);
    }
}

static void zf_cx_wave(zf_cx_em *e) {
    const zf_dfunc *entry = &e->code->funcs[e->kernel->function];
    LLVMTypeRef wave_type = LLVMFunctionType(LLVMVoidTypeInContext(e->c), &e->p8, 1, false);
    e->f = LLVMAddFunction(e->m, "zf_cx_wave", wave_type);
    e->rt = LLVMGetParam(e->f, 0);
    LLVMAddAttributeAtIndex(e->f, 1, LLVMCreateEnumAttribute(e->c, LLVMGetEnumAttributeKindForName("noalias", 7), 0));
    zf_cx_state_param(e, e->f, 1);
    LLVMBasicBlockRef allocas = LLVMAppendBasicBlockInContext(e->c, e->f, "allocas");
    LLVMPositionBuilderAtEnd(e->eb, allocas);
    LLVMBasicBlockRef start = LLVMAppendBasicBlockInContext(e->c, e->f, "start");
    LLVMPositionBuilderAtEnd(e->b, start);
    uint64_t arg_bytes = 0;
    for (uint32_t k = 0; k < entry->param_count; k++)
        arg_bytes += e->code->params[entry->param_first + k].size;
    e->counts = LLVMBuildBitCast(e->b, zf_cx_alloca(e, 8ull * (e->num_blocks ? e->num_blocks : 1)),
                                 LLVMPointerType(e->i64, 0), "");
    e->item = LLVMBuildBitCast(e->b, zf_cx_alloca(e, 8ull * (ZF_CX_ITEM_SITES + 4 * e->num_sites)),
                               LLVMPointerType(e->i64, 0), "");
    e->args = zf_cx_alloca(e, arg_bytes);
    e->ret = zf_cx_alloca(e, entry->ret_size);
    LLVMBuildMemSet(e->b, LLVMBuildBitCast(e->b, e->counts, e->p8, ""), LLVMConstInt(e->i8, 0, false),
                    zf_cx_i64c(e, 8ull * e->num_blocks), 8);
    if (e->unchecked_fn != NULL) {
        e->ucounts = LLVMBuildBitCast(e->b, zf_cx_alloca(e, 4ull * (e->num_blocks ? e->num_blocks : 1)),
                                      LLVMPointerType(e->i64, 0), "");
        LLVMBuildMemSet(e->b, LLVMBuildBitCast(e->b, e->ucounts, e->p8, ""), LLVMConstInt(e->i8, 0, false),
                        zf_cx_i64c(e, 4ull * e->num_blocks), 4);
        e->row_counts = LLVMBuildBitCast(e->b, zf_cx_alloca(e, 4ull * (e->num_blocks ? e->num_blocks : 1)),
                                         LLVMPointerType(e->i64, 0), "");
    }
    zf_cx_set_item(e, ZF_CX_ITEM_COUNT, zf_cx_rt_u64(e, offsetof(zf_cx_rt, poll_period)));
    zf_cx_wave_args(e, entry, ZF_XARG_VALUE, NULL, NULL);
    LLVMValueRef gs[3], groups[3];
    for (int d = 0; d < 3; d++) {
        gs[d] = zf_cx_rt_u64(e, offsetof(zf_cx_rt, group_size) + 8 * (size_t)d);
        groups[d] = zf_cx_rt_u64(e, offsetof(zf_cx_rt, groups) + 8 * (size_t)d);
    }
    LLVMValueRef items = zf_cx_rt_u64(e, offsetof(zf_cx_rt, group_items));
    LLVMValueRef wave_proven = e->unchecked_fn != NULL ? zf_cx_wave_proof(e, gs, groups) : NULL;
    /* A proved wave runs rows across its groups; one whose unchecked copy can stop a work-item runs group by group,
     * so that its faults and printf follow the groups' order, each group proved by the box. */
    LLVMBasicBlockRef wave_done = NULL;
    e->wave_rows = wave_proven != NULL && !e->sites_local && !e->unchecked_leaves; /* sites_local: never proved */
    if (e->wave_rows) {
        LLVMBasicBlockRef rows = LLVMAppendBasicBlockInContext(e->c, e->f, "wave rows");
        LLVMBasicBlockRef own = LLVMAppendBasicBlockInContext(e->c, e->f, "wave groups");
        wave_done = LLVMAppendBasicBlockInContext(e->c, e->f, "wave done");
        LLVMBuildCondBr(e->b, wave_proven, rows, own);
        LLVMPositionBuilderAtEnd(e->b, rows);
        zf_cx_wave_rows(e, entry, gs, items);
        LLVMBuildBr(e->b, wave_done);
        LLVMPositionBuilderAtEnd(e->b, own);
    }
    zf_cx_loop slot = zf_cx_loop_begin(e, zf_cx_rt_u64(e, offsetof(zf_cx_rt, wave_groups)));
    LLVMValueRef linear = LLVMBuildAdd(e->b, zf_cx_rt_u64(e, offsetof(zf_cx_rt, first_group)), slot.i, "");
    LLVMValueRef rest = LLVMBuildUDiv(e->b, linear, groups[0], "");
    zf_cx_set_item(e, ZF_CX_ITEM_SLOT, slot.i);
    zf_cx_set_item(e, ZF_CX_ITEM_GRP, LLVMBuildURem(e->b, linear, groups[0], ""));
    zf_cx_set_item(e, ZF_CX_ITEM_GRP + 1, LLVMBuildURem(e->b, rest, groups[1], ""));
    zf_cx_set_item(e, ZF_CX_ITEM_GRP + 2, LLVMBuildUDiv(e->b, rest, groups[1], ""));
    zf_cx_wave_args(e, entry, ZF_XARG_LOCAL, slot.i, NULL);
    LLVMValueRef base = LLVMBuildMul(e->b, slot.i, items, "");
    if (e->barriers && e->vars) {
        LLVMTypeRef p8 = e->p8;
        e->wave_mark = zf_cx_call(e, ZF_CX_HELPER(zf_cx_slots_mark), e->i64, &p8, 1, &e->rt);
    }
    if (e->barriers)
        zf_cx_group_regions(e, entry, gs, base, linear, arg_bytes);
    else
        zf_cx_items(e, entry, gs, base, 0, NULL, e->wave_rows ? NULL : wave_proven);
    zf_cx_loop_end(e, &slot);
    if (wave_done != NULL) {
        LLVMBuildBr(e->b, wave_done);
        LLVMPositionBuilderAtEnd(e->b, wave_done);
    }
    if (e->unchecked_fn != NULL)
        zf_cx_count_resolve(e, e->ucounts, e->counts);
    LLVMValueRef totals = zf_cx_rt_field(e, offsetof(zf_cx_rt, counts), LLVMPointerType(e->i64, 0));
    for (uint32_t j = 0; j < e->num_blocks; j++) {
        LLVMValueRef index = zf_cx_i64c(e, j);
        LLVMValueRef to = LLVMBuildGEP2(e->b, e->i64, totals, &index, 1, "");
        LLVMValueRef from = LLVMBuildGEP2(e->b, e->i64, e->counts, &index, 1, "");
        LLVMBuildStore(
            e->b, LLVMBuildAdd(e->b, LLVMBuildLoad2(e->b, e->i64, to, ""), LLVMBuildLoad2(e->b, e->i64, from, ""), ""),
            to);
    }
    LLVMBuildRetVoid(e->b);
    LLVMBuildBr(e->eb, start);
}

/* ------------------------------------------------------------------------------------------------------------------
 * The unit */

/* What zf_cx_walk calls: once as it enters function `func` (at UINT32_MAX), then for each of its instructions (at, an
 * index of code->insts); false stops the walk. */
typedef bool (*zf_cx_visit)(void *state, const zf_dprog *code, uint32_t func, uint32_t at);

/* Visits the functions reached by calls from function `entry` that seen (one byte a function) does not mark yet,
 * marking them. False when out of host memory. */
static bool zf_cx_walk(const zf_dprog *code, uint32_t entry, uint8_t *seen, zf_cx_visit visit, void *state) {
    uint32_t *stack = malloc((code->num_funcs ? code->num_funcs : 1) * sizeof *stack), top = 0;
    if (stack == NULL)
        return false;
    stack[top++] = entry;
    seen[entry] = 1;
    bool go_on = true;
    while (top > 0 && go_on) {
        uint32_t f = stack[--top];
        const zf_dfunc *fn = &code->funcs[f];
        go_on = visit(state, code, f, UINT32_MAX);
        for (uint32_t b = 0; b < fn->block_count && go_on; b++) {
            const zf_dblock *blk = &code->blocks[fn->block_first + b];
            for (uint32_t i = 0; i < blk->count && go_on; i++) {
                const zf_dinst *in = &code->insts[blk->first + i];
                go_on = visit(state, code, f, blk->first + i);
                uint32_t callee = in->op == ZF_X_CALL ? code->aux[in->aux] : UINT32_MAX;
                if (callee < code->num_funcs && !seen[callee]) {
                    seen[callee] = 1;
                    stack[top++] = callee;
                }
            }
        }
    }
    free(stack);
    return true;
}

static bool zf_cx_barrier_visit(void *state, const zf_dprog *code, uint32_t func, uint32_t at) {
    (void)func;
    bool *found = state;
    *found |= at != UINT32_MAX && zf_cx_waits(code->insts[at].op);
    return !*found;
}

/* Whether a function whose pointer the program takes, or one it calls, waits at a work-group barrier: a call through
 * a function pointer runs its callee for one work-item (zf_cx_list_op), which cannot wait for the others there. */
static bool zf_cx_pointer_targets_wait(const zf_dprog *code) {
    uint8_t *seen = calloc(code->num_funcs ? code->num_funcs : 1, 1);
    bool found = seen == NULL; /* out of memory: as if they did, the interpreter runs the kernel */
    for (uint32_t i = 0; i < code->num_relocs && !found; i++) {
        const zf_dreloc *r = &code->relocs[i];
        if (r->kind == ZF_RELOC_FUNCTION && r->index < code->num_funcs && !seen[r->index])
            found = !zf_cx_walk(code, r->index, seen, zf_cx_barrier_visit, &found) || found;
    }
    free(seen);
    return found;
}

typedef struct zf_cx_checking {
    zf_cx_em *e;
    bool vars;        /* a function reached declares private variables */
    int targets_wait; /* zf_cx_pointer_targets_wait, -1 until a call through a function pointer asks */
} zf_cx_checking;

static bool zf_cx_check_visit(void *state, const zf_dprog *code, uint32_t func, uint32_t at) {
    zf_cx_checking *c = state;
    zf_cx_em *e = c->e;
    if (at == UINT32_MAX) {
        if (code->funcs[func].frame_bytes > ZF_CX_MAX_FRAME)
            zf_cx_fail(e, "a function with more than %u bytes of values", ZF_CX_MAX_FRAME);
        return !e->failed;
    }
    const zf_dinst *in = &code->insts[at];
    const char *why = zf_cx_check_inst(code, in);
    if (why == NULL && in->op == ZF_X_CALLP) {
        if (c->targets_wait < 0)
            c->targets_wait = zf_cx_pointer_targets_wait(code);
        if (c->targets_wait)
            why =
                "a call through a function pointer in a program whose pointed-to functions wait at work-group barriers";
    }
    if (why != NULL)
        zf_cx_fail(e, "%s (SPIR-V word %u)", why, code->inst_words[at]);
    e->barriers |= zf_cx_waits(in->op);
    c->vars |= in->op == ZF_X_VAR;
    return !e->failed;
}

/* Marks the functions the kernel reaches and checks their instructions. */
static bool zf_cx_reach(zf_cx_em *e, uint8_t *seen) {
    zf_cx_checking c = {e, false, -1};
    if (!zf_cx_walk(e->code, e->kernel->function, seen, zf_cx_check_visit, &c)) {
        zf_cx_fail(e, "out of host memory");
        return false;
    }
    e->vars = c.vars;
    return !e->failed;
}

/* Functions in an order where every caller comes before its callees: reversed post-order of the calls from the
 * entry function. A cycle (which only an edited form can have: the decoder refuses recursion) is refused, since the
 * interpreter stops it at its call depth limit. done: 1 on the path, 2 finished. */
static uint32_t zf_cx_post_order(zf_cx_em *e, uint32_t f, uint8_t *done, uint32_t *order, uint32_t *n) {
    const zf_dprog *code = e->code;
    uint32_t height = 1; /* functions on the longest chain of calls from f */
    done[f] = 1;
    const zf_dfunc *fn = &code->funcs[f];
    for (uint32_t b = 0; b < fn->block_count; b++) {
        const zf_dblock *blk = &code->blocks[fn->block_first + b];
        for (uint32_t i = 0; i < blk->count; i++) {
            const zf_dinst *in = &code->insts[blk->first + i];
            if (in->op != ZF_X_CALL)
                continue;
            uint32_t callee = code->aux[in->aux];
            if (done[callee] == 1)
                zf_cx_fail(e, "recursive calls");
            uint32_t h = done[callee] ? e->heights[callee] : zf_cx_post_order(e, callee, done, order, n);
            height = h + 1 > height ? h + 1 : height;
        }
    }
    done[f] = 2;
    order[(*n)++] = f;
    e->heights[f] = height;
    return height;
}

/* Which functions are resumable, and their places in the record (order: callees before callers). */
static bool zf_cx_resumables(zf_cx_em *e, const uint32_t *order, uint32_t n) {
    const zf_dprog *code = e->code;
    e->resumable = calloc(code->num_funcs, 1);
    e->spill_off = calloc(code->num_funcs, sizeof *e->spill_off);
    e->packed = calloc(code->num_funcs, sizeof *e->packed);
    e->recompute = calloc(code->num_funcs, sizeof *e->recompute);
    e->resume_at = calloc(code->num_funcs, sizeof *e->resume_at);
    if (e->resumable == NULL || e->spill_off == NULL || e->packed == NULL || e->recompute == NULL ||
        e->resume_at == NULL)
        return false;
    uint64_t bytes = 0;
    for (uint32_t j = 0; j < n; j++) {
        const zf_dfunc *fn = &code->funcs[order[j]];
        for (uint32_t b = 0; b < fn->block_count; b++) {
            const zf_dblock *blk = &code->blocks[fn->block_first + b];
            for (uint32_t i = 0; i < blk->count; i++) {
                const zf_dinst *in = &code->insts[blk->first + i];
                if (zf_cx_waits(in->op) || (in->op == ZF_X_CALL && e->resumable[code->aux[in->aux]]))
                    e->resumable[order[j]] = 1;
            }
        }
        if (e->resumable[order[j]]) {
            e->spill_off[order[j]] = (uint32_t)bytes;
            bytes += (zf_cx_pack_record(e, order[j]) + 7u) & ~7u;
        }
    }
    e->private_at = calloc(code->num_funcs, sizeof *e->private_at);
    if (e->private_at == NULL)
        return false;
    for (uint32_t j = 0; j < n; j++) {
        const zf_dfunc *fn = &code->funcs[order[j]];
        if (e->resumable[order[j]] && zf_cx_has_vars(code, fn)) {
            bytes = (bytes + 15u) & ~15ull; /* as aligned as a frame's alloca */
            e->private_at[order[j]] = (uint32_t)bytes;
            bytes += fn->private_bytes;
        }
    }
    for (uint32_t j = 0; j < n; j++) {
        if (e->resumable[order[j]]) {
            e->resume_at[order[j]] = (uint32_t)bytes;
            bytes += 4;
        }
    }
    bytes = (bytes + 15u) & ~15ull; /* every work-item's record as aligned as the first */
    if (bytes > ZF_CX_MAX_FRAME)
        zf_cx_fail(e, "the frames of functions waiting at barriers need more than %u bytes", ZF_CX_MAX_FRAME);
    e->spill_bytes = (uint32_t)bytes;
    return true;
}

static void zf_cx_types(zf_cx_em *e) {
    e->i1 = LLVMInt1TypeInContext(e->c);
    e->i8 = LLVMInt8TypeInContext(e->c);
    e->i16 = LLVMInt16TypeInContext(e->c);
    e->i32 = LLVMInt32TypeInContext(e->c);
    e->i64 = LLVMInt64TypeInContext(e->c);
    e->f32 = LLVMFloatTypeInContext(e->c);
    e->f64 = LLVMDoubleTypeInContext(e->c);
    e->p8 = LLVMPointerType(e->i8, 0);
    e->p64 = LLVMPointerType(e->i64, 0);
    LLVMTypeRef params[5] = {e->p8, e->p64, e->p64, e->p8, e->p8};
    e->fn_type = LLVMFunctionType(e->i1, params, 5, false);
}

/* The form's constant area as a constant global. */
static bool zf_cx_constants(zf_cx_em *e) {
    const zf_dprog *code = e->code;
    uint8_t *bytes = calloc(code->const_bytes ? code->const_bytes : 1, 1);
    if (bytes == NULL)
        return false;
    for (uint32_t i = 0; i < code->num_consts; i++)
        memcpy(bytes + code->consts[i].offset, code->bytes + code->consts[i].data, code->consts[i].size);
    LLVMValueRef init =
        LLVMConstStringInContext(e->c, (const char *)bytes, code->const_bytes ? code->const_bytes : 1, true);
    free(bytes);
    e->consts = LLVMAddGlobal(e->m, LLVMTypeOf(init), "zf_cx_consts");
    LLVMSetInitializer(e->consts, init);
    LLVMSetGlobalConstant(e->consts, true);
    LLVMSetLinkage(e->consts, LLVMPrivateLinkage);
    LLVMSetAlignment(e->consts, 16);
    return true;
}

static bool zf_cx_declare(zf_cx_em *e, const uint8_t *seen) {
    const zf_dprog *code = e->code;
    uint32_t max_frame = 0, max_params = 0;
    for (uint32_t f = 0; f < code->num_funcs; f++) {
        if (!seen[f])
            continue;
        const zf_dfunc *fn = &code->funcs[f];
        char name[32];
        snprintf(name, sizeof name, "zf_cx_f%u", f);
        e->fns[f] = zf_cx_new_function(e, name);
        e->block_base[f] = e->num_blocks;
        for (uint32_t b = 0; b < fn->block_count; b++)
            e->blocks[e->num_blocks++] = (zf_cx_block){fn->block_first + b, 0, 0, 0, 0};
        max_frame = fn->frame_bytes > max_frame ? fn->frame_bytes : max_frame;
        max_params = fn->param_count > max_params ? fn->param_count : max_params;
    }
    e->prov = malloc((max_frame ? max_frame : 1) * sizeof *e->prov);
    e->win_base = calloc(e->num_kinds + 1, sizeof *e->win_base);
    e->win_lo = calloc(e->num_kinds + 1, sizeof *e->win_lo);
    e->win_span = calloc(e->num_kinds + 1, sizeof *e->win_span);
    e->param_prov = calloc(code->num_funcs, sizeof *e->param_prov);
    if (e->prov == NULL || e->win_base == NULL || e->win_lo == NULL || e->win_span == NULL || e->param_prov == NULL)
        return false;
    for (uint32_t f = 0; f < code->num_funcs; f++)
        if (seen[f] && (e->param_prov[f] = calloc(max_params ? max_params : 1, sizeof **e->param_prov)) == NULL)
            return false;
    const zf_dfunc *entry = &code->funcs[e->kernel->function];
    for (uint32_t k = 0; k < entry->param_count; k++) {
        bool arg = k < e->num_kinds && e->kinds[k] == ZF_XARG_VALUE && code->params[entry->param_first + k].size == 8;
        bool local = k < e->num_kinds && e->kinds[k] == ZF_XARG_LOCAL;
        e->param_prov[e->kernel->function][k] = arg ? (uint16_t)(1 + k) : local ? ZF_CX_PROV_LOCAL : ZF_CX_PROV_OTHER;
    }
    return true;
}

/* A group's local memory is its kernel's local variables, at offsets 0 to static_local_bytes of the group's area
 * (spirv_wave.c), followed by its local-pointer arguments, whose sizes the launch sets: with none, the code knows how
 * much local memory a group has. */
static uint64_t zf_cx_group_local_bytes(const zf_cx_em *e) {
    for (uint32_t k = 0; k < e->num_kinds; k++)
        if (e->kinds[k] == ZF_XARG_LOCAL)
            return 0;
    return e->kernel->static_local_bytes;
}

bool zf_cx_emit(LLVMContextRef llvm, const zf_dprog *code, uint32_t kernel, const zf_xarg_kind *kinds,
                uint32_t num_kinds, const uint32_t *group_size, zf_cx_unit *out, char *why, size_t why_size) {
    zf_cx_em e = {.c = llvm,
                  .code = code,
                  .kernel = &code->kernels[kernel],
                  .kinds = kinds,
                  .num_kinds = num_kinds,
                  .why = why,
                  .why_size = why_size};
    for (int d = 0; group_size != NULL && d < 3; d++)
        e.fixed_size[d] = group_size[d];
    e.group_local_bytes = zf_cx_group_local_bytes(&e);
    memset(out, 0, sizeof *out);
    uint8_t *seen = calloc(code->num_funcs ? code->num_funcs : 1, 1);
    e.fns = calloc(code->num_funcs ? code->num_funcs : 1, sizeof *e.fns);
    e.block_base = calloc(code->num_funcs ? code->num_funcs : 1, sizeof *e.block_base);
    e.blocks = calloc(code->num_blocks ? code->num_blocks : 1, sizeof *e.blocks);
    if (seen == NULL || e.fns == NULL || e.block_base == NULL || e.blocks == NULL)
        zf_cx_fail(&e, "out of host memory");
    if (!e.failed && zf_cx_reach(&e, seen)) {
        e.m = LLVMModuleCreateWithNameInContext("zefake-kernel", llvm);
        e.b = LLVMCreateBuilderInContext(llvm);
        e.eb = LLVMCreateBuilderInContext(llvm);
        zf_cx_types(&e);
        if (!zf_cx_constants(&e) || !zf_cx_declare(&e, seen))
            zf_cx_fail(&e, "out of host memory");
        uint32_t *order = calloc(code->num_funcs, sizeof *order), n = 0;
        uint8_t *done = calloc(code->num_funcs, 1);
        e.heights = calloc(code->num_funcs, sizeof *e.heights);
        if (order == NULL || done == NULL || e.heights == NULL)
            zf_cx_fail(&e, "out of host memory");
        else if (zf_cx_post_order(&e, e.kernel->function, done, order, &n) > ZF_MAX_CALL_DEPTH)
            zf_cx_fail(&e, "calls nested deeper than %u", ZF_MAX_CALL_DEPTH);
        else if (e.barriers && (!zf_cx_resumables(&e, order, n) || !zf_cx_paths(&e, order, n)))
            zf_cx_fail(&e, "out of host memory");
        e.bails_pay = !e.failed && zf_cx_bails_pay(&e);
        free(e.heights);
        for (uint32_t k = n; k > 0 && !e.failed; k--)
            zf_cx_function(&e, order[k - 1]);
        free(order);
        free(done);
        if (!e.failed && e.barriers)
            zf_cx_regions(&e);
        if (!e.failed && !zf_cx_counting_start(&e))
            zf_cx_fail(&e, "out of host memory");
        if (!e.failed)
            zf_cx_hoist(&e);
        if (!e.failed)
            zf_cx_step(&e);
        if (!e.failed)
            zf_cx_wave(&e);
        if (e.barriers)
            zf_cx_paths_free(&e);
        free(e.resumable);
        free(e.spill_off);
        for (uint32_t f = 0; e.packed != NULL && f < code->num_funcs; f++)
            free(e.packed[f]);
        free(e.packed);
        for (uint32_t f = 0; e.recompute != NULL && f < code->num_funcs; f++)
            zf_cx_rc_free(e.recompute[f]);
        free(e.recompute);
        free(e.resume_at);
        free(e.private_at);
        LLVMDisposeBuilder(e.b);
        LLVMDisposeBuilder(e.eb);
    }
    uint32_t affine = zf_cx_affine_sites(&e);
    zf_cx_hoist_free(&e);
    zf_cx_step_free(&e);
    uint32_t derived = zf_cx_count_derived(&e);
    zf_cx_counting_free(&e);
    free(seen);
    free(e.fns);
    free(e.edges);
    free(e.block_base);
    free(e.prov);
    free(e.win_base);
    free(e.win_lo);
    free(e.win_span);
    for (uint32_t f = 0; e.param_prov != NULL && f < code->num_funcs; f++)
        free(e.param_prov[f]);
    free(e.param_prov);
    if (e.failed) {
        if (e.m != NULL)
            LLVMDisposeModule(e.m);
        free(e.blocks);
        return false;
    }
    out->module = e.m;
    out->blocks = e.blocks;
    out->num_blocks = e.num_blocks;
    out->spill_bytes = e.spill_bytes;
    out->num_regions = e.num_regions;
    out->num_texsites = e.num_texsites;
    out->num_proven = e.num_proven;
    out->num_derived = derived;
    out->num_affine = affine;
    out->wave_rows = e.wave_rows;
    out->step_lanes = e.step_lanes;
    return true;
}
