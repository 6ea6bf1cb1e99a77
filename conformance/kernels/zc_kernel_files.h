/* The test kernels as tests use them: SPIR-V files built by kernels.cmake into ZC_KERNEL_DIR, and modules made
 * from them. Shared by the module and kernel conformance tests (and the execution tests that launch them). */
#ifndef ZC_KERNEL_FILES_H
#define ZC_KERNEL_FILES_H

#include "zc_harness.h"

#include <stdio.h>
#include <stdlib.h>

#ifndef ZC_KERNEL_DIR
#error "ZC_KERNEL_DIR must name the directory of the compiled test kernels"
#endif

typedef struct zc_spirv {
    uint8_t *data;
    size_t size;
} zc_spirv;

/* ZC_KERNEL_DIR/<name>.spv, read whole (fails the test when missing). Free with free(spirv.data). */
static inline zc_spirv zc_load_spirv(const char *name) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.spv", ZC_KERNEL_DIR, name);
    zc_spirv spirv = {NULL, 0};
    FILE *file = fopen(path, "rb");
    if (file == NULL)
        zc_fail("cannot open the test kernel %s", path);
    if (fseek(file, 0, SEEK_END) == 0) {
        long size = ftell(file);
        spirv.size = size > 0 ? (size_t)size : 0;
    }
    rewind(file);
    spirv.data = malloc(spirv.size ? spirv.size : 1);
    size_t got = spirv.data != NULL ? fread(spirv.data, 1, spirv.size, file) : 0;
    fclose(file);
    if (spirv.data == NULL || got != spirv.size || spirv.size == 0)
        zc_fail("cannot read the test kernel %s", path);
    return spirv;
}

/* zeModuleCreate from bytes; returns the result, *module and (when log is not NULL) *log. */
static inline ze_result_t zc_module_from(ze_context_handle_t context, ze_device_handle_t device,
                                         ze_module_format_t format, const uint8_t *data, size_t size, const char *flags,
                                         const ze_module_constants_t *constants, ze_module_handle_t *module,
                                         ze_module_build_log_handle_t *log) {
    ze_module_desc_t desc = {ZE_STRUCTURE_TYPE_MODULE_DESC, NULL, format, size, data, flags, constants};
    *module = NULL;
    return zeModuleCreate(context, device, &desc, module, log);
}

/* A module of the named test kernel file on `device` (asserts success). */
static inline ze_module_handle_t zc_module_create(ze_context_handle_t context, ze_device_handle_t device,
                                                  const char *name) {
    zc_spirv spirv = zc_load_spirv(name);
    ze_module_handle_t module = NULL;
    zc_assert_success(
        zc_module_from(context, device, ZE_MODULE_FORMAT_IL_SPIRV, spirv.data, spirv.size, NULL, NULL, &module, NULL));
    free(spirv.data);
    return module;
}

/* A kernel of a module (asserts success). */
static inline ze_kernel_handle_t zc_kernel_create(ze_module_handle_t module, const char *name) {
    ze_kernel_desc_t desc = {ZE_STRUCTURE_TYPE_KERNEL_DESC, NULL, 0, name};
    ze_kernel_handle_t kernel = NULL;
    zc_assert_success(zeKernelCreate(module, &desc, &kernel));
    return kernel;
}

/* The whole text of a build log (malloc'ed; the caller frees it). */
static inline char *zc_build_log_text(ze_module_build_log_handle_t log) {
    size_t size = 0;
    zc_assert_success(zeModuleBuildLogGetString(log, &size, NULL));
    char *text = calloc(1, size + 1);
    if (text == NULL)
        zc_fail("out of memory");
    zc_assert_success(zeModuleBuildLogGetString(log, &size, text));
    return text;
}

#endif
