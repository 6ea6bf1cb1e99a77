/* Building one program of a module: the build log object, the build options, and the steps from one input (SPIR-V
 * or a native binary) to a program: read, version check, specialization (the application's constants and the ITT
 * annotations default), kernel checks and the decoded form. docs/modules.md documents the options, specialization
 * constants and logs; module.c assembles the programs into a module. */

#include "core/zf_bytes.h"
#include "core/zf_core.h"
#include "driver/zf_driver.h"
#include "module/module_internal.h"
#include "module/zf_module.h"
#include "scenario/scenario_number.h"

#include <elf.h>
#include <level_zero/zet_api.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ZEFAKE_CACHE_MAX_SIZE (docs/environment.md): a size above 0, written as a scenario writes sizes; another value is
 * reported and the default kept. Read once per process, before its first kernel can be compiled. */
static void zf_cache_limit_from_env(void) {
    const char *text = getenv("ZEFAKE_CACHE_MAX_SIZE");
    uint64_t bytes = 0;
    if (text == NULL || text[0] == '\0')
        return;
    if (zf_number_parse(text, strlen(text), true, &bytes) == ZF_NUMBER_OK && bytes > 0) {
        zf_spirv_set_cache_limit(bytes);
        return;
    }
    zf_log(ZF_LOG_WARN,
           "ZEFAKE_CACHE_MAX_SIZE=%.64s is not a size above 0 (an integer of bytes, optionally followed by KiB, MiB, "
           "GiB or TiB): the compiled-code cache keeps under %llu MiB",
           text, (unsigned long long)(ZF_SPIRV_CACHE_DEFAULT_LIMIT >> 20));
}

/* SpecId of the ITT annotations constant (docs/spirv-execution.md, "Annotations"): 1 by default when the environment
 * has INTEL_ENABLE_OFFLOAD_ANNOTATIONS and the application did not set it. */
#define ZF_ITT_SPEC_ID  0xFF747469u
#define ZF_ITT_ENV      "INTEL_ENABLE_OFFLOAD_ANNOTATIONS"
#define ZF_GLOBAL_ALIGN 64u
/* Module globals live in host memory: more than this per module is refused like a device out of memory. */
#define ZF_MAX_GLOBALS_BYTES (1ull << 30)

/* ------------------------------------------------------------------------------------------------------------------
 * Build logs */

typedef struct zf_build_log {
    zf_object header;
    char *text;
} zf_build_log;

ze_result_t zf_build_log_create(const char *text, ze_module_build_log_handle_t *out) {
    zf_build_log *log = calloc(1, sizeof *log);
    if (log == NULL || (log->text = strdup(text)) == NULL) {
        free(log);
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory for a build log");
    }
    /* A log outlives its module (zeModuleBuildLogDestroy may come after zeModuleDestroy): it has no owner. */
    if (!zf_object_register(&log->header, ZF_OBJ_ZE_MODULE_BUILD_LOG, NULL)) {
        free(log->text);
        free(log);
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory to register a build log");
    }
    *out = (ze_module_build_log_handle_t)log;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zeModuleBuildLogDestroy(ze_module_build_log_handle_t hModuleBuildLog) {
    zf_build_log *log = (zf_build_log *)hModuleBuildLog;
    zf_object_unregister(&log->header);
    free(log->text);
    log->text = NULL;
    zf_object_retire(&log->header);
    return ZE_RESULT_SUCCESS;
}

/* Size-query semantics shared with the kernel name: a NULL buffer or a zero size asks for the size (with the NUL);
 * otherwise at most *pSize bytes are written, always NUL-terminated, and *pSize becomes the number written. */
static void zf_copy_text_out(const char *text, size_t *pSize, char *buffer) {
    size_t needed = strlen(text) + 1;
    if (buffer == NULL || *pSize == 0) {
        *pSize = needed;
        return;
    }
    size_t n = *pSize < needed ? *pSize : needed;
    memcpy(buffer, text, n - 1);
    buffer[n - 1] = '\0';
    *pSize = n;
}

ze_result_t zfi_zeModuleBuildLogGetString(ze_module_build_log_handle_t hModuleBuildLog, size_t *pSize,
                                          char *pBuildLog) {
    zf_copy_text_out(((zf_build_log *)hModuleBuildLog)->text, pSize, pBuildLog);
    return ZE_RESULT_SUCCESS;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Build options */

static bool zf_known_option(const char *token) {
    static const char *const known[] = {"-ze-opt-disable", "-ze-opt-greater-than-4GB-buffer-required",
                                        "-ze-opt-large-register-file", "-ze-opt-has-buffer-offset-arg", "-g"};
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        if (strcmp(token, known[i]) == 0)
            return true;
    }
    return strncmp(token, "-ze-opt-level=", 14) == 0;
}

static bool zf_parse_hex(const char *text, uint32_t *value) {
    if (text[0] == '0' && (text[1] == 'x' || text[1] == 'X'))
        text += 2;
    if (*text == '\0' || strlen(text) > 8)
        return false;
    uint32_t v = 0;
    for (; *text; text++) {
        char c = *text;
        int digit = c >= '0' && c <= '9'   ? c - '0'
                    : c >= 'a' && c <= 'f' ? c - 'a' + 10
                    : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                           : -1;
        if (digit < 0)
            return false;
        v = v * 16 + (uint32_t)digit;
    }
    *value = v;
    return true;
}

/* Options are separated by blanks. Unknown options are accepted, as drivers do, and noted in the log. */
static ze_result_t zf_parse_options(const char *text, zf_options *options, zf_spirv_log *log) {
    char *copy = strdup(text);
    if (copy == NULL)
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory for the build options");
    ze_result_t result = ZE_RESULT_SUCCESS;
    char *saveptr = NULL;
    for (char *token = strtok_r(copy, " \t\n", &saveptr); token != NULL && result == ZE_RESULT_SUCCESS;
         token = strtok_r(NULL, " \t\n", &saveptr)) {
        if (strcmp(token, "-zet-profile-flags") == 0) {
            char *value = strtok_r(NULL, " \t\n", &saveptr);
            if (value == NULL || !zf_parse_hex(value, &options->profile_flags)) {
                zf_spirv_log_printf(log, "build options: -zet-profile-flags needs a hexadecimal value, got '%s'",
                                    value ? value : "");
                result = zf_fail(ZE_RESULT_ERROR_MODULE_BUILD_FAILURE, "bad -zet-profile-flags value");
            }
            options->has_profile_flags = true;
        } else if (strcmp(token, "-ze-opt-level") == 0) {
            strtok_r(NULL, " \t\n", &saveptr); /* its level */
        } else if (!zf_known_option(token)) {
            zf_log(ZF_LOG_INFO, "zeModuleCreate: build option '%s' is not known to zefake; ignored", token);
            zf_spirv_log_printf(log, "note: build option '%s' is not known to zefake; ignored", token);
        }
    }
    free(copy);
    return result;
}

/* ------------------------------------------------------------------------------------------------------------------
 * The parts of a program that follow from its SPIR-V: identity, globals, imports, relocations */

static void zf_program_uuid(zf_program *program) {
    size_t count;
    const uint32_t *words = zf_spirv_words(program->spirv, &count);
    uint64_t a = zf_fnv1a(words, count * 4, 0xcbf29ce484222325ull);
    uint64_t b = zf_fnv1a(words, count * 4, a ^ 0x9e3779b97f4a7c15ull);
    memcpy(program->uuid, &a, 8);
    memcpy(program->uuid + 8, &b, 8);
}

/* The address of a global the program defines, by SPIR-V id, for initializers pointing at it; 0 for other ids. */
static uint64_t zf_defined_global_address(void *user, uint32_t id) {
    const zf_program *program = user;
    for (uint32_t i = 0; i < zf_spirv_global_count(program->spirv); i++)
        if (zf_spirv_global_at(program->spirv, i)->id == id && program->global_offsets[i] != SIZE_MAX)
            return (uint64_t)(uintptr_t)(program->globals + program->global_offsets[i]);
    return 0;
}

/* Lays out and initializes the storage of every global the module defines (imported ones live in their exporter). */
static ze_result_t zf_program_globals(zf_program *program, zf_spirv_log *log) {
    const zf_spirv_module *spirv = program->spirv;
    uint32_t n = zf_spirv_global_count(spirv);
    program->global_offsets = calloc(n ? n : 1, sizeof *program->global_offsets);
    if (program->global_offsets == NULL)
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory for the module's globals");
    uint64_t total = 0;
    for (uint32_t i = 0; i < n; i++) {
        const zf_spirv_global *g = zf_spirv_global_at(spirv, i);
        if (g->linkage == ZF_SPIRV_LINK_IMPORT) {
            program->global_offsets[i] = SIZE_MAX;
            continue;
        }
        uint32_t align = g->align > ZF_GLOBAL_ALIGN ? g->align : ZF_GLOBAL_ALIGN;
        total = (total + align - 1) / align * align;
        program->global_offsets[i] = (size_t)total;
        total += g->size;
    }
    if (total > program->device->properties.maxMemAllocSize || total > ZF_MAX_GLOBALS_BYTES) {
        zf_spirv_log_printf(log, "the module's globals need %llu bytes; the limit is %llu (docs/modules.md)",
                            (unsigned long long)total, ZF_MAX_GLOBALS_BYTES);
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY, "the module's globals need %llu bytes",
                       (unsigned long long)total);
    }
    program->globals_size = (size_t)total;
    if (total == 0)
        return ZE_RESULT_SUCCESS;
    /* calloc, aligned by hand: a large block comes zeroed from the system without being touched page by page. */
    size_t size = (size_t)total + ZF_GLOBAL_ALIGN;
    program->globals_block = calloc(1, size);
    if (program->globals_block == NULL)
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY, "no memory for %zu bytes of module globals", size);
    program->globals =
        (uint8_t *)(((uintptr_t)program->globals_block + ZF_GLOBAL_ALIGN - 1) & ~(uintptr_t)(ZF_GLOBAL_ALIGN - 1));
    for (uint32_t i = 0; i < n; i++) {
        const zf_spirv_global *g = zf_spirv_global_at(spirv, i);
        if (program->global_offsets[i] == SIZE_MAX)
            continue;
        if (zf_spirv_global_init(spirv, g, program->globals + program->global_offsets[i], zf_defined_global_address,
                                 program, log) != ZF_SPIRV_OK)
            return zf_fail(ZE_RESULT_ERROR_MODULE_BUILD_FAILURE, "global '%s' cannot be initialized",
                           g->name ? g->name : "?");
    }
    return ZE_RESULT_SUCCESS;
}

/* The ITT wrappers (docs/spirv-execution.md, "Annotations") are provided by the device, not by another module: never
 * imports to link. */
static bool zf_device_provided(const zf_spirv_symbol *symbol) {
    return symbol->is_function && strncmp(symbol->name, "__itt_offload_", 14) == 0;
}

static ze_result_t zf_program_imports(zf_program *program) {
    const zf_spirv_module *spirv = program->spirv;
    uint32_t count = 0;
    for (uint32_t i = 0; i < zf_spirv_symbol_count(spirv); i++)
        count += zf_spirv_symbol_at(spirv, i)->linkage == ZF_SPIRV_LINK_IMPORT;
    program->imports = calloc(count ? count : 1, sizeof *program->imports);
    if (program->imports == NULL)
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory for the module's symbols");
    for (uint32_t i = 0; i < zf_spirv_symbol_count(spirv); i++) {
        const zf_spirv_symbol *symbol = zf_spirv_symbol_at(spirv, i);
        if (symbol->linkage == ZF_SPIRV_LINK_IMPORT && !zf_device_provided(symbol))
            program->imports[program->num_imports++].symbol = symbol;
    }
    return ZE_RESULT_SUCCESS;
}

/* The decoded function of a SPIR-V function id (the form keeps the reader's function order). */
uint32_t zf_function_of_id(const zf_program *program, uint32_t id) {
    for (uint32_t f = 0; f < program->code->num_funcs; f++)
        if (program->code->funcs[f].spirv_id == id)
            return f;
    return UINT32_MAX;
}

/* Resolves the addresses the form's relocations name. */
void zf_program_relocate(zf_program *program) {
    const zf_dprog *code = program->code;
    for (uint32_t i = 0; i < code->num_relocs; i++) {
        const zf_dreloc *r = &code->relocs[i];
        uint64_t value = 0;
        if (r->kind == ZF_RELOC_GLOBAL) {
            value = zf_global_address(program, r->index);
        } else if (r->kind == ZF_RELOC_FUNCTION && r->index < program->num_function_slots) {
            value = (uint64_t)(uintptr_t)&program->function_slots[r->index];
        } else if (r->kind == ZF_RELOC_IMPORT && r->index < zf_spirv_symbol_count(program->spirv)) {
            const zf_spirv_symbol *symbol = zf_spirv_symbol_at(program->spirv, r->index);
            for (uint32_t k = 0; k < program->num_imports; k++) {
                const zf_import *import = &program->imports[k];
                if (import->symbol != symbol || import->provider == NULL)
                    continue;
                const zf_spirv_symbol *export = zf_spirv_symbol_at(import->provider->spirv, import->provider_symbol);
                uint32_t f = zf_function_of_id(import->provider, export->id);
                if (f != UINT32_MAX)
                    value = (uint64_t)(uintptr_t)&import->provider->function_slots[f];
            }
        }
        program->relocs[i] = value;
    }
}

/* ------------------------------------------------------------------------------------------------------------------
 * zeModuleCreate */

static ze_result_t zf_reader_result(zf_spirv_status status, const zf_spirv_log *log) {
    const char *text = zf_spirv_log_text(log);
    switch (status) {
    case ZF_SPIRV_OK:
        return ZE_RESULT_SUCCESS;
    case ZF_SPIRV_NO_MEMORY:
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "%s", text);
    case ZF_SPIRV_UNKNOWN_SPEC_ID:
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "%s", text);
    default:
        return zf_fail(ZE_RESULT_ERROR_MODULE_BUILD_FAILURE, "%s", text);
    }
}

ze_result_t zf_build_input(zf_build *b) {
    const zf_module_input *input = b->input;
    const char *flags = input->flags;
    if (input->format == ZE_MODULE_FORMAT_NATIVE) {
        ze_result_t r = zf_native_parse(input->data, input->size, b->device, &b->native, &b->log);
        if (r == ZE_RESULT_SUCCESS && b->native.num_programs > 0)
            r = zf_native_reject(&b->log, "a program section holds a binary of several programs");
        if (r != ZE_RESULT_SUCCESS)
            return r;
        b->spirv = b->native.spirv;
        b->spirv_size = b->native.spirv_size;
        /* The options the binary was built with come first; the caller's may add to them. */
        size_t size = strlen(b->native.options) + strlen(flags) + 2;
        if ((b->options = malloc(size)) != NULL)
            snprintf(b->options, size, "%s%s%s", b->native.options, *b->native.options && *flags ? " " : "", flags);
    } else {
        b->spirv = input->data;
        b->spirv_size = input->size;
        b->options = strdup(flags);
    }
    if (b->options == NULL)
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory for the build options");
    return zf_parse_options(b->options, &b->parsed, &b->log);
}

static ze_result_t zf_check_version(zf_build *b) {
    uint32_t version = zf_spirv_version(b->program->spirv);
    uint32_t major = (version >> 16) & 0xFFu, minor = (version >> 8) & 0xFFu;
    uint32_t supported = b->device->desc->module.spirv_version;
    if (ZE_MAKE_VERSION(major, minor) <= supported)
        return ZE_RESULT_SUCCESS;
    zf_spirv_log_printf(&b->log, "SPIR-V %u.%u module: the device supports SPIR-V up to %u.%u", major, minor,
                        ZE_MAJOR_VERSION(supported), ZE_MINOR_VERSION(supported));
    return zf_fail(ZE_RESULT_ERROR_MODULE_BUILD_FAILURE, "SPIR-V %u.%u is newer than the device supports", major,
                   minor);
}

static ze_result_t zf_apply_constants(zf_build *b) {
    const ze_module_constants_t *constants = b->input->constants;
    if (constants == NULL || constants->numConstants == 0)
        return ZE_RESULT_SUCCESS;
    if (b->input->format == ZE_MODULE_FORMAT_NATIVE) {
        /* The spec: constants are valid only for SPIR-V input; a native binary's were applied when it was built. */
        zf_spirv_log_printf(&b->log, "note: specialization constants are ignored for a native binary");
        return ZE_RESULT_SUCCESS;
    }
    if (constants->pConstantIds == NULL || constants->pConstantValues == NULL)
        return zf_fail(ZE_RESULT_ERROR_INVALID_NULL_POINTER, "desc->pConstants has %u constants and a NULL array",
                       constants->numConstants);
    for (uint32_t i = 0; i < constants->numConstants; i++) {
        if (constants->pConstantValues[i] == NULL)
            return zf_fail(ZE_RESULT_ERROR_INVALID_NULL_POINTER, "desc->pConstants->pConstantValues[%u] is NULL", i);
        zf_spirv_status s = zf_spirv_set_spec_constant(b->program->spirv, constants->pConstantIds[i],
                                                       constants->pConstantValues[i], &b->log);
        if (s != ZF_SPIRV_OK)
            return zf_reader_result(s, &b->log);
    }
    return ZE_RESULT_SUCCESS;
}

static void zf_apply_itt_default(zf_build *b) {
    if (b->input->format != ZE_MODULE_FORMAT_IL_SPIRV || getenv(ZF_ITT_ENV) == NULL)
        return;
    const zf_spirv_spec_constant *itt = zf_spirv_find_spec_constant(b->program->spirv, ZF_ITT_SPEC_ID);
    if (itt == NULL || itt->set)
        return;
    uint64_t one = 1;
    zf_spirv_set_spec_constant(b->program->spirv, ZF_ITT_SPEC_ID, &one, &b->log);
    zf_spirv_log_printf(&b->log, "note: specialization constant 0x%x (ITT annotations) set to 1 because %s is set",
                        ZF_ITT_SPEC_ID, ZF_ITT_ENV);
}

/* A compiler would refuse kernels whose explicit arguments exceed what the device can pass. */
static ze_result_t zf_check_kernels(zf_build *b) {
    const zf_spirv_module *spirv = b->program->spirv;
    uint32_t limit = b->device->desc->module.max_arguments_size_bytes;
    for (uint32_t i = 0; i < zf_spirv_kernel_count(spirv); i++) {
        const zf_spirv_kernel *k = zf_spirv_kernel_at(spirv, i);
        uint64_t total = 0;
        for (uint32_t a = 0; a < k->num_args; a++)
            total += k->args[a].size;
        if (total > limit) {
            zf_spirv_log_printf(&b->log, "kernel '%s': its arguments take %llu bytes; the device allows %u", k->name,
                                (unsigned long long)total, limit);
            return zf_fail(ZE_RESULT_ERROR_MODULE_BUILD_FAILURE, "kernel '%s' has too many argument bytes", k->name);
        }
    }
    return ZE_RESULT_SUCCESS;
}

/* Whether calls of the ITT wrappers deliver annotations: the value of SpecId 0xFF747469 after specialization, or,
 * when the module does not declare it, whether INTEL_ENABLE_OFFLOAD_ANNOTATIONS is set. */
static bool zf_itt_enabled(const zf_spirv_module *spirv) {
    const zf_spirv_spec_constant *itt = zf_spirv_find_spec_constant(spirv, ZF_ITT_SPEC_ID);
    if (itt != NULL)
        return itt->value != 0;
    return getenv(ZF_ITT_ENV) != NULL;
}

/* The decoded form: from the native binary when it carries one (a tool may have instrumented it: it is validated and
 * must fit the module's kernels), else decoded from the specialized SPIR-V. */
static ze_result_t zf_build_code(zf_build *b) {
    zf_program *program = b->program;
    if (b->input->format == ZE_MODULE_FORMAT_NATIVE && b->native.decoded != NULL) {
        char why[256];
        program->code = zf_form_load(b->native.decoded, b->native.decoded_size, why, sizeof why);
        if (program->code == NULL || !zf_spirv_form_matches(program->spirv, program->code, why, sizeof why))
            return zf_native_reject(&b->log, why);
        return ZE_RESULT_SUCCESS;
    }
    zf_decode_options options = {.itt_enabled = zf_itt_enabled(program->spirv)};
    zf_spirv_status s = zf_spirv_decode(program->spirv, &options, &program->code, &b->log);
    return s == ZF_SPIRV_OK ? ZE_RESULT_SUCCESS : zf_reader_result(s, &b->log);
}

/* Function slots (the function pointers handed out) and the resolved relocations of the form. */
static ze_result_t zf_program_functions(zf_program *program) {
    uint32_t n = program->code->num_funcs;
    program->function_slots = calloc(n ? n : 1, 1);
    program->relocs = calloc(program->code->num_relocs ? program->code->num_relocs : 1, sizeof *program->relocs);
    if (program->function_slots == NULL || program->relocs == NULL)
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory for the module's functions");
    program->num_function_slots = n;
    zf_program_relocate(program);
    if (!zf_registry_add(program))
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory to register the module");
    program->registered = true;
    return ZE_RESULT_SUCCESS;
}

/* docs/tolerances.md: llvm-spirv-14's SPIR-V 1.4 entry points that omit a UniformConstant variable they use. */
static void zf_tolerate_unlisted_interface(zf_build *b, uint32_t unlisted) {
    zf_spirv_log_printf(&b->log,
                        "warning: %u UniformConstant variable(s) used by an entry point are not listed in its "
                        "OpEntryPoint interface (SPIR-V 1.4 requires it); accepted as Intel's compiler does",
                        unlisted);
    zf_tolerate("SPIR-V 1.4: an OpEntryPoint lists every module-scope variable its call tree uses",
                "accepted the UniformConstant variables left out of the interface");
}

ze_result_t zf_build_program(zf_build *b) {
    b->program = calloc(1, sizeof *b->program);
    if (b->program == NULL)
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory for a module");
    atomic_init(&b->program->refs, 1);
    b->program->context = b->context;
    b->program->device = b->device;
    zf_spirv_status s = zf_spirv_read(b->spirv, b->spirv_size, &b->program->spirv, &b->log);
    uint32_t unlisted = 0;
    if (s == ZF_SPIRV_OK)
        s = zf_spirv_validate(b->program->spirv, zf_strict() ? NULL : &unlisted, &b->log);
    if (s == ZF_SPIRV_OK && unlisted > 0)
        zf_tolerate_unlisted_interface(b, unlisted);
    if (s != ZF_SPIRV_OK) {
        ze_result_t r = zf_reader_result(s, &b->log);
        /* A native binary whose checksum matched but whose SPIR-V does not read was not made by this driver. */
        return b->input->format == ZE_MODULE_FORMAT_NATIVE && r == ZE_RESULT_ERROR_MODULE_BUILD_FAILURE
                   ? ZE_RESULT_ERROR_INVALID_NATIVE_BINARY
                   : r;
    }
    ze_result_t r = zf_check_version(b);
    if (r == ZE_RESULT_SUCCESS)
        r = zf_apply_constants(b);
    if (r != ZE_RESULT_SUCCESS)
        return r;
    zf_apply_itt_default(b);
    if ((s = zf_spirv_finish(b->program->spirv, &b->log)) != ZF_SPIRV_OK)
        return zf_reader_result(s, &b->log);
    if ((r = zf_check_kernels(b)) == ZE_RESULT_SUCCESS &&
        (r = zf_program_globals(b->program, &b->log)) == ZE_RESULT_SUCCESS &&
        (r = zf_program_imports(b->program)) == ZE_RESULT_SUCCESS && (r = zf_build_code(b)) == ZE_RESULT_SUCCESS)
        r = zf_program_functions(b->program);
    zf_program_uuid(b->program);
    if (r == ZE_RESULT_SUCCESS) {
        static pthread_once_t limit_once = PTHREAD_ONCE_INIT;
        pthread_once(&limit_once, zf_cache_limit_from_env);
        zf_spirv_prepare(b->program->code);
    }
    return r;
}
