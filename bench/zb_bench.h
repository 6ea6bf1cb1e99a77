/* What every benchmark of bench/ shares: the clock, medians, failing with the program's name, and running this
 * program again in a child process (a configuration that must start from a fresh process, such as a loader layer)
 * to read the one line it prints. Each benchmark defines ZB_PROGRAM before including it. */
#ifndef ZB_BENCH_H
#define ZB_BENCH_H

#include <level_zero/ze_api.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef ZB_PROGRAM
#error "define ZB_PROGRAM (the benchmark's name) before including zb_bench.h"
#endif

static inline uint64_t zb_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The median of n samples (sorted in place). */
static inline double zb_median(double *samples, int n) {
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && samples[j - 1] > samples[j]; j--) {
            double t = samples[j];
            samples[j] = samples[j - 1];
            samples[j - 1] = t;
        }
    return samples[n / 2];
}

/* A loop of `iterations` of what is measured, over caller state. */
typedef void (*zb_body)(void *state, uint64_t iterations);

#define ZB_MEASURE_REPEATS 7

/* Median ns per iteration of `body` over ZB_MEASURE_REPEATS runs, after a warm-up of a tenth of them. */
static inline double zb_measure_ns(zb_body body, void *state, uint64_t iterations) {
    double samples[ZB_MEASURE_REPEATS];
    body(state, iterations / 10 + 1);
    for (int r = 0; r < ZB_MEASURE_REPEATS; r++) {
        uint64_t start = zb_now_ns();
        body(state, iterations);
        samples[r] = (double)(zb_now_ns() - start) / (double)iterations;
    }
    return zb_median(samples, ZB_MEASURE_REPEATS);
}

/* The cores the engine runs on: those of this process's affinity mask, as the driver counts them. */
static inline long zb_host_cores(void) {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return CPU_COUNT(&set);
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    return online > 1 ? online : 1;
}

static inline void zb_fail(const char *what, const char *detail) {
    fprintf(stderr, ZB_PROGRAM ": %s: %s\n", what, detail);
    exit(EXIT_FAILURE);
}

static inline void zb_check(ze_result_t result, const char *what) {
    if (result != ZE_RESULT_SUCCESS) {
        fprintf(stderr, ZB_PROGRAM ": %s failed: 0x%x\n", what, (unsigned)result);
        exit(EXIT_FAILURE);
    }
}

/* Runs this program again with `args` (argv[0] first, NULL-terminated) after prepare(context) in the child, and reads
 * the first line it prints into `line`. False when the child could not run, printed nothing or failed. */
static inline bool zb_child_line(char *const args[], void (*prepare)(const void *), const void *context, char *line,
                                 size_t size) {
    int fds[2];
    if (pipe(fds) != 0)
        return false;
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        dup2(fds[1], STDOUT_FILENO);
        if (prepare != NULL)
            prepare(context);
        execv("/proc/self/exe", args);
        _exit(127);
    }
    close(fds[1]);
    FILE *out = pid > 0 ? fdopen(fds[0], "r") : NULL;
    bool got = out != NULL && fgets(line, (int)size, out) != NULL;
    if (out != NULL)
        fclose(out);
    else
        close(fds[0]);
    int status = 0;
    if (pid > 0)
        waitpid(pid, &status, 0);
    return got && pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

#endif
