/* Conformance: ZE_experimental_module_program, one module made of several SPIR-V inputs by a
 * ze_module_program_exp_desc_t chained to zeModuleCreate's descriptor. The inputs are kernels/program_*.cl: input 0
 * (program_main) has the kernel program_apply, which calls program_scale and program_offset and reads program_bias;
 * input 1 (program_scale) exports program_scale and program_bias and has the kernel program_scale_all; input 2
 * (program_offset) exports program_offset, which calls program_twice back in input 0. Each declares SpecId 1 with its
 * own default (1, 3 and 100), so per-input constants show in the result:
 *
 *     program_apply(x) = (2 * x * S1 + S2) * S0 + program_bias
 *
 * Every test skips when the driver does not advertise the extension (on the fake it must). Results the specification
 * names are checked on every driver; where it only requires an error, the fake's exact result and build log are
 * checked on the fake (docs/extensions.md).
 *
 * ZE_extension_linkonce_odr is tested here too, across modules (zeModuleDynamicLink) and across the inputs of one
 * module, on kernels/linkonce_*.spvasm (the section "LinkOnceODR" below). */
#include "zc_spirv.h"

#include <elf.h>
#include <level_zero/zet_api.h>

#define ZC_MAX_INPUTS 4

static bool zc_extension_advertised(const char *name) {
    uint32_t n = 0;
    zc_assert_success(zeDriverGetExtensionProperties(zc_sys()->driver, &n, NULL));
    ze_driver_extension_properties_t *list = calloc(n + 1, sizeof *list);
    zc_assert_success(zeDriverGetExtensionProperties(zc_sys()->driver, &n, list));
    bool found = false;
    for (uint32_t i = 0; i < n && !found; i++)
        found = strcmp(list[i].name, name) == 0;
    free(list);
    return found;
}

/* Skips unless the extension is advertised; on the fake it must be. */
static void zc_require(const char *name) {
    if (zc_extension_advertised(name))
        return;
    if (zc_driver_is_fake())
        zc_fail("the fake does not advertise %s", name);
    skip();
}

/* The fake's exact result; on another driver, any error. */
static void zc_expect_error(ze_result_t got, ze_result_t fake_result, const char *what) {
    if (zc_driver_is_fake() && got != fake_result)
        zc_fail("%s: %s, expected %s", what, zc_result_name(got), zc_result_name(fake_result));
    if (got == ZE_RESULT_SUCCESS)
        zc_fail("%s: succeeded, expected an error", what);
}

static void zc_log_has(const char *text, const char *needle) {
    if (strstr(text, needle) == NULL)
        zc_fail("the build log does not contain \"%s\":\n%s", needle, text);
}

/* The inputs of a module program: test kernel files, with optional flags and constants per input. */
typedef struct zc_program {
    uint32_t count;
    zc_spirv files[ZC_MAX_INPUTS];
    size_t sizes[ZC_MAX_INPUTS];
    const uint8_t *inputs[ZC_MAX_INPUTS];
    const char *flags[ZC_MAX_INPUTS];
    const ze_module_constants_t *constants[ZC_MAX_INPUTS];
    ze_module_program_exp_desc_t desc;
} zc_program;

static void zc_program_load(zc_program *p, uint32_t count, const char *const *names) {
    memset(p, 0, sizeof *p);
    p->count = count;
    for (uint32_t i = 0; i < count; i++) {
        p->files[i] = zc_load_spirv(names[i]);
        p->sizes[i] = p->files[i].size;
        p->inputs[i] = p->files[i].data;
    }
    p->desc = (ze_module_program_exp_desc_t){
        ZE_STRUCTURE_TYPE_MODULE_PROGRAM_EXP_DESC, NULL, count, p->sizes, p->inputs, p->flags, p->constants};
}

static void zc_program_free(zc_program *p) {
    for (uint32_t i = 0; i < p->count; i++)
        free(p->files[i].data);
}

/* zeModuleCreate with the program chained after `before` (NULL: directly). The descriptor's own input is the first
 * file: the specification ignores it, but zeModuleCreate's argument rules still apply to it. */
static ze_result_t zc_program_create(zc_sx *s, zc_program *p, ze_base_desc_t *before, ze_module_handle_t *module,
                                     ze_module_build_log_handle_t *log) {
    ze_module_desc_t desc = {ZE_STRUCTURE_TYPE_MODULE_DESC,
                             &p->desc,
                             ZE_MODULE_FORMAT_IL_SPIRV,
                             p->files[0].size,
                             p->files[0].data,
                             "-unused",
                             NULL};
    if (before != NULL) {
        before->pNext = &p->desc;
        desc.pNext = before;
    }
    *module = NULL;
    return zeModuleCreate(s->x.context, s->x.device, &desc, module, log);
}

static const char *const zc_three[] = {"program_main", "program_scale", "program_offset"};

static ze_module_handle_t zc_program_module(zc_sx *s, zc_program *p) {
    ze_module_handle_t module = NULL;
    ze_module_build_log_handle_t log = NULL;
    ze_result_t r = zc_program_create(s, p, NULL, &module, &log);
    if (r != ZE_RESULT_SUCCESS) {
        char *text = log != NULL ? zc_build_log_text(log) : NULL;
        zc_fail("zeModuleCreate of the module program: %s\n%s", zc_result_name(r), text ? text : "");
    }
    zc_assert_success(zeModuleBuildLogDestroy(log));
    return module;
}

#define ZC_N 64u

static int32_t zc_input_value(uint32_t i) {
    return (int32_t)(i * 7 % 61) - 30;
}

/* Runs a one-argument kernel of `module` over ZC_N items of zc_input_value and checks out[i] == a * x + b. */
static void zc_check_linear(zc_sx *s, ze_module_handle_t module, const char *kernel_name, int32_t a, int32_t b) {
    int32_t *p = zc_spirv_buffer(s, ZC_N * sizeof *p);
    for (uint32_t i = 0; i < ZC_N; i++)
        p[i] = zc_input_value(i);
    ze_kernel_handle_t kernel = zc_kernel_create(module, kernel_name);
    zc_assert_success(zeKernelSetArgumentValue(kernel, 0, sizeof p, &p));
    zc_assert_success(zeKernelSetGroupSize(kernel, 16, 1, 1));
    ze_group_count_t groups = {ZC_N / 16, 1, 1};
    zc_assert_success(zeCommandListAppendLaunchKernel(s->list, kernel, &groups, NULL, 0, NULL));
    zc_assert_success(zeKernelDestroy(kernel));
    for (uint32_t i = 0; i < ZC_N; i++)
        if (p[i] != a * zc_input_value(i) + b)
            zc_fail("%s, item %u: %d, expected %d", kernel_name, i, p[i], a * zc_input_value(i) + b);
    zc_free(&s->x, p);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Happy paths */

static void module_program_links_three_inputs(void **state) {
    zc_sx *s = *state;
    zc_require(ZE_MODULE_PROGRAM_EXP_NAME);
    zc_program p;
    zc_program_load(&p, 3, zc_three);
    ze_module_handle_t module = zc_program_module(s, &p);
    /* One module: the kernels of every input, no import left. */
    uint32_t n = 0;
    zc_assert_success(zeModuleGetKernelNames(module, &n, NULL));
    assert_int_equal(n, 2);
    const char *names[2] = {NULL, NULL};
    zc_assert_success(zeModuleGetKernelNames(module, &n, names));
    assert_true(strcmp(names[0], "program_scale_all") == 0 || strcmp(names[1], "program_scale_all") == 0);
    assert_true(strcmp(names[0], "program_apply") == 0 || strcmp(names[1], "program_apply") == 0);
    ze_module_properties_t props = {ZE_STRUCTURE_TYPE_MODULE_PROPERTIES, NULL, 0};
    zc_assert_success(zeModuleGetProperties(module, &props));
    assert_int_equal(props.flags & ZE_MODULE_PROPERTY_FLAG_IMPORTS, 0);
    /* Defaults: S0 = 1, S1 = 3, S2 = 100, program_bias = 7. A kernel of input 0 calls into inputs 1 and 2 (and input 2
     * back into input 0); input 1's own kernel runs too. */
    zc_check_linear(s, module, "program_apply", 6, 107);
    zc_check_linear(s, module, "program_scale_all", 3, 7);
    /* Globals and functions of every input are the module's. */
    int32_t *bias = NULL;
    size_t size = 0;
    zc_assert_success(zeModuleGetGlobalPointer(module, "program_bias", &size, (void **)&bias));
    assert_int_equal(size, sizeof(int32_t));
    assert_int_equal(*bias, 7);
    *bias = 1000;
    zc_check_linear(s, module, "program_apply", 6, 1100);
    void *fn[3] = {NULL, NULL, NULL};
    zc_assert_success(zeModuleGetFunctionPointer(module, "program_twice", &fn[0]));
    zc_assert_success(zeModuleGetFunctionPointer(module, "program_scale", &fn[1]));
    zc_assert_success(zeModuleGetFunctionPointer(module, "program_offset", &fn[2]));
    assert_true(fn[0] != NULL && fn[1] != NULL && fn[2] != NULL && fn[0] != fn[1] && fn[1] != fn[2]);
    zc_assert_success(zeModuleDestroy(module));
    zc_program_free(&p);
}

static void module_program_constants_per_input(void **state) {
    zc_sx *s = *state;
    zc_require(ZE_MODULE_PROGRAM_EXP_NAME);
    zc_program p;
    zc_program_load(&p, 3, zc_three);
    /* The same SpecId in each input, each with its own value. */
    const uint32_t ids[1] = {1};
    const int32_t v0 = 2, v1 = 5, v2 = -4;
    const void *values0[1] = {&v0}, *values1[1] = {&v1}, *values2[1] = {&v2};
    const ze_module_constants_t c0 = {1, ids, values0}, c1 = {1, ids, values1}, c2 = {1, ids, values2};
    p.constants[0] = &c0;
    p.constants[1] = &c1;
    p.constants[2] = &c2;
    ze_module_handle_t module = zc_program_module(s, &p);
    zc_check_linear(s, module, "program_apply", 20, -1); /* (2 * 5x - 4) * 2 + 7 */
    zc_check_linear(s, module, "program_scale_all", 5, 7);
    zc_assert_success(zeModuleDestroy(module));
    /* Constants for one input only: the others keep their defaults. */
    p.constants[0] = NULL;
    p.constants[2] = NULL;
    module = zc_program_module(s, &p);
    zc_check_linear(s, module, "program_apply", 10, 107); /* (2 * 5x + 100) * 1 + 7 */
    zc_assert_success(zeModuleDestroy(module));
    zc_program_free(&p);
}

static void module_program_flags_per_input(void **state) {
    zc_sx *s = *state;
    zc_require(ZE_MODULE_PROGRAM_EXP_NAME);
    zc_program p;
    zc_program_load(&p, 3, zc_three);
    p.flags[0] = "-ze-opt-disable";
    p.flags[2] = "-g -zefake-test-unknown-option";
    ze_module_handle_t module = NULL;
    ze_module_build_log_handle_t log = NULL;
    zc_assert_success(zc_program_create(s, &p, NULL, &module, &log));
    char *text = zc_build_log_text(log);
    if (zc_driver_is_fake()) /* the unknown option is noted for its input only */
        zc_log_has(text, "input 2: note: build option '-zefake-test-unknown-option'");
    free(text);
    zc_assert_success(zeModuleBuildLogDestroy(log));
    zc_check_linear(s, module, "program_apply", 6, 107);
    zc_assert_success(zeModuleDestroy(module));
    zc_program_free(&p);
}

/* Structures the driver does not know in either pNext chain are ignored. */
static void module_program_unknown_structures_ignored(void **state) {
    zc_sx *s = *state;
    zc_require(ZE_MODULE_PROGRAM_EXP_NAME);
    zc_program p;
    zc_program_load(&p, 3, zc_three);
    ze_base_desc_t before = {ZE_STRUCTURE_TYPE_SCHEDULING_HINT_EXP_DESC, NULL};
    ze_base_desc_t after = {ZE_STRUCTURE_TYPE_SCHEDULING_HINT_EXP_DESC, NULL};
    p.desc.pNext = &after;
    ze_module_handle_t module = NULL;
    zc_assert_success(zc_program_create(s, &p, &before, &module, NULL));
    zc_check_linear(s, module, "program_apply", 6, 107);
    zc_assert_success(zeModuleDestroy(module));
    zc_program_free(&p);
}

/* The native binary of a module program reloads as the same module, constants included. */
static void module_program_native_binary(void **state) {
    zc_sx *s = *state;
    zc_require(ZE_MODULE_PROGRAM_EXP_NAME);
    zc_program p;
    zc_program_load(&p, 3, zc_three);
    const uint32_t ids[1] = {1};
    const int32_t v1 = 5;
    const void *values1[1] = {&v1};
    const ze_module_constants_t c1 = {1, ids, values1};
    p.constants[1] = &c1;
    ze_module_handle_t module = zc_program_module(s, &p);
    size_t size = 0;
    zc_assert_success(zeModuleGetNativeBinary(module, &size, NULL));
    uint8_t *binary = malloc(size);
    assert_non_null(binary);
    zc_assert_success(zeModuleGetNativeBinary(module, &size, binary));
    zc_assert_success(zeModuleDestroy(module));
    ze_module_handle_t reloaded = NULL;
    zc_assert_success(
        zc_module_from(s->x.context, s->x.device, ZE_MODULE_FORMAT_NATIVE, binary, size, NULL, NULL, &reloaded, NULL));
    uint32_t n = 0;
    zc_assert_success(zeModuleGetKernelNames(reloaded, &n, NULL));
    assert_int_equal(n, 2);
    zc_check_linear(s, reloaded, "program_apply", 10, 107);
    zc_check_linear(s, reloaded, "program_scale_all", 5, 7);
    zc_assert_success(zeModuleDestroy(reloaded));
    free(binary);
    zc_program_free(&p);
}

/* An import no input exports is left for zeModuleDynamicLink, which may then link the module program with another
 * module (in both directions: program_offset.cl calls program_twice back). */
static void module_program_unresolved_then_dynamic_link(void **state) {
    zc_sx *s = *state;
    zc_require(ZE_MODULE_PROGRAM_EXP_NAME);
    zc_program p;
    zc_program_load(&p, 2, zc_three); /* program_offset is missing */
    ze_module_handle_t module = NULL;
    ze_module_build_log_handle_t log = NULL;
    ze_result_t r = zc_program_create(s, &p, NULL, &module, &log);
    if (r != ZE_RESULT_SUCCESS && !zc_driver_is_fake()) { /* a driver may refuse unresolved imports at creation */
        zc_program_free(&p);
        skip();
    }
    zc_assert_success(r);
    char *text = zc_build_log_text(log);
    if (zc_driver_is_fake())
        zc_log_has(text, "input 0: function import 'program_offset' is exported by no input");
    free(text);
    zc_assert_success(zeModuleBuildLogDestroy(log));
    ze_module_properties_t props = {ZE_STRUCTURE_TYPE_MODULE_PROPERTIES, NULL, 0};
    zc_assert_success(zeModuleGetProperties(module, &props));
    assert_int_equal(props.flags & ZE_MODULE_PROPERTY_FLAG_IMPORTS, ZE_MODULE_PROPERTY_FLAG_IMPORTS);
    ze_kernel_desc_t kdesc = {ZE_STRUCTURE_TYPE_KERNEL_DESC, NULL, 0, "program_apply"};
    ze_kernel_handle_t kernel = NULL;
    zc_assert_result(zeKernelCreate(module, &kdesc, &kernel), ZE_RESULT_ERROR_INVALID_MODULE_UNLINKED);
    zc_assert_result(zeModuleDynamicLink(1, &module, NULL), ZE_RESULT_ERROR_MODULE_LINK_FAILURE);
    ze_module_handle_t offset = zc_module_create(s->x.context, s->x.device, "program_offset");
    ze_module_handle_t both[2] = {module, offset};
    zc_assert_success(zeModuleDynamicLink(2, both, NULL));
    zc_assert_success(zeModuleGetProperties(module, &props));
    assert_int_equal(props.flags & ZE_MODULE_PROPERTY_FLAG_IMPORTS, 0);
    zc_check_linear(s, module, "program_apply", 6, 107);
    zc_assert_success(zeModuleDestroy(offset)); /* the importer keeps what it links to */
    zc_check_linear(s, module, "program_apply", 6, 107);
    zc_assert_success(zeModuleDestroy(module));
    zc_program_free(&p);
}

/* zeModuleInspectLinkageExt sees one module: imports another input provides are not the module's. */
static void module_program_linkage_inspection(void **state) {
    zc_sx *s = *state;
    zc_require(ZE_MODULE_PROGRAM_EXP_NAME);
    zc_require(ZE_LINKAGE_INSPECTION_EXT_NAME);
    zc_program p;
    zc_program_load(&p, 2, zc_three);
    ze_module_handle_t module = NULL;
    if (zc_program_create(s, &p, NULL, &module, NULL) != ZE_RESULT_SUCCESS && !zc_driver_is_fake()) {
        zc_program_free(&p);
        skip();
    }
    assert_non_null(module);
    ze_linkage_inspection_ext_desc_t desc = {ZE_STRUCTURE_TYPE_LINKAGE_INSPECTION_EXT_DESC, NULL,
                                             ZE_LINKAGE_INSPECTION_EXT_FLAG_IMPORTS |
                                                 ZE_LINKAGE_INSPECTION_EXT_FLAG_EXPORTS};
    ze_module_build_log_handle_t log = NULL;
    zc_assert_success(zeModuleInspectLinkageExt(&desc, 1, &module, &log));
    char *text = zc_build_log_text(log);
    const char *exports = strstr(text, "Export Symbol Names:");
    assert_non_null(exports);
    const char *offset = strstr(text, "program_offset"), *scale = strstr(text, "program_scale");
    if (offset == NULL || offset > exports)
        zc_fail("program_offset is not listed as an import:\n%s", text);
    if (scale == NULL || scale < exports)
        zc_fail("program_scale is listed as an import, or not as an export:\n%s", text);
    assert_non_null(strstr(exports, "program_bias"));
    free(text);
    zc_assert_success(zeModuleBuildLogDestroy(log));
    zc_assert_success(zeModuleDestroy(module));
    zc_program_free(&p);
}

/* The fake's debug information describes every program, those after the first under suffixed section names. */
static bool zc_elf_has_section(const uint8_t *elf, size_t size, const char *name) {
    Elf64_Ehdr header;
    memcpy(&header, elf, sizeof header);
    if (header.e_shoff + (uint64_t)header.e_shnum * sizeof(Elf64_Shdr) > size)
        return false;
    Elf64_Shdr strtab;
    memcpy(&strtab, elf + header.e_shoff + header.e_shstrndx * sizeof(Elf64_Shdr), sizeof strtab);
    for (uint32_t i = 0; i < header.e_shnum; i++) {
        Elf64_Shdr section;
        memcpy(&section, elf + header.e_shoff + i * sizeof(Elf64_Shdr), sizeof section);
        if (strtab.sh_offset + section.sh_name < size &&
            strcmp((const char *)elf + strtab.sh_offset + section.sh_name, name) == 0)
            return true;
    }
    return false;
}

static void module_program_debug_info(void **state) {
    zc_sx *s = *state;
    zc_skip_unless_fake();
    zc_program p;
    zc_program_load(&p, 3, zc_three);
    ze_module_handle_t module = zc_program_module(s, &p);
    size_t size = 0;
    zc_assert_success(
        zetModuleGetDebugInfo((zet_module_handle_t)module, ZET_MODULE_DEBUG_INFO_FORMAT_ELF_DWARF, &size, NULL));
    uint8_t *elf = malloc(size);
    assert_non_null(elf);
    zc_assert_success(
        zetModuleGetDebugInfo((zet_module_handle_t)module, ZET_MODULE_DEBUG_INFO_FORMAT_ELF_DWARF, &size, elf));
    assert_true(zc_elf_has_section(elf, size, ".zefake.kernels"));
    assert_true(zc_elf_has_section(elf, size, ".zefake.kernels.1"));
    assert_true(zc_elf_has_section(elf, size, ".zefake.decoded.2"));
    assert_false(zc_elf_has_section(elf, size, ".zefake.decoded.3"));
    free(elf);
    zc_assert_success(zeModuleDestroy(module));
    zc_program_free(&p);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Bad inputs */

/* zeModuleCreate of `p` fails with `fake_result` on the fake (an error elsewhere); on the fake the log names the
 * rule. */
static void zc_expect_rejected(zc_sx *s, zc_program *p, ze_result_t fake_result, const char *log_text) {
    ze_module_handle_t module = NULL;
    ze_module_build_log_handle_t log = NULL;
    ze_result_t r = zc_program_create(s, p, NULL, &module, &log);
    zc_expect_error(r, fake_result, log_text);
    assert_null(module);
    if (log == NULL)
        return;
    char *text = zc_build_log_text(log);
    if (zc_driver_is_fake())
        zc_log_has(text, log_text);
    free(text);
    zc_assert_success(zeModuleBuildLogDestroy(log));
}

static void module_program_bad_descriptor(void **state) {
    zc_sx *s = *state;
    zc_require(ZE_MODULE_PROGRAM_EXP_NAME);
    zc_program p;
    zc_program_load(&p, 3, zc_three);
    p.desc.count = 0;
    zc_expect_rejected(s, &p, ZE_RESULT_ERROR_INVALID_SIZE, "0 == count");
    p.desc.count = 3;
    p.desc.inputSizes = NULL;
    zc_expect_rejected(s, &p, ZE_RESULT_ERROR_INVALID_NULL_POINTER, "nullptr == inputSizes");
    p.desc.inputSizes = p.sizes;
    p.desc.pInputModules = NULL;
    zc_expect_rejected(s, &p, ZE_RESULT_ERROR_INVALID_NULL_POINTER, "nullptr == pInputModules");
    p.desc.pInputModules = p.inputs;
    p.inputs[1] = NULL;
    zc_expect_rejected(s, &p, ZE_RESULT_ERROR_INVALID_NULL_POINTER, "nullptr == pInputModules[1]");
    p.inputs[1] = p.files[1].data;
    p.sizes[2] = 0;
    zc_expect_rejected(s, &p, ZE_RESULT_ERROR_INVALID_SIZE, "0 == inputSizes[2]");
    p.sizes[2] = p.files[2].size;
    /* Constants: numConstants without arrays or values. */
    const uint32_t ids[1] = {1};
    const void *no_values[1] = {NULL};
    const ze_module_constants_t no_arrays = {1, NULL, NULL}, null_value = {1, ids, no_values};
    p.constants[1] = &no_arrays;
    zc_expect_rejected(s, &p, ZE_RESULT_ERROR_INVALID_NULL_POINTER, "pConstants[1] has 1 constants");
    p.constants[1] = &null_value;
    zc_expect_rejected(s, &p, ZE_RESULT_ERROR_INVALID_NULL_POINTER, "nullptr == pConstants[1]->pConstantValues[0]");
    p.constants[1] = NULL;
    /* The descriptor's format must be SPIR-V. */
    ze_module_desc_t desc = {
        ZE_STRUCTURE_TYPE_MODULE_DESC, &p.desc, ZE_MODULE_FORMAT_NATIVE, p.files[0].size, p.files[0].data, NULL, NULL};
    ze_module_handle_t module = NULL;
    zc_expect_error(zeModuleCreate(s->x.context, s->x.device, &desc, &module, NULL), ZE_RESULT_ERROR_INVALID_ARGUMENT,
                    "a native format with a module program");
    assert_null(module);
    /* Still a working descriptor after all that. */
    module = zc_program_module(s, &p);
    zc_assert_success(zeModuleDestroy(module));
    zc_program_free(&p);
}

static void module_program_bad_input_named(void **state) {
    zc_sx *s = *state;
    zc_require(ZE_MODULE_PROGRAM_EXP_NAME);
    zc_program p;
    zc_program_load(&p, 3, zc_three);
    /* An input that is not SPIR-V. */
    uint8_t garbage[64];
    memset(garbage, 0xAB, sizeof garbage);
    p.inputs[1] = garbage;
    p.sizes[1] = sizeof garbage;
    zc_expect_rejected(s, &p, ZE_RESULT_ERROR_MODULE_BUILD_FAILURE, "input 1: ");
    p.inputs[1] = p.files[1].data;
    p.sizes[1] = p.files[1].size;
    /* A constant an input does not declare (as for one SPIR-V module). */
    const uint32_t ids[1] = {9};
    const int32_t v = 1;
    const void *values[1] = {&v};
    const ze_module_constants_t unknown = {1, ids, values};
    p.constants[2] = &unknown;
    zc_expect_rejected(s, &p, ZE_RESULT_ERROR_INVALID_ARGUMENT, "input 2: SPIR-V: the module has no specialization");
    zc_program_free(&p);
}

/* Inputs that do not link: an import whose export has another shape, and names two inputs define. */
static void module_program_link_failures(void **state) {
    zc_sx *s = *state;
    zc_require(ZE_MODULE_PROGRAM_EXP_NAME);
    static const char *const mismatch[] = {"program_mismatch", "program_scale"};
    zc_program p;
    zc_program_load(&p, 2, mismatch);
    zc_expect_rejected(s, &p, ZE_RESULT_ERROR_MODULE_BUILD_FAILURE,
                       "input 0: import function 'program_scale' does not match input 1's export (parameter count)");
    zc_program_free(&p);
    static const char *const twice[] = {"program_scale", "program_scale"};
    zc_program_load(&p, 2, twice);
    zc_expect_rejected(s, &p, ZE_RESULT_ERROR_MODULE_BUILD_FAILURE,
                       "inputs 0 and 1 both define kernel 'program_scale_all'");
    zc_expect_rejected(s, &p, ZE_RESULT_ERROR_MODULE_BUILD_FAILURE,
                       "inputs 0 and 1 both export function 'program_scale'");
    zc_program_free(&p);
    static const char *const ambiguous[] = {"program_main", "program_scale", "program_offset", "program_scale"};
    zc_program_load(&p, 4, ambiguous);
    zc_expect_rejected(s, &p, ZE_RESULT_ERROR_MODULE_BUILD_FAILURE,
                       "input 0: ambiguous import function 'program_scale'");
    zc_program_free(&p);
}

/* ------------------------------------------------------------------------------------------------------------------
 * LinkOnceODR (ZE_extension_linkonce_odr, docs/modules.md "LinkOnceODR"). kernels/linkonce_a and linkonce_b define
 * linkonce_helper(x) (10 x + 1, 10 x + 2) and linkonce_value (100, 200) with linkage LinkOnceODR, linkonce_strong
 * exports them (10 x + 3, 300), linkonce_user imports them. Each kernel writes linkonce_helper(4) and linkonce_value,
 * which tell the definition it reached: 1 for linkonce_a, 2 for linkonce_b, 3 for linkonce_strong. Which definition a
 * link chooses is the fake's documented rule; on another driver any of the allowed ones passes. */

typedef struct zc_reached {
    int32_t helper, value;
} zc_reached;

static ze_module_handle_t zc_linkonce(zc_sx *s, const char *file) {
    return zc_module_create(s->x.context, s->x.device, file);
}

/* Runs kernel `name` of `module` (one work-item) and returns what it wrote. */
static zc_reached zc_linkonce_run(zc_sx *s, ze_module_handle_t module, const char *name) {
    int32_t *out = zc_spirv_buffer(s, 2 * sizeof *out);
    ze_kernel_handle_t kernel = zc_kernel_create(module, name);
    zc_assert_success(zeKernelSetArgumentValue(kernel, 0, sizeof out, &out));
    zc_assert_success(zeKernelSetGroupSize(kernel, 1, 1, 1));
    ze_group_count_t groups = {1, 1, 1};
    zc_assert_success(zeCommandListAppendLaunchKernel(s->list, kernel, &groups, NULL, 0, NULL));
    zc_assert_success(zeKernelDestroy(kernel));
    zc_reached reached = {out[0], out[1]};
    zc_free(&s->x, out);
    return reached;
}

/* `got` must show definition `fake` (1, 2 or 3) on the fake, one of `allowed` ("12", "13"...) on another driver. */
static void zc_expect_reached(zc_reached got, int fake, const char *allowed, const char *what) {
    bool ok = false;
    for (const char *d = allowed; *d != '\0' && !ok; d++) {
        int k = *d - '0';
        ok = (!zc_driver_is_fake() || k == fake) && got.helper == 40 + k && got.value == 100 * k;
    }
    if (!ok)
        zc_fail("%s: linkonce_helper(4) = %d and linkonce_value = %d; expected %d and %d (definition %d)", what,
                got.helper, got.value, 40 + fake, 100 * fake, fake);
}

static void zc_link_or_fail(uint32_t count, ze_module_handle_t *modules, const char *what) {
    ze_module_build_log_handle_t log = NULL;
    ze_result_t r = zeModuleDynamicLink(count, modules, &log);
    char *text = log != NULL ? zc_build_log_text(log) : NULL;
    if (r != ZE_RESULT_SUCCESS)
        zc_fail("zeModuleDynamicLink of %s: %s\n%s", what, zc_result_name(r), text != NULL ? text : "");
    free(text);
    if (log != NULL)
        zc_assert_success(zeModuleBuildLogDestroy(log));
}

/* The importer's global and function pointers are those of the definition it is bound to. */
static void zc_expect_bound_to(ze_module_handle_t importer, ze_module_handle_t definer) {
    void *ours = NULL, *theirs = NULL;
    zc_assert_success(zeModuleGetGlobalPointer(importer, "linkonce_value", NULL, &ours));
    zc_assert_success(zeModuleGetGlobalPointer(definer, "linkonce_value", NULL, &theirs));
    assert_ptr_equal(ours, theirs);
    zc_assert_success(zeModuleGetFunctionPointer(importer, "linkonce_helper", &ours));
    zc_assert_success(zeModuleGetFunctionPointer(definer, "linkonce_helper", &theirs));
    assert_ptr_equal(ours, theirs);
}

/* Two modules defining the same LinkOnceODR function and variable are no conflict: an importer linked with both is
 * bound to the first in link order, and each module's own kernel keeps calling its own definition. */
static void linkonce_odr_definitions_in_two_modules(void **state) {
    zc_sx *s = *state;
    zc_require(ZE_LINKONCE_ODR_EXT_NAME);
    ze_module_handle_t a = zc_linkonce(s, "linkonce_a"), b = zc_linkonce(s, "linkonce_b");
    ze_module_handle_t user = zc_linkonce(s, "linkonce_user");
    zc_expect_reached(zc_linkonce_run(s, a, "linkonce_a_kernel"), 1, "1", "linkonce_a before linking");
    ze_module_handle_t order[3] = {a, b, user};
    zc_link_or_fail(3, order, "linkonce_a, linkonce_b and linkonce_user");
    zc_reached got = zc_linkonce_run(s, user, "linkonce_user_kernel");
    zc_expect_reached(got, 1, "12", "linkonce_user linked after linkonce_a and linkonce_b");
    bool to_a = got.helper == 41;
    zc_expect_bound_to(user, to_a ? a : b);
    zc_expect_reached(zc_linkonce_run(s, a, "linkonce_a_kernel"), 1, "1", "linkonce_a's own call");
    zc_expect_reached(zc_linkonce_run(s, b, "linkonce_b_kernel"), 2, "2", "linkonce_b's own call");
    /* The importer shares the storage of the definition it is bound to. */
    int32_t *value = NULL;
    zc_assert_success(zeModuleGetGlobalPointer(user, "linkonce_value", NULL, (void **)&value));
    *value = 7;
    assert_int_equal(zc_linkonce_run(s, user, "linkonce_user_kernel").value, 7);
    got = zc_linkonce_run(s, to_a ? a : b, to_a ? "linkonce_a_kernel" : "linkonce_b_kernel");
    assert_int_equal(got.value, 7);
    /* The other order binds a new importer (imports are linked once) to the other definition. */
    ze_module_handle_t again = zc_linkonce(s, "linkonce_user");
    ze_module_handle_t reversed[3] = {b, a, again};
    zc_link_or_fail(3, reversed, "linkonce_b, linkonce_a and linkonce_user");
    zc_expect_reached(zc_linkonce_run(s, again, "linkonce_user_kernel"), 2, "12", "linkonce_user after linkonce_b");
    zc_assert_success(zeModuleDestroy(again));
    zc_assert_success(zeModuleDestroy(user));
    zc_assert_success(zeModuleDestroy(b));
    zc_assert_success(zeModuleDestroy(a));
}

/* A strong (Export) definition wins over LinkOnceODR ones wherever it is in the link order. */
static void linkonce_odr_export_preferred(void **state) {
    zc_sx *s = *state;
    zc_require(ZE_LINKONCE_ODR_EXT_NAME);
    ze_module_handle_t a = zc_linkonce(s, "linkonce_a"), strong = zc_linkonce(s, "linkonce_strong");
    ze_module_handle_t b = zc_linkonce(s, "linkonce_b"), user = zc_linkonce(s, "linkonce_user");
    ze_module_handle_t order[4] = {a, user, strong, b};
    zc_link_or_fail(4, order, "linkonce_a, linkonce_user, linkonce_strong and linkonce_b");
    zc_reached got = zc_linkonce_run(s, user, "linkonce_user_kernel");
    zc_expect_reached(got, 3, "123", "linkonce_user linked with an export and two LinkOnceODR definitions");
    if (zc_driver_is_fake())
        zc_expect_bound_to(user, strong);
    zc_expect_reached(zc_linkonce_run(s, a, "linkonce_a_kernel"), 1, "13", "linkonce_a's own call");
    zc_expect_reached(zc_linkonce_run(s, strong, "linkonce_strong_kernel"), 3, "3", "linkonce_strong's own call");
    zc_assert_success(zeModuleDestroy(user));
    zc_assert_success(zeModuleDestroy(b));
    zc_assert_success(zeModuleDestroy(strong));
    zc_assert_success(zeModuleDestroy(a));
}

static void zc_expect_link_failure(uint32_t count, ze_module_handle_t *modules, const char *const *lines) {
    ze_module_build_log_handle_t log = NULL;
    zc_assert_result(zeModuleDynamicLink(count, modules, &log), ZE_RESULT_ERROR_MODULE_LINK_FAILURE);
    char *text = zc_build_log_text(log);
    for (const char *const *line = lines; *line != NULL; line++)
        zc_log_has(text, *line);
    free(text);
    zc_assert_success(zeModuleBuildLogDestroy(log));
}

/* Definitions of one name of which one is LinkOnceODR must have the same type: linkonce_mismatch's have the same shape
 * as linkonce_a's (one parameter; 4 bytes; 16 bytes for the recursive struct of linkonce_list) but other types. The
 * link fails, naming both, and binds nothing. Breaking the one-definition rule is undefined for the specification,
 * so this is the fake's rule only. */
static void linkonce_odr_type_mismatch_refused(void **state) {
    zc_sx *s = *state;
    zc_require(ZE_LINKONCE_ODR_EXT_NAME);
    zc_skip_unless_fake();
    ze_module_handle_t a = zc_linkonce(s, "linkonce_a"), other = zc_linkonce(s, "linkonce_mismatch");
    ze_module_handle_t strong = zc_linkonce(s, "linkonce_strong"), user = zc_linkonce(s, "linkonce_user");
    ze_module_handle_t two[2] = {a, other};
    const char *const both[] = {"module 0 and module 1 define function 'linkonce_helper' with different types: "
                                "LinkOnceODR i32(i32) and LinkOnceODR i64(i64)",
                                "module 0 and module 1 define variable 'linkonce_value' with different types: "
                                "LinkOnceODR global i32 and LinkOnceODR global f32",
                                "module 0 and module 1 define variable 'linkonce_list' with different types: "
                                "LinkOnceODR global struct node and LinkOnceODR global struct node",
                                NULL};
    zc_expect_link_failure(2, two, both);
    ze_module_handle_t three[3] = {user, strong, other};
    const char *const with_export[] = {"module 1 and module 2 define function 'linkonce_helper' with different types: "
                                       "Export i32(i32) and LinkOnceODR i64(i64)",
                                       NULL};
    zc_expect_link_failure(3, three, with_export);
    ze_module_properties_t props = {ZE_STRUCTURE_TYPE_MODULE_PROPERTIES, NULL, 0};
    zc_assert_success(zeModuleGetProperties(user, &props));
    assert_int_equal(props.flags & ZE_MODULE_PROPERTY_FLAG_IMPORTS, ZE_MODULE_PROPERTY_FLAG_IMPORTS);
    /* Without the mismatching module the same importer links. */
    ze_module_handle_t good[3] = {user, a, strong};
    zc_link_or_fail(3, good, "linkonce_user, linkonce_a and linkonce_strong");
    zc_expect_reached(zc_linkonce_run(s, user, "linkonce_user_kernel"), 3, "3", "linkonce_user");
    zc_assert_success(zeModuleDestroy(user));
    zc_assert_success(zeModuleDestroy(strong));
    zc_assert_success(zeModuleDestroy(other));
    zc_assert_success(zeModuleDestroy(a));
}

/* The inputs of one module follow the same rules, in input order. */
static void linkonce_odr_module_program(void **state) {
    zc_sx *s = *state;
    zc_require(ZE_LINKONCE_ODR_EXT_NAME);
    zc_require(ZE_MODULE_PROGRAM_EXP_NAME);
    static const char *const twice[] = {"linkonce_b", "linkonce_user", "linkonce_a"};
    zc_program p;
    zc_program_load(&p, 3, twice);
    ze_module_handle_t module = zc_program_module(s, &p);
    zc_expect_reached(zc_linkonce_run(s, module, "linkonce_user_kernel"), 2, "12", "the inputs b, user, a");
    zc_expect_reached(zc_linkonce_run(s, module, "linkonce_a_kernel"), 1, "1", "input 2's own call");
    zc_expect_reached(zc_linkonce_run(s, module, "linkonce_b_kernel"), 2, "2", "input 0's own call");
    int32_t *value = NULL;
    zc_assert_success(zeModuleGetGlobalPointer(module, "linkonce_value", NULL, (void **)&value));
    if (zc_driver_is_fake())
        assert_int_equal(*value, 200);
    zc_assert_success(zeModuleDestroy(module));
    zc_program_free(&p);
    static const char *const strong[] = {"linkonce_a", "linkonce_user", "linkonce_strong"};
    zc_program_load(&p, 3, strong);
    module = zc_program_module(s, &p);
    zc_expect_reached(zc_linkonce_run(s, module, "linkonce_user_kernel"), 3, "13", "the inputs a, user, strong");
    zc_assert_success(zeModuleGetGlobalPointer(module, "linkonce_value", NULL, (void **)&value));
    if (zc_driver_is_fake())
        assert_int_equal(*value, 300);
    zc_assert_success(zeModuleDestroy(module));
    zc_program_free(&p);
    if (zc_driver_is_fake()) { /* the one-definition rule, as across modules */
        static const char *const mismatch[] = {"linkonce_a", "linkonce_mismatch"};
        zc_program_load(&p, 2, mismatch);
        zc_expect_rejected(s, &p, ZE_RESULT_ERROR_MODULE_BUILD_FAILURE,
                           "input 0 and input 1 define function 'linkonce_helper' with different types: "
                           "LinkOnceODR i32(i32) and LinkOnceODR i64(i64)");
        zc_program_free(&p);
    }
}

/* zeModuleInspectLinkageExt lists LinkOnceODR definitions as exports; they resolve imports. */
static void linkonce_odr_linkage_inspection(void **state) {
    zc_sx *s = *state;
    zc_require(ZE_LINKONCE_ODR_EXT_NAME);
    zc_require(ZE_LINKAGE_INSPECTION_EXT_NAME);
    ze_module_handle_t modules[2] = {zc_linkonce(s, "linkonce_user"), zc_linkonce(s, "linkonce_a")};
    ze_linkage_inspection_ext_desc_t desc = {ZE_STRUCTURE_TYPE_LINKAGE_INSPECTION_EXT_DESC, NULL,
                                             ZE_LINKAGE_INSPECTION_EXT_FLAG_IMPORTS |
                                                 ZE_LINKAGE_INSPECTION_EXT_FLAG_UNRESOLVABLE_IMPORTS |
                                                 ZE_LINKAGE_INSPECTION_EXT_FLAG_EXPORTS};
    for (uint32_t n = 1; n <= 2; n++) {
        ze_module_build_log_handle_t log = NULL;
        zc_assert_success(zeModuleInspectLinkageExt(&desc, n, modules, &log));
        char *text = zc_build_log_text(log);
        const char *unresolvable = strstr(text, "Unresolvable Import Symbol Names:\n");
        const char *exports = strstr(text, "Export Symbol Names:\n");
        if (unresolvable == NULL || exports == NULL)
            zc_fail("the linkage log lacks a section:\n%s", text);
        const char *helper = strstr(unresolvable, "\tlinkonce_helper\n");
        const char *value = strstr(unresolvable, "\tlinkonce_value\n");
        /* The importer alone cannot resolve its imports; with linkonce_a it can. */
        bool listed = helper != NULL && helper < exports && value != NULL && value < exports;
        if (listed != (n == 1))
            zc_fail("with %u module(s), the imports are%s listed as unresolvable:\n%s", n, listed ? "" : " not", text);
        if (n == 2 && (strstr(exports, "\tlinkonce_helper\n") == NULL || strstr(exports, "\tlinkonce_value\n") == NULL))
            zc_fail("linkonce_a's LinkOnceODR definitions are not listed as exports:\n%s", text);
        free(text);
        zc_assert_success(zeModuleBuildLogDestroy(log));
    }
    zc_assert_success(zeModuleDestroy(modules[1]));
    zc_assert_success(zeModuleDestroy(modules[0]));
}

int main(int argc, char **argv) {
    static const struct CMUnitTest tests[] = {
#define ZC_FIXTURE spirv
        ZC_T(module_program_links_three_inputs), ZC_T(module_program_constants_per_input),
        ZC_T(module_program_flags_per_input),    ZC_T(module_program_unknown_structures_ignored),
        ZC_T(module_program_native_binary),      ZC_T(module_program_unresolved_then_dynamic_link),
        ZC_T(module_program_linkage_inspection), ZC_T(module_program_debug_info),
        ZC_T(module_program_bad_descriptor),     ZC_T(module_program_bad_input_named),
        ZC_T(module_program_link_failures),      ZC_T(linkonce_odr_definitions_in_two_modules),
        ZC_T(linkonce_odr_export_preferred),     ZC_T(linkonce_odr_type_mismatch_refused),
        ZC_T(linkonce_odr_module_program),       ZC_T(linkonce_odr_linkage_inspection),
#undef ZC_FIXTURE
    };
    static const zc_suite suite = {ZC_EXECUTABLE, tests, ZC_COUNT(tests), zc_setup_system, zc_teardown_system, NULL, 0};
    return zc_main(argc, argv, &suite);
}
