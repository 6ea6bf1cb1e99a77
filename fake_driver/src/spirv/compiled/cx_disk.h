/* The compiled tier's on-disk cache (docs/spirv-execution.md, "Compiled tier"; docs/environment.md): a kernel's
 * object code and block table in one file per key, so that another process running the same module links the code
 * instead of compiling it. */
#ifndef ZF_SPIRV_CX_DISK_H
#define ZF_SPIRV_CX_DISK_H

#include "cx_part.h"

/* 128 bits naming what the code was made from: the decoded form, the kernel, its argument kinds, zefake's version,
 * the LLVM part's build and the host CPU. */
typedef struct zf_cx_key {
    uint64_t a, b;
} zf_cx_key;

/* An entry is this header, the block table (num_blocks zf_cx_block) and the object file (object_size bytes), in host
 * byte order; checksum is the FNV-1a of the table and the object. */
/* The last digit is the format's version: an entry of another version is refused (version 1 had no region count,
 * version 2 no image read count, version 3 no count of accesses checked per group, version 4 no count of block counts
 * derived, version 5 no count of indices widened in 64 bits, version 6 no mark of rows across the wave, version 7 no
 * count of work-items in step). */
#define ZF_CX_DISK_MAGIC "ZFCXOBJ8"
typedef struct zf_cx_disk_header {
    char magic[8];
    uint64_t key_a, key_b;
    uint32_t num_blocks, spill_bytes;
    uint32_t num_regions, num_texsites;
    uint32_t num_proven, num_derived;
    uint32_t num_affine, wave_rows;
    uint32_t step_lanes, reserved;
    uint64_t object_size;
    uint64_t checksum;
} zf_cx_disk_header;

/* The name of the wave function that the object of key's entry defines. */
void zf_cx_disk_symbol(zf_cx_key key, char *out, size_t out_size);

/* The cache's directory ($ZEFAKE_CACHE_DIR, else $XDG_CACHE_HOME/zefake, else $HOME/.cache/zefake), or false when
 * ZEFAKE_CACHE=0 turns it off or no directory is known. */
bool zf_cx_disk_dir(char *out, size_t out_size);

/* The entry of key in dir into out (bytes and blocks malloc'ed). False when there is none; a damaged one is reported
 * in why (a warning for the caller to give) and ignored. */
bool zf_cx_disk_read(const char *dir, zf_cx_key key, zf_cx_object *out, char *why, size_t why_size);

/* Writes the entry through a temporary file renamed into place, so that concurrent processes see a whole entry or
 * none; false with why when it could not (the code is used anyway). */
bool zf_cx_disk_write(const char *dir, zf_cx_key key, const zf_cx_object *object, char *why, size_t why_size);

/* The entry's file name in dir. */
void zf_cx_disk_path(const char *dir, zf_cx_key key, char *out, size_t out_size);

/* Keeps dir's entries within limit bytes: when they hold more, removes the least recently used ones (by modification
 * time, which each read of an entry renews) until they hold three quarters of it, never key's entry; and removes
 * writers' temporary files older than an hour (their process died writing). Returns how many entries it removed, and
 * their bytes in *freed. */
uint32_t zf_cx_disk_trim(const char *dir, uint64_t limit, zf_cx_key keep, uint64_t *freed);

#endif
