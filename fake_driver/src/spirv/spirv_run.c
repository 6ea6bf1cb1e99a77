/* Function invocations: the block scheduler, terminators, phi copies on edges, calls (direct, through function
 * pointers and to imports of other modules) and the stack their frames live on.
 *
 * Scheduling: after a block, if every live lane took the same edge the next block runs at once with the same lanes
 * (the common, uniform case costs no per-lane bookkeeping). Otherwise each lane's next block is recorded and the
 * lowest-numbered block with lanes runs next, with exactly those lanes. */
#include "spirv_run.h"

#include <inttypes.h>
#include <stdlib.h>
#include <time.h>

#define ZF_CHUNK_BYTES ((size_t)1 << 20)

/* ------------------------------------------------------------------------------------------------------------------
 * What runs, by class (the cost model's input, docs/cost-model.md): counted per block, once per form and thread, then
 * multiplied by the lanes that run each block. */

/* OpenCL.std functions of the math set (0..94) that are as cheap as ALU operations: rounding, sign, min and max,
 * multiply-adds, splitting and scaling of exponents. The rest of the set (exp, log, sin, pow, sqrt...) is math. */
static bool zf_math_is_cheap(uint32_t f) {
    static const uint8_t cheap[] = {12, 13, 23, 24, 25, 26, 27, 28, 30, 31, 33,
                                    34, 41, 42, 43, 44, 45, 46, 47, 53, 55, 66};
    for (size_t i = 0; i < sizeof cheap; i++)
        if (cheap[i] == f)
            return true;
    return false;
}

/* Adds one instruction's counts to a block's. */
static void zf_classify(const zf_dinst *in, uint32_t ops[ZF_OPS_COUNT]) {
    switch (in->op) {
    case ZF_X_LOAD:
    case ZF_X_STORE:
    case ZF_X_STOREZ:
    case ZF_X_COPYMEM:
    case ZF_X_COPYMEMN:
    case ZF_X_VLOAD:
    case ZF_X_VSTORE:
    case ZF_X_ASYNCCOPY:
    case ZF_X_SGBLOCK:
    case ZF_X_IMAGE:
    case ZF_X_IMGBLOCK:
        ops[ZF_OPS_MEMORY]++;
        return;
    case ZF_X_ATOMIC:
        ops[ZF_OPS_MEMORY]++;
        ops[ZF_OPS_ATOMIC]++;
        return;
    case ZF_X_BARRIER:
    case ZF_X_FENCE:
        ops[ZF_OPS_BARRIER]++;
        return;
    case ZF_X_EXT:
    case ZF_X_EXTP:
        ops[in->aux <= 94 && !zf_math_is_cheap(in->aux) ? ZF_OPS_MATH : ZF_OPS_ALU] += in->comps;
        return;
    case ZF_X_EXTV:
        ops[ZF_OPS_MATH] += in->comps;
        return;
    case ZF_X_NOP:
    case ZF_X_ITT:
        return;
    default:
        ops[ZF_OPS_ALU] += in->comps ? in->comps : 1;
        return;
    }
}

bool zf_form_derive(zf_dprog *code) {
    uint32_t(*table)[ZF_OPS_COUNT] = calloc(code->num_blocks ? code->num_blocks : 1, sizeof *table);
    if (table == NULL)
        return false;
    /* Only the blocks of functions: the validator checked their instructions, not those of blocks no function has. */
    for (uint32_t f = 0; f < code->num_funcs; f++) {
        const zf_dfunc *fn = &code->funcs[f];
        for (uint32_t b = fn->block_first; b < fn->block_first + fn->block_count; b++)
            for (uint32_t i = 0; i < code->blocks[b].count; i++)
                zf_classify(&code->insts[code->blocks[b].first + i], table[b]);
    }
    free(code->block_ops);
    code->block_ops = table;
    return true;
}

static void zf_count_block(zf_x *x, uint32_t block) {
    zf_ctx *ctx = x->ctx;
    const uint32_t *ops = x->code->block_ops[x->fn->block_first + block];
    for (int k = 0; k < ZF_OPS_COUNT; k++)
        ctx->work.ops[k] += (uint64_t)ops[k] * x->n;
}

/* ------------------------------------------------------------------------------------------------------------------
 * The stack */

static void *zf_stack_alloc(zf_ctx *ctx, size_t bytes) {
    bytes = (bytes + 63) & ~(size_t)63;
    if (ctx->num_chunks > 0) {
        zf_chunk *c = &ctx->chunks[ctx->top];
        if (c->size - c->used >= bytes) {
            void *p = c->base + c->used;
            c->used += bytes;
            return p;
        }
        /* Chunks above top are free since the last pop: reuse one that is big enough. */
        for (uint32_t i = ctx->top + 1; i < ctx->num_chunks; i++) {
            if (ctx->chunks[i].size >= bytes) {
                ctx->top = i;
                ctx->chunks[i].used = bytes;
                return ctx->chunks[i].base;
            }
        }
    }
    zf_chunk *chunks = realloc(ctx->chunks, (ctx->num_chunks + 1) * sizeof *chunks);
    if (chunks == NULL)
        return NULL;
    ctx->chunks = chunks;
    size_t size = bytes > ZF_CHUNK_BYTES ? bytes : ZF_CHUNK_BYTES;
    uint8_t *block = malloc(size + 64);
    if (block == NULL)
        return NULL;
    /* Not a region kernels may access: frames hold registers, and private memory is reached through slots. */
    uint8_t *base = (uint8_t *)(((uintptr_t)block + 63) & ~(uintptr_t)63);
    chunks[ctx->num_chunks] = (zf_chunk){block, base, size, bytes};
    ctx->top = ctx->num_chunks++;
    return base;
}

static zf_mark zf_stack_mark(const zf_ctx *ctx) {
    zf_mark m = {ctx->top, ctx->num_chunks > 0 ? ctx->chunks[ctx->top].used : 0, ctx->slots.count};
    return m;
}

uint32_t zf_slot_push(zf_ctx *ctx, const zf_pslot *slot) {
    zf_pslot *top = ctx->slots.count < ZF_PRIVATE_MAX_SLOTS ? zf_spirv_array_push(&ctx->slots, sizeof *top) : NULL;
    if (top == NULL)
        return UINT32_MAX;
    *top = *slot;
    return ctx->slots.count - 1;
}

static void zf_stack_pop(zf_ctx *ctx, zf_mark mark) {
    ctx->slots.count = mark.slots;
    if (ctx->num_chunks == 0)
        return;
    for (uint32_t i = mark.chunk + 1; i <= ctx->top && i < ctx->num_chunks; i++)
        ctx->chunks[i].used = 0;
    ctx->top = mark.chunk;
    ctx->chunks[ctx->top].used = mark.used;
}

void zf_stack_release(zf_ctx *ctx) {
    for (uint32_t i = 0; i < ctx->num_chunks; i++)
        free(ctx->chunks[i].block);
    free(ctx->chunks);
    ctx->chunks = NULL;
    ctx->num_chunks = ctx->top = 0;
    zf_spirv_array_free(&ctx->slots);
}

void zf_stack_reset(zf_ctx *ctx) {
    for (uint32_t i = 0; i < ctx->num_chunks; i++)
        ctx->chunks[i].used = 0;
    ctx->top = 0;
    ctx->slots.count = 0;
}

bool zf_invocation_begin(zf_ctx *ctx, zf_pctx *prog, const zf_dfunc *fn, const uint32_t *lanes, uint32_t n, zf_x *sub,
                         zf_mark *mark) {
    size_t L = ctx->L;
    /* Each part 64-byte aligned whatever sizes a loaded form declares: the lane arrays are read as uint32_t. */
    size_t frame = ((size_t)fn->frame_bytes * L + 63) & ~(size_t)63;
    size_t private_bytes = ((size_t)fn->private_bytes * L + 63) & ~(size_t)63;
    size_t arrays = 4 * L * sizeof(uint32_t);
    *mark = zf_stack_mark(ctx);
    uint8_t *block = zf_stack_alloc(ctx, frame + private_bytes + arrays);
    if (block == NULL)
        return false;
    memset(sub, 0, sizeof *sub);
    sub->ctx = ctx;
    sub->prog = prog;
    sub->code = prog->program.code;
    sub->fn = fn;
    sub->area[0] = block;
    sub->area[1] = prog->consts;
    sub->area[2] = ctx->wave;
    sub->L = ctx->L;
    sub->private_base = block + frame;
    uint32_t *u = (uint32_t *)(block + frame + private_bytes);
    sub->lanes = u;
    sub->members = u + L;
    sub->block_of = u + 2 * L;
    sub->scratch = u + 3 * L;
    memcpy(sub->members, lanes, n * sizeof *lanes);
    sub->num_members = n;
    return true;
}

void zf_invocation_end(zf_ctx *ctx, zf_mark mark) {
    zf_stack_pop(ctx, mark);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Scheduling */

void zf_drop_dead(zf_x *x) {
    uint32_t kept = 0;
    for (uint32_t k = 0; k < x->n; k++) {
        uint32_t l = x->lanes[k];
        if (x->ctx->dead[l]) {
            x->block_of[l] = ZF_LANE_DONE;
            x->live--;
        } else {
            x->lanes[kept++] = l;
        }
    }
    x->n = kept;
    x->full = false;
    x->killed = false;
}

uint64_t zf_spirv_now_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

bool zf_past_deadline(zf_ctx *ctx) {
    if (ctx->deadline_ns == 0)
        return false;
    if (!__atomic_load_n(ctx->stop, __ATOMIC_RELAXED)) {
        if (zf_spirv_now_ns() < ctx->deadline_ns)
            return false;
        __atomic_store_n(ctx->stop, 1, __ATOMIC_RELAXED);
    }
    ctx->hung = true;
    return true;
}

bool zf_hang_check(zf_x *x) {
    zf_ctx *ctx = x->ctx;
    ctx->hang_countdown = ZF_HANG_PERIOD;
    if (!zf_past_deadline(ctx))
        return false;
    uint64_t ms = ctx->launch->hang_timeout_ns / 1000000u;
    for (uint32_t k = 0; k < x->num_members; k++)
        if (x->block_of[x->members[k]] != ZF_LANE_DONE)
            zf_fault(x, x->members[k], "still running after %" PRIu64 " ms: stopped by the hang detector", ms);
    return true;
}

/* The lowest block with lanes waiting, and those lanes; false when every member is done. */
static bool zf_schedule(zf_x *x, uint32_t *block) {
    uint32_t best = ZF_LANE_DONE, live = 0;
    for (uint32_t k = 0; k < x->num_members; k++) {
        uint32_t b = x->block_of[x->members[k]];
        if (b == ZF_LANE_DONE)
            continue;
        live++;
        if (b < best)
            best = b;
    }
    x->live = live;
    if (live == 0)
        return false;
    uint32_t n = 0;
    for (uint32_t k = 0; k < x->num_members; k++) {
        uint32_t l = x->members[k];
        if (x->block_of[l] == best)
            x->lanes[n++] = l;
    }
    x->n = n;
    x->full = n == x->L; /* members are ascending: all L of them are lanes 0..L-1 in order */
    *block = best;
    return true;
}

static void zf_run_copies(zf_x *x, const zf_dcopy *copies, uint32_t count) {
    for (uint32_t i = 0; i < count; i++)
        zf_copy_lanes(x, zf_reg(x, copies[i].dst), zf_reg(x, copies[i].src), copies[i].size);
}

void zf_invoke(zf_x *x) {
    const zf_dprog *p = x->code;
    const zf_dblock *blocks = p->blocks + x->fn->block_first;
    for (uint32_t k = 0; k < x->num_members; k++) {
        x->lanes[k] = x->members[k];
        x->block_of[x->members[k]] = 0;
    }
    x->n = x->live = x->num_members;
    x->full = x->n == x->L;
    uint32_t current = 0;
    for (;;) {
        if (--x->ctx->hang_countdown == 0 && zf_hang_check(x))
            return;
        const zf_dblock *b = &blocks[current];
        zf_run_copies(x, p->copies + b->commit_first, b->commit_count);
        x->next = -1;
        x->ctx->lane_ops += (uint64_t)b->count * x->n;
        zf_count_block(x, current);
        const zf_dinst *in = p->insts + b->first, *end = in + b->count;
        for (; in < end; in++) {
            zf_handlers[in->op](x, in);
            if (x->killed) {
                zf_drop_dead(x);
                if (x->n == 0)
                    break;
            }
        }
        if (x->next >= 0 && x->n == x->live && x->n > 0) {
            current = (uint32_t)x->next;
            continue;
        }
        if (!zf_schedule(x, &current))
            return;
    }
}

/* ------------------------------------------------------------------------------------------------------------------
 * Terminators */

/* Copies of an edge for the lanes in `lanes` (n of them). */
static void zf_edge_lanes(zf_x *x, const zf_dedge *e, const uint32_t *lanes, uint32_t n) {
    const zf_dcopy *copies = x->code->copies + e->copy_first;
    for (uint32_t i = 0; i < e->copy_count; i++) {
        uint8_t *dst = zf_reg(x, copies[i].dst);
        const uint8_t *src = zf_reg(x, copies[i].src);
        size_t size = copies[i].size;
        for (uint32_t k = 0; k < n; k++)
            memmove(dst + lanes[k] * size, src + lanes[k] * size, size);
    }
    for (uint32_t k = 0; k < n; k++)
        x->block_of[lanes[k]] = e->target;
}

/* Every active lane takes edge `edge`. */
static void zf_take_edge(zf_x *x, uint32_t edge) {
    const zf_dedge *e = &x->code->edges[edge];
    zf_run_copies(x, x->code->copies + e->copy_first, e->copy_count);
    x->next = e->target;
    if (x->n != x->live) {
        for (uint32_t k = 0; k < x->n; k++)
            x->block_of[x->lanes[k]] = e->target;
    }
}

void zf_h_br(zf_x *x, const zf_dinst *in) {
    zf_take_edge(x, in->aux);
}

void zf_h_brc(zf_x *x, const zf_dinst *in) {
    const uint8_t *c = zf_reg(x, in->a);
    uint32_t taken = 0;
    ZF_LANES(x, taken += c[l] != 0);
    if (taken == x->n || taken == 0) {
        zf_take_edge(x, taken ? in->aux : in->aux + 1);
        return;
    }
    uint32_t *t = x->scratch, nt = 0, nf = 0;
    uint32_t *f = x->scratch + taken;
    ZF_LANES(x, if (c[l]) t[nt++] = l; else f[nf++] = l);
    zf_edge_lanes(x, &x->code->edges[in->aux], t, nt);
    zf_edge_lanes(x, &x->code->edges[in->aux + 1], f, nf);
}

static uint64_t zf_int_at(const uint8_t *p, uint32_t bytes) {
    switch (bytes) {
    case 1:
        return *p;
    case 2: {
        uint16_t v;
        memcpy(&v, p, 2);
        return v;
    }
    case 4: {
        uint32_t v;
        memcpy(&v, p, 4);
        return v;
    }
    default: {
        uint64_t v;
        memcpy(&v, p, 8);
        return v;
    }
    }
}

static uint32_t zf_switch_edge(const zf_dprog *p, const zf_dinst *in, uint64_t value) {
    const uint32_t *aux = p->aux + in->aux;
    uint32_t n = aux[0];
    for (uint32_t i = 0; i < n; i++) {
        const uint32_t *c = aux + 2 + 3 * i;
        uint64_t literal = (uint64_t)c[1] << 32 | c[0];
        uint32_t bytes = zf_etype_size(in->type);
        if (bytes < 8)
            literal &= (1ull << (8 * bytes)) - 1;
        if (literal == value)
            return c[2];
    }
    return aux[1];
}

void zf_h_switch(zf_x *x, const zf_dinst *in) {
    const uint8_t *sel = zf_reg(x, in->a);
    uint32_t bytes = zf_etype_size(in->type);
    uint32_t *edges = x->scratch, first = UINT32_MAX;
    bool uniform = true;
    ZF_LANES(x, {
        edges[l] = zf_switch_edge(x->code, in, zf_int_at(sel + (size_t)l * bytes, bytes));
        if (first == UINT32_MAX)
            first = edges[l];
        uniform = uniform && edges[l] == first;
    });
    if (uniform) {
        zf_take_edge(x, first);
        return;
    }
    for (uint32_t k = 0; k < x->n; k++) {
        uint32_t l = x->lanes[k];
        zf_edge_lanes(x, &x->code->edges[edges[l]], &l, 1);
    }
}

void zf_h_ret(zf_x *x, const zf_dinst *in) {
    (void)in;
    ZF_LANES(x, x->block_of[l] = ZF_LANE_DONE);
    x->live -= x->n;
    x->n = 0;
    x->next = -1;
}

void zf_h_retv(zf_x *x, const zf_dinst *in) {
    zf_copy_lanes(x, zf_reg(x, x->fn->ret), zf_reg(x, in->a), in->size);
    zf_h_ret(x, in);
}

void zf_h_unreachable(zf_x *x, const zf_dinst *in) {
    (void)in;
    ZF_LANES(x, zf_fault(x, l, "reached OpUnreachable"));
}

void zf_h_trap(zf_x *x, const zf_dinst *in) {
    char buf[24];
    const char *name = zf_spirv_opcode_name(in->aux & 0xFFFFu, buf, sizeof buf);
    uint32_t word = x->code->inst_words != NULL ? x->code->inst_words[in - x->code->insts] : 0;
    ZF_LANES(x, zf_fault(x, l,
                         "SPIR-V word %u (%s): %s on a %u-bit integer is not supported by the execution engine "
                         "(SPV_INTEL_arbitrary_precision_integers)",
                         word, name, name, in->aux >> 16));
}

/* ------------------------------------------------------------------------------------------------------------------
 * Calls */

/* Copies the arguments (aux: (ref, bytes) pairs) into the callee's parameters for the lanes of `sub`. */
static void zf_pass_args(zf_x *x, zf_x *sub, const uint32_t *args, uint32_t n) {
    const zf_dparam *params = sub->code->params + sub->fn->param_first;
    for (uint32_t i = 0; i < n; i++) {
        uint8_t *dst = zf_reg(sub, params[i].ref);
        const uint8_t *src = zf_reg(x, args[2 * i]);
        size_t size = args[2 * i + 1];
        if (sub->num_members == sub->L) { /* every lane calls: the whole register */
            memcpy(dst, src, size * sub->L);
            continue;
        }
        for (uint32_t k = 0; k < sub->num_members; k++) {
            size_t l = sub->members[k];
            if (size == 8)
                memcpy(dst + l * 8, src + l * 8, 8); /* constant sizes: one move each */
            else if (size == 4)
                memcpy(dst + l * 4, src + l * 4, 4);
            else
                memcpy(dst + l * size, src + l * size, size);
        }
    }
}

/* Runs `fn` of `prog` for the given lanes of x and copies its result into dst. */
static void zf_call_function(zf_x *x, zf_pctx *prog, const zf_dfunc *fn, const uint32_t *lanes, uint32_t n,
                             const uint32_t *args, zf_ref dst, uint32_t ret_size) {
    zf_ctx *ctx = x->ctx;
    if (ctx->depth >= ZF_MAX_CALL_DEPTH) {
        for (uint32_t k = 0; k < n; k++)
            zf_fault(x, lanes[k], "calls nested deeper than %u", ZF_MAX_CALL_DEPTH);
        return;
    }
    zf_x sub;
    zf_mark mark;
    if (!zf_invocation_begin(ctx, prog, fn, lanes, n, &sub, &mark)) {
        for (uint32_t k = 0; k < n; k++)
            zf_fault(x, lanes[k], "out of host memory for a call's frame");
        return;
    }
    zf_pass_args(x, &sub, args, fn->param_count);
    ctx->depth++;
    zf_invoke(&sub);
    ctx->depth--;
    if (ret_size > 0 && dst != ZF_REF_NONE) {
        uint8_t *to = zf_reg(x, dst);
        const uint8_t *from = zf_reg(&sub, fn->ret);
        for (uint32_t k = 0; k < n; k++)
            memcpy(to + (size_t)lanes[k] * ret_size, from + (size_t)lanes[k] * ret_size, ret_size);
    }
    zf_invocation_end(ctx, mark);
    for (uint32_t k = 0; k < n; k++)
        if (ctx->dead[lanes[k]])
            x->killed = true;
}

void zf_h_call(zf_x *x, const zf_dinst *in) {
    const uint32_t *aux = x->code->aux + in->aux;
    const zf_dfunc *fn = &x->code->funcs[aux[0]];
    zf_call_function(x, x->prog, fn, x->lanes, x->n, aux + 2, in->dst, in->size);
}

/* The program and function a function pointer names, cached per thread. */
static bool zf_resolve(zf_x *x, uint64_t address, zf_pctx **prog, uint32_t *function) {
    zf_ctx *ctx = x->ctx;
    for (uint32_t i = 0; i < ctx->num_resolved; i++) {
        if (ctx->resolved[i].address == address) {
            *prog = ctx->resolved[i].program;
            *function = ctx->resolved[i].function;
            return *prog != NULL;
        }
    }
    zf_xprogram program;
    uint32_t f = 0;
    zf_pctx *pc = NULL;
    if (address != 0 && ctx->env->resolve_function != NULL &&
        ctx->env->resolve_function(ctx->env->user, address, &program, &f) && f < program.code->num_funcs)
        pc = zf_program_context(ctx, &program);
    zf_resolved *slot = &ctx->resolved[ctx->num_resolved < 16 ? ctx->num_resolved++ : address % 16];
    *slot = (zf_resolved){address, pc, f};
    *prog = pc;
    *function = f;
    return pc != NULL;
}

/* Whether a function can be called with these arguments and result. */
static bool zf_signature_fits(const zf_pctx *prog, const zf_dfunc *fn, const uint32_t *args, uint32_t n,
                              uint32_t ret_size) {
    if (!(fn->flags & ZF_FUNC_HAS_BODY) || fn->param_count != n || fn->ret_size != ret_size)
        return false;
    for (uint32_t i = 0; i < n; i++)
        if (prog->program.code->params[fn->param_first + i].size != args[2 * i + 1])
            return false;
    return true;
}

/* Lanes may call different functions: each distinct target is called once for the lanes that name it. */
void zf_h_callp(zf_x *x, const zf_dinst *in) {
    const uint32_t *aux = x->code->aux + in->aux;
    const uint8_t *ptrs = zf_reg(x, in->a);
    uint32_t remaining = x->n, *todo = x->scratch;
    memcpy(todo, x->lanes, x->n * sizeof *todo);
    /* the compiled tier calls for one work-item at a time (zf_cx_list_op): no allocation for so few */
    uint32_t few[64], *group = x->n <= 64 ? few : malloc(x->n * sizeof *group);
    if (group == NULL) {
        ZF_LANES(x, zf_fault(x, l, "out of host memory for an indirect call"));
        return;
    }
    while (remaining > 0) {
        uint64_t target;
        memcpy(&target, ptrs + (size_t)todo[0] * 8, 8);
        uint32_t n = 0, kept = 0;
        for (uint32_t k = 0; k < remaining; k++) {
            uint64_t p;
            memcpy(&p, ptrs + (size_t)todo[k] * 8, 8);
            if (p == target)
                group[n++] = todo[k];
            else
                todo[kept++] = todo[k];
        }
        remaining = kept;
        zf_pctx *prog;
        uint32_t f;
        if (!zf_resolve(x, target, &prog, &f)) {
            for (uint32_t k = 0; k < n; k++)
                zf_fault(x, group[k], "call through function pointer 0x%llx, which names no function",
                         (unsigned long long)target);
            continue;
        }
        const zf_dfunc *fn = &prog->program.code->funcs[f];
        if (!zf_signature_fits(prog, fn, aux + 1, aux[0], in->size)) {
            for (uint32_t k = 0; k < n; k++)
                zf_fault(x, group[k], "call through function pointer 0x%llx with arguments that do not fit it",
                         (unsigned long long)target);
            continue;
        }
        zf_call_function(x, prog, fn, group, n, aux + 1, in->dst, in->size);
    }
    if (group != few)
        free(group);
}

/* ------------------------------------------------------------------------------------------------------------------
 * The handler table */

void zf_h_nop(zf_x *x, const zf_dinst *in) {
    (void)x;
    (void)in;
}

/* Built by construction from the list: every operation has its entry, and an operation whose handler is missing
 * leaves an undefined symbol, so the driver does not link. */
zf_handler const zf_handlers[] = {
#define ZF_XOP(NAME, name, handler) [ZF_X_##NAME] = handler,
#include "spirv_xops.def"
#undef ZF_XOP
};
_Static_assert(sizeof zf_handlers / sizeof zf_handlers[0] == ZF_X_COUNT, "one handler per operation");
