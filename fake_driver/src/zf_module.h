/* Modules inside the driver: what module.c shares with kernel.c (and, through zf_kernel.h, with execution).
 *
 * A module's built content is a zf_program: the read and specialized SPIR-V, the storage of its globals and the
 * resolution of its imports. The module handle, each kernel created from it and each captured launch hold a
 * reference, so a launch still queued when the application destroys the handles reads valid memory (the spec makes
 * that the application's error; the fake does not crash on it). */
#ifndef ZF_MODULE_H
#define ZF_MODULE_H

#include "spirv/spirv.h"
#include "zf_driver.h"

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
    zf_context *context;
    zf_device *device;
    uint8_t uuid[ZE_MAX_MODULE_UUID_SIZE];
    uint8_t *globals; /* storage of every global the module defines (64-byte aligned, inside globals_block) */
    void *globals_block;
    size_t *global_offsets;  /* per reader global; SIZE_MAX for imported ones */
    uint8_t *function_slots; /* one byte per exported symbol, then per kernel: their addresses are the function
                                pointers zeModuleGetFunctionPointer hands out */
    uint32_t num_imports;
    zf_import *imports; /* guarded by the link lock (module.c) */
};

void zf_program_retain(zf_program *program);
void zf_program_release(zf_program *program);

typedef struct zf_module {
    zf_object header;
    zf_program *program;
    atomic_uint live_kernels; /* a module with live kernels cannot be destroyed */
    bool has_profile_flags;   /* built with -zet-profile-flags */
    uint32_t profile_flags;
    char *build_options; /* as given, "" when none */
} zf_module;

static inline zf_module *zf_module_from(ze_module_handle_t handle) {
    return (zf_module *)handle;
}

/* True when some import of the module is not resolved by zeModuleDynamicLink yet. */
bool zf_module_is_unlinked(zf_module *module);

/* The value of -zet-profile-flags the module was built with (for zetKernelGetProfileInfo and
 * zetModuleGetDebugInfo, issue 8); false when it was built without. */
bool zf_module_profile_flags(const zf_module *module, uint32_t *flags);

#endif
