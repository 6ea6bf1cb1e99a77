/* The decoder, function level: the function table (with a refusal of recursion, which OpenCL forbids), each
 * function's frame (a slot for every parameter and result, assigned before any instruction is decoded because phis
 * refer forward), its blocks in execution order (spirv_cfg.c), phis turned into copies on the edges that reach
 * them, terminators, and the kernels' local-memory layouts. Also the wave-area entries of built-in and Workgroup
 * variables. */
#include "spirv_builtins.h"
#include "spirv_decode.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------------------------------------------------
 * Wave-area entries */

static zf_spirv_status zf_wave_entry(zf_decoder *d, uint32_t kind, uint32_t index, uint32_t type, uint32_t comps,
                                     uint32_t size, zf_ref *ref, uint32_t *entry) {
    uint32_t offset = (d->wave_bytes + 7) / 8 * 8;
    if (offset + (uint64_t)size > ZF_FORM_MAX_AREA_BYTES)
        return zf_d_fail(d, ZF_SPIRV_UNSUPPORTED, "too many built-in and local variables");
    zf_dwave *w = zf_vec_push(&d->waves, sizeof *w);
    if (w == NULL)
        return zf_d_no_memory(d);
    *w = (zf_dwave){offset, kind, index, (uint8_t)type, (uint8_t)comps, 0};
    d->wave_bytes = offset + size;
    *ref = ZF_REF_MAKE(ZF_AREA_WAVE, offset);
    if (entry != NULL)
        *entry = d->waves.count - 1;
    return ZF_SPIRV_OK;
}

/* The built-ins of the list (spirv_builtins.h): those both tiers compute. */
static bool zf_builtin_known(uint32_t builtin) {
    switch (builtin) {
#define ZF_BUILTIN_CASE(name, per_wave, value) case SpvBuiltIn##name:
        ZF_BUILTINS(ZF_BUILTIN_CASE, ZF_BUILTIN_CASE)
#undef ZF_BUILTIN_CASE
        return true;
    default:
        return false;
    }
}

zf_spirv_status zf_d_builtin_variable(zf_decoder *d, uint32_t id, uint32_t builtin, uint32_t pointee) {
    const zf_tinfo *t = zf_d_type(d, pointee);
    if (t == NULL)
        return ZF_SPIRV_MALFORMED;
    if (!zf_builtin_known(builtin))
        return zf_d_fail(d, ZF_SPIRV_UNSUPPORTED, "built-in variable %%%u: BuiltIn %u is not an OpenCL built-in", id,
                         builtin);
    bool integer = (t->cls == ZF_TC_INT || t->cls == ZF_TC_VECTOR) && zf_etype_is_int(t->etype);
    if (!integer || (t->etype != ZF_T_I32 && t->etype != ZF_T_I64) || t->comps > 3)
        return zf_d_fail(d, ZF_SPIRV_UNSUPPORTED, "built-in variable %%%u has a type the engine does not fill", id);
    zf_ref value_ref, pointer_ref;
    uint32_t entry;
    uint32_t size = zf_etype_size(t->etype) * zf_slot(t->comps);
    zf_spirv_status s = zf_wave_entry(d, ZF_WAVE_BUILTIN, builtin, t->etype, t->comps, size, &value_ref, &entry);
    if (s == ZF_SPIRV_OK)
        s = zf_wave_entry(d, ZF_WAVE_POINTER, entry, ZF_T_I64, 1, 8, &pointer_ref, NULL);
    if (s != ZF_SPIRV_OK)
        return s;
    zf_dval *v = &d->vals[id];
    v->kind = ZF_V_BUILTIN;
    v->ref = pointer_ref;
    v->index = entry;
    return ZF_SPIRV_OK;
}

zf_spirv_status zf_d_local_variable(zf_decoder *d, uint32_t id, uint32_t pointee) {
    const zf_tinfo *t = zf_d_type(d, pointee);
    if (t == NULL)
        return ZF_SPIRV_MALFORMED;
    zf_dlocal *local = zf_vec_push(&d->locals, sizeof *local);
    if (local == NULL)
        return zf_d_no_memory(d);
    local->size = t->size;
    local->align = t->align ? t->align : 1;
    zf_ref ref;
    zf_spirv_status s = zf_wave_entry(d, ZF_WAVE_LOCALVAR, d->locals.count - 1, ZF_T_I64, 1, 8, &ref, NULL);
    if (s != ZF_SPIRV_OK)
        return s;
    zf_dval *v = &d->vals[id];
    v->kind = ZF_V_LOCALVAR;
    v->ref = ref;
    v->index = d->locals.count - 1;
    return ZF_SPIRV_OK;
}

/* ------------------------------------------------------------------------------------------------------------------
 * The function table */

static const char *zf_function_name(const zf_spirv_module *m, uint32_t id) {
    const zf_spirv_idinfo *info = &m->ids[id];
    if (info->linkage != 0)
        return zf_spirv_string_at(m, info->linkage, 3);
    if (info->name != 0)
        return zf_spirv_string_at(m, info->name, 2);
    return NULL;
}

uint32_t zf_d_string(zf_decoder *d, const char *text) {
    if (text == NULL)
        return UINT32_MAX;
    uint32_t at = d->strings.count;
    for (size_t i = 0; i <= strlen(text); i++) {
        char *c = zf_vec_push(&d->strings, 1);
        if (c == NULL)
            return UINT32_MAX;
        *c = text[i];
    }
    return at;
}

/* OpenCL has no recursion; the engine's call stack relies on it (a depth-first walk of the call graph). The walk
 * also gives `order`, every function after those it calls: a call is decoded against its callee's parameters, and a
 * module may define the callee after the caller. */
static zf_spirv_status zf_order_calls(zf_decoder *d, uint32_t *order) {
    const zf_spirv_module *m = d->m;
    uint32_t n = m->functions.count;
    uint8_t *color = calloc(n ? n : 1, 1);
    uint32_t *stack = malloc((n ? n : 1) * sizeof *stack), *next = calloc(n ? n : 1, sizeof *next);
    zf_spirv_status s = color && stack && next ? ZF_SPIRV_OK : zf_d_no_memory(d);
    uint32_t done = 0;
    for (uint32_t root = 0; s == ZF_SPIRV_OK && root < n; root++) {
        if (color[root])
            continue;
        uint32_t top = 0;
        stack[top++] = root;
        color[root] = 1;
        while (top > 0 && s == ZF_SPIRV_OK) {
            uint32_t f = stack[top - 1];
            const zf_spirv_function *fn = ZF_SPIRV_AT(m->functions, zf_spirv_function, f);
            if (next[f] == fn->num_calls) {
                color[f] = 2;
                order[done++] = f;
                top--;
                continue;
            }
            uint32_t callee = m->ids[*ZF_SPIRV_AT(m->calls, uint32_t, fn->first_call + next[f]++)].index;
            if (color[callee] == 1) {
                d->word = fn->offset;
                s = zf_d_fail(d, ZF_SPIRV_UNSUPPORTED, "function %%%u is recursive (OpenCL forbids recursion)",
                              ZF_SPIRV_AT(m->functions, zf_spirv_function, callee)->id);
            } else if (color[callee] == 0) {
                color[callee] = 1;
                stack[top++] = callee;
            }
        }
    }
    free(color);
    free(stack);
    free(next);
    return s;
}

static zf_spirv_status zf_register_functions(zf_decoder *d, uint32_t *order) {
    const zf_spirv_module *m = d->m;
    for (uint32_t f = 0; f < m->functions.count; f++) {
        const zf_spirv_function *fn = ZF_SPIRV_AT(m->functions, zf_spirv_function, f);
        zf_dfunc *df = zf_vec_push(&d->funcs, sizeof *df);
        if (df == NULL)
            return zf_d_no_memory(d);
        df->spirv_id = fn->id;
        df->name = zf_d_string(d, zf_function_name(m, fn->id));
        df->flags = fn->body != 0 ? ZF_FUNC_HAS_BODY : 0;
        df->ret = ZF_REF_NONE;
        d->func_of[fn->id] = f + 1;
        d->vals[fn->id] = (zf_dval){.kind = ZF_V_FUNCTION, .ref = ZF_REF_NONE, .index = f};
    }
    return zf_order_calls(d, order);
}

/* ------------------------------------------------------------------------------------------------------------------
 * One function's body: its blocks in source order first */

typedef struct zf_src_block {
    uint32_t label;
    uint32_t offset;     /* OpLabel */
    uint32_t terminator; /* word offset */
    uint32_t first_succ; /* into succ */
    uint32_t num_succ;
} zf_src_block;

typedef struct zf_body {
    zf_src_block *blocks;
    uint32_t num_blocks;
    uint32_t *succ_first; /* CSR by source block */
    uint32_t *succ;
    uint32_t num_succ;
    uint32_t *order;      /* execution order: source block indices */
    uint32_t *exec_of;    /* source block -> execution index */
    uint32_t *phi_shadow; /* per source block: 1 when its phis go through shadows */
} zf_body;

static void zf_body_free(zf_body *b) {
    free(b->blocks);
    free(b->succ_first);
    free(b->succ);
    free(b->order);
    free(b->exec_of);
    free(b->phi_shadow);
    memset(b, 0, sizeof *b);
}

static bool zf_is_terminator(uint32_t opcode) {
    return opcode == SpvOpBranch || opcode == SpvOpBranchConditional || opcode == SpvOpSwitch ||
           opcode == SpvOpReturn || opcode == SpvOpReturnValue || opcode == SpvOpUnreachable || opcode == SpvOpKill;
}

/* Words per case literal of a switch: the selector's width (its value must be known: results are assigned first). */
static uint32_t zf_switch_literal_words(zf_decoder *d, uint32_t selector) {
    if (selector == 0 || selector >= d->m->bound || d->vals[selector].type == 0)
        return 1;
    const zf_tinfo *t = zf_d_type(d, d->vals[selector].type);
    return t != NULL && t->size > 4 ? 2 : 1;
}

/* The labels a terminator may branch to, in operand order (out holds the terminator's word count). */
static uint32_t zf_successors(zf_decoder *d, uint32_t at, uint32_t *out) {
    const uint32_t *w = &d->m->words[at];
    uint32_t opcode = w[0] & 0xFFFFu, count = w[0] >> 16, n = 0;
    if (opcode == SpvOpBranch && count >= 2)
        out[n++] = w[1];
    else if (opcode == SpvOpBranchConditional && count >= 4) {
        out[n++] = w[2];
        out[n++] = w[3];
    } else if (opcode == SpvOpSwitch && count >= 3) {
        out[n++] = w[2];
        uint32_t lit = zf_switch_literal_words(d, w[1]);
        for (uint32_t i = 3 + lit; i < count; i += lit + 1)
            out[n++] = w[i];
    }
    return n;
}

/* Counts blocks and successors, checking that each block ends in a terminator before the next label. */
static zf_spirv_status zf_scan_blocks(zf_decoder *d, const zf_spirv_function *fn, zf_body *b) {
    const zf_spirv_module *m = d->m;
    uint32_t blocks = 0, succs = 0;
    bool open = false;
    for (uint32_t at = fn->body; at < fn->end; at += zf_spirv_count_at(m, at)) {
        uint32_t opcode = zf_spirv_opcode_at(m, at);
        d->word = at;
        if (opcode == SpvOpLabel) {
            if (open)
                return zf_d_malformed(d, "a block ends without a terminator");
            open = true;
            blocks++;
        } else if (!open) {
            return zf_d_malformed(d, "an instruction after a terminator and outside any block");
        } else if (zf_is_terminator(opcode)) {
            open = false;
            succs += zf_spirv_count_at(m, at);
        }
    }
    if (open)
        return zf_d_malformed(d, "the function's last block has no terminator");
    b->blocks = calloc(blocks ? blocks : 1, sizeof *b->blocks);
    b->succ_first = calloc(blocks + 1, sizeof *b->succ_first);
    b->succ = calloc(succs ? succs : 1, sizeof *b->succ);
    b->order = calloc(blocks ? blocks : 1, sizeof *b->order);
    b->exec_of = calloc(blocks ? blocks : 1, sizeof *b->exec_of);
    b->phi_shadow = calloc(blocks ? blocks : 1, sizeof *b->phi_shadow);
    if (!b->blocks || !b->succ_first || !b->succ || !b->order || !b->exec_of || !b->phi_shadow)
        return zf_d_no_memory(d);
    b->num_blocks = blocks;
    return ZF_SPIRV_OK;
}

/* Labels map to source blocks through d->fn.label_to_block (index + 1), shared and cleared per function. */
static zf_spirv_status zf_index_blocks(zf_decoder *d, const zf_spirv_function *fn, zf_body *b) {
    const zf_spirv_module *m = d->m;
    uint32_t n = 0;
    for (uint32_t at = fn->body; at < fn->end; at += zf_spirv_count_at(m, at)) {
        uint32_t opcode = zf_spirv_opcode_at(m, at);
        d->word = at;
        if (opcode == SpvOpLabel) {
            uint32_t label = zf_spirv_count_at(m, at) >= 2 ? m->words[at + 1] : 0;
            if (label == 0 || label >= m->bound || d->fn.label_to_block[label] != 0 || d->vals[label].kind != 0)
                return zf_d_malformed(d, "label %u is out of the bound or defined twice", label);
            d->fn.label_to_block[label] = n + 1;
            b->blocks[n++] = (zf_src_block){.label = label, .offset = at};
        } else if (zf_is_terminator(opcode)) {
            b->blocks[n - 1].terminator = at;
        }
    }
    for (uint32_t i = 0; i < b->num_blocks; i++) {
        d->word = b->blocks[i].terminator;
        uint32_t *targets = &b->succ[b->num_succ]; /* room: succ has the terminators' word counts */
        uint32_t count = zf_successors(d, b->blocks[i].terminator, targets);
        b->succ_first[i] = b->num_succ;
        for (uint32_t s = 0; s < count; s++) {
            uint32_t label = targets[s];
            uint32_t t = label < m->bound ? d->fn.label_to_block[label] : 0;
            if (t == 0)
                return zf_d_malformed(d, "branch to %%%u, which is not a label of this function", label);
            b->succ[b->num_succ++] = t - 1;
        }
    }
    b->succ_first[b->num_blocks] = b->num_succ;
    return ZF_SPIRV_OK;
}

static bool zf_is_debug_ext(const zf_decoder *d, const uint32_t *w, uint32_t count) {
    return (w[0] & 0xFFFFu) == SpvOpExtInst && count >= 5 && w[3] < d->m->bound && d->vals[w[3]].kind == ZF_V_EXTSET &&
           d->vals[w[3]].index == ZF_EXTSET_DEBUG;
}

/* A frame slot for every result (and private memory for Function variables) before any instruction is decoded. */
static zf_spirv_status zf_assign_results(zf_decoder *d, const zf_spirv_function *fn) {
    const zf_spirv_module *m = d->m;
    for (uint32_t at = fn->body; at < fn->end; at += zf_spirv_count_at(m, at)) {
        const uint32_t *w = &m->words[at];
        uint32_t opcode = w[0] & 0xFFFFu, count = w[0] >> 16;
        d->word = at;
        if (opcode == SpvOpLabel || !zf_d_has_result(opcode, w, count))
            continue;
        if (count < 3)
            return zf_d_malformed(d, "an instruction too short for its result");
        if (zf_is_debug_ext(d, w, count)) {
            if (w[2] != 0 && w[2] < m->bound && d->vals[w[2]].kind == ZF_V_NONE)
                d->vals[w[2]].kind = ZF_V_DEBUG;
            continue;
        }
        zf_ref ref;
        zf_spirv_status s = zf_d_result(d, w[2], w[1], &ref);
        if (s != ZF_SPIRV_OK)
            return s;
        if (opcode == SpvOpVariable) {
            const zf_tinfo *pt = zf_d_type(d, w[1]);
            const zf_tinfo *t = pt != NULL && pt->cls == ZF_TC_POINTER ? zf_d_type(d, pt->elem) : NULL;
            if (t == NULL)
                return zf_d_malformed(d, "a variable whose type is not a pointer to a sized type");
            uint32_t align = t->align > 16 ? 16 : t->align ? t->align : 1;
            uint64_t offset = ((uint64_t)d->fn.private_bytes + align - 1) / align * align;
            if (offset + t->size > ZF_FORM_MAX_AREA_BYTES)
                return zf_d_fail(d, ZF_SPIRV_UNSUPPORTED, "more than %u bytes of private memory per work-item",
                                 ZF_FORM_MAX_AREA_BYTES);
            d->vals[w[2]].index = (uint32_t)offset;
            d->fn.private_bytes = (uint32_t)offset + t->size;
        }
    }
    return ZF_SPIRV_OK;
}

static zf_spirv_status zf_decode_params(zf_decoder *d, const zf_spirv_function *fn, zf_dfunc *df) {
    const zf_spirv_module *m = d->m;
    df->param_first = d->params.count;
    df->param_count = fn->num_params;
    for (uint32_t i = 0; i < fn->num_params; i++) {
        uint32_t id = *ZF_SPIRV_AT(m->params, uint32_t, fn->first_param + i);
        d->word = m->ids[id].def;
        zf_ref ref;
        zf_spirv_status s = zf_d_result(d, id, m->words[m->ids[id].def + 1], &ref);
        if (s != ZF_SPIRV_OK)
            return s;
        const zf_tinfo *t = zf_d_type(d, d->vals[id].type);
        zf_dparam *p = zf_vec_push(&d->params, sizeof *p);
        if (p == NULL)
            return zf_d_no_memory(d);
        *p = (zf_dparam){ref, t->size};
    }
    return ZF_SPIRV_OK;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Phis and edges */

/* Whether a phi of block b reads another phi of b on some edge: then all of b's phis go through shadow slots, so
 * that the copies of one edge behave as the parallel assignment phis are. */
static bool zf_phis_conflict(zf_decoder *d, const zf_src_block *blk) {
    const zf_spirv_module *m = d->m;
    uint32_t end = blk->terminator;
    for (uint32_t at = blk->offset + zf_spirv_count_at(m, blk->offset); at < end; at += zf_spirv_count_at(m, at)) {
        const uint32_t *w = &m->words[at];
        if ((w[0] & 0xFFFFu) != SpvOpPhi)
            continue;
        for (uint32_t i = 3; i + 1 < (w[0] >> 16); i += 2) {
            uint32_t src = w[i];
            if (src == w[2] || src >= m->bound || d->vals[src].kind != ZF_V_FRAME)
                continue;
            for (uint32_t at2 = blk->offset + zf_spirv_count_at(m, blk->offset); at2 < end;
                 at2 += zf_spirv_count_at(m, at2)) {
                const uint32_t *w2 = &m->words[at2];
                if ((w2[0] & 0xFFFFu) == SpvOpPhi && w2[2] == src)
                    return true;
            }
        }
    }
    return false;
}

static zf_spirv_status zf_push_copy(zf_decoder *d, zf_ref dst, zf_ref src, uint32_t size) {
    zf_dcopy *c = zf_vec_push(&d->copies, sizeof *c);
    if (c == NULL)
        return zf_d_no_memory(d);
    *c = (zf_dcopy){dst, src, size};
    return ZF_SPIRV_OK;
}

/* The shadow slot of a phi: kept in a per-id map while its function is decoded (aux of the value). */
static zf_ref zf_phi_target(zf_decoder *d, uint32_t phi, bool shadowed) {
    zf_dval *v = &d->vals[phi];
    if (!shadowed)
        return v->ref;
    return (zf_ref)v->index; /* set by zf_make_shadows */
}

static zf_spirv_status zf_make_shadows(zf_decoder *d, const zf_src_block *blk) {
    const zf_spirv_module *m = d->m;
    for (uint32_t at = blk->offset + zf_spirv_count_at(m, blk->offset); at < blk->terminator;
         at += zf_spirv_count_at(m, at)) {
        const uint32_t *w = &m->words[at];
        if ((w[0] & 0xFFFFu) != SpvOpPhi)
            continue;
        const zf_tinfo *t = zf_d_type(d, d->vals[w[2]].type);
        zf_ref shadow = zf_d_frame_slot(d, t->size, t->align);
        if (shadow == ZF_REF_NONE)
            return ZF_SPIRV_UNSUPPORTED;
        d->vals[w[2]].index = shadow;
    }
    return ZF_SPIRV_OK;
}

/* An edge from the block labelled `from` to source block `to`: the copies of to's phis for that predecessor. */
static zf_spirv_status zf_make_edge(zf_decoder *d, zf_body *b, uint32_t from, uint32_t to, uint32_t *edge) {
    const zf_spirv_module *m = d->m;
    const zf_src_block *target = &b->blocks[to];
    zf_dedge *e = zf_vec_push(&d->edges, sizeof *e);
    if (e == NULL)
        return zf_d_no_memory(d);
    *edge = d->edges.count - 1;
    e->target = b->exec_of[to];
    e->copy_first = d->copies.count;
    uint32_t copies = 0;
    for (uint32_t at = target->offset + zf_spirv_count_at(m, target->offset); at < target->terminator;
         at += zf_spirv_count_at(m, at)) {
        const uint32_t *w = &m->words[at];
        uint32_t count = w[0] >> 16;
        if ((w[0] & 0xFFFFu) != SpvOpPhi)
            continue;
        uint32_t value = 0;
        for (uint32_t i = 3; i + 1 < count && value == 0; i += 2)
            if (w[i + 1] == from)
                value = w[i];
        d->word = at;
        if (value == 0)
            return zf_d_malformed(d, "OpPhi %%%u has no value for predecessor %%%u", w[2], from);
        const zf_tinfo *t = zf_d_type(d, d->vals[w[2]].type);
        zf_ref src;
        zf_spirv_status s = zf_d_operand_sized(d, value, t->size, &src);
        if (s == ZF_SPIRV_OK)
            s = zf_push_copy(d, zf_phi_target(d, w[2], b->phi_shadow[to]), src, t->size);
        if (s != ZF_SPIRV_OK)
            return s;
        copies++;
    }
    e = (zf_dedge *)d->edges.items + *edge;
    e->copy_count = copies;
    return ZF_SPIRV_OK;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Terminators */

static zf_spirv_status zf_edge_to(zf_decoder *d, zf_body *b, const zf_src_block *blk, uint32_t label, uint32_t *edge) {
    uint32_t to = label < d->m->bound ? d->fn.label_to_block[label] : 0;
    if (to == 0)
        return zf_d_malformed(d, "branch to %%%u, which is not a label of this function", label);
    return zf_make_edge(d, b, blk->label, to - 1, edge);
}

static zf_spirv_status zf_decode_branch(zf_decoder *d, zf_body *b, const zf_src_block *blk, uint32_t label) {
    uint32_t edge;
    zf_spirv_status s = zf_edge_to(d, b, blk, label, &edge);
    d->word = blk->terminator;
    zf_dinst *in = s == ZF_SPIRV_OK ? zf_d_emit(d, ZF_X_BR) : NULL;
    if (s == ZF_SPIRV_OK && in == NULL)
        return ZF_SPIRV_NO_MEMORY;
    if (in != NULL)
        in->aux = edge;
    return s;
}

static zf_spirv_status zf_decode_conditional(zf_decoder *d, zf_body *b, const zf_src_block *blk, const uint32_t *w) {
    uint32_t cond = w[1];
    if (cond < d->m->bound && d->vals[cond].kind == ZF_V_CONST) {
        /* A constant condition (a specialization constant, such as the ITT switch) keeps only the taken edge. */
        uint8_t value = 0;
        const zf_tinfo *t = zf_d_type(d, d->vals[cond].type);
        if (t == NULL || t->cls != ZF_TC_BOOL)
            return zf_d_malformed(d, "the branch condition is not a boolean");
        zf_spirv_status s = zf_d_const_value(d, cond, &value, 1);
        return s != ZF_SPIRV_OK ? s : zf_decode_branch(d, b, blk, value ? w[2] : w[3]);
    }
    zf_ref ref;
    uint32_t t_edge, f_edge;
    zf_spirv_status s = zf_d_operand_sized(d, cond, 1, &ref);
    if (s == ZF_SPIRV_OK)
        s = zf_edge_to(d, b, blk, w[2], &t_edge);
    if (s == ZF_SPIRV_OK)
        s = zf_edge_to(d, b, blk, w[3], &f_edge);
    if (s != ZF_SPIRV_OK)
        return s;
    d->word = blk->terminator;
    zf_dinst *in = zf_d_emit(d, ZF_X_BRC);
    if (in == NULL)
        return ZF_SPIRV_NO_MEMORY;
    in->a = ref;
    in->aux = t_edge; /* f_edge is t_edge + 1: both made just now */
    (void)f_edge;
    return ZF_SPIRV_OK;
}

static zf_spirv_status zf_decode_switch(zf_decoder *d, zf_body *b, const zf_src_block *blk, const uint32_t *w,
                                        uint32_t count) {
    zf_ref sel;
    const zf_tinfo *t;
    zf_spirv_status s = zf_d_operand(d, w[1], &sel, &t);
    if (s != ZF_SPIRV_OK)
        return s;
    if (t->cls != ZF_TC_INT)
        return zf_d_malformed(d, "the switch selector is not an integer scalar");
    uint32_t lit = t->size > 4 ? 2 : 1, cases = (count - 3) / (lit + 1);
    if ((count - 3) % (lit + 1) != 0)
        return zf_d_malformed(d, "switch targets are not (literal, label) pairs of the selector's width");
    uint32_t aux = zf_d_aux(d, 2 + 3 * cases);
    if (aux == UINT32_MAX)
        return ZF_SPIRV_NO_MEMORY;
    uint32_t edge;
    if ((s = zf_edge_to(d, b, blk, w[2], &edge)) != ZF_SPIRV_OK)
        return s;
    zf_d_aux_at(d, aux)[0] = cases;
    zf_d_aux_at(d, aux)[1] = edge;
    for (uint32_t i = 0; i < cases; i++) {
        const uint32_t *c = &w[3 + i * (lit + 1)];
        if ((s = zf_edge_to(d, b, blk, c[lit], &edge)) != ZF_SPIRV_OK)
            return s;
        uint32_t *slot = zf_d_aux_at(d, aux + 2 + 3 * i);
        slot[0] = c[0];
        slot[1] = lit == 2 ? c[1] : 0;
        slot[2] = edge;
    }
    d->word = blk->terminator;
    zf_dinst *in = zf_d_emit(d, ZF_X_SWITCH);
    if (in == NULL)
        return ZF_SPIRV_NO_MEMORY;
    in->a = sel;
    in->type = t->etype;
    in->aux = aux;
    return ZF_SPIRV_OK;
}

static zf_spirv_status zf_decode_return(zf_decoder *d, const uint32_t *w, uint32_t count, zf_dfunc *df) {
    uint32_t opcode = w[0] & 0xFFFFu;
    if (opcode == SpvOpKill)
        return zf_d_unsupported(d, opcode, "OpKill belongs to fragment shaders");
    zf_dinst *in = zf_d_emit(d, opcode == SpvOpReturn        ? ZF_X_RET
                                : opcode == SpvOpReturnValue ? ZF_X_RETV
                                                             : ZF_X_UNREACHABLE);
    if (in == NULL)
        return ZF_SPIRV_NO_MEMORY;
    if (opcode == SpvOpReturn && df->ret != ZF_REF_NONE)
        return zf_d_malformed(d, "OpReturn in a function that returns a value");
    if (opcode != SpvOpReturnValue)
        return ZF_SPIRV_OK;
    if (count < 2 || df->ret == ZF_REF_NONE)
        return zf_d_malformed(d, "OpReturnValue in a function that returns nothing");
    in->size = df->ret_size;
    return zf_d_operand_sized(d, w[1], df->ret_size, &in->a);
}

static zf_spirv_status zf_decode_terminator(zf_decoder *d, zf_body *b, const zf_src_block *blk, zf_dfunc *df) {
    const uint32_t *w = &d->m->words[blk->terminator];
    uint32_t opcode = w[0] & 0xFFFFu, count = w[0] >> 16;
    d->word = blk->terminator;
    switch (opcode) {
    case SpvOpBranch:
        if (count < 2)
            return zf_d_malformed(d, "OpBranch without a target");
        return zf_decode_branch(d, b, blk, w[1]);
    case SpvOpBranchConditional:
        if (count < 4)
            return zf_d_malformed(d, "OpBranchConditional without two targets");
        return zf_decode_conditional(d, b, blk, w);
    case SpvOpSwitch:
        if (count < 3)
            return zf_d_malformed(d, "OpSwitch without a default");
        return zf_decode_switch(d, b, blk, w, count);
    default:
        return zf_decode_return(d, w, count, df);
    }
}

/* ------------------------------------------------------------------------------------------------------------------
 * Blocks */

static bool zf_skipped_in_body(uint32_t opcode) {
    return opcode == SpvOpPhi || opcode == SpvOpLine || opcode == SpvOpNoLine || opcode == SpvOpNop ||
           opcode == SpvOpLoopMerge || opcode == SpvOpSelectionMerge || opcode == SpvOpLifetimeStart ||
           opcode == SpvOpLifetimeStop;
}

/* A parameter decorated FuncParamAttr ByVal is a pointer to a struct the caller passes by value: the callee gets a
 * copy (the SPIR-V specification, FunctionParameterAttribute ByVal: "pointer to be passed by value"), so that its
 * changes stay local. Decoded at the start of the entry block (the first block in execution order): each such
 * parameter's pointee is copied into the function's private memory, and the parameter's uses read the copy. A
 * parameter also decorated NoWrite needs no copy (nothing writes through it), nor does a kernel's entry function,
 * whose by-value arguments are copies of the launch's already. */
static zf_spirv_status zf_byval_copy(zf_decoder *d, uint32_t id) {
    const zf_tinfo *pt = zf_d_type(d, d->vals[id].type);
    const zf_tinfo *t = pt != NULL && pt->cls == ZF_TC_POINTER ? zf_d_type(d, pt->elem) : NULL;
    if (t == NULL || t->size == 0)
        return ZF_SPIRV_OK; /* not a pointer to a sized type: nothing to copy */
    uint32_t align = t->align > 16 ? 16 : t->align ? t->align : 1;
    uint64_t offset = ((uint64_t)d->fn.private_bytes + align - 1) / align * align;
    if (offset + t->size > ZF_FORM_MAX_AREA_BYTES)
        return zf_d_fail(d, ZF_SPIRV_UNSUPPORTED, "more than %u bytes of private memory per work-item",
                         ZF_FORM_MAX_AREA_BYTES);
    d->fn.private_bytes = (uint32_t)offset + t->size;
    zf_ref copy = zf_d_frame_slot(d, 8, 8);
    if (copy == ZF_REF_NONE)
        return ZF_SPIRV_UNSUPPORTED;
    zf_dinst *in = zf_d_emit(d, ZF_X_VAR);
    if (in == NULL)
        return ZF_SPIRV_NO_MEMORY;
    in->dst = copy;
    in->aux = (uint32_t)offset;
    in->size = 8;
    in->asize = (uint32_t)t->size;
    in->b = id;
    in->c = zf_d_string(d, zf_spirv_id_name(d->m, id));
    if ((in = zf_d_emit(d, ZF_X_COPYMEM)) == NULL)
        return ZF_SPIRV_NO_MEMORY;
    in->a = copy;
    in->b = d->vals[id].ref;
    in->size = (uint32_t)t->size;
    d->vals[id].ref = copy;
    return ZF_SPIRV_OK;
}

static bool zf_is_entry_function(const zf_spirv_module *m, uint32_t id) {
    for (uint32_t i = 0; i < m->entries.count; i++)
        if (ZF_SPIRV_AT(m->entries, zf_spirv_entry, i)->function == id)
            return true;
    return false;
}

static zf_spirv_status zf_byval_copies(zf_decoder *d, const zf_spirv_function *fn) {
    const zf_spirv_module *m = d->m;
    zf_spirv_status s = ZF_SPIRV_OK;
    if (zf_is_entry_function(m, fn->id))
        return s;
    for (uint32_t i = 0; s == ZF_SPIRV_OK && i < fn->num_params; i++) {
        uint32_t id = *ZF_SPIRV_AT(m->params, uint32_t, fn->first_param + i);
        if ((m->ids[id].flags & (ZF_ID_BYVAL | ZF_ID_NOWRITE)) == ZF_ID_BYVAL)
            s = zf_byval_copy(d, id);
    }
    return s;
}

static zf_spirv_status zf_decode_block(zf_decoder *d, zf_body *b, uint32_t src, zf_dfunc *df,
                                       const zf_spirv_function *fn) {
    const zf_spirv_module *m = d->m;
    const zf_src_block *blk = &b->blocks[src];
    zf_dblock *db = zf_vec_push(&d->blocks, sizeof *db);
    if (db == NULL)
        return zf_d_no_memory(d);
    uint32_t index = d->blocks.count - 1;
    db->first = d->insts.count;
    db->commit_first = d->copies.count;
    if (b->phi_shadow[src]) {
        for (uint32_t at = blk->offset + zf_spirv_count_at(m, blk->offset); at < blk->terminator;
             at += zf_spirv_count_at(m, at)) {
            const uint32_t *w = &m->words[at];
            if ((w[0] & 0xFFFFu) != SpvOpPhi)
                continue;
            const zf_tinfo *t = zf_d_type(d, d->vals[w[2]].type);
            zf_spirv_status s = zf_push_copy(d, d->vals[w[2]].ref, (zf_ref)d->vals[w[2]].index, t->size);
            if (s != ZF_SPIRV_OK)
                return s;
        }
    }
    uint32_t commits = d->copies.count - ((zf_dblock *)d->blocks.items)[index].commit_first;
    if (src == 0) { /* the entry block, which execution order puts first */
        zf_spirv_status s = zf_byval_copies(d, fn);
        if (s != ZF_SPIRV_OK)
            return s;
    }
    for (uint32_t at = blk->offset + zf_spirv_count_at(m, blk->offset); at < blk->terminator;
         at += zf_spirv_count_at(m, at)) {
        uint32_t opcode = zf_spirv_opcode_at(m, at);
        d->word = at;
        if (zf_skipped_in_body(opcode))
            continue;
        zf_spirv_status s = zf_d_instruction(d, at);
        if (s != ZF_SPIRV_OK)
            return s;
    }
    zf_spirv_status s = zf_decode_terminator(d, b, blk, df);
    if (s != ZF_SPIRV_OK)
        return s;
    db = (zf_dblock *)d->blocks.items + index;
    db->commit_count = commits;
    db->count = d->insts.count - db->first;
    return ZF_SPIRV_OK;
}

static zf_spirv_status zf_phi_check(zf_decoder *d, const zf_body *b) {
    const zf_spirv_module *m = d->m;
    for (uint32_t i = 0; i < b->num_blocks; i++) {
        bool leading = true;
        const zf_src_block *blk = &b->blocks[i];
        for (uint32_t at = blk->offset + zf_spirv_count_at(m, blk->offset); at < blk->terminator;
             at += zf_spirv_count_at(m, at)) {
            uint32_t opcode = zf_spirv_opcode_at(m, at);
            d->word = at;
            if (opcode == SpvOpPhi && !leading)
                return zf_d_malformed(d, "OpPhi after other instructions of its block");
            if (opcode == SpvOpPhi && zf_spirv_count_at(m, at) < 5)
                return zf_d_malformed(d, "OpPhi without incoming values");
            /* Debug information may come first too: the legacy SPIRV.debug of llvm-spirv puts scopes before phis. */
            leading = leading && (opcode == SpvOpPhi || opcode == SpvOpLine || opcode == SpvOpNoLine ||
                                  zf_is_debug_ext(d, &m->words[at], zf_spirv_count_at(m, at)));
        }
    }
    return ZF_SPIRV_OK;
}

static zf_spirv_status zf_decode_body(zf_decoder *d, const zf_spirv_function *fn, zf_dfunc *df) {
    zf_body b = {0};
    zf_spirv_status s = zf_scan_blocks(d, fn, &b);
    if (s == ZF_SPIRV_OK)
        s = zf_assign_results(d, fn);
    if (s == ZF_SPIRV_OK)
        s = zf_index_blocks(d, fn, &b);
    if (s == ZF_SPIRV_OK)
        s = zf_phi_check(d, &b);
    if (s == ZF_SPIRV_OK && !zf_cfg_order(b.num_blocks, b.succ_first, b.succ, b.order))
        s = zf_d_no_memory(d);
    for (uint32_t i = 0; s == ZF_SPIRV_OK && i < b.num_blocks; i++)
        b.exec_of[b.order[i]] = i;
    for (uint32_t i = 0; s == ZF_SPIRV_OK && i < b.num_blocks; i++) {
        b.phi_shadow[i] = zf_phis_conflict(d, &b.blocks[i]);
        if (b.phi_shadow[i])
            s = zf_make_shadows(d, &b.blocks[i]);
    }
    df->block_first = d->blocks.count;
    df->block_count = b.num_blocks;
    for (uint32_t i = 0; s == ZF_SPIRV_OK && i < b.num_blocks; i++)
        s = zf_decode_block(d, &b, b.order[i], df, fn);
    for (uint32_t i = 0; i < b.num_blocks; i++)
        if (b.blocks[i].label < d->m->bound)
            d->fn.label_to_block[b.blocks[i].label] = 0;
    zf_body_free(&b);
    return s;
}

static zf_spirv_status zf_decode_function(zf_decoder *d, uint32_t f) {
    const zf_spirv_module *m = d->m;
    const zf_spirv_function *fn = ZF_SPIRV_AT(m->functions, zf_spirv_function, f);
    zf_dfunc *df = (zf_dfunc *)d->funcs.items + f;
    d->fn.index = f;
    d->fn.frame_bytes = 0;
    d->fn.private_bytes = 0;
    d->fn_id = fn->id;
    d->word = fn->offset;
    uint32_t ret_type = m->words[fn->offset + 1];
    const zf_tinfo *rt = zf_d_type(d, ret_type);
    if (rt == NULL)
        return ZF_SPIRV_MALFORMED;
    zf_spirv_status s = zf_decode_params(d, fn, df);
    df = (zf_dfunc *)d->funcs.items + f;
    df->frame_bytes = (d->fn.frame_bytes + 15) / 16 * 16; /* an import's parameters still have their slots */
    if (s != ZF_SPIRV_OK || fn->body == 0)
        return s;
    if (rt->cls != ZF_TC_VOID) {
        df = (zf_dfunc *)d->funcs.items + f;
        df->ret_size = rt->size;
        df->ret = zf_d_frame_slot(d, rt->size, rt->align);
        if (df->ret == ZF_REF_NONE)
            return ZF_SPIRV_UNSUPPORTED;
    }
    uint32_t first_inst = d->insts.count;
    zf_dfunc copy = *((zf_dfunc *)d->funcs.items + f);
    s = zf_decode_body(d, fn, &copy);
    df = (zf_dfunc *)d->funcs.items + f;
    df->block_first = copy.block_first;
    df->block_count = copy.block_count;
    df->frame_bytes = (d->fn.frame_bytes + 15) / 16 * 16;
    df->private_bytes = (d->fn.private_bytes + 15) / 16 * 16;
    df->instructions = d->insts.count - first_inst;
    d->fn_id = 0;
    return s;
}

zf_spirv_status zf_d_functions(zf_decoder *d) {
    uint32_t n = d->m->functions.count;
    uint32_t *order = malloc((n ? n : 1) * sizeof *order);
    zf_spirv_status s = order != NULL ? zf_register_functions(d, order) : zf_d_no_memory(d);
    d->fn.label_to_block = calloc(d->m->bound, sizeof *d->fn.label_to_block);
    if (s == ZF_SPIRV_OK && d->fn.label_to_block == NULL)
        s = zf_d_no_memory(d);
    for (uint32_t i = 0; s == ZF_SPIRV_OK && i < n; i++)
        s = zf_decode_function(d, order[i]);
    free(order);
    free(d->fn.label_to_block);
    d->fn.label_to_block = NULL;
    return s;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Kernels: entry functions and local-memory layouts, with the rule of spirv_layout.c's static_local_bytes (SPIR-V
 * 1.4 and later: the variables of the entry point's interface; before: every Workgroup variable of the module). */

static bool zf_in_interface(const zf_spirv_module *m, const zf_spirv_entry *e, uint32_t id) {
    for (uint32_t i = 0; i < e->interface_count; i++)
        if (m->words[e->interface_first + i] == id)
            return true;
    return false;
}

static zf_spirv_status zf_kernel_locals(zf_decoder *d, const zf_spirv_entry *e, zf_dkernel *k) {
    const zf_spirv_module *m = d->m;
    uint64_t at = 0;
    k->local_first = d->kernel_locals.count;
    for (uint32_t id = 1; id < m->bound; id++) {
        const zf_dval *v = &d->vals[id];
        if (v->kind != ZF_V_LOCALVAR || (m->version >= 0x00010400u && !zf_in_interface(m, e, id)))
            continue;
        const zf_dlocal *local = (const zf_dlocal *)d->locals.items + v->index;
        at = (at + local->align - 1) / local->align * local->align;
        zf_dkernel_local *kl = zf_vec_push(&d->kernel_locals, sizeof *kl);
        if (kl == NULL)
            return zf_d_no_memory(d);
        *kl = (zf_dkernel_local){v->index, (uint32_t)at};
        at += local->size;
        if (at > UINT32_MAX / 2)
            return zf_d_fail(d, ZF_SPIRV_UNSUPPORTED, "kernel '%s' needs too much local memory", e->name);
    }
    k->local_count = d->kernel_locals.count - k->local_first;
    k->static_local_bytes = (uint32_t)at;
    return ZF_SPIRV_OK;
}

zf_spirv_status zf_d_kernels(zf_decoder *d) {
    const zf_spirv_module *m = d->m;
    for (uint32_t i = 0; i < m->entries.count; i++) {
        const zf_spirv_entry *e = ZF_SPIRV_AT(m->entries, zf_spirv_entry, i);
        zf_dkernel *k = zf_vec_push(&d->kernels, sizeof *k);
        if (k == NULL)
            return zf_d_no_memory(d);
        k->function = d->func_of[e->function] - 1;
        k->itt_used = (d->flags & ZF_PROG_ITT) != 0;
        zf_spirv_status s = zf_kernel_locals(d, e, k);
        if (s != ZF_SPIRV_OK)
            return s;
    }
    return ZF_SPIRV_OK;
}
