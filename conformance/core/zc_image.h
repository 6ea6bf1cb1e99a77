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

/* ------------------------------------------------------------------------------------------------------------------
 * Media formats, described from their definitions (not from any driver) */

#define ZC_MEDIA_FIRST   ZE_IMAGE_FORMAT_LAYOUT_Y8
#define ZC_MEDIA_LAYOUTS (ZE_IMAGE_FORMAT_LAYOUT_BRGP - ZE_IMAGE_FORMAT_LAYOUT_Y8 + 1)

/* One plane of a media format: each block of block_w x block_h pixels (the chroma subsampling of a planar format,
 * or the pixels a packed group covers) stores `samples` samples of `sample_bits` bits. */
typedef struct zc_media_plane {
    uint8_t block_w, block_h, samples, sample_bits;
} zc_media_plane;

typedef struct zc_media_format {
    const char *name;
    uint32_t num_planes;
    zc_media_plane planes[3];
} zc_media_format;

#define ZC_PER_PIXEL(samples, bits)                                                                                    \
    { 1, 1, samples, bits } /* 4:4:4, or a sample group per pixel */
#define ZC_PER_2X1(samples, bits)                                                                                      \
    { 2, 1, samples, bits } /* 4:2:2, or a packed pair of pixels */
#define ZC_PER_1X2(samples, bits)                                                                                      \
    { 1, 2, samples, bits } /* 4:2:2 subsampled vertically */
#define ZC_PER_2X2(samples, bits)                                                                                      \
    { 2, 2, samples, bits } /* 4:2:0 */
#define ZC_MEDIA(layout, text, n, ...) [ZE_IMAGE_FORMAT_LAYOUT_##layout - ZC_MEDIA_FIRST] = {text, n, {__VA_ARGS__}}

/* Y8, Y16, 400P: luma only. Packed 4:2:2 (YUYV, YUY2, YVYU, UYVY, VYUY, Y210, Y216): Y0 U Y1 V for two pixels, in
 * 8-bit samples or in 16-bit words (10 bits used by Y210). AYUV, Y416: four samples a pixel; Y410: U Y V A as
 * 10:10:10:2 in one 32-bit word. P8: a palette index; A8P8: alpha and index; IA44, AI44: 4-bit index and alpha.
 * NV12, P010, P012, P016 (16-bit words), P216: a Y plane and an interleaved U V plane at 4:2:0 (P216: 4:2:2).
 * I420 (Y U V), YV12 (Y V U): three planes at 4:2:0; 422H and 422V: at 4:2:2 horizontally and vertically; 444P,
 * RGBP (R G B) and BRGP (B R G): three full planes. */
static const zc_media_format zc_media_formats[ZC_MEDIA_LAYOUTS] = {
    ZC_MEDIA(Y8, "Y8", 1, ZC_PER_PIXEL(1, 8)),
    ZC_MEDIA(NV12, "NV12", 2, ZC_PER_PIXEL(1, 8), ZC_PER_2X2(2, 8)),
    ZC_MEDIA(YUYV, "YUYV", 1, ZC_PER_2X1(4, 8)),
    ZC_MEDIA(VYUY, "VYUY", 1, ZC_PER_2X1(4, 8)),
    ZC_MEDIA(YVYU, "YVYU", 1, ZC_PER_2X1(4, 8)),
    ZC_MEDIA(UYVY, "UYVY", 1, ZC_PER_2X1(4, 8)),
    ZC_MEDIA(AYUV, "AYUV", 1, ZC_PER_PIXEL(4, 8)),
    ZC_MEDIA(P010, "P010", 2, ZC_PER_PIXEL(1, 16), ZC_PER_2X2(2, 16)),
    ZC_MEDIA(Y410, "Y410", 1, ZC_PER_PIXEL(1, 32)),
    ZC_MEDIA(P012, "P012", 2, ZC_PER_PIXEL(1, 16), ZC_PER_2X2(2, 16)),
    ZC_MEDIA(Y16, "Y16", 1, ZC_PER_PIXEL(1, 16)),
    ZC_MEDIA(P016, "P016", 2, ZC_PER_PIXEL(1, 16), ZC_PER_2X2(2, 16)),
    ZC_MEDIA(Y216, "Y216", 1, ZC_PER_2X1(4, 16)),
    ZC_MEDIA(P216, "P216", 2, ZC_PER_PIXEL(1, 16), ZC_PER_2X1(2, 16)),
    ZC_MEDIA(P8, "P8", 1, ZC_PER_PIXEL(1, 8)),
    ZC_MEDIA(YUY2, "YUY2", 1, ZC_PER_2X1(4, 8)),
    ZC_MEDIA(A8P8, "A8P8", 1, ZC_PER_PIXEL(2, 8)),
    ZC_MEDIA(IA44, "IA44", 1, ZC_PER_PIXEL(2, 4)),
    ZC_MEDIA(AI44, "AI44", 1, ZC_PER_PIXEL(2, 4)),
    ZC_MEDIA(Y416, "Y416", 1, ZC_PER_PIXEL(4, 16)),
    ZC_MEDIA(Y210, "Y210", 1, ZC_PER_2X1(4, 16)),
    ZC_MEDIA(I420, "I420", 3, ZC_PER_PIXEL(1, 8), ZC_PER_2X2(1, 8), ZC_PER_2X2(1, 8)),
    ZC_MEDIA(YV12, "YV12", 3, ZC_PER_PIXEL(1, 8), ZC_PER_2X2(1, 8), ZC_PER_2X2(1, 8)),
    ZC_MEDIA(400P, "400P", 1, ZC_PER_PIXEL(1, 8)),
    ZC_MEDIA(422H, "422H", 3, ZC_PER_PIXEL(1, 8), ZC_PER_2X1(1, 8), ZC_PER_2X1(1, 8)),
    ZC_MEDIA(422V, "422V", 3, ZC_PER_PIXEL(1, 8), ZC_PER_1X2(1, 8), ZC_PER_1X2(1, 8)),
    ZC_MEDIA(444P, "444P", 3, ZC_PER_PIXEL(1, 8), ZC_PER_PIXEL(1, 8), ZC_PER_PIXEL(1, 8)),
    ZC_MEDIA(RGBP, "RGBP", 3, ZC_PER_PIXEL(1, 8), ZC_PER_PIXEL(1, 8), ZC_PER_PIXEL(1, 8)),
    ZC_MEDIA(BRGP, "BRGP", 3, ZC_PER_PIXEL(1, 8), ZC_PER_PIXEL(1, 8), ZC_PER_PIXEL(1, 8)),
};

#undef ZC_MEDIA

static inline const zc_media_format *zc_media_format_of(ze_image_format_layout_t layout) {
    return &zc_media_formats[layout - ZC_MEDIA_FIRST];
}

static inline uint32_t zc_media_block_bytes(const zc_media_plane *plane) {
    return (uint32_t)plane->samples * plane->sample_bits / 8;
}

/* The colour layout whose pixel is one block of a plane of a multi-plane format, for a planar view (NV12: 8 for Y, 8_8
 * for U V; P010: 16 and 16_16). */
static inline ze_image_format_layout_t zc_media_plane_layout(const zc_media_plane *plane) {
    const bool wide = plane->sample_bits == 16;
    switch (plane->samples) {
    case 1:
        return wide ? ZE_IMAGE_FORMAT_LAYOUT_16 : ZE_IMAGE_FORMAT_LAYOUT_8;
    case 2:
        return wide ? ZE_IMAGE_FORMAT_LAYOUT_16_16 : ZE_IMAGE_FORMAT_LAYOUT_8_8;
    default:
        return wide ? ZE_IMAGE_FORMAT_LAYOUT_16_16_16_16 : ZE_IMAGE_FORMAT_LAYOUT_8_8_8_8;
    }
}

/* ------------------------------------------------------------------------------------------------------------------
 * Expected contents: packed grids of blocks, and boxes of them */

/* A box of blocks (pixels for colour formats); z and d count slices: depth or array layers. */
typedef struct zc_box {
    uint32_t x, y, z, w, h, d;
} zc_box;

/* Tightly packed blocks: w x h a slice, d slices. */
typedef struct zc_grid {
    uint32_t w, h, d, block_bytes;
} zc_grid;

static inline size_t zc_grid_bytes(const zc_grid *g) {
    return (size_t)g->w * g->h * g->d * g->block_bytes;
}

static inline size_t zc_grid_at(const zc_grid *g, uint32_t x, uint32_t y, uint32_t z) {
    return (((size_t)z * g->h + y) * g->w + x) * g->block_bytes;
}

/* Bytes that box `b` spans in memory laid out with the given pitches. */
static inline size_t zc_box_span(const zc_box *b, uint32_t block_bytes, size_t row_pitch, size_t slice_pitch) {
    return (b->d - 1) * slice_pitch + (b->h - 1) * row_pitch + (size_t)b->w * block_bytes;
}

/* Moves box `b` of a grid to memory with pitches, or from it when `into_grid`. */
static inline void zc_grid_transfer(const zc_grid *g, uint8_t *grid, const zc_box *b, uint8_t *memory, size_t row_pitch,
                                    size_t slice_pitch, bool into_grid) {
    size_t row = (size_t)b->w * g->block_bytes;
    for (uint32_t z = 0; z < b->d; z++) {
        for (uint32_t y = 0; y < b->h; y++) {
            uint8_t *cell = grid + zc_grid_at(g, b->x, b->y + y, b->z + z);
            uint8_t *line = memory + z * slice_pitch + y * row_pitch;
            memcpy(into_grid ? cell : line, into_grid ? line : cell, row);
        }
    }
}

/* Box `sb` of grid src copied onto box `db` (same size) of grid dst, as an image-to-image region copy does. */
static inline void zc_grid_copy(const zc_grid *g, uint8_t *dst, const zc_box *db, const uint8_t *src,
                                const zc_box *sb) {
    size_t row = (size_t)sb->w * g->block_bytes;
    for (uint32_t z = 0; z < sb->d; z++) {
        for (uint32_t y = 0; y < sb->h; y++)
            memmove(dst + zc_grid_at(g, db->x, db->y + y, db->z + z), src + zc_grid_at(g, sb->x, sb->y + y, sb->z + z),
                    row);
    }
}

/* A pattern that does not repeat within 64 KiB (zc_fill_pattern repeats every 256 bytes). */
static inline void zc_fill_unique(uint8_t *buffer, size_t size, uint32_t seed) {
    for (size_t i = 0; i < size; i++)
        buffer[i] = (uint8_t)(i * 131u + (i >> 8) * 71u + seed);
}

/* Index of the first byte where a and b differ, or `size` when they do not. */
static inline size_t zc_first_difference(const uint8_t *a, const uint8_t *b, size_t size) {
    size_t i = 0;
    while (i < size && a[i] == b[i])
        i++;
    return i;
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
