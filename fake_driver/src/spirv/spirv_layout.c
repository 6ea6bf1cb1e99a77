/* Step 3 of reading SPIR-V: what the specialized module means for the driver. Type layouts follow the OpenCL C
 * rules (scalars and vectors aligned to their size, 3-component vectors sized as 4, structs laid out in order with
 * natural alignment unless CPacked), kernel parameters get the sizes zeKernelSetArgumentValue checks, module-scope
 * variables get sizes and initial values, and the linkage decorations become the module's symbols. */
#include "spirv_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Types larger than this are refused: it keeps every size computation far from overflow. */
#define ZF_SPIRV_MAX_TYPE_SIZE (1ull << 40)

static zf_spirv_status __attribute__((format(printf, 4, 5)))
zf_fail_at(zf_spirv_log *log, zf_spirv_status status, uint32_t offset, const char *format, ...) {
    char what[512];
    va_list args;
    va_start(args, format);
    vsnprintf(what, sizeof what, format, args);
    va_end(args);
    zf_spirv_log_printf(log, "SPIR-V word %u: %s", offset, what);
    return status;
}

static uint64_t zf_round_up(uint64_t value, uint32_t align) {
    return align > 1 ? (value + align - 1) / align * align : value;
}

/* The value of an integer constant (OpConstant or a specialization constant's current value). */
static zf_spirv_status zf_int_constant(const zf_spirv_module *m, uint32_t id, uint64_t *value, zf_spirv_log *log,
                                       uint32_t user) {
    const zf_spirv_idinfo *info = zf_spirv_id(m, id);
    if (info == NULL || info->def == 0 || (info->opcode != SpvOpConstant && info->opcode != SpvOpSpecConstant))
        return zf_fail_at(log, ZF_SPIRV_UNSUPPORTED, user, "%%%u is not an integer OpConstant or OpSpecConstant", id);
    const uint32_t *w = &m->words[info->def];
    const uint32_t *type = &m->words[m->ids[w[1]].def];
    if ((type[0] & 0xFFFFu) != SpvOpTypeInt)
        return zf_fail_at(log, ZF_SPIRV_UNSUPPORTED, user, "constant %%%u is not an integer", id);
    *value = type[2] > 32 ? ((uint64_t)w[4] << 32 | w[3]) : w[3];
    return ZF_SPIRV_OK;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Type layouts */

/* Size and alignment of a type whose layout is already known (types are laid out in definition order). */
static zf_spirv_status zf_layout_of(const zf_spirv_module *m, uint32_t id, uint64_t *size, uint32_t *align,
                                    zf_spirv_log *log, uint32_t user) {
    const zf_spirv_idinfo *info = zf_spirv_id(m, id);
    if (info != NULL && (info->opcode == SpvOpTypePointer || (info->flags & ZF_ID_FORWARD_POINTER))) {
        *size = 8; /* Physical64 */
        *align = 8;
        return ZF_SPIRV_OK;
    }
    if (info == NULL || info->def == 0 || info->index >= m->types.count ||
        ZF_SPIRV_AT(m->types, zf_spirv_type, info->index)->id != id)
        return zf_fail_at(log, ZF_SPIRV_MALFORMED, user, "%%%u is not a defined type", id);
    const zf_spirv_type *type = ZF_SPIRV_AT(m->types, zf_spirv_type, info->index);
    *size = type->size;
    *align = type->align;
    return ZF_SPIRV_OK;
}

static zf_spirv_status zf_layout_struct(const zf_spirv_module *m, uint32_t offset, bool packed, uint64_t *size,
                                        uint32_t *align, zf_spirv_log *log) {
    const uint32_t *w = &m->words[offset];
    uint32_t count = w[0] >> 16;
    uint64_t at = 0;
    uint32_t max_align = 1;
    for (uint32_t i = 2; i < count; i++) {
        uint64_t member_size;
        uint32_t member_align;
        zf_spirv_status s = zf_layout_of(m, w[i], &member_size, &member_align, log, offset);
        if (s != ZF_SPIRV_OK)
            return s;
        if (packed)
            member_align = 1;
        at = zf_round_up(at, member_align) + member_size;
        if (at > ZF_SPIRV_MAX_TYPE_SIZE)
            return zf_fail_at(log, ZF_SPIRV_UNSUPPORTED, offset, "struct larger than %llu bytes",
                              (unsigned long long)ZF_SPIRV_MAX_TYPE_SIZE);
        if (member_align > max_align)
            max_align = member_align;
    }
    *align = max_align;
    *size = zf_round_up(at, max_align);
    return ZF_SPIRV_OK;
}

static zf_spirv_status zf_layout_vector(const zf_spirv_module *m, const uint32_t *w, uint32_t offset, uint64_t *size,
                                        uint32_t *align, zf_spirv_log *log) {
    uint64_t elem_size;
    uint32_t elem_align;
    zf_spirv_status s = zf_layout_of(m, w[2], &elem_size, &elem_align, log, offset);
    if (s != ZF_SPIRV_OK)
        return s;
    uint32_t n = w[3] == 3 ? 4 : w[3]; /* OpenCL: a 3-component vector has the size and alignment of 4 */
    *size = elem_size * n;
    if ((w[0] & 0xFFFFu) == SpvOpTypeMatrix) {
        *size = elem_size * w[3];
        *align = elem_align;
        return ZF_SPIRV_OK;
    }
    *align = (*size & (*size - 1)) == 0 && *size > 0 ? (uint32_t)*size : elem_align;
    return ZF_SPIRV_OK;
}

static zf_spirv_status zf_layout_array(const zf_spirv_module *m, const uint32_t *w, uint32_t offset, uint64_t *size,
                                       uint32_t *align, zf_spirv_log *log) {
    uint64_t elem_size, length;
    zf_spirv_status s = zf_layout_of(m, w[2], &elem_size, align, log, offset);
    if (s == ZF_SPIRV_OK)
        s = zf_int_constant(m, w[3], &length, log, offset);
    if (s != ZF_SPIRV_OK)
        return s;
    if (length == 0)
        return zf_fail_at(log, ZF_SPIRV_MALFORMED, offset, "array length 0");
    if (elem_size != 0 && length > ZF_SPIRV_MAX_TYPE_SIZE / elem_size)
        return zf_fail_at(log, ZF_SPIRV_UNSUPPORTED, offset, "array larger than %llu bytes",
                          (unsigned long long)ZF_SPIRV_MAX_TYPE_SIZE);
    *size = elem_size * length;
    return ZF_SPIRV_OK;
}

static zf_spirv_status zf_layout_type(const zf_spirv_module *m, zf_spirv_type *type, zf_spirv_log *log) {
    const zf_spirv_idinfo *info = &m->ids[type->id];
    const uint32_t *w = &m->words[info->def];
    type->size = 0;
    type->align = 1;
    switch (info->opcode) {
    case SpvOpTypeBool:
        type->size = 1;
        return ZF_SPIRV_OK;
    case SpvOpTypeInt:
    case SpvOpTypeFloat:
        /* an integer of another width (SPV_INTEL_arbitrary_precision_integers) takes the next of 1, 2, 4, 8 bytes */
        type->size = w[2] <= 8 ? 1 : w[2] <= 16 ? 2 : w[2] <= 32 ? 4 : 8;
        type->align = (uint32_t)type->size;
        return ZF_SPIRV_OK;
    case SpvOpTypeVector:
    case SpvOpTypeMatrix:
        return zf_layout_vector(m, w, info->def, &type->size, &type->align, log);
    case SpvOpTypeArray:
        return zf_layout_array(m, w, info->def, &type->size, &type->align, log);
    case SpvOpTypeStruct:
        return zf_layout_struct(m, info->def, (info->flags & ZF_ID_CPACKED) != 0, &type->size, &type->align, log);
    case SpvOpTypePointer:
    case SpvOpTypeImage:
    case SpvOpTypeSampler:
    case SpvOpTypeSampledImage:
    case SpvOpTypeEvent:
    case SpvOpTypeDeviceEvent:
    case SpvOpTypeReserveId:
    case SpvOpTypeQueue:
    case SpvOpTypePipe:
    case SpvOpTypePipeStorage:
    case SpvOpTypeNamedBarrier:
        type->size = 8; /* pointers and handles of a 64-bit device */
        type->align = 8;
        return ZF_SPIRV_OK;
    default: /* void, runtime arrays, opaque types, function types: no size */
        return ZF_SPIRV_OK;
    }
}

/* ------------------------------------------------------------------------------------------------------------------
 * Type names (the parameter signatures that built-in kernels are matched on; docs/modules.md) */

/* snprintf for names that may be cut short: truncation is intended (names are bounded). */
static void __attribute__((format(printf, 3, 4))) zf_name_printf(char *out, size_t size, const char *format, ...) {
    va_list args;
    va_start(args, format);
    vsnprintf(out, size, format, args);
    va_end(args);
}

static const char *zf_storage_name(uint32_t storage, char *buf, size_t size) {
    static const char *const names[] = {"constant", "input",   "uniform",  "output", "local",
                                        "global",   "private", "function", "generic"};
    if (storage < sizeof names / sizeof names[0])
        return names[storage];
    snprintf(buf, size, "storage%u", storage);
    return buf;
}

static void zf_type_name(const zf_spirv_module *m, uint32_t id, char *out, size_t size, unsigned depth);

static void zf_struct_name(const zf_spirv_module *m, uint32_t id, char *out, size_t size) {
    const zf_spirv_idinfo *info = &m->ids[id];
    if (info->name == 0) {
        zf_name_printf(out, size, "struct %%%u", id);
        return;
    }
    const char *name = zf_spirv_string_at(m, info->name, 2);
    if (strncmp(name, "struct.", 7) == 0)
        name += 7; /* clang names OpenCL C structs "struct.<tag>" */
    zf_name_printf(out, size, "struct %s", name);
}

static void zf_type_name(const zf_spirv_module *m, uint32_t id, char *out, size_t size, unsigned depth) {
    const zf_spirv_idinfo *info = zf_spirv_id(m, id);
    if (info == NULL || info->def == 0 || depth > 8) {
        zf_name_printf(out, size, "?");
        return;
    }
    const uint32_t *w = &m->words[info->def];
    char inner[ZF_SPIRV_TYPE_NAME_MAX], buf[24];
    switch (info->opcode) {
    case SpvOpTypeVoid:
        zf_name_printf(out, size, "void");
        return;
    case SpvOpTypeBool:
        zf_name_printf(out, size, "bool");
        return;
    case SpvOpTypeInt:
    case SpvOpTypeFloat:
        zf_name_printf(out, size, "%c%u", info->opcode == SpvOpTypeInt ? 'i' : 'f', w[2]);
        return;
    case SpvOpTypeVector:
        zf_type_name(m, w[2], inner, sizeof inner, depth + 1);
        zf_name_printf(out, size, "%sx%u", inner, w[3]);
        return;
    case SpvOpTypeArray: {
        uint64_t length = 0;
        zf_type_name(m, w[2], inner, sizeof inner, depth + 1);
        if (zf_int_constant(m, w[3], &length, NULL, 0) != ZF_SPIRV_OK)
            length = 0;
        zf_name_printf(out, size, "%s[%llu]", inner, (unsigned long long)length);
        return;
    }
    case SpvOpTypeStruct:
        zf_struct_name(m, id, out, size);
        return;
    case SpvOpTypePointer:
        zf_type_name(m, w[3], inner, sizeof inner, depth + 1);
        zf_name_printf(out, size, "%s %s*", zf_storage_name(w[2], buf, sizeof buf), inner);
        return;
    case SpvOpTypeImage:
    case SpvOpTypeSampledImage:
        zf_name_printf(out, size, "image");
        return;
    case SpvOpTypeSampler:
        zf_name_printf(out, size, "sampler");
        return;
    case SpvOpTypeEvent:
        zf_name_printf(out, size, "event");
        return;
    default:
        zf_name_printf(out, size, "%s", zf_spirv_opcode_name(info->opcode, buf, sizeof buf) + 2); /* "TypeQueue"... */
        return;
    }
}

/* ------------------------------------------------------------------------------------------------------------------
 * Kernels */

static zf_spirv_status zf_build_arg(const zf_spirv_module *m, uint32_t param, zf_spirv_arg *arg, zf_spirv_log *log) {
    const zf_spirv_idinfo *info = &m->ids[param];
    uint32_t type = m->words[info->def + 1];
    const zf_spirv_idinfo *tinfo = &m->ids[type];
    arg->id = param;
    arg->size = 8;
    arg->align = 8;
    if (tinfo->opcode == SpvOpTypePointer) {
        const uint32_t *w = &m->words[tinfo->def];
        arg->storage = w[2];
        bool byval = (info->flags & ZF_ID_BYVAL) != 0 && w[2] == SpvStorageClassFunction;
        if (byval) { /* a struct passed by value: the application passes the struct itself */
            arg->kind = ZF_SPIRV_ARG_VALUE;
            arg->byval = true;
            zf_type_name(m, w[3], arg->type, sizeof arg->type, 0);
            return zf_layout_of(m, w[3], &arg->size, &arg->align, log, info->def);
        }
        arg->kind = w[2] == SpvStorageClassWorkgroup ? ZF_SPIRV_ARG_LOCAL : ZF_SPIRV_ARG_POINTER;
        if (arg->kind == ZF_SPIRV_ARG_LOCAL)
            arg->size = 0;
        zf_type_name(m, type, arg->type, sizeof arg->type, 0);
        return ZF_SPIRV_OK;
    }
    zf_type_name(m, type, arg->type, sizeof arg->type, 0);
    switch (tinfo->opcode) {
    case SpvOpTypeImage:
    case SpvOpTypeSampledImage:
        arg->kind = ZF_SPIRV_ARG_IMAGE;
        return ZF_SPIRV_OK;
    case SpvOpTypeSampler:
        arg->kind = ZF_SPIRV_ARG_SAMPLER;
        return ZF_SPIRV_OK;
    case SpvOpTypeEvent:
    case SpvOpTypeDeviceEvent:
    case SpvOpTypeReserveId:
    case SpvOpTypeQueue:
    case SpvOpTypePipe:
    case SpvOpTypePipeStorage:
        arg->kind = ZF_SPIRV_ARG_OPAQUE;
        return ZF_SPIRV_OK;
    default:
        arg->kind = ZF_SPIRV_ARG_VALUE;
        zf_spirv_status s = zf_layout_of(m, type, &arg->size, &arg->align, log, info->def);
        if (s == ZF_SPIRV_OK && arg->size == 0)
            return zf_fail_at(log, ZF_SPIRV_MALFORMED, info->def, "kernel parameter %%%u has a type without size",
                              param);
        return s;
    }
}

/* Size of the variable a pointer type points to. */
static zf_spirv_status zf_pointee_size(const zf_spirv_module *m, uint32_t pointer_type, uint64_t *size, uint32_t *align,
                                       zf_spirv_log *log) {
    const zf_spirv_idinfo *info = &m->ids[pointer_type];
    return zf_layout_of(m, m->words[info->def + 3], size, align, log, info->def);
}

/* Instructions and private memory of every function the kernel may call (a breadth-first walk of the call graph). */
static zf_spirv_status zf_walk_calls(const zf_spirv_module *m, const zf_spirv_entry *e, zf_spirv_kernel *kernel,
                                     zf_spirv_log *log) {
    uint32_t n = m->functions.count;
    uint32_t *queue = malloc((size_t)n * sizeof *queue);
    uint8_t *seen = calloc(n, 1);
    zf_spirv_status s = ZF_SPIRV_OK;
    if (queue == NULL || seen == NULL) {
        s = ZF_SPIRV_NO_MEMORY;
        goto out;
    }
    uint32_t head = 0, tail = 0;
    queue[tail++] = m->ids[e->function].index;
    seen[m->ids[e->function].index] = 1;
    while (head < tail && s == ZF_SPIRV_OK) {
        const zf_spirv_function *fn = ZF_SPIRV_AT(m->functions, zf_spirv_function, queue[head++]);
        kernel->instructions += fn->instructions;
        for (uint32_t i = 0; i < fn->num_locals && s == ZF_SPIRV_OK; i++) {
            uint64_t size;
            uint32_t align;
            s = zf_pointee_size(m, *ZF_SPIRV_AT(m->locals, uint32_t, fn->first_local + i), &size, &align, log);
            kernel->private_bytes = zf_round_up(kernel->private_bytes, align) + size;
        }
        for (uint32_t i = 0; i < fn->num_calls; i++) {
            uint32_t callee = m->ids[*ZF_SPIRV_AT(m->calls, uint32_t, fn->first_call + i)].index;
            if (!seen[callee]) {
                seen[callee] = 1;
                queue[tail++] = callee;
            }
        }
    }
out:
    free(queue);
    free(seen);
    return s;
}

static bool zf_is_interface(const zf_spirv_module *m, const zf_spirv_entry *e, uint32_t id) {
    for (uint32_t i = 0; i < e->interface_count; i++) {
        if (m->words[e->interface_first + i] == id)
            return true;
    }
    return false;
}

/* Module-scope Workgroup variables (`local` variables declared in kernels). SPIR-V 1.4 lists every global a kernel
 * uses in its interface; before 1.4 the interface holds only Input/Output, so each kernel is charged all of them. */
static zf_spirv_status zf_static_local(const zf_spirv_module *m, const zf_spirv_entry *e, zf_spirv_kernel *kernel,
                                       zf_spirv_log *log) {
    for (uint32_t i = 0; i < m->variables.count; i++) {
        const zf_spirv_variable *var = ZF_SPIRV_AT(m->variables, zf_spirv_variable, i);
        if (var->storage != SpvStorageClassWorkgroup)
            continue;
        if (m->version >= 0x00010400u && !zf_is_interface(m, e, var->id))
            continue;
        uint64_t size;
        uint32_t align;
        zf_spirv_status s = zf_pointee_size(m, var->type, &size, &align, log);
        if (s != ZF_SPIRV_OK)
            return s;
        kernel->static_local_bytes = zf_round_up(kernel->static_local_bytes, align) + size;
    }
    return ZF_SPIRV_OK;
}

static zf_spirv_status zf_resolve_modes(const zf_spirv_module *m, const zf_spirv_entry *e, zf_spirv_kernel *kernel,
                                        zf_spirv_log *log) {
    kernel->has_local_size = e->has_local_size || e->has_local_size_id;
    kernel->has_local_size_hint = e->has_local_size_hint || e->has_local_size_hint_id;
    memcpy(kernel->local_size, e->local_size, sizeof kernel->local_size);
    memcpy(kernel->local_size_hint, e->local_size_hint, sizeof kernel->local_size_hint);
    kernel->vec_type_hint = e->vec_type_hint;
    kernel->has_vec_type_hint = e->has_vec_type_hint;
    kernel->subgroup_size = e->subgroup_size;
    kernel->subgroups_per_workgroup = e->subgroups_per_workgroup;
    for (int d = 0; d < 3; d++) {
        uint64_t v;
        zf_spirv_status s;
        if (e->has_local_size_id) {
            if ((s = zf_int_constant(m, e->local_size_id[d], &v, log, e->offset)) != ZF_SPIRV_OK)
                return s;
            kernel->local_size[d] = (uint32_t)v;
        }
        if (e->has_local_size_hint_id) {
            if ((s = zf_int_constant(m, e->local_size_hint_id[d], &v, log, e->offset)) != ZF_SPIRV_OK)
                return s;
            kernel->local_size_hint[d] = (uint32_t)v;
        }
    }
    if (kernel->has_local_size &&
        (kernel->local_size[0] == 0 || kernel->local_size[1] == 0 || kernel->local_size[2] == 0))
        return zf_fail_at(log, ZF_SPIRV_MALFORMED, e->offset, "kernel '%s' requires a work-group size with a 0 in it",
                          e->name);
    if (e->subgroups_per_workgroup_id != 0) {
        uint64_t v;
        zf_spirv_status s = zf_int_constant(m, e->subgroups_per_workgroup_id, &v, log, e->offset);
        if (s != ZF_SPIRV_OK)
            return s;
        kernel->subgroups_per_workgroup = (uint32_t)v;
    }
    return ZF_SPIRV_OK;
}

/* The OpenCL C attributes the execution modes came from, as clGetKernelInfo(CL_KERNEL_ATTRIBUTES) spells them. */
static char *zf_attributes(const zf_spirv_kernel *k) {
    static const char *const vec_types[] = {"char", "short", "int", "long", "half", "float", "double"};
    char text[256] = "";
    size_t used = 0;
    if (k->has_local_size)
        used += (size_t)snprintf(text + used, sizeof text - used, "reqd_work_group_size(%u,%u,%u) ", k->local_size[0],
                                 k->local_size[1], k->local_size[2]);
    if (k->has_local_size_hint && used < sizeof text)
        used += (size_t)snprintf(text + used, sizeof text - used, "work_group_size_hint(%u,%u,%u) ",
                                 k->local_size_hint[0], k->local_size_hint[1], k->local_size_hint[2]);
    if (k->has_vec_type_hint && used < sizeof text) {
        uint32_t type = k->vec_type_hint & 0xFFFFu, n = k->vec_type_hint >> 16;
        const char *name = type < 7 ? vec_types[type] : "unknown";
        if (n > 1)
            used += (size_t)snprintf(text + used, sizeof text - used, "vec_type_hint(%s%u) ", name, n);
        else
            used += (size_t)snprintf(text + used, sizeof text - used, "vec_type_hint(%s) ", name);
    }
    if (k->subgroup_size != 0 && used < sizeof text)
        used += (size_t)snprintf(text + used, sizeof text - used, "intel_reqd_sub_group_size(%u) ", k->subgroup_size);
    used = strlen(text);
    if (used > 0)
        text[used - 1] = '\0'; /* the trailing separator */
    return strdup(text);
}

static zf_spirv_status zf_build_kernel(const zf_spirv_module *m, const zf_spirv_entry *e, zf_spirv_kernel *kernel,
                                       zf_spirv_log *log) {
    const zf_spirv_function *fn = ZF_SPIRV_AT(m->functions, zf_spirv_function, m->ids[e->function].index);
    kernel->name = e->name;
    kernel->function = e->function;
    kernel->num_args = fn->num_params;
    kernel->args = calloc(fn->num_params ? fn->num_params : 1, sizeof *kernel->args);
    if (kernel->args == NULL)
        return ZF_SPIRV_NO_MEMORY;
    for (uint32_t i = 0; i < fn->num_params; i++) {
        zf_spirv_status s =
            zf_build_arg(m, *ZF_SPIRV_AT(m->params, uint32_t, fn->first_param + i), &kernel->args[i], log);
        if (s != ZF_SPIRV_OK)
            return s;
    }
    zf_spirv_status s = zf_resolve_modes(m, e, kernel, log);
    if (s == ZF_SPIRV_OK)
        s = zf_walk_calls(m, e, kernel, log);
    if (s == ZF_SPIRV_OK)
        s = zf_static_local(m, e, kernel, log);
    if (s == ZF_SPIRV_OK && (kernel->attributes = zf_attributes(kernel)) == NULL)
        s = ZF_SPIRV_NO_MEMORY;
    return s;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Globals and symbols */

static const char *zf_linkage_name(const zf_spirv_module *m, const zf_spirv_idinfo *info, zf_spirv_linkage *linkage) {
    *linkage = ZF_SPIRV_LINK_NONE;
    if (info->linkage == 0)
        return NULL;
    const char *name = zf_spirv_string_at(m, info->linkage, 3);
    uint32_t count = zf_spirv_count_at(m, info->linkage);
    /* The linkage type is the last word (the walk checked that it follows the string and is one of the three). */
    uint32_t type = m->words[info->linkage + count - 1];
    *linkage = type == SpvLinkageTypeImport        ? ZF_SPIRV_LINK_IMPORT
               : type == SpvLinkageTypeLinkOnceODR ? ZF_SPIRV_LINK_ONCE_ODR
                                                   : ZF_SPIRV_LINK_EXPORT;
    return name;
}

static const char *zf_linkage_word(zf_spirv_linkage linkage) {
    return linkage == ZF_SPIRV_LINK_IMPORT     ? "imported"
           : linkage == ZF_SPIRV_LINK_ONCE_ODR ? "LinkOnceODR"
                                               : "exported";
}

static zf_spirv_status zf_build_globals(zf_spirv_module *m, zf_spirv_log *log) {
    for (uint32_t i = 0; i < m->variables.count; i++) {
        const zf_spirv_variable *var = ZF_SPIRV_AT(m->variables, zf_spirv_variable, i);
        const zf_spirv_idinfo *info = &m->ids[var->id];
        if ((var->storage != SpvStorageClassCrossWorkgroup && var->storage != SpvStorageClassUniformConstant) ||
            (info->flags & ZF_ID_BUILTIN))
            continue;
        zf_spirv_global *global = zf_spirv_array_push(&m->globals, sizeof *global);
        if (global == NULL)
            return ZF_SPIRV_NO_MEMORY;
        global->id = var->id;
        global->storage = var->storage;
        global->initializer = var->initializer;
        global->name = zf_linkage_name(m, info, &global->linkage);
        if (global->name == NULL && info->name != 0)
            global->name = zf_spirv_string_at(m, info->name, 2);
        zf_spirv_status s = zf_pointee_size(m, var->type, &global->size, &global->align, log);
        if (s != ZF_SPIRV_OK)
            return s;
        if (global->linkage == ZF_SPIRV_LINK_IMPORT && global->initializer != 0)
            return zf_fail_at(log, ZF_SPIRV_MALFORMED, var->offset, "imported variable %%%u has an initializer",
                              var->id);
    }
    return ZF_SPIRV_OK;
}

static zf_spirv_status zf_build_symbol(zf_spirv_module *m, uint32_t id, zf_spirv_log *log) {
    const zf_spirv_idinfo *info = &m->ids[id];
    zf_spirv_linkage linkage;
    const char *name = zf_linkage_name(m, info, &linkage);
    if (info->def == 0 || (info->opcode != SpvOpFunction && info->opcode != SpvOpVariable))
        return zf_fail_at(log, ZF_SPIRV_MALFORMED, info->linkage,
                          "LinkageAttributes '%s' decorates %%%u, which is not a function or module-scope variable",
                          name, id);
    if (info->flags & ZF_ID_BUILTIN)
        return ZF_SPIRV_OK; /* built-in variables (work-item ids...) are provided by the device, not by a module */
    zf_spirv_symbol *symbol = zf_spirv_array_push(&m->symbols, sizeof *symbol);
    if (symbol == NULL)
        return ZF_SPIRV_NO_MEMORY;
    symbol->name = name;
    symbol->id = id;
    symbol->linkage = linkage;
    symbol->is_function = info->opcode == SpvOpFunction;
    if (symbol->is_function) {
        const zf_spirv_function *fn = ZF_SPIRV_AT(m->functions, zf_spirv_function, info->index);
        symbol->num_params = fn->num_params;
        symbol->type = fn->type;
        if ((linkage == ZF_SPIRV_LINK_IMPORT) != (fn->body == 0))
            return zf_fail_at(log, ZF_SPIRV_MALFORMED, fn->offset, "function '%s' is %s but %s a body", name,
                              zf_linkage_word(linkage), fn->body == 0 ? "has no" : "has");
        return ZF_SPIRV_OK;
    }
    uint32_t align;
    symbol->type = ZF_SPIRV_AT(m->variables, zf_spirv_variable, info->index)->type;
    return zf_pointee_size(m, symbol->type, &symbol->size, &align, log);
}

static zf_spirv_status zf_build_symbols(zf_spirv_module *m, zf_spirv_log *log) {
    for (uint32_t id = 1; id < m->bound; id++) {
        if (m->ids[id].linkage == 0 || m->ids[id].opcode == SpvOpDecorationGroup)
            continue;
        zf_spirv_status s = zf_build_symbol(m, id, log);
        if (s != ZF_SPIRV_OK)
            return s;
    }
    return ZF_SPIRV_OK;
}

zf_spirv_status zf_spirv_finish(zf_spirv_module *m, zf_spirv_log *log) {
    if (m->finished)
        return ZF_SPIRV_OK;
    zf_spirv_status s = ZF_SPIRV_OK;
    for (uint32_t i = 0; i < m->types.count && s == ZF_SPIRV_OK; i++)
        s = zf_layout_type(m, ZF_SPIRV_AT(m->types, zf_spirv_type, i), log);
    for (uint32_t i = 0; i < m->entries.count && s == ZF_SPIRV_OK; i++) {
        zf_spirv_kernel *kernel = zf_spirv_array_push(&m->kernels, sizeof *kernel);
        s = kernel == NULL ? ZF_SPIRV_NO_MEMORY
                           : zf_build_kernel(m, ZF_SPIRV_AT(m->entries, zf_spirv_entry, i), kernel, log);
    }
    if (s == ZF_SPIRV_OK)
        s = zf_build_globals(m, log);
    if (s == ZF_SPIRV_OK)
        s = zf_build_symbols(m, log);
    if (s == ZF_SPIRV_NO_MEMORY)
        zf_spirv_log_printf(log, "SPIR-V: out of host memory while laying out the module");
    m->finished = s == ZF_SPIRV_OK;
    return s;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Initial values of globals */

/* How an initializer reaches the addresses of the module's variables. */
typedef struct zf_init_env {
    zf_spirv_address_fn address;
    void *user;
} zf_init_env;

static zf_spirv_status zf_write_constant(const zf_spirv_module *m, const zf_init_env *env, uint32_t id, uint8_t *dst,
                                         uint64_t room, unsigned depth, zf_spirv_log *log);

static zf_spirv_status zf_write_composite(const zf_spirv_module *m, const zf_init_env *env, const uint32_t *w,
                                          uint32_t offset, uint8_t *dst, uint64_t room, unsigned depth,
                                          zf_spirv_log *log) {
    uint32_t type = w[1];
    const zf_spirv_idinfo *tinfo = &m->ids[type];
    const uint32_t *t = &m->words[tinfo->def];
    uint32_t count = (w[0] >> 16) - 3;
    bool is_struct = tinfo->opcode == SpvOpTypeStruct;
    if (tinfo->def == 0 || (!is_struct && tinfo->opcode != SpvOpTypeArray && tinfo->opcode != SpvOpTypeVector &&
                            tinfo->opcode != SpvOpTypeMatrix))
        return zf_fail_at(log, ZF_SPIRV_MALFORMED, offset, "a composite constant of a non-composite type %%%u", type);
    uint32_t expected = is_struct ? (t[0] >> 16) - 2 : t[3];
    if (tinfo->opcode == SpvOpTypeArray) {
        uint64_t length = 0;
        zf_spirv_status s = zf_int_constant(m, t[3], &length, log, offset);
        if (s != ZF_SPIRV_OK)
            return s;
        expected = length > UINT32_MAX ? UINT32_MAX : (uint32_t)length;
    }
    if (count != expected)
        return zf_fail_at(log, ZF_SPIRV_MALFORMED, offset, "%u constituents for a type with %u", count, expected);
    uint64_t at = 0;
    for (uint32_t i = 0; i < count; i++) {
        uint64_t size;
        uint32_t align;
        zf_spirv_status s = zf_layout_of(m, is_struct ? t[2 + i] : t[2], &size, &align, log, offset);
        if (s != ZF_SPIRV_OK)
            return s;
        if (is_struct && !(tinfo->flags & ZF_ID_CPACKED))
            at = zf_round_up(at, align);
        if (at > room || size > room - at)
            return zf_fail_at(log, ZF_SPIRV_MALFORMED, offset, "constituent %u does not fit its type", i);
        s = zf_write_constant(m, env, w[3 + i], dst + at, size, depth + 1, log);
        if (s != ZF_SPIRV_OK)
            return s;
        at += size;
    }
    return ZF_SPIRV_OK;
}

/* The pointee type of pointer type `type`, 0 when it is not a pointer type. */
static uint32_t zf_pointee_type(const zf_spirv_module *m, uint32_t type) {
    const zf_spirv_idinfo *info = zf_spirv_id(m, type);
    return info != NULL && info->def != 0 && info->opcode == SpvOpTypePointer ? m->words[info->def + 3] : 0;
}

/* The byte offset of member `index` of the struct type at word `def`, and the member's type. */
static zf_spirv_status zf_member_offset(const zf_spirv_module *m, uint32_t type, uint64_t index, uint64_t *offset,
                                        uint32_t *member, zf_spirv_log *log, uint32_t user) {
    const zf_spirv_idinfo *info = zf_spirv_id(m, type);
    const uint32_t *w = &m->words[info->def];
    if (index >= (w[0] >> 16) - 2u)
        return zf_fail_at(log, ZF_SPIRV_MALFORMED, user, "member %llu of a struct of %u members",
                          (unsigned long long)index, (w[0] >> 16) - 2u);
    uint64_t at = 0, size = 0;
    uint32_t align = 1;
    for (uint32_t i = 0; i <= index; i++) {
        zf_spirv_status s = zf_layout_of(m, w[2 + i], &size, &align, log, user);
        if (s != ZF_SPIRV_OK)
            return s;
        at = (info->flags & ZF_ID_CPACKED) ? at : zf_round_up(at, align);
        if (i < index)
            at += size;
    }
    *offset = at;
    *member = w[2 + index];
    return ZF_SPIRV_OK;
}

/* Walks the constant indexes w[0..n) of an access chain from the pointee type *type, adding their offsets. */
static zf_spirv_status zf_chain_offset(const zf_spirv_module *m, const uint32_t *w, uint32_t n, uint32_t *type,
                                       uint64_t *value, zf_spirv_log *log, uint32_t user) {
    for (uint32_t i = 0; i < n; i++) {
        uint64_t index = 0, offset = 0, size = 0;
        uint32_t align = 1;
        const zf_spirv_idinfo *t = zf_spirv_id(m, *type);
        zf_spirv_status s = zf_int_constant(m, w[i], &index, log, user);
        if (s != ZF_SPIRV_OK)
            return s;
        if (t != NULL && t->opcode == SpvOpTypeStruct) {
            s = zf_member_offset(m, *type, index, &offset, type, log, user);
        } else if (t != NULL && (t->opcode == SpvOpTypeArray || t->opcode == SpvOpTypeVector)) {
            *type = m->words[t->def + 2];
            s = zf_layout_of(m, *type, &size, &align, log, user);
            offset = index * size;
        } else {
            return zf_fail_at(log, ZF_SPIRV_MALFORMED, user, "an access chain index into a type without members");
        }
        if (s != ZF_SPIRV_OK)
            return s;
        *value += offset;
    }
    return ZF_SPIRV_OK;
}

/* The value of a pointer constant: a module-scope variable's address, a null pointer, or an OpSpecConstantOp cast or
 * access chain of one (llvm-spirv-14's program-scope `constant T *constant p = &table[2]`). */
static zf_spirv_status zf_pointer_constant(const zf_spirv_module *m, const zf_init_env *env, uint32_t id,
                                           uint64_t *value, unsigned depth, zf_spirv_log *log) {
    const zf_spirv_idinfo *info = zf_spirv_id(m, id);
    if (info == NULL || info->def == 0)
        return zf_fail_at(log, ZF_SPIRV_MALFORMED, 0, "initializer %%%u is not defined", id);
    if (depth > ZF_SPIRV_MAX_NESTING)
        return zf_fail_at(log, ZF_SPIRV_UNSUPPORTED, info->def, "constants nested deeper than %u",
                          ZF_SPIRV_MAX_NESTING);
    const uint32_t *w = &m->words[info->def];
    uint32_t n = w[0] >> 16;
    if (info->opcode == SpvOpConstantNull) {
        *value = 0;
        return ZF_SPIRV_OK;
    }
    if (info->opcode == SpvOpVariable) {
        *value = env->address != NULL ? env->address(env->user, id) : 0;
        return *value != 0 ? ZF_SPIRV_OK
                           : zf_fail_at(log, ZF_SPIRV_UNSUPPORTED, info->def,
                                        "an initializer pointing at a variable another module defines");
    }
    if (info->opcode != SpvOpSpecConstantOp || n < 5)
        return zf_fail_at(log, ZF_SPIRV_UNSUPPORTED, info->def, "a pointer initializer that is no constant address");
    uint32_t op = w[3];
    zf_spirv_status s = zf_pointer_constant(m, env, w[4], value, depth + 1, log);
    if (s != ZF_SPIRV_OK || op == SpvOpBitcast || op == SpvOpGenericCastToPtr || op == SpvOpPtrCastToGeneric)
        return s;
    uint32_t type = zf_pointee_type(m, m->ids[w[4]].def != 0 ? m->words[m->ids[w[4]].def + 1] : 0);
    uint32_t first = 5;
    if (type == 0)
        return zf_fail_at(log, ZF_SPIRV_MALFORMED, info->def, "an access chain of a value that is no pointer");
    if (op == SpvOpPtrAccessChain || op == SpvOpInBoundsPtrAccessChain) {
        uint64_t element = 0, size = 0;
        uint32_t align = 1;
        if (n < 6 || (s = zf_int_constant(m, w[5], &element, log, info->def)) != ZF_SPIRV_OK ||
            (s = zf_layout_of(m, type, &size, &align, log, info->def)) != ZF_SPIRV_OK)
            return s != ZF_SPIRV_OK ? s : zf_fail_at(log, ZF_SPIRV_MALFORMED, info->def, "a chain without element");
        *value += element * size;
        first = 6;
    } else if (op != SpvOpAccessChain && op != SpvOpInBoundsAccessChain) {
        char buf[24];
        return zf_fail_at(log, ZF_SPIRV_UNSUPPORTED, info->def, "a pointer initializer computed by %s",
                          zf_spirv_opcode_name(op, buf, sizeof buf));
    }
    return zf_chain_offset(m, &w[first], n - first, &type, value, log, info->def);
}

static zf_spirv_status zf_write_constant(const zf_spirv_module *m, const zf_init_env *env, uint32_t id, uint8_t *dst,
                                         uint64_t room, unsigned depth, zf_spirv_log *log) {
    const zf_spirv_idinfo *info = zf_spirv_id(m, id);
    if (info == NULL || info->def == 0)
        return zf_fail_at(log, ZF_SPIRV_MALFORMED, 0, "initializer %%%u is not defined", id);
    if (depth > ZF_SPIRV_MAX_NESTING)
        return zf_fail_at(log, ZF_SPIRV_UNSUPPORTED, info->def, "constants nested deeper than %u",
                          ZF_SPIRV_MAX_NESTING);
    const uint32_t *w = &m->words[info->def];
    char buf[24];
    switch (w[0] & 0xFFFFu) { /* the words: specializing a boolean rewrote its opcode */
    case SpvOpConstant:
    case SpvOpSpecConstant: {
        uint32_t bytes = m->words[m->ids[w[1]].def + 2] / 8;
        memcpy(dst, &w[3], bytes < room ? bytes : room);
        return ZF_SPIRV_OK;
    }
    case SpvOpConstantTrue:
    case SpvOpSpecConstantTrue:
        if (room > 0)
            dst[0] = 1;
        return ZF_SPIRV_OK;
    case SpvOpConstantFalse:
    case SpvOpSpecConstantFalse:
    case SpvOpConstantNull:
    case SpvOpUndef:
        return ZF_SPIRV_OK; /* the destination is already zero */
    case SpvOpConstantComposite:
    case SpvOpSpecConstantComposite:
        return zf_write_composite(m, env, w, info->def, dst, room, depth, log);
    case SpvOpConstantSampler: { /* a program-scope `constant sampler_t`: the value a kernel's sampler holds */
        uint64_t value;
        if (room < sizeof value || !zf_spirv_inline_sampler(w, zf_spirv_count_at(m, info->def), &value))
            return zf_fail_at(log, ZF_SPIRV_MALFORMED, info->def, "a malformed OpConstantSampler");
        memcpy(dst, &value, sizeof value);
        return ZF_SPIRV_OK;
    }
    case SpvOpVariable:
    case SpvOpSpecConstantOp: {
        uint64_t value = 0;
        zf_spirv_status s = zf_pointer_constant(m, env, id, &value, depth, log);
        if (s == ZF_SPIRV_OK)
            memcpy(dst, &value, room < sizeof value ? room : sizeof value);
        return s;
    }
    default:
        return zf_fail_at(log, ZF_SPIRV_UNSUPPORTED, info->def,
                          "a module-scope variable initialized by %s is not supported yet",
                          zf_spirv_opcode_name(info->opcode, buf, sizeof buf));
    }
}

zf_spirv_status zf_spirv_global_init(const zf_spirv_module *m, const zf_spirv_global *global, void *dst,
                                     zf_spirv_address_fn address, void *user, zf_spirv_log *log) {
    if (global->initializer == 0)
        return ZF_SPIRV_OK;
    zf_init_env env = {address, user};
    return zf_write_constant(m, &env, global->initializer, dst, global->size, 0, log);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Accessors */

uint32_t zf_spirv_kernel_count(const zf_spirv_module *m) {
    return m->kernels.count;
}

const zf_spirv_kernel *zf_spirv_kernel_at(const zf_spirv_module *m, uint32_t index) {
    return index < m->kernels.count ? ZF_SPIRV_AT(m->kernels, zf_spirv_kernel, index) : NULL;
}

const zf_spirv_kernel *zf_spirv_find_kernel(const zf_spirv_module *m, const char *name) {
    for (uint32_t i = 0; i < m->kernels.count; i++) {
        const zf_spirv_kernel *kernel = ZF_SPIRV_AT(m->kernels, zf_spirv_kernel, i);
        if (strcmp(kernel->name, name) == 0)
            return kernel;
    }
    return NULL;
}

uint32_t zf_spirv_global_count(const zf_spirv_module *m) {
    return m->globals.count;
}

const zf_spirv_global *zf_spirv_global_at(const zf_spirv_module *m, uint32_t index) {
    return index < m->globals.count ? ZF_SPIRV_AT(m->globals, zf_spirv_global, index) : NULL;
}

uint32_t zf_spirv_symbol_count(const zf_spirv_module *m) {
    return m->symbols.count;
}

const zf_spirv_symbol *zf_spirv_symbol_at(const zf_spirv_module *m, uint32_t index) {
    return index < m->symbols.count ? ZF_SPIRV_AT(m->symbols, zf_spirv_symbol, index) : NULL;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Symbol types: the link-time comparison of definitions several modules hold (LinkOnceODR, docs/modules.md) */

/* Bounds one comparison: types needing more distinct pairs, or nested deeper than ZF_SPIRV_MAX_NESTING, compare as
 * different (no real signature comes near either). */
#define ZF_TYPE_PAIRS_MAX 1024u

/* The type pairs met in one comparison, compared or under comparison. A pair met again is taken as equal: any
 * difference ends the whole comparison (every rule is a conjunction), so the assumption is safe; recursive types (a
 * struct holding a pointer to itself) then compare equal when they recur in step, and a type used many times is
 * compared once. */
typedef struct zf_type_pairs {
    uint32_t a[ZF_TYPE_PAIRS_MAX];
    uint32_t b[ZF_TYPE_PAIRS_MAX];
    uint32_t count;
    uint32_t depth;
} zf_type_pairs;

static bool zf_same_type(const zf_spirv_module *ma, uint32_t ta, const zf_spirv_module *mb, uint32_t tb,
                         zf_type_pairs *pairs);

/* Operand words first .. count - 1 of two type instructions, all type ids. */
static bool zf_same_type_operands(const zf_spirv_module *ma, const uint32_t *wa, const zf_spirv_module *mb,
                                  const uint32_t *wb, uint32_t first, uint32_t count, zf_type_pairs *pairs) {
    for (uint32_t i = first; i < count; i++)
        if (!zf_same_type(ma, wa[i], mb, wb[i], pairs))
            return false;
    return true;
}

static bool zf_same_array_length(const zf_spirv_module *ma, uint32_t la, const zf_spirv_module *mb, uint32_t lb) {
    uint64_t a = 0, b = 0;
    return zf_int_constant(ma, la, &a, NULL, 0) == ZF_SPIRV_OK && zf_int_constant(mb, lb, &b, NULL, 0) == ZF_SPIRV_OK &&
           a == b;
}

/* Two type instructions of the same opcode and word count: type operands compare as types, the others as words. */
static bool zf_same_type_words(const zf_spirv_module *ma, const uint32_t *wa, const zf_spirv_module *mb,
                               const uint32_t *wb, zf_type_pairs *pairs) {
    uint32_t count = wa[0] >> 16;
    switch (wa[0] & 0xFFFFu) {
    case SpvOpTypeVector:
    case SpvOpTypeMatrix:
        return wa[3] == wb[3] && zf_same_type(ma, wa[2], mb, wb[2], pairs);
    case SpvOpTypeArray:
        return zf_same_array_length(ma, wa[3], mb, wb[3]) && zf_same_type(ma, wa[2], mb, wb[2], pairs);
    case SpvOpTypeRuntimeArray:
    case SpvOpTypeSampledImage:
        return zf_same_type(ma, wa[2], mb, wb[2], pairs);
    case SpvOpTypeStruct:
    case SpvOpTypeFunction: /* members; result and parameters */
        return zf_same_type_operands(ma, wa, mb, wb, 2, count, pairs);
    case SpvOpTypePointer:
        return wa[2] == wb[2] && zf_same_type(ma, wa[3], mb, wb[3], pairs);
    case SpvOpTypeImage: /* the sampled type, then dimensions, depth, arrayed, ... as literals */
        return zf_same_type(ma, wa[2], mb, wb[2], pairs) && memcmp(&wa[3], &wb[3], (count - 3) * 4u) == 0;
    case SpvOpTypeOpaque: /* the name (checked NUL-terminated by the walk) */
        return strcmp((const char *)&wa[2], (const char *)&wb[2]) == 0;
    default: /* void, bool, int (width, signedness), float (width), sampler, event, pipe...: literals only */
        return count < 2 || memcmp(&wa[2], &wb[2], (count - 2) * 4u) == 0;
    }
}

static bool zf_same_type(const zf_spirv_module *ma, uint32_t ta, const zf_spirv_module *mb, uint32_t tb,
                         zf_type_pairs *pairs) {
    const zf_spirv_idinfo *ia = zf_spirv_id(ma, ta), *ib = zf_spirv_id(mb, tb);
    if (ia == NULL || ib == NULL || ia->def == 0 || ib->def == 0)
        return false;
    const uint32_t *wa = &ma->words[ia->def], *wb = &mb->words[ib->def];
    if (wa[0] != wb[0] || (ia->flags & ZF_ID_CPACKED) != (ib->flags & ZF_ID_CPACKED))
        return false; /* another opcode or word count, or another struct layout */
    for (uint32_t i = 0; i < pairs->count; i++)
        if (pairs->a[i] == ta && pairs->b[i] == tb)
            return true;
    if (pairs->count == ZF_TYPE_PAIRS_MAX || pairs->depth == ZF_SPIRV_MAX_NESTING)
        return false;
    pairs->a[pairs->count] = ta;
    pairs->b[pairs->count] = tb;
    pairs->count++;
    pairs->depth++;
    bool same = zf_same_type_words(ma, wa, mb, wb, pairs);
    pairs->depth--;
    return same;
}

bool zf_spirv_symbol_same_type(const zf_spirv_module *a, const zf_spirv_symbol *sa, const zf_spirv_module *b,
                               const zf_spirv_symbol *sb) {
    zf_type_pairs pairs = {.count = 0};
    return sa->is_function == sb->is_function && zf_same_type(a, sa->type, b, sb->type, &pairs);
}

/* Appends `text` to the NUL-terminated name in `out`, cut short at `size` bytes. */
static void zf_name_append(char *out, size_t size, const char *text) {
    size_t at = strlen(out);
    if (at + 1 < size)
        zf_name_printf(out + at, size - at, "%s", text);
}

void zf_spirv_symbol_type_name(const zf_spirv_module *m, const zf_spirv_symbol *symbol, char *out, size_t size) {
    if (size == 0)
        return;
    const zf_spirv_idinfo *info = zf_spirv_id(m, symbol->type);
    if (info == NULL || info->def == 0) {
        zf_name_printf(out, size, "?");
        return;
    }
    const uint32_t *w = &m->words[info->def];
    char part[ZF_SPIRV_TYPE_NAME_MAX], buf[24];
    if (!symbol->is_function) { /* the pointer type of the variable: its storage class and what it holds */
        zf_type_name(m, w[3], part, sizeof part, 0);
        zf_name_printf(out, size, "%s %s", zf_storage_name(w[2], buf, sizeof buf), part);
        return;
    }
    zf_type_name(m, w[2], part, sizeof part, 0);
    zf_name_printf(out, size, "%s(", part);
    for (uint32_t i = 3; i < zf_spirv_count_at(m, info->def); i++) {
        zf_type_name(m, w[i], part, sizeof part, 0);
        if (i > 3)
            zf_name_append(out, size, ", ");
        zf_name_append(out, size, part);
    }
    zf_name_append(out, size, ")");
}
