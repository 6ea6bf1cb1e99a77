/* The decoder, one instruction at a time: each supported SPIR-V instruction becomes one or a few decoded
 * instructions whose operand sizes are checked against the SPIR-V types, so that a malformed module fails the build
 * instead of reading past a register. Anything else fails zeModuleCreate naming the opcode and its word offset. */
#include "spirv_decode.h"

#include <stdlib.h>
#include <string.h>

/* An operand and its type. */
typedef struct zf_arg {
    zf_ref ref;
    const zf_tinfo *t;
} zf_arg;

static zf_spirv_status zf_get(zf_decoder *d, uint32_t id, zf_arg *out) {
    return zf_d_operand(d, id, &out->ref, &out->t);
}

static bool zf_is_scalar_or_vector(const zf_tinfo *t) {
    return t->cls == ZF_TC_BOOL || t->cls == ZF_TC_INT || t->cls == ZF_TC_FLOAT || t->cls == ZF_TC_VECTOR;
}

static zf_spirv_status zf_need(zf_decoder *d, uint32_t count, uint32_t minimum) {
    if (count >= minimum)
        return ZF_SPIRV_OK;
    return zf_d_malformed(d, "word count %u is less than the %u this instruction needs", count, minimum);
}

/* The result of the instruction: its frame slot and type. */
static zf_spirv_status zf_res(zf_decoder *d, const uint32_t *w, zf_arg *out) {
    zf_spirv_status s = zf_d_result(d, w[2], w[1], &out->ref);
    if (s != ZF_SPIRV_OK)
        return s;
    out->t = zf_d_type(d, w[1]);
    return out->t != NULL ? ZF_SPIRV_OK : zf_d_malformed(d, "result type %%%u is not a type", w[1]);
}

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

/* Emits op with the result's element type and components. */
static zf_dinst *zf_emit_typed(zf_decoder *d, uint32_t op, const zf_arg *res) {
    zf_dinst *in = zf_d_emit(d, op);
    if (in != NULL) {
        in->dst = res->ref;
        in->type = res->t->etype;
        in->comps = res->t->comps;
        in->size = res->t->size;
    }
    return in;
}

/* A temporary frame slot holding the scalar `scalar` in each component of a vector of `like`'s shape. */
static zf_spirv_status zf_splat(zf_decoder *d, const zf_arg *scalar, const zf_tinfo *like, zf_ref *out) {
    *out = zf_d_frame_slot(d, like->size, like->align);
    if (*out == ZF_REF_NONE)
        return ZF_SPIRV_UNSUPPORTED;
    zf_dinst *in = zf_d_emit(d, ZF_X_SPLAT);
    if (in == NULL)
        return ZF_SPIRV_NO_MEMORY;
    in->dst = *out;
    in->a = scalar->ref;
    in->type = like->etype;
    in->comps = like->comps;
    in->size = like->size;
    return ZF_SPIRV_OK;
}

/* A temporary holding `a` converted to the integer shape of `like` (shift amounts of another width). */
static zf_spirv_status zf_int_resize(zf_decoder *d, const zf_arg *a, const zf_tinfo *like, zf_ref *out) {
    if (a->t->size == like->size) {
        *out = a->ref;
        return ZF_SPIRV_OK;
    }
    *out = zf_d_frame_slot(d, like->size, like->align);
    zf_dinst *in = *out == ZF_REF_NONE ? NULL : zf_d_emit(d, ZF_X_CONV);
    if (in == NULL)
        return d->failed ? ZF_SPIRV_UNSUPPORTED : ZF_SPIRV_NO_MEMORY;
    in->dst = *out;
    in->a = a->ref;
    in->type = like->etype;
    in->comps = like->comps;
    in->aux = a->t->etype;
    return ZF_SPIRV_OK;
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
    zf_spirv_status s = zf_need(d, count, 4);
    if (s == ZF_SPIRV_OK && (s = zf_res(d, w, &res)) == ZF_SPIRV_OK)
        s = zf_get(d, w[3], &a);
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
    zf_spirv_status s = zf_need(d, count, 5);
    if (s == ZF_SPIRV_OK && (s = zf_res(d, w, &res)) == ZF_SPIRV_OK && (s = zf_get(d, w[3], &a)) == ZF_SPIRV_OK)
        s = zf_get(d, w[4], &b);
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
    zf_spirv_status s = zf_need(d, count, 5);
    if (s == ZF_SPIRV_OK && (s = zf_res(d, w, &res)) == ZF_SPIRV_OK && (s = zf_get(d, w[3], &v)) == ZF_SPIRV_OK)
        s = zf_get(d, w[4], &k);
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
    zf_spirv_status s = zf_need(d, count, 5);
    if (s == ZF_SPIRV_OK && (s = zf_res(d, w, &res)) == ZF_SPIRV_OK && (s = zf_get(d, w[3], &a)) == ZF_SPIRV_OK)
        s = zf_get(d, w[4], &b);
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
 * Conversions */

static uint32_t zf_round_of(const zf_decoder *d, uint32_t id) {
    return (d->dec[id] >> ZF_DV_ROUND_SHIFT) & 7u;
}

static zf_spirv_status zf_decode_convert(zf_decoder *d, const uint32_t *w, uint32_t count) {
    uint32_t opcode = w[0] & 0xFFFFu;
    zf_arg res, a;
    zf_spirv_status s = zf_need(d, count, 4);
    if (s == ZF_SPIRV_OK && (s = zf_res(d, w, &res)) == ZF_SPIRV_OK)
        s = zf_get(d, w[3], &a);
    if (s != ZF_SPIRV_OK)
        return s;
    bool src_float = opcode == SpvOpConvertFToU || opcode == SpvOpConvertFToS || opcode == SpvOpFConvert;
    bool dst_float = opcode == SpvOpConvertSToF || opcode == SpvOpConvertUToF || opcode == SpvOpFConvert;
    if (!zf_is_scalar_or_vector(res.t) || !zf_is_scalar_or_vector(a.t) || a.t->comps != res.t->comps ||
        zf_etype_is_float(a.t->etype) != src_float || zf_etype_is_float(res.t->etype) != dst_float ||
        a.t->etype == ZF_T_BOOL || res.t->etype == ZF_T_BOOL)
        return zf_d_malformed(d, "conversion operand and result types do not fit the instruction");
    uint32_t flags = a.t->etype;
    if (opcode == SpvOpConvertSToF || opcode == SpvOpSConvert || opcode == SpvOpSatConvertSToU)
        flags |= ZF_CONV_SRC_SIGNED;
    if (opcode == SpvOpConvertFToS || opcode == SpvOpSConvert || opcode == SpvOpSatConvertUToS)
        flags |= ZF_CONV_DST_SIGNED;
    if (opcode == SpvOpSatConvertSToU || opcode == SpvOpSatConvertUToS || (d->dec[w[2]] & ZF_DV_SATURATE))
        flags |= ZF_CONV_SATURATE;
    flags |= zf_round_of(d, w[2]) << ZF_CONV_ROUND_SHIFT;
    zf_dinst *in = zf_emit_typed(d, ZF_X_CONV, &res);
    if (in == NULL)
        return ZF_SPIRV_NO_MEMORY;
    in->a = a.ref;
    in->aux = flags;
    return ZF_SPIRV_OK;
}

static zf_spirv_status zf_emit_mov(zf_decoder *d, zf_ref dst, zf_ref src, uint32_t size) {
    zf_dinst *in = zf_d_emit(d, ZF_X_MOV);
    if (in == NULL)
        return ZF_SPIRV_NO_MEMORY;
    in->dst = dst;
    in->a = src;
    in->size = size;
    return ZF_SPIRV_OK;
}

/* Pointer <-> integer conversions and casts between pointers: bit copies, widened or narrowed as needed. */
static zf_spirv_status zf_decode_pointer_cast(zf_decoder *d, const uint32_t *w, uint32_t count) {
    uint32_t opcode = w[0] & 0xFFFFu;
    zf_arg res, a;
    zf_spirv_status s = zf_need(d, count, 4);
    if (s == ZF_SPIRV_OK && (s = zf_res(d, w, &res)) == ZF_SPIRV_OK)
        s = zf_get(d, w[3], &a);
    if (s != ZF_SPIRV_OK)
        return s;
    if (opcode == SpvOpGenericCastToPtrExplicit) {
        if (count < 5 || a.t->cls != ZF_TC_POINTER || res.t->cls != ZF_TC_POINTER)
            return zf_d_malformed(d, "OpGenericCastToPtrExplicit needs a pointer and a storage class");
        zf_dinst *in = zf_d_emit(d, ZF_X_GCAST);
        if (in == NULL)
            return ZF_SPIRV_NO_MEMORY;
        in->dst = res.ref;
        in->a = a.ref;
        in->aux = w[4];
        in->size = 8;
        return ZF_SPIRV_OK;
    }
    if (opcode == SpvOpBitcast && res.t->size != a.t->size)
        return zf_d_malformed(d, "OpBitcast between types of different sizes (%u and %u)", a.t->size, res.t->size);
    if (res.t->size == a.t->size)
        return zf_emit_mov(d, res.ref, a.ref, res.t->size);
    if ((res.t->size != 4 && res.t->size != 8) || (a.t->size != 4 && a.t->size != 8))
        return zf_d_malformed(d, "a pointer conversion with an integer of %u bytes",
                              res.t->size == 8 ? a.t->size : res.t->size);
    zf_dinst *in = zf_d_emit(d, ZF_X_CONV);
    if (in == NULL)
        return ZF_SPIRV_NO_MEMORY;
    in->dst = res.ref;
    in->a = a.ref;
    in->type = res.t->size == 8 ? ZF_T_I64 : ZF_T_I32;
    in->aux = a.t->size == 8 ? ZF_T_I64 : ZF_T_I32;
    in->size = res.t->size;
    return ZF_SPIRV_OK;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Composites */

/* Walks literal indices into a composite type: byte offset and the type reached. */
static zf_spirv_status zf_walk_literals(zf_decoder *d, uint32_t type, const uint32_t *idx, uint32_t n, uint32_t *offset,
                                        const zf_tinfo **reached) {
    uint64_t at = 0;
    const zf_tinfo *t = zf_d_type(d, type);
    for (uint32_t i = 0; t != NULL && i < n; i++) {
        uint32_t next;
        if (t->cls == ZF_TC_STRUCT) {
            if (idx[i] >= t->length)
                return zf_d_malformed(d, "member index %u of a struct with %u members", idx[i], t->length);
            uint32_t off = zf_d_member_offset(d, type, idx[i], &next);
            if (off == UINT32_MAX)
                return ZF_SPIRV_MALFORMED;
            at += off;
        } else if (t->cls == ZF_TC_ARRAY || t->cls == ZF_TC_VECTOR) {
            uint32_t limit = t->cls == ZF_TC_ARRAY ? t->length : t->comps;
            if (idx[i] >= limit)
                return zf_d_malformed(d, "index %u of a composite with %u elements", idx[i], limit);
            next = t->elem;
            const zf_tinfo *et = zf_d_type(d, next);
            if (et == NULL)
                return ZF_SPIRV_MALFORMED;
            at += (uint64_t)idx[i] * et->size;
        } else {
            return zf_d_malformed(d, "an index into a type that is not a composite");
        }
        type = next;
        t = zf_d_type(d, type);
    }
    if (t == NULL)
        return ZF_SPIRV_MALFORMED;
    *offset = (uint32_t)at;
    *reached = t;
    return ZF_SPIRV_OK;
}

static zf_spirv_status zf_decode_extract(zf_decoder *d, const uint32_t *w, uint32_t count) {
    zf_arg res, c;
    const zf_tinfo *reached;
    uint32_t offset;
    zf_spirv_status s = zf_need(d, count, 5);
    if (s == ZF_SPIRV_OK && (s = zf_res(d, w, &res)) == ZF_SPIRV_OK && (s = zf_get(d, w[3], &c)) == ZF_SPIRV_OK)
        s = zf_walk_literals(d, d->vals[w[3]].type, &w[4], count - 4, &offset, &reached);
    if (s != ZF_SPIRV_OK)
        return s;
    if (reached->size != res.t->size || offset + (uint64_t)res.t->size > c.t->size)
        return zf_d_malformed(d, "OpCompositeExtract's result type is not the extracted member's");
    if (offset == 0 && res.t->size == c.t->size)
        return zf_emit_mov(d, res.ref, c.ref, res.t->size);
    zf_dinst *in = zf_d_emit(d, ZF_X_EXTRACT);
    if (in == NULL)
        return ZF_SPIRV_NO_MEMORY;
    in->dst = res.ref;
    in->a = c.ref;
    in->size = res.t->size;
    in->asize = c.t->size;
    in->aux = offset;
    return ZF_SPIRV_OK;
}

static zf_spirv_status zf_decode_insert(zf_decoder *d, const uint32_t *w, uint32_t count) {
    zf_arg res, obj, c;
    const zf_tinfo *reached;
    uint32_t offset;
    zf_spirv_status s = zf_need(d, count, 6);
    if (s == ZF_SPIRV_OK && (s = zf_res(d, w, &res)) == ZF_SPIRV_OK && (s = zf_get(d, w[3], &obj)) == ZF_SPIRV_OK &&
        (s = zf_get(d, w[4], &c)) == ZF_SPIRV_OK)
        s = zf_walk_literals(d, d->vals[w[4]].type, &w[5], count - 5, &offset, &reached);
    if (s != ZF_SPIRV_OK)
        return s;
    if (reached->size != obj.t->size || res.t->size != c.t->size || offset + (uint64_t)obj.t->size > c.t->size)
        return zf_d_malformed(d, "OpCompositeInsert's object does not fit the member");
    zf_dinst *in = zf_d_emit(d, ZF_X_INSERT);
    if (in == NULL)
        return ZF_SPIRV_NO_MEMORY;
    in->dst = res.ref;
    in->a = c.ref;
    in->b = obj.ref;
    in->size = obj.t->size;
    in->asize = c.t->size;
    in->aux = offset;
    return ZF_SPIRV_OK;
}

static zf_spirv_status zf_decode_dynamic(zf_decoder *d, const uint32_t *w, uint32_t count) {
    bool insert = (w[0] & 0xFFFFu) == SpvOpVectorInsertDynamic;
    zf_arg res, v, comp = {ZF_REF_NONE, NULL}, index;
    zf_spirv_status s = zf_need(d, count, insert ? 6 : 5);
    if (s == ZF_SPIRV_OK && (s = zf_res(d, w, &res)) == ZF_SPIRV_OK && (s = zf_get(d, w[3], &v)) == ZF_SPIRV_OK &&
        insert)
        s = zf_get(d, w[4], &comp);
    if (s == ZF_SPIRV_OK)
        s = zf_get(d, w[insert ? 5 : 4], &index);
    if (s != ZF_SPIRV_OK)
        return s;
    uint32_t elem = zf_etype_size(v.t->etype);
    if (v.t->cls != ZF_TC_VECTOR || index.t->cls != ZF_TC_INT ||
        (insert ? (comp.t->size != elem || res.t->size != v.t->size) : res.t->size != elem))
        return zf_d_malformed(d, "dynamic vector access with mismatched types");
    zf_dinst *in = zf_d_emit(d, insert ? ZF_X_VINSERT : ZF_X_VEXTRACT);
    if (in == NULL)
        return ZF_SPIRV_NO_MEMORY;
    in->dst = res.ref;
    in->a = v.ref;
    in->type = v.t->etype;
    in->comps = v.t->comps;
    in->asize = index.t->size;
    in->size = res.t->size;
    if (insert) {
        in->b = comp.ref;
        in->c = index.ref;
    } else {
        in->b = index.ref;
    }
    return ZF_SPIRV_OK;
}

static zf_spirv_status zf_decode_shuffle(zf_decoder *d, const uint32_t *w, uint32_t count) {
    zf_arg res, a, b;
    zf_spirv_status s = zf_need(d, count, 5);
    if (s == ZF_SPIRV_OK && (s = zf_res(d, w, &res)) == ZF_SPIRV_OK && (s = zf_get(d, w[3], &a)) == ZF_SPIRV_OK)
        s = zf_get(d, w[4], &b);
    if (s != ZF_SPIRV_OK)
        return s;
    uint32_t n = count - 5;
    if (res.t->cls != ZF_TC_VECTOR || a.t->cls != ZF_TC_VECTOR || b.t->cls != ZF_TC_VECTOR || n != res.t->comps ||
        a.t->etype != res.t->etype || b.t->etype != res.t->etype)
        return zf_d_malformed(d, "OpVectorShuffle with mismatched vector types");
    uint32_t aux = zf_d_aux(d, 2 + n);
    if (aux == UINT32_MAX)
        return ZF_SPIRV_NO_MEMORY;
    uint32_t *x = zf_d_aux_at(d, aux);
    x[0] = a.t->comps;
    x[1] = b.t->comps;
    for (uint32_t i = 0; i < n; i++) {
        if (w[5 + i] != 0xFFFFFFFFu && w[5 + i] >= a.t->comps + b.t->comps)
            return zf_d_malformed(d, "shuffle component %u out of range", w[5 + i]);
        x[2 + i] = w[5 + i];
    }
    zf_dinst *in = zf_emit_typed(d, ZF_X_SHUFFLE, &res);
    if (in == NULL)
        return ZF_SPIRV_NO_MEMORY;
    in->a = a.ref;
    in->b = b.ref;
    in->aux = aux;
    return ZF_SPIRV_OK;
}

/* Where a constituent of a vector being constructed goes: vectors concatenate the components of their parts. */
static zf_spirv_status zf_vector_part(zf_decoder *d, const zf_arg *res, const zf_tinfo *part, uint32_t *components,
                                      uint32_t *offset, uint32_t *bytes) {
    uint32_t elem = zf_etype_size(res->t->etype);
    uint32_t n = part->cls == ZF_TC_VECTOR ? part->comps : 1;
    if (part->etype != res->t->etype || *components + n > res->t->comps)
        return zf_d_malformed(d, "OpCompositeConstruct constituents do not make the vector");
    *offset = *components * elem;
    *bytes = n * elem;
    *components += n;
    return ZF_SPIRV_OK;
}

static zf_spirv_status zf_decode_construct(zf_decoder *d, const uint32_t *w, uint32_t count) {
    zf_arg res;
    zf_spirv_status s = zf_need(d, count, 3);
    if (s == ZF_SPIRV_OK)
        s = zf_res(d, w, &res);
    if (s != ZF_SPIRV_OK)
        return s;
    uint32_t n = count - 3, components = 0;
    if (res.t->cls != ZF_TC_VECTOR && res.t->cls != ZF_TC_STRUCT && res.t->cls != ZF_TC_ARRAY)
        return zf_d_malformed(d, "OpCompositeConstruct of a type that is not a composite");
    if (res.t->cls != ZF_TC_VECTOR && n != res.t->length)
        return zf_d_malformed(d, "OpCompositeConstruct with %u constituents for %u members", n, res.t->length);
    uint32_t aux = zf_d_aux(d, 1 + 3 * n);
    if (aux == UINT32_MAX)
        return ZF_SPIRV_NO_MEMORY;
    zf_d_aux_at(d, aux)[0] = n;
    for (uint32_t i = 0; i < n; i++) {
        zf_arg part;
        if ((s = zf_get(d, w[3 + i], &part)) != ZF_SPIRV_OK)
            return s;
        uint32_t offset = 0, bytes = part.t->size, member;
        if (res.t->cls == ZF_TC_VECTOR) {
            s = zf_vector_part(d, &res, part.t, &components, &offset, &bytes);
        } else if (res.t->cls == ZF_TC_STRUCT) {
            offset = zf_d_member_offset(d, w[1], i, &member);
            const zf_tinfo *mt = offset == UINT32_MAX ? NULL : zf_d_type(d, member);
            if (mt == NULL || mt->size != part.t->size)
                s = zf_d_malformed(d, "constituent %u does not have its member's type", i);
        } else {
            const zf_tinfo *et = zf_d_type(d, res.t->elem);
            offset = et != NULL ? i * et->size : 0;
            if (et == NULL || et->size != part.t->size)
                s = zf_d_malformed(d, "constituent %u does not have the element type", i);
        }
        if (s != ZF_SPIRV_OK)
            return s;
        uint32_t *x = zf_d_aux_at(d, aux + 1 + 3 * i);
        x[0] = part.ref;
        x[1] = bytes;
        x[2] = offset;
    }
    if (res.t->cls == ZF_TC_VECTOR && components != res.t->comps)
        return zf_d_malformed(d, "OpCompositeConstruct gives %u of %u components", components, res.t->comps);
    zf_dinst *in = zf_d_emit(d, ZF_X_GATHER);
    if (in == NULL)
        return ZF_SPIRV_NO_MEMORY;
    in->dst = res.ref;
    in->size = res.t->size;
    in->aux = aux;
    return ZF_SPIRV_OK;
}

static zf_spirv_status zf_decode_select(zf_decoder *d, const uint32_t *w, uint32_t count) {
    zf_arg res, cond, x, y;
    zf_spirv_status s = zf_need(d, count, 6);
    if (s == ZF_SPIRV_OK && (s = zf_res(d, w, &res)) == ZF_SPIRV_OK && (s = zf_get(d, w[3], &cond)) == ZF_SPIRV_OK &&
        (s = zf_get(d, w[4], &x)) == ZF_SPIRV_OK)
        s = zf_get(d, w[5], &y);
    if (s != ZF_SPIRV_OK)
        return s;
    if (cond.t->etype != ZF_T_BOOL || x.t->size != res.t->size || y.t->size != res.t->size)
        return zf_d_malformed(d, "OpSelect with mismatched types");
    bool vector = cond.t->comps > 1;
    if (vector && (res.t->cls != ZF_TC_VECTOR || res.t->comps != cond.t->comps))
        return zf_d_malformed(d, "OpSelect's condition and objects have different component counts");
    zf_dinst *in = vector ? zf_emit_typed(d, ZF_X_SELECTV, &res) : zf_d_emit(d, ZF_X_SELECT);
    if (in == NULL)
        return ZF_SPIRV_NO_MEMORY;
    in->dst = res.ref;
    in->a = cond.ref;
    in->b = x.ref;
    in->c = y.ref;
    in->size = res.t->size;
    return ZF_SPIRV_OK;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Memory */

static const zf_tinfo *zf_pointee(zf_decoder *d, const zf_tinfo *pointer) {
    if (pointer->cls != ZF_TC_POINTER) {
        zf_d_malformed(d, "an operand that should be a pointer is not");
        return NULL;
    }
    return zf_d_type(d, pointer->elem);
}

static zf_spirv_status zf_decode_load(zf_decoder *d, const uint32_t *w, uint32_t count) {
    zf_arg res, p;
    zf_spirv_status s = zf_need(d, count, 4);
    if (s == ZF_SPIRV_OK && (s = zf_res(d, w, &res)) == ZF_SPIRV_OK)
        s = zf_get(d, w[3], &p);
    if (s != ZF_SPIRV_OK)
        return s;
    const zf_tinfo *pointee = zf_pointee(d, p.t);
    if (pointee == NULL)
        return ZF_SPIRV_MALFORMED;
    if (pointee->size != res.t->size || res.t->size == 0)
        return zf_d_malformed(d, "OpLoad's result type is not the pointee type");
    const zf_dval *pv = &d->vals[w[3]];
    if (pv->kind == ZF_V_BUILTIN) {
        /* Built-in values are registers of the wave area: a load is a copy. */
        const zf_dwave *entry = (const zf_dwave *)d->waves.items + pv->index;
        return zf_emit_mov(d, res.ref, ZF_REF_MAKE(ZF_AREA_WAVE, entry->offset), res.t->size);
    }
    zf_dinst *in = zf_d_emit(d, ZF_X_LOAD);
    if (in == NULL)
        return ZF_SPIRV_NO_MEMORY;
    in->dst = res.ref;
    in->a = p.ref;
    in->size = res.t->size;
    in->aux = count > 4 && (w[4] & ZF_MEM_VOLATILE) != 0 ? ZF_MEM_VOLATILE : 0;
    return ZF_SPIRV_OK;
}

static zf_spirv_status zf_decode_store(zf_decoder *d, const uint32_t *w, uint32_t count) {
    zf_arg p, v;
    zf_spirv_status s = zf_need(d, count, 3);
    if (s == ZF_SPIRV_OK && (s = zf_get(d, w[1], &p)) == ZF_SPIRV_OK)
        s = zf_get(d, w[2], &v);
    if (s != ZF_SPIRV_OK)
        return s;
    const zf_tinfo *pointee = zf_pointee(d, p.t);
    if (pointee == NULL)
        return ZF_SPIRV_MALFORMED;
    if (pointee->size != v.t->size || v.t->size == 0)
        return zf_d_malformed(d, "OpStore's object type is not the pointee type");
    bool zero = d->vals[w[2]].kind == ZF_V_CONST && d->vals[w[2]].null;
    zf_dinst *in = zf_d_emit(d, zero ? ZF_X_STOREZ : ZF_X_STORE);
    if (in == NULL)
        return ZF_SPIRV_NO_MEMORY;
    in->a = p.ref;
    in->b = zero ? ZF_REF_NONE : v.ref;
    in->size = v.t->size;
    in->aux = count > 3 && (w[3] & ZF_MEM_VOLATILE) != 0 ? ZF_MEM_VOLATILE : 0;
    return ZF_SPIRV_OK;
}

static zf_spirv_status zf_decode_copy_memory(zf_decoder *d, const uint32_t *w, uint32_t count) {
    bool sized = (w[0] & 0xFFFFu) == SpvOpCopyMemorySized;
    zf_arg dst, src, n = {ZF_REF_NONE, NULL};
    zf_spirv_status s = zf_need(d, count, sized ? 4 : 3);
    if (s == ZF_SPIRV_OK && (s = zf_get(d, w[1], &dst)) == ZF_SPIRV_OK && (s = zf_get(d, w[2], &src)) == ZF_SPIRV_OK &&
        sized)
        s = zf_get(d, w[3], &n);
    if (s != ZF_SPIRV_OK)
        return s;
    if (dst.t->cls != ZF_TC_POINTER || src.t->cls != ZF_TC_POINTER)
        return zf_d_malformed(d, "memory copy operands are not pointers");
    uint64_t size = 0;
    if (!sized) {
        const zf_tinfo *pointee = zf_pointee(d, dst.t);
        if (pointee == NULL)
            return ZF_SPIRV_MALFORMED;
        size = pointee->size;
    } else if (n.t->cls != ZF_TC_INT) {
        return zf_d_malformed(d, "OpCopyMemorySized's size is not an integer");
    } else if (!zf_d_const_int(d, w[3], &size) || d->vals[w[3]].kind != ZF_V_CONST) {
        size = UINT64_MAX; /* known at run time only */
    }
    if (size != UINT64_MAX && size > UINT32_MAX)
        return zf_d_fail(d, ZF_SPIRV_UNSUPPORTED, "a memory copy of %llu bytes", (unsigned long long)size);
    zf_dinst *in = zf_d_emit(d, size == UINT64_MAX ? ZF_X_COPYMEMN : ZF_X_COPYMEM);
    if (in == NULL)
        return ZF_SPIRV_NO_MEMORY;
    in->a = dst.ref;
    in->b = src.ref;
    if (size == UINT64_MAX) {
        in->c = n.ref;
        in->asize = n.t->size;
    } else {
        in->size = (uint32_t)size;
    }
    return ZF_SPIRV_OK;
}

/* Access chains: base + a constant part + dynamic index * stride terms. */
typedef struct zf_chain {
    int64_t constant;
    uint32_t terms;
    uint32_t aux; /* aux index of the term list being filled */
} zf_chain;

static zf_spirv_status zf_chain_index(zf_decoder *d, zf_chain *c, uint32_t index_id, uint64_t stride) {
    uint64_t value;
    if (d->vals[index_id].kind == ZF_V_CONST && zf_d_const_int(d, index_id, &value)) {
        const zf_tinfo *t = zf_d_type(d, d->vals[index_id].type);
        if (t == NULL)
            return zf_d_malformed(d, "an access chain index without a type");
        int64_t v = t->size == 4   ? (int64_t)(int32_t)value
                    : t->size == 2 ? (int64_t)(int16_t)value
                    : t->size == 1 ? (int64_t)(int8_t)value
                                   : (int64_t)value;
        c->constant = (int64_t)((uint64_t)c->constant + (uint64_t)v * stride); /* address arithmetic wraps */
        return ZF_SPIRV_OK;
    }
    zf_arg idx;
    zf_spirv_status s = zf_get(d, index_id, &idx);
    if (s != ZF_SPIRV_OK)
        return s;
    if (idx.t->cls != ZF_TC_INT)
        return zf_d_malformed(d, "an access chain index that is not an integer scalar");
    uint32_t *x = zf_d_aux_at(d, c->aux + 3 + 4 * c->terms++);
    x[0] = idx.ref;
    x[1] = idx.t->size;
    x[2] = (uint32_t)stride;
    x[3] = (uint32_t)(stride >> 32);
    return ZF_SPIRV_OK;
}

static zf_spirv_status zf_decode_access_chain(zf_decoder *d, const uint32_t *w, uint32_t count) {
    uint32_t opcode = w[0] & 0xFFFFu;
    bool ptr_chain = opcode == SpvOpPtrAccessChain || opcode == SpvOpInBoundsPtrAccessChain;
    zf_arg res, base;
    zf_spirv_status s = zf_need(d, count, ptr_chain ? 5 : 4);
    if (s == ZF_SPIRV_OK && (s = zf_res(d, w, &res)) == ZF_SPIRV_OK)
        s = zf_get(d, w[3], &base);
    if (s != ZF_SPIRV_OK)
        return s;
    if (res.t->cls != ZF_TC_POINTER || base.t->cls != ZF_TC_POINTER)
        return zf_d_malformed(d, "an access chain on something that is not a pointer");
    uint32_t n = count - 4;
    zf_chain c = {0, 0, zf_d_aux(d, 3 + 4 * n)};
    if (c.aux == UINT32_MAX)
        return ZF_SPIRV_NO_MEMORY;
    uint32_t type = base.t->elem;
    for (uint32_t i = 0; i < n && s == ZF_SPIRV_OK; i++) {
        uint32_t index_id = w[4 + i];
        const zf_tinfo *t = zf_d_type(d, type);
        if (t == NULL)
            return ZF_SPIRV_MALFORMED;
        if (index_id == 0 || index_id >= d->m->bound)
            return zf_d_malformed(d, "index id %u is outside the bound", index_id);
        if (ptr_chain && i == 0) {
            s = zf_chain_index(d, &c, index_id, t->size); /* the Element operand steps over whole pointees */
            continue;
        }
        if (t->cls == ZF_TC_STRUCT) {
            uint64_t member;
            if (!zf_d_const_int(d, index_id, &member) || member >= t->length)
                return zf_d_malformed(d, "a struct member index that is not a constant in range");
            uint32_t next, offset = zf_d_member_offset(d, type, (uint32_t)member, &next);
            if (offset == UINT32_MAX)
                return ZF_SPIRV_MALFORMED;
            c.constant += offset;
            type = next;
        } else if (t->cls == ZF_TC_ARRAY || t->cls == ZF_TC_VECTOR) {
            const zf_tinfo *et = zf_d_type(d, t->elem);
            if (et == NULL)
                return ZF_SPIRV_MALFORMED;
            s = zf_chain_index(d, &c, index_id, et->size);
            type = t->elem;
        } else {
            return zf_d_malformed(d, "an access chain index into a type that is not a composite");
        }
    }
    if (s != ZF_SPIRV_OK)
        return s;
    uint32_t *x = zf_d_aux_at(d, c.aux);
    x[0] = (uint32_t)(uint64_t)c.constant;
    x[1] = (uint32_t)((uint64_t)c.constant >> 32);
    x[2] = c.terms;
    if (c.terms == 0 && c.constant == 0)
        return zf_emit_mov(d, res.ref, base.ref, 8);
    zf_dinst *in = zf_d_emit(d, ZF_X_ACCESS);
    if (in == NULL)
        return ZF_SPIRV_NO_MEMORY;
    in->dst = res.ref;
    in->a = base.ref;
    in->aux = c.aux;
    in->size = 8;
    return ZF_SPIRV_OK;
}

static zf_spirv_status zf_decode_variable(zf_decoder *d, const uint32_t *w, uint32_t count) {
    zf_arg res;
    zf_spirv_status s = zf_need(d, count, 4);
    if (s == ZF_SPIRV_OK)
        s = zf_res(d, w, &res);
    if (s != ZF_SPIRV_OK)
        return s;
    if (w[3] != SpvStorageClassFunction)
        return zf_d_malformed(d, "a variable inside a function that is not of storage class Function");
    zf_dinst *in = zf_d_emit(d, ZF_X_VAR);
    if (in == NULL)
        return ZF_SPIRV_NO_MEMORY;
    in->dst = res.ref;
    in->aux = d->vals[w[2]].index; /* its private offset, assigned with the frame */
    in->size = 8;
    if (count < 5)
        return ZF_SPIRV_OK;
    const zf_tinfo *pointee = zf_pointee(d, res.t);
    zf_arg init;
    if (pointee == NULL || (s = zf_get(d, w[4], &init)) != ZF_SPIRV_OK)
        return pointee == NULL ? ZF_SPIRV_MALFORMED : s;
    if (init.t->size != pointee->size)
        return zf_d_malformed(d, "the initializer does not have the variable's type");
    bool zero = d->vals[w[4]].kind == ZF_V_CONST && d->vals[w[4]].null;
    in = zf_d_emit(d, zero ? ZF_X_STOREZ : ZF_X_STORE);
    if (in == NULL)
        return ZF_SPIRV_NO_MEMORY;
    in->a = res.ref;
    in->b = zero ? ZF_REF_NONE : init.ref;
    in->size = pointee->size;
    return ZF_SPIRV_OK;
}

static zf_spirv_status zf_decode_pointer_compare(zf_decoder *d, const uint32_t *w, uint32_t count) {
    uint32_t opcode = w[0] & 0xFFFFu;
    zf_arg res, a, b;
    zf_spirv_status s = zf_need(d, count, 5);
    if (s == ZF_SPIRV_OK && (s = zf_res(d, w, &res)) == ZF_SPIRV_OK && (s = zf_get(d, w[3], &a)) == ZF_SPIRV_OK)
        s = zf_get(d, w[4], &b);
    if (s != ZF_SPIRV_OK)
        return s;
    if (a.t->cls != ZF_TC_POINTER || b.t->cls != ZF_TC_POINTER)
        return zf_d_malformed(d, "pointer comparison of non-pointers");
    uint32_t stride = 1;
    if (opcode == SpvOpPtrDiff) {
        const zf_tinfo *pointee = zf_pointee(d, a.t);
        if (pointee == NULL || res.t->cls != ZF_TC_INT)
            return ZF_SPIRV_MALFORMED;
        stride = pointee->size ? pointee->size : 1;
    } else if (res.t->cls != ZF_TC_BOOL) {
        return zf_d_malformed(d, "pointer equality without a boolean result");
    }
    zf_dinst *in = zf_d_emit(d, opcode == SpvOpPtrEqual      ? ZF_X_IEQ
                                : opcode == SpvOpPtrNotEqual ? ZF_X_INE
                                                             : ZF_X_PTRDIFF);
    if (in == NULL)
        return ZF_SPIRV_NO_MEMORY;
    in->dst = res.ref;
    in->a = a.ref;
    in->b = b.ref;
    in->type = opcode == SpvOpPtrDiff ? res.t->etype : ZF_T_I64;
    in->size = res.t->size;
    in->aux = stride;
    return ZF_SPIRV_OK;
}

static zf_spirv_status zf_decode_mem_semantics(zf_decoder *d, const uint32_t *w, uint32_t count) {
    zf_arg res, p;
    zf_spirv_status s = zf_need(d, count, 4);
    if (s == ZF_SPIRV_OK && (s = zf_res(d, w, &res)) == ZF_SPIRV_OK)
        s = zf_get(d, w[3], &p);
    if (s != ZF_SPIRV_OK)
        return s;
    if (p.t->cls != ZF_TC_POINTER || res.t->size != 4)
        return zf_d_malformed(d, "OpGenericPtrMemSemantics needs a pointer and a 32-bit result");
    zf_dinst *in = zf_d_emit(d, ZF_X_GETFENCE);
    if (in == NULL)
        return ZF_SPIRV_NO_MEMORY;
    in->dst = res.ref;
    in->a = p.ref;
    in->size = 4;
    return ZF_SPIRV_OK;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Atomics and barriers */

typedef struct zf_atomic_form {
    uint16_t opcode;
    uint8_t kind;
    uint8_t value; /* word of the value operand, 0 when none */
    uint8_t comparator;
    uint8_t result; /* has a result */
    uint8_t pointer;
} zf_atomic_form;

static const zf_atomic_form zf_atomic_forms[] = {
    {SpvOpAtomicLoad, ZF_ATOM_LOAD, 0, 0, 1, 3},
    {SpvOpAtomicStore, ZF_ATOM_STORE, 4, 0, 0, 1},
    {SpvOpAtomicExchange, ZF_ATOM_XCHG, 6, 0, 1, 3},
    {SpvOpAtomicCompareExchange, ZF_ATOM_CMPXCHG, 7, 8, 1, 3},
    {SpvOpAtomicCompareExchangeWeak, ZF_ATOM_CMPXCHG, 7, 8, 1, 3},
    {SpvOpAtomicIIncrement, ZF_ATOM_INC, 0, 0, 1, 3},
    {SpvOpAtomicIDecrement, ZF_ATOM_DEC, 0, 0, 1, 3},
    {SpvOpAtomicIAdd, ZF_ATOM_ADD, 6, 0, 1, 3},
    {SpvOpAtomicISub, ZF_ATOM_SUB, 6, 0, 1, 3},
    {SpvOpAtomicSMin, ZF_ATOM_SMIN, 6, 0, 1, 3},
    {SpvOpAtomicUMin, ZF_ATOM_UMIN, 6, 0, 1, 3},
    {SpvOpAtomicSMax, ZF_ATOM_SMAX, 6, 0, 1, 3},
    {SpvOpAtomicUMax, ZF_ATOM_UMAX, 6, 0, 1, 3},
    {SpvOpAtomicAnd, ZF_ATOM_AND, 6, 0, 1, 3},
    {SpvOpAtomicOr, ZF_ATOM_OR, 6, 0, 1, 3},
    {SpvOpAtomicXor, ZF_ATOM_XOR, 6, 0, 1, 3},
    {SpvOpAtomicFlagTestAndSet, ZF_ATOM_FLAG_TAS, 0, 0, 1, 3},
    {SpvOpAtomicFlagClear, ZF_ATOM_FLAG_CLEAR, 0, 0, 0, 1},
    {SpvOpAtomicFAddEXT, ZF_ATOM_FADD, 6, 0, 1, 3},
    {SpvOpAtomicFMinEXT, ZF_ATOM_FMIN, 6, 0, 1, 3},
    {SpvOpAtomicFMaxEXT, ZF_ATOM_FMAX, 6, 0, 1, 3},
};

static zf_spirv_status zf_decode_atomic(zf_decoder *d, const zf_atomic_form *f, const uint32_t *w, uint32_t count) {
    uint32_t needed = f->comparator ? 9u : f->value ? f->value + 1u : f->pointer + 3u;
    zf_arg res = {ZF_REF_NONE, NULL}, p, v = {ZF_REF_NONE, NULL}, c = {ZF_REF_NONE, NULL};
    zf_spirv_status s = zf_need(d, count, needed);
    if (s == ZF_SPIRV_OK && f->result)
        s = zf_res(d, w, &res);
    if (s == ZF_SPIRV_OK)
        s = zf_get(d, w[f->pointer], &p);
    if (s == ZF_SPIRV_OK && f->value)
        s = zf_get(d, w[f->value], &v);
    if (s == ZF_SPIRV_OK && f->comparator)
        s = zf_get(d, w[f->comparator], &c);
    if (s != ZF_SPIRV_OK)
        return s;
    const zf_tinfo *pointee = zf_pointee(d, p.t);
    if (pointee == NULL)
        return ZF_SPIRV_MALFORMED;
    bool flag = f->kind == ZF_ATOM_FLAG_TAS || f->kind == ZF_ATOM_FLAG_CLEAR;
    bool floating = f->kind == ZF_ATOM_FADD || f->kind == ZF_ATOM_FMIN || f->kind == ZF_ATOM_FMAX;
    const zf_tinfo *t = flag ? pointee : f->result ? res.t : v.t;
    bool ok = t != NULL && (t->size == 4 || t->size == 8) && pointee->size == t->size && t->comps == 1 &&
              (flag || (floating ? zf_etype_is_float(t->etype)
                                 : (zf_etype_is_int(t->etype) || (f->kind <= ZF_ATOM_XCHG && t->cls == ZF_TC_FLOAT))));
    if (ok && f->value && v.t->size != t->size)
        ok = false;
    if (ok && f->comparator && c.t->size != t->size)
        ok = false;
    if (ok && flag && f->result && res.t->cls != ZF_TC_BOOL)
        ok = false;
    if (!ok)
        return zf_d_malformed(d, "atomic operand types do not fit (32- or 64-bit integers or floats)");
    zf_dinst *in = zf_d_emit(d, ZF_X_ATOMIC);
    if (in == NULL)
        return ZF_SPIRV_NO_MEMORY;
    in->dst = res.ref;
    in->a = p.ref;
    in->b = v.ref;
    in->c = c.ref;
    in->type = t->size == 4 ? (floating ? ZF_T_F32 : ZF_T_I32) : (floating ? ZF_T_F64 : ZF_T_I64);
    in->aux = f->kind;
    in->size = f->result ? res.t->size : 0;
    return ZF_SPIRV_OK;
}

static zf_spirv_status zf_decode_barrier(zf_decoder *d, uint32_t opcode, uint32_t count) {
    zf_spirv_status s = zf_need(d, count, opcode == SpvOpControlBarrier ? 4 : 3);
    if (s != ZF_SPIRV_OK)
        return s;
    return zf_d_emit(d, opcode == SpvOpControlBarrier ? ZF_X_BARRIER : ZF_X_FENCE) ? ZF_SPIRV_OK : ZF_SPIRV_NO_MEMORY;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Calls */

/* The ITT wrappers (docs/spirv-execution.md, "Annotations"): called by compiler-instrumented code, taken when the ITT
 * constant is set. */
static int zf_itt_kind(const char *name) {
    static const struct {
        const char *name;
        int kind;
    } wrappers[] = {
        {"__itt_offload_wi_start_wrapper", ZF_ITT_WI_START},
        {"__itt_offload_wi_finish_wrapper", ZF_ITT_WI_FINISH},
        {"__itt_offload_wg_barrier_wrapper", ZF_ITT_WG_BARRIER},
        {"__itt_offload_wi_resume_wrapper", ZF_ITT_WI_RESUME},
        {"__itt_offload_atomic_op_start", ZF_ITT_ATOMIC_START},
        {"__itt_offload_atomic_op_start_wrapper", ZF_ITT_ATOMIC_START},
        {"__itt_offload_atomic_op_finish", ZF_ITT_ATOMIC_FINISH},
        {"__itt_offload_atomic_op_finish_wrapper", ZF_ITT_ATOMIC_FINISH},
    };
    if (name == NULL)
        return -1;
    for (size_t i = 0; i < sizeof wrappers / sizeof wrappers[0]; i++)
        if (strcmp(wrappers[i].name, name) == 0)
            return wrappers[i].kind;
    return -1;
}

static zf_spirv_status zf_decode_itt(zf_decoder *d, int kind, const uint32_t *w, uint32_t count) {
    if (!(d->flags & ZF_PROG_ITT))
        return ZF_SPIRV_OK; /* annotations off: the call costs nothing, not even an instruction */
    zf_dinst *in = zf_d_emit(d, ZF_X_ITT);
    if (in == NULL)
        return ZF_SPIRV_NO_MEMORY;
    in->aux = (uint32_t)kind;
    if (kind != ZF_ITT_ATOMIC_START && kind != ZF_ITT_ATOMIC_FINISH)
        return ZF_SPIRV_OK;
    /* (void *object, __itt_atomic_mem_op_t op, __itt_atomic_mem_order_t order) */
    if (count < 7)
        return zf_d_malformed(d, "an ITT atomic annotation call without its three arguments");
    zf_spirv_status s = zf_d_operand_sized(d, w[4], 8, &in->a);
    zf_arg op, order;
    if (s == ZF_SPIRV_OK && (s = zf_get(d, w[5], &op)) == ZF_SPIRV_OK)
        s = zf_get(d, w[6], &order);
    if (s != ZF_SPIRV_OK)
        return s;
    in = (zf_dinst *)d->insts.items + (d->insts.count - 1);
    if (op.t->size != 4 || order.t->size != 4)
        return zf_d_malformed(d, "ITT atomic annotation arguments are not 32-bit");
    in->b = op.ref;
    in->c = order.ref;
    return ZF_SPIRV_OK;
}

/* Arguments as (ref, bytes) pairs in aux, checked against the callee's parameter sizes when known. */
static zf_spirv_status zf_call_args(zf_decoder *d, const uint32_t *args, uint32_t n, const zf_dparam *params,
                                    uint32_t aux) {
    for (uint32_t i = 0; i < n; i++) {
        zf_arg a;
        zf_spirv_status s = zf_get(d, args[i], &a);
        if (s != ZF_SPIRV_OK)
            return s;
        if (params != NULL && params[i].size != a.t->size)
            return zf_d_malformed(d, "argument %u has %u bytes, the parameter %u", i, a.t->size, params[i].size);
        uint32_t *x = zf_d_aux_at(d, aux + 2 * i);
        x[0] = a.ref;
        x[1] = a.t->size;
    }
    return ZF_SPIRV_OK;
}

static uint32_t zf_symbol_index(const zf_spirv_module *m, uint32_t id) {
    for (uint32_t i = 0; i < zf_spirv_symbol_count(m); i++)
        if (zf_spirv_symbol_at(m, i)->id == id)
            return i;
    return UINT32_MAX;
}

static zf_spirv_status zf_emit_callp(zf_decoder *d, zf_ref pointer, const zf_arg *res, const uint32_t *args,
                                     uint32_t n) {
    uint32_t aux = zf_d_aux(d, 1 + 2 * n);
    if (aux == UINT32_MAX)
        return ZF_SPIRV_NO_MEMORY;
    zf_d_aux_at(d, aux)[0] = n;
    zf_spirv_status s = zf_call_args(d, args, n, NULL, aux + 1);
    if (s != ZF_SPIRV_OK)
        return s;
    zf_dinst *in = zf_d_emit(d, ZF_X_CALLP);
    if (in == NULL)
        return ZF_SPIRV_NO_MEMORY;
    in->a = pointer;
    in->dst = res->ref;
    in->size = res->t->cls == ZF_TC_VOID ? 0 : res->t->size;
    in->aux = aux;
    return ZF_SPIRV_OK;
}

static zf_spirv_status zf_decode_call(zf_decoder *d, const uint32_t *w, uint32_t count) {
    zf_arg res;
    zf_spirv_status s = zf_need(d, count, 4);
    if (s == ZF_SPIRV_OK)
        s = zf_res(d, w, &res);
    if (s != ZF_SPIRV_OK)
        return s;
    uint32_t callee = w[3];
    uint32_t f = callee < d->m->bound ? d->func_of[callee] : 0;
    if (f == 0)
        return zf_d_malformed(d, "OpFunctionCall of %%%u, which is not a function", callee);
    const zf_dfunc *fn = (const zf_dfunc *)d->funcs.items + (f - 1);
    const char *name = fn->name != UINT32_MAX ? (const char *)d->strings.items + fn->name : NULL;
    int itt = zf_itt_kind(name);
    if (itt >= 0)
        return zf_decode_itt(d, itt, w, count);
    uint32_t n = count - 4;
    if (n != fn->param_count)
        return zf_d_malformed(d, "OpFunctionCall passes %u arguments to a function of %u parameters", n,
                              fn->param_count);
    if (!(fn->flags & ZF_FUNC_HAS_BODY)) {
        const zf_spirv_idinfo *info = &d->m->ids[callee];
        uint32_t symbol = zf_symbol_index(d->m, callee);
        if (info->linkage == 0 || symbol == UINT32_MAX ||
            zf_spirv_symbol_at(d->m, symbol)->linkage != ZF_SPIRV_LINK_IMPORT)
            return zf_d_fail(d, ZF_SPIRV_UNSUPPORTED, "a call of '%s', a function with neither a body nor an import",
                             name != NULL ? name : "?");
        zf_ref pointer; /* imported: its provider's function pointer, resolved when the module is linked */
        zf_dreloc *r = NULL;
        for (uint32_t i = 0; i < d->relocs.count && r == NULL; i++) {
            zf_dreloc *x = (zf_dreloc *)d->relocs.items + i;
            if (x->kind == ZF_RELOC_IMPORT && x->index == symbol)
                r = x;
        }
        if (r != NULL) {
            pointer = ZF_REF_MAKE(ZF_AREA_CONST, r->offset);
        } else {
            uint32_t offset = (d->const_bytes + 7) / 8 * 8;
            zf_dreloc *nr = zf_vec_push(&d->relocs, sizeof *nr);
            if (nr == NULL)
                return zf_d_no_memory(d);
            *nr = (zf_dreloc){offset, ZF_RELOC_IMPORT, symbol};
            d->const_bytes = offset + 8;
            pointer = ZF_REF_MAKE(ZF_AREA_CONST, offset);
        }
        return zf_emit_callp(d, pointer, &res, &w[4], n);
    }
    uint32_t aux = zf_d_aux(d, 2 + 2 * n);
    if (aux == UINT32_MAX)
        return ZF_SPIRV_NO_MEMORY;
    zf_d_aux_at(d, aux)[0] = f - 1;
    zf_d_aux_at(d, aux)[1] = n;
    const zf_dparam *params = (const zf_dparam *)d->params.items + fn->param_first;
    if ((s = zf_call_args(d, &w[4], n, params, aux + 2)) != ZF_SPIRV_OK)
        return s;
    zf_dinst *in = zf_d_emit(d, ZF_X_CALL);
    if (in == NULL)
        return ZF_SPIRV_NO_MEMORY;
    in->dst = res.ref;
    in->size = res.t->cls == ZF_TC_VOID ? 0 : res.t->size;
    in->aux = aux;
    return ZF_SPIRV_OK;
}

static zf_spirv_status zf_decode_pointer_call(zf_decoder *d, const uint32_t *w, uint32_t count) {
    zf_arg res, p;
    zf_spirv_status s = zf_need(d, count, 4);
    if (s == ZF_SPIRV_OK && (s = zf_res(d, w, &res)) == ZF_SPIRV_OK)
        s = zf_get(d, w[3], &p);
    if (s != ZF_SPIRV_OK)
        return s;
    if (p.t->size != 8)
        return zf_d_malformed(d, "a function pointer call through a value that is not a pointer");
    return zf_emit_callp(d, p.ref, &res, &w[4], count - 4);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Work-group and sub-group operations */

static zf_spirv_status zf_scope_of(zf_decoder *d, uint32_t id, uint32_t *scope) {
    uint64_t value;
    if (!zf_d_const_int(d, id, &value))
        return zf_d_malformed(d, "a scope that is not a constant");
    if (value != SpvScopeWorkgroup && value != SpvScopeSubgroup)
        return zf_d_fail(d, ZF_SPIRV_UNSUPPORTED, "group operations of scope %llu (only work-group and sub-group)",
                         (unsigned long long)value);
    *scope = (uint32_t)value;
    return ZF_SPIRV_OK;
}

static zf_spirv_status zf_decode_group(zf_decoder *d, const uint32_t *w, uint32_t count) {
    uint32_t opcode = w[0] & 0xFFFFu, scope, kind = opcode - SpvOpGroupAll, operation = SpvGroupOperationReduce;
    bool collective = opcode >= SpvOpGroupIAdd;
    zf_arg res, x, id = {ZF_REF_NONE, NULL};
    zf_spirv_status s = zf_need(d, count, collective || opcode == SpvOpGroupBroadcast ? 6 : 5);
    if (s == ZF_SPIRV_OK && (s = zf_res(d, w, &res)) == ZF_SPIRV_OK)
        s = zf_scope_of(d, w[3], &scope);
    if (s == ZF_SPIRV_OK)
        s = zf_get(d, w[collective ? 5 : 4], &x);
    if (s == ZF_SPIRV_OK && opcode == SpvOpGroupBroadcast)
        s = zf_get(d, w[5], &id);
    if (s != ZF_SPIRV_OK)
        return s;
    if (collective) {
        operation = w[4];
        if (operation > SpvGroupOperationExclusiveScan)
            return zf_d_fail(d, ZF_SPIRV_UNSUPPORTED, "group operation %u (reduce and scans only)", operation);
    }
    if (!zf_is_scalar_or_vector(x.t) || x.t->comps != 1 || res.t->size != x.t->size ||
        (opcode == SpvOpGroupBroadcast && (id.t->cls != ZF_TC_INT && id.t->cls != ZF_TC_VECTOR)))
        return zf_d_malformed(d, "group operation on a type that is not a scalar");
    zf_dinst *in = zf_emit_typed(d, ZF_X_GROUP, &res);
    if (in == NULL)
        return ZF_SPIRV_NO_MEMORY;
    in->a = x.ref;
    in->b = id.ref;
    in->type = x.t->etype;
    in->asize = id.t != NULL ? id.t->size : 0;
    in->aux = kind | (scope << 8) | (operation << 12);
    if (id.t != NULL) {
        in->comps = 1;
        in->aux |= (uint32_t)(id.t->comps) << 16; /* local id components */
        in->aux |= (uint32_t)(id.t->etype == ZF_T_I64) << 20;
    }
    return ZF_SPIRV_OK;
}

static zf_spirv_status zf_decode_async_copy(zf_decoder *d, const uint32_t *w, uint32_t count) {
    zf_arg res, dst, src, n, stride, event;
    zf_spirv_status s = zf_need(d, count, 9);
    uint32_t scope;
    if (s == ZF_SPIRV_OK && (s = zf_res(d, w, &res)) == ZF_SPIRV_OK && (s = zf_scope_of(d, w[3], &scope)) == 0 &&
        (s = zf_get(d, w[4], &dst)) == ZF_SPIRV_OK && (s = zf_get(d, w[5], &src)) == ZF_SPIRV_OK &&
        (s = zf_get(d, w[6], &n)) == ZF_SPIRV_OK && (s = zf_get(d, w[7], &stride)) == ZF_SPIRV_OK)
        s = zf_get(d, w[8], &event);
    if (s != ZF_SPIRV_OK)
        return s;
    const zf_tinfo *elem = dst.t->cls == ZF_TC_POINTER ? zf_pointee(d, dst.t) : NULL;
    if (elem == NULL || src.t->cls != ZF_TC_POINTER || n.t->cls != ZF_TC_INT || stride.t->cls != ZF_TC_INT ||
        res.t->size != 8)
        return zf_d_malformed(d, "OpGroupAsyncCopy operands have the wrong types");
    uint32_t aux = zf_d_aux(d, 6);
    if (aux == UINT32_MAX)
        return ZF_SPIRV_NO_MEMORY;
    uint32_t *x = zf_d_aux_at(d, aux);
    x[0] = dst.ref;
    x[1] = src.ref;
    x[2] = n.ref;
    x[3] = stride.ref;
    x[4] = n.t->size;
    x[5] = stride.t->size;
    zf_dinst *in = zf_d_emit(d, ZF_X_ASYNCCOPY);
    if (in == NULL)
        return ZF_SPIRV_NO_MEMORY;
    in->dst = res.ref;
    in->a = event.ref;
    in->size = elem->size;
    in->aux = aux;
    /* With the source's storage class, the copy knows which side is local (the direction of the copy). */
    in->comps = 1;
    in->type = scope == SpvScopeSubgroup ? 1 : 0;
    return ZF_SPIRV_OK;
}

static zf_spirv_status zf_decode_sg_shuffle(zf_decoder *d, const uint32_t *w, uint32_t count) {
    uint32_t opcode = w[0] & 0xFFFFu, kind = opcode - SpvOpSubgroupShuffleINTEL;
    bool two = kind == ZF_SG_SHUFFLE_DOWN || kind == ZF_SG_SHUFFLE_UP;
    zf_arg res, a, b, c = {ZF_REF_NONE, NULL};
    zf_spirv_status s = zf_need(d, count, two ? 6 : 5);
    if (s == ZF_SPIRV_OK && (s = zf_res(d, w, &res)) == ZF_SPIRV_OK && (s = zf_get(d, w[3], &a)) == ZF_SPIRV_OK)
        s = zf_get(d, w[4], &b);
    if (s == ZF_SPIRV_OK && two)
        s = zf_get(d, w[5], &c);
    if (s != ZF_SPIRV_OK)
        return s;
    zf_arg *index = two ? &c : &b;
    if (a.t->size != res.t->size || index->t->size != 4 || (two && b.t->size != res.t->size))
        return zf_d_malformed(d, "sub-group shuffle operands have the wrong types");
    zf_dinst *in = zf_d_emit(d, ZF_X_SGSHUFFLE);
    if (in == NULL)
        return ZF_SPIRV_NO_MEMORY;
    in->dst = res.ref;
    in->size = res.t->size;
    in->aux = kind;
    /* a: the value (the previous one for up), b: the index/delta, c: the second value (next for down, current for
     * up). */
    if (kind == ZF_SG_SHUFFLE_UP) {
        in->a = b.ref; /* current */
        in->c = a.ref; /* previous */
    } else {
        in->a = a.ref;
        in->c = two ? b.ref : ZF_REF_NONE;
    }
    in->b = index->ref;
    return ZF_SPIRV_OK;
}

/* The values of sub-group block reads and writes: what the intel_sub_group_block_* functions of OpenCL C have, a
 * scalar or a vector of 2, 4 or 8 integers of any width. */
static bool zf_block_shape(const zf_tinfo *t) {
    return (t->cls == ZF_TC_INT || t->cls == ZF_TC_VECTOR) && zf_etype_is_int(t->etype) &&
           (t->comps == 1 || t->comps == 2 || t->comps == 4 || t->comps == 8);
}

static zf_spirv_status zf_emit_block(zf_decoder *d, uint32_t op, const zf_arg *value, bool write, zf_ref target,
                                     zf_ref coord) {
    zf_dinst *in = zf_d_emit(d, op);
    if (in == NULL)
        return ZF_SPIRV_NO_MEMORY;
    in->dst = write ? ZF_REF_NONE : value->ref;
    in->a = target;
    in->type = value->t->etype;
    in->comps = value->t->comps;
    in->size = value->t->size;
    in->aux = write ? ZF_SGB_WRITE : ZF_SGB_READ;
    if (op == ZF_X_SGBLOCK) {
        in->b = write ? value->ref : ZF_REF_NONE;
    } else {
        in->b = coord;
        in->c = write ? value->ref : ZF_REF_NONE;
    }
    return ZF_SPIRV_OK;
}

/* OpSubgroupBlockReadINTEL (result type, result, pointer) and OpSubgroupBlockWriteINTEL (pointer, data). The
 * element width is the value's: the functions name it (_uc, _us, none, _ul), whatever the pointer's type says. */
static zf_spirv_status zf_decode_sg_block(zf_decoder *d, const uint32_t *w, uint32_t count) {
    uint32_t opcode = w[0] & 0xFFFFu;
    bool write = opcode == SpvOpSubgroupBlockWriteINTEL;
    zf_arg value, p;
    zf_spirv_status s = zf_need(d, count, write ? 3 : 4);
    if (s == ZF_SPIRV_OK)
        s = write ? zf_get(d, w[2], &value) : zf_res(d, w, &value);
    if (s == ZF_SPIRV_OK)
        s = zf_get(d, w[write ? 1 : 3], &p);
    if (s != ZF_SPIRV_OK)
        return s;
    if (p.t->cls != ZF_TC_POINTER)
        return zf_d_malformed(d, "a sub-group block access through a value that is not a pointer");
    if (!zf_block_shape(value.t))
        return zf_d_unsupported(d, opcode, "a block that is not 1, 2, 4 or 8 integers per work-item");
    return zf_emit_block(d, ZF_X_SGBLOCK, &value, write, p.ref, ZF_REF_NONE);
}

/* Whether a value is an image of a 2D, non-arrayed OpTypeImage: cl_intel_subgroups defines image block accesses on
 * image2d_t only. */
static bool zf_is_image_2d(zf_decoder *d, uint32_t id, const zf_tinfo *t) {
    const zf_spirv_idinfo *type = zf_spirv_id(d->m, d->vals[id].type);
    if (t->cls != ZF_TC_OPAQUE || t->size != 8 || type == NULL || type->opcode != SpvOpTypeImage)
        return false;
    const uint32_t *tw = &d->m->words[type->def];
    return tw[3] == SpvDim2D && tw[5] == 0; /* not Arrayed (the reader checked that the 9 words are there) */
}

/* OpSubgroupImageBlockReadINTEL (result type, result, image, coordinate) and OpSubgroupImageBlockWriteINTEL (image,
 * coordinate, data). */
static zf_spirv_status zf_decode_sg_image_block(zf_decoder *d, const uint32_t *w, uint32_t count) {
    uint32_t opcode = w[0] & 0xFFFFu, first = opcode == SpvOpSubgroupImageBlockWriteINTEL ? 1 : 3;
    bool write = first == 1;
    zf_arg value, image, coord;
    zf_spirv_status s = zf_need(d, count, write ? 4 : 5);
    if (s == ZF_SPIRV_OK)
        s = write ? zf_get(d, w[3], &value) : zf_res(d, w, &value);
    if (s == ZF_SPIRV_OK && (s = zf_get(d, w[first], &image)) == ZF_SPIRV_OK)
        s = zf_get(d, w[first + 1], &coord);
    if (s != ZF_SPIRV_OK)
        return s;
    if (!zf_is_image_2d(d, w[first], image.t))
        return zf_d_unsupported(d, opcode, "an image that is not a 2D image (image2d_t)");
    if (coord.t->cls != ZF_TC_VECTOR || coord.t->comps != 2 || coord.t->etype != ZF_T_I32)
        return zf_d_malformed(d, "a sub-group image block coordinate that is not an int2");
    if (!zf_block_shape(value.t))
        return zf_d_unsupported(d, opcode, "a block that is not 1, 2, 4 or 8 integers per work-item");
    return zf_emit_block(d, ZF_X_IMGBLOCK, &value, write, image.ref, coord.ref);
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

static zf_spirv_status zf_decode_copy_object(zf_decoder *d, const uint32_t *w, uint32_t count) {
    zf_arg res, a;
    zf_spirv_status s = zf_need(d, count, 4);
    if (s == ZF_SPIRV_OK && (s = zf_res(d, w, &res)) == ZF_SPIRV_OK)
        s = zf_get(d, w[3], &a);
    if (s != ZF_SPIRV_OK)
        return s;
    if (a.t->size != res.t->size)
        return zf_d_malformed(d, "OpCopyObject changes the size of its operand");
    return zf_emit_mov(d, res.ref, a.ref, res.t->size);
}

static zf_spirv_status zf_decode_memory_op(zf_decoder *d, uint32_t opcode, const uint32_t *w, uint32_t count) {
    switch (opcode) {
    case SpvOpLoad:
        return zf_decode_load(d, w, count);
    case SpvOpStore:
        return zf_decode_store(d, w, count);
    case SpvOpCopyMemory:
    case SpvOpCopyMemorySized:
        return zf_decode_copy_memory(d, w, count);
    case SpvOpVariable:
        return zf_decode_variable(d, w, count);
    case SpvOpGenericPtrMemSemantics:
        return zf_decode_mem_semantics(d, w, count);
    case SpvOpPtrEqual:
    case SpvOpPtrNotEqual:
    case SpvOpPtrDiff:
        return zf_decode_pointer_compare(d, w, count);
    default:
        return zf_decode_access_chain(d, w, count);
    }
}

static bool zf_is_memory_op(uint32_t opcode) {
    return opcode == SpvOpLoad || opcode == SpvOpStore || opcode == SpvOpCopyMemory || opcode == SpvOpCopyMemorySized ||
           opcode == SpvOpVariable || opcode == SpvOpGenericPtrMemSemantics || opcode == SpvOpAccessChain ||
           opcode == SpvOpInBoundsAccessChain || opcode == SpvOpPtrAccessChain ||
           opcode == SpvOpInBoundsPtrAccessChain || (opcode >= SpvOpPtrEqual && opcode <= SpvOpPtrDiff);
}

static zf_spirv_status zf_decode_composite_op(zf_decoder *d, uint32_t opcode, const uint32_t *w, uint32_t count) {
    switch (opcode) {
    case SpvOpVectorExtractDynamic:
    case SpvOpVectorInsertDynamic:
        return zf_decode_dynamic(d, w, count);
    case SpvOpVectorShuffle:
        return zf_decode_shuffle(d, w, count);
    case SpvOpCompositeConstruct:
        return zf_decode_construct(d, w, count);
    case SpvOpCompositeExtract:
        return zf_decode_extract(d, w, count);
    case SpvOpCompositeInsert:
        return zf_decode_insert(d, w, count);
    default:
        return zf_decode_copy_object(d, w, count);
    }
}

static zf_spirv_status zf_decode_conversion_op(zf_decoder *d, uint32_t opcode, const uint32_t *w, uint32_t count) {
    switch (opcode) {
    case SpvOpConvertPtrToU:
    case SpvOpConvertUToPtr:
    case SpvOpPtrCastToGeneric:
    case SpvOpGenericCastToPtr:
    case SpvOpGenericCastToPtrExplicit:
    case SpvOpBitcast:
        return zf_decode_pointer_cast(d, w, count);
    case SpvOpQuantizeToF16:
        return zf_d_unsupported(d, opcode, "OpQuantizeToF16 belongs to shaders");
    default:
        return zf_decode_convert(d, w, count);
    }
}

static zf_spirv_status zf_decode_other(zf_decoder *d, uint32_t opcode, const uint32_t *w, uint32_t count) {
    switch (opcode) {
    case SpvOpUndef:
        return zf_decode_undef(d, w, count);
    case SpvOpExtInst:
        return zf_d_ext_inst(d, w, count);
    case SpvOpFunctionCall:
        return zf_decode_call(d, w, count);
    case SpvOpFunctionPointerCallINTEL:
        return zf_decode_pointer_call(d, w, count);
    case SpvOpControlBarrier:
    case SpvOpMemoryBarrier:
        return zf_decode_barrier(d, opcode, count);
    case SpvOpSelect:
        return zf_decode_select(d, w, count);
    case SpvOpAny:
    case SpvOpAll:
        return zf_decode_any_all(d, w, count);
    case SpvOpVectorTimesScalar:
        return zf_decode_vector_times_scalar(d, w, count);
    case SpvOpDot:
        return zf_decode_dot(d, w, count);
    case SpvOpGroupAsyncCopy:
        return zf_decode_async_copy(d, w, count);
    case SpvOpGroupWaitEvents:
        return ZF_SPIRV_OK; /* copies complete when they are made */
    default:
        if (opcode >= SpvOpIAddCarry && opcode <= SpvOpSMulExtended)
            return zf_decode_extended(d, w, count);
        if (opcode >= SpvOpGroupAll && opcode <= SpvOpGroupSMax)
            return zf_decode_group(d, w, count);
        if (opcode >= SpvOpSubgroupShuffleINTEL && opcode <= SpvOpSubgroupShuffleXorINTEL)
            return zf_decode_sg_shuffle(d, w, count);
        if (opcode == SpvOpSubgroupBlockReadINTEL || opcode == SpvOpSubgroupBlockWriteINTEL)
            return zf_decode_sg_block(d, w, count);
        if (opcode == SpvOpSubgroupImageBlockReadINTEL || opcode == SpvOpSubgroupImageBlockWriteINTEL)
            return zf_decode_sg_image_block(d, w, count);
        if (zf_d_is_image_op(opcode))
            return zf_d_image(d, w, count);
        return zf_d_unsupported(d, opcode, NULL);
    }
}

zf_spirv_status zf_d_instruction(zf_decoder *d, uint32_t at) {
    const uint32_t *w = &d->m->words[at];
    uint32_t opcode = w[0] & 0xFFFFu, count = w[0] >> 16;
    d->word = at;
    const zf_simple *simple = zf_find_simple(opcode);
    if (simple != NULL)
        return zf_decode_simple(d, simple, w, count);
    for (size_t i = 0; i < sizeof zf_atomic_forms / sizeof zf_atomic_forms[0]; i++)
        if (zf_atomic_forms[i].opcode == opcode)
            return zf_decode_atomic(d, &zf_atomic_forms[i], w, count);
    if (zf_is_memory_op(opcode))
        return zf_decode_memory_op(d, opcode, w, count);
    if (opcode >= SpvOpVectorExtractDynamic && opcode <= SpvOpCopyObject)
        return zf_decode_composite_op(d, opcode, w, count);
    if (opcode >= SpvOpConvertFToU && opcode <= SpvOpBitcast)
        return zf_decode_conversion_op(d, opcode, w, count);
    return zf_decode_other(d, opcode, w, count);
}
