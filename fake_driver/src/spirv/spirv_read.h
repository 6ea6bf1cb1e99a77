/* The reader's walk over the instruction stream, shared by spirv_read.c (the walk, types, constants, variables,
 * functions) and spirv_read_decl.c (module-level declarations): its state and the checks every instruction's
 * operands go through, each logging the offending word and answering the status the walk stops with. */
#ifndef ZF_SPIRV_READ_H
#define ZF_SPIRV_READ_H

#include "spirv_internal.h"

typedef struct zf_walk {
    zf_spirv_module *m;
    zf_spirv_log *log;
    uint32_t offset; /* of the current instruction */
    uint32_t opcode;
    uint32_t count;
    const uint32_t *w; /* its words */
    int64_t function;  /* index of the function being read, -1 outside functions */
    bool in_params;    /* only OpFunctionParameter may follow */
    bool memory_model;
} zf_walk;

/* Diagnostics: the module is malformed, uses what the reader does not support, or the host ran out of memory. */
zf_spirv_status __attribute__((format(printf, 2, 3))) zf_r_bad(zf_walk *k, const char *format, ...);
zf_spirv_status __attribute__((format(printf, 2, 3))) zf_r_unsupported(zf_walk *k, const char *format, ...);
zf_spirv_status zf_r_no_memory(zf_walk *k);

/* Operand checks: the instruction has `minimum` words; word `word` is an id inside the bound; it names an earlier
 * constant; a literal string starting at `first` ends inside the instruction. */
zf_spirv_status zf_r_need_words(zf_walk *k, uint32_t minimum);
zf_spirv_status zf_r_check_id(zf_walk *k, uint32_t word, const char *what);
zf_spirv_status zf_r_need_constant(zf_walk *k, uint32_t word, const char *what);
zf_spirv_status zf_r_need_string(zf_walk *k, uint32_t first, const char *what, uint32_t *next);

/* Module-level declarations (spirv_read_decl.c). */
zf_spirv_status zf_read_capability(zf_walk *k);
zf_spirv_status zf_read_memory_model(zf_walk *k);
zf_spirv_status zf_read_entry_point(zf_walk *k);
zf_spirv_status zf_read_execution_mode(zf_walk *k);
zf_spirv_status zf_read_execution_mode_id(zf_walk *k);
zf_spirv_status zf_read_name(zf_walk *k);
zf_spirv_status zf_read_decorate(zf_walk *k);
zf_spirv_status zf_read_group_decorate(zf_walk *k);

#endif
