/* The SPIR-V Tools validator before anything else reads a module: what `spirv-val` refuses for the module's SPIR-V
 * version fails the build, with a log line naming the instruction's word offset, its opcode and the validator's
 * message (docs/modules.md, "What zeModuleCreate checks"). The reader and the decoder then check what the engine needs
 * on top of that; they never rely on this step, so a module that reaches them unvalidated (below) is still safe. */
#include "spirv_internal.h"

#include <spirv-tools/libspirv.h>
#include <stdio.h>
#include <string.h>

/* SPIR-V Tools 2023.1 refuses OpConstantFunctionPointerINTEL naming a function defined later, which
 * SPV_INTEL_function_pointers allows and its producers emit: such modules are not validated by it. */
#define ZF_UNVALIDATED_EXTENSION "SPV_INTEL_function_pointers"

/* The word offset of instruction number `index` (1 for the first after the header), 0 when there is none. */
static size_t zf_instruction_word(const uint32_t *words, size_t count, size_t index) {
    size_t at = 5;
    for (size_t n = 1; at < count; n++) {
        if (n == index)
            return at;
        uint32_t length = words[at] >> 16;
        if (length == 0)
            return 0;
        at += length;
    }
    return 0;
}

/* Whether the literal string in words [at, at + n) is `name` (SPIR-V packs 4 bytes a word, the first lowest). */
static bool zf_string_is(const uint32_t *words, size_t at, uint32_t n, const char *name) {
    size_t length = strlen(name);
    if ((size_t)n * 4 <= length)
        return false;
    for (size_t i = 0; i <= length; i++)
        if ((char)(words[at + i / 4] >> (8 * (i % 4))) != name[i])
            return false;
    return true;
}

static bool zf_declares_extension(const uint32_t *words, size_t count, const char *name) {
    for (size_t at = 5; at < count;) {
        uint32_t first = words[at], n = first >> 16;
        if (n == 0 || n > count - at)
            return false;
        if ((first & 0xFFFFu) == SpvOpExtension && zf_string_is(words, at + 1, n - 1, name))
            return true;
        at += n;
    }
    return false;
}

static spv_target_env zf_universal_env(uint32_t minor) {
    static const spv_target_env envs[] = {SPV_ENV_UNIVERSAL_1_0, SPV_ENV_UNIVERSAL_1_1, SPV_ENV_UNIVERSAL_1_2,
                                          SPV_ENV_UNIVERSAL_1_3, SPV_ENV_UNIVERSAL_1_4, SPV_ENV_UNIVERSAL_1_5,
                                          SPV_ENV_UNIVERSAL_1_6};
    return envs[minor < 6 ? minor : 6];
}

/* "<message>" of a diagnostic: its first line (the rest repeats the instruction in assembly). */
static void zf_log_diagnostic(zf_spirv_log *log, const uint32_t *words, size_t count, const spv_diagnostic diagnostic) {
    const char *text = diagnostic != NULL && diagnostic->error != NULL ? diagnostic->error : "(no message)";
    int first_line = (int)strcspn(text, "\n");
    size_t at = diagnostic != NULL ? zf_instruction_word(words, count, diagnostic->position.index) : 0;
    if (at == 0) {
        zf_spirv_log_printf(log, "SPIR-V: the SPIR-V validator refuses the module: %.*s", first_line, text);
        return;
    }
    char name[24];
    zf_spirv_log_printf(log, "SPIR-V word %zu (%s): the SPIR-V validator refuses the module: %.*s", at,
                        zf_spirv_opcode_name(words[at] & 0xFFFFu, name, sizeof name), first_line, text);
}

zf_spirv_status zf_spirv_validate(const zf_spirv_module *m, zf_spirv_log *log) {
    const uint32_t *words = m->words;
    size_t count = m->num_words;
    if (zf_declares_extension(words, count, ZF_UNVALIDATED_EXTENSION))
        return ZF_SPIRV_OK;
    spv_context context = spvContextCreate(zf_universal_env((m->version >> 8) & 0xFFu));
    if (context == NULL)
        return ZF_SPIRV_NO_MEMORY;
    spv_const_binary_t binary = {words, count};
    spv_diagnostic diagnostic = NULL;
    spv_result_t result = spvValidate(context, &binary, &diagnostic);
    if (result != SPV_SUCCESS)
        zf_log_diagnostic(log, words, count, diagnostic);
    spvDiagnosticDestroy(diagnostic);
    spvContextDestroy(context);
    if (result == SPV_ERROR_OUT_OF_MEMORY)
        return ZF_SPIRV_NO_MEMORY;
    return result == SPV_SUCCESS ? ZF_SPIRV_OK : ZF_SPIRV_MALFORMED;
}
