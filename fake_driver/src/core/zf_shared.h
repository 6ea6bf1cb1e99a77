/* The device state every process of a user shares for one card of one scenario instance, as a real GPU is one
 * device for all the processes using it (docs/environment.md, "Processes"): a POSIX shared-memory segment per card
 * holding the host clock's origin, the work executed on the card (device intervals, engines, counter contributions
 * and kernel code ranges that metric streamers read) and the processes using it with their memory, engine busy time
 * and the command each is executing. core/shared.c. */
#ifndef ZF_SHARED_H
#define ZF_SHARED_H

#include "scenario/scenario_formula.h"

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define ZF_SHARED_MAX_PROCESSES 64u
#define ZF_SHARED_MAX_TILES     8u
#define ZF_SHARED_NAME_MAX      200u
#define ZF_SHARED_MAX_KERNELS   4u /* kernels of one command whose code a work entry names */

typedef struct zf_card_share zf_card_share;

/* One command's contribution to one physical tile, as published by the process that ran it. */
typedef struct zf_shared_work {
    uint64_t seq; /* set by zf_shared_publish: the position in the card's history */
    int32_t pid;  /* set by zf_shared_publish */
    uint32_t tile;
    uint64_t start_ns; /* device time: host CLOCK_MONOTONIC_RAW time minus the shared clock origin */
    uint64_t end_ns;
    uint32_t context_id; /* the engine: zf_engine_context_id */
    uint32_t num_kernels;
    uint64_t code_base[ZF_SHARED_MAX_KERNELS]; /* the kernels' code (zexKernelGetBaseAddress of the running process) */
    uint32_t code_instructions[ZF_SHARED_MAX_KERNELS];
    uint64_t amount[ZF_SIG_COUNT];
} zf_shared_work;

/* The kinds of engine a process's work ran on. */
typedef enum zf_shared_kind { ZF_SHARED_COMPUTE, ZF_SHARED_COPY, ZF_SHARED_KINDS } zf_shared_kind;

typedef struct zf_shared_process {
    int32_t pid;
    uint64_t memory_bytes;                                  /* device memory it holds on the card */
    uint64_t busy_ns[ZF_SHARED_MAX_TILES][ZF_SHARED_KINDS]; /* engine busy time per physical tile, device ns */
    uint32_t kinds;                                         /* 1 << zf_shared_kind of every kind it used */
} zf_shared_process;

/* Attaches to the segment of the card named by `key` (16 bytes naming the physical card) in `instance` (a scenario
 * instance name) of the calling user, creating it on first use; NULL (logged) when shared memory cannot be used:
 * the device then works unshared. The calling process is listed among the card's processes. */
zf_card_share *zf_shared_attach(const char *instance, const uint8_t key[16]);

/* The segment's name (for diagnostics and zefakeGetSharedDevice). */
const char *zf_shared_name(const zf_card_share *shared);

/* Host CLOCK_MONOTONIC_RAW time (ns) at which the segment was created: device time 0 of a host clock. */
uint64_t zf_shared_clock_origin_ns(const zf_card_share *shared);

/* Appends work to the card's history (a ring of the latest entries) and adds its duration to the busy time. */
void zf_shared_publish(zf_card_share *shared, const zf_shared_work *work);

/* The sequence number the next published work will have. */
uint64_t zf_shared_next_seq(zf_card_share *shared);

/* Copies into `out` (at most `max`) the work published from *seq on by other processes, oldest first, and moves *seq
 * past what it returned; work that the ring no longer holds is skipped. Returns the number copied. */
uint32_t zf_shared_collect(zf_card_share *shared, uint64_t *seq, zf_shared_work *out, uint32_t max);

/* The calling process executes a command of the card from device time `since_ns` on (UINT64_MAX: none). */
void zf_shared_set_hold(zf_card_share *shared, uint64_t since_ns);

/* The earliest device time from which a process of the card is still executing a command (UINT64_MAX: none): its
 * work is not published yet. */
uint64_t zf_shared_hold_ns(zf_card_share *shared);

/* The card's busy time: the sum of the durations of every command published on it, ns. */
uint64_t zf_shared_busy_ns(zf_card_share *shared);

/* Records the device memory the calling process holds on the card. */
void zf_shared_set_memory(zf_card_share *shared, uint64_t bytes);

/* One command of the calling process: adds busy_ns[t] of busy time on an engine of `kind` of each physical tile t to
 * its entry (the work of every clock mode: durations, not times) and records the device memory it now holds. */
void zf_shared_add_work(zf_card_share *shared, const uint64_t busy_ns[ZF_SHARED_MAX_TILES], zf_shared_kind kind,
                        uint64_t memory_bytes);

/* The live processes using the card (dead ones are removed first); returns how many were copied. */
uint32_t zf_shared_processes(zf_card_share *shared, zf_shared_process *out, uint32_t max);

/* At library unload (the composition root, after the engines stopped): leaves every segment, unlinking those no
 * process uses any more. The mappings stay until the process is gone. */
void zf_shared_detach_all(void);

#endif
