/* The compiled tier's loader of object code (cx_elf.h): links one x86-64 ELF relocatable object, as the LLVM part
 * writes it (large code model, static relocations), into memory of its own, without LLVM, so that code from the
 * on-disk cache runs in a process that never loads LLVM. The object is checked as untrusted input: every header,
 * section, symbol and relocation must lie inside the bytes and name what exists; a relocation of a kind the part
 * does not write refuses the object (the kernel is compiled again).
 *
 * Layout: the executable sections, then a stub per external call of 32-bit reach (`jmp *0(%rip)` and the address),
 * page-aligned, then the other allocated sections. Call frame information (.eh_frame) is not loaded: nothing unwinds
 * through kernels. External names are the helpers of the generated code (ZF_CX_HELPERS) or the process's own symbols
 * (libm, and glibc's vector math library, loaded when the code calls into it). */
#include "cx_elf.h"

#include <dlfcn.h>
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define ZF_CX_STUB_BYTES 16u
/* An image larger than this is not code the part wrote (a section without bytes in the file may announce any size). */
#define ZF_CX_MAX_IMAGE (256ull << 20)

struct zf_cx_image {
    uint8_t *base;
    size_t size;
    size_t code_size; /* the executable part, from base */
};

typedef struct zf_cx_elf {
    const uint8_t *bytes;
    size_t size;
    const Elf64_Ehdr *eh;
    const Elf64_Shdr *sh;
    const Elf64_Shdr *symtab;
    const char *strtab;
    size_t strtab_size;
    uint64_t *place; /* per section: its offset in the image, UINT64_MAX when not loaded */
    size_t stubs_at; /* offset of the stub area */
    size_t text;     /* the executable part (code and stubs, whole pages) */
    bool writable;   /* a loaded section is written by the code */
    uint32_t stubs;  /* stubs used */
    uint32_t max_stubs;
    uint8_t *image;
    const zf_cx_symbol *helpers;
    uint32_t num_helpers;
    char *why;
    size_t why_size;
} zf_cx_elf;

static bool zf_cx_elf_fail(zf_cx_elf *l, const char *what) {
    snprintf(l->why, l->why_size, "object code: %s", what);
    return false;
}

static bool zf_cx_elf_range(const zf_cx_elf *l, uint64_t offset, uint64_t size) {
    return offset <= l->size && size <= l->size - offset;
}

static const char *zf_cx_section_name(const zf_cx_elf *l, const Elf64_Shdr *s) {
    const Elf64_Shdr *names = &l->sh[l->eh->e_shstrndx];
    if (names->sh_type != SHT_STRTAB || s->sh_name >= names->sh_size) /* only a string table's bytes were checked */
        return "";
    const char *name = (const char *)l->bytes + names->sh_offset + s->sh_name;
    return memchr(name, '\0', names->sh_size - s->sh_name) != NULL ? name : "";
}

/* The header, the section table and each section's bytes. */
static bool zf_cx_elf_headers(zf_cx_elf *l) {
    if (l->size < sizeof(Elf64_Ehdr))
        return zf_cx_elf_fail(l, "shorter than an ELF header");
    if ((uintptr_t)l->bytes % 8 != 0)
        return zf_cx_elf_fail(l, "not in memory aligned to 8 bytes"); /* the tables are read in place */
    l->eh = (const Elf64_Ehdr *)l->bytes;
    const Elf64_Ehdr *eh = l->eh;
    if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
        eh->e_ident[EI_DATA] != ELFDATA2LSB || eh->e_type != ET_REL || eh->e_machine != EM_X86_64)
        return zf_cx_elf_fail(l, "not an x86-64 ELF relocatable object");
    if (eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shnum == 0 || eh->e_shstrndx >= eh->e_shnum ||
        !zf_cx_elf_range(l, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr)) || eh->e_shoff % 8 != 0)
        return zf_cx_elf_fail(l, "bad section table");
    l->sh = (const Elf64_Shdr *)(l->bytes + eh->e_shoff);
    for (uint32_t i = 0; i < eh->e_shnum; i++) {
        const Elf64_Shdr *s = &l->sh[i];
        if (s->sh_type != SHT_NOBITS && !zf_cx_elf_range(l, s->sh_offset, s->sh_size))
            return zf_cx_elf_fail(l, "a section lies outside the object");
        if (s->sh_type == SHT_NOBITS && s->sh_size > ZF_CX_MAX_IMAGE)
            return zf_cx_elf_fail(l, "a section without bytes is too large");
        if (s->sh_addralign > 4096 || (s->sh_addralign & (s->sh_addralign - 1)) != 0)
            return zf_cx_elf_fail(l, "a section's alignment is not a power of two up to 4096");
        if (s->sh_type == SHT_SYMTAB) {
            if (l->symtab != NULL || s->sh_entsize != sizeof(Elf64_Sym) || s->sh_link >= eh->e_shnum ||
                s->sh_offset % 8 != 0 || l->sh[s->sh_link].sh_type != SHT_STRTAB)
                return zf_cx_elf_fail(l, "bad symbol table");
            l->symtab = s;
        }
        if (s->sh_type == SHT_RELA && (s->sh_entsize != sizeof(Elf64_Rela) || s->sh_link >= eh->e_shnum ||
                                       s->sh_info >= eh->e_shnum || s->sh_offset % 8 != 0))
            return zf_cx_elf_fail(l, "bad relocation section");
    }
    if (l->symtab == NULL)
        return zf_cx_elf_fail(l, "no symbol table");
    const Elf64_Shdr *strings = &l->sh[l->symtab->sh_link];
    l->strtab = (const char *)l->bytes + strings->sh_offset;
    l->strtab_size = strings->sh_size;
    return true;
}

static bool zf_cx_loaded_section(const zf_cx_elf *l, const Elf64_Shdr *s) {
    return s->sh_type != SHT_NULL && (s->sh_flags & SHF_ALLOC) != 0 &&
           strcmp(zf_cx_section_name(l, s), ".eh_frame") != 0;
}

/* The stubs the relocations may need: one per relocation (none when the image would be too large). */
static bool zf_cx_elf_count_stubs(zf_cx_elf *l) {
    uint64_t count = 0;
    for (uint32_t i = 0; i < l->eh->e_shnum; i++)
        if (l->sh[i].sh_type == SHT_RELA)
            count += l->sh[i].sh_size / sizeof(Elf64_Rela); /* sections lie in the object: no overflow */
    if (count > ZF_CX_MAX_IMAGE / ZF_CX_STUB_BYTES)
        return false;
    l->max_stubs = (uint32_t)count;
    return true;
}

/* Places the sections (executable ones first) and the stubs; the image's size, 0 when it would be too large. Sizes
 * add up in 64 bits: each section is at most ZF_CX_MAX_IMAGE and there are fewer than 2^16. */
static size_t zf_cx_elf_layout(zf_cx_elf *l) {
    if (!zf_cx_elf_count_stubs(l))
        return 0;
    uint64_t at = 0, page = (uint64_t)sysconf(_SC_PAGESIZE);
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t i = 0; i < l->eh->e_shnum; i++) {
            const Elf64_Shdr *s = &l->sh[i];
            bool exec = (s->sh_flags & SHF_EXECINSTR) != 0;
            if (!zf_cx_loaded_section(l, s) || exec != (pass == 0))
                continue;
            uint64_t align = s->sh_addralign ? s->sh_addralign : 1;
            at = (at + align - 1) & ~(align - 1);
            l->place[i] = at;
            at += s->sh_size;
            l->writable |= (s->sh_flags & SHF_WRITE) != 0;
        }
        if (pass == 0) {
            at = (at + 15u) & ~(uint64_t)15u;
            l->stubs_at = (size_t)at;
            at += (uint64_t)l->max_stubs * ZF_CX_STUB_BYTES;
            at = (at + page - 1) & ~(page - 1);
            l->text = (size_t)at;
        }
        if (at > ZF_CX_MAX_IMAGE)
            return 0;
    }
    return at ? (size_t)at : 1;
}

static const char *zf_cx_symbol_name(const zf_cx_elf *l, const Elf64_Sym *sym) {
    if (sym->st_name >= l->strtab_size)
        return NULL;
    const char *name = l->strtab + sym->st_name;
    return memchr(name, '\0', l->strtab_size - sym->st_name) != NULL ? name : NULL;
}

/* The address of an external name: a helper, else the process's symbol. */
static uint64_t zf_cx_external(const zf_cx_elf *l, const char *name) {
    for (uint32_t i = 0; i < l->num_helpers; i++)
        if (strcmp(l->helpers[i].name, name) == 0)
            return l->helpers[i].address;
    size_t prefix = strlen(ZF_CX_LIBM_PREFIX);
    if (strncmp(name, ZF_CX_LIBM_PREFIX, prefix) == 0)
        name += prefix; /* a math function of the C library (cx_emit_ops.c) */
    if (strncmp(name, "_ZGV", 4) == 0 && dlopen("libmvec.so.1", RTLD_NOW | RTLD_GLOBAL) == NULL)
        return 0; /* the vector math library is not installed */
    return (uint64_t)(uintptr_t)dlsym(RTLD_DEFAULT, name);
}

/* A symbol's address in the image (or outside it, for an external one); false when it has none. */
static bool zf_cx_elf_symbol(zf_cx_elf *l, uint64_t index, uint64_t *out, bool *external) {
    if (index >= l->symtab->sh_size / sizeof(Elf64_Sym))
        return zf_cx_elf_fail(l, "a relocation names no symbol");
    const Elf64_Sym *sym = (const Elf64_Sym *)(l->bytes + l->symtab->sh_offset) + index;
    *external = sym->st_shndx == SHN_UNDEF;
    if (*external) {
        const char *name = zf_cx_symbol_name(l, sym);
        *out = name != NULL ? zf_cx_external(l, name) : 0;
        if (*out == 0) {
            snprintf(l->why, l->why_size, "object code: undefined symbol %.80s", name != NULL ? name : "?");
            return false;
        }
        return true;
    }
    if (sym->st_shndx == SHN_ABS) {
        *out = sym->st_value;
        return true;
    }
    if (sym->st_shndx >= l->eh->e_shnum || l->place[sym->st_shndx] == UINT64_MAX ||
        sym->st_value > l->sh[sym->st_shndx].sh_size)
        return zf_cx_elf_fail(l, "a relocation names a symbol of a section that is not loaded");
    *out = (uint64_t)(uintptr_t)l->image + l->place[sym->st_shndx] + sym->st_value;
    return true;
}

/* A stub jumping to an external address, for a 32-bit relative call. */
static uint64_t zf_cx_elf_stub(zf_cx_elf *l, uint64_t target) {
    uint8_t *stub = l->image + l->stubs_at + (size_t)l->stubs++ * ZF_CX_STUB_BYTES;
    static const uint8_t jump[6] = {0xff, 0x25, 0, 0, 0, 0}; /* jmp *0(%rip): the address follows */
    memcpy(stub, jump, sizeof jump);
    memcpy(stub + 6, &target, 8);
    return (uint64_t)(uintptr_t)stub;
}

static bool zf_cx_elf_rela(zf_cx_elf *l, const Elf64_Shdr *rs) {
    const Elf64_Shdr *target = &l->sh[rs->sh_info];
    const Elf64_Rela *r = (const Elf64_Rela *)(l->bytes + rs->sh_offset);
    for (size_t k = 0; k < rs->sh_size / sizeof *r; k++) {
        uint32_t type = (uint32_t)ELF64_R_TYPE(r[k].r_info);
        size_t width = type == R_X86_64_64 || type == R_X86_64_PC64 ? 8 : 4;
        if (r[k].r_offset > target->sh_size || width > target->sh_size - r[k].r_offset)
            return zf_cx_elf_fail(l, "a relocation lies outside its section");
        uint64_t s = 0;
        bool external = false;
        if (!zf_cx_elf_symbol(l, ELF64_R_SYM(r[k].r_info), &s, &external))
            return false;
        uint8_t *p = l->image + l->place[rs->sh_info] + r[k].r_offset;
        uint64_t pc = (uint64_t)(uintptr_t)p, a = (uint64_t)r[k].r_addend, v;
        switch (type) {
        case R_X86_64_64:
            v = s + a;
            break;
        case R_X86_64_PC64:
            v = s + a - pc;
            break;
        case R_X86_64_PC32:
        case R_X86_64_PLT32:
            v = (external ? zf_cx_elf_stub(l, s) : s) + a - pc;
            if ((int64_t)v != (int32_t)v)
                return zf_cx_elf_fail(l, "a 32-bit relative relocation is out of reach");
            break;
        default:
            snprintf(l->why, l->why_size, "object code: relocation type %u is not supported", type);
            return false;
        }
        memcpy(p, &v, width);
    }
    return true;
}

/* Copies the sections into the image and applies the relocations of loaded sections. */
static bool zf_cx_elf_link(zf_cx_elf *l) {
    for (uint32_t i = 0; i < l->eh->e_shnum; i++) {
        const Elf64_Shdr *s = &l->sh[i];
        if (l->place[i] != UINT64_MAX && s->sh_type != SHT_NOBITS)
            memcpy(l->image + l->place[i], l->bytes + s->sh_offset, s->sh_size);
    }
    for (uint32_t i = 0; i < l->eh->e_shnum; i++) {
        const Elf64_Shdr *rs = &l->sh[i];
        if (rs->sh_type == SHT_RELA && l->place[rs->sh_info] != UINT64_MAX && !zf_cx_elf_rela(l, rs))
            return false;
    }
    return true;
}

/* Whether a symbol lies inside a loaded executable section: what the process may jump to. */
static bool zf_cx_elf_in_code(const zf_cx_elf *l, const Elf64_Sym *sym) {
    if (sym->st_shndx == SHN_UNDEF || sym->st_shndx >= l->eh->e_shnum || l->place[sym->st_shndx] == UINT64_MAX)
        return false;
    const Elf64_Shdr *s = &l->sh[sym->st_shndx];
    return (s->sh_flags & SHF_EXECINSTR) != 0 && sym->st_value < s->sh_size;
}

/* The address of the defined global function `symbol`, or 0 (with why when it is not code). */
static uint64_t zf_cx_elf_find(zf_cx_elf *l, const char *symbol) {
    const Elf64_Sym *syms = (const Elf64_Sym *)(l->bytes + l->symtab->sh_offset);
    for (size_t k = 0; k < l->symtab->sh_size / sizeof *syms; k++) {
        const char *name = zf_cx_symbol_name(l, &syms[k]);
        if (name == NULL || strcmp(name, symbol) != 0 || ELF64_ST_TYPE(syms[k].st_info) != STT_FUNC)
            continue;
        if (!zf_cx_elf_in_code(l, &syms[k])) {
            zf_cx_elf_fail(l, "the wave function is not in an executable section");
            return 0;
        }
        return (uint64_t)(uintptr_t)l->image + l->place[syms[k].st_shndx] + syms[k].st_value;
    }
    return 0;
}

zf_cx_image *zf_cx_elf_load(const uint8_t *bytes, size_t size, const char *symbol, const zf_cx_symbol *helpers,
                            uint32_t num_helpers, uint64_t *address, char *why, size_t why_size) {
    zf_cx_elf l = {
        .bytes = bytes, .size = size, .helpers = helpers, .num_helpers = num_helpers, .why = why, .why_size = why_size};
    zf_cx_image *image = NULL;
    why[0] = '\0';
    if (!zf_cx_elf_headers(&l))
        return NULL;
    l.place = malloc(l.eh->e_shnum * sizeof *l.place);
    if (l.place == NULL) {
        zf_cx_elf_fail(&l, "out of host memory");
        return NULL;
    }
    memset(l.place, 0xff, l.eh->e_shnum * sizeof *l.place);
    size_t total = zf_cx_elf_layout(&l);
    if (total == 0) {
        zf_cx_elf_fail(&l, "its sections and relocations would take more than 256 MiB");
        free(l.place);
        return NULL;
    }
    void *map = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED) {
        zf_cx_elf_fail(&l, "no memory for the code");
        free(l.place);
        return NULL;
    }
    l.image = map;
    size_t text = l.text;
    bool ok = zf_cx_elf_link(&l) && (*address = zf_cx_elf_find(&l, symbol)) != 0;
    if (!ok && why[0] == '\0')
        zf_cx_elf_fail(&l, "no wave function in the object");
    /* Code executable and read-only, the rest read-only unless the code writes a section of its own. */
    int data = l.writable ? PROT_READ | PROT_WRITE : PROT_READ;
    ok = ok && mprotect(map, text, PROT_READ | PROT_EXEC) == 0 && /* text > 0: the wave function is code */
         (total <= text || mprotect((uint8_t *)map + text, total - text, data) == 0);
    if (ok && (image = malloc(sizeof *image)) != NULL)
        *image = (zf_cx_image){map, total, text};
    if (image == NULL) {
        if (ok)
            zf_cx_elf_fail(&l, "out of host memory");
        munmap(map, total);
    }
    free(l.place);
    return image;
}

void zf_cx_elf_unload(zf_cx_image *image) {
    if (image == NULL)
        return;
    munmap(image->base, image->size);
    free(image);
}

const uint8_t *zf_cx_elf_code(const zf_cx_image *image, size_t *size) {
    *size = image->code_size;
    return image->base;
}

/* The NT_GNU_BUILD_ID note among the notes of [p, end), in hex. */
static bool zf_cx_build_id_note(const uint8_t *p, const uint8_t *end, char *hex, size_t hex_size) {
    while (p + sizeof(Elf64_Nhdr) <= end) {
        Elf64_Nhdr note;
        memcpy(&note, p, sizeof note);
        const uint8_t *desc = p + sizeof note + ((note.n_namesz + 3u) & ~3u);
        if (desc > end || note.n_descsz > (size_t)(end - desc))
            return false;
        if (note.n_type == NT_GNU_BUILD_ID && note.n_namesz == 4 && memcmp(p + sizeof note, "GNU", 4) == 0) {
            for (uint32_t k = 0; k < note.n_descsz && 2 * k + 2 < hex_size; k++)
                snprintf(hex + 2 * k, 3, "%02x", desc[k]);
            return true;
        }
        p = desc + ((note.n_descsz + 3u) & ~3u);
    }
    return false;
}

bool zf_cx_elf_build_id(const uint8_t *bytes, size_t size, char *hex, size_t hex_size) {
    Elf64_Ehdr eh;
    if (size < sizeof eh || hex_size == 0)
        return false;
    memcpy(&eh, bytes, sizeof eh);
    if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
        eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phoff > size ||
        (uint64_t)eh.e_phnum * sizeof(Elf64_Phdr) > size - eh.e_phoff)
        return false;
    hex[0] = '\0';
    for (uint32_t i = 0; i < eh.e_phnum; i++) {
        Elf64_Phdr ph;
        memcpy(&ph, bytes + eh.e_phoff + (size_t)i * sizeof ph, sizeof ph);
        if (ph.p_type == PT_NOTE && ph.p_offset <= size && ph.p_filesz <= size - ph.p_offset &&
            zf_cx_build_id_note(bytes + ph.p_offset, bytes + ph.p_offset + ph.p_filesz, hex, hex_size))
            return true;
    }
    return false;
}
