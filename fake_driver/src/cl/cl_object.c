/* The OpenCL objects' common parts: the registry of live objects (a handle is looked up before it is touched, so a
 * released or foreign handle gets CL_INVALID_<OBJECT>), reference counts, info answers and diagnostics. */
#include "cl/zf_cl.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ZFCL_BUCKETS 1024u

typedef struct zfcl_live_node {
    const void *handle;
    zfcl_kind kind;
    struct zfcl_live_node *next;
} zfcl_live_node;

static zfcl_live_node *zfcl_buckets[ZFCL_BUCKETS];
static pthread_mutex_t zfcl_registry_lock = PTHREAD_MUTEX_INITIALIZER;

static size_t zfcl_bucket(const void *handle) {
    uintptr_t key = (uintptr_t)handle;
    return (size_t)((key >> 4) ^ (key >> 14)) % ZFCL_BUCKETS;
}

bool zfcl_register(zfcl_obj *obj, zfcl_kind kind) {
    zfcl_live_node *node = malloc(sizeof *node);
    if (node == NULL)
        return false;
    obj->dispatch = &zfcl_dispatch;
    obj->kind = kind;
    atomic_store(&obj->refs, 1u);
    node->handle = obj;
    node->kind = kind;
    pthread_mutex_lock(&zfcl_registry_lock);
    size_t b = zfcl_bucket(obj);
    node->next = zfcl_buckets[b];
    zfcl_buckets[b] = node;
    pthread_mutex_unlock(&zfcl_registry_lock);
    return true;
}

void zfcl_unregister(zfcl_obj *obj) {
    pthread_mutex_lock(&zfcl_registry_lock);
    for (zfcl_live_node **p = &zfcl_buckets[zfcl_bucket(obj)]; *p != NULL; p = &(*p)->next) {
        if ((*p)->handle == obj) {
            zfcl_live_node *dead = *p;
            *p = dead->next;
            free(dead);
            break;
        }
    }
    pthread_mutex_unlock(&zfcl_registry_lock);
}

bool zfcl_live(const void *handle, zfcl_kind kind) {
    if (handle == NULL)
        return false;
    bool live = false;
    pthread_mutex_lock(&zfcl_registry_lock);
    for (zfcl_live_node *n = zfcl_buckets[zfcl_bucket(handle)]; n != NULL; n = n->next)
        if (n->handle == handle) {
            live = n->kind == kind;
            break;
        }
    pthread_mutex_unlock(&zfcl_registry_lock);
    return live;
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
