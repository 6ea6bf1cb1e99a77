#include "core/zf_clock.h"
#include "core/zf_core.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Longest sleep of zf_clock_await between two looks at its stop flag, and the remainder it spins instead of
 * sleeping (a sleep overshoots by the timer slack, tens of microseconds). */
#define ZF_AWAIT_SLICE_NS 5000000u
#define ZF_AWAIT_SPIN_NS  60000u

zf_clock_mode zf_clock_mode_requested(zf_clock_mode scenario_mode) {
    const char *value = getenv("ZEFAKE_CLOCK");
    if (value == NULL || value[0] == '\0')
        return scenario_mode;
    if (strcmp(value, "host") == 0)
        return ZF_CLOCK_HOST;
    if (strcmp(value, "modelled") == 0)
        return ZF_CLOCK_MODELLED;
    zf_log(ZF_LOG_WARN, "ZEFAKE_CLOCK=%s is not host or modelled; the scenario's %s clock is used", value,
           scenario_mode == ZF_CLOCK_HOST ? "host" : "modelled");
    return scenario_mode;
}

void zf_clock_init(zf_clock *clock, zf_clock_mode mode, const zf_scenario_timer *timer) {
    clock->mode = mode;
    clock->frequency_hz = timer->frequency_hz;
    clock->valid_bits = timer->valid_bits;
    clock->kernel_valid_bits = timer->kernel_valid_bits;
    atomic_init(&clock->now_ns, 0);
    clock->host_origin_ns = zf_host_raw_ns();
}

void zf_clock_destroy(zf_clock *clock) {
    (void)clock; /* nothing to release: the clock holds no lock */
}

void zf_clock_set_origin(zf_clock *clock, uint64_t origin_ns) {
    if (clock->mode == ZF_CLOCK_HOST && origin_ns <= zf_host_raw_ns())
        clock->host_origin_ns = origin_ns;
}

static uint64_t zf_read_ns(clockid_t id) {
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t zf_host_now_ns(void) {
    return zf_read_ns(CLOCK_MONOTONIC);
}

uint64_t zf_host_raw_ns(void) {
    return zf_read_ns(CLOCK_MONOTONIC_RAW);
}

uint64_t zf_clock_host_ns(const zf_clock *clock, uint64_t device_ns) {
    return clock->host_origin_ns + device_ns;
}

uint64_t zf_clock_ns_to_ticks(const zf_clock *clock, uint64_t ns) {
    /* 128-bit intermediate: ns * Hz overflows 64 bits after a few seconds at GHz rates. */
    return (uint64_t)(((unsigned __int128)ns * clock->frequency_hz) / 1000000000u);
}

uint64_t zf_clock_mask(uint64_t ticks, uint32_t bits) {
    return bits >= 64 ? ticks : ticks & ((UINT64_C(1) << bits) - 1);
}

/* Device time of host raw time `raw`: never negative (an origin set by another process is never in the future). */
static uint64_t zf_device_ns_at(const zf_clock *clock, uint64_t raw) {
    return raw > clock->host_origin_ns ? raw - clock->host_origin_ns : 0;
}

uint64_t zf_clock_now_ns(zf_clock *clock) {
    if (clock->mode == ZF_CLOCK_HOST)
        return zf_device_ns_at(clock, zf_host_raw_ns());
    return atomic_load_explicit(&clock->now_ns, memory_order_relaxed);
}

void zf_clock_raise(zf_clock *clock, uint64_t ns) {
    uint64_t seen = atomic_load_explicit(&clock->now_ns, memory_order_relaxed);
    while (ns > seen && !atomic_compare_exchange_weak_explicit(&clock->now_ns, &seen, ns, memory_order_relaxed,
                                                               memory_order_relaxed))
        ;
}

static uint64_t zf_modelled_read_ns(zf_clock *clock) {
    return atomic_fetch_add_explicit(&clock->now_ns, ZF_CLOCK_READ_STEP_NS, memory_order_relaxed) +
           ZF_CLOCK_READ_STEP_NS;
}

uint64_t zf_clock_read_ticks(zf_clock *clock) {
    uint64_t ns = clock->mode == ZF_CLOCK_HOST ? zf_clock_now_ns(clock) : zf_modelled_read_ns(clock);
    return zf_clock_ns_to_ticks(clock, ns);
}

void zf_clock_read_pair(zf_clock *clock, uint64_t *host_raw_ns, uint64_t *ticks) {
    uint64_t raw = zf_host_raw_ns();
    uint64_t ns = clock->mode == ZF_CLOCK_HOST ? zf_device_ns_at(clock, raw) : zf_modelled_read_ns(clock);
    *host_raw_ns = raw;
    *ticks = zf_clock_ns_to_ticks(clock, ns);
}

static void zf_sleep_ns(uint64_t ns) {
    struct timespec ts = {.tv_sec = (time_t)(ns / 1000000000u), .tv_nsec = (long)(ns % 1000000000u)};
    nanosleep(&ts, NULL);
}

static inline void zf_cpu_pause(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

void zf_clock_await(const zf_clock *clock, uint64_t ns, const _Atomic bool *stop) {
    if (clock->mode != ZF_CLOCK_HOST)
        return;
    uint64_t target = clock->host_origin_ns + ns;
    for (;;) {
        uint64_t raw = zf_host_raw_ns();
        if (raw >= target || (stop != NULL && atomic_load_explicit(stop, memory_order_relaxed)))
            return;
        uint64_t left = target - raw;
        if (left <= ZF_AWAIT_SPIN_NS) {
            zf_cpu_pause();
            continue;
        }
        left -= ZF_AWAIT_SPIN_NS;
        zf_sleep_ns(left < ZF_AWAIT_SLICE_NS ? left : ZF_AWAIT_SLICE_NS);
    }
}
