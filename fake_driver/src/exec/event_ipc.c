/* Event pools shared between processes: zeEventPoolGetIpcHandle, zeEventPoolOpenIpcHandle,
 * zeEventPoolCloseIpcHandle.
 *
 * The state of the events of a shared pool lives in a memfd that every process sharing the pool maps: one slot per
 * event index (signalled, signal time, kernel timestamps, a generation), a process-shared robust mutex and a futex
 * "doorbell" bumped on every change. Each process keeps its own event objects, as for any pool, and mirrors them:
 *
 *   - local -> shared: host signals and resets are published by the call itself; changes made by commands on engine
 *     workers are published by an agent thread that wakes on every broadcast of the execution lock;
 *   - shared -> local: a watcher thread per shared pool sleeps on the doorbell futex and copies newer slots into the
 *     process's events, then wakes the execution lock's waiters (host waits and engines alike).
 *
 * Generations are issued under the shared mutex, so every process applies a slot only when it is newer than what it
 * last saw or published: a stale copy never overwrites a newer signal or reset.
 *
 * The handle starts with the exporter's descriptor of the memfd, as Intel's does, for applications to pass with
 * SCM_RIGHTS. Another process opens through the descriptor it received (written into those bytes) when the memory
 * behind it holds the handle's seal (the handle as issued, descriptor bytes zeroed), and otherwise asks the
 * exporter's memory IPC server (memory_ipc.c), with the same id-and-token rule (docs/memory.md, docs/events.md).
 * Destroying the exported pool wipes the seal and unshares the memfd: its handle opens nothing any more. */
#include "core/zf_core.h"
#include "exec/zf_event_ipc.h"
#include "exec/zf_exec.h"
#include "memory/zf_memory.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define ZF_EVENT_IPC_MAGIC    "zefkEVP2" /* bytes 8..15 of a handle */
#define ZF_EVENT_SHARED_MAGIC "zefkEVS1" /* first bytes of a pool's shared memory */

/* ------------------------------------------------------------------------------------------------------------------
 * Shared memory and handles */

typedef struct zf_shared_slot {
    uint64_t generation;
    uint32_t signaled;
    uint32_t reserved;
    uint64_t signal_ns, start_ns, end_ns;
} zf_shared_slot;

/* The 64 bytes of ze_ipc_event_pool_handle_t as zefake fills them (docs/events.md). The descriptor comes first and its
 * field is 8 bytes wide, as in Intel's handle; a receiving process overwrites the first 4 bytes. */
typedef struct zf_event_ipc_handle {
    int32_t fd;       /* the exporter's descriptor of the shared memory; the receiver's after SCM_RIGHTS */
    uint32_t fd_high; /* 0 */
    char magic[8];
    uint32_t pid;   /* the exporting process */
    uint32_t count; /* events */
    uint64_t nonce; /* the exporter's IPC server's */
    uint64_t id;    /* the shared memory's, at that server */
    uint8_t token[16];
    uint32_t flags; /* the pool's */
    uint32_t reserved;
} zf_event_ipc_handle;
_Static_assert(sizeof(zf_event_ipc_handle) == ZE_MAX_IPC_HANDLE_SIZE, "an IPC handle is 64 bytes");

typedef struct zf_shared_pool {
    char magic[8];
    uint32_t count;
    uint32_t flags;
    _Atomic uint32_t doorbell; /* futex word: bumped after every change */
    uint32_t reserved;
    uint64_t generation;      /* the last one issued; guarded by `lock` */
    zf_event_ipc_handle seal; /* the handle with its descriptor bytes zeroed; zeroed when the exporter destroys it */
    pthread_mutex_t lock;     /* process-shared and robust: a process that dies holding it does not block the others */
    zf_shared_slot slots[];
} zf_shared_pool;

/* What this process last saw of a slot, or last published to it. */
typedef struct zf_event_state {
    uint64_t generation;
    bool signaled;
    uint64_t signal_ns, start_ns, end_ns;
} zf_event_state;

typedef struct zf_ipc_pool {
    zf_event_pool *pool;
    bool opened; /* from a handle: closed with zeEventPoolCloseIpcHandle */
    int fd;
    size_t size;
    zf_shared_pool *shared;
    zf_event_state *known;     /* per index; guarded by the execution lock */
    const zf_event **attached; /* per index: the event whose state is mirrored; guarded by the execution lock */
    zf_event_state *snapshot;  /* the watcher's scratch copy of the slots */
    bool exported;
    uint32_t gets; /* zeEventPoolGetIpcHandle calls not returned by zeEventPoolPutIpcHandle */
    zf_ipc_ticket ticket;
    pthread_t watcher;
    atomic_bool stop;
    struct zf_ipc_pool *next;
} zf_ipc_pool;

/* The shared pools of this process, guarded by the execution lock; the count is read without it. */
static zf_ipc_pool *zf_ipc_pools;
static atomic_uint zf_ipc_pool_count;

/* The agent: one thread publishing what commands did to shared events. */
static struct {
    pthread_mutex_t lock; /* serialises starting and stopping it */
    bool running;
    bool stop; /* guarded by the execution lock */
    pthread_t thread;
} zf_agent = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void zf_futex_wake(_Atomic uint32_t *word) {
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE, INT32_MAX, NULL, NULL, 0);
}

static void zf_futex_wait(_Atomic uint32_t *word, uint32_t expected) {
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT, expected, NULL, NULL, 0);
}

static void zf_shared_lock(zf_shared_pool *shared) {
    if (pthread_mutex_lock(&shared->lock) == EOWNERDEAD)
        pthread_mutex_consistent(&shared->lock); /* the slots are whole values: nothing to repair */
}

static void zf_shared_unlock(zf_shared_pool *shared) {
    pthread_mutex_unlock(&shared->lock);
}

static size_t zf_shared_size(uint32_t count) {
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t size = sizeof(zf_shared_pool) + (size_t)count * sizeof(zf_shared_slot);
    return (size + page - 1) / page * page;
}

/* Threads of the driver take no signals: they stay with the application's threads. */
static bool zf_spawn(pthread_t *thread, void *(*main)(void *), void *arg) {
    sigset_t all, previous;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &previous);
    bool spawned = pthread_create(thread, NULL, main, arg) == 0;
    pthread_sigmask(SIG_SETMASK, &previous, NULL);
    return spawned;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Mirroring (with the execution lock held unless said otherwise) */

static zf_ipc_pool *zf_ipc_find(const zf_event_pool *pool) {
    for (zf_ipc_pool *p = zf_ipc_pools; p != NULL; p = p->next) {
        if (p->pool == pool)
            return p;
    }
    return NULL;
}

static zf_event_state zf_local_state(const zf_event *event) {
    zf_event_state s = {0, event->signaled, 0, 0, 0};
    if (event->signaled) {
        s.signal_ns = event->signal_ns;
        s.start_ns = event->start_ns;
        s.end_ns = event->end_ns;
    }
    return s;
}

static bool zf_state_differs(const zf_event_state *a, const zf_event_state *b) {
    return a->signaled != b->signaled ||
           (a->signaled && (a->signal_ns != b->signal_ns || a->start_ns != b->start_ns || a->end_ns != b->end_ns));
}

/* Writes a local event's state to its slot under a new generation, and rings the doorbell. */
static void zf_publish(zf_ipc_pool *p, uint32_t index, zf_event_state state) {
    zf_shared_pool *shared = p->shared;
    zf_shared_lock(shared);
    state.generation = ++shared->generation;
    shared->slots[index] =
        (zf_shared_slot){state.generation, state.signaled, 0, state.signal_ns, state.start_ns, state.end_ns};
    zf_shared_unlock(shared);
    p->known[index] = state;
    atomic_fetch_add(&shared->doorbell, 1);
    zf_futex_wake(&shared->doorbell);
}

/* Only attached events are published: one being created has not taken its slot's state yet, and would undo it. */
static void zf_publish_changes(zf_ipc_pool *p) {
    for (uint32_t i = 0; i < p->pool->count; i++) {
        const zf_event *event = p->pool->events[i];
        if (event == NULL || p->attached[i] != event)
            continue;
        zf_event_state local = zf_local_state(event);
        if (zf_state_differs(&local, &p->known[i]))
            zf_publish(p, i, local);
    }
}

/* Gives an event the state of a slot (another process's signal or reset). */
static void zf_apply(zf_ipc_pool *p, uint32_t index, const zf_event_state *state) {
    p->known[index] = *state;
    zf_event *event = p->pool->events[index];
    if (event == NULL)
        return;
    if (!state->signaled) {
        event->signaled = false;
        return;
    }
    event->signal_ns = state->signal_ns;
    event->start_ns = state->start_ns;
    event->end_ns = state->end_ns;
    zf_context *context = p->pool->context;
    event->timestamp_device = context->num_devices > 0 ? context->devices[0] : NULL;
    event->signaled = true; /* last: see zf_event */
}

/* Without the execution lock: copies every slot (a consistent picture, under the shared mutex). */
static void zf_take_snapshot(zf_ipc_pool *p) {
    zf_shared_lock(p->shared);
    for (uint32_t i = 0; i < p->pool->count; i++) {
        const zf_shared_slot *slot = &p->shared->slots[i];
        p->snapshot[i] =
            (zf_event_state){slot->generation, slot->signaled != 0, slot->signal_ns, slot->start_ns, slot->end_ns};
    }
    zf_shared_unlock(p->shared);
}

static bool zf_apply_newer(zf_ipc_pool *p) {
    bool changed = false;
    for (uint32_t i = 0; i < p->pool->count; i++) {
        if (p->snapshot[i].generation > p->known[i].generation) {
            zf_apply(p, i, &p->snapshot[i]);
            changed = true;
        }
    }
    return changed;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Threads */

static void *zf_watcher_main(void *arg) {
    zf_ipc_pool *p = arg;
    while (!atomic_load(&p->stop)) {
        uint32_t bell = atomic_load(&p->shared->doorbell);
        zf_take_snapshot(p);
        zf_sync_lock();
        if (zf_apply_newer(p))
            zf_sync_broadcast();
        zf_sync_unlock();
        if (!atomic_load(&p->stop))
            zf_futex_wait(&p->shared->doorbell, bell); /* returns at once if it rang meanwhile */
    }
    return NULL;
}

static void *zf_agent_main(void *unused) {
    (void)unused;
    zf_sync_lock();
    while (!zf_agent.stop) {
        for (zf_ipc_pool *p = zf_ipc_pools; p != NULL; p = p->next)
            zf_publish_changes(p);
        zf_sync_wait_until(UINT64_MAX); /* every command that signals or resets an event broadcasts */
    }
    zf_sync_unlock();
    return NULL;
}

static ze_result_t zf_agent_start(void) {
    pthread_mutex_lock(&zf_agent.lock);
    bool ok = zf_agent.running;
    if (!ok) {
        zf_agent.stop = false;
        ok = zf_agent.running = zf_spawn(&zf_agent.thread, zf_agent_main, NULL);
    }
    pthread_mutex_unlock(&zf_agent.lock);
    return ok ? ZE_RESULT_SUCCESS : zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "cannot start the event IPC agent");
}

/* Stops the agent once no pool is shared any more. */
static void zf_agent_stop_if_idle(void) {
    pthread_mutex_lock(&zf_agent.lock);
    zf_sync_lock();
    bool stop = zf_agent.running && zf_ipc_pools == NULL;
    if (stop) {
        zf_agent.stop = true;
        zf_sync_broadcast();
    }
    zf_sync_unlock();
    if (stop) {
        pthread_join(zf_agent.thread, NULL);
        zf_agent.running = false;
    }
    pthread_mutex_unlock(&zf_agent.lock);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Shared pools of this process */

/* The exporter's pool stops being shared: its handle opens nothing any more, through the server or a descriptor. */
static void zf_ipc_pool_unshare(zf_ipc_pool *p) {
    zf_ipc_unshare_fd(p->ticket.id);
    zf_shared_lock(p->shared);
    memset(&p->shared->seal, 0, sizeof p->shared->seal);
    zf_shared_unlock(p->shared);
}

static void zf_ipc_pool_free(zf_ipc_pool *p) {
    if (p->exported)
        zf_ipc_pool_unshare(p);
    if (p->shared != NULL)
        munmap(p->shared, p->size);
    if (p->fd >= 0)
        close(p->fd);
    free(p->known);
    free(p->snapshot);
    free(p->attached);
    free(p);
}

static zf_ipc_pool *zf_ipc_pool_new(zf_event_pool *pool, int fd, size_t size, zf_shared_pool *shared) {
    zf_ipc_pool *p = calloc(1, sizeof *p);
    if (p == NULL)
        return NULL;
    p->pool = pool;
    p->fd = fd;
    p->size = size;
    p->shared = shared;
    p->known = calloc(pool->count > 0 ? pool->count : 1, sizeof *p->known);
    p->snapshot = calloc(pool->count > 0 ? pool->count : 1, sizeof *p->snapshot);
    p->attached = calloc(pool->count > 0 ? pool->count : 1, sizeof *p->attached);
    atomic_init(&p->stop, false);
    if (p->known == NULL || p->snapshot == NULL || p->attached == NULL) {
        free(p->known);
        free(p->snapshot);
        free(p->attached);
        free(p);
        return NULL;
    }
    return p;
}

/* Starts mirroring: the watcher, the agent, and the pool joins the list. On failure the caller still owns p. */
static ze_result_t zf_ipc_pool_attach(zf_ipc_pool *p) {
    ze_result_t result = zf_agent_start();
    if (result != ZE_RESULT_SUCCESS)
        return result;
    if (!zf_spawn(&p->watcher, zf_watcher_main, p)) {
        zf_agent_stop_if_idle();
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "cannot start the event pool's watcher thread");
    }
    zf_sync_lock();
    p->next = zf_ipc_pools;
    zf_ipc_pools = p;
    atomic_fetch_add(&zf_ipc_pool_count, 1);
    for (uint32_t i = 0; i < p->pool->count; i++)
        p->attached[i] = p->pool->events[i]; /* events created before the pool was shared... */
    zf_publish_changes(p);                   /* ...and what happened to them */
    zf_sync_unlock();
    return ZE_RESULT_SUCCESS;
}

/* Stops mirroring and frees the shared state (the pool object itself is the caller's). */
static void zf_ipc_pool_detach(zf_ipc_pool *p) {
    zf_sync_lock();
    for (zf_ipc_pool **link = &zf_ipc_pools; *link != NULL; link = &(*link)->next) {
        if (*link == p) {
            *link = p->next;
            break;
        }
    }
    atomic_fetch_sub(&zf_ipc_pool_count, 1);
    zf_sync_unlock();
    atomic_store(&p->stop, true);
    atomic_fetch_add(&p->shared->doorbell, 1); /* other processes see a spurious ring, which is harmless */
    zf_futex_wake(&p->shared->doorbell);
    pthread_join(p->watcher, NULL);
    zf_agent_stop_if_idle();
    zf_ipc_pool_free(p);
}

static zf_ipc_pool *zf_ipc_lookup(const zf_event_pool *pool) {
    zf_sync_lock();
    zf_ipc_pool *p = zf_ipc_find(pool);
    zf_sync_unlock();
    return p;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Hooks of event.c */

ze_result_t zf_event_ipc_pool_destroy(zf_event_pool *pool) {
    if (atomic_load_explicit(&zf_ipc_pool_count, memory_order_relaxed) == 0)
        return ZE_RESULT_SUCCESS;
    zf_ipc_pool *p = zf_ipc_lookup(pool);
    if (p != NULL && p->opened)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                       "the pool was opened from an IPC handle: close it with zeEventPoolCloseIpcHandle");
    if (p != NULL)
        zf_ipc_pool_detach(p);
    return ZE_RESULT_SUCCESS;
}

void zf_event_ipc_event_created(zf_event *event) {
    if (atomic_load_explicit(&zf_ipc_pool_count, memory_order_relaxed) == 0)
        return;
    zf_sync_lock();
    zf_ipc_pool *p = zf_ipc_find(event->pool);
    if (p != NULL) {
        /* Read under the execution lock too: the slot is then at least as new as what the watcher last applied,
         * also when it applied that before the event was in its pool's table. */
        zf_shared_lock(p->shared);
        const zf_shared_slot *slot = &p->shared->slots[event->index];
        zf_event_state state = {slot->generation, slot->signaled != 0, slot->signal_ns, slot->start_ns, slot->end_ns};
        zf_shared_unlock(p->shared);
        zf_apply(p, event->index, &state);
        p->attached[event->index] = event; /* from now on its changes are published */
    }
    zf_sync_unlock();
}

void zf_event_ipc_event_destroyed(zf_event *event) {
    if (atomic_load_explicit(&zf_ipc_pool_count, memory_order_relaxed) == 0)
        return;
    zf_sync_lock();
    zf_ipc_pool *p = zf_ipc_find(event->pool);
    if (p != NULL && p->attached[event->index] == event)
        p->attached[event->index] = NULL; /* a later event at this address must attach anew */
    zf_sync_unlock();
}

void zf_event_ipc_host_changed(zf_event *event) {
    if (atomic_load_explicit(&zf_ipc_pool_count, memory_order_relaxed) == 0)
        return;
    zf_ipc_pool *p = zf_ipc_find(event->pool);
    if (p != NULL)
        zf_publish(p, event->index, zf_local_state(event));
}

/* ------------------------------------------------------------------------------------------------------------------
 * Export */

static zf_event_ipc_handle zf_seal_of(const zf_event_ipc_handle *handle) {
    zf_event_ipc_handle seal = *handle;
    seal.fd = 0;
    return seal;
}

static ze_result_t zf_shared_create(const zf_event_pool *pool, int *fd, size_t *size, zf_shared_pool **shared) {
    *size = zf_shared_size(pool->count);
    *fd = memfd_create("zefake-event-pool", MFD_CLOEXEC);
    if (*fd < 0 || ftruncate(*fd, (off_t)*size) != 0) {
        int error = errno;
        if (*fd >= 0)
            close(*fd);
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "cannot create the pool's shared memory: %s",
                       strerror(error));
    }
    *shared = mmap(NULL, *size, PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0);
    if (*shared == MAP_FAILED) {
        int error = errno;
        close(*fd);
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "cannot map the pool's shared memory: %s", strerror(error));
    }
    memcpy((*shared)->magic, ZF_EVENT_SHARED_MAGIC, sizeof(*shared)->magic);
    (*shared)->count = pool->count;
    (*shared)->flags = pool->flags;
    pthread_mutexattr_t attr;
    pthread_mutexattr_init(&attr);
    pthread_mutexattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
    pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST);
    pthread_mutex_init(&(*shared)->lock, &attr);
    pthread_mutexattr_destroy(&attr);
    return ZE_RESULT_SUCCESS;
}

/* The pool's shared state, created (and the pool shared through the IPC server) on its first export. */
static ze_result_t zf_ipc_export(zf_event_pool *pool, zf_ipc_pool **out) {
    *out = zf_ipc_lookup(pool);
    if (*out != NULL && (*out)->exported)
        return ZE_RESULT_SUCCESS; /* later exports give the same handle */
    zf_ipc_pool *p = *out;
    if (p == NULL) {
        int fd = -1;
        size_t size = 0;
        zf_shared_pool *shared = NULL;
        ze_result_t result = zf_shared_create(pool, &fd, &size, &shared);
        if (result != ZE_RESULT_SUCCESS)
            return result;
        p = zf_ipc_pool_new(pool, fd, size, shared);
        if (p == NULL) {
            munmap(shared, size);
            close(fd);
            return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory to share an event pool");
        }
        result = zf_ipc_pool_attach(p);
        if (result != ZE_RESULT_SUCCESS) {
            zf_ipc_pool_free(p);
            return result;
        }
    }
    ze_result_t result = zf_ipc_share_fd(p->fd, p->size, &p->ticket);
    p->exported = result == ZE_RESULT_SUCCESS;
    *out = p;
    return result;
}

ze_result_t zfi_zeEventPoolGetIpcHandle(ze_event_pool_handle_t hEventPool, ze_ipc_event_pool_handle_t *phIpc) {
    zf_event_pool *pool = (zf_event_pool *)hEventPool;
    if (!(pool->flags & ZE_EVENT_POOL_FLAG_IPC))
        return zf_fail(ZE_RESULT_ERROR_INVALID_SYNCHRONIZATION_OBJECT,
                       "the event pool was not created with ZE_EVENT_POOL_FLAG_IPC");
    zf_ipc_pool *p = NULL;
    ze_result_t result = zf_ipc_export(pool, &p);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    zf_sync_lock();
    p->gets++;
    zf_sync_unlock();
    /* The descriptor stays open until the pool is destroyed. */
    zf_event_ipc_handle handle = {
        .fd = p->fd, .pid = p->ticket.pid, .count = pool->count, .nonce = p->ticket.nonce, .id = p->ticket.id};
    handle.flags = pool->flags;
    memcpy(handle.magic, ZF_EVENT_IPC_MAGIC, sizeof handle.magic);
    memcpy(handle.token, p->ticket.token, sizeof handle.token);
    zf_event_ipc_handle seal = zf_seal_of(&handle);
    zf_shared_lock(p->shared);
    p->shared->seal = seal; /* the same bytes at every export */
    zf_shared_unlock(p->shared);
    memcpy(phIpc->data, &handle, sizeof handle);
    return ZE_RESULT_SUCCESS;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Open and close */

static ze_result_t zf_parse_handle(const ze_ipc_event_pool_handle_t *raw, zf_event_ipc_handle *handle) {
    memcpy(handle, raw->data, sizeof *handle);
    if (memcmp(handle->magic, ZF_EVENT_IPC_MAGIC, sizeof handle->magic) != 0 || handle->reserved != 0 ||
        handle->fd_high != 0 || handle->count == 0 || handle->pid == 0 || handle->pid > INT32_MAX)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "hIpc: not an IPC event pool handle issued by zefake");
    /* Only a pool created with ZE_EVENT_POOL_FLAG_IPC has a handle, and only the header's flags exist. */
    uint32_t known = ZE_EVENT_POOL_FLAG_HOST_VISIBLE | ZE_EVENT_POOL_FLAG_IPC | ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP;
#if ZF_L0_AT_LEAST(6)
    known |= ZE_EVENT_POOL_FLAG_KERNEL_MAPPED_TIMESTAMP;
#endif
    if (!(handle->flags & ZE_EVENT_POOL_FLAG_IPC) || (handle->flags & ~known) != 0)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                       "hIpc: flags 0x%x are not those of an event pool created with ZE_EVENT_POOL_FLAG_IPC",
                       handle->flags);
    return ZE_RESULT_SUCCESS;
}

/* Maps a memfd and checks that it is the pool the handle describes, sealed with that very handle (the seal is no
 * secret from whoever maps the memory: a plain comparison). NULL, or why it is not. */
static const char *zf_map_sealed(int fd, const zf_event_ipc_handle *handle, zf_shared_pool **out) {
    size_t size = zf_shared_size(handle->count);
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size != size)
        return "its size is not that of the pool the handle describes";
    zf_shared_pool *shared = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (shared == MAP_FAILED)
        return "it cannot be mapped for reading and writing";
    zf_event_ipc_handle seal = zf_seal_of(handle);
    if (memcmp(shared->magic, ZF_EVENT_SHARED_MAGIC, sizeof shared->magic) != 0 || shared->count != handle->count ||
        shared->flags != handle->flags || memcmp(&shared->seal, &seal, sizeof seal) != 0) {
        munmap(shared, size);
        return "it is not the pool the handle names, or that pool was destroyed";
    }
    *out = shared;
    return NULL;
}

/* In another process than the exporter, a handle whose first bytes hold a descriptor of the pool's memory (received
 * with SCM_RIGHTS, or inherited) opens without the server; the pool gets a descriptor of its own (the application
 * keeps its one). The exporter itself asks its server, so that destroying the pool revokes at once. */
static bool zf_adopt_fd(const zf_event_ipc_handle *handle, int *fd, zf_shared_pool **shared) {
    if (handle->pid == (uint32_t)getpid() || handle->fd < 0)
        return false;
    const char *why = zf_map_sealed(handle->fd, handle, shared);
    *fd = why == NULL ? fcntl(handle->fd, F_DUPFD_CLOEXEC, 0) : -1;
    if (why == NULL && *fd < 0) {
        munmap(*shared, zf_shared_size(handle->count));
        why = "it cannot be duplicated";
    }
    if (why != NULL)
        zf_log(ZF_LOG_DEBUG, "IPC: descriptor %d of the event pool handle not used (%s): asking process %u", handle->fd,
               why, handle->pid);
    return why == NULL;
}

/* Asks the exporter's server for the pool's memory and maps it. */
static ze_result_t zf_fetch(const zf_event_ipc_handle *handle, int *fd, zf_shared_pool **shared) {
    zf_ipc_ticket ticket = {handle->pid, handle->nonce, handle->id, zf_shared_size(handle->count), {0}};
    memcpy(ticket.token, handle->token, sizeof ticket.token);
    ze_result_t result = zf_ipc_fetch_shared(&ticket, fd);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    const char *why = zf_map_sealed(*fd, handle, shared);
    if (why != NULL) {
        close(*fd);
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "hIpc: the memory its exporter sent: %s", why);
    }
    return ZE_RESULT_SUCCESS;
}

static zf_event_pool *zf_opened_pool_new(zf_context *context, const zf_event_ipc_handle *handle) {
    zf_event_pool *pool = calloc(1, sizeof *pool);
    if (pool == NULL)
        return NULL;
    pool->events = calloc(handle->count, sizeof *pool->events);
    if (pool->events == NULL) {
        free(pool);
        return NULL;
    }
    pool->context = context;
    pool->flags = handle->flags;
    pool->count = handle->count;
    atomic_init(&pool->refs, 1); /* never dropped: zeEventPoolCloseIpcHandle frees the pool and its events */
    return pool;
}

/* Makes the pool object of an opened handle; owns fd and the mapping from here on, also when it fails. */
static ze_result_t zf_open(zf_context *context, const zf_event_ipc_handle *handle, int fd, zf_shared_pool *shared,
                           ze_event_pool_handle_t *out) {
    zf_event_pool *pool = zf_opened_pool_new(context, handle);
    zf_ipc_pool *p = pool != NULL ? zf_ipc_pool_new(pool, fd, zf_shared_size(handle->count), shared) : NULL;
    if (p == NULL) {
        munmap(shared, zf_shared_size(handle->count));
        close(fd);
        free(pool != NULL ? pool->events : NULL);
        free(pool);
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory for an opened event pool");
    }
    p->opened = true;
    if (!zf_object_register(&pool->header, ZF_OBJ_ZE_EVENT_POOL, &context->header)) {
        zf_ipc_pool_free(p);
        free(pool->events);
        free(pool);
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory to register an event pool");
    }
    ze_result_t result = zf_ipc_pool_attach(p);
    if (result != ZE_RESULT_SUCCESS) {
        zf_ipc_pool_free(p);
        free(pool->events);
        zf_object_retire(&pool->header);
        return result;
    }
    *out = (ze_event_pool_handle_t)pool;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zeEventPoolOpenIpcHandle(ze_context_handle_t hContext, ze_ipc_event_pool_handle_t hIpc,
                                         ze_event_pool_handle_t *phEventPool) {
    zf_event_ipc_handle handle;
    ze_result_t result = zf_parse_handle(&hIpc, &handle);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    int fd = -1;
    zf_shared_pool *shared = NULL;
    if (!zf_adopt_fd(&handle, &fd, &shared)) {
        result = zf_fetch(&handle, &fd, &shared);
        if (result != ZE_RESULT_SUCCESS)
            return result;
    }
    return zf_open(zf_context_from(hContext), &handle, fd, shared, phEventPool);
}

/* Destroys the events still alive in an opened pool, as zeEventPoolCloseIpcHandle does. */
static void zf_destroy_events(zf_event_pool *pool) {
    for (uint32_t i = 0; i < pool->count; i++) {
        zf_sync_lock();
        zf_event *event = pool->events[i];
        pool->events[i] = NULL;
        zf_sync_unlock();
        if (event != NULL)
            zf_object_retire(&event->header);
    }
}

ze_result_t zfi_zeEventPoolCloseIpcHandle(ze_event_pool_handle_t hEventPool) {
    zf_event_pool *pool = (zf_event_pool *)hEventPool;
    zf_ipc_pool *p = zf_ipc_lookup(pool);
    if (p == NULL || !p->opened)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                       "the pool was not opened from an IPC handle: destroy it with zeEventPoolDestroy");
    zf_object_unregister(&pool->header);
    zf_ipc_pool_detach(p);
    zf_destroy_events(pool);
    free(pool->events);
    zf_object_retire(&pool->header);
    return ZE_RESULT_SUCCESS;
}

#if ZF_L0_AT_LEAST(6)
/* The exported pool of this process a handle names, or NULL; with the execution lock held. */
static zf_ipc_pool *zf_ipc_find_export(const zf_event_ipc_handle *handle) {
    for (zf_ipc_pool *p = zf_ipc_pools; p != NULL; p = p->next)
        if (!p->opened && p->exported && p->ticket.id == handle->id &&
            memcmp(p->ticket.token, handle->token, sizeof handle->token) == 0)
            return p;
    return NULL;
}

/* When every handle of a pool is put, the pool stops being served to importers that ask the exporter's server (the
 * exporter itself among them): another process that received the handle's descriptor still opens it (the seal stays),
 * as with Intel's driver, whose put closes only the exporter's descriptor. A later zeEventPoolGetIpcHandle shares the
 * pool again, under a new handle. A handle the driver did not issue, or one put already, changes nothing and succeeds,
 * as there (docs/tolerances.md). */
ze_result_t zfi_zeEventPoolPutIpcHandle(ze_context_handle_t hContext, ze_ipc_event_pool_handle_t hIpc) {
    (void)hContext;
    zf_event_ipc_handle handle;
    ze_result_t result = zf_parse_handle(&hIpc, &handle);
    if (result == ZE_RESULT_SUCCESS && handle.pid != (uint32_t)getpid())
        result = zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "hIpc: issued by process %u, not by this one", handle.pid);
    bool unshare = false;
    uint64_t id = 0;
    if (result == ZE_RESULT_SUCCESS) {
        zf_sync_lock();
        zf_ipc_pool *p = zf_ipc_find_export(&handle);
        if (p != NULL && --p->gets == 0) {
            p->exported = false;
            unshare = true;
            id = p->ticket.id;
        }
        zf_sync_unlock();
        if (p == NULL)
            result = zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                             "hIpc: its pool was destroyed, or every zeEventPoolGetIpcHandle of it was put already");
    }
    if (unshare)
        zf_ipc_unshare_fd(id);
    if (result == ZE_RESULT_SUCCESS || zf_strict())
        return result;
    zf_tolerate("hIpc is an IPC event pool handle the driver issued and has not taken back", "nothing was released");
    return ZE_RESULT_SUCCESS;
}
#endif
