/* The arithmetic of the compiled tier (docs/spirv-execution.md, "Compiled tier"): the IR helpers every part of the
 * emitter builds with (constants, byte-addressed loads and stores into the frame, calls of run-time helpers and LLVM
 * intrinsics), the LLVM types of the form's values and the registers' places in the frame, built-in values, and the
 * instructions compiled inline: integer and float arithmetic and comparisons, conversions, selects, composite
 * gathers and the OpenCL.std math calls that map onto LLVM intrinsics. What is not hot enough to deserve inline code
 * runs the interpreter's handler on one work-item (zf_cx_pure_call). */
#include "cx_internal.h"
#include "spirv_builtins.h"
#include "spirv_opencl_std.h"

#include <stdio.h>
#include <stdlib.h>

/* ------------------------------------------------------------------------------------------------------------------
 * IR helpers */

LLVMValueRef zf_cx_i64c(zf_cx_em *e, uint64_t v) {
    return LLVMConstInt(e->i64, v, false);
}

LLVMValueRef zf_cx_gep(zf_cx_em *e, LLVMValueRef p8, uint64_t offset) {
    if (offset == 0)
        return p8;
    LLVMValueRef index = zf_cx_i64c(e, offset);
    return LLVMBuildGEP2(e->b, e->i8, p8, &index, 1, "");
}

LLVMValueRef zf_cx_load_ir(zf_cx_em *e, LLVMTypeRef t, LLVMValueRef p8) {
    LLVMValueRef p = LLVMBuildBitCast(e->b, p8, LLVMPointerType(t, 0), "");
    LLVMValueRef v = LLVMBuildLoad2(e->b, t, p, "");
    LLVMSetAlignment(v, 1);
    return v;
}

void zf_cx_store(zf_cx_em *e, LLVMValueRef v, LLVMValueRef p8) {
    LLVMValueRef p = LLVMBuildBitCast(e->b, p8, LLVMPointerType(LLVMTypeOf(v), 0), "");
    LLVMSetAlignment(LLVMBuildStore(e->b, v, p), 1);
}

void zf_cx_move(zf_cx_em *e, LLVMValueRef dst, LLVMValueRef src, uint64_t size) {
    if (size > 0)
        LLVMBuildMemMove(e->b, dst, 1, src, 1, zf_cx_i64c(e, size));
}

LLVMValueRef zf_cx_alloca(zf_cx_em *e, uint64_t bytes) {
    LLVMValueRef a = LLVMBuildAlloca(e->eb, LLVMArrayType(e->i8, (unsigned)(bytes ? bytes : 1)), "");
    LLVMSetAlignment(a, 16);
    return LLVMBuildBitCast(e->eb, a, e->p8, "");
}

/* A load of what the wave's caller set before the wave and nothing changes while it runs (the state's fields but
 * poll_period, the windows): marked invariant, so that LLVM keeps it in a register across the helper calls of cold
 * paths, which receive the state, and hoists it out of the loops over work-items. */
LLVMValueRef zf_cx_load_invariant(zf_cx_em *e, LLVMTypeRef t, LLVMValueRef p8) {
    LLVMValueRef v = zf_cx_load_ir(e, t, p8);
    LLVMSetMetadata(v, LLVMGetMDKindIDInContext(e->c, "invariant.load", 14), LLVMMDNodeInContext(e->c, NULL, 0));
    return v;
}

/* The group's size in dimension d (3: its work-items) when the code is specialized to it, else 0. */
static uint64_t zf_cx_fixed_size(const zf_cx_em *e, size_t offset) {
    if (e->fixed_size[0] == 0)
        return 0;
    if (offset == offsetof(zf_cx_rt, group_items))
        return e->fixed_size[0] * e->fixed_size[1] * e->fixed_size[2];
    for (size_t d = 0; d < 3; d++)
        if (offset == offsetof(zf_cx_rt, group_size) + 8 * d)
            return e->fixed_size[d];
    return 0;
}

/* A field of the run-time state. */
LLVMValueRef zf_cx_rt_field(zf_cx_em *e, size_t offset, LLVMTypeRef t) {
    uint64_t fixed = zf_cx_fixed_size(e, offset);
    if (fixed != 0)
        return LLVMConstInt(t, fixed, false);
    LLVMValueRef at = zf_cx_gep(e, e->rt, offset);
    if (offset == offsetof(zf_cx_rt, poll_period)) /* the hang detector shortens it while the wave runs */
        return zf_cx_load_ir(e, t, at);
    return zf_cx_load_invariant(e, t, at);
}

LLVMValueRef zf_cx_item(zf_cx_em *e, uint32_t k) {
    LLVMValueRef index = LLVMConstInt(e->i32, k, false);
    return LLVMBuildLoad2(e->b, e->i64, LLVMBuildGEP2(e->b, e->i64, e->item, &index, 1, ""), "");
}

void zf_cx_set_item(zf_cx_em *e, uint32_t k, LLVMValueRef v) {
    LLVMValueRef index = LLVMConstInt(e->i32, k, false);
    LLVMBuildStore(e->b, v, LLVMBuildGEP2(e->b, e->i64, e->item, &index, 1, ""));
}

/* A call of a helper of cx_run.c by name: the code may be cached and loaded by another process, so it holds no
 * address of this one; the JIT binds the names (ZF_CX_HELPERS) when it loads the code. */
LLVMValueRef zf_cx_call(zf_cx_em *e, const char *helper, LLVMTypeRef ret, LLVMTypeRef *params, unsigned n,
                        LLVMValueRef *args) {
    LLVMTypeRef type = LLVMFunctionType(ret, params, n, false);
    LLVMValueRef callee = LLVMGetNamedFunction(e->m, helper);
    if (callee == NULL)
        callee = LLVMAddFunction(e->m, helper, type);
    return LLVMBuildCall2(e->b, type, callee, args, n, "");
}

/* The address of a decoded instruction for a helper, from the form's instruction table at run time (rt->insts). */
LLVMValueRef zf_cx_inst_ref(zf_cx_em *e, const zf_dinst *in) {
    LLVMValueRef insts = zf_cx_rt_field(e, offsetof(zf_cx_rt, insts), e->p8);
    return zf_cx_gep(e, insts, (uint64_t)(in - e->code->insts) * sizeof *in);
}

LLVMValueRef zf_cx_intrinsic(zf_cx_em *e, const char *name, LLVMTypeRef *types, unsigned ntypes, LLVMValueRef *args,
                             unsigned nargs) {
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

/* The built-ins' formulas (spirv_builtins.h) as LLVM IR over the work-item's ids and the launch's run-time fields. */
#define ZF_B_LID(d)    zf_cx_item(e, ZF_CX_ITEM_LID + (uint32_t)(d))
#define ZF_B_GRP(d)    zf_cx_item(e, ZF_CX_ITEM_GRP + (uint32_t)(d))
#define ZF_B_GSIZE(d)  zf_cx_rt_field(e, offsetof(zf_cx_rt, group_size) + 8 * (size_t)(d), e->i64)
#define ZF_B_GROUPS(d) zf_cx_rt_field(e, offsetof(zf_cx_rt, groups) + 8 * (size_t)(d), e->i64)
#define ZF_B_OFFSET(d) zf_cx_rt_field(e, offsetof(zf_cx_rt, offset) + 8 * (size_t)(d), e->i64)
#define ZF_B_R         LLVMBuildURem(e->b, zf_cx_item(e, ZF_CX_ITEM_LANE), ZF_B_G, "")
#define ZF_B_S         zf_cx_rt_field(e, offsetof(zf_cx_rt, subgroup_size), e->i64)
#define ZF_B_G         zf_cx_rt_field(e, offsetof(zf_cx_rt, group_items), e->i64)
#define ZF_B_WORKDIM   zf_cx_rt_field(e, offsetof(zf_cx_rt, work_dim), e->i64)
#define ZF_B_ADD(x, y) LLVMBuildAdd(e->b, x, y, "")
#define ZF_B_SUB(x, y) LLVMBuildSub(e->b, x, y, "")
#define ZF_B_MUL(x, y) LLVMBuildMul(e->b, x, y, "")
#define ZF_B_DIV(x, y) LLVMBuildUDiv(e->b, x, y, "")
#define ZF_B_REM(x, y) LLVMBuildURem(e->b, x, y, "")
#define ZF_B_MIN(x, y) zf_cx_umin(e, x, y)
#define ZF_B_K(n)      zf_cx_i64c(e, n)

static LLVMValueRef zf_cx_umin(zf_cx_em *e, LLVMValueRef a, LLVMValueRef b) {
    return LLVMBuildSelect(e->b, LLVMBuildICmp(e->b, LLVMIntULT, a, b, ""), a, b, "");
}

/* A built-in value of the work-item, component d. */
static LLVMValueRef zf_cx_builtin(zf_cx_em *e, uint32_t builtin, uint32_t d) {
    switch (builtin) {
#define ZF_CX_BUILTIN3(name, per_wave, value)                                                                          \
    case SpvBuiltIn##name:                                                                                             \
        return value;
#define ZF_CX_BUILTIN1(name, per_wave, value)                                                                          \
    case SpvBuiltIn##name:                                                                                             \
        return d == 0 ? value : zf_cx_i64c(e, 0);
        ZF_BUILTINS(ZF_CX_BUILTIN3, ZF_CX_BUILTIN1)
#undef ZF_CX_BUILTIN3
#undef ZF_CX_BUILTIN1
    default:
        return zf_cx_i64c(e, 0);
    }
}

LLVMValueRef zf_cx_group_local_lo(zf_cx_em *e) {
    LLVMValueRef base = LLVMBuildPtrToInt(e->b, zf_cx_rt_field(e, offsetof(zf_cx_rt, local), e->p8), e->i64, "");
    LLVMValueRef slot = LLVMBuildMul(e->b, zf_cx_item(e, ZF_CX_ITEM_SLOT),
                                     zf_cx_rt_field(e, offsetof(zf_cx_rt, local_stride), e->i64), "");
    return LLVMBuildAdd(e->b, base, slot, "");
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
        if (at != UINT64_MAX)
            v = LLVMBuildAdd(e->b, zf_cx_group_local_lo(e), zf_cx_i64c(e, at), "");
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
LLVMValueRef zf_cx_reg(zf_cx_em *e, zf_ref ref, uint32_t size) {
    uint32_t area = ZF_REF_AREA(ref), o = ZF_REF_OFFSET(ref);
    const zf_dprog *code = e->code;
    if (area == ZF_AREA_FRAME)
        return zf_cx_gep(e, zf_cx_step_frame(e, o, size), o);
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
            zf_cx_store(e, zf_cx_load_ir(e, e->i64, zf_cx_gep(e, relocs, 8ull * i)), tmp);
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

LLVMValueRef zf_cx_dst(zf_cx_em *e, zf_ref ref) {
    if (ZF_REF_AREA(ref) != ZF_AREA_FRAME) {
        zf_cx_fail(e, "a result outside the frame");
        return e->frame;
    }
    return zf_cx_gep(e, zf_cx_step_frame(e, ZF_REF_OFFSET(ref), 1), ZF_REF_OFFSET(ref));
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
    return zf_cx_load_ir(e, t, zf_cx_reg(e, ref, zf_cx_bytes(e, t)));
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

/* OpenCL.std functions compiled as calls of the C library's, each as the interpreter computes it (spirv_ops_ext.c):
 * single precision through the float function where it uses one (f32), else through the double one and rounded;
 * doubles through the double one. The generated code names them with ZF_CX_LIBM_PREFIX, which the loader of the code
 * binds to the C library's function (cx_elf.c): LLVM sees an unknown function, so it neither folds a call with
 * constant operands at compile time (with other rounding than the C library's) nor replaces it. */
typedef struct zf_cx_libm {
    uint32_t fn;
    uint32_t args;
    const char *f32, *f64;
} zf_cx_libm;

static const zf_cx_libm zf_cx_libm_table[] = {
    {ZF_E_ACOS, 1, "acosf", "acos"},
    {ZF_E_ACOSH, 1, NULL, "acosh"},
    {ZF_E_ASIN, 1, "asinf", "asin"},
    {ZF_E_ASINH, 1, NULL, "asinh"},
    {ZF_E_ATAN, 1, "atanf", "atan"},
    {ZF_E_ATANH, 1, NULL, "atanh"},
    {ZF_E_CBRT, 1, NULL, "cbrt"},
    {ZF_E_CEIL, 1, "ceilf", "ceil"},
    {ZF_E_COS, 1, "cosf", "cos"},
    {ZF_E_HALF_COS, 1, "cosf", "cos"},
    {ZF_E_NATIVE_COS, 1, "cosf", "cos"},
    {ZF_E_COSH, 1, NULL, "cosh"},
    {ZF_E_ERFC, 1, NULL, "erfc"},
    {ZF_E_ERF, 1, NULL, "erf"},
    {ZF_E_EXP, 1, "expf", "exp"},
    {ZF_E_HALF_EXP, 1, "expf", "exp"},
    {ZF_E_NATIVE_EXP, 1, "expf", "exp"},
    {ZF_E_EXP2, 1, "exp2f", "exp2"},
    {ZF_E_HALF_EXP2, 1, "exp2f", "exp2"},
    {ZF_E_NATIVE_EXP2, 1, "exp2f", "exp2"},
    {ZF_E_EXP10, 1, NULL, "exp10"},
    {ZF_E_HALF_EXP10, 1, NULL, "exp10"},
    {ZF_E_NATIVE_EXP10, 1, NULL, "exp10"},
    {ZF_E_EXPM1, 1, NULL, "expm1"},
    {ZF_E_FLOOR, 1, "floorf", "floor"},
    {ZF_E_LOG, 1, "logf", "log"},
    {ZF_E_HALF_LOG, 1, "logf", "log"},
    {ZF_E_NATIVE_LOG, 1, "logf", "log"},
    {ZF_E_LOG2, 1, "log2f", "log2"},
    {ZF_E_HALF_LOG2, 1, "log2f", "log2"},
    {ZF_E_NATIVE_LOG2, 1, "log2f", "log2"},
    {ZF_E_LOG10, 1, NULL, "log10"},
    {ZF_E_HALF_LOG10, 1, NULL, "log10"},
    {ZF_E_NATIVE_LOG10, 1, NULL, "log10"},
    {ZF_E_LOG1P, 1, NULL, "log1p"},
    {ZF_E_LOGB, 1, NULL, "logb"},
    {ZF_E_RINT, 1, "rintf", "rint"},
    {ZF_E_ROUND, 1, "roundf", "round"},
    {ZF_E_SIN, 1, "sinf", "sin"},
    {ZF_E_HALF_SIN, 1, "sinf", "sin"},
    {ZF_E_NATIVE_SIN, 1, "sinf", "sin"},
    {ZF_E_SINH, 1, NULL, "sinh"},
    {ZF_E_TAN, 1, "tanf", "tan"},
    {ZF_E_HALF_TAN, 1, "tanf", "tan"},
    {ZF_E_NATIVE_TAN, 1, "tanf", "tan"},
    {ZF_E_TANH, 1, NULL, "tanh"},
    {ZF_E_TGAMMA, 1, NULL, "tgamma"},
    {ZF_E_TRUNC, 1, "truncf", "trunc"},
    {ZF_E_ATAN2, 2, NULL, "atan2"},
    {ZF_E_COPYSIGN, 2, NULL, "copysign"},
    {ZF_E_FDIM, 2, NULL, "fdim"},
    {ZF_E_FMOD, 2, NULL, "fmod"},
    {ZF_E_HYPOT, 2, NULL, "hypot"},
    {ZF_E_NEXTAFTER, 2, "nextafterf", "nextafter"},
    {ZF_E_POW, 2, NULL, "pow"},
    {ZF_E_REMAINDER, 2, NULL, "remainder"},
};

static const zf_cx_libm *zf_cx_libm_of(uint32_t fn) {
    for (size_t i = 0; i < sizeof zf_cx_libm_table / sizeof zf_cx_libm_table[0]; i++)
        if (zf_cx_libm_table[i].fn == fn)
            return &zf_cx_libm_table[i];
    return NULL;
}

/* The declaration of a C library function of `args` operands of type t, without memory effects. */
static LLVMValueRef zf_cx_libm_decl(zf_cx_em *e, const char *name, LLVMTypeRef t, unsigned args) {
    char prefixed[64];
    snprintf(prefixed, sizeof prefixed, "%s%s", ZF_CX_LIBM_PREFIX, name);
    LLVMValueRef fn = LLVMGetNamedFunction(e->m, prefixed);
    if (fn != NULL)
        return fn;
    LLVMTypeRef params[2] = {t, t};
    fn = LLVMAddFunction(e->m, prefixed, LLVMFunctionType(t, params, args, false));
    static const char *const attrs[] = {"nounwind", "readnone", "willreturn"};
    for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++)
        LLVMAddAttributeAtIndex(
            fn, LLVMAttributeFunctionIndex,
            LLVMCreateEnumAttribute(e->c, LLVMGetEnumAttributeKindForName(attrs[i], strlen(attrs[i])), 0));
    return fn;
}

/* One element: the float function, or the double one on the widened operands, rounded back. */
static LLVMValueRef zf_cx_libm_scalar(zf_cx_em *e, const zf_cx_libm *m, bool single, LLVMValueRef *ops) {
    bool widen = single && m->f32 == NULL;
    LLVMTypeRef t = widen || !single ? e->f64 : e->f32;
    LLVMValueRef fn = zf_cx_libm_decl(e, single && !widen ? m->f32 : m->f64, t, m->args), args[2];
    for (uint32_t k = 0; k < m->args; k++)
        args[k] = widen ? LLVMBuildFPExt(e->b, ops[k], e->f64, "") : ops[k];
    LLVMValueRef r = LLVMBuildCall2(e->b, LLVMGlobalGetValueType(fn), fn, args, m->args, "");
    return widen ? LLVMBuildFPTrunc(e->b, r, e->f32, "") : r;
}

/* The function on each component of the operands (of vector or scalar type t). */
static LLVMValueRef zf_cx_libm_call(zf_cx_em *e, const zf_cx_libm *m, const zf_dinst *in, LLVMTypeRef t, LLVMValueRef a,
                                    LLVMValueRef b) {
    bool single = in->type == ZF_T_F32;
    if (LLVMGetTypeKind(t) != LLVMVectorTypeKind) {
        LLVMValueRef ops[2] = {a, b};
        return zf_cx_libm_scalar(e, m, single, ops);
    }
    LLVMValueRef r = LLVMGetUndef(t);
    for (unsigned k = 0; k < LLVMGetVectorSize(t); k++) {
        LLVMValueRef index = LLVMConstInt(e->i32, k, false);
        LLVMValueRef ops[2] = {LLVMBuildExtractElement(e->b, a, index, ""),
                               b != NULL ? LLVMBuildExtractElement(e->b, b, index, "") : NULL};
        r = LLVMBuildInsertElement(e->b, r, zf_cx_libm_scalar(e, m, single, ops), index, "");
    }
    return r;
}

/* rsqrt as the interpreter computes it: 1 / sqrt in double, rounded once for floats. */
static LLVMValueRef zf_cx_rsqrt(zf_cx_em *e, const zf_dinst *in, LLVMTypeRef t, LLVMValueRef a) {
    bool single = in->type == ZF_T_F32;
    LLVMTypeRef wide = single ? zf_cx_vtype(e, ZF_T_F64, in->comps) : t;
    LLVMValueRef x = single ? LLVMBuildFPExt(e->b, a, wide, "") : a;
    LLVMValueRef one = LLVMConstReal(e->f64, 1.0);
    if (LLVMGetTypeKind(wide) == LLVMVectorTypeKind) {
        LLVMValueRef ones[16];
        for (unsigned k = 0; k < LLVMGetVectorSize(wide); k++)
            ones[k] = one;
        one = LLVMConstVector(ones, LLVMGetVectorSize(wide));
    }
    LLVMValueRef r = LLVMBuildFDiv(e->b, one, zf_cx_intrinsic(e, "llvm.sqrt", &wide, 1, &x, 1), "");
    return single ? LLVMBuildFPTrunc(e->b, r, t, "") : r;
}

/* Float functions of OpenCL.std compiled inline or as calls of the C library: the others run the interpreter's code. */
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
    case ZF_E_RSQRT:
    case ZF_E_HALF_RSQRT:
    case ZF_E_NATIVE_RSQRT:
        return zf_cx_rsqrt(e, in, t, a);
    case ZF_CX_E_FABS:
        return zf_cx_intrinsic(e, "llvm.fabs", &t, 1, &a, 1);
    default:
        return zf_cx_libm_call(e, zf_cx_libm_of(in->aux), in, t, a, b);
    }
}

static bool zf_cx_ext_inline(const zf_dinst *in) {
    uint32_t f = in->aux, ta = in->asize & 0xFFu;
    bool args_of_type = ta == in->type && (in->b == ZF_REF_NONE || ((in->asize >> 8) & 0xFFu) == in->type) &&
                        (in->c == ZF_REF_NONE || ((in->asize >> 16) & 0xFFu) == in->type);
    const zf_cx_libm *m = zf_cx_libm_of(f);
    bool operands = m != NULL && (m->args == 2) == (in->b != ZF_REF_NONE) && in->c == ZF_REF_NONE;
    return (in->type == ZF_T_F32 || in->type == ZF_T_F64) && args_of_type &&
           (f == ZF_CX_E_MAD || f == ZF_CX_E_FMA || f == ZF_CX_E_FMAX || f == ZF_CX_E_FMIN || f == ZF_CX_E_SQRT ||
            f == ZF_CX_E_FABS || f == ZF_E_RSQRT || f == ZF_E_HALF_RSQRT || f == ZF_E_NATIVE_RSQRT || operands);
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

/* Runs the interpreter's handler of `in` through a helper, its operands and result in the scratch slots: zf_cx_pure
 * for an instruction that computes from its operands alone, zf_cx_lane_op (which may fault) for one that also
 * touches memory, images or the work-item's place in its sub-group. */
zf_operand_sizes zf_cx_stage_operands(zf_cx_em *e, const zf_dinst *in) {
    zf_operand_sizes s;
    zf_cx_sizes(e->code, in, &s);
    const zf_ref refs[3] = {in->a, in->b, in->c};
    const uint32_t sizes[3] = {s.a, s.b, s.c};
    for (int k = 0; k < 3; k++)
        if (refs[k] != ZF_REF_NONE && sizes[k] > 0)
            zf_cx_move(e, zf_cx_gep(e, e->scratch, ZF_CX_SCRATCH_SLOT * (k + 1u)), zf_cx_reg(e, refs[k], sizes[k]),
                       sizes[k]);
    return s;
}

static void zf_cx_scratch_call(zf_cx_em *e, const zf_dinst *in, bool on_lane) {
    zf_operand_sizes s = zf_cx_stage_operands(e, in);
    LLVMTypeRef params[4] = {e->p8, e->p8, e->p8, e->i64};
    LLVMValueRef inst = zf_cx_inst_ref(e, in);
    LLVMValueRef args[4] = {e->rt, inst, e->scratch, e->lane};
    if (on_lane) {
        LLVMValueRef killed = zf_cx_call(e, ZF_CX_HELPER(zf_cx_lane_op), e->i32, params, 4, args);
        LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(e->c, e->f, "lane op");
        LLVMBuildCondBr(e->b, LLVMBuildICmp(e->b, LLVMIntNE, killed, LLVMConstInt(e->i32, 0, false), ""),
                        zf_cx_fault_edge(e), next);
        LLVMPositionBuilderAtEnd(e->b, next);
    } else {
        zf_cx_call(e, ZF_CX_HELPER(zf_cx_pure), LLVMVoidTypeInContext(e->c), params, 3, args);
    }
    if (in->dst != ZF_REF_NONE && s.dst > 0)
        zf_cx_move(e, zf_cx_dst(e, in->dst), e->scratch, s.dst);
}

/* An instruction with a list of operands (a call through a function pointer, printf, async_work_group_copy): those
 * in the frame or the wave area (which compiled code does not fill) packed in their order, the result at the scratch
 * (zf_cx_list_op). */
static bool zf_cx_packed(zf_ref ref) {
    return ref != ZF_REF_NONE && (ZF_REF_AREA(ref) == ZF_AREA_FRAME || ZF_REF_AREA(ref) == ZF_AREA_WAVE);
}

void zf_cx_list_inst(zf_cx_em *e, const zf_dinst *in) {
    zf_ref ref;
    uint32_t bytes;
    uint64_t packed = 0;
    for (uint32_t k = 0; zf_cx_list_operand(e->code, in, k, &ref, &bytes); k++)
        packed += zf_cx_packed(ref) ? bytes : 0;
    LLVMValueRef args = zf_cx_alloca(e, packed ? packed : 1);
    packed = 0;
    for (uint32_t k = 0; zf_cx_list_operand(e->code, in, k, &ref, &bytes); k++) {
        if (!zf_cx_packed(ref))
            continue;
        zf_cx_move(e, zf_cx_gep(e, args, packed), zf_cx_reg(e, ref, bytes), bytes);
        packed += bytes;
    }
    LLVMTypeRef params[5] = {e->p8, e->p8, e->p8, e->i64, e->p8};
    LLVMValueRef call[5] = {e->rt, zf_cx_inst_ref(e, in), e->scratch, e->lane, args};
    LLVMValueRef killed = zf_cx_call(e, ZF_CX_HELPER(zf_cx_list_op), e->i32, params, 5, call);
    LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(e->c, e->f, "listed");
    LLVMBuildCondBr(e->b, LLVMBuildICmp(e->b, LLVMIntNE, killed, LLVMConstInt(e->i32, 0, false), ""),
                    zf_cx_fault_edge(e), next);
    LLVMPositionBuilderAtEnd(e->b, next);
    if (in->dst != ZF_REF_NONE && zf_cx_list_result(in) > 0)
        zf_cx_move(e, zf_cx_dst(e, in->dst), e->scratch, zf_cx_list_result(in));
}

void zf_cx_pure_call(zf_cx_em *e, const zf_dinst *in) {
    zf_cx_scratch_call(e, in, false);
}

void zf_cx_lane_call(zf_cx_em *e, const zf_dinst *in) {
    zf_cx_scratch_call(e, in, true);
}

/* Typed operations compiled inline; false when the operation runs the interpreter's code. */
bool zf_cx_typed(zf_cx_em *e, const zf_dinst *in) {
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

void zf_cx_select(zf_cx_em *e, const zf_dinst *in) {
    uint32_t size = in->size;
    if (size != 1 && size != 2 && size != 4 && size != 8 && size != 16) {
        zf_cx_pure_call(e, in);
        return;
    }
    LLVMTypeRef t = LLVMIntTypeInContext(e->c, 8 * size);
    LLVMValueRef cond = LLVMBuildICmp(e->b, LLVMIntNE, zf_cx_load_ir(e, e->i8, zf_cx_reg(e, in->a, 1)),
                                      LLVMConstInt(e->i8, 0, false), "");
    LLVMValueRef v = LLVMBuildSelect(e->b, cond, zf_cx_load_ir(e, t, zf_cx_reg(e, in->b, size)),
                                     zf_cx_load_ir(e, t, zf_cx_reg(e, in->c, size)), "");
    zf_cx_store(e, v, zf_cx_dst(e, in->dst));
}

void zf_cx_gather(zf_cx_em *e, const zf_dinst *in) {
    const uint32_t *aux = e->code->aux + in->aux;
    LLVMValueRef d = zf_cx_dst(e, in->dst);
    LLVMBuildMemSet(e->b, d, LLVMConstInt(e->i8, 0, false), zf_cx_i64c(e, in->size), 1);
    for (uint32_t p = 0; p < aux[0]; p++) {
        const uint32_t *part = aux + 1 + 3 * p;
        zf_cx_move(e, zf_cx_gep(e, d, part[2]), zf_cx_reg(e, part[0], part[1]), part[1]);
    }
}
