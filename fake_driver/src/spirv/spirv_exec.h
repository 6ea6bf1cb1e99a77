/* The execution engine of SPIR-V kernels, as the driver uses it (module.c decodes, kernel.c launches).
 *
 *   zf_spirv_decode   the specialized module -> the decoded form (spirv_form.h), once per zeModuleCreate; an
 *                     instruction the engine does not implement fails here, naming its opcode and word offset.
 *   zf_spirv_execute  one launch: work-groups are packed into waves (one or more whole groups whose work-items are the
 *                     lanes of one instruction stream), waves spread over worker threads.
 *
 * Like the reader, the engine knows nothing of handles: memory lookups, function-pointer resolution and annotation
 * delivery are services the caller passes in (zf_exec_env), so unit tests can run it on their own. */
#ifndef ZF_SPIRV_EXEC_H
#define ZF_SPIRV_EXEC_H

#include "spirv.h"
#include "spirv_form.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Host mappings as /proc/self/maps lists them: how kernels decide that an address outside every allocation may be
 * accessed, and commands (copies, fills, timestamps, indirect arguments) too. */
typedef struct zf_host_mapping {
    uintptr_t lo, hi;
    bool readable, writable;
    bool usm; /* a zefake allocation's memfd (docs/memory.md) */
} zf_host_mapping;

/* /proc/self/maps as a malloc'ed string (the caller frees it), or NULL. */
char *zf_host_maps_read(void);
/* The mapping of `maps` holding `addr`; false when none does. */
bool zf_host_maps_find(const char *maps, uintptr_t addr, zf_host_mapping *out);
/* NULL when every byte of [ptr, ptr + size) is mapped readable (and writable when `write`), in one mapping or in
 * several that follow each other; otherwise why not ("not mapped", "mapped without write access"...). One system
 * call per 64 pages (the kernel reads a byte of each page for the process, and fails instead of raising a signal);
 * /proc/self/maps is read only to explain a refusal, or where a sandbox forbids that call. */
const char *zf_host_range_unusable(const void *ptr, size_t size, bool write);

/* SpecId of the ITT annotations constant (docs/spirv-execution.md, "Annotations"). */
#define ZF_SPIRV_ITT_SPEC_ID 0xFF747469u

typedef struct zf_decode_options {
    /* Calls of the __itt_offload_* wrappers deliver annotations (the ITT constant is non-zero); otherwise they
     * decode to nothing. */
    bool itt_enabled;
} zf_decode_options;

zf_spirv_status zf_spirv_decode(const zf_spirv_module *module, const zf_decode_options *options, zf_dprog **out,
                                zf_spirv_log *log);

/* Checks that a loaded form fits the module it came with (kernels, entry functions, parameters, globals, symbols):
 * native binaries carry both and a tool may have edited the form. */
bool zf_spirv_form_matches(const zf_spirv_module *module, const zf_dprog *prog, char *why, size_t why_size);

/* ------------------------------------------------------------------------------------------------------------------
 * Execution */

/* A program as the engine runs it: its form and the addresses of its relocations (resolved by the driver). */
typedef struct zf_xprogram {
    const zf_dprog *code;
    const uint64_t *relocs; /* code->num_relocs values */
    const void *owner;      /* the driver's program (identity for caching) */
    const void *globals;    /* storage of the module's globals (kernels may access it), NULL when none */
    size_t globals_size;
} zf_xprogram;

/* The driver's answer for a memory range a kernel touches. */
typedef enum zf_mem_kind {
    ZF_MEM_INSIDE = 0, /* inside one allocation: base/size/hold describe it */
    ZF_MEM_UNKNOWN,    /* outside every allocation of the context (maybe ordinary host memory) */
    ZF_MEM_OVERRUN,    /* overlaps an allocation without fitting in it */
    ZF_MEM_FREED,      /* touches a recently freed allocation */
    ZF_MEM_MAPPED,     /* inside mapped virtual memory: base/size give a range of one access (read_only) */
    ZF_MEM_UNMAPPED,   /* touches virtual memory that is not mapped, or mapped without access */
} zf_mem_kind;

typedef struct zf_mem_info {
    uintptr_t base;
    size_t size;
    uintptr_t guard_end; /* the allocation's mapping ends here: [base + size, guard_end) is out of bounds */
    void *hold;          /* released with env->release at the end of the launch */
    bool read_only;      /* ZF_MEM_MAPPED: stores fault */
} zf_mem_info;

/* An image argument as the engine reads and writes it (the driver describes it at launch). Enumerations use the
 * numbering of Level Zero's ze_image_type_t, ze_image_format_layout_t, ze_image_format_type_t and
 * ze_image_format_swizzle_t; a media layout is not readable by kernels. */
typedef struct zf_ximage {
    uint8_t *base; /* the first byte of the (first plane's) texels */
    uint64_t size; /* bytes reachable from base */
    uint32_t type;
    uint32_t layout;
    uint32_t channel_type;
    uint8_t swizzle[4];
    bool srgb;
    uint32_t width, height, depth, layers; /* 1 where the type has none */
    uint64_t row_pitch, slice_pitch;       /* bytes */
} zf_ximage;

/* A sampler: ze_sampler_address_mode_t, ze_sampler_filter_mode_t and normalized coordinates. */
typedef struct zf_xsampler {
    uint32_t address_mode;
    uint32_t filter_mode;
    bool normalized;
} zf_xsampler;

/* A sampler written in the kernel (OpConstantSampler) is a value with this bit set, not a handle: the fields follow in
 * the low bits (address mode, then filter mode << 8, then normalized << 16). */
#define ZF_INLINE_SAMPLER (1ull << 63)

/* An annotation taken by a work-item (ZF_ITT_*), with the arguments of the __itt_offload_* stubs. */
typedef struct zf_xannotation {
    uint32_t kind;
    const char *kernel;
    uint64_t group_id[3];
    uint64_t work_item;  /* the global linear id */
    uint32_t group_size; /* work-items per group */
    uint64_t local_id[3];
    uint64_t object; /* atomics: the address, operation type and memory order passed by the kernel */
    uint32_t op_type;
    uint32_t mem_order;
} zf_xannotation;

typedef struct zf_exec_env {
    void *user;
    zf_mem_kind (*lookup)(void *user, uintptr_t ptr, size_t size, zf_mem_info *out);
    void (*release)(void *user, void *hold);
    /* The program and function an address from zeModuleGetFunctionPointer (or a function-pointer constant) names;
     * the program stays alive until the launch ends. */
    bool (*resolve_function)(void *user, uint64_t address, zf_xprogram *program, uint32_t *function);
    /* May be NULL (annotations are then counted but not delivered). Called on worker threads, concurrently. */
    void (*annotate)(void *user, const zf_xannotation *annotation);
    /* The image or sampler a handle argument names; false when it names none (a null handle...). May be NULL. */
    bool (*image)(void *user, uint64_t handle, zf_ximage *out);
    bool (*sampler)(void *user, uint64_t handle, zf_xsampler *out);
    /* The device reaches ordinary host memory (shared system allocations): addresses outside every allocation are
     * then accessed as the process's mappings allow. Without it they fault. */
    bool system_memory;
    /* Receives the engine's debug-level messages (which tier runs a kernel, compile times). May be NULL. */
    void (*debug)(void *user, const char *text);
    /* Receives its warnings (a damaged entry of the compiled-code cache). May be NULL: they go to debug. */
    void (*warn)(void *user, const char *text);
    /* When set, an access past the end of an allocation that stays inside its mapping (the rest of its last page,
     * [base + size, guard_end)) is performed, as real GPUs do, and each thread running the launch calls this once,
     * with the work-item, the access and its offset in the allocation; when NULL, such an access faults. Called on
     * worker threads, concurrently. */
    void (*padding)(void *user, const char *text);
} zf_exec_env;

typedef enum zf_xarg_kind {
    ZF_XARG_VALUE = 0, /* bytes broadcast to every work-item */
    ZF_XARG_LOCAL,     /* local memory of `size` bytes per group */
    ZF_XARG_BYVAL,     /* a struct copied for each work-item, the parameter is a pointer to it */
} zf_xarg_kind;

typedef struct zf_xarg {
    zf_xarg_kind kind;
    const void *value;
    uint64_t size;
} zf_xarg;

typedef struct zf_xlaunch {
    zf_xprogram program;
    uint32_t kernel; /* index into program.code->kernels */
    const char *name;
    uint32_t num_args;
    const zf_xarg *args;
    uint32_t group_size[3];
    uint32_t groups[3];
    uint32_t offset[3];
    uint32_t work_dim; /* get_work_dim(): the dimensions the application gave; 0: derived by zf_work_dim */
    uint32_t subgroup_size;
    const zf_exec_env *env;
    uint32_t max_threads;     /* 0: as many as the host has cores */
    uint64_t hang_timeout_ns; /* host time the launch may run before it is stopped; 0: no limit */
} zf_xlaunch;

#define ZF_FAULT_TEXT_MAX 320

/* What a launch executed, summed over its work-items: the input of the cost model (docs/cost-model.md, "Kernels").
 * ops: decoded instructions of each class times the lanes that ran them (ALU and math ones once per vector
 * component); memory instructions include the atomics, which are also counted on their own. Bytes are those loads,
 * stores, copies and atomics moved, per address space. */
enum { ZF_SPACE_GLOBAL, ZF_SPACE_LOCAL, ZF_SPACE_PRIVATE, ZF_SPACE_COUNT };

typedef struct zf_work_counts {
    uint64_t ops[ZF_OPS_COUNT];
    uint64_t read[ZF_SPACE_COUNT];
    uint64_t written[ZF_SPACE_COUNT];
} zf_work_counts;

/* Adds b into a. */
static inline void zf_work_add(zf_work_counts *a, const zf_work_counts *b) {
    for (int k = 0; k < ZF_OPS_COUNT; k++)
        a->ops[k] += b->ops[k];
    for (int k = 0; k < ZF_SPACE_COUNT; k++) {
        a->read[k] += b->read[k];
        a->written[k] += b->written[k];
    }
}

typedef struct zf_xresult {
    uint64_t faults;                     /* work-items stopped by a fault */
    char first_fault[ZF_FAULT_TEXT_MAX]; /* the first fault, naming kernel, work-item and address */
    uint64_t lane_ops;                   /* decoded instructions times the lanes that executed them */
    zf_work_counts work;                 /* the same by class, and the bytes moved */
    uint64_t annotations[ZF_ITT_COUNT];  /* annotations taken, per kind */
    bool hung;                           /* stopped by the hang detector: work-items were left unfinished */
} zf_xresult;

/* Runs the launch to completion on the calling thread and the engine's workers. */
void zf_spirv_execute(const zf_xlaunch *launch, zf_xresult *result);

/* The host cores launches spread over: those of the calling thread's affinity mask (taskset, a container's cpuset),
 * the online count where the mask cannot be read. */
uint32_t zf_spirv_host_cores(void);

/* Finds a kernel's compiled code for a group size in the compiled tier's on-disk cache before its first launch (the
 * launch's argument kinds, kernel, program and group size are read; nothing is compiled): zeKernelSetGroupSize. */
void zf_spirv_prefetch(const zf_xlaunch *launch);

/* Gets the process ready to launch the kernels of a program just built: starts the engine's workers, readies each
 * engine thread's kept context and allocator for the program's waves, reads what the compiled tier's cache keys need
 * (once per process) and the program's own key, so that these costs are the build's, not the first launch's. */
void zf_spirv_prepare(const zf_dprog *code);

/* The size the compiled tier's on-disk cache is kept under (ZEFAKE_CACHE_MAX_SIZE, which the driver reads): after
 * each entry it writes, the entries used least recently are removed down to three quarters of it. 0: the default. */
#define ZF_SPIRV_CACHE_DEFAULT_LIMIT ((uint64_t)256 << 20)
void zf_spirv_set_cache_limit(uint64_t bytes);

/* Library unload: frees the calling thread's kept context and stops keeping any, so that no thread-exit destructor
 * runs in unloaded code (call after the threads that launch kernels have stopped). */
void zf_spirv_shutdown(void);

/* Statistics of the decoded form for profiling tools (zetKernelGetProfileInfo, zetModuleGetDebugInfo). */
typedef struct zf_form_stats {
    uint32_t functions;
    uint32_t blocks;
    uint32_t instructions;
    uint32_t frame_bytes;   /* per lane, summed over the functions a kernel may call */
    uint32_t private_bytes; /* per lane, likewise */
    uint32_t const_bytes;
    uint32_t wave_bytes;
    uint32_t registers; /* distinct result slots */
} zf_form_stats;

/* Everything a kernel may execute: its entry function and every function it may call directly. */
void zf_form_kernel_stats(const zf_dprog *prog, uint32_t kernel, zf_form_stats *out);

/* The kernel's code (zeKernelGetBinaryExp, docs/modules.md): those instructions, ZF_FORM_INSTRUCTION_BYTES each.
 * Returns its size (at least one instruction); writes up to `capacity` bytes of it when `bytes` is not NULL. */
#define ZF_FORM_INSTRUCTION_BYTES 16u
size_t zf_form_kernel_code(const zf_dprog *prog, uint32_t kernel, uint8_t *bytes, size_t capacity);

/* A float as the engine stores it in a half-precision texel or variable (rounded to nearest even), for callers that
 * fill images the same way (the OpenCL face's clEnqueueFillImage). */
uint16_t zf_spirv_float_to_half(float f);

#endif
