/* Kernels: created by name from a module, with arguments checked against the parameters the SPIR-V declares, group
 * sizes checked against the device's compute limits and the kernel's required size, launch capture for command
 * execution (zf_kernel.h) and launches: the SPIR-V execution engine (spirv/spirv_exec.h) runs every kernel; a
 * built-in kernel (builtins.c) is a faster path to the identical result, taken when its buffers check out
 * (docs/spirv-execution.md). Also the ITT annotation callback of the zefake extension and zetKernelGetProfileInfo. */
#include "core/zf_chain.h"
#include "core/zf_core.h"
#include "image/zf_image.h"
#include "memory/zf_memory.h"
#include "module/kernel_internal.h"
#include "module/zf_builtins.h"
#include "module/zf_kernel.h"
#include "module/zf_module.h"
#include "zefake/zefake_ext.h"

#include <level_zero/zet_api.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ZEFAKE_BUILTINS=0 turns the built-in fast path off (read when a kernel is created): every launch then runs through
 * the execution engine, which is how the tests prove both give the same results. */
#define ZF_BUILTINS_ENV "ZEFAKE_BUILTINS"

const zf_scenario_compute *zf_kernel_limits(const zf_kernel *kernel) {
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
    zf_program *program = NULL;
    uint32_t index = 0;
    const zf_spirv_kernel *info = zf_module_find_kernel(module, desc->pKernelName, &program, &index);
    if (info == NULL)
        return zf_fail(ZE_RESULT_ERROR_INVALID_KERNEL_NAME, "the module has no kernel named '%s'", desc->pKernelName);
    zf_kernel *kernel = calloc(1, sizeof *kernel);
    if (kernel == NULL)
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory for a kernel");
    kernel->module = module;
    kernel->program = program; /* the module's program that defines the kernel (it may have several) */
    kernel->index = index;
    kernel->info = info;
    kernel->builtin = zf_builtin_match(info);
    const char *builtins = getenv(ZF_BUILTINS_ENV);
    kernel->use_builtin = kernel->builtin != NULL && (builtins == NULL || strcmp(builtins, "0") != 0);
    if (!zf_kernel_isa_acquire(module, program, index, &kernel->code)) {
        free(kernel);
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory for the kernel's instruction addresses");
    }
    ze_result_t result = zf_kernel_alloc_args(kernel);
    if (result == ZE_RESULT_SUCCESS && !zf_object_register(&kernel->header, ZF_OBJ_ZE_KERNEL, &module->header))
        result = zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory to register a kernel");
    if (result != ZE_RESULT_SUCCESS) {
        zf_kernel_isa_release(module);
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
    zf_kernel_isa_release(kernel->module);
    zf_program_release(kernel->program);
    zf_kernel_free(kernel);
    zf_object_retire(&kernel->header);
    return ZE_RESULT_SUCCESS;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Arguments */

/* 4 bytes for a 64-bit integer argument: accepted and zero-extended in the default profile. */
static bool zf_narrow_integer_tolerated(const zf_spirv_arg *param, size_t size) {
    if (param->kind != ZF_SPIRV_ARG_VALUE || param->byval || strcmp(param->type, "i64") != 0 || size != 4 ||
        zf_strict())
        return false;
    zf_tolerate("argSize is the size of the argument type", "zero-extended the 4 bytes to the 64-bit argument");
    return true;
}

ze_result_t zf_arg_store(const zf_spirv_kernel *info, const zf_program *program, uint32_t index, size_t size,
                         const void *value, uint8_t *dst, uint64_t *local_bytes) {
    if (index >= info->num_args)
        return zf_fail(ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX, "kernel '%s' has %u argument(s); index %u",
                       info->name, info->num_args, index);
    const zf_spirv_arg *param = &info->args[index];
    if (param->kind == ZF_SPIRV_ARG_LOCAL) {
        /* The size is the local memory to reserve; the value is meaningless (OpenCL passes NULL). */
        uint32_t limit = program->device->desc->compute.max_shared_local_memory_bytes;
        if (size == 0 || size > limit)
            return zf_fail(ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE,
                           "argument %u (%s) reserves local memory: 1 to %u bytes, not %zu", index, param->type, limit,
                           size);
        *local_bytes = size;
        return ZE_RESULT_SUCCESS;
    }
    if (size != param->size && zf_narrow_integer_tolerated(param, size)) {
        /* Intel's driver copies the 4 bytes into the argument's zeroed 8 (docs/tolerances.md). */
        memset(dst, 0, param->size);
        if (value != NULL)
            memcpy(dst, value, size);
        return ZE_RESULT_SUCCESS;
    }
    if (size != param->size)
        return zf_fail(ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE, "argument %u (%s) takes %llu bytes, not %zu",
                       index, param->type, (unsigned long long)param->size, size);
    if (param->kind == ZF_SPIRV_ARG_IMAGE || param->kind == ZF_SPIRV_ARG_SAMPLER) {
        ze_result_t result =
            zf_image_check_kernel_arg(param->kind == ZF_SPIRV_ARG_IMAGE, value, program->context, index);
        if (result != ZE_RESULT_SUCCESS)
            return result;
    }
    /* A NULL value is a null pointer (or handle), or zeros for a value argument. */
    if (value != NULL)
        memcpy(dst, value, size);
    else
        memset(dst, 0, size);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zeKernelSetArgumentValue(ze_kernel_handle_t hKernel, uint32_t argIndex, size_t argSize,
                                         const void *pArgValue) {
    zf_kernel *kernel = zf_kernel_from(hKernel);
    zf_kernel_arg *arg = argIndex < kernel->info->num_args ? &kernel->args[argIndex] : NULL;
    uint64_t unused = 0;
    ze_result_t result =
        zf_arg_store(kernel->info, kernel->program, argIndex, argSize, pArgValue,
                     arg != NULL ? kernel->values + arg->offset : NULL, arg != NULL ? &arg->local_bytes : &unused);
    if (result == ZE_RESULT_SUCCESS)
        arg->set = true;
    return result;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Group sizes */

const char *zf_group_size_problem(const zf_spirv_kernel *info, const zf_program *program, const uint32_t size[3]) {
    const zf_scenario_compute *c = &program->device->desc->compute;
    if (size[0] == 0 || size[1] == 0 || size[2] == 0)
        return "a dimension is 0";
    if (size[0] > c->max_group_size[0] || size[1] > c->max_group_size[1] || size[2] > c->max_group_size[2])
        return "a dimension exceeds the device's maxGroupSize";
    if ((uint64_t)size[0] * size[1] * size[2] > c->max_total_group_size)
        return "the product exceeds the device's maxTotalGroupSize";
    if (info->has_local_size && memcmp(size, info->local_size, sizeof info->local_size) != 0)
        return "the kernel requires another group size (reqd_work_group_size)";
    return NULL;
}

static void zf_kernel_prefetch(const zf_kernel *kernel);

ze_result_t zfi_zeKernelSetGroupSize(ze_kernel_handle_t hKernel, uint32_t groupSizeX, uint32_t groupSizeY,
                                     uint32_t groupSizeZ) {
    zf_kernel *kernel = zf_kernel_from(hKernel);
    const uint32_t size[3] = {groupSizeX, groupSizeY, groupSizeZ};
    const char *problem = zf_group_size_problem(kernel->info, kernel->program, size);
    if (problem != NULL)
        return zf_fail(ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION, "group size %u x %u x %u: %s", groupSizeX,
                       groupSizeY, groupSizeZ, problem);
    memcpy(kernel->group_size, size, sizeof size);
    kernel->group_size_set = true;
    zf_kernel_prefetch(kernel);
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
    const zf_scenario_compute *c = zf_kernel_limits(kernel);
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
void zf_effective_group_size(const zf_kernel *kernel, uint32_t size[3]) {
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

void zf_kernel_set_work_dim(ze_kernel_handle_t hKernel, uint32_t dims) {
    zf_kernel_from(hKernel)->work_dim = dims;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Properties */

uint32_t zf_max_subgroup_size(const zf_kernel *kernel) {
    if (kernel->info->subgroup_size != 0)
        return kernel->info->subgroup_size;
    const zf_scenario_compute *c = zf_kernel_limits(kernel);
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
    p->maxNumSubgroups = (zf_kernel_limits(kernel)->max_total_group_size + max_subgroup - 1) / max_subgroup;
    p->localMemSize = zf_clamp32(info->static_local_bytes);
    p->privateMemSize = zf_clamp32(info->private_bytes);
    p->spillMemSize = 0; /* the fake's registers never spill */
    zf_kernel_uuid(kernel, &p->uuid);
    /* Extension structures the driver knows; others in the chain are left alone. */
    zf_chain_foreach_out(ext, zf_out_chain(p, "pKernelProperties", ZE_STRUCTURE_TYPE_KERNEL_PROPERTIES)) {
        if (ext->stype == ZE_STRUCTURE_TYPE_KERNEL_PREFERRED_GROUP_SIZE_PROPERTIES)
            ((ze_kernel_preferred_group_size_properties_t *)ext)->preferredMultiple = max_subgroup;
#if ZF_L0_AT_LEAST(7)
        /* ZE_extension_kernel_max_group_size_properties: the device's limit, or the size the kernel requires */
        if (ext->stype == ZE_STRUCTURE_TYPE_KERNEL_MAX_GROUP_SIZE_EXT_PROPERTIES)
            ((ze_kernel_max_group_size_ext_properties_t *)ext)->maxGroupSize =
                info->has_local_size ? info->local_size[0] * info->local_size[1] * info->local_size[2]
                                     : zf_kernel_limits(kernel)->max_total_group_size;
#endif
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
    if (*pSize == 0 || pString == NULL) { /* later headers make pString optional: NULL asks for the size */
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

#if ZF_L0_AT_LEAST(11)
/* The kernel's code as the device holds it: ZF_KERNEL_INSTRUCTION_BYTES per instruction of its decoded form, as large
 * as its range of code addresses (docs/modules.md, "Kernel binaries"). A NULL pKernelBinary asks for the size, as
 * Intel's driver answers it (fake_driver/gen/tolerated_rules.txt); a smaller *pSize gets the first *pSize bytes. */
ze_result_t zfi_zeKernelGetBinaryExp(ze_kernel_handle_t hKernel, size_t *pSize, uint8_t *pKernelBinary) {
    const zf_kernel *kernel = zf_kernel_from(hKernel);
    size_t capacity = pKernelBinary != NULL ? *pSize : 0;
    size_t size = zf_form_kernel_code(kernel->program->code, kernel->index, pKernelBinary, capacity);
    *pSize = pKernelBinary == NULL || size < capacity ? size : capacity;
    return ZE_RESULT_SUCCESS;
}
#endif

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
 * ITT annotations: the callback of the zefake extension (zefake_ext.h). Delivery holds a read lock, so that once
 * zefakeSetAnnotationCallback returns no call of the previous callback is still running or to come. */

static pthread_rwlock_t zf_annotation_lock = PTHREAD_RWLOCK_INITIALIZER;
static zefake_pfnAnnotationCallback_t zf_annotation_callback;
static void *zf_annotation_user_data;

ze_result_t zf_annotation_set_callback(zefake_pfnAnnotationCallback_t callback, void *user_data) {
    pthread_rwlock_wrlock(&zf_annotation_lock);
    zf_annotation_callback = callback;
    zf_annotation_user_data = user_data;
    pthread_rwlock_unlock(&zf_annotation_lock);
    return ZE_RESULT_SUCCESS;
}

/* ------------------------------------------------------------------------------------------------------------------
 * The engine's services for one launch run */

typedef struct zf_run_env {
    zf_exec_env env;
    zf_kernel_launch *launch;
    atomic_bool padding_seen; /* a work-item accessed an allocation's padding (docs/tolerances.md) */
    pthread_mutex_t lock;     /* resolve_function may be called from several worker threads */
    zf_program **resolved;    /* programs retained while the launch runs */
    uint32_t num_resolved, cap_resolved;
} zf_run_env;

/* The globals of the modules the kernel imports from: relocations give the kernel their addresses. */
static bool zf_provider_globals(const zf_kernel_launch *launch, uintptr_t ptr, size_t size, zf_mem_info *out) {
    for (uint32_t i = 0; i < launch->num_providers; i++) {
        const zf_program *p = launch->providers[i];
        uintptr_t base = (uintptr_t)p->globals;
        if (p->globals == NULL || ptr < base || ptr - base >= p->globals_size)
            continue;
        *out = (zf_mem_info){.base = base, .size = p->globals_size, .guard_end = base + p->globals_size};
        return size <= p->globals_size - (ptr - base);
    }
    return false;
}

static zf_mem_kind zf_env_lookup(void *user, uintptr_t ptr, size_t size, zf_mem_info *out) {
    zf_run_env *run = user;
    zf_context *context = run->launch->context;
    if (zf_provider_globals(run->launch, ptr, size, out))
        return ZF_MEM_INSIDE;
    zf_allocation allocation;
    zf_mem_block *hold = zf_memory_hold(context, (const void *)ptr, size, &allocation);
    if (hold == NULL && run->env.padding != NULL) /* the engine performs accesses into the padding */
        hold = zf_memory_hold_mapped(context, (const void *)ptr, size, &allocation);
    if (hold != NULL) {
        /* docs/memory.md: device and shared-with-device memory is mapped in 64 KiB pages, host memory in host pages;
         * the rest of the last page is the allocation's, but out of bounds. */
        bool device_pages = allocation.type == ZE_MEMORY_TYPE_DEVICE ||
                            (allocation.type == ZE_MEMORY_TYPE_SHARED && allocation.device != NULL);
        uintptr_t page = device_pages ? (uintptr_t)64 << 10 : (uintptr_t)sysconf(_SC_PAGESIZE);
        uintptr_t end = (uintptr_t)allocation.base + allocation.size;
        out->base = (uintptr_t)allocation.base;
        out->size = allocation.size;
        out->guard_end = (end + page - 1) / page * page;
        out->hold = hold;
        return ZF_MEM_INSIDE;
    }
    zf_vm_span span;
    if (zf_virtual_span((const void *)ptr, size, &span)) {
        if (span.access == ZE_MEMORY_ACCESS_ATTRIBUTE_NONE)
            return ZF_MEM_UNMAPPED;
        *out = (zf_mem_info){.base = span.start,
                             .size = span.end - span.start,
                             .guard_end = span.end,
                             .read_only = span.access == ZE_MEMORY_ACCESS_ATTRIBUTE_READONLY};
        return ZF_MEM_MAPPED;
    }
    if (zf_memory_range_overruns(context, (const void *)ptr, size))
        return ZF_MEM_OVERRUN;
    if (zf_memory_range_freed((const void *)ptr, size))
        return ZF_MEM_FREED;
    return ZF_MEM_UNKNOWN;
}

/* Kernels whose accesses into an allocation's padding were warned of: once per kernel (later ones at debug level). */
#define ZF_PADDING_WARNED_MAX 64u

static bool zf_padding_first_of(const zf_kernel_launch *launch) {
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    static struct {
        const zf_program *program;
        uint32_t index;
    } warned[ZF_PADDING_WARNED_MAX];
    static uint32_t num_warned;
    pthread_mutex_lock(&lock);
    bool first = true;
    for (uint32_t i = 0; i < num_warned && first; i++)
        first = warned[i].program != launch->program || warned[i].index != launch->index;
    if (first && num_warned < ZF_PADDING_WARNED_MAX) {
        warned[num_warned].program = launch->program;
        warned[num_warned++].index = launch->index;
    }
    pthread_mutex_unlock(&lock);
    return first;
}

/* Real GPUs read and write the rest of an allocation's last page, and programs rely on it: counted once per launch,
 * warned once per kernel (docs/tolerances.md). */
static void zf_env_padding(void *user, const char *text) {
    zf_run_env *run = user;
    if (atomic_exchange(&run->padding_seen, true))
        return;
    zf_tolerate_on_device(zf_padding_first_of(run->launch), "a kernel accesses only the bytes of its allocations", text,
                          "performed the access (a load reads what the padding holds)",
                          "ZEFAKE_STRICT=1: a device fault");
}

static void zf_env_release(void *user, void *hold) {
    (void)user;
    zf_memory_release(hold);
}

static bool zf_env_resolve(void *user, uint64_t address, zf_xprogram *program, uint32_t *function) {
    zf_run_env *run = user;
    zf_program *found;
    if (!zf_program_find_function(address, &found, function))
        return false;
    pthread_mutex_lock(&run->lock);
    if (run->num_resolved == run->cap_resolved) {
        uint32_t cap = run->cap_resolved ? run->cap_resolved * 2 : 4;
        zf_program **grown = realloc(run->resolved, cap * sizeof *grown);
        if (grown == NULL) {
            pthread_mutex_unlock(&run->lock);
            zf_program_release(found);
            return false;
        }
        run->resolved = grown;
        run->cap_resolved = cap;
    }
    run->resolved[run->num_resolved++] = found;
    pthread_mutex_unlock(&run->lock);
    zf_program_executable(found, program);
    return true;
}

static void zf_env_annotate(void *user, const zf_xannotation *a) {
    zf_run_env *run = user;
    zefake_annotation_t out = {
        .size = sizeof out,
        .kind = (zefake_annotation_kind_t)a->kind,
        .kernel_name = a->kernel,
        .device = (ze_device_handle_t)run->launch->device,
        .group_id = {a->group_id[0], a->group_id[1], a->group_id[2]},
        .local_id = {a->local_id[0], a->local_id[1], a->local_id[2]},
        .work_item_id = a->work_item,
        .group_size = a->group_size,
        .atomic_object = a->object,
        .atomic_op = a->op_type,
        .atomic_order = a->mem_order,
    };
    pthread_rwlock_rdlock(&zf_annotation_lock);
    if (zf_annotation_callback != NULL)
        zf_annotation_callback(&out, zf_annotation_user_data);
    pthread_rwlock_unlock(&zf_annotation_lock);
}

static const zf_launch_image *zf_find_image(const zf_kernel_launch *launch, uint64_t handle, bool is_image) {
    for (uint32_t i = 0; i < launch->num_images; i++)
        if (launch->images[i].handle == handle && launch->images[i].is_image == is_image)
            return &launch->images[i];
    return NULL;
}

static bool zf_env_image(void *user, uint64_t handle, zf_ximage *out) {
    const zf_launch_image *found = zf_find_image(((zf_run_env *)user)->launch, handle, true);
    if (found != NULL)
        *out = found->image;
    return found != NULL;
}

static bool zf_env_sampler(void *user, uint64_t handle, zf_xsampler *out) {
    const zf_launch_image *found = zf_find_image(((zf_run_env *)user)->launch, handle, false);
    if (found != NULL)
        *out = found->sampler;
    return found != NULL;
}

static void zf_env_debug(void *user, const char *text) {
    (void)user;
    zf_log(ZF_LOG_DEBUG, "%s", text);
}

static void zf_env_warn(void *user, const char *text) {
    (void)user;
    zf_log(ZF_LOG_WARN, "%s", text);
}

static zf_xarg_kind zf_arg_kind(const zf_spirv_arg *param) {
    return param->kind == ZF_SPIRV_ARG_LOCAL ? ZF_XARG_LOCAL : param->byval ? ZF_XARG_BYVAL : ZF_XARG_VALUE;
}

/* The engine's view of the captured arguments, in `room` when they fit (no allocation for the usual kernel). */
#define ZF_ARGS_ROOM 16u
static zf_xarg *zf_launch_args(const zf_kernel_launch *launch, zf_xarg room[ZF_ARGS_ROOM]) {
    uint32_t n = launch->info->num_args;
    zf_xarg *args = n <= ZF_ARGS_ROOM ? room : calloc(n, sizeof *args);
    for (uint32_t i = 0; args != NULL && i < n; i++) {
        const zf_spirv_arg *param = &launch->info->args[i];
        args[i].value = launch->arg_values[i];
        args[i].size = param->size;
        args[i].kind = zf_arg_kind(param);
        if (param->kind == ZF_SPIRV_ARG_LOCAL)
            args[i].size = launch->local_sizes[i];
    }
    return args;
}

/* The kernel's compiled code for its group size, looked for in the on-disk cache when the size is set rather than
 * at the first launch (docs/spirv-execution.md, "Compiled tier"): only the arguments' kinds matter there. */
static void zf_kernel_prefetch(const zf_kernel *kernel) {
    uint32_t n = kernel->info->num_args;
    zf_xarg room[ZF_ARGS_ROOM];
    zf_xarg *args = n <= ZF_ARGS_ROOM ? room : calloc(n, sizeof *args);
    if (args == NULL)
        return; /* the launch looks */
    for (uint32_t i = 0; i < n; i++)
        args[i] = (zf_xarg){.kind = zf_arg_kind(&kernel->info->args[i]), .size = kernel->info->args[i].size};
    zf_exec_env env = {.debug = zf_env_debug, .warn = zf_env_warn};
    zf_xlaunch x = {.kernel = kernel->index, .name = kernel->info->name, .num_args = n, .args = args, .env = &env};
    zf_program_executable(kernel->program, &x.program);
    memcpy(x.group_size, kernel->group_size, sizeof x.group_size);
    zf_spirv_prefetch(&x);
    if (args != room)
        free(args);
}

static ze_result_t zf_execute(zf_kernel_launch *launch, const ze_group_count_t *groups, zf_work_counts *work) {
    zf_run_env run = {.launch = launch, .lock = PTHREAD_MUTEX_INITIALIZER};
    run.env = (zf_exec_env){.user = &run,
                            .lookup = zf_env_lookup,
                            .release = zf_env_release,
                            .resolve_function = zf_env_resolve,
                            .annotate = zf_env_annotate,
                            .image = zf_env_image,
                            .sampler = zf_env_sampler,
                            .system_memory = launch->program->device->desc->memory_access.shared_system != 0,
                            .debug = zf_env_debug,
                            .warn = zf_env_warn,
                            .padding = zf_strict() ? NULL : zf_env_padding};
    zf_xarg room[ZF_ARGS_ROOM];
    zf_xarg *args = zf_launch_args(launch, room);
    if (args == NULL) {
        zf_log(ZF_LOG_ERROR, "kernel '%s': no host memory to run the launch", launch->info->name);
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    zf_xlaunch x = {.kernel = launch->index,
                    .name = launch->info->name,
                    .num_args = launch->info->num_args,
                    .args = args,
                    .groups = {groups->groupCountX, groups->groupCountY, groups->groupCountZ},
                    .subgroup_size = launch->subgroup_size,
                    .env = &run.env,
                    .hang_timeout_ns = zf_device_hang_timeout_ns(launch->program->device)};
    zf_program_executable(launch->program, &x.program);
    memcpy(x.group_size, launch->group_size, sizeof x.group_size);
    memcpy(x.offset, launch->offset, sizeof x.offset);
    x.work_dim = launch->work_dim;
    zf_xresult result;
    zf_spirv_execute(&x, &result);
    *work = result.work;
    for (uint32_t i = 0; i < run.num_resolved; i++)
        zf_program_release(run.resolved[i]);
    free(run.resolved);
    if (args != room)
        free(args);
    pthread_mutex_destroy(&run.lock);
    if (result.faults == 0)
        return ZE_RESULT_SUCCESS;
    zf_log(ZF_LOG_ERROR, "device %s: %s%s", result.hung ? "hang" : "fault", result.first_fault,
           result.faults > 1 ? " (and more work-items faulted)" : "");
    return result.hung ? ZE_RESULT_ERROR_DEVICE_LOST : ZE_RESULT_ERROR_INVALID_ARGUMENT;
}

/* A built-in's view of the launch. */
static zf_builtin_call zf_builtin_call_of(const zf_kernel_launch *launch, const ze_group_count_t *groups) {
    zf_builtin_call call = {
        .name = launch->info->name,
        .context = launch->context,
        .args = launch->arg_values,
        .groups = *groups,
        .system_memory = launch->program->device->desc->memory_access.shared_system != 0,
    };
    memcpy(call.group_size, launch->group_size, sizeof call.group_size);
    memcpy(call.offset, launch->offset, sizeof call.offset);
    return call;
}

/* The record of a built-in is its table's, whichever path ran it (docs/builtin-kernels.md, "Cost"). */
ze_result_t zf_kernel_launch_run(zf_kernel_launch *launch, const ze_group_count_t *groups, zf_work_counts *work) {
    memset(work, 0, sizeof *work);
    if (groups == NULL)
        return ZE_RESULT_SUCCESS;
    zf_kernel_isa_note_run(&launch->code); /* EU stall samples of the command name its instructions */
    zf_builtin_call call = zf_builtin_call_of(launch, groups);
    ze_result_t result = ZE_RESULT_ERROR_UNKNOWN;
    /* A built-in refuses, without writing anything, a launch whose buffers do not check out: the engine then runs it
     * and reports exactly which work-item faulted where. */
    if (launch->builtin != NULL)
        result = launch->builtin->run(&call);
    if (result != ZE_RESULT_SUCCESS)
        result = zf_execute(launch, groups, work);
    if (launch->costing != NULL)
        zf_builtin_work(launch->costing, &call, work);
    return result;
}

ze_result_t ZE_APICALL zf_kernel_get_base_address(ze_kernel_handle_t hKernel, uint64_t *baseAddress) {
    if (!zf_handle_is_live(hKernel, ZF_OBJ_ZE_KERNEL))
        return zf_fail(ZE_RESULT_ERROR_INVALID_NULL_HANDLE, "hKernel: not a live kernel handle");
    if (baseAddress == NULL)
        return zf_fail(ZE_RESULT_ERROR_INVALID_NULL_POINTER, "the arguments break the rule `nullptr == baseAddress`");
    *baseAddress = zf_kernel_from(hKernel)->code.base;
    return ZE_RESULT_SUCCESS;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Program instrumentation (docs/spirv-execution.md, "Program instrumentation"): the profile of a module built with
 * -zet-profile-flags */

ze_result_t zfi_zetKernelGetProfileInfo(zet_kernel_handle_t hKernel, zet_profile_properties_t *pProfileProperties) {
    const zf_kernel *kernel = zf_kernel_from(hKernel);
    uint32_t flags = 0;
    bool profiled = zf_module_profile_flags(kernel->module, &flags);
    pProfileProperties->flags = profiled ? flags : 0;
    pProfileProperties->numTokens = 0; /* no free-register tokens: the API gives no room to write them into */
    zf_form_stats stats;
    zf_form_kernel_stats(kernel->program->code, kernel->index, &stats);
    void *chain = zf_out_chain(pProfileProperties, "pProfileProperties", ZET_STRUCTURE_TYPE_PROFILE_PROPERTIES);
    zf_chain_foreach_out(ext, profiled ? chain : NULL) {
        if ((uint32_t)ext->stype != ZEFAKE_STRUCTURE_TYPE_KERNEL_PROFILE_EXP)
            continue;
        zefake_kernel_profile_exp_t *p = (zefake_kernel_profile_exp_t *)ext;
        p->functions = stats.functions;
        p->blocks = stats.blocks;
        p->instructions = stats.instructions;
        p->registers = stats.registers;
        p->frame_bytes = stats.frame_bytes;
        p->private_bytes = stats.private_bytes;
        p->const_bytes = stats.const_bytes;
        p->wave_bytes = stats.wave_bytes;
    }
    return ZE_RESULT_SUCCESS;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Scheduling hints */

ze_result_t zfi_zeKernelSchedulingHintExp(ze_kernel_handle_t hKernel, ze_scheduling_hint_exp_desc_t *pHint) {
    (void)hKernel;
    if (pHint->stype != ZE_STRUCTURE_TYPE_SCHEDULING_HINT_EXP_DESC)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                       "pHint->stype is 0x%x, not ZE_STRUCTURE_TYPE_SCHEDULING_HINT_EXP_DESC", (unsigned)pHint->stype);
    /* Every hint is accepted (zeDeviceGetModuleProperties reports them all) and, as the specification allows for
     * hints, has no effect: the modelled engines run one kernel at a time. */
    return ZE_RESULT_SUCCESS;
}
