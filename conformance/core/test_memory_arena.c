/* Conformance: zefake's memory arenas (docs/memory.md "Arenas"). Many small allocations share a few memfds, so the
 * process's descriptors do not grow with them; freed ranges are reused and their pages go back to the system at once.
 * The descriptor counts and the arenas' files (named "zefake-arena" in /proc/self/fd) are zefake's, so these tests run
 * on the fake only. Out-of-bounds kernel accesses between neighbouring sub-allocations are covered by
 * test_spirv_memory (its buffers are neighbours in an arena); IPC of a sub-allocation by test_memory_ipc. */
#include "zc_memory.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#define ZC_MANY   30000u /* more than a process's default RLIMIT_NOFILE of 1024, or the 20000 others allow */
#define ZC_CYCLES 5000u

/* The process's open descriptors, and the bytes of memory held by the files of zefake's arenas among them. */
static unsigned zc_descriptors(uint64_t *arena_bytes) {
    DIR *dir = opendir("/proc/self/fd");
    assert_non_null(dir);
    unsigned count = 0;
    *arena_bytes = 0;
    for (struct dirent *entry; (entry = readdir(dir)) != NULL;) {
        if (entry->d_name[0] == '.')
            continue;
        count++;
        char path[300], target[256];
        snprintf(path, sizeof path, "/proc/self/fd/%s", entry->d_name);
        ssize_t n = readlink(path, target, sizeof target - 1);
        struct stat st;
        if (n > 0 && (target[n] = '\0', strstr(target, "memfd:zefake-arena") != NULL) && stat(path, &st) == 0)
            *arena_bytes += (uint64_t)st.st_blocks * 512u;
    }
    closedir(dir);
    return count - 1; /* the directory's own */
}

static void arena_many_allocations_few_descriptors(void **state) {
    zc_skip_unless_fake();
    ze_context_handle_t context = *state;
    ze_device_handle_t device = zc_sys()->roots[0];
    uint64_t bytes = 0;
    unsigned before = zc_descriptors(&bytes);
    uint8_t **ptrs = calloc(ZC_MANY, sizeof *ptrs);
    assert_non_null(ptrs);
    for (uint32_t i = 0; i < ZC_MANY; i++) {
        zc_assert_success(zc_alloc(context, ZC_DEVICE, device, 4096, 0, (void **)&ptrs[i]));
        assert_int_equal((uintptr_t)ptrs[i] % (64u << 10), 0); /* device pages are still 64 KiB */
        memset(ptrs[i], (int)(i & 0xFF), 4096);
    }
    unsigned live = zc_descriptors(&bytes);
    if (live > before + 4)
        zc_fail("%u allocations hold %u descriptors more than none", ZC_MANY, live - before);
    for (uint32_t i = 0; i < ZC_MANY; i += 997) {
        assert_int_equal(ptrs[i][0], i & 0xFF);
        assert_int_equal(ptrs[i][4095], i & 0xFF);
        assert_int_equal(zc_alloc_properties(context, ptrs[i] + 100, NULL).pageSize, 64u << 10);
        void *base = NULL;
        size_t size = 0;
        zc_assert_success(zeMemGetAddressRange(context, ptrs[i] + 4095, &base, &size));
        assert_ptr_equal(base, ptrs[i]);
        assert_int_equal(size, 4096);
        /* The padding up to the next device page is no allocation's, although an arena maps it. */
        assert_int_equal(zc_alloc_properties(context, ptrs[i] + 4096, NULL).type, ZE_MEMORY_TYPE_UNKNOWN);
    }
    for (uint32_t i = 0; i < ZC_MANY; i++)
        zc_assert_success(zeMemFree(context, ptrs[i]));
    free(ptrs);
}

/* Allocation and free in a loop: after the quarantine of freed ranges (docs/memory.md) the same ranges come back,
 * and the pages of freed ones do not stay in the arenas' files. */
static void arena_freed_ranges_reused_and_released(void **state) {
    zc_skip_unless_fake();
    ze_context_handle_t context = *state;
    ze_device_handle_t device = zc_sys()->roots[0];
    const size_t size = 64u << 10;
    void **bases = calloc(ZC_CYCLES, sizeof *bases);
    assert_non_null(bases);
    uint64_t bytes_before = 0, bytes_after = 0;
    zc_descriptors(&bytes_before);
    for (uint32_t i = 0; i < ZC_CYCLES; i++) {
        zc_assert_success(zc_alloc(context, ZC_DEVICE, device, size, 0, &bases[i]));
        memset(bases[i], 0x5A, size);
        zc_assert_success(zeMemFree(context, bases[i]));
    }
    zc_descriptors(&bytes_after);
    unsigned distinct = 0;
    for (uint32_t i = 0; i < ZC_CYCLES; i++) {
        bool seen = false;
        for (uint32_t j = 0; j < i && !seen; j++)
            seen = bases[j] == bases[i];
        distinct += !seen;
    }
    free(bases);
    if (distinct >= 2048)
        zc_fail("%u allocations and frees used %u distinct ranges: freed ranges are not reused", ZC_CYCLES, distinct);
    if (bytes_after > bytes_before + (8u << 20))
        zc_fail("the arenas hold %llu bytes more after %u allocations freed",
                (unsigned long long)(bytes_after - bytes_before), ZC_CYCLES);
}

int main(int argc, char **argv) {
    static const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(arena_many_allocations_few_descriptors, zc_setup_context, zc_teardown_context),
        cmocka_unit_test_setup_teardown(arena_freed_ranges_reused_and_released, zc_setup_context, zc_teardown_context),
    };
    static const zc_suite suite = {ZC_EXECUTABLE, tests, ZC_COUNT(tests), zc_setup_system, zc_teardown_system, NULL, 0};
    return zc_main(argc, argv, &suite);
}
