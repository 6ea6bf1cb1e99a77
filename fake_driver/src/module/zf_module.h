/* Modules inside the driver: what module.c shares with kernel.c (and, through zf_kernel.h, with execution).
 *
 * A module's built content is a zf_program: the read and specialized SPIR-V, the storage of its globals and the
 * resolution of its imports. The module handle, each kernel created from it and each captured launch hold a
 * reference, so a launch still queued when the application destroys the handles reads valid memory (the spec makes
 * that the application's error; the fake does not crash on it). */
#ifndef ZF_MODULE_H
#define ZF_MODULE_H

#include "driver/zf_driver.h"
#include "spirv/spirv.h"
#include "spirv/spirv_exec.h"

#include <stdatomic.h>
#include <stdint.h>

typedef struct zf_program zf_program;

/* Where an imported symbol of one program was found by zeModuleDynamicLink. */
typedef struct zf_import {
    const zf_spirv_symbol *symbol; /* the importer's symbol */
    zf_program *provider;          /* referenced while bound; NULL until linked */
    uint32_t provider_symbol;      /* index among the provider's symbols */
} zf_import;

struct zf_program {
    atomic_uint refs;
    zf_spirv_module *spirv;
    zf_dprog *code;   /* the decoded form the execution engine runs (docs/spirv-execution.md) */
    uint64_t *relocs; /* the addresses code->relocs name; imports are 0 until linked (under the link lock) */
    zf_context *context;
    zf_device *device;
    uint8_t uuid[ZE_MAX_MODULE_UUID_SIZE];
    uint8_t *globals; /* storage of every global the module defines (64-byte aligned, inside globals_block) */
    void *globals_block;
    size_t globals_size;
    size_t *global_offsets;  /* per reader global; SIZE_MAX for imported ones */
    uint8_t *function_slots; /* one byte per function of the module: their addresses are the function pointers
                                zeModuleGetFunctionPointer and the kernels' function-pointer constants hand out */
    uint32_t num_function_slots;
    bool registered; /* listed for function-pointer resolution (zf_program_find_function) */
    uint32_t num_imports;
    zf_import *imports; /* guarded by the link lock (module.c) */
};

void zf_program_retain(zf_program *program);
void zf_program_release(zf_program *program);

/* The live program whose function `address` is (a function pointer), retained for the caller; false when the address
 * names no function of a live program. */
bool zf_program_find_function(uint64_t address, zf_program **program, uint32_t *function);

/* Every program `program` imports from, directly or through other imports, each retained: a launch keeps them so that
 * calls into them stay valid whatever the application destroys meanwhile. *count receives their number; the array
 * (malloc'ed, NULL when empty or out of memory) is released with zf_program_release on each item and free. */
zf_program **zf_program_retain_providers(zf_program *program, uint32_t *count);

/* The engine's view of a program (its form, resolved relocations and globals). */
void zf_program_executable(const zf_program *program, zf_xprogram *out);

/* A module is one program, or several when it was built from several inputs (ZE_experimental_module_program,
 * docs/extensions.md): each input is a program of its own, and the imports of one that another exports are bound at
 * creation by the same machinery as zeModuleDynamicLink. */
typedef struct zf_module {
    zf_object header;
    zf_program *program; /* programs[0] */
    uint32_t num_programs;
    zf_program **programs;    /* in input order */
    char **build_options;     /* per program, as given ("" when none) */
    atomic_uint live_kernels; /* a module with live kernels cannot be destroyed */
    bool has_profile_flags;   /* built with -zet-profile-flags */
    uint32_t profile_flags;
} zf_module;

static inline zf_module *zf_module_from(ze_module_handle_t handle) {
    return (zf_module *)handle;
}

/* True when some import of the module is not resolved by zeModuleDynamicLink yet. */
bool zf_module_is_unlinked(zf_module *module);

/* The kernel named `name` among the module's programs: its description, the program defining it (not retained) and
 * its index among that program's kernels; NULL when no program of the module has it. */
const zf_spirv_kernel *zf_module_find_kernel(const zf_module *module, const char *name, zf_program **program,
                                             uint32_t *index);

/* Whether an import of one of the module's programs is exported by another of its programs: it is then resolved
 * inside the module and is no import of the module. */
bool zf_module_resolves_import(const zf_module *module, const zf_spirv_symbol *import);

/* ------------------------------------------------------------------------------------------------------------------
 * Building (module.c and module_program.c) */

/* One input of a module: zeModuleCreate's descriptor, one input of a module program or one program of a native
 * binary. */
typedef struct zf_module_input {
    ze_module_format_t format;
    const void *data;
    size_t size;
    const char *flags;                      /* build options, never NULL */
    const ze_module_constants_t *constants; /* NULL when none */
} zf_module_input;

/* The inputs of a ze_module_program_exp_desc_t chained to `desc` (malloc'ed into *inputs), checked against the rules
 * of the extension; *count is 0 when no such descriptor is chained. A rule broken fails with its result, a build log
 * line and a diagnostic naming the argument. */
ze_result_t zf_module_program_inputs(const ze_module_desc_t *desc, zf_module_input **inputs, uint32_t *count,
                                     zf_spirv_log *log);

/* A new build log holding a copy of `text` (zeModuleInspectLinkageExt's log is one too). */
ze_result_t zf_build_log_create(const char *text, ze_module_build_log_handle_t *out);

/* The value of -zet-profile-flags the module was built with (for zetKernelGetProfileInfo and
 * zetModuleGetDebugInfo); false when it was built without. */
bool zf_module_profile_flags(const zf_module *module, uint32_t *flags);

/* The work_dim of the kernel's next launches (get_work_dim(); the OpenCL face's clEnqueueNDRangeKernel gives it);
 * 0, as a Level Zero kernel starts: the highest dimension of the group count and size that exceeds 1. */
void zf_kernel_set_work_dim(ze_kernel_handle_t kernel, uint32_t dims);

#endif
