/* Conformance: virtual memory (zeVirtualMemQueryPageSize, Reserve, Free, Map, Unmap, SetAccessAttribute,
 * GetAccessAttribute): reservations with and without start hints, several mappings of one physical memory object seeing
 * the same bytes, partial unmaps, access attributes, copies into mapped ranges, and misuse answered per the
 * specification (on the fake, docs/virtual-memory.md). */
#include "zc_exec.h"
#include "zc_kernel_files.h"

#include <stdio.h>
#include <string.h>

static size_t zc_page(zc_exec *x) {
    size_t page = 0;
    zc_assert_success(zeVirtualMemQueryPageSize(x->context, x->device, 1, &page));
    return page;
}

static ze_physical_mem_handle_t zc_physical(zc_exec *x, size_t size) {
    ze_physical_mem_desc_t desc = {ZE_STRUCTURE_TYPE_PHYSICAL_MEM_DESC, NULL, 0, size};
    ze_physical_mem_handle_t physical = NULL;
    zc_assert_success(zePhysicalMemCreate(x->context, x->device, &desc, &physical));
    return physical;
}

/* A reservation of `size` bytes where the implementation chooses (no start hint). */
static void *zc_reserve(zc_exec *x, size_t size) {
    void *ptr = NULL;
    zc_assert_success(zeVirtualMemReserve(x->context, NULL, size, &ptr));
    assert_non_null(ptr);
    return ptr;
}

static void virtual_page_size_query(void **state) {
    zc_exec *x = *state;
    size_t small = 0, large = 0;
    zc_assert_success(zeVirtualMemQueryPageSize(x->context, x->device, 4096, &small));
    zc_assert_success(zeVirtualMemQueryPageSize(x->context, x->device, (size_t)1 << 30, &large));
    assert_true(small > 0 && (small & (small - 1)) == 0);
    assert_true(large >= small && (large & (large - 1)) == 0);
    zc_assert_result(zeVirtualMemQueryPageSize(x->context, x->device, 0, &small), ZE_RESULT_ERROR_UNSUPPORTED_SIZE);
    zc_assert_result(zeVirtualMemQueryPageSize(x->context, x->device, 1, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    if (zc_driver_is_fake()) {
        assert_int_equal(small, 64u << 10);
        assert_int_equal(large, 2u << 20);
    }
}

static void virtual_reserve_with_hints(void **state) {
    zc_exec *x = *state;
    size_t page = zc_page(x);
    void *first = zc_reserve(x, 4 * page);
    assert_int_equal((uintptr_t)first % page, 0);
    /* Growing: ask for the range right after; an implementation may put it elsewhere. */
    void *next_hint = (char *)first + 4 * page, *next = NULL;
    zc_assert_success(zeVirtualMemReserve(x->context, next_hint, 4 * page, &next));
    assert_int_equal((uintptr_t)next % page, 0);
    /* A free hint (a range just released) is where the reservation goes on the fake (elsewhere, only a hint). */
    void *free_hint = zc_reserve(x, page), *hinted = NULL;
    zc_assert_success(zeVirtualMemFree(x->context, free_hint, page));
    zc_assert_success(zeVirtualMemReserve(x->context, free_hint, page, &hinted));
    assert_int_equal((uintptr_t)hinted % page, 0);
    if (zc_driver_is_fake())
        assert_ptr_equal(hinted, free_hint);
    zc_assert_success(zeVirtualMemFree(x->context, hinted, page));
    /* A hint inside an existing reservation cannot be honoured: another range comes back. */
    void *again = NULL;
    zc_assert_success(zeVirtualMemReserve(x->context, first, page, &again));
    assert_ptr_not_equal(again, first);
    zc_assert_success(zeVirtualMemFree(x->context, again, page));
    zc_assert_success(zeVirtualMemFree(x->context, next, 4 * page));
    zc_assert_success(zeVirtualMemFree(x->context, first, 4 * page));
    /* A large range costs address space only. */
    void *huge = zc_reserve(x, (size_t)1 << 36);
    zc_assert_success(zeVirtualMemFree(x->context, huge, (size_t)1 << 36));
}

static void virtual_two_mappings_share_physical_memory(void **state) {
    zc_exec *x = *state;
    zc_skip_unless_fake(); /* the host reads mapped device memory */
    size_t page = zc_page(x);
    ze_physical_mem_handle_t physical = zc_physical(x, 2 * page);
    char *a = zc_reserve(x, 2 * page), *b = zc_reserve(x, 3 * page);
    zc_assert_success(zeVirtualMemMap(x->context, a, 2 * page, physical, 0, ZE_MEMORY_ACCESS_ATTRIBUTE_READWRITE));
    /* b's second page maps the physical memory's second page. */
    zc_assert_success(
        zeVirtualMemMap(x->context, b + page, page, physical, page, ZE_MEMORY_ACCESS_ATTRIBUTE_READWRITE));
    strcpy(a + page + 100, "written through the first mapping");
    if (strcmp(b + page + 100, "written through the first mapping") != 0)
        zc_fail("the second mapping does not show what the first one wrote");
    b[page + 7] = 42;
    assert_int_equal(a[page + 7], 42);
    zc_assert_success(zeVirtualMemUnmap(x->context, b + page, page));
    zc_assert_success(zeVirtualMemUnmap(x->context, a, 2 * page));
    /* Mapped again after an unmap, the memory kept its bytes. */
    zc_assert_success(zeVirtualMemMap(x->context, b, page, physical, page, ZE_MEMORY_ACCESS_ATTRIBUTE_READWRITE));
    assert_int_equal(b[7], 42);
    zc_assert_success(zeVirtualMemFree(x->context, b, 3 * page)); /* unmaps what is still mapped */
    zc_assert_success(zeVirtualMemFree(x->context, a, 2 * page));
    zc_assert_success(zePhysicalMemDestroy(x->context, physical));
}

static void virtual_copies_reach_mapped_memory(void **state) {
    zc_exec *x = *state;
    size_t page = zc_page(x);
    ze_physical_mem_handle_t physical = zc_physical(x, 2 * page);
    char *va = zc_reserve(x, 2 * page);
    zc_assert_success(zeVirtualMemMap(x->context, va, 2 * page, physical, 0, ZE_MEMORY_ACCESS_ATTRIBUTE_READWRITE));
    uint8_t *in = zc_host_alloc(x, 2 * page), *out = zc_host_alloc(x, 2 * page);
    zc_fill_pattern(in, 2 * page, 13);
    memset(out, 0, 2 * page);
    ze_command_list_handle_t list = zc_immediate(x, x->compute_ordinal, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
    zc_assert_success(zeCommandListAppendMemoryCopy(list, va, in, 2 * page, NULL, 0, NULL));
    zc_assert_success(zeCommandListAppendMemoryCopy(list, out, va, 2 * page, NULL, 0, NULL));
    if (memcmp(in, out, 2 * page) != 0)
        zc_fail("data copied into a mapped range did not come back");
    zc_assert_success(zeCommandListDestroy(list));
    zc_free(x, in);
    zc_free(x, out);
    zc_assert_success(zeVirtualMemFree(x->context, va, 2 * page));
    zc_assert_success(zePhysicalMemDestroy(x->context, physical));
}

static void virtual_access_attributes(void **state) {
    zc_exec *x = *state;
    size_t page = zc_page(x);
    ze_physical_mem_handle_t physical = zc_physical(x, 4 * page);
    char *va = zc_reserve(x, 8 * page);
    ze_memory_access_attribute_t access = ZE_MEMORY_ACCESS_ATTRIBUTE_READWRITE;
    size_t run = 0;
    /* Reserved, not mapped: no access. */
    zc_assert_success(zeVirtualMemGetAccessAttribute(x->context, va, 8 * page, &access, &run));
    assert_int_equal(access, ZE_MEMORY_ACCESS_ATTRIBUTE_NONE);
    zc_assert_success(
        zeVirtualMemMap(x->context, va + 2 * page, 4 * page, physical, 0, ZE_MEMORY_ACCESS_ATTRIBUTE_READWRITE));
    zc_assert_success(
        zeVirtualMemSetAccessAttribute(x->context, va + 4 * page, page, ZE_MEMORY_ACCESS_ATTRIBUTE_READONLY));
    zc_assert_success(zeVirtualMemGetAccessAttribute(x->context, va + 2 * page, 4 * page, &access, &run));
    assert_int_equal(access, ZE_MEMORY_ACCESS_ATTRIBUTE_READWRITE);
    assert_int_equal(run, 2 * page); /* then the read-only page */
    zc_assert_success(zeVirtualMemGetAccessAttribute(x->context, va + 4 * page, page, &access, &run));
    assert_int_equal(access, ZE_MEMORY_ACCESS_ATTRIBUTE_READONLY);
    assert_int_equal(run, page);
    if (zc_driver_is_fake()) {
        /* The first two pages are unmapped: NONE, for two pages. */
        zc_assert_success(zeVirtualMemGetAccessAttribute(x->context, va, 8 * page, &access, &run));
        assert_int_equal(access, ZE_MEMORY_ACCESS_ATTRIBUTE_NONE);
        assert_int_equal(run, 2 * page);
        zc_assert_success(zeVirtualMemUnmap(x->context, va + 3 * page, 2 * page)); /* the middle of a mapping */
        zc_assert_success(zeVirtualMemGetAccessAttribute(x->context, va + 2 * page, 4 * page, &access, &run));
        assert_int_equal(access, ZE_MEMORY_ACCESS_ATTRIBUTE_READWRITE);
        assert_int_equal(run, page);
        zc_assert_success(zeVirtualMemGetAccessAttribute(x->context, va + 5 * page, page, &access, &run));
        assert_int_equal(access, ZE_MEMORY_ACCESS_ATTRIBUTE_READWRITE);
    }
    zc_assert_success(zeVirtualMemFree(x->context, va, 8 * page));
    zc_assert_success(zePhysicalMemDestroy(x->context, physical));
}

static void virtual_misuse_answered(void **state) {
    zc_exec *x = *state;
    zc_skip_unless_fake(); /* the specification names no error for several of these (docs/virtual-memory.md) */
    size_t page = zc_page(x);
    ze_physical_mem_handle_t physical = zc_physical(x, 2 * page);
    char *va = zc_reserve(x, 4 * page);
    const ze_memory_access_attribute_t rw = ZE_MEMORY_ACCESS_ATTRIBUTE_READWRITE;
    /* Unaligned addresses, sizes and offsets. */
    zc_assert_result(zeVirtualMemMap(x->context, va + 1, page, physical, 0, rw), ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT);
    zc_assert_result(zeVirtualMemMap(x->context, va, page + 1, physical, 0, rw), ZE_RESULT_ERROR_UNSUPPORTED_SIZE);
    zc_assert_result(zeVirtualMemMap(x->context, va, page, physical, 1, rw), ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT);
    void *ignored = NULL;
    zc_assert_result(zeVirtualMemReserve(x->context, va + 1, page, &ignored), ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT);
    zc_assert_result(zeVirtualMemReserve(x->context, va, page + 1, &ignored), ZE_RESULT_ERROR_UNSUPPORTED_SIZE);
    /* Beyond the physical memory, outside the reservation, over a mapping. */
    zc_assert_result(zeVirtualMemMap(x->context, va, 2 * page, physical, page, rw), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    zc_assert_result(zeVirtualMemMap(x->context, va + 3 * page, 2 * page, physical, 0, rw),
                     ZE_RESULT_ERROR_INVALID_ARGUMENT);
    zc_assert_success(zeVirtualMemMap(x->context, va, 2 * page, physical, 0, rw));
    zc_assert_result(zeVirtualMemMap(x->context, va + page, page, physical, 0, rw), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    /* Unmapping or protecting what is not mapped. */
    zc_assert_result(zeVirtualMemUnmap(x->context, va + page, 2 * page), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    zc_assert_result(zeVirtualMemUnmap(x->context, va + 2 * page, page), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    zc_assert_result(zeVirtualMemSetAccessAttribute(x->context, va + 2 * page, page, rw),
                     ZE_RESULT_ERROR_INVALID_ARGUMENT);
    zc_assert_result(zeVirtualMemUnmap(x->context, va, page + 1), ZE_RESULT_ERROR_UNSUPPORTED_SIZE);
    zc_assert_result(zeVirtualMemUnmap(x->context, va + 1, page), ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT);
    /* Freeing what is not a reservation, or with another size. */
    zc_assert_result(zeVirtualMemFree(x->context, va + page, page), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    zc_assert_result(zeVirtualMemFree(x->context, va, 2 * page), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    /* Another context's reservation or physical memory. */
    ze_context_handle_t other = NULL;
    ze_context_desc_t cd = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0};
    zc_assert_success(zeContextCreate(zc_sys()->driver, &cd, &other));
    zc_assert_result(zeVirtualMemFree(other, va, 4 * page), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    zc_assert_result(zeVirtualMemMap(other, va + 2 * page, page, physical, 0, rw), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    zc_assert_success(zeContextDestroy(other));
    zc_assert_success(zeVirtualMemFree(x->context, va, 4 * page));
    zc_assert_success(zePhysicalMemDestroy(x->context, physical));
}

static void virtual_bad_arguments(void **state) {
    zc_exec *x = *state;
    size_t page = zc_page(x);
    void *ptr = NULL;
    ze_memory_access_attribute_t access;
    size_t run = 0;
    const void *hint = (void *)(uintptr_t)(64u << 20);
    zc_assert_result(zeVirtualMemReserve(NULL, hint, page, &ptr), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zeVirtualMemReserve(x->context, hint, 0, &ptr), ZE_RESULT_ERROR_UNSUPPORTED_SIZE);
    zc_assert_result(zeVirtualMemReserve(x->context, hint, page, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zeVirtualMemFree(x->context, NULL, page), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zeVirtualMemFree(x->context, hint, 0), ZE_RESULT_ERROR_UNSUPPORTED_SIZE);
    zc_assert_result(zeVirtualMemMap(x->context, hint, page, NULL, 0, ZE_MEMORY_ACCESS_ATTRIBUTE_READWRITE),
                     ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zeVirtualMemUnmap(x->context, NULL, page), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zeVirtualMemSetAccessAttribute(x->context, hint, page, (ze_memory_access_attribute_t)3),
                     ZE_RESULT_ERROR_INVALID_ENUMERATION);
    zc_assert_result(zeVirtualMemGetAccessAttribute(x->context, hint, page, NULL, &run),
                     ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zeVirtualMemGetAccessAttribute(x->context, hint, page, &access, NULL),
                     ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zeVirtualMemReserve(x->context, NULL, page, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
}

/* A destroyed context reserves, maps and frees nothing (zefake detects the stale handle; elsewhere it is undefined). */
static void virtual_destroyed_context_refused(void **state) {
    (void)state;
    zc_skip_unless_fake();
    ze_context_handle_t context = NULL;
    ze_context_desc_t cd = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0};
    zc_assert_success(zeContextCreate(zc_sys()->driver, &cd, &context));
    size_t page = 0;
    zc_assert_success(zeVirtualMemQueryPageSize(context, zc_sys()->roots[0], 1, &page));
    zc_assert_success(zeContextDestroy(context));
    void *va = NULL;
    zc_assert_result(zeVirtualMemReserve(context, NULL, page, &va), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    assert_null(va);
    zc_assert_result(zeVirtualMemQueryPageSize(context, zc_sys()->roots[0], 1, &page),
                     ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    ze_physical_mem_desc_t desc = {ZE_STRUCTURE_TYPE_PHYSICAL_MEM_DESC, NULL, 0, page};
    ze_physical_mem_handle_t physical = NULL;
    zc_assert_result(zePhysicalMemCreate(context, zc_sys()->roots[0], &desc, &physical),
                     ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
}

static void virtual_context_destroy_releases_reservations(void **state) {
    (void)state;
    zc_skip_unless_fake();
    ze_context_handle_t context = NULL;
    ze_context_desc_t cd = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0};
    zc_assert_success(zeContextCreate(zc_sys()->driver, &cd, &context));
    void *va = NULL;
    zc_assert_success(zeVirtualMemReserve(context, (void *)(uintptr_t)(64u << 20), 64u << 10, &va));
    zc_assert_success(zeContextDestroy(context));
    /* The range is free again: a new reservation may take exactly it. */
    zc_assert_success(zeContextCreate(zc_sys()->driver, &cd, &context));
    void *again = NULL;
    zc_assert_success(zeVirtualMemReserve(context, va, 64u << 10, &again));
    assert_ptr_equal(again, va);
    zc_assert_success(zeVirtualMemFree(context, again, 64u << 10));
    zc_assert_success(zeContextDestroy(context));
}

/* Child mode "unmapped-copy": a copy into a reserved page that is not mapped, in a fresh process (the fault marks the
 * device lost for the rest of the process). */
static int zc_child_unmapped_copy(int argc, char **argv) {
    (void)argc;
    (void)argv;
    zc_exec *x = zc_child_exec_begin();
    if (x == NULL)
        return 3;
    void *va = NULL;
    if (zeVirtualMemReserve(x->context, (void *)(uintptr_t)(64u << 20), 64u << 10, &va) != ZE_RESULT_SUCCESS)
        return 4;
    uint32_t value = 42;
    ze_command_list_handle_t list = zc_immediate(x, x->compute_ordinal, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
    printf("copy=%u\n", (unsigned)zeCommandListAppendMemoryCopy(list, va, &value, sizeof value, NULL, 0, NULL));
    printf("status=%u\n", (unsigned)zeDeviceGetStatus(x->device));
    zeCommandListDestroy(list);
    zeVirtualMemFree(x->context, va, 64u << 10);
    return zc_child_exec_end(x);
}

static void virtual_unmapped_pages_fault_instead_of_crashing(void **state) {
    (void)state;
    zc_skip_unless_fake(); /* how a device fault is reported is zefake's (docs/cost-model.md, "Faults") */
    zc_child child;
    if (!zc_run_child_mode("unmapped-copy", NULL, NULL, ZC_CHILD_TIMEOUT_MS, &child))
        zc_fail("cannot start the child process");
    zc_assert_child_ok(&child, "the process copying into an unmapped page");
    assert_int_equal(zc_child_number(&child, "copy"), ZE_RESULT_SUCCESS);
    assert_int_equal(zc_child_number(&child, "status"), ZE_RESULT_ERROR_DEVICE_LOST);
    zc_child_free(&child);
}

/* A mapping of one physical page at a fresh reservation, with `access`. */
static void *zc_mapped_page(zc_exec *x, ze_memory_access_attribute_t access, ze_physical_mem_handle_t *physical) {
    size_t page = zc_page(x);
    void *va = zc_reserve(x, page);
    *physical = zc_physical(x, page);
    zc_assert_success(zeVirtualMemMap(x->context, va, page, *physical, 0, access));
    return va;
}

/* Launches the fill kernel (dst[i] = value) over `items` work-items in groups of 64. */
static ze_result_t zc_fill_kernel(zc_exec *x, ze_command_list_handle_t list, void *dst, int32_t value, uint32_t items) {
    ze_module_handle_t module = zc_module_create(x->context, x->device, "fill");
    ze_kernel_handle_t kernel = zc_kernel_create(module, "fill");
    zc_assert_success(zeKernelSetArgumentValue(kernel, 0, sizeof dst, &dst));
    zc_assert_success(zeKernelSetArgumentValue(kernel, 1, sizeof value, &value));
    zc_assert_success(zeKernelSetGroupSize(kernel, 64, 1, 1));
    ze_group_count_t groups = {items / 64, 1, 1};
    ze_result_t result = zeCommandListAppendLaunchKernel(list, kernel, &groups, NULL, 0, NULL);
    zc_assert_success(zeKernelDestroy(kernel));
    zc_assert_success(zeModuleDestroy(module));
    return result;
}

static void virtual_kernels_reach_mapped_memory(void **state) {
    zc_exec *x = *state;
    ze_physical_mem_handle_t physical = NULL;
    void *va = zc_mapped_page(x, ZE_MEMORY_ACCESS_ATTRIBUTE_READWRITE, &physical);
    ze_command_list_handle_t list = zc_immediate(x, x->compute_ordinal, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
    zc_assert_success(zc_fill_kernel(x, list, va, 77, 256));
    int32_t *host = zc_host_alloc(x, 256 * sizeof *host);
    memset(host, 0, 256 * sizeof *host);
    zc_assert_success(zeCommandListAppendMemoryCopy(list, host, va, 256 * sizeof *host, NULL, 0, NULL));
    for (int i = 0; i < 256; i++)
        if (host[i] != 77)
            zc_fail("element %d read back through a copy: %d, expected 77", i, host[i]);
    zc_assert_success(zeDeviceGetStatus(x->device));
    zc_free(x, host);
    zc_assert_success(zeCommandListDestroy(list));
    zc_assert_success(zeVirtualMemUnmap(x->context, va, zc_page(x)));
    zc_assert_success(zeVirtualMemFree(x->context, va, zc_page(x)));
    zc_assert_success(zePhysicalMemDestroy(x->context, physical));
}

/* Child mode "read-only-write <kernel|fill|copy>": a device write into a page mapped read-only, in a fresh process
 * (the fault marks the device lost for the rest of the process). */
static int zc_child_read_only_write(int argc, char **argv) {
    zc_exec *x = zc_child_exec_begin();
    if (x == NULL || argc < 1)
        return 3;
    ze_physical_mem_handle_t physical = NULL;
    int32_t *va = zc_mapped_page(x, ZE_MEMORY_ACCESS_ATTRIBUTE_READWRITE, &physical);
    va[0] = 5; /* the host writes it first, then the device may only read it */
    zc_assert_success(zeVirtualMemSetAccessAttribute(x->context, va, zc_page(x), ZE_MEMORY_ACCESS_ATTRIBUTE_READONLY));
    ze_command_list_handle_t list = zc_immediate(x, x->compute_ordinal, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
    int32_t value = 42;
    ze_result_t appended = ZE_RESULT_SUCCESS;
    if (strcmp(argv[0], "kernel") == 0)
        appended = zc_fill_kernel(x, list, va, value, 64);
    else if (strcmp(argv[0], "fill") == 0)
        appended = zeCommandListAppendMemoryFill(list, va, &value, sizeof value, 64, NULL, 0, NULL);
    else
        appended = zeCommandListAppendMemoryCopy(list, va, &value, sizeof value, NULL, 0, NULL);
    printf("append=%u\nstatus=%u\nvalue=%d\n", (unsigned)appended, (unsigned)zeDeviceGetStatus(x->device), va[0]);
    zeCommandListDestroy(list);
    zeVirtualMemUnmap(x->context, va, zc_page(x));
    zeVirtualMemFree(x->context, va, zc_page(x));
    zePhysicalMemDestroy(x->context, physical);
    return zc_child_exec_end(x);
}

static void virtual_read_only_pages_refuse_device_writes(void **state) {
    (void)state;
    zc_skip_unless_fake(); /* how a device fault is reported is zefake's (docs/cost-model.md, "Faults") */
    const char *const ways[] = {"kernel", "fill", "copy"};
    for (size_t i = 0; i < ZC_COUNT(ways); i++) {
        const char *args[] = {ways[i], NULL};
        zc_child child;
        if (!zc_run_child_mode("read-only-write", args, NULL, ZC_CHILD_TIMEOUT_MS, &child))
            zc_fail("cannot start the child process");
        zc_assert_child_ok(&child, "the process writing into a read-only page");
        assert_int_equal(zc_child_number(&child, "append"), ZE_RESULT_SUCCESS);
        assert_int_equal(zc_child_number(&child, "status"), ZE_RESULT_ERROR_DEVICE_LOST);
        assert_int_equal(zc_child_number(&child, "value"), 5); /* nothing was written */
        if (strstr(child.err, "read-only") == NULL)
            zc_fail("%s: the diagnostic does not say the page is read-only:\n%s", ways[i], child.err);
        zc_child_free(&child);
    }
}

int main(int argc, char **argv) {
    static const struct CMUnitTest tests[] = {
#define ZC_FIXTURE exec
        ZC_T(virtual_page_size_query),
        ZC_T(virtual_reserve_with_hints),
        ZC_T(virtual_two_mappings_share_physical_memory),
        ZC_T(virtual_copies_reach_mapped_memory),
        ZC_T(virtual_access_attributes),
        ZC_T(virtual_misuse_answered),
        ZC_T(virtual_bad_arguments),
        cmocka_unit_test(virtual_destroyed_context_refused),
        cmocka_unit_test(virtual_context_destroy_releases_reservations),
        cmocka_unit_test(virtual_unmapped_pages_fault_instead_of_crashing),
        ZC_T(virtual_kernels_reach_mapped_memory),
        cmocka_unit_test(virtual_read_only_pages_refuse_device_writes),
#undef ZC_FIXTURE
    };
    static const zc_child_mode modes[] = {{"unmapped-copy", zc_child_unmapped_copy},
                                          {"read-only-write", zc_child_read_only_write}};
    static const zc_suite suite = {
        ZC_EXECUTABLE, tests, ZC_COUNT(tests), zc_setup_system, zc_teardown_system, modes, ZC_COUNT(modes),
    };
    return zc_main(argc, argv, &suite);
}
