/* The SPIR-V reader's module representation, shared by its source files (spirv_read.c walks the instruction
 * stream, spirv_layout.c derives layouts, kernels and globals). Everything is recorded by word offset into the
 * module's own copy of the words, which the walk has validated: an offset recorded here always points at a whole
 * instruction whose word count was checked against the minimum its opcode needs. */
#ifndef ZF_SPIRV_INTERNAL_H
#define ZF_SPIRV_INTERNAL_H

#include "spirv.h"

/* Per-id flags. */
enum {
    ZF_ID_SPEC_ID = 1u << 0,
    ZF_ID_BUILTIN = 1u << 1,
    ZF_ID_CPACKED = 1u << 2,
    ZF_ID_BYVAL = 1u << 3,
    ZF_ID_FORWARD_POINTER = 1u << 4,
    ZF_ID_NOWRITE = 1u << 5, /* FuncParamAttr NoWrite: the function never writes through the parameter */
};

/* What the module knows about one id. Offsets are word offsets; 0 means "none" (offset 0 is the header). */
typedef struct zf_spirv_idinfo {
    uint32_t def;     /* the defining instruction */
    uint32_t name;    /* its OpName */
    uint32_t linkage; /* its LinkageAttributes OpDecorate */
    uint32_t spec_id;
    uint32_t index; /* types: into types[]; functions: into functions[]; variables: into variables[] */
    uint16_t flags;
    uint16_t opcode; /* of def */
} zf_spirv_idinfo;

typedef struct zf_spirv_type {
    uint32_t id;
    uint64_t size;
    uint32_t align;
} zf_spirv_type;

typedef struct zf_spirv_function {
    uint32_t id;
    uint32_t offset;      /* OpFunction */
    uint32_t end;         /* OpFunctionEnd */
    uint32_t body;        /* first instruction after the parameters (the body's entry OpLabel), 0 = no body */
    uint32_t type;        /* OpTypeFunction id */
    uint32_t first_param; /* into params[] */
    uint32_t num_params;
    uint32_t first_call; /* into calls[]: callee ids of its OpFunctionCall instructions */
    uint32_t num_calls;
    uint32_t first_local; /* into locals[]: pointer types of its Function-storage OpVariable instructions */
    uint32_t num_locals;
    uint64_t instructions; /* in its body */
} zf_spirv_function;

typedef struct zf_spirv_entry {
    uint32_t offset; /* OpEntryPoint */
    uint32_t function;
    const char *name;
    uint32_t interface_first; /* word index of the first interface id */
    uint32_t interface_count;
    uint32_t local_size[3];
    uint32_t local_size_id[3]; /* LocalSizeId operands (resolved by zf_spirv_finish) */
    uint32_t local_size_hint[3];
    uint32_t local_size_hint_id[3];
    uint32_t vec_type_hint;
    uint32_t subgroup_size;
    uint32_t subgroups_per_workgroup;
    uint32_t subgroups_per_workgroup_id;
    bool has_local_size, has_local_size_id, has_local_size_hint, has_local_size_hint_id, has_vec_type_hint;
} zf_spirv_entry;

typedef struct zf_spirv_variable {
    uint32_t id;
    uint32_t offset;
    uint32_t type; /* the pointer type */
    uint32_t storage;
    uint32_t initializer;
} zf_spirv_variable;

/* A growable array of fixed-size items. */
typedef struct zf_spirv_array {
    void *items;
    uint32_t count;
    uint32_t capacity;
} zf_spirv_array;

struct zf_spirv_module {
    uint32_t *words;
    size_t num_words;
    uint32_t version;
    uint32_t bound;
    zf_spirv_idinfo *ids;        /* [bound] */
    zf_spirv_array capabilities; /* uint32_t */
    zf_spirv_array types;        /* zf_spirv_type, in definition order */
    zf_spirv_array functions;    /* zf_spirv_function */
    zf_spirv_array params;       /* uint32_t parameter ids */
    zf_spirv_array calls;        /* uint32_t callee ids */
    zf_spirv_array locals;       /* uint32_t pointer type ids */
    zf_spirv_array entries;      /* zf_spirv_entry */
    zf_spirv_array variables;    /* zf_spirv_variable (module scope) */
    zf_spirv_array specs;        /* zf_spirv_spec_constant */
    /* Derived by zf_spirv_finish. */
    bool finished;
    zf_spirv_array kernels; /* zf_spirv_kernel */
    zf_spirv_array globals; /* zf_spirv_global */
    zf_spirv_array symbols; /* zf_spirv_symbol */
};

/* Appends one zeroed item; NULL when out of memory. */
void *zf_spirv_array_push(zf_spirv_array *array, size_t item_size);
void zf_spirv_array_free(zf_spirv_array *array);
#define ZF_SPIRV_AT(array, type, i) (&((type *)(array).items)[i])

/* The instruction at a recorded offset. */
static inline uint32_t zf_spirv_opcode_at(const zf_spirv_module *m, uint32_t offset) {
    return m->words[offset] & 0xFFFFu;
}
static inline uint32_t zf_spirv_count_at(const zf_spirv_module *m, uint32_t offset) {
    return m->words[offset] >> 16;
}

/* The id's info, or NULL when the id is 0 or outside the bound. */
static inline const zf_spirv_idinfo *zf_spirv_id(const zf_spirv_module *m, uint32_t id) {
    return (id == 0 || id >= m->bound) ? NULL : &m->ids[id];
}

/* A name for an opcode in diagnostics ("OpTypeInt", or "opcode 1234"). buf must hold 24 bytes. */
const char *zf_spirv_opcode_name(uint32_t opcode, char *buf, size_t size);

/* For a module with integers of other widths than 8, 16, 32 and 64 bits (SPV_INTEL_arbitrary_precision_integers), a
 * map of its words (spirv_validate.c): at the offset of each instruction that produces or reads such an integer,
 * the integer's width, else 0. NULL, with a log line, when SPIR-V Tools cannot parse the module or out of memory;
 * the caller frees it. */
uint8_t *zf_spirv_odd_integer_uses(const zf_spirv_module *m, zf_spirv_log *log);

/* Whether an extended instruction set of this name holds debug information only (OpenCL.DebugInfo.100, the legacy
 * SPIRV.debug, DebugInfo, every NonSemantic.* set): its instructions decode to nothing and are not validated. */
bool zf_spirv_is_debug_set(const char *name);

/* The inline sampler value of OpConstantSampler (ZF_INLINE_SAMPLER | fields, spirv_exec.h): what a kernel's sampler
 * operand or a sampler global initialized by it holds. False when the operands are out of range. */
bool zf_spirv_inline_sampler(const uint32_t *w, uint32_t count, uint64_t *value);

/* The literal string starting at word `first` of the instruction at `offset` (validated NUL-terminated). */
static inline const char *zf_spirv_string_at(const zf_spirv_module *m, uint32_t offset, uint32_t first) {
    return (const char *)&m->words[offset + first];
}

/* The OpName of an id, or NULL. */
static inline const char *zf_spirv_id_name(const zf_spirv_module *m, uint32_t id) {
    const zf_spirv_idinfo *info = zf_spirv_id(m, id);
    return info != NULL && info->name != 0 ? zf_spirv_string_at(m, info->name, 2) : NULL;
}

#endif
