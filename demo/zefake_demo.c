/* zefake-demo: enumerates drivers and devices through the real Level Zero loader and prints what a tool developer
 * wants to see. Run with ZE_ENABLE_ALT_DRIVERS=<abs path>/libze_fake.so.1 (the README's first command does). */
#include "zefake/zefake_ext.h"

#include <inttypes.h>
#include <level_zero/ze_api.h>
#include <stdio.h>
#include <stdlib.h>

#define DEMO_MAX 64

static int demo_check(ze_result_t result, const char *what) {
    if (result == ZE_RESULT_SUCCESS)
        return 0;
    fprintf(stderr, "zefake-demo: %s failed: 0x%x\n", what, (unsigned)result);
    return 1;
}

static const char *demo_device_type(ze_device_type_t type) {
    switch (type) {
    case ZE_DEVICE_TYPE_GPU:
        return "GPU";
    case ZE_DEVICE_TYPE_CPU:
        return "CPU";
    case ZE_DEVICE_TYPE_FPGA:
        return "FPGA";
    case ZE_DEVICE_TYPE_MCA:
        return "MCA";
    case ZE_DEVICE_TYPE_VPU:
        return "VPU";
    default:
        return "unknown";
    }
}

static void demo_print_uuid(const uint8_t *id, size_t size) {
    for (size_t i = 0; i < size; i++)
        printf("%02x", id[i]);
}

static void demo_print_engines(ze_device_handle_t device, const char *indent) {
    uint32_t count = DEMO_MAX;
    ze_command_queue_group_properties_t groups[DEMO_MAX];
    for (uint32_t i = 0; i < DEMO_MAX; i++)
        groups[i] = (ze_command_queue_group_properties_t){.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_GROUP_PROPERTIES};
    if (demo_check(zeDeviceGetCommandQueueGroupProperties(device, &count, groups),
                   "zeDeviceGetCommandQueueGroupProperties"))
        return;
    for (uint32_t i = 0; i < count; i++) {
        ze_command_queue_group_property_flags_t f = groups[i].flags;
        printf("%sengine group %u: %u queue(s)%s%s%s%s, fill pattern <= %zu bytes\n", indent, i, groups[i].numQueues,
               (f & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE) ? " compute" : "",
               (f & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COPY) ? " copy" : "",
               (f & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COOPERATIVE_KERNELS) ? " cooperative" : "",
               (f & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_METRICS) ? " metrics" : "",
               groups[i].maxMemoryFillPatternSize);
    }
}

static void demo_print_memory(ze_device_handle_t device, const char *indent) {
    uint32_t count = DEMO_MAX;
    ze_device_memory_properties_t memories[DEMO_MAX];
    for (uint32_t i = 0; i < DEMO_MAX; i++)
        memories[i] = (ze_device_memory_properties_t){.stype = ZE_STRUCTURE_TYPE_DEVICE_MEMORY_PROPERTIES};
    if (demo_check(zeDeviceGetMemoryProperties(device, &count, memories), "zeDeviceGetMemoryProperties"))
        return;
    for (uint32_t i = 0; i < count; i++)
        printf("%smemory %s: %" PRIu64 " MiB, %u MHz, %u-bit bus\n", indent, memories[i].name,
               memories[i].totalSize >> 20, memories[i].maxClockRate, memories[i].maxBusWidth);
}

static void demo_print_compute(ze_device_handle_t device, const char *indent) {
    ze_device_compute_properties_t compute = {.stype = ZE_STRUCTURE_TYPE_DEVICE_COMPUTE_PROPERTIES};
    if (demo_check(zeDeviceGetComputeProperties(device, &compute), "zeDeviceGetComputeProperties"))
        return;
    printf("%scompute: group size <= %u, SLM %u KiB, sub-group sizes", indent, compute.maxTotalGroupSize,
           compute.maxSharedLocalMemory >> 10);
    for (uint32_t i = 0; i < compute.numSubGroupSizes; i++)
        printf(" %u", compute.subGroupSizes[i]);
    printf("\n");
}

static void demo_print_device(ze_device_handle_t device, const char *label, const char *indent) {
    ze_device_properties_t p = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2};
    if (demo_check(zeDeviceGetProperties(device, &p), "zeDeviceGetProperties"))
        return;
    printf("%s%s: %s (%s, vendor 0x%04x, device 0x%04x)\n", indent, label, p.name, demo_device_type(p.type), p.vendorId,
           p.deviceId);
    printf("%s  uuid ", indent);
    demo_print_uuid(p.uuid.id, sizeof p.uuid.id);
    printf("\n%s  %u slices x %u sub-slices x %u EUs x %u threads, SIMD%u, %u MHz\n", indent, p.numSlices,
           p.numSubslicesPerSlice, p.numEUsPerSubslice, p.numThreadsPerEU, p.physicalEUSimdWidth, p.coreClockRate);
    printf("%s  timer %" PRIu64 " Hz, %u valid bits (kernel %u)%s%s\n", indent, p.timerResolution, p.timestampValidBits,
           p.kernelTimestampValidBits, (p.flags & ZE_DEVICE_PROPERTY_FLAG_INTEGRATED) ? ", integrated" : "",
           (p.flags & ZE_DEVICE_PROPERTY_FLAG_ECC) ? ", ECC" : "");
    uint64_t host = 0, ticks = 0;
    if (!demo_check(zeDeviceGetGlobalTimestamps(device, &host, &ticks), "zeDeviceGetGlobalTimestamps"))
        printf("%s  timestamps: host %" PRIu64 " ns, device %" PRIu64 " ticks\n", indent, host, ticks);
}

static void demo_print_tree(ze_device_handle_t device, uint32_t index) {
    char label[32];
    snprintf(label, sizeof label, "device %u", index);
    demo_print_device(device, label, "  ");
    demo_print_compute(device, "    ");
    demo_print_memory(device, "    ");
    demo_print_engines(device, "    ");
    uint32_t count = DEMO_MAX;
    ze_device_handle_t subs[DEMO_MAX];
    if (demo_check(zeDeviceGetSubDevices(device, &count, subs), "zeDeviceGetSubDevices"))
        return;
    for (uint32_t i = 0; i < count; i++) {
        snprintf(label, sizeof label, "sub-device %u", i);
        demo_print_device(subs[i], label, "    ");
    }
}

static void demo_print_fake_info(ze_driver_handle_t driver) {
    zefake_pfnGetInfo_t get_info = NULL;
    if (zeDriverGetExtensionFunctionAddress(driver, ZEFAKE_FN_GET_INFO, (void **)&get_info) != ZE_RESULT_SUCCESS)
        return; /* another driver */
    zefake_info_t info = {.size = sizeof info};
    if (get_info(&info) == ZE_RESULT_SUCCESS)
        printf("  zefake: scenario '%s' (%s), %u of %u API functions implemented\n", info.scenario_name,
               info.scenario_source, info.api_implemented, info.api_functions);
}

static int demo_print_driver(ze_driver_handle_t driver, uint32_t index) {
    ze_driver_properties_t props = {.stype = ZE_STRUCTURE_TYPE_DRIVER_PROPERTIES};
    ze_api_version_t version = 0;
    if (demo_check(zeDriverGetProperties(driver, &props), "zeDriverGetProperties") ||
        demo_check(zeDriverGetApiVersion(driver, &version), "zeDriverGetApiVersion"))
        return 1;
    printf("driver %u: version 0x%08x, API %u.%u, uuid ", index, props.driverVersion, ZE_MAJOR_VERSION(version),
           ZE_MINOR_VERSION(version));
    demo_print_uuid(props.uuid.id, sizeof props.uuid.id);
    printf("\n");
    uint32_t count = DEMO_MAX;
    ze_driver_extension_properties_t extensions[DEMO_MAX];
    if (!demo_check(zeDriverGetExtensionProperties(driver, &count, extensions), "zeDriverGetExtensionProperties"))
        for (uint32_t i = 0; i < count; i++)
            printf("  extension %s %u.%u\n", extensions[i].name, ZE_MAJOR_VERSION(extensions[i].version),
                   ZE_MINOR_VERSION(extensions[i].version));
    demo_print_fake_info(driver);
    count = DEMO_MAX;
    ze_device_handle_t devices[DEMO_MAX];
    if (demo_check(zeDeviceGet(driver, &count, devices), "zeDeviceGet"))
        return 1;
    for (uint32_t i = 0; i < count; i++)
        demo_print_tree(devices[i], i);
    return 0;
}

int main(void) {
    if (demo_check(zeInit(0), "zeInit"))
        return EXIT_FAILURE;
    uint32_t count = DEMO_MAX;
    ze_driver_handle_t drivers[DEMO_MAX];
    if (demo_check(zeDriverGet(&count, drivers), "zeDriverGet"))
        return EXIT_FAILURE;
    if (count == 0) {
        fprintf(stderr, "zefake-demo: no Level Zero driver found (is ZE_ENABLE_ALT_DRIVERS set?)\n");
        return EXIT_FAILURE;
    }
    int failures = 0;
    for (uint32_t i = 0; i < count; i++)
        failures += demo_print_driver(drivers[i], i);
    return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
