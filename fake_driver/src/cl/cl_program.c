/* Programs: from OpenCL C source (cl_compiler.c), from SPIR-V (cl_khr_il_program) and from binaries (the module's
 * native binary as clGetProgramInfo gives it, or SPIR-V); compile, link and build. The executable is one Level Zero
 * module per device of the context built by zeModuleCreate's code (several SPIR-V inputs after a link form one module
 * through ZE_experimental_module_program), so both faces build and run programs the same way. */
#include "cl/zf_cl.h"
#include "zfcl_generated.h"

#include <stdlib.h>
#include <string.h>

#define ZFCL_SPIRV_MAGIC 0x07230203u

static bool zfcl_is_spirv(const void *data, size_t size) {
    uint32_t magic = 0;
    if (size < 20 || size % 4 != 0)
        return false;
    memcpy(&magic, data, 4);
    return magic == ZFCL_SPIRV_MAGIC;
}

static cl_program zfcl_program_new(cl_context c, cl_int *err) {
    cl_program p = calloc(1, sizeof *p);
    if (p != NULL)
        p->modules = calloc(c->num_devices, sizeof *p->modules);
    if (p == NULL || p->modules == NULL || !zfcl_register(&p->obj, ZFCL_PROGRAM)) {
        if (p != NULL)
            free(p->modules);
        free(p);
        return zfcl_null(err, CL_OUT_OF_HOST_MEMORY);
    }
    p->context = c;
    p->status = CL_BUILD_NONE;
    p->binary_type = CL_PROGRAM_BINARY_TYPE_NONE;
    pthread_mutex_init(&p->lock, NULL);
    zfcl_context_hold(c);
    if (err != NULL)
        *err = CL_SUCCESS;
    return p;
}

/* array (of count elements of elem bytes) grown by one element; the array as it was, and *ok false, when memory runs
 * out, so that the program's parallel arrays always stay valid. */
static void *zfcl_grown(void *array, size_t count, size_t elem, bool *ok) {
    void *grown = realloc(array, (count + 1) * elem);
    *ok = *ok && grown != NULL;
    return grown != NULL ? grown : array;
}

static bool zfcl_add_il(cl_program p, const void *il, size_t size) {
    bool ok = true;
    p->il = zfcl_grown(p->il, p->num_il, sizeof *p->il, &ok);
    p->il_size = zfcl_grown(p->il_size, p->num_il, sizeof *p->il_size, &ok);
    void *copy = malloc(size);
    if (!ok || copy == NULL) {
        free(copy);
        return false;
    }
    memcpy(copy, il, size);
    p->il[p->num_il] = copy;
    p->il_size[p->num_il++] = size;
    return true;
}

static void zfcl_drop_il(cl_program p) {
    for (uint32_t i = 0; i < p->num_il; i++)
        free(p->il[i]);
    free(p->il);
    free(p->il_size);
    p->il = NULL;
    p->il_size = NULL;
    p->num_il = 0;
}

static void zfcl_drop_modules(cl_program p) {
    for (cl_uint i = 0; i < p->context->num_devices; i++)
        if (p->modules[i] != NULL) {
            zfi_zeModuleDestroy(p->modules[i]);
            p->modules[i] = NULL;
        }
    free(p->names);
    p->names = NULL;
    p->num_kernels = 0;
}

cl_program CL_API_CALL zfcl_clCreateProgramWithSource(cl_context c, cl_uint count, const char **strings,
                                                      const size_t *lengths, cl_int *err) {
    if (!zfcl_live(c, ZFCL_CONTEXT))
        return zfcl_null(err, zfcl_fail(CL_INVALID_CONTEXT, "context is no live context"));
    if (count == 0 || strings == NULL)
        return zfcl_null(err, zfcl_fail(CL_INVALID_VALUE, "count is 0 or strings is NULL"));
    size_t total = 1;
    for (cl_uint i = 0; i < count; i++) {
        if (strings[i] == NULL)
            return zfcl_null(err, zfcl_fail(CL_INVALID_VALUE, "strings[%u] is NULL", i));
        total += lengths != NULL && lengths[i] != 0 ? lengths[i] : strlen(strings[i]);
    }
    char *source = malloc(total);
    if (source == NULL)
        return zfcl_null(err, CL_OUT_OF_HOST_MEMORY);
    size_t at = 0;
    for (cl_uint i = 0; i < count; i++) {
        size_t n = lengths != NULL && lengths[i] != 0 ? lengths[i] : strlen(strings[i]);
        memcpy(source + at, strings[i], n);
        at += n;
    }
    source[at] = '\0';
    cl_program p = zfcl_program_new(c, err);
    if (p == NULL)
        free(source);
    else
        p->source = source;
    return p;
}

cl_program CL_API_CALL zfcl_clCreateProgramWithIL(cl_context c, const void *il, size_t length, cl_int *err) {
    if (!zfcl_live(c, ZFCL_CONTEXT))
        return zfcl_null(err, zfcl_fail(CL_INVALID_CONTEXT, "context is no live context"));
    if (il == NULL || length == 0 || !zfcl_is_spirv(il, length))
        return zfcl_null(err, zfcl_fail(CL_INVALID_VALUE, "il is NULL, length is 0 or il is not SPIR-V"));
    cl_program p = zfcl_program_new(c, err);
    if (p != NULL && !zfcl_add_il(p, il, length)) {
        zfcl_clReleaseProgram(p);
        return zfcl_null(err, CL_OUT_OF_HOST_MEMORY);
    }
    return p;
}

static ze_result_t zfcl_native_module(cl_program p, cl_uint index, const void *binary, size_t size) {
    ze_module_desc_t desc = {.stype = ZE_STRUCTURE_TYPE_MODULE_DESC,
                             .format = ZE_MODULE_FORMAT_NATIVE,
                             .inputSize = size,
                             .pInputModule = binary,
                             .pBuildFlags = ""};
    return zfi_zeModuleCreate(p->context->ze, p->context->devices[index]->ze, &desc, &p->modules[index], NULL);
}

static cl_int zfcl_binary_inputs(cl_context c, cl_uint num, const cl_device_id *devices, const size_t *lengths,
                                 const unsigned char **binaries, cl_int *status) {
    if (num == 0 || devices == NULL)
        return zfcl_fail(CL_INVALID_VALUE, "num_devices is 0 or device_list is NULL");
    if (lengths == NULL || binaries == NULL)
        return zfcl_fail(CL_INVALID_VALUE, "lengths or binaries is NULL");
    for (cl_uint i = 0; i < num; i++) {
        if (!zfcl_device_valid(devices[i]) || !zfcl_context_has(c, devices[i]))
            return zfcl_fail(CL_INVALID_DEVICE, "device_list[%u] is not a device of the context", i);
        if (lengths[i] == 0 || binaries[i] == NULL) {
            if (status != NULL)
                status[i] = CL_INVALID_VALUE;
            return zfcl_fail(CL_INVALID_VALUE, "lengths[%u] is 0 or binaries[%u] is NULL", i, i);
        }
    }
    return CL_SUCCESS;
}

cl_program CL_API_CALL zfcl_clCreateProgramWithBinary(cl_context c, cl_uint num, const cl_device_id *devices,
                                                      const size_t *lengths, const unsigned char **binaries,
                                                      cl_int *status, cl_int *err) {
    if (!zfcl_live(c, ZFCL_CONTEXT))
        return zfcl_null(err, zfcl_fail(CL_INVALID_CONTEXT, "context is no live context"));
    cl_int e = zfcl_binary_inputs(c, num, devices, lengths, binaries, status);
    if (e != CL_SUCCESS)
        return zfcl_null(err, e);
    cl_program p = zfcl_program_new(c, err);
    if (p == NULL)
        return NULL;
    for (cl_uint i = 0; i < num; i++) {
        bool ok;
        if (zfcl_is_spirv(binaries[i], lengths[i])) /* SPIR-V as a binary: an IL program */
            ok = p->num_il > 0 || zfcl_add_il(p, binaries[i], lengths[i]);
        else
            ok = zfcl_native_module(p, zfcl_context_index(c, devices[i]), binaries[i], lengths[i]) == ZE_RESULT_SUCCESS;
        if (status != NULL)
            status[i] = ok ? CL_SUCCESS : CL_INVALID_BINARY;
        if (!ok) {
            zfcl_clReleaseProgram(p);
            return zfcl_null(err, zfcl_fail(CL_INVALID_BINARY,
                                            "binaries[%u] is neither a native binary of zefake "
                                            "nor SPIR-V",
                                            i));
        }
    }
    p->binary_type = p->num_il > 0 ? CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT : CL_PROGRAM_BINARY_TYPE_EXECUTABLE;
    return p;
}

cl_program CL_API_CALL zfcl_clCreateProgramWithBuiltInKernels(cl_context c, cl_uint num, const cl_device_id *devices,
                                                              const char *names, cl_int *err) {
    if (!zfcl_live(c, ZFCL_CONTEXT))
        return zfcl_null(err, zfcl_fail(CL_INVALID_CONTEXT, "context is no live context"));
    if (num == 0 || devices == NULL || names == NULL)
        return zfcl_null(err, zfcl_fail(CL_INVALID_VALUE, "num_devices is 0, device_list or kernel_names is NULL"));
    return zfcl_null(err, zfcl_fail(CL_INVALID_VALUE, "the devices have no built-in kernels (CL_DEVICE_BUILT_IN_KERNELS"
                                                      " is empty)"));
}

cl_int CL_API_CALL zfcl_clRetainProgram(cl_program p) {
    if (!zfcl_live(p, ZFCL_PROGRAM))
        return zfcl_fail(CL_INVALID_PROGRAM, "program is no live program");
    zfcl_retain(&p->obj);
    return CL_SUCCESS;
}

cl_int CL_API_CALL zfcl_clReleaseProgram(cl_program p) {
    if (!zfcl_live(p, ZFCL_PROGRAM))
        return zfcl_fail(CL_INVALID_PROGRAM, "program is no live program");
    if (!zfcl_release(&p->obj))
        return CL_SUCCESS;
    zfcl_unregister(&p->obj);
    zfcl_drop_modules(p);
    zfcl_drop_il(p);
    zfcl_arg_infos_free(&p->arg_info);
    for (uint32_t i = 0; i < p->num_spec; i++)
        free((void *)p->spec_values[i]);
    free(p->spec_ids);
    free(p->spec_values);
    free(p->modules);
    free(p->source);
    free(p->options);
    free(p->log);
    pthread_mutex_destroy(&p->lock);
    cl_context c = p->context;
    zfcl_object_free(&p->obj);
    zfcl_context_unhold(c);
    return CL_SUCCESS;
}

cl_int CL_API_CALL zfcl_clSetProgramSpecializationConstant(cl_program p, cl_uint id, size_t size, const void *value) {
    if (!zfcl_live(p, ZFCL_PROGRAM))
        return zfcl_fail(CL_INVALID_PROGRAM, "program is no live program");
    if (p->num_il == 0)
        return zfcl_fail(CL_INVALID_PROGRAM, "program was not created from SPIR-V");
    if (value == NULL || size == 0 || size > 8)
        return zfcl_fail(CL_INVALID_VALUE, "spec_value is NULL or spec_size is not the constant's size");
    uint64_t *copy = calloc(1, sizeof *copy);
    bool ok = true;
    p->spec_ids = zfcl_grown(p->spec_ids, p->num_spec, sizeof *p->spec_ids, &ok);
    p->spec_values = zfcl_grown(p->spec_values, p->num_spec, sizeof *p->spec_values, &ok);
    if (!ok || copy == NULL) {
        free(copy);
        return CL_OUT_OF_HOST_MEMORY;
    }
    memcpy(copy, value, size);
    p->spec_ids[p->num_spec] = id;
    p->spec_values[p->num_spec++] = copy;
    return CL_SUCCESS;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Building */

static void zfcl_append_log(cl_program p, const char *text) {
    if (text == NULL || *text == '\0')
        return;
    size_t old = p->log != NULL ? strlen(p->log) : 0;
    char *log = realloc(p->log, old + strlen(text) + 2);
    if (log == NULL)
        return;
    strcpy(log + old, text);
    if (text[strlen(text) - 1] != '\n')
        strcat(log, "\n");
    p->log = log;
}

static void zfcl_take_build_log(cl_program p, ze_module_build_log_handle_t log) {
    size_t size = 0;
    if (log == NULL)
        return;
    if (zfi_zeModuleBuildLogGetString(log, &size, NULL) == ZE_RESULT_SUCCESS && size > 1) {
        char *text = malloc(size);
        if (text != NULL && zfi_zeModuleBuildLogGetString(log, &size, text) == ZE_RESULT_SUCCESS)
            zfcl_append_log(p, text);
        free(text);
    }
    zfi_zeModuleBuildLogDestroy(log);
}

/* The executable of one device from the program's SPIR-V: one input, or several as one module program. */
static cl_int zfcl_build_module(cl_program p, cl_uint index, const char *options) {
    const char *flags[64];
    uint32_t n = p->num_il < 64 ? p->num_il : 64;
    for (uint32_t i = 0; i < n; i++)
        flags[i] = options;
    ze_module_constants_t constants = {p->num_spec, p->spec_ids, p->spec_values};
    ze_module_program_exp_desc_t program = {.stype = ZE_STRUCTURE_TYPE_MODULE_PROGRAM_EXP_DESC,
                                            .count = n,
                                            .inputSizes = p->il_size,
                                            .pInputModules = (const uint8_t **)p->il,
                                            .pBuildFlags = flags};
    ze_module_desc_t desc = {.stype = ZE_STRUCTURE_TYPE_MODULE_DESC,
                             .pNext = n > 1 ? &program : NULL,
                             .format = ZE_MODULE_FORMAT_IL_SPIRV,
                             .inputSize = p->il_size[0],
                             .pInputModule = p->il[0],
                             .pBuildFlags = options,
                             .pConstants = p->num_spec > 0 ? &constants : NULL};
    ze_module_build_log_handle_t log = NULL;
    ze_result_t r = zfi_zeModuleCreate(p->context->ze, p->context->devices[index]->ze, &desc, &p->modules[index], &log);
    zfcl_take_build_log(p, log);
    if (r != ZE_RESULT_SUCCESS)
        p->modules[index] = NULL;
    return r == ZE_RESULT_SUCCESS ? CL_SUCCESS : CL_BUILD_PROGRAM_FAILURE;
}

static void zfcl_collect_names(cl_program p) {
    for (cl_uint i = 0; i < p->context->num_devices && p->names == NULL; i++) {
        uint32_t count = 0;
        if (p->modules[i] == NULL || zfi_zeModuleGetKernelNames(p->modules[i], &count, NULL) != ZE_RESULT_SUCCESS)
            continue;
        const char **names = calloc(count + 1, sizeof *names);
        size_t total = 1;
        if (names != NULL && zfi_zeModuleGetKernelNames(p->modules[i], &count, names) == ZE_RESULT_SUCCESS) {
            for (uint32_t k = 0; k < count; k++)
                total += strlen(names[k]) + 1;
            if ((p->names = calloc(1, total)) != NULL)
                for (uint32_t k = 0; k < count; k++) {
                    strcat(p->names, names[k]);
                    if (k + 1 < count)
                        strcat(p->names, ";");
                }
            p->num_kernels = count;
        }
        free(names);
    }
}

static cl_int zfcl_devices_arg(cl_program p, cl_uint num, const cl_device_id *devices) {
    if ((num == 0) != (devices == NULL))
        return zfcl_fail(CL_INVALID_VALUE, "num_devices and device_list disagree");
    for (cl_uint i = 0; i < num; i++)
        if (!zfcl_device_valid(devices[i]) || !zfcl_context_has(p->context, devices[i]))
            return zfcl_fail(CL_INVALID_DEVICE, "device_list[%u] is not a device of the program's context", i);
    return CL_SUCCESS;
}

static bool zfcl_selected(cl_program p, cl_uint index, cl_uint num, const cl_device_id *devices) {
    if (num == 0)
        return true;
    for (cl_uint i = 0; i < num; i++)
        if (devices[i] == p->context->devices[index])
            return true;
    return false;
}

static void zfcl_set_options(cl_program p, const char *options) {
    free(p->options);
    p->options = strdup(options != NULL ? options : "");
}

/* From source to SPIR-V, keeping the compilers' log. */
static cl_int zfcl_compile_into(cl_program p, const char *options, const zfcl_header *headers, cl_uint num_headers,
                                bool compile_only) {
    void *spirv = NULL;
    size_t size = 0;
    char *log = NULL;
    zfcl_arg_infos infos = {0};
    cl_int err =
        zfcl_compile_source(p->source, options, headers, num_headers, compile_only, &spirv, &size, &log, &infos);
    zfcl_append_log(p, log);
    free(log);
    zfcl_arg_infos_free(&p->arg_info);
    if (err == CL_SUCCESS) {
        zfcl_drop_il(p);
        p->arg_info = infos;
        if (!zfcl_add_il(p, spirv, size))
            err = CL_OUT_OF_HOST_MEMORY;
    } else {
        zfcl_arg_infos_free(&infos);
    }
    free(spirv);
    return err;
}

static cl_int zfcl_build(cl_program p, cl_uint num, const cl_device_id *devices, const char *options) {
    free(p->log);
    p->log = NULL;
    zfcl_set_options(p, options);
    cl_int err = CL_SUCCESS;
    if (p->source != NULL)
        err = zfcl_compile_into(p, options, NULL, 0, false);
    for (cl_uint i = 0; err == CL_SUCCESS && i < p->context->num_devices; i++) {
        if (!zfcl_selected(p, i, num, devices) || (p->num_il == 0 && p->modules[i] != NULL))
            continue;
        if (p->num_il == 0)
            err = zfcl_fail(CL_INVALID_BINARY, "the program has no binary for device %u", i);
        else {
            if (p->modules[i] != NULL)
                zfi_zeModuleDestroy(p->modules[i]);
            p->modules[i] = NULL;
            err = zfcl_build_module(p, i, p->source != NULL ? "" : p->options);
        }
    }
    p->status = err == CL_SUCCESS ? CL_BUILD_SUCCESS : CL_BUILD_ERROR;
    if (err == CL_SUCCESS) {
        p->binary_type = CL_PROGRAM_BINARY_TYPE_EXECUTABLE;
        free(p->names);
        p->names = NULL;
        zfcl_collect_names(p);
    }
    return err;
}

cl_int CL_API_CALL zfcl_clBuildProgram(cl_program p, cl_uint num, const cl_device_id *devices, const char *options,
                                       void(CL_CALLBACK *notify)(cl_program, void *), void *user_data) {
    if (!zfcl_live(p, ZFCL_PROGRAM))
        return zfcl_fail(CL_INVALID_PROGRAM, "program is no live program");
    cl_int err = zfcl_devices_arg(p, num, devices);
    if (err != CL_SUCCESS)
        return err;
    if (notify == NULL && user_data != NULL)
        return zfcl_fail(CL_INVALID_VALUE, "user_data is given without pfn_notify");
    if (atomic_load(&p->kernels) > 0)
        return zfcl_fail(CL_INVALID_OPERATION, "kernels of the program are still attached");
    if (p->source == NULL && p->num_il == 0 && p->binary_type == CL_PROGRAM_BINARY_TYPE_NONE)
        return zfcl_fail(CL_INVALID_PROGRAM, "program has neither source nor binary");
    pthread_mutex_lock(&p->lock);
    err = zfcl_build(p, num, devices, options);
    pthread_mutex_unlock(&p->lock);
    if (notify != NULL)
        notify(p, user_data);
    return err == CL_SUCCESS || err == CL_INVALID_BUILD_OPTIONS || err == CL_OUT_OF_HOST_MEMORY ||
                   err == CL_OUT_OF_RESOURCES || err == CL_INVALID_BINARY
               ? err
               : CL_BUILD_PROGRAM_FAILURE;
}

static cl_int zfcl_gather_headers(cl_uint num, const cl_program *programs, const char **names, zfcl_header *out) {
    if ((num == 0) != (programs == NULL) || (num > 0 && names == NULL))
        return zfcl_fail(CL_INVALID_VALUE, "num_input_headers, input_headers and header_include_names disagree");
    for (cl_uint i = 0; i < num; i++) {
        if (!zfcl_live(programs[i], ZFCL_PROGRAM) || programs[i]->source == NULL || names[i] == NULL)
            return zfcl_fail(CL_INVALID_VALUE, "input_headers[%u] is no program with source or has no include name", i);
        out[i] = (zfcl_header){names[i], programs[i]->source};
    }
    return CL_SUCCESS;
}

cl_int CL_API_CALL zfcl_clCompileProgram(cl_program p, cl_uint num, const cl_device_id *devices, const char *options,
                                         cl_uint num_headers, const cl_program *headers, const char **header_names,
                                         void(CL_CALLBACK *notify)(cl_program, void *), void *user_data) {
    if (!zfcl_live(p, ZFCL_PROGRAM))
        return zfcl_fail(CL_INVALID_PROGRAM, "program is no live program");
    cl_int err = zfcl_devices_arg(p, num, devices);
    if (err != CL_SUCCESS)
        return err;
    if (notify == NULL && user_data != NULL)
        return zfcl_fail(CL_INVALID_VALUE, "user_data is given without pfn_notify");
    if (p->source == NULL)
        return zfcl_fail(CL_INVALID_OPERATION, "program was not created from source");
    if (atomic_load(&p->kernels) > 0)
        return zfcl_fail(CL_INVALID_OPERATION, "kernels of the program are still attached");
    zfcl_header *list = calloc(num_headers + 1, sizeof *list);
    if (list == NULL)
        return CL_OUT_OF_HOST_MEMORY;
    err = zfcl_gather_headers(num_headers, headers, header_names, list);
    if (err == CL_SUCCESS) {
        pthread_mutex_lock(&p->lock);
        free(p->log);
        p->log = NULL;
        zfcl_set_options(p, options);
        zfcl_drop_modules(p);
        err = zfcl_compile_into(p, options, list, num_headers, true);
        p->status = err == CL_SUCCESS ? CL_BUILD_SUCCESS : CL_BUILD_ERROR;
        p->binary_type = err == CL_SUCCESS ? CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT : CL_PROGRAM_BINARY_TYPE_NONE;
        pthread_mutex_unlock(&p->lock);
        if (notify != NULL)
            notify(p, user_data);
    }
    free(list);
    return err;
}

static cl_int zfcl_link_inputs(cl_context c, cl_uint num, const cl_program *inputs) {
    if (num == 0 || inputs == NULL)
        return zfcl_fail(CL_INVALID_VALUE, "num_input_programs is 0 or input_programs is NULL");
    for (cl_uint i = 0; i < num; i++) {
        if (!zfcl_live(inputs[i], ZFCL_PROGRAM) || inputs[i]->context != c)
            return zfcl_fail(CL_INVALID_PROGRAM, "input_programs[%u] is no live program of the context", i);
        if (inputs[i]->binary_type != CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT &&
            inputs[i]->binary_type != CL_PROGRAM_BINARY_TYPE_LIBRARY)
            return zfcl_fail(CL_INVALID_OPERATION, "input_programs[%u] is no compiled object or library", i);
    }
    return CL_SUCCESS;
}

/* OpenCL 3.0, "Linker Options": -create-library, -enable-link-options (with -create-library) and the math options
 * -cl-denorms-are-zero, -cl-no-signed-zeros, -cl-unsafe-math-optimizations, -cl-finite-math-only,
 * -cl-fast-relaxed-math and -cl-no-subgroup-ifp; anything else is CL_INVALID_LINKER_OPTIONS. */
static cl_int zfcl_check_link_options(const char *options) {
    static const char *const known[] = {"-create-library",
                                        "-enable-link-options",
                                        "-cl-denorms-are-zero",
                                        "-cl-no-signed-zeros",
                                        "-cl-unsafe-math-optimizations",
                                        "-cl-finite-math-only",
                                        "-cl-fast-relaxed-math",
                                        "-cl-no-subgroup-ifp"};
    bool library = false, link_options = false;
    for (const char *at = options != NULL ? options : ""; *at != '\0';) {
        at += strspn(at, " \t\n");
        size_t n = strcspn(at, " \t\n");
        if (n == 0)
            break;
        size_t k = 0;
        while (k < sizeof known / sizeof *known && (strlen(known[k]) != n || strncmp(at, known[k], n) != 0))
            k++;
        if (k == sizeof known / sizeof *known)
            return zfcl_fail(CL_INVALID_LINKER_OPTIONS, "'%.*s' is no linker option", (int)n, at);
        library |= k == 0;
        link_options |= k == 1;
        at += n;
    }
    if (link_options && !library)
        return zfcl_fail(CL_INVALID_LINKER_OPTIONS, "-enable-link-options is only valid with -create-library");
    return CL_SUCCESS;
}

cl_program CL_API_CALL zfcl_clLinkProgram(cl_context c, cl_uint num, const cl_device_id *devices, const char *options,
                                          cl_uint num_inputs, const cl_program *inputs,
                                          void(CL_CALLBACK *notify)(cl_program, void *), void *user_data, cl_int *err) {
    if (!zfcl_live(c, ZFCL_CONTEXT))
        return zfcl_null(err, zfcl_fail(CL_INVALID_CONTEXT, "context is no live context"));
    if (notify == NULL && user_data != NULL)
        return zfcl_null(err, zfcl_fail(CL_INVALID_VALUE, "user_data is given without pfn_notify"));
    cl_int e = zfcl_link_inputs(c, num_inputs, inputs);
    if (e == CL_SUCCESS)
        e = zfcl_check_link_options(options);
    if (e != CL_SUCCESS)
        return zfcl_null(err, e);
    cl_program p = zfcl_program_new(c, err);
    if (p == NULL)
        return NULL;
    e = zfcl_devices_arg(p, num, devices);
    for (cl_uint i = 0; e == CL_SUCCESS && i < num_inputs; i++) {
        for (uint32_t k = 0; e == CL_SUCCESS && k < inputs[i]->num_il; k++)
            if (!zfcl_add_il(p, inputs[i]->il[k], inputs[i]->il_size[k]))
                e = CL_OUT_OF_HOST_MEMORY;
        if (e == CL_SUCCESS && !zfcl_arg_infos_append(&p->arg_info, &inputs[i]->arg_info))
            e = CL_OUT_OF_HOST_MEMORY;
    }
    if (e == CL_SUCCESS && options != NULL && strstr(options, "-create-library") != NULL) {
        zfcl_set_options(p, options);
        p->status = CL_BUILD_SUCCESS;
        p->binary_type = CL_PROGRAM_BINARY_TYPE_LIBRARY;
    } else if (e == CL_SUCCESS) {
        e = zfcl_build(p, num, devices, options);
        if (e != CL_SUCCESS && e != CL_OUT_OF_HOST_MEMORY)
            e = CL_LINK_PROGRAM_FAILURE;
    }
    if (notify != NULL && e != CL_INVALID_DEVICE)
        notify(p, user_data);
    if (e == CL_SUCCESS || e == CL_LINK_PROGRAM_FAILURE) {
        if (err != NULL)
            *err = e; /* a failed link still gives a program whose build log explains it */
        return p;
    }
    zfcl_clReleaseProgram(p);
    return zfcl_null(err, e);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Queries */

static cl_int zfcl_binary_of(cl_program p, cl_uint index, unsigned char *out, size_t *size) {
    if (p->modules[index] != NULL) {
        *size = 0;
        ze_result_t r = zfi_zeModuleGetNativeBinary(p->modules[index], size, NULL);
        if (r == ZE_RESULT_SUCCESS && out != NULL)
            r = zfi_zeModuleGetNativeBinary(p->modules[index], size, out);
        return r == ZE_RESULT_SUCCESS ? CL_SUCCESS : CL_OUT_OF_RESOURCES;
    }
    *size = p->num_il == 1 ? p->il_size[0] : 0; /* a compiled object: its SPIR-V */
    if (out != NULL && *size > 0)
        memcpy(out, p->il[0], *size);
    return CL_SUCCESS;
}

static cl_int zfcl_binaries(cl_program p, bool sizes, size_t size, void *value, size_t *size_ret) {
    cl_uint n = p->context->num_devices;
    size_t need = n * (sizes ? sizeof(size_t) : sizeof(unsigned char *));
    if (size_ret != NULL)
        *size_ret = need;
    if (value == NULL)
        return CL_SUCCESS;
    if (size < need)
        return zfcl_fail(CL_INVALID_VALUE, "param_value_size %zu is less than the %zu bytes of the answer", size, need);
    for (cl_uint i = 0; i < n; i++) {
        size_t bytes = 0;
        unsigned char *out = sizes ? NULL : ((unsigned char **)value)[i];
        cl_int err = zfcl_binary_of(p, i, out, &bytes);
        if (err != CL_SUCCESS)
            return err;
        if (sizes)
            ((size_t *)value)[i] = bytes;
    }
    return CL_SUCCESS;
}

static bool zfcl_built(cl_program p) {
    return p->binary_type == CL_PROGRAM_BINARY_TYPE_EXECUTABLE && p->status == CL_BUILD_SUCCESS;
}

cl_int CL_API_CALL zfcl_clGetProgramInfo(cl_program p, cl_program_info name, size_t size, void *value,
                                         size_t *size_ret) {
    if (!zfcl_live(p, ZFCL_PROGRAM))
        return zfcl_fail(CL_INVALID_PROGRAM, "program is no live program");
    cl_uint refs = atomic_load(&p->obj.refs);
    cl_bool no = CL_FALSE;
    switch (name) {
    case CL_PROGRAM_REFERENCE_COUNT:
        return zfcl_info(size, value, size_ret, &refs, sizeof refs);
    case CL_PROGRAM_CONTEXT:
        return zfcl_info(size, value, size_ret, &p->context, sizeof p->context);
    case CL_PROGRAM_NUM_DEVICES:
        return zfcl_info(size, value, size_ret, &p->context->num_devices, sizeof(cl_uint));
    case CL_PROGRAM_DEVICES:
        return zfcl_info(size, value, size_ret, p->context->devices, p->context->num_devices * sizeof(cl_device_id));
    case CL_PROGRAM_SOURCE:
        return zfcl_info_str(size, value, size_ret, p->source != NULL ? p->source : "");
    case CL_PROGRAM_IL:
        return zfcl_info(size, value, size_ret, p->num_il == 1 && p->source == NULL ? p->il[0] : NULL,
                         p->num_il == 1 && p->source == NULL ? p->il_size[0] : 0);
    case CL_PROGRAM_BINARY_SIZES:
        return zfcl_binaries(p, true, size, value, size_ret);
    case CL_PROGRAM_BINARIES:
        return zfcl_binaries(p, false, size, value, size_ret);
    case CL_PROGRAM_NUM_KERNELS:
        if (!zfcl_built(p))
            return zfcl_fail(CL_INVALID_PROGRAM_EXECUTABLE, "the program is not built");
        return zfcl_info(size, value, size_ret, &p->num_kernels, sizeof p->num_kernels);
    case CL_PROGRAM_KERNEL_NAMES:
        if (!zfcl_built(p))
            return zfcl_fail(CL_INVALID_PROGRAM_EXECUTABLE, "the program is not built");
        return zfcl_info_str(size, value, size_ret, p->names != NULL ? p->names : "");
    case CL_PROGRAM_SCOPE_GLOBAL_CTORS_PRESENT:
    case CL_PROGRAM_SCOPE_GLOBAL_DTORS_PRESENT:
        return zfcl_info(size, value, size_ret, &no, sizeof no);
    default:
        return zfcl_fail(CL_INVALID_VALUE, "param_name 0x%x is no program query", (unsigned)name);
    }
}

cl_int CL_API_CALL zfcl_clGetProgramBuildInfo(cl_program p, cl_device_id d, cl_program_build_info name, size_t size,
                                              void *value, size_t *size_ret) {
    if (!zfcl_live(p, ZFCL_PROGRAM))
        return zfcl_fail(CL_INVALID_PROGRAM, "program is no live program");
    if (!zfcl_device_valid(d) || !zfcl_context_has(p->context, d))
        return zfcl_fail(CL_INVALID_DEVICE, "device is not a device of the program's context");
    size_t zero = 0;
    switch (name) {
    case CL_PROGRAM_BUILD_STATUS:
        return zfcl_info(size, value, size_ret, &p->status, sizeof p->status);
    case CL_PROGRAM_BUILD_OPTIONS:
        return zfcl_info_str(size, value, size_ret, p->options != NULL ? p->options : "");
    case CL_PROGRAM_BUILD_LOG:
        return zfcl_info_str(size, value, size_ret, p->log != NULL ? p->log : "");
    case CL_PROGRAM_BINARY_TYPE:
        return zfcl_info(size, value, size_ret, &p->binary_type, sizeof p->binary_type);
    case CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE:
        return zfcl_info(size, value, size_ret, &zero, sizeof zero);
    default:
        return zfcl_fail(CL_INVALID_VALUE, "param_name 0x%x is no program build query", (unsigned)name);
    }
}
