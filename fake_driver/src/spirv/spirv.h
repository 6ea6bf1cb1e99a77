/* The SPIR-V reader: turns a SPIR-V binary into what modules and kernels need (entry points, parameters, types and
 * their sizes, specialization constants, module globals, linkage), and keeps the instruction stream so that the
 * execution engine can later decode function bodies from the same module object.
 *
 * Reading happens in two steps, with specialization in between:
 *   1. zf_spirv_read: validates the header and walks every instruction without trusting any word count, recording
 *      declarations by word offset. Any malformed input fails with a log line naming the word offset and the problem.
 *   2. zf_spirv_set_spec_constant (any number of times): writes a value into the module's own copy of the words, so
 *      that the specialized module is itself valid SPIR-V (this is what native binaries carry).
 *   3. zf_spirv_finish: computes type layouts, global sizes and initial values, and each kernel's parameters.
 *
 * The reader is independent of the driver (no handles, no zf_core): the unit test links it on its own. */
#ifndef ZF_SPIRV_H
#define ZF_SPIRV_H

/* The SPIR-V numbering (opcodes, storage classes, decorations, execution modes, capabilities) is the Khronos
 * header's: Spv* names are the one table of those numbers in the project. */
#include <spirv/unified1/spirv.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ZF_SPIRV_MAGIC 0x07230203u
/* The SPIR-V universal limit on the id bound; larger bounds are refused before anything is allocated for them. */
#define ZF_SPIRV_MAX_BOUND 0x3FFFFFu
/* Composite constants and types nested deeper than this are refused (it bounds the reader's recursion). */
#define ZF_SPIRV_MAX_NESTING   64u
#define ZF_SPIRV_TYPE_NAME_MAX 64u

/* ------------------------------------------------------------------------------------------------------------------
 * Logs: growable text that the reader appends diagnostics to. */

typedef struct zf_spirv_log {
    char *text; /* NUL-terminated, or NULL when nothing was logged */
    size_t length;
    size_t capacity;
    bool truncated; /* a line was dropped for lack of memory */
} zf_spirv_log;

void zf_spirv_log_printf(zf_spirv_log *log, const char *format, ...) __attribute__((format(printf, 2, 3)));
/* The text ("" when empty); stays owned by the log. */
const char *zf_spirv_log_text(const zf_spirv_log *log);
void zf_spirv_log_free(zf_spirv_log *log);

/* ------------------------------------------------------------------------------------------------------------------
 * Results */

typedef enum zf_spirv_status {
    ZF_SPIRV_OK = 0,
    ZF_SPIRV_MALFORMED,   /* not valid SPIR-V: the log says where */
    ZF_SPIRV_UNSUPPORTED, /* valid, but not something an OpenCL-style Level Zero device runs */
    ZF_SPIRV_UNKNOWN_SPEC_ID,
    ZF_SPIRV_NO_MEMORY,
} zf_spirv_status;

/* ------------------------------------------------------------------------------------------------------------------
 * What the reader reports */

typedef struct zf_spirv_spec_constant {
    uint32_t spec_id; /* the SpecId decoration */
    uint32_t id;      /* the result id */
    uint32_t offset;  /* word offset of the OpSpecConstant* instruction */
    uint32_t bits;    /* 1 for booleans, else the integer/float width */
    bool is_bool;
    bool set;       /* a value was applied through zf_spirv_set_spec_constant */
    uint64_t value; /* the current value (default until set), zero-extended */
} zf_spirv_spec_constant;

typedef enum zf_spirv_arg_kind {
    ZF_SPIRV_ARG_VALUE,   /* by-value scalar, vector or struct: `size` bytes */
    ZF_SPIRV_ARG_POINTER, /* global, constant or generic pointer: a USM pointer */
    ZF_SPIRV_ARG_LOCAL,   /* local (Workgroup) pointer: the argument's size is the local memory to reserve */
    ZF_SPIRV_ARG_IMAGE,
    ZF_SPIRV_ARG_SAMPLER,
    ZF_SPIRV_ARG_OPAQUE, /* events, queues, pipes: a handle-sized value */
} zf_spirv_arg_kind;

typedef struct zf_spirv_arg {
    zf_spirv_arg_kind kind;
    uint32_t id;      /* the entry point's OpFunctionParameter */
    uint32_t storage; /* pointers: the storage class */
    uint64_t size;    /* the size zeKernelSetArgumentValue expects (0 for LOCAL: any positive size) */
    uint32_t align;
    bool byval; /* VALUE: a struct passed by value, which the kernel receives as a pointer to its own copy */
    char type[ZF_SPIRV_TYPE_NAME_MAX]; /* e.g. "global f32*", "i32", "struct params_t" (docs/modules.md) */
} zf_spirv_arg;

typedef struct zf_spirv_kernel {
    const char *name;  /* the OpEntryPoint name */
    uint32_t function; /* its OpFunction id */
    uint32_t num_args;
    zf_spirv_arg *args;
    bool has_local_size; /* reqd_work_group_size: LocalSize / LocalSizeId */
    uint32_t local_size[3];
    bool has_local_size_hint;
    uint32_t local_size_hint[3];
    uint32_t vec_type_hint; /* VecTypeHint literal, 0 = none */
    bool has_vec_type_hint;
    uint32_t subgroup_size;           /* SubgroupSize execution mode, 0 = none */
    uint32_t subgroups_per_workgroup; /* SubgroupsPerWorkgroup, 0 = none */
    uint64_t static_local_bytes;      /* module-scope Workgroup variables the kernel may use */
    uint64_t private_bytes;           /* Function-storage variables of every function it may call */
    uint64_t instructions;            /* instructions in every function it may call (the cost model's work) */
    char *attributes;                 /* OpenCL source attributes rebuilt from execution modes, "" when none */
} zf_spirv_kernel;

/* LinkageAttributes: EXPORT and ONCE_ODR (LinkOnceODR, SPV_KHR_linkonce_odr) are definitions other modules may
 * import; several modules may hold the same ONCE_ODR definition, and a strong EXPORT of the name is preferred to it
 * (docs/modules.md, "Dynamic linking"). */
typedef enum zf_spirv_linkage {
    ZF_SPIRV_LINK_NONE = 0,
    ZF_SPIRV_LINK_EXPORT,
    ZF_SPIRV_LINK_IMPORT,
    ZF_SPIRV_LINK_ONCE_ODR,
} zf_spirv_linkage;

/* Whether a symbol of this linkage defines something other modules' imports may bind to. */
static inline bool zf_spirv_linkage_defines(zf_spirv_linkage linkage) {
    return linkage == ZF_SPIRV_LINK_EXPORT || linkage == ZF_SPIRV_LINK_ONCE_ODR;
}

/* A module-scope variable an application can reach: CrossWorkgroup (`global`) or UniformConstant (`constant`). */
typedef struct zf_spirv_global {
    const char *name; /* linkage name, else OpName; NULL when it has neither */
    uint32_t id;
    uint32_t storage;
    zf_spirv_linkage linkage;
    uint64_t size;
    uint32_t align;
    uint32_t initializer; /* constant id, 0 = none (zero-filled) */
} zf_spirv_global;

/* An exported, LinkOnceODR or imported function or variable (LinkageAttributes), built-in variables excluded. */
typedef struct zf_spirv_symbol {
    const char *name;
    uint32_t id;
    zf_spirv_linkage linkage;
    bool is_function;
    uint32_t num_params; /* functions: for link-time checks */
    uint64_t size;       /* variables: bytes */
    uint32_t type;       /* functions: the OpTypeFunction; variables: the pointer type */
} zf_spirv_symbol;

typedef struct zf_spirv_module zf_spirv_module;

/* Step 1. Copies `size` bytes of SPIR-V (either byte order), validates the header and every instruction. On failure
 * *out is NULL and the log names the word offset and the problem. */
zf_spirv_status zf_spirv_read(const void *data, size_t size, zf_spirv_module **out, zf_spirv_log *log);

/* Step 1b. The SPIR-V Tools validator's rules for the module's SPIR-V version (what `spirv-val` checks): MALFORMED with
 * a log line naming the instruction's word offset, its opcode and the rule broken. Modules of extensions that validator
 * misjudges (SPV_INTEL_function_pointers) are left to the reader's and the decoder's own checks; debug information and
 * the order of blocks are left aside (spirv_validate.c). With `unlisted`, a SPIR-V 1.4 entry point that uses a
 * module-scope UniformConstant variable without listing it in its interface is accepted (as Intel's compiler does) and
 * *unlisted counts those variables; without it, such a module is refused as spirv-val refuses it. */
zf_spirv_status zf_spirv_validate(const zf_spirv_module *module, uint32_t *unlisted, zf_spirv_log *log);

/* Step 2. Sets the specialization constant with SpecId `spec_id` from `value` (1 byte for booleans, else its width
 * in bytes). ZF_SPIRV_UNKNOWN_SPEC_ID when the module has none with that id. */
zf_spirv_status zf_spirv_set_spec_constant(zf_spirv_module *module, uint32_t spec_id, const void *value,
                                           zf_spirv_log *log);

/* Step 3. Computes layouts, globals, kernels and symbols from the (specialized) words. */
zf_spirv_status zf_spirv_finish(zf_spirv_module *module, zf_spirv_log *log);

void zf_spirv_free(zf_spirv_module *module);

/* The module's words, in host byte order and with specializations applied. */
const uint32_t *zf_spirv_words(const zf_spirv_module *module, size_t *count);

/* FNV-1a over `size` bytes, from `hash` (the program UUID, the native binary checksum, the compiled tier's cache
 * keys). */
#define ZF_FNV1A_BASIS 0xcbf29ce484222325ull
uint64_t zf_fnv1a(const void *data, size_t size, uint64_t hash);
uint32_t zf_spirv_version(const zf_spirv_module *module); /* 0x00MMmm00 as in the header */

uint32_t zf_spirv_spec_constant_count(const zf_spirv_module *module);
const zf_spirv_spec_constant *zf_spirv_spec_constant_at(const zf_spirv_module *module, uint32_t index);
const zf_spirv_spec_constant *zf_spirv_find_spec_constant(const zf_spirv_module *module, uint32_t spec_id);

/* After zf_spirv_finish: */
uint32_t zf_spirv_kernel_count(const zf_spirv_module *module);
const zf_spirv_kernel *zf_spirv_kernel_at(const zf_spirv_module *module, uint32_t index);
const zf_spirv_kernel *zf_spirv_find_kernel(const zf_spirv_module *module, const char *name);

uint32_t zf_spirv_global_count(const zf_spirv_module *module);
const zf_spirv_global *zf_spirv_global_at(const zf_spirv_module *module, uint32_t index);

/* The address of the module-scope variable `variable_id` that an initializer points at; 0 when it has none yet. */
typedef uint64_t (*zf_spirv_address_fn)(void *user, uint32_t variable_id);
/* Writes the initial value of a global into dst (global->size bytes, already zeroed by the caller). A pointer in it
 * (another variable's address, a cast or constant access chain of one) takes the address `address` gives. */
zf_spirv_status zf_spirv_global_init(const zf_spirv_module *module, const zf_spirv_global *global, void *dst,
                                     zf_spirv_address_fn address, void *user, zf_spirv_log *log);

uint32_t zf_spirv_symbol_count(const zf_spirv_module *module);
const zf_spirv_symbol *zf_spirv_symbol_at(const zf_spirv_module *module, uint32_t index);

/* Whether two symbols, of the same or of different modules, have the same type: both functions with the same result
 * and parameter types, or both variables of the same storage class and pointee type. Types are compared by structure
 * (integer width and signedness, float width, vector and array lengths, struct members and CPacked, pointer storage
 * classes...), not by id or name; recursive types compare equal where they recur in step. Types nested deeper than
 * ZF_SPIRV_MAX_NESTING, or needing more than 1024 distinct type pairs, compare as different. */
bool zf_spirv_symbol_same_type(const zf_spirv_module *a, const zf_spirv_symbol *sa, const zf_spirv_module *b,
                               const zf_spirv_symbol *sb);

/* The symbol's type for logs: "i32(i32, global f32*)" for a function, "global i32" for a variable; cut short to
 * `size` bytes. */
void zf_spirv_symbol_type_name(const zf_spirv_module *module, const zf_spirv_symbol *symbol, char *out, size_t size);

/* Capabilities declared by OpCapability, in order. */
/* Whether the module declares the capability (OpCapability). */
bool zf_spirv_declares(const zf_spirv_module *module, uint32_t capability);
uint32_t zf_spirv_capability_count(const zf_spirv_module *module);
uint32_t zf_spirv_capability_at(const zf_spirv_module *module, uint32_t index);

/* Opens a private part of the driver, a shared object installed next to it (the compiled tier's libze_fake_cx.so, the
 * OpenCL face's libze_fake_clc.so), loaded when first needed so that a process that never needs LLVM never maps it
 * (docs/spirv-execution.md, "Compiled tier"). Returns dlopen's handle with the part's `entry` in *symbol, or NULL with
 * why; the caller keeps the handle for good (LLVM keeps state that unloading would not undo). */
void *zf_spirv_part_open(const char *file, const char *entry, void **symbol, char *why, size_t why_size);

#endif
