/* Conformance: unified shared memory (zeMemAllocHost/Device/Shared, zeMemFree, zeMemFreeExt, zeMemGetAllocProperties,
 * zeMemGetAddressRange, residency): data, properties and ranges, frees, bad arguments, device memory limits and
 * accounting, threads. IPC memory handles are test_memory_ipc.c's.
 *
 * The host reads and writes device allocations only on the fake, whose device memory is host memory; on other
 * drivers those allocations are checked without being touched. Limits come from the device's properties. Frees of
 * memory that submitted commands still use: the blocking policy waits for them, the others free it after them. */
#include "zc_exec.h"
#include "zc_memory.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zefake/zefake_ext.h>

#define ZC_THREADS           8
#define ZC_ALLOCS_PER_THREAD 200
#define ZC_MAX_CHUNKS        64 /* allocations needed to fill a device in the out-of-memory tests */

/* ------------------------------------------------------------------------------------------------------------------
 * Allocation and data */

static void memory_write_read_every_type_and_device(void **state) {
    ze_context_handle_t context = *state;
    const zc_system *sys = zc_sys();
    const size_t size = (1u << 20) + 3; /* not a multiple of any page size */
    for (uint32_t d = 0; d < sys->num_all; d++) {
        for (int kind = 0; kind < ZC_KINDS; kind++) {
            void *ptr = NULL;
            zc_assert_success(zc_alloc(context, (zc_kind)kind, sys->all[d], size, 0, &ptr));
            assert_non_null(ptr);
            if (zc_host_can_touch((zc_kind)kind)) {
                zc_fill(ptr, size, (uint32_t)(d * ZC_KINDS + kind));
                zc_assert_pattern(ptr, size, (uint32_t)(d * ZC_KINDS + kind), zc_kind_names[kind]);
            }
            zc_assert_success(zeMemFree(context, ptr));
        }
    }
}

static void memory_allocations_do_not_overlap(void **state) {
    ze_context_handle_t context = *state;
    enum { N = 16 };
    void *ptrs[N];
    const size_t size = 10000;
    for (int i = 0; i < N; i++) {
        zc_assert_success(zc_alloc(context, (zc_kind)(i % ZC_KINDS), zc_sys()->roots[0], size, 0, &ptrs[i]));
        for (int j = 0; j < i; j++) {
            uintptr_t a = (uintptr_t)ptrs[i], b = (uintptr_t)ptrs[j];
            assert_true(a + size <= b || b + size <= a);
        }
    }
    for (int i = 0; i < N; i++)
        zc_assert_success(zeMemFree(context, ptrs[i]));
}

static void memory_alignment_honoured(void **state) {
    ze_context_handle_t context = *state;
    static const size_t alignments[] = {0, 1, 2, 8, 64, 4096, 65536, 2u << 20, 1u << 30};
    for (size_t a = 0; a < ZC_COUNT(alignments); a++) {
        for (int kind = 0; kind < ZC_KINDS; kind++) {
            void *ptr = NULL;
            zc_assert_success(zc_alloc(context, (zc_kind)kind, zc_sys()->roots[0], 4096 + 1, alignments[a], &ptr));
            if (alignments[a] > 0 && (uintptr_t)ptr % alignments[a] != 0)
                fail_msg("%s allocation aligned to %zu: got %p", zc_kind_names[kind], alignments[a], ptr);
            if (zc_host_can_touch((zc_kind)kind)) {
                ((volatile uint8_t *)ptr)[0] = 1;
                ((volatile uint8_t *)ptr)[4096] = 2;
            }
            zc_assert_success(zeMemFree(context, ptr));
        }
    }
}

static void memory_alignment_not_power_of_two_unsupported_alignment(void **state) {
    ze_context_handle_t context = *state;
    static const size_t alignments[] = {3, 48, 4097, ((size_t)1 << 40) + 1};
    for (size_t a = 0; a < ZC_COUNT(alignments); a++) {
        for (int kind = 0; kind < ZC_KINDS; kind++) {
            void *ptr = NULL;
            zc_assert_result(zc_alloc(context, (zc_kind)kind, zc_sys()->roots[0], 64, alignments[a], &ptr),
                             ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT);
        }
    }
}

static void memory_alignment_above_limit_unsupported_alignment(void **state) {
    ze_context_handle_t context = *state;
    /* A power of two, but more address space than zefake reserves to align (1 TiB). */
    zc_skip_unless_fake();
    void *ptr = NULL;
    zc_assert_result(zc_alloc(context, ZC_HOST, NULL, 64, (size_t)1 << 41, &ptr),
                     ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT);
}

static void memory_size_zero_unsupported_size(void **state) {
    ze_context_handle_t context = *state;
    for (int kind = 0; kind < ZC_KINDS; kind++) {
        void *ptr = NULL;
        zc_assert_result(zc_alloc(context, (zc_kind)kind, zc_sys()->roots[0], 0, 0, &ptr),
                         ZE_RESULT_ERROR_UNSUPPORTED_SIZE);
    }
}

static void memory_size_above_max_alloc_unsupported_size(void **state) {
    ze_context_handle_t context = *state;
    const zc_system *sys = zc_sys();
    for (uint32_t d = 0; d < sys->num_all; d++) {
        uint64_t max = zc_max_alloc(sys->all[d]);
        if (max >= SIZE_MAX)
            continue;
        void *ptr = NULL;
        zc_assert_result(zc_alloc(context, ZC_DEVICE, sys->all[d], (size_t)max + 1, 0, &ptr),
                         ZE_RESULT_ERROR_UNSUPPORTED_SIZE);
        zc_assert_result(zc_alloc(context, ZC_SHARED, sys->all[d], (size_t)max + 1, 0, &ptr),
                         ZE_RESULT_ERROR_UNSUPPORTED_SIZE);
    }
}

static void memory_host_size_limits(void **state) {
    ze_context_handle_t context = *state;
    /* Host allocations are limited by the smallest maxMemAllocSize of the context's devices (zefake's reading). */
    zc_skip_unless_fake();
    const zc_system *sys = zc_sys();
    uint64_t limit = UINT64_MAX;
    for (uint32_t i = 0; i < sys->num_roots; i++) {
        uint64_t max = zc_max_alloc(sys->roots[i]);
        limit = max < limit ? max : limit;
    }
    void *ptr = NULL;
    zc_assert_result(zc_alloc(context, ZC_HOST, NULL, (size_t)limit + 1, 0, &ptr), ZE_RESULT_ERROR_UNSUPPORTED_SIZE);
    zc_assert_result(zc_alloc(context, ZC_SHARED_UNBOUND, NULL, (size_t)limit + 1, 0, &ptr),
                     ZE_RESULT_ERROR_UNSUPPORTED_SIZE);
    zc_assert_success(zc_alloc(context, ZC_HOST, NULL, (size_t)limit, 0, &ptr)); /* the limit itself is allowed */
    zc_assert_success(zeMemFree(context, ptr));
}

static void memory_relaxed_limits_lift_max_alloc_size(void **state) {
    ze_context_handle_t context = *state;
    zc_skip_unless_fake();
    ze_device_handle_t device = zc_sys()->roots[0];
    uint64_t max = zc_max_alloc(device), total = zc_total_memory(device);
    ze_relaxed_allocation_limits_exp_desc_t relaxed = {ZE_STRUCTURE_TYPE_RELAXED_ALLOCATION_LIMITS_EXP_DESC, NULL,
                                                       ZE_RELAXED_ALLOCATION_LIMITS_EXP_FLAG_MAX_SIZE};
    ze_device_mem_alloc_desc_t desc = {ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, &relaxed, 0, 0};
    void *ptr = NULL;
    /* Past maxMemAllocSize: allowed, as long as the device has the memory. */
    ze_result_t result = zeMemAllocDevice(context, &desc, (size_t)max + 1, 0, device, &ptr);
    if (max < total) {
        zc_assert_result(result, ZE_RESULT_SUCCESS);
        zc_assert_success(zeMemFree(context, ptr));
    } else {
        zc_assert_result(result, ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY);
    }
    ze_host_mem_alloc_desc_t host = {ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, &relaxed, 0};
    zc_assert_success(zeMemAllocHost(context, &host, (size_t)max + 1, 0, &ptr));
    zc_assert_success(zeMemFree(context, ptr));
    relaxed.flags = 0x2; /* undefined */
    zc_assert_result(zeMemAllocDevice(context, &desc, 64, 0, device, &ptr), ZE_RESULT_ERROR_INVALID_ENUMERATION);
}

static void memory_flags_accepted(void **state) {
    ze_context_handle_t context = *state;
    ze_device_handle_t device = zc_sys()->roots[0];
    for (uint32_t flags = 0; flags <= 0x7; flags++) {
        ze_device_mem_alloc_desc_t desc = {ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, NULL, flags, 0};
        void *ptr = NULL;
        zc_assert_success(zeMemAllocDevice(context, &desc, 256, 0, device, &ptr));
        zc_assert_success(zeMemFree(context, ptr));
    }
    for (uint32_t flags = 0; flags <= 0xf; flags++) {
        ze_host_mem_alloc_desc_t desc = {ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, NULL, flags};
        void *ptr = NULL;
        zc_assert_success(zeMemAllocHost(context, &desc, 256, 0, &ptr));
        zc_assert_success(zeMemFree(context, ptr));
    }
}

/* ------------------------------------------------------------------------------------------------------------------
 * Properties and ranges */

static void memory_alloc_properties_each_type(void **state) {
    ze_context_handle_t context = *state;
    const zc_system *sys = zc_sys();
    uint64_t ids[64];
    unsigned num_ids = 0;
    for (uint32_t d = 0; d < sys->num_all && num_ids + ZC_KINDS <= ZC_COUNT(ids); d++) {
        for (int kind = 0; kind < ZC_KINDS; kind++) {
            void *ptr = NULL;
            zc_assert_success(zc_alloc(context, (zc_kind)kind, sys->all[d], 8192, 0, &ptr));
            ze_device_handle_t owner = (ze_device_handle_t)(uintptr_t)1; /* must be overwritten */
            ze_memory_allocation_properties_t base = zc_alloc_properties(context, ptr, &owner);
            assert_int_equal(base.type, zc_kind_type((zc_kind)kind));
            assert_true(base.pageSize > 0);
            if (kind == ZC_DEVICE || kind == ZC_SHARED)
                assert_ptr_equal(owner, sys->all[d]);
            else if (zc_driver_is_fake())
                assert_null(owner);
            ze_memory_allocation_properties_t interior = zc_alloc_properties(context, (char *)ptr + 8191, NULL);
            assert_int_equal(interior.type, base.type);
            assert_int_equal(interior.id, base.id);
            for (unsigned i = 0; i < num_ids; i++)
                assert_int_not_equal(ids[i], base.id);
            ids[num_ids++] = base.id;
            zc_assert_success(zeMemFree(context, ptr));
        }
    }
}

static void memory_alloc_properties_unknown_pointer(void **state) {
    ze_context_handle_t context = *state;
    int on_stack = 0;
    void *on_heap = malloc(64);
    assert_non_null(on_heap);
    /* Another context's allocation is unrelated to this context too. */
    ze_context_handle_t other = zc_new_context();
    void *foreign = NULL;
    zc_assert_success(zc_alloc(other, ZC_HOST, NULL, 64, 0, &foreign));
    const void *pointers[] = {&on_stack, on_heap, foreign};
    for (size_t i = 0; i < ZC_COUNT(pointers); i++) {
        ze_memory_allocation_properties_t properties = zc_alloc_properties(context, pointers[i], NULL);
        assert_int_equal(properties.type, ZE_MEMORY_TYPE_UNKNOWN);
    }
    zc_assert_success(zeMemFree(other, foreign));
    zc_assert_success(zeContextDestroy(other));
    free(on_heap);
}

static void memory_alloc_ids_never_reused(void **state) {
    ze_context_handle_t context = *state;
    /* The specification only calls the id an identifier; zefake never gives one out twice. */
    zc_skip_unless_fake();
    uint64_t previous[32];
    for (size_t i = 0; i < ZC_COUNT(previous); i++) {
        void *ptr = NULL;
        zc_assert_success(zc_alloc(context, ZC_HOST, NULL, 4096, 0, &ptr));
        previous[i] = zc_alloc_properties(context, ptr, NULL).id;
        for (size_t j = 0; j < i; j++)
            assert_int_not_equal(previous[j], previous[i]);
        zc_assert_success(zeMemFree(context, ptr));
    }
}

static void memory_alloc_properties_after_free_unknown(void **state) {
    ze_context_handle_t context = *state;
    zc_skip_unless_fake(); /* a freed pointer is unrelated memory; zefake keeps its addresses out of reuse a while */
    void *ptr = NULL;
    zc_assert_success(zc_alloc(context, ZC_SHARED, zc_sys()->roots[0], 4096, 0, &ptr));
    zc_assert_success(zeMemFree(context, ptr));
    assert_int_equal(zc_alloc_properties(context, ptr, NULL).type, ZE_MEMORY_TYPE_UNKNOWN);
}

static void memory_address_range_interior_pointers(void **state) {
    ze_context_handle_t context = *state;
    const size_t size = 10000;
    for (int kind = 0; kind < ZC_KINDS; kind++) {
        char *ptr = NULL;
        zc_assert_success(zc_alloc(context, (zc_kind)kind, zc_sys()->roots[0], size, 0, (void **)&ptr));
        const size_t offsets[] = {0, 1, size / 2, size - 1};
        for (size_t i = 0; i < ZC_COUNT(offsets); i++) {
            void *base = NULL;
            size_t got = 0;
            zc_assert_success(zeMemGetAddressRange(context, ptr + offsets[i], &base, &got));
            assert_ptr_equal(base, ptr);
            assert_true(got >= size);
            if (zc_driver_is_fake())
                assert_int_equal(got, size);
        }
        void *base = NULL;
        size_t got = 0;
        zc_assert_success(zeMemGetAddressRange(context, ptr + 5, &base, NULL));
        assert_ptr_equal(base, ptr);
        zc_assert_success(zeMemGetAddressRange(context, ptr + 5, NULL, &got));
        assert_true(got >= size);
        zc_assert_success(zeMemGetAddressRange(context, ptr + 5, NULL, NULL));
        zc_assert_success(zeMemFree(context, ptr));
    }
}

static void memory_address_range_not_an_allocation_fails(void **state) {
    ze_context_handle_t context = *state;
    int on_stack = 0;
    void *base = NULL;
    size_t size = 0;
    ze_result_t result = zeMemGetAddressRange(context, &on_stack, &base, &size);
    /* The spec names no error; zefake answers INVALID_ARGUMENT. */
    zc_assert_error(result);
    if (zc_driver_is_fake()) {
        zc_assert_result(result, ZE_RESULT_ERROR_INVALID_ARGUMENT);
        char *ptr = NULL;
        zc_assert_success(zc_alloc(context, ZC_HOST, NULL, 100, 0, (void **)&ptr));
        zc_assert_result(zeMemGetAddressRange(context, ptr + 100, &base, &size), ZE_RESULT_ERROR_INVALID_ARGUMENT);
        zc_assert_success(zeMemFree(context, ptr));
    }
}

/* ------------------------------------------------------------------------------------------------------------------
 * Freeing */

static void memory_double_free_invalid_argument(void **state) {
    ze_context_handle_t context = *state;
    zc_skip_unless_fake(); /* undefined for the spec: an error on the fake, never a crash */
    for (int kind = 0; kind < ZC_KINDS; kind++) {
        void *ptr = NULL;
        zc_assert_success(zc_alloc(context, (zc_kind)kind, zc_sys()->roots[0], 4096, 0, &ptr));
        zc_assert_success(zeMemFree(context, ptr));
        zc_assert_result(zeMemFree(context, ptr), ZE_RESULT_ERROR_INVALID_ARGUMENT);
        /* A new allocation of the same size does not take the freed address, so a late double free cannot free it. */
        void *again = NULL;
        zc_assert_success(zc_alloc(context, (zc_kind)kind, zc_sys()->roots[0], 4096, 0, &again));
        zc_assert_result(zeMemFree(context, ptr), ZE_RESULT_ERROR_INVALID_ARGUMENT);
        assert_int_equal(zc_alloc_properties(context, again, NULL).type, zc_kind_type((zc_kind)kind));
        zc_assert_success(zeMemFree(context, again));
    }
}

static void memory_free_foreign_pointer_invalid_argument(void **state) {
    ze_context_handle_t context = *state;
    zc_skip_unless_fake();
    int on_stack = 0;
    void *on_heap = malloc(64);
    assert_non_null(on_heap);
    zc_assert_result(zeMemFree(context, &on_stack), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    zc_assert_result(zeMemFree(context, on_heap), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    free(on_heap);
    /* An allocation of another context is foreign to this one, and stays alive. */
    ze_context_handle_t other = zc_new_context();
    void *foreign = NULL;
    zc_assert_success(zc_alloc(other, ZC_DEVICE, zc_sys()->roots[0], 64, 0, &foreign));
    zc_assert_result(zeMemFree(context, foreign), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    assert_int_equal(zc_alloc_properties(other, foreign, NULL).type, ZE_MEMORY_TYPE_DEVICE);
    zc_assert_success(zeMemFree(other, foreign));
    zc_assert_success(zeContextDestroy(other));
}

static void memory_free_interior_pointer_invalid_argument(void **state) {
    ze_context_handle_t context = *state;
    zc_skip_unless_fake();
    char *ptr = NULL;
    zc_assert_success(zc_alloc(context, ZC_HOST, NULL, 4096, 0, (void **)&ptr));
    zc_assert_result(zeMemFree(context, ptr + 1), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    zc_assert_result(zeMemFree(context, ptr + 4095), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    ptr[0] = 1; /* still allocated */
    zc_assert_success(zeMemFree(context, ptr));
}

static void memory_free_ext_policies(void **state) {
    ze_context_handle_t context = *state;
    static const ze_driver_memory_free_policy_ext_flags_t policies[] = {
        0, ZE_DRIVER_MEMORY_FREE_POLICY_EXT_FLAG_BLOCKING_FREE, ZE_DRIVER_MEMORY_FREE_POLICY_EXT_FLAG_DEFER_FREE};
    size_t count = zc_driver_is_fake() ? ZC_COUNT(policies) : 1; /* policies beyond 0 are optional */
    for (size_t p = 0; p < count; p++) {
        for (int kind = 0; kind < ZC_KINDS; kind++) {
            void *ptr = NULL;
            zc_assert_success(zc_alloc(context, (zc_kind)kind, zc_sys()->roots[0], 4096, 0, &ptr));
            ze_memory_free_ext_desc_t desc = {ZE_STRUCTURE_TYPE_MEMORY_FREE_EXT_DESC, NULL, policies[p]};
            zc_assert_success(zc_free_ext(context, &desc, ptr));
            if (zc_driver_is_fake())
                assert_int_equal(zc_alloc_properties(context, ptr, NULL).type, ZE_MEMORY_TYPE_UNKNOWN);
        }
    }
}

static void memory_free_ext_bad_arguments(void **state) {
    ze_context_handle_t context = *state;
    void *ptr = NULL;
    zc_assert_success(zc_alloc(context, ZC_HOST, NULL, 64, 0, &ptr));
    ze_memory_free_ext_desc_t desc = {ZE_STRUCTURE_TYPE_MEMORY_FREE_EXT_DESC, NULL, 0x4};
    zc_assert_result(zc_free_ext(context, &desc, ptr), ZE_RESULT_ERROR_INVALID_ENUMERATION);
    zc_assert_result(zeMemFreeExt(context, NULL, ptr), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    desc.freePolicy = 0;
    zc_assert_result(zeMemFreeExt(context, &desc, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zeMemFreeExt(NULL, &desc, ptr), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    if (zc_driver_is_fake()) {
        desc.freePolicy =
            ZE_DRIVER_MEMORY_FREE_POLICY_EXT_FLAG_BLOCKING_FREE | ZE_DRIVER_MEMORY_FREE_POLICY_EXT_FLAG_DEFER_FREE;
        zc_assert_result(zeMemFreeExt(context, &desc, ptr), ZE_RESULT_ERROR_INVALID_ARGUMENT);
        desc = (ze_memory_free_ext_desc_t){ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, NULL, 0}; /* wrong stype */
        zc_assert_result(zeMemFreeExt(context, &desc, ptr), ZE_RESULT_ERROR_INVALID_ARGUMENT);
        desc.stype = ZE_STRUCTURE_TYPE_MEMORY_FREE_EXT_DESC;
        zc_assert_success(zeMemFreeExt(context, &desc, ptr));
        zc_assert_result(zeMemFreeExt(context, &desc, ptr), ZE_RESULT_ERROR_INVALID_ARGUMENT);
        return;
    }
    zc_assert_success(zeMemFree(context, ptr));
}

/* ------------------------------------------------------------------------------------------------------------------
 * Bad arguments */

static void memory_alloc_bad_arguments(void **state) {
    ze_context_handle_t context = *state;
    ze_device_handle_t device = zc_sys()->roots[0];
    void *ptr = NULL;
    zc_assert_result(zeMemAllocHost(NULL, &zc_host_desc, 64, 0, &ptr), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zeMemAllocHost(context, NULL, 64, 0, &ptr), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zeMemAllocHost(context, &zc_host_desc, 64, 0, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zeMemAllocDevice(NULL, &zc_device_desc, 64, 0, device, &ptr), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zeMemAllocDevice(context, &zc_device_desc, 64, 0, NULL, &ptr),
                     ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zeMemAllocDevice(context, NULL, 64, 0, device, &ptr), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zeMemAllocDevice(context, &zc_device_desc, 64, 0, device, NULL),
                     ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zeMemAllocShared(NULL, &zc_device_desc, &zc_host_desc, 64, 0, device, &ptr),
                     ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zeMemAllocShared(context, NULL, &zc_host_desc, 64, 0, device, &ptr),
                     ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zeMemAllocShared(context, &zc_device_desc, NULL, 64, 0, device, &ptr),
                     ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zeMemAllocShared(context, &zc_device_desc, &zc_host_desc, 64, 0, device, NULL),
                     ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    const ze_host_mem_alloc_desc_t bad_host = {ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, NULL, 0x10};
    const ze_device_mem_alloc_desc_t bad_device = {ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, NULL, 0x8, 0};
    zc_assert_result(zeMemAllocHost(context, &bad_host, 64, 0, &ptr), ZE_RESULT_ERROR_INVALID_ENUMERATION);
    zc_assert_result(zeMemAllocDevice(context, &bad_device, 64, 0, device, &ptr), ZE_RESULT_ERROR_INVALID_ENUMERATION);
    zc_assert_result(zeMemAllocShared(context, &bad_device, &zc_host_desc, 64, 0, device, &ptr),
                     ZE_RESULT_ERROR_INVALID_ENUMERATION);
    zc_assert_result(zeMemAllocShared(context, &zc_device_desc, &bad_host, 64, 0, device, &ptr),
                     ZE_RESULT_ERROR_INVALID_ENUMERATION);
}

static void memory_query_bad_arguments(void **state) {
    ze_context_handle_t context = *state;
    ze_device_handle_t device = zc_sys()->roots[0];
    void *ptr = NULL;
    zc_assert_success(zc_alloc(context, ZC_HOST, NULL, 64, 0, &ptr));
    ze_memory_allocation_properties_t properties = {.stype = ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES};
    void *base = NULL;
    size_t size = 0;
    zc_assert_result(zeMemFree(NULL, ptr), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zeMemFree(context, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zeMemGetAllocProperties(NULL, ptr, &properties, NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zeMemGetAllocProperties(context, NULL, &properties, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zeMemGetAllocProperties(context, ptr, NULL, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zeMemGetAddressRange(NULL, ptr, &base, &size), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zeMemGetAddressRange(context, NULL, &base, &size), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zeContextMakeMemoryResident(NULL, device, ptr, 64), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zeContextMakeMemoryResident(context, NULL, ptr, 64), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zeContextMakeMemoryResident(context, device, NULL, 64), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zeContextEvictMemory(NULL, device, ptr, 64), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zeContextEvictMemory(context, NULL, ptr, 64), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zeContextEvictMemory(context, device, NULL, 64), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_success(zeMemFree(context, ptr));
}

static void memory_destroyed_context_invalid_null_handle(void **state) {
    (void)state;
    zc_skip_unless_fake(); /* a destroyed handle is undefined for the spec */
    ze_context_handle_t context = zc_new_context();
    void *ptr = NULL;
    zc_assert_success(zc_alloc(context, ZC_HOST, NULL, 64, 0, &ptr));
    zc_assert_success(zeContextDestroy(context)); /* frees what is left */
    zc_assert_result(zeMemFree(context, ptr), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zeMemAllocHost(context, &zc_host_desc, 64, 0, &ptr), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
}

static void memory_bad_descriptors_invalid_argument(void **state) {
    ze_context_handle_t context = *state;
    /* zefake is strict where real drivers may not look: a descriptor of the wrong type, a memory ordinal the device
     * does not have, an endless extension chain. */
    zc_skip_unless_fake();
    ze_device_handle_t device = zc_sys()->roots[0];
    void *ptr = NULL;
    const ze_host_mem_alloc_desc_t wrong_host = {ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, NULL, 0};
    const ze_device_mem_alloc_desc_t wrong_device = {ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, NULL, 0, 0};
    zc_assert_result(zeMemAllocHost(context, &wrong_host, 64, 0, &ptr), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    zc_assert_result(zeMemAllocDevice(context, &wrong_device, 64, 0, device, &ptr), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    zc_assert_result(zeMemAllocShared(context, &zc_device_desc, &wrong_host, 64, 0, device, &ptr),
                     ZE_RESULT_ERROR_INVALID_ARGUMENT);
    uint32_t memories = 0;
    zc_assert_success(zeDeviceGetMemoryProperties(device, &memories, NULL));
    const ze_device_mem_alloc_desc_t bad_ordinal = {ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, NULL, 0, memories};
    zc_assert_result(zeMemAllocDevice(context, &bad_ordinal, 64, 0, device, &ptr), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    ze_base_desc_t loop = {(ze_structure_type_t)0x7fff0001, NULL};
    loop.pNext = &loop;
    const ze_host_mem_alloc_desc_t cyclic = {ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, &loop, 0};
    zc_assert_result(zeMemAllocHost(context, &cyclic, 64, 0, &ptr), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    ze_external_memory_import_fd_t import = {ZE_STRUCTURE_TYPE_EXTERNAL_MEMORY_IMPORT_FD, NULL,
                                             ZE_EXTERNAL_MEMORY_TYPE_FLAG_DMA_BUF, -1};
    const ze_device_mem_alloc_desc_t importing = {ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, &import, 0, 0};
    zc_assert_result(zeMemAllocDevice(context, &importing, 64, 0, device, &ptr), ZE_RESULT_ERROR_INVALID_ARGUMENT);
}

static void memory_unknown_extension_ignored(void **state) {
    ze_context_handle_t context = *state;
    const ze_base_desc_t unknown = {(ze_structure_type_t)0x7fff0002, NULL};
    const ze_host_mem_alloc_desc_t host = {ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, &unknown, 0};
    const ze_device_mem_alloc_desc_t device = {ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, &unknown, 0, 0};
    void *ptr = NULL;
    zc_assert_success(zeMemAllocHost(context, &host, 64, 0, &ptr));
    zc_assert_success(zeMemFree(context, ptr));
    zc_assert_success(zeMemAllocDevice(context, &device, 64, 0, zc_sys()->roots[0], &ptr));
    zc_assert_success(zeMemFree(context, ptr));
}

/* A context for a subset of the devices, and a device outside it. False when the system has no such pair. */
static bool zc_partial_context(ze_context_handle_t *context, ze_device_handle_t *inside, ze_device_handle_t *outside) {
    const zc_system *sys = zc_sys();
    if (sys->num_subdevices[0] >= 2) {
        *inside = sys->subdevices[0][0];
        *outside = sys->subdevices[0][1];
    } else if (sys->num_roots >= 2) {
        *inside = sys->roots[0];
        *outside = sys->roots[1];
    } else {
        return false;
    }
    zc_assert_success(zeContextCreateEx(sys->driver, &zc_context_desc, 1, inside, context));
    return true;
}

static void memory_device_outside_context_fails(void **state) {
    (void)state;
    ze_context_handle_t context = NULL;
    ze_device_handle_t inside = NULL, outside = NULL;
    if (!zc_partial_context(&context, &inside, &outside))
        skip();
    void *ptr = NULL;
    zc_assert_success(zc_alloc(context, ZC_DEVICE, inside, 64, 0, &ptr));
    ze_result_t results[4];
    void *other = NULL;
    results[0] = zc_alloc(context, ZC_DEVICE, outside, 64, 0, &other);
    results[1] = zc_alloc(context, ZC_SHARED, outside, 64, 0, &other);
    results[2] = zeContextMakeMemoryResident(context, outside, ptr, 64);
    results[3] = zeContextEvictMemory(context, outside, ptr, 64);
    for (size_t i = 0; i < ZC_COUNT(results); i++) {
        zc_assert_error(results[i]);
        if (zc_driver_is_fake())
            zc_assert_result(results[i], ZE_RESULT_ERROR_INVALID_ARGUMENT);
    }
    zc_assert_success(zeMemFree(context, ptr));
    zc_assert_success(zeContextDestroy(context));
}

static void memory_subdevice_of_context_device_allowed(void **state) {
    ze_context_handle_t context = *state;
    const zc_system *sys = zc_sys();
    if (sys->num_subdevices[0] == 0)
        skip();
    for (uint32_t i = 0; i < sys->num_subdevices[0]; i++) {
        void *ptr = NULL;
        zc_assert_success(zc_alloc(context, ZC_DEVICE, sys->subdevices[0][i], 64, 0, &ptr));
        zc_assert_success(zeContextMakeMemoryResident(context, sys->roots[0], ptr, 64));
        zc_assert_success(zeMemFree(context, ptr));
    }
}

/* ------------------------------------------------------------------------------------------------------------------
 * Residency and visibility */

static void memory_residency_ranges(void **state) {
    ze_context_handle_t context = *state;
    ze_device_handle_t device = zc_sys()->roots[0];
    for (int kind = 0; kind < ZC_KINDS; kind++) {
        char *ptr = NULL;
        zc_assert_success(zc_alloc(context, (zc_kind)kind, device, 8192, 0, (void **)&ptr));
        zc_assert_success(zeContextMakeMemoryResident(context, device, ptr, 8192));
        zc_assert_success(zeContextMakeMemoryResident(context, device, ptr + 100, 100));
        zc_assert_success(zeContextEvictMemory(context, device, ptr + 100, 100));
        zc_assert_success(zeContextEvictMemory(context, device, ptr, 8192));
        if (zc_driver_is_fake()) {
            zc_assert_result(zeContextMakeMemoryResident(context, device, ptr, 8193), ZE_RESULT_ERROR_INVALID_ARGUMENT);
            zc_assert_result(zeContextEvictMemory(context, device, ptr + 8000, 200), ZE_RESULT_ERROR_INVALID_ARGUMENT);
        }
        zc_assert_success(zeMemFree(context, ptr));
    }
    int on_stack = 0;
    if (zc_driver_is_fake()) {
        zc_assert_result(zeContextMakeMemoryResident(context, device, &on_stack, sizeof on_stack),
                         ZE_RESULT_ERROR_INVALID_ARGUMENT);
        zc_assert_result(zeContextEvictMemory(context, device, &on_stack, sizeof on_stack),
                         ZE_RESULT_ERROR_INVALID_ARGUMENT);
    }
}

static void memory_host_allocation_visible_to_every_device(void **state) {
    ze_context_handle_t context = *state;
    const zc_system *sys = zc_sys();
    void *ptr = NULL;
    zc_assert_success(zc_alloc(context, ZC_HOST, NULL, 4096, 0, &ptr));
    for (uint32_t d = 0; d < sys->num_all; d++) {
        zc_assert_success(zeContextMakeMemoryResident(context, sys->all[d], ptr, 4096));
        zc_assert_success(zeContextEvictMemory(context, sys->all[d], ptr, 4096));
    }
    zc_assert_success(zeMemFree(context, ptr));
}

/* ------------------------------------------------------------------------------------------------------------------
 * Device memory limits (fake: the scenario's numbers are the device's; exact accounting is zefake's, see
 * docs/memory.md) */

typedef struct zc_chunks {
    void *ptrs[ZC_MAX_CHUNKS];
    unsigned count;
} zc_chunks;

/* Allocates device memory on `device` until `bytes` are taken, in chunks of at most maxMemAllocSize. */
static void zc_fill_device(ze_context_handle_t context, ze_device_handle_t device, uint64_t bytes, zc_chunks *chunks) {
    uint64_t max = zc_max_alloc(device);
    while (bytes > 0) {
        assert_true(chunks->count < ZC_MAX_CHUNKS);
        size_t size = (size_t)(bytes < max ? bytes : max);
        zc_assert_success(zc_alloc(context, ZC_DEVICE, device, size, 0, &chunks->ptrs[chunks->count]));
        chunks->count++;
        bytes -= size;
    }
}

static void zc_free_chunks(ze_context_handle_t context, zc_chunks *chunks) {
    for (unsigned i = 0; i < chunks->count; i++)
        zc_assert_success(zeMemFree(context, chunks->ptrs[i]));
    chunks->count = 0;
}

static void memory_out_of_device_memory_at_limit(void **state) {
    ze_context_handle_t context = *state;
    zc_skip_unless_fake();
    const zc_system *sys = zc_sys();
    for (uint32_t d = 0; d < sys->num_all; d++) {
        ze_device_handle_t device = sys->all[d];
        zc_chunks chunks = {0};
        zc_fill_device(context, device, zc_total_memory(device), &chunks);
        void *ptr = NULL;
        zc_assert_result(zc_alloc(context, ZC_DEVICE, device, 1, 0, &ptr), ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY);
        zc_assert_result(zc_alloc(context, ZC_SHARED, device, 1, 0, &ptr), ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY);
        /* Host memory is not device memory. */
        zc_assert_success(zc_alloc(context, ZC_HOST, NULL, 4096, 0, &ptr));
        zc_assert_success(zeMemFree(context, ptr));
        zc_assert_success(zc_alloc(context, ZC_SHARED_UNBOUND, NULL, 4096, 0, &ptr));
        zc_assert_success(zeMemFree(context, ptr));
        /* Freeing gives the memory back. */
        zc_assert_success(zeMemFree(context, chunks.ptrs[0]));
        zc_assert_success(zc_alloc(context, ZC_DEVICE, device, 1, 0, &chunks.ptrs[0]));
        zc_free_chunks(context, &chunks);
    }
}

static void memory_root_and_subdevices_share_memory(void **state) {
    ze_context_handle_t context = *state;
    zc_skip_unless_fake();
    const zc_system *sys = zc_sys();
    if (sys->num_subdevices[0] < 2)
        skip();
    ze_device_handle_t root = sys->roots[0], *tiles = sys->subdevices[0];
    void *ptr = NULL;
    /* A full tile: the root device interleaves over all tiles, so it cannot allocate either; another tile can. */
    zc_chunks chunks = {0};
    zc_fill_device(context, tiles[0], zc_total_memory(tiles[0]), &chunks);
    zc_assert_result(zc_alloc(context, ZC_DEVICE, root, 2 * sys->num_subdevices[0], 0, &ptr),
                     ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY);
    zc_assert_success(zc_alloc(context, ZC_DEVICE, tiles[1], 1, 0, &ptr));
    zc_assert_success(zeMemFree(context, ptr));
    zc_free_chunks(context, &chunks);
    /* A full root device: every tile is full. */
    zc_fill_device(context, root, zc_total_memory(root), &chunks);
    for (uint32_t i = 0; i < sys->num_subdevices[0]; i++)
        zc_assert_result(zc_alloc(context, ZC_DEVICE, tiles[i], 1, 0, &ptr), ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY);
    zc_free_chunks(context, &chunks);
}

static void memory_context_destroy_releases_memory(void **state) {
    (void)state;
    zc_skip_unless_fake();
    ze_device_handle_t device = zc_sys()->roots[0];
    ze_context_handle_t first = zc_new_context();
    zc_chunks chunks = {0};
    zc_fill_device(first, device, zc_total_memory(device), &chunks);
    zc_assert_success(zeContextDestroy(first)); /* without freeing: the context's allocations go with it */
    ze_context_handle_t second = zc_new_context();
    assert_int_equal(zc_alloc_properties(second, chunks.ptrs[0], NULL).type, ZE_MEMORY_TYPE_UNKNOWN);
    chunks.count = 0;
    zc_fill_device(second, device, zc_total_memory(device), &chunks);
    zc_free_chunks(second, &chunks);
    zc_assert_success(zeContextDestroy(second));
}

/* ------------------------------------------------------------------------------------------------------------------
 * Threads */

typedef struct zc_thread_report {
    ze_context_handle_t context;
    ze_device_handle_t device;
    uint32_t index;
    unsigned failures;
    char first[160];
} zc_thread_report;

static void zc_thread_fail(zc_thread_report *report, const char *what, ze_result_t result) {
    if (report->failures++ == 0)
        snprintf(report->first, sizeof report->first, "%s: %s", what, zc_result_name(result));
}

static void zc_thread_round(zc_thread_report *report, int i, ze_device_handle_t device) {
    zc_kind kind = (zc_kind)((i + (int)report->index) % ZC_KINDS);
    size_t size = 1 + (size_t)((i * 4099 + (int)report->index * 97) % 65536);
    uint32_t seed = report->index * 1000u + (uint32_t)i;
    void *ptr = NULL;
    ze_result_t result = zc_alloc(report->context, kind, device, size, 0, &ptr);
    if (result != ZE_RESULT_SUCCESS) {
        zc_thread_fail(report, "allocate", result);
        return;
    }
    if (zc_host_can_touch(kind))
        zc_fill(ptr, size, seed);
    ze_memory_allocation_properties_t properties = {.stype = ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES};
    result = zeMemGetAllocProperties(report->context, (char *)ptr + size - 1, &properties, NULL);
    if (result != ZE_RESULT_SUCCESS || properties.type != zc_kind_type(kind))
        zc_thread_fail(report, "zeMemGetAllocProperties", result);
    if (zc_host_can_touch(kind) && zc_mismatch(ptr, size, seed) != size)
        zc_thread_fail(report, "the data changed under another thread", ZE_RESULT_SUCCESS);
    result = zeMemFree(report->context, ptr);
    if (result != ZE_RESULT_SUCCESS)
        zc_thread_fail(report, "zeMemFree", result);
}

static void *zc_alloc_thread(void *arg) {
    zc_thread_report *report = arg;
    for (int i = 0; i < ZC_ALLOCS_PER_THREAD; i++)
        zc_thread_round(report, i, report->device);
    return NULL;
}

static void memory_alloc_free_from_threads(void **state) {
    ze_context_handle_t context = *state;
    const zc_system *sys = zc_sys();
    pthread_t threads[ZC_THREADS];
    zc_thread_report reports[ZC_THREADS];
    memset(reports, 0, sizeof reports);
    for (uint32_t i = 0; i < ZC_THREADS; i++) {
        reports[i].context = context;
        reports[i].device = sys->all[i % sys->num_all];
        reports[i].index = i;
        assert_int_equal(pthread_create(&threads[i], NULL, zc_alloc_thread, &reports[i]), 0);
    }
    for (int i = 0; i < ZC_THREADS; i++)
        pthread_join(threads[i], NULL);
    for (int i = 0; i < ZC_THREADS; i++) {
        if (reports[i].failures > 0)
            fail_msg("thread %d: %u failures, the first: %s", i, reports[i].failures, reports[i].first);
    }
}

#if ZC_L0_AT_LEAST(7)
/* zeMemSetAtomicAccessAttributeExp and zeMemGetAtomicAccessAttributeExp (1.7) on a shared allocation. */
static void memory_atomic_access_attributes(void **state) {
    ze_context_handle_t context = *state;
    zc_api_require(zeMemSetAtomicAccessAttributeExp);
    ze_device_handle_t device = zc_sys()->roots[0];
    void *shared = NULL, *host = NULL;
    zc_assert_success(zc_alloc(context, ZC_SHARED, device, 1u << 16, 0, &shared));
    zc_assert_success(zc_alloc(context, ZC_HOST, device, 4096, 0, &host));
    ze_memory_atomic_attr_exp_flags_t got = 0xff, want = ZE_MEMORY_ATOMIC_ATTR_EXP_FLAG_DEVICE_ATOMICS |
                                                         ZE_MEMORY_ATOMIC_ATTR_EXP_FLAG_NO_HOST_ATOMICS;
    zc_assert_success(ZC_API(zeMemGetAtomicAccessAttributeExp)(context, device, shared, 1u << 16, &got));
    assert_int_equal(got, 0); /* the default */
    zc_assert_success(ZC_API(zeMemSetAtomicAccessAttributeExp)(context, device, shared, 1u << 16, want));
    zc_assert_success(ZC_API(zeMemGetAtomicAccessAttributeExp)(context, device, shared, 1u << 16, &got));
    assert_int_equal(got, want);
    zc_assert_result(ZC_API(zeMemSetAtomicAccessAttributeExp)(context, device, shared, 64, 0x80),
                     ZE_RESULT_ERROR_INVALID_ENUMERATION);
    zc_assert_result(ZC_API(zeMemSetAtomicAccessAttributeExp)(NULL, device, shared, 64, 0),
                     ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(ZC_API(zeMemSetAtomicAccessAttributeExp)(context, device, NULL, 64, 0),
                     ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(ZC_API(zeMemGetAtomicAccessAttributeExp)(context, device, shared, 64, NULL),
                     ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    if (zc_driver_is_fake()) {
        zc_assert_result(ZC_API(zeMemSetAtomicAccessAttributeExp)(context, device, host, 64, want),
                         ZE_RESULT_ERROR_INVALID_ARGUMENT); /* not a shared allocation */
        zc_assert_result(ZC_API(zeMemSetAtomicAccessAttributeExp)(context, device, shared, 64,
                                                                  ZE_MEMORY_ATOMIC_ATTR_EXP_FLAG_HOST_ATOMICS |
                                                                      ZE_MEMORY_ATOMIC_ATTR_EXP_FLAG_NO_HOST_ATOMICS),
                         ZE_RESULT_ERROR_INVALID_ARGUMENT);
        zc_assert_result(
            ZC_API(zeMemSetAtomicAccessAttributeExp)(context, device, (char *)shared + (1u << 16) - 8, 64, want),
            ZE_RESULT_ERROR_INVALID_ARGUMENT); /* past the end */
    }
    zc_assert_success(zeMemFree(context, shared));
    zc_assert_success(zeMemFree(context, host));
}
#endif

#if ZC_L0_AT_LEAST(9)
/* zeMemGetPitchFor2dImage (1.9): a row holds the image's row, and a pitched allocation of pitch x height holds the
 * image. */
static void memory_pitch_for_2d_images(void **state) {
    ze_context_handle_t context = *state;
    zc_api_require(zeMemGetPitchFor2dImage);
    ze_device_handle_t device = zc_sys()->roots[0];
    const unsigned sizes[] = {1, 2, 3, 4, 6, 8, 12, 16};
    for (size_t i = 0; i < ZC_COUNT(sizes); i++) {
        size_t pitch = 0;
        zc_assert_success(ZC_API(zeMemGetPitchFor2dImage)(context, device, 1000, 17, sizes[i], &pitch));
        assert_true(pitch >= 1000u * sizes[i]);
        if (zc_driver_is_fake())
            assert_int_equal(pitch % 64, 0);
    }
    size_t pitch = 0;
    zc_assert_result(ZC_API(zeMemGetPitchFor2dImage)(NULL, device, 16, 16, 4, &pitch),
                     ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    if (zc_driver_is_fake()) {
        zc_assert_result(ZC_API(zeMemGetPitchFor2dImage)(context, device, 16, 16, 5, &pitch),
                         ZE_RESULT_ERROR_INVALID_ARGUMENT);
        zc_assert_result(ZC_API(zeMemGetPitchFor2dImage)(context, device, 0, 16, 4, &pitch),
                         ZE_RESULT_ERROR_INVALID_ARGUMENT);
    }
}
#endif

/* ------------------------------------------------------------------------------------------------------------------
 * Freeing memory submitted commands still use: a fill waits for a gate event only the host signals, its memory is
 * freed meanwhile; the fill then runs without a fault (the device stays available) */

#define ZC_BUSY_BYTES ((size_t)1 << 20)

typedef struct zc_busy_fill {
    zc_exec x;
    ze_command_list_handle_t list;
    ze_event_pool_handle_t pool;
    ze_event_handle_t gate, done;
    void *ptr;
} zc_busy_fill;

static void zc_busy_fill_begin(ze_context_handle_t context, zc_busy_fill *b) {
    b->x = (zc_exec){.context = context, .device = zc_sys()->roots[0]};
    zc_exec_groups(&b->x);
    b->list = zc_immediate(&b->x, b->x.compute_ordinal, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    b->pool = zc_event_pool(&b->x, 2, 0);
    b->gate = zc_event(b->pool, 0);
    b->done = zc_event(b->pool, 1);
    b->ptr = zc_device_alloc(&b->x, ZC_BUSY_BYTES);
    const uint8_t pattern = 0x5a;
    zc_assert_success(
        zeCommandListAppendMemoryFill(b->list, b->ptr, &pattern, sizeof pattern, ZC_BUSY_BYTES, b->done, 1, &b->gate));
}

/* Opens the gate and checks the fill completed without a device fault. */
static void zc_busy_fill_end(zc_busy_fill *b) {
    zc_assert_success(zeEventHostSignal(b->gate));
    zc_assert_success(zeEventHostSynchronize(b->done, UINT64_MAX));
    zc_assert_success(zeDeviceGetStatus(b->x.device));
    zc_assert_success(zeEventDestroy(b->gate));
    zc_assert_success(zeEventDestroy(b->done));
    zc_assert_success(zeEventPoolDestroy(b->pool));
    zc_assert_success(zeCommandListDestroy(b->list));
}

static uint64_t zc_tolerances_so_far(void) {
    zefake_pfnGetToleranceCount_t get = NULL;
    if (!zc_driver_is_fake())
        return 0;
    zc_assert_success(
        zeDriverGetExtensionFunctionAddress(zc_sys()->driver, ZEFAKE_FN_GET_TOLERANCE_COUNT, (void **)&get));
    uint64_t count = 0;
    zc_assert_success(get(&count, 0));
    return count;
}

typedef struct zc_blocking_free {
    ze_context_handle_t context;
    void *ptr;
    ze_result_t result;
    atomic_bool returned;
} zc_blocking_free;

static void *zc_blocking_free_thread(void *arg) {
    zc_blocking_free *f = arg;
    ze_memory_free_ext_desc_t desc = {ZE_STRUCTURE_TYPE_MEMORY_FREE_EXT_DESC, NULL,
                                      ZE_DRIVER_MEMORY_FREE_POLICY_EXT_FLAG_BLOCKING_FREE};
    f->result = zeMemFreeExt(f->context, &desc, f->ptr);
    atomic_store(&f->returned, true);
    return NULL;
}

static void memory_blocking_free_waits_for_submitted_commands(void **state) {
    zc_busy_fill b;
    zc_busy_fill_begin(*(ze_context_handle_t *)state, &b);
    zc_blocking_free f = {b.x.context, b.ptr, ZE_RESULT_ERROR_UNKNOWN, false};
    pthread_t thread;
    assert_int_equal(pthread_create(&thread, NULL, zc_blocking_free_thread, &f), 0);
    usleep(100 * 1000);
    assert_false(atomic_load(&f.returned)); /* the fill has not run: the free waits for it */
    zc_busy_fill_end(&b);
    assert_int_equal(pthread_join(thread, NULL), 0);
    zc_assert_success(f.result);
}

/* Fills submitted to device buffers, each freed at once with the blocking or the deferred policy while the engine may
 * still be filling it: no device fault. */
static void memory_free_policies_right_after_fills(void **state) {
    ze_context_handle_t context = *(ze_context_handle_t *)state;
    zc_exec x = {.context = context, .device = zc_sys()->roots[0]};
    zc_exec_groups(&x);
    ze_command_list_handle_t list = zc_immediate(&x, x.compute_ordinal, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    const uint8_t pattern = 0x3c;
    for (uint32_t i = 0; i < 64; i++) {
        void *ptr = zc_device_alloc(&x, ZC_BUSY_BYTES);
        zc_assert_success(zeCommandListAppendMemoryFill(list, ptr, &pattern, 1, ZC_BUSY_BYTES, NULL, 0, NULL));
        ze_memory_free_ext_desc_t desc = {ZE_STRUCTURE_TYPE_MEMORY_FREE_EXT_DESC, NULL,
                                          i % 2 == 0 ? ZE_DRIVER_MEMORY_FREE_POLICY_EXT_FLAG_BLOCKING_FREE
                                                     : ZE_DRIVER_MEMORY_FREE_POLICY_EXT_FLAG_DEFER_FREE};
        zc_assert_success(zeMemFreeExt(context, &desc, ptr));
    }
    ze_event_pool_handle_t pool = zc_event_pool(&x, 1, 0);
    ze_event_handle_t done = zc_event(pool, 0);
    zc_assert_success(zeCommandListAppendBarrier(list, done, 0, NULL));
    zc_assert_success(zeEventHostSynchronize(done, UINT64_MAX));
    zc_assert_success(zeDeviceGetStatus(x.device));
    zc_assert_success(zeEventDestroy(done));
    zc_assert_success(zeEventPoolDestroy(pool));
    zc_assert_success(zeCommandListDestroy(list));
}

/* policy: a zeMemFreeExt policy, or UINT32_MAX for zeMemFree. */
static void zc_free_busy_at_once(ze_context_handle_t context, uint32_t policy, uint64_t tolerated) {
    zc_busy_fill b;
    zc_busy_fill_begin(context, &b);
    uint64_t before = zc_tolerances_so_far();
    ze_memory_free_ext_desc_t desc = {ZE_STRUCTURE_TYPE_MEMORY_FREE_EXT_DESC, NULL, policy};
    zc_assert_success(policy == UINT32_MAX ? zeMemFree(context, b.ptr) : zeMemFreeExt(context, &desc, b.ptr));
    assert_int_equal(zeEventQueryStatus(b.done), ZE_RESULT_NOT_READY); /* returned before the fill ran */
    if (zc_driver_is_fake())
        assert_int_equal(zc_tolerances_so_far() - before, tolerated);
    zc_busy_fill_end(&b);
}

static void memory_deferred_free_after_submitted_commands(void **state) {
    zc_free_busy_at_once(*(ze_context_handle_t *)state, ZE_DRIVER_MEMORY_FREE_POLICY_EXT_FLAG_DEFER_FREE, 0);
}

/* The device must not be using memory zeMemFree frees; Intel's driver frees it once its engines are done, and so
 * does zefake, counting the broken rule in both profiles (docs/tolerances.md). */
static void memory_free_of_busy_memory_after_submitted_commands(void **state) {
    zc_free_busy_at_once(*(ze_context_handle_t *)state, UINT32_MAX, 1);
    zc_free_busy_at_once(*(ze_context_handle_t *)state, 0, 1);
}

int main(int argc, char **argv) {
    static const struct CMUnitTest tests[] = {
#define ZC_FIXTURE context
        ZC_T(memory_write_read_every_type_and_device),
        ZC_T(memory_allocations_do_not_overlap),
        ZC_T(memory_alignment_honoured),
        ZC_T(memory_alignment_not_power_of_two_unsupported_alignment),
        ZC_T(memory_alignment_above_limit_unsupported_alignment),
        ZC_T(memory_size_zero_unsupported_size),
        ZC_T(memory_size_above_max_alloc_unsupported_size),
        ZC_T(memory_host_size_limits),
        ZC_T(memory_relaxed_limits_lift_max_alloc_size),
        ZC_T(memory_flags_accepted),
        ZC_T(memory_alloc_properties_each_type),
        ZC_T(memory_alloc_properties_unknown_pointer),
        ZC_T(memory_alloc_ids_never_reused),
        ZC_T(memory_alloc_properties_after_free_unknown),
        ZC_T(memory_address_range_interior_pointers),
        ZC_T(memory_address_range_not_an_allocation_fails),
        ZC_T(memory_double_free_invalid_argument),
        ZC_T(memory_free_foreign_pointer_invalid_argument),
        ZC_T(memory_free_interior_pointer_invalid_argument),
        ZC_T(memory_free_ext_policies),
        ZC_T(memory_free_ext_bad_arguments),
        ZC_T(memory_alloc_bad_arguments),
        ZC_T(memory_query_bad_arguments),
        cmocka_unit_test(memory_destroyed_context_invalid_null_handle),
        ZC_T(memory_bad_descriptors_invalid_argument),
        ZC_T(memory_unknown_extension_ignored),
        cmocka_unit_test(memory_device_outside_context_fails),
        ZC_T(memory_subdevice_of_context_device_allowed),
        ZC_T(memory_residency_ranges),
        ZC_T(memory_host_allocation_visible_to_every_device),
        ZC_T(memory_out_of_device_memory_at_limit),
        ZC_T(memory_root_and_subdevices_share_memory),
        cmocka_unit_test(memory_context_destroy_releases_memory),
        ZC_T(memory_alloc_free_from_threads),
        ZC_T(memory_blocking_free_waits_for_submitted_commands),
        ZC_T(memory_deferred_free_after_submitted_commands),
        ZC_T(memory_free_policies_right_after_fills),
        ZC_T(memory_free_of_busy_memory_after_submitted_commands),
#if ZC_L0_AT_LEAST(7)
        ZC_T(memory_atomic_access_attributes),
#endif
#if ZC_L0_AT_LEAST(9)
        ZC_T(memory_pitch_for_2d_images),
#endif
#undef ZC_FIXTURE
    };
    static const zc_suite suite = {ZC_EXECUTABLE, tests, ZC_COUNT(tests), zc_setup_system, zc_teardown_system, NULL, 0};
    return zc_main(argc, argv, &suite);
}
