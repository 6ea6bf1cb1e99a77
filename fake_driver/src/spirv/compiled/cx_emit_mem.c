/* Memory in the compiled tier (docs/spirv-execution.md, "Compiled tier"): the provenance of the entry function's
 * pointers (which kernel argument each derives from, a fixpoint over its blocks), the checked loads and stores (one
 * compare against the argument's window, the interpreter's check on the slow path), atomics, volatile accesses, memory
 * copies and address arithmetic; then what a work-group barrier needs: the liveness of the frame's bytes, saving and
 * restoring them in the work-item's record, suspension and resume points, calls of resumable functions and returns;
 * and private variables, whose slots are the interpreter's. */
#include "cx_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------------------------------------------------
 * Provenance of pointers in the entry function: which kernel argument every definition of a register derives from */

static uint16_t zf_cx_prov_of(const zf_cx_em *e, zf_ref r) {
    if (ZF_REF_AREA(r) == ZF_AREA_FRAME)
        return e->prov[ZF_REF_OFFSET(r)];
    for (uint32_t i = 0; ZF_REF_AREA(r) == ZF_AREA_WAVE && i < e->code->num_waves; i++)
        if (e->code->waves[i].kind == ZF_WAVE_LOCALVAR && e->code->waves[i].offset == ZF_REF_OFFSET(r))
            return ZF_CX_PROV_LOCAL;
    return ZF_CX_PROV_OTHER;
}

static bool zf_cx_prov_merge(zf_cx_em *e, zf_ref dst, uint16_t v) {
    if (ZF_REF_AREA(dst) != ZF_AREA_FRAME || v == ZF_CX_PROV_NONE)
        return false;
    uint16_t *p = &e->prov[ZF_REF_OFFSET(dst)];
    uint16_t merged = *p == ZF_CX_PROV_NONE || *p == v ? v : ZF_CX_PROV_OTHER;
    if (merged == *p)
        return false;
    *p = merged;
    return true;
}

static bool zf_cx_prov_copies(zf_cx_em *e, uint32_t first, uint32_t count) {
    bool changed = false;
    for (uint32_t i = 0; i < count; i++) {
        const zf_dcopy *c = &e->code->copies[first + i];
        changed |= zf_cx_prov_merge(e, c->dst, c->size == 8 ? zf_cx_prov_of(e, c->src) : ZF_CX_PROV_OTHER);
    }
    return changed;
}

static bool zf_cx_prov_edge(zf_cx_em *e, uint32_t edge) {
    const zf_dedge *ed = &e->code->edges[edge];
    return zf_cx_prov_copies(e, ed->copy_first, ed->copy_count);
}

static bool zf_cx_prov_inst(zf_cx_em *e, const zf_dinst *in) {
    switch (in->op) {
    case ZF_X_ACCESS:
        return zf_cx_prov_merge(e, in->dst, zf_cx_prov_of(e, in->a));
    case ZF_X_MOV:
        return zf_cx_prov_merge(e, in->dst, in->size == 8 ? zf_cx_prov_of(e, in->a) : ZF_CX_PROV_OTHER);
    case ZF_X_BR:
        return zf_cx_prov_edge(e, in->aux);
    case ZF_X_BRC: {
        bool changed = zf_cx_prov_edge(e, in->aux);
        changed |= zf_cx_prov_edge(e, in->aux + 1); /* both edges, whatever the first answered */
        return changed;
    }
    case ZF_X_SWITCH: {
        const uint32_t *aux = e->code->aux + in->aux;
        bool changed = zf_cx_prov_edge(e, aux[1]);
        for (uint32_t k = 0; k < aux[0]; k++)
            changed |= zf_cx_prov_edge(e, aux[2 + 3 * k + 2]);
        return changed;
    }
    default:
        return in->dst != ZF_REF_NONE ? zf_cx_prov_merge(e, in->dst, ZF_CX_PROV_OTHER) : false;
    }
}

/* Passes the provenance of a call's arguments on to the callee's parameters. */
static void zf_cx_prov_call(zf_cx_em *e, const zf_dinst *in) {
    const uint32_t *aux = e->code->aux + in->aux;
    const zf_dfunc *callee = &e->code->funcs[aux[0]];
    uint16_t *to = e->param_prov[aux[0]];
    for (uint32_t i = 0; i < aux[1] && i < callee->param_count; i++) {
        uint16_t v = aux[2 + 2 * i + 1] == 8 ? zf_cx_prov_of(e, aux[2 + 2 * i]) : ZF_CX_PROV_OTHER;
        v = v == ZF_CX_PROV_NONE ? ZF_CX_PROV_OTHER : v;
        to[i] = to[i] == ZF_CX_PROV_NONE || to[i] == v ? v : ZF_CX_PROV_OTHER;
    }
}

/* The provenance of the function's registers: its parameters' (from its callers, which are done before it), then
 * every definition until nothing changes; then its calls pass theirs on. */
void zf_cx_provenance(zf_cx_em *e, uint32_t fi) {
    const zf_dfunc *fn = e->fn;
    memset(e->prov, 0, (size_t)fn->frame_bytes * sizeof *e->prov);
    for (uint32_t k = 0; k < fn->param_count; k++) {
        const zf_dparam *p = &e->code->params[fn->param_first + k];
        uint16_t v = e->param_prov[fi][k];
        zf_cx_prov_merge(e, p->ref, v == ZF_CX_PROV_NONE ? ZF_CX_PROV_OTHER : v);
    }
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t b = 0; b < fn->block_count; b++) {
            const zf_dblock *blk = &e->code->blocks[fn->block_first + b];
            changed |= zf_cx_prov_copies(e, blk->commit_first, blk->commit_count);
            for (uint32_t i = 0; i < blk->count; i++)
                changed |= zf_cx_prov_inst(e, &e->code->insts[blk->first + i]);
        }
    }
    for (uint32_t b = 0; b < fn->block_count; b++) {
        const zf_dblock *blk = &e->code->blocks[fn->block_first + b];
        for (uint32_t i = 0; i < blk->count; i++)
            if (e->code->insts[blk->first + i].op == ZF_X_CALL)
                zf_cx_prov_call(e, &e->code->insts[blk->first + i]);
    }
}

/* ------------------------------------------------------------------------------------------------------------------
 * Memory */

/* Marks a conditional branch whose first successor is (almost) always taken: range checks that pass, so that the
 * optimizer lays out and transforms loops for the checked fast path. */
void zf_cx_likely(zf_cx_em *e, LLVMValueRef br) {
    LLVMMetadataRef parts[3] = {LLVMMDStringInContext2(e->c, "branch_weights", 14),
                                LLVMValueAsMetadata(LLVMConstInt(e->i32, 1u << 20, false)),
                                LLVMValueAsMetadata(LLVMConstInt(e->i32, 1, false))};
    LLVMValueRef node = LLVMMetadataAsValue(e->c, LLVMMDNodeInContext2(e->c, parts, 3));
    LLVMSetMetadata(br, LLVMGetMDKindIDInContext(e->c, "prof", 4), node);
}

/* Adds an access's bytes to a block's counts (an atomic's read_too: read and written). */
static void zf_cx_add_bytes(zf_cx_block *b, uint32_t size, bool write, bool local, bool read_too) {
    *(write ? (local ? &b->written_local : &b->written) : (local ? &b->read_local : &b->read)) += size;
    *(local ? &b->read_local : &b->read) += read_too ? size : 0;
}

typedef struct zf_cx_edge_note {
    LLVMValueRef add;   /* its add of the bytes not moved, whose constant operand is set when the block ends */
    zf_cx_block so_far; /* the block's bytes counted before the edge */
} zf_cx_edge_note;

LLVMBasicBlockRef zf_cx_fault_edge(zf_cx_em *e) {
    if (e->mode == ZF_CX_STEP) /* the copy in step bails: the checked function counts what is not moved */
        return e->fault_bb;
    if (e->num_edges == e->cap_edges) {
        uint32_t cap = e->cap_edges ? 2 * e->cap_edges : 16;
        zf_cx_edge_note *grown = realloc(e->edges, cap * sizeof *grown);
        if (grown == NULL) {
            zf_cx_fail(e, "out of host memory");
            return e->fault_bb;
        }
        e->edges = grown;
        e->cap_edges = cap;
    }
    e->leaves = true;
    LLVMBasicBlockRef from = LLVMGetInsertBlock(e->b), edge = LLVMAppendBasicBlockInContext(e->c, e->f, "faulted");
    LLVMPositionBuilderAtEnd(e->b, edge);
    LLVMTypeRef v4 = LLVMVectorType(e->i64, 4);
    LLVMValueRef at = zf_cx_gep(e, e->rt, offsetof(zf_cx_rt, unrun));
    LLVMValueRef add = LLVMBuildAdd(e->b, zf_cx_load_ir(e, v4, at), LLVMConstNull(v4), "");
    zf_cx_store(e, add, at);
    LLVMBuildBr(e->b, e->fault_bb);
    LLVMPositionBuilderAtEnd(e->b, from);
    e->edges[e->num_edges++] = (zf_cx_edge_note){add, e->so_far};
    return edge;
}

void zf_cx_fault_edges_close(zf_cx_em *e) {
    const zf_cx_block *end = &e->so_far;
    for (uint32_t k = 0; k < e->num_edges; k++) {
        const zf_cx_block *at = &e->edges[k].so_far;
        LLVMValueRef rest[4] = {zf_cx_i64c(e, end->read - at->read), zf_cx_i64c(e, end->written - at->written),
                                zf_cx_i64c(e, end->read_local - at->read_local),
                                zf_cx_i64c(e, end->written_local - at->written_local)};
        LLVMSetOperand(e->edges[k].add, 1, LLVMConstVector(rest, 4));
    }
    e->num_edges = 0;
    e->so_far = (zf_cx_block){0};
}

uint32_t zf_cx_window_of(const zf_cx_em *e, zf_ref ptr) {
    uint16_t prov = zf_cx_prov_of(e, ptr);
    if (prov == ZF_CX_PROV_LOCAL)
        return e->num_kinds; /* the local window follows the arguments' */
    return prov != ZF_CX_PROV_NONE && prov != ZF_CX_PROV_OTHER && prov - 1u < e->num_kinds ? prov - 1u : UINT32_MAX;
}

/* For the local window of a kernel whose groups' local memory has a size the code knows: whether an access stays in
 * its group's, p - (lo + slot * stride) < bytes - size + 1. A constant bound, against which the optimizer proves an
 * index bounded by the code itself (a tree reduction's l + s for l < s) and drops the check. What it refuses (another
 * group's local memory of the wave) the slow path decides as the interpreter does. */
static LLVMValueRef zf_cx_group_local_has(zf_cx_em *e, LLVMValueRef addr, uint32_t size) {
    uint64_t limit = e->group_local_bytes >= size ? e->group_local_bytes - size + 1 : 0;
    LLVMValueRef offset = LLVMBuildSub(e->b, addr, zf_cx_group_local_lo(e), "");
    return LLVMBuildICmp(e->b, LLVMIntULT, offset, zf_cx_i64c(e, limit), "");
}

/* One unsigned comparison, p - lo < span - size + 1 (0 when the access cannot fit): loop-invariant bounds the
 * optimizer hoists, an index it can reason about (range-check elimination). */
LLVMValueRef zf_cx_window_has(zf_cx_em *e, uint32_t k, LLVMValueRef addr, uint32_t size) {
    LLVMBuilderRef b = e->b;
    if (k == e->num_kinds && e->group_local_bytes > 0)
        return zf_cx_group_local_has(e, addr, size);
    LLVMValueRef span = e->win_span[k], sz = zf_cx_i64c(e, size);
    LLVMValueRef limit =
        LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntUGE, span, sz, ""),
                        LLVMBuildAdd(b, LLVMBuildSub(b, span, sz, ""), zf_cx_i64c(e, 1), ""), zf_cx_i64c(e, 0), "");
    return LLVMBuildICmp(b, LLVMIntULT, LLVMBuildSub(b, addr, e->win_lo[k], ""), limit, "");
}

/* The pointer to addr inside window k, based on the window's pointer. */
static LLVMValueRef zf_cx_window_ptr(zf_cx_em *e, uint32_t k, LLVMValueRef addr) {
    LLVMValueRef offset = LLVMBuildSub(e->b, addr, e->win_lo[k], "");
    return LLVMBuildGEP2(e->b, e->i8, e->win_base[k], &offset, 1, "");
}

/* The host address of an access of `size` bytes at `addr` (an i64), checked; a fault leaves the function. In the
 * unchecked copy of a kernel whose checks the wave made for the whole group (cx_emit_hoist.c), an access it covered
 * is the window's base plus an offset, which the loop vectoriser follows. */
static LLVMValueRef zf_cx_access_counted(zf_cx_em *e, zf_ref ptr, LLVMValueRef addr, uint32_t size, bool write,
                                         bool read_too) {
    LLVMBuilderRef b = e->b;
    LLVMTypeRef params[6] = {e->p8, e->i64, e->i64, e->i64, e->i64, e->i64};
    uint32_t k = zf_cx_window_of(e, ptr);
    bool windowed = k != UINT32_MAX, local = k == e->num_kinds;
    uint32_t count = windowed ? 0 : ZF_CX_COUNT | (read_too ? ZF_CX_COUNT_READ : 0);
    LLVMValueRef args[6] = {
        e->rt, e->lane, zf_cx_i64c(e, 0), addr, zf_cx_i64c(e, size), zf_cx_i64c(e, (write ? ZF_CX_WRITE : 0) | count)};
    if (windowed) {
        zf_cx_block *blk = &e->blocks[e->cur];
        zf_cx_add_bytes(blk, e->counting ? size : 0, write, local, read_too); /* once, whatever the block's copies */
        zf_cx_add_bytes(&e->so_far, size, write, local, read_too);
        if (zf_cx_hoisted(e)) {
            return zf_cx_window_ptr(e, k, addr);
        }
    }
    LLVMBasicBlockRef slow = LLVMAppendBasicBlockInContext(e->c, e->f, "slow");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(e->c, e->f, "checked");
    LLVMBasicBlockRef fast = NULL;
    if (windowed && e->bail_here) { /* a region's copy: outside the window, the generic function takes over */
        LLVMValueRef in = zf_cx_window_has(e, k, addr, size);
        LLVMValueRef direct = zf_cx_window_ptr(e, k, addr);
        zf_cx_likely(e, LLVMBuildCondBr(b, in, done, slow));
        LLVMPositionBuilderAtEnd(b, slow);
        zf_cx_bail(e);
        LLVMPositionBuilderAtEnd(b, done);
        return direct;
    }
    LLVMValueRef offset = NULL;
    if (windowed) {
        LLVMValueRef in = zf_cx_window_has(e, k, addr, size);
        fast = LLVMGetInsertBlock(b);
        offset = LLVMBuildSub(b, addr, e->win_lo[k], "");
        args[2] = e->win_lo[k];
        args[3] = offset;
        zf_cx_likely(e, LLVMBuildCondBr(b, in, done, slow));
    } else {
        LLVMBuildBr(b, slow);
    }
    LLVMPositionBuilderAtEnd(b, slow);
    LLVMValueRef checked = zf_cx_call(e, ZF_CX_HELPER(zf_cx_mem), e->p8, params, 6, args);
    LLVMBasicBlockRef slow_end = LLVMGetInsertBlock(b);
    LLVMValueRef checked_offset =
        windowed ? LLVMBuildSub(b, LLVMBuildPtrToInt(b, checked, e->i64, ""), e->win_lo[k], "") : NULL;
    LLVMBuildCondBr(b, LLVMBuildIsNull(b, checked, ""), zf_cx_fault_edge(e), done);
    LLVMPositionBuilderAtEnd(b, done);
    if (!windowed)
        return checked;
    /* Both paths as offsets from the window's base (the slow one's may lead outside it, to where the interpreter's
     * check allowed): the fast path's pointer is then an addressing mode of the access, not a register of its own. */
    LLVMValueRef phi = LLVMBuildPhi(b, e->i64, "");
    LLVMValueRef values[2] = {offset, checked_offset};
    LLVMBasicBlockRef from[2] = {fast, slow_end};
    LLVMAddIncoming(phi, values, from, 2);
    return LLVMBuildGEP2(b, e->i8, e->win_base[k], &phi, 1, "");
}

static LLVMValueRef zf_cx_access(zf_cx_em *e, zf_ref ptr, LLVMValueRef addr, uint32_t size, bool write) {
    return zf_cx_access_counted(e, ptr, addr, size, write, false);
}

/* OpCopyMemory(Sized): the interpreter's copy (zf_cx_copy), per work-item. */
void zf_cx_copy_inst(zf_cx_em *e, const zf_dinst *in) {
    LLVMValueRef to = zf_cx_load_ir(e, e->i64, zf_cx_reg(e, in->a, 8)),
                 from = zf_cx_load_ir(e, e->i64, zf_cx_reg(e, in->b, 8));
    LLVMValueRef size = zf_cx_i64c(e, in->size);
    if (in->op == ZF_X_COPYMEMN) {
        LLVMValueRef tmp = zf_cx_alloca(e, 8);
        zf_cx_store(e, zf_cx_i64c(e, 0), tmp);
        zf_cx_move(e, tmp, zf_cx_reg(e, in->c, in->asize), in->asize < 8 ? in->asize : 8);
        size = zf_cx_load_ir(e, e->i64, tmp);
    }
    LLVMTypeRef params[5] = {e->p8, e->i64, e->i64, e->i64, e->i64};
    LLVMValueRef args[5] = {e->rt, e->lane, to, from, size};
    LLVMValueRef ok = zf_cx_call(e, ZF_CX_HELPER(zf_cx_copy), e->i32, params, 5, args);
    LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(e->c, e->f, "copied");
    LLVMBuildCondBr(e->b, LLVMBuildICmp(e->b, LLVMIntEQ, ok, LLVMConstInt(e->i32, 0, false), ""), zf_cx_fault_edge(e),
                    next);
    LLVMPositionBuilderAtEnd(e->b, next);
}

/* Atomic float minimum and maximum, which LLVM 14's atomicrmw lacks: a compare-exchange loop around the
 * interpreter's own computation of the new value, as the interpreter makes it. */
static LLVMValueRef zf_cx_atomic_minmax(zf_cx_em *e, const zf_dinst *in, LLVMValueRef tp, LLVMTypeRef t,
                                        LLVMValueRef v) {
    LLVMBuilderRef B = e->b;
    LLVMAtomicOrdering sc = LLVMAtomicOrderingSequentiallyConsistent;
    uint32_t bits = LLVMGetIntTypeWidth(t);
    LLVMValueRef first = LLVMBuildLoad2(B, t, tp, "");
    LLVMSetOrdering(first, sc);
    LLVMSetAlignment(first, bits / 8);
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(B);
    LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(e->c, e->f, "cas");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(e->c, e->f, "cas done");
    LLVMBuildBr(B, loop);
    LLVMPositionBuilderAtEnd(B, loop);
    LLVMValueRef old = LLVMBuildPhi(B, t, "");
    LLVMTypeRef params[4] = {e->i64, e->i64, e->i64, e->i64};
    LLVMValueRef args[4] = {zf_cx_i64c(e, in->aux), LLVMBuildZExt(B, old, e->i64, ""), LLVMBuildZExt(B, v, e->i64, ""),
                            zf_cx_i64c(e, bits)};
    LLVMValueRef next = zf_cx_call(e, ZF_CX_HELPER(zf_cx_atomic_float), e->i64, params, 4, args);
    LLVMValueRef pair = LLVMBuildAtomicCmpXchg(B, tp, old, LLVMBuildTrunc(B, next, t, ""), sc, sc, false);
    LLVMValueRef seen = LLVMBuildExtractValue(B, pair, 0, "");
    LLVMBasicBlockRef here = LLVMGetInsertBlock(B);
    LLVMBuildCondBr(B, LLVMBuildExtractValue(B, pair, 1, ""), done, loop);
    LLVMValueRef values[2] = {first, seen};
    LLVMBasicBlockRef from[2] = {pre, here};
    LLVMAddIncoming(old, values, from, 2);
    LLVMPositionBuilderAtEnd(B, done);
    return old;
}

/* The operation of an atomic on its (checked, aligned) host address, sequentially consistent as the interpreter's. */
static LLVMValueRef zf_cx_atomic_op(zf_cx_em *e, const zf_dinst *in, LLVMValueRef p, LLVMTypeRef t, LLVMValueRef v,
                                    LLVMValueRef c) {
    LLVMBuilderRef B = e->b;
    LLVMAtomicOrdering sc = LLVMAtomicOrderingSequentiallyConsistent;
    LLVMValueRef tp = LLVMBuildBitCast(B, p, LLVMPointerType(t, 0), ""), r;
    LLVMValueRef zero = LLVMConstInt(t, 0, false), one = LLVMConstInt(t, 1, false);
    uint32_t bits = LLVMGetIntTypeWidth(t);
    switch (in->aux) {
    case ZF_ATOM_LOAD:
        r = LLVMBuildLoad2(B, t, tp, "");
        LLVMSetOrdering(r, sc);
        LLVMSetAlignment(r, bits / 8);
        return r;
    case ZF_ATOM_STORE:
    case ZF_ATOM_FLAG_CLEAR:
        r = LLVMBuildStore(B, in->aux == ZF_ATOM_STORE ? v : zero, tp);
        LLVMSetOrdering(r, sc);
        LLVMSetAlignment(r, bits / 8);
        return zero;
    case ZF_ATOM_CMPXCHG:
        r = LLVMBuildAtomicCmpXchg(B, tp, c, v, sc, sc, false);
        return LLVMBuildExtractValue(B, r, 0, "");
    case ZF_ATOM_FLAG_TAS:
        r = LLVMBuildAtomicRMW(B, LLVMAtomicRMWBinOpXchg, tp, one, sc, false);
        return LLVMBuildZExt(B, LLVMBuildICmp(B, LLVMIntNE, r, zero, ""), t, "");
    case ZF_ATOM_FADD: {
        LLVMTypeRef ft = bits == 32 ? e->f32 : e->f64;
        LLVMValueRef fp = LLVMBuildBitCast(B, p, LLVMPointerType(ft, 0), "");
        r = LLVMBuildAtomicRMW(B, LLVMAtomicRMWBinOpFAdd, fp, LLVMBuildBitCast(B, v, ft, ""), sc, false);
        return LLVMBuildBitCast(B, r, t, "");
    }
    case ZF_ATOM_FMIN:
    case ZF_ATOM_FMAX:
        return zf_cx_atomic_minmax(e, in, tp, t, v);
    default:
        break;
    }
    static const LLVMAtomicRMWBinOp ops[ZF_ATOM_COUNT] = {
        [ZF_ATOM_XCHG] = LLVMAtomicRMWBinOpXchg, [ZF_ATOM_INC] = LLVMAtomicRMWBinOpAdd,
        [ZF_ATOM_DEC] = LLVMAtomicRMWBinOpSub,   [ZF_ATOM_ADD] = LLVMAtomicRMWBinOpAdd,
        [ZF_ATOM_SUB] = LLVMAtomicRMWBinOpSub,   [ZF_ATOM_SMIN] = LLVMAtomicRMWBinOpMin,
        [ZF_ATOM_UMIN] = LLVMAtomicRMWBinOpUMin, [ZF_ATOM_SMAX] = LLVMAtomicRMWBinOpMax,
        [ZF_ATOM_UMAX] = LLVMAtomicRMWBinOpUMax, [ZF_ATOM_AND] = LLVMAtomicRMWBinOpAnd,
        [ZF_ATOM_OR] = LLVMAtomicRMWBinOpOr,     [ZF_ATOM_XOR] = LLVMAtomicRMWBinOpXor,
    };
    bool unit = in->aux == ZF_ATOM_INC || in->aux == ZF_ATOM_DEC;
    return LLVMBuildAtomicRMW(B, ops[in->aux], tp, unit ? one : v, sc, false);
}

void zf_cx_atomic(zf_cx_em *e, const zf_dinst *in) {
    uint32_t bytes = zf_etype_size(in->type);
    LLVMTypeRef t = LLVMIntTypeInContext(e->c, 8 * bytes);
    LLVMValueRef addr = zf_cx_load_ir(e, e->i64, zf_cx_reg(e, in->a, 8));
    LLVMValueRef p = zf_cx_access_counted(e, in->a, addr, bytes, in->aux != ZF_ATOM_LOAD, in->aux != ZF_ATOM_LOAD);
    LLVMValueRef misaligned = LLVMBuildICmp(
        e->b, LLVMIntNE, LLVMBuildAnd(e->b, LLVMBuildPtrToInt(e->b, p, e->i64, ""), zf_cx_i64c(e, bytes - 1), ""),
        zf_cx_i64c(e, 0), "");
    LLVMBasicBlockRef bad = LLVMAppendBasicBlockInContext(e->c, e->f, "misaligned");
    LLVMBasicBlockRef good = LLVMAppendBasicBlockInContext(e->c, e->f, "atomic");
    LLVMBuildCondBr(e->b, misaligned, bad, good);
    LLVMPositionBuilderAtEnd(e->b, bad);
    LLVMTypeRef params[4] = {e->p8, e->i64, e->i64, e->i64};
    LLVMValueRef args[4] = {e->rt, e->lane, addr, zf_cx_i64c(e, bytes)};
    zf_cx_call(e, ZF_CX_HELPER(zf_cx_misaligned), LLVMVoidTypeInContext(e->c), params, 4, args);
    LLVMBuildBr(e->b, zf_cx_fault_edge(e));
    LLVMPositionBuilderAtEnd(e->b, good);
    LLVMValueRef v = in->b != ZF_REF_NONE ? zf_cx_load_ir(e, t, zf_cx_reg(e, in->b, bytes)) : LLVMConstInt(t, 0, false);
    LLVMValueRef c = in->c != ZF_REF_NONE ? zf_cx_load_ir(e, t, zf_cx_reg(e, in->c, bytes)) : LLVMConstInt(t, 0, false);
    LLVMValueRef old = zf_cx_atomic_op(e, in, p, t, v, c);
    if (in->dst == ZF_REF_NONE)
        return;
    if (in->size == 1)
        old = LLVMBuildZExt(e->b, LLVMBuildICmp(e->b, LLVMIntNE, old, LLVMConstInt(t, 0, false), ""), e->i8, "");
    zf_cx_store(e, old, zf_cx_dst(e, in->dst));
}

/* A Volatile access of 1, 2, 4 or 8 bytes: indivisible (a relaxed atomic) where the address is aligned to its size,
 * as the interpreter makes it, so that loops that wait for a word another work-item writes see the write. */
static void zf_cx_volatile(zf_cx_em *e, const zf_dinst *in, LLVMValueRef host) {
    LLVMBuilderRef B = e->b;
    LLVMTypeRef t = LLVMIntTypeInContext(e->c, 8 * in->size);
    LLVMValueRef aligned = LLVMBuildICmp(
        B, LLVMIntEQ, LLVMBuildAnd(B, LLVMBuildPtrToInt(B, host, e->i64, ""), zf_cx_i64c(e, in->size - 1), ""),
        zf_cx_i64c(e, 0), "");
    LLVMBasicBlockRef word = LLVMAppendBasicBlockInContext(e->c, e->f, "word");
    LLVMBasicBlockRef bytes = LLVMAppendBasicBlockInContext(e->c, e->f, "bytes");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(e->c, e->f, "volatile");
    LLVMValueRef tp = LLVMBuildBitCast(B, host, LLVMPointerType(t, 0), "");
    LLVMBuildCondBr(B, aligned, word, bytes);
    for (int atomic = 1; atomic >= 0; atomic--) {
        LLVMPositionBuilderAtEnd(B, atomic ? word : bytes);
        LLVMValueRef access;
        if (in->op == ZF_X_LOAD) {
            access = LLVMBuildLoad2(B, t, tp, "");
            zf_cx_store(e, access, zf_cx_dst(e, in->dst));
        } else {
            LLVMValueRef v =
                in->op == ZF_X_STORE ? zf_cx_load_ir(e, t, zf_cx_reg(e, in->b, in->size)) : LLVMConstInt(t, 0, false);
            access = LLVMBuildStore(B, v, tp);
        }
        LLVMSetVolatile(access, true);
        LLVMSetAlignment(access, atomic ? in->size : 1);
        if (atomic)
            LLVMSetOrdering(access, LLVMAtomicOrderingMonotonic);
        LLVMBuildBr(B, done);
    }
    LLVMPositionBuilderAtEnd(B, done);
}

void zf_cx_memory(zf_cx_em *e, const zf_dinst *in) {
    LLVMValueRef addr = zf_cx_load_ir(e, e->i64, zf_cx_reg(e, in->a, 8));
    bool write = in->op != ZF_X_LOAD;
    e->bail_here = e->bails && zf_cx_bail_point(e, in);
    LLVMValueRef host = zf_cx_access(e, in->a, addr, in->size, write);
    e->bail_here = false;
    uint32_t size = in->size;
    if ((in->aux & ZF_MEM_VOLATILE) && (size == 1 || size == 2 || size == 4 || size == 8)) {
        zf_cx_volatile(e, in, host);
        return;
    }
    if (zf_cx_hoisted(e) && (size == 1 || size == 2 || size == 4 || size == 8)) {
        zf_cx_parallel_access(e, in, host);
        return;
    }
    if (in->op == ZF_X_LOAD) {
        LLVMBuildMemCpy(e->b, zf_cx_dst(e, in->dst), 1, host, 1, zf_cx_i64c(e, in->size));
    } else if (in->op == ZF_X_STORE) {
        LLVMBuildMemCpy(e->b, host, 1, zf_cx_reg(e, in->b, in->size), 1, zf_cx_i64c(e, in->size));
    } else {
        LLVMBuildMemSet(e->b, host, LLVMConstInt(e->i8, 0, false), zf_cx_i64c(e, in->size), 1);
    }
}

/* vloadn and vstoren of whole elements: n elements at the pointer plus the offset times n elements, checked and
 * counted as one load or store of n elements (as zf_h_vload and zf_h_vstore make them); false for the half forms,
 * which the interpreter's handler makes. A 3-element load leaves its register's fourth element as it was. */
bool zf_cx_vector_memory(zf_cx_em *e, const zf_dinst *in) {
    uint32_t kind = in->aux & 0xFFu, n = (in->aux >> 8) & 0xFFu, bytes = n * zf_etype_size(in->type);
    bool store = in->op == ZF_X_VSTORE;
    zf_operand_sizes sizes;
    zf_cx_sizes(e->code, in, &sizes);
    if (kind != ZF_VL_PLAIN || bytes == 0 ||
        bytes > (store ? sizes.a : sizes.dst)) /* an edited form's: the handler's */
        return false;
    zf_ref ptr = store ? in->c : in->b, off = store ? in->b : in->a;
    LLVMValueRef offset = zf_cx_load_ir(e, LLVMIntTypeInContext(e->c, 8 * in->asize), zf_cx_reg(e, off, in->asize));
    offset = LLVMBuildZExt(e->b, offset, e->i64, "");
    LLVMValueRef addr = LLVMBuildAdd(e->b, zf_cx_load_ir(e, e->i64, zf_cx_reg(e, ptr, 8)),
                                     LLVMBuildMul(e->b, offset, zf_cx_i64c(e, bytes), ""), "");
    LLVMValueRef host = zf_cx_access(e, ptr, addr, bytes, store);
    if (store)
        LLVMBuildMemCpy(e->b, host, 1, zf_cx_reg(e, in->a, bytes), 1, zf_cx_i64c(e, bytes));
    else
        LLVMBuildMemCpy(e->b, zf_cx_dst(e, in->dst), 1, host, 1, zf_cx_i64c(e, bytes));
    return true;
}

void zf_cx_address(zf_cx_em *e, const zf_dinst *in) {
    const uint32_t *aux = e->code->aux + in->aux;
    LLVMBuilderRef b = e->b;
    LLVMValueRef v = zf_cx_load_ir(e, e->i64, zf_cx_reg(e, in->a, 8));
    v = LLVMBuildAdd(b, v, zf_cx_i64c(e, (uint64_t)aux[1] << 32 | aux[0]), "");
    for (uint32_t t = 0; t < aux[2]; t++) {
        const uint32_t *term = aux + 3 + 4 * t;
        uint32_t bytes = term[1] == 8 || term[1] == 4 || term[1] == 2 ? term[1] : 1;
        LLVMValueRef index = zf_cx_load_ir(e, LLVMIntTypeInContext(e->c, 8 * bytes), zf_cx_reg(e, term[0], bytes));
        index = LLVMBuildSExt(b, index, e->i64, "");
        v = LLVMBuildAdd(b, v, LLVMBuildMul(b, index, zf_cx_i64c(e, (uint64_t)term[3] << 32 | term[2]), ""), "");
    }
    zf_cx_store(e, v, zf_cx_dst(e, in->dst));
}

/* ------------------------------------------------------------------------------------------------------------------
 * Liveness of the frame's bytes, so that a work-item waiting at a barrier saves only the registers it still needs:
 * backward, per byte, over instructions (a result kills its bytes, operands use theirs), phi copies and edges. */

static void zf_cx_bits(uint64_t *set, zf_ref r, uint32_t size, bool on) {
    if (r == ZF_REF_NONE || ZF_REF_AREA(r) != ZF_AREA_FRAME)
        return;
    for (uint32_t o = ZF_REF_OFFSET(r), end = o + size; o < end; o++) {
        if (on)
            set[o >> 6] |= 1ull << (o & 63);
        else
            set[o >> 6] &= ~(1ull << (o & 63));
    }
}

static void zf_cx_live_copies(const zf_cx_em *e, uint32_t first, uint32_t count, uint64_t *set) {
    for (uint32_t i = count; i > 0; i--) {
        const zf_dcopy *c = &e->code->copies[first + i - 1];
        zf_cx_bits(set, c->dst, c->size, false);
        zf_cx_bits(set, c->src, c->size, true);
    }
}

static void zf_cx_live_inst(const zf_cx_em *e, const zf_dinst *in, uint64_t *set) {
    zf_operand_sizes s = {0, 0, 0, 0};
    zf_cx_sizes(e->code, in, &s);
    const uint32_t *aux =
        e->code->aux + (in->op == ZF_X_CALL || in->op == ZF_X_GATHER || in->op == ZF_X_ACCESS ? in->aux : 0);
    zf_cx_bits(set, in->dst, s.dst, false);
    zf_cx_bits(set, in->a, s.a, true);
    zf_cx_bits(set, in->b, s.b, true);
    zf_cx_bits(set, in->c, s.c, true);
    for (uint32_t i = 0; in->op == ZF_X_CALL && i < aux[1]; i++)
        zf_cx_bits(set, aux[2 + 2 * i], aux[2 + 2 * i + 1], true);
    for (uint32_t p = 0; in->op == ZF_X_GATHER && p < aux[0]; p++)
        zf_cx_bits(set, aux[1 + 3 * p], aux[1 + 3 * p + 1], true);
    for (uint32_t t = 0; in->op == ZF_X_ACCESS && t < aux[2]; t++) {
        uint32_t bytes = aux[3 + 4 * t + 1];
        zf_cx_bits(set, aux[3 + 4 * t], bytes == 8 || bytes == 4 || bytes == 2 ? bytes : 1, true);
    }
    zf_ref ref;
    uint32_t bytes;
    for (uint32_t k = 0; zf_cx_list_operand(e->code, in, k, &ref, &bytes); k++)
        zf_cx_bits(set, ref, bytes, true);
}

/* What the block's successors need, through the copies of its edges. */
static void zf_cx_live_out(const zf_cx_em *e, const zf_dinst *term, uint64_t *set, uint64_t *tmp) {
    memset(set, 0, e->words * 8);
    uint32_t edges[2] = {term->aux, term->aux + 1}, n = term->op == ZF_X_BR ? 1 : term->op == ZF_X_BRC ? 2 : 0;
    const uint32_t *aux = term->op == ZF_X_SWITCH ? e->code->aux + term->aux : NULL;
    for (uint32_t k = 0; k < n + (aux != NULL ? aux[0] + 1 : 0); k++) {
        uint32_t edge = k < n ? edges[k] : k - n == aux[0] ? aux[1] : aux[2 + 3 * (k - n) + 2];
        const zf_dedge *ed = &e->code->edges[edge];
        memcpy(tmp, e->live_in + (size_t)ed->target * e->words, e->words * 8);
        zf_cx_live_copies(e, ed->copy_first, ed->copy_count, tmp);
        for (uint32_t w = 0; w < e->words; w++)
            set[w] |= tmp[w];
    }
}

/* The bytes live before instruction idx of block b (the whole block from its end when idx is 0 and `entry`). */
static void zf_cx_live_before(const zf_cx_em *e, uint32_t b, uint32_t idx, bool entry, uint64_t *set, uint64_t *tmp) {
    const zf_dblock *blk = &e->code->blocks[e->fn->block_first + b];
    zf_cx_live_out(e, &e->code->insts[blk->first + blk->count - 1], set, tmp);
    for (uint32_t i = blk->count; i > idx; i--)
        zf_cx_live_inst(e, &e->code->insts[blk->first + i - 1], set);
    if (entry)
        zf_cx_live_copies(e, blk->commit_first, blk->commit_count, set);
}

/* Live bytes at every block entry, to a fixpoint; false (the whole frame saved) when the sets would be too large. */
bool zf_cx_liveness(zf_cx_em *e) {
    const zf_dfunc *fn = e->fn;
    e->words = (fn->frame_bytes + 63) / 64;
    if ((uint64_t)e->words * (fn->block_count + 3) > (1u << 22))
        return false;
    e->live_in = calloc((size_t)e->words * (fn->block_count + 3) + 1, 8);
    if (e->live_in == NULL)
        return false;
    uint64_t *set = e->live_in + (size_t)e->words * fn->block_count, *tmp = set + e->words;
    e->point = tmp + e->words;
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t b = fn->block_count; b > 0; b--) {
            zf_cx_live_before(e, b - 1, 0, true, set, tmp);
            uint64_t *in = e->live_in + (size_t)(b - 1) * e->words;
            if (memcmp(in, set, e->words * 8) != 0) {
                memcpy(in, set, e->words * 8);
                changed = true;
            }
        }
    }
    return true;
}

/* A barrier, a collective, or the call of a function that may wait at one. */
bool zf_cx_is_resume_point(const zf_cx_em *e, const zf_dinst *in) {
    return zf_cx_waits(in->op) || (in->op == ZF_X_CALL && e->resumable[e->code->aux[in->aux]]);
}

/* Whether frame byte o goes to or comes from the record: the bytes live at the point; those a region's copy saves,
 * only if its code may have written them (the record holds the others since they were saved last). */
static bool zf_cx_spilled(const zf_cx_em *e, uint32_t o, bool save) {
    bool live = (e->point[o >> 6] >> (o & 63) & 1) && !zf_cx_rc_has(e->recompute[e->fn - e->code->funcs], o);
    return live && (!save || e->written == NULL || (e->written[o >> 6] >> (o & 63) & 1));
}

static void zf_cx_mark_written(zf_cx_em *e, const zf_dinst *in) {
    zf_operand_sizes s = {0, 0, 0, 0};
    zf_cx_sizes(e->code, in, &s);
    zf_cx_bits(e->written, in->dst, s.dst, true);
}

static void zf_cx_mark_copies(zf_cx_em *e, uint32_t first, uint32_t count) {
    for (uint32_t i = 0; i < count; i++)
        zf_cx_bits(e->written, e->code->copies[first + i].dst, e->code->copies[first + i].size, true);
}

/* Marks what block b writes from instruction `from` up to a barrier (false) or to its end, edges included (true);
 * the blocks its edges reach go on the stack. */
static bool zf_cx_block_writes(zf_cx_em *e, uint32_t b, uint32_t from, uint8_t *seen, uint32_t *stack, uint32_t *top) {
    const zf_dblock *blk = &e->code->blocks[e->fn->block_first + b];
    for (uint32_t i = from; i < blk->count; i++) {
        const zf_dinst *in = &e->code->insts[blk->first + i];
        if (in->op == ZF_X_BARRIER)
            return false;
        zf_cx_mark_written(e, in);
    }
    const zf_dinst *term = &e->code->insts[blk->first + blk->count - 1];
    uint32_t edge;
    for (uint32_t k = 0; zf_cx_term_edge(e->code, term, k, &edge); k++) {
        const zf_dedge *ed = &e->code->edges[edge];
        zf_cx_mark_copies(e, ed->copy_first, ed->copy_count);
        if (!seen[ed->target]) {
            seen[ed->target] = 1;
            stack[(*top)++] = ed->target;
        }
    }
    return true;
}

/* The frame bytes the code from resume point k (k >= 1) can write before it waits again: instructions, phi commits
 * and edge copies of the blocks reached without crossing a barrier. Left NULL (everything saved) without memory. */
void zf_cx_region_writes(zf_cx_em *e, uint32_t k) {
    const zf_dfunc *fn = e->fn;
    uint32_t blocks = fn->block_count ? fn->block_count : 1, at_block = 0, at = 0, seen_points = 0;
    for (uint32_t b = 0; b < fn->block_count && seen_points < k; b++) {
        const zf_dblock *blk = &e->code->blocks[fn->block_first + b];
        for (uint32_t i = 0; i < blk->count && seen_points < k; i++) {
            const zf_dinst *in = &e->code->insts[blk->first + i];
            if (zf_cx_is_resume_point(e, in) && ++seen_points == k) {
                at_block = b;
                at = in->op == ZF_X_BARRIER ? i + 1 : i; /* a call runs again, a collective takes its result */
            }
        }
    }
    e->written = calloc(e->words ? e->words : 1, 8);
    uint8_t *seen = calloc(blocks, 1);
    uint32_t *stack = malloc(blocks * sizeof *stack), top = 0;
    if (e->written == NULL || seen == NULL || stack == NULL || seen_points < k) {
        free(e->written);
        e->written = NULL;
    } else {
        zf_cx_block_writes(e, at_block, at, seen, stack, &top);
        while (top > 0) {
            uint32_t b = stack[--top];
            const zf_dblock *blk = &e->code->blocks[fn->block_first + b];
            zf_cx_mark_copies(e, blk->commit_first, blk->commit_count);
            zf_cx_block_writes(e, b, 0, seen, stack, &top);
        }
    }
    free(seen);
    free(stack);
}

/* The frame bytes function f keeps in the record, packed: those live at any of its resume points, in frame order, so
 * that a group's records stay small (the bytes a region saves and restores share cache lines). packed[o] is byte o's
 * place, UINT32_MAX for a byte never kept; NULL with the whole frame (liveness too large or no memory). Returns the
 * bytes of f's place in the record. */
uint32_t zf_cx_pack_record(zf_cx_em *e, uint32_t f) {
    e->fn = &e->code->funcs[f];
    e->recompute[f] = zf_cx_rc_plan(e->code, e->fn);
    uint32_t frame = e->fn->frame_bytes, size = 0;
    uint32_t *packed = malloc((frame ? frame : 1) * sizeof *packed);
    uint64_t *any = NULL;
    if (packed == NULL || !zf_cx_liveness(e) || (any = calloc(e->words + 1, 8)) == NULL)
        goto whole;
    uint64_t *point = e->point, *tmp = e->live_in + (size_t)e->words * (e->fn->block_count + 1);
    for (uint32_t b = 0; b < e->fn->block_count; b++) {
        const zf_dblock *blk = &e->code->blocks[e->fn->block_first + b];
        for (uint32_t i = 0; i < blk->count; i++) {
            if (!zf_cx_is_resume_point(e, &e->code->insts[blk->first + i]))
                continue;
            zf_cx_live_before(e, b, i, false, point, tmp);
            for (uint32_t w = 0; w < e->words; w++)
                any[w] |= point[w];
        }
    }
    for (uint32_t o = 0; o < frame; o++)
        packed[o] = (any[o >> 6] >> (o & 63) & 1) && !zf_cx_rc_has(e->recompute[f], o) ? size++ : UINT32_MAX;
    free(any);
    free(e->live_in);
    e->live_in = NULL;
    e->packed[f] = packed;
    return size;
whole:
    free(packed);
    free(e->live_in);
    e->live_in = NULL;
    return frame;
}

/* Where frame byte o of function f goes: its place in the record, or at a bail point, for a byte live only at
 * accesses, its place in the bail area (f's at bail_at, zf_cx_bail_area); UINT64_MAX for none. */
static uint64_t zf_cx_spill_at(const zf_cx_em *e, uint32_t f, uint32_t o, size_t bail_at) {
    const uint32_t *packed = e->packed[f];
    if (packed == NULL)
        return o;
    if (packed[o] != UINT32_MAX)
        return packed[o];
    return e->bail_spill ? (1ull << 62) + bail_at + o : UINT64_MAX;
}

/* Copies the bytes of the current point between the frame and the function's place in the record (or the bail
 * area), in runs. */
static void zf_cx_spill(zf_cx_em *e, bool save) {
    uint32_t f = (uint32_t)(e->fn - e->code->funcs);
    LLVMValueRef record = zf_cx_gep(e, e->record, e->spill_off[f]);
    if (e->live_in == NULL) {
        LLVMValueRef bytes = zf_cx_i64c(e, e->fn->frame_bytes);
        if (save)
            LLVMBuildMemCpy(e->b, record, 1, e->frame, 1, bytes);
        else
            LLVMBuildMemCpy(e->b, e->frame, 1, record, 1, bytes);
        return;
    }
    LLVMValueRef bail = zf_cx_rt_field(e, offsetof(zf_cx_rt, bail), e->p8);
    size_t bail_at = e->bail_spill ? zf_cx_bail_area(e->code, f) : 0;
    for (uint32_t o = 0; o < e->fn->frame_bytes;) {
        uint64_t at = zf_cx_spilled(e, o, save) ? zf_cx_spill_at(e, f, o, bail_at) : UINT64_MAX;
        if (at == UINT64_MAX) {
            o++;
            continue;
        }
        uint32_t end = o + 1;
        while (end < e->fn->frame_bytes && zf_cx_spilled(e, end, save) &&
               zf_cx_spill_at(e, f, end, bail_at) == at + (end - o))
            end++;
        LLVMValueRef in_frame = zf_cx_gep(e, e->frame, o);
        LLVMValueRef away = at >= 1ull << 62 ? zf_cx_gep(e, bail, at - (1ull << 62)) : zf_cx_gep(e, record, at);
        if (save)
            LLVMBuildMemCpy(e->b, away, 1, in_frame, 1, zf_cx_i64c(e, end - o));
        else
            LLVMBuildMemCpy(e->b, in_frame, 1, away, 1, zf_cx_i64c(e, end - o));
        o = end;
    }
    if (!save)
        zf_cx_recompute(e, e->recompute[f], e->point);
}

/* Leaves the function with the work-item waiting: its live registers and resume point k into the record. */
static void zf_cx_suspend(zf_cx_em *e, uint32_t k) {
    uint32_t f = (uint32_t)(e->fn - e->code->funcs);
    zf_cx_spill(e, true);
    zf_cx_store(e, LLVMConstInt(e->i32, k, false), zf_cx_gep(e, e->record, e->resume_at[f]));
    zf_cx_set_item(e, ZF_CX_ITEM_STATE, zf_cx_i64c(e, 2));
    /* Its path: a barrier's, or the call's first plus the callee's (which is at least 1: the callee waits). */
    LLVMValueRef path = zf_cx_i64c(e, e->path_base[f][k]);
    if (e->point_callee[f][k] != UINT32_MAX)
        path = LLVMBuildAdd(e->b, path, LLVMBuildSub(e->b, zf_cx_item(e, ZF_CX_ITEM_PATH), zf_cx_i64c(e, 1), ""), "");
    zf_cx_set_item(e, ZF_CX_ITEM_PATH, path);
    LLVMBuildRet(e->b, LLVMConstInt(e->i1, 0, false));
}

/* A new resume point of the function: a block that restores its live registers, which the dispatch reaches. */
static LLVMBasicBlockRef zf_cx_resume_point(zf_cx_em *e, uint32_t *k) {
    *k = ++e->resumes;
    LLVMBasicBlockRef here = LLVMGetInsertBlock(e->b);
    LLVMBasicBlockRef resume = LLVMAppendBasicBlockInContext(e->c, e->f, "resume");
    LLVMAddCase(e->dispatch, LLVMConstInt(e->i32, *k, false), resume);
    LLVMPositionBuilderAtEnd(e->b, resume);
    if (e->live_in != NULL) { /* what is live before the instruction: a call runs again, with its arguments */
        uint64_t *tmp = e->live_in + (size_t)e->words * (e->fn->block_count + 1);
        zf_cx_live_before(e, e->blk, e->idx, false, e->point, tmp);
    }
    zf_cx_spill(e, false);
    LLVMPositionBuilderAtEnd(e->b, here);
    return resume;
}

/* Bail points (docs/spirv-execution.md, "How a work-group runs"): an access of a function that may wait (resumable)
 * that goes through a window, made without a slow path in the regions' copies. */
bool zf_cx_bail_point(const zf_cx_em *e, const zf_dinst *in) {
    return (in->op == ZF_X_LOAD || in->op == ZF_X_STORE || in->op == ZF_X_STOREZ) && !(in->aux & ZF_MEM_VOLATILE) &&
           in->size > 0 && zf_cx_window_of(e, in->a) != UINT32_MAX;
}

static uint32_t zf_cx_bail_resume_id(const zf_cx_em *e) {
    return ZF_CX_BAIL_BASE + e->code->blocks[e->fn->block_first + e->blk].first + e->idx;
}

/* The point before the current instruction (live registers, or the whole frame without liveness). */
static void zf_cx_point_here(zf_cx_em *e) {
    if (e->live_in == NULL)
        return;
    uint64_t *tmp = e->live_in + (size_t)e->words * (e->fn->block_count + 1);
    zf_cx_live_before(e, e->blk, e->idx, false, e->point, tmp);
}

/* In a region's copy, the current access is outside its window: the work-item leaves with its live registers and the
 * access as its resume point in its record, state 3, for the generic function to make the access with its checks and
 * go on (zf_cx_bail_resume). */
void zf_cx_bail(zf_cx_em *e) {
    if (e->mode == ZF_CX_STEP) { /* nothing is written yet: the wave runs the work-items one by one */
        LLVMBuildBr(e->b, e->fault_bb);
        return;
    }
    uint32_t f = (uint32_t)(e->fn - e->code->funcs);
    zf_cx_point_here(e);
    e->bail_spill = true;
    zf_cx_spill(e, true);
    e->bail_spill = false;
    zf_cx_store(e, LLVMConstInt(e->i32, zf_cx_bail_resume_id(e), false), zf_cx_gep(e, e->record, e->resume_at[f]));
    zf_cx_set_item(e, ZF_CX_ITEM_STATE, zf_cx_i64c(e, ZF_CX_BAILED));
    LLVMBuildRet(e->b, LLVMConstInt(e->i1, 0, false));
}

/* In the generic function, before an access that is a bail point: the resume point of a work-item that bailed
 * there, which restores its live registers and makes the access. */
void zf_cx_bail_resume(zf_cx_em *e) {
    LLVMBasicBlockRef access = LLVMAppendBasicBlockInContext(e->c, e->f, "access");
    LLVMBasicBlockRef resume = LLVMAppendBasicBlockInContext(e->c, e->f, "bailed");
    LLVMBuildBr(e->b, access);
    LLVMAddCase(e->dispatch, LLVMConstInt(e->i32, zf_cx_bail_resume_id(e), false), resume);
    LLVMPositionBuilderAtEnd(e->b, resume);
    zf_cx_point_here(e);
    e->bail_spill = true;
    zf_cx_spill(e, false);
    e->bail_spill = false;
    LLVMBuildBr(e->b, access);
    LLVMPositionBuilderAtEnd(e->b, access);
}

/* A work-group barrier: the work-item waits (the wave function runs the group's other work-items up to it), then
 * resumes right after it. The block's counts were taken at its entry, as the interpreter takes them. */
void zf_cx_barrier(zf_cx_em *e) {
    uint32_t k;
    LLVMBasicBlockRef resume = zf_cx_resume_point(e, &k);
    zf_cx_suspend(e, k);
    LLVMPositionBuilderAtEnd(e->b, resume);
    zf_cx_set_item(e, ZF_CX_ITEM_STATE, zf_cx_i64c(e, 0));
}

/* A collective or a sub-group shuffle: the work-item leaves its operands, waits as at a barrier, and takes its
 * result when it resumes (zf_cx_xchg_get), or waits again while its group (or sub-group) is not all there. */
void zf_cx_exchange_inst(zf_cx_em *e, const zf_dinst *in) {
    zf_operand_sizes s = zf_cx_stage_operands(e, in);
    LLVMTypeRef params[4] = {e->p8, e->p8, e->p8, e->i64};
    LLVMValueRef args[4] = {e->rt, zf_cx_inst_ref(e, in), e->scratch, e->lane};
    zf_cx_call(e, ZF_CX_HELPER(zf_cx_xchg_put), LLVMVoidTypeInContext(e->c), params, 4, args);
    uint32_t k;
    LLVMBasicBlockRef resume = zf_cx_resume_point(e, &k);
    zf_cx_suspend(e, k);
    LLVMPositionBuilderAtEnd(e->b, resume);
    zf_cx_set_item(e, ZF_CX_ITEM_STATE, zf_cx_i64c(e, 0));
    args[1] = zf_cx_inst_ref(e, in); /* the resume block is another path to the instruction's reference */
    LLVMValueRef got = zf_cx_call(e, ZF_CX_HELPER(zf_cx_xchg_get), e->i32, params, 4, args);
    LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(e->c, e->f, "exchanged");
    LLVMBasicBlockRef again = LLVMAppendBasicBlockInContext(e->c, e->f, "waits again");
    LLVMValueRef sw = LLVMBuildSwitch(e->b, got, zf_cx_fault_edge(e), 2);
    LLVMAddCase(sw, LLVMConstInt(e->i32, 0, false), next);
    LLVMAddCase(sw, LLVMConstInt(e->i32, 2, false), again);
    LLVMPositionBuilderAtEnd(e->b, again); /* its group is not all there yet: it waits at the same place */
    zf_cx_suspend(e, k);
    LLVMPositionBuilderAtEnd(e->b, next);
    if (in->dst != ZF_REF_NONE && s.dst > 0)
        zf_cx_move(e, zf_cx_dst(e, in->dst), e->scratch, s.dst);
}

/* The call of `fn` with the call's arguments. */
static LLVMValueRef zf_cx_call_site(zf_cx_em *e, const zf_dinst *in, LLVMValueRef fn, LLVMValueRef args,
                                    LLVMValueRef ret) {
    const uint32_t *aux = e->code->aux + in->aux;
    const zf_dfunc *callee = &e->code->funcs[aux[0]];
    const zf_dparam *params = e->code->params + callee->param_first;
    uint64_t at = 0;
    for (uint32_t i = 0; i < aux[1] && i < callee->param_count; i++) {
        uint32_t bytes = aux[2 + 2 * i + 1] < params[i].size ? aux[2 + 2 * i + 1] : params[i].size;
        zf_cx_move(e, zf_cx_gep(e, args, at), zf_cx_reg(e, aux[2 + 2 * i], bytes), bytes);
        at += params[i].size;
    }
    LLVMValueRef call_args[5] = {e->rt, e->counts, e->item, args, ret};
    return LLVMBuildCall2(e->b, e->fn_type, fn, call_args, 5, "");
}

void zf_cx_call_inst(zf_cx_em *e, const zf_dinst *in) {
    const uint32_t *aux = e->code->aux + in->aux;
    const zf_dfunc *callee = &e->code->funcs[aux[0]];
    const zf_dparam *params = e->code->params + callee->param_first;
    uint64_t total = 0;
    for (uint32_t i = 0; i < callee->param_count; i++)
        total += params[i].size;
    LLVMValueRef args = zf_cx_alloca(e, total), ret = zf_cx_alloca(e, callee->ret_size);
    bool resumable = e->barriers && e->resumable[aux[0]];
    uint32_t k = 0;
    LLVMValueRef faulted;
    if (!resumable) {
        faulted = zf_cx_call_site(e, in, e->fns[aux[0]], args, ret);
    } else { /* resuming here calls the callee again, which resumes where it waits */
        LLVMValueRef fresh = e->fns[aux[0]], again = e->fns[aux[0]];
        uint32_t sub = 0, f = (uint32_t)(e->fn - e->code->funcs);
        if (e->region != UINT32_MAX) { /* a copy: the callee's copies for its start and for the path resumed */
            fresh = zf_cx_copy_of(e, aux[0], 0);
            if (zf_cx_path_point(e, f, e->region, &sub) == e->resumes + 1)
                again = zf_cx_copy_of(e, aux[0], sub);
        }
        LLVMBasicBlockRef resume = zf_cx_resume_point(e, &k);
        LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(e->c, e->f, "called");
        LLVMValueRef results[2];
        LLVMBasicBlockRef from[2];
        results[0] = zf_cx_call_site(e, in, fresh, args, ret);
        from[0] = LLVMGetInsertBlock(e->b);
        LLVMBuildBr(e->b, join);
        LLVMPositionBuilderAtEnd(e->b, resume);
        results[1] = zf_cx_call_site(e, in, again, args, ret);
        from[1] = LLVMGetInsertBlock(e->b);
        LLVMBuildBr(e->b, join);
        LLVMPositionBuilderAtEnd(e->b, join);
        faulted = LLVMBuildPhi(e->b, e->i1, "");
        LLVMAddIncoming(faulted, results, from, 2);
    }
    LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(e->c, e->f, "returned");
    bool leaves = e->leaves; /* the callee's own ways out are its body's */
    LLVMBuildCondBr(e->b, faulted, zf_cx_fault_edge(e), next);
    e->leaves = leaves;
    LLVMPositionBuilderAtEnd(e->b, next);
    if (resumable) {
        LLVMBasicBlockRef waits = LLVMAppendBasicBlockInContext(e->c, e->f, "waits");
        LLVMBasicBlockRef goes = LLVMAppendBasicBlockInContext(e->c, e->f, "returned");
        LLVMValueRef state = zf_cx_item(e, ZF_CX_ITEM_STATE);
        LLVMBuildCondBr(e->b, LLVMBuildICmp(e->b, LLVMIntEQ, state, zf_cx_i64c(e, 2), ""), waits, goes);
        LLVMPositionBuilderAtEnd(e->b, waits);
        zf_cx_suspend(e, k);
        LLVMPositionBuilderAtEnd(e->b, goes);
        if (e->bails) { /* the callee bailed: so does this copy, the generic function resuming at the call */
            LLVMBasicBlockRef bailed = LLVMAppendBasicBlockInContext(e->c, e->f, "callee bailed");
            LLVMBasicBlockRef on = LLVMAppendBasicBlockInContext(e->c, e->f, "callee returned");
            LLVMValueRef left =
                LLVMBuildICmp(e->b, LLVMIntEQ, zf_cx_item(e, ZF_CX_ITEM_STATE), zf_cx_i64c(e, ZF_CX_BAILED), "");
            zf_cx_likely(e, LLVMBuildCondBr(e->b, LLVMBuildNot(e->b, left, ""), on, bailed));
            LLVMPositionBuilderAtEnd(e->b, bailed);
            uint32_t f = (uint32_t)(e->fn - e->code->funcs);
            zf_cx_spill(e, true);
            zf_cx_store(e, LLVMConstInt(e->i32, k, false), zf_cx_gep(e, e->record, e->resume_at[f]));
            LLVMBuildRet(e->b, LLVMConstInt(e->i1, 0, false));
            LLVMPositionBuilderAtEnd(e->b, on);
        }
    }
    if (in->dst != ZF_REF_NONE && in->size > 0)
        zf_cx_move(e, zf_cx_dst(e, in->dst), ret, in->size < callee->ret_size ? in->size : callee->ret_size);
}

void zf_cx_unreachable_inst(zf_cx_em *e) {
    LLVMTypeRef params[2] = {e->p8, e->i64};
    LLVMValueRef args[2] = {e->rt, e->lane};
    zf_cx_call(e, ZF_CX_HELPER(zf_cx_unreachable), LLVMVoidTypeInContext(e->c), params, 2, args);
    LLVMBuildBr(e->b, zf_cx_fault_edge(e));
}

/* ------------------------------------------------------------------------------------------------------------------
 * Private variables: slots of the interpreter's (docs/spirv-execution.md, "Memory"), one per execution of the
 * variable by the work-item, in memory of the function's frame; the function's slots go when it returns. */

void zf_cx_return(zf_cx_em *e, bool faulted) {
    if (e->mark != NULL) {
        LLVMTypeRef params[2] = {e->p8, e->i64};
        LLVMValueRef args[2] = {e->rt, e->mark};
        zf_cx_call(e, ZF_CX_HELPER(zf_cx_slots_pop), LLVMVoidTypeInContext(e->c), params, 2, args);
    }
    if (e->mode == ZF_CX_STEP && !faulted)
        zf_cx_step_counts_out(e);
    LLVMBuildRet(e->b, LLVMConstInt(e->i1, faulted, false));
}

void zf_cx_var(zf_cx_em *e, const zf_dinst *in) {
    LLVMTypeRef params[4] = {e->p8, e->i64, e->p8, e->p8};
    LLVMValueRef args[4] = {e->rt, e->lane, zf_cx_inst_ref(e, in), e->priv};
    LLVMValueRef address = zf_cx_call(e, ZF_CX_HELPER(zf_cx_var_slot), e->i64, params, 4, args);
    LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(e->c, e->f, "var");
    LLVMBuildCondBr(e->b, LLVMBuildICmp(e->b, LLVMIntEQ, address, zf_cx_i64c(e, 0), ""), zf_cx_fault_edge(e), next);
    LLVMPositionBuilderAtEnd(e->b, next);
    zf_cx_store(e, address, zf_cx_dst(e, in->dst));
}

bool zf_cx_has_vars(const zf_dprog *code, const zf_dfunc *fn) {
    for (uint32_t b = 0; b < fn->block_count; b++) {
        const zf_dblock *blk = &code->blocks[fn->block_first + b];
        for (uint32_t i = 0; i < blk->count; i++)
            if (code->insts[blk->first + i].op == ZF_X_VAR)
                return true;
    }
    return false;
}
