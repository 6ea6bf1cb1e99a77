/* SPIR-V as other producers write it (docs/spirv-execution.md, "Supported SPIR-V" and "Producer matrix"): forms that
 * older translators emit, written by hand in kernels/spirv_{builtins_uniform,debug_sets,global_sampler,
 * forward_calls}.spvasm, each built, launched and checked against the host; then the corpus of kernels/spirv_*.cl
 * compiled at -O0, with debug information of both llvm-spirv formats and under other OpenCL C versions
 * (kernels/kernels.cmake): every such module builds, and representative kernels compute the same bytes as the default
 * -O2 build from the same inputs. */
#include "zc_spirv.h"

#include <stdio.h>
#include <stdlib.h>

#ifndef ZC_PRODUCER_FILES
#error "ZC_PRODUCER_FILES must list the modules of the producer matrix"
#endif

/* Runs kernel `name` of `module` over `global` work-items in groups of `local` and waits for it. */
static void zc_run_in(zc_sx *s, ze_module_handle_t module, const char *name, uint32_t global, uint32_t local,
                      const zc_arg *args, uint32_t n) {
    ze_kernel_handle_t kernel = zc_kernel_create(module, name);
    for (uint32_t i = 0; i < n; i++)
        zc_assert_success(zeKernelSetArgumentValue(kernel, i, args[i].size, args[i].value));
    zc_assert_success(zeKernelSetGroupSize(kernel, local, 1, 1));
    ze_group_count_t groups = {global / local, 1, 1};
    zc_assert_success(zeCommandListAppendLaunchKernel(s->list, kernel, &groups, NULL, 0, NULL));
    zc_assert_success(zeKernelDestroy(kernel));
}

/* A module from SPIR-V bytes that must build; the build log is the failure message otherwise. */
static ze_module_handle_t zc_built(zc_sx *s, const char *name, zc_spirv spirv) {
    ze_module_handle_t module = NULL;
    ze_module_build_log_handle_t log = NULL;
    ze_result_t result = zc_module_from(s->x.context, s->x.device, ZE_MODULE_FORMAT_IL_SPIRV, spirv.data, spirv.size,
                                        NULL, NULL, &module, &log);
    char *text = zc_build_log_text(log);
    if (result != ZE_RESULT_SUCCESS)
        zc_fail("%s does not build (%s):\n%s", name, zc_result_name(result), text);
    free(text);
    zc_assert_success(zeModuleBuildLogDestroy(log));
    return module;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Forms of older producers */

/* Built-ins declared UniformConstant and imported by name, some decorated through a decoration group. */
static void builtins_declared_uniform_constant_are_filled(void **state) {
    zc_sx *s = *state;
    const uint32_t n = 128, group = 32;
    uint32_t *out = zc_spirv_buffer(s, n * 4);
    zc_arg args[] = {ZC_PTR(out)};
    zc_spirv_run(s, "spirv_builtins_uniform", "builtins_uniform_constant", n, group, args, 1);
    for (uint32_t i = 0; i < n; i++)
        if (out[i] != i * 1000000u + i / group * 1000u + i % group)
            zc_fail("work-item %u: %u, expected %u", i, out[i], i * 1000000u + i / group * 1000u + i % group);
}

/* out[i] = in[i] * 2 + 1 by kernel debug_sets of `module`. */
static void zc_debug_sets_checked(zc_sx *s, ze_module_handle_t module) {
    const uint32_t n = 96;
    uint32_t *in = zc_spirv_buffer(s, n * 4), *out = zc_spirv_buffer(s, n * 4);
    for (uint32_t i = 0; i < n; i++)
        in[i] = i * 37u + 5u;
    zc_arg args[] = {ZC_PTR(out), ZC_PTR(in)};
    zc_run_in(s, module, "debug_sets", n, 32, args, 2);
    for (uint32_t i = 0; i < n; i++)
        if (out[i] != in[i] * 2u + 1u)
            zc_fail("work-item %u: %u, expected %u", i, out[i], in[i] * 2u + 1u);
    zc_free(&s->x, in);
    zc_free(&s->x, out);
}

/* Instructions of DebugInfo, OpenCL.DebugInfo.100 and a NonSemantic set, then with the DebugInfo import renamed
 * SPIRV.debug (what spirv-as cannot write: SPIR-V Tools does not know the set), run as nothing. */
static void debug_sets_decode_to_nothing(void **state) {
    zc_sx *s = *state;
    zc_debug_sets_checked(s, zc_spirv_module(s, "spirv_debug_sets"));
    zc_spirv spirv = zc_load_spirv("spirv_debug_sets");
    static const char from[12] = "DebugInfo", to[12] = "SPIRV.debug";
    size_t at = 0;
    while (at + sizeof from <= spirv.size && memcmp(spirv.data + at, from, sizeof from) != 0)
        at += 4;
    assert_true(at + sizeof from <= spirv.size);
    memcpy(spirv.data + at, to, sizeof to);
    ze_module_handle_t module = zc_built(s, "spirv_debug_sets with SPIRV.debug", spirv);
    zc_debug_sets_checked(s, module);
    zc_assert_success(zeModuleDestroy(module));
    free(spirv.data);
}

/* `constant sampler_t` at program scope: UniformConstant samplers initialized by OpConstantSampler. */
static void program_scope_samplers_sample(void **state) {
    zc_sx *s = *state;
    const uint32_t width = 8, n = 12;
    ze_image_desc_t desc = {ZE_STRUCTURE_TYPE_IMAGE_DESC,
                            NULL,
                            ZE_IMAGE_FLAG_KERNEL_WRITE,
                            ZE_IMAGE_TYPE_2D,
                            {ZE_IMAGE_FORMAT_LAYOUT_32, ZE_IMAGE_FORMAT_TYPE_FLOAT, ZE_IMAGE_FORMAT_SWIZZLE_R,
                             ZE_IMAGE_FORMAT_SWIZZLE_0, ZE_IMAGE_FORMAT_SWIZZLE_0, ZE_IMAGE_FORMAT_SWIZZLE_1},
                            width,
                            1,
                            1,
                            0,
                            0};
    ze_image_handle_t image = NULL;
    zc_assert_success(zeImageCreate(s->x.context, s->x.device, &desc, &image));
    float texels[8];
    for (uint32_t x = 0; x < width; x++)
        texels[x] = 10.0f + (float)x;
    zc_assert_success(zeCommandListAppendImageCopyFromMemory(s->list, image, texels, NULL, NULL, 0, NULL));
    float *edge = zc_spirv_buffer(s, n * 16), *border = zc_spirv_buffer(s, n * 16);
    zc_arg args[] = {{sizeof image, &image}, ZC_PTR(edge), ZC_PTR(border)};
    zc_spirv_run(s, "spirv_global_sampler", "program_scope_samplers", n, 4, args, 3);
    for (uint32_t i = 0; i < n; i++) {
        int x = (int)i - 2, clamped = x < 0 ? 0 : x >= (int)width ? (int)width - 1 : x;
        float want_edge = texels[clamped], want_border = x == clamped ? texels[x] : 0.0f;
        if (edge[4 * i] != want_edge || edge[4 * i + 3] != 1.0f)
            zc_fail("ClampToEdge, x = %d: (%g, ..., %g), expected (%g, ..., 1)", x, edge[4 * i], edge[4 * i + 3],
                    want_edge);
        if (border[4 * i] != want_border || border[4 * i + 3] != 1.0f)
            zc_fail("Clamp, x = %d: (%g, ..., %g), expected (%g, ..., 1)", x, border[4 * i], border[4 * i + 3],
                    want_border);
    }
    zc_assert_success(zeImageDestroy(image));
}

/* Calls with arguments of functions defined after their callers. */
static void calls_of_functions_defined_later(void **state) {
    zc_sx *s = *state;
    const uint32_t n = 64;
    uint32_t *in = zc_spirv_buffer(s, n * 4), *out = zc_spirv_buffer(s, n * 4);
    for (uint32_t i = 0; i < n; i++)
        in[i] = i + 3u;
    zc_arg args[] = {ZC_PTR(out), ZC_PTR(in)};
    zc_spirv_run(s, "spirv_forward_calls", "forward_calls", n, 16, args, 2);
    for (uint32_t i = 0; i < n; i++)
        if (out[i] != in[i] * in[i] * 3u + i * 7u)
            zc_fail("work-item %u: %u, expected %u", i, out[i], in[i] * in[i] * 3u + i * 7u);
}

/* The validator sees the module without its debug instructions and with its blocks reordered; what it refuses is still
 * named by its word offset in the module as given (spirv-dis --offsets: 0x154 bytes). */
static void refusals_name_the_instruction_as_given(void **state) {
    zc_skip_unless_fake(); /* the log's text is zefake's */
    zc_build_refused(*state, "invalid_after_debug",
                     "SPIR-V word 85 (OpIAdd): the SPIR-V validator refuses the module: Expected arithmetic operands");
}

/* ------------------------------------------------------------------------------------------------------------------
 * The producer matrix */

static const char *const zc_variants[] = {"O0", "g-legacy", "g-ocl100", "CL1.2", "CL2.0", "CL3.0"};

/* Whether `<file>` is one of ZC_PRODUCER_FILES (comma-separated). */
static bool zc_in_matrix(const char *file) {
    const char *list = ZC_PRODUCER_FILES;
    size_t length = strlen(file);
    for (const char *at = list; *at != '\0';) {
        size_t item = strcspn(at, ",");
        if (item == length && strncmp(at, file, length) == 0)
            return true;
        at += item + (at[item] == ',');
    }
    return false;
}

/* Every module of the matrix builds. */
static void every_producer_variant_builds(void **state) {
    zc_sx *s = *state;
    const char *list = ZC_PRODUCER_FILES;
    uint32_t built = 0;
    for (const char *at = list; *at != '\0';) {
        char file[128];
        size_t item = strcspn(at, ",");
        assert_true(item < sizeof file);
        memcpy(file, at, item);
        file[item] = '\0';
        zc_spirv spirv = zc_load_spirv(file);
        zc_assert_success(zeModuleDestroy(zc_built(s, file, spirv)));
        free(spirv.data);
        built++;
        at += item + (at[item] == ',');
    }
    printf("%u modules of the producer matrix built\n", built);
    assert_true(built >= 60);
}

/* A kernel argument of a representative launch: a buffer of `bytes` (inputs: small integers in every 32-bit word, the
 * same for every build; outputs: zero), a 32-bit value, or `bytes` by value. */
typedef enum { ZC_IN, ZC_OUT, ZC_VALUE, ZC_BYVAL } zc_arg_kind;

typedef struct zc_matrix_arg {
    zc_arg_kind kind;
    uint32_t bytes; /* buffers and by-value arguments */
    uint32_t value; /* ZC_VALUE */
} zc_matrix_arg;

typedef struct zc_matrix_kernel {
    const char *file, *name;
    uint32_t global, local, num_args;
    zc_matrix_arg args[6];
} zc_matrix_kernel;

/* Control flow and private arrays, integer functions, by-value structs and struct arrays in private memory, pointer
 * walks with atomics (OpenCL C 1.2), private arrays indexed in a loop. */
static const zc_matrix_kernel zc_representatives[] = {
    {"spirv_control", "control", 512, 32, 2, {{ZC_IN, 512 * 4, 0}, {ZC_OUT, 512 * 4, 0}}},
    {"spirv_math",
     "math_int",
     256,
     32,
     4,
     {{ZC_IN, 256 * 4, 0}, {ZC_IN, 256 * 4, 0}, {ZC_IN, 256 * 4, 0}, {ZC_OUT, 256 * 80, 0}}},
    {"spirv_data",
     "structs",
     64,
     16,
     4,
     {{ZC_BYVAL, 32, 0}, {ZC_IN, 64 * 32, 0}, {ZC_OUT, 64 * 32, 0}, {ZC_VALUE, 0, 64}}},
    {"spirv_pointers",
     "walk",
     192,
     64,
     5,
     {{ZC_IN, (192 + 15) * 4, 0}, {ZC_OUT, 192 * 8, 0}, {ZC_IN, 192 * 12, 0}, {ZC_OUT, 8, 0}, {ZC_VALUE, 0, 5}}},
    {"spirv_faults", "private_overflow_loop", 64, 32, 3, {{ZC_OUT, 64 * 16, 0}, {ZC_VALUE, 0, 3}, {ZC_VALUE, 0, 100}}},
};

/* Runs `k` from module file `file` on fresh inputs; returns the output buffers, concatenated (free() it). */
static uint8_t *zc_matrix_run(zc_sx *s, const zc_matrix_kernel *k, const char *file, size_t *size) {
    void *buffers[6] = {NULL};
    uint8_t byval[6][64];
    zc_arg args[6];
    uint64_t seed = 77;
    *size = 0;
    for (uint32_t i = 0; i < k->num_args; i++) {
        const zc_matrix_arg *a = &k->args[i];
        if (a->kind == ZC_VALUE) {
            args[i] = (zc_arg){4, &a->value};
            continue;
        }
        int32_t *words = a->kind == ZC_BYVAL ? (int32_t *)byval[i] : zc_spirv_buffer(s, a->bytes);
        for (uint32_t w = 0; a->kind != ZC_OUT && w < a->bytes / 4; w++)
            words[w] = (int32_t)(zc_rand(&seed) % 2001) - 1000;
        if (a->kind == ZC_BYVAL) {
            args[i] = (zc_arg){a->bytes, byval[i]};
            continue;
        }
        buffers[i] = words;
        args[i] = ZC_PTR(buffers[i]);
        *size += a->kind == ZC_OUT ? a->bytes : 0;
    }
    zc_spirv spirv = zc_load_spirv(file);
    ze_module_handle_t module = zc_built(s, file, spirv);
    free(spirv.data);
    zc_run_in(s, module, k->name, k->global, k->local, args, k->num_args);
    zc_assert_success(zeModuleDestroy(module));
    uint8_t *out = malloc(*size ? *size : 1), *at = out;
    assert_non_null(out);
    for (uint32_t i = 0; i < k->num_args; i++) {
        if (k->args[i].kind == ZC_OUT) {
            memcpy(at, buffers[i], k->args[i].bytes);
            at += k->args[i].bytes;
        }
        if (buffers[i] != NULL)
            zc_free(&s->x, buffers[i]);
    }
    return out;
}

/* Each variant's representative kernels compute the bytes the -O2 build computes. */
static void producer_variants_compute_as_the_default_build(void **state) {
    zc_sx *s = *state;
    for (size_t v = 0; v < ZC_COUNT(zc_variants); v++) {
        uint32_t compared = 0;
        for (size_t r = 0; r < ZC_COUNT(zc_representatives); r++) {
            const zc_matrix_kernel *k = &zc_representatives[r];
            char file[128];
            snprintf(file, sizeof file, "%s.%s", k->file, zc_variants[v]);
            if (!zc_in_matrix(file))
                continue;
            size_t want_size, got_size;
            uint8_t *want = zc_matrix_run(s, k, k->file, &want_size), *got = zc_matrix_run(s, k, file, &got_size);
            assert_int_equal(want_size, got_size);
            for (size_t i = 0; i < want_size; i++)
                if (want[i] != got[i])
                    zc_fail("%s, kernel %s: output byte %zu is 0x%02x, the -O2 build's 0x%02x", file, k->name, i,
                            got[i], want[i]);
            free(want);
            free(got);
            compared++;
        }
        printf("variant %s: %u kernels compared\n", zc_variants[v], compared);
        assert_true(compared > 0);
    }
}

int main(int argc, char **argv) {
    static const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(builtins_declared_uniform_constant_are_filled, zc_setup_spirv,
                                        zc_teardown_spirv),
        cmocka_unit_test_setup_teardown(debug_sets_decode_to_nothing, zc_setup_spirv, zc_teardown_spirv),
        cmocka_unit_test_setup_teardown(program_scope_samplers_sample, zc_setup_spirv, zc_teardown_spirv),
        cmocka_unit_test_setup_teardown(calls_of_functions_defined_later, zc_setup_spirv, zc_teardown_spirv),
        cmocka_unit_test_setup_teardown(refusals_name_the_instruction_as_given, zc_setup_spirv, zc_teardown_spirv),
        cmocka_unit_test_setup_teardown(every_producer_variant_builds, zc_setup_spirv, zc_teardown_spirv),
        cmocka_unit_test_setup_teardown(producer_variants_compute_as_the_default_build, zc_setup_spirv,
                                        zc_teardown_spirv),
    };
    static const zc_suite suite = {ZC_EXECUTABLE, tests, ZC_COUNT(tests), zc_setup_system, zc_teardown_system, NULL, 0};
    return zc_main(argc, argv, &suite);
}
