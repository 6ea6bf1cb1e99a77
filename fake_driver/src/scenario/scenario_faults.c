/* The scenario's `faults` list (docs/scenarios.md, "faults"): rules that fail API calls or lose a device.
 *
 * Function and result names are checked against the API registry the driver hands in (zf_scenario_use_api_names: the
 * table generated from the installed headers, the same the entry points are generated from), so a rule can name
 * exactly the functions and results the driver knows, and a misspelt name is an error at zeInit rather than a rule
 * that never fires. */
#include "scenario/scenario_internal.h"

#include <stdio.h>
#include <string.h>

/* Longer than every API function and result name. */
#define ZF_FAULT_NAME_MAX 96

/* The key indices of zf_fault_fields, for the `present` bits of the finish check. */
enum { ZF_FAULT_KEY_CALL, ZF_FAULT_KEY_RESULT, ZF_FAULT_KEY_AFTER, ZF_FAULT_KEY_COUNT, ZF_FAULT_KEY_DEVICE_LOST };

static const zf_scenario_api_names *zf_api_names;

void zf_scenario_use_api_names(const zf_scenario_api_names *names) {
    zf_api_names = names;
}

/* A plain or quoted string scalar copied into `out`; false (with the error) when it is not one or is too long to be a
 * name, which is then reported as an unknown name by the caller's `what`. */
static bool zf_fault_name(zf_walk *w, yaml_node_t *node, const char *what, char out[ZF_FAULT_NAME_MAX]) {
    if (node->type != YAML_SCALAR_NODE || zf_node_is_null(node))
        return zf_walk_fail_type(w, node, what);
    size_t length = node->data.scalar.length;
    if (length >= ZF_FAULT_NAME_MAX || memchr(node->data.scalar.value, '\0', length) != NULL)
        length = 0; /* no name matches the empty string */
    memcpy(out, node->data.scalar.value, length);
    out[length] = '\0';
    return true;
}

static bool zf_parse_fault_call(zf_walk *w, yaml_node_t *node, void *base, const zf_field *field) {
    char name[ZF_FAULT_NAME_MAX];
    if (!zf_fault_name(w, node, "an API function name", name))
        return false;
    if (zf_api_names == NULL)
        return zf_walk_fail(w, node, NULL, "fault rules need the driver's API registry, which was not given");
    uint32_t api = 0;
    if (!zf_api_names->function(name, &api)) {
        char shown[64];
        zf_describe_text(shown, sizeof shown, (const char *)node->data.scalar.value, node->data.scalar.length);
        return zf_walk_fail(w, node, NULL, "'%s' is not an API function of the driver's headers", shown);
    }
    memcpy((char *)base + field->offset, &api, sizeof api);
    return true;
}

static bool zf_parse_fault_result(zf_walk *w, yaml_node_t *node, void *base, const zf_field *field) {
    char name[ZF_FAULT_NAME_MAX];
    if (!zf_fault_name(w, node, "a ze_result_t name", name))
        return false;
    ze_result_t result = ZE_RESULT_SUCCESS;
    char shown[64];
    zf_describe_text(shown, sizeof shown, (const char *)node->data.scalar.value, node->data.scalar.length);
    if (zf_api_names == NULL)
        return zf_walk_fail(w, node, NULL, "fault rules need the driver's API registry, which was not given");
    if (!zf_api_names->result(name, &result))
        return zf_walk_fail(w, node, NULL, "'%s' is not a ze_result_t of the installed headers", shown);
    if (result == ZE_RESULT_SUCCESS)
        return zf_walk_fail(w, node, NULL, "ZE_RESULT_SUCCESS is no fault: name the result the call must answer");
    memcpy((char *)base + field->offset, &result, sizeof result);
    return true;
}

/* `count`: how many calls fail once `after` have run, or `all` for every later one. */
static bool zf_parse_fault_count(zf_walk *w, yaml_node_t *node, void *base, const zf_field *field) {
    uint64_t count = UINT64_MAX;
    bool plain = node->type == YAML_SCALAR_NODE && node->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
    bool all = plain && node->data.scalar.length == 3 && memcmp(node->data.scalar.value, "all", 3) == 0;
    uint64_t ignored = 0;
    if (!all && (!plain || zf_number_parse((const char *)node->data.scalar.value, node->data.scalar.length, false,
                                           &ignored) == ZF_NUMBER_SYNTAX))
        return zf_walk_fail_type(w, node, "an integer 1..4294967295 or 'all'");
    if (!all && !zf_scalar_uint(w, node, false, 1, UINT32_MAX, &count))
        return false;
    memcpy((char *)base + field->offset, &count, sizeof count);
    return true;
}

typedef struct zf_scenario_device_lost zf_lost;
static const zf_field zf_device_lost_fields[] = {
    ZF_UINT(zf_lost, device, "device", 0, ZF_SCENARIO_MAX_DEVICES - 1, ZF_OPT_REQUIRED),
    ZF_UINT(zf_lost, after_commands, "after", 0, UINT32_MAX, 0),
};
static const zf_schema zf_device_lost_schema = ZF_SCHEMA(zf_device_lost_fields, NULL);

/* A rule is a call rule (call and result, after and count optional) or a device_lost rule, never both. */
static bool zf_fault_finish(zf_walk *w, yaml_node_t *node, void *base, uint64_t present) {
    zf_scenario_fault *fault = base;
    fault->line = (uint32_t)zf_node_line(node);
    const uint64_t call_keys = (1u << ZF_FAULT_KEY_CALL) | (1u << ZF_FAULT_KEY_RESULT) | (1u << ZF_FAULT_KEY_AFTER) |
                               (1u << ZF_FAULT_KEY_COUNT);
    fault->device_lost = (present & (1u << ZF_FAULT_KEY_DEVICE_LOST)) != 0;
    if (fault->device_lost && (present & call_keys))
        return zf_walk_fail(w, node, NULL,
                            "a rule is either a call rule (call, result, after, count) or a device_lost rule, "
                            "not both");
    if (!fault->device_lost && !(present & (1u << ZF_FAULT_KEY_CALL)))
        return zf_walk_fail(w, node, NULL, "missing required key 'call' (or 'device_lost')");
    if (!fault->device_lost && !(present & (1u << ZF_FAULT_KEY_RESULT)))
        return zf_walk_fail(w, node, NULL, "missing required key 'result'");
    return true;
}

static void zf_fault_init(void *item, uint32_t index) {
    (void)index;
    zf_scenario_fault *fault = item;
    fault->count = 1;
}

typedef zf_scenario_fault zf_flt;
static const zf_field zf_fault_fields[] = {
    [ZF_FAULT_KEY_CALL] = ZF_CUSTOM(zf_flt, api, "call", zf_parse_fault_call, 0),
    [ZF_FAULT_KEY_RESULT] = ZF_CUSTOM(zf_flt, result, "result", zf_parse_fault_result, 0),
    [ZF_FAULT_KEY_AFTER] = ZF_UINT(zf_flt, after, "after", 0, UINT32_MAX, 0),
    [ZF_FAULT_KEY_COUNT] = ZF_CUSTOM(zf_flt, count, "count", zf_parse_fault_count, 0),
    [ZF_FAULT_KEY_DEVICE_LOST] = ZF_MAP(zf_flt, lost, "device_lost", &zf_device_lost_schema),
};
static const zf_schema zf_fault_schema = ZF_SCHEMA(zf_fault_fields, zf_fault_finish);
const zf_list_spec zf_fault_list = {.item = &zf_fault_schema,
                                    .elem_size = sizeof(zf_scenario_fault),
                                    .count_offset = offsetof(zf_scenario, num_faults),
                                    .min_items = 0,
                                    .max_items = ZF_SCENARIO_MAX_FAULTS,
                                    .init = zf_fault_init};

/* Device indices are known once the whole file is read (the keys of the top level come in any order). */
bool zf_faults_check_devices(zf_walk *w, yaml_node_t *root, const zf_scenario *s) {
    yaml_node_t *list = zf_node_lookup(w, root, "faults");
    for (uint32_t i = 0; i < s->num_faults; i++) {
        const zf_scenario_fault *fault = &s->faults[i];
        if (!fault->device_lost || fault->lost.device < s->num_devices)
            continue;
        yaml_node_t *lost = zf_node_lookup(w, zf_node_item(w, list, i), "device_lost");
        yaml_node_t *device = zf_node_lookup(w, lost, "device");
        char key[48];
        snprintf(key, sizeof key, "faults[%u].device_lost.device", i);
        return zf_walk_fail(w, device != NULL ? device : lost, key, "%u is not a device of the scenario (it has %u)",
                            fault->lost.device, s->num_devices);
    }
    return true;
}
