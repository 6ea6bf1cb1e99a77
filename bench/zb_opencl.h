/* What the benches that go through OpenCL share: the check of a call's result and the lookup of a platform by name
 * (zefake's or PoCL's, through ocl-icd). Include after zb_bench.h. */
#ifndef ZB_OPENCL_H
#define ZB_OPENCL_H

#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static inline void zb_cl_check(cl_int err, const char *what) {
    if (err != CL_SUCCESS) {
        char code[32];
        snprintf(code, sizeof code, "error %d", err);
        zb_fail(what, code);
    }
}

/* The platform named `name` (its whole name, or a part of it unless `whole`), NULL when there is none. */
static inline cl_platform_id zb_cl_platform(const char *name, bool whole) {
    cl_platform_id list[8];
    cl_uint n = 0;
    if (clGetPlatformIDs(8, list, &n) != CL_SUCCESS)
        return NULL;
    for (cl_uint i = 0; i < n && i < 8; i++) {
        char text[128] = "";
        clGetPlatformInfo(list[i], CL_PLATFORM_NAME, sizeof text, text, NULL);
        if (whole ? strcmp(text, name) == 0 : strstr(text, name) != NULL)
            return list[i];
    }
    return NULL;
}

#endif
