/* The ICD entry (cl_khr_icd), the one platform and its devices. Entering through OpenCL initialises the core as zeInit
 * does (flags 0: every device), so a process using both APIs sees one driver and one set of devices; the devices of
 * the platform are the Level Zero root devices, their sub-devices the Level Zero sub-devices. */
#include "cl/zf_cl.h"
#include "core/zf_clock.h"
#include "zfcl_generated.h"

#include <stdlib.h>
#include <string.h>

#define ZFCL_PLATFORM_EXTENSIONS "cl_khr_icd cl_khr_il_program"
#define ZFCL_ICD_SUFFIX          "zefake"

struct _cl_platform_id zfcl_platform;
static pthread_once_t zfcl_once = PTHREAD_ONCE_INIT;
static cl_int zfcl_init_result = CL_SUCCESS;
static cl_uint zfcl_ndevices;
static struct _cl_device_id *zfcl_devices;

static uint32_t zfcl_compute_ordinal(ze_device_handle_t device) {
    uint32_t count = 0;
    zfi_zeDeviceGetCommandQueueGroupProperties(device, &count, NULL);
    ze_command_queue_group_properties_t groups[16];
    if (count > 16)
        count = 16;
    for (uint32_t i = 0; i < count; i++)
        groups[i] = (ze_command_queue_group_properties_t){.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_GROUP_PROPERTIES};
    zfi_zeDeviceGetCommandQueueGroupProperties(device, &count, groups);
    for (uint32_t i = 0; i < count; i++)
        if (groups[i].flags & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE)
            return i;
    return 0;
}

static uint64_t zfcl_memory_size(ze_device_handle_t device) {
    uint32_t count = 0;
    zfi_zeDeviceGetMemoryProperties(device, &count, NULL);
    ze_device_memory_properties_t mems[8];
    if (count > 8)
        count = 8;
    for (uint32_t i = 0; i < count; i++)
        mems[i] = (ze_device_memory_properties_t){.stype = ZE_STRUCTURE_TYPE_DEVICE_MEMORY_PROPERTIES};
    zfi_zeDeviceGetMemoryProperties(device, &count, mems);
    uint64_t total = 0;
    for (uint32_t i = 0; i < count; i++)
        total += mems[i].totalSize;
    return total;
}

static bool zfcl_device_setup(cl_device_id d, ze_device_handle_t ze, cl_device_id parent) {
    memset(d, 0, sizeof *d);
    d->ze = ze;
    d->parent = parent;
    d->props.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2; /* timerResolution in cycles per second */
    d->compute.stype = ZE_STRUCTURE_TYPE_DEVICE_COMPUTE_PROPERTIES;
    d->module.stype = ZE_STRUCTURE_TYPE_DEVICE_MODULE_PROPERTIES;
    if (zfi_zeDeviceGetProperties(ze, &d->props) != ZE_RESULT_SUCCESS ||
        zfi_zeDeviceGetComputeProperties(ze, &d->compute) != ZE_RESULT_SUCCESS ||
        zfi_zeDeviceGetModuleProperties(ze, &d->module) != ZE_RESULT_SUCCESS)
        return false;
    d->global_mem = zfcl_memory_size(ze);
    d->compute_ordinal = zfcl_compute_ordinal(ze);
    if (!zfcl_register(&d->obj, ZFCL_DEVICE))
        return false;
    uint32_t count = 0;
    zfi_zeDeviceGetSubDevices(ze, &count, NULL);
    if (count == 0)
        return true;
    ze_device_handle_t subs[64];
    if (count > 64)
        count = 64;
    zfi_zeDeviceGetSubDevices(ze, &count, subs);
    d->subs = calloc(count, sizeof *d->subs);
    if (d->subs == NULL)
        return false;
    d->num_subs = count;
    for (uint32_t i = 0; i < count; i++)
        if (!zfcl_device_setup(&d->subs[i], subs[i], d))
            return false;
    return true;
}

static ze_driver_handle_t zfcl_driver;

ze_driver_handle_t zfcl_ze_driver(void) {
    return zfcl_driver;
}

static cl_int zfcl_init_devices(void) {
    uint32_t count = 1;
    ze_driver_handle_t driver = NULL;
    if (zfi_zeDriverGet(&count, &driver) != ZE_RESULT_SUCCESS || count == 0)
        return CL_SUCCESS; /* no device of any type: the platform has none */
    zfcl_driver = driver;
    count = 0;
    zfi_zeDeviceGet(driver, &count, NULL);
    ze_device_handle_t handles[64];
    if (count > 64)
        count = 64;
    zfi_zeDeviceGet(driver, &count, handles);
    zfcl_devices = calloc(count > 0 ? count : 1, sizeof *zfcl_devices);
    if (zfcl_devices == NULL)
        return CL_OUT_OF_HOST_MEMORY;
    for (uint32_t i = 0; i < count; i++)
        if (!zfcl_device_setup(&zfcl_devices[i], handles[i], NULL))
            return CL_OUT_OF_HOST_MEMORY;
    zfcl_ndevices = count;
    return CL_SUCCESS;
}

static void zfcl_init_once(void) {
    ze_result_t result = zfi_zeInit(0);
    if (result != ZE_RESULT_SUCCESS) {
        zfcl_init_result = zfcl_fail(CL_PLATFORM_NOT_FOUND_KHR, "the core did not initialise (Level Zero result 0x%x)",
                                     (unsigned)result);
        return;
    }
    if (!zfcl_register(&zfcl_platform.obj, ZFCL_PLATFORM)) {
        zfcl_init_result = CL_OUT_OF_HOST_MEMORY;
        return;
    }
    zfcl_init_result = zfcl_init_devices();
}

cl_int zfcl_init(void) {
    pthread_once(&zfcl_once, zfcl_init_once);
    return zfcl_init_result;
}

cl_uint zfcl_num_devices(void) {
    return zfcl_ndevices;
}

cl_device_id zfcl_device(cl_uint index) {
    return &zfcl_devices[index];
}

bool zfcl_device_valid(cl_device_id device) {
    return zfcl_live(device, ZFCL_DEVICE);
}

cl_ulong zfcl_device_ns(cl_device_id device, uint64_t ticks) {
    uint64_t hz = device->props.timerResolution != 0 ? device->props.timerResolution : 1000000000u;
    return (cl_ulong)((unsigned __int128)ticks * 1000000000u / hz);
}

cl_ulong zfcl_device_now(cl_device_id device) {
    uint64_t host = 0, ticks = 0;
    zfi_zeDeviceGetGlobalTimestamps(device->ze, &host, &ticks);
    return zfcl_device_ns(device, ticks);
}

static bool zfcl_platform_valid(cl_platform_id platform) {
    return platform == NULL || platform == &zfcl_platform; /* NULL: the implementation's choice, the only one */
}

__attribute__((visibility("default"))) cl_int CL_API_CALL clIcdGetPlatformIDsKHR(cl_uint num_entries,
                                                                                 cl_platform_id *platforms,
                                                                                 cl_uint *num_platforms) {
    return zfcl_clGetPlatformIDs(num_entries, platforms, num_platforms);
}

cl_int CL_API_CALL zfcl_clGetPlatformIDs(cl_uint num_entries, cl_platform_id *platforms, cl_uint *num_platforms) {
    if ((num_entries == 0 && platforms != NULL) || (platforms == NULL && num_platforms == NULL))
        return zfcl_fail(CL_INVALID_VALUE, "num_entries is 0 with platforms, or both platforms and num_platforms are "
                                           "NULL");
    cl_int err = zfcl_init();
    if (err != CL_SUCCESS)
        return err;
    if (num_platforms != NULL)
        *num_platforms = 1;
    if (platforms != NULL)
        platforms[0] = &zfcl_platform;
    return CL_SUCCESS;
}

cl_int CL_API_CALL zfcl_clGetPlatformInfo(cl_platform_id platform, cl_platform_info name, size_t size, void *value,
                                          size_t *size_ret) {
    if (zfcl_init() != CL_SUCCESS || !zfcl_platform_valid(platform))
        return zfcl_fail(CL_INVALID_PLATFORM, "platform is not the zefake platform");
    static const cl_name_version exts[] = {{CL_MAKE_VERSION(1, 0, 0), "cl_khr_icd"},
                                           {CL_MAKE_VERSION(1, 0, 0), "cl_khr_il_program"}};
    cl_version version = CL_MAKE_VERSION(3, 0, 0);
    cl_ulong resolution = 1; /* clGetHostTimer: nanoseconds */
    switch (name) {
    case CL_PLATFORM_PROFILE:
        return zfcl_info_str(size, value, size_ret, "FULL_PROFILE");
    case CL_PLATFORM_VERSION:
        return zfcl_info_str(size, value, size_ret, "OpenCL 3.0 zefake");
    case CL_PLATFORM_NUMERIC_VERSION:
        return zfcl_info(size, value, size_ret, &version, sizeof version);
    case CL_PLATFORM_NAME:
        return zfcl_info_str(size, value, size_ret, "zefake");
    case CL_PLATFORM_VENDOR:
        return zfcl_info_str(size, value, size_ret, "zefake");
    case CL_PLATFORM_EXTENSIONS:
        return zfcl_info_str(size, value, size_ret, ZFCL_PLATFORM_EXTENSIONS);
    case CL_PLATFORM_EXTENSIONS_WITH_VERSION:
        return zfcl_info(size, value, size_ret, exts, sizeof exts);
    case CL_PLATFORM_ICD_SUFFIX_KHR:
        return zfcl_info_str(size, value, size_ret, ZFCL_ICD_SUFFIX);
    case CL_PLATFORM_HOST_TIMER_RESOLUTION:
        return zfcl_info(size, value, size_ret, &resolution, sizeof resolution);
    default:
        return zfcl_fail(CL_INVALID_VALUE, "param_name 0x%x is no platform query", (unsigned)name);
    }
}

cl_device_type zfcl_device_type(cl_device_id d) {
    switch (d->props.type) {
    case ZE_DEVICE_TYPE_GPU:
        return CL_DEVICE_TYPE_GPU;
    case ZE_DEVICE_TYPE_CPU:
        return CL_DEVICE_TYPE_CPU;
    default:
        return CL_DEVICE_TYPE_ACCELERATOR;
    }
}

static bool zfcl_type_matches(cl_device_id d, cl_device_type type, cl_uint index) {
    if (type == CL_DEVICE_TYPE_ALL)
        return true;
    if (type & CL_DEVICE_TYPE_DEFAULT && index == 0)
        return true;
    return (zfcl_device_type(d) & type) != 0;
}

cl_int CL_API_CALL zfcl_clGetDeviceIDs(cl_platform_id platform, cl_device_type type, cl_uint num_entries,
                                       cl_device_id *devices, cl_uint *num_devices) {
    if (zfcl_init() != CL_SUCCESS || !zfcl_platform_valid(platform))
        return zfcl_fail(CL_INVALID_PLATFORM, "platform is not the zefake platform");
    const cl_device_type known = CL_DEVICE_TYPE_DEFAULT | CL_DEVICE_TYPE_CPU | CL_DEVICE_TYPE_GPU |
                                 CL_DEVICE_TYPE_ACCELERATOR | CL_DEVICE_TYPE_CUSTOM;
    if (type != CL_DEVICE_TYPE_ALL && (type == 0 || (type & ~known) != 0))
        return zfcl_fail(CL_INVALID_DEVICE_TYPE, "device_type 0x%llx is no valid type", (unsigned long long)type);
    if ((num_entries == 0 && devices != NULL) || (devices == NULL && num_devices == NULL))
        return zfcl_fail(CL_INVALID_VALUE, "num_entries is 0 with devices, or devices and num_devices are NULL");
    cl_uint found = 0;
    for (cl_uint i = 0; i < zfcl_ndevices; i++) {
        if (!zfcl_type_matches(&zfcl_devices[i], type, i))
            continue;
        if (devices != NULL && found < num_entries)
            devices[found] = &zfcl_devices[i];
        found++;
    }
    if (num_devices != NULL)
        *num_devices = found;
    return found == 0 ? zfcl_fail(CL_DEVICE_NOT_FOUND, "no device of type 0x%llx", (unsigned long long)type)
                      : CL_SUCCESS;
}

/* Root devices and the Level Zero sub-devices live as long as the platform: retain and release only check. */
cl_int CL_API_CALL zfcl_clRetainDevice(cl_device_id device) {
    return zfcl_device_valid(device) ? CL_SUCCESS : zfcl_fail(CL_INVALID_DEVICE, "device is no live device");
}

cl_int CL_API_CALL zfcl_clReleaseDevice(cl_device_id device) {
    return zfcl_device_valid(device) ? CL_SUCCESS : zfcl_fail(CL_INVALID_DEVICE, "device is no live device");
}

/* Partitioning by affinity domain (NUMA, or the next partitionable level) gives the device's Level Zero sub-devices. */
cl_int CL_API_CALL zfcl_clCreateSubDevices(cl_device_id device, const cl_device_partition_property *props,
                                           cl_uint num_devices, cl_device_id *out, cl_uint *num_ret) {
    if (!zfcl_device_valid(device))
        return zfcl_fail(CL_INVALID_DEVICE, "in_device is no live device");
    if (props == NULL || props[0] != CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN ||
        (props[1] != CL_DEVICE_AFFINITY_DOMAIN_NUMA && props[1] != CL_DEVICE_AFFINITY_DOMAIN_NEXT_PARTITIONABLE) ||
        props[2] != 0)
        return zfcl_fail(CL_INVALID_VALUE, "only {CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN, NUMA or NEXT_PARTITIONABLE, "
                                           "0} is supported");
    if (device->num_subs == 0)
        return zfcl_fail(CL_DEVICE_PARTITION_FAILED, "the device has no sub-devices");
    if (out != NULL && num_devices < device->num_subs)
        return zfcl_fail(CL_INVALID_VALUE, "num_devices %u is less than the %u sub-devices", num_devices,
                         device->num_subs);
    for (cl_uint i = 0; out != NULL && i < device->num_subs; i++)
        out[i] = &device->subs[i];
    if (num_ret != NULL)
        *num_ret = device->num_subs;
    return CL_SUCCESS;
}

/* The exported lookup (cl_khr_icd): Debian's ocl-icd 2.3 asks it (or dlsym) for clIcdGetPlatformIDsKHR and for
 * clGetPlatformInfo and skips an ICD without both, so clGetPlatformInfo is answered here instead of being exported.
 * The platform's extension functions are those of cl_intel_unified_shared_memory (cl_svm.c). */
static void *zfcl_extension_address(const char *name) {
    if (name != NULL && strcmp(name, "clIcdGetPlatformIDsKHR") == 0)
        return (void *)(uintptr_t)clIcdGetPlatformIDsKHR;
    if (name != NULL && strcmp(name, "clGetPlatformInfo") == 0)
        return (void *)(uintptr_t)zfcl_clGetPlatformInfo;
    return zfcl_usm_function(name); /* cl_intel_unified_shared_memory */
}

__attribute__((visibility("default"))) void *CL_API_CALL clGetExtensionFunctionAddress(const char *name) {
    return zfcl_extension_address(name);
}

void *CL_API_CALL zfcl_clGetExtensionFunctionAddress(const char *name) {
    return zfcl_extension_address(name);
}

void *CL_API_CALL zfcl_clGetExtensionFunctionAddressForPlatform(cl_platform_id platform, const char *name) {
    return zfcl_platform_valid(platform) ? zfcl_extension_address(name) : NULL;
}

cl_int CL_API_CALL zfcl_clUnloadCompiler(void) {
    return CL_SUCCESS; /* the compiler is a child process per build: nothing stays loaded */
}

cl_int CL_API_CALL zfcl_clUnloadPlatformCompiler(cl_platform_id platform) {
    return zfcl_platform_valid(platform) && platform != NULL ? CL_SUCCESS
                                                             : zfcl_fail(CL_INVALID_PLATFORM, "platform is invalid");
}

/* The host timer is the one Level Zero pairs with device timestamps (zeDeviceGetGlobalTimestamps), in nanoseconds;
 * the device timer is the device clock in nanoseconds, as profiling reports it. */
cl_int CL_API_CALL zfcl_clGetDeviceAndHostTimer(cl_device_id device, cl_ulong *device_timestamp,
                                                cl_ulong *host_timestamp) {
    if (!zfcl_device_valid(device))
        return zfcl_fail(CL_INVALID_DEVICE, "device is no live device");
    if (device_timestamp == NULL || host_timestamp == NULL)
        return zfcl_fail(CL_INVALID_VALUE, "device_timestamp or host_timestamp is NULL");
    uint64_t host = 0, ticks = 0;
    zfi_zeDeviceGetGlobalTimestamps(device->ze, &host, &ticks);
    *device_timestamp = zfcl_device_ns(device, ticks);
    *host_timestamp = host;
    return CL_SUCCESS;
}

cl_int CL_API_CALL zfcl_clGetHostTimer(cl_device_id device, cl_ulong *host_timestamp) {
    if (!zfcl_device_valid(device))
        return zfcl_fail(CL_INVALID_DEVICE, "device is no live device");
    if (host_timestamp == NULL)
        return zfcl_fail(CL_INVALID_VALUE, "host_timestamp is NULL");
    *host_timestamp = zf_host_raw_ns();
    return CL_SUCCESS;
}
