/* Work-items in step (docs/spirv-execution.md, "Work-items in step"). A loop of one work-item is often one chain of
 * dependent operations (the sum of a naive matrix product): the core waits on each addition, and the loop's
 * bookkeeping (its counter, the address of a value every work-item reads) is made again by each work-item. When the
 * kernel's branches are the same for the work-items of a row of its group, the compiled tier runs `lanes` of them
 * side by side: one more copy of the kernel's function makes each instruction once for all of them when its result is
 * the same for all (it depends on no value that varies along local id x), else once per work-item, in frames of
 * their own; the branches follow the first work-item's conditions, which are everyone's.
 *
 * OpenCL orders no access of one work-item after another's without a barrier, so running them in step changes no
 * result of a kernel without data races. What the interpreter defines beyond that stays as it is: the copy leaves
 * (bails) at any access outside its window and at the hang detector's look, before any of its work-items wrote
 * memory (the kernel qualifies only when nothing it can do after a store can bail, and a store checks every
 * work-item's address before the first writes), and the wave then runs those work-items one by one in the checked
 * function, from their start. Its block counts go to the wave only when it returns, so the executed-work record is
 * the checked function's.
 *
 * The kernel qualifies when its function (or the one its wrapper calls with its own parameters: zf_cx_step_body) has a
 * loop, no barrier, call, private variable, by-value argument, atomic, image or other operation that involves more
 * than its operands and memory through an argument's or the local window, and its group size is fixed and a multiple
 * of 4; every conditional branch and switch must decide on a value that does not vary along x. */
#include "cx_internal.h"

#include <stdlib.h>

typedef struct zf_cx_step_plan {
    const zf_cx_em *e;
    const zf_dfunc *fn;
    uint8_t *vary; /* per frame byte */
    bool changed;
} zf_cx_step_plan;

static zf_ref zf_cx_ref_at(zf_ref r, uint32_t k) {
    return r == ZF_REF_NONE ? r : ZF_REF_MAKE(ZF_REF_AREA(r), ZF_REF_OFFSET(r) + k);
}

/* Built-ins whose value differs between work-items of one row of a group (a sub-group may start inside a row). */
static bool zf_cx_step_builtin_varies(const zf_dwave *w, uint32_t lo, uint32_t hi) {
    uint32_t es = zf_etype_size(w->type);
    switch (w->index) {
    case SpvBuiltInGlobalInvocationId:
    case SpvBuiltInLocalInvocationId:
        return lo < w->offset + es; /* component x */
    case SpvBuiltInLocalInvocationIndex:
    case SpvBuiltInGlobalLinearId:
    case SpvBuiltInSubgroupSize:
    case SpvBuiltInSubgroupId:
    case SpvBuiltInSubgroupLocalInvocationId:
        return hi > lo;
    default:
        return false;
    }
}

/* Whether any byte of `size` bytes at r varies along x. */
static bool zf_cx_step_varies(const zf_cx_em *e, const uint8_t *vary, zf_ref r, uint32_t size) {
    if (r == ZF_REF_NONE || size == 0)
        return false;
    uint32_t area = ZF_REF_AREA(r), o = ZF_REF_OFFSET(r);
    if (area == ZF_AREA_FRAME) {
        for (uint32_t k = o; k < o + size; k++)
            if (k >= e->fn->frame_bytes || vary[k])
                return true;
        return false;
    }
    if (area != ZF_AREA_WAVE)
        return false;
    for (uint32_t i = 0; i < e->code->num_waves; i++) {
        const zf_dwave *w = &e->code->waves[i];
        uint32_t bytes = zf_etype_size(w->type) * zf_slot(w->comps);
        if (w->kind != ZF_WAVE_BUILTIN || o + size <= w->offset || o >= w->offset + bytes)
            continue;
        if (zf_cx_step_builtin_varies(w, o > w->offset ? o : w->offset, o + size))
            return true;
    }
    return false;
}

static void zf_cx_step_mark(zf_cx_step_plan *p, zf_ref r, uint32_t size) {
    if (r == ZF_REF_NONE || ZF_REF_AREA(r) != ZF_AREA_FRAME)
        return;
    for (uint32_t k = ZF_REF_OFFSET(r); k < ZF_REF_OFFSET(r) + size && k < p->fn->frame_bytes; k++) {
        p->changed |= !p->vary[k];
        p->vary[k] = 1;
    }
}

/* A move byte by byte: each byte of the result varies as the byte it copies. */
static void zf_cx_step_plan_move(zf_cx_step_plan *p, zf_ref dst, zf_ref src, uint32_t size) {
    for (uint32_t k = 0; k < size; k++)
        if (zf_cx_step_varies(p->e, p->vary, zf_cx_ref_at(src, k), 1))
            zf_cx_step_mark(p, zf_cx_ref_at(dst, k), 1);
}

/* A range another instruction reads or writes whole lives in one frame: all of it varies when part of it does. */
static void zf_cx_step_whole(zf_cx_step_plan *p, zf_ref r, uint32_t size) {
    if (zf_cx_step_varies(p->e, p->vary, r, size))
        zf_cx_step_mark(p, r, size);
}

/* One byte copy of an instruction that moves bytes. */
typedef struct zf_cx_step_part {
    zf_ref dst, src;
    uint32_t size;
} zf_cx_step_part;

/* The copies of bytes an instruction is, planned and made byte by byte (MOV and EXTRACT one, INSERT two); 0 for
 * another instruction. */
static uint32_t zf_cx_step_parts(const zf_dinst *in, zf_cx_step_part parts[2]) {
    switch (in->op) {
    case ZF_X_MOV:
        parts[0] = (zf_cx_step_part){in->dst, in->a, in->size};
        return 1;
    case ZF_X_EXTRACT:
        parts[0] = (zf_cx_step_part){in->dst, zf_cx_ref_at(in->a, in->aux), in->size};
        return 1;
    case ZF_X_INSERT:
        parts[0] = (zf_cx_step_part){in->dst, in->a, in->asize};
        parts[1] = (zf_cx_step_part){zf_cx_ref_at(in->dst, in->aux), in->b, in->size};
        return 2;
    default:
        return 0;
    }
}

static void zf_cx_step_plan_inst(zf_cx_step_plan *p, const zf_dinst *in) {
    zf_cx_step_part parts[2];
    uint32_t moves = zf_cx_step_parts(in, parts);
    for (uint32_t k = 0; k < moves; k++)
        zf_cx_step_plan_move(p, parts[k].dst, parts[k].src, parts[k].size);
    if (moves > 0)
        return;
    zf_operand_sizes s = {0, 0, 0, 0};
    zf_cx_sizes(p->e->code, in, &s);
    bool varies = zf_cx_step_varies(p->e, p->vary, in->a, s.a) || zf_cx_step_varies(p->e, p->vary, in->b, s.b) ||
                  zf_cx_step_varies(p->e, p->vary, in->c, s.c);
    if (in->op == ZF_X_ACCESS) {
        const uint32_t *aux = p->e->code->aux + in->aux;
        for (uint32_t t = 0; t < aux[2]; t++) {
            const uint32_t *term = aux + 3 + 4 * t;
            varies |= zf_cx_step_varies(p->e, p->vary, term[0], term[1]);
            zf_cx_step_whole(p, term[0], term[1]);
        }
    }
    if (varies && in->dst != ZF_REF_NONE)
        zf_cx_step_mark(p, in->dst, s.dst);
    zf_cx_step_whole(p, in->a, s.a);
    zf_cx_step_whole(p, in->b, s.b);
    zf_cx_step_whole(p, in->c, s.c);
    zf_cx_step_whole(p, in->dst, s.dst);
}

static void zf_cx_step_plan_copies(zf_cx_step_plan *p, uint32_t first, uint32_t count) {
    for (uint32_t i = 0; i < count; i++) {
        const zf_dcopy *c = &p->e->code->copies[first + i];
        zf_cx_step_plan_move(p, c->dst, c->src, c->size);
    }
}

static bool zf_cx_step_op(const zf_cx_em *e, const zf_dinst *in) {
    switch (in->op) {
    case ZF_X_NOP:
    case ZF_X_MOV:
    case ZF_X_EXTRACT:
    case ZF_X_INSERT:
    case ZF_X_ACCESS:
    case ZF_X_BR:
    case ZF_X_BRC:
    case ZF_X_SWITCH:
    case ZF_X_RET:
    case ZF_X_SELECT:
        return true;
    case ZF_X_LOAD:
    case ZF_X_STORE:
    case ZF_X_STOREZ:
        return zf_cx_bail_point(e, in); /* windowed, not volatile */
    case ZF_X_GCAST:
    case ZF_X_GETFENCE:
        return false;
    default:
        return zf_cx_is_pure(in->op);
    }
}

/* Whether the kernel can bail after a store: an access or a loop head (the hang detector's look) that a store can
 * reach in the same work-item, other than the store's own check. */
static bool zf_cx_step_bails_after_store(const zf_cx_em *e, const bool *heads) {
    const zf_dfunc *fn = e->fn;
    uint8_t *stored = calloc(fn->block_count ? fn->block_count : 1, 1);
    if (stored == NULL)
        return true;
    bool bad = false;
    for (bool changed = true; changed && !bad;) {
        changed = false;
        for (uint32_t b = 0; b < fn->block_count && !bad; b++) {
            const zf_dblock *blk = &e->code->blocks[fn->block_first + b];
            bool s = stored[b];
            bad |= s && heads[b];
            for (uint32_t i = 0; i < blk->count && !bad; i++) {
                const zf_dinst *in = &e->code->insts[blk->first + i];
                bool access = in->op == ZF_X_LOAD || in->op == ZF_X_STORE || in->op == ZF_X_STOREZ;
                bad |= s && access;
                s |= in->op == ZF_X_STORE || in->op == ZF_X_STOREZ;
            }
            uint32_t edge;
            const zf_dinst *term = &e->code->insts[blk->first + blk->count - 1];
            for (uint32_t k = 0; s && zf_cx_term_edge(e->code, term, k, &edge); k++) {
                uint32_t to = e->code->edges[edge].target;
                changed |= !stored[to];
                stored[to] = 1;
            }
        }
    }
    free(stored);
    return bad;
}

/* Whether the instructions and the values of the function qualify, the varying bytes into p->vary. */
static bool zf_cx_step_qualifies(zf_cx_step_plan *p, const bool *heads) {
    const zf_cx_em *e = p->e;
    const zf_dfunc *fn = p->fn;
    bool loop = false;
    for (uint32_t b = 0; b < fn->block_count; b++) {
        const zf_dblock *blk = &e->code->blocks[fn->block_first + b];
        loop |= heads[b];
        for (uint32_t i = 0; i < blk->count; i++)
            if (!zf_cx_step_op(e, &e->code->insts[blk->first + i]))
                return false;
    }
    if (!loop || zf_cx_step_bails_after_store(e, heads))
        return false;
    for (p->changed = true; p->changed;) {
        p->changed = false;
        for (uint32_t b = 0; b < fn->block_count; b++) {
            const zf_dblock *blk = &e->code->blocks[fn->block_first + b];
            zf_cx_step_plan_copies(p, blk->commit_first, blk->commit_count);
            for (uint32_t i = 0; i < blk->count; i++) {
                const zf_dinst *in = &e->code->insts[blk->first + i];
                zf_cx_step_plan_inst(p, in);
                uint32_t edge;
                for (uint32_t k = 0; zf_cx_term_edge(e->code, in, k, &edge); k++)
                    zf_cx_step_plan_copies(p, e->code->edges[edge].copy_first, e->code->edges[edge].copy_count);
            }
        }
    }
    for (uint32_t k = 0; k < fn->param_count; k++) {
        const zf_dparam *par = &e->code->params[fn->param_first + k];
        if (zf_cx_step_varies(e, p->vary, par->ref, par->size))
            return false;
    }
    for (uint32_t b = 0; b < fn->block_count; b++) {
        const zf_dblock *blk = &e->code->blocks[fn->block_first + b];
        const zf_dinst *term = &e->code->insts[blk->first + blk->count - 1];
        uint32_t bytes = term->op == ZF_X_BRC ? 1 : term->op == ZF_X_SWITCH ? zf_etype_size(term->type) : 0;
        if (zf_cx_step_varies(e, p->vary, term->a, bytes))
            return false;
    }
    return true;
}

/* The function whose body runs in step: the entry function, or what it calls when all it does is call one function
 * with its own parameters (as a kernel's wrapper does); UINT32_MAX for another kernel. */
static uint32_t zf_cx_step_body(const zf_cx_em *e) {
    uint32_t entry = e->kernel->function;
    const zf_dfunc *fn = &e->code->funcs[entry];
    const zf_dinst *call = NULL;
    for (uint32_t b = 0; b < fn->block_count; b++) {
        const zf_dblock *blk = &e->code->blocks[fn->block_first + b];
        for (uint32_t i = 0; i < blk->count; i++) {
            const zf_dinst *in = &e->code->insts[blk->first + i];
            if (in->op == ZF_X_CALL && (call != NULL || fn->block_count != 1))
                return UINT32_MAX;
            call = in->op == ZF_X_CALL ? in : call;
        }
    }
    if (call == NULL)
        return entry;
    const zf_dblock *blk = &e->code->blocks[fn->block_first];
    for (uint32_t i = 0; i < blk->count; i++) {
        uint32_t op = e->code->insts[blk->first + i].op;
        if (op != ZF_X_CALL && op != ZF_X_NOP && op != ZF_X_RET)
            return UINT32_MAX;
    }
    const uint32_t *aux = e->code->aux + call->aux;
    const zf_dfunc *callee = &e->code->funcs[aux[0]];
    if (call->dst != ZF_REF_NONE || aux[1] != fn->param_count || callee->param_count != fn->param_count)
        return UINT32_MAX;
    for (uint32_t k = 0; k < fn->param_count; k++) {
        const zf_dparam *mine = &e->code->params[fn->param_first + k];
        const zf_dparam *theirs = &e->code->params[callee->param_first + k];
        if (aux[2 + 2 * k] != mine->ref || aux[3 + 2 * k] != mine->size || theirs->size != mine->size)
            return UINT32_MAX;
    }
    return aux[0];
}

static uint32_t zf_cx_step_lanes_for(const zf_cx_em *e) {
    uint64_t x = e->fixed_size[0];
    return x > 0 && x % 8 == 0 ? 8u : x > 0 && x % 4 == 0 ? 4u : 0u;
}

/* The plan: the varying bytes of the entry function's frame (e->step_vary), or none when the kernel does not
 * qualify. */
static void zf_cx_step_plan_make(zf_cx_em *e) {
    uint32_t lanes = zf_cx_step_lanes_for(e), entry = e->kernel->function, body = zf_cx_step_body(e);
    if (lanes == 0 || e->barriers || e->unchecked_fn != NULL || e->vars || body == UINT32_MAX)
        return;
    for (uint32_t f = 0; f < e->code->num_funcs; f++)
        if (f != entry && f != body && e->fns[f] != NULL)
            return;
    for (uint32_t k = 0; k < e->num_kinds; k++)
        if (e->kinds[k] == ZF_XARG_BYVAL)
            return;
    const zf_dfunc *fn = &e->code->funcs[body];
    if (zf_cx_has_vars(e->code, fn))
        return;
    e->fn = fn;
    zf_cx_provenance(e, body); /* which window each access is in */
    zf_cx_step_plan p = {e, fn, calloc(fn->frame_bytes ? fn->frame_bytes : 1, 1), false};
    bool *heads = zf_cx_loop_heads(e);
    if (p.vary != NULL && heads != NULL && zf_cx_step_qualifies(&p, heads)) {
        e->step_vary = p.vary;
        e->step_lanes = lanes;
        e->step_body = body;
        p.vary = NULL;
    }
    free(p.vary);
    free(heads);
}

void zf_cx_step(zf_cx_em *e) {
    zf_cx_step_plan_make(e);
    if (e->step_vary == NULL)
        return;
    uint32_t body = e->step_body;
    LLVMValueRef generic = e->fns[body];
    e->fns[body] = zf_cx_new_function(e, "zf_cx_step");
    e->mode = ZF_CX_STEP;
    e->region = UINT32_MAX;
    e->counting = false;
    zf_cx_function_body(e, body);
    e->mode = ZF_CX_CHECKED;
    e->counting = true;
    e->step_fn = e->fns[body];
    e->fns[body] = generic;
    LLVMAddAttributeAtIndex(e->step_fn, LLVMAttributeFunctionIndex,
                            LLVMCreateEnumAttribute(e->c, LLVMGetEnumAttributeKindForName("alwaysinline", 12), 0));
}

void zf_cx_step_free(zf_cx_em *e) {
    free(e->step_vary);
    e->step_vary = NULL;
}

/* ------------------------------------------------------------------------------------------------------------------
 * The copy */

/* The frame that holds `size` bytes at frame offset o for the current work-item: the first work-item's when none of
 * them varies. */
LLVMValueRef zf_cx_step_frame(const zf_cx_em *e, uint32_t o, uint32_t size) {
    if (e->mode != ZF_CX_STEP)
        return e->frame;
    for (uint32_t k = o; k < o + (size ? size : 1); k++)
        if (k < e->fn->frame_bytes && e->step_vary[k])
            return e->frame;
    return e->step_frames[0];
}

/* The copy's work-items: frames, work-items (the first is the caller's: its hang detector budget goes back to the
 * wave) and block counters of its own. */
void zf_cx_step_start(zf_cx_em *e) {
    LLVMBuilderRef B = e->b;
    e->step_frames[0] = e->frame;
    e->step_items[0] = e->item;
    e->step_lane[0] = e->lane;
    size_t item_bytes = 8ull * (ZF_CX_ITEM_COUNT + 1);
    LLVMValueRef lid = zf_cx_item(e, ZF_CX_ITEM_LID);
    for (uint32_t j = 1; j < e->step_lanes; j++) {
        e->step_frames[j] = zf_cx_alloca(e, e->fn->frame_bytes);
        e->step_items[j] = LLVMBuildBitCast(B, zf_cx_alloca(e, item_bytes), e->p64, "");
        LLVMBuildMemCpy(B, LLVMBuildBitCast(B, e->step_items[j], e->p8, ""), 8, LLVMBuildBitCast(B, e->item, e->p8, ""),
                        8, zf_cx_i64c(e, item_bytes));
        e->step_lane[j] = LLVMBuildAdd(B, e->lane, zf_cx_i64c(e, j), "");
        LLVMValueRef index[2] = {LLVMConstInt(e->i32, ZF_CX_ITEM_LANE, false),
                                 LLVMConstInt(e->i32, ZF_CX_ITEM_LID, false)};
        LLVMBuildStore(B, e->step_lane[j], LLVMBuildGEP2(B, e->i64, e->step_items[j], &index[0], 1, ""));
        LLVMBuildStore(B, LLVMBuildAdd(B, lid, zf_cx_i64c(e, j), ""),
                       LLVMBuildGEP2(B, e->i64, e->step_items[j], &index[1], 1, ""));
    }
    e->step_out = e->counts;
    e->counts = LLVMBuildBitCast(B, zf_cx_alloca(e, 8ull * (e->num_blocks ? e->num_blocks : 1)), e->p64, "");
    LLVMBuildMemSet(B, LLVMBuildBitCast(B, e->counts, e->p8, ""), LLVMConstInt(e->i8, 0, false),
                    zf_cx_i64c(e, 8ull * e->num_blocks), 8);
    if (e->step_body != e->kernel->function) { /* the wrapper's one block, which the copy does not run */
        LLVMValueRef index = zf_cx_i64c(e, e->block_base[e->kernel->function]);
        LLVMBuildStore(B, zf_cx_i64c(e, e->step_lanes), LLVMBuildGEP2(B, e->i64, e->counts, &index, 1, ""));
    }
}

/* Before the copy returns with its work-items done: its counts to the wave's. */
void zf_cx_step_counts_out(zf_cx_em *e) {
    for (uint32_t j = 0; j < e->num_blocks; j++) {
        LLVMValueRef index = zf_cx_i64c(e, j);
        LLVMValueRef to = LLVMBuildGEP2(e->b, e->i64, e->step_out, &index, 1, "");
        LLVMValueRef from = LLVMBuildGEP2(e->b, e->i64, e->counts, &index, 1, "");
        LLVMBuildStore(
            e->b, LLVMBuildAdd(e->b, LLVMBuildLoad2(e->b, e->i64, to, ""), LLVMBuildLoad2(e->b, e->i64, from, ""), ""),
            to);
    }
}

static void zf_cx_step_lane(zf_cx_em *e, uint32_t j) {
    e->frame = e->step_frames[j];
    e->item = e->step_items[j];
    e->lane = e->step_lane[j];
}

/* A move of `size` bytes in runs: a run whose result does not vary is made once, the others for each work-item. */
void zf_cx_step_move(zf_cx_em *e, zf_ref dst, zf_ref src, uint32_t size) {
    for (uint32_t k = 0; k < size;) {
        bool dst_varies = zf_cx_step_varies(e, e->step_vary, zf_cx_ref_at(dst, k), 1);
        bool src_varies = zf_cx_step_varies(e, e->step_vary, zf_cx_ref_at(src, k), 1);
        uint32_t n = 1;
        while (k + n < size && zf_cx_step_varies(e, e->step_vary, zf_cx_ref_at(dst, k + n), 1) == dst_varies &&
               zf_cx_step_varies(e, e->step_vary, zf_cx_ref_at(src, k + n), 1) == src_varies)
            n++;
        for (uint32_t j = 0; j < (dst_varies ? e->step_lanes : 1u); j++) {
            zf_cx_step_lane(e, j);
            zf_cx_move(e, zf_cx_dst(e, zf_cx_ref_at(dst, k)), zf_cx_reg(e, zf_cx_ref_at(src, k), n), n);
        }
        zf_cx_step_lane(e, 0);
        k += n;
    }
}

/* A store checks every work-item's address before the first one writes. */
static void zf_cx_step_store_checks(zf_cx_em *e, const zf_dinst *in) {
    uint32_t k = zf_cx_window_of(e, in->a);
    for (uint32_t j = 0; j < e->step_lanes; j++) {
        zf_cx_step_lane(e, j);
        LLVMValueRef addr = zf_cx_load_ir(e, e->i64, zf_cx_reg(e, in->a, 8));
        LLVMBasicBlockRef go = LLVMAppendBasicBlockInContext(e->c, e->f, "inside");
        zf_cx_likely(e, LLVMBuildCondBr(e->b, zf_cx_window_has(e, k, addr, in->size), go, e->fault_bb));
        LLVMPositionBuilderAtEnd(e->b, go);
    }
    zf_cx_step_lane(e, 0);
}

void zf_cx_step_inst(zf_cx_em *e, const zf_dinst *in) {
    zf_cx_step_part parts[2];
    uint32_t moves = zf_cx_step_parts(in, parts);
    for (uint32_t k = 0; k < moves; k++)
        zf_cx_step_move(e, parts[k].dst, parts[k].src, parts[k].size);
    if (moves > 0)
        return;
    zf_operand_sizes s = {0, 0, 0, 0};
    zf_cx_sizes(e->code, in, &s);
    bool varies = in->dst != ZF_REF_NONE && s.dst > 0 ? zf_cx_step_varies(e, e->step_vary, in->dst, s.dst)
                                                      : zf_cx_step_varies(e, e->step_vary, in->a, s.a) ||
                                                            zf_cx_step_varies(e, e->step_vary, in->b, s.b);
    bool branch = in->op == ZF_X_BR || in->op == ZF_X_BRC || in->op == ZF_X_SWITCH || in->op == ZF_X_RET;
    if (varies && !branch && (in->op == ZF_X_STORE || in->op == ZF_X_STOREZ))
        zf_cx_step_store_checks(e, in);
    for (uint32_t j = 0; j < (varies && !branch ? e->step_lanes : 1u); j++) {
        zf_cx_step_lane(e, j);
        zf_cx_inst(e, in);
    }
    zf_cx_step_lane(e, 0);
}
