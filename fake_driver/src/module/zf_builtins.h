/* Built-in kernels: host implementations of a documented set of kernels (docs/builtin-kernels.md), recognised by
 * entry-point name and parameter signature when a kernel is created, and run by zf_kernel_launch_run with real
 * data. Every other kernel only takes its modelled time until SPIR-V execution exists. */
#ifndef ZF_BUILTINS_H
#define ZF_BUILTINS_H

#include "driver/zf_driver.h"
#include "spirv/spirv.h"

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

typedef struct zf_builtin {
    const char *name;
    uint32_t num_params;
    const char *params[ZF_BUILTIN_MAX_PARAMS]; /* the reader's type names, e.g. "global f32*", "i32" */
    /* Cost model: cycles per work-item = cycles_base + cycles_per_unit * (the u32 argument cycles_arg), or just
     * cycles_base when cycles_arg < 0. */
    uint32_t cycles_base;
    int32_t cycles_arg;
    uint32_t cycles_per_unit;
    zf_builtin_fn run;
} zf_builtin;

/* The built-in whose name and parameter types equal the kernel's, or NULL. */
const zf_builtin *zf_builtin_match(const zf_spirv_kernel *kernel);

/* Cycles per work-item of a launch of `builtin` with these argument values. */
uint32_t zf_builtin_cycles(const zf_builtin *builtin, const void *const *args);

#endif
