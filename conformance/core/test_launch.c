/* Conformance: kernel launches through command lists (direct, cooperative, indirect, multiple indirect) with the
 * built-in test kernels computing real results; on the fake, kernel timestamps that follow the cost model. */
#include "zc_cost_model.h"
#include "zc_exec.h"
#include "zc_kernel_files.h"

#include <inttypes.h>

#define ZC_N 4096u

typedef struct zc_launch_fixture {
    zc_exec x;
    ze_module_handle_t vadd;
    ze_module_handle_t gemm;
    ze_module_handle_t saxpy;
} zc_launch_fixture;

static int zc_setup_launch(void **state) {
    void *exec = NULL;
    if (zc_setup_exec(&exec) != 0)
        return -1;
    zc_launch_fixture *f = calloc(1, sizeof *f);
    if (f == NULL)
        return -1;
    f->x = *(zc_exec *)exec;
    free(exec);
    f->vadd = zc_module_create(f->x.context, f->x.device, "vadd");
    f->gemm = zc_module_create(f->x.context, f->x.device, "gemm");
    f->saxpy = zc_module_create(f->x.context, f->x.device, "saxpy");
    *state = f;
    return 0;
}

static int zc_teardown_launch(void **state) {
    zc_launch_fixture *f = *state;
    bool ok = zeModuleDestroy(f->vadd) == ZE_RESULT_SUCCESS && zeModuleDestroy(f->gemm) == ZE_RESULT_SUCCESS &&
              zeModuleDestroy(f->saxpy) == ZE_RESULT_SUCCESS && zeContextDestroy(f->x.context) == ZE_RESULT_SUCCESS;
    free(f);
    return ok ? 0 : -1;
}

static void zc_set_pointer(ze_kernel_handle_t kernel, uint32_t index, const void *ptr) {
    zc_assert_success(zeKernelSetArgumentValue(kernel, index, sizeof ptr, &ptr));
}

/* a, b on the host -> device buffers -> c = a + b -> host, all in one list. */
static ze_kernel_handle_t zc_vadd_list(zc_launch_fixture *f, ze_command_list_handle_t list, int32_t *a, int32_t *b,
                                       int32_t *out, ze_event_handle_t timed) {
    zc_exec *x = &f->x;
    void *da = zc_device_alloc(x, ZC_N * 4), *db = zc_device_alloc(x, ZC_N * 4), *dc = zc_device_alloc(x, ZC_N * 4);
    ze_kernel_handle_t kernel = zc_kernel_create(f->vadd, "vadd_int");
    zc_set_pointer(kernel, 0, da);
    zc_set_pointer(kernel, 1, db);
    zc_set_pointer(kernel, 2, dc);
    zc_assert_success(zeKernelSetGroupSize(kernel, 64, 1, 1));
    ze_group_count_t groups = {ZC_N / 64, 1, 1};
    zc_assert_success(zeCommandListAppendMemoryCopy(list, da, a, ZC_N * 4, NULL, 0, NULL));
    zc_assert_success(zeCommandListAppendMemoryCopy(list, db, b, ZC_N * 4, NULL, 0, NULL));
    zc_assert_success(zeCommandListAppendBarrier(list, NULL, 0, NULL));
    zc_assert_success(zeCommandListAppendLaunchKernel(list, kernel, &groups, timed, 0, NULL));
    zc_assert_success(zeCommandListAppendBarrier(list, NULL, 0, NULL));
    zc_assert_success(zeCommandListAppendMemoryCopy(list, out, dc, ZC_N * 4, NULL, 0, NULL));
    return kernel;
}

static void launch_vector_add_end_to_end(void **state) {
    zc_launch_fixture *f = *state;
    zc_exec *x = &f->x;
    ze_command_queue_handle_t queue = zc_queue(x, x->compute_ordinal, 0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_event_pool_handle_t pool = zc_event_pool(x, 1, ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP);
    ze_event_handle_t timed = zc_event(pool, 0);
    int32_t *a = zc_host_alloc(x, ZC_N * 4), *b = zc_host_alloc(x, ZC_N * 4), *c = zc_host_alloc(x, ZC_N * 4);
    for (uint32_t i = 0; i < ZC_N; i++) {
        a[i] = (int32_t)i * 3;
        b[i] = 1000 - (int32_t)i;
    }
    ze_command_list_handle_t list = zc_list(x, x->compute_ordinal);
    ze_kernel_handle_t kernel = zc_vadd_list(f, list, a, b, c, timed);
    zc_run(queue, list);
    for (uint32_t i = 0; i < ZC_N; i++) {
        if (c[i] != a[i] + b[i])
            zc_fail("c[%u] = %d, expected %d", i, c[i], a[i] + b[i]);
    }
    ze_kernel_timestamp_result_t ts;
    zc_assert_success(zeEventQueryKernelTimestamp(timed, &ts));
    assert_true(ts.global.kernelStart < ts.global.kernelEnd);
    if (zc_driver_is_fake()) {
        /* docs/cost-model.md: the command, then the slowest tile's roofline of vadd's work (64 groups of 64). */
        ze_device_properties_t p = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2};
        zc_assert_success(zeDeviceGetProperties(x->device, &p));
        zc_model m = zc_model_of(x->device);
        uint64_t ns = ZC_MODEL_COMMAND_NS + zc_model_kernel_ns(&m, &zc_vadd_work, ZC_N / 64, 64);
        uint64_t ticks = ts.global.kernelEnd - ts.global.kernelStart, low = ns * p.timerResolution / 1000000000u;
        if (ticks < low || ticks > low + 1)
            zc_fail("vadd took %" PRIu64 " ticks; the cost model gives %" PRIu64 " ns = %" PRIu64 " ticks", ticks, ns,
                    low);
    }
    zc_assert_success(zeCommandListDestroy(list));
    zc_assert_success(zeKernelDestroy(kernel));
    zc_assert_success(zeEventDestroy(timed));
    zc_assert_success(zeEventPoolDestroy(pool));
    zc_assert_success(zeCommandQueueDestroy(queue));
}

static void launch_gemm_computes_product(void **state) {
    zc_launch_fixture *f = *state;
    zc_exec *x = &f->x;
    const uint32_t m = 24, n = 40, k = 16;
    float *a = zc_host_alloc(x, m * k * 4), *b = zc_host_alloc(x, k * n * 4), *c = zc_host_alloc(x, m * n * 4);
    for (uint32_t i = 0; i < m * k; i++)
        a[i] = (float)(i % 7) - 3.0f;
    for (uint32_t i = 0; i < k * n; i++)
        b[i] = (float)(i % 5) * 0.5f;
    ze_kernel_handle_t kernel = zc_kernel_create(f->gemm, "gemm");
    zc_set_pointer(kernel, 0, a);
    zc_set_pointer(kernel, 1, b);
    zc_set_pointer(kernel, 2, c);
    zc_assert_success(zeKernelSetArgumentValue(kernel, 3, sizeof m, &m));
    zc_assert_success(zeKernelSetArgumentValue(kernel, 4, sizeof n, &n));
    zc_assert_success(zeKernelSetArgumentValue(kernel, 5, sizeof k, &k));
    zc_assert_success(zeKernelSetGroupSize(kernel, 8, 8, 1));
    ze_group_count_t groups = {n / 8, m / 8, 1};
    ze_command_list_handle_t list = zc_immediate(x, x->compute_ordinal, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
    zc_assert_success(zeCommandListAppendLaunchKernel(list, kernel, &groups, NULL, 0, NULL));
    for (uint32_t row = 0; row < m; row++)
        for (uint32_t col = 0; col < n; col++) {
            float want = 0.0f;
            for (uint32_t i = 0; i < k; i++)
                want += a[row * k + i] * b[i * n + col];
            if (c[row * n + col] != want)
                zc_fail("C[%u][%u] = %f, expected %f", row, col, (double)c[row * n + col], (double)want);
        }
    zc_assert_success(zeCommandListDestroy(list));
    zc_assert_success(zeKernelDestroy(kernel));
}

/* The arguments of an append are those set before it: changing them afterwards affects only later appends. */
static void launch_arguments_captured_at_append(void **state) {
    zc_launch_fixture *f = *state;
    zc_exec *x = &f->x;
    float *xs = zc_host_alloc(x, ZC_N * 4), *y1 = zc_host_alloc(x, ZC_N * 4), *y2 = zc_host_alloc(x, ZC_N * 4);
    for (uint32_t i = 0; i < ZC_N; i++) {
        xs[i] = (float)i;
        y1[i] = 1.0f;
        y2[i] = 2.0f;
    }
    ze_kernel_handle_t kernel = zc_kernel_create(f->saxpy, "saxpy");
    float alpha = 2.0f;
    zc_assert_success(zeKernelSetArgumentValue(kernel, 0, sizeof alpha, &alpha));
    zc_set_pointer(kernel, 1, xs);
    zc_set_pointer(kernel, 2, y1);
    zc_assert_success(zeKernelSetGroupSize(kernel, 32, 1, 1));
    ze_group_count_t groups = {ZC_N / 32, 1, 1};
    ze_command_list_handle_t list = zc_list(x, x->compute_ordinal);
    zc_assert_success(zeCommandListAppendLaunchKernel(list, kernel, &groups, NULL, 0, NULL));
    alpha = 3.0f;
    zc_assert_success(zeKernelSetArgumentValue(kernel, 0, sizeof alpha, &alpha));
    zc_set_pointer(kernel, 2, y2);
    zc_assert_success(zeCommandListAppendLaunchKernel(list, kernel, &groups, NULL, 0, NULL));
    ze_command_queue_handle_t queue = zc_queue(x, x->compute_ordinal, 0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    zc_run(queue, list);
    for (uint32_t i = 0; i < ZC_N; i++) {
        if (y1[i] != 2.0f * (float)i + 1.0f || y2[i] != 3.0f * (float)i + 2.0f)
            zc_fail("element %u: y1 %f, y2 %f", i, (double)y1[i], (double)y2[i]);
    }
    zc_assert_success(zeCommandListDestroy(list));
    zc_assert_success(zeKernelDestroy(kernel));
    zc_assert_success(zeCommandQueueDestroy(queue));
}

/* Indirect launches read their group count when they execute, not when they are appended. */
static void launch_indirect_reads_group_count_at_execution(void **state) {
    zc_launch_fixture *f = *state;
    zc_exec *x = &f->x;
    int32_t *a = zc_host_alloc(x, ZC_N * 4), *b = zc_host_alloc(x, ZC_N * 4), *c = zc_host_alloc(x, ZC_N * 4);
    for (uint32_t i = 0; i < ZC_N; i++) {
        a[i] = 1;
        b[i] = 2;
        c[i] = 0;
    }
    ze_group_count_t *groups = zc_host_alloc(x, 2 * sizeof *groups);
    uint32_t *count = zc_host_alloc(x, sizeof *count);
    ze_kernel_handle_t kernel = zc_kernel_create(f->vadd, "vadd_int");
    zc_set_pointer(kernel, 0, a);
    zc_set_pointer(kernel, 1, b);
    zc_set_pointer(kernel, 2, c);
    zc_assert_success(zeKernelSetGroupSize(kernel, 64, 1, 1));
    ze_command_list_handle_t list = zc_list(x, x->compute_ordinal);
    groups[0] = (ze_group_count_t){1, 1, 1};
    zc_assert_success(zeCommandListAppendLaunchKernelIndirect(list, kernel, groups, NULL, 0, NULL));
    ze_kernel_handle_t kernels[2] = {kernel, kernel};
    zc_assert_success(zeCommandListAppendLaunchMultipleKernelsIndirect(list, 2, kernels, count, groups, NULL, 0, NULL));
    groups[0] = (ze_group_count_t){ZC_N / 64 / 2, 1, 1}; /* changed after the appends: the first half */
    groups[1] = (ze_group_count_t){ZC_N / 64, 1, 1};
    *count = 1; /* only the first kernel of the multiple launch runs */
    ze_command_queue_handle_t queue = zc_queue(x, x->compute_ordinal, 0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    zc_run(queue, list);
    assert_int_equal(c[0], 3);
    assert_int_equal(c[ZC_N / 2 - 1], 3);
    assert_int_equal(c[ZC_N / 2], 0);
    assert_int_equal(c[ZC_N - 1], 0);
    zc_assert_success(zeCommandListDestroy(list));
    zc_assert_success(zeKernelDestroy(kernel));
    zc_assert_success(zeCommandQueueDestroy(queue));
}

static void launch_cooperative_on_compute_group(void **state) {
    zc_launch_fixture *f = *state;
    zc_exec *x = &f->x;
    ze_command_queue_group_property_flags_t flags = x->groups[x->compute_ordinal].flags;
    int32_t *a = zc_host_alloc(x, 256), *b = zc_host_alloc(x, 256), *c = zc_host_alloc(x, 256);
    memset(a, 0, 256);
    memset(b, 0, 256);
    ze_kernel_handle_t kernel = zc_kernel_create(f->vadd, "vadd_int");
    zc_set_pointer(kernel, 0, a);
    zc_set_pointer(kernel, 1, b);
    zc_set_pointer(kernel, 2, c);
    zc_assert_success(zeKernelSetGroupSize(kernel, 64, 1, 1));
    ze_group_count_t groups = {1, 1, 1};
    ze_command_list_handle_t list = zc_immediate(x, x->compute_ordinal, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
    ze_result_t result = zeCommandListAppendLaunchCooperativeKernel(list, kernel, &groups, NULL, 0, NULL);
    if (flags & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COOPERATIVE_KERNELS)
        zc_assert_result(result, ZE_RESULT_SUCCESS);
    else
        zc_assert_error(result);
    zc_assert_success(zeCommandListDestroy(list));
    zc_assert_success(zeKernelDestroy(kernel));
}

static void launch_on_copy_only_list_rejected(void **state) {
    zc_launch_fixture *f = *state;
    zc_exec *x = &f->x;
    if (x->copy_ordinal == ZC_NO_ORDINAL)
        skip();
    ze_kernel_handle_t kernel = zc_kernel_create(f->vadd, "vadd_int");
    ze_command_list_handle_t list = zc_list(x, x->copy_ordinal);
    ze_group_count_t groups = {1, 1, 1};
    zc_assert_error(zeCommandListAppendLaunchKernel(list, kernel, &groups, NULL, 0, NULL));
    zc_assert_success(zeCommandListDestroy(list));
    zc_assert_success(zeKernelDestroy(kernel));
}

static void launch_bad_inputs(void **state) {
    zc_launch_fixture *f = *state;
    zc_exec *x = &f->x;
    ze_kernel_handle_t kernel = zc_kernel_create(f->vadd, "vadd_int");
    ze_command_list_handle_t list = zc_list(x, x->compute_ordinal);
    ze_group_count_t groups = {1, 1, 1};
    zc_assert_result(zeCommandListAppendLaunchKernel(list, NULL, &groups, NULL, 0, NULL),
                     ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zeCommandListAppendLaunchKernel(list, kernel, NULL, NULL, 0, NULL),
                     ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zeCommandListAppendLaunchKernel(list, kernel, &groups, NULL, 2, NULL),
                     ZE_RESULT_ERROR_INVALID_SIZE);
    if (zc_driver_is_fake()) {
        /* Arguments never set. */
        zc_assert_result(zeCommandListAppendLaunchKernel(list, kernel, &groups, NULL, 0, NULL),
                         ZE_RESULT_ERROR_INVALID_ARGUMENT);
        ze_kernel_handle_t destroyed = zc_kernel_create(f->vadd, "vadd_int");
        zc_assert_success(zeKernelDestroy(destroyed));
        zc_assert_result(zeCommandListAppendLaunchKernel(list, destroyed, &groups, NULL, 0, NULL),
                         ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    }
    zc_assert_success(zeCommandListDestroy(list));
    zc_assert_success(zeKernelDestroy(kernel));
}

int main(int argc, char **argv) {
#define ZC_FIXTURE launch
    static const struct CMUnitTest tests[] = {
        ZC_T(launch_vector_add_end_to_end),
        ZC_T(launch_gemm_computes_product),
        ZC_T(launch_arguments_captured_at_append),
        ZC_T(launch_indirect_reads_group_count_at_execution),
        ZC_T(launch_cooperative_on_compute_group),
        ZC_T(launch_on_copy_only_list_rejected),
        ZC_T(launch_bad_inputs),
    };
    static const zc_suite suite = {ZC_EXECUTABLE, tests, ZC_COUNT(tests), zc_setup_system, zc_teardown_system, NULL, 0};
    return zc_main(argc, argv, &suite);
}
