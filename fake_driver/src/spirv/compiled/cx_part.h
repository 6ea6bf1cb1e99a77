/* The compiled tier's LLVM part: a private shared object (libze_fake_cx.so, cx_part.c and the emitter cx_emit*.c)
 * that the driver loads when it first compiles a kernel (cx_jit.c), so that a process that never compiles never maps
 * LLVM (docs/spirv-execution.md, "Compiled tier"). It turns a kernel into object code, which the driver links itself
 * (cx_elf.c): code from the on-disk cache runs without LLVM. Its one exported symbol, zf_cx_part_entry, gives this
 * table; the driver uses the part only when abi and version are its own. Nothing here uses LLVM's types. */
#ifndef ZF_SPIRV_CX_PART_H
#define ZF_SPIRV_CX_PART_H

#include "cx_internal.h"

#define ZF_CX_PART_ABI   7u
#define ZF_CX_PART_FILE  "libze_fake_cx.so"
#define ZF_CX_PART_ENTRY "zf_cx_part_entry"

/* What the driver gives the part at start: the engine functions the emitter uses. */
typedef struct zf_cx_host {
    bool (*operand_sizes)(const zf_dinst *inst, zf_operand_sizes *out);
    const char *(*op_name)(uint32_t op);
} zf_cx_host;

/* A kernel's native code: an x86-64 ELF relocatable object (large code model: absolute addresses, which cx_elf.c
 * links) whose one external definition is the wave function, named as asked, and the block table of its
 * executed-work record. bytes and blocks are malloc'ed (the caller frees them). */
typedef struct zf_cx_object {
    uint8_t *bytes;
    size_t size;
    zf_cx_block *blocks;
    uint32_t num_blocks;
    uint32_t spill_bytes;
    uint32_t num_regions;  /* kernels with barriers: the stretches of code between them (zf_cx_kernel's) */
    uint32_t num_texsites; /* image reads (zf_cx_kernel's) */
    uint32_t num_proven;   /* accesses checked per group (zf_cx_kernel's) */
    uint32_t num_derived;  /* block counts derived rather than counted (zf_cx_kernel's) */
    uint32_t num_affine;   /* widened indices computed in 64 bits (zf_cx_kernel's) */
    uint32_t wave_rows;    /* 1: a wave the box proof covers runs row by row across its groups (zf_cx_kernel's) */
    uint32_t step_lanes;   /* work-items run side by side (zf_cx_kernel's) */
} zf_cx_object;

typedef struct zf_cx_part {
    uint32_t abi;
    const char *version; /* zefake's version it was built with */
    /* Initializes LLVM (once; later calls answer the first outcome). */
    bool (*start)(const zf_cx_host *host, char *why, size_t why_size);
    /* Emits, optimizes and compiles a kernel to an object, specialized to group_size unless NULL (zf_cx_emit);
     * false with why when it runs in the interpreter. Compiles of different kernels may run at once on different
     * threads. */
    bool (*compile)(const zf_dprog *code, uint32_t kernel, const zf_xarg_kind *kinds, uint32_t num_kinds,
                    const uint32_t *group_size, const char *symbol, zf_cx_object *out, char *why, size_t why_size);
} zf_cx_part;

typedef const zf_cx_part *(*zf_cx_part_entry_fn)(void);

#endif
