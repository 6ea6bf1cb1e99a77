/* Modules and kernels as command execution sees them. (Implemented in module.c, kernel.c, builtins.c and
 * spirv/.) A launch captures the kernel's state when it is appended, as the specification requires: arguments and
 * group size set later do not affect commands already appended. */
#ifndef ZF_KERNEL_H
#define ZF_KERNEL_H

#include "driver/zf_driver.h"
#include "module/zf_module.h"
#include "spirv/spirv_exec.h"
#include "zefake/zefake_ext.h"

#include <stdint.h>

typedef struct zf_kernel zf_kernel;
typedef struct zf_kernel_launch zf_kernel_launch;
typedef struct zf_launch_pool zf_launch_pool;

static inline zf_kernel *zf_kernel_from(ze_kernel_handle_t handle) {
    return (zf_kernel *)handle;
}

/* The device and context the kernel's module was created for. */
zf_device *zf_kernel_device(const zf_kernel *kernel);
zf_context *zf_kernel_context(const zf_kernel *kernel);

/* Captures name, arguments and group size for one launch. Fails with ZE_RESULT_ERROR_INVALID_ARGUMENT (and a zf_fail
 * reason naming the argument index) when an argument was never set, and with
 * ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION when no group size can be used. */
ze_result_t zf_kernel_capture(zf_kernel *kernel, zf_launch_pool *pool, zf_kernel_launch **out);
/* The same for a kernel a mutable command switches to (zeCommandListUpdateMutableCommandKernelsExp): its arguments
 * may be unset, as the updates that follow set them; unset ones are zeros. */
ze_result_t zf_kernel_capture_for_mutation(zf_kernel *kernel, zf_launch_pool *pool, zf_kernel_launch **out);
void zf_kernel_launch_free(zf_kernel_launch *launch);

/* A command list's pool of launch records, so that launches in a steady state allocate nothing: a record that fits a
 * block is taken from the pool (pool may be NULL: from the heap) and goes back to it when freed, from whichever thread
 * frees it (an engine's worker, lock-free). The pool keeps at most ZF_LAUNCH_POOL_KEEP blocks; a record freed beyond
 * that, or too large for a block, is returned to the heap. The pool is destroyed with its list, once no record of it
 * is live. */
#define ZF_LAUNCH_POOL_KEEP  256u
#define ZF_LAUNCH_BLOCK_SIZE 512u
zf_launch_pool *zf_launch_pool_create(void);
void zf_launch_pool_destroy(zf_launch_pool *pool);
/* A zeroed block of `size` bytes (at most ZF_LAUNCH_BLOCK_SIZE) from the pool, or NULL when out of host memory. */
void *zf_launch_pool_take(zf_launch_pool *pool, size_t size);
/* Gives a block taken from `pool` back. */
void zf_launch_pool_give(zf_launch_pool *pool, void *block);
/* The blocks the pool keeps for reuse. */
uint32_t zf_launch_pool_kept(const zf_launch_pool *pool);
/* The context whose allocations the launch reads and writes: the kernel's, unless a command list of another context
 * runs it (docs/tolerances.md). */
void zf_kernel_launch_set_context(zf_kernel_launch *launch, zf_context *context);

/* A copy of a captured launch (zeCommandListCreateCloneExp) from `pool`; NULL when out of host memory. */
zf_kernel_launch *zf_kernel_launch_clone(const zf_kernel_launch *launch, zf_launch_pool *pool);

/* Changes to a captured launch (mutable command lists), with the rules of zeKernelSetArgumentValue,
 * zeKernelSetGroupSize and zeKernelSetGlobalOffsetExp. A refused change leaves the launch as it was. */
ze_result_t zf_kernel_launch_set_argument(zf_kernel_launch *launch, uint32_t index, size_t size, const void *value);
ze_result_t zf_kernel_launch_set_group_size(zf_kernel_launch *launch, const uint32_t size[3]);
void zf_kernel_launch_set_offset(zf_kernel_launch *launch, const uint32_t offset[3]);

/* Group size of the captured launch (x, y, z). */
void zf_kernel_launch_group_size(const zf_kernel_launch *launch, uint32_t size[3]);

/* Calls each(user, context, pointer) for every non-NULL pointer argument of the launch, with the context whose
 * allocations it points into (zf_kernel_launch_set_context). */
typedef void (*zf_launch_pointer_fn)(void *user, zf_context *context, const void *pointer);
void zf_kernel_launch_pointers(const zf_kernel_launch *launch, zf_launch_pointer_fn each, void *user);

/* The kernel's name (for diagnostics and tracing). */
const char *zf_kernel_launch_name(const zf_kernel_launch *launch);

/* Executes the launch on the host for `groups` work-groups: the SPIR-V execution engine runs the kernel (a built-in
 * kernel may take its faster path to the same result). Returns ZE_RESULT_SUCCESS, or an error result when work-items
 * faulted (an access outside an allocation...): the fault is logged naming kernel, work-item and address, and
 * execution reports it on the device. Called on an engine worker; spreads work-groups over the engine's threads.
 * *work receives what the launch executed (docs/cost-model.md): the engine's count, or a built-in's table. */
ze_result_t zf_kernel_launch_run(zf_kernel_launch *launch, const ze_group_count_t *groups, zf_work_counts *work);

/* ---- Instruction addresses (kernel_isa.c; docs/metrics.md, "Kernel addresses") ---- */

#define ZF_KERNEL_INSTRUCTION_BYTES ZF_FORM_INSTRUCTION_BYTES /* the code of a decoded instruction */
#define ZF_KERNEL_CODE_MAX          4u                        /* kernels one command's work record keeps */

/* Where a kernel's code is: its base address and its decoded instructions (16 bytes each from the base). */
typedef struct zf_kernel_code {
    uint64_t base;
    uint32_t instructions;
} zf_kernel_code;

/* The code of kernel `index` of `program`, one of the programs of `module`, for a kernel being created: the module's
 * range is made on first use and lives until every acquirer released it. False when out of host memory. */
bool zf_kernel_isa_acquire(const zf_module *module, const zf_program *program, uint32_t index, zf_kernel_code *out);
void zf_kernel_isa_release(const zf_module *module);

/* Notes on the calling engine worker that a kernel ran; zf_kernel_isa_take_ran hands the latest
 * ZF_KERNEL_CODE_MAX of them to the execution observer, which runs on the same worker after the command, and
 * forgets them. */
void zf_kernel_isa_note_run(const zf_kernel_code *code);
uint32_t zf_kernel_isa_take_ran(zf_kernel_code out[ZF_KERNEL_CODE_MAX]);

/* Intel's extension function "zexKernelGetBaseAddress" (zeDriverGetExtensionFunctionAddress): the kernel's base
 * address. */
ze_result_t ZE_APICALL zf_kernel_get_base_address(ze_kernel_handle_t hKernel, uint64_t *baseAddress);

/* The ITT annotation callback of the zefake extension (zefakeSetAnnotationCallback, docs/spirv-execution.md). */
ze_result_t zf_annotation_set_callback(zefake_pfnAnnotationCallback_t callback, void *user_data);

#endif
