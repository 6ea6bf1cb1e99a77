/* The compiled tier of the execution engine (docs/spirv-execution.md, "Compiled tier"): a kernel's decoded form
 * (spirv_form.h) turned into LLVM IR, optimized with LLVM's O2 pipeline and run as native code, one work-group's
 * work-items after the other in loops. It keeps the interpreter's guarantees: every global access is checked against
 * the allocation it must stay in (a pointer derived from a kernel argument against that argument's allocation,
 * resolved once per launch and thread; any other pointer through the interpreter's own check, zf_mem), a fault is
 * reported by the interpreter's code with the same text, and the executed-work record is the interpreter's: one
 * counter per block entry, multiplied by the block's instruction classes (zf_form_derive) after each wave.
 *
 * A kernel whose form uses something the tier does not compile (zf_cx_unsupported) runs in the interpreter; the
 * choice is made once per kernel and program, logged at debug level, and ZEFAKE_EXEC selects the tier
 * (docs/environment.md). Everything here is prefixed zf_cx_. */
#ifndef ZF_SPIRV_CX_H
#define ZF_SPIRV_CX_H

#include "spirv_run.h"

typedef struct zf_cx_kernel zf_cx_kernel;

/* The compiled code to run a launch with, or NULL for the interpreter. Compiles the kernel on first use (once per
 * program, whatever the thread); never fails the launch. */
const zf_cx_kernel *zf_cx_for_launch(const zf_xlaunch *launch);

/* Looks for the launch's compiled code in the on-disk cache only (never compiling), so that the launch finds it
 * decided: called when a kernel's group size is set. A launch's argument values are not needed, only their kinds. */
void zf_cx_prefetch(const zf_xlaunch *launch);

/* Reads the identity the cache keys of compiled code start with (once per process) and makes the program's cache
 * with the key of its form, unless ZEFAKE_EXEC=interp. */
void zf_cx_prepare(const zf_dprog *code);

/* Runs the current wave of ctx (ctx->wave_first_group, ctx->wave_groups) with the compiled code; local_offsets and
 * byval_offsets give each argument's offset in a group's local memory and in a work-item's by-value copies. Faults
 * and counts land in ctx as the interpreter leaves them. */
void zf_cx_run_wave(zf_ctx *ctx, const zf_cx_kernel *kernel, const size_t *local_offsets, const size_t *byval_offsets);

/* The measurements that choose the threads the kernel's launches run on: derived data, as the code is, so changed
 * through the const code a launch holds. */
zf_tune *zf_cx_tune(const zf_cx_kernel *kernel);

/* Whether a wave its box proof covers runs row by row across its groups ("rows across the wave"): such waves gain
 * from holding more groups, whose rows then make longer runs of memory. */
bool zf_cx_rows_across_waves(const zf_cx_kernel *kernel);

/* Frees what zf_cx_run_wave keeps in a thread's context. */
void zf_cx_ctx_release(zf_ctx *ctx);

/* Frees the compiled code of a decoded form (called when the form is freed). */
void zf_cx_cache_free(struct zf_cx_cache *cache);

#endif
