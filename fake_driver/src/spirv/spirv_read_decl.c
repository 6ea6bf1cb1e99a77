/* The reader's module-level declarations: capabilities, the memory model, entry points and their execution modes,
 * debug names and decorations (including decoration groups). Each is checked like every instruction of the walk
 * (spirv_read.c) and recorded by word offset for the later steps. */
#include "spirv_read.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------------------------------------------------
 * Module-level declarations */

zf_spirv_status zf_read_capability(zf_walk *k) {
    zf_spirv_status s = zf_r_need_words(k, 2);
    if (s != ZF_SPIRV_OK)
        return s;
    uint32_t *cap = zf_spirv_array_push(&k->m->capabilities, sizeof *cap);
    if (cap == NULL)
        return zf_r_no_memory(k);
    *cap = k->w[1];
    return ZF_SPIRV_OK;
}

zf_spirv_status zf_read_memory_model(zf_walk *k) {
    zf_spirv_status s = zf_r_need_words(k, 3);
    if (s != ZF_SPIRV_OK)
        return s;
    if (k->memory_model)
        return zf_r_bad(k, "a second OpMemoryModel (a module has exactly one)");
    k->memory_model = true;
    if (k->w[1] != SpvAddressingModelPhysical64)
        return zf_r_unsupported(k, "addressing model %u: the device runs Physical64 modules only (compile for spir64)",
                                k->w[1]);
    if (k->w[2] != SpvMemoryModelOpenCL)
        return zf_r_unsupported(k, "memory model %u: the device runs OpenCL memory model modules only", k->w[2]);
    return ZF_SPIRV_OK;
}

zf_spirv_status zf_read_entry_point(zf_walk *k) {
    zf_spirv_status s = zf_r_need_words(k, 4);
    uint32_t next = 0;
    if (s == ZF_SPIRV_OK)
        s = zf_r_check_id(k, 2, "the entry point function");
    if (s == ZF_SPIRV_OK)
        s = zf_r_need_string(k, 3, "the entry point name", &next);
    if (s != ZF_SPIRV_OK)
        return s;
    const char *name = (const char *)&k->w[3];
    if (k->w[1] != SpvExecutionModelKernel)
        return zf_r_unsupported(k, "entry point '%s' has execution model %u; Level Zero devices run Kernel (6) only",
                                name, k->w[1]);
    for (uint32_t i = next; i < k->count; i++) {
        s = zf_r_check_id(k, i, "an interface id");
        if (s != ZF_SPIRV_OK)
            return s;
    }
    for (uint32_t i = 0; i < k->m->entries.count; i++) {
        if (strcmp(ZF_SPIRV_AT(k->m->entries, zf_spirv_entry, i)->name, name) == 0)
            return zf_r_bad(k, "a second Kernel entry point named '%s'", name);
    }
    zf_spirv_entry *entry = zf_spirv_array_push(&k->m->entries, sizeof *entry);
    if (entry == NULL)
        return zf_r_no_memory(k);
    entry->offset = k->offset;
    entry->function = k->w[2];
    entry->name = name;
    entry->interface_first = k->offset + next;
    entry->interface_count = k->count - next;
    return ZF_SPIRV_OK;
}

static zf_spirv_status zf_find_entry(zf_walk *k, zf_spirv_entry **out) {
    zf_spirv_status s = zf_r_check_id(k, 1, "the entry point");
    if (s != ZF_SPIRV_OK)
        return s;
    for (uint32_t i = 0; i < k->m->entries.count; i++) {
        zf_spirv_entry *entry = ZF_SPIRV_AT(k->m->entries, zf_spirv_entry, i);
        if (entry->function == k->w[1]) {
            *out = entry;
            return ZF_SPIRV_OK;
        }
    }
    return zf_r_bad(k, "execution mode for %%%u, which no earlier OpEntryPoint declares", k->w[1]);
}

zf_spirv_status zf_read_execution_mode(zf_walk *k) {
    zf_spirv_status s = zf_r_need_words(k, 3);
    zf_spirv_entry *e = NULL;
    if (s == ZF_SPIRV_OK)
        s = zf_find_entry(k, &e);
    if (s != ZF_SPIRV_OK)
        return s;
    switch (k->w[2]) {
    case SpvExecutionModeLocalSize:
    case SpvExecutionModeLocalSizeHint: {
        s = zf_r_need_words(k, 6);
        if (s != ZF_SPIRV_OK)
            return s;
        bool hint = k->w[2] == SpvExecutionModeLocalSizeHint;
        memcpy(hint ? e->local_size_hint : e->local_size, &k->w[3], 3 * sizeof(uint32_t));
        *(hint ? &e->has_local_size_hint : &e->has_local_size) = true;
        return ZF_SPIRV_OK;
    }
    case SpvExecutionModeVecTypeHint:
    case SpvExecutionModeSubgroupSize:
    case SpvExecutionModeSubgroupsPerWorkgroup:
        s = zf_r_need_words(k, 4);
        if (s != ZF_SPIRV_OK)
            return s;
        if (k->w[2] == SpvExecutionModeVecTypeHint) {
            e->vec_type_hint = k->w[3];
            e->has_vec_type_hint = true;
        } else if (k->w[2] == SpvExecutionModeSubgroupSize) {
            e->subgroup_size = k->w[3];
        } else {
            e->subgroups_per_workgroup = k->w[3];
        }
        return ZF_SPIRV_OK;
    default:
        return ZF_SPIRV_OK;
    }
}

zf_spirv_status zf_read_execution_mode_id(zf_walk *k) {
    zf_spirv_status s = zf_r_need_words(k, 3);
    zf_spirv_entry *e = NULL;
    if (s == ZF_SPIRV_OK)
        s = zf_find_entry(k, &e);
    if (s != ZF_SPIRV_OK)
        return s;
    uint32_t mode = k->w[2];
    uint32_t operands = (mode == SpvExecutionModeLocalSizeId || mode == SpvExecutionModeLocalSizeHintId) ? 3
                        : mode == SpvExecutionModeSubgroupsPerWorkgroupId                                ? 1
                                                                                                         : 0;
    s = zf_r_need_words(k, 3 + operands);
    for (uint32_t i = 0; s == ZF_SPIRV_OK && i < operands; i++)
        s = zf_r_need_constant(k, 3 + i, "an execution mode operand");
    if (s != ZF_SPIRV_OK)
        return s;
    if (mode == SpvExecutionModeLocalSizeId) {
        memcpy(e->local_size_id, &k->w[3], sizeof e->local_size_id);
        e->has_local_size_id = true;
    } else if (mode == SpvExecutionModeLocalSizeHintId) {
        memcpy(e->local_size_hint_id, &k->w[3], sizeof e->local_size_hint_id);
        e->has_local_size_hint_id = true;
    } else if (mode == SpvExecutionModeSubgroupsPerWorkgroupId) {
        e->subgroups_per_workgroup_id = k->w[3];
    }
    return ZF_SPIRV_OK;
}

zf_spirv_status zf_read_name(zf_walk *k) {
    zf_spirv_status s = zf_r_need_words(k, 3);
    if (s == ZF_SPIRV_OK)
        s = zf_r_check_id(k, 1, "the named id");
    if (s == ZF_SPIRV_OK)
        s = zf_r_need_string(k, 2, "the name", NULL);
    if (s != ZF_SPIRV_OK)
        return s;
    k->m->ids[k->w[1]].name = k->offset;
    return ZF_SPIRV_OK;
}

static zf_spirv_status zf_read_decoration(zf_walk *k, zf_spirv_idinfo *target) {
    zf_spirv_status s = ZF_SPIRV_OK;
    switch (k->w[2]) {
    case SpvDecorationSpecId:
        if ((s = zf_r_need_words(k, 4)) != ZF_SPIRV_OK)
            return s;
        target->spec_id = k->w[3];
        target->flags |= ZF_ID_SPEC_ID;
        return s;
    case SpvDecorationBuiltIn:
        if ((s = zf_r_need_words(k, 4)) != ZF_SPIRV_OK)
            return s;
        target->flags |= ZF_ID_BUILTIN;
        return s;
    case SpvDecorationCPacked:
        target->flags |= ZF_ID_CPACKED;
        return s;
    case SpvDecorationFuncParamAttr:
        if ((s = zf_r_need_words(k, 4)) != ZF_SPIRV_OK)
            return s;
        if (k->w[3] == SpvFunctionParameterAttributeByVal)
            target->flags |= ZF_ID_BYVAL;
        else if (k->w[3] == SpvFunctionParameterAttributeNoWrite)
            target->flags |= ZF_ID_NOWRITE;
        return s;
    case SpvDecorationLinkageAttributes: {
        uint32_t next = 0;
        if ((s = zf_r_need_words(k, 5)) != ZF_SPIRV_OK || (s = zf_r_need_string(k, 3, "the linkage name", &next)))
            return s;
        if (next >= k->count)
            return zf_r_bad(k, "LinkageAttributes has no linkage type after its name");
        if (k->w[next] > SpvLinkageTypeLinkOnceODR)
            return zf_r_bad(k, "linkage type %u is not Export, Import or LinkOnceODR", k->w[next]);
        if (target->linkage != 0)
            return zf_r_bad(k, "a second LinkageAttributes decoration for the same id");
        target->linkage = k->offset;
        return s;
    }
    default:
        return s;
    }
}

zf_spirv_status zf_read_decorate(zf_walk *k) {
    zf_spirv_status s = zf_r_need_words(k, 3);
    if (s == ZF_SPIRV_OK)
        s = zf_r_check_id(k, 1, "the decorated id");
    if (s != ZF_SPIRV_OK)
        return s;
    return zf_read_decoration(k, &k->m->ids[k->w[1]]);
}

zf_spirv_status zf_read_group_decorate(zf_walk *k) {
    zf_spirv_status s = zf_r_need_words(k, 2);
    if (s == ZF_SPIRV_OK)
        s = zf_r_check_id(k, 1, "the decoration group");
    if (s != ZF_SPIRV_OK)
        return s;
    const zf_spirv_idinfo *group = &k->m->ids[k->w[1]];
    if (group->def == 0 || group->opcode != SpvOpDecorationGroup)
        return zf_r_bad(k, "%%%u is not an OpDecorationGroup defined before this instruction", k->w[1]);
    for (uint32_t i = 2; i < k->count; i++) {
        if ((s = zf_r_check_id(k, i, "a decorated id")) != ZF_SPIRV_OK)
            return s;
        zf_spirv_idinfo *target = &k->m->ids[k->w[i]];
        target->flags |= group->flags;
        if (group->flags & ZF_ID_SPEC_ID)
            target->spec_id = group->spec_id;
        if (group->linkage != 0 && target->linkage == 0)
            target->linkage = group->linkage;
    }
    return ZF_SPIRV_OK;
}
