/* Costs that must not grow with the number of live objects, each as a ratio to a baseline measured in the same run:
 *   - live 4 KiB device allocations, up to 10^6: the allocation rate of the last tenth against the first tenth, and
 *     the process's open descriptors before and after (docs/memory.md "Arenas");
 *   - event host signal + query + reset with 10^5 live events against the same with 10^3 live events;
 *   - a handle check (an entry point that checks its event handle and then refuses a NULL output pointer) with 10^6
 *     live events against the same with 10^3 live events.
 * Each measurement walks 64 events spread over the live ones, so that both runs touch as many objects.
 * Usage: zefake-bench-objects [--quick] (--quick: 10^4 allocations and events, for the test suite). */
#include <dirent.h>
#include <level_zero/ze_api.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ZB_PROGRAM "zefake-bench-objects"
#include "zb_bench.h"

#define ZB_HOT        64u   /* events walked by a measurement */
#define ZB_BASE_COUNT 1000u /* live objects of the baselines */

typedef struct zb_objects {
    ze_context_handle_t context;
    ze_device_handle_t device;
} zb_objects;

static void zb_setup(zb_objects *o) {
    ze_driver_handle_t driver = NULL;
    uint32_t count = 1;
    zb_check(zeInit(0), "zeInit");
    zb_check(zeDriverGet(&count, &driver), "zeDriverGet");
    count = 1;
    zb_check(zeDeviceGet(driver, &count, &o->device), "zeDeviceGet");
    ze_context_desc_t desc = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0};
    zb_check(zeContextCreate(driver, &desc, &o->context), "zeContextCreate");
}

static unsigned zb_open_descriptors(void) {
    DIR *dir = opendir("/proc/self/fd");
    if (dir == NULL)
        return 0;
    unsigned count = 0;
    while (readdir(dir) != NULL)
        count++;
    closedir(dir);
    return count > 3 ? count - 3 : 0; /* ".", ".." and the directory's own descriptor */
}

/* Allocates up to `target` live 4 KiB device allocations (stopping at the first failure), then frees them. */
static void zb_bench_allocations(zb_objects *o, uint32_t target) {
    void **pointers = calloc(target, sizeof *pointers);
    if (pointers == NULL)
        zb_fail("allocations", "no memory for the pointer array");
    ze_device_mem_alloc_desc_t desc = {ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, NULL, 0, 0};
    unsigned descriptors_before = zb_open_descriptors();
    uint32_t tenth = target / 10, live = 0;
    uint64_t start = zb_now_ns(), first_ns = 0, last_start = 0;
    ze_result_t result = ZE_RESULT_SUCCESS;
    for (; live < target; live++) {
        if (live == target - tenth)
            last_start = zb_now_ns();
        result = zeMemAllocDevice(o->context, &desc, 4096, 0, o->device, &pointers[live]);
        if (result != ZE_RESULT_SUCCESS)
            break;
        if (live + 1 == tenth)
            first_ns = zb_now_ns() - start;
    }
    uint64_t end = zb_now_ns();
    unsigned descriptors_after = zb_open_descriptors();
    if (live < target)
        printf("4 KiB device allocations: stopped at %u live of %u: 0x%x\n", live, target, (unsigned)result);
    double first_rate = first_ns > 0 ? tenth * 1e9 / (double)first_ns : 0.0;
    double last_rate = live == target && end > last_start ? tenth * 1e9 / (double)(end - last_start) : 0.0;
    printf("4 KiB device allocations: %u live, %.0f allocations/s overall, last tenth %.0f/s, ratio %.2f to the first "
           "tenth (%.0f/s); descriptors %u before, %u with them live\n",
           live, live * 1e9 / (double)(end - start), last_rate, first_rate > 0 ? last_rate / first_rate : 0.0,
           first_rate, descriptors_before, descriptors_after);
    uint64_t free_start = zb_now_ns();
    for (uint32_t i = 0; i < live; i++)
        zb_check(zeMemFree(o->context, pointers[i]), "zeMemFree");
    printf("4 KiB device allocations: %.0f frees/s\n", live * 1e9 / (double)(zb_now_ns() - free_start));
    free(pointers);
}

/* `count` live events in one pool, all signalled once so that a measurement walks them warm. */
typedef struct zb_events {
    ze_event_pool_handle_t pool;
    ze_event_handle_t *events;
    uint32_t count;
    ze_event_handle_t hot[ZB_HOT];
} zb_events;

static void zb_events_create(zb_objects *o, zb_events *e, uint32_t count) {
    ze_event_pool_desc_t pdesc = {ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, NULL, ZE_EVENT_POOL_FLAG_HOST_VISIBLE, count};
    zb_check(zeEventPoolCreate(o->context, &pdesc, 1, &o->device, &e->pool), "zeEventPoolCreate");
    e->events = calloc(count, sizeof *e->events);
    if (e->events == NULL)
        zb_fail("events", "no memory for the handle array");
    e->count = count;
    for (uint32_t i = 0; i < count; i++) {
        ze_event_desc_t desc = {ZE_STRUCTURE_TYPE_EVENT_DESC, NULL, i, 0, 0};
        zb_check(zeEventCreate(e->pool, &desc, &e->events[i]), "zeEventCreate");
    }
    for (uint32_t h = 0; h < ZB_HOT; h++)
        e->hot[h] = e->events[(uint64_t)h * count / ZB_HOT];
}

static void zb_events_destroy(zb_events *e) {
    for (uint32_t i = 0; i < e->count; i++)
        zb_check(zeEventDestroy(e->events[i]), "zeEventDestroy");
    zb_check(zeEventPoolDestroy(e->pool), "zeEventPoolDestroy");
    free(e->events);
}

static void zb_signal_query_body(void *state, uint64_t iterations) {
    zb_events *e = state;
    for (uint64_t i = 0; i < iterations; i++) {
        ze_event_handle_t event = e->hot[i % ZB_HOT];
        zeEventHostSignal(event);
        if (zeEventQueryStatus(event) != ZE_RESULT_SUCCESS)
            zb_fail("zeEventQueryStatus", "a signalled event is not ready");
        zeEventHostReset(event);
    }
}

static void zb_handle_check_body(void *state, uint64_t iterations) {
    zb_events *e = state;
    for (uint64_t i = 0; i < iterations; i++)
        if (zeEventQueryKernelTimestamp(e->hot[i % ZB_HOT], NULL) != ZE_RESULT_ERROR_INVALID_NULL_POINTER)
            zb_fail("zeEventQueryKernelTimestamp", "a NULL output was not refused after the handle check");
}

/* ns per iteration of `body` with `count` live events. */
static double zb_with_events(zb_objects *o, uint32_t count, zb_body body, uint64_t iterations) {
    zb_events e;
    zb_events_create(o, &e, count);
    double ns = zb_measure_ns(body, &e, iterations);
    zb_events_destroy(&e);
    return ns;
}

static void zb_bench_events(zb_objects *o, uint32_t many, uint64_t iterations) {
    double base = zb_with_events(o, ZB_BASE_COUNT, zb_signal_query_body, iterations);
    double ns = zb_with_events(o, many, zb_signal_query_body, iterations);
    printf("event host signal + query + reset with %u live events: %.1f ns, ratio %.2f to %u live events (%.1f ns)\n",
           many, ns, ns / base, ZB_BASE_COUNT, base);
}

static void zb_bench_handle_check(zb_objects *o, uint32_t many, uint64_t iterations) {
    double base = zb_with_events(o, ZB_BASE_COUNT, zb_handle_check_body, iterations);
    double ns = zb_with_events(o, many, zb_handle_check_body, iterations);
    printf("handle check with %u live objects: %.1f ns per call, ratio %.2f to %u live objects (%.1f ns)\n", many, ns,
           ns / base, ZB_BASE_COUNT, base);
}

int main(int argc, char **argv) {
    int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    zb_objects o;
    zb_setup(&o);
    zb_bench_allocations(&o, quick ? 10000 : 1000000);
    zb_bench_events(&o, quick ? 10000 : 100000, quick ? 20000 : 1000000);
    zb_bench_handle_check(&o, quick ? 10000 : 1000000, quick ? 20000 : 2000000);
    zb_check(zeContextDestroy(o.context), "zeContextDestroy");
    return EXIT_SUCCESS;
}
