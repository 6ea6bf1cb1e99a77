/* Conformance (fake only): one card shared by the processes of a user (docs/environment.md, "Processes"). Child
 * processes run the default scenario (its host clock) under a scenario instance name of their own (ZEFAKE_INSTANCE),
 * so that no other test shares their card. A streaming process starts a worker process, which runs kernels on the same
 * card: its time-based streamer records that work with active XVEs, and its EU stall sampler records instruction
 * pointers inside the worker's kernel; a worker in another instance is not seen. A process that dies holding the
 * card's lock, or without leaving, blocks nobody and is no longer listed. */
#include "zc_exec.h"
#include "zc_kernel_files.h"
#include "zc_metric.h"
#include "zefake/zefake_ext.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define ZC_WORK_LAUNCHES 20u

/* ------------------------------------------------------------------------------------------------------------------
 * Child modes */

static zefake_shared_device_t *zc_shared_state(ze_device_handle_t device) {
    zefake_pfnGetSharedDevice_t get = NULL;
    zc_assert_success(
        zeDriverGetExtensionFunctionAddress(zc_sys()->driver, ZEFAKE_FN_GET_SHARED_DEVICE, (void **)&get));
    ze_device_properties_t p = zc_device_props(device);
    zefake_shared_device_t *state = calloc(1, sizeof *state);
    assert_non_null(state);
    state->size = sizeof *state;
    zc_assert_success(get(&p.uuid, state));
    return state;
}

/* Where the kernel's code is in this process: [base, base + the module's native binary). */
static void zc_code_range(ze_module_handle_t module, ze_kernel_handle_t kernel, uint64_t *base, uint64_t *end) {
    ze_result_t(ZE_APICALL * get_base)(ze_kernel_handle_t, uint64_t *) = NULL;
    zc_assert_success(
        zeDriverGetExtensionFunctionAddress(zc_sys()->driver, "zexKernelGetBaseAddress", (void **)&get_base));
    zc_assert_success(get_base(kernel, base));
    size_t native = 0;
    zc_assert_success(zeModuleGetNativeBinary(module, &native, NULL));
    *end = *base + native;
}

/* "work": runs gemm launches on the first root device, then prints its pid and its kernel's code range. */
static int zc_child_work(int argc, char **argv) {
    (void)argc;
    (void)argv;
    zc_exec *x = zc_child_exec_begin();
    if (x == NULL)
        return 2;
    ze_module_handle_t module = zc_module_create(x->context, x->device, "gemm");
    void *buffer = zc_device_alloc(x, 4096);
    ze_kernel_handle_t kernel = zc_kernel_create(module, "gemm");
    const uint32_t m = 8, n = 8, k = 64;
    void *args[3] = {buffer, buffer, buffer};
    for (uint32_t i = 0; i < 3; i++)
        zc_assert_success(zeKernelSetArgumentValue(kernel, i, sizeof(void *), &args[i]));
    zc_assert_success(zeKernelSetArgumentValue(kernel, 3, sizeof m, &m));
    zc_assert_success(zeKernelSetArgumentValue(kernel, 4, sizeof n, &n));
    zc_assert_success(zeKernelSetArgumentValue(kernel, 5, sizeof k, &k));
    zc_assert_success(zeKernelSetGroupSize(kernel, 8, 8, 1));
    ze_command_list_handle_t list = zc_immediate(x, x->compute_ordinal, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
    ze_group_count_t groups = {64, 1, 1};
    for (uint32_t i = 0; i < ZC_WORK_LAUNCHES; i++)
        zc_assert_success(zeCommandListAppendLaunchKernel(list, kernel, &groups, NULL, 0, NULL));
    uint64_t base = 0, end = 0;
    zc_code_range(module, kernel, &base, &end);
    zefake_shared_device_t *state = zc_shared_state(x->device);
    printf("pid=%d\nlisted=%u\nmemory=%llu\nbase=%llu\nend=%llu\n", (int)getpid(), state->num_processes,
           (unsigned long long)state->processes[0].memory_bytes, (unsigned long long)base, (unsigned long long)end);
    free(state);
    zc_assert_success(zeCommandListDestroy(list));
    zc_assert_success(zeKernelDestroy(kernel));
    zc_free(x, buffer);
    zc_assert_success(zeModuleDestroy(module));
    return zc_child_exec_end(x);
}

/* The sum of a metric over every report of the data. */
static double zc_metric_sum(zet_metric_group_handle_t group, const char *name, const uint8_t *data, size_t size) {
    zc_values v = zc_calculate(group, ZET_METRIC_GROUP_CALCULATION_TYPE_METRIC_VALUES, data, size);
    uint32_t count = zc_metric_count(group), index = zc_metric_index(group, name);
    double sum = 0;
    for (uint32_t r = 0; r < v.count / count; r++)
        sum += v.values[r * count + index].type == ZET_VALUE_TYPE_FLOAT32 ? zc_f64(v.values[r * count + index])
                                                                          : (double)zc_u64(v.values[r * count + index]);
    free(v.values);
    return sum;
}

/* EU stall samples of the data: how many, and how many name an address outside [base, end) or off an instruction. */
static void zc_count_ips(zet_metric_group_handle_t group, const uint8_t *data, size_t size, uint64_t base, uint64_t end,
                         uint32_t *samples, uint32_t *outside) {
    zc_values v = zc_calculate(group, ZET_METRIC_GROUP_CALCULATION_TYPE_METRIC_VALUES, data, size);
    uint32_t count = zc_metric_count(group);
    *samples = *outside = 0;
    for (uint32_t r = 0; r < v.count / count; r++) {
        uint64_t address = zc_u64(v.values[r * count]) * 8; /* IPs count 8-byte units (docs/metrics.md) */
        (*samples)++;
        *outside += address < base || address >= end || (address - base) % 16 != 0;
    }
    free(v.values);
}

/* "stream <instance> <group>": streams ComputeBasic or EuStallSampling on the first root device while a "work" process
 * of scenario instance <instance> runs, then prints what its reports counted. */
static int zc_child_stream(int argc, char **argv) {
    if (argc < 2)
        return 2;
    zc_exec *x = zc_child_exec_begin();
    if (x == NULL)
        return 2;
    bool eu = strcmp(argv[1], "EuStallSampling") == 0;
    zet_metric_group_handle_t group = zc_need_group(x->device, argv[1], ZET_METRIC_GROUP_SAMPLING_TYPE_FLAG_TIME_BASED);
    zc_activate(x->context, x->device, 1, &group);
    zet_metric_streamer_desc_t desc = {ZET_STRUCTURE_TYPE_METRIC_STREAMER_DESC, NULL, 32768, eu ? 10000 : 1000000};
    zet_metric_streamer_handle_t streamer = NULL;
    zc_assert_success(zetMetricStreamerOpen(x->context, x->device, group, &desc, NULL, &streamer));
    char instance[128];
    snprintf(instance, sizeof instance, "ZEFAKE_INSTANCE=%s", argv[0]);
    const char *env[] = {instance, NULL};
    zc_child worker;
    if (!zc_run_child_mode("work", NULL, env, ZC_CHILD_TIMEOUT_MS, &worker))
        return 2;
    zc_assert_child_ok(&worker, "the worker");
    usleep(20000); /* a report after the worker's last command */
    size_t size = 0;
    zc_assert_success(zetMetricStreamerReadData(streamer, UINT32_MAX, &size, NULL));
    uint8_t *data = malloc(size);
    zc_assert_success(zetMetricStreamerReadData(streamer, UINT32_MAX, &size, data));
    if (eu) {
        uint32_t samples = 0, outside = 0;
        zc_count_ips(group, data, size, zc_child_number(&worker, "base"), zc_child_number(&worker, "end"), &samples,
                     &outside);
        printf("samples=%u\noutside=%u\n", samples, outside);
    } else {
        printf("reports=%zu\nthreads=%.0f\nactive=%f\n", size / 256,
               zc_metric_sum(group, "XVE_COMPUTE_THREAD_COUNT", data, size),
               zc_metric_sum(group, "XVE_ACTIVE", data, size));
    }
    free(data);
    zc_child_free(&worker);
    zc_assert_success(zetMetricStreamerClose(streamer));
    zc_activate(x->context, x->device, 0, NULL);
    return zc_child_exec_end(x);
}

/* "hold": attaches, then dies holding the card's lock: the segment begins with its magic, version and size (16 bytes),
 * then the robust mutex (core/shared.c). */
static int zc_child_hold(int argc, char **argv) {
    (void)argc;
    (void)argv;
    zc_exec *x = zc_child_exec_begin();
    if (x == NULL)
        return 2;
    zefake_shared_device_t *state = zc_shared_state(x->device);
    int fd = shm_open(state->segment, O_RDWR, 0);
    void *map = fd >= 0 ? mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) : MAP_FAILED;
    if (map == MAP_FAILED)
        return 3;
    pthread_mutex_lock((pthread_mutex_t *)((char *)map + 16));
    printf("pid=%d\n", (int)getpid());
    fflush(stdout);
    _exit(0); /* no unlock, no detach */
}

/* "list": prints the processes listed on the card. */
static int zc_child_list(int argc, char **argv) {
    (void)argc;
    (void)argv;
    zc_exec *x = zc_child_exec_begin();
    if (x == NULL)
        return 2;
    zefake_shared_device_t *state = zc_shared_state(x->device);
    printf("shared=%u\nprocesses=%u\nsegment=%s\n", (unsigned)state->shared, state->num_processes, state->segment);
    for (uint32_t i = 0; i < state->num_processes; i++)
        printf("p%u=%u\n", i, state->processes[i].pid);
    free(state);
    return zc_child_exec_end(x);
}

/* "truncate": attaches, truncates the card's object to nothing (as any process of the user may), then runs work and
 * a streamer on the card: the process goes on, unshared. */
static int zc_child_truncate(int argc, char **argv) {
    (void)argc;
    (void)argv;
    zc_exec *x = zc_child_exec_begin();
    if (x == NULL)
        return 2;
    zefake_shared_device_t *state = zc_shared_state(x->device);
    int fd = shm_open(state->segment, O_RDWR, 0);
    if (fd < 0 || ftruncate(fd, 0) != 0)
        return 3;
    close(fd);
    free(state);
    zet_metric_group_handle_t group =
        zc_need_group(x->device, "ComputeBasic", ZET_METRIC_GROUP_SAMPLING_TYPE_FLAG_TIME_BASED);
    zc_activate(x->context, x->device, 1, &group);
    zet_metric_streamer_desc_t desc = {ZET_STRUCTURE_TYPE_METRIC_STREAMER_DESC, NULL, 32768, 100000};
    zet_metric_streamer_handle_t streamer = NULL;
    zc_assert_success(zetMetricStreamerOpen(x->context, x->device, group, &desc, NULL, &streamer));
    void *buffer = zc_device_alloc(x, 4096);
    ze_command_list_handle_t list = zc_immediate(x, x->compute_ordinal, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
    const uint8_t pattern = 7;
    for (int i = 0; i < 10; i++)
        zc_assert_success(zeCommandListAppendMemoryFill(list, buffer, &pattern, 1, 4096, NULL, 0, NULL));
    size_t size = 0;
    zc_assert_success(zetMetricStreamerReadData(streamer, UINT32_MAX, &size, NULL));
    state = zc_shared_state(x->device);
    printf("processes=%u\n", state->num_processes);
    free(state);
    zc_assert_success(zeCommandListDestroy(list));
    zc_free(x, buffer);
    zc_assert_success(zetMetricStreamerClose(streamer));
    zc_activate(x->context, x->device, 0, NULL);
    return zc_child_exec_end(x);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Tests */

static zc_child zc_run_in(const char *mode, const char *instance, const char *arg, const char *group) {
    char name[160];
    snprintf(name, sizeof name, "ZEFAKE_INSTANCE=%s", instance);
    const char *env[] = {name, NULL};
    const char *args[] = {arg, group, NULL};
    zc_child child;
    if (!zc_run_child_mode(mode, arg != NULL ? args : NULL, env, ZC_CHILD_TIMEOUT_MS, &child))
        zc_fail("cannot start the %s process", mode);
    zc_assert_child_ok(&child, mode);
    return child;
}

static void zc_instance(char *out, size_t size, const char *what) {
    snprintf(out, size, "zc-shared-%d-%s", (int)getpid(), what);
}

static void shared_streamer_records_another_process(void **state) {
    (void)state;
    zc_skip_unless_fake();
    char same[96], other[96];
    zc_instance(same, sizeof same, "same");
    zc_instance(other, sizeof other, "other");
    zc_child seen = zc_run_in("stream", same, same, "ComputeBasic");
    char active[64];
    assert_true(zc_child_value(&seen, "active", active, sizeof active));
    if (zc_child_number(&seen, "threads") == 0 || !(strtod(active, NULL) > 0.0))
        zc_fail("the streamer counted no work of the other process; its output:\n%s", seen.out);
    zc_child unseen = zc_run_in("stream", same, other, "ComputeBasic"); /* the worker runs in another instance */
    assert_int_equal(zc_child_number(&unseen, "threads"), 0);
    assert_true(zc_child_number(&unseen, "reports") > 0);
    zc_child_free(&unseen);
    zc_child_free(&seen);
}

/* An EU stall sampler in one process names instructions of the kernel another process runs, at the addresses that
 * process's zexKernelGetBaseAddress gives. */
static void shared_eu_stall_samples_name_the_other_process_kernel(void **state) {
    (void)state;
    zc_skip_unless_fake();
    char instance[96];
    zc_instance(instance, sizeof instance, "eu");
    zc_child seen = zc_run_in("stream", instance, instance, "EuStallSampling");
    if (zc_child_number(&seen, "samples") == 0 || zc_child_number(&seen, "outside") != 0)
        zc_fail("EU stall samples of the other process's kernel: %s", seen.out);
    zc_child_free(&seen);
}

static void shared_processes_listed_with_memory(void **state) {
    (void)state;
    zc_skip_unless_fake();
    char instance[96];
    zc_instance(instance, sizeof instance, "list");
    zc_child worker = zc_run_in("work", instance, NULL, NULL);
    assert_int_equal(zc_child_number(&worker, "listed"), 1);
    assert_true(zc_child_number(&worker, "memory") >= 4096); /* its device allocation */
    zc_child list = zc_run_in("list", instance, NULL, NULL);
    assert_int_equal(zc_child_number(&list, "shared"), 1);
    assert_int_equal(zc_child_number(&list, "processes"), 1); /* the worker left */
    zc_child_free(&list);
    zc_child_free(&worker);
}

static void shared_crashed_holder_blocks_nobody(void **state) {
    (void)state;
    zc_skip_unless_fake();
    char instance[96];
    zc_instance(instance, sizeof instance, "crash");
    zc_child holder = zc_run_in("hold", instance, NULL, NULL);
    uint64_t dead = zc_child_number(&holder, "pid");
    zc_child list = zc_run_in("list", instance, NULL, NULL); /* would hang on the lock were it not robust */
    assert_int_equal(zc_child_number(&list, "processes"), 1);
    assert_int_not_equal(zc_child_number(&list, "p0"), dead);
    zc_child seen = zc_run_in("stream", instance, instance, "ComputeBasic");
    assert_true(zc_child_number(&seen, "threads") > 0);
    zc_child_free(&seen);
    zc_child_free(&list);
    zc_child_free(&holder);
}

static zc_child zc_run_logged(const char *mode, const char *instance) {
    char name[160];
    snprintf(name, sizeof name, "ZEFAKE_INSTANCE=%s", instance);
    const char *env[] = {name, "ZEFAKE_LOG=warn", NULL};
    zc_child child;
    if (!zc_run_child_mode(mode, NULL, env, ZC_CHILD_TIMEOUT_MS, &child))
        zc_fail("cannot start the %s process", mode);
    zc_assert_child_ok(&child, mode);
    return child;
}

/* A process whose card object another process truncates goes on (no SIGBUS), unshared, and says so once. */
static void shared_truncated_object_kills_nobody(void **state) {
    (void)state;
    zc_skip_unless_fake();
    char instance[96];
    zc_instance(instance, sizeof instance, "truncate");
    zc_child child = zc_run_logged("truncate", instance);
    if (strstr(child.err, "was truncated by another process") == NULL)
        zc_fail("no warning tells of the truncated object; stderr:\n%s", child.err);
    zc_child_free(&child);
}

/* An object of another size under the card's name is rebuilt, with a warning naming the sizes. */
static void shared_object_of_another_size_is_rebuilt(void **state) {
    (void)state;
    zc_skip_unless_fake();
    char instance[96], segment[256];
    zc_instance(instance, sizeof instance, "resized");
    zc_child first = zc_run_in("list", instance, NULL, NULL);
    assert_true(zc_child_value(&first, "segment", segment, sizeof segment));
    zc_child_free(&first);
    int fd = shm_open(segment, O_RDWR | O_CREAT, 0600);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, 100), 0);
    close(fd);
    zc_child again = zc_run_logged("list", instance);
    assert_int_equal(zc_child_number(&again, "shared"), 1);
    assert_int_equal(zc_child_number(&again, "processes"), 1);
    if (strstr(again.err, "has 100 bytes") == NULL)
        zc_fail("no warning names the object's size; stderr:\n%s", again.err);
    zc_child_free(&again);
}

int main(int argc, char **argv) {
    static const struct CMUnitTest tests[] = {
        cmocka_unit_test(shared_streamer_records_another_process),
        cmocka_unit_test(shared_eu_stall_samples_name_the_other_process_kernel),
        cmocka_unit_test(shared_processes_listed_with_memory),
        cmocka_unit_test(shared_crashed_holder_blocks_nobody),
        cmocka_unit_test(shared_truncated_object_kills_nobody),
        cmocka_unit_test(shared_object_of_another_size_is_rebuilt),
    };
    static const zc_child_mode modes[] = {{"work", zc_child_work},
                                          {"stream", zc_child_stream},
                                          {"hold", zc_child_hold},
                                          {"list", zc_child_list},
                                          {"truncate", zc_child_truncate}};
    static const zc_suite suite = {ZC_EXECUTABLE,      tests, ZC_COUNT(tests), zc_setup_system,
                                   zc_teardown_system, modes, ZC_COUNT(modes)};
    return zc_main(argc, argv, &suite);
}
