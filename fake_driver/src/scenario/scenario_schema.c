/* The scenario schema: one table per YAML mapping, the defaults of optional keys, and the checks across keys.
 *
 * docs/scenarios.md documents every key, range and default written here; keep the two in step. */
#include "scenario/scenario_internal.h"

#include <stdio.h>
#include <string.h>

_Static_assert(sizeof(ze_device_type_t) == sizeof(uint32_t), "enums are stored as uint32_t");
_Static_assert(sizeof(zf_clock_mode) == sizeof(uint32_t), "enums are stored as uint32_t");
_Static_assert(sizeof(zf_device_hierarchy) == sizeof(uint32_t), "enums are stored as uint32_t");

/* ---- Name tables ---------------------------------------------------------------------------------------------- */

static const zf_name zf_device_type_items[] = {
    {"gpu", ZE_DEVICE_TYPE_GPU}, {"cpu", ZE_DEVICE_TYPE_CPU}, {"fpga", ZE_DEVICE_TYPE_FPGA},
    {"mca", ZE_DEVICE_TYPE_MCA}, {"vpu", ZE_DEVICE_TYPE_VPU},
};
static const zf_names zf_device_types = ZF_NAMES(zf_device_type_items);

/* SUBDEVICE is absent on purpose: the driver sets it on the sub-devices it derives. */
static const zf_name zf_device_flag_items[] = {
    {"integrated", ZE_DEVICE_PROPERTY_FLAG_INTEGRATED},
    {"ecc", ZE_DEVICE_PROPERTY_FLAG_ECC},
    {"ondemandpaging", ZE_DEVICE_PROPERTY_FLAG_ONDEMANDPAGING},
};
static const zf_names zf_device_flags = ZF_NAMES(zf_device_flag_items);

/* "realtime" is the former name of the host mode. */
static const zf_name zf_clock_mode_items[] = {
    {"host", ZF_CLOCK_HOST}, {"modelled", ZF_CLOCK_MODELLED}, {"realtime", ZF_CLOCK_HOST}};
static const zf_names zf_clock_modes = ZF_NAMES(zf_clock_mode_items);

static const zf_name zf_hierarchy_items[] = {
    {"flat", ZF_HIERARCHY_FLAT}, {"composite", ZF_HIERARCHY_COMPOSITE}, {"combined", ZF_HIERARCHY_COMBINED}};
static const zf_names zf_hierarchies = ZF_NAMES(zf_hierarchy_items);

static const zf_name zf_engine_flag_items[] = {
    {"compute", ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE},
    {"copy", ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COPY},
    {"cooperative_kernels", ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COOPERATIVE_KERNELS},
    {"metrics", ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_METRICS},
};
static const zf_names zf_engine_flags = ZF_NAMES(zf_engine_flag_items);

static const zf_name zf_module_flag_items[] = {
    {"fp16", ZE_DEVICE_MODULE_FLAG_FP16},
    {"fp64", ZE_DEVICE_MODULE_FLAG_FP64},
    {"int64_atomics", ZE_DEVICE_MODULE_FLAG_INT64_ATOMICS},
    {"dp4a", ZE_DEVICE_MODULE_FLAG_DP4A},
};
static const zf_names zf_module_flags = ZF_NAMES(zf_module_flag_items);

static const zf_name zf_fp_flag_items[] = {
    {"denorm", ZE_DEVICE_FP_FLAG_DENORM},
    {"inf_nan", ZE_DEVICE_FP_FLAG_INF_NAN},
    {"round_to_nearest", ZE_DEVICE_FP_FLAG_ROUND_TO_NEAREST},
    {"round_to_zero", ZE_DEVICE_FP_FLAG_ROUND_TO_ZERO},
    {"round_to_inf", ZE_DEVICE_FP_FLAG_ROUND_TO_INF},
    {"fma", ZE_DEVICE_FP_FLAG_FMA},
    {"rounded_divide_sqrt", ZE_DEVICE_FP_FLAG_ROUNDED_DIVIDE_SQRT},
    {"soft_float", ZE_DEVICE_FP_FLAG_SOFT_FLOAT},
};
static const zf_names zf_fp_flags = ZF_NAMES(zf_fp_flag_items);

static const zf_name zf_access_flag_items[] = {
    {"rw", ZE_MEMORY_ACCESS_CAP_FLAG_RW},
    {"atomic", ZE_MEMORY_ACCESS_CAP_FLAG_ATOMIC},
    {"concurrent", ZE_MEMORY_ACCESS_CAP_FLAG_CONCURRENT},
    {"concurrent_atomic", ZE_MEMORY_ACCESS_CAP_FLAG_CONCURRENT_ATOMIC},
};
static const zf_names zf_access_flags = ZF_NAMES(zf_access_flag_items);

/* The line of the deepest of node[k1][k2] that exists, so errors about defaults still point somewhere sensible. */
static yaml_node_t *zf_node_at(zf_walk *w, yaml_node_t *node, const char *k1, const char *k2) {
    yaml_node_t *first = zf_node_lookup(w, node, k1);
    if (!first)
        return node;
    yaml_node_t *second = k2 ? zf_node_lookup(w, first, k2) : NULL;
    return second ? second : first;
}

/* ---- Values with their own syntax ----------------------------------------------------------------------------- */

static bool zf_parse_schema_version(zf_walk *w, yaml_node_t *node, void *base, const zf_field *field) {
    (void)base;
    (void)field;
    uint64_t version = 0;
    if (!zf_scalar_uint(w, node, false, 0, UINT64_MAX, &version))
        return false;
    if (version != 1)
        return zf_walk_fail(w, node, NULL, "schema %llu is not supported (this driver reads schema 1)",
                            (unsigned long long)version);
    return true;
}

/* "MAJOR.MINOR.BUILD" as Intel's driver encodes it: major in bits 31..24, minor in 23..16, build in 15..0. */
static bool zf_dotted_version(const char *text, size_t length, uint32_t *out) {
    static const uint64_t limits[3] = {255, 255, 65535};
    static const unsigned shifts[3] = {24, 16, 0};
    uint32_t version = 0;
    size_t start = 0;
    for (int part = 0; part < 3; part++) {
        const char *dot = memchr(text + start, '.', length - start);
        size_t end = (part < 2) ? (dot ? (size_t)(dot - text) : length) : length;
        uint64_t value = 0;
        if ((part < 2 && !dot) || zf_number_parse(text + start, end - start, false, &value) != ZF_NUMBER_OK ||
            value > limits[part])
            return false;
        version |= (uint32_t)value << shifts[part];
        start = end + 1;
    }
    *out = version;
    return true;
}

static bool zf_parse_driver_version(zf_walk *w, yaml_node_t *node, void *base, const zf_field *field) {
    uint32_t version = 0;
    bool dotted = node->type == YAML_SCALAR_NODE && memchr(node->data.scalar.value, '.', node->data.scalar.length);
    if (dotted && !zf_dotted_version((const char *)node->data.scalar.value, node->data.scalar.length, &version))
        return zf_walk_fail_type(w, node, "MAJOR.MINOR.BUILD (0..255.0..255.0..65535) or an integer");
    if (!dotted) {
        uint64_t value = 0;
        if (!zf_scalar_uint(w, node, false, 0, UINT32_MAX, &value))
            return false;
        version = (uint32_t)value;
    }
    memcpy((char *)base + field->offset, &version, sizeof(version));
    return true;
}

static bool zf_parse_spirv_version(zf_walk *w, yaml_node_t *node, void *base, const zf_field *field) {
    const char *text = node->type == YAML_SCALAR_NODE ? (const char *)node->data.scalar.value : "";
    size_t length = node->type == YAML_SCALAR_NODE ? node->data.scalar.length : 0;
    if (length != 3 || text[0] != '1' || text[1] != '.' || text[2] < '0' || text[2] > '6')
        return zf_walk_fail_type(w, node, "a SPIR-V version 1.0..1.6");
    uint32_t version = ZE_MAKE_VERSION(1u, (uint32_t)(text[2] - '0'));
    memcpy((char *)base + field->offset, &version, sizeof(version));
    return true;
}

static bool zf_parse_subdevices(zf_walk *w, yaml_node_t *node, void *base, const zf_field *field) {
    uint64_t count = 0;
    if (!zf_scalar_uint(w, node, false, 0, ZF_SCENARIO_MAX_SUBDEVICES, &count))
        return false;
    if (count == 1)
        return zf_walk_fail(w, node, NULL, "1 is not allowed: use 0 for a device without sub-devices, or 2..%d",
                            ZF_SCENARIO_MAX_SUBDEVICES);
    uint32_t value = (uint32_t)count;
    memcpy((char *)base + field->offset, &value, sizeof(value));
    return true;
}

/* ---- Device sections ------------------------------------------------------------------------------------------ */

typedef zf_scenario_topology zf_topo;
static const zf_field zf_topology_fields[] = {
    ZF_UINT(zf_topo, slices, "slices", 1, 64, 0),
    ZF_UINT(zf_topo, subslices_per_slice, "subslices_per_slice", 1, 1024, 0),
    ZF_UINT(zf_topo, eus_per_subslice, "eus_per_subslice", 1, 256, 0),
    ZF_UINT(zf_topo, threads_per_eu, "threads_per_eu", 1, 64, 0),
    ZF_UINT(zf_topo, simd_width, "simd_width", 1, 64, ZF_OPT_POW2),
};
static const zf_schema zf_topology_schema = ZF_SCHEMA(zf_topology_fields, NULL);

typedef zf_scenario_performance zf_perf;
static const zf_field zf_performance_fields[] = {
    ZF_UINT(zf_perf, memory_bandwidth_gbps, "memory_bandwidth_gbps", 1, 1000000, 0),
    ZF_UINT(zf_perf, dispatch_latency_ns, "dispatch_latency_ns", 0, 999999, 0),
    ZF_UINT(zf_perf, command_ns, "command_ns", 1, 1000000, 0),
    ZF_UINT(zf_perf, kernel_launch_ns, "kernel_launch_ns", 0, 1000000, 0),
};
static const zf_schema zf_performance_schema = ZF_SCHEMA(zf_performance_fields, NULL);

/* The results of zes_diag_result_t a planted fault makes a diagnostics run answer. */
static const zf_name zf_diag_result_items[] = {
    {"no_errors", ZES_DIAG_RESULT_NO_ERRORS},
    {"abort", ZES_DIAG_RESULT_ABORT},
    {"fail_cant_repair", ZES_DIAG_RESULT_FAIL_CANT_REPAIR},
    {"reboot_for_repair", ZES_DIAG_RESULT_REBOOT_FOR_REPAIR},
};
static const zf_names zf_diag_results = ZF_NAMES(zf_diag_result_items);

static const zf_field zf_diag_test_fields[] = {
    ZF_STRING(zf_scenario_diag_test, name, "name", ZF_OPT_REQUIRED | ZF_OPT_NONEMPTY),
    ZF_ENUM(zf_scenario_diag_test, result, "result", &zf_diag_results, 0),
};
static const zf_schema zf_diag_test_schema = ZF_SCHEMA(zf_diag_test_fields, NULL);
static const zf_list_spec zf_diag_test_list = {.item = &zf_diag_test_schema,
                                               .elem_size = sizeof(zf_scenario_diag_test),
                                               .count_offset = offsetof(zf_scenario_diag_suite, num_tests),
                                               .min_items = 0,
                                               .max_items = ZF_SCENARIO_MAX_DIAG_TESTS,
                                               .init = NULL};

/* A suite with tests answers their results: a result of its own would never be used. */
static bool zf_diag_suite_finish(zf_walk *w, yaml_node_t *node, void *base, uint64_t present) {
    (void)present;
    const zf_scenario_diag_suite *suite = base;
    if (suite->num_tests > 0 && zf_node_lookup(w, node, "result") != NULL)
        return zf_walk_fail(w, zf_node_at(w, node, "result", NULL), "result",
                            "a suite with tests answers the results of its tests: give each test its result");
    return true;
}

static void zf_diag_suite_init(void *item, uint32_t index) {
    (void)index;
    zf_scenario_diag_suite *suite = item;
    suite->duration_ms = 100;
}

typedef zf_scenario_diag_suite zf_suite;
static const zf_field zf_diag_suite_fields[] = {
    ZF_STRING(zf_suite, name, "name", ZF_OPT_REQUIRED | ZF_OPT_NONEMPTY),
    ZF_UINT(zf_suite, duration_ms, "duration_ms", 0, 3600000, 0),
    ZF_ENUM(zf_suite, result, "result", &zf_diag_results, 0),
    ZF_LIST(zf_suite, tests, "tests", &zf_diag_test_list, 0),
};
static const zf_schema zf_diag_suite_schema = ZF_SCHEMA(zf_diag_suite_fields, zf_diag_suite_finish);
static const zf_list_spec zf_diag_suite_list = {.item = &zf_diag_suite_schema,
                                                .elem_size = sizeof(zf_scenario_diag_suite),
                                                .count_offset = offsetof(zf_scenario_sysman, num_diag_suites),
                                                .min_items = 0,
                                                .max_items = ZF_SCENARIO_MAX_DIAG_SUITES,
                                                .init = zf_diag_suite_init};

static void zf_fan_init(void *item, uint32_t index) {
    (void)index;
    *(zf_scenario_fan *)item =
        (zf_scenario_fan){.max_rpm = 3000, .min_percent = 25, .ramp_start_c = 40, .max_points = 8};
}

static const zf_field zf_fan_fields[] = {
    ZF_UINT(zf_scenario_fan, max_rpm, "max_rpm", 1, 100000, 0),
    ZF_UINT(zf_scenario_fan, min_percent, "min_percent", 0, 100, 0),
    ZF_UINT(zf_scenario_fan, ramp_start_c, "ramp_start_c", 0, 300, 0),
    ZF_UINT(zf_scenario_fan, max_points, "max_points", 0, ZES_FAN_TEMP_SPEED_PAIR_COUNT, 0),
};
static const zf_schema zf_fan_schema = ZF_SCHEMA(zf_fan_fields, NULL);
static const zf_list_spec zf_fan_list = {.item = &zf_fan_schema,
                                         .elem_size = sizeof(zf_scenario_fan),
                                         .count_offset = offsetof(zf_scenario_sysman, num_fans),
                                         .min_items = 0,
                                         .max_items = ZF_SCENARIO_MAX_FANS,
                                         .init = zf_fan_init};

static const zf_field zf_led_fields[] = {
    ZF_BOOL(zf_scenario_led, rgb, "rgb"),
};
static const zf_schema zf_led_schema = ZF_SCHEMA(zf_led_fields, NULL);
static const zf_list_spec zf_led_list = {.item = &zf_led_schema,
                                         .elem_size = sizeof(zf_scenario_led),
                                         .count_offset = offsetof(zf_scenario_sysman, num_leds),
                                         .min_items = 0,
                                         .max_items = ZF_SCENARIO_MAX_LEDS,
                                         .init = NULL};

static void zf_psu_init(void *item, uint32_t index) {
    (void)index;
    *(zf_scenario_psu *)item = (zf_scenario_psu){.volts = 12};
}

static const zf_field zf_psu_fields[] = {
    ZF_UINT(zf_scenario_psu, volts, "volts", 1, 1000, 0),
    ZF_UINT(zf_scenario_psu, amp_limit_ma, "amp_limit_ma", 1, 10000000, 0),
    ZF_BOOL(zf_scenario_psu, fan, "fan"),
};
static const zf_schema zf_psu_schema = ZF_SCHEMA(zf_psu_fields, NULL);
static const zf_list_spec zf_psu_list = {.item = &zf_psu_schema,
                                         .elem_size = sizeof(zf_scenario_psu),
                                         .count_offset = offsetof(zf_scenario_sysman, num_psus),
                                         .min_items = 0,
                                         .max_items = ZF_SCENARIO_MAX_PSUS,
                                         .init = zf_psu_init};

static bool zf_overclock_finish(zf_walk *w, yaml_node_t *node, void *base, uint64_t present) {
    (void)present;
    const zf_scenario_overclock *oc = base;
    if (oc->max_voltage_mv < oc->default_voltage_mv)
        return zf_walk_fail(w, zf_node_at(w, node, "max_voltage_mv", NULL), "max_voltage_mv",
                            "%u is below default_voltage_mv (%u)", oc->max_voltage_mv, oc->default_voltage_mv);
    return true;
}

typedef zf_scenario_overclock zf_oc;
static const zf_field zf_overclock_fields[] = {
    ZF_BOOL(zf_oc, supported, "supported"),
    ZF_UINT(zf_oc, max_frequency_mhz, "max_frequency_mhz", 1, 100000, 0),
    ZF_UINT(zf_oc, default_voltage_mv, "default_voltage_mv", 1, 10000, 0),
    ZF_UINT(zf_oc, max_voltage_mv, "max_voltage_mv", 1, 10000, 0),
    ZF_UINT(zf_oc, voltage_offset_mv, "voltage_offset_mv", 0, 1000, 0),
    ZF_BOOL(zf_oc, extended, "extended"),
    ZF_BOOL(zf_oc, fixed_mode, "fixed_mode"),
    ZF_UINT(zf_oc, icc_max_a, "icc_max_a", 0, 10000, 0),
    ZF_BOOL(zf_oc, tjmax, "tjmax"),
};
static const zf_schema zf_overclock_schema = ZF_SCHEMA(zf_overclock_fields, zf_overclock_finish);

typedef zf_scenario_sysman zf_sysman;
static const zf_field zf_sysman_fields[] = {
    ZF_UINT(zf_sysman, tile_idle_w, "tile_idle_w", 0, 10000, 0),
    ZF_UINT(zf_sysman, tile_compute_w, "tile_compute_w", 1, 10000, 0),
    ZF_UINT(zf_sysman, tile_copy_w, "tile_copy_w", 0, 10000, 0),
    ZF_UINT(zf_sysman, tile_awake_w, "tile_awake_w", 0, 10000, 0),
    ZF_UINT(zf_sysman, card_uncore_w, "card_uncore_w", 0, 10000, 0),
    ZF_UINT(zf_sysman, picojoules_per_byte, "picojoules_per_byte", 0, 100000, 0),
    ZF_UINT(zf_sysman, power_limit_w, "power_limit_w", 1, 100000, 0),
    ZF_UINT(zf_sysman, min_frequency_mhz, "min_frequency_mhz", 1, 100000, 0),
    ZF_UINT(zf_sysman, frequency_step_mhz, "frequency_step_mhz", 1, 100000, 0),
    ZF_UINT(zf_sysman, ambient_c, "ambient_c", 0, 100, 0),
    ZF_UINT(zf_sysman, millikelvin_per_w, "millikelvin_per_w", 1, 100000, 0),
    ZF_UINT(zf_sysman, thermal_tau_ms, "thermal_tau_ms", 1, 3600000, 0),
    ZF_UINT(zf_sysman, max_temperature_c, "max_temperature_c", 6, 300, 0),
    ZF_LIST(zf_sysman, diag_suites, "diagnostics", &zf_diag_suite_list, 0),
    ZF_LIST(zf_sysman, fans, "fans", &zf_fan_list, 0),
    ZF_LIST(zf_sysman, leds, "leds", &zf_led_list, 0),
    ZF_LIST(zf_sysman, psus, "psus", &zf_psu_list, 0),
    ZF_MAP(zf_sysman, overclock, "overclock", &zf_overclock_schema),
    ZF_UINT(zf_sysman, virtual_functions, "virtual_functions", 0, ZF_SCENARIO_MAX_VFS, 0),
};
static bool zf_sysman_finish(zf_walk *w, yaml_node_t *node, void *base, uint64_t present) {
    (void)present;
    const zf_sysman *s = base;
    if (s->max_temperature_c <= s->ambient_c + 5)
        return zf_walk_fail(w, zf_node_at(w, node, "max_temperature_c", NULL), "max_temperature_c",
                            "%u is not above ambient_c + 5 (the critical temperature lies 5 K below it)",
                            s->max_temperature_c);
    for (uint32_t i = 0; i < s->num_fans; i++) {
        if (s->fans[i].ramp_start_c < s->max_temperature_c - 5)
            continue;
        char key[40];
        snprintf(key, sizeof key, "fans[%u].ramp_start_c", i);
        yaml_node_t *fan = zf_node_item(w, zf_node_lookup(w, node, "fans"), i);
        return zf_walk_fail(w, zf_node_at(w, fan, "ramp_start_c", NULL), key,
                            "%u is not below the critical temperature (max_temperature_c - 5 = %u)",
                            s->fans[i].ramp_start_c, s->max_temperature_c - 5);
    }
    return true;
}
static const zf_schema zf_sysman_schema = ZF_SCHEMA(zf_sysman_fields, zf_sysman_finish);

static const zf_field zf_timer_fields[] = {
    ZF_UINT(zf_scenario_timer, frequency_hz, "frequency_hz", 1, UINT64_C(10000000000), 0),
    ZF_UINT(zf_scenario_timer, valid_bits, "valid_bits", 1, 64, 0),
    ZF_UINT(zf_scenario_timer, kernel_valid_bits, "kernel_valid_bits", 1, 64, 0),
};
static const zf_schema zf_timer_schema = ZF_SCHEMA(zf_timer_fields, NULL);

static bool zf_compute_finish(zf_walk *w, yaml_node_t *node, void *base, uint64_t present) {
    (void)present;
    const zf_scenario_compute *c = base;
    for (int i = 0; i < 3; i++) {
        if (c->max_group_size[i] > c->max_total_group_size)
            return zf_walk_fail(w, zf_node_at(w, node, "max_group_size", NULL), "max_group_size",
                                "%u exceeds max_total_group_size (%u)", c->max_group_size[i], c->max_total_group_size);
    }
    for (uint32_t i = 0; i < c->num_sub_group_sizes; i++) {
        if (c->sub_group_sizes[i] > c->max_total_group_size)
            return zf_walk_fail(w, zf_node_at(w, node, "sub_group_sizes", NULL), "sub_group_sizes",
                                "%u exceeds max_total_group_size (%u)", c->sub_group_sizes[i], c->max_total_group_size);
    }
    return true;
}

static const zf_uint_list_spec zf_group_triple = {3, 3, ZF_NO_COUNT, false};
static const zf_uint_list_spec zf_sub_group_list = {1, ZE_SUBGROUPSIZE_COUNT,
                                                    offsetof(zf_scenario_compute, num_sub_group_sizes), true};
typedef zf_scenario_compute zf_comp;
static const zf_field zf_compute_fields[] = {
    ZF_UINT(zf_comp, max_total_group_size, "max_total_group_size", 1, 1u << 20, 0),
    ZF_UINTS(zf_comp, max_group_size, "max_group_size", &zf_group_triple, 1, 1u << 20, 0),
    ZF_UINTS(zf_comp, max_group_count, "max_group_count", &zf_group_triple, 1, UINT32_MAX, 0),
    ZF_UINT(zf_comp, max_shared_local_memory_bytes, "max_shared_local_memory", 0, UINT32_MAX, ZF_OPT_SIZE),
    ZF_UINTS(zf_comp, sub_group_sizes, "sub_group_sizes", &zf_sub_group_list, 1, 1024, ZF_OPT_POW2),
};
static const zf_schema zf_compute_schema = ZF_SCHEMA(zf_compute_fields, zf_compute_finish);

/* The spec has fp16/fp64 properties answer 0 when the module flag is missing; keep the data consistent with that. */
static bool zf_fp_consistent(zf_walk *w, yaml_node_t *node, const char *key, const char *flag, bool supported,
                             ze_device_fp_flags_t *fp) {
    if (supported)
        return true;
    yaml_node_t *given = zf_node_lookup(w, node, key);
    if (given && *fp != 0)
        return zf_walk_fail(w, given, key, "must be empty because flags does not list %s", flag);
    *fp = 0;
    return true;
}

static bool zf_module_finish(zf_walk *w, yaml_node_t *node, void *base, uint64_t present) {
    (void)present;
    zf_scenario_module *m = base;
    return zf_fp_consistent(w, node, "fp16_flags", "fp16", m->flags & ZE_DEVICE_MODULE_FLAG_FP16, &m->fp16_flags) &&
           zf_fp_consistent(w, node, "fp64_flags", "fp64", m->flags & ZE_DEVICE_MODULE_FLAG_FP64, &m->fp64_flags);
}

typedef zf_scenario_module zf_mod;
static const zf_field zf_module_fields[] = {
    ZF_CUSTOM(zf_mod, spirv_version, "spirv_version", zf_parse_spirv_version, 0),
    ZF_FLAGS(zf_mod, flags, "flags", &zf_module_flags, 0),
    ZF_FLAGS(zf_mod, fp16_flags, "fp16_flags", &zf_fp_flags, 0),
    ZF_FLAGS(zf_mod, fp32_flags, "fp32_flags", &zf_fp_flags, 0),
    ZF_FLAGS(zf_mod, fp64_flags, "fp64_flags", &zf_fp_flags, 0),
    ZF_UINT(zf_mod, max_arguments_size_bytes, "max_arguments_size", 1, UINT32_MAX, ZF_OPT_SIZE),
    ZF_UINT(zf_mod, printf_buffer_size_bytes, "printf_buffer_size", 0, UINT32_MAX, ZF_OPT_SIZE),
};
static const zf_schema zf_module_schema = ZF_SCHEMA(zf_module_fields, zf_module_finish);

typedef zf_scenario_images zf_img;
static const zf_field zf_images_fields[] = {
    ZF_UINT(zf_img, max_dims_1d, "max_dims_1d", 0, UINT32_MAX, 0),
    ZF_UINT(zf_img, max_dims_2d, "max_dims_2d", 0, UINT32_MAX, 0),
    ZF_UINT(zf_img, max_dims_3d, "max_dims_3d", 0, UINT32_MAX, 0),
    ZF_UINT(zf_img, max_buffer_size_bytes, "max_buffer_size", 0, ZF_SIZE_MAX, ZF_OPT_SIZE),
    ZF_UINT(zf_img, max_array_slices, "max_array_slices", 0, UINT32_MAX, 0),
    ZF_UINT(zf_img, max_samplers, "max_samplers", 0, UINT32_MAX, 0),
    ZF_UINT(zf_img, max_read_args, "max_read_args", 0, UINT32_MAX, 0),
    ZF_UINT(zf_img, max_write_args, "max_write_args", 0, UINT32_MAX, 0),
};
static const zf_schema zf_images_schema = ZF_SCHEMA(zf_images_fields, NULL);

typedef zf_scenario_memory_access zf_acc;
static const zf_field zf_access_fields[] = {
    ZF_FLAGS(zf_acc, host, "host", &zf_access_flags, 0),
    ZF_FLAGS(zf_acc, device, "device", &zf_access_flags, 0),
    ZF_FLAGS(zf_acc, shared_single_device, "shared_single_device", &zf_access_flags, 0),
    ZF_FLAGS(zf_acc, shared_cross_device, "shared_cross_device", &zf_access_flags, 0),
    ZF_FLAGS(zf_acc, shared_system, "shared_system", &zf_access_flags, 0),
};
static const zf_schema zf_access_schema = ZF_SCHEMA(zf_access_fields, NULL);

static const zf_field zf_pci_fields[] = {
    ZF_UINT(zf_scenario_pci, domain, "domain", 0, UINT32_MAX, 0),
    ZF_UINT(zf_scenario_pci, bus, "bus", 0, 255, 0),
    ZF_UINT(zf_scenario_pci, device, "device", 0, 31, 0),
    ZF_UINT(zf_scenario_pci, function, "function", 0, 7, 0),
};
static const zf_schema zf_pci_schema = ZF_SCHEMA(zf_pci_fields, NULL);

/* ---- Device lists ---------------------------------------------------------------------------------------------- */

static const zf_field zf_memory_fields[] = {
    ZF_STRING(zf_scenario_memory, name, "name", ZF_OPT_REQUIRED | ZF_OPT_NONEMPTY),
    ZF_UINT(zf_scenario_memory, total_size_bytes, "total_size", 1, ZF_SIZE_MAX, ZF_OPT_REQUIRED | ZF_OPT_SIZE),
    ZF_UINT(zf_scenario_memory, max_clock_rate_mhz, "max_clock_rate_mhz", 0, 100000, 0),
    ZF_UINT(zf_scenario_memory, max_bus_width_bits, "max_bus_width_bits", 0, 65536, 0),
};
static const zf_schema zf_memory_schema = ZF_SCHEMA(zf_memory_fields, NULL);
static const zf_list_spec zf_memory_list = {.item = &zf_memory_schema,
                                            .elem_size = sizeof(zf_scenario_memory),
                                            .count_offset = offsetof(zf_scenario_device, num_memories),
                                            .min_items = 1,
                                            .max_items = ZF_SCENARIO_MAX_MEMORIES,
                                            .init = NULL};

static const zf_field zf_cache_fields[] = {
    ZF_UINT(zf_scenario_cache, size_bytes, "size", 1, ZF_SIZE_MAX, ZF_OPT_REQUIRED | ZF_OPT_SIZE),
    ZF_BOOL(zf_scenario_cache, user_control, "user_control"),
};
static const zf_schema zf_cache_schema = ZF_SCHEMA(zf_cache_fields, NULL);
static const zf_list_spec zf_cache_list = {.item = &zf_cache_schema,
                                           .elem_size = sizeof(zf_scenario_cache),
                                           .count_offset = offsetof(zf_scenario_device, num_caches),
                                           .min_items = 0,
                                           .max_items = ZF_SCENARIO_MAX_CACHES,
                                           .init = NULL};

static bool zf_engine_group_finish(zf_walk *w, yaml_node_t *node, void *base, uint64_t present) {
    (void)present;
    zf_scenario_engine_group *g = base;
    bool compute = g->flags & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE;
    if ((g->flags & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COOPERATIVE_KERNELS) && !compute)
        return zf_walk_fail(w, zf_node_at(w, node, "flags", NULL), "flags", "cooperative_kernels requires compute");
    /* 0 means "not given": fills on compute engines run as kernels (large patterns), on copy engines in hardware. */
    if (g->max_fill_pattern_size_bytes == 0)
        g->max_fill_pattern_size_bytes = compute ? 128 : 4;
    return true;
}

static void zf_engine_group_init(void *item, uint32_t index) {
    (void)index;
    zf_scenario_engine_group *g = item;
    g->num_queues = 1;
}

typedef zf_scenario_engine_group zf_eng;
static const zf_field zf_engine_group_fields[] = {
    ZF_FLAGS(zf_eng, flags, "flags", &zf_engine_flags, ZF_OPT_REQUIRED | ZF_OPT_NONEMPTY),
    ZF_UINT(zf_eng, num_queues, "num_queues", 1, 64, 0),
    ZF_UINT(zf_eng, max_fill_pattern_size_bytes, "max_fill_pattern_size", 1, 65536, ZF_OPT_SIZE | ZF_OPT_POW2),
};
static const zf_schema zf_engine_group_schema = ZF_SCHEMA(zf_engine_group_fields, zf_engine_group_finish);
static const zf_list_spec zf_engine_group_list = {.item = &zf_engine_group_schema,
                                                  .elem_size = sizeof(zf_scenario_engine_group),
                                                  .count_offset = offsetof(zf_scenario_device, num_engine_groups),
                                                  .min_items = 1,
                                                  .max_items = ZF_SCENARIO_MAX_ENGINE_GROUPS,
                                                  .init = zf_engine_group_init};

/* ---- Devices --------------------------------------------------------------------------------------------------- */

static void zf_device_defaults_compute(zf_scenario_device *d) {
    d->topology = (zf_scenario_topology){.slices = 0, /* derived: max(1, subdevices) */
                                         .subslices_per_slice = 8,
                                         .eus_per_subslice = 8,
                                         .threads_per_eu = 8,
                                         .simd_width = 8};
    d->timer = (zf_scenario_timer){.frequency_hz = 38400000, .valid_bits = 64, .kernel_valid_bits = 32};
    d->compute = (zf_scenario_compute){.max_total_group_size = 1024,
                                       .max_group_size = {1024, 1024, 1024},
                                       .max_group_count = {UINT32_MAX, 0xFFFF, 0xFFFF},
                                       .max_shared_local_memory_bytes = (uint32_t)ZF_KIB(64),
                                       .num_sub_group_sizes = 3,
                                       .sub_group_sizes = {8, 16, 32}};
    const ze_device_fp_flags_t fp = ZE_DEVICE_FP_FLAG_DENORM | ZE_DEVICE_FP_FLAG_INF_NAN |
                                    ZE_DEVICE_FP_FLAG_ROUND_TO_NEAREST | ZE_DEVICE_FP_FLAG_ROUND_TO_ZERO |
                                    ZE_DEVICE_FP_FLAG_ROUND_TO_INF | ZE_DEVICE_FP_FLAG_FMA;
    d->module = (zf_scenario_module){.spirv_version = ZE_MAKE_VERSION(1u, 4u),
                                     .flags = ZE_DEVICE_MODULE_FLAG_FP16 | ZE_DEVICE_MODULE_FLAG_FP64 |
                                              ZE_DEVICE_MODULE_FLAG_INT64_ATOMICS | ZE_DEVICE_MODULE_FLAG_DP4A,
                                     .fp16_flags = fp,
                                     .fp32_flags = fp | ZE_DEVICE_FP_FLAG_ROUNDED_DIVIDE_SQRT,
                                     .fp64_flags = fp,
                                     .max_arguments_size_bytes = 2048,
                                     .printf_buffer_size_bytes = (uint32_t)ZF_MIB(4)};
}

static void zf_device_defaults_memory(zf_scenario_device *d, uint32_t index) {
    d->images = (zf_scenario_images){.max_dims_1d = 16384,
                                     .max_dims_2d = 16384,
                                     .max_dims_3d = 2048,
                                     .max_buffer_size_bytes = ZF_GIB(4),
                                     .max_array_slices = 2048,
                                     .max_samplers = 16,
                                     .max_read_args = 128,
                                     .max_write_args = 128};
    const ze_memory_access_cap_flags_t rw_atomic = ZE_MEMORY_ACCESS_CAP_FLAG_RW | ZE_MEMORY_ACCESS_CAP_FLAG_ATOMIC;
    d->memory_access =
        (zf_scenario_memory_access){.host = rw_atomic,
                                    .device = rw_atomic,
                                    .shared_single_device = rw_atomic | ZE_MEMORY_ACCESS_CAP_FLAG_CONCURRENT |
                                                            ZE_MEMORY_ACCESS_CAP_FLAG_CONCURRENT_ATOMIC,
                                    .shared_cross_device = 0,
                                    .shared_system = 0};
    /* One bus per device keeps PCI addresses distinct when a file lists several devices without pci sections. */
    d->pci = (zf_scenario_pci){.domain = 0, .bus = index + 1, .device = 0, .function = 0};
    d->num_memories = 1;
    d->memories[0] = (zf_scenario_memory){.name = "DDR",
                                          .total_size_bytes = 0, /* derived in zf_device_finish */
                                          .max_clock_rate_mhz = 3200,
                                          .max_bus_width_bits = 64};
    d->num_caches = 1;
    d->caches[0] = (zf_scenario_cache){.size_bytes = ZF_MIB(4), .user_control = false};
}

static void zf_device_defaults_engines(zf_scenario_device *d) {
    d->num_engine_groups = 2;
    d->engine_groups[0] = (zf_scenario_engine_group){.flags = ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE |
                                                              ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COPY |
                                                              ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COOPERATIVE_KERNELS |
                                                              ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_METRICS,
                                                     .num_queues = 1,
                                                     .max_fill_pattern_size_bytes = 128};
    d->engine_groups[1] = (zf_scenario_engine_group){
        .flags = ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COPY, .num_queues = 1, .max_fill_pattern_size_bytes = 4};
}

static void zf_device_init(void *item, uint32_t index) {
    zf_scenario_device *d = item;
    d->vendor_id = 0x8086;
    d->core_clock_rate_mhz = 1600;
    d->max_mem_alloc_size_bytes = 0; /* derived in zf_device_finish */
    d->max_hardware_contexts = 65536;
    d->max_command_queue_priority = 0;
    d->hang_timeout_ms = 120000;
    /* A Data Center GPU Max 1550: about 3.2 TB/s of HBM2e, a few microseconds from submission to start. */
    d->performance = (zf_scenario_performance){
        .memory_bandwidth_gbps = 3276, .dispatch_latency_ns = 4000, .command_ns = 100, .kernel_launch_ns = 2000};
    /* PVC-like (docs/sysman.md): a 2-tile card idles near 110 W and draws about 600 W when both tiles compute. */
    d->sysman = (zf_scenario_sysman){
        .tile_idle_w = 40,
        .tile_compute_w = 220,
        .tile_copy_w = 25,
        .tile_awake_w = 20,
        .card_uncore_w = 30,
        .picojoules_per_byte = 20,
        .power_limit_w = 600,
        .min_frequency_mhz = 300,
        .frequency_step_mhz = 50,
        .ambient_c = 30,
        .millikelvin_per_w = 100,
        .thermal_tau_ms = 2000,
        .max_temperature_c = 105,
        .overclock = {.default_voltage_mv = 1050, .max_voltage_mv = 1200, .voltage_offset_mv = 100}};
    zf_device_defaults_compute(d);
    zf_device_defaults_memory(d, index);
    zf_device_defaults_engines(d);
    zf_metric_options_defaults(&d->metric_options);
}

static yaml_node_t *zf_memory_node(zf_walk *w, yaml_node_t *device, uint32_t index) {
    yaml_node_t *list = zf_node_lookup(w, device, "memories");
    if (!list || list->type != YAML_SEQUENCE_NODE || index >= zf_node_length(list))
        return device;
    yaml_node_t *memory = zf_node_item(w, list, index);
    yaml_node_t *size = zf_node_lookup(w, memory, "total_size");
    return size ? size : memory;
}

/* Sub-devices get slices / N, and total_size / N and max_bus_width_bits / N of every memory (docs/scenarios.md), so
 * they must divide evenly. */
static bool zf_device_check_division(zf_walk *w, yaml_node_t *node, zf_scenario_device *d) {
    uint32_t parts = d->num_subdevices ? d->num_subdevices : 1;
    if (d->topology.slices == 0)
        d->topology.slices = parts;
    if (d->topology.slices % parts)
        return zf_walk_fail(w, zf_node_at(w, node, "topology", "slices"), "topology.slices",
                            "%u is not divisible by subdevices (%u)", d->topology.slices, parts);
    for (uint32_t i = 0; i < d->num_memories; i++) {
        if (d->memories[i].total_size_bytes == 0) { /* the default memory: 8 GiB and 64 bits per tile */
            d->memories[i].total_size_bytes = ZF_GIB(8) * parts;
            d->memories[i].max_bus_width_bits *= parts;
        }
        char key[48];
        if (d->memories[i].total_size_bytes % parts) {
            snprintf(key, sizeof(key), "memories[%u].total_size", i);
            return zf_walk_fail(w, zf_memory_node(w, node, i), key, "%llu is not divisible by subdevices (%u)",
                                (unsigned long long)d->memories[i].total_size_bytes, parts);
        }
        if (d->memories[i].max_bus_width_bits % parts) {
            snprintf(key, sizeof(key), "memories[%u].max_bus_width_bits", i);
            return zf_walk_fail(w, zf_memory_node(w, node, i), key, "%u is not divisible by subdevices (%u)",
                                d->memories[i].max_bus_width_bits, parts);
        }
    }
    return true;
}

/* An allocation must fit the largest memory of the smallest device the limit is copied to (a sub-device). */
static bool zf_device_check_alloc(zf_walk *w, yaml_node_t *node, zf_scenario_device *d) {
    uint32_t parts = d->num_subdevices ? d->num_subdevices : 1;
    uint64_t largest = 0;
    for (uint32_t i = 0; i < d->num_memories; i++)
        largest = d->memories[i].total_size_bytes > largest ? d->memories[i].total_size_bytes : largest;
    uint64_t limit = largest / parts;
    if (d->max_mem_alloc_size_bytes == 0)
        d->max_mem_alloc_size_bytes = limit;
    if (d->max_mem_alloc_size_bytes > limit)
        return zf_walk_fail(w, zf_node_at(w, node, "max_mem_alloc_size", NULL), "max_mem_alloc_size",
                            "%llu exceeds the largest memory per %s (%llu)",
                            (unsigned long long)d->max_mem_alloc_size_bytes, parts > 1 ? "sub-device" : "device",
                            (unsigned long long)limit);
    return true;
}

static bool zf_device_check_engines(zf_walk *w, yaml_node_t *node, const zf_scenario_device *d) {
    if (d->type != ZE_DEVICE_TYPE_GPU)
        return true;
    for (uint32_t i = 0; i < d->num_engine_groups; i++) {
        if (d->engine_groups[i].flags & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE)
            return true;
    }
    return zf_walk_fail(w, zf_node_at(w, node, "engine_groups", NULL), "engine_groups",
                        "a gpu device needs at least one engine group with the compute flag");
}

/* The highest overclock frequency: a quarter above the core clock unless given, never below it. */
static bool zf_device_check_overclock(zf_walk *w, yaml_node_t *node, zf_scenario_device *d) {
    zf_scenario_overclock *oc = &d->sysman.overclock;
    if (oc->max_frequency_mhz == 0)
        oc->max_frequency_mhz = d->core_clock_rate_mhz + d->core_clock_rate_mhz / 4 / 50 * 50;
    if (oc->max_frequency_mhz < d->core_clock_rate_mhz)
        return zf_walk_fail(w, zf_node_at(w, zf_node_lookup(w, node, "sysman"), "overclock", "max_frequency_mhz"),
                            "sysman.overclock.max_frequency_mhz", "%u is below core_clock_rate_mhz (%u)",
                            oc->max_frequency_mhz, d->core_clock_rate_mhz);
    return true;
}

/* The virtual functions take the PCI functions after the card's, of the same device number. */
static bool zf_device_check_vfs(zf_walk *w, yaml_node_t *node, const zf_scenario_device *d) {
    uint32_t vfs = d->sysman.virtual_functions;
    if (d->pci.function + vfs <= 7)
        return true;
    return zf_walk_fail(w, zf_node_at(w, zf_node_lookup(w, node, "sysman"), "virtual_functions", NULL),
                        "sysman.virtual_functions", "%u do not fit the PCI functions after pci.function %u (up to 7)",
                        vfs, d->pci.function);
}

static bool zf_device_finish(zf_walk *w, yaml_node_t *node, void *base, uint64_t present) {
    (void)present;
    zf_scenario_device *d = base;
    return zf_device_check_division(w, node, d) && zf_device_check_alloc(w, node, d) &&
           zf_device_check_engines(w, node, d) && zf_fabric_check_device(w, node, d) &&
           zf_device_check_overclock(w, node, d) && zf_device_check_vfs(w, node, d);
}

typedef zf_scenario_device zf_dev;
static const zf_field zf_device_fields[] = {
    ZF_STRING(zf_dev, name, "name", ZF_OPT_REQUIRED | ZF_OPT_NONEMPTY),
    ZF_ENUM(zf_dev, type, "type", &zf_device_types, ZF_OPT_REQUIRED),
    ZF_UINT(zf_dev, vendor_id, "vendor_id", 0, UINT32_MAX, 0),
    ZF_UINT(zf_dev, device_id, "device_id", 0, UINT32_MAX, ZF_OPT_REQUIRED),
    ZF_FLAGS(zf_dev, flags, "flags", &zf_device_flags, 0),
    ZF_UINT(zf_dev, core_clock_rate_mhz, "core_clock_rate_mhz", 1, 100000, 0),
    ZF_UINT(zf_dev, max_mem_alloc_size_bytes, "max_mem_alloc_size", 1, ZF_SIZE_MAX, ZF_OPT_SIZE),
    ZF_UINT(zf_dev, max_hardware_contexts, "max_hardware_contexts", 1, UINT32_MAX, 0),
    ZF_UINT(zf_dev, max_command_queue_priority, "max_command_queue_priority", 0, UINT32_MAX, 0),
    ZF_UINT(zf_dev, hang_timeout_ms, "hang_timeout_ms", 0, 86400000, 0),
    ZF_CUSTOM(zf_dev, num_subdevices, "subdevices", zf_parse_subdevices, 0),
    ZF_MAP(zf_dev, topology, "topology", &zf_topology_schema),
    ZF_MAP(zf_dev, performance, "performance", &zf_performance_schema),
    ZF_MAP(zf_dev, sysman, "sysman", &zf_sysman_schema),
    ZF_MAP(zf_dev, timer, "timer", &zf_timer_schema),
    ZF_MAP(zf_dev, compute, "compute", &zf_compute_schema),
    ZF_MAP(zf_dev, module, "module", &zf_module_schema),
    ZF_MAP(zf_dev, images, "images", &zf_images_schema),
    ZF_MAP(zf_dev, memory_access, "memory_access", &zf_access_schema),
    ZF_MAP(zf_dev, pci, "pci", &zf_pci_schema),
    ZF_MAP(zf_dev, fabric, "fabric", &zf_fabric_schema),
    ZF_LIST(zf_dev, memories, "memories", &zf_memory_list, 0),
    ZF_LIST(zf_dev, caches, "caches", &zf_cache_list, 0),
    ZF_LIST(zf_dev, engine_groups, "engine_groups", &zf_engine_group_list, 0),
    ZF_MAP(zf_dev, metric_options, "metric_options", &zf_metric_options_schema),
    ZF_CUSTOM(zf_dev, num_metric_groups, "metric_groups", zf_parse_metric_groups, 0),
};
static const zf_schema zf_device_schema = ZF_SCHEMA(zf_device_fields, zf_device_finish);
static const zf_list_spec zf_device_list = {.item = &zf_device_schema,
                                            .elem_size = sizeof(zf_scenario_device),
                                            .count_offset = offsetof(zf_scenario, num_devices),
                                            .min_items = 1,
                                            .max_items = ZF_SCENARIO_MAX_DEVICES,
                                            .init = zf_device_init};

/* ---- Top level ------------------------------------------------------------------------------------------------- */

static const zf_field zf_clock_fields[] = {
    ZF_ENUM(zf_scenario, clock_mode, "mode", &zf_clock_modes, 0),
};
static const zf_schema zf_clock_schema = ZF_SCHEMA(zf_clock_fields, NULL);

static bool zf_p2p_finish(zf_walk *w, yaml_node_t *node, void *base, uint64_t present) {
    (void)present;
    const zf_scenario *s = base;
    if (s->p2p_atomics && !s->p2p_access)
        return zf_walk_fail(w, zf_node_at(w, node, "atomics", NULL), "atomics", "true requires access: true");
    return true;
}

static const zf_field zf_p2p_fields[] = {
    ZF_BOOL(zf_scenario, p2p_access, "access"),
    ZF_BOOL(zf_scenario, p2p_atomics, "atomics"),
};
static const zf_schema zf_p2p_schema = ZF_SCHEMA(zf_p2p_fields, zf_p2p_finish);

static bool zf_pci_equal(const zf_scenario_pci *a, const zf_scenario_pci *b) {
    return a->domain == b->domain && a->bus == b->bus && a->device == b->device && a->function == b->function;
}

static bool zf_scenario_finish(zf_walk *w, yaml_node_t *node, void *base, uint64_t present) {
    (void)present;
    const zf_scenario *s = base;
    yaml_node_t *devices = zf_node_lookup(w, node, "devices");
    for (uint32_t i = 1; i < s->num_devices; i++) {
        for (uint32_t j = 0; j < i; j++) {
            if (!zf_pci_equal(&s->devices[i].pci, &s->devices[j].pci))
                continue;
            char key[32];
            snprintf(key, sizeof(key), "devices[%u].pci", i);
            return zf_walk_fail(w, zf_node_at(w, zf_node_item(w, devices, i), "pci", NULL), key,
                                "same PCI address as devices[%u]", j);
        }
    }
    return zf_faults_check_devices(w, node, s) && zf_xe_links_check(w, node, s);
}

static const zf_field zf_scenario_fields[] = {
    {.key = "schema", .parse = zf_parse_schema_version, .options = ZF_OPT_REQUIRED},
    ZF_STRING(zf_scenario, name, "name", ZF_OPT_REQUIRED | ZF_OPT_NONEMPTY),
    ZF_STRING(zf_scenario, description, "description", 0),
    ZF_CUSTOM(zf_scenario, driver_version, "driver_version", zf_parse_driver_version, 0),
    ZF_INLINE_MAP("clock", &zf_clock_schema),
    ZF_ENUM(zf_scenario, device_hierarchy, "device_hierarchy", &zf_hierarchies, 0),
    ZF_INLINE_MAP("p2p", &zf_p2p_schema),
    ZF_BOOL(zf_scenario, strict, "strict"),
    ZF_LIST(zf_scenario, devices, "devices", &zf_device_list, ZF_OPT_REQUIRED),
    ZF_LIST(zf_scenario, faults, "faults", &zf_fault_list, 0),
    ZF_LIST(zf_scenario, xe_links, "xe_links", &zf_xe_link_list, 0),
};
static const zf_schema zf_scenario_schema = ZF_SCHEMA(zf_scenario_fields, zf_scenario_finish);

bool zf_scenario_walk_root(zf_walk *w, yaml_node_t *root, zf_scenario *out) {
    w->scenario = out;
    out->metric_text_used = 1;                     /* offset 0 is the empty string */
    out->driver_version = (1u << 24) | (3u << 16); /* "1.3.0" */
    out->clock_mode = ZF_CLOCK_HOST;
    out->device_hierarchy = ZF_HIERARCHY_FLAT; /* Intel's default for multi-tile cards (docs/environment.md) */
    out->p2p_access = false;
    out->p2p_atomics = false;
    out->strict = false;
    if (root->type != YAML_MAPPING_NODE)
        return zf_walk_fail_type(w, root, "a mapping at the top level");
    return zf_walk_mapping(w, root, &zf_scenario_schema, out);
}
