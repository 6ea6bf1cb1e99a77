/* Kernels and NDRange launches. A kernel is one Level Zero kernel per device the program is built for; its argument
 * kinds come from the module's description of the entry point (buffers, local memory, values), so clSetKernelArg
 * answers the specification's codes for each kind. A launch sets the group size (the given local size, the kernel's
 * required size, or the core's suggestion dividing the global size) and the global offset, then appends the launch. */
#include "cl/zf_cl.h"
#include "module/zf_module.h"
#include "spirv.h"
#include "zfcl_generated.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The value an argument was set to, as given to Level Zero: `size` bytes, or a local size with no bytes. */
typedef struct zfcl_arg {
    bool set;
    size_t size;
    void *bytes; /* NULL for a __local size */
} zfcl_arg;

static const zf_spirv_kernel *zfcl_desc(cl_kernel k) {
    return k->desc;
}

static void zfcl_kernel_free(cl_kernel k) {
    for (cl_uint i = 0; k->ze != NULL && i < k->program->context->num_devices; i++)
        if (k->ze[i] != NULL)
            zfi_zeKernelDestroy(k->ze[i]);
    free(k->ze);
    for (cl_uint i = 0; k->args != NULL && i < k->num_args; i++)
        free(k->args[i].bytes);
    free(k->args);
    free(k->name);
    zfcl_object_free(&k->obj);
}

static cl_kernel zfcl_kernel_new(cl_program p, const char *name, cl_int *err) {
    cl_kernel k = calloc(1, sizeof *k);
    if (k == NULL)
        return zfcl_null(err, CL_OUT_OF_HOST_MEMORY);
    k->program = p;
    k->name = strdup(name);
    k->ze = calloc(p->context->num_devices, sizeof *k->ze);
    if (k->name == NULL || k->ze == NULL) {
        zfcl_kernel_free(k);
        return zfcl_null(err, CL_OUT_OF_HOST_MEMORY);
    }
    ze_kernel_desc_t desc = {.stype = ZE_STRUCTURE_TYPE_KERNEL_DESC, .pKernelName = name};
    for (cl_uint i = 0; i < p->context->num_devices; i++) {
        if (p->modules[i] == NULL)
            continue;
        if (zfi_zeKernelCreate(p->modules[i], &desc, &k->ze[i]) != ZE_RESULT_SUCCESS) {
            zfcl_kernel_free(k);
            return zfcl_null(err, zfcl_fail(CL_INVALID_KERNEL_NAME, "the program has no kernel '%s'", name));
        }
        if (k->desc == NULL) {
            zf_program *program;
            uint32_t index;
            k->desc = zf_module_find_kernel(zf_module_from(p->modules[i]), name, &program, &index);
        }
    }
    k->num_args = k->desc != NULL ? zfcl_desc(k)->num_args : 0;
    k->args = calloc(k->num_args + 1, sizeof *k->args);
    if (k->desc == NULL || k->args == NULL || !zfcl_register(&k->obj, ZFCL_KERNEL)) {
        zfcl_kernel_free(k);
        return zfcl_null(err, k->desc == NULL ? CL_INVALID_KERNEL_NAME : CL_OUT_OF_HOST_MEMORY);
    }
    zfcl_retain(&p->obj);
    atomic_fetch_add(&p->kernels, 1u);
    if (err != NULL)
        *err = CL_SUCCESS;
    return k;
}

static bool zfcl_has_executable(cl_program p) {
    return p->binary_type == CL_PROGRAM_BINARY_TYPE_EXECUTABLE && p->status == CL_BUILD_SUCCESS;
}

static bool zfcl_has_kernel(cl_program p, const char *name) {
    size_t n = strlen(name);
    for (const char *s = p->names; s != NULL && *s != '\0';) {
        const char *end = strchr(s, ';');
        size_t len = end != NULL ? (size_t)(end - s) : strlen(s);
        if (len == n && strncmp(s, name, n) == 0)
            return true;
        s = end != NULL ? end + 1 : s + len;
    }
    return false;
}

cl_kernel CL_API_CALL zfcl_clCreateKernel(cl_program p, const char *name, cl_int *err) {
    if (!zfcl_live(p, ZFCL_PROGRAM))
        return zfcl_null(err, zfcl_fail(CL_INVALID_PROGRAM, "program is no live program"));
    if (!zfcl_has_executable(p))
        return zfcl_null(err, zfcl_fail(CL_INVALID_PROGRAM_EXECUTABLE, "the program has no executable"));
    if (name == NULL)
        return zfcl_null(err, zfcl_fail(CL_INVALID_VALUE, "kernel_name is NULL"));
    if (!zfcl_has_kernel(p, name))
        return zfcl_null(err, zfcl_fail(CL_INVALID_KERNEL_NAME, "the program has no kernel '%s'", name));
    return zfcl_kernel_new(p, name, err);
}

cl_int CL_API_CALL zfcl_clCreateKernelsInProgram(cl_program p, cl_uint num, cl_kernel *kernels, cl_uint *num_ret) {
    if (!zfcl_live(p, ZFCL_PROGRAM))
        return zfcl_fail(CL_INVALID_PROGRAM, "program is no live program");
    if (!zfcl_has_executable(p))
        return zfcl_fail(CL_INVALID_PROGRAM_EXECUTABLE, "the program has no executable");
    if (kernels != NULL && num < p->num_kernels)
        return zfcl_fail(CL_INVALID_VALUE, "num_kernels %u is less than the program's %zu kernels", num,
                         p->num_kernels);
    if (num_ret != NULL)
        *num_ret = (cl_uint)p->num_kernels;
    if (kernels == NULL)
        return CL_SUCCESS;
    char *names = strdup(p->names != NULL ? p->names : "");
    cl_uint made = 0;
    cl_int err = names != NULL ? CL_SUCCESS : CL_OUT_OF_HOST_MEMORY;
    char *save = NULL;
    for (char *s = names != NULL ? strtok_r(names, ";", &save) : NULL; s != NULL && err == CL_SUCCESS;
         s = strtok_r(NULL, ";", &save))
        if ((kernels[made] = zfcl_kernel_new(p, s, &err)) != NULL)
            made++;
    free(names);
    if (err != CL_SUCCESS)
        while (made > 0)
            zfcl_clReleaseKernel(kernels[--made]);
    return err;
}

cl_int CL_API_CALL zfcl_clRetainKernel(cl_kernel k) {
    if (!zfcl_live(k, ZFCL_KERNEL))
        return zfcl_fail(CL_INVALID_KERNEL, "kernel is no live kernel");
    zfcl_retain(&k->obj);
    return CL_SUCCESS;
}

cl_int CL_API_CALL zfcl_clReleaseKernel(cl_kernel k) {
    if (!zfcl_live(k, ZFCL_KERNEL))
        return zfcl_fail(CL_INVALID_KERNEL, "kernel is no live kernel");
    if (!zfcl_release(&k->obj))
        return CL_SUCCESS;
    zfcl_unregister(&k->obj);
    cl_program p = k->program;
    zfcl_kernel_free(k);
    atomic_fetch_sub(&p->kernels, 1u);
    return zfcl_clReleaseProgram(p);
}

static cl_int zfcl_set_all(cl_kernel k, cl_uint index, size_t size, const void *value) {
    for (cl_uint i = 0; i < k->program->context->num_devices; i++) {
        if (k->ze[i] == NULL)
            continue;
        ze_result_t r = zfi_zeKernelSetArgumentValue(k->ze[i], index, size, value);
        if (r != ZE_RESULT_SUCCESS)
            return zfcl_fail(r == ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE ? CL_INVALID_ARG_SIZE
                                                                               : CL_INVALID_ARG_VALUE,
                             "argument %u was refused by the kernel (Level Zero result 0x%x)", index, (unsigned)r);
    }
    zfcl_arg *arg = &k->args[index];
    void *copy = value != NULL ? malloc(size) : NULL;
    if (value != NULL && copy == NULL)
        return CL_OUT_OF_HOST_MEMORY;
    if (copy != NULL)
        memcpy(copy, value, size);
    free(arg->bytes);
    *arg = (zfcl_arg){true, size, copy};
    return CL_SUCCESS;
}

static cl_int zfcl_set_pointer(cl_kernel k, cl_uint index, size_t size, const void *value) {
    if (size != sizeof(cl_mem))
        return zfcl_fail(CL_INVALID_ARG_SIZE, "argument %u is a buffer: arg_size must be sizeof(cl_mem)", index);
    cl_mem m = value != NULL ? *(const cl_mem *)value : NULL;
    void *ptr = NULL;
    if (m != NULL) {
        if (!zfcl_buffer_valid(m) || m->context != k->program->context)
            return zfcl_fail(CL_INVALID_MEM_OBJECT, "argument %u is no live buffer of the kernel's context", index);
        ptr = m->ptr;
    }
    return zfcl_set_all(k, index, sizeof ptr, &ptr);
}

cl_int zfcl_set_kernel_pointer(cl_kernel k, cl_uint index, const void *ptr) {
    if (!zfcl_live(k, ZFCL_KERNEL))
        return zfcl_fail(CL_INVALID_KERNEL, "kernel is no live kernel");
    if (index >= k->num_args)
        return zfcl_fail(CL_INVALID_ARG_INDEX, "arg_index %u is not below the kernel's %u arguments", index,
                         k->num_args);
    if (zfcl_desc(k)->args[index].kind != ZF_SPIRV_ARG_POINTER)
        return zfcl_fail(CL_INVALID_ARG_VALUE, "argument %u is no global or constant pointer", index);
    return zfcl_set_all(k, index, sizeof ptr, &ptr);
}

cl_int CL_API_CALL zfcl_clSetKernelArg(cl_kernel k, cl_uint index, size_t size, const void *value) {
    if (!zfcl_live(k, ZFCL_KERNEL))
        return zfcl_fail(CL_INVALID_KERNEL, "kernel is no live kernel");
    if (index >= k->num_args)
        return zfcl_fail(CL_INVALID_ARG_INDEX, "arg_index %u is not below the kernel's %u arguments", index,
                         k->num_args);
    const zf_spirv_arg *arg = &zfcl_desc(k)->args[index];
    switch (arg->kind) {
    case ZF_SPIRV_ARG_POINTER:
        return zfcl_set_pointer(k, index, size, value);
    case ZF_SPIRV_ARG_LOCAL:
        if (value != NULL)
            return zfcl_fail(CL_INVALID_ARG_VALUE, "argument %u is __local: arg_value must be NULL", index);
        if (size == 0)
            return zfcl_fail(CL_INVALID_ARG_SIZE, "argument %u is __local: arg_size must not be 0", index);
        return zfcl_set_all(k, index, size, NULL);
    case ZF_SPIRV_ARG_VALUE:
        if (value == NULL)
            return zfcl_fail(CL_INVALID_ARG_VALUE, "argument %u is a value: arg_value is NULL", index);
        if (size != arg->size)
            return zfcl_fail(CL_INVALID_ARG_SIZE, "argument %u takes %llu bytes, not %zu", index,
                             (unsigned long long)arg->size, size);
        return zfcl_set_all(k, index, size, value);
    case ZF_SPIRV_ARG_IMAGE: {
        cl_mem m = value != NULL && size == sizeof(cl_mem) ? *(const cl_mem *)value : NULL;
        if (size != sizeof(cl_mem))
            return zfcl_fail(CL_INVALID_ARG_SIZE, "argument %u is an image: arg_size must be sizeof(cl_mem)", index);
        if (!zfcl_image_valid(m) || m->context != k->program->context)
            return zfcl_fail(CL_INVALID_MEM_OBJECT, "argument %u is no live image of the kernel's context", index);
        return zfcl_set_all(k, index, sizeof m->image, &m->image);
    }
    case ZF_SPIRV_ARG_SAMPLER: {
        cl_sampler s = value != NULL && size == sizeof(cl_sampler) ? *(const cl_sampler *)value : NULL;
        if (size != sizeof(cl_sampler))
            return zfcl_fail(CL_INVALID_ARG_SIZE, "argument %u is a sampler: arg_size must be sizeof(cl_sampler)",
                             index);
        if (!zfcl_live(s, ZFCL_SAMPLER) || s->context != k->program->context)
            return zfcl_fail(CL_INVALID_SAMPLER, "argument %u is no live sampler of the kernel's context", index);
        return zfcl_set_all(k, index, sizeof s->ze, &s->ze);
    }
    default:
        return zfcl_fail(CL_INVALID_ARG_VALUE, "argument %u is a pipe or queue, which are not supported", index);
    }
}

/* A new kernel of the same program and entry point, its arguments set to the source kernel's. */
cl_kernel CL_API_CALL zfcl_clCloneKernel(cl_kernel source, cl_int *err) {
    if (!zfcl_live(source, ZFCL_KERNEL))
        return zfcl_null(err, zfcl_fail(CL_INVALID_KERNEL, "source_kernel is no live kernel"));
    cl_kernel k = zfcl_kernel_new(source->program, source->name, err);
    cl_int e = CL_SUCCESS;
    for (cl_uint i = 0; k != NULL && e == CL_SUCCESS && i < k->num_args; i++)
        if (source->args[i].set)
            e = zfcl_set_all(k, i, source->args[i].size, source->args[i].bytes);
    if (k != NULL && e != CL_SUCCESS) {
        zfcl_clReleaseKernel(k);
        return zfcl_null(err, e);
    }
    return k;
}

/* The kernel's attributes as its SPIR-V gives them, with an unsigned vec_type_hint restored from the source: SPIR-V's
 * VecTypeHint names the integer width only, so "vec_type_hint(int4)" becomes "vec_type_hint(uint4)". */
static const char *zfcl_attributes(cl_kernel k, char *buffer, size_t size) {
    const char *given = zfcl_desc(k)->attributes != NULL ? zfcl_desc(k)->attributes : "";
    const zfcl_kernel_args *source = zfcl_arg_infos_find(&k->program->arg_info, k->name);
    const char *hint = strstr(given, "vec_type_hint(");
    if (source == NULL || !source->unsigned_hint || hint == NULL)
        return given;
    size_t at = (size_t)(hint - given) + strlen("vec_type_hint(");
    snprintf(buffer, size, "%.*su%s", (int)at, given, given + at);
    return buffer;
}

cl_int CL_API_CALL zfcl_clGetKernelInfo(cl_kernel k, cl_kernel_info name, size_t size, void *value, size_t *size_ret) {
    if (!zfcl_live(k, ZFCL_KERNEL))
        return zfcl_fail(CL_INVALID_KERNEL, "kernel is no live kernel");
    cl_uint refs = atomic_load(&k->obj.refs);
    char buffer[320];
    const char *attributes = zfcl_attributes(k, buffer, sizeof buffer);
    switch (name) {
    case CL_KERNEL_FUNCTION_NAME:
        return zfcl_info_str(size, value, size_ret, k->name);
    case CL_KERNEL_NUM_ARGS:
        return zfcl_info(size, value, size_ret, &k->num_args, sizeof k->num_args);
    case CL_KERNEL_REFERENCE_COUNT:
        return zfcl_info(size, value, size_ret, &refs, sizeof refs);
    case CL_KERNEL_CONTEXT:
        return zfcl_info(size, value, size_ret, &k->program->context, sizeof(cl_context));
    case CL_KERNEL_PROGRAM:
        return zfcl_info(size, value, size_ret, &k->program, sizeof k->program);
    case CL_KERNEL_ATTRIBUTES:
        return zfcl_info_str(size, value, size_ret, attributes);
    default:
        return zfcl_fail(CL_INVALID_VALUE, "param_name 0x%x is no kernel query", (unsigned)name);
    }
}

/* The size of a clGetKernelArgInfo answer of fixed size, 0 for the strings, SIZE_MAX for no such query. */
static size_t zfcl_arg_info_size(cl_kernel_arg_info name) {
    switch (name) {
    case CL_KERNEL_ARG_ADDRESS_QUALIFIER:
        return sizeof(cl_kernel_arg_address_qualifier);
    case CL_KERNEL_ARG_ACCESS_QUALIFIER:
        return sizeof(cl_kernel_arg_access_qualifier);
    case CL_KERNEL_ARG_TYPE_QUALIFIER:
        return sizeof(cl_kernel_arg_type_qualifier);
    case CL_KERNEL_ARG_TYPE_NAME:
    case CL_KERNEL_ARG_NAME:
        return 0;
    default:
        return SIZE_MAX;
    }
}

static cl_int zfcl_arg_info_answer(const zfcl_arg_info *a, cl_kernel_arg_info name, size_t size, void *value,
                                   size_t *size_ret) {
    switch (name) {
    case CL_KERNEL_ARG_ADDRESS_QUALIFIER:
        return zfcl_info(size, value, size_ret, &a->address, sizeof a->address);
    case CL_KERNEL_ARG_ACCESS_QUALIFIER:
        return zfcl_info(size, value, size_ret, &a->access, sizeof a->access);
    case CL_KERNEL_ARG_TYPE_QUALIFIER:
        return zfcl_info(size, value, size_ret, &a->type_qualifier, sizeof a->type_qualifier);
    case CL_KERNEL_ARG_TYPE_NAME:
        return zfcl_info_str(size, value, size_ret, a->type_name);
    default:
        return zfcl_info_str(size, value, size_ret, a->name);
    }
}

/* OpenCL 3.0, clGetKernelArgInfo: the information comes from a program built from source with -cl-kernel-arg-info
 * (the face reads it from clang's output, cl_bitcode.c); otherwise CL_KERNEL_ARG_INFO_NOT_AVAILABLE, after the
 * argument checks. */
cl_int CL_API_CALL zfcl_clGetKernelArgInfo(cl_kernel k, cl_uint index, cl_kernel_arg_info name, size_t size,
                                           void *value, size_t *size_ret) {
    if (!zfcl_live(k, ZFCL_KERNEL))
        return zfcl_fail(CL_INVALID_KERNEL, "kernel is no live kernel");
    if (index >= k->num_args)
        return zfcl_fail(CL_INVALID_ARG_INDEX, "arg_index %u is not below the kernel's %u arguments", index,
                         k->num_args);
    size_t fixed = zfcl_arg_info_size(name);
    if (fixed == SIZE_MAX)
        return zfcl_fail(CL_INVALID_VALUE, "param_name 0x%x is no kernel argument query", (unsigned)name);
    if (value != NULL && fixed != 0 && size < fixed)
        return zfcl_fail(CL_INVALID_VALUE, "param_value_size %zu is below the answer's %zu bytes", size, fixed);
    const zfcl_kernel_args *args = zfcl_arg_infos_find(&k->program->arg_info, k->name);
    if (args == NULL || !args->has_args || index >= args->num_args)
        return zfcl_fail(CL_KERNEL_ARG_INFO_NOT_AVAILABLE,
                         "the program was not built from OpenCL C with -cl-kernel-arg-info");
    return zfcl_arg_info_answer(&args->args[index], name, size, value, size_ret);
}

static cl_int zfcl_kernel_device(cl_kernel k, cl_device_id *d) {
    cl_context c = k->program->context;
    if (*d == NULL) {
        if (c->num_devices != 1)
            return zfcl_fail(CL_INVALID_DEVICE, "device is NULL but the kernel's context has several devices");
        *d = c->devices[0];
    }
    if (!zfcl_device_valid(*d) || !zfcl_context_has(c, *d))
        return zfcl_fail(CL_INVALID_DEVICE, "device is not a device of the kernel's context");
    return CL_SUCCESS;
}

cl_int CL_API_CALL zfcl_clGetKernelWorkGroupInfo(cl_kernel k, cl_device_id d, cl_kernel_work_group_info name,
                                                 size_t size, void *value, size_t *size_ret) {
    if (!zfcl_live(k, ZFCL_KERNEL))
        return zfcl_fail(CL_INVALID_KERNEL, "kernel is no live kernel");
    cl_int err = zfcl_kernel_device(k, &d);
    if (err != CL_SUCCESS)
        return err;
    const zf_spirv_kernel *desc = zfcl_desc(k);
    size_t reqd[3] = {0, 0, 0};
    if (desc->has_local_size)
        for (int i = 0; i < 3; i++)
            reqd[i] = desc->local_size[i];
    size_t wg = desc->has_local_size ? reqd[0] * reqd[1] * reqd[2] : d->compute.maxTotalGroupSize;
    size_t multiple = zfcl_device_subgroup_min(d);
    cl_ulong local = desc->static_local_bytes, priv = desc->private_bytes;
    switch (name) {
    case CL_KERNEL_WORK_GROUP_SIZE:
        return zfcl_info(size, value, size_ret, &wg, sizeof wg);
    case CL_KERNEL_COMPILE_WORK_GROUP_SIZE:
        return zfcl_info(size, value, size_ret, reqd, sizeof reqd);
    case CL_KERNEL_LOCAL_MEM_SIZE:
        return zfcl_info(size, value, size_ret, &local, sizeof local);
    case CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE:
        return zfcl_info(size, value, size_ret, &multiple, sizeof multiple);
    case CL_KERNEL_PRIVATE_MEM_SIZE:
        return zfcl_info(size, value, size_ret, &priv, sizeof priv);
    case CL_KERNEL_GLOBAL_WORK_SIZE:
        return zfcl_fail(CL_INVALID_VALUE, "CL_KERNEL_GLOBAL_WORK_SIZE is for custom devices and built-in kernels");
    default:
        return zfcl_fail(CL_INVALID_VALUE, "param_name 0x%x is no work-group query", (unsigned)name);
    }
}

/* Sub-groups: the sizes and counts of the kernel's Level Zero properties for the device. */
static cl_int zfcl_subgroup_props(cl_kernel k, cl_device_id d, ze_kernel_properties_t *props) {
    *props = (ze_kernel_properties_t){.stype = ZE_STRUCTURE_TYPE_KERNEL_PROPERTIES};
    ze_kernel_handle_t zk = k->ze[zfcl_context_index(k->program->context, d)];
    if (zk == NULL || zfi_zeKernelGetProperties(zk, props) != ZE_RESULT_SUCCESS)
        return zfcl_fail(CL_INVALID_DEVICE, "the kernel's program is not built for the device");
    return CL_SUCCESS;
}

static size_t zfcl_product(const size_t *v, size_t count) {
    size_t p = 1;
    for (size_t i = 0; i < count; i++)
        p *= v[i];
    return p;
}

cl_int CL_API_CALL zfcl_clGetKernelSubGroupInfo(cl_kernel k, cl_device_id d, cl_kernel_sub_group_info name,
                                                size_t in_size, const void *in, size_t size, void *value,
                                                size_t *size_ret) {
    if (!zfcl_live(k, ZFCL_KERNEL))
        return zfcl_fail(CL_INVALID_KERNEL, "kernel is no live kernel");
    ze_kernel_properties_t props;
    cl_int err = zfcl_kernel_device(k, &d);
    if (err == CL_SUCCESS)
        err = zfcl_subgroup_props(k, d, &props);
    if (err != CL_SUCCESS)
        return err;
    size_t sg = props.requiredSubgroupSize != 0 ? props.requiredSubgroupSize : props.maxSubgroupSize;
    sg = sg != 0 ? sg : 1;
    bool local_in = in != NULL && in_size > 0 && in_size % sizeof(size_t) == 0 && in_size <= 3 * sizeof(size_t);
    size_t answer[3] = {0, 0, 0}, count = 1;
    switch (name) {
    case CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE:
    case CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE:
        if (!local_in)
            return zfcl_fail(CL_INVALID_VALUE, "input_value must be a local size of 1 to 3 size_t");
        answer[0] = name == CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE
                        ? sg
                        : (zfcl_product(in, in_size / sizeof(size_t)) + sg - 1) / sg;
        break;
    case CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT:
        if (in == NULL || in_size != sizeof(size_t))
            return zfcl_fail(CL_INVALID_VALUE, "input_value must be one size_t");
        answer[0] = *(const size_t *)in * sg <= d->compute.maxTotalGroupSize ? *(const size_t *)in * sg : 0;
        answer[1] = answer[2] = 1;
        count = size >= 3 * sizeof(size_t) ? 3 : size / sizeof(size_t) > 0 ? size / sizeof(size_t) : 1;
        break;
    case CL_KERNEL_MAX_NUM_SUB_GROUPS:
        answer[0] = props.maxNumSubgroups != 0 ? props.maxNumSubgroups : d->compute.maxTotalGroupSize / sg;
        break;
    case CL_KERNEL_COMPILE_NUM_SUB_GROUPS:
        answer[0] = props.requiredNumSubGroups;
        break;
    default:
        return zfcl_fail(CL_INVALID_VALUE, "param_name 0x%x is no sub-group query", (unsigned)name);
    }
    return zfcl_info(size, value, size_ret, answer, count * sizeof(size_t));
}

cl_int CL_API_CALL zfcl_clGetKernelSubGroupInfoKHR(cl_kernel k, cl_device_id d, cl_kernel_sub_group_info name,
                                                   size_t in_size, const void *in, size_t size, void *value,
                                                   size_t *size_ret) {
    return zfcl_clGetKernelSubGroupInfo(k, d, name, in_size, in, size, value, size_ret);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Launches */

typedef struct zfcl_range {
    cl_uint dims;
    size_t offset[3], global[3], local[3];
} zfcl_range;

static cl_int zfcl_check_local(cl_kernel k, cl_device_id d, zfcl_range *r) {
    const zf_spirv_kernel *desc = zfcl_desc(k);
    size_t max_item[3] = {d->compute.maxGroupSizeX, d->compute.maxGroupSizeY, d->compute.maxGroupSizeZ};
    size_t total = 1;
    for (cl_uint i = 0; i < 3; i++) {
        if (r->local[i] == 0)
            return zfcl_fail(CL_INVALID_WORK_GROUP_SIZE, "local_work_size[%u] is 0", i);
        if (r->local[i] > max_item[i])
            return zfcl_fail(CL_INVALID_WORK_ITEM_SIZE, "local_work_size[%u] %zu exceeds the device's %zu", i,
                             r->local[i], max_item[i]);
        if (r->global[i] % r->local[i] != 0)
            return zfcl_fail(CL_INVALID_WORK_GROUP_SIZE,
                             "global_work_size[%u] is not a multiple of the local size "
                             "(non-uniform work-groups are not supported)",
                             i);
        if (desc->has_local_size && r->local[i] != desc->local_size[i])
            return zfcl_fail(CL_INVALID_WORK_GROUP_SIZE, "the kernel requires a work-group size of %u in dimension %u",
                             desc->local_size[i], i);
        total *= r->local[i];
    }
    if (total > d->compute.maxTotalGroupSize)
        return zfcl_fail(CL_INVALID_WORK_GROUP_SIZE, "the work-group of %zu items exceeds the device's %u", total,
                         d->compute.maxTotalGroupSize);
    return CL_SUCCESS;
}

static cl_int zfcl_range_of(cl_kernel k, cl_device_id d, ze_kernel_handle_t zk, cl_uint dims, const size_t *offset,
                            const size_t *global, const size_t *local, zfcl_range *r) {
    if (dims < 1 || dims > 3)
        return zfcl_fail(CL_INVALID_WORK_DIMENSION, "work_dim %u is not 1, 2 or 3", dims);
    if (global == NULL)
        return zfcl_fail(CL_INVALID_VALUE, "global_work_size is NULL");
    *r = (zfcl_range){.dims = dims, .offset = {0, 0, 0}, .global = {1, 1, 1}, .local = {1, 1, 1}};
    for (cl_uint i = 0; i < dims; i++) {
        r->global[i] = global[i];
        r->offset[i] = offset != NULL ? offset[i] : 0;
        if (global[i] > UINT32_MAX || r->offset[i] > UINT32_MAX || global[i] + r->offset[i] < global[i])
            return zfcl_fail(CL_INVALID_GLOBAL_WORK_SIZE,
                             "global_work_size[%u] with its offset exceeds the device's "
                             "range",
                             i);
        if (local != NULL)
            r->local[i] = local[i];
    }
    const zf_spirv_kernel *desc = zfcl_desc(k);
    if (local == NULL && desc->has_local_size)
        for (int i = 0; i < 3; i++)
            r->local[i] = desc->local_size[i];
    else if (local == NULL) {
        uint32_t x = 1, y = 1, z = 1;
        zfi_zeKernelSuggestGroupSize(zk, (uint32_t)r->global[0], (uint32_t)r->global[1], (uint32_t)r->global[2], &x, &y,
                                     &z);
        r->local[0] = x;
        r->local[1] = y;
        r->local[2] = z;
    }
    return zfcl_check_local(k, d, r);
}

static cl_int zfcl_args_ready(cl_kernel k) {
    for (cl_uint i = 0; i < k->num_args; i++)
        if (!k->args[i].set)
            return zfcl_fail(CL_INVALID_KERNEL_ARGS, "argument %u of kernel '%s' was never set", i, k->name);
    return CL_SUCCESS;
}

static cl_int zfcl_launch(cl_command_queue q, ze_kernel_handle_t zk, const zfcl_range *r, cl_command_type type,
                          cl_uint num, const cl_event *list, cl_event *event) {
    cl_event e;
    ze_event_handle_t *w;
    uint32_t nw;
    cl_int err = zfcl_command_begin(q, type, num, list, &e, &w, &nw);
    if (err != CL_SUCCESS)
        return err;
    ze_group_count_t groups = {(uint32_t)(r->global[0] / r->local[0]), (uint32_t)(r->global[1] / r->local[1]),
                               (uint32_t)(r->global[2] / r->local[2])};
    bool empty = groups.groupCountX == 0 || groups.groupCountY == 0 || groups.groupCountZ == 0;
    ze_result_t res = zfi_zeKernelSetGroupSize(zk, (uint32_t)r->local[0], (uint32_t)r->local[1], (uint32_t)r->local[2]);
    zf_kernel_set_work_dim(zk, r->dims);
    if (res == ZE_RESULT_SUCCESS)
        res =
            zfi_zeKernelSetGlobalOffsetExp(zk, (uint32_t)r->offset[0], (uint32_t)r->offset[1], (uint32_t)r->offset[2]);
    if (res == ZE_RESULT_SUCCESS)
        res = empty ? zfi_zeCommandListAppendBarrier(e->list, e->ze, nw, w) /* a 0 global size: nothing to run */
                    : zfi_zeCommandListAppendLaunchKernel(e->list, zk, &groups, e->ze, nw, w);
    free(w);
    if (res != ZE_RESULT_SUCCESS) {
        zfcl_command_abort(q, e);
        return zfcl_fail(zfcl_from_ze(res), "the launch was refused (Level Zero result 0x%x)", (unsigned)res);
    }
    return zfcl_command_end(q, e, event, false);
}

cl_int CL_API_CALL zfcl_clEnqueueNDRangeKernel(cl_command_queue q, cl_kernel k, cl_uint dims, const size_t *offset,
                                               const size_t *global, const size_t *local, cl_uint num,
                                               const cl_event *list, cl_event *event) {
    cl_int queue_err = zfcl_queue_check(q);
    if (queue_err != CL_SUCCESS)
        return queue_err;
    if (!zfcl_live(k, ZFCL_KERNEL))
        return zfcl_fail(CL_INVALID_KERNEL, "kernel is no live kernel");
    if (k->program->context != q->context)
        return zfcl_fail(CL_INVALID_CONTEXT, "the kernel and the queue belong to different contexts");
    ze_kernel_handle_t zk = k->ze[zfcl_context_index(q->context, q->device)];
    if (zk == NULL)
        return zfcl_fail(CL_INVALID_PROGRAM_EXECUTABLE, "the program is not built for the queue's device");
    zfcl_range r = {0};
    cl_int err = zfcl_range_of(k, q->device, zk, dims, offset, global, local, &r);
    if (err == CL_SUCCESS)
        err = zfcl_args_ready(k);
    if (err == CL_SUCCESS)
        err = zfcl_wait_list(q, num, list);
    if (err != CL_SUCCESS)
        return err;
    return zfcl_launch(q, zk, &r, CL_COMMAND_NDRANGE_KERNEL, num, list, event);
}

cl_int CL_API_CALL zfcl_clEnqueueTask(cl_command_queue q, cl_kernel k, cl_uint num, const cl_event *list,
                                      cl_event *event) {
    const size_t one[1] = {1};
    return zfcl_clEnqueueNDRangeKernel(q, k, 1, NULL, one, one, num, list, event);
}
