/* The schema walker: error messages, key paths, and the rules every YAML mapping and list of the schema shares. */
#include "scenario/scenario_internal.h"

#include <stdio.h>
#include <string.h>

/* Messages quote at most this much of a user's text, so a huge scalar cannot push the reason out of the buffer. */
#define ZF_QUOTE_MAX 40

void zf_scenario_errorf(char *error, const char *source, unsigned long line, const char *fmt, ...) {
    int prefix = snprintf(error, ZF_SCENARIO_ERROR_MAX, "%s:%lu: ", source, line);
    if (prefix < 0 || prefix >= ZF_SCENARIO_ERROR_MAX)
        return;
    va_list args;
    va_start(args, fmt);
    vsnprintf(error + prefix, ZF_SCENARIO_ERROR_MAX - (size_t)prefix, fmt, args);
    va_end(args);
}

bool zf_walk_fail(zf_walk *w, const yaml_node_t *node, const char *sub, const char *fmt, ...) {
    char reason[ZF_SCENARIO_ERROR_MAX];
    va_list args;
    va_start(args, fmt);
    vsnprintf(reason, sizeof(reason), fmt, args);
    va_end(args);

    const char *dot = (w->path_len > 0 && sub) ? "." : "";
    const char *tail = sub ? sub : "";
    const char *colon = (w->path_len > 0 || sub) ? ": " : "";
    zf_scenario_errorf(w->error, w->source, node ? zf_node_line(node) : 1, "%s%s%s%s%s", w->path, dot, tail, colon,
                       reason);
    return false;
}

void zf_describe_text(char *out, size_t out_size, const char *text, size_t length) {
    size_t limit = length > ZF_QUOTE_MAX ? ZF_QUOTE_MAX : length;
    /* Cut before a UTF-8 continuation byte so the message stays valid UTF-8. */
    while (limit < length && limit > 0 && ((unsigned char)text[limit] & 0xC0) == 0x80)
        limit--;
    size_t n = 0;
    for (size_t i = 0; i < limit && n + 1 < out_size; i++) {
        unsigned char c = (unsigned char)text[i];
        out[n++] = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
    }
    for (size_t i = 0; limit < length && i < 3 && n + 1 < out_size; i++)
        out[n++] = '.';
    out[n] = '\0';
}

static void zf_describe_node(char *out, size_t out_size, const yaml_node_t *node) {
    if (node->type == YAML_MAPPING_NODE) {
        snprintf(out, out_size, "a mapping");
    } else if (node->type == YAML_SEQUENCE_NODE) {
        snprintf(out, out_size, "a sequence");
    } else if (zf_node_is_null(node)) {
        snprintf(out, out_size, "nothing (null)");
    } else if (node->data.scalar.style != YAML_PLAIN_SCALAR_STYLE) {
        char text[ZF_QUOTE_MAX + 8];
        zf_describe_text(text, sizeof(text), (const char *)node->data.scalar.value, node->data.scalar.length);
        snprintf(out, out_size, "the quoted string \"%s\"", text);
    } else {
        char text[ZF_QUOTE_MAX + 8];
        zf_describe_text(text, sizeof(text), (const char *)node->data.scalar.value, node->data.scalar.length);
        snprintf(out, out_size, "'%s'", text);
    }
}

bool zf_walk_fail_type(zf_walk *w, const yaml_node_t *node, const char *expected) {
    char got[ZF_QUOTE_MAX + 32];
    zf_describe_node(got, sizeof(got), node);
    return zf_walk_fail(w, node, NULL, "expected %s, got %s", expected, got);
}

size_t zf_path_push_key(zf_walk *w, const char *key, size_t key_length) {
    size_t previous = w->path_len;
    char text[ZF_QUOTE_MAX + 8];
    zf_describe_text(text, sizeof(text), key, key_length);
    snprintf(w->path + previous, sizeof(w->path) - previous, "%s%s", previous ? "." : "", text);
    w->path_len = strnlen(w->path, sizeof(w->path) - 1);
    return previous;
}

size_t zf_path_push_index(zf_walk *w, size_t index) {
    size_t previous = w->path_len;
    snprintf(w->path + previous, sizeof(w->path) - previous, "[%zu]", index);
    w->path_len = strnlen(w->path, sizeof(w->path) - 1);
    return previous;
}

void zf_path_pop(zf_walk *w, size_t previous_length) {
    w->path_len = previous_length;
    w->path[previous_length] = '\0';
}

unsigned long zf_node_line(const yaml_node_t *node) {
    return (unsigned long)node->start_mark.line + 1;
}

bool zf_node_is_null(const yaml_node_t *node) {
    if (node->type != YAML_SCALAR_NODE || node->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return false;
    static const char *const nulls[] = {"", "~", "null", "Null", "NULL"};
    for (size_t i = 0; i < sizeof(nulls) / sizeof(nulls[0]); i++) {
        if (node->data.scalar.length == strlen(nulls[i]) &&
            memcmp(node->data.scalar.value, nulls[i], node->data.scalar.length) == 0)
            return true;
    }
    return false;
}

static bool zf_scalar_equals(const yaml_node_t *node, const char *text) {
    size_t length = strlen(text);
    return node->type == YAML_SCALAR_NODE && node->data.scalar.length == length &&
           memcmp(node->data.scalar.value, text, length) == 0;
}

yaml_node_t *zf_node_lookup(zf_walk *w, yaml_node_t *mapping, const char *key) {
    if (!mapping || mapping->type != YAML_MAPPING_NODE)
        return NULL;
    for (yaml_node_pair_t *pair = mapping->data.mapping.pairs.start; pair < mapping->data.mapping.pairs.top; pair++) {
        if (zf_scalar_equals(yaml_document_get_node(w->doc, pair->key), key))
            return yaml_document_get_node(w->doc, pair->value);
    }
    return NULL;
}

size_t zf_node_length(const yaml_node_t *sequence) {
    return (size_t)(sequence->data.sequence.items.top - sequence->data.sequence.items.start);
}

yaml_node_t *zf_node_item(zf_walk *w, yaml_node_t *sequence, size_t index) {
    return yaml_document_get_node(w->doc, sequence->data.sequence.items.start[index]);
}

static const zf_field *zf_schema_find(const zf_schema *schema, const yaml_node_t *key, size_t *index) {
    for (size_t i = 0; i < schema->count; i++) {
        if (zf_scalar_equals(key, schema->fields[i].key)) {
            *index = i;
            return &schema->fields[i];
        }
    }
    return NULL;
}

/* Checks one key of a mapping before its value is parsed: known, not reserved, not seen before. */
static bool zf_check_key(zf_walk *w, yaml_node_t *key, const zf_schema *schema, yaml_node_t *const *seen,
                         size_t *index) {
    if (key->type != YAML_SCALAR_NODE)
        return zf_walk_fail(w, key, NULL, "keys must be strings, got %s",
                            key->type == YAML_MAPPING_NODE ? "a mapping" : "a sequence");
    const zf_field *field = zf_schema_find(schema, key, index);
    if (field && field->parse && !seen[*index])
        return true;
    /* The message names the offending key itself; the path is not popped because parsing stops here. */
    zf_path_push_key(w, (const char *)key->data.scalar.value, key->data.scalar.length);
    if (!field)
        return zf_walk_fail(w, key, NULL, "unknown key");
    if (!field->parse)
        return zf_walk_fail(w, key, NULL, "reserved for a later version");
    return zf_walk_fail(w, key, NULL, "duplicate key (first at line %lu)", zf_node_line(seen[*index]));
}

static bool zf_check_required(zf_walk *w, yaml_node_t *node, const zf_schema *schema, uint64_t present) {
    for (size_t i = 0; i < schema->count; i++) {
        if ((schema->fields[i].options & ZF_OPT_REQUIRED) && !(present & (UINT64_C(1) << i)))
            return zf_walk_fail(w, node, NULL, "missing required key '%s'", schema->fields[i].key);
    }
    return true;
}

bool zf_walk_mapping(zf_walk *w, yaml_node_t *node, const zf_schema *schema, void *base) {
    if (node->type != YAML_MAPPING_NODE)
        return zf_walk_fail_type(w, node, "a mapping");
    yaml_node_t *seen[64] = {0};
    uint64_t present = 0;
    for (yaml_node_pair_t *pair = node->data.mapping.pairs.start; pair < node->data.mapping.pairs.top; pair++) {
        yaml_node_t *key = yaml_document_get_node(w->doc, pair->key);
        yaml_node_t *value = yaml_document_get_node(w->doc, pair->value);
        size_t index = 0;
        if (!zf_check_key(w, key, schema, seen, &index))
            return false;
        seen[index] = key;
        present |= UINT64_C(1) << index;
        const zf_field *field = &schema->fields[index];
        size_t previous = zf_path_push_key(w, field->key, strlen(field->key));
        if (!field->parse(w, value, base, field))
            return false;
        zf_path_pop(w, previous);
    }
    if (!zf_check_required(w, node, schema, present))
        return false;
    return !schema->finish || schema->finish(w, node, base, present);
}

bool zf_parse_mapping(zf_walk *w, yaml_node_t *node, void *base, const zf_field *field) {
    return zf_walk_mapping(w, node, field->aux, (char *)base + field->offset);
}

static bool zf_check_list_length(zf_walk *w, yaml_node_t *node, uint32_t min_items, uint32_t max_items) {
    if (node->type != YAML_SEQUENCE_NODE)
        return zf_walk_fail_type(w, node, "a sequence");
    size_t length = zf_node_length(node);
    if (length < min_items)
        return zf_walk_fail(w, node, NULL, "has %zu entries, at least %u are required", length, min_items);
    if (length > max_items)
        return zf_walk_fail(w, node, NULL, "has %zu entries, at most %u are supported", length, max_items);
    return true;
}

bool zf_parse_list(zf_walk *w, yaml_node_t *node, void *base, const zf_field *field) {
    const zf_list_spec *spec = field->aux;
    if (!zf_check_list_length(w, node, spec->min_items, spec->max_items))
        return false;
    uint32_t count = (uint32_t)zf_node_length(node);
    char *items = (char *)base + field->offset;
    for (uint32_t i = 0; i < count; i++) {
        void *item = items + (size_t)i * spec->elem_size;
        memset(item, 0, spec->elem_size);
        if (spec->init)
            spec->init(item, i);
        size_t previous = zf_path_push_index(w, i);
        if (!zf_walk_mapping(w, zf_node_item(w, node, i), spec->item, item))
            return false;
        zf_path_pop(w, previous);
    }
    memcpy((char *)base + spec->count_offset, &count, sizeof(count));
    return true;
}

bool zf_parse_uint_list(zf_walk *w, yaml_node_t *node, void *base, const zf_field *field) {
    const zf_uint_list_spec *spec = field->aux;
    if (!zf_check_list_length(w, node, spec->min_items, spec->max_items))
        return false;
    uint32_t count = (uint32_t)zf_node_length(node);
    uint32_t *values = (uint32_t *)((char *)base + field->offset);
    for (uint32_t i = 0; i < count; i++) {
        size_t previous = zf_path_push_index(w, i);
        uint64_t value = 0;
        yaml_node_t *item = zf_node_item(w, node, i);
        if (!zf_scalar_uint(w, item, false, field->min, field->max, &value))
            return false;
        if ((field->options & ZF_OPT_POW2) && (value & (value - 1)) != 0)
            return zf_walk_fail(w, item, NULL, "%llu is not a power of two", (unsigned long long)value);
        if (spec->ascending && i > 0 && value <= values[i - 1])
            return zf_walk_fail(w, item, NULL, "values must be listed in increasing order without repeats");
        values[i] = (uint32_t)value;
        zf_path_pop(w, previous);
    }
    if (spec->count_offset != ZF_NO_COUNT)
        memcpy((char *)base + spec->count_offset, &count, sizeof(count));
    return true;
}
