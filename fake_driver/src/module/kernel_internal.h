/* What kernel.c (kernels, their arguments and group sizes, their runs) and kernel_launch.c (launch records: capture,
 * pools, the changes mutable command lists make, clones) share. */
#ifndef ZF_KERNEL_INTERNAL_H
#define ZF_KERNEL_INTERNAL_H

#include "image/zf_image.h"
#include "module/zf_builtins.h"
#include "module/zf_kernel.h"
#include "module/zf_module.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct zf_kernel_arg {
    bool set;
    uint32_t offset;      /* of its value in zf_kernel.values */
    uint64_t local_bytes; /* local-pointer arguments: the local memory to reserve */
} zf_kernel_arg;

struct zf_kernel {
    zf_object header;
    zf_module *module;
    zf_program *program; /* referenced */
    const zf_spirv_kernel *info;
    uint32_t index;            /* of info among the module's kernels (and of the decoded form's kernels) */
    const zf_builtin *builtin; /* NULL when not a built-in: its cost applies whether or not its fast path runs */
    bool use_builtin;          /* the built-in fast path is enabled */
    zf_kernel_code code;       /* its instruction addresses (kernel_isa.c) */
    zf_kernel_arg *args;
    uint8_t *values; /* argument values, packed by offset */
    size_t values_size;
    bool group_size_set;
    uint32_t group_size[3];
    uint32_t global_offset[3];
    uint32_t work_dim; /* get_work_dim() of its launches (an OpenCL launch's work_dim); 0: from groups and size */
    ze_kernel_indirect_access_flags_t indirect_access;
    ze_cache_config_flags_t cache_config;
};

/* An image or sampler argument as captured for the engine: the image's memory is held until the launch is freed. */
typedef struct zf_launch_image {
    uint64_t handle;
    bool is_image;
    zf_ximage image;
    zf_xsampler sampler;
    zf_image_store *store; /* referenced */
} zf_launch_image;

struct zf_kernel_launch {
    zf_launch_pool *pool;    /* where the record goes back when freed; NULL: from the heap */
    zf_program *program;     /* referenced: keeps the kernel's description and the module's globals alive */
    zf_launch_image *images; /* image and sampler arguments */
    uint32_t num_images;
    zf_program **providers; /* referenced: the programs its imports come from */
    uint32_t num_providers;
    const zf_spirv_kernel *info;
    uint32_t index;
    const zf_builtin *builtin; /* NULL unless the fast path may run */
    zf_context *context;
    zf_device *device;
    uint32_t subgroup_size;
    uint32_t group_size[3];
    uint32_t offset[3];
    uint32_t work_dim;         /* 0: the dimensions the group count and size use */
    const zf_builtin *costing; /* a built-in's table gives the record of what the launch executed */
    zf_kernel_code code;
    uint64_t local_bytes;    /* static plus argument local memory per group */
    uint64_t *local_sizes;   /* per argument: the local memory a local-pointer argument reserves */
    const void **arg_values; /* arg_values[i] points into values */
    uint8_t *values;
    size_t record_size; /* of the block holding the record, its tables and its values */
};

/* The compute limits of the kernel's device. */
const zf_scenario_compute *zf_kernel_limits(const zf_kernel *kernel);
/* Why a group size cannot be used for a kernel of `program` on its device, or NULL when it can. */
const char *zf_group_size_problem(const zf_spirv_kernel *info, const zf_program *program, const uint32_t size[3]);
/* The group size a launch uses: the one set, else the required one, else 1 x 1 x 1. */
void zf_effective_group_size(const zf_kernel *kernel, uint32_t size[3]);
/* The kernel's sub-group size: the one it requires, else the device's largest. */
uint32_t zf_max_subgroup_size(const zf_kernel *kernel);
/* Stores argument `index` of a kernel of `program` by the rules of zeKernelSetArgumentValue: the value into dst (the
 * argument's bytes), or the local memory a local-pointer argument reserves into *local_bytes. */
ze_result_t zf_arg_store(const zf_spirv_kernel *info, const zf_program *program, uint32_t index, size_t size,
                         const void *value, uint8_t *dst, uint64_t *local_bytes);

#endif
