/* The built-in kernels on their own: matching by name and signature on the real test kernels, results on host
 * buffers, the cost model's cycles, and the buffer checks that make a launch fail instead of overrunning an
 * allocation. The memory service is replaced by a small table of allocations (zf_memory.h's contract). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "core/zf_core.h"
#include "memory/zf_memory.h"
#include "module/zf_builtins.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------------------------------------------------
 * Stand-ins for the driver services builtins.c uses */

#define ZT_MAX_ALLOCATIONS 8

static struct {
    const char *base;
    size_t size;
} zt_allocations[ZT_MAX_ALLOCATIONS];
static unsigned zt_num_allocations;

static void zt_allocate(const void *base, size_t size) {
    assert_true(zt_num_allocations < ZT_MAX_ALLOCATIONS);
    zt_allocations[zt_num_allocations].base = base;
    zt_allocations[zt_num_allocations++].size = size;
}

bool zf_memory_find(zf_context *context, const void *ptr, size_t size, zf_allocation *out) {
    (void)context;
    const char *p = ptr;
    size = size ? size : 1;
    for (unsigned i = 0; i < zt_num_allocations; i++) {
        const char *base = zt_allocations[i].base;
        if (p >= base && p < base + zt_allocations[i].size && size <= (size_t)(base + zt_allocations[i].size - p)) {
            memset(out, 0, sizeof *out);
            out->base = (void *)base;
            out->size = zt_allocations[i].size;
            return true;
        }
    }
    return false;
}

bool zf_memory_range_overruns(zf_context *context, const void *ptr, size_t size) {
    (void)context;
    const char *p = ptr;
    for (unsigned i = 0; i < zt_num_allocations; i++) {
        const char *base = zt_allocations[i].base;
        bool overlaps = p < base + zt_allocations[i].size && base < p + (size ? size : 1);
        zf_allocation a;
        if (overlaps && !zf_memory_find(context, ptr, size, &a))
            return true;
    }
    return false;
}

bool zf_virtual_span(const void *ptr, size_t size, zf_vm_span *span) {
    (void)ptr;
    (void)size;
    (void)span;
    return false; /* no virtual memory here */
}

void zf_log(zf_log_level level, const char *format, ...) {
    (void)level;
    (void)format;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Helpers */

static zf_spirv_module *zt_read(const char *name) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s.spv", ZF_TEST_KERNEL_DIR, name);
    FILE *file = fopen(path, "rb");
    assert_non_null(file);
    static uint8_t data[1 << 16];
    size_t size = fread(data, 1, sizeof data, file);
    fclose(file);
    zf_spirv_module *m = NULL;
    zf_spirv_log log = {0};
    assert_int_equal(zf_spirv_read(data, size, &m, &log), ZF_SPIRV_OK);
    assert_int_equal(zf_spirv_finish(m, &log), ZF_SPIRV_OK);
    zf_spirv_log_free(&log);
    return m;
}

static const zf_builtin *zt_builtin(const char *file, const char *kernel) {
    zf_spirv_module *m = zt_read(file);
    const zf_builtin *b = zf_builtin_match(zf_spirv_find_kernel(m, kernel));
    zf_spirv_free(m);
    return b;
}

static zf_builtin_call zt_call(const char *name, const void *const *args, uint32_t items) {
    zf_builtin_call call = {.name = name, .args = args, .group_size = {1, 1, 1}, .system_memory = true};
    call.groups.groupCountX = items;
    call.groups.groupCountY = 1;
    call.groups.groupCountZ = 1;
    return call;
}

static int zt_setup(void **state) {
    (void)state;
    zt_num_allocations = 0;
    return 0;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Tests */

static void every_test_kernel_builtin_is_matched(void **state) {
    (void)state;
    const char *pairs[][2] = {{"copy", "copy"},       {"copy", "copy_bytes"}, {"fill", "fill"}, {"vadd", "vadd_int"},
                              {"vadd", "vadd_float"}, {"saxpy", "saxpy"},     {"gemm", "gemm"}};
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        const zf_builtin *b = zt_builtin(pairs[i][0], pairs[i][1]);
        if (b == NULL)
            fail_msg("%s.spv: %s is not recognised as a built-in", pairs[i][0], pairs[i][1]);
        assert_string_equal(b->name, pairs[i][1]);
    }
    /* Same name, other signature: not a built-in. */
    assert_null(zt_builtin("local_memory", "reduce_local"));
    assert_null(zt_builtin("globals", "read_globals"));
}

static void vadd_float_with_group_size_and_offset(void **state) {
    (void)state;
    const zf_builtin *b = zt_builtin("vadd", "vadd_float");
    float a[64], x[64], c[64];
    for (int i = 0; i < 64; i++) {
        a[i] = (float)i;
        x[i] = 0.5f * (float)i;
        c[i] = -1.0f;
    }
    zt_allocate(a, sizeof a);
    zt_allocate(x, sizeof x);
    zt_allocate(c, sizeof c);
    float *pa = a, *px = x, *pc = c;
    const void *args[] = {&pa, &px, &pc};
    zf_builtin_call call = zt_call("vadd_float", args, 3); /* 3 groups of 16 from offset 8: elements 8..55 */
    call.group_size[0] = 16;
    call.offset[0] = 8;
    assert_int_equal(b->run(&call), ZE_RESULT_SUCCESS);
    for (int i = 0; i < 64; i++)
        assert_true(c[i] == (i >= 8 && i < 56 ? 1.5f * (float)i : -1.0f));
    zf_work_counts work; /* 48 work-items: two loads and a store of 4 bytes each */
    zf_builtin_work(b, &call, &work);
    assert_int_equal(work.ops[ZF_OPS_ALU], 48 * 9);
    assert_int_equal(work.ops[ZF_OPS_MEMORY], 48 * 3);
    assert_int_equal(work.read[ZF_SPACE_GLOBAL], 48 * 8);
    assert_int_equal(work.written[ZF_SPACE_GLOBAL], 48 * 4);
}

static void vadd_int_wraps_and_host_memory_is_accepted(void **state) {
    (void)state;
    const zf_builtin *b = zt_builtin("vadd", "vadd_int");
    int32_t a[2] = {INT32_MAX, -5}, x[2] = {1, 7}, c[2] = {0, 0};
    int32_t *pa = a, *px = x, *pc = c;
    const void *args[] = {&pa, &px, &pc};
    zf_builtin_call call = zt_call("vadd_int", args, 2);
    assert_int_equal(b->run(&call), ZE_RESULT_SUCCESS); /* no allocation: plain host memory */
    assert_int_equal(c[0], INT32_MIN);
    assert_int_equal(c[1], 2);
}

static void copy_fill_saxpy(void **state) {
    (void)state;
    int32_t src[8] = {1, 2, 3, 4, 5, 6, 7, 8}, dst[8] = {0};
    int32_t *ps = src, *pd = dst;
    const void *copy_args[] = {&pd, &ps};
    zf_builtin_call call = zt_call("copy", copy_args, 8);
    assert_int_equal(zt_builtin("copy", "copy")->run(&call), ZE_RESULT_SUCCESS);
    assert_memory_equal(dst, src, sizeof src);
    int32_t value = -9;
    const void *fill_args[] = {&pd, &value};
    call = zt_call("fill", fill_args, 4);
    assert_int_equal(zt_builtin("fill", "fill")->run(&call), ZE_RESULT_SUCCESS);
    assert_true(dst[0] == -9 && dst[3] == -9 && dst[4] == 5);
    float a = 2.0f, xs[4] = {1, 2, 3, 4}, ys[4] = {10, 20, 30, 40};
    float *px = xs, *py = ys;
    const void *saxpy_args[] = {&a, &px, &py};
    call = zt_call("saxpy", saxpy_args, 4);
    assert_int_equal(zt_builtin("saxpy", "saxpy")->run(&call), ZE_RESULT_SUCCESS);
    assert_true(ys[0] == 12.0f && ys[1] == 24.0f && ys[2] == 36.0f && ys[3] == 48.0f);
}

static void gemm_result_and_cycles(void **state) {
    (void)state;
    const zf_builtin *b = zt_builtin("gemm", "gemm");
    enum { M = 5, N = 7, K = 3 };
    float a[M * K], x[K * N], c[M * N];
    for (int i = 0; i < M * K; i++)
        a[i] = (float)(i % 5) - 1.0f;
    for (int i = 0; i < K * N; i++)
        x[i] = (float)(i % 3) + 0.25f;
    memset(c, 0, sizeof c);
    zt_allocate(a, sizeof a);
    zt_allocate(x, sizeof x);
    zt_allocate(c, sizeof c);
    float *pa = a, *px = x, *pc = c;
    uint32_t m = M, n = N, k = K;
    const void *args[] = {&pa, &px, &pc, &m, &n, &k};
    /* A 2-D range larger than C (8 x 8 over 7 x 5): the extra work-items do nothing. */
    zf_builtin_call call = zt_call("gemm", args, 2);
    call.group_size[0] = 4;
    call.group_size[1] = 4;
    call.groups.groupCountY = 2;
    assert_int_equal(b->run(&call), ZE_RESULT_SUCCESS);
    for (int row = 0; row < M; row++) {
        for (int col = 0; col < N; col++) {
            float sum = 0.0f;
            for (int i = 0; i < K; i++)
                sum += a[row * K + i] * x[i * N + col];
            assert_true(c[row * N + col] == sum);
        }
    }
    /* docs/builtin-kernels.md: the 35 work-items inside C run 22 + 11k ALU operations, 1 + 2k memory instructions,
     * read 8k bytes and write 4; the 24 of rows 5..7 check their row in 10 ALU operations, the 5 of column 7 in rows
     * 0..4 their row and column in 13. */
    zf_work_counts work;
    zf_builtin_work(b, &call, &work);
    assert_int_equal(work.ops[ZF_OPS_ALU], 35 * (22 + 11 * K) + 24 * 10 + 5 * 13);
    assert_int_equal(work.ops[ZF_OPS_MEMORY], 35 * (1 + 2 * K));
    assert_int_equal(work.read[ZF_SPACE_GLOBAL], 35 * 8 * K);
    assert_int_equal(work.written[ZF_SPACE_GLOBAL], 35 * 4);
}

static void overruns_fail_without_writing(void **state) {
    (void)state;
    const zf_builtin *b = zt_builtin("vadd", "vadd_float");
    float a[16] = {0}, x[16] = {0}, c[16];
    for (int i = 0; i < 16; i++)
        c[i] = 7.0f;
    zt_allocate(a, 8 * sizeof(float)); /* a is an 8-element allocation */
    zt_allocate(x, sizeof x);
    zt_allocate(c, sizeof c);
    float *pa = a, *px = x, *pc = c;
    const void *args[] = {&pa, &px, &pc};
    zf_builtin_call call = zt_call("vadd_float", args, 16);
    assert_int_equal(b->run(&call), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    for (int i = 0; i < 16; i++)
        assert_true(c[i] == 7.0f);
    pa = NULL;
    call = zt_call("vadd_float", args, 4);
    assert_int_equal(b->run(&call), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    /* GEMM: C too small for m x n. */
    const zf_builtin *g = zt_builtin("gemm", "gemm");
    float *pc2 = c;
    pa = a;
    uint32_t m = 4, n = 4, k = 2;
    const void *gemm_args[] = {&pa, &px, &pc2, &m, &n, &k};
    zf_builtin_call gemm = zt_call("gemm", gemm_args, 1);
    gemm.group_size[0] = 4;
    gemm.group_size[1] = 4;
    zt_num_allocations = 0;
    zt_allocate(a, sizeof a);
    zt_allocate(x, sizeof x);
    zt_allocate(c, 8 * sizeof(float));
    assert_int_equal(g->run(&gemm), ZE_RESULT_ERROR_INVALID_ARGUMENT);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(every_test_kernel_builtin_is_matched, zt_setup),
        cmocka_unit_test_setup(vadd_float_with_group_size_and_offset, zt_setup),
        cmocka_unit_test_setup(vadd_int_wraps_and_host_memory_is_accepted, zt_setup),
        cmocka_unit_test_setup(copy_fill_saxpy, zt_setup),
        cmocka_unit_test_setup(gemm_result_and_cycles, zt_setup),
        cmocka_unit_test_setup(overruns_fail_without_writing, zt_setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
