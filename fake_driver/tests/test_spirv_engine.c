/* The execution engine on its own (fake_driver/src/spirv, without the driver): the decoder on every test kernel, the
 * decoded form's serialization, launches against a stand-in for the driver's memory service, the faults it reports,
 * and robustness: mutated SPIR-V never crashes the decoder, whatever the decoder accepts the form validator accepts
 * too, and mutated forms are refused or run without harming the process (each in a child process). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "compiled/cx_disk.h"
#include "spirv.h"
#include "spirv_exec.h"
#include "zt_spirv_files.h"

#include <level_zero/ze_api.h>

#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Every test kernel the conformance suites launch, and the corpus of the execution tests. */
/* clang-format off */
static const char *const zt_corpus[] = {
    "copy", "fill", "vadd", "saxpy", "gemm", "spec_constant", "globals", "export", "import", "local_memory",
    "reqd_group_size", "empty", "image", "spec_global", "spirv_arith", "spirv_convert", "spirv_control", "spirv_math",
    "spirv_data", "spirv_local", "spirv_atomics", "spirv_globals", "spirv_image", "spirv_image_plain", "spirv_hoist",
    "spirv_step", "spirv_rare", "spirv_core_ops", "spirv_printf", "spirv_itt",
    "spirv_gemm", "spirv_fptr", "spirv_irreducible", "spirv_pointers", "spirv_generic", "spirv_float_atomics",
    "spirv_subgroups", "linkonce_a", "linkonce_b", "linkonce_strong", "linkonce_user", "linkonce_mismatch"};
/* clang-format on */
/* How many of the corpus's kernels the compiled tier takes at least (compiled_tier_takes_the_corpus). */
#define ZT_CORPUS_COMPILED 134u

static zf_dprog *zt_decode(const zf_spirv_module *m, bool itt, const char *name) {
    zf_decode_options options = {.itt_enabled = itt};
    zf_spirv_log log = {0};
    zf_dprog *prog = NULL;
    if (zf_spirv_decode(m, &options, &prog, &log) != ZF_SPIRV_OK)
        fail_msg("%s does not decode: %s", name, zf_spirv_log_text(&log));
    zf_spirv_log_free(&log);
    return prog;
}

static uint8_t *zt_serialize(const zf_dprog *prog, size_t *size) {
    *size = zf_form_size(prog);
    uint8_t *out = malloc(*size);
    assert_non_null(out);
    zf_form_write(prog, out);
    return out;
}

/* ------------------------------------------------------------------------------------------------------------------
 * A stand-in for the driver: a few buffers are the allocations; nothing else is reachable. */

#define ZT_MAX_BUFFERS 16u
typedef struct zt_mem {
    uintptr_t base[ZT_MAX_BUFFERS];
    size_t size[ZT_MAX_BUFFERS];
    size_t mapped[ZT_MAX_BUFFERS]; /* bytes mapped with mmap (a guarded buffer), 0 for the heap */
    unsigned count;
} zt_mem;

static zf_mem_kind zt_lookup(void *user, uintptr_t ptr, size_t size, zf_mem_info *out) {
    const zt_mem *mem = user;
    for (unsigned i = 0; i < mem->count; i++) {
        uintptr_t lo = mem->base[i], hi = lo + mem->size[i];
        if (ptr >= lo && ptr < hi && size <= hi - ptr) {
            *out = (zf_mem_info){.base = lo, .size = mem->size[i], .guard_end = (hi + 63) / 64 * 64};
            return ZF_MEM_INSIDE;
        }
        if (ptr < hi + 64 && ptr + size > lo)
            return ZF_MEM_OVERRUN;
    }
    return ZF_MEM_UNKNOWN;
}

static void *zt_buffer(zt_mem *mem, size_t size) {
    assert_true(mem->count < ZT_MAX_BUFFERS);
    void *p = aligned_alloc(64, (size + 63) / 64 * 64 + 64);
    assert_non_null(p);
    memset(p, 0, (size + 63) / 64 * 64 + 64);
    mem->base[mem->count] = (uintptr_t)p;
    mem->mapped[mem->count] = 0;
    mem->size[mem->count++] = size;
    return p;
}

/* A buffer followed by `guard` bytes mapped without access: a stray access there meets the same mapping in every run,
 * whatever the heap did in between (a heap address past a buffer may be unmapped in one run and mapped in the next,
 * and the fault names which). */
static void *zt_guarded_buffer(zt_mem *mem, size_t size, size_t guard) {
    assert_true(mem->count < ZT_MAX_BUFFERS);
    size_t page = (size_t)sysconf(_SC_PAGESIZE), body = (size + page - 1) / page * page;
    guard = (guard + page - 1) / page * page;
    uint8_t *p = mmap(NULL, body + guard, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(p != MAP_FAILED);
    assert_int_equal(mprotect(p + body, guard, PROT_NONE), 0);
    mem->base[mem->count] = (uintptr_t)p;
    mem->mapped[mem->count] = body + guard;
    mem->size[mem->count++] = size;
    return p;
}

static void zt_mem_free(zt_mem *mem) {
    for (unsigned i = 0; i < mem->count; i++) {
        if (mem->mapped[i] != 0)
            munmap((void *)mem->base[i], mem->mapped[i]);
        else
            free((void *)mem->base[i]);
    }
    mem->count = 0;
}

typedef struct zt_launch {
    const zf_spirv_module *module;
    const zf_dprog *code;
    const char *kernel;
    const void *const *values; /* per argument: its bytes; NULL for local memory */
    const uint64_t *sizes;     /* per argument: its size (local memory: the bytes to reserve) */
    uint32_t global, local;
    uint32_t max_threads;
    zt_mem *mem;
    uint32_t global_y, local_y; /* a second dimension (0: none) */
} zt_launch;

/* The engine's debug messages since the text was last emptied, a line each (which tier runs a kernel). */
static char zt_debug_text[2048];

static void zt_debug(void *user, const char *text) {
    (void)user;
    size_t used = strlen(zt_debug_text);
    snprintf(zt_debug_text + used, sizeof zt_debug_text - used, "%s%s", used ? "\n" : "", text);
}

/* The engine's last warning. */
static char zt_warn_text[1024];

static void zt_warn(void *user, const char *text) {
    (void)user;
    snprintf(zt_warn_text, sizeof zt_warn_text, "%s", text);
}

/* The image and sampler of the image tests, named by the handles ZT_IMAGE and ZT_SAMPLER. */
#define ZT_IMAGE   0x51000u
#define ZT_SAMPLER 0x52000u
static zf_ximage zt_image_now;
static zf_xsampler zt_sampler_now;

static bool zt_image(void *user, uint64_t handle, zf_ximage *out) {
    (void)user;
    if (handle == ZT_IMAGE)
        *out = zt_image_now;
    return handle == ZT_IMAGE;
}

static bool zt_sampler(void *user, uint64_t handle, zf_xsampler *out) {
    (void)user;
    if (handle == ZT_SAMPLER)
        *out = zt_sampler_now;
    return handle == ZT_SAMPLER;
}

/* Runs the launch, stopped by the hang detector after hang_ns (0: never). */
static void zt_run_for(const zt_launch *l, uint64_t hang_ns, zf_xresult *result) {
    const zf_spirv_kernel *k = zf_spirv_find_kernel(l->module, l->kernel);
    assert_non_null(k);
    uint32_t index = (uint32_t)(k - zf_spirv_kernel_at(l->module, 0));
    zf_xarg args[16];
    assert_true(k->num_args <= 16);
    for (uint32_t i = 0; i < k->num_args; i++) {
        zf_xarg_kind kind = k->args[i].kind == ZF_SPIRV_ARG_LOCAL ? ZF_XARG_LOCAL
                            : k->args[i].byval                    ? ZF_XARG_BYVAL
                                                                  : ZF_XARG_VALUE;
        args[i] = (zf_xarg){kind, l->values[i], l->sizes[i]};
    }
    uint64_t *relocs = calloc(l->code->num_relocs + 1, 8);
    assert_non_null(relocs);
    zf_exec_env env = {.user = l->mem,
                       .lookup = zt_lookup,
                       .debug = zt_debug,
                       .warn = zt_warn,
                       .image = zt_image,
                       .sampler = zt_sampler};
    zf_xlaunch launch = {.program = {l->code, relocs, l->code, NULL, 0},
                         .kernel = index,
                         .name = l->kernel,
                         .num_args = k->num_args,
                         .args = args,
                         .group_size = {l->local, l->local_y ? l->local_y : 1, 1},
                         .groups = {l->global / l->local, l->local_y ? l->global_y / l->local_y : 1, 1},
                         .subgroup_size = 16,
                         .env = &env,
                         .max_threads = l->max_threads,
                         .hang_timeout_ns = hang_ns};
    zf_spirv_execute(&launch, result);
    free(relocs);
}

static void zt_run(const zt_launch *l, zf_xresult *result) {
    zt_run_for(l, 0, result);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Decoding */

static void decodes_every_test_kernel(void **state) {
    (void)state;
    for (size_t i = 0; i < sizeof zt_corpus / sizeof zt_corpus[0]; i++) {
        zf_spirv_module *m = zt_read_ok(zt_corpus[i]);
        for (int itt = 0; itt < 2; itt++) {
            zf_dprog *prog = zt_decode(m, itt, zt_corpus[i]);
            assert_int_equal(prog->num_kernels, zf_spirv_kernel_count(m));
            char why[256];
            if (!zf_form_validate(prog, why, sizeof why))
                fail_msg("%s: the decoder's form is refused by the validator: %s", zt_corpus[i], why);
            zf_dprog_free(prog);
        }
        zf_spirv_free(m);
    }
}

static void unsupported_instruction_is_named_with_its_location(void **state) {
    (void)state;
    zf_spirv_module *m = zt_read_ok("spirv_unsupported");
    zf_decode_options options = {0};
    zf_spirv_log log = {0};
    zf_dprog *prog = NULL;
    assert_int_not_equal(zf_spirv_decode(m, &options, &prog, &log), ZF_SPIRV_OK);
    assert_null(prog);
    const char *text = zf_spirv_log_text(&log);
    if (strstr(text, "OpGroupNonUniformElect") == NULL || strstr(text, "word ") == NULL)
        fail_msg("the log does not name the opcode and its word offset: %s", text);
    zf_spirv_log_free(&log);
    zf_spirv_free(m);
}

static void itt_wrappers_cost_nothing_when_off(void **state) {
    (void)state;
    zf_spirv_module *m = zt_read_ok("spirv_itt");
    zf_dprog *off = zt_decode(m, false, "spirv_itt"), *on = zt_decode(m, true, "spirv_itt");
    zf_form_stats s_off, s_on;
    zf_form_kernel_stats(off, 0, &s_off);
    zf_form_kernel_stats(on, 0, &s_on);
    assert_true(s_off.instructions < s_on.instructions);
    assert_int_equal(off->kernels[0].itt_used, 0);
    assert_int_not_equal(on->kernels[0].itt_used, 0);
    zf_dprog_free(off);
    zf_dprog_free(on);
    zf_spirv_free(m);
}

static void forms_round_trip_and_match_their_module(void **state) {
    (void)state;
    for (size_t i = 0; i < sizeof zt_corpus / sizeof zt_corpus[0]; i++) {
        zf_spirv_module *m = zt_read_ok(zt_corpus[i]);
        zf_dprog *prog = zt_decode(m, false, zt_corpus[i]);
        size_t size, again_size;
        uint8_t *bytes = zt_serialize(prog, &size);
        char why[256] = "";
        zf_dprog *loaded = zf_form_load(bytes, size, why, sizeof why);
        if (loaded == NULL)
            fail_msg("%s: its own form does not load: %s", zt_corpus[i], why);
        uint8_t *again = zt_serialize(loaded, &again_size);
        assert_int_equal(again_size, size);
        assert_memory_equal(again, bytes, size);
        if (!zf_spirv_form_matches(m, loaded, why, sizeof why))
            fail_msg("%s: its form does not match it: %s", zt_corpus[i], why);
        free(again);
        free(bytes);
        zf_dprog_free(loaded);
        zf_dprog_free(prog);
        zf_spirv_free(m);
    }
    /* A form that belongs to another module does not match. */
    zf_spirv_module *copy = zt_read_ok("copy"), *vadd = zt_read_ok("vadd");
    zf_dprog *form = zt_decode(vadd, false, "vadd");
    char why[256] = "";
    assert_false(zf_spirv_form_matches(copy, form, why, sizeof why));
    assert_true(why[0] != '\0');
    zf_dprog_free(form);
    zf_spirv_free(copy);
    zf_spirv_free(vadd);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Launches */

static void zt_vadd(const zf_spirv_module *m, const zf_dprog *code, uint32_t threads, uint64_t *lane_ops) {
    zt_mem mem = {0};
    const uint32_t n = 1000;
    int32_t *a = zt_buffer(&mem, n * 4), *b = zt_buffer(&mem, n * 4), *c = zt_buffer(&mem, n * 4);
    for (uint32_t i = 0; i < n; i++) {
        a[i] = (int32_t)i * 7;
        b[i] = 3 - (int32_t)i;
    }
    const void *values[] = {&a, &b, &c};
    const uint64_t sizes[] = {8, 8, 8};
    zt_launch l = {m, code, "vadd_int", values, sizes, n, 100, threads, &mem, 0, 0};
    zf_xresult result;
    zt_run(&l, &result);
    assert_int_equal(result.faults, 0);
    for (uint32_t i = 0; i < n; i++)
        assert_int_equal(c[i], (int32_t)i * 6 + 3);
    *lane_ops = result.lane_ops;
    /* What each work-item executed (docs/builtin-kernels.md gives it for the built-in vadd_int): 9 ALU operations,
     * 3 memory instructions, 8 global bytes read and 4 written; nothing else. */
    const zf_work_counts want = {.ops = {[ZF_OPS_ALU] = 9 * n, [ZF_OPS_MEMORY] = 3 * n},
                                 .read = {[ZF_SPACE_GLOBAL] = 8 * n},
                                 .written = {[ZF_SPACE_GLOBAL] = 4 * n}};
    assert_memory_equal(&result.work, &want, sizeof want);
    zt_mem_free(&mem);
}

typedef struct zt_params {
    float scale;
    int32_t bias;
    double weight;
} zt_params;

static void zt_reduce(const zf_spirv_module *m, const zf_dprog *code, uint32_t threads, uint32_t local) {
    zt_mem mem = {0};
    const uint32_t n = 512;
    float *in = zt_buffer(&mem, n * 4), *out = zt_buffer(&mem, n / local * 4);
    for (uint32_t i = 0; i < n; i++)
        in[i] = (float)(i % 7);
    zt_params p = {2.0f, 0, 0.0};
    uint8_t flag = 1;
    int16_t pair[2] = {2, 0};
    const void *values[] = {&in, &out, NULL, &p, &flag, pair};
    const uint64_t sizes[] = {8, 8, local * 4, sizeof p, 1, 4};
    zt_launch l = {m, code, "reduce_local", values, sizes, n, local, threads, &mem, 0, 0};
    zf_xresult result;
    zt_run(&l, &result);
    assert_int_equal(result.faults, 0);
    for (uint32_t g = 0; g < n / local; g++) {
        float want = 0; /* small integers: exact in any order */
        for (uint32_t i = 0; i < local; i++) {
            float v = in[g * local + i] * 2.0f + 3.0f;
            want += v + (i < 64 ? v : in[g * local + (i & 63)] * 2.0f + 3.0f);
        }
        assert_true(out[g] == want);
    }
    zt_mem_free(&mem);
}

static void runs_kernels_on_one_thread_and_many(void **state) {
    (void)state;
    zf_spirv_module *m = zt_read_ok("vadd");
    zf_dprog *code = zt_decode(m, false, "vadd");
    uint64_t one = 0, many = 0;
    zt_vadd(m, code, 1, &one);
    zt_vadd(m, code, 0, &many);
    assert_true(one > 0);
    assert_int_equal(one, many); /* the work is the same however it is spread */
    zf_dprog_free(code);
    zf_spirv_free(m);
    m = zt_read_ok("local_memory");
    code = zt_decode(m, false, "local_memory");
    zt_reduce(m, code, 1, 64);
    zt_reduce(m, code, 0, 64);
    zt_reduce(m, code, 0, 8);
    zf_dprog_free(code);
    zf_spirv_free(m);
}

/* A process confined to one core (taskset, a cpuset) launches on that one thread, with the same results. */
static void launches_spread_over_the_cores_of_the_affinity_mask(void **state) {
    (void)state;
    cpu_set_t all, one;
    assert_int_equal(sched_getaffinity(0, sizeof all, &all), 0);
    assert_int_equal(zf_spirv_host_cores(), CPU_COUNT(&all));
    int first = 0;
    while (!CPU_ISSET(first, &all))
        first++;
    CPU_ZERO(&one);
    CPU_SET(first, &one);
    assert_int_equal(sched_setaffinity(0, sizeof one, &one), 0);
    assert_int_equal(zf_spirv_host_cores(), 1);
    zf_spirv_module *m = zt_read_ok("vadd");
    zf_dprog *code = zt_decode(m, false, "vadd");
    uint64_t confined = 0, free_to_spread = 0;
    zt_vadd(m, code, 0, &confined);
    assert_int_equal(sched_setaffinity(0, sizeof all, &all), 0);
    zt_vadd(m, code, 0, &free_to_spread);
    assert_true(confined > 0);
    assert_int_equal(confined, free_to_spread);
    zf_dprog_free(code);
    zf_spirv_free(m);
}

/* The engine counts what runs, so a loop costs per iteration: GEMM's work-items inside C run 22 + 11k ALU operations
 * and 1 + 2k memory instructions, those of a row inside and a column outside 13 ALU operations (what the built-in
 * reports, docs/builtin-kernels.md). */
static void counts_loops_per_iteration_and_local_memory_and_barriers(void **state) {
    (void)state;
    zf_spirv_module *m = zt_read_ok("gemm");
    zf_dprog *code = zt_decode(m, false, "gemm");
    zt_mem mem = {0};
    const uint32_t rows = 1, cols = 40, k = 5;
    float *a = zt_buffer(&mem, rows * k * 4), *b = zt_buffer(&mem, k * cols * 4), *c = zt_buffer(&mem, rows * cols * 4);
    const void *values[] = {&a, &b, &c, &rows, &cols, &k};
    const uint64_t sizes[] = {8, 8, 8, 4, 4, 4};
    zt_launch l = {m, code, "gemm", values, sizes, 64, 16, 0, &mem, 0, 0};
    zf_xresult result;
    zt_run(&l, &result);
    assert_int_equal(result.faults, 0);
    assert_int_equal(result.work.ops[ZF_OPS_ALU], cols * (22 + 11 * k) + (64 - cols) * 13);
    assert_int_equal(result.work.ops[ZF_OPS_MEMORY], cols * (1 + 2 * k));
    assert_int_equal(result.work.read[ZF_SPACE_GLOBAL], cols * 8 * k);
    assert_int_equal(result.work.written[ZF_SPACE_GLOBAL], cols * 4);
    zt_mem_free(&mem);
    zf_dprog_free(code);
    zf_spirv_free(m);
    /* A work-group reduction through local memory: local bytes and barriers, no private traffic. */
    m = zt_read_ok("local_memory");
    code = zt_decode(m, false, "local_memory");
    float *in = zt_buffer(&mem, 512 * 4), *out = zt_buffer(&mem, 8 * 4);
    zt_params p = {2.0f, 0, 0.0};
    uint8_t flag = 1;
    int16_t pair[2] = {2, 0};
    const void *reduce_values[] = {&in, &out, NULL, &p, &flag, pair};
    const uint64_t reduce_sizes[] = {8, 8, 64 * 4, sizeof p, 1, 4};
    zt_launch r = {m, code, "reduce_local", reduce_values, reduce_sizes, 512, 64, 0, &mem, 0, 0};
    zt_run(&r, &result);
    assert_int_equal(result.faults, 0);
    assert_true(result.work.read[ZF_SPACE_LOCAL] > 0 && result.work.written[ZF_SPACE_LOCAL] > 0);
    assert_true(result.work.ops[ZF_OPS_BARRIER] >= 512);
    assert_int_equal(result.work.written[ZF_SPACE_GLOBAL], 8 * 4);
    zt_mem_free(&mem);
    zf_dprog_free(code);
    zf_spirv_free(m);
}

static void faults_name_the_kernel_work_item_and_address(void **state) {
    (void)state;
    zf_spirv_module *m = zt_read_ok("spirv_globals");
    zf_dprog *code = zt_decode(m, false, "spirv_globals");
    zt_mem mem = {0};
    const uint32_t n = 100;
    int32_t *a = zt_buffer(&mem, n * 4);
    const void *values[] = {&a, &n};
    const uint64_t sizes[] = {8, 4};
    zt_launch l = {m, code, "out_of_bounds", values, sizes, 128, 32, 0, &mem, 0, 0};
    zf_xresult result;
    zt_run(&l, &result);
    assert_int_equal(result.faults, 28); /* work-items 100..127 store to a[100] */
    char address[32];
    snprintf(address, sizeof address, "%p", (void *)(a + n));
    if (strstr(result.first_fault, "kernel 'out_of_bounds'") == NULL ||
        strstr(result.first_fault, "work-item (100, 0, 0)") == NULL || strstr(result.first_fault, address + 2) == NULL)
        fail_msg("the fault does not name the kernel, work-item 100 and %s: %s", address, result.first_fault);
    for (uint32_t i = 0; i < n; i++)
        assert_int_equal(a[i], (int32_t)i + 1);
    /* Memory outside the allocations faults: the stand-in offers no host memory. */
    int32_t *stray = calloc(128, 4);
    assert_non_null(stray);
    l.values = (const void *const[]){&stray, &n};
    zt_run(&l, &result);
    assert_int_equal(result.faults, 128);
    assert_non_null(strstr(result.first_fault, "sharedSystemAllocCapabilities is 0"));
    assert_int_equal(stray[0], 0);
    free(stray);
    zt_mem_free(&mem);
    zf_dprog_free(code);
    zf_spirv_free(m);
}

static void irreducible_loop_with_lanes_entering_at_both_heads(void **state) {
    (void)state;
    zf_spirv_module *m = zt_read_ok("spirv_irreducible");
    zf_dprog *code = zt_decode(m, false, "spirv_irreducible");
    zt_mem mem = {0};
    const uint32_t n = 96;
    uint32_t *out = zt_buffer(&mem, n * 4);
    const void *values[] = {&out};
    const uint64_t sizes[] = {8};
    zt_launch l = {m, code, "irreducible", values, sizes, n, 32, 1, &mem, 0, 0};
    zf_xresult result;
    zt_run(&l, &result);
    assert_int_equal(result.faults, 0);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t x = i % 5, steps = 0;
        bool at_b = (i & 1) != 0;
        do {
            x = at_b ? 3 * x + 1 : x + 7;
            steps++;
            at_b = !at_b;
        } while (x < 100);
        assert_int_equal(out[i], 1000 * x + steps);
    }
    zt_mem_free(&mem);
    zf_dprog_free(code);
    zf_spirv_free(m);
}

/* Sub-group block reads and writes (spirv_subgroups.cl, sub-groups of 16) fault like loads and stores, and a block
 * write that faults writes none of its lane's elements. */
static void block_accesses_fault_like_loads_and_stores(void **state) {
    (void)state;
    zf_spirv_module *m = zt_read_ok("spirv_subgroups");
    zf_dprog *code = zt_decode(m, false, "spirv_subgroups");
    zt_mem mem = {0};
    const uint32_t block = 15 * 16, keep = block + 7 * 16; /* a sub-group's elements; what stays in `out` */
    uint32_t *in = zt_buffer(&mem, 2 * block * 4), *got = zt_buffer(&mem, 32 * 15 * 4);
    uint32_t *out = zt_buffer(&mem, (keep + 100) * 4), *short_in = zt_buffer(&mem, (block + 5) * 4);
    for (uint32_t i = 0; i < 2 * block; i++)
        in[i] = i * 2654435761u;
    const void *values[] = {&in, &got, &out};
    const uint64_t sizes[] = {8, 8, 8};
    zt_launch l = {m, code, "block_buffer_ui", values, sizes, 32, 32, 1, &mem, 0, 0};
    zf_xresult result;
    zt_run(&l, &result);
    assert_int_equal(result.faults, 16); /* the second sub-group's block of 8 runs past the end of `out` */
    if (strstr(result.first_fault, "work-item (16, 0, 0)") == NULL ||
        strstr(result.first_fault, "store of 4 bytes") == NULL)
        fail_msg("the fault does not name work-item 16 and a store: %s", result.first_fault);
    for (uint32_t i = 0; i < keep + 100; i++)
        assert_int_equal(out[i], i < keep ? in[i] : 0);
    assert_int_equal(got[17 * 15 + 3], in[block + 3 * 16 + 1]); /* work-item 17, first element of its block of 4 */
    l.values = (const void *const[]){&short_in, &got, &out};
    zt_run(&l, &result);
    assert_int_equal(result.faults, 16); /* lanes 5.. fault at the first block, the others at the second */
    /* The first fault: in lock-step, work-item 21's at the first block; compiled, work-items run one after the other
     * and work-item 16's second block faults first (docs/spirv-execution.md, "Checks"). */
    const char *exec = getenv("ZEFAKE_EXEC");
    const char *first = exec != NULL && strcmp(exec, "compiled") == 0 ? "work-item (16, 0, 0)" : "work-item (21, 0, 0)";
    if (strstr(result.first_fault, first) == NULL || strstr(result.first_fault, "load of 4 bytes") == NULL)
        fail_msg("the fault does not name %s and a load: %s", first, result.first_fault);
    zt_mem_free(&mem);
    zf_dprog_free(code);
    zf_spirv_free(m);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Robustness */

/* ------------------------------------------------------------------------------------------------------------------
 * The compiled tier (docs/spirv-execution.md, "Compiled tier"): the interpreter's results, work record and faults */

/* Runs a launch in the interpreter, then compiled, from the same inputs (`bytes` of `out` saved and restored); both
 * must give the same memory, work, lane operations and first fault. The tier chosen is logged. */
static void zt_both_tiers(const zt_launch *l, void *out, size_t bytes, const char *logged) {
    const char *saved = getenv("ZEFAKE_EXEC");
    char *keep = saved != NULL ? strdup(saved) : NULL;
    uint8_t *before = malloc(bytes), *interpreted = malloc(bytes);
    assert_non_null(before);
    assert_non_null(interpreted);
    memcpy(before, out, bytes);
    zf_xresult in, cx;
    setenv("ZEFAKE_EXEC", "interp", 1);
    zt_run(l, &in);
    memcpy(interpreted, out, bytes);
    memcpy(out, before, bytes);
    setenv("ZEFAKE_EXEC", "compiled", 1);
    zt_debug_text[0] = '\0';
    zt_run(l, &cx);
    if (strstr(zt_debug_text, logged) == NULL)
        fail_msg("expected '%s' in the debug log, got '%s'", logged, zt_debug_text);
    assert_memory_equal(out, interpreted, bytes);
    assert_memory_equal(&cx.work, &in.work, sizeof in.work);
    assert_int_equal(cx.lane_ops, in.lane_ops);
    assert_int_equal(cx.faults, in.faults);
    assert_string_equal(cx.first_fault, in.first_fault);
    if (keep != NULL)
        setenv("ZEFAKE_EXEC", keep, 1);
    else
        unsetenv("ZEFAKE_EXEC");
    free(keep);
    free(before);
    free(interpreted);
}

/* One launch's measurement: the threads the choice gives it (expected: `want`), then its time for 100 work-items. */
static bool zt_tune_launch(zf_tune *tune, uint64_t want, uint64_t ns) {
    uint64_t threads = zf_tune_threads(tune, 2);
    assert_int_equal(threads, want);
    return zf_tune_ran(tune, threads, 2, ns, 100, 100);
}

/* The thread choice (spirv_tune.c) from given times, for a kernel of an atomic per work-item (here 100 each): the
 * first launch is not measured, the next four alternate
 * between every thread and one; a choice's time is the best of its latest two, one thread is chosen when that is 1.5
 * times faster, and every 64 launches two measure the other choice again. */
static void thread_choice_follows_the_measured_times(void **state) {
    (void)state;
    zf_tune tune = {0};
    assert_false(zt_tune_launch(&tune, 2, 900000)); /* the first: caches cold, not measured */
    assert_false(zt_tune_launch(&tune, 2, 1000));   /* 10 ns per work-item on both threads */
    assert_false(zt_tune_launch(&tune, 1, 300));    /* 3 ns on one: each choice measured once only */
    assert_false(zt_tune_launch(&tune, 2, 2000));   /* slowed by something else: the best of two stays 10 */
    assert_true(zt_tune_launch(&tune, 1, 900));     /* best 3 against 10: contention, one thread from now */
    for (uint64_t n = 5; n < 64; n++)
        assert_false(zt_tune_launch(&tune, 1, 310));
    assert_true(zt_tune_launch(&tune, 2, 100)); /* launch 65 measures both threads again: 1 ns, contention gone */
    for (uint64_t n = 65; n < 70; n++)
        zt_tune_launch(&tune, n == 66 ? 1 : 2, 100); /* launch 67 measures the other choice, now one thread */
    /* One launch slowed on every thread does not make one thread the choice, nor do times within half of each
     * other. */
    zf_tune slowed = {0};
    uint64_t times[] = {5000, 5000, 900, 1000, 900, 1000};
    for (int k = 0; k < 6; k++)
        assert_false(zt_tune_launch(&slowed, k == 0 || k % 2 == 1 ? 2 : 1, times[k]));
    zf_tune close = {0};
    uint64_t near[] = {5000, 1000, 700, 1000, 700};
    for (int k = 0; k < 5; k++)
        assert_false(zt_tune_launch(&close, k == 0 || k % 2 == 1 ? 2 : 1, near[k]));
    assert_int_equal(zf_tune_threads(&close, 2), 2);
    /* One thread to choose from, or a launch of nothing: no measurement. */
    zf_tune single = {0};
    for (int k = 0; k < 6; k++) {
        assert_int_equal(zf_tune_threads(&single, 1), 1);
        assert_false(zf_tune_ran(&single, 1, 1, 100, 100, 100));
        assert_false(zf_tune_ran(&single, 2, 2, 100, 0, 100));
    }
    assert_int_equal(single.launches, 0);
    /* A kernel whose first launch executed fewer atomics than work-items keeps every thread, whatever the times. */
    zf_tune plain = {0};
    assert_false(zf_tune_ran(&plain, 2, 2, 100000, 100, 99));
    for (int k = 0; k < 8; k++) {
        assert_int_equal(zf_tune_threads(&plain, 2), 2);
        assert_false(zf_tune_ran(&plain, 2, 2, k < 4 ? 100000 : 10, 100, 100));
    }
}

/* A histogram straight into global bins, launched compiled as often as the thread choice needs to measure both
 * choices and then run by it: every launch gives the interpreter's bins, work and lane operations. */
static void compiled_launches_match_whatever_their_threads(void **state) {
    (void)state;
    zt_mem mem = {0};
    zf_spirv_module *m = zt_read_ok("spirv_atomics");
    zf_dprog *code = zt_decode(m, false, "spirv_atomics");
    const uint32_t n = 1u << 14;
    uint32_t *data = zt_buffer(&mem, n * 4), *bins = zt_buffer(&mem, 256 * 4);
    for (uint32_t i = 0; i < n; i++)
        data[i] = (i * 2654435761u) >> 7;
    const void *values[] = {&data, &bins};
    const uint64_t sizes[] = {8, 8};
    zt_launch l = {m, code, "bins", values, sizes, n, 64, 0, &mem, 0, 0};
    for (int launch = 0; launch < 7; launch++) {
        memset(bins, 0, 256 * 4);
        zt_both_tiers(&l, bins, 256 * 4, launch == 0 ? "kernel 'bins': compiled in" : "");
    }
    uint32_t total = 0;
    for (uint32_t b = 0; b < 256; b++)
        total += bins[b];
    assert_int_equal(total, n);
    zt_mem_free(&mem);
    zf_dprog_free(code);
    zf_spirv_free(m);
}

static void compiled_tier_matches_the_interpreter(void **state) {
    (void)state;
    zt_mem mem = {0};
    /* GEMM: loops, argument windows, the work of every block entry. */
    zf_spirv_module *m = zt_read_ok("gemm");
    zf_dprog *code = zt_decode(m, false, "gemm");
    const uint32_t rows = 3, cols = 40, k = 7;
    float *a = zt_buffer(&mem, rows * k * 4), *b = zt_buffer(&mem, k * cols * 4), *c = zt_buffer(&mem, rows * cols * 4);
    for (uint32_t i = 0; i < rows * k; i++)
        a[i] = (float)(i % 5) - 2.0f;
    for (uint32_t i = 0; i < k * cols; i++)
        b[i] = (float)(i % 3) + 0.5f;
    const void *values[] = {&a, &b, &c, &rows, &cols, &k};
    const uint64_t sizes[] = {8, 8, 8, 4, 4, 4};
    zt_launch l = {m, code, "gemm", values, sizes, 128, 16, 0, &mem, 0, 0};
    zt_both_tiers(&l, c, rows * cols * 4, "kernel 'gemm': compiled in");
    zt_mem_free(&mem);
    zf_dprog_free(code);
    zf_spirv_free(m);
    /* An out-of-bounds store: the same work-items stop, with the same fault text. */
    m = zt_read_ok("spirv_globals");
    code = zt_decode(m, false, "spirv_globals");
    const uint32_t n = 100;
    int32_t *o = zt_buffer(&mem, n * 4);
    const void *oob_values[] = {&o, &n};
    const uint64_t oob_sizes[] = {8, 4};
    zt_launch oob = {m, code, "out_of_bounds", oob_values, oob_sizes, 128, 32, 0, &mem, 0, 0};
    zt_both_tiers(&oob, o, n * 4, "kernel 'out_of_bounds': compiled in");
    zt_mem_free(&mem);
    zf_dprog_free(code);
    zf_spirv_free(m);
    /* Barriers, local memory and a by-value argument. */
    m = zt_read_ok("local_memory");
    code = zt_decode(m, false, "local_memory");
    float *in = zt_buffer(&mem, 512 * 4), *out = zt_buffer(&mem, 8 * 4);
    zt_params p = {2.0f, 0, 0.0};
    uint8_t flag = 1;
    int16_t pair[2] = {2, 0};
    const void *reduce_values[] = {&in, &out, NULL, &p, &flag, pair};
    const uint64_t reduce_sizes[] = {8, 8, 64 * 4, sizeof p, 1, 4};
    zt_launch r = {m, code, "reduce_local", reduce_values, reduce_sizes, 512, 64, 0, &mem, 0, 0};
    zt_both_tiers(&r, out, 8 * 4, "kernel 'reduce_local': compiled in");
    zt_mem_free(&mem);
    zf_dprog_free(code);
    zf_spirv_free(m);
    /* Math built-ins compile to calls of the C library's functions, bit for bit the interpreter's results. */
    m = zt_read_ok("spirv_math");
    code = zt_decode(m, false, "spirv_math");
    const uint32_t items = 64;
    float *fa = zt_buffer(&mem, items * 4), *fb = zt_buffer(&mem, items * 4), *fc = zt_buffer(&mem, items * 4);
    float *fo = zt_buffer(&mem, items * 48 * 4);
    for (uint32_t i = 0; i < items; i++) {
        fa[i] = (float)i * 0.37f - 11.0f;
        fb[i] = (float)(i % 9) * 0.5f + 0.25f;
        fc[i] = 1.0f / ((float)i + 1.0f);
    }
    const void *float_values[] = {&fa, &fb, &fc, &fo};
    const uint64_t float_sizes[] = {8, 8, 8, 8};
    zt_launch mf = {m, code, "math_float", float_values, float_sizes, items, 16, 0, &mem, 0, 0};
    zt_both_tiers(&mf, fo, items * 48 * 4, "kernel 'math_float': compiled in");
    double *da = zt_buffer(&mem, items * 8), *db = zt_buffer(&mem, items * 8), *dout = zt_buffer(&mem, items * 16 * 8);
    for (uint32_t i = 0; i < items; i++) {
        da[i] = (double)i * 0.41 - 13.0;
        db[i] = (double)(i % 7) * 0.75 + 0.5;
    }
    const void *double_values[] = {&da, &db, &dout};
    const uint64_t double_sizes[] = {8, 8, 8};
    zt_launch md = {m, code, "math_double", double_values, double_sizes, items, 16, 0, &mem, 0, 0};
    zt_both_tiers(&md, dout, items * 16 * 8, "kernel 'math_double': compiled in");
    zt_mem_free(&mem);
    zf_dprog_free(code);
    zf_spirv_free(m);
    /* Calls through function pointers are compiled, each work-item's call run by the interpreter (this stand-in
     * resolves none: every work-item faults the same way in both runs). */
    m = zt_read_ok("spirv_fptr");
    code = zt_decode(m, false, "spirv_fptr");
    int32_t *p32 = zt_buffer(&mem, 64 * 4);
    uint64_t external = 0;
    const void *fptr_values[] = {&p32, &external};
    const uint64_t fptr_sizes[] = {8, 8};
    zt_launch f = {m, code, "apply", fptr_values, fptr_sizes, 64, 16, 0, &mem, 0, 0};
    zt_both_tiers(&f, p32, 64 * 4, "kernel 'apply': compiled in");
    zt_mem_free(&mem);
    zf_dprog_free(code);
    zf_spirv_free(m);
}

/* Checks made once per group (docs/spirv-execution.md, "Checks made per group"): the stencil's borders and interior,
 * a last group past the end of its buffers, a 32-bit index that wraps inside a group, a signed index below a
 * buffer, local memory in a 2-dimensional group beside an access at a loaded index; in both tiers, each compiled with
 * its count of accesses checked per group. */
static void compiled_checks_per_group_match_the_interpreter(void **state) {
    (void)state;
    zt_mem mem = {0};
    zf_spirv_module *m = zt_read_ok("spirv_hoist");
    zf_dprog *code = zt_decode(m, false, "spirv_hoist");
    const uint32_t n = 48;
    float *in = zt_buffer(&mem, n * n * 4), *out = zt_buffer(&mem, n * n * 4);
    for (uint32_t i = 0; i < n * n; i++)
        in[i] = (float)(i * 7 % 13) - 6.0f;
    const void *stencil_values[] = {&in, &out, &n};
    const uint64_t stencil_sizes[] = {8, 8, 4};
    zt_launch stencil = {m, code, "hoist_stencil", stencil_values, stencil_sizes, n, 16, 0, &mem, n, 8};
    zt_both_tiers(&stencil, out, n * n * 4, "7 accesses checked per group");
    for (uint32_t y = 1; y + 1 < n; y++)
        for (uint32_t x = 1; x + 1 < n; x++) {
            uint32_t i = y * n + x;
            assert_true(out[i] == 4.0f * in[i] - in[i - 1] - in[i + 1] - in[i - n] - in[i + n]);
        }
    const uint32_t items = 200;
    float *short_in = zt_buffer(&mem, items * 4), *short_out = zt_buffer(&mem, items * 4);
    const float k = 3.0f;
    const void *scale_values[] = {&short_in, &short_out, &k};
    const uint64_t scale_sizes[] = {8, 8, 4};
    zt_launch scale = {m, code, "hoist_scale", scale_values, scale_sizes, 256, 64, 0, &mem, 0, 0};
    zt_both_tiers(&scale, short_out, items * 4, "2 accesses checked per group");
    uint32_t *u_in = zt_buffer(&mem, 256 * 4), *u_out = zt_buffer(&mem, 255 * 4);
    for (uint32_t i = 0; i < 256; i++)
        u_in[i] = i * 2654435761u;
    /* i = x * 2^24 wraps to 0 at the last work-item of a group of 257: the origin, the step and the corner are inside
     * the buffer of 2^24 + 1 elements, the work-items between them are not; only the exact check of the widened
     * index sees it. */
    const uint32_t multiplier = 1u << 24, big = (1u << 24) + 1;
    uint32_t *big_in = zt_buffer(&mem, (size_t)big * 4), *wrap_out = zt_buffer(&mem, 257 * 4);
    const void *wrap_values[] = {&big_in, &wrap_out, &multiplier};
    const uint64_t wrap_sizes[] = {8, 8, 4};
    zt_launch wrap = {m, code, "hoist_wrap", wrap_values, wrap_sizes, 257, 257, 0, &mem, 0, 0};
    zt_both_tiers(&wrap, wrap_out, 257 * 4, "2 accesses checked per group");
    const int32_t shift = 5;
    const void *signed_values[] = {&u_in, &u_out, &shift};
    const uint64_t signed_sizes[] = {8, 8, 4};
    zt_launch below = {m, code, "hoist_signed", signed_values, signed_sizes, 255, 51, 0, &mem, 0, 0};
    zt_both_tiers(&below, u_out, 255 * 4, "2 accesses checked per group");
    const uint32_t width = 16;
    const void *local_values[] = {&u_in, &u_out, &width};
    const uint64_t local_sizes[] = {8, 8, 4};
    zt_launch local = {m, code, "hoist_local", local_values, local_sizes, width, 8, 0, &mem, 15, 5};
    zt_both_tiers(&local, u_out, 240 * 4, "accesses checked per group");
    int32_t *b_in = zt_buffer(&mem, 512 * 4), *b_out = zt_buffer(&mem, 512 * 4);
    for (uint32_t i = 0; i < 512; i++)
        b_in[i] = (int32_t)(i * 37 % 301) - 150;
    const uint32_t b_n = 512;
    const void *branch_values[] = {&b_in, &b_out, &b_n};
    const uint64_t branch_sizes[] = {8, 8, 4};
    zt_launch branches = {m, code, "hoist_branches", branch_values, branch_sizes, 512, 64, 0, &mem, 0, 0};
    zt_both_tiers(&branches, b_out, 512 * 4, "2 accesses checked per group, 3 block counts derived");
    float *above = zt_buffer(&mem, n * n * 4);
    const void *above_values[] = {&in, &above, &n};
    zt_launch row_above = {m, code, "hoist_above", above_values, stencil_sizes, n, 16, 0, &mem, n, 8};
    zt_both_tiers(&row_above, above, n * n * 4,
                  "2 accesses checked per group, 0 block counts derived, 1 index in 64 bits");
    for (uint32_t i = n; i < n * n; i++)
        assert_true(above[i] == in[i - n] + 1.0f);
    zt_mem_free(&mem);
    zf_dprog_free(code);
    zf_spirv_free(m);
}

/* Variants per group size (docs/spirv-execution.md, "Group size"): the first compile is specialized to its launch's
 * group size, a launch of another size gets the variant of any size, compiled once; every launch matches the
 * interpreter, whichever variant runs it. */
static void compiled_variants_per_group_size_match_the_interpreter(void **state) {
    (void)state;
    zt_mem mem = {0};
    zf_spirv_module *m = zt_read_ok("spirv_hoist");
    zf_dprog *code = zt_decode(m, false, "spirv_hoist");
    const uint32_t n = 48;
    float *in = zt_buffer(&mem, n * n * 4), *out = zt_buffer(&mem, n * n * 4);
    for (uint32_t i = 0; i < n * n; i++)
        in[i] = (float)(i * 5 % 11) - 4.0f;
    const void *values[] = {&in, &out, &n};
    const uint64_t sizes[] = {8, 8, 4};
    zt_launch first = {m, code, "hoist_stencil", values, sizes, n, 16, 0, &mem, n, 8};
    zt_both_tiers(&first, out, n * n * 4, "groups of 16x8x1");
    zt_launch other = {m, code, "hoist_stencil", values, sizes, n, 8, 0, &mem, n, 16};
    zt_both_tiers(&other, out, n * n * 4, "any group size");
    zt_launch third = {m, code, "hoist_stencil", values, sizes, n, 12, 0, &mem, n, 4};
    zt_both_tiers(&third, out, n * n * 4, ""); /* the variant of any size again: nothing compiled */
    assert_string_equal(zt_debug_text, "");
    zt_both_tiers(&first, out, n * n * 4, "");
    assert_string_equal(zt_debug_text, "");
    for (uint32_t y = 1; y + 1 < n; y++)
        for (uint32_t x = 1; x + 1 < n; x++) {
            uint32_t i = y * n + x;
            assert_true(out[i] == 4.0f * in[i] - in[i - 1] - in[i + 1] - in[i - n] - in[i + n]);
        }
    zt_mem_free(&mem);
    zf_dprog_free(code);
    zf_spirv_free(m);
}

/* Rows across the wave (docs/spirv-execution.md): 64 x 64 work-items in groups of 16 x 8 on one thread make waves of
 * one row of 4 groups, each run row by row through one loop along x. Every work-item sees its own ids; a kernel whose
 * unchecked copy can fault keeps the groups' order, so that its first fault is the interpreter's: a work-item of
 * group 0's fourth row faults, and one of group 1's first row, which the rows across the wave would run first. */
static void zt_wave_rows(const zf_spirv_module *m, const zf_dprog *code, zt_mem *mem) {
    const uint32_t width = 64, height = 64, cells = width * height;
    uint32_t *ids = zt_buffer(mem, cells * 4), *linear = zt_buffer(mem, cells * 4);
    const void *id_values[] = {&ids, &linear, &width};
    const uint64_t id_sizes[] = {8, 8, 4};
    zt_launch l = {m, code, "hoist_ids", id_values, id_sizes, width, 16, 1, mem, height, 8};
    zt_both_tiers(&l, ids, cells * 4, "rows across the wave");
    for (uint32_t y = 0; y < height; y++)
        for (uint32_t x = 0; x < width; x++) {
            uint32_t i = y * width + x, lx = x % 16, ly = y % 8;
            assert_int_equal(ids[i], lx | ly << 8 | (x / 16) << 16 | (y / 8) << 24);
            assert_int_equal(linear[i], (ly * 16 + lx) << 16 | x);
        }
    uint32_t *in = zt_buffer(mem, cells * 4), *out = zt_buffer(mem, cells * 4);
    for (uint32_t i = 0; i < cells; i++)
        in[i] = (i * 7) % cells;
    in[3 * width + 5] = cells + 9;  /* group (0, 0), local id (5, 3) */
    in[0 * width + 20] = cells + 1; /* group (1, 0), local id (4, 0) */
    const void *leave_values[] = {&in, &out, &width};
    zt_launch leave = {m, code, "hoist_leave", leave_values, id_sizes, width, 16, 1, mem, height, 8};
    zt_both_tiers(&leave, out, cells * 4, "2 accesses checked per group");
    if (strstr(zt_debug_text, "rows across the wave") != NULL)
        fail_msg("a kernel whose unchecked copy can fault runs rows across the wave: %s", zt_debug_text);
    zf_xresult r;
    zt_run(&leave, &r);
    assert_int_equal(r.faults, 2);
    assert_non_null(strstr(r.first_fault, "work-item (5, 3, 0) of group (0, 0, 0)"));
}

/* Checks made once per wave (docs/spirv-execution.md, "Checks made per group"): on one thread, waves of several
 * groups, a run of groups whose wave box is proved at once, the waves of a row of groups that end past the buffers or
 * start below them (the stencil's first and last rows, the scale's last wave: proved group by group, the faults the
 * interpreter's), waves that span two rows of groups, and addresses of local ids and local memory, which only a
 * group's proof covers. */
static void compiled_checks_per_wave_match_the_interpreter(void **state) {
    (void)state;
    zt_mem mem = {0};
    zf_spirv_module *m = zt_read_ok("spirv_hoist");
    zf_dprog *code = zt_decode(m, false, "spirv_hoist");
    const uint32_t items = 4096, kept = 4000;
    float *in = zt_buffer(&mem, kept * 4), *out = zt_buffer(&mem, kept * 4);
    for (uint32_t i = 0; i < kept; i++)
        in[i] = (float)(i % 11);
    const float k = 0.5f;
    const void *scale_values[] = {&in, &out, &k};
    const uint64_t scale_sizes[] = {8, 8, 4};
    zt_launch scale = {m, code, "hoist_scale", scale_values, scale_sizes, items, 16, 1, &mem, 0, 0};
    zt_both_tiers(&scale, out, kept * 4, "2 accesses checked per group");
    for (uint32_t i = 0; i < kept; i++)
        assert_true(out[i] == 0.5f * in[i] + 1.0f);
    const uint32_t sides[2] = {1024, 512}; /* one row of 64 groups a wave; a wave of 64 over two rows of 32 */
    for (int s = 0; s < 2; s++) {
        const uint32_t n = sides[s];
        float *grid = zt_buffer(&mem, n * n * 4), *next = zt_buffer(&mem, n * n * 4);
        for (uint32_t i = 0; i < n * n; i++)
            grid[i] = (float)(i * 5 % 17) - 8.0f;
        const void *stencil_values[] = {&grid, &next, &n};
        const uint64_t stencil_sizes[] = {8, 8, 4};
        zt_launch stencil = {m, code, "hoist_stencil", stencil_values, stencil_sizes, n, 16, 1, &mem, n, 8};
        zt_both_tiers(&stencil, next, n * n * 4, s == 0 ? "7 accesses checked per group" : "");
        for (uint32_t i = n + 1; i < n * n - n - 1; i++)
            if (i % n != 0 && i % n != n - 1)
                assert_true(next[i] == 4.0f * grid[i] - grid[i - 1] - grid[i + 1] - grid[i - n] - grid[i + n]);
    }
    const uint32_t width = 16, rows = 256;
    uint32_t *u_in = zt_buffer(&mem, width * rows * 4), *u_out = zt_buffer(&mem, width * rows * 4);
    for (uint32_t i = 0; i < width * rows; i++)
        u_in[i] = i * 2654435761u;
    const void *local_values[] = {&u_in, &u_out, &width};
    const uint64_t local_sizes[] = {8, 8, 4};
    zt_launch local = {m, code, "hoist_local", local_values, local_sizes, width, 16, 1, &mem, rows, 8};
    zt_both_tiers(&local, u_out, width * rows * 4, "accesses checked per group");
    zt_wave_rows(m, code, &mem);
    zt_mem_free(&mem);
    zf_dprog_free(code);
    zf_spirv_free(m);
}

/* Work-items in step (docs/spirv-execution.md): a naive matrix product in groups of 16 x 4 (8 work-items in step) and
 * of 12 x 2 (4), a branch on the row inside the loop, and kernels that must not run in step or must leave the copy:
 * a branch on x, a load at a loaded place outside its buffer in the middle of the loop, and a store at a loaded place
 * outside its buffer after the others of its run would have stored; every result, the executed-work record and the
 * first fault the interpreter's, and the products also C's. */
static void zt_step_gemm(const zf_spirv_module *m, const zf_dprog *code, zt_mem *mem, uint32_t local, uint32_t local_y,
                         const char *logged) {
    const uint32_t n = 48;
    float *a = zt_buffer(mem, n * n * 4), *b = zt_buffer(mem, n * n * 4), *c = zt_buffer(mem, n * n * 4);
    for (uint32_t i = 0; i < n * n; i++) {
        a[i] = (float)(i % 7) - 3.0f;
        b[i] = (float)(i % 5) * 0.5f;
    }
    const void *values[] = {&a, &b, &c, &n};
    const uint64_t sizes[] = {8, 8, 8, 4};
    zt_launch l = {m, code, "step_gemm", values, sizes, n, local, 0, mem, n, local_y};
    zt_both_tiers(&l, c, n * n * 4, logged);
    for (uint32_t row = 0; row < n; row++)
        for (uint32_t col = 0; col < n; col++) {
            float sum = 0.0f;
            for (uint32_t k = 0; k < n; k++)
                sum += a[row * n + k] * b[k * n + col];
            assert_true(c[row * n + col] == sum);
        }
}

static void zt_step_not(const zt_launch *l, void *out, size_t bytes) {
    zt_both_tiers(l, out, bytes, "compiled in");
    if (strstr(zt_debug_text, "in step") != NULL)
        fail_msg("kernel '%s' runs in step: %s", l->kernel, zt_debug_text);
}

static void compiled_work_items_in_step_match_the_interpreter(void **state) {
    (void)state;
    zt_mem mem = {0};
    zf_spirv_module *m = zt_read_ok("spirv_step");
    zf_dprog *code = zt_decode(m, false, "spirv_step");
    zt_step_gemm(m, code, &mem, 16, 4, "8 work-items in step");
    zt_step_gemm(m, code, &mem, 12, 2, "any group size"); /* the variant of any size: one by one */
    zf_dprog_free(code);
    code = zt_decode(m, false, "spirv_step"); /* a new form: its first compile is specialized to groups of 12 */
    zt_step_gemm(m, code, &mem, 12, 2, "4 work-items in step");
    const uint32_t width = 64, n = 40;
    float *in = zt_buffer(&mem, width * n * 4), *out = zt_buffer(&mem, width * width * 4);
    for (uint32_t i = 0; i < width * n; i++)
        in[i] = (float)(i * 7 % 23) - 11.0f;
    const void *rows_values[] = {&in, &out, &width, &n};
    const uint64_t rows_sizes[] = {8, 8, 4, 4};
    zt_launch rows = {m, code, "step_rows", rows_values, rows_sizes, width, 16, 0, &mem, width, 2};
    zt_both_tiers(&rows, out, width * width * 4, "8 work-items in step");
    zt_launch diverge = {m, code, "step_diverge", rows_values, rows_sizes, width, 16, 0, &mem, 0, 0};
    zt_step_not(&diverge, out, width * 4);
    uint32_t *at = zt_buffer(&mem, width * 4);
    for (uint32_t x = 0; x < width; x++)
        at[x] = x * 13 % (width * n - n);
    at[21] = width * n - 5; /* group 1: its loop leaves `in` at k = 5 */
    const void *gather_values[] = {&in, &at, &out, &n};
    const uint64_t gather_sizes[] = {8, 8, 8, 4};
    zt_launch gather = {m, code, "step_gather", gather_values, gather_sizes, width, 16, 0, &mem, 0, 0};
    zt_both_tiers(&gather, out, width * 4, "8 work-items in step");
    zf_xresult r;
    zt_run(&gather, &r);
    assert_int_equal(r.faults, 1);
    assert_non_null(strstr(r.first_fault, "work-item (21, 0, 0) of group (1, 0, 0)"));
    for (uint32_t x = 0; x < width; x++)
        at[x] = x;
    at[42] = width * width + 2; /* past `out`: group 2, its second run of 8 work-items in step */
    const void *scatter_values[] = {&in, &at, &out, &n};
    zt_launch scatter = {m, code, "step_scatter", scatter_values, gather_sizes, width, 16, 0, &mem, 0, 0};
    zt_both_tiers(&scatter, out, width * width * 4, "8 work-items in step");
    zt_run(&scatter, &r);
    assert_int_equal(r.faults, 1);
    assert_non_null(strstr(r.first_fault, "work-item (42, 0, 0) of group (2, 0, 0)"));
    /* A loop in step that never ends: the copy leaves at the hang detector's look, and the work-items one by one
     * stop with its fault. */
    const uint32_t spin_n = 10, spin_step = 0;
    const void *spin_values[] = {&in, &out, &spin_n, &spin_step};
    zt_launch spin = {m, code, "step_spin", spin_values, rows_sizes, width, 16, 1, &mem, 0, 0};
    const char *exec = getenv("ZEFAKE_EXEC");
    char *keep = exec != NULL ? strdup(exec) : NULL;
    setenv("ZEFAKE_EXEC", "compiled", 1);
    zt_debug_text[0] = '\0';
    zt_run_for(&spin, 100000000u, &r);
    if (keep != NULL)
        setenv("ZEFAKE_EXEC", keep, 1);
    else
        unsetenv("ZEFAKE_EXEC");
    free(keep);
    if (strstr(zt_debug_text, "8 work-items in step") == NULL)
        fail_msg("expected the spin in step, got '%s'", zt_debug_text);
    assert_true(r.faults >= 1);
    assert_non_null(strstr(r.first_fault, "work-item (0, 0, 0) of group (0, 0, 0)"));
    assert_non_null(strstr(r.first_fault, "stopped by the hang detector"));
    zt_mem_free(&mem);
    zf_dprog_free(code);
    zf_spirv_free(m);
}

/* Runs `kernel` of spirv_local with the given arguments in both tiers and expects the compiled run's log to say
 * `logged`. */
static void zt_local_both(const char *kernel, const void *const *values, const uint64_t *sizes, uint32_t global,
                          uint32_t local, zt_mem *mem, void *out, size_t bytes, const char *logged) {
    zf_spirv_module *m = zt_read_ok("spirv_local");
    zf_dprog *code = zt_decode(m, false, "spirv_local");
    zt_launch l = {m, code, kernel, values, sizes, global, local, 0, mem, 0, 0};
    zt_both_tiers(&l, out, bytes, logged);
    zf_dprog_free(code);
    zf_spirv_free(m);
}

/* A fault stops its work-item only: the work-items that take its place in the thread's later waves (in both tiers'
 * waves, of 128 and 2048 work-items) run, and fault again when they break the rule too; a wave clears the faulted
 * lanes only after a fault. */
static void faulted_work_items_leave_their_lanes_to_later_waves(void **state) {
    (void)state;
    zf_spirv_module *m = zt_read_ok("spirv_globals");
    zf_dprog *code = zt_decode(m, false, "spirv_globals");
    zt_mem mem = {0};
    const uint32_t items = 8192, bad = 5, period = 2048;
    int32_t *b = zt_guarded_buffer(&mem, items * 4, 4096); /* the stores past the end meet the guard */
    const void *values[] = {&b, &items, &bad, &period};
    const uint64_t sizes[] = {8, 4, 4, 4};
    zt_launch l = {m, code, "some_out_of_bounds", values, sizes, items, 32, 1, &mem, 0, 0}; /* one thread */
    zt_both_tiers(&l, b, items * 4, "kernel 'some_out_of_bounds': compiled in");
    for (uint32_t i = 0; i < items; i++)
        assert_int_equal(b[i], i % period == bad ? 0 : (int32_t)i + 1);
    zf_xresult result;
    zt_run(&l, &result); /* in the tier ZEFAKE_EXEC names */
    assert_int_equal(result.faults, items / period);
    zt_mem_free(&mem);
    zf_dprog_free(code);
    zf_spirv_free(m);
}

/* Overwrites `size` bytes of the entry's header at `offset` (cx_disk.h's layout). */
static void zt_cache_poke(const char *path, long offset, const void *bytes, size_t size) {
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    assert_int_equal(fseek(f, offset, SEEK_SET), 0);
    assert_int_equal(fwrite(bytes, 1, size, f), size);
    fclose(f);
}

/* The format version of the entry (the last byte of its magic). */
static void zt_cache_set_version(const char *path, char version) {
    zt_cache_poke(path, 7, &version, 1);
}

/* The tiled GEMM of spirv_gemm.cl, 24 x 24 (not a multiple of its 16 x 16 tiles), in both tiers, with a[i] = i % a_mod
 * + a_add and b[i] = (i % b_mod) * b_scale + b_add. */
static void zt_gemm_tiled_both(zt_mem *mem, uint32_t a_mod, float a_add, uint32_t b_mod, float b_scale, float b_add) {
    const uint32_t dim = 24;
    float *a = zt_buffer(mem, dim * dim * 4), *b = zt_buffer(mem, dim * dim * 4), *c = zt_buffer(mem, 32 * 32 * 4);
    for (uint32_t i = 0; i < dim * dim; i++) {
        a[i] = (float)(i % a_mod) + a_add;
        b[i] = (float)(i % b_mod) * b_scale + b_add;
    }
    zf_spirv_module *m = zt_read_ok("spirv_gemm");
    zf_dprog *code = zt_decode(m, false, "spirv_gemm");
    const void *values[] = {&a, &b, &c, &dim, &dim, &dim};
    const uint64_t sizes[] = {8, 8, 8, 4, 4, 4};
    zt_launch gemm = {m, code, "gemm_tiled", values, sizes, 32, 16, 0, mem, 32, 16};
    zt_both_tiers(&gemm, c, 32 * 32 * 4, "regions, records of");
    zf_dprog_free(code);
    zf_spirv_free(m);
}

/* Kernels with barriers run compiled region by region (docs/spirv-execution.md, "How a work-group runs"): barriers
 * in loops and branches of uniform control flow, in a function the kernel calls, a tiled GEMM in two dimensions, a
 * private array live across barriers, async_work_group_copy (its operands live across barriers too), a barrier
 * only some work-items reach and work-items that finish between two barriers, which the log reports. */
static void compiled_tier_runs_barriers_region_by_region(void **state) {
    (void)state;
    zt_mem mem = {0};
    const uint32_t n = 40;
    zt_gemm_tiled_both(&mem, 7, -3.0f, 5, 0.5f, 0.0f);
    zt_mem_free(&mem);
    float *in = zt_buffer(&mem, 256 * 4), *sums = zt_buffer(&mem, 4 * 4);
    for (uint32_t i = 0; i < 256; i++)
        in[i] = (float)(i % 9);
    const void *reduce_values[] = {&in, &sums, NULL, &n};
    const uint64_t reduce_sizes[] = {8, 8, 64 * 4, 4};
    zt_local_both("reduce", reduce_values, reduce_sizes, 256, 64, &mem, sums, 4 * 4, "regions, records of");
    zt_mem_free(&mem);
    int32_t *ints = zt_buffer(&mem, 128 * 4), *scanned = zt_buffer(&mem, 128 * 4);
    for (uint32_t i = 0; i < 128; i++)
        ints[i] = (int32_t)(i * 37 % 11) - 5;
    const void *scan_values[] = {&ints, &scanned, NULL};
    const uint64_t scan_sizes[] = {8, 8, 32 * 4};
    zt_local_both("scan", scan_values, scan_sizes, 128, 32, &mem, scanned, 128 * 4, "regions, records of");
    zt_mem_free(&mem);
    int32_t *out = zt_buffer(&mem, 96 * 4);
    for (uint32_t rounds = 0; rounds < 4; rounds += 3) {
        int32_t deep = rounds > 0;
        const void *paths_values[] = {&out, NULL, &rounds, &deep};
        const uint64_t paths_sizes[] = {8, 32 * 4, 4, 4};
        zt_local_both("barrier_paths", paths_values, paths_sizes, 96, 32, &mem, out, 96 * 4, "regions, records of");
    }
    /* Collectives and shuffles: the work-items wait at each for their group (or sub-group); one that only some
     * sub-groups reach. */
    int32_t *values = zt_buffer(&mem, 96 * 4), *results = zt_buffer(&mem, 96 * 10 * 4);
    float *fvalues = zt_buffer(&mem, 96 * 4), *fresults = zt_buffer(&mem, 96 * 2 * 4);
    for (uint32_t i = 0; i < 96; i++) {
        values[i] = (int32_t)(i * 7919 % 101) - 50;
        fvalues[i] = (float)values[i] * 0.37f;
    }
    const void *collective_values[] = {&values, &fvalues, &results, &fresults};
    const uint64_t collective_sizes[] = {8, 8, 8, 8};
    zt_local_both("collectives", collective_values, collective_sizes, 96, 32, &mem, results, 96 * 10 * 4,
                  "regions, records of");
    assert_int_equal(results[0], results[10 * 31]); /* one reduction for the whole group */
    const void *shuffle_values[] = {&values, &results};
    zt_local_both("shuffles", shuffle_values, collective_sizes, 96, 32, &mem, results, 96 * 3 * 4,
                  "regions, records of");
    zt_local_both("subgroup_branch", shuffle_values, collective_sizes, 96, 32, &mem, results, 96 * 4,
                  "did not all reach the same barrier or collective");
    zt_local_both("collectives_diverged", shuffle_values, collective_sizes, 96, 32, &mem, results, 96 * 4,
                  "did not all reach the same barrier or collective");
    /* Work-items that fault before a collective (their value read past a short buffer) take no part in it, in both
     * tiers. */
    int32_t *few = zt_guarded_buffer(&mem, 70 * 4, 4096); /* reads past it meet its guard, not another buffer */
    memcpy(few, values, 70 * 4);
    const void *faulting_values[] = {&few, &fvalues, &results, &fresults};
    zt_local_both("collectives", faulting_values, collective_sizes, 96, 32, &mem, results, 96 * 10 * 4, "");
    /* async_work_group_copy in and strided out, around a barrier: made by the group's first work-item. */
    float *copied = zt_buffer(&mem, 96 * 4), *strided = zt_buffer(&mem, 96 * 4);
    for (uint32_t i = 0; i < 96; i++)
        copied[i] = (float)i * 0.25f;
    const void *copy_values[] = {&copied, &strided, NULL};
    const uint64_t copy_sizes[] = {8, 8, 32 * 4};
    zt_local_both("async_copy", copy_values, copy_sizes, 96, 32, &mem, strided, 96 * 4, "regions, records of");
    assert_true(strided[1 * 3] == copied[1] * 2.0f + 1.0f); /* element 1 of group 0 lands at 1 x 3 groups */
    /* A source too short for the last group: the work-item making its first copy faults there, and the next one
     * makes the group's second copy, as the interpreter's next active lane does. */
    float *short_copied = zt_guarded_buffer(&mem, 64 * 4, 4096);
    memcpy(short_copied, copied, 64 * 4);
    memset(strided, 0, 96 * 4);
    const void *short_copy_values[] = {&short_copied, &strided, NULL};
    zt_local_both("async_copy", short_copy_values, copy_sizes, 96, 32, &mem, strided, 96 * 4, "");
    assert_true(strided[2 + 3 * 1] == 1.0f); /* group 2, element 1: not copied in (0), then doubled plus 1, out */
    const void *private_values[] = {&out, NULL};
    const uint64_t private_sizes[] = {8, 32 * 4};
    zt_local_both("private_across_barriers", private_values, private_sizes, 96, 32, &mem, out, 96 * 4,
                  "regions, records of");
    /* Bail points: faults in the middle of a group's regions, and no fault (every access inside its window). The stray
     * store lands 100000 elements past `bailed`, in its guard. */
    int32_t *bailed = zt_guarded_buffer(&mem, 96 * 4, (100000 + 96) * 4);
    const uint32_t bails[3][2] = {{45, 70}, {13, 13}, {1000, 1000}};
    for (int k = 0; k < 3; k++) {
        const void *bail_values[] = {&bailed, NULL, &bails[k][0], &bails[k][1]};
        const uint64_t bail_sizes[] = {8, 32 * 4, 4, 4};
        zt_local_both("barrier_bails", bail_values, bail_sizes, 96, 32, &mem, bailed, 96 * 4, "");
        /* The same with a local array of the kernel's own: checked against the group's local variables. */
        const void *static_values[] = {&bailed, &bails[k][0], &bails[k][1]};
        const uint64_t static_sizes[] = {8, 4, 4};
        zt_local_both("static_local_bails", static_values, static_sizes, 96, 32, &mem, bailed, 96 * 4, "");
    }
    /* A tree reduction in a local array of its own, and a work-item reading it at a place of the group's (17 + 9 of
     * 32), then one reading past the wave's local memory, which faults as the interpreter faults. */
    int32_t *tree_in = zt_buffer(&mem, 96 * 4), *tree_out = zt_buffer(&mem, 96 * 4);
    for (uint32_t i = 0; i < 96; i++)
        tree_in[i] = (int32_t)(i * 31 % 17) - 8;
    const uint32_t reaches[2][2] = {{17, 9}, {5, 1u << 20}};
    for (int k = 0; k < 2; k++) {
        const void *tree_values[] = {&tree_in, &tree_out, &reaches[k][0], &reaches[k][1]};
        const uint64_t tree_sizes[] = {8, 8, 4, 4};
        zt_local_both("static_local_reach", tree_values, tree_sizes, 96, 32, &mem, tree_out, 96 * 4,
                      "regions, records of");
    }
    for (uint32_t g = 0; g < 3; g++) { /* the results are the reduction's: each group's sum */
        int32_t sum = 0;
        for (uint32_t i = 0; i < 32; i++)
            sum += tree_in[g * 32 + i];
        assert_int_equal(tree_out[g * 32 + 31], tree_in[g * 32 + 31] + sum); /* part[31] is never added to */
    }
    /* ZEFAKE_EXEC=auto compiles a launch of 65536 work-items with barriers. */
    float *big = zt_buffer(&mem, 65536 * 4), *partial = zt_buffer(&mem, 256 * 4);
    const uint32_t big_n = 65536;
    const void *auto_values[] = {&big, &partial, NULL, &big_n};
    const uint64_t auto_sizes[] = {8, 8, 256 * 4, 4};
    zf_spirv_module *m = zt_read_ok("spirv_local");
    zf_dprog *code = zt_decode(m, false, "spirv_local");
    zt_launch automatic = {m, code, "reduce", auto_values, auto_sizes, 65536, 256, 0, &mem, 0, 0};
    const char *exec = getenv("ZEFAKE_EXEC");
    char *keep = exec != NULL ? strdup(exec) : NULL;
    setenv("ZEFAKE_EXEC", "auto", 1);
    zf_xresult result;
    zt_run(&automatic, &result);
    if (keep != NULL)
        setenv("ZEFAKE_EXEC", keep, 1);
    else
        unsetenv("ZEFAKE_EXEC");
    free(keep);
    assert_int_equal(result.faults, 0);
    if (strstr(zt_debug_text, "kernel 'reduce': compiled in") == NULL)
        fail_msg("ZEFAKE_EXEC=auto: expected the reduction compiled, the log says '%s'", zt_debug_text);
    zf_dprog_free(code);
    zf_spirv_free(m);
    const void *divergent_values[] = {&out, NULL};
    const uint64_t divergent_sizes[] = {8, 32 * 4};
    zt_local_both("barrier_divergent", divergent_values, divergent_sizes, 96, 32, &mem, out, 96 * 4,
                  "did not all reach the same barrier");
    zt_local_both("barrier_late_exit", divergent_values, divergent_sizes, 96, 32, &mem, out, 96 * 4,
                  "did not all reach the same barrier");
    zt_mem_free(&mem);
}

/* The record size the last compile logged ("records of N bytes"). */
static uint32_t zt_logged_record_bytes(void) {
    const char *at = strstr(zt_debug_text, "records of ");
    unsigned bytes = 0;
    if (at == NULL || sscanf(at, "records of %u bytes", &bytes) != 1)
        fail_msg("expected the record size in the debug log, got '%s'", zt_debug_text);
    return bytes;
}

/* Values made of a work-item's ids, the arguments and constants are made again where it resumes (at a barrier, in
 * the kernel and in a callee that waits), not kept in its record (cx_emit_recompute.c): the results are the
 * interpreter's and the C model's, and the records hold only what cannot be made again. */
static void compiled_barriers_make_values_again_instead_of_keeping_them(void **state) {
    (void)state;
    zt_mem mem = {0};
    const uint32_t items = 96, n = 32, stride = 5;
    int32_t *out = zt_buffer(&mem, items * 3 * 4), *in = zt_buffer(&mem, items * 4);
    for (uint32_t i = 0; i < items; i++)
        in[i] = (int32_t)(i * 7) - 100;
    const void *values[] = {&out, &in, NULL, &stride};
    const uint64_t sizes[] = {8, 8, n * 4, 4};
    zt_local_both("recomputed_across_barriers", values, sizes, items, n, &mem, out, items * 3 * 4, "records of");
    /* Kept: the loaded value, the index made with a division and the resume point (16 bytes, each function's part
     * rounded up to 8), the callee's pointer made with a division, what it loaded and its resume point (16); 144
     * bytes when every live value goes to the record. */
    assert_in_range(zt_logged_record_bytes(), 8, 32);
    for (uint32_t g = 0; g < items; g++) {
        uint32_t base = g / n * n, l = g % n, index = (l * stride + 3) % n;
        int32_t first[32];
        for (uint32_t j = 0; j < n; j++)
            first[j] = in[base + n - 1 - j];
        int32_t before = first[(l + stride) % n], before_mirror = first[(n - 1 - l + stride) % n];
        assert_int_equal(out[g * 3], first[l] + first[index] * 3 + (int32_t)(l ^ stride));
        assert_int_equal(out[g * 3 + 1], before + in[l * 2 + 1] + (int32_t)(l * stride));
        assert_int_equal(out[g * 3 + 2], before_mirror + 1 + in[g] + (int32_t)(g << 2));
    }
    /* The tiled GEMM's places in its tiles, computed before its loop of barriers, are made again too. */
    zt_gemm_tiled_both(&mem, 3, 0.0f, 4, 1.0f, -1.0f);
    assert_in_range(zt_logged_record_bytes(), 8, 32);
    zt_mem_free(&mem);
}

/* Whether the compiled tier takes kernel `index` of a module: a launch of one work-item with ZEFAKE_EXEC=compiled and
 * zeroed arguments (null pointers: the kernel may fault, which does not matter here) and what the log says. */
static bool zt_compiles(const zf_spirv_module *m, const zf_dprog *code, uint32_t index, char *why, size_t why_size) {
    const zf_spirv_kernel *k = zf_spirv_kernel_at(m, index);
    zf_xarg args[32];
    static uint8_t zeros[4096];
    if (k->num_args > 32)
        return false;
    for (uint32_t i = 0; i < k->num_args; i++) {
        zf_xarg_kind kind = k->args[i].kind == ZF_SPIRV_ARG_LOCAL ? ZF_XARG_LOCAL
                            : k->args[i].byval                    ? ZF_XARG_BYVAL
                                                                  : ZF_XARG_VALUE;
        uint64_t size = kind == ZF_XARG_LOCAL ? 64 : k->args[i].size;
        args[i] = (zf_xarg){kind, kind == ZF_XARG_LOCAL ? NULL : zeros, size <= sizeof zeros ? size : 8};
    }
    uint64_t relocs[256] = {0};
    zt_mem mem = {0};
    zf_exec_env env = {.user = &mem, .lookup = zt_lookup, .debug = zt_debug};
    zf_xlaunch launch = {.program = {code, code->num_relocs <= 256 ? relocs : NULL, code, NULL, 0},
                         .kernel = index,
                         .name = k->name,
                         .num_args = k->num_args,
                         .args = args,
                         .group_size = {1, 1, 1},
                         .groups = {1, 1, 1},
                         .subgroup_size = 16,
                         .env = &env,
                         .max_threads = 1};
    zf_xresult result;
    zt_debug_text[0] = '\0';
    if (launch.program.relocs != NULL)
        zf_spirv_execute(&launch, &result);
    snprintf(why, why_size, "%s", zt_debug_text);
    return strstr(zt_debug_text, "compiled in") != NULL;
}

/* The share of the conformance corpus's kernels the compiled tier takes (docs/spirv-execution.md, "Compiled tier"):
 * printed, with the reasons of the others; it must not fall below what the tier compiles today. */
static void compiled_tier_takes_the_corpus(void **state) {
    (void)state;
    const char *exec = getenv("ZEFAKE_EXEC");
    if (exec != NULL && strcmp(exec, "compiled") == 0)
        skip(); /* the same as the run without ZEFAKE_EXEC (spirv_engine) */
    char *keep = exec != NULL ? strdup(exec) : NULL;
    setenv("ZEFAKE_EXEC", "compiled", 1);
    uint32_t total = 0, compiled = 0;
    for (size_t i = 0; i < sizeof zt_corpus / sizeof zt_corpus[0]; i++) {
        zf_spirv_module *m = zt_read_ok(zt_corpus[i]);
        zf_dprog *code = zt_decode(m, false, zt_corpus[i]);
        for (uint32_t k = 0; k < code->num_kernels; k++, total++) {
            char why[512];
            if (zt_compiles(m, code, k, why, sizeof why))
                compiled++;
            else
                printf("  %s: %s\n", zt_corpus[i], why);
        }
        zf_dprog_free(code);
        zf_spirv_free(m);
    }
    printf("compiled tier: %u of %u kernels of the corpus (%.1f %%)\n", compiled, total, 100.0 * compiled / total);
    if (keep != NULL)
        setenv("ZEFAKE_EXEC", keep, 1);
    else
        unsetenv("ZEFAKE_EXEC");
    free(keep);
    assert_true(compiled >= ZT_CORPUS_COMPILED);
}

static uint64_t zt_next(uint64_t *state) {
    uint64_t x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *state = x;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Image reads: the compiled tier's inline reads of plain formats, and its handler path for the rest */

enum { ZT_READERS = 48, ZT_TEXEL_BYTES = 4096 };

/* An image of 5 x 4 pixels, 3 deep or 3 layers where its type has them, over `texels`, its rows and slices padded;
 * with `cut` its memory ends a byte before its last texel does. */
static zf_ximage zt_image_of(uint8_t *texels, ze_image_type_t type, uint32_t layout, uint32_t channel,
                             const uint8_t swizzle[4], bool srgb, bool cut) {
    static const uint8_t pixel_bytes[14] = {1, 2, 4, 2, 4, 4, 8, 8, 16, 4, 4, 2, 2, 2};
    bool layered = type == ZE_IMAGE_TYPE_1DARRAY || type == ZE_IMAGE_TYPE_2DARRAY;
    zf_ximage img = {.base = texels,
                     .type = type,
                     .layout = layout,
                     .channel_type = channel,
                     .srgb = srgb,
                     .width = 5,
                     .height = type == ZE_IMAGE_TYPE_1D || type == ZE_IMAGE_TYPE_1DARRAY ? 1 : 4,
                     .depth = type == ZE_IMAGE_TYPE_3D ? 3 : 1,
                     .layers = layered ? 3 : 1};
    memcpy(img.swizzle, swizzle, 4);
    img.row_pitch = img.width * pixel_bytes[layout] + 3;
    img.slice_pitch = img.row_pitch * img.height + 5;
    uint64_t slices = img.depth * img.layers;
    img.size = (slices - 1) * img.slice_pitch + (img.height - 1) * img.row_pitch + img.width * pixel_bytes[layout];
    img.size -= cut ? 1 : 0;
    assert_true(img.size <= ZT_TEXEL_BYTES);
    return img;
}

/* Coordinates inside, at and beyond the edges, in pixels (even work-items) or normalized (odd ones), and floats
 * that round to no pixel. */
static void zt_coordinates(uint64_t *rng, int32_t *ic, float *fc) {
    for (uint32_t i = 0; i < ZT_READERS * 4; i++) {
        ic[i] = (int32_t)(zt_next(rng) % 11) - 3;
        float unit = (float)(zt_next(rng) % 1000) / 1000.0f;
        fc[i] = (i / 4) % 2 == 0 ? unit * 10.0f - 3.0f : unit * 2.0f - 0.5f;
    }
    const float odd[4] = {NAN, INFINITY, -INFINITY, 1e30f};
    for (uint32_t i = 0; i < 4; i++)
        fc[4 * (ZT_READERS - 1 - i)] = odd[i];
}

/* A sampler of the 20 combinations (5 addressing modes, 2 filters, normalized or not), as a handle (even k) or an
 * inline sampler's value (odd k). */
static uint64_t zt_sampler_of(uint32_t k) {
    zt_sampler_now = (zf_xsampler){.address_mode = k % 5, .filter_mode = (k / 5) % 2, .normalized = (k / 10) % 2};
    if (k % 2 == 0)
        return ZT_SAMPLER;
    return ZF_INLINE_SAMPLER | zt_sampler_now.address_mode | zt_sampler_now.filter_mode << 8 |
           (uint64_t)zt_sampler_now.normalized << 16;
}

typedef struct zt_image_case {
    ze_image_type_t type;
    uint32_t layout, channel, sampler, swizzle;
    bool srgb, cut;
} zt_image_case;

/* Runs the reads of one image in both tiers (zt_both_tiers: the same bits, work, faults). */
static void zt_image_reads(zt_launch *l, uint64_t *rng, const zt_image_case *c, uint8_t *texels, uint32_t *out,
                           bool *compiled) {
    static const char *const kernels[5] = {"reads_1d", "reads_1d_array", "reads_2d", "reads_2d_array", "reads_3d"};
    static const uint8_t swizzles[4][4] = {{0, 1, 2, 3}, {0, 4, 4, 5}, {2, 1, 0, 3}, {0, 6, 5, 4}}; /* R,0,0,1 ... */
    for (uint32_t b = 0; b < ZT_TEXEL_BYTES; b++)
        texels[b] = (uint8_t)zt_next(rng);
    zt_image_now = zt_image_of(texels, c->type, c->layout, c->channel, swizzles[c->swizzle], c->srgb, c->cut);
    uint64_t *sampler = (uint64_t *)(uintptr_t)l->values[1];
    *sampler = zt_sampler_of(c->sampler);
    l->kernel = kernels[c->type];
    char logged[64] = "";
    if (!compiled[c->type])
        snprintf(logged, sizeof logged, "kernel '%s': compiled in", l->kernel);
    compiled[c->type] = true;
    zt_both_tiers(l, out, (size_t)ZT_READERS * 6 * 16, logged);
}

/* Texel bits a write takes: floats at and beyond the edges of every range (ties of the 8 and 16-bit steps, NaNs,
 * infinities), and integers beyond every width. */
static uint32_t zt_texel_bits(uint64_t *rng, bool as_float) {
    static const float floats[] = {NAN,        INFINITY,     -INFINITY,  -2.0f,      -1.0f,      -0.5f,
                                   -0.0f,      0.0f,         1e-40f,     0.25f,      0.5f,       1.0f,
                                   1.5f,       1e30f,        0.5f / 255, 1.5f / 255, 0.5f / 127, 0.5f / 65535,
                                   2.5f / 255, 127.5f / 255, -0.5f / 127};
    static const int32_t ints[] = {0,     1,     -1,     127,    128,   -128,  -129,      255,      256,
                                   32767, 32768, -32768, -32769, 65535, 65536, INT32_MAX, INT32_MIN};
    uint64_t pick = zt_next(rng);
    uint32_t bits;
    if (as_float) {
        memcpy(&bits, &floats[pick % (sizeof floats / sizeof floats[0])], 4);
        return pick % 11 == 0 ? 0x7FA00001u : bits; /* a signalling NaN now and then */
    }
    if (pick % 5 == 0)
        return (uint32_t)(pick >> 8);
    return (uint32_t)ints[pick % (sizeof ints / sizeof ints[0])];
}

/* Each work-item's own texel of the image (in a shuffled order), or coordinates outside it once all are taken. */
static void zt_write_coordinates(uint64_t *rng, const zf_ximage *img, uint32_t slot, int32_t *ic) {
    uint32_t dims[3] = {img->width, img->type == ZE_IMAGE_TYPE_1DARRAY ? img->layers : img->height,
                        img->type == ZE_IMAGE_TYPE_3D ? img->depth : img->layers};
    uint32_t total = dims[0] * dims[1] * (img->type == ZE_IMAGE_TYPE_1DARRAY ? 1 : dims[2]);
    uint32_t order[64];
    for (uint32_t k = 0; k < total && k < 64; k++)
        order[k] = k;
    for (uint32_t k = total < 64 ? total : 64; k > 1; k--) {
        uint32_t j = (uint32_t)(zt_next(rng) % k), t = order[k - 1];
        order[k - 1] = order[j];
        order[j] = t;
    }
    for (uint32_t i = 0; i < ZT_READERS; i++) {
        int32_t xyz[4] = {-1 - (int32_t)i, 0, 0, 0};
        if (i < total && i < 64)
            xyz[0] = (int32_t)(order[i] % dims[0]), xyz[1] = (int32_t)(order[i] / dims[0] % dims[1]),
            xyz[2] = (int32_t)(order[i] / dims[0] / dims[1]);
        else if (i % 3 == 1)
            xyz[0] = (int32_t)dims[0] + (int32_t)i;
        memcpy(ic + (size_t)i * slot, xyz, (size_t)slot * 4);
    }
}

/* Runs the writes of one image in both tiers; the image's memory is the output compared. */
static void zt_image_writes(zt_launch *l, uint64_t *rng, const zt_image_case *c, uint8_t *texels, int32_t *ic,
                            uint32_t *texel, bool *compiled) {
    static const char *const kernels[5] = {"writes_1d", "writes_1d_array", "writes_2d", "writes_2d_array", "writes_3d"};
    static const uint8_t slots[5] = {1, 2, 2, 4, 4};
    static const uint8_t swizzles[2][4] = {{0, 1, 2, 3}, {0, 4, 4, 5}};
    for (uint32_t b = 0; b < ZT_TEXEL_BYTES; b++)
        texels[b] = (uint8_t)zt_next(rng);
    zt_image_now = zt_image_of(texels, c->type, c->layout, c->channel, swizzles[c->swizzle % 2], c->srgb, c->cut);
    zt_write_coordinates(rng, &zt_image_now, slots[c->type], ic);
    for (uint32_t i = 0; i < ZT_READERS * 4; i++)
        texel[i] = zt_texel_bits(rng, (i / 4) % 2 == 0);
    l->kernel = kernels[c->type];
    char logged[64] = "";
    if (!compiled[c->type])
        snprintf(logged, sizeof logged, "kernel '%s': compiled in", l->kernel);
    compiled[c->type] = true;
    zt_both_tiers(l, texels, ZT_TEXEL_BYTES, logged);
}

/* Writes of every layout and channel type, image type and swizzle, by floats and integers at every edge of their
 * encodings, each work-item at a texel of its own or outside the image. */
static void zt_image_writes_all(zt_mem *mem, zf_spirv_module *m, zf_dprog *code, uint8_t *texels, uint64_t *rng) {
    int32_t *ic = zt_buffer(mem, ZT_READERS * 16);
    uint32_t *texel = zt_buffer(mem, ZT_READERS * 16);
    uint64_t image = ZT_IMAGE;
    const void *values[] = {&image, &ic, &texel};
    const uint64_t sizes[] = {8, 8, 8};
    zt_launch l = {m, code, "writes_2d", values, sizes, ZT_READERS, 16, 0, mem, 0, 0};
    bool compiled[5] = {false};
    /* A handle that names no image faults alike in both tiers (one work-item: of several, the two tiers may report
     * different ones first, docs/spirv-execution.md "Checks"). */
    zt_image_case plain = {ZE_IMAGE_TYPE_2D, 4, ZE_IMAGE_FORMAT_TYPE_UNORM, 0, 0, false, false};
    zt_launch one = l;
    one.global = one.local = 1;
    image = 0x999;
    zt_image_writes(&one, rng, &plain, texels, ic, texel, compiled);
    image = ZT_IMAGE;
    for (uint32_t layout = 0; layout < 14; layout++)
        for (uint32_t channel = 0; channel < 5; channel++)
            for (uint32_t type = 0; type < 5; type += 2 + (layout + channel) % 2) {
                uint64_t pick = zt_next(rng);
                zt_image_case c = {
                    (ze_image_type_t)type, layout, channel, 0, (uint32_t)(pick % 2), (pick >> 8) % 7 == 0,
                    (pick >> 16) % 3 == 0};
                zt_image_writes(&l, rng, &c, texels, ic, texel, compiled);
            }
}

/* vloadn and vstoren compile to checked loads and stores of n elements (the half forms stay the interpreter's): the
 * results, the work record and the first fault are the interpreter's, with the float buffer long enough and with it
 * too short for the last work-items' vload4 (spirv_data.cl's `vectors`). */
static void compiled_vector_loads_and_stores_match_the_interpreter(void **state) {
    (void)state;
    const uint32_t g = 64;
    zf_spirv_module *m = zt_read_ok("spirv_data");
    zf_dprog *code = zt_decode(m, false, "spirv_data");
    for (uint32_t floats = 4 * g + 16; floats >= 200; floats -= 4 * g + 16 - 200) {
        zt_mem mem = {0};
        /* Reads past `f` meet its guard, never another buffer the heap put after it. */
        float *f = zt_guarded_buffer(&mem, floats * 4, 4096), *out = zt_buffer(&mem, 8 * g * 4);
        int32_t *n = zt_buffer(&mem, 4 * g * 4), *io = zt_buffer(&mem, 8 * g * 4);
        uint16_t *h = zt_buffer(&mem, 6 * g * 2);
        for (uint32_t i = 0; i < floats; i++)
            f[i] = (float)((int)(i * 29 % 41) - 20) / 6.0f;
        for (uint32_t i = 0; i < 4 * g; i++)
            n[i] = (int32_t)(i * 13 % 31) - 12;
        const void *values[] = {&f, &n, &h, &out, &io};
        const uint64_t sizes[] = {8, 8, 8, 8, 8};
        zt_launch l = {m, code, "vectors", values, sizes, g, 16, 0, &mem, 0, 0};
        zt_both_tiers(&l, out, 8 * g * 4, floats == 200 ? "" : "kernel 'vectors': compiled in"); /* once a form */
        assert_true(out[0] == f[3] * 2.0f); /* vstore4 of v.wzyx * 2 */
        /* In the short buffer the last work-item's vload4 faults, before its stores. */
        assert_true(out[4 * 63] == (floats == 200 ? 0.0f : f[4 * 63 + 3] * 2.0f));
        zt_mem_free(&mem);
        if (floats == 200)
            break;
    }
    zf_dprog_free(code);
    zf_spirv_free(m);
}

static void compiled_image_accesses_match_the_interpreter(void **state) {
    (void)state;
    zt_mem mem = {0};
    zf_spirv_module *m = zt_read_ok("spirv_image_plain");
    zf_dprog *code = zt_decode(m, false, "spirv_image_plain");
    uint8_t *texels = zt_buffer(&mem, ZT_TEXEL_BYTES);
    int32_t *ic = zt_buffer(&mem, ZT_READERS * 16);
    float *fc = zt_buffer(&mem, ZT_READERS * 16);
    uint32_t *out = zt_buffer(&mem, ZT_READERS * 6 * 16);
    uint64_t image = ZT_IMAGE, sampler = 0, rng = 0x1234567u;
    const void *values[] = {&image, &sampler, &ic, &fc, &out};
    const uint64_t sizes[] = {8, 8, 8, 8, 8};
    zt_launch l = {m, code, "reads_2d", values, sizes, ZT_READERS, 16, 0, &mem, 0, 0};
    bool compiled[5] = {false};
    zt_coordinates(&rng, ic, fc);
    /* Every layout and channel type (the packed ones and sRGB take the handler), image type, sampler and swizzle. */
    for (uint32_t layout = 0; layout < 14; layout++)
        for (uint32_t channel = 0; channel < 5; channel++) {
            uint64_t pick = zt_next(&rng);
            zt_image_case c = {(ze_image_type_t)(pick % 5),
                               layout,
                               channel,
                               (uint32_t)(pick >> 8) % 20,
                               (pick >> 16) % 8 < 4 ? 0 : (uint32_t)(pick >> 16) % 4,
                               (pick >> 24) % 7 == 0,
                               (pick >> 32) % 3 == 0};
            zt_image_reads(&l, &rng, &c, texels, out, compiled);
        }
    /* Every sampler on the two most common formats, in 2D and 3D. */
    for (uint32_t k = 0; k < 20; k++) {
        zt_image_case rgba_float = {ZE_IMAGE_TYPE_2D, 8, ZE_IMAGE_FORMAT_TYPE_FLOAT, k, 0, false, k % 4 == 0};
        zt_image_case r8_unorm = {ZE_IMAGE_TYPE_3D, 0, ZE_IMAGE_FORMAT_TYPE_UNORM, k, 1, false, k % 3 == 0};
        zt_image_reads(&l, &rng, &rgba_float, texels, out, compiled);
        zt_image_reads(&l, &rng, &r8_unorm, texels, out, compiled);
    }
    /* Handles that name no image or sampler fault alike in both tiers. */
    zt_image_case plain = {ZE_IMAGE_TYPE_2D, 4, ZE_IMAGE_FORMAT_TYPE_UNORM, 2, 0, false, false};
    image = 0x999;
    zt_image_reads(&l, &rng, &plain, texels, out, compiled);
    image = ZT_IMAGE;
    zt_sampler_of(0);
    sampler = 0x777;
    l.kernel = "reads_2d";
    zt_both_tiers(&l, out, (size_t)ZT_READERS * 6 * 16, "");
    zt_image_writes_all(&mem, m, code, texels, &rng);
    zt_mem_free(&mem);
    zf_dprog_free(code);
    zf_spirv_free(m);
}

/* The reader tests' mutations: random words, bit flips, id-like values, word counts and opcodes. */
static void zt_mutate(uint32_t *words, size_t count, uint32_t bound, uint64_t *rng) {
    unsigned edits = 1 + (unsigned)(zt_next(rng) % 3);
    for (unsigned e = 0; e < edits; e++) {
        size_t at = 5 + (size_t)(zt_next(rng) % (count - 5));
        switch (zt_next(rng) % 4) {
        case 0:
            words[at] ^= 1u << (zt_next(rng) % 32);
            break;
        case 1:
            words[at] = (uint32_t)(zt_next(rng) % (bound + 3));
            break;
        case 2:
            words[at] = (words[at] & 0xFFFF0000u) | (uint32_t)(zt_next(rng) % 400);
            break;
        default:
            words[at] = (uint32_t)(zt_next(rng) % 64);
            break;
        }
    }
}

/* Whatever the decoder makes of a mutated module, the validator accepts (native binaries rely on it). */
static void zt_decode_mutated(const uint32_t *words, size_t size, const char *name, unsigned mutation,
                              unsigned *decoded) {
    zf_spirv_log log = {0};
    zf_spirv_module *m = NULL;
    if (zf_spirv_read(words, size, &m, &log) == ZF_SPIRV_OK && zf_spirv_finish(m, &log) == ZF_SPIRV_OK) {
        zf_decode_options options = {.itt_enabled = true};
        zf_dprog *prog = NULL;
        if (zf_spirv_decode(m, &options, &prog, &log) == ZF_SPIRV_OK) {
            char why[256];
            if (!zf_form_validate(prog, why, sizeof why))
                fail_msg("%s, mutation %u: the validator refuses the decoder's form: %s", name, mutation, why);
            ++*decoded;
            zf_dprog_free(prog);
        } else if (zf_spirv_log_text(&log)[0] == '\0') {
            fail_msg("%s, mutation %u: a decode failure without a log", name, mutation);
        }
    }
    zf_spirv_free(m);
    zf_spirv_log_free(&log);
}

static void mutated_modules_never_crash_the_decoder(void **state) {
    (void)state;
    const char *names[] = {"spirv_control", "spirv_data", "spirv_local",       "spirv_atomics", "spirv_math",
                           "spirv_image",   "spirv_fptr", "spirv_irreducible", "spirv_printf",  "spirv_itt",
                           "spirv_convert", "spirv_gemm", "spirv_subgroups"};
    uint64_t rng = 0x243F6A8885A308D3ull;
    unsigned decoded = 0;
    for (size_t f = 0; f < sizeof names / sizeof names[0]; f++) {
        zt_blob blob = zt_load(names[f]);
        uint32_t *words = malloc(blob.size);
        assert_non_null(words);
        for (unsigned i = 0; i < 5000; i++) {
            memcpy(words, blob.data, blob.size);
            zt_mutate(words, blob.size / 4, ((const uint32_t *)blob.data)[3], &rng);
            zt_decode_mutated(words, blob.size, names[f], i, &decoded);
        }
        free(words);
        free(blob.data);
    }
    assert_true(decoded > 0); /* some mutations keep the module valid, and then decode */
}

/* Runs a loaded form in a child process: it must end normally or by the time limit (a mutation may make a loop
 * endless), never by another signal. */
static void zt_run_kernel_isolated(const zf_spirv_module *m, const zf_dprog *code, size_t at, const char *kernel,
                                   uint32_t buffers) {
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        /* cmocka catches these signals to report a failing test: the child must die of them instead. */
        static const int crashes[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGSYS};
        for (size_t i = 0; i < sizeof crashes / sizeof crashes[0]; i++)
            signal(crashes[i], SIG_DFL);
        struct itimerval limit = {.it_value = {0, 100000}};
        setitimer(ITIMER_REAL, &limit, NULL);
        zt_mem mem = {0};
        void *pointers[4];
        const void *values[4];
        const uint64_t sizes[] = {8, 8, 8, 8};
        for (uint32_t i = 0; i < buffers && i < 4; i++) {
            pointers[i] = zt_buffer(&mem, 64 * 16);
            values[i] = &pointers[i];
        }
        zt_launch l = {m, code, kernel, values, sizes, 64, 32, 1, &mem, 0, 0};
        zf_xresult result;
        zt_run(&l, &result);
        _exit(0);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (WIFSIGNALED(status) && WTERMSIG(status) != SIGALRM)
        fail_msg("a form mutated at %zu killed the engine with signal %d", at, WTERMSIG(status));
    if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
        fail_msg("a form mutated at %zu: the run exited with %d", at, WEXITSTATUS(status));
}

static void zt_run_isolated(const zf_spirv_module *m, const zf_dprog *code, size_t at) {
    zt_run_kernel_isolated(m, code, at, "irreducible", 1);
}

/* Every operand of every instruction set to "none" in turn, as an edited native binary may: the validator refuses
 * the form unless the operation does without that operand, and what it accepts runs without crashing. */
static void zt_none_operands(const char *file, const char *kernel, uint32_t buffers, unsigned *refused, unsigned *ran) {
    zf_spirv_module *m = zt_read_ok(file);
    zf_dprog *code = zt_decode(m, false, file);
    for (uint32_t i = 0; i < code->num_insts; i++) {
        zf_ref *fields[4] = {&code->insts[i].dst, &code->insts[i].a, &code->insts[i].b, &code->insts[i].c};
        for (uint32_t k = 0; k < 4; k++) {
            zf_ref saved = *fields[k];
            if (saved == ZF_REF_NONE || (code->insts[i].op == ZF_X_VAR && k >= 2))
                continue;
            *fields[k] = ZF_REF_NONE;
            char why[256] = "";
            if (!zf_form_validate(code, why, sizeof why))
                ++*refused;
            else if (++*ran <= 300)
                zt_run_kernel_isolated(m, code, i * 4 + k, kernel, buffers);
            *fields[k] = saved;
        }
    }
    zf_dprog_free(code);
    zf_spirv_free(m);
}

static void operands_edited_to_none_are_refused_or_run_safely(void **state) {
    (void)state;
    unsigned refused = 0, ran = 0;
    zt_none_operands("spirv_math", "math_float", 4, &refused, &ran);
    zt_none_operands("spirv_math", "geometry", 4, &refused, &ran);
    zt_none_operands("spirv_atomics", "contention", 4, &refused, &ran);
    assert_true(refused > 100);
}

static void mutated_forms_are_refused_or_run_safely(void **state) {
    (void)state;
    zf_spirv_module *m = zt_read_ok("spirv_irreducible");
    zf_dprog *code = zt_decode(m, false, "spirv_irreducible");
    size_t size;
    uint8_t *bytes = zt_serialize(code, &size);
    uint64_t rng = 0x13198A2E03707344ull;
    unsigned refused = 0, ran = 0;
    for (unsigned i = 0; i < 20000; i++) {
        size_t at = (size_t)(zt_next(&rng) % size);
        uint8_t saved = bytes[at];
        bytes[at] ^= (uint8_t)(1u << (zt_next(&rng) % 8));
        char why[256] = "";
        zf_dprog *loaded = zf_form_load(bytes, size, why, sizeof why);
        if (loaded == NULL) {
            assert_true(why[0] != '\0');
            refused++;
        } else if (zf_spirv_form_matches(m, loaded, why, sizeof why) && ran < 400) {
            zt_run_isolated(m, loaded, at);
            ran++;
        }
        zf_dprog_free(loaded);
        bytes[at] = saved;
    }
    assert_true(refused > 0 && ran > 0);
    free(bytes);
    zf_dprog_free(code);
    zf_spirv_free(m);
}

/* ------------------------------------------------------------------------------------------------------------------
 * The compiled tier's on-disk cache (docs/spirv-execution.md, "Compiled tier"): each run in a child process, a
 * process of its own as another program using the same module would be */

/* In a child process: runs the launch in the interpreter, then compiled, and exits 0 when the memory is the same, the
 * debug log of the compiled run has `logged` and not `unlogged`, and the last warning has `warned` (or there is none
 * when NULL). */
static void zt_cache_check(const zt_launch *l, uint8_t *out, size_t bytes, const char *logged, const char *unlogged,
                           const char *warned) {
    uint8_t *want = malloc(bytes);
    zf_xresult result;
    setenv("ZEFAKE_EXEC", "interp", 1);
    zt_run(l, &result);
    if (want == NULL)
        _exit(1);
    memcpy(want, out, bytes);
    memset(out, 0, bytes);
    setenv("ZEFAKE_EXEC", "compiled", 1);
    zt_debug_text[0] = zt_warn_text[0] = '\0';
    zt_run(l, &result);
    bool ok = memcmp(want, out, bytes) == 0 && strstr(zt_debug_text, logged) != NULL &&
              (unlogged == NULL || strstr(zt_debug_text, unlogged) == NULL) &&
              (warned != NULL ? strstr(zt_warn_text, warned) != NULL : zt_warn_text[0] == '\0');
    if (!ok)
        fprintf(stderr, "cache child: debug '%s', warning '%s'\n", zt_debug_text, zt_warn_text);
    _exit(ok ? 0 : 1);
}

/* In a child process: GEMM (zt_cache_check). */
static void zt_cache_child(const char *logged, const char *unlogged, const char *warned) {
    zt_mem mem = {0};
    zf_spirv_module *m = zt_read_ok("gemm");
    zf_dprog *code = zt_decode(m, false, "gemm");
    const uint32_t rows = 3, cols = 40, k = 7;
    float *a = zt_buffer(&mem, rows * k * 4), *b = zt_buffer(&mem, k * cols * 4), *c = zt_buffer(&mem, rows * cols * 4);
    for (uint32_t i = 0; i < rows * k; i++)
        a[i] = (float)(i % 5) - 2.0f;
    for (uint32_t i = 0; i < k * cols; i++)
        b[i] = (float)(i % 3) + 0.5f;
    const void *values[] = {&a, &b, &c, &rows, &cols, &k};
    const uint64_t sizes[] = {8, 8, 8, 4, 4, 4};
    zt_launch l = {m, code, "gemm", values, sizes, 128, 16, 0, &mem, 0, 0};
    zt_cache_check(&l, (uint8_t *)c, rows * cols * 4, logged, unlogged, warned);
}

/* In a child process: the tiled GEMM, a kernel with barriers (zt_cache_check). */
static void zt_cache_child_barriers(const char *logged, const char *unlogged, const char *warned) {
    zt_mem mem = {0};
    zf_spirv_module *m = zt_read_ok("spirv_gemm");
    zf_dprog *code = zt_decode(m, false, "spirv_gemm");
    const uint32_t dim = 24;
    float *a = zt_buffer(&mem, dim * dim * 4), *b = zt_buffer(&mem, dim * dim * 4), *c = zt_buffer(&mem, 32 * 32 * 4);
    for (uint32_t i = 0; i < dim * dim; i++) {
        a[i] = (float)(i % 7) - 3.0f;
        b[i] = (float)(i % 5) * 0.5f;
    }
    const void *values[] = {&a, &b, &c, &dim, &dim, &dim};
    const uint64_t sizes[] = {8, 8, 8, 4, 4, 4};
    zt_launch l = {m, code, "gemm_tiled", values, sizes, 32, 16, 0, &mem, 32, 16};
    zt_cache_check(&l, (uint8_t *)c, 32 * 32 * 4, logged, unlogged, warned);
}

typedef void (*zt_cache_child_fn)(const char *logged, const char *unlogged, const char *warned);

static void zt_cache_run_in(zt_cache_child_fn child, const char *logged, const char *unlogged, const char *warned) {
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        child(logged, unlogged, warned);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

static void zt_cache_run(const char *logged, const char *unlogged, const char *warned) {
    zt_cache_run_in(zt_cache_child, logged, unlogged, warned);
}

/* The one entry of the cache directory (its path), or how many there are. */
static unsigned zt_cache_entries(const char *dir, char *path, size_t path_size) {
    DIR *d = opendir(dir);
    assert_non_null(d);
    unsigned count = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.')
            continue;
        count++;
        snprintf(path, path_size, "%s/%s", dir, e->d_name);
    }
    closedir(d);
    return count;
}

static void zt_cache_clear(const char *dir) {
    char path[600];
    while (zt_cache_entries(dir, path, sizeof path) > 0)
        assert_int_equal(unlink(path), 0);
}

/* A copy of the entry with its second half dropped, or one byte of its body flipped. */
static void zt_cache_damage(const char *path, bool truncate_it) {
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    long size = ftell(f);
    assert_true(size > 200);
    if (truncate_it) {
        assert_int_equal(ftruncate(fileno(f), size / 2), 0);
    } else {
        assert_int_equal(fseek(f, size - 100, SEEK_SET), 0);
        int byte = fgetc(f);
        assert_int_equal(fseek(f, size - 100, SEEK_SET), 0);
        fputc(byte ^ 0x5a, f);
    }
    fclose(f);
}

/* The entry with its object's section table moved out of the file, the checksum made right again: what the loader of
 * object code must refuse by itself (cx_disk.h's layout: the header, a block table entry per block, the object). */
static void zt_cache_damage_object(const char *path) {
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    static uint8_t data[1 << 20];
    size_t size = fread(data, 1, sizeof data, f), head = sizeof(zf_cx_disk_header);
    assert_true(size > head && size < sizeof data);
    uint32_t blocks;
    uint64_t object_size, shoff = 0xffffffff00ull;
    memcpy(&blocks, data + offsetof(zf_cx_disk_header, num_blocks), 4);
    memcpy(&object_size, data + offsetof(zf_cx_disk_header, object_size), 8);
    size_t table = (size_t)blocks * sizeof(zf_cx_block);
    uint8_t *object = data + head + table;
    assert_int_equal(head + table + object_size, size);
    memcpy(object + 0x28, &shoff, 8); /* e_shoff of the ELF header */
    uint64_t sum = zf_fnv1a(data + head, table, ZF_FNV1A_BASIS);
    sum = zf_fnv1a(object, object_size, sum);
    memcpy(data + offsetof(zf_cx_disk_header, checksum), &sum, 8);
    rewind(f);
    assert_int_equal(fwrite(data, 1, size, f), size);
    fclose(f);
}

static void compiled_code_is_cached_on_disk_for_other_processes(void **state) {
    (void)state;
    char dir[] = "/tmp/zefake-cache-test-XXXXXX", entry[600];
    assert_non_null(mkdtemp(dir));
    setenv("ZEFAKE_CACHE_DIR", dir, 1);
    unsetenv("ZEFAKE_CACHE");
    /* The first process compiles and writes one entry; the second finds it. */
    zt_cache_run("kernel 'gemm': compiled in", "from the cache", NULL);
    assert_int_equal(zt_cache_entries(dir, entry, sizeof entry), 1);
    zt_cache_run("kernel 'gemm': compiled in", NULL, NULL);
    zt_cache_run("blocks, from the cache)", NULL, NULL);
    /* A truncated entry and a damaged one are ignored with a warning, compiled again and replaced. */
    zt_cache_damage(entry, true);
    zt_cache_run("kernel 'gemm': compiled in", "from the cache", "ignoring a damaged entry of the compiled-code cache");
    zt_cache_run("from the cache", NULL, NULL);
    zt_cache_damage(entry, false);
    zt_cache_run("kernel 'gemm': compiled in", "from the cache", "checksum mismatch");
    zt_cache_run("from the cache", NULL, NULL);
    zt_cache_damage_object(entry);
    zt_cache_run("kernel 'gemm': compiled in", "from the cache", "object code: bad section table");
    zt_cache_run("from the cache", NULL, NULL);
    /* An entry that others may write is not run. */
    assert_int_equal(chmod(entry, 0666), 0);
    zt_cache_run("kernel 'gemm': compiled in", "from the cache", "not this user's alone");
    zt_cache_run("from the cache", NULL, NULL);
    assert_int_equal(zt_cache_entries(dir, entry, sizeof entry), 1);
    /* A kernel with barriers: its region count travels in the entry; an entry of the format before it is refused. */
    zt_cache_clear(dir);
    zt_cache_run_in(zt_cache_child_barriers, "barriers: 3 regions, records of", "from the cache", NULL);
    assert_int_equal(zt_cache_entries(dir, entry, sizeof entry), 1);
    zt_cache_run_in(zt_cache_child_barriers, "from the cache, barriers: 3 regions, records of", NULL, NULL);
    zt_cache_set_version(entry, '7');
    zt_cache_run_in(zt_cache_child_barriers, "barriers: 3 regions, records of", "from the cache",
                    "format version 7, not 8");
    zt_cache_run_in(zt_cache_child_barriers, "from the cache, barriers: 3 regions, records of", NULL, NULL);
    /* An entry announcing more image accesses than a kernel may have (its count follows the region count: magic, key,
     * block count, record size, region count) is refused rather than sized into the run-time state. */
    const uint32_t sites = UINT32_MAX;
    zt_cache_poke(entry, 8 + 16 + 3 * 4, &sites, sizeof sites);
    zt_cache_run_in(zt_cache_child_barriers, "barriers: 3 regions, records of", "from the cache",
                    "an entry announcing 4294967295 image reads (at most 65536)");
    zt_cache_run_in(zt_cache_child_barriers, "from the cache, barriers: 3 regions, records of", NULL, NULL);
    /* And one announcing more work-items in step than the copy runs. */
    const uint32_t lanes = 9;
    zt_cache_poke(entry, offsetof(zf_cx_disk_header, step_lanes), &lanes, sizeof lanes);
    zt_cache_run_in(zt_cache_child_barriers, "barriers: 3 regions, records of", "from the cache",
                    "an entry announcing 9 work-items in step (at most 8)");
    zt_cache_run_in(zt_cache_child_barriers, "from the cache, barriers: 3 regions, records of", NULL, NULL);
    /* A read renews an entry's time, so that the size limit removes the entries used least recently. */
    struct timespec old[2] = {{1000000000, 0}, {1000000000, 0}};
    assert_int_equal(utimensat(AT_FDCWD, entry, old, 0), 0);
    zt_cache_run_in(zt_cache_child_barriers, "from the cache, barriers: 3 regions, records of", NULL, NULL);
    struct stat st;
    assert_int_equal(stat(entry, &st), 0);
    assert_true(st.st_mtime > 1000000000);
    /* Under a limit of one byte, each entry written removes every other. */
    zf_spirv_set_cache_limit(1);
    zt_cache_run("compiled-code cache: removed the 1 entry used least recently", NULL, NULL);
    char written[600];
    assert_int_equal(zt_cache_entries(dir, written, sizeof written), 1);
    assert_string_not_equal(written, entry);
    zt_cache_run_in(zt_cache_child_barriers, "compiled-code cache: removed the 1 entry used least recently", NULL,
                    NULL);
    assert_int_equal(zt_cache_entries(dir, written, sizeof written), 1);
    assert_string_equal(written, entry);
    zf_spirv_set_cache_limit(0);
    /* ZEFAKE_CACHE=0: nothing read, nothing written. */
    zt_cache_clear(dir);
    setenv("ZEFAKE_CACHE", "0", 1);
    zt_cache_run("kernel 'gemm': compiled in", "from the cache", NULL);
    assert_int_equal(zt_cache_entries(dir, entry, sizeof entry), 0);
    assert_int_equal(rmdir(dir), 0);
}

/* A file of `bytes` bytes named `name` in dir, last modified `age_s` seconds ago. */
static void zt_cache_file(const char *dir, const char *name, size_t bytes, long age_s) {
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    for (size_t i = 0; i < bytes; i++)
        fputc((int)(i & 0xff), f);
    fclose(f);
    struct timespec times[2] = {{time(NULL) - age_s, 0}, {time(NULL) - age_s, 0}};
    assert_int_equal(utimensat(AT_FDCWD, path, times, 0), 0);
}

static bool zt_cache_has(const char *dir, const char *name) {
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return access(path, F_OK) == 0;
}

/* The cache's size limit (docs/spirv-execution.md, "On-disk cache"): entries beyond it go, least recently used first,
 * down to three quarters of it; the entry just written, other files and a live writer's temporary file stay. */
static void the_cache_keeps_under_its_size_limit_least_recently_used_first(void **state) {
    (void)state;
    char dir[] = "/tmp/zefake-cache-limit-XXXXXX";
    assert_non_null(mkdtemp(dir));
    static const char *const entries[6] = {
        "00000000000000000000000000000001.zfcx", "00000000000000000000000000000002.zfcx",
        "00000000000000000000000000000003.zfcx", "00000000000000000000000000000004.zfcx",
        "00000000000000000000000000000005.zfcx", "00000000000000000000000000000006.zfcx"};
    for (int i = 0; i < 6; i++) /* entry 1 the least recently used, entry 6 the most */
        zt_cache_file(dir, entries[i], 10000, 600 - 100 * i);
    const char *dead = "00000000000000000000000000000007.zfcx.4242.0.tmp";
    const char *live = "00000000000000000000000000000008.zfcx.4243.0.tmp";
    zt_cache_file(dir, dead, 500, 7200);
    zt_cache_file(dir, live, 500, 10);
    zt_cache_file(dir, "notes.txt", 50000, 9000);
    uint64_t freed = 0;
    zf_cx_key keep = {0, 1};                                        /* the oldest is the one just written: it stays */
    assert_int_equal(zf_cx_disk_trim(dir, 60000, keep, &freed), 0); /* 60 000 bytes of entries: within */
    assert_int_equal(freed, 0);
    assert_false(zt_cache_has(dir, dead));
    assert_true(zt_cache_has(dir, live));
    assert_int_equal(zf_cx_disk_trim(dir, 40000, keep, &freed), 3); /* down to 30 000: 2, 3 and 4 go */
    assert_int_equal(freed, 30000);
    static const bool stays[6] = {true, false, false, false, true, true};
    for (int i = 0; i < 6; i++)
        assert_int_equal(zt_cache_has(dir, entries[i]), stays[i]);
    assert_true(zt_cache_has(dir, live));
    assert_true(zt_cache_has(dir, "notes.txt"));
    /* No directory: nothing to do. */
    assert_int_equal(zf_cx_disk_trim("/nonexistent/zefake-cache", 1, keep, &freed), 0);
    char path[600];
    const char *left[] = {entries[0], entries[4], entries[5], live, "notes.txt"};
    for (size_t i = 0; i < sizeof left / sizeof left[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, left[i]);
        assert_int_equal(unlink(path), 0);
    }
    assert_int_equal(rmdir(dir), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(decodes_every_test_kernel),
        cmocka_unit_test(thread_choice_follows_the_measured_times),
        cmocka_unit_test(compiled_launches_match_whatever_their_threads),
        cmocka_unit_test(operands_edited_to_none_are_refused_or_run_safely),
        cmocka_unit_test(unsupported_instruction_is_named_with_its_location),
        cmocka_unit_test(itt_wrappers_cost_nothing_when_off),
        cmocka_unit_test(forms_round_trip_and_match_their_module),
        cmocka_unit_test(runs_kernels_on_one_thread_and_many),
        cmocka_unit_test(launches_spread_over_the_cores_of_the_affinity_mask),
        cmocka_unit_test(counts_loops_per_iteration_and_local_memory_and_barriers),
        cmocka_unit_test(faults_name_the_kernel_work_item_and_address),
        cmocka_unit_test(faulted_work_items_leave_their_lanes_to_later_waves),
        cmocka_unit_test(irreducible_loop_with_lanes_entering_at_both_heads),
        cmocka_unit_test(block_accesses_fault_like_loads_and_stores),
        cmocka_unit_test(compiled_tier_matches_the_interpreter),
        cmocka_unit_test(compiled_tier_runs_barriers_region_by_region),
        cmocka_unit_test(compiled_barriers_make_values_again_instead_of_keeping_them),
        cmocka_unit_test(compiled_image_accesses_match_the_interpreter),
        cmocka_unit_test(compiled_vector_loads_and_stores_match_the_interpreter),
        cmocka_unit_test(compiled_checks_per_group_match_the_interpreter),
        cmocka_unit_test(compiled_checks_per_wave_match_the_interpreter),
        cmocka_unit_test(compiled_work_items_in_step_match_the_interpreter),
        cmocka_unit_test(compiled_variants_per_group_size_match_the_interpreter),
        cmocka_unit_test(compiled_tier_takes_the_corpus),
        cmocka_unit_test(compiled_code_is_cached_on_disk_for_other_processes),
        cmocka_unit_test(the_cache_keeps_under_its_size_limit_least_recently_used_first),
        cmocka_unit_test(mutated_modules_never_crash_the_decoder),
        cmocka_unit_test(mutated_forms_are_refused_or_run_safely),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
