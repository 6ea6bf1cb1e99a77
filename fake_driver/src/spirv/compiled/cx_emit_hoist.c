/* Checks made once per work-group (docs/spirv-execution.md, "Checks made per group"). A check of an access that can
 * branch to the interpreter's slow path keeps LLVM from vectorising the loop over a group's work-items. When the
 * address of an access through an argument's (or the local) window is an affine function of the work-item's local
 * id, the whole group's accesses at that place lie between those of the group's corners, so one look at the corners
 * proves that none of them leaves its window. The kernel then gets two more copies of its entry function: a probe,
 * which computes only such addresses (and the integers widened on the way to them) for one work-item, and an
 * unchecked copy, which makes the proven accesses without checks, marked as independent between work-items (OpenCL
 * orders no access of one work-item after another's without a barrier). Before a group, the wave runs the probe at
 * the group's 8 corners and one step along each dimension: when every recorded value is the same affine function of
 * the local id at all corners (so no 32-bit index wrapped inside the group) and every address is inside its window,
 * the group runs the unchecked copy; otherwise the checked one, so that a fault and its text are the interpreter's.
 * Both copies count the same blocks, so the executed-work record is the same. When the recorded values depend on the
 * work-item through its global id alone, a wave whose groups form a box of global ids is proved once, at the box's
 * corners (zf_cx_wave_proof), and only a wave that is not proves its groups one by one. A group that fails may still
 * run its rows but the first and last unchecked (zf_cx_group_rows in cx_emit.c). The unchecked copy computes each
 * widened index whose factor of local id x the operations show as what the proof found, origin plus steps times the
 * local ids in 64 bits (zf_cx_unchecked_sites), so that LLVM needs no check of its own that a 32-bit index wraps.
 *
 * Which values are affine: the local and global ids (and linear ids), then integer additions, subtractions,
 * negations, products by a value the same for the whole group, shifts left by such a value, moves, members
 * extracted from composites, integer conversions without saturation and ANDs with a mask of low bits (both widen
 * what they keep: sites the probe records); a value the same for the whole group (arguments, constants, sizes, group
 * ids, and what is computed from them with the integer operations above or bit operations, comparisons and
 * selections) is affine too, and so is a phi of one computation on every path. Anything loaded, another phi, or any
 * other operation of a value that depends on the local id is not, and an access whose address is not stays checked
 * in both copies. The kernel qualifies when the functions it reaches have no barrier, loop, private variable, call
 * through a pointer or by-value argument, and each but the entry is called from one place. */
#include "cx_internal.h"

#include <llvm-c/IRReader.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ZF_CX_MAX_SITES  64u /* values recorded by a probe */
#define ZF_CX_PROBE_PTS  11u /* 8 corners and a step along each dimension */
#define ZF_CX_SITE_UNSET UINT32_MAX

/* How a value depends on the work-item: `dep` on its local id, `bad` not as an affine function of it (or not
 * computed by the probe at all), `local` on its group or local id otherwise than through its global id (so that
 * one proof cannot cover the groups of a wave: zf_cx_wave_proof). */
typedef struct zf_cx_class {
    bool dep, bad, local;
} zf_cx_class;

/* The plan of one function. A phi is affine when every value it takes is the same computation (the same operation of
 * the same operands), as when both branches of an `if` compute the index they then access at: value numbers find
 * that (a register's number is the first instruction that computed the same). */
#define ZF_CX_VN_UNKNOWN UINT64_MAX
#define ZF_CX_VN_SCAN    256u /* instructions looked back at for the same computation */
typedef struct zf_cx_plan {
    const zf_cx_em *e;
    const zf_dfunc *fn;
    uint8_t *dep, *bad, *local, *written; /* per frame byte */
    uint64_t *vn;                         /* per frame byte where a register starts: its value number */
    uint32_t *vn_size;                    /* and its size */
    uint32_t *seen, num_seen;             /* the instructions numbered so far */
    uint32_t *def_block; /* per frame byte where a register starts: the block of the one instruction that
                            writes it (0 for a parameter), UINT32_MAX for one a copy writes */
    uint32_t *idom;      /* per block: its immediate dominator */
    uint32_t block;      /* the block being planned */
    uint32_t *phi_block, *phi_copy, num_phis; /* copies of edges and commits: where they land */
    int64_t *coef; /* per frame byte where an integer starts: its factor of local id x (ZF_CX_COEF_UNKNOWN) */
} zf_cx_plan;

static bool zf_cx_builtin_affine(uint32_t builtin) {
    return builtin == SpvBuiltInGlobalInvocationId || builtin == SpvBuiltInLocalInvocationId ||
           builtin == SpvBuiltInLocalInvocationIndex || builtin == SpvBuiltInGlobalLinearId;
}

static bool zf_cx_builtin_per_item(uint32_t builtin) { /* a function of the local id, not affine */
    return builtin == SpvBuiltInSubgroupSize || builtin == SpvBuiltInSubgroupId ||
           builtin == SpvBuiltInSubgroupLocalInvocationId;
}

static bool zf_cx_builtin_local(uint32_t builtin) { /* the group's or the local id, not the global one */
    return builtin == SpvBuiltInLocalInvocationId || builtin == SpvBuiltInLocalInvocationIndex ||
           builtin == SpvBuiltInWorkgroupId || zf_cx_builtin_per_item(builtin);
}

static zf_cx_class zf_cx_class_of(const zf_cx_plan *p, zf_ref r, uint32_t size) {
    zf_cx_class c = {false, false, false};
    if (r == ZF_REF_NONE || size == 0)
        return c;
    uint32_t area = ZF_REF_AREA(r), o = ZF_REF_OFFSET(r);
    if (area == ZF_AREA_FRAME) {
        for (uint32_t k = o; k < o + size; k++) {
            bool inside = k < p->fn->frame_bytes;
            c.dep |= inside && p->dep[k];
            c.bad |= !inside || p->bad[k];
            c.local |= !inside || p->local[k];
        }
        return c;
    }
    if (area != ZF_AREA_WAVE)
        return c; /* constants, relocations */
    const zf_dprog *code = p->e->code;
    for (uint32_t i = 0; i < code->num_waves; i++) {
        const zf_dwave *w = &code->waves[i];
        if (o < w->offset || (w->kind == ZF_WAVE_BUILTIN && o >= w->offset + zf_etype_size(w->type) * 4u) ||
            (w->kind != ZF_WAVE_BUILTIN && o >= w->offset + 8u))
            continue;
        c.local = w->kind != ZF_WAVE_BUILTIN || zf_cx_builtin_local(w->index); /* a local variable: the group's */
        if (w->kind == ZF_WAVE_LOCALVAR)
            return c;
        c.dep = w->kind != ZF_WAVE_BUILTIN || zf_cx_builtin_affine(w->index) || zf_cx_builtin_per_item(w->index);
        c.bad = w->kind != ZF_WAVE_BUILTIN || zf_cx_builtin_per_item(w->index);
        return c;
    }
    return (zf_cx_class){true, true, true};
}

static void zf_cx_class_add(zf_cx_class *to, zf_cx_class c) {
    to->dep |= c.dep;
    to->bad |= c.bad;
    to->local |= c.local;
}

static void zf_cx_class_set(zf_cx_plan *p, zf_ref r, uint32_t size, zf_cx_class c) {
    if (r == ZF_REF_NONE || ZF_REF_AREA(r) != ZF_AREA_FRAME)
        return;
    for (uint32_t k = ZF_REF_OFFSET(r); k < ZF_REF_OFFSET(r) + size && k < p->fn->frame_bytes; k++) {
        p->dep[k] = c.dep;
        p->bad[k] = c.bad || p->written[k]; /* a register written twice: its value depends on the path */
        p->local[k] = c.local;
        p->written[k] = 1;
    }
    if (ZF_REF_OFFSET(r) < p->fn->frame_bytes)
        p->vn_size[ZF_REF_OFFSET(r)] = 0; /* numbered by the caller, if at all */
}

/* A register's value number: constants and built-ins by their place, a parameter by its own, results by their
 * computation's; ZF_CX_VN_UNKNOWN matches nothing. */
static uint64_t zf_cx_vn_of(const zf_cx_plan *p, zf_ref r, uint32_t size) {
    if (r == ZF_REF_NONE)
        return 1ull << 40;
    if (ZF_REF_AREA(r) != ZF_AREA_FRAME)
        return 2ull << 40 | r;
    uint32_t o = ZF_REF_OFFSET(r);
    return o < p->fn->frame_bytes && p->vn_size[o] == size ? p->vn[o] : ZF_CX_VN_UNKNOWN;
}

static void zf_cx_vn_set(zf_cx_plan *p, zf_ref r, uint32_t size, uint64_t vn) {
    if (r == ZF_REF_NONE || ZF_REF_AREA(r) != ZF_AREA_FRAME || ZF_REF_OFFSET(r) >= p->fn->frame_bytes)
        return;
    p->vn[ZF_REF_OFFSET(r)] = vn;
    p->vn_size[ZF_REF_OFFSET(r)] = size;
}

/* The factor of local id x in an affine value, as far as the operations on the way show it without the kernel's
 * arguments (1 for x = get_global_id(0) + 1 and for y * n + x, unknown for x * n). It is a guess that the group's
 * proof confirms (zf_cx_hoist_proof): with it, the unchecked copy's widened values step by a constant along the
 * loop the optimizer vectorises, so their accesses are consecutive rather than gathered. */
static int64_t zf_cx_coef_of(const zf_cx_plan *p, zf_ref r, uint32_t size, uint32_t at) {
    if (r == ZF_REF_NONE || !zf_cx_class_of(p, r, size).dep)
        return 0;
    uint32_t area = ZF_REF_AREA(r), o = ZF_REF_OFFSET(r) + at;
    if (area == ZF_AREA_FRAME)
        return o < p->fn->frame_bytes ? p->coef[o] : ZF_CX_COEF_UNKNOWN;
    const zf_dprog *code = p->e->code;
    for (uint32_t i = 0; area == ZF_AREA_WAVE && i < code->num_waves; i++) {
        const zf_dwave *w = &code->waves[i];
        uint32_t bytes = zf_etype_size(w->type);
        if (w->kind != ZF_WAVE_BUILTIN || o < w->offset || o >= w->offset + bytes * (w->comps ? w->comps : 1u))
            continue;
        if (w->index == SpvBuiltInLocalInvocationIndex || w->index == SpvBuiltInGlobalLinearId)
            return 1;
        if (w->index == SpvBuiltInGlobalInvocationId || w->index == SpvBuiltInLocalInvocationId)
            return o == w->offset ? 1 : 0;
        return ZF_CX_COEF_UNKNOWN;
    }
    return ZF_CX_COEF_UNKNOWN;
}

static void zf_cx_coef_set(zf_cx_plan *p, zf_ref r, int64_t coef) {
    if (r != ZF_REF_NONE && ZF_REF_AREA(r) == ZF_AREA_FRAME && ZF_REF_OFFSET(r) < p->fn->frame_bytes)
        p->coef[ZF_REF_OFFSET(r)] = coef;
}

/* A move of `size` bytes: the factors of the integers it moves (the components of an id). */
static void zf_cx_coef_move(zf_cx_plan *p, zf_ref dst, zf_ref src, uint32_t size) {
    for (uint32_t k = 1; k < size && dst != ZF_REF_NONE && ZF_REF_AREA(dst) == ZF_AREA_FRAME; k++)
        if (ZF_REF_OFFSET(dst) + k < p->fn->frame_bytes)
            p->coef[ZF_REF_OFFSET(dst) + k] = zf_cx_coef_of(p, src, size, k);
}

/* An integer constant operand's value (sign-extended from its size), false for any other operand. */
static bool zf_cx_const_value(const zf_dprog *code, zf_ref r, uint32_t size, int64_t *value) {
    if (r == ZF_REF_NONE || ZF_REF_AREA(r) != ZF_AREA_CONST || size == 0 || size > 8)
        return false;
    for (uint32_t i = 0; i < code->num_consts; i++) {
        const zf_dconst *c = &code->consts[i];
        if (ZF_REF_OFFSET(r) < c->offset || ZF_REF_OFFSET(r) + size > c->offset + c->size)
            continue;
        uint64_t bits = 0;
        memcpy(&bits, code->bytes + c->data + (ZF_REF_OFFSET(r) - c->offset), size);
        uint32_t shift = 64u - 8u * size;
        *value = (int64_t)(bits << shift) >> shift;
        return true;
    }
    return false;
}

static int64_t zf_cx_coef_product(int64_t coef, int64_t factor) {
    int64_t product;
    if (coef == ZF_CX_COEF_UNKNOWN || __builtin_mul_overflow(coef, factor, &product) || product == ZF_CX_COEF_UNKNOWN)
        return ZF_CX_COEF_UNKNOWN;
    return product;
}

/* The factor of x in the result of an affine operation (zf_cx_op_kind) of one integer. */
static int64_t zf_cx_coef_result(const zf_cx_plan *p, const zf_dinst *in, const zf_operand_sizes *s) {
    const zf_dprog *code = p->e->code;
    int64_t a = zf_cx_coef_of(p, in->a, s->a, 0), b = zf_cx_coef_of(p, in->b, s->b, 0), k = 0, sum;
    if (in->comps != 1 && in->op != ZF_X_EXTRACT)
        return ZF_CX_COEF_UNKNOWN;
    bool known = a != ZF_CX_COEF_UNKNOWN && b != ZF_CX_COEF_UNKNOWN;
    switch (in->op) {
    case ZF_X_MOV:
    case ZF_X_CONV: /* what it keeps of the value steps as the value does, when the proof holds */
        return a;
    case ZF_X_EXTRACT:
        return zf_cx_coef_of(p, in->a, in->asize, in->aux);
    case ZF_X_AND: /* a mask of low bits (zf_cx_mask_bits) */
        return ZF_REF_AREA(in->a) == ZF_AREA_CONST ? b : a;
    case ZF_X_IADD:
        return known && !__builtin_add_overflow(a, b, &sum) ? sum : ZF_CX_COEF_UNKNOWN;
    case ZF_X_ISUB:
        return known && !__builtin_sub_overflow(a, b, &sum) ? sum : ZF_CX_COEF_UNKNOWN;
    case ZF_X_INEG:
        return zf_cx_coef_product(a, -1);
    case ZF_X_IMUL:
        if (a == 0 && b == 0)
            return 0;
        if (zf_cx_const_value(code, in->b, s->b, &k))
            return zf_cx_coef_product(a, k);
        if (zf_cx_const_value(code, in->a, s->a, &k))
            return zf_cx_coef_product(b, k);
        return ZF_CX_COEF_UNKNOWN; /* times an argument */
    case ZF_X_SHL:
        if (zf_cx_const_value(code, in->b, s->b, &k) && k >= 0 && k < 62)
            return zf_cx_coef_product(a, (int64_t)1 << k);
        return a == 0 ? 0 : ZF_CX_COEF_UNKNOWN;
    default:
        return ZF_CX_COEF_UNKNOWN;
    }
}

/* Whether two instructions compute the same from the same values. */
static bool zf_cx_same_computation(const zf_cx_plan *p, const zf_dinst *x, const zf_dinst *y) {
    const zf_dprog *code = p->e->code;
    zf_operand_sizes s = {0, 0, 0, 0};
    if (x->op != y->op || x->type != y->type || x->comps != y->comps || x->size != y->size || x->asize != y->asize ||
        !zf_cx_sizes(code, x, &s))
        return false;
    const zf_ref xr[3] = {x->a, x->b, x->c}, yr[3] = {y->a, y->b, y->c};
    const uint32_t sizes[3] = {s.a, s.b, s.c};
    for (int k = 0; k < 3; k++) {
        uint64_t a = zf_cx_vn_of(p, xr[k], sizes[k]), b = zf_cx_vn_of(p, yr[k], sizes[k]);
        if (a == ZF_CX_VN_UNKNOWN || a != b)
            return false;
    }
    if (x->op != ZF_X_ACCESS)
        return x->aux == y->aux;
    const uint32_t *xa = code->aux + x->aux, *ya = code->aux + y->aux;
    if (xa[0] != ya[0] || xa[1] != ya[1] || xa[2] != ya[2])
        return false;
    for (uint32_t t = 0; t < xa[2]; t++) {
        const uint32_t *xt = xa + 3 + 4 * t, *yt = ya + 3 + 4 * t;
        uint64_t a = zf_cx_vn_of(p, xt[0], xt[1]), b = zf_cx_vn_of(p, yt[0], yt[1]);
        if (a == ZF_CX_VN_UNKNOWN || a != b || xt[1] != yt[1] || xt[2] != yt[2] || xt[3] != yt[3])
            return false;
    }
    return true;
}

/* Operations that compute from their operands alone (value numbers find two of the same). */
static bool zf_cx_numbered(uint32_t op) {
    return op == ZF_X_ACCESS || op == ZF_X_MOV || op == ZF_X_EXTRACT || op == ZF_X_INSERT || op == ZF_X_CONV ||
           op == ZF_X_SELECT || op == ZF_X_SPLAT || (op >= ZF_X_IADD && op <= ZF_X_LNOT) ||
           (op >= ZF_X_IEQ && op <= ZF_X_SLE);
}

/* The value number of instruction `at`'s result: an earlier instruction's that computed the same, else its own. */
static uint64_t zf_cx_vn_number(zf_cx_plan *p, uint32_t at) {
    const zf_dinst *in = &p->e->code->insts[at];
    if (!zf_cx_numbered(in->op))
        return 3ull << 40 | at;
    for (uint32_t k = p->num_seen, n = 0; k > 0 && n < ZF_CX_VN_SCAN; k--, n++)
        if (zf_cx_same_computation(p, in, &p->e->code->insts[p->seen[k - 1]]))
            return 3ull << 40 | p->seen[k - 1];
    p->seen[p->num_seen++] = at;
    return 3ull << 40 | at;
}

/* Phi copies (of an edge, or a block's commits): a register they write takes the class of what they copy while
 * every copy into it copies the same value number; the probe makes those copies (e->copy_good). */
static void zf_cx_plan_copies(zf_cx_plan *p, uint32_t first, uint32_t count, uint32_t target) {
    zf_cx_em *e = (zf_cx_em *)p->e;
    for (uint32_t i = 0; i < count; i++) {
        const zf_dcopy *c = &e->code->copies[first + i];
        if (c->dst == ZF_REF_NONE || ZF_REF_AREA(c->dst) != ZF_AREA_FRAME)
            continue;
        uint32_t o = ZF_REF_OFFSET(c->dst);
        zf_cx_class cls = zf_cx_class_of(p, c->src, c->size);
        uint64_t vn = zf_cx_vn_of(p, c->src, c->size);
        bool again = o < p->fn->frame_bytes && p->written[o];
        bool same = again && vn != ZF_CX_VN_UNKNOWN && zf_cx_vn_of(p, c->dst, c->size) == vn;
        if (again && !same)
            cls = (zf_cx_class){true, true, true};
        for (uint32_t k = o; k < o + c->size && k < p->fn->frame_bytes; k++) {
            p->dep[k] = cls.dep || (same && p->dep[k]);
            p->bad[k] = cls.bad || (same && p->bad[k]);
            p->local[k] = cls.local || (same && p->local[k]);
            p->written[k] = 1;
        }
        zf_cx_vn_set(p, c->dst, c->size, again && !same ? ZF_CX_VN_UNKNOWN : vn);
        int64_t coef = zf_cx_coef_of(p, c->src, c->size, 0);
        bool differs = o < p->fn->frame_bytes && p->coef[o] != coef;
        zf_cx_coef_set(p, c->dst, again && (!same || differs) ? ZF_CX_COEF_UNKNOWN : coef);
        e->copy_good[first + i] = !cls.bad;
        if (o < p->fn->frame_bytes)
            p->def_block[o] = UINT32_MAX;
        p->phi_block[p->num_phis] = target;
        p->phi_copy[p->num_phis++] = first + i;
    }
}

static bool zf_cx_int_conv(const zf_dinst *in) {
    uint32_t src = in->aux & 0xFFu;
    return zf_etype_is_int(src) && zf_etype_is_int(in->type) && !(in->aux & ZF_CONV_SATURATE);
}

/* The bits k of an AND that keeps the low k bits (a mask 2^k - 1 in the constant area, 8 <= k < 64, of an integer
 * of 4 or 8 bytes): the widening of the value's low k bits, affine like a conversion. 0 for any other AND. */
static uint32_t zf_cx_mask_bits(const zf_dprog *code, const zf_dinst *in) {
    if (in->op != ZF_X_AND || in->comps != 1 || (in->size != 4 && in->size != 8))
        return 0;
    const zf_ref refs[2] = {in->a, in->b};
    for (int k = 0; k < 2; k++) {
        int64_t mask;
        if (!zf_cx_const_value(code, refs[k], in->size, &mask))
            continue;
        for (uint32_t bits = 8; bits < 8 * in->size; bits *= 2) /* masks below the sign bit: no sign extended */
            if ((uint64_t)mask == (1ull << bits) - 1)
                return bits;
        return 0;
    }
    return 0;
}

/* Whether the probe may compute the operation (integer work without memory, helpers or traps), and whether its
 * result is affine in its operands when one of them depends on the local id. */
static void zf_cx_op_kind(const zf_dinst *in, zf_cx_class b, bool *computable, bool *affine) {
    *computable = true;
    switch (in->op) {
    case ZF_X_MOV:
    case ZF_X_EXTRACT: /* a member of a composite (an id's component) */
    case ZF_X_SPLAT:
    case ZF_X_IADD:
    case ZF_X_ISUB:
    case ZF_X_INEG:
    case ZF_X_ACCESS:
        *affine = true;
        return;
    case ZF_X_IMUL:
        *affine = true; /* with both factors depending on the id, the operation is refused by the caller */
        return;
    case ZF_X_SHL:
        *affine = !b.dep;
        return;
    case ZF_X_VEXTRACT:
        *affine = !b.dep;
        return;
    case ZF_X_CONV:
        *computable = zf_cx_int_conv(in);
        *affine = *computable && (in->comps == 1 || zf_etype_size(in->aux & 0xFFu) >= zf_etype_size(in->type));
        return;
    case ZF_X_INSERT: /* composites built of values of the id: taken apart again, or bit-cast, not affine */
    case ZF_X_VINSERT:
    case ZF_X_GATHER:
    case ZF_X_SHUFFLE:
    case ZF_X_AND:
    case ZF_X_OR:
    case ZF_X_XOR:
    case ZF_X_INOT:
    case ZF_X_LNOT:
    case ZF_X_SHR:
    case ZF_X_SAR:
    case ZF_X_SELECT:
    case ZF_X_SELECTV:
        *affine = false;
        return;
    default:
        *computable = in->op >= ZF_X_IEQ && in->op <= ZF_X_SLE;
        *affine = false;
        return;
    }
}

/* Gives instruction `at` its sites: `count` new ones, or for one value the site already recording the same value
 * (the same kind and value number: the access twice at one address, the index widened twice). */
static void zf_cx_site_add(zf_cx_em *e, uint32_t at, uint32_t count, uint8_t kind, uint64_t vn, bool local,
                           int64_t coef) {
    e->site_kind[at] = kind;
    e->sites_local |= local;
    for (uint32_t k = 0; count == 1 && vn != ZF_CX_VN_UNKNOWN && k < e->num_sites && k < ZF_CX_MAX_SITES; k++) {
        if (e->slot_vn[k] == vn && e->slot_kind[k] == kind) {
            e->site[at] = k;
            return;
        }
    }
    e->site[at] = e->num_sites;
    for (uint32_t k = 0; k < count; k++, e->num_sites++) {
        if (e->num_sites < ZF_CX_MAX_SITES) {
            e->slot_vn[e->num_sites] = count == 1 ? vn : ZF_CX_VN_UNKNOWN;
            e->slot_kind[e->num_sites] = kind;
            e->slot_coef[e->num_sites] = count == 1 ? coef : ZF_CX_COEF_UNKNOWN;
        }
    }
}

/* An access the unchecked copy makes without its check: through a window, not volatile, at an affine address. */
static void zf_cx_plan_access(zf_cx_plan *p, uint32_t at) {
    zf_cx_em *e = (zf_cx_em *)p->e;
    const zf_dinst *in = &e->code->insts[at];
    if (in->op == ZF_X_LOAD)
        zf_cx_class_set(p, in->dst, in->size, (zf_cx_class){true, true, true});
    if (!(in->aux & ZF_MEM_VOLATILE) && zf_cx_window_of(e, in->a) != UINT32_MAX && in->size > 0 &&
        !zf_cx_class_of(p, in->a, 8).bad)
        zf_cx_site_add(e, at, 1, ZF_CX_SITE_ADDRESS, zf_cx_vn_of(p, in->a, 8),
                       zf_cx_class_of(p, in->a, 8).local || zf_cx_window_of(e, in->a) == e->num_kinds,
                       ZF_CX_COEF_UNKNOWN);
}

/* The class of an instruction's result; the integers it widens from values depending on the id become sites. */
static void zf_cx_plan_inst(zf_cx_plan *p, uint32_t at) {
    zf_cx_em *e = (zf_cx_em *)p->e;
    const zf_dinst *in = &e->code->insts[at];
    if (in->op == ZF_X_LOAD || in->op == ZF_X_STORE || in->op == ZF_X_STOREZ) {
        zf_cx_plan_access(p, at);
        return;
    }
    zf_operand_sizes s = {0, 0, 0, 0};
    if (in->dst == ZF_REF_NONE)
        return;
    if (!zf_cx_sizes(e->code, in, &s)) {
        zf_cx_class_set(p, in->dst, in->size, (zf_cx_class){true, true, true});
        return;
    }
    zf_cx_class a = zf_cx_class_of(p, in->a, s.a), b = zf_cx_class_of(p, in->b, s.b), c = zf_cx_class_of(p, in->c, s.c),
                all = a;
    zf_cx_class_add(&all, b);
    zf_cx_class_add(&all, c);
    const uint32_t *aux = e->code->aux + in->aux;
    uint32_t widened = 0;
    for (uint32_t t = 0; in->op == ZF_X_ACCESS && t < aux[2]; t++) {
        uint32_t bytes =
            aux[3 + 4 * t + 1] == 8 || aux[3 + 4 * t + 1] == 4 || aux[3 + 4 * t + 1] == 2 ? aux[3 + 4 * t + 1] : 1;
        zf_cx_class index = zf_cx_class_of(p, aux[3 + 4 * t], bytes);
        zf_cx_class_add(&all, index);
        widened += bytes < 8; /* each, whatever it depends on: the probe records them all */
    }
    for (uint32_t k = 0; in->op == ZF_X_GATHER && k < aux[0]; k++)
        zf_cx_class_add(&all, zf_cx_class_of(p, aux[1 + 3 * k], aux[1 + 3 * k + 1]));
    bool computable, affine;
    zf_cx_op_kind(in, b, &computable, &affine);
    affine &= in->op != ZF_X_IMUL || !(a.dep && b.dep);
    uint32_t mask_bits = zf_cx_mask_bits(e->code, in);
    affine |= mask_bits != 0;
    zf_cx_class out = {all.dep, all.bad || !computable || (all.dep && !affine), all.local};
    uint64_t vn = zf_cx_vn_number(p, at);
    zf_cx_class_set(p, in->dst, s.dst, out);
    zf_cx_vn_set(p, in->dst, s.dst, vn);
    int64_t coef = out.bad ? ZF_CX_COEF_UNKNOWN : zf_cx_coef_result(p, in, &s);
    zf_cx_coef_set(p, in->dst, coef);
    if (in->op == ZF_X_MOV && !out.bad)
        zf_cx_coef_move(p, in->dst, in->a, s.dst);
    if (ZF_REF_AREA(in->dst) == ZF_AREA_FRAME && ZF_REF_OFFSET(in->dst) < p->fn->frame_bytes)
        p->def_block[ZF_REF_OFFSET(in->dst)] = p->block;
    if (out.bad)
        return;
    e->computed[at] = 1;
    bool widens = in->op == ZF_X_CONV && a.dep && zf_etype_size(in->aux & 0xFFu) < zf_etype_size(in->type);
    if (widens)
        zf_cx_site_add(e, at, 1, (in->aux & ZF_CONV_SRC_SIGNED) ? ZF_CX_SITE_SEXT : ZF_CX_SITE_ZEXT,
                       zf_cx_vn_of(p, in->a, s.a), all.local, coef);
    else if (mask_bits != 0 && all.dep)
        zf_cx_site_add(e, at, 1, ZF_CX_SITE_ZEXT, vn, all.local, coef);
    else if (widened > 0)
        zf_cx_site_add(e, at, widened, ZF_CX_SITE_SEXT, ZF_CX_VN_UNKNOWN, all.local, ZF_CX_COEF_UNKNOWN);
}

/* Whether a function has the shape the probe needs: no loop, barrier (or collective), private variable or call through
 * a pointer, and no async_work_group_copy (the group's copy is made by its first work-item before the others run). */
static bool zf_cx_plan_shape(const zf_cx_em *e, const zf_dfunc *fn) {
    for (uint32_t b = 0; b < fn->block_count; b++) {
        const zf_dblock *blk = &e->code->blocks[fn->block_first + b];
        for (uint32_t i = 0; i < blk->count; i++) {
            const zf_dinst *in = &e->code->insts[blk->first + i];
            if (in->op == ZF_X_CALLP || zf_cx_waits(in->op) || in->op == ZF_X_VAR || in->op == ZF_X_ASYNCCOPY)
                return false;
            uint32_t edges[2] = {in->aux, in->aux + 1}, n = in->op == ZF_X_BR ? 1 : in->op == ZF_X_BRC ? 2 : 0;
            for (uint32_t k = 0; k < n; k++)
                if (e->code->edges[edges[k]].target <= b)
                    return false;
            const uint32_t *aux = in->op == ZF_X_SWITCH ? e->code->aux + in->aux : NULL;
            for (uint32_t k = 0; aux != NULL && k <= aux[0]; k++)
                if (e->code->edges[k == aux[0] ? aux[1] : aux[2 + 3 * k + 2]].target <= b)
                    return false;
        }
    }
    return true;
}

/* Whether the kernel qualifies: no by-value argument (its private copy's address is the work-item's), every function
 * it reaches of the probe's shape, and each one but the entry called from one place only, so that one run of the
 * probe records each site once. `calls`: per form function, the calls of it. */
static bool zf_cx_plan_kernel(const zf_cx_em *e, uint32_t *calls) {
    const zf_dprog *code = e->code;
    for (uint32_t k = 0; k < e->num_kinds; k++)
        if (e->kinds[k] == ZF_XARG_BYVAL)
            return false;
    for (uint32_t f = 0; f < code->num_funcs; f++) {
        if (e->fns[f] == NULL)
            continue;
        const zf_dfunc *fn = &code->funcs[f];
        if (!zf_cx_plan_shape(e, fn))
            return false;
        for (uint32_t b = 0; b < fn->block_count; b++) {
            const zf_dblock *blk = &code->blocks[fn->block_first + b];
            for (uint32_t i = blk->first; i < blk->first + blk->count; i++)
                if (code->insts[i].op == ZF_X_CALL)
                    calls[code->aux[code->insts[i].aux]]++;
        }
    }
    for (uint32_t f = 0; f < code->num_funcs; f++)
        if (e->fns[f] != NULL && calls[f] != (f == e->kernel->function ? 0u : 1u))
            return false;
    return true;
}

/* The edges of a block's terminator, each as its index in code->edges. */
static uint32_t zf_cx_term_edges(const zf_dprog *code, const zf_dinst *term, uint32_t k) {
    if (term->op == ZF_X_BR || term->op == ZF_X_BRC)
        return term->aux + k;
    const uint32_t *aux = code->aux + term->aux;
    return k == aux[0] ? aux[1] : aux[2 + 3 * k + 2];
}

static uint32_t zf_cx_term_edge_count(const zf_dprog *code, const zf_dinst *term) {
    return term->op == ZF_X_BR ? 1 : term->op == ZF_X_BRC ? 2 : term->op == ZF_X_SWITCH ? code->aux[term->aux] + 1 : 0;
}

/* Immediate dominators of a function without loops, whose edges all go forward (zf_cx_plan_shape). */
static void zf_cx_dominators(const zf_dprog *code, const zf_dfunc *fn, uint32_t *idom) {
    for (uint32_t b = 0; b < fn->block_count; b++)
        idom[b] = b == 0 ? 0 : UINT32_MAX;
    for (uint32_t b = 0; b < fn->block_count; b++) {
        if (idom[b] == UINT32_MAX)
            continue; /* not reached */
        const zf_dblock *blk = &code->blocks[fn->block_first + b];
        const zf_dinst *term = &code->insts[blk->first + blk->count - 1];
        for (uint32_t k = 0; k < zf_cx_term_edge_count(code, term); k++) {
            uint32_t t = code->edges[zf_cx_term_edges(code, term, k)].target, x = b;
            uint32_t y = idom[t];
            while (y != UINT32_MAX && x != y)
                if (x > y)
                    x = idom[x];
                else
                    y = idom[y];
            idom[t] = x;
        }
    }
}

static bool zf_cx_dominates(const uint32_t *idom, uint32_t a, uint32_t b) {
    while (b > a && b != UINT32_MAX)
        b = idom[b];
    return b == a;
}

static bool zf_cx_available_ref(const zf_cx_plan *p, zf_ref r, uint32_t t) {
    if (r == ZF_REF_NONE || ZF_REF_AREA(r) != ZF_AREA_FRAME)
        return true;
    uint32_t o = ZF_REF_OFFSET(r);
    return o < p->fn->frame_bytes && p->def_block[o] != UINT32_MAX && zf_cx_dominates(p->idom, p->def_block[o], t);
}

/* Whether instruction `at` computes from its operands alone, and those are written once, in blocks that dominate
 * block t (or made there again): it computes the same at the end of t. */
static bool zf_cx_available(const zf_cx_plan *p, uint32_t at, uint32_t t) {
    const zf_dinst *in = &p->e->code->insts[at];
    if (!zf_cx_numbered(in->op) || in->dst == ZF_REF_NONE)
        return false;
    bool ok = zf_cx_available_ref(p, in->a, t) && zf_cx_available_ref(p, in->b, t) && zf_cx_available_ref(p, in->c, t);
    const uint32_t *aux = p->e->code->aux + in->aux;
    for (uint32_t k = 0; ok && in->op == ZF_X_ACCESS && k < aux[2]; k++)
        ok = zf_cx_available_ref(p, aux[3 + 4 * k], t);
    return ok;
}

static void zf_cx_remat_add(zf_cx_plan *p, uint32_t before, uint32_t at, zf_ref dst) {
    zf_cx_em *e = (zf_cx_em *)p->e;
    uint32_t block = p->fn->block_first + before;
    for (uint32_t r = 0; r < e->num_remat; r++)
        if (e->remat[r].block == block && e->remat[r].dst == dst)
            return;
    if (e->num_remat < e->cap_remat)
        e->remat[e->num_remat++] = (zf_cx_remat){block, at, dst};
    if (ZF_REF_OFFSET(dst) < p->fn->frame_bytes)
        p->def_block[ZF_REF_OFFSET(dst)] = before;
}

/* The instructions of block t that can be made at the end of its immediate dominator `before`, in order (the
 * address a store makes from a phi's index, above all): made there too, they dominate the other paths' computations
 * of the same, which LLVM's partial redundancy elimination would otherwise merge into a phi again. */
static void zf_cx_plan_hoists(zf_cx_plan *p, uint32_t t, uint32_t before) {
    const zf_dblock *blk = &p->e->code->blocks[p->fn->block_first + t];
    for (uint32_t i = 0; i < blk->count; i++) {
        const zf_dinst *in = &p->e->code->insts[blk->first + i];
        if (ZF_REF_AREA(in->dst) == ZF_AREA_FRAME && zf_cx_available(p, blk->first + i, before))
            zf_cx_remat_add(p, before, blk->first + i, in->dst);
    }
}

/* Phis of one value on every path whose computation can be made again at the end of the immediate dominator of the
 * block they land in: the unchecked copy makes it there (e->remat), where it dominates each path's computation, so
 * that LLVM replaces those by it and sees the address the phi gives as one function of the id (else its vectoriser
 * takes a phi of two addresses for a scatter). */
static void zf_cx_plan_remat(zf_cx_plan *p) {
    zf_cx_em *e = (zf_cx_em *)p->e;
    for (uint32_t k = 0; k < p->num_phis; k++) {
        const zf_dcopy *c = &e->code->copies[p->phi_copy[k]];
        uint64_t vn = zf_cx_vn_of(p, c->dst, c->size);
        if (vn == ZF_CX_VN_UNKNOWN || vn >> 40 != 3)
            continue;
        uint32_t at = (uint32_t)(vn & 0xFFFFFFFFu), t = p->phi_block[k];
        if (t == 0 || p->idom[t] == UINT32_MAX || ZF_REF_AREA(c->dst) != ZF_AREA_FRAME ||
            !zf_cx_available(p, at, p->idom[t]))
            continue;
        zf_cx_remat_add(p, p->idom[t], at, c->dst); /* made where it dominates every path's own */
        zf_cx_plan_hoists(p, t, p->idom[t]);
    }
    (void)e;
}

/* The classes of one function's registers, from its parameters' (set by its one caller); its calls set their
 * callees' and go on the stack. */
static bool zf_cx_plan_function(zf_cx_em *e, uint32_t f, zf_cx_class **param_class, uint32_t *stack, uint32_t *top) {
    const zf_dfunc *fn = &e->code->funcs[f];
    uint32_t frame = fn->frame_bytes + 1, copies = e->code->num_copies + 1;
    zf_cx_plan p = {.e = e,
                    .fn = fn,
                    .dep = calloc(frame, 1),
                    .bad = calloc(frame, 1),
                    .local = calloc(frame, 1),
                    .written = calloc(frame, 1),
                    .vn = calloc(frame, sizeof *p.vn),
                    .vn_size = calloc(frame, sizeof *p.vn_size),
                    .seen = malloc((e->code->num_insts + 1) * sizeof *p.seen),
                    .def_block = malloc(frame * sizeof *p.def_block),
                    .idom = malloc((fn->block_count + 1) * sizeof *p.idom),
                    .phi_block = malloc(copies * sizeof *p.phi_block),
                    .phi_copy = malloc(copies * sizeof *p.phi_copy),
                    .coef = malloc(frame * sizeof *p.coef)};
    bool ok = p.dep != NULL && p.bad != NULL && p.local != NULL && p.written != NULL && p.vn != NULL &&
              p.vn_size != NULL && p.seen != NULL && p.def_block != NULL && p.idom != NULL && p.phi_block != NULL &&
              p.phi_copy != NULL && p.coef != NULL;
    if (ok) {
        memset(p.def_block, 0xFF, frame * sizeof *p.def_block);
        for (uint32_t k = 0; k < frame; k++)
            p.coef[k] = ZF_CX_COEF_UNKNOWN;
        zf_cx_dominators(e->code, fn, p.idom);
        e->fn = fn;
        zf_cx_provenance(e, f);
        for (uint32_t k = 0; k < fn->param_count; k++) {
            const zf_dparam *param = &e->code->params[fn->param_first + k];
            bool local = f == e->kernel->function && k < e->num_kinds && e->kinds[k] == ZF_XARG_LOCAL;
            zf_cx_class_set(&p, param->ref, param->size,
                            param_class[f] ? param_class[f][k] : (zf_cx_class){false, false, local});
            zf_cx_vn_set(&p, param->ref, param->size, 4ull << 56 | (uint64_t)f << 32 | param->ref);
            if (ZF_REF_OFFSET(param->ref) < fn->frame_bytes)
                p.def_block[ZF_REF_OFFSET(param->ref)] = 0;
        }
    }
    for (uint32_t b = 0; ok && b < fn->block_count; b++) {
        const zf_dblock *blk = &e->code->blocks[fn->block_first + b];
        p.block = b;
        zf_cx_plan_copies(&p, blk->commit_first, blk->commit_count, b);
        for (uint32_t i = 0; ok && i < blk->count; i++) {
            const zf_dinst *in = &e->code->insts[blk->first + i];
            if (in->op != ZF_X_CALL) {
                zf_cx_plan_inst(&p, blk->first + i);
                continue;
            }
            const uint32_t *aux = e->code->aux + in->aux;
            const zf_dfunc *callee = &e->code->funcs[aux[0]];
            param_class[aux[0]] = calloc(callee->param_count + 1, sizeof **param_class);
            ok = param_class[aux[0]] != NULL;
            for (uint32_t k = 0; ok && k < callee->param_count; k++)
                param_class[aux[0]][k] =
                    k < aux[1] ? zf_cx_class_of(&p, aux[2 + 2 * k], aux[3 + 2 * k]) : (zf_cx_class){true, true, true};
            e->computed[blk->first + i] = 1; /* the probe runs the callee's probe */
            zf_cx_class_set(&p, in->dst, in->size, (zf_cx_class){true, true, true});
            stack[(*top)++] = aux[0];
        }
        const zf_dinst *term = &e->code->insts[blk->first + blk->count - 1];
        for (uint32_t k = 0; k < zf_cx_term_edge_count(e->code, term); k++) {
            const zf_dedge *ed = &e->code->edges[zf_cx_term_edges(e->code, term, k)];
            zf_cx_plan_copies(&p, ed->copy_first, ed->copy_count, ed->target);
        }
    }
    if (ok)
        zf_cx_plan_remat(&p);
    free(p.dep);
    free(p.bad);
    free(p.local);
    free(p.written);
    free(p.vn);
    free(p.vn_size);
    free(p.seen);
    free(p.def_block);
    free(p.idom);
    free(p.phi_block);
    free(p.phi_copy);
    free(p.coef);
    return ok;
}

static void zf_cx_plan_drop(zf_cx_em *e) {
    free(e->copy_good);
    e->copy_good = NULL;
    free(e->remat);
    e->remat = NULL;
    e->num_remat = 0;
    free(e->site);
    free(e->site_kind);
    free(e->computed);
    e->site = NULL;
    e->site_kind = e->computed = NULL;
    e->num_sites = 0;
    e->sites_local = false;
}

/* Which accesses the wave can check per group (e->site), leaving e->site NULL when none or when the kernel does not
 * qualify. The functions are planned callers first. */
static void zf_cx_plan_sites(zf_cx_em *e) {
    const zf_dprog *code = e->code;
    if (e->barriers)
        return;
    uint32_t *calls = calloc(code->num_funcs, sizeof *calls), *stack = malloc(code->num_funcs * sizeof *stack);
    zf_cx_class **param_class = calloc(code->num_funcs, sizeof *param_class);
    e->site = malloc(code->num_insts * sizeof *e->site);
    e->site_kind = calloc(code->num_insts, 1);
    e->computed = calloc(code->num_insts, 1);
    e->copy_good = calloc(code->num_copies + 1, 1);
    e->cap_remat = code->num_copies + code->num_insts + 1;
    e->remat = malloc(e->cap_remat * sizeof *e->remat);
    bool ok = e->copy_good != NULL && e->remat != NULL && calls != NULL && stack != NULL && param_class != NULL &&
              e->site != NULL && e->site_kind != NULL && e->computed != NULL && zf_cx_plan_kernel(e, calls);
    uint32_t top = 0;
    if (ok) {
        memset(e->site, 0xFF, code->num_insts * sizeof *e->site);
        stack[top++] = e->kernel->function;
    }
    while (ok && top > 0) {
        uint32_t f = stack[--top];
        ok = zf_cx_plan_function(e, f, param_class, stack, &top);
    }
    bool any_access = false;
    for (uint32_t i = 0; ok && i < code->num_insts; i++)
        any_access |= e->site_kind[i] == ZF_CX_SITE_ADDRESS;
    if (!ok || !any_access || e->num_sites > ZF_CX_MAX_SITES)
        zf_cx_plan_drop(e);
    for (uint32_t f = 0; param_class != NULL && f < code->num_funcs; f++)
        free(param_class[f]);
    free(param_class);
    free(calls);
    free(stack);
}

/* ------------------------------------------------------------------------------------------------------------------
 * The copies */

static uint32_t zf_cx_current(const zf_cx_em *e) {
    return e->code->blocks[e->fn->block_first + e->blk].first + e->idx;
}

bool zf_cx_hoisted(const zf_cx_em *e) {
    return e->mode == ZF_CX_UNCHECKED && e->site_kind[zf_cx_current(e)] == ZF_CX_SITE_ADDRESS;
}

/* A proven access as one load or store of its size, in the access group the work-item loop declares parallel. */
void zf_cx_parallel_access(zf_cx_em *e, const zf_dinst *in, LLVMValueRef host) {
    LLVMTypeRef t = LLVMIntTypeInContext(e->c, 8 * in->size);
    LLVMValueRef p = LLVMBuildBitCast(e->b, host, LLVMPointerType(t, 0), ""), access;
    if (in->op == ZF_X_LOAD) {
        access = LLVMBuildLoad2(e->b, t, p, "");
        zf_cx_store(e, access, zf_cx_dst(e, in->dst));
    } else {
        LLVMValueRef v = in->op == ZF_X_STORE ? zf_cx_load_ir(e, t, zf_cx_reg(e, in->b, in->size)) : LLVMConstNull(t);
        access = LLVMBuildStore(e->b, v, p);
    }
    LLVMSetAlignment(access, 1);
    LLVMSetMetadata(access, LLVMGetMDKindIDInContext(e->c, "llvm.access.group", 17), e->access_group);
}

/* The unchecked copy's widened values, computed once at the start of each function it has (so that every use of
 * one is one value, and an access made on two paths stays one consecutive access when the paths are merged): for
 * each site whose factor of x is known, the value the proof found, its origin plus its steps times the local ids
 * (along x, the work-item's place from the origin: ZF_CX_ITEM_ALONG), exact in 64 bits (no value it records wraps
 * inside the group). */
void zf_cx_unchecked_sites(zf_cx_em *e) {
    for (uint32_t k = 0; k < e->num_sites && k < ZF_CX_MAX_SITES; k++) {
        e->site_values[k] = NULL;
        if (e->slot_coef[k] == ZF_CX_COEF_UNKNOWN || e->slot_kind[k] == ZF_CX_SITE_ADDRESS)
            continue;
        LLVMValueRef v = zf_cx_item(e, ZF_CX_ITEM_SITES + 4 * k);
        for (uint32_t d = 0; d < 3; d++) {
            LLVMValueRef step =
                d == 0 ? zf_cx_i64c(e, (uint64_t)e->slot_coef[k]) : zf_cx_item(e, ZF_CX_ITEM_SITES + 4 * k + 1 + d);
            LLVMValueRef along = zf_cx_item(e, d == 0 ? ZF_CX_ITEM_ALONG : ZF_CX_ITEM_LID + d);
            v = LLVMBuildAdd(e->b, v, LLVMBuildMul(e->b, step, along, ""), "");
        }
        e->site_values[k] = v;
    }
}

uint32_t zf_cx_affine_sites(const zf_cx_em *e) {
    uint32_t n = 0;
    for (uint32_t k = 0; e->unchecked_fn != NULL && k < e->num_sites && k < ZF_CX_MAX_SITES; k++)
        n += e->slot_coef[k] != ZF_CX_COEF_UNKNOWN && e->slot_kind[k] != ZF_CX_SITE_ADDRESS;
    return n;
}

/* A widening (a conversion, or an AND keeping low bits) of a value the proof covered, in the unchecked copy: its
 * site's value (zf_cx_unchecked_sites); its operand is computed still, for its other uses. `at`: the instruction's
 * index, or ZF_CX_SITE_UNSET for the one being emitted (a phi computed again names the one it repeats). */
bool zf_cx_unchecked_widening(zf_cx_em *e, const zf_dinst *in, uint32_t at) {
    if (at == ZF_CX_SITE_UNSET)
        at = zf_cx_current(e);
    if (at == zf_cx_current(e) && in != &e->code->insts[at])
        return false; /* a copy of another instruction, emitted here */
    uint32_t site = e->site[at];
    bool widening = in->op == ZF_X_CONV || in->op == ZF_X_AND;
    if (site >= e->num_sites || !widening || in->comps != 1 || in->size > 8 ||
        (e->site_kind[at] != ZF_CX_SITE_ZEXT && e->site_kind[at] != ZF_CX_SITE_SEXT) || e->site_values[site] == NULL)
        return false;
    LLVMValueRef v = e->site_values[site];
    if (in->size < 8)
        v = LLVMBuildTrunc(e->b, v, LLVMIntTypeInContext(e->c, 8 * in->size), "");
    zf_cx_store(e, v, zf_cx_dst(e, in->dst));
    return true;
}

static void zf_cx_probe_record(zf_cx_em *e, uint32_t slot, LLVMValueRef v, bool is_signed) {
    LLVMTypeRef i128 = LLVMInt128TypeInContext(e->c);
    LLVMValueRef wide = is_signed ? LLVMBuildSExt(e->b, v, i128, "") : LLVMBuildZExt(e->b, v, i128, "");
    LLVMValueRef sink = LLVMBuildBitCast(e->b, e->counts, e->p8, ""); /* a probe counts nothing */
    LLVMBuildStore(e->b, wide, LLVMBuildBitCast(e->b, zf_cx_gep(e, sink, 16ull * slot), LLVMPointerType(i128, 0), ""));
}

/* The phi copies the probe makes: those of the same value on every path. */
void zf_cx_probe_copies(zf_cx_em *e, uint32_t first, uint32_t count) {
    for (uint32_t i = 0; i < count; i++) {
        const zf_dcopy *c = &e->code->copies[first + i];
        if (e->copy_good[first + i])
            zf_cx_move(e, zf_cx_dst(e, c->dst), zf_cx_reg(e, c->src, c->size), c->size);
    }
}

static void zf_cx_probe_edge(zf_cx_em *e, uint32_t edge) {
    zf_cx_probe_copies(e, e->code->edges[edge].copy_first, e->code->edges[edge].copy_count);
}

/* The probe leaves each block for the next one whatever its terminator: it computes what every path would. */
static void zf_cx_probe_next(zf_cx_em *e, const zf_dinst *term) {
    for (uint32_t k = 0; k < zf_cx_term_edge_count(e->code, term); k++)
        zf_cx_probe_edge(e, zf_cx_term_edges(e->code, term, k));
    if (e->blk + 1 < e->fn->block_count) {
        LLVMBuildBr(e->b, e->bbs[e->blk + 1]);
        return;
    }
    LLVMBuildRet(e->b, LLVMBuildLoad2(e->b, e->i1, e->probe_bad, ""));
}

bool zf_cx_probe_inst(zf_cx_em *e, const zf_dinst *in) {
    uint32_t at = zf_cx_current(e), site = e->site[at];
    switch (in->op) {
    case ZF_X_BR:
    case ZF_X_BRC:
    case ZF_X_SWITCH:
    case ZF_X_RET:
    case ZF_X_RETV:
    case ZF_X_UNREACHABLE:
        zf_cx_probe_next(e, in);
        return false;
    case ZF_X_LOAD:
    case ZF_X_STORE:
    case ZF_X_STOREZ: {
        if (site == ZF_CX_SITE_UNSET)
            return false;
        LLVMValueRef addr = zf_cx_load_ir(e, e->i64, zf_cx_reg(e, in->a, 8));
        LLVMValueRef inside = zf_cx_window_has(e, zf_cx_window_of(e, in->a), addr, in->size);
        LLVMValueRef bad = LLVMBuildLoad2(e->b, e->i1, e->probe_bad, "");
        LLVMBuildStore(e->b, LLVMBuildOr(e->b, bad, LLVMBuildNot(e->b, inside, ""), ""), e->probe_bad);
        zf_cx_probe_record(e, site, addr, false);
        return false;
    }
    default:
        break;
    }
    if (!e->computed[at]) /* and a call's: its callee's probe runs */
        return false;
    uint32_t mask_bits = zf_cx_mask_bits(e->code, in);
    if (site != ZF_CX_SITE_UNSET && mask_bits != 0) {
        zf_ref value = ZF_REF_AREA(in->a) == ZF_AREA_CONST ? in->b : in->a;
        LLVMValueRef v = zf_cx_load_ir(e, LLVMIntTypeInContext(e->c, 8 * in->size), zf_cx_reg(e, value, in->size));
        zf_cx_probe_record(e, site, LLVMBuildTrunc(e->b, v, LLVMIntTypeInContext(e->c, mask_bits), ""), false);
    }
    if (site != ZF_CX_SITE_UNSET && in->op == ZF_X_CONV) {
        uint32_t bytes = zf_etype_size(in->aux & 0xFFu);
        LLVMValueRef v = zf_cx_load_ir(e, LLVMIntTypeInContext(e->c, 8 * bytes), zf_cx_reg(e, in->a, bytes));
        zf_cx_probe_record(e, site, v, e->site_kind[at] == ZF_CX_SITE_SEXT);
    }
    const uint32_t *aux = e->code->aux + in->aux;
    for (uint32_t t = 0; site != ZF_CX_SITE_UNSET && in->op == ZF_X_ACCESS && t < aux[2]; t++) {
        uint32_t bytes = aux[3 + 4 * t + 1] == 4 || aux[3 + 4 * t + 1] == 2 ? aux[3 + 4 * t + 1] : 1;
        if (aux[3 + 4 * t + 1] == 8)
            continue;
        zf_ref index = aux[3 + 4 * t];
        LLVMValueRef v = zf_cx_load_ir(e, LLVMIntTypeInContext(e->c, 8 * bytes), zf_cx_reg(e, index, bytes));
        zf_cx_probe_record(e, site++, v, true);
    }
    return true;
}

/* Distinct metadata nodes (an access group, and a loop that declares it parallel), which LLVM's C interface cannot
 * make: parsed from IR text into the kernel's context, which owns them. */
static bool zf_cx_parallel_metadata(zf_cx_em *e) {
    static const char text[] = "define void @zf_cx_md() {\n  ret void, !zf.group !0, !zf.loop !1\n}\n"
                               "!0 = distinct !{}\n!1 = distinct !{!1, !2, !3}\n!3 = !{!\"llvm.loop.unroll.disable\"}\n"
                               "!2 = !{!\"llvm.loop.parallel_accesses\", !0}\n";
    LLVMMemoryBufferRef buffer = LLVMCreateMemoryBufferWithMemoryRangeCopy(text, sizeof text - 1, "zf_cx_md");
    LLVMModuleRef m = NULL;
    char *message = NULL;
    if (buffer == NULL || LLVMParseIRInContext(e->c, buffer, &m, &message)) {
        LLVMDisposeMessage(message);
        return false;
    }
    LLVMValueRef ret = LLVMGetLastInstruction(LLVMGetEntryBasicBlock(LLVMGetNamedFunction(m, "zf_cx_md")));
    e->access_group = LLVMGetMetadata(ret, LLVMGetMDKindIDInContext(e->c, "zf.group", 8));
    e->parallel_loop = LLVMGetMetadata(ret, LLVMGetMDKindIDInContext(e->c, "zf.loop", 7));
    LLVMDisposeModule(m);
    return e->access_group != NULL && e->parallel_loop != NULL;
}

/* One more emission of every function the kernel reaches, in `mode`, calling each other's copies; the block table
 * keeps the first emission's bytes. Returns the entry function's copy. */
static LLVMValueRef zf_cx_mode_copies(zf_cx_em *e, uint8_t mode, const char *name) {
    const zf_dprog *code = e->code;
    LLVMValueRef *generic = malloc(code->num_funcs * sizeof *generic);
    if (generic == NULL) {
        zf_cx_fail(e, "out of host memory");
        return NULL;
    }
    memcpy(generic, e->fns, code->num_funcs * sizeof *generic);
    for (uint32_t f = 0; f < code->num_funcs; f++) {
        if (generic[f] == NULL)
            continue;
        char fn_name[48];
        snprintf(fn_name, sizeof fn_name, "%s_f%u", name, f);
        e->fns[f] = zf_cx_new_function(e, fn_name);
    }
    e->mode = mode;
    e->region = UINT32_MAX;
    e->counting = false;
    for (uint32_t f = 0; f < code->num_funcs && !e->failed; f++)
        if (generic[f] != NULL)
            zf_cx_function_body(e, f);
    e->mode = ZF_CX_CHECKED;
    e->counting = true;
    LLVMValueRef entry = e->fns[e->kernel->function];
    memcpy(e->fns, generic, code->num_funcs * sizeof *generic);
    free(generic);
    return entry;
}

void zf_cx_hoist(zf_cx_em *e) {
    zf_cx_plan_sites(e);
    if (e->site == NULL)
        return;
    if (!zf_cx_parallel_metadata(e)) {
        zf_cx_plan_drop(e);
        return;
    }
    for (uint32_t i = 0; i < e->code->num_insts; i++)
        e->num_proven += e->site_kind[i] == ZF_CX_SITE_ADDRESS;
    e->probe_fn = zf_cx_mode_copies(e, ZF_CX_PROBE, "zf_cx_probe");
    e->unchecked_fn = zf_cx_mode_copies(e, ZF_CX_UNCHECKED, "zf_cx_unchecked");
    /* The wave calls it from two places (its rows when the box proof holds, a group's proven rows when only the
     * group's does): inlined in both, its accesses vectorise; called, it runs one call per work-item. */
    if (e->unchecked_fn != NULL)
        LLVMAddAttributeAtIndex(e->unchecked_fn, LLVMAttributeFunctionIndex,
                                LLVMCreateEnumAttribute(e->c, LLVMGetEnumAttributeKindForName("alwaysinline", 12), 0));
}

void zf_cx_hoist_free(zf_cx_em *e) {
    zf_cx_plan_drop(e);
}

/* The probe at point p of the group (p < 8: corner p, bit d of p for the last id of dimension d; else one step
 * along dimension p - 8), its values into the sink's row p; true when an address is outside its window. */
static LLVMValueRef zf_cx_probe_at(zf_cx_em *e, const LLVMValueRef *gs, LLVMValueRef first_row, LLVMValueRef base,
                                   LLVMValueRef p, LLVMValueRef sink) {
    LLVMBuilderRef B = e->b;
    LLVMValueRef corner = LLVMBuildICmp(B, LLVMIntULT, p, zf_cx_i64c(e, 8), ""), lid[3];
    for (uint32_t d = 0; d < 3; d++) {
        LLVMValueRef last = LLVMBuildSub(B, gs[d], zf_cx_i64c(e, 1), "");
        LLVMValueRef bit = LLVMBuildAnd(B, LLVMBuildLShr(B, p, zf_cx_i64c(e, d), ""), zf_cx_i64c(e, 1), "");
        LLVMValueRef at_corner = LLVMBuildMul(B, bit, last, "");
        LLVMValueRef one = LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntUGE, last, zf_cx_i64c(e, 1), ""),
                                           zf_cx_i64c(e, 1), zf_cx_i64c(e, 0), "");
        LLVMValueRef step =
            LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntEQ, p, zf_cx_i64c(e, 8 + d), ""), one, zf_cx_i64c(e, 0), "");
        lid[d] = LLVMBuildSelect(B, corner, at_corner, step, "");
        if (d == 1)
            lid[d] = LLVMBuildAdd(B, lid[d], first_row, "");
        zf_cx_set_item(e, ZF_CX_ITEM_LID + d, lid[d]);
    }
    LLVMValueRef linear = LLVMBuildAdd(
        B, lid[0], LLVMBuildMul(B, gs[0], LLVMBuildAdd(B, lid[1], LLVMBuildMul(B, gs[1], lid[2], ""), ""), ""), "");
    zf_cx_set_item(e, ZF_CX_ITEM_LANE, LLVMBuildAdd(B, base, linear, ""));
    LLVMValueRef row = LLVMBuildMul(B, p, zf_cx_i64c(e, 16ull * e->num_sites), "");
    LLVMValueRef at = LLVMBuildBitCast(B, LLVMBuildGEP2(B, e->i8, sink, &row, 1, ""), e->p64, "");
    LLVMValueRef args[5] = {e->rt, at, e->item, e->args, e->ret}; /* the sink as the counters */
    return LLVMBuildCall2(B, e->fn_type, e->probe_fn, args, 5, "");
}

static LLVMValueRef zf_cx_sink_value(zf_cx_em *e, LLVMValueRef sink, uint32_t p, LLVMValueRef j) {
    LLVMTypeRef i128 = LLVMInt128TypeInContext(e->c);
    LLVMValueRef at =
        LLVMBuildAdd(e->b, zf_cx_i64c(e, 16ull * e->num_sites * p), LLVMBuildMul(e->b, j, zf_cx_i64c(e, 16), ""), "");
    LLVMValueRef ptr =
        LLVMBuildBitCast(e->b, LLVMBuildGEP2(e->b, e->i8, sink, &at, 1, ""), LLVMPointerType(i128, 0), "");
    return LLVMBuildLoad2(e->b, i128, ptr, "");
}

/* Site j's steps along the 3 dimensions from the probe's rows (v0: its value at the origin); a flat dimension's row
 * was not probed, its step is 0. */
static void zf_cx_site_steps(zf_cx_em *e, LLVMValueRef sink, LLVMValueRef flat, LLVMValueRef j, LLVMValueRef v0,
                             LLVMValueRef *step) {
    LLVMTypeRef i128 = LLVMInt128TypeInContext(e->c);
    for (uint32_t d = 0; d < 3; d++) {
        LLVMValueRef is_flat = LLVMBuildTrunc(e->b, LLVMBuildLShr(e->b, flat, zf_cx_i64c(e, d), ""), e->i1, "");
        LLVMValueRef taken = LLVMBuildSub(e->b, zf_cx_sink_value(e, sink, 8 + d, j), v0, "");
        step[d] = LLVMBuildSelect(e->b, is_flat, LLVMConstInt(i128, 0, false), taken, "");
    }
}

static LLVMValueRef zf_cx_table_at(zf_cx_em *e, LLVMValueRef table, uint32_t k) {
    LLVMValueRef index = LLVMConstInt(e->i32, k, false);
    return LLVMBuildGEP2(e->b, e->i64, table, &index, 1, "");
}

/* The site table (per site: its origin, then its steps, in 64 bits) of what the probe recorded. Made at constant
 * places only, so that the optimizer keeps the table in registers and sees the unchecked copy's widened values as
 * affine functions of the local ids, with no 32-bit wrap to rule out before it vectorises. True when each site
 * whose factor of x the plan guessed steps by it along x. */
static LLVMValueRef zf_cx_site_table(zf_cx_em *e, LLVMValueRef sink, LLVMValueRef flat, LLVMValueRef first_row,
                                     LLVMValueRef table) {
    LLVMTypeRef i128 = LLVMInt128TypeInContext(e->c);
    LLVMValueRef guessed = LLVMConstInt(e->i1, 1, false);
    LLVMValueRef flat_x = LLVMBuildTrunc(e->b, flat, e->i1, "");
    for (uint32_t k = 0; k < e->num_sites; k++) {
        LLVMValueRef j = zf_cx_i64c(e, k), v0 = zf_cx_sink_value(e, sink, 0, j), step[3];
        zf_cx_site_steps(e, sink, flat, j, v0, step);
        LLVMValueRef origin = LLVMBuildTrunc(e->b, v0, e->i64, ""); /* the box's first row is not row 0 */
        origin = LLVMBuildSub(e->b, origin,
                              LLVMBuildMul(e->b, LLVMBuildTrunc(e->b, step[1], e->i64, ""), first_row, ""), "");
        LLVMBuildStore(e->b, origin, zf_cx_table_at(e, table, 4 * k));
        for (uint32_t d = 0; d < 3; d++)
            LLVMBuildStore(e->b, LLVMBuildTrunc(e->b, step[d], e->i64, ""), zf_cx_table_at(e, table, 4 * k + 1 + d));
        if (e->slot_coef[k] == ZF_CX_COEF_UNKNOWN || e->slot_kind[k] == ZF_CX_SITE_ADDRESS)
            continue;
        LLVMValueRef coef = LLVMConstInt(i128, (uint64_t)e->slot_coef[k], true);
        LLVMValueRef as_guessed = LLVMBuildICmp(e->b, LLVMIntEQ, step[0], coef, "");
        guessed = LLVMBuildAnd(e->b, guessed, LLVMBuildOr(e->b, flat_x, as_guessed, ""), "");
    }
    return guessed;
}

/* Whether the group's box of gs work-items from row `first_row` (local id y) may run the unchecked copy: every
 * address inside its window at the probe's points, and every recorded value at each corner what the origin and the
 * steps predict, computed exactly (in 128 bits). The sites' origins (at local id 0) and steps go to `table`. */
LLVMValueRef zf_cx_hoist_proof(zf_cx_em *e, const LLVMValueRef *gs, LLVMValueRef first_row, LLVMValueRef base,
                               LLVMValueRef items, LLVMValueRef table) {
    LLVMBuilderRef B = e->b;
    LLVMTypeRef i128 = LLVMInt128TypeInContext(e->c);
    LLVMValueRef sink = zf_cx_alloca(e, 16ull * e->num_sites * ZF_CX_PROBE_PTS);
    LLVMValueRef ok = LLVMBuildAlloca(e->eb, e->i1, "");
    LLVMBuildStore(B, LLVMConstInt(e->i1, 1, false), ok);
    /* The dimensions of one work-item: their corners are the origin's, they take no step. */
    LLVMValueRef flat = zf_cx_i64c(e, 0);
    for (uint32_t d = 0; d < 3; d++) {
        LLVMValueRef one = LLVMBuildICmp(B, LLVMIntULE, gs[d], zf_cx_i64c(e, 1), "");
        flat = LLVMBuildOr(B, flat, LLVMBuildShl(B, LLVMBuildZExt(B, one, e->i64, ""), zf_cx_i64c(e, d), ""), "");
    }
    zf_cx_loop points = zf_cx_loop_begin(e, zf_cx_i64c(e, ZF_CX_PROBE_PTS));
    LLVMValueRef at_corner = LLVMBuildAnd(B, points.i, flat, "");
    LLVMValueRef at_step = LLVMBuildAnd(B, LLVMBuildLShr(B, flat, LLVMBuildSub(B, points.i, zf_cx_i64c(e, 8), ""), ""),
                                        zf_cx_i64c(e, 1), "");
    LLVMValueRef again = LLVMBuildICmp(
        B, LLVMIntNE,
        LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntULT, points.i, zf_cx_i64c(e, 8), ""), at_corner, at_step, ""),
        zf_cx_i64c(e, 0), "");
    LLVMBasicBlockRef run = LLVMAppendBasicBlockInContext(e->c, e->f, "probe");
    LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(e->c, e->f, "probed");
    LLVMBuildCondBr(B, again, next, run);
    LLVMPositionBuilderAtEnd(B, run);
    LLVMValueRef outside = zf_cx_probe_at(e, gs, first_row, base, points.i, sink);
    LLVMBuildStore(B, LLVMBuildAnd(B, LLVMBuildLoad2(B, e->i1, ok, ""), LLVMBuildNot(B, outside, ""), ""), ok);
    LLVMBuildBr(B, next);
    LLVMPositionBuilderAtEnd(B, next);
    zf_cx_loop_end(e, &points);
    zf_cx_loop sites = zf_cx_loop_begin(e, zf_cx_i64c(e, e->num_sites));
    LLVMValueRef v0 = zf_cx_sink_value(e, sink, 0, sites.i), step[3], last[3];
    zf_cx_site_steps(e, sink, flat, sites.i, v0, step);
    for (uint32_t d = 0; d < 3; d++) {
        last[d] = LLVMBuildZExt(B, LLVMBuildSub(B, gs[d], zf_cx_i64c(e, 1), ""), i128, "");
        last[d] = LLVMBuildMul(B, last[d], step[d], "");
    }
    LLVMValueRef fits = LLVMBuildLoad2(B, e->i1, ok, "");
    for (uint32_t c = 1; c < 8; c++) {
        LLVMValueRef predicted = v0;
        for (uint32_t d = 0; d < 3; d++)
            if (c >> d & 1)
                predicted = LLVMBuildAdd(B, predicted, last[d], "");
        LLVMValueRef same = LLVMBuildICmp(B, LLVMIntEQ, predicted, zf_cx_sink_value(e, sink, c, sites.i), "");
        LLVMValueRef probed =
            LLVMBuildICmp(B, LLVMIntEQ, LLVMBuildAnd(B, flat, zf_cx_i64c(e, c), ""), zf_cx_i64c(e, 0), "");
        fits = LLVMBuildAnd(B, fits, LLVMBuildOr(B, same, LLVMBuildNot(B, probed, ""), ""), "");
    }
    LLVMBuildStore(B, fits, ok);
    zf_cx_loop_end(e, &sites);
    LLVMValueRef guessed = zf_cx_site_table(e, sink, flat, first_row, table);
    LLVMValueRef worth = LLVMBuildICmp(B, LLVMIntUGE, items, zf_cx_i64c(e, ZF_CX_HOIST_MIN_ITEMS), "");
    return LLVMBuildAnd(B, LLVMBuildAnd(B, worth, guessed, ""), LLVMBuildLoad2(B, e->i1, ok, ""), "");
}

/* The proof for the whole wave, when no recorded value depends on more than the global id and the wave's groups are
 * one run along dimension 0 (a box of global ids): the probe at the box's corners, its work-items taking local ids
 * beyond the group's (their global ids are the box's). False when it does not apply. Sets the first group's ids. */
LLVMValueRef zf_cx_wave_proof(zf_cx_em *e, const LLVMValueRef *gs, const LLVMValueRef *groups) {
    LLVMBuilderRef B = e->b;
    LLVMValueRef first = zf_cx_rt_field(e, offsetof(zf_cx_rt, first_group), e->i64);
    LLVMValueRef count = zf_cx_rt_field(e, offsetof(zf_cx_rt, wave_groups), e->i64);
    LLVMValueRef x = LLVMBuildURem(B, first, groups[0], ""), rest = LLVMBuildUDiv(B, first, groups[0], "");
    zf_cx_set_item(e, ZF_CX_ITEM_GRP, x);
    zf_cx_set_item(e, ZF_CX_ITEM_GRP + 1, LLVMBuildURem(B, rest, groups[1], ""));
    zf_cx_set_item(e, ZF_CX_ITEM_GRP + 2, LLVMBuildUDiv(B, rest, groups[1], ""));
    LLVMValueRef one_run = LLVMBuildAnd(B, LLVMBuildICmp(B, LLVMIntUGE, count, zf_cx_i64c(e, 2), ""),
                                        LLVMBuildICmp(B, LLVMIntULE, LLVMBuildAdd(B, x, count, ""), groups[0], ""), "");
    LLVMValueRef result = LLVMBuildAlloca(e->eb, e->i1, "");
    LLVMBuildStore(B, LLVMConstInt(e->i1, 0, false), result);
    e->box_sites = LLVMBuildBitCast(B, zf_cx_alloca(e, 32ull * e->num_sites), e->p64, "");
    if (e->sites_local)
        return LLVMBuildLoad2(B, e->i1, result, "");
    LLVMBasicBlockRef probe = LLVMAppendBasicBlockInContext(e->c, e->f, "wave proof");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(e->c, e->f, "wave proved");
    LLVMBuildCondBr(B, one_run, probe, done);
    LLVMPositionBuilderAtEnd(B, probe);
    LLVMValueRef box[3] = {LLVMBuildMul(B, gs[0], count, ""), gs[1], gs[2]};
    LLVMValueRef items = LLVMBuildMul(B, zf_cx_rt_field(e, offsetof(zf_cx_rt, group_items), e->i64), count, "");
    LLVMBuildStore(B, zf_cx_hoist_proof(e, box, zf_cx_i64c(e, 0), zf_cx_i64c(e, 0), items, e->box_sites), result);
    LLVMBuildBr(B, done);
    LLVMPositionBuilderAtEnd(B, done);
    return LLVMBuildLoad2(B, e->i1, result, "");
}

/* The site table of a group of the wave the box's proof covers: its origin is `width` ids along dimension 0 from the
 * box's (the groups before it in the wave), its steps the box's. */
void zf_cx_box_sites(zf_cx_em *e, LLVMValueRef width) {
    for (uint32_t k = 0; k < e->num_sites; k++) {
        LLVMValueRef at[4];
        for (uint32_t c = 0; c < 4; c++)
            at[c] = LLVMBuildLoad2(e->b, e->i64, zf_cx_table_at(e, e->box_sites, 4 * k + c), "");
        zf_cx_set_item(e, ZF_CX_ITEM_SITES + 4 * k,
                       LLVMBuildAdd(e->b, at[0], LLVMBuildMul(e->b, at[1], width, ""), ""));
        for (uint32_t c = 1; c < 4; c++)
            zf_cx_set_item(e, ZF_CX_ITEM_SITES + 4 * k + c, at[c]);
    }
}
