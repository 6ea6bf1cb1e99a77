/* Imports and exports between programs: the symbol lookups behind zeModuleGetGlobalPointer and
 * zeModuleGetFunctionPointer, and linking (zeModuleDynamicLink, and the programs of a module built from several
 * inputs) under the one-definition rule (docs/modules.md, "Dynamic linking"). */

#include "core/zf_bytes.h"
#include "core/zf_core.h"
#include "driver/zf_driver.h"
#include "module/module_internal.h"
#include "module/zf_module.h"

#include <elf.h>
#include <level_zero/zet_api.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Dynamic linking changes the import tables of programs that other threads may be reading. */
static pthread_mutex_t zf_link_lock = PTHREAD_MUTEX_INITIALIZER;

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

uint64_t zf_global_address(const zf_program *program, uint32_t index) {
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

/* Drops the module's import bindings (under the link lock) and releases the providers outside it. */
void zf_program_unbind(zf_program *program) {
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

zf_program **zf_program_retain_providers(zf_program *program, uint32_t *count) {
    zf_program **list = NULL;
    uint32_t n = 0, capacity = 0;
    if (program->num_imports == 0) {
        *count = 0; /* fixed when the module was built: no import, no provider (every launch of most kernels) */
        return NULL;
    }
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

ze_result_t zf_link_inputs(zf_program **programs, uint32_t count, zf_spirv_log *log) {
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
