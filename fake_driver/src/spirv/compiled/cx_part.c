/* The compiled tier's LLVM part (cx_part.h): the one file of libze_fake_cx.so besides the emitter. It optimizes the
 * emitter's module with LLVM's O2 pipeline, compiles it to an object file with a target machine of its own (so that
 * compiles of different kernels run at once, each in its own LLVM context) and links objects into the process with
 * one ORC JIT (LLJIT). Objects name the helpers of the generated code instead of holding addresses, so an object
 * made by another process (the on-disk cache of cx_disk.c) links as well as a fresh one: the JIT's main library
 * defines each helper as the driver's address, and finds the C library's functions (libm, libmvec) in the process. */
#include "cx_part.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <llvm-c/Analysis.h>
#include <llvm-c/Error.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/Orc.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

/* One object linked into the process, shared by the forms whose code it is. */
typedef struct zf_cx_loaded {
    struct zf_cx_loaded *next;
    char *symbol;
    uint64_t address;
    uint32_t refs;
    LLVMOrcResourceTrackerRef tracker;
} zf_cx_loaded;

static struct {
    pthread_mutex_t lock; /* start, and the list of loaded objects; never held while compiling */
    bool started, broken;
    char why[256];
    zf_cx_host host;
    LLVMOrcLLJITRef jit;
    char *triple, *cpu, *features;
    char identity[4096];
    zf_cx_loaded *loaded;
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

/* The helpers as absolute symbols of the JIT's main library, and the process's own symbols behind them. */
static bool zf_cx_define_helpers(char *why, size_t why_size) {
    const zf_cx_host *host = &zf_cx_part_state.host;
    LLVMJITCSymbolMapPair *pairs = calloc(host->num_helpers ? host->num_helpers : 1, sizeof *pairs);
    if (pairs == NULL) {
        snprintf(why, why_size, "out of host memory");
        return false;
    }
    for (uint32_t i = 0; i < host->num_helpers; i++) {
        pairs[i].Name = LLVMOrcLLJITMangleAndIntern(zf_cx_part_state.jit, host->helpers[i].name);
        pairs[i].Sym.Address = host->helpers[i].address;
        pairs[i].Sym.Flags.GenericFlags = LLVMJITSymbolGenericFlagsExported | LLVMJITSymbolGenericFlagsCallable;
    }
    LLVMOrcJITDylibRef main = LLVMOrcLLJITGetMainJITDylib(zf_cx_part_state.jit);
    LLVMErrorRef err = LLVMOrcJITDylibDefine(main, LLVMOrcAbsoluteSymbols(pairs, host->num_helpers));
    free(pairs);
    if (zf_cx_llvm_error(err, why, why_size, "LLVM JIT"))
        return false;
    /* glibc's vector math library, which the optimizer may call for math of several work-items at once. */
    dlopen("libmvec.so.1", RTLD_NOW | RTLD_GLOBAL);
    LLVMOrcDefinitionGeneratorRef process = NULL;
    err = LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess(
        &process, LLVMOrcLLJITGetGlobalPrefix(zf_cx_part_state.jit), NULL, NULL);
    if (zf_cx_llvm_error(err, why, why_size, "LLVM JIT"))
        return false;
    LLVMOrcJITDylibAddGenerator(main, process);
    return true;
}

static int zf_cx_note_of(struct dl_phdr_info *info, size_t size, void *data);

/* The part's GNU build id in hex (what its code generation is), or its file's size and time without one. */
static void zf_cx_build_id(char *out, size_t out_size) {
    snprintf(out, out_size, "unknown");
    dl_iterate_phdr(zf_cx_note_of, out);
    if (strcmp(out, "unknown") != 0)
        return;
    Dl_info self;
    struct stat st;
    if (dladdr((void *)zf_cx_build_id, &self) != 0 && self.dli_fname != NULL && stat(self.dli_fname, &st) == 0)
        snprintf(out, out_size, "file-%lld-%lld", (long long)st.st_size, (long long)st.st_mtime);
}

/* dl_iterate_phdr's callback: for the object that holds this code, its NT_GNU_BUILD_ID note. */
static int zf_cx_note_of(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    uintptr_t self = (uintptr_t)zf_cx_build_id;
    bool mine = false;
    for (int i = 0; i < info->dlpi_phnum && !mine; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        mine = ph->p_type == PT_LOAD && self >= lo && self < lo + ph->p_memsz;
    }
    for (int i = 0; mine && i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_NOTE)
            continue;
        const uint8_t *p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr), *end = p + ph->p_memsz;
        while (p + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *note = (const ElfW(Nhdr) *)p;
            const uint8_t *desc = p + sizeof *note + ((note->n_namesz + 3u) & ~3u);
            if (note->n_type == NT_GNU_BUILD_ID && desc + note->n_descsz <= end) {
                char *out = data;
                for (uint32_t k = 0; k < note->n_descsz && k < 40; k++)
                    sprintf(out + 2 * k, "%02x", desc[k]);
                return 1;
            }
            p = desc + ((note->n_descsz + 3u) & ~3u);
        }
    }
    return mine ? 1 : 0;
}

static bool zf_cx_start_locked(char *why, size_t why_size) {
    if (LLVMInitializeNativeTarget() || LLVMInitializeNativeAsmPrinter()) {
        snprintf(why, why_size, "LLVM has no native target");
        return false;
    }
    if (zf_cx_llvm_error(LLVMOrcCreateLLJIT(&zf_cx_part_state.jit, NULL), why, why_size, "LLVM JIT"))
        return false;
    if (!zf_cx_define_helpers(why, why_size))
        return false;
    zf_cx_part_state.triple = LLVMGetDefaultTargetTriple();
    zf_cx_part_state.cpu = LLVMGetHostCPUName();
    zf_cx_part_state.features = LLVMGetHostCPUFeatures();
    char build[96];
    zf_cx_build_id(build, sizeof build);
    snprintf(zf_cx_part_state.identity, sizeof zf_cx_part_state.identity, "%s/%s/%s/%s", build, zf_cx_part_state.triple,
             zf_cx_part_state.cpu, zf_cx_part_state.features);
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

static const char *zf_cx_part_identity(void) {
    return zf_cx_part_state.identity;
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
                               const char *symbol, zf_cx_object *out, char *why, size_t why_size) {
    *out = (zf_cx_object){0};
    LLVMTargetMachineRef tm = zf_cx_target_machine(why, why_size);
    if (tm == NULL)
        return false;
    LLVMContextRef llvm = LLVMContextCreate();
    zf_cx_unit unit;
    bool ok = zf_cx_emit(llvm, code, kernel, kinds, num_kinds, &unit, why, why_size);
    if (ok) {
        out->blocks = unit.blocks;
        out->num_blocks = unit.num_blocks;
        out->spill_bytes = unit.spill_bytes;
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

/* Links a new object (lock held). */
static zf_cx_loaded *zf_cx_link(const char *symbol, const uint8_t *bytes, size_t size, char *why, size_t why_size) {
    zf_cx_loaded *l = calloc(1, sizeof *l);
    char *name = strdup(symbol);
    if (l == NULL || name == NULL) {
        free(l);
        free(name);
        snprintf(why, why_size, "out of host memory");
        return NULL;
    }
    l->symbol = name;
    l->tracker = LLVMOrcJITDylibCreateResourceTracker(LLVMOrcLLJITGetMainJITDylib(zf_cx_part_state.jit));
    LLVMMemoryBufferRef buffer = LLVMCreateMemoryBufferWithMemoryRangeCopy((const char *)bytes, size, symbol);
    /* The JIT owns the buffer from here, whatever the outcome. */
    bool failed = zf_cx_llvm_error(LLVMOrcLLJITAddObjectFileWithRT(zf_cx_part_state.jit, l->tracker, buffer), why,
                                   why_size, "LLVM JIT");
    LLVMOrcExecutorAddress address = 0;
    if (!failed)
        failed =
            zf_cx_llvm_error(LLVMOrcLLJITLookup(zf_cx_part_state.jit, &address, symbol), why, why_size, "LLVM JIT");
    if (failed || address == 0) {
        if (!failed)
            snprintf(why, why_size, "LLVM JIT: no %s in the object", symbol);
        LLVMErrorRef err = LLVMOrcResourceTrackerRemove(l->tracker);
        if (err != NULL)
            LLVMConsumeError(err);
        LLVMOrcReleaseResourceTracker(l->tracker);
        free(name);
        free(l);
        return NULL;
    }
    l->address = address;
    return l;
}

static void *zf_cx_part_load(const char *symbol, const uint8_t *bytes, size_t size, uint64_t *address, char *why,
                             size_t why_size) {
    pthread_mutex_lock(&zf_cx_part_state.lock);
    zf_cx_loaded *l = zf_cx_part_state.loaded;
    while (l != NULL && strcmp(l->symbol, symbol) != 0)
        l = l->next;
    if (l == NULL && (l = zf_cx_link(symbol, bytes, size, why, why_size)) != NULL) {
        l->next = zf_cx_part_state.loaded;
        zf_cx_part_state.loaded = l;
    }
    if (l != NULL) {
        l->refs++;
        *address = l->address;
    }
    pthread_mutex_unlock(&zf_cx_part_state.lock);
    return l;
}

static void zf_cx_part_unload(void *loaded) {
    zf_cx_loaded *l = loaded;
    if (l == NULL)
        return;
    pthread_mutex_lock(&zf_cx_part_state.lock);
    bool last = --l->refs == 0;
    if (last) {
        zf_cx_loaded **at = &zf_cx_part_state.loaded;
        while (*at != l)
            at = &(*at)->next;
        *at = l->next;
        LLVMErrorRef err = LLVMOrcResourceTrackerRemove(l->tracker);
        if (err != NULL)
            LLVMConsumeError(err);
        LLVMOrcReleaseResourceTracker(l->tracker);
    }
    pthread_mutex_unlock(&zf_cx_part_state.lock);
    if (last) {
        free(l->symbol);
        free(l);
    }
}

__attribute__((visibility("default"))) const zf_cx_part *zf_cx_part_entry(void);
const zf_cx_part *zf_cx_part_entry(void) {
    static const zf_cx_part part = {.abi = ZF_CX_PART_ABI,
                                    .version = ZEFAKE_VERSION,
                                    .start = zf_cx_part_start,
                                    .identity = zf_cx_part_identity,
                                    .has_barriers = zf_cx_has_barriers,
                                    .compile = zf_cx_part_compile,
                                    .load = zf_cx_part_load,
                                    .unload = zf_cx_part_unload};
    return &part;
}
