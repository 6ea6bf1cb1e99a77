/* Conformance: image views and media formats (ZE_experimental_image_view, ZE_experimental_image_view_planar): a view
 * reinterpreting a format, NV12 through its planar views, overlapping views of one plane, and every media format
 * copied plane by plane, checked byte by byte against the plane layout its definition gives; media formats outside
 * 2D images, partial blocks and bad planes refused. On the fake, docs/images.md. */
#include "zc_image.h"

#include <errno.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

/* ------------------------------------------------------------------------------------------------------------------
 * Views */

static void image_view_reinterprets_format(void **state) {
    zc_exec *x = *state;
    zc_require_images(x);
    ze_image_desc_t desc =
        zc_image_desc(ZE_IMAGE_TYPE_2D, ZE_IMAGE_FORMAT_LAYOUT_32, ZE_IMAGE_FORMAT_TYPE_UINT, 4, 4, 1, 1);
    uint8_t pattern[64], back[64];
    zc_fill_pattern(pattern, sizeof pattern, 11);
    ze_image_handle_t image = zc_image(x, &desc), view = NULL;
    ze_image_desc_t view_desc = zc_rgba8_desc(4, 4);
    zc_assert_success(zeImageViewCreateExp(x->context, x->device, &view_desc, image, &view));
    zc_upload(x, image, pattern, sizeof pattern);
    zc_download(x, view, back, sizeof back);
    if (memcmp(pattern, back, sizeof back) != 0)
        zc_fail("a view of another format with the same pixel size did not show the image's bytes");
    if (zc_driver_is_fake()) {
        ze_image_desc_t other_size = zc_rgba8_desc(4, 2),
                        other_pixel = zc_image_desc(ZE_IMAGE_TYPE_2D, ZE_IMAGE_FORMAT_LAYOUT_16,
                                                    ZE_IMAGE_FORMAT_TYPE_UINT, 4, 4, 1, 1);
        ze_image_handle_t bad = NULL;
        zc_assert_result(zeImageViewCreateExp(x->context, x->device, &other_size, image, &bad),
                         ZE_RESULT_ERROR_INVALID_ARGUMENT);
        zc_assert_result(zeImageViewCreateExp(x->context, x->device, &other_pixel, image, &bad),
                         ZE_RESULT_ERROR_UNSUPPORTED_IMAGE_FORMAT);
        /* Destroying the image disables its views. */
        zc_assert_success(zeImageDestroy(image));
        ze_command_list_handle_t list = zc_sync_list(x);
        uint8_t *host = zc_host_alloc(x, sizeof back);
        zc_assert_result(zeCommandListAppendImageCopyToMemory(list, host, view, NULL, NULL, 0, NULL),
                         ZE_RESULT_ERROR_INVALID_ARGUMENT);
        zc_assert_success(zeCommandListDestroy(list));
        zc_free(x, host);
    } else {
        zc_assert_success(zeImageDestroy(image));
    }
    zc_assert_success(zeImageDestroy(view));
}

static ze_image_handle_t zc_plane_view(zc_exec *x, ze_image_handle_t image, uint32_t plane,
                                       ze_image_format_layout_t layout, uint32_t w, uint32_t h) {
    ze_image_view_planar_exp_desc_t planar = {ZE_STRUCTURE_TYPE_IMAGE_VIEW_PLANAR_EXP_DESC, NULL, plane};
    ze_image_desc_t desc = zc_image_desc(ZE_IMAGE_TYPE_2D, layout, ZE_IMAGE_FORMAT_TYPE_UINT, w, h, 1, 1);
    desc.pNext = &planar;
    ze_image_handle_t view = NULL;
    zc_assert_success(zeImageViewCreateExp(x->context, x->device, &desc, image, &view));
    return view;
}

static void image_nv12_through_planar_views(void **state) {
    zc_exec *x = *state;
    zc_require_images(x);
    ze_image_desc_t desc =
        zc_image_desc(ZE_IMAGE_TYPE_2D, ZE_IMAGE_FORMAT_LAYOUT_NV12, ZE_IMAGE_FORMAT_TYPE_UINT, 16, 8, 1, 1);
    ze_image_handle_t a = NULL;
    ze_result_t result = zeImageCreate(x->context, x->device, &desc, &a);
    if (result == ZE_RESULT_ERROR_UNSUPPORTED_IMAGE_FORMAT && !zc_driver_is_fake())
        skip();
    zc_assert_result(result, ZE_RESULT_SUCCESS);
    ze_image_handle_t b = zc_image(x, &desc);
    uint8_t luma[16 * 8], chroma[8 * 4 * 2], luma_back[16 * 8], chroma_back[8 * 4 * 2];
    zc_fill_pattern(luma, sizeof luma, 1);
    zc_fill_pattern(chroma, sizeof chroma, 2);
    ze_image_handle_t ay = zc_plane_view(x, a, 0, ZE_IMAGE_FORMAT_LAYOUT_8, 16, 8);
    ze_image_handle_t auv = zc_plane_view(x, a, 1, ZE_IMAGE_FORMAT_LAYOUT_8_8, 8, 4);
    zc_upload(x, ay, luma, sizeof luma);
    zc_upload(x, auv, chroma, sizeof chroma);
    ze_command_list_handle_t list = zc_sync_list(x);
    zc_assert_success(zeCommandListAppendImageCopy(list, b, a, NULL, 0, NULL)); /* both planes */
    ze_image_handle_t by = zc_plane_view(x, b, 0, ZE_IMAGE_FORMAT_LAYOUT_8, 16, 8);
    ze_image_handle_t buv = zc_plane_view(x, b, 1, ZE_IMAGE_FORMAT_LAYOUT_8_8, 8, 4);
    zc_download(x, by, luma_back, sizeof luma_back);
    zc_download(x, buv, chroma_back, sizeof chroma_back);
    if (memcmp(luma, luma_back, sizeof luma) != 0 || memcmp(chroma, chroma_back, sizeof chroma) != 0)
        zc_fail("the planes of an NV12 image did not survive an image copy");
    if (zc_driver_is_fake()) {
        uint8_t *host = zc_host_alloc(x, sizeof luma + sizeof chroma);
        zc_assert_result(zeCommandListAppendImageCopyToMemory(list, host, a, NULL, NULL, 0, NULL),
                         ZE_RESULT_ERROR_INVALID_ARGUMENT); /* planar: through the views */
        zc_free(x, host);
        ze_image_view_planar_exp_desc_t third = {ZE_STRUCTURE_TYPE_IMAGE_VIEW_PLANAR_EXP_DESC, NULL, 2};
        ze_image_desc_t view_desc =
            zc_image_desc(ZE_IMAGE_TYPE_2D, ZE_IMAGE_FORMAT_LAYOUT_8, ZE_IMAGE_FORMAT_TYPE_UINT, 8, 4, 1, 1);
        view_desc.pNext = &third;
        ze_image_handle_t bad = NULL;
        zc_assert_result(zeImageViewCreateExp(x->context, x->device, &view_desc, a, &bad),
                         ZE_RESULT_ERROR_INVALID_ARGUMENT);
        ze_image_desc_t odd = desc;
        odd.width = 15;
        zc_assert_result(zeImageCreate(x->context, x->device, &odd, &bad), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    }
    zc_assert_success(zeCommandListDestroy(list));
    ze_image_handle_t all[] = {ay, auv, by, buv, a, b};
    for (size_t i = 0; i < ZC_COUNT(all); i++)
        zc_assert_success(zeImageDestroy(all[i]));
}

/* Two views of one plane, of different sizes, share its rows: a copy between them overlaps only where bytes do. */
static void image_views_of_one_plane_overlap_only_where_bytes_do(void **state) {
    zc_exec *x = *state;
    zc_require_images(x);
    zc_skip_unless_fake(); /* a view smaller than its plane is zefake's reading (docs/images.md) */
    ze_image_desc_t desc =
        zc_image_desc(ZE_IMAGE_TYPE_2D, ZE_IMAGE_FORMAT_LAYOUT_NV12, ZE_IMAGE_FORMAT_TYPE_UINT, 16, 8, 1, 1);
    ze_image_handle_t image = zc_image(x, &desc);
    ze_image_handle_t full = zc_plane_view(x, image, 0, ZE_IMAGE_FORMAT_LAYOUT_8, 16, 8);
    ze_image_handle_t corner = zc_plane_view(x, image, 0, ZE_IMAGE_FORMAT_LAYOUT_8, 8, 4);
    uint8_t luma[16 * 8], back[16 * 8];
    zc_fill_unique(luma, sizeof luma, 3);
    zc_upload(x, full, luma, sizeof luma);
    /* The right half of the top rows onto the corner view (the left half): rows shared, bytes not. */
    ze_image_region_t right = {8, 0, 0, 8, 4, 1}, middle = {4, 0, 0, 8, 4, 1}, whole = {0, 0, 0, 8, 4, 1};
    ze_command_list_handle_t list = zc_sync_list(x);
    zc_assert_success(zeCommandListAppendImageCopyRegion(list, corner, full, &whole, &right, NULL, 0, NULL));
    zc_download(x, full, back, sizeof back);
    for (uint32_t i = 0; i < sizeof luma; i++) {
        uint32_t px = i % 16, py = i / 16;
        uint8_t want = px < 8 && py < 4 ? luma[i + 8] : luma[i];
        if (back[i] != want)
            zc_fail("Y (%u, %u) is 0x%02x, expected 0x%02x", px, py, back[i], want);
    }
    zc_assert_result(zeCommandListAppendImageCopyRegion(list, corner, full, &whole, &middle, NULL, 0, NULL),
                     ZE_RESULT_ERROR_OVERLAPPING_REGIONS);
    zc_assert_success(zeCommandListDestroy(list));
    ze_image_handle_t all[] = {corner, full, image};
    for (size_t i = 0; i < ZC_COUNT(all); i++)
        zc_assert_success(zeImageDestroy(all[i]));
}

/* ------------------------------------------------------------------------------------------------------------------
 * Media formats: every layout, plane by plane, checked byte by byte against the format's definition */

#define ZC_MEDIA_W 8
#define ZC_MEDIA_H 6

/* A W x H 2D image of a media format with its expected contents. Memory copies go through parts[p]: a planar view of
 * plane p, or the image itself when the format has one plane (the specification copies memory to and from
 * single-planar formats only). */
typedef struct zc_media_image {
    const zc_media_format *format;
    ze_image_format_layout_t layout;
    ze_image_handle_t image;
    ze_image_handle_t parts[3];
    uint8_t *model; /* the planes one after the other, each tightly packed: docs/images.md, "Storage" */
} zc_media_image;

/* Regions in pixels, on whole blocks of every plane: written with a row pitch, copied between images (from, to),
 * read with a row pitch. */
static const zc_box zc_media_window = {2, 2, 0, 4, 2, 1}, zc_media_from = {4, 0, 0, 4, 4, 1},
                    zc_media_to = {0, 2, 0, 4, 4, 1}, zc_media_read = {2, 0, 0, 6, 4, 1};

static ze_image_desc_t zc_media_desc(ze_image_format_layout_t layout, uint32_t w, uint32_t h) {
    return zc_image_desc(ZE_IMAGE_TYPE_2D, layout, ZE_IMAGE_FORMAT_TYPE_UINT, w, h, 1, 1);
}

/* The header: type and swizzle are ignored for media formats, so images that differ only in them are alike. */
static void zc_media_other_type(ze_image_desc_t *desc) {
    desc->format.type = ZE_IMAGE_FORMAT_TYPE_FLOAT;
    desc->format.x = desc->format.w = ZE_IMAGE_FORMAT_SWIZZLE_0;
    desc->format.y = desc->format.z = ZE_IMAGE_FORMAT_SWIZZLE_1;
}

/* Plane p of a W x H image, in blocks. */
static zc_grid zc_media_grid(const zc_media_format *f, uint32_t p) {
    const zc_media_plane *plane = &f->planes[p];
    return (zc_grid){ZC_MEDIA_W / plane->block_w, ZC_MEDIA_H / plane->block_h, 1, zc_media_block_bytes(plane)};
}

/* Where plane p starts in the model: after the planes before it. */
static size_t zc_media_offset(const zc_media_format *f, uint32_t p) {
    size_t offset = 0;
    for (uint32_t i = 0; i < p; i++) {
        zc_grid g = zc_media_grid(f, i);
        offset += zc_grid_bytes(&g);
    }
    return offset;
}

static size_t zc_media_bytes(const zc_media_format *f) {
    return zc_media_offset(f, f->num_planes);
}

/* A box of pixels (NULL: the whole image) as blocks of plane p. */
static zc_box zc_media_blocks(const zc_media_format *f, uint32_t p, const zc_box *pixels) {
    const zc_media_plane *plane = &f->planes[p];
    zc_box whole = {0, 0, 0, ZC_MEDIA_W, ZC_MEDIA_H, 1};
    const zc_box *b = pixels != NULL ? pixels : &whole;
    return (zc_box){b->x / plane->block_w, b->y / plane->block_h, 0, b->w / plane->block_w, b->h / plane->block_h, 1};
}

/* The region the API takes for plane p: pixels of the image, or samples of the plane view. */
static ze_image_region_t zc_media_region(const zc_media_image *m, uint32_t p, const zc_box *pixels) {
    zc_box b = m->format->num_planes == 1 ? *pixels : zc_media_blocks(m->format, p, pixels);
    return (ze_image_region_t){b.x, b.y, 0, b.w, b.h, 1};
}

static ze_result_t zc_media_plane_view(zc_exec *x, zc_media_image *m, uint32_t p) {
    zc_grid g = zc_media_grid(m->format, p);
    ze_image_view_planar_exp_desc_t planar = {ZE_STRUCTURE_TYPE_IMAGE_VIEW_PLANAR_EXP_DESC, NULL, p};
    ze_image_desc_t desc = zc_image_desc(ZE_IMAGE_TYPE_2D, zc_media_plane_layout(&m->format->planes[p]),
                                         ZE_IMAGE_FORMAT_TYPE_UINT, g.w, g.h, 1, 1);
    desc.pNext = &planar;
    return zeImageViewCreateExp(x->context, x->device, &desc, m->image, &m->parts[p]);
}

static void zc_media_close(zc_media_image *m) {
    for (uint32_t p = 0; p < m->format->num_planes; p++) {
        if (m->parts[p] != NULL && m->parts[p] != m->image)
            zc_assert_success(zeImageDestroy(m->parts[p]));
    }
    if (m->image != NULL)
        zc_assert_success(zeImageDestroy(m->image));
    free(m->model);
}

/* An unsupported format, or planar views of it, is the device's choice; the fake supports every media format. */
static bool zc_media_unsupported(ze_result_t result) {
    return !zc_driver_is_fake() &&
           (result == ZE_RESULT_ERROR_UNSUPPORTED_IMAGE_FORMAT || result == ZE_RESULT_ERROR_UNSUPPORTED_FEATURE);
}

/* Creates the image (of another type and swizzle when `other_type`) and the views of its planes; false (nothing
 * left) when the device does not support them. */
static bool zc_media_open(zc_exec *x, ze_image_format_layout_t layout, bool other_type, zc_media_image *m) {
    *m = (zc_media_image){.format = zc_media_format_of(layout), .layout = layout};
    ze_image_desc_t desc = zc_media_desc(layout, ZC_MEDIA_W, ZC_MEDIA_H);
    if (other_type)
        zc_media_other_type(&desc);
    ze_result_t result = zeImageCreate(x->context, x->device, &desc, &m->image);
    for (uint32_t p = 0; result == ZE_RESULT_SUCCESS && p < m->format->num_planes; p++) {
        if (m->format->num_planes == 1)
            m->parts[p] = m->image;
        else
            result = zc_media_plane_view(x, m, p);
    }
    if (result != ZE_RESULT_SUCCESS) {
        zc_media_close(m);
        if (zc_media_unsupported(result))
            return false;
        zc_fail("%s: an %ux%u image or a view of its planes: %s", m->format->name, ZC_MEDIA_W, ZC_MEDIA_H,
                zc_result_name(result));
    }
    m->model = calloc(1, zc_media_bytes(m->format));
    return true;
}

/* Pitched rows: `pad` bytes after each row of the region; 0 is packed, through the call without pitches. */
static size_t zc_media_pitch(const zc_grid *g, const zc_box *b, uint32_t pad) {
    return (size_t)b->w * g->block_bytes + pad;
}

/* Memory -> the pixels `pixels` (NULL: whole, without a region) of plane p, recorded in the model. */
static void zc_media_write(zc_exec *x, ze_command_list_handle_t list, zc_media_image *m, uint32_t p,
                           const zc_box *pixels, uint32_t pad, uint32_t seed) {
    zc_grid g = zc_media_grid(m->format, p);
    zc_box b = zc_media_blocks(m->format, p, pixels);
    size_t pitch = zc_media_pitch(&g, &b, pad), span = zc_box_span(&b, g.block_bytes, pitch, 0);
    uint8_t *host = zc_host_alloc(x, span);
    zc_fill_unique(host, span, seed);
    ze_image_region_t region = pixels != NULL ? zc_media_region(m, p, pixels) : (ze_image_region_t){0};
    const ze_image_region_t *r = pixels != NULL ? &region : NULL;
    if (pad == 0)
        zc_assert_success(zeCommandListAppendImageCopyFromMemory(list, m->parts[p], host, r, NULL, 0, NULL));
    else
        zc_assert_success(
            zeCommandListAppendImageCopyFromMemoryExt(list, m->parts[p], host, r, (uint32_t)pitch, 0, NULL, 0, NULL));
    zc_grid_transfer(&g, m->model + zc_media_offset(m->format, p), &b, host, pitch, 0, true);
    zc_free(x, host);
}

/* The pixels `pixels` (NULL: whole) of plane p -> memory: every byte of the region as the model has it, and the
 * bytes between pitched rows untouched. */
static void zc_media_check(zc_exec *x, ze_command_list_handle_t list, const zc_media_image *m, uint32_t p,
                           const zc_box *pixels, uint32_t pad, const char *what) {
    zc_grid g = zc_media_grid(m->format, p);
    zc_box b = zc_media_blocks(m->format, p, pixels);
    size_t pitch = zc_media_pitch(&g, &b, pad), span = zc_box_span(&b, g.block_bytes, pitch, 0);
    uint8_t *host = zc_host_alloc(x, span), *expected = malloc(span);
    memset(host, 0xee, span);
    memset(expected, 0xee, span);
    zc_grid_transfer(&g, m->model + zc_media_offset(m->format, p), &b, expected, pitch, 0, false);
    ze_image_region_t region = pixels != NULL ? zc_media_region(m, p, pixels) : (ze_image_region_t){0};
    const ze_image_region_t *r = pixels != NULL ? &region : NULL;
    if (pad == 0)
        zc_assert_success(zeCommandListAppendImageCopyToMemory(list, host, m->parts[p], r, NULL, 0, NULL));
    else
        zc_assert_success(
            zeCommandListAppendImageCopyToMemoryExt(list, host, m->parts[p], r, (uint32_t)pitch, 0, NULL, 0, NULL));
    size_t at = zc_first_difference(host, expected, span);
    if (at < span)
        zc_fail("%s plane %u, %s: byte %zu (row %zu of %zu-byte pitch) is 0x%02x, expected 0x%02x", m->format->name, p,
                what, at, at / pitch, pitch, host[at], expected[at]);
    zc_free(x, host);
    free(expected);
}

/* Pixels `from` of src onto `to` of dst, every plane (NULL: the whole image with zeCommandListAppendImageCopy). */
static void zc_media_copy(ze_command_list_handle_t list, zc_media_image *dst, const zc_media_image *src,
                          const zc_box *to, const zc_box *from) {
    if (to == NULL) {
        zc_assert_success(zeCommandListAppendImageCopy(list, dst->image, src->image, NULL, 0, NULL));
        memcpy(dst->model, src->model, zc_media_bytes(src->format));
        return;
    }
    ze_image_region_t dr = {to->x, to->y, 0, to->w, to->h, 1}, sr = {from->x, from->y, 0, from->w, from->h, 1};
    zc_assert_success(zeCommandListAppendImageCopyRegion(list, dst->image, src->image, &dr, &sr, NULL, 0, NULL));
    for (uint32_t p = 0; p < src->format->num_planes; p++) {
        zc_grid g = zc_media_grid(src->format, p);
        zc_box db = zc_media_blocks(dst->format, p, to), sb = zc_media_blocks(src->format, p, from);
        size_t offset = zc_media_offset(src->format, p);
        zc_grid_copy(&g, dst->model + offset, &db, src->model + offset, &sb);
    }
}

/* zefake's memory properties: the luma (first) plane's pitches, every plane in the size; a planar view's are its
 * plane's. */
static void zc_media_check_memory_properties(const zc_media_image *m) {
    for (uint32_t p = 0; p <= m->format->num_planes; p++) {
        bool image = p == m->format->num_planes;
        zc_grid g = zc_media_grid(m->format, image ? 0 : p);
        uint64_t row = (uint64_t)g.w * g.block_bytes, slice = row * g.h;
        uint64_t size = image ? zc_media_bytes(m->format) : slice;
        ze_image_memory_properties_exp_t props = {.stype = ZE_STRUCTURE_TYPE_IMAGE_MEMORY_EXP_PROPERTIES};
        zc_assert_success(zeImageGetMemoryPropertiesExp(image ? m->image : m->parts[p], &props));
        if (props.size != size || props.rowPitch != row || props.slicePitch != slice)
            zc_fail("%s %s %u: size %llu, row pitch %llu, slice pitch %llu; expected %llu, %llu, %llu", m->format->name,
                    image ? "image of" : "plane", image ? m->format->num_planes : p, (unsigned long long)props.size,
                    (unsigned long long)props.rowPitch, (unsigned long long)props.slicePitch, (unsigned long long)size,
                    (unsigned long long)row, (unsigned long long)slice);
    }
}

/* The plane holding byte `at` of the model. */
static uint32_t zc_media_plane_at(const zc_media_format *f, size_t at) {
    uint32_t p = 0;
    while (p + 1 < f->num_planes && zc_media_offset(f, p + 1) <= at)
        p++;
    return p;
}

/* zefake: plane 0 of a single-plane format, viewed as a colour image of its blocks, shows the image's bytes. */
static void zc_media_check_plane_zero_view(zc_exec *x, const zc_media_image *m) {
    static const ze_image_format_layout_t by_bytes[9] = {[1] = ZE_IMAGE_FORMAT_LAYOUT_8,
                                                         [2] = ZE_IMAGE_FORMAT_LAYOUT_16,
                                                         [4] = ZE_IMAGE_FORMAT_LAYOUT_32,
                                                         [8] = ZE_IMAGE_FORMAT_LAYOUT_32_32};
    zc_grid g = zc_media_grid(m->format, 0);
    ze_image_view_planar_exp_desc_t planar = {ZE_STRUCTURE_TYPE_IMAGE_VIEW_PLANAR_EXP_DESC, NULL, 0};
    ze_image_desc_t desc =
        zc_image_desc(ZE_IMAGE_TYPE_2D, by_bytes[g.block_bytes], ZE_IMAGE_FORMAT_TYPE_UINT, g.w, g.h, 1, 1);
    desc.pNext = &planar;
    ze_image_handle_t view = NULL;
    zc_assert_success(zeImageViewCreateExp(x->context, x->device, &desc, m->image, &view));
    size_t size = zc_grid_bytes(&g);
    uint8_t *back = malloc(size);
    zc_download(x, view, back, size);
    size_t at = zc_first_difference(back, m->model, size);
    if (at < size)
        zc_fail("%s: byte %zu of a view of plane 0 is 0x%02x, expected 0x%02x", m->format->name, at, back[at],
                m->model[at]);
    free(back);
    zc_assert_success(zeImageDestroy(view));
}

/* zefake's storage, byte by byte: a copy of the image exported as a DMA-BUF and mapped holds the planes one after
 * the other, each tightly packed (docs/images.md, "Storage"). */
static void zc_media_check_storage(zc_exec *x, ze_command_list_handle_t list, const zc_media_image *m) {
    zc_media_check_memory_properties(m);
    if (m->format->num_planes == 1)
        zc_media_check_plane_zero_view(x, m);
    ze_external_memory_export_desc_t export_desc = {ZE_STRUCTURE_TYPE_EXTERNAL_MEMORY_EXPORT_DESC, NULL,
                                                    ZE_EXTERNAL_MEMORY_TYPE_FLAG_DMA_BUF};
    ze_image_desc_t desc = zc_media_desc(m->layout, ZC_MEDIA_W, ZC_MEDIA_H);
    desc.pNext = &export_desc;
    ze_image_handle_t copy = zc_image(x, &desc);
    zc_assert_success(zeCommandListAppendImageCopy(list, copy, m->image, NULL, 0, NULL));
    ze_external_memory_export_fd_t fd = {ZE_STRUCTURE_TYPE_EXTERNAL_MEMORY_EXPORT_FD, NULL,
                                         ZE_EXTERNAL_MEMORY_TYPE_FLAG_DMA_BUF, -1};
    ze_image_allocation_ext_properties_t props = {ZE_STRUCTURE_TYPE_IMAGE_ALLOCATION_EXT_PROPERTIES, &fd, 0};
    zc_assert_success(zeImageGetAllocPropertiesExt(x->context, copy, &props));
    size_t size = zc_media_bytes(m->format);
    const uint8_t *bytes = mmap(NULL, size, PROT_READ, MAP_SHARED, fd.fd, 0);
    if (bytes == MAP_FAILED)
        zc_fail("%s: cannot map the exported image: %s", m->format->name, strerror(errno));
    size_t at = zc_first_difference(bytes, m->model, size);
    if (at < size) {
        uint32_t p = zc_media_plane_at(m->format, at);
        zc_fail("%s: stored byte %zu (plane %u, its byte %zu) is 0x%02x, expected 0x%02x", m->format->name, at, p,
                at - zc_media_offset(m->format, p), bytes[at], m->model[at]);
    }
    munmap((void *)bytes, size);
    close(fd.fd);
    zc_assert_success(zeImageDestroy(copy));
}

/* Every plane in from memory (whole, then a window with a row pitch), to a second image (whole, then a region), and
 * back out (whole, then a window with a row pitch). False when the device does not support the format. */
static bool zc_media_round_trip(zc_exec *x, ze_image_format_layout_t layout) {
    zc_media_image a, b;
    if (!zc_media_open(x, layout, false, &a))
        return false;
    if (!zc_media_open(x, layout, true, &b))
        zc_fail("%s: a first image was created, not a second", a.format->name);
    ze_command_list_handle_t list = zc_sync_list(x);
    uint32_t planes = a.format->num_planes;
    for (uint32_t p = 0; p < planes; p++) {
        zc_media_write(x, list, &a, p, NULL, 0, 10 * layout + p);
        zc_media_write(x, list, &a, p, &zc_media_window, 8, 10 * layout + p + 5);
    }
    zc_media_copy(list, &b, &a, NULL, NULL);
    zc_media_copy(list, &b, &a, &zc_media_to, &zc_media_from);
    for (uint32_t p = 0; p < planes; p++) {
        zc_media_check(x, list, &a, p, NULL, 0, "the source, whole");
        zc_media_check(x, list, &b, p, NULL, 0, "the copy, whole");
        zc_media_check(x, list, &b, p, &zc_media_read, 12, "the copy, a window with a row pitch");
    }
    if (zc_driver_is_fake())
        zc_media_check_storage(x, list, &b);
    zc_assert_success(zeCommandListDestroy(list));
    zc_media_close(&a);
    zc_media_close(&b);
    return true;
}

static void image_every_media_format_copies_plane_by_plane(void **state) {
    zc_exec *x = *state;
    zc_require_images(x);
    uint32_t tested = 0;
    for (uint32_t i = 0; i < ZC_MEDIA_LAYOUTS; i++)
        tested += zc_media_round_trip(x, (ze_image_format_layout_t)(ZC_MEDIA_FIRST + i));
    if (tested == 0)
        skip(); /* which media formats a device supports is its choice */
}

/* The header: media formats are not for buffers. zefake: only for 2D images. */
static void image_media_formats_outside_2d_unsupported(void **state) {
    zc_exec *x = *state;
    zc_require_images(x);
    const ze_image_type_t types[] = {ZE_IMAGE_TYPE_BUFFER, ZE_IMAGE_TYPE_1D, ZE_IMAGE_TYPE_1DARRAY,
                                     ZE_IMAGE_TYPE_2DARRAY, ZE_IMAGE_TYPE_3D};
    for (uint32_t i = 0; i < ZC_MEDIA_LAYOUTS; i++) {
        for (size_t t = 0; t < ZC_COUNT(types); t++) {
            ze_image_desc_t desc = zc_image_desc(types[t], ZC_MEDIA_FIRST + i, ZE_IMAGE_FORMAT_TYPE_UINT, 64, 2, 2, 2);
            ze_image_handle_t image = NULL;
            ze_result_t result = zeImageCreate(x->context, x->device, &desc, &image);
            if (types[t] == ZE_IMAGE_TYPE_BUFFER && result == ZE_RESULT_SUCCESS)
                zc_fail("%s: a buffer image was created", zc_media_formats[i].name);
            if (result == ZE_RESULT_SUCCESS)
                zc_assert_success(zeImageDestroy(image));
            if (!zc_driver_is_fake())
                continue;
            ze_image_properties_t props = {.stype = ZE_STRUCTURE_TYPE_IMAGE_PROPERTIES};
            zc_assert_result(result, ZE_RESULT_ERROR_UNSUPPORTED_IMAGE_FORMAT);
            zc_assert_result(zeImageGetProperties(x->device, &desc, &props), ZE_RESULT_ERROR_UNSUPPORTED_IMAGE_FORMAT);
        }
    }
}

static void zc_media_expect(const zc_media_format *f, ze_result_t got, ze_result_t expected, const char *what) {
    if (got != expected)
        zc_fail("%s: %s gave %s, expected %s", f->name, what, zc_result_name(got), zc_result_name(expected));
}

/* The largest block of the format's planes, in each direction. */
static void zc_media_block(const zc_media_format *f, uint32_t *w, uint32_t *h) {
    *w = *h = 1;
    for (uint32_t p = 0; p < f->num_planes; p++) {
        *w = f->planes[p].block_w > *w ? f->planes[p].block_w : *w;
        *h = f->planes[p].block_h > *h ? f->planes[p].block_h : *h;
    }
}

/* A size of odd width or height: refused where a plane's blocks need even ones, accepted otherwise. */
static void zc_media_check_odd_size(zc_exec *x, ze_image_format_layout_t layout, uint32_t w, uint32_t h,
                                    bool whole_blocks) {
    ze_image_desc_t desc = zc_media_desc(layout, w, h);
    ze_result_t expected = whole_blocks ? ZE_RESULT_SUCCESS : ZE_RESULT_ERROR_INVALID_ARGUMENT;
    ze_image_properties_t props = {.stype = ZE_STRUCTURE_TYPE_IMAGE_PROPERTIES};
    ze_image_handle_t image = NULL;
    ze_result_t result = zeImageCreate(x->context, x->device, &desc, &image);
    char what[48];
    snprintf(what, sizeof what, "an image of %u x %u pixels", w, h);
    zc_media_expect(zc_media_format_of(layout), result, expected, what);
    if (result == ZE_RESULT_SUCCESS)
        zc_assert_success(zeImageDestroy(image));
    zc_media_expect(zc_media_format_of(layout), zeImageGetProperties(x->device, &desc, &props), expected, what);
}

/* A region starting or ending inside a block: refused where the format has blocks that wide (high). */
static void zc_media_check_partial_region(ze_command_list_handle_t list, const zc_media_image *a,
                                          const zc_media_image *b, bool across, uint32_t block) {
    ze_image_region_t region = across ? (ze_image_region_t){1, 0, 0, 2, 2, 1} : (ze_image_region_t){0, 1, 0, 2, 2, 1};
    ze_result_t expected = block == 1 ? ZE_RESULT_SUCCESS : ZE_RESULT_ERROR_INVALID_ARGUMENT;
    zc_media_expect(a->format,
                    zeCommandListAppendImageCopyRegion(list, b->image, a->image, &region, &region, NULL, 0, NULL),
                    expected, across ? "a region copy at x 1" : "a region copy at y 1");
}

/* A planar view of plane `index`, `w` x `h` pixels of `layout`, expected to be refused with `expected`. */
static void zc_media_check_bad_view(zc_exec *x, const zc_media_image *m, uint32_t index,
                                    ze_image_format_layout_t layout, uint32_t w, uint32_t h, ze_result_t expected,
                                    const char *what) {
    ze_image_view_planar_exp_desc_t planar = {ZE_STRUCTURE_TYPE_IMAGE_VIEW_PLANAR_EXP_DESC, NULL, index};
    ze_image_desc_t desc = zc_image_desc(ZE_IMAGE_TYPE_2D, layout, ZE_IMAGE_FORMAT_TYPE_UINT, w, h, 1, 1);
    desc.pNext = &planar;
    ze_image_handle_t view = NULL;
    zc_media_expect(m->format, zeImageViewCreateExp(x->context, x->device, &desc, m->image, &view), expected, what);
}

/* Planar views of planes that do not exist, of another sample size, or larger than the plane; memory copies of the
 * multi-plane image itself (the specification asks for a single-planar format). */
static void zc_media_check_bad_views(zc_exec *x, ze_command_list_handle_t list, const zc_media_image *m) {
    const zc_media_format *f = m->format;
    zc_media_check_bad_view(x, m, f->num_planes, ZE_IMAGE_FORMAT_LAYOUT_8, 2, 2, ZE_RESULT_ERROR_INVALID_ARGUMENT,
                            "a view of a plane past the last");
    if (f->num_planes == 1)
        return;
    zc_grid g = zc_media_grid(f, 1);
    ze_image_format_layout_t sample = zc_media_plane_layout(&f->planes[1]);
    /* 8-byte pixels: no plane of a multi-plane format has such samples. */
    zc_media_check_bad_view(x, m, 1, ZE_IMAGE_FORMAT_LAYOUT_32_32, g.w, g.h, ZE_RESULT_ERROR_UNSUPPORTED_IMAGE_FORMAT,
                            "a view of plane 1 with 8-byte pixels");
    zc_media_check_bad_view(x, m, 1, sample, g.w + 1, g.h, ZE_RESULT_ERROR_INVALID_ARGUMENT,
                            "a view wider than plane 1");
    zc_media_check_bad_view(x, m, 1, sample, g.w, g.h + 1, ZE_RESULT_ERROR_INVALID_ARGUMENT,
                            "a view higher than plane 1");
    uint8_t *host = zc_host_alloc(x, zc_media_bytes(f));
    zc_media_expect(f, zeCommandListAppendImageCopyToMemory(list, host, m->image, NULL, NULL, 0, NULL),
                    ZE_RESULT_ERROR_INVALID_ARGUMENT, "the multi-plane image copied to memory");
    zc_media_expect(f, zeCommandListAppendImageCopyFromMemoryExt(list, m->image, host, NULL, 0, 0, NULL, 0, NULL),
                    ZE_RESULT_ERROR_INVALID_ARGUMENT, "the multi-plane image copied from memory");
    zc_free(x, host);
}

static void image_media_partial_blocks_and_bad_planes_refused(void **state) {
    zc_exec *x = *state;
    zc_require_images(x);
    zc_skip_unless_fake(); /* the codes are zefake's choices (docs/images.md) */
    ze_command_list_handle_t list = zc_list(x, x->compute_ordinal);
    for (uint32_t i = 0; i < ZC_MEDIA_LAYOUTS; i++) {
        ze_image_format_layout_t layout = (ze_image_format_layout_t)(ZC_MEDIA_FIRST + i);
        uint32_t bw = 1, bh = 1;
        zc_media_block(&zc_media_formats[i], &bw, &bh);
        zc_media_check_odd_size(x, layout, ZC_MEDIA_W + 1, ZC_MEDIA_H, bw == 1);
        zc_media_check_odd_size(x, layout, ZC_MEDIA_W, ZC_MEDIA_H + 1, bh == 1);
        zc_media_image a, b;
        zc_media_open(x, layout, false, &a);
        zc_media_open(x, layout, false, &b);
        zc_media_check_partial_region(list, &a, &b, true, bw);
        zc_media_check_partial_region(list, &a, &b, false, bh);
        zc_media_check_bad_views(x, list, &a);
        zc_media_close(&a);
        zc_media_close(&b);
    }
    zc_assert_success(zeCommandListDestroy(list));
}

#if ZC_L0_AT_LEAST(5)
/* zeImageViewCreateExt and ze_image_view_planar_ext_desc_t (1.5): the planes of an NV12 image, as the experimental
 * function and descriptor give them. */
static void image_view_extension_matches_the_experimental_one(void **state) {
    zc_exec *x = *state;
    zc_require_images(x);
    zc_api_require(zeImageViewCreateExt);
    ze_image_desc_t desc =
        zc_image_desc(ZE_IMAGE_TYPE_2D, ZE_IMAGE_FORMAT_LAYOUT_NV12, ZE_IMAGE_FORMAT_TYPE_UINT, 16, 8, 1, 1);
    ze_image_handle_t image = NULL;
    ze_result_t result = zeImageCreate(x->context, x->device, &desc, &image);
    if (result == ZE_RESULT_ERROR_UNSUPPORTED_IMAGE_FORMAT && !zc_driver_is_fake())
        skip();
    zc_assert_result(result, ZE_RESULT_SUCCESS);
    uint8_t chroma[8 * 4 * 2], back[8 * 4 * 2];
    zc_fill_pattern(chroma, sizeof chroma, 5);
    ze_image_handle_t exp_view = zc_plane_view(x, image, 1, ZE_IMAGE_FORMAT_LAYOUT_8_8, 8, 4);
    zc_upload(x, exp_view, chroma, sizeof chroma);
    ze_image_view_planar_ext_desc_t planar = {ZE_STRUCTURE_TYPE_IMAGE_VIEW_PLANAR_EXT_DESC, NULL, 1};
    ze_image_desc_t view_desc =
        zc_image_desc(ZE_IMAGE_TYPE_2D, ZE_IMAGE_FORMAT_LAYOUT_8_8, ZE_IMAGE_FORMAT_TYPE_UINT, 8, 4, 1, 1);
    view_desc.pNext = &planar;
    ze_image_handle_t ext_view = NULL;
    zc_assert_success(ZC_API(zeImageViewCreateExt)(x->context, x->device, &view_desc, image, &ext_view));
    zc_download(x, ext_view, back, sizeof back);
    if (memcmp(chroma, back, sizeof back) != 0)
        zc_fail("the extension's view of plane 1 does not show the bytes the experimental view wrote");
    ze_image_handle_t bad = NULL;
    zc_assert_result(ZC_API(zeImageViewCreateExt)(NULL, x->device, &view_desc, image, &bad),
                     ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(ZC_API(zeImageViewCreateExt)(x->context, x->device, NULL, image, &bad),
                     ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(ZC_API(zeImageViewCreateExt)(x->context, x->device, &view_desc, image, NULL),
                     ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    view_desc.type = (ze_image_type_t)0x77;
    zc_assert_result(ZC_API(zeImageViewCreateExt)(x->context, x->device, &view_desc, image, &bad),
                     ZE_RESULT_ERROR_INVALID_ENUMERATION);
    zc_assert_success(zeImageDestroy(ext_view));
    zc_assert_success(zeImageDestroy(exp_view));
    zc_assert_success(zeImageDestroy(image));
}
#endif

int main(int argc, char **argv) {
    static const struct CMUnitTest tests[] = {
#define ZC_FIXTURE exec
        ZC_T(image_view_reinterprets_format),
        ZC_T(image_nv12_through_planar_views),
        ZC_T(image_views_of_one_plane_overlap_only_where_bytes_do),
        ZC_T(image_every_media_format_copies_plane_by_plane),
        ZC_T(image_media_formats_outside_2d_unsupported),
        ZC_T(image_media_partial_blocks_and_bad_planes_refused),
#if ZC_L0_AT_LEAST(5)
        ZC_T(image_view_extension_matches_the_experimental_one),
#endif
#undef ZC_FIXTURE
    };
    static const zc_suite suite = {ZC_EXECUTABLE, tests, ZC_COUNT(tests), zc_setup_system, zc_teardown_system, NULL, 0};
    return zc_main(argc, argv, &suite);
}
