/* The SPIR-V reader on its own: what it reports for the test kernels, and that malformed input (every truncation,
 * thousands of random mutations of real modules) is refused with a log and never crashes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "spirv.h"
#include "zt_spirv_files.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ZT_MUTATIONS 4000u

static const zf_spirv_global *zt_global(const zf_spirv_module *m, const char *name) {
    for (uint32_t i = 0; i < zf_spirv_global_count(m); i++) {
        const zf_spirv_global *g = zf_spirv_global_at(m, i);
        if (g->name != NULL && strcmp(g->name, name) == 0)
            return g;
    }
    fail_msg("no global named %s", name);
    return NULL;
}

static void reads_every_test_kernel(void **state) {
    (void)state;
    const char *names[] = {"copy",    "fill",   "vadd",         "saxpy",           "gemm",        "spec_constant",
                           "globals", "export", "local_memory", "reqd_group_size", "spec_global", "import"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        zf_spirv_free(zt_read_ok(names[i]));
}

static void kernel_arguments_kinds_sizes_and_types(void **state) {
    (void)state;
    zf_spirv_module *m = zt_read_ok("local_memory");
    const zf_spirv_kernel *k = zf_spirv_find_kernel(m, "reduce_local");
    assert_non_null(k);
    assert_int_equal(k->num_args, 6);
    const zf_spirv_arg_kind kinds[] = {ZF_SPIRV_ARG_POINTER, ZF_SPIRV_ARG_POINTER, ZF_SPIRV_ARG_LOCAL,
                                       ZF_SPIRV_ARG_VALUE,   ZF_SPIRV_ARG_VALUE,   ZF_SPIRV_ARG_VALUE};
    const uint64_t sizes[] = {8, 8, 0, 16, 1, 4};
    const char *types[] = {"global f32*", "global f32*", "local f32*", "struct params_t", "i8", "i16x2"};
    for (uint32_t i = 0; i < 6; i++) {
        assert_int_equal(k->args[i].kind, kinds[i]);
        assert_int_equal(k->args[i].size, sizes[i]);
        assert_string_equal(k->args[i].type, types[i]);
    }
    assert_int_equal(k->static_local_bytes, 64 * sizeof(float));
    assert_false(k->has_local_size);
    assert_true(k->instructions > 0);
    assert_null(zf_spirv_find_kernel(m, "no_such_kernel"));
    zf_spirv_free(m);
}

static void builtin_signatures(void **state) {
    (void)state;
    zf_spirv_module *m = zt_read_ok("gemm");
    const zf_spirv_kernel *k = zf_spirv_find_kernel(m, "gemm");
    assert_non_null(k);
    const char *types[] = {"global f32*", "global f32*", "global f32*", "i32", "i32", "i32"};
    assert_int_equal(k->num_args, 6);
    for (uint32_t i = 0; i < 6; i++)
        assert_string_equal(k->args[i].type, types[i]);
    zf_spirv_free(m);
    m = zt_read_ok("copy");
    assert_int_equal(zf_spirv_kernel_count(m), 2);
    assert_string_equal(zf_spirv_find_kernel(m, "copy_bytes")->args[1].type, "global i8*");
    zf_spirv_free(m);
}

static void execution_modes_and_attributes(void **state) {
    (void)state;
    zf_spirv_module *m = zt_read_ok("reqd_group_size");
    const zf_spirv_kernel *k = zf_spirv_find_kernel(m, "fixed_group");
    assert_non_null(k);
    assert_true(k->has_local_size);
    assert_int_equal(k->local_size[0], 8);
    assert_int_equal(k->local_size[1], 4);
    assert_int_equal(k->local_size[2], 1);
    assert_string_equal(k->attributes, "reqd_work_group_size(8,4,1) vec_type_hint(float4)");
    zf_spirv_free(m);
    m = zt_read_ok("vadd");
    assert_string_equal(zf_spirv_find_kernel(m, "vadd_int")->attributes, "");
    zf_spirv_free(m);
}

static void globals_sizes_and_initial_values(void **state) {
    (void)state;
    zf_spirv_module *m = zt_read_ok("globals");
    const zf_spirv_global *counter = zt_global(m, "counter");
    const zf_spirv_global *table = zt_global(m, "table");
    const zf_spirv_global *lut = zt_global(m, "lut");
    assert_int_equal(counter->size, 4);
    assert_int_equal(table->size, 64);
    assert_int_equal(lut->size, 16);
    assert_int_equal(lut->storage, SpvStorageClassUniformConstant);
    int32_t c = 0, l[4] = {0};
    float t[16] = {0};
    zf_spirv_log log = {0};
    assert_int_equal(zf_spirv_global_init(m, counter, &c, NULL, NULL, &log), ZF_SPIRV_OK);
    assert_int_equal(zf_spirv_global_init(m, table, t, NULL, NULL, &log), ZF_SPIRV_OK);
    assert_int_equal(zf_spirv_global_init(m, lut, l, NULL, NULL, &log), ZF_SPIRV_OK);
    assert_int_equal(c, 5);
    assert_true(t[0] == 1.0f && t[1] == 2.0f && t[2] == 3.0f && t[3] == 0.0f && t[15] == 0.0f);
    assert_true(l[0] == 10 && l[1] == 20 && l[2] == 30 && l[3] == 40);
    zf_spirv_log_free(&log);
    zf_spirv_free(m);
}

static const zf_spirv_symbol *zt_symbol(const zf_spirv_module *m, const char *name) {
    for (uint32_t i = 0; i < zf_spirv_symbol_count(m); i++) {
        if (strcmp(zf_spirv_symbol_at(m, i)->name, name) == 0)
            return zf_spirv_symbol_at(m, i);
    }
    return NULL;
}

static void linkage_symbols(void **state) {
    (void)state;
    zf_spirv_module *m = zt_read_ok("export");
    const zf_spirv_symbol *add_one = zt_symbol(m, "add_one");
    assert_non_null(add_one);
    assert_true(add_one->is_function);
    assert_int_equal(add_one->linkage, ZF_SPIRV_LINK_EXPORT);
    assert_int_equal(add_one->num_params, 1);
    const zf_spirv_symbol *total = zt_symbol(m, "shared_total");
    assert_non_null(total);
    assert_false(total->is_function);
    assert_int_equal(total->size, 4);
    zf_spirv_free(m);
    m = zt_read_ok("import");
    assert_int_equal(zt_symbol(m, "add_one")->linkage, ZF_SPIRV_LINK_IMPORT);
    assert_int_equal(zt_symbol(m, "shared_total")->linkage, ZF_SPIRV_LINK_IMPORT);
    /* Built-in variables are imported by llvm-spirv but provided by the device, so they are not symbols. */
    assert_null(zt_symbol(m, "__spirv_BuiltInGlobalInvocationId"));
    zf_spirv_free(m);
}

static void zt_assert_type_name(const zf_spirv_module *m, const char *symbol, const char *expected) {
    char name[64];
    zf_spirv_symbol_type_name(m, zt_symbol(m, symbol), name, sizeof name);
    assert_string_equal(name, expected);
}

/* LinkageAttributes LinkOnceODR (SPV_KHR_linkonce_odr): a kind of its own, compared by type across modules. */
static void linkonce_odr_symbols_and_types(void **state) {
    (void)state;
    zf_spirv_module *a = zt_read_ok("linkonce_a"), *b = zt_read_ok("linkonce_b");
    zf_spirv_module *strong = zt_read_ok("linkonce_strong"), *other = zt_read_ok("linkonce_mismatch");
    const char *names[] = {"linkonce_helper", "linkonce_value"};
    for (size_t i = 0; i < 2; i++) {
        const zf_spirv_symbol *sa = zt_symbol(a, names[i]);
        assert_non_null(sa);
        assert_int_equal(sa->linkage, ZF_SPIRV_LINK_ONCE_ODR);
        assert_int_equal(zt_symbol(strong, names[i])->linkage, ZF_SPIRV_LINK_EXPORT);
        assert_true(zf_spirv_symbol_same_type(a, sa, b, zt_symbol(b, names[i])));
        assert_true(zf_spirv_symbol_same_type(strong, zt_symbol(strong, names[i]), a, sa));
        /* Same shape (one parameter, 4 bytes), another type. */
        assert_false(zf_spirv_symbol_same_type(a, sa, other, zt_symbol(other, names[i])));
    }
    assert_false(zf_spirv_symbol_same_type(a, zt_symbol(a, names[0]), a, zt_symbol(a, names[1])));
    /* A struct holding a pointer to itself: equal where it recurs in step, different by a member. */
    assert_true(zf_spirv_symbol_same_type(a, zt_symbol(a, "linkonce_list"), b, zt_symbol(b, "linkonce_list")));
    assert_false(zf_spirv_symbol_same_type(a, zt_symbol(a, "linkonce_list"), other, zt_symbol(other, "linkonce_list")));
    zt_assert_type_name(a, "linkonce_list", "global struct node");
    zt_assert_type_name(a, "linkonce_helper", "i32(i32)");
    zt_assert_type_name(other, "linkonce_helper", "i64(i64)");
    zt_assert_type_name(a, "linkonce_value", "global i32");
    zt_assert_type_name(other, "linkonce_value", "global f32");
    /* A LinkOnceODR global has storage and its initializer, as an exported one. */
    for (uint32_t i = 0; i < zf_spirv_global_count(a); i++)
        if (zf_spirv_global_at(a, i)->initializer != 0)
            assert_int_equal(zf_spirv_global_at(a, i)->linkage, ZF_SPIRV_LINK_ONCE_ODR);
    zf_spirv_free(a);
    zf_spirv_free(b);
    zf_spirv_free(strong);
    zf_spirv_free(other);
}

static void spec_constants_defaults_and_values(void **state) {
    (void)state;
    zt_blob blob = zt_load("spec_constant");
    zf_spirv_log log = {0};
    zf_spirv_module *m = NULL;
    assert_int_equal(zf_spirv_read(blob.data, blob.size, &m, &log), ZF_SPIRV_OK);
    assert_int_equal(zf_spirv_spec_constant_count(m), 3);
    const zf_spirv_spec_constant *s7 = zf_spirv_find_spec_constant(m, 7);
    const zf_spirv_spec_constant *s8 = zf_spirv_find_spec_constant(m, 8);
    const zf_spirv_spec_constant *itt = zf_spirv_find_spec_constant(m, 0xFF747469u);
    assert_non_null(s7);
    assert_non_null(s8);
    assert_non_null(itt);
    assert_true(s7->bits == 32 && s7->value == 42 && !s7->set);
    assert_true(s8->bits == 16 && s8->value == 3);
    assert_true(itt->bits == 8 && itt->value == 0);
    int32_t v = -1234;
    assert_int_equal(zf_spirv_set_spec_constant(m, 7, &v, &log), ZF_SPIRV_OK);
    assert_true(s7->set && s7->value == 0xFFFFFB2Eu);
    assert_int_equal(zf_spirv_set_spec_constant(m, 99, &v, &log), ZF_SPIRV_UNKNOWN_SPEC_ID);
    assert_non_null(strstr(zf_spirv_log_text(&log), "SpecId 99"));
    assert_int_equal(zf_spirv_finish(m, &log), ZF_SPIRV_OK);
    zf_spirv_free(m);
    zf_spirv_log_free(&log);
    free(blob.data);
}

/* The specialized words are the module a native binary carries: reading them again gives the applied values. */
static void specialization_rewrites_the_module(void **state) {
    (void)state;
    zt_blob blob = zt_load("spec_global");
    zf_spirv_log log = {0};
    zf_spirv_module *m = NULL;
    assert_int_equal(zf_spirv_read(blob.data, blob.size, &m, &log), ZF_SPIRV_OK);
    uint32_t v32 = 77;
    uint64_t v64 = 0x123456789ull;
    uint8_t v8 = 1;
    assert_int_equal(zf_spirv_set_spec_constant(m, 7, &v32, &log), ZF_SPIRV_OK);
    assert_int_equal(zf_spirv_set_spec_constant(m, 10, &v64, &log), ZF_SPIRV_OK);
    assert_int_equal(zf_spirv_set_spec_constant(m, 0xFF747469u, &v8, &log), ZF_SPIRV_OK);
    assert_int_equal(zf_spirv_finish(m, &log), ZF_SPIRV_OK);
    uint32_t i32 = 0;
    uint64_t i64 = 0;
    uint8_t i8 = 0;
    assert_int_equal(zf_spirv_global_init(m, zt_global(m, "spec_int"), &i32, NULL, NULL, &log), ZF_SPIRV_OK);
    assert_int_equal(zf_spirv_global_init(m, zt_global(m, "spec_long"), &i64, NULL, NULL, &log), ZF_SPIRV_OK);
    assert_int_equal(zf_spirv_global_init(m, zt_global(m, "itt_enabled"), &i8, NULL, NULL, &log), ZF_SPIRV_OK);
    assert_true(i32 == 77 && i64 == 0x123456789ull && i8 == 1);

    size_t count = 0;
    const uint32_t *words = zf_spirv_words(m, &count);
    zf_spirv_module *again = NULL;
    assert_int_equal(zf_spirv_read(words, count * 4, &again, &log), ZF_SPIRV_OK);
    assert_int_equal(zf_spirv_find_spec_constant(again, 10)->value, 0x123456789ull);
    assert_int_equal(zf_spirv_find_spec_constant(again, 0xFF747469u)->value, 1);
    zf_spirv_free(again);
    zf_spirv_free(m);
    zf_spirv_log_free(&log);
    free(blob.data);
}

/* Reads `data` expecting a failure whose log contains `needle`. */
static void zt_expect_failure(const void *data, size_t size, zf_spirv_status expected, const char *needle) {
    zf_spirv_log log = {0};
    zf_spirv_module *m = NULL;
    zf_spirv_status s = zf_spirv_read(data, size, &m, &log);
    if (s == ZF_SPIRV_OK)
        s = zf_spirv_finish(m, &log);
    if (s != expected || strstr(zf_spirv_log_text(&log), needle) == NULL)
        fail_msg("expected status %d with '%s' in the log, got %d: %s", (int)expected, needle, (int)s,
                 zf_spirv_log_text(&log));
    zf_spirv_free(m);
    zf_spirv_log_free(&log);
}

static void malformed_headers(void **state) {
    (void)state;
    zt_blob blob = zt_load("vadd");
    uint32_t *words = (uint32_t *)malloc(blob.size);
    assert_non_null(words);
    memcpy(words, blob.data, blob.size);
    zt_expect_failure(words, 0, ZF_SPIRV_MALFORMED, "not a SPIR-V module");
    zt_expect_failure(words, 16, ZF_SPIRV_MALFORMED, "not a SPIR-V module");
    zt_expect_failure(words, blob.size - 2, ZF_SPIRV_MALFORMED, "whole words");
    words[0] = 0x12345678u;
    zt_expect_failure(words, blob.size, ZF_SPIRV_MALFORMED, "magic number");
    memcpy(words, blob.data, blob.size);
    words[1] = 0x00020000u;
    zt_expect_failure(words, blob.size, ZF_SPIRV_MALFORMED, "version");
    memcpy(words, blob.data, blob.size);
    words[3] = 0;
    zt_expect_failure(words, blob.size, ZF_SPIRV_MALFORMED, "id bound 0");
    words[3] = 0xFFFFFFFFu;
    zt_expect_failure(words, blob.size, ZF_SPIRV_MALFORMED, "id bound");
    memcpy(words, blob.data, blob.size);
    words[4] = 1;
    zt_expect_failure(words, blob.size, ZF_SPIRV_MALFORMED, "schema");
    memcpy(words, blob.data, blob.size);
    words[3] = 3; /* far too small for the ids the module uses */
    zt_expect_failure(words, blob.size, ZF_SPIRV_MALFORMED, "outside the bound");
    free(words);
    free(blob.data);
}

/* OpExtension: any name is accepted (SPV_KHR_linkonce_odr here), but it must be a string ending in the instruction. */
static void extension_names_are_checked_strings(void **state) {
    (void)state;
    zt_blob blob = zt_load("linkonce_a");
    uint32_t *words = malloc(blob.size);
    assert_non_null(words);
    memcpy(words, blob.data, blob.size);
    size_t at = 5;
    while (at < blob.size / 4 && (words[at] & 0xFFFFu) != SpvOpExtension)
        at += words[at] >> 16;
    assert_true(at < blob.size / 4);
    assert_string_equal((const char *)&words[at + 1], "SPV_KHR_linkonce_odr");
    for (uint32_t i = 1; i < words[at] >> 16; i++)
        words[at + i] |= 0x20202020u; /* no NUL byte left in the name */
    zt_expect_failure(words, blob.size, ZF_SPIRV_MALFORMED, "the extension name string");
    free(words);
    free(blob.data);
}

static void byte_swapped_module_reads(void **state) {
    (void)state;
    zt_blob blob = zt_load("vadd");
    uint32_t *words = malloc(blob.size);
    assert_non_null(words);
    memcpy(words, blob.data, blob.size);
    for (size_t i = 0; i < blob.size / 4; i++)
        words[i] = __builtin_bswap32(words[i]);
    zf_spirv_log log = {0};
    zf_spirv_module *m = NULL;
    assert_int_equal(zf_spirv_read(words, blob.size, &m, &log), ZF_SPIRV_OK);
    assert_int_equal(zf_spirv_finish(m, &log), ZF_SPIRV_OK);
    assert_non_null(zf_spirv_find_kernel(m, "vadd_float"));
    zf_spirv_free(m);
    zf_spirv_log_free(&log);
    free(words);
    free(blob.data);
}

static void bad_word_counts_name_the_offset(void **state) {
    (void)state;
    zt_blob blob = zt_load("vadd");
    uint32_t *words = malloc(blob.size);
    assert_non_null(words);
    memcpy(words, blob.data, blob.size);
    words[5] &= 0xFFFFu; /* the first instruction (an OpCapability) gets word count 0 */
    zt_expect_failure(words, blob.size, ZF_SPIRV_MALFORMED, "SPIR-V word 5 (OpCapability): word count 0");
    memcpy(words, blob.data, blob.size);
    words[5] = (words[5] & 0xFFFFu) | 0xFFFF0000u;
    zt_expect_failure(words, blob.size, ZF_SPIRV_MALFORMED, "runs past the end");
    memcpy(words, blob.data, blob.size);
    words[5] = (words[5] & 0xFFFFu) | (1u << 16); /* OpCapability without its operand */
    zt_expect_failure(words, blob.size, ZF_SPIRV_MALFORMED, "less than the 2 this instruction needs");
    free(words);
    free(blob.data);
}

/* Every prefix of a real module: cut inside an instruction it must fail; whatever happens it must not crash. */
static void every_truncation(void **state) {
    (void)state;
    const char *names[] = {"local_memory", "globals", "spec_global"};
    for (size_t f = 0; f < sizeof names / sizeof names[0]; f++) {
        zt_blob blob = zt_load(names[f]);
        const uint32_t *w = (const uint32_t *)blob.data;
        uint8_t *boundary = calloc(blob.size / 4 + 1, 1);
        assert_non_null(boundary);
        for (size_t o = 5; o < blob.size / 4; o += w[o] >> 16)
            boundary[o] = 1;
        boundary[blob.size / 4] = 1;
        for (size_t size = 0; size < blob.size; size++) {
            zf_spirv_log log = {0};
            zf_spirv_module *m = NULL;
            zf_spirv_status s = zf_spirv_read(blob.data, size, &m, &log);
            if (s == ZF_SPIRV_OK)
                s = zf_spirv_finish(m, &log);
            if (size % 4 != 0 || (size >= 20 && !boundary[size / 4]))
                assert_int_not_equal(s, ZF_SPIRV_OK);
            if (s != ZF_SPIRV_OK && zf_spirv_log_text(&log)[0] == '\0')
                fail_msg("%s truncated to %zu bytes: failed without a log", names[f], size);
            zf_spirv_free(m);
            zf_spirv_log_free(&log);
        }
        free(boundary);
        free(blob.data);
    }
}

/* xorshift64: deterministic, so a failure reproduces. */
static uint64_t zt_next(uint64_t *state) {
    uint64_t x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *state = x;
}

static void zt_mutate(uint32_t *words, size_t count, uint32_t bound, uint64_t *rng) {
    unsigned edits = 1 + (unsigned)(zt_next(rng) % 4);
    for (unsigned e = 0; e < edits; e++) {
        size_t at = (size_t)(zt_next(rng) % count);
        switch (zt_next(rng) % 5) {
        case 0: /* a random word */
            words[at] = (uint32_t)zt_next(rng);
            break;
        case 1: /* a bit flip */
            words[at] ^= 1u << (zt_next(rng) % 32);
            break;
        case 2: /* an id-like value, often just out of range */
            words[at] = (uint32_t)(zt_next(rng) % (bound + 3));
            break;
        case 3: /* a small word count, keeping the opcode */
            words[at] = (words[at] & 0xFFFFu) | (uint32_t)(zt_next(rng) % 12) << 16;
            break;
        default: /* another opcode with the same word count */
            words[at] = (words[at] & 0xFFFF0000u) | (uint32_t)(zt_next(rng) % 80);
            break;
        }
    }
}

/* A mutated module that reads: specialize and lay it out, then touch what the driver would. */
static void zt_exercise(zf_spirv_module *m, zf_spirv_log *log) {
    for (uint32_t i = 0; i < zf_spirv_spec_constant_count(m); i++) {
        uint64_t value = 0x0102030405060708ull;
        zf_spirv_set_spec_constant(m, zf_spirv_spec_constant_at(m, i)->spec_id, &value, log);
    }
    if (zf_spirv_finish(m, log) != ZF_SPIRV_OK)
        return;
    for (uint32_t i = 0; i < zf_spirv_global_count(m); i++) {
        const zf_spirv_global *g = zf_spirv_global_at(m, i);
        if (g->size == 0 || g->size > (1u << 20))
            continue;
        void *storage = calloc(1, (size_t)g->size);
        if (storage != NULL)
            zf_spirv_global_init(m, g, storage, NULL, NULL, log);
        free(storage);
    }
    for (uint32_t i = 0; i < zf_spirv_kernel_count(m); i++) {
        const zf_spirv_kernel *k = zf_spirv_kernel_at(m, i);
        for (uint32_t a = 0; a < k->num_args; a++)
            assert_true(strlen(k->args[a].type) < ZF_SPIRV_TYPE_NAME_MAX);
    }
    for (uint32_t i = 0; i < zf_spirv_symbol_count(m); i++) {
        const zf_spirv_symbol *s = zf_spirv_symbol_at(m, i);
        char name[32];
        zf_spirv_symbol_type_name(m, s, name, sizeof name);
        assert_true(strlen(name) < sizeof name);
        (void)zf_spirv_symbol_same_type(m, s, m, s); /* false where a mutation left a type undefined */
    }
}

static void random_mutations(void **state) {
    (void)state;
    const char *names[] = {"local_memory",    "globals", "spec_global",      "export",
                           "reqd_group_size", "gemm",    "linkonce_mismatch"};
    uint64_t rng = 0x9E3779B97F4A7C15ull;
    unsigned refused = 0;
    for (size_t f = 0; f < sizeof names / sizeof names[0]; f++) {
        zt_blob blob = zt_load(names[f]);
        size_t count = blob.size / 4;
        uint32_t bound = ((const uint32_t *)blob.data)[3];
        uint32_t *words = malloc(blob.size);
        assert_non_null(words);
        for (unsigned i = 0; i < ZT_MUTATIONS; i++) {
            memcpy(words, blob.data, blob.size);
            zt_mutate(words, count, bound, &rng);
            zf_spirv_log log = {0};
            zf_spirv_module *m = NULL;
            zf_spirv_status s = zf_spirv_read(words, blob.size, &m, &log);
            if (s == ZF_SPIRV_OK)
                zt_exercise(m, &log);
            else if (zf_spirv_log_text(&log)[0] == '\0')
                fail_msg("%s mutation %u: refused without a log", names[f], i);
            refused += s != ZF_SPIRV_OK;
            zf_spirv_free(m);
            zf_spirv_log_free(&log);
        }
        free(words);
        free(blob.data);
    }
    /* Most random edits of a module break it: a reader that accepted them all would not be checking anything. */
    assert_true(refused > ZT_MUTATIONS);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reads_every_test_kernel),
        cmocka_unit_test(kernel_arguments_kinds_sizes_and_types),
        cmocka_unit_test(builtin_signatures),
        cmocka_unit_test(execution_modes_and_attributes),
        cmocka_unit_test(globals_sizes_and_initial_values),
        cmocka_unit_test(linkage_symbols),
        cmocka_unit_test(linkonce_odr_symbols_and_types),
        cmocka_unit_test(extension_names_are_checked_strings),
        cmocka_unit_test(spec_constants_defaults_and_values),
        cmocka_unit_test(specialization_rewrites_the_module),
        cmocka_unit_test(malformed_headers),
        cmocka_unit_test(byte_swapped_module_reads),
        cmocka_unit_test(bad_word_counts_name_the_offset),
        cmocka_unit_test(every_truncation),
        cmocka_unit_test(random_mutations),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
