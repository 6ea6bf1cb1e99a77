/* Logs, growable arrays and opcode names: the small services of the SPIR-V reader. */
#include "spirv_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool zf_spirv_log_reserve(zf_spirv_log *log, size_t extra) {
    if (log->length + extra + 1 <= log->capacity)
        return true;
    size_t capacity = log->capacity ? log->capacity : 256;
    while (capacity < log->length + extra + 1)
        capacity *= 2;
    char *text = realloc(log->text, capacity);
    if (text == NULL)
        return false;
    log->text = text;
    log->capacity = capacity;
    return true;
}

void zf_spirv_log_printf(zf_spirv_log *log, const char *format, ...) {
    if (log == NULL)
        return;
    char line[1024];
    va_list args;
    va_start(args, format);
    int n = vsnprintf(line, sizeof line, format, args);
    va_end(args);
    if (n < 0)
        return;
    size_t len = strlen(line);
    if (!zf_spirv_log_reserve(log, len + 1)) {
        log->truncated = true;
        return;
    }
    memcpy(log->text + log->length, line, len);
    log->length += len;
    log->text[log->length++] = '\n';
    log->text[log->length] = '\0';
}

const char *zf_spirv_log_text(const zf_spirv_log *log) {
    return (log != NULL && log->text != NULL) ? log->text : "";
}

void zf_spirv_log_free(zf_spirv_log *log) {
    free(log->text);
    memset(log, 0, sizeof *log);
}

void *zf_spirv_array_push(zf_spirv_array *array, size_t item_size) {
    if (array->count == array->capacity) {
        uint32_t capacity = array->capacity ? array->capacity * 2 : 8;
        if (capacity < array->capacity) /* the counts are bounded by the word count; this never wraps in practice */
            return NULL;
        void *items = realloc(array->items, (size_t)capacity * item_size);
        if (items == NULL)
            return NULL;
        array->items = items;
        array->capacity = capacity;
    }
    void *item = (char *)array->items + (size_t)array->count * item_size;
    memset(item, 0, item_size);
    array->count++;
    return item;
}

void zf_spirv_array_free(zf_spirv_array *array) {
    free(array->items);
    memset(array, 0, sizeof *array);
}

typedef struct zf_opcode_name {
    uint32_t opcode;
    const char *name;
} zf_opcode_name;

static const zf_opcode_name zf_opcode_names[] = {
    {ZF_OP_NOP, "OpNop"},
    {ZF_OP_UNDEF, "OpUndef"},
    {ZF_OP_NAME, "OpName"},
    {ZF_OP_MEMBER_NAME, "OpMemberName"},
    {ZF_OP_STRING, "OpString"},
    {ZF_OP_EXTENSION, "OpExtension"},
    {ZF_OP_EXT_INST_IMPORT, "OpExtInstImport"},
    {ZF_OP_MEMORY_MODEL, "OpMemoryModel"},
    {ZF_OP_ENTRY_POINT, "OpEntryPoint"},
    {ZF_OP_EXECUTION_MODE, "OpExecutionMode"},
    {ZF_OP_CAPABILITY, "OpCapability"},
    {ZF_OP_TYPE_VOID, "OpTypeVoid"},
    {ZF_OP_TYPE_BOOL, "OpTypeBool"},
    {ZF_OP_TYPE_INT, "OpTypeInt"},
    {ZF_OP_TYPE_FLOAT, "OpTypeFloat"},
    {ZF_OP_TYPE_VECTOR, "OpTypeVector"},
    {ZF_OP_TYPE_MATRIX, "OpTypeMatrix"},
    {ZF_OP_TYPE_IMAGE, "OpTypeImage"},
    {ZF_OP_TYPE_SAMPLER, "OpTypeSampler"},
    {ZF_OP_TYPE_SAMPLED_IMAGE, "OpTypeSampledImage"},
    {ZF_OP_TYPE_ARRAY, "OpTypeArray"},
    {ZF_OP_TYPE_RUNTIME_ARRAY, "OpTypeRuntimeArray"},
    {ZF_OP_TYPE_STRUCT, "OpTypeStruct"},
    {ZF_OP_TYPE_OPAQUE, "OpTypeOpaque"},
    {ZF_OP_TYPE_POINTER, "OpTypePointer"},
    {ZF_OP_TYPE_FUNCTION, "OpTypeFunction"},
    {ZF_OP_TYPE_EVENT, "OpTypeEvent"},
    {ZF_OP_TYPE_DEVICE_EVENT, "OpTypeDeviceEvent"},
    {ZF_OP_TYPE_RESERVE_ID, "OpTypeReserveId"},
    {ZF_OP_TYPE_QUEUE, "OpTypeQueue"},
    {ZF_OP_TYPE_PIPE, "OpTypePipe"},
    {ZF_OP_TYPE_FORWARD_POINTER, "OpTypeForwardPointer"},
    {ZF_OP_CONSTANT_TRUE, "OpConstantTrue"},
    {ZF_OP_CONSTANT_FALSE, "OpConstantFalse"},
    {ZF_OP_CONSTANT, "OpConstant"},
    {ZF_OP_CONSTANT_COMPOSITE, "OpConstantComposite"},
    {ZF_OP_CONSTANT_SAMPLER, "OpConstantSampler"},
    {ZF_OP_CONSTANT_NULL, "OpConstantNull"},
    {ZF_OP_SPEC_CONSTANT_TRUE, "OpSpecConstantTrue"},
    {ZF_OP_SPEC_CONSTANT_FALSE, "OpSpecConstantFalse"},
    {ZF_OP_SPEC_CONSTANT, "OpSpecConstant"},
    {ZF_OP_SPEC_CONSTANT_COMPOSITE, "OpSpecConstantComposite"},
    {ZF_OP_SPEC_CONSTANT_OP, "OpSpecConstantOp"},
    {ZF_OP_FUNCTION, "OpFunction"},
    {ZF_OP_FUNCTION_PARAMETER, "OpFunctionParameter"},
    {ZF_OP_FUNCTION_END, "OpFunctionEnd"},
    {ZF_OP_FUNCTION_CALL, "OpFunctionCall"},
    {ZF_OP_VARIABLE, "OpVariable"},
    {ZF_OP_DECORATE, "OpDecorate"},
    {ZF_OP_MEMBER_DECORATE, "OpMemberDecorate"},
    {ZF_OP_DECORATION_GROUP, "OpDecorationGroup"},
    {ZF_OP_GROUP_DECORATE, "OpGroupDecorate"},
    {ZF_OP_GROUP_MEMBER_DECORATE, "OpGroupMemberDecorate"},
    {ZF_OP_LABEL, "OpLabel"},
    {ZF_OP_RETURN, "OpReturn"},
    {ZF_OP_RETURN_VALUE, "OpReturnValue"},
    {ZF_OP_TYPE_PIPE_STORAGE, "OpTypePipeStorage"},
    {ZF_OP_TYPE_NAMED_BARRIER, "OpTypeNamedBarrier"},
    {ZF_OP_EXECUTION_MODE_ID, "OpExecutionModeId"},
    {ZF_OP_DECORATE_ID, "OpDecorateId"},
};

const char *zf_spirv_opcode_name(uint32_t opcode, char *buf, size_t size) {
    for (size_t i = 0; i < sizeof zf_opcode_names / sizeof zf_opcode_names[0]; i++) {
        if (zf_opcode_names[i].opcode == opcode)
            return zf_opcode_names[i].name;
    }
    snprintf(buf, size, "opcode %u", opcode);
    return buf;
}
