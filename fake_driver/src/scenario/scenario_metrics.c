/* The metric keys of a device: metric_options and metric_groups (docs/scenarios.md, "metric_groups").
 *
 * Metric definitions go to pools of the scenario (strings, metrics, compiled formulas). Each list entry is first
 * parsed into a plain struct by the ordinary schema walker, then its strings are interned; formulas are compiled in
 * the entry's finish step, when the record format they are written for is known whatever the key order. */
#include "scenario/scenario_internal.h"

#include <stdio.h>
#include <string.h>

/* ---- Information entries -------------------------------------------------------------------------------------- */

static const zf_metric_info_def zf_info_oa_time[] = {
    {"QueryBeginTime", "The begin time of the measurement (the earlier report's timestamp)", "ns",
     ZET_METRIC_TYPE_TIMESTAMP, ZET_VALUE_TYPE_UINT64, "begin_time"},
    {"CoreFrequencyMHz", "The GPU core frequency over the measurement", "MHz", ZET_METRIC_TYPE_RAW,
     ZET_VALUE_TYPE_UINT64, "gpu_ticks * 1000 / gpu_time"},
    {"ReportReason", "Why the report was written: 1 timer, 2 stream marker", "", ZET_METRIC_TYPE_RAW,
     ZET_VALUE_TYPE_UINT32, "report_reason"},
    {"ContextIdValid", "Whether a command was running when the report was written", "", ZET_METRIC_TYPE_FLAG,
     ZET_VALUE_TYPE_BOOL8, "context_valid"},
    {"ContextId", "The hardware context (engine) that was running when the report was written", "", ZET_METRIC_TYPE_RAW,
     ZET_VALUE_TYPE_UINT32, "context_id"},
    {"StreamMarker", "The value of the last stream marker executed before the report", "", ZET_METRIC_TYPE_RAW,
     ZET_VALUE_TYPE_UINT32, "marker"},
};

static const zf_metric_info_def zf_info_oa_event[] = {
    {"QueryBeginTime", "The device time the query began at", "ns", ZET_METRIC_TYPE_TIMESTAMP, ZET_VALUE_TYPE_UINT64,
     "begin_time"},
    {"CoreFrequencyMHz", "The GPU core frequency over the query", "MHz", ZET_METRIC_TYPE_RAW, ZET_VALUE_TYPE_UINT64,
     "gpu_ticks * 1000 / gpu_time"},
    {"CoreFrequencyChanged", "Whether the core frequency changed during the query", "", ZET_METRIC_TYPE_FLAG,
     ZET_VALUE_TYPE_BOOL8, "freq_changed"},
    {"QuerySplitOccurred", "Whether the begin and the end of the query ran on different engines", "",
     ZET_METRIC_TYPE_FLAG, ZET_VALUE_TYPE_BOOL8, "query_split"},
    {"ReportError", "Whether the query ended without having begun", "", ZET_METRIC_TYPE_FLAG, ZET_VALUE_TYPE_BOOL8,
     "report_error"},
    {"ReportLost", "Whether the query's report was lost", "", ZET_METRIC_TYPE_FLAG, ZET_VALUE_TYPE_BOOL8,
     "report_lost"},
    {"ContextId", "The hardware context (engine) that ran the end of the query", "", ZET_METRIC_TYPE_RAW,
     ZET_VALUE_TYPE_UINT32, "context_id"},
};

const zf_metric_info_def *zf_metric_info_defs(zf_metric_format format, zet_metric_group_sampling_type_flags_t sampling,
                                              size_t *count) {
    *count = 0;
    if (format != ZF_METRIC_FORMAT_OA)
        return NULL;
    if (sampling == ZET_METRIC_GROUP_SAMPLING_TYPE_FLAG_TIME_BASED) {
        *count = ZF_COUNT(zf_info_oa_time);
        return zf_info_oa_time;
    }
    *count = ZF_COUNT(zf_info_oa_event);
    return zf_info_oa_event;
}

/* ---- Name tables ---------------------------------------------------------------------------------------------- */

static const zf_name zf_sampling_items[] = {
    {"time_based", ZET_METRIC_GROUP_SAMPLING_TYPE_FLAG_TIME_BASED},
    {"event_based", ZET_METRIC_GROUP_SAMPLING_TYPE_FLAG_EVENT_BASED},
};
static const zf_names zf_sampling_flags = ZF_NAMES(zf_sampling_items);

static const zf_name zf_format_items[] = {{"oa", ZF_METRIC_FORMAT_OA}, {"eu_stall", ZF_METRIC_FORMAT_EU_STALL}};
static const zf_names zf_formats = ZF_NAMES(zf_format_items);

static const zf_name zf_metric_type_items[] = {
    {"duration", ZET_METRIC_TYPE_DURATION},
    {"event", ZET_METRIC_TYPE_EVENT},
    {"event_with_range", ZET_METRIC_TYPE_EVENT_WITH_RANGE},
    {"throughput", ZET_METRIC_TYPE_THROUGHPUT},
    {"timestamp", ZET_METRIC_TYPE_TIMESTAMP},
    {"flag", ZET_METRIC_TYPE_FLAG},
    {"ratio", ZET_METRIC_TYPE_RATIO},
    {"raw", ZET_METRIC_TYPE_RAW},
    {"ip", ZET_METRIC_TYPE_IP_EXP},
};
static const zf_names zf_metric_types = ZF_NAMES(zf_metric_type_items);

static const zf_name zf_value_type_items[] = {
    {"uint32", ZET_VALUE_TYPE_UINT32},   {"uint64", ZET_VALUE_TYPE_UINT64}, {"float32", ZET_VALUE_TYPE_FLOAT32},
    {"float64", ZET_VALUE_TYPE_FLOAT64}, {"bool8", ZET_VALUE_TYPE_BOOL8},
};
static const zf_names zf_value_types = ZF_NAMES(zf_value_type_items);

static const zf_name zf_signal_items[] = {
#define ZF_SIGNAL_ITEM(NAME, name) {name, ZF_SIG_##NAME},
    ZF_METRIC_SIGNALS(ZF_SIGNAL_ITEM)
#undef ZF_SIGNAL_ITEM
};
static const zf_names zf_signals = ZF_NAMES(zf_signal_items);
_Static_assert(ZF_COUNT(zf_signal_items) == ZF_SIG_COUNT, "every signal has a name");

static const zf_name zf_conflict_items[] = {{"error", ZF_DOMAIN_CONFLICT_ERROR},
                                            {"later_wins", ZF_DOMAIN_CONFLICT_LATER_WINS}};
static const zf_names zf_conflicts = ZF_NAMES(zf_conflict_items);

_Static_assert(sizeof(zet_metric_type_t) == sizeof(uint32_t), "enums are stored as uint32_t");
_Static_assert(sizeof(zf_metric_format) == sizeof(uint32_t), "enums are stored as uint32_t");
_Static_assert(sizeof(zf_metric_signal) == sizeof(uint32_t), "enums are stored as uint32_t");

/* ---- metric_options ------------------------------------------------------------------------------------------- */

typedef zf_scenario_metric_options zf_mopt;
static const zf_field zf_metric_options_fields[] = {
    ZF_UINT(zf_mopt, timestamp_valid_bits, "timestamp_valid_bits", 8, 64, 0),
    ZF_ENUM(zf_mopt, domain_conflict, "domain_conflict", &zf_conflicts, 0),
};
const zf_schema zf_metric_options_schema = ZF_SCHEMA(zf_metric_options_fields, NULL);

void zf_metric_options_defaults(zf_scenario_metric_options *options) {
    options->timestamp_valid_bits = 32; /* as on Data Center GPU Max */
    options->domain_conflict = ZF_DOMAIN_CONFLICT_ERROR;
}

/* ---- Pools ---------------------------------------------------------------------------------------------------- */

static bool zf_intern(zf_walk *w, yaml_node_t *node, const char *text, uint32_t *out) {
    size_t length = strlen(text);
    if (length == 0) {
        *out = 0;
        return true;
    }
    zf_scenario *s = w->scenario;
    if (length + 1 > sizeof(s->metric_text) - s->metric_text_used)
        return zf_walk_fail(w, node, NULL,
                            "the metric definitions need more than the %zu bytes of text a scenario holds",
                            sizeof(s->metric_text));
    memcpy(&s->metric_text[s->metric_text_used], text, length + 1);
    *out = s->metric_text_used;
    s->metric_text_used += (uint32_t)(length + 1);
    return true;
}

/* ---- metrics[] ------------------------------------------------------------------------------------------------ */

typedef struct zf_metric_entry {
    char name[ZF_METRIC_TEXT_MAX];
    char description[ZF_METRIC_TEXT_MAX];
    char component[ZF_METRIC_TEXT_MAX];
    char units[ZF_METRIC_TEXT_MAX];
    char formula[ZF_FORMULA_MAX_TEXT + 1];
    zet_metric_type_t type;
    zet_value_type_t value_type;
    uint32_t tier;
} zf_metric_entry;

typedef zf_metric_entry zf_ment;
static const zf_field zf_metric_fields[] = {
    ZF_STRING(zf_ment, name, "name", ZF_OPT_REQUIRED | ZF_OPT_NONEMPTY),
    ZF_STRING(zf_ment, description, "description", 0),
    ZF_STRING(zf_ment, component, "component", 0),
    ZF_STRING(zf_ment, units, "units", 0),
    ZF_ENUM(zf_ment, type, "type", &zf_metric_types, 0),
    ZF_ENUM(zf_ment, value_type, "value", &zf_value_types, 0),
    ZF_UINT(zf_ment, tier, "tier", 0, 255, 0),
    ZF_STRING(zf_ment, formula, "formula", ZF_OPT_REQUIRED | ZF_OPT_NONEMPTY),
};
static const zf_schema zf_metric_schema = ZF_SCHEMA(zf_metric_fields, NULL);

static bool zf_store_metric(zf_walk *w, yaml_node_t *item, const zf_metric_entry *e) {
    zf_scenario *s = w->scenario;
    if (s->num_metrics == ZF_SCENARIO_MAX_METRICS)
        return zf_walk_fail(w, item, NULL, "more than %d metrics in the scenario", ZF_SCENARIO_MAX_METRICS);
    zf_scenario_metric *m = &s->metrics[s->num_metrics];
    *m = (zf_scenario_metric){.type = e->type, .value_type = e->value_type, .tier = e->tier};
    if (!zf_intern(w, item, e->name, &m->name) || !zf_intern(w, item, e->description, &m->description) ||
        !zf_intern(w, item, e->component, &m->component) || !zf_intern(w, item, e->units, &m->units) ||
        !zf_intern(w, item, e->formula, &m->formula_text))
        return false;
    s->num_metrics++;
    return true;
}

/* The entry a metrics list belongs to while it is parsed. */
typedef struct zf_group_entry {
    char name[ZF_METRIC_TEXT_MAX];
    char description[ZF_METRIC_TEXT_MAX];
    uint32_t domain;
    zet_metric_group_sampling_type_flags_t sampling;
    zf_metric_format format;
    uint32_t num_counters;
    zf_scenario_counter counters[ZF_OA_FLEX_COUNTERS];
    uint32_t first_metric;
    uint32_t num_metrics;
} zf_group_entry;

static bool zf_parse_metrics(zf_walk *w, yaml_node_t *node, void *base, const zf_field *field) {
    (void)field;
    zf_group_entry *g = base;
    if (node->type != YAML_SEQUENCE_NODE)
        return zf_walk_fail_type(w, node, "a sequence");
    size_t count = zf_node_length(node);
    if (count < 1 || count > ZF_SCENARIO_MAX_GROUP_METRICS)
        return zf_walk_fail(w, node, NULL, "has %zu entries, 1..%d are supported", count,
                            ZF_SCENARIO_MAX_GROUP_METRICS);
    g->first_metric = w->scenario->num_metrics;
    for (size_t i = 0; i < count; i++) {
        zf_metric_entry e = {.component = "GPU",
                             .units = "events",
                             .type = ZET_METRIC_TYPE_EVENT,
                             .value_type = ZET_VALUE_TYPE_UINT64,
                             .tier = 1};
        size_t previous = zf_path_push_index(w, i);
        yaml_node_t *item = zf_node_item(w, node, i);
        if (!zf_walk_mapping(w, item, &zf_metric_schema, &e) || !zf_store_metric(w, item, &e))
            return false;
        zf_path_pop(w, previous);
    }
    g->num_metrics = (uint32_t)count;
    return true;
}

/* ---- counters[] ----------------------------------------------------------------------------------------------- */

static void zf_counter_init(void *item, uint32_t index) {
    (void)index;
    zf_scenario_counter *c = item;
    c->multiply = 1;
    c->divide = 1;
}

static const zf_field zf_counter_fields[] = {
    ZF_ENUM(zf_scenario_counter, signal, "signal", &zf_signals, ZF_OPT_REQUIRED),
    ZF_UINT(zf_scenario_counter, multiply, "multiply", 0, 65535, 0),
    ZF_UINT(zf_scenario_counter, divide, "divide", 1, 65535, 0),
};
static const zf_schema zf_counter_schema = ZF_SCHEMA(zf_counter_fields, NULL);
static const zf_list_spec zf_counter_list = {.item = &zf_counter_schema,
                                             .elem_size = sizeof(zf_scenario_counter),
                                             .count_offset = offsetof(zf_group_entry, num_counters),
                                             .min_items = 0,
                                             .max_items = ZF_OA_FLEX_COUNTERS,
                                             .init = zf_counter_init};

/* ---- metric_groups[] ------------------------------------------------------------------------------------------ */

/* The node of metrics[index].<key> (or the nearest that exists), for messages about one metric. */
static yaml_node_t *zf_metric_node(zf_walk *w, yaml_node_t *group, size_t index, const char *key) {
    yaml_node_t *metrics = zf_node_lookup(w, group, "metrics");
    if (!metrics || metrics->type != YAML_SEQUENCE_NODE || index >= zf_node_length(metrics))
        return group;
    yaml_node_t *item = zf_node_item(w, metrics, index);
    yaml_node_t *value = zf_node_lookup(w, item, key);
    return value ? value : item;
}

static bool zf_compile_metric(zf_walk *w, yaml_node_t *group, const zf_group_entry *g, size_t index) {
    zf_scenario *s = w->scenario;
    zf_scenario_metric *m = &s->metrics[g->first_metric + index];
    bool floating = m->value_type == ZET_VALUE_TYPE_FLOAT32 || m->value_type == ZET_VALUE_TYPE_FLOAT64;
    const char *text = zf_scenario_text(s, m->formula_text);
    size_t room = ZF_SCENARIO_MAX_METRIC_OPS - s->num_metric_ops;
    size_t max_ops = room < ZF_FORMULA_MAX_OPS ? room : ZF_FORMULA_MAX_OPS;
    size_t num_ops = 0;
    char why[256];
    char key[48];
    snprintf(key, sizeof key, "metrics[%zu].formula", index);
    if (max_ops == 0)
        return zf_walk_fail(w, zf_metric_node(w, group, index, "formula"), key,
                            "the formulas of the scenario need more than %d operations", ZF_SCENARIO_MAX_METRIC_OPS);
    if (!zf_formula_compile(text, strlen(text), g->format, floating, &s->metric_ops[s->num_metric_ops], max_ops,
                            &num_ops, why, sizeof why))
        return zf_walk_fail(w, zf_metric_node(w, group, index, "formula"), key, "%s", why);
    m->first_op = s->num_metric_ops;
    m->num_ops = (uint32_t)num_ops;
    s->num_metric_ops += (uint32_t)num_ops;
    return true;
}

static bool zf_is_info_name(const zf_group_entry *g, const char *name) {
    for (uint32_t bit = 1; bit <= ZET_METRIC_GROUP_SAMPLING_TYPE_FLAG_TIME_BASED; bit <<= 1) {
        size_t count = 0;
        const zf_metric_info_def *defs = (g->sampling & bit) ? zf_metric_info_defs(g->format, bit, &count) : NULL;
        for (size_t i = 0; i < count; i++) {
            if (strcmp(defs[i].name, name) == 0)
                return true;
        }
    }
    return false;
}

/* Metric names are unique in a group, including the information entries the driver appends. */
static bool zf_check_metric_names(zf_walk *w, yaml_node_t *group, const zf_group_entry *g) {
    const zf_scenario *s = w->scenario;
    for (uint32_t i = 0; i < g->num_metrics; i++) {
        const char *name = zf_scenario_text(s, s->metrics[g->first_metric + i].name);
        char key[48];
        snprintf(key, sizeof key, "metrics[%u].name", i);
        if (zf_is_info_name(g, name))
            return zf_walk_fail(w, zf_metric_node(w, group, i, "name"), key,
                                "'%s' is an information entry the driver adds after the metrics", name);
        for (uint32_t j = 0; j < i; j++) {
            if (strcmp(name, zf_scenario_text(s, s->metrics[g->first_metric + j].name)) == 0)
                return zf_walk_fail(w, zf_metric_node(w, group, i, "name"), key, "'%s' is already metrics[%u]", name,
                                    j);
        }
    }
    return true;
}

static bool zf_group_finish(zf_walk *w, yaml_node_t *node, void *base, uint64_t present) {
    (void)present;
    const zf_group_entry *g = base;
    if (g->format == ZF_METRIC_FORMAT_EU_STALL && (g->sampling & ZET_METRIC_GROUP_SAMPLING_TYPE_FLAG_EVENT_BASED))
        return zf_walk_fail(w, zf_node_lookup(w, node, "sampling"), "sampling",
                            "eu_stall records are sampled over time only: time_based");
    if (g->format == ZF_METRIC_FORMAT_EU_STALL && g->num_counters > 0)
        return zf_walk_fail(w, zf_node_lookup(w, node, "counters"), "counters",
                            "only oa records have programmable counters");
    for (uint32_t i = 0; i < g->num_metrics; i++) {
        if (!zf_compile_metric(w, node, g, i))
            return false;
    }
    return zf_check_metric_names(w, node, g);
}

typedef zf_group_entry zf_gent;
static const zf_field zf_group_fields[] = {
    ZF_STRING(zf_gent, name, "name", ZF_OPT_REQUIRED | ZF_OPT_NONEMPTY),
    ZF_STRING(zf_gent, description, "description", 0),
    ZF_UINT(zf_gent, domain, "domain", 0, UINT32_MAX, ZF_OPT_REQUIRED),
    ZF_FLAGS(zf_gent, sampling, "sampling", &zf_sampling_flags, ZF_OPT_REQUIRED | ZF_OPT_NONEMPTY),
    ZF_ENUM(zf_gent, format, "format", &zf_formats, 0),
    ZF_LIST(zf_gent, counters, "counters", &zf_counter_list, 0),
    ZF_CUSTOM(zf_gent, num_metrics, "metrics", zf_parse_metrics, ZF_OPT_REQUIRED),
};
static const zf_schema zf_group_schema = ZF_SCHEMA(zf_group_fields, zf_group_finish);

/* Two entries may share a name only with different sampling types (a name then stands for one group of each). */
static bool zf_check_group_names(zf_walk *w, yaml_node_t *list, const zf_scenario_device *d, uint32_t index) {
    const zf_scenario_metric_group *g = &d->metric_groups[index];
    for (uint32_t j = 0; j < index; j++) {
        const zf_scenario_metric_group *other = &d->metric_groups[j];
        if ((g->sampling & other->sampling) == 0 ||
            strcmp(zf_scenario_text(w->scenario, g->name), zf_scenario_text(w->scenario, other->name)) != 0)
            continue;
        return zf_walk_fail(w, zf_node_lookup(w, zf_node_item(w, list, index), "name"), "name",
                            "metric_groups[%u] already has this name and sampling type", j);
    }
    return true;
}

static bool zf_store_group(zf_walk *w, yaml_node_t *item, const zf_group_entry *e, zf_scenario_metric_group *g) {
    *g = (zf_scenario_metric_group){.domain = e->domain,
                                    .sampling = e->sampling,
                                    .format = e->format,
                                    .num_counters = e->num_counters,
                                    .first_metric = e->first_metric,
                                    .num_metrics = e->num_metrics};
    memcpy(g->counters, e->counters, sizeof g->counters);
    return zf_intern(w, item, e->name, &g->name) && zf_intern(w, item, e->description, &g->description);
}

/* Copies the definitions of an earlier device whose metric_groups is the same YAML node (an alias). */
static bool zf_share_metric_groups(zf_walk *w, yaml_node_t *node, zf_scenario_device *d, size_t device_index) {
    for (size_t i = 0; i < device_index; i++) {
        if (w->metric_nodes[i] != node)
            continue;
        const zf_scenario_device *first = &w->scenario->devices[i];
        d->num_metric_groups = first->num_metric_groups;
        memcpy(d->metric_groups, first->metric_groups, sizeof d->metric_groups);
        return true;
    }
    return false;
}

bool zf_parse_metric_groups(zf_walk *w, yaml_node_t *node, void *base, const zf_field *field) {
    (void)field;
    zf_scenario_device *d = base;
    size_t device_index = (size_t)(d - w->scenario->devices);
    if (device_index < ZF_SCENARIO_MAX_DEVICES) {
        if (zf_share_metric_groups(w, node, d, device_index))
            return true;
        w->metric_nodes[device_index] = node;
    }
    if (node->type != YAML_SEQUENCE_NODE)
        return zf_walk_fail_type(w, node, "a sequence");
    size_t count = zf_node_length(node);
    if (count > ZF_SCENARIO_MAX_METRIC_GROUPS)
        return zf_walk_fail(w, node, NULL, "has %zu entries, at most %d are supported", count,
                            ZF_SCENARIO_MAX_METRIC_GROUPS);
    for (size_t i = 0; i < count; i++) {
        zf_group_entry e = {.format = ZF_METRIC_FORMAT_OA};
        size_t previous = zf_path_push_index(w, i);
        yaml_node_t *item = zf_node_item(w, node, i);
        if (!zf_walk_mapping(w, item, &zf_group_schema, &e) || !zf_store_group(w, item, &e, &d->metric_groups[i]))
            return false;
        d->num_metric_groups = (uint32_t)i + 1;
        if (!zf_check_group_names(w, node, d, (uint32_t)i))
            return false;
        zf_path_pop(w, previous);
    }
    d->num_metric_groups = (uint32_t)count;
    return true;
}
