/* Conformance: what tools and larger programs see of kernel execution. printf output, ITT device annotations (on only
 * when specialization constant 0xFF747469 is non-zero), function pointers across work-items and modules, kernels of
 * dynamically linked modules, native binaries that reload with their decoded form, the program-instrumentation
 * queries, the build failure of an instruction the engine does not run, a tiled GEMM against the host, and compiled
 * code that a second process finds in the on-disk cache when a kernel's group size is set.
 * Kernels: conformance/kernels/spirv_{printf,itt,fptr,fptr_barrier,gemm,unsupported,hoist}, export, import, gemm. */
#include "zc_spirv.h"

#include <dirent.h>
#include <elf.h>
#include <inttypes.h>
#include <level_zero/zet_api.h>
#include <stdatomic.h>
#include <unistd.h>

#define ZC_ITT_SPEC_ID 0xFF747469u

/* ------------------------------------------------------------------------------------------------------------------
 * printf (in a child: the output goes to its stdout) */

static const int32_t zc_printf_values[] = {7, 300, -1, 65535};

/* One group of `items` work-items of spirv_printf's `kernel_name` with its two arguments, on a synchronous immediate
 * list; the launch's result. */
static ze_result_t zc_printf_launch(zc_exec *x, const char *kernel_name, size_t size0, const void *arg0, size_t size1,
                                    const void *arg1, uint32_t items) {
    ze_module_handle_t module = zc_module_create(x->context, x->device, "spirv_printf");
    ze_kernel_handle_t kernel = zc_kernel_create(module, kernel_name);
    zc_assert_success(zeKernelSetArgumentValue(kernel, 0, size0, arg0));
    zc_assert_success(zeKernelSetArgumentValue(kernel, 1, size1, arg1));
    zc_assert_success(zeKernelSetGroupSize(kernel, items, 1, 1));
    ze_command_list_handle_t list = zc_immediate(x, x->compute_ordinal, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
    ze_group_count_t groups = {1, 1, 1};
    ze_result_t launched = zeCommandListAppendLaunchKernel(list, kernel, &groups, NULL, 0, NULL);
    zc_assert_success(zeCommandListDestroy(list));
    zc_assert_success(zeKernelDestroy(kernel));
    zc_assert_success(zeModuleDestroy(module));
    return launched;
}

static int zc_child_printf(int argc, char **argv) {
    (void)argc;
    (void)argv;
    zc_exec *x = zc_child_exec_begin();
    if (x == NULL)
        return 2;
    const uint32_t items = ZC_COUNT(zc_printf_values);
    int32_t *values = zc_host_alloc(x, sizeof zc_printf_values);
    memcpy(values, zc_printf_values, sizeof zc_printf_values);
    float scale = 1.5f;
    zc_assert_success(zc_printf_launch(x, "printer", sizeof values, &values, sizeof scale, &scale, items));
    zc_free(x, values);
    return zc_child_exec_end(x);
}

static void spirv_printf_writes_to_stdout(void **state) {
    (void)state;
    zc_child child;
    assert_true(zc_run_child_mode("printf", NULL, NULL, ZC_CHILD_TIMEOUT_MS, &child));
    zc_assert_child_ok(&child, "printf child");
    /* Work-items of a group print in any order: each expected line must appear once. */
    char want[256];
    for (int i = 0; i < (int)ZC_COUNT(zc_printf_values); i++) {
        snprintf(want, sizeof want, "item %d: %5.2f %#x [%-4s] %c %hhd,%hhd,%hhd,%hhd|%03u\n", i, 1.5 * i,
                 (unsigned)zc_printf_values[i], "ok", 'A' + i, (signed char)i, -1, 2, 3, (unsigned)i * 7);
        const char *at = strstr(child.out, want);
        if (at == NULL || strstr(at + 1, want) != NULL)
            zc_fail("work-item %d did not print \"%s\" once; stdout:\n%s", i, want, child.out);
    }
    snprintf(want, sizeof want, "%%done %ld %e %g %.3f,%.3f %.2f\n", -5L, 1234.5, 0.125, 1.0, -2.5, 1.5);
    if (strstr(child.out, want) == NULL)
        zc_fail("work-item 0 did not print \"%s\"; stdout:\n%s", want, child.out);
    zc_child_free(&child);
}

#define ZC_STRING_ITEMS  4u
#define ZC_STRING_STRIDE 16u

/* Child: print_string over strings "s0", "s1", "s2" and, for the last work-item, 16 bytes without an end that fill the
 * rest of the allocation; prints whether the launch completed and whether the device reports a fault. */
static int zc_child_printf_string(int argc, char **argv) {
    (void)argc;
    (void)argv;
    zc_exec *x = zc_child_exec_begin();
    if (x == NULL)
        return 2;
    char *text = zc_host_alloc(x, ZC_STRING_ITEMS * ZC_STRING_STRIDE);
    memset(text, 'x', ZC_STRING_ITEMS * ZC_STRING_STRIDE);
    for (uint32_t i = 0; i + 1 < ZC_STRING_ITEMS; i++)
        snprintf(text + i * ZC_STRING_STRIDE, ZC_STRING_STRIDE, "s%u", i);
    uint32_t stride = ZC_STRING_STRIDE;
    ze_result_t launched =
        zc_printf_launch(x, "print_string", sizeof text, &text, sizeof stride, &stride, ZC_STRING_ITEMS);
    fflush(stdout);
    printf("launch=%d\nstatus=%d\n", launched == ZE_RESULT_SUCCESS,
           zeDeviceGetStatus(x->device) == ZE_RESULT_ERROR_DEVICE_LOST);
    fflush(stdout);
    zc_free(x, text);
    return zc_child_exec_end(x);
}

/* A %s string with no end in its allocation: the work-items with good strings print them, the last one faults with a
 * diagnostic naming the kernel, the work-item and the rule, the same in the interpreter and in compiled code (the
 * debug log says it compiled). */
static void spirv_printf_string_without_end_faults(void **state) {
    (void)state;
    zc_skip_unless_fake(); /* elsewhere reading past the allocation is undefined */
    static const struct {
        const char *exec, *tier;
    } tiers[] = {{"ZEFAKE_EXEC=interp", NULL}, {"ZEFAKE_EXEC=compiled", "kernel 'print_string': compiled in"}};
    for (size_t t = 0; t < ZC_COUNT(tiers); t++) {
        const char *const env[] = {tiers[t].exec, "ZEFAKE_LOG=debug", NULL};
        zc_child child;
        assert_true(zc_run_child_mode("printf-string", NULL, env, ZC_CHILD_TIMEOUT_MS, &child));
        zc_assert_child_ok(&child, tiers[t].exec);
        if (tiers[t].tier != NULL && strstr(child.err, tiers[t].tier) == NULL)
            zc_fail("%s: the debug log does not say \"%s\":\n%s", tiers[t].exec, tiers[t].tier, child.err);
        if (strstr(child.out, "<s0>\n<s1>\n<s2>\n") == NULL || strstr(child.out, "<x") != NULL)
            zc_fail("%s: expected the three good strings and nothing of the bad one; stdout:\n%s", tiers[t].exec,
                    child.out);
        assert_int_equal(zc_child_number(&child, "status"), 1);
        if (strstr(child.err, "printf: the string at 0x") == NULL ||
            strstr(child.err, "has no end within 16 bytes") == NULL || strstr(child.err, "work-item (3") == NULL)
            zc_fail("%s: the fault does not name work-item 3 and the string's missing end:\n%s", tiers[t].exec,
                    child.err);
        zc_child_free(&child);
    }
}

/* ------------------------------------------------------------------------------------------------------------------
 * The compiled tier's on-disk cache, through the API (fake only: the cache and the debug log are zefake's) */

#define ZC_CACHE_ITEMS 256u

/* Child: hoist_scale over ZC_CACHE_ITEMS floats in groups of 64 (or of argv[0]), marking on stderr when the group
 * size is set and when the kernel is launched; prints whether the results are right. */
static int zc_child_cache_lookup(int argc, char **argv) {
    uint32_t group = argc > 0 ? (uint32_t)strtoul(argv[0], NULL, 10) : 64;
    if (group == 0 || ZC_CACHE_ITEMS % group != 0)
        return 2;
    zc_exec *x = zc_child_exec_begin();
    if (x == NULL)
        return 2;
    float *in = zc_host_alloc(x, ZC_CACHE_ITEMS * sizeof(float)),
          *out = zc_host_alloc(x, ZC_CACHE_ITEMS * sizeof(float));
    for (uint32_t i = 0; i < ZC_CACHE_ITEMS; i++)
        in[i] = (float)i - 100.0f;
    const float k = 2.5f;
    ze_module_handle_t module = zc_module_create(x->context, x->device, "spirv_hoist");
    ze_kernel_handle_t kernel = zc_kernel_create(module, "hoist_scale");
    zc_assert_success(zeKernelSetArgumentValue(kernel, 0, sizeof in, &in));
    zc_assert_success(zeKernelSetArgumentValue(kernel, 1, sizeof out, &out));
    zc_assert_success(zeKernelSetArgumentValue(kernel, 2, sizeof k, &k));
    fprintf(stderr, "[group size]\n");
    zc_assert_success(zeKernelSetGroupSize(kernel, group, 1, 1));
    fprintf(stderr, "[launch]\n");
    ze_command_list_handle_t list = zc_immediate(x, x->compute_ordinal, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
    ze_group_count_t groups = {ZC_CACHE_ITEMS / group, 1, 1};
    zc_assert_success(zeCommandListAppendLaunchKernel(list, kernel, &groups, NULL, 0, NULL));
    bool right = true;
    for (uint32_t i = 0; i < ZC_CACHE_ITEMS; i++)
        right &= out[i] == k * in[i] + 1.0f;
    printf("right=%d\n", right);
    fflush(stdout);
    zc_assert_success(zeCommandListDestroy(list));
    zc_assert_success(zeKernelDestroy(kernel));
    zc_assert_success(zeModuleDestroy(module));
    zc_free(x, in);
    zc_free(x, out);
    return zc_child_exec_end(x);
}

/* Where `what` is in the child's stderr relative to its markers: 0 before "[group size]", 1 between it and
 * "[launch]", 2 after, -1 nowhere. */
static int zc_logged_at(const zc_child *child, const char *what) {
    const char *at = strstr(child->err, what), *set = strstr(child->err, "[group size]"),
               *launch = strstr(child->err, "[launch]");
    if (at == NULL || set == NULL || launch == NULL)
        return -1;
    return at < set ? 0 : at < launch ? 1 : 2;
}

/* The files of the cache directory, removing them too when `remove`. */
static unsigned zc_cache_files(const char *dir, bool remove) {
    DIR *d = opendir(dir);
    assert_non_null(d);
    unsigned count = 0;
    for (struct dirent *f; (f = readdir(d)) != NULL;) {
        char path[600];
        snprintf(path, sizeof path, "%s/%s", dir, f->d_name);
        if (f->d_name[0] == '.')
            continue;
        count++;
        if (remove)
            unlink(path);
    }
    closedir(d);
    return count;
}

/* A cache directory of the test's own, and the environment entry naming it. */
static void zc_cache_make(char dir[21], char dir_env[64]) {
    snprintf(dir, 21, "/tmp/zc-cache-XXXXXX");
    assert_non_null(mkdtemp(dir));
    snprintf(dir_env, 64, "ZEFAKE_CACHE_DIR=%s", dir);
}

static void zc_cache_remove(const char *dir) {
    zc_cache_files(dir, true);
    assert_int_equal(rmdir(dir), 0);
}

/* A first process compiles the kernel at its launch and writes its code to the cache; a second one finds the code
 * when the kernel's group size is set (zeKernelSetGroupSize), before the launch, and compiles nothing. Both compute
 * the same results. */
static void spirv_cached_code_is_found_when_the_group_size_is_set(void **state) {
    (void)state;
    zc_skip_unless_fake();
    char dir[21], dir_env[64];
    zc_cache_make(dir, dir_env);
    const char *const env[] = {dir_env, "ZEFAKE_EXEC=compiled", "ZEFAKE_LOG=debug", "ZEFAKE_CACHE=1", NULL};
    for (int run = 0; run < 2; run++) {
        zc_child child;
        assert_true(zc_run_child_mode("cache-lookup", NULL, env, ZC_CHILD_TIMEOUT_MS, &child));
        zc_assert_child_ok(&child, run == 0 ? "empty cache" : "cached");
        assert_int_equal(zc_child_number(&child, "right"), 1);
        int compiled = zc_logged_at(&child, "kernel 'hoist_scale': compiled in");
        int cached = zc_logged_at(&child, "from the cache");
        if (run == 0 && (compiled != 2 || cached != -1))
            zc_fail("empty cache: expected the kernel compiled at its launch and nothing from the cache:\n%s",
                    child.err);
        if (run == 1 && cached != 1)
            zc_fail("second process: expected the code found in the cache when the group size was set:\n%s", child.err);
        zc_child_free(&child);
    }
    zc_cache_remove(dir);
}

/* ZEFAKE_CACHE_MAX_SIZE: under a limit of one byte, each entry written removes the others (the group size makes a
 * variant of its own); a value that is not a size above 0 (words, zero, a negative size, one past 64 bits) is
 * reported, and the default limit keeps both variants. */
static void spirv_cache_keeps_under_its_size_limit(void **state) {
    (void)state;
    zc_skip_unless_fake();
    char dir[21], dir_env[64];
    zc_cache_make(dir, dir_env);
    static const char *const groups[2][2] = {{"64", NULL}, {"32", NULL}}; /* the child's arguments */
    static const char *const limits[] = {"1", "12 apples", "0", "-1MiB", "18446744073709551616"};
    for (size_t v = 0; v < sizeof limits / sizeof limits[0]; v++) {
        bool bad = v > 0;
        char limit_env[96], warning[128];
        snprintf(limit_env, sizeof limit_env, "ZEFAKE_CACHE_MAX_SIZE=%s", limits[v]);
        snprintf(warning, sizeof warning, "ZEFAKE_CACHE_MAX_SIZE=%s is not a size above 0", limits[v]);
        const char *const env[] = {dir_env, "ZEFAKE_EXEC=compiled", "ZEFAKE_LOG=debug", "ZEFAKE_CACHE=1", limit_env,
                                   NULL};
        for (int run = 0; run < 2; run++) {
            zc_child child;
            assert_true(zc_run_child_mode("cache-lookup", groups[run], env, ZC_CHILD_TIMEOUT_MS, &child));
            zc_assert_child_ok(&child, groups[run][0]);
            assert_int_equal(zc_child_number(&child, "right"), 1);
            bool removed = strstr(child.err, "compiled-code cache: removed the 1 entry used least recently") != NULL;
            bool warned = strstr(child.err, warning) != NULL;
            if (removed != (!bad && run == 1) || warned != bad)
                zc_fail("ZEFAKE_CACHE_MAX_SIZE=%s, groups of %s: expected %s and %s:\n%s", limits[v], groups[run][0],
                        !bad && run == 1 ? "the other entry removed" : "no entry removed", bad ? "a warning" : "none",
                        child.err);
            zc_child_free(&child);
            assert_int_equal(zc_cache_files(dir, false), bad ? (unsigned)run + 1 : 1u);
        }
        zc_cache_files(dir, true);
    }
    zc_cache_remove(dir);
}

/* ------------------------------------------------------------------------------------------------------------------
 * ITT device annotations (fake only: they arrive through the zefake extension) */

#define ZC_ITT_ITEMS 128u
#define ZC_ITT_GROUP 32u

typedef struct zc_itt_seen {
    atomic_uint count[6];
    atomic_uint bad;       /* annotations whose fields are wrong */
    atomic_ullong started; /* the sum of work_item_id + 1 over WI_START */
    uint64_t object;       /* the atomic's address the kernel passes */
    ze_device_handle_t device;
} zc_itt_seen;

static bool zc_itt_fields_ok(const zefake_annotation_t *a, const zc_itt_seen *seen) {
    bool atomic = a->kind == ZEFAKE_ANNOTATION_ATOMIC_OP_START || a->kind == ZEFAKE_ANNOTATION_ATOMIC_OP_FINISH;
    if (a->size < sizeof *a || strcmp(a->kernel_name, "annotated") != 0 || a->device != seen->device ||
        a->group_size != ZC_ITT_GROUP)
        return false;
    if (a->work_item_id != a->group_id[0] * ZC_ITT_GROUP + a->local_id[0] || a->local_id[0] >= ZC_ITT_GROUP ||
        a->group_id[1] != 0 || a->local_id[2] != 0)
        return false;
    if (atomic)
        return a->atomic_object == seen->object && a->atomic_op == 1 && a->atomic_order == 5;
    return a->atomic_object == 0 && a->atomic_op == 0 && a->atomic_order == 0;
}

static void ZE_APICALL zc_itt_callback(const zefake_annotation_t *a, void *user_data) {
    zc_itt_seen *seen = user_data;
    if ((unsigned)a->kind >= ZC_COUNT(seen->count) || !zc_itt_fields_ok(a, seen)) {
        atomic_fetch_add(&seen->bad, 1);
        return;
    }
    atomic_fetch_add(&seen->count[a->kind], 1);
    if (a->kind == ZEFAKE_ANNOTATION_WI_START)
        atomic_fetch_add(&seen->started, a->work_item_id + 1);
}

static void zc_itt_callback_set(zefake_pfnAnnotationCallback_t callback, void *user_data) {
    zefake_pfnSetAnnotationCallback_t set = zc_fake_function(ZEFAKE_FN_SET_ANNOTATION_CALLBACK);
    assert_non_null(set);
    zc_assert_success(set(callback, user_data));
}

/* A module of spirv_itt.cl, with 0xFF747469 set to `value` unless value < 0; built with -zet-profile-flags so that
 * its instruction count is known. */
static ze_module_handle_t zc_itt_module(const zc_exec *x, int value) {
    zc_spirv spirv = zc_load_spirv("spirv_itt");
    uint32_t id = ZC_ITT_SPEC_ID;
    uint8_t byte = (uint8_t)value;
    const void *values[] = {&byte};
    ze_module_constants_t constants = {1, &id, values};
    ze_module_handle_t module = NULL;
    zc_assert_success(zc_module_from(x->context, x->device, ZE_MODULE_FORMAT_IL_SPIRV, spirv.data, spirv.size,
                                     "-zet-profile-flags 0x1", value < 0 ? NULL : &constants, &module, NULL));
    free(spirv.data);
    return module;
}

/* Runs `annotated` over ZC_ITT_ITEMS work-items; returns the value of 0xFF747469 the kernel saw. */
static int32_t zc_itt_run(zc_exec *x, ze_module_handle_t module, zc_itt_seen *seen) {
    int32_t *counter = zc_host_alloc(x, 4), *out = zc_host_alloc(x, ZC_ITT_ITEMS * 4);
    *counter = 0;
    memset(out, 0xff, ZC_ITT_ITEMS * 4);
    memset(seen, 0, sizeof *seen);
    seen->object = (uint64_t)(uintptr_t)counter;
    seen->device = x->device;
    ze_kernel_handle_t kernel = zc_kernel_create(module, "annotated");
    zc_assert_success(zeKernelSetArgumentValue(kernel, 0, sizeof counter, &counter));
    zc_assert_success(zeKernelSetArgumentValue(kernel, 1, sizeof out, &out));
    zc_assert_success(zeKernelSetGroupSize(kernel, ZC_ITT_GROUP, 1, 1));
    ze_command_list_handle_t list = zc_immediate(x, x->compute_ordinal, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
    ze_group_count_t groups = {ZC_ITT_ITEMS / ZC_ITT_GROUP, 1, 1};
    zc_assert_success(zeCommandListAppendLaunchKernel(list, kernel, &groups, NULL, 0, NULL));
    zc_assert_success(zeCommandListDestroy(list));
    zc_assert_success(zeKernelDestroy(kernel));
    assert_int_equal(*counter, ZC_ITT_ITEMS);
    for (uint32_t i = 1; i < ZC_ITT_ITEMS; i++)
        assert_int_equal(out[i], out[0]);
    int32_t value = out[0];
    zc_free(x, counter);
    zc_free(x, out);
    return value;
}

static void zc_itt_expect(const zc_itt_seen *seen, uint32_t per_kind) {
    assert_int_equal(atomic_load(&seen->bad), 0);
    for (size_t k = 0; k < ZC_COUNT(seen->count); k++)
        if (atomic_load(&seen->count[k]) != per_kind)
            zc_fail("annotation kind %zu arrived %u times, expected %u", k, atomic_load(&seen->count[k]), per_kind);
    uint64_t ids = per_kind ? (uint64_t)ZC_ITT_ITEMS * (ZC_ITT_ITEMS + 1) / 2 : 0;
    assert_int_equal(atomic_load(&seen->started), ids); /* every work-item started once */
}

static uint32_t zc_itt_instructions(ze_module_handle_t module) {
    ze_kernel_handle_t kernel = zc_kernel_create(module, "annotated");
    zefake_kernel_profile_exp_t ext = {.stype = ZEFAKE_STRUCTURE_TYPE_KERNEL_PROFILE_EXP};
    zet_profile_properties_t props = {.stype = ZET_STRUCTURE_TYPE_PROFILE_PROPERTIES, .pNext = &ext};
    zc_assert_success(zetKernelGetProfileInfo((zet_kernel_handle_t)kernel, &props));
    zc_assert_success(zeKernelDestroy(kernel));
    return ext.instructions;
}

static void spirv_itt_annotations_follow_the_specialization_constant(void **state) {
    zc_sx *s = *state;
    zc_skip_unless_fake();
    zc_itt_seen *seen = calloc(1, sizeof *seen);
    assert_non_null(seen);
    zc_itt_callback_set(zc_itt_callback, seen);
    ze_module_handle_t off = zc_itt_module(&s->x, -1), on = zc_itt_module(&s->x, 1);
    assert_int_equal(zc_itt_run(&s->x, off, seen), 0);
    zc_itt_expect(seen, 0);
    assert_int_equal(zc_itt_run(&s->x, on, seen), 1);
    zc_itt_expect(seen, ZC_ITT_ITEMS);
    /* Off, the wrappers cost nothing: the engine's form of the kernel has fewer instructions. */
    uint32_t cost_off = zc_itt_instructions(off), cost_on = zc_itt_instructions(on);
    if (!(cost_off < cost_on))
        zc_fail("the kernel has %u instructions with annotations off and %u with them on", cost_off, cost_on);
    /* Without a callback, annotations are dropped. */
    zc_itt_callback_set(NULL, NULL);
    assert_int_equal(zc_itt_run(&s->x, on, seen), 1);
    zc_itt_expect(seen, 0);
    zc_assert_success(zeModuleDestroy(off));
    zc_assert_success(zeModuleDestroy(on));
    free(seen);
}

/* With INTEL_ENABLE_OFFLOAD_ANNOTATIONS set, 0xFF747469 defaults to 1; an explicit value still wins. */
static int zc_child_itt_env(int argc, char **argv) {
    (void)argc;
    (void)argv;
    zc_exec *x = zc_child_exec_begin();
    if (x == NULL)
        return 2;
    zc_itt_seen *seen = calloc(1, sizeof *seen);
    if (seen == NULL)
        return 2;
    zc_itt_callback_set(zc_itt_callback, seen);
    ze_module_handle_t by_default = zc_itt_module(x, -1), explicit_off = zc_itt_module(x, 0);
    printf("default_value=%d\n", zc_itt_run(x, by_default, seen));
    printf("default_starts=%u\n", atomic_load(&seen->count[ZEFAKE_ANNOTATION_WI_START]));
    printf("default_bad=%u\n", atomic_load(&seen->bad));
    printf("off_value=%d\n", zc_itt_run(x, explicit_off, seen));
    printf("off_starts=%u\n", atomic_load(&seen->count[ZEFAKE_ANNOTATION_WI_START]));
    fflush(stdout);
    zc_itt_callback_set(NULL, NULL);
    zc_assert_success(zeModuleDestroy(by_default));
    zc_assert_success(zeModuleDestroy(explicit_off));
    free(seen);
    return zc_child_exec_end(x);
}

static void spirv_itt_environment_variable_enables_annotations(void **state) {
    (void)state;
    zc_skip_unless_fake();
    const char *const env[] = {"INTEL_ENABLE_OFFLOAD_ANNOTATIONS=1", NULL};
    zc_child child;
    assert_true(zc_run_child_mode("itt-env", NULL, env, ZC_CHILD_TIMEOUT_MS, &child));
    zc_assert_child_ok(&child, "annotations child");
    assert_int_equal(zc_child_number(&child, "default_value"), 1);
    assert_int_equal(zc_child_number(&child, "default_starts"), ZC_ITT_ITEMS);
    assert_int_equal(zc_child_number(&child, "default_bad"), 0);
    assert_int_equal(zc_child_number(&child, "off_value"), 0);
    assert_int_equal(zc_child_number(&child, "off_starts"), 0);
    zc_child_free(&child);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Function pointers and linked modules */

static int32_t zc_fptr_expected(int32_t v, bool external) {
    v = v % 3 == 0 ? v + 1 : v % 3 == 1 ? v * 2 : -v;
    return external ? v + (v + 1) : v; /* export.cl's add_one */
}

static void spirv_function_pointers(void **state) {
    zc_sx *s = *state;
    const uint32_t n = 256;
    int32_t *p = zc_spirv_buffer(s, n * 4);
    void *add_one = NULL;
    zc_assert_success(zeModuleGetFunctionPointer(zc_spirv_module(s, "export"), "add_one", &add_one));
    assert_non_null(add_one);
    for (int pass = 0; pass < 2; pass++) {
        uint64_t external = pass ? (uint64_t)(uintptr_t)add_one : 0;
        for (uint32_t i = 0; i < n; i++)
            p[i] = (int32_t)(i * 5 % 97);
        zc_arg args[] = {ZC_PTR(p), ZC_VAL(external)};
        zc_spirv_run(s, "spirv_fptr", "apply", n, 64, args, 2);
        for (uint32_t i = 0; i < n; i++)
            if (p[i] != zc_fptr_expected((int32_t)(i * 5 % 97), pass))
                zc_fail("pass %d, element %u: %d, expected %d", pass, i, p[i],
                        zc_fptr_expected((int32_t)(i * 5 % 97), pass));
    }
    zc_free(&s->x, p);
}

/* Calls through a function pointer of functions that wait at a work-group barrier: the compiled tier leaves such a
 * program to the interpreter (docs/spirv-execution.md, "Compiled tier"), whose results are the host loop's here. */
static void spirv_function_pointers_to_functions_with_barriers(void **state) {
    zc_sx *s = *state;
    const uint32_t n = 256, group = 64;
    int32_t *p = zc_spirv_buffer(s, n * 4), want[256];
    for (uint32_t left = 0; left < 2; left++) {
        for (uint32_t i = 0; i < n; i++)
            p[i] = (int32_t)(i * 7 % 31) - 9;
        for (uint32_t i = 0; i < n; i++) {
            uint32_t l = i % group, other = left ? (l + group - 1) % group : (l + 1) % group;
            want[i] = p[i] * 10 + p[i - l + other];
        }
        zc_arg args[] = {ZC_PTR(p), ZC_VAL(left)};
        zc_spirv_run(s, "spirv_fptr_barrier", "neighbour", n, group, args, 2);
        for (uint32_t i = 0; i < n; i++)
            if (p[i] != want[i])
                zc_fail("left = %u, element %u: %d, expected %d", left, i, p[i], want[i]);
    }
    zc_free(&s->x, p);
}

static void spirv_kernel_of_linked_module(void **state) {
    zc_sx *s = *state;
    ze_module_handle_t both[2] = {zc_spirv_module(s, "import"), zc_spirv_module(s, "export")};
    zc_assert_success(zeModuleDynamicLink(2, both, NULL));
    int32_t *total = NULL;
    zc_assert_success(zeModuleGetGlobalPointer(both[1], "shared_total", NULL, (void **)&total));
    *total = 1000; /* the importer sees the exporter's storage */
    const uint32_t n = 200;
    int32_t *p = zc_spirv_buffer(s, n * 4);
    for (uint32_t i = 0; i < n; i++)
        p[i] = (int32_t)i * 3 - 50;
    zc_arg args[] = {ZC_PTR(p)};
    zc_spirv_run(s, "import", "use_import", n, 8, args, 1);
    for (uint32_t i = 0; i < n; i++)
        if (p[i] != (int32_t)i * 3 - 50 + 1 + 1000)
            zc_fail("element %u: %d, expected %d", i, p[i], (int32_t)i * 3 - 50 + 1001);
    zc_free(&s->x, p);
}

/* ------------------------------------------------------------------------------------------------------------------
 * GEMM against the host */

typedef struct zc_gemm {
    uint32_t m, n, k;
    float *a, *b, *c;
} zc_gemm;

/* Small integer inputs: every partial sum is exact, in any order of summation and with or without fused
 * multiply-add, so the device's result must equal the host's. */
static zc_gemm zc_gemm_make(zc_sx *s, uint32_t m, uint32_t n, uint32_t k) {
    zc_gemm g = {m,
                 n,
                 k,
                 zc_spirv_buffer(s, (size_t)m * k * 4),
                 zc_spirv_buffer(s, (size_t)k * n * 4),
                 zc_spirv_buffer(s, (size_t)m * n * 4)};
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; i < (size_t)m * k; i++)
        g.a[i] = (float)(int)(zc_rand(&seed) % 9) - 4.0f;
    for (size_t i = 0; i < (size_t)k * n; i++)
        g.b[i] = (float)(int)(zc_rand(&seed) % 9) - 4.0f;
    return g;
}

static void zc_gemm_check(const zc_gemm *g, const char *what) {
    for (uint32_t r = 0; r < g->m; r++)
        for (uint32_t c = 0; c < g->n; c++) {
            float want = 0;
            for (uint32_t i = 0; i < g->k; i++)
                want += g->a[(size_t)r * g->k + i] * g->b[(size_t)i * g->n + c];
            if (g->c[(size_t)r * g->n + c] != want)
                zc_fail("%s: C[%u][%u] is %g, expected %g", what, r, c, (double)g->c[(size_t)r * g->n + c],
                        (double)want);
        }
}

static void zc_gemm_free(zc_sx *s, zc_gemm *g) {
    zc_free(&s->x, g->a);
    zc_free(&s->x, g->b);
    zc_free(&s->x, g->c);
}

static void zc_gemm_run(zc_sx *s, zc_gemm *g, const char *file, const char *name, uint32_t group) {
    memset(g->c, 0, (size_t)g->m * g->n * 4);
    uint32_t g0 = (g->n + group - 1) / group * group, g1 = (g->m + group - 1) / group * group;
    zc_arg args[] = {ZC_PTR(g->a), ZC_PTR(g->b), ZC_PTR(g->c), ZC_VAL(g->m), ZC_VAL(g->n), ZC_VAL(g->k)};
    zc_assert_success(zc_spirv_run2(s, file, name, g0, g1, group, group, args, 6));
    zc_gemm_check(g, name);
}

static void spirv_gemm_tiled_and_naive(void **state) {
    zc_sx *s = *state;
    zc_gemm g = zc_gemm_make(s, 50, 40, 37); /* no dimension a multiple of the tile */
    zc_gemm_run(s, &g, "spirv_gemm", "gemm_tiled", 16);
    zc_gemm_run(s, &g, "gemm", "gemm", 8);
    zc_gemm_free(s, &g);
    g = zc_gemm_make(s, 64, 64, 64);
    zc_gemm_run(s, &g, "spirv_gemm", "gemm_tiled", 16);
    zc_gemm_free(s, &g);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Native binaries */

typedef struct zc_native {
    uint8_t *data;
    size_t size;
} zc_native;

static zc_native zc_native_of(ze_module_handle_t module) {
    zc_native native = {NULL, 0};
    zc_assert_success(zeModuleGetNativeBinary(module, &native.size, NULL));
    native.data = malloc(native.size);
    assert_non_null(native.data);
    zc_assert_success(zeModuleGetNativeBinary(module, &native.size, native.data));
    return native;
}

static uint64_t zc_get64(const uint8_t *p) {
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

static uint32_t zc_get32(const uint8_t *p) {
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

/* The container's checksum (docs/modules.md, "Native binaries"): FNV-1a 64 of the bytes after the header. */
static void zc_native_reseal(zc_native *native) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 64; i < native->size; i++)
        h = (h ^ native->data[i]) * 0x100000001b3ull;
    memcpy(native->data + 48, &h, 8);
}

/* The section-table entry of the decoded form (kind 3), or NULL. */
static uint8_t *zc_native_decoded_entry(zc_native *native) {
    uint32_t sections = zc_get32(native->data + 32);
    for (uint32_t i = 0; i < sections; i++) {
        uint8_t *entry = native->data + 64 + 24 * i;
        if (zc_get32(entry) == 3)
            return entry;
    }
    return NULL;
}

static ze_result_t zc_native_load(zc_sx *s, const zc_native *native, ze_module_handle_t *module) {
    return zc_module_from(s->x.context, s->x.device, ZE_MODULE_FORMAT_NATIVE, native->data, native->size, NULL, NULL,
                          module, NULL);
}

/* The tiled GEMM of a reloaded module computes the same as the original. */
static void zc_native_gemm(zc_sx *s, ze_module_handle_t module, const char *name) {
    zc_gemm g = zc_gemm_make(s, 32, 48, 20);
    assert_true(s->num_modules < ZC_MAX_MODULES);
    s->names[s->num_modules] = name;
    s->modules[s->num_modules++] = module; /* the fixture destroys it */
    zc_gemm_run(s, &g, name, "gemm_tiled", 16);
    zc_gemm_free(s, &g);
}

static void spirv_native_binary_carries_the_decoded_form(void **state) {
    zc_sx *s = *state;
    zc_skip_unless_fake();
    zc_native native = zc_native_of(zc_spirv_module(s, "spirv_gemm"));
    uint8_t *entry = zc_native_decoded_entry(&native);
    assert_non_null(entry);
    uint64_t offset = zc_get64(entry + 8), size = zc_get64(entry + 16);
    assert_true(offset + size <= native.size && size > 8);
    assert_memory_equal(native.data + offset, "ZFDECODE", 8);
    ze_module_handle_t module = NULL;
    zc_assert_success(zc_native_load(s, &native, &module));
    zc_native_gemm(s, module, "reloaded");
    /* Without its decoded form (an unknown section kind is skipped) the SPIR-V is decoded again. */
    memcpy(entry, &(uint32_t){99}, 4);
    zc_native_reseal(&native);
    zc_assert_success(zc_native_load(s, &native, &module));
    zc_native_gemm(s, module, "decoded again");
    /* A decoded form cut short is refused. */
    memcpy(entry, &(uint32_t){3}, 4);
    memcpy(entry + 16, &(uint64_t){size / 2}, 8);
    zc_native_reseal(&native);
    zc_assert_result(zc_native_load(s, &native, &module), ZE_RESULT_ERROR_INVALID_NATIVE_BINARY);
    free(native.data);
}

/* Damaged decoded forms (with a valid checksum, as a tool editing the binary could write) either load, because the
 * change kept the form valid, or are refused; they never crash the driver. */
static void spirv_damaged_decoded_form_is_refused(void **state) {
    zc_sx *s = *state;
    zc_skip_unless_fake();
    zc_native native = zc_native_of(zc_spirv_module(s, "spirv_gemm"));
    const uint8_t *entry = zc_native_decoded_entry(&native);
    assert_non_null(entry);
    uint64_t offset = zc_get64(entry + 8), size = zc_get64(entry + 16);
    uint32_t refused = 0, loaded = 0;
    for (uint64_t at = 0; at < size; at += 1 + at % 13) {
        uint8_t saved = native.data[offset + at];
        native.data[offset + at] ^= (uint8_t)(0x5a ^ at);
        zc_native_reseal(&native);
        ze_module_handle_t module = NULL;
        ze_result_t r = zc_native_load(s, &native, &module);
        if (r == ZE_RESULT_SUCCESS) {
            loaded++;
            zc_assert_success(zeModuleDestroy(module));
        } else {
            zc_assert_result(r, ZE_RESULT_ERROR_INVALID_NATIVE_BINARY);
            refused++;
        }
        native.data[offset + at] = saved;
    }
    assert_true(refused > 0);
    free(native.data);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Program instrumentation */

/* The bytes of the named section of an ELF64 file, or NULL. */
static const uint8_t *zc_elf_section(const uint8_t *elf, size_t size, const char *name, size_t *section_size) {
    Elf64_Ehdr header;
    memcpy(&header, elf, sizeof header);
    if (header.e_shoff > size || (size - header.e_shoff) / sizeof(Elf64_Shdr) < header.e_shnum ||
        header.e_shstrndx >= header.e_shnum)
        return NULL;
    Elf64_Shdr names;
    memcpy(&names, elf + header.e_shoff + header.e_shstrndx * sizeof(Elf64_Shdr), sizeof names);
    for (uint32_t i = 0; i < header.e_shnum; i++) {
        Elf64_Shdr sh;
        memcpy(&sh, elf + header.e_shoff + i * sizeof(Elf64_Shdr), sizeof sh);
        if (sh.sh_offset > size || sh.sh_size > size - sh.sh_offset || names.sh_offset + sh.sh_name >= size)
            return NULL;
        if (strcmp((const char *)elf + names.sh_offset + sh.sh_name, name) == 0) {
            *section_size = sh.sh_size;
            return elf + sh.sh_offset;
        }
    }
    return NULL;
}

static void spirv_module_debug_info_describes_the_decoded_form(void **state) {
    zc_sx *s = *state;
    zc_skip_unless_fake();
    ze_module_handle_t module = zc_spirv_module(s, "spirv_gemm");
    size_t size = 0;
    zc_assert_success(
        zetModuleGetDebugInfo((zet_module_handle_t)module, ZET_MODULE_DEBUG_INFO_FORMAT_ELF_DWARF, &size, NULL));
    assert_true(size > sizeof(Elf64_Ehdr));
    uint8_t *elf = malloc(size);
    assert_non_null(elf);
    zc_assert_success(
        zetModuleGetDebugInfo((zet_module_handle_t)module, ZET_MODULE_DEBUG_INFO_FORMAT_ELF_DWARF, &size, elf));
    assert_memory_equal(elf, ELFMAG, SELFMAG);
    size_t form_size = 0, spirv_size = 0, kernels_size = 0, lines_size = 0;
    const uint8_t *form = zc_elf_section(elf, size, ".zefake.decoded", &form_size);
    const uint8_t *spirv = zc_elf_section(elf, size, ".zefake.spirv", &spirv_size);
    const uint8_t *kernels = zc_elf_section(elf, size, ".zefake.kernels", &kernels_size);
    assert_non_null(zc_elf_section(elf, size, ".zefake.lines", &lines_size));
    assert_true(form != NULL && spirv != NULL && kernels != NULL);
    /* The form is the one of the native binary; the kernel table names the kernel. */
    zc_native native = zc_native_of(module);
    const uint8_t *entry = zc_native_decoded_entry(&native);
    assert_non_null(entry);
    assert_int_equal(zc_get64(entry + 16), form_size);
    assert_memory_equal(native.data + zc_get64(entry + 8), form, form_size);
    assert_int_equal(zc_get32(spirv), 0x07230203u);
    char *table = calloc(1, kernels_size + 1);
    assert_non_null(table);
    memcpy(table, kernels, kernels_size);
    if (strstr(table, "\ngemm_tiled ") == NULL)
        zc_fail("the kernel table does not list gemm_tiled:\n%s", table);
    free(table);
    free(native.data);
    free(elf);
}

static void spirv_kernel_profile_info_follows_the_build_flags(void **state) {
    zc_sx *s = *state;
    zc_skip_unless_fake();
    zc_spirv spirv = zc_load_spirv("spirv_gemm");
    ze_module_handle_t plain = NULL, profiled = NULL;
    zc_assert_success(zc_module_from(s->x.context, s->x.device, ZE_MODULE_FORMAT_IL_SPIRV, spirv.data, spirv.size, NULL,
                                     NULL, &plain, NULL));
    zc_assert_success(zc_module_from(s->x.context, s->x.device, ZE_MODULE_FORMAT_IL_SPIRV, spirv.data, spirv.size,
                                     "-zet-profile-flags 0x3", NULL, &profiled, NULL));
    free(spirv.data);
    const ze_module_handle_t modules[] = {plain, profiled};
    for (int i = 0; i < 2; i++) {
        ze_kernel_handle_t kernel = zc_kernel_create(modules[i], "gemm_tiled");
        zefake_kernel_profile_exp_t ext = {.stype = ZEFAKE_STRUCTURE_TYPE_KERNEL_PROFILE_EXP};
        zet_profile_properties_t props = {.stype = ZET_STRUCTURE_TYPE_PROFILE_PROPERTIES, .pNext = &ext};
        zc_assert_success(zetKernelGetProfileInfo((zet_kernel_handle_t)kernel, &props));
        assert_int_equal(props.flags, i ? 3 : 0);
        assert_int_equal(props.numTokens, 0);
        if (i == 0) {
            assert_int_equal(ext.instructions, 0); /* untouched without the flags */
        } else {
            assert_true(ext.functions >= 1 && ext.blocks >= 1 && ext.instructions >= ext.blocks);
            assert_true(ext.registers > 0 && ext.registers <= ext.instructions && ext.frame_bytes > 0);
        }
        zc_assert_success(zeKernelDestroy(kernel));
    }
    zc_assert_success(zeModuleDestroy(plain));
    zc_assert_success(zeModuleDestroy(profiled));
}

/* ------------------------------------------------------------------------------------------------------------------
 * Instructions the engine does not run */

/* A kernel file the engine refuses: the build fails and its log names `what` and where it is. */
static void spirv_unsupported_instruction_fails_the_build(void **state) {
    zc_skip_unless_fake();
    zc_build_refused(*state, "spirv_unsupported", "OpGroupNonUniformElect");
}

/* Only OpenCL.std runs; debug-information sets decode to nothing; an instruction of another set is refused rather than
 * dropped. */
static void spirv_foreign_extended_instruction_set_fails_the_build(void **state) {
    zc_skip_unless_fake();
    zc_build_refused(*state, "spirv_foreign_set", "\"GLSL.std.450\"");
}

/* cl_intel_subgroups has blocks of 1, 2, 4 and 8 elements: a block of 3 is refused, not read some other way. */
static void spirv_subgroup_block_of_three_fails_the_build(void **state) {
    zc_skip_unless_fake();
    zc_build_refused(*state, "spirv_block3", "OpSubgroupBlockReadINTEL");
}

int main(int argc, char **argv) {
#define ZC_FIXTURE spirv
    static const struct CMUnitTest tests[] = {
        cmocka_unit_test(spirv_printf_writes_to_stdout),
        cmocka_unit_test(spirv_printf_string_without_end_faults),
        cmocka_unit_test(spirv_cached_code_is_found_when_the_group_size_is_set),
        cmocka_unit_test(spirv_cache_keeps_under_its_size_limit),
        ZC_T(spirv_itt_annotations_follow_the_specialization_constant),
        cmocka_unit_test(spirv_itt_environment_variable_enables_annotations),
        ZC_T(spirv_function_pointers),
        ZC_T(spirv_function_pointers_to_functions_with_barriers),
        ZC_T(spirv_kernel_of_linked_module),
        ZC_T(spirv_gemm_tiled_and_naive),
        ZC_T(spirv_native_binary_carries_the_decoded_form),
        ZC_T(spirv_damaged_decoded_form_is_refused),
        ZC_T(spirv_module_debug_info_describes_the_decoded_form),
        ZC_T(spirv_kernel_profile_info_follows_the_build_flags),
        ZC_T(spirv_unsupported_instruction_fails_the_build),
        ZC_T(spirv_foreign_extended_instruction_set_fails_the_build),
        ZC_T(spirv_subgroup_block_of_three_fails_the_build),
    };
    static const zc_child_mode modes[] = {{"printf", zc_child_printf},
                                          {"printf-string", zc_child_printf_string},
                                          {"itt-env", zc_child_itt_env},
                                          {"cache-lookup", zc_child_cache_lookup}};
    static const zc_suite suite = {ZC_EXECUTABLE,      tests, ZC_COUNT(tests), zc_setup_system,
                                   zc_teardown_system, modes, ZC_COUNT(modes)};
    return zc_main(argc, argv, &suite);
}
