/* The compiled tier's loader of the object code the LLVM part writes (cx_elf.c): no LLVM needed to run it. */
#ifndef ZF_SPIRV_CX_ELF_H
#define ZF_SPIRV_CX_ELF_H

#include "cx_part.h"

/* A name the generated code calls and its address in this process. */
typedef struct zf_cx_symbol {
    const char *name;
    uint64_t address;
} zf_cx_symbol;

typedef struct zf_cx_image zf_cx_image;

/* Links the object into memory of its own and gives the address of its function `symbol`; NULL with why (which the
 * caller starts empty) when the object is malformed, uses what the loader does not link, or names an unknown symbol.
 * External names resolve to helpers (name, address) first, then to the process's symbols. */
zf_cx_image *zf_cx_elf_load(const uint8_t *bytes, size_t size, const char *symbol, const zf_cx_symbol *helpers,
                            uint32_t num_helpers, uint64_t *address, char *why, size_t why_size);
void zf_cx_elf_unload(zf_cx_image *image);

/* The image's executable part (the code and the stubs), where the address zf_cx_elf_load gave lies. */
const uint8_t *zf_cx_elf_code(const zf_cx_image *image, size_t *size);

/* The GNU build id of an ELF file's bytes (program headers' notes), in hex; false without one. */
bool zf_cx_elf_build_id(const uint8_t *bytes, size_t size, char *hex, size_t hex_size);

#endif
