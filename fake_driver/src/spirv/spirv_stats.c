/* What a kernel's decoded form amounts to: its statistics (module properties, the code address ranges of
 * module/kernel_isa.c) and its code as zeKernelGetBinaryExp gives it (docs/modules.md, "Kernel binaries"). Both walk
 * the same instructions: those of the kernel's entry function and of every function it may call directly, each
 * function once, in the order a depth-first walk from the entry function reaches them. */
#include "spirv_exec.h"
#include "spirv_form.h"

#include <stdlib.h>
#include <string.h>

typedef void (*zf_visit_fn)(const zf_dprog *prog, const zf_dfunc *f, void *user);

/* Calls visit for every function the kernel may execute; false without host memory. */
static bool zf_form_walk_kernel(const zf_dprog *prog, uint32_t kernel, zf_visit_fn visit, void *user) {
    uint32_t n = prog->num_funcs ? prog->num_funcs : 1;
    uint8_t *seen = calloc(n, 1);
    uint32_t *stack = malloc(n * sizeof *stack), top = 0;
    bool ok = seen != NULL && stack != NULL;
    if (ok) {
        stack[top++] = prog->kernels[kernel].function;
        seen[prog->kernels[kernel].function] = 1;
    }
    while (ok && top > 0) {
        const zf_dfunc *f = &prog->funcs[stack[--top]];
        visit(prog, f, user);
        for (uint32_t i = 0; i < f->block_count; i++) {
            const zf_dblock *blk = &prog->blocks[f->block_first + i];
            for (uint32_t k = 0; k < blk->count; k++) {
                const zf_dinst *in = &prog->insts[blk->first + k];
                uint32_t callee = in->op == ZF_X_CALL ? prog->aux[in->aux] : UINT32_MAX;
                if (callee < prog->num_funcs && !seen[callee]) {
                    seen[callee] = 1;
                    stack[top++] = callee;
                }
            }
        }
    }
    free(seen);
    free(stack);
    return ok;
}

static void zf_count_function(const zf_dprog *prog, const zf_dfunc *f, void *user) {
    zf_form_stats *out = user;
    out->functions++;
    out->blocks += f->block_count;
    out->frame_bytes += f->frame_bytes;
    out->private_bytes += f->private_bytes;
    for (uint32_t b = 0; b < f->block_count; b++) {
        const zf_dblock *blk = &prog->blocks[f->block_first + b];
        out->instructions += blk->count;
        for (uint32_t i = 0; i < blk->count; i++)
            out->registers += prog->insts[blk->first + i].dst != ZF_REF_NONE;
    }
}

void zf_form_kernel_stats(const zf_dprog *prog, uint32_t kernel, zf_form_stats *out) {
    memset(out, 0, sizeof *out);
    out->const_bytes = prog->const_bytes;
    out->wave_bytes = prog->wave_bytes;
    if (kernel < prog->num_kernels)
        zf_form_walk_kernel(prog, kernel, zf_count_function, out);
}

static void zf_put32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

typedef struct zf_code_out {
    uint8_t *bytes;
    size_t capacity, written;
} zf_code_out;

/* One instruction in ZF_FORM_INSTRUCTION_BYTES: operation (16 bits), element type, components, then the result, the
 * first operand and the operation's immediate, each a 32-bit little-endian word. */
static void zf_encode_function(const zf_dprog *prog, const zf_dfunc *f, void *user) {
    zf_code_out *out = user;
    for (uint32_t b = 0; b < f->block_count; b++) {
        const zf_dblock *blk = &prog->blocks[f->block_first + b];
        for (uint32_t i = 0; i < blk->count && out->written + ZF_FORM_INSTRUCTION_BYTES <= out->capacity; i++) {
            const zf_dinst *in = &prog->insts[blk->first + i];
            uint8_t *p = out->bytes + out->written;
            p[0] = (uint8_t)in->op;
            p[1] = (uint8_t)(in->op >> 8);
            p[2] = in->type;
            p[3] = in->comps;
            zf_put32(p + 4, in->dst);
            zf_put32(p + 8, in->a);
            zf_put32(p + 12, in->aux);
            out->written += ZF_FORM_INSTRUCTION_BYTES;
        }
    }
}

size_t zf_form_kernel_code(const zf_dprog *prog, uint32_t kernel, uint8_t *bytes, size_t capacity) {
    zf_form_stats stats;
    zf_form_kernel_stats(prog, kernel, &stats);
    size_t size = (size_t)(stats.instructions > 0 ? stats.instructions : 1) * ZF_FORM_INSTRUCTION_BYTES;
    if (bytes == NULL)
        return size;
    zf_code_out out = {bytes, capacity < size ? capacity : size, 0};
    memset(bytes, 0, out.capacity); /* a kernel without instructions: one zero instruction */
    if (kernel < prog->num_kernels)
        zf_form_walk_kernel(prog, kernel, zf_encode_function, &out);
    return size;
}
