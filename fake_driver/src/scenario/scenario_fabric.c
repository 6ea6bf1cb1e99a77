/* The fabric of the scenario (docs/scenarios.md, "fabric"; docs/fabric.md): each device's `fabric` section (MDFI
 * between its tiles, Xe Link ports on each tile) and the top-level `xe_links` list of cables between those ports.
 *
 * Cables name devices by their position in the file, so they are checked once the whole file is read, like the
 * device_lost rules of `faults`: every end must be a port the device has, no port may carry two cables, and a cable
 * joins two devices (the tiles of one card are joined by MDFI). */
#include "scenario/scenario_internal.h"

#include <stdio.h>
#include <string.h>

/* What Xe Link ports of Data Center GPU Max report when the scenario does not say: 4 lanes of 53.125 Gb/s. */
#define ZF_XE_LINK_DEFAULT_LANES     4
#define ZF_XE_LINK_DEFAULT_RATE_MBPS 53125
/* A link must carry at least one byte per ns (its bandwidth is reported in bytes per ns). */
#define ZF_XE_LINK_MIN_MBPS 8000

static const zf_field zf_mdfi_fields[] = {
    ZF_UINT(zf_scenario_mdfi, bandwidth_gbps, "bandwidth_gbps", 1, 1000000, ZF_OPT_REQUIRED),
    ZF_UINT(zf_scenario_mdfi, latency_ns, "latency_ns", 0, 1000000, ZF_OPT_REQUIRED),
};
static const zf_schema zf_mdfi_schema = ZF_SCHEMA(zf_mdfi_fields, NULL);

static const zf_uint_list_spec zf_disabled_ports_list = {0, ZF_SCENARIO_MAX_PORTS,
                                                         offsetof(zf_scenario_xe_link, num_disabled_ports), true};

/* The keys left out get Data Center GPU Max's values; disabled ports must be ports of the tile. */
static bool zf_xe_link_finish(zf_walk *w, yaml_node_t *node, void *base, uint64_t present) {
    (void)present;
    zf_scenario_xe_link *x = base;
    x->lanes = x->lanes != 0 ? x->lanes : ZF_XE_LINK_DEFAULT_LANES;
    x->lane_rate_mbps = x->lane_rate_mbps != 0 ? x->lane_rate_mbps : ZF_XE_LINK_DEFAULT_RATE_MBPS;
    if ((uint64_t)x->lanes * x->lane_rate_mbps < ZF_XE_LINK_MIN_MBPS)
        return zf_walk_fail(w, node, NULL, "lanes x lane_rate_mbps is %llu Mb/s, less than one byte per ns (%u)",
                            (unsigned long long)x->lanes * x->lane_rate_mbps, ZF_XE_LINK_MIN_MBPS);
    for (uint32_t i = 0; i < x->num_disabled_ports; i++) {
        if (x->disabled_ports[i] > x->ports_per_tile)
            return zf_walk_fail(w, zf_node_lookup(w, node, "disabled_ports"), "disabled_ports",
                                "port %u is not a port of the tile (ports_per_tile is %u)", x->disabled_ports[i],
                                x->ports_per_tile);
    }
    return true;
}

typedef zf_scenario_xe_link zf_xl;
static const zf_field zf_xe_link_fields[] = {
    ZF_UINT(zf_xl, ports_per_tile, "ports_per_tile", 1, ZF_SCENARIO_MAX_PORTS, ZF_OPT_REQUIRED),
    ZF_UINT(zf_xl, lanes, "lanes", 1, 16, 0),
    ZF_UINT(zf_xl, lane_rate_mbps, "lane_rate_mbps", 1, 1000000, 0),
    ZF_UINT(zf_xl, latency_ns, "latency_ns", 0, 1000000, 0),
    ZF_UINTS(zf_xl, disabled_ports, "disabled_ports", &zf_disabled_ports_list, 1, ZF_SCENARIO_MAX_PORTS, 0),
};
static const zf_schema zf_xe_link_schema = ZF_SCHEMA(zf_xe_link_fields, zf_xe_link_finish);

static const zf_field zf_fabric_fields[] = {
    ZF_MAP(zf_scenario_fabric, mdfi, "mdfi", &zf_mdfi_schema),
    ZF_MAP(zf_scenario_fabric, xe_link, "xe_link", &zf_xe_link_schema),
};
const zf_schema zf_fabric_schema = ZF_SCHEMA(zf_fabric_fields, NULL);

bool zf_fabric_check_device(zf_walk *w, yaml_node_t *device, const zf_scenario_device *d) {
    if (d->fabric.mdfi.bandwidth_gbps == 0 || d->num_subdevices > 0)
        return true;
    yaml_node_t *fabric = zf_node_lookup(w, device, "fabric");
    return zf_walk_fail(w, zf_node_lookup(w, fabric, "mdfi"), "fabric.mdfi",
                        "MDFI joins the tiles of a card: the device has no sub-devices");
}

/* ---- The top-level xe_links list ------------------------------------------------------------------------------ */

static const zf_field zf_port_ref_fields[] = {
    ZF_UINT(zf_scenario_port_ref, device, "device", 0, ZF_SCENARIO_MAX_DEVICES - 1, ZF_OPT_REQUIRED),
    ZF_UINT(zf_scenario_port_ref, tile, "tile", 0, ZF_SCENARIO_MAX_SUBDEVICES - 1, 0),
    ZF_UINT(zf_scenario_port_ref, port, "port", 1, ZF_SCENARIO_MAX_PORTS, ZF_OPT_REQUIRED),
};
static const zf_schema zf_port_ref_schema = ZF_SCHEMA(zf_port_ref_fields, NULL);

static const zf_field zf_cable_fields[] = {
    {.key = "from",
     .parse = zf_parse_mapping,
     ZF_MEMBER(zf_scenario_cable, from),
     .aux = &zf_port_ref_schema,
     .options = ZF_OPT_REQUIRED},
    {.key = "to",
     .parse = zf_parse_mapping,
     ZF_MEMBER(zf_scenario_cable, to),
     .aux = &zf_port_ref_schema,
     .options = ZF_OPT_REQUIRED},
};
static const zf_schema zf_cable_schema = ZF_SCHEMA(zf_cable_fields, NULL);
const zf_list_spec zf_xe_link_list = {.item = &zf_cable_schema,
                                      .elem_size = sizeof(zf_scenario_cable),
                                      .count_offset = offsetof(zf_scenario, num_xe_links),
                                      .min_items = 0,
                                      .max_items = ZF_SCENARIO_MAX_XE_LINKS,
                                      .init = NULL};

/* Why `end` names no Xe Link port of the scenario, or NULL when it does. */
static const char *zf_port_problem(const zf_scenario *s, const zf_scenario_port_ref *end, char *why, size_t size) {
    if (end->device >= s->num_devices) {
        snprintf(why, size, "device %u is not a device of the scenario (it has %u)", end->device, s->num_devices);
        return why;
    }
    const zf_scenario_device *d = &s->devices[end->device];
    uint32_t tiles = d->num_subdevices > 0 ? d->num_subdevices : 1;
    if (end->tile >= tiles)
        snprintf(why, size, "devices[%u] has %u tile(s), not tile %u", end->device, tiles, end->tile);
    else if (d->fabric.xe_link.ports_per_tile == 0)
        snprintf(why, size, "devices[%u] has no Xe Link ports (its fabric section has no xe_link)", end->device);
    else if (end->port > d->fabric.xe_link.ports_per_tile)
        snprintf(why, size, "devices[%u] has ports 1..%u on each tile, not port %u", end->device,
                 d->fabric.xe_link.ports_per_tile, end->port);
    else
        return NULL;
    return why;
}

static bool zf_same_port(const zf_scenario_port_ref *a, const zf_scenario_port_ref *b) {
    return a->device == b->device && a->tile == b->tile && a->port == b->port;
}

/* The first cable before `index` that uses port `end`, or -1. */
static int zf_cable_using(const zf_scenario *s, uint32_t index, const zf_scenario_port_ref *end) {
    for (uint32_t i = 0; i < index; i++) {
        if (zf_same_port(&s->xe_links[i].from, end) || zf_same_port(&s->xe_links[i].to, end))
            return (int)i;
    }
    return -1;
}

static bool zf_check_end(zf_walk *w, yaml_node_t *cable, uint32_t index, const char *side, const zf_scenario *s,
                         const zf_scenario_port_ref *end) {
    char key[48], why[160];
    snprintf(key, sizeof key, "xe_links[%u].%s", index, side);
    yaml_node_t *node = zf_node_lookup(w, cable, side);
    if (zf_port_problem(s, end, why, sizeof why) != NULL)
        return zf_walk_fail(w, node, key, "%s", why);
    int other = zf_cable_using(s, index, end);
    if (other >= 0)
        return zf_walk_fail(w, node, key, "port %u.%u.%u already carries xe_links[%d]", end->device, end->tile,
                            end->port, other);
    return true;
}

bool zf_xe_links_check(zf_walk *w, yaml_node_t *root, const zf_scenario *s) {
    yaml_node_t *list = zf_node_lookup(w, root, "xe_links");
    for (uint32_t i = 0; i < s->num_xe_links; i++) {
        const zf_scenario_cable *c = &s->xe_links[i];
        yaml_node_t *cable = zf_node_item(w, list, i);
        if (!zf_check_end(w, cable, i, "from", s, &c->from) || !zf_check_end(w, cable, i, "to", s, &c->to))
            return false;
        char key[32];
        snprintf(key, sizeof key, "xe_links[%u]", i);
        if (zf_same_port(&c->from, &c->to))
            return zf_walk_fail(w, cable, key, "a cable joins two ports, not port %u.%u.%u to itself", c->from.device,
                                c->from.tile, c->from.port);
        if (c->from.device == c->to.device)
            return zf_walk_fail(w, cable, key, "both ends are on devices[%u]: the tiles of a card are joined by MDFI",
                                c->from.device);
        if (!s->p2p_access)
            return zf_walk_fail(w, cable, key, "Xe Link gives devices access to each other's memory: set p2p.access");
    }
    return true;
}
