/* ZE_experimental_fabric (docs/fabric.md): the vertices and edges of the fabric, as Intel's driver reports them in
 * each hierarchy mode, and the design bandwidth of peer-to-peer links (ze_device_p2p_bandwidth_exp_properties_t).
 *
 * zeFabricVertexGetExp lists the vertices of the devices zeDeviceGet lists: the cards in COMPOSITE mode, the tiles
 * (and cards without tiles) in FLAT and COMBINED mode. A card's tiles are its sub-vertices, except in FLAT mode where
 * no vertex has any. A vertex's type follows its device: SUBDEVICE for a tile reported as a sub-device
 * (ZE_DEVICE_PROPERTY_FLAG_SUBDEVICE), DEVICE otherwise. Every device is a vertex, with a fabric or without. */
#include "core/zf_chain.h"
#include "core/zf_core.h"
#include "driver/zf_fabric.h"

#include <string.h>

/* The 1.4 headers spell the sub-device type ZE_FABRIC_VERTEX_EXP_TYPE_SUBEVICE; 1.5 corrected it (same value). */
#if ZF_L0_AT_LEAST(5)
#define ZF_VERTEX_TYPE_SUBDEVICE ZE_FABRIC_VERTEX_EXP_TYPE_SUBDEVICE
#else
#define ZF_VERTEX_TYPE_SUBDEVICE ZE_FABRIC_VERTEX_EXP_TYPE_SUBEVICE
#endif

static zf_fabric_vertex *zf_vertex_from(ze_fabric_vertex_handle_t handle) {
    return (zf_fabric_vertex *)handle;
}

static zf_fabric_edge *zf_edge_from(ze_fabric_edge_handle_t handle) {
    return (zf_fabric_edge *)handle;
}

static zf_fabric *zf_fabric_of_vertex(const zf_fabric_vertex *v) {
    return v->device->driver->fabric;
}

ze_result_t zfi_zeFabricVertexGetExp(ze_driver_handle_t hDriver, uint32_t *pCount,
                                     ze_fabric_vertex_handle_t *phVertices) {
    zf_driver *driver = zf_driver_from(hDriver);
    uint32_t n = zf_count_query(pCount, driver->num_devices, phVertices);
    for (uint32_t i = 0; i < n; i++)
        phVertices[i] = (ze_fabric_vertex_handle_t)zf_fabric_vertex_of(driver->fabric, driver->visible[i]);
    return ZE_RESULT_SUCCESS;
}

/* As Intel's driver answers: in FLAT mode no vertex has sub-vertices, as no device has sub-devices. */
ze_result_t zfi_zeFabricVertexGetSubVerticesExp(ze_fabric_vertex_handle_t hVertex, uint32_t *pCount,
                                                ze_fabric_vertex_handle_t *phSubvertices) {
    const zf_fabric_vertex *v = zf_vertex_from(hVertex);
    zf_fabric *f = zf_fabric_of_vertex(v);
    uint32_t available = v->device->driver->hierarchy == ZF_HIERARCHY_FLAT ? 0 : v->num_sub;
    uint32_t n = zf_count_query(pCount, available, phSubvertices);
    for (uint32_t i = 0; i < n; i++)
        phSubvertices[i] = (ze_fabric_vertex_handle_t)&f->vertices[v->first_sub + i];
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zeFabricVertexGetPropertiesExp(ze_fabric_vertex_handle_t hVertex,
                                               ze_fabric_vertex_exp_properties_t *pVertexProperties) {
    const zf_device *device = zf_vertex_from(hVertex)->device;
    ze_fabric_vertex_exp_properties_t *p = pVertexProperties;
    zf_out_check(p, "pVertexProperties", ZE_STRUCTURE_TYPE_FABRIC_VERTEX_EXP_PROPERTIES);
    _Static_assert(sizeof p->uuid.id == sizeof device->uuid.id, "a vertex's UUID is its device's");
    memcpy(p->uuid.id, device->uuid.id, sizeof p->uuid.id);
    p->type = zf_device_reported_as_subdevice(device) ? ZF_VERTEX_TYPE_SUBDEVICE : ZE_FABRIC_VERTEX_EXP_TYPE_DEVICE;
    p->remote = false; /* every device is on this node */
    const zf_scenario_pci *pci = &device->desc->pci;
    p->address = (ze_fabric_vertex_pci_exp_address_t){pci->domain, pci->bus, pci->device, pci->function};
    return ZE_RESULT_SUCCESS;
}

/* Every vertex is a device or a tile of one (no switch is modelled) on this node. */
ze_result_t zfi_zeFabricVertexGetDeviceExp(ze_fabric_vertex_handle_t hVertex, ze_device_handle_t *phDevice) {
    *phDevice = (ze_device_handle_t)zf_vertex_from(hVertex)->device;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zeDeviceGetFabricVertexExp(ze_device_handle_t hDevice, ze_fabric_vertex_handle_t *phVertex) {
    zf_device *device = zf_device_from(hDevice);
    zf_fabric_vertex *v = zf_fabric_vertex_of(device->driver->fabric, device);
    if (v == NULL)
        return zf_fail(ZE_RESULT_EXP_ERROR_DEVICE_IS_NOT_VERTEX, "hDevice is not a vertex of the fabric");
    *phVertex = (ze_fabric_vertex_handle_t)v;
    return ZE_RESULT_SUCCESS;
}

/* Direct edges join their vertices both ways; a multi-hop edge leads from its first vertex to its second. */
static bool zf_edge_joins(const zf_fabric_edge *e, const zf_fabric_vertex *a, const zf_fabric_vertex *b) {
    return (e->a == a && e->b == b) || (e->direct && e->a == b && e->b == a);
}

ze_result_t zfi_zeFabricEdgeGetExp(ze_fabric_vertex_handle_t hVertexA, ze_fabric_vertex_handle_t hVertexB,
                                   uint32_t *pCount, ze_fabric_edge_handle_t *phEdges) {
    const zf_fabric_vertex *a = zf_vertex_from(hVertexA), *b = zf_vertex_from(hVertexB);
    const zf_fabric *f = zf_fabric_of_vertex(a);
    uint32_t available = 0;
    for (uint32_t i = 0; i < f->num_edges; i++)
        available += zf_edge_joins(f->edges[i], a, b);
    uint32_t n = zf_count_query(pCount, available, phEdges);
    for (uint32_t i = 0, k = 0; i < f->num_edges && k < n; i++) {
        if (zf_edge_joins(f->edges[i], a, b))
            phEdges[k++] = (ze_fabric_edge_handle_t)f->edges[i];
    }
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zeFabricEdgeGetVerticesExp(ze_fabric_edge_handle_t hEdge, ze_fabric_vertex_handle_t *phVertexA,
                                           ze_fabric_vertex_handle_t *phVertexB) {
    const zf_fabric_edge *e = zf_edge_from(hEdge);
    *phVertexA = (ze_fabric_vertex_handle_t)e->a;
    *phVertexB = (ze_fabric_vertex_handle_t)e->b;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zeFabricEdgeGetPropertiesExp(ze_fabric_edge_handle_t hEdge,
                                             ze_fabric_edge_exp_properties_t *pEdgeProperties) {
    const zf_fabric_edge *e = zf_edge_from(hEdge);
    ze_fabric_edge_exp_properties_t *p = pEdgeProperties;
    zf_out_check(p, "pEdgeProperties", ZE_STRUCTURE_TYPE_FABRIC_EDGE_EXP_PROPERTIES);
    /* Everything after the caller's stype and pNext. */
    const size_t head = offsetof(ze_fabric_edge_exp_properties_t, uuid);
    memcpy((char *)p + head, (const char *)&e->properties + head, sizeof *p - head);
    return ZE_RESULT_SUCCESS;
}

/* The design route between the two devices' memories, as the cost model charges copies before any port is
 * reconfigured; a route without MDFI or Xe Link (one tile, a card and its tiles, PCIe) reports no link, as Intel's
 * driver does. */
static void zf_fill_p2p_bandwidth(const zf_device *device, const zf_device *peer,
                                  ze_device_p2p_bandwidth_exp_properties_t *p) {
    zf_route r;
    zf_fabric_design_route(device->driver, device, peer, &r);
    bool linked = r.kind == ZF_ROUTE_MDFI || r.kind == ZF_ROUTE_XE_LINK;
    uint32_t bandwidth = linked ? r.bandwidth : 0;
    uint32_t latency = linked && r.latency_known ? r.latency_ns : 0;
    p->logicalBandwidth = p->physicalBandwidth = bandwidth;
    p->bandwidthUnit = bandwidth > 0 ? ZE_BANDWIDTH_UNIT_BYTES_PER_NANOSEC : ZE_BANDWIDTH_UNIT_UNKNOWN;
    p->logicalLatency = p->physicalLatency = latency;
    p->latencyUnit = linked && r.latency_known ? ZE_LATENCY_UNIT_NANOSEC : ZE_LATENCY_UNIT_UNKNOWN;
}

void zf_fabric_p2p_chain(const zf_device *device, const zf_device *peer, void *chain) {
    zf_chain_foreach_out(ext, chain) {
        if (ext->stype == ZE_STRUCTURE_TYPE_DEVICE_P2P_BANDWIDTH_EXP_PROPERTIES)
            zf_fill_p2p_bandwidth(device, peer, (ze_device_p2p_bandwidth_exp_properties_t *)ext);
    }
}
