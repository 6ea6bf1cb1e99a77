/* The decoder, module level: diagnostics, the growable tables of the form, types, module-scope values (constants,
 * variables, built-ins, function pointers), constant evaluation and operand references. Functions and blocks are
 * decoded in spirv_decode_func.c, single instructions in spirv_decode_inst.c. */
#include "spirv_decode.h"
#include "compiled/cx.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A register (one value, per lane) larger than this is refused: no OpenCL value needs more (a double16 is 128). */
#define ZF_MAX_VALUE_BYTES (64u << 10)

/* ------------------------------------------------------------------------------------------------------------------
 * Tables and diagnostics */

void *zf_vec_push(zf_vec *vec, size_t item_size) {
    if (vec->count == vec->capacity) {
        uint32_t capacity = vec->capacity ? vec->capacity * 2 : 16;
        if (capacity <= vec->capacity)
            return NULL;
        void *items = realloc(vec->items, (size_t)capacity * item_size);
        if (items == NULL)
            return NULL;
        vec->items = items;
        vec->capacity = capacity;
    }
    void *item = (char *)vec->items + (size_t)vec->count * item_size;
    memset(item, 0, item_size);
    vec->count++;
    return item;
}

static void zf_vec_free(zf_vec *vec) {
    free(vec->items);
    memset(vec, 0, sizeof *vec);
}

static zf_spirv_status zf_d_report(zf_decoder *d, zf_spirv_status status, const char *format, va_list args) {
    char what[512];
    vsnprintf(what, sizeof what, format, args);
    char buf[24];
    const zf_spirv_module *m = d->m;
    uint32_t opcode = d->word > 0 && d->word < m->num_words ? zf_spirv_opcode_at(m, d->word) : SpvOpNop;
    const char *name = zf_spirv_opcode_name(opcode, buf, sizeof buf);
    if (d->fn_id != 0)
        zf_spirv_log_printf(d->log, "SPIR-V word %u (%s) in function %%%u: %s", d->word, name, d->fn_id, what);
    else
        zf_spirv_log_printf(d->log, "SPIR-V word %u (%s): %s", d->word, name, what);
    d->failed = true;
    return status;
}

zf_spirv_status zf_d_fail(zf_decoder *d, zf_spirv_status status, const char *format, ...) {
    va_list args;
    va_start(args, format);
    zf_spirv_status s = zf_d_report(d, status, format, args);
    va_end(args);
    return s;
}

zf_spirv_status zf_d_malformed(zf_decoder *d, const char *format, ...) {
    va_list args;
    va_start(args, format);
    zf_spirv_status s = zf_d_report(d, ZF_SPIRV_MALFORMED, format, args);
    va_end(args);
    return s;
}

zf_spirv_status zf_d_no_memory(zf_decoder *d) {
    zf_spirv_log_printf(d->log, "SPIR-V word %u: out of host memory while decoding the module", d->word);
    d->failed = true;
    return ZF_SPIRV_NO_MEMORY;
}

zf_spirv_status zf_d_unsupported(zf_decoder *d, uint32_t opcode, const char *why) {
    char buf[24];
    return zf_d_fail(d, ZF_SPIRV_UNSUPPORTED, "%s is not supported by the execution engine%s%s",
                     zf_spirv_opcode_name(opcode, buf, sizeof buf), why != NULL ? ": " : "", why != NULL ? why : "");
}

zf_dinst *zf_d_emit(zf_decoder *d, uint32_t op) {
    zf_dinst *inst = zf_vec_push(&d->insts, sizeof *inst);
    uint32_t *word = zf_vec_push(&d->words, sizeof *word);
    if (inst == NULL || word == NULL) {
        zf_d_no_memory(d);
        return NULL;
    }
    *word = d->word;
    inst->op = (uint16_t)op;
    inst->dst = inst->a = inst->b = inst->c = ZF_REF_NONE;
    inst->comps = 1;
    return inst;
}

uint32_t zf_d_aux(zf_decoder *d, uint32_t count) {
    uint32_t first = d->aux.count;
    for (uint32_t i = 0; i < count; i++) {
        if (zf_vec_push(&d->aux, sizeof(uint32_t)) == NULL) {
            zf_d_no_memory(d);
            return UINT32_MAX;
        }
    }
    return first;
}

uint32_t *zf_d_aux_at(zf_decoder *d, uint32_t index) {
    return (uint32_t *)d->aux.items + index;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Types */

static uint32_t zf_etype_of(uint32_t opcode, uint32_t width) {
    if (opcode == SpvOpTypeBool)
        return ZF_T_BOOL;
    if (opcode == SpvOpTypeInt) /* another width: the registers of the next one up (its layout, spirv_layout.c) */
        return width <= 8 ? ZF_T_I8 : width <= 16 ? ZF_T_I16 : width <= 32 ? ZF_T_I32 : ZF_T_I64;
    if (opcode == SpvOpTypeFloat)
        return width == 16 ? ZF_T_F16 : width == 32 ? ZF_T_F32 : ZF_T_F64;
    return ZF_T_NONE;
}

static void zf_type_layout(const zf_spirv_module *m, uint32_t id, zf_tinfo *t) {
    const zf_spirv_idinfo *info = &m->ids[id];
    if (info->index < m->types.count && ZF_SPIRV_AT(m->types, zf_spirv_type, info->index)->id == id) {
        const zf_spirv_type *layout = ZF_SPIRV_AT(m->types, zf_spirv_type, info->index);
        t->size = layout->size > UINT32_MAX ? UINT32_MAX : (uint32_t)layout->size;
        t->align = layout->align ? layout->align : 1;
    }
}

static void zf_classify(zf_decoder *d, uint32_t id, zf_tinfo *t) {
    const zf_spirv_module *m = d->m;
    const uint32_t *w = &m->words[m->ids[id].def];
    uint32_t opcode = m->ids[id].opcode;
    zf_type_layout(m, id, t);
    switch (opcode) {
    case SpvOpTypeVoid:
        t->cls = ZF_TC_VOID;
        return;
    case SpvOpTypeBool:
    case SpvOpTypeInt:
    case SpvOpTypeFloat:
        t->cls = opcode == SpvOpTypeBool ? ZF_TC_BOOL : opcode == SpvOpTypeInt ? ZF_TC_INT : ZF_TC_FLOAT;
        t->etype = (uint8_t)zf_etype_of(opcode, opcode == SpvOpTypeBool ? 0 : w[2]);
        t->comps = 1;
        return;
    case SpvOpTypeVector: {
        uint32_t elem = w[2];
        uint32_t eop = m->ids[elem].opcode;
        t->cls = ZF_TC_VECTOR;
        t->elem = elem;
        t->comps = (uint8_t)w[3];
        if (eop == SpvOpTypeBool || eop == SpvOpTypeInt || eop == SpvOpTypeFloat)
            t->etype = (uint8_t)zf_etype_of(eop, eop == SpvOpTypeBool ? 0 : m->words[m->ids[elem].def + 2]);
        else
            t->cls = ZF_TC_OTHER; /* vectors of pointers: not in OpenCL */
        return;
    }
    case SpvOpTypeArray: {
        uint64_t length = 0;
        t->cls = ZF_TC_ARRAY;
        t->elem = w[2];
        zf_d_const_int(d, w[3], &length);
        t->length = length > UINT32_MAX ? UINT32_MAX : (uint32_t)length;
        return;
    }
    case SpvOpTypeStruct:
        t->cls = ZF_TC_STRUCT;
        t->length = (w[0] >> 16) - 2;
        return;
    case SpvOpTypePointer:
        t->cls = ZF_TC_POINTER;
        t->storage = w[2];
        t->elem = w[3];
        t->size = 8;
        t->align = 8;
        return;
    case SpvOpTypeFunction:
        t->cls = ZF_TC_FUNCTION;
        return;
    case SpvOpTypeSampledImage: /* an image handle and a sampler, side by side */
        t->cls = ZF_TC_OPAQUE;
        t->size = 16;
        t->align = 8;
        return;
    case SpvOpTypeImage:
    case SpvOpTypeSampler:
    case SpvOpTypeEvent:
    case SpvOpTypeDeviceEvent:
    case SpvOpTypeReserveId:
    case SpvOpTypeQueue:
    case SpvOpTypePipe:
    case SpvOpTypePipeStorage:
        t->cls = ZF_TC_OPAQUE;
        t->size = 8;
        t->align = 8;
        return;
    default:
        t->cls = ZF_TC_OTHER;
        return;
    }
}

const zf_tinfo *zf_d_type(zf_decoder *d, uint32_t id) {
    const zf_spirv_idinfo *info = zf_spirv_id(d->m, id);
    bool is_type = info != NULL && ((info->opcode >= SpvOpTypeVoid && info->opcode <= SpvOpTypePipe) ||
                                    info->opcode == SpvOpTypePipeStorage);
    if (info == NULL || info->def == 0 || !is_type) {
        zf_d_malformed(d, "%%%u is not a type", id);
        return NULL;
    }
    zf_tinfo *t = &d->types[id];
    if (t->cls == ZF_TC_NONE)
        zf_classify(d, id, t);
    return t;
}

uint32_t zf_d_member_offset(zf_decoder *d, uint32_t struct_id, uint32_t index, uint32_t *member_type) {
    const zf_spirv_module *m = d->m;
    const zf_spirv_idinfo *info = &m->ids[struct_id];
    const uint32_t *w = &m->words[info->def];
    bool packed = (info->flags & ZF_ID_CPACKED) != 0;
    uint64_t at = 0;
    for (uint32_t i = 0; i <= index; i++) {
        const zf_tinfo *t = zf_d_type(d, w[2 + i]);
        if (t == NULL)
            return UINT32_MAX;
        uint32_t align = packed ? 1 : t->align;
        at = (at + align - 1) / align * align;
        if (i == index) {
            *member_type = w[2 + i];
            if (at >= UINT32_MAX) {
                zf_d_fail(d, ZF_SPIRV_UNSUPPORTED, "member %u of struct %%%u lies 4 GiB or more into it", index,
                          struct_id);
                return UINT32_MAX;
            }
            return (uint32_t)at;
        }
        at += t->size;
    }
    zf_d_malformed(d, "member %u of struct %%%u does not exist", index, struct_id);
    return UINT32_MAX;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Constants */

static bool zf_is_constant_opcode(uint32_t op) {
    return (op >= SpvOpConstantTrue && op <= SpvOpConstantNull) ||
           (op >= SpvOpSpecConstantTrue && op <= SpvOpSpecConstantOp) || op == SpvOpUndef;
}

bool zf_d_const_int(zf_decoder *d, uint32_t id, uint64_t *value) {
    const zf_spirv_idinfo *info = zf_spirv_id(d->m, id);
    if (info == NULL || info->def == 0)
        return false;
    const uint32_t *w = &d->m->words[info->def];
    if (info->opcode == SpvOpConstantNull || info->opcode == SpvOpUndef) {
        *value = 0;
        return true;
    }
    if (info->opcode != SpvOpConstant && info->opcode != SpvOpSpecConstant)
        return false;
    const zf_spirv_idinfo *type = zf_spirv_id(d->m, w[1]);
    if (type == NULL || type->opcode != SpvOpTypeInt)
        return false;
    uint32_t width = d->m->words[type->def + 2];
    *value = width > 32 ? ((uint64_t)w[4] << 32 | w[3]) : w[3];
    if (width < 64)
        *value &= (1ull << width) - 1;
    return true;
}

static zf_spirv_status zf_const_into(zf_decoder *d, uint32_t id, uint8_t *out, uint32_t size, unsigned depth);

static zf_spirv_status zf_const_composite(zf_decoder *d, const uint32_t *w, uint32_t count, const zf_tinfo *t,
                                          uint8_t *out, uint32_t size, unsigned depth) {
    uint32_t n = count - 3;
    uint32_t expected = t->cls == ZF_TC_VECTOR ? t->comps : t->length;
    if ((t->cls != ZF_TC_VECTOR && t->cls != ZF_TC_ARRAY && t->cls != ZF_TC_STRUCT) || n != expected)
        return zf_d_malformed(d, "a composite constant with %u constituents for its type", n);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t member = t->elem, offset = 0;
        const zf_tinfo *mt;
        if (t->cls == ZF_TC_STRUCT) {
            offset = zf_d_member_offset(d, w[1], i, &member);
            if (offset == UINT32_MAX)
                return ZF_SPIRV_MALFORMED;
        }
        if ((mt = zf_d_type(d, member)) == NULL)
            return ZF_SPIRV_MALFORMED;
        if (t->cls != ZF_TC_STRUCT)
            offset = i * mt->size;
        if (offset > size || mt->size > size - offset)
            return zf_d_malformed(d, "constituent %u does not fit its composite", i);
        zf_spirv_status s = zf_const_into(d, w[3 + i], out + offset, mt->size, depth + 1);
        if (s != ZF_SPIRV_OK)
            return s;
    }
    return ZF_SPIRV_OK;
}

static zf_spirv_status zf_const_into(zf_decoder *d, uint32_t id, uint8_t *out, uint32_t size, unsigned depth) {
    const zf_spirv_idinfo *info = zf_spirv_id(d->m, id);
    if (info == NULL || info->def == 0 || !zf_is_constant_opcode(info->opcode))
        return zf_d_malformed(d, "%%%u is not a constant", id);
    if (depth > ZF_SPIRV_MAX_NESTING)
        return zf_d_fail(d, ZF_SPIRV_UNSUPPORTED, "constants nested deeper than %u", ZF_SPIRV_MAX_NESTING);
    const uint32_t *w = &d->m->words[info->def];
    const zf_tinfo *t = zf_d_type(d, w[1]);
    if (t == NULL)
        return ZF_SPIRV_MALFORMED;
    if (t->size != size)
        return zf_d_malformed(d, "constant %%%u has %u bytes where %u are expected", id, t->size, size);
    /* The words, not the reader's record: specializing a boolean rewrote its opcode (True <-> False). */
    switch (w[0] & 0xFFFFu) {
    case SpvOpConstantTrue:
    case SpvOpSpecConstantTrue:
        out[0] = 1;
        return ZF_SPIRV_OK;
    case SpvOpConstantFalse:
    case SpvOpSpecConstantFalse:
    case SpvOpConstantNull:
    case SpvOpUndef:
        memset(out, 0, size);
        return ZF_SPIRV_OK;
    case SpvOpConstant:
    case SpvOpSpecConstant:
        if (size > 8)
            return zf_d_malformed(d, "a scalar constant of %u bytes", size);
        memcpy(out, &w[3], size); /* literals are little-endian words, as the host */
        return ZF_SPIRV_OK;
    case SpvOpConstantComposite:
    case SpvOpSpecConstantComposite:
        memset(out, 0, size);
        return zf_const_composite(d, w, zf_spirv_count_at(d->m, info->def), t, out, size, depth);
    case SpvOpConstantSampler: {
        uint64_t value;
        if (size != 8 || !zf_spirv_inline_sampler(w, zf_spirv_count_at(d->m, info->def), &value))
            return zf_d_malformed(d, "a malformed OpConstantSampler");
        memcpy(out, &value, 8);
        return ZF_SPIRV_OK;
    }
    default: {
        uint32_t saved = d->word;
        d->word = info->def;
        zf_spirv_status s = zf_d_unsupported(d, w[0] & 0xFFFFu, "as a constant the engine must evaluate");
        d->word = saved;
        return s;
    }
    }
}

zf_spirv_status zf_d_const_value(zf_decoder *d, uint32_t id, uint8_t *out, uint32_t size) {
    return zf_const_into(d, id, out, size, 0);
}

/* Const-area slots are deduplicated by content: a module repeats few distinct constants many times. */
zf_spirv_status zf_d_const_bytes(zf_decoder *d, const void *data, uint32_t size, uint32_t align, zf_ref *ref) {
    const zf_dconst *consts = d->consts.items;
    for (uint32_t i = 0; i < d->consts.count; i++) {
        if (consts[i].size == size && consts[i].offset % align == 0 &&
            memcmp((const uint8_t *)d->bytes.items + consts[i].data, data, size) == 0) {
            *ref = ZF_REF_MAKE(ZF_AREA_CONST, consts[i].offset);
            return ZF_SPIRV_OK;
        }
    }
    align = align > 16 ? 16 : align ? align : 1;
    uint32_t offset = (d->const_bytes + align - 1) / align * align;
    if (offset + (uint64_t)size > ZF_FORM_MAX_AREA_BYTES)
        return zf_d_fail(d, ZF_SPIRV_UNSUPPORTED, "the module's constants need more than %u bytes",
                         ZF_FORM_MAX_AREA_BYTES);
    uint32_t at = d->bytes.count;
    for (uint32_t i = 0; i < size; i++) {
        uint8_t *byte = zf_vec_push(&d->bytes, 1);
        if (byte == NULL)
            return zf_d_no_memory(d);
        *byte = ((const uint8_t *)data)[i];
    }
    zf_dconst *c = zf_vec_push(&d->consts, sizeof *c);
    if (c == NULL)
        return zf_d_no_memory(d);
    *c = (zf_dconst){offset, size, at};
    d->const_bytes = offset + size;
    *ref = ZF_REF_MAKE(ZF_AREA_CONST, offset);
    return ZF_SPIRV_OK;
}

static zf_spirv_status zf_d_reloc(zf_decoder *d, uint32_t kind, uint32_t index, zf_ref *ref) {
    const zf_dreloc *relocs = d->relocs.items;
    for (uint32_t i = 0; i < d->relocs.count; i++) {
        if (relocs[i].kind == kind && relocs[i].index == index) {
            *ref = ZF_REF_MAKE(ZF_AREA_CONST, relocs[i].offset);
            return ZF_SPIRV_OK;
        }
    }
    uint32_t offset = (d->const_bytes + 7) / 8 * 8;
    if (offset + 8ull > ZF_FORM_MAX_AREA_BYTES)
        return zf_d_fail(d, ZF_SPIRV_UNSUPPORTED, "the module's constants need more than %u bytes",
                         ZF_FORM_MAX_AREA_BYTES);
    zf_dreloc *r = zf_vec_push(&d->relocs, sizeof *r);
    if (r == NULL)
        return zf_d_no_memory(d);
    *r = (zf_dreloc){offset, kind, index};
    d->const_bytes = offset + 8;
    *ref = ZF_REF_MAKE(ZF_AREA_CONST, offset);
    return ZF_SPIRV_OK;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Operands */

zf_ref zf_d_frame_slot(zf_decoder *d, uint32_t size, uint32_t align) {
    align = align > 16 ? 16 : align ? align : 1;
    uint32_t offset = (d->fn.frame_bytes + align - 1) / align * align;
    if (offset + (uint64_t)size > ZF_FORM_MAX_AREA_BYTES) {
        zf_d_fail(d, ZF_SPIRV_UNSUPPORTED, "the function's values need more than %u bytes per work-item",
                  ZF_FORM_MAX_AREA_BYTES);
        return ZF_REF_NONE;
    }
    d->fn.frame_bytes = offset + (size ? size : 1);
    return ZF_REF_MAKE(ZF_AREA_FRAME, offset);
}

zf_spirv_status zf_d_result(zf_decoder *d, uint32_t id, uint32_t type_id, zf_ref *ref) {
    if (id == 0 || id >= d->m->bound)
        return zf_d_malformed(d, "result id %u is outside the bound", id);
    zf_dval *v = &d->vals[id];
    if (v->kind == ZF_V_FRAME && v->func == d->fn.index + 1) { /* a slot given ahead (a phi's shadow, a use before) */
        if (v->type != type_id)
            return zf_d_malformed(d, "%%%u is defined with type %%%u and used as %%%u", id, type_id, v->type);
        *ref = v->ref;
        return ZF_SPIRV_OK;
    }
    if (v->kind != ZF_V_NONE)
        return zf_d_malformed(d, "id %u is defined twice", id);
    const zf_tinfo *t = zf_d_type(d, type_id);
    if (t == NULL)
        return ZF_SPIRV_MALFORMED;
    if (t->size > ZF_MAX_VALUE_BYTES)
        return zf_d_fail(d, ZF_SPIRV_UNSUPPORTED, "a value of %u bytes (at most %u)", t->size, ZF_MAX_VALUE_BYTES);
    v->kind = ZF_V_FRAME;
    v->type = type_id;
    v->func = d->fn.index + 1;
    v->ref = t->cls == ZF_TC_VOID ? ZF_REF_NONE : zf_d_frame_slot(d, t->size, t->align);
    if (t->cls != ZF_TC_VOID && v->ref == ZF_REF_NONE)
        return ZF_SPIRV_UNSUPPORTED;
    *ref = v->ref;
    return ZF_SPIRV_OK;
}

static zf_spirv_status zf_d_const_ref(zf_decoder *d, uint32_t id, zf_dval *v) {
    const zf_tinfo *t = zf_d_type(d, v->type);
    if (t == NULL)
        return ZF_SPIRV_MALFORMED;
    if (t->size == 0 || t->size > ZF_MAX_VALUE_BYTES)
        return zf_d_fail(d, ZF_SPIRV_UNSUPPORTED, "a constant of %u bytes", t->size);
    uint8_t *data = calloc(1, t->size);
    if (data == NULL)
        return zf_d_no_memory(d);
    zf_spirv_status s = zf_d_const_value(d, id, data, t->size);
    if (s == ZF_SPIRV_OK)
        s = zf_d_const_bytes(d, data, t->size, t->align, &v->ref);
    free(data);
    return s;
}

static zf_spirv_status zf_d_lazy_ref(zf_decoder *d, uint32_t id, zf_dval *v) {
    switch (v->kind) {
    case ZF_V_CONST:
        return zf_d_const_ref(d, id, v);
    case ZF_V_GLOBAL:
        return zf_d_reloc(d, ZF_RELOC_GLOBAL, v->index, &v->ref);
    case ZF_V_FUNCPTR: {
        uint32_t f = d->func_of[v->index];
        if (f == 0)
            return zf_d_malformed(d, "a function pointer to %%%u, which is not a function", v->index);
        return zf_d_reloc(d, ZF_RELOC_FUNCTION, f - 1, &v->ref);
    }
    default:
        return zf_d_malformed(d, "%%%u has no value", id);
    }
}

zf_spirv_status zf_d_operand(zf_decoder *d, uint32_t id, zf_ref *ref, const zf_tinfo **type) {
    if (id == 0 || id >= d->m->bound)
        return zf_d_malformed(d, "operand id %u is outside the bound", id);
    zf_dval *v = &d->vals[id];
    switch (v->kind) {
    case ZF_V_FRAME:
        if (v->func != d->fn.index + 1)
            return zf_d_malformed(d, "%%%u belongs to another function", id);
        break;
    case ZF_V_CONST:
    case ZF_V_GLOBAL:
    case ZF_V_FUNCPTR:
        if (v->ref == ZF_REF_NONE) {
            zf_spirv_status s = zf_d_lazy_ref(d, id, v);
            if (s != ZF_SPIRV_OK)
                return s;
        }
        break;
    case ZF_V_BUILTIN:
    case ZF_V_LOCALVAR:
        break;
    default:
        return zf_d_malformed(d, "%%%u is not a value an instruction can use", id);
    }
    if (v->ref == ZF_REF_NONE)
        return zf_d_malformed(d, "%%%u has no value (void)", id);
    const zf_tinfo *t = zf_d_type(d, v->type);
    if (t == NULL)
        return ZF_SPIRV_MALFORMED;
    *ref = v->ref;
    if (type != NULL)
        *type = t;
    return ZF_SPIRV_OK;
}

zf_spirv_status zf_d_operand_sized(zf_decoder *d, uint32_t id, uint32_t size, zf_ref *ref) {
    const zf_tinfo *t = NULL;
    zf_spirv_status s = zf_d_operand(d, id, ref, &t);
    if (s == ZF_SPIRV_OK && size != 0 && t->size != size)
        return zf_d_malformed(d, "operand %%%u has %u bytes, the instruction needs %u", id, t->size, size);
    return s;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Module-scope declarations */

static zf_spirv_status zf_scan_decoration(zf_decoder *d, const uint32_t *w, uint32_t count) {
    if (count < 3 || w[1] == 0 || w[1] >= d->m->bound)
        return ZF_SPIRV_OK; /* the reader checked what it uses; decorations of bad ids are ignored */
    uint32_t id = w[1];
    switch (w[2]) {
    case SpvDecorationSaturatedConversion:
        d->dec[id] |= ZF_DV_SATURATE;
        break;
    case SpvDecorationFPRoundingMode:
        if (count >= 4 && w[3] <= 3)
            d->dec[id] = (uint16_t)((d->dec[id] & ~(7u << ZF_DV_ROUND_SHIFT)) | ((w[3] + 1) << ZF_DV_ROUND_SHIFT));
        break;
    case SpvDecorationBuiltIn:
        if (count >= 4 && w[3] < 255)
            d->builtin[id] = (uint8_t)(w[3] + 1);
        break;
    default:
        break;
    }
    return ZF_SPIRV_OK;
}

/* OpGroupDecorate copies a decoration group's decorations to its targets. */
static void zf_scan_group_decorate(zf_decoder *d, const uint32_t *w, uint32_t count) {
    if (count < 2 || w[1] == 0 || w[1] >= d->m->bound)
        return;
    for (uint32_t i = 2; i < count; i++) {
        if (w[i] == 0 || w[i] >= d->m->bound)
            continue;
        d->dec[w[i]] |= d->dec[w[1]];
        if (d->builtin[w[1]] != 0)
            d->builtin[w[i]] = d->builtin[w[1]];
    }
}

static uint32_t zf_global_index(const zf_spirv_module *m, uint32_t id) {
    for (uint32_t i = 0; i < zf_spirv_global_count(m); i++)
        if (zf_spirv_global_at(m, i)->id == id)
            return i;
    return UINT32_MAX;
}

static zf_spirv_status zf_scan_variable(zf_decoder *d, const uint32_t *w) {
    uint32_t id = w[2], storage = w[3];
    zf_dval *v = &d->vals[id];
    const zf_tinfo *pt = zf_d_type(d, w[1]);
    if (pt == NULL || pt->cls != ZF_TC_POINTER)
        return zf_d_malformed(d, "variable %%%u's type is not a pointer", id);
    v->type = w[1];
    v->ref = ZF_REF_NONE;
    /* The decoration decides, not the storage class: translators declare built-ins Input, older ones UniformConstant
     * (imported by name); the layout (spirv_layout.c) makes no built-in a global. */
    if (d->builtin[id] != 0)
        return zf_d_builtin_variable(d, id, d->builtin[id] - 1u, pt->elem);
    switch (storage) {
    case SpvStorageClassCrossWorkgroup:
    case SpvStorageClassUniformConstant:
        v->kind = ZF_V_GLOBAL;
        v->index = zf_global_index(d->m, id);
        if (v->index == UINT32_MAX)
            return zf_d_malformed(d, "variable %%%u is not one of the module's globals", id);
        return ZF_SPIRV_OK;
    case SpvStorageClassInput:
        return zf_d_unsupported(d, SpvOpVariable, "an Input variable that is not a built-in");
    case SpvStorageClassWorkgroup:
        return zf_d_local_variable(d, id, pt->elem);
    default:
        return zf_d_unsupported(d, SpvOpVariable, "a module-scope variable of this storage class");
    }
}

static zf_spirv_status zf_scan_module_instruction(zf_decoder *d, uint32_t at) {
    const zf_spirv_module *m = d->m;
    const uint32_t *w = &m->words[at];
    uint32_t opcode = w[0] & 0xFFFFu, count = w[0] >> 16;
    d->word = at;
    switch (opcode) {
    case SpvOpDecorate:
        return zf_scan_decoration(d, w, count);
    case SpvOpGroupDecorate:
        zf_scan_group_decorate(d, w, count);
        return ZF_SPIRV_OK;
    case SpvOpExtInstImport: {
        const char *name = zf_spirv_string_at(d->m, at, 2);
        d->vals[w[1]].kind = ZF_V_EXTSET;
        d->vals[w[1]].index = strcmp(name, "OpenCL.std") == 0 ? ZF_EXTSET_OPENCL
                              : zf_spirv_is_debug_set(name)   ? ZF_EXTSET_DEBUG
                                                              : ZF_EXTSET_OTHER;
        return ZF_SPIRV_OK;
    }
    case SpvOpVariable:
        return zf_scan_variable(d, w);
    case SpvOpConstantFunctionPointerINTEL:
        if (count < 4 || w[2] == 0 || w[2] >= m->bound || w[3] == 0 || w[3] >= m->bound)
            return zf_d_malformed(d, "a malformed function pointer constant");
        if (d->vals[w[2]].kind != ZF_V_NONE)
            return zf_d_malformed(d, "id %u is defined twice", w[2]);
        d->vals[w[2]] = (zf_dval){.kind = ZF_V_FUNCPTR, .type = w[1], .ref = ZF_REF_NONE, .index = w[3]};
        return zf_d_type(d, w[1]) != NULL ? ZF_SPIRV_OK : ZF_SPIRV_MALFORMED;
    default:
        if (zf_is_constant_opcode(opcode) && count >= 3) {
            d->vals[w[2]] = (zf_dval){.kind = ZF_V_CONST,
                                      .type = w[1],
                                      .ref = ZF_REF_NONE,
                                      .null = opcode == SpvOpConstantNull || opcode == SpvOpUndef};
            return zf_d_type(d, w[1]) != NULL ? ZF_SPIRV_OK : ZF_SPIRV_MALFORMED;
        }
        return ZF_SPIRV_OK;
    }
}

/* Decorations first (they may follow nothing in particular but come before types), then everything else. */
static zf_spirv_status zf_scan_module(zf_decoder *d) {
    const zf_spirv_module *m = d->m;
    uint32_t end =
        m->functions.count > 0 ? ZF_SPIRV_AT(m->functions, zf_spirv_function, 0)->offset : (uint32_t)m->num_words;
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t at = 5; at < end; at += zf_spirv_count_at(m, at)) {
            uint32_t opcode = zf_spirv_opcode_at(m, at);
            bool annotation = opcode == SpvOpDecorate || opcode == SpvOpGroupDecorate;
            if (annotation != (pass == 0))
                continue;
            zf_spirv_status s = zf_scan_module_instruction(d, at);
            if (s != ZF_SPIRV_OK)
                return s;
        }
    }
    d->word = 0;
    return ZF_SPIRV_OK;
}

/* ------------------------------------------------------------------------------------------------------------------
 * The entry point */

static void zf_decoder_free(zf_decoder *d) {
    free(d->vals);
    free(d->types);
    free(d->func_of);
    free(d->dec);
    free(d->builtin);
    free(d->odd_at);
    zf_vec *vecs[] = {&d->insts,         &d->words,  &d->blocks, &d->edges,  &d->copies, &d->funcs,
                      &d->params,        &d->consts, &d->relocs, &d->waves,  &d->locals, &d->kernels,
                      &d->kernel_locals, &d->aux,    &d->bytes,  &d->strings};
    for (size_t i = 0; i < sizeof vecs / sizeof vecs[0]; i++)
        zf_vec_free(vecs[i]);
}

void zf_dprog_free(zf_dprog *p) {
    if (p == NULL)
        return;
    zf_cx_cache_free(p->compiled);
    void *parts[] = {p->insts,         p->inst_words, p->blocks, p->edges,   p->copies,   p->funcs,
                     p->params,        p->consts,     p->relocs, p->waves,   p->locals,   p->kernels,
                     p->kernel_locals, p->aux,        p->bytes,  p->strings, p->block_ops};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        free(parts[i]);
    free(p);
}

/* Moves a table out of the decoder into the form (an empty table becomes a valid 1-item allocation). */
static void *zf_take(zf_vec *vec, size_t item_size, uint32_t *count) {
    *count = vec->count;
    void *items = vec->items;
    if (items == NULL)
        items = calloc(1, item_size);
    memset(vec, 0, sizeof *vec);
    return items;
}

static zf_dprog *zf_d_finish(zf_decoder *d) {
    zf_dprog *p = calloc(1, sizeof *p);
    if (p == NULL)
        return NULL;
    uint32_t words;
    p->const_bytes = d->const_bytes;
    p->wave_bytes = d->wave_bytes;
    p->flags = d->flags;
    p->insts = zf_take(&d->insts, sizeof(zf_dinst), &p->num_insts);
    p->inst_words = zf_take(&d->words, sizeof(uint32_t), &words);
    p->blocks = zf_take(&d->blocks, sizeof(zf_dblock), &p->num_blocks);
    p->edges = zf_take(&d->edges, sizeof(zf_dedge), &p->num_edges);
    p->copies = zf_take(&d->copies, sizeof(zf_dcopy), &p->num_copies);
    p->funcs = zf_take(&d->funcs, sizeof(zf_dfunc), &p->num_funcs);
    p->params = zf_take(&d->params, sizeof(zf_dparam), &p->num_params);
    p->consts = zf_take(&d->consts, sizeof(zf_dconst), &p->num_consts);
    p->relocs = zf_take(&d->relocs, sizeof(zf_dreloc), &p->num_relocs);
    p->waves = zf_take(&d->waves, sizeof(zf_dwave), &p->num_waves);
    p->locals = zf_take(&d->locals, sizeof(zf_dlocal), &p->num_locals);
    p->kernels = zf_take(&d->kernels, sizeof(zf_dkernel), &p->num_kernels);
    p->kernel_locals = zf_take(&d->kernel_locals, sizeof(zf_dkernel_local), &p->num_kernel_locals);
    p->aux = zf_take(&d->aux, sizeof(uint32_t), &p->num_aux);
    p->bytes = zf_take(&d->bytes, 1, &p->num_bytes);
    p->strings = zf_take(&d->strings, 1, &p->num_strings);
    bool complete = p->insts && p->inst_words && p->blocks && p->edges && p->copies && p->funcs && p->params &&
                    p->consts && p->relocs && p->waves && p->locals && p->kernels && p->kernel_locals && p->aux &&
                    p->bytes && p->strings;
    if (!complete) {
        zf_dprog_free(p);
        return NULL;
    }
    return p;
}

bool zf_spirv_form_matches(const zf_spirv_module *m, const zf_dprog *p, char *why, size_t why_size) {
    if (p->num_funcs != m->functions.count || p->num_kernels != m->kernels.count) {
        snprintf(why, why_size, "the decoded form has %u functions and %u kernels, the module %u and %u", p->num_funcs,
                 p->num_kernels, m->functions.count, m->kernels.count);
        return false;
    }
    for (uint32_t f = 0; f < p->num_funcs; f++) {
        const zf_spirv_function *fn = ZF_SPIRV_AT(m->functions, zf_spirv_function, f);
        if (p->funcs[f].spirv_id != fn->id || p->funcs[f].param_count != fn->num_params) {
            snprintf(why, why_size, "decoded function %u is not the module's function %%%u", f, fn->id);
            return false;
        }
    }
    for (uint32_t k = 0; k < p->num_kernels; k++) {
        const zf_spirv_kernel *kernel = zf_spirv_kernel_at(m, k);
        const zf_dfunc *fn = &p->funcs[p->kernels[k].function];
        bool ok = fn->spirv_id == kernel->function && fn->param_count == kernel->num_args &&
                  p->kernels[k].static_local_bytes == kernel->static_local_bytes;
        for (uint32_t a = 0; ok && a < kernel->num_args; a++) {
            const zf_spirv_arg *arg = &kernel->args[a];
            uint64_t expected = arg->kind == ZF_SPIRV_ARG_VALUE && !arg->byval ? arg->size : 8;
            ok = p->params[fn->param_first + a].size == expected;
        }
        if (!ok) {
            snprintf(why, why_size, "decoded kernel %u does not match kernel '%s' of the module", k, kernel->name);
            return false;
        }
    }
    for (uint32_t i = 0; i < p->num_relocs; i++) {
        const zf_dreloc *r = &p->relocs[i];
        bool ok = r->kind != ZF_RELOC_GLOBAL || r->index < zf_spirv_global_count(m);
        if (r->kind == ZF_RELOC_IMPORT)
            ok = r->index < zf_spirv_symbol_count(m) && zf_spirv_symbol_at(m, r->index)->is_function &&
                 zf_spirv_symbol_at(m, r->index)->linkage == ZF_SPIRV_LINK_IMPORT;
        if (!ok) {
            snprintf(why, why_size, "relocation %u names no global or import of the module", i);
            return false;
        }
    }
    return true;
}

zf_spirv_status zf_spirv_decode(const zf_spirv_module *m, const zf_decode_options *options, zf_dprog **out,
                                zf_spirv_log *log) {
    *out = NULL;
    zf_decoder d = {.m = m, .log = log, .options = options};
    d.vals = calloc(m->bound, sizeof *d.vals);
    d.types = calloc(m->bound, sizeof *d.types);
    d.func_of = calloc(m->bound, sizeof *d.func_of);
    d.dec = calloc(m->bound, sizeof *d.dec);
    d.builtin = calloc(m->bound, 1);
    zf_spirv_status s = ZF_SPIRV_OK;
    if (d.vals == NULL || d.types == NULL || d.func_of == NULL || d.dec == NULL || d.builtin == NULL)
        s = zf_d_no_memory(&d);
    if (options->itt_enabled)
        d.flags |= ZF_PROG_ITT;
    if (s == ZF_SPIRV_OK && zf_spirv_declares(m, SpvCapabilityArbitraryPrecisionIntegersINTEL) &&
        (d.odd_at = zf_spirv_odd_integer_uses(m, log)) == NULL)
        s = ZF_SPIRV_UNSUPPORTED;
    if (s == ZF_SPIRV_OK)
        s = zf_scan_module(&d);
    if (s == ZF_SPIRV_OK)
        s = zf_d_functions(&d);
    if (s == ZF_SPIRV_OK)
        s = zf_d_kernels(&d);
    if (s == ZF_SPIRV_OK) {
        *out = zf_d_finish(&d);
        if (*out == NULL)
            s = zf_d_no_memory(&d);
    }
    if (s == ZF_SPIRV_OK) {
        char why[256];
        if (!zf_form_validate(*out, why, sizeof why)) {
            /* The decoder and the validator disagree: a bug, reported rather than run. */
            zf_spirv_log_printf(log, "SPIR-V: the decoded form is inconsistent: %s", why);
            s = ZF_SPIRV_UNSUPPORTED;
        } else if (!zf_form_derive(*out)) {
            s = zf_d_no_memory(&d);
        }
        if (s != ZF_SPIRV_OK) {
            zf_dprog_free(*out);
            *out = NULL;
        }
    }
    zf_decoder_free(&d);
    return s;
}
