/* The two profiles of docs/tolerances.md: one program breaks every rule the default profile tolerates as Intel's
 * driver does. A child process runs it and prints each call's result as `key=value`; the tests run it in the default
 * profile (it completes, each tolerated call does what the table says, each rule is warned once per function and
 * counted by zefakeGetToleranceCount) and in the strict one, chosen by ZEFAKE_STRICT=1 or by the scenario's
 * `strict: true` (each call gets the specification's result). The child runs with layers/tracing as the tracing layer,
 * for zelTracerCreate. Fake-only: the profiles, the warnings and the count are zefake's. */
#include "zc_exec.h"
#include "zc_kernel_files.h"
#include "zc_metric.h"

#include <layers/zel_tracing_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zefake/zefake_ext.h>

#define ZC_ITEMS 64u

/* ------------------------------------------------------------------------------------------------------------------
 * The child: every tolerated thing once (the device memory ordinal three times: twice in one function, once in
 * another) */

static uint64_t zc_tolerance_count(ze_bool_t reset) {
    zefake_pfnGetToleranceCount_t get = NULL;
    zc_assert_success(
        zeDriverGetExtensionFunctionAddress(zc_sys()->driver, ZEFAKE_FN_GET_TOLERANCE_COUNT, (void **)&get));
    uint64_t count = UINT64_MAX;
    zc_assert_success(get(&count, reset));
    return count;
}

static void zc_print(const char *key, ze_result_t result) {
    printf("%s=%s\n", key, zc_result_name(result));
}

static void zc_bad_ordinal(zc_exec *x, const char *key, bool shared) {
    ze_device_mem_alloc_desc_t device_desc = {ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, NULL, 0, 1000};
    ze_host_mem_alloc_desc_t host_desc = {ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, NULL, 0};
    void *ptr = NULL;
    ze_result_t result = shared ? zeMemAllocShared(x->context, &device_desc, &host_desc, 4096, 64, x->device, &ptr)
                                : zeMemAllocDevice(x->context, &device_desc, 4096, 64, x->device, &ptr);
    zc_print(key, result);
    if (result == ZE_RESULT_SUCCESS)
        zc_free(x, ptr);
}

static void zc_zero_stype(zc_exec *x) {
    ze_device_properties_t props;
    memset(&props, 0, sizeof props);
    zc_print("out_stype", zeDeviceGetProperties(x->device, &props));
}

static void zc_free_ext_other_stype(zc_exec *x) {
    void *ptr = zc_host_alloc(x, 4096);
    ze_memory_free_ext_desc_t desc = {ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, NULL, 0};
    ze_result_t result = zeMemFreeExt(x->context, &desc, ptr);
    zc_print("free_ext", result);
    ze_memory_allocation_properties_t props = {ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES, NULL, 0, 0, 0};
    zc_assert_success(zeMemGetAllocProperties(x->context, ptr, &props, NULL));
    printf("freed=%d\n", props.type == ZE_MEMORY_TYPE_UNKNOWN);
    if (result != ZE_RESULT_SUCCESS)
        zc_free(x, ptr);
}

static void zc_pool_before_events(zc_exec *x) {
    ze_event_pool_handle_t pool = zc_event_pool(x, 2, 0);
    ze_event_handle_t event = zc_event(pool, 1);
    ze_result_t result = zeEventPoolDestroy(pool);
    zc_print("pool_destroy", result);
    printf("event_usable=%d\n", zeEventHostSignal(event) == ZE_RESULT_SUCCESS &&
                                    zeEventHostSynchronize(event, UINT64_MAX) == ZE_RESULT_SUCCESS);
    zc_print("event_destroy", zeEventDestroy(event));
    if (result != ZE_RESULT_SUCCESS)
        zc_assert_success(zeEventPoolDestroy(pool));
}

/* What kernel `apply` of spirv_fptr.cl leaves in p[i] when its function-pointer argument is 0. */
static int32_t zc_applied(int32_t v) {
    return v % 3 == 0 ? v + 1 : v % 3 == 1 ? v * 2 : -v;
}

/* Runs `kernel` (apply) over `p` on an immediate list of `context`; 1 when every item is as expected. */
static int zc_run_apply(zc_exec *x, ze_context_handle_t context, ze_kernel_handle_t kernel, int32_t *p,
                        const char *key) {
    for (uint32_t i = 0; i < ZC_ITEMS; i++)
        p[i] = (int32_t)i;
    ze_command_queue_desc_t desc = {
        ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, NULL, x->compute_ordinal, 0, 0, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS,
        ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
    ze_command_list_handle_t list = NULL;
    zc_assert_success(zeCommandListCreateImmediate(context, x->device, &desc, &list));
    ze_group_count_t groups = {1, 1, 1};
    ze_result_t result = zeCommandListAppendLaunchKernel(list, kernel, &groups, NULL, 0, NULL);
    zc_print(key, result);
    zc_assert_success(zeCommandListDestroy(list));
    int ok = result == ZE_RESULT_SUCCESS;
    for (uint32_t i = 0; i < ZC_ITEMS && ok; i++)
        ok = p[i] == zc_applied((int32_t)i);
    return ok;
}

/* 4 bytes for `apply`'s 64-bit integer argument, after 8 bytes whose high half is not 0: zero-extended, the
 * argument is 0 and no function is called through it. Then the kernel (of x->context) on a list of another
 * context, with an allocation of that context. */
static void zc_kernel_tolerances(zc_exec *x, ze_context_handle_t other) {
    ze_module_handle_t module = zc_module_create(x->context, x->device, "spirv_fptr");
    ze_kernel_handle_t kernel = zc_kernel_create(module, "apply");
    zc_assert_success(zeKernelSetGroupSize(kernel, ZC_ITEMS, 1, 1));
    int32_t *p = zc_host_alloc(x, ZC_ITEMS * sizeof *p);
    zc_assert_success(zeKernelSetArgumentValue(kernel, 0, sizeof p, &p));
    uint64_t stale = 0xffffffff00000000u;
    uint32_t narrow = 0;
    zc_assert_success(zeKernelSetArgumentValue(kernel, 1, sizeof stale, &stale));
    ze_result_t result = zeKernelSetArgumentValue(kernel, 1, sizeof narrow, &narrow);
    zc_print("narrow_arg", result);
    if (result == ZE_RESULT_SUCCESS)
        printf("zero_extended=%d\n", zc_run_apply(x, x->context, kernel, p, "narrow_launch"));
    uint64_t none = 0;
    zc_assert_success(zeKernelSetArgumentValue(kernel, 1, sizeof none, &none));
    ze_host_mem_alloc_desc_t host_desc = {ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, NULL, 0};
    int32_t *q = NULL;
    zc_assert_success(zeMemAllocHost(other, &host_desc, ZC_ITEMS * sizeof *q, 64, (void **)&q));
    zc_assert_success(zeKernelSetArgumentValue(kernel, 0, sizeof q, &q));
    printf("cross_ran=%d\n", zc_run_apply(x, other, kernel, q, "cross_kernel"));
    zc_assert_success(zeMemFree(other, q));
    zc_free(x, p);
#if ZC_L0_AT_LEAST(11)
    size_t size = 0; /* the size asked with a NULL binary (1.11), as Intel's driver answers it */
    zc_print("binary_size", ZC_API(zeKernelGetBinaryExp)(kernel, &size, NULL));
#endif
    zc_assert_success(zeKernelDestroy(kernel));
    zc_assert_success(zeModuleDestroy(module));
}

/* A metric query of x->context recorded on a list of another context, then executed there. */
/* A query of the list's context ended with a signal event of another context of the same device, then a barrier
 * waiting for that event: the query pool's second query. */
static void zc_event_context_tolerance(zc_exec *x, ze_context_handle_t other, zet_metric_query_pool_handle_t pool) {
    zet_metric_query_handle_t query = NULL;
    zc_assert_success(zetMetricQueryCreate(pool, 1, &query));
    ze_event_pool_desc_t pool_desc = {ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, NULL, ZE_EVENT_POOL_FLAG_HOST_VISIBLE, 1};
    ze_event_pool_handle_t events = NULL;
    zc_assert_success(zeEventPoolCreate(other, &pool_desc, 1, &x->device, &events));
    ze_event_handle_t event = zc_event(events, 0);
    ze_command_list_handle_t list = zc_list(x, x->compute_ordinal);
    zc_assert_success(zetCommandListAppendMetricQueryBegin(list, query));
    ze_result_t end = zetCommandListAppendMetricQueryEnd(list, query, event, 0, NULL);
    ze_result_t wait = zeCommandListAppendBarrier(list, NULL, 1, &event);
    zc_print("query_end_event", end);
    zc_print("wait_event", wait);
    if (end == ZE_RESULT_SUCCESS && wait == ZE_RESULT_SUCCESS) {
        ze_command_queue_handle_t queue = zc_queue(x, x->compute_ordinal, 0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
        zc_run(queue, list);
        printf("event_signalled=%d\n", zeEventQueryStatus(event) == ZE_RESULT_SUCCESS);
        zc_assert_success(zeCommandQueueDestroy(queue));
    }
    zc_assert_success(zeCommandListDestroy(list));
    zc_assert_success(zeEventDestroy(event));
    zc_assert_success(zeEventPoolDestroy(events));
    zc_assert_success(zetMetricQueryDestroy(query));
}

static void zc_query_tolerance(zc_exec *x, ze_context_handle_t other) {
    zet_metric_group_handle_t group = zc_find_group(x->device, "ComputeBasic", ZC_EVENT_BASED);
    if (group == NULL)
        zc_fail("the default scenario has no EVENT_BASED group ComputeBasic");
    zc_activate(x->context, x->device, 1, &group);
    zet_metric_query_pool_desc_t desc = {ZET_STRUCTURE_TYPE_METRIC_QUERY_POOL_DESC, NULL,
                                         ZET_METRIC_QUERY_POOL_TYPE_PERFORMANCE, 2};
    zet_metric_query_pool_handle_t pool = NULL;
    zc_assert_success(zetMetricQueryPoolCreate(x->context, x->device, group, &desc, &pool));
    zet_metric_query_handle_t query = NULL;
    zc_assert_success(zetMetricQueryCreate(pool, 0, &query));
    ze_command_list_desc_t list_desc = {ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC, NULL, x->compute_ordinal, 0};
    ze_command_list_handle_t list = NULL;
    zc_assert_success(zeCommandListCreate(other, x->device, &list_desc, &list));
    ze_result_t begin = zetCommandListAppendMetricQueryBegin(list, query);
    ze_result_t end = zetCommandListAppendMetricQueryEnd(list, query, NULL, 0, NULL);
    zc_print("query_begin", begin);
    zc_print("query_end", end);
    if (begin == ZE_RESULT_SUCCESS && end == ZE_RESULT_SUCCESS) {
        ze_command_queue_desc_t queue_desc = {
            ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, NULL, x->compute_ordinal, 0, 0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS,
            ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
        ze_command_queue_handle_t queue = NULL;
        zc_assert_success(zeCommandQueueCreate(other, x->device, &queue_desc, &queue));
        zc_run(queue, list);
        size_t size = 0;
        zc_print("query_data", zetMetricQueryGetData(query, &size, NULL));
        zc_assert_success(zeCommandQueueDestroy(queue));
    }
    zc_assert_success(zeCommandListDestroy(list));
    zc_assert_success(zetMetricQueryDestroy(query));
    zc_event_context_tolerance(x, other, pool);
    zc_assert_success(zetMetricQueryPoolDestroy(pool));
    zc_activate(x->context, x->device, 0, NULL);
}

static unsigned zc_traced_calls;
static bool zc_traced_user_data_null = true;

static void zc_count_device_get(ze_device_get_params_t *params, ze_result_t result, void *user_data,
                                void **instance_data) {
    (void)params;
    (void)result;
    (void)instance_data;
    zc_traced_calls++;
    zc_traced_user_data_null = zc_traced_user_data_null && user_data == NULL;
}

/* A tracer without user data: its callbacks are called, with NULL. */
static void zc_tracer_tolerances(zc_exec *x) {
    zet_tracer_exp_desc_t exp_desc = {ZET_STRUCTURE_TYPE_TRACER_EXP_DESC, NULL, NULL};
    zet_tracer_exp_handle_t exp_tracer = NULL;
    ze_result_t result = zetTracerExpCreate(x->context, &exp_desc, &exp_tracer);
    zc_print("tracer_exp", result);
    if (result == ZE_RESULT_SUCCESS) {
        zet_core_callbacks_t callbacks;
        memset(&callbacks, 0, sizeof callbacks);
        callbacks.Device.pfnGetCb = zc_count_device_get;
        zc_assert_success(zetTracerExpSetPrologues(exp_tracer, &callbacks));
        zc_assert_success(zetTracerExpSetEnabled(exp_tracer, 1));
        uint32_t count = 0;
        zc_assert_success(zeDeviceGet(zc_sys()->driver, &count, NULL));
        printf("traced_null_user_data=%d\n", zc_traced_calls == 1 && zc_traced_user_data_null);
        zc_assert_success(zetTracerExpSetEnabled(exp_tracer, 0));
        zc_assert_success(zetTracerExpDestroy(exp_tracer));
    }
    zel_tracer_desc_t desc = {ZEL_STRUCTURE_TYPE_TRACER_DESC, NULL, NULL};
    zel_tracer_handle_t tracer = NULL;
    result = zelTracerCreate(&desc, &tracer);
    zc_print("zel_tracer", result);
    if (result == ZE_RESULT_SUCCESS)
        zc_assert_success(zelTracerDestroy(tracer));
}

/* Two pages reserved, the first mapped: the access of both is set; then an IPC handle of the mapped page. */
static void zc_virtual_tolerances(zc_exec *x) {
    size_t page = 0;
    zc_assert_success(zeVirtualMemQueryPageSize(x->context, x->device, 1, &page));
    void *ptr = NULL;
    zc_assert_success(zeVirtualMemReserve(x->context, NULL, 2 * page, &ptr));
    ze_physical_mem_desc_t desc = {ZE_STRUCTURE_TYPE_PHYSICAL_MEM_DESC, NULL, 0, page};
    ze_physical_mem_handle_t physical = NULL;
    zc_assert_success(zePhysicalMemCreate(x->context, x->device, &desc, &physical));
    zc_assert_success(zeVirtualMemMap(x->context, ptr, page, physical, 0, ZE_MEMORY_ACCESS_ATTRIBUTE_READWRITE));
    zc_print("vm_access",
             zeVirtualMemSetAccessAttribute(x->context, ptr, 2 * page, ZE_MEMORY_ACCESS_ATTRIBUTE_READONLY));
    ze_memory_access_attribute_t first = ZE_MEMORY_ACCESS_ATTRIBUTE_FORCE_UINT32, second = first;
    size_t run = 0;
    zc_assert_success(zeVirtualMemGetAccessAttribute(x->context, ptr, page, &first, &run));
    zc_assert_success(zeVirtualMemGetAccessAttribute(x->context, (char *)ptr + page, page, &second, &run));
    printf("vm_first=%u\nvm_second=%u\n", (unsigned)first, (unsigned)second);
    ze_ipc_mem_handle_t handle;
    zc_print("ipc_virtual", zeMemGetIpcHandle(x->context, ptr, &handle));
    zc_assert_success(zeVirtualMemUnmap(x->context, ptr, page));
    zc_assert_success(zePhysicalMemDestroy(x->context, physical));
    zc_assert_success(zeVirtualMemFree(x->context, ptr, 2 * page));
}

static void zc_media_outside_2d(zc_exec *x) {
    ze_image_desc_t desc = {ZE_STRUCTURE_TYPE_IMAGE_DESC,
                            NULL,
                            0,
                            ZE_IMAGE_TYPE_3D,
                            {ZE_IMAGE_FORMAT_LAYOUT_NV12, ZE_IMAGE_FORMAT_TYPE_UNORM, ZE_IMAGE_FORMAT_SWIZZLE_R,
                             ZE_IMAGE_FORMAT_SWIZZLE_G, ZE_IMAGE_FORMAT_SWIZZLE_B, ZE_IMAGE_FORMAT_SWIZZLE_A},
                            64,
                            64,
                            4,
                            0,
                            0};
    ze_image_properties_t props = {ZE_STRUCTURE_TYPE_IMAGE_PROPERTIES, NULL, 0};
    zc_print("image_props", zeImageGetProperties(x->device, &desc, &props));
    printf("image_filters=%u\n", (unsigned)props.samplerFilterFlags);
}

static void zc_calculate_nothing(zc_exec *x) {
    zet_metric_group_handle_t group = zc_find_group(x->device, "TestOa", ZC_TIME_BASED);
    if (group == NULL)
        zc_fail("the default scenario has no TIME_BASED group TestOa");
    uint8_t raw[8] = {0};
    uint32_t count = UINT32_MAX;
    zc_print("calc_plain", zetMetricGroupCalculateMetricValues(group, ZET_METRIC_GROUP_CALCULATION_TYPE_METRIC_VALUES,
                                                               0, raw, &count, NULL));
    printf("calc_count=%u\n", count);
    uint32_t sets = 0, total = UINT32_MAX;
    zc_print("calc_multi",
             zetMetricGroupCalculateMultipleMetricValuesExp(group, ZET_METRIC_GROUP_CALCULATION_TYPE_METRIC_VALUES, 0,
                                                            raw, &sets, &total, NULL, NULL));
    printf("calc_total=%u\n", total);
}

#if ZC_L0_AT_LEAST(6)
/* Put a handle the driver never issued (1.6): Intel's driver answers SUCCESS. */
static void zc_put_foreign_handles(zc_exec *x) {
    ze_ipc_mem_handle_t memory;
    ze_ipc_event_pool_handle_t pool;
    memset(&memory, 0x3c, sizeof memory);
    memset(&pool, 0x3c, sizeof pool);
    zc_print("mem_put", ZC_API(zeMemPutIpcHandle)(x->context, memory));
    zc_print("pool_put", ZC_API(zeEventPoolPutIpcHandle)(x->context, pool));
}
#endif

#if ZC_L0_AT_LEAST(7)
/* A list both in order and relaxed (1.7): Intel's driver keeps the order. */
static void zc_in_order_relaxed(zc_exec *x) {
    ze_command_list_desc_t desc = {ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC, NULL, x->compute_ordinal,
                                   ZE_COMMAND_LIST_FLAG_IN_ORDER | ZE_COMMAND_LIST_FLAG_RELAXED_ORDERING};
    ze_command_list_handle_t list = NULL;
    ze_result_t result = zeCommandListCreate(x->context, x->device, &desc, &list);
    zc_print("in_order_relaxed", result);
    if (result == ZE_RESULT_SUCCESS)
        zc_assert_success(zeCommandListDestroy(list));
}
#endif

#if ZC_L0_AT_LEAST(10)
/* zeInitDrivers with a zeroed stype, as applications that set only desc->flags call it (1.10). */
static void zc_init_drivers_zero_stype(void) {
    ze_init_driver_type_desc_t desc = {0, NULL, ZE_INIT_DRIVER_TYPE_FLAG_GPU};
    uint32_t count = 0;
    zc_print("init_drivers", ZC_API(zeInitDrivers)(&count, NULL, &desc));
}
#endif

/* SPIR-V 1.4 whose entry point leaves out a UniformConstant variable it uses (llvm-spirv-14's output): built, as by
 * Intel's compiler. */
static void zc_unlisted_interface(zc_exec *x) {
    zc_spirv spirv = zc_load_spirv("spirv_unlisted");
    ze_module_handle_t module = NULL;
    ze_result_t result = zc_module_from(x->context, x->device, ZE_MODULE_FORMAT_IL_SPIRV, spirv.data, spirv.size, NULL,
                                        NULL, &module, NULL);
    zc_print("unlisted", result);
    if (module != NULL)
        zc_assert_success(zeModuleDestroy(module));
    free(spirv.data);
}

static int zc_child_tolerated(int argc, char **argv) {
    (void)argc;
    (void)argv;
    zc_exec *x = zc_child_exec_begin();
    if (x == NULL)
        return 2;
    zc_tolerance_count(1); /* from here on only this program's violations */
    ze_context_desc_t context_desc = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0};
    ze_context_handle_t other = NULL;
    zc_assert_success(zeContextCreate(zc_sys()->driver, &context_desc, &other));
    zc_bad_ordinal(x, "ordinal", false);
    zc_bad_ordinal(x, "ordinal_again", false);
    zc_bad_ordinal(x, "ordinal_shared", true);
    zc_zero_stype(x);
    zc_free_ext_other_stype(x);
    zc_pool_before_events(x);
    zc_kernel_tolerances(x, other);
    zc_query_tolerance(x, other);
    zc_tracer_tolerances(x);
    zc_virtual_tolerances(x);
    zc_media_outside_2d(x);
    zc_calculate_nothing(x);
    zc_unlisted_interface(x);
#if ZC_L0_AT_LEAST(6)
    zc_put_foreign_handles(x);
#endif
#if ZC_L0_AT_LEAST(7)
    zc_in_order_relaxed(x);
#endif
#if ZC_L0_AT_LEAST(10)
    zc_init_drivers_zero_stype();
#endif
    printf("count=%llu\n", (unsigned long long)zc_tolerance_count(1));
    printf("after_reset=%llu\n", (unsigned long long)zc_tolerance_count(0));
    fflush(stdout);
    zc_assert_success(zeContextDestroy(other));
    return zc_child_exec_end(x);
}

/* ------------------------------------------------------------------------------------------------------------------
 * The parent */

/* The child in a fresh process with layers/tracing first in LD_LIBRARY_PATH, the tracing layer on, and `extra`. */
static void zc_run_tolerated(const char *extra, const char *scenario, zc_child *child) {
    const char *old = getenv("LD_LIBRARY_PATH");
    char library_path[4096], scenario_variable[512];
    snprintf(library_path, sizeof library_path, "LD_LIBRARY_PATH=%s%s%s", ZC_OUR_LAYER_DIR,
             old != NULL && *old != '\0' ? ":" : "", old != NULL ? old : "");
    snprintf(scenario_variable, sizeof scenario_variable, "ZEFAKE_SCENARIO=%s", scenario != NULL ? scenario : "");
    const char *env[] = {library_path, "ZE_ENABLE_TRACING_LAYER=1", "ZEFAKE_LOG=warn", extra, NULL, NULL};
    if (scenario != NULL)
        env[extra != NULL ? 4 : 3] = scenario_variable;
    if (!zc_run_child_mode("tolerated", NULL, env, ZC_CHILD_TIMEOUT_MS, child))
        zc_fail("cannot start a child process");
    zc_assert_child_ok(child, "the tolerated child");
}

static void zc_expect(const zc_child *child, const char *key, const char *expected) {
    char value[128];
    if (!zc_child_value(child, key, value, sizeof value))
        zc_fail("the child printed no %s; stdout:\n%s", key, child->out);
    if (strcmp(value, expected) != 0)
        zc_fail("%s=%s, expected %s; stderr:\n%s", key, value, expected, child->err);
}

static unsigned zc_occurrences(const char *text, const char *what) {
    unsigned n = 0;
    for (const char *at = strstr(text, what); at != NULL; at = strstr(at + 1, what))
        n++;
    return n;
}

/* The calls that break a rule and what the specification answers (strict). */
static const struct {
    const char *key;
    const char *strict;
} zc_refused[] = {
    {"ordinal", "ZE_RESULT_ERROR_INVALID_ARGUMENT"},
    {"ordinal_again", "ZE_RESULT_ERROR_INVALID_ARGUMENT"},
    {"ordinal_shared", "ZE_RESULT_ERROR_INVALID_ARGUMENT"},
    {"free_ext", "ZE_RESULT_ERROR_INVALID_ARGUMENT"},
    {"pool_destroy", "ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE"},
    {"narrow_arg", "ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE"},
    {"cross_kernel", "ZE_RESULT_ERROR_INVALID_ARGUMENT"},
    {"query_begin", "ZE_RESULT_ERROR_INVALID_ARGUMENT"},
    {"query_end", "ZE_RESULT_ERROR_INVALID_ARGUMENT"},
    {"query_end_event", "ZE_RESULT_ERROR_INVALID_ARGUMENT"},
    {"wait_event", "ZE_RESULT_ERROR_INVALID_ARGUMENT"},
    {"zel_tracer", "ZE_RESULT_ERROR_INVALID_NULL_POINTER"},
    {"tracer_exp", "ZE_RESULT_ERROR_INVALID_NULL_POINTER"},
    {"vm_access", "ZE_RESULT_ERROR_INVALID_ARGUMENT"},
    {"image_props", "ZE_RESULT_ERROR_UNSUPPORTED_IMAGE_FORMAT"},
    {"calc_plain", "ZE_RESULT_NOT_READY"},
    {"calc_multi", "ZE_RESULT_NOT_READY"},
    {"unlisted", "ZE_RESULT_ERROR_MODULE_BUILD_FAILURE"},
#if ZC_L0_AT_LEAST(6)
    {"mem_put", "ZE_RESULT_ERROR_INVALID_ARGUMENT"},
    {"pool_put", "ZE_RESULT_ERROR_INVALID_ARGUMENT"},
#endif
#if ZC_L0_AT_LEAST(7)
    {"in_order_relaxed", "ZE_RESULT_ERROR_INVALID_ARGUMENT"},
#endif
#if ZC_L0_AT_LEAST(10)
    {"init_drivers", "ZE_RESULT_ERROR_INVALID_ARGUMENT"},
#endif
#if ZC_L0_AT_LEAST(11)
    {"binary_size", "ZE_RESULT_ERROR_INVALID_NULL_POINTER"},
#endif
};

/* The functions that warn in the default profile: one line per rule and function (a function listed twice breaks two
 * rules). */
static const char *const zc_warned[] = {
    "zeMemAllocDevice",
    "zeMemAllocShared",
    "zeDeviceGetProperties",
    "zeMemFreeExt",
    "zeEventPoolDestroy",
    "zeKernelSetArgumentValue",
    "zeCommandListAppendLaunchKernel",
    "zetCommandListAppendMetricQueryBegin",
    "zetCommandListAppendMetricQueryEnd",
    "zetCommandListAppendMetricQueryEnd", /* a second rule: the signal event's context */
    "zeCommandListAppendBarrier",
    "zelTracerCreate",
    "zetTracerExpCreate",
    "zeVirtualMemSetAccessAttribute",
    "zeImageGetProperties",
    "zetMetricGroupCalculateMetricValues",
    "zetMetricGroupCalculateMultipleMetricValuesExp",
    "zeModuleCreate",
#if ZC_L0_AT_LEAST(6)
    "zeMemPutIpcHandle",
    "zeEventPoolPutIpcHandle",
#endif
#if ZC_L0_AT_LEAST(7)
    "zeCommandListCreate",
#endif
#if ZC_L0_AT_LEAST(10)
    "zeInitDrivers",
#endif
#if ZC_L0_AT_LEAST(11)
    "zeKernelGetBinaryExp",
#endif
};

/* Every tolerated call but zelTracerCreate's (the layer's) is counted; zeMemAllocDevice twice. */
#define ZC_DEFAULT_COUNT ((uint64_t)ZC_COUNT(zc_refused) - 1u)

/* What both profiles answer the same. */
static void zc_check_common(const zc_child *child) {
    zc_expect(child, "out_stype", "ZE_RESULT_SUCCESS");
    zc_expect(child, "event_destroy", "ZE_RESULT_SUCCESS");
    assert_int_equal(zc_child_number(child, "event_usable"), 1);
    zc_expect(child, "ipc_virtual", "ZE_RESULT_ERROR_INVALID_ARGUMENT"); /* Intel's driver refuses it too */
    assert_int_equal(zc_child_number(child, "after_reset"), 0);
    /* Both profiles fill the output structure, and its warning says so rather than promising another result. */
    if (zc_occurrences(child->err, "the same with ZEFAKE_STRICT=1") != 1)
        zc_fail("the output structure's warning does not say the strict profile answers the same:\n%s", child->err);
}

static void zc_check_default(const zc_child *child) {
    zc_check_common(child);
    for (size_t i = 0; i < ZC_COUNT(zc_refused); i++)
        zc_expect(child, zc_refused[i].key, "ZE_RESULT_SUCCESS");
    assert_int_equal(zc_child_number(child, "freed"), 1);
    assert_int_equal(zc_child_number(child, "zero_extended"), 1);
    zc_expect(child, "narrow_launch", "ZE_RESULT_SUCCESS");
    assert_int_equal(zc_child_number(child, "cross_ran"), 1);
    zc_expect(child, "query_data", "ZE_RESULT_SUCCESS");
    assert_int_equal(zc_child_number(child, "event_signalled"), 1);
    assert_int_equal(zc_child_number(child, "traced_null_user_data"), 1);
    assert_int_equal(zc_child_number(child, "vm_first"), ZE_MEMORY_ACCESS_ATTRIBUTE_READONLY);
    assert_int_equal(zc_child_number(child, "vm_second"), ZE_MEMORY_ACCESS_ATTRIBUTE_NONE);
    assert_int_equal(zc_child_number(child, "image_filters"),
                     ZE_IMAGE_SAMPLER_FILTER_FLAG_POINT | ZE_IMAGE_SAMPLER_FILTER_FLAG_LINEAR);
    assert_int_equal(zc_child_number(child, "calc_count"), 0);
    assert_int_equal(zc_child_number(child, "calc_total"), 0);
    assert_int_equal(zc_child_number(child, "count"), ZC_DEFAULT_COUNT + 1u); /* + the output structure */
    for (size_t i = 0; i < ZC_COUNT(zc_warned); i++) {
        unsigned rules = 0;
        for (size_t j = 0; j < ZC_COUNT(zc_warned); j++)
            rules += strcmp(zc_warned[i], zc_warned[j]) == 0;
        char line[160];
        snprintf(line, sizeof line, "warn: %s: ", zc_warned[i]);
        if (zc_occurrences(child->err, line) != rules)
            zc_fail("%u warnings of %s, expected %u; stderr:\n%s", zc_occurrences(child->err, line), zc_warned[i],
                    rules, child->err);
    }
}

/* `by_environment`: ZEFAKE_STRICT=1 chose the profile. The scenario's key does not reach the tracing layer, which
 * then keeps the default profile (docs/tolerances.md). */
static void zc_check_strict(const zc_child *child, bool by_environment) {
    zc_check_common(child);
    for (size_t i = 0; i < ZC_COUNT(zc_refused); i++) {
        bool layer = strcmp(zc_refused[i].key, "zel_tracer") == 0;
        zc_expect(child, zc_refused[i].key, layer && !by_environment ? "ZE_RESULT_SUCCESS" : zc_refused[i].strict);
    }
    assert_int_equal(zc_child_number(child, "count"), 1); /* the output structure: no refusal in its @returns */
    if (zc_occurrences(child->err, "breaks the rule") != (by_environment ? 1u : 2u))
        zc_fail("the strict profile warned of a tolerance other than the output structure's:\n%s", child->err);
}

static void default_profile_runs_as_on_intels_driver(void **state) {
    (void)state;
    zc_skip_unless_fake();
    zc_child child;
    zc_run_tolerated(NULL, NULL, &child);
    zc_check_default(&child);
    zc_child_free(&child);
}

static void strict_profile_answers_the_specification(void **state) {
    (void)state;
    zc_skip_unless_fake();
    zc_child child;
    zc_run_tolerated("ZEFAKE_STRICT=1", NULL, &child);
    zc_check_strict(&child, true);
    zc_child_free(&child);
}

/* The default scenario with `strict: true` added at the top level, in a temporary file (`path` holds its name). */
static bool zc_strict_scenario(char *path) {
    FILE *in = fopen(ZC_SCENARIO_DIR "/default.yaml", "rb");
    int fd = mkstemps(path, 5);
    FILE *out = fd >= 0 ? fdopen(fd, "wb") : NULL;
    bool ok = in != NULL && out != NULL;
    char buffer[4096];
    for (size_t n; ok && (n = fread(buffer, 1, sizeof buffer, in)) > 0;)
        ok = fwrite(buffer, 1, n, out) == n;
    ok = ok && fputs("\nstrict: true\n", out) >= 0;
    if (in != NULL)
        fclose(in);
    if (out != NULL)
        ok = fclose(out) == 0 && ok;
    else if (fd >= 0)
        close(fd);
    return ok;
}

static void scenario_key_chooses_the_profile_unless_the_environment_does(void **state) {
    (void)state;
    zc_skip_unless_fake();
    char path[] = "/tmp/zc_strict_XXXXXX.yaml";
    if (!zc_strict_scenario(path))
        zc_fail("cannot write a scenario file");
    zc_child child;
    zc_run_tolerated(NULL, path, &child);
    zc_check_strict(&child, false);
    zc_child_free(&child);
    zc_run_tolerated("ZEFAKE_STRICT=0", path, &child); /* set, the variable overrides the key */
    zc_check_default(&child);
    zc_child_free(&child);
    unlink(path);
}

static void tolerance_count_refuses_null(void **state) {
    (void)state;
    zc_skip_unless_fake();
    zefake_pfnGetToleranceCount_t get = NULL;
    zc_assert_success(
        zeDriverGetExtensionFunctionAddress(zc_sys()->driver, ZEFAKE_FN_GET_TOLERANCE_COUNT, (void **)&get));
    zc_assert_result(get(NULL, 0), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
}

int main(int argc, char **argv) {
    static const struct CMUnitTest tests[] = {
        cmocka_unit_test(default_profile_runs_as_on_intels_driver),
        cmocka_unit_test(strict_profile_answers_the_specification),
        cmocka_unit_test(scenario_key_chooses_the_profile_unless_the_environment_does),
        cmocka_unit_test(tolerance_count_refuses_null),
    };
    static const zc_child_mode modes[] = {{"tolerated", zc_child_tolerated}};
    static const zc_suite suite = {ZC_EXECUTABLE,      tests, ZC_COUNT(tests), zc_setup_system,
                                   zc_teardown_system, modes, ZC_COUNT(modes)};
    return zc_main(argc, argv, &suite);
}
