/* Modules and kernels as command execution sees them. (Implemented in module.c, kernel.c, builtins.c and
 * spirv/.) A launch captures the kernel's state when it is appended, as the specification requires: arguments and
 * group size set later do not affect commands already appended. */
#ifndef ZF_KERNEL_H
#define ZF_KERNEL_H

#include "driver/zf_driver.h"
#include "spirv/spirv_exec.h"
#include "zefake/zefake_ext.h"

#include <stdint.h>

typedef struct zf_kernel zf_kernel;
typedef struct zf_kernel_launch zf_kernel_launch;

static inline zf_kernel *zf_kernel_from(ze_kernel_handle_t handle) {
    return (zf_kernel *)handle;
}

/* The device and context the kernel's module was created for. */
zf_device *zf_kernel_device(const zf_kernel *kernel);
zf_context *zf_kernel_context(const zf_kernel *kernel);

/* Captures name, arguments and group size for one launch. Fails with ZE_RESULT_ERROR_INVALID_ARGUMENT (and a zf_fail
 * reason naming the argument index) when an argument was never set, and with
 * ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION when no group size can be used. */
ze_result_t zf_kernel_capture(zf_kernel *kernel, zf_kernel_launch **out);
void zf_kernel_launch_free(zf_kernel_launch *launch);

/* Group size of the captured launch (x, y, z). */
void zf_kernel_launch_group_size(const zf_kernel_launch *launch, uint32_t size[3]);

/* The kernel's name (for diagnostics and tracing). */
const char *zf_kernel_launch_name(const zf_kernel_launch *launch);

/* Executes the launch on the host for `groups` work-groups: the SPIR-V execution engine runs the kernel (a built-in
 * kernel may take its faster path to the same result). Returns ZE_RESULT_SUCCESS, or an error result when work-items
 * faulted (an access outside an allocation...): the fault is logged naming kernel, work-item and address, and
 * execution reports it on the device. Called on an engine worker; spreads work-groups over the engine's threads.
 * *work receives what the launch executed (docs/cost-model.md): the engine's count, or a built-in's table. */
ze_result_t zf_kernel_launch_run(zf_kernel_launch *launch, const ze_group_count_t *groups, zf_work_counts *work);

/* The ITT annotation callback of the zefake extension (zefakeSetAnnotationCallback, docs/spirv-execution.md). */
ze_result_t zf_annotation_set_callback(zefake_pfnAnnotationCallback_t callback, void *user_data);

#endif
