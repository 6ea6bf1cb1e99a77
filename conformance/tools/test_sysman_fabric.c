/* Conformance: sysman's fabric ports (zesDeviceEnumFabricPorts, zesFabricPort*) in the legacy model
 * (ZES_ENABLE_SYSMAN=1 before zeInit). Every port answers its properties, link type, configuration, state and
 * throughput; a healthy port's remote port is a port of the system that points back. On the fake the ports are the Xe
 * Link ports of the scenario (docs/fabric.md, docs/sysman.md "Fabric ports"): their state follows their cables, their
 * counters grow by the bytes of the copies the cost model routes over them, and a port configured down carries nothing:
 * copies take the links left, or another path. */
#include "zc_metric.h"
#include "zc_sysman.h"

#include <inttypes.h>

#define ZC_MAX_PORTS    512
#define ZC_COPY_BYTES   (1u << 20)
#define ZC_LANE_RATE    53125000000ll /* the shipped scenarios' Xe Link: 4 lanes of 53.125 Gb/s */
#define ZC_LANES        4
#define ZC_PORTS_A_TILE 8u

static zes_fabric_port_handle_t *zc_ports(ze_device_handle_t device, uint32_t *count) {
    return zc_handles((zes_device_handle_t)device, (zc_enum_fn)zesDeviceEnumFabricPorts, "zesDeviceEnumFabricPorts",
                      count);
}

static zes_fabric_port_properties_t zc_port_props(zes_fabric_port_handle_t port) {
    zes_fabric_port_properties_t p = {.stype = ZES_STRUCTURE_TYPE_FABRIC_PORT_PROPERTIES};
    zc_assert_success(zesFabricPortGetProperties(port, &p));
    return p;
}

static zes_fabric_port_state_t zc_port_state(zes_fabric_port_handle_t port) {
    zes_fabric_port_state_t s = {.stype = ZES_STRUCTURE_TYPE_FABRIC_PORT_STATE};
    zc_assert_success(zesFabricPortGetState(port, &s));
    return s;
}

static zes_fabric_port_throughput_t zc_port_throughput(zes_fabric_port_handle_t port) {
    zes_fabric_port_throughput_t t;
    zc_assert_success(zesFabricPortGetThroughput(port, &t));
    return t;
}

static void zc_port_configure(zes_fabric_port_handle_t port, bool enabled) {
    zes_fabric_port_config_t c = {.stype = ZES_STRUCTURE_TYPE_FABRIC_PORT_CONFIG, .enabled = enabled};
    zc_assert_success(zesFabricPortSetConfig(port, &c));
}

static bool zc_same_id(zes_fabric_port_id_t a, zes_fabric_port_id_t b) {
    return a.fabricId == b.fabricId && a.attachId == b.attachId && a.portNumber == b.portNumber;
}

static bool zc_scenario_is(const char *name) {
    zefake_info_t info = {.size = sizeof info};
    zc_fake_info(&info);
    return strcmp(info.scenario_name, name) == 0;
}

/* The fake's shipped scenarios with Xe Link ports: 8 on every tile. */
static uint32_t zc_fake_ports_of(ze_device_handle_t device) {
    if (!zc_scenario_is("default") && !zc_scenario_is("two-cards"))
        return 0;
    uint32_t subs = zc_subdevice_count(device);
    return ZC_PORTS_A_TILE * (subs > 0 ? subs : 1);
}

/* ---- Enumeration and properties ------------------------------------------------------------------------------- */

static ze_result_t zc_enum_ports(void *ctx, uint32_t *count, void *items) {
    return zesDeviceEnumFabricPorts(ctx, count, items);
}

static void sysman_fabric_ports_enumerate(void **state) {
    (void)state;
    const zc_system *sys = zc_sys();
    for (uint32_t d = 0; d < sys->num_all; d++) {
        zc_count_query q = {"zesDeviceEnumFabricPorts", zc_enum_ports, sys->all[d], sizeof(void *), NULL};
        uint32_t n = zc_count(&q);
        if (n > 0)
            zc_check_count_semantics(&q);
        if (zc_driver_is_fake())
            assert_int_equal(n, zc_fake_ports_of(sys->all[d]));
    }
}

/* A port of a tile reported as a sub-device is on that sub-device; a card's ports are on its sub-devices. */
static void zc_check_port_location(ze_device_handle_t device, const zes_fabric_port_properties_t *p) {
    ze_device_properties_t dp = zc_device_props(device);
    uint32_t subs = zc_subdevice_count(device);
    if (dp.flags & ZE_DEVICE_PROPERTY_FLAG_SUBDEVICE) {
        assert_true(p->onSubdevice);
        assert_int_equal(p->subdeviceId, dp.subdeviceId);
    } else if (subs > 0) {
        assert_true(p->onSubdevice);
        assert_true(p->subdeviceId < subs);
    }
}

static void sysman_fabric_port_properties(void **state) {
    (void)state;
    const zc_system *sys = zc_sys();
    for (uint32_t d = 0; d < sys->num_all; d++) {
        uint32_t n = 0;
        zes_fabric_port_handle_t *ports = zc_ports(sys->all[d], &n);
        for (uint32_t i = 0; i < n; i++) {
            zes_fabric_port_properties_t p = zc_port_props(ports[i]);
            assert_int_equal(p.stype, ZES_STRUCTURE_TYPE_FABRIC_PORT_PROPERTIES);
            assert_true(p.model[0] != '\0');
            zc_check_port_location(sys->all[d], &p);
            for (uint32_t j = 0; j < i; j++) /* unique on the device */
                assert_false(zc_same_id(zc_port_props(ports[j]).portId, p.portId));
            zes_fabric_link_type_t link;
            zc_assert_success(zesFabricPortGetLinkType(ports[i], &link));
            assert_true(link.desc[0] != '\0');
            if (!zc_driver_is_fake())
                continue;
            assert_string_equal(p.model, "XeLink");
            assert_string_equal(link.desc, "XeLink");
            assert_int_equal(p.maxRxSpeed.bitRate, ZC_LANE_RATE);
            assert_int_equal(p.maxRxSpeed.width, ZC_LANES);
            assert_int_equal(p.maxTxSpeed.bitRate, ZC_LANE_RATE);
            assert_int_equal(p.maxTxSpeed.width, ZC_LANES);
            assert_int_equal(p.portId.portNumber, i % ZC_PORTS_A_TILE + 1);
        }
        free(ports);
    }
}

/* A sub-device's ports are ports of its card too (the same ids). */
static void sysman_fabric_card_has_its_tiles_ports(void **state) {
    (void)state;
    const zc_system *sys = zc_sys();
    for (uint32_t r = 0; r < sys->num_roots; r++) {
        uint32_t n = 0;
        zes_fabric_port_handle_t *card = zc_ports(sys->roots[r], &n);
        for (uint32_t s = 0; s < sys->num_subdevices[r]; s++) {
            uint32_t m = 0;
            zes_fabric_port_handle_t *tile = zc_ports(sys->subdevices[r][s], &m);
            for (uint32_t i = 0; i < m; i++) {
                bool found = false;
                for (uint32_t k = 0; k < n && !found; k++)
                    found = zc_same_id(zc_port_props(card[k]).portId, zc_port_props(tile[i]).portId);
                if (!found)
                    zc_fail("port %u of sub-device %u is not a port of its device", i, s);
            }
            free(tile);
        }
        free(card);
    }
}

/* ---- State ---------------------------------------------------------------------------------------------------- */

/* Every port of the system (through the root devices), with its properties. */
typedef struct zc_all_ports {
    uint32_t n;
    zes_fabric_port_handle_t port[ZC_MAX_PORTS];
    zes_fabric_port_id_t id[ZC_MAX_PORTS];
} zc_all_ports;

static void zc_all_ports_read(zc_all_ports *all) {
    const zc_system *sys = zc_sys();
    all->n = 0;
    for (uint32_t r = 0; r < sys->num_roots; r++) {
        uint32_t n = 0;
        zes_fabric_port_handle_t *ports = zc_ports(sys->roots[r], &n);
        for (uint32_t i = 0; i < n && all->n < ZC_MAX_PORTS; i++) {
            all->port[all->n] = ports[i];
            all->id[all->n++] = zc_port_props(ports[i]).portId;
        }
        free(ports);
    }
}

static int zc_port_index(const zc_all_ports *all, zes_fabric_port_id_t id) {
    for (uint32_t i = 0; i < all->n; i++)
        if (zc_same_id(all->id[i], id))
            return (int)i;
    return -1;
}

/* The topology map of the header: a healthy port's remote port is a port of the system whose remote it is. */
static void sysman_fabric_states_map_the_topology(void **state) {
    (void)state;
    zc_all_ports all;
    zc_all_ports_read(&all);
    for (uint32_t i = 0; i < all.n; i++) {
        zes_fabric_port_state_t s = zc_port_state(all.port[i]);
        assert_int_equal(s.stype, ZES_STRUCTURE_TYPE_FABRIC_PORT_STATE);
        assert_true(s.status <= ZES_FABRIC_PORT_STATUS_DISABLED);
        if (s.status == ZES_FABRIC_PORT_STATUS_HEALTHY) {
            int remote = zc_port_index(&all, s.remotePortId);
            if (remote >= 0) /* a port of this node: it points back */
                assert_true(zc_same_id(zc_port_state(all.port[remote]).remotePortId, all.id[i]));
        }
        if (!zc_driver_is_fake())
            continue;
        zes_fabric_port_config_t c = {.stype = ZES_STRUCTURE_TYPE_FABRIC_PORT_CONFIG};
        zc_assert_success(zesFabricPortGetConfig(all.port[i], &c));
        assert_true(c.enabled);
        assert_false(c.beaconing);
        if (zc_scenario_is("two-cards")) { /* every port cabled to the other card */
            assert_int_equal(s.status, ZES_FABRIC_PORT_STATUS_HEALTHY);
            assert_int_not_equal(s.remotePortId.fabricId, all.id[i].fabricId);
            assert_int_equal(s.rxSpeed.bitRate, ZC_LANE_RATE);
            assert_int_equal(s.txSpeed.width, ZC_LANES);
        } else { /* one card: no cable, so the port does not train */
            assert_int_equal(s.status, ZES_FABRIC_PORT_STATUS_FAILED);
            assert_int_equal(s.failureReasons, ZES_FABRIC_PORT_FAILURE_FLAG_TRAINING_TIMEOUT);
            assert_int_equal(s.remotePortId.portNumber, 0);
            assert_int_equal(s.rxSpeed.bitRate, 0);
        }
        assert_int_equal(s.qualityIssues, 0);
    }
}

/* ---- Traffic (two-cards) -------------------------------------------------------------------------------------- */

/* The tiles of the two cards: tile 0 and 1 of card 0, tile 0 and 1 of card 1, as zeDeviceGet or zeDeviceGetSubDevices
 * give them (FLAT or COMPOSITE). */
static void zc_card_tiles(ze_device_handle_t tiles[4]) {
    const zc_system *sys = zc_sys();
    if (sys->num_roots == 4) {
        memcpy(tiles, sys->roots, 4 * sizeof *tiles);
        return;
    }
    assert_int_equal(sys->num_roots, 2);
    for (uint32_t i = 0; i < 4; i++)
        tiles[i] = sys->subdevices[i / 2][i % 2];
}

/* A tile's 8 ports by port number - 1. */
static void zc_tile_ports(ze_device_handle_t tile, zes_fabric_port_handle_t out[ZC_PORTS_A_TILE]) {
    uint32_t n = 0;
    zes_fabric_port_handle_t *ports = zc_ports(tile, &n);
    assert_int_equal(n, ZC_PORTS_A_TILE);
    for (uint32_t i = 0; i < n; i++)
        out[zc_port_props(ports[i]).portId.portNumber - 1] = ports[i];
    free(ports);
}

typedef struct zc_counts {
    uint64_t rx[4][ZC_PORTS_A_TILE], tx[4][ZC_PORTS_A_TILE];
} zc_counts;

static void zc_counts_read(zes_fabric_port_handle_t ports[4][ZC_PORTS_A_TILE], zc_counts *c) {
    for (uint32_t t = 0; t < 4; t++) {
        for (uint32_t p = 0; p < ZC_PORTS_A_TILE; p++) {
            zes_fabric_port_throughput_t tp = zc_port_throughput(ports[t][p]);
            c->rx[t][p] = tp.rxCounter;
            c->tx[t][p] = tp.txCounter;
        }
    }
}

/* The counters moved by exactly `tx` (sent by tile st's ports) and `rx` (received by tile rt's). */
static void zc_expect_moved(const zc_counts *before, const zc_counts *after, uint32_t st, const uint64_t tx[8],
                            uint32_t rt, const uint64_t rx[8]) {
    for (uint32_t t = 0; t < 4; t++) {
        for (uint32_t p = 0; p < ZC_PORTS_A_TILE; p++) {
            uint64_t sent = after->tx[t][p] - before->tx[t][p], got = after->rx[t][p] - before->rx[t][p];
            uint64_t want_sent = t == st ? tx[p] : 0, want_got = t == rt ? rx[p] : 0;
            if (sent != want_sent || got != want_got)
                zc_fail("tile %u port %u sent %" PRIu64 " and received %" PRIu64 " bytes, not %" PRIu64 " and %" PRIu64,
                        t, p + 1, sent, got, want_sent, want_got);
        }
    }
}

/* Device ns a copy of `bytes` from `src`'s memory to `dst`'s takes on a compute engine of `src`, with a tick of slack
 * (kernel timestamps). */
static double zc_copy(zc_exec *x, ze_device_handle_t src_device, ze_device_handle_t dst_device, double *tick_ns) {
    ze_device_mem_alloc_desc_t desc = {ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, NULL, 0, 0};
    void *src = NULL, *dst = NULL;
    zc_assert_success(zeMemAllocDevice(x->context, &desc, ZC_COPY_BYTES, 64, src_device, &src));
    zc_assert_success(zeMemAllocDevice(x->context, &desc, ZC_COPY_BYTES, 64, dst_device, &dst));
    ze_device_handle_t saved = x->device;
    x->device = src_device;
    ze_event_pool_handle_t pool = zc_event_pool(x, 1, ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP);
    ze_event_handle_t timed = zc_event(pool, 0);
    ze_command_list_handle_t list = zc_list(x, x->compute_ordinal);
    zc_assert_success(zeCommandListAppendMemoryCopy(list, dst, src, ZC_COPY_BYTES, timed, 0, NULL));
    ze_command_queue_handle_t queue = zc_queue(x, x->compute_ordinal, 0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    zc_run(queue, list);
    ze_kernel_timestamp_result_t ts;
    zc_assert_success(zeEventQueryKernelTimestamp(timed, &ts));
    ze_device_properties_t p = zc_device_props(src_device);
    uint64_t mask = p.kernelTimestampValidBits >= 64 ? UINT64_MAX : (UINT64_C(1) << p.kernelTimestampValidBits) - 1;
    *tick_ns = 1e9 / (double)p.timerResolution;
    double ns = (double)((ts.global.kernelEnd - ts.global.kernelStart) & mask) * *tick_ns;
    zc_assert_success(zeCommandQueueDestroy(queue));
    zc_assert_success(zeCommandListDestroy(list));
    zc_assert_success(zeEventDestroy(timed));
    zc_assert_success(zeEventPoolDestroy(pool));
    x->device = saved;
    zc_free(x, src);
    zc_free(x, dst);
    return ns;
}

/* docs/cost-model.md: the command, the route's latency, and the bytes at the slower of a compute engine (200 bytes
 * per ns) and the route. */
static void zc_expect_copy_time(double ns, double tick, double latency, double bandwidth) {
    double expected = 100.0 + latency + (double)((ZC_COPY_BYTES + (uint64_t)bandwidth - 1) / (uint64_t)bandwidth);
    if (ns < expected - tick - 1 || ns > expected + tick + 1)
        zc_fail("the copy took %.0f ns; its route gives %.0f ns", ns, expected);
}

typedef struct zc_fabric_fixture {
    zc_exec *x;
    ze_device_handle_t tiles[4];
    zes_fabric_port_handle_t ports[4][ZC_PORTS_A_TILE];
} zc_fabric_fixture;

/* Every port enabled again, whatever a failed test left. */
static void zc_enable_all(zc_fabric_fixture *f) {
    for (uint32_t t = 0; t < 4; t++)
        for (uint32_t p = 0; p < ZC_PORTS_A_TILE; p++)
            zc_port_configure(f->ports[t][p], true);
}

static int zc_setup_fabric(void **state) {
    if (!zc_driver_is_fake() || !zc_scenario_is("two-cards")) {
        *state = NULL; /* the tests skip */
        return 0;
    }
    zc_fabric_fixture *f = calloc(1, sizeof *f);
    void *exec = NULL;
    if (f == NULL || zc_setup_exec(&exec) != 0)
        return -1;
    f->x = exec;
    zc_card_tiles(f->tiles);
    for (uint32_t t = 0; t < 4; t++)
        zc_tile_ports(f->tiles[t], f->ports[t]);
    *state = f;
    return 0;
}

static int zc_teardown_fabric(void **state) {
    zc_fabric_fixture *f = *state;
    if (f == NULL)
        return 0;
    zc_enable_all(f);
    void *exec = f->x;
    free(f);
    return zc_teardown_exec(&exec);
}

static zc_fabric_fixture *zc_fabric_fixture_of(void **state) {
    if (*state == NULL)
        skip(); /* the fake's two-cards scenario: the one with cables */
    return *state;
}

/* A copy from tile 0 of card 0 to tile 0 of card 1 crosses their 4 links (ports 1-4 of both tiles), a quarter of its
 * bytes on each; nothing else moves. */
static void sysman_fabric_copy_counts_on_its_links(void **state) {
    zc_fabric_fixture *f = zc_fabric_fixture_of(state);
    zc_counts before, after;
    zc_counts_read(f->ports, &before);
    uint64_t t0 = zc_port_throughput(f->ports[0][0]).timestamp;
    double tick = 0, ns = zc_copy(f->x, f->tiles[0], f->tiles[2], &tick);
    zc_counts_read(f->ports, &after);
    const uint64_t q = ZC_COPY_BYTES / 4, quarters[8] = {q, q, q, q, 0, 0, 0, 0};
    zc_expect_moved(&before, &after, 0, quarters, 2, quarters);
    assert_true(zc_port_throughput(f->ports[0][0]).timestamp >= t0);
    zc_expect_copy_time(ns, tick, 1000.0, 4 * 26.0);
}

/* With three of the four links down, the one left carries the copy, at its bandwidth; the disabled ports are
 * DISABLED, their peers FAILED (the link went down) and a health event is raised. */
static void sysman_fabric_disabled_ports_carry_nothing(void **state) {
    zc_fabric_fixture *f = zc_fabric_fixture_of(state);
    zes_device_handle_t tile0 = (zes_device_handle_t)f->tiles[0];
    zc_assert_success(zesDeviceEventRegister(tile0, ZES_EVENT_TYPE_FLAG_FABRIC_PORT_HEALTH));
    for (uint32_t p = 1; p < 4; p++)
        zc_port_configure(f->ports[0][p], false);
    uint32_t with_events = 0;
    zes_event_type_flags_t events = 0;
    zc_assert_success(zesDriverEventListen(zc_sys()->driver, 0, 1, &tile0, &with_events, &events));
    assert_int_equal(with_events, 1);
    assert_int_equal(events, ZES_EVENT_TYPE_FLAG_FABRIC_PORT_HEALTH);
    zc_assert_success(zesDeviceEventRegister(tile0, 0));
    assert_int_equal(zc_port_state(f->ports[0][1]).status, ZES_FABRIC_PORT_STATUS_DISABLED);
    zes_fabric_port_state_t peer = zc_port_state(f->ports[2][1]);
    assert_int_equal(peer.status, ZES_FABRIC_PORT_STATUS_FAILED);
    assert_int_equal(peer.failureReasons, ZES_FABRIC_PORT_FAILURE_FLAG_FAILED);
    assert_true(zc_same_id(peer.remotePortId, zc_port_props(f->ports[0][1]).portId));
    zc_counts before, after;
    zc_counts_read(f->ports, &before);
    double tick = 0, ns = zc_copy(f->x, f->tiles[0], f->tiles[2], &tick);
    zc_counts_read(f->ports, &after);
    const uint64_t all[8] = {ZC_COPY_BYTES, 0, 0, 0, 0, 0, 0, 0};
    zc_expect_moved(&before, &after, 0, all, 2, all);
    zc_expect_copy_time(ns, tick, 1000.0, 26.0);
    zc_enable_all(f);
    assert_int_equal(zc_port_state(f->ports[2][1]).status, ZES_FABRIC_PORT_STATUS_HEALTHY);
}

/* With every link between the two tiles down, the copy goes over MDFI to tile 1 of card 0, then over its 4 links to
 * tile 0 of card 1 (ports 5-8): MDFI's latency added, the links' bandwidth. */
static void sysman_fabric_copy_reroutes_around_a_tile(void **state) {
    zc_fabric_fixture *f = zc_fabric_fixture_of(state);
    for (uint32_t p = 0; p < 4; p++)
        zc_port_configure(f->ports[0][p], false);
    zc_counts before, after;
    zc_counts_read(f->ports, &before);
    double tick = 0, ns = zc_copy(f->x, f->tiles[0], f->tiles[2], &tick);
    zc_counts_read(f->ports, &after);
    const uint64_t q = ZC_COPY_BYTES / 4, upper[8] = {0, 0, 0, 0, q, q, q, q};
    zc_expect_moved(&before, &after, 1, upper, 2, upper);
    zc_expect_copy_time(ns, tick, 150.0 + 1000.0, 4 * 26.0);
    zc_enable_all(f);
}

/* ---- Bad inputs ----------------------------------------------------------------------------------------------- */

static void sysman_fabric_bad_inputs(void **state) {
    (void)state;
    const ze_result_t null_handle = ZE_RESULT_ERROR_INVALID_NULL_HANDLE,
                      null_ptr = ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    zes_fabric_port_properties_t p = {.stype = ZES_STRUCTURE_TYPE_FABRIC_PORT_PROPERTIES};
    zes_fabric_port_config_t c = {.stype = ZES_STRUCTURE_TYPE_FABRIC_PORT_CONFIG, .enabled = true};
    zes_fabric_port_state_t s = {.stype = ZES_STRUCTURE_TYPE_FABRIC_PORT_STATE};
    zes_fabric_port_throughput_t t;
    zes_fabric_link_type_t link;
    zc_assert_result(zesDeviceEnumFabricPorts(NULL, &(uint32_t){0}, NULL), null_handle);
    zc_assert_result(zesDeviceEnumFabricPorts((zes_device_handle_t)zc_sys()->roots[0], NULL, NULL), null_ptr);
    zc_assert_result(zesFabricPortGetProperties(NULL, &p), null_handle);
    zc_assert_result(zesFabricPortGetLinkType(NULL, &link), null_handle);
    zc_assert_result(zesFabricPortGetConfig(NULL, &c), null_handle);
    zc_assert_result(zesFabricPortSetConfig(NULL, &c), null_handle);
    zc_assert_result(zesFabricPortGetState(NULL, &s), null_handle);
    zc_assert_result(zesFabricPortGetThroughput(NULL, &t), null_handle);
    uint32_t n = 0;
    zes_fabric_port_handle_t *ports = zc_ports(zc_sys()->roots[0], &n);
    if (n == 0) {
        free(ports);
        return;
    }
    zes_fabric_port_handle_t port = ports[0];
    free(ports);
    zc_assert_result(zesFabricPortGetProperties(port, NULL), null_ptr);
    zc_assert_result(zesFabricPortGetLinkType(port, NULL), null_ptr);
    zc_assert_result(zesFabricPortGetConfig(port, NULL), null_ptr);
    zc_assert_result(zesFabricPortSetConfig(port, NULL), null_ptr);
    zc_assert_result(zesFabricPortGetState(port, NULL), null_ptr);
    zc_assert_result(zesFabricPortGetThroughput(port, NULL), null_ptr);
    if (!zc_driver_is_fake())
        return;
    /* A descriptor of another type is refused and changes nothing; a handle of another kind is no port. */
    zes_fabric_port_config_t wrong = {.stype = ZES_STRUCTURE_TYPE_FABRIC_PORT_STATE, .enabled = false};
    zc_assert_result(zesFabricPortSetConfig(port, &wrong), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    zc_assert_success(zesFabricPortGetConfig(port, &c));
    assert_true(c.enabled);
    zes_fabric_port_handle_t device = (zes_fabric_port_handle_t)zc_sys()->roots[0];
    zc_assert_result(zesFabricPortGetProperties(device, &p), null_handle);
    zc_assert_result(zesFabricPortSetConfig(device, &c), null_handle);
    zc_assert_result(zesFabricPortGetThroughput((zes_fabric_port_handle_t)zc_freq_domain(zc_sys()->roots[0]), &t),
                     null_handle);
    ze_context_desc_t cd = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0};
    ze_context_handle_t dead = NULL;
    zc_assert_success(zeContextCreate(zc_sys()->driver, &cd, &dead));
    zc_assert_success(zeContextDestroy(dead));
    zc_assert_result(zesFabricPortGetState((zes_fabric_port_handle_t)dead, &s), null_handle);
    zc_assert_result(zesFabricPortSetConfig((zes_fabric_port_handle_t)dead, &c), null_handle);
}

#if ZC_L0_AT_LEAST(7)
/* zesFabricPortGetFabricErrorCounters: a port that never trained counted one link failure and degradation (the IAF
 * driver's count when its link-up timeout passed); a healthy one none. zesFabricPortGetMultiPortThroughput answers
 * what each port does; its bad inputs are refused. */
static void sysman_fabric_counters_of_later_headers(void **state) {
    (void)state;
    zc_api_require(zesFabricPortGetFabricErrorCounters);
    zc_api_require(zesFabricPortGetMultiPortThroughput);
    ze_device_handle_t device = zc_sys()->roots[0];
    uint32_t n = 0;
    zes_fabric_port_handle_t *ports = zc_ports(device, &n);
    zes_fabric_port_throughput_t *many = calloc(n + 1, sizeof *many);
    zc_assert_success(ZC_API(zesFabricPortGetMultiPortThroughput)((zes_device_handle_t)device, n, ports, &many));
    for (uint32_t i = 0; i < n; i++) {
        zes_fabric_port_throughput_t one = zc_port_throughput(ports[i]);
        assert_int_equal(many[i].rxCounter, one.rxCounter); /* nothing moves in between */
        assert_int_equal(many[i].txCounter, one.txCounter);
        zes_fabric_port_error_counters_t e = {.stype = ZES_STRUCTURE_TYPE_FABRIC_PORT_ERROR_COUNTERS};
        zc_assert_success(ZC_API(zesFabricPortGetFabricErrorCounters)(ports[i], &e));
        if (zc_driver_is_fake()) {
            uint64_t failures = zc_scenario_is("default") ? 1 : 0;
            assert_int_equal(e.linkFailureCount, failures);
            assert_int_equal(e.linkDegradeCount, failures);
            assert_int_equal(e.fwErrorCount, 0);
        }
    }
    if (n > 0 && zc_driver_is_fake()) {
        zes_fabric_port_throughput_t *none = NULL;
        zes_fabric_port_handle_t holes[1] = {NULL};
        zc_assert_result(ZC_API(zesFabricPortGetMultiPortThroughput)((zes_device_handle_t)device, 1, ports, &none),
                         ZE_RESULT_ERROR_INVALID_NULL_POINTER);
        zc_assert_result(ZC_API(zesFabricPortGetMultiPortThroughput)((zes_device_handle_t)device, 1, holes, &many),
                         ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
        zc_assert_result(ZC_API(zesFabricPortGetFabricErrorCounters)(ports[0], NULL),
                         ZE_RESULT_ERROR_INVALID_NULL_POINTER);
        if (zc_sys()->num_roots > 1) { /* a port of another device */
            uint32_t m = 0;
            zes_fabric_port_handle_t *other = zc_ports(zc_sys()->roots[zc_sys()->num_roots - 1], &m);
            zc_assert_result(ZC_API(zesFabricPortGetMultiPortThroughput)((zes_device_handle_t)device, 1, other, &many),
                             ZE_RESULT_ERROR_INVALID_ARGUMENT);
            free(other);
        }
    }
    free(many);
    free(ports);
}
#endif

int main(int argc, char **argv) {
    zc_own_instance();
    static const struct CMUnitTest tests[] = {
        cmocka_unit_test(sysman_fabric_ports_enumerate),
        cmocka_unit_test(sysman_fabric_port_properties),
        cmocka_unit_test(sysman_fabric_card_has_its_tiles_ports),
        cmocka_unit_test(sysman_fabric_states_map_the_topology),
        cmocka_unit_test_setup_teardown(sysman_fabric_copy_counts_on_its_links, zc_setup_fabric, zc_teardown_fabric),
        cmocka_unit_test_setup_teardown(sysman_fabric_disabled_ports_carry_nothing, zc_setup_fabric,
                                        zc_teardown_fabric),
        cmocka_unit_test_setup_teardown(sysman_fabric_copy_reroutes_around_a_tile, zc_setup_fabric, zc_teardown_fabric),
        cmocka_unit_test(sysman_fabric_bad_inputs),
#if ZC_L0_AT_LEAST(7)
        cmocka_unit_test(sysman_fabric_counters_of_later_headers),
#endif
    };
    static const zc_suite suite = {ZC_EXECUTABLE, tests, ZC_COUNT(tests), zc_setup_system, zc_teardown_system, NULL, 0};
    return zc_main(argc, argv, &suite);
}
