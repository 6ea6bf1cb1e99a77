/* Internals of the scenario parser: a small schema-driven walker over a libyaml document.
 *
 * The schema (scenario_schema.c) is a set of tables, one per YAML mapping, that say for every key how its value is
 * parsed and where it is stored. The walker (scenario_walk.c) enforces what is common to all mappings (unknown,
 * reserved, duplicate and missing keys) and the value parsers (scenario_values.c) enforce types and ranges, so a
 * rule is written once and every key gets the same error messages. */
#ifndef ZF_SCENARIO_INTERNAL_H
#define ZF_SCENARIO_INTERNAL_H

#include "scenario/scenario.h"
#include "scenario/scenario_number.h"

#include <stdarg.h>
#include <yaml.h>

/* Larger inputs are rejected: a scenario is a few KiB, and the cap bounds the parser's memory use. */
#define ZF_SCENARIO_MAX_BYTES (1024u * 1024u)
/* The schema nests six collections deep; anything much deeper is not a scenario. */
#define ZF_SCENARIO_MAX_DEPTH 16
#define ZF_PATH_MAX           160

typedef struct zf_walk {
    yaml_document_t *doc;
    const char *source;
    char *error; /* ZF_SCENARIO_ERROR_MAX bytes */
    char path[ZF_PATH_MAX];
    size_t path_len;
    zf_scenario *scenario; /* being filled: metric definitions go to its pools */
    /* The metric_groups node of each device, so a device that aliases another's list shares its definitions. */
    yaml_node_t *metric_nodes[ZF_SCENARIO_MAX_DEVICES];
} zf_walk;

typedef struct zf_field zf_field;
/* Parses `node` into the member of `base` that `field` describes. Returns false after writing an error. */
typedef bool (*zf_parse_fn)(zf_walk *w, yaml_node_t *node, void *base, const zf_field *field);

enum {
    ZF_OPT_REQUIRED = 1u << 0, /* the key must be present */
    ZF_OPT_SIZE = 1u << 1,     /* integer may carry a KiB/MiB/GiB/TiB suffix */
    ZF_OPT_POW2 = 1u << 2,     /* integer (or each list item) must be a power of two */
    ZF_OPT_NONEMPTY = 1u << 3, /* flag list or string must not be empty */
};

struct zf_field {
    const char *key;
    zf_parse_fn parse; /* NULL marks a key reserved for a later schema version */
    size_t offset;
    size_t size;
    uint64_t min;
    uint64_t max;
    const void *aux; /* zf_names, zf_schema, zf_list_spec or zf_uint_list_spec, depending on `parse` */
    unsigned options;
};

/* One YAML mapping. `finish` runs after all keys were parsed: derived defaults and checks across keys. */
typedef struct zf_schema {
    const zf_field *fields;
    size_t count;
    bool (*finish)(zf_walk *w, yaml_node_t *node, void *base, uint64_t present);
} zf_schema;

/* A sequence of mappings stored in a fixed array with a uint32_t count beside it. */
typedef struct zf_list_spec {
    const zf_schema *item;
    size_t elem_size;
    size_t count_offset;
    uint32_t min_items;
    uint32_t max_items;
    void (*init)(void *item, uint32_t index); /* defaults of one item */
} zf_list_spec;

/* A sequence of integers stored in a uint32_t array; count_offset is ZF_NO_COUNT for fixed-length arrays. */
#define ZF_NO_COUNT ((size_t)-1)
typedef struct zf_uint_list_spec {
    uint32_t min_items;
    uint32_t max_items;
    size_t count_offset;
    bool ascending; /* strictly increasing, so a value cannot be listed twice */
} zf_uint_list_spec;

typedef struct zf_name {
    const char *name;
    uint32_t value;
} zf_name;

typedef struct zf_names {
    const zf_name *items;
    size_t count;
} zf_names;

/* Errors. All return false so callers can `return zf_walk_fail(...)`. `sub` extends the current path (may be NULL). */
bool zf_walk_fail(zf_walk *w, const yaml_node_t *node, const char *sub, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
bool zf_walk_fail_type(zf_walk *w, const yaml_node_t *node, const char *expected);
void zf_scenario_errorf(char *error, const char *source, unsigned long line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Writes a printable, length-limited copy of a scalar for messages. */
void zf_describe_text(char *out, size_t out_size, const char *text, size_t length);

/* Path bookkeeping: push returns the previous length for zf_path_pop. */
size_t zf_path_push_key(zf_walk *w, const char *key, size_t key_length);
size_t zf_path_push_index(zf_walk *w, size_t index);
void zf_path_pop(zf_walk *w, size_t previous_length);

/* Document access. */
unsigned long zf_node_line(const yaml_node_t *node);
bool zf_node_is_null(const yaml_node_t *node);
yaml_node_t *zf_node_lookup(zf_walk *w, yaml_node_t *mapping, const char *key);
yaml_node_t *zf_node_item(zf_walk *w, yaml_node_t *sequence, size_t index);
size_t zf_node_length(const yaml_node_t *sequence);

bool zf_walk_mapping(zf_walk *w, yaml_node_t *node, const zf_schema *schema, void *base);

/* Value parsers usable in zf_field.parse. */
bool zf_parse_uint(zf_walk *w, yaml_node_t *node, void *base, const zf_field *field);
bool zf_parse_bool(zf_walk *w, yaml_node_t *node, void *base, const zf_field *field);
bool zf_parse_string(zf_walk *w, yaml_node_t *node, void *base, const zf_field *field);
bool zf_parse_enum(zf_walk *w, yaml_node_t *node, void *base, const zf_field *field);
bool zf_parse_flags(zf_walk *w, yaml_node_t *node, void *base, const zf_field *field);
bool zf_parse_uint_list(zf_walk *w, yaml_node_t *node, void *base, const zf_field *field);
bool zf_parse_mapping(zf_walk *w, yaml_node_t *node, void *base, const zf_field *field);
bool zf_parse_list(zf_walk *w, yaml_node_t *node, void *base, const zf_field *field);

/* Parses a plain-scalar integer and checks [min, max]; errors name the current path. */
bool zf_scalar_uint(zf_walk *w, yaml_node_t *node, bool allow_suffix, uint64_t min, uint64_t max, uint64_t *out);

/* ---- Schema table helpers (scenario_schema.c, scenario_metrics.c) ---- */

#define ZF_KIB(n) ((uint64_t)(n) << 10)
#define ZF_MIB(n) ((uint64_t)(n) << 20)
#define ZF_GIB(n) ((uint64_t)(n) << 30)
/* Largest memory and size accepted anywhere: 1 PiB, far beyond any device, small enough that sums cannot overflow. */
#define ZF_SIZE_MAX (UINT64_C(1) << 50)

#define ZF_MEMBER(T, m) .offset = offsetof(T, m), .size = sizeof(((T *)0)->m)
#define ZF_UINT(T, m, k, lo, hi, opts)                                                                                 \
    { .key = k, .parse = zf_parse_uint, ZF_MEMBER(T, m), .min = lo, .max = hi, .options = opts }
#define ZF_BOOL(T, m, k)                                                                                               \
    { .key = k, .parse = zf_parse_bool, ZF_MEMBER(T, m) }
#define ZF_STRING(T, m, k, opts)                                                                                       \
    { .key = k, .parse = zf_parse_string, ZF_MEMBER(T, m), .options = opts }
#define ZF_ENUM(T, m, k, names, opts)                                                                                  \
    { .key = k, .parse = zf_parse_enum, ZF_MEMBER(T, m), .aux = names, .options = opts }
#define ZF_FLAGS(T, m, k, names, opts)                                                                                 \
    { .key = k, .parse = zf_parse_flags, ZF_MEMBER(T, m), .aux = names, .options = opts }
#define ZF_UINTS(T, m, k, spec, lo, hi, opts)                                                                          \
    { .key = k, .parse = zf_parse_uint_list, ZF_MEMBER(T, m), .min = lo, .max = hi, .aux = spec, .options = opts }
#define ZF_MAP(T, m, k, schema)                                                                                        \
    { .key = k, .parse = zf_parse_mapping, ZF_MEMBER(T, m), .aux = schema }
/* A mapping whose keys are stored directly in the parent struct (clock, p2p). */
#define ZF_INLINE_MAP(k, schema)                                                                                       \
    { .key = k, .parse = zf_parse_mapping, .offset = 0, .aux = schema }
#define ZF_LIST(T, m, k, spec, opts)                                                                                   \
    { .key = k, .parse = zf_parse_list, ZF_MEMBER(T, m), .aux = spec, .options = opts }
#define ZF_CUSTOM(T, m, k, fn, opts)                                                                                   \
    { .key = k, .parse = fn, ZF_MEMBER(T, m), .options = opts }
#define ZF_RESERVED(k)                                                                                                 \
    { .key = k }
#define ZF_COUNT(a) (sizeof(a) / sizeof((a)[0]))
#define ZF_NAMES(a)                                                                                                    \
    { a, ZF_COUNT(a) }
#define ZF_SCHEMA(fields, finish)                                                                                      \
    { fields, ZF_COUNT(fields), finish }

/* The top-level schema entry point (scenario_schema.c): fills `out` from the document's root node. */
bool zf_scenario_walk_root(zf_walk *w, yaml_node_t *root, zf_scenario *out);

/* The top-level `faults` list (scenario_faults.c) and its check against the devices, once both are read. */
extern const zf_list_spec zf_fault_list;
bool zf_faults_check_devices(zf_walk *w, yaml_node_t *root, const zf_scenario *s);

/* The device's `fabric` section and the top-level `xe_links` list (scenario_fabric.c); the checks across keys run
 * once the device, and the whole file, are read. */
extern const zf_schema zf_fabric_schema;
extern const zf_list_spec zf_xe_link_list;
bool zf_fabric_check_device(zf_walk *w, yaml_node_t *device, const zf_scenario_device *d);
bool zf_xe_links_check(zf_walk *w, yaml_node_t *root, const zf_scenario *s);

/* Device keys of the metric definitions (scenario_metrics.c). */
bool zf_parse_metric_groups(zf_walk *w, yaml_node_t *node, void *base, const zf_field *field);
extern const zf_schema zf_metric_options_schema;
void zf_metric_options_defaults(zf_scenario_metric_options *options);

#endif
