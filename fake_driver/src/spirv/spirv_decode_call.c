/* The decoder's calls: OpFunctionCall (including the ITT annotation wrappers the device provides and calls of
 * imported functions) and calls through function pointers (SPV_INTEL_function_pointers). */
#include "spirv_decode_inst.h"

#include <stdlib.h>
#include <string.h>

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

zf_spirv_status zf_d_call(zf_decoder *d, const uint32_t *w, uint32_t count) {
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

zf_spirv_status zf_d_pointer_call(zf_decoder *d, const uint32_t *w, uint32_t count) {
    zf_arg res, p;
    zf_spirv_status s = zf_res_args(d, w, count, &res, &p, NULL);
    if (s != ZF_SPIRV_OK)
        return s;
    if (p.t->size != 8)
        return zf_d_malformed(d, "a function pointer call through a value that is not a pointer");
    return zf_emit_callp(d, p.ref, &res, &w[4], count - 4);
}
