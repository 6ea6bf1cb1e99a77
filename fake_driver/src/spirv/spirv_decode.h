/* The decoder's shared state: what spirv_decode.c (module level, functions, blocks), spirv_decode_inst.c (one
 * instruction at a time) and spirv_decode_ext.c (the OpenCL extended instruction set) build together. The decoder
 * reads the module through the reader's recorded offsets (spirv_internal.h) and never trusts an operand: every id is
 * checked against the bound, its definition and its type before it becomes an operand of the decoded form. */
#ifndef ZF_SPIRV_DECODE_H
#define ZF_SPIRV_DECODE_H

#include "spirv_exec.h"
#include "spirv_form.h"
#include "spirv_internal.h"

/* Type classes. */
typedef enum zf_tclass {
    ZF_TC_NONE = 0,
    ZF_TC_VOID,
    ZF_TC_BOOL,
    ZF_TC_INT,
    ZF_TC_FLOAT,
    ZF_TC_VECTOR,
    ZF_TC_ARRAY,
    ZF_TC_STRUCT,
    ZF_TC_POINTER,
    ZF_TC_FUNCTION,
    ZF_TC_OPAQUE, /* images, samplers, events, queues...: handle-sized, no operations */
    ZF_TC_OTHER,  /* runtime arrays, matrices: no value of it can be decoded */
} zf_tclass;

typedef struct zf_tinfo {
    uint8_t cls;   /* zf_tclass */
    uint8_t etype; /* scalars and vectors: the element type */
    uint8_t comps; /* scalars 1, vectors n */
    uint8_t storage_known;
    uint32_t size; /* bytes (OpenCL layout = register layout) */
    uint32_t align;
    uint32_t elem;    /* vectors, arrays: the element type; pointers: the pointee */
    uint32_t storage; /* pointers */
    uint32_t length;  /* arrays: element count; structs: member count */
} zf_tinfo;

/* What an id is, as an operand. */
typedef enum zf_vkind {
    ZF_V_NONE = 0,
    ZF_V_CONST,    /* a constant: its const-area slot is made when first used */
    ZF_V_FRAME,    /* a value of the function being decoded */
    ZF_V_FUNCTION, /* an OpFunction: callable, not a value */
    ZF_V_GLOBAL,   /* a CrossWorkgroup/UniformConstant variable: its address is a relocation */
    ZF_V_BUILTIN,  /* an Input variable decorated BuiltIn */
    ZF_V_LOCALVAR, /* a module-scope Workgroup variable */
    ZF_V_FUNCPTR,  /* OpConstantFunctionPointerINTEL: a relocation */
    ZF_V_EXTSET,   /* OpExtInstImport: index is a zf_extset */
    ZF_V_DEBUG,    /* the result of a debug-information extended instruction: no value */
} zf_vkind;

/* The extended instruction sets the decoder knows. */
typedef enum zf_extset {
    ZF_EXTSET_OPENCL = 1, /* OpenCL.std: run */
    ZF_EXTSET_DEBUG = 2,  /* debug information (OpenCL.DebugInfo.100, DebugInfo, NonSemantic.*): nothing to run */
    ZF_EXTSET_OTHER = 3,  /* anything else: its instructions fail the build */
} zf_extset;

typedef struct zf_dval {
    uint8_t kind;   /* zf_vkind */
    uint8_t null;   /* constants: OpConstantNull or OpUndef (all zero) */
    uint16_t flags; /* ZF_DV_* */
    uint32_t type;  /* type id */
    zf_ref ref;     /* ZF_REF_NONE until it has one */
    uint32_t index; /* GLOBAL: reader global index; BUILTIN: wave entry of its value; LOCALVAR: variable index;
                       FUNCTION: decoded function index; FUNCPTR: function id; EXTSET: 1 OpenCL.std, 2 debug */
    uint32_t func;  /* FRAME: the function that owns it (function index + 1) */
} zf_dval;

enum {
    ZF_DV_SATURATE = 1u << 0,
    ZF_DV_ROUND_SHIFT = 1, /* 3 bits: ZF_ROUND_* + 0 */
    ZF_DV_BUILTIN_DEC = 1u << 4,
};

/* A growable array of fixed-size items (like the reader's, for the form's tables). */
typedef struct zf_vec {
    void *items;
    uint32_t count;
    uint32_t capacity;
} zf_vec;

/* The block being decoded and the function it belongs to. */
typedef struct zf_dfn_state {
    uint32_t index;       /* decoded function index */
    uint32_t first_block; /* into the form's blocks */
    uint32_t num_blocks;
    uint32_t *label_to_block; /* per id of the function's labels: its execution-order index + 1 (bound-sized map) */
    uint32_t *block_label;    /* per execution-order index: the label id */
    uint32_t *block_offset;   /* per execution-order index: the OpLabel's word offset */
    uint32_t frame_bytes;
    uint32_t private_bytes;
    uint32_t current_block; /* execution-order index */
} zf_dfn_state;

typedef struct zf_decoder {
    const zf_spirv_module *m;
    uint8_t *odd_at; /* ArbitraryPrecisionIntegersINTEL: zf_spirv_odd_integer_uses, else NULL */
    zf_spirv_log *log;
    const zf_decode_options *options;
    zf_dval *vals;     /* [bound] */
    zf_tinfo *types;   /* [bound] (cls NONE for non-types) */
    uint32_t *func_of; /* [bound]: for OpFunction ids, the decoded function index + 1 */
    uint16_t *dec;     /* [bound]: ZF_DV_* decoration flags */
    uint8_t *builtin;  /* [bound]: BuiltIn value + 1 for decorated ids, 0 otherwise */
    /* The form being built. */
    zf_vec insts, words, blocks, edges, copies, funcs, params, consts, relocs, waves, locals, kernels, kernel_locals,
        aux, bytes, strings;
    uint32_t const_bytes;
    uint32_t wave_bytes;
    uint32_t flags;
    zf_dfn_state fn;
    uint32_t word;  /* word offset of the instruction being decoded (diagnostics) */
    uint32_t fn_id; /* the function being decoded (diagnostics) */
    bool failed;
} zf_decoder;

/* ---- spirv_decode.c ---- */

void *zf_vec_push(zf_vec *vec, size_t item_size);
zf_spirv_status zf_d_fail(zf_decoder *d, zf_spirv_status status, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
zf_spirv_status zf_d_malformed(zf_decoder *d, const char *format, ...) __attribute__((format(printf, 2, 3)));
/* Adds a NUL-terminated string to the form's string table: its index, UINT32_MAX for NULL (or out of memory). */
uint32_t zf_d_string(zf_decoder *d, const char *text);
zf_spirv_status zf_d_no_memory(zf_decoder *d);
/* Fails the build naming the instruction at d->word as unsupported, with a reason. */
zf_spirv_status zf_d_unsupported(zf_decoder *d, uint32_t opcode, const char *why);

/* The type of an id (must be a type id), or NULL after logging. */
const zf_tinfo *zf_d_type(zf_decoder *d, uint32_t id);
/* Byte offset of member `index` of a struct type. */
uint32_t zf_d_member_offset(zf_decoder *d, uint32_t struct_id, uint32_t index, uint32_t *member_type);

/* The operand reference of a value id whose type has `size` bytes (0: any size). */
zf_spirv_status zf_d_operand(zf_decoder *d, uint32_t id, zf_ref *ref, const zf_tinfo **type);
zf_spirv_status zf_d_operand_sized(zf_decoder *d, uint32_t id, uint32_t size, zf_ref *ref);
/* A new frame slot of `size` bytes aligned to `align` in the function being decoded. */
zf_ref zf_d_frame_slot(zf_decoder *d, uint32_t size, uint32_t align);
/* A const-area slot holding `size` bytes of `data` (deduplicated). */
zf_spirv_status zf_d_const_bytes(zf_decoder *d, const void *data, uint32_t size, uint32_t align, zf_ref *ref);
/* The frame value of a result id (assigned before the body is decoded). */
zf_spirv_status zf_d_result(zf_decoder *d, uint32_t id, uint32_t type_id, zf_ref *ref);

zf_dinst *zf_d_emit(zf_decoder *d, uint32_t op);
uint32_t zf_d_aux(zf_decoder *d, uint32_t count); /* reserves aux words, returns the index (UINT32_MAX: no memory) */
uint32_t *zf_d_aux_at(zf_decoder *d, uint32_t index);

/* Constant values at decode time (spec constants applied): the bytes of a constant id in register layout. */
zf_spirv_status zf_d_const_value(zf_decoder *d, uint32_t id, uint8_t *out, uint32_t size);
/* An integer constant's value (for literal-like operands). */
bool zf_d_const_int(zf_decoder *d, uint32_t id, uint64_t *value);

/* Functions, blocks and kernels (spirv_decode_func.c). */
zf_spirv_status zf_d_functions(zf_decoder *d);
zf_spirv_status zf_d_kernels(zf_decoder *d);

/* Module-scope Input (built-in) and Workgroup variables (spirv_decode_func.c). */
zf_spirv_status zf_d_builtin_variable(zf_decoder *d, uint32_t id, uint32_t builtin, uint32_t pointee);
zf_spirv_status zf_d_local_variable(zf_decoder *d, uint32_t id, uint32_t pointee);

/* ---- spirv_decode_inst.c ---- */

/* Decodes one body instruction at offset `at` (not OpLabel, OpPhi or OpFunctionParameter). */
zf_spirv_status zf_d_instruction(zf_decoder *d, uint32_t at);
/* The value of an instruction's result for setting up the frame: true when `opcode` has a result type and id. */
bool zf_d_has_result(uint32_t opcode, const uint32_t *w, uint32_t count);

/* ---- spirv_decode_image.c ---- */

bool zf_d_is_image_op(uint32_t opcode);
zf_spirv_status zf_d_image(zf_decoder *d, const uint32_t *w, uint32_t count);

/* ---- spirv_decode_ext.c ---- */

zf_spirv_status zf_d_ext_inst(zf_decoder *d, const uint32_t *w, uint32_t count);

/* ---- spirv_cfg.c ---- */

/* Orders the blocks of a function for execution: entry first, every block after its forward predecessors, and the
 * blocks of a loop before any block outside it, so that lanes waiting at a later block reconverge with the others
 * (spirv_run.c runs the lowest-numbered block that has lanes). succ is a CSR adjacency (succ_first has n + 1 items).
 * order receives block indices in execution order. False when out of memory. */
bool zf_cfg_order(uint32_t n, const uint32_t *succ_first, const uint32_t *succ, uint32_t *order);

#endif
