/* Images, image views and samplers (image.c, image_format.c, image_copy.c, sampler.c; docs/images.md).
 *
 * An image's texels live in device memory that is not a USM allocation (zf_memory_backing_create), stored linearly:
 * plane after plane, each plane slice after slice (3D depth or array layers), row after row, with no padding. A
 * format is described by its planes, each a grid of blocks of `block_width` x `block_height` pixels taking
 * `block_bytes` bytes: one plane of 1 x 1 blocks for the colour formats, more planes or larger blocks for the media
 * formats (NV12: Y in 1 x 1 blocks of 1 byte, UV in 2 x 2 blocks of 2 bytes). Copies move bytes: the format only
 * says where each pixel's bytes are. For the SPIR-V execution, zf_image_arg resolves an image or sampler argument. */
#ifndef ZF_IMAGE_H
#define ZF_IMAGE_H

#include "driver/zf_driver.h"
#include "memory/zf_memory.h"

#include <stdatomic.h>
#include <stdint.h>

#define ZF_IMAGE_MAX_PLANES 3

/* How a format lays out one plane. */
typedef struct zf_format_plane {
    uint8_t block_width;  /* pixels per block, horizontally */
    uint8_t block_height; /* pixels per block, vertically */
    uint8_t block_bytes;
} zf_format_plane;

typedef struct zf_format {
    const char *name; /* "8_8_8_8", "NV12"... */
    bool media;       /* a media format: type and swizzle are ignored */
    uint8_t num_planes;
    zf_format_plane planes[ZF_IMAGE_MAX_PLANES];
    uint8_t types;             /* colour formats: the ze_image_format_type_t values allowed, one bit each */
    uint8_t num_components;    /* colour formats: components of a pixel, in R G B A order */
    uint8_t component_bits[4]; /* their widths */
} zf_format;

/* The format of a layout, or NULL for a value outside ze_image_format_layout_t. */
const zf_format *zf_format_of(ze_image_format_layout_t layout);

/* Why `format` cannot be used for an image of `type`, with the result to return; ZE_RESULT_SUCCESS when it can. */
ze_result_t zf_format_check(const ze_image_format_t *format, ze_image_type_t type, const zf_format **out);

/* The memory of an image, shared by the image, its views and the commands that use it. */
typedef struct zf_image_store {
    atomic_uint refs;
    atomic_bool released; /* the image was destroyed: its views are disabled (the spec's word) */
    zf_mem_block *block;  /* the backing memory; referenced */
    uint8_t *base;        /* its first byte */
    uint64_t size;        /* bytes */
    uint64_t id;          /* ze_image_allocation_ext_properties_t.id */
    ze_external_memory_type_flags_t export_types;
} zf_image_store;

void zf_image_store_retain(zf_image_store *store);
void zf_image_store_release(zf_image_store *store);

/* One plane of an image as stored. */
typedef struct zf_image_plane {
    zf_format_plane layout;
    uint64_t offset;        /* of its first byte in the store */
    uint64_t row_pitch;     /* bytes from one row of blocks to the next */
    uint64_t slice_pitch;   /* bytes from one slice (depth or array layer) to the next */
    uint32_t width_blocks;  /* blocks per row */
    uint32_t height_blocks; /* rows of blocks per slice */
} zf_image_plane;

typedef struct zf_image {
    zf_object header;
    zf_context *context;
    zf_device *device;
    ze_image_desc_t desc; /* as created, pNext cleared */
    const zf_format *format;
    bool srgb;                             /* ze_srgb_ext_desc_t */
    bool is_view;                          /* made by zeImageViewCreateExp */
    uint32_t width, height, depth, layers; /* in pixels (a buffer's width in pixels); 1 where the type has none */
    uint32_t num_planes;
    zf_image_plane planes[ZF_IMAGE_MAX_PLANES];
    uint64_t size; /* bytes of all its planes */
    zf_image_store *store;
} zf_image;

typedef struct zf_sampler {
    zf_object header;
    zf_context *context;
    zf_device *device;
    ze_sampler_address_mode_t address_mode;
    ze_sampler_filter_mode_t filter_mode;
    bool normalized;
} zf_sampler;

static inline zf_image *zf_image_from(ze_image_handle_t handle) {
    return (zf_image *)handle;
}

static inline zf_sampler *zf_sampler_from(ze_sampler_handle_t handle) {
    return (zf_sampler *)handle;
}

/* An image whose texels are the bytes of USM memory at `ptr` (the OpenCL face's images from buffers,
 * docs/opencl.md): made like zeImageCreate, its store holds the allocation instead of memory of its own (the
 * allocation stays mapped while the image or a command uses it). ZE_RESULT_ERROR_INVALID_ARGUMENT when the image's
 * bytes do not lie inside one allocation of the context. */
ze_result_t zf_image_create_on_memory(ze_context_handle_t context, ze_device_handle_t device,
                                      const ze_image_desc_t *desc, void *ptr, ze_image_handle_t *out);

/* Lays out the planes of an image of `format` and size from its fields (width, height, depth, layers). */
void zf_image_layout(zf_image *image);

/* Whether an image may still be used: false, with a zf_fail reason, for a view of a destroyed image. */
ze_result_t zf_image_check_usable(const zf_image *image, const char *what);

/* Kernel arguments (kernel.c): checks the value given for an image (`is_image`) or sampler parameter: NULL or a
 * NULL handle, or a live image (sampler) of the kernel's context; ZE_RESULT_ERROR_INVALID_ARGUMENT otherwise. */
ze_result_t zf_image_check_kernel_arg(bool is_image, const void *value, const zf_context *context, uint32_t index);

#endif
