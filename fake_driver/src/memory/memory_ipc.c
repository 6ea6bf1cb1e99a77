/* IPC memory handles: zeMemGetIpcHandle, zeMemOpenIpcHandle, zeMemCloseIpcHandle.
 *
 * The first export of a process starts a server thread listening on an abstract unix socket named after the
 * process id and a random nonce. An export gives the allocation a random 128-bit token; the handle carries the
 * exporter's pid and nonce (which name the socket), the allocation id and the token. An importer connects, sends id
 * and token, and receives the allocation's memfd (SCM_RIGHTS), which it maps: both processes then share the pages.
 * The server hands out only the memfd of an allocation that was exported, to a peer of the same user that presents
 * its exact token, so a handle cannot reach memory that was not exported (docs/memory.md). Freeing an allocation
 * revokes its token; mappings already opened elsewhere stay valid, as with any shared memory. */
#include "core/zf_core.h"
#include "memory/memory_internal.h"

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
#include <unistd.h>

#define ZF_IPC_MAGIC      "zefkIPC1"                   /* first bytes of every handle zefake issues */
#define ZF_IPC_WIRE_MAGIC UINT64_C(0x31637069666b667a) /* first word of every request and reply */
#define ZF_IPC_TIMEOUT_S  5                            /* a peer that neither sends nor reads is dropped after this */
#define ZF_IPC_BACKLOG    16

/* The 64 bytes of ze_ipc_mem_handle_t as zefake fills them. */
typedef struct zf_ipc_handle_data {
    char magic[8];
    uint32_t pid;      /* the exporting process */
    uint32_t reserved; /* 0 */
    uint64_t nonce;    /* its server's, part of the socket name */
    uint64_t id;       /* the allocation id in the exporting process */
    uint64_t size;     /* the allocation's size */
    uint8_t token[ZF_IPC_TOKEN_SIZE];
    uint8_t unused[8]; /* 0 */
} zf_ipc_handle_data;
_Static_assert(sizeof(zf_ipc_handle_data) == ZE_MAX_IPC_HANDLE_SIZE, "an IPC handle is 64 bytes");

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

static bool zf_token_matches(const uint8_t *a, const uint8_t *b) {
    uint8_t difference = 0;
    for (size_t i = 0; i < ZF_IPC_TOKEN_SIZE; i++)
        difference |= (uint8_t)(a[i] ^ b[i]);
    return difference == 0;
}

/* A new descriptor of the shared object the request names with its token (the reply is filled), or -1. */
static int zf_ipc_lookup_shared(const zf_ipc_request *request, zf_ipc_reply *reply) {
    int fd = -1;
    pthread_mutex_lock(&zf_shared_lock);
    for (size_t i = 0; i < zf_num_shared && fd < 0; i++) {
        if (zf_shared[i].id != request->id || !zf_token_matches(zf_shared[i].token, request->token))
            continue;
        fd = fcntl(zf_shared[i].fd, F_DUPFD_CLOEXEC, 0); /* it stays valid if the object is unshared meanwhile */
        reply->granted = fd >= 0;
        reply->size = reply->map_size = zf_shared[i].size;
    }
    pthread_mutex_unlock(&zf_shared_lock);
    return fd;
}

/* Reads one request and answers it: the memfd when the request names an exported allocation with its token and
 * comes from the same user (or root); a refusal otherwise. */
static void zf_ipc_answer(int conn) {
    zf_ipc_set_timeouts(conn);
    zf_ipc_request request;
    ssize_t n = recv(conn, &request, sizeof request, MSG_TRUNC); /* MSG_TRUNC: the real length of the message */
    struct ucred peer;
    zf_mem_block *block = NULL;
    bool well_formed = n == (ssize_t)sizeof request && request.magic == ZF_IPC_WIRE_MAGIC;
    bool trusted = well_formed && zf_ipc_peer(conn, &peer) && (peer.uid == geteuid() || peer.uid == 0);
    if (trusted)
        block = zf_index_lookup_export(request.id, request.token);
    zf_ipc_reply reply = {ZF_IPC_WIRE_MAGIC, 0, 0, 0, 0};
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
    zf_ipc_send_fd(conn, &reply, block->fd); /* the reference keeps the fd open meanwhile */
    zf_block_unref(block);
}

static void *zf_ipc_serve(void *unused) {
    (void)unused;
    const int listen_fd = zf_ipc.listen_fd, stop_fd = zf_ipc.stop_fd; /* fixed while the thread runs */
    for (;;) {
        struct pollfd fds[2] = {{listen_fd, POLLIN, 0}, {stop_fd, POLLIN, 0}};
        if (poll(fds, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            zf_log(ZF_LOG_WARN, "IPC server: the server stops: poll: %s", strerror(errno));
            break;
        }
        if (fds[1].revents != 0)
            break;
        if (fds[0].revents & (POLLERR | POLLHUP | POLLNVAL)) {
            zf_log(ZF_LOG_WARN, "IPC server: the server stops: its socket failed");
            break;
        }
        int conn = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
        if (conn >= 0) {
            zf_ipc_answer(conn);
            close(conn);
        }
    }
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
    zf_ipc_handle_data handle = {.pid = (uint32_t)zf_ipc.pid, .nonce = zf_ipc.nonce, .id = info.id, .size = info.size};
    pthread_mutex_unlock(&zf_ipc.lock);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    memcpy(handle.magic, ZF_IPC_MAGIC, sizeof handle.magic);
    memcpy(handle.token, info.token, sizeof handle.token);
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

/* The memfd must be what the reply and the handle say it is. */
static bool zf_ipc_fd_matches(int fd, const zf_ipc_reply *reply, const zf_ipc_handle_data *handle) {
    struct stat st;
    return fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && reply->size == handle->size && reply->size > 0 &&
           reply->size <= reply->map_size && reply->map_size <= SIZE_MAX && (uint64_t)st.st_size == reply->map_size;
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
    static const uint8_t zero[8] = {0};
    if (memcmp(handle->magic, ZF_IPC_MAGIC, sizeof handle->magic) != 0 || handle->reserved != 0 ||
        memcmp(handle->unused, zero, sizeof zero) != 0 || handle->pid == 0 || handle->pid > INT_MAX)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "handle: not an IPC memory handle issued by zefake");
    return ZE_RESULT_SUCCESS;
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
    if (result == ZE_RESULT_SUCCESS)
        result = zf_ipc_fetch(&data, &fd, &reply);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    zf_mem_block *block = NULL;
    result = zf_block_import(fd, (size_t)reply.size, (size_t)reply.map_size, &block);
    if (result != ZE_RESULT_SUCCESS) {
        close(fd);
        return result;
    }
    block->info.context = context;
    block->info.device = device;
    block->info.type = ZE_MEMORY_TYPE_DEVICE;
    block->info.id = zf_index_next_id();
    if (!zf_index_insert(block)) {
        zf_block_unref(block);
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory to index the opened allocation");
    }
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
