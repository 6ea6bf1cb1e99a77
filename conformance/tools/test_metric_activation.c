/* Conformance: zetContextActivateMetricGroups. Groups of one domain conflict (the specification's
 * ZE_RESULT_ERROR_INVALID_ARGUMENT), groups of different domains activate together, count 0 deactivates everything,
 * activating again changes nothing, and root-device and sub-device groups do not mix. Whether a group is active is
 * observed through zetMetricStreamerOpen, which answers ZE_RESULT_NOT_READY for an inactive group. */
#include "zc_metric.h"

#include <stdio.h>
#include <unistd.h>

/* Opens and closes a streamer: SUCCESS when the group is active, NOT_READY when it is not. */
static ze_result_t zc_try_streamer(ze_context_handle_t context, ze_device_handle_t device,
                                   zet_metric_group_handle_t group) {
    zet_metric_streamer_desc_t desc = {ZET_STRUCTURE_TYPE_METRIC_STREAMER_DESC, NULL, 64, 100000};
    zet_metric_streamer_handle_t streamer = NULL;
    ze_result_t result = zetMetricStreamerOpen(context, device, group, &desc, NULL, &streamer);
    if (result == ZE_RESULT_SUCCESS)
        zc_assert_success(zetMetricStreamerClose(streamer));
    return result;
}

static void activation_same_domain_fails(void **state) {
    ze_context_handle_t context = *state;
    ze_device_handle_t device = zc_sys()->roots[0];
    zet_metric_group_handle_t groups[2] = {zc_need_group(device, "ComputeBasic", ZC_TIME_BASED),
                                           zc_need_group(device, "TestOa", ZC_TIME_BASED)};
    assert_int_equal(zc_group_properties(groups[0]).domain, zc_group_properties(groups[1]).domain);
    zc_assert_result(zetContextActivateMetricGroups(context, device, 2, groups), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    /* The two sampling types of one metric set share the domain too. */
    groups[1] = zc_need_group(device, "ComputeBasic", ZC_EVENT_BASED);
    zc_assert_result(zetContextActivateMetricGroups(context, device, 2, groups), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    /* A failed activation changes nothing. */
    zc_assert_result(zc_try_streamer(context, device, groups[0]), ZE_RESULT_NOT_READY);
}

static void activation_different_domains_succeed(void **state) {
    ze_context_handle_t context = *state;
    ze_device_handle_t device = zc_sys()->roots[0];
    zet_metric_group_handle_t groups[3] = {zc_need_group(device, "ComputeBasic", ZC_TIME_BASED),
                                           zc_need_group(device, "EngineActivity", ZC_TIME_BASED),
                                           zc_need_group(device, "EuStallSampling", ZC_TIME_BASED)};
    uint32_t domains[3];
    for (int i = 0; i < 3; i++)
        domains[i] = zc_group_properties(groups[i]).domain;
    assert_true(domains[0] != domains[1] && domains[1] != domains[2] && domains[0] != domains[2]);
    zc_activate(context, device, 3, groups);
    for (int i = 0; i < 3; i++)
        zc_assert_success(zc_try_streamer(context, device, groups[i]));
    zc_activate(context, device, 0, NULL);
}

static void activation_count_zero_deactivates_all(void **state) {
    ze_context_handle_t context = *state;
    ze_device_handle_t device = zc_sys()->roots[0];
    zet_metric_group_handle_t groups[2] = {zc_need_group(device, "ComputeBasic", ZC_TIME_BASED),
                                           zc_need_group(device, "EngineActivity", ZC_TIME_BASED)};
    zc_activate(context, device, 2, groups);
    zc_assert_success(zc_try_streamer(context, device, groups[0]));
    /* count 0 deactivates even when the pointer is not NULL (tools pass their array). */
    zc_activate(context, device, 0, groups);
    zc_assert_result(zc_try_streamer(context, device, groups[0]), ZE_RESULT_NOT_READY);
    zc_assert_result(zc_try_streamer(context, device, groups[1]), ZE_RESULT_NOT_READY);
}

static void activation_replaces_previous_set(void **state) {
    ze_context_handle_t context = *state;
    ze_device_handle_t device = zc_sys()->roots[0];
    zet_metric_group_handle_t basic = zc_need_group(device, "ComputeBasic", ZC_TIME_BASED);
    zet_metric_group_handle_t test = zc_need_group(device, "TestOa", ZC_TIME_BASED);
    zc_activate(context, device, 1, &basic);
    zc_activate(context, device, 1, &test);
    zc_assert_result(zc_try_streamer(context, device, basic), ZE_RESULT_NOT_READY);
    zc_assert_success(zc_try_streamer(context, device, test));
    zc_activate(context, device, 0, NULL);
}

/* Moves the device clock by host reads (1 us each on the fake's modelled clock, docs/cost-model.md). */
static void zc_pass_time(ze_device_handle_t device, uint32_t reads) {
    uint64_t host = 0, ticks = 0;
    for (uint32_t i = 0; i < reads; i++)
        zc_assert_success(zeDeviceGetGlobalTimestamps(device, &host, &ticks));
}

/* Every report the streamer holds (asserts a plain success: no report was dropped). */
static uint8_t *zc_read_all(zet_metric_streamer_handle_t streamer, size_t *size) {
    *size = 0;
    zc_assert_success(zetMetricStreamerReadData(streamer, UINT32_MAX, size, NULL));
    uint8_t *data = malloc(*size + 1);
    assert_non_null(data);
    zc_assert_success(zetMetricStreamerReadData(streamer, UINT32_MAX, size, data));
    return data;
}

/* The sequence number of tile 0's first and last reports in streamer data; false when it holds none. */
static bool zc_sequence_range(const uint8_t *data, size_t size, uint32_t *first, uint32_t *last) {
    size_t length = 0;
    const uint8_t *records = zc_tile_records(data, size, 0, &length);
    if (length < ZC_OA_RECORD_SIZE)
        return false;
    *first = zc_get32(records) & 0xffff;
    *last = zc_get32(records + length - ZC_OA_RECORD_SIZE) & 0xffff;
    return true;
}

/* Activating the active groups again changes nothing, and disturbs no streamer of them: it stays open, loses and
 * repeats no report, and its calculation goes on pairing the last report read before with the first one after. */
/* The sets of values of streamer data (frames per tile on a multi-tile device), as a tool calculates them. */
static zc_sets zc_stream_sets(zet_metric_group_handle_t group, const uint8_t *data, size_t size) {
    zc_sets sets = zc_calculate_sets(group, ZET_METRIC_GROUP_CALCULATION_TYPE_METRIC_VALUES, data, size);
    assert_int_equal(sets.num_sets, zc_tiles(zc_sys()->roots[0]));
    return sets;
}

/* Activating the active groups again changes nothing, and disturbs no streamer of them: it stays open, loses and
 * repeats no report, and the calculation goes on pairing the last report read before with the first one after. */
static void activation_again_is_a_no_op(void **state) {
    ze_context_handle_t context = *state;
    ze_device_handle_t device = zc_sys()->roots[0];
    zet_metric_group_handle_t group = zc_need_group(device, "ComputeBasic", ZC_TIME_BASED);
    zc_activate(context, device, 1, &group);
    zet_metric_streamer_desc_t desc = {ZET_STRUCTURE_TYPE_METRIC_STREAMER_DESC, NULL, 1024, 100000};
    zet_metric_streamer_handle_t streamer = NULL, other = NULL;
    zc_assert_success(zetMetricStreamerOpen(context, device, group, &desc, NULL, &streamer));
    zc_pass_time(device, 300);
    size_t before_size = 0, after_size = 0;
    uint8_t *before = zc_read_all(streamer, &before_size);
    zc_sets a = zc_stream_sets(group, before, before_size);
    zc_activate(context, device, 1, &group);
    zet_metric_group_handle_t twice[2] = {group, group};
    zc_activate(context, device, 2, twice);
    zc_assert_result(zetMetricStreamerOpen(context, device, group, &desc, NULL, &other),
                     ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE); /* still open */
    zc_pass_time(device, 300);
    uint8_t *after = zc_read_all(streamer, &after_size);
    zc_sets b = zc_stream_sets(group, after, after_size);
    if (zc_driver_is_fake()) {
        uint32_t first = 0, last = 0, next = 0, end = 0, count = zc_metric_count(group);
        assert_true(zc_sequence_range(before, before_size, &first, &last));
        assert_true(zc_sequence_range(after, after_size, &next, &end));
        assert_int_equal(first, 0);
        assert_int_equal(next, last + 1);
        for (uint32_t t = 0; t < a.num_sets; t++) {
            assert_int_equal(a.counts[t], last * count);         /* N reports, N - 1 pairs */
            assert_int_equal(b.counts[t], (end - last) * count); /* one pair more: with the kept report */
        }
    }
    zc_sets_free(&a);
    zc_sets_free(&b);
    free(before);
    free(after);
    zc_assert_success(zetMetricStreamerClose(streamer));
    zc_activate(context, device, 0, NULL);
}

static void activation_root_and_subdevice_groups_do_not_mix(void **state) {
    ze_context_handle_t context = *state;
    const zc_system *sys = zc_sys();
    if (sys->num_subdevices[0] == 0)
        skip();
    ze_device_handle_t root = sys->roots[0], sub = sys->subdevices[0][0];
    zet_metric_group_handle_t root_group = zc_need_group(root, "ComputeBasic", ZC_TIME_BASED);
    zet_metric_group_handle_t sub_group = zc_need_group(sub, "EngineActivity", ZC_TIME_BASED);
    zet_metric_group_handle_t mixed[2] = {root_group, sub_group};
    zc_assert_result(zetContextActivateMetricGroups(context, root, 2, mixed), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    zc_assert_result(zetContextActivateMetricGroups(context, root, 1, &sub_group), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    zc_assert_result(zetContextActivateMetricGroups(context, sub, 1, &root_group), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    /* Each device on its own is fine. */
    zc_activate(context, sub, 1, &sub_group);
    zc_assert_success(zc_try_streamer(context, sub, sub_group));
    zc_activate(context, sub, 0, NULL);
}

static void activation_bad_arguments(void **state) {
    ze_context_handle_t context = *state;
    ze_device_handle_t device = zc_sys()->roots[0];
    zc_assert_result(zetContextActivateMetricGroups(context, device, 1, NULL), ZE_RESULT_ERROR_INVALID_SIZE);
    zc_assert_result(zetContextActivateMetricGroups(NULL, device, 0, NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zetContextActivateMetricGroups(context, NULL, 0, NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_skip_unless_fake();
    zet_metric_group_handle_t groups[2] = {zc_need_group(device, "ComputeBasic", ZC_TIME_BASED), NULL};
    zc_assert_result(zetContextActivateMetricGroups(context, device, 2, groups), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    groups[1] = (zet_metric_group_handle_t)context;
    zc_assert_result(zetContextActivateMetricGroups(context, device, 2, groups), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
}

/* ---- The lenient option (fake only): a child process on a scenario with domain_conflict: later_wins ----------- */

static const char zc_lenient_yaml[] =
    "schema: 1\n"
    "name: lenient\n"
    "devices:\n"
    "  - name: Lenient GPU\n"
    "    type: gpu\n"
    "    device_id: 0x1234\n"
    "    metric_options: {domain_conflict: later_wins}\n"
    "    metric_groups:\n"
    "      - {name: First, domain: 0, sampling: [time_based], metrics: [{name: Clocks, formula: gpu_ticks}]}\n"
    "      - {name: Second, domain: 0, sampling: [time_based], metrics: [{name: Clocks, formula: gpu_ticks}]}\n";

static int zc_child_lenient(int argc, char **argv) {
    (void)argc;
    (void)argv;
    void *state = NULL;
    if (zc_setup_system(&state) != 0 || zc_setup_context(&state) != 0)
        return 2;
    ze_context_handle_t context = state;
    ze_device_handle_t device = zc_sys()->roots[0];
    zet_metric_group_handle_t groups[2] = {zc_find_group(device, "First", ZC_TIME_BASED),
                                           zc_find_group(device, "Second", ZC_TIME_BASED)};
    if (groups[0] == NULL || groups[1] == NULL)
        return 3;
    ze_result_t activate = zetContextActivateMetricGroups(context, device, 2, groups);
    ze_result_t first = zc_try_streamer(context, device, groups[0]);
    ze_result_t second = zc_try_streamer(context, device, groups[1]);
    printf("activate=%s\nfirst=%s\nsecond=%s\n", zc_result_name(activate), zc_result_name(first),
           zc_result_name(second));
    zc_teardown_context(&state);
    return 0;
}

static void activation_later_wins_option(void **state) {
    (void)state;
    zc_skip_unless_fake();
    zc_child child;
    assert_true(zc_run_child_in_scenario("lenient", zc_lenient_yaml, ZC_CHILD_TIMEOUT_MS, &child));
    zc_assert_child_ok(&child, "the lenient child");
    char value[64];
    assert_true(zc_child_value(&child, "activate", value, sizeof value));
    assert_string_equal(value, "ZE_RESULT_SUCCESS");
    assert_true(zc_child_value(&child, "first", value, sizeof value));
    assert_string_equal(value, "ZE_RESULT_NOT_READY");
    assert_true(zc_child_value(&child, "second", value, sizeof value));
    assert_string_equal(value, "ZE_RESULT_SUCCESS");
    zc_child_free(&child);
}

int main(int argc, char **argv) {
#define ZC_FIXTURE context
    static const struct CMUnitTest tests[] = {
        ZC_T(activation_same_domain_fails),
        ZC_T(activation_different_domains_succeed),
        ZC_T(activation_count_zero_deactivates_all),
        ZC_T(activation_replaces_previous_set),
        ZC_T(activation_again_is_a_no_op),
        ZC_T(activation_root_and_subdevice_groups_do_not_mix),
        ZC_T(activation_bad_arguments),
        ZC_T(activation_later_wins_option),
    };
    static const zc_child_mode modes[] = {{"lenient", zc_child_lenient}};
    static const zc_suite suite = {ZC_EXECUTABLE,      tests, ZC_COUNT(tests), zc_setup_system,
                                   zc_teardown_system, modes, ZC_COUNT(modes)};
    return zc_main(argc, argv, &suite);
}
