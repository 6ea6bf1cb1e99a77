/* Launches: work-groups packed into waves, waves spread over threads (the caller and a pool of workers, one per
 * host core beyond the first), and each thread's context: its copy of the program's constants, the wave's
 * built-in values and local memory, and the results it adds to the launch's.
 *
 * A wave holds whole work-groups (so a barrier is a point every lane of a group reaches together) and at least
 * ZF_WAVE_LANES lanes when groups are small, so that the cost of interpreting an instruction is shared by many
 * work-items. Waves are taken from a counter by whoever is free; results (faults, counts) are merged at the end,
 * keeping the first fault of the lowest wave so that the report is the same run after run. */
#include "compiled/cx.h"
#include "spirv_builtins.h"
#include "spirv_run.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define ZF_WAVE_LANES 128u
/* The compiled tier runs a group's work-items in loops of their own, so its waves can hold more groups: what a wave
 * costs beyond its work (the thread's look at the wave counter, the accounting of its blocks) is shared by more
 * work-items, and each thread runs neighbouring groups, which share cache lines. Up to this many work-items a wave,
 * while each thread still gets this many waves to balance the load. */
#define ZF_COMPILED_WAVE_ITEMS 2048u
/* A wave whose rows run across its groups, of groups of more than one row, reads longer runs of memory the more groups
 * it holds (the 5-point stencil's rows along 32 groups of 16 x 16 rather than 8); other kernels gain nothing from more
 * (a 1-dimensional wave is one run already), and a first launch, whose threads start one after the other, balances
 * worse over fewer waves. */
#define ZF_ROWS_WAVE_ITEMS  8192u
#define ZF_WAVES_PER_THREAD 8u
/* A thread takes consecutive waves, up to this many work-items, at a time (while each thread still gets
 * ZF_WAVES_PER_THREAD takes of the launch): each works through memory of its own, rather than every other wave of
 * neighbouring ones, whose cache lines and prefetches the threads would then share. */
#define ZF_TAKE_ITEMS  16384u
#define ZF_MAX_WORKERS 15u
#define ZF_LOCAL_ALIGN 16u

/* ------------------------------------------------------------------------------------------------------------------
 * Program contexts */

static void *zf_aligned_alloc(size_t size) {
    size = (size + 63) & ~(size_t)63;
    return aligned_alloc(64, size ? size : 64);
}

/* Copies `value` bytes into each of `lanes` slots of `size` bytes (the rest of a slot as it was). Whole slots of
 * other sizes than words are copied from the slots filled already, doubling them: a few copies at memory speed rather
 * than a call per lane (a kernel's constants, over a compiled wave's 2048 lanes, are rebuilt at every launch). */
static void zf_broadcast_value(uint8_t *reg, size_t size, const void *from, size_t value, uint32_t lanes) {
    if (size == 8 && value == 8) { /* constant sizes: each copy is one move */
        uint64_t v;
        memcpy(&v, from, 8);
        for (uint32_t l = 0; l < lanes; l++)
            memcpy(reg + (size_t)l * 8, &v, 8);
    } else if (size == 4 && value == 4) {
        uint32_t v;
        memcpy(&v, from, 4);
        for (uint32_t l = 0; l < lanes; l++)
            memcpy(reg + (size_t)l * 4, &v, 4);
    } else if (size == value && lanes > 0) {
        size_t total = size * lanes;
        memcpy(reg, from, size);
        for (size_t done = size; done < total;) {
            size_t n = done < total - done ? done : total - done;
            memcpy(reg + done, reg, n);
            done += n;
        }
    } else {
        for (uint32_t l = 0; l < lanes; l++)
            memcpy(reg + l * size, from, value);
    }
}

/* Broadcasts a value of `size` bytes to the L lanes of the register at per-lane offset `offset`. */
static void zf_broadcast(uint8_t *area, uint32_t L, uint32_t offset, const void *value, size_t size) {
    zf_broadcast_value(area + (size_t)offset * L, size, value, size, L);
}

/* The program context for slot num_programs, with room for `size` bytes of constants: a kept one when there is one
 * (contents undefined), or a new one. */
static zf_pctx *zf_pctx_fit(zf_ctx *ctx, size_t size) {
    zf_pctx *pc = ctx->num_programs < ctx->num_kept ? ctx->programs[ctx->num_programs] : calloc(1, sizeof *pc);
    if (pc == NULL)
        return NULL;
    if (pc->consts == NULL || pc->consts_size < size) {
        free(pc->consts);
        pc->consts = zf_aligned_alloc(size);
        pc->consts_size = pc->consts != NULL ? size : 0;
    }
    if (pc->consts != NULL)
        return pc;
    if (ctx->num_programs >= ctx->num_kept)
        free(pc); /* a kept one stays in its slot, empty */
    return NULL;
}

/* The program's constants (and its relocated addresses) in each of the L lanes. */
static void zf_pctx_fill(zf_ctx *ctx, zf_pctx *pc) {
    const zf_dprog *code = pc->program.code;
    for (uint32_t i = 0; i < code->num_consts; i++)
        zf_broadcast(pc->consts, ctx->L, code->consts[i].offset, code->bytes + code->consts[i].data,
                     code->consts[i].size);
    for (uint32_t i = 0; i < code->num_relocs; i++)
        zf_broadcast(pc->consts, ctx->L, code->relocs[i].offset, &pc->program.relocs[i], 8);
    pc->filled = true;
}

/* As zf_program_context; `fill`: with its constants broadcast now, else when zf_ctx_lanes_ready asks for them. */
static zf_pctx *zf_program_context_of(zf_ctx *ctx, const zf_xprogram *program, bool fill) {
    for (uint32_t i = 0; i < ctx->num_programs; i++) {
        zf_pctx *made = ctx->programs[i];
        if (made->program.code != program->code)
            continue;
        if (fill && !made->filled)
            zf_pctx_fill(ctx, made);
        return made;
    }
    if (ctx->num_programs == ctx->cap_programs) {
        uint32_t cap = ctx->cap_programs ? ctx->cap_programs * 2 : 4;
        zf_pctx **programs = realloc(ctx->programs, cap * sizeof *programs);
        if (programs == NULL)
            return NULL;
        ctx->programs = programs;
        ctx->cap_programs = cap;
    }
    const zf_dprog *code = program->code;
    size_t size = (size_t)code->const_bytes * ctx->L;
    zf_pctx *pc = zf_pctx_fit(ctx, size);
    if (pc == NULL)
        return NULL;
    pc->program = *program;
    pc->filled = false;
    if (fill)
        zf_pctx_fill(ctx, pc);
    if (program->globals != NULL && program->globals_size > 0)
        zf_region_add(ctx, program->globals, program->globals_size, ZF_REGION_INTERNAL, NULL, 0);
    ctx->programs[ctx->num_programs++] = pc;
    if (ctx->num_kept < ctx->num_programs)
        ctx->num_kept = ctx->num_programs;
    return pc;
}

zf_pctx *zf_program_context(zf_ctx *ctx, const zf_xprogram *program) {
    return zf_program_context_of(ctx, program, true);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Work-item ids */

void zf_lane_ids(const zf_ctx *ctx, uint32_t lane, uint64_t global[3], uint64_t group[3], uint64_t local[3]) {
    const zf_xlaunch *launch = ctx->launch;
    uint32_t slot = lane / ctx->group_items, r = lane % ctx->group_items;
    const uint32_t *size = launch->group_size, *groups = launch->groups;
    local[0] = r % size[0];
    local[1] = (r / size[0]) % size[1];
    local[2] = r / (size[0] * size[1]);
    uint64_t linear = ctx->wave_first_group + slot;
    group[0] = linear % groups[0];
    group[1] = (linear / groups[0]) % groups[1];
    group[2] = linear / ((uint64_t)groups[0] * groups[1]);
    for (int d = 0; d < 3; d++)
        global[d] = launch->offset[d] + group[d] * size[d] + local[d];
}

/* The ids of consecutive lanes, advanced by counting instead of dividing (zf_lane_ids for the first). */
typedef struct zf_lane_walk {
    uint64_t global[3], group[3], local[3];
    uint32_t r; /* the lane's index in its group */
} zf_lane_walk;

static void zf_walk_next(const zf_ctx *ctx, zf_lane_walk *w) {
    const zf_xlaunch *launch = ctx->launch;
    const uint32_t *size = launch->group_size, *groups = launch->groups;
    if (++w->r == ctx->group_items) {
        w->r = 0;
        memset(w->local, 0, sizeof w->local);
        for (int d = 0; d < 3 && ++w->group[d] == groups[d]; d++)
            w->group[d] = 0;
    } else {
        for (int d = 0; d < 3 && ++w->local[d] == size[d]; d++)
            w->local[d] = 0;
    }
    for (int d = 0; d < 3; d++)
        w->global[d] = launch->offset[d] + w->group[d] * size[d] + w->local[d];
}

/* An OpenCL launch gives its work_dim; a Level Zero launch has none, so it is the highest dimension whose group
 * count times group size exceeds 1, as Intel's driver derives it from zeKernelSetGroupSize and the group count. */
uint32_t zf_work_dim(const zf_xlaunch *launch) {
    if (launch->work_dim != 0)
        return launch->work_dim;
    for (int d = 2; d > 0; d--)
        if ((uint64_t)launch->groups[d] * launch->group_size[d] > 1)
            return (uint32_t)d + 1;
    return 1;
}

/* The built-ins' formulas (spirv_builtins.h) over the lane at `w` of the launch, in 64-bit integers. */
#define ZF_B_LID(d)    w->local[d]
#define ZF_B_GRP(d)    w->group[d]
#define ZF_B_GSIZE(d)  (uint64_t) launch->group_size[d]
#define ZF_B_GROUPS(d) (uint64_t) launch->groups[d]
#define ZF_B_OFFSET(d) (uint64_t) launch->offset[d]
#define ZF_B_R         (uint64_t) w->r
#define ZF_B_S         (uint64_t) ctx->subgroup_size
#define ZF_B_G         (uint64_t) ctx->group_items
#define ZF_B_WORKDIM   (uint64_t) zf_work_dim(launch)
#define ZF_B_ADD(x, y) ((x) + (y))
#define ZF_B_SUB(x, y) ((x) - (y))
#define ZF_B_MUL(x, y) ((x) * (y))
#define ZF_B_DIV(x, y) ((x) / (y))
#define ZF_B_REM(x, y) ((x) % (y))
#define ZF_B_MIN(x, y) ((x) < (y) ? (x) : (y))
#define ZF_B_K(n)      (uint64_t)(n)

/* The value(s) of a built-in for the lane at `w`. */
static void zf_builtin_value(const zf_ctx *ctx, uint32_t builtin, const zf_lane_walk *w, uint64_t v[3]) {
    const zf_xlaunch *launch = ctx->launch;
    v[0] = v[1] = v[2] = 0;
    switch (builtin) {
#define ZF_BUILTIN3(name, per_wave, value)                                                                             \
    case SpvBuiltIn##name:                                                                                             \
        for (uint32_t d = 0; d < 3; d++)                                                                               \
            v[d] = value;                                                                                              \
        break;
#define ZF_BUILTIN1(name, per_wave, value)                                                                             \
    case SpvBuiltIn##name:                                                                                             \
        v[0] = value;                                                                                                  \
        break;
        ZF_BUILTINS(ZF_BUILTIN3, ZF_BUILTIN1)
#undef ZF_BUILTIN3
#undef ZF_BUILTIN1
    default:
        break;
    }
}

/* Whether a built-in differs between waves (the list says). */
static bool zf_builtin_per_wave(uint32_t builtin) {
    switch (builtin) {
#define ZF_BUILTIN_PER_WAVE(name, per_wave, value)                                                                     \
    case SpvBuiltIn##name:                                                                                             \
        return per_wave;
        ZF_BUILTINS(ZF_BUILTIN_PER_WAVE, ZF_BUILTIN_PER_WAVE)
#undef ZF_BUILTIN_PER_WAVE
    default:
        return false;
    }
}

/* One built-in for `count` lanes from lane 0 on. The ids of a wave's lanes are walked once per entry: cheaper than
 * dividing per lane, and the per-wave entries are few (usually the global id alone). */
static void zf_fill_builtin(zf_ctx *ctx, const zf_dwave *entry, uint32_t count) {
    bool wide = zf_etype_size(entry->type) == 8;
    uint32_t comps = entry->comps < 3 ? entry->comps : 3, slot = zf_slot(entry->comps);
    uint8_t *base = ctx->wave + (size_t)entry->offset * ctx->L;
    zf_lane_walk walk = {.r = 0};
    zf_lane_ids(ctx, 0, walk.global, walk.group, walk.local);
    for (uint32_t l = 0; l < count; l++) {
        if (l > 0)
            zf_walk_next(ctx, &walk);
        uint64_t v[3];
        zf_builtin_value(ctx, entry->index, &walk, v);
        if (wide) {
            memcpy(base + (size_t)l * slot * 8, v, (size_t)comps * 8);
        } else {
            uint32_t narrow[3] = {(uint32_t)v[0], (uint32_t)v[1], (uint32_t)v[2]};
            memcpy(base + (size_t)l * slot * 4, narrow, (size_t)comps * 4);
        }
    }
}

/* Fills the built-ins the program reads: all of them for every lane of the wave area the first time, then only those
 * that change from wave to wave, for the wave's lanes. */
static void zf_fill_builtins(zf_ctx *ctx, const zf_dprog *code, uint32_t lanes) {
    bool all = !ctx->builtins_ready;
    ctx->builtins_ready = true;
    for (uint32_t i = 0; i < code->num_waves; i++) {
        const zf_dwave *entry = &code->waves[i];
        if (entry->kind == ZF_WAVE_BUILTIN && (all || zf_builtin_per_wave(entry->index)))
            zf_fill_builtin(ctx, entry, all ? ctx->L : lanes);
    }
}

/* Pointers that stay the same for every wave of the context: built-in addresses and local variables. */
static void zf_fill_wave_pointers(zf_ctx *ctx, const zf_dprog *code, const zf_dkernel *kernel) {
    for (uint32_t i = 0; i < code->num_waves; i++) {
        const zf_dwave *w = &code->waves[i];
        uint8_t *base = ctx->wave + (size_t)w->offset * ctx->L;
        for (uint32_t l = 0; l < ctx->L && w->kind != ZF_WAVE_BUILTIN; l++) {
            uint64_t p = 0;
            if (w->kind == ZF_WAVE_POINTER) {
                const zf_dwave *target = &code->waves[w->index];
                size_t size = (size_t)zf_etype_size(target->type) * zf_slot(target->comps);
                p = (uint64_t)(uintptr_t)(ctx->wave + (size_t)target->offset * ctx->L + l * size);
            } else {
                for (uint32_t k = 0; k < kernel->local_count; k++) {
                    const zf_dkernel_local *kl = &code->kernel_locals[kernel->local_first + k];
                    if (kl->variable == w->index)
                        p = (uint64_t)(uintptr_t)(ctx->local + (l / ctx->group_items) * ctx->local_stride + kl->offset);
                }
            }
            memcpy(base + (size_t)l * 8, &p, 8);
        }
    }
}

/* ------------------------------------------------------------------------------------------------------------------
 * Contexts */

static size_t zf_local_layout(const zf_xlaunch *launch, const zf_dkernel *kernel, size_t *arg_offsets) {
    size_t at = (kernel->static_local_bytes + ZF_LOCAL_ALIGN - 1) / ZF_LOCAL_ALIGN * ZF_LOCAL_ALIGN;
    for (uint32_t i = 0; i < launch->num_args; i++) {
        arg_offsets[i] = at;
        if (launch->args[i].kind == ZF_XARG_LOCAL)
            at += (launch->args[i].size + ZF_LOCAL_ALIGN - 1) / ZF_LOCAL_ALIGN * ZF_LOCAL_ALIGN;
    }
    return at;
}

static size_t zf_byval_layout(const zf_xlaunch *launch, size_t *arg_offsets) {
    size_t at = 0;
    for (uint32_t i = 0; i < launch->num_args; i++) {
        arg_offsets[i] = at;
        if (launch->args[i].kind == ZF_XARG_BYVAL)
            at += (launch->args[i].size + 15) / 16 * 16;
    }
    return at;
}

typedef struct zf_launch_plan {
    const zf_xlaunch *launch;
    const zf_dkernel *kernel;
    uint32_t group_items;
    uint32_t groups_per_wave;
    uint64_t total_groups;
    uint64_t waves;
    uint64_t take;         /* the consecutive waves a thread takes at a time */
    size_t *local_offsets; /* per argument */
    size_t local_stride;
    size_t *byval_offsets;
    size_t byval_stride;
    uint64_t deadline_ns;         /* the hang detector's, 0: none */
    uint32_t *stop;               /* set once a thread saw the deadline pass: no more waves are started */
    const zf_cx_kernel *compiled; /* the compiled tier's code, NULL: the interpreter runs the launch */
} zf_launch_plan;

static void zf_ctx_destroy(zf_ctx *ctx) {
    if (ctx == NULL)
        return;
    zf_cx_ctx_release(ctx);
    for (uint32_t i = 0; i < ctx->num_kept; i++) {
        free(ctx->programs[i]->consts);
        free(ctx->programs[i]);
    }
    free(ctx->programs);
    zf_stack_release(ctx);
    zf_regions_release(ctx);
    free(ctx->wave);
    free(ctx->local_store);
    free(ctx->byval_store);
    free(ctx->dead);
    free(ctx->order);
    free(ctx->out);
    free(ctx);
}

/* Each thread keeps the context of its last launch (stack chunks, wave area, lane arrays, region and program tables)
 * for the next one, so that launches in the steady state allocate little; program contexts are made again, since a
 * program may be gone by the next launch. */
static pthread_key_t zf_spare_key;
static pthread_once_t zf_spare_once = PTHREAD_ONCE_INIT;

static void zf_spare_drop(void *ctx) {
    zf_ctx_destroy(ctx);
}

static bool zf_spare_ready; /* the key exists */

static void zf_spare_init(void) {
    zf_spare_ready = pthread_key_create(&zf_spare_key, zf_spare_drop) == 0;
}

static void zf_pool_quiesce(void);

void zf_spirv_shutdown(void) {
    zf_pool_quiesce(); /* no worker is readying its spare context with the key about to go */
    pthread_once(&zf_spare_once, zf_spare_init);
    if (!zf_spare_ready)
        return;
    zf_ctx_destroy(pthread_getspecific(zf_spare_key));
    pthread_setspecific(zf_spare_key, NULL);
    pthread_key_delete(zf_spare_key);
    zf_spare_ready = false;
}

/* Ends a thread's part of a launch: releases what refers to the launch, and keeps the rest as the thread's spare. */
/* A context holding more than this after a launch (large waves or deep stacks) is freed rather than kept, so that an
 * idle thread holds little memory. */
#define ZF_SPARE_MAX_BYTES ((size_t)8 << 20)

static size_t zf_ctx_footprint(const zf_ctx *ctx) {
    size_t bytes = ctx->cap_wave + ctx->cap_local + ctx->cap_byval + (size_t)ctx->cap_lanes * 5;
    for (uint32_t i = 0; i < ctx->num_chunks; i++)
        bytes += ctx->chunks[i].size;
    for (uint32_t i = 0; i < ctx->num_kept; i++)
        bytes += ctx->programs[i]->consts_size;
    return bytes;
}

static void zf_ctx_retire(zf_ctx *ctx) {
    if (ctx == NULL)
        return;
    /* The programs are kept with their buffers: a program may be gone by the next launch, so they are filled again. */
    ctx->num_programs = 0;
    zf_cx_ctx_release(ctx); /* it holds the launch's arguments */
    zf_regions_reset(ctx);
    zf_stack_reset(ctx);
    pthread_once(&zf_spare_once, zf_spare_init);
    if (!zf_spare_ready || zf_ctx_footprint(ctx) > ZF_SPARE_MAX_BYTES || pthread_getspecific(zf_spare_key) != NULL ||
        pthread_setspecific(zf_spare_key, ctx) != 0)
        zf_ctx_destroy(ctx);
}

/* The thread's spare context, emptied (its buffers kept), or a new one. */
static zf_ctx *zf_ctx_take(void) {
    pthread_once(&zf_spare_once, zf_spare_init);
    zf_ctx *spare = zf_spare_ready ? pthread_getspecific(zf_spare_key) : NULL;
    if (spare == NULL)
        return calloc(1, sizeof(zf_ctx));
    pthread_setspecific(zf_spare_key, NULL);
    zf_ctx keep = *spare;
    memset(spare, 0, sizeof *spare);
    spare->programs = keep.programs;
    spare->cap_programs = keep.cap_programs;
    spare->num_kept = keep.num_kept;
    spare->chunks = keep.chunks;
    spare->num_chunks = keep.num_chunks;
    spare->slots = keep.slots;
    spare->regions = keep.regions;
    spare->cap_regions = keep.cap_regions;
    spare->dead = keep.dead;
    spare->order = keep.order;
    spare->cap_lanes = keep.cap_lanes;
    spare->wave = keep.wave;
    spare->cap_wave = keep.cap_wave;
    spare->local_store = keep.local_store;
    spare->cap_local = keep.cap_local;
    spare->byval_store = keep.byval_store;
    spare->cap_byval = keep.cap_byval;
    spare->out = keep.out;
    spare->out_cap = keep.out_cap;
    return spare;
}

/* A 64-byte aligned buffer of at least `size` bytes (contents undefined); false when out of memory. */
static bool zf_buffer_fit(uint8_t **buffer, size_t *capacity, size_t size) {
    if (*buffer != NULL && *capacity >= size)
        return true;
    free(*buffer);
    *buffer = zf_aligned_alloc(size);
    *capacity = *buffer != NULL ? size : 0;
    return *buffer != NULL;
}

/* The lane arrays of L lanes: the dead mask and the identity order of a wave's members. */
static bool zf_lanes_fit(zf_ctx *ctx) {
    if (ctx->cap_lanes < ctx->L) {
        free(ctx->dead);
        free(ctx->order);
        ctx->dead = malloc(ctx->L);
        ctx->order = malloc((size_t)ctx->L * sizeof *ctx->order);
        ctx->cap_lanes = ctx->dead != NULL && ctx->order != NULL ? ctx->L : 0;
        if (ctx->cap_lanes == 0)
            return false;
    }
    for (uint32_t l = 0; l < ctx->L; l++)
        ctx->order[l] = l;
    memset(ctx->dead, 0, ctx->L);
    return true;
}

/* The per-lane copies of by-value arguments: the bottom private slots, one per such argument in argument order. */
static bool zf_byval_slots(zf_ctx *ctx, const zf_launch_plan *plan) {
    const zf_xlaunch *launch = plan->launch;
    for (uint32_t i = 0; i < launch->num_args; i++) {
        if (launch->args[i].kind != ZF_XARG_BYVAL)
            continue;
        zf_pslot slot = {ctx->byval + plan->byval_offsets[i],
                         (uint32_t)launch->args[i].size,
                         (uint32_t)ctx->byval_stride,
                         0,
                         i,
                         NULL};
        if (zf_slot_push(ctx, &slot) == UINT32_MAX)
            return false;
    }
    return true;
}

static zf_ctx *zf_ctx_create(const zf_launch_plan *plan) {
    const zf_xlaunch *launch = plan->launch;
    const zf_dprog *code = launch->program.code;
    zf_ctx *ctx = zf_ctx_take();
    if (ctx == NULL)
        return NULL;
    ctx->launch = launch;
    ctx->env = launch->env;
    ctx->group_items = plan->group_items;
    ctx->groups_per_wave = plan->groups_per_wave;
    ctx->L = plan->group_items * plan->groups_per_wave;
    ctx->subgroup_size = launch->subgroup_size ? launch->subgroup_size : 1;
    ctx->local_stride = plan->local_stride;
    ctx->byval_stride = plan->byval_stride;
    ctx->deadline_ns = plan->deadline_ns;
    ctx->stop = plan->stop;
    ctx->hang_countdown = ZF_HANG_PERIOD;
    size_t local = plan->local_stride * plan->groups_per_wave, byval = plan->byval_stride * ctx->L;
    bool ok = zf_lanes_fit(ctx) && zf_buffer_fit(&ctx->wave, &ctx->cap_wave, (size_t)code->wave_bytes * ctx->L) &&
              (local == 0 || zf_buffer_fit(&ctx->local_store, &ctx->cap_local, local)) &&
              (byval == 0 || zf_buffer_fit(&ctx->byval_store, &ctx->cap_byval, byval));
    ctx->local = local != 0 ? ctx->local_store : NULL;
    ctx->byval = byval != 0 ? ctx->byval_store : NULL;
    /* The first region is always there: zf_mem's fast path reads regions[last_region] unconditionally. Built-in
     * variables are read-only to kernels. */
    ok = ok && zf_region_add(ctx, ctx->wave, (size_t)code->wave_bytes * ctx->L, ZF_REGION_INTERNAL, NULL, 0);
    if (ok)
        ctx->regions[0].writable = false;
    if (ok && ctx->local)
        ok = zf_region_add(ctx, ctx->local, plan->local_stride * plan->groups_per_wave, ZF_REGION_INTERNAL, NULL, 0);
    ok = ok && zf_byval_slots(ctx, plan);
    if (ok && ctx->local)
        memset(ctx->local, 0, plan->local_stride * plan->groups_per_wave);
    /* A compiled launch reads the lanes' constants and pointers only in the interpreter's handlers it calls: at a
     * compiled wave's 2048 lanes, broadcasting them took 12 % of a small launch (docs/spirv-execution.md, "Compiled
     * tier"). */
    ctx->kernel = plan->kernel;
    bool compiled = plan->compiled != NULL;
    if (ok && zf_program_context_of(ctx, &launch->program, !compiled) == NULL)
        ok = false;
    if (!ok) {
        zf_ctx_destroy(ctx);
        return NULL;
    }
    if (!compiled)
        zf_ctx_lanes_ready(ctx);
    return ctx;
}

void zf_ctx_lanes_ready(zf_ctx *ctx) {
    if (ctx->lanes_ready)
        return;
    zf_pctx *pc = ctx->programs[0];
    if (!pc->filled)
        zf_pctx_fill(ctx, pc);
    zf_fill_wave_pointers(ctx, pc->program.code, ctx->kernel);
    ctx->lanes_ready = true;
}

/* Readies the calling thread for the launches of a program just built, whose waves hold wave_bytes per lane: its spare
 * context gets the wave area and lane arrays of a compiled-tier wave, and its allocator the memory a wave's compiled
 * state takes, all touched, so that a process's first launch takes neither page faults nor a new malloc arena on the
 * threads it runs on. A spare that already holds as much is left as it is. */
#define ZF_WARM_HEAP_BYTES ((size_t)64 << 10) /* below glibc's trim threshold: the pages stay with the arena */
static void zf_ctx_warm(size_t wave_bytes) {
    zf_ctx *ctx = zf_ctx_take();
    if (ctx == NULL)
        return;
    bool fresh = ctx->cap_lanes == 0;
    ctx->L = ZF_COMPILED_WAVE_ITEMS;
    size_t area = wave_bytes * ctx->L, had = ctx->cap_wave;
    if (zf_lanes_fit(ctx) && area <= ZF_SPARE_MAX_BYTES && zf_buffer_fit(&ctx->wave, &ctx->cap_wave, area) &&
        ctx->cap_wave != had)
        memset(ctx->wave, 0, area);
    void *heap = fresh ? malloc(ZF_WARM_HEAP_BYTES) : NULL;
    if (heap != NULL)
        memset(heap, 0, ZF_WARM_HEAP_BYTES);
    free(heap);
    zf_ctx_retire(ctx);
}

void zf_output(zf_ctx *ctx, const char *text, size_t length) {
    if (length == 0)
        return;
    if (ctx->out_len + length > ctx->out_cap) {
        size_t cap = ctx->out_cap ? ctx->out_cap : 4096;
        while (cap < ctx->out_len + length)
            cap *= 2;
        char *out = realloc(ctx->out, cap);
        if (out == NULL)
            return;
        ctx->out = out;
        ctx->out_cap = cap;
    }
    memcpy(ctx->out + ctx->out_len, text, length);
    ctx->out_len += length;
}

static void zf_flush_output(zf_ctx *ctx) {
    if (ctx->out_len == 0)
        return;
    flockfile(stdout);
    fwrite(ctx->out, 1, ctx->out_len, stdout);
    fflush(stdout);
    funlockfile(stdout);
    ctx->out_len = 0;
}

/* ------------------------------------------------------------------------------------------------------------------
 * One wave */

static void zf_fill_params(zf_ctx *ctx, const zf_launch_plan *plan, zf_x *x, uint32_t lanes) {
    const zf_xlaunch *launch = plan->launch;
    const zf_dparam *params = x->code->params + x->fn->param_first;
    uint32_t byval_slot = 0;
    for (uint32_t i = 0; i < launch->num_args && i < x->fn->param_count; i++) {
        const zf_xarg *arg = &launch->args[i];
        uint8_t *reg = zf_reg(x, params[i].ref);
        size_t size = params[i].size;
        /* The driver checks that arguments fit the form's parameters; a form on its own must still not make the
         * engine read past an argument or write past a parameter. */
        size_t pointer = size < 8 ? size : 8, value = size < arg->size ? size : (size_t)arg->size;
        switch (arg->kind) {
        case ZF_XARG_LOCAL:
            for (uint32_t l = 0; l < lanes; l++) {
                uint64_t p = (uint64_t)(uintptr_t)(ctx->local + (l / ctx->group_items) * ctx->local_stride +
                                                   plan->local_offsets[i]);
                memcpy(reg + l * size, &p, pointer);
            }
            break;
        case ZF_XARG_BYVAL:
            for (uint32_t l = 0; l < lanes; l++) {
                memcpy(ctx->byval + l * ctx->byval_stride + plan->byval_offsets[i], arg->value, (size_t)arg->size);
                uint64_t p = zf_private_address(byval_slot, l);
                memcpy(reg + l * size, &p, pointer);
            }
            byval_slot++;
            break;
        default:
            zf_broadcast_value(reg, size, arg->value, value, lanes);
            break;
        }
    }
}

static void zf_run_wave(zf_ctx *ctx, const zf_launch_plan *plan, uint64_t wave) {
    const zf_xlaunch *launch = plan->launch;
    const zf_dprog *code = launch->program.code;
    const zf_dfunc *fn = &code->funcs[plan->kernel->function];
    ctx->wave_first_group = wave * plan->groups_per_wave;
    uint64_t groups = plan->total_groups - ctx->wave_first_group;
    ctx->wave_groups = groups < plan->groups_per_wave ? (uint32_t)groups : plan->groups_per_wave;
    uint32_t lanes = ctx->wave_groups * ctx->group_items;
    if (ctx->faults != ctx->faults_at_clear) { /* only a fault marks a lane dead (zf_fault) */
        memset(ctx->dead, 0, ctx->L);
        ctx->faults_at_clear = ctx->faults;
    }
    if (ctx->local != NULL)
        memset(ctx->local, 0, ctx->local_stride * ctx->groups_per_wave);
    if (plan->compiled != NULL) {
        zf_cx_run_wave(ctx, plan->compiled, plan->local_offsets, plan->byval_offsets);
        zf_flush_output(ctx);
        return;
    }
    zf_fill_builtins(ctx, code, lanes);
    zf_x x;
    zf_mark mark;
    if (!zf_invocation_begin(ctx, ctx->programs[0], fn, ctx->order, lanes, &x, &mark)) {
        ctx->faults += lanes;
        snprintf(ctx->first_fault, sizeof ctx->first_fault, "kernel '%s': out of host memory for a wave", launch->name);
        return;
    }
    zf_fill_params(ctx, plan, &x, lanes);
    zf_invoke(&x);
    zf_invocation_end(ctx, mark);
    zf_flush_output(ctx);
}

/* ------------------------------------------------------------------------------------------------------------------
 * The worker pool */

typedef struct zf_job {
    struct zf_job *next;
    const zf_launch_plan *plan;
    uint64_t next_wave; /* atomic */
    uint32_t helpers;   /* workers inside the job, guarded by the pool lock */
    zf_xresult *merged; /* the caller's result; guarded by the pool lock */
    uint64_t first_fault_wave;
} zf_job;

static struct {
    pthread_mutex_t lock;
    pthread_cond_t work; /* a job was posted */
    pthread_cond_t done; /* a helper left a job */
    zf_job *jobs;
    uint32_t workers;
    bool started;
    uint64_t warm_serial;   /* bumped by each module build that asks the workers to get ready (zf_ctx_warm) */
    size_t warm_wave_bytes; /* what the latest one asked for */
    uint32_t warming;       /* workers readying themselves now */
    bool closing;           /* the library is unloading: no more of that */
} zf_pool = {
    PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL, 0, false, 0, 0, 0, false};

static void zf_merge(zf_job *job, const zf_ctx *ctx, uint64_t fault_wave) {
    zf_xresult *r = job->merged;
    if (ctx->faults > 0 && fault_wave < job->first_fault_wave) {
        job->first_fault_wave = fault_wave;
        snprintf(r->first_fault, sizeof r->first_fault, "%s", ctx->first_fault);
    }
    r->faults += ctx->faults;
    r->hung |= ctx->hung;
    r->lane_ops += ctx->lane_ops;
    zf_work_add(&r->work, &ctx->work);
    for (int k = 0; k < ZF_ITT_COUNT; k++)
        r->annotations[k] += ctx->annotations[k];
}

/* Takes waves until none is left; the context is made on the first wave taken. `shared`: other threads may be in the
 * job, so the results merge under the pool lock. */
static void zf_participate(zf_job *job, bool shared) {
    zf_ctx *ctx = NULL;
    uint64_t fault_wave = UINT64_MAX;
    uint64_t wave = 0, taken = 0;
    for (;; wave++) {
        if (wave == taken) {
            wave = __atomic_fetch_add(&job->next_wave, job->plan->take, __ATOMIC_RELAXED);
            taken = wave + job->plan->take;
        }
        if (wave >= job->plan->waves || __atomic_load_n(job->plan->stop, __ATOMIC_RELAXED))
            break;
        if (ctx == NULL && (ctx = zf_ctx_create(job->plan)) == NULL) {
            if (shared)
                pthread_mutex_lock(&zf_pool.lock);
            job->merged->faults += job->plan->group_items;
            if (wave < job->first_fault_wave) {
                job->first_fault_wave = wave;
                snprintf(job->merged->first_fault, sizeof job->merged->first_fault,
                         "kernel '%s': out of host memory for a wave", job->plan->launch->name);
            }
            if (shared)
                pthread_mutex_unlock(&zf_pool.lock);
            continue;
        }
        uint64_t before = ctx->faults;
        zf_run_wave(ctx, job->plan, wave);
        if (ctx->faults > before && fault_wave == UINT64_MAX)
            fault_wave = wave;
    }
    if (ctx == NULL)
        return;
    if (shared)
        pthread_mutex_lock(&zf_pool.lock);
    zf_merge(job, ctx, fault_wave);
    if (shared)
        pthread_mutex_unlock(&zf_pool.lock);
    zf_ctx_retire(ctx);
}

static void *zf_worker_main(void *arg) {
    (void)arg;
    uint64_t warmed = 0;
    pthread_mutex_lock(&zf_pool.lock);
    for (;;) {
        zf_job *job = zf_pool.jobs;
        while (job != NULL && __atomic_load_n(&job->next_wave, __ATOMIC_RELAXED) >= job->plan->waves)
            job = job->next;
        if (job == NULL && warmed != zf_pool.warm_serial && !zf_pool.closing) {
            warmed = zf_pool.warm_serial;
            size_t wave_bytes = zf_pool.warm_wave_bytes;
            zf_pool.warming++;
            pthread_mutex_unlock(&zf_pool.lock);
            zf_ctx_warm(wave_bytes);
            pthread_mutex_lock(&zf_pool.lock);
            zf_pool.warming--;
            pthread_cond_broadcast(&zf_pool.done);
            continue;
        }
        if (job == NULL) {
            pthread_cond_wait(&zf_pool.work, &zf_pool.lock);
            continue;
        }
        job->helpers++;
        pthread_mutex_unlock(&zf_pool.lock);
        zf_participate(job, true);
        pthread_mutex_lock(&zf_pool.lock);
        job->helpers--;
        pthread_cond_broadcast(&zf_pool.done);
    }
    return NULL;
}

/* A child of fork() has none of the workers: it starts its own pool when it needs one. */
static void zf_pool_after_fork(void) {
    pthread_mutex_init(&zf_pool.lock, NULL);
    pthread_cond_init(&zf_pool.work, NULL);
    pthread_cond_init(&zf_pool.done, NULL);
    zf_pool.jobs = NULL;
    zf_pool.workers = 0;
    zf_pool.started = false;
    zf_pool.warming = 0;
    zf_pool.closing = false;
}

/* Waits for the workers readying themselves, and stops them doing it again (library unload). */
static void zf_pool_quiesce(void) {
    pthread_mutex_lock(&zf_pool.lock);
    zf_pool.closing = true;
    while (zf_pool.warming > 0)
        pthread_cond_wait(&zf_pool.done, &zf_pool.lock);
    pthread_mutex_unlock(&zf_pool.lock);
}

/* The cores this process may run on: those of its affinity mask, so that a process given one core does not
 * time-slice two engine threads on it. */
uint32_t zf_spirv_host_cores(void) {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return (uint32_t)CPU_COUNT(&set);
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    return online > 1 ? (uint32_t)online : 1;
}

/* Starts the workers once (called with the pool lock held); a host with one core gets none. */
static void zf_pool_start(void) {
    if (zf_pool.started)
        return;
    zf_pool.started = true;
    pthread_atfork(NULL, NULL, zf_pool_after_fork);
    uint32_t cores = zf_spirv_host_cores();
    uint32_t wanted = cores > 1 ? cores - 1 : 0;
    if (wanted > ZF_MAX_WORKERS)
        wanted = ZF_MAX_WORKERS;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    for (uint32_t i = 0; i < wanted; i++) {
        pthread_t thread;
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old); /* workers take no signals meant for the application */
        int rc = pthread_create(&thread, &attr, zf_worker_main, NULL);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        if (rc != 0)
            break;
        zf_pool.workers++;
    }
    pthread_attr_destroy(&attr);
}

void zf_spirv_prefetch(const zf_xlaunch *launch) {
    zf_cx_prefetch(launch);
}

void zf_spirv_prepare(const zf_dprog *code) {
    pthread_mutex_lock(&zf_pool.lock);
    zf_pool_start();
    zf_pool.warm_serial++;
    zf_pool.warm_wave_bytes = code->wave_bytes;
    pthread_cond_broadcast(&zf_pool.work);
    pthread_mutex_unlock(&zf_pool.lock);
    zf_ctx_warm(code->wave_bytes);
    zf_cx_prepare(code);
}

static void zf_run_job(zf_job *job, uint64_t threads) {
    bool share = job->plan->waves > job->plan->take && threads > 1; /* one take: nothing to share */
    if (share) {
        pthread_mutex_lock(&zf_pool.lock);
        zf_pool_start();
        share = zf_pool.workers > 0;
        if (share) {
            job->next = zf_pool.jobs;
            zf_pool.jobs = job;
            pthread_cond_broadcast(&zf_pool.work);
        }
        pthread_mutex_unlock(&zf_pool.lock);
    }
    zf_participate(job, share);
    if (!share)
        return;
    pthread_mutex_lock(&zf_pool.lock);
    for (zf_job **p = &zf_pool.jobs; *p != NULL; p = &(*p)->next) {
        if (*p == job) {
            *p = job->next;
            break;
        }
    }
    while (job->helpers > 0)
        pthread_cond_wait(&zf_pool.done, &zf_pool.lock);
    pthread_mutex_unlock(&zf_pool.lock);
}

/* ------------------------------------------------------------------------------------------------------------------
 * The launch */

static uint64_t zf_deadline_ns(uint64_t timeout_ns) {
    uint64_t at = zf_spirv_now_ns();
    return at + timeout_ns < at ? UINT64_MAX : at + timeout_ns;
}

/* The threads a launch runs on: one per core, or fewer when the launch says so. */
static uint64_t zf_launch_threads(uint32_t max_threads) {
    uint64_t threads = zf_spirv_host_cores();
    return max_threads != 0 && max_threads < threads ? max_threads : threads;
}

/* Waves of more groups for the compiled tier (ZF_COMPILED_WAVE_ITEMS, ZF_ROWS_WAVE_ITEMS). */
static void zf_compiled_waves(zf_launch_plan *plan, uint64_t threads) {
    const uint32_t *size = plan->launch->group_size;
    bool rows = zf_cx_rows_across_waves(plan->compiled) && (uint64_t)size[1] * size[2] > 1; /* a 1-D wave is one */
    uint64_t most = rows ? ZF_ROWS_WAVE_ITEMS : ZF_COMPILED_WAVE_ITEMS;
    uint64_t by_size = most / plan->group_items;
    uint64_t by_balance = plan->total_groups / (threads * ZF_WAVES_PER_THREAD);
    uint64_t per_wave = by_size < by_balance ? by_size : by_balance;
    if (per_wave <= plan->groups_per_wave)
        return;
    plan->groups_per_wave = (uint32_t)per_wave;
    plan->waves = (plan->total_groups + per_wave - 1) / per_wave;
}

/* How many consecutive waves a thread takes at a time (ZF_TAKE_ITEMS). */
static uint64_t zf_wave_take(const zf_launch_plan *plan, uint64_t threads) {
    uint64_t by_size = ZF_TAKE_ITEMS / ((uint64_t)plan->groups_per_wave * plan->group_items);
    uint64_t by_balance = plan->waves / (threads * ZF_WAVES_PER_THREAD);
    uint64_t take = by_size < by_balance ? by_size : by_balance;
    return take > 0 ? take : 1;
}

/* A compiled launch's time to the thread choice (spirv_tune.c); a change of choice goes to the debug log. */
static void zf_tune_report(const zf_xlaunch *launch, zf_tune *tune, uint64_t threads, uint64_t all, uint64_t ns,
                           uint64_t items, uint64_t atomics) {
    if (!zf_tune_ran(tune, threads, all, ns, items, atomics) || launch->env == NULL || launch->env->debug == NULL)
        return;
    char text[256];
    bool one = atomic_load_explicit(&tune->one, memory_order_relaxed);
    snprintf(text, sizeof text,
             "kernel '%s': its launches run on %s: %.2f ns per work-item on one thread, %.2f on %llu", launch->name,
             one ? "one thread" : "every thread",
             (double)atomic_load_explicit(&tune->best_ps[0], memory_order_relaxed) / 1000.0,
             (double)atomic_load_explicit(&tune->best_ps[1], memory_order_relaxed) / 1000.0, (unsigned long long)all);
    launch->env->debug(launch->env->user, text);
}

void zf_spirv_execute(const zf_xlaunch *launch, zf_xresult *result) {
    memset(result, 0, sizeof *result);
    const zf_dprog *code = launch->program.code;
    if (launch->kernel >= code->num_kernels)
        return;
    zf_launch_plan plan = {.launch = launch, .kernel = &code->kernels[launch->kernel]};
    uint64_t items = (uint64_t)launch->group_size[0] * launch->group_size[1] * launch->group_size[2];
    plan.total_groups = (uint64_t)launch->groups[0] * launch->groups[1] * launch->groups[2];
    if (items == 0 || plan.total_groups == 0 || items > UINT32_MAX / 2)
        return;
    plan.group_items = (uint32_t)items;
    uint64_t per_wave = items >= ZF_WAVE_LANES ? 1 : ZF_WAVE_LANES / items;
    plan.groups_per_wave = (uint32_t)(per_wave < plan.total_groups ? per_wave : plan.total_groups);
    plan.waves = (plan.total_groups + plan.groups_per_wave - 1) / plan.groups_per_wave;
    size_t offsets[2 * 64];
    size_t *local_offsets = launch->num_args <= 64 ? offsets : malloc(2 * launch->num_args * sizeof *local_offsets);
    if (local_offsets == NULL) {
        result->faults = items * plan.total_groups;
        snprintf(result->first_fault, sizeof result->first_fault, "kernel '%s': out of host memory", launch->name);
        return;
    }
    plan.local_offsets = local_offsets;
    plan.byval_offsets = local_offsets + launch->num_args;
    plan.local_stride = zf_local_layout(launch, plan.kernel, plan.local_offsets);
    plan.byval_stride = zf_byval_layout(launch, plan.byval_offsets);
    uint32_t stop = 0;
    plan.stop = &stop;
    plan.compiled = zf_cx_for_launch(launch); /* a compilation is not execution: the hang limit starts after it */
    /* One wave runs on the calling thread whatever the cores: no look at the affinity mask (a system call). */
    uint64_t all = plan.waves > 1 ? zf_launch_threads(launch->max_threads) : 1;
    zf_tune *tune = plan.compiled != NULL ? zf_cx_tune(plan.compiled) : NULL;
    uint64_t threads = tune != NULL ? zf_tune_threads(tune, all) : all;
    if (plan.compiled != NULL)
        zf_compiled_waves(&plan, threads);
    plan.take = zf_wave_take(&plan, threads);
    plan.deadline_ns = launch->hang_timeout_ns ? zf_deadline_ns(launch->hang_timeout_ns) : 0;
    zf_job job = {.plan = &plan, .merged = result, .first_fault_wave = UINT64_MAX};
    uint64_t start = zf_spirv_now_ns();
    zf_run_job(&job, threads);
    result->hung |= stop != 0;
    if (tune != NULL && result->faults == 0 && !result->hung)
        zf_tune_report(launch, tune, threads, all, zf_spirv_now_ns() - start, items * plan.total_groups,
                       result->work.ops[ZF_OPS_ATOMIC]);
    if (local_offsets != offsets)
        free(local_offsets);
}
