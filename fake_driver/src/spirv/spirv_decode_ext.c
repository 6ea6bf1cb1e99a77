/* The decoder for OpExtInst: the OpenCL extended instruction set ("OpenCL.std") becomes ZF_X_EXT (element-wise
 * math, integer and common functions), ZF_X_EXTP (functions that also write through a pointer), ZF_X_EXTV
 * (geometric functions), vector loads and stores, shuffles and printf. Debug-information sets (OpenCL.DebugInfo.100,
 * DebugInfo, NonSemantic.*) decode to nothing; an instruction of any other set fails the build. A scalar operand given
 * to a function on vectors (fmax(float4, float)) is splatted into a vector first, so that every handler sees operands
 * of one shape. */
#include "spirv_decode.h"

#include <stdio.h>
#include <string.h>

/* OpenCL.std instruction numbers the decoder treats specially. */
enum {
    ZF_CL_FMA = 26,
    ZF_CL_FRACT = 30,
    ZF_CL_FREXP = 31,
    ZF_CL_ILOGB = 33,
    ZF_CL_LDEXP = 34,
    ZF_CL_LGAMMA_R = 36,
    ZF_CL_MODF = 45,
    ZF_CL_NAN = 46,
    ZF_CL_POWN = 49,
    ZF_CL_REMQUO = 52,
    ZF_CL_ROOTN = 54,
    ZF_CL_SINCOS = 58,
    ZF_CL_CROSS = 104,
    ZF_CL_FAST_NORMALIZE = 110,
    ZF_CL_S_ABS = 141,
    ZF_CL_U_UPSAMPLE = 164,
    ZF_CL_S_UPSAMPLE = 165,
    ZF_CL_VLOADN = 171,
    ZF_CL_VSTOREN = 172,
    ZF_CL_VLOAD_HALF = 173,
    ZF_CL_VLOAD_HALFN = 174,
    ZF_CL_VSTORE_HALF = 175,
    ZF_CL_VSTORE_HALF_R = 176,
    ZF_CL_VSTORE_HALFN = 177,
    ZF_CL_VSTORE_HALFN_R = 178,
    ZF_CL_VLOADA_HALFN = 179,
    ZF_CL_VSTOREA_HALFN = 180,
    ZF_CL_VSTOREA_HALFN_R = 181,
    ZF_CL_SHUFFLE = 182,
    ZF_CL_SHUFFLE2 = 183,
    ZF_CL_PRINTF = 184,
    ZF_CL_PREFETCH = 185,
    ZF_CL_BITSELECT = 186,
    ZF_CL_SELECT = 187,
    ZF_CL_U_ABS = 201,
};

uint32_t zf_elementwise_args(uint32_t n) {
    static const uint8_t math[95] = {
        1, 1, 1, 1, 1, 1, 1, 2, 1, 1, 2, 1, 1, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 1, 3, 2, 2, 2, 0, 0,
        2, 1, 2, 1, 0, 1, 1, 1, 1, 1, 3, 2, 2, 0, 1, 2, 2, 2, 2, 2, 0, 1, 2, 1, 1, 1, 0, 1, 1, 1, 1, 1,
        1, 1, 1, 1, 2, 1, 1, 1, 1, 1, 1, 2, 1, 1, 1, 1, 1, 1, 2, 1, 1, 1, 1, 1, 1, 2, 1, 1, 1, 1, 1,
    };
    if (n < 95)
        return math[n];
    if (n >= 95 && n <= 103) {
        static const uint8_t common[9] = {3, 1, 2, 2, 3, 1, 2, 3, 1};
        return common[n - 95];
    }
    if (n >= 141 && n <= 170) {
        static const uint8_t integer[30] = {1, 2, 2, 2, 2, 2, 2, 2, 3, 3, 1, 1, 3, 3, 3,
                                            2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 3, 3, 2, 2};
        return integer[n - 141];
    }
    if (n == ZF_CL_BITSELECT || n == ZF_CL_SELECT)
        return 3;
    if (n >= ZF_CL_U_ABS && n <= 204) {
        static const uint8_t more[4] = {1, 2, 2, 3};
        return more[n - ZF_CL_U_ABS];
    }
    return 0;
}

typedef struct zf_xarg_d {
    zf_ref ref;
    const zf_tinfo *t;
} zf_xarg_d;

static zf_spirv_status zf_ext_get(zf_decoder *d, uint32_t id, zf_xarg_d *out) {
    return zf_d_operand(d, id, &out->ref, &out->t);
}

/* A vector-shaped copy of a scalar operand when the result is a vector. */
static zf_spirv_status zf_ext_shape(zf_decoder *d, zf_xarg_d *arg, uint32_t comps) {
    if (arg->t->comps == comps || arg->t->comps != 1)
        return ZF_SPIRV_OK;
    uint32_t size = zf_etype_size(arg->t->etype) * zf_slot(comps);
    zf_ref out = zf_d_frame_slot(d, size, size > 16 ? 16 : size);
    if (out == ZF_REF_NONE)
        return ZF_SPIRV_UNSUPPORTED;
    zf_dinst *in = zf_d_emit(d, ZF_X_SPLAT);
    if (in == NULL)
        return ZF_SPIRV_NO_MEMORY;
    in->dst = out;
    in->a = arg->ref;
    in->type = arg->t->etype;
    in->comps = (uint8_t)comps;
    in->size = size;
    arg->ref = out;
    return ZF_SPIRV_OK;
}

/* Which element types an element-wise function accepts for its result and each operand. */
static bool zf_ext_types_ok(uint32_t n, const zf_tinfo *res, const zf_xarg_d *args, uint32_t count) {
    bool is_int = n >= ZF_CL_S_ABS;
    if (n == ZF_CL_BITSELECT)
        return args[0].t->etype == res->etype && args[1].t->etype == res->etype && args[2].t->etype == res->etype;
    if (n == ZF_CL_SELECT)
        return args[0].t->etype == res->etype && args[1].t->etype == res->etype && zf_etype_is_int(args[2].t->etype) &&
               zf_etype_size(args[2].t->etype) == zf_etype_size(res->etype);
    if (n == ZF_CL_U_UPSAMPLE || n == ZF_CL_S_UPSAMPLE)
        return zf_etype_is_int(res->etype) && args[0].t->etype + 1 == res->etype && args[1].t->etype + 1 == res->etype;
    if (n == ZF_CL_ILOGB)
        return res->etype == ZF_T_I32 && zf_etype_is_float(args[0].t->etype);
    if (n == ZF_CL_NAN)
        return zf_etype_is_float(res->etype) && zf_etype_size(args[0].t->etype) == zf_etype_size(res->etype);
    if (n == ZF_CL_LDEXP || n == ZF_CL_POWN || n == ZF_CL_ROOTN)
        return zf_etype_is_float(res->etype) && args[0].t->etype == res->etype && args[1].t->etype == ZF_T_I32;
    for (uint32_t i = 0; i < count; i++)
        if (args[i].t->etype != res->etype)
            return false;
    return is_int ? zf_etype_is_int(res->etype) : zf_etype_is_float(res->etype);
}

static zf_spirv_status zf_ext_elementwise(zf_decoder *d, uint32_t n, const uint32_t *w, uint32_t count,
                                          uint32_t nargs) {
    zf_ref res_ref;
    zf_spirv_status s = zf_d_result(d, w[2], w[1], &res_ref);
    const zf_tinfo *res = s == ZF_SPIRV_OK ? zf_d_type(d, w[1]) : NULL;
    if (res == NULL)
        return s != ZF_SPIRV_OK ? s : ZF_SPIRV_MALFORMED;
    if (count < 5 + nargs)
        return zf_d_malformed(d, "OpenCL.std %u needs %u operands", n, nargs);
    zf_xarg_d args[3];
    for (uint32_t i = 0; i < nargs; i++) {
        if ((s = zf_ext_get(d, w[5 + i], &args[i])) != ZF_SPIRV_OK)
            return s;
        if (args[i].t->cls != ZF_TC_INT && args[i].t->cls != ZF_TC_FLOAT && args[i].t->cls != ZF_TC_VECTOR)
            return zf_d_malformed(d, "an operand of OpenCL.std %u is not a scalar or vector", n);
        if ((args[i].t->comps != res->comps && args[i].t->comps != 1) ||
            (s = zf_ext_shape(d, &args[i], res->comps)) != ZF_SPIRV_OK)
            return s != ZF_SPIRV_OK ? s : zf_d_malformed(d, "operands of OpenCL.std %u have different shapes", n);
    }
    if ((res->cls != ZF_TC_INT && res->cls != ZF_TC_FLOAT && res->cls != ZF_TC_VECTOR) ||
        !zf_ext_types_ok(n, res, args, nargs))
        return zf_d_malformed(d, "operand or result types do not fit OpenCL.std %u", n);
    zf_dinst *in = zf_d_emit(d, ZF_X_EXT);
    if (in == NULL)
        return ZF_SPIRV_NO_MEMORY;
    in->dst = res_ref;
    in->type = res->etype;
    in->comps = res->comps;
    in->size = res->size;
    in->aux = n;
    zf_ref *refs[3] = {&in->a, &in->b, &in->c};
    for (uint32_t i = 0; i < nargs; i++) {
        *refs[i] = args[i].ref;
        in->asize |= (uint32_t)args[i].t->etype << (8 * i);
    }
    return ZF_SPIRV_OK;
}

/* fract, modf, sincos (value and pointer to the same type), frexp, lgamma_r (pointer to int), remquo (two values and
 * a pointer to int). */
static zf_spirv_status zf_ext_pointer(zf_decoder *d, uint32_t n, const uint32_t *w, uint32_t count) {
    uint32_t values = n == ZF_CL_REMQUO ? 2 : 1;
    zf_ref res_ref;
    zf_spirv_status s = zf_d_result(d, w[2], w[1], &res_ref);
    const zf_tinfo *res = s == ZF_SPIRV_OK ? zf_d_type(d, w[1]) : NULL;
    if (res == NULL)
        return s != ZF_SPIRV_OK ? s : ZF_SPIRV_MALFORMED;
    if (count < 6 + values)
        return zf_d_malformed(d, "OpenCL.std %u needs %u operands", n, values + 1);
    zf_xarg_d a, b = {ZF_REF_NONE, NULL}, p;
    if ((s = zf_ext_get(d, w[5], &a)) == ZF_SPIRV_OK && values == 2)
        s = zf_ext_get(d, w[6], &b);
    if (s == ZF_SPIRV_OK)
        s = zf_ext_get(d, w[5 + values], &p);
    if (s != ZF_SPIRV_OK)
        return s;
    const zf_tinfo *pointee = p.t->cls == ZF_TC_POINTER ? zf_d_type(d, p.t->elem) : NULL;
    bool int_out = n == ZF_CL_FREXP || n == ZF_CL_LGAMMA_R || n == ZF_CL_REMQUO;
    if (pointee == NULL || !zf_etype_is_float(res->etype) || a.t->etype != res->etype || a.t->comps != res->comps ||
        (values == 2 && b.t->size != a.t->size) || pointee->comps != res->comps ||
        (int_out ? pointee->etype != ZF_T_I32 : pointee->etype != res->etype))
        return zf_d_malformed(d, "operand types do not fit OpenCL.std %u", n);
    zf_dinst *in = zf_d_emit(d, ZF_X_EXTP);
    if (in == NULL)
        return ZF_SPIRV_NO_MEMORY;
    in->dst = res_ref;
    in->type = res->etype;
    in->comps = res->comps;
    in->size = res->size;
    in->aux = n;
    in->a = a.ref;
    in->b = b.ref;
    in->c = p.ref;
    in->asize = (uint32_t)a.t->etype | (values == 2 ? (uint32_t)b.t->etype << 8 : 0) | (uint32_t)pointee->etype << 16;
    return ZF_SPIRV_OK;
}

static zf_spirv_status zf_ext_geometric(zf_decoder *d, uint32_t n, const uint32_t *w, uint32_t count) {
    bool two = n == ZF_CL_CROSS || n == 105 || n == 108;
    zf_ref res_ref;
    zf_spirv_status s = zf_d_result(d, w[2], w[1], &res_ref);
    const zf_tinfo *res = s == ZF_SPIRV_OK ? zf_d_type(d, w[1]) : NULL;
    if (res == NULL)
        return s != ZF_SPIRV_OK ? s : ZF_SPIRV_MALFORMED;
    if (count < (two ? 7u : 6u))
        return zf_d_malformed(d, "OpenCL.std %u needs %u operands", n, two ? 2 : 1);
    zf_xarg_d a, b = {ZF_REF_NONE, NULL};
    if ((s = zf_ext_get(d, w[5], &a)) == ZF_SPIRV_OK && two)
        s = zf_ext_get(d, w[6], &b);
    if (s != ZF_SPIRV_OK)
        return s;
    bool vector_result = n == ZF_CL_CROSS || n == 107 || n == ZF_CL_FAST_NORMALIZE;
    if (!zf_etype_is_float(a.t->etype) || (two && b.t->size != a.t->size) || res->etype != a.t->etype ||
        (vector_result ? res->comps != a.t->comps : res->comps != 1) ||
        (n == ZF_CL_CROSS && a.t->comps != 3 && a.t->comps != 4))
        return zf_d_malformed(d, "operand types do not fit OpenCL.std %u", n);
    zf_dinst *in = zf_d_emit(d, ZF_X_EXTV);
    if (in == NULL)
        return ZF_SPIRV_NO_MEMORY;
    in->dst = res_ref;
    in->type = a.t->etype;
    in->comps = a.t->comps;
    in->size = res->size;
    in->aux = n;
    in->a = a.ref;
    in->b = b.ref;
    return ZF_SPIRV_OK;
}

/* vloadn / vload_half(n) / vloada_halfn (offset, pointer[, n]) and the matching stores (data, offset, pointer[,
 * rounding mode]). */
static zf_spirv_status zf_ext_vector_memory(zf_decoder *d, uint32_t n, const uint32_t *w, uint32_t count) {
    bool store = n == ZF_CL_VSTOREN || n == ZF_CL_VSTORE_HALF || n == ZF_CL_VSTORE_HALF_R || n == ZF_CL_VSTORE_HALFN ||
                 n == ZF_CL_VSTORE_HALFN_R || n == ZF_CL_VSTOREA_HALFN || n == ZF_CL_VSTOREA_HALFN_R;
    bool rounded = n == ZF_CL_VSTORE_HALF_R || n == ZF_CL_VSTORE_HALFN_R || n == ZF_CL_VSTOREA_HALFN_R;
    uint32_t kind = n == ZF_CL_VLOADN || n == ZF_CL_VSTOREN                                             ? ZF_VL_PLAIN
                    : n == ZF_CL_VLOADA_HALFN || n == ZF_CL_VSTOREA_HALFN || n == ZF_CL_VSTOREA_HALFN_R ? ZF_VL_HALF_A
                                                                                                        : ZF_VL_HALF;
    uint32_t first = 5 + (store ? 1 : 0);
    if (count < first + 2 + (rounded ? 1 : 0))
        return zf_d_malformed(d, "OpenCL.std %u has too few operands", n);
    zf_xarg_d data = {ZF_REF_NONE, NULL}, offset, pointer;
    zf_spirv_status s = store ? zf_ext_get(d, w[5], &data) : ZF_SPIRV_OK;
    if (s == ZF_SPIRV_OK && (s = zf_ext_get(d, w[first], &offset)) == ZF_SPIRV_OK)
        s = zf_ext_get(d, w[first + 1], &pointer);
    if (s != ZF_SPIRV_OK)
        return s;
    const zf_tinfo *pointee = pointer.t->cls == ZF_TC_POINTER ? zf_d_type(d, pointer.t->elem) : NULL;
    if (pointee == NULL || offset.t->cls != ZF_TC_INT || pointee->comps != 1)
        return zf_d_malformed(d, "OpenCL.std %u needs an integer offset and a pointer to scalars", n);
    uint32_t round = 0;
    if (rounded) {
        uint64_t mode;
        if (!zf_d_const_int(d, w[first + 2], &mode) && (mode = w[first + 2]) > 3)
            return zf_d_malformed(d, "a rounding mode out of range");
        round = (uint32_t)(mode & 3u) + 1;
    }
    zf_ref res_ref = ZF_REF_NONE;
    const zf_tinfo *shape = data.t;
    if (!store) {
        if ((s = zf_d_result(d, w[2], w[1], &res_ref)) != ZF_SPIRV_OK || (shape = zf_d_type(d, w[1])) == NULL)
            return s != ZF_SPIRV_OK ? s : ZF_SPIRV_MALFORMED;
    }
    bool half = kind != ZF_VL_PLAIN;
    if (shape == NULL ||
        (half ? !zf_etype_is_float(shape->etype) || pointee->etype != ZF_T_F16 : shape->etype != pointee->etype))
        return zf_d_malformed(d, "OpenCL.std %u: element types do not fit", n);
    zf_dinst *in = zf_d_emit(d, store ? ZF_X_VSTORE : ZF_X_VLOAD);
    if (in == NULL)
        return ZF_SPIRV_NO_MEMORY;
    in->type = shape->etype;
    in->comps = shape->comps;
    in->asize = offset.t->size;
    in->aux = kind | ((uint32_t)shape->comps << 8) | (round << 16);
    if (store) {
        in->a = data.ref;
        in->b = offset.ref;
        in->c = pointer.ref;
    } else {
        in->dst = res_ref;
        in->a = offset.ref;
        in->b = pointer.ref;
        in->size = shape->size;
    }
    return ZF_SPIRV_OK;
}

static zf_spirv_status zf_ext_shuffle(zf_decoder *d, uint32_t n, const uint32_t *w, uint32_t count) {
    bool two = n == ZF_CL_SHUFFLE2;
    zf_ref res_ref;
    zf_spirv_status s = zf_d_result(d, w[2], w[1], &res_ref);
    const zf_tinfo *res = s == ZF_SPIRV_OK ? zf_d_type(d, w[1]) : NULL;
    if (res == NULL)
        return s != ZF_SPIRV_OK ? s : ZF_SPIRV_MALFORMED;
    if (count < (two ? 8u : 7u))
        return zf_d_malformed(d, "shuffle needs its vectors and a mask");
    zf_xarg_d x, y = {ZF_REF_NONE, NULL}, mask;
    if ((s = zf_ext_get(d, w[5], &x)) == ZF_SPIRV_OK && two)
        s = zf_ext_get(d, w[6], &y);
    if (s == ZF_SPIRV_OK)
        s = zf_ext_get(d, w[two ? 7 : 6], &mask);
    if (s != ZF_SPIRV_OK)
        return s;
    if (x.t->cls != ZF_TC_VECTOR || x.t->etype != res->etype || (two && y.t->size != x.t->size) ||
        mask.t->comps != res->comps || !zf_etype_is_int(mask.t->etype) || res->cls != ZF_TC_VECTOR)
        return zf_d_malformed(d, "shuffle operands do not fit");
    zf_dinst *in = zf_d_emit(d, ZF_X_XSHUFFLE);
    if (in == NULL)
        return ZF_SPIRV_NO_MEMORY;
    in->dst = res_ref;
    in->type = res->etype;
    in->comps = res->comps;
    in->size = res->size;
    in->a = x.ref;
    in->b = y.ref;
    in->c = mask.ref;
    in->aux = x.t->comps | ((uint32_t)mask.t->etype << 8) | ((uint32_t)two << 16);
    return ZF_SPIRV_OK;
}

static zf_spirv_status zf_ext_printf(zf_decoder *d, const uint32_t *w, uint32_t count) {
    zf_ref res_ref;
    zf_spirv_status s = zf_d_result(d, w[2], w[1], &res_ref);
    const zf_tinfo *res = s == ZF_SPIRV_OK ? zf_d_type(d, w[1]) : NULL;
    if (res == NULL)
        return s != ZF_SPIRV_OK ? s : ZF_SPIRV_MALFORMED;
    if (count < 6 || res->size != 4)
        return zf_d_malformed(d, "printf needs a format and an int result");
    uint32_t nargs = count - 6;
    uint32_t aux = zf_d_aux(d, 2 + 4 * nargs);
    if (aux == UINT32_MAX)
        return ZF_SPIRV_NO_MEMORY;
    zf_xarg_d format;
    if ((s = zf_ext_get(d, w[5], &format)) != ZF_SPIRV_OK)
        return s;
    if (format.t->cls != ZF_TC_POINTER)
        return zf_d_malformed(d, "printf's format is not a pointer");
    zf_d_aux_at(d, aux)[0] = format.ref;
    zf_d_aux_at(d, aux)[1] = nargs;
    for (uint32_t i = 0; i < nargs; i++) {
        zf_xarg_d a;
        if ((s = zf_ext_get(d, w[6 + i], &a)) != ZF_SPIRV_OK)
            return s;
        uint32_t *x = zf_d_aux_at(d, aux + 2 + 4 * i);
        x[0] = a.ref;
        x[1] = a.t->cls == ZF_TC_POINTER ? ZF_T_I64 : a.t->etype;
        x[2] = a.t->cls == ZF_TC_POINTER ? 1 : a.t->comps;
        x[3] = a.t->size;
        if (a.t->cls == ZF_TC_STRUCT || a.t->cls == ZF_TC_ARRAY || x[1] == ZF_T_NONE)
            return zf_d_malformed(d, "printf argument %u is not a scalar, vector or pointer", i);
    }
    zf_dinst *in = zf_d_emit(d, ZF_X_PRINTF);
    if (in == NULL)
        return ZF_SPIRV_NO_MEMORY;
    in->dst = res_ref;
    in->size = 4;
    in->aux = aux;
    return ZF_SPIRV_OK;
}

static zf_spirv_status zf_ext_opencl(zf_decoder *d, uint32_t n, const uint32_t *w, uint32_t count) {
    if (n == ZF_CL_FRACT || n == ZF_CL_FREXP || n == ZF_CL_LGAMMA_R || n == ZF_CL_MODF || n == ZF_CL_REMQUO ||
        n == ZF_CL_SINCOS)
        return zf_ext_pointer(d, n, w, count);
    if (n >= ZF_CL_CROSS && n <= ZF_CL_FAST_NORMALIZE)
        return zf_ext_geometric(d, n, w, count);
    if (n >= ZF_CL_VLOADN && n <= ZF_CL_VSTOREA_HALFN_R)
        return zf_ext_vector_memory(d, n, w, count);
    if (n == ZF_CL_SHUFFLE || n == ZF_CL_SHUFFLE2)
        return zf_ext_shuffle(d, n, w, count);
    if (n == ZF_CL_PRINTF)
        return zf_ext_printf(d, w, count);
    if (n == ZF_CL_PREFETCH)
        return ZF_SPIRV_OK; /* a hint: memory is always where the kernel reads it */
    uint32_t args = zf_elementwise_args(n);
    if (args == 0) {
        char why[64];
        snprintf(why, sizeof why, "OpenCL.std instruction %u", n);
        return zf_d_unsupported(d, SpvOpExtInst, why);
    }
    return zf_ext_elementwise(d, n, w, count, args);
}

zf_spirv_status zf_d_ext_inst(zf_decoder *d, const uint32_t *w, uint32_t count) {
    if (count < 5)
        return zf_d_malformed(d, "OpExtInst with too few words");
    uint32_t set = w[3];
    if (set == 0 || set >= d->m->bound || d->vals[set].kind != ZF_V_EXTSET)
        return zf_d_malformed(d, "OpExtInst names %%%u, which is not an OpExtInstImport", set);
    if (d->vals[set].index == ZF_EXTSET_DEBUG)
        return ZF_SPIRV_OK; /* debug information: nothing to run */
    if (d->vals[set].index == ZF_EXTSET_OTHER) {
        char why[128];
        snprintf(why, sizeof why, "an instruction of the extended instruction set \"%.60s\"",
                 zf_spirv_string_at(d->m, d->m->ids[set].def, 2));
        return zf_d_unsupported(d, SpvOpExtInst, why);
    }
    return zf_ext_opencl(d, w[4], w, count);
}
