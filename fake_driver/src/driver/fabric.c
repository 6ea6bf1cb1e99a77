/* Building the fabric of the driver's devices (docs/fabric.md): a vertex per card and per tile, the Xe Link ports of
 * the tiles and the cables between them (the scenario's xe_links, resolved after ZE_AFFINITY_MASK), then the edges
 * as Intel's driver discovers them: a direct edge for every pair of vertices a link joins (MDFI between two tiles of
 * a card, Xe Link between vertices of two cards whose tiles a cable joins), and a logical multi-hop edge from each
 * vertex to every other one it reaches only through others, except between a card and its own tiles. */
#include "core/zf_core.h"
#include "driver/zf_fabric.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Vertices and ports --------------------------------------------------------------------------------------- */

static uint32_t zf_fabric_count_vertices(const zf_driver *driver) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < driver->scenario.num_devices; i++)
        n += 1 + driver->devices[i].num_subdevices;
    return n;
}

/* A tile vertex carries ports: a sub-device, or a root device of one tile. */
static uint32_t zf_fabric_tile_ports(const zf_device *device) {
    return device->num_subdevices == 0 ? device->desc->fabric.xe_link.ports_per_tile : 0;
}

static void zf_fabric_add_vertex(zf_fabric *f, zf_device *device) {
    zf_fabric_vertex *v = &f->vertices[f->num_vertices];
    *v = (zf_fabric_vertex){.device = device, .index = f->num_vertices};
    f->num_vertices++;
    v->first_port = f->num_ports;
    v->num_ports = zf_fabric_tile_ports(device);
    f->num_ports += v->num_ports;
}

/* Every card then its tiles; a card's port range is its tiles' (consecutive). */
static bool zf_fabric_build_vertices(zf_fabric *f, zf_driver *driver) {
    f->vertices = calloc(zf_fabric_count_vertices(driver), sizeof *f->vertices);
    if (f->vertices == NULL)
        return false;
    for (uint32_t i = 0; i < driver->scenario.num_devices; i++) {
        zf_device *card = &driver->devices[i];
        zf_fabric_vertex *cv = &f->vertices[f->num_vertices];
        zf_fabric_add_vertex(f, card);
        cv->first_sub = f->num_vertices;
        cv->num_sub = card->num_subdevices;
        for (uint32_t t = 0; t < card->num_subdevices; t++)
            zf_fabric_add_vertex(f, &card->subdevices[t]);
        cv->num_ports = f->num_ports - cv->first_port;
    }
    bool ok = true;
    for (uint32_t i = 0; i < f->num_vertices; i++)
        ok &= zf_object_register(&f->vertices[i].header, ZF_OBJ_ZE_FABRIC_VERTEX, &driver->header);
    return ok;
}

static bool zf_fabric_port_disabled(const zf_scenario_xe_link *x, uint32_t number) {
    for (uint32_t i = 0; i < x->num_disabled_ports; i++) {
        if (x->disabled_ports[i] == number)
            return true;
    }
    return false;
}

static void zf_fabric_port_init(zf_fabric_port *p, zf_device *tile, uint32_t number) {
    const zf_scenario_xe_link *x = &tile->desc->fabric.xe_link;
    p->tile = tile;
    p->fabric_id = tile->driver->origins[tile->root_index].index;
    p->attach_id = zf_device_physical_tile(tile);
    p->number = (uint8_t)number;
    p->lane_bit_rate = (int64_t)x->lane_rate_mbps * 1000000;
    p->lanes = (int32_t)x->lanes;
    p->bandwidth = (uint32_t)((uint64_t)x->lanes * x->lane_rate_mbps / 8000u); /* Mb/s to bytes per ns */
    p->latency_ns = x->latency_ns;
    atomic_init(&p->enabled, !zf_fabric_port_disabled(x, number));
}

static bool zf_fabric_build_ports(zf_fabric *f) {
    f->ports = calloc(f->num_ports > 0 ? f->num_ports : 1, sizeof *f->ports);
    if (f->ports == NULL)
        return false;
    for (uint32_t i = 0; i < f->num_vertices; i++) {
        const zf_fabric_vertex *v = &f->vertices[i];
        if (v->device->num_subdevices > 0)
            continue; /* a card's ports are its tiles' */
        for (uint32_t n = 0; n < v->num_ports; n++)
            zf_fabric_port_init(&f->ports[v->first_port + n], v->device, n + 1);
    }
    return true;
}

/* The port a cable end names, NULL when its device or tile is not selected (ZE_AFFINITY_MASK). */
static zf_fabric_port *zf_fabric_find_port(zf_fabric *f, const zf_scenario_port_ref *end) {
    for (uint32_t i = 0; i < f->num_vertices; i++) {
        const zf_fabric_vertex *v = &f->vertices[i];
        if (v->device->num_subdevices > 0 || v->num_ports < end->port)
            continue;
        zf_fabric_port *p = &f->ports[v->first_port + end->port - 1];
        if (p->fabric_id == end->device && p->attach_id == end->tile)
            return p;
    }
    return NULL;
}

/* The IAF driver brings every enabled port up: one with an enabled peer trains, one without fails to train (FAILED,
 * one link failure and degradation counted), a disabled one stays off. */
static void zf_fabric_connect(zf_fabric *f, const zf_scenario *s) {
    for (uint32_t i = 0; i < s->num_xe_links; i++) {
        zf_fabric_port *a = zf_fabric_find_port(f, &s->xe_links[i].from);
        zf_fabric_port *b = zf_fabric_find_port(f, &s->xe_links[i].to);
        if (a != NULL && b != NULL) {
            a->peer = b;
            b->peer = a;
        }
    }
    for (uint32_t i = 0; i < f->num_ports; i++) {
        zf_fabric_port *p = &f->ports[i];
        bool enabled = atomic_load(&p->enabled);
        p->designed = enabled && p->peer != NULL && atomic_load(&p->peer->enabled);
        atomic_init(&p->trained, p->designed);
        atomic_init(&p->link_failures, enabled && !p->designed ? 1u : 0u);
        atomic_init(&p->link_degrades, enabled && !p->designed ? 1u : 0u);
    }
}

/* ---- Edges ---------------------------------------------------------------------------------------------------- */

/* The card a vertex is on (its position in the scenario file) and its tile, 255 for a card of several tiles, as
 * Intel's driver marks a root device in edge UUIDs. */
static void zf_fabric_vertex_id(const zf_fabric_vertex *v, uint8_t out[5]) {
    uint32_t card = v->device->driver->origins[v->device->root_index].index;
    memcpy(out, &card, 4);
    out[4] = v->device->num_subdevices > 0 ? 255 : (uint8_t)zf_device_physical_tile(v->device);
}

static void zf_fabric_edge_fill(zf_fabric_edge *e, const zf_route *r, char tag) {
    ze_fabric_edge_exp_properties_t *p = &e->properties;
    uint8_t id[5];
    zf_fabric_vertex_id(e->a, id);
    memcpy(&p->uuid.id[0], id, 5);
    zf_fabric_vertex_id(e->b, id);
    memcpy(&p->uuid.id[8], id, 5);
    p->uuid.id[15] = (uint8_t)tag;
    snprintf(p->model, sizeof p->model, "%s", r->model);
    p->bandwidth = r->bandwidth;
    p->bandwidthUnit = r->bandwidth > 0 ? ZE_BANDWIDTH_UNIT_BYTES_PER_NANOSEC : ZE_BANDWIDTH_UNIT_UNKNOWN;
    p->latency = r->latency_known ? r->latency_ns : 0;
    p->latencyUnit = r->latency_known ? ZE_LATENCY_UNIT_NANOSEC : ZE_LATENCY_UNIT_UNKNOWN;
    p->duplexity = ZE_FABRIC_EDGE_EXP_DUPLEXITY_FULL_DUPLEX;
}

typedef struct zf_edge_list {
    zf_fabric *fabric;
    zf_driver *driver;
    uint32_t capacity;
} zf_edge_list;

static bool zf_fabric_add_edge(zf_edge_list *list, uint32_t a, uint32_t b, bool direct, const zf_route *route) {
    zf_fabric *f = list->fabric;
    if (f->num_edges == list->capacity) {
        uint32_t capacity = list->capacity > 0 ? 2 * list->capacity : 16;
        zf_fabric_edge **grown = realloc(f->edges, capacity * sizeof *grown);
        if (grown == NULL)
            return false;
        f->edges = grown;
        list->capacity = capacity;
    }
    zf_fabric_edge *e = calloc(1, sizeof *e);
    if (e == NULL)
        return false;
    *e = (zf_fabric_edge){.a = &f->vertices[a], .b = &f->vertices[b], .direct = direct};
    zf_fabric_edge_fill(e, route, direct ? route->model[0] : 'I');
    f->edges[f->num_edges++] = e;
    return zf_object_register(&e->header, ZF_OBJ_ZE_FABRIC_EDGE, &list->driver->header);
}

/* The direct hops at initialisation, recorded for the multi-hop search, and an edge for each. */
static bool zf_fabric_direct_edges(zf_edge_list *list) {
    zf_fabric *f = list->fabric;
    uint32_t n = f->num_vertices;
    f->design_hops = calloc((size_t)n * n, 1);
    if (f->design_hops == NULL)
        return false;
    for (uint32_t a = 0; a < n; a++) {
        for (uint32_t b = a + 1; b < n; b++) {
            zf_hop hop;
            zf_fabric_hop(f, &f->vertices[a], &f->vertices[b], true, &hop);
            f->design_hops[a * n + b] = f->design_hops[b * n + a] = (uint8_t)hop.kind;
            if (hop.kind == ZF_ROUTE_LOCAL)
                continue;
            uint32_t path[2] = {a, b};
            zf_route route;
            zf_fabric_path_route(f, path, 2, true, &route);
            if (!zf_fabric_add_edge(list, a, b, true, &route))
                return false;
        }
    }
    return true;
}

/* A card and its own tiles have no edge: Intel's driver does not search a path between them. */
static bool zf_fabric_own_tile(const zf_fabric_vertex *a, const zf_fabric_vertex *b) {
    return (b->index >= a->first_sub && b->index < a->first_sub + a->num_sub) ||
           (a->index >= b->first_sub && a->index < b->first_sub + b->num_sub);
}

static bool zf_fabric_multi_hop_edges(zf_edge_list *list, uint32_t *path) {
    zf_fabric *f = list->fabric;
    uint32_t n = f->num_vertices;
    for (uint32_t a = 0; a < n; a++) {
        for (uint32_t b = 0; b < n; b++) {
            if (a == b || f->design_hops[a * n + b] != ZF_ROUTE_LOCAL ||
                zf_fabric_own_tile(&f->vertices[a], &f->vertices[b]))
                continue;
            uint32_t length = zf_fabric_path(f, &f->vertices[a], &f->vertices[b], true, path);
            if (length < 2)
                continue;
            zf_route route;
            zf_fabric_path_route(f, path, length, true, &route);
            if (!zf_fabric_add_edge(list, a, b, false, &route))
                return false;
        }
    }
    return true;
}

static bool zf_fabric_build_edges(zf_fabric *f, zf_driver *driver) {
    zf_edge_list list = {.fabric = f, .driver = driver};
    uint32_t *path = calloc(f->num_vertices, sizeof *path);
    bool ok = path != NULL && zf_fabric_direct_edges(&list) && zf_fabric_multi_hop_edges(&list, path);
    free(path);
    return ok;
}

bool zf_fabric_create(zf_driver *driver) {
    zf_fabric *f = calloc(1, sizeof *f);
    if (f == NULL)
        return false;
    pthread_mutex_init(&f->lock, NULL);
    driver->fabric = f;
    if (!zf_fabric_build_vertices(f, driver) || !zf_fabric_build_ports(f))
        return false;
    zf_fabric_connect(f, &driver->scenario);
    if (!zf_fabric_build_edges(f, driver))
        return false;
    zf_log(ZF_LOG_INFO, "fabric: %u vertices, %u edges, %u Xe Link ports", f->num_vertices, f->num_edges, f->num_ports);
    return true;
}

zf_fabric_vertex *zf_fabric_vertex_of(const zf_fabric *fabric, const zf_device *device) {
    for (uint32_t i = 0; i < fabric->num_vertices; i++) {
        if (fabric->vertices[i].device == device)
            return &fabric->vertices[i];
    }
    return NULL;
}

uint32_t zf_fabric_ports_of(const zf_device *device, zf_fabric_port **ports) {
    const zf_fabric *f = device->driver->fabric;
    const zf_fabric_vertex *v = zf_fabric_vertex_of(f, device);
    *ports = v != NULL ? &f->ports[v->first_port] : f->ports;
    return v != NULL ? v->num_ports : 0;
}
