/* Conformance (fake only): one card shared by the processes of a user (docs/environment.md, "Processes"). Child
 * processes run a realtime copy of the default scenario under a scenario instance name of their own (ZEFAKE_INSTANCE),
 * so that no other test shares their card. A streaming process starts a worker process, which runs kernels on the same
 * card, and its time-based streamer records that work; a worker in another instance is not seen. A process that dies
 * holding the card's lock, or without leaving, blocks nobody and is no longer listed. */
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

static char zc_scenario_path[256];

/* The default scenario with a realtime clock: device time is then host time since the card's shared origin. */
static int zc_write_scenario(void) {
    snprintf(zc_scenario_path, sizeof zc_scenario_path, "/tmp/zc-shared-%d.yaml", (int)getpid());
    FILE *in = fopen(ZC_SCENARIO_DIR "/default.yaml", "r"), *out = fopen(zc_scenario_path, "w");
    if (in == NULL || out == NULL)
        return -1;
    char line[4096];
    bool replaced = false;
    while (fgets(line, sizeof line, in) != NULL) {
        char *mode = strstr(line, "mode: modelled");
        if (mode != NULL && !replaced) {
            memcpy(mode, "mode: realtime", 14);
            replaced = true;
        }
        fputs(line, out);
    }
    fclose(in);
    return fclose(out) == 0 && replaced ? 0 : -1;
}

static int zc_group_setup(void **state) {
    return zc_setup_system(state) == 0 ? zc_write_scenario() : -1;
}

static int zc_group_teardown(void **state) {
    unlink(zc_scenario_path);
    return zc_teardown_system(state);
}

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

/* "work": runs gemm launches on the first root device, then prints its pid. */
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
    zefake_shared_device_t *state = zc_shared_state(x->device);
    printf("pid=%d\nlisted=%u\nmemory=%llu\n", (int)getpid(), state->num_processes,
           (unsigned long long)state->processes[0].memory_bytes);
    free(state);
    zc_assert_success(zeCommandListDestroy(list));
    zc_assert_success(zeKernelDestroy(kernel));
    zc_free(x, buffer);
    zc_assert_success(zeModuleDestroy(module));
    return zc_child_exec_end(x);
}

/* The sum of a metric over every report of the data. */
static uint64_t zc_metric_sum(zet_metric_group_handle_t group, const char *name, const uint8_t *data, size_t size) {
    zc_values v = zc_calculate(group, ZET_METRIC_GROUP_CALCULATION_TYPE_METRIC_VALUES, data, size);
    uint32_t count = zc_metric_count(group), index = zc_metric_index(group, name);
    uint64_t sum = 0;
    for (uint32_t r = 0; r < v.count / count; r++)
        sum += zc_u64(v.values[r * count + index]);
    free(v.values);
    return sum;
}

/* "stream <instance>": streams ComputeBasic on the first root device while a "work" process of scenario instance
 * <instance> runs, then prints the compute threads its reports counted. */
static int zc_child_stream(int argc, char **argv) {
    if (argc < 1)
        return 2;
    zc_exec *x = zc_child_exec_begin();
    if (x == NULL)
        return 2;
    zet_metric_group_handle_t group =
        zc_need_group(x->device, "ComputeBasic", ZET_METRIC_GROUP_SAMPLING_TYPE_FLAG_TIME_BASED);
    zc_activate(x->context, x->device, 1, &group);
    zet_metric_streamer_desc_t desc = {ZET_STRUCTURE_TYPE_METRIC_STREAMER_DESC, NULL, 32768, 1000000};
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
    printf("reports=%zu\nthreads=%llu\n", size / 256,
           (unsigned long long)zc_metric_sum(group, "XVE_COMPUTE_THREAD_COUNT", data, size));
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
    printf("shared=%u\nprocesses=%u\n", (unsigned)state->shared, state->num_processes);
    for (uint32_t i = 0; i < state->num_processes; i++)
        printf("p%u=%u\n", i, state->processes[i].pid);
    free(state);
    return zc_child_exec_end(x);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Tests */

static zc_child zc_run_in(const char *mode, const char *instance, const char *arg) {
    char scenario[300], name[160];
    snprintf(scenario, sizeof scenario, "ZEFAKE_SCENARIO=%s", zc_scenario_path);
    snprintf(name, sizeof name, "ZEFAKE_INSTANCE=%s", instance);
    const char *env[] = {scenario, name, NULL};
    const char *args[] = {arg, NULL};
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
    zc_child seen = zc_run_in("stream", same, same);
    if (zc_child_number(&seen, "threads") == 0)
        zc_fail("the streamer counted no work of the other process; its output:\n%s", seen.out);
    zc_child unseen = zc_run_in("stream", same, other); /* the worker runs in another instance */
    assert_int_equal(zc_child_number(&unseen, "threads"), 0);
    assert_true(zc_child_number(&unseen, "reports") > 0);
    zc_child_free(&unseen);
    zc_child_free(&seen);
}

static void shared_processes_listed_with_memory(void **state) {
    (void)state;
    zc_skip_unless_fake();
    char instance[96];
    zc_instance(instance, sizeof instance, "list");
    zc_child worker = zc_run_in("work", instance, NULL);
    assert_int_equal(zc_child_number(&worker, "listed"), 1);
    assert_true(zc_child_number(&worker, "memory") >= 4096); /* its device allocation */
    zc_child list = zc_run_in("list", instance, NULL);
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
    zc_child holder = zc_run_in("hold", instance, NULL);
    uint64_t dead = zc_child_number(&holder, "pid");
    zc_child list = zc_run_in("list", instance, NULL); /* would hang on the lock were it not robust */
    assert_int_equal(zc_child_number(&list, "processes"), 1);
    assert_int_not_equal(zc_child_number(&list, "p0"), dead);
    zc_child seen = zc_run_in("stream", instance, instance);
    assert_true(zc_child_number(&seen, "threads") > 0);
    zc_child_free(&seen);
    zc_child_free(&list);
    zc_child_free(&holder);
}

int main(int argc, char **argv) {
    static const struct CMUnitTest tests[] = {
        cmocka_unit_test(shared_streamer_records_another_process),
        cmocka_unit_test(shared_processes_listed_with_memory),
        cmocka_unit_test(shared_crashed_holder_blocks_nobody),
    };
    static const zc_child_mode modes[] = {
        {"work", zc_child_work}, {"stream", zc_child_stream}, {"hold", zc_child_hold}, {"list", zc_child_list}};
    static const zc_suite suite = {ZC_EXECUTABLE,     tests, ZC_COUNT(tests), zc_group_setup,
                                   zc_group_teardown, modes, ZC_COUNT(modes)};
    return zc_main(argc, argv, &suite);
}
