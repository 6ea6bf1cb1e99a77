/* The driver, its devices and sub-devices, and contexts. */
#ifndef ZF_DRIVER_H
#define ZF_DRIVER_H

#include "core/zf_clock.h"
#include "core/zf_object.h"
#include "core/zf_shared.h"
#include "scenario/scenario.h"

#include <pthread.h>
#include <stdatomic.h>

typedef struct zf_driver zf_driver;
typedef struct zf_fabric zf_fabric;

/* A root device or a sub-device. Root devices own their sub-devices and the device clock they share. */
typedef struct zf_device {
    zf_object header;
    zf_driver *driver;
    const zf_scenario_device *desc; /* the root device's scenario entry */
    struct zf_device *root;         /* itself for a root device */
    uint32_t root_index;            /* position among the driver's root devices */
    bool is_subdevice;
    uint32_t subdevice_id; /* valid when is_subdevice */
    uint32_t share;        /* 1 for a root device, N for each of N sub-devices: divides slices and memory */
    ze_device_uuid_t uuid;
    ze_device_properties_t properties; /* built once; timerResolution is set per query (it depends on stype) */
    zf_clock clock;                    /* used on root devices only; sub-devices read their root's */
    atomic_uint faults;                /* execution faults recorded on this device: zeDeviceGetStatus reports them */
    _Atomic uint64_t hang_limit_ns;    /* zf_device_set_hang_limit: 0 the default limit, ZF_HANG_NO_LIMIT none */
    _Atomic int64_t loss;              /* injected loss: 0 none, n > 0 lost after n - 1 commands, -1 lost */
    uint32_t num_subdevices;
    struct zf_device *subdevices;
    zf_card_share *shared; /* root devices: the card's state shared with other processes (NULL: not shared) */
} zf_device;

/* Where a root device of the driver comes from once ZE_AFFINITY_MASK and ZE_ENABLE_PCI_ID_DEVICE_ORDER are applied
 * (device_select.c): the device's index in the scenario file and the tiles (sub-devices) of it that are kept, in
 * order. Identifiers (UUIDs) follow the physical device and tile, whatever the position it is reported at. */
typedef struct zf_device_origin {
    uint32_t index;
    uint32_t num_tiles; /* 0: the device has no sub-devices */
    uint8_t tiles[ZF_SCENARIO_MAX_SUBDEVICES];
    uint32_t physical_tiles; /* its sub-devices in the scenario file */
} zf_device_origin;

struct zf_driver {
    zf_object header;
    zf_scenario scenario;
    ze_init_flags_t init_flags;    /* the device types requested by the first zeInit */
    zf_device_hierarchy hierarchy; /* how cards with tiles are reported (ZE_FLAT_DEVICE_HIERARCHY) */
    uint32_t num_devices;          /* root devices visible under init_flags */
    zf_device *devices;            /* all root devices of the scenario */
    zf_device **visible;           /* the visible ones, in order */
    ze_driver_uuid_t uuid;
    zf_device_origin origins[ZF_SCENARIO_MAX_DEVICES]; /* per root device of `scenario` (after selection) */
    zf_fabric *fabric; /* the devices' fabric: vertices, edges, Xe Link ports (driver/zf_fabric.h) */
};

/* Decides the hierarchy (ZE_FLAT_DEVICE_HIERARCHY), then applies ZE_ENABLE_PCI_ID_DEVICE_ORDER and ZE_AFFINITY_MASK to
 * the loaded scenario: the devices not selected are removed, a device keeping some of its tiles becomes a device of
 * those tiles, and driver->origins records where each remaining device comes from. Malformed mask entries are reported
 * (warn) and ignored. */
void zf_device_select(zf_driver *driver);

typedef struct zf_context {
    zf_object header;
    zf_driver *driver;
    uint32_t num_devices; /* the devices the context may use */
    zf_device **devices;  /* = device_list, valid as long as the context's memory (zf_object_retire) */
    zf_device *device_list[];
} zf_context;

/* Registers a function zeInit calls once the driver is built: how an area above the driver (which the driver never
 * calls) starts what must run from initialisation on. Call it from a constructor; a hook beyond ZF_MAX_INIT_HOOKS
 * stops the load with an error naming the limit. */
#define ZF_MAX_INIT_HOOKS 8u
void zf_driver_on_init(void (*hook)(zf_driver *driver));

/* The driver, once zeInit succeeded (NULL before). */
zf_driver *zf_driver_get(void);

/* Builds the driver and its devices from the scenario unless zeInit or an earlier call did (zesInit, which
 * initialises sysman without zeInit: zes_api.h); *out is the driver, NULL when the scenario is rejected. What
 * zeDeviceGet lists is still zeInit's to decide, and the core API answers ZE_RESULT_ERROR_UNINITIALIZED until it. */
ze_result_t zf_driver_build_once(zf_driver **out);

static inline zf_driver *zf_driver_from(ze_driver_handle_t handle) {
    return (zf_driver *)handle;
}

static inline zf_device *zf_device_from(ze_device_handle_t handle) {
    return (zf_device *)handle;
}

static inline zf_context *zf_context_from(ze_context_handle_t handle) {
    return (zf_context *)handle;
}

/* The clock of a device (its root's). */
static inline zf_clock *zf_device_clock(zf_device *device) {
    return &device->root->clock;
}

/* True when the device is a tile reported as a sub-device of its card (ZE_DEVICE_PROPERTY_FLAG_SUBDEVICE, its id in
 * metric data): in COMPOSITE mode, and in COMBINED mode where the card is reachable as its root; in FLAT mode a tile
 * is a root device of its own. */
static inline bool zf_device_reported_as_subdevice(const zf_device *device) {
    return device->is_subdevice && device->driver->hierarchy != ZF_HIERARCHY_FLAT;
}

/* zeDeviceGetRootDevice (Level Zero 1.7), also offered through zeDriverGetExtensionFunctionAddress for builds with
 * older headers: the card of a tile in COMPOSITE and COMBINED mode, NULL for a root device and in FLAT mode. */
ze_result_t ZE_APICALL zf_device_get_root_device(ze_device_handle_t hDevice, ze_device_handle_t *phRootDevice);

/* The physical tile a device is (a sub-device, or a root device made of one tile of its card), 0 for a card reported
 * whole: what names its work in the card's shared state. */
uint32_t zf_device_physical_tile(const zf_device *device);

/* The card's shared state (its root's), NULL when not shared. */
static inline zf_card_share *zf_device_shared(const zf_device *device) {
    return device->root->shared;
}

/* The root device whose UUID, or whose sub-device's UUID, is `uuid`; NULL when none. */
zf_device *zf_device_by_uuid(zf_driver *driver, const ze_device_uuid_t *uuid);
/* The device (root or sub-device) whose UUID is `uuid`; NULL when none. */
zf_device *zf_device_with_uuid(zf_driver *driver, const ze_device_uuid_t *uuid);

/* Builds the devices of a validated scenario; false (with a logged reason) when out of host memory. */
bool zf_devices_create(zf_driver *driver);

/* Host time one kernel launch on the device may run before the hang detector stops it, 0 for no limit: the
 * scenario's hang_timeout_ms, or ZEFAKE_HANG_TIMEOUT_MS when set (docs/environment.md). */
uint64_t zf_device_hang_timeout_ns(const zf_device *device);

/* Sets the hang detector's limit of the device (sysman's scheduler modes, docs/sysman.md), in ns of host time: 0 gives
 * back the default (scenario or environment), ZF_HANG_NO_LIMIT turns detection off. */
#define ZF_HANG_NO_LIMIT UINT64_MAX
void zf_device_set_hang_limit(zf_device *device, uint64_t ns);

/* Records an execution fault (an out-of-bounds access...) against the device: zeDeviceGetStatus then reports it. */
void zf_device_record_fault(zf_device *device, const char *what);

/* Forgets the faults of the device and its sub-devices (a sysman reset; a tile's are also taken off its card's);
 * returns how many the device had. */
uint32_t zf_device_clear_faults(zf_device *device);

/* Injected device loss (docs/scenarios.md, "faults"; zefakeInjectDeviceLost): a device armed with `after_commands`
 * runs that many more commands (its sub-devices' included), then the next command faults instead of running, and
 * every later one is not run either, until a sysman reset or zefakeClearFaults. */
void zf_device_arm_loss(zf_device *device, uint32_t after_commands);

/* What an engine does with the next command of `device`. */
typedef enum zf_device_loss {
    ZF_LOSS_RUN,  /* run it */
    ZF_LOSS_NOW,  /* the device is lost with this command: it faults (the caller records the fault) */
    ZF_LOSS_GONE, /* the device was lost before: the command does not run */
} zf_device_loss;
zf_device_loss zf_device_command_loss(zf_device *device);

/* Disarms the injected losses of every device of the driver and ends the lost states; returns how many there were. */
uint32_t zf_devices_disarm_loss(zf_driver *driver);

/* True when `device` is one of the context's devices or a sub-device of one: the specification lets an object made for
 * a device be used by its sub-devices, and a context created for a root device covers its tiles. */
bool zf_context_has_device(const zf_context *context, const zf_device *device);

/* Unregisters a context being destroyed and frees what it owns itself (its device list); what the areas above hung
 * off it (memory, reservations) is released by the composition root before this (ze/lifecycle.c). */
void zf_context_retire(zf_context *context);

#endif
