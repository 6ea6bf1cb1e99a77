/* Launch records (zf_kernel.h): what a command list captures of a kernel when it appends a launch, their pools, and
 * the changes made to recorded launches afterwards (mutable command lists, clones of command lists). */
#include "core/zf_core.h"
#include "module/kernel_internal.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------------------------------------------------
 * Launches (zf_kernel.h) */

static ze_result_t zf_capture_check(const zf_kernel *kernel, bool every_arg, uint32_t size[3], uint64_t *local_bytes) {
    const zf_spirv_kernel *info = kernel->info;
    for (uint32_t i = 0; i < info->num_args && every_arg; i++) {
        if (!kernel->args[i].set)
            return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "kernel '%s': argument %u (%s) was never set", info->name,
                           i, info->args[i].type);
    }
    zf_effective_group_size(kernel, size);
    const char *problem = zf_group_size_problem(kernel->info, kernel->program, size);
    if (problem != NULL)
        return zf_fail(ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION, "kernel '%s': group size %u x %u x %u: %s",
                       info->name, size[0], size[1], size[2], problem);
    *local_bytes = info->static_local_bytes;
    for (uint32_t i = 0; i < info->num_args; i++)
        *local_bytes += kernel->args[i].local_bytes;
    uint32_t limit = zf_kernel_limits(kernel)->max_shared_local_memory_bytes;
    if (*local_bytes > limit)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                       "kernel '%s' needs %llu bytes of local memory; the device has %u", info->name,
                       (unsigned long long)*local_bytes, limit);
    return ZE_RESULT_SUCCESS;
}

/* What the engine needs of an image: its memory, layout of the first plane, format and swizzle. */
static void zf_describe_image(const zf_image *image, zf_ximage *out) {
    memset(out, 0, sizeof *out);
    out->base = image->store->base + image->planes[0].offset;
    out->size = image->store->size > image->planes[0].offset ? image->store->size - image->planes[0].offset : 0;
    out->type = (uint32_t)image->desc.type;
    out->layout = (uint32_t)image->desc.format.layout;
    out->channel_type = (uint32_t)image->desc.format.type;
    const ze_image_format_swizzle_t swizzle[4] = {image->desc.format.x, image->desc.format.y, image->desc.format.z,
                                                  image->desc.format.w};
    for (int k = 0; k < 4; k++)
        out->swizzle[k] = (uint8_t)(swizzle[k] <= ZE_IMAGE_FORMAT_SWIZZLE_X ? swizzle[k] : ZE_IMAGE_FORMAT_SWIZZLE_X);
    out->srgb = image->srgb;
    out->width = image->width;
    out->height = image->height;
    out->depth = image->depth;
    out->layers = image->layers;
    out->row_pitch = image->planes[0].row_pitch;
    out->slice_pitch = image->planes[0].slice_pitch;
}

/* Image and sampler arguments, described now: the application may destroy or change them after the append. A
 * handle that is no longer live is left out (the launch then faults where it uses it). */
static bool zf_capture_images(zf_kernel_launch *launch) {
    const zf_spirv_kernel *info = launch->info;
    uint32_t n = 0;
    for (uint32_t i = 0; i < info->num_args; i++)
        n += info->args[i].kind == ZF_SPIRV_ARG_IMAGE || info->args[i].kind == ZF_SPIRV_ARG_SAMPLER;
    if (n == 0)
        return true;
    launch->images = calloc(n, sizeof *launch->images);
    if (launch->images == NULL)
        return false;
    for (uint32_t i = 0; i < info->num_args; i++) {
        bool is_image = info->args[i].kind == ZF_SPIRV_ARG_IMAGE;
        if (!is_image && info->args[i].kind != ZF_SPIRV_ARG_SAMPLER)
            continue; /* only image and sampler arguments hold a handle (others may be shorter than one) */
        void *handle;
        memcpy(&handle, launch->arg_values[i], sizeof handle);
        if (handle == NULL || !zf_handle_is_live(handle, is_image ? ZF_OBJ_ZE_IMAGE : ZF_OBJ_ZE_SAMPLER))
            continue;
        zf_launch_image *slot = &launch->images[launch->num_images++];
        slot->handle = (uint64_t)(uintptr_t)handle;
        slot->is_image = is_image;
        if (is_image) {
            const zf_image *image = zf_image_from(handle);
            zf_describe_image(image, &slot->image);
            slot->store = image->store;
            zf_image_store_retain(slot->store);
        } else {
            const zf_sampler *sampler = zf_sampler_from(handle);
            slot->sampler =
                (zf_xsampler){(uint32_t)sampler->address_mode, (uint32_t)sampler->filter_mode, sampler->normalized};
        }
    }
    return true;
}

void zf_kernel_launch_set_context(zf_kernel_launch *launch, zf_context *context) {
    launch->context = context;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Launch-record pools: the appending thread takes blocks from `ready`, which only it touches; a block freed on any
 * thread is pushed on `returned`, a lock-free stack that the appending thread takes whole when `ready` is empty (an
 * exchange, so no block is popped by two threads and no ABA arises). `kept` counts the blocks of both. */

typedef struct zf_launch_block {
    struct zf_launch_block *next;
} zf_launch_block;

struct zf_launch_pool {
    _Atomic(zf_launch_block *) returned;
    zf_launch_block *ready;
    _Atomic uint32_t kept;
};

_Static_assert(ZF_LAUNCH_BLOCK_SIZE >= sizeof(zf_launch_block), "a block holds its link");

zf_launch_pool *zf_launch_pool_create(void) {
    return calloc(1, sizeof(zf_launch_pool));
}

static void zf_launch_blocks_free(zf_launch_block *block) {
    while (block != NULL) {
        zf_launch_block *next = block->next;
        free(block);
        block = next;
    }
}

void zf_launch_pool_destroy(zf_launch_pool *pool) {
    if (pool == NULL)
        return;
    zf_launch_blocks_free(pool->ready);
    zf_launch_blocks_free(atomic_exchange_explicit(&pool->returned, NULL, memory_order_acquire));
    free(pool);
}

void *zf_launch_pool_take(zf_launch_pool *pool, size_t size) {
    if (pool->ready == NULL)
        pool->ready = atomic_exchange_explicit(&pool->returned, NULL, memory_order_acquire);
    zf_launch_block *block = pool->ready;
    if (block == NULL)
        return calloc(1, ZF_LAUNCH_BLOCK_SIZE);
    pool->ready = block->next;
    atomic_fetch_sub_explicit(&pool->kept, 1, memory_order_relaxed);
    memset(block, 0, size);
    return block;
}

void zf_launch_pool_give(zf_launch_pool *pool, void *memory) {
    if (atomic_fetch_add_explicit(&pool->kept, 1, memory_order_relaxed) >= ZF_LAUNCH_POOL_KEEP) {
        atomic_fetch_sub_explicit(&pool->kept, 1, memory_order_relaxed);
        free(memory);
        return;
    }
    zf_launch_block *block = memory;
    block->next = atomic_load_explicit(&pool->returned, memory_order_relaxed);
    while (!atomic_compare_exchange_weak_explicit(&pool->returned, &block->next, block, memory_order_release,
                                                  memory_order_relaxed))
        ;
}

uint32_t zf_launch_pool_kept(const zf_launch_pool *pool) {
    return atomic_load_explicit(&pool->kept, memory_order_relaxed);
}

/* The record's memory: a pool's block when it fits one, the heap otherwise (then not given back to the pool). */
static zf_kernel_launch *zf_launch_alloc(zf_launch_pool *pool, size_t size) {
    if (pool == NULL || size > ZF_LAUNCH_BLOCK_SIZE)
        return calloc(1, size);
    zf_kernel_launch *launch = zf_launch_pool_take(pool, size);
    if (launch != NULL)
        launch->pool = pool;
    return launch;
}

static ze_result_t zf_capture(zf_kernel *kernel, zf_launch_pool *pool, bool every_arg, zf_kernel_launch **out) {
    uint32_t size[3];
    uint64_t local_bytes = 0;
    ze_result_t result = zf_capture_check(kernel, every_arg, size, &local_bytes);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    uint32_t n = kernel->info->num_args;
    /* One block: the record, then its argument tables and values (from the list's pool when it fits a block). */
    size_t tables = (sizeof(zf_kernel_launch) + (size_t)n * (sizeof(uint64_t) + sizeof(void *)) + 15) & ~(size_t)15;
    zf_kernel_launch *launch = zf_launch_alloc(pool, tables + kernel->values_size);
    if (launch == NULL)
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory to capture a launch");
    launch->record_size = tables + kernel->values_size;
    launch->local_sizes = (uint64_t *)(launch + 1);
    launch->arg_values = (const void **)(launch->local_sizes + n);
    launch->values = (uint8_t *)launch + tables;
    /* Arguments are copied now: later zeKernelSetArgumentValue calls do not change this launch. */
    memcpy(launch->values, kernel->values, kernel->values_size);
    for (uint32_t i = 0; i < n; i++) {
        launch->arg_values[i] = launch->values + kernel->args[i].offset;
        launch->local_sizes[i] = kernel->args[i].local_bytes;
    }
    zf_program_retain(kernel->program);
    launch->program = kernel->program;
    launch->providers = zf_program_retain_providers(kernel->program, &launch->num_providers);
    launch->info = kernel->info;
    launch->index = kernel->index;
    launch->builtin = kernel->use_builtin ? kernel->builtin : NULL;
    launch->context = kernel->program->context;
    launch->device = kernel->program->device;
    launch->subgroup_size = zf_max_subgroup_size(kernel);
    launch->local_bytes = local_bytes;
    memcpy(launch->group_size, size, sizeof size);
    memcpy(launch->offset, kernel->global_offset, sizeof launch->offset);
    launch->work_dim = kernel->work_dim;
    launch->costing = kernel->builtin;
    launch->code = kernel->code;
    if (!zf_capture_images(launch)) {
        zf_kernel_launch_free(launch);
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory to capture a launch's images");
    }
    *out = launch;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zf_kernel_capture(zf_kernel *kernel, zf_launch_pool *pool, zf_kernel_launch **out) {
    return zf_capture(kernel, pool, true, out);
}

ze_result_t zf_kernel_capture_for_mutation(zf_kernel *kernel, zf_launch_pool *pool, zf_kernel_launch **out) {
    return zf_capture(kernel, pool, false, out);
}

void zf_kernel_launch_free(zf_kernel_launch *launch) {
    if (launch == NULL)
        return;
    zf_program_release(launch->program);
    for (uint32_t i = 0; i < launch->num_providers; i++)
        zf_program_release(launch->providers[i]);
    free(launch->providers);
    for (uint32_t i = 0; i < launch->num_images; i++)
        zf_image_store_release(launch->images[i].store);
    free(launch->images);
    if (launch->pool != NULL)
        zf_launch_pool_give(launch->pool, launch); /* with its tables and values */
    else
        free(launch);
}

void zf_kernel_launch_group_size(const zf_kernel_launch *launch, uint32_t size[3]) {
    memcpy(size, launch->group_size, sizeof launch->group_size);
}

void zf_kernel_launch_pointers(const zf_kernel_launch *launch, zf_launch_pointer_fn each, void *user) {
    for (uint32_t i = 0; i < launch->info->num_args; i++) {
        const zf_spirv_arg *param = &launch->info->args[i];
        if (param->kind != ZF_SPIRV_ARG_POINTER)
            continue;
        uint64_t value = 0; /* a 32-bit device's pointer is the low half (little-endian hosts) */
        memcpy(&value, launch->arg_values[i], param->size < sizeof value ? param->size : sizeof value);
        if (value != 0)
            each(user, launch->context, (const void *)(uintptr_t)value);
    }
}

const char *zf_kernel_launch_name(const zf_kernel_launch *launch) {
    return launch->info->name;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Changes to recorded launches */

/* The record's own pointers (tables and values) moved with it to `to`. */
static void zf_launch_rebase(const zf_kernel_launch *from, zf_kernel_launch *to) {
    ptrdiff_t delta = (const uint8_t *)to - (const uint8_t *)from;
    to->local_sizes = (uint64_t *)((uint8_t *)from->local_sizes + delta);
    to->arg_values = (const void **)((uint8_t *)from->arg_values + delta);
    to->values = from->values + delta;
    for (uint32_t i = 0; i < from->info->num_args; i++)
        to->arg_values[i] = (const uint8_t *)from->arg_values[i] + delta;
}

/* What the copy references besides its block: the programs and the images' memory. */
static bool zf_launch_share(const zf_kernel_launch *from, zf_kernel_launch *to) {
    to->providers = NULL;
    to->images = NULL;
    if (from->num_providers > 0) {
        to->providers = malloc(from->num_providers * sizeof *to->providers);
        if (to->providers == NULL)
            return false;
        memcpy(to->providers, from->providers, from->num_providers * sizeof *to->providers);
    }
    if (from->num_images > 0) {
        to->images = malloc(from->num_images * sizeof *to->images);
        if (to->images == NULL) {
            free(to->providers);
            return false;
        }
        memcpy(to->images, from->images, from->num_images * sizeof *to->images);
    }
    zf_program_retain(to->program);
    for (uint32_t i = 0; i < to->num_providers; i++)
        zf_program_retain(to->providers[i]);
    for (uint32_t i = 0; i < to->num_images; i++)
        if (to->images[i].store != NULL) /* samplers hold no memory */
            zf_image_store_retain(to->images[i].store);
    return true;
}

zf_kernel_launch *zf_kernel_launch_clone(const zf_kernel_launch *launch, zf_launch_pool *pool) {
    zf_kernel_launch *copy = zf_launch_alloc(pool, launch->record_size);
    if (copy == NULL)
        return NULL;
    zf_launch_pool *copy_pool = copy->pool;
    memcpy(copy, launch, launch->record_size);
    copy->pool = copy_pool;
    zf_launch_rebase(launch, copy);
    if (zf_launch_share(launch, copy))
        return copy;
    if (copy->pool != NULL) /* nothing referenced yet: only the block goes back */
        zf_launch_pool_give(copy->pool, copy);
    else
        free(copy);
    return NULL;
}

/* The local memory a group of the launch needs, within the device's limit. */
static ze_result_t zf_launch_local_bytes(zf_kernel_launch *launch) {
    uint64_t bytes = launch->info->static_local_bytes;
    for (uint32_t i = 0; i < launch->info->num_args; i++)
        bytes += launch->local_sizes[i];
    uint32_t limit = launch->device->desc->compute.max_shared_local_memory_bytes;
    if (bytes > limit)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                       "kernel '%s' would need %llu bytes of local memory; the "
                       "device has %u",
                       launch->info->name, (unsigned long long)bytes, limit);
    launch->local_bytes = bytes;
    return ZE_RESULT_SUCCESS;
}

/* Images and samplers are described again from the arguments, as at the capture. */
static ze_result_t zf_launch_recapture_images(zf_kernel_launch *launch) {
    for (uint32_t i = 0; i < launch->num_images; i++)
        zf_image_store_release(launch->images[i].store);
    free(launch->images);
    launch->images = NULL;
    launch->num_images = 0;
    if (!zf_capture_images(launch))
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory to describe the launch's images");
    return ZE_RESULT_SUCCESS;
}

ze_result_t zf_kernel_launch_set_argument(zf_kernel_launch *launch, uint32_t index, size_t size, const void *value) {
    const zf_spirv_kernel *info = launch->info;
    uint8_t *dst = index < info->num_args ? (uint8_t *)launch->arg_values[index] : NULL;
    uint64_t local = index < info->num_args ? launch->local_sizes[index] : 0;
    ze_result_t result = zf_arg_store(info, launch->program, index, size, value, dst, &local);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    uint64_t before = launch->local_sizes[index];
    launch->local_sizes[index] = local;
    result = zf_launch_local_bytes(launch);
    if (result != ZE_RESULT_SUCCESS) {
        launch->local_sizes[index] = before;
        return result;
    }
    bool image = info->args[index].kind == ZF_SPIRV_ARG_IMAGE || info->args[index].kind == ZF_SPIRV_ARG_SAMPLER;
    return image ? zf_launch_recapture_images(launch) : ZE_RESULT_SUCCESS;
}

ze_result_t zf_kernel_launch_set_group_size(zf_kernel_launch *launch, const uint32_t size[3]) {
    const char *problem = zf_group_size_problem(launch->info, launch->program, size);
    if (problem != NULL)
        return zf_fail(ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION, "kernel '%s': group size %u x %u x %u: %s",
                       launch->info->name, size[0], size[1], size[2], problem);
    memcpy(launch->group_size, size, sizeof launch->group_size);
    return ZE_RESULT_SUCCESS;
}

void zf_kernel_launch_set_offset(zf_kernel_launch *launch, const uint32_t offset[3]) {
    memcpy(launch->offset, offset, sizeof launch->offset);
}
