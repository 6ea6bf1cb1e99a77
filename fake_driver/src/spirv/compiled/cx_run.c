/* Waves of compiled code, and the helpers the generated code calls (docs/spirv-execution.md, "Compiled tier").
 *
 * A thread's context (zf_ctx) keeps, for the launch, the run-time state the generated code reads: the arguments'
 * values, each pointer argument's allocation (looked up once, held like the interpreter's regions until the launch
 * ends) and the block counters. Checks, faults and byte counts that leave the generated code go through the
 * interpreter's own functions (zf_mem, zf_fault, zf_count_lane) on an invocation that stands for the wave, so that a
 * fault names the same work-item, address and allocation as when the interpreter runs the kernel. */
#include "cx_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

/* Block entries at loop heads between two looks at the clock: the hang detector's period (ZF_HANG_PERIOD blocks in
 * the interpreter, where a block costs far more). */
#define ZF_CX_POLL_PERIOD (1u << 16)
#define ZF_CX_WAVE_POLL   64u

/* The exchange area of collectives and sub-group shuffles (zf_cx_xchg_get): the operands and results of the wave's
 * work-items, which of them left their operands, and the lanes that run the handler. */
typedef struct zf_cx_exchange {
    uint8_t *area;
    uint32_t *left; /* per lane: 1 + the index of the instruction it left its operands for, 0 when taken */
    uint32_t *lanes;
    uint32_t stalled; /* work-items that found their group incomplete since one last came or took its result */
} zf_cx_exchange;

typedef struct zf_cx_thread {
    zf_cx_rt rt;
    zf_x x;
    const zf_cx_kernel *kernel;
    const uint8_t **argv;
    uint8_t *values; /* each parameter's value, as many bytes as the form's parameter has */
    zf_cx_window *win;
    uint64_t *local_at;
    uint64_t *counts;
    uint8_t *spill;
    uint8_t *bail; /* the frames of a work-item that bailed, as zf_cx_bail_area lays them out */
    uint64_t *states;
    uint8_t *lane_area; /* zf_cx_lane_op: the operands in the interpreter's layout, and its per-lane arrays */
    uint8_t *call_area; /* zf_cx_list_op: the frame bytes an instruction uses, in the interpreter's layout */
    zf_cx_texsite *texsites;
    size_t call_bytes;
    zf_cx_exchange xchg; /* zf_cx_xchg_put and zf_cx_xchg_get */
    uint32_t *copies; /* async copies of the wave: per lane, how many it reached; then per lane first in its group (or
                         sub-group), how many the group made (zf_cx_makes_group_copy) */
} zf_cx_thread;

void zf_cx_ctx_release(zf_ctx *ctx) {
    zf_cx_thread *t = ctx->cx;
    if (t == NULL)
        return;
    free(t->argv);
    free(t->values);
    free(t->win);
    free(t->local_at);
    free(t->counts);
    free(t->spill);
    free(t->bail);
    free(t->states);
    free(t->lane_area);
    free(t->call_area);
    free(t->texsites);
    free(t->xchg.area);
    free(t->copies);
    free(t);
    ctx->cx = NULL;
}

/* The allocation a pointer argument points into: a region of the context (released with it) and the window. */
static zf_cx_window zf_cx_arg_window(zf_ctx *ctx, const zf_xarg *arg) {
    zf_cx_window none = {0, 0};
    uint64_t p = 0;
    if (arg->kind != ZF_XARG_VALUE || arg->size != 8 || ctx->env->lookup == NULL)
        return none;
    memcpy(&p, arg->value, 8);
    zf_mem_info info = {0};
    if (p == 0 || ctx->env->lookup(ctx->env->user, (uintptr_t)p, 1, &info) != ZF_MEM_INSIDE)
        return none;
    if (!zf_region_add(ctx, (const void *)info.base, info.size, ZF_REGION_ALLOCATION, info.hold, info.guard_end)) {
        if (ctx->env->release != NULL)
            ctx->env->release(ctx->env->user, info.hold);
        return none;
    }
    return (zf_cx_window){info.base, info.size};
}

/* Each parameter's value: the argument's bytes, cut or padded with zeros to the parameter's size (a form on its own
 * must not make the code read past an argument), and zeros for parameters the launch has no argument for. */
static bool zf_cx_values(zf_cx_thread *t, const zf_xlaunch *launch, const zf_dfunc *entry) {
    const zf_dparam *params = launch->program.code->params + entry->param_first;
    size_t total = 0;
    for (uint32_t k = 0; k < entry->param_count; k++)
        total += params[k].size;
    t->values = calloc(total ? total : 1, 1);
    if (t->values == NULL)
        return false;
    size_t at = 0;
    for (uint32_t k = 0; k < entry->param_count; k++) {
        t->argv[k] = t->values + at;
        if (k < launch->num_args && launch->args[k].kind == ZF_XARG_VALUE)
            memcpy(t->values + at, launch->args[k].value,
                   launch->args[k].size < params[k].size ? (size_t)launch->args[k].size : params[k].size);
        at += params[k].size;
    }
    return true;
}

static zf_cx_thread *zf_cx_thread_create(zf_ctx *ctx, const zf_cx_kernel *kernel, const size_t *local_offsets) {
    const zf_xlaunch *launch = ctx->launch;
    const zf_dprog *code = launch->program.code;
    const zf_dfunc *entry = &code->funcs[code->kernels[launch->kernel].function];
    uint32_t n = launch->num_args > entry->param_count ? launch->num_args : entry->param_count;
    zf_cx_thread *t = calloc(1, sizeof *t);
    if (t == NULL)
        return NULL;
    ctx->cx = t;
    t->kernel = kernel;
    t->argv = calloc(n ? n : 1, sizeof *t->argv);
    t->win = calloc(n ? n : 1, sizeof *t->win);
    t->local_at = calloc(n ? n : 1, sizeof *t->local_at);
    t->counts = calloc(kernel->num_blocks ? kernel->num_blocks : 1, sizeof *t->counts);
    t->texsites = calloc(kernel->num_texsites ? kernel->num_texsites : 1, sizeof *t->texsites);
    if (kernel->spill_bytes > 0) {
        t->spill = malloc((size_t)ctx->L * kernel->spill_bytes);
        t->states = malloc((size_t)ctx->L * sizeof *t->states);
        t->bail = malloc(zf_cx_bail_area(code, code->num_funcs) + 1);
    }
    bool spills = kernel->spill_bytes == 0 || (t->spill != NULL && t->states != NULL && t->bail != NULL);
    if (t->argv == NULL || t->win == NULL || t->local_at == NULL || t->counts == NULL || t->texsites == NULL ||
        !spills || !zf_cx_values(t, launch, entry)) {
        zf_cx_ctx_release(ctx);
        return NULL;
    }
    for (uint32_t k = 0; k < launch->num_args; k++) {
        t->win[k] = zf_cx_arg_window(ctx, &launch->args[k]);
        t->local_at[k] = local_offsets[k];
    }
    zf_pctx *prog = ctx->programs[0];
    t->x = (zf_x){
        .ctx = ctx, .prog = prog, .code = code, .fn = entry, .area = {NULL, prog->consts, ctx->wave}, .L = ctx->L};
    zf_cx_rt *rt = &t->rt;
    *rt = (zf_cx_rt){.x = &t->x,
                     .argv = t->argv,
                     .win = t->win,
                     .local_at = t->local_at,
                     .relocs = launch->program.relocs,
                     .local = ctx->local,
                     .local_stride = ctx->local_stride,
                     .local_span = ctx->local != NULL ? ctx->local_stride * ctx->groups_per_wave : 0,
                     .counts = t->counts,
                     .group_items = ctx->group_items,
                     .subgroup_size = ctx->subgroup_size,
                     .work_dim = zf_work_dim(launch),
                     .poll_period = ZF_CX_POLL_PERIOD,
                     .spill = t->spill,
                     .bail = t->bail,
                     .states = t->states,
                     .insts = code->insts,
                     .texsites = t->texsites};
    for (int d = 0; d < 3; d++) {
        rt->group_size[d] = launch->group_size[d];
        rt->groups[d] = launch->groups[d];
        rt->offset[d] = launch->offset[d];
    }
    return t;
}

/* The work the wave executed: each block's entries times its instruction classes and argument-relative bytes. */
static void zf_cx_account(zf_ctx *ctx, const zf_cx_thread *t) {
    const zf_dprog *code = ctx->launch->program.code;
    const zf_cx_kernel *k = t->kernel;
    for (uint32_t j = 0; j < k->num_blocks; j++) {
        uint64_t entries = t->counts[j];
        if (entries == 0)
            continue;
        const zf_cx_block *blk = &k->blocks[j];
        const uint32_t *ops = code->block_ops[blk->form_block];
        for (int c = 0; c < ZF_OPS_COUNT; c++)
            ctx->work.ops[c] += entries * ops[c];
        ctx->lane_ops += entries * code->blocks[blk->form_block].count;
        ctx->work.read[ZF_SPACE_GLOBAL] += entries * blk->read;
        ctx->work.written[ZF_SPACE_GLOBAL] += entries * blk->written;
        ctx->work.read[ZF_SPACE_LOCAL] += entries * blk->read_local;
        ctx->work.written[ZF_SPACE_LOCAL] += entries * blk->written_local;
    }
    const uint64_t *unrun = t->rt.unrun;
    ctx->work.read[ZF_SPACE_GLOBAL] -= unrun[0];
    ctx->work.written[ZF_SPACE_GLOBAL] -= unrun[1];
    ctx->work.read[ZF_SPACE_LOCAL] -= unrun[2];
    ctx->work.written[ZF_SPACE_LOCAL] -= unrun[3];
}

/* Each work-item's copies of the by-value arguments, as the interpreter makes them for every wave. */
static void zf_cx_byval_copies(zf_ctx *ctx, const size_t *byval_offsets) {
    const zf_xlaunch *launch = ctx->launch;
    uint32_t lanes = ctx->wave_groups * ctx->group_items;
    for (uint32_t i = 0; i < launch->num_args; i++) {
        if (launch->args[i].kind != ZF_XARG_BYVAL)
            continue;
        for (uint32_t l = 0; l < lanes; l++)
            memcpy(ctx->byval + l * ctx->byval_stride + byval_offsets[i], launch->args[i].value,
                   (size_t)launch->args[i].size);
    }
}

void zf_cx_run_wave(zf_ctx *ctx, const zf_cx_kernel *kernel, const size_t *local_offsets, const size_t *byval_offsets) {
    zf_cx_thread *t = ctx->cx;
    if (t == NULL && (t = zf_cx_thread_create(ctx, kernel, local_offsets)) == NULL) {
        if (ctx->faults++ == 0)
            snprintf(ctx->first_fault, sizeof ctx->first_fault, "kernel '%s': out of host memory for a wave",
                     ctx->launch->name);
        return;
    }
    /* A long launch of short waves: stopped between waves (looking at the clock every ZF_CX_WAVE_POLL waves). */
    if (--ctx->hang_countdown % ZF_CX_WAVE_POLL == 0 && zf_past_deadline(ctx)) {
        uint32_t lanes = ctx->wave_groups * ctx->group_items;
        for (uint32_t l = 0; l < lanes; l++)
            zf_fault(&t->x, l, "still running after %" PRIu64 " ms: stopped by the hang detector",
                     ctx->launch->hang_timeout_ns / 1000000u);
        return;
    }
    t->rt.first_group = ctx->wave_first_group;
    t->rt.wave_groups = ctx->wave_groups;
    memset(t->counts, 0, kernel->num_blocks * sizeof *t->counts);
    memset(t->rt.unrun, 0, sizeof t->rt.unrun);
    if (t->copies != NULL)
        memset(t->copies, 0, 2u * ctx->L * sizeof *t->copies);
    if (ctx->byval != NULL)
        zf_cx_byval_copies(ctx, byval_offsets);
    kernel->wave(&t->rt);
    zf_cx_account(ctx, t);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Helpers of the generated code */

/* Whether the launch is past its hang limit as far as this thread knows: another thread saw it, or a fault here
 * did (zf_fault_timed leaves the countdown at 1; a countdown at 1 by chance costs one look at the clock). */
static bool zf_cx_overdue(zf_ctx *ctx) {
    return ctx->deadline_ns != 0 &&
           (__atomic_load_n(ctx->stop, __ATOMIC_RELAXED) || (ctx->hang_countdown == 1 && zf_past_deadline(ctx)));
}

uint8_t *zf_cx_mem(zf_cx_rt *rt, uint64_t lane, uint64_t base, uint64_t offset, uint64_t size, uint64_t flags) {
    uint64_t addr = base + offset; /* wraps as the generated code's subtraction did */
    bool write = (flags & ZF_CX_WRITE) != 0;
    zf_ctx *ctx = rt->x->ctx;
    if (zf_cx_overdue(ctx)) { /* stopped as the detector stops it, without the look-up a fault makes */
        zf_past_deadline(ctx);
        zf_fault(rt->x, (uint32_t)lane, "still running after %" PRIu64 " ms: stopped by the hang detector",
                 ctx->launch->hang_timeout_ns / 1000000u);
        return NULL;
    }
    if (flags & ZF_CX_COUNT_READ)
        zf_count_lane(rt->x, addr, size, false);
    if (flags & ZF_CX_COUNT)
        zf_count_lane(rt->x, addr, size, write);
    return zf_mem(rt->x, (uint32_t)lane, addr, (uint32_t)size, write);
}

/* Work-item l's operands a, b, c from the scratch into an area of the wave's, each at its scratch slot's offset in the
 * layout the handler reads (offset x L + lane x size); their sizes. */
static zf_operand_sizes zf_cx_place_operands(const zf_cx_rt *rt, const zf_dinst *in, const uint8_t *scratch,
                                             uint8_t *area, uint32_t l) {
    uint32_t L = rt->x->L;
    zf_operand_sizes s;
    zf_cx_sizes(rt->x->code, in, &s);
    const uint32_t sizes[4] = {s.dst, s.a, s.b, s.c};
    for (uint32_t k = 1; k < 4; k++)
        memcpy(area + (size_t)k * ZF_CX_SCRATCH_SLOT * L + (size_t)l * sizes[k], scratch + k * ZF_CX_SCRATCH_SLOT,
               sizes[k]);
    return s;
}

/* The instruction with its operands and result at the scratch slots' offsets of a frame (zf_cx_lane_op). */
static zf_dinst zf_cx_scratch_inst(const zf_dinst *in) {
    zf_dinst one = *in;
    one.dst = in->dst != ZF_REF_NONE ? ZF_REF_MAKE(ZF_AREA_FRAME, 0) : ZF_REF_NONE;
    one.a = in->a != ZF_REF_NONE ? ZF_REF_MAKE(ZF_AREA_FRAME, ZF_CX_SCRATCH_SLOT) : ZF_REF_NONE;
    one.b = in->b != ZF_REF_NONE ? ZF_REF_MAKE(ZF_AREA_FRAME, 2 * ZF_CX_SCRATCH_SLOT) : ZF_REF_NONE;
    one.c = in->c != ZF_REF_NONE ? ZF_REF_MAKE(ZF_AREA_FRAME, 3 * ZF_CX_SCRATCH_SLOT) : ZF_REF_NONE;
    return one;
}

void zf_cx_pure(zf_cx_rt *rt, const zf_dinst *in, uint8_t *scratch) {
    zf_dinst one = zf_cx_scratch_inst(in);
    uint32_t lane = 0, block = 0, spare = 0;
    zf_x x = {.ctx = rt->x->ctx,
              .prog = rt->x->prog,
              .code = rt->x->code,
              .fn = rt->x->fn,
              .area = {scratch, scratch, scratch},
              .L = 1,
              .n = 1,
              .full = true,
              .lanes = &lane,
              .members = &lane,
              .num_members = 1,
              .live = 1,
              .block_of = &block,
              .scratch = &spare};
    zf_handlers[in->op](&x, &one);
}

void zf_cx_texsite_fill(zf_cx_rt *rt, const zf_dinst *in, zf_cx_texsite *site, uint64_t image, uint64_t sampler) {
    zf_image_plain plain;
    *site = (zf_cx_texsite){.image = image, .sampler = sampler, .filled = 1};
    if (!zf_image_plain_of(rt->x->ctx->env, in, image, sampler, &plain) || !zf_cx_texel_decodes(plain.format, in->type))
        return;
    uint32_t one = in->type == ZF_T_F32 ? 0x3F800000u : 1u; /* 1.0f or 1 */
    site->base = plain.base;
    site->size = plain.size;
    for (int d = 0; d < 3; d++) {
        site->extent[d] = plain.extent[d];
        site->pitch[d] = plain.pitch[d];
        site->keep[d] = plain.kept[d] ? UINT64_MAX : 0;
    }
    for (int k = 0; k < 4; k++) {
        site->and_mask[k] = plain.channel[k] == ZF_PLAIN_COMP ? UINT32_MAX : 0;
        site->or_mask[k] = plain.channel[k] == ZF_PLAIN_ONE ? one : 0;
    }
    site->border[3] = plain.border_alpha ? one : 0;
    site->clamp = plain.clamp;
    site->normalized = plain.normalized;
    site->format = plain.format;
}

/* The interpreter's invocation of the wave's work-item *lane alone, its frame at `frame` in the interpreter's layout;
 * block_of: 2 x L words, the second half its scratch. */
static zf_x zf_cx_lone(zf_cx_rt *rt, uint8_t *frame, uint32_t *lane, uint32_t *block_of) {
    zf_ctx_lanes_ready(rt->x->ctx); /* the handlers read the constants and the wave's pointers of their lanes */
    return (zf_x){.ctx = rt->x->ctx,
                  .prog = rt->x->prog,
                  .code = rt->x->code,
                  .fn = rt->x->fn,
                  .area = {frame, rt->x->area[ZF_AREA_CONST], rt->x->area[ZF_AREA_WAVE]},
                  .L = rt->x->L,
                  .n = 1,
                  .full = false,
                  .lanes = lane,
                  .members = lane,
                  .num_members = 1,
                  .live = 1,
                  .block_of = block_of,
                  .scratch = block_of + rt->x->L};
}

uint32_t zf_cx_lane_op(zf_cx_rt *rt, const zf_dinst *in, uint8_t *scratch, uint64_t lane) {
    zf_cx_thread *t = (zf_cx_thread *)rt; /* rt is the thread's first member */
    uint32_t L = rt->x->L, l = (uint32_t)lane;
    size_t area_bytes = 4u * ZF_CX_SCRATCH_SLOT * (size_t)L;
    if (t->lane_area == NULL && (t->lane_area = calloc(area_bytes + 2u * sizeof(uint32_t) * L, 1)) == NULL) {
        zf_fault(rt->x, l, "out of host memory for a wave");
        return 1;
    }
    zf_operand_sizes s = zf_cx_place_operands(rt, in, scratch, t->lane_area, l);
    zf_dinst one = zf_cx_scratch_inst(in);
    uint32_t *block_of = (uint32_t *)(t->lane_area + area_bytes);
    zf_x x = zf_cx_lone(rt, t->lane_area, &l, block_of);
    zf_handlers[in->op](&x, &one);
    if (x.killed)
        return 1;
    memcpy(scratch, t->lane_area + (size_t)l * s.dst, s.dst);
    return 0;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Collectives and sub-group shuffles: each work-item leaves its operands in the exchange area (in the interpreter's
 * layout, at the scratch slots' offsets as for zf_cx_lane_op) and waits; the first of its group (or sub-group) to
 * resume once all of them have left theirs runs the interpreter's handler for all, and each takes its result. */

static bool zf_cx_xchg_ready(zf_cx_rt *rt, zf_cx_exchange *xc) {
    uint32_t L = rt->x->L;
    if (xc->area != NULL)
        return true;
    size_t slots = 4u * ZF_CX_SCRATCH_SLOT * (size_t)L;
    xc->area = calloc(slots + 4u * sizeof(uint32_t) * L, 1);
    if (xc->area == NULL)
        return false;
    xc->left = (uint32_t *)(xc->area + slots);
    xc->lanes = xc->left + L;
    return true;
}

static uint32_t zf_cx_xchg_mark(const zf_cx_rt *rt, const zf_dinst *in) {
    return (uint32_t)(in - rt->x->code->insts) + 1u;
}

void zf_cx_xchg_put(zf_cx_rt *rt, const zf_dinst *in, const uint8_t *scratch, uint64_t lane) {
    zf_cx_thread *t = (zf_cx_thread *)rt; /* rt is the thread's first member */
    uint32_t l = (uint32_t)lane;
    if (!zf_cx_xchg_ready(rt, &t->xchg))
        return; /* zf_cx_xchg_get faults the work-item */
    zf_cx_place_operands(rt, in, scratch, t->xchg.area, l);
    t->xchg.left[l] = zf_cx_xchg_mark(rt, in);
    t->xchg.stalled = 0; /* a work-item came: the group moves */
}

/* The lanes [*first, *end) of lane l's group, or sub-group for a sub-group's instruction (collectives, shuffles,
 * asynchronous copies). */
static void zf_cx_xchg_range(const zf_ctx *ctx, const zf_dinst *in, uint32_t l, uint32_t *first, uint32_t *end) {
    uint32_t r = l % ctx->group_items;
    *first = l - r;
    *end = *first + ctx->group_items;
    if (zf_group_scope_is_subgroup(in)) {
        *first += r - r % ctx->subgroup_size;
        *end = *first + ctx->subgroup_size < *end ? *first + ctx->subgroup_size : *end;
    }
}

/* Whether every work-item of the range that has not finished left its operands for the instruction (one waiting
 * elsewhere, as when only some sub-groups reach a sub-group's collective before a work-group's, has yet to come). */
static bool zf_cx_xchg_complete(const zf_cx_thread *t, const zf_ctx *ctx, uint32_t first, uint32_t end, uint32_t mark) {
    for (uint32_t k = first; k < end; k++)
        if (!ctx->dead[k] && t->states[k] != ZF_CX_DONE && t->xchg.left[k] != mark)
            return false;
    return true;
}

/* Whether lane l's group can go on without forcing a collective: one of its work-items that has not finished is not
 * waiting with its operands left (it waits at a barrier, or has its result to take), or waits at a collective all of
 * whose group (or sub-group) is there. */
static bool zf_cx_xchg_can_move(const zf_cx_thread *t, const zf_ctx *ctx, const zf_dprog *code, uint32_t l) {
    uint32_t first = l - l % ctx->group_items;
    for (uint32_t k = first; k < first + ctx->group_items; k++) {
        uint32_t mark = t->xchg.left[k], from, end;
        if (ctx->dead[k] || t->states[k] == ZF_CX_DONE)
            continue;
        if (mark == 0)
            return true;
        zf_cx_xchg_range(ctx, &code->insts[mark - 1], k, &from, &end);
        if (zf_cx_xchg_complete(t, ctx, from, end, mark))
            return true;
    }
    return false;
}

uint32_t zf_cx_xchg_get(zf_cx_rt *rt, const zf_dinst *in, uint8_t *scratch, uint64_t lane) {
    zf_cx_thread *t = (zf_cx_thread *)rt;
    zf_ctx *ctx = rt->x->ctx;
    uint32_t L = rt->x->L, l = (uint32_t)lane, mark = zf_cx_xchg_mark(rt, in);
    zf_cx_exchange *xc = &t->xchg;
    if (xc->area == NULL) {
        zf_fault(rt->x, l, "out of host memory for a wave");
        return 1;
    }
    if (xc->left[l] == mark) { /* the first to resume: the results of all, once all are there */
        uint32_t first, end, n = 0;
        zf_cx_xchg_range(ctx, in, l, &first, &end);
        /* Incomplete: it waits again. After a round of the group's turns with no work-item coming to a collective or
         * taking a result, one that finds that no work-item of the group can go on (they wait at different
         * collectives, undefined in OpenCL) goes on with those that are there, so that nothing hangs. */
        if (!zf_cx_xchg_complete(t, ctx, first, end, mark) &&
            (++xc->stalled <= ctx->group_items || zf_cx_xchg_can_move(t, ctx, rt->x->code, l)))
            return 2;
        for (uint32_t k = first; k < end; k++) {
            if (xc->left[k] == mark)
                xc->lanes[n++] = k;
            xc->left[k] = xc->left[k] == mark ? 0 : xc->left[k];
        }
        zf_dinst one = zf_cx_scratch_inst(in);
        zf_x x = zf_cx_lone(rt, xc->area, &l, xc->lanes + L);
        x.n = x.num_members = n;
        x.lanes = x.members = xc->lanes;
        zf_handlers[in->op](&x, &one);
    }
    xc->stalled = 0;
    if (ctx->dead[l]) /* the handler faulted it */
        return 1;
    zf_operand_sizes s;
    zf_cx_sizes(rt->x->code, in, &s);
    memcpy(scratch, xc->area + (size_t)l * s.dst, s.dst);
    return 0;
}

/* The frame bytes an instruction with a list of operands reads and writes: its operands and result where they are
 * frame registers. */
static size_t zf_cx_list_frame(const zf_dprog *code, const zf_dinst *in) {
    size_t need = 0;
    zf_ref ref;
    uint32_t bytes;
    for (uint32_t k = 0; zf_cx_list_operand(code, in, k, &ref, &bytes); k++)
        if (ref != ZF_REF_NONE && ZF_REF_AREA(ref) == ZF_AREA_FRAME && ZF_REF_OFFSET(ref) + (size_t)bytes > need)
            need = ZF_REF_OFFSET(ref) + (size_t)bytes;
    if (in->dst != ZF_REF_NONE && ZF_REF_AREA(in->dst) == ZF_AREA_FRAME &&
        ZF_REF_OFFSET(in->dst) + (size_t)zf_cx_list_result(in) > need)
        need = ZF_REF_OFFSET(in->dst) + (size_t)zf_cx_list_result(in);
    return need;
}

/* Whether work-item l makes the async_work_group_copy it reached: its group (or sub-group) makes its copies in order,
 * each by the first work-item to reach it (as zf_h_asynccopy makes it with the group's first active lane: one that
 * faulted before reaching it leaves it to the next); -1 without memory. */
static int zf_cx_makes_group_copy(zf_cx_thread *t, const zf_ctx *ctx, const zf_dinst *in, uint32_t l) {
    if (t->copies == NULL && (t->copies = calloc(2u * ctx->L, sizeof *t->copies)) == NULL)
        return -1;
    uint32_t first, end, *reached = t->copies, *made = t->copies + ctx->L;
    zf_cx_xchg_range(ctx, in, l, &first, &end);
    bool makes = made[first] == reached[l]++;
    made[first] += makes;
    return makes;
}

uint32_t zf_cx_list_op(zf_cx_rt *rt, const zf_dinst *in, uint8_t *scratch, uint64_t lane, const uint8_t *args) {
    zf_cx_thread *t = (zf_cx_thread *)rt; /* rt is the thread's first member */
    uint32_t L = rt->x->L, l = (uint32_t)lane;
    const zf_dprog *code = rt->x->code;
    size_t frame_bytes = zf_cx_list_frame(code, in) * L, bytes = frame_bytes + 2u * sizeof(uint32_t) * L;
    if (bytes > t->call_bytes) {
        uint8_t *grown = realloc(t->call_area, bytes);
        if (grown == NULL) {
            zf_fault(rt->x, l, "out of host memory for %s", zf_xop_name(in->op));
            return 1;
        }
        t->call_area = grown;
        t->call_bytes = bytes;
    }
    /* Each operand of the frame or the wave area (which compiled code does not fill, and this thread alone uses) in
     * the interpreter's layout: offset x L + lane x size. */
    zf_x x = zf_cx_lone(rt, t->call_area, &l, (uint32_t *)(t->call_area + frame_bytes));
    zf_ref ref;
    uint32_t size;
    for (uint32_t k = 0; zf_cx_list_operand(code, in, k, &ref, &size); k++) {
        if (ref == ZF_REF_NONE || (ZF_REF_AREA(ref) != ZF_AREA_FRAME && ZF_REF_AREA(ref) != ZF_AREA_WAVE))
            continue;
        memcpy(zf_reg(&x, ref) + (size_t)l * size, args, size);
        args += size;
    }
    zf_ctx *ctx = rt->x->ctx;
    uint32_t result = zf_cx_list_result(in);
    int makes = in->op == ZF_X_ASYNCCOPY ? zf_cx_makes_group_copy(t, ctx, in, l) : 1;
    if (makes < 0) {
        zf_fault(rt->x, l, "out of host memory for %s", zf_xop_name(in->op));
        return 1;
    }
    if (!makes) {
        uint64_t given, event;
        memcpy(&given, zf_reg(&x, in->a) + (size_t)l * 8, 8);
        event = zf_async_event(given);
        memcpy(scratch, &event, 8);
        return 0;
    }
    ctx->lone_call = in->op == ZF_X_CALLP;
    zf_handlers[in->op](&x, in);
    ctx->lone_call = false;
    if (x.killed)
        return 1;
    if (in->dst != ZF_REF_NONE && result > 0)
        memcpy(scratch, zf_reg(&x, in->dst) + (size_t)l * result, result);
    return 0;
}

uint64_t zf_cx_var_slot(zf_cx_rt *rt, uint64_t lane, const zf_dinst *in, uint8_t *base) {
    zf_x *x = rt->x;
    const char *name = in->c != ZF_REF_NONE ? x->code->strings + in->c : NULL;
    /* Stride 0: the copy belongs to this work-item alone, whose lane the address carries. */
    zf_pslot slot = {base + in->aux, in->asize, 0, in->b, 0, name};
    uint32_t s = zf_slot_push(x->ctx, &slot);
    if (s == UINT32_MAX) {
        zf_fault(x, (uint32_t)lane, "more than %u private variables live at once", ZF_PRIVATE_MAX_SLOTS);
        return 0;
    }
    return zf_private_address(s, (uint32_t)lane);
}

uint64_t zf_cx_slots_mark(zf_cx_rt *rt) {
    return rt->x->ctx->slots.count;
}

void zf_cx_slots_pop(zf_cx_rt *rt, uint64_t mark) {
    rt->x->ctx->slots.count = (uint32_t)mark;
}

/* The interpreter's OpCopyMemory for one work-item (spirv_ops_mem.c): the source is checked before the destination. */
uint32_t zf_cx_copy(zf_cx_rt *rt, uint64_t lane, uint64_t to, uint64_t from, uint64_t size) {
    return zf_copy_memory(rt->x, (uint32_t)lane, to, from, size) ? 1u : 0u;
}

uint64_t zf_cx_atomic_float(uint64_t kind, uint64_t old, uint64_t v, uint64_t bits) {
    return zf_atomic_float((uint32_t)kind, old, v, (uint32_t)bits);
}

void zf_cx_misaligned(zf_cx_rt *rt, uint64_t lane, uint64_t addr, uint64_t bytes) {
    zf_fault(rt->x, (uint32_t)lane, "atomic operation on 0x%llx, which is not %u-byte aligned",
             (unsigned long long)addr, (unsigned)bytes);
}

void zf_cx_unreachable(zf_cx_rt *rt, uint64_t lane) {
    zf_fault(rt->x, (uint32_t)lane, "reached OpUnreachable");
}

void zf_cx_diverged(zf_cx_rt *rt, uint64_t group) {
    const zf_xlaunch *launch = rt->x->ctx->launch;
    /* A work-item that faulted stops apart from the others too: that is no divergence to report. */
    if (rt->x->ctx->faults > 0 || rt->diverged++ > 0 || launch->env == NULL || launch->env->debug == NULL)
        return;
    char text[320];
    snprintf(text, sizeof text,
             "kernel '%s': the work-items of work-group %" PRIu64 " did not all reach the same barrier or "
             "collective (OpenCL requires it of work-group ones; a sub-group's need only its sub-group): the group "
             "runs on work-item by work-item",
             launch->name, group);
    launch->env->debug(launch->env->user, text);
}

uint32_t zf_cx_deadline(zf_cx_rt *rt) {
    return zf_past_deadline(rt->x->ctx) ? 1u : 0u;
}

uint32_t zf_cx_poll(zf_cx_rt *rt, uint64_t lane) {
    zf_ctx *ctx = rt->x->ctx;
    if (!zf_past_deadline(ctx))
        return 0;
    rt->poll_period = 1; /* the other work-items of the wave stop at their next loop head */
    zf_fault(rt->x, (uint32_t)lane, "still running after %" PRIu64 " ms: stopped by the hang detector",
             ctx->launch->hang_timeout_ns / 1000000u);
    return 1;
}
