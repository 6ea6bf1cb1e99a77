/* IPC memory handles: zeMemGetIpcHandle, zeMemOpenIpcHandle, zeMemCloseIpcHandle.
 *
 * A handle starts with a file descriptor, as the handles of Intel's driver do: the exporter's descriptor of the
 * allocation's memfd, which applications and MPI-style transports pass to the other process with SCM_RIGHTS, writing
 * the descriptor they received into the same bytes. The rest names the exporter (pid and server nonce), the
 * allocation (id and size) and a random 128-bit token issued at the first export.
 *
 * Opening in another process first tries the descriptor in the handle: it must be a memfd that ends with the
 * handle's "seal" (the handle as issued, descriptor bytes zeroed, written past the allocation's pages at export), so
 * a descriptor of other memory or a handle with any other byte changed is not taken. Otherwise the importer asks the
 * exporter's server: the first export of a process starts a thread listening on an abstract unix socket named after
 * the process id and a random nonce; it hands the allocation's memfd (SCM_RIGHTS) only to a peer of the same user
 * that presents the id with its exact token. Either way the importer maps the memfd: both processes share the
 * pages. Freeing an allocation revokes its token; mappings already opened elsewhere stay valid, as with any shared
 * memory (docs/memory.md). */
#include "core/zf_core.h"
#include "memory/memory_internal.h"
#include "zefake/zefake_ext.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define ZF_IPC_MAGIC      ZEFAKE_IPC_MAGIC             /* bytes 8..15 of every handle zefake issues */
#define ZF_IPC_WIRE_MAGIC UINT64_C(0x31637069666b667a) /* first word of every request and reply */
#define ZF_IPC_TIMEOUT_S  5                            /* a peer that neither sends nor reads is dropped after this */
#define ZF_IPC_BACKLOG    16

/* The 64 bytes of ze_ipc_mem_handle_t as zefake fills them: the published layout (zefake/zefake_ext.h). */
typedef zefake_ipc_mem_handle_layout_t zf_ipc_handle_data;
_Static_assert(ZEFAKE_IPC_TOKEN_SIZE == ZF_IPC_TOKEN_SIZE, "the token of the published layout is the allocation's");
_Static_assert(ZF_ARENA_GRANULE == 4096, "the published layout counts offsets in 4 KiB pages");
_Static_assert(sizeof(zf_ipc_handle_data) == ZE_MAX_IPC_HANDLE_SIZE, "an IPC handle is 64 bytes");

/* The seal: the handle with its descriptor bytes zeroed, written into the memfd where no mapping reaches: right after
 * the allocation's pages (at map_size) in a memfd of its own; in an arena, in the allocation's slot of the seal table
 * past the arena's pages (zf_arena_seal_offset), followed by the allocation's map_size (8 bytes). */
#define ZF_IPC_SEAL_SIZE sizeof(zf_ipc_handle_data)

typedef struct zf_ipc_request {
    uint64_t magic;
    uint64_t id;
    uint8_t token[ZF_IPC_TOKEN_SIZE];
} zf_ipc_request;

typedef struct zf_ipc_reply {
    uint64_t magic;
    uint32_t granted; /* 1: the memfd comes with this reply */
    uint32_t reserved;
    uint64_t size;
    uint64_t map_size;
    uint64_t offset; /* where the allocation's pages start in the memfd */
} zf_ipc_reply;

/* The server of this process. `pid` tells a forked child (which has no server thread) from its parent. */
static struct {
    pthread_mutex_t lock;
    bool running;
    bool atfork_registered;
    pid_t pid;
    uint64_t nonce;
    int listen_fd;
    int stop_fd; /* an eventfd: written to stop the thread */
    pthread_t thread;
} zf_ipc = {.lock = PTHREAD_MUTEX_INITIALIZER, .listen_fd = -1, .stop_fd = -1};

static bool zf_ipc_random(void *buffer, size_t size) {
    size_t done = 0;
    while (done < size) {
        ssize_t n = getrandom((char *)buffer + done, size - done, 0);
        if (n < 0 && errno != EINTR)
            return false;
        if (n > 0)
            done += (size_t)n;
    }
    return true;
}

/* The socket of (pid, nonce), in the abstract namespace: no file to clean up, gone with the process. */
static socklen_t zf_ipc_address(uint32_t pid, uint64_t nonce, struct sockaddr_un *address) {
    memset(address, 0, sizeof *address);
    address->sun_family = AF_UNIX;
    int n = snprintf(address->sun_path + 1, sizeof address->sun_path - 1, "zefake-ipc-%u-%016llx", pid,
                     (unsigned long long)nonce);
    return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
}

static void zf_ipc_set_timeouts(int fd) {
    struct timeval timeout = {ZF_IPC_TIMEOUT_S, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
}

static bool zf_ipc_peer(int fd, struct ucred *credentials) {
    socklen_t length = sizeof *credentials;
    return getsockopt(fd, SOL_SOCKET, SO_PEERCRED, credentials, &length) == 0 && length == sizeof *credentials;
}

/* Descriptors of objects that are not allocations (event pools), shared through the same server. Guarded by their
 * own lock; ids come from the allocation ids, so they never name an allocation. */
typedef struct zf_ipc_shared {
    uint64_t id;
    uint8_t token[ZF_IPC_TOKEN_SIZE];
    int fd;
    uint64_t size;
} zf_ipc_shared;

static pthread_mutex_t zf_shared_lock = PTHREAD_MUTEX_INITIALIZER;
static zf_ipc_shared *zf_shared;
static size_t zf_num_shared;

/* ---- the server ---- */

static void zf_ipc_send_fd(int conn, const zf_ipc_reply *reply, int fd) {
    struct iovec iov = {(void *)reply, sizeof *reply};
    union {
        struct cmsghdr header;
        char bytes[CMSG_SPACE(sizeof(int))];
    } control;
    memset(&control, 0, sizeof control);
    struct msghdr message = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.bytes, .msg_controllen = sizeof control.bytes};
    struct cmsghdr *cmsg = CMSG_FIRSTHDR(&message);
    cmsg->cmsg_level = SOL_SOCKET;
    cmsg->cmsg_type = SCM_RIGHTS;
    cmsg->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(cmsg), &fd, sizeof fd);
    if (sendmsg(conn, &message, MSG_NOSIGNAL) < 0)
        zf_log(ZF_LOG_DEBUG, "IPC server: cannot send a memfd to an importer: %s", strerror(errno));
}

/* Compares secrets in constant time. */
static bool zf_bytes_match(const void *a, const void *b, size_t size) {
    const uint8_t *x = a, *y = b;
    uint8_t difference = 0;
    for (size_t i = 0; i < size; i++)
        difference |= (uint8_t)(x[i] ^ y[i]);
    return difference == 0;
}

/* A new descriptor of the shared object the request names with its token (the reply is filled), or -1. */
static int zf_ipc_lookup_shared(const zf_ipc_request *request, zf_ipc_reply *reply) {
    int fd = -1;
    pthread_mutex_lock(&zf_shared_lock);
    for (size_t i = 0; i < zf_num_shared && fd < 0; i++) {
        if (zf_shared[i].id != request->id || !zf_bytes_match(zf_shared[i].token, request->token, ZF_IPC_TOKEN_SIZE))
            continue;
        fd = fcntl(zf_shared[i].fd, F_DUPFD_CLOEXEC, 0); /* it stays valid if the object is unshared meanwhile */
        reply->granted = fd >= 0;
        reply->size = reply->map_size = zf_shared[i].size;
    }
    pthread_mutex_unlock(&zf_shared_lock);
    return fd;
}

/* Reads one request (waiting on the connection, poll said) and answers it: the memfd when the request names an
 * exported allocation with its token and comes from the same user (or root); a refusal otherwise. */
static void zf_ipc_answer(int conn) {
    zf_ipc_request request;
    ssize_t n = recv(conn, &request, sizeof request, MSG_TRUNC); /* MSG_TRUNC: the real length of the message */
    struct ucred peer;
    zf_mem_block *block = NULL;
    bool well_formed = n == (ssize_t)sizeof request && request.magic == ZF_IPC_WIRE_MAGIC;
    bool trusted = well_formed && zf_ipc_peer(conn, &peer) && (peer.uid == geteuid() || peer.uid == 0);
    if (trusted)
        block = zf_index_lookup_export(request.id, request.token);
    zf_ipc_reply reply = {ZF_IPC_WIRE_MAGIC, 0, 0, 0, 0, 0};
    int shared_fd = -1;
    if (block == NULL && trusted)
        shared_fd = zf_ipc_lookup_shared(&request, &reply);
    if (shared_fd >= 0) {
        zf_ipc_send_fd(conn, &reply, shared_fd);
        close(shared_fd);
        return;
    }
    if (block == NULL) {
        zf_log(ZF_LOG_DEBUG, "IPC server: refused a request (%s)",
               well_formed ? "no exported allocation with that id and token, or another user" : "malformed");
        send(conn, &reply, sizeof reply, MSG_NOSIGNAL);
        return;
    }
    reply.granted = 1;
    reply.size = block->info.size;
    reply.map_size = block->map_size;
    reply.offset = block->offset;
    zf_ipc_send_fd(conn, &reply, block->fd); /* the reference keeps the fd open meanwhile */
    zf_block_unref(block);
}

/* The server's open connections. Each is answered when its request arrives, in whatever order they come, and
 * dropped ZF_IPC_TIMEOUT_S after it was accepted: a peer that connects and sends nothing delays no other importer.
 * With ZF_IPC_CONNECTIONS open, a new one replaces the oldest. */
#define ZF_IPC_CONNECTIONS 64

typedef struct zf_ipc_conns {
    int fd[ZF_IPC_CONNECTIONS];
    uint64_t deadline_ms[ZF_IPC_CONNECTIONS];
    unsigned n;
} zf_ipc_conns;

static uint64_t zf_ipc_now_ms(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000u + (uint64_t)now.tv_nsec / 1000000u;
}

static void zf_ipc_drop(zf_ipc_conns *c, unsigned i) {
    close(c->fd[i]);
    c->n--;
    c->fd[i] = c->fd[c->n];
    c->deadline_ms[i] = c->deadline_ms[c->n];
}

static void zf_ipc_add(zf_ipc_conns *c, int fd) {
    if (c->n == ZF_IPC_CONNECTIONS) {
        unsigned oldest = 0;
        for (unsigned i = 1; i < c->n; i++)
            oldest = c->deadline_ms[i] < c->deadline_ms[oldest] ? i : oldest;
        zf_log(ZF_LOG_DEBUG, "IPC server: %u connections open: the oldest is dropped", c->n);
        zf_ipc_drop(c, oldest);
    }
    c->fd[c->n] = fd;
    c->deadline_ms[c->n++] = zf_ipc_now_ms() + ZF_IPC_TIMEOUT_S * 1000u;
}

/* poll's timeout: until the nearest deadline, or none. */
static int zf_ipc_poll_ms(const zf_ipc_conns *c) {
    if (c->n == 0)
        return -1;
    uint64_t nearest = UINT64_MAX, now = zf_ipc_now_ms();
    for (unsigned i = 0; i < c->n; i++)
        nearest = c->deadline_ms[i] < nearest ? c->deadline_ms[i] : nearest;
    return nearest <= now ? 0 : (int)(nearest - now);
}

/* Answers the connections with a request (or a hang-up) and drops those past their deadline; from the end, so that
 * a drop (which moves the last connection into its place) never skips one. */
static void zf_ipc_serve_conns(zf_ipc_conns *c, const struct pollfd *fds) {
    uint64_t now = zf_ipc_now_ms();
    for (unsigned i = c->n; i-- > 0;) {
        if (fds[i].revents != 0) {
            zf_ipc_answer(c->fd[i]);
            zf_ipc_drop(c, i);
        } else if (c->deadline_ms[i] <= now) {
            zf_log(ZF_LOG_DEBUG, "IPC server: a peer sent no request within %d s: dropped", ZF_IPC_TIMEOUT_S);
            zf_ipc_drop(c, i);
        }
    }
}

static void *zf_ipc_serve(void *unused) {
    (void)unused;
    const int listen_fd = zf_ipc.listen_fd, stop_fd = zf_ipc.stop_fd; /* fixed while the thread runs */
    zf_ipc_conns conns = {.n = 0};
    for (;;) {
        struct pollfd fds[ZF_IPC_CONNECTIONS + 2];
        for (unsigned i = 0; i < conns.n; i++)
            fds[i] = (struct pollfd){conns.fd[i], POLLIN, 0};
        fds[conns.n] = (struct pollfd){listen_fd, POLLIN, 0};
        fds[conns.n + 1] = (struct pollfd){stop_fd, POLLIN, 0};
        if (poll(fds, conns.n + 2, zf_ipc_poll_ms(&conns)) < 0) {
            if (errno == EINTR)
                continue;
            zf_log(ZF_LOG_WARN, "IPC server: the server stops: poll: %s", strerror(errno));
            break;
        }
        if (fds[conns.n + 1].revents != 0)
            break;
        if (fds[conns.n].revents & (POLLERR | POLLHUP | POLLNVAL)) {
            zf_log(ZF_LOG_WARN, "IPC server: the server stops: its socket failed");
            break;
        }
        bool incoming = (fds[conns.n].revents & POLLIN) != 0;
        zf_ipc_serve_conns(&conns, fds);
        int conn = incoming ? accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK) : -1;
        if (conn >= 0)
            zf_ipc_add(&conns, conn);
    }
    while (conns.n > 0)
        zf_ipc_drop(&conns, conns.n - 1);
    return NULL;
}

/* A forked child inherits the parent's memory but not its server thread: it starts its own on its first export. */
static void zf_ipc_before_fork(void) {
    pthread_mutex_lock(&zf_ipc.lock);
}

static void zf_ipc_after_fork_parent(void) {
    pthread_mutex_unlock(&zf_ipc.lock);
}

static void zf_ipc_after_fork_child(void) {
    if (zf_ipc.running) {
        close(zf_ipc.listen_fd);
        close(zf_ipc.stop_fd);
        zf_ipc.listen_fd = zf_ipc.stop_fd = -1;
        zf_ipc.running = false;
    }
    pthread_mutex_unlock(&zf_ipc.lock);
}

static ze_result_t zf_ipc_listen(uint64_t nonce, int *out) {
    int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "cannot create the IPC server socket: %s", strerror(errno));
    struct sockaddr_un address;
    socklen_t length = zf_ipc_address((uint32_t)getpid(), nonce, &address);
    if (bind(fd, (struct sockaddr *)&address, length) != 0 || listen(fd, ZF_IPC_BACKLOG) != 0) {
        int error = errno;
        close(fd);
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "cannot listen on the IPC server socket: %s",
                       strerror(error));
    }
    *out = fd;
    return ZE_RESULT_SUCCESS;
}

/* The server thread takes no signal: they stay with the application's threads. */
static bool zf_ipc_spawn(void) {
    sigset_t all, previous;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &previous);
    bool spawned = pthread_create(&zf_ipc.thread, NULL, zf_ipc_serve, NULL) == 0;
    pthread_sigmask(SIG_SETMASK, &previous, NULL);
    return spawned;
}

static ze_result_t zf_ipc_start_locked(void) {
    if (zf_ipc.running)
        return ZE_RESULT_SUCCESS;
    uint64_t nonce;
    if (!zf_ipc_random(&nonce, sizeof nonce))
        return zf_fail(ZE_RESULT_ERROR_UNKNOWN, "getrandom: %s", strerror(errno));
    ze_result_t result = zf_ipc_listen(nonce, &zf_ipc.listen_fd);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    zf_ipc.stop_fd = eventfd(0, EFD_CLOEXEC);
    if (zf_ipc.stop_fd < 0 || !zf_ipc_spawn()) {
        int error = errno;
        close(zf_ipc.listen_fd);
        if (zf_ipc.stop_fd >= 0)
            close(zf_ipc.stop_fd);
        zf_ipc.listen_fd = zf_ipc.stop_fd = -1;
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "cannot start the IPC server thread: %s", strerror(error));
    }
    if (!zf_ipc.atfork_registered)
        zf_ipc.atfork_registered =
            pthread_atfork(zf_ipc_before_fork, zf_ipc_after_fork_parent, zf_ipc_after_fork_child) == 0;
    zf_ipc.pid = getpid();
    zf_ipc.nonce = nonce;
    zf_ipc.running = true;
    zf_log(ZF_LOG_INFO, "IPC server of process %d started", (int)zf_ipc.pid);
    return ZE_RESULT_SUCCESS;
}

/* At library unload (zf_core.c; process exit: the driver is never unmapped earlier), stop the thread and close the
 * socket. An exit racing with an export in another thread leaves the thread to the end of the process instead of
 * waiting. */
void zf_ipc_shutdown(void) {
    if (pthread_mutex_trylock(&zf_ipc.lock) != 0)
        return;
    bool stop = zf_ipc.running && zf_ipc.pid == getpid();
    if (stop) {
        uint64_t one = 1;
        if (write(zf_ipc.stop_fd, &one, sizeof one) != (ssize_t)sizeof one)
            stop = false; /* cannot wake it: leave it to the process's end */
    }
    pthread_mutex_unlock(&zf_ipc.lock);
    if (!stop)
        return;
    pthread_join(zf_ipc.thread, NULL);
    close(zf_ipc.listen_fd);
    close(zf_ipc.stop_fd);
    zf_ipc.listen_fd = zf_ipc.stop_fd = -1;
    zf_ipc.running = false;
}

/* ---- the seal ---- */

static zf_ipc_handle_data zf_ipc_seal_of(const zf_ipc_handle_data *handle) {
    zf_ipc_handle_data seal = *handle;
    seal.fd = 0;
    return seal;
}

/* Whether the driver made the block's memfd, so that it may grow it by a seal: an allocation imported from an
 * external descriptor maps the application's file (device memory charged to nobody, memory.c) and the file of a
 * zefake allocation holds its pages, perhaps already followed by a seal. An arena has room for seals. */
static bool zf_ipc_may_seal(const zf_mem_block *block) {
    struct stat st;
    if (block->arena != NULL)
        return true;
    if (block->info.type == ZE_MEMORY_TYPE_DEVICE && block->charge.root == NULL)
        return false;
    return fstat(block->fd, &st) == 0 && S_ISREG(st.st_mode) &&
           ((uint64_t)st.st_size == block->map_size || (uint64_t)st.st_size == block->map_size + ZF_IPC_SEAL_SIZE);
}

/* Writes the seal where the file of the block keeps it. */
static bool zf_ipc_put_seal(const zf_mem_block *block, const zf_ipc_handle_data *seal) {
    if (block->arena == NULL)
        return pwrite(block->fd, seal, sizeof *seal, (off_t)block->map_size) == (ssize_t)sizeof *seal;
    struct {
        zf_ipc_handle_data seal;
        uint64_t map_size;
    } slot = {*seal, block->map_size};
    return pwrite(block->fd, &slot, sizeof slot, (off_t)zf_arena_seal_offset(block->offset)) == (ssize_t)sizeof slot;
}

/* Writes the seal of a handle. Without it the handle still opens through the server. */
static void zf_ipc_write_seal(const zf_mem_block *block, const zf_ipc_handle_data *handle) {
    zf_ipc_handle_data seal = zf_ipc_seal_of(handle);
    if (!zf_ipc_may_seal(block) || !zf_ipc_put_seal(block, &seal))
        zf_log(ZF_LOG_DEBUG, "IPC: allocation %llu is not sealed: its handle opens through the IPC server only",
               (unsigned long long)handle->id);
}

/* Fills the handle's descriptor (the allocation's memfd, open as long as the allocation's memory) and seals it. */
static ze_result_t zf_ipc_attach_fd(zf_ipc_handle_data *handle) {
    zf_mem_block *block = zf_index_lookup_export(handle->id, handle->token);
    if (block == NULL)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "ptr: the allocation was freed while it was exported");
    handle->fd = block->fd;
    zf_ipc_write_seal(block, handle);
    zf_block_unref(block);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zeMemGetIpcHandle(ze_context_handle_t hContext, const void *ptr, ze_ipc_mem_handle_t *pIpcHandle) {
    uint8_t token[ZF_IPC_TOKEN_SIZE];
    if (!zf_ipc_random(token, sizeof token))
        return zf_fail(ZE_RESULT_ERROR_UNKNOWN, "getrandom: %s", strerror(errno));
    zf_export_info info;
    const char *why = NULL;
    if (!zf_index_export(zf_context_from(hContext), ptr, token, &info, &why))
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "ptr %p cannot be exported: %s", ptr, why);
    pthread_mutex_lock(&zf_ipc.lock);
    ze_result_t result = zf_ipc_start_locked();
    zf_ipc_handle_data handle = {.pid = (uint32_t)zf_ipc.pid,
                                 .offset_pages = (uint32_t)(info.offset / ZF_ARENA_GRANULE),
                                 .nonce = zf_ipc.nonce,
                                 .id = info.id,
                                 .size = info.size};
    pthread_mutex_unlock(&zf_ipc.lock);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    memcpy(handle.magic, ZF_IPC_MAGIC, sizeof handle.magic);
    memcpy(handle.token, info.token, sizeof handle.token);
    result = zf_ipc_attach_fd(&handle);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    memcpy(pIpcHandle->data, &handle, sizeof handle);
    return ZE_RESULT_SUCCESS;
}

/* ---- the importer ---- */

static ze_result_t zf_ipc_connect(const zf_ipc_handle_data *handle, int *out) {
    int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "cannot create a socket: %s", strerror(errno));
    zf_ipc_set_timeouts(fd);
    struct sockaddr_un address;
    socklen_t length = zf_ipc_address(handle->pid, handle->nonce, &address);
    if (connect(fd, (struct sockaddr *)&address, length) != 0) {
        int error = errno;
        close(fd);
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                       "handle: no process %u serves it (%s): the exporter exited, or the handle was altered",
                       handle->pid, strerror(error));
    }
    /* The socket must be the exporter's own, not one that took its name. */
    struct ucred peer;
    if (!zf_ipc_peer(fd, &peer) || peer.pid != (pid_t)handle->pid) {
        close(fd);
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "handle: its socket is not served by process %u", handle->pid);
    }
    *out = fd;
    return ZE_RESULT_SUCCESS;
}

/* The first descriptor passed with `message`; any other is closed. -1 when there is none. */
static int zf_ipc_take_fd(struct msghdr *message) {
    int taken = -1;
    for (struct cmsghdr *cmsg = CMSG_FIRSTHDR(message); cmsg != NULL; cmsg = CMSG_NXTHDR(message, cmsg)) {
        if (cmsg->cmsg_level != SOL_SOCKET || cmsg->cmsg_type != SCM_RIGHTS)
            continue;
        size_t count = (cmsg->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (size_t i = 0; i < count; i++) {
            int fd;
            memcpy(&fd, CMSG_DATA(cmsg) + i * sizeof(int), sizeof fd);
            if (taken < 0)
                taken = fd;
            else
                close(fd);
        }
    }
    return taken;
}

static ze_result_t zf_ipc_receive(int conn, zf_ipc_reply *reply, int *out) {
    struct iovec iov = {reply, sizeof *reply};
    union {
        struct cmsghdr header;
        char bytes[CMSG_SPACE(sizeof(int))];
    } control;
    memset(&control, 0, sizeof control);
    struct msghdr message = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.bytes, .msg_controllen = sizeof control.bytes};
    ssize_t n = recvmsg(conn, &message, MSG_CMSG_CLOEXEC);
    if (n < 0)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "handle: its exporter did not answer: %s", strerror(errno));
    int fd = zf_ipc_take_fd(&message);
    bool well_formed = n == (ssize_t)sizeof *reply && (message.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) == 0 &&
                       reply->magic == ZF_IPC_WIRE_MAGIC;
    if (!well_formed || reply->granted != 1 || fd < 0) {
        if (fd >= 0)
            close(fd);
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "handle: %s",
                       well_formed ? "refused by its exporter: the allocation was freed, or the handle was altered"
                                   : "its exporter sent a malformed answer");
    }
    *out = fd;
    return ZE_RESULT_SUCCESS;
}

/* The memfd must be what the reply and the handle say it is: the allocation's pages, perhaps followed by a seal, or
 * an arena holding them at the handle's offset. */
static bool zf_ipc_fd_matches(int fd, const zf_ipc_reply *reply, const zf_ipc_handle_data *handle) {
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || reply->size != handle->size || reply->size == 0 ||
        reply->size > reply->map_size || reply->map_size > SIZE_MAX ||
        reply->offset != (uint64_t)handle->offset_pages * ZF_ARENA_GRANULE)
        return false;
    if ((uint64_t)st.st_size == ZF_ARENA_FILE_SIZE)
        return reply->offset <= ZF_ARENA_SIZE && reply->map_size <= ZF_ARENA_SIZE - reply->offset;
    return reply->offset == 0 &&
           ((uint64_t)st.st_size == reply->map_size || (uint64_t)st.st_size == reply->map_size + ZF_IPC_SEAL_SIZE);
}

/* Asks the exporter for the memfd of a handle. */
static ze_result_t zf_ipc_fetch(const zf_ipc_handle_data *handle, int *out, zf_ipc_reply *reply) {
    int conn = -1;
    ze_result_t result = zf_ipc_connect(handle, &conn);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    zf_ipc_request request = {ZF_IPC_WIRE_MAGIC, handle->id, {0}};
    memcpy(request.token, handle->token, sizeof request.token);
    if (send(conn, &request, sizeof request, MSG_NOSIGNAL) != (ssize_t)sizeof request) {
        int error = errno;
        close(conn);
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "handle: cannot reach its exporter: %s", strerror(error));
    }
    int fd = -1;
    result = zf_ipc_receive(conn, reply, &fd);
    close(conn);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    if (!zf_ipc_fd_matches(fd, reply, handle)) {
        close(fd);
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "handle: the memory received does not match the handle");
    }
    *out = fd;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t zf_ipc_parse(const ze_ipc_mem_handle_t *raw, zf_ipc_handle_data *handle) {
    memcpy(handle, raw->data, sizeof *handle);
    if (memcmp(handle->magic, ZF_IPC_MAGIC, sizeof handle->magic) != 0 || handle->fd_high != 0 || handle->pid == 0 ||
        handle->pid > INT_MAX || handle->size == 0)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "handle: not an IPC memory handle issued by zefake");
    return ZE_RESULT_SUCCESS;
}

/* Where the seal of a handle is in a file of `file_size` bytes, and the allocation's map_size there; false when the
 * file is neither an arena nor a memfd of its own. */
static bool zf_ipc_seal_place(const zf_ipc_handle_data *handle, uint64_t file_size, uint64_t *seal_at,
                              uint64_t *map_size) {
    uint64_t offset = (uint64_t)handle->offset_pages * ZF_ARENA_GRANULE;
    if (file_size == ZF_ARENA_FILE_SIZE) {
        *seal_at = zf_arena_seal_offset(offset);
        return offset < ZF_ARENA_SIZE &&
               pread(handle->fd, map_size, sizeof *map_size, (off_t)(*seal_at + ZF_IPC_SEAL_SIZE)) ==
                   (ssize_t)sizeof *map_size &&
               *map_size <= ZF_ARENA_SIZE - offset;
    }
    *seal_at = *map_size = file_size - ZF_IPC_SEAL_SIZE;
    return offset == 0 && file_size > ZF_IPC_SEAL_SIZE;
}

/* Why the descriptor in the handle is not the sealed memfd of the allocation the handle names; NULL when it is.
 * *map_size is then the size of its pages. */
static const char *zf_ipc_check_sealed_fd(const zf_ipc_handle_data *handle, uint64_t *map_size) {
    struct stat st;
    uint64_t seal_at = 0;
    if (fstat(handle->fd, &st) != 0 || !S_ISREG(st.st_mode) ||
        !zf_ipc_seal_place(handle, (uint64_t)st.st_size, &seal_at, map_size))
        return "it is not a memfd";
    /* The pages are the size rounded up to the host's or the device's page size. */
    if (*map_size % zf_host_page_size() != 0 || *map_size < handle->size ||
        *map_size - handle->size >= ZF_MEMORY_DEVICE_PAGE_SIZE || *map_size > SIZE_MAX)
        return "its size is not the allocation's";
    zf_ipc_handle_data seal, expected = zf_ipc_seal_of(handle);
    if (pread(handle->fd, &seal, sizeof seal, (off_t)seal_at) != (ssize_t)sizeof seal ||
        !zf_bytes_match(&seal, &expected, sizeof seal))
        return "it does not hold the handle's seal";
    return NULL;
}

/* In another process than the exporter, a handle whose first bytes hold a descriptor of the allocation's memfd (one
 * received with SCM_RIGHTS, or inherited) opens without the server; a new descriptor of it goes to *out (the
 * application keeps its own). The exporter itself always asks its server, so that freeing revokes at once. */
static bool zf_ipc_adopt_fd(const zf_ipc_handle_data *handle, int *out, zf_ipc_reply *reply) {
    if (handle->pid == (uint32_t)getpid() || handle->fd < 0)
        return false;
    uint64_t map_size = 0;
    const char *why = zf_ipc_check_sealed_fd(handle, &map_size);
    int fd = why == NULL ? fcntl(handle->fd, F_DUPFD_CLOEXEC, 0) : -1;
    if (why == NULL && fd < 0)
        why = "it cannot be duplicated";
    if (why != NULL) {
        zf_log(ZF_LOG_DEBUG, "IPC: descriptor %d of the handle not used (%s): asking process %u", handle->fd, why,
               handle->pid);
        return false;
    }
    *reply = (zf_ipc_reply){ZF_IPC_WIRE_MAGIC, 1,        0,
                            handle->size,      map_size, (uint64_t)handle->offset_pages * ZF_ARENA_GRANULE};
    *out = fd;
    return true;
}

ze_result_t zfi_zeMemOpenIpcHandle(ze_context_handle_t hContext, ze_device_handle_t hDevice, ze_ipc_mem_handle_t handle,
                                   ze_ipc_memory_flags_t flags, void **pptr) {
    (void)flags; /* cache biases: hints without a cache model */
    zf_context *context = zf_context_from(hContext);
    zf_device *device = zf_device_from(hDevice);
    if (!zf_context_has_device(context, device))
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "hDevice is not a device of the context");
    zf_ipc_handle_data data;
    ze_result_t result = zf_ipc_parse(&handle, &data);
    int fd = -1;
    zf_ipc_reply reply;
    if (result == ZE_RESULT_SUCCESS && !zf_ipc_adopt_fd(&data, &fd, &reply))
        result = zf_ipc_fetch(&data, &fd, &reply);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    zf_mem_block *block = NULL;
    result = zf_block_import(fd, (size_t)reply.size, (size_t)reply.map_size, reply.offset, &block);
    if (result != ZE_RESULT_SUCCESS) {
        close(fd);
        return result;
    }
    block->info.context = context;
    block->info.device = device;
    block->info.type = ZE_MEMORY_TYPE_DEVICE;
    block->info.id = zf_index_next_id();
    zf_index_insert(block);
    *pptr = block->info.base;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zeMemCloseIpcHandle(ze_context_handle_t hContext, const void *ptr) {
    const char *why = NULL;
    zf_mem_block *block = zf_index_remove_base(zf_context_from(hContext), ptr, true, &why);
    if (block == NULL)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "ptr %p cannot be closed: %s", ptr, why);
    zf_block_retire(block, false);
    return ZE_RESULT_SUCCESS;
}

/* ---- descriptors of other objects (event pools) ---- */

ze_result_t zf_ipc_share_fd(int fd, uint64_t size, zf_ipc_ticket *ticket) {
    zf_ipc_shared entry = {.id = zf_index_next_id(), .size = size};
    if (!zf_ipc_random(entry.token, sizeof entry.token))
        return zf_fail(ZE_RESULT_ERROR_UNKNOWN, "getrandom: %s", strerror(errno));
    entry.fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (entry.fd < 0)
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "cannot duplicate a descriptor to share: %s",
                       strerror(errno));
    pthread_mutex_lock(&zf_shared_lock);
    zf_ipc_shared *grown = realloc(zf_shared, (zf_num_shared + 1) * sizeof *grown);
    if (grown != NULL) {
        zf_shared = grown;
        zf_shared[zf_num_shared++] = entry;
    }
    pthread_mutex_unlock(&zf_shared_lock);
    if (grown == NULL) {
        close(entry.fd);
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory to share a descriptor");
    }
    pthread_mutex_lock(&zf_ipc.lock);
    ze_result_t result = zf_ipc_start_locked();
    *ticket = (zf_ipc_ticket){(uint32_t)zf_ipc.pid, zf_ipc.nonce, entry.id, size, {0}};
    pthread_mutex_unlock(&zf_ipc.lock);
    memcpy(ticket->token, entry.token, sizeof ticket->token);
    if (result != ZE_RESULT_SUCCESS)
        zf_ipc_unshare_fd(entry.id);
    return result;
}

void zf_ipc_unshare_fd(uint64_t id) {
    pthread_mutex_lock(&zf_shared_lock);
    for (size_t i = 0; i < zf_num_shared; i++) {
        if (zf_shared[i].id != id)
            continue;
        close(zf_shared[i].fd);
        zf_shared[i] = zf_shared[--zf_num_shared];
        break;
    }
    if (zf_num_shared == 0) {
        free(zf_shared);
        zf_shared = NULL;
    }
    pthread_mutex_unlock(&zf_shared_lock);
}

ze_result_t zf_ipc_fetch_shared(const zf_ipc_ticket *ticket, int *fd) {
    if (ticket->pid == 0 || ticket->pid > INT_MAX || ticket->size == 0)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "handle: not an IPC handle issued by zefake");
    zf_ipc_handle_data handle = {.pid = ticket->pid, .nonce = ticket->nonce, .id = ticket->id, .size = ticket->size};
    memcpy(handle.token, ticket->token, sizeof handle.token);
    zf_ipc_reply reply;
    return zf_ipc_fetch(&handle, fd, &reply);
}

/* ---- handles and descriptors (headers 1.6) ---- */

#if ZF_L0_AT_LEAST(6)
/* A handle this process issued (its pid): the allocation's id and token name it. */
static ze_result_t zf_ipc_parse_own(const ze_ipc_mem_handle_t *raw, zf_ipc_handle_data *handle) {
    ze_result_t result = zf_ipc_parse(raw, handle);
    if (result == ZE_RESULT_SUCCESS && handle->pid != (uint32_t)getpid())
        result =
            zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "handle: issued by process %u, not by this one", handle->pid);
    return result;
}

/* Intel's driver counts the handles of an allocation and releases its export when the last is put; a handle it did
 * not issue, or one put already, changes nothing and succeeds there (docs/tolerances.md). Opening a handle whose
 * export was released works only through the descriptor already passed to the other process. */
ze_result_t zfi_zeMemPutIpcHandle(ze_context_handle_t hContext, ze_ipc_mem_handle_t handle) {
    (void)hContext;
    zf_ipc_handle_data data;
    ze_result_t result = zf_ipc_parse_own(&handle, &data);
    if (result == ZE_RESULT_SUCCESS && !zf_index_unexport(data.id, data.token))
        result = zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                         "handle: its allocation was freed, or every zeMemGetIpcHandle of it was put already");
    if (result == ZE_RESULT_SUCCESS || zf_strict())
        return result;
    zf_tolerate("handle is an IPC memory handle the driver issued and has not taken back", "nothing was released");
    return ZE_RESULT_SUCCESS;
}

/* The descriptor comes from ze_external_memory_export_fd_t: a descriptor of the allocation's own memfd. */
ze_result_t zfi_zeMemGetIpcHandleFromFileDescriptorExp(ze_context_handle_t hContext, uint64_t handle,
                                                       ze_ipc_mem_handle_t *pIpcHandle) {
    if (handle > INT_MAX || fcntl((int)handle, F_GETFD) < 0)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "handle %llu is not an open file descriptor",
                       (unsigned long long)handle);
    void *base = zf_index_base_of_fd(zf_context_from(hContext), (int)handle);
    if (base == NULL)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                       "handle %llu is not a descriptor of an exported allocation of hContext "
                       "(ze_external_memory_export_fd_t of zeMemGetAllocProperties)",
                       (unsigned long long)handle);
    return zfi_zeMemGetIpcHandle(hContext, base, pIpcHandle);
}

ze_result_t zfi_zeMemGetFileDescriptorFromIpcHandleExp(ze_context_handle_t hContext, ze_ipc_mem_handle_t ipcHandle,
                                                       uint64_t *pHandle) {
    (void)hContext;
    zf_ipc_handle_data data;
    ze_result_t result = zf_ipc_parse(&ipcHandle, &data);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    if (data.fd < 0 || fcntl(data.fd, F_GETFD) < 0)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "ipcHandle: its descriptor %d is not open in this process",
                       data.fd);
    *pHandle = (uint64_t)data.fd;
    return ZE_RESULT_SUCCESS;
}
#endif
