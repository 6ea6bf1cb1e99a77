/* clGetDeviceInfo: the OpenCL 1.2 queries and 3.0's, answered from the Level Zero properties of the device. What the
 * devices do not offer (images, SVM, pipes, device-side enqueue, generic address space) answers as the specification
 * says for a device without the optional feature (docs/opencl.md). */
#include "cl/zf_cl.h"
#include "zfcl_generated.h"

#include <string.h>

static const char *const zfcl_ext_names[] = {"cl_khr_byte_addressable_store",
                                             "cl_khr_global_int32_base_atomics",
                                             "cl_khr_global_int32_extended_atomics",
                                             "cl_khr_local_int32_base_atomics",
                                             "cl_khr_local_int32_extended_atomics",
                                             "cl_khr_il_program",
                                             "cl_khr_device_uuid",
                                             "cl_khr_icd",
                                             "cl_intel_unified_shared_memory",
                                             "cl_khr_3d_image_writes", /* every format is writable in 3D images */
                                             "cl_khr_int64_base_atomics",
                                             "cl_khr_int64_extended_atomics",
                                             "cl_khr_fp64"};

static bool zfcl_has_fp64(cl_device_id d) {
    return (d->module.flags & ZE_DEVICE_MODULE_FLAG_FP64) != 0;
}

static bool zfcl_has_int64_atomics(cl_device_id d) {
    return (d->module.flags & ZE_DEVICE_MODULE_FLAG_INT64_ATOMICS) != 0;
}

#define ZFCL_FIXED_EXTS 10 /* the names every device offers, before the int64 atomics and fp64 */

static size_t zfcl_num_exts(cl_device_id d) {
    size_t n = ZFCL_FIXED_EXTS;
    if (zfcl_has_int64_atomics(d))
        n += 2;
    if (zfcl_has_fp64(d))
        n += 1;
    return n;
}

static const char *zfcl_ext_name(cl_device_id d, size_t i) {
    if (i >= ZFCL_FIXED_EXTS && !zfcl_has_int64_atomics(d))
        i += 2;
    return zfcl_ext_names[i];
}

static cl_int zfcl_extensions(cl_device_id d, size_t size, void *value, size_t *size_ret) {
    char text[512] = "";
    for (size_t i = 0; i < zfcl_num_exts(d); i++) {
        strcat(text, zfcl_ext_name(d, i));
        strcat(text, " ");
    }
    return zfcl_info_str(size, value, size_ret, text);
}

static cl_int zfcl_extensions_versioned(cl_device_id d, size_t size, void *value, size_t *size_ret) {
    cl_name_version v[16];
    memset(v, 0, sizeof v);
    size_t n = zfcl_num_exts(d);
    for (size_t i = 0; i < n; i++) {
        v[i].version = CL_MAKE_VERSION(1, 0, 0);
        strncpy(v[i].name, zfcl_ext_name(d, i), CL_NAME_VERSION_MAX_NAME_SIZE - 1);
    }
    return zfcl_info(size, value, size_ret, v, n * sizeof v[0]);
}

static cl_int zfcl_c_versions(cl_device_id d, size_t size, void *value, size_t *size_ret) {
    (void)d;
    static const cl_name_version v[] = {{CL_MAKE_VERSION(1, 0, 0), "OpenCL C"},
                                        {CL_MAKE_VERSION(1, 1, 0), "OpenCL C"},
                                        {CL_MAKE_VERSION(1, 2, 0), "OpenCL C"},
                                        {CL_MAKE_VERSION(3, 0, 0), "OpenCL C"}};
    return zfcl_info(size, value, size_ret, v, sizeof v);
}

static cl_int zfcl_c_features(cl_device_id d, size_t size, void *value, size_t *size_ret) {
    cl_name_version v[4] = {{CL_MAKE_VERSION(3, 0, 0), "__opencl_c_int64"},
                            {CL_MAKE_VERSION(3, 0, 0), "__opencl_c_images"},
                            {CL_MAKE_VERSION(3, 0, 0), "__opencl_c_3d_image_writes"},
                            {CL_MAKE_VERSION(3, 0, 0), "__opencl_c_fp64"}};
    return zfcl_info(size, value, size_ret, v, (zfcl_has_fp64(d) ? 4 : 3) * sizeof v[0]);
}

static cl_int zfcl_ils(size_t size, void *value, size_t *size_ret) {
    static const cl_name_version v[] = {{CL_MAKE_VERSION(1, 0, 0), "SPIR-V"},
                                        {CL_MAKE_VERSION(1, 1, 0), "SPIR-V"},
                                        {CL_MAKE_VERSION(1, 2, 0), "SPIR-V"}};
    return zfcl_info(size, value, size_ret, v, sizeof v);
}

static cl_device_fp_config zfcl_fp(ze_device_fp_flags_t f) {
    cl_device_fp_config c = 0;
    c |= (f & ZE_DEVICE_FP_FLAG_DENORM) ? CL_FP_DENORM : 0;
    c |= (f & ZE_DEVICE_FP_FLAG_INF_NAN) ? CL_FP_INF_NAN : 0;
    c |= (f & ZE_DEVICE_FP_FLAG_ROUND_TO_NEAREST) ? CL_FP_ROUND_TO_NEAREST : 0;
    c |= (f & ZE_DEVICE_FP_FLAG_ROUND_TO_ZERO) ? CL_FP_ROUND_TO_ZERO : 0;
    c |= (f & ZE_DEVICE_FP_FLAG_ROUND_TO_INF) ? CL_FP_ROUND_TO_INF : 0;
    c |= (f & ZE_DEVICE_FP_FLAG_FMA) ? CL_FP_FMA : 0;
    c |= (f & ZE_DEVICE_FP_FLAG_ROUNDED_DIVIDE_SQRT) ? CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT : 0;
    c |= (f & ZE_DEVICE_FP_FLAG_SOFT_FLOAT) ? CL_FP_SOFT_FLOAT : 0;
    return c;
}

static cl_uint zfcl_compute_units(cl_device_id d) {
    return d->props.numSlices * d->props.numSubslicesPerSlice * d->props.numEUsPerSubslice;
}

cl_uint zfcl_device_subgroup_min(cl_device_id d) {
    cl_uint min = 0;
    for (uint32_t i = 0; i < d->compute.numSubGroupSizes; i++)
        if (min == 0 || d->compute.subGroupSizes[i] < min)
            min = d->compute.subGroupSizes[i];
    return min != 0 ? min : 1;
}

#define ZFCL_VALUE(type, expr)                                                                                         \
    do {                                                                                                               \
        type v_ = (type)(expr);                                                                                        \
        return zfcl_info(size, value, size_ret, &v_, sizeof v_);                                                       \
    } while (0)

/* The answers that are the same for every device, in the query's type: a cl_uint (cl_bool, the enumerations) or a
 * 64-bit value (cl_ulong, size_t and the bit fields). */
typedef struct zfcl_fixed {
    cl_device_info name;
    bool wide; /* 64 bits, else 32 */
    cl_ulong value;
} zfcl_fixed;

_Static_assert(sizeof(size_t) == sizeof(cl_ulong) && sizeof(cl_bitfield) == sizeof(cl_ulong) &&
                   sizeof(cl_bool) == sizeof(cl_uint) && sizeof(cl_version) == sizeof(cl_uint),
               "the fixed answers are 32 or 64 bits wide");

#define ZFCL_U32(name, value)                                                                                          \
    { name, false, (value) }
#define ZFCL_U64(name, value)                                                                                          \
    { name, true, (value) }

static const zfcl_fixed zfcl_device_fixed[] = {
    ZFCL_U32(CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS, 3),
    ZFCL_U32(CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR, 1),
    ZFCL_U32(CL_DEVICE_PREFERRED_VECTOR_WIDTH_SHORT, 1),
    ZFCL_U32(CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT, 1),
    ZFCL_U32(CL_DEVICE_PREFERRED_VECTOR_WIDTH_LONG, 1),
    ZFCL_U32(CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT, 1),
    ZFCL_U32(CL_DEVICE_NATIVE_VECTOR_WIDTH_CHAR, 1),
    ZFCL_U32(CL_DEVICE_NATIVE_VECTOR_WIDTH_SHORT, 1),
    ZFCL_U32(CL_DEVICE_NATIVE_VECTOR_WIDTH_INT, 1),
    ZFCL_U32(CL_DEVICE_NATIVE_VECTOR_WIDTH_LONG, 1),
    ZFCL_U32(CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT, 1),
    ZFCL_U32(CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF, 0), /* cl_khr_fp16 is not offered */
    ZFCL_U32(CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF, 0),
    ZFCL_U32(CL_DEVICE_ADDRESS_BITS, 64),
    ZFCL_U32(CL_DEVICE_MEM_BASE_ADDR_ALIGN, 1024), /* bits: 128-byte aligned allocations */
    ZFCL_U32(CL_DEVICE_MIN_DATA_TYPE_ALIGN_SIZE, 128),
    ZFCL_U32(CL_DEVICE_GLOBAL_MEM_CACHE_TYPE, CL_READ_WRITE_CACHE),
    ZFCL_U32(CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE, 64),
    ZFCL_U64(CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, 0),
    ZFCL_U64(CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE, 65536),
    ZFCL_U32(CL_DEVICE_MAX_CONSTANT_ARGS, 8),
    ZFCL_U32(CL_DEVICE_LOCAL_MEM_TYPE, CL_LOCAL),
    ZFCL_U32(CL_DEVICE_ENDIAN_LITTLE, CL_TRUE),
    ZFCL_U32(CL_DEVICE_AVAILABLE, CL_TRUE),
    ZFCL_U32(CL_DEVICE_COMPILER_AVAILABLE, CL_TRUE),
    ZFCL_U32(CL_DEVICE_LINKER_AVAILABLE, CL_TRUE),
    ZFCL_U32(CL_DEVICE_PREFERRED_INTEROP_USER_SYNC, CL_TRUE),
    ZFCL_U64(CL_DEVICE_EXECUTION_CAPABILITIES, CL_EXEC_KERNEL),
    /* == CL_DEVICE_QUEUE_ON_HOST_PROPERTIES */
    ZFCL_U64(CL_DEVICE_QUEUE_PROPERTIES, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE),
    ZFCL_U32(CL_DEVICE_REFERENCE_COUNT, 1),
    ZFCL_U64(CL_DEVICE_PRINTF_BUFFER_SIZE, 4u << 20),
    ZFCL_U32(CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS, CL_FALSE),
    ZFCL_U32(CL_DEVICE_NUMERIC_VERSION, CL_MAKE_VERSION(3, 0, 0)),
    /* the minimum of OpenCL 3.0 */
    ZFCL_U64(CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES, CL_DEVICE_ATOMIC_ORDER_RELAXED | CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP),
    ZFCL_U64(CL_DEVICE_ATOMIC_FENCE_CAPABILITIES,
             CL_DEVICE_ATOMIC_ORDER_RELAXED | CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP | CL_DEVICE_ATOMIC_ORDER_ACQ_REL),
    /* Level Zero shared allocations: host and device see one memory */
    ZFCL_U64(CL_DEVICE_SVM_CAPABILITIES, CL_DEVICE_SVM_COARSE_GRAIN_BUFFER | CL_DEVICE_SVM_FINE_GRAIN_BUFFER),
    ZFCL_U64(CL_DEVICE_HOST_MEM_CAPABILITIES_INTEL,
             CL_UNIFIED_SHARED_MEMORY_ACCESS_INTEL | CL_UNIFIED_SHARED_MEMORY_ATOMIC_ACCESS_INTEL),
    ZFCL_U64(CL_DEVICE_DEVICE_MEM_CAPABILITIES_INTEL,
             CL_UNIFIED_SHARED_MEMORY_ACCESS_INTEL | CL_UNIFIED_SHARED_MEMORY_ATOMIC_ACCESS_INTEL),
    ZFCL_U64(CL_DEVICE_SINGLE_DEVICE_SHARED_MEM_CAPABILITIES_INTEL,
             CL_UNIFIED_SHARED_MEMORY_ACCESS_INTEL | CL_UNIFIED_SHARED_MEMORY_ATOMIC_ACCESS_INTEL),
    ZFCL_U64(CL_DEVICE_CROSS_DEVICE_SHARED_MEM_CAPABILITIES_INTEL, CL_UNIFIED_SHARED_MEMORY_ACCESS_INTEL),
    ZFCL_U64(CL_DEVICE_SHARED_SYSTEM_MEM_CAPABILITIES_INTEL, 0), /* malloc memory is not reachable */
    ZFCL_U32(CL_DEVICE_LUID_VALID_KHR, CL_FALSE),                /* a Windows notion */
    ZFCL_U32(CL_DEVICE_NODE_MASK_KHR, 0),
    /* Optional features the devices do not offer: SVM atomics, pipes, device-side queues, generic address space,
     * read-write images, 2D images from buffers, half precision, program-scope global variables. */
    ZFCL_U32(CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT, CL_FALSE),
    ZFCL_U32(CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT, CL_FALSE),
    ZFCL_U32(CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT, CL_FALSE),
    ZFCL_U32(CL_DEVICE_PIPE_SUPPORT, CL_FALSE),
    ZFCL_U32(CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS, 0),
    ZFCL_U32(CL_DEVICE_IMAGE_PITCH_ALIGNMENT, 0),
    ZFCL_U32(CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT, 0),
    ZFCL_U32(CL_DEVICE_MAX_PIPE_ARGS, 0),
    ZFCL_U32(CL_DEVICE_PIPE_MAX_ACTIVE_RESERVATIONS, 0),
    ZFCL_U32(CL_DEVICE_PIPE_MAX_PACKET_SIZE, 0),
    ZFCL_U32(CL_DEVICE_QUEUE_ON_DEVICE_PREFERRED_SIZE, 0),
    ZFCL_U32(CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE, 0),
    ZFCL_U32(CL_DEVICE_MAX_ON_DEVICE_QUEUES, 0),
    ZFCL_U32(CL_DEVICE_MAX_ON_DEVICE_EVENTS, 0),
    ZFCL_U32(CL_DEVICE_PREFERRED_PLATFORM_ATOMIC_ALIGNMENT, 0),
    ZFCL_U32(CL_DEVICE_PREFERRED_GLOBAL_ATOMIC_ALIGNMENT, 0),
    ZFCL_U32(CL_DEVICE_PREFERRED_LOCAL_ATOMIC_ALIGNMENT, 0),
    ZFCL_U64(CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE, 0),
    ZFCL_U64(CL_DEVICE_GLOBAL_VARIABLE_PREFERRED_TOTAL_SIZE, 0),
    ZFCL_U64(CL_DEVICE_QUEUE_ON_DEVICE_PROPERTIES, 0),
    ZFCL_U64(CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES, 0),
    ZFCL_U64(CL_DEVICE_HALF_FP_CONFIG, 0),
};

typedef struct zfcl_text {
    cl_device_info name;
    const char *text;
} zfcl_text;

static const zfcl_text zfcl_device_texts[] = {
    {CL_DEVICE_VENDOR, "zefake"},
    {CL_DRIVER_VERSION, "1.0"},
    {CL_DEVICE_PROFILE, "FULL_PROFILE"},
    {CL_DEVICE_VERSION, "OpenCL 3.0 zefake"},
    {CL_DEVICE_OPENCL_C_VERSION, "OpenCL C 1.2 "},
    {CL_DEVICE_IL_VERSION, "SPIR-V_1.0 SPIR-V_1.1 SPIR-V_1.2"},
    {CL_DEVICE_LATEST_CONFORMANCE_VERSION_PASSED, "v0000-01-01-00"},
    {CL_DEVICE_BUILT_IN_KERNELS, ""}, /* none */
};

static cl_int zfcl_device_fixed_answer(cl_device_info name, size_t size, void *value, size_t *size_ret,
                                       bool *answered) {
    for (size_t i = 0; i < sizeof zfcl_device_fixed / sizeof zfcl_device_fixed[0]; i++) {
        const zfcl_fixed *f = &zfcl_device_fixed[i];
        if (f->name != name)
            continue;
        *answered = true;
        if (f->wide)
            return zfcl_info(size, value, size_ret, &f->value, sizeof f->value);
        cl_uint narrow = (cl_uint)f->value;
        return zfcl_info(size, value, size_ret, &narrow, sizeof narrow);
    }
    *answered = false;
    return CL_INVALID_VALUE;
}

/* The queries whose answer is a number or bit field of one of the device's properties. */
static cl_int zfcl_device_numbers(cl_device_id d, cl_device_info name, size_t size, void *value, size_t *size_ret,
                                  bool *answered) {
    *answered = true;
    const bool fp64 = zfcl_has_fp64(d);
    switch (name) {
    case CL_DEVICE_TYPE:
        ZFCL_VALUE(cl_device_type, zfcl_device_type(d));
    case CL_DEVICE_VENDOR_ID:
        ZFCL_VALUE(cl_uint, d->props.vendorId);
    case CL_DEVICE_MAX_COMPUTE_UNITS:
        ZFCL_VALUE(cl_uint, zfcl_compute_units(d));
    case CL_DEVICE_MAX_WORK_GROUP_SIZE:
        ZFCL_VALUE(size_t, d->compute.maxTotalGroupSize);
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE:
    case CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE:
        ZFCL_VALUE(cl_uint, fp64 ? 1 : 0);
    case CL_DEVICE_MAX_CLOCK_FREQUENCY:
        ZFCL_VALUE(cl_uint, d->props.coreClockRate);
    case CL_DEVICE_MAX_MEM_ALLOC_SIZE:
        ZFCL_VALUE(cl_ulong, d->props.maxMemAllocSize);
    case CL_DEVICE_MAX_PARAMETER_SIZE:
        ZFCL_VALUE(size_t, d->module.maxArgumentsSize);
    case CL_DEVICE_SINGLE_FP_CONFIG:
        ZFCL_VALUE(cl_device_fp_config, zfcl_fp(d->module.fp32flags) | CL_FP_ROUND_TO_NEAREST | CL_FP_INF_NAN);
    case CL_DEVICE_DOUBLE_FP_CONFIG:
        ZFCL_VALUE(cl_device_fp_config, fp64 ? zfcl_fp(d->module.fp64flags) : 0);
    case CL_DEVICE_GLOBAL_MEM_SIZE:
        ZFCL_VALUE(cl_ulong, d->global_mem);
    case CL_DEVICE_LOCAL_MEM_SIZE:
        ZFCL_VALUE(cl_ulong, d->compute.maxSharedLocalMemory);
    case CL_DEVICE_ERROR_CORRECTION_SUPPORT:
        ZFCL_VALUE(cl_bool, (d->props.flags & ZE_DEVICE_PROPERTY_FLAG_ECC) != 0);
    case CL_DEVICE_HOST_UNIFIED_MEMORY:
        ZFCL_VALUE(cl_bool, (d->props.flags & ZE_DEVICE_PROPERTY_FLAG_INTEGRATED) != 0);
    case CL_DEVICE_PROFILING_TIMER_RESOLUTION:
        ZFCL_VALUE(size_t, zfcl_device_ns(d, 1) > 0 ? zfcl_device_ns(d, 1) : 1);
    case CL_DEVICE_PLATFORM:
        ZFCL_VALUE(cl_platform_id, &zfcl_platform);
    case CL_DEVICE_PARENT_DEVICE:
        ZFCL_VALUE(cl_device_id, d->parent);
    case CL_DEVICE_PARTITION_MAX_SUB_DEVICES:
        ZFCL_VALUE(cl_uint, d->num_subs);
    case CL_DEVICE_PARTITION_AFFINITY_DOMAIN:
        ZFCL_VALUE(cl_device_affinity_domain,
                   d->num_subs > 0 ? CL_DEVICE_AFFINITY_DOMAIN_NUMA | CL_DEVICE_AFFINITY_DOMAIN_NEXT_PARTITIONABLE : 0);
    case CL_DEVICE_MAX_NUM_SUB_GROUPS:
        ZFCL_VALUE(cl_uint, d->compute.maxTotalGroupSize / zfcl_device_subgroup_min(d));
    case CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE:
        ZFCL_VALUE(size_t, zfcl_device_subgroup_min(d));
    default:
        *answered = false;
        return CL_INVALID_VALUE;
    }
}

/* Images: the Level Zero image limits of the device. */
static cl_int zfcl_device_images(cl_device_id d, cl_device_info name, size_t size, void *value, size_t *size_ret,
                                 bool *answered) {
    ze_device_image_properties_t p = {.stype = ZE_STRUCTURE_TYPE_DEVICE_IMAGE_PROPERTIES};
    zfi_zeDeviceGetImageProperties(d->ze, &p);
    *answered = true;
    switch (name) {
    case CL_DEVICE_IMAGE_SUPPORT:
        ZFCL_VALUE(cl_bool, p.maxImageDims2D > 0);
    case CL_DEVICE_MAX_READ_IMAGE_ARGS:
        ZFCL_VALUE(cl_uint, p.maxReadImageArgs);
    case CL_DEVICE_MAX_WRITE_IMAGE_ARGS:
        ZFCL_VALUE(cl_uint, p.maxWriteImageArgs);
    case CL_DEVICE_MAX_SAMPLERS:
        ZFCL_VALUE(cl_uint, p.maxSamplers);
    case CL_DEVICE_IMAGE2D_MAX_WIDTH:
    case CL_DEVICE_IMAGE2D_MAX_HEIGHT:
        ZFCL_VALUE(size_t, p.maxImageDims2D);
    case CL_DEVICE_IMAGE3D_MAX_WIDTH:
    case CL_DEVICE_IMAGE3D_MAX_HEIGHT:
    case CL_DEVICE_IMAGE3D_MAX_DEPTH:
        ZFCL_VALUE(size_t, p.maxImageDims3D);
    case CL_DEVICE_IMAGE_MAX_ARRAY_SIZE:
        ZFCL_VALUE(size_t, p.maxImageArraySlices);
    case CL_DEVICE_IMAGE_MAX_BUFFER_SIZE:
        ZFCL_VALUE(size_t, zfcl_image_max_buffer(d));
    default:
        *answered = false;
        return CL_INVALID_VALUE;
    }
}

static cl_int zfcl_device_arrays(cl_device_id d, cl_device_info name, size_t size, void *value, size_t *size_ret,
                                 bool *answered) {
    *answered = true;
    switch (name) {
    case CL_DEVICE_MAX_WORK_ITEM_SIZES: {
        size_t v[3] = {d->compute.maxGroupSizeX, d->compute.maxGroupSizeY, d->compute.maxGroupSizeZ};
        return zfcl_info(size, value, size_ret, v, sizeof v);
    }
    case CL_DEVICE_PARTITION_PROPERTIES: {
        /* the supported types, or a single 0 when the device cannot be partitioned */
        cl_device_partition_property v[1] = {d->num_subs > 0 ? CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN : 0};
        return zfcl_info(size, value, size_ret, v, sizeof v);
    }
    case CL_DEVICE_PARTITION_TYPE: {
        cl_device_partition_property v[3] = {CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN, CL_DEVICE_AFFINITY_DOMAIN_NUMA, 0};
        return zfcl_info(size, value, size_ret, v, d->parent != NULL ? sizeof v : 0);
    }
    case CL_DEVICE_UUID_KHR:
        return zfcl_info(size, value, size_ret, d->props.uuid.id, CL_UUID_SIZE_KHR);
    case CL_DRIVER_UUID_KHR: {
        cl_uchar v[CL_UUID_SIZE_KHR] = {'z', 'e', 'f', 'a', 'k', 'e'};
        return zfcl_info(size, value, size_ret, v, sizeof v);
    }
    case CL_DEVICE_LUID_KHR: {
        cl_uchar v[CL_LUID_SIZE_KHR] = {0}; /* not valid (CL_DEVICE_LUID_VALID_KHR): a Windows notion */
        return zfcl_info(size, value, size_ret, v, sizeof v);
    }
    case CL_DEVICE_EXTENSIONS:
        return zfcl_extensions(d, size, value, size_ret);
    case CL_DEVICE_EXTENSIONS_WITH_VERSION:
        return zfcl_extensions_versioned(d, size, value, size_ret);
    case CL_DEVICE_OPENCL_C_ALL_VERSIONS:
        return zfcl_c_versions(d, size, value, size_ret);
    case CL_DEVICE_OPENCL_C_FEATURES:
        return zfcl_c_features(d, size, value, size_ret);
    case CL_DEVICE_ILS_WITH_VERSION:
        return zfcl_ils(size, value, size_ret);
    case CL_DEVICE_BUILT_IN_KERNELS_WITH_VERSION: /* none */
        return zfcl_info(size, value, size_ret, NULL, 0);
    default:
        *answered = false;
        return CL_INVALID_VALUE;
    }
}

static cl_int zfcl_device_strings(cl_device_id d, cl_device_info name, size_t size, void *value, size_t *size_ret,
                                  bool *answered) {
    *answered = true;
    if (name == CL_DEVICE_NAME)
        return zfcl_info_str(size, value, size_ret, d->props.name);
    for (size_t i = 0; i < sizeof zfcl_device_texts / sizeof zfcl_device_texts[0]; i++)
        if (zfcl_device_texts[i].name == name)
            return zfcl_info_str(size, value, size_ret, zfcl_device_texts[i].text);
    *answered = false;
    return CL_INVALID_VALUE;
}

cl_int CL_API_CALL zfcl_clGetDeviceInfo(cl_device_id device, cl_device_info name, size_t size, void *value,
                                        size_t *size_ret) {
    if (!zfcl_device_valid(device))
        return zfcl_fail(CL_INVALID_DEVICE, "device is no live device");
    bool answered = false;
    cl_int err = zfcl_device_fixed_answer(name, size, value, size_ret, &answered);
    if (!answered)
        err = zfcl_device_numbers(device, name, size, value, size_ret, &answered);
    if (!answered)
        err = zfcl_device_images(device, name, size, value, size_ret, &answered);
    if (!answered)
        err = zfcl_device_arrays(device, name, size, value, size_ret, &answered);
    if (!answered)
        err = zfcl_device_strings(device, name, size, value, size_ret, &answered);
    if (!answered)
        return zfcl_fail(CL_INVALID_VALUE, "param_name 0x%x is no device query", (unsigned)name);
    return err;
}
