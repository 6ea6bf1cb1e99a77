/* Image formats: the layouts of ze_image_format_layout_t as planes of blocks (zf_image.h), the types each colour
 * layout supports (the specification's table of required types, PROG.rst "Images"), and the check zeImageCreate,
 * zeImageGetProperties and zeImageViewCreateExp share. */
#include "core/zf_core.h"
#include "image/zf_image.h"

#define ZF_T(type) (uint8_t)(1u << (type))
#define ZF_INTEGER_AND_NORM                                                                                            \
    (ZF_T(ZE_IMAGE_FORMAT_TYPE_UINT) | ZF_T(ZE_IMAGE_FORMAT_TYPE_SINT) | ZF_T(ZE_IMAGE_FORMAT_TYPE_UNORM) |            \
     ZF_T(ZE_IMAGE_FORMAT_TYPE_SNORM))
#define ZF_ALL_TYPES (ZF_INTEGER_AND_NORM | ZF_T(ZE_IMAGE_FORMAT_TYPE_FLOAT))

/* A colour layout: one plane of single pixels. */
#define ZF_COLOUR(text, bytes, type_bits, n, b0, b1, b2, b3)                                                           \
    {                                                                                                                  \
        text, false, 1, {{1, 1, bytes}}, type_bits, n, {                                                               \
            b0, b1, b2, b3                                                                                             \
        }                                                                                                              \
    }
/* A media layout: its planes, as {block width, block height, bytes}. */
#define ZF_MEDIA(text, n, ...)                                                                                         \
    {                                                                                                                  \
        text, true, n, {__VA_ARGS__}, 0, 0, {                                                                          \
            0, 0, 0, 0                                                                                                 \
        }                                                                                                              \
    }

static const zf_format zf_formats[] = {
    [ZE_IMAGE_FORMAT_LAYOUT_8] = ZF_COLOUR("8", 1, ZF_INTEGER_AND_NORM, 1, 8, 0, 0, 0),
    [ZE_IMAGE_FORMAT_LAYOUT_16] = ZF_COLOUR("16", 2, ZF_ALL_TYPES, 1, 16, 0, 0, 0),
    [ZE_IMAGE_FORMAT_LAYOUT_32] = ZF_COLOUR("32", 4, ZF_ALL_TYPES, 1, 32, 0, 0, 0),
    [ZE_IMAGE_FORMAT_LAYOUT_8_8] = ZF_COLOUR("8_8", 2, ZF_INTEGER_AND_NORM, 2, 8, 8, 0, 0),
    [ZE_IMAGE_FORMAT_LAYOUT_8_8_8_8] = ZF_COLOUR("8_8_8_8", 4, ZF_INTEGER_AND_NORM, 4, 8, 8, 8, 8),
    [ZE_IMAGE_FORMAT_LAYOUT_16_16] = ZF_COLOUR("16_16", 4, ZF_ALL_TYPES, 2, 16, 16, 0, 0),
    [ZE_IMAGE_FORMAT_LAYOUT_16_16_16_16] = ZF_COLOUR("16_16_16_16", 8, ZF_ALL_TYPES, 4, 16, 16, 16, 16),
    [ZE_IMAGE_FORMAT_LAYOUT_32_32] = ZF_COLOUR("32_32", 8, ZF_ALL_TYPES, 2, 32, 32, 0, 0),
    [ZE_IMAGE_FORMAT_LAYOUT_32_32_32_32] = ZF_COLOUR("32_32_32_32", 16, ZF_ALL_TYPES, 4, 32, 32, 32, 32),
    [ZE_IMAGE_FORMAT_LAYOUT_10_10_10_2] = ZF_COLOUR("10_10_10_2", 4, ZF_ALL_TYPES, 4, 10, 10, 10, 2),
    [ZE_IMAGE_FORMAT_LAYOUT_11_11_10] = ZF_COLOUR("11_11_10", 4, ZF_T(ZE_IMAGE_FORMAT_TYPE_FLOAT), 3, 11, 11, 10, 0),
    [ZE_IMAGE_FORMAT_LAYOUT_5_6_5] = ZF_COLOUR("5_6_5", 2, ZF_T(ZE_IMAGE_FORMAT_TYPE_UNORM), 3, 5, 6, 5, 0),
    [ZE_IMAGE_FORMAT_LAYOUT_5_5_5_1] = ZF_COLOUR("5_5_5_1", 2, ZF_T(ZE_IMAGE_FORMAT_TYPE_UNORM), 4, 5, 5, 5, 1),
    [ZE_IMAGE_FORMAT_LAYOUT_4_4_4_4] = ZF_COLOUR("4_4_4_4", 2, ZF_T(ZE_IMAGE_FORMAT_TYPE_UNORM), 4, 4, 4, 4, 4),
    /* Media formats. Packed 4:2:2 formats store two pixels per block; planar 4:2:0 chroma is one sample (or pair)
     * per 2 x 2 pixels. */
    [ZE_IMAGE_FORMAT_LAYOUT_Y8] = ZF_MEDIA("Y8", 1, {1, 1, 1}),
    [ZE_IMAGE_FORMAT_LAYOUT_NV12] = ZF_MEDIA("NV12", 2, {1, 1, 1}, {2, 2, 2}),
    [ZE_IMAGE_FORMAT_LAYOUT_YUYV] = ZF_MEDIA("YUYV", 1, {2, 1, 4}),
    [ZE_IMAGE_FORMAT_LAYOUT_VYUY] = ZF_MEDIA("VYUY", 1, {2, 1, 4}),
    [ZE_IMAGE_FORMAT_LAYOUT_YVYU] = ZF_MEDIA("YVYU", 1, {2, 1, 4}),
    [ZE_IMAGE_FORMAT_LAYOUT_UYVY] = ZF_MEDIA("UYVY", 1, {2, 1, 4}),
    [ZE_IMAGE_FORMAT_LAYOUT_AYUV] = ZF_MEDIA("AYUV", 1, {1, 1, 4}),
    [ZE_IMAGE_FORMAT_LAYOUT_P010] = ZF_MEDIA("P010", 2, {1, 1, 2}, {2, 2, 4}),
    [ZE_IMAGE_FORMAT_LAYOUT_Y410] = ZF_MEDIA("Y410", 1, {1, 1, 4}),
    [ZE_IMAGE_FORMAT_LAYOUT_P012] = ZF_MEDIA("P012", 2, {1, 1, 2}, {2, 2, 4}),
    [ZE_IMAGE_FORMAT_LAYOUT_Y16] = ZF_MEDIA("Y16", 1, {1, 1, 2}),
    [ZE_IMAGE_FORMAT_LAYOUT_P016] = ZF_MEDIA("P016", 2, {1, 1, 2}, {2, 2, 4}),
    [ZE_IMAGE_FORMAT_LAYOUT_Y216] = ZF_MEDIA("Y216", 1, {2, 1, 8}),
    [ZE_IMAGE_FORMAT_LAYOUT_P216] = ZF_MEDIA("P216", 2, {1, 1, 2}, {2, 1, 4}),
    [ZE_IMAGE_FORMAT_LAYOUT_P8] = ZF_MEDIA("P8", 1, {1, 1, 1}),
    [ZE_IMAGE_FORMAT_LAYOUT_YUY2] = ZF_MEDIA("YUY2", 1, {2, 1, 4}),
    [ZE_IMAGE_FORMAT_LAYOUT_A8P8] = ZF_MEDIA("A8P8", 1, {1, 1, 2}),
    [ZE_IMAGE_FORMAT_LAYOUT_IA44] = ZF_MEDIA("IA44", 1, {1, 1, 1}),
    [ZE_IMAGE_FORMAT_LAYOUT_AI44] = ZF_MEDIA("AI44", 1, {1, 1, 1}),
    [ZE_IMAGE_FORMAT_LAYOUT_Y416] = ZF_MEDIA("Y416", 1, {1, 1, 8}),
    [ZE_IMAGE_FORMAT_LAYOUT_Y210] = ZF_MEDIA("Y210", 1, {2, 1, 8}),
    [ZE_IMAGE_FORMAT_LAYOUT_I420] = ZF_MEDIA("I420", 3, {1, 1, 1}, {2, 2, 1}, {2, 2, 1}),
    [ZE_IMAGE_FORMAT_LAYOUT_YV12] = ZF_MEDIA("YV12", 3, {1, 1, 1}, {2, 2, 1}, {2, 2, 1}),
    [ZE_IMAGE_FORMAT_LAYOUT_400P] = ZF_MEDIA("400P", 1, {1, 1, 1}),
    [ZE_IMAGE_FORMAT_LAYOUT_422H] = ZF_MEDIA("422H", 3, {1, 1, 1}, {2, 1, 1}, {2, 1, 1}),
    [ZE_IMAGE_FORMAT_LAYOUT_422V] = ZF_MEDIA("422V", 3, {1, 1, 1}, {1, 2, 1}, {1, 2, 1}),
    [ZE_IMAGE_FORMAT_LAYOUT_444P] = ZF_MEDIA("444P", 3, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}),
    [ZE_IMAGE_FORMAT_LAYOUT_RGBP] = ZF_MEDIA("RGBP", 3, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}),
    [ZE_IMAGE_FORMAT_LAYOUT_BRGP] = ZF_MEDIA("BRGP", 3, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}),
};

static const char *const zf_type_names[] = {"UINT", "SINT", "UNORM", "SNORM", "FLOAT"};

const zf_format *zf_format_of(ze_image_format_layout_t layout) {
    if ((uint32_t)layout >= sizeof zf_formats / sizeof zf_formats[0])
        return NULL;
    return &zf_formats[layout];
}

static ze_result_t zf_check_swizzles(const ze_image_format_t *format) {
    const ze_image_format_swizzle_t swizzles[4] = {format->x, format->y, format->z, format->w};
    for (int i = 0; i < 4; i++) {
        if ((uint32_t)swizzles[i] > ZE_IMAGE_FORMAT_SWIZZLE_X)
            return zf_fail(ZE_RESULT_ERROR_INVALID_ENUMERATION, "desc->format.%c is %u, not a swizzle", "xyzw"[i],
                           (unsigned)swizzles[i]);
    }
    return ZE_RESULT_SUCCESS;
}

/* A colour layout must come with a type and swizzles the specification defines, and with a type its table marks
 * required for that layout. */
static ze_result_t zf_check_colour(const zf_format *f, const ze_image_format_t *format) {
    if ((uint32_t)format->type > ZE_IMAGE_FORMAT_TYPE_FLOAT)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ENUMERATION, "desc->format.type is %u, not a format type",
                       (unsigned)format->type);
    if (!(f->types & ZF_T(format->type)))
        return zf_fail(ZE_RESULT_ERROR_UNSUPPORTED_IMAGE_FORMAT,
                       "layout %s has no %s type (the specification's table of image formats)", f->name,
                       zf_type_names[format->type]);
    return zf_check_swizzles(format);
}

ze_result_t zf_format_check(const ze_image_format_t *format, ze_image_type_t type, const zf_format **out) {
    const zf_format *f = zf_format_of(format->layout);
    if (f == NULL)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ENUMERATION, "desc->format.layout is %u, not a format layout",
                       (unsigned)format->layout);
    if (f->media && type != ZE_IMAGE_TYPE_2D)
        return zf_fail(ZE_RESULT_ERROR_UNSUPPORTED_IMAGE_FORMAT,
                       "media format %s is for 2D images only (the header excludes buffers; zefake also 1D, 3D and "
                       "arrays)",
                       f->name);
    if (!f->media) {
        ze_result_t result = zf_check_colour(f, format);
        if (result != ZE_RESULT_SUCCESS)
            return result;
    }
    *out = f;
    return ZE_RESULT_SUCCESS;
}
