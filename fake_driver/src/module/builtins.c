/* Built-in kernels: host implementations of the kernels in conformance/kernels/{copy,fill,vadd,saxpy,gemm}.cl.
 *
 * A kernel is a built-in when its entry-point name and its parameter types (as the SPIR-V reader names them) equal
 * an entry of zf_builtins[]; adding one is adding an entry and its function (docs/builtin-kernels.md). Before
 * touching memory, each implementation checks that every buffer range the launch reaches lies inside one USM
 * allocation of the kernel's context, or in ordinary host memory when the device reaches it; any other range (virtual
 * memory, an overrun, a NULL pointer) makes the built-in decline without writing anything, and the execution engine
 * runs the launch instead. */
#include "core/zf_core.h"
#include "memory/zf_memory.h"
#include "module/zf_builtins.h"

#include <string.h>

/* The global id range of one dimension: [first, first + count). */
typedef struct zf_range {
    uint64_t first;
    uint64_t count;
} zf_range;

static zf_range zf_dimension(const zf_builtin_call *call, int d) {
    const uint32_t counts[3] = {call->groups.groupCountX, call->groups.groupCountY, call->groups.groupCountZ};
    zf_range r = {call->offset[d], (uint64_t)counts[d] * call->group_size[d]};
    return r;
}

static void *zf_pointer_arg(const zf_builtin_call *call, uint32_t index) {
    void *ptr;
    memcpy(&ptr, call->args[index], sizeof ptr);
    return ptr;
}

static uint32_t zf_u32_arg(const zf_builtin_call *call, uint32_t index) {
    uint32_t value;
    memcpy(&value, call->args[index], sizeof value);
    return value;
}

static ze_result_t zf_fault(const zf_builtin_call *call, uint32_t arg, const char *why, const void *ptr,
                            uint64_t bytes) {
    zf_log(ZF_LOG_WARN, "kernel '%s': argument %u: %s (%p, %llu bytes); the launch did not run", call->name, arg, why,
           ptr, (unsigned long long)bytes);
    return ZE_RESULT_ERROR_INVALID_ARGUMENT;
}

/* Elements [first, first + count) of `elem`-byte elements at pointer argument `arg` must be reachable. */
static ze_result_t zf_check_buffer(const zf_builtin_call *call, uint32_t arg, uint64_t first, uint64_t count,
                                   size_t elem) {
    if (count == 0)
        return ZE_RESULT_SUCCESS;
    char *base = zf_pointer_arg(call, arg);
    uint64_t offset, bytes, end;
    if (__builtin_mul_overflow(first, elem, &offset) || __builtin_mul_overflow(count, elem, &bytes) ||
        __builtin_add_overflow((uint64_t)(uintptr_t)base, offset, &end) || __builtin_add_overflow(end, bytes, &end))
        return zf_fault(call, arg, "the range it reaches wraps around the address space", base, UINT64_MAX);
    if (base == NULL)
        return zf_fault(call, arg, "NULL pointer", base, bytes);
    char *start = base + offset;
    zf_allocation allocation;
    if (zf_memory_find(call->context, start, (size_t)bytes, &allocation))
        return ZE_RESULT_SUCCESS;
    if (zf_memory_range_overruns(call->context, start, (size_t)bytes))
        return zf_fault(call, arg, "the range it reaches runs outside its allocation", start, bytes);
    /* Virtual memory, and host memory on a device without system allocations: the engine decides (by the mapping's
     * access attribute, or with a fault), so that the result is the same with or without built-ins. */
    zf_vm_span span;
    if (zf_virtual_span(start, (size_t)bytes, &span) || !call->system_memory) {
        zf_log(ZF_LOG_DEBUG, "kernel '%s': argument %u is not in an allocation of the context: the engine runs it",
               call->name, arg);
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    }
    return ZE_RESULT_SUCCESS; /* ordinary host memory, reached like a shared-system allocation */
}

/* ------------------------------------------------------------------------------------------------------------------
 * One-dimensional built-ins: element i = get_global_id(0). Work-items that differ only in dimensions 1 and 2 compute
 * the same elements (on a GPU they would race), so each element is computed once. */

static ze_result_t zf_run_copy(const zf_builtin_call *call, size_t elem) {
    zf_range x = zf_dimension(call, 0);
    ze_result_t r = zf_check_buffer(call, 0, x.first, x.count, elem);
    if (r == ZE_RESULT_SUCCESS)
        r = zf_check_buffer(call, 1, x.first, x.count, elem);
    if (r != ZE_RESULT_SUCCESS || x.count == 0)
        return r;
    char *dst = zf_pointer_arg(call, 0), *src = zf_pointer_arg(call, 1);
    memmove(dst + x.first * elem, src + x.first * elem, (size_t)(x.count * elem));
    return ZE_RESULT_SUCCESS;
}

static ze_result_t zf_run_copy_int(const zf_builtin_call *call) {
    return zf_run_copy(call, sizeof(int32_t));
}

static ze_result_t zf_run_copy_bytes(const zf_builtin_call *call) {
    return zf_run_copy(call, 1);
}

static ze_result_t zf_run_fill(const zf_builtin_call *call) {
    zf_range x = zf_dimension(call, 0);
    ze_result_t r = zf_check_buffer(call, 0, x.first, x.count, sizeof(int32_t));
    if (r != ZE_RESULT_SUCCESS)
        return r;
    int32_t *dst = zf_pointer_arg(call, 0);
    int32_t value;
    memcpy(&value, call->args[1], sizeof value);
    for (uint64_t i = x.first; i < x.first + x.count; i++)
        dst[i] = value;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t zf_check_three(const zf_builtin_call *call, zf_range x, size_t elem) {
    ze_result_t r = ZE_RESULT_SUCCESS;
    for (uint32_t arg = 0; arg < 3 && r == ZE_RESULT_SUCCESS; arg++)
        r = zf_check_buffer(call, arg, x.first, x.count, elem);
    return r;
}

static ze_result_t zf_run_vadd_int(const zf_builtin_call *call) {
    zf_range x = zf_dimension(call, 0);
    ze_result_t r = zf_check_three(call, x, sizeof(int32_t));
    if (r != ZE_RESULT_SUCCESS)
        return r;
    const uint32_t *a = zf_pointer_arg(call, 0), *b = zf_pointer_arg(call, 1);
    uint32_t *c = zf_pointer_arg(call, 2);
    for (uint64_t i = x.first; i < x.first + x.count; i++)
        c[i] = a[i] + b[i]; /* two's complement wrap-around, as the device's 32-bit add */
    return ZE_RESULT_SUCCESS;
}

static ze_result_t zf_run_vadd_float(const zf_builtin_call *call) {
    zf_range x = zf_dimension(call, 0);
    ze_result_t r = zf_check_three(call, x, sizeof(float));
    if (r != ZE_RESULT_SUCCESS)
        return r;
    const float *a = zf_pointer_arg(call, 0), *b = zf_pointer_arg(call, 1);
    float *c = zf_pointer_arg(call, 2);
    for (uint64_t i = x.first; i < x.first + x.count; i++)
        c[i] = a[i] + b[i];
    return ZE_RESULT_SUCCESS;
}

static ze_result_t zf_run_saxpy(const zf_builtin_call *call) {
    zf_range x = zf_dimension(call, 0);
    ze_result_t r = zf_check_buffer(call, 1, x.first, x.count, sizeof(float));
    if (r == ZE_RESULT_SUCCESS)
        r = zf_check_buffer(call, 2, x.first, x.count, sizeof(float));
    if (r != ZE_RESULT_SUCCESS)
        return r;
    float a;
    memcpy(&a, call->args[0], sizeof a);
    const float *xs = zf_pointer_arg(call, 1);
    float *ys = zf_pointer_arg(call, 2);
    for (uint64_t i = x.first; i < x.first + x.count; i++)
        ys[i] = a * xs[i] + ys[i];
    return ZE_RESULT_SUCCESS;
}

/* ------------------------------------------------------------------------------------------------------------------
 * GEMM: C[row][col] = sum over i of A[row][i] * B[i][col], col = get_global_id(0), row = get_global_id(1); work-items
 * outside C do nothing. The sum runs in order of i in single precision, as the kernel's loop does. */

typedef struct zf_gemm {
    uint64_t m, n, k;
    uint64_t row0, row1, col0, col1; /* the part of C the launch covers */
} zf_gemm;

static ze_result_t zf_gemm_check(const zf_builtin_call *call, const zf_gemm *g) {
    /* A: rows row0..row1-1, all k columns. B: every row, columns col0..col1-1. C: the covered block. */
    uint64_t a_first, a_end, b_last, c_first, c_last;
    if (__builtin_mul_overflow(g->row0, g->k, &a_first) || __builtin_mul_overflow(g->row1, g->k, &a_end) ||
        __builtin_mul_overflow(g->k - (g->k > 0), g->n, &b_last) || __builtin_mul_overflow(g->row0, g->n, &c_first) ||
        __builtin_mul_overflow(g->row1 - 1, g->n, &c_last))
        return zf_fault(call, 0, "the matrix dimensions overflow 64-bit indexing", NULL, 0);
    ze_result_t r = zf_check_buffer(call, 0, a_first, a_end - a_first, sizeof(float));
    if (r == ZE_RESULT_SUCCESS && g->k > 0)
        r = zf_check_buffer(call, 1, g->col0, b_last + g->col1 - g->col0, sizeof(float));
    if (r == ZE_RESULT_SUCCESS)
        r = zf_check_buffer(call, 2, c_first + g->col0, c_last + g->col1 - c_first - g->col0, sizeof(float));
    return r;
}

/* The rows and columns of C the launch's work-items cover. */
static zf_gemm zf_gemm_of(const zf_builtin_call *call) {
    zf_range x = zf_dimension(call, 0), y = zf_dimension(call, 1);
    zf_gemm g = {zf_u32_arg(call, 3), zf_u32_arg(call, 4), zf_u32_arg(call, 5), 0, 0, 0, 0};
    g.row0 = y.first;
    g.row1 = y.first + y.count < g.m ? y.first + y.count : g.m;
    g.col0 = x.first;
    g.col1 = x.first + x.count < g.n ? x.first + x.count : g.n;
    return g;
}

static uint64_t zf_sat_mul(uint64_t a, uint64_t b) {
    unsigned __int128 x = (unsigned __int128)a * b;
    return x > UINT64_MAX ? UINT64_MAX : (uint64_t)x;
}

/* GEMM's work as the engine counts it for gemm.cl: a work-item whose row is outside C runs 10 ALU operations; one whose
 * row is inside and column outside, 13; one inside C, 22 + 11k ALU operations (19 when k = 0), 1 + 2k memory
 * instructions, 8k bytes read and 4 written. */
static void zf_gemm_work(const zf_builtin_call *call, zf_work_counts *out) {
    zf_gemm g = zf_gemm_of(call);
    zf_range x = zf_dimension(call, 0), y = zf_dimension(call, 1), z = zf_dimension(call, 2);
    uint64_t rows = g.row1 > g.row0 ? g.row1 - g.row0 : 0, cols = g.col1 > g.col0 ? g.col1 - g.col0 : 0;
    uint64_t inside = zf_sat_mul(rows * cols, z.count);
    uint64_t row_out = zf_sat_mul((y.count - rows) * x.count, z.count);
    uint64_t col_out = zf_sat_mul(rows * (x.count - cols), z.count);
    uint64_t alu = g.k == 0 ? 19 : 22 + 11 * g.k;
    memset(out, 0, sizeof *out);
    out->ops[ZF_OPS_ALU] = zf_sat_mul(inside, alu) + row_out * 10 + col_out * 13;
    out->ops[ZF_OPS_MEMORY] = zf_sat_mul(inside, 1 + 2 * g.k);
    out->read[ZF_SPACE_GLOBAL] = zf_sat_mul(inside, 8 * g.k);
    out->written[ZF_SPACE_GLOBAL] = zf_sat_mul(inside, 4);
}

static ze_result_t zf_run_gemm(const zf_builtin_call *call) {
    zf_gemm g = zf_gemm_of(call);
    if (g.row0 >= g.row1 || g.col0 >= g.col1)
        return ZE_RESULT_SUCCESS; /* no work-item inside C */
    ze_result_t r = zf_gemm_check(call, &g);
    if (r != ZE_RESULT_SUCCESS)
        return r;
    const float *a = zf_pointer_arg(call, 0), *b = zf_pointer_arg(call, 1);
    float *c = zf_pointer_arg(call, 2);
    for (uint64_t row = g.row0; row < g.row1; row++) {
        for (uint64_t col = g.col0; col < g.col1; col++) {
            float sum = 0.0f;
            for (uint64_t i = 0; i < g.k; i++)
                sum += a[row * g.k + i] * b[i * g.n + col];
            c[row * g.n + col] = sum;
        }
    }
    return ZE_RESULT_SUCCESS;
}

/* ------------------------------------------------------------------------------------------------------------------
 * The table (docs/builtin-kernels.md lists it; keep both in step). The ALU operations per work-item are those the
 * execution engine counts for the kernels of conformance/kernels/ compiled as that document says, so a launch's
 * record is the same whether the fast path or the engine runs it. */
static const zf_builtin zf_builtins[] = {
    {"copy", 2, {"global i32*", "global i32*"}, {7, 2, 4, 4}, NULL, zf_run_copy_int},
    {"copy_bytes", 2, {"global i8*", "global i8*"}, {7, 2, 1, 1}, NULL, zf_run_copy_bytes},
    {"fill", 2, {"global i32*", "i32"}, {6, 1, 0, 4}, NULL, zf_run_fill},
    {"vadd_int", 3, {"global i32*", "global i32*", "global i32*"}, {9, 3, 8, 4}, NULL, zf_run_vadd_int},
    {"vadd_float", 3, {"global f32*", "global f32*", "global f32*"}, {9, 3, 8, 4}, NULL, zf_run_vadd_float},
    {"saxpy", 3, {"f32", "global f32*", "global f32*"}, {8, 3, 8, 4}, NULL, zf_run_saxpy},
    {"gemm", 6, {"global f32*", "global f32*", "global f32*", "i32", "i32", "i32"}, {0}, zf_gemm_work, zf_run_gemm},
};

const zf_builtin *zf_builtin_match(const zf_spirv_kernel *kernel) {
    for (size_t i = 0; i < sizeof zf_builtins / sizeof zf_builtins[0]; i++) {
        const zf_builtin *b = &zf_builtins[i];
        if (strcmp(b->name, kernel->name) != 0 || b->num_params != kernel->num_args)
            continue;
        bool same = true;
        for (uint32_t p = 0; p < b->num_params && same; p++)
            same = strcmp(b->params[p], kernel->args[p].type) == 0;
        if (same)
            return b;
    }
    return NULL;
}

void zf_builtin_work(const zf_builtin *builtin, const zf_builtin_call *call, zf_work_counts *out) {
    if (builtin->count != NULL) {
        builtin->count(call, out);
        return;
    }
    uint64_t items = 1;
    for (int d = 0; d < 3; d++)
        items = zf_sat_mul(items, zf_dimension(call, d).count);
    const zf_builtin_cost *c = &builtin->per_item;
    memset(out, 0, sizeof *out);
    out->ops[ZF_OPS_ALU] = zf_sat_mul(items, c->alu);
    out->ops[ZF_OPS_MEMORY] = zf_sat_mul(items, c->memory);
    out->read[ZF_SPACE_GLOBAL] = zf_sat_mul(items, c->read);
    out->written[ZF_SPACE_GLOBAL] = zf_sat_mul(items, c->written);
}
