/* Built-in kernels: host implementations of a documented set of kernels (docs/builtin-kernels.md), recognised by
 * entry-point name and parameter signature when a kernel is created, and run by zf_kernel_launch_run with real
 * data; the execution engine runs every other kernel (and a built-in that declines). */
#ifndef ZF_BUILTINS_H
#define ZF_BUILTINS_H

#include "driver/zf_driver.h"
#include "spirv/spirv.h"
#include "spirv/spirv_exec.h"

#include <stdint.h>

#define ZF_BUILTIN_MAX_PARAMS 8

/* One launch of a built-in as its host implementation sees it. */
typedef struct zf_builtin_call {
    const char *name;
    zf_context *context;     /* where pointer arguments are looked up */
    const void *const *args; /* args[i] points at argument i's value (8 bytes for pointers) */
    uint32_t group_size[3];
    ze_group_count_t groups;
    uint32_t offset[3]; /* the global offset: get_global_id(d) starts there */
    bool system_memory; /* the device reaches host memory outside allocations (sharedSystemAllocCapabilities) */
} zf_builtin_call;

typedef ze_result_t (*zf_builtin_fn)(const zf_builtin_call *call);

/* Work per work-item, in the classes of zf_work_counts: ALU operations, memory instructions, global bytes. */
typedef struct zf_builtin_cost {
    uint32_t alu, memory, read, written;
} zf_builtin_cost;

typedef struct zf_builtin {
    const char *name;
    uint32_t num_params;
    const char *params[ZF_BUILTIN_MAX_PARAMS]; /* the reader's type names, e.g. "global f32*", "i32" */
    /* What the launch executes (docs/builtin-kernels.md, "Cost"): `per_item` for every work-item, or what `count`
     * works out from the arguments and the range when the work-items differ (NULL otherwise). */
    zf_builtin_cost per_item;
    void (*count)(const zf_builtin_call *call, zf_work_counts *out);
    zf_builtin_fn run;
} zf_builtin;

/* The built-in whose name and parameter types equal the kernel's, or NULL. */
const zf_builtin *zf_builtin_match(const zf_spirv_kernel *kernel);

/* What a launch of `builtin` executes, whichever path runs it. */
void zf_builtin_work(const zf_builtin *builtin, const zf_builtin_call *call, zf_work_counts *out);

#endif
