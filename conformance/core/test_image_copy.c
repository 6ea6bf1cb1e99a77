/* Conformance: image copies (ZE_extension_image_copy) of regions and pitches: between images, to and from memory, of
 * arrays and 3D images, with memory pitches, on the copy engine; and every required format in every image type
 * through whole, region and pitched copies checked byte by byte against a model of the image. On the fake,
 * docs/images.md. */
#include "zc_image.h"

#include <stdio.h>

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

/* Every test above with its images, lists and memory on each root device in turn (two with the FLAT hierarchy of a
 * two-tile card, or with two cards). */
static void image_copies_on_every_root_device(void **state) {
    const zc_exec *x = *state;
    void (*const tests[])(void **) = {image_copy_region_between_images, image_copy_region_to_and_from_memory,
                                      image_regions_of_arrays_and_3d, image_copy_ext_pitches,
                                      image_copy_on_copy_engine_and_after_destroy};
    for (uint32_t d = 0; d < zc_sys()->num_roots; d++) {
        zc_exec on = {.context = x->context, .device = zc_sys()->roots[d]};
        zc_exec_groups(&on);
        void *at = &on;
        for (size_t t = 0; t < ZC_COUNT(tests); t++)
            tests[t](&at);
    }
}

int main(int argc, char **argv) {
    static const struct CMUnitTest tests[] = {
#define ZC_FIXTURE exec
        ZC_T(image_copy_region_between_images),
        ZC_T(image_copy_region_to_and_from_memory),
        ZC_T(image_regions_of_arrays_and_3d),
        ZC_T(image_copy_ext_pitches),
        ZC_T(image_copy_on_copy_engine_and_after_destroy),
        ZC_T(image_required_formats_in_every_type_copy_exactly),
        ZC_T(image_copies_on_every_root_device),
#undef ZC_FIXTURE
    };
    static const zc_suite suite = {ZC_EXECUTABLE, tests, ZC_COUNT(tests), zc_setup_system, zc_teardown_system, NULL, 0};
    return zc_main(argc, argv, &suite);
}
