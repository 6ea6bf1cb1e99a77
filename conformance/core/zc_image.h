/* Helpers shared by the image and sampler conformance tests: descriptors, the specification's table of required
 * format types, and copies to and from images through a synchronous immediate list. Include once, after zc_exec.h. */
#ifndef ZC_IMAGE_H
#define ZC_IMAGE_H

#include "zc_exec.h"

#define ZC_COLOUR_LAYOUTS 14 /* ZE_IMAGE_FORMAT_LAYOUT_8 .. ZE_IMAGE_FORMAT_LAYOUT_4_4_4_4 */
#define ZC_FORMAT_TYPES   5  /* UINT, SINT, UNORM, SNORM, FLOAT */

/* Bytes per pixel of each colour layout. */
static const uint32_t zc_pixel_bytes[ZC_COLOUR_LAYOUTS] = {1, 2, 4, 2, 4, 4, 8, 8, 16, 4, 4, 2, 2, 2};

/* The specification's table (PROG.rst, "Images"): whether a type is required for a layout. */
static inline bool zc_format_required(uint32_t layout, uint32_t type) {
    switch (layout) {
    case ZE_IMAGE_FORMAT_LAYOUT_8:
    case ZE_IMAGE_FORMAT_LAYOUT_8_8:
    case ZE_IMAGE_FORMAT_LAYOUT_8_8_8_8:
        return type != ZE_IMAGE_FORMAT_TYPE_FLOAT;
    case ZE_IMAGE_FORMAT_LAYOUT_11_11_10:
        return type == ZE_IMAGE_FORMAT_TYPE_FLOAT;
    case ZE_IMAGE_FORMAT_LAYOUT_5_6_5:
    case ZE_IMAGE_FORMAT_LAYOUT_5_5_5_1:
    case ZE_IMAGE_FORMAT_LAYOUT_4_4_4_4:
        return type == ZE_IMAGE_FORMAT_TYPE_UNORM;
    default:
        return true;
    }
}

static inline ze_image_desc_t zc_image_desc(ze_image_type_t type, ze_image_format_layout_t layout,
                                            ze_image_format_type_t format_type, uint64_t width, uint32_t height,
                                            uint32_t depth, uint32_t layers) {
    ze_image_desc_t desc = {ZE_STRUCTURE_TYPE_IMAGE_DESC,
                            NULL,
                            ZE_IMAGE_FLAG_KERNEL_WRITE,
                            type,
                            {layout, format_type, ZE_IMAGE_FORMAT_SWIZZLE_R, ZE_IMAGE_FORMAT_SWIZZLE_G,
                             ZE_IMAGE_FORMAT_SWIZZLE_B, ZE_IMAGE_FORMAT_SWIZZLE_A},
                            width,
                            height,
                            depth,
                            layers,
                            0};
    return desc;
}

/* A 2D RGBA8 UINT image descriptor of w x h pixels. */
static inline ze_image_desc_t zc_rgba8_desc(uint32_t w, uint32_t h) {
    return zc_image_desc(ZE_IMAGE_TYPE_2D, ZE_IMAGE_FORMAT_LAYOUT_8_8_8_8, ZE_IMAGE_FORMAT_TYPE_UINT, w, h, 1, 1);
}

static inline ze_image_handle_t zc_image(zc_exec *x, const ze_image_desc_t *desc) {
    ze_image_handle_t image = NULL;
    zc_assert_success(zeImageCreate(x->context, x->device, desc, &image));
    return image;
}

/* Skips the test when the device has no image support. */
static inline void zc_require_images(zc_exec *x) {
    ze_device_image_properties_t p = {.stype = ZE_STRUCTURE_TYPE_DEVICE_IMAGE_PROPERTIES};
    zc_assert_success(zeDeviceGetImageProperties(x->device, &p));
    if (p.maxImageDims2D == 0) {
        if (zc_driver_is_fake())
            zc_fail("the fake reports no image support");
        skip();
    }
}

static inline ze_command_list_handle_t zc_sync_list(zc_exec *x) {
    return zc_immediate(x, x->compute_ordinal, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
}

/* Host memory -> image (whole), through a synchronous immediate list. */
static inline void zc_upload(zc_exec *x, ze_image_handle_t image, const void *data, size_t size) {
    void *staging = zc_host_alloc(x, size);
    memcpy(staging, data, size);
    ze_command_list_handle_t list = zc_sync_list(x);
    zc_assert_success(zeCommandListAppendImageCopyFromMemory(list, image, staging, NULL, NULL, 0, NULL));
    zc_assert_success(zeCommandListDestroy(list));
    zc_free(x, staging);
}

/* Image (whole) -> host memory. */
static inline void zc_download(zc_exec *x, ze_image_handle_t image, void *data, size_t size) {
    void *staging = zc_host_alloc(x, size);
    memset(staging, 0xee, size);
    ze_command_list_handle_t list = zc_sync_list(x);
    zc_assert_success(zeCommandListAppendImageCopyToMemory(list, staging, image, NULL, NULL, 0, NULL));
    zc_assert_success(zeCommandListDestroy(list));
    memcpy(data, staging, size);
    zc_free(x, staging);
}

#endif
