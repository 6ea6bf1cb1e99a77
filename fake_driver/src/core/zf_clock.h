/* The device clock: one per root device, the single source of every device timestamp (docs/cost-model.md, "Device
 * time").
 *
 * Host mode (the default): the device clock runs with the host's CLOCK_MONOTONIC_RAW, as a GPU's timer runs whether or
 * not it has work: device time is the host's raw time since the clock's origin (the card's shared origin, so every
 * process of the card reads one clock). Commands still last what the cost model says; the engine makes the host see a
 * command complete only once device time has passed its end (zf_clock_await).
 *
 * Modelled mode (opt-in, deterministic): device time is a pure function of what the device was asked to do: it
 * advances by the modelled duration of work the host observed and by a fixed step on each read, so runs are
 * reproducible.
 *
 * Either way values are in timer ticks and wrap at the scenario's valid bits. */
#ifndef ZF_CLOCK_H
#define ZF_CLOCK_H

#include "scenario/scenario.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* Device time, in nanoseconds, that one read of a modelled clock takes. */
#define ZF_CLOCK_READ_STEP_NS 1000u

/* Lock-free: the modelled time only grows (reads step it, observations raise it), so one atomic word holds it and the
 * hot paths that observe an event or stamp a submission take no lock. */
typedef struct zf_clock {
    zf_clock_mode mode;
    uint64_t frequency_hz;
    uint32_t valid_bits;
    uint32_t kernel_valid_bits;
    _Atomic uint64_t now_ns; /* modelled: device time in ns since creation */
    uint64_t host_origin_ns; /* CLOCK_MONOTONIC_RAW time of device time 0 */
} zf_clock;

/* The clock mode of a scenario, unless ZEFAKE_CLOCK (host, modelled) says otherwise. */
zf_clock_mode zf_clock_mode_requested(zf_clock_mode scenario_mode);

void zf_clock_init(zf_clock *clock, zf_clock_mode mode, const zf_scenario_timer *timer);
void zf_clock_destroy(zf_clock *clock);

/* Makes device time 0 the host raw time `origin_ns` (the card's shared origin); ignored for a modelled clock and for
 * an origin in the future. */
void zf_clock_set_origin(zf_clock *clock, uint64_t origin_ns);

/* The host's monotonic clock in ns: deadlines of waits (condition variables time out on it). */
uint64_t zf_host_now_ns(void);

/* The host's CLOCK_MONOTONIC_RAW in ns: the host half of every host/device timestamp pair, as Intel's Linux driver
 * pairs them (zeDeviceGetGlobalTimestamps, kernel-mapped timestamps, clGetDeviceAndHostTimer). */
uint64_t zf_host_raw_ns(void);

/* Whether the clock runs with the host's (host mode). */
static inline bool zf_clock_follows_host(const zf_clock *clock) {
    return clock->mode == ZF_CLOCK_HOST;
}

/* Reads the clock: full-width ticks (before masking to valid bits). Advances a modelled clock by one read step. */
uint64_t zf_clock_read_ticks(zf_clock *clock);

/* Reads the clock and the host's raw clock together: one read of the host clock in host mode, so both halves name the
 * same instant. */
void zf_clock_read_pair(zf_clock *clock, uint64_t *host_raw_ns, uint64_t *ticks);

/* Device time now in ns, without advancing a modelled clock (submissions are stamped with it). */
uint64_t zf_clock_now_ns(zf_clock *clock);

/* The host saw something complete at device time `ns`: a modelled clock never reads earlier than that again. Inline:
 * every query of a signalled event observes, and the clock has almost always passed `ns` already (one load). */
void zf_clock_raise(zf_clock *clock, uint64_t ns);
static inline void zf_clock_observe(zf_clock *clock, uint64_t ns) {
    if (clock->mode == ZF_CLOCK_MODELLED && ns > atomic_load_explicit(&clock->now_ns, memory_order_relaxed))
        zf_clock_raise(clock, ns);
}

/* Host mode: returns once device time has reached `ns` (at once for a modelled clock, whose time the host's
 * observation moves), or early when *stop becomes true (checked every few milliseconds; NULL: never). Whoever makes a
 * command's completion visible to the host calls it with the command's end, so the host never sees work complete
 * before the device time it reports. */
void zf_clock_await(const zf_clock *clock, uint64_t ns, const _Atomic bool *stop);

/* The host raw time (zf_host_raw_ns's clock) at which the device clock read `device_ns`: what kernel-mapped
 * timestamps report (zeEventQueryKernelTimestampsExt). */
uint64_t zf_clock_host_ns(const zf_clock *clock, uint64_t device_ns);

/* Converts device nanoseconds to ticks, and masks ticks to `bits` valid bits. */
uint64_t zf_clock_ns_to_ticks(const zf_clock *clock, uint64_t ns);
uint64_t zf_clock_mask(uint64_t ticks, uint32_t bits);

#endif
