/* Conformance: images (zeImageCreate/GetProperties/Destroy), every required format and every image type
 * round-tripping through whole copies, image memory and allocation properties, sRGB and compression hints, external
 * memory for images, residency, image kernel arguments, and bad inputs. Region and pitched copies are
 * test_image_copy.c's, views and media formats test_image_media.c's. On the fake, docs/images.md. */
#include "zc_image.h"
#include "zc_kernel_files.h"

#include <stdio.h>
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
#define ZC_FIXTURE exec
        cmocka_unit_test(image_device_properties_report_support),
        ZC_T(image_every_required_format_round_trips),
        ZC_T(image_every_type_round_trips),
        ZC_T(image_swizzles_accepted),
        ZC_T(image_single_plane_media_formats_round_trip),
        ZC_T(image_get_properties_filters),
        ZC_T(image_memory_and_allocation_properties),
        ZC_T(image_residency),
        ZC_T(image_srgb_and_compression_hints),
        ZC_T(image_export_and_import_as_fd),
        ZC_T(image_kernel_arguments),
        ZC_T(image_create_bad_arguments),
        ZC_T(image_copy_bad_arguments),
#undef ZC_FIXTURE
    };
    static const zc_suite suite = {ZC_EXECUTABLE, tests, ZC_COUNT(tests), zc_setup_system, zc_teardown_system, NULL, 0};
    return zc_main(argc, argv, &suite);
}
