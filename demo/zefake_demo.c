/* zefake-demo: enumerates drivers and devices through the real Level Zero loader and prints what a tool developer
 * wants to see. Run with ZE_ENABLE_ALT_DRIVERS=<abs path>/libze_fake.so.1 (the README's first command does). */
#include "zefake/zefake_ext.h"

#include <inttypes.h>
#include <level_zero/ze_api.h>
#include <level_zero/zes_api.h>
#include <level_zero/zet_api.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* ---- Metrics: the groups of the first device, and a small workload under a query and under a streamer ---------- */

#define DEMO_BYTES (1u << 20)
#define DEMO_ITEMS (DEMO_BYTES / 4) /* the kernel's work-items: one per int of the buffers */
#define DEMO_GROUP 64u

/* A SPIR-V module with one kernel, vadd_int(global int *a, global int *b, global int *c): c[i] = a[i] + b[i] for
 * i = get_global_id(0). Its name and parameters are those of the built-in kernel of docs/builtin-kernels.md (the
 * suite compiles the same kernel from conformance/kernels/vadd.cl); it is written here instruction by instruction so
 * that the demo needs neither a compiler nor a file. */
#define DEMO_WORDS(...)        (sizeof((uint32_t[]){__VA_ARGS__}) / sizeof(uint32_t))
#define DEMO_INST(opcode, ...) ((uint32_t)(1 + DEMO_WORDS(__VA_ARGS__)) << 16 | (opcode)), __VA_ARGS__
#define DEMO_INST0(opcode)     ((uint32_t)1 << 16 | (opcode))
#define DEMO_HEADER(bound)     0x07230203u, 0x00010000u, 0u, (uint32_t)(bound), 0u
enum {
    DEMO_ID_FN = 1,
    DEMO_ID_GID,
    DEMO_ID_U64,
    DEMO_ID_U32,
    DEMO_ID_V3,
    DEMO_ID_PV3,
    DEMO_ID_VOID,
    DEMO_ID_P32,
    DEMO_ID_FTY,
    DEMO_ID_A,
    DEMO_ID_B,
    DEMO_ID_C,
    DEMO_ID_ENTRY,
    DEMO_ID_G,
    DEMO_ID_I,
    DEMO_ID_PA,
    DEMO_ID_PB,
    DEMO_ID_PC,
    DEMO_ID_VA,
    DEMO_ID_VB,
    DEMO_ID_SUM,
    DEMO_ID_BOUND
};
static const uint32_t demo_vadd_spirv[] = {
    DEMO_HEADER(DEMO_ID_BOUND),                                           /* magic, SPIR-V 1.0, bound, schema */
    DEMO_INST(17, 4),                                                     /* OpCapability Addresses */
    DEMO_INST(17, 6),                                                     /* OpCapability Kernel */
    DEMO_INST(17, 11),                                                    /* OpCapability Int64 */
    DEMO_INST(14, 2, 2),                                                  /* OpMemoryModel Physical64 OpenCL */
    DEMO_INST(15, 6, DEMO_ID_FN, 0x64646176, 0x746e695f, 0, DEMO_ID_GID), /* OpEntryPoint Kernel "vadd_int" */
    DEMO_INST(71, DEMO_ID_GID, 11, 28),                                   /* OpDecorate BuiltIn GlobalInvocationId */
    DEMO_INST(71, DEMO_ID_GID, 22),                                       /* OpDecorate Constant */
    DEMO_INST(21, DEMO_ID_U64, 64, 0),                                    /* OpTypeInt 64 */
    DEMO_INST(21, DEMO_ID_U32, 32, 0),                                    /* OpTypeInt 32 */
    DEMO_INST(23, DEMO_ID_V3, DEMO_ID_U64, 3),                            /* OpTypeVector u64 x 3 */
    DEMO_INST(32, DEMO_ID_PV3, 1, DEMO_ID_V3),                            /* OpTypePointer Input */
    DEMO_INST(19, DEMO_ID_VOID),                                          /* OpTypeVoid */
    DEMO_INST(32, DEMO_ID_P32, 5, DEMO_ID_U32),                           /* OpTypePointer CrossWorkgroup */
    DEMO_INST(33, DEMO_ID_FTY, DEMO_ID_VOID, DEMO_ID_P32, DEMO_ID_P32, DEMO_ID_P32), /* OpTypeFunction */
    DEMO_INST(59, DEMO_ID_PV3, DEMO_ID_GID, 1),                                      /* OpVariable Input */
    DEMO_INST(54, DEMO_ID_VOID, DEMO_ID_FN, 0, DEMO_ID_FTY),                         /* OpFunction */
    DEMO_INST(55, DEMO_ID_P32, DEMO_ID_A),                                           /* OpFunctionParameter a */
    DEMO_INST(55, DEMO_ID_P32, DEMO_ID_B),                                           /* OpFunctionParameter b */
    DEMO_INST(55, DEMO_ID_P32, DEMO_ID_C),                                           /* OpFunctionParameter c */
    DEMO_INST(248, DEMO_ID_ENTRY),                                                   /* OpLabel */
    DEMO_INST(61, DEMO_ID_V3, DEMO_ID_G, DEMO_ID_GID, 2, 32),         /* OpLoad the global id, Aligned 32 */
    DEMO_INST(81, DEMO_ID_U64, DEMO_ID_I, DEMO_ID_G, 0),              /* OpCompositeExtract i = id.x */
    DEMO_INST(70, DEMO_ID_P32, DEMO_ID_PA, DEMO_ID_A, DEMO_ID_I),     /* OpInBoundsPtrAccessChain &a[i] */
    DEMO_INST(70, DEMO_ID_P32, DEMO_ID_PB, DEMO_ID_B, DEMO_ID_I),     /* &b[i] */
    DEMO_INST(70, DEMO_ID_P32, DEMO_ID_PC, DEMO_ID_C, DEMO_ID_I),     /* &c[i] */
    DEMO_INST(61, DEMO_ID_U32, DEMO_ID_VA, DEMO_ID_PA, 2, 4),         /* OpLoad a[i], Aligned 4 */
    DEMO_INST(61, DEMO_ID_U32, DEMO_ID_VB, DEMO_ID_PB, 2, 4),         /* OpLoad b[i], Aligned 4 */
    DEMO_INST(128, DEMO_ID_U32, DEMO_ID_SUM, DEMO_ID_VA, DEMO_ID_VB), /* OpIAdd */
    DEMO_INST(62, DEMO_ID_PC, DEMO_ID_SUM, 2, 4),                     /* OpStore c[i], Aligned 4 */
    DEMO_INST0(253),                                                  /* OpReturn */
    DEMO_INST0(56),                                                   /* OpFunctionEnd */
};

static const char *demo_sampling(zet_metric_group_sampling_type_flags_t flags) {
    if (flags == ZET_METRIC_GROUP_SAMPLING_TYPE_FLAG_TIME_BASED)
        return "TIME_BASED";
    return flags == ZET_METRIC_GROUP_SAMPLING_TYPE_FLAG_EVENT_BASED ? "EVENT_BASED" : "both";
}

static uint32_t demo_print_metric_groups(ze_device_handle_t device, zet_metric_group_handle_t *groups) {
    uint32_t count = DEMO_MAX;
    if (demo_check(zetMetricGroupGet(device, &count, groups), "zetMetricGroupGet"))
        return 0;
    printf("  metric groups of device 0: %u\n", count);
    for (uint32_t i = 0; i < count; i++) {
        zet_metric_group_properties_t p = {.stype = ZET_STRUCTURE_TYPE_METRIC_GROUP_PROPERTIES};
        if (demo_check(zetMetricGroupGetProperties(groups[i], &p), "zetMetricGroupGetProperties"))
            return 0;
        printf("    %-16s %-11s domain %-3u %2u metrics  %s\n", p.name, demo_sampling(p.samplingType), p.domain,
               p.metricCount, p.description);
    }
    return count;
}

static zet_metric_group_handle_t demo_find_group(zet_metric_group_handle_t *groups, uint32_t count, const char *name,
                                                 zet_metric_group_sampling_type_flags_t sampling) {
    for (uint32_t i = 0; i < count; i++) {
        zet_metric_group_properties_t p = {.stype = ZET_STRUCTURE_TYPE_METRIC_GROUP_PROPERTIES};
        if (zetMetricGroupGetProperties(groups[i], &p) == ZE_RESULT_SUCCESS && strcmp(p.name, name) == 0 &&
            p.samplingType == sampling)
            return groups[i];
    }
    return NULL;
}

/* What the demo runs: a context, an immediate list on the first engine group with metrics, two buffers and the
 * vadd_int kernel. */
typedef struct demo_workload {
    ze_context_handle_t context;
    ze_device_handle_t device;
    ze_command_list_handle_t list;
    void *src, *dst;
    ze_module_handle_t module;
    ze_kernel_handle_t kernel;
} demo_workload;

static uint32_t demo_compute_ordinal(ze_device_handle_t device) {
    uint32_t count = DEMO_MAX;
    ze_command_queue_group_properties_t groups[DEMO_MAX];
    for (uint32_t i = 0; i < DEMO_MAX; i++)
        groups[i] = (ze_command_queue_group_properties_t){.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_GROUP_PROPERTIES};
    if (zeDeviceGetCommandQueueGroupProperties(device, &count, groups) != ZE_RESULT_SUCCESS)
        return 0;
    for (uint32_t i = 0; i < count; i++) {
        if (groups[i].flags & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_METRICS)
            return i;
    }
    return 0;
}

/* The vadd_int kernel computing dst = src + src over the buffers. */
static int demo_kernel_create(demo_workload *w) {
    ze_module_desc_t module_desc = {ZE_STRUCTURE_TYPE_MODULE_DESC,
                                    NULL,
                                    ZE_MODULE_FORMAT_IL_SPIRV,
                                    sizeof demo_vadd_spirv,
                                    (const uint8_t *)demo_vadd_spirv,
                                    NULL,
                                    NULL};
    ze_kernel_desc_t kernel_desc = {ZE_STRUCTURE_TYPE_KERNEL_DESC, NULL, 0, "vadd_int"};
    return demo_check(zeModuleCreate(w->context, w->device, &module_desc, &w->module, NULL), "zeModuleCreate") ||
           demo_check(zeKernelCreate(w->module, &kernel_desc, &w->kernel), "zeKernelCreate") ||
           demo_check(zeKernelSetGroupSize(w->kernel, DEMO_GROUP, 1, 1), "zeKernelSetGroupSize") ||
           demo_check(zeKernelSetArgumentValue(w->kernel, 0, sizeof w->src, &w->src), "zeKernelSetArgumentValue") ||
           demo_check(zeKernelSetArgumentValue(w->kernel, 1, sizeof w->src, &w->src), "zeKernelSetArgumentValue") ||
           demo_check(zeKernelSetArgumentValue(w->kernel, 2, sizeof w->dst, &w->dst), "zeKernelSetArgumentValue");
}

static int demo_workload_create(demo_workload *w, ze_driver_handle_t driver, ze_device_handle_t device) {
    memset(w, 0, sizeof *w);
    w->device = device;
    ze_context_desc_t context_desc = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0};
    ze_command_queue_desc_t queue_desc = {ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC,
                                          NULL,
                                          demo_compute_ordinal(device),
                                          0,
                                          0,
                                          ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS,
                                          ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
    ze_device_mem_alloc_desc_t mem_desc = {ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, NULL, 0, 0};
    return demo_check(zeContextCreate(driver, &context_desc, &w->context), "zeContextCreate") ||
           demo_check(zeCommandListCreateImmediate(w->context, device, &queue_desc, &w->list),
                      "zeCommandListCreateImmediate") ||
           demo_check(zeMemAllocDevice(w->context, &mem_desc, DEMO_BYTES, 64, device, &w->src), "zeMemAllocDevice") ||
           demo_check(zeMemAllocDevice(w->context, &mem_desc, DEMO_BYTES, 64, device, &w->dst), "zeMemAllocDevice") ||
           demo_kernel_create(w);
}

static void demo_workload_destroy(demo_workload *w) {
    zetContextActivateMetricGroups(w->context, w->device, 0, NULL);
    if (w->kernel != NULL)
        zeKernelDestroy(w->kernel);
    if (w->module != NULL)
        zeModuleDestroy(w->module);
    if (w->src != NULL)
        zeMemFree(w->context, w->src);
    if (w->dst != NULL)
        zeMemFree(w->context, w->dst);
    if (w->list != NULL)
        zeCommandListDestroy(w->list);
    if (w->context != NULL)
        zeContextDestroy(w->context);
}

/* A fill of the source (1 MiB written), the kernel (dst = src + src: the XVEs work) and a copy of the destination
 * back to the source (1 MiB read and written). */
static int demo_workload_run(demo_workload *w) {
    uint32_t pattern = 0x5a5a5a5a;
    ze_group_count_t groups = {DEMO_ITEMS / DEMO_GROUP, 1, 1};
    return demo_check(
               zeCommandListAppendMemoryFill(w->list, w->src, &pattern, sizeof pattern, DEMO_BYTES, NULL, 0, NULL),
               "zeCommandListAppendMemoryFill") ||
           demo_check(zeCommandListAppendLaunchKernel(w->list, w->kernel, &groups, NULL, 0, NULL),
                      "zeCommandListAppendLaunchKernel") ||
           demo_check(zeCommandListAppendMemoryCopy(w->list, w->src, w->dst, DEMO_BYTES, NULL, 0, NULL),
                      "zeCommandListAppendMemoryCopy");
}

/* The metrics the demo prints when the group has them (ComputeBasic on Data Center GPU Max); otherwise the first ten
 * of the group. */
static const char *const demo_shown[] = {
    "GpuTime",   "GpuCoreClocks", "GPU_MEMORY_BYTE_READ",    "GPU_MEMORY_BYTE_WRITE", "XVE_ACTIVE",
    "XVE_STALL", "XVE_BUSY",      "XVE_COMPUTE_THREAD_COUNT"};

static bool demo_is_shown(const char *name) {
    for (size_t i = 0; i < sizeof demo_shown / sizeof demo_shown[0]; i++) {
        if (strcmp(name, demo_shown[i]) == 0)
            return true;
    }
    return false;
}

/* Which of the group's metrics to print: those of demo_shown it has, or its first ten. */
static void demo_pick_metrics(const zet_metric_handle_t *metrics, uint32_t count, bool *shown) {
    uint32_t found = 0;
    for (uint32_t m = 0; m < count; m++) {
        zet_metric_properties_t p = {.stype = ZET_STRUCTURE_TYPE_METRIC_PROPERTIES};
        shown[m] = zetMetricGetProperties(metrics[m], &p) == ZE_RESULT_SUCCESS && demo_is_shown(p.name);
        found += shown[m];
    }
    for (uint32_t m = 0; m < count && found == 0; m++)
        shown[m] = m < 10;
}

static void demo_print_value(zet_metric_handle_t metric, zet_typed_value_t value) {
    zet_metric_properties_t p = {.stype = ZET_STRUCTURE_TYPE_METRIC_PROPERTIES};
    if (zetMetricGetProperties(metric, &p) != ZE_RESULT_SUCCESS)
        return;
    if (value.type == ZET_VALUE_TYPE_FLOAT32)
        printf(" %s=%.3f", p.name, (double)value.value.fp32);
    else if (value.type == ZET_VALUE_TYPE_FLOAT64)
        printf(" %s=%.3f", p.name, value.value.fp64);
    else if (value.type == ZET_VALUE_TYPE_UINT32 || value.type == ZET_VALUE_TYPE_BOOL8)
        printf(" %s=%u", p.name, value.type == ZET_VALUE_TYPE_UINT32 ? value.value.ui32 : value.value.b8);
    else
        printf(" %s=%" PRIu64, p.name, value.value.ui64);
}

/* Calculates raw data (plain or framed per tile) and prints the first metrics of the first `rows` results of set 0. */
static void demo_print_values(zet_metric_group_handle_t group, const uint8_t *data, size_t size, uint32_t rows) {
    uint32_t sets = 0, total = 0;
    if (size == 0) { /* a read before the device reached the first report's time: nothing to calculate */
        printf("    no report yet\n");
        return;
    }
    if (demo_check(zetMetricGroupCalculateMultipleMetricValuesExp(
                       group, ZET_METRIC_GROUP_CALCULATION_TYPE_METRIC_VALUES, size, data, &sets, &total, NULL, NULL),
                   "zetMetricGroupCalculateMultipleMetricValuesExp") ||
        sets == 0 || total == 0)
        return;
    uint32_t *counts = calloc(sets, sizeof *counts);
    zet_typed_value_t *values = calloc(total, sizeof *values);
    zet_metric_handle_t metrics[DEMO_MAX];
    uint32_t num_metrics = DEMO_MAX;
    if (counts != NULL && values != NULL && zetMetricGet(group, &num_metrics, metrics) == ZE_RESULT_SUCCESS &&
        zetMetricGroupCalculateMultipleMetricValuesExp(group, ZET_METRIC_GROUP_CALCULATION_TYPE_METRIC_VALUES, size,
                                                       data, &sets, &total, counts, values) == ZE_RESULT_SUCCESS) {
        uint32_t results = counts[0] / num_metrics;
        bool shown[DEMO_MAX];
        demo_pick_metrics(metrics, num_metrics, shown);
        printf("    %u set(s) (one per tile), %u result(s) in set 0\n", sets, results);
        for (uint32_t r = 0; r < results && r < rows; r++) {
            printf("    result %u:", r);
            for (uint32_t m = 0; m < num_metrics; m++) {
                if (shown[m])
                    demo_print_value(metrics[m], values[r * num_metrics + m]);
            }
            printf("\n");
        }
    }
    free(counts);
    free(values);
}

static void demo_query(demo_workload *w, zet_metric_group_handle_t group) {
    printf("  query (ComputeBasic, EVENT_BASED) around a 1 MiB fill, a vadd_int kernel over %u items and a 1 MiB "
           "copy:\n",
           DEMO_ITEMS);
    zet_metric_query_pool_desc_t desc = {ZET_STRUCTURE_TYPE_METRIC_QUERY_POOL_DESC, NULL,
                                         ZET_METRIC_QUERY_POOL_TYPE_PERFORMANCE, 1};
    zet_metric_query_pool_handle_t pool = NULL;
    zet_metric_query_handle_t query = NULL;
    size_t size = 0;
    uint8_t *data = NULL;
    if (!demo_check(zetContextActivateMetricGroups(w->context, w->device, 1, &group),
                    "zetContextActivateMetricGroups") &&
        !demo_check(zetMetricQueryPoolCreate(w->context, w->device, group, &desc, &pool), "zetMetricQueryPoolCreate") &&
        !demo_check(zetMetricQueryCreate(pool, 0, &query), "zetMetricQueryCreate") &&
        !demo_check(zetCommandListAppendMetricQueryBegin(w->list, query), "zetCommandListAppendMetricQueryBegin") &&
        !demo_workload_run(w) &&
        !demo_check(zetCommandListAppendMetricQueryEnd(w->list, query, NULL, 0, NULL),
                    "zetCommandListAppendMetricQueryEnd") &&
        !demo_check(zetMetricQueryGetData(query, &size, NULL), "zetMetricQueryGetData") &&
        (data = malloc(size)) != NULL &&
        !demo_check(zetMetricQueryGetData(query, &size, data), "zetMetricQueryGetData"))
        demo_print_values(group, data, size, 1);
    free(data);
    if (query != NULL)
        zetMetricQueryDestroy(query);
    if (pool != NULL)
        zetMetricQueryPoolDestroy(pool);
}

/* A streamer read that overflowed still returns the newest reports: on the host clock (docs/cost-model.md) a slow
 * host lets more periods pass than the buffer holds, as on a GPU whose reader comes late (zet_api.h,
 * ZE_RESULT_WARNING_DROPPED_DATA). */
static int demo_check_read(ze_result_t result) {
    if (result == ZE_RESULT_WARNING_DROPPED_DATA) {
        printf("    (the buffer overflowed before this read: its oldest reports were lost)\n");
        return 0;
    }
    return demo_check(result, "zetMetricStreamerReadData");
}

static void demo_streamer(demo_workload *w, zet_metric_group_handle_t group) {
    /* 1024 reports of 20 us: 20 ms of device time, more than the workload takes on an idle host. */
    zet_metric_streamer_desc_t desc = {ZET_STRUCTURE_TYPE_METRIC_STREAMER_DESC, NULL, 512, 20000};
    zet_metric_streamer_handle_t streamer = NULL;
    size_t size = 0;
    uint8_t *data = NULL;
    if (demo_check(zetContextActivateMetricGroups(w->context, w->device, 1, &group),
                   "zetContextActivateMetricGroups") ||
        demo_check(zetMetricStreamerOpen(w->context, w->device, group, &desc, NULL, &streamer),
                   "zetMetricStreamerOpen"))
        return;
    printf("  streamer (ComputeBasic, TIME_BASED, period %u ns, buffer of %u reports) over the same workload:\n",
           desc.samplingPeriod, 2 * desc.notifyEveryNReports);
    if (!demo_workload_run(w) && !demo_check_read(zetMetricStreamerReadData(streamer, UINT32_MAX, &size, NULL)) &&
        (data = malloc(size)) != NULL && !demo_check_read(zetMetricStreamerReadData(streamer, UINT32_MAX, &size, data)))
        demo_print_values(group, data, size, 8);
    free(data);
    zetMetricStreamerClose(streamer);
}

/* One sysman handle of a device: the first its enumeration answers, NULL without sysman (zes_api.h). */
typedef ze_result_t (*demo_enum_fn)(zes_device_handle_t, uint32_t *, void *);

static void *demo_first(ze_device_handle_t device, demo_enum_fn fn) {
    void *handle = NULL;
    uint32_t count = 1;
    if (fn((zes_device_handle_t)device, &count, &handle) != ZE_RESULT_SUCCESS || count == 0)
        return NULL;
    return handle;
}

/* The ZES_ENGINE_GROUP_ALL handle of a device, NULL when it has none. */
static zes_engine_handle_t demo_all_engines(ze_device_handle_t device) {
    zes_engine_handle_t engines[DEMO_MAX];
    uint32_t count = DEMO_MAX;
    if (zesDeviceEnumEngineGroups((zes_device_handle_t)device, &count, engines) != ZE_RESULT_SUCCESS)
        return NULL;
    for (uint32_t i = 0; i < count; i++) {
        zes_engine_properties_t p = {.stype = ZES_STRUCTURE_TYPE_ENGINE_PROPERTIES};
        if (zesEngineGetProperties(engines[i], &p) == ZE_RESULT_SUCCESS && p.type == ZES_ENGINE_GROUP_ALL)
            return engines[i];
    }
    return NULL;
}

/* A telemetry snapshot of a device (docs/sysman.md): engine activity since zeInit, energy, GPU frequency,
 * temperature and free device memory; silent when sysman is not enabled. */
static void demo_telemetry(ze_device_handle_t device, const char *when) {
    zes_engine_handle_t engine = demo_all_engines(device);
    zes_pwr_handle_t power = demo_first(device, (demo_enum_fn)zesDeviceEnumPowerDomains);
    zes_freq_handle_t freq = demo_first(device, (demo_enum_fn)zesDeviceEnumFrequencyDomains);
    zes_temp_handle_t temp = demo_first(device, (demo_enum_fn)zesDeviceEnumTemperatureSensors);
    zes_mem_handle_t mem = demo_first(device, (demo_enum_fn)zesDeviceEnumMemoryModules);
    zes_engine_stats_t activity;
    zes_power_energy_counter_t energy;
    zes_freq_state_t state = {.stype = ZES_STRUCTURE_TYPE_FREQ_STATE};
    zes_mem_state_t memory = {.stype = ZES_STRUCTURE_TYPE_MEM_STATE};
    double celsius;
    if (engine == NULL || power == NULL || freq == NULL || temp == NULL || mem == NULL ||
        zesEngineGetActivity(engine, &activity) != ZE_RESULT_SUCCESS ||
        zesPowerGetEnergyCounter(power, &energy) != ZE_RESULT_SUCCESS ||
        zesFrequencyGetState(freq, &state) != ZE_RESULT_SUCCESS ||
        zesTemperatureGetState(temp, &celsius) != ZE_RESULT_SUCCESS ||
        zesMemoryGetState(mem, &memory) != ZE_RESULT_SUCCESS)
        return;
    double busy = activity.timestamp > 0 ? 100.0 * (double)activity.activeTime / (double)activity.timestamp : 0.0;
    printf("  telemetry of device 0 %s: engines %.3f %% active, energy %.3f J, GPU %.0f MHz, %.1f C, %" PRIu64
           " MiB free\n",
           when, busy, (double)energy.energy / 1e6, state.actual, celsius, memory.free >> 20);
}

static void demo_metrics(ze_driver_handle_t driver, ze_device_handle_t device) {
    zet_metric_group_handle_t groups[DEMO_MAX];
    uint32_t count = demo_print_metric_groups(device, groups);
    zet_metric_group_handle_t event =
        demo_find_group(groups, count, "ComputeBasic", ZET_METRIC_GROUP_SAMPLING_TYPE_FLAG_EVENT_BASED);
    zet_metric_group_handle_t time =
        demo_find_group(groups, count, "ComputeBasic", ZET_METRIC_GROUP_SAMPLING_TYPE_FLAG_TIME_BASED);
    if (event == NULL || time == NULL)
        return;
    demo_workload w;
    if (demo_workload_create(&w, driver, device) == 0) {
        demo_telemetry(device, "before the workload");
        demo_query(&w, event);
        demo_streamer(&w, time);
        demo_telemetry(device, "after the workload");
    }
    demo_workload_destroy(&w);
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
    if (count > 0)
        demo_metrics(driver, devices[0]);
    return 0;
}

int main(void) {
    /* Sysman through core device handles must be asked for before zeInit (zes_api.h); a value the caller set wins. */
    setenv("ZES_ENABLE_SYSMAN", "1", 0);
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
