/* The compiled tier's LLVM part (cx_part.h): the one file of libze_fake_cx.so besides the emitter. It optimizes the
 * emitter's module with LLVM's O2 pipeline and compiles it to an object file with a target machine of its own, so
 * that compiles of different kernels run at once, each in its own LLVM context. The object uses the large code model
 * (every reference an absolute address) and names the helpers of the generated code instead of holding their
 * addresses, so the driver links it without LLVM (cx_elf.c), fresh or from the on-disk cache of another process. */
#include "cx_part.h"

#include <llvm-c/Analysis.h>
#include <llvm-c/Error.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static struct {
    pthread_mutex_t lock; /* start; never held while compiling */
    bool started, broken;
    char why[256];
    zf_cx_host host;
    char *triple, *cpu, *features;
} zf_cx_part_state = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* The engine functions the emitter calls, forwarded to the driver's (the part has no copy of the engine). */
bool zf_form_operand_sizes(const zf_dinst *inst, zf_operand_sizes *out) {
    return zf_cx_part_state.host.operand_sizes(inst, out);
}

const char *zf_xop_name(uint32_t op) {
    return zf_cx_part_state.host.op_name(op);
}

static bool zf_cx_llvm_error(LLVMErrorRef err, char *why, size_t why_size, const char *what) {
    if (err == NULL)
        return false;
    char *message = LLVMGetErrorMessage(err);
    snprintf(why, why_size, "%s: %s", what, message);
    LLVMDisposeErrorMessage(message);
    return true;
}

static bool zf_cx_start_locked(char *why, size_t why_size) {
    if (LLVMInitializeNativeTarget() || LLVMInitializeNativeAsmPrinter()) {
        snprintf(why, why_size, "LLVM has no native target");
        return false;
    }
    zf_cx_part_state.triple = LLVMGetDefaultTargetTriple();
    zf_cx_part_state.cpu = LLVMGetHostCPUName();
    zf_cx_part_state.features = LLVMGetHostCPUFeatures();
    return true;
}

static bool zf_cx_part_start(const zf_cx_host *host, char *why, size_t why_size) {
    pthread_mutex_lock(&zf_cx_part_state.lock);
    if (!zf_cx_part_state.started) {
        zf_cx_part_state.started = true;
        zf_cx_part_state.host = *host;
        zf_cx_part_state.broken = !zf_cx_start_locked(zf_cx_part_state.why, sizeof zf_cx_part_state.why);
    }
    bool ok = !zf_cx_part_state.broken;
    if (!ok)
        snprintf(why, why_size, "%s", zf_cx_part_state.why);
    pthread_mutex_unlock(&zf_cx_part_state.lock);
    return ok;
}

/* A target machine for one compile (a target machine is not shared between threads that generate code). */
static LLVMTargetMachineRef zf_cx_target_machine(char *why, size_t why_size) {
    LLVMTargetRef target = NULL;
    char *message = NULL;
    LLVMTargetMachineRef tm = NULL;
    if (LLVMGetTargetFromTriple(zf_cx_part_state.triple, &target, &message) == 0)
        tm = LLVMCreateTargetMachine(target, zf_cx_part_state.triple, zf_cx_part_state.cpu, zf_cx_part_state.features,
                                     LLVMCodeGenLevelDefault, LLVMRelocDefault, LLVMCodeModelJITDefault);
    else
        snprintf(why, why_size, "LLVM target: %s", message);
    LLVMDisposeMessage(message);
    return tm;
}

/* Verifies, optimizes and compiles the unit's module into out's object bytes. */
static bool zf_cx_codegen(LLVMModuleRef module, LLVMTargetMachineRef tm, zf_cx_object *out, char *why,
                          size_t why_size) {
    char *message = NULL;
    if (LLVMVerifyModule(module, LLVMReturnStatusAction, &message)) {
        snprintf(why, why_size, "the generated code does not verify: %.200s", message);
        LLVMDisposeMessage(message);
        return false;
    }
    LLVMDisposeMessage(message);
    LLVMPassBuilderOptionsRef options = LLVMCreatePassBuilderOptions();
    LLVMErrorRef err = LLVMRunPasses(module, "default<O2>", tm, options);
    LLVMDisposePassBuilderOptions(options);
    if (zf_cx_llvm_error(err, why, why_size, "LLVM optimizer"))
        return false;
    LLVMMemoryBufferRef buffer = NULL;
    message = NULL;
    if (LLVMTargetMachineEmitToMemoryBuffer(tm, module, LLVMObjectFile, &message, &buffer)) {
        snprintf(why, why_size, "LLVM code generator: %.200s", message != NULL ? message : "failed");
        LLVMDisposeMessage(message);
        return false;
    }
    out->size = LLVMGetBufferSize(buffer);
    out->bytes = malloc(out->size ? out->size : 1);
    if (out->bytes != NULL)
        memcpy(out->bytes, LLVMGetBufferStart(buffer), out->size);
    else
        snprintf(why, why_size, "out of host memory");
    LLVMDisposeMemoryBuffer(buffer);
    return out->bytes != NULL;
}

static bool zf_cx_part_compile(const zf_dprog *code, uint32_t kernel, const zf_xarg_kind *kinds, uint32_t num_kinds,
                               const uint32_t *group_size, const char *symbol, zf_cx_object *out, char *why,
                               size_t why_size) {
    *out = (zf_cx_object){0};
    LLVMTargetMachineRef tm = zf_cx_target_machine(why, why_size);
    if (tm == NULL)
        return false;
    LLVMContextRef llvm = LLVMContextCreate();
    zf_cx_unit unit;
    bool ok = zf_cx_emit(llvm, code, kernel, kinds, num_kinds, group_size, &unit, why, why_size);
    if (ok) {
        out->blocks = unit.blocks;
        out->num_blocks = unit.num_blocks;
        out->spill_bytes = unit.spill_bytes;
        out->num_regions = unit.num_regions;
        out->num_texsites = unit.num_texsites;
        out->num_proven = unit.num_proven;
        out->num_derived = unit.num_derived;
        out->num_affine = unit.num_affine;
        out->wave_rows = unit.wave_rows;
        out->step_lanes = unit.step_lanes;
        LLVMValueRef wave = LLVMGetNamedFunction(unit.module, "zf_cx_wave");
        LLVMSetValueName2(wave, symbol, strlen(symbol));
        LLVMSetTarget(unit.module, zf_cx_part_state.triple);
        LLVMTargetDataRef layout = LLVMCreateTargetDataLayout(tm);
        LLVMSetModuleDataLayout(unit.module, layout);
        LLVMDisposeTargetData(layout);
        ok = zf_cx_codegen(unit.module, tm, out, why, why_size);
        LLVMDisposeModule(unit.module);
    }
    LLVMContextDispose(llvm);
    LLVMDisposeTargetMachine(tm);
    if (!ok) {
        free(out->blocks);
        *out = (zf_cx_object){0};
    }
    return ok;
}

__attribute__((visibility("default"))) const zf_cx_part *zf_cx_part_entry(void);
const zf_cx_part *zf_cx_part_entry(void) {
    static const zf_cx_part part = {
        .abi = ZF_CX_PART_ABI, .version = ZEFAKE_VERSION, .start = zf_cx_part_start, .compile = zf_cx_part_compile};
    return &part;
}
