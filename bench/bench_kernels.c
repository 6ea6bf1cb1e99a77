/* Seven kernels real programs run (bench/bench_kernels.cl: tiled GEMM with local memory and barriers, tree
 * reduction, histogram with global atomics, 5-point stencil, exp·sin + cos/(1 + sqrt), 3 x 3 blur through read_imagef,
 * naive GEMM), each through both faces of zefake (Level Zero from the SPIR-V, OpenCL from the OpenCL C through
 * ocl-icd) and PoCL's OpenCL platform when installed, beside the same loop in native C in this process. Every result
 * is checked against its C twin. The C twin and the faces run in rounds, each contender once per round (an untimed
 * launch, then a timed one), so that the machine's drift moves them alike. Prints, per kernel and face, the tier that
 * ran under ZEFAKE_EXEC (default auto: the engine's debug log says, which this program reads from its own stderr), the
 * fastest timed launch and its ratio to the C twin's fastest (one host thread; the engine uses every core).
 * Usage: zefake-bench-kernels [--quick] [kernel...] (only the kernels named, e.g. zb_blur; ZB_KERNEL_DIR names the
 * SPIR-V, ZB_KERNEL_SOURCE the .cl file, ZB_REPEATS the rounds, default 5, and 1 with --quick). */
#include <level_zero/ze_api.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ZB_PROGRAM "zefake-bench-kernels"
#include "zb_bench.h"
#include "zb_kernels.h"

#ifdef ZB_OPENCL
#include "zb_opencl.h"
#endif

enum { ZB_ARG_BUF, ZB_ARG_U32, ZB_ARG_IMAGE, ZB_ARG_SAMPLER };

typedef struct zb_arg {
    int kind;
    uint32_t value; /* ZB_ARG_BUF: the buffer's index; ZB_ARG_U32: the value */
} zb_arg;

typedef struct zb_case zb_case;
struct zb_case {
    const char *name, *shape;
    uint32_t global[2], local[2];
    uint32_t n;            /* the problem's side or length */
    size_t bytes[3];       /* buffers: 0.. inputs (the image's texels for the blur), `out` the result */
    uint32_t buffers, out; /* how many, which one holds the result */
    bool zero_out;         /* the result buffer starts at zero for every launch (reductions) */
    zb_arg args[5];
    uint32_t num_args;
    float tolerance; /* 0: results must be equal bit for bit */
    void (*twin)(const zb_case *c, void *const *in, void *out);
    void *host[3]; /* inputs, filled once */
    void *want;    /* the C twin's result */
};

static uint64_t zb_seed = 0x9e3779b97f4a7c15ull;

static uint32_t zb_random(void) {
    zb_seed = zb_seed * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(zb_seed >> 33);
}

/* ------------------------------------------------------------------------------------------------------------------
 * C twins (small integers keep every float sum exact, so GEMMs and the stencil agree bit for bit) */

static void zb_twin_gemm(const zb_case *c, void *const *in, void *out) {
    zb_gemm_loop(c->n, in[0], in[1], out);
}

static void zb_twin_reduce(const zb_case *c, void *const *in, void *out) {
    const uint32_t *v = in[0];
    uint32_t sum = 0;
    for (uint32_t i = 0; i < c->n; i++)
        sum += v[i];
    *(uint32_t *)out = sum;
}

static void zb_twin_histogram(const zb_case *c, void *const *in, void *out) {
    const uint32_t *v = in[0];
    uint32_t *bins = out;
    memset(bins, 0, 256 * sizeof *bins);
    for (uint32_t i = 0; i < c->n; i++)
        bins[v[i] & 255u]++;
}

static void zb_twin_stencil(const zb_case *c, void *const *in, void *out) {
    const float *g = in[0];
    float *o = out;
    uint32_t n = c->n;
    for (uint32_t y = 0; y < n; y++)
        for (uint32_t x = 0; x < n; x++) {
            size_t i = (size_t)y * n + x;
            o[i] = x == 0 || y == 0 || x == n - 1 || y == n - 1
                       ? g[i]
                       : 4.0f * g[i] - g[i - 1] - g[i + 1] - g[i - n] - g[i + n];
        }
}

static void zb_twin_math(const zb_case *c, void *const *in, void *out) {
    const float *v = in[0];
    float *o = out;
    for (uint32_t i = 0; i < c->n; i++)
        o[i] = expf(v[i]) * sinf(v[i]) + cosf(v[i]) / (1.0f + sqrtf(v[i]));
}

static void zb_twin_blur(const zb_case *c, void *const *in, void *out) {
    const float *t = in[0];
    float *o = out;
    int n = (int)c->n;
    for (int y = 0; y < n; y++)
        for (int x = 0; x < n; x++)
            for (int k = 0; k < 4; k++) {
                float sum = 0.0f;
                for (int dy = -1; dy <= 1; dy++)
                    for (int dx = -1; dx <= 1; dx++) {
                        int sx = x + dx < 0 ? 0 : x + dx >= n ? n - 1 : x + dx;
                        int sy = y + dy < 0 ? 0 : y + dy >= n ? n - 1 : y + dy;
                        sum += t[((size_t)sy * n + sx) * 4 + k];
                    }
                o[((size_t)y * n + x) * 4 + k] = sum / 9.0f;
            }
}

/* ------------------------------------------------------------------------------------------------------------------
 * The cases */

static void *zb_alloc(size_t bytes) {
    void *p = calloc(1, bytes);
    if (p == NULL)
        zb_fail("calloc", "out of memory");
    return p;
}

static void zb_fill_small_floats(float *v, size_t count, int span) {
    for (size_t i = 0; i < count; i++)
        v[i] = (float)(int)(zb_random() % (uint32_t)span) - (float)(span / 2);
}

static void zb_case_prepare(zb_case *c) {
    for (uint32_t b = 0; b < c->buffers; b++) {
        c->host[b] = zb_alloc(c->bytes[b]);
        if (b == c->out)
            continue;
        if (strcmp(c->name, "zb_math") == 0) {
            float *v = c->host[b];
            for (size_t i = 0; i < c->bytes[b] / 4; i++)
                v[i] = (float)(zb_random() % 4000u) / 1000.0f; /* 0..4: exp and sqrt defined, no overflow */
        } else if (strcmp(c->name, "zb_reduce") == 0 || strcmp(c->name, "zb_histogram") == 0) {
            uint32_t *v = c->host[b];
            for (size_t i = 0; i < c->bytes[b] / 4; i++)
                v[i] = zb_random();
        } else {
            zb_fill_small_floats(c->host[b], c->bytes[b] / 4, 9);
        }
    }
    c->want = zb_alloc(c->bytes[c->out]);
}

static bool zb_case_matches(const zb_case *c, const void *got) {
    if (c->tolerance == 0.0f)
        return memcmp(got, c->want, c->bytes[c->out]) == 0;
    const float *g = got, *w = c->want;
    for (size_t i = 0; i < c->bytes[c->out] / 4; i++)
        if (!(fabsf(g[i] - w[i]) <= c->tolerance * (1.0f + fabsf(w[i]))))
            return false;
    return true;
}

static void zb_cases(bool quick, zb_case *cases) {
    uint32_t side = quick ? 64 : 256, items = quick ? 1u << 18 : 1u << 22, grid = quick ? 512 : 2048;
    uint32_t image = quick ? 128 : 512;
    size_t square = (size_t)side * side * 4;
    cases[0] = (zb_case){"zb_gemm_tiled",
                         "fp32 n^3, 16x16 tiles",
                         {side, side},
                         {16, 16},
                         side,
                         {square, square, square},
                         3,
                         2,
                         false,
                         {{ZB_ARG_BUF, 0}, {ZB_ARG_BUF, 1}, {ZB_ARG_BUF, 2}, {ZB_ARG_U32, side}},
                         4,
                         0.0f,
                         zb_twin_gemm,
                         {NULL, NULL, NULL},
                         NULL};
    cases[1] = (zb_case){"zb_reduce",
                         "uints",
                         {items, 1},
                         {256, 1},
                         items,
                         {(size_t)items * 4, 4},
                         2,
                         1,
                         true,
                         {{ZB_ARG_BUF, 0}, {ZB_ARG_BUF, 1}},
                         2,
                         0.0f,
                         zb_twin_reduce,
                         {NULL, NULL, NULL},
                         NULL};
    cases[2] = (zb_case){"zb_histogram",
                         "uints, 256 bins",
                         {items, 1},
                         {256, 1},
                         items,
                         {(size_t)items * 4, 1024},
                         2,
                         1,
                         true,
                         {{ZB_ARG_BUF, 0}, {ZB_ARG_BUF, 1}},
                         2,
                         0.0f,
                         zb_twin_histogram,
                         {NULL, NULL, NULL},
                         NULL};
    size_t cells = (size_t)grid * grid * 4;
    cases[3] = (zb_case){"zb_stencil",
                         "5-point, n^2",
                         {grid, grid},
                         {16, 16},
                         grid,
                         {cells, cells},
                         2,
                         1,
                         false,
                         {{ZB_ARG_BUF, 0}, {ZB_ARG_BUF, 1}, {ZB_ARG_U32, grid}},
                         3,
                         0.0f,
                         zb_twin_stencil,
                         {NULL, NULL, NULL},
                         NULL};
    cases[4] = (zb_case){"zb_math",
                         "exp*sin+cos/(1+sqrt), floats",
                         {items, 1},
                         {256, 1},
                         items,
                         {(size_t)items * 4, (size_t)items * 4},
                         2,
                         1,
                         false,
                         {{ZB_ARG_BUF, 0}, {ZB_ARG_BUF, 1}},
                         2,
                         1e-5f,
                         zb_twin_math,
                         {NULL, NULL, NULL},
                         NULL};
    size_t texels = (size_t)image * image * 16;
    cases[5] = (zb_case){"zb_blur",
                         "3x3, RGBA32F n^2 image",
                         {image, image},
                         {16, 16},
                         image,
                         {texels, texels},
                         2,
                         1,
                         false,
                         {{ZB_ARG_IMAGE, 0}, {ZB_ARG_SAMPLER, 0}, {ZB_ARG_BUF, 1}, {ZB_ARG_U32, image}},
                         4,
                         1e-5f,
                         zb_twin_blur,
                         {NULL, NULL, NULL},
                         NULL};
    cases[6] = (zb_case){"zb_gemm",
                         "fp32 n^3, naive",
                         {side, side},
                         {16, 16},
                         side,
                         {square, square, square},
                         3,
                         2,
                         false,
                         {{ZB_ARG_BUF, 0}, {ZB_ARG_BUF, 1}, {ZB_ARG_BUF, 2}, {ZB_ARG_U32, side}},
                         4,
                         0.0f,
                         zb_twin_gemm,
                         {NULL, NULL, NULL},
                         NULL};
}

/* ------------------------------------------------------------------------------------------------------------------
 * Which tier ran: the engine's debug log (ZEFAKE_LOG=debug), which goes to this program's stderr, a file */

static FILE *zb_log;
static int zb_stderr = -1;

/* At exit: what the log holds besides the engine's debug and info lines goes to the real stderr. */
static void zb_log_flush(void) {
    char line[1024];
    fflush(stderr);
    rewind(zb_log);
    while (fgets(line, sizeof line, zb_log) != NULL)
        if (strncmp(line, "zefake: debug:", 14) != 0 && strncmp(line, "zefake: info:", 13) != 0)
            (void)!write(zb_stderr, line, strlen(line));
}

static void zb_log_start(void) {
    if (getenv("ZEFAKE_LOG") == NULL)
        setenv("ZEFAKE_LOG", "debug", 1);
    zb_log = tmpfile();
    zb_stderr = dup(STDERR_FILENO);
    if (zb_log == NULL || zb_stderr < 0 || dup2(fileno(zb_log), STDERR_FILENO) < 0)
        zb_fail("stderr", "cannot capture it");
    atexit(zb_log_flush);
}

static long zb_log_mark(void) {
    fflush(stderr);
    return lseek(STDERR_FILENO, 0, SEEK_END);
}

/* The tier the log says kernel `name` got since `mark`. */
static const char *zb_log_tier(const char *name, long mark) {
    char line[1024], compiled[160], interpreted[160];
    snprintf(compiled, sizeof compiled, "kernel '%s': compiled in", name);
    snprintf(interpreted, sizeof interpreted, "kernel '%s': runs in the interpreter", name);
    const char *tier = "interpreter";
    char path[64];
    fflush(stderr);
    snprintf(path, sizeof path, "/proc/self/fd/%d", fileno(zb_log));
    FILE *f = fopen(path, "r"); /* an offset of its own: stderr goes on writing at the end */
    if (f == NULL)
        return "unknown";
    fseek(f, mark, SEEK_SET);
    while (fgets(line, sizeof line, f) != NULL) {
        if (strstr(line, compiled) != NULL)
            tier = "compiled";
        else if (strstr(line, interpreted) != NULL)
            tier = "interpreter";
    }
    fclose(f);
    return tier;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Level Zero */

typedef struct zb_ze {
    ze_context_handle_t context;
    ze_device_handle_t device;
    ze_command_list_handle_t list;
} zb_ze;

static ze_image_handle_t zb_ze_image(zb_ze *z, const zb_case *c) {
    ze_image_desc_t desc = {.stype = ZE_STRUCTURE_TYPE_IMAGE_DESC,
                            .flags = 0,
                            .type = ZE_IMAGE_TYPE_2D,
                            .format = {ZE_IMAGE_FORMAT_LAYOUT_32_32_32_32, ZE_IMAGE_FORMAT_TYPE_FLOAT,
                                       ZE_IMAGE_FORMAT_SWIZZLE_R, ZE_IMAGE_FORMAT_SWIZZLE_G, ZE_IMAGE_FORMAT_SWIZZLE_B,
                                       ZE_IMAGE_FORMAT_SWIZZLE_A},
                            .width = c->n,
                            .height = c->n,
                            .depth = 1};
    ze_image_handle_t image = NULL;
    zb_check(zeImageCreate(z->context, z->device, &desc, &image), "zeImageCreate");
    zb_check(zeCommandListAppendImageCopyFromMemory(z->list, image, c->host[0], NULL, NULL, 0, NULL),
             "zeCommandListAppendImageCopyFromMemory");
    return image;
}

static ze_sampler_handle_t zb_ze_sampler(zb_ze *z) {
    ze_sampler_desc_t desc = {ZE_STRUCTURE_TYPE_SAMPLER_DESC, NULL, ZE_SAMPLER_ADDRESS_MODE_CLAMP,
                              ZE_SAMPLER_FILTER_MODE_NEAREST, false};
    ze_sampler_handle_t sampler = NULL;
    zb_check(zeSamplerCreate(z->context, z->device, &desc, &sampler), "zeSamplerCreate");
    return sampler;
}

/* A kernel ready to launch through Level Zero: its buffers, module, kernel and arguments. */
typedef struct zb_ze_launch {
    void *buf[3];
    ze_module_handle_t module;
    ze_kernel_handle_t kernel;
    ze_image_handle_t image;
    ze_sampler_handle_t sampler;
    ze_group_count_t groups;
    const char *tier;
} zb_ze_launch;

/* One launch, its time. */
static double zb_ze_once(zb_ze *z, const zb_case *c, zb_ze_launch *l) {
    if (c->zero_out)
        memset(l->buf[c->out], 0, c->bytes[c->out]);
    return zb_launch_ns(z->list, l->kernel, &l->groups, 1);
}

/* The buffers, the kernel with its arguments, and a first launch (untimed: it compiles under the compiled tier),
 * which says the tier. */
static void zb_ze_start(zb_ze *z, const zb_case *c, zb_ze_launch *l) {
    *l = (zb_ze_launch){.groups = {c->global[0] / c->local[0], c->global[1] / c->local[1], 1}};
    ze_host_mem_alloc_desc_t hdesc = {ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, NULL, 0};
    for (uint32_t b = 0; b < c->buffers; b++) {
        zb_check(zeMemAllocHost(z->context, &hdesc, c->bytes[b], 64, &l->buf[b]), "zeMemAllocHost");
        memcpy(l->buf[b], c->host[b], c->bytes[b]);
    }
    long mark = zb_log_mark(); /* the cache may be looked in when the group size is set */
    l->kernel = zb_spirv_kernel(z->context, z->device, "bench_kernels", c->name, c->local, &l->module);
    for (uint32_t i = 0; i < c->num_args; i++) {
        const zb_arg *a = &c->args[i];
        if (a->kind == ZB_ARG_BUF)
            zb_check(zeKernelSetArgumentValue(l->kernel, i, sizeof l->buf[a->value], &l->buf[a->value]),
                     "buffer argument");
        else if (a->kind == ZB_ARG_U32)
            zb_check(zeKernelSetArgumentValue(l->kernel, i, sizeof a->value, &a->value), "value argument");
        else if (a->kind == ZB_ARG_IMAGE && (l->image = zb_ze_image(z, c)) != NULL)
            zb_check(zeKernelSetArgumentValue(l->kernel, i, sizeof l->image, &l->image), "image argument");
        else if (a->kind == ZB_ARG_SAMPLER && (l->sampler = zb_ze_sampler(z)) != NULL)
            zb_check(zeKernelSetArgumentValue(l->kernel, i, sizeof l->sampler, &l->sampler), "sampler argument");
    }
    zb_ze_once(z, c, l);
    l->tier = zb_log_tier(c->name, mark);
}

/* Whether the last launch's result is the C twin's; everything freed. */
static bool zb_ze_finish(zb_ze *z, const zb_case *c, zb_ze_launch *l) {
    bool ok = zb_case_matches(c, l->buf[c->out]);
    zb_check(zeKernelDestroy(l->kernel), "zeKernelDestroy");
    zb_check(zeModuleDestroy(l->module), "zeModuleDestroy");
    if (l->image != NULL)
        zb_check(zeImageDestroy(l->image), "zeImageDestroy");
    if (l->sampler != NULL)
        zb_check(zeSamplerDestroy(l->sampler), "zeSamplerDestroy");
    for (uint32_t b = 0; b < c->buffers; b++)
        zb_check(zeMemFree(z->context, l->buf[b]), "zeMemFree");
    return ok;
}

/* ------------------------------------------------------------------------------------------------------------------
 * OpenCL (zefake's platform and PoCL's, through ocl-icd) */

#ifdef ZB_OPENCL
typedef struct zb_cl {
    cl_context context;
    cl_command_queue queue;
    cl_program program;
    cl_device_id device;
} zb_cl;

static char *zb_cl_source(void) {
    const char *path = getenv("ZB_KERNEL_SOURCE");
    FILE *f = path != NULL ? fopen(path, "rb") : NULL;
    if (f == NULL)
        zb_fail("ZB_KERNEL_SOURCE", "cannot open the OpenCL C source");
    static char text[1 << 16];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    return text;
}

static bool zb_cl_open(zb_cl *o, const char *platform_name) {
    cl_platform_id platform = zb_cl_platform(platform_name, false);
    cl_int err;
    if (platform == NULL || clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &o->device, NULL) != CL_SUCCESS)
        return false;
    o->context = clCreateContext(NULL, 1, &o->device, NULL, NULL, &err);
    zb_cl_check(err, "clCreateContext");
    o->queue = clCreateCommandQueueWithProperties(o->context, o->device, NULL, &err);
    zb_cl_check(err, "clCreateCommandQueueWithProperties");
    const char *source = zb_cl_source();
    o->program = clCreateProgramWithSource(o->context, 1, &source, NULL, &err);
    zb_cl_check(err, "clCreateProgramWithSource");
    zb_cl_check(clBuildProgram(o->program, 1, &o->device, "-cl-std=CL2.0", NULL, NULL), "clBuildProgram");
    return true;
}

static void zb_cl_close(zb_cl *o) {
    clReleaseProgram(o->program);
    clReleaseCommandQueue(o->queue);
    clReleaseContext(o->context);
}

static cl_mem zb_cl_image(zb_cl *o, const zb_case *c) {
    cl_image_format format = {CL_RGBA, CL_FLOAT};
    cl_image_desc desc = {.image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = c->n, .image_height = c->n};
    cl_int err;
    cl_mem image = clCreateImage(o->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, &format, &desc, c->host[0], &err);
    zb_cl_check(err, "clCreateImage");
    return image;
}

static void zb_cl_arg(zb_cl *o, const zb_case *c, cl_kernel kernel, uint32_t i, cl_mem *mem, cl_mem *image,
                      cl_sampler *sampler) {
    const zb_arg *a = &c->args[i];
    cl_int err = CL_SUCCESS;
    if (a->kind == ZB_ARG_BUF) {
        err = clSetKernelArg(kernel, i, sizeof mem[a->value], &mem[a->value]);
    } else if (a->kind == ZB_ARG_U32) {
        err = clSetKernelArg(kernel, i, sizeof a->value, &a->value);
    } else if (a->kind == ZB_ARG_IMAGE) {
        *image = zb_cl_image(o, c);
        err = clSetKernelArg(kernel, i, sizeof *image, image);
    } else {
        cl_sampler_properties props[] = {CL_SAMPLER_NORMALIZED_COORDS,
                                         CL_FALSE,
                                         CL_SAMPLER_ADDRESSING_MODE,
                                         CL_ADDRESS_CLAMP_TO_EDGE,
                                         CL_SAMPLER_FILTER_MODE,
                                         CL_FILTER_NEAREST,
                                         0};
        *sampler = clCreateSamplerWithProperties(o->context, props, &err);
        zb_cl_check(err, "clCreateSamplerWithProperties");
        err = clSetKernelArg(kernel, i, sizeof *sampler, sampler);
    }
    zb_cl_check(err, "clSetKernelArg");
}

/* A kernel ready to launch through an OpenCL platform: its buffers, kernel and arguments. */
typedef struct zb_cl_launch {
    cl_mem mem[3], image;
    cl_sampler sampler;
    cl_kernel kernel;
    const char *tier;
} zb_cl_launch;

/* One launch to its completion, its time. */
static double zb_cl_once(zb_cl *o, const zb_case *c, zb_cl_launch *l) {
    static const uint8_t zero[1024];
    if (c->zero_out)
        zb_cl_check(clEnqueueWriteBuffer(o->queue, l->mem[c->out], CL_TRUE, 0, c->bytes[c->out], zero, 0, NULL, NULL),
                    "clEnqueueWriteBuffer");
    size_t global[2] = {c->global[0], c->global[1]}, local[2] = {c->local[0], c->local[1]};
    uint64_t start = zb_now_ns();
    zb_cl_check(clEnqueueNDRangeKernel(o->queue, l->kernel, 2, NULL, global, local, 0, NULL, NULL),
                "clEnqueueNDRangeKernel");
    zb_cl_check(clFinish(o->queue), "clFinish");
    return (double)(zb_now_ns() - start);
}

/* The buffers, the kernel with its arguments, and a first launch (untimed), which says the tier. */
static void zb_cl_start(zb_cl *o, const zb_case *c, zb_cl_launch *l) {
    cl_int err;
    *l = (zb_cl_launch){0};
    for (uint32_t b = 0; b < c->buffers; b++) {
        l->mem[b] = clCreateBuffer(o->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, c->bytes[b], c->host[b], &err);
        zb_cl_check(err, "clCreateBuffer");
    }
    l->kernel = clCreateKernel(o->program, c->name, &err);
    zb_cl_check(err, "clCreateKernel");
    for (uint32_t i = 0; i < c->num_args; i++)
        zb_cl_arg(o, c, l->kernel, i, l->mem, &l->image, &l->sampler);
    long mark = zb_log_mark();
    zb_cl_once(o, c, l);
    l->tier = zb_log_tier(c->name, mark);
}

/* Whether the last launch's result is the C twin's; everything released. */
static bool zb_cl_finish(zb_cl *o, const zb_case *c, zb_cl_launch *l) {
    void *got = zb_alloc(c->bytes[c->out]);
    zb_cl_check(clEnqueueReadBuffer(o->queue, l->mem[c->out], CL_TRUE, 0, c->bytes[c->out], got, 0, NULL, NULL),
                "clEnqueueReadBuffer");
    bool ok = zb_case_matches(c, got);
    free(got);
    clReleaseKernel(l->kernel);
    for (uint32_t b = 0; b < c->buffers; b++)
        clReleaseMemObject(l->mem[b]);
    if (l->image != NULL)
        clReleaseMemObject(l->image);
    if (l->sampler != NULL)
        clReleaseSampler(l->sampler);
    return ok;
}
#endif

/* ------------------------------------------------------------------------------------------------------------------ */

static double zb_twin_once(zb_case *c) {
    uint64_t start = zb_now_ns();
    c->twin(c, c->host, c->want);
    __asm__ volatile("" ::"r"(c->want) : "memory");
    return (double)(zb_now_ns() - start);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Rounds: each contender (the C twin, each face) launched in turn, so that a machine that slows down or speeds up
 * between them (a virtual machine's neighbours) moves every contender's best alike */

enum { ZB_NATIVE, ZB_LEVEL_ZERO, ZB_OURS, ZB_POCL, ZB_CONTENDERS };
static const char *const zb_contender_names[ZB_CONTENDERS] = {"native C", "Level Zero", "OpenCL", "PoCL"};

typedef struct zb_rounds {
    zb_case *c;
    zb_ze *z;
    zb_ze_launch ze;
#ifdef ZB_OPENCL
    zb_cl *cl[2]; /* ours, PoCL's; NULL when absent */
    zb_cl_launch launch[2];
#endif
    bool in[ZB_CONTENDERS];
    double best[ZB_CONTENDERS];
} zb_rounds;

static double zb_contender_once(zb_rounds *w, int k) {
#ifdef ZB_OPENCL
    if (k == ZB_OURS || k == ZB_POCL)
        return zb_cl_once(w->cl[k - ZB_OURS], w->c, &w->launch[k - ZB_OURS]);
#endif
    return k == ZB_NATIVE ? zb_twin_once(w->c) : zb_ze_once(w->z, w->c, &w->ze);
}

/* Contender k's turn: a launch untimed, so that the timed one runs as a steady launch does (its own buffers in the
 * caches, its threads awake), then the timed one. */
static void zb_contender_turn(zb_rounds *w, int k) {
    zb_contender_once(w, k);
    double ns = zb_contender_once(w, k);
    w->best[k] = ns < w->best[k] ? ns : w->best[k];
}

/* `rounds` rounds, each starting with the next contender, so that none always follows the same one. */
static void zb_run_rounds(zb_rounds *w, int rounds) {
    for (int k = 0; k < ZB_CONTENDERS; k++)
        w->best[k] = INFINITY;
    for (int r = 0; r < rounds; r++)
        for (int i = 0; i < ZB_CONTENDERS; i++)
            if (w->in[(r + i) % ZB_CONTENDERS])
                zb_contender_turn(w, (r + i) % ZB_CONTENDERS);
}

static void zb_report(const zb_case *c, const char *face, bool ok, double ns, double native, const char *tier) {
    if (!ok) {
        fprintf(stderr, ZB_PROGRAM ": %s through %s: a result differs from the C twin's\n", c->name, face);
        exit(EXIT_FAILURE);
    }
    printf("  %-16s %-12s %10.2f ms  ratio %7.2f to native C\n", face, tier, ns / 1e6, ns / native);
}

/* Whether the command line names the kernel, or names none. */
static bool zb_chosen(const char *name, int count, char **names) {
    for (int i = 0; i < count; i++)
        if (strcmp(names[i], name) == 0)
            return true;
    return count <= 0;
}

int main(int argc, char **argv) {
    bool quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    int first = quick ? 2 : 1;
    const char *asked = getenv("ZB_REPEATS");
    int repeats = asked != NULL && atoi(asked) > 0 ? atoi(asked) : quick ? 1 : 5;
    setenv("ZEFAKE_BUILTINS", "0", 1);
    zb_log_start();
    zb_ze z;
    zb_kernel_session(&z.context, &z.device, &z.list);
#ifdef ZB_OPENCL
    zb_cl ours, pocl;
    bool have_ours = zb_cl_open(&ours, "zefake"), have_pocl = zb_cl_open(&pocl, "Portable Computing Language");
#endif
    const char *exec = getenv("ZEFAKE_EXEC");
    long cores = zb_host_cores();
    printf("ZEFAKE_EXEC=%s, %ld host threads for the engine, native C on one\n", exec != NULL ? exec : "auto", cores);
    zb_case cases[7];
    zb_cases(quick, cases);
    for (int k = 0; k < 7; k++) {
        zb_case *c = &cases[k];
        if (!zb_chosen(c->name, argc - first, argv + first))
            continue;
        zb_case_prepare(c);
        zb_rounds w = {.c = c, .z = &z, .in = {true, true}};
        zb_ze_start(&z, c, &w.ze);
#ifdef ZB_OPENCL
        zb_cl *faces[2] = {have_ours ? &ours : NULL, have_pocl ? &pocl : NULL};
        for (int f = 0; f < 2; f++)
            if ((w.cl[f] = faces[f]) != NULL) {
                w.in[ZB_OURS + f] = true;
                zb_cl_start(w.cl[f], c, &w.launch[f]);
            }
#endif
        zb_run_rounds(&w, repeats);
        double native = w.best[ZB_NATIVE];
        printf("%s (%s, n = %u): native C %.2f ms\n", c->name, c->shape, c->n, native / 1e6);
        zb_report(c, zb_contender_names[ZB_LEVEL_ZERO], zb_ze_finish(&z, c, &w.ze), w.best[ZB_LEVEL_ZERO], native,
                  w.ze.tier);
#ifdef ZB_OPENCL
        for (int f = 0; f < 2; f++)
            if (w.cl[f] != NULL)
                zb_report(c, zb_contender_names[ZB_OURS + f], zb_cl_finish(w.cl[f], c, &w.launch[f]),
                          w.best[ZB_OURS + f], native, f == 0 ? w.launch[f].tier : "PoCL");
        if (!have_pocl && k == 0)
            printf("  PoCL             not installed (pocl-opencl-icd): no ratio\n");
#else
        if (k == 0)
            printf("  OpenCL           not built (no OpenCL library found): no ratio\n");
#endif
        for (uint32_t b = 0; b < c->buffers; b++)
            free(c->host[b]);
        free(c->want);
    }
#ifdef ZB_OPENCL
    if (have_ours)
        zb_cl_close(&ours);
    if (have_pocl)
        zb_cl_close(&pocl);
#endif
    return 0;
}
