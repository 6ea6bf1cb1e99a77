/* Fabric ports (zes_api.h, "Fabric"): the Xe Link ports of a device's tiles (a tile's own, every tile's for a card),
 * over the fabric model of driver/zf_fabric.h (docs/sysman.md, "Fabric ports"; docs/fabric.md). Their state follows
 * their cables and configuration, as the IAF driver of Data Center GPU Max reports it: a port whose link is up is
 * HEALTHY with its remote port, an enabled port without a cable fails to train (FAILED, TRAINING_TIMEOUT), one whose
 * link went down is FAILED (FAILED), a port configured down is DISABLED. Their counters are the bytes copies moved
 * over them (the cost model routes copies between the tiles' memories over the links up when they run). */
#include "core/zf_chain.h"
#include "driver/zf_fabric.h"
#include "tools/sysman/zf_sysman.h"

#include <stdio.h>
#include <stdlib.h>

/* A port as one sysman device reports it: a tile's handle and its card's are distinct handles of one port. */
typedef struct zf_sm_port {
    zf_object header;
    zf_sm_device *owner;
    zf_fabric_port *port;
} zf_sm_port;

/* The port handles of one sysman device, made at its first enumeration (guarded by the sysman lock). */
typedef struct zf_sm_port_set {
    const zf_sm_device *owner;
    uint32_t count;
    zf_sm_port *ports;
} zf_sm_port_set;

#define ZF_SM_MAX_PORT_SETS (ZF_SCENARIO_MAX_DEVICES * (1 + ZF_SCENARIO_MAX_SUBDEVICES))
static zf_sm_port_set zf_sm_port_sets[ZF_SM_MAX_PORT_SETS];
static uint32_t zf_sm_num_port_sets;

static zf_sm_port *zf_sm_port_from(zes_fabric_port_handle_t handle) {
    return (zf_sm_port *)handle;
}

static bool zf_sm_make_ports(zf_sm_port_set *set, zf_sm_device *sm) {
    zf_fabric_port *first = NULL;
    uint32_t n = zf_fabric_ports_of(sm->device, &first);
    set->ports = n > 0 ? calloc(n, sizeof *set->ports) : NULL;
    if (n > 0 && set->ports == NULL)
        return false;
    bool ok = true;
    for (uint32_t i = 0; i < n; i++) {
        set->ports[i] = (zf_sm_port){.owner = sm, .port = &first[i]};
        ok &= zf_object_register(&set->ports[i].header, ZF_OBJ_ZES_FABRIC_PORT, &sm->device->header);
    }
    set->count = n;
    set->owner = sm;
    return ok;
}

/* The device's port handles (lock held); NULL when out of host memory. */
static const zf_sm_port_set *zf_sm_ports_of(zf_sm_device *sm) {
    for (uint32_t i = 0; i < zf_sm_num_port_sets; i++) {
        if (zf_sm_port_sets[i].owner == sm)
            return &zf_sm_port_sets[i];
    }
    if (zf_sm_num_port_sets == ZF_SM_MAX_PORT_SETS)
        return NULL;
    zf_sm_port_set *set = &zf_sm_port_sets[zf_sm_num_port_sets];
    if (!zf_sm_make_ports(set, sm))
        return NULL;
    zf_sm_num_port_sets++;
    return set;
}

ze_result_t zf_sm_enum_fabric_ports(zes_device_handle_t hDevice, uint32_t *pCount, zes_fabric_port_handle_t *phPort) {
    zf_sm_device *sm;
    ze_result_t result = zf_sm_device_of(hDevice, &sm);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    zf_sm_lock();
    const zf_sm_port_set *set = zf_sm_ports_of(sm);
    zf_sm_unlock();
    if (set == NULL)
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory for the device's fabric port handles");
    zf_sm_fill_handles(pCount, set->count, (void **)phPort, set->ports, sizeof set->ports[0]);
    return ZE_RESULT_SUCCESS;
}

static zes_fabric_port_id_t zf_sm_port_id(const zf_fabric_port *port) {
    return (zes_fabric_port_id_t){port->fabric_id, port->attach_id, port->number};
}

ze_result_t zfi_zesFabricPortGetProperties(zes_fabric_port_handle_t hPort, zes_fabric_port_properties_t *pProperties) {
    const zf_sm_port *h = zf_sm_port_from(hPort);
    const zf_fabric_port *port = h->port;
    zes_fabric_port_properties_t *p = pProperties;
    zf_out_check(p, "pProperties", ZES_STRUCTURE_TYPE_FABRIC_PORT_PROPERTIES);
    snprintf(p->model, sizeof p->model, "%s", "XeLink");
    /* Through its card, a port is on the card's sub-device; through its tile, where the tile's components are. */
    bool through_card = h->owner->device != port->tile;
    p->onSubdevice = through_card || zf_sm_on_subdevice(port->tile);
    p->subdeviceId = through_card ? port->tile->subdevice_id : zf_sm_subdevice_id(port->tile);
    p->portId = zf_sm_port_id(port);
    p->maxRxSpeed = p->maxTxSpeed = (zes_fabric_port_speed_t){port->lane_bit_rate, port->lanes};
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zesFabricPortGetLinkType(zes_fabric_port_handle_t hPort, zes_fabric_link_type_t *pLinkType) {
    (void)hPort;
    snprintf(pLinkType->desc, sizeof pLinkType->desc, "%s", "XeLink");
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zesFabricPortGetConfig(zes_fabric_port_handle_t hPort, zes_fabric_port_config_t *pConfig) {
    const zf_fabric_port *port = zf_sm_port_from(hPort)->port;
    zf_out_check(pConfig, "pConfig", ZES_STRUCTURE_TYPE_FABRIC_PORT_CONFIG);
    pConfig->enabled = atomic_load(&port->enabled);
    pConfig->beaconing = atomic_load(&port->beaconing);
    return ZE_RESULT_SUCCESS;
}

/* ZES_EVENT_TYPE_FLAG_FABRIC_PORT_HEALTH on the tile a port is on and on its card (lock held). */
static void zf_sm_raise_port_health(const zf_fabric_port *port) {
    zf_device *devices[2] = {port->tile, port->tile->root};
    for (uint32_t i = 0; i < (port->tile->root != port->tile ? 2u : 1u); i++) {
        zf_sm_device *sm;
        if (zf_sm_device_of((zes_device_handle_t)devices[i], &sm) == ZE_RESULT_SUCCESS)
            zf_sm_raise(sm, ZES_EVENT_TYPE_FLAG_FABRIC_PORT_HEALTH);
    }
}

/* No permission is modelled: any process may configure a port, as the other sysman controls. */
ze_result_t zfi_zesFabricPortSetConfig(zes_fabric_port_handle_t hPort, const zes_fabric_port_config_t *pConfig) {
    if (pConfig->stype != ZES_STRUCTURE_TYPE_FABRIC_PORT_CONFIG)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                       "pConfig->stype is 0x%x, not ZES_STRUCTURE_TYPE_FABRIC_PORT_CONFIG", (unsigned)pConfig->stype);
    ze_result_t result = zf_chain_check(pConfig->pNext, "pConfig");
    if (result != ZE_RESULT_SUCCESS)
        return result;
    zf_fabric_port *port = zf_sm_port_from(hPort)->port;
    bool changed = false;
    zf_fabric_port_configure(port, pConfig->enabled != 0, pConfig->beaconing != 0, &changed);
    if (changed) {
        zf_sm_lock();
        zf_sm_raise_port_health(port);
        if (port->peer != NULL)
            zf_sm_raise_port_health(port->peer);
        zf_sm_unlock();
    }
    return ZE_RESULT_SUCCESS;
}

/* The speed of a link up is the slower end's; a port whose link is down moves nothing. */
static zes_fabric_port_speed_t zf_sm_link_speed(const zf_fabric_port *port) {
    const zf_fabric_port *peer = port->peer;
    int64_t rate = port->lane_bit_rate < peer->lane_bit_rate ? port->lane_bit_rate : peer->lane_bit_rate;
    int32_t lanes = port->lanes < peer->lanes ? port->lanes : peer->lanes;
    return (zes_fabric_port_speed_t){rate, lanes};
}

ze_result_t zfi_zesFabricPortGetState(zes_fabric_port_handle_t hPort, zes_fabric_port_state_t *pState) {
    const zf_fabric_port *port = zf_sm_port_from(hPort)->port;
    zes_fabric_port_state_t *s = pState;
    zf_out_check(s, "pState", ZES_STRUCTURE_TYPE_FABRIC_PORT_STATE);
    zf_port_health health = zf_fabric_port_health(port);
    s->qualityIssues = 0; /* links are not degraded in the model */
    s->failureReasons = 0;
    s->remotePortId = (zes_fabric_port_id_t){0, 0, 0};
    s->rxSpeed = s->txSpeed = (zes_fabric_port_speed_t){0, 0};
    switch (health) {
    case ZF_PORT_DISABLED:
        s->status = ZES_FABRIC_PORT_STATUS_DISABLED;
        return ZE_RESULT_SUCCESS;
    case ZF_PORT_HEALTHY:
        s->status = ZES_FABRIC_PORT_STATUS_HEALTHY;
        s->rxSpeed = s->txSpeed = zf_sm_link_speed(port);
        break;
    case ZF_PORT_UNTRAINED:
        s->status = ZES_FABRIC_PORT_STATUS_FAILED;
        s->failureReasons = ZES_FABRIC_PORT_FAILURE_FLAG_TRAINING_TIMEOUT;
        break;
    case ZF_PORT_LINK_DOWN:
        s->status = ZES_FABRIC_PORT_STATUS_FAILED;
        s->failureReasons = ZES_FABRIC_PORT_FAILURE_FLAG_FAILED;
        break;
    }
    if (port->peer != NULL) /* the cable's other end, known for a port that is up or failed */
        s->remotePortId = zf_sm_port_id(port->peer);
    return ZE_RESULT_SUCCESS;
}

static void zf_sm_port_throughput(const zf_fabric_port *port, zes_fabric_port_throughput_t *t) {
    t->timestamp = zf_sm_host_us();
    t->rxCounter = atomic_load_explicit(&port->rx_bytes, memory_order_relaxed);
    t->txCounter = atomic_load_explicit(&port->tx_bytes, memory_order_relaxed);
}

ze_result_t zfi_zesFabricPortGetThroughput(zes_fabric_port_handle_t hPort, zes_fabric_port_throughput_t *pThroughput) {
    zf_sm_port_throughput(zf_sm_port_from(hPort)->port, pThroughput);
    return ZE_RESULT_SUCCESS;
}

#if ZF_L0_AT_LEAST(7)
/* Link failures and degradations as the IAF driver counts them (each time the port became FAILED); the firmware is
 * not modelled and reports no error. */
ze_result_t zfi_zesFabricPortGetFabricErrorCounters(zes_fabric_port_handle_t hPort,
                                                    zes_fabric_port_error_counters_t *pErrors) {
    const zf_fabric_port *port = zf_sm_port_from(hPort)->port;
    zf_out_check(pErrors, "pErrors", ZES_STRUCTURE_TYPE_FABRIC_PORT_ERROR_COUNTERS);
    pErrors->linkFailureCount = atomic_load(&port->link_failures);
    pErrors->linkDegradeCount = atomic_load(&port->link_degrades);
    pErrors->fwCommErrorCount = 0;
    pErrors->fwErrorCount = 0;
    return ZE_RESULT_SUCCESS;
}

/* A port handle of the array must be one of hDevice's: the device's own or of its tiles. */
static ze_result_t zf_sm_check_port(const zf_sm_device *sm, zes_fabric_port_handle_t handle, uint32_t i) {
    if (handle == NULL)
        return zf_fail(ZE_RESULT_ERROR_INVALID_NULL_HANDLE, "nullptr == phPort[%u]", i);
    if (!zf_handle_is_live(handle, ZF_OBJ_ZES_FABRIC_PORT))
        return zf_fail(ZE_RESULT_ERROR_INVALID_NULL_HANDLE, "phPort[%u] (%p) is not a live fabric port handle", i,
                       (void *)handle);
    const zf_device *tile = zf_sm_port_from(handle)->port->tile;
    if (tile != sm->device && tile->root != sm->device)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "phPort[%u] is a port of another device than hDevice", i);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zesFabricPortGetMultiPortThroughput(zes_device_handle_t hDevice, uint32_t numPorts,
                                                    zes_fabric_port_handle_t *phPort,
                                                    zes_fabric_port_throughput_t **pThroughput) {
    zf_sm_device *sm;
    ze_result_t result = zf_sm_device_of(hDevice, &sm);
    for (uint32_t i = 0; i < numPorts && result == ZE_RESULT_SUCCESS; i++)
        result = zf_sm_check_port(sm, phPort[i], i);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    if (numPorts > 0 && *pThroughput == NULL)
        return zf_fail(ZE_RESULT_ERROR_INVALID_NULL_POINTER, "nullptr == *pThroughput (the array to fill)");
    for (uint32_t i = 0; i < numPorts; i++)
        zf_sm_port_throughput(zf_sm_port_from(phPort[i])->port, &(*pThroughput)[i]);
    return ZE_RESULT_SUCCESS;
}
#endif
