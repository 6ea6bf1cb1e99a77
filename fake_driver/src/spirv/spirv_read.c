/* Step 1 of reading SPIR-V: the header and the instruction stream.
 *
 * The walk never trusts a count: every instruction's word count is checked against the words left and against the
 * minimum its opcode needs before any operand is read, every id operand against the bound, every string against the
 * end of its instruction. Ids the later steps look up (types, constants, variables, functions) must be defined
 * before use except where SPIR-V allows forward references (names, decorations, entry points, calls, forward
 * pointers). Instructions the reader does not need are skipped whole; function bodies are only counted, so the
 * execution engine can decode them later from the recorded offsets. */
#include "spirv_read.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static zf_spirv_status zf_report(zf_walk *k, zf_spirv_status status, const char *format, va_list args) {
    char what[512];
    vsnprintf(what, sizeof what, format, args);
    char buf[24];
    zf_spirv_log_printf(k->log, "SPIR-V word %u (%s): %s", k->offset, zf_spirv_opcode_name(k->opcode, buf, sizeof buf),
                        what);
    return status;
}

zf_spirv_status __attribute__((format(printf, 2, 3))) zf_r_bad(zf_walk *k, const char *format, ...) {
    va_list args;
    va_start(args, format);
    zf_spirv_status status = zf_report(k, ZF_SPIRV_MALFORMED, format, args);
    va_end(args);
    return status;
}

zf_spirv_status __attribute__((format(printf, 2, 3))) zf_r_unsupported(zf_walk *k, const char *format, ...) {
    va_list args;
    va_start(args, format);
    zf_spirv_status status = zf_report(k, ZF_SPIRV_UNSUPPORTED, format, args);
    va_end(args);
    return status;
}

zf_spirv_status zf_r_no_memory(zf_walk *k) {
    zf_spirv_log_printf(k->log, "SPIR-V word %u: out of host memory while reading the module", k->offset);
    return ZF_SPIRV_NO_MEMORY;
}

zf_spirv_status zf_r_need_words(zf_walk *k, uint32_t minimum) {
    if (k->count >= minimum)
        return ZF_SPIRV_OK;
    return zf_r_bad(k, "word count %u is less than the %u this instruction needs", k->count, minimum);
}

zf_spirv_status zf_r_check_id(zf_walk *k, uint32_t word, const char *what) {
    uint32_t id = k->w[word];
    if (id != 0 && id < k->m->bound)
        return ZF_SPIRV_OK;
    return zf_r_bad(k, "%s (operand word %u) is id %u, outside the bound 1..%u", what, word, id, k->m->bound - 1);
}

/* Records the instruction as the definition of the id in operand `word`. */
static zf_spirv_status zf_define(zf_walk *k, uint32_t word, uint32_t index) {
    zf_spirv_status s = zf_r_check_id(k, word, "the result id");
    if (s != ZF_SPIRV_OK)
        return s;
    zf_spirv_idinfo *info = &k->m->ids[k->w[word]];
    if (info->def != 0)
        return zf_r_bad(k, "id %u is defined twice (first at word %u)", k->w[word], info->def);
    info->def = k->offset;
    info->opcode = (uint16_t)k->opcode;
    info->index = index;
    return ZF_SPIRV_OK;
}

static bool zf_is_type_opcode(uint32_t opcode) {
    return (opcode >= SpvOpTypeVoid && opcode <= SpvOpTypePipe) || opcode == SpvOpTypePipeStorage ||
           opcode == SpvOpTypeNamedBarrier;
}

/* The operand must name a type defined earlier (or a pointer declared by OpTypeForwardPointer). */
static zf_spirv_status zf_need_type(zf_walk *k, uint32_t word, const char *what) {
    zf_spirv_status s = zf_r_check_id(k, word, what);
    if (s != ZF_SPIRV_OK)
        return s;
    const zf_spirv_idinfo *info = &k->m->ids[k->w[word]];
    if ((info->def != 0 && zf_is_type_opcode(info->opcode)) || (info->flags & ZF_ID_FORWARD_POINTER))
        return ZF_SPIRV_OK;
    return zf_r_bad(k, "%s %%%u is not a type defined before this instruction", what, k->w[word]);
}

/* The operand must be an id defined earlier by one of the constant instructions. */
zf_spirv_status zf_r_need_constant(zf_walk *k, uint32_t word, const char *what) {
    zf_spirv_status s = zf_r_check_id(k, word, what);
    if (s != ZF_SPIRV_OK)
        return s;
    const zf_spirv_idinfo *info = &k->m->ids[k->w[word]];
    uint32_t op = info->opcode;
    if (info->def != 0 && ((op >= SpvOpConstantTrue && op <= SpvOpSpecConstantOp) || op == SpvOpUndef))
        return ZF_SPIRV_OK;
    return zf_r_bad(k, "%s %%%u is not a constant defined before this instruction", what, k->w[word]);
}

/* A literal string at word `first`: it must end (NUL) inside the instruction. *next is the word after it. */
zf_spirv_status zf_r_need_string(zf_walk *k, uint32_t first, const char *what, uint32_t *next) {
    for (uint32_t i = first; i < k->count; i++) {
        uint32_t word = k->w[i];
        if ((word & 0xFFu) == 0 || (word & 0xFF00u) == 0 || (word & 0xFF0000u) == 0 || (word & 0xFF000000u) == 0) {
            if (next != NULL)
                *next = i + 1;
            return ZF_SPIRV_OK;
        }
    }
    return zf_r_bad(k, "%s string (from operand word %u) is not NUL-terminated within the instruction", what, first);
}

/* The word count of a defined type's instruction, and its words. */
static const uint32_t *zf_type_words(const zf_walk *k, uint32_t id) {
    return &k->m->words[k->m->ids[id].def];
}

/* ------------------------------------------------------------------------------------------------------------------
 * Types */

static zf_spirv_status zf_push_type(zf_walk *k) {
    zf_spirv_type *type = zf_spirv_array_push(&k->m->types, sizeof *type);
    if (type == NULL)
        return zf_r_no_memory(k);
    type->id = k->w[1];
    return zf_define(k, 1, k->m->types.count - 1);
}

static zf_spirv_status zf_read_type_scalar(zf_walk *k) {
    zf_spirv_status s = zf_r_need_words(k, k->opcode == SpvOpTypeInt ? 4 : 3);
    if (s != ZF_SPIRV_OK)
        return s;
    uint32_t width = k->w[2];
    if (width == 0)
        return zf_r_bad(k, "width 0");
    bool is_int = k->opcode == SpvOpTypeInt;
    bool standard = is_int ? (width == 8 || width == 16 || width == 32 || width == 64)
                           : (width == 16 || width == 32 || width == 64);
    /* SPV_INTEL_arbitrary_precision_integers, which Intel's compiler accepts: any width up to 64 bits reads, and an
     * instruction on such an integer faults when a work-item executes it (docs/spirv-execution.md). */
    if (!standard && is_int && width < 64 && zf_spirv_declares(k->m, SpvCapabilityArbitraryPrecisionIntegersINTEL))
        return zf_push_type(k);
    if (!standard)
        return zf_r_unsupported(k, "%s width %u%s", is_int ? "integer" : "floating-point", width,
                                is_int && width > 64 ? " (more than 64 bits)" : "");
    return zf_push_type(k);
}

static zf_spirv_status zf_read_type_composite(zf_walk *k) {
    zf_spirv_status s = ZF_SPIRV_OK;
    switch (k->opcode) {
    case SpvOpTypeVector:
    case SpvOpTypeMatrix:
        if ((s = zf_r_need_words(k, 4)) != ZF_SPIRV_OK || (s = zf_need_type(k, 2, "the component type")))
            return s;
        if (k->w[3] < 2)
            return zf_r_bad(k, "component count %u (at least 2)", k->w[3]);
        if (k->w[3] > 16)
            return zf_r_unsupported(k, "component count %u (OpenCL vectors have at most 16)", k->w[3]);
        break;
    case SpvOpTypeArray:
        if ((s = zf_r_need_words(k, 4)) != ZF_SPIRV_OK || (s = zf_need_type(k, 2, "the element type")) ||
            (s = zf_r_need_constant(k, 3, "the length")))
            return s;
        break;
    case SpvOpTypeRuntimeArray:
    case SpvOpTypeSampledImage:
        if ((s = zf_r_need_words(k, 3)) != ZF_SPIRV_OK || (s = zf_need_type(k, 2, "the element type")))
            return s;
        break;
    case SpvOpTypeStruct:
        if ((s = zf_r_need_words(k, 2)) != ZF_SPIRV_OK)
            return s;
        for (uint32_t i = 2; i < k->count; i++) {
            if ((s = zf_need_type(k, i, "a member type")) != ZF_SPIRV_OK)
                return s;
        }
        break;
    case SpvOpTypeImage:
        if ((s = zf_r_need_words(k, 9)) != ZF_SPIRV_OK || (s = zf_need_type(k, 2, "the sampled type")))
            return s;
        break;
    default:
        break;
    }
    return zf_push_type(k);
}

static zf_spirv_status zf_read_type_pointer(zf_walk *k) {
    zf_spirv_status s = zf_r_need_words(k, 4);
    if (s == ZF_SPIRV_OK)
        s = zf_r_check_id(k, 3, "the pointee type"); /* may be a forward reference */
    if (s != ZF_SPIRV_OK)
        return s;
    return zf_push_type(k);
}

static zf_spirv_status zf_read_type_function(zf_walk *k) {
    zf_spirv_status s = zf_r_need_words(k, 3);
    if (s == ZF_SPIRV_OK)
        s = zf_need_type(k, 2, "the return type");
    for (uint32_t i = 3; s == ZF_SPIRV_OK && i < k->count; i++)
        s = zf_need_type(k, i, "a parameter type");
    if (s != ZF_SPIRV_OK)
        return s;
    return zf_push_type(k);
}

static zf_spirv_status zf_read_forward_pointer(zf_walk *k) {
    zf_spirv_status s = zf_r_need_words(k, 3);
    if (s == ZF_SPIRV_OK)
        s = zf_r_check_id(k, 1, "the forward-declared pointer");
    if (s != ZF_SPIRV_OK)
        return s;
    k->m->ids[k->w[1]].flags |= ZF_ID_FORWARD_POINTER;
    return ZF_SPIRV_OK;
}

static zf_spirv_status zf_read_type(zf_walk *k) {
    switch (k->opcode) {
    case SpvOpTypeInt:
    case SpvOpTypeFloat:
        return zf_read_type_scalar(k);
    case SpvOpTypeVector:
    case SpvOpTypeMatrix:
    case SpvOpTypeArray:
    case SpvOpTypeRuntimeArray:
    case SpvOpTypeSampledImage:
    case SpvOpTypeStruct:
    case SpvOpTypeImage:
        return zf_read_type_composite(k);
    case SpvOpTypePointer:
        return zf_read_type_pointer(k);
    case SpvOpTypeFunction:
        return zf_read_type_function(k);
    case SpvOpTypeOpaque: {
        zf_spirv_status s = zf_r_need_words(k, 3);
        if (s == ZF_SPIRV_OK)
            s = zf_r_need_string(k, 2, "the opaque type name", NULL);
        return s != ZF_SPIRV_OK ? s : zf_push_type(k);
    }
    case SpvOpTypePipe: {
        zf_spirv_status s = zf_r_need_words(k, 3);
        return s != ZF_SPIRV_OK ? s : zf_push_type(k);
    }
    default: { /* void, bool, sampler, event, device event, reserve id, queue, pipe storage, named barrier */
        zf_spirv_status s = zf_r_need_words(k, 2);
        return s != ZF_SPIRV_OK ? s : zf_push_type(k);
    }
    }
}

/* ------------------------------------------------------------------------------------------------------------------
 * Constants and variables */

/* Scalar constants: the type must be an integer or float type and the literal exactly as wide. */
static zf_spirv_status zf_check_scalar_literal(zf_walk *k) {
    const uint32_t *type = zf_type_words(k, k->w[1]);
    uint32_t op = type[0] & 0xFFFFu;
    if (op != SpvOpTypeInt && op != SpvOpTypeFloat)
        return zf_r_bad(k, "the result type %%%u is not an integer or floating-point type", k->w[1]);
    uint32_t words = type[2] > 32 ? 2 : 1;
    if (k->count != 3 + words)
        return zf_r_bad(k, "a %u-bit literal needs %u word(s), the instruction has %u", type[2], words, k->count - 3);
    return ZF_SPIRV_OK;
}

static zf_spirv_status zf_record_spec_constant(zf_walk *k) {
    const zf_spirv_idinfo *info = &k->m->ids[k->w[2]];
    if (!(info->flags & ZF_ID_SPEC_ID))
        return ZF_SPIRV_OK; /* no SpecId: it keeps its default, nothing can set it */
    for (uint32_t i = 0; i < k->m->specs.count; i++) {
        if (ZF_SPIRV_AT(k->m->specs, zf_spirv_spec_constant, i)->spec_id == info->spec_id)
            return zf_r_bad(k, "SpecId %u is used by two specialization constants", info->spec_id);
    }
    zf_spirv_spec_constant *spec = zf_spirv_array_push(&k->m->specs, sizeof *spec);
    if (spec == NULL)
        return zf_r_no_memory(k);
    spec->spec_id = info->spec_id;
    spec->id = k->w[2];
    spec->offset = k->offset;
    if (k->opcode == SpvOpSpecConstant) {
        uint32_t width = zf_type_words(k, k->w[1])[2];
        spec->bits = width;
        spec->value = k->w[3];
        if (width > 32)
            spec->value |= (uint64_t)k->w[4] << 32;
        else if (width < 32)
            spec->value &= (1ull << width) - 1;
    } else {
        spec->bits = 1;
        spec->is_bool = true;
        spec->value = k->opcode == SpvOpSpecConstantTrue;
    }
    return ZF_SPIRV_OK;
}

static zf_spirv_status zf_read_constant(zf_walk *k) {
    zf_spirv_status s = zf_r_need_words(k, 3);
    if (s == ZF_SPIRV_OK)
        s = zf_need_type(k, 1, "the result type");
    if (s != ZF_SPIRV_OK)
        return s;
    uint32_t type_op = k->m->ids[k->w[1]].opcode;
    bool forward_only = k->m->ids[k->w[1]].def == 0;
    switch (k->opcode) {
    case SpvOpConstant:
    case SpvOpSpecConstant:
        if (forward_only || (s = zf_check_scalar_literal(k)) != ZF_SPIRV_OK)
            return forward_only ? zf_r_bad(k, "the result type is not an integer or floating-point type") : s;
        break;
    case SpvOpConstantTrue:
    case SpvOpConstantFalse:
    case SpvOpSpecConstantTrue:
    case SpvOpSpecConstantFalse:
        if (type_op != SpvOpTypeBool)
            return zf_r_bad(k, "the result type %%%u is not OpTypeBool", k->w[1]);
        break;
    case SpvOpConstantComposite:
    case SpvOpSpecConstantComposite:
        for (uint32_t i = 3; i < k->count; i++) {
            if ((s = zf_r_need_constant(k, i, "a constituent")) != ZF_SPIRV_OK)
                return s;
        }
        break;
    case SpvOpConstantSampler:
        if ((s = zf_r_need_words(k, 6)) != ZF_SPIRV_OK)
            return s;
        break;
    case SpvOpSpecConstantOp:
        if ((s = zf_r_need_words(k, 4)) != ZF_SPIRV_OK)
            return s;
        break;
    default:
        break;
    }
    if ((s = zf_define(k, 2, 0)) != ZF_SPIRV_OK)
        return s;
    if (k->opcode == SpvOpSpecConstant || k->opcode == SpvOpSpecConstantTrue || k->opcode == SpvOpSpecConstantFalse)
        return zf_record_spec_constant(k);
    return ZF_SPIRV_OK;
}

static zf_spirv_function *zf_current_function(zf_walk *k) {
    return ZF_SPIRV_AT(k->m->functions, zf_spirv_function, (uint32_t)k->function);
}

static zf_spirv_status zf_read_variable(zf_walk *k) {
    zf_spirv_status s = zf_r_need_words(k, 4);
    if (s == ZF_SPIRV_OK)
        s = zf_need_type(k, 1, "the result type");
    if (s == ZF_SPIRV_OK && k->count > 4)
        s = zf_r_check_id(k, 4, "the initializer");
    if (s != ZF_SPIRV_OK)
        return s;
    const zf_spirv_idinfo *type = &k->m->ids[k->w[1]];
    if (type->def == 0 || type->opcode != SpvOpTypePointer)
        return zf_r_bad(k, "the result type %%%u is not an OpTypePointer", k->w[1]);
    uint32_t pointer_storage = k->m->words[type->def + 2];
    if (pointer_storage != k->w[3])
        return zf_r_bad(k, "storage class %u differs from the pointer type's %u", k->w[3], pointer_storage);
    if (k->function >= 0) {
        if (k->w[3] != SpvStorageClassFunction)
            return zf_r_bad(k, "a variable inside a function must have storage class Function (7), not %u", k->w[3]);
        uint32_t *local = zf_spirv_array_push(&k->m->locals, sizeof *local);
        if (local == NULL)
            return zf_r_no_memory(k);
        *local = k->w[1];
        zf_current_function(k)->num_locals++;
        return ZF_SPIRV_OK; /* ids inside bodies belong to the execution engine's decoder */
    }
    if (k->w[3] == SpvStorageClassFunction)
        return zf_r_bad(k, "a module-scope variable cannot have storage class Function");
    zf_spirv_variable *var = zf_spirv_array_push(&k->m->variables, sizeof *var);
    if (var == NULL)
        return zf_r_no_memory(k);
    var->id = k->w[2];
    var->offset = k->offset;
    var->type = k->w[1];
    var->storage = k->w[3];
    var->initializer = k->count > 4 ? k->w[4] : 0;
    return zf_define(k, 2, k->m->variables.count - 1);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Functions */

static zf_spirv_status zf_read_function(zf_walk *k) {
    if (k->function >= 0)
        return zf_r_bad(k, "OpFunction inside function %%%u (no OpFunctionEnd before it)", zf_current_function(k)->id);
    zf_spirv_status s = zf_r_need_words(k, 5);
    if (s == ZF_SPIRV_OK)
        s = zf_need_type(k, 1, "the result type");
    if (s == ZF_SPIRV_OK)
        s = zf_need_type(k, 4, "the function type");
    if (s != ZF_SPIRV_OK)
        return s;
    const zf_spirv_idinfo *fntype = &k->m->ids[k->w[4]];
    if (fntype->def == 0 || fntype->opcode != SpvOpTypeFunction)
        return zf_r_bad(k, "%%%u is not an OpTypeFunction", k->w[4]);
    if (k->m->words[fntype->def + 2] != k->w[1])
        return zf_r_bad(k, "the result type %%%u differs from the function type's return type %%%u", k->w[1],
                        k->m->words[fntype->def + 2]);
    zf_spirv_function *fn = zf_spirv_array_push(&k->m->functions, sizeof *fn);
    if (fn == NULL)
        return zf_r_no_memory(k);
    fn->id = k->w[2];
    fn->offset = k->offset;
    fn->type = k->w[4];
    fn->first_param = k->m->params.count;
    fn->first_call = k->m->calls.count;
    fn->first_local = k->m->locals.count;
    k->function = (int64_t)k->m->functions.count - 1;
    k->in_params = true;
    return zf_define(k, 2, k->m->functions.count - 1);
}

static uint32_t zf_function_type_params(const zf_walk *k, const zf_spirv_function *fn) {
    return zf_spirv_count_at(k->m, k->m->ids[fn->type].def) - 3;
}

static zf_spirv_status zf_read_parameter(zf_walk *k) {
    if (k->function < 0 || !k->in_params)
        return zf_r_bad(k, "OpFunctionParameter outside a function's parameter list");
    zf_spirv_status s = zf_r_need_words(k, 3);
    if (s == ZF_SPIRV_OK)
        s = zf_need_type(k, 1, "the parameter type");
    if (s != ZF_SPIRV_OK)
        return s;
    zf_spirv_function *fn = zf_current_function(k);
    uint32_t declared = zf_function_type_params(k, fn);
    if (fn->num_params >= declared)
        return zf_r_bad(k, "function %%%u has more parameters than its type declares (%u)", fn->id, declared);
    uint32_t expected = k->m->words[k->m->ids[fn->type].def + 3 + fn->num_params];
    if (expected != k->w[1])
        return zf_r_bad(k, "parameter %u has type %%%u, its function type says %%%u", fn->num_params, k->w[1],
                        expected);
    uint32_t *param = zf_spirv_array_push(&k->m->params, sizeof *param);
    if (param == NULL)
        return zf_r_no_memory(k);
    *param = k->w[2];
    fn->num_params++;
    return zf_define(k, 2, (uint32_t)k->function);
}

/* The first instruction after the parameters: the parameter list must be complete. */
static zf_spirv_status zf_end_params(zf_walk *k) {
    k->in_params = false;
    zf_spirv_function *fn = zf_current_function(k);
    uint32_t declared = zf_function_type_params(k, fn);
    if (fn->num_params != declared)
        return zf_r_bad(k, "function %%%u has %u OpFunctionParameter, its type declares %u", fn->id, fn->num_params,
                        declared);
    return ZF_SPIRV_OK;
}

static zf_spirv_status zf_read_function_end(zf_walk *k) {
    if (k->function < 0)
        return zf_r_bad(k, "OpFunctionEnd outside a function");
    zf_spirv_status s = k->in_params ? zf_end_params(k) : ZF_SPIRV_OK;
    if (s != ZF_SPIRV_OK)
        return s;
    zf_current_function(k)->end = k->offset;
    k->function = -1;
    return ZF_SPIRV_OK;
}

static zf_spirv_status zf_read_call(zf_walk *k) {
    zf_spirv_status s = zf_r_need_words(k, 4);
    if (s == ZF_SPIRV_OK)
        s = zf_r_check_id(k, 3, "the called function"); /* functions may be called before they are defined */
    if (s != ZF_SPIRV_OK)
        return s;
    uint32_t *call = zf_spirv_array_push(&k->m->calls, sizeof *call);
    if (call == NULL)
        return zf_r_no_memory(k);
    *call = k->w[3];
    zf_current_function(k)->num_calls++;
    return ZF_SPIRV_OK;
}

/* An instruction inside a function body. */
static zf_spirv_status zf_read_body(zf_walk *k) {
    zf_spirv_status s = k->in_params ? zf_end_params(k) : ZF_SPIRV_OK;
    if (s != ZF_SPIRV_OK)
        return s;
    zf_spirv_function *fn = zf_current_function(k);
    if (fn->body == 0) {
        if (k->opcode != SpvOpLabel)
            return zf_r_bad(k, "function %%%u's body does not start with OpLabel", fn->id);
        fn->body = k->offset;
    }
    fn->instructions++;
    switch (k->opcode) {
    case SpvOpFunctionCall:
        return zf_read_call(k);
    case SpvOpVariable:
        return zf_read_variable(k);
    case SpvOpCapability:
    case SpvOpMemoryModel:
    case SpvOpEntryPoint:
    case SpvOpExecutionMode:
    case SpvOpDecorate:
    case SpvOpName:
        return zf_r_bad(k, "a module-level instruction inside function %%%u", fn->id);
    default:
        if (zf_is_type_opcode(k->opcode))
            return zf_r_bad(k, "a type declaration inside function %%%u", fn->id);
        return ZF_SPIRV_OK;
    }
}

/* ------------------------------------------------------------------------------------------------------------------
 * The walk */

static zf_spirv_status zf_read_module_level(zf_walk *k) {
    switch (k->opcode) {
    case SpvOpCapability:
        return zf_read_capability(k);
    case SpvOpMemoryModel:
        return zf_read_memory_model(k);
    case SpvOpEntryPoint:
        return zf_read_entry_point(k);
    case SpvOpExecutionMode:
        return zf_read_execution_mode(k);
    case SpvOpExecutionModeId:
        return zf_read_execution_mode_id(k);
    case SpvOpName:
        return zf_read_name(k);
    case SpvOpDecorate:
        return zf_read_decorate(k);
    case SpvOpDecorationGroup: {
        zf_spirv_status s = zf_r_need_words(k, 2);
        return s != ZF_SPIRV_OK ? s : zf_define(k, 1, 0);
    }
    case SpvOpGroupDecorate:
        return zf_read_group_decorate(k);
    case SpvOpTypeForwardPointer:
        return zf_read_forward_pointer(k);
    case SpvOpExtension: { /* any name: what a module may use is decided by decoding its instructions */
        zf_spirv_status s = zf_r_need_words(k, 2);
        return s != ZF_SPIRV_OK ? s : zf_r_need_string(k, 1, "the extension name", NULL);
    }
    case SpvOpString:
    case SpvOpExtInstImport: {
        zf_spirv_status s = zf_r_need_words(k, 3);
        if (s == ZF_SPIRV_OK)
            s = zf_r_need_string(k, 2, "the literal", NULL);
        return s != ZF_SPIRV_OK ? s : zf_define(k, 1, 0);
    }
    case SpvOpUndef: {
        zf_spirv_status s = zf_r_need_words(k, 3);
        if (s == ZF_SPIRV_OK)
            s = zf_need_type(k, 1, "the result type");
        return s != ZF_SPIRV_OK ? s : zf_define(k, 2, 0);
    }
    case SpvOpVariable:
        return zf_read_variable(k);
    case SpvOpFunction:
        return zf_read_function(k);
    case SpvOpFunctionParameter:
    case SpvOpFunctionEnd:
    case SpvOpFunctionCall:
    case SpvOpLabel:
    case SpvOpReturn:
    case SpvOpReturnValue:
        return zf_r_bad(k, "this instruction is only valid inside a function");
    default:
        if (zf_is_type_opcode(k->opcode))
            return zf_read_type(k);
        if (k->opcode >= SpvOpConstantTrue && k->opcode <= SpvOpSpecConstantOp && k->opcode != 47)
            return zf_read_constant(k);
        return ZF_SPIRV_OK;
    }
}

static zf_spirv_status zf_read_instruction(zf_walk *k) {
    if (k->function < 0)
        return zf_read_module_level(k);
    if (k->opcode == SpvOpFunctionParameter)
        return zf_read_parameter(k);
    if (k->opcode == SpvOpFunctionEnd)
        return zf_read_function_end(k);
    if (k->opcode == SpvOpFunction)
        return zf_read_function(k); /* reports the missing OpFunctionEnd */
    return zf_read_body(k);
}

static zf_spirv_status zf_walk_stream(zf_walk *k) {
    zf_spirv_module *m = k->m;
    size_t offset = 5;
    while (offset < m->num_words) {
        k->offset = (uint32_t)offset;
        k->w = &m->words[offset];
        k->opcode = k->w[0] & 0xFFFFu;
        k->count = k->w[0] >> 16;
        if (k->count == 0)
            return zf_r_bad(k, "word count 0");
        if (k->count > m->num_words - offset)
            return zf_r_bad(k, "word count %u runs past the end of the module (%zu words left)", k->count,
                            m->num_words - offset);
        zf_spirv_status s = zf_read_instruction(k);
        if (s != ZF_SPIRV_OK)
            return s;
        offset += k->count;
    }
    k->offset = (uint32_t)m->num_words;
    k->opcode = SpvOpNop;
    if (k->function >= 0)
        return zf_r_bad(k, "the module ends inside function %%%u (no OpFunctionEnd)", zf_current_function(k)->id);
    if (!k->memory_model)
        return zf_r_bad(k, "the module has no OpMemoryModel");
    return ZF_SPIRV_OK;
}

/* Entry points and calls may name functions defined later: check them once everything is read. */
static zf_spirv_status zf_check_references(zf_walk *k) {
    zf_spirv_module *m = k->m;
    for (uint32_t i = 0; i < m->entries.count; i++) {
        const zf_spirv_entry *e = ZF_SPIRV_AT(m->entries, zf_spirv_entry, i);
        const zf_spirv_idinfo *fn = &m->ids[e->function];
        k->offset = e->offset;
        k->opcode = SpvOpEntryPoint;
        if (fn->def == 0 || fn->opcode != SpvOpFunction)
            return zf_r_bad(k, "entry point '%s' names %%%u, which is not an OpFunction", e->name, e->function);
        if (ZF_SPIRV_AT(m->functions, zf_spirv_function, fn->index)->body == 0)
            return zf_r_bad(k, "entry point '%s' names function %%%u, which has no body", e->name, e->function);
    }
    for (uint32_t f = 0; f < m->functions.count; f++) {
        const zf_spirv_function *fn = ZF_SPIRV_AT(m->functions, zf_spirv_function, f);
        for (uint32_t c = 0; c < fn->num_calls; c++) {
            uint32_t callee = *ZF_SPIRV_AT(m->calls, uint32_t, fn->first_call + c);
            k->offset = fn->offset;
            k->opcode = SpvOpFunction;
            if (m->ids[callee].def == 0 || m->ids[callee].opcode != SpvOpFunction)
                return zf_r_bad(k, "function %%%u calls %%%u, which is not an OpFunction", fn->id, callee);
        }
    }
    bool kernel = false;
    for (uint32_t i = 0; i < m->capabilities.count; i++)
        kernel = kernel || *ZF_SPIRV_AT(m->capabilities, uint32_t, i) == SpvCapabilityKernel;
    if (!kernel) {
        zf_spirv_log_printf(k->log, "SPIR-V: the module does not declare the Kernel capability; Level Zero devices "
                                    "run OpenCL-style kernel modules only");
        return ZF_SPIRV_UNSUPPORTED;
    }
    return ZF_SPIRV_OK;
}

static uint32_t zf_swap32(uint32_t v) {
    return (v >> 24) | ((v >> 8) & 0xFF00u) | ((v << 8) & 0xFF0000u) | (v << 24);
}

static zf_spirv_status zf_read_header(zf_spirv_module *m, zf_spirv_log *log) {
    if (m->words[0] == zf_swap32(ZF_SPIRV_MAGIC)) {
        for (size_t i = 0; i < m->num_words; i++)
            m->words[i] = zf_swap32(m->words[i]);
    }
    if (m->words[0] != ZF_SPIRV_MAGIC) {
        zf_spirv_log_printf(log, "SPIR-V word 0: magic number 0x%08x is not the SPIR-V magic 0x%08x", m->words[0],
                            ZF_SPIRV_MAGIC);
        return ZF_SPIRV_MALFORMED;
    }
    uint32_t version = m->words[1];
    uint32_t major = (version >> 16) & 0xFFu, minor = (version >> 8) & 0xFFu;
    if ((version & 0xFF0000FFu) != 0 || major != 1 || minor > 6) {
        zf_spirv_log_printf(log, "SPIR-V word 1: version word 0x%08x is not SPIR-V 1.0 to 1.6", version);
        return ZF_SPIRV_MALFORMED;
    }
    m->version = version;
    m->bound = m->words[3];
    if (m->bound == 0 || m->bound > ZF_SPIRV_MAX_BOUND) {
        zf_spirv_log_printf(log, "SPIR-V word 3: id bound %u is outside 1..%u", m->bound, ZF_SPIRV_MAX_BOUND);
        return ZF_SPIRV_MALFORMED;
    }
    if (m->words[4] != 0) {
        zf_spirv_log_printf(log, "SPIR-V word 4: schema %u is not 0", m->words[4]);
        return ZF_SPIRV_MALFORMED;
    }
    return ZF_SPIRV_OK;
}

zf_spirv_status zf_spirv_read(const void *data, size_t size, zf_spirv_module **out, zf_spirv_log *log) {
    *out = NULL;
    if (data == NULL || size < 20 || size % 4 != 0) {
        zf_spirv_log_printf(log, "SPIR-V: %zu bytes is not a SPIR-V module (a 5-word header, then whole words)", size);
        return ZF_SPIRV_MALFORMED;
    }
    if (size / 4 > UINT32_MAX - 1) {
        zf_spirv_log_printf(log, "SPIR-V: %zu bytes is larger than the reader supports", size);
        return ZF_SPIRV_UNSUPPORTED;
    }
    zf_spirv_module *m = calloc(1, sizeof *m);
    if (m == NULL || (m->words = malloc(size)) == NULL) {
        free(m);
        zf_spirv_log_printf(log, "SPIR-V: out of host memory for a %zu-byte module", size);
        return ZF_SPIRV_NO_MEMORY;
    }
    memcpy(m->words, data, size); /* the caller's buffer may be unaligned or go away */
    m->num_words = size / 4;
    zf_spirv_status s = zf_read_header(m, log);
    if (s == ZF_SPIRV_OK && (m->ids = calloc(m->bound, sizeof *m->ids)) == NULL) {
        zf_spirv_log_printf(log, "SPIR-V: out of host memory for %u ids", m->bound);
        s = ZF_SPIRV_NO_MEMORY;
    }
    if (s == ZF_SPIRV_OK) {
        zf_walk k = {.m = m, .log = log, .function = -1};
        s = zf_walk_stream(&k);
        if (s == ZF_SPIRV_OK)
            s = zf_check_references(&k);
    }
    if (s != ZF_SPIRV_OK) {
        zf_spirv_free(m);
        return s;
    }
    *out = m;
    return ZF_SPIRV_OK;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Specialization */

zf_spirv_status zf_spirv_set_spec_constant(zf_spirv_module *m, uint32_t spec_id, const void *value, zf_spirv_log *log) {
    zf_spirv_spec_constant *spec = NULL;
    for (uint32_t i = 0; i < m->specs.count && spec == NULL; i++) {
        zf_spirv_spec_constant *candidate = ZF_SPIRV_AT(m->specs, zf_spirv_spec_constant, i);
        if (candidate->spec_id == spec_id)
            spec = candidate;
    }
    if (spec == NULL) {
        zf_spirv_log_printf(log, "SPIR-V: the module has no specialization constant with SpecId %u (0x%x)", spec_id,
                            spec_id);
        return ZF_SPIRV_UNKNOWN_SPEC_ID;
    }
    uint32_t *w = &m->words[spec->offset];
    uint64_t v = 0;
    if (spec->is_bool) {
        uint8_t byte;
        memcpy(&byte, value, 1);
        v = byte != 0;
        /* The specialized module stays valid SPIR-V: a boolean becomes OpSpecConstantTrue or OpSpecConstantFalse. */
        w[0] = (w[0] & 0xFFFF0000u) | (v ? SpvOpSpecConstantTrue : SpvOpSpecConstantFalse);
    } else {
        memcpy(&v, value, spec->bits / 8);
        if (spec->bits < 64)
            v &= (1ull << spec->bits) - 1;
        w[3] = (uint32_t)v;
        if (spec->bits > 32)
            w[4] = (uint32_t)(v >> 32);
    }
    spec->value = v;
    spec->set = true;
    return ZF_SPIRV_OK;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Accessors */

void zf_spirv_free(zf_spirv_module *m) {
    if (m == NULL)
        return;
    for (uint32_t i = 0; i < m->kernels.count; i++) {
        zf_spirv_kernel *kernel = ZF_SPIRV_AT(m->kernels, zf_spirv_kernel, i);
        free(kernel->args);
        free(kernel->attributes);
    }
    zf_spirv_array *arrays[] = {&m->capabilities, &m->types,     &m->functions, &m->params,  &m->calls,   &m->locals,
                                &m->entries,      &m->variables, &m->specs,     &m->kernels, &m->globals, &m->symbols};
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++)
        zf_spirv_array_free(arrays[i]);
    free(m->ids);
    free(m->words);
    free(m);
}

const uint32_t *zf_spirv_words(const zf_spirv_module *m, size_t *count) {
    *count = m->num_words;
    return m->words;
}

uint32_t zf_spirv_version(const zf_spirv_module *m) {
    return m->version;
}

uint32_t zf_spirv_spec_constant_count(const zf_spirv_module *m) {
    return m->specs.count;
}

const zf_spirv_spec_constant *zf_spirv_spec_constant_at(const zf_spirv_module *m, uint32_t index) {
    return index < m->specs.count ? ZF_SPIRV_AT(m->specs, zf_spirv_spec_constant, index) : NULL;
}

const zf_spirv_spec_constant *zf_spirv_find_spec_constant(const zf_spirv_module *m, uint32_t spec_id) {
    for (uint32_t i = 0; i < m->specs.count; i++) {
        const zf_spirv_spec_constant *spec = ZF_SPIRV_AT(m->specs, zf_spirv_spec_constant, i);
        if (spec->spec_id == spec_id)
            return spec;
    }
    return NULL;
}

bool zf_spirv_declares(const zf_spirv_module *m, uint32_t capability) {
    for (uint32_t i = 0; i < m->capabilities.count; i++)
        if (*ZF_SPIRV_AT(m->capabilities, uint32_t, i) == capability)
            return true;
    return false;
}

uint32_t zf_spirv_capability_count(const zf_spirv_module *m) {
    return m->capabilities.count;
}

uint32_t zf_spirv_capability_at(const zf_spirv_module *m, uint32_t index) {
    return index < m->capabilities.count ? *ZF_SPIRV_AT(m->capabilities, uint32_t, index) : 0;
}

uint64_t zf_fnv1a(const void *data, size_t size, uint64_t hash) {
    const uint8_t *bytes = data;
    for (size_t i = 0; i < size; i++) {
        hash ^= bytes[i];
        hash *= 0x100000001b3ull;
    }
    return hash;
}
