/* The scenario: a validated, immutable description of the system the fake driver emulates.
 *
 * A scenario is parsed from YAML (docs/scenarios.md documents the schema), validated on its own and only then turned
 * into driver objects, so a bad file never leaves a half-built driver behind. Every value here is already checked
 * against its documented range; consumers do not re-validate. Units are in the field names. */
#ifndef ZF_SCENARIO_H
#define ZF_SCENARIO_H

#include <level_zero/ze_api.h>
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

/* How the device clock advances (docs/scenarios.md, "clock"). */
typedef enum zf_clock_mode {
    ZF_CLOCK_MODELLED = 0, /* deterministic: advances only through the cost model */
    ZF_CLOCK_REALTIME = 1, /* tied to the host's monotonic clock */
} zf_clock_mode;

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
    uint32_t num_subdevices; /* 0 = no sub-devices, else 2..ZF_SCENARIO_MAX_SUBDEVICES */
    zf_scenario_topology topology;
    zf_scenario_timer timer;
    zf_scenario_compute compute;
    zf_scenario_module module;
    zf_scenario_images images;
    zf_scenario_memory_access memory_access;
    zf_scenario_pci pci;
    uint32_t num_memories;
    zf_scenario_memory memories[ZF_SCENARIO_MAX_MEMORIES];
    uint32_t num_caches;
    zf_scenario_cache caches[ZF_SCENARIO_MAX_CACHES];
    uint32_t num_engine_groups;
    zf_scenario_engine_group engine_groups[ZF_SCENARIO_MAX_ENGINE_GROUPS];
} zf_scenario_device;

typedef struct zf_scenario {
    char name[ZF_SCENARIO_NAME_MAX];
    char description[ZF_SCENARIO_TEXT_MAX];
    char source[ZF_SCENARIO_TEXT_MAX]; /* file path, or "<embedded default>" */
    uint32_t driver_version;           /* ze_driver_properties_t.driverVersion */
    zf_clock_mode clock_mode;
    bool p2p_access;      /* devices of this system can access each other's memory */
    bool p2p_atomics;     /* ... and do atomics on it */
    uint32_t num_devices; /* 1..ZF_SCENARIO_MAX_DEVICES */
    zf_scenario_device devices[ZF_SCENARIO_MAX_DEVICES];
} zf_scenario;

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
