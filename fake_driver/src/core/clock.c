#include "core/zf_clock.h"

#include <time.h>

void zf_clock_init(zf_clock *clock, zf_clock_mode mode, const zf_scenario_timer *timer) {
    clock->mode = mode;
    clock->frequency_hz = timer->frequency_hz;
    clock->valid_bits = timer->valid_bits;
    clock->kernel_valid_bits = timer->kernel_valid_bits;
    atomic_init(&clock->now_ns, 0);
    clock->host_origin_ns = zf_host_now_ns();
}

void zf_clock_destroy(zf_clock *clock) {
    (void)clock; /* nothing to release: the clock holds no lock */
}

uint64_t zf_host_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
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

uint64_t zf_clock_now_ns(zf_clock *clock) {
    if (clock->mode == ZF_CLOCK_REALTIME)
        return zf_host_now_ns() - clock->host_origin_ns;
    return atomic_load_explicit(&clock->now_ns, memory_order_relaxed);
}

void zf_clock_raise(zf_clock *clock, uint64_t ns) {
    uint64_t seen = atomic_load_explicit(&clock->now_ns, memory_order_relaxed);
    while (ns > seen && !atomic_compare_exchange_weak_explicit(&clock->now_ns, &seen, ns, memory_order_relaxed,
                                                               memory_order_relaxed))
        ;
}

uint64_t zf_clock_read_ticks(zf_clock *clock) {
    uint64_t ns;
    if (clock->mode == ZF_CLOCK_REALTIME) {
        ns = zf_host_now_ns() - clock->host_origin_ns;
    } else {
        ns = atomic_fetch_add_explicit(&clock->now_ns, ZF_CLOCK_READ_STEP_NS, memory_order_relaxed) +
             ZF_CLOCK_READ_STEP_NS;
    }
    return zf_clock_ns_to_ticks(clock, ns);
}
