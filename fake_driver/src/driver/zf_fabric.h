/* The fabric of the driver's devices (docs/fabric.md): the topology of ZE_experimental_fabric (a vertex per card and
 * per tile, edges between them), the Xe Link ports sysman reports, and the routes copies between the tiles' memories
 * take, whose bytes the ports count.
 *
 * Everything follows from the scenario: MDFI joins the tiles of a card, Xe Link cables (the top-level xe_links list)
 * join ports of tiles of different cards. A link is up while both of its ports are enabled (zesFabricPortSetConfig);
 * the topology's edges are the links up at initialisation, with their design bandwidth and latency, and do not change
 * after, as Intel's driver discovers them once. Copies route over the links up when they run. */
#ifndef ZF_FABRIC_H
#define ZF_FABRIC_H

#include "driver/zf_driver.h"

#include <pthread.h>
#include <stdatomic.h>

/* The health of a port (sysman's zes_fabric_port_status_t and failure reasons follow from it). */
typedef enum zf_port_health {
    ZF_PORT_DISABLED,  /* configured down */
    ZF_PORT_HEALTHY,   /* its link is up */
    ZF_PORT_UNTRAINED, /* enabled, but no link ever came up: no cable, or its peer was never enabled with it */
    ZF_PORT_LINK_DOWN, /* enabled, and its link went down since it was up (its peer was disabled) */
} zf_port_health;

/* One Xe Link port of a tile. */
typedef struct zf_fabric_port {
    zf_device *tile;                /* the device it is on: a sub-device, or a root device of one tile */
    uint32_t fabric_id;             /* its card: the card's position in the scenario's devices list */
    uint32_t attach_id;             /* its physical tile */
    uint8_t number;                 /* 1..ports_per_tile */
    int64_t lane_bit_rate;          /* bits per second of one lane */
    int32_t lanes;                  /* each way */
    uint32_t bandwidth;             /* bytes per ns each way: lanes x rate */
    uint32_t latency_ns;            /* the scenario's latency of its links, 0: not described */
    struct zf_fabric_port *peer;    /* the other end of its cable; NULL: no cable, or its device is not selected */
    bool designed;                  /* its link was up at initialisation: it is part of the topology's edges */
    atomic_bool enabled;            /* zesFabricPortSetConfig */
    atomic_bool beaconing;          /* zesFabricPortSetConfig: no effect on traffic */
    atomic_bool trained;            /* its link has been up */
    _Atomic uint64_t rx_bytes;      /* bytes received over its link */
    _Atomic uint64_t tx_bytes;      /* bytes sent */
    _Atomic uint64_t link_failures; /* times it became FAILED */
    _Atomic uint64_t link_degrades; /* times it left HEALTHY (or DISABLED) for FAILED */
} zf_fabric_port;

/* A vertex: a card or a tile (ze_fabric_vertex_handle_t). */
typedef struct zf_fabric_vertex {
    zf_object header;
    zf_device *device;
    uint32_t index;     /* in zf_fabric.vertices: every card, each followed by its tiles */
    uint32_t first_sub; /* its tiles' vertices (a card with sub-devices), num_sub of them */
    uint32_t num_sub;
    uint32_t first_port; /* the ports of a tile, num_ports of them, in zf_fabric.ports */
    uint32_t num_ports;
} zf_fabric_vertex;

/* An edge (ze_fabric_edge_handle_t): a direct one (MDFI or Xe Link) or a logical multi-hop one. */
typedef struct zf_fabric_edge {
    zf_object header;
    zf_fabric_vertex *a;
    zf_fabric_vertex *b;
    bool direct;                                /* direct edges are found from either end; multi-hop from a to b */
    ze_fabric_edge_exp_properties_t properties; /* stype and pNext cleared */
} zf_fabric_edge;

typedef struct zf_fabric {
    uint32_t num_vertices;
    zf_fabric_vertex *vertices;
    uint32_t num_ports;
    zf_fabric_port *ports;
    uint32_t num_edges;
    zf_fabric_edge **edges;
    uint8_t *design_hops; /* num_vertices x num_vertices: the zf_route_kind of each direct hop at initialisation */
    pthread_mutex_t lock; /* port configuration changes */
} zf_fabric;

/* Builds the fabric of the driver's devices (after zf_devices_create); false (logged) when out of host memory. */
bool zf_fabric_create(zf_driver *driver);

/* The vertex of a device (every device has one). */
zf_fabric_vertex *zf_fabric_vertex_of(const zf_fabric *fabric, const zf_device *device);

/* What carries a copy between the memories of two devices. */
typedef enum zf_route_kind {
    ZF_ROUTE_LOCAL,   /* one tile, or a card and its own tiles: no link */
    ZF_ROUTE_MDFI,    /* between two tiles of one card */
    ZF_ROUTE_XE_LINK, /* between cards, over Xe Link (and MDFI hops) */
    ZF_ROUTE_PCIE,    /* between cards no Xe Link path joins: through the host's PCIe */
} zf_route_kind;

typedef struct zf_route {
    zf_route_kind kind;
    uint32_t bandwidth;  /* bytes per ns of the slowest hop; 0: no hop's bandwidth is known */
    uint32_t latency_ns; /* of the hops, summed; 0: unknown */
    bool latency_known;
    char model[ZE_MAX_FABRIC_EDGE_MODEL_EXP_SIZE]; /* "MDFI", "XeLink", "XeLink-MDFI"... */
} zf_route;

/* The route a copy from `src`'s memory to `dst`'s takes over the links up now, with its bytes added to the counters
 * of the ports it crosses (split evenly over the links of each Xe Link hop). */
void zf_fabric_transfer(zf_driver *driver, const zf_device *src, const zf_device *dst, uint64_t bytes, zf_route *route);

/* The route between two devices over the topology's links (as at initialisation), without traffic. */
void zf_fabric_design_route(zf_driver *driver, const zf_device *src, const zf_device *dst, zf_route *route);

/* ze_device_p2p_bandwidth_exp_properties_t structures in the chain of zeDeviceGetP2PProperties: the design route's
 * bandwidth and latency (device.c). */
void zf_fabric_p2p_chain(const zf_device *device, const zf_device *peer, void *chain);

/* The ports of a device: a tile's own, or every port of a card's tiles; returns their number and points *ports at the
 * first (they are consecutive). */
uint32_t zf_fabric_ports_of(const zf_device *device, zf_fabric_port **ports);

/* The health of a port now. */
zf_port_health zf_fabric_port_health(const zf_fabric_port *port);

/* zesFabricPortSetConfig: configures a port up or down, and beaconing; the link comes up when both ends are enabled.
 * Counts the failures its and its peer's health changes are; `changed` (may be NULL) tells whether either's health
 * changed. */
void zf_fabric_port_configure(zf_fabric_port *port, bool enabled, bool beaconing, bool *changed);

/* ---- shared by the fabric's files (fabric.c, fabric_route.c) ---- */

/* One direct hop between two vertices over the links `design` says (up at initialisation, else up now): MDFI between
 * two tiles of a card, Xe Link between vertices of two cards with a link between their tiles. */
typedef struct zf_hop {
    zf_route_kind kind; /* LOCAL: no direct hop */
    uint32_t bandwidth; /* bytes per ns; 0 unknown */
    uint32_t latency_ns;
    bool latency_known;
} zf_hop;
void zf_fabric_hop(const zf_fabric *fabric, const zf_fabric_vertex *x, const zf_fabric_vertex *y, bool design,
                   zf_hop *hop);

/* The shortest path from `from` to `to` over direct hops, as Intel's driver finds it (breadth first, MDFI hops before
 * Xe Link ones at each depth): its vertices from `from` to `to` into path (at most num_vertices), their number
 * returned; 0 when none joins them. */
uint32_t zf_fabric_path(const zf_fabric *fabric, const zf_fabric_vertex *from, const zf_fabric_vertex *to, bool design,
                        uint32_t *path);

/* The route of a path's hops (bandwidth of the slowest, latencies summed, models joined by '-'). */
void zf_fabric_path_route(const zf_fabric *fabric, const uint32_t *path, uint32_t length, bool design, zf_route *route);

#endif
