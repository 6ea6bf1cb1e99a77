/* The compiled tier's own parts: cx_emit.c (decoded form -> LLVM IR), cx_jit.c (optimization, native code, the cache
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
    uint64_t poll_period; /* block entries at loop heads between two looks at the hang detector's clock */
    uint8_t *spill;       /* kernels with barriers: each lane's record while it waits at a barrier */
    uint64_t *states;     /* and whether each lane waits (1) or has finished (ZF_CX_DONE) */
} zf_cx_rt;

#define ZF_CX_DONE UINT64_MAX

/* A work-item as the generated functions receive it (an array of i64). */
enum {
    ZF_CX_ITEM_LANE = 0,
    ZF_CX_ITEM_SLOT, /* its group's place in the wave */
    ZF_CX_ITEM_LID,  /* 3 local ids */
    ZF_CX_ITEM_GRP = ZF_CX_ITEM_LID + 3,
    ZF_CX_ITEM_STATE = ZF_CX_ITEM_GRP + 3, /* in: 0 to start, 1 to resume; out: 2 when it waits at a barrier */
    ZF_CX_ITEM_SPILL, /* its record: the frames of the functions it waits in, their resume points */
    ZF_CX_ITEM_COUNT
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
};

/* What cx_emit.c makes of a kernel: a module with one external function, "zf_cx_wave", and the block table; or, when
 * the kernel uses something the tier does not compile, NULL and the reason. kinds: each parameter's zf_xarg_kind. */
typedef struct zf_cx_unit {
    LLVMModuleRef module;
    zf_cx_block *blocks;
    uint32_t num_blocks;
    uint32_t spill_bytes;
} zf_cx_unit;

/* Whether the kernel (or a function it calls) has a work-group barrier. */
bool zf_cx_has_barriers(const zf_dprog *code, uint32_t kernel);

bool zf_cx_emit(LLVMContextRef llvm, const zf_dprog *code, uint32_t kernel, const zf_xarg_kind *kinds,
                uint32_t num_kinds, zf_cx_unit *out, char *why, size_t why_size);

/* ---- helpers called by the generated code (cx_run.c) ---- */

/* Flags of zf_cx_mem. */
enum { ZF_CX_WRITE = 1u, ZF_CX_COUNT = 2u, ZF_CX_COUNT_READ = 4u /* atomics: read and written */ };
/* The host address of an access, checked as the interpreter checks it (and its bytes counted with ZF_CX_COUNT);
 * NULL after the work-item was stopped with the interpreter's fault. */
uint8_t *zf_cx_mem(zf_cx_rt *rt, uint64_t lane, uint64_t addr, uint64_t size, uint64_t flags);
/* Runs one decoded instruction that computes its result from its operands alone on one work-item, with the
 * interpreter's handler: operands a, b, c at scratch + 256, 512, 768, the result at scratch. */
void zf_cx_pure(zf_cx_rt *rt, const zf_dinst *in, uint8_t *scratch);
#define ZF_CX_SCRATCH_SLOT 256u
/* Private variables: a new slot for the work-item's copy at base + in->aux (its private address, 0 after a fault),
 * the slots in use, and dropping those above a mark. */
uint64_t zf_cx_var_slot(zf_cx_rt *rt, uint64_t lane, const zf_dinst *in, uint8_t *base);
uint64_t zf_cx_slots_mark(zf_cx_rt *rt);
void zf_cx_slots_pop(zf_cx_rt *rt, uint64_t mark);
/* A memory copy of `size` bytes, checked, counted and made as the interpreter makes it; 0 when the work-item faulted.
 */
uint32_t zf_cx_copy(zf_cx_rt *rt, uint64_t lane, uint64_t to, uint64_t from, uint64_t size);
/* Stops the work-item with the fault of an atomic on an address not aligned to its size. */
void zf_cx_misaligned(zf_cx_rt *rt, uint64_t lane, uint64_t addr, uint64_t bytes);
/* Stops the work-item at OpUnreachable. */
void zf_cx_unreachable(zf_cx_rt *rt, uint64_t lane);
/* The hang detector: nonzero when the launch must stop (the work-item was stopped with the hang fault). */
uint32_t zf_cx_poll(zf_cx_rt *rt, uint64_t lane);

#endif
