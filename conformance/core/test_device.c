/* Conformance: devices and sub-devices (zeDeviceGet*, properties, peers, timestamps). */
#include "zc_harness.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------------------------------------------------
 * Helpers */

static ze_device_properties_t zc_device_properties(ze_device_handle_t device, ze_structure_type_t stype) {
    ze_device_properties_t properties;
    memset(&properties, 0, sizeof properties);
    properties.stype = stype;
    zc_assert_success(zeDeviceGetProperties(device, &properties));
    return properties;
}

static ze_result_t zc_device_get(void *ctx, uint32_t *count, void *items) {
    (void)ctx;
    return zeDeviceGet(zc_sys()->driver, count, items);
}

static ze_result_t zc_subdevices_get(void *ctx, uint32_t *count, void *items) {
    return zeDeviceGetSubDevices((ze_device_handle_t)ctx, count, items);
}

static ze_result_t zc_queue_groups_get(void *ctx, uint32_t *count, void *items) {
    return zeDeviceGetCommandQueueGroupProperties((ze_device_handle_t)ctx, count, items);
}

static ze_result_t zc_memories_get(void *ctx, uint32_t *count, void *items) {
    return zeDeviceGetMemoryProperties((ze_device_handle_t)ctx, count, items);
}

static ze_result_t zc_caches_get(void *ctx, uint32_t *count, void *items) {
    return zeDeviceGetCacheProperties((ze_device_handle_t)ctx, count, items);
}

static void zc_prepare_queue_group(void *item) {
    ze_command_queue_group_properties_t *p = item;
    p->stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_GROUP_PROPERTIES;
    p->pNext = NULL;
}

static void zc_prepare_memory(void *item) {
    ze_device_memory_properties_t *p = item;
    p->stype = ZE_STRUCTURE_TYPE_DEVICE_MEMORY_PROPERTIES;
    p->pNext = NULL;
}

static void zc_prepare_cache(void *item) {
    ze_device_cache_properties_t *p = item;
    p->stype = ZE_STRUCTURE_TYPE_DEVICE_CACHE_PROPERTIES;
    p->pNext = NULL;
}

static zc_count_query zc_queue_group_query(ze_device_handle_t device) {
    return (zc_count_query){"zeDeviceGetCommandQueueGroupProperties", zc_queue_groups_get, device,
                            sizeof(ze_command_queue_group_properties_t), zc_prepare_queue_group};
}

static zc_count_query zc_memory_query(ze_device_handle_t device) {
    return (zc_count_query){"zeDeviceGetMemoryProperties", zc_memories_get, device,
                            sizeof(ze_device_memory_properties_t), zc_prepare_memory};
}

static zc_count_query zc_cache_query(ze_device_handle_t device) {
    return (zc_count_query){"zeDeviceGetCacheProperties", zc_caches_get, device, sizeof(ze_device_cache_properties_t),
                            zc_prepare_cache};
}

static uint64_t zc_total_memory(ze_device_handle_t device) {
    zc_count_query query = zc_memory_query(device);
    uint32_t n = 0;
    ze_device_memory_properties_t *memories = zc_query_all(&query, &n);
    uint64_t total = 0;
    for (uint32_t i = 0; i < n; i++)
        total += memories[i].totalSize;
    free(memories);
    return total;
}

static bool zc_is_power_of_two(uint64_t value) {
    return value != 0 && (value & (value - 1)) == 0;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Enumeration */

static void device_get_count_semantics(void **state) {
    (void)state;
    zc_count_query query = {"zeDeviceGet", zc_device_get, NULL, sizeof(ze_device_handle_t), NULL};
    zc_check_count_semantics(&query);
    assert_true(zc_count(&query) >= 1);
}

static void device_get_bad_arguments(void **state) {
    (void)state;
    uint32_t n = 0;
    zc_assert_result(zeDeviceGet(zc_sys()->driver, NULL, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zeDeviceGet(NULL, &n, NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
}

static void subdevices_count_semantics(void **state) {
    (void)state;
    const zc_system *sys = zc_sys();
    for (uint32_t i = 0; i < sys->num_all; i++) {
        zc_count_query query = {"zeDeviceGetSubDevices", zc_subdevices_get, sys->all[i], sizeof(ze_device_handle_t),
                                NULL};
        zc_check_count_semantics(&query);
    }
}

static void subdevices_bad_arguments(void **state) {
    (void)state;
    uint32_t n = 0;
    zc_assert_result(zeDeviceGetSubDevices(zc_sys()->roots[0], NULL, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zeDeviceGetSubDevices(NULL, &n, NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Device properties */

static void device_properties_keep_stype_and_pnext(void **state) {
    (void)state;
    const ze_structure_type_t stypes[] = {ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES, ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2};
    const zc_system *sys = zc_sys();
    for (uint32_t i = 0; i < sys->num_all; i++) {
        for (size_t s = 0; s < ZC_COUNT(stypes); s++) {
            ze_device_properties_t properties = zc_device_properties(sys->all[i], stypes[s]);
            assert_int_equal(properties.stype, stypes[s]);
            assert_null(properties.pNext);
        }
    }
}

static void device_properties_name_and_type_valid(void **state) {
    (void)state;
    const zc_system *sys = zc_sys();
    for (uint32_t i = 0; i < sys->num_all; i++) {
        ze_device_properties_t properties = zc_device_properties(sys->all[i], ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES);
        size_t length = strnlen(properties.name, ZE_MAX_DEVICE_NAME);
        assert_true(length > 0);
        assert_true(length < ZE_MAX_DEVICE_NAME);
        assert_in_range(properties.type, ZE_DEVICE_TYPE_GPU, ZE_DEVICE_TYPE_VPU);
        assert_in_range(properties.timestampValidBits, 1, 64);
        assert_in_range(properties.kernelTimestampValidBits, 1, 64);
    }
}

static void device_properties_root_is_not_subdevice(void **state) {
    (void)state;
    const zc_system *sys = zc_sys();
    for (uint32_t i = 0; i < sys->num_roots; i++) {
        ze_device_properties_t properties = zc_device_properties(sys->roots[i], ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES);
        assert_int_equal(properties.flags & ZE_DEVICE_PROPERTY_FLAG_SUBDEVICE, 0);
    }
}

static void device_properties_subdevice_flag_and_index(void **state) {
    (void)state;
    const zc_system *sys = zc_sys();
    for (uint32_t i = 0; i < sys->num_roots; i++) {
        ze_device_properties_t root = zc_device_properties(sys->roots[i], ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES);
        for (uint32_t j = 0; j < sys->num_subdevices[i]; j++) {
            ze_device_properties_t sub =
                zc_device_properties(sys->subdevices[i][j], ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES);
            assert_int_equal(sub.flags & ZE_DEVICE_PROPERTY_FLAG_SUBDEVICE, ZE_DEVICE_PROPERTY_FLAG_SUBDEVICE);
            assert_int_equal(sub.subdeviceId, j);
            assert_int_equal(sub.type, root.type);
        }
    }
}

static void device_properties_subdevice_slices_sum_to_root(void **state) {
    (void)state;
    /* The fake's scenarios divide a card's slices evenly among its tiles; real devices need not. */
    zc_skip_unless_fake();
    const zc_system *sys = zc_sys();
    for (uint32_t i = 0; i < sys->num_roots; i++) {
        if (sys->num_subdevices[i] == 0)
            continue;
        ze_device_properties_t root = zc_device_properties(sys->roots[i], ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES);
        for (uint32_t j = 0; j < sys->num_subdevices[i]; j++) {
            ze_device_properties_t sub =
                zc_device_properties(sys->subdevices[i][j], ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES);
            assert_int_equal(sub.numSlices * sys->num_subdevices[i], root.numSlices);
        }
    }
}

static void memory_properties_subdevices_sum_to_root(void **state) {
    (void)state;
    const zc_system *sys = zc_sys();
    for (uint32_t i = 0; i < sys->num_roots; i++) {
        if (sys->num_subdevices[i] == 0)
            continue;
        uint64_t sum = 0;
        for (uint32_t j = 0; j < sys->num_subdevices[i]; j++)
            sum += zc_total_memory(sys->subdevices[i][j]);
        assert_int_equal(sum, zc_total_memory(sys->roots[i]));
    }
}

static void device_properties_timer_resolution_units_agree(void **state) {
    (void)state;
    /* DEVICE_PROPERTIES reports nanoseconds per tick, DEVICE_PROPERTIES_1_2 ticks per second: ns = 1e9 / Hz, to
     * within the rounding of an integer (|ns * Hz - 1e9| <= Hz). */
    const zc_system *sys = zc_sys();
    for (uint32_t i = 0; i < sys->num_all; i++) {
        uint64_t ns = zc_device_properties(sys->all[i], ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES).timerResolution;
        uint64_t hz = zc_device_properties(sys->all[i], ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2).timerResolution;
        assert_true(hz > 0);
        unsigned __int128 product = (unsigned __int128)ns * hz;
        unsigned __int128 second = 1000000000u;
        unsigned __int128 error = product > second ? product - second : second - product;
        if (error > hz)
            zc_fail("device %u: timerResolution %lu ns does not match %lu cycles/s", i, (unsigned long)ns,
                    (unsigned long)hz);
    }
}

static void device_properties_uuids_unique(void **state) {
    (void)state;
    const zc_system *sys = zc_sys();
    ze_device_uuid_t *uuids = calloc(sys->num_all, sizeof *uuids);
    assert_non_null(uuids);
    for (uint32_t i = 0; i < sys->num_all; i++) {
        uuids[i] = zc_device_properties(sys->all[i], ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES).uuid;
        for (uint32_t j = 0; j < i; j++) {
            if (memcmp(&uuids[i], &uuids[j], sizeof uuids[i]) == 0)
                zc_fail("devices %u and %u (roots first, then sub-devices) have the same uuid", j, i);
        }
    }
    free(uuids);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Other property queries */

static void compute_properties_consistent(void **state) {
    (void)state;
    const zc_system *sys = zc_sys();
    for (uint32_t i = 0; i < sys->num_all; i++) {
        ze_device_compute_properties_t p;
        memset(&p, 0, sizeof p);
        p.stype = ZE_STRUCTURE_TYPE_DEVICE_COMPUTE_PROPERTIES;
        zc_assert_success(zeDeviceGetComputeProperties(sys->all[i], &p));
        assert_int_equal(p.stype, ZE_STRUCTURE_TYPE_DEVICE_COMPUTE_PROPERTIES);
        assert_null(p.pNext);
        assert_true(p.maxTotalGroupSize > 0);
        assert_in_range(p.maxGroupSizeX, 1, p.maxTotalGroupSize);
        assert_in_range(p.maxGroupSizeY, 1, p.maxTotalGroupSize);
        assert_in_range(p.maxGroupSizeZ, 1, p.maxTotalGroupSize);
        assert_true(p.maxGroupCountX > 0 && p.maxGroupCountY > 0 && p.maxGroupCountZ > 0);
        assert_in_range(p.numSubGroupSizes, 1, ZE_SUBGROUPSIZE_COUNT);
        for (uint32_t s = 0; s < p.numSubGroupSizes; s++)
            assert_true(p.subGroupSizes[s] > 0);
    }
}

static void module_properties_consistent(void **state) {
    (void)state;
    const zc_system *sys = zc_sys();
    for (uint32_t i = 0; i < sys->num_all; i++) {
        ze_device_module_properties_t p;
        memset(&p, 0xa5, sizeof p);
        p.stype = ZE_STRUCTURE_TYPE_DEVICE_MODULE_PROPERTIES;
        p.pNext = NULL;
        zc_assert_success(zeDeviceGetModuleProperties(sys->all[i], &p));
        assert_int_equal(p.stype, ZE_STRUCTURE_TYPE_DEVICE_MODULE_PROPERTIES);
        assert_null(p.pNext);
        assert_int_equal(ZE_MAJOR_VERSION(p.spirvVersionSupported), 1);
        /* The spec: fp16flags and fp64flags are 0 when the device lacks FP16 or FP64. */
        if ((p.flags & ZE_DEVICE_MODULE_FLAG_FP16) == 0)
            assert_int_equal(p.fp16flags, 0);
        if ((p.flags & ZE_DEVICE_MODULE_FLAG_FP64) == 0)
            assert_int_equal(p.fp64flags, 0);
    }
}

static void command_queue_groups_count_semantics(void **state) {
    (void)state;
    const zc_system *sys = zc_sys();
    for (uint32_t i = 0; i < sys->num_all; i++) {
        zc_count_query query = zc_queue_group_query(sys->all[i]);
        zc_check_count_semantics(&query);
    }
}

static void command_queue_groups_have_compute(void **state) {
    (void)state;
    const zc_system *sys = zc_sys();
    for (uint32_t i = 0; i < sys->num_all; i++) {
        zc_count_query query = zc_queue_group_query(sys->all[i]);
        uint32_t n = 0;
        ze_command_queue_group_properties_t *groups = zc_query_all(&query, &n);
        uint32_t compute = 0;
        for (uint32_t g = 0; g < n; g++) {
            assert_int_equal(groups[g].stype, ZE_STRUCTURE_TYPE_COMMAND_QUEUE_GROUP_PROPERTIES);
            assert_true(groups[g].numQueues >= 1);
            if (!zc_is_power_of_two(groups[g].maxMemoryFillPatternSize))
                zc_fail("device %u group %u: maxMemoryFillPatternSize %zu is not a power of two", i, g,
                        groups[g].maxMemoryFillPatternSize);
            compute += (groups[g].flags & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE) != 0;
        }
        free(groups);
        if (compute == 0)
            zc_fail("device %u has no command queue group with the COMPUTE flag", i);
    }
}

static void memory_properties_count_semantics(void **state) {
    (void)state;
    const zc_system *sys = zc_sys();
    for (uint32_t i = 0; i < sys->num_all; i++) {
        zc_count_query query = zc_memory_query(sys->all[i]);
        zc_check_count_semantics(&query);
        uint32_t n = 0;
        ze_device_memory_properties_t *memories = zc_query_all(&query, &n);
        for (uint32_t m = 0; m < n; m++)
            assert_true(strnlen(memories[m].name, ZE_MAX_DEVICE_NAME) < ZE_MAX_DEVICE_NAME);
        free(memories);
    }
}

static void cache_properties_count_semantics(void **state) {
    (void)state;
    const zc_system *sys = zc_sys();
    for (uint32_t i = 0; i < sys->num_all; i++) {
        zc_count_query query = zc_cache_query(sys->all[i]);
        zc_check_count_semantics(&query);
    }
}

static void memory_access_properties_flags_defined(void **state) {
    (void)state;
    const ze_memory_access_cap_flags_t defined = ZE_MEMORY_ACCESS_CAP_FLAG_RW | ZE_MEMORY_ACCESS_CAP_FLAG_ATOMIC |
                                                 ZE_MEMORY_ACCESS_CAP_FLAG_CONCURRENT |
                                                 ZE_MEMORY_ACCESS_CAP_FLAG_CONCURRENT_ATOMIC;
    const zc_system *sys = zc_sys();
    for (uint32_t i = 0; i < sys->num_all; i++) {
        ze_device_memory_access_properties_t p;
        memset(&p, 0xff, sizeof p);
        p.stype = ZE_STRUCTURE_TYPE_DEVICE_MEMORY_ACCESS_PROPERTIES;
        p.pNext = NULL;
        zc_assert_success(zeDeviceGetMemoryAccessProperties(sys->all[i], &p));
        assert_int_equal(p.stype, ZE_STRUCTURE_TYPE_DEVICE_MEMORY_ACCESS_PROPERTIES);
        assert_null(p.pNext);
        assert_int_equal(p.hostAllocCapabilities & ~defined, 0);
        assert_int_equal(p.deviceAllocCapabilities & ~defined, 0);
        assert_int_equal(p.sharedSingleDeviceAllocCapabilities & ~defined, 0);
        assert_int_equal(p.sharedCrossDeviceAllocCapabilities & ~defined, 0);
        assert_int_equal(p.sharedSystemAllocCapabilities & ~defined, 0);
    }
}

static void image_and_external_memory_properties_keep_stype(void **state) {
    (void)state;
    const zc_system *sys = zc_sys();
    for (uint32_t i = 0; i < sys->num_all; i++) {
        ze_device_image_properties_t image;
        memset(&image, 0, sizeof image);
        image.stype = ZE_STRUCTURE_TYPE_DEVICE_IMAGE_PROPERTIES;
        zc_assert_success(zeDeviceGetImageProperties(sys->all[i], &image));
        assert_int_equal(image.stype, ZE_STRUCTURE_TYPE_DEVICE_IMAGE_PROPERTIES);
        assert_null(image.pNext);

        ze_device_external_memory_properties_t external;
        memset(&external, 0, sizeof external);
        external.stype = ZE_STRUCTURE_TYPE_DEVICE_EXTERNAL_MEMORY_PROPERTIES;
        zc_assert_success(zeDeviceGetExternalMemoryProperties(sys->all[i], &external));
        assert_int_equal(external.stype, ZE_STRUCTURE_TYPE_DEVICE_EXTERNAL_MEMORY_PROPERTIES);
        assert_null(external.pNext);
    }
}

static void property_queries_null_pointer_invalid_null_pointer(void **state) {
    (void)state;
    ze_device_handle_t device = zc_sys()->roots[0];
    uint64_t timestamp = 0;
    zc_assert_result(zeDeviceGetProperties(device, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zeDeviceGetComputeProperties(device, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zeDeviceGetModuleProperties(device, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zeDeviceGetCommandQueueGroupProperties(device, NULL, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zeDeviceGetMemoryProperties(device, NULL, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zeDeviceGetMemoryAccessProperties(device, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zeDeviceGetCacheProperties(device, NULL, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zeDeviceGetImageProperties(device, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zeDeviceGetExternalMemoryProperties(device, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zeDeviceGetP2PProperties(device, device, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zeDeviceCanAccessPeer(device, device, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zeDeviceGetGlobalTimestamps(device, NULL, &timestamp), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zeDeviceGetGlobalTimestamps(device, &timestamp, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
}

static void peer_queries_null_device_invalid_null_handle(void **state) {
    (void)state;
    ze_device_handle_t device = zc_sys()->roots[0];
    ze_device_p2p_properties_t p2p = {ZE_STRUCTURE_TYPE_DEVICE_P2P_PROPERTIES, NULL, 0};
    ze_bool_t value = false;
    zc_assert_result(zeDeviceGetP2PProperties(device, NULL, &p2p), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zeDeviceGetP2PProperties(NULL, device, &p2p), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zeDeviceCanAccessPeer(device, NULL, &value), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zeDeviceCanAccessPeer(NULL, device, &value), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Timestamps, peers, status */

static void global_timestamps_advance_within_valid_bits(void **state) {
    (void)state;
    const zc_system *sys = zc_sys();
    for (uint32_t i = 0; i < sys->num_all; i++) {
        uint32_t bits = zc_device_properties(sys->all[i], ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES).timestampValidBits;
        uint64_t mask = bits >= 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
        uint64_t host[2], device[2];
        zc_assert_success(zeDeviceGetGlobalTimestamps(sys->all[i], &host[0], &device[0]));
        /* Two readings within one tick of a coarse timer are equal, as on hardware: read until the counter moves or
         * 100 ms of host time have passed (a counter standing still that long fails below). */
        do {
            zc_assert_success(zeDeviceGetGlobalTimestamps(sys->all[i], &host[1], &device[1]));
            assert_true(host[1] >= host[0]);
        } while (device[1] == device[0] && host[1] - host[0] < 100000000u);
        assert_int_equal(device[0] & ~mask, 0);
        assert_int_equal(device[1] & ~mask, 0);
        /* Modulo the valid bits the second reading is later: a small positive step, or a wrap-around. */
        uint64_t step = (device[1] - device[0]) & mask;
        if (step == 0 || step > mask / 2)
            zc_fail("device %u: timestamps %#lx then %#lx (%u valid bits) do not advance", i, (unsigned long)device[0],
                    (unsigned long)device[1], bits);
    }
}

static void p2p_device_and_own_subdevices_can_access(void **state) {
    (void)state;
    const zc_system *sys = zc_sys();
    for (uint32_t i = 0; i < sys->num_roots; i++) {
        for (uint32_t j = 0; j < sys->num_subdevices[i]; j++) {
            ze_device_handle_t pair[2][2] = {{sys->roots[i], sys->subdevices[i][j]},
                                             {sys->subdevices[i][j], sys->roots[i]}};
            for (int k = 0; k < 2; k++) {
                ze_bool_t value = false;
                zc_assert_success(zeDeviceCanAccessPeer(pair[k][0], pair[k][1], &value));
                assert_true(value);
                ze_device_p2p_properties_t p2p = {ZE_STRUCTURE_TYPE_DEVICE_P2P_PROPERTIES, NULL, 0};
                zc_assert_success(zeDeviceGetP2PProperties(pair[k][0], pair[k][1], &p2p));
                assert_int_equal(p2p.stype, ZE_STRUCTURE_TYPE_DEVICE_P2P_PROPERTIES);
                assert_int_equal(p2p.flags & ZE_DEVICE_P2P_PROPERTY_FLAG_ACCESS, ZE_DEVICE_P2P_PROPERTY_FLAG_ACCESS);
            }
        }
    }
}

static void status_of_every_device_success(void **state) {
    (void)state;
    const zc_system *sys = zc_sys();
    for (uint32_t i = 0; i < sys->num_all; i++)
        zc_assert_success(zeDeviceGetStatus(sys->all[i]));
    zc_assert_result(zeDeviceGetStatus(NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
}

static void bogus_device_handle_invalid_null_handle(void **state) {
    (void)state;
    /* The spec leaves a handle that was never returned undefined; the fake detects it. */
    zc_skip_unless_fake();
    uint64_t bogus_object[64] = {0};
    ze_device_handle_t bogus = (ze_device_handle_t)bogus_object;
    ze_device_handle_t device = zc_sys()->roots[0];
    ze_device_properties_t properties = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
    uint32_t n = 0;
    ze_bool_t value = false;
    uint64_t timestamps[2];
    zc_assert_result(zeDeviceGetProperties(bogus, &properties), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zeDeviceGetSubDevices(bogus, &n, NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zeDeviceCanAccessPeer(device, bogus, &value), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zeDeviceGetGlobalTimestamps(bogus, &timestamps[0], &timestamps[1]),
                     ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zeDeviceGetStatus(bogus), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
}

int main(int argc, char **argv) {
    static const struct CMUnitTest tests[] = {
        cmocka_unit_test(device_get_count_semantics),
        cmocka_unit_test(device_get_bad_arguments),
        cmocka_unit_test(subdevices_count_semantics),
        cmocka_unit_test(subdevices_bad_arguments),
        cmocka_unit_test(device_properties_keep_stype_and_pnext),
        cmocka_unit_test(device_properties_name_and_type_valid),
        cmocka_unit_test(device_properties_root_is_not_subdevice),
        cmocka_unit_test(device_properties_subdevice_flag_and_index),
        cmocka_unit_test(device_properties_subdevice_slices_sum_to_root),
        cmocka_unit_test(memory_properties_subdevices_sum_to_root),
        cmocka_unit_test(device_properties_timer_resolution_units_agree),
        cmocka_unit_test(device_properties_uuids_unique),
        cmocka_unit_test(compute_properties_consistent),
        cmocka_unit_test(module_properties_consistent),
        cmocka_unit_test(command_queue_groups_count_semantics),
        cmocka_unit_test(command_queue_groups_have_compute),
        cmocka_unit_test(memory_properties_count_semantics),
        cmocka_unit_test(cache_properties_count_semantics),
        cmocka_unit_test(memory_access_properties_flags_defined),
        cmocka_unit_test(image_and_external_memory_properties_keep_stype),
        cmocka_unit_test(property_queries_null_pointer_invalid_null_pointer),
        cmocka_unit_test(peer_queries_null_device_invalid_null_handle),
        cmocka_unit_test(global_timestamps_advance_within_valid_bits),
        cmocka_unit_test(p2p_device_and_own_subdevices_can_access),
        cmocka_unit_test(status_of_every_device_success),
        cmocka_unit_test(bogus_device_handle_invalid_null_handle),
    };
    static const zc_suite suite = {
        ZC_EXECUTABLE, tests, ZC_COUNT(tests), zc_setup_system, zc_teardown_system, NULL, 0,
    };
    return zc_main(argc, argv, &suite);
}
