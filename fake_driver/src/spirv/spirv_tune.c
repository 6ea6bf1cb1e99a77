/* How many threads a compiled kernel's launches run on (docs/spirv-execution.md, "Threads"). Most kernels run
 * faster on every core, but not all: a kernel whose work-items mostly update a few words atomically (a histogram of
 * 256 bins) spends its time moving those words' cache lines between the cores, and runs several times faster on one.
 * Which is the case depends on the addresses at run time, so for a kernel whose first launch executed an atomic per
 * work-item or more (the others keep every thread) the engine measures, per kernel and group size: after
 * the first launch, whose memory is new to the caches, four launches alternate between every thread and one; later
 * launches run on the faster, and every ZF_TUNE_RECHECK launches two of them run on the other choice to measure it
 * again (the machine's load and the kernel's arguments change). A choice's time is the best of its latest two, and the
 * choices alternate while both are measured, so that a stretch of time in which something else slows the machine
 * (another process, a virtual machine's neighbours) slows both alike. Only the time differs: results, faults and
 * the executed-work record do not depend on the threads. */
#include "spirv_run.h"

#define ZF_TUNE_RECHECK 64u /* launches between two measurements of the choice not taken */
/* One thread is chosen when it is this much faster (as a fraction: 3/2): what one slowed launch and the noise between
 * launches give stays below it, contention for a few cache lines is several times it. */
#define ZF_TUNE_GAIN_NUM 3u
#define ZF_TUNE_GAIN_DEN 2u

/* Launches measured so far (the first one included): whether the next runs on one thread. */
static bool zf_tune_single(const zf_tune *tune, uint64_t launches) {
    if (launches == 0)
        return false; /* the first launch warms the caches */
    if (launches <= 4)
        return launches % 2 == 0; /* every thread, one, every thread, one */
    bool one = atomic_load_explicit(&tune->one, memory_order_relaxed);
    uint64_t phase = launches % ZF_TUNE_RECHECK;
    return phase == 0 || phase == 2 ? !one : one;
}

uint64_t zf_tune_threads(const zf_tune *tune, uint64_t all) {
    if (all <= 1 || atomic_load_explicit(&tune->kind, memory_order_relaxed) != ZF_TUNE_ATOMIC)
        return all;
    return zf_tune_single(tune, atomic_load_explicit(&tune->launches, memory_order_relaxed)) ? 1 : all;
}

bool zf_tune_ran(zf_tune *tune, uint64_t threads, uint64_t all, uint64_t ns, uint64_t items, uint64_t atomics) {
    if (all <= 1 || items == 0)
        return false;
    if (atomic_fetch_add_explicit(&tune->launches, 1, memory_order_relaxed) == 0) {
        atomic_store_explicit(&tune->kind, atomics >= items ? ZF_TUNE_ATOMIC : ZF_TUNE_PLAIN, memory_order_relaxed);
        return false;
    }
    if (atomic_load_explicit(&tune->kind, memory_order_relaxed) != ZF_TUNE_ATOMIC)
        return false;
    uint64_t ps = ns < UINT64_MAX / 1000 ? ns * 1000 / items : UINT64_MAX / items;
    ps = ps ? ps : 1;
    uint32_t side = threads == 1 ? 0 : 1;
    uint64_t previous = atomic_exchange_explicit(&tune->last_ps[side], ps, memory_order_relaxed);
    if (previous != 0)
        atomic_store_explicit(&tune->best_ps[side], previous < ps ? previous : ps, memory_order_relaxed);
    uint64_t one = atomic_load_explicit(&tune->best_ps[0], memory_order_relaxed);
    uint64_t every = atomic_load_explicit(&tune->best_ps[1], memory_order_relaxed);
    if (one == 0 || every == 0)
        return false; /* a choice measured once only */
    bool faster = one * ZF_TUNE_GAIN_NUM < every * ZF_TUNE_GAIN_DEN;
    return atomic_exchange_explicit(&tune->one, faster, memory_order_relaxed) != faster;
}
