/* The device clock: one per root device, the single source of every device timestamp.
 *
 * In modelled mode (the default) device time is a pure function of what the device was asked to do: it advances by
 * the modelled duration of work and by a fixed step on each read, so runs are reproducible. In realtime mode it
 * follows the host's monotonic clock. Either way values are in timer ticks and wrap at the scenario's valid bits. */
#ifndef ZF_CLOCK_H
#define ZF_CLOCK_H

#include "scenario/scenario.h"

#include <stdatomic.h>
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
    uint64_t host_origin_ns; /* realtime: host monotonic time at creation */
} zf_clock;

void zf_clock_init(zf_clock *clock, zf_clock_mode mode, const zf_scenario_timer *timer);
void zf_clock_destroy(zf_clock *clock);

/* The host's monotonic clock in ns (the host side of zeDeviceGetGlobalTimestamps). */
uint64_t zf_host_now_ns(void);

/* Reads the clock: full-width ticks (before masking to valid bits). Advances a modelled clock by one read step. */
uint64_t zf_clock_read_ticks(zf_clock *clock);

/* Device time now in ns, without advancing a modelled clock (submissions are stamped with it). */
uint64_t zf_clock_now_ns(zf_clock *clock);

/* The host saw something complete at device time `ns`: a modelled clock never reads earlier than that again. Inline:
 * every query of a signalled event observes, and the clock has almost always passed `ns` already (one load). */
void zf_clock_raise(zf_clock *clock, uint64_t ns);
static inline void zf_clock_observe(zf_clock *clock, uint64_t ns) {
    if (clock->mode != ZF_CLOCK_REALTIME && ns > atomic_load_explicit(&clock->now_ns, memory_order_relaxed))
        zf_clock_raise(clock, ns);
}

/* The host time (zf_host_now_ns's clock) at which the device clock read `device_ns`: what kernel-mapped timestamps
 * report (zeEventQueryKernelTimestampsExt). */
uint64_t zf_clock_host_ns(const zf_clock *clock, uint64_t device_ns);

/* Converts device nanoseconds to ticks, and masks ticks to `bits` valid bits. */
uint64_t zf_clock_ns_to_ticks(const zf_clock *clock, uint64_t ns);
uint64_t zf_clock_mask(uint64_t ticks, uint32_t bits);

#endif
