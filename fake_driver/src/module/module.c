/* Modules: built from SPIR-V (read by spirv/, specialized, laid out) or from the native binaries the driver hands
 * out, with build logs, globals, function pointers and dynamic linking. docs/modules.md documents the formats,
 * build options, specialization constants (including the ITT annotations default) and logs. */
#include "core/zf_bytes.h"
#include "core/zf_core.h"
#include "driver/zf_driver.h"
#include "module/zf_module.h"

#include <elf.h>
#include <level_zero/zet_api.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* SpecId of the ITT annotations constant (docs/spirv-execution.md, "Annotations"): 1 by default when the environment
 * has INTEL_ENABLE_OFFLOAD_ANNOTATIONS and the application did not set it. */
#define ZF_ITT_SPEC_ID  0xFF747469u
#define ZF_ITT_ENV      "INTEL_ENABLE_OFFLOAD_ANNOTATIONS"
#define ZF_GLOBAL_ALIGN 64u
/* Module globals live in host memory: more than this per module is refused like a device out of memory. */
#define ZF_MAX_GLOBALS_BYTES (1ull << 30)

/* Dynamic linking changes the import tables of programs that other threads may be reading. */
static pthread_mutex_t zf_link_lock = PTHREAD_MUTEX_INITIALIZER;

/* Every live program, so that a function pointer (an address in some program's function slots) can be resolved
 * when a kernel calls through it. */
static pthread_mutex_t zf_registry_lock = PTHREAD_MUTEX_INITIALIZER;
static zf_program **zf_registry;
static size_t zf_registry_count, zf_registry_capacity;

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
 * Programs */

void zf_program_retain(zf_program *program) {
    atomic_fetch_add_explicit(&program->refs, 1, memory_order_relaxed);
}

static bool zf_registry_add(zf_program *program) {
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

static uint64_t zf_fnv1a(const void *data, size_t size, uint64_t hash) {
    const uint8_t *bytes = data;
    for (size_t i = 0; i < size; i++) {
        hash ^= bytes[i];
        hash *= 0x100000001b3ull;
    }
    return hash;
}

static void zf_program_uuid(zf_program *program) {
    size_t count;
    const uint32_t *words = zf_spirv_words(program->spirv, &count);
    uint64_t a = zf_fnv1a(words, count * 4, 0xcbf29ce484222325ull);
    uint64_t b = zf_fnv1a(words, count * 4, a ^ 0x9e3779b97f4a7c15ull);
    memcpy(program->uuid, &a, 8);
    memcpy(program->uuid + 8, &b, 8);
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
        if (zf_spirv_global_init(spirv, g, program->globals + program->global_offsets[i], log) != ZF_SPIRV_OK)
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
static uint32_t zf_function_of_id(const zf_program *program, uint32_t id) {
    for (uint32_t f = 0; f < program->code->num_funcs; f++)
        if (program->code->funcs[f].spirv_id == id)
            return f;
    return UINT32_MAX;
}

/* The address of an exported or imported variable: the defined global of the same name in `program` or, for an
 * import, in its provider (0 while unlinked). Called with the link lock held, or before the program is shared. */
static uint64_t zf_global_address(const zf_program *program, uint32_t index);

/* Resolves the addresses the form's relocations name. */
static void zf_program_relocate(zf_program *program) {
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
 * Native binaries: a container for the specialized SPIR-V (docs/modules.md, "Native binaries"). */

#define ZF_NATIVE_MAGIC        "ZFNATIVE"
#define ZF_NATIVE_VERSION      1u
#define ZF_NATIVE_HEADER_SIZE  64u
#define ZF_NATIVE_SECTION_SIZE 24u
/* Bounds the section table before it is walked; the table must fit the binary as well. */
#define ZF_NATIVE_MAX_SECTIONS (1u << 20)
#define ZF_SECTION_SPIRV       1u
#define ZF_SECTION_OPTIONS     2u
#define ZF_SECTION_DECODED     3u
/* A module of several programs (ZE_experimental_module_program): one section per program, in input order, each a
 * whole native binary of one program; such a container has no other sections (docs/extensions.md). */
#define ZF_SECTION_PROGRAM 4u

typedef struct zf_native_view {
    const uint8_t *spirv;
    size_t spirv_size;
    const char *options;    /* "" when the section is absent */
    const uint8_t *decoded; /* NULL when the section is absent: the SPIR-V is decoded again */
    size_t decoded_size;
    uint32_t num_programs; /* ZF_SECTION_PROGRAM sections */
} zf_native_view;

static void zf_native_kernel_uuid(zf_device *device, ze_native_kernel_uuid_t *uuid) {
    ze_device_module_properties_t props = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MODULE_PROPERTIES};
    zfi_zeDeviceGetModuleProperties((ze_device_handle_t)device, &props); /* the UUID the device advertises */
    *uuid = props.nativeKernelSupported;
}

static size_t zf_align8(size_t n) {
    return (n + 7) & ~(size_t)7;
}

/* The sections of one program's native binary: the specialized SPIR-V, the build options and the decoded form. */
#define ZF_NATIVE_PARTS 3u

/* Writes the header and the section table of a binary of `count` sections of the given kinds and sizes (the whole
 * binary is `size` bytes); offsets[i] receives where section i starts. */
static void zf_native_frame(uint8_t *out, size_t size, zf_device *device, const uint32_t *kinds, const size_t *sizes,
                            uint32_t count, size_t *offsets) {
    memset(out, 0, size);
    memcpy(out, ZF_NATIVE_MAGIC, 8);
    zf_le32_put(out + 8, ZF_NATIVE_VERSION);
    zf_le32_put(out + 12, ZF_NATIVE_HEADER_SIZE);
    ze_native_kernel_uuid_t uuid;
    zf_native_kernel_uuid(device, &uuid);
    memcpy(out + 16, uuid.id, 16);
    zf_le32_put(out + 32, count);
    zf_le64_put(out + 40, size);
    size_t at = ZF_NATIVE_HEADER_SIZE + (size_t)count * ZF_NATIVE_SECTION_SIZE;
    for (uint32_t i = 0; i < count; i++) {
        uint8_t *entry = out + ZF_NATIVE_HEADER_SIZE + (size_t)i * ZF_NATIVE_SECTION_SIZE;
        zf_le32_put(entry, kinds[i]);
        zf_le64_put(entry + 8, at);
        zf_le64_put(entry + 16, sizes[i]);
        offsets[i] = at;
        at += zf_align8(sizes[i]);
    }
}

/* The checksum, once every section is written. */
static void zf_native_seal(uint8_t *out, size_t size) {
    zf_le64_put(out + 48, zf_fnv1a(out + ZF_NATIVE_HEADER_SIZE, size - ZF_NATIVE_HEADER_SIZE, 0xcbf29ce484222325ull));
}

static size_t zf_native_program_size(const zf_program *program, const char *options) {
    size_t count;
    zf_spirv_words(program->spirv, &count);
    return ZF_NATIVE_HEADER_SIZE + ZF_NATIVE_PARTS * ZF_NATIVE_SECTION_SIZE + zf_align8(count * 4) +
           zf_align8(strlen(options) + 1) + zf_align8(zf_form_size(program->code));
}

static void zf_native_program_write(const zf_program *program, const char *options, uint8_t *out, size_t size) {
    size_t count, offsets[ZF_NATIVE_PARTS];
    const uint32_t *words = zf_spirv_words(program->spirv, &count);
    const uint32_t kinds[ZF_NATIVE_PARTS] = {ZF_SECTION_SPIRV, ZF_SECTION_OPTIONS, ZF_SECTION_DECODED};
    const size_t sizes[ZF_NATIVE_PARTS] = {count * 4, strlen(options) + 1, zf_form_size(program->code)};
    zf_native_frame(out, size, program->device, kinds, sizes, ZF_NATIVE_PARTS, offsets);
    memcpy(out + offsets[0], words, sizes[0]);
    memcpy(out + offsets[1], options, sizes[1]);
    zf_form_write(program->code, out + offsets[2]);
    zf_native_seal(out, size);
}

/* A module of one program is that program's binary; a module of several wraps theirs in ZF_SECTION_PROGRAM
 * sections. */
static size_t zf_native_size(const zf_module *module) {
    if (module->num_programs == 1)
        return zf_native_program_size(module->program, module->build_options[0]);
    size_t size = ZF_NATIVE_HEADER_SIZE + (size_t)module->num_programs * ZF_NATIVE_SECTION_SIZE;
    for (uint32_t i = 0; i < module->num_programs; i++)
        size += zf_align8(zf_native_program_size(module->programs[i], module->build_options[i]));
    return size;
}

static bool zf_native_write(const zf_module *module, uint8_t *out, size_t size) {
    if (module->num_programs == 1) {
        zf_native_program_write(module->program, module->build_options[0], out, size);
        return true;
    }
    uint32_t n = module->num_programs;
    uint32_t *kinds = calloc(n, sizeof *kinds);
    size_t *sizes = calloc(n, sizeof *sizes), *offsets = calloc(n, sizeof *offsets);
    bool ok = kinds != NULL && sizes != NULL && offsets != NULL;
    for (uint32_t i = 0; ok && i < n; i++) {
        kinds[i] = ZF_SECTION_PROGRAM;
        sizes[i] = zf_native_program_size(module->programs[i], module->build_options[i]);
    }
    if (ok) {
        zf_native_frame(out, size, module->program->device, kinds, sizes, n, offsets);
        for (uint32_t i = 0; i < n; i++)
            zf_native_program_write(module->programs[i], module->build_options[i], out + offsets[i], sizes[i]);
        zf_native_seal(out, size);
    }
    free(kinds);
    free(sizes);
    free(offsets);
    return ok;
}

static ze_result_t zf_native_reject(zf_spirv_log *log, const char *why) {
    zf_spirv_log_printf(log, "native binary: %s", why);
    return zf_fail(ZE_RESULT_ERROR_INVALID_NATIVE_BINARY, "native binary: %s", why);
}

static ze_result_t zf_native_section(const uint8_t *data, size_t size, const uint8_t *entry, zf_native_view *view,
                                     zf_spirv_log *log) {
    uint32_t kind = zf_le32_get(entry);
    uint64_t offset = zf_le64_get(entry + 8), length = zf_le64_get(entry + 16);
    if (offset > size || length > size - offset)
        return zf_native_reject(log, "a section lies outside the binary");
    if (kind == ZF_SECTION_SPIRV) {
        if (view->spirv != NULL)
            return zf_native_reject(log, "two SPIR-V sections");
        view->spirv = data + offset;
        view->spirv_size = (size_t)length;
    } else if (kind == ZF_SECTION_OPTIONS) {
        if (length == 0 || data[offset + length - 1] != '\0' || strlen((const char *)data + offset) + 1 != length)
            return zf_native_reject(log, "the build options section is not one NUL-terminated string");
        view->options = (const char *)data + offset;
    } else if (kind == ZF_SECTION_DECODED) {
        if (view->decoded != NULL)
            return zf_native_reject(log, "two decoded-form sections");
        view->decoded = data + offset;
        view->decoded_size = (size_t)length;
    } else if (kind == ZF_SECTION_PROGRAM) {
        view->num_programs++;
    }
    return ZE_RESULT_SUCCESS; /* unknown sections belong to later versions of the format and are skipped */
}

static ze_result_t zf_native_parse(const uint8_t *data, size_t size, zf_device *device, zf_native_view *view,
                                   zf_spirv_log *log) {
    memset(view, 0, sizeof *view);
    view->options = "";
    if (size < ZF_NATIVE_HEADER_SIZE || memcmp(data, ZF_NATIVE_MAGIC, 8) != 0)
        return zf_native_reject(log, "no zefake native binary header (magic \"ZFNATIVE\")");
    if (zf_le32_get(data + 8) != ZF_NATIVE_VERSION || zf_le32_get(data + 12) != ZF_NATIVE_HEADER_SIZE)
        return zf_native_reject(log, "an unknown container version");
    ze_native_kernel_uuid_t uuid;
    zf_native_kernel_uuid(device, &uuid);
    if (memcmp(data + 16, uuid.id, 16) != 0)
        return zf_native_reject(log, "built for another kind of device (its native kernel UUID differs)");
    uint32_t sections = zf_le32_get(data + 32);
    if (zf_le64_get(data + 40) != size)
        return zf_native_reject(log, "its recorded size differs from inputSize");
    if (zf_fnv1a(data + ZF_NATIVE_HEADER_SIZE, size - ZF_NATIVE_HEADER_SIZE, 0xcbf29ce484222325ull) !=
        zf_le64_get(data + 48))
        return zf_native_reject(log, "the checksum does not match: the binary is corrupted");
    if (sections == 0 || sections > ZF_NATIVE_MAX_SECTIONS ||
        ZF_NATIVE_HEADER_SIZE + (size_t)sections * ZF_NATIVE_SECTION_SIZE > size)
        return zf_native_reject(log, "a bad section table");
    for (uint32_t i = 0; i < sections; i++) {
        ze_result_t r =
            zf_native_section(data, size, data + ZF_NATIVE_HEADER_SIZE + i * ZF_NATIVE_SECTION_SIZE, view, log);
        if (r != ZE_RESULT_SUCCESS)
            return r;
    }
    if (view->num_programs > 0 && (view->spirv != NULL || view->decoded != NULL))
        return zf_native_reject(log, "program sections beside a program's own sections");
    if (view->spirv == NULL && view->num_programs == 0)
        return zf_native_reject(log, "no SPIR-V section");
    return ZE_RESULT_SUCCESS;
}

/* The program sections of a binary zf_native_parse accepted, as inputs of a module (each one a native binary). */
static void zf_native_programs(const uint8_t *data, const zf_module_input *outer, zf_module_input *inputs) {
    uint32_t sections = zf_le32_get(data + 32), n = 0;
    for (uint32_t i = 0; i < sections; i++) {
        const uint8_t *entry = data + ZF_NATIVE_HEADER_SIZE + (size_t)i * ZF_NATIVE_SECTION_SIZE;
        if (zf_le32_get(entry) != ZF_SECTION_PROGRAM)
            continue;
        inputs[n] = *outer;
        inputs[n].data = data + zf_le64_get(entry + 8);
        inputs[n].size = (size_t)zf_le64_get(entry + 16);
        n++;
    }
}

ze_result_t zfi_zeModuleGetNativeBinary(ze_module_handle_t hModule, size_t *pSize, uint8_t *pModuleNativeBinary) {
    const zf_module *module = zf_module_from(hModule);
    size_t needed = zf_native_size(module);
    if (pModuleNativeBinary == NULL) {
        *pSize = needed;
        return ZE_RESULT_SUCCESS;
    }
    if (*pSize < needed) {
        size_t given = *pSize;
        *pSize = needed;
        return zf_fail(ZE_RESULT_ERROR_INVALID_SIZE, "*pSize is %zu, the native binary needs %zu bytes", given, needed);
    }
    if (!zf_native_write(module, pModuleNativeBinary, needed))
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory to write the native binary");
    *pSize = needed;
    return ZE_RESULT_SUCCESS;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Program instrumentation (docs/spirv-execution.md, "Program instrumentation"): zetModuleGetDebugInfo answers an ELF
 * file (ZET_MODULE_DEBUG_INFO_FORMAT_ELF_DWARF is the only format) whose sections describe the decoded form the engine
 * runs: the form itself (the same bytes as the native binary's), the specialized SPIR-V, for each decoded instruction
 * the SPIR-V word it came from, and text tables of the functions and kernels (docs/spirv-execution.md, "Program
 * instrumentation"). No DWARF: there is no machine code to describe. */

typedef struct zf_elf_part {
    const char *name;
    uint32_t type;
    const void *data;
    size_t size;
} zf_elf_part;

/* Appends printf-formatted text to a malloc'ed string (*text, *length); false when out of memory. */
static bool __attribute__((format(printf, 3, 4))) zf_text_append(char **text, size_t *length, const char *format, ...) {
    va_list args;
    va_start(args, format);
    int n = vsnprintf(NULL, 0, format, args);
    va_end(args);
    char *grown = n >= 0 ? realloc(*text, *length + (size_t)n + 1) : NULL;
    if (grown == NULL)
        return false;
    va_start(args, format);
    vsnprintf(grown + *length, (size_t)n + 1, format, args);
    va_end(args);
    *text = grown;
    *length += (size_t)n;
    return true;
}

static char *zf_function_table(const zf_dprog *code, size_t *length) {
    char *text = NULL;
    bool ok = zf_text_append(&text, length, "# function spirv-id blocks instructions frame-bytes private-bytes name\n");
    for (uint32_t f = 0; ok && f < code->num_funcs; f++) {
        const zf_dfunc *fn = &code->funcs[f];
        ok =
            zf_text_append(&text, length, "%u %u %u %u %u %u %s\n", f, fn->spirv_id, fn->block_count, fn->instructions,
                           fn->frame_bytes, fn->private_bytes, fn->name != UINT32_MAX ? code->strings + fn->name : "-");
    }
    if (!ok)
        free(text);
    return ok ? text : NULL;
}

static char *zf_kernel_table(const zf_program *program, size_t *length) {
    char *text = NULL;
    bool ok = zf_text_append(&text, length,
                             "# kernel function functions blocks instructions registers frame-bytes private-bytes\n");
    for (uint32_t k = 0; ok && k < program->code->num_kernels; k++) {
        zf_form_stats st;
        zf_form_kernel_stats(program->code, k, &st);
        ok = zf_text_append(&text, length, "%s %u %u %u %u %u %u %u\n", zf_spirv_kernel_at(program->spirv, k)->name,
                            program->code->kernels[k].function, st.functions, st.blocks, st.instructions, st.registers,
                            st.frame_bytes, st.private_bytes);
    }
    if (!ok)
        free(text);
    return ok ? text : NULL;
}

/* An ELF64 little-endian relocatable file of the given sections (plus the null section and .shstrtab). */
static uint8_t *zf_elf_write(const zf_elf_part *parts, uint32_t count, size_t *size) {
    size_t names = 1 + strlen(".shstrtab") + 1;
    for (uint32_t i = 0; i < count; i++)
        names += strlen(parts[i].name) + 1;
    size_t at = sizeof(Elf64_Ehdr) + zf_align8(names);
    for (uint32_t i = 0; i < count; i++)
        at += zf_align8(parts[i].size);
    *size = at + (count + 2) * sizeof(Elf64_Shdr);
    uint8_t *out = calloc(1, *size);
    if (out == NULL)
        return NULL;
    Elf64_Ehdr header = {.e_ident = {ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3, ELFCLASS64, ELFDATA2LSB, EV_CURRENT},
                         .e_type = ET_REL,
                         .e_version = EV_CURRENT,
                         .e_shoff = at,
                         .e_ehsize = sizeof(Elf64_Ehdr),
                         .e_shentsize = sizeof(Elf64_Shdr),
                         .e_shnum = (uint16_t)(count + 2),
                         .e_shstrndx = 1};
    memcpy(out, &header, sizeof header);
    Elf64_Shdr *sections = (Elf64_Shdr *)(void *)(out + at);
    char *strtab = (char *)out + sizeof(Elf64_Ehdr);
    size_t name_at = 1, data_at = sizeof(Elf64_Ehdr) + zf_align8(names);
    memcpy(strtab + name_at, ".shstrtab", strlen(".shstrtab") + 1);
    sections[1] = (Elf64_Shdr){.sh_name = (uint32_t)name_at,
                               .sh_type = SHT_STRTAB,
                               .sh_offset = sizeof(Elf64_Ehdr),
                               .sh_size = names,
                               .sh_addralign = 1};
    name_at += strlen(".shstrtab") + 1;
    for (uint32_t i = 0; i < count; i++) {
        memcpy(strtab + name_at, parts[i].name, strlen(parts[i].name) + 1);
        sections[2 + i] = (Elf64_Shdr){.sh_name = (uint32_t)name_at,
                                       .sh_type = parts[i].type,
                                       .sh_offset = data_at,
                                       .sh_size = parts[i].size,
                                       .sh_addralign = 8};
        if (parts[i].size > 0)
            memcpy(out + data_at, parts[i].data, parts[i].size);
        name_at += strlen(parts[i].name) + 1;
        data_at += zf_align8(parts[i].size);
    }
    return out;
}

/* The sections of one program; a module of several programs has them for each, the names of program i > 0 ending
 * in ".<i>" (docs/spirv-execution.md, "Program instrumentation"). */
#define ZF_DEBUG_PARTS    5u
#define ZF_DEBUG_NAME_MAX 32u

typedef struct zf_debug_program {
    uint8_t *form;
    char *functions, *kernels;
    char names[ZF_DEBUG_PARTS][ZF_DEBUG_NAME_MAX];
} zf_debug_program;

static bool zf_debug_program_parts(const zf_program *program, uint32_t index, zf_debug_program *d, zf_elf_part *parts) {
    static const char *const names[ZF_DEBUG_PARTS] = {".zefake.decoded", ".zefake.spirv", ".zefake.lines",
                                                      ".zefake.functions", ".zefake.kernels"};
    size_t words_count, form_size = zf_form_size(program->code), functions_size = 0, kernels_size = 0;
    const uint32_t *words = zf_spirv_words(program->spirv, &words_count);
    d->form = malloc(form_size ? form_size : 1);
    d->functions = zf_function_table(program->code, &functions_size);
    d->kernels = zf_kernel_table(program, &kernels_size);
    if (d->form == NULL || d->functions == NULL || d->kernels == NULL)
        return false;
    zf_form_write(program->code, d->form);
    for (uint32_t i = 0; i < ZF_DEBUG_PARTS; i++) {
        if (index == 0)
            snprintf(d->names[i], ZF_DEBUG_NAME_MAX, "%s", names[i]);
        else
            snprintf(d->names[i], ZF_DEBUG_NAME_MAX, "%s.%u", names[i], index);
    }
    const zf_elf_part made[ZF_DEBUG_PARTS] = {
        {d->names[0], SHT_PROGBITS, d->form, form_size},
        {d->names[1], SHT_PROGBITS, words, words_count * 4},
        {d->names[2], SHT_PROGBITS, program->code->inst_words, program->code->num_insts * 4u},
        {d->names[3], SHT_PROGBITS, d->functions, functions_size},
        {d->names[4], SHT_PROGBITS, d->kernels, kernels_size},
    };
    memcpy(parts, made, sizeof made);
    return true;
}

static uint8_t *zf_debug_info(const zf_module *module, size_t *size) {
    uint32_t n = module->num_programs;
    zf_debug_program *programs = calloc(n, sizeof *programs);
    zf_elf_part *parts = calloc((size_t)n * ZF_DEBUG_PARTS, sizeof *parts);
    bool ok = programs != NULL && parts != NULL;
    for (uint32_t i = 0; ok && i < n; i++)
        ok = zf_debug_program_parts(module->programs[i], i, &programs[i], parts + (size_t)i * ZF_DEBUG_PARTS);
    uint8_t *elf = ok ? zf_elf_write(parts, n * ZF_DEBUG_PARTS, size) : NULL;
    for (uint32_t i = 0; programs != NULL && i < n; i++) {
        free(programs[i].form);
        free(programs[i].functions);
        free(programs[i].kernels);
    }
    free(programs);
    free(parts);
    return elf;
}

ze_result_t zfi_zetModuleGetDebugInfo(zet_module_handle_t hModule, zet_module_debug_info_format_t format, size_t *pSize,
                                      uint8_t *pDebugInfo) {
    (void)format; /* ELF_DWARF, the only value the entry point lets through */
    size_t size = 0;
    uint8_t *elf = zf_debug_info(zf_module_from(hModule), &size);
    if (elf == NULL)
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory for the module's debug information");
    ze_result_t result = ZE_RESULT_SUCCESS;
    if (pDebugInfo != NULL && *pSize < size)
        result =
            zf_fail(ZE_RESULT_ERROR_INVALID_SIZE, "*pSize is %zu, the debug information needs %zu bytes", *pSize, size);
    else if (pDebugInfo != NULL)
        memcpy(pDebugInfo, elf, size);
    *pSize = size;
    free(elf);
    return result;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Build options */

typedef struct zf_options {
    bool has_profile_flags;
    uint32_t profile_flags;
} zf_options;

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
 * zeModuleCreate */

/* The build of one program from one input. */
typedef struct zf_build {
    zf_context *context;
    zf_device *device;
    const zf_module_input *input;
    zf_spirv_log log;
    zf_native_view native;
    const void *spirv; /* what the reader reads */
    size_t spirv_size;
    char *options; /* the options the module keeps */
    zf_options parsed;
    zf_program *program;
} zf_build;

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

static ze_result_t zf_build_input(zf_build *b) {
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

static ze_result_t zf_build_program(zf_build *b) {
    b->program = calloc(1, sizeof *b->program);
    if (b->program == NULL)
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory for a module");
    atomic_init(&b->program->refs, 1);
    b->program->context = b->context;
    b->program->device = b->device;
    zf_spirv_status s = zf_spirv_read(b->spirv, b->spirv_size, &b->program->spirv, &b->log);
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
    return r;
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

static void zf_program_unbind(zf_program *program);

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

/* Binds the imports of each program that another program of the module exports (zeModuleDynamicLink's rules). */
static ze_result_t zf_link_inputs(zf_program **programs, uint32_t count, zf_spirv_log *log);

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

/* Drops the module's import bindings (under the link lock) and releases the providers outside it. */
static void zf_program_unbind(zf_program *program) {
    pthread_mutex_lock(&zf_link_lock);
    zf_program **providers = calloc(program->num_imports ? program->num_imports : 1, sizeof *providers);
    for (uint32_t i = 0; i < program->num_imports && providers != NULL; i++) {
        providers[i] = program->imports[i].provider;
        program->imports[i].provider = NULL;
    }
    pthread_mutex_unlock(&zf_link_lock);
    for (uint32_t i = 0; i < program->num_imports && providers != NULL; i++)
        zf_program_release(providers[i]);
    free(providers); /* without it (no host memory), the bindings stay and are released with the program */
}

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

zf_program **zf_program_retain_providers(zf_program *program, uint32_t *count) {
    zf_program **list = NULL;
    uint32_t n = 0, capacity = 0;
    pthread_mutex_lock(&zf_link_lock);
    /* A breadth-first walk over import bindings; `list` doubles as the queue. */
    for (int64_t at = -1; at < (int64_t)n; at++) {
        zf_program *from = at < 0 ? program : list[at];
        for (uint32_t i = 0; i < from->num_imports; i++) {
            zf_program *provider = from->imports[i].provider;
            bool known = provider == NULL || provider == program;
            for (uint32_t k = 0; k < n && !known; k++)
                known = list[k] == provider;
            if (known)
                continue;
            if (n == capacity) {
                capacity = capacity ? capacity * 2 : 4;
                zf_program **grown = realloc(list, capacity * sizeof *grown);
                if (grown == NULL)
                    break;
                list = grown;
            }
            zf_program_retain(provider);
            list[n++] = provider;
        }
    }
    pthread_mutex_unlock(&zf_link_lock);
    *count = n;
    return list;
}

bool zf_module_is_unlinked(zf_module *module) {
    bool unlinked = false;
    pthread_mutex_lock(&zf_link_lock);
    for (uint32_t p = 0; p < module->num_programs; p++) {
        const zf_program *program = module->programs[p];
        for (uint32_t i = 0; i < program->num_imports; i++)
            unlinked = unlinked || program->imports[i].provider == NULL;
    }
    pthread_mutex_unlock(&zf_link_lock);
    return unlinked;
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

/* The symbol of `program` named `name`, of the given kind and linkage; UINT32_MAX when there is none. */
static uint32_t zf_find_symbol(const zf_program *program, const char *name, bool is_function,
                               zf_spirv_linkage linkage) {
    for (uint32_t i = 0; i < zf_spirv_symbol_count(program->spirv); i++) {
        const zf_spirv_symbol *s = zf_spirv_symbol_at(program->spirv, i);
        if (s->linkage == linkage && s->is_function == is_function && strcmp(s->name, name) == 0)
            return i;
    }
    return UINT32_MAX;
}

/* The definition of `name` in `program` that imports may bind to: its Export, else its LinkOnceODR definition. */
static uint32_t zf_find_definition(const zf_program *program, const char *name, bool is_function) {
    uint32_t index = zf_find_symbol(program, name, is_function, ZF_SPIRV_LINK_EXPORT);
    return index != UINT32_MAX ? index : zf_find_symbol(program, name, is_function, ZF_SPIRV_LINK_ONCE_ODR);
}

/* The program of `module` whose definition of `name` the module's queries answer with: the first (in input order)
 * exporting it, else the first holding it as LinkOnceODR (docs/modules.md); *index receives the symbol. */
static zf_program *zf_module_definition(const zf_module *module, const char *name, bool is_function, uint32_t *index) {
    static const zf_spirv_linkage order[2] = {ZF_SPIRV_LINK_EXPORT, ZF_SPIRV_LINK_ONCE_ODR};
    for (uint32_t k = 0; k < 2; k++) {
        for (uint32_t p = 0; p < module->num_programs; p++) {
            *index = zf_find_symbol(module->programs[p], name, is_function, order[k]);
            if (*index != UINT32_MAX)
                return module->programs[p];
        }
    }
    return NULL;
}

bool zf_module_resolves_import(const zf_module *module, const zf_spirv_symbol *import) {
    for (uint32_t p = 0; p < module->num_programs && module->num_programs > 1; p++)
        if (zf_find_definition(module->programs[p], import->name, import->is_function) != UINT32_MAX)
            return true;
    return false;
}

/* The address of a defined global of `program`, by name, among its LinkOnceODR globals or among the others; NULL when
 * it defines none of that name there. */
static void *zf_defined_global(const zf_program *program, const char *name, bool once_odr, size_t *size) {
    for (uint32_t i = 0; i < zf_spirv_global_count(program->spirv); i++) {
        const zf_spirv_global *g = zf_spirv_global_at(program->spirv, i);
        if (g->name == NULL || strcmp(g->name, name) != 0 || program->global_offsets[i] == SIZE_MAX ||
            (g->linkage == ZF_SPIRV_LINK_ONCE_ODR) != once_odr)
            continue;
        *size = (size_t)g->size;
        return program->globals + program->global_offsets[i];
    }
    return NULL;
}

/* The storage of the variable a symbol of `program` defines (an import's provider); NULL when it defines none. */
static void *zf_symbol_storage(const zf_program *program, uint32_t symbol_index, size_t *size) {
    const zf_spirv_symbol *s = zf_spirv_symbol_at(program->spirv, symbol_index);
    for (uint32_t i = 0; s != NULL && i < zf_spirv_global_count(program->spirv); i++) {
        const zf_spirv_global *g = zf_spirv_global_at(program->spirv, i);
        if (g->id != s->id || program->global_offsets[i] == SIZE_MAX)
            continue;
        *size = (size_t)g->size;
        return program->globals + program->global_offsets[i];
    }
    return NULL;
}

/* An imported symbol's provider program, once linked (the caller holds the link lock). */
static const zf_import *zf_find_import(const zf_program *program, const char *name, bool is_function) {
    for (uint32_t i = 0; i < program->num_imports; i++) {
        const zf_import *import = &program->imports[i];
        if (import->symbol->is_function == is_function && strcmp(import->symbol->name, name) == 0)
            return import;
    }
    return NULL;
}

static uint64_t zf_global_address(const zf_program *program, uint32_t index) {
    const zf_spirv_global *g = zf_spirv_global_at(program->spirv, index);
    if (g == NULL)
        return 0;
    if (program->global_offsets[index] != SIZE_MAX)
        return (uint64_t)(uintptr_t)(program->globals + program->global_offsets[index]);
    const zf_import *import = g->name != NULL ? zf_find_import(program, g->name, false) : NULL;
    size_t size;
    void *ptr = import != NULL && import->provider != NULL
                    ? zf_symbol_storage(import->provider, import->provider_symbol, &size)
                    : NULL;
    return (uint64_t)(uintptr_t)ptr;
}

/* A global imported by one of the module's programs, from its provider once linked; *imported tells whether some
 * program imports that name. */
static void *zf_imported_global(const zf_module *module, const char *name, size_t *size, bool *imported) {
    void *ptr = NULL;
    pthread_mutex_lock(&zf_link_lock);
    for (uint32_t p = 0; p < module->num_programs && ptr == NULL; p++) {
        const zf_import *import = zf_find_import(module->programs[p], name, false);
        *imported = *imported || import != NULL;
        if (import != NULL && import->provider != NULL)
            ptr = zf_symbol_storage(import->provider, import->provider_symbol, size);
    }
    pthread_mutex_unlock(&zf_link_lock);
    return ptr;
}

ze_result_t zfi_zeModuleGetGlobalPointer(ze_module_handle_t hModule, const char *pGlobalName, size_t *pSize,
                                         void **pptr) {
    const zf_module *module = zf_module_from(hModule);
    size_t size = 0;
    void *ptr = NULL;
    /* A global the module defines: the first input's, a LinkOnceODR one only when no input has another. */
    for (uint32_t k = 0; k < 2 && ptr == NULL; k++)
        for (uint32_t p = 0; p < module->num_programs && ptr == NULL; p++)
            ptr = zf_defined_global(module->programs[p], pGlobalName, k == 1, &size);
    bool imported = false;
    if (ptr == NULL && (ptr = zf_imported_global(module, pGlobalName, &size, &imported)) == NULL && imported)
        return zf_fail(ZE_RESULT_ERROR_INVALID_GLOBAL_NAME, "global '%s' is imported and not linked yet", pGlobalName);
    if (ptr == NULL)
        return zf_fail(ZE_RESULT_ERROR_INVALID_GLOBAL_NAME, "the module has no global named '%s'", pGlobalName);
    if (pSize != NULL)
        *pSize = size;
    if (pptr != NULL)
        *pptr = ptr;
    return ZE_RESULT_SUCCESS;
}

/* The function pointer of an exported symbol of `program` (its function's slot). */
static void *zf_export_slot(const zf_program *program, uint32_t symbol_index) {
    uint32_t f = zf_function_of_id(program, zf_spirv_symbol_at(program->spirv, symbol_index)->id);
    return f != UINT32_MAX ? &program->function_slots[f] : NULL;
}

/* A function one of the module's programs exports or holds as LinkOnceODR (zf_module_definition's choice). */
static void *zf_exported_function(const zf_module *module, const char *name) {
    uint32_t index = UINT32_MAX;
    const zf_program *program = zf_module_definition(module, name, true, &index);
    return program != NULL ? zf_export_slot(program, index) : NULL;
}

/* A function imported by one of the module's programs, from its provider once linked. */
static void *zf_imported_function(const zf_module *module, const char *name, bool *imported) {
    void *provided = NULL;
    pthread_mutex_lock(&zf_link_lock);
    for (uint32_t p = 0; p < module->num_programs && provided == NULL; p++) {
        const zf_import *import = zf_find_import(module->programs[p], name, true);
        *imported = *imported || import != NULL;
        if (import != NULL && import->provider != NULL)
            provided = zf_export_slot(import->provider, import->provider_symbol);
    }
    pthread_mutex_unlock(&zf_link_lock);
    return provided;
}

ze_result_t zfi_zeModuleGetFunctionPointer(ze_module_handle_t hModule, const char *pFunctionName, void **pfnFunction) {
    const zf_module *module = zf_module_from(hModule);
    void *slot = zf_exported_function(module, pFunctionName);
    bool imported = false;
    if (slot == NULL && (slot = zf_imported_function(module, pFunctionName, &imported)) == NULL && imported)
        return zf_fail(ZE_RESULT_ERROR_INVALID_FUNCTION_NAME, "function '%s' is imported and not linked yet",
                       pFunctionName);
    zf_program *program = NULL;
    uint32_t index = 0;
    if (slot == NULL && zf_module_find_kernel(module, pFunctionName, &program, &index) != NULL) {
        uint32_t f = zf_function_of_id(program, zf_spirv_kernel_at(program->spirv, index)->function);
        slot = f != UINT32_MAX ? &program->function_slots[f] : NULL;
    }
    if (slot == NULL)
        return zf_fail(ZE_RESULT_ERROR_INVALID_FUNCTION_NAME, "the module has no function named '%s'", pFunctionName);
    *pfnFunction = slot;
    return ZE_RESULT_SUCCESS;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Linking, all or nothing: every import to link must be exported by exactly one other program of the set, or else
 * defined LinkOnceODR by one or more (the first in link order is used), with the same kind (function or variable)
 * and shape; definitions of one name that several programs hold, one of them LinkOnceODR, must have the same type.
 * Only then are the bindings made. zeModuleDynamicLink links the programs of the modules it lists, in list order.
 * zeModuleCreate links the programs of a module built from several inputs the same way, in input order, except that
 * an import no input defines is left for zeModuleDynamicLink (docs/modules.md, "Dynamic linking"). */

typedef struct zf_link_plan {
    zf_import *import;
    zf_program *provider;
    uint32_t provider_symbol;
} zf_link_plan;

typedef struct zf_link_unit {
    zf_program *program;
    uint32_t module; /* its position in zeModuleDynamicLink's list; UINT32_MAX for the inputs of one module */
    uint32_t input;  /* its position among its module's programs */
    bool several;    /* its module has several programs */
} zf_link_unit;

typedef struct zf_link_set {
    zf_link_unit *units;
    uint32_t count;
    bool creating; /* the inputs of one module being created */
    zf_spirv_log *log;
} zf_link_set;

typedef enum zf_plan_result { ZF_PLAN_BOUND, ZF_PLAN_LEFT, ZF_PLAN_FAILED } zf_plan_result;

static const char *zf_symbol_kind(bool is_function) {
    return is_function ? "function" : "variable";
}

/* How logs name a program: "module 1", "module 1 input 0" or, in a module being created, "input 0". */
static const char *zf_unit_label(const zf_link_unit *unit, char *buffer, size_t size) {
    if (unit->module == UINT32_MAX)
        snprintf(buffer, size, "input %u", unit->input);
    else if (unit->several)
        snprintf(buffer, size, "module %u input %u", unit->module, unit->input);
    else
        snprintf(buffer, size, "module %u", unit->module);
    return buffer;
}

static const char *zf_linkage_label(zf_spirv_linkage linkage) {
    return linkage == ZF_SPIRV_LINK_ONCE_ODR ? "LinkOnceODR" : linkage == ZF_SPIRV_LINK_IMPORT ? "Import" : "Export";
}

static bool zf_shape_differs(const zf_spirv_symbol *want, const zf_spirv_symbol *have) {
    return want->is_function ? have->num_params != want->num_params : have->size != want->size;
}

/* What the other programs of the set offer one import: the first export and the first LinkOnceODR definition in link
 * order, and how many programs have each. */
typedef struct zf_candidates {
    zf_link_plan first_export, first_once_odr;
    uint32_t exports, once_odrs;
} zf_candidates;

/* Gathers the candidates of an import; false (logged) when one has another shape. */
static bool zf_gather_candidates(const zf_link_set *set, uint32_t self, zf_import *import, zf_candidates *c) {
    const zf_spirv_symbol *want = import->symbol;
    for (uint32_t u = 0; u < set->count; u++) {
        zf_program *candidate = set->units[u].program;
        uint32_t index = candidate == set->units[self].program
                             ? UINT32_MAX
                             : zf_find_definition(candidate, want->name, want->is_function);
        if (index == UINT32_MAX)
            continue;
        const zf_spirv_symbol *have = zf_spirv_symbol_at(candidate->spirv, index);
        bool once_odr = have->linkage == ZF_SPIRV_LINK_ONCE_ODR;
        if (zf_shape_differs(want, have)) {
            char mine[48], theirs[48];
            zf_spirv_log_printf(set->log, "%s: import %s '%s' does not match %s's %s (%s)",
                                zf_unit_label(&set->units[self], mine, sizeof mine), zf_symbol_kind(want->is_function),
                                want->name, zf_unit_label(&set->units[u], theirs, sizeof theirs),
                                once_odr ? "LinkOnceODR definition" : "export",
                                want->is_function ? "parameter count" : "size");
            return false;
        }
        uint32_t *count = once_odr ? &c->once_odrs : &c->exports;
        if ((*count)++ == 0)
            *(once_odr ? &c->first_once_odr : &c->first_export) = (zf_link_plan){import, candidate, index};
    }
    return true;
}

/* One export binds the import; with none, the first LinkOnceODR definition does (a strong definition is preferred to
 * LinkOnceODR ones, which may all be discarded for it); several exports are ambiguous. */
static zf_plan_result zf_plan_import(const zf_link_set *set, uint32_t self, zf_import *import, zf_link_plan *plan) {
    const zf_spirv_symbol *want = import->symbol;
    zf_candidates c = {.exports = 0};
    if (!zf_gather_candidates(set, self, import, &c))
        return ZF_PLAN_FAILED;
    if (c.exports == 1 || (c.exports == 0 && c.once_odrs > 0)) {
        *plan = c.exports == 1 ? c.first_export : c.first_once_odr;
        return ZF_PLAN_BOUND;
    }
    char mine[48];
    zf_unit_label(&set->units[self], mine, sizeof mine);
    if (c.exports == 0 && set->creating) {
        zf_spirv_log_printf(set->log, "note: %s: %s import '%s' is exported by no input; left for zeModuleDynamicLink",
                            mine, zf_symbol_kind(want->is_function), want->name);
        return ZF_PLAN_LEFT;
    }
    zf_spirv_log_printf(set->log, "%s: %s import %s '%s'", mine, c.exports == 0 ? "unresolved" : "ambiguous",
                        zf_symbol_kind(want->is_function), want->name);
    return ZF_PLAN_FAILED;
}

/* The first definition of `symbol`'s name and kind in the units before `before` that the one-definition rule pairs
 * it with: any definition when `symbol` is LinkOnceODR, else a LinkOnceODR one. */
static const zf_spirv_symbol *zf_odr_partner(const zf_link_set *set, uint32_t before, const zf_spirv_symbol *symbol,
                                             uint32_t *unit) {
    for (uint32_t u = 0; u < before; u++) {
        const zf_spirv_module *spirv = set->units[u].program->spirv;
        for (uint32_t i = 0; i < zf_spirv_symbol_count(spirv); i++) {
            const zf_spirv_symbol *s = zf_spirv_symbol_at(spirv, i);
            if (!zf_spirv_linkage_defines(s->linkage) || s->is_function != symbol->is_function ||
                strcmp(s->name, symbol->name) != 0)
                continue;
            if (s->linkage == ZF_SPIRV_LINK_ONCE_ODR || symbol->linkage == ZF_SPIRV_LINK_ONCE_ODR) {
                *unit = u;
                return s;
            }
        }
    }
    return NULL;
}

static void zf_log_odr_mismatch(const zf_link_set *set, uint32_t first_unit, const zf_spirv_symbol *first,
                                uint32_t second_unit, const zf_spirv_symbol *second) {
    char a[48], b[48], ta[160], tb[160];
    zf_spirv_symbol_type_name(set->units[first_unit].program->spirv, first, ta, sizeof ta);
    zf_spirv_symbol_type_name(set->units[second_unit].program->spirv, second, tb, sizeof tb);
    zf_spirv_log_printf(set->log, "%s and %s define %s '%s' with different types: %s %s and %s %s",
                        zf_unit_label(&set->units[first_unit], a, sizeof a),
                        zf_unit_label(&set->units[second_unit], b, sizeof b), zf_symbol_kind(second->is_function),
                        second->name, zf_linkage_label(first->linkage), ta, zf_linkage_label(second->linkage), tb);
}

/* The one-definition rule: definitions of one name and kind that several programs of the set hold, one of them
 * LinkOnceODR, have the same type. Each definition is compared with the first earlier one it pairs with; every
 * difference is logged, naming both programs and both types. */
static bool zf_odr_consistent(const zf_link_set *set) {
    bool ok = true;
    for (uint32_t u = 1; u < set->count; u++) {
        const zf_spirv_module *spirv = set->units[u].program->spirv;
        for (uint32_t i = 0; i < zf_spirv_symbol_count(spirv); i++) {
            const zf_spirv_symbol *s = zf_spirv_symbol_at(spirv, i);
            uint32_t unit = 0;
            const zf_spirv_symbol *partner =
                zf_spirv_linkage_defines(s->linkage) ? zf_odr_partner(set, u, s, &unit) : NULL;
            if (partner == NULL || zf_spirv_symbol_same_type(set->units[unit].program->spirv, partner, spirv, s))
                continue;
            zf_log_odr_mismatch(set, unit, partner, u, s);
            ok = false;
        }
    }
    return ok;
}

/* Binds what was planned and resolves the importers' relocations (their kernels reach the imports through them). */
static void zf_link_commit(const zf_link_set *set, zf_link_plan *plans, uint32_t planned) {
    for (uint32_t p = 0; p < planned; p++) {
        if (plans[p].import->provider == NULL) { /* a module listed twice plans the same import twice */
            zf_program_retain(plans[p].provider);
            plans[p].import->provider = plans[p].provider;
            plans[p].import->provider_symbol = plans[p].provider_symbol;
        }
    }
    for (uint32_t u = 0; u < set->count; u++)
        if (set->units[u].program->num_imports > 0)
            zf_program_relocate(set->units[u].program);
}

/* Plans every import not linked yet and, when nothing failed, binds them; `failure` is the result otherwise. */
static ze_result_t zf_link_run(const zf_link_set *set, bool ok, ze_result_t failure) {
    ok = zf_odr_consistent(set) && ok;
    uint32_t total = 0;
    for (uint32_t u = 0; u < set->count; u++)
        total += set->units[u].program->num_imports;
    zf_link_plan *plans = calloc(total ? total : 1, sizeof *plans);
    if (plans == NULL)
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory to link");
    uint32_t planned = 0;
    for (uint32_t u = 0; u < set->count; u++) {
        zf_program *program = set->units[u].program;
        for (uint32_t i = 0; i < program->num_imports; i++) {
            if (program->imports[i].provider != NULL)
                continue; /* imports are linked once */
            zf_plan_result r = zf_plan_import(set, u, &program->imports[i], &plans[planned]);
            planned += r == ZF_PLAN_BOUND;
            ok = ok && r != ZF_PLAN_FAILED;
        }
    }
    if (ok)
        zf_link_commit(set, plans, planned);
    free(plans);
    if (!ok)
        return zf_fail(failure, "%s", zf_spirv_log_text(set->log));
    return ZE_RESULT_SUCCESS;
}

/* Two inputs of one module may not define the same kernel or export the same symbol: names must find one thing.
 * LinkOnceODR definitions are no conflict (zf_odr_consistent checks their types). */
static bool zf_inputs_distinct(zf_program **programs, uint32_t count, zf_spirv_log *log) {
    bool ok = true;
    for (uint32_t j = 1; j < count; j++) {
        const zf_spirv_module *spirv = programs[j]->spirv;
        for (uint32_t i = 0; i < j; i++) {
            for (uint32_t k = 0; k < zf_spirv_kernel_count(spirv); k++) {
                const char *name = zf_spirv_kernel_at(spirv, k)->name;
                if (zf_spirv_find_kernel(programs[i]->spirv, name) == NULL)
                    continue;
                zf_spirv_log_printf(log, "inputs %u and %u both define kernel '%s'", i, j, name);
                ok = false;
            }
            for (uint32_t s = 0; s < zf_spirv_symbol_count(spirv); s++) {
                const zf_spirv_symbol *symbol = zf_spirv_symbol_at(spirv, s);
                if (symbol->linkage != ZF_SPIRV_LINK_EXPORT ||
                    zf_find_symbol(programs[i], symbol->name, symbol->is_function, ZF_SPIRV_LINK_EXPORT) == UINT32_MAX)
                    continue;
                zf_spirv_log_printf(log, "inputs %u and %u both export %s '%s'", i, j,
                                    zf_symbol_kind(symbol->is_function), symbol->name);
                ok = false;
            }
        }
    }
    return ok;
}

static ze_result_t zf_link_inputs(zf_program **programs, uint32_t count, zf_spirv_log *log) {
    zf_link_unit *units = calloc(count, sizeof *units);
    if (units == NULL)
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory to link %u inputs", count);
    for (uint32_t i = 0; i < count; i++)
        units[i] = (zf_link_unit){programs[i], UINT32_MAX, i, true};
    zf_link_set set = {units, count, true, log};
    bool distinct = zf_inputs_distinct(programs, count, log);
    pthread_mutex_lock(&zf_link_lock);
    ze_result_t result = zf_link_run(&set, distinct, ZE_RESULT_ERROR_MODULE_BUILD_FAILURE);
    pthread_mutex_unlock(&zf_link_lock);
    free(units);
    return result;
}

/* The programs of the listed modules, each once (a module may be listed twice); modules of another context than the
 * first are logged and left out. */
static bool zf_link_units(zf_module **modules, uint32_t count, zf_link_set *set) {
    bool ok = true;
    for (uint32_t m = 0; m < count; m++) {
        if (modules[m]->program->context != modules[0]->program->context) {
            zf_spirv_log_printf(set->log, "module %u belongs to another context than module 0", m);
            ok = false;
            continue;
        }
        for (uint32_t p = 0; p < modules[m]->num_programs; p++) {
            zf_program *program = modules[m]->programs[p];
            bool listed = false;
            for (uint32_t u = 0; u < set->count && !listed; u++)
                listed = set->units[u].program == program;
            if (!listed)
                set->units[set->count++] = (zf_link_unit){program, m, p, modules[m]->num_programs > 1};
        }
    }
    return ok;
}

static ze_result_t zf_link(zf_module **modules, uint32_t count, zf_spirv_log *log) {
    uint32_t total = 0;
    for (uint32_t m = 0; m < count; m++)
        total += modules[m]->num_programs;
    zf_link_set set = {calloc(total ? total : 1, sizeof *set.units), 0, false, log};
    if (set.units == NULL)
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory to link");
    bool ok = zf_link_units(modules, count, &set);
    ze_result_t result = zf_link_run(&set, ok, ZE_RESULT_ERROR_MODULE_LINK_FAILURE);
    free(set.units);
    return result;
}

ze_result_t zfi_zeModuleDynamicLink(uint32_t numModules, ze_module_handle_t *phModules,
                                    ze_module_build_log_handle_t *phLinkLog) {
    for (uint32_t i = 0; i < numModules; i++) {
        if (!zf_handle_is_live(phModules[i], ZF_OBJ_ZE_MODULE))
            return zf_fail(ZE_RESULT_ERROR_INVALID_NULL_HANDLE, "phModules[%u] (%p) is not a live module handle", i,
                           (void *)phModules[i]);
    }
    zf_spirv_log log = {0};
    pthread_mutex_lock(&zf_link_lock);
    ze_result_t result = zf_link((zf_module **)phModules, numModules, &log);
    pthread_mutex_unlock(&zf_link_lock);
    if (phLinkLog != NULL) {
        ze_result_t r = zf_build_log_create(zf_spirv_log_text(&log), phLinkLog);
        if (result == ZE_RESULT_SUCCESS)
            result = r;
    }
    zf_spirv_log_free(&log);
    return result;
}
