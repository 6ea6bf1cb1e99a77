/* Kernel instruction addresses (docs/metrics.md, "Kernel addresses"): what zexKernelGetBaseAddress answers and the
 * addresses EU stall samples name.
 *
 * Each module with live kernels owns a range of a 4 GiB instruction heap (the reach of the 29-bit EU stall IP, counted
 * in 8-byte units) as large as its native binary (zeModuleGetNativeBinary's size) or the code of its kernels, whichever
 * is larger, rounded up to 4 KiB. Ranges are handed out in increasing order and not reused before the heap wraps
 * around, so the ranges of live modules never overlap. Kernel i of a module (in the order of its programs, then of each
 * program's kernels) starts at the sum of the 64-byte aligned code sizes of the kernels before it; a kernel's code is
 * 16 bytes per decoded instruction, the size of a native Xe instruction. A module's range lives while kernels of it
 * do: a module whose kernels were all destroyed gets a new range with its next kernel. */
#include "core/zf_core.h"
#include "module/zf_kernel.h"
#include "module/zf_module.h"
#include "spirv/spirv_exec.h"

#include <pthread.h>
#include <stdlib.h>

#define ZF_ISA_HEAP_START 0x10000ull     /* nothing at address 0: a NULL base never names a kernel */
#define ZF_ISA_HEAP_END   0x100000000ull /* 2^29 IPs of 8 bytes */
#define ZF_ISA_PAGE       4096ull
#define ZF_ISA_CODE_ALIGN 64ull

typedef struct zf_isa_range {
    const zf_module *module;
    uint32_t users; /* live kernels of the module */
    uint64_t base;
    uint32_t num_kernels;   /* of all the module's programs */
    uint64_t *offsets;      /* per kernel of the module */
    uint32_t *instructions; /* per kernel of the module */
    struct zf_isa_range *next;
} zf_isa_range;

static pthread_mutex_t zf_isa_lock = PTHREAD_MUTEX_INITIALIZER;
static zf_isa_range *zf_isa_ranges;
static uint64_t zf_isa_next = ZF_ISA_HEAP_START;

/* The kernels the calling engine worker ran since the execution observer last took them (the latest ones). */
static _Thread_local uint32_t zf_ran_count;
static _Thread_local zf_kernel_code zf_ran[ZF_KERNEL_CODE_MAX];

static uint64_t zf_align_up(uint64_t n, uint64_t to) {
    return (n + to - 1) / to * to;
}

static uint32_t zf_module_kernel_count(const zf_module *module) {
    uint32_t n = 0;
    for (uint32_t p = 0; p < module->num_programs; p++)
        n += zf_spirv_kernel_count(module->programs[p]->spirv);
    return n;
}

/* Lays the module's kernels out one after the other; returns the bytes they take, 0 when out of host memory. */
static uint64_t zf_isa_layout(zf_isa_range *range) {
    const zf_module *module = range->module;
    range->num_kernels = zf_module_kernel_count(module);
    range->offsets = calloc(range->num_kernels + 1u, sizeof *range->offsets);
    range->instructions = calloc(range->num_kernels + 1u, sizeof *range->instructions);
    if (range->offsets == NULL || range->instructions == NULL)
        return 0;
    uint64_t at = 0;
    uint32_t i = 0;
    for (uint32_t p = 0; p < module->num_programs; p++) {
        const zf_program *program = module->programs[p];
        for (uint32_t k = 0; k < zf_spirv_kernel_count(program->spirv); k++, i++) {
            zf_form_stats stats;
            zf_form_kernel_stats(program->code, k, &stats);
            range->instructions[i] = stats.instructions > 0 ? stats.instructions : 1;
            range->offsets[i] = at;
            at += zf_align_up((uint64_t)range->instructions[i] * ZF_KERNEL_INSTRUCTION_BYTES, ZF_ISA_CODE_ALIGN);
        }
    }
    return at > 0 ? at : ZF_ISA_CODE_ALIGN;
}

static void zf_isa_range_free(zf_isa_range *range) {
    free(range->offsets);
    free(range->instructions);
    free(range);
}

/* Creates the module's range at the next free place of the heap; NULL when out of host memory. */
static zf_isa_range *zf_isa_range_create(const zf_module *module) {
    zf_isa_range *range = calloc(1, sizeof *range);
    if (range == NULL)
        return NULL;
    range->module = module;
    uint64_t code = zf_isa_layout(range);
    size_t native = 0;
    if (code == 0 || zfi_zeModuleGetNativeBinary((ze_module_handle_t)module, &native, NULL) != ZE_RESULT_SUCCESS) {
        zf_isa_range_free(range);
        return NULL;
    }
    uint64_t size = zf_align_up(code > native ? code : native, ZF_ISA_PAGE);
    if (zf_isa_next + size > ZF_ISA_HEAP_END)
        zf_isa_next = ZF_ISA_HEAP_START; /* wrap around: by then the early modules are long gone */
    range->base = zf_isa_next;
    zf_isa_next += size;
    range->next = zf_isa_ranges;
    zf_isa_ranges = range;
    return range;
}

static zf_isa_range *zf_isa_find(const zf_module *module) {
    for (zf_isa_range *r = zf_isa_ranges; r != NULL; r = r->next) {
        if (r->module == module)
            return r;
    }
    return NULL;
}

/* The index among all the module's kernels of kernel `index` of `program`. */
static uint32_t zf_isa_kernel_index(const zf_module *module, const zf_program *program, uint32_t index) {
    uint32_t i = 0;
    for (uint32_t p = 0; p < module->num_programs && module->programs[p] != program; p++)
        i += zf_spirv_kernel_count(module->programs[p]->spirv);
    return i + index;
}

bool zf_kernel_isa_acquire(const zf_module *module, const zf_program *program, uint32_t index, zf_kernel_code *out) {
    pthread_mutex_lock(&zf_isa_lock);
    zf_isa_range *range = zf_isa_find(module);
    if (range == NULL)
        range = zf_isa_range_create(module);
    if (range != NULL) {
        uint32_t i = zf_isa_kernel_index(module, program, index);
        range->users++;
        out->base = range->base + range->offsets[i];
        out->instructions = range->instructions[i];
    }
    pthread_mutex_unlock(&zf_isa_lock);
    return range != NULL;
}

void zf_kernel_isa_release(const zf_module *module) {
    pthread_mutex_lock(&zf_isa_lock);
    zf_isa_range **link = &zf_isa_ranges;
    while (*link != NULL && (*link)->module != module)
        link = &(*link)->next;
    zf_isa_range *range = *link;
    if (range != NULL && --range->users == 0) {
        *link = range->next;
        zf_isa_range_free(range);
    }
    pthread_mutex_unlock(&zf_isa_lock);
}

void zf_kernel_isa_note_run(const zf_kernel_code *code) {
    if (zf_ran_count == ZF_KERNEL_CODE_MAX) { /* keep the latest */
        for (uint32_t i = 1; i < ZF_KERNEL_CODE_MAX; i++)
            zf_ran[i - 1] = zf_ran[i];
        zf_ran_count--;
    }
    zf_ran[zf_ran_count++] = *code;
}

uint32_t zf_kernel_isa_take_ran(zf_kernel_code out[ZF_KERNEL_CODE_MAX]) {
    uint32_t n = zf_ran_count;
    for (uint32_t i = 0; i < n; i++)
        out[i] = zf_ran[i];
    zf_ran_count = 0;
    return n;
}
