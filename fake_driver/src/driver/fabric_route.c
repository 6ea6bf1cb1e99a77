/* Hops, paths and routes over the fabric (docs/fabric.md, "Routes"), the bytes copies put on the Xe Link ports, and
 * the ports' health and configuration.
 *
 * A hop joins two vertices directly: MDFI between two tiles of a card (the scenario's mdfi values), Xe Link between
 * vertices of two cards when links join their tiles (the links' bandwidths summed, the slowest latency). A route is
 * the direct hop when there is one, else the shortest path of hops breadth first, MDFI hops before Xe Link ones at
 * each depth, as Intel's driver searches its multi-hop edges. The design topology takes the links up at
 * initialisation; copies take the links up when they run (both ports enabled). */
#include "core/zf_core.h"
#include "driver/zf_fabric.h"

#include <stdio.h>
#include <string.h>

#define ZF_FABRIC_MAX_VERTICES (ZF_SCENARIO_MAX_DEVICES * (1 + ZF_SCENARIO_MAX_SUBDEVICES))

static bool zf_port_enabled(const zf_fabric_port *p) {
    return atomic_load_explicit(&p->enabled, memory_order_relaxed);
}

static bool zf_link_usable(const zf_fabric_port *p, bool design) {
    if (design)
        return p->designed;
    return p->peer != NULL && zf_port_enabled(p) && zf_port_enabled(p->peer);
}

static bool zf_vertex_has_port(const zf_fabric *f, const zf_fabric_vertex *v, const zf_fabric_port *p) {
    size_t i = (size_t)(p - f->ports);
    return i >= v->first_port && i < (size_t)v->first_port + v->num_ports;
}

/* The Xe Link port at `i` of x's range when its link joins y and is usable, else NULL. */
static zf_fabric_port *zf_link_to(const zf_fabric *f, const zf_fabric_vertex *x, uint32_t i, const zf_fabric_vertex *y,
                                  bool design) {
    zf_fabric_port *p = &f->ports[x->first_port + i];
    if (p->peer == NULL || !zf_vertex_has_port(f, y, p->peer) || !zf_link_usable(p, design))
        return NULL;
    return p;
}

static void zf_mdfi_hop(const zf_device *tile, zf_hop *hop) {
    const zf_scenario_mdfi *m = &tile->desc->fabric.mdfi;
    hop->kind = ZF_ROUTE_MDFI;
    hop->bandwidth = m->bandwidth_gbps;
    hop->latency_ns = m->latency_ns;
    hop->latency_known = m->bandwidth_gbps > 0; /* an mdfi section gives both */
}

void zf_fabric_hop(const zf_fabric *fabric, const zf_fabric_vertex *x, const zf_fabric_vertex *y, bool design,
                   zf_hop *hop) {
    *hop = (zf_hop){.kind = ZF_ROUTE_LOCAL};
    const zf_device *dx = x->device, *dy = y->device;
    if (x == y)
        return;
    if (dx->root == dy->root) {
        if (dx->is_subdevice && dy->is_subdevice)
            zf_mdfi_hop(dx, hop);
        return;
    }
    for (uint32_t i = 0; i < x->num_ports; i++) {
        const zf_fabric_port *p = zf_link_to(fabric, x, i, y, design);
        if (p == NULL)
            continue;
        uint32_t bandwidth = p->bandwidth < p->peer->bandwidth ? p->bandwidth : p->peer->bandwidth;
        uint32_t latency = p->latency_ns > p->peer->latency_ns ? p->latency_ns : p->peer->latency_ns;
        hop->kind = ZF_ROUTE_XE_LINK;
        hop->bandwidth += bandwidth;
        hop->latency_ns = latency > hop->latency_ns ? latency : hop->latency_ns;
    }
    hop->latency_known = hop->kind == ZF_ROUTE_XE_LINK && hop->latency_ns > 0;
}

static zf_route_kind zf_hop_kind(const zf_fabric *f, uint32_t u, uint32_t v, bool design) {
    if (design)
        return (zf_route_kind)f->design_hops[u * f->num_vertices + v];
    zf_hop hop;
    zf_fabric_hop(f, &f->vertices[u], &f->vertices[v], false, &hop);
    return hop.kind;
}

/* One depth of the search: the vertices first reached from `current`, MDFI hops first; returns their number. */
static uint32_t zf_path_step(const zf_fabric *f, const uint32_t *current, uint32_t count, bool design, uint32_t *parent,
                             uint32_t *next) {
    uint32_t mdfi[ZF_FABRIC_MAX_VERTICES], xe[ZF_FABRIC_MAX_VERTICES];
    uint32_t nm = 0, nx = 0;
    for (uint32_t i = 0; i < count; i++) {
        for (uint32_t v = 0; v < f->num_vertices; v++) {
            if (parent[v] != UINT32_MAX)
                continue;
            zf_route_kind kind = zf_hop_kind(f, current[i], v, design);
            if (kind == ZF_ROUTE_LOCAL)
                continue;
            parent[v] = current[i];
            if (kind == ZF_ROUTE_MDFI)
                mdfi[nm++] = v;
            else
                xe[nx++] = v;
        }
    }
    memcpy(next, mdfi, nm * sizeof *next);
    memcpy(next + nm, xe, nx * sizeof *next);
    return nm + nx;
}

uint32_t zf_fabric_path(const zf_fabric *fabric, const zf_fabric_vertex *from, const zf_fabric_vertex *to, bool design,
                        uint32_t *path) {
    uint32_t n = fabric->num_vertices;
    if (n > ZF_FABRIC_MAX_VERTICES)
        return 0;
    uint32_t parent[ZF_FABRIC_MAX_VERTICES], current[ZF_FABRIC_MAX_VERTICES], next[ZF_FABRIC_MAX_VERTICES];
    for (uint32_t i = 0; i < n; i++)
        parent[i] = UINT32_MAX;
    parent[from->index] = from->index;
    current[0] = from->index;
    uint32_t count = 1;
    while (count > 0 && parent[to->index] == UINT32_MAX) {
        count = zf_path_step(fabric, current, count, design, parent, next);
        memcpy(current, next, count * sizeof *current);
    }
    if (parent[to->index] == UINT32_MAX)
        return 0;
    uint32_t length = 0;
    for (uint32_t v = to->index; length < n; v = parent[v]) {
        current[length++] = v;
        if (v == from->index)
            break;
    }
    for (uint32_t i = 0; i < length; i++)
        path[i] = current[length - 1 - i];
    return length;
}

static void zf_route_add_hop(zf_route *route, const zf_hop *hop, size_t *used) {
    if (hop->kind == ZF_ROUTE_XE_LINK)
        route->kind = ZF_ROUTE_XE_LINK;
    else if (route->kind == ZF_ROUTE_LOCAL)
        route->kind = ZF_ROUTE_MDFI;
    if (hop->bandwidth > 0 && (route->bandwidth == 0 || hop->bandwidth < route->bandwidth))
        route->bandwidth = hop->bandwidth;
    route->latency_ns += hop->latency_ns;
    route->latency_known = route->latency_known && hop->latency_known;
    const char *name = hop->kind == ZF_ROUTE_XE_LINK ? "XeLink" : "MDFI";
    size_t room = sizeof route->model - *used;
    int n = snprintf(route->model + *used, room, "%s%s", *used > 0 ? "-" : "", name);
    *used += n > 0 && (size_t)n < room ? (size_t)n : 0;
}

void zf_fabric_path_route(const zf_fabric *fabric, const uint32_t *path, uint32_t length, bool design,
                          zf_route *route) {
    *route = (zf_route){.kind = ZF_ROUTE_LOCAL, .latency_known = length >= 2};
    size_t used = 0;
    for (uint32_t i = 1; i < length; i++) {
        zf_hop hop;
        zf_fabric_hop(fabric, &fabric->vertices[path[i - 1]], &fabric->vertices[path[i]], design, &hop);
        zf_route_add_hop(route, &hop, &used);
    }
    if (!route->latency_known)
        route->latency_ns = 0;
}

/* A card and its own tiles: the memory is the card's own, no link is crossed. */
static bool zf_fabric_same_memory(const zf_fabric_vertex *a, const zf_fabric_vertex *b) {
    return a == b || (b->index >= a->first_sub && b->index < a->first_sub + a->num_sub) ||
           (a->index >= b->first_sub && a->index < b->first_sub + b->num_sub);
}

/* The route between two vertices and its path (0 vertices for a route without a hop). */
static uint32_t zf_route_path(const zf_fabric *f, const zf_fabric_vertex *src, const zf_fabric_vertex *dst, bool design,
                              uint32_t *path, zf_route *route) {
    *route = (zf_route){.kind = ZF_ROUTE_LOCAL};
    if (src == NULL || dst == NULL || zf_fabric_same_memory(src, dst))
        return 0;
    zf_hop hop;
    zf_fabric_hop(f, src, dst, design, &hop);
    uint32_t length = 0;
    if (hop.kind != ZF_ROUTE_LOCAL) {
        path[0] = src->index;
        path[1] = dst->index;
        length = 2;
    } else {
        length = zf_fabric_path(f, src, dst, design, path);
    }
    if (length >= 2) {
        zf_fabric_path_route(f, path, length, design, route);
        return length;
    }
    route->kind = src->device->root != dst->device->root ? ZF_ROUTE_PCIE : ZF_ROUTE_LOCAL;
    return 0;
}

/* The bytes of one Xe Link hop, split evenly over its links up now (the first ones carry the remainder). */
static void zf_count_hop(const zf_fabric *f, const zf_fabric_vertex *x, const zf_fabric_vertex *y, uint64_t bytes) {
    uint32_t links = 0;
    for (uint32_t i = 0; i < x->num_ports; i++)
        links += zf_link_to(f, x, i, y, false) != NULL;
    uint64_t share = links > 0 ? bytes / links : 0, extra = links > 0 ? bytes % links : 0;
    for (uint32_t i = 0, k = 0; i < x->num_ports; i++) {
        zf_fabric_port *p = zf_link_to(f, x, i, y, false);
        if (p == NULL)
            continue;
        uint64_t part = share + (k++ < extra ? 1u : 0u);
        atomic_fetch_add_explicit(&p->tx_bytes, part, memory_order_relaxed);
        atomic_fetch_add_explicit(&p->peer->rx_bytes, part, memory_order_relaxed);
    }
}

void zf_fabric_transfer(zf_driver *driver, const zf_device *src, const zf_device *dst, uint64_t bytes,
                        zf_route *route) {
    const zf_fabric *f = driver->fabric;
    uint32_t path[ZF_FABRIC_MAX_VERTICES];
    uint32_t length = zf_route_path(f, zf_fabric_vertex_of(f, src), zf_fabric_vertex_of(f, dst), false, path, route);
    for (uint32_t i = 1; i < length; i++)
        zf_count_hop(f, &f->vertices[path[i - 1]], &f->vertices[path[i]], bytes);
}

void zf_fabric_design_route(zf_driver *driver, const zf_device *src, const zf_device *dst, zf_route *route) {
    const zf_fabric *f = driver->fabric;
    uint32_t path[ZF_FABRIC_MAX_VERTICES];
    zf_route_path(f, zf_fabric_vertex_of(f, src), zf_fabric_vertex_of(f, dst), true, path, route);
}

/* ---- Ports ---------------------------------------------------------------------------------------------------- */

zf_port_health zf_fabric_port_health(const zf_fabric_port *port) {
    if (!zf_port_enabled(port))
        return ZF_PORT_DISABLED;
    if (port->peer != NULL && zf_port_enabled(port->peer))
        return ZF_PORT_HEALTHY;
    return atomic_load(&port->trained) ? ZF_PORT_LINK_DOWN : ZF_PORT_UNTRAINED;
}

static bool zf_health_failed(zf_port_health health) {
    return health == ZF_PORT_UNTRAINED || health == ZF_PORT_LINK_DOWN;
}

/* As the IAF driver counts them: a port that becomes FAILED counts a link failure and a degradation. */
static void zf_port_count(zf_fabric_port *port, zf_port_health before) {
    if (zf_health_failed(zf_fabric_port_health(port)) && !zf_health_failed(before)) {
        atomic_fetch_add(&port->link_failures, 1);
        atomic_fetch_add(&port->link_degrades, 1);
    }
}

void zf_fabric_port_configure(zf_fabric_port *port, bool enabled, bool beaconing, bool *changed) {
    zf_fabric *f = port->tile->driver->fabric;
    zf_fabric_port *peer = port->peer;
    pthread_mutex_lock(&f->lock);
    zf_port_health before = zf_fabric_port_health(port);
    zf_port_health peer_before = peer != NULL ? zf_fabric_port_health(peer) : ZF_PORT_DISABLED;
    atomic_store(&port->enabled, enabled);
    atomic_store(&port->beaconing, beaconing);
    if (enabled && peer != NULL && zf_port_enabled(peer)) {
        atomic_store(&port->trained, true);
        atomic_store(&peer->trained, true);
    }
    zf_port_count(port, before);
    if (peer != NULL)
        zf_port_count(peer, peer_before);
    bool moved = zf_fabric_port_health(port) != before || (peer != NULL && zf_fabric_port_health(peer) != peer_before);
    pthread_mutex_unlock(&f->lock);
    if (changed != NULL)
        *changed = moved;
}
