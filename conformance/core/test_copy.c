/* Conformance: memory copies (plain, region, from another context) on compute and copy engines. */
#include "zc_exec.h"

typedef void *(*zc_alloc_fn)(zc_exec *x, size_t size);

static void zc_copy_and_check(zc_exec *x, uint32_t ordinal, zc_alloc_fn src_alloc, zc_alloc_fn dst_alloc, size_t size) {
    ze_command_queue_handle_t queue = zc_queue(x, ordinal, 0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    uint8_t *expected = malloc(size > 0 ? size : 1);
    uint8_t *src = src_alloc(x, size > 0 ? size : 1);
    uint8_t *mid = dst_alloc(x, size > 0 ? size : 1);
    uint8_t *out = zc_host_alloc(x, size > 0 ? size : 1);
    zc_fill_pattern(expected, size, (uint32_t)size);
    ze_command_list_handle_t list = zc_list(x, ordinal);
    /* Host -> src through the list too, so device allocations are filled without touching them from the host. */
    zc_assert_success(zeCommandListAppendMemoryCopy(list, src, expected, size, NULL, 0, NULL));
    zc_assert_success(zeCommandListAppendBarrier(list, NULL, 0, NULL));
    zc_assert_success(zeCommandListAppendMemoryCopy(list, mid, src, size, NULL, 0, NULL));
    zc_assert_success(zeCommandListAppendBarrier(list, NULL, 0, NULL));
    zc_assert_success(zeCommandListAppendMemoryCopy(list, out, mid, size, NULL, 0, NULL));
    zc_run(queue, list);
    if (size > 0 && memcmp(out, expected, size) != 0)
        zc_fail("copy of %zu bytes on group %u came back different", size, ordinal);
    zc_assert_success(zeCommandListDestroy(list));
    zc_free(x, src);
    zc_free(x, mid);
    zc_free(x, out);
    free(expected);
    zc_assert_success(zeCommandQueueDestroy(queue));
}

static const size_t zc_sizes[] = {0, 1, 3, 64, 4095, 4096, 65537, 4u << 20};

static void copy_host_device_host_every_size(void **state) {
    zc_exec *x = *state;
    for (size_t i = 0; i < ZC_COUNT(zc_sizes); i++)
        zc_copy_and_check(x, x->compute_ordinal, zc_host_alloc, zc_device_alloc, zc_sizes[i]);
}

static void copy_device_to_device(void **state) {
    zc_exec *x = *state;
    zc_copy_and_check(x, x->compute_ordinal, zc_device_alloc, zc_device_alloc, 1u << 20);
}

static void copy_on_copy_engine(void **state) {
    zc_exec *x = *state;
    if (x->copy_ordinal == ZC_NO_ORDINAL)
        skip();
    zc_copy_and_check(x, x->copy_ordinal, zc_host_alloc, zc_device_alloc, 1u << 20);
}

static void copy_overlapping_regions_rejected(void **state) {
    zc_exec *x = *state;
    uint8_t *buffer = zc_host_alloc(x, 256);
    ze_command_list_handle_t list = zc_list(x, x->compute_ordinal);
    zc_assert_result(zeCommandListAppendMemoryCopy(list, buffer + 16, buffer, 64, NULL, 0, NULL),
                     ZE_RESULT_ERROR_OVERLAPPING_REGIONS);
    zc_assert_success(zeCommandListAppendMemoryCopy(list, buffer + 64, buffer, 64, NULL, 0, NULL));
    zc_assert_success(zeCommandListDestroy(list));
    zc_free(x, buffer);
}

/* A 3-D box of 5 x 4 x 3 bytes out of a 16 x 8 x 4 volume into a 8 x 6 x 5 one, at different origins. */
static void copy_region_3d_moves_exactly_the_box(void **state) {
    zc_exec *x = *state;
    ze_command_queue_handle_t queue = zc_queue(x, x->compute_ordinal, 0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    const uint32_t sp = 16, ss = 16 * 8, dp = 8, ds = 8 * 6;
    uint8_t *src = zc_host_alloc(x, ss * 4);
    uint8_t *dst = zc_host_alloc(x, ds * 5);
    zc_fill_pattern(src, ss * 4, 3);
    memset(dst, 0xEE, ds * 5);
    ze_copy_region_t src_region = {2, 1, 1, 5, 4, 3};
    ze_copy_region_t dst_region = {1, 2, 0, 5, 4, 3};
    ze_command_list_handle_t list = zc_list(x, x->compute_ordinal);
    zc_assert_success(
        zeCommandListAppendMemoryCopyRegion(list, dst, &dst_region, dp, ds, src, &src_region, sp, ss, NULL, 0, NULL));
    zc_run(queue, list);
    for (uint32_t z = 0; z < 5; z++)
        for (uint32_t y = 0; y < 6; y++)
            for (uint32_t xx = 0; xx < 8; xx++) {
                bool inside = xx >= 1 && xx < 6 && y >= 2 && y < 6 && z < 3;
                uint8_t want = inside ? src[(z + 1) * ss + (y - 2 + 1) * sp + (xx - 1 + 2)] : 0xEE;
                uint8_t got = dst[z * ds + y * dp + xx];
                if (got != want)
                    zc_fail("dst (%u, %u, %u) is 0x%02x, expected 0x%02x", xx, y, z, got, want);
            }
    zc_assert_success(zeCommandListDestroy(list));
    zc_free(x, src);
    zc_free(x, dst);
    zc_assert_success(zeCommandQueueDestroy(queue));
}

static void copy_region_mismatched_sizes_rejected(void **state) {
    zc_exec *x = *state;
    uint8_t *buffer = zc_host_alloc(x, 4096);
    ze_copy_region_t a = {0, 0, 0, 8, 8, 0};
    ze_copy_region_t b = {0, 0, 0, 8, 4, 0};
    ze_command_list_handle_t list = zc_list(x, x->compute_ordinal);
    zc_assert_error(
        zeCommandListAppendMemoryCopyRegion(list, buffer, &a, 64, 0, buffer + 2048, &b, 64, 0, NULL, 0, NULL));
    zc_assert_result(
        zeCommandListAppendMemoryCopyRegion(list, buffer, NULL, 64, 0, buffer + 2048, &b, 64, 0, NULL, 0, NULL),
        ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_success(zeCommandListDestroy(list));
    zc_free(x, buffer);
}

static void copy_from_other_context(void **state) {
    zc_exec *x = *state;
    ze_command_queue_handle_t queue = zc_queue(x, x->compute_ordinal, 0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    zc_exec other = *x;
    ze_context_desc_t desc = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0};
    zc_assert_success(zeContextCreate(zc_sys()->driver, &desc, &other.context));
    uint8_t *src = zc_host_alloc(&other, 512);
    uint8_t *dst = zc_host_alloc(x, 512);
    zc_fill_pattern(src, 512, 77);
    ze_command_list_handle_t list = zc_list(x, x->compute_ordinal);
    zc_assert_success(zeCommandListAppendMemoryCopyFromContext(list, dst, other.context, src, 512, NULL, 0, NULL));
    zc_run(queue, list);
    assert_memory_equal(dst, src, 512);
    zc_assert_success(zeCommandListDestroy(list));
    zc_free(&other, src);
    zc_free(x, dst);
    zc_assert_success(zeContextDestroy(other.context));
    zc_assert_success(zeCommandQueueDestroy(queue));
}

/* In a fresh process (a fault marks the device for the rest of the process, and drivers do not survive fork): a
 * copy that runs past the end of its allocation is not performed, still completes, and the device reports it. */
static int zc_out_of_bounds_child(int argc, char **argv) {
    (void)argc;
    (void)argv;
    zc_exec *x = zc_child_exec_begin();
    if (x == NULL)
        return 2;
    ze_command_queue_handle_t queue = zc_queue(x, x->compute_ordinal, 0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    uint8_t *small = zc_device_alloc(x, 64);
    uint8_t *big = zc_host_alloc(x, 4096);
    memset(big, 0x33, 4096);
    ze_event_pool_handle_t pool = zc_event_pool(x, 1, 0);
    ze_event_handle_t done = zc_event(pool, 0);
    ze_command_list_handle_t list = zc_list(x, x->compute_ordinal);
    zc_assert_success(zeCommandListAppendMemoryCopy(list, small, big, 4096, done, 0, NULL));
    zc_run(queue, list);
    zc_assert_success(zeEventQueryStatus(done));
    zc_assert_result(zeDeviceGetStatus(x->device), ZE_RESULT_ERROR_DEVICE_LOST);
    zc_assert_success(zeCommandListDestroy(list));
    zc_assert_success(zeEventDestroy(done));
    zc_assert_success(zeEventPoolDestroy(pool));
    zc_free(x, small);
    zc_free(x, big);
    zc_assert_success(zeCommandQueueDestroy(queue));
    return zc_child_exec_end(x);
}

static void copy_out_of_bounds_faults_device(void **state) {
    zc_skip_unless_fake();
    (void)state;
    zc_child child;
    assert_true(zc_run_child_mode("out-of-bounds", NULL, NULL, ZC_CHILD_TIMEOUT_MS, &child));
    zc_assert_child_ok(&child, "out-of-bounds copy child");
    if (strstr(child.err, "fault") == NULL)
        zc_fail("the fault was not reported on stderr: %s", child.err);
    zc_child_free(&child);
}

int main(int argc, char **argv) {
#define ZC_FIXTURE exec
    static const struct CMUnitTest tests[] = {
        ZC_T(copy_host_device_host_every_size),
        ZC_T(copy_device_to_device),
        ZC_T(copy_on_copy_engine),
        ZC_T(copy_overlapping_regions_rejected),
        ZC_T(copy_region_3d_moves_exactly_the_box),
        ZC_T(copy_region_mismatched_sizes_rejected),
        ZC_T(copy_from_other_context),
        cmocka_unit_test(copy_out_of_bounds_faults_device),
    };
    static const zc_child_mode modes[] = {{"out-of-bounds", zc_out_of_bounds_child}};
    static const zc_suite suite = {ZC_EXECUTABLE,      tests, ZC_COUNT(tests), zc_setup_system,
                                   zc_teardown_system, modes, ZC_COUNT(modes)};
    return zc_main(argc, argv, &suite);
}
