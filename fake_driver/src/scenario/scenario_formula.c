/* Metric formulas: names, a recursive-descent compiler to a stack program, and the two evaluators. */
#include "scenario/scenario_formula.h"

#include <float.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char *const zf_signal_names[ZF_SIG_COUNT] = {
#define ZF_SIGNAL_NAME(NAME, name) [ZF_SIG_##NAME] = name,
    ZF_METRIC_SIGNALS(ZF_SIGNAL_NAME)
#undef ZF_SIGNAL_NAME
};

/* Names of the fields that are not counters (A0..C7 are spelt out by zf_field_name). */
static const char *const zf_named_fields[ZF_MF_COUNT] = {
    [ZF_MF_TICKS] = "ticks",
    [ZF_MF_GPU_TICKS] = "gpu_ticks",
    [ZF_MF_GPU_TIME] = "gpu_time",
    [ZF_MF_REPORT_REASON] = "report_reason",
    [ZF_MF_CONTEXT_ID] = "context_id",
    [ZF_MF_CONTEXT_VALID] = "context_valid",
    [ZF_MF_MARKER] = "marker",
    [ZF_MF_BEGIN_TIME] = "begin_time",
    [ZF_MF_REPORT_ERROR] = "report_error",
    [ZF_MF_REPORT_LOST] = "report_lost",
    [ZF_MF_QUERY_SPLIT] = "query_split",
    [ZF_MF_FREQ_CHANGED] = "freq_changed",
    [ZF_MF_IP] = "ip",
    [ZF_MF_ACTIVE] = "active",
    [ZF_MF_CONTROL_STALL] = "control_stall",
    [ZF_MF_PIPE_STALL] = "pipe_stall",
    [ZF_MF_SEND_STALL] = "send_stall",
    [ZF_MF_DIST_STALL] = "dist_stall",
    [ZF_MF_SBID_STALL] = "sbid_stall",
    [ZF_MF_SYNC_STALL] = "sync_stall",
    [ZF_MF_INSTFETCH_STALL] = "instfetch_stall",
    [ZF_MF_OTHER_STALL] = "other_stall",
    [ZF_MF_XVE_COUNT] = "xve_count",
    [ZF_MF_THREADS_PER_XVE] = "threads_per_xve",
    [ZF_MF_SIMD_WIDTH] = "simd_width",
    [ZF_MF_CORE_MHZ] = "core_mhz",
    [ZF_MF_TIMER_HZ] = "timer_hz",
    [ZF_MF_COMPUTE_ENGINES] = "compute_engines",
    [ZF_MF_COPY_ENGINES] = "copy_engines",
};

static const char zf_counter_names[ZF_OA_A_COUNTERS + ZF_OA_FLEX_COUNTERS][4] = {
    "A0",  "A1",  "A2",  "A3",  "A4",  "A5",  "A6",  "A7",  "A8",  "A9",  "A10", "A11", "A12", "A13", "A14", "A15",
    "A16", "A17", "A18", "A19", "A20", "A21", "A22", "A23", "A24", "A25", "A26", "A27", "A28", "A29", "A30", "A31",
    "B0",  "B1",  "B2",  "B3",  "B4",  "B5",  "B6",  "B7",  "C0",  "C1",  "C2",  "C3",  "C4",  "C5",  "C6",  "C7",
};

const char *zf_signal_name(zf_metric_signal signal) {
    return (unsigned)signal < ZF_SIG_COUNT ? zf_signal_names[signal] : NULL;
}

static bool zf_name_equals(const char *name, const char *text, size_t length) {
    return name != NULL && strlen(name) == length && memcmp(name, text, length) == 0;
}

bool zf_signal_lookup(const char *name, size_t length, zf_metric_signal *out) {
    for (int s = 0; s < ZF_SIG_COUNT; s++) {
        if (zf_name_equals(zf_signal_names[s], name, length)) {
            *out = (zf_metric_signal)s;
            return true;
        }
    }
    return false;
}

const char *zf_field_name(zf_metric_field field) {
    if (field >= ZF_MF_A0 && field < ZF_MF_REPORT_REASON)
        return zf_counter_names[field - ZF_MF_A0];
    return (unsigned)field < ZF_MF_COUNT ? zf_named_fields[field] : NULL;
}

/* Which fields a record family provides. Constants are available everywhere. */
static bool zf_field_available(zf_metric_field field, zf_metric_format format) {
    if (field >= ZF_MF_XVE_COUNT)
        return true;
    if (format == ZF_METRIC_FORMAT_EU_STALL)
        return field >= ZF_MF_IP && field <= ZF_MF_OTHER_STALL;
    return field < ZF_MF_IP;
}

static bool zf_field_lookup(const char *text, size_t length, zf_metric_field *out) {
    for (int f = 0; f < ZF_MF_COUNT; f++) {
        if (zf_name_equals(zf_field_name((zf_metric_field)f), text, length)) {
            *out = (zf_metric_field)f;
            return true;
        }
    }
    /* The fixed A counters also answer to the names of the signals they carry. */
    zf_metric_signal signal;
    if (zf_signal_lookup(text, length, &signal)) {
        *out = (zf_metric_field)(ZF_MF_A0 + zf_signal_a_slot(signal));
        return true;
    }
    return false;
}

/* ---- Compiler ------------------------------------------------------------------------------------------------- */

#define ZF_FORMULA_MAX_NESTING 16

typedef struct zf_compiler {
    const char *text;
    size_t length;
    size_t pos;
    zf_metric_format format;
    bool floating;
    zf_formula_op *ops;
    size_t max_ops;
    size_t num_ops;
    int nesting;
    char *why;
    size_t why_size;
    bool failed;
} zf_compiler;

__attribute__((format(printf, 2, 3))) static bool zf_compile_fail(zf_compiler *c, const char *format, ...) {
    if (c->failed)
        return false;
    c->failed = true;
    char reason[200];
    va_list args;
    va_start(args, format);
    vsnprintf(reason, sizeof reason, format, args);
    va_end(args);
    snprintf(c->why, c->why_size, "%s (at column %zu)", reason, c->pos + 1);
    return false;
}

static void zf_skip_spaces(zf_compiler *c) {
    while (c->pos < c->length && (c->text[c->pos] == ' ' || c->text[c->pos] == '\t'))
        c->pos++;
}

static bool zf_peek(zf_compiler *c, char want) {
    zf_skip_spaces(c);
    return c->pos < c->length && c->text[c->pos] == want;
}

static bool zf_expect(zf_compiler *c, char want) {
    if (!zf_peek(c, want))
        return zf_compile_fail(c, "expected '%c'", want);
    c->pos++;
    return true;
}

static bool zf_emit(zf_compiler *c, zf_formula_op op) {
    if (c->num_ops == c->max_ops)
        return zf_compile_fail(c, "too long: more than %zu operations", c->max_ops);
    c->ops[c->num_ops++] = op;
    return true;
}

static bool zf_is_ident_char(char ch, bool first) {
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_' || (!first && ch >= '0' && ch <= '9');
}

static bool zf_parse_expr(zf_compiler *c);

static bool zf_parse_number(zf_compiler *c) {
    uint64_t whole = 0;
    size_t start = c->pos;
    while (c->pos < c->length && c->text[c->pos] >= '0' && c->text[c->pos] <= '9') {
        uint64_t digit = (uint64_t)(c->text[c->pos] - '0');
        if (whole > (UINT64_MAX - digit) / 10)
            return zf_compile_fail(c, "number too large");
        whole = whole * 10 + digit;
        c->pos++;
    }
    if (c->pos < c->length && c->text[c->pos] == '.') {
        if (!c->floating)
            return zf_compile_fail(c, "decimal number in an integer formula (the metric's value type is an integer)");
        c->pos++;
        /* Fraction digits as an exact integer over a power of ten: one rounding only, and no locale (strtod). */
        uint64_t fraction = 0, scale = 1;
        size_t digits = 0;
        for (; c->pos < c->length && c->text[c->pos] >= '0' && c->text[c->pos] <= '9'; c->pos++, digits++) {
            if (digits == 18)
                return zf_compile_fail(c, "more than 18 digits after the decimal point");
            fraction = fraction * 10 + (uint64_t)(c->text[c->pos] - '0');
            scale *= 10;
        }
        if (digits == 0)
            return zf_compile_fail(c, "expected digits after the decimal point");
        double value = (double)whole + (double)fraction / (double)scale;
        return zf_emit(c, (zf_formula_op){.code = ZF_OP_FLOAT, .imm.f = value});
    }
    if (zf_is_ident_char(c->pos < c->length ? c->text[c->pos] : ' ', false) && c->pos > start)
        return zf_compile_fail(c, "a name cannot start with a digit");
    return zf_emit(c, (zf_formula_op){.code = ZF_OP_INT, .imm.u = whole});
}

static bool zf_parse_call(zf_compiler *c, zf_formula_code code) {
    c->pos++; /* '(' */
    if (!zf_parse_expr(c) || !zf_expect(c, ',') || !zf_parse_expr(c) || !zf_expect(c, ')'))
        return false;
    return zf_emit(c, (zf_formula_op){.code = (uint8_t)code});
}

static bool zf_parse_name(zf_compiler *c) {
    size_t start = c->pos;
    while (c->pos < c->length && zf_is_ident_char(c->text[c->pos], c->pos == start))
        c->pos++;
    const char *name = c->text + start;
    size_t length = c->pos - start;
    if (zf_peek(c, '(')) {
        if (zf_name_equals("min", name, length))
            return zf_parse_call(c, ZF_OP_MIN);
        if (zf_name_equals("max", name, length))
            return zf_parse_call(c, ZF_OP_MAX);
        c->pos = start;
        return zf_compile_fail(c, "unknown function '%.*s' (known: min, max)", (int)length, name);
    }
    zf_metric_field field;
    if (!zf_field_lookup(name, length, &field)) {
        c->pos = start;
        return zf_compile_fail(c, "unknown name '%.*s'", (int)length, name);
    }
    if (!zf_field_available(field, c->format)) {
        c->pos = start;
        return zf_compile_fail(c, "'%.*s' is not a field of %s records", (int)length, name,
                               c->format == ZF_METRIC_FORMAT_OA ? "oa" : "eu_stall");
    }
    return zf_emit(c, (zf_formula_op){.code = ZF_OP_FIELD, .field = (uint8_t)field});
}

static bool zf_parse_factor(zf_compiler *c) {
    zf_skip_spaces(c);
    if (c->pos >= c->length)
        return zf_compile_fail(c, "expected a number, a name or '('");
    char ch = c->text[c->pos];
    if (ch == '(') {
        if (++c->nesting > ZF_FORMULA_MAX_NESTING)
            return zf_compile_fail(c, "parentheses nested deeper than %d", ZF_FORMULA_MAX_NESTING);
        c->pos++;
        bool ok = zf_parse_expr(c) && zf_expect(c, ')');
        c->nesting--;
        return ok;
    }
    if (ch >= '0' && ch <= '9')
        return zf_parse_number(c);
    if (zf_is_ident_char(ch, true))
        return zf_parse_name(c);
    return zf_compile_fail(c, "unexpected '%c'", ch);
}

static bool zf_parse_term(zf_compiler *c) {
    if (!zf_parse_factor(c))
        return false;
    while (zf_peek(c, '*') || zf_peek(c, '/')) {
        zf_formula_code code = c->text[c->pos++] == '*' ? ZF_OP_MUL : ZF_OP_DIV;
        if (!zf_parse_factor(c) || !zf_emit(c, (zf_formula_op){.code = (uint8_t)code}))
            return false;
    }
    return true;
}

static bool zf_parse_expr(zf_compiler *c) {
    if (!zf_parse_term(c))
        return false;
    while (zf_peek(c, '+') || zf_peek(c, '-')) {
        zf_formula_code code = c->text[c->pos++] == '+' ? ZF_OP_ADD : ZF_OP_SUB;
        if (!zf_parse_term(c) || !zf_emit(c, (zf_formula_op){.code = (uint8_t)code}))
            return false;
    }
    return true;
}

/* The evaluators trust the program; this proves its stack never underflows nor exceeds ZF_FORMULA_MAX_STACK. */
static bool zf_check_stack(zf_compiler *c) {
    size_t depth = 0;
    for (size_t i = 0; i < c->num_ops; i++) {
        if (c->ops[i].code <= ZF_OP_FIELD)
            depth++;
        else
            depth--;
        if (depth > ZF_FORMULA_MAX_STACK)
            return zf_compile_fail(c, "too complex: needs more than %u intermediate values", ZF_FORMULA_MAX_STACK);
    }
    return true;
}

bool zf_formula_compile(const char *text, size_t length, zf_metric_format format, bool floating, zf_formula_op *ops,
                        size_t max_ops, size_t *num_ops, char *why, size_t why_size) {
    zf_compiler c = {.text = text,
                     .length = length,
                     .format = format,
                     .floating = floating,
                     .ops = ops,
                     .max_ops = max_ops,
                     .why = why,
                     .why_size = why_size};
    if (length > ZF_FORMULA_MAX_TEXT)
        return zf_compile_fail(&c, "longer than %u characters", ZF_FORMULA_MAX_TEXT);
    if (!zf_parse_expr(&c))
        return false;
    zf_skip_spaces(&c);
    if (c.pos < c.length)
        return zf_compile_fail(&c, "unexpected '%c' after the end of the expression", c.text[c.pos]);
    if (!zf_check_stack(&c))
        return false;
    *num_ops = c.num_ops;
    return true;
}

/* ---- Evaluators ----------------------------------------------------------------------------------------------- */

typedef unsigned __int128 zf_u128;
#define ZF_U128_MAX (~(zf_u128)0)

static zf_u128 zf_apply_int(uint8_t code, zf_u128 a, zf_u128 b) {
    switch (code) {
    case ZF_OP_ADD:
        return a > ZF_U128_MAX - b ? ZF_U128_MAX : a + b;
    case ZF_OP_SUB:
        return a > b ? a - b : 0;
    case ZF_OP_MUL:
        return (b != 0 && a > ZF_U128_MAX / b) ? ZF_U128_MAX : a * b;
    case ZF_OP_DIV:
        return b == 0 ? 0 : a / b;
    case ZF_OP_MIN:
        return a < b ? a : b;
    default:
        return a > b ? a : b;
    }
}

uint64_t zf_formula_eval_int(const zf_formula_op *ops, size_t num_ops, const uint64_t *fields) {
    zf_u128 stack[ZF_FORMULA_MAX_STACK];
    size_t top = 0;
    for (size_t i = 0; i < num_ops; i++) {
        const zf_formula_op *op = &ops[i];
        if (op->code == ZF_OP_INT)
            stack[top++] = op->imm.u;
        else if (op->code == ZF_OP_FIELD)
            stack[top++] = fields[op->field];
        else if (op->code == ZF_OP_FLOAT)
            stack[top++] = 0; /* never compiled into integer formulas */
        else {
            top--;
            stack[top - 1] = zf_apply_int(op->code, stack[top - 1], stack[top]);
        }
    }
    zf_u128 result = top > 0 ? stack[top - 1] : 0;
    return result > UINT64_MAX ? UINT64_MAX : (uint64_t)result;
}

/* Keeps every intermediate value finite: no infinities, so no NaN (inf - inf, 0 * inf) can appear either. */
static double zf_finite(double x) {
    if (x > DBL_MAX)
        return DBL_MAX;
    if (x < -DBL_MAX)
        return -DBL_MAX;
    return x;
}

static double zf_apply_float(uint8_t code, double a, double b) {
    switch (code) {
    case ZF_OP_ADD:
        return zf_finite(a + b);
    case ZF_OP_SUB:
        return zf_finite(a - b);
    case ZF_OP_MUL:
        return zf_finite(a * b);
    case ZF_OP_DIV:
        return b == 0.0 ? 0.0 : zf_finite(a / b);
    case ZF_OP_MIN:
        return a < b ? a : b;
    default:
        return a > b ? a : b;
    }
}

double zf_formula_eval_float(const zf_formula_op *ops, size_t num_ops, const uint64_t *fields) {
    double stack[ZF_FORMULA_MAX_STACK];
    size_t top = 0;
    for (size_t i = 0; i < num_ops; i++) {
        const zf_formula_op *op = &ops[i];
        if (op->code == ZF_OP_INT)
            stack[top++] = (double)op->imm.u;
        else if (op->code == ZF_OP_FLOAT)
            stack[top++] = op->imm.f;
        else if (op->code == ZF_OP_FIELD)
            stack[top++] = (double)fields[op->field];
        else {
            top--;
            stack[top - 1] = zf_apply_float(op->code, stack[top - 1], stack[top]);
        }
    }
    return top > 0 ? stack[top - 1] : 0.0;
}
