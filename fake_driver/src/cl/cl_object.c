/* The OpenCL objects' common parts: their place on the core's registry of live objects (core/zf_object.h: a handle is
 * looked up before it is touched, so a released, foreign or bogus handle gets CL_INVALID_<OBJECT>, and a released
 * object's memory waits in the core's quarantine before it is freed, so that its address is not reused soon),
 * reference counts, info answers and diagnostics. */
#include "cl/zf_cl.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static zf_obj_type zfcl_type(zfcl_kind kind) {
    return (zf_obj_type)(ZF_OBJ_TYPE_COUNT + kind);
}

bool zfcl_register(zfcl_obj *obj, zfcl_kind kind) {
    obj->kind = kind;
    atomic_store(&obj->refs, 1u);
    if (!zf_object_register(&obj->header, zfcl_type(kind), NULL))
        return false;
    obj->header.dispatch = (void *)&zfcl_dispatch; /* before the handle is handed out */
    return true;
}

void zfcl_unregister(zfcl_obj *obj) {
    zf_object_unregister(&obj->header);
}

void zfcl_object_free(zfcl_obj *obj) {
    zf_object_retire(&obj->header);
}

bool zfcl_live(const void *handle, zfcl_kind kind) {
    return zf_handle_is_live(handle, zfcl_type(kind));
}

void zfcl_retain(zfcl_obj *obj) {
    atomic_fetch_add(&obj->refs, 1u);
}

bool zfcl_release(zfcl_obj *obj) {
    return atomic_fetch_sub(&obj->refs, 1u) == 1u;
}

cl_int zfcl_fail_at(const char *function, cl_int code, const char *format, ...) {
    if (!zf_log_enabled(ZF_LOG_DEBUG))
        return code;
    char reason[512];
    va_list args;
    va_start(args, format);
    vsnprintf(reason, sizeof reason, format, args);
    va_end(args);
    zf_log(ZF_LOG_DEBUG, "%s: %d: %s", function, code, reason);
    return code;
}

void *zfcl_null(cl_int *errcode_ret, cl_int code) {
    if (errcode_ret != NULL)
        *errcode_ret = code;
    return NULL;
}

cl_int zfcl_info(size_t param_value_size, void *param_value, size_t *param_value_size_ret, const void *value,
                 size_t size) {
    if (param_value != NULL) {
        if (param_value_size < size)
            return zfcl_fail(CL_INVALID_VALUE, "param_value_size %zu is less than the %zu bytes of the answer",
                             param_value_size, size);
        if (size > 0)
            memcpy(param_value, value, size);
    }
    if (param_value_size_ret != NULL)
        *param_value_size_ret = size;
    return CL_SUCCESS;
}

cl_int zfcl_info_str(size_t param_value_size, void *param_value, size_t *param_value_size_ret, const char *value) {
    return zfcl_info(param_value_size, param_value, param_value_size_ret, value, strlen(value) + 1);
}

bool zfcl_overlap(const void *a, const void *b, size_t size) {
    const char *pa = a, *pb = b;
    return pa < pb + size && pb < pa + size;
}

cl_int zfcl_from_ze(ze_result_t result) {
    switch (result) {
    case ZE_RESULT_SUCCESS:
        return CL_SUCCESS;
    case ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY:
        return CL_OUT_OF_HOST_MEMORY;
    case ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY:
        return CL_MEM_OBJECT_ALLOCATION_FAILURE;
    case ZE_RESULT_ERROR_UNSUPPORTED_SIZE:
        return CL_INVALID_BUFFER_SIZE;
    case ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION:
        return CL_INVALID_WORK_GROUP_SIZE;
    case ZE_RESULT_ERROR_INVALID_KERNEL_NAME:
        return CL_INVALID_KERNEL_NAME;
    case ZE_RESULT_ERROR_MODULE_BUILD_FAILURE:
        return CL_BUILD_PROGRAM_FAILURE;
    case ZE_RESULT_ERROR_INVALID_NATIVE_BINARY:
        return CL_INVALID_BINARY;
    case ZE_RESULT_ERROR_DEVICE_LOST:
        return CL_OUT_OF_RESOURCES;
    default:
        return CL_OUT_OF_RESOURCES;
    }
}
