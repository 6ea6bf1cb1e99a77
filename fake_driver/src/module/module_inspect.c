/* Module linkage inspection (ZE_extension_linkage_inspection): the imports, unresolvable imports and exports of a set
 * of modules, written to a build log. */
#include "core/zf_core.h"
#include "module/zf_module.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether some module of the set exports a symbol of that name and kind, or defines it LinkOnceODR (from any of its
 * programs). */
static bool zf_exported(zf_module *const *modules, uint32_t count, const zf_spirv_symbol *import) {
    for (uint32_t m = 0; m < count; m++) {
        for (uint32_t p = 0; p < modules[m]->num_programs; p++) {
            const zf_spirv_module *spirv = modules[m]->programs[p]->spirv;
            for (uint32_t i = 0; i < zf_spirv_symbol_count(spirv); i++) {
                const zf_spirv_symbol *s = zf_spirv_symbol_at(spirv, i);
                if (zf_spirv_linkage_defines(s->linkage) && s->is_function == import->is_function &&
                    strcmp(s->name, import->name) == 0)
                    return true;
            }
        }
    }
    return false;
}

typedef enum zf_list_kind { ZF_LIST_IMPORTS, ZF_LIST_UNRESOLVABLE, ZF_LIST_EXPORTS } zf_list_kind;

/* An import another program of the same module defines (ZE_experimental_module_program) is none of the module's;
 * LinkOnceODR definitions are exports (ZE_extension_linkonce_odr). */
static bool zf_symbol_listed(zf_module *const *modules, uint32_t count, const zf_module *module,
                             const zf_spirv_symbol *s, zf_list_kind kind) {
    bool imported = s->linkage == ZF_SPIRV_LINK_IMPORT && !zf_module_resolves_import(module, s);
    switch (kind) {
    case ZF_LIST_IMPORTS:
        return imported;
    case ZF_LIST_UNRESOLVABLE:
        return imported && !zf_exported(modules, count, s);
    case ZF_LIST_EXPORTS:
        return zf_spirv_linkage_defines(s->linkage);
    }
    return false;
}

/* One section of the log: a title line, then each symbol of the set (in module order, then in the order of each
 * module's programs) on its own indented line. */
static void zf_write_section(FILE *out, const char *title, zf_module *const *modules, uint32_t count,
                             zf_list_kind kind) {
    fprintf(out, "%s:\n", title);
    for (uint32_t m = 0; m < count; m++) {
        for (uint32_t p = 0; p < modules[m]->num_programs; p++) {
            const zf_spirv_module *spirv = modules[m]->programs[p]->spirv;
            for (uint32_t i = 0; i < zf_spirv_symbol_count(spirv); i++) {
                const zf_spirv_symbol *s = zf_spirv_symbol_at(spirv, i);
                if (zf_symbol_listed(modules, count, modules[m], s, kind))
                    fprintf(out, "\t%s\n", s->name);
            }
        }
    }
}

static ze_result_t zf_check_modules(uint32_t count, ze_module_handle_t *handles) {
    for (uint32_t i = 0; i < count; i++) {
        if (!zf_handle_is_live(handles[i], ZF_OBJ_ZE_MODULE))
            return zf_fail(ZE_RESULT_ERROR_INVALID_NULL_HANDLE, "phModules[%u] (%p) is not a live module", i,
                           (void *)handles[i]);
    }
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zeModuleInspectLinkageExt(ze_linkage_inspection_ext_desc_t *pInspectDesc, uint32_t numModules,
                                          ze_module_handle_t *phModules, ze_module_build_log_handle_t *phLog) {
    if (pInspectDesc->stype != ZE_STRUCTURE_TYPE_LINKAGE_INSPECTION_EXT_DESC)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                       "pInspectDesc->stype is 0x%x, not ZE_STRUCTURE_TYPE_LINKAGE_INSPECTION_EXT_DESC",
                       (unsigned)pInspectDesc->stype);
    ze_result_t result = zf_check_modules(numModules, phModules);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    char *text = NULL;
    size_t length = 0;
    FILE *out = open_memstream(&text, &length);
    if (out == NULL)
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory for the linkage log");
    zf_module *const *modules = (zf_module *const *)phModules;
    ze_linkage_inspection_ext_flags_t flags = pInspectDesc->flags;
    if (flags & ZE_LINKAGE_INSPECTION_EXT_FLAG_IMPORTS)
        zf_write_section(out, "Import Symbol Names", modules, numModules, ZF_LIST_IMPORTS);
    if (flags & ZE_LINKAGE_INSPECTION_EXT_FLAG_UNRESOLVABLE_IMPORTS)
        zf_write_section(out, "Unresolvable Import Symbol Names", modules, numModules, ZF_LIST_UNRESOLVABLE);
    if (flags & ZE_LINKAGE_INSPECTION_EXT_FLAG_EXPORTS)
        zf_write_section(out, "Export Symbol Names", modules, numModules, ZF_LIST_EXPORTS);
    bool written = fclose(out) == 0;
    result = written ? zf_build_log_create(text, phLog)
                     : zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory for the linkage log");
    free(text);
    return result;
}
