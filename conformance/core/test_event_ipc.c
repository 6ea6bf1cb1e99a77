/* Conformance: event pools shared between processes (zeEventPoolGetIpcHandle, zeEventPoolOpenIpcHandle,
 * zeEventPoolCloseIpcHandle): events signalled and reset by the host or by commands in one process or context and
 * observed in the other, in both directions; who closes and who destroys; bad handles; an event-pool handle and a
 * memory handle passed to another process as applications written for Intel's driver pass them (the descriptor in
 * their first 4 bytes sent with SCM_RIGHTS). */
#include "zc_exec.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define ZC_WAIT_NS (20ull * 1000 * 1000 * 1000) /* a bound on waits, never reached when the driver works */

static void zc_require_event_ipc(void) {
    ze_driver_ipc_properties_t p = {.stype = ZE_STRUCTURE_TYPE_DRIVER_IPC_PROPERTIES};
    zc_assert_success(zeDriverGetIpcProperties(zc_sys()->driver, &p));
    if (zc_driver_is_fake())
        assert_true(p.flags & ZE_IPC_PROPERTY_FLAG_EVENT_POOL);
    else if (!(p.flags & ZE_IPC_PROPERTY_FLAG_EVENT_POOL))
        skip();
}

static ze_event_pool_handle_t zc_ipc_pool(ze_context_handle_t context, ze_device_handle_t device, uint32_t count) {
    ze_event_pool_desc_t desc = {ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, NULL,
                                 ZE_EVENT_POOL_FLAG_IPC | ZE_EVENT_POOL_FLAG_HOST_VISIBLE, count};
    ze_event_pool_handle_t pool = NULL;
    zc_assert_success(zeEventPoolCreate(context, &desc, 1, &device, &pool));
    return pool;
}

static ze_context_handle_t zc_new_context(void) {
    ze_context_desc_t desc = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0};
    ze_context_handle_t context = NULL;
    zc_assert_success(zeContextCreate(zc_sys()->driver, &desc, &context));
    return context;
}

/* The other side's view changes a little later: poll its status, bounded. */
static ze_result_t zc_status_eventually(ze_event_handle_t event, ze_result_t wanted) {
    ze_result_t status = zeEventQueryStatus(event);
    for (int i = 0; i < 20000 && status != wanted; i++) {
        nanosleep(&(struct timespec){0, 1000000}, NULL);
        status = zeEventQueryStatus(event);
    }
    return status;
}

static void event_ipc_pool_without_flag_refused(void **state) {
    zc_exec *x = *state;
    zc_require_event_ipc();
    ze_event_pool_handle_t pool = zc_event_pool(x, 2, 0);
    ze_ipc_event_pool_handle_t handle;
    zc_assert_result(zeEventPoolGetIpcHandle(pool, &handle), ZE_RESULT_ERROR_INVALID_SYNCHRONIZATION_OBJECT);
    zc_assert_result(zeEventPoolGetIpcHandle(pool, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zeEventPoolGetIpcHandle(NULL, &handle), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_success(zeEventPoolDestroy(pool));
}

static void event_ipc_open_in_another_context(void **state) {
    zc_exec *x = *state;
    zc_require_event_ipc();
    ze_event_pool_handle_t pool = zc_ipc_pool(x->context, x->device, 4);
    ze_ipc_event_pool_handle_t handle;
    zc_assert_success(zeEventPoolGetIpcHandle(pool, &handle));
    ze_context_handle_t other = zc_new_context();
    ze_event_pool_handle_t opened = NULL;
    zc_assert_success(zeEventPoolOpenIpcHandle(other, handle, &opened));
    ze_event_handle_t mine = zc_event(pool, 1), theirs = zc_event(opened, 1);
    /* Host signal here, observed there; host reset there, observed here. */
    zc_assert_result(zeEventQueryStatus(theirs), ZE_RESULT_NOT_READY);
    zc_assert_success(zeEventHostSignal(mine));
    zc_assert_success(zeEventHostSynchronize(theirs, ZC_WAIT_NS));
    zc_assert_success(zeEventHostReset(theirs));
    zc_assert_result(zc_status_eventually(mine, ZE_RESULT_NOT_READY), ZE_RESULT_NOT_READY);
    /* A command there signals; the host here waits. */
    ze_command_queue_desc_t qd = {
        ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, NULL, x->compute_ordinal, 0, 0, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS,
        ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
    ze_command_list_handle_t their_list = NULL;
    zc_assert_success(zeCommandListCreateImmediate(other, x->device, &qd, &their_list));
    zc_assert_success(zeCommandListAppendSignalEvent(their_list, theirs));
    zc_assert_success(zeEventHostSynchronize(mine, ZC_WAIT_NS));
    /* A command here waits for the host there. */
    zc_assert_success(zeEventHostReset(mine));
    zc_assert_result(zc_status_eventually(theirs, ZE_RESULT_NOT_READY), ZE_RESULT_NOT_READY);
    ze_event_handle_t done_here = zc_event(pool, 2);
    ze_command_list_handle_t my_list = zc_immediate(x, x->compute_ordinal, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    zc_assert_success(zeCommandListAppendBarrier(my_list, done_here, 1, &mine));
    zc_assert_result(zeEventQueryStatus(done_here), ZE_RESULT_NOT_READY);
    zc_assert_success(zeEventHostSignal(theirs));
    zc_assert_success(zeEventHostSynchronize(done_here, ZC_WAIT_NS));
    zc_assert_success(zeCommandListDestroy(my_list));
    zc_assert_success(zeCommandListDestroy(their_list));
    zc_assert_success(zeEventDestroy(done_here));
    zc_assert_success(zeEventDestroy(theirs));
    zc_assert_success(zeEventPoolCloseIpcHandle(opened));
    zc_assert_success(zeEventDestroy(mine));
    zc_assert_success(zeEventPoolDestroy(pool));
    zc_assert_success(zeContextDestroy(other));
}

static void event_ipc_event_created_after_signal_sees_it(void **state) {
    zc_exec *x = *state;
    zc_require_event_ipc();
    ze_event_pool_handle_t pool = zc_ipc_pool(x->context, x->device, 2);
    ze_event_handle_t mine = zc_event(pool, 0);
    zc_assert_success(zeEventHostSignal(mine));
    ze_ipc_event_pool_handle_t handle;
    zc_assert_success(zeEventPoolGetIpcHandle(pool, &handle));
    ze_event_pool_handle_t opened = NULL;
    zc_assert_success(zeEventPoolOpenIpcHandle(x->context, handle, &opened)); /* the same process may open it too */
    ze_event_handle_t theirs = zc_event(opened, 0);
    zc_assert_success(zeEventHostSynchronize(theirs, ZC_WAIT_NS));
    zc_assert_success(zeEventDestroy(theirs));
    zc_assert_success(zeEventPoolCloseIpcHandle(opened));
    zc_assert_success(zeEventDestroy(mine));
    zc_assert_success(zeEventPoolDestroy(pool));
}

static void event_ipc_close_and_destroy_rules(void **state) {
    zc_exec *x = *state;
    zc_require_event_ipc();
    zc_skip_unless_fake(); /* the specification names no error for the wrong call (docs/events.md) */
    ze_event_pool_handle_t pool = zc_ipc_pool(x->context, x->device, 2);
    ze_ipc_event_pool_handle_t handle, again;
    zc_assert_success(zeEventPoolGetIpcHandle(pool, &handle));
    zc_assert_success(zeEventPoolGetIpcHandle(pool, &again));
    assert_memory_equal(handle.data, again.data, sizeof handle.data);
    ze_event_pool_handle_t opened = NULL;
    zc_assert_success(zeEventPoolOpenIpcHandle(x->context, handle, &opened));
    zc_assert_result(zeEventPoolDestroy(opened), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    zc_assert_result(zeEventPoolCloseIpcHandle(pool), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    /* Closing destroys the events opened in this process. */
    ze_event_handle_t theirs = zc_event(opened, 1);
    zc_assert_success(zeEventPoolCloseIpcHandle(opened));
    zc_assert_result(zeEventQueryStatus(theirs), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zeEventPoolCloseIpcHandle(opened), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    /* Once the exporter destroys the pool, its handle opens nothing. */
    zc_assert_success(zeEventPoolDestroy(pool));
    zc_assert_result(zeEventPoolOpenIpcHandle(x->context, handle, &opened), ZE_RESULT_ERROR_INVALID_ARGUMENT);
}

static void event_ipc_bad_handles(void **state) {
    zc_exec *x = *state;
    zc_require_event_ipc();
    ze_event_pool_handle_t opened = NULL;
    ze_ipc_event_pool_handle_t handle;
    memset(&handle, 0, sizeof handle);
    zc_assert_result(zeEventPoolOpenIpcHandle(x->context, handle, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zeEventPoolOpenIpcHandle(NULL, handle, &opened), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zeEventPoolCloseIpcHandle(NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    if (!zc_driver_is_fake())
        return;
    zc_assert_result(zeEventPoolOpenIpcHandle(x->context, handle, &opened), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    ze_event_pool_handle_t pool = zc_ipc_pool(x->context, x->device, 2);
    zc_assert_success(zeEventPoolGetIpcHandle(pool, &handle));
    ze_ipc_event_pool_handle_t forged = handle;
    forged.data[40] ^= 1; /* a bit of the token */
    zc_assert_result(zeEventPoolOpenIpcHandle(x->context, forged, &opened), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    forged = handle;
    forged.data[20] ^= 1; /* the event count */
    zc_assert_result(zeEventPoolOpenIpcHandle(x->context, forged, &opened), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    /* The flags (bytes 56..59): another valid flag than the pool's, an unknown bit, and IPC missing. */
    static const uint8_t flag_flips[] = {ZE_EVENT_POOL_FLAG_HOST_VISIBLE, 0x80, ZE_EVENT_POOL_FLAG_IPC};
    for (size_t i = 0; i < sizeof flag_flips; i++) {
        forged = handle;
        forged.data[56] ^= flag_flips[i];
        zc_assert_result(zeEventPoolOpenIpcHandle(x->context, forged, &opened), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    }
    zc_assert_success(zeEventPoolDestroy(pool));
}

/* A destroyed pool has no IPC handle to give (zefake detects the stale handle; elsewhere it is undefined). */
static void event_ipc_destroyed_pool_refused(void **state) {
    zc_exec *x = *state;
    zc_require_event_ipc();
    zc_skip_unless_fake();
    ze_event_pool_handle_t pool = zc_ipc_pool(x->context, x->device, 2);
    zc_assert_success(zeEventPoolDestroy(pool));
    ze_ipc_event_pool_handle_t handle;
    zc_assert_result(zeEventPoolGetIpcHandle(pool, &handle), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zeEventPoolCloseIpcHandle(pool), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Between processes */

/* Child mode "events <hex handle>": opens the pool, signals event 1 with a command, then waits for the parent to
 * signal event 0 from its host. */
static int zc_child_events(int argc, char **argv) {
    ze_ipc_event_pool_handle_t handle;
    if (argc != 1 || !zc_hex_decode(argv[0], handle.data, sizeof handle.data))
        return 2;
    void *state = NULL;
    if (zc_setup_system(&state) != 0 || zc_setup_exec(&state) != 0)
        return 3;
    zc_exec *x = state;
    ze_event_pool_handle_t pool = NULL;
    ze_result_t result = zeEventPoolOpenIpcHandle(x->context, handle, &pool);
    printf("open=%u\n", (unsigned)result);
    if (result != ZE_RESULT_SUCCESS)
        return 4;
    ze_event_desc_t desc = {ZE_STRUCTURE_TYPE_EVENT_DESC, NULL, 0, ZE_EVENT_SCOPE_FLAG_HOST, ZE_EVENT_SCOPE_FLAG_HOST};
    ze_event_handle_t from_parent = NULL, to_parent = NULL;
    zeEventCreate(pool, &desc, &from_parent);
    desc.index = 1;
    zeEventCreate(pool, &desc, &to_parent);
    ze_command_queue_desc_t qd = {
        ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, NULL, x->compute_ordinal, 0, 0, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS,
        ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
    ze_command_list_handle_t list = NULL;
    zeCommandListCreateImmediate(x->context, x->device, &qd, &list);
    printf("signal=%u\n", (unsigned)zeCommandListAppendSignalEvent(list, to_parent));
    printf("observed=%u\n", (unsigned)zeEventHostSynchronize(from_parent, ZC_WAIT_NS));
    zeCommandListDestroy(list);
    zeEventDestroy(from_parent);
    zeEventDestroy(to_parent);
    printf("close=%u\n", (unsigned)zeEventPoolCloseIpcHandle(pool));
    return zc_child_exec_end(x);
}

typedef struct zc_parent_side {
    ze_event_handle_t from_child, to_child;
    ze_result_t observed, signalled;
} zc_parent_side;

/* The parent's part, on a thread while the child runs: wait for the child's command, answer from the host. */
static void *zc_parent_answers(void *arg) {
    zc_parent_side *side = arg;
    side->observed = zeEventHostSynchronize(side->from_child, ZC_WAIT_NS);
    side->signalled = side->observed == ZE_RESULT_SUCCESS ? zeEventHostSignal(side->to_child) : side->observed;
    return NULL;
}

static void event_ipc_between_processes(void **state) {
    zc_exec *x = *state;
    zc_require_event_ipc();
    ze_event_pool_handle_t pool = zc_ipc_pool(x->context, x->device, 4);
    zc_parent_side side = {zc_event(pool, 1), zc_event(pool, 0), ZE_RESULT_ERROR_UNKNOWN, ZE_RESULT_ERROR_UNKNOWN};
    ze_ipc_event_pool_handle_t handle;
    zc_assert_success(zeEventPoolGetIpcHandle(pool, &handle));
    char hex[2 * ZE_MAX_IPC_HANDLE_SIZE + 1];
    zc_hex_encode(handle.data, sizeof handle.data, hex);
    pthread_t thread;
    assert_int_equal(pthread_create(&thread, NULL, zc_parent_answers, &side), 0);
    const char *args[] = {hex, NULL};
    zc_child child;
    bool started = zc_run_child_mode("events", args, NULL, ZC_CHILD_TIMEOUT_MS, &child);
    if (!started)
        zeEventHostSignal(side.from_child); /* let the thread end */
    pthread_join(thread, NULL);
    assert_true(started);
    zc_assert_child_ok(&child, "the process that opened the event pool");
    assert_int_equal(zc_child_number(&child, "open"), ZE_RESULT_SUCCESS);
    assert_int_equal(zc_child_number(&child, "signal"), ZE_RESULT_SUCCESS);
    assert_int_equal(zc_child_number(&child, "observed"), ZE_RESULT_SUCCESS);
    assert_int_equal(zc_child_number(&child, "close"), ZE_RESULT_SUCCESS);
    zc_child_free(&child);
    zc_assert_result(side.observed, ZE_RESULT_SUCCESS);
    zc_assert_result(side.signalled, ZE_RESULT_SUCCESS);
    zc_assert_success(zeEventDestroy(side.from_child));
    zc_assert_success(zeEventDestroy(side.to_child));
    zc_assert_success(zeEventPoolDestroy(pool));
}

/* ------------------------------------------------------------------------------------------------------------------
 * Handles passed with SCM_RIGHTS, as applications and MPI-style transports pass the handles of Intel's driver: the
 * first 4 bytes are a descriptor, sent with the 64 bytes; the receiver writes the descriptor it got into them. */

static bool zc_send_handle(int socket_fd, const char data[ZE_MAX_IPC_HANDLE_SIZE]) {
    int fd;
    memcpy(&fd, data, sizeof fd);
    return zc_send_with_fd(socket_fd, data, ZE_MAX_IPC_HANDLE_SIZE, fd);
}

/* Receives a handle and puts the descriptor that came with it into its first 4 bytes; returns it (-1: none). */
static int zc_receive_handle(int socket_fd, char data[ZE_MAX_IPC_HANDLE_SIZE]) {
    int fd = zc_receive_with_fd(socket_fd, data, ZE_MAX_IPC_HANDLE_SIZE);
    if (fd >= 0)
        memcpy(data, &fd, sizeof fd);
    return fd;
}

/* A network namespace of its own: the exporter's abstract socket is out of reach, only the descriptors work. */
static int zc_isolate_network(void) {
    return unshare(CLONE_NEWNET) == 0 || unshare(CLONE_NEWUSER | CLONE_NEWNET) == 0;
}

/* A received descriptor does not open a handle whose token was changed (bytes 48..63 of a memory handle, 40..55 of
 * an event-pool handle in zefake's layout, docs/memory.md and docs/events.md). */
static void zc_try_forged(zc_exec *x, const ze_ipc_mem_handle_t *memory,
                          const ze_ipc_event_pool_handle_t *pool_handle) {
    ze_ipc_mem_handle_t forged_memory = *memory;
    ze_ipc_event_pool_handle_t forged_pool = *pool_handle;
    forged_memory.data[50] ^= 4;
    forged_pool.data[45] ^= 4;
    void *ptr = NULL;
    ze_event_pool_handle_t pool = NULL;
    printf("forged_memory=%u\n", (unsigned)zeMemOpenIpcHandle(x->context, x->device, forged_memory, 0, &ptr));
    printf("forged_pool=%u\n", (unsigned)zeEventPoolOpenIpcHandle(x->context, forged_pool, &pool));
}

/* Opens both handles, then closes the descriptors received: the application's own, as with Intel's driver. */
static bool zc_open_received(zc_exec *x, ze_ipc_mem_handle_t *memory, ze_ipc_event_pool_handle_t *pool_handle,
                             void **ptr, ze_event_pool_handle_t *pool, const int fds[2]) {
    zc_try_forged(x, memory, pool_handle);
    ze_result_t opened_memory = zeMemOpenIpcHandle(x->context, x->device, *memory, 0, ptr);
    ze_result_t opened_pool = zeEventPoolOpenIpcHandle(x->context, *pool_handle, pool);
    printf("open_memory=%u\nopen_pool=%u\n", (unsigned)opened_memory, (unsigned)opened_pool);
    close(fds[0]);
    close(fds[1]);
    return opened_memory == ZE_RESULT_SUCCESS && opened_pool == ZE_RESULT_SUCCESS;
}

/* Child mode "scm <socket> <size>": receives a memory handle and an event-pool handle, opens both, checks the
 * parent's pattern, writes its own and signals event 2 from the host. */
static int zc_child_scm(int argc, char **argv) {
    if (argc != 2)
        return 2;
    int socket_fd = atoi(argv[0]);
    size_t size = (size_t)strtoull(argv[1], NULL, 0);
    printf("isolated=%d\n", zc_isolate_network()); /* before zeInit: a process with threads cannot do it */
    ze_ipc_mem_handle_t memory;
    ze_ipc_event_pool_handle_t pool_handle;
    int fds[2] = {zc_receive_handle(socket_fd, memory.data), zc_receive_handle(socket_fd, pool_handle.data)};
    zc_exec *x = fds[0] >= 0 && fds[1] >= 0 ? zc_child_exec_begin() : NULL;
    void *ptr = NULL;
    ze_event_pool_handle_t pool = NULL;
    if (x == NULL || !zc_open_received(x, &memory, &pool_handle, &ptr, &pool, fds))
        return 3;
    uint8_t *expected = malloc(size);
    zc_fill_pattern(expected, size, 41);
    printf("pattern_ok=%d\n", expected != NULL && memcmp(ptr, expected, size) == 0);
    free(expected);
    zc_fill_pattern(ptr, size, 42);
    ze_event_desc_t desc = {ZE_STRUCTURE_TYPE_EVENT_DESC, NULL, 2, ZE_EVENT_SCOPE_FLAG_HOST, ZE_EVENT_SCOPE_FLAG_HOST};
    ze_event_handle_t event = NULL;
    zeEventCreate(pool, &desc, &event);
    printf("signal=%u\n", (unsigned)zeEventHostSignal(event));
    zeEventDestroy(event);
    printf("close_pool=%u\n", (unsigned)zeEventPoolCloseIpcHandle(pool));
    printf("close_memory=%u\n", (unsigned)zeMemCloseIpcHandle(x->context, ptr));
    return zc_child_exec_end(x);
}

static void zc_run_scm_child(int socket_fd, size_t size, zc_child *child) {
    char socket_text[16], size_text[32];
    snprintf(socket_text, sizeof socket_text, "%d", socket_fd);
    snprintf(size_text, sizeof size_text, "%zu", size);
    const char *args[] = {socket_text, size_text, NULL};
    assert_true(zc_run_child_mode("scm", args, NULL, ZC_CHILD_TIMEOUT_MS, child));
}

static void zc_assert_scm_child(const zc_child *child) {
    zc_assert_child_ok(child, "the process that received the handles");
    if (zc_child_number(child, "isolated") != 1)
        printf("note: no network namespace for the child; the descriptors were not tested alone\n");
    assert_int_equal(zc_child_number(child, "forged_memory"), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    assert_int_equal(zc_child_number(child, "forged_pool"), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    assert_int_equal(zc_child_number(child, "open_memory"), ZE_RESULT_SUCCESS);
    assert_int_equal(zc_child_number(child, "open_pool"), ZE_RESULT_SUCCESS);
    assert_int_equal(zc_child_number(child, "pattern_ok"), 1);
    assert_int_equal(zc_child_number(child, "signal"), ZE_RESULT_SUCCESS);
    assert_int_equal(zc_child_number(child, "close_pool"), ZE_RESULT_SUCCESS);
    assert_int_equal(zc_child_number(child, "close_memory"), ZE_RESULT_SUCCESS);
}

static void event_ipc_handles_passed_with_scm_rights(void **state) {
    zc_exec *x = *state;
    zc_require_event_ipc();
    zc_skip_unless_fake(); /* the host reads and writes device memory */
    const size_t size = (256u << 10) + 3;
    uint8_t *ptr = zc_device_alloc(x, size), *mine = NULL;
    zc_fill_pattern(ptr, size, 41);
    ze_ipc_mem_handle_t memory;
    zc_assert_success(zeMemGetIpcHandle(x->context, ptr, &memory));
    zc_assert_success(zeMemOpenIpcHandle(x->context, x->device, memory, 0, (void **)&mine));
    ze_event_pool_handle_t pool = zc_ipc_pool(x->context, x->device, 4);
    ze_event_handle_t event = zc_event(pool, 2);
    ze_ipc_event_pool_handle_t pool_handle;
    zc_assert_success(zeEventPoolGetIpcHandle(pool, &pool_handle));
    int sockets[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sockets), 0);
    assert_true(zc_send_handle(sockets[0], memory.data));
    assert_true(zc_send_handle(sockets[0], pool_handle.data));
    /* The descriptor in flight holds the memory, as a dma-buf's does: the receiver opens what the server refuses. */
    zc_free(x, ptr);
    zc_child child;
    zc_run_scm_child(sockets[1], size, &child);
    close(sockets[0]);
    close(sockets[1]);
    zc_assert_scm_child(&child);
    zc_child_free(&child);
    zc_assert_success(zeEventHostSynchronize(event, ZC_WAIT_NS));
    uint8_t *expected = malloc(size);
    assert_non_null(expected);
    zc_fill_pattern(expected, size, 42);
    assert_memory_equal(mine, expected, size);
    free(expected);
    zc_assert_success(zeMemCloseIpcHandle(x->context, mine));
    zc_assert_success(zeEventDestroy(event));
    zc_assert_success(zeEventPoolDestroy(pool));
}

#if ZC_L0_AT_LEAST(6)
/* zeEventPoolPutIpcHandle (1.6) leaves the pool; the exporter, which opens through its own server, no longer opens
 * the handle put (another process holding its descriptor would); a new zeEventPoolGetIpcHandle shares the pool
 * again. */
static void event_ipc_put_handle(void **state) {
    zc_exec *x = *state;
    zc_require_event_ipc();
    zc_api_require(zeEventPoolPutIpcHandle);
    ze_event_pool_handle_t pool = zc_ipc_pool(x->context, x->device, 2);
    ze_ipc_event_pool_handle_t handle, again;
    zc_assert_success(zeEventPoolGetIpcHandle(pool, &handle));
    zc_assert_success(ZC_API(zeEventPoolPutIpcHandle)(x->context, handle));
    zc_assert_result(ZC_API(zeEventPoolPutIpcHandle)(NULL, handle), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    ze_context_handle_t other = zc_new_context();
    ze_event_pool_handle_t opened = NULL;
    if (zc_driver_is_fake()) {
        zc_assert_result(zeEventPoolOpenIpcHandle(other, handle, &opened), ZE_RESULT_ERROR_INVALID_ARGUMENT);
        zc_assert_success(ZC_API(zeEventPoolPutIpcHandle)(x->context, handle)); /* again: tolerated, as by Intel's */
    }
    zc_assert_success(zeEventPoolGetIpcHandle(pool, &again));
    zc_assert_success(zeEventPoolOpenIpcHandle(other, again, &opened));
    ze_event_handle_t mine = zc_event(pool, 0), theirs = zc_event(opened, 0);
    zc_assert_success(zeEventHostSignal(mine));
    zc_assert_success(zeEventHostSynchronize(theirs, ZC_WAIT_NS));
    zc_assert_success(zeEventDestroy(theirs));
    zc_assert_success(zeEventPoolCloseIpcHandle(opened));
    zc_assert_success(ZC_API(zeEventPoolPutIpcHandle)(x->context, again));
    zc_assert_success(zeEventDestroy(mine));
    zc_assert_success(zeEventPoolDestroy(pool));
    zc_assert_success(zeContextDestroy(other));
}
#endif

int main(int argc, char **argv) {
    static const struct CMUnitTest tests[] = {
#define ZC_FIXTURE exec
        ZC_T(event_ipc_pool_without_flag_refused),
        ZC_T(event_ipc_open_in_another_context),
        ZC_T(event_ipc_event_created_after_signal_sees_it),
        ZC_T(event_ipc_close_and_destroy_rules),
        ZC_T(event_ipc_bad_handles),
        ZC_T(event_ipc_destroyed_pool_refused),
        ZC_T(event_ipc_between_processes),
        ZC_T(event_ipc_handles_passed_with_scm_rights),
#if ZC_L0_AT_LEAST(6)
        ZC_T(event_ipc_put_handle),
#endif
#undef ZC_FIXTURE
    };
    static const zc_child_mode modes[] = {{"events", zc_child_events}, {"scm", zc_child_scm}};
    static const zc_suite suite = {
        ZC_EXECUTABLE, tests, ZC_COUNT(tests), zc_setup_system, zc_teardown_system, modes, ZC_COUNT(modes),
    };
    return zc_main(argc, argv, &suite);
}
