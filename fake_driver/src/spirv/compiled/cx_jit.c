/* The compiled tier's choice, compilation and cache (docs/spirv-execution.md, "Compiled tier").
 *
 * ZEFAKE_EXEC picks the tier per launch: `interp` never compiles, `compiled` compiles every kernel the tier handles
 * at its first launch, `auto` (the default) compiles a kernel at its first launch of at least ZF_CX_AUTO_ITEMS
 * work-items and then runs every later launch compiled. Each kernel of a decoded form is compiled at most once: the
 * outcome (code, or the reason it runs in the interpreter) is kept with the form (zf_dprog.compiled), which belongs to
 * one module and device, and logged at debug level with the compile time. Compilation is serialized on one LLVM ORC
 * JIT (LLJIT) for the process; the generated code runs on any thread without locks. */
#include "cx_internal.h"

#include <llvm-c/Analysis.h>
#include <llvm-c/Error.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/Orc.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

/* Launches smaller than this run in the interpreter under `auto`, until the kernel was compiled. */
#define ZF_CX_AUTO_ITEMS (1u << 16)

enum { ZF_CX_UNTRIED = 0, ZF_CX_COMPILED, ZF_CX_INTERPRETED };

typedef struct zf_cx_entry {
    _Atomic uint8_t state; /* set under zf_cx_jit.lock, read by launches without it */
    zf_cx_kernel kernel;
    zf_xarg_kind *kinds; /* the argument kinds it was compiled for */
    LLVMOrcResourceTrackerRef tracker;
} zf_cx_entry;

struct zf_cx_cache {
    uint32_t num_kernels;
    zf_cx_entry *entries;
};

static struct {
    pthread_mutex_t lock;
    bool started, broken;
    LLVMOrcLLJITRef jit;
    LLVMTargetMachineRef tm;
    uint64_t serial;
} zf_cx_jit = {PTHREAD_MUTEX_INITIALIZER, false, false, NULL, NULL, 0};

typedef enum zf_cx_mode { ZF_CX_AUTO, ZF_CX_INTERP, ZF_CX_ALWAYS } zf_cx_mode;

static zf_cx_mode zf_cx_mode_of_env(void) {
    const char *v = getenv("ZEFAKE_EXEC");
    if (v != NULL && strcasecmp(v, "interp") == 0)
        return ZF_CX_INTERP;
    if (v != NULL && strcasecmp(v, "compiled") == 0)
        return ZF_CX_ALWAYS;
    return ZF_CX_AUTO;
}

static void zf_cx_debug(const zf_xlaunch *launch, const char *format, ...) __attribute__((format(printf, 2, 3)));
static void zf_cx_debug(const zf_xlaunch *launch, const char *format, ...) {
    if (launch->env == NULL || launch->env->debug == NULL)
        return;
    char text[512];
    va_list args;
    va_start(args, format);
    vsnprintf(text, sizeof text, format, args);
    va_end(args);
    launch->env->debug(launch->env->user, text);
}

/* Copies an LLVM error's message into why and frees the error. */
static bool zf_cx_llvm_error(LLVMErrorRef err, char *why, size_t why_size, const char *what) {
    if (err == NULL)
        return false;
    char *message = LLVMGetErrorMessage(err);
    snprintf(why, why_size, "%s: %s", what, message);
    LLVMDisposeErrorMessage(message);
    return true;
}

/* The process's JIT and a target machine for the optimizer, made once (called with the lock held). */
static bool zf_cx_jit_start(char *why, size_t why_size) {
    if (zf_cx_jit.started)
        return !zf_cx_jit.broken;
    zf_cx_jit.started = true;
    zf_cx_jit.broken = true;
    if (LLVMInitializeNativeTarget() || LLVMInitializeNativeAsmPrinter()) {
        snprintf(why, why_size, "LLVM has no native target");
        return false;
    }
    if (zf_cx_llvm_error(LLVMOrcCreateLLJIT(&zf_cx_jit.jit, NULL), why, why_size, "LLVM JIT"))
        return false;
    char *triple = LLVMGetDefaultTargetTriple(), *cpu = LLVMGetHostCPUName(), *features = LLVMGetHostCPUFeatures();
    LLVMTargetRef target = NULL;
    char *message = NULL;
    if (LLVMGetTargetFromTriple(triple, &target, &message) == 0)
        zf_cx_jit.tm = LLVMCreateTargetMachine(target, triple, cpu, features, LLVMCodeGenLevelDefault, LLVMRelocDefault,
                                               LLVMCodeModelJITDefault);
    else
        snprintf(why, why_size, "LLVM target: %s", message);
    LLVMDisposeMessage(message);
    LLVMDisposeMessage(triple);
    LLVMDisposeMessage(cpu);
    LLVMDisposeMessage(features);
    zf_cx_jit.broken = zf_cx_jit.tm == NULL;
    return !zf_cx_jit.broken;
}

static uint64_t zf_cx_now_us(void) {
    return zf_spirv_now_ns() / 1000u;
}

/* Optimizes the unit's module and adds it to the JIT; the wave function's address, or 0 with why set. */
static uint64_t zf_cx_load(zf_cx_unit *unit, LLVMOrcThreadSafeContextRef tsc, zf_cx_entry *entry, char *why,
                           size_t why_size) {
    char name[48];
    snprintf(name, sizeof name, "zf_cx_wave_%llu", (unsigned long long)++zf_cx_jit.serial);
    LLVMValueRef wave = LLVMGetNamedFunction(unit->module, "zf_cx_wave");
    LLVMSetValueName2(wave, name, strlen(name));
    LLVMSetTarget(unit->module, LLVMOrcLLJITGetTripleString(zf_cx_jit.jit));
    LLVMSetDataLayout(unit->module, LLVMOrcLLJITGetDataLayoutStr(zf_cx_jit.jit));
    char *message = NULL;
    if (LLVMVerifyModule(unit->module, LLVMReturnStatusAction, &message)) {
        snprintf(why, why_size, "the generated code does not verify: %.200s", message);
        LLVMDisposeMessage(message);
        LLVMDisposeModule(unit->module);
        return 0;
    }
    LLVMDisposeMessage(message);
    LLVMPassBuilderOptionsRef options = LLVMCreatePassBuilderOptions();
    LLVMErrorRef err = LLVMRunPasses(unit->module, "default<O2>", zf_cx_jit.tm, options);
    LLVMDisposePassBuilderOptions(options);
    if (zf_cx_llvm_error(err, why, why_size, "LLVM optimizer")) {
        LLVMDisposeModule(unit->module);
        return 0;
    }
    LLVMOrcJITDylibRef dylib = LLVMOrcLLJITGetMainJITDylib(zf_cx_jit.jit);
    entry->tracker = LLVMOrcJITDylibCreateResourceTracker(dylib);
    LLVMOrcThreadSafeModuleRef tsm = LLVMOrcCreateNewThreadSafeModule(unit->module, tsc);
    if (zf_cx_llvm_error(LLVMOrcLLJITAddLLVMIRModuleWithRT(zf_cx_jit.jit, entry->tracker, tsm), why, why_size,
                         "LLVM JIT")) {
        LLVMOrcDisposeThreadSafeModule(tsm);
        return 0;
    }
    LLVMOrcExecutorAddress address = 0;
    if (zf_cx_llvm_error(LLVMOrcLLJITLookup(zf_cx_jit.jit, &address, name), why, why_size, "LLVM JIT"))
        return 0;
    return address;
}

static bool zf_cx_compile(const zf_xlaunch *launch, zf_cx_entry *entry, char *why, size_t why_size) {
    if (!zf_cx_jit_start(why, why_size))
        return false;
    entry->kinds = calloc(launch->num_args ? launch->num_args : 1, sizeof *entry->kinds);
    if (entry->kinds == NULL) {
        snprintf(why, why_size, "out of host memory");
        return false;
    }
    for (uint32_t k = 0; k < launch->num_args; k++)
        entry->kinds[k] = launch->args[k].kind;
    entry->kernel.num_params = launch->num_args;
    LLVMOrcThreadSafeContextRef tsc = LLVMOrcCreateNewThreadSafeContext();
    zf_cx_unit unit;
    uint64_t address = 0;
    if (zf_cx_emit(LLVMOrcThreadSafeContextGetContext(tsc), launch->program.code, launch->kernel, entry->kinds,
                   launch->num_args, &unit, why, why_size)) {
        entry->kernel.blocks = unit.blocks;
        entry->kernel.num_blocks = unit.num_blocks;
        entry->kernel.spill_bytes = unit.spill_bytes;
        entry->kernel.num_regions = unit.num_regions;
        address = zf_cx_load(&unit, tsc, entry, why, why_size);
    }
    LLVMOrcDisposeThreadSafeContext(tsc); /* the module added to the JIT keeps its context alive */
    if (address == 0)
        return false;
    entry->kernel.wave = (void (*)(zf_cx_rt *))(uintptr_t)address;
    return true;
}

/* The form's cache, made on first use (called with the lock held). */
static struct zf_cx_cache *zf_cx_cache_of(zf_dprog *code) {
    if (code->compiled != NULL)
        return code->compiled;
    struct zf_cx_cache *cache = calloc(1, sizeof *cache);
    zf_cx_entry *entries = calloc(code->num_kernels ? code->num_kernels : 1, sizeof *entries);
    if (cache == NULL || entries == NULL) {
        free(cache);
        free(entries);
        return NULL;
    }
    cache->num_kernels = code->num_kernels;
    cache->entries = entries;
    __atomic_store_n(&code->compiled, cache, __ATOMIC_RELEASE); /* launches look it up without the lock */
    return cache;
}

static bool zf_cx_kinds_match(const zf_cx_entry *entry, const zf_xlaunch *launch) {
    if (entry->kernel.num_params != launch->num_args)
        return false;
    for (uint32_t k = 0; k < launch->num_args; k++)
        if (entry->kinds[k] != launch->args[k].kind)
            return false;
    return true;
}

/* A decided kernel's code (NULL: it runs in the interpreter), read without the lock; false while undecided. */
static bool zf_cx_decided(const zf_dprog *code, const zf_xlaunch *launch, const zf_cx_kernel **out) {
    struct zf_cx_cache *cache = __atomic_load_n(&code->compiled, __ATOMIC_ACQUIRE);
    if (cache == NULL || launch->kernel >= cache->num_kernels)
        return false;
    zf_cx_entry *entry = &cache->entries[launch->kernel];
    /* acquire: a kernel seen COMPILED is seen with its code and argument kinds */
    uint8_t state = atomic_load_explicit(&entry->state, memory_order_acquire);
    if (state == ZF_CX_UNTRIED)
        return false;
    *out = state == ZF_CX_COMPILED && zf_cx_kinds_match(entry, launch) ? &entry->kernel : NULL;
    return true;
}

/* Compiles the launch's kernel when it is untried (lock held). */
static void zf_cx_try(const zf_xlaunch *launch, zf_cx_entry *entry) {
    char why[320] = "";
    uint64_t start = zf_cx_now_us();
    uint8_t state = zf_cx_compile(launch, entry, why, sizeof why) ? ZF_CX_COMPILED : ZF_CX_INTERPRETED;
    atomic_store_explicit(&entry->state, state, memory_order_release);
    if (state == ZF_CX_COMPILED && entry->kernel.num_regions > 0)
        zf_cx_debug(launch, "kernel '%s': compiled in %.1f ms (%u blocks, barriers: %u regions)", launch->name,
                    (double)(zf_cx_now_us() - start) / 1000.0, entry->kernel.num_blocks, entry->kernel.num_regions);
    else if (state == ZF_CX_COMPILED)
        zf_cx_debug(launch, "kernel '%s': compiled in %.1f ms (%u blocks)", launch->name,
                    (double)(zf_cx_now_us() - start) / 1000.0, entry->kernel.num_blocks);
    else
        zf_cx_debug(launch, "kernel '%s': runs in the interpreter: %s", launch->name, why);
}

const zf_cx_kernel *zf_cx_for_launch(const zf_xlaunch *launch) {
    zf_cx_mode mode = zf_cx_mode_of_env();
    if (mode == ZF_CX_INTERP)
        return NULL;
    /* The cache is the form's, which the driver keeps const for launches: compiled code is derived data. */
    zf_dprog *code = (zf_dprog *)launch->program.code;
    const zf_cx_kernel *result = NULL;
    if (zf_cx_decided(code, launch, &result))
        return result; /* every launch after the first decision: no lock */
    uint64_t items = (uint64_t)launch->group_size[0] * launch->group_size[1] * launch->group_size[2] *
                     launch->groups[0] * launch->groups[1] * launch->groups[2];
    if (mode == ZF_CX_AUTO && items < ZF_CX_AUTO_ITEMS)
        return NULL; /* small launches of an untried kernel do not compile it */
    pthread_mutex_lock(&zf_cx_jit.lock);
    struct zf_cx_cache *cache = zf_cx_cache_of(code);
    zf_cx_entry *entry = cache != NULL && launch->kernel < cache->num_kernels ? &cache->entries[launch->kernel] : NULL;
    if (entry != NULL && atomic_load_explicit(&entry->state, memory_order_relaxed) == ZF_CX_UNTRIED)
        zf_cx_try(launch, entry);
    pthread_mutex_unlock(&zf_cx_jit.lock);
    zf_cx_decided(code, launch, &result);
    return result;
}

void zf_cx_cache_free(struct zf_cx_cache *cache) {
    if (cache == NULL)
        return;
    pthread_mutex_lock(&zf_cx_jit.lock);
    for (uint32_t k = 0; k < cache->num_kernels; k++) {
        zf_cx_entry *entry = &cache->entries[k];
        if (entry->tracker != NULL) {
            LLVMErrorRef err = LLVMOrcResourceTrackerRemove(entry->tracker);
            if (err != NULL)
                LLVMConsumeError(err);
            LLVMOrcReleaseResourceTracker(entry->tracker);
        }
        free(entry->kernel.blocks);
        free(entry->kinds);
    }
    pthread_mutex_unlock(&zf_cx_jit.lock);
    free(cache->entries);
    free(cache);
}
