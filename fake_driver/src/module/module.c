/* Modules: one or several programs (each built by module_build.c from SPIR-V or a native binary), made by
 * zeModuleCreate, linked with each other (module_link.c), destroyed and queried for their kernels; and the registry
 * of live programs that resolves function pointers. docs/modules.md documents the formats, build options,
 * specialization constants and logs. */
#include "core/zf_core.h"
#include "driver/zf_driver.h"
#include "module/module_internal.h"
#include "module/zf_module.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every live program, so that a function pointer (an address in some program's function slots) can be resolved
 * when a kernel calls through it. */
static pthread_mutex_t zf_registry_lock = PTHREAD_MUTEX_INITIALIZER;
static zf_program **zf_registry;
static size_t zf_registry_count, zf_registry_capacity;

/* ------------------------------------------------------------------------------------------------------------------
 * Programs */

void zf_program_retain(zf_program *program) {
    atomic_fetch_add_explicit(&program->refs, 1, memory_order_relaxed);
}

bool zf_registry_add(zf_program *program) {
    pthread_mutex_lock(&zf_registry_lock);
    if (zf_registry_count == zf_registry_capacity) {
        size_t capacity = zf_registry_capacity ? zf_registry_capacity * 2 : 16;
        zf_program **grown = realloc(zf_registry, capacity * sizeof *grown);
        if (grown == NULL) {
            pthread_mutex_unlock(&zf_registry_lock);
            return false;
        }
        zf_registry = grown;
        zf_registry_capacity = capacity;
    }
    zf_registry[zf_registry_count++] = program;
    pthread_mutex_unlock(&zf_registry_lock);
    return true;
}

static void zf_registry_remove(zf_program *program) {
    pthread_mutex_lock(&zf_registry_lock);
    for (size_t i = 0; i < zf_registry_count; i++) {
        if (zf_registry[i] == program) {
            zf_registry[i] = zf_registry[--zf_registry_count];
            break;
        }
    }
    pthread_mutex_unlock(&zf_registry_lock);
}

bool zf_program_find_function(uint64_t address, zf_program **out, uint32_t *function) {
    bool found = false;
    pthread_mutex_lock(&zf_registry_lock);
    for (size_t i = 0; i < zf_registry_count && !found; i++) {
        zf_program *p = zf_registry[i];
        uint64_t base = (uint64_t)(uintptr_t)p->function_slots;
        if (address < base || address - base >= p->num_function_slots)
            continue;
        /* A program whose last reference is going away is not handed out again. */
        unsigned refs = atomic_load(&p->refs);
        while (refs > 0 && !atomic_compare_exchange_weak(&p->refs, &refs, refs + 1))
            ;
        if (refs > 0) {
            *out = p;
            *function = (uint32_t)(address - base);
            found = true;
        }
    }
    pthread_mutex_unlock(&zf_registry_lock);
    return found;
}

void zf_program_executable(const zf_program *program, zf_xprogram *out) {
    out->code = program->code;
    out->relocs = program->relocs;
    out->owner = program;
    out->globals = program->globals;
    out->globals_size = program->globals_size;
}

void zf_program_release(zf_program *program) {
    if (program == NULL || atomic_fetch_sub_explicit(&program->refs, 1, memory_order_acq_rel) != 1)
        return;
    if (program->registered)
        zf_registry_remove(program);
    for (uint32_t i = 0; i < program->num_imports; i++)
        zf_program_release(program->imports[i].provider);
    free(program->imports);
    zf_dprog_free(program->code);
    free(program->relocs);
    free(program->globals_block);
    free(program->global_offsets);
    free(program->function_slots);
    zf_spirv_free(program->spirv);
    free(program);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Modules of one or several programs */

/* The programs and options of a module being assembled, one per input. */
typedef struct zf_assembly {
    zf_context *context;
    zf_device *device;
    uint32_t count;
    bool labelled; /* a module program (or its native binary): log lines name the input */
    zf_program **programs;
    char **options;
    zf_options parsed; /* -zet-profile-flags of the last input that has it */
    zf_spirv_log *log;
} zf_assembly;

/* Copies the lines of one input's log into the module's, prefixed with the input when the module has several. */
static void zf_log_merge(zf_spirv_log *to, const zf_spirv_log *from, bool labelled, uint32_t input) {
    const char *text = zf_spirv_log_text(from);
    while (*text != '\0') {
        const char *end = strchr(text, '\n');
        int length = (int)(end != NULL ? (size_t)(end - text) : strlen(text));
        if (labelled)
            zf_spirv_log_printf(to, "input %u: %.*s", input, length, text);
        else
            zf_spirv_log_printf(to, "%.*s", length, text);
        text += length + (end != NULL);
    }
    if (from->truncated)
        to->truncated = true;
}

/* The diagnostic of an input that does not build: its number and the first line of its log. */
static void zf_input_failed(ze_result_t result, uint32_t i, const zf_spirv_log *log) {
    const char *text = zf_spirv_log_text(log), *end = strchr(text, '\n');
    int length = (int)(end != NULL ? (size_t)(end - text) : strlen(text));
    zf_fail(result, "input %u of the module does not build: %.*s", i, length, text);
}

static ze_result_t zf_assemble_input(zf_assembly *a, const zf_module_input *input, uint32_t i) {
    zf_build b = {.context = a->context, .device = a->device, .input = input};
    ze_result_t r = zf_build_input(&b);
    if (r == ZE_RESULT_SUCCESS)
        r = zf_build_program(&b);
    zf_log_merge(a->log, &b.log, a->labelled, i);
    if (r == ZE_RESULT_SUCCESS) {
        a->programs[i] = b.program;
        a->options[i] = b.options;
        if (b.parsed.has_profile_flags)
            a->parsed = b.parsed;
    } else {
        if (a->labelled)
            zf_input_failed(r, i, &b.log);
        zf_program_release(b.program);
        free(b.options);
    }
    zf_spirv_log_free(&b.log);
    return r;
}

/* Drops what a module that was not made holds: the bindings of its programs to each other first. */
static void zf_assembly_free(zf_assembly *a) {
    for (uint32_t i = 0; a->programs != NULL && i < a->count; i++)
        if (a->programs[i] != NULL)
            zf_program_unbind(a->programs[i]);
    for (uint32_t i = 0; i < a->count; i++) {
        zf_program_release(a->programs != NULL ? a->programs[i] : NULL);
        free(a->options != NULL ? a->options[i] : NULL);
    }
    free(a->programs);
    free(a->options);
}

static ze_result_t zf_module_register(zf_assembly *a, zf_module **out) {
    zf_module *module = calloc(1, sizeof *module);
    if (module == NULL)
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory for a module");
    module->program = a->programs[0];
    module->num_programs = a->count;
    module->programs = a->programs;
    module->build_options = a->options;
    module->has_profile_flags = a->parsed.has_profile_flags;
    module->profile_flags = a->parsed.profile_flags;
    atomic_init(&module->live_kernels, 0);
    if (!zf_object_register(&module->header, ZF_OBJ_ZE_MODULE, &a->context->header)) {
        free(module);
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory to register a module");
    }
    a->programs = NULL; /* owned by the module now */
    a->options = NULL;
    a->count = 0;
    *out = module;
    return ZE_RESULT_SUCCESS;
}

/* Builds each input into a program (stopping at the first that fails), links them and makes the module. */
static ze_result_t zf_module_assemble(zf_assembly *a, const zf_module_input *inputs, zf_module **out) {
    a->programs = calloc(a->count, sizeof *a->programs);
    a->options = calloc(a->count, sizeof *a->options);
    if (a->programs == NULL || a->options == NULL)
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory for %u inputs", a->count);
    ze_result_t r = ZE_RESULT_SUCCESS;
    for (uint32_t i = 0; i < a->count && r == ZE_RESULT_SUCCESS; i++)
        r = zf_assemble_input(a, &inputs[i], i);
    if (r == ZE_RESULT_SUCCESS && a->count > 1)
        r = zf_link_inputs(a->programs, a->count, a->log);
    if (r == ZE_RESULT_SUCCESS)
        r = zf_module_register(a, out);
    return r;
}

/* A native binary of several programs: each is reloaded with the caller's options, then they are linked again. */
static ze_result_t zf_module_native_programs(zf_assembly *a, const zf_module_input *outer, uint32_t count,
                                             zf_module **out) {
    zf_module_input *inputs = calloc(count, sizeof *inputs);
    if (inputs == NULL)
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory for %u programs", count);
    zf_native_programs(outer->data, outer, inputs);
    a->count = count;
    a->labelled = true;
    ze_result_t r = zf_module_assemble(a, inputs, out);
    free(inputs);
    return r;
}

static ze_result_t zf_module_create(zf_assembly *a, const ze_module_desc_t *desc, zf_module **out) {
    if (!zf_context_has_device(a->context, a->device)) {
        zf_spirv_log_printf(a->log, "the device is not one of the context's devices");
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "hDevice is not a device of hContext (nor a sub-device)");
    }
    zf_module_input *inputs = NULL;
    uint32_t count = 0;
    ze_result_t r = zf_module_program_inputs(desc, &inputs, &count, a->log);
    if (r != ZE_RESULT_SUCCESS)
        return r;
    if (count > 0) {
        a->count = count;
        a->labelled = true;
        r = zf_module_assemble(a, inputs, out);
        free(inputs);
        return r;
    }
    const zf_module_input single = {desc->format, desc->pInputModule, desc->inputSize,
                                    desc->pBuildFlags != NULL ? desc->pBuildFlags : "", desc->pConstants};
    if (desc->format == ZE_MODULE_FORMAT_NATIVE) {
        zf_native_view view;
        r = zf_native_parse(desc->pInputModule, desc->inputSize, a->device, &view, a->log);
        if (r != ZE_RESULT_SUCCESS)
            return r;
        if (view.num_programs > 0)
            return zf_module_native_programs(a, &single, view.num_programs, out);
    }
    a->count = 1;
    return zf_module_assemble(a, &single, out);
}

ze_result_t zfi_zeModuleCreate(ze_context_handle_t hContext, ze_device_handle_t hDevice, const ze_module_desc_t *desc,
                               ze_module_handle_t *phModule, ze_module_build_log_handle_t *phBuildLog) {
    zf_spirv_log log = {0};
    zf_assembly a = {.context = zf_context_from(hContext), .device = zf_device_from(hDevice), .log = &log};
    zf_module *module = NULL;
    ze_result_t result = zf_module_create(&a, desc, &module);
    zf_assembly_free(&a);
    if (phBuildLog != NULL) {
        ze_result_t r = zf_build_log_create(zf_spirv_log_text(&log), phBuildLog);
        if (r != ZE_RESULT_SUCCESS && result == ZE_RESULT_SUCCESS) {
            zfi_zeModuleDestroy((ze_module_handle_t)module);
            result = r;
        }
    }
    zf_spirv_log_free(&log);
    if (result == ZE_RESULT_SUCCESS)
        *phModule = (ze_module_handle_t)module;
    return result;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Module queries */

ze_result_t zfi_zeModuleDestroy(ze_module_handle_t hModule) {
    zf_module *module = zf_module_from(hModule);
    unsigned kernels = atomic_load(&module->live_kernels);
    if (kernels > 0)
        return zf_fail(ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE, "%u kernel(s) created from the module are still alive",
                       kernels);
    zf_object_unregister(&module->header); /* the handle dies before its parts */
    /* Unbinding breaks reference cycles between modules (and programs of a module) that import from each other. */
    for (uint32_t i = 0; i < module->num_programs; i++)
        zf_program_unbind(module->programs[i]);
    for (uint32_t i = 0; i < module->num_programs; i++) {
        zf_program_release(module->programs[i]);
        free(module->build_options[i]);
    }
    free(module->programs);
    free(module->build_options);
    module->program = NULL;
    module->programs = NULL;
    module->build_options = NULL;
    zf_object_retire(&module->header);
    return ZE_RESULT_SUCCESS;
}

const zf_spirv_kernel *zf_module_find_kernel(const zf_module *module, const char *name, zf_program **program,
                                             uint32_t *index) {
    for (uint32_t p = 0; p < module->num_programs; p++) {
        const zf_spirv_module *spirv = module->programs[p]->spirv;
        for (uint32_t k = 0; k < zf_spirv_kernel_count(spirv); k++) {
            const zf_spirv_kernel *kernel = zf_spirv_kernel_at(spirv, k);
            if (strcmp(kernel->name, name) == 0) {
                *program = module->programs[p];
                *index = k;
                return kernel;
            }
        }
    }
    return NULL;
}

bool zf_module_profile_flags(const zf_module *module, uint32_t *flags) {
    *flags = module->profile_flags;
    return module->has_profile_flags;
}

ze_result_t zfi_zeModuleGetKernelNames(ze_module_handle_t hModule, uint32_t *pCount, const char **pNames) {
    const zf_module *module = zf_module_from(hModule);
    uint32_t total = 0;
    for (uint32_t p = 0; p < module->num_programs; p++)
        total += zf_spirv_kernel_count(module->programs[p]->spirv);
    uint32_t n = zf_count_query(pCount, total, pNames), at = 0;
    for (uint32_t p = 0; p < module->num_programs && at < n; p++) {
        const zf_spirv_module *spirv = module->programs[p]->spirv;
        for (uint32_t k = 0; k < zf_spirv_kernel_count(spirv) && at < n; k++)
            pNames[at++] = zf_spirv_kernel_at(spirv, k)->name;
    }
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zeModuleGetProperties(ze_module_handle_t hModule, ze_module_properties_t *pModuleProperties) {
    pModuleProperties->flags = zf_module_is_unlinked(zf_module_from(hModule)) ? ZE_MODULE_PROPERTY_FLAG_IMPORTS : 0;
    return ZE_RESULT_SUCCESS;
}
