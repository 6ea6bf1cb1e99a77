/* Kernels: created by name from a module, with arguments checked against the parameters the SPIR-V declares, group
 * sizes checked against the device's compute limits and the kernel's required size, and launch capture for command
 * execution (zf_kernel.h). A launch of a built-in kernel computes its result on the host (builtins.c); any other
 * launch only takes its modelled time. */
#include "zf_builtins.h"
#include "zf_core.h"
#include "zf_kernel.h"
#include "zf_module.h"

#include <stdlib.h>
#include <string.h>

/* Cycles per work-item of a kernel that is not a built-in (docs/builtin-kernels.md, "Cost"): one documented value,
 * so that tests can predict timestamps of any kernel until SPIR-V execution gives kernels their own cost. */
#define ZF_DEFAULT_CYCLES_PER_ITEM 10u

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
    const zf_builtin *builtin; /* NULL when not a built-in */
    zf_kernel_arg *args;
    uint8_t *values; /* argument values, packed by offset */
    size_t values_size;
    bool group_size_set;
    uint32_t group_size[3];
    uint32_t global_offset[3];
    ze_kernel_indirect_access_flags_t indirect_access;
    ze_cache_config_flags_t cache_config;
};

struct zf_kernel_launch {
    zf_program *program; /* referenced: keeps the kernel's description and the module's globals alive */
    const zf_spirv_kernel *info;
    const zf_builtin *builtin;
    zf_context *context;
    uint32_t group_size[3];
    uint32_t offset[3];
    uint32_t cycles_per_item;
    uint64_t local_bytes;    /* static plus argument local memory per group */
    const void **arg_values; /* arg_values[i] points into values */
    uint8_t *values;
};

static const zf_scenario_compute *zf_limits(const zf_kernel *kernel) {
    return &kernel->program->device->desc->compute;
}

zf_device *zf_kernel_device(const zf_kernel *kernel) {
    return kernel->program->device;
}

zf_context *zf_kernel_context(const zf_kernel *kernel) {
    return kernel->program->context;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Create and destroy */

static ze_result_t zf_kernel_alloc_args(zf_kernel *kernel) {
    uint32_t n = kernel->info->num_args;
    kernel->args = calloc(n ? n : 1, sizeof *kernel->args);
    if (kernel->args == NULL)
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory for the kernel's arguments");
    size_t at = 0;
    for (uint32_t i = 0; i < n; i++) {
        kernel->args[i].offset = (uint32_t)at;
        at += (size_t)kernel->info->args[i].size; /* the module's check bounded the total by maxArgumentsSize */
    }
    kernel->values_size = at;
    kernel->values = calloc(at ? at : 1, 1);
    if (kernel->values == NULL)
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory for the kernel's argument values");
    return ZE_RESULT_SUCCESS;
}

static void zf_kernel_free(zf_kernel *kernel) {
    free(kernel->args);
    free(kernel->values);
    kernel->args = NULL;
    kernel->values = NULL;
}

ze_result_t zfi_zeKernelCreate(ze_module_handle_t hModule, const ze_kernel_desc_t *desc, ze_kernel_handle_t *phKernel) {
    zf_module *module = zf_module_from(hModule);
    if (zf_module_is_unlinked(module))
        return zf_fail(ZE_RESULT_ERROR_INVALID_MODULE_UNLINKED,
                       "the module has imports that zeModuleDynamicLink has not resolved");
    const zf_spirv_kernel *info = zf_spirv_find_kernel(module->program->spirv, desc->pKernelName);
    if (info == NULL)
        return zf_fail(ZE_RESULT_ERROR_INVALID_KERNEL_NAME, "the module has no kernel named '%s'", desc->pKernelName);
    zf_kernel *kernel = calloc(1, sizeof *kernel);
    if (kernel == NULL)
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory for a kernel");
    kernel->module = module;
    kernel->program = module->program;
    kernel->info = info;
    kernel->builtin = zf_builtin_match(info);
    ze_result_t result = zf_kernel_alloc_args(kernel);
    if (result == ZE_RESULT_SUCCESS && !zf_object_register(&kernel->header, ZF_OBJ_ZE_KERNEL, &module->header))
        result = zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory to register a kernel");
    if (result != ZE_RESULT_SUCCESS) {
        zf_kernel_free(kernel);
        free(kernel);
        return result;
    }
    zf_program_retain(kernel->program);
    atomic_fetch_add(&module->live_kernels, 1);
    *phKernel = (ze_kernel_handle_t)kernel;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zeKernelDestroy(ze_kernel_handle_t hKernel) {
    zf_kernel *kernel = zf_kernel_from(hKernel);
    zf_object_unregister(&kernel->header); /* the handle dies before its parts */
    atomic_fetch_sub(&kernel->module->live_kernels, 1);
    zf_program_release(kernel->program);
    zf_kernel_free(kernel);
    zf_object_retire(&kernel->header);
    return ZE_RESULT_SUCCESS;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Arguments */

ze_result_t zfi_zeKernelSetArgumentValue(ze_kernel_handle_t hKernel, uint32_t argIndex, size_t argSize,
                                         const void *pArgValue) {
    zf_kernel *kernel = zf_kernel_from(hKernel);
    if (argIndex >= kernel->info->num_args)
        return zf_fail(ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX, "kernel '%s' has %u argument(s); index %u",
                       kernel->info->name, kernel->info->num_args, argIndex);
    const zf_spirv_arg *param = &kernel->info->args[argIndex];
    zf_kernel_arg *arg = &kernel->args[argIndex];
    if (param->kind == ZF_SPIRV_ARG_LOCAL) {
        /* The size is the local memory to reserve; the value is meaningless (OpenCL passes NULL). */
        uint32_t limit = zf_limits(kernel)->max_shared_local_memory_bytes;
        if (argSize == 0 || argSize > limit)
            return zf_fail(ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE,
                           "argument %u (%s) reserves local memory: 1 to %u bytes, not %zu", argIndex, param->type,
                           limit, argSize);
        arg->local_bytes = argSize;
        arg->set = true;
        return ZE_RESULT_SUCCESS;
    }
    if (argSize != param->size)
        return zf_fail(ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE, "argument %u (%s) takes %llu bytes, not %zu",
                       argIndex, param->type, (unsigned long long)param->size, argSize);
    /* A NULL value is a null pointer (or handle), or zeros for a value argument. */
    if (pArgValue != NULL)
        memcpy(kernel->values + arg->offset, pArgValue, argSize);
    else
        memset(kernel->values + arg->offset, 0, argSize);
    arg->set = true;
    return ZE_RESULT_SUCCESS;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Group sizes */

/* Why a group size cannot be used for this kernel on its device, or NULL when it can. */
static const char *zf_group_size_problem(const zf_kernel *kernel, const uint32_t size[3]) {
    const zf_scenario_compute *c = zf_limits(kernel);
    if (size[0] == 0 || size[1] == 0 || size[2] == 0)
        return "a dimension is 0";
    if (size[0] > c->max_group_size[0] || size[1] > c->max_group_size[1] || size[2] > c->max_group_size[2])
        return "a dimension exceeds the device's maxGroupSize";
    if ((uint64_t)size[0] * size[1] * size[2] > c->max_total_group_size)
        return "the product exceeds the device's maxTotalGroupSize";
    const zf_spirv_kernel *info = kernel->info;
    if (info->has_local_size && memcmp(size, info->local_size, sizeof info->local_size) != 0)
        return "the kernel requires another group size (reqd_work_group_size)";
    return NULL;
}

ze_result_t zfi_zeKernelSetGroupSize(ze_kernel_handle_t hKernel, uint32_t groupSizeX, uint32_t groupSizeY,
                                     uint32_t groupSizeZ) {
    zf_kernel *kernel = zf_kernel_from(hKernel);
    const uint32_t size[3] = {groupSizeX, groupSizeY, groupSizeZ};
    const char *problem = zf_group_size_problem(kernel, size);
    if (problem != NULL)
        return zf_fail(ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION, "group size %u x %u x %u: %s", groupSizeX,
                       groupSizeY, groupSizeZ, problem);
    memcpy(kernel->group_size, size, sizeof size);
    kernel->group_size_set = true;
    return ZE_RESULT_SUCCESS;
}

/* The largest divisor of `global` that is at most `limit` (at least 1). */
static uint32_t zf_largest_divisor(uint32_t global, uint32_t limit) {
    for (uint32_t d = limit < global ? limit : global; d > 1; d--) {
        if (global % d == 0)
            return d;
    }
    return 1;
}

ze_result_t zfi_zeKernelSuggestGroupSize(ze_kernel_handle_t hKernel, uint32_t globalSizeX, uint32_t globalSizeY,
                                         uint32_t globalSizeZ, uint32_t *groupSizeX, uint32_t *groupSizeY,
                                         uint32_t *groupSizeZ) {
    const zf_kernel *kernel = zf_kernel_from(hKernel);
    const zf_scenario_compute *c = zf_limits(kernel);
    const uint32_t global[3] = {globalSizeX, globalSizeY, globalSizeZ};
    uint32_t group[3];
    if (global[0] == 0 || global[1] == 0 || global[2] == 0)
        return zf_fail(ZE_RESULT_ERROR_INVALID_GLOBAL_WIDTH_DIMENSION, "global size %u x %u x %u has a 0", global[0],
                       global[1], global[2]);
    if (kernel->info->has_local_size) {
        memcpy(group, kernel->info->local_size, sizeof group);
    } else {
        /* Greedy from x: the largest divisor of each global size within the per-dimension and total limits. */
        uint32_t room = c->max_total_group_size;
        for (int d = 0; d < 3; d++) {
            group[d] = zf_largest_divisor(global[d], c->max_group_size[d] < room ? c->max_group_size[d] : room);
            room /= group[d];
        }
    }
    for (int d = 0; d < 3; d++) {
        if (global[d] / group[d] > c->max_group_count[d])
            return zf_fail(ZE_RESULT_ERROR_INVALID_GLOBAL_WIDTH_DIMENSION,
                           "global size %u in dimension %d needs %u groups; the device allows %u", global[d], d,
                           global[d] / group[d], c->max_group_count[d]);
    }
    *groupSizeX = group[0];
    *groupSizeY = group[1];
    *groupSizeZ = group[2];
    return ZE_RESULT_SUCCESS;
}

/* The group size a launch uses: the one set, else the required one, else 1 x 1 x 1. */
static void zf_effective_group_size(const zf_kernel *kernel, uint32_t size[3]) {
    static const uint32_t ones[3] = {1, 1, 1};
    const uint32_t *source = kernel->group_size_set         ? kernel->group_size
                             : kernel->info->has_local_size ? kernel->info->local_size
                                                            : ones;
    memcpy(size, source, 3 * sizeof(uint32_t));
}

ze_result_t zfi_zeKernelSuggestMaxCooperativeGroupCount(ze_kernel_handle_t hKernel, uint32_t *totalGroupCount) {
    const zf_kernel *kernel = zf_kernel_from(hKernel);
    const ze_device_properties_t *p = &kernel->program->device->properties;
    /* Every group of a cooperative launch must be resident at once: hardware threads / threads per group. */
    uint64_t threads = (uint64_t)p->numSlices * p->numSubslicesPerSlice * p->numEUsPerSubslice * p->numThreadsPerEU;
    uint32_t size[3];
    zf_effective_group_size(kernel, size);
    uint64_t items = (uint64_t)size[0] * size[1] * size[2];
    uint64_t simd = p->physicalEUSimdWidth ? p->physicalEUSimdWidth : 1;
    uint64_t per_group = (items + simd - 1) / simd;
    uint64_t groups = per_group ? threads / per_group : threads;
    *totalGroupCount = groups == 0 ? 1 : groups > UINT32_MAX ? UINT32_MAX : (uint32_t)groups;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zeKernelSetGlobalOffsetExp(ze_kernel_handle_t hKernel, uint32_t offsetX, uint32_t offsetY,
                                           uint32_t offsetZ) {
    zf_kernel *kernel = zf_kernel_from(hKernel);
    kernel->global_offset[0] = offsetX;
    kernel->global_offset[1] = offsetY;
    kernel->global_offset[2] = offsetZ;
    return ZE_RESULT_SUCCESS;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Properties */

static uint32_t zf_max_subgroup_size(const zf_kernel *kernel) {
    if (kernel->info->subgroup_size != 0)
        return kernel->info->subgroup_size;
    const zf_scenario_compute *c = zf_limits(kernel);
    uint32_t max = 1;
    for (uint32_t i = 0; i < c->num_sub_group_sizes; i++)
        max = c->sub_group_sizes[i] > max ? c->sub_group_sizes[i] : max;
    return max;
}

static uint32_t zf_clamp32(uint64_t value) {
    return value > UINT32_MAX ? UINT32_MAX : (uint32_t)value;
}

static void zf_kernel_uuid(const zf_kernel *kernel, ze_kernel_uuid_t *uuid) {
    memcpy(uuid->mid, kernel->program->uuid, sizeof uuid->mid);
    /* The kernel's id: its module's id mixed with its name (FNV-1a). */
    uint64_t hash[2];
    memcpy(hash, kernel->program->uuid, sizeof hash);
    for (const char *c = kernel->info->name; *c; c++) {
        hash[0] = (hash[0] ^ (uint8_t)*c) * 0x100000001b3ull;
        hash[1] = (hash[1] ^ (uint8_t)*c) * 0x100000001b3ull + 1;
    }
    memcpy(uuid->kid, hash, sizeof uuid->kid);
}

ze_result_t zfi_zeKernelGetProperties(ze_kernel_handle_t hKernel, ze_kernel_properties_t *pKernelProperties) {
    const zf_kernel *kernel = zf_kernel_from(hKernel);
    const zf_spirv_kernel *info = kernel->info;
    ze_kernel_properties_t *p = pKernelProperties;
    uint32_t max_subgroup = zf_max_subgroup_size(kernel);
    p->numKernelArgs = info->num_args;
    p->requiredGroupSizeX = info->has_local_size ? info->local_size[0] : 0;
    p->requiredGroupSizeY = info->has_local_size ? info->local_size[1] : 0;
    p->requiredGroupSizeZ = info->has_local_size ? info->local_size[2] : 0;
    p->requiredNumSubGroups = info->subgroups_per_workgroup;
    p->requiredSubgroupSize = info->subgroup_size;
    p->maxSubgroupSize = max_subgroup;
    p->maxNumSubgroups = (zf_limits(kernel)->max_total_group_size + max_subgroup - 1) / max_subgroup;
    p->localMemSize = zf_clamp32(info->static_local_bytes);
    p->privateMemSize = zf_clamp32(info->private_bytes);
    p->spillMemSize = 0; /* the fake's registers never spill */
    zf_kernel_uuid(kernel, &p->uuid);
    /* Extension structures the driver knows; others in the chain are left alone. */
    ze_base_properties_t *next = p->pNext;
    for (unsigned depth = 0; next != NULL && depth < 32; depth++, next = next->pNext) {
        if (next->stype == ZE_STRUCTURE_TYPE_KERNEL_PREFERRED_GROUP_SIZE_PROPERTIES)
            ((ze_kernel_preferred_group_size_properties_t *)next)->preferredMultiple = max_subgroup;
    }
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zeKernelGetName(ze_kernel_handle_t hKernel, size_t *pSize, char *pName) {
    const char *name = zf_kernel_from(hKernel)->info->name;
    size_t needed = strlen(name) + 1;
    if (pName == NULL || *pSize == 0) {
        *pSize = needed;
        return ZE_RESULT_SUCCESS;
    }
    size_t n = *pSize < needed ? *pSize : needed;
    memcpy(pName, name, n - 1);
    pName[n - 1] = '\0';
    *pSize = n;
    return ZE_RESULT_SUCCESS;
}

/* The header says both pointers are required and the string's lifetime is tied to the kernel, while drivers copy
 * into a caller buffer: *pSize == 0 asks for the size; a NULL *pString receives the kernel's own string; otherwise
 * up to *pSize bytes are copied into *pString. */
ze_result_t zfi_zeKernelGetSourceAttributes(ze_kernel_handle_t hKernel, uint32_t *pSize, char **pString) {
    const char *text = zf_kernel_from(hKernel)->info->attributes;
    uint32_t needed = (uint32_t)strlen(text) + 1;
    if (*pSize == 0) {
        *pSize = needed;
        return ZE_RESULT_SUCCESS;
    }
    if (*pString == NULL) {
        *pString = (char *)text;
        *pSize = needed;
        return ZE_RESULT_SUCCESS;
    }
    uint32_t n = *pSize < needed ? *pSize : needed;
    memcpy(*pString, text, n - 1);
    (*pString)[n - 1] = '\0';
    *pSize = n;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zeKernelSetIndirectAccess(ze_kernel_handle_t hKernel, ze_kernel_indirect_access_flags_t flags) {
    zf_kernel_from(hKernel)->indirect_access = flags;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zeKernelGetIndirectAccess(ze_kernel_handle_t hKernel, ze_kernel_indirect_access_flags_t *pFlags) {
    *pFlags = zf_kernel_from(hKernel)->indirect_access;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zeKernelSetCacheConfig(ze_kernel_handle_t hKernel, ze_cache_config_flags_t flags) {
    /* The header's rule rejected undefined bits; both defined ones are preferences the fake records. */
    zf_kernel_from(hKernel)->cache_config = flags;
    return ZE_RESULT_SUCCESS;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Launches (zf_kernel.h) */

static ze_result_t zf_capture_check(const zf_kernel *kernel, uint32_t size[3], uint64_t *local_bytes) {
    const zf_spirv_kernel *info = kernel->info;
    for (uint32_t i = 0; i < info->num_args; i++) {
        if (!kernel->args[i].set)
            return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "kernel '%s': argument %u (%s) was never set", info->name,
                           i, info->args[i].type);
    }
    zf_effective_group_size(kernel, size);
    const char *problem = zf_group_size_problem(kernel, size);
    if (problem != NULL)
        return zf_fail(ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION, "kernel '%s': group size %u x %u x %u: %s",
                       info->name, size[0], size[1], size[2], problem);
    *local_bytes = info->static_local_bytes;
    for (uint32_t i = 0; i < info->num_args; i++)
        *local_bytes += kernel->args[i].local_bytes;
    uint32_t limit = zf_limits(kernel)->max_shared_local_memory_bytes;
    if (*local_bytes > limit)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                       "kernel '%s' needs %llu bytes of local memory; the device has %u", info->name,
                       (unsigned long long)*local_bytes, limit);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zf_kernel_capture(zf_kernel *kernel, zf_kernel_launch **out) {
    uint32_t size[3];
    uint64_t local_bytes = 0;
    ze_result_t result = zf_capture_check(kernel, size, &local_bytes);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    uint32_t n = kernel->info->num_args;
    zf_kernel_launch *launch = calloc(1, sizeof *launch);
    if (launch != NULL) {
        launch->values = malloc(kernel->values_size ? kernel->values_size : 1);
        launch->arg_values = calloc(n ? n : 1, sizeof *launch->arg_values);
    }
    if (launch == NULL || launch->values == NULL || launch->arg_values == NULL) {
        zf_kernel_launch_free(launch);
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory to capture a launch");
    }
    /* Arguments are copied now: later zeKernelSetArgumentValue calls do not change this launch. */
    memcpy(launch->values, kernel->values, kernel->values_size);
    for (uint32_t i = 0; i < n; i++)
        launch->arg_values[i] = launch->values + kernel->args[i].offset;
    zf_program_retain(kernel->program);
    launch->program = kernel->program;
    launch->info = kernel->info;
    launch->builtin = kernel->builtin;
    launch->context = kernel->program->context;
    launch->local_bytes = local_bytes;
    memcpy(launch->group_size, size, sizeof size);
    memcpy(launch->offset, kernel->global_offset, sizeof launch->offset);
    launch->cycles_per_item =
        kernel->builtin ? zf_builtin_cycles(kernel->builtin, launch->arg_values) : ZF_DEFAULT_CYCLES_PER_ITEM;
    *out = launch;
    return ZE_RESULT_SUCCESS;
}

void zf_kernel_launch_free(zf_kernel_launch *launch) {
    if (launch == NULL)
        return;
    zf_program_release(launch->program);
    free(launch->arg_values);
    free(launch->values);
    free(launch);
}

void zf_kernel_launch_group_size(const zf_kernel_launch *launch, uint32_t size[3]) {
    memcpy(size, launch->group_size, sizeof launch->group_size);
}

const char *zf_kernel_launch_name(const zf_kernel_launch *launch) {
    return launch->info->name;
}

uint32_t zf_kernel_launch_cycles_per_item(const zf_kernel_launch *launch) {
    return launch->cycles_per_item;
}

ze_result_t zf_kernel_launch_run(zf_kernel_launch *launch, const ze_group_count_t *groups) {
    if (launch->builtin == NULL || groups == NULL)
        return ZE_RESULT_SUCCESS; /* no SPIR-V execution yet: the launch only takes its modelled time */
    zf_builtin_call call = {
        .name = launch->info->name,
        .context = launch->context,
        .args = launch->arg_values,
        .groups = *groups,
    };
    memcpy(call.group_size, launch->group_size, sizeof call.group_size);
    memcpy(call.offset, launch->offset, sizeof call.offset);
    return launch->builtin->run(&call);
}
