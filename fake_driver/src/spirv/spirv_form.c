/* The decoded form as data: operand sizes, the validator and (de)serialization. The validator is what makes a form
 * safe to run whoever made it (the decoder, or a tool that instrumented a native binary): every table index, every
 * operand's area, offset, size and alignment, every block's terminator, every call's arity. The engine's handlers
 * trust exactly what is checked here and nothing more. */
#include "spirv_form.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const zf_xop_names[] = {
#define ZF_XOP(NAME, name, handler) [ZF_X_##NAME] = name,
#include "spirv_xops.def"
#undef ZF_XOP
};
_Static_assert(sizeof zf_xop_names / sizeof zf_xop_names[0] == ZF_X_COUNT, "one name per operation");

const char *zf_xop_name(uint32_t op) {
    return op < ZF_X_COUNT ? zf_xop_names[op] : "?";
}

/* ------------------------------------------------------------------------------------------------------------------
 * Operand sizes: the single description of what each operation reads and writes. */

static uint32_t zf_typed(const zf_dinst *in) {
    return zf_etype_size(in->type) * zf_slot(in->comps);
}

static uint32_t zf_byte_etype(uint32_t packed, uint32_t which) {
    return (packed >> (8 * which)) & 0xFFu;
}

static bool zf_sizes_typed(const zf_dinst *in, zf_operand_sizes *o) {
    uint32_t t = zf_typed(in), bools = zf_slot(in->comps);
    switch (in->op) {
    case ZF_X_INOT:
    case ZF_X_INEG:
    case ZF_X_LNOT:
    case ZF_X_POPCOUNT:
    case ZF_X_BITREV:
    case ZF_X_FNEG:
        *o = (zf_operand_sizes){t, t, 0, 0};
        return true;
    case ZF_X_ADDC:
    case ZF_X_SUBB:
    case ZF_X_UMULX:
    case ZF_X_SMULX:
        *o = (zf_operand_sizes){2 * t, t, t, 0};
        return true;
    case ZF_X_ISNAN:
    case ZF_X_ISINF:
    case ZF_X_ISFINITE:
    case ZF_X_ISNORMAL:
    case ZF_X_SIGNBIT:
        *o = (zf_operand_sizes){bools, t, 0, 0};
        return true;
    case ZF_X_ANY:
    case ZF_X_ALL:
        *o = (zf_operand_sizes){1, bools, 0, 0};
        return true;
    case ZF_X_DOT:
        *o = (zf_operand_sizes){zf_etype_size(in->type), t, t, 0};
        return true;
    default:
        break;
    }
    if (in->op >= ZF_X_IEQ && in->op <= ZF_X_FUNORD) {
        *o = (zf_operand_sizes){bools, t, t, 0};
        return true;
    }
    if ((in->op >= ZF_X_IADD && in->op <= ZF_X_XOR) || (in->op >= ZF_X_FADD && in->op <= ZF_X_FMOD)) {
        *o = (zf_operand_sizes){t, t, t, 0};
        return true;
    }
    return false;
}

static bool zf_sizes_data(const zf_dinst *in, zf_operand_sizes *o) {
    uint32_t t = zf_typed(in), e = zf_etype_size(in->type), slot = zf_slot(in->comps);
    switch (in->op) {
    case ZF_X_NOP:
    case ZF_X_BR:
    case ZF_X_RET:
    case ZF_X_UNREACHABLE:
    case ZF_X_BARRIER:
    case ZF_X_FENCE:
    case ZF_X_TRAP:
        *o = (zf_operand_sizes){0, 0, 0, 0};
        return true;
    case ZF_X_MOV:
        *o = (zf_operand_sizes){in->size, in->size, 0, 0};
        return true;
    case ZF_X_SPLAT:
        *o = (zf_operand_sizes){t, e, 0, 0};
        return true;
    case ZF_X_EXTRACT:
        *o = (zf_operand_sizes){in->size, in->asize, 0, 0};
        return true;
    case ZF_X_INSERT:
        *o = (zf_operand_sizes){in->asize, in->asize, in->size, 0};
        return true;
    case ZF_X_VEXTRACT:
        *o = (zf_operand_sizes){e, t, in->asize, 0};
        return true;
    case ZF_X_VINSERT:
        *o = (zf_operand_sizes){t, t, e, in->asize};
        return true;
    case ZF_X_GATHER:
        *o = (zf_operand_sizes){in->size, 0, 0, 0};
        return true;
    case ZF_X_SELECT:
        *o = (zf_operand_sizes){in->size, 1, in->size, in->size};
        return true;
    case ZF_X_SELECTV:
        *o = (zf_operand_sizes){t, slot, t, t};
        return true;
    case ZF_X_CONV:
        *o = (zf_operand_sizes){t, zf_etype_size(in->aux & 0xFFu) * slot, 0, 0};
        return true;
    default:
        return false;
    }
}

static bool zf_sizes_memory(const zf_dinst *in, zf_operand_sizes *o) {
    uint32_t t = zf_typed(in), e = zf_etype_size(in->type);
    switch (in->op) {
    case ZF_X_ACCESS:
    case ZF_X_GCAST:
        *o = (zf_operand_sizes){8, 8, 0, 0};
        return true;
    case ZF_X_PTRDIFF:
        *o = (zf_operand_sizes){e, 8, 8, 0};
        return true;
    case ZF_X_GETFENCE:
        *o = (zf_operand_sizes){4, 8, 0, 0};
        return true;
    case ZF_X_VAR:
        *o = (zf_operand_sizes){8, 0, 0, 0};
        return true;
    case ZF_X_LOAD:
        *o = (zf_operand_sizes){in->size, 8, 0, 0};
        return true;
    case ZF_X_STORE:
        *o = (zf_operand_sizes){0, 8, in->size, 0};
        return true;
    case ZF_X_STOREZ:
        *o = (zf_operand_sizes){0, 8, 0, 0};
        return true;
    case ZF_X_COPYMEM:
        *o = (zf_operand_sizes){0, 8, 8, 0};
        return true;
    case ZF_X_COPYMEMN:
        *o = (zf_operand_sizes){0, 8, 8, in->asize};
        return true;
    case ZF_X_ATOMIC:
        *o = (zf_operand_sizes){in->size, 8, e, e};
        return true;
    case ZF_X_VLOAD:
        *o = (zf_operand_sizes){t, in->asize, 8, 0};
        return true;
    case ZF_X_VSTORE:
        *o = (zf_operand_sizes){0, t, in->asize, 8};
        return true;
    case ZF_X_ASYNCCOPY:
        *o = (zf_operand_sizes){8, 8, 0, 0};
        return true;
    default:
        return false;
    }
}

static bool zf_sizes_other(const zf_dinst *in, zf_operand_sizes *o) {
    uint32_t t = zf_typed(in), e = zf_etype_size(in->type), slot = zf_slot(in->comps);
    switch (in->op) {
    case ZF_X_BRC:
        *o = (zf_operand_sizes){0, 1, 0, 0};
        return true;
    case ZF_X_SWITCH:
        *o = (zf_operand_sizes){0, e, 0, 0};
        return true;
    case ZF_X_RETV:
        *o = (zf_operand_sizes){0, in->size, 0, 0};
        return true;
    case ZF_X_CALL:
        *o = (zf_operand_sizes){in->size, 0, 0, 0};
        return true;
    case ZF_X_CALLP:
        *o = (zf_operand_sizes){in->size, 8, 0, 0};
        return true;
    case ZF_X_ITT:
        *o = (zf_operand_sizes){0, 8, 4, 4};
        return true;
    case ZF_X_EXT:
        *o = (zf_operand_sizes){t, zf_etype_size(zf_byte_etype(in->asize, 0)) * slot,
                                zf_etype_size(zf_byte_etype(in->asize, 1)) * slot,
                                zf_etype_size(zf_byte_etype(in->asize, 2)) * slot};
        return true;
    case ZF_X_EXTP:
        *o = (zf_operand_sizes){t, zf_etype_size(zf_byte_etype(in->asize, 0)) * slot,
                                zf_etype_size(zf_byte_etype(in->asize, 1)) * slot, 8};
        return true;
    case ZF_X_EXTV:
        *o = (zf_operand_sizes){in->size, t, t, 0};
        return true;
    case ZF_X_XSHUFFLE:
        *o = (zf_operand_sizes){t, e * zf_slot(in->aux & 0xFFu), e * zf_slot(in->aux & 0xFFu),
                                zf_etype_size((in->aux >> 8) & 0xFFu) * slot};
        return true;
    case ZF_X_PRINTF:
        *o = (zf_operand_sizes){4, 0, 0, 0};
        return true;
    case ZF_X_GROUP:
        *o = (zf_operand_sizes){e, e, in->asize, 0};
        return true;
    case ZF_X_SGSHUFFLE:
        *o = (zf_operand_sizes){in->size, in->size, 4, in->size};
        return true;
    case ZF_X_SHUFFLE:
        *o = (zf_operand_sizes){t, 0, 0, 0}; /* a and b: their widths are in aux (checked by the validator) */
        return true;
    case ZF_X_IMAGE: {
        uint32_t coords = zf_etype_size(in->asize & 0xFFu) * zf_slot((in->asize >> 8) & 0xFFu);
        bool write = in->aux == ZF_IMG_WRITE;
        *o = (zf_operand_sizes){write ? 0 : t, in->aux == ZF_IMG_SAMPLE ? 16 : 8, in->aux <= ZF_IMG_WRITE ? coords : 0,
                                write ? t : 0};
        return true;
    }
    case ZF_X_SGBLOCK: {
        bool write = in->aux == ZF_SGB_WRITE;
        *o = (zf_operand_sizes){write ? 0 : t, 8, write ? t : 0, 0};
        return true;
    }
    case ZF_X_IMGBLOCK: {
        bool write = in->aux == ZF_SGB_WRITE;
        *o = (zf_operand_sizes){write ? 0 : t, 8, 8, write ? t : 0};
        return true;
    }
    default:
        return false;
    }
}

bool zf_form_operand_sizes(const zf_dinst *in, zf_operand_sizes *out) {
    return zf_sizes_typed(in, out) || zf_sizes_data(in, out) || zf_sizes_memory(in, out) || zf_sizes_other(in, out);
}

/* ------------------------------------------------------------------------------------------------------------------
 * The validator */

typedef struct zf_check {
    const zf_dprog *p;
    char *why;
    size_t why_size;
    uint32_t frame_bytes; /* of the function being checked */
    uint32_t function;
    uint32_t inst;
} zf_check;

static bool __attribute__((format(printf, 2, 3))) zf_bad(zf_check *c, const char *format, ...) {
    char what[200];
    va_list args;
    va_start(args, format);
    vsnprintf(what, sizeof what, format, args);
    va_end(args);
    snprintf(c->why, c->why_size, "function %u, instruction %u: %s", c->function, c->inst, what);
    return false;
}

/* An operand of `size` bytes per lane, read or written with `align`-byte elements. */
static bool zf_check_ref(zf_check *c, zf_ref r, uint32_t size, uint32_t align, const char *what) {
    if (size == 0)
        return true;
    if (r == ZF_REF_NONE)
        return zf_bad(c, "%s is missing", what);
    uint32_t area = ZF_REF_AREA(r), offset = ZF_REF_OFFSET(r);
    uint32_t limit = area == ZF_AREA_FRAME   ? c->frame_bytes
                     : area == ZF_AREA_CONST ? c->p->const_bytes
                     : area == ZF_AREA_WAVE  ? c->p->wave_bytes
                                             : 0;
    if ((uint64_t)offset + size > limit)
        return zf_bad(c, "%s (area %u, offset %u, %u bytes) is outside its area of %u bytes", what, area, offset, size,
                      limit);
    if (align > 1 && offset % align != 0)
        return zf_bad(c, "%s at offset %u is not %u-byte aligned", what, offset, align);
    return true;
}

static bool zf_aux_range(zf_check *c, uint32_t first, uint64_t count) {
    if (first > c->p->num_aux || count > c->p->num_aux - first)
        return zf_bad(c, "operand list [%u, +%llu) is outside the aux table", first, (unsigned long long)count);
    return true;
}

static bool zf_is_terminator_op(uint32_t op) {
    return op == ZF_X_BR || op == ZF_X_BRC || op == ZF_X_SWITCH || op == ZF_X_RET || op == ZF_X_RETV ||
           op == ZF_X_UNREACHABLE;
}

static bool zf_check_edge(zf_check *c, uint32_t edge, uint32_t blocks) {
    const zf_dprog *p = c->p;
    if (edge >= p->num_edges)
        return zf_bad(c, "edge %u does not exist", edge);
    const zf_dedge *e = &p->edges[edge];
    if (e->target >= blocks)
        return zf_bad(c, "edge %u targets block %u of %u", edge, e->target, blocks);
    if (e->copy_first > p->num_copies || e->copy_count > p->num_copies - e->copy_first)
        return zf_bad(c, "edge %u's copies are outside the copy table", edge);
    for (uint32_t i = 0; i < e->copy_count; i++) {
        const zf_dcopy *k = &p->copies[e->copy_first + i];
        if (!zf_check_ref(c, k->dst, k->size, 1, "an edge copy's destination") ||
            !zf_check_ref(c, k->src, k->size, 1, "an edge copy's source"))
            return false;
    }
    return true;
}

/* Operations that move `size` bytes per lane between registers: a value has at least one byte (a handler addresses
 * its operands whatever the size, so an operand of 0 bytes would be one the validator never checked). */
static bool zf_moves_bytes(uint32_t op) {
    return op == ZF_X_MOV || op == ZF_X_EXTRACT || op == ZF_X_INSERT || op == ZF_X_GATHER || op == ZF_X_SELECT ||
           op == ZF_X_LOAD || op == ZF_X_STORE || op == ZF_X_RETV || op == ZF_X_SGSHUFFLE || op == ZF_X_EXTV;
}

static bool zf_check_types(zf_check *c, const zf_dinst *in) {
    if ((in->op == ZF_X_LOAD || in->op == ZF_X_STORE || in->op == ZF_X_STOREZ) && in->aux > ZF_MEM_VOLATILE)
        return zf_bad(c, "memory access flags %u", in->aux);
    if (zf_moves_bytes(in->op) && in->size == 0)
        return zf_bad(c, "a value of 0 bytes");
    if ((in->op == ZF_X_EXTRACT || in->op == ZF_X_INSERT) && in->asize == 0)
        return zf_bad(c, "a composite of 0 bytes");
    bool typed = (in->op >= ZF_X_IADD && in->op <= ZF_X_DOT) || in->op == ZF_X_SPLAT || in->op == ZF_X_VEXTRACT ||
                 in->op == ZF_X_VINSERT || in->op == ZF_X_SHUFFLE || in->op == ZF_X_SELECTV || in->op == ZF_X_EXT ||
                 in->op == ZF_X_EXTP || in->op == ZF_X_EXTV || in->op == ZF_X_VLOAD || in->op == ZF_X_VSTORE ||
                 in->op == ZF_X_XSHUFFLE || in->op == ZF_X_GROUP || in->op == ZF_X_ATOMIC || in->op == ZF_X_SWITCH ||
                 in->op == ZF_X_IMAGE || in->op == ZF_X_SGBLOCK || in->op == ZF_X_IMGBLOCK;
    if (!typed)
        return true;
    if (in->type == ZF_T_NONE || in->type >= ZF_T_COUNT)
        return zf_bad(c, "element type %u is not valid", in->type);
    if (in->comps < 1 || in->comps > 16)
        return zf_bad(c, "%u components", in->comps);
    if (in->op == ZF_X_CONV && ((in->aux & 0xFFu) == ZF_T_NONE || (in->aux & 0xFFu) >= ZF_T_COUNT))
        return zf_bad(c, "conversion from element type %u", in->aux & 0xFFu);
    if (in->op == ZF_X_ATOMIC &&
        (in->aux >= ZF_ATOM_COUNT || (zf_etype_size(in->type) != 4 && zf_etype_size(in->type) != 8)))
        return zf_bad(c, "atomic operation %u on %u-byte elements", in->aux, zf_etype_size(in->type));
    if ((in->op == ZF_X_EXT || in->op == ZF_X_EXTP) &&
        (zf_byte_etype(in->asize, 0) >= ZF_T_COUNT || zf_byte_etype(in->asize, 1) >= ZF_T_COUNT ||
         zf_byte_etype(in->asize, 2) >= ZF_T_COUNT))
        return zf_bad(c, "operand element types 0x%x", in->asize);
    if (in->op == ZF_X_XSHUFFLE &&
        ((in->aux & 0xFFu) < 1 || (in->aux & 0xFFu) > 16 || !zf_etype_is_int((in->aux >> 8) & 0xFFu)))
        return zf_bad(c, "a shuffle of %u components with mask type %u", in->aux & 0xFFu, (in->aux >> 8) & 0xFFu);
    /* The handlers address a block's components one element at a time: OpenCL's blocks are 1, 2, 4 or 8 integers. */
    if ((in->op == ZF_X_SGBLOCK || in->op == ZF_X_IMGBLOCK) &&
        (!zf_etype_is_int(in->type) || in->comps > 8 || (in->comps & (in->comps - 1)) != 0))
        return zf_bad(c, "a sub-group block of %u elements of type %u", in->comps, in->type);
    return true;
}

/* Alignment of each operand's elements, as the handlers read them: 8 for addresses, the element size for typed
 * values, 1 for byte copies. Rules: 'e' element, 'p' address, '1' byte, '4' 32-bit, 's' the conversion's source,
 * 'x' asize, 'A'..'C' the per-operand types of ZF_X_EXT, 'm' a shuffle mask, 'g' a broadcast id, 'z' an atomic's
 * result (a flag's boolean or the element). */
static const char *zf_align_rules(uint32_t op) {
    if ((op >= ZF_X_IADD && op <= ZF_X_BITREV) || (op >= ZF_X_FADD && op <= ZF_X_FNEG))
        return "eee1";
    if (op >= ZF_X_ADDC && op <= ZF_X_SMULX)
        return "eee1";
    if (op >= ZF_X_IEQ && op <= ZF_X_FUNORD)
        return "1ee1";
    if (op >= ZF_X_ISNAN && op <= ZF_X_SIGNBIT)
        return "1e11";
    switch (op) {
    case ZF_X_SPLAT:
    case ZF_X_DOT:
        return "eee1";
    case ZF_X_VEXTRACT:
        return "eex1";
    case ZF_X_VINSERT:
        return "eeex";
    case ZF_X_SHUFFLE:
        return "e111";
    case ZF_X_SELECTV:
        return "e1ee";
    case ZF_X_ANY:
    case ZF_X_ALL:
        return "1111";
    case ZF_X_CONV:
        return "es11";
    case ZF_X_ACCESS:
    case ZF_X_GCAST:
        return "pp11";
    case ZF_X_PTRDIFF:
        return "epp1";
    case ZF_X_GETFENCE:
        return "4p11";
    case ZF_X_VAR:
        return "p111";
    case ZF_X_LOAD:
    case ZF_X_STORE:
    case ZF_X_STOREZ:
    case ZF_X_CALLP:
        return "1p11";
    case ZF_X_COPYMEM:
        return "1pp1";
    case ZF_X_COPYMEMN:
        return "1ppx";
    case ZF_X_ATOMIC:
        return "zpee";
    case ZF_X_SWITCH:
        return "1e11";
    case ZF_X_ITT:
        return "1p44";
    case ZF_X_EXT:
        return "eABC";
    case ZF_X_EXTP:
        return "eABp";
    case ZF_X_EXTV:
        return "eee1";
    case ZF_X_VLOAD:
        return "exp1";
    case ZF_X_VSTORE:
        return "1exp";
    case ZF_X_XSHUFFLE:
        return "eeem";
    case ZF_X_PRINTF:
        return "4111";
    case ZF_X_GROUP:
        return "eeg1";
    case ZF_X_ASYNCCOPY:
        return "pp11";
    case ZF_X_SGSHUFFLE:
        return "1141";
    case ZF_X_IMAGE:
        return "epie";
    case ZF_X_SGBLOCK:
        return "epe1";
    case ZF_X_IMGBLOCK:
        return "ep4e";
    default:
        return "1111";
    }
}

static uint32_t zf_align_of(const zf_dinst *in, char rule) {
    uint32_t e = zf_etype_size(in->type);
    switch (rule) {
    case 'e':
        return e ? e : 1;
    case 'p':
        return 8;
    case '4':
        return 4;
    case 's':
        return zf_etype_size(in->aux & 0xFFu);
    case 'x':
        return in->asize > 8 ? 8 : in->asize ? in->asize : 1;
    case 'A':
    case 'B':
    case 'C':
        return zf_etype_size(zf_byte_etype(in->asize, (uint32_t)(rule - 'A')));
    case 'm':
        return zf_etype_size((in->aux >> 8) & 0xFFu);
    case 'g':
        return (in->aux >> 20) & 1u ? 8 : 4;
    case 'i':
        return zf_etype_size(in->asize & 0xFFu) ? zf_etype_size(in->asize & 0xFFu) : 1;
    case 'z':
        return in->size < e ? in->size : e;
    default:
        return 1;
    }
}

/* Operands that may be ZF_REF_NONE (the handler then does without them), as bits: 1 dst, 2 a, 4 b, 8 c. Every other
 * operand of these operations is read or written whatever its value, so it must be there. */
enum { ZF_OPT_DST = 1, ZF_OPT_A = 2, ZF_OPT_B = 4, ZF_OPT_C = 8, ZF_OPT_ALL = 15 };

static uint32_t zf_optional_operands(const zf_dinst *in) {
    switch (in->op) {
    case ZF_X_ATOMIC:
        return ZF_OPT_DST | ZF_OPT_B | ZF_OPT_C;
    case ZF_X_ITT:
        return ZF_OPT_ALL;
    case ZF_X_EXT: {
        uint32_t args = zf_elementwise_args(in->aux);
        return (args >= 2 ? 0 : ZF_OPT_B) | (args >= 3 ? 0 : ZF_OPT_C);
    }
    case ZF_X_EXTP:
    case ZF_X_EXTV:
        return ZF_OPT_B;
    case ZF_X_XSHUFFLE:
        return (in->aux >> 16) & 1u ? 0 : ZF_OPT_B;
    case ZF_X_GROUP:
        return (in->aux & 0xFFu) == ZF_GRP_BCAST ? 0 : ZF_OPT_B;
    case ZF_X_SGSHUFFLE:
        return ZF_OPT_C;
    case ZF_X_CALL:
    case ZF_X_CALLP:
        return ZF_OPT_DST;
    default:
        return 0;
    }
}

static bool zf_check_operands(zf_check *c, const zf_dinst *in) {
    zf_operand_sizes s;
    if (!zf_form_operand_sizes(in, &s))
        return zf_bad(c, "operation %u does not exist", in->op);
    uint32_t optional = zf_optional_operands(in);
    if (optional != 0) {
        s.dst = in->dst == ZF_REF_NONE && (optional & ZF_OPT_DST) ? 0 : s.dst;
        s.a = in->a == ZF_REF_NONE && (optional & ZF_OPT_A) ? 0 : s.a;
        s.b = in->b == ZF_REF_NONE && (optional & ZF_OPT_B) ? 0 : s.b;
        s.c = in->c == ZF_REF_NONE && (optional & ZF_OPT_C) ? 0 : s.c;
    }
    const char *rules = zf_align_rules(in->op);
    return zf_check_ref(c, in->dst, s.dst, zf_align_of(in, rules[0]), "the result") &&
           zf_check_ref(c, in->a, s.a, zf_align_of(in, rules[1]), "operand a") &&
           zf_check_ref(c, in->b, s.b, zf_align_of(in, rules[2]), "operand b") &&
           zf_check_ref(c, in->c, s.c, zf_align_of(in, rules[3]), "operand c");
}

static bool zf_check_call_args(zf_check *c, uint32_t first, uint32_t n, const zf_dfunc *callee) {
    if (!zf_aux_range(c, first, 2ull * n))
        return false;
    for (uint32_t i = 0; i < n; i++) {
        zf_ref r = c->p->aux[first + 2 * i];
        uint32_t bytes = c->p->aux[first + 2 * i + 1];
        if (bytes == 0)
            return zf_bad(c, "argument %u has 0 bytes", i);
        if (!zf_check_ref(c, r, bytes, 1, "a call argument"))
            return false;
        if (callee != NULL && c->p->params[callee->param_first + i].size != bytes)
            return zf_bad(c, "argument %u has %u bytes, its parameter %u", i, bytes,
                          c->p->params[callee->param_first + i].size);
    }
    return true;
}

static bool zf_check_call(zf_check *c, const zf_dinst *in) {
    const zf_dprog *p = c->p;
    if (in->op == ZF_X_CALLP) {
        if (!zf_aux_range(c, in->aux, 1))
            return false;
        return zf_check_call_args(c, in->aux + 1, p->aux[in->aux], NULL);
    }
    if (!zf_aux_range(c, in->aux, 2))
        return false;
    uint32_t f = p->aux[in->aux], n = p->aux[in->aux + 1];
    if (f >= p->num_funcs || !(p->funcs[f].flags & ZF_FUNC_HAS_BODY))
        return zf_bad(c, "call of function %u, which has no body", f);
    if (n != p->funcs[f].param_count)
        return zf_bad(c, "call with %u arguments of a function of %u parameters", n, p->funcs[f].param_count);
    if (in->size != p->funcs[f].ret_size)
        return zf_bad(c, "call expects %u bytes back, the function returns %u", in->size, p->funcs[f].ret_size);
    return zf_check_call_args(c, in->aux + 2, n, &p->funcs[f]);
}

static bool zf_check_gather(zf_check *c, const zf_dinst *in) {
    const zf_dprog *p = c->p;
    if (!zf_aux_range(c, in->aux, 1) || !zf_aux_range(c, in->aux + 1, 3ull * p->aux[in->aux]))
        return false;
    for (uint32_t i = 0; i < p->aux[in->aux]; i++) {
        const uint32_t *x = &p->aux[in->aux + 1 + 3 * i];
        if (x[1] == 0 || !zf_check_ref(c, x[0], x[1], 1, "a constituent") || (uint64_t)x[2] + x[1] > in->size)
            return zf_bad(c, "constituent %u does not fit the result", i);
    }
    return true;
}

static bool zf_check_access(zf_check *c, const zf_dinst *in) {
    const zf_dprog *p = c->p;
    if (!zf_aux_range(c, in->aux, 3) || !zf_aux_range(c, in->aux + 3, 4ull * p->aux[in->aux + 2]))
        return false;
    for (uint32_t i = 0; i < p->aux[in->aux + 2]; i++) {
        const uint32_t *x = &p->aux[in->aux + 3 + 4 * i];
        if (x[1] != 1 && x[1] != 2 && x[1] != 4 && x[1] != 8)
            return zf_bad(c, "an index of %u bytes", x[1]);
        if (!zf_check_ref(c, x[0], x[1], x[1], "an index"))
            return false;
    }
    return true;
}

static bool zf_check_switch(zf_check *c, const zf_dinst *in, uint32_t blocks) {
    const zf_dprog *p = c->p;
    if (!zf_etype_is_int(in->type) || !zf_aux_range(c, in->aux, 2) ||
        !zf_aux_range(c, in->aux + 2, 3ull * p->aux[in->aux]) || !zf_check_edge(c, p->aux[in->aux + 1], blocks))
        return zf_etype_is_int(in->type) ? false : zf_bad(c, "a switch on a non-integer");
    for (uint32_t i = 0; i < p->aux[in->aux]; i++)
        if (!zf_check_edge(c, p->aux[in->aux + 4 + 3 * i], blocks))
            return false;
    return true;
}

static bool zf_check_shuffle(zf_check *c, const zf_dinst *in) {
    const zf_dprog *p = c->p;
    if (!zf_aux_range(c, in->aux, 2) || !zf_aux_range(c, in->aux + 2, in->comps))
        return false;
    uint32_t na = p->aux[in->aux], nb = p->aux[in->aux + 1], e = zf_etype_size(in->type);
    if (na < 1 || na > 16 || nb < 1 || nb > 16)
        return zf_bad(c, "shuffle of vectors of %u and %u components", na, nb);
    for (uint32_t i = 0; i < in->comps; i++) {
        uint32_t k = p->aux[in->aux + 2 + i];
        if (k != 0xFFFFFFFFu && k >= na + nb)
            return zf_bad(c, "shuffle component %u out of range", k);
    }
    return zf_check_ref(c, in->a, e * zf_slot(na), e, "operand a") &&
           zf_check_ref(c, in->b, e * zf_slot(nb), e, "operand b");
}

static bool zf_check_printf(zf_check *c, const zf_dinst *in) {
    const zf_dprog *p = c->p;
    if (!zf_aux_range(c, in->aux, 2) || !zf_aux_range(c, in->aux + 2, 4ull * p->aux[in->aux + 1]) ||
        !zf_check_ref(c, p->aux[in->aux], 8, 8, "the format"))
        return false;
    for (uint32_t i = 0; i < p->aux[in->aux + 1]; i++) {
        const uint32_t *x = &p->aux[in->aux + 2 + 4 * i];
        if (x[1] == ZF_T_NONE || x[1] >= ZF_T_COUNT || x[2] < 1 || x[2] > 16 ||
            x[3] != zf_etype_size(x[1]) * zf_slot(x[2]))
            return zf_bad(c, "printf argument %u's description", i);
        if (!zf_check_ref(c, x[0], x[3], zf_etype_size(x[1]), "a printf argument"))
            return false;
    }
    return true;
}

static bool zf_check_async(zf_check *c, const zf_dinst *in) {
    const zf_dprog *p = c->p;
    if (!zf_aux_range(c, in->aux, 6))
        return false;
    const uint32_t *x = &p->aux[in->aux];
    bool sizes = (x[4] == 4 || x[4] == 8) && (x[5] == 4 || x[5] == 8) && in->size > 0;
    return sizes ? zf_check_ref(c, x[0], 8, 8, "the destination") && zf_check_ref(c, x[1], 8, 8, "the source") &&
                       zf_check_ref(c, x[2], x[4], x[4], "the count") && zf_check_ref(c, x[3], x[5], x[5], "the stride")
                 : zf_bad(c, "async copy sizes");
}

/* An OpenCL.std element-wise function: one the engine has, with an element type for each of its operands. */
static bool zf_check_ext(zf_check *c, const zf_dinst *in) {
    uint32_t args = zf_elementwise_args(in->aux);
    if (args == 0)
        return zf_bad(c, "OpenCL.std %u is not an element-wise function", in->aux);
    for (uint32_t k = 0; k < args; k++) {
        uint32_t t = zf_byte_etype(in->asize, k);
        if (t == ZF_T_NONE || t >= ZF_T_COUNT)
            return zf_bad(c, "operand %u of OpenCL.std %u has element type %u", k, in->aux, t);
    }
    return true;
}

static bool zf_check_aux_users(zf_check *c, const zf_dinst *in, uint32_t blocks) {
    switch (in->op) {
    case ZF_X_BR:
        return zf_check_edge(c, in->aux, blocks);
    case ZF_X_BRC:
        return zf_check_edge(c, in->aux, blocks) && zf_check_edge(c, in->aux + 1, blocks);
    case ZF_X_SWITCH:
        return zf_check_switch(c, in, blocks);
    case ZF_X_CALL:
    case ZF_X_CALLP:
        return zf_check_call(c, in);
    case ZF_X_GATHER:
        return zf_check_gather(c, in);
    case ZF_X_ACCESS:
        return zf_check_access(c, in);
    case ZF_X_SHUFFLE:
        return zf_check_shuffle(c, in);
    case ZF_X_PRINTF:
        return zf_check_printf(c, in);
    case ZF_X_ASYNCCOPY:
        return zf_check_async(c, in);
    case ZF_X_EXTRACT:
    case ZF_X_INSERT:
        return (uint64_t)in->aux + in->size <= in->asize ? true : zf_bad(c, "a member outside its composite");
    case ZF_X_VEXTRACT:
    case ZF_X_VINSERT:
    case ZF_X_COPYMEMN:
        return in->asize == 1 || in->asize == 2 || in->asize == 4 || in->asize == 8
                   ? true
                   : zf_bad(c, "an index of %u bytes", in->asize);
    case ZF_X_VLOAD:
    case ZF_X_VSTORE:
        return (in->asize == 4 || in->asize == 8) && (in->aux & 0xFFu) <= ZF_VL_HALF_A ? true
                                                                                       : zf_bad(c, "vector memory");
    case ZF_X_GROUP:
        return (in->aux & 0xFFu) < ZF_GRP_COUNT && ((in->aux >> 12) & 0xFu) <= SpvGroupOperationExclusiveScan
                   ? true
                   : zf_bad(c, "group operation 0x%x", in->aux);
    case ZF_X_ITT:
        return in->aux < ZF_ITT_COUNT ? true : zf_bad(c, "annotation kind %u", in->aux);
    case ZF_X_EXT:
        return zf_check_ext(c, in);
    case ZF_X_SGSHUFFLE:
        return in->aux <= ZF_SG_SHUFFLE_XOR ? true : zf_bad(c, "sub-group shuffle kind %u", in->aux);
    case ZF_X_IMAGE: {
        uint32_t ct = in->asize & 0xFFu, cn = (in->asize >> 8) & 0xFFu;
        bool coords_ok = in->aux > ZF_IMG_WRITE || ((zf_etype_is_int(ct) || ct == ZF_T_F32) && cn >= 1 && cn <= 4);
        return in->aux < ZF_IMG_COUNT && coords_ok ? true : zf_bad(c, "image operation %u", in->aux);
    }
    case ZF_X_SGBLOCK:
    case ZF_X_IMGBLOCK:
        return in->aux <= ZF_SGB_WRITE ? true : zf_bad(c, "sub-group block direction %u", in->aux);
    default:
        return true;
    }
}

/* ZF_X_VAR: its bytes inside the function's private memory, its name (c) a string of the table or none. */
static bool zf_check_variable(zf_check *c, const zf_dinst *in, const zf_dfunc *f) {
    const zf_dprog *p = c->p;
    if ((uint64_t)in->aux + in->asize > f->private_bytes || (in->asize == 0 && in->aux >= f->private_bytes))
        return zf_bad(c, "a variable of %u bytes at %u outside the function's %u bytes of private memory", in->asize,
                      in->aux, f->private_bytes);
    if (in->c != ZF_REF_NONE &&
        (in->c >= p->num_strings || memchr(p->strings + in->c, 0, p->num_strings - in->c) == NULL))
        return zf_bad(c, "the variable's name is outside the string table");
    return true;
}

static bool zf_check_block(zf_check *c, const zf_dfunc *f, const zf_dblock *b) {
    const zf_dprog *p = c->p;
    if (b->first > p->num_insts || b->count == 0 || b->count > p->num_insts - b->first)
        return zf_bad(c, "a block's instructions [%u, +%u) are outside the table", b->first, b->count);
    if (b->commit_first > p->num_copies || b->commit_count > p->num_copies - b->commit_first)
        return zf_bad(c, "a block's phi commits are outside the copy table");
    for (uint32_t i = 0; i < b->commit_count; i++) {
        const zf_dcopy *k = &p->copies[b->commit_first + i];
        if (!zf_check_ref(c, k->dst, k->size, 1, "a phi") || !zf_check_ref(c, k->src, k->size, 1, "a phi shadow"))
            return false;
    }
    for (uint32_t i = 0; i < b->count; i++) {
        const zf_dinst *in = &p->insts[b->first + i];
        c->inst = b->first + i;
        bool last = i + 1 == b->count;
        if (in->op >= ZF_X_COUNT)
            return zf_bad(c, "operation %u does not exist", in->op);
        if (zf_is_terminator_op(in->op) != last)
            return zf_bad(c, last ? "the block does not end with a terminator" : "a terminator inside a block");
        if (in->op == ZF_X_RETV && (f->ret == ZF_REF_NONE || in->size != f->ret_size))
            return zf_bad(c, "a return value of %u bytes from a function returning %u", in->size, f->ret_size);
        if (in->op == ZF_X_RET && f->ret != ZF_REF_NONE)
            return zf_bad(c, "a return without value from a function returning %u bytes", f->ret_size);
        if (in->op == ZF_X_VAR && !zf_check_variable(c, in, f))
            return false;
        if (!zf_check_types(c, in) || !zf_check_operands(c, in) || !zf_check_aux_users(c, in, f->block_count))
            return false;
    }
    return true;
}

static bool zf_check_function(zf_check *c, uint32_t index) {
    const zf_dprog *p = c->p;
    const zf_dfunc *f = &p->funcs[index];
    c->function = index;
    c->inst = 0;
    c->frame_bytes = f->frame_bytes;
    if (f->frame_bytes > ZF_FORM_MAX_AREA_BYTES || f->private_bytes > ZF_FORM_MAX_AREA_BYTES)
        return zf_bad(c, "frame of %u and private memory of %u bytes", f->frame_bytes, f->private_bytes);
    if (f->name != UINT32_MAX &&
        (f->name >= p->num_strings || memchr(p->strings + f->name, 0, p->num_strings - f->name) == NULL))
        return zf_bad(c, "its name is outside the string table");
    if (f->param_first > p->num_params || f->param_count > p->num_params - f->param_first)
        return zf_bad(c, "its parameters are outside the parameter table");
    for (uint32_t i = 0; i < f->param_count; i++)
        if (!zf_check_ref(c, p->params[f->param_first + i].ref, p->params[f->param_first + i].size, 1, "a parameter"))
            return false;
    if (!(f->flags & ZF_FUNC_HAS_BODY))
        return f->block_count == 0 ? true : zf_bad(c, "a function without body has blocks");
    if (f->ret != ZF_REF_NONE && !zf_check_ref(c, f->ret, f->ret_size, 1, "the return slot"))
        return false;
    if (f->block_count == 0 || f->block_first > p->num_blocks || f->block_count > p->num_blocks - f->block_first)
        return zf_bad(c, "its blocks are outside the block table");
    for (uint32_t b = 0; b < f->block_count; b++)
        if (!zf_check_block(c, f, &p->blocks[f->block_first + b]))
            return false;
    return true;
}

static bool zf_check_tables(zf_check *c) {
    const zf_dprog *p = c->p;
    c->function = UINT32_MAX;
    if (p->const_bytes > ZF_FORM_MAX_AREA_BYTES || p->wave_bytes > ZF_FORM_MAX_AREA_BYTES)
        return zf_bad(c, "areas of %u and %u bytes", p->const_bytes, p->wave_bytes);
    for (uint32_t i = 0; i < p->num_consts; i++) {
        const zf_dconst *k = &p->consts[i];
        if ((uint64_t)k->offset + k->size > p->const_bytes || k->data > p->num_bytes ||
            k->size > p->num_bytes - k->data)
            return zf_bad(c, "constant %u is outside its tables", i);
    }
    for (uint32_t i = 0; i < p->num_relocs; i++)
        if (p->relocs[i].offset % 8 || (uint64_t)p->relocs[i].offset + 8 > p->const_bytes ||
            p->relocs[i].kind >= ZF_RELOC_COUNT ||
            (p->relocs[i].kind == ZF_RELOC_FUNCTION && p->relocs[i].index >= p->num_funcs))
            return zf_bad(c, "relocation %u", i);
    for (uint32_t i = 0; i < p->num_waves; i++) {
        const zf_dwave *w = &p->waves[i];
        uint32_t size = w->kind == ZF_WAVE_BUILTIN ? zf_etype_size(w->type) * zf_slot(w->comps) : 8;
        bool ok =
            w->kind < ZF_WAVE_COUNT && w->offset % 8 == 0 && (uint64_t)w->offset + size <= p->wave_bytes &&
            (w->kind != ZF_WAVE_BUILTIN ||
             ((w->type == ZF_T_I32 || w->type == ZF_T_I64) && w->comps >= 1 && w->comps <= 3)) &&
            (w->kind != ZF_WAVE_POINTER || (w->index < p->num_waves && p->waves[w->index].kind == ZF_WAVE_BUILTIN)) &&
            (w->kind != ZF_WAVE_LOCALVAR || w->index < p->num_locals);
        if (!ok)
            return zf_bad(c, "wave entry %u", i);
    }
    for (uint32_t i = 0; i < p->num_locals; i++)
        if (p->locals[i].align == 0 || (p->locals[i].align & (p->locals[i].align - 1)) != 0)
            return zf_bad(c, "local variable %u's alignment", i);
    for (uint32_t i = 0; i < p->num_kernels; i++) {
        const zf_dkernel *k = &p->kernels[i];
        if (k->function >= p->num_funcs || !(p->funcs[k->function].flags & ZF_FUNC_HAS_BODY) ||
            k->local_first > p->num_kernel_locals || k->local_count > p->num_kernel_locals - k->local_first)
            return zf_bad(c, "kernel %u", i);
        for (uint32_t j = 0; j < k->local_count; j++) {
            const zf_dkernel_local *kl = &p->kernel_locals[k->local_first + j];
            if (kl->variable >= p->num_locals ||
                (uint64_t)kl->offset + p->locals[kl->variable].size > k->static_local_bytes)
                return zf_bad(c, "kernel %u's local variable %u", i, j);
        }
    }
    return true;
}

bool zf_form_validate(const zf_dprog *p, char *why, size_t why_size) {
    zf_check c = {.p = p, .why = why, .why_size = why_size};
    if (why_size > 0)
        why[0] = '\0';
    if (!zf_check_tables(&c))
        return false;
    for (uint32_t f = 0; f < p->num_funcs; f++)
        if (!zf_check_function(&c, f))
            return false;
    return true;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Serialization: "ZFDECODE", the version, the two area sizes and flags, the 16 table counts, then the tables in
 * that order, each padded to 8 bytes. Host byte order (little-endian on every host zefake builds for). */

#define ZF_FORM_MAGIC  "ZFDECODE"
#define ZF_FORM_TABLES 16u

typedef struct zf_table {
    void **items;
    uint32_t *count;
    size_t item_size;
} zf_table;

static void zf_tables(zf_dprog *p, zf_table t[ZF_FORM_TABLES]) {
    zf_table list[ZF_FORM_TABLES] = {
        {(void **)&p->insts, &p->num_insts, sizeof(zf_dinst)},
        {(void **)&p->inst_words, &p->num_insts, sizeof(uint32_t)},
        {(void **)&p->blocks, &p->num_blocks, sizeof(zf_dblock)},
        {(void **)&p->edges, &p->num_edges, sizeof(zf_dedge)},
        {(void **)&p->copies, &p->num_copies, sizeof(zf_dcopy)},
        {(void **)&p->funcs, &p->num_funcs, sizeof(zf_dfunc)},
        {(void **)&p->params, &p->num_params, sizeof(zf_dparam)},
        {(void **)&p->consts, &p->num_consts, sizeof(zf_dconst)},
        {(void **)&p->relocs, &p->num_relocs, sizeof(zf_dreloc)},
        {(void **)&p->waves, &p->num_waves, sizeof(zf_dwave)},
        {(void **)&p->locals, &p->num_locals, sizeof(zf_dlocal)},
        {(void **)&p->kernels, &p->num_kernels, sizeof(zf_dkernel)},
        {(void **)&p->kernel_locals, &p->num_kernel_locals, sizeof(zf_dkernel_local)},
        {(void **)&p->aux, &p->num_aux, sizeof(uint32_t)},
        {(void **)&p->bytes, &p->num_bytes, 1},
        {(void **)&p->strings, &p->num_strings, 1},
    };
    memcpy(t, list, sizeof list);
}

static size_t zf_pad8(size_t n) {
    return (n + 7) & ~(size_t)7;
}

#define ZF_FORM_HEADER (8 + 4 * 4 + 4 * ZF_FORM_TABLES)

size_t zf_form_size(const zf_dprog *prog) {
    zf_table t[ZF_FORM_TABLES];
    zf_tables((zf_dprog *)prog, t);
    size_t size = zf_pad8(ZF_FORM_HEADER);
    for (uint32_t i = 0; i < ZF_FORM_TABLES; i++)
        size += zf_pad8((size_t)*t[i].count * t[i].item_size);
    return size;
}

void zf_form_write(const zf_dprog *prog, uint8_t *out) {
    zf_table t[ZF_FORM_TABLES];
    zf_tables((zf_dprog *)prog, t);
    size_t size = zf_form_size(prog);
    memset(out, 0, size);
    memcpy(out, ZF_FORM_MAGIC, 8);
    uint32_t head[4] = {ZF_FORM_VERSION, prog->const_bytes, prog->wave_bytes, prog->flags};
    memcpy(out + 8, head, sizeof head);
    size_t at = zf_pad8(ZF_FORM_HEADER);
    for (uint32_t i = 0; i < ZF_FORM_TABLES; i++) {
        memcpy(out + 24 + 4 * i, t[i].count, 4);
        size_t bytes = (size_t)*t[i].count * t[i].item_size;
        if (bytes > 0)
            memcpy(out + at, *t[i].items, bytes);
        at += zf_pad8(bytes);
    }
}

static zf_dprog *zf_form_fail(zf_dprog *p, char *why, size_t why_size, const char *what) {
    snprintf(why, why_size, "%s", what);
    zf_dprog_free(p);
    return NULL;
}

zf_dprog *zf_form_load(const uint8_t *data, size_t size, char *why, size_t why_size) {
    zf_dprog *p = calloc(1, sizeof *p);
    if (p == NULL)
        return zf_form_fail(NULL, why, why_size, "out of host memory");
    if (size < zf_pad8(ZF_FORM_HEADER) || memcmp(data, ZF_FORM_MAGIC, 8) != 0)
        return zf_form_fail(p, why, why_size, "no decoded-form header");
    uint32_t head[4];
    memcpy(head, data + 8, sizeof head);
    if (head[0] != ZF_FORM_VERSION)
        return zf_form_fail(p, why, why_size, "an unknown decoded-form version");
    p->const_bytes = head[1];
    p->wave_bytes = head[2];
    p->flags = head[3];
    zf_table t[ZF_FORM_TABLES];
    zf_tables(p, t);
    size_t at = zf_pad8(ZF_FORM_HEADER);
    uint32_t insts = 0;
    for (uint32_t i = 0; i < ZF_FORM_TABLES; i++) {
        uint32_t count;
        memcpy(&count, data + 24 + 4 * i, 4);
        if (i == 0)
            insts = count;
        if (i == 1 && count != insts)
            return zf_form_fail(p, why, why_size, "instruction words do not match the instructions");
        size_t bytes = (size_t)count * t[i].item_size;
        if (bytes / t[i].item_size != count || at > size || bytes > size - at)
            return zf_form_fail(p, why, why_size, "a table runs past the end of the decoded form");
        *t[i].items = malloc(bytes ? bytes : 1);
        if (*t[i].items == NULL)
            return zf_form_fail(p, why, why_size, "out of host memory");
        if (bytes > 0)
            memcpy(*t[i].items, data + at, bytes);
        *t[i].count = count;
        at += zf_pad8(bytes);
    }
    if (!zf_form_validate(p, why, why_size)) {
        zf_dprog_free(p);
        return NULL;
    }
    if (!zf_form_derive(p))
        return zf_form_fail(p, why, why_size, "out of host memory");
    return p;
}
