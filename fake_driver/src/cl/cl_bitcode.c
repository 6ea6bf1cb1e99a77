/* clang-14's output prepared for llvm-spirv-14 through LLVM's C API:
 * llvm-spirv-14 cannot translate LLVM's `freeze` instruction ("InvalidInstruction: Can't translate llvm instruction"),
 * which clang-14 emits in -O2 code (a division and its remainder of the same loaded value, ...). A freeze only stops
 * an undefined value from propagating, and SPIR-V has no undefined values to stop (the execution engine computes
 * defined ones, docs/spirv-execution.md), so each freeze is replaced by its operand. The same pass reads the
 * kernels' argument information for clGetKernelArgInfo (below). It is built into a part of its own,
 * libze_fake_clc.so (cl_bitcode.h), which the face loads at its first compile from source: the driver does not link
 * LLVM. Nothing here calls the driver. */
#include "cl/cl_bitcode.h"

#include <llvm-c/BitReader.h>
#include <llvm-c/BitWriter.h>
#include <llvm-c/Core.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* ------------------------------------------------------------------------------------------------------------------
 * Argument information: clang attaches kernel_arg_addr_space, kernel_arg_access_qual, kernel_arg_type,
 * kernel_arg_type_qual and (with -cl-kernel-arg-info) kernel_arg_name metadata to each kernel, one operand per
 * argument, in SPIR's address space numbering. */

/* The operands of the function's metadata `kind`, or NULL (count 0) when it has none; the caller frees. */
static LLVMValueRef *zfcl_kernel_metadata(LLVMContextRef context, LLVMValueRef f, const char *kind, unsigned *count) {
    *count = 0;
    unsigned wanted = LLVMGetMDKindIDInContext(context, kind, (unsigned)strlen(kind));
    size_t n = 0;
    LLVMValueMetadataEntry *entries = LLVMGlobalCopyAllMetadata(f, &n);
    LLVMValueRef *ops = NULL;
    for (unsigned i = 0; i < n && ops == NULL; i++) {
        if (LLVMValueMetadataEntriesGetKind(entries, i) != wanted)
            continue;
        LLVMValueRef node = LLVMMetadataAsValue(context, LLVMValueMetadataEntriesGetMetadata(entries, i));
        *count = LLVMGetMDNodeNumOperands(node);
        ops = calloc(*count ? *count : 1, sizeof *ops);
        if (ops != NULL)
            LLVMGetMDNodeOperands(node, ops);
    }
    if (entries != NULL)
        LLVMDisposeValueMetadataEntries(entries);
    return ops;
}

static char *zfcl_md_string(LLVMValueRef *ops, unsigned count, unsigned i) {
    unsigned length = 0;
    const char *s = i < count && ops[i] != NULL ? LLVMGetMDString(ops[i], &length) : NULL;
    return strndup(s != NULL ? s : "", length);
}

static cl_kernel_arg_address_qualifier zfcl_address_of(LLVMValueRef *ops, unsigned count, unsigned i) {
    unsigned long long space =
        i < count && ops[i] != NULL && LLVMIsAConstantInt(ops[i]) ? LLVMConstIntGetZExtValue(ops[i]) : 0;
    return space == 1   ? CL_KERNEL_ARG_ADDRESS_GLOBAL
           : space == 2 ? CL_KERNEL_ARG_ADDRESS_CONSTANT
           : space == 3 ? CL_KERNEL_ARG_ADDRESS_LOCAL
                        : CL_KERNEL_ARG_ADDRESS_PRIVATE;
}

static cl_kernel_arg_access_qualifier zfcl_access_of(const char *text) {
    return strcmp(text, "read_only") == 0    ? CL_KERNEL_ARG_ACCESS_READ_ONLY
           : strcmp(text, "write_only") == 0 ? CL_KERNEL_ARG_ACCESS_WRITE_ONLY
           : strcmp(text, "read_write") == 0 ? CL_KERNEL_ARG_ACCESS_READ_WRITE
                                             : CL_KERNEL_ARG_ACCESS_NONE;
}

static bool zfcl_has_word(const char *text, const char *word) {
    size_t n = strlen(word);
    for (const char *at = strstr(text, word); at != NULL; at = strstr(at + 1, word))
        if ((at == text || at[-1] == ' ') && (at[n] == '\0' || at[n] == ' '))
            return true;
    return false;
}

static cl_kernel_arg_type_qualifier zfcl_type_qualifier_of(const char *text) {
    return (zfcl_has_word(text, "const") ? CL_KERNEL_ARG_TYPE_CONST : 0) |
           (zfcl_has_word(text, "restrict") ? CL_KERNEL_ARG_TYPE_RESTRICT : 0) |
           (zfcl_has_word(text, "volatile") ? CL_KERNEL_ARG_TYPE_VOLATILE : 0) |
           (zfcl_has_word(text, "pipe") ? CL_KERNEL_ARG_TYPE_PIPE : 0);
}

typedef struct zfcl_arg_md {
    LLVMValueRef *space, *access, *type, *qual, *name;
    unsigned n_space, n_access, n_type, n_qual, n_name;
} zfcl_arg_md;

static bool zfcl_fill_args(const zfcl_arg_md *md, zfcl_kernel_args *k) {
    for (cl_uint a = 0; a < k->num_args; a++) {
        zfcl_arg_info *info = &k->args[a];
        char *access = zfcl_md_string(md->access, md->n_access, a), *qual = zfcl_md_string(md->qual, md->n_qual, a);
        info->address = zfcl_address_of(md->space, md->n_space, a);
        info->access = access != NULL ? zfcl_access_of(access) : CL_KERNEL_ARG_ACCESS_NONE;
        info->type_qualifier = qual != NULL ? zfcl_type_qualifier_of(qual) : 0;
        info->type_name = zfcl_md_string(md->type, md->n_type, a);
        info->name = zfcl_md_string(md->name, md->n_name, a);
        free(access);
        free(qual);
        if (info->type_name == NULL || info->name == NULL)
            return false;
    }
    return true;
}

/* Whether the kernel's vec_type_hint (clang: the hinted type's undefined value, then 1 for a signed integer type) is
 * of an unsigned integer type. */
static bool zfcl_unsigned_hint(LLVMContextRef context, LLVMValueRef f) {
    unsigned n = 0;
    LLVMValueRef *ops = zfcl_kernel_metadata(context, f, "vec_type_hint", &n);
    bool result = false;
    if (ops != NULL && n >= 2 && ops[0] != NULL && ops[1] != NULL && LLVMIsAConstantInt(ops[1])) {
        LLVMTypeRef t = LLVMTypeOf(ops[0]);
        if (LLVMGetTypeKind(t) == LLVMVectorTypeKind)
            t = LLVMGetElementType(t);
        result = LLVMGetTypeKind(t) == LLVMIntegerTypeKind && LLVMConstIntGetZExtValue(ops[1]) == 0;
    }
    free(ops);
    return result;
}

/* One kernel's entry in `infos`; false when out of host memory. */
static bool zfcl_read_kernel_args(LLVMContextRef context, LLVMValueRef f, zfcl_arg_infos *infos, bool with_args) {
    zfcl_kernel_args *grown = realloc(infos->kernels, (infos->count + 1) * sizeof *grown);
    if (grown == NULL)
        return false;
    infos->kernels = grown;
    size_t length = 0;
    const char *name = LLVMGetValueName2(f, &length);
    zfcl_kernel_args *k = &infos->kernels[infos->count++];
    *k = (zfcl_kernel_args){.kernel = strndup(name, length),
                            .unsigned_hint = zfcl_unsigned_hint(context, f),
                            .has_args = with_args,
                            .num_args = with_args ? LLVMCountParams(f) : 0};
    k->args = calloc(k->num_args ? k->num_args : 1, sizeof *k->args);
    zfcl_arg_md md = {0};
    md.space = zfcl_kernel_metadata(context, f, "kernel_arg_addr_space", &md.n_space);
    md.access = zfcl_kernel_metadata(context, f, "kernel_arg_access_qual", &md.n_access);
    md.type = zfcl_kernel_metadata(context, f, "kernel_arg_type", &md.n_type);
    md.qual = zfcl_kernel_metadata(context, f, "kernel_arg_type_qual", &md.n_qual);
    md.name = zfcl_kernel_metadata(context, f, "kernel_arg_name", &md.n_name);
    bool ok = k->kernel != NULL && k->args != NULL && zfcl_fill_args(&md, k);
    free(md.space);
    free(md.access);
    free(md.type);
    free(md.qual);
    free(md.name);
    return ok;
}

static bool zfcl_read_arg_infos(LLVMContextRef context, LLVMModuleRef module, zfcl_arg_infos *infos, bool with_args) {
    for (LLVMValueRef f = LLVMGetFirstFunction(module); f != NULL; f = LLVMGetNextFunction(f))
        if (LLVMGetFunctionCallConv(f) == LLVMSPIRKERNELCallConv && !LLVMIsDeclaration(f) &&
            !zfcl_read_kernel_args(context, f, infos, with_args))
            return false;
    return true;
}

static zfcl_bitcode_status zfcl_part_prepare(const char *path, zfcl_arg_infos *infos, bool with_args, char *why,
                                             size_t why_size) {
    LLVMMemoryBufferRef buffer = NULL;
    char *message = NULL;
    if (LLVMCreateMemoryBufferWithContentsOfFile(path, &buffer, &message) != 0) {
        snprintf(why, why_size, "%s", message != NULL ? message : "?");
        LLVMDisposeMessage(message);
        return ZFCL_BITCODE_UNREADABLE;
    }
    LLVMContextRef context = LLVMContextCreate();
    LLVMModuleRef module = NULL;
    zfcl_bitcode_status status = ZFCL_BITCODE_OK;
    if (LLVMParseBitcodeInContext2(context, buffer, &module) != 0)
        status = ZFCL_BITCODE_INVALID;
    else if (!zfcl_read_arg_infos(context, module, infos, with_args))
        status = ZFCL_BITCODE_NO_MEMORY;
    else if (zfcl_drop_module_freezes(module) > 0 && LLVMWriteBitcodeToFile(module, path) != 0)
        status = ZFCL_BITCODE_UNWRITABLE;
    if (module != NULL)
        LLVMDisposeModule(module);
    LLVMDisposeMemoryBuffer(buffer);
    LLVMContextDispose(context);
    return status;
}

__attribute__((visibility("default"))) const zfcl_bitcode_part *zfcl_bitcode_part_entry(void);
const zfcl_bitcode_part *zfcl_bitcode_part_entry(void) {
    static const zfcl_bitcode_part part = {
        .abi = ZFCL_BITCODE_PART_ABI, .version = ZEFAKE_VERSION, .prepare = zfcl_part_prepare};
    return &part;
}
