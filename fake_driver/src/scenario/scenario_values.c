/* Value parsers: integers (with size suffixes), booleans, strings, enumerations and flag lists.
 *
 * Only unquoted YAML scalars are taken as numbers and booleans, so "0x10" in quotes is a type error rather than a
 * silently reinterpreted string. Numbers are parsed here, not with strtoull, to stay locale-independent and to
 * report overflow precisely. */
#include "scenario/scenario_internal.h"

#include <stdio.h>
#include <string.h>

static const struct {
    const char *text;
    unsigned shift;
} zf_size_suffixes[] = {{"KiB", 10}, {"MiB", 20}, {"GiB", 30}, {"TiB", 40}};

static int zf_digit_value(char c, unsigned base) {
    if (c >= '0' && c <= '9')
        return c - '0';
    if (base == 16 && c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (base == 16 && c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Digits with single '_' separators between them (as in 38_400_000). */
static bool zf_digits_valid(const char *s, size_t n, unsigned base) {
    if (n == 0 || zf_digit_value(s[0], base) < 0 || zf_digit_value(s[n - 1], base) < 0)
        return false;
    for (size_t i = 1; i < n; i++) {
        if (s[i] == '_' && s[i - 1] != '_')
            continue;
        if (zf_digit_value(s[i], base) < 0)
            return false;
    }
    return true;
}

static zf_number_status zf_digits_parse(const char *s, size_t n, unsigned base, uint64_t *out) {
    if (!zf_digits_valid(s, n, base))
        return ZF_NUMBER_SYNTAX;
    /* A leading zero would mean octal to YAML 1.1 readers; refuse the ambiguity instead of guessing. */
    if (base == 10 && n > 1 && s[0] == '0')
        return ZF_NUMBER_SYNTAX;
    uint64_t value = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '_')
            continue;
        uint64_t digit = (uint64_t)zf_digit_value(s[i], base);
        if (value > (UINT64_MAX - digit) / base)
            return ZF_NUMBER_OVERFLOW;
        value = value * base + digit;
    }
    *out = value;
    return ZF_NUMBER_OK;
}

/* Strips a size suffix (and one space before it) from the end of the text; returns the shift it stands for. */
static unsigned zf_strip_suffix(const char *text, size_t *length) {
    for (size_t i = 0; i < sizeof(zf_size_suffixes) / sizeof(zf_size_suffixes[0]); i++) {
        size_t n = strlen(zf_size_suffixes[i].text);
        if (*length > n && memcmp(text + *length - n, zf_size_suffixes[i].text, n) == 0) {
            *length -= n;
            if (text[*length - 1] == ' ')
                *length -= 1;
            return zf_size_suffixes[i].shift;
        }
    }
    return 0;
}

static zf_number_status zf_unsigned_parse(const char *text, size_t length, bool allow_suffix, uint64_t *out) {
    unsigned shift = allow_suffix ? zf_strip_suffix(text, &length) : 0;
    unsigned base = 10;
    if (length > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
        base = 16;
        text += 2;
        length -= 2;
    }
    uint64_t value = 0;
    zf_number_status status = zf_digits_parse(text, length, base, &value);
    if (status != ZF_NUMBER_OK)
        return status;
    if (shift && value > (UINT64_MAX >> shift))
        return ZF_NUMBER_OVERFLOW;
    *out = value << shift;
    return ZF_NUMBER_OK;
}

zf_number_status zf_number_parse(const char *text, size_t length, bool allow_suffix, uint64_t *out) {
    if (length == 0 || text[0] != '-')
        return zf_unsigned_parse(text, length, allow_suffix, out);
    /* A well-formed negative number gets a range error, which says more than "expected an integer". */
    uint64_t ignored = 0;
    zf_number_status status = zf_unsigned_parse(text + 1, length - 1, allow_suffix, &ignored);
    return status == ZF_NUMBER_SYNTAX ? ZF_NUMBER_SYNTAX : ZF_NUMBER_NEGATIVE;
}

static bool zf_is_plain_value(const yaml_node_t *node) {
    return node->type == YAML_SCALAR_NODE && node->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
           !zf_node_is_null(node);
}

bool zf_scalar_uint(zf_walk *w, yaml_node_t *node, bool allow_suffix, uint64_t min, uint64_t max, uint64_t *out) {
    const char *expected =
        allow_suffix ? "a size (an integer, optionally followed by KiB, MiB, GiB or TiB)" : "an integer";
    if (!zf_is_plain_value(node))
        return zf_walk_fail_type(w, node, expected);
    const char *text = (const char *)node->data.scalar.value;
    char shown[64];
    zf_describe_text(shown, sizeof(shown), text, node->data.scalar.length);
    uint64_t value = 0;
    switch (zf_number_parse(text, node->data.scalar.length, allow_suffix, &value)) {
    case ZF_NUMBER_SYNTAX:
        return zf_walk_fail_type(w, node, expected);
    case ZF_NUMBER_OVERFLOW:
        return zf_walk_fail(w, node, NULL, "%s is too large (does not fit in 64 bits)", shown);
    case ZF_NUMBER_NEGATIVE:
        return zf_walk_fail(w, node, NULL, "%s is out of range %llu..%llu", shown, (unsigned long long)min,
                            (unsigned long long)max);
    case ZF_NUMBER_OK:
        break;
    }
    if (value < min || value > max)
        return zf_walk_fail(w, node, NULL, "%s is out of range %llu..%llu", shown, (unsigned long long)min,
                            (unsigned long long)max);
    *out = value;
    return true;
}

static void zf_store_uint(void *target, size_t size, uint64_t value) {
    if (size == sizeof(uint64_t)) {
        memcpy(target, &value, sizeof(value));
        return;
    }
    uint32_t narrow = (uint32_t)value;
    memcpy(target, &narrow, sizeof(narrow));
}

bool zf_parse_uint(zf_walk *w, yaml_node_t *node, void *base, const zf_field *field) {
    uint64_t type_max = field->size == sizeof(uint64_t) ? UINT64_MAX : UINT32_MAX;
    uint64_t max = field->max < type_max ? field->max : type_max;
    uint64_t value = 0;
    if (!zf_scalar_uint(w, node, (field->options & ZF_OPT_SIZE) != 0, field->min, max, &value))
        return false;
    if ((field->options & ZF_OPT_POW2) && (value & (value - 1)) != 0)
        return zf_walk_fail(w, node, NULL, "%llu is not a power of two", (unsigned long long)value);
    zf_store_uint((char *)base + field->offset, field->size, value);
    return true;
}

static bool zf_scalar_is(const yaml_node_t *node, const char *text) {
    return node->data.scalar.length == strlen(text) && memcmp(node->data.scalar.value, text, strlen(text)) == 0;
}

bool zf_parse_bool(zf_walk *w, yaml_node_t *node, void *base, const zf_field *field) {
    if (!zf_is_plain_value(node) || !(zf_scalar_is(node, "true") || zf_scalar_is(node, "false")))
        return zf_walk_fail_type(w, node, "true or false");
    bool value = zf_scalar_is(node, "true");
    memcpy((char *)base + field->offset, &value, sizeof(value));
    return true;
}

bool zf_parse_string(zf_walk *w, yaml_node_t *node, void *base, const zf_field *field) {
    if (node->type != YAML_SCALAR_NODE || zf_node_is_null(node))
        return zf_walk_fail_type(w, node, "a string");
    size_t length = node->data.scalar.length;
    if (memchr(node->data.scalar.value, '\0', length))
        return zf_walk_fail(w, node, NULL, "must not contain a NUL character");
    if ((field->options & ZF_OPT_NONEMPTY) && length == 0)
        return zf_walk_fail(w, node, NULL, "must not be empty");
    /* The consumer copies these into fixed API buffers, so refuse rather than truncate. */
    if (length >= field->size)
        return zf_walk_fail(w, node, NULL, "is %zu bytes long, at most %zu fit", length, field->size - 1);
    char *target = (char *)base + field->offset;
    memcpy(target, node->data.scalar.value, length);
    target[length] = '\0';
    return true;
}

static void zf_join_names(char *out, size_t out_size, const zf_names *names) {
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < names->count && used < out_size; i++) {
        int n = snprintf(out + used, out_size - used, "%s%s", i ? ", " : "", names->items[i].name);
        if (n < 0)
            return;
        used += (size_t)n;
    }
}

static const zf_name *zf_names_find(const zf_names *names, const yaml_node_t *node) {
    for (size_t i = 0; i < names->count; i++) {
        if (zf_scalar_is(node, names->items[i].name))
            return &names->items[i];
    }
    return NULL;
}

/* Resolves one scalar against a table of names; `what` says what kind of name it is in the error. */
static bool zf_lookup_name(zf_walk *w, yaml_node_t *node, const zf_names *names, const char *what, uint32_t *out) {
    char known[256];
    zf_join_names(known, sizeof(known), names);
    if (node->type != YAML_SCALAR_NODE || zf_node_is_null(node)) {
        char expected[300];
        snprintf(expected, sizeof(expected), "one of %s", known);
        return zf_walk_fail_type(w, node, expected);
    }
    const zf_name *found = zf_names_find(names, node);
    if (!found) {
        char shown[64];
        zf_describe_text(shown, sizeof(shown), (const char *)node->data.scalar.value, node->data.scalar.length);
        return zf_walk_fail(w, node, NULL, "unknown %s '%s' (known: %s)", what, shown, known);
    }
    *out = found->value;
    return true;
}

bool zf_parse_enum(zf_walk *w, yaml_node_t *node, void *base, const zf_field *field) {
    uint32_t value = 0;
    if (!zf_lookup_name(w, node, field->aux, "value", &value))
        return false;
    memcpy((char *)base + field->offset, &value, sizeof(value));
    return true;
}

static bool zf_add_flag(zf_walk *w, yaml_node_t *item, const zf_names *names, uint32_t *flags) {
    uint32_t bit = 0;
    if (!zf_lookup_name(w, item, names, "flag", &bit))
        return false;
    if (*flags & bit)
        return zf_walk_fail(w, item, NULL, "flag is listed twice");
    *flags |= bit;
    return true;
}

bool zf_parse_flags(zf_walk *w, yaml_node_t *node, void *base, const zf_field *field) {
    if (node->type != YAML_SEQUENCE_NODE)
        return zf_walk_fail_type(w, node, "a sequence of flag names such as [a, b]");
    size_t count = zf_node_length(node);
    if ((field->options & ZF_OPT_NONEMPTY) && count == 0)
        return zf_walk_fail(w, node, NULL, "must list at least one flag");
    uint32_t flags = 0;
    for (size_t i = 0; i < count; i++) {
        size_t previous = zf_path_push_index(w, i);
        if (!zf_add_flag(w, zf_node_item(w, node, i), field->aux, &flags))
            return false;
        zf_path_pop(w, previous);
    }
    memcpy((char *)base + field->offset, &flags, sizeof(flags));
    return true;
}
