/* The OpenCL face's LLVM part, libze_fake_clc.so (cl_bitcode.c): clang's bitcode made ready for llvm-spirv-14 and the
 * kernels' argument information read from it. The face loads it at its first compile from source
 * (zf_spirv_part_open), so a process that never compiles OpenCL C does not map LLVM; the part uses only LLVM and the C
 * library, and the face uses it only when abi and version are its own. */
#ifndef ZF_CL_BITCODE_H
#define ZF_CL_BITCODE_H

#include "cl/zf_cl.h"

#define ZFCL_BITCODE_PART_ABI   1u
#define ZFCL_BITCODE_PART_FILE  "libze_fake_clc.so"
#define ZFCL_BITCODE_PART_ENTRY "zfcl_bitcode_part_entry"

typedef enum zfcl_bitcode_status {
    ZFCL_BITCODE_OK,
    ZFCL_BITCODE_UNREADABLE, /* the file cannot be read (why says how) */
    ZFCL_BITCODE_INVALID,    /* it holds no LLVM bitcode */
    ZFCL_BITCODE_NO_MEMORY,  /* no host memory for the argument information */
    ZFCL_BITCODE_UNWRITABLE  /* the rewritten module cannot be written back */
} zfcl_bitcode_status;

typedef struct zfcl_bitcode_part {
    uint32_t abi;
    const char *version; /* zefake's version it was built with */
    /* Rewrites the bitcode at `path` in place without freeze and appends each kernel's record to `infos` (malloc'ed,
     * freed by zfcl_arg_infos_free), with its argument information when `with_args`. */
    zfcl_bitcode_status (*prepare)(const char *path, zfcl_arg_infos *infos, bool with_args, char *why, size_t why_size);
} zfcl_bitcode_part;

typedef const zfcl_bitcode_part *(*zfcl_bitcode_part_entry_fn)(void);

#endif
