/* What the fuzz targets share: the driver's dispatch tables, small launches on the execution engine, and the
 * replay of saved inputs (zz_common.h). */
#include "zz_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Replay ---------------------------------------------------------------------------------------------------- */

static uint8_t *zz_read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    uint8_t *data = NULL;
    size_t used = 0, capacity = 0, got;
    do {
        if (used == capacity) {
            uint8_t *grown = realloc(data, capacity = capacity * 2 + 4096);
            if (grown == NULL)
                break;
            data = grown;
        }
        got = fread(data + used, 1, capacity - used, f);
        used += got;
    } while (got > 0);
    bool ok = !ferror(f) && feof(f);
    fclose(f);
    if (!ok) {
        free(data);
        return NULL;
    }
    *size = used;
    return data;
}

int zz_replay(int argc, char **argv, int (*one)(const uint8_t *data, size_t size)) {
    for (int i = 1; i < argc; i++) {
        size_t size = 0;
        uint8_t *data = zz_read_file(argv[i], &size);
        if (data == NULL) {
            fprintf(stderr, "%s: cannot read %s\n", argv[0], argv[i]);
            return 2;
        }
        one(data, size);
        free(data);
        printf("%s: ran %s (%zu bytes)\n", argv[0], argv[i], size);
    }
    return 0;
}

/* ---- The driver ------------------------------------------------------------------------------------------------ */

static zz_api zz_the_api;

static void zz_check(ze_result_t result, const char *what) {
    if (result != ZE_RESULT_SUCCESS) {
        fprintf(stderr, "fuzz target: %s failed (0x%x): the driver cannot start\n", what, (unsigned)result);
        abort();
    }
}

static void zz_tables(zz_api *a) {
    const ze_api_version_t v = ZE_API_VERSION_CURRENT;
    zz_check(zeGetGlobalProcAddrTable(v, &a->global), "zeGetGlobalProcAddrTable");
    zz_check(zeGetDriverProcAddrTable(v, &a->driver), "zeGetDriverProcAddrTable");
    zz_check(zeGetDeviceProcAddrTable(v, &a->device), "zeGetDeviceProcAddrTable");
    zz_check(zeGetContextProcAddrTable(v, &a->context), "zeGetContextProcAddrTable");
    zz_check(zeGetMemProcAddrTable(v, &a->mem), "zeGetMemProcAddrTable");
    zz_check(zeGetEventPoolProcAddrTable(v, &a->event_pool), "zeGetEventPoolProcAddrTable");
    zz_check(zeGetEventProcAddrTable(v, &a->event), "zeGetEventProcAddrTable");
    zz_check(zeGetModuleProcAddrTable(v, &a->module), "zeGetModuleProcAddrTable");
    zz_check(zeGetKernelProcAddrTable(v, &a->kernel), "zeGetKernelProcAddrTable");
    zz_check(zeGetCommandListProcAddrTable(v, &a->command_list), "zeGetCommandListProcAddrTable");
    zz_check(zeGetCommandQueueProcAddrTable(v, &a->command_queue), "zeGetCommandQueueProcAddrTable");
    zz_check(zeGetSamplerProcAddrTable(v, &a->sampler), "zeGetSamplerProcAddrTable");
    zz_check(zeGetImageProcAddrTable(v, &a->image), "zeGetImageProcAddrTable");
    zz_check(zetGetMetricGroupProcAddrTable(v, &a->metric_group), "zetGetMetricGroupProcAddrTable");
    zz_check(zetGetMetricGroupExpProcAddrTable(v, &a->metric_group_exp), "zetGetMetricGroupExpProcAddrTable");
    zz_check(zetGetMetricProcAddrTable(v, &a->metric), "zetGetMetricProcAddrTable");
}

static void zz_start(zz_api *a) {
    /* Every refused input would otherwise print a warning: quiet unless the user asks (docs/environment.md). */
    setenv("ZEFAKE_LOG", "none", 0);
    zz_tables(a);
    zz_check(a->global.pfnInit(0), "zeInit");
    uint32_t count = 1;
    zz_check(a->driver.pfnGet(&count, &a->hdriver), "zeDriverGet");
    count = 1;
    zz_check(a->device.pfnGet(a->hdriver, &count, &a->hdevice), "zeDeviceGet");
    ze_context_desc_t desc = {.stype = ZE_STRUCTURE_TYPE_CONTEXT_DESC};
    zz_check(a->context.pfnCreate(a->hdriver, &desc, &a->hcontext), "zeContextCreate");
}

const zz_api *zz_api_get(void) {
    static bool started;
    if (!started) {
        zz_start(&zz_the_api);
        started = true;
    }
    return &zz_the_api;
}

/* ---- Input bytes ----------------------------------------------------------------------------------------------- */

uint8_t zz_take8(zz_bytes *bytes) {
    return bytes->at < bytes->size ? bytes->data[bytes->at++] : 0;
}

uint32_t zz_take32(zz_bytes *bytes) {
    uint32_t value = 0;
    for (int i = 0; i < 4; i++)
        value |= (uint32_t)zz_take8(bytes) << (8 * i);
    return value;
}

/* ---- Small launches -------------------------------------------------------------------------------------------- */

#define ZZ_HANG_TIMEOUT_NS (20u * 1000u * 1000u)
#define ZZ_MAX_ARGS        16u
#define ZZ_BUFFERS         4u
#define ZZ_BUFFER_SIZE     256u
#define ZZ_VALUE_MAX       64u
#define ZZ_LANE_BYTES_MAX  (64u * 1024u)

/* The allocations of a launch: a few small buffers, nothing else reachable (like the engine's unit tests). */
typedef struct zz_memory {
    uint8_t buffers[ZZ_BUFFERS][ZZ_BUFFER_SIZE] __attribute__((aligned(64)));
} zz_memory;

static zf_mem_kind zz_lookup(void *user, uintptr_t ptr, size_t size, zf_mem_info *out) {
    zz_memory *mem = user;
    for (unsigned i = 0; i < ZZ_BUFFERS; i++) {
        uintptr_t lo = (uintptr_t)mem->buffers[i], hi = lo + ZZ_BUFFER_SIZE;
        if (ptr >= lo && ptr < hi && size <= hi - ptr) {
            *out = (zf_mem_info){.base = lo, .size = ZZ_BUFFER_SIZE, .guard_end = hi};
            return ZF_MEM_INSIDE;
        }
        if (ptr < hi && ptr + size > lo)
            return ZF_MEM_OVERRUN;
    }
    return ZF_MEM_UNKNOWN;
}

/* One argument: pointers name one of the buffers (or NULL), values take their bytes from the input. */
static bool zz_argument(const zf_spirv_arg *arg, zz_memory *mem, zz_bytes *choices, uint8_t *storage, zf_xarg *out) {
    uint8_t pick = zz_take8(choices);
    switch (arg->kind) {
    case ZF_SPIRV_ARG_POINTER: {
        uintptr_t address = pick % (ZZ_BUFFERS + 1) == ZZ_BUFFERS ? 0 : (uintptr_t)mem->buffers[pick % ZZ_BUFFERS];
        memcpy(storage, &address, sizeof address);
        *out = (zf_xarg){ZF_XARG_VALUE, storage, 8};
        return true;
    }
    case ZF_SPIRV_ARG_LOCAL:
        *out = (zf_xarg){ZF_XARG_LOCAL, NULL, 1 + pick % ZZ_BUFFER_SIZE};
        return true;
    case ZF_SPIRV_ARG_VALUE:
        if (arg->size == 0 || arg->size > ZZ_VALUE_MAX)
            return false;
        for (uint64_t i = 0; i < arg->size; i++)
            storage[i] = zz_take8(choices);
        *out = (zf_xarg){arg->byval ? ZF_XARG_BYVAL : ZF_XARG_VALUE, storage, arg->size};
        return true;
    default:
        return false; /* images, samplers and opaque handles need the driver's objects */
    }
}

/* Per-lane and per-group memory a launch needs stays small (the driver bounds it by the scenario's limits). */
static bool zz_form_small(const zf_dprog *prog, uint32_t kernel) {
    zf_form_stats stats;
    zf_form_kernel_stats(prog, kernel, &stats);
    return stats.frame_bytes + (uint64_t)stats.private_bytes <= ZZ_LANE_BYTES_MAX &&
           stats.const_bytes <= ZZ_LANE_BYTES_MAX && stats.wave_bytes <= ZZ_LANE_BYTES_MAX &&
           prog->kernels[kernel].static_local_bytes <= ZZ_LANE_BYTES_MAX;
}

static uint32_t zz_kernel_index(const zf_spirv_module *module, const zf_spirv_kernel *k) {
    return (uint32_t)(k - zf_spirv_kernel_at(module, 0));
}

void zz_launch_small(const zf_spirv_module *module, const zf_dprog *prog, zz_bytes *choices) {
    uint32_t count = zf_spirv_kernel_count(module);
    if (count == 0 || count != prog->num_kernels)
        return;
    const zf_spirv_kernel *k = zf_spirv_kernel_at(module, zz_take8(choices) % count);
    uint32_t index = zz_kernel_index(module, k);
    if (k->num_args > ZZ_MAX_ARGS || !zz_form_small(prog, index))
        return;
    static zz_memory mem;
    memset(&mem, 0, sizeof mem);
    uint8_t storage[ZZ_MAX_ARGS][ZZ_VALUE_MAX] __attribute__((aligned(16)));
    zf_xarg args[ZZ_MAX_ARGS];
    for (uint32_t i = 0; i < k->num_args; i++)
        if (!zz_argument(&k->args[i], &mem, choices, storage[i], &args[i]))
            return;
    uint32_t local = k->has_local_size ? k->local_size[0] : 1u + zz_take8(choices) % 8u;
    if (local == 0 || local > 8 || (k->has_local_size && (k->local_size[1] != 1 || k->local_size[2] != 1)))
        return;
    uint32_t subgroup = k->subgroup_size ? k->subgroup_size : 8u << zz_take8(choices) % 2;
    if (subgroup != 8 && subgroup != 16 && subgroup != 32)
        return; /* the driver refuses sub-group sizes the device does not have */
    /* Relocated addresses stay 0: globals and function pointers then fault like any unknown address. */
    uint64_t *relocs = calloc(prog->num_relocs + 1u, sizeof *relocs);
    if (relocs == NULL)
        return;
    zf_exec_env env = {.user = &mem, .lookup = zz_lookup};
    zf_xlaunch launch = {.program = {prog, relocs, prog, NULL, 0},
                         .kernel = index,
                         .name = k->name,
                         .num_args = k->num_args,
                         .args = args,
                         .group_size = {local, 1, 1},
                         .groups = {1 + zz_take8(choices) % 2, 1, 1},
                         .subgroup_size = subgroup,
                         .env = &env,
                         .max_threads = 1,
                         .hang_timeout_ns = ZZ_HANG_TIMEOUT_NS};
    zf_xresult result;
    zf_spirv_execute(&launch, &result);
    free(relocs);
}
