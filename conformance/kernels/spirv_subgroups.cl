/* SPIR-V execution: the sub-group block reads and writes of cl_intel_subgroups and its _char, _short and _long
 * variants (OpSubgroupBlockReadINTEL, OpSubgroupBlockWriteINTEL, OpSubgroupImageBlockReadINTEL,
 * OpSubgroupImageBlockWriteINTEL) for 8-, 16-, 32- and 64-bit elements, 1, 2, 4 and 8 per work-item
 * (test_spirv_memory.c). clang-14 declares none of these functions for spir64 (its built-in declarations lack them,
 * and it knows neither cl_intel_subgroups_char nor cl_intel_subgroups_long), so they are declared here: llvm-spirv
 * makes the instructions of the calls by their names, and the element width from the value's type. */
#pragma OPENCL EXTENSION cl_khr_subgroups : enable

#define OV __attribute__((overloadable))

/* The functions of one element type; F is the name's suffix (none for uint, _uc, _us, _ul). */
#define ZC_DECLARE(T, F)                                                                                               \
    T OV intel_sub_group_block_read##F(const global T *p);                                                             \
    T##2 OV intel_sub_group_block_read##F##2(const global T *p);                                                       \
    T##4 OV intel_sub_group_block_read##F##4(const global T *p);                                                       \
    T##8 OV intel_sub_group_block_read##F##8(const global T *p);                                                       \
    void OV intel_sub_group_block_write##F(global T *p, T data);                                                       \
    void OV intel_sub_group_block_write##F##2(global T *p, T##2 data);                                                 \
    void OV intel_sub_group_block_write##F##4(global T *p, T##4 data);                                                 \
    void OV intel_sub_group_block_write##F##8(global T *p, T##8 data);                                                 \
    T OV intel_sub_group_block_read##F(read_only image2d_t image, int2 byte_coord);                                    \
    T##2 OV intel_sub_group_block_read##F##2(read_only image2d_t image, int2 byte_coord);                              \
    T##4 OV intel_sub_group_block_read##F##4(read_only image2d_t image, int2 byte_coord);                              \
    T##8 OV intel_sub_group_block_read##F##8(read_only image2d_t image, int2 byte_coord);                              \
    void OV intel_sub_group_block_write##F(write_only image2d_t image, int2 byte_coord, T data);                       \
    void OV intel_sub_group_block_write##F##2(write_only image2d_t image, int2 byte_coord, T##2 data);                 \
    void OV intel_sub_group_block_write##F##4(write_only image2d_t image, int2 byte_coord, T##4 data);                 \
    void OV intel_sub_group_block_write##F##8(write_only image2d_t image, int2 byte_coord, T##8 data);

ZC_DECLARE(uint, )
ZC_DECLARE(uchar, _uc)
ZC_DECLARE(ushort, _us)
ZC_DECLARE(ulong, _ul)

/* The sub-group's index in a one-dimensional launch. */
static size_t zc_sub_group(void)
{
    return get_group_id(0) * get_num_sub_groups() + get_sub_group_id();
}

/* Stores a work-item's 1 + 2 + 4 + 8 values at got[item .. item + 15). */
#define ZC_STORE(got, item, v1, v2, v4, v8)                                                                            \
    do {                                                                                                               \
        (got)[item] = v1;                                                                                              \
        vstore2(v2, 0, (got) + (item) + 1);                                                                            \
        vstore4(v4, 0, (got) + (item) + 3);                                                                            \
        vstore8(v8, 0, (got) + (item) + 7);                                                                            \
    } while (0)

/* Buffers: sub-group g reads blocks of 1, 2, 4 and 8 elements per work-item from its 15 x S elements of `in` (at
 * 15 x S x g, S the sub-group size): one block after the other, at S x (0, 1, 3, 7). Each work-item stores what it
 * got in `got`, and the sub-group writes the blocks back to the same places of `out`. */
#define ZC_BUFFER_KERNEL(T, F, NAME, ATTRIBUTE)                                                                        \
    kernel ATTRIBUTE void NAME(global const T *in, global T *got, global T *out)                                       \
    {                                                                                                                  \
        size_t size = get_max_sub_group_size(), base = zc_sub_group() * 15 * size, item = get_global_id(0) * 15;       \
        T v1 = intel_sub_group_block_read##F(in + base);                                                               \
        T##2 v2 = intel_sub_group_block_read##F##2(in + base + size);                                                  \
        T##4 v4 = intel_sub_group_block_read##F##4(in + base + 3 * size);                                              \
        T##8 v8 = intel_sub_group_block_read##F##8(in + base + 7 * size);                                              \
        ZC_STORE(got, item, v1, v2, v4, v8);                                                                           \
        intel_sub_group_block_write##F(out + base, v1);                                                                \
        intel_sub_group_block_write##F##2(out + base + size, v2);                                                      \
        intel_sub_group_block_write##F##4(out + base + 3 * size, v4);                                                  \
        intel_sub_group_block_write##F##8(out + base + 7 * size, v8);                                                  \
    }

ZC_BUFFER_KERNEL(uint, , block_buffer_ui, )
ZC_BUFFER_KERNEL(uchar, _uc, block_buffer_uc, )
ZC_BUFFER_KERNEL(ushort, _us, block_buffer_us, )
ZC_BUFFER_KERNEL(ulong, _ul, block_buffer_ul, )
/* The same with sub-groups of 16, for devices that have them. */
ZC_BUFFER_KERNEL(uint, , block_buffer_ui_16, __attribute__((intel_reqd_sub_group_size(16))))

/* Images: sub-group g reads blocks of 1, 2, 4 and 8 rows (rows 0, 1-2, 3-6 and 7-14) starting x0 + g x S x sizeof(T)
 * bytes into the rows, each work-item sizeof(T) bytes of each row, and stores what it got in `got`. */
#define ZC_IMAGE_READ_KERNEL(T, F, NAME)                                                                               \
    kernel void NAME(read_only image2d_t image, global T *got, int x0)                                                 \
    {                                                                                                                  \
        int x = x0 + (int)(zc_sub_group() * get_max_sub_group_size() * sizeof(T));                                     \
        T v1 = intel_sub_group_block_read##F(image, (int2)(x, 0));                                                     \
        T##2 v2 = intel_sub_group_block_read##F##2(image, (int2)(x, 1));                                               \
        T##4 v4 = intel_sub_group_block_read##F##4(image, (int2)(x, 3));                                               \
        T##8 v8 = intel_sub_group_block_read##F##8(image, (int2)(x, 7));                                               \
        ZC_STORE(got, get_global_id(0) * 15, v1, v2, v4, v8);                                                          \
    }

/* And writes the work-item's 15 values of `data` to the same places (x0 a multiple of 4, as writes need). */
#define ZC_IMAGE_WRITE_KERNEL(T, F, NAME)                                                                              \
    kernel void NAME(write_only image2d_t image, global const T *data, int x0)                                         \
    {                                                                                                                  \
        int x = x0 + (int)(zc_sub_group() * get_max_sub_group_size() * sizeof(T));                                     \
        size_t item = get_global_id(0) * 15;                                                                           \
        intel_sub_group_block_write##F(image, (int2)(x, 0), data[item]);                                               \
        intel_sub_group_block_write##F##2(image, (int2)(x, 1), vload2(0, data + item + 1));                            \
        intel_sub_group_block_write##F##4(image, (int2)(x, 3), vload4(0, data + item + 3));                            \
        intel_sub_group_block_write##F##8(image, (int2)(x, 7), vload8(0, data + item + 7));                            \
    }

ZC_IMAGE_READ_KERNEL(uint, , block_image_read_ui)
ZC_IMAGE_READ_KERNEL(uchar, _uc, block_image_read_uc)
ZC_IMAGE_READ_KERNEL(ushort, _us, block_image_read_us)
ZC_IMAGE_READ_KERNEL(ulong, _ul, block_image_read_ul)
ZC_IMAGE_WRITE_KERNEL(uint, , block_image_write_ui)
ZC_IMAGE_WRITE_KERNEL(uchar, _uc, block_image_write_uc)
ZC_IMAGE_WRITE_KERNEL(ushort, _us, block_image_write_us)
ZC_IMAGE_WRITE_KERNEL(ulong, _ul, block_image_write_ul)
