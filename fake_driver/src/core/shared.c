/* The device state shared by the processes of one user using one card of one scenario instance (core/zf_shared.h,
 * docs/environment.md "Processes").
 *
 * One POSIX shared-memory object per card, "/zefake-u<uid>-v<layout>-<instance>-<card key>", made on first use: the
 * layout version in the name keeps zefake versions of different layouts apart. Every process may die at any point,
 * so:
 * - creation and attachment run under flock() on the object, which the kernel releases when its holder dies: a
 *   creator that died half-way leaves no magic, and the next process initialises the segment again;
 * - the data is guarded by a robust process-shared mutex: the next locker of a mutex whose holder died is told so
 *   (EOWNERDEAD) and marks it consistent. Writers make that safe by publishing work only by advancing the sequence
 *   number after the entry is complete;
 * - processes are listed with their start time; a listed process that no longer exists (or whose pid now belongs to
 *   another process) is removed when the list is read or a process attaches.
 * The last process to leave (at exit) unlinks the object, under the same flock, so a process attaching meanwhile
 * either sees it gone and makes a new one or keeps it alive.
 * Any process of the user may also truncate or rewrite the object. A truncated mapping faults (SIGBUS) where it lost
 * its pages: the driver's SIGBUS handler puts private zeroed memory in place of a segment that faults, so the process
 * goes on with the card unshared (and says so once), and passes any other SIGBUS to the handler it replaced. An object
 * of the wrong size under the name is rebuilt. */
#include "core/zf_clock.h"
#include "core/zf_core.h"
#include "core/zf_shared.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define ZF_SHARED_MAGIC   0x48534657u /* "WFSH" */
#define ZF_SHARED_VERSION 3u
#define ZF_SHARED_RING    4096u /* work entries kept: enough for the reports of any streamer that reads regularly */
#define ZF_SHARED_RETRIES 8

typedef struct zf_shared_slot {
    int32_t pid; /* 0: free */
    uint32_t reserved;
    uint64_t start_time; /* /proc/<pid>/stat field 22, to tell a reused pid apart */
    uint64_t memory_bytes;
    uint64_t busy_ns[ZF_SHARED_MAX_TILES][ZF_SHARED_KINDS]; /* zf_shared_add_busy */
    uint32_t engines;                                       /* ZF_SHARED_ENGINE_* of its work */
    uint32_t reserved2;
    uint64_t hold; /* zf_shared_set_hold: 0 when it executes nothing, else the command's start + 1 */
} zf_shared_slot;

typedef struct zf_shared_segment {
    uint32_t magic; /* written last by the creator */
    uint32_t version;
    uint64_t size;
    pthread_mutex_t lock; /* robust, process-shared: guards everything below */
    uint64_t clock_origin_ns;
    uint64_t busy_ns;
    uint64_t next_seq;
    zf_shared_slot processes[ZF_SHARED_MAX_PROCESSES];
    zf_shared_work ring[ZF_SHARED_RING];
} zf_shared_segment;

struct zf_card_share {
    zf_shared_segment *seg;
    int fd;
    char name[ZF_SHARED_NAME_MAX];
    pid_t pid;           /* the attaching process */
    zf_shared_slot *own; /* its entry (NULL when the table was full): found once at attach, it stays while it lives */
    uint64_t swept_ns;   /* when a read of the list last removed the processes that are gone (segment lock) */
    volatile sig_atomic_t lost; /* the SIGBUS handler replaced the mapping: set once, told once */
    bool told;
    struct zf_card_share *next;
};

static pthread_mutex_t zf_attached_lock = PTHREAD_MUTEX_INITIALIZER;
static zf_card_share *zf_attached; /* every segment of this process, detached at exit; read by the SIGBUS handler */

/* ---- Truncated segments --------------------------------------------------------------------------------------- */

static struct sigaction zf_previous_sigbus;
static pthread_once_t zf_sigbus_once = PTHREAD_ONCE_INIT;

/* Hands a fault that is not ours to the handler we replaced; the default action comes back for the faulting
 * instruction's second try. */
static void zf_pass_sigbus(int sig, siginfo_t *info, void *context) {
    if (zf_previous_sigbus.sa_flags & SA_SIGINFO) {
        zf_previous_sigbus.sa_sigaction(sig, info, context);
        return;
    }
    if (zf_previous_sigbus.sa_handler != SIG_DFL && zf_previous_sigbus.sa_handler != SIG_IGN) {
        zf_previous_sigbus.sa_handler(sig);
        return;
    }
    struct sigaction fallback = {.sa_handler = SIG_DFL};
    sigaction(SIGBUS, &fallback, NULL);
}

/* Async-signal-safe: walks the list of attached segments (entries are only ever added, published with a release
 * store) and maps zeroed private pages over the one the address is in. */
static void zf_on_sigbus(int sig, siginfo_t *info, void *context) {
    const char *at = info->si_addr;
    for (zf_card_share *s = __atomic_load_n(&zf_attached, __ATOMIC_ACQUIRE); s != NULL; s = s->next) {
        const char *base = (const char *)s->seg;
        if (at >= base && at < base + sizeof *s->seg &&
            mmap(s->seg, sizeof *s->seg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) !=
                MAP_FAILED) {
            s->lost = 1;
            return;
        }
    }
    zf_pass_sigbus(sig, info, context);
}

static void zf_install_sigbus(void) {
    struct sigaction action = {.sa_sigaction = zf_on_sigbus, .sa_flags = SA_SIGINFO | SA_RESTART};
    sigemptyset(&action.sa_mask);
    if (sigaction(SIGBUS, &action, &zf_previous_sigbus) != 0)
        zf_log(ZF_LOG_WARN, "shared device state: no SIGBUS handler (%s): a truncated segment would kill the process",
               strerror(errno));
}

/* Says once that the segment was lost; the process keeps the card, unshared. */
static void zf_tell_lost(zf_card_share *shared) {
    if (shared->lost && !shared->told) {
        shared->told = true;
        zf_log(ZF_LOG_WARN,
               "shared device state %s was truncated by another process: this process goes on with the "
               "card unshared",
               shared->name);
    }
}

/* ---- Processes ------------------------------------------------------------------------------------------------ */

/* The start time of a process in clock ticks since boot (0 when unknown). */
static uint64_t zf_process_start_time(pid_t pid) {
    char path[64], line[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *file = fopen(path, "r");
    if (file == NULL)
        return 0;
    size_t n = fread(line, 1, sizeof line - 1, file);
    fclose(file);
    line[n] = '\0';
    const char *p = strrchr(line, ')'); /* the command name may hold blanks and parentheses */
    unsigned long long start = 0;
    if (p == NULL ||
        sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu", &start) != 1)
        return 0;
    return start;
}

static bool zf_slot_alive(const zf_shared_slot *slot) {
    if (slot->pid <= 0)
        return false;
    if (kill(slot->pid, 0) != 0 && errno == ESRCH)
        return false;
    uint64_t start = zf_process_start_time(slot->pid);
    return start == 0 || slot->start_time == 0 || start == slot->start_time;
}

/* Removes the processes that are gone; lock held. */
static void zf_sweep_dead(zf_shared_segment *seg) {
    for (uint32_t i = 0; i < ZF_SHARED_MAX_PROCESSES; i++) {
        zf_shared_slot *slot = &seg->processes[i];
        if (slot->pid != 0 && !zf_slot_alive(slot))
            memset(slot, 0, sizeof *slot);
    }
}

/* This process's id without a system call at every launch (glibc does not keep it): read at first use, and again in
 * a child of fork(). */
static _Atomic pid_t zf_self_pid;
static pthread_once_t zf_self_pid_once = PTHREAD_ONCE_INIT;

static void zf_self_pid_forget(void) {
    atomic_store_explicit(&zf_self_pid, 0, memory_order_relaxed);
}

static void zf_self_pid_watch_forks(void) {
    pthread_atfork(NULL, NULL, zf_self_pid_forget);
}

static pid_t zf_self(void) {
    pid_t pid = atomic_load_explicit(&zf_self_pid, memory_order_relaxed);
    if (pid != 0)
        return pid;
    pthread_once(&zf_self_pid_once, zf_self_pid_watch_forks);
    pid = getpid();
    atomic_store_explicit(&zf_self_pid, pid, memory_order_relaxed);
    return pid;
}

static zf_shared_slot *zf_slot_of(zf_shared_segment *seg, pid_t pid) {
    for (uint32_t i = 0; i < ZF_SHARED_MAX_PROCESSES; i++) {
        if (seg->processes[i].pid == pid)
            return &seg->processes[i];
    }
    return NULL;
}

static zf_shared_slot *zf_own_slot(zf_shared_segment *seg) {
    return zf_slot_of(seg, zf_self());
}

/* ---- The lock ------------------------------------------------------------------------------------------------- */

static void zf_shared_lock(zf_shared_segment *seg) {
    int r = pthread_mutex_lock(&seg->lock);
    if (r == EOWNERDEAD) {
        /* Its holder died: what it was writing is either complete or not yet published (the sequence number moves
         * last), so the data stays consistent. */
        zf_log(ZF_LOG_INFO, "shared device state: a process died holding its lock; recovered");
        zf_sweep_dead(seg);
        pthread_mutex_consistent(&seg->lock);
    } else if (r != 0) {
        zf_log(ZF_LOG_ERROR, "shared device state: cannot lock (%s)", strerror(r));
    }
}

static void zf_shared_unlock(zf_shared_segment *seg) {
    pthread_mutex_unlock(&seg->lock);
}

/* ---- Creation and attachment ---------------------------------------------------------------------------------- */

/* "/zefake-u<uid>-<instance>-<key>": characters of the instance outside [A-Za-z0-9._-] become '_'. */
static void zf_shared_make_name(char *out, const char *instance, const uint8_t key[16]) {
    char safe[100];
    size_t n = 0;
    for (const char *c = instance; *c != '\0' && n < sizeof safe - 1; c++) {
        bool ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '.' ||
                  *c == '_' || *c == '-';
        safe[n++] = ok ? *c : '_';
    }
    safe[n] = '\0';
    int at = snprintf(out, ZF_SHARED_NAME_MAX, "/zefake-u%u-v%u-%s-", (unsigned)getuid(), ZF_SHARED_VERSION, safe);
    for (int i = 0; i < 16 && at + 2 < (int)ZF_SHARED_NAME_MAX; i++)
        at += snprintf(out + at, ZF_SHARED_NAME_MAX - (size_t)at, "%02x", key[i]);
}

static bool zf_segment_init(zf_shared_segment *seg) {
    memset(seg, 0, sizeof *seg);
    pthread_mutexattr_t attr;
    pthread_mutexattr_init(&attr);
    pthread_mutexattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
    pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST);
    int r = pthread_mutex_init(&seg->lock, &attr);
    pthread_mutexattr_destroy(&attr);
    if (r != 0)
        return false;
    seg->version = ZF_SHARED_VERSION;
    seg->size = sizeof *seg;
    seg->clock_origin_ns = zf_host_raw_ns();
    __atomic_store_n(&seg->magic, ZF_SHARED_MAGIC, __ATOMIC_RELEASE);
    return true;
}

/* True when `fd` still is the object named `name` (the last process may have unlinked it meanwhile). */
static bool zf_still_named(int fd, const char *name) {
    char path[ZF_SHARED_NAME_MAX + 16];
    snprintf(path, sizeof path, "/dev/shm%s", name);
    struct stat by_fd, by_name;
    return fstat(fd, &by_fd) == 0 && stat(path, &by_name) == 0 && by_fd.st_ino == by_name.st_ino;
}

/* Maps the object open on `fd` (flock held), initialising it when no creator finished; NULL on failure. */
static zf_shared_segment *zf_segment_map(int fd, const char *name) {
    struct stat st;
    if (fstat(fd, &st) != 0)
        return NULL;
    if ((size_t)st.st_size != sizeof(zf_shared_segment) && st.st_size != 0) {
        /* Not a layout of ours (the name holds the layout version): rebuilt from zero. */
        zf_log(ZF_LOG_WARN, "shared device state %s has %lld bytes, not the %zu of its layout: made afresh", name,
               (long long)st.st_size, sizeof(zf_shared_segment));
        if (ftruncate(fd, 0) != 0)
            return NULL;
        st.st_size = 0;
    }
    if (st.st_size == 0 && ftruncate(fd, sizeof(zf_shared_segment)) != 0)
        return NULL;
    zf_shared_segment *seg = mmap(NULL, sizeof *seg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (seg == MAP_FAILED)
        return NULL;
    bool ready = __atomic_load_n(&seg->magic, __ATOMIC_ACQUIRE) == ZF_SHARED_MAGIC &&
                 seg->version == ZF_SHARED_VERSION && seg->size == sizeof *seg;
    if (!ready && !zf_segment_init(seg)) { /* first use, or its creator died before finishing */
        munmap(seg, sizeof *seg);
        return NULL;
    }
    return seg;
}

static bool zf_no_process(const zf_shared_segment *seg) {
    for (uint32_t i = 0; i < ZF_SHARED_MAX_PROCESSES; i++) {
        if (seg->processes[i].pid != 0)
            return false;
    }
    return true;
}

/* Lists the calling process; lock held. False when the table is full. The first process of a segment left behind by
 * processes that all died starts it afresh, as if it had just been created. */
static bool zf_register_self(zf_shared_segment *seg) {
    zf_sweep_dead(seg);
    if (zf_no_process(seg)) {
        seg->clock_origin_ns = zf_host_raw_ns();
        seg->busy_ns = 0;
    }
    if (zf_own_slot(seg) != NULL)
        return true;
    for (uint32_t i = 0; i < ZF_SHARED_MAX_PROCESSES; i++) {
        zf_shared_slot *slot = &seg->processes[i];
        if (slot->pid == 0) {
            *slot = (zf_shared_slot){.pid = getpid(), .start_time = zf_process_start_time(getpid())};
            return true;
        }
    }
    return false;
}

/* Opens, locks and maps the object; the flock is released before returning. */
static zf_shared_segment *zf_segment_open(const char *name, int *fd_out) {
    for (int attempt = 0; attempt < ZF_SHARED_RETRIES; attempt++) {
        int fd = shm_open(name, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
        if (fd < 0)
            return NULL;
        if (flock(fd, LOCK_EX) != 0 || !zf_still_named(fd, name)) {
            close(fd); /* unlinked by the last process leaving: make it again */
            continue;
        }
        zf_shared_segment *seg = zf_segment_map(fd, name);
        bool listed = false;
        if (seg != NULL) {
            zf_shared_lock(seg);
            listed = zf_register_self(seg);
            zf_shared_unlock(seg);
        }
        flock(fd, LOCK_UN);
        if (seg != NULL && !listed)
            zf_log(ZF_LOG_WARN, "shared device state %s: %u processes already use the card; this one is not listed",
                   name, ZF_SHARED_MAX_PROCESSES);
        if (seg == NULL)
            close(fd);
        else
            *fd_out = fd;
        return seg;
    }
    return NULL;
}

zf_card_share *zf_shared_attach(const char *instance, const uint8_t key[16]) {
    zf_card_share *shared = calloc(1, sizeof *shared);
    if (shared == NULL)
        return NULL;
    zf_shared_make_name(shared->name, instance, key);
    shared->pid = getpid();
    pthread_once(&zf_sigbus_once, zf_install_sigbus);
    errno = 0;
    shared->seg = zf_segment_open(shared->name, &shared->fd);
    if (shared->seg == NULL) {
        zf_log(ZF_LOG_WARN, "shared device state %s: %s; the device is not shared with other processes", shared->name,
               errno != 0 ? strerror(errno) : "it cannot be opened, locked or mapped");
        free(shared);
        return NULL;
    }
    zf_shared_lock(shared->seg);
    shared->own = zf_own_slot(shared->seg);
    zf_shared_unlock(shared->seg);
    pthread_mutex_lock(&zf_attached_lock);
    shared->next = zf_attached;
    __atomic_store_n(&zf_attached, shared, __ATOMIC_RELEASE); /* complete before the SIGBUS handler can see it */
    pthread_mutex_unlock(&zf_attached_lock);
    return shared;
}

void zf_shared_detach_all(void) {
    pthread_mutex_lock(&zf_attached_lock);
    for (zf_card_share *s = zf_attached; s != NULL; s = s->next) {
        if (flock(s->fd, LOCK_EX) != 0)
            continue;
        zf_shared_lock(s->seg);
        zf_shared_slot *own = zf_own_slot(s->seg);
        if (own != NULL)
            memset(own, 0, sizeof *own);
        zf_sweep_dead(s->seg);
        bool empty = zf_no_process(s->seg);
        zf_shared_unlock(s->seg);
        if (empty && zf_still_named(s->fd, s->name))
            shm_unlink(s->name);
        flock(s->fd, LOCK_UN);
    }
    pthread_mutex_unlock(&zf_attached_lock);
}

/* ---- The shared state ----------------------------------------------------------------------------------------- */

const char *zf_shared_name(const zf_card_share *shared) {
    return shared->name;
}

uint64_t zf_shared_clock_origin_ns(const zf_card_share *shared) {
    return shared->seg->clock_origin_ns; /* written once, before the magic */
}

void zf_shared_set_hold(zf_card_share *shared, uint64_t since_ns) {
    if (shared->own != NULL)
        __atomic_store_n(&shared->own->hold, since_ns == UINT64_MAX ? 0 : since_ns + 1, __ATOMIC_RELEASE);
}

uint64_t zf_shared_hold_ns(zf_card_share *shared) {
    zf_tell_lost(shared);
    uint64_t earliest = UINT64_MAX;
    for (uint32_t i = 0; i < ZF_SHARED_MAX_PROCESSES; i++) {
        const zf_shared_slot *slot = &shared->seg->processes[i];
        uint64_t hold = __atomic_load_n(&slot->hold, __ATOMIC_ACQUIRE);
        int32_t pid = __atomic_load_n(&slot->pid, __ATOMIC_RELAXED);
        /* A process that died while executing holds nothing (it is swept from the list later). */
        if (hold != 0 && hold - 1 < earliest && pid != 0 && (pid == shared->pid || kill(pid, 0) == 0 || errno != ESRCH))
            earliest = hold - 1;
    }
    return earliest;
}

void zf_shared_publish(zf_card_share *shared, const zf_shared_work *work) {
    zf_tell_lost(shared);
    zf_shared_segment *seg = shared->seg;
    zf_shared_lock(seg);
    zf_shared_work *entry = &seg->ring[seg->next_seq % ZF_SHARED_RING];
    *entry = *work;
    entry->seq = seg->next_seq;
    entry->pid = zf_self();
    seg->busy_ns += work->end_ns > work->start_ns ? work->end_ns - work->start_ns : 0;
    seg->next_seq++; /* last: a holder dying before this leaves the entry unpublished */
    zf_shared_unlock(seg);
}

uint64_t zf_shared_next_seq(zf_card_share *shared) {
    zf_shared_lock(shared->seg);
    uint64_t seq = shared->seg->next_seq;
    zf_shared_unlock(shared->seg);
    return seq;
}

uint32_t zf_shared_collect(zf_card_share *shared, uint64_t *seq, zf_shared_work *out, uint32_t max) {
    zf_shared_segment *seg = shared->seg;
    pid_t self = zf_self();
    uint32_t n = 0;
    zf_shared_lock(seg);
    uint64_t first = seg->next_seq > ZF_SHARED_RING ? seg->next_seq - ZF_SHARED_RING : 0;
    uint64_t at = *seq > first ? *seq : first;
    for (; at < seg->next_seq && n < max; at++) {
        const zf_shared_work *entry = &seg->ring[at % ZF_SHARED_RING];
        if (entry->pid != self)
            out[n++] = *entry;
    }
    *seq = at;
    zf_shared_unlock(seg);
    return n;
}

uint64_t zf_shared_busy_ns(zf_card_share *shared) {
    zf_shared_lock(shared->seg);
    uint64_t busy = shared->seg->busy_ns;
    zf_shared_unlock(shared->seg);
    return busy;
}

void zf_shared_set_memory(zf_card_share *shared, uint64_t bytes) {
    if (shared->own != NULL)
        __atomic_store_n(&shared->own->memory_bytes, bytes, __ATOMIC_RELAXED);
}

/* Every command publishes here, so without the lock: only this process writes its entry's counters (its engines'
 * workers, with atomic adds) and readers load each with an atomic load (zf_process_of), so a count read is exact: it
 * holds every command published before the read. The lock guards the table itself (entries taken and freed). */
void zf_shared_add_work(zf_card_share *shared, const uint64_t busy_ns[ZF_SHARED_MAX_TILES], zf_shared_kind kind,
                        uint64_t memory_bytes) {
    zf_shared_slot *own = shared->own;
    if (kind >= ZF_SHARED_KINDS || own == NULL)
        return;
    for (uint32_t t = 0; t < ZF_SHARED_MAX_TILES; t++) {
        if (busy_ns[t] != 0)
            __atomic_fetch_add(&own->busy_ns[t][kind], busy_ns[t], __ATOMIC_RELAXED);
    }
    if ((__atomic_load_n(&own->engines, __ATOMIC_RELAXED) & (1u << kind)) == 0)
        __atomic_fetch_or(&own->engines, 1u << kind, __ATOMIC_RELAXED);
    __atomic_store_n(&own->memory_bytes, memory_bytes, __ATOMIC_RELAXED);
}

static zf_shared_process zf_process_of(const zf_shared_slot *slot) {
    zf_shared_process p = {.pid = slot->pid,
                           .memory_bytes = __atomic_load_n(&slot->memory_bytes, __ATOMIC_RELAXED),
                           .kinds = __atomic_load_n(&slot->engines, __ATOMIC_RELAXED)};
    for (uint32_t t = 0; t < ZF_SHARED_MAX_TILES; t++)
        for (uint32_t k = 0; k < ZF_SHARED_KINDS; k++)
            p.busy_ns[t][k] = __atomic_load_n(&slot->busy_ns[t][k], __ATOMIC_RELAXED);
    return p;
}

/* Reading /proc for every listed process costs microseconds, and monitors read telemetry in bursts (every engine and
 * domain of a device): a read sweeps the list at most this often. */
#define ZF_SWEEP_INTERVAL_NS 100000000u

uint32_t zf_shared_processes(zf_card_share *shared, zf_shared_process *out, uint32_t max) {
    zf_shared_segment *seg = shared->seg;
    uint32_t n = 0;
    zf_shared_lock(seg);
    uint64_t now = zf_host_now_ns();
    if (now - shared->swept_ns >= ZF_SWEEP_INTERVAL_NS) {
        zf_sweep_dead(seg);
        shared->swept_ns = now;
    }
    for (uint32_t i = 0; i < ZF_SHARED_MAX_PROCESSES && n < max; i++) {
        if (seg->processes[i].pid != 0)
            out[n++] = zf_process_of(&seg->processes[i]);
    }
    zf_shared_unlock(seg);
    return n;
}
