/* Images and samplers over Level Zero images and samplers (docs/images.md): 1D, 2D and 3D images and 1D and 2D
 * arrays in the R, RG and RGBA channel orders of every normalized, integer and floating-point channel type; their
 * commands are the Level Zero image copies (to and from memory with pitches, between images), a fill written as
 * texels from host memory, and map and unmap through driver memory (or the application's, for CL_MEM_USE_HOST_PTR).
 * A 1D buffer image is a Level Zero buffer image over the bytes of its buffer (zf_image_create_on_memory), so the
 * image and the buffer see the same bytes; 2D images from buffers are not supported (docs/opencl.md). */
#include "cl/zf_cl.h"
#include "image/zf_image.h"
#include "spirv/spirv_exec.h"
#include "zfcl_generated.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const cl_channel_order zfcl_orders[] = {CL_R, CL_RG, CL_RGBA};
static const cl_channel_type zfcl_types[] = {CL_UNORM_INT8,     CL_UNORM_INT16,    CL_SNORM_INT8,   CL_SNORM_INT16,
                                             CL_SIGNED_INT8,    CL_SIGNED_INT16,   CL_SIGNED_INT32, CL_UNSIGNED_INT8,
                                             CL_UNSIGNED_INT16, CL_UNSIGNED_INT32, CL_HALF_FLOAT,   CL_FLOAT};
#define ZFCL_NUM_ORDERS (sizeof zfcl_orders / sizeof zfcl_orders[0])
#define ZFCL_NUM_TYPES  (sizeof zfcl_types / sizeof zfcl_types[0])
#define ZFCL_MAX_PIXEL  16 /* bytes of the largest pixel (CL_RGBA, CL_FLOAT) */

bool zfcl_image_valid(cl_mem m) {
    return zfcl_mem_valid(m) && m->image != NULL;
}

static cl_uint zfcl_channels(cl_channel_order order) {
    return order == CL_R ? 1 : order == CL_RG ? 2 : order == CL_RGBA ? 4 : 0;
}

/* Bytes per channel and the Level Zero type; 0 bytes for a type the devices do not offer. */
static size_t zfcl_channel_type(cl_channel_type type, ze_image_format_type_t *ze) {
    switch (type) {
    case CL_UNORM_INT8:
    case CL_UNORM_INT16:
        *ze = ZE_IMAGE_FORMAT_TYPE_UNORM;
        return type == CL_UNORM_INT8 ? 1 : 2;
    case CL_SNORM_INT8:
    case CL_SNORM_INT16:
        *ze = ZE_IMAGE_FORMAT_TYPE_SNORM;
        return type == CL_SNORM_INT8 ? 1 : 2;
    case CL_SIGNED_INT8:
    case CL_SIGNED_INT16:
    case CL_SIGNED_INT32:
        *ze = ZE_IMAGE_FORMAT_TYPE_SINT;
        return type == CL_SIGNED_INT8 ? 1 : type == CL_SIGNED_INT16 ? 2 : 4;
    case CL_UNSIGNED_INT8:
    case CL_UNSIGNED_INT16:
    case CL_UNSIGNED_INT32:
        *ze = ZE_IMAGE_FORMAT_TYPE_UINT;
        return type == CL_UNSIGNED_INT8 ? 1 : type == CL_UNSIGNED_INT16 ? 2 : 4;
    case CL_HALF_FLOAT:
    case CL_FLOAT:
        *ze = ZE_IMAGE_FORMAT_TYPE_FLOAT;
        return type == CL_HALF_FLOAT ? 2 : 4;
    default:
        return 0;
    }
}

/* The Level Zero format of an OpenCL one and its bytes per pixel; false when not supported. */
static bool zfcl_ze_format(const cl_image_format *f, ze_image_format_t *out, size_t *pixel) {
    static const ze_image_format_layout_t layouts[3][3] = {
        {ZE_IMAGE_FORMAT_LAYOUT_8, ZE_IMAGE_FORMAT_LAYOUT_8_8, ZE_IMAGE_FORMAT_LAYOUT_8_8_8_8},
        {ZE_IMAGE_FORMAT_LAYOUT_16, ZE_IMAGE_FORMAT_LAYOUT_16_16, ZE_IMAGE_FORMAT_LAYOUT_16_16_16_16},
        {ZE_IMAGE_FORMAT_LAYOUT_32, ZE_IMAGE_FORMAT_LAYOUT_32_32, ZE_IMAGE_FORMAT_LAYOUT_32_32_32_32}};
    ze_image_format_type_t type;
    cl_uint channels = zfcl_channels(f->image_channel_order);
    size_t bytes = zfcl_channel_type(f->image_channel_data_type, &type);
    if (channels == 0 || bytes == 0)
        return false;
    size_t b = bytes == 1 ? 0 : bytes == 2 ? 1 : 2, c = channels == 1 ? 0 : channels == 2 ? 1 : 2;
    *out = (ze_image_format_t){layouts[b][c],
                               type,
                               ZE_IMAGE_FORMAT_SWIZZLE_R,
                               channels > 1 ? ZE_IMAGE_FORMAT_SWIZZLE_G : ZE_IMAGE_FORMAT_SWIZZLE_0,
                               channels > 2 ? ZE_IMAGE_FORMAT_SWIZZLE_B : ZE_IMAGE_FORMAT_SWIZZLE_0,
                               channels > 2 ? ZE_IMAGE_FORMAT_SWIZZLE_A : ZE_IMAGE_FORMAT_SWIZZLE_1};
    *pixel = bytes * channels;
    return true;
}

static bool zfcl_known_format(const cl_image_format *f) {
    return f->image_channel_order >= CL_R && f->image_channel_order <= CL_ABGR &&
           f->image_channel_data_type >= CL_SNORM_INT8 && f->image_channel_data_type <= CL_UNORM_INT_101010_2;
}

static bool zfcl_image_type(cl_mem_object_type type) {
    return type == CL_MEM_OBJECT_IMAGE1D || type == CL_MEM_OBJECT_IMAGE1D_ARRAY || type == CL_MEM_OBJECT_IMAGE2D ||
           type == CL_MEM_OBJECT_IMAGE2D_ARRAY || type == CL_MEM_OBJECT_IMAGE3D || type == CL_MEM_OBJECT_IMAGE1D_BUFFER;
}

/* The types with one row of pixels (no height). */
static bool zfcl_one_row(cl_mem_object_type type) {
    return type == CL_MEM_OBJECT_IMAGE1D || type == CL_MEM_OBJECT_IMAGE1D_BUFFER;
}

size_t zfcl_image_max_buffer(cl_device_id d) {
    ze_device_image_properties_t p = {.stype = ZE_STRUCTURE_TYPE_DEVICE_IMAGE_PROPERTIES};
    zfi_zeDeviceGetImageProperties(d->ze, &p);
    return (size_t)(p.maxImageBufferSize / ZFCL_MAX_PIXEL);
}

cl_int CL_API_CALL zfcl_clGetSupportedImageFormats(cl_context c, cl_mem_flags flags, cl_mem_object_type type,
                                                   cl_uint num, cl_image_format *formats, cl_uint *num_ret) {
    if (!zfcl_live(c, ZFCL_CONTEXT))
        return zfcl_fail(CL_INVALID_CONTEXT, "context is no live context");
    cl_int err = zfcl_mem_flags_check(flags);
    if (err != CL_SUCCESS)
        return err;
    if (!zfcl_image_type(type) || (num == 0 && formats != NULL))
        return zfcl_fail(CL_INVALID_VALUE, "image_type is no image type, or num_entries is 0 with image_formats");
    bool none = (flags & CL_MEM_KERNEL_READ_AND_WRITE) != 0; /* no images read and written by one kernel */
    cl_uint count = none ? 0 : (cl_uint)(ZFCL_NUM_ORDERS * ZFCL_NUM_TYPES);
    for (cl_uint i = 0; formats != NULL && i < count && i < num; i++)
        formats[i] = (cl_image_format){zfcl_orders[i / ZFCL_NUM_TYPES], zfcl_types[i % ZFCL_NUM_TYPES]};
    if (num_ret != NULL)
        *num_ret = count;
    return CL_SUCCESS;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Creation */

/* The descriptor with its unused sizes set to 1 (height of 1D images, depth of 2D ones, array size of non-arrays). */
static cl_int zfcl_image_desc(const cl_image_desc *in, cl_image_desc *out) {
    if (in == NULL || !zfcl_image_type(in->image_type))
        return zfcl_fail(CL_INVALID_IMAGE_DESCRIPTOR, "image_desc is NULL or its image_type is no image type");
    if (in->num_mip_levels != 0 || in->num_samples != 0)
        return zfcl_fail(CL_INVALID_IMAGE_DESCRIPTOR, "num_mip_levels and num_samples must be 0");
    if (in->image_type == CL_MEM_OBJECT_IMAGE1D_BUFFER ? !zfcl_buffer_valid(in->buffer) : in->buffer != NULL)
        return zfcl_fail(CL_INVALID_IMAGE_DESCRIPTOR, "buffer must be a live buffer for a 1D buffer image and NULL "
                                                      "for other types (2D images from buffers are not supported)");
    *out = *in;
    cl_mem_object_type t = in->image_type;
    bool has_h = t == CL_MEM_OBJECT_IMAGE2D || t == CL_MEM_OBJECT_IMAGE2D_ARRAY || t == CL_MEM_OBJECT_IMAGE3D;
    bool array = t == CL_MEM_OBJECT_IMAGE1D_ARRAY || t == CL_MEM_OBJECT_IMAGE2D_ARRAY;
    out->image_height = has_h ? in->image_height : 1;
    out->image_depth = t == CL_MEM_OBJECT_IMAGE3D ? in->image_depth : 1;
    out->image_array_size = array ? in->image_array_size : 1;
    if (out->image_width == 0 || out->image_height == 0 || out->image_depth == 0 || out->image_array_size == 0)
        return zfcl_fail(CL_INVALID_IMAGE_DESCRIPTOR, "a size of the image is 0");
    return CL_SUCCESS;
}

static ze_image_type_t zfcl_ze_type(cl_mem_object_type t) {
    switch (t) {
    case CL_MEM_OBJECT_IMAGE1D:
        return ZE_IMAGE_TYPE_1D;
    case CL_MEM_OBJECT_IMAGE1D_ARRAY:
        return ZE_IMAGE_TYPE_1DARRAY;
    case CL_MEM_OBJECT_IMAGE2D:
        return ZE_IMAGE_TYPE_2D;
    case CL_MEM_OBJECT_IMAGE2D_ARRAY:
        return ZE_IMAGE_TYPE_2DARRAY;
    case CL_MEM_OBJECT_IMAGE1D_BUFFER:
        return ZE_IMAGE_TYPE_BUFFER;
    default:
        return ZE_IMAGE_TYPE_3D;
    }
}

static cl_int zfcl_image_limits(cl_device_id d, const cl_image_desc *desc, size_t pixel) {
    ze_device_image_properties_t p = {.stype = ZE_STRUCTURE_TYPE_DEVICE_IMAGE_PROPERTIES};
    zfi_zeDeviceGetImageProperties(d->ze, &p);
    cl_mem_object_type t = desc->image_type;
    if (t == CL_MEM_OBJECT_IMAGE1D_BUFFER) {
        if (desc->image_width > zfcl_image_max_buffer(d))
            return zfcl_fail(CL_INVALID_IMAGE_SIZE, "image_width exceeds CL_DEVICE_IMAGE_MAX_BUFFER_SIZE (%zu)",
                             zfcl_image_max_buffer(d));
        if (desc->image_width * pixel > desc->buffer->size)
            return zfcl_fail(CL_INVALID_IMAGE_SIZE, "image_width %zu pixels of %zu bytes exceed the buffer's %zu bytes",
                             desc->image_width, pixel, desc->buffer->size);
        return CL_SUCCESS;
    }
    size_t max = t == CL_MEM_OBJECT_IMAGE3D                                       ? p.maxImageDims3D
                 : t == CL_MEM_OBJECT_IMAGE1D || t == CL_MEM_OBJECT_IMAGE1D_ARRAY ? p.maxImageDims1D
                                                                                  : p.maxImageDims2D;
    if (desc->image_width > max || desc->image_height > max || desc->image_depth > max ||
        desc->image_array_size > p.maxImageArraySlices)
        return zfcl_fail(CL_INVALID_IMAGE_SIZE, "the image exceeds the device's limits (%zu pixels, %u layers)", max,
                         p.maxImageArraySlices);
    return CL_SUCCESS;
}

/* The pitches of the application's memory: the given ones, or tight. */
static cl_int zfcl_host_pitches(cl_mem m, size_t *row, size_t *slice) {
    size_t tight_row = m->desc.image_width * m->pixel;
    *row = m->desc.image_row_pitch != 0 ? m->desc.image_row_pitch : tight_row;
    size_t rows = m->type == CL_MEM_OBJECT_IMAGE1D_ARRAY ? 1 : m->desc.image_height;
    *slice = m->desc.image_slice_pitch != 0 ? m->desc.image_slice_pitch : *row * rows;
    if (*row < tight_row || *row % m->pixel != 0 || *slice < *row * rows || *slice % *row != 0)
        return zfcl_fail(CL_INVALID_IMAGE_DESCRIPTOR, "image_row_pitch or image_slice_pitch is too small or not a "
                                                      "multiple of the pixel (row) size");
    return CL_SUCCESS;
}

/* The Level Zero pitches of memory holding a region: 1D rows and 1D or 2D slices take 0 (docs/images.md). */
static void zfcl_ze_pitches(cl_mem m, size_t row, size_t slice, uint32_t *ze_row, uint32_t *ze_slice) {
    cl_mem_object_type t = m->type;
    *ze_row = zfcl_one_row(t) || t == CL_MEM_OBJECT_IMAGE1D_ARRAY ? 0 : (uint32_t)row;
    *ze_slice = zfcl_one_row(t) || t == CL_MEM_OBJECT_IMAGE2D ? 0 : (uint32_t)slice;
}

static ze_image_region_t zfcl_whole(cl_mem m) {
    size_t layers = m->desc.image_array_size;
    bool a1 = m->type == CL_MEM_OBJECT_IMAGE1D_ARRAY;
    return (ze_image_region_t){0,
                               0,
                               0,
                               (uint32_t)m->desc.image_width,
                               (uint32_t)(a1 ? layers : m->desc.image_height),
                               (uint32_t)(a1                                 ? 1
                                          : m->type == CL_MEM_OBJECT_IMAGE3D ? m->desc.image_depth
                                                                             : layers)};
}

/* The application's data copied in at creation, through a synchronous list of the context's first device. */
static cl_int zfcl_image_upload(cl_mem m, const void *host_ptr) {
    size_t row, slice;
    cl_int err = zfcl_host_pitches(m, &row, &slice);
    if (err != CL_SUCCESS)
        return err;
    cl_device_id d = m->context->devices[0];
    ze_command_queue_desc_t desc = {.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC,
                                    .ordinal = d->compute_ordinal,
                                    .mode = ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS};
    ze_command_list_handle_t list;
    if (zfi_zeCommandListCreateImmediate(m->context->ze, d->ze, &desc, &list) != ZE_RESULT_SUCCESS)
        return CL_OUT_OF_RESOURCES;
    ze_image_region_t region = zfcl_whole(m);
    uint32_t zr, zs;
    zfcl_ze_pitches(m, row, slice, &zr, &zs);
    ze_result_t r =
        zfi_zeCommandListAppendImageCopyFromMemoryExt(list, m->image, host_ptr, &region, zr, zs, NULL, 0, NULL);
    zfi_zeCommandListDestroy(list);
    return r == ZE_RESULT_SUCCESS ? CL_SUCCESS
                                  : zfcl_fail(CL_OUT_OF_RESOURCES, "the initial copy failed (0x%x)", (unsigned)r);
}

static cl_int zfcl_image_check(cl_context c, cl_mem_flags flags, const cl_image_format *format,
                               const cl_image_desc *desc, const void *host_ptr) {
    if (!zfcl_live(c, ZFCL_CONTEXT))
        return zfcl_fail(CL_INVALID_CONTEXT, "context is no live context");
    cl_int err = zfcl_mem_flags_check(flags);
    if (err != CL_SUCCESS)
        return err;
    if (format == NULL || !zfcl_known_format(format))
        return zfcl_fail(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR, "image_format is NULL or names no channel order or type");
    if ((host_ptr == NULL) == ((flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR)) != 0))
        return zfcl_fail(CL_INVALID_HOST_PTR, "host_ptr must be given exactly with CL_MEM_USE_HOST_PTR or "
                                              "CL_MEM_COPY_HOST_PTR");
    if (desc != NULL && host_ptr == NULL && (desc->image_row_pitch != 0 || desc->image_slice_pitch != 0))
        return zfcl_fail(CL_INVALID_IMAGE_DESCRIPTOR, "pitches are given without host_ptr");
    return CL_SUCCESS;
}

/* The flags of a 1D buffer image: those given, with the access, host access and host pointer flags the image does
 * not give taken from its buffer; CL_INVALID_VALUE when they contradict the buffer's or name a host pointer flag. */
static cl_int zfcl_buffer_flags(cl_context c, cl_mem buffer, cl_mem_flags *flags) {
    const cl_mem_flags access = CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY;
    const cl_mem_flags host = CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS;
    const cl_mem_flags host_ptr = CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR;
    cl_mem_flags given = *flags, from = buffer->flags;
    if (buffer->context != c)
        return zfcl_fail(CL_INVALID_CONTEXT, "image_desc->buffer belongs to another context");
    if (given & host_ptr)
        return zfcl_fail(CL_INVALID_VALUE, "a 1D buffer image takes no host pointer flag (its buffer's apply)");
    if ((given & access) && (from & (CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY)) && (given & access) != (from & access))
        return zfcl_fail(CL_INVALID_VALUE, "the access flags contradict the buffer's read-only or write-only flag");
    if ((given & host) && (from & host) && (given & host) != (from & host) && !(given & CL_MEM_HOST_NO_ACCESS))
        return zfcl_fail(CL_INVALID_VALUE, "the host access flags contradict the buffer's");
    *flags =
        given | (from & host_ptr) | ((given & access) ? 0 : (from & access)) | ((given & host) ? 0 : (from & host));
    return CL_SUCCESS;
}

/* The Level Zero image of a memory object being made (its type, format, sizes and flags are set): over its buffer's
 * bytes for a 1D buffer image. */
static ze_result_t zfcl_ze_image(cl_mem m, ze_image_format_t zf) {
    const cl_image_desc *d = &m->desc;
    cl_mem_object_type t = d->image_type;
    bool layered = d->image_array_size > 1 || t == CL_MEM_OBJECT_IMAGE1D_ARRAY || t == CL_MEM_OBJECT_IMAGE2D_ARRAY;
    ze_image_desc_t zd = {.stype = ZE_STRUCTURE_TYPE_IMAGE_DESC,
                          .flags = (m->flags & CL_MEM_READ_ONLY) ? 0 : ZE_IMAGE_FLAG_KERNEL_WRITE,
                          .type = zfcl_ze_type(t),
                          .format = zf,
                          /* a Level Zero buffer image's width is in bytes */
                          .width = d->image_width * (t == CL_MEM_OBJECT_IMAGE1D_BUFFER ? m->pixel : 1),
                          .height = (uint32_t)d->image_height,
                          .depth = (uint32_t)d->image_depth,
                          .arraylevels = layered ? (uint32_t)d->image_array_size : 0};
    cl_context c = m->context;
    if (d->buffer != NULL)
        return zf_image_create_on_memory(c->ze, c->devices[0]->ze, &zd, d->buffer->ptr, &m->image);
    return zfi_zeImageCreate(c->ze, c->devices[0]->ze, &zd, &m->image);
}

static cl_mem zfcl_image(cl_context c, cl_mem_flags flags, const cl_image_format *format, const cl_image_desc *in,
                         void *host_ptr, cl_int *errcode) {
    cl_image_desc desc;
    ze_image_format_t zf = {0};
    size_t pixel = 0;
    cl_int err = zfcl_image_check(c, flags, format, in, host_ptr);
    if (err == CL_SUCCESS)
        err = zfcl_image_desc(in, &desc);
    if (err == CL_SUCCESS && desc.image_type == CL_MEM_OBJECT_IMAGE1D_BUFFER)
        err = zfcl_buffer_flags(c, desc.buffer, &flags);
    if (err == CL_SUCCESS && (!zfcl_ze_format(format, &zf, &pixel) || (flags & CL_MEM_KERNEL_READ_AND_WRITE)))
        err = zfcl_fail(CL_IMAGE_FORMAT_NOT_SUPPORTED, "the format is not supported (clGetSupportedImageFormats)");
    if (err == CL_SUCCESS)
        err = zfcl_image_limits(c->devices[0], &desc, pixel);
    if (err != CL_SUCCESS)
        return zfcl_null(errcode, err);
    size_t bytes = desc.image_width * desc.image_height * desc.image_depth * desc.image_array_size * pixel;
    cl_mem m = zfcl_mem_new(c, flags, bytes, errcode);
    if (m == NULL)
        return NULL;
    m->type = desc.image_type;
    m->format = *format;
    m->desc = desc;
    m->pixel = pixel;
    ze_result_t r = zfcl_ze_image(m, zf);
    if (r != ZE_RESULT_SUCCESS) {
        free(m);
        return zfcl_null(
            errcode, zfcl_fail(CL_MEM_OBJECT_ALLOCATION_FAILURE, "the image could not be made (0x%x)", (unsigned)r));
    }
    if (flags & CL_MEM_USE_HOST_PTR)
        m->host_ptr = host_ptr;
    err = host_ptr != NULL ? zfcl_image_upload(m, host_ptr) : CL_SUCCESS;
    if (err != CL_SUCCESS) {
        zfi_zeImageDestroy(m->image);
        free(m);
        return zfcl_null(errcode, err);
    }
    if (desc.buffer != NULL) { /* the image holds its buffer (CL_IMAGE_BUFFER, CL_MEM_ASSOCIATED_MEMOBJECT) */
        m->parent = desc.buffer;
        m->ptr = desc.buffer->ptr;
        zfcl_retain(&desc.buffer->obj);
    }
    return zfcl_mem_publish(m, errcode);
}

cl_mem CL_API_CALL zfcl_clCreateImage(cl_context c, cl_mem_flags flags, const cl_image_format *format,
                                      const cl_image_desc *desc, void *host_ptr, cl_int *err) {
    return zfcl_image(c, flags, format, desc, host_ptr, err);
}

cl_mem CL_API_CALL zfcl_clCreateImageWithProperties(cl_context c, const cl_mem_properties *props, cl_mem_flags flags,
                                                    const cl_image_format *format, const cl_image_desc *desc,
                                                    void *host_ptr, cl_int *err) {
    if (props != NULL && props[0] != 0)
        return zfcl_null(err, zfcl_fail(CL_INVALID_PROPERTY, "no image property is supported"));
    cl_mem m = zfcl_image(c, flags, format, desc, host_ptr, err);
    if (m != NULL && props != NULL)
        m->num_props = 1; /* the empty list given: CL_MEM_PROPERTIES reports it back as given, as for buffers */
    return m;
}

cl_mem CL_API_CALL zfcl_clCreateImage2D(cl_context c, cl_mem_flags flags, const cl_image_format *format, size_t width,
                                        size_t height, size_t row_pitch, void *host_ptr, cl_int *err) {
    cl_image_desc desc = {.image_type = CL_MEM_OBJECT_IMAGE2D,
                          .image_width = width,
                          .image_height = height,
                          .image_row_pitch = row_pitch};
    return zfcl_image(c, flags, format, &desc, host_ptr, err);
}

cl_mem CL_API_CALL zfcl_clCreateImage3D(cl_context c, cl_mem_flags flags, const cl_image_format *format, size_t width,
                                        size_t height, size_t depth, size_t row_pitch, size_t slice_pitch,
                                        void *host_ptr, cl_int *err) {
    cl_image_desc desc = {.image_type = CL_MEM_OBJECT_IMAGE3D,
                          .image_width = width,
                          .image_height = height,
                          .image_depth = depth,
                          .image_row_pitch = row_pitch,
                          .image_slice_pitch = slice_pitch};
    return zfcl_image(c, flags, format, &desc, host_ptr, err);
}

cl_int CL_API_CALL zfcl_clGetImageInfo(cl_mem m, cl_image_info name, size_t size, void *value, size_t *size_ret) {
    if (!zfcl_image_valid(m))
        return zfcl_fail(CL_INVALID_MEM_OBJECT, "image is no live image");
    cl_mem_object_type t = m->type;
    size_t row = m->desc.image_width * m->pixel;
    size_t v = 0;
    cl_uint zero = 0;
    switch (name) {
    case CL_IMAGE_FORMAT:
        return zfcl_info(size, value, size_ret, &m->format, sizeof m->format);
    case CL_IMAGE_ELEMENT_SIZE:
        return zfcl_info(size, value, size_ret, &m->pixel, sizeof m->pixel);
    case CL_IMAGE_ROW_PITCH:
        return zfcl_info(size, value, size_ret, &row, sizeof row);
    case CL_IMAGE_SLICE_PITCH:
        v = t == CL_MEM_OBJECT_IMAGE1D_ARRAY                                 ? row
            : t == CL_MEM_OBJECT_IMAGE3D || t == CL_MEM_OBJECT_IMAGE2D_ARRAY ? row * m->desc.image_height
                                                                             : 0;
        return zfcl_info(size, value, size_ret, &v, sizeof v);
    case CL_IMAGE_WIDTH:
        return zfcl_info(size, value, size_ret, &m->desc.image_width, sizeof v);
    case CL_IMAGE_HEIGHT:
        v = zfcl_one_row(t) || t == CL_MEM_OBJECT_IMAGE1D_ARRAY ? 0 : m->desc.image_height;
        return zfcl_info(size, value, size_ret, &v, sizeof v);
    case CL_IMAGE_DEPTH:
        v = t == CL_MEM_OBJECT_IMAGE3D ? m->desc.image_depth : 0;
        return zfcl_info(size, value, size_ret, &v, sizeof v);
    case CL_IMAGE_ARRAY_SIZE:
        v = t == CL_MEM_OBJECT_IMAGE1D_ARRAY || t == CL_MEM_OBJECT_IMAGE2D_ARRAY ? m->desc.image_array_size : 0;
        return zfcl_info(size, value, size_ret, &v, sizeof v);
    case CL_IMAGE_BUFFER:
        return zfcl_info(size, value, size_ret, &m->parent, sizeof m->parent);
    case CL_IMAGE_NUM_MIP_LEVELS:
    case CL_IMAGE_NUM_SAMPLES:
        return zfcl_info(size, value, size_ret, &zero, sizeof zero);
    default:
        return zfcl_fail(CL_INVALID_VALUE, "param_name 0x%x is no image query", (unsigned)name);
    }
}

/* ------------------------------------------------------------------------------------------------------------------
 * Commands */

static cl_int zfcl_check_image(cl_command_queue q, cl_mem m) {
    cl_int err = zfcl_queue_check(q);
    if (err != CL_SUCCESS)
        return err;
    if (!zfcl_image_valid(m))
        return zfcl_fail(CL_INVALID_MEM_OBJECT, "image is no live image");
    if (m->context != q->context)
        return zfcl_fail(CL_INVALID_CONTEXT, "the image and the queue belong to different contexts");
    return CL_SUCCESS;
}

/* origin and region in the image's terms (a 1D array's layers second, a 2D array's third), inside the image. */
static cl_int zfcl_image_region(cl_mem m, const size_t *origin, const size_t *region, ze_image_region_t *out) {
    if (origin == NULL || region == NULL)
        return zfcl_fail(CL_INVALID_VALUE, "origin or region is NULL");
    cl_mem_object_type t = m->type;
    size_t extent[3] = {m->desc.image_width,
                        t == CL_MEM_OBJECT_IMAGE1D_ARRAY ? m->desc.image_array_size : m->desc.image_height,
                        t == CL_MEM_OBJECT_IMAGE2D_ARRAY ? m->desc.image_array_size : m->desc.image_depth};
    for (int i = 0; i < 3; i++)
        if (region[i] == 0 || origin[i] > extent[i] || region[i] > extent[i] - origin[i])
            return zfcl_fail(CL_INVALID_VALUE,
                             "origin[%d] %zu + region[%d] %zu lies outside the image's %zu (or the "
                             "region is 0)",
                             i, origin[i], i, region[i], extent[i]);
    *out = (ze_image_region_t){(uint32_t)origin[0], (uint32_t)origin[1], (uint32_t)origin[2],
                               (uint32_t)region[0], (uint32_t)region[1], (uint32_t)region[2]};
    return CL_SUCCESS;
}

/* The pitches of host memory holding a region: the given ones (0: tight), checked. */
static cl_int zfcl_region_pitches(cl_mem m, const size_t *region, size_t *row, size_t *slice) {
    bool a1 = m->type == CL_MEM_OBJECT_IMAGE1D_ARRAY;
    size_t tight = region[0] * m->pixel;
    if (*row == 0)
        *row = tight;
    if (*slice == 0)
        *slice = a1 ? *row : *row * region[1];
    if (*row < tight || *slice < (a1 ? *row : *row * region[1]))
        return zfcl_fail(CL_INVALID_VALUE, "a row pitch is below the region's row or a slice pitch below its slice");
    return CL_SUCCESS;
}

typedef struct zfcl_image_op {
    enum { ZFCL_TO_MEMORY, ZFCL_FROM_MEMORY, ZFCL_IMAGE_COPY } kind;
    cl_mem image, other; /* other: the source image of a copy */
    void *memory;
    ze_image_region_t region, other_region;
    size_t row, slice;
} zfcl_image_op;

static ze_result_t zfcl_append_image(cl_event e, const zfcl_image_op *op, uint32_t nw, ze_event_handle_t *w) {
    ze_event_handle_t signal = e->ze;
    uint32_t zr = 0, zs = 0;
    zfcl_ze_pitches(op->image, op->row, op->slice, &zr, &zs);
    switch (op->kind) {
    case ZFCL_TO_MEMORY:
        return zfi_zeCommandListAppendImageCopyToMemoryExt(e->list, op->memory, op->image->image, &op->region, zr, zs,
                                                           signal, nw, w);
    case ZFCL_FROM_MEMORY:
        return zfi_zeCommandListAppendImageCopyFromMemoryExt(e->list, op->image->image, op->memory, &op->region, zr, zs,
                                                             signal, nw, w);
    default:
        return zfi_zeCommandListAppendImageCopyRegion(e->list, op->image->image, op->other->image, &op->region,
                                                      &op->other_region, signal, nw, w);
    }
}

static cl_int zfcl_enqueue_image(cl_command_queue q, cl_command_type type, const zfcl_image_op *op, bool blocking,
                                 cl_uint num, const cl_event *list, cl_event *event) {
    cl_event e;
    ze_event_handle_t *w;
    uint32_t nw;
    cl_int err = zfcl_command_begin(q, type, num, list, &e, &w, &nw);
    if (err != CL_SUCCESS)
        return err;
    ze_result_t r = zfcl_append_image(e, op, nw, w);
    free(w);
    if (r != ZE_RESULT_SUCCESS) {
        zfcl_command_abort(q, e);
        return zfcl_fail(r == ZE_RESULT_ERROR_OVERLAPPING_REGIONS ? CL_MEM_COPY_OVERLAP : CL_INVALID_VALUE,
                         "the image command was refused (Level Zero result 0x%x)", (unsigned)r);
    }
    return zfcl_command_end(q, e, event, blocking);
}

static cl_int zfcl_host_image_op(cl_command_queue q, cl_mem m, bool read, const size_t *origin, const size_t *region,
                                 size_t row, size_t slice, void *ptr, zfcl_image_op *op) {
    cl_int err = zfcl_check_image(q, m);
    if (err == CL_SUCCESS && ptr == NULL)
        err = zfcl_fail(CL_INVALID_VALUE, "ptr is NULL");
    if (err == CL_SUCCESS)
        err = zfcl_host_may(m, read);
    if (err == CL_SUCCESS)
        err = zfcl_image_region(m, origin, region, &op->region);
    if (err == CL_SUCCESS)
        err = zfcl_region_pitches(m, region, &row, &slice);
    op->kind = read ? ZFCL_TO_MEMORY : ZFCL_FROM_MEMORY;
    op->image = m;
    op->memory = ptr;
    op->row = row;
    op->slice = slice;
    return err;
}

cl_int CL_API_CALL zfcl_clEnqueueReadImage(cl_command_queue q, cl_mem m, cl_bool blocking, const size_t *origin,
                                           const size_t *region, size_t row, size_t slice, void *ptr, cl_uint num,
                                           const cl_event *list, cl_event *event) {
    zfcl_image_op op;
    cl_int err = zfcl_host_image_op(q, m, true, origin, region, row, slice, ptr, &op);
    return err != CL_SUCCESS ? err : zfcl_enqueue_image(q, CL_COMMAND_READ_IMAGE, &op, blocking, num, list, event);
}

cl_int CL_API_CALL zfcl_clEnqueueWriteImage(cl_command_queue q, cl_mem m, cl_bool blocking, const size_t *origin,
                                            const size_t *region, size_t row, size_t slice, const void *ptr,
                                            cl_uint num, const cl_event *list, cl_event *event) {
    zfcl_image_op op;
    cl_int err = zfcl_host_image_op(q, m, false, origin, region, row, slice, (void *)ptr, &op);
    return err != CL_SUCCESS ? err : zfcl_enqueue_image(q, CL_COMMAND_WRITE_IMAGE, &op, blocking, num, list, event);
}

cl_int CL_API_CALL zfcl_clEnqueueCopyImage(cl_command_queue q, cl_mem src, cl_mem dst, const size_t *src_origin,
                                           const size_t *dst_origin, const size_t *region, cl_uint num,
                                           const cl_event *list, cl_event *event) {
    zfcl_image_op op = {.kind = ZFCL_IMAGE_COPY, .image = dst, .other = src};
    cl_int err = zfcl_check_image(q, src);
    if (err == CL_SUCCESS)
        err = zfcl_check_image(q, dst);
    if (err == CL_SUCCESS && (src->format.image_channel_order != dst->format.image_channel_order ||
                              src->format.image_channel_data_type != dst->format.image_channel_data_type))
        err = zfcl_fail(CL_IMAGE_FORMAT_MISMATCH, "the images have different formats");
    if (err == CL_SUCCESS)
        err = zfcl_image_region(src, src_origin, region, &op.other_region);
    if (err == CL_SUCCESS)
        err = zfcl_image_region(dst, dst_origin, region, &op.region);
    return err != CL_SUCCESS ? err : zfcl_enqueue_image(q, CL_COMMAND_COPY_IMAGE, &op, false, num, list, event);
}

static cl_int zfcl_image_buffer_op(cl_command_queue q, cl_mem image, cl_mem buffer, size_t offset, const size_t *origin,
                                   const size_t *region, bool to_buffer, zfcl_image_op *op) {
    cl_int err = zfcl_check_image(q, image);
    if (err == CL_SUCCESS)
        err = zfcl_image_region(image, origin, region, &op->region);
    size_t bytes = err == CL_SUCCESS ? region[0] * region[1] * region[2] * image->pixel : 0;
    if (err == CL_SUCCESS)
        err = zfcl_check_buffer(q, buffer, offset, bytes);
    *op = (zfcl_image_op){.kind = to_buffer ? ZFCL_TO_MEMORY : ZFCL_FROM_MEMORY,
                          .image = image,
                          .memory = err == CL_SUCCESS ? (char *)buffer->ptr + offset : NULL,
                          .region = op->region,
                          .row = err == CL_SUCCESS ? region[0] * image->pixel : 0,
                          .slice = err == CL_SUCCESS ? region[0] * image->pixel *
                                                           (image->type == CL_MEM_OBJECT_IMAGE1D_ARRAY ? 1 : region[1])
                                                     : 0};
    return err;
}

cl_int CL_API_CALL zfcl_clEnqueueCopyImageToBuffer(cl_command_queue q, cl_mem src, cl_mem dst, const size_t *origin,
                                                   const size_t *region, size_t offset, cl_uint num,
                                                   const cl_event *list, cl_event *event) {
    zfcl_image_op op;
    cl_int err = zfcl_image_buffer_op(q, src, dst, offset, origin, region, true, &op);
    return err != CL_SUCCESS ? err
                             : zfcl_enqueue_image(q, CL_COMMAND_COPY_IMAGE_TO_BUFFER, &op, false, num, list, event);
}

cl_int CL_API_CALL zfcl_clEnqueueCopyBufferToImage(cl_command_queue q, cl_mem src, cl_mem dst, size_t offset,
                                                   const size_t *origin, const size_t *region, cl_uint num,
                                                   const cl_event *list, cl_event *event) {
    zfcl_image_op op;
    cl_int err = zfcl_image_buffer_op(q, dst, src, offset, origin, region, false, &op);
    return err != CL_SUCCESS ? err
                             : zfcl_enqueue_image(q, CL_COMMAND_COPY_BUFFER_TO_IMAGE, &op, false, num, list, event);
}

/* One channel of a fill colour in the image's channel type (the specification's conversion rules). */
static void zfcl_pack_channel(cl_channel_type type, const void *color, int c, unsigned char *out) {
    float f = ((const float *)color)[c];
    int32_t si = ((const int32_t *)color)[c];
    uint32_t ui = ((const uint32_t *)color)[c];
    union {
        uint8_t u8;
        int8_t s8;
        uint16_t u16;
        int16_t s16;
        uint32_t u32;
        int32_t s32;
        float f32;
        uint16_t f16; /* half-precision bits */
    } v = {0};
    switch (type) {
    case CL_UNORM_INT8:
        v.u8 = (uint8_t)lrintf(fminf(fmaxf(f, 0.0f), 1.0f) * 255.0f);
        break;
    case CL_UNORM_INT16:
        v.u16 = (uint16_t)lrintf(fminf(fmaxf(f, 0.0f), 1.0f) * 65535.0f);
        break;
    case CL_SNORM_INT8:
        v.s8 = (int8_t)lrintf(fminf(fmaxf(f, -1.0f), 1.0f) * 127.0f);
        break;
    case CL_SNORM_INT16:
        v.s16 = (int16_t)lrintf(fminf(fmaxf(f, -1.0f), 1.0f) * 32767.0f);
        break;
    case CL_SIGNED_INT8:
        v.s8 = (int8_t)(si < INT8_MIN ? INT8_MIN : si > INT8_MAX ? INT8_MAX : si);
        break;
    case CL_SIGNED_INT16:
        v.s16 = (int16_t)(si < INT16_MIN ? INT16_MIN : si > INT16_MAX ? INT16_MAX : si);
        break;
    case CL_UNSIGNED_INT8:
        v.u8 = (uint8_t)(ui > UINT8_MAX ? UINT8_MAX : ui);
        break;
    case CL_UNSIGNED_INT16:
        v.u16 = (uint16_t)(ui > UINT16_MAX ? UINT16_MAX : ui);
        break;
    case CL_SIGNED_INT32:
        v.s32 = si;
        break;
    case CL_UNSIGNED_INT32:
        v.u32 = ui;
        break;
    case CL_HALF_FLOAT:
        v.f16 = zf_spirv_float_to_half(f);
        break;
    default:
        v.f32 = f;
        break;
    }
    ze_image_format_type_t unused;
    memcpy(out, &v, zfcl_channel_type(type, &unused));
}

cl_int CL_API_CALL zfcl_clEnqueueFillImage(cl_command_queue q, cl_mem m, const void *color, const size_t origin[3],
                                           const size_t region[3], cl_uint num, const cl_event *list, cl_event *event) {
    zfcl_image_op op = {.kind = ZFCL_FROM_MEMORY, .image = m};
    cl_int err = zfcl_check_image(q, m);
    if (err == CL_SUCCESS && color == NULL)
        err = zfcl_fail(CL_INVALID_VALUE, "fill_color is NULL");
    if (err == CL_SUCCESS)
        err = zfcl_image_region(m, origin, region, &op.region);
    if (err != CL_SUCCESS)
        return err;
    unsigned char texel[16];
    cl_uint channels = zfcl_channels(m->format.image_channel_order);
    size_t bytes = m->pixel / channels;
    for (cl_uint c = 0; c < channels; c++)
        zfcl_pack_channel(m->format.image_channel_data_type, color, (int)c, texel + c * bytes);
    size_t count = region[0] * region[1] * region[2];
    unsigned char *texels = malloc(count * m->pixel);
    if (texels == NULL)
        return CL_OUT_OF_HOST_MEMORY;
    for (size_t i = 0; i < count; i++)
        memcpy(texels + i * m->pixel, texel, m->pixel);
    op.memory = texels;
    size_t row = 0, slice = 0;
    zfcl_region_pitches(m, region, &row, &slice);
    op.row = row;
    op.slice = slice;
    /* the texels are host memory of this call: the command completes before it returns */
    err = zfcl_enqueue_image(q, CL_COMMAND_FILL_IMAGE, &op, true, num, list, event);
    free(texels);
    return err;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Map and unmap */

static void *zfcl_map_target(cl_mem m, const size_t *origin, const size_t *region, size_t *row, size_t *slice,
                             bool *staging) {
    if (m->host_ptr != NULL && zfcl_host_pitches(m, row, slice) == CL_SUCCESS) {
        *staging = false; /* CL_MEM_USE_HOST_PTR: the application's memory at the region's place */
        bool a1 = m->type == CL_MEM_OBJECT_IMAGE1D_ARRAY;
        return (char *)m->host_ptr + origin[0] * m->pixel + (a1 ? origin[1] * *slice : origin[1] * *row) +
               (a1 ? 0 : origin[2] * *slice);
    }
    *staging = true;
    *row = 0;
    *slice = 0;
    zfcl_region_pitches(m, region, row, slice);
    return malloc(*slice * (m->type == CL_MEM_OBJECT_IMAGE1D_ARRAY ? region[1] : region[2]));
}

static void *zfcl_map_image(cl_command_queue q, cl_mem m, cl_bool blocking, cl_map_flags flags, const size_t *origin,
                            const size_t *region, size_t *row_out, size_t *slice_out, cl_uint num, const cl_event *list,
                            cl_event *event, cl_int *errcode) {
    zfcl_image_op op = {.kind = ZFCL_TO_MEMORY, .image = m};
    cl_int err = zfcl_image_region(m, origin, region, &op.region);
    zfcl_mapping *map = err == CL_SUCCESS ? calloc(1, sizeof *map) : NULL;
    if (err == CL_SUCCESS && map == NULL)
        err = CL_OUT_OF_HOST_MEMORY;
    if (err != CL_SUCCESS)
        return zfcl_null(errcode, err);
    bool staging;
    size_t row, slice;
    void *ptr = zfcl_map_target(m, origin, region, &row, &slice, &staging);
    op.memory = ptr;
    op.row = row;
    op.slice = slice;
    err = ptr == NULL ? CL_OUT_OF_HOST_MEMORY
                      : zfcl_enqueue_image(q, CL_COMMAND_MAP_IMAGE, &op, blocking, num, list, event);
    if (err != CL_SUCCESS) {
        if (staging)
            free(ptr);
        free(map);
        return zfcl_null(errcode, err);
    }
    *map = (zfcl_mapping){.ptr = ptr, .flags = flags, .row = row, .slice = slice, .staging = staging};
    memcpy(map->origin, origin, sizeof map->origin);
    memcpy(map->region, region, sizeof map->region);
    pthread_mutex_lock(&m->lock);
    map->next = m->mappings;
    m->mappings = map;
    pthread_mutex_unlock(&m->lock);
    atomic_fetch_add(&m->maps, 1u);
    *row_out = row;
    if (slice_out != NULL)
        *slice_out = zfcl_one_row(m->type) || m->type == CL_MEM_OBJECT_IMAGE2D ? 0 : slice;
    if (errcode != NULL)
        *errcode = CL_SUCCESS;
    return ptr;
}

void *CL_API_CALL zfcl_clEnqueueMapImage(cl_command_queue q, cl_mem m, cl_bool blocking, cl_map_flags flags,
                                         const size_t *origin, const size_t *region, size_t *row, size_t *slice,
                                         cl_uint num, const cl_event *list, cl_event *event, cl_int *errcode) {
    const cl_map_flags known = CL_MAP_READ | CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION;
    cl_int err = zfcl_check_image(q, m);
    if (err == CL_SUCCESS && (row == NULL || (flags & ~known) ||
                              ((flags & CL_MAP_WRITE_INVALIDATE_REGION) && (flags & (CL_MAP_READ | CL_MAP_WRITE)))))
        err = zfcl_fail(CL_INVALID_VALUE, "image_row_pitch is NULL or map_flags is invalid");
    bool layered = m != NULL && err == CL_SUCCESS && !zfcl_one_row(m->type) && m->type != CL_MEM_OBJECT_IMAGE2D;
    if (err == CL_SUCCESS && layered && slice == NULL)
        err = zfcl_fail(CL_INVALID_VALUE, "image_slice_pitch is NULL for a 3D image or an array");
    if (err == CL_SUCCESS && (flags & CL_MAP_READ))
        err = zfcl_host_may(m, true);
    if (err == CL_SUCCESS && (flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION)))
        err = zfcl_host_may(m, false);
    if (err != CL_SUCCESS)
        return zfcl_null(errcode, err);
    return zfcl_map_image(q, m, blocking, flags, origin, region, row, slice, num, list, event, errcode);
}

cl_int zfcl_image_unmap(cl_command_queue q, cl_mem m, void *ptr, cl_uint num, const cl_event *list, cl_event *event) {
    cl_int err = zfcl_check_image(q, m);
    if (err == CL_SUCCESS)
        err = zfcl_wait_list(q, num, list);
    if (err != CL_SUCCESS)
        return err;
    zfcl_mapping *map = zfcl_take_mapping(m, ptr);
    if (map == NULL)
        return zfcl_fail(CL_INVALID_VALUE, "mapped_ptr is no pointer mapped from this image");
    atomic_fetch_sub(&m->maps, 1u);
    zfcl_image_op op = {.kind = ZFCL_FROM_MEMORY, .image = m, .memory = ptr, .row = map->row, .slice = map->slice};
    zfcl_image_region(m, map->origin, map->region, &op.region);
    if (map->flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION)) /* written back, then the staging goes */
        err = zfcl_enqueue_image(q, CL_COMMAND_UNMAP_MEM_OBJECT, &op, map->staging, num, list, event);
    else {
        zfcl_copy none = {NULL, NULL, 0};
        err = zfcl_enqueue_copy(q, CL_COMMAND_UNMAP_MEM_OBJECT, none, map->staging, num, list, event);
    }
    if (map->staging)
        free(map->ptr);
    free(map);
    return err;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Samplers */

static ze_sampler_address_mode_t zfcl_ze_address(cl_addressing_mode mode) {
    switch (mode) {
    case CL_ADDRESS_CLAMP_TO_EDGE:
        return ZE_SAMPLER_ADDRESS_MODE_CLAMP;
    case CL_ADDRESS_CLAMP:
        return ZE_SAMPLER_ADDRESS_MODE_CLAMP_TO_BORDER;
    case CL_ADDRESS_REPEAT:
        return ZE_SAMPLER_ADDRESS_MODE_REPEAT;
    case CL_ADDRESS_MIRRORED_REPEAT:
        return ZE_SAMPLER_ADDRESS_MODE_MIRROR;
    default:
        return ZE_SAMPLER_ADDRESS_MODE_NONE;
    }
}

static cl_sampler zfcl_sampler(cl_context c, cl_bool normalized, cl_addressing_mode addressing, cl_filter_mode filter,
                               cl_int *err) {
    if (!zfcl_live(c, ZFCL_CONTEXT))
        return zfcl_null(err, zfcl_fail(CL_INVALID_CONTEXT, "context is no live context"));
    if ((normalized != CL_TRUE && normalized != CL_FALSE) || addressing < CL_ADDRESS_NONE ||
        addressing > CL_ADDRESS_MIRRORED_REPEAT || (filter != CL_FILTER_NEAREST && filter != CL_FILTER_LINEAR))
        return zfcl_null(err, zfcl_fail(CL_INVALID_VALUE, "normalized_coords, addressing_mode or filter_mode is "
                                                          "invalid"));
    cl_sampler s = calloc(1, sizeof *s);
    if (s == NULL)
        return zfcl_null(err, CL_OUT_OF_HOST_MEMORY);
    ze_sampler_desc_t desc = {.stype = ZE_STRUCTURE_TYPE_SAMPLER_DESC,
                              .addressMode = zfcl_ze_address(addressing),
                              .filterMode = filter == CL_FILTER_LINEAR ? ZE_SAMPLER_FILTER_MODE_LINEAR
                                                                       : ZE_SAMPLER_FILTER_MODE_NEAREST,
                              .isNormalized = normalized != CL_FALSE};
    if (zfi_zeSamplerCreate(c->ze, c->devices[0]->ze, &desc, &s->ze) != ZE_RESULT_SUCCESS ||
        !zfcl_register(&s->obj, ZFCL_SAMPLER)) {
        free(s);
        return zfcl_null(err, CL_OUT_OF_RESOURCES);
    }
    s->context = c;
    s->normalized = normalized;
    s->addressing = addressing;
    s->filter = filter;
    zfcl_context_hold(c);
    if (err != NULL)
        *err = CL_SUCCESS;
    return s;
}

cl_sampler CL_API_CALL zfcl_clCreateSampler(cl_context c, cl_bool normalized, cl_addressing_mode addressing,
                                            cl_filter_mode filter, cl_int *err) {
    return zfcl_sampler(c, normalized, addressing, filter, err);
}

cl_sampler CL_API_CALL zfcl_clCreateSamplerWithProperties(cl_context c, const cl_sampler_properties *props,
                                                          cl_int *err) {
    cl_bool normalized = CL_TRUE;
    cl_addressing_mode addressing = CL_ADDRESS_CLAMP;
    cl_filter_mode filter = CL_FILTER_NEAREST;
    size_t n = 0;
    unsigned seen = 0;
    for (; props != NULL && props[n] != 0; n += 2) {
        unsigned bit = props[n] == CL_SAMPLER_NORMALIZED_COORDS ? 1u
                       : props[n] == CL_SAMPLER_ADDRESSING_MODE ? 2u
                       : props[n] == CL_SAMPLER_FILTER_MODE     ? 4u
                                                                : 0u;
        if (bit == 0 || (seen & bit))
            return zfcl_null(err, zfcl_fail(CL_INVALID_VALUE, "sampler property 0x%llx is unknown or given twice",
                                            (unsigned long long)props[n]));
        seen |= bit;
        if (bit == 1u)
            normalized = (cl_bool)props[n + 1];
        else if (bit == 2u)
            addressing = (cl_addressing_mode)props[n + 1];
        else
            filter = (cl_filter_mode)props[n + 1];
    }
    cl_sampler s = zfcl_sampler(c, normalized, addressing, filter, err);
    if (s != NULL && props != NULL) {
        memcpy(s->given, props, (n + 1) * sizeof *props);
        s->num_given = n + 1;
    }
    return s;
}

cl_int CL_API_CALL zfcl_clRetainSampler(cl_sampler s) {
    if (!zfcl_live(s, ZFCL_SAMPLER))
        return zfcl_fail(CL_INVALID_SAMPLER, "sampler is no live sampler");
    zfcl_retain(&s->obj);
    return CL_SUCCESS;
}

/* Once no command can use it (zfcl_context_defer). */
static void zfcl_sampler_destroy(void *object) {
    cl_sampler s = object;
    zfi_zeSamplerDestroy(s->ze);
    cl_context c = s->context;
    zfcl_object_free(&s->obj);
    zfcl_context_unhold(c);
}

cl_int CL_API_CALL zfcl_clReleaseSampler(cl_sampler s) {
    if (!zfcl_live(s, ZFCL_SAMPLER))
        return zfcl_fail(CL_INVALID_SAMPLER, "sampler is no live sampler");
    if (!zfcl_release(&s->obj))
        return CL_SUCCESS;
    zfcl_unregister(&s->obj); /* the handle dies now, the sampler once no command can use it */
    zfcl_context_defer(s->context, zfcl_sampler_destroy, s);
    return CL_SUCCESS;
}

cl_int CL_API_CALL zfcl_clGetSamplerInfo(cl_sampler s, cl_sampler_info name, size_t size, void *value,
                                         size_t *size_ret) {
    if (!zfcl_live(s, ZFCL_SAMPLER))
        return zfcl_fail(CL_INVALID_SAMPLER, "sampler is no live sampler");
    cl_uint refs = atomic_load(&s->obj.refs);
    switch (name) {
    case CL_SAMPLER_REFERENCE_COUNT:
        return zfcl_info(size, value, size_ret, &refs, sizeof refs);
    case CL_SAMPLER_CONTEXT:
        return zfcl_info(size, value, size_ret, &s->context, sizeof s->context);
    case CL_SAMPLER_NORMALIZED_COORDS:
        return zfcl_info(size, value, size_ret, &s->normalized, sizeof s->normalized);
    case CL_SAMPLER_ADDRESSING_MODE:
        return zfcl_info(size, value, size_ret, &s->addressing, sizeof s->addressing);
    case CL_SAMPLER_FILTER_MODE:
        return zfcl_info(size, value, size_ret, &s->filter, sizeof s->filter);
    case CL_SAMPLER_PROPERTIES:
        return zfcl_info(size, value, size_ret, s->given, s->num_given * sizeof *s->given);
    default:
        return zfcl_fail(CL_INVALID_VALUE, "param_name 0x%x is no sampler query", (unsigned)name);
    }
}
