/* The decoder, one instruction at a time: each supported SPIR-V instruction becomes one or a few decoded
 * instructions whose operand sizes are checked against the SPIR-V types, so that a malformed module fails the build
 * instead of reading past a register. Anything else fails zeModuleCreate naming the opcode and its word offset. */
#include "spirv_decode_inst.h"

#include <stdlib.h>
#include <string.h>

bool zf_d_has_result(uint32_t opcode, const uint32_t *w, uint32_t count) {
    (void)w;
    (void)count;
    if (opcode == SpvOpUndef || opcode == SpvOpExtInst || opcode == SpvOpFunctionCall || opcode == SpvOpVariable ||
        opcode == SpvOpLoad || opcode == SpvOpPhi || opcode == SpvOpAtomicLoad)
        return true;
    if (zf_d_is_image_op(opcode))
        return opcode != SpvOpImageWrite;
    if ((opcode >= SpvOpAccessChain && opcode <= SpvOpInBoundsPtrAccessChain) ||
        (opcode >= SpvOpVectorExtractDynamic && opcode <= SpvOpCopyObject) ||
        (opcode >= SpvOpConvertFToU && opcode <= SpvOpBitcast) ||
        (opcode >= SpvOpSNegate && opcode <= SpvOpSMulExtended) ||
        (opcode >= SpvOpAny && opcode <= SpvOpFUnordGreaterThanEqual) ||
        (opcode >= SpvOpShiftRightLogical && opcode <= SpvOpBitCount) ||
        (opcode >= SpvOpAtomicExchange && opcode <= SpvOpAtomicXor) ||
        (opcode >= SpvOpGroupAll && opcode <= SpvOpGroupSMax) || opcode == SpvOpGroupAsyncCopy ||
        opcode == SpvOpAtomicFlagTestAndSet || (opcode >= SpvOpPtrEqual && opcode <= SpvOpPtrDiff) ||
        (opcode >= SpvOpSubgroupShuffleINTEL && opcode <= SpvOpSubgroupShuffleXorINTEL) ||
        opcode == SpvOpSubgroupBlockReadINTEL || opcode == SpvOpSubgroupImageBlockReadINTEL ||
        opcode == SpvOpFunctionPointerCallINTEL || opcode == SpvOpAtomicFMinEXT || opcode == SpvOpAtomicFMaxEXT ||
        opcode == SpvOpAtomicFAddEXT)
        return true;
    return false;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Arithmetic, logic and comparisons */

typedef enum zf_form_kind {
    ZF_K_INT,   /* integer result and operands of the result's type */
    ZF_K_FLOAT, /* floating-point likewise */
    ZF_K_BOOL,  /* booleans likewise */
    ZF_K_ICMP,  /* boolean result, integer operands of one type */
    ZF_K_FCMP,  /* boolean result, floating-point operands */
    ZF_K_FTEST, /* boolean result, one floating-point operand */
    ZF_K_SHIFT, /* integer; the amount may be of another width */
} zf_form_kind;

typedef struct zf_simple {
    uint16_t opcode;
    uint16_t xop;
    uint8_t args;
    uint8_t kind;
} zf_simple;

static const zf_simple zf_simple_ops[] = {
    {SpvOpSNegate, ZF_X_INEG, 1, ZF_K_INT},
    {SpvOpFNegate, ZF_X_FNEG, 1, ZF_K_FLOAT},
    {SpvOpIAdd, ZF_X_IADD, 2, ZF_K_INT},
    {SpvOpFAdd, ZF_X_FADD, 2, ZF_K_FLOAT},
    {SpvOpISub, ZF_X_ISUB, 2, ZF_K_INT},
    {SpvOpFSub, ZF_X_FSUB, 2, ZF_K_FLOAT},
    {SpvOpIMul, ZF_X_IMUL, 2, ZF_K_INT},
    {SpvOpFMul, ZF_X_FMUL, 2, ZF_K_FLOAT},
    {SpvOpUDiv, ZF_X_UDIV, 2, ZF_K_INT},
    {SpvOpSDiv, ZF_X_SDIV, 2, ZF_K_INT},
    {SpvOpFDiv, ZF_X_FDIV, 2, ZF_K_FLOAT},
    {SpvOpUMod, ZF_X_UREM, 2, ZF_K_INT},
    {SpvOpSRem, ZF_X_SREM, 2, ZF_K_INT},
    {SpvOpSMod, ZF_X_SMOD, 2, ZF_K_INT},
    {SpvOpFRem, ZF_X_FREM, 2, ZF_K_FLOAT},
    {SpvOpFMod, ZF_X_FMOD, 2, ZF_K_FLOAT},
    {SpvOpShiftRightLogical, ZF_X_SHR, 2, ZF_K_SHIFT},
    {SpvOpShiftRightArithmetic, ZF_X_SAR, 2, ZF_K_SHIFT},
    {SpvOpShiftLeftLogical, ZF_X_SHL, 2, ZF_K_SHIFT},
    {SpvOpBitwiseOr, ZF_X_OR, 2, ZF_K_INT},
    {SpvOpBitwiseXor, ZF_X_XOR, 2, ZF_K_INT},
    {SpvOpBitwiseAnd, ZF_X_AND, 2, ZF_K_INT},
    {SpvOpNot, ZF_X_INOT, 1, ZF_K_INT},
    {SpvOpBitReverse, ZF_X_BITREV, 1, ZF_K_INT},
    {SpvOpBitCount, ZF_X_POPCOUNT, 1, ZF_K_INT},
    {SpvOpLogicalEqual, ZF_X_IEQ, 2, ZF_K_BOOL},
    {SpvOpLogicalNotEqual, ZF_X_INE, 2, ZF_K_BOOL},
    {SpvOpLogicalOr, ZF_X_OR, 2, ZF_K_BOOL},
    {SpvOpLogicalAnd, ZF_X_AND, 2, ZF_K_BOOL},
    {SpvOpLogicalNot, ZF_X_LNOT, 1, ZF_K_BOOL},
    {SpvOpIEqual, ZF_X_IEQ, 2, ZF_K_ICMP},
    {SpvOpINotEqual, ZF_X_INE, 2, ZF_K_ICMP},
    {SpvOpUGreaterThan, ZF_X_UGT, 2, ZF_K_ICMP},
    {SpvOpSGreaterThan, ZF_X_SGT, 2, ZF_K_ICMP},
    {SpvOpUGreaterThanEqual, ZF_X_UGE, 2, ZF_K_ICMP},
    {SpvOpSGreaterThanEqual, ZF_X_SGE, 2, ZF_K_ICMP},
    {SpvOpULessThan, ZF_X_ULT, 2, ZF_K_ICMP},
    {SpvOpSLessThan, ZF_X_SLT, 2, ZF_K_ICMP},
    {SpvOpULessThanEqual, ZF_X_ULE, 2, ZF_K_ICMP},
    {SpvOpSLessThanEqual, ZF_X_SLE, 2, ZF_K_ICMP},
    {SpvOpFOrdEqual, ZF_X_FOEQ, 2, ZF_K_FCMP},
    {SpvOpFUnordEqual, ZF_X_FUEQ, 2, ZF_K_FCMP},
    {SpvOpFOrdNotEqual, ZF_X_FONE, 2, ZF_K_FCMP},
    {SpvOpFUnordNotEqual, ZF_X_FUNE, 2, ZF_K_FCMP},
    {SpvOpFOrdLessThan, ZF_X_FOLT, 2, ZF_K_FCMP},
    {SpvOpFUnordLessThan, ZF_X_FULT, 2, ZF_K_FCMP},
    {SpvOpFOrdGreaterThan, ZF_X_FOGT, 2, ZF_K_FCMP},
    {SpvOpFUnordGreaterThan, ZF_X_FUGT, 2, ZF_K_FCMP},
    {SpvOpFOrdLessThanEqual, ZF_X_FOLE, 2, ZF_K_FCMP},
    {SpvOpFUnordLessThanEqual, ZF_X_FULE, 2, ZF_K_FCMP},
    {SpvOpFOrdGreaterThanEqual, ZF_X_FOGE, 2, ZF_K_FCMP},
    {SpvOpFUnordGreaterThanEqual, ZF_X_FUGE, 2, ZF_K_FCMP},
    {SpvOpLessOrGreater, ZF_X_FONE, 2, ZF_K_FCMP},
    {SpvOpOrdered, ZF_X_FORD, 2, ZF_K_FCMP},
    {SpvOpUnordered, ZF_X_FUNORD, 2, ZF_K_FCMP},
    {SpvOpIsNan, ZF_X_ISNAN, 1, ZF_K_FTEST},
    {SpvOpIsInf, ZF_X_ISINF, 1, ZF_K_FTEST},
    {SpvOpIsFinite, ZF_X_ISFINITE, 1, ZF_K_FTEST},
    {SpvOpIsNormal, ZF_X_ISNORMAL, 1, ZF_K_FTEST},
    {SpvOpSignBitSet, ZF_X_SIGNBIT, 1, ZF_K_FTEST},
};

static const zf_simple *zf_find_simple(uint32_t opcode) {
    for (size_t i = 0; i < sizeof zf_simple_ops / sizeof zf_simple_ops[0]; i++)
        if (zf_simple_ops[i].opcode == opcode)
            return &zf_simple_ops[i];
    return NULL;
}

static bool zf_kind_accepts(uint32_t kind, const zf_tinfo *t) {
    if (!zf_is_scalar_or_vector(t))
        return false;
    switch (kind) {
    case ZF_K_INT:
    case ZF_K_SHIFT:
    case ZF_K_ICMP:
        return zf_etype_is_int(t->etype);
    case ZF_K_FLOAT:
    case ZF_K_FCMP:
    case ZF_K_FTEST:
        return zf_etype_is_float(t->etype);
    case ZF_K_BOOL:
        return t->etype == ZF_T_BOOL;
    default:
        return false;
    }
}

static zf_spirv_status zf_decode_simple(zf_decoder *d, const zf_simple *op, const uint32_t *w, uint32_t count) {
    zf_spirv_status s = zf_need(d, count, 3u + op->args);
    zf_arg res, a, b = {ZF_REF_NONE, NULL};
    if (s == ZF_SPIRV_OK)
        s = zf_res(d, w, &res);
    if (s == ZF_SPIRV_OK)
        s = zf_get(d, w[3], &a);
    if (s == ZF_SPIRV_OK && op->args == 2)
        s = zf_get(d, w[4], &b);
    if (s != ZF_SPIRV_OK)
        return s;
    bool compare = op->kind == ZF_K_ICMP || op->kind == ZF_K_FCMP || op->kind == ZF_K_FTEST;
    const zf_tinfo *shape = compare ? a.t : res.t;
    if (!zf_kind_accepts(op->kind, a.t) || a.t->size != shape->size ||
        (compare && (res.t->etype != ZF_T_BOOL || res.t->comps != a.t->comps)) ||
        (!compare && res.t->size != a.t->size))
        return zf_d_malformed(d, "operand types do not fit the instruction");
    zf_ref bref = b.ref;
    if (op->args == 2 && op->kind == ZF_K_SHIFT) {
        if (!zf_etype_is_int(b.t->etype) || b.t->comps != a.t->comps)
            return zf_d_malformed(d, "a shift amount that is not an integer of the base's shape");
        if ((s = zf_int_resize(d, &b, a.t, &bref)) != ZF_SPIRV_OK)
            return s;
    } else if (op->args == 2 && (b.t->size != a.t->size || b.t->etype != a.t->etype)) {
        return zf_d_malformed(d, "operands of different types");
    }
    zf_dinst *in = zf_d_emit(d, op->xop);
    if (in == NULL)
        return ZF_SPIRV_NO_MEMORY;
    in->dst = res.ref;
    in->a = a.ref;
    in->b = bref;
    in->type = shape->etype;
    in->comps = shape->comps;
    in->size = res.t->size;
    return ZF_SPIRV_OK;
}

static zf_spirv_status zf_decode_any_all(zf_decoder *d, const uint32_t *w, uint32_t count) {
    zf_arg res, a;
    zf_spirv_status s = zf_res_args(d, w, count, &res, &a, NULL);
    if (s != ZF_SPIRV_OK)
        return s;
    if (a.t->etype != ZF_T_BOOL || res.t->cls != ZF_TC_BOOL)
        return zf_d_malformed(d, "OpAny/OpAll take a boolean vector");
    zf_dinst *in = zf_d_emit(d, (w[0] & 0xFFFFu) == SpvOpAny ? ZF_X_ANY : ZF_X_ALL);
    if (in == NULL)
        return ZF_SPIRV_NO_MEMORY;
    in->dst = res.ref;
    in->a = a.ref;
    in->type = ZF_T_BOOL;
    in->comps = a.t->comps;
    in->size = 1;
    return ZF_SPIRV_OK;
}

/* OpIAddCarry, OpISubBorrow, OpUMulExtended, OpSMulExtended: a struct of two values of the operands' type. */
static zf_spirv_status zf_decode_extended(zf_decoder *d, const uint32_t *w, uint32_t count) {
    static const uint16_t ops[] = {ZF_X_ADDC, ZF_X_SUBB, ZF_X_UMULX, ZF_X_SMULX};
    zf_arg res, a, b;
    zf_spirv_status s = zf_res_args(d, w, count, &res, &a, &b);
    if (s != ZF_SPIRV_OK)
        return s;
    if (!zf_etype_is_int(a.t->etype) || b.t->size != a.t->size || res.t->size != 2 * a.t->size)
        return zf_d_malformed(d, "an extended arithmetic result that is not a pair of its operands' type");
    zf_dinst *in = zf_d_emit(d, ops[(w[0] & 0xFFFFu) - SpvOpIAddCarry]);
    if (in == NULL)
        return ZF_SPIRV_NO_MEMORY;
    in->dst = res.ref;
    in->a = a.ref;
    in->b = b.ref;
    in->type = a.t->etype;
    in->comps = a.t->comps;
    in->size = res.t->size;
    return ZF_SPIRV_OK;
}

static zf_spirv_status zf_decode_vector_times_scalar(zf_decoder *d, const uint32_t *w, uint32_t count) {
    zf_arg res, v, k;
    zf_spirv_status s = zf_res_args(d, w, count, &res, &v, &k);
    if (s != ZF_SPIRV_OK)
        return s;
    if (!zf_etype_is_float(v.t->etype) || k.t->etype != v.t->etype || k.t->comps != 1 || res.t->size != v.t->size)
        return zf_d_malformed(d, "OpVectorTimesScalar needs a float vector and a scalar of its type");
    zf_ref splat;
    if ((s = zf_splat(d, &k, v.t, &splat)) != ZF_SPIRV_OK)
        return s;
    zf_dinst *in = zf_emit_typed(d, ZF_X_FMUL, &res);
    if (in == NULL)
        return ZF_SPIRV_NO_MEMORY;
    in->a = v.ref;
    in->b = splat;
    return ZF_SPIRV_OK;
}

static zf_spirv_status zf_decode_dot(zf_decoder *d, const uint32_t *w, uint32_t count) {
    zf_arg res, a, b;
    zf_spirv_status s = zf_res_args(d, w, count, &res, &a, &b);
    if (s != ZF_SPIRV_OK)
        return s;
    if (!zf_etype_is_float(a.t->etype) || b.t->size != a.t->size || res.t->etype != a.t->etype || res.t->comps != 1)
        return zf_d_malformed(d, "OpDot needs two float vectors and a scalar result");
    zf_dinst *in = zf_d_emit(d, ZF_X_DOT);
    if (in == NULL)
        return ZF_SPIRV_NO_MEMORY;
    in->dst = res.ref;
    in->a = a.ref;
    in->b = b.ref;
    in->type = a.t->etype;
    in->comps = a.t->comps;
    in->size = res.t->size;
    return ZF_SPIRV_OK;
}

/* ------------------------------------------------------------------------------------------------------------------
 * The dispatcher */

/* An undefined value is zero, so that results never depend on what a register held before: a gather of no parts. */
static zf_spirv_status zf_decode_undef(zf_decoder *d, const uint32_t *w, uint32_t count) {
    zf_arg res;
    zf_spirv_status s = zf_need(d, count, 3);
    if (s == ZF_SPIRV_OK)
        s = zf_res(d, w, &res);
    if (s != ZF_SPIRV_OK)
        return s;
    uint32_t aux = zf_d_aux(d, 1);
    if (aux == UINT32_MAX)
        return ZF_SPIRV_NO_MEMORY;
    zf_d_aux_at(d, aux)[0] = 0;
    zf_dinst *in = zf_d_emit(d, ZF_X_GATHER);
    if (in == NULL)
        return ZF_SPIRV_NO_MEMORY;
    in->dst = res.ref;
    in->size = res.t->size;
    in->aux = aux;
    return ZF_SPIRV_OK;
}

static zf_spirv_status zf_decode_other(zf_decoder *d, uint32_t opcode, const uint32_t *w, uint32_t count) {
    switch (opcode) {
    case SpvOpUndef:
        return zf_decode_undef(d, w, count);
    case SpvOpExtInst:
        return zf_d_ext_inst(d, w, count);
    case SpvOpFunctionCall:
        return zf_d_call(d, w, count);
    case SpvOpFunctionPointerCallINTEL:
        return zf_d_pointer_call(d, w, count);
    case SpvOpControlBarrier:
    case SpvOpMemoryBarrier:
        return zf_d_barrier(d, opcode, count);
    case SpvOpSelect:
        return zf_d_select(d, w, count);
    case SpvOpAny:
    case SpvOpAll:
        return zf_decode_any_all(d, w, count);
    case SpvOpVectorTimesScalar:
        return zf_decode_vector_times_scalar(d, w, count);
    case SpvOpDot:
        return zf_decode_dot(d, w, count);
    case SpvOpGroupAsyncCopy:
        return zf_d_async_copy(d, w, count);
    case SpvOpGroupWaitEvents:
        return ZF_SPIRV_OK; /* copies complete when they are made */
    default:
        if (opcode >= SpvOpIAddCarry && opcode <= SpvOpSMulExtended)
            return zf_decode_extended(d, w, count);
        if (opcode >= SpvOpGroupAll && opcode <= SpvOpGroupSMax)
            return zf_d_group(d, w, count);
        if (opcode >= SpvOpSubgroupShuffleINTEL && opcode <= SpvOpSubgroupShuffleXorINTEL)
            return zf_d_sg_shuffle(d, w, count);
        if (opcode == SpvOpSubgroupBlockReadINTEL || opcode == SpvOpSubgroupBlockWriteINTEL)
            return zf_d_sg_block(d, w, count);
        if (opcode == SpvOpSubgroupImageBlockReadINTEL || opcode == SpvOpSubgroupImageBlockWriteINTEL)
            return zf_d_sg_image_block(d, w, count);
        if (zf_d_is_image_op(opcode))
            return zf_d_image(d, w, count);
        return zf_d_unsupported(d, opcode, NULL);
    }
}

/* An instruction the engine cannot run on such an integer: a work-item that reaches it faults, naming it; the rest of
 * the module runs (docs/spirv-execution.md, "What is refused"). */
static zf_spirv_status zf_decode_trap(zf_decoder *d, uint32_t opcode, uint32_t bits) {
    zf_dinst *in = zf_d_emit(d, ZF_X_TRAP);
    if (in == NULL)
        return ZF_SPIRV_NO_MEMORY;
    in->aux = opcode | bits << 16;
    return ZF_SPIRV_OK;
}

zf_spirv_status zf_d_instruction(zf_decoder *d, uint32_t at) {
    const uint32_t *w = &d->m->words[at];
    uint32_t opcode = w[0] & 0xFFFFu, count = w[0] >> 16;
    d->word = at;
    if (d->odd_at != NULL && d->odd_at[at] != 0)
        return zf_decode_trap(d, opcode, d->odd_at[at]);
    const zf_simple *simple = zf_find_simple(opcode);
    if (simple != NULL)
        return zf_decode_simple(d, simple, w, count);
    const zf_atomic_form *atomic = zf_d_atomic_form(opcode);
    if (atomic != NULL)
        return zf_d_atomic(d, atomic, w, count);
    if (zf_d_is_memory_op(opcode))
        return zf_d_memory_op(d, opcode, w, count);
    if (opcode >= SpvOpVectorExtractDynamic && opcode <= SpvOpCopyObject)
        return zf_d_composite_op(d, opcode, w, count);
    if (opcode >= SpvOpConvertFToU && opcode <= SpvOpBitcast)
        return zf_d_conversion_op(d, opcode, w, count);
    return zf_decode_other(d, opcode, w, count);
}
