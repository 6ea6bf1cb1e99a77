/* The SPIR-V Tools validator before anything else reads a module: what `spirv-val` refuses for the module's SPIR-V
 * version fails the build, with a log line naming the instruction's word offset, its opcode and the validator's
 * message (docs/modules.md, "What zeModuleCreate checks"). The reader and the decoder then check what the engine needs
 * on top of that; they never rely on this step, so a module that reaches them unvalidated (below) is still safe.
 *
 * The validator sees a copy of the module that leaves out what the engine does not depend on and producers often get
 * wrong: the imports of debug sets and their instructions (the engine runs none of them; SPIR-V Tools does not know
 * the legacy set SPIRV.debug of llvm-spirv --spirv-debug-info-version=legacy and older translators, and llvm-spirv-14's
 * OpenCL.DebugInfo.100 breaks several of its rules), and the order of each function's blocks (llvm-spirv-14 with -g
 * may place a block before its dominator; the engine orders blocks itself, spirv_cfg.c): the copy has them in reverse
 * post-order. Every other rule, dominance of definitions over uses included, applies as to the module.
 *
 * One rule may be tolerated (docs/tolerances.md): SPIR-V 1.4 requires an OpEntryPoint to list every module-scope
 * variable its call tree uses, and llvm-spirv-14 omits a UniformConstant variable reached only through another's
 * initializer (a program-scope constant array of pointers to another). Intel's compiler accepts such modules; the copy
 * then has the variable added to the entry point's interface, one validation at a time.
 *
 * SPIR-V Tools also parse a module with integers of other widths (SPV_INTEL_arbitrary_precision_integers) for the
 * decoder: which instructions produce or read such an integer, by their operands' kinds (an id, not a literal). */
#include "spirv_internal.h"

#include <spirv-tools/libspirv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Extensions whose modules SPIR-V Tools 2023.1 refuses where Intel's compiler takes them, and which are therefore not
 * validated by it: OpConstantFunctionPointerINTEL naming a function defined later (SPV_INTEL_function_pointers
 * allows it and its producers emit it), integers of widths other than 8, 16, 32 and 64 bits
 * (SPV_INTEL_arbitrary_precision_integers). The reader and the decoder still check them. */
static const char *const zf_unvalidated_extensions[] = {"SPV_INTEL_function_pointers",
                                                        "SPV_INTEL_arbitrary_precision_integers"};

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

bool zf_spirv_is_debug_set(const char *name) {
    return strcmp(name, "OpenCL.DebugInfo.100") == 0 || strcmp(name, "SPIRV.debug") == 0 ||
           strcmp(name, "DebugInfo") == 0 || strncmp(name, "NonSemantic.", 12) == 0;
}

/* The module as the validator sees it: its words without debug-set imports and instructions, each function's blocks
 * in an order where a block follows its dominators, and for each instruction its number in the module (diagnostics
 * name instructions by number). */
typedef struct zf_val_copy {
    uint32_t *words;
    size_t count;
    size_t *index_of; /* index_of[n]: the module's number of the copy's instruction n (1 for the first) */
    size_t kept;      /* instructions in the copy */
    const uint32_t *src;
    uint32_t bound;
    uint8_t *debug_set; /* per id: 1 for the import of a debug set */
    uint32_t *block_of; /* per label id: its block in the function being copied, plus 1 */
} zf_val_copy;

static bool zf_is_debug_import(const uint32_t *words, size_t at, uint32_t n) {
    if ((words[at] & 0xFFFFu) != SpvOpExtInstImport || n < 3)
        return false;
    const uint32_t *w = &words[at + 2];
    char name[64] = "";
    size_t length = 0;
    for (; length < sizeof name - 1 && length / 4 < n - 2; length++) {
        name[length] = (char)(w[length / 4] >> (8 * (length % 4)));
        if (name[length] == '\0')
            break;
    }
    name[length] = '\0';
    return zf_spirv_is_debug_set(name);
}

/* Appends instruction number `index` at `at` unless it is debug information. */
static void zf_keep(zf_val_copy *c, size_t at, size_t index) {
    const uint32_t *w = &c->src[at];
    uint32_t n = w[0] >> 16, opcode = w[0] & 0xFFFFu;
    if ((opcode == SpvOpExtInstImport && w[1] < c->bound && c->debug_set[w[1]]) ||
        (opcode == SpvOpExtInst && n >= 4 && w[3] < c->bound && c->debug_set[w[3]]))
        return;
    memcpy(&c->words[c->count], w, n * sizeof *w);
    c->count += n;
    c->index_of[++c->kept] = index;
}

/* One function's blocks: where each starts (its OpLabel), its instruction number, and the order they are copied in. */
typedef struct zf_val_blocks {
    size_t *at, *index;
    uint32_t *order, *stack, *next;
    uint8_t *seen;
    uint32_t count;
} zf_val_blocks;

/* Successor `k` of the block whose terminator is `w` (a label id), 0 when it has no more. A switch's case literals are
 * 1 or 2 words (the selector's width): the width is the one that makes every target a label of the function. */
static uint32_t zf_successor(const zf_val_copy *c, const uint32_t *w, uint32_t k) {
    uint32_t n = w[0] >> 16, opcode = w[0] & 0xFFFFu;
    if (opcode == SpvOpBranch)
        return k == 0 && n >= 2 ? w[1] : 0;
    if (opcode == SpvOpBranchConditional)
        return k < 2 && n >= 4 ? w[2 + k] : 0;
    if (opcode != SpvOpSwitch || n < 3)
        return 0;
    if (k == 0)
        return w[2];
    for (uint32_t width = 1; width <= 2; width++) {
        bool fits = (n - 3) % (width + 1) == 0;
        for (uint32_t at = 3 + width; fits && at < n; at += width + 1)
            fits = w[at] < c->bound && c->block_of[w[at]] != 0;
        if (fits)
            return k - 1 < (n - 3) / (width + 1) ? w[3 + width + (k - 1) * (width + 1)] : 0;
    }
    return 0;
}

/* Reverse post-order from the entry block (a block after every block that dominates it), then the blocks no path
 * reaches, in module order. */
static void zf_order_blocks(zf_val_copy *c, zf_val_blocks *b, const size_t *terminator) {
    uint32_t done = 0, top = 0;
    b->stack[top++] = 0;
    b->seen[0] = 1;
    while (top > 0) {
        uint32_t v = b->stack[top - 1], succ = zf_successor(c, &c->src[terminator[v]], b->next[v]++);
        if (succ == 0) {
            b->order[done++] = v;
            top--;
            continue;
        }
        uint32_t to = succ < c->bound ? c->block_of[succ] : 0;
        if (to != 0 && !b->seen[to - 1]) {
            b->seen[to - 1] = 1;
            b->stack[top++] = to - 1;
        }
    }
    for (uint32_t i = 0; i < done / 2; i++) {
        uint32_t t = b->order[i];
        b->order[i] = b->order[done - 1 - i];
        b->order[done - 1 - i] = t;
    }
    for (uint32_t v = 0; v < b->count; v++)
        if (!b->seen[v])
            b->order[done++] = v;
}
static void zf_blocks_free(zf_val_blocks *b) {
    free(b->at);
    free(b->index);
    free(b->order);
    free(b->stack);
    free(b->next);
    free(b->seen);
}

/* Copies the function whose OpFunction is instruction `*index` at `*at`, up to its OpFunctionEnd (or the end of the
 * module); leaves both after it. False when out of memory. */
static bool zf_copy_function(zf_val_copy *c, size_t count, size_t *at, size_t *index) {
    size_t a = *at, i = *index, body_end = count, end_index = i;
    zf_val_blocks b = {0};
    uint32_t blocks = 0;
    for (size_t x = a, n = i; x < count; x += c->src[x] >> 16, n++) { /* count the blocks, find the end */
        uint32_t opcode = c->src[x] & 0xFFFFu;
        blocks += opcode == SpvOpLabel;
        if (opcode == SpvOpFunctionEnd) {
            body_end = x;
            end_index = n;
            break;
        }
    }
    size_t cap = blocks ? blocks : 1;
    b.at = malloc((cap + 1) * sizeof *b.at);
    b.index = malloc((cap + 1) * sizeof *b.index);
    b.order = malloc(cap * sizeof *b.order);
    b.stack = malloc(cap * sizeof *b.stack);
    b.next = calloc(cap, sizeof *b.next);
    b.seen = calloc(cap, 1);
    size_t *terminator = malloc(cap * sizeof *terminator);
    if (!b.at || !b.index || !b.order || !b.stack || !b.next || !b.seen || !terminator) {
        zf_blocks_free(&b);
        free(terminator);
        return false;
    }
    size_t x = a, n = i;
    for (; x < body_end && (c->src[x] & 0xFFFFu) != SpvOpLabel; x += c->src[x] >> 16, n++)
        zf_keep(c, x, n); /* OpFunction and its parameters */
    for (; x < body_end; x += c->src[x] >> 16, n++) {
        if ((c->src[x] & 0xFFFFu) == SpvOpLabel) {
            b.at[b.count] = x;
            b.index[b.count] = n;
            if (c->src[x + 1] < c->bound) /* the walk checked that OpLabel has its result id */
                c->block_of[c->src[x + 1]] = b.count + 1;
            b.count++;
        }
        terminator[b.count - 1] = x; /* the last instruction of the block so far */
    }
    b.at[b.count] = body_end;
    if (b.count > 0)
        zf_order_blocks(c, &b, terminator);
    for (uint32_t k = 0; k < b.count; k++) {
        uint32_t v = b.order[k];
        for (size_t y = b.at[v], m = b.index[v]; y < b.at[v + 1]; y += c->src[y] >> 16, m++)
            zf_keep(c, y, m);
    }
    for (uint32_t k = 0; k < b.count; k++)
        if (c->src[b.at[k] + 1] < c->bound)
            c->block_of[c->src[b.at[k] + 1]] = 0;
    if (body_end < count)
        zf_keep(c, body_end, end_index);
    *at = body_end < count ? body_end + (c->src[body_end] >> 16) : count;
    *index = end_index + 1;
    zf_blocks_free(&b);
    free(terminator);
    return true;
}

/* Builds the copy; false (nothing to free) when its word counts do not add up (the module is then validated as it
 * is, and the validator reports those) or memory runs out. */
static bool zf_validation_copy(const uint32_t *words, size_t count, uint32_t bound, zf_val_copy *c) {
    memset(c, 0, sizeof *c);
    c->src = words;
    c->bound = bound;
    c->debug_set = calloc(bound ? bound : 1, 1);
    c->block_of = calloc(bound ? bound : 1, sizeof *c->block_of);
    c->words = malloc(count * sizeof *c->words);
    c->index_of = malloc((count + 1) * sizeof *c->index_of);
    if (c->debug_set == NULL || c->block_of == NULL || c->words == NULL || c->index_of == NULL)
        goto none;
    for (size_t at = 5; at < count;) {
        uint32_t n = words[at] >> 16;
        if (n == 0 || n > count - at)
            goto none;
        if (zf_is_debug_import(words, at, n) && words[at + 1] < bound)
            c->debug_set[words[at + 1]] = 1;
        at += n;
    }
    memcpy(c->words, words, 5 * sizeof *words);
    c->count = 5;
    c->index_of[0] = 0;
    for (size_t at = 5, index = 1; at < count;) {
        if ((words[at] & 0xFFFFu) == SpvOpFunction) {
            if (!zf_copy_function(c, count, &at, &index))
                goto none;
            continue;
        }
        zf_keep(c, at, index++);
        at += words[at] >> 16;
    }
    free(c->debug_set);
    free(c->block_of);
    return true;
none:
    free(c->debug_set);
    free(c->block_of);
    free(c->words);
    free(c->index_of);
    memset(c, 0, sizeof *c);
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

/* The ids of the validator's "Interface variable id <V> is used by entry point '...' id <E>, but is not listed as an
 * interface"; false for any other message. */
static bool zf_unlisted_interface(const spv_diagnostic diagnostic, uint32_t *variable, uint32_t *entry) {
    const char *text = diagnostic != NULL ? diagnostic->error : NULL;
    const char *v = text != NULL ? strstr(text, "Interface variable id <") : NULL;
    const char *tail = v != NULL ? strstr(v, "but is not listed as an interface") : NULL;
    const char *e = tail != NULL ? strstr(v, "' id <") : NULL;
    return e != NULL && e < tail && sscanf(v, "Interface variable id <%u>", variable) == 1 &&
           sscanf(e, "' id <%u>", entry) == 1;
}

/* Whether `id` is a module-scope UniformConstant OpVariable of the copy. */
static bool zf_is_uniform_constant(const zf_val_copy *c, uint32_t id) {
    for (size_t at = 5; at < c->count; at += c->words[at] >> 16) {
        const uint32_t *w = &c->words[at];
        uint32_t opcode = w[0] & 0xFFFFu, n = w[0] >> 16;
        if (n == 0 || opcode == SpvOpFunction)
            return false;
        if (opcode == SpvOpVariable && n >= 4 && w[2] == id)
            return w[3] == SpvStorageClassUniformConstant;
    }
    return false;
}

/* Appends `variable` to the interface of the copy's OpEntryPoint of function `entry`; false when there is none or out
 * of memory. */
static bool zf_list_interface(zf_val_copy *c, uint32_t variable, uint32_t entry) {
    for (size_t at = 5; at < c->count; at += c->words[at] >> 16) {
        uint32_t opcode = c->words[at] & 0xFFFFu, n = c->words[at] >> 16;
        if (n == 0 || n == 0xFFFFu || opcode == SpvOpFunction)
            return false;
        if (opcode != SpvOpEntryPoint || n < 3 || c->words[at + 2] != entry)
            continue;
        uint32_t *grown = realloc(c->words, (c->count + 1) * sizeof *grown);
        if (grown == NULL)
            return false;
        c->words = grown;
        memmove(&c->words[at + n + 1], &c->words[at + n], (c->count - at - n) * sizeof *c->words);
        c->words[at + n] = variable;
        c->words[at] = ((n + 1) << 16) | opcode;
        c->count++;
        return true;
    }
    return false;
}

/* Validates the copy; with `unlisted`, each failure of the tolerated rule lists the variable and validates again,
 * counting the variables so listed. */
static spv_result_t zf_validate_copy(spv_context context, spv_validator_options options, zf_val_copy *c,
                                     uint32_t *unlisted, spv_diagnostic *diagnostic) {
    for (;;) {
        spv_const_binary_t binary = {c->words, c->count};
        spv_result_t result = spvValidateWithOptions(context, options, &binary, diagnostic);
        uint32_t variable = 0, entry = 0;
        if (result == SPV_SUCCESS || unlisted == NULL || !zf_unlisted_interface(*diagnostic, &variable, &entry) ||
            !zf_is_uniform_constant(c, variable) || !zf_list_interface(c, variable, entry))
            return result;
        ++*unlisted;
        spvDiagnosticDestroy(*diagnostic);
        *diagnostic = NULL;
    }
}

zf_spirv_status zf_spirv_validate(const zf_spirv_module *m, uint32_t *unlisted, zf_spirv_log *log) {
    const uint32_t *words = m->words;
    size_t count = m->num_words;
    for (size_t i = 0; i < sizeof zf_unvalidated_extensions / sizeof zf_unvalidated_extensions[0]; i++)
        if (zf_declares_extension(words, count, zf_unvalidated_extensions[i]))
            return ZF_SPIRV_OK;
    spv_context context = spvContextCreate(zf_universal_env((m->version >> 8) & 0xFFu));
    if (context == NULL)
        return ZF_SPIRV_NO_MEMORY;
    /* The SPIR-V specification's universal limits are what every implementation supports at least, not a rule of
     * valid modules: a kernel's parameters are bounded by the device's maxArgumentsSize instead (module_build.c), so
     * the validator's limit of 255 function parameters is raised to what an OpTypeFunction can hold. */
    spv_validator_options options = spvValidatorOptionsCreate();
    if (options == NULL) {
        spvContextDestroy(context);
        return ZF_SPIRV_NO_MEMORY;
    }
    spvValidatorOptionsSetUniversalLimit(options, spv_validator_limit_max_function_args, 0xFFFFu - 3u);
    zf_val_copy copy;
    bool copied = zf_validation_copy(words, count, m->bound, &copy);
    spv_const_binary_t binary = {words, count};
    spv_diagnostic diagnostic = NULL;
    spv_result_t result = copied ? zf_validate_copy(context, options, &copy, unlisted, &diagnostic)
                                 : spvValidateWithOptions(context, options, &binary, &diagnostic);
    if (result != SPV_SUCCESS) {
        if (copied && diagnostic != NULL && diagnostic->position.index <= copy.kept)
            diagnostic->position.index = copy.index_of[diagnostic->position.index];
        zf_log_diagnostic(log, words, count, diagnostic);
    }
    if (copied) {
        free(copy.words);
        free(copy.index_of);
    }
    spvDiagnosticDestroy(diagnostic);
    spvValidatorOptionsDestroy(options);
    spvContextDestroy(context);
    if (result == SPV_ERROR_OUT_OF_MEMORY)
        return ZF_SPIRV_NO_MEMORY;
    return result == SPV_SUCCESS ? ZF_SPIRV_OK : ZF_SPIRV_MALFORMED;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Instructions on integers of other widths */

typedef struct zf_odd_scan {
    const zf_spirv_module *m;
    uint8_t *at;       /* [num_words]: at an instruction's offset, the width it produces or reads, else 0 */
    uint8_t *width_of; /* [bound]: for a value, the width of its type when that is another width, else 0 */
    size_t offset;     /* the next instruction's word offset */
} zf_odd_scan;

static uint8_t zf_odd_type_width(const zf_spirv_module *m, uint32_t type) {
    const zf_spirv_idinfo *info = zf_spirv_id(m, type);
    if (info == NULL || info->def == 0)
        return 0;
    const uint32_t *w = &m->words[info->def];
    if (info->opcode == SpvOpTypeVector)
        return zf_odd_type_width(m, w[2]);
    if (info->opcode != SpvOpTypeInt || w[2] == 8 || w[2] == 16 || w[2] == 32 || w[2] >= 64)
        return 0;
    return (uint8_t)w[2];
}

static spv_result_t zf_odd_instruction(void *user, const spv_parsed_instruction_t *inst) {
    zf_odd_scan *scan = user;
    size_t at = scan->offset;
    scan->offset += inst->num_words;
    uint8_t width = inst->type_id != 0 ? zf_odd_type_width(scan->m, inst->type_id) : 0;
    for (uint16_t i = 0; i < inst->num_operands && width == 0; i++) {
        const spv_parsed_operand_t *operand = &inst->operands[i];
        uint32_t id = inst->words[operand->offset];
        if (operand->type == SPV_OPERAND_TYPE_ID && id < scan->m->bound)
            width = scan->width_of[id];
    }
    if (inst->result_id != 0 && inst->result_id < scan->m->bound && inst->type_id != 0)
        scan->width_of[inst->result_id] = zf_odd_type_width(scan->m, inst->type_id);
    if (at < scan->m->num_words)
        scan->at[at] = width;
    return SPV_SUCCESS;
}

uint8_t *zf_spirv_odd_integer_uses(const zf_spirv_module *m, zf_spirv_log *log) {
    zf_odd_scan scan = {.m = m, .at = calloc(m->num_words, 1), .width_of = calloc(m->bound, 1), .offset = 5};
    spv_context context = spvContextCreate(zf_universal_env((m->version >> 8) & 0xFFu));
    spv_result_t result = SPV_ERROR_OUT_OF_MEMORY;
    if (scan.at != NULL && scan.width_of != NULL && context != NULL)
        result = spvBinaryParse(context, &scan, m->words, m->num_words, NULL, zf_odd_instruction, NULL);
    if (context != NULL)
        spvContextDestroy(context);
    free(scan.width_of);
    if (result != SPV_SUCCESS) {
        zf_spirv_log_printf(log, "SPIR-V: SPIR-V Tools cannot parse the module to find its instructions on integers "
                                 "of other widths than 8, 16, 32 and 64 bits");
        free(scan.at);
        return NULL;
    }
    return scan.at;
}
