/* Conformance (fake-only): misuse the specification leaves undefined, answered without a crash or a hang.
 *
 * - Commands at host addresses that are not mapped for the access (copies, region copies, fills, global timestamps,
 *   indirect group counts): a device fault is reported as for a kernel touching them (zeDeviceGetStatus answers
 *   ZE_RESULT_ERROR_DEVICE_LOST), the process lives.
 * - Immediate lists whose commands wait for an event nothing signals, or for each other: the engine's wait ends at
 *   the hang limit (ZEFAKE_HANG_TIMEOUT_MS), the command completes as a faulting one, the device is lost, and the
 *   lists' destroys return.
 * - Idle connections to an exporter's IPC server (docs/memory.md): another process still opens the exporter's handle
 *   at once.
 * - One regular command list appended to from 8 threads at once (the headers forbid it): each append either records
 *   its command or is refused with ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE; the list executes exactly the recorded ones.
 *
 * Each probe runs in a child process: on a driver without these guards it crashes or hangs. */
#include "zc_harness.h"
#include "zc_kernel_files.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

/* What a probe needs: the first device of the first driver, a context, a queue of its first group and a list. */
typedef struct zc_probe {
    ze_driver_handle_t driver;
    ze_device_handle_t device;
    ze_context_handle_t context;
    ze_command_queue_handle_t queue;
    ze_command_list_handle_t list;
    ze_module_handle_t module; /* a kernel the list launches, NULL without one */
    ze_kernel_handle_t kernel;
} zc_probe;

static bool zc_probe_start(zc_probe *p) {
    *p = (zc_probe){0};
    uint32_t count = 1;
    ze_context_desc_t context_desc = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0};
    ze_command_queue_desc_t queue_desc = {.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC};
    ze_command_list_desc_t list_desc = {ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC, NULL, 0, 0};
    return zeInit(0) == ZE_RESULT_SUCCESS && zeDriverGet(&count, &p->driver) == ZE_RESULT_SUCCESS &&
           zeDeviceGet(p->driver, &count, &p->device) == ZE_RESULT_SUCCESS &&
           zeContextCreate(p->driver, &context_desc, &p->context) == ZE_RESULT_SUCCESS &&
           zeCommandQueueCreate(p->context, p->device, &queue_desc, &p->queue) == ZE_RESULT_SUCCESS &&
           zeCommandListCreate(p->context, p->device, &list_desc, &p->list) == ZE_RESULT_SUCCESS;
}

/* Destroys what zc_probe_start made (whatever the device's state), so that a child ends with nothing of its own left:
 * the sanitizer builds count what a process leaves as leaks. */
static void zc_probe_end(zc_probe *p) {
    zeCommandListDestroy(p->list);
    if (p->kernel != NULL)
        zeKernelDestroy(p->kernel);
    if (p->module != NULL)
        zeModuleDestroy(p->module);
    zeCommandQueueDestroy(p->queue);
    zeContextDestroy(p->context);
}

static void zc_print_result(const char *key, ze_result_t result) {
    printf("%s=%s\n", key, zc_result_name(result));
    fflush(stdout); /* a crash must not take what was printed with it */
}

static void zc_assert_child_says(const zc_child *child, const char *key, const char *expected) {
    char value[96];
    if (!zc_child_value(child, key, value, sizeof value))
        zc_fail("no %s from the child; stdout:\n%s\nstderr:\n%s", key, child->out, child->err);
    if (strcmp(value, expected) != 0)
        zc_fail("%s: %s, expected %s; stderr:\n%s", key, value, expected, child->err);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Commands at host addresses not mapped for the access */

/* A page the process may not access, and one mapped read-only. The first stays reserved without access rather than
 * unmapped: a page given back with munmap may be mapped again by the next mmap of the process (the driver's threads,
 * a sanitizer's allocator) before the command reaches it. The driver's probe refuses both alike
 * (docs/cost-model.md, "Faults"). */
static void *zc_unusable_page(void) {
    void *page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return page == MAP_FAILED ? NULL : page;
}

static void *zc_readonly_page(void) {
    void *page = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return page == MAP_FAILED ? NULL : page;
}

/* An indirect launch of the empty kernel whose group count is read at `groups`. */
static ze_result_t zc_append_indirect(zc_probe *p, const ze_group_count_t *groups) {
    zc_spirv spirv = zc_load_spirv("empty");
    ze_kernel_desc_t kernel_desc = {ZE_STRUCTURE_TYPE_KERNEL_DESC, NULL, 0, "empty"};
    ze_result_t result = zc_module_from(p->context, p->device, ZE_MODULE_FORMAT_IL_SPIRV, spirv.data, spirv.size, NULL,
                                        NULL, &p->module, NULL);
    free(spirv.data);
    if (result == ZE_RESULT_SUCCESS)
        result = zeKernelCreate(p->module, &kernel_desc, &p->kernel);
    void *unused = NULL;
    if (result == ZE_RESULT_SUCCESS)
        result = zeKernelSetArgumentValue(p->kernel, 0, sizeof unused, &unused);
    if (result == ZE_RESULT_SUCCESS)
        result = zeKernelSetGroupSize(p->kernel, 1, 1, 1);
    if (result == ZE_RESULT_SUCCESS)
        result = zeCommandListAppendLaunchKernelIndirect(p->list, p->kernel, groups, NULL, 0, NULL);
    return result; /* the module and kernel live as long as the list: zc_probe_end */
}

/* Appends the command `which` names with its target at `bad`; `good` is 64 bytes of ordinary host memory. */
static ze_result_t zc_append_at(zc_probe *p, const char *which, void *bad, void *good) {
    static const uint8_t pattern[4] = {1, 2, 3, 4};
    if (strcmp(which, "copy-to") == 0)
        return zeCommandListAppendMemoryCopy(p->list, bad, good, 64, NULL, 0, NULL);
    if (strcmp(which, "copy-from") == 0)
        return zeCommandListAppendMemoryCopy(p->list, good, bad, 64, NULL, 0, NULL);
    if (strcmp(which, "region") == 0) {
        ze_copy_region_t region = {0, 0, 0, 8, 8, 1};
        return zeCommandListAppendMemoryCopyRegion(p->list, bad, &region, 8, 0, good, &region, 8, 0, NULL, 0, NULL);
    }
    if (strcmp(which, "fill") == 0 || strcmp(which, "fill-readonly") == 0)
        return zeCommandListAppendMemoryFill(p->list, bad, pattern, sizeof pattern, 64, NULL, 0, NULL);
    if (strcmp(which, "timestamp") == 0)
        return zeCommandListAppendWriteGlobalTimestamp(p->list, bad, NULL, 0, NULL);
    if (strcmp(which, "indirect") == 0)
        return zc_append_indirect(p, bad);
    return ZE_RESULT_ERROR_INVALID_ARGUMENT;
}

/* argv[0]: the command. Appends it, executes the list, and prints what the host was told. */
static int zc_child_command_at(int argc, char **argv) {
    zc_probe p;
    if (argc < 1 || !zc_probe_start(&p))
        return 2;
    static _Alignas(64) uint8_t good[64];
    void *bad = strcmp(argv[0], "fill-readonly") == 0 ? zc_readonly_page() : zc_unusable_page();
    if (bad == NULL)
        return 3;
    zc_print_result("append", zc_append_at(&p, argv[0], bad, good));
    zc_print_result("close", zeCommandListClose(p.list));
    zc_print_result("execute", zeCommandQueueExecuteCommandLists(p.queue, 1, &p.list, NULL));
    zc_print_result("sync", zeCommandQueueSynchronize(p.queue, UINT64_MAX));
    zc_print_result("status", zeDeviceGetStatus(p.device));
    zc_probe_end(&p);
    return 0;
}

/* Each command at a host address the process may not access (or, written, a read-only one): a reported device fault,
 * the process lives. */
static void commands_at_unmapped_host_addresses_fault(void **state) {
    (void)state;
    zc_skip_unless_fake();
    static const char *const commands[] = {"copy-to",   "copy-from", "region",       "fill",
                                           "timestamp", "indirect",  "fill-readonly"};
    for (size_t i = 0; i < ZC_COUNT(commands); i++) {
        const char *args[] = {commands[i], NULL};
        zc_child child;
        if (!zc_run_child_mode("command-at", args, NULL, ZC_CHILD_TIMEOUT_MS, &child))
            zc_fail("cannot start a child process");
        char what[96];
        snprintf(what, sizeof what, "a %s command at an unusable host address", commands[i]);
        zc_assert_child_ok(&child, what);
        zc_assert_child_says(&child, "append", "ZE_RESULT_SUCCESS");
        zc_assert_child_says(&child, "status", "ZE_RESULT_ERROR_DEVICE_LOST");
        if (strstr(child.err, "device fault:") == NULL)
            zc_fail("%s: no device fault was reported; stderr:\n%s", what, child.err);
        zc_child_free(&child);
    }
}

/* ------------------------------------------------------------------------------------------------------------------
 * Waits nothing ends */

static bool zc_immediate_list(const zc_probe *p, ze_command_list_handle_t *list) {
    ze_command_queue_desc_t desc = {.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC,
                                    .mode = ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS};
    return zeCommandListCreateImmediate(p->context, p->device, &desc, list) == ZE_RESULT_SUCCESS;
}

static uint64_t zc_now_ms(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000u + (uint64_t)now.tv_nsec / 1000000u;
}

/* argv[0]: "never" (one list waits for an event nothing signals) or "each-other" (two lists wait for each other's
 * event). Destroys the lists while they wait. */
static int zc_child_wait_forever(int argc, char **argv) {
    zc_probe p;
    ze_event_pool_handle_t pool = NULL;
    ze_event_handle_t events[2] = {NULL, NULL};
    ze_command_list_handle_t lists[2] = {NULL, NULL};
    ze_event_pool_desc_t pool_desc = {ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, NULL, ZE_EVENT_POOL_FLAG_HOST_VISIBLE, 2};
    if (argc < 1 || !zc_probe_start(&p) || zeEventPoolCreate(p.context, &pool_desc, 1, &p.device, &pool) != 0)
        return 2;
    bool both = strcmp(argv[0], "each-other") == 0;
    for (uint32_t i = 0; i < 2; i++) {
        ze_event_desc_t desc = {ZE_STRUCTURE_TYPE_EVENT_DESC, NULL, i, ZE_EVENT_SCOPE_FLAG_HOST,
                                ZE_EVENT_SCOPE_FLAG_HOST};
        if (zeEventCreate(pool, &desc, &events[i]) != ZE_RESULT_SUCCESS || !zc_immediate_list(&p, &lists[i]))
            return 3;
    }
    /* list i waits for event 1 - i and then signals event i: with one list, event 1 is never signalled */
    for (uint32_t i = 0; i < (both ? 2u : 1u); i++)
        zc_print_result(i == 0 ? "append0" : "append1",
                        zeCommandListAppendBarrier(lists[i], events[i], 1, &events[1 - i]));
    uint64_t start = zc_now_ms();
    ze_result_t destroyed = zeCommandListDestroy(lists[0]);
    zc_print_result("destroy0", destroyed);
    if (destroyed == ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE) { /* the strict profile: wait for the hang, then again */
        zc_print_result("waited0", zeEventHostSynchronize(events[0], UINT64_MAX));
        zc_print_result("retry0", zeCommandListDestroy(lists[0]));
    }
    zc_print_result("destroy1", zeCommandListDestroy(lists[1]));
    printf("ms=%llu\n", (unsigned long long)(zc_now_ms() - start));
    zc_print_result("status", zeDeviceGetStatus(p.device));
    zc_print_result("signalled0", zeEventQueryStatus(events[0]));
    for (uint32_t i = 0; i < 2; i++)
        zeEventDestroy(events[i]);
    zeEventPoolDestroy(pool);
    zc_probe_end(&p);
    return 0;
}

/* Undefined for the spec (a destroy while the device uses the list); the fake waits for the list's commands, and the
 * hang detector ends a wait nothing would end, as it ends a kernel that never does. */
static void waits_nothing_ends_are_stopped_by_the_hang_detector(void **state) {
    (void)state;
    zc_skip_unless_fake();
    static const char *const cases[] = {"never", "each-other"};
    for (size_t i = 0; i < ZC_COUNT(cases); i++) {
        const char *args[] = {cases[i], NULL};
        const char *const env[] = {"ZEFAKE_HANG_TIMEOUT_MS=300", "ZEFAKE_STRICT=0", NULL};
        zc_child child;
        if (!zc_run_child_mode("wait-forever", args, env, ZC_CHILD_TIMEOUT_MS, &child))
            zc_fail("cannot start a child process");
        char what[96];
        snprintf(what, sizeof what, "lists waiting (%s) destroyed", cases[i]);
        zc_assert_child_ok(&child, what);
        zc_assert_child_says(&child, "destroy0", "ZE_RESULT_SUCCESS");
        zc_assert_child_says(&child, "destroy1", "ZE_RESULT_SUCCESS");
        zc_assert_child_says(&child, "status", "ZE_RESULT_ERROR_DEVICE_LOST");
        zc_assert_child_says(&child, "signalled0", "ZE_RESULT_SUCCESS"); /* completed as a faulting command */
        if (strstr(child.err, "device hang: a command waited 300 ms for its wait event 0") == NULL)
            zc_fail("%s: no diagnostic names the wait and the hang detector; stderr:\n%s", what, child.err);
        zc_child_free(&child);
    }
}

/* ------------------------------------------------------------------------------------------------------------------
 * One list, several threads */

#define ZC_APPEND_THREADS 8u
#define ZC_APPENDS        32768u

typedef struct zc_appender {
    ze_command_list_handle_t list;
    pthread_barrier_t *start;
    const uint8_t *src; /* this thread's bytes */
    uint8_t *dst;
    ze_result_t results[ZC_APPENDS];
} zc_appender;

/* Each append copies one byte of its own: after execution, a byte arrived exactly when its append succeeded. */
static void *zc_append_thread(void *arg) {
    zc_appender *a = arg;
    pthread_barrier_wait(a->start);
    for (uint32_t i = 0; i < ZC_APPENDS; i++)
        a->results[i] = zeCommandListAppendMemoryCopy(a->list, &a->dst[i], &a->src[i], 1, NULL, 0, NULL);
    return NULL;
}

/* Counts the appends of each result and the bytes that arrived where an append was refused or missed. */
static void zc_appenders_report(const zc_appender *appenders) {
    unsigned recorded = 0, refused = 0, other = 0, lost = 0, stray = 0;
    for (uint32_t t = 0; t < ZC_APPEND_THREADS; t++) {
        for (uint32_t i = 0; i < ZC_APPENDS; i++) {
            const zc_appender *a = &appenders[t];
            bool arrived = a->dst[i] == a->src[i];
            if (a->results[i] == ZE_RESULT_SUCCESS) {
                recorded++;
                lost += !arrived;
            } else {
                refused += a->results[i] == ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE;
                other += a->results[i] != ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE;
                stray += arrived;
            }
        }
    }
    printf("recorded=%u\nrefused=%u\nother=%u\nlost=%u\nstray=%u\n", recorded, refused, other, lost, stray);
}

static int zc_child_threads(int argc, char **argv) {
    (void)argc;
    (void)argv;
    zc_probe p;
    if (!zc_probe_start(&p))
        return 2;
    static zc_appender appenders[ZC_APPEND_THREADS];
    static uint8_t src[ZC_APPEND_THREADS][ZC_APPENDS], dst[ZC_APPEND_THREADS][ZC_APPENDS];
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, ZC_APPEND_THREADS);
    pthread_t threads[ZC_APPEND_THREADS];
    for (uint32_t t = 0; t < ZC_APPEND_THREADS; t++) {
        for (uint32_t i = 0; i < ZC_APPENDS; i++)
            src[t][i] = (uint8_t)(1 + (t * 131 + i) % 255); /* never 0, dst's initial value */
        appenders[t] = (zc_appender){.list = p.list, .start = &start, .src = src[t], .dst = dst[t]};
        if (pthread_create(&threads[t], NULL, zc_append_thread, &appenders[t]) != 0)
            return 3;
    }
    for (uint32_t t = 0; t < ZC_APPEND_THREADS; t++)
        pthread_join(threads[t], NULL);
    zc_print_result("close", zeCommandListClose(p.list));
    zc_print_result("execute", zeCommandQueueExecuteCommandLists(p.queue, 1, &p.list, NULL));
    zc_print_result("sync", zeCommandQueueSynchronize(p.queue, UINT64_MAX));
    zc_appenders_report(appenders);
    fflush(stdout);
    zc_probe_end(&p);
    return 0;
}

/* Undefined for the spec; the fake detects the second thread (an atomic flag per list) and refuses its append. */
static void one_list_appended_from_threads_refuses_or_records(void **state) {
    (void)state;
    zc_skip_unless_fake();
    zc_child child;
    if (!zc_run_child_mode("threads", NULL, NULL, ZC_CHILD_TIMEOUT_MS, &child))
        zc_fail("cannot start a child process");
    zc_assert_child_ok(&child, "8 threads appending to one list");
    zc_assert_child_says(&child, "close", "ZE_RESULT_SUCCESS");
    zc_assert_child_says(&child, "sync", "ZE_RESULT_SUCCESS");
    uint64_t recorded = zc_child_number(&child, "recorded"), refused = zc_child_number(&child, "refused");
    assert_int_equal(recorded + refused, ZC_APPEND_THREADS * ZC_APPENDS);
    assert_int_equal(zc_child_number(&child, "other"), 0);
    assert_int_equal(zc_child_number(&child, "lost"), 0);
    assert_int_equal(zc_child_number(&child, "stray"), 0);
    if (refused > 0 && strstr(child.err, "another thread is calling with the same hCommandList") == NULL)
        zc_fail("appends were refused without a warning; stderr:\n%s", child.err);
    zc_child_free(&child);
}

/* The strict profile refuses the destroy of a busy immediate list at once (docs/tolerances.md); the hang detector
 * still ends the wait, and the destroy after it succeeds. */
static void waits_nothing_ends_strict_profile(void **state) {
    (void)state;
    zc_skip_unless_fake();
    const char *args[] = {"never", NULL};
    const char *const env[] = {"ZEFAKE_HANG_TIMEOUT_MS=300", "ZEFAKE_STRICT=1", NULL};
    zc_child child;
    if (!zc_run_child_mode("wait-forever", args, env, ZC_CHILD_TIMEOUT_MS, &child))
        zc_fail("cannot start a child process");
    zc_assert_child_ok(&child, "a waiting list destroyed in the strict profile");
    zc_assert_child_says(&child, "destroy0", "ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE");
    zc_assert_child_says(&child, "waited0", "ZE_RESULT_SUCCESS");
    zc_assert_child_says(&child, "retry0", "ZE_RESULT_SUCCESS");
    zc_assert_child_says(&child, "status", "ZE_RESULT_ERROR_DEVICE_LOST");
    zc_child_free(&child);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Idle peers of an IPC server */

#define ZC_IDLE_PEERS 4

/* A connection to the server a handle names (docs/memory.md: bytes 16..19 the pid, 24..31 the nonce) that sends
 * nothing. */
static int zc_idle_peer(const ze_ipc_mem_handle_t *handle) {
    uint32_t pid;
    uint64_t nonce;
    memcpy(&pid, handle->data + 16, sizeof pid);
    memcpy(&nonce, handle->data + 24, sizeof nonce);
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    int n = snprintf(address.sun_path + 1, sizeof address.sun_path - 1, "zefake-ipc-%u-%016llx", pid,
                     (unsigned long long)nonce);
    int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    socklen_t length = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&address, length) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* argv[0]: a handle in hexadecimal. Opens it in a fresh process (through the exporter's server: the descriptor in
 * the handle is the exporter's) and prints the result and the time it took. */
static int zc_child_ipc_import(int argc, char **argv) {
    zc_probe p;
    ze_ipc_mem_handle_t handle;
    if (argc < 1 || !zc_hex_decode(argv[0], handle.data, sizeof handle.data) || !zc_probe_start(&p))
        return 2;
    void *ptr = NULL;
    uint64_t start = zc_now_ms();
    ze_result_t result = zeMemOpenIpcHandle(p.context, p.device, handle, 0, &ptr);
    printf("ms=%llu\n", (unsigned long long)(zc_now_ms() - start));
    zc_print_result("open", result);
    if (result == ZE_RESULT_SUCCESS)
        zc_print_result("close", zeMemCloseIpcHandle(p.context, ptr));
    zc_probe_end(&p);
    return 0;
}

/* The server answers each connection when its request comes: idle peers delay no importer. */
static void idle_ipc_peers_delay_no_importer(void **state) {
    (void)state;
    zc_skip_unless_fake();
    ze_context_handle_t context = NULL;
    ze_context_desc_t context_desc = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0};
    zc_assert_success(zeContextCreate(zc_sys()->driver, &context_desc, &context));
    ze_device_mem_alloc_desc_t desc = {ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, NULL, 0, 0};
    void *ptr = NULL;
    zc_assert_success(zeMemAllocDevice(context, &desc, 1u << 20, 0, zc_sys()->roots[0], &ptr));
    ze_ipc_mem_handle_t handle;
    zc_assert_success(zeMemGetIpcHandle(context, ptr, &handle));
    int peers[ZC_IDLE_PEERS];
    for (int i = 0; i < ZC_IDLE_PEERS; i++) {
        peers[i] = zc_idle_peer(&handle);
        if (peers[i] < 0)
            zc_fail("cannot connect to the exporter's server");
    }
    char hex[2 * ZE_MAX_IPC_HANDLE_SIZE + 1];
    zc_hex_encode(handle.data, sizeof handle.data, hex);
    const char *args[] = {hex, NULL};
    zc_child child;
    bool started = zc_run_child_mode("ipc-import", args, NULL, ZC_CHILD_TIMEOUT_MS, &child);
    for (int i = 0; i < ZC_IDLE_PEERS; i++)
        close(peers[i]);
    if (!started)
        zc_fail("cannot start a child process");
    zc_assert_child_ok(&child, "an importer behind idle peers");
    zc_assert_child_says(&child, "open", "ZE_RESULT_SUCCESS");
    zc_assert_child_says(&child, "close", "ZE_RESULT_SUCCESS");
    uint64_t ms = zc_child_number(&child, "ms");
    if (ms > 2000)
        zc_fail("the open took %llu ms behind %d idle peers", (unsigned long long)ms, ZC_IDLE_PEERS);
    zc_child_free(&child);
    zc_assert_success(zeMemFree(context, ptr));
    zc_assert_success(zeContextDestroy(context));
}

int main(int argc, char **argv) {
    static const struct CMUnitTest tests[] = {
        cmocka_unit_test(commands_at_unmapped_host_addresses_fault),
        cmocka_unit_test(one_list_appended_from_threads_refuses_or_records),
        cmocka_unit_test(waits_nothing_ends_are_stopped_by_the_hang_detector),
        cmocka_unit_test(waits_nothing_ends_strict_profile),
        cmocka_unit_test(idle_ipc_peers_delay_no_importer),
    };
    static const zc_child_mode modes[] = {
        {"command-at", zc_child_command_at},
        {"threads", zc_child_threads},
        {"wait-forever", zc_child_wait_forever},
        {"ipc-import", zc_child_ipc_import},
    };
    static const zc_suite suite = {
        ZC_EXECUTABLE, tests, ZC_COUNT(tests), zc_setup_system, zc_teardown_system, modes, ZC_COUNT(modes),
    };
    return zc_main(argc, argv, &suite);
}
