/* Image instructions: reads (with and without a sampler), writes and queries of image arguments, for every colour
 * layout and type Level Zero images have (docs/images.md), with the swizzle and sRGB of the image and OpenCL's sampler
 * rules (normalized coordinates, nearest and linear filtering, the five addressing modes), and the sub-group block
 * reads and writes of cl_intel_subgroups. Texels are read and written in the image's memory, with every address
 * checked against the image's size. */
#include "spirv_num.h"
#include "spirv_run.h"

#include <inttypes.h>

enum { ZF_SW_R = 0, ZF_SW_G, ZF_SW_B, ZF_SW_A, ZF_SW_0, ZF_SW_1, ZF_SW_X };
enum { ZF_IT_1D = 0, ZF_IT_1DARRAY, ZF_IT_2D, ZF_IT_2DARRAY, ZF_IT_3D, ZF_IT_BUFFER };
enum { ZF_AM_NONE = 0, ZF_AM_REPEAT, ZF_AM_CLAMP, ZF_AM_BORDER, ZF_AM_MIRROR };

/* Components and their widths, lowest bits first, for layouts 0..13 (ze_image_format_layout_t). */
static const struct {
    uint8_t comps;
    uint8_t bits[4];
} zf_layouts[14] = {
    {1, {8}},
    {1, {16}},
    {1, {32}},
    {2, {8, 8}},
    {4, {8, 8, 8, 8}},
    {2, {16, 16}},
    {4, {16, 16, 16, 16}},
    {2, {32, 32}},
    {4, {32, 32, 32, 32}},
    {4, {10, 10, 10, 2}},
    {3, {11, 11, 10}},
    {3, {5, 6, 5}},
    {4, {5, 5, 5, 1}},
    {4, {4, 4, 4, 4}},
};

static uint32_t zf_pixel_bytes(uint32_t layout) {
    uint32_t bits = 0;
    for (int c = 0; c < zf_layouts[layout].comps; c++)
        bits += zf_layouts[layout].bits[c];
    return bits / 8;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Pixel codecs */

/* Components of `width` bits at bit `offset` of a pixel of `bytes` bytes, lowest bits first. Those of the 8, 16 and
 * 32-bit layouts are whole bytes (the fast path, a byte at a time); the packed layouts go bit by bit. */
static bool zf_bytes_whole(uint32_t bytes, uint32_t offset, uint32_t width) {
    return (offset | width) % 8 == 0 && (offset + width) / 8 <= bytes;
}

static uint64_t zf_bits_get(const uint8_t *p, uint32_t bytes, uint32_t offset, uint32_t width) {
    uint64_t v = 0;
    if (zf_bytes_whole(bytes, offset, width)) {
        for (uint32_t k = 0; k < width / 8; k++)
            v |= (uint64_t)p[offset / 8 + k] << (8 * k);
        return v;
    }
    for (uint32_t b = 0; b < width; b++) {
        uint32_t bit = offset + b;
        if (bit / 8 < bytes)
            v |= (uint64_t)((p[bit / 8] >> (bit % 8)) & 1u) << b;
    }
    return v;
}

static void zf_bits_put(uint8_t *p, uint32_t bytes, uint32_t offset, uint32_t width, uint64_t v) {
    if (zf_bytes_whole(bytes, offset, width)) {
        for (uint32_t k = 0; k < width / 8; k++)
            p[offset / 8 + k] = (uint8_t)(v >> (8 * k));
        return;
    }
    for (uint32_t b = 0; b < width; b++) {
        uint32_t bit = offset + b;
        if (bit / 8 >= bytes)
            continue;
        p[bit / 8] = (uint8_t)((p[bit / 8] & ~(1u << (bit % 8))) | ((uint32_t)((v >> b) & 1u) << (bit % 8)));
    }
}

/* Unsigned small floats of 11_11_10: 5-bit exponent, 6 (or 5) bit mantissa, no sign. */
static double zf_small_float(uint64_t v, uint32_t mantissa_bits) {
    uint32_t e = (uint32_t)(v >> mantissa_bits) & 31u, m = (uint32_t)v & ((1u << mantissa_bits) - 1);
    if (e == 31)
        return m ? NAN : INFINITY;
    if (e == 0)
        return ldexp(m, -14 - (int)mantissa_bits);
    return ldexp(1.0 + ldexp(m, -(int)mantissa_bits), (int)e - 15);
}

static uint64_t zf_to_small_float(double f, uint32_t mantissa_bits) {
    if (isnan(f))
        return (31u << mantissa_bits) | 1u;
    if (f <= 0)
        return 0;
    uint16_t h = zf_f2h((float)f); /* a half has the same exponent: drop mantissa bits, rounding to nearest */
    uint32_t shift = 10 - mantissa_bits;
    uint32_t r = (h + (1u << (shift - 1)) - 1 + ((h >> shift) & 1u)) >> shift;
    return r > (31u << mantissa_bits) ? (31u << mantissa_bits) : r;
}

static double zf_float_bits(uint32_t bits) {
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

static double zf_srgb_to_linear(double c) {
    return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
}

static double zf_linear_to_srgb(double c) {
    c = c < 0 ? 0 : c > 1 ? 1 : c;
    return c <= 0.0031308 ? c * 12.92 : 1.055 * pow(c, 1.0 / 2.4) - 0.055;
}

typedef struct zf_texel {
    double f[4];
    int64_t i[4];
} zf_texel;

static void zf_decode_pixel(const zf_ximage *img, const uint8_t *p, zf_texel *t) {
    uint32_t comps = zf_layouts[img->layout].comps, bytes = zf_pixel_bytes(img->layout), at = 0;
    double raw_f[4] = {0, 0, 0, 1};
    int64_t raw_i[4] = {0, 0, 0, 1};
    for (uint32_t c = 0; c < comps; c++) {
        uint32_t n = zf_layouts[img->layout].bits[c];
        uint64_t v = zf_bits_get(p, bytes, at, n);
        at += n;
        int64_t sv = n < 64 && (v >> (n - 1)) ? (int64_t)(v | ~((1ull << n) - 1)) : (int64_t)v;
        switch (img->channel_type) {
        case ZF_CH_UINT:
            raw_i[c] = (int64_t)v;
            raw_f[c] = (double)v;
            break;
        case ZF_CH_SINT:
            raw_i[c] = sv;
            raw_f[c] = (double)sv;
            break;
        case ZF_CH_UNORM:
            raw_f[c] = (double)v / (double)((1ull << n) - 1);
            break;
        case ZF_CH_SNORM:
            raw_f[c] = fmax((double)sv / (double)((1ull << (n - 1)) - 1), -1.0);
            break;
        default:
            raw_f[c] = n == 16   ? zf_h2f((uint16_t)v)
                       : n == 32 ? zf_float_bits((uint32_t)v)
                                 : zf_small_float(v, n == 11 ? 6 : 5);
            break;
        }
        if (img->channel_type == ZF_CH_UNORM || img->channel_type == ZF_CH_SNORM || img->channel_type == ZF_CH_FLOAT)
            raw_i[c] = (int64_t)raw_f[c];
    }
    if (img->srgb && img->channel_type == ZF_CH_UNORM)
        for (uint32_t c = 0; c < 3 && c < comps; c++)
            raw_f[c] = zf_srgb_to_linear(raw_f[c]);
    for (int k = 0; k < 4; k++) {
        uint8_t s = img->swizzle[k];
        t->f[k] = s <= ZF_SW_A ? raw_f[s] : s == ZF_SW_1 ? 1.0 : 0.0;
        t->i[k] = s <= ZF_SW_A ? raw_i[s] : s == ZF_SW_1 ? 1 : 0;
    }
}

static uint64_t zf_encode_component(const zf_ximage *img, uint32_t n, double f, int64_t i) {
    uint64_t mask = n == 64 ? UINT64_MAX : (1ull << n) - 1;
    switch (img->channel_type) {
    case ZF_CH_UINT:
        return i < 0 ? 0 : (uint64_t)i > mask ? mask : (uint64_t)i;
    case ZF_CH_SINT: {
        int64_t hi = (int64_t)(mask >> 1), lo = -hi - 1;
        return (uint64_t)(i < lo ? lo : i > hi ? hi : i) & mask;
    }
    case ZF_CH_UNORM:
        f = isnan(f) ? 0 : f < 0 ? 0 : f > 1 ? 1 : f;
        return (uint64_t)nearbyint(f * (double)mask);
    case ZF_CH_SNORM: {
        double max = (double)(mask >> 1);
        f = isnan(f) ? 0 : f < -1 ? -1 : f > 1 ? 1 : f;
        return (uint64_t)(int64_t)nearbyint(f * max) & mask;
    }
    default:
        if (n == 16)
            return zf_f2h((float)f);
        if (n == 32) {
            float v = (float)f;
            uint32_t u;
            memcpy(&u, &v, 4);
            return u;
        }
        return zf_to_small_float(f, n == 11 ? 6 : 5);
    }
}

/* The layout component each texel channel goes to: the inverse of the swizzle where it names a component. */
static void zf_encode_pixel(const zf_ximage *img, const zf_texel *t, uint8_t *p) {
    uint32_t comps = zf_layouts[img->layout].comps, bytes = zf_pixel_bytes(img->layout), at = 0;
    uint8_t pixel[16] = {0};
    for (uint32_t c = 0; c < comps; c++) {
        double f = 0;
        int64_t i = 0;
        for (int k = 0; k < 4; k++) {
            if (img->swizzle[k] == c) {
                f = t->f[k];
                i = t->i[k];
            }
        }
        if (img->srgb && img->channel_type == ZF_CH_UNORM && c < 3)
            f = zf_linear_to_srgb(f);
        uint32_t n = zf_layouts[img->layout].bits[c];
        zf_bits_put(pixel, bytes, at, n, zf_encode_component(img, n, f, i));
        at += n;
    }
    memcpy(p, pixel, bytes);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Addressing */

/* The dimensions of an image: extent per coordinate, and which coordinate is the layer. */
static uint32_t zf_image_dims(const zf_ximage *img, uint32_t extent[3], int *layer) {
    *layer = -1;
    switch (img->type) {
    case ZF_IT_1DARRAY:
        extent[0] = img->width;
        extent[1] = img->layers;
        *layer = 1;
        return 2;
    case ZF_IT_2D:
        extent[0] = img->width;
        extent[1] = img->height;
        return 2;
    case ZF_IT_2DARRAY:
        extent[0] = img->width;
        extent[1] = img->height;
        extent[2] = img->layers;
        *layer = 2;
        return 3;
    case ZF_IT_3D:
        extent[0] = img->width;
        extent[1] = img->height;
        extent[2] = img->depth;
        return 3;
    default:
        extent[0] = img->width;
        return 1;
    }
}

/* The pixel at integer coordinates, or NULL outside the image (or its memory). */
static const uint8_t *zf_pixel_at(const zf_ximage *img, const int64_t xyz[3]) {
    uint32_t extent[3] = {1, 1, 1};
    int layer;
    uint32_t dims = zf_image_dims(img, extent, &layer);
    for (uint32_t d = 0; d < dims; d++)
        if (xyz[d] < 0 || xyz[d] >= extent[d])
            return NULL;
    uint64_t offset = (uint64_t)xyz[0] * zf_pixel_bytes(img->layout);
    if (dims > 1)
        offset += (uint64_t)xyz[1] * (img->type == ZF_IT_1DARRAY ? img->slice_pitch : img->row_pitch);
    if (dims > 2)
        offset += (uint64_t)xyz[2] * img->slice_pitch;
    if (offset + zf_pixel_bytes(img->layout) > img->size)
        return NULL;
    return img->base + offset;
}

static bool zf_has_alpha(const zf_ximage *img) {
    for (int k = 0; k < 4; k++)
        if (img->swizzle[k] == ZF_SW_A)
            return true;
    return zf_layouts[img->layout].comps == 4;
}

static void zf_fetch(const zf_ximage *img, const int64_t xyz[3], zf_texel *t) {
    const uint8_t *p = zf_pixel_at(img, xyz);
    if (p != NULL) {
        zf_decode_pixel(img, p, t);
        return;
    }
    memset(t, 0, sizeof *t); /* border colour */
    if (!zf_has_alpha(img)) {
        t->f[3] = 1;
        t->i[3] = 1;
    }
}

/* Applies an addressing mode to an integer coordinate of a dimension of n pixels. */
static int64_t zf_address(uint32_t mode, int64_t i, uint32_t n) {
    if (mode == ZF_AM_CLAMP)
        return i < 0 ? 0 : i >= n ? (int64_t)n - 1 : i;
    if (mode == ZF_AM_REPEAT)
        return ((i % (int64_t)n) + n) % n;
    return i; /* none, border: out-of-range coordinates read the border */
}

/* A float coordinate in pixels for dimension d, after normalization and the repeat/mirror modes. */
static double zf_unnormalize(const zf_xsampler *s, double c, uint32_t n) {
    if (!s->normalized)
        return c;
    if (s->address_mode == ZF_AM_REPEAT)
        return (c - floor(c)) * n;
    if (s->address_mode == ZF_AM_MIRROR) {
        double m = fabs(c - 2.0 * rint(0.5 * c));
        return fmin(m * n, (double)n - 0.5);
    }
    return c * n;
}

static void zf_sample(const zf_ximage *img, const zf_xsampler *s, const double coord[3], bool float_coords,
                      zf_texel *out) {
    uint32_t extent[3] = {1, 1, 1};
    int layer;
    uint32_t dims = zf_image_dims(img, extent, &layer);
    double u[3] = {0, 0, 0};
    int64_t lay = 0;
    for (uint32_t d = 0; d < dims; d++) {
        if ((int)d == layer) { /* array layers: rounded and clamped, never filtered */
            double r = rint(coord[d]);
            lay = r < 0 ? 0 : r >= extent[d] ? (int64_t)extent[d] - 1 : (int64_t)r;
            continue;
        }
        u[d] = float_coords ? zf_unnormalize(s, coord[d], extent[d]) : coord[d];
    }
    bool linear = float_coords && s->filter_mode == 1;
    uint32_t filtered = layer >= 0 ? dims - 1 : dims;
    int64_t base[3] = {0, 0, 0};
    double frac[3] = {0, 0, 0};
    for (uint32_t d = 0; d < filtered; d++) {
        double v = linear ? u[d] - 0.5 : u[d];
        base[d] = (int64_t)floor(v);
        frac[d] = v - floor(v);
    }
    memset(out, 0, sizeof *out);
    uint32_t corners = linear ? 1u << filtered : 1u;
    for (uint32_t k = 0; k < corners; k++) {
        int64_t xyz[3] = {0, 0, 0};
        double weight = 1;
        for (uint32_t d = 0; d < filtered; d++) {
            uint32_t bit = (k >> d) & 1u;
            xyz[d] = zf_address(s->address_mode, base[d] + bit, extent[d]);
            weight *= linear ? (bit ? frac[d] : 1 - frac[d]) : 1;
        }
        if (layer >= 0)
            xyz[layer] = lay;
        zf_texel t;
        zf_fetch(img, xyz, &t);
        for (int c = 0; c < 4; c++) {
            out->f[c] += weight * t.f[c];
            out->i[c] = linear ? out->i[c] : t.i[c];
        }
    }
}

/* ------------------------------------------------------------------------------------------------------------------
 * The handler */

/* The image a handle names for this thread (the handle of the previous lookup is cached: lanes share images). */
static const zf_ximage *zf_image_get(zf_x *x, uint32_t lane, uint64_t handle, zf_ximage *cache, uint64_t *cached) {
    if (handle == *cached && handle != 0)
        return cache;
    const zf_exec_env *env = x->ctx->env;
    if (handle == 0 || env->image == NULL || !env->image(env->user, handle, cache) || cache->layout > 13) {
        zf_fault(x, lane, "image argument 0x%" PRIx64 " is not an image the kernel can access", handle);
        *cached = 0;
        return NULL;
    }
    *cached = handle;
    return cache;
}

static bool zf_sampler_get(const zf_exec_env *env, uint64_t handle, zf_xsampler *out) {
    if (handle & ZF_INLINE_SAMPLER) {
        out->address_mode = handle & 0xFFu;
        out->filter_mode = (handle >> 8) & 0xFFu;
        out->normalized = (handle >> 16) & 1u;
        return true;
    }
    return handle != 0 && env->sampler != NULL && env->sampler(env->user, handle, out);
}

static void zf_coords(const zf_dinst *in, const uint8_t *coord, uint32_t lane, double out[3], int64_t iout[3]) {
    uint32_t t = in->asize & 0xFFu, n = (in->asize >> 8) & 0xFFu, slot = zf_slot(n);
    for (uint32_t d = 0; d < 3; d++) {
        out[d] = 0;
        iout[d] = 0;
        if (d >= n)
            continue;
        if (zf_etype_is_float(t)) {
            out[d] = zf_get_f(coord, t, (size_t)lane * slot + d);
            iout[d] = (int64_t)floor(out[d]);
        } else {
            iout[d] = zf_get_s(coord, t, (size_t)lane * slot + d);
            out[d] = (double)iout[d];
        }
    }
}

static void zf_put_texel(const zf_dinst *in, uint8_t *d, uint32_t lane, const zf_texel *t) {
    for (int c = 0; c < 4; c++) {
        if (in->type == ZF_T_I32)
            zf_put_u(d, in->type, (size_t)lane * 4 + c, (uint64_t)t->i[c]);
        else
            zf_put_f(d, in->type, (size_t)lane * 4 + c, t->f[c]);
    }
}

static void zf_get_texel(const zf_dinst *in, const uint8_t *s, uint32_t lane, zf_texel *t) {
    for (int c = 0; c < 4; c++) {
        if (in->type == ZF_T_I32) {
            t->i[c] = zf_get_s(s, in->type, (size_t)lane * 4 + c);
            t->f[c] = (double)t->i[c];
        } else {
            t->f[c] = zf_get_f(s, in->type, (size_t)lane * 4 + c);
            t->i[c] = (int64_t)zf_float_to_int(t->f[c], 64, true, ZF_ROUND_RTZ); /* NaN 0, saturated */
        }
    }
}

/* Four components read as B, G, R, A: what an OpenCL CL_BGRA image is (cl_image.c). */
static bool zf_is_bgra(const zf_ximage *img) {
    const uint8_t *s = img->swizzle;
    return zf_layouts[img->layout].comps == 4 && s[0] == ZF_SW_B && s[1] == ZF_SW_G && s[2] == ZF_SW_R &&
           s[3] == ZF_SW_A;
}

static uint64_t zf_query(const zf_ximage *img, uint32_t kind, uint32_t c) {
    static const uint8_t orders[5] = {0, 0, 2, 4, 5}; /* ImageChannelOrder R, RG, RGB, RGBA by components */
    static const uint8_t types[5][33] = {
        [ZF_CH_UINT] = {[8] = 10, [16] = 11, [32] = 12},
        [ZF_CH_SINT] = {[8] = 7, [16] = 8, [32] = 9},
        [ZF_CH_UNORM] = {[4] = 2, [5] = 5, [8] = 2, [10] = 6, [16] = 3},
        [ZF_CH_SNORM] = {[8] = 0, [16] = 1},
        [ZF_CH_FLOAT] = {[11] = 14, [16] = 13, [32] = 14},
    };
    if (kind == ZF_IMG_QUERY_ORDER && zf_is_bgra(img))
        return img->srgb ? 18 : 6; /* sBGRA, BGRA */
    if (kind == ZF_IMG_QUERY_ORDER)
        return img->srgb ? 17 : orders[zf_layouts[img->layout].comps];
    if (kind == ZF_IMG_QUERY_FORMAT)
        return img->layout == 11 ? 4 : types[img->channel_type % 5][zf_layouts[img->layout].bits[0] % 33];
    uint32_t extent[3] = {1, 1, 1};
    int layer;
    zf_image_dims(img, extent, &layer);
    return c < 3 ? extent[c] : 0;
}

void zf_h_image(zf_x *x, const zf_dinst *in) {
    const uint8_t *a = zf_reg(x, in->a);
    const uint8_t *coord = in->aux <= ZF_IMG_WRITE ? zf_reg(x, in->b) : NULL;
    const uint8_t *texel = in->aux == ZF_IMG_WRITE ? zf_reg(x, in->c) : NULL;
    uint8_t *d = in->aux != ZF_IMG_WRITE ? zf_reg(x, in->dst) : NULL;
    size_t stride = in->aux == ZF_IMG_SAMPLE ? 16 : 8;
    zf_ximage cache;
    uint64_t cached = 0;
    ZF_LANES(x, {
        uint64_t handle;
        memcpy(&handle, a + l * stride, 8);
        const zf_ximage *img = zf_image_get(x, l, handle, &cache, &cached);
        if (img == NULL)
            continue;
        double fc[3];
        int64_t ic[3];
        zf_texel t;
        if (coord != NULL)
            zf_coords(in, coord, l, fc, ic);
        switch (in->aux) {
        case ZF_IMG_READ:
            zf_fetch(img, ic, &t);
            if (zf_pixel_at(img, ic) == NULL)
                memset(&t, 0, sizeof t); /* outside the image: undefined in OpenCL, zero here */
            zf_put_texel(in, d, l, &t);
            break;
        case ZF_IMG_SAMPLE: {
            zf_xsampler s;
            uint64_t sampler;
            memcpy(&sampler, a + l * stride + 8, 8);
            if (!zf_sampler_get(x->ctx->env, sampler, &s)) {
                zf_fault(x, l, "sampler argument 0x%" PRIx64 " is not a sampler", sampler);
                break;
            }
            zf_sample(img, &s, fc, zf_etype_is_float(in->asize & 0xFFu), &t);
            zf_put_texel(in, d, l, &t);
            break;
        }
        case ZF_IMG_WRITE: {
            uint8_t *p = (uint8_t *)zf_pixel_at(img, ic);
            zf_get_texel(in, texel, l, &t);
            if (p != NULL) /* writes outside the image are dropped, as OpenCL leaves them undefined */
                zf_encode_pixel(img, &t, p);
            break;
        }
        default:
            for (uint32_t c = 0; c < in->comps; c++)
                zf_put_u(d, in->type, (size_t)l * zf_slot(in->comps) + c, zf_query(img, in->aux, c));
            break;
        }
    });
}

/* The texel channels of a plain image: its component of the same place, or the constant the codec gives (a missing
 * component reads as 0, or 1 for alpha); false for a swizzle that moves components (BGRA, say). */
static bool zf_plain_channels(const zf_ximage *img, uint8_t channel[4]) {
    uint32_t comps = zf_layouts[img->layout].comps;
    for (uint32_t k = 0; k < 4; k++) {
        uint8_t s = img->swizzle[k];
        if (s <= ZF_SW_A && s != k)
            return false;
        if (s <= ZF_SW_A)
            channel[k] = k < comps ? ZF_PLAIN_COMP : k == 3 ? ZF_PLAIN_ONE : ZF_PLAIN_ZERO;
        else
            channel[k] = s == ZF_SW_1 ? ZF_PLAIN_ONE : ZF_PLAIN_ZERO;
    }
    return true;
}

/* A sampled read takes the plain path with nearest filtering (or integer coordinates) and the addressing modes that
 * keep coordinates as they are or clamp them; the array layer's rounding, repeat and mirror take the handler. */
static bool zf_plain_sampler(const zf_exec_env *env, const zf_dinst *in, const zf_ximage *img, uint64_t sampler,
                             zf_image_plain *out) {
    zf_xsampler s;
    uint32_t extent[3];
    int layer;
    zf_image_dims(img, extent, &layer);
    bool float_coords = zf_etype_is_float(in->asize & 0xFFu);
    if (layer >= 0 || !zf_sampler_get(env, sampler, &s) || (float_coords && s.filter_mode == 1))
        return false;
    if (s.address_mode == ZF_AM_REPEAT || s.address_mode == ZF_AM_MIRROR)
        return false;
    out->clamp = s.address_mode == ZF_AM_CLAMP;
    out->normalized = float_coords && s.normalized;
    out->border_alpha = !zf_has_alpha(img);
    return true;
}

bool zf_image_plain_of(const zf_exec_env *env, const zf_dinst *in, uint64_t image, uint64_t sampler,
                       zf_image_plain *out) {
    zf_ximage img;
    *out = (zf_image_plain){0};
    if (in->aux != ZF_IMG_READ && in->aux != ZF_IMG_SAMPLE && in->aux != ZF_IMG_WRITE)
        return false;
    if (image == 0 || env->image == NULL || !env->image(env->user, image, &img) || img.layout > 8 || img.srgb ||
        !zf_plain_channels(&img, out->channel))
        return false;
    if (in->aux == ZF_IMG_SAMPLE && !zf_plain_sampler(env, in, &img, sampler, out))
        return false;
    uint32_t extent[3] = {1, 1, 1};
    int layer;
    uint32_t dims = zf_image_dims(&img, extent, &layer);
    const uint64_t pitch[3] = {zf_pixel_bytes(img.layout), img.type == ZF_IT_1DARRAY ? img.slice_pitch : img.row_pitch,
                               img.slice_pitch};
    for (uint32_t d = 0; d < 3; d++) {
        out->kept[d] = d < dims;
        out->extent[d] = d < dims ? extent[d] : 1;
        out->pitch[d] = d < dims ? pitch[d] : 0;
    }
    out->base = img.base;
    out->size = img.size;
    out->format = ZF_PLAIN_FORMAT(zf_layouts[img.layout].comps, zf_layouts[img.layout].bits[0] / 8u, img.channel_type);
    return true;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Sub-group image block reads and writes (cl_intel_subgroups): the image's bytes as they are stored, no format
 * conversion, addressed by a byte coordinate along the row and a row number. */

/* One element of `e` bytes at byte x of row y: bytes outside the image read as 0 and are not written, as texels
 * outside the image are for other accesses. */
static void zf_block_element(const zf_ximage *img, int64_t x, int64_t y, uint8_t *value, uint32_t e, bool write) {
    uint64_t row_bytes = (uint64_t)img->width * zf_pixel_bytes(img->layout);
    bool row_inside = y >= 0 && y < img->height;
    uint64_t row = row_inside ? (uint64_t)y * img->row_pitch : 0;
    if (row_inside && x >= 0 && (uint64_t)x + e <= row_bytes && row + (uint64_t)x + e <= img->size) {
        memcpy(write ? img->base + row + x : value, write ? value : img->base + row + x, e);
        return;
    }
    for (uint32_t b = 0; b < e; b++) {
        int64_t at = x + b;
        bool inside = row_inside && at >= 0 && (uint64_t)at < row_bytes && row + (uint64_t)at < img->size;
        if (write && inside)
            img->base[row + (uint64_t)at] = value[b];
        else if (!write)
            value[b] = inside ? img->base[row + (uint64_t)at] : 0;
    }
}

/* Lane i of a sub-group reads or writes, for component k, the element at byte x + i * e of row y + k: the block is
 * S elements wide (S the sub-group size) and one row per component high. */
void zf_h_imgblock(zf_x *x, const zf_dinst *in) {
    const zf_ctx *ctx = x->ctx;
    bool write = in->aux == ZF_SGB_WRITE;
    uint32_t e = zf_etype_size(in->type), n = in->comps;
    size_t stride = (size_t)e * zf_slot(n);
    const uint8_t *a = zf_reg(x, in->a), *coord = zf_reg(x, in->b);
    uint8_t *values = zf_reg(x, write ? in->c : in->dst);
    zf_ximage cache;
    uint64_t cached = 0;
    ZF_LANES(x, {
        uint64_t handle;
        int32_t xy[2];
        memcpy(&handle, a + (size_t)l * 8, 8);
        memcpy(xy, coord + (size_t)l * 8, 8);
        const zf_ximage *img = zf_image_get(x, l, handle, &cache, &cached);
        if (img == NULL)
            continue;
        if (img->type != ZF_IT_2D) {
            zf_fault(x, l, "image argument 0x%" PRIx64 " of a sub-group image block access is not a 2D image", handle);
            continue;
        }
        int64_t bx = (int64_t)xy[0] + (int64_t)((l % ctx->group_items) % ctx->subgroup_size) * e;
        for (uint32_t k = 0; k < n; k++)
            zf_block_element(img, bx, (int64_t)xy[1] + k, values + (size_t)l * stride + (size_t)k * e, e, write);
    });
}

uint16_t zf_spirv_float_to_half(float f) {
    return zf_f2h_mode(f, ZF_ROUND_DEFAULT);
}
