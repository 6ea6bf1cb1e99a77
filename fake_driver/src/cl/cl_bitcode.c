/* clang-14's output prepared for llvm-spirv-14 through LLVM's C API (the library the compiled tier links already):
 * llvm-spirv-14 cannot translate LLVM's `freeze` instruction ("InvalidInstruction: Can't translate llvm instruction"),
 * which clang-14 emits in -O2 code (a division and its remainder of the same loaded value, ...). A freeze only stops
 * an undefined value from propagating, and SPIR-V has no undefined values to stop (the execution engine computes
 * defined ones, docs/spirv-execution.md), so each freeze is replaced by its operand. */
#include "cl/zf_cl.h"

#include <llvm-c/BitReader.h>
#include <llvm-c/BitWriter.h>
#include <llvm-c/Core.h>

/* Replaces and erases the freezes of one basic block; the count removed. */
static unsigned zfcl_drop_block_freezes(LLVMBasicBlockRef block) {
    unsigned dropped = 0;
    for (LLVMValueRef in = LLVMGetFirstInstruction(block); in != NULL;) {
        LLVMValueRef next = LLVMGetNextInstruction(in);
        if (LLVMGetInstructionOpcode(in) == LLVMFreeze) {
            LLVMReplaceAllUsesWith(in, LLVMGetOperand(in, 0));
            LLVMInstructionEraseFromParent(in);
            dropped++;
        }
        in = next;
    }
    return dropped;
}

static unsigned zfcl_drop_module_freezes(LLVMModuleRef module) {
    unsigned dropped = 0;
    for (LLVMValueRef f = LLVMGetFirstFunction(module); f != NULL; f = LLVMGetNextFunction(f))
        for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(f); b != NULL; b = LLVMGetNextBasicBlock(b))
            dropped += zfcl_drop_block_freezes(b);
    return dropped;
}

cl_int zfcl_prepare_bitcode(const char *path) {
    LLVMMemoryBufferRef buffer = NULL;
    char *message = NULL;
    if (LLVMCreateMemoryBufferWithContentsOfFile(path, &buffer, &message) != 0) {
        cl_int err =
            zfcl_fail(CL_OUT_OF_RESOURCES, "cannot read clang's output %s: %s", path, message != NULL ? message : "?");
        LLVMDisposeMessage(message);
        return err;
    }
    LLVMContextRef context = LLVMContextCreate();
    LLVMModuleRef module = NULL;
    cl_int err = CL_SUCCESS;
    if (LLVMParseBitcodeInContext2(context, buffer, &module) != 0)
        err = zfcl_fail(CL_BUILD_PROGRAM_FAILURE, "clang's output %s is no LLVM bitcode", path);
    else if (zfcl_drop_module_freezes(module) > 0 && LLVMWriteBitcodeToFile(module, path) != 0)
        err = zfcl_fail(CL_OUT_OF_RESOURCES, "cannot write the bitcode %s back", path);
    if (module != NULL)
        LLVMDisposeModule(module);
    LLVMDisposeMemoryBuffer(buffer);
    LLVMContextDispose(context);
    return err;
}
