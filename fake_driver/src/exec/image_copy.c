/* Image copies: zeCommandListAppendImageCopy, ImageCopyRegion, ImageCopyToMemory, ImageCopyFromMemory and their
 * pitched variants of ZE_extension_image_copy, as a command family of its own (zf_command_ops).
 *
 * Images are stored linearly (zf_image.h), so a copy moves rows of bytes, plane by plane: nothing is converted, as the
 * specification asks (both images have the same format; memory holds the image's own encoding, tightly packed unless
 * pitches are given). Arguments are checked at append; the memory side is checked when the command runs, like every
 * copy: a range past its allocation or in freed memory is a device fault, not a crash (docs/images.md). */
#include "core/zf_core.h"
#include "exec/zf_exec.h"
#include "image/zf_image.h"

#include <stdlib.h>
#include <string.h>

/* The copy bandwidths of the cost model (docs/cost-model.md, cost.c), in bytes per ns. */
#define ZF_IMAGE_BANDWIDTH_COMPUTE 200u
#define ZF_IMAGE_BANDWIDTH_COPY    50u
#define ZF_IMAGE_BANDWIDTH_HOST    25u

/* A region in pixels; z counts slices: depth for 3D images, layers for arrays. */
typedef struct zf_box {
    uint64_t x, y, z, w, h, d;
} zf_box;

/* One plane of a copy: where its first byte is on each side and how rows and slices step. */
typedef struct zf_copy_plane {
    uint64_t dst_offset, src_offset;
    uint64_t dst_row_pitch, src_row_pitch;
    uint64_t dst_slice_pitch, src_slice_pitch;
    uint64_t row_bytes;
    uint64_t rows, slices;
} zf_copy_plane;

/* The payload of one copy command. Image memory is referenced, so an image destroyed before the copy runs is still
 * readable; the memory side is an application pointer, checked when the copy runs. */
typedef struct zf_image_copy {
    zf_image_store *dst_store, *src_store; /* NULL on the memory side */
    uint8_t *dst_memory;
    const uint8_t *src_memory;
    uint32_t num_planes;
    zf_copy_plane planes[ZF_IMAGE_MAX_PLANES];
} zf_image_copy;

/* ------------------------------------------------------------------------------------------------------------------
 * Execution */

static uint64_t zf_copy_bytes(const zf_image_copy *c) {
    uint64_t bytes = 0;
    for (uint32_t p = 0; p < c->num_planes; p++)
        bytes += c->planes[p].row_bytes * c->planes[p].rows * c->planes[p].slices;
    return bytes;
}

/* Bytes of memory a plane of the copy spans on the memory side. */
static uint64_t zf_memory_extent(const zf_copy_plane *p, bool dst) {
    if (p->rows == 0 || p->slices == 0)
        return 0;
    uint64_t row_pitch = dst ? p->dst_row_pitch : p->src_row_pitch;
    uint64_t slice_pitch = dst ? p->dst_slice_pitch : p->src_slice_pitch;
    return (p->slices - 1) * slice_pitch + (p->rows - 1) * row_pitch + p->row_bytes;
}

/* The memory side must lie inside one allocation of the context, or outside all of them (host memory), and not in
 * freed memory (nor, when written, in virtual memory mapped read-only); an allocation it lies in is held until the
 * copy is done. */
static ze_result_t zf_memory_side_begin(zf_context *context, const void *ptr, uint64_t extent, bool write,
                                        zf_mem_block **hold, bool *host) {
    *hold = NULL;
    *host = true;
    if (zf_memory_range_overruns(context, ptr, (size_t)extent)) {
        zf_log(ZF_LOG_ERROR, "device fault: image copy [%p, +%llu) runs past the end of its allocation", ptr,
               (unsigned long long)extent);
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    }
    zf_allocation allocation;
    *hold = zf_memory_hold(context, ptr, (size_t)extent, &allocation);
    if (*hold == NULL && zf_memory_range_freed(ptr, (size_t)extent)) {
        zf_log(ZF_LOG_ERROR, "device fault: image copy [%p, +%llu) is in freed or unmapped memory", ptr,
               (unsigned long long)extent);
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    }
    zf_vm_span span;
    if (*hold == NULL && write && zf_virtual_span(ptr, (size_t)extent, &span) &&
        span.access == ZE_MEMORY_ACCESS_ATTRIBUTE_READONLY) {
        zf_log(ZF_LOG_ERROR, "device fault: image copy writes [%p, +%llu), virtual memory mapped read-only", ptr,
               (unsigned long long)extent);
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    }
    *host = *hold == NULL || allocation.type == ZE_MEMORY_TYPE_HOST;
    return *hold != NULL ? ZE_RESULT_SUCCESS : zf_command_host_check(ptr, (size_t)extent, write, "image copy");
}

static void zf_copy_planes(const zf_image_copy *c, uint8_t *dst, const uint8_t *src) {
    for (uint32_t i = 0; i < c->num_planes; i++) {
        const zf_copy_plane *p = &c->planes[i];
        for (uint64_t s = 0; s < p->slices; s++) {
            for (uint64_t r = 0; r < p->rows; r++)
                memmove(dst + p->dst_offset + s * p->dst_slice_pitch + r * p->dst_row_pitch,
                        src + p->src_offset + s * p->src_slice_pitch + r * p->src_row_pitch, p->row_bytes);
        }
    }
}

static uint64_t zf_copy_bandwidth(const zf_queue *queue, bool host) {
    if (host)
        return ZF_IMAGE_BANDWIDTH_HOST;
    return (queue->group_flags & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE) ? ZF_IMAGE_BANDWIDTH_COMPUTE
                                                                               : ZF_IMAGE_BANDWIDTH_COPY;
}

static ze_result_t zf_image_copy_perform(void *payload, zf_queue *queue, uint64_t start_ns, uint64_t *cost_ns) {
    (void)start_ns;
    zf_image_copy *c = payload;
    uint8_t *dst = c->dst_store != NULL ? c->dst_store->base : c->dst_memory;
    const uint8_t *src = c->src_store != NULL ? c->src_store->base : c->src_memory;
    zf_mem_block *hold = NULL;
    bool host = false;
    ze_result_t result = ZE_RESULT_SUCCESS;
    if (c->dst_store == NULL)
        result = zf_memory_side_begin(queue->context, dst, zf_memory_extent(&c->planes[0], true), true, &hold, &host);
    else if (c->src_store == NULL)
        result = zf_memory_side_begin(queue->context, src, zf_memory_extent(&c->planes[0], false), false, &hold, &host);
    if (result == ZE_RESULT_SUCCESS)
        zf_copy_planes(c, dst, src);
    zf_memory_release(hold);
    uint64_t bytes = zf_copy_bytes(c), bandwidth = zf_copy_bandwidth(queue, host);
    *cost_ns += bytes / bandwidth + (bytes % bandwidth != 0);
    return result;
}

static void zf_image_copy_release(void *payload) {
    zf_image_copy *c = payload;
    zf_image_store_release(c->dst_store);
    zf_image_store_release(c->src_store);
    free(c);
}

/* A clone of a command list holds the images' memory too. */
static void *zf_image_copy_clone(const void *payload) {
    zf_image_copy *c = malloc(sizeof *c);
    if (c == NULL)
        return NULL;
    *c = *(const zf_image_copy *)payload;
    if (c->dst_store != NULL)
        zf_image_store_retain(c->dst_store);
    if (c->src_store != NULL)
        zf_image_store_retain(c->src_store);
    return c;
}

static const zf_command_ops zf_image_copy_ops = {.name = "image copy",
                                                 .perform = zf_image_copy_perform,
                                                 .release = zf_image_copy_release,
                                                 .clone = zf_image_copy_clone};

/* ------------------------------------------------------------------------------------------------------------------
 * Regions */

static zf_box zf_whole(const zf_image *image) {
    return (zf_box){0, 0, 0, image->width, image->height, (uint64_t)image->depth * image->layers};
}

/* A dimension the image type does not have must be origin 0 and extent 0 or 1. */
static ze_result_t zf_unused_dimension(uint32_t origin, uint32_t *extent, char axis, const char *name) {
    if (origin != 0 || *extent > 1)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                       "%s: origin%c %u, extent %u: the image has no such dimension (use origin 0 and extent 1)", name,
                       axis, origin, *extent);
    *extent = 1;
    return ZE_RESULT_SUCCESS;
}

/* The region in the image's own terms. A 1D array's layers are given by originY and height (as OpenCL gives them in
 * its second coordinate), a 2D array's by originZ and depth. */
static ze_result_t zf_region_to_box(const zf_image *image, const ze_image_region_t *region, const char *name,
                                    zf_box *box) {
    ze_image_region_t r = *region;
    ze_image_type_t type = image->desc.type;
    ze_result_t result = ZE_RESULT_SUCCESS;
    if (type == ZE_IMAGE_TYPE_1DARRAY) {
        r.originZ = region->originY;
        r.depth = region->height;
        r.originY = region->originZ;
        r.height = region->depth;
    }
    bool has_y = type == ZE_IMAGE_TYPE_2D || type == ZE_IMAGE_TYPE_2DARRAY || type == ZE_IMAGE_TYPE_3D;
    bool has_z = type == ZE_IMAGE_TYPE_3D || type == ZE_IMAGE_TYPE_1DARRAY || type == ZE_IMAGE_TYPE_2DARRAY;
    if (!has_y)
        result = zf_unused_dimension(r.originY, &r.height, type == ZE_IMAGE_TYPE_1DARRAY ? 'Z' : 'Y', name);
    if (result == ZE_RESULT_SUCCESS && !has_z)
        result = zf_unused_dimension(r.originZ, &r.depth, 'Z', name);
    *box = (zf_box){r.originX, r.originY, r.originZ, r.width, r.height, r.depth};
    return result;
}

/* A region inside the image, in whole blocks of every plane. */
static ze_result_t zf_check_box(const zf_image *image, const zf_box *b, const char *name) {
    zf_box whole = zf_whole(image);
    if (b->w == 0 || b->h == 0 || b->d == 0)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "%s is empty (%llu x %llu x %llu)", name,
                       (unsigned long long)b->w, (unsigned long long)b->h, (unsigned long long)b->d);
    if (b->x + b->w > whole.w || b->y + b->h > whole.h || b->z + b->d > whole.d)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                       "%s (origin %llu, %llu, %llu; size %llu x %llu x %llu) is not inside the image (%llu x %llu x "
                       "%llu)",
                       name, (unsigned long long)b->x, (unsigned long long)b->y, (unsigned long long)b->z,
                       (unsigned long long)b->w, (unsigned long long)b->h, (unsigned long long)b->d,
                       (unsigned long long)whole.w, (unsigned long long)whole.h, (unsigned long long)whole.d);
    for (uint32_t p = 0; p < image->num_planes; p++) {
        const zf_format_plane *f = &image->planes[p].layout;
        if (b->x % f->block_width || b->w % f->block_width || b->y % f->block_height || b->h % f->block_height)
            return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                           "%s must start and end on %u x %u pixel blocks (format %s, plane %u)", name, f->block_width,
                           f->block_height, image->format->name, p);
    }
    return ZE_RESULT_SUCCESS;
}

static ze_result_t zf_image_box(const zf_image *image, const ze_image_region_t *region, const char *name, zf_box *box) {
    if (region == NULL) {
        *box = zf_whole(image);
        return ZE_RESULT_SUCCESS;
    }
    ze_result_t result = zf_region_to_box(image, region, name, box);
    return result == ZE_RESULT_SUCCESS ? zf_check_box(image, box, name) : result;
}

/* Plane p of `image` over box b: first byte, pitches and the size of a row. */
static void zf_image_side(const zf_image *image, uint32_t p, const zf_box *b, uint64_t *offset, uint64_t *row_pitch,
                          uint64_t *slice_pitch, zf_copy_plane *plane) {
    const zf_image_plane *ip = &image->planes[p];
    *offset = ip->offset + b->z * ip->slice_pitch + (b->y / ip->layout.block_height) * ip->row_pitch +
              (b->x / ip->layout.block_width) * ip->layout.block_bytes;
    *row_pitch = ip->row_pitch;
    *slice_pitch = ip->slice_pitch;
    plane->row_bytes = (b->w / ip->layout.block_width) * ip->layout.block_bytes;
    plane->rows = b->h / ip->layout.block_height;
    plane->slices = b->d;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Checks shared by the appends */

/* The image must be usable by the list: same context, the list's device or its root device, not a disabled view. */
static ze_result_t zf_check_image_for_list(const zf_cmdlist *list, const zf_image *image, const char *name) {
    if (image->context != list->context)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "%s belongs to another context than the command list", name);
    if (image->device != list->device && image->device != list->device->root)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                       "%s was created for another device; only it and its sub-devices may use it", name);
    return zf_image_check_usable(image, name);
}

static bool zf_same_format(const zf_image *a, const zf_image *b) {
    if (a->format != b->format)
        return false;
    return a->format->media || a->desc.format.type == b->desc.format.type;
}

static bool zf_boxes_intersect(const zf_box *a, const zf_box *b) {
    return a->x < b->x + b->w && b->x < a->x + a->w && a->y < b->y + b->h && b->y < a->y + a->h && a->z < b->z + b->d &&
           b->z < a->z + a->d;
}

static bool zf_same_layout(const zf_image *a, const zf_image *b) {
    return a->num_planes == b->num_planes && memcmp(a->planes, b->planes, sizeof a->planes) == 0;
}

/* Byte ranges [first, last] of each plane of a copy side; any intersection is an overlap (conservative, for images
 * that share memory with another layout: a view and its image). */
static bool zf_bytes_intersect(const zf_image_copy *c) {
    for (uint32_t i = 0; i < c->num_planes; i++) {
        const zf_copy_plane *p = &c->planes[i];
        uint64_t d_end =
            p->dst_offset + (p->slices - 1) * p->dst_slice_pitch + (p->rows - 1) * p->dst_row_pitch + p->row_bytes;
        for (uint32_t j = 0; j < c->num_planes; j++) {
            const zf_copy_plane *q = &c->planes[j];
            uint64_t s_end =
                q->src_offset + (q->slices - 1) * q->src_slice_pitch + (q->rows - 1) * q->src_row_pitch + q->row_bytes;
            if (p->dst_offset < s_end && q->src_offset < d_end)
                return true;
        }
    }
    return false;
}

/* Whether every plane of a starts where b's does and steps rows and slices alike: views of the same planes, which
 * may differ in size (a planar view smaller than its plane). */
static bool zf_same_planes(const zf_image *a, const zf_image *b) {
    for (uint32_t p = 0; p < a->num_planes; p++) {
        const zf_image_plane *pa = &a->planes[p], *pb = &b->planes[p];
        if (pa->offset != pb->offset || pa->row_pitch != pb->row_pitch || pa->slice_pitch != pb->slice_pitch)
            return false;
    }
    return a->num_planes == b->num_planes;
}

/* Box b of plane p in bytes within a row, rows of blocks and slices: where a byte is, exactly, on planes that share
 * their start and pitches. */
static zf_box zf_byte_box(const zf_image *image, uint32_t p, const zf_box *b) {
    const zf_format_plane *f = &image->planes[p].layout;
    return (zf_box){b->x / f->block_width * f->block_bytes, b->y / f->block_height, b->z,
                    b->w / f->block_width * f->block_bytes, b->h / f->block_height, b->d};
}

static bool zf_planes_intersect(const zf_image *dst, const zf_image *src, const zf_box *db, const zf_box *sb) {
    for (uint32_t p = 0; p < dst->num_planes; p++) {
        zf_box d = zf_byte_box(dst, p, db), s = zf_byte_box(src, p, sb);
        if (zf_boxes_intersect(&d, &s))
            return true;
    }
    return false;
}

/* Regions of one memory overlap when they share a byte: exactly for the same layout or views of the same planes,
 * conservatively (byte ranges) otherwise. */
static ze_result_t zf_check_overlap(const zf_image *dst, const zf_image *src, const zf_box *db, const zf_box *sb,
                                    const zf_image_copy *c) {
    if (dst->store != src->store)
        return ZE_RESULT_SUCCESS;
    bool overlap = zf_same_layout(dst, src)   ? zf_boxes_intersect(db, sb)
                   : zf_same_planes(dst, src) ? zf_planes_intersect(dst, src, db, sb)
                                              : zf_bytes_intersect(c);
    if (overlap)
        return zf_fail(ZE_RESULT_ERROR_OVERLAPPING_REGIONS,
                       "pDstRegion and pSrcRegion share bytes of the same image memory (hDstImage and hSrcImage are "
                       "the same image or views of it)");
    return ZE_RESULT_SUCCESS;
}

/* Appends the copy, or frees it when `result` is already an error. */
static ze_result_t zf_append(ze_command_list_handle_t hCommandList, zf_image_copy *c, ze_result_t result,
                             ze_event_handle_t signal, uint32_t num_waits, ze_event_handle_t *waits) {
    if (result != ZE_RESULT_SUCCESS) {
        zf_image_copy_release(c);
        return result;
    }
    return zf_cmdlist_append_custom(hCommandList, &zf_image_copy_ops, c, signal, num_waits, waits);
}

static zf_image_copy *zf_copy_new(void) {
    return calloc(1, sizeof(zf_image_copy));
}

/* ------------------------------------------------------------------------------------------------------------------
 * Image to image */

static ze_result_t zf_plan_image_copy(zf_cmdlist *list, const zf_image *dst, const zf_image *src,
                                      const ze_image_region_t *dst_region, const ze_image_region_t *src_region,
                                      zf_image_copy *c) {
    ze_result_t result = zf_check_image_for_list(list, dst, "hDstImage");
    if (result == ZE_RESULT_SUCCESS)
        result = zf_check_image_for_list(list, src, "hSrcImage");
    if (result == ZE_RESULT_SUCCESS && !zf_same_format(dst, src))
        result = zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                         "the images have different formats (%s and %s, or another type): copies do not convert",
                         dst->format->name, src->format->name);
    zf_box db, sb;
    if (result == ZE_RESULT_SUCCESS)
        result = zf_image_box(dst, dst_region, "pDstRegion", &db);
    if (result == ZE_RESULT_SUCCESS)
        result = zf_image_box(src, src_region, "pSrcRegion", &sb);
    if (result == ZE_RESULT_SUCCESS && (db.w != sb.w || db.h != sb.h || db.d != sb.d))
        result = zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                         "the regions differ in size: %llu x %llu x %llu to %llu x %llu x %llu",
                         (unsigned long long)sb.w, (unsigned long long)sb.h, (unsigned long long)sb.d,
                         (unsigned long long)db.w, (unsigned long long)db.h, (unsigned long long)db.d);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    c->num_planes = dst->num_planes;
    for (uint32_t p = 0; p < c->num_planes; p++) {
        zf_copy_plane *plane = &c->planes[p];
        zf_image_side(src, p, &sb, &plane->src_offset, &plane->src_row_pitch, &plane->src_slice_pitch, plane);
        zf_image_side(dst, p, &db, &plane->dst_offset, &plane->dst_row_pitch, &plane->dst_slice_pitch, plane);
    }
    result = zf_check_overlap(dst, src, &db, &sb, c);
    if (result == ZE_RESULT_SUCCESS) {
        zf_image_store_retain(dst->store);
        zf_image_store_retain(src->store);
        c->dst_store = dst->store;
        c->src_store = src->store;
    }
    return result;
}

static ze_result_t zf_append_image_to_image(ze_command_list_handle_t hCommandList, ze_image_handle_t hDstImage,
                                            ze_image_handle_t hSrcImage, const ze_image_region_t *pDstRegion,
                                            const ze_image_region_t *pSrcRegion, bool whole, ze_event_handle_t signal,
                                            uint32_t num_waits, ze_event_handle_t *waits) {
    const zf_image *dst = zf_image_from(hDstImage), *src = zf_image_from(hSrcImage);
    zf_image_copy *c = zf_copy_new();
    if (c == NULL)
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory for an image copy");
    ze_result_t result = ZE_RESULT_SUCCESS;
    if (whole && (dst->desc.type != src->desc.type || dst->width != src->width || dst->height != src->height ||
                  dst->depth != src->depth || dst->layers != src->layers))
        result = zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                         "the images differ in type or size; copy a region with zeCommandListAppendImageCopyRegion");
    if (result == ZE_RESULT_SUCCESS)
        result = zf_plan_image_copy(zf_cmdlist_from(hCommandList), dst, src, pDstRegion, pSrcRegion, c);
    return zf_append(hCommandList, c, result, signal, num_waits, waits);
}

ze_result_t zfi_zeCommandListAppendImageCopy(ze_command_list_handle_t hCommandList, ze_image_handle_t hDstImage,
                                             ze_image_handle_t hSrcImage, ze_event_handle_t hSignalEvent,
                                             uint32_t numWaitEvents, ze_event_handle_t *phWaitEvents) {
    return zf_append_image_to_image(hCommandList, hDstImage, hSrcImage, NULL, NULL, true, hSignalEvent, numWaitEvents,
                                    phWaitEvents);
}

ze_result_t zfi_zeCommandListAppendImageCopyRegion(ze_command_list_handle_t hCommandList, ze_image_handle_t hDstImage,
                                                   ze_image_handle_t hSrcImage, const ze_image_region_t *pDstRegion,
                                                   const ze_image_region_t *pSrcRegion, ze_event_handle_t hSignalEvent,
                                                   uint32_t numWaitEvents, ze_event_handle_t *phWaitEvents) {
    return zf_append_image_to_image(hCommandList, hDstImage, hSrcImage, pDstRegion, pSrcRegion, false, hSignalEvent,
                                    numWaitEvents, phWaitEvents);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Image and memory */

/* The memory side's pitches: tightly packed when 0; otherwise at least a row (a slice) of the region. The header
 * asks for 0 where the image has no such dimension. */
static ze_result_t zf_memory_pitches(const zf_image *image, const zf_copy_plane *plane, uint32_t row_pitch,
                                     uint32_t slice_pitch, uint64_t *row, uint64_t *slice) {
    ze_image_type_t type = image->desc.type;
    bool one_row = type == ZE_IMAGE_TYPE_1D || type == ZE_IMAGE_TYPE_BUFFER;
    bool one_slice = one_row || type == ZE_IMAGE_TYPE_2D;
    if (one_row && row_pitch != 0)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "the row pitch of a 1D or buffer image copy must be 0, not %u",
                       row_pitch);
    if (one_slice && slice_pitch != 0)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                       "the slice pitch of a 1D, 2D or buffer image copy must be 0, not %u", slice_pitch);
    *row = row_pitch != 0 ? row_pitch : plane->row_bytes;
    if (*row < plane->row_bytes)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "the row pitch %u is smaller than a row of the region (%llu)",
                       row_pitch, (unsigned long long)plane->row_bytes);
    *slice = slice_pitch != 0 ? slice_pitch : *row * plane->rows;
    if (*slice < *row * plane->rows)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                       "the slice pitch %u is smaller than row pitch x rows of the region (%llu)", slice_pitch,
                       (unsigned long long)(*row * plane->rows));
    return ZE_RESULT_SUCCESS;
}

/* Plans a copy between `image` and memory; to_memory tells the direction. */
static ze_result_t zf_plan_memory_copy(zf_cmdlist *list, const zf_image *image, const ze_image_region_t *region,
                                       uint32_t row_pitch, uint32_t slice_pitch, bool to_memory, zf_image_copy *c) {
    const char *name = to_memory ? "hSrcImage" : "hDstImage";
    ze_result_t result = zf_check_image_for_list(list, image, name);
    if (result == ZE_RESULT_SUCCESS && image->num_planes > 1)
        result = zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                         "%s has the planar format %s: copy each plane through a planar view "
                         "(ZE_experimental_image_view_planar), as the specification asks for a single-planar format",
                         name, image->format->name);
    zf_box box;
    if (result == ZE_RESULT_SUCCESS)
        result = zf_image_box(image, region, to_memory ? "pSrcRegion" : "pDstRegion", &box);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    zf_copy_plane *plane = &c->planes[0];
    c->num_planes = 1;
    uint64_t *image_offset = to_memory ? &plane->src_offset : &plane->dst_offset;
    uint64_t *image_row = to_memory ? &plane->src_row_pitch : &plane->dst_row_pitch;
    uint64_t *image_slice = to_memory ? &plane->src_slice_pitch : &plane->dst_slice_pitch;
    zf_image_side(image, 0, &box, image_offset, image_row, image_slice, plane);
    result = zf_memory_pitches(image, plane, row_pitch, slice_pitch,
                               to_memory ? &plane->dst_row_pitch : &plane->src_row_pitch,
                               to_memory ? &plane->dst_slice_pitch : &plane->src_slice_pitch);
    if (result == ZE_RESULT_SUCCESS) {
        zf_image_store_retain(image->store);
        *(to_memory ? &c->src_store : &c->dst_store) = image->store;
    }
    return result;
}

static ze_result_t zf_append_memory_copy(ze_command_list_handle_t hCommandList, ze_image_handle_t hImage, void *memory,
                                         const ze_image_region_t *region, uint32_t row_pitch, uint32_t slice_pitch,
                                         bool to_memory, ze_event_handle_t signal, uint32_t num_waits,
                                         ze_event_handle_t *waits) {
    zf_image_copy *c = zf_copy_new();
    if (c == NULL)
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory for an image copy");
    if (to_memory)
        c->dst_memory = memory;
    else
        c->src_memory = memory;
    ze_result_t result = zf_plan_memory_copy(zf_cmdlist_from(hCommandList), zf_image_from(hImage), region, row_pitch,
                                             slice_pitch, to_memory, c);
    return zf_append(hCommandList, c, result, signal, num_waits, waits);
}

ze_result_t zfi_zeCommandListAppendImageCopyToMemory(ze_command_list_handle_t hCommandList, void *dstptr,
                                                     ze_image_handle_t hSrcImage, const ze_image_region_t *pSrcRegion,
                                                     ze_event_handle_t hSignalEvent, uint32_t numWaitEvents,
                                                     ze_event_handle_t *phWaitEvents) {
    return zf_append_memory_copy(hCommandList, hSrcImage, dstptr, pSrcRegion, 0, 0, true, hSignalEvent, numWaitEvents,
                                 phWaitEvents);
}

ze_result_t zfi_zeCommandListAppendImageCopyFromMemory(ze_command_list_handle_t hCommandList,
                                                       ze_image_handle_t hDstImage, const void *srcptr,
                                                       const ze_image_region_t *pDstRegion,
                                                       ze_event_handle_t hSignalEvent, uint32_t numWaitEvents,
                                                       ze_event_handle_t *phWaitEvents) {
    return zf_append_memory_copy(hCommandList, hDstImage, (void *)srcptr, pDstRegion, 0, 0, false, hSignalEvent,
                                 numWaitEvents, phWaitEvents);
}

ze_result_t zfi_zeCommandListAppendImageCopyToMemoryExt(ze_command_list_handle_t hCommandList, void *dstptr,
                                                        ze_image_handle_t hSrcImage,
                                                        const ze_image_region_t *pSrcRegion, uint32_t destRowPitch,
                                                        uint32_t destSlicePitch, ze_event_handle_t hSignalEvent,
                                                        uint32_t numWaitEvents, ze_event_handle_t *phWaitEvents) {
    return zf_append_memory_copy(hCommandList, hSrcImage, dstptr, pSrcRegion, destRowPitch, destSlicePitch, true,
                                 hSignalEvent, numWaitEvents, phWaitEvents);
}

ze_result_t zfi_zeCommandListAppendImageCopyFromMemoryExt(ze_command_list_handle_t hCommandList,
                                                          ze_image_handle_t hDstImage, const void *srcptr,
                                                          const ze_image_region_t *pDstRegion, uint32_t srcRowPitch,
                                                          uint32_t srcSlicePitch, ze_event_handle_t hSignalEvent,
                                                          uint32_t numWaitEvents, ze_event_handle_t *phWaitEvents) {
    return zf_append_memory_copy(hCommandList, hDstImage, (void *)srcptr, pDstRegion, srcRowPitch, srcSlicePitch, false,
                                 hSignalEvent, numWaitEvents, phWaitEvents);
}
