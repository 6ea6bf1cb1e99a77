/* What the files of a module share and nothing outside module/ needs: module.c assembles a module from programs and
 * keeps the registry of live programs, module_build.c builds one program from one input, module_native.c writes and
 * parses native binaries, module_debug.c writes the debug-info ELF, module_link.c resolves imports and exports and
 * links programs (docs/modules.md). */
#ifndef ZF_MODULE_INTERNAL_H
#define ZF_MODULE_INTERNAL_H

#include "module/zf_module.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Sections of the native binary and of the debug-info ELF start at multiples of 8 bytes. */
static inline size_t zf_align8(size_t n) {
    return (n + 7) & ~(size_t)7;
}

/* ------------------------------------------------------------------------------------------------------------------
 * module.c */

/* Adds a program to the registry zf_program_find_function searches; false when out of memory. */
bool zf_registry_add(zf_program *program);

/* ------------------------------------------------------------------------------------------------------------------
 * module_native.c */

/* The sections of a native binary zf_native_parse accepted (pointers into the caller's binary). */
typedef struct zf_native_view {
    const uint8_t *spirv;
    size_t spirv_size;
    const char *options;    /* "" when the section is absent */
    const uint8_t *decoded; /* NULL when the section is absent: the SPIR-V is decoded again */
    size_t decoded_size;
    uint32_t num_programs; /* program sections: a module of several programs */
} zf_native_view;

/* Logs why a native binary is refused and answers ZE_RESULT_ERROR_INVALID_NATIVE_BINARY. */
ze_result_t zf_native_reject(zf_spirv_log *log, const char *why);
/* Validates the header, checksum and section table of a native binary built for `device`. */
ze_result_t zf_native_parse(const uint8_t *data, size_t size, zf_device *device, zf_native_view *view,
                            zf_spirv_log *log);
/* The program sections of a binary zf_native_parse accepted, as inputs of a module (each one a native binary). */
void zf_native_programs(const uint8_t *data, const zf_module_input *outer, zf_module_input *inputs);

/* ------------------------------------------------------------------------------------------------------------------
 * module_build.c */

/* What the build options set. */
typedef struct zf_options {
    bool has_profile_flags;
    uint32_t profile_flags;
} zf_options;

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

/* Reads the input (SPIR-V, or the sections of a native binary) and parses its options into `b`. */
ze_result_t zf_build_input(zf_build *b);
/* Makes b->program from what zf_build_input read: specialized, checked, decoded, its globals laid out. */
ze_result_t zf_build_program(zf_build *b);
/* Resolves the addresses the form's relocations name (again after each link). */
void zf_program_relocate(zf_program *program);
/* The decoded function of a SPIR-V function id (the form keeps the reader's function order). */
uint32_t zf_function_of_id(const zf_program *program, uint32_t id);

/* ------------------------------------------------------------------------------------------------------------------
 * module_link.c */

/* The address of an exported or imported variable: the defined global of the same name in `program` or, for an
 * import, in its provider (0 while unlinked). Called with the link lock held, or before the program is shared. */
uint64_t zf_global_address(const zf_program *program, uint32_t index);
/* Binds the imports of each program that another program of the module exports (zeModuleDynamicLink's rules). */
ze_result_t zf_link_inputs(zf_program **programs, uint32_t count, zf_spirv_log *log);
/* Drops the program's import bindings (under the link lock) and releases the providers outside it. */
void zf_program_unbind(zf_program *program);

#endif
