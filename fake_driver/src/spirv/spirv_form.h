/* The decoded form of a module: what the execution engine runs. Built once at zeModuleCreate by the decoder
 * (spirv_decode*.c) from the specialized SPIR-V, serialized into native binaries and loaded back from them
 * (spirv_form.c), where a validator checks every index and operand so that a form a tool edited can never make the
 * engine touch memory outside its own areas. docs/spirv-execution.md describes it for tools.
 *
 * Values live in three areas of the executing thread, each laid out register by register with the lanes of a
 * register next to each other (register-major): a register of `s` bytes per lane at per-lane offset `o` keeps lane
 * l's value at area + o * L + l * s, L being the lane count of the wave. So an element-wise operation on full lanes is
 * one contiguous loop, whatever the vector width.
 *   - frame: the SSA values of one function invocation (its parameters, results and phi shadows);
 *   - const: the program's constants, broadcast to every lane once per thread and launch, and the addresses the
 *            driver resolves (globals, function pointers, imports: relocations);
 *   - wave:  per-wave values: built-in variables (ids, sizes), and per-lane pointers to them and to the group's
 *            local memory.
 * An operand (zf_ref) names an area in its top two bits and a per-lane byte offset in the rest. The size of each
 * operand is implied by its instruction (zf_form_operand_size), never stored. */
#ifndef ZF_SPIRV_FORM_H
#define ZF_SPIRV_FORM_H

#include <spirv/unified1/spirv.h> /* group operations and scopes keep their SPIR-V values */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ZF_FORM_VERSION 2u

typedef uint32_t zf_ref;
enum {
    ZF_AREA_FRAME = 0,
    ZF_AREA_CONST = 1,
    ZF_AREA_WAVE = 2,
    ZF_AREA_NONE = 3,
};
#define ZF_REF_NONE          0xFFFFFFFFu
#define ZF_REF_AREA(r)       ((uint32_t)(r) >> 30)
#define ZF_REF_OFFSET(r)     ((uint32_t)(r)&0x3FFFFFFFu)
#define ZF_REF_MAKE(area, o) (((uint32_t)(area) << 30) | (uint32_t)(o))
/* Per-lane bytes of one area are bounded so that offset * lanes never overflows 64 bits and stays reasonable. */
#define ZF_FORM_MAX_AREA_BYTES (1u << 24)

/* Element types of typed operations. */
typedef enum zf_etype {
    ZF_T_NONE = 0,
    ZF_T_BOOL, /* one byte, 0 or 1 */
    ZF_T_I8,
    ZF_T_I16,
    ZF_T_I32,
    ZF_T_I64,
    ZF_T_F16, /* IEEE half bits, computed in float */
    ZF_T_F32,
    ZF_T_F64,
    ZF_T_COUNT
} zf_etype;

static inline uint32_t zf_etype_size(uint32_t t) {
    static const uint8_t sizes[ZF_T_COUNT] = {0, 1, 1, 2, 4, 8, 2, 4, 8};
    return t < ZF_T_COUNT ? sizes[t] : 0;
}
static inline bool zf_etype_is_float(uint32_t t) {
    return t == ZF_T_F16 || t == ZF_T_F32 || t == ZF_T_F64;
}
static inline bool zf_etype_is_int(uint32_t t) {
    return t >= ZF_T_I8 && t <= ZF_T_I64;
}
/* Lane slot of a vector: OpenCL lays a 3-component vector out as 4. */
static inline uint32_t zf_slot(uint32_t comps) {
    return comps == 3 ? 4 : comps;
}

/* The operations of the decoded form, from their one list (spirv_xops.def). */
typedef enum zf_xop {
#define ZF_XOP(NAME, name, handler) ZF_X_##NAME,
#include "spirv_xops.def"
#undef ZF_XOP
    ZF_X_COUNT
} zf_xop;

/* ZF_X_CONV: the source type in the low byte, then: */
enum {
    ZF_CONV_SRC_SIGNED = 1u << 8,
    ZF_CONV_DST_SIGNED = 1u << 9,
    ZF_CONV_SATURATE = 1u << 10,
    ZF_CONV_ROUND_SHIFT = 12, /* 3 bits: ZF_ROUND_* */
};
enum { ZF_ROUND_DEFAULT = 0, ZF_ROUND_RTE, ZF_ROUND_RTZ, ZF_ROUND_RTP, ZF_ROUND_RTN };

/* ZF_X_LOAD / ZF_X_STORE / ZF_X_STOREZ: the access was Volatile (SPIR-V memory operand 0x1). Such accesses are
 * made indivisibly (relaxed atomics where the size and alignment allow): kernels read and write words that other
 * work-items change concurrently through them, as in the OpenCL 1.x compare-exchange loop. */
enum { ZF_MEM_VOLATILE = 1u };

/* ZF_X_ATOMIC kinds. */
enum {
    ZF_ATOM_LOAD = 0,
    ZF_ATOM_STORE,
    ZF_ATOM_XCHG,
    ZF_ATOM_CMPXCHG,
    ZF_ATOM_INC,
    ZF_ATOM_DEC,
    ZF_ATOM_ADD,
    ZF_ATOM_SUB,
    ZF_ATOM_SMIN,
    ZF_ATOM_UMIN,
    ZF_ATOM_SMAX,
    ZF_ATOM_UMAX,
    ZF_ATOM_AND,
    ZF_ATOM_OR,
    ZF_ATOM_XOR,
    ZF_ATOM_FLAG_TAS,
    ZF_ATOM_FLAG_CLEAR,
    ZF_ATOM_FADD,
    ZF_ATOM_FMIN,
    ZF_ATOM_FMAX,
    ZF_ATOM_COUNT
};

/* ZF_X_ITT kinds (the __itt_offload_* wrappers, docs/spirv-execution.md). */
enum {
    ZF_ITT_WI_START = 0,
    ZF_ITT_WI_FINISH,
    ZF_ITT_WG_BARRIER,
    ZF_ITT_WI_RESUME,
    ZF_ITT_ATOMIC_START,
    ZF_ITT_ATOMIC_FINISH,
    ZF_ITT_COUNT
};

/* ZF_X_VLOAD / ZF_X_VSTORE kinds (with the component count in bits 8..15, rounding in 16..18). */
enum {
    ZF_VL_PLAIN = 0, /* vloadn/vstoren of the element type */
    ZF_VL_HALF,      /* vload_half(n)/vstore_half(n): floats from/to halves packed */
    ZF_VL_HALF_A,    /* vloada_halfn/vstorea_halfn: aligned, 3 counted as 4 */
};

/* ZF_X_GROUP: kind in the low byte, scope (2 workgroup, 3 subgroup) in bits 8..11, operation in 12..15. */
enum {
    ZF_GRP_ALL = 0,
    ZF_GRP_ANY,
    ZF_GRP_BCAST,
    ZF_GRP_IADD,
    ZF_GRP_FADD,
    ZF_GRP_FMIN,
    ZF_GRP_UMIN,
    ZF_GRP_SMIN,
    ZF_GRP_FMAX,
    ZF_GRP_UMAX,
    ZF_GRP_SMAX,
    ZF_GRP_COUNT
};

/* ZF_X_IMAGE kinds. */
enum {
    ZF_IMG_READ = 0,     /* OpImageRead: integer coordinates, no sampler */
    ZF_IMG_SAMPLE,       /* OpImageSampleExplicitLod: a sampled image, integer or float coordinates */
    ZF_IMG_WRITE,        /* OpImageWrite */
    ZF_IMG_QUERY_SIZE,   /* OpImageQuerySize(Lod): width, height or layers, depth, as many as dst has */
    ZF_IMG_QUERY_FORMAT, /* OpImageQueryFormat: the SPIR-V ImageChannelDataType */
    ZF_IMG_QUERY_ORDER,  /* OpImageQueryOrder: the SPIR-V ImageChannelOrder */
    ZF_IMG_COUNT
};

/* ZF_X_SGSHUFFLE kinds. */
enum { ZF_SG_SHUFFLE = 0, ZF_SG_SHUFFLE_DOWN, ZF_SG_SHUFFLE_UP, ZF_SG_SHUFFLE_XOR };

/* ZF_X_SGBLOCK and ZF_X_IMGBLOCK directions. */
enum { ZF_SGB_READ = 0, ZF_SGB_WRITE = 1 };

/* One decoded instruction (32 bytes). */
typedef struct zf_dinst {
    uint16_t op;    /* zf_xop */
    uint8_t type;   /* element type (zf_etype) */
    uint8_t comps;  /* components, 1..16 */
    uint32_t size;  /* bytes per lane of the result (byte-moving operations) */
    uint32_t asize; /* bytes per lane of operand a where it differs from the result */
    zf_ref dst;
    zf_ref a, b, c;
    uint32_t aux; /* operation-specific immediate or index into aux[] */
} zf_dinst;

/* Parallel copies made when a lane takes an edge (phi values), or when it enters a block (shadowed phis). */
typedef struct zf_dcopy {
    zf_ref dst;
    zf_ref src;
    uint32_t size;
} zf_dcopy;

typedef struct zf_dedge {
    uint32_t target; /* block index inside the function */
    uint32_t copy_first;
    uint32_t copy_count;
} zf_dedge;

typedef struct zf_dblock {
    uint32_t first; /* instructions [first, first + count), the last one a terminator */
    uint32_t count;
    uint32_t commit_first; /* copies from phi shadows run on entry */
    uint32_t commit_count;
} zf_dblock;

typedef struct zf_dparam {
    zf_ref ref;
    uint32_t size;
} zf_dparam;

enum {
    ZF_FUNC_HAS_BODY = 1u << 0,
};

typedef struct zf_dfunc {
    uint32_t spirv_id;
    uint32_t name; /* into strings[], UINT32_MAX when unnamed */
    uint32_t flags;
    uint32_t block_first; /* blocks in execution order; block 0 is the entry */
    uint32_t block_count;
    uint32_t param_first;
    uint32_t param_count;
    uint32_t frame_bytes;   /* per lane */
    uint32_t private_bytes; /* per lane: Function-storage variables */
    zf_ref ret;             /* the return slot in the frame, ZF_REF_NONE for void */
    uint32_t ret_size;
    uint32_t instructions; /* decoded instructions of its body */
} zf_dfunc;

/* Constants: bytes broadcast into the const area at `offset`. */
typedef struct zf_dconst {
    uint32_t offset;
    uint32_t size;
    uint32_t data; /* into bytes[] */
} zf_dconst;

/* Addresses the driver resolves per program (8 bytes at `offset` of the const area). */
enum {
    ZF_RELOC_GLOBAL = 0,   /* index: the reader's global index (a defined or imported module-scope variable) */
    ZF_RELOC_FUNCTION = 1, /* index: a function of this form: its function pointer */
    ZF_RELOC_IMPORT = 2,   /* index: the reader's symbol index of an imported function: its provider's pointer */
    ZF_RELOC_COUNT
};
typedef struct zf_dreloc {
    uint32_t offset;
    uint32_t kind;
    uint32_t index;
} zf_dreloc;

/* Per-lane values of the wave area. */
enum {
    ZF_WAVE_BUILTIN = 0,  /* a built-in variable's value: index = SPIR-V BuiltIn, type/comps its element and count */
    ZF_WAVE_POINTER = 1,  /* a pointer to another wave entry (index) for the lane: a built-in variable's address */
    ZF_WAVE_LOCALVAR = 2, /* a pointer into the lane's group local memory: index = module-scope Workgroup variable */
    ZF_WAVE_COUNT
};
typedef struct zf_dwave {
    uint32_t offset;
    uint32_t kind;
    uint32_t index;
    uint8_t type;
    uint8_t comps;
    uint16_t reserved;
} zf_dwave;

/* Module-scope Workgroup variables: their sizes and alignments, laid out per kernel. */
typedef struct zf_dlocal {
    uint32_t size;
    uint32_t align;
} zf_dlocal;

typedef struct zf_dkernel {
    uint32_t function;    /* the entry point's function */
    uint32_t local_first; /* into kernel_locals[]: (Workgroup variable, offset) pairs of this kernel */
    uint32_t local_count;
    uint32_t static_local_bytes;
    uint32_t itt_used; /* the kernel may deliver annotations */
} zf_dkernel;

typedef struct zf_dkernel_local {
    uint32_t variable;
    uint32_t offset;
} zf_dkernel_local;

/* Classes of decoded instructions, for what a launch executed (zf_work_counts, docs/cost-model.md). */
enum { ZF_OPS_ALU, ZF_OPS_MATH, ZF_OPS_MEMORY, ZF_OPS_BARRIER, ZF_OPS_ATOMIC, ZF_OPS_COUNT };

typedef struct zf_dprog {
    uint32_t const_bytes; /* per lane */
    uint32_t wave_bytes;  /* per lane */
    uint32_t flags;
    uint32_t num_insts, num_blocks, num_edges, num_copies, num_funcs, num_params, num_consts, num_relocs, num_waves,
        num_locals, num_kernels, num_kernel_locals, num_aux, num_bytes, num_strings;
    zf_dinst *insts;
    uint32_t *inst_words; /* SPIR-V word offset of each instruction's source (diagnostics, debug info) */
    zf_dblock *blocks;
    zf_dedge *edges;
    zf_dcopy *copies;
    zf_dfunc *funcs;
    zf_dparam *params;
    zf_dconst *consts;
    zf_dreloc *relocs;
    zf_dwave *waves;
    zf_dlocal *locals;
    zf_dkernel *kernels;
    zf_dkernel_local *kernel_locals;
    uint32_t *aux;
    uint8_t *bytes;
    char *strings;
    /* Derived when the form is made or loaded (not serialized): each block's instructions by class. */
    uint32_t (*block_ops)[ZF_OPS_COUNT];
    /* Derived at launches: the compiled tier's code for the kernels (compiled/cx.h), NULL until one is tried. */
    struct zf_cx_cache *compiled;
} zf_dprog;

enum {
    ZF_PROG_ITT = 1u << 0, /* annotations were enabled when it was decoded */
};

void zf_dprog_free(zf_dprog *prog);
/* Fills prog->block_ops (spirv_run.c, which knows the classes); false when out of host memory. */
bool zf_form_derive(zf_dprog *prog);

/* Bytes per lane of each operand of an instruction as the engine will read or write it, or 0 when the operand is
 * not a register reference for that operation. Used by the validator and the engine alike. */
typedef struct zf_operand_sizes {
    uint32_t dst, a, b, c;
} zf_operand_sizes;
bool zf_form_operand_sizes(const zf_dinst *inst, zf_operand_sizes *out);

/* Serialization: a self-describing little-endian blob (docs/spirv-execution.md). zf_form_load validates everything;
 * on failure *why says what is wrong. */
size_t zf_form_size(const zf_dprog *prog);
void zf_form_write(const zf_dprog *prog, uint8_t *out);
zf_dprog *zf_form_load(const uint8_t *data, size_t size, char *why, size_t why_size);
/* Checks an in-memory form (what zf_form_load does after parsing). */
bool zf_form_validate(const zf_dprog *prog, char *why, size_t why_size);

const char *zf_xop_name(uint32_t op);

/* Operand count of the OpenCL.std element-wise function n (0: not element-wise), which ZF_X_EXT names in aux: the
 * decoder emits, and the validator requires, exactly that many operands (defined with the decoder of the set). */
uint32_t zf_elementwise_args(uint32_t n);

#endif
