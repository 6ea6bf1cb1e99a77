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

/* Every core SPIR-V instruction (SPIR-V 1.6 unified grammar, opcodes below 1000) and the extension instructions the
 * engine knows, sorted by opcode: diagnostics name an instruction even when nothing else understands it. */
static const zf_opcode_name zf_opcode_names[] = {
    {0, "OpNop"},
    {1, "OpUndef"},
    {2, "OpSourceContinued"},
    {3, "OpSource"},
    {4, "OpSourceExtension"},
    {5, "OpName"},
    {6, "OpMemberName"},
    {7, "OpString"},
    {8, "OpLine"},
    {10, "OpExtension"},
    {11, "OpExtInstImport"},
    {12, "OpExtInst"},
    {14, "OpMemoryModel"},
    {15, "OpEntryPoint"},
    {16, "OpExecutionMode"},
    {17, "OpCapability"},
    {19, "OpTypeVoid"},
    {20, "OpTypeBool"},
    {21, "OpTypeInt"},
    {22, "OpTypeFloat"},
    {23, "OpTypeVector"},
    {24, "OpTypeMatrix"},
    {25, "OpTypeImage"},
    {26, "OpTypeSampler"},
    {27, "OpTypeSampledImage"},
    {28, "OpTypeArray"},
    {29, "OpTypeRuntimeArray"},
    {30, "OpTypeStruct"},
    {31, "OpTypeOpaque"},
    {32, "OpTypePointer"},
    {33, "OpTypeFunction"},
    {34, "OpTypeEvent"},
    {35, "OpTypeDeviceEvent"},
    {36, "OpTypeReserveId"},
    {37, "OpTypeQueue"},
    {38, "OpTypePipe"},
    {39, "OpTypeForwardPointer"},
    {41, "OpConstantTrue"},
    {42, "OpConstantFalse"},
    {43, "OpConstant"},
    {44, "OpConstantComposite"},
    {45, "OpConstantSampler"},
    {46, "OpConstantNull"},
    {48, "OpSpecConstantTrue"},
    {49, "OpSpecConstantFalse"},
    {50, "OpSpecConstant"},
    {51, "OpSpecConstantComposite"},
    {52, "OpSpecConstantOp"},
    {54, "OpFunction"},
    {55, "OpFunctionParameter"},
    {56, "OpFunctionEnd"},
    {57, "OpFunctionCall"},
    {59, "OpVariable"},
    {60, "OpImageTexelPointer"},
    {61, "OpLoad"},
    {62, "OpStore"},
    {63, "OpCopyMemory"},
    {64, "OpCopyMemorySized"},
    {65, "OpAccessChain"},
    {66, "OpInBoundsAccessChain"},
    {67, "OpPtrAccessChain"},
    {68, "OpArrayLength"},
    {69, "OpGenericPtrMemSemantics"},
    {70, "OpInBoundsPtrAccessChain"},
    {71, "OpDecorate"},
    {72, "OpMemberDecorate"},
    {73, "OpDecorationGroup"},
    {74, "OpGroupDecorate"},
    {75, "OpGroupMemberDecorate"},
    {77, "OpVectorExtractDynamic"},
    {78, "OpVectorInsertDynamic"},
    {79, "OpVectorShuffle"},
    {80, "OpCompositeConstruct"},
    {81, "OpCompositeExtract"},
    {82, "OpCompositeInsert"},
    {83, "OpCopyObject"},
    {84, "OpTranspose"},
    {86, "OpSampledImage"},
    {87, "OpImageSampleImplicitLod"},
    {88, "OpImageSampleExplicitLod"},
    {89, "OpImageSampleDrefImplicitLod"},
    {90, "OpImageSampleDrefExplicitLod"},
    {91, "OpImageSampleProjImplicitLod"},
    {92, "OpImageSampleProjExplicitLod"},
    {93, "OpImageSampleProjDrefImplicitLod"},
    {94, "OpImageSampleProjDrefExplicitLod"},
    {95, "OpImageFetch"},
    {96, "OpImageGather"},
    {97, "OpImageDrefGather"},
    {98, "OpImageRead"},
    {99, "OpImageWrite"},
    {100, "OpImage"},
    {101, "OpImageQueryFormat"},
    {102, "OpImageQueryOrder"},
    {103, "OpImageQuerySizeLod"},
    {104, "OpImageQuerySize"},
    {105, "OpImageQueryLod"},
    {106, "OpImageQueryLevels"},
    {107, "OpImageQuerySamples"},
    {109, "OpConvertFToU"},
    {110, "OpConvertFToS"},
    {111, "OpConvertSToF"},
    {112, "OpConvertUToF"},
    {113, "OpUConvert"},
    {114, "OpSConvert"},
    {115, "OpFConvert"},
    {116, "OpQuantizeToF16"},
    {117, "OpConvertPtrToU"},
    {118, "OpSatConvertSToU"},
    {119, "OpSatConvertUToS"},
    {120, "OpConvertUToPtr"},
    {121, "OpPtrCastToGeneric"},
    {122, "OpGenericCastToPtr"},
    {123, "OpGenericCastToPtrExplicit"},
    {124, "OpBitcast"},
    {126, "OpSNegate"},
    {127, "OpFNegate"},
    {128, "OpIAdd"},
    {129, "OpFAdd"},
    {130, "OpISub"},
    {131, "OpFSub"},
    {132, "OpIMul"},
    {133, "OpFMul"},
    {134, "OpUDiv"},
    {135, "OpSDiv"},
    {136, "OpFDiv"},
    {137, "OpUMod"},
    {138, "OpSRem"},
    {139, "OpSMod"},
    {140, "OpFRem"},
    {141, "OpFMod"},
    {142, "OpVectorTimesScalar"},
    {143, "OpMatrixTimesScalar"},
    {144, "OpVectorTimesMatrix"},
    {145, "OpMatrixTimesVector"},
    {146, "OpMatrixTimesMatrix"},
    {147, "OpOuterProduct"},
    {148, "OpDot"},
    {149, "OpIAddCarry"},
    {150, "OpISubBorrow"},
    {151, "OpUMulExtended"},
    {152, "OpSMulExtended"},
    {154, "OpAny"},
    {155, "OpAll"},
    {156, "OpIsNan"},
    {157, "OpIsInf"},
    {158, "OpIsFinite"},
    {159, "OpIsNormal"},
    {160, "OpSignBitSet"},
    {161, "OpLessOrGreater"},
    {162, "OpOrdered"},
    {163, "OpUnordered"},
    {164, "OpLogicalEqual"},
    {165, "OpLogicalNotEqual"},
    {166, "OpLogicalOr"},
    {167, "OpLogicalAnd"},
    {168, "OpLogicalNot"},
    {169, "OpSelect"},
    {170, "OpIEqual"},
    {171, "OpINotEqual"},
    {172, "OpUGreaterThan"},
    {173, "OpSGreaterThan"},
    {174, "OpUGreaterThanEqual"},
    {175, "OpSGreaterThanEqual"},
    {176, "OpULessThan"},
    {177, "OpSLessThan"},
    {178, "OpULessThanEqual"},
    {179, "OpSLessThanEqual"},
    {180, "OpFOrdEqual"},
    {181, "OpFUnordEqual"},
    {182, "OpFOrdNotEqual"},
    {183, "OpFUnordNotEqual"},
    {184, "OpFOrdLessThan"},
    {185, "OpFUnordLessThan"},
    {186, "OpFOrdGreaterThan"},
    {187, "OpFUnordGreaterThan"},
    {188, "OpFOrdLessThanEqual"},
    {189, "OpFUnordLessThanEqual"},
    {190, "OpFOrdGreaterThanEqual"},
    {191, "OpFUnordGreaterThanEqual"},
    {194, "OpShiftRightLogical"},
    {195, "OpShiftRightArithmetic"},
    {196, "OpShiftLeftLogical"},
    {197, "OpBitwiseOr"},
    {198, "OpBitwiseXor"},
    {199, "OpBitwiseAnd"},
    {200, "OpNot"},
    {201, "OpBitFieldInsert"},
    {202, "OpBitFieldSExtract"},
    {203, "OpBitFieldUExtract"},
    {204, "OpBitReverse"},
    {205, "OpBitCount"},
    {207, "OpDPdx"},
    {208, "OpDPdy"},
    {209, "OpFwidth"},
    {210, "OpDPdxFine"},
    {211, "OpDPdyFine"},
    {212, "OpFwidthFine"},
    {213, "OpDPdxCoarse"},
    {214, "OpDPdyCoarse"},
    {215, "OpFwidthCoarse"},
    {218, "OpEmitVertex"},
    {219, "OpEndPrimitive"},
    {220, "OpEmitStreamVertex"},
    {221, "OpEndStreamPrimitive"},
    {224, "OpControlBarrier"},
    {225, "OpMemoryBarrier"},
    {227, "OpAtomicLoad"},
    {228, "OpAtomicStore"},
    {229, "OpAtomicExchange"},
    {230, "OpAtomicCompareExchange"},
    {231, "OpAtomicCompareExchangeWeak"},
    {232, "OpAtomicIIncrement"},
    {233, "OpAtomicIDecrement"},
    {234, "OpAtomicIAdd"},
    {235, "OpAtomicISub"},
    {236, "OpAtomicSMin"},
    {237, "OpAtomicUMin"},
    {238, "OpAtomicSMax"},
    {239, "OpAtomicUMax"},
    {240, "OpAtomicAnd"},
    {241, "OpAtomicOr"},
    {242, "OpAtomicXor"},
    {245, "OpPhi"},
    {246, "OpLoopMerge"},
    {247, "OpSelectionMerge"},
    {248, "OpLabel"},
    {249, "OpBranch"},
    {250, "OpBranchConditional"},
    {251, "OpSwitch"},
    {252, "OpKill"},
    {253, "OpReturn"},
    {254, "OpReturnValue"},
    {255, "OpUnreachable"},
    {256, "OpLifetimeStart"},
    {257, "OpLifetimeStop"},
    {259, "OpGroupAsyncCopy"},
    {260, "OpGroupWaitEvents"},
    {261, "OpGroupAll"},
    {262, "OpGroupAny"},
    {263, "OpGroupBroadcast"},
    {264, "OpGroupIAdd"},
    {265, "OpGroupFAdd"},
    {266, "OpGroupFMin"},
    {267, "OpGroupUMin"},
    {268, "OpGroupSMin"},
    {269, "OpGroupFMax"},
    {270, "OpGroupUMax"},
    {271, "OpGroupSMax"},
    {274, "OpReadPipe"},
    {275, "OpWritePipe"},
    {276, "OpReservedReadPipe"},
    {277, "OpReservedWritePipe"},
    {278, "OpReserveReadPipePackets"},
    {279, "OpReserveWritePipePackets"},
    {280, "OpCommitReadPipe"},
    {281, "OpCommitWritePipe"},
    {282, "OpIsValidReserveId"},
    {283, "OpGetNumPipePackets"},
    {284, "OpGetMaxPipePackets"},
    {285, "OpGroupReserveReadPipePackets"},
    {286, "OpGroupReserveWritePipePackets"},
    {287, "OpGroupCommitReadPipe"},
    {288, "OpGroupCommitWritePipe"},
    {291, "OpEnqueueMarker"},
    {292, "OpEnqueueKernel"},
    {293, "OpGetKernelNDrangeSubGroupCount"},
    {294, "OpGetKernelNDrangeMaxSubGroupSize"},
    {295, "OpGetKernelWorkGroupSize"},
    {296, "OpGetKernelPreferredWorkGroupSizeMultiple"},
    {297, "OpRetainEvent"},
    {298, "OpReleaseEvent"},
    {299, "OpCreateUserEvent"},
    {300, "OpIsValidEvent"},
    {301, "OpSetUserEventStatus"},
    {302, "OpCaptureEventProfilingInfo"},
    {303, "OpGetDefaultQueue"},
    {304, "OpBuildNDRange"},
    {305, "OpImageSparseSampleImplicitLod"},
    {306, "OpImageSparseSampleExplicitLod"},
    {307, "OpImageSparseSampleDrefImplicitLod"},
    {308, "OpImageSparseSampleDrefExplicitLod"},
    {309, "OpImageSparseSampleProjImplicitLod"},
    {310, "OpImageSparseSampleProjExplicitLod"},
    {311, "OpImageSparseSampleProjDrefImplicitLod"},
    {312, "OpImageSparseSampleProjDrefExplicitLod"},
    {313, "OpImageSparseFetch"},
    {314, "OpImageSparseGather"},
    {315, "OpImageSparseDrefGather"},
    {316, "OpImageSparseTexelsResident"},
    {317, "OpNoLine"},
    {318, "OpAtomicFlagTestAndSet"},
    {319, "OpAtomicFlagClear"},
    {320, "OpImageSparseRead"},
    {321, "OpSizeOf"},
    {322, "OpTypePipeStorage"},
    {323, "OpConstantPipeStorage"},
    {324, "OpCreatePipeFromPipeStorage"},
    {325, "OpGetKernelLocalSizeForSubgroupCount"},
    {326, "OpGetKernelMaxNumSubgroups"},
    {327, "OpTypeNamedBarrier"},
    {328, "OpNamedBarrierInitialize"},
    {329, "OpMemoryNamedBarrier"},
    {330, "OpModuleProcessed"},
    {331, "OpExecutionModeId"},
    {332, "OpDecorateId"},
    {333, "OpGroupNonUniformElect"},
    {334, "OpGroupNonUniformAll"},
    {335, "OpGroupNonUniformAny"},
    {336, "OpGroupNonUniformAllEqual"},
    {337, "OpGroupNonUniformBroadcast"},
    {338, "OpGroupNonUniformBroadcastFirst"},
    {339, "OpGroupNonUniformBallot"},
    {340, "OpGroupNonUniformInverseBallot"},
    {341, "OpGroupNonUniformBallotBitExtract"},
    {342, "OpGroupNonUniformBallotBitCount"},
    {343, "OpGroupNonUniformBallotFindLSB"},
    {344, "OpGroupNonUniformBallotFindMSB"},
    {345, "OpGroupNonUniformShuffle"},
    {346, "OpGroupNonUniformShuffleXor"},
    {347, "OpGroupNonUniformShuffleUp"},
    {348, "OpGroupNonUniformShuffleDown"},
    {349, "OpGroupNonUniformIAdd"},
    {350, "OpGroupNonUniformFAdd"},
    {351, "OpGroupNonUniformIMul"},
    {352, "OpGroupNonUniformFMul"},
    {353, "OpGroupNonUniformSMin"},
    {354, "OpGroupNonUniformUMin"},
    {355, "OpGroupNonUniformFMin"},
    {356, "OpGroupNonUniformSMax"},
    {357, "OpGroupNonUniformUMax"},
    {358, "OpGroupNonUniformFMax"},
    {359, "OpGroupNonUniformBitwiseAnd"},
    {360, "OpGroupNonUniformBitwiseOr"},
    {361, "OpGroupNonUniformBitwiseXor"},
    {362, "OpGroupNonUniformLogicalAnd"},
    {363, "OpGroupNonUniformLogicalOr"},
    {364, "OpGroupNonUniformLogicalXor"},
    {365, "OpGroupNonUniformQuadBroadcast"},
    {366, "OpGroupNonUniformQuadSwap"},
    {400, "OpCopyLogical"},
    {401, "OpPtrEqual"},
    {402, "OpPtrNotEqual"},
    {403, "OpPtrDiff"},
    {5571, "OpSubgroupShuffleINTEL"},
    {5572, "OpSubgroupShuffleDownINTEL"},
    {5573, "OpSubgroupShuffleUpINTEL"},
    {5574, "OpSubgroupShuffleXorINTEL"},
    {5575, "OpSubgroupBlockReadINTEL"},
    {5576, "OpSubgroupBlockWriteINTEL"},
    {5577, "OpSubgroupImageBlockReadINTEL"},
    {5578, "OpSubgroupImageBlockWriteINTEL"},
    {5600, "OpConstantFunctionPointerINTEL"},
    {5601, "OpFunctionPointerCallINTEL"},
    {5614, "OpAtomicFMinEXT"},
    {5615, "OpAtomicFMaxEXT"},
    {6035, "OpAtomicFAddEXT"},
};

const char *zf_spirv_opcode_name(uint32_t opcode, char *buf, size_t size) {
    size_t low = 0, high = sizeof zf_opcode_names / sizeof zf_opcode_names[0];
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (zf_opcode_names[middle].opcode == opcode)
            return zf_opcode_names[middle].name;
        if (zf_opcode_names[middle].opcode < opcode)
            low = middle + 1;
        else
            high = middle;
    }
    snprintf(buf, size, "opcode %u", opcode);
    return buf;
}
