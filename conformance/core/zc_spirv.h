/* Helpers shared by the SPIR-V execution tests (test_spirv_exec.c, test_spirv_memory.c, test_spirv_tools.c): a
 * fixture with a context, a synchronous immediate list and the test kernels' modules made on first use, and launches
 * with host-allocated buffers so that results are read back directly. Each test executable includes it once. */
#ifndef ZC_SPIRV_H
#define ZC_SPIRV_H

#include "zc_exec.h"
#include "zc_kernel_files.h"

#include <math.h>
#include <string.h>

#define ZC_MAX_MODULES 24

typedef struct zc_sx {
    zc_exec x;
    ze_command_list_handle_t list; /* synchronous immediate list on the compute group */
    const char *names[ZC_MAX_MODULES];
    ze_module_handle_t modules[ZC_MAX_MODULES];
    uint32_t num_modules;
} zc_sx;

/* Test fixture (zc_spirv.c): *state becomes a zc_sx; the teardown destroys the modules the test made. */
int zc_setup_spirv(void **state);
int zc_teardown_spirv(void **state);

/* The module of a test kernel file, made once per test. */
static inline ze_module_handle_t zc_spirv_module(zc_sx *s, const char *file) {
    for (uint32_t i = 0; i < s->num_modules; i++)
        if (strcmp(s->names[i], file) == 0)
            return s->modules[i];
    assert_true(s->num_modules < ZC_MAX_MODULES);
    s->names[s->num_modules] = file;
    s->modules[s->num_modules] = zc_module_create(s->x.context, s->x.device, file);
    return s->modules[s->num_modules++];
}

/* A kernel argument: `size` bytes at `value` (pointers: the address of the pointer). */
typedef struct zc_arg {
    size_t size;
    const void *value;
} zc_arg;

#define ZC_PTR(p)   ((zc_arg){sizeof(void *), &(p)})
#define ZC_VAL(v)   ((zc_arg){sizeof(v), &(v)})
#define ZC_LOCAL(n) ((zc_arg){(n), NULL})

/* Runs kernel `name` of `file` over global size g0 x g1 in groups of l0 x l1 and waits for it; returns the result of
 * the append (the launch itself is synchronous). */
static inline ze_result_t zc_spirv_run2(zc_sx *s, const char *file, const char *name, uint32_t g0, uint32_t g1,
                                        uint32_t l0, uint32_t l1, const zc_arg *args, uint32_t n) {
    ze_kernel_handle_t kernel = zc_kernel_create(zc_spirv_module(s, file), name);
    for (uint32_t i = 0; i < n; i++)
        zc_assert_success(zeKernelSetArgumentValue(kernel, i, args[i].size, args[i].value));
    zc_assert_success(zeKernelSetGroupSize(kernel, l0, l1, 1));
    ze_group_count_t groups = {g0 / l0, g1 / l1, 1};
    ze_result_t result = zeCommandListAppendLaunchKernel(s->list, kernel, &groups, NULL, 0, NULL);
    zc_assert_success(zeKernelDestroy(kernel));
    return result;
}

static inline void zc_spirv_run(zc_sx *s, const char *file, const char *name, uint32_t global, uint32_t local,
                                const zc_arg *args, uint32_t n) {
    zc_assert_success(zc_spirv_run2(s, file, name, global, 1, local, 1, args, n));
}

/* Building SPIR-V `spirv` (named `name`) fails with MODULE_BUILD_FAILURE and a log naming `what` and a word offset. */
static inline void zc_spirv_refused(zc_sx *s, const char *name, zc_spirv spirv, const char *what) {
    ze_module_handle_t module = NULL;
    ze_module_build_log_handle_t log = NULL;
    zc_assert_result(zc_module_from(s->x.context, s->x.device, ZE_MODULE_FORMAT_IL_SPIRV, spirv.data, spirv.size, NULL,
                                    NULL, &module, &log),
                     ZE_RESULT_ERROR_MODULE_BUILD_FAILURE);
    assert_null(module);
    char *text = zc_build_log_text(log);
    if (strstr(text, what) == NULL || strstr(text, "word ") == NULL)
        zc_fail("%s: the build log does not name %s and where it is:\n%s", name, what, text);
    free(text);
    zc_assert_success(zeModuleBuildLogDestroy(log));
}

/* Building test kernel `file` fails as zc_spirv_refused says. */
static inline void zc_build_refused(zc_sx *s, const char *file, const char *what) {
    zc_spirv spirv = zc_load_spirv(file);
    zc_spirv_refused(s, file, spirv, what);
    free(spirv.data);
}

/* A host allocation of the context, zero-filled. */
static inline void *zc_spirv_buffer(zc_sx *s, size_t size) {
    void *p = zc_host_alloc(&s->x, size);
    memset(p, 0, size);
    return p;
}

/* A deterministic generator for inputs. */
static inline uint64_t zc_rand(uint64_t *state) {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return *state;
}

/* IEEE half precision, round to nearest even: what a device computes half arithmetic with. */
static inline float zc_half_to_float(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1Fu, mant = h & 0x3FFu;
    float f = exp == 0    ? ldexpf((float)mant, -24)
              : exp == 31 ? (mant ? NAN : INFINITY)
                          : ldexpf(1024.0f + mant, (int)exp - 25);
    return sign ? -f : f;
}

static inline uint16_t zc_float_to_half(float f) {
    uint32_t bits;
    memcpy(&bits, &f, 4);
    uint16_t sign = (uint16_t)((bits >> 16) & 0x8000u);
    float a = fabsf(f);
    if (isnan(f))
        return (uint16_t)(sign | 0x7E00u);
    if (a >= 65520.0f)
        return (uint16_t)(sign | 0x7C00u);
    if (a < ldexpf(1.0f, -14)) { /* subnormal: multiples of 2^-24 */
        float q = nearbyintf(ldexpf(a, 24));
        return (uint16_t)(sign | (uint16_t)q);
    }
    int e;
    frexpf(a, &e);                           /* a = m * 2^e, m in [0.5, 1) */
    float q = nearbyintf(ldexpf(a, 11 - e)); /* 11 significant bits */
    if (q >= 2048.0f) {
        q /= 2;
        e++;
    }
    return (uint16_t)(sign | (uint16_t)((e + 14) << 10) | ((uint16_t)q & 0x3FFu));
}

#endif
