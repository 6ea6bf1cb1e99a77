/* Images: zeImageGetProperties, zeImageCreate, zeImageDestroy, image views (ZE_experimental_image_view and
 * ZE_experimental_image_view_planar), their memory and allocation properties (ZE_experimental_image_memory_properties,
 * ZE_extension_image_query_alloc_properties), image residency, and the check of image and sampler kernel arguments.
 * Storage and format layouts are described in zf_image.h; the choices made where the specification is open are in
 * docs/images.md. */
#include "core/zf_chain.h"
#include "core/zf_core.h"
#include "image/zf_image.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What a descriptor asks for, once read. */
typedef struct zf_image_request {
    const ze_image_desc_t *desc;
    const zf_format *format;
    uint32_t extent[4]; /* width (pixels), height, depth, layers */
    bool srgb;
    zf_external_request external;
    const ze_image_view_planar_exp_desc_t *planar; /* views only */
} zf_image_request;

/* ------------------------------------------------------------------------------------------------------------------
 * Stores */

void zf_image_store_retain(zf_image_store *store) {
    atomic_fetch_add(&store->refs, 1);
}

void zf_image_store_release(zf_image_store *store) {
    if (store == NULL || atomic_fetch_sub(&store->refs, 1) != 1)
        return;
    zf_memory_release(store->block);
    free(store);
}

static ze_result_t zf_image_store_create(zf_device *device, const zf_image_request *request, uint64_t size,
                                         zf_image_store **out) {
    zf_image_store *store = calloc(1, sizeof *store);
    if (store == NULL)
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory for an image");
    ze_result_t result = ZE_RESULT_SUCCESS;
    if (request->external.import_fd >= 0)
        result = zf_memory_backing_import(request->external.import_fd, (size_t)size, &store->block);
    else
        result = zf_memory_backing_create(device, (size_t)size, 0, &store->block);
    if (result != ZE_RESULT_SUCCESS) {
        free(store);
        return result;
    }
    atomic_init(&store->refs, 1);
    atomic_init(&store->released, false);
    store->base = zf_memory_backing_base(store->block);
    store->size = size;
    store->id = zf_memory_backing_id(store->block);
    store->export_types = request->external.export_types;
    *out = store;
    return ZE_RESULT_SUCCESS;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Descriptors */

static ze_result_t zf_image_read_extension(const ze_base_desc_t *ext, zf_image_request *request) {
    switch (ext->stype) {
    case ZE_STRUCTURE_TYPE_SRGB_EXT_DESC:
        request->srgb = ((const ze_srgb_ext_desc_t *)ext)->sRGB != 0;
        return ZE_RESULT_SUCCESS;
    case ZE_STRUCTURE_TYPE_EXTERNAL_MEMORY_IMPORT_FD:
    case ZE_STRUCTURE_TYPE_EXTERNAL_MEMORY_IMPORT_WIN32:
    case ZE_STRUCTURE_TYPE_EXTERNAL_MEMORY_EXPORT_DESC:
        return zf_external_read(ext, "desc", true, &request->external);
    case ZE_STRUCTURE_TYPE_MEMORY_COMPRESSION_HINTS_EXT_DESC:
        return zf_memory_check_compression_hints((const ze_memory_compression_hints_ext_desc_t *)ext, "desc");
    case ZE_STRUCTURE_TYPE_IMAGE_VIEW_PLANAR_EXP_DESC:
        request->planar = (const ze_image_view_planar_exp_desc_t *)ext;
        return ZE_RESULT_SUCCESS;
#if ZF_L0_AT_LEAST(5)
    case ZE_STRUCTURE_TYPE_IMAGE_VIEW_PLANAR_EXT_DESC: /* ZE_extension_image_view_planar: the same structure */
        _Static_assert(offsetof(ze_image_view_planar_ext_desc_t, planeIndex) ==
                           offsetof(ze_image_view_planar_exp_desc_t, planeIndex),
                       "the two planar view descriptors agree");
        request->planar = (const ze_image_view_planar_exp_desc_t *)ext;
        return ZE_RESULT_SUCCESS;
#endif
    default:
        zf_log(ZF_LOG_DEBUG, "%s: desc chain: ignoring extension structure 0x%x", zf_current_api_name(),
               (unsigned)ext->stype);
        return ZE_RESULT_SUCCESS;
    }
}

static ze_result_t zf_image_read_chain(const void *chain, zf_image_request *request) {
    ze_result_t result = zf_chain_check(chain, "desc");
    if (result != ZE_RESULT_SUCCESS)
        return result;
    zf_chain_foreach(ext, chain) {
        result = zf_image_read_extension(ext, request);
        if (result != ZE_RESULT_SUCCESS)
            return result;
    }
    return ZE_RESULT_SUCCESS;
}

static ze_result_t zf_check_dimension(uint64_t value, uint64_t limit, const char *name) {
    if (value == 0)
        return zf_fail(ZE_RESULT_ERROR_INVALID_SIZE, "desc->%s is 0", name);
    if (value > limit)
        return zf_fail(ZE_RESULT_ERROR_UNSUPPORTED_SIZE,
                       "desc->%s %llu exceeds the device's limit %llu "
                       "(zeDeviceGetImageProperties)",
                       name, (unsigned long long)value, (unsigned long long)limit);
    return ZE_RESULT_SUCCESS;
}

/* A buffer image's width is in bytes: a whole number of pixels, within maxImageBufferSize. */
static ze_result_t zf_buffer_extent(const ze_image_desc_t *d, const zf_format *f, const zf_scenario_images *limits,
                                    uint32_t extent[4]) {
    ze_result_t result = zf_check_dimension(d->width, limits->max_buffer_size_bytes, "width");
    uint32_t pixel = f->planes[0].block_bytes;
    if (result == ZE_RESULT_SUCCESS && d->width % pixel != 0)
        result = zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                         "desc->width %llu (bytes) is not a multiple of the %u-byte "
                         "pixel of layout %s",
                         (unsigned long long)d->width, pixel, f->name);
    if (result == ZE_RESULT_SUCCESS && d->width / pixel > UINT32_MAX)
        result = zf_fail(ZE_RESULT_ERROR_UNSUPPORTED_SIZE, "desc->width %llu holds more than 2^32 pixels",
                         (unsigned long long)d->width);
    extent[0] = (uint32_t)(d->width / (result == ZE_RESULT_SUCCESS ? pixel : 1));
    return result;
}

/* Width, height, depth and array layers of the image a descriptor describes, checked against the device's limits. */
static ze_result_t zf_image_extent(const ze_image_desc_t *d, const zf_format *f, const zf_scenario_images *limits,
                                   uint32_t extent[4]) {
    extent[0] = extent[1] = extent[2] = extent[3] = 1;
    uint64_t dims_limit = d->type == ZE_IMAGE_TYPE_3D                                         ? limits->max_dims_3d
                          : (d->type == ZE_IMAGE_TYPE_2D || d->type == ZE_IMAGE_TYPE_2DARRAY) ? limits->max_dims_2d
                                                                                              : limits->max_dims_1d;
    if (d->type == ZE_IMAGE_TYPE_BUFFER)
        return zf_buffer_extent(d, f, limits, extent);
    ze_result_t result = zf_check_dimension(d->width, dims_limit, "width");
    extent[0] = (uint32_t)d->width;
    bool has_height = d->type == ZE_IMAGE_TYPE_2D || d->type == ZE_IMAGE_TYPE_2DARRAY || d->type == ZE_IMAGE_TYPE_3D;
    if (result == ZE_RESULT_SUCCESS && has_height) {
        result = zf_check_dimension(d->height, dims_limit, "height");
        extent[1] = d->height;
    }
    if (result == ZE_RESULT_SUCCESS && d->type == ZE_IMAGE_TYPE_3D) {
        result = zf_check_dimension(d->depth, dims_limit, "depth");
        extent[2] = d->depth;
    }
    if (result == ZE_RESULT_SUCCESS && (d->type == ZE_IMAGE_TYPE_1DARRAY || d->type == ZE_IMAGE_TYPE_2DARRAY)) {
        result = zf_check_dimension(d->arraylevels, limits->max_array_slices, "arraylevels");
        extent[3] = d->arraylevels;
    }
    return result;
}

/* Subsampled planes and packed pixel pairs need whole blocks: the width a multiple of every plane's block width, the
 * height of its block height. */
static ze_result_t zf_check_blocks(const zf_format *f, const uint32_t extent[4]) {
    for (uint32_t p = 0; p < f->num_planes; p++) {
        const zf_format_plane *plane = &f->planes[p];
        bool width = extent[0] % plane->block_width != 0;
        if (width || extent[1] % plane->block_height != 0)
            return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                           "desc->%s %u is not a multiple of %u: plane %u of format %s stores blocks of %u x %u pixels",
                           width ? "width" : "height", width ? extent[0] : extent[1],
                           width ? plane->block_width : plane->block_height, p, f->name, plane->block_width,
                           plane->block_height);
    }
    return ZE_RESULT_SUCCESS;
}

/* Everything zeImageCreate and zeImageGetProperties check of a descriptor, in the order of the answer they give. */
static ze_result_t zf_image_read_desc(const zf_device *device, const ze_image_desc_t *desc, zf_image_request *request) {
    memset(request, 0, sizeof *request);
    request->desc = desc;
    request->external.import_fd = -1;
    if (desc->stype != ZE_STRUCTURE_TYPE_IMAGE_DESC)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "desc->stype is 0x%x, not ZE_STRUCTURE_TYPE_IMAGE_DESC",
                       (unsigned)desc->stype);
    if (desc->miplevels != 0)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "desc->miplevels is %u; the header says it must be 0",
                       desc->miplevels);
    ze_result_t result = zf_format_check(&desc->format, desc->type, &request->format);
    if (result == ZE_RESULT_SUCCESS)
        result = zf_image_extent(desc, request->format, &device->desc->images, request->extent);
    if (result == ZE_RESULT_SUCCESS)
        result = zf_check_blocks(request->format, request->extent);
    if (result == ZE_RESULT_SUCCESS)
        result = zf_image_read_chain(desc->pNext, request);
    return result;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Objects */

void zf_image_layout(zf_image *image) {
    uint64_t offset = 0;
    uint64_t slices = (uint64_t)image->depth * image->layers;
    image->num_planes = image->format->num_planes;
    for (uint32_t p = 0; p < image->num_planes; p++) {
        zf_image_plane *plane = &image->planes[p];
        plane->layout = image->format->planes[p];
        plane->width_blocks = image->width / plane->layout.block_width;
        plane->height_blocks = image->height / plane->layout.block_height;
        plane->row_pitch = (uint64_t)plane->width_blocks * plane->layout.block_bytes;
        plane->slice_pitch = plane->row_pitch * plane->height_blocks;
        plane->offset = offset;
        offset += plane->slice_pitch * slices;
    }
    image->size = offset;
}

static zf_image *zf_image_new(zf_context *context, zf_device *device, const zf_image_request *request) {
    zf_image *image = calloc(1, sizeof *image);
    if (image == NULL)
        return NULL;
    image->context = context;
    image->device = device;
    image->desc = *request->desc;
    image->desc.pNext = NULL;
    image->format = request->format;
    image->srgb = request->srgb;
    image->width = request->extent[0];
    image->height = request->extent[1];
    image->depth = request->extent[2];
    image->layers = request->extent[3];
    return image;
}

static ze_result_t zf_image_publish(zf_image *image, ze_image_handle_t *out) {
    if (!zf_object_register(&image->header, ZF_OBJ_ZE_IMAGE, &image->context->header)) {
        zf_image_store_release(image->store);
        free(image);
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory to register an image");
    }
    *out = (ze_image_handle_t)image;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t zf_check_device(const zf_context *context, const zf_device *device) {
    if (!zf_context_has_device(context, device))
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                       "hDevice is not a device of hContext (nor a sub-device of one)");
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zeImageCreate(ze_context_handle_t hContext, ze_device_handle_t hDevice, const ze_image_desc_t *desc,
                              ze_image_handle_t *phImage) {
    zf_context *context = zf_context_from(hContext);
    zf_device *device = zf_device_from(hDevice);
    zf_image_request request;
    ze_result_t result = zf_check_device(context, device);
    if (result == ZE_RESULT_SUCCESS)
        result = zf_image_read_desc(device, desc, &request);
    if (result == ZE_RESULT_SUCCESS && request.planar != NULL)
        zf_log(ZF_LOG_DEBUG,
               "zeImageCreate: desc chain: a planar view descriptor only matters to zeImageViewCreateExp");
    if (result != ZE_RESULT_SUCCESS)
        return result;
    zf_image *image = zf_image_new(context, device, &request);
    if (image == NULL)
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory for an image");
    zf_image_layout(image);
    result = zf_image_store_create(device, &request, image->size, &image->store);
    if (result != ZE_RESULT_SUCCESS) {
        free(image);
        return result;
    }
    return zf_image_publish(image, phImage);
}

static ze_result_t zf_image_store_on(zf_context *context, void *ptr, uint64_t size, zf_image_store **out) {
    zf_image_store *store = calloc(1, sizeof *store);
    if (store == NULL)
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory for an image");
    zf_allocation allocation;
    store->block = zf_memory_hold(context, ptr, (size_t)size, &allocation);
    if (store->block == NULL) {
        free(store);
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "the image's %llu bytes do not lie inside one allocation",
                       (unsigned long long)size);
    }
    atomic_init(&store->refs, 1);
    atomic_init(&store->released, false);
    store->base = ptr;
    store->size = size;
    store->id = allocation.id;
    *out = store;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zf_image_create_on_memory(ze_context_handle_t hContext, ze_device_handle_t hDevice,
                                      const ze_image_desc_t *desc, void *ptr, ze_image_handle_t *out) {
    zf_context *context = zf_context_from(hContext);
    zf_device *device = zf_device_from(hDevice);
    zf_image_request request;
    ze_result_t result = zf_check_device(context, device);
    if (result == ZE_RESULT_SUCCESS)
        result = zf_image_read_desc(device, desc, &request);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    zf_image *image = zf_image_new(context, device, &request);
    if (image == NULL)
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory for an image");
    zf_image_layout(image);
    result = zf_image_store_on(context, ptr, image->size, &image->store);
    if (result != ZE_RESULT_SUCCESS) {
        free(image);
        return result;
    }
    return zf_image_publish(image, out);
}

ze_result_t zfi_zeImageDestroy(ze_image_handle_t hImage) {
    zf_image *image = zf_image_from(hImage);
    zf_object_unregister(&image->header);
    /* Its views are disabled now; the memory stays while a view or a submitted command holds it. */
    if (!image->is_view)
        atomic_store(&image->store->released, true);
    zf_image_store_release(image->store);
    image->store = NULL;
    zf_object_retire(&image->header);
    return ZE_RESULT_SUCCESS;
}

static bool zf_format_is_integer(const ze_image_format_t *format, const zf_format *f) {
    return !f->media && (format->type == ZE_IMAGE_FORMAT_TYPE_UINT || format->type == ZE_IMAGE_FORMAT_TYPE_SINT);
}

/* Intel's driver answers zeImageGetProperties without reading the descriptor's format (docs/tolerances.md): the
 * default profile answers a media format of another type than 2D as for a 2D image of that format. */
static const ze_image_desc_t *zf_properties_desc(const ze_image_desc_t *desc, ze_image_desc_t *as_2d) {
    const zf_format *f = zf_format_of(desc->format.layout);
    if (f == NULL || !f->media || desc->type == ZE_IMAGE_TYPE_2D || zf_strict())
        return desc;
    zf_tolerate("media formats describe 2D images", "answered as for a 2D image of the format");
    *as_2d = *desc;
    as_2d->type = ZE_IMAGE_TYPE_2D;
    as_2d->height = desc->height > 0 ? desc->height : 1;
    as_2d->depth = 1;
    as_2d->arraylevels = 0;
    return as_2d;
}

ze_result_t zfi_zeImageGetProperties(ze_device_handle_t hDevice, const ze_image_desc_t *desc,
                                     ze_image_properties_t *pImageProperties) {
    zf_image_request request;
    ze_image_desc_t as_2d;
    desc = zf_properties_desc(desc, &as_2d);
    ze_result_t result = zf_image_read_desc(zf_device_from(hDevice), desc, &request);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    zf_out_check(pImageProperties, "pImageProperties", ZE_STRUCTURE_TYPE_IMAGE_PROPERTIES);
    /* Linear filtering interpolates, which integer formats cannot (as in OpenCL). */
    pImageProperties->samplerFilterFlags = ZE_IMAGE_SAMPLER_FILTER_FLAG_POINT;
    if (!zf_format_is_integer(&desc->format, request.format))
        pImageProperties->samplerFilterFlags |= ZE_IMAGE_SAMPLER_FILTER_FLAG_LINEAR;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zf_image_check_usable(const zf_image *image, const char *what) {
    if (atomic_load(&image->store->released))
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                       "%s is a view of an image that was destroyed: the view is disabled", what);
    return ZE_RESULT_SUCCESS;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Views */

/* A view of the whole image redescribes its format, not its size: the same type and extent, and a format whose
 * planes have the same blocks, so that every pixel keeps its bytes. */
static ze_result_t zf_view_check_whole(const zf_image *image, const zf_image_request *request) {
    const zf_format *f = request->format;
    if (request->desc->type != image->desc.type || request->extent[0] != image->width ||
        request->extent[1] != image->height || request->extent[2] != image->depth ||
        request->extent[3] != image->layers)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                       "a view must have the type and size of its image (%u x %u x %u, %u layers)", image->width,
                       image->height, image->depth, image->layers);
    bool same = f->num_planes == image->format->num_planes;
    for (uint32_t p = 0; same && p < f->num_planes; p++)
        same = memcmp(&f->planes[p], &image->format->planes[p], sizeof f->planes[p]) == 0;
    if (!same)
        return zf_fail(ZE_RESULT_ERROR_UNSUPPORTED_IMAGE_FORMAT,
                       "format %s stores pixels differently from the image's format %s", f->name, image->format->name);
    return ZE_RESULT_SUCCESS;
}

/* A planar view is a 2D image of one plane: a single-plane colour format whose pixel is the plane's block, no larger
 * than the plane. */
static ze_result_t zf_view_check_plane(const zf_image *image, const zf_image_request *request) {
    uint32_t index = request->planar->planeIndex;
    const zf_format *f = request->format;
    if (index >= image->num_planes)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "planeIndex %u: the image's format %s has %u plane(s)", index,
                       image->format->name, image->num_planes);
    const zf_image_plane *plane = &image->planes[index];
    if (request->desc->type != ZE_IMAGE_TYPE_2D || f->media)
        return zf_fail(ZE_RESULT_ERROR_UNSUPPORTED_IMAGE_FORMAT, "a planar view is a 2D image of a colour format");
    if (f->planes[0].block_bytes != plane->layout.block_bytes)
        return zf_fail(ZE_RESULT_ERROR_UNSUPPORTED_IMAGE_FORMAT,
                       "plane %u of %s has %u-byte samples; layout %s has %u-byte pixels", index, image->format->name,
                       plane->layout.block_bytes, f->name, f->planes[0].block_bytes);
    if (request->extent[0] > plane->width_blocks || request->extent[1] > plane->height_blocks)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "plane %u is %u x %u samples; the view asks for %u x %u",
                       index, plane->width_blocks, plane->height_blocks, request->extent[0], request->extent[1]);
    return ZE_RESULT_SUCCESS;
}

static void zf_view_layout_plane(zf_image *view, const zf_image *image, uint32_t index) {
    const zf_image_plane *source = &image->planes[index];
    view->num_planes = 1;
    view->planes[0] = *source;
    view->planes[0].layout = view->format->planes[0];
    view->planes[0].width_blocks = view->width;
    view->planes[0].height_blocks = view->height;
    view->size = source->slice_pitch;
}

static ze_result_t zf_view_check(const zf_image *image, const zf_context *context, const zf_device *device,
                                 const zf_image_request *request) {
    if (image->context != context)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "hImage belongs to another context");
    if (image->device != device && image->device != device->root)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "hDevice is not the image's device (nor a sub-device of it)");
    if (request->external.import_fd >= 0 || request->external.export_types != 0)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                       "a view shares its image's memory: it cannot import or export");
    ze_result_t result = zf_image_check_usable(image, "hImage");
    if (result == ZE_RESULT_SUCCESS)
        result = request->planar != NULL ? zf_view_check_plane(image, request) : zf_view_check_whole(image, request);
    return result;
}

ze_result_t zfi_zeImageViewCreateExp(ze_context_handle_t hContext, ze_device_handle_t hDevice,
                                     const ze_image_desc_t *desc, ze_image_handle_t hImage,
                                     ze_image_handle_t *phImageView) {
    zf_context *context = zf_context_from(hContext);
    zf_device *device = zf_device_from(hDevice);
    const zf_image *image = zf_image_from(hImage);
    zf_image_request request;
    ze_result_t result = zf_check_device(context, device);
    if (result == ZE_RESULT_SUCCESS)
        result = zf_image_read_desc(device, desc, &request);
    if (result == ZE_RESULT_SUCCESS)
        result = zf_view_check(image, context, device, &request);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    zf_image *view = zf_image_new(context, device, &request);
    if (view == NULL)
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory for an image view");
    view->is_view = true;
    if (request.planar != NULL) {
        zf_view_layout_plane(view, image, request.planar->planeIndex);
    } else {
        /* The same blocks in the same places: the image's layout, which may itself be a plane's. */
        view->num_planes = image->num_planes;
        memcpy(view->planes, image->planes, sizeof view->planes);
        view->size = image->size;
    }
    zf_image_store_retain(image->store);
    view->store = image->store;
    return zf_image_publish(view, phImageView);
}

#if ZF_L0_AT_LEAST(5)
/* ZE_extension_image_view: the experimental function made an extension, with the same rules. */
ze_result_t zfi_zeImageViewCreateExt(ze_context_handle_t hContext, ze_device_handle_t hDevice,
                                     const ze_image_desc_t *desc, ze_image_handle_t hImage,
                                     ze_image_handle_t *phImageView) {
    return zfi_zeImageViewCreateExp(hContext, hDevice, desc, hImage, phImageView);
}
#endif

/* ------------------------------------------------------------------------------------------------------------------
 * Queries and residency */

ze_result_t zfi_zeImageGetMemoryPropertiesExp(ze_image_handle_t hImage,
                                              ze_image_memory_properties_exp_t *pMemoryProperties) {
    const zf_image *image = zf_image_from(hImage);
    zf_out_check(pMemoryProperties, "pMemoryProperties", ZE_STRUCTURE_TYPE_IMAGE_MEMORY_EXP_PROPERTIES);
    pMemoryProperties->size = image->size;
    pMemoryProperties->rowPitch = image->planes[0].row_pitch;
    pMemoryProperties->slicePitch = image->planes[0].slice_pitch;
    return ZE_RESULT_SUCCESS;
}

/* ze_external_memory_export_fd_t chained to the allocation properties: a descriptor of the image's memory. */
static ze_result_t zf_image_export(ze_external_memory_export_fd_t *request, const void *source) {
    const zf_image *image = source;
    ze_external_memory_type_flags_t type = request->flags;
    if (type != ZE_EXTERNAL_MEMORY_TYPE_FLAG_OPAQUE_FD && type != ZE_EXTERNAL_MEMORY_TYPE_FLAG_DMA_BUF)
        return zf_fail(type & ~(ze_external_memory_type_flags_t)0xff ? ZE_RESULT_ERROR_INVALID_ENUMERATION
                                                                     : ZE_RESULT_ERROR_INVALID_ARGUMENT,
                       "ze_external_memory_export_fd_t.flags 0x%x must be OPAQUE_FD or DMA_BUF", (unsigned)type);
    if (!(image->store->export_types & type))
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                       "the image was not created exportable as that type (ze_external_memory_export_desc_t)");
    int fd = fcntl(zf_memory_backing_fd(image->store->block), F_DUPFD_CLOEXEC, 0);
    if (fd < 0)
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "cannot duplicate the image's descriptor: %s",
                       strerror(errno));
    request->fd = fd;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zeImageGetAllocPropertiesExt(ze_context_handle_t hContext, ze_image_handle_t hImage,
                                             ze_image_allocation_ext_properties_t *pImageAllocProperties) {
    const zf_image *image = zf_image_from(hImage);
    if (image->context != zf_context_from(hContext))
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "hImage belongs to another context");
    void *chain =
        zf_out_chain(pImageAllocProperties, "pImageAllocProperties", ZE_STRUCTURE_TYPE_IMAGE_ALLOCATION_EXT_PROPERTIES);
    /* Exports act: a chain too long to walk once is refused before any descriptor is made. */
    ze_result_t result = zf_chain_check(chain, "pImageAllocProperties");
    if (result == ZE_RESULT_SUCCESS)
        result = zf_chain_export_fds(chain, zf_image_export, image);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    pImageAllocProperties->id = image->store->id;
    return ZE_RESULT_SUCCESS;
}

/* Images are always resident: the calls check that the image may be given to the device. */
static ze_result_t zf_image_residency(ze_context_handle_t hContext, ze_device_handle_t hDevice,
                                      ze_image_handle_t hImage) {
    zf_context *context = zf_context_from(hContext);
    zf_device *device = zf_device_from(hDevice);
    const zf_image *image = zf_image_from(hImage);
    ze_result_t result = zf_check_device(context, device);
    if (result == ZE_RESULT_SUCCESS && image->context != context)
        result = zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "hImage belongs to another context");
    if (result == ZE_RESULT_SUCCESS && image->device != device && image->device != device->root)
        result = zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                         "the image was created for another device; only it and its sub-devices may use it");
    if (result == ZE_RESULT_SUCCESS)
        result = zf_image_check_usable(image, "hImage");
    return result;
}

ze_result_t zfi_zeContextMakeImageResident(ze_context_handle_t hContext, ze_device_handle_t hDevice,
                                           ze_image_handle_t hImage) {
    return zf_image_residency(hContext, hDevice, hImage);
}

ze_result_t zfi_zeContextEvictImage(ze_context_handle_t hContext, ze_device_handle_t hDevice,
                                    ze_image_handle_t hImage) {
    return zf_image_residency(hContext, hDevice, hImage);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Kernel arguments */

ze_result_t zf_image_check_kernel_arg(bool is_image, const void *value, const zf_context *context, uint32_t index) {
    void *handle = NULL;
    if (value != NULL)
        memcpy(&handle, value, sizeof handle);
    if (handle == NULL)
        return ZE_RESULT_SUCCESS; /* a null handle, as a null pointer for pointer arguments */
    const char *kind = is_image ? "an image" : "a sampler";
    if (!zf_handle_is_live(handle, is_image ? ZF_OBJ_ZE_IMAGE : ZF_OBJ_ZE_SAMPLER))
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "argument %u takes %s: %p is not a live %s handle", index,
                       kind, handle, is_image ? "image" : "sampler");
    const zf_context *owner = is_image ? zf_image_from(handle)->context : zf_sampler_from(handle)->context;
    if (owner != context)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "argument %u: %s of another context", index, kind);
    return is_image ? zf_image_check_usable(zf_image_from(handle), "the image argument") : ZE_RESULT_SUCCESS;
}
