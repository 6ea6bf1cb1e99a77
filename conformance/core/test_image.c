/* Conformance: images (zeImageCreate/GetProperties/Destroy), every required format and every image type round-tripping
 * through copies, region and pitched copies (ZE_extension_image_copy), media formats and planar views
 * (ZE_experimental_image_view, ZE_experimental_image_view_planar), image memory and allocation properties, external
 * memory for images, residency, image kernel arguments, and bad inputs. On the fake, docs/images.md. */
#include "zc_image.h"
#include "zc_kernel_files.h"

#include <unistd.h>

/* ------------------------------------------------------------------------------------------------------------------
 * Round trips */

/* Uploads a pattern, copies the image to a second one, downloads that and compares. */
static void zc_round_trip(zc_exec *x, const ze_image_desc_t *desc, size_t bytes, const char *what) {
    uint8_t *pattern = malloc(bytes), *back = malloc(bytes);
    zc_fill_pattern(pattern, bytes, (uint32_t)bytes);
    ze_image_handle_t a = zc_image(x, desc), b = zc_image(x, desc);
    zc_upload(x, a, pattern, bytes);
    ze_command_list_handle_t list = zc_sync_list(x);
    zc_assert_success(zeCommandListAppendImageCopy(list, b, a, NULL, 0, NULL));
    zc_assert_success(zeCommandListDestroy(list));
    zc_download(x, b, back, bytes);
    if (memcmp(pattern, back, bytes) != 0)
        zc_fail("%s: %zu bytes came back different", what, bytes);
    zc_assert_success(zeImageDestroy(a));
    zc_assert_success(zeImageDestroy(b));
    free(pattern);
    free(back);
}

static void image_every_required_format_round_trips(void **state) {
    zc_exec *x = *state;
    zc_require_images(x);
    for (uint32_t layout = 0; layout < ZC_COLOUR_LAYOUTS; layout++) {
        for (uint32_t type = 0; type < ZC_FORMAT_TYPES; type++) {
            ze_image_desc_t desc = zc_image_desc(ZE_IMAGE_TYPE_2D, layout, type, 7, 5, 1, 1);
            char what[64];
            snprintf(what, sizeof what, "layout %u type %u", layout, type);
            if (zc_format_required(layout, type)) {
                zc_round_trip(x, &desc, 7u * 5u * zc_pixel_bytes[layout], what);
                continue;
            }
            ze_image_handle_t image = NULL;
            ze_result_t result = zeImageCreate(x->context, x->device, &desc, &image);
            if (zc_driver_is_fake())
                zc_assert_result(result, ZE_RESULT_ERROR_UNSUPPORTED_IMAGE_FORMAT);
            if (result == ZE_RESULT_SUCCESS)
                zc_assert_success(zeImageDestroy(image));
        }
    }
}

static void image_every_type_round_trips(void **state) {
    zc_exec *x = *state;
    zc_require_images(x);
    const ze_image_format_layout_t l = ZE_IMAGE_FORMAT_LAYOUT_8_8_8_8;
    const ze_image_format_type_t t = ZE_IMAGE_FORMAT_TYPE_UNORM;
    const struct {
        ze_image_desc_t desc;
        size_t pixels;
    } cases[] = {
        {zc_image_desc(ZE_IMAGE_TYPE_1D, l, t, 9, 0, 0, 0), 9},
        {zc_image_desc(ZE_IMAGE_TYPE_1DARRAY, l, t, 9, 0, 0, 3), 27},
        {zc_image_desc(ZE_IMAGE_TYPE_2D, l, t, 9, 4, 0, 0), 36},
        {zc_image_desc(ZE_IMAGE_TYPE_2DARRAY, l, t, 9, 4, 0, 3), 108},
        {zc_image_desc(ZE_IMAGE_TYPE_3D, l, t, 9, 4, 3, 0), 108},
        {zc_image_desc(ZE_IMAGE_TYPE_BUFFER, l, t, 9 * 4, 0, 0, 0), 9},
    };
    for (size_t i = 0; i < ZC_COUNT(cases); i++) {
        char what[32];
        snprintf(what, sizeof what, "image type %d", (int)cases[i].desc.type);
        zc_round_trip(x, &cases[i].desc, cases[i].pixels * 4, what);
    }
}

static void image_swizzles_accepted(void **state) {
    zc_exec *x = *state;
    zc_require_images(x);
    ze_image_desc_t desc = zc_rgba8_desc(4, 4);
    for (int swizzle = ZE_IMAGE_FORMAT_SWIZZLE_R; swizzle <= ZE_IMAGE_FORMAT_SWIZZLE_X; swizzle++) {
        desc.format.x = desc.format.w = (ze_image_format_swizzle_t)swizzle;
        desc.format.y = desc.format.z = (ze_image_format_swizzle_t)(ZE_IMAGE_FORMAT_SWIZZLE_X - swizzle);
        zc_assert_success(zeImageDestroy(zc_image(x, &desc)));
    }
}

static void image_single_plane_media_formats_round_trip(void **state) {
    zc_exec *x = *state;
    zc_require_images(x);
    zc_skip_unless_fake(); /* which media formats a device supports is its choice */
    const struct {
        ze_image_format_layout_t layout;
        size_t bytes_8x2;
    } cases[] = {
        {ZE_IMAGE_FORMAT_LAYOUT_Y8, 16},   {ZE_IMAGE_FORMAT_LAYOUT_YUYV, 32},  {ZE_IMAGE_FORMAT_LAYOUT_UYVY, 32},
        {ZE_IMAGE_FORMAT_LAYOUT_AYUV, 64}, {ZE_IMAGE_FORMAT_LAYOUT_Y16, 32},   {ZE_IMAGE_FORMAT_LAYOUT_Y216, 64},
        {ZE_IMAGE_FORMAT_LAYOUT_Y410, 64}, {ZE_IMAGE_FORMAT_LAYOUT_Y416, 128},
    };
    for (size_t i = 0; i < ZC_COUNT(cases); i++) {
        /* Type and swizzle are ignored for media formats: pass values that are not even enumerators. */
        ze_image_desc_t desc = zc_image_desc(ZE_IMAGE_TYPE_2D, cases[i].layout, (ze_image_format_type_t)77, 8, 2, 1, 1);
        char what[32];
        snprintf(what, sizeof what, "media layout %d", (int)cases[i].layout);
        zc_round_trip(x, &desc, cases[i].bytes_8x2, what);
    }
}

/* ------------------------------------------------------------------------------------------------------------------
 * Regions and pitches */

/* Byte of pixel (px, py) channel c of the pattern of a w-wide RGBA8 image. */
static uint8_t zc_pixel(const uint8_t *data, uint32_t w, uint32_t px, uint32_t py, uint32_t c) {
    return data[((size_t)py * w + px) * 4 + c];
}

static void image_copy_region_between_images(void **state) {
    zc_exec *x = *state;
    zc_require_images(x);
    ze_image_desc_t desc = zc_rgba8_desc(8, 6);
    uint8_t pattern[8 * 6 * 4], back[8 * 6 * 4] = {0};
    zc_fill_pattern(pattern, sizeof pattern, 3);
    ze_image_handle_t a = zc_image(x, &desc), b = zc_image(x, &desc);
    zc_upload(x, a, pattern, sizeof pattern);
    zc_upload(x, b, back, sizeof back); /* zeros */
    ze_image_region_t src = {2, 1, 0, 3, 2, 1}, dst = {4, 3, 0, 3, 2, 1};
    ze_command_list_handle_t list = zc_sync_list(x);
    zc_assert_success(zeCommandListAppendImageCopyRegion(list, b, a, &dst, &src, NULL, 0, NULL));
    zc_download(x, b, back, sizeof back);
    for (uint32_t py = 0; py < 6; py++) {
        for (uint32_t px = 0; px < 8; px++) {
            bool inside = px >= 4 && px < 7 && py >= 3 && py < 5;
            uint8_t want = inside ? zc_pixel(pattern, 8, px - 2, py - 2, 1) : 0;
            if (zc_pixel(back, 8, px, py, 1) != want)
                zc_fail("pixel (%u, %u) is %u, expected %u", px, py, zc_pixel(back, 8, px, py, 1), want);
        }
    }
    /* Inside one image: apart is fine, overlapping is refused. */
    ze_image_region_t left = {0, 0, 0, 4, 6, 1}, right = {4, 0, 0, 4, 6, 1}, shifted = {2, 0, 0, 4, 6, 1};
    zc_assert_success(zeCommandListAppendImageCopyRegion(list, a, a, &right, &left, NULL, 0, NULL));
    zc_assert_result(zeCommandListAppendImageCopyRegion(list, a, a, &shifted, &left, NULL, 0, NULL),
                     ZE_RESULT_ERROR_OVERLAPPING_REGIONS);
    zc_assert_success(zeCommandListDestroy(list));
    zc_assert_success(zeImageDestroy(a));
    zc_assert_success(zeImageDestroy(b));
}

static void image_copy_region_to_and_from_memory(void **state) {
    zc_exec *x = *state;
    zc_require_images(x);
    ze_image_desc_t desc = zc_rgba8_desc(8, 6);
    uint8_t pattern[8 * 6 * 4];
    zc_fill_pattern(pattern, sizeof pattern, 9);
    ze_image_handle_t image = zc_image(x, &desc);
    zc_upload(x, image, pattern, sizeof pattern);
    uint8_t *region = zc_host_alloc(x, 3 * 2 * 4);
    ze_image_region_t box = {5, 4, 0, 3, 2, 1};
    ze_command_list_handle_t list = zc_sync_list(x);
    zc_assert_success(zeCommandListAppendImageCopyToMemory(list, region, image, &box, NULL, 0, NULL));
    for (uint32_t py = 0; py < 2; py++) {
        for (uint32_t px = 0; px < 3; px++) {
            if (zc_pixel(region, 3, px, py, 2) != zc_pixel(pattern, 8, 5 + px, 4 + py, 2))
                zc_fail("region pixel (%u, %u) differs from image pixel (%u, %u)", px, py, 5 + px, 4 + py);
        }
    }
    /* And back to another place: the tightly packed region lands where the region says. */
    ze_image_region_t origin = {0, 0, 0, 3, 2, 1};
    zc_assert_success(zeCommandListAppendImageCopyFromMemory(list, image, region, &origin, NULL, 0, NULL));
    uint8_t back[8 * 6 * 4];
    zc_download(x, image, back, sizeof back);
    if (zc_pixel(back, 8, 2, 1, 0) != zc_pixel(pattern, 8, 7, 5, 0) ||
        zc_pixel(back, 8, 3, 0, 0) != zc_pixel(pattern, 8, 3, 0, 0))
        zc_fail("the region written back is not where pDstRegion says");
    zc_assert_success(zeCommandListDestroy(list));
    zc_free(x, region);
    zc_assert_success(zeImageDestroy(image));
}

static void image_regions_of_arrays_and_3d(void **state) {
    zc_exec *x = *state;
    zc_require_images(x);
    zc_skip_unless_fake(); /* how a 1D array's layers are addressed is zefake's reading (docs/images.md) */
    ze_image_desc_t desc =
        zc_image_desc(ZE_IMAGE_TYPE_1DARRAY, ZE_IMAGE_FORMAT_LAYOUT_32, ZE_IMAGE_FORMAT_TYPE_UINT, 4, 0, 0, 3);
    uint32_t pattern[12], out[4] = {0};
    for (uint32_t i = 0; i < 12; i++)
        pattern[i] = 100 + i;
    ze_image_handle_t array = zc_image(x, &desc);
    zc_upload(x, array, pattern, sizeof pattern);
    uint32_t *host = zc_host_alloc(x, sizeof out);
    ze_image_region_t layer2 = {1, 2, 0, 3, 1, 1}; /* x 1..3 of layer 2 (originY) */
    ze_command_list_handle_t list = zc_sync_list(x);
    zc_assert_success(zeCommandListAppendImageCopyToMemory(list, host, array, &layer2, NULL, 0, NULL));
    memcpy(out, host, sizeof out);
    if (out[0] != 109 || out[2] != 111)
        zc_fail("1D array layer 2, x 1..3: got %u..%u, expected 109..111", out[0], out[2]);
    ze_image_region_t beyond = {0, 3, 0, 1, 1, 1};
    zc_assert_result(zeCommandListAppendImageCopyToMemory(list, host, array, &beyond, NULL, 0, NULL),
                     ZE_RESULT_ERROR_INVALID_ARGUMENT);
    /* 3D: slice 1 only. */
    ze_image_desc_t desc3 =
        zc_image_desc(ZE_IMAGE_TYPE_3D, ZE_IMAGE_FORMAT_LAYOUT_32, ZE_IMAGE_FORMAT_TYPE_UINT, 2, 2, 3, 0);
    ze_image_handle_t volume = zc_image(x, &desc3);
    zc_upload(x, volume, pattern, sizeof pattern);
    ze_image_region_t slice1 = {0, 0, 1, 2, 2, 1};
    zc_assert_success(zeCommandListAppendImageCopyToMemory(list, host, volume, &slice1, NULL, 0, NULL));
    if (host[0] != 104 || host[3] != 107)
        zc_fail("3D slice 1: got %u..%u, expected 104..107", host[0], host[3]);
    zc_assert_success(zeCommandListDestroy(list));
    zc_free(x, host);
    zc_assert_success(zeImageDestroy(array));
    zc_assert_success(zeImageDestroy(volume));
}

static void image_copy_ext_pitches(void **state) {
    zc_exec *x = *state;
    zc_require_images(x);
    ze_image_desc_t desc =
        zc_image_desc(ZE_IMAGE_TYPE_3D, ZE_IMAGE_FORMAT_LAYOUT_8_8_8_8, ZE_IMAGE_FORMAT_TYPE_UINT, 5, 3, 2, 0);
    const uint32_t row = 32, slice = 128; /* rows of 20 bytes padded to 32, slices of 96 padded to 128 */
    uint8_t *padded = zc_host_alloc(x, slice * 2);
    memset(padded, 0, slice * 2);
    for (uint32_t z = 0; z < 2; z++)
        for (uint32_t y = 0; y < 3; y++)
            zc_fill_pattern(padded + z * slice + y * row, 20, z * 10 + y);
    ze_image_handle_t image = zc_image(x, &desc);
    ze_command_list_handle_t list = zc_sync_list(x);
    zc_assert_success(zeCommandListAppendImageCopyFromMemoryExt(list, image, padded, NULL, row, slice, NULL, 0, NULL));
    uint8_t packed[5 * 3 * 2 * 4];
    zc_download(x, image, packed, sizeof packed);
    for (uint32_t z = 0; z < 2; z++)
        for (uint32_t y = 0; y < 3; y++)
            if (memcmp(packed + (z * 3 + y) * 20, padded + z * slice + y * row, 20) != 0)
                zc_fail("row %u of slice %u was not read with the given pitches", y, z);
    uint8_t *out = zc_host_alloc(x, slice * 2);
    memset(out, 0xaa, slice * 2);
    zc_assert_success(zeCommandListAppendImageCopyToMemoryExt(list, out, image, NULL, row, slice, NULL, 0, NULL));
    for (uint32_t z = 0; z < 2; z++)
        for (uint32_t y = 0; y < 3; y++)
            if (memcmp(out + z * slice + y * row, padded + z * slice + y * row, 20) != 0 ||
                out[z * slice + y * row + 20] != 0xaa)
                zc_fail("row %u of slice %u was not written with the given pitches", y, z);
    if (zc_driver_is_fake()) {
        /* Pitches smaller than the region, or given where the image has no such dimension. */
        zc_assert_result(zeCommandListAppendImageCopyToMemoryExt(list, out, image, NULL, 16, 0, NULL, 0, NULL),
                         ZE_RESULT_ERROR_INVALID_ARGUMENT);
        zc_assert_result(zeCommandListAppendImageCopyToMemoryExt(list, out, image, NULL, row, 64, NULL, 0, NULL),
                         ZE_RESULT_ERROR_INVALID_ARGUMENT);
        ze_image_desc_t flat =
            zc_image_desc(ZE_IMAGE_TYPE_1D, ZE_IMAGE_FORMAT_LAYOUT_8, ZE_IMAGE_FORMAT_TYPE_UINT, 16, 0, 0, 0);
        ze_image_handle_t line = zc_image(x, &flat);
        zc_assert_result(zeCommandListAppendImageCopyToMemoryExt(list, out, line, NULL, 16, 0, NULL, 0, NULL),
                         ZE_RESULT_ERROR_INVALID_ARGUMENT);
        zc_assert_success(zeImageDestroy(line));
    }
    zc_assert_success(zeCommandListDestroy(list));
    zc_free(x, padded);
    zc_free(x, out);
    zc_assert_success(zeImageDestroy(image));
}

static void image_copy_on_copy_engine_and_after_destroy(void **state) {
    zc_exec *x = *state;
    zc_require_images(x);
    uint32_t ordinal = x->copy_ordinal != ZC_NO_ORDINAL ? x->copy_ordinal : x->compute_ordinal;
    ze_image_desc_t desc = zc_rgba8_desc(16, 16);
    uint8_t pattern[16 * 16 * 4];
    zc_fill_pattern(pattern, sizeof pattern, 5);
    ze_image_handle_t image = zc_image(x, &desc);
    zc_upload(x, image, pattern, sizeof pattern);
    uint8_t *out = zc_host_alloc(x, sizeof pattern);
    /* The copy waits for a gate; the image is destroyed before the gate opens. */
    ze_event_pool_handle_t pool = zc_event_pool(x, 1, 0);
    ze_event_handle_t gate = zc_event(pool, 0);
    ze_command_queue_handle_t queue = zc_queue(x, ordinal, 0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_command_list_handle_t list = zc_list(x, ordinal);
    zc_assert_success(zeCommandListAppendImageCopyToMemory(list, out, image, NULL, NULL, 1, &gate));
    zc_assert_success(zeCommandListClose(list));
    zc_assert_success(zeCommandQueueExecuteCommandLists(queue, 1, &list, NULL));
    zc_assert_success(zeImageDestroy(image));
    zc_assert_success(zeEventHostSignal(gate));
    zc_assert_success(zeCommandQueueSynchronize(queue, UINT64_MAX));
    if (zc_driver_is_fake() && memcmp(out, pattern, sizeof pattern) != 0)
        zc_fail("a copy submitted before zeImageDestroy did not read the image's contents");
    zc_assert_success(zeCommandListDestroy(list));
    zc_assert_success(zeCommandQueueDestroy(queue));
    zc_assert_success(zeEventDestroy(gate));
    zc_assert_success(zeEventPoolDestroy(pool));
    zc_free(x, out);
}

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

/* ------------------------------------------------------------------------------------------------------------------
 * Properties */

static void image_device_properties_report_support(void **state) {
    (void)state;
    zc_skip_unless_fake(); /* devices without images report 0, which is allowed */
    const zc_system *sys = zc_sys();
    for (uint32_t i = 0; i < sys->num_all; i++) {
        ze_device_image_properties_t p = {.stype = ZE_STRUCTURE_TYPE_DEVICE_IMAGE_PROPERTIES};
        zc_assert_success(zeDeviceGetImageProperties(sys->all[i], &p));
        assert_true(p.maxImageDims1D > 0 && p.maxImageDims2D > 0 && p.maxImageDims3D > 0);
        assert_true(p.maxImageBufferSize > 0 && p.maxImageArraySlices > 0 && p.maxSamplers > 0);
        assert_true(p.maxReadImageArgs > 0 && p.maxWriteImageArgs > 0);
    }
}

static void image_get_properties_filters(void **state) {
    zc_exec *x = *state;
    zc_require_images(x);
    ze_image_properties_t p = {.stype = ZE_STRUCTURE_TYPE_IMAGE_PROPERTIES};
    ze_image_desc_t norm =
        zc_image_desc(ZE_IMAGE_TYPE_2D, ZE_IMAGE_FORMAT_LAYOUT_8_8_8_8, ZE_IMAGE_FORMAT_TYPE_UNORM, 64, 64, 1, 1);
    zc_assert_success(zeImageGetProperties(x->device, &norm, &p));
    assert_true(p.samplerFilterFlags & ZE_IMAGE_SAMPLER_FILTER_FLAG_POINT);
    if (!zc_driver_is_fake())
        return;
    assert_int_equal(p.samplerFilterFlags, ZE_IMAGE_SAMPLER_FILTER_FLAG_POINT | ZE_IMAGE_SAMPLER_FILTER_FLAG_LINEAR);
    ze_image_desc_t integer = zc_rgba8_desc(64, 64);
    zc_assert_success(zeImageGetProperties(x->device, &integer, &p));
    assert_int_equal(p.samplerFilterFlags, ZE_IMAGE_SAMPLER_FILTER_FLAG_POINT);
    ze_image_desc_t unsupported =
        zc_image_desc(ZE_IMAGE_TYPE_2D, ZE_IMAGE_FORMAT_LAYOUT_8, ZE_IMAGE_FORMAT_TYPE_FLOAT, 64, 64, 1, 1);
    zc_assert_result(zeImageGetProperties(x->device, &unsupported, &p), ZE_RESULT_ERROR_UNSUPPORTED_IMAGE_FORMAT);
}

static void image_memory_and_allocation_properties(void **state) {
    zc_exec *x = *state;
    zc_require_images(x);
    ze_image_desc_t desc = zc_rgba8_desc(5, 3);
    ze_image_handle_t a = zc_image(x, &desc), b = zc_image(x, &desc), view = NULL;
    zc_assert_success(zeImageViewCreateExp(x->context, x->device, &desc, a, &view));
    ze_image_memory_properties_exp_t memory = {.stype = ZE_STRUCTURE_TYPE_IMAGE_MEMORY_EXP_PROPERTIES};
    zc_assert_success(zeImageGetMemoryPropertiesExp(a, &memory));
    assert_true(memory.rowPitch >= 20 && memory.slicePitch >= memory.rowPitch * 3 && memory.size >= memory.slicePitch);
    if (zc_driver_is_fake()) { /* zefake stores images tightly packed */
        assert_int_equal(memory.rowPitch, 20);
        assert_int_equal(memory.slicePitch, 60);
        assert_int_equal(memory.size, 60);
    }
    ze_image_allocation_ext_properties_t pa = {.stype = ZE_STRUCTURE_TYPE_IMAGE_ALLOCATION_EXT_PROPERTIES};
    ze_image_allocation_ext_properties_t pb = pa, pv = pa;
    zc_assert_success(zeImageGetAllocPropertiesExt(x->context, a, &pa));
    zc_assert_success(zeImageGetAllocPropertiesExt(x->context, b, &pb));
    zc_assert_success(zeImageGetAllocPropertiesExt(x->context, view, &pv));
    assert_true(pa.id != 0 && pa.id != pb.id);
    if (zc_driver_is_fake()) {
        assert_int_equal(pv.id, pa.id); /* a view is the same allocation */
        ze_context_handle_t other = NULL;
        ze_context_desc_t cd = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0};
        zc_assert_success(zeContextCreate(zc_sys()->driver, &cd, &other));
        zc_assert_result(zeImageGetAllocPropertiesExt(other, a, &pa), ZE_RESULT_ERROR_INVALID_ARGUMENT);
        zc_assert_success(zeContextDestroy(other));
    }
    zc_assert_result(zeImageGetMemoryPropertiesExp(a, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zeImageGetAllocPropertiesExt(x->context, a, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_success(zeImageDestroy(view));
    zc_assert_success(zeImageDestroy(a));
    zc_assert_success(zeImageDestroy(b));
}

static void image_residency(void **state) {
    zc_exec *x = *state;
    zc_require_images(x);
    ze_image_desc_t desc = zc_rgba8_desc(4, 4);
    ze_image_handle_t image = zc_image(x, &desc);
    zc_assert_success(zeContextMakeImageResident(x->context, x->device, image));
    zc_assert_success(zeContextEvictImage(x->context, x->device, image));
    if (zc_driver_is_fake()) {
        ze_context_handle_t other = NULL;
        ze_context_desc_t cd = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0};
        zc_assert_success(zeContextCreate(zc_sys()->driver, &cd, &other));
        zc_assert_result(zeContextMakeImageResident(other, x->device, image), ZE_RESULT_ERROR_INVALID_ARGUMENT);
        zc_assert_success(zeContextDestroy(other));
    }
    zc_assert_result(zeContextMakeImageResident(x->context, x->device, NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_success(zeImageDestroy(image));
}

/* ------------------------------------------------------------------------------------------------------------------
 * Extensions of the descriptor: sRGB, compression hints, external memory */

static void image_srgb_and_compression_hints(void **state) {
    zc_exec *x = *state;
    zc_require_images(x);
    ze_srgb_ext_desc_t srgb = {ZE_STRUCTURE_TYPE_SRGB_EXT_DESC, NULL, 1};
    ze_memory_compression_hints_ext_desc_t hint = {ZE_STRUCTURE_TYPE_MEMORY_COMPRESSION_HINTS_EXT_DESC, &srgb,
                                                   ZE_MEMORY_COMPRESSION_HINTS_EXT_FLAG_COMPRESSED};
    ze_image_desc_t desc =
        zc_image_desc(ZE_IMAGE_TYPE_2D, ZE_IMAGE_FORMAT_LAYOUT_8_8_8_8, ZE_IMAGE_FORMAT_TYPE_UNORM, 8, 8, 1, 1);
    desc.pNext = &hint;
    zc_assert_success(zeImageDestroy(zc_image(x, &desc)));
    if (!zc_driver_is_fake())
        return;
    ze_image_handle_t image = NULL;
    hint.flags = ZE_MEMORY_COMPRESSION_HINTS_EXT_FLAG_COMPRESSED | ZE_MEMORY_COMPRESSION_HINTS_EXT_FLAG_UNCOMPRESSED;
    zc_assert_result(zeImageCreate(x->context, x->device, &desc, &image), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    hint.flags = 0x10;
    zc_assert_result(zeImageCreate(x->context, x->device, &desc, &image), ZE_RESULT_ERROR_INVALID_ENUMERATION);
}

static void image_export_and_import_as_fd(void **state) {
    zc_exec *x = *state;
    zc_require_images(x);
    ze_device_external_memory_properties_t ext = {.stype = ZE_STRUCTURE_TYPE_DEVICE_EXTERNAL_MEMORY_PROPERTIES};
    zc_assert_success(zeDeviceGetExternalMemoryProperties(x->device, &ext));
    if (!(ext.imageExportTypes & ext.imageImportTypes & ZE_EXTERNAL_MEMORY_TYPE_FLAG_DMA_BUF))
        skip();
    ze_external_memory_export_desc_t export_desc = {ZE_STRUCTURE_TYPE_EXTERNAL_MEMORY_EXPORT_DESC, NULL,
                                                    ZE_EXTERNAL_MEMORY_TYPE_FLAG_DMA_BUF};
    ze_image_desc_t desc = zc_rgba8_desc(8, 8);
    desc.pNext = &export_desc;
    ze_image_handle_t exported = zc_image(x, &desc);
    ze_external_memory_export_fd_t fd_request = {ZE_STRUCTURE_TYPE_EXTERNAL_MEMORY_EXPORT_FD, NULL,
                                                 ZE_EXTERNAL_MEMORY_TYPE_FLAG_DMA_BUF, -1};
    ze_image_allocation_ext_properties_t props = {ZE_STRUCTURE_TYPE_IMAGE_ALLOCATION_EXT_PROPERTIES, &fd_request, 0};
    zc_assert_success(zeImageGetAllocPropertiesExt(x->context, exported, &props));
    assert_true(fd_request.fd >= 0);
    ze_external_memory_import_fd_t import = {ZE_STRUCTURE_TYPE_EXTERNAL_MEMORY_IMPORT_FD, NULL,
                                             ZE_EXTERNAL_MEMORY_TYPE_FLAG_DMA_BUF, fd_request.fd};
    desc.pNext = &import;
    ze_image_handle_t imported = zc_image(x, &desc);
    close(fd_request.fd); /* the image keeps what it needs */
    uint8_t pattern[8 * 8 * 4], back[8 * 8 * 4];
    zc_fill_pattern(pattern, sizeof pattern, 77);
    zc_upload(x, exported, pattern, sizeof pattern);
    zc_download(x, imported, back, sizeof back);
    if (memcmp(pattern, back, sizeof back) != 0)
        zc_fail("an image imported from another image's descriptor does not share its memory");
    if (zc_driver_is_fake()) {
        ze_image_desc_t plain_desc = zc_rgba8_desc(8, 8);
        ze_image_handle_t plain = zc_image(x, &plain_desc);
        fd_request.fd = -1;
        zc_assert_result(zeImageGetAllocPropertiesExt(x->context, plain, &props), ZE_RESULT_ERROR_INVALID_ARGUMENT);
        zc_assert_success(zeImageDestroy(plain));
    }
    zc_assert_success(zeImageDestroy(imported));
    zc_assert_success(zeImageDestroy(exported));
}

/* ------------------------------------------------------------------------------------------------------------------
 * Kernel arguments */

static void image_kernel_arguments(void **state) {
    zc_exec *x = *state;
    zc_require_images(x);
    ze_module_handle_t module = zc_module_create(x->context, x->device, "image");
    ze_kernel_handle_t kernel = zc_kernel_create(module, "image_sample");
    ze_image_desc_t desc =
        zc_image_desc(ZE_IMAGE_TYPE_2D, ZE_IMAGE_FORMAT_LAYOUT_8_8_8_8, ZE_IMAGE_FORMAT_TYPE_UNORM, 4, 4, 1, 1);
    ze_image_handle_t image = zc_image(x, &desc);
    ze_sampler_desc_t sd = {ZE_STRUCTURE_TYPE_SAMPLER_DESC, NULL, ZE_SAMPLER_ADDRESS_MODE_CLAMP,
                            ZE_SAMPLER_FILTER_MODE_NEAREST, 0};
    ze_sampler_handle_t sampler = NULL;
    zc_assert_success(zeSamplerCreate(x->context, x->device, &sd, &sampler));
    zc_assert_success(zeKernelSetArgumentValue(kernel, 0, sizeof image, &image));
    zc_assert_success(zeKernelSetArgumentValue(kernel, 1, sizeof sampler, &sampler));
    if (zc_driver_is_fake()) {
        /* zefake checks handles: the wrong kind, a destroyed one, another context's. */
        zc_assert_result(zeKernelSetArgumentValue(kernel, 0, sizeof sampler, &sampler),
                         ZE_RESULT_ERROR_INVALID_ARGUMENT);
        zc_assert_result(zeKernelSetArgumentValue(kernel, 1, sizeof image, &image), ZE_RESULT_ERROR_INVALID_ARGUMENT);
        ze_image_handle_t gone = zc_image(x, &desc);
        zc_assert_success(zeImageDestroy(gone));
        zc_assert_result(zeKernelSetArgumentValue(kernel, 0, sizeof gone, &gone), ZE_RESULT_ERROR_INVALID_ARGUMENT);
        ze_context_handle_t other = NULL;
        ze_context_desc_t cd = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0};
        zc_assert_success(zeContextCreate(zc_sys()->driver, &cd, &other));
        ze_image_handle_t foreign = NULL;
        zc_assert_success(zeImageCreate(other, x->device, &desc, &foreign));
        zc_assert_result(zeKernelSetArgumentValue(kernel, 0, sizeof foreign, &foreign),
                         ZE_RESULT_ERROR_INVALID_ARGUMENT);
        zc_assert_success(zeImageDestroy(foreign));
        zc_assert_success(zeContextDestroy(other));
    }
    zc_assert_result(zeKernelSetArgumentValue(kernel, 0, 4, &image), ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE);
    zc_assert_success(zeKernelDestroy(kernel));
    zc_assert_success(zeModuleDestroy(module));
    zc_assert_success(zeSamplerDestroy(sampler));
    zc_assert_success(zeImageDestroy(image));
}

/* ------------------------------------------------------------------------------------------------------------------
 * Bad inputs */

static void zc_assert_create(zc_exec *x, const ze_image_desc_t *desc, ze_result_t expected) {
    ze_image_handle_t image = NULL;
    zc_assert_result(zeImageCreate(x->context, x->device, desc, &image), expected);
}

static void image_create_bad_arguments(void **state) {
    zc_exec *x = *state;
    zc_require_images(x);
    ze_image_desc_t desc = zc_rgba8_desc(4, 4);
    ze_image_handle_t image = NULL;
    zc_assert_result(zeImageCreate(x->context, x->device, NULL, &image), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zeImageCreate(x->context, x->device, &desc, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zeImageCreate(NULL, x->device, &desc, &image), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    ze_image_desc_t bad = desc;
    bad.flags = 0x4;
    zc_assert_create(x, &bad, ZE_RESULT_ERROR_INVALID_ENUMERATION);
    bad = desc;
    bad.type = (ze_image_type_t)(ZE_IMAGE_TYPE_BUFFER + 1);
    zc_assert_create(x, &bad, ZE_RESULT_ERROR_INVALID_ENUMERATION);
    zc_assert_result(zeImageDestroy(NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    bad = zc_image_desc(ZE_IMAGE_TYPE_BUFFER, ZE_IMAGE_FORMAT_LAYOUT_NV12, ZE_IMAGE_FORMAT_TYPE_UINT, 64, 0, 0, 0);
    ze_result_t result = zeImageCreate(x->context, x->device, &bad, &image); /* the header: media is not for buffers */
    assert_int_not_equal(result, ZE_RESULT_SUCCESS);
    if (!zc_driver_is_fake())
        return;
    assert_int_equal(result, ZE_RESULT_ERROR_UNSUPPORTED_IMAGE_FORMAT);
    ze_device_image_properties_t limits = {.stype = ZE_STRUCTURE_TYPE_DEVICE_IMAGE_PROPERTIES};
    zc_assert_success(zeDeviceGetImageProperties(x->device, &limits));
    bad = desc;
    bad.stype = ZE_STRUCTURE_TYPE_SAMPLER_DESC;
    zc_assert_create(x, &bad, ZE_RESULT_ERROR_INVALID_ARGUMENT);
    bad = desc;
    bad.miplevels = 1;
    zc_assert_create(x, &bad, ZE_RESULT_ERROR_INVALID_ARGUMENT);
    bad = desc;
    bad.width = 0;
    zc_assert_create(x, &bad, ZE_RESULT_ERROR_INVALID_SIZE);
    bad = desc;
    bad.width = (uint64_t)limits.maxImageDims2D + 1;
    zc_assert_create(x, &bad, ZE_RESULT_ERROR_UNSUPPORTED_SIZE);
    bad = zc_image_desc(ZE_IMAGE_TYPE_2DARRAY, ZE_IMAGE_FORMAT_LAYOUT_8, ZE_IMAGE_FORMAT_TYPE_UINT, 4, 4, 0,
                        limits.maxImageArraySlices + 1);
    zc_assert_create(x, &bad, ZE_RESULT_ERROR_UNSUPPORTED_SIZE);
    bad = zc_image_desc(ZE_IMAGE_TYPE_BUFFER, ZE_IMAGE_FORMAT_LAYOUT_32, ZE_IMAGE_FORMAT_TYPE_UINT, 10, 0, 0, 0);
    zc_assert_create(x, &bad, ZE_RESULT_ERROR_INVALID_ARGUMENT); /* 10 bytes is not whole 4-byte pixels */
    bad = desc;
    bad.format.layout = (ze_image_format_layout_t)200;
    zc_assert_create(x, &bad, ZE_RESULT_ERROR_INVALID_ENUMERATION);
    bad = desc;
    bad.format.type = (ze_image_format_type_t)9;
    zc_assert_create(x, &bad, ZE_RESULT_ERROR_INVALID_ENUMERATION);
    bad = desc;
    bad.format.z = (ze_image_format_swizzle_t)7;
    zc_assert_create(x, &bad, ZE_RESULT_ERROR_INVALID_ENUMERATION);
    bad = zc_image_desc(ZE_IMAGE_TYPE_1D, ZE_IMAGE_FORMAT_LAYOUT_YUYV, ZE_IMAGE_FORMAT_TYPE_UINT, 8, 0, 0, 0);
    zc_assert_create(x, &bad, ZE_RESULT_ERROR_UNSUPPORTED_IMAGE_FORMAT);
    ze_base_desc_t loop = {(ze_structure_type_t)0x7fff0003, NULL};
    loop.pNext = &loop;
    bad = desc;
    bad.pNext = &loop;
    zc_assert_create(x, &bad, ZE_RESULT_ERROR_INVALID_ARGUMENT);
    ze_base_desc_t unknown = {(ze_structure_type_t)0x7fff0004, NULL};
    bad.pNext = &unknown;
    zc_assert_success(zeImageCreate(x->context, x->device, &bad, &image));
    zc_assert_success(zeImageDestroy(image));
}

static void image_copy_bad_arguments(void **state) {
    zc_exec *x = *state;
    zc_require_images(x);
    ze_image_desc_t desc = zc_rgba8_desc(8, 8);
    ze_image_handle_t a = zc_image(x, &desc);
    uint8_t *host = zc_host_alloc(x, 8 * 8 * 4);
    ze_command_list_handle_t list = zc_list(x, x->compute_ordinal);
    zc_assert_result(zeCommandListAppendImageCopy(list, NULL, a, NULL, 0, NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zeCommandListAppendImageCopyToMemory(list, NULL, a, NULL, NULL, 0, NULL),
                     ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zeCommandListAppendImageCopyFromMemory(list, a, host, NULL, NULL, 1, NULL),
                     ZE_RESULT_ERROR_INVALID_SIZE);
    if (zc_driver_is_fake()) {
        ze_image_desc_t small_desc = zc_rgba8_desc(4, 4),
                        other_format = zc_image_desc(ZE_IMAGE_TYPE_2D, ZE_IMAGE_FORMAT_LAYOUT_32,
                                                     ZE_IMAGE_FORMAT_TYPE_UINT, 8, 8, 1, 1);
        ze_image_handle_t small = zc_image(x, &small_desc), other = zc_image(x, &other_format);
        zc_assert_result(zeCommandListAppendImageCopy(list, small, a, NULL, 0, NULL), ZE_RESULT_ERROR_INVALID_ARGUMENT);
        zc_assert_result(zeCommandListAppendImageCopy(list, other, a, NULL, 0, NULL), ZE_RESULT_ERROR_INVALID_ARGUMENT);
        ze_image_region_t outside = {6, 6, 0, 4, 4, 1}, inside = {0, 0, 0, 4, 4, 1}, other_size = {0, 0, 0, 2, 4, 1};
        zc_assert_result(zeCommandListAppendImageCopyRegion(list, a, small, &outside, &inside, NULL, 0, NULL),
                         ZE_RESULT_ERROR_INVALID_ARGUMENT);
        zc_assert_result(zeCommandListAppendImageCopyRegion(list, a, small, &inside, &other_size, NULL, 0, NULL),
                         ZE_RESULT_ERROR_INVALID_ARGUMENT);
        ze_image_region_t empty = {0, 0, 0, 0, 4, 1}, depth2 = {0, 0, 0, 4, 4, 2};
        zc_assert_result(zeCommandListAppendImageCopyToMemory(list, host, a, &empty, NULL, 0, NULL),
                         ZE_RESULT_ERROR_INVALID_ARGUMENT);
        zc_assert_result(zeCommandListAppendImageCopyToMemory(list, host, a, &depth2, NULL, 0, NULL),
                         ZE_RESULT_ERROR_INVALID_ARGUMENT);
        ze_context_handle_t foreign_context = NULL;
        ze_context_desc_t cd = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0};
        zc_assert_success(zeContextCreate(zc_sys()->driver, &cd, &foreign_context));
        ze_image_handle_t foreign = NULL;
        zc_assert_success(zeImageCreate(foreign_context, x->device, &desc, &foreign));
        zc_assert_result(zeCommandListAppendImageCopy(list, foreign, a, NULL, 0, NULL),
                         ZE_RESULT_ERROR_INVALID_ARGUMENT);
        zc_assert_success(zeImageDestroy(foreign));
        zc_assert_success(zeContextDestroy(foreign_context));
        zc_assert_success(zeImageDestroy(small));
        zc_assert_success(zeImageDestroy(other));
    }
    zc_assert_success(zeCommandListDestroy(list));
    zc_free(x, host);
    zc_assert_success(zeImageDestroy(a));
}

int main(int argc, char **argv) {
    static const struct CMUnitTest tests[] = {
#define ZC_TEST(name) cmocka_unit_test_setup_teardown(name, zc_setup_exec, zc_teardown_exec)
        cmocka_unit_test(image_device_properties_report_support),
        ZC_TEST(image_every_required_format_round_trips),
        ZC_TEST(image_every_type_round_trips),
        ZC_TEST(image_swizzles_accepted),
        ZC_TEST(image_single_plane_media_formats_round_trip),
        ZC_TEST(image_copy_region_between_images),
        ZC_TEST(image_copy_region_to_and_from_memory),
        ZC_TEST(image_regions_of_arrays_and_3d),
        ZC_TEST(image_copy_ext_pitches),
        ZC_TEST(image_copy_on_copy_engine_and_after_destroy),
        ZC_TEST(image_view_reinterprets_format),
        ZC_TEST(image_nv12_through_planar_views),
        ZC_TEST(image_get_properties_filters),
        ZC_TEST(image_memory_and_allocation_properties),
        ZC_TEST(image_residency),
        ZC_TEST(image_srgb_and_compression_hints),
        ZC_TEST(image_export_and_import_as_fd),
        ZC_TEST(image_kernel_arguments),
        ZC_TEST(image_create_bad_arguments),
        ZC_TEST(image_copy_bad_arguments),
#undef ZC_TEST
    };
    static const zc_suite suite = {ZC_EXECUTABLE, tests, ZC_COUNT(tests), zc_setup_system, zc_teardown_system, NULL, 0};
    return zc_main(argc, argv, &suite);
}
