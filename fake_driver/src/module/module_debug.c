/* zetModuleGetDebugInfo: the ELF file of a module's decoded programs that program instrumentation tools read
 * (docs/spirv-execution.md, "Program instrumentation"). */

#include "core/zf_bytes.h"
#include "core/zf_core.h"
#include "driver/zf_driver.h"
#include "module/module_internal.h"
#include "module/zf_module.h"

#include <elf.h>
#include <level_zero/zet_api.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------------------------------------------------
 * Program instrumentation (docs/spirv-execution.md, "Program instrumentation"): zetModuleGetDebugInfo answers an ELF
 * file (ZET_MODULE_DEBUG_INFO_FORMAT_ELF_DWARF is the only format) whose sections describe the decoded form the engine
 * runs: the form itself (the same bytes as the native binary's), the specialized SPIR-V, for each decoded instruction
 * the SPIR-V word it came from, and text tables of the functions and kernels (docs/spirv-execution.md, "Program
 * instrumentation"). No DWARF: there is no machine code to describe. */

typedef struct zf_elf_part {
    const char *name;
    uint32_t type;
    const void *data;
    size_t size;
} zf_elf_part;

/* Appends printf-formatted text to a malloc'ed string (*text, *length); false when out of memory. */
static bool __attribute__((format(printf, 3, 4))) zf_text_append(char **text, size_t *length, const char *format, ...) {
    va_list args;
    va_start(args, format);
    int n = vsnprintf(NULL, 0, format, args);
    va_end(args);
    char *grown = n >= 0 ? realloc(*text, *length + (size_t)n + 1) : NULL;
    if (grown == NULL)
        return false;
    va_start(args, format);
    vsnprintf(grown + *length, (size_t)n + 1, format, args);
    va_end(args);
    *text = grown;
    *length += (size_t)n;
    return true;
}

static char *zf_function_table(const zf_dprog *code, size_t *length) {
    char *text = NULL;
    bool ok = zf_text_append(&text, length, "# function spirv-id blocks instructions frame-bytes private-bytes name\n");
    for (uint32_t f = 0; ok && f < code->num_funcs; f++) {
        const zf_dfunc *fn = &code->funcs[f];
        ok =
            zf_text_append(&text, length, "%u %u %u %u %u %u %s\n", f, fn->spirv_id, fn->block_count, fn->instructions,
                           fn->frame_bytes, fn->private_bytes, fn->name != UINT32_MAX ? code->strings + fn->name : "-");
    }
    if (!ok)
        free(text);
    return ok ? text : NULL;
}

static char *zf_kernel_table(const zf_program *program, size_t *length) {
    char *text = NULL;
    bool ok = zf_text_append(&text, length,
                             "# kernel function functions blocks instructions registers frame-bytes private-bytes\n");
    for (uint32_t k = 0; ok && k < program->code->num_kernels; k++) {
        zf_form_stats st;
        zf_form_kernel_stats(program->code, k, &st);
        ok = zf_text_append(&text, length, "%s %u %u %u %u %u %u %u\n", zf_spirv_kernel_at(program->spirv, k)->name,
                            program->code->kernels[k].function, st.functions, st.blocks, st.instructions, st.registers,
                            st.frame_bytes, st.private_bytes);
    }
    if (!ok)
        free(text);
    return ok ? text : NULL;
}

/* An ELF64 little-endian relocatable file of the given sections (plus the null section and .shstrtab). */
static uint8_t *zf_elf_write(const zf_elf_part *parts, uint32_t count, size_t *size) {
    size_t names = 1 + strlen(".shstrtab") + 1;
    for (uint32_t i = 0; i < count; i++)
        names += strlen(parts[i].name) + 1;
    size_t at = sizeof(Elf64_Ehdr) + zf_align8(names);
    for (uint32_t i = 0; i < count; i++)
        at += zf_align8(parts[i].size);
    *size = at + (count + 2) * sizeof(Elf64_Shdr);
    uint8_t *out = calloc(1, *size);
    if (out == NULL)
        return NULL;
    Elf64_Ehdr header = {.e_ident = {ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3, ELFCLASS64, ELFDATA2LSB, EV_CURRENT},
                         .e_type = ET_REL,
                         .e_version = EV_CURRENT,
                         .e_shoff = at,
                         .e_ehsize = sizeof(Elf64_Ehdr),
                         .e_shentsize = sizeof(Elf64_Shdr),
                         .e_shnum = (uint16_t)(count + 2),
                         .e_shstrndx = 1};
    memcpy(out, &header, sizeof header);
    Elf64_Shdr *sections = (Elf64_Shdr *)(void *)(out + at);
    char *strtab = (char *)out + sizeof(Elf64_Ehdr);
    size_t name_at = 1, data_at = sizeof(Elf64_Ehdr) + zf_align8(names);
    memcpy(strtab + name_at, ".shstrtab", strlen(".shstrtab") + 1);
    sections[1] = (Elf64_Shdr){.sh_name = (uint32_t)name_at,
                               .sh_type = SHT_STRTAB,
                               .sh_offset = sizeof(Elf64_Ehdr),
                               .sh_size = names,
                               .sh_addralign = 1};
    name_at += strlen(".shstrtab") + 1;
    for (uint32_t i = 0; i < count; i++) {
        memcpy(strtab + name_at, parts[i].name, strlen(parts[i].name) + 1);
        sections[2 + i] = (Elf64_Shdr){.sh_name = (uint32_t)name_at,
                                       .sh_type = parts[i].type,
                                       .sh_offset = data_at,
                                       .sh_size = parts[i].size,
                                       .sh_addralign = 8};
        if (parts[i].size > 0)
            memcpy(out + data_at, parts[i].data, parts[i].size);
        name_at += strlen(parts[i].name) + 1;
        data_at += zf_align8(parts[i].size);
    }
    return out;
}

/* The sections of one program; a module of several programs has them for each, the names of program i > 0 ending
 * in ".<i>" (docs/spirv-execution.md, "Program instrumentation"). */
#define ZF_DEBUG_PARTS    5u
#define ZF_DEBUG_NAME_MAX 32u

typedef struct zf_debug_program {
    uint8_t *form;
    char *functions, *kernels;
    char names[ZF_DEBUG_PARTS][ZF_DEBUG_NAME_MAX];
} zf_debug_program;

static bool zf_debug_program_parts(const zf_program *program, uint32_t index, zf_debug_program *d, zf_elf_part *parts) {
    static const char *const names[ZF_DEBUG_PARTS] = {".zefake.decoded", ".zefake.spirv", ".zefake.lines",
                                                      ".zefake.functions", ".zefake.kernels"};
    size_t words_count, form_size = zf_form_size(program->code), functions_size = 0, kernels_size = 0;
    const uint32_t *words = zf_spirv_words(program->spirv, &words_count);
    d->form = malloc(form_size ? form_size : 1);
    d->functions = zf_function_table(program->code, &functions_size);
    d->kernels = zf_kernel_table(program, &kernels_size);
    if (d->form == NULL || d->functions == NULL || d->kernels == NULL)
        return false;
    zf_form_write(program->code, d->form);
    for (uint32_t i = 0; i < ZF_DEBUG_PARTS; i++) {
        if (index == 0)
            snprintf(d->names[i], ZF_DEBUG_NAME_MAX, "%s", names[i]);
        else
            snprintf(d->names[i], ZF_DEBUG_NAME_MAX, "%s.%u", names[i], index);
    }
    const zf_elf_part made[ZF_DEBUG_PARTS] = {
        {d->names[0], SHT_PROGBITS, d->form, form_size},
        {d->names[1], SHT_PROGBITS, words, words_count * 4},
        {d->names[2], SHT_PROGBITS, program->code->inst_words, program->code->num_insts * 4u},
        {d->names[3], SHT_PROGBITS, d->functions, functions_size},
        {d->names[4], SHT_PROGBITS, d->kernels, kernels_size},
    };
    memcpy(parts, made, sizeof made);
    return true;
}

static uint8_t *zf_debug_info(const zf_module *module, size_t *size) {
    uint32_t n = module->num_programs;
    zf_debug_program *programs = calloc(n, sizeof *programs);
    zf_elf_part *parts = calloc((size_t)n * ZF_DEBUG_PARTS, sizeof *parts);
    bool ok = programs != NULL && parts != NULL;
    for (uint32_t i = 0; ok && i < n; i++)
        ok = zf_debug_program_parts(module->programs[i], i, &programs[i], parts + (size_t)i * ZF_DEBUG_PARTS);
    uint8_t *elf = ok ? zf_elf_write(parts, n * ZF_DEBUG_PARTS, size) : NULL;
    for (uint32_t i = 0; programs != NULL && i < n; i++) {
        free(programs[i].form);
        free(programs[i].functions);
        free(programs[i].kernels);
    }
    free(programs);
    free(parts);
    return elf;
}

ze_result_t zfi_zetModuleGetDebugInfo(zet_module_handle_t hModule, zet_module_debug_info_format_t format, size_t *pSize,
                                      uint8_t *pDebugInfo) {
    (void)format; /* ELF_DWARF, the only value the entry point lets through */
    size_t size = 0;
    uint8_t *elf = zf_debug_info(zf_module_from(hModule), &size);
    if (elf == NULL)
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory for the module's debug information");
    ze_result_t result = ZE_RESULT_SUCCESS;
    if (pDebugInfo != NULL && *pSize < size)
        result =
            zf_fail(ZE_RESULT_ERROR_INVALID_SIZE, "*pSize is %zu, the debug information needs %zu bytes", *pSize, size);
    else if (pDebugInfo != NULL)
        memcpy(pDebugInfo, elf, size);
    *pSize = size;
    free(elf);
    return result;
}
