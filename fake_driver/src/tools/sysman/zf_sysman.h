/* Sysman (zes*): initialised by zesInit, or in the legacy model by ZES_ENABLE_SYSMAN=1 set before zeInit. Either way
 * core device handles (cards and tiles, whatever the hierarchy mode) are sysman device handles (zes_api.h,
 * zes_device_handle_t), and zesDeviceGet lists the cards. Initialisation builds, for every device, its component
 * handles and starts counting the work the device executes (docs/sysman.md): engine busy time, bytes moved, compute
 * and copy time per tile, from which activity, bandwidth, energy, frequency and temperature follow. */
#ifndef ZF_SYSMAN_H
#define ZF_SYSMAN_H

#include "core/zf_core.h"
#include "core/zf_shared.h"
#include "driver/zf_driver.h"
#include "exec/zf_exec.h"

#include <level_zero/zes_api.h>
#include <stdatomic.h>

typedef struct zf_sm_device zf_sm_device;

/* The last (activeTime, timestamp) pair zesEngineGetActivity answered for a handle: each read answers a timestamp
 * advanced at least as much as the active time, so that Δactive <= Δtimestamp between any two reads. */
typedef struct zf_sm_lift {
    uint64_t count;
    uint64_t stamp;
} zf_sm_lift;

typedef struct zf_sm_engine {
    zf_object header;
    zf_sm_device *owner;
    zes_engine_group_t type;
    bool group;       /* a *_ALL group: the engines of its kind (all of them for ZES_ENGINE_GROUP_ALL) */
    uint32_t ordinal; /* single engines: the queue group and index it is */
    uint32_t index;
    uint64_t busy_ns; /* single engines: device time busy since counting started; guarded by the sysman lock */
    zf_sm_lift lift;  /* guarded by the sysman lock */
} zf_sm_engine;

/* What a physical tile of a device executed since counting started (guarded by the sysman lock). */
typedef struct zf_sm_tile_work {
    uint64_t compute_nj; /* energy its compute engines drew on top of idle, at the power limit then set */
    uint64_t copy_ns;
    uint64_t bytes_read;
    uint64_t bytes_written;
} zf_sm_tile_work;

typedef struct zf_sm_power {
    zf_object header;
    zf_sm_device *owner;
    bool card;     /* the whole device (its uncore included), else one tile */
    uint32_t tile; /* a tile domain: the tile's index among the device's */
    /* zesPowerSetEnergyThreshold (guarded by the sysman lock): armed until the energy drawn since it was set reaches
     * it, then removed as the header says. */
    bool threshold_armed;
    double threshold_j;
    uint64_t threshold_base_uj;
    uint32_t threshold_pid;
} zf_sm_power;

typedef struct zf_sm_simple {
    zf_object header;
    zf_sm_device *owner;
} zf_sm_simple;

/* The legacy overclock settings of a frequency domain (zesFrequencyOc*; sysman_oc.c), guarded by the sysman lock. */
typedef struct zf_sm_oc {
    zes_oc_mode_t mode;
    double frequency_mhz; /* the target: the busy clock's top in an overclock mode */
    double voltage_v;
    double offset_v;
    double icc_max_a;
    double tj_max_c;
} zf_sm_oc;

typedef struct zf_sm_freq {
    zf_object header;
    zf_sm_device *owner;
    zes_freq_range_t range; /* guarded by the sysman lock */
    zf_sm_oc oc;
} zf_sm_freq;

typedef struct zf_sm_temp {
    zf_object header;
    zf_sm_device *owner;
    double celsius;           /* guarded by the sysman lock */
    uint64_t energy_uj;       /* at the last update */
    uint64_t updated_us;      /* host µs of the last update */
    zes_temp_config_t config; /* zesTemperatureSetConfig (stype and pNext cleared); guarded by the sysman lock */
    uint32_t config_pid;
    bool above[3]; /* the side of the critical temperature, threshold 1 and threshold 2 at the last check */
} zf_sm_temp;

/* An error set (zesDeviceEnumRasErrorSets): correctable or uncorrectable. */
typedef struct zf_sm_ras {
    zf_object header;
    zf_sm_device *owner;
    zes_ras_error_type_t type;
    uint64_t cleared[ZES_MAX_RAS_ERROR_CATEGORY_COUNT]; /* the counts when last cleared; guarded by the sysman lock */
    zes_ras_config_t config; /* zesRasSetConfig (stype and pNext cleared); guarded by the sysman lock */
    bool over_total;         /* the total, and each category, above its threshold at the last check */
    bool over[ZES_MAX_RAS_ERROR_CATEGORY_COUNT];
} zf_sm_ras;

/* The compute engines' scheduler (zesDeviceEnumSchedulers): its mode sets the hang detector's limit for kernels. */
typedef struct zf_sm_sched {
    zf_object header;
    zf_sm_device *owner;
    zes_sched_mode_t mode; /* guarded by the sysman lock */
    uint64_t watchdog_us;  /* TIMEOUT mode's watchdog (ZES_SCHED_WATCHDOG_DISABLE: none) */
    uint64_t interval_us;  /* TIMESLICE mode's settings */
    uint64_t yield_us;
    uint64_t default_watchdog_us; /* the device's hang limit at zeInit (ZES_SCHED_WATCHDOG_DISABLE: none) */
} zf_sm_sched;

/* A standby domain: one physical tile of the device (zesDeviceEnumStandbyDomains). */
typedef struct zf_sm_standby {
    zf_object header;
    zf_sm_device *owner;
    uint32_t tile; /* among the device's tiles */
} zf_sm_standby;

/* A diagnostics test suite of the scenario (zesDeviceEnumDiagnosticTestSuites; sysman_diag.c). */
typedef struct zf_sm_diag {
    zf_object header;
    zf_sm_device *owner;
    const zf_scenario_diag_suite *suite;
} zf_sm_diag;

/* A fan of the scenario (zesDeviceEnumFans; sysman_board.c): its mode and settings, guarded by the sysman lock. */
typedef struct zf_sm_fan {
    zf_object header;
    zf_sm_device *owner;
    const zf_scenario_fan *model;
    zes_fan_speed_mode_t mode;
    zes_fan_speed_t fixed;       /* FIXED mode's speed */
    zes_fan_speed_table_t table; /* TABLE mode's points */
} zf_sm_fan;

typedef struct zf_sm_led {
    zf_object header;
    zf_sm_device *owner;
    const zf_scenario_led *model;
    bool on; /* guarded by the sysman lock */
    zes_led_color_t color;
} zf_sm_led;

/* A power supply: the card's average power between two reads of its state gives its current (lock held). */
typedef struct zf_sm_psu {
    zf_object header;
    zf_sm_device *owner;
    const zf_scenario_psu *model;
    uint64_t read_uj; /* the card's energy at the last read, and its host time */
    uint64_t read_us;
} zf_sm_psu;

/* A virtual function of the card (zesDeviceEnumEnabledVFExp; sysman_vf.c): its ID, 1..N. */
typedef struct zf_sm_vf {
    zf_object header;
    zf_sm_device *owner;
    uint32_t id;
} zf_sm_vf;

/* Another process using the card, as last read from the card's shared state (zf_sm_import_peers). */
typedef struct zf_sm_peer {
    int32_t pid;
    uint64_t busy_ns[ZF_SHARED_MAX_TILES][ZF_SHARED_KINDS];
} zf_sm_peer;

#define ZF_SM_MAX_ENGINES (ZF_SCENARIO_MAX_ENGINE_GROUPS * 8u + 4u)

struct zf_sm_device {
    zf_device *device;
    uint32_t num_tiles; /* its physical tiles: its sub-devices, else 1 */
    uint32_t num_engines;
    zf_sm_engine engines[ZF_SM_MAX_ENGINES];
    zf_sm_tile_work tiles[ZF_SCENARIO_MAX_SUBDEVICES]; /* guarded by the sysman lock */
    uint32_t num_power;                                /* the card, then each tile when it has sub-devices */
    zf_sm_power power[1 + ZF_SCENARIO_MAX_SUBDEVICES];
    zf_sm_simple memory;
    uint32_t num_firmware; /* the card's firmware: on root devices only */
    zf_sm_simple firmware;
    zf_sm_freq freq;
    zf_sm_temp temp;
    uint64_t start_ns;                 /* device time counting started */
    uint64_t start_host_us;            /* host monotonic µs counting started */
    uint64_t last_end_ns;              /* device time the latest observed command ended */
    uint64_t last_host_us;             /* host µs it was observed */
    uint32_t resets;                   /* zesDeviceReset calls that completed */
    uint64_t faulted;                  /* commands that faulted (execution faults) since counting started */
    uint64_t lost;                     /* of which injected device losses (docs/scenarios.md, "faults") */
    zf_sm_ras ras[2];                  /* correctable, uncorrectable */
    zes_event_type_flags_t registered; /* zesDeviceEventRegister; guarded by the sysman lock */
    zes_event_type_flags_t pending;    /* registered events raised and not yet listened to */
    /* A physical card's sustained power limit (zesPowerSetLimits; kept on the card's own device, guarded by the
     * sysman lock) and the device time its work ran throttled by it. */
    bool limit_enabled;
    int32_t limit_mw;
    int32_t interval_ms;
    uint64_t throttled_ns;
    /* The clock, MHz, the device's kernels run at while busy (zf_sm_busy_mhz, published for the cost model's hook
     * without the lock). */
    _Atomic uint32_t kernel_mhz;
    bool ran_throttled; /* the latest compute command ran below the domain's maximum clock (lock held) */
    double perf_factor; /* the compute performance factor (zesPerformanceFactorSetConfig); guarded by the sysman lock */
    zf_sm_simple perf;  /* the compute performance-factor domain */
    zf_sm_sched sched;
    zf_sm_standby standby[ZF_SCENARIO_MAX_SUBDEVICES]; /* one per tile (num_tiles) */
    /* A physical card's tiles kept awake by ZES_STANDBY_PROMO_MODE_NEVER (kept on the card's own device, guarded by
     * the sysman lock): host µs awake before the current period, and when the current one started (0: standby). */
    uint64_t awake_us[ZF_SCENARIO_MAX_SUBDEVICES];
    uint64_t awake_since_us[ZF_SCENARIO_MAX_SUBDEVICES];
    /* A card's view of the other processes using it (kept on the card's own device, guarded by the sysman lock):
     * their engine busy time per physical tile and kind since counting started, and what was last read of each. */
    uint64_t others_ns[ZF_SHARED_MAX_TILES][ZF_SHARED_KINDS];
    uint32_t num_peers;
    zf_sm_peer peers[ZF_SHARED_MAX_PROCESSES];
    /* Diagnostics: the suites of a device reported as a card, and the in-field repair a run set up (guarded by the
     * sysman lock): pending until the next zesDeviceReset, which performs it. */
    uint32_t num_diags;
    zf_sm_diag diags[ZF_SCENARIO_MAX_DIAG_SUITES];
    bool repair_pending;
    bool repaired;
    /* Fans, LEDs and power supplies of a device reported as a card (sysman_board.c). */
    uint32_t num_fans;
    zf_sm_fan fans[ZF_SCENARIO_MAX_FANS];
    uint32_t num_leds;
    zf_sm_led leds[ZF_SCENARIO_MAX_LEDS];
    uint32_t num_psus;
    zf_sm_psu psus[ZF_SCENARIO_MAX_PSUS];
    /* The card's virtual functions, on a device reported as a card (sysman_vf.c). */
    uint32_t num_vfs;
    zf_sm_vf vfs[ZF_SCENARIO_MAX_VFS];
};

/* The performance factor that leaves the clock alone, and the default (docs/sysman.md, "Controls"). */
#define ZF_SM_PERF_NEUTRAL 50.0

/* zeInit hook (registered by the composition root, ze/lifecycle.c): with ZES_ENABLE_SYSMAN=1, enables sysman. */
void zf_sm_start(zf_driver *driver);

/* Builds the state of every device of the driver and starts counting, once (zesInit, zeInit); thread-safe.
 * ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY (explained) when the state cannot be allocated. */
ze_result_t zf_sm_enable(zf_driver *driver);

/* The driver once sysman is enabled, else NULL. */
zf_driver *zf_sm_driver(void);

/* ZE_RESULT_SUCCESS once sysman is enabled, else UNINITIALIZED with the reason. */
ze_result_t zf_sm_require(void);

/* The lock guarding every counter above, and waits on a condition variable with it (events). */

void zf_sm_lock(void);
void zf_sm_unlock(void);
int zf_sm_cond_timedwait(pthread_cond_t *cond, const struct timespec *deadline);

/* The sysman state of a device handle; UNINITIALIZED (with the reason) before zesInit or ZES_ENABLE_SYSMAN's zeInit. */
ze_result_t zf_sm_device_of(zes_device_handle_t hDevice, zf_sm_device **out);

/* Host monotonic time in µs (the steady clock of energy and bandwidth timestamps). */
uint64_t zf_sm_host_us(void);

/* Device time in ns since counting started, never before the latest observed command's end (lock held). */
uint64_t zf_sm_device_ns(zf_sm_device *sm);

/* True when the device has work queued, running, or completed within the last millisecond of host time. */
bool zf_sm_device_busy(zf_sm_device *sm);

/* Energy of a power domain since counting started, in µJ (docs/sysman.md; lock held). */
uint64_t zf_sm_energy_uj(const zf_sm_power *power, uint64_t now_us);

/* onSubdevice and subdeviceId of a device's components: set for a tile reported as a sub-device of its card. */
static inline ze_bool_t zf_sm_on_subdevice(const zf_device *device) {
    return zf_device_reported_as_subdevice(device);
}
static inline uint32_t zf_sm_subdevice_id(const zf_device *device) {
    return zf_device_reported_as_subdevice(device) ? device->subdevice_id : 0;
}

/* The hardware range of the device's GPU frequency domain, MHz (sysman_power.c). */
void zf_sm_freq_limits(const zf_sm_device *sm, double *min, double *max);

/* Raises events of a device (lock held): those registered become pending and listeners wake (sysman_events.c). */
void zf_sm_raise(zf_sm_device *sm, zes_event_type_flags_t events);

/* The device holding the power limit of `sm`'s physical card: its root device for a sub-device, else itself. */
zf_sm_device *zf_sm_card_of(zf_sm_device *sm);

/* The clock, MHz, the device runs at while busy (lock held): its frequency range's top, lowered by its performance
 * factor, then throttled by its card's power limit (sysman_power.c). */
double zf_sm_busy_mhz(const zf_sm_device *sm);

/* Publishes every device's busy clock to the cost model (lock held): after a power limit, frequency range or
 * performance factor changed (sysman_core.c). */
void zf_sm_update_clocks(void);

/* Host µs tile `t` of `sm` was kept awake (ZES_STANDBY_PROMO_MODE_NEVER) until now_us (lock held;
 * sysman_control.c). */
uint64_t zf_sm_awake_us(const zf_sm_device *sm, uint32_t t, uint64_t now_us);

/* zesDeviceEnumFabricPorts: the Xe Link ports of the device's tiles, their handles made at the first call
 * (sysman_fabric.c). */
ze_result_t zf_sm_enum_fabric_ports(zes_device_handle_t hDevice, uint32_t *pCount, zes_fabric_port_handle_t *phPort);

/* Builds and registers a device's diagnostics suites (sysman_diag.c); false when out of host memory. */
bool zf_sm_diag_start(zf_sm_device *sm);

/* Sets a frequency domain's overclock settings to the factory's (sysman_oc.c). */
void zf_sm_oc_start(zf_sm_freq *freq);

/* The clock, MHz, an overclock mode gives the domain while busy in place of `top` (its range's top), and whether
 * the mode locks it there (FIXED: no throttling, idle too); lock held (sysman_oc.c). */
double zf_sm_oc_top(const zf_sm_freq *freq, double top, bool *locked);

/* Builds and registers the virtual functions of a device reported as a card (sysman_vf.c). */
bool zf_sm_vf_start(zf_sm_device *sm);

/* Builds and registers a device's fans, LEDs and power supplies (sysman_board.c); false when out of host memory. */
bool zf_sm_board_start(zf_sm_device *sm);

/* The average power, W, of a device's first power domain between host times *since_us and now_us, at most its full
 * draw; *since_uj and *since_us move on to now (lock held; sysman_power.c). */
double zf_sm_average_w(zf_sm_device *sm, uint64_t *since_uj, uint64_t *since_us, uint64_t now_us);

/* The device's highest sustained power limit, W (sysman_power.c). */
double zf_sm_max_limit_w(const zf_sm_device *sm);

/* Builds a device's scheduler, standby and performance-factor handles (sysman_control.c). */
void zf_sm_control_start(zf_sm_device *sm);

/* Adds to a card's others_ns what the other processes ran since the last import (lock held; sysman_core.c); with
 * `baseline`, only records where they stand (counting starts). */
void zf_sm_import_peers(zf_sm_device *card, bool baseline);

/* The physical tiles of a device, as the card's shared state names them; returns their number. */
uint32_t zf_sm_physical_tiles(const zf_device *device, uint32_t out[ZF_SCENARIO_MAX_SUBDEVICES]);

/* Sets a card's power limit to its default (sysman_power.c). */
void zf_sm_power_start(zf_sm_device *sm);

/* The power, mW, a tile's busy compute engine draws on top of idle under the card's limit (lock held): the full
 * draw, or less when the limit throttles the card (sysman_power.c). */
uint32_t zf_sm_compute_mw(const zf_sm_device *card);

/* The full compute draw of a tile of the card, mW, on top of idle. */
uint32_t zf_sm_full_compute_mw(const zf_sm_device *card);

/* Starts a device's temperature sensor at its idle temperature (sysman_power.c). */
void zf_sm_temp_start(zf_sm_temp *temp);

/* The device's sensor's maximum temperature (TjMax), °C (sysman_power.c). */
double zf_sm_max_temp_c(const zf_sm_device *sm);

/* Brings a temperature sensor's model up to host time now_us (lock held; sysman_power.c). */
void zf_sm_temp_update(zf_sm_temp *temp, uint64_t now_us);

/* The counts of an error set since it was last cleared (lock held; sysman_device.c). */
void zf_sm_ras_counts(const zf_sm_ras *ras, uint64_t counts[ZES_MAX_RAS_ERROR_CATEGORY_COUNT]);

/* Raises the events of every threshold a device crossed by host time now_us (lock held; sysman_thresholds.c):
 * energy thresholds, temperature thresholds and the critical temperature, RAS thresholds. */
void zf_sm_check_thresholds(zf_sm_device *sm, uint64_t now_us);

/* The same for every device (lock held; sysman_core.c). */
void zf_sm_check_all(void);

/* Counts of a count query of handles (zf_count_query) copied from `objects` (`stride` bytes apart). */
void zf_sm_fill_handles(uint32_t *pCount, uint32_t available, void **out, void *objects, size_t stride);

/* A count query of one component of a card and of each of its tiles: the card's own (the `member` at that offset of
 * `sm`), then each tile's, as Intel's driver offers memory modules and frequency domains per sub-device of a
 * multi-tile card (docs/sysman.md); a device without tiles, or a tile, has its own only. */
void zf_sm_fill_card_and_tiles(uint32_t *pCount, void **out, zf_sm_device *sm, size_t member);

#endif
