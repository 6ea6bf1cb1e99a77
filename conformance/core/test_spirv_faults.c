/* Kernels that break the rules (kernels/spirv_faults.cl) must end in a device fault, never crash or hang the host:
 * private arrays written and read outside their bounds, a kernel that never ends (docs/spirv-execution.md, "Faults"
 * and "Hangs"). Each case runs in a child process, since a fault makes the device report DEVICE_LOST from then on;
 * the faults are zefake's (elsewhere such kernels are undefined), the in-bounds results hold for any driver. */
#include "zc_memory.h"
#include "zc_spirv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ZC_ITEMS 64u
#define ZC_GROUP 32u

/* ------------------------------------------------------------------------------------------------------------------
 * Private memory */

/* Child: launches `kernel` of spirv_faults with index argument `index` over ZC_ITEMS work-items and prints whether the
 * launch completed, whether the device reports a fault and the first output. */
static int zc_child_private(int argc, char **argv) {
    if (argc < 2)
        return 2;
    zc_exec *x = zc_child_exec_begin();
    if (x == NULL)
        return 2;
    int32_t index = atoi(argv[1]), value = 100;
    int32_t *out = zc_host_alloc(x, ZC_ITEMS * 16);
    memset(out, 0, ZC_ITEMS * 16);
    ze_module_handle_t module = zc_module_create(x->context, x->device, "spirv_faults");
    ze_kernel_handle_t kernel = zc_kernel_create(module, argv[0]);
    zc_assert_success(zeKernelSetArgumentValue(kernel, 0, sizeof out, &out));
    zc_assert_success(zeKernelSetArgumentValue(kernel, 1, sizeof index, &index));
    if (strcmp(argv[0], "private_underflow") != 0)
        zc_assert_success(zeKernelSetArgumentValue(kernel, 2, sizeof value, &value));
    zc_assert_success(zeKernelSetGroupSize(kernel, ZC_GROUP, 1, 1));
    ze_command_list_handle_t list = zc_immediate(x, x->compute_ordinal, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
    ze_group_count_t groups = {ZC_ITEMS / ZC_GROUP, 1, 1};
    printf("launch=%d\n", zeCommandListAppendLaunchKernel(list, kernel, &groups, NULL, 0, NULL) == ZE_RESULT_SUCCESS);
    printf("status=%d\n", zeDeviceGetStatus(x->device) == ZE_RESULT_ERROR_DEVICE_LOST);
    /* Work-item 1's outputs as one decimal number: its four values (0..999 each) in base 1000. */
    printf("out=%lld\n", ((out[4] * 1000ll + out[5]) * 1000 + out[6]) * 1000 + out[7]);
    fflush(stdout);
    zc_assert_success(zeCommandListDestroy(list));
    zc_assert_success(zeKernelDestroy(kernel));
    zc_assert_success(zeModuleDestroy(module));
    zc_free(x, out);
    return zc_child_exec_end(x);
}

static void zc_run_private(const char *kernel, int index, zc_child *child) {
    char text[16];
    snprintf(text, sizeof text, "%d", index);
    const char *const args[] = {kernel, text, NULL};
    assert_true(zc_run_child_mode("private", args, NULL, ZC_CHILD_TIMEOUT_MS, child));
    zc_assert_child_ok(child, kernel);
    assert_int_equal(zc_child_number(child, "launch"), 1);
}

/* In bounds, the kernels compute what the host does. */
static void private_arrays_in_bounds_compute(void **state) {
    (void)state;
    static const uint64_t expected[4] = {100002003004ull, 1100003004ull, 1002100004ull, 1002003100ull};
    for (int i = 0; i < 4; i++) { /* {1, 2, 3, 4} with element i set to 100 */
        zc_child child;
        zc_run_private("private_overflow", i, &child);
        assert_int_equal(zc_child_number(&child, "status"), 0);
        assert_int_equal(zc_child_number(&child, "out"), expected[i]);
        zc_child_free(&child);
    }
    zc_child child;
    zc_run_private("private_overflow_loop", 3, &child); /* {100, 101, 102, 103} */
    assert_int_equal(zc_child_number(&child, "status"), 0);
    assert_int_equal(zc_child_number(&child, "out"), 100101102103ull);
    zc_child_free(&child);
    zc_run_private("private_underflow", 0, &child); /* work-item 1 writes a[7] = 7 to its first output */
    assert_int_equal(zc_child_number(&child, "status"), 0);
    assert_int_equal(zc_child_number(&child, "out"), 7000000000ull);
    zc_child_free(&child);
}

/* The diagnostic names the kernel, a work-item, the private variable and the offset of the access in it. */
static void zc_check_private_fault(const zc_child *child, const char *kernel, const char *what) {
    char name[64];
    snprintf(name, sizeof name, "kernel '%s'", kernel);
    if (strstr(child->err, name) == NULL || strstr(child->err, "work-item (") == NULL ||
        strstr(child->err, "private variable") == NULL || strstr(child->err, what) == NULL)
        zc_fail("the diagnostic does not name %s, the work-item, the private variable and '%s':\n%s", name, what,
                child->err);
}

/* Out of bounds, by a little or by far, written or read: a device fault each time, never a crash or a hang. */
static void private_arrays_out_of_bounds_fault(void **state) {
    (void)state;
    zc_skip_unless_fake(); /* elsewhere the overflow is undefined */
    static const struct {
        const char *kernel;
        int index;
        const char *what;
    } cases[] = {
        {"private_overflow", 4, "offset 16"},        {"private_overflow", 16, "offset 64"},
        {"private_overflow", 40, "offset 160"},      {"private_overflow", 1000, "offset 4000"},
        {"private_overflow", -1, "offset -4"},       {"private_overflow_loop", 4, "offset 16"},
        {"private_overflow_loop", 40, "offset 16"},  {"private_underflow", 8, "offset -4"},
        {"private_underflow", 1007, "offset -4000"},
    };
    for (size_t i = 0; i < ZC_COUNT(cases); i++) {
        zc_child child;
        zc_run_private(cases[i].kernel, cases[i].index, &child);
        assert_int_equal(zc_child_number(&child, "status"), 1);
        zc_check_private_fault(&child, cases[i].kernel, cases[i].what);
        zc_child_free(&child);
    }
}

/* ------------------------------------------------------------------------------------------------------------------
 * Hangs */

static void zc_launch(ze_command_list_handle_t list, ze_kernel_handle_t kernel, ze_event_handle_t event) {
    ze_group_count_t groups = {ZC_ITEMS / ZC_GROUP, 1, 1};
    zc_assert_success(zeKernelSetGroupSize(kernel, ZC_GROUP, 1, 1));
    zc_assert_success(zeCommandListAppendLaunchKernel(list, kernel, &groups, event, 0, NULL));
}

/* Child (ZEFAKE_HANG_TIMEOUT_MS set by the parent): a kernel that never ends on an asynchronous immediate list. */
static int zc_child_hang(int argc, char **argv) {
    (void)argc;
    (void)argv;
    zc_exec *x = zc_child_exec_begin();
    if (x == NULL)
        return 2;
    int32_t *flag = zc_host_alloc(x, 4), *out = zc_host_alloc(x, ZC_ITEMS * 4);
    *flag = 0;
    memset(out, 0, ZC_ITEMS * 4);
    ze_module_handle_t module = zc_module_create(x->context, x->device, "spirv_faults");
    ze_kernel_handle_t spin = zc_kernel_create(module, "spin"), mark = zc_kernel_create(module, "mark");
    zc_assert_success(zeKernelSetArgumentValue(spin, 0, sizeof flag, &flag));
    zc_assert_success(zeKernelSetArgumentValue(spin, 1, sizeof out, &out));
    zc_assert_success(zeKernelSetArgumentValue(mark, 0, sizeof out, &out));
    ze_event_pool_handle_t pool = zc_event_pool(x, 2, 0);
    ze_event_handle_t spun = zc_event(pool, 0), marked = zc_event(pool, 1);
    ze_command_list_handle_t list = zc_immediate(x, x->compute_ordinal, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    zc_launch(list, spin, spun);
    /* While the kernel runs the list is in use: the strict profile says so at once, the default one resets it
     * without waiting, as Intel's driver does (its destroy waits). */
    ze_result_t reset = zeCommandListReset(list);
    printf("reset=%s\n", zc_result_name(reset));
    printf("running_at_reset=%d\n", zeEventQueryStatus(spun) == ZE_RESULT_NOT_READY);
    if (reset == ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE)
        printf("destroy=%s\n", zc_result_name(zeCommandListDestroy(list)));
    printf("spun=%d\n", zeEventHostSynchronize(spun, UINT64_MAX) == ZE_RESULT_SUCCESS);
    printf("status=%d\n", zeDeviceGetStatus(x->device) == ZE_RESULT_ERROR_DEVICE_LOST);
    /* The queue behind the list still runs work. */
    zc_launch(list, mark, marked);
    printf("marked=%d\n", zeEventHostSynchronize(marked, UINT64_MAX) == ZE_RESULT_SUCCESS && out[ZC_ITEMS - 1] == 7);
    fflush(stdout);
    zc_assert_success(zeCommandListDestroy(list));
    zc_assert_success(zeEventDestroy(spun));
    zc_assert_success(zeEventDestroy(marked));
    zc_assert_success(zeEventPoolDestroy(pool));
    zc_assert_success(zeKernelDestroy(spin));
    zc_assert_success(zeKernelDestroy(mark));
    zc_assert_success(zeModuleDestroy(module));
    zc_free(x, flag);
    zc_free(x, out);
    return zc_child_exec_end(x);
}

static void zc_run_hang(const char *strict, zc_child *child) {
    const char *const env[] = {"ZEFAKE_HANG_TIMEOUT_MS=300", strict, NULL};
    assert_true(zc_run_child_mode("hang", NULL, env, ZC_CHILD_TIMEOUT_MS, child));
    zc_assert_child_ok(child, "hang child");
}

static void hung_kernel_is_stopped_and_the_queue_stays_usable(void **state) {
    (void)state;
    zc_skip_unless_fake(); /* the limit is zefake's environment variable */
    char value[64];
    zc_child child;
    zc_run_hang("ZEFAKE_STRICT=1", &child); /* a busy list is refused at once */
    assert_true(zc_child_value(&child, "reset", value, sizeof value));
    assert_string_equal(value, "ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE");
    assert_true(zc_child_value(&child, "destroy", value, sizeof value));
    assert_string_equal(value, "ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE");
    assert_int_equal(zc_child_number(&child, "marked"), 1);
    zc_child_free(&child);
    zc_run_hang("ZEFAKE_STRICT=0", &child); /* reset at once, as Intel's driver does, with a warning */
    assert_true(zc_child_value(&child, "reset", value, sizeof value));
    assert_string_equal(value, "ZE_RESULT_SUCCESS");
    assert_int_equal(zc_child_number(&child, "running_at_reset"), 1);
    if (strstr(child.err, "zeCommandListReset: the application breaks the rule") == NULL)
        zc_fail("no warning names the function and the rule:\n%s", child.err);
    assert_int_equal(zc_child_number(&child, "spun"), 1);
    assert_int_equal(zc_child_number(&child, "status"), 1);
    assert_int_equal(zc_child_number(&child, "marked"), 1);
    if (strstr(child.err, "device hang: kernel 'spin'") == NULL ||
        strstr(child.err, "still running after 300 ms: stopped by the hang detector") == NULL)
        zc_fail("the diagnostic does not name the kernel and the hang detector:\n%s", child.err);
    zc_child_free(&child);
}

/* One group of `mark` into a buffer of its own: a first launch, which takes the compilation of the kernel under the
 * compiled tier (seconds under ThreadSanitizer on a loaded machine, and no part of what the hang detector limits). */
static void zc_launch_mark_once(zc_exec *x, ze_command_list_handle_t list, ze_kernel_handle_t mark,
                                ze_event_handle_t done) {
    /* 65 536 work-items: under ZEFAKE_EXEC=auto, the smallest launch that compiles an untried kernel
     * (docs/spirv-execution.md, "Compiled tier"), so that compiling is not part of the timed launch */
    const uint32_t groups = 65536u / ZC_GROUP;
    void *out = NULL;
    zc_assert_success(zc_alloc(x->context, ZC_DEVICE, x->device, (size_t)groups * ZC_GROUP * sizeof(int), 64, &out));
    zc_assert_success(zeKernelSetArgumentValue(mark, 0, sizeof out, &out));
    ze_group_count_t warm = {groups, 1, 1};
    zc_assert_success(zeCommandListAppendLaunchKernel(list, mark, &warm, done, 0, NULL));
    zc_assert_success(zeEventHostSynchronize(done, UINT64_MAX));
    zc_assert_success(zeEventHostReset(done));
    zc_assert_success(zeMemFree(x->context, out));
}

/* Child (ZEFAKE_HANG_TIMEOUT_MS set by the parent): `mark` over many groups with its output at an address that is not
 * mapped, so every work-item faults; prints how long the launch took, in host ms. */
static int zc_child_all_fault(int argc, char **argv) {
    (void)argc;
    (void)argv;
    zc_exec *x = zc_child_exec_begin();
    if (x == NULL)
        return 2;
    void *unmapped = (void *)(uintptr_t)0x10000; /* the lowest address Linux may map, never mapped by the loader */
    ze_module_handle_t module = zc_module_create(x->context, x->device, "spirv_faults");
    ze_kernel_handle_t mark = zc_kernel_create(module, "mark");
    zc_assert_success(zeKernelSetGroupSize(mark, ZC_GROUP, 1, 1));
    ze_group_count_t groups = {1u << 22, 1, 1}; /* far more than the limit lets run */
    ze_command_list_handle_t list = zc_immediate(x, x->compute_ordinal, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_event_pool_handle_t pool = zc_event_pool(x, 1, 0);
    ze_event_handle_t done = zc_event(pool, 0);
    zc_launch_mark_once(x, list, mark, done); /* the tier compiles the kernel here, outside the timed launch */
    zc_assert_success(zeKernelSetArgumentValue(mark, 0, sizeof unmapped, &unmapped));
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    zc_assert_success(zeCommandListAppendLaunchKernel(list, mark, &groups, done, 0, NULL));
    zc_assert_success(zeEventHostSynchronize(done, UINT64_MAX));
    clock_gettime(CLOCK_MONOTONIC, &end);
    printf("ms=%lld\n", (long long)((end.tv_sec - start.tv_sec) * 1000 + (end.tv_nsec - start.tv_nsec) / 1000000));
    printf("status=%d\n", zeDeviceGetStatus(x->device) == ZE_RESULT_ERROR_DEVICE_LOST);
    fflush(stdout);
    zc_assert_success(zeCommandListDestroy(list));
    zc_assert_success(zeEventDestroy(done));
    zc_assert_success(zeEventPoolDestroy(pool));
    zc_assert_success(zeKernelDestroy(mark));
    zc_assert_success(zeModuleDestroy(module));
    return zc_child_exec_end(x);
}

/* How far past the hang limit a launch may end, in tenths of the limit: 1.5 times, as docs/spirv-execution.md says;
 * a sanitizer's instrumented build runs the faulting waves several times slower, on a runner loaded by the other
 * tests, so there it may take 4 times (the launch would take seconds without the detector's look at each fault). */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define ZC_HANG_SLACK_TENTHS 40u
#else
#define ZC_HANG_SLACK_TENTHS 15u
#endif

/* A launch whose every work-item faults still ends within 1.5 times the hang limit: the time the faults take counts
 * towards the detector's next look at the clock. */
static void all_faulting_launch_stopped_within_the_limit(void **state) {
    (void)state;
    zc_skip_unless_fake(); /* the limit is zefake's environment variable */
    const char *const env[] = {"ZEFAKE_HANG_TIMEOUT_MS=400", NULL};
    zc_child child;
    assert_true(zc_run_child_mode("all-fault", NULL, env, ZC_CHILD_TIMEOUT_MS, &child));
    zc_assert_child_ok(&child, "all-fault child");
    assert_int_equal(zc_child_number(&child, "status"), 1);
    uint64_t ms = zc_child_number(&child, "ms");
    if (ms > 400 * ZC_HANG_SLACK_TENTHS / 10)
        zc_fail("the launch ran %llu ms with a hang limit of 400 ms (at most %u.%u times)", (unsigned long long)ms,
                ZC_HANG_SLACK_TENTHS / 10, ZC_HANG_SLACK_TENTHS % 10);
    if (strstr(child.err, "device hang: kernel 'mark'") == NULL)
        zc_fail("the hang detector did not stop the launch:\n%s", child.err);
    zc_child_free(&child);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Calls through bad function pointers */

/* Child: `apply` of spirv_fptr calling through `external`: "bogus" an address that names no function, "kernel" the
 * pointer of the kernel use_export of module export (no int(int) function). Prints status=1 once the device is lost. */
static int zc_child_bad_pointer(int argc, char **argv) {
    zc_exec *x = zc_child_exec_begin();
    if (x == NULL || argc < 1)
        return 2;
    ze_module_handle_t fptr = zc_module_create(x->context, x->device, "spirv_fptr");
    ze_module_handle_t other = zc_module_create(x->context, x->device, "export");
    void *external = (void *)(uintptr_t)0x5a5a0;
    if (strcmp(argv[0], "kernel") == 0)
        zc_assert_success(zeModuleGetFunctionPointer(other, "use_export", &external));
    int32_t *p = zc_host_alloc(x, ZC_ITEMS * 4);
    memset(p, 0, ZC_ITEMS * 4);
    ze_kernel_handle_t apply = zc_kernel_create(fptr, "apply");
    zc_assert_success(zeKernelSetArgumentValue(apply, 0, sizeof p, &p));
    zc_assert_success(zeKernelSetArgumentValue(apply, 1, sizeof external, &external));
    ze_event_pool_handle_t pool = zc_event_pool(x, 1, 0);
    ze_event_handle_t done = zc_event(pool, 0);
    ze_command_list_handle_t list = zc_immediate(x, x->compute_ordinal, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    zc_launch(list, apply, done);
    zc_assert_success(zeEventHostSynchronize(done, UINT64_MAX));
    printf("status=%d\n", zeDeviceGetStatus(x->device) == ZE_RESULT_ERROR_DEVICE_LOST);
    printf("pointer=%llu\n", (unsigned long long)(uintptr_t)external);
    fflush(stdout);
    zc_assert_success(zeCommandListDestroy(list));
    zc_assert_success(zeEventDestroy(done));
    zc_assert_success(zeEventPoolDestroy(pool));
    zc_assert_success(zeKernelDestroy(apply));
    zc_assert_success(zeModuleDestroy(fptr));
    zc_assert_success(zeModuleDestroy(other));
    zc_free(x, p);
    return zc_child_exec_end(x);
}

/* A call through a pointer that names no function, or a function of another signature, faults the work-items that
 * make it, naming the pointer, in whichever tier runs the kernel (the compiled tier's call is the interpreter's). */
static void bad_function_pointers_fault_naming_the_pointer(void **state) {
    (void)state;
    zc_skip_unless_fake(); /* the fault's text is zefake's */
    static const struct {
        const char *mode, *why;
    } cases[] = {{"bogus", ", which names no function"}, {"kernel", " with arguments that do not fit it"}};
    for (size_t i = 0; i < ZC_COUNT(cases); i++) {
        const char *const args[] = {cases[i].mode, NULL};
        zc_child child;
        assert_true(zc_run_child_mode("bad-pointer", args, NULL, ZC_CHILD_TIMEOUT_MS, &child));
        zc_assert_child_ok(&child, cases[i].mode);
        assert_int_equal(zc_child_number(&child, "status"), 1);
        char want[128];
        snprintf(want, sizeof want, "call through function pointer 0x%llx%s",
                 (unsigned long long)zc_child_number(&child, "pointer"), cases[i].why);
        if (strstr(child.err, want) == NULL)
            zc_fail("%s: expected '%s' in the log:\n%s", cases[i].mode, want, child.err);
        zc_child_free(&child);
    }
}

/* ------------------------------------------------------------------------------------------------------------------
 * Modules spirv-val refuses (kernels/invalid_*.spvasm): the build fails naming the instruction and the rule */

static void modules_spirv_val_refuses_fail_the_build(void **state) {
    zc_skip_unless_fake(); /* the log's text is zefake's */
    zc_build_refused(*state, "invalid_undef_void",
                     "(OpUndef): the SPIR-V validator refuses the module: Cannot create "
                     "undefined values with void type");
    zc_build_refused(*state, "invalid_operand_types",
                     "(OpIAdd): the SPIR-V validator refuses the module: Expected "
                     "arithmetic operands to have the same bit width");
    zc_build_refused(*state, "invalid_store_type",
                     "(OpStore): the SPIR-V validator refuses the module: OpStore "
                     "Pointer");
}

/* ------------------------------------------------------------------------------------------------------------------
 * SPV_INTEL_arbitrary_precision_integers (kernels/spirv_arbitrary_int.spvasm): the module builds, as on Intel's
 * driver; a kernel that touches no such integer runs, one that does faults at the instruction */

/* Child: launches `argv[0]` of spirv_arbitrary_int on one work-item, *dst = f(*src = 7), and prints whether the device
 * reports a fault and what it wrote. */
static int zc_child_arbitrary(int argc, char **argv) {
    if (argc < 1)
        return 2;
    zc_exec *x = zc_child_exec_begin();
    if (x == NULL)
        return 2;
    uint32_t *dst = zc_host_alloc(x, 4), *src = zc_host_alloc(x, 4);
    *dst = 0;
    *src = 7;
    ze_module_handle_t module = zc_module_create(x->context, x->device, "spirv_arbitrary_int");
    ze_kernel_handle_t kernel = zc_kernel_create(module, argv[0]);
    zc_assert_success(zeKernelSetArgumentValue(kernel, 0, sizeof dst, &dst));
    zc_assert_success(zeKernelSetArgumentValue(kernel, 1, sizeof src, &src));
    zc_assert_success(zeKernelSetGroupSize(kernel, 1, 1, 1));
    ze_command_list_handle_t list = zc_immediate(x, x->compute_ordinal, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
    ze_group_count_t groups = {1, 1, 1};
    zc_assert_success(zeCommandListAppendLaunchKernel(list, kernel, &groups, NULL, 0, NULL));
    printf("lost=%d\ndst=%u\n", zeDeviceGetStatus(x->device) == ZE_RESULT_ERROR_DEVICE_LOST, *dst);
    fflush(stdout);
    zc_assert_success(zeCommandListDestroy(list));
    zc_assert_success(zeKernelDestroy(kernel));
    zc_assert_success(zeModuleDestroy(module));
    zc_free(x, dst);
    zc_free(x, src);
    return zc_child_exec_end(x);
}

static void arbitrary_precision_integers_build_and_fault_where_used(void **state) {
    (void)state;
    zc_skip_unless_fake(); /* the fault and its text are zefake's */
    zc_child child;
    const char *const copy[] = {"copy", NULL};
    assert_true(zc_run_child_mode("arbitrary", copy, NULL, ZC_CHILD_TIMEOUT_MS, &child));
    zc_assert_child_ok(&child, "copy");
    assert_int_equal(zc_child_number(&child, "lost"), 0);
    assert_int_equal(zc_child_number(&child, "dst"), 7);
    zc_child_free(&child);
    const char *const narrow[] = {"narrow", NULL};
    assert_true(zc_run_child_mode("arbitrary", narrow, NULL, ZC_CHILD_TIMEOUT_MS, &child));
    zc_assert_child_ok(&child, "narrow");
    assert_int_equal(zc_child_number(&child, "lost"), 1);
    assert_int_equal(zc_child_number(&child, "dst"), 0);
    if (strstr(child.err, "kernel 'narrow': work-item (0, 0, 0)") == NULL ||
        strstr(child.err, "(OpUConvert): OpUConvert on a 24-bit integer is not supported by the execution engine") ==
            NULL)
        zc_fail("the fault does not name the work-item and the instruction:\n%s", child.err);
    zc_child_free(&child);
}

/* A stray operand: the first OpReturn of a valid module given one word more. */
static void stray_operand_fails_the_build(void **state) {
    zc_skip_unless_fake(); /* the log's text is zefake's */
    zc_spirv spirv = zc_load_spirv("vadd");
    uint32_t *words = malloc(spirv.size + 4);
    assert_non_null(words);
    memcpy(words, spirv.data, spirv.size);
    size_t count = spirv.size / 4, at = 5;
    while (at < count && words[at] != (1u << 16 | 253u)) /* OpReturn, one word */
        at += words[at] >> 16;
    assert_true(at < count);
    memmove(&words[at + 2], &words[at + 1], (count - at - 1) * 4);
    words[at] = 2u << 16 | 253u;
    words[at + 1] = 7;
    zc_spirv_refused(*state, "vadd with a stray operand", (zc_spirv){(uint8_t *)words, spirv.size + 4}, "OpReturn");
    free(words);
    free(spirv.data);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Values the engine must convert or print without undefined behaviour of its own (checked under UBSan in CI) */

static void zc_write_float_texels(zc_sx *s, ze_image_handle_t image, float v, int32_t *texels) {
    zc_arg args[] = {{sizeof image, &image}, ZC_VAL(v)};
    zc_spirv_run(s, "spirv_faults", "float_to_int_image", 4, 4, args, 2);
    zc_assert_success(zeCommandListAppendImageCopyToMemory(s->list, texels, image, NULL, NULL, 0, NULL));
}

static void float_texels_convert_to_integer_images(void **state) {
    zc_sx *s = *state;
    zc_skip_unless_fake(); /* the kernel's result is undefined elsewhere */
    ze_image_desc_t desc = {ZE_STRUCTURE_TYPE_IMAGE_DESC,
                            NULL,
                            0,
                            ZE_IMAGE_TYPE_2D,
                            {ZE_IMAGE_FORMAT_LAYOUT_32_32_32_32, ZE_IMAGE_FORMAT_TYPE_SINT, ZE_IMAGE_FORMAT_SWIZZLE_R,
                             ZE_IMAGE_FORMAT_SWIZZLE_G, ZE_IMAGE_FORMAT_SWIZZLE_B, ZE_IMAGE_FORMAT_SWIZZLE_A},
                            4,
                            1,
                            1,
                            0,
                            0};
    ze_image_handle_t image = NULL;
    zc_assert_success(zeImageCreate(s->x.context, s->x.device, &desc, &image));
    int32_t texels[16];
    zc_write_float_texels(s, image, NAN, texels); /* NaN converts to 0 */
    assert_int_equal(texels[0], 0);
    assert_int_equal(texels[1], 0);
    zc_write_float_texels(s, image, 1e30f, texels); /* saturated */
    assert_int_equal(texels[0], INT32_MAX);
    assert_int_equal(texels[1], INT32_MIN);
    zc_write_float_texels(s, image, 7.9f, texels); /* toward zero */
    assert_int_equal(texels[0], 7);
    assert_int_equal(texels[1], -7);
    zc_assert_success(zeImageDestroy(image));
}

static void printf_of_nothing_prints_nothing(void **state) {
    zc_sx *s = *state;
    int32_t *out = zc_spirv_buffer(s, 64 * 4);
    zc_arg args[] = {ZC_PTR(out)};
    zc_spirv_run(s, "spirv_faults", "print_nothing", 64, 32, args, 1);
    for (int i = 0; i < 64; i++)
        assert_int_equal(out[i], 1);
    zc_free(&s->x, out);
}

int main(int argc, char **argv) {
    static const struct CMUnitTest tests[] = {
        cmocka_unit_test(private_arrays_in_bounds_compute),
        cmocka_unit_test(private_arrays_out_of_bounds_fault),
        cmocka_unit_test(hung_kernel_is_stopped_and_the_queue_stays_usable),
        cmocka_unit_test(all_faulting_launch_stopped_within_the_limit),
        cmocka_unit_test(bad_function_pointers_fault_naming_the_pointer),
        cmocka_unit_test_setup_teardown(modules_spirv_val_refuses_fail_the_build, zc_setup_spirv, zc_teardown_spirv),
        cmocka_unit_test(arbitrary_precision_integers_build_and_fault_where_used),
        cmocka_unit_test_setup_teardown(stray_operand_fails_the_build, zc_setup_spirv, zc_teardown_spirv),
        cmocka_unit_test_setup_teardown(float_texels_convert_to_integer_images, zc_setup_spirv, zc_teardown_spirv),
        cmocka_unit_test_setup_teardown(printf_of_nothing_prints_nothing, zc_setup_spirv, zc_teardown_spirv),
    };
    static const zc_child_mode modes[] = {{"private", zc_child_private},
                                          {"hang", zc_child_hang},
                                          {"all-fault", zc_child_all_fault},
                                          {"arbitrary", zc_child_arbitrary},
                                          {"bad-pointer", zc_child_bad_pointer}};
    static const zc_suite suite = {ZC_EXECUTABLE,      tests, ZC_COUNT(tests), zc_setup_system,
                                   zc_teardown_system, modes, ZC_COUNT(modes)};
    return zc_main(argc, argv, &suite);
}
