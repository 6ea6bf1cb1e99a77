/* How many threads a compiled kernel's launches run on (docs/spirv-execution.md, "Threads"). Most kernels run
 * faster on every core, but not all: a kernel whose work-items mostly update a few words atomically (a histogram of
 * 256 bins) spends its time moving those words' cache lines between the cores, and runs several times faster on one.
 * Which is the case depends on the addresses at run time, so the engine measures: per kernel and group size, a launch
 * on every thread, then one on a single thread, and runs the later launches on the faster, measuring the other again
 * every ZF_TUNE_RECHECK launches (the machine's load and the kernel's arguments change). The first launch, whose
 * memory is new to the caches, is not measured. Only the time differs: results, faults and the executed-work record
 * do not depend on the threads. */
#include "spirv_run.h"

#define ZF_TUNE_RECHECK 64u /* launches between two measurements of the choice not taken */
/* One thread is chosen when it is this much faster (as a fraction: 5/4): noise between two launches stays below it,
 * contention for a few cache lines is several times it. */
#define ZF_TUNE_GAIN_NUM 5u
#define ZF_TUNE_GAIN_DEN 4u

/* Measured launches so far (the first one included): which to run the next on. */
static bool zf_tune_single(const zf_tune *tune, uint64_t launches) {
    bool one = atomic_load_explicit(&tune->one, memory_order_relaxed);
    if (launches < 2)
        return false; /* the first launch warms the caches, the second measures every thread */
    if (launches == 2)
        return true; /* the third measures one */
    return launches % ZF_TUNE_RECHECK == 0 ? !one : one;
}

uint64_t zf_tune_threads(const zf_tune *tune, uint64_t all) {
    if (all <= 1)
        return all;
    return zf_tune_single(tune, atomic_load_explicit(&tune->launches, memory_order_relaxed)) ? 1 : all;
}

bool zf_tune_ran(zf_tune *tune, uint64_t threads, uint64_t all, uint64_t ns, uint64_t items) {
    if (all <= 1 || items == 0)
        return false;
    if (atomic_fetch_add_explicit(&tune->launches, 1, memory_order_relaxed) == 0)
        return false;
    uint64_t ps = ns < UINT64_MAX / 1000 ? ns * 1000 / items : UINT64_MAX / items;
    atomic_store_explicit(&tune->ps_per_item[threads == 1 ? 0 : 1], ps ? ps : 1, memory_order_relaxed);
    uint64_t one = atomic_load_explicit(&tune->ps_per_item[0], memory_order_relaxed);
    uint64_t every = atomic_load_explicit(&tune->ps_per_item[1], memory_order_relaxed);
    if (one == 0 || every == 0)
        return false;
    bool faster = one * ZF_TUNE_GAIN_NUM < every * ZF_TUNE_GAIN_DEN;
    return atomic_exchange_explicit(&tune->one, faster, memory_order_relaxed) != faster;
}
