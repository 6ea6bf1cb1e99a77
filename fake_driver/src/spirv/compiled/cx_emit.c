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
 * one subtraction and one branch); any other pointer, and any access the compare refuses, goes through zf_cx_mem, the
 * interpreter's check and fault. Instructions that compute from their operands alone and are not hot enough to
 * deserve inline code run the interpreter's handler on one work-item (zf_cx_pure). What the tier does not compile is
 * refused with a reason (zf_cx_check_inst) and the kernel runs in the interpreter. */
#include "cx_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* OpenCL.std numbers compiled inline. */
enum { ZF_CX_E_FABS = 23, ZF_CX_E_FMA = 26, ZF_CX_E_FMAX = 27, ZF_CX_E_FMIN = 28, ZF_CX_E_MAD = 42, ZF_CX_E_SQRT = 61 };

#define ZF_CX_PROV_NONE  0u
#define ZF_CX_PROV_OTHER 0xFFFFu
#define ZF_CX_PROV_LOCAL 0xFFFEu /* into the wave's local memory: a local variable or argument */
#define ZF_CX_MAX_FRAME  (1u << 20)

typedef struct zf_cx_loop {
    LLVMBasicBlockRef head, body, exit;
    LLVMValueRef i;
} zf_cx_loop;

typedef struct zf_cx_em {
    LLVMContextRef c;
    LLVMModuleRef m;
    LLVMBuilderRef b, eb; /* eb: the allocas of the current function */
    const zf_dprog *code;
    const zf_dkernel *kernel;
    const zf_xarg_kind *kinds;
    uint32_t num_kinds;
    char *why;
    size_t why_size;
    bool failed;
    LLVMTypeRef i1, i8, i16, i32, i64, f32, f64, p8, p64, fn_type;
    LLVMValueRef consts;
    LLVMValueRef *fns;    /* per form function: NULL when not reached */
    uint32_t *block_base; /* per form function: unit index of its block 0 */
    zf_cx_block *blocks;  /* unit blocks */
    uint32_t num_blocks;
    /* The function being emitted. */
    const zf_dfunc *fn;
    bool is_entry;
    LLVMValueRef f, rt, env, counts, item, args, ret, frame, scratch, lane;
    LLVMValueRef priv, mark; /* functions with private variables: their memory, the private slots in use at entry */
    /* Barriers. A function that waits at a barrier, or calls one that may, is resumable: it can return with the
     * work-item waiting (item state 2) after saving its frame and resume point in the work-item's record, and is
     * called again later (state 1) to restore them and go on; no function is on a call chain twice (no recursion),
     * so each has one place in the record. */
    bool barriers;         /* the kernel has barriers */
    uint8_t *resumable;    /* per form function */
    uint32_t *spill_off;   /* per form function: its frame's offset in the record */
    uint32_t *resume_at;   /* per form function: its resume point's offset in the record */
    uint32_t spill_bytes;  /* the record's size */
    LLVMValueRef dispatch; /* the current (resumable) function's switch to its resume points */
    LLVMValueRef record;
    uint32_t resumes;
    uint32_t blk, idx; /* the instruction being emitted: its block in the function, its place in the block */
    uint64_t *live_in; /* liveness of the frame's bytes at each block's entry (NULL: the whole frame is live) */
    uint64_t *point;   /* the bytes to keep at the current resume point */
    uint32_t words;    /* 64-bit words of a frame's byte set */
    LLVMValueRef *win_lo, *win_span; /* per parameter of the entry function */
    LLVMBasicBlockRef *bbs, fault_bb;
    uint16_t *prov;
    uint32_t *heights;     /* per form function: zf_cx_post_order's */
    uint16_t **param_prov; /* per form function: each parameter's provenance over the calls that reach it */
    uint32_t cur;          /* unit index of the block being emitted */
} zf_cx_em;

static void zf_cx_fail(zf_cx_em *e, const char *format, ...) __attribute__((format(printf, 2, 3)));
static void zf_cx_fail(zf_cx_em *e, const char *format, ...) {
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

static bool zf_cx_is_pure(uint32_t op) {
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

/* The operand sizes of an instruction, SHUFFLE's from its component counts. */
static bool zf_cx_sizes(const zf_dprog *code, const zf_dinst *in, zf_operand_sizes *s) {
    if (!zf_form_operand_sizes(in, s))
        return false;
    if (in->op == ZF_X_SHUFFLE) {
        uint32_t e = zf_etype_size(in->type);
        s->a = e * zf_slot(code->aux[in->aux]);
        s->b = e * zf_slot(code->aux[in->aux + 1]);
    }
    return true;
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
    case ZF_X_ATOMIC: /* LLVM 14 has no atomic float minimum or maximum */
        if (in->aux == ZF_ATOM_FMIN || in->aux == ZF_ATOM_FMAX)
            return "atomic float min and max";
        return in->aux < ZF_ATOM_COUNT &&
                       (in->dst == ZF_REF_NONE || in->size == 1 || in->size == zf_etype_size(in->type))
                   ? NULL
                   : "an atomic result of another size";
    case ZF_X_CALL: {
        const zf_dfunc *callee = &code->funcs[code->aux[in->aux]];
        return (callee->flags & ZF_FUNC_HAS_BODY) ? NULL : "a call of a function without a body";
    }
    default:
        break;
    }
    if (zf_cx_is_pure(in->op)) {
        zf_operand_sizes s;
        if (!zf_cx_sizes(code, in, &s) || s.dst > ZF_CX_SCRATCH_SLOT || s.a > ZF_CX_SCRATCH_SLOT ||
            s.b > ZF_CX_SCRATCH_SLOT || s.c > ZF_CX_SCRATCH_SLOT)
            return "an operand larger than 256 bytes";
        return NULL;
    }
    return zf_xop_name(in->op);
}

/* ------------------------------------------------------------------------------------------------------------------
 * IR helpers */

static LLVMValueRef zf_cx_i64c(zf_cx_em *e, uint64_t v) {
    return LLVMConstInt(e->i64, v, false);
}

static LLVMValueRef zf_cx_gep(zf_cx_em *e, LLVMValueRef p8, uint64_t offset) {
    if (offset == 0)
        return p8;
    LLVMValueRef index = zf_cx_i64c(e, offset);
    return LLVMBuildGEP2(e->b, e->i8, p8, &index, 1, "");
}

static LLVMValueRef zf_cx_load(zf_cx_em *e, LLVMTypeRef t, LLVMValueRef p8) {
    LLVMValueRef p = LLVMBuildBitCast(e->b, p8, LLVMPointerType(t, 0), "");
    LLVMValueRef v = LLVMBuildLoad2(e->b, t, p, "");
    LLVMSetAlignment(v, 1);
    return v;
}

static void zf_cx_store(zf_cx_em *e, LLVMValueRef v, LLVMValueRef p8) {
    LLVMValueRef p = LLVMBuildBitCast(e->b, p8, LLVMPointerType(LLVMTypeOf(v), 0), "");
    LLVMSetAlignment(LLVMBuildStore(e->b, v, p), 1);
}

static void zf_cx_move(zf_cx_em *e, LLVMValueRef dst, LLVMValueRef src, uint64_t size) {
    if (size > 0)
        LLVMBuildMemMove(e->b, dst, 1, src, 1, zf_cx_i64c(e, size));
}

static LLVMValueRef zf_cx_alloca(zf_cx_em *e, uint64_t bytes) {
    LLVMValueRef a = LLVMBuildAlloca(e->eb, LLVMArrayType(e->i8, (unsigned)(bytes ? bytes : 1)), "");
    LLVMSetAlignment(a, 16);
    return LLVMBuildBitCast(e->eb, a, e->p8, "");
}

/* A field of the run-time state, from the wave function's copy of it (env): a local copy that no call can change,
 * so the optimizer keeps its fields in registers across the helper calls of cold paths. */
static LLVMValueRef zf_cx_rt_field(zf_cx_em *e, size_t offset, LLVMTypeRef t) {
    return zf_cx_load(e, t, zf_cx_gep(e, e->env, offset));
}

static LLVMValueRef zf_cx_item(zf_cx_em *e, uint32_t k) {
    LLVMValueRef index = LLVMConstInt(e->i32, k, false);
    return LLVMBuildLoad2(e->b, e->i64, LLVMBuildGEP2(e->b, e->i64, e->item, &index, 1, ""), "");
}

static void zf_cx_set_item(zf_cx_em *e, uint32_t k, LLVMValueRef v) {
    LLVMValueRef index = LLVMConstInt(e->i32, k, false);
    LLVMBuildStore(e->b, v, LLVMBuildGEP2(e->b, e->i64, e->item, &index, 1, ""));
}

/* A call of a helper of cx_run.c, by address (the code runs in this process). */
static LLVMValueRef zf_cx_call(zf_cx_em *e, void (*helper)(void), LLVMTypeRef ret, LLVMTypeRef *params, unsigned n,
                               LLVMValueRef *args) {
    LLVMTypeRef type = LLVMFunctionType(ret, params, n, false);
    LLVMValueRef callee =
        LLVMConstIntToPtr(LLVMConstInt(e->i64, (uint64_t)(uintptr_t)helper, false), LLVMPointerType(type, 0));
    return LLVMBuildCall2(e->b, type, callee, args, n, "");
}

static LLVMValueRef zf_cx_intrinsic(zf_cx_em *e, const char *name, LLVMTypeRef *types, unsigned ntypes,
                                    LLVMValueRef *args, unsigned nargs) {
    unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
    LLVMValueRef fn = LLVMGetIntrinsicDeclaration(e->m, id, types, ntypes);
    return LLVMBuildCall2(e->b, LLVMIntrinsicGetType(e->c, id, types, ntypes), fn, args, nargs, "");
}

/* ------------------------------------------------------------------------------------------------------------------
 * Types and registers */

static LLVMTypeRef zf_cx_elem(zf_cx_em *e, uint32_t t) {
    switch (t) {
    case ZF_T_BOOL:
    case ZF_T_I8:
        return e->i8;
    case ZF_T_I16:
        return e->i16;
    case ZF_T_I32:
        return e->i32;
    case ZF_T_I64:
        return e->i64;
    case ZF_T_F32:
        return e->f32;
    case ZF_T_F64:
        return e->f64;
    default:
        return NULL;
    }
}

static LLVMTypeRef zf_cx_vtype(zf_cx_em *e, uint32_t t, uint32_t comps) {
    LLVMTypeRef el = zf_cx_elem(e, t);
    uint32_t slot = zf_slot(comps);
    return el == NULL || slot <= 1 ? el : LLVMVectorType(el, slot);
}

/* A built-in value of the work-item, component d. */
static LLVMValueRef zf_cx_builtin(zf_cx_em *e, uint32_t builtin, uint32_t d) {
    LLVMBuilderRef b = e->b;
    size_t gs = offsetof(zf_cx_rt, group_size) + 8 * d, gr = offsetof(zf_cx_rt, groups) + 8 * d,
           off = offsetof(zf_cx_rt, offset) + 8 * d;
    LLVMValueRef lid = zf_cx_item(e, ZF_CX_ITEM_LID + d), grp = zf_cx_item(e, ZF_CX_ITEM_GRP + d);
    LLVMValueRef S = zf_cx_rt_field(e, offsetof(zf_cx_rt, subgroup_size), e->i64);
    LLVMValueRef G = zf_cx_rt_field(e, offsetof(zf_cx_rt, group_items), e->i64);
    LLVMValueRef r = zf_cx_item(e, ZF_CX_ITEM_LANE);
    r = LLVMBuildURem(b, r, G, "");
    switch (builtin) {
    case SpvBuiltInGlobalInvocationId:
        return LLVMBuildAdd(b, zf_cx_rt_field(e, off, e->i64),
                            LLVMBuildAdd(b, LLVMBuildMul(b, grp, zf_cx_rt_field(e, gs, e->i64), ""), lid, ""), "");
    case SpvBuiltInLocalInvocationId:
        return lid;
    case SpvBuiltInWorkgroupId:
        return grp;
    case SpvBuiltInNumWorkgroups:
        return zf_cx_rt_field(e, gr, e->i64);
    case SpvBuiltInWorkgroupSize:
    case SpvBuiltInEnqueuedWorkgroupSize:
        return zf_cx_rt_field(e, gs, e->i64);
    case SpvBuiltInGlobalSize:
        return LLVMBuildMul(b, zf_cx_rt_field(e, gr, e->i64), zf_cx_rt_field(e, gs, e->i64), "");
    case SpvBuiltInGlobalOffset:
        return zf_cx_rt_field(e, off, e->i64);
    case SpvBuiltInLocalInvocationIndex:
        return d == 0 ? r : zf_cx_i64c(e, 0);
    case SpvBuiltInWorkDim:
        return d == 0 ? zf_cx_rt_field(e, offsetof(zf_cx_rt, work_dim), e->i64) : zf_cx_i64c(e, 0);
    case SpvBuiltInGlobalLinearId: {
        if (d != 0)
            return zf_cx_i64c(e, 0);
        LLVMValueRef v = zf_cx_i64c(e, 0);
        for (int k = 2; k >= 0; k--) { /* ((g2 * gy) + g1) * gx + g0, g the id without the offset */
            size_t kgs = offsetof(zf_cx_rt, group_size) + 8 * (size_t)k,
                   kgr = offsetof(zf_cx_rt, groups) + 8 * (size_t)k;
            LLVMValueRef size = zf_cx_rt_field(e, kgs, e->i64);
            LLVMValueRef g = LLVMBuildAdd(b, LLVMBuildMul(b, zf_cx_item(e, ZF_CX_ITEM_GRP + (uint32_t)k), size, ""),
                                          zf_cx_item(e, ZF_CX_ITEM_LID + (uint32_t)k), "");
            v = LLVMBuildAdd(b, LLVMBuildMul(b, v, LLVMBuildMul(b, zf_cx_rt_field(e, kgr, e->i64), size, ""), ""), g,
                             "");
        }
        return v;
    }
    default:
        break;
    }
    if (d != 0)
        return zf_cx_i64c(e, 0);
    LLVMValueRef first = LLVMBuildMul(b, LLVMBuildUDiv(b, r, S, ""), S, "");
    switch (builtin) {
    case SpvBuiltInSubgroupSize: {
        LLVMValueRef rest = LLVMBuildSub(b, G, first, "");
        return LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntULT, rest, S, ""), rest, S, "");
    }
    case SpvBuiltInSubgroupMaxSize:
        return S;
    case SpvBuiltInNumSubgroups:
    case SpvBuiltInNumEnqueuedSubgroups:
        return LLVMBuildUDiv(b, LLVMBuildSub(b, LLVMBuildAdd(b, G, S, ""), zf_cx_i64c(e, 1), ""), S, "");
    case SpvBuiltInSubgroupId:
        return LLVMBuildUDiv(b, r, S, "");
    case SpvBuiltInSubgroupLocalInvocationId:
        return LLVMBuildURem(b, r, S, "");
    default:
        return zf_cx_i64c(e, 0);
    }
}

/* The bytes of a wave entry for this work-item, in a temporary. */
static LLVMValueRef zf_cx_wave_value(zf_cx_em *e, const zf_dwave *w) {
    if (w->kind == ZF_WAVE_LOCALVAR) {
        uint64_t at = UINT64_MAX;
        for (uint32_t k = 0; k < e->kernel->local_count; k++) {
            const zf_dkernel_local *kl = &e->code->kernel_locals[e->kernel->local_first + k];
            if (kl->variable == w->index)
                at = kl->offset;
        }
        LLVMValueRef tmp = zf_cx_alloca(e, 8);
        LLVMValueRef v = zf_cx_i64c(e, 0);
        if (at != UINT64_MAX) {
            LLVMValueRef base =
                LLVMBuildPtrToInt(e->b, zf_cx_rt_field(e, offsetof(zf_cx_rt, local), e->p8), e->i64, "");
            LLVMValueRef slot = LLVMBuildMul(e->b, zf_cx_item(e, ZF_CX_ITEM_SLOT),
                                             zf_cx_rt_field(e, offsetof(zf_cx_rt, local_stride), e->i64), "");
            v = LLVMBuildAdd(e->b, LLVMBuildAdd(e->b, base, slot, ""), zf_cx_i64c(e, at), "");
        }
        zf_cx_store(e, v, tmp);
        return tmp;
    }
    uint32_t es = zf_etype_size(w->type), slot = zf_slot(w->comps);
    LLVMValueRef tmp = zf_cx_alloca(e, (uint64_t)es * slot);
    for (uint32_t d = 0; d < slot; d++) {
        LLVMValueRef v = d < 3 && d < w->comps ? zf_cx_builtin(e, w->index, d) : zf_cx_i64c(e, 0);
        if (es != 8)
            v = LLVMBuildTrunc(e->b, v, LLVMIntTypeInContext(e->c, 8 * (es ? es : 1)), "");
        zf_cx_store(e, v, zf_cx_gep(e, tmp, (uint64_t)d * es));
    }
    return tmp;
}

/* The address of `size` bytes of a register read by the current work-item. */
static LLVMValueRef zf_cx_reg(zf_cx_em *e, zf_ref ref, uint32_t size) {
    uint32_t area = ZF_REF_AREA(ref), o = ZF_REF_OFFSET(ref);
    const zf_dprog *code = e->code;
    if (area == ZF_AREA_FRAME)
        return zf_cx_gep(e, e->frame, o);
    if (area == ZF_AREA_CONST) {
        for (uint32_t i = 0; i < code->num_relocs; i++) {
            const zf_dreloc *r = &code->relocs[i];
            if (o + size <= r->offset || o >= r->offset + 8)
                continue;
            if (o != r->offset || size != 8) {
                zf_cx_fail(e, "a partial read of a relocated address");
                return zf_cx_gep(e, e->frame, 0);
            }
            LLVMValueRef relocs = zf_cx_rt_field(e, offsetof(zf_cx_rt, relocs), e->p8);
            LLVMValueRef tmp = zf_cx_alloca(e, 8);
            zf_cx_store(e, zf_cx_load(e, e->i64, zf_cx_gep(e, relocs, 8ull * i)), tmp);
            return tmp;
        }
        LLVMValueRef base = LLVMBuildBitCast(e->b, e->consts, e->p8, "");
        return zf_cx_gep(e, base, o);
    }
    if (area == ZF_AREA_WAVE) {
        for (uint32_t i = 0; i < code->num_waves; i++) {
            const zf_dwave *w = &code->waves[i];
            uint32_t bytes = w->kind == ZF_WAVE_BUILTIN ? zf_etype_size(w->type) * zf_slot(w->comps) : 8;
            if (o < w->offset || o + size > w->offset + bytes)
                continue;
            if (w->kind == ZF_WAVE_POINTER)
                break;
            return zf_cx_gep(e, zf_cx_wave_value(e, w), o - w->offset);
        }
        zf_cx_fail(e, "a pointer to a built-in variable");
        return zf_cx_gep(e, e->frame, 0);
    }
    zf_cx_fail(e, "an operand in no area");
    return zf_cx_gep(e, e->frame, 0);
}

static LLVMValueRef zf_cx_dst(zf_cx_em *e, zf_ref ref) {
    if (ZF_REF_AREA(ref) != ZF_AREA_FRAME) {
        zf_cx_fail(e, "a result outside the frame");
        return e->frame;
    }
    return zf_cx_gep(e, e->frame, ZF_REF_OFFSET(ref));
}

/* Bytes of a value type (integers, floats and vectors of them). */
static uint32_t zf_cx_bytes(zf_cx_em *e, LLVMTypeRef t) {
    if (LLVMGetTypeKind(t) == LLVMVectorTypeKind)
        return LLVMGetVectorSize(t) * zf_cx_bytes(e, LLVMGetElementType(t));
    if (LLVMGetTypeKind(t) == LLVMIntegerTypeKind)
        return LLVMGetIntTypeWidth(t) / 8;
    return t == e->f32 ? 4 : 8;
}

static LLVMValueRef zf_cx_value(zf_cx_em *e, LLVMTypeRef t, zf_ref ref) {
    return zf_cx_load(e, t, zf_cx_reg(e, ref, zf_cx_bytes(e, t)));
}

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
    case ZF_X_BRC:
        return zf_cx_prov_edge(e, in->aux) | zf_cx_prov_edge(e, in->aux + 1);
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
static void zf_cx_provenance(zf_cx_em *e, uint32_t fi) {
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
static void zf_cx_likely(zf_cx_em *e, LLVMValueRef br) {
    LLVMMetadataRef parts[3] = {LLVMMDStringInContext2(e->c, "branch_weights", 14),
                                LLVMValueAsMetadata(LLVMConstInt(e->i32, 1u << 20, false)),
                                LLVMValueAsMetadata(LLVMConstInt(e->i32, 1, false))};
    LLVMValueRef node = LLVMMetadataAsValue(e->c, LLVMMDNodeInContext2(e->c, parts, 3));
    LLVMSetMetadata(br, LLVMGetMDKindIDInContext(e->c, "prof", 4), node);
}

/* The host address of an access of `size` bytes at `addr` (an i64), checked; a fault leaves the function. */
static LLVMValueRef zf_cx_access_counted(zf_cx_em *e, zf_ref ptr, LLVMValueRef addr, uint32_t size, bool write,
                                         bool read_too) {
    LLVMBuilderRef b = e->b;
    LLVMTypeRef params[5] = {e->p8, e->i64, e->i64, e->i64, e->i64};
    uint16_t prov = zf_cx_prov_of(e, ptr);
    bool local = prov == ZF_CX_PROV_LOCAL;
    bool windowed = local || (prov != ZF_CX_PROV_NONE && prov != ZF_CX_PROV_OTHER && prov - 1u < e->num_kinds);
    uint32_t count = windowed ? 0 : ZF_CX_COUNT | (read_too ? ZF_CX_COUNT_READ : 0);
    LLVMValueRef args[5] = {e->rt, e->lane, addr, zf_cx_i64c(e, size),
                            zf_cx_i64c(e, (write ? ZF_CX_WRITE : 0) | count)};
    LLVMBasicBlockRef slow = LLVMAppendBasicBlockInContext(e->c, e->f, "slow");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(e->c, e->f, "checked");
    LLVMBasicBlockRef fast = NULL;
    LLVMValueRef direct = NULL;
    if (windowed) {
        uint32_t k = local ? e->num_kinds : prov - 1u; /* the local window follows the arguments' */
        zf_cx_block *blk = &e->blocks[e->cur];
        *(write ? (local ? &blk->written_local : &blk->written) : (local ? &blk->read_local : &blk->read)) += size;
        *(local ? &blk->read_local : &blk->read) += read_too ? size : 0;
        /* One unsigned comparison, p - lo < span - size + 1 (0 when the access cannot fit): loop-invariant bounds the
         * optimizer hoists, an index it can reason about (range-check elimination). */
        LLVMValueRef span = e->win_span[k], sz = zf_cx_i64c(e, size);
        LLVMValueRef limit =
            LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntUGE, span, sz, ""),
                            LLVMBuildAdd(b, LLVMBuildSub(b, span, sz, ""), zf_cx_i64c(e, 1), ""), zf_cx_i64c(e, 0), "");
        LLVMValueRef in = LLVMBuildICmp(b, LLVMIntULT, LLVMBuildSub(b, addr, e->win_lo[k], ""), limit, "");
        fast = LLVMGetInsertBlock(b);
        direct = LLVMBuildIntToPtr(b, addr, e->p8, "");
        zf_cx_likely(e, LLVMBuildCondBr(b, in, done, slow));
    } else {
        LLVMBuildBr(b, slow);
    }
    LLVMPositionBuilderAtEnd(b, slow);
    LLVMValueRef checked = zf_cx_call(e, (void (*)(void))zf_cx_mem, e->p8, params, 5, args);
    LLVMBasicBlockRef slow_end = LLVMGetInsertBlock(b);
    LLVMBuildCondBr(b, LLVMBuildIsNull(b, checked, ""), e->fault_bb, done);
    LLVMPositionBuilderAtEnd(b, done);
    if (!windowed)
        return checked;
    LLVMValueRef phi = LLVMBuildPhi(b, e->p8, "");
    LLVMValueRef values[2] = {direct, checked};
    LLVMBasicBlockRef from[2] = {fast, slow_end};
    LLVMAddIncoming(phi, values, from, 2);
    return phi;
}

static LLVMValueRef zf_cx_access(zf_cx_em *e, zf_ref ptr, LLVMValueRef addr, uint32_t size, bool write) {
    return zf_cx_access_counted(e, ptr, addr, size, write, false);
}

/* OpCopyMemory(Sized): the interpreter's copy (zf_cx_copy), per work-item. */
static void zf_cx_copy_inst(zf_cx_em *e, const zf_dinst *in) {
    LLVMValueRef to = zf_cx_load(e, e->i64, zf_cx_reg(e, in->a, 8)),
                 from = zf_cx_load(e, e->i64, zf_cx_reg(e, in->b, 8));
    LLVMValueRef size = zf_cx_i64c(e, in->size);
    if (in->op == ZF_X_COPYMEMN) {
        LLVMValueRef tmp = zf_cx_alloca(e, 8);
        zf_cx_store(e, zf_cx_i64c(e, 0), tmp);
        zf_cx_move(e, tmp, zf_cx_reg(e, in->c, in->asize), in->asize < 8 ? in->asize : 8);
        size = zf_cx_load(e, e->i64, tmp);
    }
    LLVMTypeRef params[5] = {e->p8, e->i64, e->i64, e->i64, e->i64};
    LLVMValueRef args[5] = {e->rt, e->lane, to, from, size};
    LLVMValueRef ok = zf_cx_call(e, (void (*)(void))zf_cx_copy, e->i32, params, 5, args);
    LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(e->c, e->f, "copied");
    LLVMBuildCondBr(e->b, LLVMBuildICmp(e->b, LLVMIntEQ, ok, LLVMConstInt(e->i32, 0, false), ""), e->fault_bb, next);
    LLVMPositionBuilderAtEnd(e->b, next);
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

static void zf_cx_atomic(zf_cx_em *e, const zf_dinst *in) {
    uint32_t bytes = zf_etype_size(in->type);
    LLVMTypeRef t = LLVMIntTypeInContext(e->c, 8 * bytes);
    LLVMValueRef addr = zf_cx_load(e, e->i64, zf_cx_reg(e, in->a, 8));
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
    zf_cx_call(e, (void (*)(void))zf_cx_misaligned, LLVMVoidTypeInContext(e->c), params, 4, args);
    LLVMBuildBr(e->b, e->fault_bb);
    LLVMPositionBuilderAtEnd(e->b, good);
    LLVMValueRef v = in->b != ZF_REF_NONE ? zf_cx_load(e, t, zf_cx_reg(e, in->b, bytes)) : LLVMConstInt(t, 0, false);
    LLVMValueRef c = in->c != ZF_REF_NONE ? zf_cx_load(e, t, zf_cx_reg(e, in->c, bytes)) : LLVMConstInt(t, 0, false);
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
                in->op == ZF_X_STORE ? zf_cx_load(e, t, zf_cx_reg(e, in->b, in->size)) : LLVMConstInt(t, 0, false);
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

static void zf_cx_memory(zf_cx_em *e, const zf_dinst *in) {
    LLVMValueRef addr = zf_cx_load(e, e->i64, zf_cx_reg(e, in->a, 8));
    bool write = in->op != ZF_X_LOAD;
    LLVMValueRef host = zf_cx_access(e, in->a, addr, in->size, write);
    uint32_t size = in->size;
    if ((in->aux & ZF_MEM_VOLATILE) && (size == 1 || size == 2 || size == 4 || size == 8)) {
        zf_cx_volatile(e, in, host);
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

static void zf_cx_address(zf_cx_em *e, const zf_dinst *in) {
    const uint32_t *aux = e->code->aux + in->aux;
    LLVMBuilderRef b = e->b;
    LLVMValueRef v = zf_cx_load(e, e->i64, zf_cx_reg(e, in->a, 8));
    v = LLVMBuildAdd(b, v, zf_cx_i64c(e, (uint64_t)aux[1] << 32 | aux[0]), "");
    for (uint32_t t = 0; t < aux[2]; t++) {
        const uint32_t *term = aux + 3 + 4 * t;
        uint32_t bytes = term[1] == 8 || term[1] == 4 || term[1] == 2 ? term[1] : 1;
        LLVMValueRef index = zf_cx_load(e, LLVMIntTypeInContext(e->c, 8 * bytes), zf_cx_reg(e, term[0], bytes));
        index = LLVMBuildSExt(b, index, e->i64, "");
        v = LLVMBuildAdd(b, v, LLVMBuildMul(b, index, zf_cx_i64c(e, (uint64_t)term[3] << 32 | term[2]), ""), "");
    }
    zf_cx_store(e, v, zf_cx_dst(e, in->dst));
}

/* ------------------------------------------------------------------------------------------------------------------
 * Arithmetic compiled inline */

static LLVMValueRef zf_cx_splat(zf_cx_em *e, LLVMTypeRef t, uint64_t v, bool is_signed) {
    if (LLVMGetTypeKind(t) != LLVMVectorTypeKind)
        return LLVMConstInt(t, v, is_signed);
    unsigned n = LLVMGetVectorSize(t);
    LLVMValueRef parts[16];
    for (unsigned i = 0; i < n; i++)
        parts[i] = LLVMConstInt(LLVMGetElementType(t), v, is_signed);
    return LLVMConstVector(parts, n);
}

static LLVMValueRef zf_cx_int_binary(zf_cx_em *e, uint32_t op, LLVMTypeRef t, LLVMValueRef a, LLVMValueRef b) {
    LLVMBuilderRef B = e->b;
    LLVMTypeRef el = LLVMGetTypeKind(t) == LLVMVectorTypeKind ? LLVMGetElementType(t) : t;
    unsigned bits = LLVMGetIntTypeWidth(el);
    LLVMValueRef zero = zf_cx_splat(e, t, 0, false), one = zf_cx_splat(e, t, 1, false);
    LLVMValueRef ones = zf_cx_splat(e, t, UINT64_MAX, true);
    switch (op) {
    case ZF_X_IADD:
        return LLVMBuildAdd(B, a, b, "");
    case ZF_X_ISUB:
        return LLVMBuildSub(B, a, b, "");
    case ZF_X_IMUL:
        return LLVMBuildMul(B, a, b, "");
    case ZF_X_AND:
        return LLVMBuildAnd(B, a, b, "");
    case ZF_X_OR:
        return LLVMBuildOr(B, a, b, "");
    case ZF_X_XOR:
        return LLVMBuildXor(B, a, b, "");
    case ZF_X_SHL:
    case ZF_X_SHR:
    case ZF_X_SAR: {
        LLVMValueRef amount = LLVMBuildAnd(B, b, zf_cx_splat(e, t, bits - 1, false), "");
        return op == ZF_X_SHL   ? LLVMBuildShl(B, a, amount, "")
               : op == ZF_X_SHR ? LLVMBuildLShr(B, a, amount, "")
                                : LLVMBuildAShr(B, a, amount, "");
    }
    default:
        break;
    }
    /* Division: a zero divisor (and for signed ones the overflowing -1) gives 0, as in the interpreter. */
    LLVMValueRef bad = LLVMBuildICmp(B, LLVMIntEQ, b, zero, "");
    if (op == ZF_X_SDIV) {
        LLVMValueRef min = zf_cx_splat(e, t, 1ull << (bits - 1), false);
        bad = LLVMBuildOr(
            B, bad,
            LLVMBuildAnd(B, LLVMBuildICmp(B, LLVMIntEQ, a, min, ""), LLVMBuildICmp(B, LLVMIntEQ, b, ones, ""), ""), "");
    } else if (op == ZF_X_SREM) {
        bad = LLVMBuildOr(B, bad, LLVMBuildICmp(B, LLVMIntEQ, b, ones, ""), "");
    }
    LLVMValueRef safe = LLVMBuildSelect(B, bad, one, b, "");
    LLVMValueRef r = op == ZF_X_UDIV   ? LLVMBuildUDiv(B, a, safe, "")
                     : op == ZF_X_SDIV ? LLVMBuildSDiv(B, a, safe, "")
                     : op == ZF_X_UREM ? LLVMBuildURem(B, a, safe, "")
                                       : LLVMBuildSRem(B, a, safe, "");
    return LLVMBuildSelect(B, bad, zero, r, "");
}

static const LLVMIntPredicate zf_cx_ipred[] = {
    [ZF_X_IEQ - ZF_X_IEQ] = LLVMIntEQ,  [ZF_X_INE - ZF_X_IEQ] = LLVMIntNE,  [ZF_X_UGT - ZF_X_IEQ] = LLVMIntUGT,
    [ZF_X_UGE - ZF_X_IEQ] = LLVMIntUGE, [ZF_X_ULT - ZF_X_IEQ] = LLVMIntULT, [ZF_X_ULE - ZF_X_IEQ] = LLVMIntULE,
    [ZF_X_SGT - ZF_X_IEQ] = LLVMIntSGT, [ZF_X_SGE - ZF_X_IEQ] = LLVMIntSGE, [ZF_X_SLT - ZF_X_IEQ] = LLVMIntSLT,
    [ZF_X_SLE - ZF_X_IEQ] = LLVMIntSLE,
};

static const LLVMRealPredicate zf_cx_fpred[] = {
    [ZF_X_FOEQ - ZF_X_FOEQ] = LLVMRealOEQ, [ZF_X_FUEQ - ZF_X_FOEQ] = LLVMRealUEQ,
    [ZF_X_FONE - ZF_X_FOEQ] = LLVMRealONE, [ZF_X_FUNE - ZF_X_FOEQ] = LLVMRealUNE,
    [ZF_X_FOLT - ZF_X_FOEQ] = LLVMRealOLT, [ZF_X_FULT - ZF_X_FOEQ] = LLVMRealULT,
    [ZF_X_FOGT - ZF_X_FOEQ] = LLVMRealOGT, [ZF_X_FUGT - ZF_X_FOEQ] = LLVMRealUGT,
    [ZF_X_FOLE - ZF_X_FOEQ] = LLVMRealOLE, [ZF_X_FULE - ZF_X_FOEQ] = LLVMRealULE,
    [ZF_X_FOGE - ZF_X_FOEQ] = LLVMRealOGE, [ZF_X_FUGE - ZF_X_FOEQ] = LLVMRealUGE,
    [ZF_X_FORD - ZF_X_FOEQ] = LLVMRealORD, [ZF_X_FUNORD - ZF_X_FOEQ] = LLVMRealUNO,
};

/* Float functions of OpenCL.std compiled inline: the others run the interpreter's code. */
static LLVMValueRef zf_cx_ext(zf_cx_em *e, const zf_dinst *in, LLVMTypeRef t) {
    LLVMValueRef a = zf_cx_value(e, t, in->a), b = NULL, c = NULL;
    if (in->b != ZF_REF_NONE)
        b = zf_cx_value(e, t, in->b);
    if (in->c != ZF_REF_NONE)
        c = zf_cx_value(e, t, in->c);
    switch (in->aux) {
    case ZF_CX_E_MAD: /* a multiply then an add, never fused */
        return LLVMBuildFAdd(e->b, LLVMBuildFMul(e->b, a, b, ""), c, "");
    case ZF_CX_E_FMA: {
        LLVMValueRef args[3] = {a, b, c};
        return zf_cx_intrinsic(e, "llvm.fma", &t, 1, args, 3);
    }
    case ZF_CX_E_FMAX:
    case ZF_CX_E_FMIN: {
        LLVMValueRef args[2] = {a, b};
        return zf_cx_intrinsic(e, in->aux == ZF_CX_E_FMAX ? "llvm.maxnum" : "llvm.minnum", &t, 1, args, 2);
    }
    case ZF_CX_E_SQRT:
        return zf_cx_intrinsic(e, "llvm.sqrt", &t, 1, &a, 1);
    default:
        return zf_cx_intrinsic(e, "llvm.fabs", &t, 1, &a, 1);
    }
}

static bool zf_cx_ext_inline(const zf_dinst *in) {
    uint32_t f = in->aux, ta = in->asize & 0xFFu;
    bool args_of_type = ta == in->type && (in->b == ZF_REF_NONE || ((in->asize >> 8) & 0xFFu) == in->type) &&
                        (in->c == ZF_REF_NONE || ((in->asize >> 16) & 0xFFu) == in->type);
    return (in->type == ZF_T_F32 || in->type == ZF_T_F64) && args_of_type &&
           (f == ZF_CX_E_MAD || f == ZF_CX_E_FMA || f == ZF_CX_E_FMAX || f == ZF_CX_E_FMIN || f == ZF_CX_E_SQRT ||
            f == ZF_CX_E_FABS);
}

/* Conversions compiled inline: integer widths, integers to and from floats, floats to floats, in the default
 * rounding; the rest (saturation, rounding modes, halves) run the interpreter's code. */
static LLVMValueRef zf_cx_conv(zf_cx_em *e, const zf_dinst *in) {
    uint32_t src = in->aux & 0xFFu, mode = (in->aux >> ZF_CONV_ROUND_SHIFT) & 7u, dst = in->type;
    bool src_signed = (in->aux & ZF_CONV_SRC_SIGNED) != 0, dst_signed = (in->aux & ZF_CONV_DST_SIGNED) != 0;
    if ((in->aux & ZF_CONV_SATURATE) || src == ZF_T_F16 || dst == ZF_T_F16 || dst == ZF_T_BOOL)
        return NULL;
    LLVMTypeRef ts = zf_cx_vtype(e, src, in->comps), td = zf_cx_vtype(e, dst, in->comps);
    if (ts == NULL || td == NULL)
        return NULL;
    bool fs = zf_etype_is_float(src), fd = zf_etype_is_float(dst);
    if (mode != ZF_ROUND_DEFAULT && !(fs && !fd && mode == ZF_ROUND_RTZ) && !(!fs && !fd))
        return NULL;
    LLVMValueRef a = zf_cx_value(e, ts, in->a);
    unsigned ws = fs ? 0 : zf_etype_size(src), wd = fd ? 0 : zf_etype_size(dst);
    if (!fs && !fd) {
        if (ws == wd)
            return a;
        return wd < ws ? LLVMBuildTrunc(e->b, a, td, "")
                       : (src_signed ? LLVMBuildSExt(e->b, a, td, "") : LLVMBuildZExt(e->b, a, td, ""));
    }
    if (!fs)
        return src_signed ? LLVMBuildSIToFP(e->b, a, td, "") : LLVMBuildUIToFP(e->b, a, td, "");
    if (fd)
        return src == dst ? a : dst == ZF_T_F64 ? LLVMBuildFPExt(e->b, a, td, "") : LLVMBuildFPTrunc(e->b, a, td, "");
    /* Float to integer saturates, NaN gives 0: what llvm.fpto[su]i.sat define. */
    LLVMTypeRef types[2] = {td, ts};
    return zf_cx_intrinsic(e, dst_signed ? "llvm.fptosi.sat" : "llvm.fptoui.sat", types, 2, &a, 1);
}

/* The interpreter's handler on one work-item, operands staged in the scratch area. */
static void zf_cx_pure_call(zf_cx_em *e, const zf_dinst *in) {
    zf_operand_sizes s;
    zf_cx_sizes(e->code, in, &s);
    const zf_ref refs[3] = {in->a, in->b, in->c};
    const uint32_t sizes[3] = {s.a, s.b, s.c};
    for (int k = 0; k < 3; k++)
        if (refs[k] != ZF_REF_NONE && sizes[k] > 0)
            zf_cx_move(e, zf_cx_gep(e, e->scratch, ZF_CX_SCRATCH_SLOT * (k + 1u)), zf_cx_reg(e, refs[k], sizes[k]),
                       sizes[k]);
    LLVMTypeRef params[3] = {e->p8, e->p8, e->p8};
    LLVMValueRef inst = LLVMConstIntToPtr(zf_cx_i64c(e, (uint64_t)(uintptr_t)in), e->p8);
    LLVMValueRef args[3] = {e->rt, inst, e->scratch};
    zf_cx_call(e, (void (*)(void))zf_cx_pure, LLVMVoidTypeInContext(e->c), params, 3, args);
    if (in->dst != ZF_REF_NONE && s.dst > 0)
        zf_cx_move(e, zf_cx_dst(e, in->dst), e->scratch, s.dst);
}

/* Typed operations compiled inline; false when the operation runs the interpreter's code. */
static bool zf_cx_typed(zf_cx_em *e, const zf_dinst *in) {
    LLVMTypeRef t = zf_cx_vtype(e, in->type, in->comps);
    LLVMBuilderRef B = e->b;
    uint32_t op = in->op;
    LLVMValueRef r = NULL;
    if (op == ZF_X_CONV)
        r = zf_cx_conv(e, in);
    else if (t == NULL)
        return false;
    else if (op == ZF_X_EXT && zf_cx_ext_inline(in))
        r = zf_cx_ext(e, in, t);
    else if (zf_etype_is_int(in->type) || in->type == ZF_T_BOOL) {
        if ((op >= ZF_X_IADD && op <= ZF_X_SREM) || (op >= ZF_X_SHL && op <= ZF_X_XOR))
            r = zf_cx_int_binary(e, op, t, zf_cx_value(e, t, in->a), zf_cx_value(e, t, in->b));
        else if (op == ZF_X_INOT)
            r = LLVMBuildNot(B, zf_cx_value(e, t, in->a), "");
        else if (op == ZF_X_INEG)
            r = LLVMBuildNeg(B, zf_cx_value(e, t, in->a), "");
        else if (op >= ZF_X_IEQ && op <= ZF_X_SLE) {
            LLVMValueRef cmp =
                LLVMBuildICmp(B, zf_cx_ipred[op - ZF_X_IEQ], zf_cx_value(e, t, in->a), zf_cx_value(e, t, in->b), "");
            r = LLVMBuildZExt(B, cmp, zf_cx_vtype(e, ZF_T_BOOL, in->comps), "");
        }
    } else if (zf_etype_is_float(in->type)) {
        if (op >= ZF_X_FADD && op <= ZF_X_FDIV) {
            LLVMValueRef a = zf_cx_value(e, t, in->a), b = zf_cx_value(e, t, in->b);
            r = op == ZF_X_FADD   ? LLVMBuildFAdd(B, a, b, "")
                : op == ZF_X_FSUB ? LLVMBuildFSub(B, a, b, "")
                : op == ZF_X_FMUL ? LLVMBuildFMul(B, a, b, "")
                                  : LLVMBuildFDiv(B, a, b, "");
        } else if (op == ZF_X_FNEG) {
            r = LLVMBuildFNeg(B, zf_cx_value(e, t, in->a), "");
        } else if (op >= ZF_X_FOEQ && op <= ZF_X_FUNORD) {
            LLVMValueRef cmp =
                LLVMBuildFCmp(B, zf_cx_fpred[op - ZF_X_FOEQ], zf_cx_value(e, t, in->a), zf_cx_value(e, t, in->b), "");
            r = LLVMBuildZExt(B, cmp, zf_cx_vtype(e, ZF_T_BOOL, in->comps), "");
        }
    }
    if (r == NULL)
        return false;
    zf_cx_store(e, r, zf_cx_dst(e, in->dst));
    return true;
}

static void zf_cx_select(zf_cx_em *e, const zf_dinst *in) {
    uint32_t size = in->size;
    if (size != 1 && size != 2 && size != 4 && size != 8 && size != 16) {
        zf_cx_pure_call(e, in);
        return;
    }
    LLVMTypeRef t = LLVMIntTypeInContext(e->c, 8 * size);
    LLVMValueRef cond =
        LLVMBuildICmp(e->b, LLVMIntNE, zf_cx_load(e, e->i8, zf_cx_reg(e, in->a, 1)), LLVMConstInt(e->i8, 0, false), "");
    LLVMValueRef v = LLVMBuildSelect(e->b, cond, zf_cx_load(e, t, zf_cx_reg(e, in->b, size)),
                                     zf_cx_load(e, t, zf_cx_reg(e, in->c, size)), "");
    zf_cx_store(e, v, zf_cx_dst(e, in->dst));
}

static void zf_cx_gather(zf_cx_em *e, const zf_dinst *in) {
    const uint32_t *aux = e->code->aux + in->aux;
    LLVMValueRef d = zf_cx_dst(e, in->dst);
    LLVMBuildMemSet(e->b, d, LLVMConstInt(e->i8, 0, false), zf_cx_i64c(e, in->size), 1);
    for (uint32_t p = 0; p < aux[0]; p++) {
        const uint32_t *part = aux + 1 + 3 * p;
        zf_cx_move(e, zf_cx_gep(e, d, part[2]), zf_cx_reg(e, part[0], part[1]), part[1]);
    }
}

/* ------------------------------------------------------------------------------------------------------------------
 * Control flow */

static void zf_cx_copies(zf_cx_em *e, uint32_t first, uint32_t count) {
    for (uint32_t i = 0; i < count; i++) {
        const zf_dcopy *c = &e->code->copies[first + i];
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
    LLVMValueRef v = zf_cx_load(e, t, zf_cx_reg(e, in->a, bytes));
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
static bool zf_cx_liveness(zf_cx_em *e) {
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

/* Copies the bytes of the current point between the frame and the function's place in the record, in runs. */
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
    for (uint32_t o = 0; o < e->fn->frame_bytes;) {
        if (!(e->point[o >> 6] >> (o & 63) & 1)) {
            o++;
            continue;
        }
        uint32_t end = o;
        while (end < e->fn->frame_bytes && (e->point[end >> 6] >> (end & 63) & 1))
            end++;
        LLVMValueRef in_frame = zf_cx_gep(e, e->frame, o), in_record = zf_cx_gep(e, record, o);
        if (save)
            LLVMBuildMemCpy(e->b, in_record, 1, in_frame, 1, zf_cx_i64c(e, end - o));
        else
            LLVMBuildMemCpy(e->b, in_frame, 1, in_record, 1, zf_cx_i64c(e, end - o));
        o = end;
    }
}

/* Leaves the function with the work-item waiting: its live registers and resume point k into the record. */
static void zf_cx_suspend(zf_cx_em *e, uint32_t k) {
    uint32_t f = (uint32_t)(e->fn - e->code->funcs);
    zf_cx_spill(e, true);
    zf_cx_store(e, LLVMConstInt(e->i32, k, false), zf_cx_gep(e, e->record, e->resume_at[f]));
    zf_cx_set_item(e, ZF_CX_ITEM_STATE, zf_cx_i64c(e, 2));
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

/* A work-group barrier: the work-item waits (the wave function runs the group's other work-items up to it), then
 * resumes right after it. The block's counts were taken at its entry, as the interpreter takes them. */
static void zf_cx_barrier(zf_cx_em *e) {
    uint32_t k;
    LLVMBasicBlockRef resume = zf_cx_resume_point(e, &k);
    zf_cx_suspend(e, k);
    LLVMPositionBuilderAtEnd(e->b, resume);
    zf_cx_set_item(e, ZF_CX_ITEM_STATE, zf_cx_i64c(e, 0));
}

static void zf_cx_call_inst(zf_cx_em *e, const zf_dinst *in) {
    const uint32_t *aux = e->code->aux + in->aux;
    const zf_dfunc *callee = &e->code->funcs[aux[0]];
    const zf_dparam *params = e->code->params + callee->param_first;
    uint64_t total = 0;
    for (uint32_t i = 0; i < callee->param_count; i++)
        total += params[i].size;
    LLVMValueRef args = zf_cx_alloca(e, total), ret = zf_cx_alloca(e, callee->ret_size);
    bool resumable = e->barriers && e->resumable[aux[0]];
    uint32_t k = 0;
    if (resumable) { /* resuming here calls the callee again, which resumes where it waits */
        LLVMBasicBlockRef site = LLVMAppendBasicBlockInContext(e->c, e->f, "call");
        LLVMBasicBlockRef resume = zf_cx_resume_point(e, &k);
        LLVMBuildBr(e->b, site);
        LLVMPositionBuilderAtEnd(e->b, resume);
        LLVMBuildBr(e->b, site);
        LLVMPositionBuilderAtEnd(e->b, site);
    }
    uint64_t at = 0;
    for (uint32_t i = 0; i < aux[1] && i < callee->param_count; i++) {
        uint32_t bytes = aux[2 + 2 * i + 1] < params[i].size ? aux[2 + 2 * i + 1] : params[i].size;
        zf_cx_move(e, zf_cx_gep(e, args, at), zf_cx_reg(e, aux[2 + 2 * i], bytes), bytes);
        at += params[i].size;
    }
    LLVMValueRef call_args[6] = {e->rt, e->env, e->counts, e->item, args, ret};
    LLVMValueRef faulted = LLVMBuildCall2(e->b, e->fn_type, e->fns[aux[0]], call_args, 6, "");
    LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(e->c, e->f, "returned");
    LLVMBuildCondBr(e->b, faulted, e->fault_bb, next);
    LLVMPositionBuilderAtEnd(e->b, next);
    if (resumable) {
        LLVMBasicBlockRef waits = LLVMAppendBasicBlockInContext(e->c, e->f, "waits");
        LLVMBasicBlockRef goes = LLVMAppendBasicBlockInContext(e->c, e->f, "returned");
        LLVMValueRef state = zf_cx_item(e, ZF_CX_ITEM_STATE);
        LLVMBuildCondBr(e->b, LLVMBuildICmp(e->b, LLVMIntEQ, state, zf_cx_i64c(e, 2), ""), waits, goes);
        LLVMPositionBuilderAtEnd(e->b, waits);
        zf_cx_suspend(e, k);
        LLVMPositionBuilderAtEnd(e->b, goes);
    }
    if (in->dst != ZF_REF_NONE && in->size > 0)
        zf_cx_move(e, zf_cx_dst(e, in->dst), ret, in->size < callee->ret_size ? in->size : callee->ret_size);
}

static void zf_cx_unreachable_inst(zf_cx_em *e) {
    LLVMTypeRef params[2] = {e->p8, e->i64};
    LLVMValueRef args[2] = {e->rt, e->lane};
    zf_cx_call(e, (void (*)(void))zf_cx_unreachable, LLVMVoidTypeInContext(e->c), params, 2, args);
    LLVMBuildBr(e->b, e->fault_bb);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Private variables: slots of the interpreter's (docs/spirv-execution.md, "Memory"), one per execution of the
 * variable by the work-item, in memory of the function's frame; the function's slots go when it returns. */

static void zf_cx_return(zf_cx_em *e, bool faulted) {
    if (e->mark != NULL) {
        LLVMTypeRef params[2] = {e->p8, e->i64};
        LLVMValueRef args[2] = {e->rt, e->mark};
        zf_cx_call(e, (void (*)(void))zf_cx_slots_pop, LLVMVoidTypeInContext(e->c), params, 2, args);
    }
    LLVMBuildRet(e->b, LLVMConstInt(e->i1, faulted, false));
}

static void zf_cx_var(zf_cx_em *e, const zf_dinst *in) {
    LLVMTypeRef params[4] = {e->p8, e->i64, e->p8, e->p8};
    LLVMValueRef args[4] = {e->rt, e->lane, LLVMConstIntToPtr(zf_cx_i64c(e, (uint64_t)(uintptr_t)in), e->p8), e->priv};
    LLVMValueRef address = zf_cx_call(e, (void (*)(void))zf_cx_var_slot, e->i64, params, 4, args);
    LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(e->c, e->f, "var");
    LLVMBuildCondBr(e->b, LLVMBuildICmp(e->b, LLVMIntEQ, address, zf_cx_i64c(e, 0), ""), e->fault_bb, next);
    LLVMPositionBuilderAtEnd(e->b, next);
    zf_cx_store(e, address, zf_cx_dst(e, in->dst));
}

static bool zf_cx_has_vars(const zf_dprog *code, const zf_dfunc *fn) {
    for (uint32_t b = 0; b < fn->block_count; b++) {
        const zf_dblock *blk = &code->blocks[fn->block_first + b];
        for (uint32_t i = 0; i < blk->count; i++)
            if (code->insts[blk->first + i].op == ZF_X_VAR)
                return true;
    }
    return false;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Instructions and blocks */

static void zf_cx_inst(zf_cx_em *e, const zf_dinst *in) {
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
        LLVMValueRef cond = LLVMBuildICmp(e->b, LLVMIntNE, zf_cx_load(e, e->i8, zf_cx_reg(e, in->a, 1)),
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
    default:
        if (!zf_cx_typed(e, in))
            zf_cx_pure_call(e, in);
        return;
    }
}

/* Block entry: the hang detector at loop heads, the block's counter, the phi commits. */
static void zf_cx_block_entry(zf_cx_em *e, uint32_t b, bool loop_head) {
    LLVMBuilderRef B = e->b;
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
        LLVMValueRef stop = zf_cx_call(e, (void (*)(void))zf_cx_poll, e->i32, params, 2, args);
        LLVMBuildStore(B, zf_cx_load(e, e->i64, zf_cx_gep(e, e->rt, offsetof(zf_cx_rt, poll_period))), budget);
        LLVMBuildCondBr(B, LLVMBuildICmp(B, LLVMIntNE, stop, LLVMConstInt(e->i32, 0, false), ""), e->fault_bb, go);
        LLVMPositionBuilderAtEnd(B, go);
    }
    LLVMValueRef index = zf_cx_i64c(e, e->cur);
    LLVMValueRef counter = LLVMBuildGEP2(B, e->i64, e->counts, &index, 1, "");
    LLVMBuildStore(B, LLVMBuildAdd(B, LLVMBuildLoad2(B, e->i64, counter, ""), zf_cx_i64c(e, 1), ""), counter);
    const zf_dblock *blk = &e->code->blocks[e->fn->block_first + b];
    zf_cx_copies(e, blk->commit_first, blk->commit_count);
}

/* Whether an edge of the function goes back to block b (or to itself): b heads a loop. */
static bool zf_cx_edge_back(const zf_cx_em *e, uint32_t from, uint32_t edge) {
    return e->code->edges[edge].target <= from;
}

static bool *zf_cx_loop_heads(zf_cx_em *e) {
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
    e->env = LLVMGetParam(e->f, 1);
    e->counts = LLVMGetParam(e->f, 2);
    e->item = LLVMGetParam(e->f, 3);
    e->args = LLVMGetParam(e->f, 4);
    e->ret = LLVMGetParam(e->f, 5);
    LLVMBasicBlockRef allocas = LLVMAppendBasicBlockInContext(e->c, e->f, "allocas");
    LLVMPositionBuilderAtEnd(e->eb, allocas);
    LLVMBasicBlockRef start = LLVMAppendBasicBlockInContext(e->c, e->f, "start");
    LLVMPositionBuilderAtEnd(e->b, start);
    e->frame = zf_cx_alloca(e, fn->frame_bytes);
    e->scratch = zf_cx_alloca(e, 4 * ZF_CX_SCRATCH_SLOT);
    e->lane = zf_cx_item(e, ZF_CX_ITEM_LANE);
    e->priv = e->mark = NULL;
    if (zf_cx_has_vars(e->code, fn)) {
        e->priv = zf_cx_alloca(e, fn->private_bytes);
        LLVMTypeRef p8 = e->p8;
        e->mark = zf_cx_call(e, (void (*)(void))zf_cx_slots_mark, e->i64, &p8, 1, &e->rt);
    }
    /* Every kernel argument's window, copied after the state in env (the optimizer drops those no access uses). */
    LLVMValueRef wins = zf_cx_gep(e, e->env, sizeof(zf_cx_rt));
    for (uint32_t k = 0; k < e->num_kinds; k++) {
        e->win_lo[k] = zf_cx_load(e, e->i64, zf_cx_gep(e, wins, sizeof(zf_cx_window) * k));
        e->win_span[k] = zf_cx_load(e, e->i64, zf_cx_gep(e, wins, sizeof(zf_cx_window) * k + 8));
    }
    e->win_lo[e->num_kinds] = LLVMBuildPtrToInt(e->b, zf_cx_rt_field(e, offsetof(zf_cx_rt, local), e->p8), e->i64, "");
    e->win_span[e->num_kinds] = zf_cx_rt_field(e, offsetof(zf_cx_rt, local_span), e->i64);
    e->dispatch = NULL;
    if (e->barriers && e->resumable[fi]) { /* a work-item resuming goes to its resume point */
        e->resumes = 0;
        e->record = LLVMBuildIntToPtr(e->b, zf_cx_item(e, ZF_CX_ITEM_SPILL), e->p8, "");
        LLVMValueRef resuming = LLVMBuildICmp(e->b, LLVMIntEQ, zf_cx_item(e, ZF_CX_ITEM_STATE), zf_cx_i64c(e, 1), "");
        LLVMValueRef point = zf_cx_load(e, e->i32, zf_cx_gep(e, e->record, e->resume_at[fi]));
        point = LLVMBuildSelect(e->b, resuming, point, LLVMConstInt(e->i32, 0, false), "");
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

static void zf_cx_function(zf_cx_em *e, uint32_t fi) {
    LLVMBasicBlockRef start = zf_cx_function_start(e, fi);
    const zf_dfunc *fn = e->fn;
    e->bbs = calloc(fn->block_count ? fn->block_count : 1, sizeof *e->bbs);
    bool *heads = zf_cx_loop_heads(e);
    if (e->bbs == NULL || heads == NULL) {
        zf_cx_fail(e, "out of host memory");
        free(e->bbs);
        free(heads);
        return;
    }
    zf_cx_provenance(e, fi);
    e->live_in = NULL;
    if (e->barriers && e->resumable[fi] && !zf_cx_liveness(e)) {
        free(e->live_in);
        e->live_in = NULL;
    }
    for (uint32_t b = 0; b < fn->block_count; b++)
        e->bbs[b] = LLVMAppendBasicBlockInContext(e->c, e->f, "block");
    e->fault_bb = LLVMAppendBasicBlockInContext(e->c, e->f, "fault");
    LLVMBuildBr(e->b, e->bbs[0]);
    for (uint32_t b = 0; b < fn->block_count && !e->failed; b++) {
        e->cur = e->block_base[fi] + b;
        LLVMPositionBuilderAtEnd(e->b, e->bbs[b]);
        zf_cx_block_entry(e, b, heads[b]);
        const zf_dblock *blk = &e->code->blocks[fn->block_first + b];
        e->blk = b;
        for (uint32_t i = 0; i < blk->count && !e->failed; i++) {
            e->idx = i;
            zf_cx_inst(e, &e->code->insts[blk->first + i]);
        }
    }
    LLVMPositionBuilderAtEnd(e->b, e->fault_bb);
    zf_cx_return(e, true);
    LLVMBuildBr(e->eb, start);
    free(e->bbs);
    free(heads);
    free(e->live_in);
    e->live_in = NULL;
}

/* ------------------------------------------------------------------------------------------------------------------
 * The wave function */

static zf_cx_loop zf_cx_loop_begin(zf_cx_em *e, LLVMValueRef n) {
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

static void zf_cx_loop_end(zf_cx_em *e, zf_cx_loop *l) {
    LLVMValueRef next = LLVMBuildAdd(e->b, l->i, zf_cx_i64c(e, 1), "");
    LLVMBasicBlockRef here = LLVMGetInsertBlock(e->b);
    LLVMBuildBr(e->b, l->head);
    LLVMAddIncoming(l->i, &next, &here, 1);
    LLVMPositionBuilderAtEnd(e->b, l->exit);
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
            LLVMValueRef value = zf_cx_load(e, e->p8, zf_cx_gep(e, argv, 8ull * k));
            LLVMBuildMemCpy(e->b, dst, 1, value, 1, zf_cx_i64c(e, p->size));
            continue;
        }
        LLVMValueRef base = LLVMBuildPtrToInt(e->b, zf_cx_rt_field(e, offsetof(zf_cx_rt, local), e->p8), e->i64, "");
        LLVMValueRef offs = zf_cx_rt_field(e, offsetof(zf_cx_rt, local_at), e->p8);
        LLVMValueRef v = LLVMBuildAdd(
            e->b, base,
            LLVMBuildAdd(e->b, LLVMBuildMul(e->b, slot, zf_cx_rt_u64(e, offsetof(zf_cx_rt, local_stride)), ""),
                         zf_cx_load(e, e->i64, zf_cx_gep(e, offs, 8ull * k)), ""),
            "");
        LLVMValueRef tmp = zf_cx_alloca(e, 8);
        zf_cx_store(e, v, tmp);
        zf_cx_move(e, dst, tmp, p->size < 8 ? p->size : 8);
    }
}

/* Kernels with barriers run a group in rounds: each round calls every work-item that has not finished, from its start
 * or its resume point, until it finishes or waits at a barrier; rounds repeat while some work-item waits. */
typedef struct zf_cx_rounds {
    LLVMBasicBlockRef head;
    LLVMValueRef round, waiting; /* the round's number; a counter (in memory) of the work-items waiting */
} zf_cx_rounds;

static zf_cx_rounds zf_cx_rounds_begin(zf_cx_em *e) {
    zf_cx_rounds r;
    r.waiting = LLVMBuildBitCast(e->b, zf_cx_alloca(e, 8), e->p64, "");
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(e->b);
    r.head = LLVMAppendBasicBlockInContext(e->c, e->f, "round");
    LLVMBuildBr(e->b, r.head);
    LLVMPositionBuilderAtEnd(e->b, r.head);
    r.round = LLVMBuildPhi(e->b, e->i64, "");
    LLVMValueRef zero = zf_cx_i64c(e, 0);
    LLVMAddIncoming(r.round, &zero, &pre, 1);
    LLVMBuildStore(e->b, zero, r.waiting);
    return r;
}

static void zf_cx_rounds_end(zf_cx_em *e, zf_cx_rounds *r) {
    LLVMValueRef next = LLVMBuildAdd(e->b, r->round, zf_cx_i64c(e, 1), "");
    LLVMBasicBlockRef here = LLVMGetInsertBlock(e->b), done = LLVMAppendBasicBlockInContext(e->c, e->f, "rounds");
    LLVMValueRef waiting = LLVMBuildLoad2(e->b, e->i64, r->waiting, "");
    LLVMBuildCondBr(e->b, LLVMBuildICmp(e->b, LLVMIntNE, waiting, zf_cx_i64c(e, 0), ""), r->head, done);
    LLVMAddIncoming(r->round, &next, &here, 1);
    LLVMPositionBuilderAtEnd(e->b, done);
}

/* One work-item's turn in a round. */
static void zf_cx_wave_resumable(zf_cx_em *e, LLVMValueRef lane, const zf_cx_rounds *r) {
    LLVMBuilderRef B = e->b;
    LLVMValueRef states = zf_cx_rt_field(e, offsetof(zf_cx_rt, states), e->p64);
    LLVMValueRef at = LLVMBuildGEP2(B, e->i64, states, &lane, 1, "");
    LLVMValueRef first = LLVMBuildICmp(B, LLVMIntEQ, r->round, zf_cx_i64c(e, 0), "");
    LLVMValueRef state = LLVMBuildSelect(B, first, zf_cx_i64c(e, 0), LLVMBuildLoad2(B, e->i64, at, ""), "");
    LLVMBasicBlockRef run = LLVMAppendBasicBlockInContext(e->c, e->f, "turn");
    LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(e->c, e->f, "next");
    LLVMBuildCondBr(B, LLVMBuildICmp(B, LLVMIntEQ, state, zf_cx_i64c(e, ZF_CX_DONE), ""), next, run);
    LLVMPositionBuilderAtEnd(B, run);
    LLVMValueRef spill = LLVMBuildPtrToInt(B, zf_cx_rt_field(e, offsetof(zf_cx_rt, spill), e->p8), e->i64, "");
    zf_cx_set_item(e, ZF_CX_ITEM_STATE, state);
    zf_cx_set_item(e, ZF_CX_ITEM_SPILL,
                   LLVMBuildAdd(B, spill, LLVMBuildMul(B, lane, zf_cx_i64c(e, e->spill_bytes), ""), ""));
    LLVMValueRef call_args[6] = {e->rt, e->env, e->counts, e->item, e->args, e->ret};
    LLVMValueRef faulted = LLVMBuildCall2(B, e->fn_type, e->fns[e->kernel->function], call_args, 6, "");
    LLVMValueRef waits =
        LLVMBuildAnd(B, LLVMBuildNot(B, faulted, ""),
                     LLVMBuildICmp(B, LLVMIntEQ, zf_cx_item(e, ZF_CX_ITEM_STATE), zf_cx_i64c(e, 2), ""), "");
    LLVMBuildStore(B, LLVMBuildSelect(B, waits, zf_cx_i64c(e, 1), zf_cx_i64c(e, ZF_CX_DONE), ""), at);
    LLVMValueRef count = LLVMBuildLoad2(B, e->i64, r->waiting, "");
    LLVMBuildStore(B, LLVMBuildAdd(B, count, LLVMBuildZExt(B, waits, e->i64, ""), ""), r->waiting);
    LLVMBuildBr(B, next);
    LLVMPositionBuilderAtEnd(B, next);
}

static void zf_cx_wave(zf_cx_em *e) {
    const zf_dfunc *entry = &e->code->funcs[e->kernel->function];
    LLVMTypeRef wave_type = LLVMFunctionType(LLVMVoidTypeInContext(e->c), &e->p8, 1, false);
    e->f = LLVMAddFunction(e->m, "zf_cx_wave", wave_type);
    e->rt = LLVMGetParam(e->f, 0);
    LLVMAddAttributeAtIndex(e->f, 1, LLVMCreateEnumAttribute(e->c, LLVMGetEnumAttributeKindForName("noalias", 7), 0));
    LLVMBasicBlockRef allocas = LLVMAppendBasicBlockInContext(e->c, e->f, "allocas");
    LLVMPositionBuilderAtEnd(e->eb, allocas);
    LLVMBasicBlockRef start = LLVMAppendBasicBlockInContext(e->c, e->f, "start");
    LLVMPositionBuilderAtEnd(e->b, start);
    e->env = zf_cx_alloca(e, sizeof(zf_cx_rt) + sizeof(zf_cx_window) * e->num_kinds);
    LLVMBuildMemCpy(e->b, e->env, 8, e->rt, 8, zf_cx_i64c(e, sizeof(zf_cx_rt)));
    if (e->num_kinds > 0) {
        LLVMValueRef wins = zf_cx_load(e, e->p8, zf_cx_gep(e, e->rt, offsetof(zf_cx_rt, win)));
        LLVMBuildMemCpy(e->b, zf_cx_gep(e, e->env, sizeof(zf_cx_rt)), 8, wins, 8,
                        zf_cx_i64c(e, sizeof(zf_cx_window) * e->num_kinds));
    }
    uint64_t arg_bytes = 0;
    for (uint32_t k = 0; k < entry->param_count; k++)
        arg_bytes += e->code->params[entry->param_first + k].size;
    e->counts = LLVMBuildBitCast(e->b, zf_cx_alloca(e, 8ull * (e->num_blocks ? e->num_blocks : 1)),
                                 LLVMPointerType(e->i64, 0), "");
    e->item = LLVMBuildBitCast(e->b, zf_cx_alloca(e, 8ull * (ZF_CX_ITEM_COUNT + 1)), LLVMPointerType(e->i64, 0), "");
    e->args = zf_cx_alloca(e, arg_bytes);
    e->ret = zf_cx_alloca(e, entry->ret_size);
    LLVMBuildMemSet(e->b, LLVMBuildBitCast(e->b, e->counts, e->p8, ""), LLVMConstInt(e->i8, 0, false),
                    zf_cx_i64c(e, 8ull * e->num_blocks), 8);
    zf_cx_set_item(e, ZF_CX_ITEM_COUNT, zf_cx_rt_u64(e, offsetof(zf_cx_rt, poll_period)));
    zf_cx_wave_args(e, entry, ZF_XARG_VALUE, NULL, NULL);
    LLVMValueRef gs[3], groups[3];
    for (int d = 0; d < 3; d++) {
        gs[d] = zf_cx_rt_u64(e, offsetof(zf_cx_rt, group_size) + 8 * (size_t)d);
        groups[d] = zf_cx_rt_u64(e, offsetof(zf_cx_rt, groups) + 8 * (size_t)d);
    }
    LLVMValueRef items = zf_cx_rt_u64(e, offsetof(zf_cx_rt, group_items));
    zf_cx_loop slot = zf_cx_loop_begin(e, zf_cx_rt_u64(e, offsetof(zf_cx_rt, wave_groups)));
    LLVMValueRef linear = LLVMBuildAdd(e->b, zf_cx_rt_u64(e, offsetof(zf_cx_rt, first_group)), slot.i, "");
    LLVMValueRef rest = LLVMBuildUDiv(e->b, linear, groups[0], "");
    zf_cx_set_item(e, ZF_CX_ITEM_SLOT, slot.i);
    zf_cx_set_item(e, ZF_CX_ITEM_GRP, LLVMBuildURem(e->b, linear, groups[0], ""));
    zf_cx_set_item(e, ZF_CX_ITEM_GRP + 1, LLVMBuildURem(e->b, rest, groups[1], ""));
    zf_cx_set_item(e, ZF_CX_ITEM_GRP + 2, LLVMBuildUDiv(e->b, rest, groups[1], ""));
    zf_cx_wave_args(e, entry, ZF_XARG_LOCAL, slot.i, NULL);
    LLVMValueRef base = LLVMBuildMul(e->b, slot.i, items, "");
    LLVMValueRef call_args[6] = {e->rt, e->env, e->counts, e->item, e->args, e->ret};
    zf_cx_rounds rounds = {0};
    if (e->barriers)
        rounds = zf_cx_rounds_begin(e);
    zf_cx_loop z = zf_cx_loop_begin(e, gs[2]);
    zf_cx_loop y = zf_cx_loop_begin(e, gs[1]);
    LLVMValueRef row = LLVMBuildMul(e->b, gs[0], LLVMBuildAdd(e->b, y.i, LLVMBuildMul(e->b, gs[1], z.i, ""), ""), "");
    zf_cx_loop x = zf_cx_loop_begin(e, gs[0]);
    LLVMValueRef lane = LLVMBuildAdd(e->b, base, LLVMBuildAdd(e->b, row, x.i, ""), "");
    zf_cx_set_item(e, ZF_CX_ITEM_LANE, lane);
    zf_cx_wave_args(e, entry, ZF_XARG_BYVAL, NULL, lane);
    zf_cx_set_item(e, ZF_CX_ITEM_LID, x.i);
    zf_cx_set_item(e, ZF_CX_ITEM_LID + 1, y.i);
    zf_cx_set_item(e, ZF_CX_ITEM_LID + 2, z.i);
    if (e->barriers)
        zf_cx_wave_resumable(e, lane, &rounds);
    else
        LLVMBuildCall2(e->b, e->fn_type, e->fns[e->kernel->function], call_args, 6, "");
    zf_cx_loop_end(e, &x);
    zf_cx_loop_end(e, &y);
    zf_cx_loop_end(e, &z);
    if (e->barriers)
        zf_cx_rounds_end(e, &rounds);
    zf_cx_loop_end(e, &slot);
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

typedef struct zf_cx_checking {
    zf_cx_em *e;
    bool vars; /* a function reached declares private variables */
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
    if (why != NULL)
        zf_cx_fail(e, "%s (SPIR-V word %u)", why, code->inst_words[at]);
    e->barriers |= in->op == ZF_X_BARRIER;
    c->vars |= in->op == ZF_X_VAR;
    return !e->failed;
}

/* Marks the functions the kernel reaches and checks their instructions. */
static bool zf_cx_reach(zf_cx_em *e, uint8_t *seen) {
    zf_cx_checking c = {e, false};
    if (!zf_cx_walk(e->code, e->kernel->function, seen, zf_cx_check_visit, &c)) {
        zf_cx_fail(e, "out of host memory");
        return false;
    }
    if (e->barriers && c.vars) /* private slots live in call order, which waiting at barriers breaks */
        zf_cx_fail(e, "private variables in a kernel with barriers");
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

static bool zf_cx_barrier_visit(void *state, const zf_dprog *code, uint32_t func, uint32_t at) {
    (void)func;
    bool *found = state;
    *found = at != UINT32_MAX && code->insts[at].op == ZF_X_BARRIER;
    return !*found;
}

bool zf_cx_has_barriers(const zf_dprog *code, uint32_t kernel) {
    uint8_t *seen = calloc(code->num_funcs ? code->num_funcs : 1, 1);
    bool found = false;
    if (seen != NULL) /* out of memory: found stays false, as it is before the walk finds a barrier */
        zf_cx_walk(code, code->kernels[kernel].function, seen, zf_cx_barrier_visit, &found);
    free(seen);
    return found;
}

/* Which functions are resumable, and their places in the record (order: callees before callers). */
static bool zf_cx_resumables(zf_cx_em *e, const uint32_t *order, uint32_t n) {
    const zf_dprog *code = e->code;
    e->resumable = calloc(code->num_funcs, 1);
    e->spill_off = calloc(code->num_funcs, sizeof *e->spill_off);
    e->resume_at = calloc(code->num_funcs, sizeof *e->resume_at);
    if (e->resumable == NULL || e->spill_off == NULL || e->resume_at == NULL)
        return false;
    uint64_t bytes = 0;
    for (uint32_t j = 0; j < n; j++) {
        const zf_dfunc *fn = &code->funcs[order[j]];
        for (uint32_t b = 0; b < fn->block_count; b++) {
            const zf_dblock *blk = &code->blocks[fn->block_first + b];
            for (uint32_t i = 0; i < blk->count; i++) {
                const zf_dinst *in = &code->insts[blk->first + i];
                if (in->op == ZF_X_BARRIER || (in->op == ZF_X_CALL && e->resumable[code->aux[in->aux]]))
                    e->resumable[order[j]] = 1;
            }
        }
        if (e->resumable[order[j]]) {
            e->spill_off[order[j]] = (uint32_t)bytes;
            bytes += (fn->frame_bytes + 7u) & ~7u;
        }
    }
    for (uint32_t j = 0; j < n; j++) {
        if (e->resumable[order[j]]) {
            e->resume_at[order[j]] = (uint32_t)bytes;
            bytes += 4;
        }
    }
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
    LLVMTypeRef params[6] = {e->p8, e->p8, e->p64, e->p64, e->p8, e->p8};
    e->fn_type = LLVMFunctionType(e->i1, params, 6, false);
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
        e->fns[f] = LLVMAddFunction(e->m, name, e->fn_type);
        LLVMSetLinkage(e->fns[f], LLVMInternalLinkage);
        e->block_base[f] = e->num_blocks;
        for (uint32_t b = 0; b < fn->block_count; b++)
            e->blocks[e->num_blocks++] = (zf_cx_block){fn->block_first + b, 0, 0, 0, 0};
        max_frame = fn->frame_bytes > max_frame ? fn->frame_bytes : max_frame;
        max_params = fn->param_count > max_params ? fn->param_count : max_params;
    }
    e->prov = malloc((max_frame ? max_frame : 1) * sizeof *e->prov);
    e->win_lo = calloc(e->num_kinds + 1, sizeof *e->win_lo);
    e->win_span = calloc(e->num_kinds + 1, sizeof *e->win_span);
    e->param_prov = calloc(code->num_funcs, sizeof *e->param_prov);
    if (e->prov == NULL || e->win_lo == NULL || e->win_span == NULL || e->param_prov == NULL)
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

bool zf_cx_emit(LLVMContextRef llvm, const zf_dprog *code, uint32_t kernel, const zf_xarg_kind *kinds,
                uint32_t num_kinds, zf_cx_unit *out, char *why, size_t why_size) {
    zf_cx_em e = {.c = llvm,
                  .code = code,
                  .kernel = &code->kernels[kernel],
                  .kinds = kinds,
                  .num_kinds = num_kinds,
                  .why = why,
                  .why_size = why_size};
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
        else if (e.barriers && !zf_cx_resumables(&e, order, n))
            zf_cx_fail(&e, "out of host memory");
        free(e.heights);
        for (uint32_t k = n; k > 0 && !e.failed; k--)
            zf_cx_function(&e, order[k - 1]);
        free(order);
        free(done);
        if (!e.failed)
            zf_cx_wave(&e);
        free(e.resumable);
        free(e.spill_off);
        free(e.resume_at);
        LLVMDisposeBuilder(e.b);
        LLVMDisposeBuilder(e.eb);
    }
    free(seen);
    free(e.fns);
    free(e.block_base);
    free(e.prov);
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
    return true;
}
