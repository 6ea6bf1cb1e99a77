/* ZE_experimental_module_program: a ze_module_program_exp_desc_t chained to zeModuleCreate's descriptor makes one
 * module of several SPIR-V inputs, each with its own build flags and specialization constants. This file finds the
 * descriptor and checks it against the rules of the extension; module.c builds each input into a program and links
 * them (docs/extensions.md). */
#include "core/zf_chain.h"
#include "core/zf_core.h"
#include "module/zf_module.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#define ZF_PROGRAM_DESC "ze_module_program_exp_desc_t"

/* A broken rule: the result, a build log line and the diagnostic, both naming the argument. */
static ze_result_t __attribute__((format(printf, 3, 4)))
zf_program_reject(zf_spirv_log *log, ze_result_t result, const char *format, ...) {
    char why[512];
    va_list args;
    va_start(args, format);
    vsnprintf(why, sizeof why, format, args);
    va_end(args);
    zf_spirv_log_printf(log, "module program: %s", why);
    return zf_fail(result, "%s", why);
}

/* The program descriptor chained to `desc`, or NULL. Structures of other extensions are skipped, as the
 * specification lets drivers ignore what they do not know; two program descriptors are ambiguous. */
static ze_result_t zf_find_program_desc(const ze_module_desc_t *desc, const ze_module_program_exp_desc_t **out,
                                        zf_spirv_log *log) {
    *out = NULL;
    if (zf_chain_too_long(desc->pNext))
        return zf_program_reject(log, ZE_RESULT_ERROR_INVALID_ARGUMENT,
                                 "desc->pNext chain is longer than %u structures (a cycle?)", ZF_MAX_CHAIN);
    const ze_base_desc_t *first = zf_chain_find(desc->pNext, ZE_STRUCTURE_TYPE_MODULE_PROGRAM_EXP_DESC);
    if (first != NULL && zf_chain_find(first->pNext, ZE_STRUCTURE_TYPE_MODULE_PROGRAM_EXP_DESC) != NULL)
        return zf_program_reject(log, ZE_RESULT_ERROR_INVALID_ARGUMENT,
                                 "desc->pNext: two " ZF_PROGRAM_DESC " in the chain");
    *out = (const ze_module_program_exp_desc_t *)first;
    return ZE_RESULT_SUCCESS;
}

/* The descriptor's arrays: count and the required ones. */
static ze_result_t zf_check_arrays(const ze_module_desc_t *desc, const ze_module_program_exp_desc_t *program,
                                   zf_spirv_log *log) {
    if (desc->format != ZE_MODULE_FORMAT_IL_SPIRV)
        return zf_program_reject(log, ZE_RESULT_ERROR_INVALID_ARGUMENT,
                                 "desc->format is %d: with " ZF_PROGRAM_DESC
                                 " it must be ZE_MODULE_FORMAT_IL_SPIRV (the inputs are SPIR-V only)",
                                 (int)desc->format);
    if (program->count == 0)
        return zf_program_reject(log, ZE_RESULT_ERROR_INVALID_SIZE, ZF_PROGRAM_DESC ": 0 == count");
    if (program->inputSizes == NULL)
        return zf_program_reject(log, ZE_RESULT_ERROR_INVALID_NULL_POINTER, ZF_PROGRAM_DESC ": nullptr == inputSizes");
    if (program->pInputModules == NULL)
        return zf_program_reject(log, ZE_RESULT_ERROR_INVALID_NULL_POINTER,
                                 ZF_PROGRAM_DESC ": nullptr == pInputModules");
    return ZE_RESULT_SUCCESS;
}

/* Constants of one input: optional, but when some are given their arrays and values must be. */
static ze_result_t zf_check_constants(const ze_module_constants_t *constants, uint32_t i, zf_spirv_log *log) {
    if (constants == NULL || constants->numConstants == 0)
        return ZE_RESULT_SUCCESS;
    if (constants->pConstantIds == NULL || constants->pConstantValues == NULL)
        return zf_program_reject(log, ZE_RESULT_ERROR_INVALID_NULL_POINTER,
                                 ZF_PROGRAM_DESC ": pConstants[%u] has %u constants and a NULL %s", i,
                                 constants->numConstants,
                                 constants->pConstantIds == NULL ? "pConstantIds" : "pConstantValues");
    for (uint32_t k = 0; k < constants->numConstants; k++) {
        if (constants->pConstantValues[k] == NULL)
            return zf_program_reject(log, ZE_RESULT_ERROR_INVALID_NULL_POINTER,
                                     ZF_PROGRAM_DESC ": nullptr == pConstants[%u]->pConstantValues[%u]", i, k);
    }
    return ZE_RESULT_SUCCESS;
}

static ze_result_t zf_program_input(const ze_module_program_exp_desc_t *program, uint32_t i, zf_module_input *input,
                                    zf_spirv_log *log) {
    if (program->pInputModules[i] == NULL)
        return zf_program_reject(log, ZE_RESULT_ERROR_INVALID_NULL_POINTER,
                                 ZF_PROGRAM_DESC ": nullptr == pInputModules[%u]", i);
    if (program->inputSizes[i] == 0)
        return zf_program_reject(log, ZE_RESULT_ERROR_INVALID_SIZE, ZF_PROGRAM_DESC ": 0 == inputSizes[%u]", i);
    const char *flags = program->pBuildFlags != NULL ? program->pBuildFlags[i] : NULL;
    const ze_module_constants_t *constants = program->pConstants != NULL ? program->pConstants[i] : NULL;
    ze_result_t r = zf_check_constants(constants, i, log);
    if (r != ZE_RESULT_SUCCESS)
        return r;
    *input = (zf_module_input){ZE_MODULE_FORMAT_IL_SPIRV, program->pInputModules[i], program->inputSizes[i],
                               flags != NULL ? flags : "", constants};
    return ZE_RESULT_SUCCESS;
}

ze_result_t zf_module_program_inputs(const ze_module_desc_t *desc, zf_module_input **inputs, uint32_t *count,
                                     zf_spirv_log *log) {
    *inputs = NULL;
    *count = 0;
    const ze_module_program_exp_desc_t *program = NULL;
    ze_result_t r = zf_find_program_desc(desc, &program, log);
    if (r != ZE_RESULT_SUCCESS || program == NULL)
        return r;
    /* The specification: the descriptor's own pInputModule, pBuildFlags and pConstants are ignored. */
    if ((r = zf_check_arrays(desc, program, log)) != ZE_RESULT_SUCCESS)
        return r;
    zf_module_input *list = calloc(program->count, sizeof *list);
    if (list == NULL)
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory for %u inputs", program->count);
    for (uint32_t i = 0; i < program->count && r == ZE_RESULT_SUCCESS; i++)
        r = zf_program_input(program, i, &list[i], log);
    if (r != ZE_RESULT_SUCCESS) {
        free(list);
        return r;
    }
    *inputs = list;
    *count = program->count;
    return ZE_RESULT_SUCCESS;
}
