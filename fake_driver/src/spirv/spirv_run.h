/* The engine's inner workings, shared by its source files: spirv_wave.c (launches, waves, threads),
 * spirv_run.c (function invocations, control flow, calls), spirv_mem.c (memory access checks) and the handlers of
 * spirv_ops*.c.
 *
 * A wave is one or more whole work-groups run as the lanes of one instruction stream on one thread. Within a
 * function invocation every lane waits at some block; the engine runs the lowest-numbered block that has lanes, for
 * all of them at once (blocks are numbered for reconvergence, spirv_cfg.c). A handler therefore applies one decoded
 * instruction to the active lanes: all of them in one contiguous loop when they are all there (`full`), or those in
 * the `lanes` list. Barriers need no waiting: when a block runs, every lane of the group that will reach it is there.
 */
#ifndef ZF_SPIRV_RUN_H
#define ZF_SPIRV_RUN_H

#include "spirv_exec.h"
#include "spirv_form.h"
#include "spirv_internal.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define ZF_LANE_DONE      UINT32_MAX
#define ZF_MAX_CALL_DEPTH 64u

/* A memory range a kernel may touch, cached per thread so that most checks are two comparisons. */
typedef enum zf_region_kind {
    ZF_REGION_ALLOCATION = 0, /* a USM allocation (held until the launch ends) */
    ZF_REGION_HOST,           /* ordinary host memory, as the process's mappings allow */
    ZF_REGION_INTERNAL,       /* the engine's own: private and local memory, built-in values, module globals */
} zf_region_kind;

typedef struct zf_region {
    uintptr_t lo, hi; /* [lo, hi) may be accessed */
    uintptr_t guard;  /* [hi, guard) belongs to the allocation's mapping but is out of bounds */
    void *hold;
    uint8_t kind;
    uint8_t writable;
} zf_region;

/* A program's constants broadcast for this thread. */
typedef struct zf_pctx {
    zf_xprogram program;
    uint8_t *consts;    /* const_bytes * L */
    size_t consts_size; /* what consts holds (a kept context reuses it for the next launch) */
    bool filled;        /* consts holds the program's constants (zf_ctx_lanes_ready) */
} zf_pctx;

/* Bump-allocated memory for frames and private variables (chunks never move: pointers into them stay valid). */
typedef struct zf_chunk {
    uint8_t *block; /* as allocated */
    uint8_t *base;  /* 64-byte aligned */
    size_t size;
    size_t used;
} zf_chunk;

/* A position of the stack, to pop back to, with the private slots in use then. */
typedef struct zf_mark {
    uint32_t chunk;
    size_t used;
    uint32_t slots;
} zf_mark;

/* Private memory (docs/spirv-execution.md, "Faults"): each Function-storage variable of a live invocation, and each
 * by-value argument copy, is an allocation of its own, a slot. Kernels never see host addresses of it: a private
 * pointer is ZF_PRIVATE_TAG | (slot + 1) << 48 | lane << 28 | offset, an address no host mapping has (the + 1 keeps
 * the tag when an access before lane 0's copy of slot 0 borrows from the slot bits), which every access
 * checks against the slot's size and the lane's own copy before it is turned into a host address. An index past the
 * end (or before the start) of an array changes the offset into the lane or slot bits, so it faults instead of reaching
 * a neighbour, the engine's registers or its bookkeeping. */
#define ZF_PRIVATE_TAG         (1ull << 62)
#define ZF_PRIVATE_OFFSET_BITS 28u
#define ZF_PRIVATE_LANE_BITS   20u
#define ZF_PRIVATE_SLOT_BITS   14u
#define ZF_PRIVATE_MAX_SLOTS   ((1u << ZF_PRIVATE_SLOT_BITS) - 1)

typedef struct zf_pslot {
    uint8_t *base;    /* lane 0's copy */
    uint32_t size;    /* bytes of one copy */
    uint32_t stride;  /* bytes from one lane's copy to the next */
    uint32_t id;      /* the variable's SPIR-V id; 0 for a by-value argument */
    uint32_t arg;     /* a by-value argument's index */
    const char *name; /* the variable's name, or NULL */
} zf_pslot;

static inline uint64_t zf_private_address(uint32_t slot, uint32_t lane) {
    return ZF_PRIVATE_TAG | (uint64_t)(slot + 1) << (ZF_PRIVATE_OFFSET_BITS + ZF_PRIVATE_LANE_BITS) |
           (uint64_t)lane << ZF_PRIVATE_OFFSET_BITS;
}

/* The slot a private pointer names (UINT32_MAX for the field 0 no slot has) and its offset in the lane's copy. */
static inline uint32_t zf_private_slot(uint64_t addr) {
    return (uint32_t)(addr >> (ZF_PRIVATE_OFFSET_BITS + ZF_PRIVATE_LANE_BITS) & ZF_PRIVATE_MAX_SLOTS) - 1;
}
static inline uint64_t zf_private_offset(uint64_t addr) {
    return addr & ((1u << ZF_PRIVATE_OFFSET_BITS) - 1);
}

/* Whether a collective, a shuffle or an asynchronous copy is the sub-group's rather than the work-group's. */
static inline bool zf_group_scope_is_subgroup(const zf_dinst *in) {
    if (in->op == ZF_X_ASYNCCOPY)
        return in->type != 0;
    return in->op == ZF_X_SGSHUFFLE || ((in->aux >> 8) & 0xFu) == SpvScopeSubgroup;
}

/* The event an async_work_group_copy returns: the one it was given, else a new one (never 0, the null event). */
static inline uint64_t zf_async_event(uint64_t given) {
    return given != 0 ? given : 1;
}

/* A function pointer resolved on this thread. */
typedef struct zf_resolved {
    uint64_t address;
    zf_pctx *program;
    uint32_t function;
} zf_resolved;

/* One thread's state for one launch. */
typedef struct zf_ctx {
    const zf_xlaunch *launch;
    const zf_exec_env *env;
    uint32_t L;           /* lanes of a wave */
    uint32_t group_items; /* work-items per group */
    uint32_t groups_per_wave;
    uint32_t subgroup_size;
    uint8_t *wave;       /* wave area: wave_bytes * L */
    uint8_t *local;      /* the wave's groups' local memory */
    size_t local_stride; /* per group */
    uint8_t *byval;      /* per-lane copies of by-value struct arguments */
    size_t byval_stride;
    zf_pctx **programs; /* each allocated on its own: invocations keep pointers to them */
    uint32_t num_programs, cap_programs;
    uint32_t num_kept; /* programs[num_programs..num_kept) are emptied ones, kept for reuse */
    zf_chunk *chunks;  /* in allocation order; chunks above `top` are free for reuse */
    uint32_t num_chunks, top;
    zf_spirv_array slots; /* zf_pslot, a stack: by-value copies at the bottom, then the variables of live calls */
    zf_resolved resolved[16];
    uint32_t num_resolved;
    uint8_t *dead;            /* [L]: lanes stopped by a fault */
    uint64_t faults_at_clear; /* `faults` when `dead` was last cleared: a wave clears it only after a fault */
    uint32_t *order;          /* [L]: 0..L-1, the members of a wave's invocation */
    /* What a context kept for the next launch on its thread owns (spirv_wave.c, "Contexts"): the buffers above and
     * below, with their capacities; local and byval point into theirs when the launch has such memory. */
    uint32_t cap_lanes;
    size_t cap_wave, cap_local, cap_byval;
    uint8_t *local_store, *byval_store;
    uint32_t depth;
    /* A work-item of compiled code calls through a function pointer alone (zf_cx_list_op): a barrier the callee
     * reaches cannot wait for the rest of its group there. */
    bool lone_call;
    zf_region *regions;
    uint32_t num_regions, cap_regions, last_region;
    char *maps; /* /proc/self/maps, read at the first access outside every known region */
    bool maps_read;
    bool padding_told; /* env->padding was called for an access in an allocation's padding */
    /* The wave being run. */
    uint64_t wave_first_group; /* linear index of its first group */
    bool builtins_ready;       /* the wave-invariant built-ins of all L lanes are in the wave area */
    bool lanes_ready;          /* the first program's constants and the wave's pointers are in all L lanes */
    const zf_dkernel *kernel;  /* the launch's kernel in its form */
    uint32_t wave_groups;
    /* The hang detector: the launch's deadline (host monotonic ns, 0: none), the flag that stops every thread once
     * one saw it pass, and blocks left before this thread looks at the clock again. */
    uint64_t deadline_ns;
    uint32_t *stop;
    uint32_t hang_countdown;
    /* Results. */
    bool hung;
    uint64_t faults;
    char first_fault[ZF_FAULT_TEXT_MAX];
    uint64_t lane_ops;
    zf_work_counts work;
    uint64_t annotations[ZF_ITT_COUNT];
    /* printf output of the wave, written to stdout at once. */
    char *out;
    size_t out_len, out_cap;
    /* The compiled tier's state for the launch (compiled/cx_run.c), NULL when the interpreter runs it. */
    struct zf_cx_thread *cx;
} zf_ctx;

/* One function invocation. */
typedef struct zf_x {
    zf_ctx *ctx;
    zf_pctx *prog;
    const zf_dprog *code;
    const zf_dfunc *fn;
    uint8_t *area[3]; /* frame, const, wave */
    uint32_t L;
    uint32_t n;        /* active lanes */
    bool full;         /* all L lanes, in order */
    bool killed;       /* a lane faulted in the current instruction */
    uint32_t *lanes;   /* [L]: the active lanes */
    uint32_t *members; /* [L]: the lanes of this invocation, ascending */
    uint32_t num_members;
    uint32_t live;      /* members still running */
    uint32_t *block_of; /* [L]: each lane's next block */
    uint32_t *scratch;  /* [L] */
    int64_t next;       /* set by a terminator: the block every active lane goes to, or -1 */
    uint8_t *private_base;
} zf_x;

typedef void (*zf_handler)(zf_x *x, const zf_dinst *in);

/* The handlers, indexed by zf_xop (spirv_xops.def names each one; the files of its group define it). */
#define ZF_XOP(NAME, name, handler) void handler(zf_x *x, const zf_dinst *in);
#include "spirv_xops.def"
#undef ZF_XOP
extern zf_handler const zf_handlers[ZF_X_COUNT];

static inline uint8_t *zf_reg(const zf_x *x, zf_ref r) {
    return x->area[r >> 30] + (size_t)(r & 0x3FFFFFFFu) * x->L;
}

/* Runs the body (the macro's last arguments) for every element index i of the active lanes, `per` per lane. */
#define ZF_EACH(x, per, ...)                                                                                           \
    do {                                                                                                               \
        size_t zf_per_ = (per);                                                                                        \
        if ((x)->full) {                                                                                               \
            size_t zf_total_ = (size_t)(x)->L * zf_per_;                                                               \
            for (size_t i = 0; i < zf_total_; i++) {                                                                   \
                __VA_ARGS__;                                                                                           \
            }                                                                                                          \
        } else {                                                                                                       \
            for (uint32_t zf_k_ = 0; zf_k_ < (x)->n; zf_k_++) {                                                        \
                size_t zf_first_ = (size_t)(x)->lanes[zf_k_] * zf_per_;                                                \
                for (size_t i = zf_first_; i < zf_first_ + zf_per_; i++) {                                             \
                    __VA_ARGS__;                                                                                       \
                }                                                                                                      \
            }                                                                                                          \
        }                                                                                                              \
    } while (0)

/* Runs the body for every active lane l. */
#define ZF_LANES(x, ...)                                                                                               \
    do {                                                                                                               \
        for (uint32_t zf_k_ = 0; zf_k_ < (x)->n; zf_k_++) {                                                            \
            uint32_t l = (x)->lanes[zf_k_];                                                                            \
            __VA_ARGS__;                                                                                               \
        }                                                                                                              \
    } while (0)

/* Copies `size` bytes per lane between registers of that size, for the active lanes. */
static inline void zf_copy_lanes(const zf_x *x, uint8_t *dst, const uint8_t *src, size_t size) {
    if (x->full) {
        memmove(dst, src, size * x->L);
        return;
    }
    for (uint32_t k = 0; k < x->n; k++) {
        size_t l = x->lanes[k];
        memmove(dst + l * size, src + l * size, size);
    }
}

/* ---- spirv_run.c ---- */

/* Runs a function invocation whose members and frame are set up, until every member returned or faulted. */
void zf_invoke(zf_x *x);
/* Stack memory for an invocation: frame, private memory and lane arrays. NULL when out of memory. */
bool zf_invocation_begin(zf_ctx *ctx, zf_pctx *prog, const zf_dfunc *fn, const uint32_t *lanes, uint32_t n, zf_x *sub,
                         zf_mark *mark);
void zf_invocation_end(zf_ctx *ctx, zf_mark mark);
/* Frees the stack chunks of a context; zf_stack_reset empties the stack and keeps them for the next launch. */
void zf_stack_release(zf_ctx *ctx);
void zf_stack_reset(zf_ctx *ctx);
/* Adds a private slot; its number, or UINT32_MAX when every slot is in use (or out of memory). */
uint32_t zf_slot_push(zf_ctx *ctx, const zf_pslot *slot);
/* Removes lanes that faulted from the invocation's active list (after an instruction set x->killed). */
void zf_drop_dead(zf_x *x);
/* The host's monotonic clock, in ns. */
uint64_t zf_spirv_now_ns(void);
/* Blocks a thread runs between two looks at the clock for the hang detector. */
#define ZF_HANG_PERIOD 1024u
/* Whether the launch must stop (its deadline passed): the invocation's running lanes are then stopped with a fault. */
bool zf_hang_check(zf_x *x);
/* Whether the launch has run past the hang detector's deadline: then it stops every thread and sets ctx->hung. */
bool zf_past_deadline(zf_ctx *ctx);

/* ---- spirv_tune.c ---- */

/* The threads a compiled kernel's launches run on, measured per kernel and group size (zero-initialised). */
enum { ZF_TUNE_UNKNOWN = 0, ZF_TUNE_ATOMIC, ZF_TUNE_PLAIN };
typedef struct zf_tune {
    _Atomic uint64_t launches;   /* launches measured, the first (not timed) included */
    _Atomic uint32_t kind;       /* ZF_TUNE_ATOMIC: its first launch executed an atomic per work-item or more */
    _Atomic uint64_t last_ps[2]; /* time per work-item of the latest launch, in ps: [0] on one thread, [1] on all */
    _Atomic uint64_t best_ps[2]; /* the best of the latest two; 0 while there is one only */
    _Atomic bool one;            /* one thread was the faster */
} zf_tune;

/* The threads the next launch runs on: 1 or `all`. */
uint64_t zf_tune_threads(const zf_tune *tune, uint64_t all);
/* A launch of `items` work-items, which executed `atomics` atomics, ran on `threads` threads in `ns` without a
 * fault: true when that changed the choice. */
bool zf_tune_ran(zf_tune *tune, uint64_t threads, uint64_t all, uint64_t ns, uint64_t items, uint64_t atomics);

/* ---- spirv_mem.c ---- */

/* A host pointer for [addr, addr + size) if lane `lane` may access it (writing when `write`); otherwise NULL after
 * the lane was stopped with a fault naming the address. */
uint8_t *zf_mem_slow(zf_x *x, uint32_t lane, uint64_t addr, uint32_t size, bool write);
/* The fault of a private access that zf_private refused (or the slow path for an address that is not private). */
uint8_t *zf_private_refused(zf_x *x, uint32_t lane, uint64_t addr, uint32_t size, bool write);

/* A private pointer of lane `lane`: the host address of [addr, addr + size) in its own copy of a live slot. */
static inline uint8_t *zf_private(zf_x *x, uint32_t lane, uint64_t addr, uint32_t size, bool write) {
    const zf_ctx *ctx = x->ctx;
    uint32_t slot = zf_private_slot(addr);
    uint64_t unit = addr >> ZF_PRIVATE_OFFSET_BITS & ((1u << ZF_PRIVATE_LANE_BITS) - 1);
    uint64_t offset = zf_private_offset(addr);
    if (addr >> 62 == 1 && slot < ctx->slots.count && unit == lane) {
        const zf_pslot *s = ZF_SPIRV_AT(ctx->slots, zf_pslot, slot);
        if (offset <= s->size && size <= s->size - offset)
            return s->base + (size_t)lane * s->stride + offset;
    }
    return zf_private_refused(x, lane, addr, size, write);
}

static inline uint8_t *zf_mem(zf_x *x, uint32_t lane, uint64_t addr, uint32_t size, bool write) {
    const zf_region *r = &x->ctx->regions[x->ctx->last_region];
    if (addr >= r->lo && addr <= r->hi - size && size <= r->hi - r->lo && (r->writable || !write))
        return (uint8_t *)(uintptr_t)addr;
    if (addr & ZF_PRIVATE_TAG)
        return zf_private(x, lane, addr, size, write);
    return zf_mem_slow(x, lane, addr, size, write);
}

/* The last region used, copied into locals by loops over lanes: stores into registers cannot alias it then, so the
 * compiler keeps it in registers instead of re-reading the region table for every lane. */
typedef struct zf_mem_window {
    uintptr_t lo, hi;
    bool writable;
} zf_mem_window;

static inline zf_mem_window zf_window(const zf_x *x) {
    const zf_region *r = &x->ctx->regions[x->ctx->last_region];
    return (zf_mem_window){r->lo, r->hi, r->writable};
}

/* zf_mem through a window, which follows the region the slow path settles on. */
static inline uint8_t *zf_mem_via(zf_x *x, zf_mem_window *w, uint32_t lane, uint64_t addr, uint32_t size, bool write) {
    if (addr >= w->lo && addr <= w->hi - size && size <= w->hi - w->lo && (w->writable || !write))
        return (uint8_t *)(uintptr_t)addr;
    if (addr & ZF_PRIVATE_TAG)
        return zf_private(x, lane, addr, size, write);
    uint8_t *p = zf_mem_slow(x, lane, addr, size, write);
    *w = zf_window(x);
    return p;
}

/* Adds a region the engine owns (always accepted). */
bool zf_region_add(zf_ctx *ctx, const void *base, size_t size, zf_region_kind kind, void *hold, uintptr_t guard);
void zf_regions_release(zf_ctx *ctx);
/* Releases the regions' holds and forgets them, keeping the array for the next launch. */
void zf_regions_reset(zf_ctx *ctx);
/* Which storage class an address belongs to, for generic pointers: 4 Workgroup, 7 Function (private pointers),
 * 5 CrossWorkgroup. */
uint32_t zf_mem_storage_of(const zf_ctx *ctx, uint64_t addr);

/* The address space (ZF_SPACE_*) an address lies in. */
static inline uint32_t zf_space_of(const zf_ctx *ctx, uint64_t addr) {
    uint32_t storage = zf_mem_storage_of(ctx, addr);
    return storage == 4 ? ZF_SPACE_LOCAL : storage == 7 ? ZF_SPACE_PRIVATE : ZF_SPACE_GLOBAL;
}

/* Counts an access of `bytes` per lane by every active lane, in the address space of `addr` (the first active lane's
 * address: lanes of one instruction are taken to access one space). */
static inline void zf_count_access(zf_x *x, uint64_t addr, uint64_t bytes, bool write) {
    uint64_t *space = write ? x->ctx->work.written : x->ctx->work.read;
    space[zf_space_of(x->ctx, addr)] += bytes * x->n;
}

/* Counts one lane's access (per-lane sizes: memory copies). */
static inline void zf_count_lane(zf_x *x, uint64_t addr, uint64_t bytes, bool write) {
    uint64_t *space = write ? x->ctx->work.written : x->ctx->work.read;
    space[zf_space_of(x->ctx, addr)] += bytes;
}

/* Stops lane `lane` with a fault; the first fault of the launch is kept with the lane's work-item. */
void zf_fault(zf_x *x, uint32_t lane, const char *format, ...) __attribute__((format(printf, 3, 4)));

/* ---- spirv_wave.c ---- */

/* The work dimension of a launch: the highest dimension whose global size exceeds 1. */
uint32_t zf_work_dim(const zf_xlaunch *launch);
/* The ids of the work-item of lane `lane` in the current wave. */
void zf_lane_ids(const zf_ctx *ctx, uint32_t lane, uint64_t global[3], uint64_t group[3], uint64_t local[3]);
/* The program context (constants broadcast for this thread) of a program, made on first use. NULL when out of
 * memory. */
zf_pctx *zf_program_context(zf_ctx *ctx, const zf_xprogram *program);
/* Makes the first program's constants and the wave's pointers (built-in addresses, local variables) of a compiled
 * launch's context, which its waves read only when they call the interpreter's handlers: at the first such call. */
void zf_ctx_lanes_ready(zf_ctx *ctx);
/* Appends printf output for the wave. */
void zf_output(zf_ctx *ctx, const char *text, size_t length);

/* ---- spirv_image.c ---- */

/* Channel types of an image (ze_image_format_type_t). */
enum { ZF_CH_UINT = 0, ZF_CH_SINT, ZF_CH_UNORM, ZF_CH_SNORM, ZF_CH_FLOAT };
/* A format of whole-byte components as one number: component count, bytes per component, channel type. */
#define ZF_PLAIN_FORMAT(comps, bytes, channel)                                                                         \
    ((uint32_t)(comps) | (uint32_t)(bytes) << 4 | ((uint32_t)(channel) + 1u) << 8)
enum { ZF_PLAIN_ZERO = 0, ZF_PLAIN_ONE, ZF_PLAIN_COMP };

/* What a read of an image needs when its format is plain: whole-byte components of the layout's order, no sRGB. A
 * texel at coordinates x (each kept one inside its extent; clamped to it first with `clamp`) is at base + sum of x[d]
 * * pitch[d], when its pitch[0] bytes lie within size; outside, a read gives zeros and alpha border_alpha. Channel k of
 * the texel is its component k (ZF_PLAIN_COMP) or a constant. Float coordinates are multiplied by the extent first
 * when normalized, then rounded down. */
typedef struct zf_image_plain {
    uint8_t *base;
    uint64_t size;
    uint64_t extent[3], pitch[3];
    bool kept[3];
    uint32_t format;
    uint8_t channel[4];
    bool clamp, normalized, border_alpha;
} zf_image_plain;

/* The description of a read (ZF_IMG_READ), sampled read (ZF_IMG_SAMPLE) or write (ZF_IMG_WRITE) of `image` (with
 * `sampler`) when it accesses it the plain way (nearest filtering, no repeat or mirror, no array layer for a sampled
 * read), as zf_h_image does; false when the access needs the handler: another format or sampler, or a handle that
 * names no image or sampler. A write ignores the border and clamp: a texel outside the image is not written. */
bool zf_image_plain_of(const zf_exec_env *env, const zf_dinst *in, uint64_t image, uint64_t sampler,
                       zf_image_plain *out);

/* ---- spirv_ops_mem.c ---- */

/* OpCopyMemory(Sized) for lane l: the source is checked before the destination. False after a fault. */
bool zf_copy_memory(zf_x *x, uint32_t l, uint64_t to, uint64_t from, uint64_t size);
/* The value a float atomic (ZF_ATOM_FADD, FMIN, FMAX) of `bits` bits stores, from the old one and the operand. */
uint64_t zf_atomic_float(uint32_t kind, uint64_t old, uint64_t v, uint32_t bits);

#endif
