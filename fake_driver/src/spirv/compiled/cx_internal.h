/* The compiled tier's own parts: cx_emit*.c (decoded form -> LLVM IR), cx_jit.c (optimization, native code, the cache
 * and the per-kernel choice) and cx_run.c (waves, the helpers the generated code calls). The generated code reads
 * the run-time state below through fixed offsets (offsetof), so this struct is the contract between the two. */
#ifndef ZF_SPIRV_CX_INTERNAL_H
#define ZF_SPIRV_CX_INTERNAL_H

#include "cx.h"

#include <llvm-c/Core.h>

/* An argument's allocation: an address p is inside when p - lo <= span - size (unsigned), span >= size. An
 * argument that is not in an allocation has lo = span = 0: every access through it takes the checked slow path. */
typedef struct zf_cx_window {
    uint64_t lo;
    uint64_t span;
} zf_cx_window;

/* An image read's place in the code (one per emitted read): the image and sampler handles it last looked up for the
 * thread in this launch and what its inline code needs of them (zf_image_plain, masks for the result's type);
 * format 0 sends the read to the interpreter's handler. */
#define ZF_CX_MAX_TEXSITES 65536u /* a kernel with more takes the interpreter */
typedef struct zf_cx_texsite {
    uint64_t image, sampler, filled;
    uint8_t *base;
    uint64_t size;
    uint64_t extent[3], pitch[3], keep[3]; /* keep: all ones for the coordinates the image has */
    uint32_t and_mask[4], or_mask[4];      /* per channel of the result: its component kept, or a constant */
    uint32_t border[4];                    /* the result outside the image */
    uint32_t format;                       /* ZF_PLAIN_FORMAT */
    uint32_t clamp, normalized, spare;
} zf_cx_texsite;

/* What the generated wave function reads (and the helpers it calls receive). */
typedef struct zf_cx_rt {
    zf_x *x;                  /* the wave's invocation, for zf_mem and zf_fault */
    const uint8_t **argv;     /* per kernel parameter: its value's bytes */
    const zf_cx_window *win;  /* per kernel parameter */
    const uint64_t *local_at; /* per kernel parameter: offset of a local argument in a group's local memory */
    const uint64_t *relocs;   /* the program's resolved relocations */
    uint8_t *local;           /* the wave's groups' local memory */
    uint64_t local_stride;
    uint64_t local_span; /* local memory of the wave: what the interpreter's check accepts for a local pointer */
    uint64_t *counts;    /* per block of the kernel's code: entries, added by the wave function */
    uint64_t first_group, wave_groups;
    uint64_t group_size[3], groups[3], offset[3];
    uint64_t group_items, subgroup_size, work_dim;
    uint64_t poll_period;    /* block entries at loop heads between two looks at the hang detector's clock */
    uint8_t *spill;          /* kernels with barriers: each lane's record while it waits at a barrier */
    uint8_t *bail;           /* and the frame bytes of a work-item that bailed that its record has no place for */
    uint64_t *states;        /* and whether each lane waits (1) or has finished (ZF_CX_DONE) */
    const zf_dinst *insts;   /* the form's instructions, which helpers receive (zf_cx_inst_ref) */
    uint64_t diverged;       /* a group of the launch stopped at different barriers (logged once per thread) */
    zf_cx_texsite *texsites; /* the kernel's image reads */
    /* Bytes the block table counts that faulted work-items did not move (the rest of the block they faulted in):
     * global read, written, local read, written, taken off by the wave's account. */
    uint64_t unrun[4];
} zf_cx_rt;

#define ZF_CX_DONE      UINT64_MAX
#define ZF_CX_BAILED    3u
#define ZF_CX_BAIL_BASE 0x40000000u /* resume points of bail points: this plus the access's instruction index */
/* Function f's place in the bail area (zf_cx_rt.bail): the frames of the functions before it; f = num_funcs gives the
 * area's size. */
static inline size_t zf_cx_bail_area(const zf_dprog *code, uint32_t f) {
    size_t at = 0;
    for (uint32_t g = 0; g < f && g < code->num_funcs; g++)
        at += code->funcs[g].frame_bytes;
    return at;
}

/* A work-item as the generated functions receive it (an array of i64). */
enum {
    ZF_CX_ITEM_LANE = 0,
    ZF_CX_ITEM_SLOT, /* its group's place in the wave */
    ZF_CX_ITEM_LID,  /* 3 local ids */
    ZF_CX_ITEM_GRP = ZF_CX_ITEM_LID + 3,
    ZF_CX_ITEM_STATE = ZF_CX_ITEM_GRP + 3, /* in: 0 to start, 1 to resume; out: 2 when it waits at a barrier,
                                              ZF_CX_BAILED when it left a region's copy at a bail point */
    ZF_CX_ITEM_SPILL, /* its record's offset in rt->spill: the frames of the functions it waits in, their resume
                         points */
    ZF_CX_ITEM_PATH,  /* out, when it waits: the path (region) of the function it waits in */
    ZF_CX_ITEM_COUNT,
    /* In the wave's work-item, for the unchecked copy (cx_emit_hoist.c): its place along dimension 0 from the sites'
     * origin (its local id x in a group, its x in the wave's box of groups), then per site, the origin and its steps
     * along the 3 dimensions. */
    ZF_CX_ITEM_ALONG = ZF_CX_ITEM_COUNT + 1,
    ZF_CX_ITEM_SITES
};

/* A block of the compiled code: its place in the form, and the bytes its argument-relative accesses move (counted
 * per entry, like its instructions; the other accesses count themselves in zf_cx_mem). */
typedef struct zf_cx_block {
    uint32_t form_block;                /* index into prog->blocks */
    uint64_t read, written;             /* global bytes, through argument pointers */
    uint64_t read_local, written_local; /* local bytes, through pointers to local memory */
} zf_cx_block;

struct zf_cx_kernel {
    void (*wave)(zf_cx_rt *rt);
    uint32_t num_blocks;
    zf_cx_block *blocks;
    uint32_t num_params;
    uint32_t spill_bytes; /* per work-item: the record of a kernel with barriers, else 0 */
    uint32_t num_regions; /* kernels with barriers: the stretches of code between them */
    uint32_t num_texsites;
    uint32_t num_proven;  /* accesses checked once per group rather than per work-item (cx_emit_hoist.c) */
    uint32_t num_derived; /* block counts the unchecked copy derives rather than counts (cx_emit_count.c) */
    uint32_t num_affine;  /* widened indices the unchecked copy computes in 64 bits (cx_emit_hoist.c) */
    uint32_t wave_rows;   /* 1: a wave the box proof covers runs row by row across its groups (cx_emit.c) */
    uint32_t step_lanes;  /* work-items its checked loops run side by side (cx_emit_step.c), else 0 */
    zf_tune tune;         /* the threads its launches run on (spirv_tune.c) */
};

/* What cx_emit.c makes of a kernel: a module with one external function, "zf_cx_wave", and the block table; or, when
 * the kernel uses something the tier does not compile, NULL and the reason. kinds: each parameter's zf_xarg_kind;
 * group_size: the only group size the code will run with (constants LLVM unrolls and vectorises with), or NULL for
 * code that reads it at run time. */
typedef struct zf_cx_unit {
    LLVMModuleRef module;
    zf_cx_block *blocks;
    uint32_t num_blocks;
    uint32_t spill_bytes;
    uint32_t num_regions;
    uint32_t num_texsites;
    uint32_t num_proven;
    uint32_t num_derived;
    uint32_t num_affine;
    uint32_t wave_rows;
    uint32_t step_lanes;
} zf_cx_unit;

bool zf_cx_emit(LLVMContextRef llvm, const zf_dprog *code, uint32_t kernel, const zf_xarg_kind *kinds,
                uint32_t num_kinds, const uint32_t *group_size, zf_cx_unit *out, char *why, size_t why_size);

/* The operand sizes of an instruction, SHUFFLE's from its component counts: the emitter stages operands by them and
 * zf_cx_lane_op lays them out by them. */
static inline bool zf_cx_sizes(const zf_dprog *code, const zf_dinst *in, zf_operand_sizes *s) {
    if (!zf_form_operand_sizes(in, s))
        return false;
    if (in->op == ZF_X_SHUFFLE) {
        uint32_t e = zf_etype_size(in->type);
        s->a = e * zf_slot(code->aux[in->aux]);
        s->b = e * zf_slot(code->aux[in->aux + 1]);
    }
    return true;
}

/* Edge k of a block's terminator (a branch, a conditional branch or a switch, its default last); false past the
 * last. */
static inline bool zf_cx_term_edge(const zf_dprog *code, const zf_dinst *term, uint32_t k, uint32_t *edge) {
    uint32_t n = term->op == ZF_X_BR ? 1 : term->op == ZF_X_BRC ? 2 : 0;
    if (k < n) {
        *edge = term->aux + k;
        return true;
    }
    if (term->op != ZF_X_SWITCH)
        return false;
    const uint32_t *aux = code->aux + term->aux;
    if (k > aux[0])
        return false;
    *edge = k == aux[0] ? aux[1] : aux[2 + 3 * k + 2];
    return true;
}

/* Instructions that exchange values between work-items (zf_cx_xchg_get), and those the work-item waits at for the
 * rest of its group: work-group barriers and those. */
static inline bool zf_cx_exchanges(uint32_t op) {
    return op == ZF_X_GROUP || op == ZF_X_SGSHUFFLE;
}
static inline bool zf_cx_waits(uint32_t op) {
    return op == ZF_X_BARRIER || zf_cx_exchanges(op);
}

static inline bool zf_cx_is_list_op(uint32_t op) {
    return op == ZF_X_CALLP || op == ZF_X_PRINTF || op == ZF_X_ASYNCCOPY;
}

/* The registers an instruction with a list of operands reads (a call through a function pointer, printf,
 * async_work_group_copy: zf_cx_list_op): operand k, 0 being its operand a and then those its aux names, and its size;
 * false past the last. The aux was checked with the form (spirv_form.c). */
static inline bool zf_cx_list_operand(const zf_dprog *code, const zf_dinst *in, uint32_t k, zf_ref *ref,
                                      uint32_t *bytes) {
    const uint32_t *aux = code->aux + in->aux;
    if (!zf_cx_is_list_op(in->op))
        return false;
    if (k == 0) {
        *ref = in->op == ZF_X_PRINTF ? ZF_REF_NONE : in->a;
        *bytes = 8; /* the function pointer; the event the copy is given */
        return true;
    }
    k--;
    switch (in->op) {
    case ZF_X_CALLP:
        if (k >= aux[0])
            return false;
        *ref = aux[1 + 2 * k];
        *bytes = aux[2 + 2 * k];
        return true;
    case ZF_X_PRINTF:
        if (k > aux[1])
            return false;
        *ref = k == 0 ? aux[0] : aux[2 + 4 * (k - 1)];
        *bytes = k == 0 ? 8 : aux[2 + 4 * (k - 1) + 3];
        return true;
    case ZF_X_ASYNCCOPY:
        if (k >= 4)
            return false;
        *ref = aux[k];
        *bytes = k < 2 ? 8 : aux[2 + k];
        return true;
    default:
        return false;
    }
}

/* The size of the result of such an instruction. */
static inline uint32_t zf_cx_list_result(const zf_dinst *in) {
    return in->op == ZF_X_CALLP ? in->size : in->op == ZF_X_PRINTF ? 4 : 8;
}

/* ---- helpers called by the generated code (cx_run.c) ----
 * Generated code names them (ZF_CX_HELPER) and the JIT binds each name of ZF_CX_HELPERS to its address in the
 * process that loads the code (cx_jit.c): a new helper must be listed there. */
#define ZF_CX_HELPERS(X)                                                                                               \
    X(zf_cx_mem)                                                                                                       \
    X(zf_cx_pure)                                                                                                      \
    X(zf_cx_lane_op)                                                                                                   \
    X(zf_cx_list_op)                                                                                                   \
    X(zf_cx_xchg_put)                                                                                                  \
    X(zf_cx_xchg_get)                                                                                                  \
    X(zf_cx_var_slot)                                                                                                  \
    X(zf_cx_slots_mark)                                                                                                \
    X(zf_cx_slots_pop)                                                                                                 \
    X(zf_cx_copy)                                                                                                      \
    X(zf_cx_texsite_fill)                                                                                              \
    X(zf_cx_atomic_float)                                                                                              \
    X(zf_cx_misaligned)                                                                                                \
    X(zf_cx_unreachable)                                                                                               \
    X(zf_cx_diverged)                                                                                                  \
    X(zf_cx_poll)                                                                                                      \
    X(zf_cx_deadline)
/* A helper's name for zf_cx_call; sizeof makes the compiler check that the helper is declared, without referencing
 * it (the emitter lives in the compiled tier's own library, which has no helpers). */
#define ZF_CX_HELPER(fn) (sizeof(&(fn)) ? #fn : #fn)
/* The prefix of the C library's math functions as generated code names them (cx_emit_ops.c, bound by cx_elf.c). */
#define ZF_CX_LIBM_PREFIX "zf_cx_libm_"

/* Flags of zf_cx_mem. */
enum { ZF_CX_WRITE = 1u, ZF_CX_COUNT = 2u, ZF_CX_COUNT_READ = 4u /* atomics: read and written */ };
/* The host address of an access at base + offset (an argument's window and the offset from it, which the fast path
 * checked; or 0 and the address), checked as the interpreter checks it (and its bytes counted with ZF_CX_COUNT);
 * NULL after the work-item was stopped with the interpreter's fault. The fast path has no use of the address itself:
 * the optimizer folds the window into a loop-invariant part of the offset. */
uint8_t *zf_cx_mem(zf_cx_rt *rt, uint64_t lane, uint64_t base, uint64_t offset, uint64_t size, uint64_t flags);
/* Runs one decoded instruction that computes its result from its operands alone on one work-item, with the
 * interpreter's handler: operands a, b, c at scratch + 256, 512, 768, the result at scratch. */
void zf_cx_pure(zf_cx_rt *rt, const zf_dinst *in, uint8_t *scratch);
#define ZF_CX_SCRATCH_SLOT 256u
/* Runs one decoded instruction that works on one work-item alone but may touch memory or images, or depend on the
 * work-item's place in its sub-group (images, vector loads and stores, sub-group block accesses, math functions with
 * output pointers), with the interpreter's handler on work-item `lane`, operands and result as for zf_cx_pure;
 * nonzero when the work-item faulted. */
uint32_t zf_cx_lane_op(zf_cx_rt *rt, const zf_dinst *in, uint8_t *scratch, uint64_t lane);
/* An instruction with a list of operands (zf_cx_list_operand) for work-item `lane` alone, with the interpreter's
 * handler: the operands the frame holds packed in their order at `args`, the result at scratch; nonzero when the
 * work-item faulted. An async_work_group_copy is made by the first work-item of its group (or sub-group) to reach it;
 * the others only take its event. */
uint32_t zf_cx_list_op(zf_cx_rt *rt, const zf_dinst *in, uint8_t *scratch, uint64_t lane, const uint8_t *args);
/* A collective or a sub-group shuffle, in two halves around a wait (the kernel's regions run the group's other
 * work-items in between): the work-item's operands (at the scratch as for zf_cx_lane_op) into the exchange area;
 * then its result at the scratch, computed by the interpreter's handler for the whole group (or sub-group) when it is
 * the first of them to resume: 0, or 1 when the work-item faulted, 2 when it must wait again (others of its group
 * have yet to come). */
void zf_cx_xchg_put(zf_cx_rt *rt, const zf_dinst *in, const uint8_t *scratch, uint64_t lane);
uint32_t zf_cx_xchg_get(zf_cx_rt *rt, const zf_dinst *in, uint8_t *scratch, uint64_t lane);
/* Private variables: a new slot for the work-item's copy at base + in->aux (its private address, 0 after a fault),
 * the slots in use, and dropping those above a mark. */
uint64_t zf_cx_var_slot(zf_cx_rt *rt, uint64_t lane, const zf_dinst *in, uint8_t *base);
uint64_t zf_cx_slots_mark(zf_cx_rt *rt);
void zf_cx_slots_pop(zf_cx_rt *rt, uint64_t mark);
/* A memory copy of `size` bytes, checked, counted and made as the interpreter makes it; 0 when the work-item faulted.
 */
uint32_t zf_cx_copy(zf_cx_rt *rt, uint64_t lane, uint64_t to, uint64_t from, uint64_t size);
/* Looks up an image read's image and sampler for its site (zf_image_plain_of) and records them there. */
void zf_cx_texsite_fill(zf_cx_rt *rt, const zf_dinst *in, zf_cx_texsite *site, uint64_t image, uint64_t sampler);
/* The plain formats the inline image reads decode into a result of type `type` (floats from normalized and 32-bit
 * float components, 32-bit integers from integer ones); others take the handler. */
static inline bool zf_cx_texel_decodes(uint32_t format, uint32_t type) {
    uint32_t bytes = (format >> 4) & 0xFu, channel = (format >> 8) - 1u;
    if (type == ZF_T_F32)
        return ((channel == ZF_CH_UNORM || channel == ZF_CH_SNORM) && bytes <= 2) ||
               (channel == ZF_CH_FLOAT && bytes == 4);
    return type == ZF_T_I32 && (channel == ZF_CH_UINT || channel == ZF_CH_SINT);
}
/* The interpreter's float minimum and maximum of an atomic (LLVM 14 has no atomic float min or max): the new value. */
uint64_t zf_cx_atomic_float(uint64_t kind, uint64_t old, uint64_t v, uint64_t bits);
/* Stops the work-item with the fault of an atomic on an address not aligned to its size. */
void zf_cx_misaligned(zf_cx_rt *rt, uint64_t lane, uint64_t addr, uint64_t bytes);
/* Stops the work-item at OpUnreachable. */
void zf_cx_unreachable(zf_cx_rt *rt, uint64_t lane);
/* Logs that the work-items of a group stopped at different barriers or ended apart (once per thread and launch, and
 * not after a fault). */
void zf_cx_diverged(zf_cx_rt *rt, uint64_t group);
/* The hang detector: nonzero when the launch must stop (the work-item was stopped with the hang fault). */
uint32_t zf_cx_poll(zf_cx_rt *rt, uint64_t lane);
/* The same look for the copy in step (cx_emit_step.c), which stops no work-item: nonzero when the launch must stop. */
uint32_t zf_cx_deadline(zf_cx_rt *rt);

/* ---- the emitter (cx_emit.c, cx_emit_ops.c, cx_emit_mem.c) ---- */

/* OpenCL.std numbers compiled inline (spirv_opencl_std.h names them all). */
enum { ZF_CX_E_FABS = 23, ZF_CX_E_FMA = 26, ZF_CX_E_FMAX = 27, ZF_CX_E_FMIN = 28, ZF_CX_E_MAD = 42, ZF_CX_E_SQRT = 61 };

#define ZF_CX_PROV_NONE  0u
#define ZF_CX_PROV_OTHER 0xFFFFu
#define ZF_CX_PROV_LOCAL 0xFFFEu /* into the wave's local memory: a local variable or argument */
#define ZF_CX_MAX_FRAME  (1u << 20)

typedef struct zf_cx_loop {
    LLVMBasicBlockRef head, body, exit;
    LLVMValueRef i;
} zf_cx_loop;

/* A phi of one computation on every path, made again at the start of the block it lands in (a form block index). */
typedef struct zf_cx_remat {
    uint32_t block, inst;
    zf_ref dst;
} zf_cx_remat;

/* Registers a resumable function makes again where it resumes instead of keeping them in the record
 * (cx_emit_recompute.c). */
typedef struct zf_cx_rc zf_cx_rc;

#define ZF_CX_STEP_MAX 8u /* work-items in step at most */

typedef struct zf_cx_em {
    LLVMContextRef c;
    LLVMModuleRef m;
    LLVMBuilderRef b, eb; /* eb: the allocas of the current function */
    const zf_dprog *code;
    const zf_dkernel *kernel;
    const zf_xarg_kind *kinds;
    uint32_t num_kinds;
    uint64_t group_local_bytes; /* a group's local memory when the code knows its size (zf_cx_window_has), else 0 */
    uint64_t fixed_size[3];     /* the group size the code is specialized to; 0s: read from the state at run time */
    char *why;
    size_t why_size;
    bool failed;
    LLVMTypeRef i1, i8, i16, i32, i64, f32, f64, p8, p64, fn_type;
    LLVMValueRef consts;
    LLVMValueRef *fns;    /* per form function: NULL when not reached */
    uint32_t *block_base; /* per form function: unit index of its block 0 */
    zf_cx_block *blocks;  /* unit blocks */
    uint32_t num_blocks;
    /* The function being emitted. */
    const zf_dfunc *fn;
    bool is_entry;
    LLVMValueRef f, rt, counts, item, args, ret, frame, scratch, lane;
    LLVMValueRef priv, mark; /* functions with private variables: their memory, the private slots in use at entry */
    /* Barriers. A function that waits at a barrier, or calls one that may, is resumable: it can return with the
     * work-item waiting (item state 2) after saving its frame and resume point in the work-item's record, and is
     * called again later (state 1) to restore them and go on; no function is on a call chain twice (no recursion),
     * so each has one place in the record. */
    bool barriers;          /* the kernel has barriers */
    uint8_t *resumable;     /* per form function */
    uint32_t *spill_off;    /* per form function: its frame's offset in the record */
    uint32_t **packed;      /* per form function: its frame bytes' places there (zf_cx_pack_record) */
    zf_cx_rc **recompute;   /* per form function: the registers made again where it resumes (cx_emit_recompute.c) */
    uint32_t *resume_at;    /* per form function: its resume point's offset in the record */
    uint32_t *private_at;   /* per form function: its private variables' offset in the record (resumable ones) */
    bool vars;              /* a function the kernel reaches declares private variables */
    LLVMValueRef wave_mark; /* kernels with barriers and private variables: the private slots in use at wave start */
    uint32_t spill_bytes;   /* the record's size */
    LLVMValueRef dispatch;  /* the current (resumable) function's switch to its resume points */
    LLVMValueRef record;
    uint32_t resumes;
    /* Regions (docs/spirv-execution.md, "How a work-group runs"). A path of a resumable function is where a work-item
     * can be in it: 0 its start, or one of its resume points, a barrier (one path) or the call of a resumable function
     * (one path for each of the callee's paths but its start); a path of the entry function is a region of the kernel.
     * Each function is emitted once generic (it reads its resume point from the record) and once per path reached
     * (a copy that enters at that path without looking at the record: the optimizer keeps only the code that runs
     * from there to the next barrier). */
    uint32_t region; /* the path of the copy being emitted, UINT32_MAX for the generic function */
    /* Bail points: the copy being emitted leaves at an access outside its window (bails), the generic entry function
     * resumes there (bail_resumes); the access being emitted is one (bail_here). */
    bool bails_pay; /* the kernel uses bail points (zf_cx_bails_pay) */
    bool bails, bail_resumes, bail_here, bail_spill;
    uint32_t num_regions;    /* the entry function's paths; 0 when there are too many to compile them apart */
    uint32_t *paths;         /* per function: its paths */
    uint32_t **path_base;    /* per function, per resume point k >= 1: its first path */
    uint32_t **point_callee; /* per function, per resume point: the function it calls, UINT32_MAX for a barrier */
    LLVMValueRef **copies;   /* per function, per path */
    uint64_t *pending;       /* copies declared and not yet emitted: function << 32 | path */
    uint32_t num_pending;
    bool counting;     /* the block table's bytes are added in the first emission of a function only */
    uint32_t blk, idx; /* the instruction being emitted: its block in the function, its place in the block */
    uint64_t *live_in; /* liveness of the frame's bytes at each block's entry (NULL: the whole frame is live) */
    uint64_t *point;   /* the bytes to keep at the current resume point */
    uint64_t *written; /* a region's copy: the frame bytes its code can write before it waits (NULL: any) */
    uint32_t words;    /* 64-bit words of a frame's byte set */
    /* per parameter of the entry function: its window's base (a loaded pointer: LLVM tells the accesses based on it
     * from the function's own memory, which an address made from an integer it does not), as an integer, its span */
    LLVMValueRef *win_base, *win_lo, *win_span;
    LLVMBasicBlockRef *bbs, fault_bb;
    uint16_t *prov;
    uint32_t *heights;     /* per form function: zf_cx_post_order's */
    uint16_t **param_prov; /* per form function: each parameter's provenance over the calls that reach it */
    uint32_t cur;          /* unit index of the block being emitted */
    uint32_t num_texsites; /* image reads emitted */
    /* The current block's windowed bytes emitted so far (in every emission), and its fault edges: each one's add of
     * the bytes the rest of the block counts, completed when the block ends (zf_cx_fault_edges_close). */
    zf_cx_block so_far;
    struct zf_cx_edge_note *edges;
    uint32_t num_edges, cap_edges;
    bool leaves; /* the function being emitted has a way out for a work-item that stops (a fault, a helper that kills
                    it, the hang detector) of its own, not only its callees' */
    /* Checks made per group (cx_emit_hoist.c): which copy is being emitted, the sites of the plan (per form
     * instruction: its first value the probe records, their kind, whether the probe computes it; NULL when the
     * kernel does not qualify), the two copies and the metadata of the unchecked one's accesses and loop. */
    uint8_t mode;
    uint32_t *site;
    uint8_t *site_kind, *computed, *copy_good;
    struct zf_cx_remat *remat; /* phis the unchecked copy computes again where they land */
    uint32_t num_remat, cap_remat;
    uint32_t num_sites, num_proven; /* values the probe records; accesses it covers */
    bool sites_local;               /* a value the probe records depends on more than the global id */
    bool unchecked_leaves;          /* a function of the unchecked copy has a way out for a work-item that stops */
    bool wave_rows;                 /* the wave runs rows across its groups when its box proof holds */
    uint64_t slot_vn[64];           /* per site: the value number it records (ZF_CX_MAX_SITES) */
    uint8_t slot_kind[64];
    int64_t slot_coef[64]; /* per site: its factor of local id x when known (ZF_CX_COEF_UNKNOWN) */
    LLVMValueRef probe_fn, unchecked_fn, probe_bad, access_group, parallel_loop;
    LLVMValueRef box_sites;       /* the wave proof's site table (its origin is the first group's) */
    LLVMValueRef site_values[64]; /* the unchecked copy's widened values in the function being emitted */
    /* Counts the unchecked copy derives (cx_emit_count.c): its function's counter stores (per block), the counters of
     * the wave's unchecked groups, and the rules. */
    LLVMValueRef *count_stores, ucounts, row_counts;
    struct zf_cx_counting *count_plan;
    /* Work-items in step (cx_emit_step.c): how many (0 when the kernel does not qualify), the entry function's frame
     * bytes that vary along x, the copy, and while it is emitted the caller's counters and each work-item's frame,
     * work-item and index. */
    uint32_t step_lanes, step_body; /* step_body: the function whose body the copy runs (zf_cx_step_body) */
    uint8_t *step_vary;
    LLVMValueRef step_fn, step_out;
    LLVMValueRef step_frames[ZF_CX_STEP_MAX], step_items[ZF_CX_STEP_MAX], step_lane[ZF_CX_STEP_MAX];
} zf_cx_em;

enum { ZF_CX_CHECKED = 0, ZF_CX_PROBE, ZF_CX_UNCHECKED, ZF_CX_STEP };
enum { ZF_CX_SITE_NONE = 0, ZF_CX_SITE_ADDRESS, ZF_CX_SITE_ZEXT, ZF_CX_SITE_SEXT };
#define ZF_CX_COEF_UNKNOWN    INT64_MIN
#define ZF_CX_HOIST_MIN_ITEMS 16u /* smaller groups keep their checks: the proof would cost more */

/* cx_emit_count.c: block counts the unchecked copy derives rather than counts. */
bool zf_cx_counting_start(zf_cx_em *e);
void zf_cx_counting_free(zf_cx_em *e);
void zf_cx_count_derive(zf_cx_em *e, LLVMValueRef *count_stores);
void zf_cx_count_resolve(zf_cx_em *e, LLVMValueRef ucounts, LLVMValueRef counts);
uint32_t zf_cx_count_derived(const zf_cx_em *e);

/* Refuses the kernel with a reason (the first one given wins); the emitter goes on but its module is dropped. */
void zf_cx_fail(zf_cx_em *e, const char *format, ...) __attribute__((format(printf, 2, 3)));

/* cx_emit_ops.c: IR helpers, registers, and the instructions computed from their operands. */
LLVMValueRef zf_cx_i64c(zf_cx_em *e, uint64_t v);
LLVMValueRef zf_cx_gep(zf_cx_em *e, LLVMValueRef p8, uint64_t offset);
LLVMValueRef zf_cx_load_ir(zf_cx_em *e, LLVMTypeRef t, LLVMValueRef p8);
void zf_cx_store(zf_cx_em *e, LLVMValueRef v, LLVMValueRef p8);
void zf_cx_move(zf_cx_em *e, LLVMValueRef dst, LLVMValueRef src, uint64_t size);
LLVMValueRef zf_cx_alloca(zf_cx_em *e, uint64_t bytes);
LLVMValueRef zf_cx_load_invariant(zf_cx_em *e, LLVMTypeRef t, LLVMValueRef p8);
LLVMValueRef zf_cx_rt_field(zf_cx_em *e, size_t offset, LLVMTypeRef t);
/* Where the current work-item's group's local memory starts (an i64 address): its kernel's local variables first. */
LLVMValueRef zf_cx_group_local_lo(zf_cx_em *e);
LLVMValueRef zf_cx_item(zf_cx_em *e, uint32_t k);
void zf_cx_set_item(zf_cx_em *e, uint32_t k, LLVMValueRef v);
LLVMValueRef zf_cx_call(zf_cx_em *e, const char *helper, LLVMTypeRef ret, LLVMTypeRef *params, unsigned n,
                        LLVMValueRef *args);
LLVMValueRef zf_cx_inst_ref(zf_cx_em *e, const zf_dinst *in);
LLVMValueRef zf_cx_reg(zf_cx_em *e, zf_ref ref, uint32_t size);
LLVMValueRef zf_cx_dst(zf_cx_em *e, zf_ref ref);
/* Operands a, b, c of an instruction at the scratch's slots 1, 2, 3 (zf_cx_pure, zf_cx_lane_op, zf_cx_xchg_put); their
 * sizes. */
zf_operand_sizes zf_cx_stage_operands(zf_cx_em *e, const zf_dinst *in);
void zf_cx_pure_call(zf_cx_em *e, const zf_dinst *in);
void zf_cx_lane_call(zf_cx_em *e, const zf_dinst *in);
void zf_cx_list_inst(zf_cx_em *e, const zf_dinst *in);
void zf_cx_exchange_inst(zf_cx_em *e, const zf_dinst *in);
bool zf_cx_vector_memory(zf_cx_em *e, const zf_dinst *in);
/* A barrier, a collective, or the call of a function that may wait at one (cx_emit_mem.c). */
bool zf_cx_is_resume_point(const zf_cx_em *e, const zf_dinst *in);
bool zf_cx_typed(zf_cx_em *e, const zf_dinst *in);
void zf_cx_select(zf_cx_em *e, const zf_dinst *in);
void zf_cx_gather(zf_cx_em *e, const zf_dinst *in);
LLVMValueRef zf_cx_intrinsic(zf_cx_em *e, const char *name, LLVMTypeRef *types, unsigned ntypes, LLVMValueRef *args,
                             unsigned nargs);

/* cx_emit.c: a function's body in the current mode, and the loops of the wave function. */
void zf_cx_function_body(zf_cx_em *e, uint32_t fi);
zf_cx_loop zf_cx_loop_begin(zf_cx_em *e, LLVMValueRef n);
LLVMValueRef zf_cx_loop_end(zf_cx_em *e, zf_cx_loop *l);

/* cx_emit_hoist.c: checks made once per group for accesses at affine addresses. */
void zf_cx_hoist(zf_cx_em *e);
void zf_cx_hoist_free(zf_cx_em *e);
bool zf_cx_hoisted(const zf_cx_em *e);
void zf_cx_parallel_access(zf_cx_em *e, const zf_dinst *in, LLVMValueRef host);
bool zf_cx_probe_inst(zf_cx_em *e, const zf_dinst *in);
void zf_cx_probe_copies(zf_cx_em *e, uint32_t first, uint32_t count);
void zf_cx_unchecked_sites(zf_cx_em *e);
/* How many of the unchecked copy's widened values zf_cx_unchecked_sites computes. */
uint32_t zf_cx_affine_sites(const zf_cx_em *e);
bool zf_cx_unchecked_widening(zf_cx_em *e, const zf_dinst *in, uint32_t at);
LLVMValueRef zf_cx_hoist_proof(zf_cx_em *e, const LLVMValueRef *gs, LLVMValueRef first_row, LLVMValueRef base,
                               LLVMValueRef items, LLVMValueRef table);
LLVMValueRef zf_cx_wave_proof(zf_cx_em *e, const LLVMValueRef *gs, const LLVMValueRef *groups);
void zf_cx_box_sites(zf_cx_em *e, LLVMValueRef width);

/* cx_emit_step.c: work-items side by side in one copy of a kernel whose branches do not vary along x. */
void zf_cx_step(zf_cx_em *e);
void zf_cx_step_free(zf_cx_em *e);
LLVMValueRef zf_cx_step_frame(const zf_cx_em *e, uint32_t o, uint32_t size);
void zf_cx_step_start(zf_cx_em *e);
void zf_cx_step_counts_out(zf_cx_em *e);
void zf_cx_step_move(zf_cx_em *e, zf_ref dst, zf_ref src, uint32_t size);
void zf_cx_step_inst(zf_cx_em *e, const zf_dinst *in);
/* cx_emit.c: the blocks that head loops of the current function (calloc'd, NULL when out of memory), and the
 * instructions computed from their operands alone. */
bool *zf_cx_loop_heads(zf_cx_em *e);
bool zf_cx_is_pure(uint32_t op);

/* cx_emit_image.c: image reads and writes of plain formats inline, the rest through the handler. */
void zf_cx_image_access(zf_cx_em *e, const zf_dinst *in);

/* A conditional branch whose first successor is taken almost always (cx_emit_mem.c). */
void zf_cx_likely(zf_cx_em *e, LLVMValueRef br);

/* cx_emit_mem.c: provenance, checked memory, barriers (liveness, suspension), calls, returns, private variables. */
void zf_cx_provenance(zf_cx_em *e, uint32_t fi);
void zf_cx_copy_inst(zf_cx_em *e, const zf_dinst *in);
void zf_cx_atomic(zf_cx_em *e, const zf_dinst *in);
void zf_cx_memory(zf_cx_em *e, const zf_dinst *in);
/* The window a pointer register's provenance names (the local one is num_kinds), UINT32_MAX for none; whether an
 * access of `size` bytes at addr is inside window k. */
uint32_t zf_cx_window_of(const zf_cx_em *e, zf_ref ptr);
LLVMValueRef zf_cx_window_has(zf_cx_em *e, uint32_t k, LLVMValueRef addr, uint32_t size);
void zf_cx_address(zf_cx_em *e, const zf_dinst *in);
bool zf_cx_liveness(zf_cx_em *e);
uint32_t zf_cx_pack_record(zf_cx_em *e, uint32_t f);
void zf_cx_region_writes(zf_cx_em *e, uint32_t resume_point);
/* Function fn's recomputed registers (NULL without memory: none); whether frame byte o is in one; makes those of the
 * bytes set in `point` again, in the current function. */
zf_cx_rc *zf_cx_rc_plan(const zf_dprog *code, const zf_dfunc *fn);
void zf_cx_rc_free(zf_cx_rc *rc);
bool zf_cx_rc_has(const zf_cx_rc *rc, uint32_t o);
void zf_cx_recompute(zf_cx_em *e, zf_cx_rc *rc, const uint64_t *point);
/* Emits one instruction of the current function (cx_emit.c). */
void zf_cx_inst(zf_cx_em *e, const zf_dinst *in);
void zf_cx_barrier(zf_cx_em *e);
bool zf_cx_bail_point(const zf_cx_em *e, const zf_dinst *in);
void zf_cx_bail(zf_cx_em *e);
void zf_cx_bail_resume(zf_cx_em *e);
/* The block a check that fails in the current block branches to: it takes the bytes of the rest of the block off the
 * count, then leaves the function faulted. */
LLVMBasicBlockRef zf_cx_fault_edge(zf_cx_em *e);
/* The current block ends: its fault edges get their byte counts, and the next block starts from nothing. */
void zf_cx_fault_edges_close(zf_cx_em *e);
/* The copy of function f that enters at path p (declared now and emitted later when new). */
LLVMValueRef zf_cx_new_function(zf_cx_em *e, const char *name);
LLVMValueRef zf_cx_copy_of(zf_cx_em *e, uint32_t f, uint32_t p);
/* The resume point of a path of function f, and for a call's point the callee's path (else 0). */
uint32_t zf_cx_path_point(const zf_cx_em *e, uint32_t f, uint32_t p, uint32_t *callee_path);
void zf_cx_call_inst(zf_cx_em *e, const zf_dinst *in);
void zf_cx_unreachable_inst(zf_cx_em *e);
void zf_cx_return(zf_cx_em *e, bool faulted);
void zf_cx_var(zf_cx_em *e, const zf_dinst *in);
bool zf_cx_has_vars(const zf_dprog *code, const zf_dfunc *fn);

#endif
