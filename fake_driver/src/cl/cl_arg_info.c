/* What the OpenCL C source tells of a program's kernels beyond their SPIR-V (clGetKernelArgInfo, vec_type_hint's
 * signedness), and the bitcode pass that reads it, run in the face's LLVM part (cl_bitcode.h). */
#include "cl/cl_bitcode.h"
#include "spirv.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void zfcl_arg_infos_free(zfcl_arg_infos *infos) {
    for (size_t i = 0; i < infos->count; i++) {
        zfcl_kernel_args *k = &infos->kernels[i];
        for (cl_uint a = 0; a < k->num_args; a++) {
            free(k->args[a].type_name);
            free(k->args[a].name);
        }
        free(k->args);
        free(k->kernel);
    }
    free(infos->kernels);
    *infos = (zfcl_arg_infos){0};
}

static bool zfcl_copy_kernel_args(zfcl_kernel_args *to, const zfcl_kernel_args *from) {
    *to = (zfcl_kernel_args){.kernel = strdup(from->kernel),
                             .unsigned_hint = from->unsigned_hint,
                             .has_args = from->has_args,
                             .num_args = from->num_args};
    to->args = calloc(from->num_args ? from->num_args : 1, sizeof *to->args);
    bool ok = to->kernel != NULL && to->args != NULL;
    for (cl_uint a = 0; ok && a < from->num_args; a++) {
        to->args[a] = from->args[a];
        to->args[a].type_name = strdup(from->args[a].type_name);
        to->args[a].name = strdup(from->args[a].name);
        ok = to->args[a].type_name != NULL && to->args[a].name != NULL;
    }
    return ok;
}

bool zfcl_arg_infos_append(zfcl_arg_infos *to, const zfcl_arg_infos *from) {
    if (from->count == 0)
        return true;
    zfcl_kernel_args *grown = realloc(to->kernels, (to->count + from->count) * sizeof *grown);
    if (grown == NULL)
        return false;
    to->kernels = grown;
    for (size_t i = 0; i < from->count; i++) {
        bool ok = zfcl_copy_kernel_args(&to->kernels[to->count], &from->kernels[i]);
        to->count++; /* counted even when partial, so that zfcl_arg_infos_free frees it */
        if (!ok)
            return false;
    }
    return true;
}

const zfcl_kernel_args *zfcl_arg_infos_find(const zfcl_arg_infos *infos, const char *name) {
    for (size_t i = 0; i < infos->count; i++)
        if (strcmp(infos->kernels[i].kernel, name) == 0)
            return &infos->kernels[i];
    return NULL;
}

/* The part, loaded once. */
static struct {
    pthread_once_t once;
    const zfcl_bitcode_part *part;
    char why[4400]; /* why there is none */
} zfcl_bitcode = {PTHREAD_ONCE_INIT, NULL, ""};

static void zfcl_bitcode_load(void) {
    void *symbol = NULL;
    void *handle = zf_spirv_part_open(ZFCL_BITCODE_PART_FILE, ZFCL_BITCODE_PART_ENTRY, &symbol, zfcl_bitcode.why,
                                      sizeof zfcl_bitcode.why);
    if (handle == NULL)
        return;
    const zfcl_bitcode_part *part = ((zfcl_bitcode_part_entry_fn)symbol)();
    if (part == NULL || part->abi != ZFCL_BITCODE_PART_ABI || strcmp(part->version, ZEFAKE_VERSION) != 0) {
        snprintf(zfcl_bitcode.why, sizeof zfcl_bitcode.why, "%s is not the OpenCL compiler part of zefake %s",
                 ZFCL_BITCODE_PART_FILE, ZEFAKE_VERSION);
        return;
    }
    zfcl_bitcode.part = part;
}

cl_int zfcl_prepare_bitcode(const char *path, zfcl_arg_infos *infos, bool with_args) {
    pthread_once(&zfcl_bitcode.once, zfcl_bitcode_load);
    if (zfcl_bitcode.part == NULL)
        return zfcl_fail(CL_COMPILER_NOT_AVAILABLE, "the OpenCL C compiler is missing a part: %s", zfcl_bitcode.why);
    char why[512] = "";
    switch (zfcl_bitcode.part->prepare(path, infos, with_args, why, sizeof why)) {
    case ZFCL_BITCODE_OK:
        return CL_SUCCESS;
    case ZFCL_BITCODE_UNREADABLE:
        return zfcl_fail(CL_OUT_OF_RESOURCES, "cannot read clang's output %s: %s", path, why);
    case ZFCL_BITCODE_INVALID:
        return zfcl_fail(CL_BUILD_PROGRAM_FAILURE, "clang's output %s is no LLVM bitcode", path);
    case ZFCL_BITCODE_NO_MEMORY:
        return zfcl_fail(CL_OUT_OF_HOST_MEMORY, "no host memory for the kernels' argument information");
    case ZFCL_BITCODE_UNWRITABLE:
        break;
    }
    return zfcl_fail(CL_OUT_OF_RESOURCES, "cannot write the bitcode %s back", path);
}
