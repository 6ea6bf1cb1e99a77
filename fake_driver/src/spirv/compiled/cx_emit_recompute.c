/* Values recomputed where a work-item resumes (docs/spirv-execution.md, "How a work-group runs"). A work-item that
 * waits at a barrier keeps the registers it still needs in its record; many of them are addresses and indices made
 * of its ids, the kernel's arguments and constants (a tile's places in local memory, computed once before the loop
 * around the barriers), the same whenever they are computed. Such a register is made again where the work-item
 * resumes (at a barrier, or where it bailed) instead of going through the record: the record gets smaller (a group's
 * records stay in the first-level cache) and the optimizer sees the address as the function of the local id it is.
 *
 * A register is recomputed when one instruction alone writes it (no other instruction, phi copy or commit touches its
 * bytes), that instruction is integer or address arithmetic, a move, a comparison or a selection, and each frame
 * operand is such a register or a parameter of the function that nothing writes (copied again from the arguments,
 * which stay the same for the whole call); built-in values and constants are read as anywhere. At most
 * ZF_CX_RC_COST instructions go into one register's computation. */
#include "cx_internal.h"

#include <stdlib.h>
#include <string.h>

#define ZF_CX_RC_NONE  UINT32_MAX       /* no instruction writes the byte */
#define ZF_CX_RC_MANY  (UINT32_MAX - 1) /* more than one writer, or a copy */
#define ZF_CX_RC_PARAM 0x80000000u      /* | k: parameter k of the function, which nothing writes */
#define ZF_CX_RC_COST  16u

enum { ZF_CX_RC_UNSEEN = 0, ZF_CX_RC_YES, ZF_CX_RC_NO };

struct zf_cx_rc {
    uint32_t frame;
    uint32_t *def;  /* per frame byte: the index (into the form's instructions) of its one writer, or the above */
    uint8_t *state; /* per frame byte: whether the register holding it is recomputed */
    uint8_t *cost;
    uint32_t *made; /* per frame byte: the restore that made it last (zf_cx_recompute) */
    uint32_t restores;
};

static bool zf_cx_rc_op(const zf_dinst *in) {
    switch (in->op) {
    case ZF_X_MOV:
    case ZF_X_SPLAT:
    case ZF_X_EXTRACT:
    case ZF_X_INSERT:
    case ZF_X_SELECT:
    case ZF_X_ACCESS:
    case ZF_X_IADD:
    case ZF_X_ISUB:
    case ZF_X_IMUL:
    case ZF_X_SHL:
    case ZF_X_SHR:
    case ZF_X_SAR:
    case ZF_X_AND:
    case ZF_X_OR:
    case ZF_X_XOR:
    case ZF_X_INOT:
    case ZF_X_INEG:
    case ZF_X_LNOT:
        return true;
    case ZF_X_CONV: /* integer to integer, without saturation */
        return !zf_etype_is_float(in->type) && !zf_etype_is_float(in->aux & 0xFFu) && !(in->aux & ZF_CONV_SATURATE);
    default:
        return in->op >= ZF_X_IEQ && in->op <= ZF_X_SLE;
    }
}

/* The frame range an instruction or parameter writes; false when it writes none. */
static bool zf_cx_rc_range(zf_ref r, uint32_t size, uint32_t frame, uint32_t *o, uint32_t *end) {
    if (r == ZF_REF_NONE || ZF_REF_AREA(r) != ZF_AREA_FRAME || size == 0 || ZF_REF_OFFSET(r) >= frame)
        return false;
    *o = ZF_REF_OFFSET(r);
    *end = size > frame - *o ? frame : *o + size;
    return true;
}

static uint32_t zf_cx_rc_dst_size(const zf_dprog *code, const zf_dinst *in) {
    zf_operand_sizes s = {0, 0, 0, 0};
    zf_cx_sizes(code, in, &s);
    return s.dst;
}

static void zf_cx_rc_write(zf_cx_rc *rc, zf_ref r, uint32_t size, uint32_t writer) {
    uint32_t o, end;
    for (bool any = zf_cx_rc_range(r, size, rc->frame, &o, &end); any && o < end; o++)
        rc->def[o] = rc->def[o] == ZF_CX_RC_NONE ? writer : ZF_CX_RC_MANY;
}

static void zf_cx_rc_copies(zf_cx_rc *rc, const zf_dprog *code, uint32_t first, uint32_t count) {
    for (uint32_t i = 0; i < count; i++)
        zf_cx_rc_write(rc, code->copies[first + i].dst, code->copies[first + i].size, ZF_CX_RC_MANY);
}

/* A writer whose range another writer touches writes nothing recomputed: making it again would overwrite the
 * other's bytes. */
static void zf_cx_rc_exclusive(zf_cx_rc *rc, zf_ref r, uint32_t size, uint32_t writer) {
    uint32_t o, end;
    if (!zf_cx_rc_range(r, size, rc->frame, &o, &end))
        return;
    bool alone = true;
    for (uint32_t k = o; k < end; k++)
        alone &= rc->def[k] == writer;
    for (uint32_t k = o; !alone && k < end; k++)
        rc->def[k] = ZF_CX_RC_MANY;
}

/* The frame operands of a recomputable operation: a, b, c and an address's index terms. */
static uint32_t zf_cx_rc_operands(const zf_dprog *code, const zf_dinst *in, zf_ref *refs, uint32_t *sizes) {
    zf_operand_sizes s = {0, 0, 0, 0};
    zf_cx_sizes(code, in, &s);
    uint32_t n = 0;
    const zf_ref abc[3] = {in->a, in->b, in->c};
    const uint32_t abc_sizes[3] = {s.a, s.b, s.c};
    for (uint32_t k = 0; k < 3; k++) {
        refs[n] = abc[k];
        sizes[n++] = abc_sizes[k];
    }
    if (in->op != ZF_X_ACCESS)
        return n;
    const uint32_t *aux = code->aux + in->aux;
    if (aux[2] > 16)
        return UINT32_MAX;
    for (uint32_t t = 0; t < aux[2]; t++) {
        uint32_t bytes = aux[3 + 4 * t + 1];
        refs[n] = aux[3 + 4 * t];
        sizes[n++] = bytes == 8 || bytes == 4 || bytes == 2 ? bytes : 1;
    }
    return n;
}

static void zf_cx_rc_set(zf_cx_rc *rc, const zf_dprog *code, uint32_t writer, uint8_t state, uint8_t cost) {
    uint32_t o, end;
    const zf_dinst *in = &code->insts[writer];
    for (bool any = zf_cx_rc_range(in->dst, zf_cx_rc_dst_size(code, in), rc->frame, &o, &end); any && o < end; o++) {
        rc->state[o] = state;
        rc->cost[o] = cost;
    }
}

/* One look at a writer not decided yet: decided when its operands are (without recursion: a chain of registers as
 * long as the function is costs one pass per register out of order). */
static void zf_cx_rc_decide(zf_cx_rc *rc, const zf_dprog *code, uint32_t writer) {
    const zf_dinst *in = &code->insts[writer];
    if (rc->state[ZF_REF_OFFSET(in->dst)] != ZF_CX_RC_UNSEEN)
        return;
    zf_ref refs[3 + 16];
    uint32_t sizes[3 + 16], cost = 1, n = zf_cx_rc_operands(code, in, refs, sizes);
    bool ok = n != UINT32_MAX && zf_cx_rc_op(in), pending = false;
    for (uint32_t k = 0; ok && k < n; k++) {
        uint32_t p, end;
        if (refs[k] == ZF_REF_NONE || ZF_REF_AREA(refs[k]) != ZF_AREA_FRAME || sizes[k] == 0)
            continue; /* constants and built-in values */
        ok = zf_cx_rc_range(refs[k], sizes[k], rc->frame, &p, &end) && end - p == sizes[k];
        for (; ok && p < end; p++) {
            uint32_t d = rc->def[p];
            if (d == ZF_CX_RC_NONE || d == ZF_CX_RC_MANY || d == writer)
                ok = false;
            else if (d & ZF_CX_RC_PARAM)
                continue;
            else if (rc->state[p] == ZF_CX_RC_NO)
                ok = false;
            else if (rc->state[p] == ZF_CX_RC_UNSEEN)
                pending = true;
            else if (p == ZF_REF_OFFSET(refs[k]) || rc->def[p - 1] != d)
                cost += rc->cost[p]; /* once per operand register */
        }
    }
    if (ok && pending)
        return;
    ok = ok && cost <= ZF_CX_RC_COST;
    zf_cx_rc_set(rc, code, writer, ok ? ZF_CX_RC_YES : ZF_CX_RC_NO, (uint8_t)(ok ? cost : 0));
}

/* The writers of frame registers, one pass over the function's instructions. */
static void zf_cx_rc_pass(zf_cx_rc *rc, const zf_dprog *code, const zf_dfunc *fn, bool last) {
    for (uint32_t b = 0; b < fn->block_count; b++) {
        const zf_dblock *blk = &code->blocks[fn->block_first + b];
        for (uint32_t i = 0; i < blk->count; i++) {
            const zf_dinst *in = &code->insts[blk->first + i];
            uint32_t o, end;
            if (!zf_cx_rc_range(in->dst, zf_cx_rc_dst_size(code, in), rc->frame, &o, &end) ||
                rc->def[o] != blk->first + i)
                continue;
            if (!last)
                zf_cx_rc_decide(rc, code, blk->first + i);
            else if (rc->state[o] == ZF_CX_RC_UNSEEN) /* waits on a cycle, or on more passes than it is worth */
                zf_cx_rc_set(rc, code, blk->first + i, ZF_CX_RC_NO, 0);
        }
    }
}

#define ZF_CX_RC_PASSES 8u

zf_cx_rc *zf_cx_rc_plan(const zf_dprog *code, const zf_dfunc *fn) {
    uint32_t frame = fn->frame_bytes;
    zf_cx_rc *rc = calloc(1, sizeof *rc);
    if (rc == NULL)
        return NULL;
    rc->frame = frame;
    rc->def = malloc((frame ? frame : 1) * sizeof *rc->def);
    rc->state = calloc(frame ? frame : 1, 1);
    rc->cost = calloc(frame ? frame : 1, 1);
    rc->made = calloc(frame ? frame : 1, sizeof *rc->made);
    if (rc->def == NULL || rc->state == NULL || rc->cost == NULL || rc->made == NULL) {
        zf_cx_rc_free(rc);
        return NULL;
    }
    memset(rc->def, 0xFF, (frame ? frame : 1) * sizeof *rc->def);
    for (uint32_t k = 0; k < fn->param_count; k++) {
        const zf_dparam *p = &code->params[fn->param_first + k];
        zf_cx_rc_write(rc, p->ref, p->size, ZF_CX_RC_PARAM | k);
    }
    for (uint32_t b = 0; b < fn->block_count; b++) {
        const zf_dblock *blk = &code->blocks[fn->block_first + b];
        zf_cx_rc_copies(rc, code, blk->commit_first, blk->commit_count);
        for (uint32_t i = 0; i < blk->count; i++) {
            const zf_dinst *in = &code->insts[blk->first + i];
            zf_cx_rc_write(rc, in->dst, zf_cx_rc_dst_size(code, in), blk->first + i);
        }
        uint32_t edge;
        for (uint32_t k = 0; zf_cx_term_edge(code, &code->insts[blk->first + blk->count - 1], k, &edge); k++)
            zf_cx_rc_copies(rc, code, code->edges[edge].copy_first, code->edges[edge].copy_count);
    }
    for (uint32_t k = 0; k < fn->param_count; k++) {
        const zf_dparam *p = &code->params[fn->param_first + k];
        zf_cx_rc_exclusive(rc, p->ref, p->size, ZF_CX_RC_PARAM | k);
    }
    for (uint32_t b = 0; b < fn->block_count; b++) {
        const zf_dblock *blk = &code->blocks[fn->block_first + b];
        for (uint32_t i = 0; i < blk->count; i++) {
            const zf_dinst *in = &code->insts[blk->first + i];
            zf_cx_rc_exclusive(rc, in->dst, zf_cx_rc_dst_size(code, in), blk->first + i);
        }
    }
    for (uint32_t pass = 0; pass <= ZF_CX_RC_PASSES; pass++)
        zf_cx_rc_pass(rc, code, fn, pass == ZF_CX_RC_PASSES);
    return rc;
}

void zf_cx_rc_free(zf_cx_rc *rc) {
    if (rc == NULL)
        return;
    free(rc->def);
    free(rc->state);
    free(rc->cost);
    free(rc->made);
    free(rc);
}

bool zf_cx_rc_has(const zf_cx_rc *rc, uint32_t o) {
    if (rc == NULL || o >= rc->frame)
        return false;
    uint32_t d = rc->def[o];
    return d != ZF_CX_RC_NONE && d != ZF_CX_RC_MANY && ((d & ZF_CX_RC_PARAM) || rc->state[o] == ZF_CX_RC_YES);
}

/* Marks the bytes a register covers as made in this restore. */
static void zf_cx_rc_mark(zf_cx_rc *rc, zf_ref r, uint32_t size) {
    uint32_t o, end;
    for (bool any = zf_cx_rc_range(r, size, rc->frame, &o, &end); any && o < end; o++)
        rc->made[o] = rc->restores;
}

/* Makes the register that frame byte o belongs to again, its operands first (once per restore). */
static void zf_cx_rc_make(zf_cx_em *e, zf_cx_rc *rc, uint32_t o) {
    uint32_t d = rc->def[o];
    if (rc->made[o] == rc->restores)
        return;
    if (d & ZF_CX_RC_PARAM) {
        uint32_t k = d & ~ZF_CX_RC_PARAM;
        uint64_t at = 0;
        for (uint32_t j = 0; j < k; j++)
            at += e->code->params[e->fn->param_first + j].size;
        const zf_dparam *p = &e->code->params[e->fn->param_first + k];
        zf_cx_rc_mark(rc, p->ref, p->size);
        zf_cx_move(e, zf_cx_dst(e, p->ref), zf_cx_gep(e, e->args, at), p->size);
        return;
    }
    const zf_dinst *in = &e->code->insts[d];
    zf_cx_rc_mark(rc, in->dst, zf_cx_rc_dst_size(e->code, in));
    zf_ref refs[3 + 16];
    uint32_t sizes[3 + 16], n = zf_cx_rc_operands(e->code, in, refs, sizes);
    for (uint32_t k = 0; k < n; k++) {
        uint32_t p, stop;
        for (bool any = zf_cx_rc_range(refs[k], sizes[k], rc->frame, &p, &stop); any && p < stop; p++)
            zf_cx_rc_make(e, rc, p);
    }
    zf_cx_inst(e, in);
}

void zf_cx_recompute(zf_cx_em *e, zf_cx_rc *rc, const uint64_t *point) {
    if (rc == NULL)
        return;
    if (++rc->restores == 0) { /* the counter wrapped: forget what was made */
        memset(rc->made, 0, (rc->frame ? rc->frame : 1) * sizeof *rc->made);
        rc->restores = 1;
    }
    for (uint32_t o = 0; o < rc->frame; o++)
        if ((point[o >> 6] >> (o & 63) & 1) && zf_cx_rc_has(rc, o))
            zf_cx_rc_make(e, rc, o);
}
