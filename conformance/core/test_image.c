/* Conformance: images (zeImageCreate/GetProperties/Destroy), every required format in every image type round-tripping
 * through whole, region and pitched copies (ZE_extension_image_copy) checked byte by byte, every media format plane
 * by plane through planar views (ZE_experimental_image_view, ZE_experimental_image_view_planar) against the plane
 * layout its definition gives, image memory and allocation properties, external memory for images, residency, image
 * kernel arguments, and bad inputs. On the fake, docs/images.md. */
#include "zc_image.h"
#include "zc_kernel_files.h"

#include <errno.h>
#include <sys/mman.h>
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
 * Required formats in every image type: copies checked byte by byte */

/* An image type other than 2D (image_every_required_format_round_trips covers 2D): its extent (width, height,
 * slices: depth or layers), a region inside and the place it is copied to, and the pitches memory takes for it. */
typedef struct zc_type_case {
    ze_image_type_t type;
    zc_grid extent; /* block_bytes unused */
    zc_box from, to;
    uint32_t row_pad, slice_pad; /* bytes added to packed pitches; 0: the pitch is 0 (packed) */
} zc_type_case;

static const zc_type_case zc_type_cases[] = {
    {ZE_IMAGE_TYPE_1D, {7, 1, 1, 0}, {2, 0, 0, 4, 1, 1}, {3, 0, 0, 4, 1, 1}, 0, 0},
    {ZE_IMAGE_TYPE_BUFFER, {7, 1, 1, 0}, {2, 0, 0, 4, 1, 1}, {3, 0, 0, 4, 1, 1}, 0, 0},
    {ZE_IMAGE_TYPE_1DARRAY, {7, 1, 3, 0}, {2, 0, 1, 4, 1, 2}, {3, 0, 0, 4, 1, 2}, 0, 0},
    {ZE_IMAGE_TYPE_2DARRAY, {5, 3, 3, 0}, {1, 1, 1, 3, 2, 2}, {2, 0, 0, 3, 2, 2}, 4, 12},
    {ZE_IMAGE_TYPE_3D, {5, 3, 3, 0}, {1, 1, 1, 3, 2, 2}, {2, 0, 0, 3, 2, 2}, 4, 12},
};

/* What the copies of a test share: a synchronous list, and host memory for the memory side of every copy. */
typedef struct zc_copy_env {
    ze_command_list_handle_t list;
    uint8_t *host;
    size_t host_size;
} zc_copy_env;

static zc_copy_env zc_copy_env_open(zc_exec *x, size_t host_size) {
    return (zc_copy_env){zc_sync_list(x), zc_host_alloc(x, host_size), host_size};
}

static void zc_copy_env_close(zc_exec *x, zc_copy_env *env) {
    zc_assert_success(zeCommandListDestroy(env->list));
    zc_free(x, env->host);
}

/* An image of a colour format with its expected contents. */
typedef struct zc_typed_image {
    const zc_type_case *tc;
    zc_grid grid;
    ze_image_handle_t image;
    uint8_t *model;
} zc_typed_image;

static ze_image_desc_t zc_typed_desc(const zc_type_case *tc, uint32_t layout, uint32_t type) {
    const zc_grid *e = &tc->extent;
    switch (tc->type) {
    case ZE_IMAGE_TYPE_BUFFER:
        return zc_image_desc(tc->type, layout, type, (uint64_t)e->w * zc_pixel_bytes[layout], 0, 0, 0);
    case ZE_IMAGE_TYPE_1DARRAY:
        return zc_image_desc(tc->type, layout, type, e->w, 0, 0, e->d);
    case ZE_IMAGE_TYPE_2DARRAY:
        return zc_image_desc(tc->type, layout, type, e->w, e->h, 0, e->d);
    case ZE_IMAGE_TYPE_3D:
        return zc_image_desc(tc->type, layout, type, e->w, e->h, e->d, 0);
    default:
        return zc_image_desc(tc->type, layout, type, e->w, 0, 0, 0);
    }
}

/* The region the API takes for a box: a 1D array's layers are its second coordinate (docs/images.md). */
static ze_image_region_t zc_typed_region(const zc_type_case *tc, const zc_box *b) {
    if (tc->type == ZE_IMAGE_TYPE_1DARRAY)
        return (ze_image_region_t){b->x, b->z, 0, b->w, b->d, 1};
    return (ze_image_region_t){b->x, b->y, b->z, b->w, b->h, b->d};
}

static void zc_typed_open(zc_exec *x, const zc_type_case *tc, uint32_t layout, uint32_t type, zc_typed_image *t) {
    ze_image_desc_t desc = zc_typed_desc(tc, layout, type);
    t->tc = tc;
    t->grid = tc->extent;
    t->grid.block_bytes = zc_pixel_bytes[layout];
    t->image = zc_image(x, &desc);
    t->model = calloc(1, zc_grid_bytes(&t->grid));
}

static void zc_typed_close(zc_typed_image *t) {
    zc_assert_success(zeImageDestroy(t->image));
    free(t->model);
}

/* A box of the image (NULL: whole) and the memory pitches of a copy of it: packed, plus the case's padding for a
 * region; the pitches the API is given (0 where the case has no padding). */
typedef struct zc_typed_span {
    zc_box box;
    size_t row, slice, bytes;
    uint32_t row_pitch, slice_pitch;
    ze_image_region_t region;
} zc_typed_span;

static zc_typed_span zc_typed_span_of(const zc_typed_image *t, const zc_box *b) {
    zc_typed_span s = {.box = {0, 0, 0, t->grid.w, t->grid.h, t->grid.d}};
    if (b != NULL)
        s.box = *b;
    size_t packed_row = (size_t)s.box.w * t->grid.block_bytes;
    bool padded = b != NULL;
    s.row = packed_row + (padded ? t->tc->row_pad : 0);
    s.slice = (t->tc->type == ZE_IMAGE_TYPE_1DARRAY ? packed_row : s.row * s.box.h) + (padded ? t->tc->slice_pad : 0);
    s.bytes = zc_box_span(&s.box, t->grid.block_bytes, s.row, s.slice);
    s.row_pitch = padded && t->tc->row_pad ? (uint32_t)s.row : 0;
    s.slice_pitch = padded && t->tc->slice_pad ? (uint32_t)s.slice : 0;
    s.region = zc_typed_region(t->tc, &s.box);
    return s;
}

/* Memory -> box `b` of the image (NULL: whole, packed, without a region), recorded in the model. */
static void zc_typed_write(const zc_copy_env *env, zc_typed_image *t, const zc_box *b, uint32_t seed) {
    zc_typed_span s = zc_typed_span_of(t, b);
    assert_true(s.bytes <= env->host_size);
    zc_fill_unique(env->host, s.bytes, seed);
    if (b == NULL)
        zc_assert_success(zeCommandListAppendImageCopyFromMemory(env->list, t->image, env->host, NULL, NULL, 0, NULL));
    else
        zc_assert_success(zeCommandListAppendImageCopyFromMemoryExt(env->list, t->image, env->host, &s.region,
                                                                    s.row_pitch, s.slice_pitch, NULL, 0, NULL));
    zc_grid_transfer(&t->grid, t->model, &s.box, env->host, s.row, s.slice, true);
}

/* Box `b` of the image (NULL: whole, packed) -> memory, every byte checked, those between rows untouched. */
static void zc_typed_check(const zc_copy_env *env, const zc_typed_image *t, const zc_box *b, const char *what) {
    zc_typed_span s = zc_typed_span_of(t, b);
    assert_true(s.bytes <= env->host_size);
    uint8_t *expected = malloc(s.bytes);
    memset(env->host, 0xee, s.bytes);
    memset(expected, 0xee, s.bytes);
    zc_grid_transfer(&t->grid, t->model, &s.box, expected, s.row, s.slice, false);
    if (b == NULL)
        zc_assert_success(zeCommandListAppendImageCopyToMemory(env->list, env->host, t->image, NULL, NULL, 0, NULL));
    else
        zc_assert_success(zeCommandListAppendImageCopyToMemoryExt(env->list, env->host, t->image, &s.region,
                                                                  s.row_pitch, s.slice_pitch, NULL, 0, NULL));
    size_t at = zc_first_difference(env->host, expected, s.bytes);
    if (at < s.bytes)
        zc_fail("%s (image type %d): byte %zu of %zu in memory is 0x%02x, expected 0x%02x", what, (int)t->tc->type, at,
                s.bytes, env->host[at], expected[at]);
    free(expected);
}

/* Upload, image copy, region copy, region write with pitches, download whole and a region with pitches. */
static void zc_typed_round_trip(zc_exec *x, const zc_copy_env *env, const zc_type_case *tc, uint32_t layout,
                                uint32_t type) {
    char what[48];
    snprintf(what, sizeof what, "layout %u type %u", layout, type);
    /* How a 1D array's layers are addressed by a region is zefake's reading (docs/images.md). */
    bool regions = tc->type != ZE_IMAGE_TYPE_1DARRAY || zc_driver_is_fake();
    zc_typed_image a, b;
    zc_typed_open(x, tc, layout, type, &a);
    zc_typed_open(x, tc, layout, type, &b);
    zc_typed_write(env, &a, NULL, layout * 8 + type);
    zc_assert_success(zeCommandListAppendImageCopy(env->list, b.image, a.image, NULL, 0, NULL));
    memcpy(b.model, a.model, zc_grid_bytes(&a.grid));
    if (regions) {
        ze_image_region_t to = zc_typed_region(tc, &tc->to), from = zc_typed_region(tc, &tc->from);
        zc_assert_success(zeCommandListAppendImageCopyRegion(env->list, b.image, a.image, &to, &from, NULL, 0, NULL));
        zc_grid_copy(&b.grid, b.model, &tc->to, a.model, &tc->from);
        zc_typed_write(env, &a, &tc->to, 99);
    }
    zc_typed_check(env, &b, NULL, what);
    zc_typed_check(env, &a, NULL, what);
    if (regions)
        zc_typed_check(env, &b, &tc->from, what);
    zc_typed_close(&a);
    zc_typed_close(&b);
}

static void image_required_formats_in_every_type_copy_exactly(void **state) {
    zc_exec *x = *state;
    zc_require_images(x);
    zc_copy_env env = zc_copy_env_open(x, 4096); /* the largest case: 5 x 3 x 3 pixels of 16 bytes, padded */
    for (size_t c = 0; c < ZC_COUNT(zc_type_cases); c++) {
        for (uint32_t layout = 0; layout < ZC_COLOUR_LAYOUTS; layout++) {
            for (uint32_t type = 0; type < ZC_FORMAT_TYPES; type++) {
                if (zc_format_required(layout, type))
                    zc_typed_round_trip(x, &env, &zc_type_cases[c], layout, type);
            }
        }
    }
    zc_copy_env_close(x, &env);
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
        ZC_TEST(image_views_of_one_plane_overlap_only_where_bytes_do),
        ZC_TEST(image_required_formats_in_every_type_copy_exactly),
        ZC_TEST(image_every_media_format_copies_plane_by_plane),
        ZC_TEST(image_media_formats_outside_2d_unsupported),
        ZC_TEST(image_media_partial_blocks_and_bad_planes_refused),
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
