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
 * engine knows, sorted by opcode: diagnostics name an instruction even when nothing else understands it. The
 * numbers are the Khronos header's (SpvOp*); only the names are spelled here, since that header has no name table. */
#define ZF_OPNAME(name)                                                                                                \
    { SpvOp##name, "Op" #name }
static const zf_opcode_name zf_opcode_names[] = {
    ZF_OPNAME(Nop),
    ZF_OPNAME(Undef),
    ZF_OPNAME(SourceContinued),
    ZF_OPNAME(Source),
    ZF_OPNAME(SourceExtension),
    ZF_OPNAME(Name),
    ZF_OPNAME(MemberName),
    ZF_OPNAME(String),
    ZF_OPNAME(Line),
    ZF_OPNAME(Extension),
    ZF_OPNAME(ExtInstImport),
    ZF_OPNAME(ExtInst),
    ZF_OPNAME(MemoryModel),
    ZF_OPNAME(EntryPoint),
    ZF_OPNAME(ExecutionMode),
    ZF_OPNAME(Capability),
    ZF_OPNAME(TypeVoid),
    ZF_OPNAME(TypeBool),
    ZF_OPNAME(TypeInt),
    ZF_OPNAME(TypeFloat),
    ZF_OPNAME(TypeVector),
    ZF_OPNAME(TypeMatrix),
    ZF_OPNAME(TypeImage),
    ZF_OPNAME(TypeSampler),
    ZF_OPNAME(TypeSampledImage),
    ZF_OPNAME(TypeArray),
    ZF_OPNAME(TypeRuntimeArray),
    ZF_OPNAME(TypeStruct),
    ZF_OPNAME(TypeOpaque),
    ZF_OPNAME(TypePointer),
    ZF_OPNAME(TypeFunction),
    ZF_OPNAME(TypeEvent),
    ZF_OPNAME(TypeDeviceEvent),
    ZF_OPNAME(TypeReserveId),
    ZF_OPNAME(TypeQueue),
    ZF_OPNAME(TypePipe),
    ZF_OPNAME(TypeForwardPointer),
    ZF_OPNAME(ConstantTrue),
    ZF_OPNAME(ConstantFalse),
    ZF_OPNAME(Constant),
    ZF_OPNAME(ConstantComposite),
    ZF_OPNAME(ConstantSampler),
    ZF_OPNAME(ConstantNull),
    ZF_OPNAME(SpecConstantTrue),
    ZF_OPNAME(SpecConstantFalse),
    ZF_OPNAME(SpecConstant),
    ZF_OPNAME(SpecConstantComposite),
    ZF_OPNAME(SpecConstantOp),
    ZF_OPNAME(Function),
    ZF_OPNAME(FunctionParameter),
    ZF_OPNAME(FunctionEnd),
    ZF_OPNAME(FunctionCall),
    ZF_OPNAME(Variable),
    ZF_OPNAME(ImageTexelPointer),
    ZF_OPNAME(Load),
    ZF_OPNAME(Store),
    ZF_OPNAME(CopyMemory),
    ZF_OPNAME(CopyMemorySized),
    ZF_OPNAME(AccessChain),
    ZF_OPNAME(InBoundsAccessChain),
    ZF_OPNAME(PtrAccessChain),
    ZF_OPNAME(ArrayLength),
    ZF_OPNAME(GenericPtrMemSemantics),
    ZF_OPNAME(InBoundsPtrAccessChain),
    ZF_OPNAME(Decorate),
    ZF_OPNAME(MemberDecorate),
    ZF_OPNAME(DecorationGroup),
    ZF_OPNAME(GroupDecorate),
    ZF_OPNAME(GroupMemberDecorate),
    ZF_OPNAME(VectorExtractDynamic),
    ZF_OPNAME(VectorInsertDynamic),
    ZF_OPNAME(VectorShuffle),
    ZF_OPNAME(CompositeConstruct),
    ZF_OPNAME(CompositeExtract),
    ZF_OPNAME(CompositeInsert),
    ZF_OPNAME(CopyObject),
    ZF_OPNAME(Transpose),
    ZF_OPNAME(SampledImage),
    ZF_OPNAME(ImageSampleImplicitLod),
    ZF_OPNAME(ImageSampleExplicitLod),
    ZF_OPNAME(ImageSampleDrefImplicitLod),
    ZF_OPNAME(ImageSampleDrefExplicitLod),
    ZF_OPNAME(ImageSampleProjImplicitLod),
    ZF_OPNAME(ImageSampleProjExplicitLod),
    ZF_OPNAME(ImageSampleProjDrefImplicitLod),
    ZF_OPNAME(ImageSampleProjDrefExplicitLod),
    ZF_OPNAME(ImageFetch),
    ZF_OPNAME(ImageGather),
    ZF_OPNAME(ImageDrefGather),
    ZF_OPNAME(ImageRead),
    ZF_OPNAME(ImageWrite),
    ZF_OPNAME(Image),
    ZF_OPNAME(ImageQueryFormat),
    ZF_OPNAME(ImageQueryOrder),
    ZF_OPNAME(ImageQuerySizeLod),
    ZF_OPNAME(ImageQuerySize),
    ZF_OPNAME(ImageQueryLod),
    ZF_OPNAME(ImageQueryLevels),
    ZF_OPNAME(ImageQuerySamples),
    ZF_OPNAME(ConvertFToU),
    ZF_OPNAME(ConvertFToS),
    ZF_OPNAME(ConvertSToF),
    ZF_OPNAME(ConvertUToF),
    ZF_OPNAME(UConvert),
    ZF_OPNAME(SConvert),
    ZF_OPNAME(FConvert),
    ZF_OPNAME(QuantizeToF16),
    ZF_OPNAME(ConvertPtrToU),
    ZF_OPNAME(SatConvertSToU),
    ZF_OPNAME(SatConvertUToS),
    ZF_OPNAME(ConvertUToPtr),
    ZF_OPNAME(PtrCastToGeneric),
    ZF_OPNAME(GenericCastToPtr),
    ZF_OPNAME(GenericCastToPtrExplicit),
    ZF_OPNAME(Bitcast),
    ZF_OPNAME(SNegate),
    ZF_OPNAME(FNegate),
    ZF_OPNAME(IAdd),
    ZF_OPNAME(FAdd),
    ZF_OPNAME(ISub),
    ZF_OPNAME(FSub),
    ZF_OPNAME(IMul),
    ZF_OPNAME(FMul),
    ZF_OPNAME(UDiv),
    ZF_OPNAME(SDiv),
    ZF_OPNAME(FDiv),
    ZF_OPNAME(UMod),
    ZF_OPNAME(SRem),
    ZF_OPNAME(SMod),
    ZF_OPNAME(FRem),
    ZF_OPNAME(FMod),
    ZF_OPNAME(VectorTimesScalar),
    ZF_OPNAME(MatrixTimesScalar),
    ZF_OPNAME(VectorTimesMatrix),
    ZF_OPNAME(MatrixTimesVector),
    ZF_OPNAME(MatrixTimesMatrix),
    ZF_OPNAME(OuterProduct),
    ZF_OPNAME(Dot),
    ZF_OPNAME(IAddCarry),
    ZF_OPNAME(ISubBorrow),
    ZF_OPNAME(UMulExtended),
    ZF_OPNAME(SMulExtended),
    ZF_OPNAME(Any),
    ZF_OPNAME(All),
    ZF_OPNAME(IsNan),
    ZF_OPNAME(IsInf),
    ZF_OPNAME(IsFinite),
    ZF_OPNAME(IsNormal),
    ZF_OPNAME(SignBitSet),
    ZF_OPNAME(LessOrGreater),
    ZF_OPNAME(Ordered),
    ZF_OPNAME(Unordered),
    ZF_OPNAME(LogicalEqual),
    ZF_OPNAME(LogicalNotEqual),
    ZF_OPNAME(LogicalOr),
    ZF_OPNAME(LogicalAnd),
    ZF_OPNAME(LogicalNot),
    ZF_OPNAME(Select),
    ZF_OPNAME(IEqual),
    ZF_OPNAME(INotEqual),
    ZF_OPNAME(UGreaterThan),
    ZF_OPNAME(SGreaterThan),
    ZF_OPNAME(UGreaterThanEqual),
    ZF_OPNAME(SGreaterThanEqual),
    ZF_OPNAME(ULessThan),
    ZF_OPNAME(SLessThan),
    ZF_OPNAME(ULessThanEqual),
    ZF_OPNAME(SLessThanEqual),
    ZF_OPNAME(FOrdEqual),
    ZF_OPNAME(FUnordEqual),
    ZF_OPNAME(FOrdNotEqual),
    ZF_OPNAME(FUnordNotEqual),
    ZF_OPNAME(FOrdLessThan),
    ZF_OPNAME(FUnordLessThan),
    ZF_OPNAME(FOrdGreaterThan),
    ZF_OPNAME(FUnordGreaterThan),
    ZF_OPNAME(FOrdLessThanEqual),
    ZF_OPNAME(FUnordLessThanEqual),
    ZF_OPNAME(FOrdGreaterThanEqual),
    ZF_OPNAME(FUnordGreaterThanEqual),
    ZF_OPNAME(ShiftRightLogical),
    ZF_OPNAME(ShiftRightArithmetic),
    ZF_OPNAME(ShiftLeftLogical),
    ZF_OPNAME(BitwiseOr),
    ZF_OPNAME(BitwiseXor),
    ZF_OPNAME(BitwiseAnd),
    ZF_OPNAME(Not),
    ZF_OPNAME(BitFieldInsert),
    ZF_OPNAME(BitFieldSExtract),
    ZF_OPNAME(BitFieldUExtract),
    ZF_OPNAME(BitReverse),
    ZF_OPNAME(BitCount),
    ZF_OPNAME(DPdx),
    ZF_OPNAME(DPdy),
    ZF_OPNAME(Fwidth),
    ZF_OPNAME(DPdxFine),
    ZF_OPNAME(DPdyFine),
    ZF_OPNAME(FwidthFine),
    ZF_OPNAME(DPdxCoarse),
    ZF_OPNAME(DPdyCoarse),
    ZF_OPNAME(FwidthCoarse),
    ZF_OPNAME(EmitVertex),
    ZF_OPNAME(EndPrimitive),
    ZF_OPNAME(EmitStreamVertex),
    ZF_OPNAME(EndStreamPrimitive),
    ZF_OPNAME(ControlBarrier),
    ZF_OPNAME(MemoryBarrier),
    ZF_OPNAME(AtomicLoad),
    ZF_OPNAME(AtomicStore),
    ZF_OPNAME(AtomicExchange),
    ZF_OPNAME(AtomicCompareExchange),
    ZF_OPNAME(AtomicCompareExchangeWeak),
    ZF_OPNAME(AtomicIIncrement),
    ZF_OPNAME(AtomicIDecrement),
    ZF_OPNAME(AtomicIAdd),
    ZF_OPNAME(AtomicISub),
    ZF_OPNAME(AtomicSMin),
    ZF_OPNAME(AtomicUMin),
    ZF_OPNAME(AtomicSMax),
    ZF_OPNAME(AtomicUMax),
    ZF_OPNAME(AtomicAnd),
    ZF_OPNAME(AtomicOr),
    ZF_OPNAME(AtomicXor),
    ZF_OPNAME(Phi),
    ZF_OPNAME(LoopMerge),
    ZF_OPNAME(SelectionMerge),
    ZF_OPNAME(Label),
    ZF_OPNAME(Branch),
    ZF_OPNAME(BranchConditional),
    ZF_OPNAME(Switch),
    ZF_OPNAME(Kill),
    ZF_OPNAME(Return),
    ZF_OPNAME(ReturnValue),
    ZF_OPNAME(Unreachable),
    ZF_OPNAME(LifetimeStart),
    ZF_OPNAME(LifetimeStop),
    ZF_OPNAME(GroupAsyncCopy),
    ZF_OPNAME(GroupWaitEvents),
    ZF_OPNAME(GroupAll),
    ZF_OPNAME(GroupAny),
    ZF_OPNAME(GroupBroadcast),
    ZF_OPNAME(GroupIAdd),
    ZF_OPNAME(GroupFAdd),
    ZF_OPNAME(GroupFMin),
    ZF_OPNAME(GroupUMin),
    ZF_OPNAME(GroupSMin),
    ZF_OPNAME(GroupFMax),
    ZF_OPNAME(GroupUMax),
    ZF_OPNAME(GroupSMax),
    ZF_OPNAME(ReadPipe),
    ZF_OPNAME(WritePipe),
    ZF_OPNAME(ReservedReadPipe),
    ZF_OPNAME(ReservedWritePipe),
    ZF_OPNAME(ReserveReadPipePackets),
    ZF_OPNAME(ReserveWritePipePackets),
    ZF_OPNAME(CommitReadPipe),
    ZF_OPNAME(CommitWritePipe),
    ZF_OPNAME(IsValidReserveId),
    ZF_OPNAME(GetNumPipePackets),
    ZF_OPNAME(GetMaxPipePackets),
    ZF_OPNAME(GroupReserveReadPipePackets),
    ZF_OPNAME(GroupReserveWritePipePackets),
    ZF_OPNAME(GroupCommitReadPipe),
    ZF_OPNAME(GroupCommitWritePipe),
    ZF_OPNAME(EnqueueMarker),
    ZF_OPNAME(EnqueueKernel),
    ZF_OPNAME(GetKernelNDrangeSubGroupCount),
    ZF_OPNAME(GetKernelNDrangeMaxSubGroupSize),
    ZF_OPNAME(GetKernelWorkGroupSize),
    ZF_OPNAME(GetKernelPreferredWorkGroupSizeMultiple),
    ZF_OPNAME(RetainEvent),
    ZF_OPNAME(ReleaseEvent),
    ZF_OPNAME(CreateUserEvent),
    ZF_OPNAME(IsValidEvent),
    ZF_OPNAME(SetUserEventStatus),
    ZF_OPNAME(CaptureEventProfilingInfo),
    ZF_OPNAME(GetDefaultQueue),
    ZF_OPNAME(BuildNDRange),
    ZF_OPNAME(ImageSparseSampleImplicitLod),
    ZF_OPNAME(ImageSparseSampleExplicitLod),
    ZF_OPNAME(ImageSparseSampleDrefImplicitLod),
    ZF_OPNAME(ImageSparseSampleDrefExplicitLod),
    ZF_OPNAME(ImageSparseSampleProjImplicitLod),
    ZF_OPNAME(ImageSparseSampleProjExplicitLod),
    ZF_OPNAME(ImageSparseSampleProjDrefImplicitLod),
    ZF_OPNAME(ImageSparseSampleProjDrefExplicitLod),
    ZF_OPNAME(ImageSparseFetch),
    ZF_OPNAME(ImageSparseGather),
    ZF_OPNAME(ImageSparseDrefGather),
    ZF_OPNAME(ImageSparseTexelsResident),
    ZF_OPNAME(NoLine),
    ZF_OPNAME(AtomicFlagTestAndSet),
    ZF_OPNAME(AtomicFlagClear),
    ZF_OPNAME(ImageSparseRead),
    ZF_OPNAME(SizeOf),
    ZF_OPNAME(TypePipeStorage),
    ZF_OPNAME(ConstantPipeStorage),
    ZF_OPNAME(CreatePipeFromPipeStorage),
    ZF_OPNAME(GetKernelLocalSizeForSubgroupCount),
    ZF_OPNAME(GetKernelMaxNumSubgroups),
    ZF_OPNAME(TypeNamedBarrier),
    ZF_OPNAME(NamedBarrierInitialize),
    ZF_OPNAME(MemoryNamedBarrier),
    ZF_OPNAME(ModuleProcessed),
    ZF_OPNAME(ExecutionModeId),
    ZF_OPNAME(DecorateId),
    ZF_OPNAME(GroupNonUniformElect),
    ZF_OPNAME(GroupNonUniformAll),
    ZF_OPNAME(GroupNonUniformAny),
    ZF_OPNAME(GroupNonUniformAllEqual),
    ZF_OPNAME(GroupNonUniformBroadcast),
    ZF_OPNAME(GroupNonUniformBroadcastFirst),
    ZF_OPNAME(GroupNonUniformBallot),
    ZF_OPNAME(GroupNonUniformInverseBallot),
    ZF_OPNAME(GroupNonUniformBallotBitExtract),
    ZF_OPNAME(GroupNonUniformBallotBitCount),
    ZF_OPNAME(GroupNonUniformBallotFindLSB),
    ZF_OPNAME(GroupNonUniformBallotFindMSB),
    ZF_OPNAME(GroupNonUniformShuffle),
    ZF_OPNAME(GroupNonUniformShuffleXor),
    ZF_OPNAME(GroupNonUniformShuffleUp),
    ZF_OPNAME(GroupNonUniformShuffleDown),
    ZF_OPNAME(GroupNonUniformIAdd),
    ZF_OPNAME(GroupNonUniformFAdd),
    ZF_OPNAME(GroupNonUniformIMul),
    ZF_OPNAME(GroupNonUniformFMul),
    ZF_OPNAME(GroupNonUniformSMin),
    ZF_OPNAME(GroupNonUniformUMin),
    ZF_OPNAME(GroupNonUniformFMin),
    ZF_OPNAME(GroupNonUniformSMax),
    ZF_OPNAME(GroupNonUniformUMax),
    ZF_OPNAME(GroupNonUniformFMax),
    ZF_OPNAME(GroupNonUniformBitwiseAnd),
    ZF_OPNAME(GroupNonUniformBitwiseOr),
    ZF_OPNAME(GroupNonUniformBitwiseXor),
    ZF_OPNAME(GroupNonUniformLogicalAnd),
    ZF_OPNAME(GroupNonUniformLogicalOr),
    ZF_OPNAME(GroupNonUniformLogicalXor),
    ZF_OPNAME(GroupNonUniformQuadBroadcast),
    ZF_OPNAME(GroupNonUniformQuadSwap),
    ZF_OPNAME(CopyLogical),
    ZF_OPNAME(PtrEqual),
    ZF_OPNAME(PtrNotEqual),
    ZF_OPNAME(PtrDiff),
    ZF_OPNAME(SubgroupShuffleINTEL),
    ZF_OPNAME(SubgroupShuffleDownINTEL),
    ZF_OPNAME(SubgroupShuffleUpINTEL),
    ZF_OPNAME(SubgroupShuffleXorINTEL),
    ZF_OPNAME(SubgroupBlockReadINTEL),
    ZF_OPNAME(SubgroupBlockWriteINTEL),
    ZF_OPNAME(SubgroupImageBlockReadINTEL),
    ZF_OPNAME(SubgroupImageBlockWriteINTEL),
    ZF_OPNAME(ConstantFunctionPointerINTEL),
    ZF_OPNAME(FunctionPointerCallINTEL),
    ZF_OPNAME(AtomicFMinEXT),
    ZF_OPNAME(AtomicFMaxEXT),
    ZF_OPNAME(AtomicFAddEXT),
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
