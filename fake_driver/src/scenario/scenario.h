/* The scenario: a validated, immutable description of the system the fake driver emulates.
 *
 * A scenario is parsed from YAML (docs/scenarios.md documents the schema), validated on its own and only then turned
 * into driver objects, so a bad file never leaves a half-built driver behind. Every value here is already checked
 * against its documented range; consumers do not re-validate. Units are in the field names. */
#ifndef ZF_SCENARIO_H
#define ZF_SCENARIO_H

#include "scenario/scenario_formula.h"

#include <level_zero/ze_api.h>
#include <level_zero/zes_api.h>
#include <level_zero/zet_api.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ZF_SCENARIO_NAME_MAX          64
#define ZF_SCENARIO_TEXT_MAX          256
#define ZF_SCENARIO_MAX_DEVICES       16
#define ZF_SCENARIO_MAX_SUBDEVICES    8
#define ZF_SCENARIO_MAX_MEMORIES      4
#define ZF_SCENARIO_MAX_CACHES        4
#define ZF_SCENARIO_MAX_ENGINE_GROUPS 8
#define ZF_SCENARIO_ERROR_MAX         512
#define ZF_SCENARIO_MAX_FAULTS        32
#define ZF_SCENARIO_MAX_DIAG_SUITES   4  /* diagnostics test suites of one device */
#define ZF_SCENARIO_MAX_DIAG_TESTS    16 /* tests of one suite */
#define ZF_SCENARIO_MAX_FANS          4  /* fans, LEDs, power supplies of one device */
#define ZF_SCENARIO_MAX_LEDS          4
#define ZF_SCENARIO_MAX_PSUS          2
#define ZF_SCENARIO_MAX_VFS           7   /* virtual functions: the PCI functions after the card's */
#define ZF_SCENARIO_MAX_PORTS         16  /* Xe Link ports of one tile */
#define ZF_SCENARIO_MAX_XE_LINKS      512 /* cables of the top-level xe_links list */

/* Metric definitions (docs/scenarios.md, "metric_groups"). They live in pools of the scenario so that a device
 * without metrics costs nothing and devices that alias the same YAML list share one copy. */
#define ZF_SCENARIO_MAX_METRIC_GROUPS 16   /* entries of one device's metric_groups */
#define ZF_SCENARIO_MAX_GROUP_METRICS 64   /* metrics of one entry */
#define ZF_SCENARIO_MAX_METRICS       1024 /* all metrics of a scenario */
#define ZF_SCENARIO_MAX_METRIC_OPS    8192 /* all compiled formula operations of a scenario */
#define ZF_SCENARIO_METRIC_TEXT_BYTES (96 * 1024)
#define ZF_METRIC_TEXT_MAX            256 /* a name, description, component or units string, with its NUL */

/* How the device clock advances (docs/scenarios.md, "clock"). */
typedef enum zf_clock_mode {
    ZF_CLOCK_MODELLED = 0, /* deterministic: advances only through the cost model */
    ZF_CLOCK_HOST = 1,     /* the default: runs with the host's CLOCK_MONOTONIC_RAW, durations from the cost model */
} zf_clock_mode;

/* How a card with sub-devices (tiles) is reported (docs/environment.md, "Device hierarchy"): the scenario's
 * `device_hierarchy`, overridden by ZE_FLAT_DEVICE_HIERARCHY. */
typedef enum zf_device_hierarchy {
    ZF_HIERARCHY_FLAT = 0,      /* each tile a root device without sub-devices */
    ZF_HIERARCHY_COMPOSITE = 1, /* the card a root device, its tiles sub-devices */
    ZF_HIERARCHY_COMBINED = 2,  /* the tiles root devices, the card reachable as their composite root */
} zf_device_hierarchy;

typedef struct zf_scenario_memory {
    char name[ZF_SCENARIO_NAME_MAX];
    uint64_t total_size_bytes; /* per root device; divided evenly among sub-devices */
    uint32_t max_clock_rate_mhz;
    uint32_t max_bus_width_bits;
    ze_device_memory_property_flags_t flags;
} zf_scenario_memory;

typedef struct zf_scenario_cache {
    uint64_t size_bytes;
    bool user_control; /* ZE_DEVICE_CACHE_PROPERTY_FLAG_USER_CONTROL */
} zf_scenario_cache;

typedef struct zf_scenario_engine_group {
    ze_command_queue_group_property_flags_t flags; /* COMPUTE, COPY, COOPERATIVE_KERNELS, METRICS */
    uint32_t num_queues;                           /* physical engines in the group, >= 1 */
    uint64_t max_fill_pattern_size_bytes;          /* power of two */
} zf_scenario_engine_group;

typedef struct zf_scenario_topology {
    uint32_t slices; /* per root device; divided evenly among sub-devices */
    uint32_t subslices_per_slice;
    uint32_t eus_per_subslice; /* XVEs per Xe-core on Xe-HPC */
    uint32_t threads_per_eu;
    uint32_t simd_width;
} zf_scenario_topology;

/* The device-time model's rates (docs/cost-model.md): what the card can do, and what dispatching work costs. */
typedef struct zf_scenario_performance {
    uint32_t memory_bandwidth_gbps; /* of the whole card (bytes per ns); tiles share it evenly */
    uint32_t dispatch_latency_ns;   /* from a submission to the start of its first command */
    uint32_t command_ns;            /* every command: the engine decoding it and signalling */
    uint32_t kernel_launch_ns;      /* each kernel on top: dispatch and thread-group set-up */
} zf_scenario_performance;

/* A test of a diagnostics suite (docs/sysman.md, "Diagnostics"): what a run of it answers. */
typedef struct zf_scenario_diag_test {
    char name[ZES_STRING_PROPERTY_SIZE];
    zes_diag_result_t result; /* NO_ERRORS unless the scenario plants a fault */
} zf_scenario_diag_test;

/* A diagnostics test suite: its tests (none: the suite runs only whole) and the modelled time a whole run takes. */
typedef struct zf_scenario_diag_suite {
    char name[ZES_STRING_PROPERTY_SIZE];
    uint32_t duration_ms;     /* of a run of every test, shared evenly among them */
    zes_diag_result_t result; /* of a suite without tests */
    uint32_t num_tests;
    zf_scenario_diag_test tests[ZF_SCENARIO_MAX_DIAG_TESTS];
} zf_scenario_diag_suite;

/* A fan (docs/sysman.md, "Fans, LEDs and power supplies"): its default mode ramps its speed with the device's
 * temperature, from min_percent at ramp_start_c to full speed at the critical temperature. */
typedef struct zf_scenario_fan {
    uint32_t max_rpm;
    uint32_t min_percent;
    uint32_t ramp_start_c;
    uint32_t max_points; /* of a speed table; 0: no table mode */
} zf_scenario_fan;

typedef struct zf_scenario_led {
    bool rgb; /* its colour can be set */
} zf_scenario_led;

/* A power supply of the card: its current follows the card's power at its voltage. */
typedef struct zf_scenario_psu {
    uint32_t volts;
    uint32_t amp_limit_ma; /* 0: the card's highest power limit at that voltage */
    bool fan;
} zf_scenario_psu;

/* The legacy overclocking of the GPU frequency domain (zesFrequencyOc*; docs/sysman.md, "Overclocking"). */
typedef struct zf_scenario_overclock {
    bool supported;              /* false: every zesFrequencyOc* answers UNSUPPORTED_FEATURE, as Intel's driver */
    uint32_t max_frequency_mhz;  /* maxOcFrequency; derived from core_clock_rate_mhz when not given */
    uint32_t default_voltage_mv; /* maxFactoryDefaultVoltage */
    uint32_t max_voltage_mv;     /* maxOcVoltage */
    uint32_t voltage_offset_mv;  /* the offset range is -this..+this */
    bool extended;               /* frequencies in 1 MHz steps, else in multiples of 50 MHz */
    bool fixed_mode;             /* ZES_OC_MODE_FIXED offered */
    uint32_t icc_max_a;          /* the factory IccMax; 0: IccMax cannot be changed */
    bool tjmax;                  /* TjMax can be changed */
} zf_scenario_overclock;

/* The sysman model of a device (docs/sysman.md): its power draws, frequency domain and thermal constants, and the
 * components it has besides the ones every device has. */
typedef struct zf_scenario_sysman {
    uint32_t tile_idle_w;         /* each tile, always */
    uint32_t tile_compute_w;      /* on top of idle, while a compute engine is busy (unthrottled) */
    uint32_t tile_copy_w;         /* on top of idle, while a copy engine is busy */
    uint32_t tile_awake_w;        /* on top of idle, while standby is off */
    uint32_t card_uncore_w;       /* a card's own draw besides its tiles' */
    uint32_t picojoules_per_byte; /* device memory traffic */
    uint32_t power_limit_w;       /* the default and highest sustained limit (at least the card's full draw) */
    uint32_t min_frequency_mhz;   /* the frequency domain's bottom (the core clock rate is its top) */
    uint32_t frequency_step_mhz;  /* between available clocks */
    uint32_t ambient_c;           /* the thermal model: temperature at no power */
    uint32_t millikelvin_per_w;   /* settled temperature rise per W */
    uint32_t thermal_tau_ms;      /* time constant */
    uint32_t max_temperature_c;   /* TjMax; the critical temperature is 5 K below */
    uint32_t num_diag_suites;
    zf_scenario_diag_suite diag_suites[ZF_SCENARIO_MAX_DIAG_SUITES];
    uint32_t num_fans;
    zf_scenario_fan fans[ZF_SCENARIO_MAX_FANS];
    uint32_t num_leds;
    zf_scenario_led leds[ZF_SCENARIO_MAX_LEDS];
    uint32_t num_psus;
    zf_scenario_psu psus[ZF_SCENARIO_MAX_PSUS];
    zf_scenario_overclock overclock;
    uint32_t virtual_functions; /* SR-IOV virtual functions enabled on the card (docs/sysman.md) */
} zf_scenario_sysman;

typedef struct zf_scenario_timer {
    uint64_t frequency_hz;      /* device timer ticks per second */
    uint32_t valid_bits;        /* zeDeviceGetGlobalTimestamps, 1..64 */
    uint32_t kernel_valid_bits; /* kernel timestamps, 1..64 */
} zf_scenario_timer;

typedef struct zf_scenario_compute {
    uint32_t max_total_group_size;
    uint32_t max_group_size[3];
    uint32_t max_group_count[3];
    uint32_t max_shared_local_memory_bytes;
    uint32_t num_sub_group_sizes;
    uint32_t sub_group_sizes[ZE_SUBGROUPSIZE_COUNT];
} zf_scenario_compute;

typedef struct zf_scenario_module {
    uint32_t spirv_version; /* ZE_MAKE_VERSION(major, minor) */
    ze_device_module_flags_t flags;
    ze_device_fp_flags_t fp16_flags;
    ze_device_fp_flags_t fp32_flags;
    ze_device_fp_flags_t fp64_flags;
    uint32_t max_arguments_size_bytes;
    uint32_t printf_buffer_size_bytes;
} zf_scenario_module;

typedef struct zf_scenario_images {
    uint32_t max_dims_1d;
    uint32_t max_dims_2d;
    uint32_t max_dims_3d;
    uint64_t max_buffer_size_bytes;
    uint32_t max_array_slices;
    uint32_t max_samplers;
    uint32_t max_read_args;
    uint32_t max_write_args;
} zf_scenario_images;

typedef struct zf_scenario_memory_access {
    ze_memory_access_cap_flags_t host;
    ze_memory_access_cap_flags_t device;
    ze_memory_access_cap_flags_t shared_single_device;
    ze_memory_access_cap_flags_t shared_cross_device;
    ze_memory_access_cap_flags_t shared_system;
} zf_scenario_memory_access;

typedef struct zf_scenario_pci {
    uint32_t domain;
    uint32_t bus;
    uint32_t device;
    uint32_t function;
} zf_scenario_pci;

/* A card's fabric (docs/fabric.md, docs/scenarios.md "fabric"): MDFI between its tiles, Xe Link ports on each tile.
 * Bandwidths are design values in bytes per ns (= GB/s); 0 leaves a link undescribed (reported unknown). */
typedef struct zf_scenario_mdfi {
    uint32_t bandwidth_gbps; /* 0: not described */
    uint32_t latency_ns;
} zf_scenario_mdfi;

typedef struct zf_scenario_xe_link {
    uint32_t ports_per_tile; /* 0: the tiles have no Xe Link ports */
    uint32_t lanes;          /* of each port, each way */
    uint32_t lane_rate_mbps; /* bits per µs of one lane */
    uint32_t latency_ns;     /* of one link; 0: not described */
    uint32_t num_disabled_ports;
    uint32_t disabled_ports[ZF_SCENARIO_MAX_PORTS]; /* port numbers configured down at start, ascending */
} zf_scenario_xe_link;

typedef struct zf_scenario_fabric {
    zf_scenario_mdfi mdfi;
    zf_scenario_xe_link xe_link;
} zf_scenario_fabric;

/* One end of an Xe Link cable: a port of a tile of a device of the scenario's `devices` list as the file lists them
 * (tile 0 for a device without sub-devices). */
typedef struct zf_scenario_port_ref {
    uint32_t device;
    uint32_t tile;
    uint32_t port; /* 1..ports_per_tile */
} zf_scenario_port_ref;

typedef struct zf_scenario_cable {
    zf_scenario_port_ref from;
    zf_scenario_port_ref to;
} zf_scenario_cable;

/* A metric of a metric group entry. Strings are offsets into zf_scenario.metric_text; the formula is
 * zf_scenario.metric_ops[first_op .. first_op + num_ops). */
typedef struct zf_scenario_metric {
    uint32_t name;
    uint32_t description;
    uint32_t component;
    uint32_t units;
    uint32_t formula_text; /* the source, for messages */
    zet_metric_type_t type;
    zet_value_type_t value_type;
    uint32_t tier;
    uint32_t first_op;
    uint32_t num_ops;
} zf_scenario_metric;

/* A programmable counter (B0..B7 then C0..C7): floor(signal x multiply / divide) of the cumulative signal. */
typedef struct zf_scenario_counter {
    zf_metric_signal signal;
    uint32_t multiply;
    uint32_t divide; /* >= 1 */
} zf_scenario_counter;

/* One entry of a device's metric_groups: every sampling type it lists becomes one metric group of that name. */
typedef struct zf_scenario_metric_group {
    uint32_t name; /* offsets into zf_scenario.metric_text */
    uint32_t description;
    uint32_t domain;
    zet_metric_group_sampling_type_flags_t sampling; /* TIME_BASED and/or EVENT_BASED */
    zf_metric_format format;
    uint32_t num_counters;
    zf_scenario_counter counters[ZF_OA_FLEX_COUNTERS];
    uint32_t first_metric; /* into zf_scenario.metrics */
    uint32_t num_metrics;
} zf_scenario_metric_group;

/* How zetContextActivateMetricGroups treats two groups of one domain. */
typedef enum zf_domain_conflict {
    ZF_DOMAIN_CONFLICT_ERROR = 0,      /* the specification: ZE_RESULT_ERROR_INVALID_ARGUMENT */
    ZF_DOMAIN_CONFLICT_LATER_WINS = 1, /* Intel's driver since mid-2022: success, the later group is activated */
} zf_domain_conflict;

typedef struct zf_scenario_metric_options {
    uint32_t timestamp_valid_bits; /* of the timestamps in streamer records */
    zf_domain_conflict domain_conflict;
} zf_scenario_metric_options;

/* One root device (a card, or an integrated GPU). Sub-devices (tiles) are derived from it: see docs/scenarios.md. */
typedef struct zf_scenario_device {
    char name[ZE_MAX_DEVICE_NAME];
    ze_device_type_t type;
    uint32_t vendor_id;
    uint32_t device_id;
    ze_device_property_flags_t flags; /* INTEGRATED, ECC, ONDEMANDPAGING; SUBDEVICE is never set here */
    uint32_t core_clock_rate_mhz;
    uint64_t max_mem_alloc_size_bytes;
    uint32_t max_hardware_contexts;
    uint32_t max_command_queue_priority;
    uint32_t hang_timeout_ms; /* host time a kernel may run before the hang detector stops it; 0: never */
    uint32_t num_subdevices;  /* 0 = no sub-devices, else 2..ZF_SCENARIO_MAX_SUBDEVICES */
    zf_scenario_topology topology;
    zf_scenario_performance performance;
    zf_scenario_sysman sysman;
    zf_scenario_timer timer;
    zf_scenario_compute compute;
    zf_scenario_module module;
    zf_scenario_images images;
    zf_scenario_memory_access memory_access;
    zf_scenario_pci pci;
    zf_scenario_fabric fabric;
    uint32_t num_memories;
    zf_scenario_memory memories[ZF_SCENARIO_MAX_MEMORIES];
    uint32_t num_caches;
    zf_scenario_cache caches[ZF_SCENARIO_MAX_CACHES];
    uint32_t num_engine_groups;
    zf_scenario_engine_group engine_groups[ZF_SCENARIO_MAX_ENGINE_GROUPS];
    zf_scenario_metric_options metric_options;
    uint32_t num_metric_groups;
    zf_scenario_metric_group metric_groups[ZF_SCENARIO_MAX_METRIC_GROUPS];
} zf_scenario_device;

/* A device_lost rule: the device of the scenario's `devices` list runs `after_commands` commands, then loses. */
typedef struct zf_scenario_device_lost {
    uint32_t device;         /* index into zf_scenario.devices as the file lists them */
    uint32_t after_commands; /* commands that run normally first */
} zf_scenario_device_lost;

/* One entry of `faults` (docs/scenarios.md): a call rule, or a device_lost rule. */
typedef struct zf_scenario_fault {
    uint32_t line;      /* of the entry, to name the rule in messages */
    bool device_lost;   /* which kind of rule; `lost` holds its values */
    uint32_t api;       /* a call rule's function: an API id of the registry (zf_scenario_api_names) */
    ze_result_t result; /* what its failing calls answer; never ZE_RESULT_SUCCESS */
    uint64_t after;     /* calls that run normally first */
    uint64_t count;     /* calls that then fail; UINT64_MAX: every later call (`all`) */
    zf_scenario_device_lost lost;
} zf_scenario_fault;

typedef struct zf_scenario {
    char name[ZF_SCENARIO_NAME_MAX];
    char description[ZF_SCENARIO_TEXT_MAX];
    char source[ZF_SCENARIO_TEXT_MAX]; /* file path, or "<embedded default>" */
    uint32_t driver_version;           /* ze_driver_properties_t.driverVersion */
    zf_clock_mode clock_mode;
    zf_device_hierarchy device_hierarchy;
    bool p2p_access;      /* devices of this system can access each other's memory */
    bool p2p_atomics;     /* ... and do atomics on it */
    bool strict;          /* the strict profile (docs/tolerances.md), unless ZEFAKE_STRICT says otherwise */
    uint32_t num_devices; /* 1..ZF_SCENARIO_MAX_DEVICES */
    zf_scenario_device devices[ZF_SCENARIO_MAX_DEVICES];
    uint32_t num_faults;
    zf_scenario_fault faults[ZF_SCENARIO_MAX_FAULTS];
    uint32_t num_xe_links; /* the cables between the devices' Xe Link ports */
    zf_scenario_cable xe_links[ZF_SCENARIO_MAX_XE_LINKS];
    /* Pools of the metric definitions of all devices. */
    uint32_t num_metrics;
    zf_scenario_metric metrics[ZF_SCENARIO_MAX_METRICS];
    uint32_t num_metric_ops;
    zf_formula_op metric_ops[ZF_SCENARIO_MAX_METRIC_OPS];
    uint32_t metric_text_used;
    char metric_text[ZF_SCENARIO_METRIC_TEXT_BYTES];
} zf_scenario;

/* A string of the metric pool. */
static inline const char *zf_scenario_text(const zf_scenario *scenario, uint32_t offset) {
    return &scenario->metric_text[offset];
}

/* An information entry: what the driver lists after a group's own metrics (as Intel's driver does), with the
 * formula that computes it. */
typedef struct zf_metric_info_def {
    const char *name;
    const char *description;
    const char *units;
    zet_metric_type_t type;
    zet_value_type_t value_type;
    const char *formula;
} zf_metric_info_def;

/* The information entries of groups of one sampling type (a single flag) with records of `format`. */
const zf_metric_info_def *zf_metric_info_defs(zf_metric_format format, zet_metric_group_sampling_type_flags_t sampling,
                                              size_t *count);

/* The API registry fault rules name their functions and results from: the driver's, generated from the headers. The
 * scenario library is a leaf, so whoever parses scenarios hands it in before the first parse (the driver at zeInit).
 * function gives a name's API id, result a ze_result_t's value; each answers false for a name it does not know. */
typedef struct zf_scenario_api_names {
    bool (*function)(const char *name, uint32_t *api);
    bool (*result)(const char *name, ze_result_t *result);
} zf_scenario_api_names;
void zf_scenario_use_api_names(const zf_scenario_api_names *names);

/* Parses and validates YAML text. On success returns true and fills *out completely. On failure returns false,
 * leaves *out unspecified and writes "<source>:<line>: <reason>" into error (at most ZF_SCENARIO_ERROR_MAX bytes,
 * always NUL-terminated). `source` names the text in messages (a path, or "<embedded default>"). */
bool zf_scenario_parse(const char *yaml_text, size_t length, const char *source, zf_scenario *out,
                       char error[ZF_SCENARIO_ERROR_MAX]);

/* Reads a file and parses it; I/O errors are reported the same way (line 0). */
bool zf_scenario_load_file(const char *path, zf_scenario *out, char error[ZF_SCENARIO_ERROR_MAX]);

/* Resolves ZEFAKE_SCENARIO semantics: NULL, "" or "default" gives the embedded default; a value containing '/' or
 * ending in ".yaml" is a file path; any other value is the name of a shipped scenario (every file in scenarios/ is
 * embedded at build time, so names work wherever the driver is installed). An unknown name is an error that lists
 * the known names. */
bool zf_scenario_load(const char *selector, zf_scenario *out, char error[ZF_SCENARIO_ERROR_MAX]);

/* The embedded copies of scenarios/<name>.yaml, generated at build time from the files themselves (so they cannot
 * diverge). The table ends with an entry whose name is NULL. */
typedef struct zf_scenario_embedded {
    const char *name; /* file name without ".yaml" */
    const char *yaml;
    size_t length;
} zf_scenario_embedded;
extern const zf_scenario_embedded zf_scenario_embedded_table[];

#endif
