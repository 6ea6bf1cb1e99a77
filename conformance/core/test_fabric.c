/* Conformance: the fabric topology of ZE_experimental_fabric (zeFabricVertex*, zeFabricEdge*,
 * zeDeviceGetFabricVertexExp) and the bandwidth of peer-to-peer links (ze_device_p2p_bandwidth_exp_properties_t).
 * The vertices are the devices and their sub-vertices the sub-devices, zeDeviceGetFabricVertexExp and
 * zeFabricVertexGetDeviceExp are inverse, every edge joins vertices of the topology. On the fake the topology of each
 * shipped scenario is exact (docs/fabric.md), multi-hop edges follow the searched path, and copies between the
 * tiles' memories last what their route allows (docs/cost-model.md). */
#include "zc_exec.h"

#include <stdio.h>

#define ZC_MAX_VERTICES 160
#define ZC_MAX_EDGES    8

static bool zc_fabric_advertised(void) {
    uint32_t n = 0;
    zc_assert_success(zeDriverGetExtensionProperties(zc_sys()->driver, &n, NULL));
    ze_driver_extension_properties_t *list = calloc(n + 1, sizeof *list);
    zc_assert_success(zeDriverGetExtensionProperties(zc_sys()->driver, &n, list));
    bool found = false;
    for (uint32_t i = 0; i < n && !found; i++)
        found = strcmp(list[i].name, ZE_FABRIC_EXP_NAME) == 0 && list[i].version == ZE_MAKE_VERSION(1, 0);
    free(list);
    return found;
}

/* Skips unless the driver advertises the extension; the fake must. */
static void zc_require_fabric(void) {
    if (zc_fabric_advertised())
        return;
    if (zc_driver_is_fake())
        zc_fail("the fake does not advertise %s 1.0", ZE_FABRIC_EXP_NAME);
    skip();
}

static ze_result_t zc_vertices_call(void *ctx, uint32_t *count, void *items) {
    (void)ctx;
    return zeFabricVertexGetExp(zc_sys()->driver, count, items);
}

static ze_result_t zc_sub_vertices_call(void *ctx, uint32_t *count, void *items) {
    return zeFabricVertexGetSubVerticesExp(ctx, count, items);
}

/* The vertices zeFabricVertexGetExp lists, then the sub-vertices of each. */
typedef struct zc_topology {
    uint32_t num_listed;
    uint32_t num;
    ze_fabric_vertex_handle_t v[ZC_MAX_VERTICES];
} zc_topology;

static void zc_topology_read(zc_topology *t) {
    t->num_listed = ZC_MAX_VERTICES;
    zc_assert_success(zeFabricVertexGetExp(zc_sys()->driver, &t->num_listed, t->v));
    t->num = t->num_listed;
    for (uint32_t i = 0; i < t->num_listed; i++) {
        uint32_t n = ZC_MAX_VERTICES - t->num;
        zc_assert_success(zeFabricVertexGetSubVerticesExp(t->v[i], &n, &t->v[t->num]));
        t->num += n;
    }
}

static bool zc_topology_has(const zc_topology *t, ze_fabric_vertex_handle_t v) {
    for (uint32_t i = 0; i < t->num; i++)
        if (t->v[i] == v)
            return true;
    return false;
}

static ze_fabric_vertex_exp_properties_t zc_vertex_props(ze_fabric_vertex_handle_t v) {
    ze_fabric_vertex_exp_properties_t p = {.stype = ZE_STRUCTURE_TYPE_FABRIC_VERTEX_EXP_PROPERTIES};
    zc_assert_success(zeFabricVertexGetPropertiesExp(v, &p));
    return p;
}

static ze_fabric_edge_exp_properties_t zc_edge_props(ze_fabric_edge_handle_t e) {
    ze_fabric_edge_exp_properties_t p = {.stype = ZE_STRUCTURE_TYPE_FABRIC_EDGE_EXP_PROPERTIES};
    zc_assert_success(zeFabricEdgeGetPropertiesExp(e, &p));
    return p;
}

static ze_device_handle_t zc_vertex_device(ze_fabric_vertex_handle_t v) {
    ze_device_handle_t device = NULL;
    zc_assert_success(zeFabricVertexGetDeviceExp(v, &device));
    return device;
}

/* The edges from a to b (at most ZC_MAX_EDGES), their number returned. */
static uint32_t zc_edges(ze_fabric_vertex_handle_t a, ze_fabric_vertex_handle_t b, ze_fabric_edge_handle_t *out) {
    uint32_t n = ZC_MAX_EDGES;
    zc_assert_success(zeFabricEdgeGetExp(a, b, &n, out));
    return n;
}

/* With the 1.2 stype: timerResolution in Hz. */
static ze_device_properties_t zc_props(ze_device_handle_t device) {
    ze_device_properties_t p = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2};
    zc_assert_success(zeDeviceGetProperties(device, &p));
    return p;
}

/* ---- Vertices ------------------------------------------------------------------------------------------------- */

static void fabric_vertices_are_the_devices(void **state) {
    (void)state;
    zc_require_fabric();
    const zc_system *sys = zc_sys();
    zc_count_query q = {"zeFabricVertexGetExp", zc_vertices_call, NULL, sizeof(ze_fabric_vertex_handle_t), NULL};
    assert_int_equal(zc_count(&q), sys->num_roots);
    zc_check_count_semantics(&q);
    zc_topology t;
    zc_topology_read(&t);
    for (uint32_t i = 0; i < t.num_listed; i++) {
        ze_device_handle_t device = zc_vertex_device(t.v[i]);
        bool found = false;
        for (uint32_t r = 0; r < sys->num_roots && !found; r++)
            found = sys->roots[r] == device;
        if (!found)
            zc_fail("vertex %u stands for no root device", i);
        if (zc_driver_is_fake()) /* docs/fabric.md: in zeDeviceGet's order */
            assert_ptr_equal(device, sys->roots[i]);
    }
}

static void fabric_vertex_and_device_are_inverse(void **state) {
    (void)state;
    zc_require_fabric();
    const zc_system *sys = zc_sys();
    for (uint32_t d = 0; d < sys->num_all; d++) {
        ze_fabric_vertex_handle_t v = NULL;
        zc_assert_success(zeDeviceGetFabricVertexExp(sys->all[d], &v));
        assert_non_null(v);
        assert_ptr_equal(zc_vertex_device(v), sys->all[d]);
        ze_fabric_vertex_handle_t again = NULL;
        zc_assert_success(zeDeviceGetFabricVertexExp(sys->all[d], &again));
        assert_ptr_equal(again, v);
    }
}

static void fabric_sub_vertices_are_the_sub_devices(void **state) {
    (void)state;
    zc_require_fabric();
    const zc_system *sys = zc_sys();
    for (uint32_t r = 0; r < sys->num_roots; r++) {
        ze_fabric_vertex_handle_t v = NULL;
        zc_assert_success(zeDeviceGetFabricVertexExp(sys->roots[r], &v));
        zc_count_query q = {"zeFabricVertexGetSubVerticesExp", zc_sub_vertices_call, v,
                            sizeof(ze_fabric_vertex_handle_t), NULL};
        uint32_t n = zc_count(&q);
        assert_int_equal(n, sys->num_subdevices[r]);
        if (n == 0)
            continue;
        zc_check_count_semantics(&q);
        ze_fabric_vertex_handle_t *subs = zc_query_all(&q, &n);
        for (uint32_t s = 0; s < n; s++) {
            assert_ptr_equal(zc_vertex_device(subs[s]), sys->subdevices[r][s]);
            uint32_t deeper = 0;
            zc_assert_success(zeFabricVertexGetSubVerticesExp(subs[s], &deeper, NULL));
            assert_int_equal(deeper, 0);
        }
        free(subs);
    }
}

static void fabric_vertex_properties_follow_the_device(void **state) {
    (void)state;
    zc_require_fabric();
    const zc_system *sys = zc_sys();
    for (uint32_t d = 0; d < sys->num_all; d++) {
        ze_fabric_vertex_handle_t v = NULL;
        zc_assert_success(zeDeviceGetFabricVertexExp(sys->all[d], &v));
        ze_fabric_vertex_exp_properties_t p = zc_vertex_props(v);
        ze_device_properties_t dp = zc_props(sys->all[d]);
        assert_int_equal(p.stype, ZE_STRUCTURE_TYPE_FABRIC_VERTEX_EXP_PROPERTIES);
        assert_memory_equal(p.uuid.id, dp.uuid.id, sizeof p.uuid.id);
        bool sub = (dp.flags & ZE_DEVICE_PROPERTY_FLAG_SUBDEVICE) != 0;
        assert_int_equal(p.type,
                         sub ? 2 /* SUBDEVICE (SUBEVICE in the 1.4 headers) */ : ZE_FABRIC_VERTEX_EXP_TYPE_DEVICE);
        assert_false(p.remote);
        ze_pci_ext_properties_t pci = {.stype = ZE_STRUCTURE_TYPE_PCI_EXT_PROPERTIES};
        if (zeDevicePciGetPropertiesExt(sys->all[d], &pci) != ZE_RESULT_SUCCESS)
            continue;
        assert_int_equal(p.address.domain, pci.address.domain);
        assert_int_equal(p.address.bus, pci.address.bus);
        assert_int_equal(p.address.device, pci.address.device);
        assert_int_equal(p.address.function, pci.address.function);
    }
}

/* ---- Edges ---------------------------------------------------------------------------------------------------- */

typedef struct zc_pair {
    ze_fabric_vertex_handle_t a, b;
} zc_pair;

static ze_result_t zc_edges_call(void *ctx, uint32_t *count, void *items) {
    const zc_pair *pair = ctx;
    return zeFabricEdgeGetExp(pair->a, pair->b, count, items);
}

static bool zc_edge_in(ze_fabric_edge_handle_t e, const ze_fabric_edge_handle_t *list, uint32_t n) {
    for (uint32_t i = 0; i < n; i++)
        if (list[i] == e)
            return true;
    return false;
}

static void zc_check_edge_properties(ze_fabric_edge_handle_t e) {
    ze_fabric_edge_exp_properties_t p = zc_edge_props(e);
    assert_int_equal(p.stype, ZE_STRUCTURE_TYPE_FABRIC_EDGE_EXP_PROPERTIES);
    assert_non_null(memchr(p.model, '\0', sizeof p.model));
    assert_true(p.model[0] != '\0');
    assert_true(p.duplexity <= ZE_FABRIC_EDGE_EXP_DUPLEXITY_FULL_DUPLEX);
    assert_true(p.bandwidthUnit <= ZE_BANDWIDTH_UNIT_BYTES_PER_CLOCK);
    assert_true(p.latencyUnit <= ZE_LATENCY_UNIT_HOP);
}

/* The edges of a to b lead between a and b; one leading from b to a is found from b as well. */
static void zc_check_pair(const zc_topology *t, ze_fabric_vertex_handle_t a, ze_fabric_vertex_handle_t b) {
    zc_pair pair = {a, b};
    zc_count_query q = {"zeFabricEdgeGetExp", zc_edges_call, &pair, sizeof(ze_fabric_edge_handle_t), NULL};
    ze_fabric_edge_handle_t edges[ZC_MAX_EDGES], back[ZC_MAX_EDGES];
    uint32_t n = zc_edges(a, b, edges), m = zc_edges(b, a, back);
    if (n > 0)
        zc_check_count_semantics(&q);
    for (uint32_t i = 0; i < n; i++) {
        ze_fabric_vertex_handle_t va = NULL, vb = NULL;
        zc_assert_success(zeFabricEdgeGetVerticesExp(edges[i], &va, &vb));
        assert_true(zc_topology_has(t, va) && zc_topology_has(t, vb));
        assert_true((va == a && vb == b) || (va == b && vb == a));
        if (va == b)
            assert_true(zc_edge_in(edges[i], back, m));
        zc_check_edge_properties(edges[i]);
    }
}

static void fabric_edges_join_vertices_of_the_topology(void **state) {
    (void)state;
    zc_require_fabric();
    zc_topology t;
    zc_topology_read(&t);
    for (uint32_t i = 0; i < t.num; i++) {
        assert_int_equal(zc_edges(t.v[i], t.v[i], NULL), 0); /* no vertex is its own neighbour */
        for (uint32_t j = 0; j < t.num; j++)
            if (i != j)
                zc_check_pair(&t, t.v[i], t.v[j]);
    }
}

/* ---- The fake's topologies (docs/fabric.md) ------------------------------------------------------------------- */

/* The shipped scenarios with a fabric: MDFI of 800 bytes/ns and 150 ns between the tiles of a card, Xe Link ports of
 * 26 bytes/ns (4 lanes of 53.125 Gb/s) and 1000 ns; on two-cards every tile has 4 links to each tile of the other
 * card. */
#define ZC_MDFI_BW      800u
#define ZC_MDFI_NS      150u
#define ZC_LINK_BW      26u
#define ZC_LINK_NS      1000u
#define ZC_LINKS_A_PAIR 4u

/* Whether the fake runs the shipped scenario `name`. */
static bool zc_variant_is(const char *name) {
    zefake_info_t info = {.size = sizeof info};
    zc_fake_info(&info);
    return strcmp(info.scenario_name, name) == 0;
}

/* What the fake's scenario gives a vertex: the card it is on (its PCI bus) and its tiles (1 for a tile). */
static uint32_t zc_vertex_tiles(ze_fabric_vertex_handle_t v) {
    uint32_t n = 0;
    zc_assert_success(zeFabricVertexGetSubVerticesExp(v, &n, NULL));
    return n > 0 ? n : 1;
}

static void zc_expect_edge(ze_fabric_vertex_handle_t a, ze_fabric_vertex_handle_t b, const char *model,
                           uint32_t bandwidth, uint32_t latency) {
    ze_fabric_edge_handle_t edges[ZC_MAX_EDGES];
    uint32_t n = zc_edges(a, b, edges);
    if (model == NULL) {
        if (n != 0)
            zc_fail("an edge %s joins vertices no link joins", zc_edge_props(edges[0]).model);
        return;
    }
    assert_int_equal(n, 1);
    ze_fabric_edge_exp_properties_t p = zc_edge_props(edges[0]);
    assert_string_equal(p.model, model);
    assert_int_equal(p.bandwidth, bandwidth);
    assert_int_equal(p.bandwidthUnit, ZE_BANDWIDTH_UNIT_BYTES_PER_NANOSEC);
    assert_int_equal(p.latency, latency);
    assert_int_equal(p.latencyUnit, ZE_LATENCY_UNIT_NANOSEC);
    assert_int_equal(p.duplexity, ZE_FABRIC_EDGE_EXP_DUPLEXITY_FULL_DUPLEX);
}

/* Whether two vertices are a card and one of its own tiles (they have no edge). */
static bool zc_own_tile(ze_fabric_vertex_handle_t card, ze_fabric_vertex_handle_t tile) {
    ze_fabric_vertex_handle_t subs[8];
    uint32_t n = 8;
    zc_assert_success(zeFabricVertexGetSubVerticesExp(card, &n, subs));
    for (uint32_t i = 0; i < n; i++)
        if (subs[i] == tile)
            return true;
    return false;
}

static void zc_expect_pair(ze_fabric_vertex_handle_t a, ze_fabric_vertex_handle_t b) {
    ze_fabric_vertex_exp_properties_t pa = zc_vertex_props(a), pb = zc_vertex_props(b);
    bool fabric = zc_variant_is("default") || zc_variant_is("two-cards");
    if (!fabric || zc_own_tile(a, b) || zc_own_tile(b, a))
        zc_expect_edge(a, b, NULL, 0, 0);
    else if (pa.address.bus == pb.address.bus) /* the two tiles of a card */
        zc_expect_edge(a, b, "MDFI", ZC_MDFI_BW, ZC_MDFI_NS);
    else
        zc_expect_edge(a, b, "XeLink", ZC_LINK_BW * ZC_LINKS_A_PAIR * zc_vertex_tiles(a) * zc_vertex_tiles(b),
                       ZC_LINK_NS);
}

static void fabric_fake_topology_of_the_scenario(void **state) {
    (void)state;
    zc_skip_unless_fake();
    zc_topology t;
    zc_topology_read(&t);
    const zc_system *sys = zc_sys();
    assert_int_equal(t.num, sys->num_all);
    for (uint32_t i = 0; i < t.num; i++)
        for (uint32_t j = 0; j < t.num; j++)
            if (i != j)
                zc_expect_pair(t.v[i], t.v[j]);
}

/* Two cards of two tiles, one cable from port 1 of tile 0 of card 0 to port 1 of tile 0 of card 1; COMPOSITE. */
static const char zc_one_cable_yaml[] =
    "schema: 1\n"
    "name: one-cable\n"
    "device_hierarchy: composite\n"
    "p2p: {access: true}\n"
    "xe_links: [{from: {device: 0, tile: 0, port: 1}, to: {device: 1, tile: 0, port: 1}}]\n"
    "devices:\n"
    "  - &card {name: Card, type: gpu, device_id: 0x0bd5, subdevices: 2,\n"
    "           fabric: {mdfi: {bandwidth_gbps: 800, latency_ns: 150},\n"
    "                    xe_link: {ports_per_tile: 2, latency_ns: 1000}}}\n"
    "  - *card\n";

static void zc_print_edge(const char *name, ze_fabric_vertex_handle_t a, ze_fabric_vertex_handle_t b) {
    ze_fabric_edge_handle_t edges[ZC_MAX_EDGES];
    uint32_t n = zc_edges(a, b, edges);
    printf("%s.count=%u\n", name, n);
    if (n == 0)
        return;
    ze_fabric_vertex_handle_t va = NULL, vb = NULL;
    zc_assert_success(zeFabricEdgeGetVerticesExp(edges[0], &va, &vb));
    ze_fabric_edge_exp_properties_t p = zc_edge_props(edges[0]);
    printf("%s.model=%s\n%s.bandwidth=%u\n%s.latency=%u\n%s.latency_unit=%u\n%s.from_a=%d\n", name, p.model, name,
           p.bandwidth, name, p.latency, name, (unsigned)p.latencyUnit, name, va == a && vb == b);
}

static int zc_multi_hop_child(int argc, char **argv) {
    (void)argc;
    (void)argv;
    void *state = NULL;
    if (zc_setup_system(&state) != 0)
        return 2;
    ze_fabric_vertex_handle_t cards[2], a[2], b[2];
    uint32_t n = 2, two = 2;
    zc_assert_success(zeFabricVertexGetExp(zc_sys()->driver, &n, cards));
    zc_assert_success(zeFabricVertexGetSubVerticesExp(cards[0], &two, a));
    zc_assert_success(zeFabricVertexGetSubVerticesExp(cards[1], &two, b));
    zc_print_edge("cards", cards[0], cards[1]);
    zc_print_edge("a0_b0", a[0], b[0]);
    zc_print_edge("a1_b1", a[1], b[1]);
    zc_print_edge("b1_a1", b[1], a[1]);
    zc_print_edge("A_b1", cards[0], b[1]);
    zc_print_edge("a1_B", a[1], cards[1]);
    zc_print_edge("A_a0", cards[0], a[0]);
    fflush(stdout);
    return zc_teardown_system(NULL) == 0 ? 0 : 3;
}

static void zc_expect_child_edge(const zc_child *child, const char *name, const char *model, uint64_t bandwidth,
                                 uint64_t latency) {
    char key[64], value[256];
    snprintf(key, sizeof key, "%s.count", name);
    assert_int_equal(zc_child_number(child, key), 1);
    snprintf(key, sizeof key, "%s.model", name);
    assert_true(zc_child_value(child, key, value, sizeof value));
    assert_string_equal(value, model);
    snprintf(key, sizeof key, "%s.bandwidth", name);
    assert_int_equal(zc_child_number(child, key), bandwidth);
    snprintf(key, sizeof key, "%s.latency", name);
    assert_int_equal(zc_child_number(child, key), latency);
    snprintf(key, sizeof key, "%s.from_a", name);
    assert_int_equal(zc_child_number(child, key), 1);
}

/* A vertex reached only through others has a multi-hop edge to it, as Intel's driver finds them: the shortest path,
 * its slowest hop's bandwidth, the sum of the hops' latencies, the models of its hops; each way has its own. */
static void fabric_fake_multi_hop_edges(void **state) {
    (void)state;
    zc_skip_unless_fake();
    zc_child child;
    assert_true(zc_run_child_in_scenario("multi-hop", zc_one_cable_yaml, 20000, &child));
    zc_assert_child_ok(&child, "the child on the one-cable scenario");
    zc_expect_child_edge(&child, "cards", "XeLink", ZC_LINK_BW, ZC_LINK_NS);
    zc_expect_child_edge(&child, "a0_b0", "XeLink", ZC_LINK_BW, ZC_LINK_NS);
    zc_expect_child_edge(&child, "a1_b1", "MDFI-XeLink-MDFI", ZC_LINK_BW, ZC_MDFI_NS + ZC_LINK_NS + ZC_MDFI_NS);
    zc_expect_child_edge(&child, "b1_a1", "MDFI-XeLink-MDFI", ZC_LINK_BW, ZC_MDFI_NS + ZC_LINK_NS + ZC_MDFI_NS);
    zc_expect_child_edge(&child, "A_b1", "XeLink-MDFI", ZC_LINK_BW, ZC_LINK_NS + ZC_MDFI_NS);
    zc_expect_child_edge(&child, "a1_B", "MDFI-XeLink", ZC_LINK_BW, ZC_MDFI_NS + ZC_LINK_NS);
    assert_int_equal(zc_child_number(&child, "A_a0.count"), 0);
    zc_child_free(&child);
}

/* ---- Peer-to-peer bandwidth ----------------------------------------------------------------------------------- */

static ze_device_p2p_bandwidth_exp_properties_t zc_p2p_bandwidth(ze_device_handle_t a, ze_device_handle_t b) {
    ze_device_p2p_bandwidth_exp_properties_t bw = {.stype = ZE_STRUCTURE_TYPE_DEVICE_P2P_BANDWIDTH_EXP_PROPERTIES};
    ze_device_p2p_properties_t p = {.stype = ZE_STRUCTURE_TYPE_DEVICE_P2P_PROPERTIES, .pNext = &bw};
    zc_assert_success(zeDeviceGetP2PProperties(a, b, &p));
    return bw;
}

/* The structure chained to zeDeviceGetP2PProperties follows the fabric: the route the cost model charges copies with
 * (docs/fabric.md); no link for a device and itself. */
static void fabric_p2p_bandwidth_follows_the_fabric(void **state) {
    (void)state;
    zc_require_fabric();
    const zc_system *sys = zc_sys();
    for (uint32_t i = 0; i < sys->num_roots; i++) {
        for (uint32_t j = 0; j < sys->num_roots; j++) {
            ze_device_p2p_bandwidth_exp_properties_t bw = zc_p2p_bandwidth(sys->roots[i], sys->roots[j]);
            assert_true(bw.bandwidthUnit <= ZE_BANDWIDTH_UNIT_BYTES_PER_CLOCK);
            assert_true(bw.latencyUnit <= ZE_LATENCY_UNIT_HOP);
            if (!zc_driver_is_fake())
                continue;
            ze_fabric_vertex_handle_t a = NULL, b = NULL;
            zc_assert_success(zeDeviceGetFabricVertexExp(sys->roots[i], &a));
            zc_assert_success(zeDeviceGetFabricVertexExp(sys->roots[j], &b));
            ze_fabric_edge_handle_t edges[ZC_MAX_EDGES];
            uint32_t n = i == j ? 0 : zc_edges(a, b, edges);
            ze_fabric_edge_exp_properties_t e = n > 0 ? zc_edge_props(edges[0]) : (ze_fabric_edge_exp_properties_t){0};
            assert_int_equal(bw.physicalBandwidth, e.bandwidth);
            assert_int_equal(bw.logicalBandwidth, e.bandwidth);
            assert_int_equal(bw.bandwidthUnit, e.bandwidthUnit);
            assert_int_equal(bw.physicalLatency, e.latency);
            assert_int_equal(bw.latencyUnit, e.latencyUnit);
        }
    }
}

/* ---- Copies over the fabric (the fake's cost model) ----------------------------------------------------------- */

/* Device ns of a copy of `bytes` from src's memory to dst's on a compute engine of `engine`, from its kernel
 * timestamps, with the tick it may be off by. */
static double zc_copy_ns(zc_exec *x, ze_device_handle_t engine, ze_device_handle_t src_device,
                         ze_device_handle_t dst_device, size_t bytes, double *tick_ns) {
    ze_device_mem_alloc_desc_t desc = {ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, NULL, 0, 0};
    void *src = NULL, *dst = NULL;
    zc_assert_success(zeMemAllocDevice(x->context, &desc, bytes, 64, src_device, &src));
    zc_assert_success(zeMemAllocDevice(x->context, &desc, bytes, 64, dst_device, &dst));
    ze_device_handle_t saved = x->device;
    x->device = engine;
    ze_event_pool_handle_t pool = zc_event_pool(x, 1, ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP);
    ze_event_handle_t timed = zc_event(pool, 0);
    ze_command_list_handle_t list = zc_list(x, x->compute_ordinal);
    zc_assert_success(zeCommandListAppendMemoryCopy(list, dst, src, bytes, timed, 0, NULL));
    ze_command_queue_handle_t queue = zc_queue(x, x->compute_ordinal, 0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    zc_run(queue, list);
    ze_kernel_timestamp_result_t ts;
    zc_assert_success(zeEventQueryKernelTimestamp(timed, &ts));
    ze_device_properties_t p = zc_props(engine);
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

static void zc_expect_copy_ns(zc_exec *x, ze_device_handle_t src, ze_device_handle_t dst, size_t bytes,
                              double expected) {
    double tick = 0, ns = zc_copy_ns(x, src, src, dst, bytes, &tick);
    if (ns < expected - tick - 1 || ns > expected + tick + 1)
        zc_fail("the copy of %zu bytes took %.0f ns; the fabric's route gives %.0f ns", bytes, ns, expected);
}

#define ZC_COPY_BYTES (1u << 20)
#define ZC_COMMAND_NS 100.0
#define ZC_ENGINE_BW  200.0 /* a compute engine's copy bandwidth, bytes per ns */
#define ZC_CEIL(a, b) ((double)(((uint64_t)(a) + (uint64_t)(b)-1) / (uint64_t)(b)))

/* docs/cost-model.md: a copy between two cards' memories lasts the command, the route's latency and its bytes at the
 * slower of the engine and the route; between two tiles of a card MDFI's latency is added (its bandwidth is above
 * the engine's). */
static void fabric_fake_copies_take_their_route(void **state) {
    zc_exec *x = *state;
    zc_skip_unless_fake();
    const zc_system *sys = zc_sys();
    if (!zc_variant_is("two-cards"))
        skip();                /* the one scenario with two cards */
    if (sys->num_roots == 4) { /* FLAT: tiles 0, 1 of card 0, tiles 0, 1 of card 1 */
        double link = ZC_LINK_BW * ZC_LINKS_A_PAIR;
        zc_expect_copy_ns(x, sys->roots[0], sys->roots[2], ZC_COPY_BYTES,
                          ZC_COMMAND_NS + ZC_LINK_NS + ZC_CEIL(ZC_COPY_BYTES, link));
        zc_expect_copy_ns(x, sys->roots[0], sys->roots[1], ZC_COPY_BYTES,
                          ZC_COMMAND_NS + ZC_MDFI_NS + ZC_CEIL(ZC_COPY_BYTES, ZC_ENGINE_BW));
    } else { /* COMPOSITE: 16 links of 26 bytes per ns join the cards, more than the engine copies */
        assert_int_equal(sys->num_roots, 2);
        zc_expect_copy_ns(x, sys->roots[0], sys->roots[1], ZC_COPY_BYTES,
                          ZC_COMMAND_NS + ZC_LINK_NS + ZC_CEIL(ZC_COPY_BYTES, ZC_ENGINE_BW));
        zc_expect_copy_ns(x, sys->subdevices[0][0], sys->subdevices[1][1], ZC_COPY_BYTES,
                          ZC_COMMAND_NS + ZC_LINK_NS + ZC_CEIL(ZC_COPY_BYTES, ZC_LINK_BW * ZC_LINKS_A_PAIR));
    }
}

/* ---- Bad inputs ----------------------------------------------------------------------------------------------- */

static void fabric_null_handles_and_pointers(void **state) {
    (void)state;
    zc_require_fabric();
    const ze_result_t null_handle = ZE_RESULT_ERROR_INVALID_NULL_HANDLE,
                      null_ptr = ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    ze_device_handle_t device = zc_sys()->roots[0];
    ze_fabric_vertex_handle_t v = NULL;
    zc_assert_success(zeDeviceGetFabricVertexExp(device, &v));
    uint32_t n = 0;
    ze_fabric_vertex_exp_properties_t vp = {.stype = ZE_STRUCTURE_TYPE_FABRIC_VERTEX_EXP_PROPERTIES};
    ze_fabric_edge_exp_properties_t ep = {.stype = ZE_STRUCTURE_TYPE_FABRIC_EDGE_EXP_PROPERTIES};
    ze_fabric_vertex_handle_t va = NULL, vb = NULL;
    zc_assert_result(zeFabricVertexGetExp(NULL, &n, NULL), null_handle);
    zc_assert_result(zeFabricVertexGetExp(zc_sys()->driver, NULL, NULL), null_ptr);
    zc_assert_result(zeFabricVertexGetSubVerticesExp(NULL, &n, NULL), null_handle);
    zc_assert_result(zeFabricVertexGetSubVerticesExp(v, NULL, NULL), null_ptr);
    zc_assert_result(zeFabricVertexGetPropertiesExp(NULL, &vp), null_handle);
    zc_assert_result(zeFabricVertexGetPropertiesExp(v, NULL), null_ptr);
    zc_assert_result(zeFabricVertexGetDeviceExp(NULL, &device), null_handle);
    zc_assert_result(zeFabricVertexGetDeviceExp(v, NULL), null_ptr);
    zc_assert_result(zeDeviceGetFabricVertexExp(NULL, &v), null_handle);
    zc_assert_result(zeDeviceGetFabricVertexExp(device, NULL), null_ptr);
    zc_assert_result(zeFabricEdgeGetExp(NULL, v, &n, NULL), null_handle);
    zc_assert_result(zeFabricEdgeGetExp(v, NULL, &n, NULL), null_handle);
    zc_assert_result(zeFabricEdgeGetExp(v, v, NULL, NULL), null_ptr);
    zc_assert_result(zeFabricEdgeGetVerticesExp(NULL, &va, &vb), null_handle);
    zc_assert_result(zeFabricEdgeGetPropertiesExp(NULL, &ep), null_handle);
}

/* The first edge of the topology, NULL when it has none. */
static ze_fabric_edge_handle_t zc_any_edge(void) {
    zc_topology t;
    zc_topology_read(&t);
    ze_fabric_edge_handle_t edges[ZC_MAX_EDGES];
    for (uint32_t i = 0; i < t.num; i++)
        for (uint32_t j = 0; j < t.num; j++)
            if (zc_edges(t.v[i], t.v[j], edges) > 0)
                return edges[0];
    return NULL;
}

/* The registry refuses handles of another kind and destroyed ones (docs/api-support.md); edges need their two
 * output pointers. Output structures with another stype are answered, their chain not followed (docs/chains.md). */
static void fabric_fake_foreign_handles_and_stype(void **state) {
    (void)state;
    zc_skip_unless_fake();
    const ze_result_t null_handle = ZE_RESULT_ERROR_INVALID_NULL_HANDLE,
                      null_ptr = ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    ze_device_handle_t device = zc_sys()->roots[0];
    ze_fabric_vertex_handle_t v = NULL;
    zc_assert_success(zeDeviceGetFabricVertexExp(device, &v));
    ze_context_desc_t cd = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0};
    ze_context_handle_t dead = NULL;
    zc_assert_success(zeContextCreate(zc_sys()->driver, &cd, &dead));
    zc_assert_success(zeContextDestroy(dead));
    ze_fabric_vertex_exp_properties_t vp = {.stype = ZE_STRUCTURE_TYPE_FABRIC_VERTEX_EXP_PROPERTIES};
    ze_fabric_edge_exp_properties_t ep = {.stype = ZE_STRUCTURE_TYPE_FABRIC_EDGE_EXP_PROPERTIES};
    uint32_t n = 0;
    zc_assert_result(zeFabricVertexGetPropertiesExp((ze_fabric_vertex_handle_t)device, &vp), null_handle);
    zc_assert_result(zeFabricVertexGetPropertiesExp((ze_fabric_vertex_handle_t)dead, &vp), null_handle);
    zc_assert_result(zeFabricVertexGetDeviceExp((ze_fabric_vertex_handle_t)dead, &device), null_handle);
    zc_assert_result(zeDeviceGetFabricVertexExp((ze_device_handle_t)v, &v), null_handle);
    zc_assert_result(zeFabricEdgeGetExp(v, (ze_fabric_vertex_handle_t)dead, &n, NULL), null_handle);
    zc_assert_result(zeFabricEdgeGetPropertiesExp((ze_fabric_edge_handle_t)v, &ep), null_handle);
    ze_fabric_vertex_exp_properties_t zeroed = {0};
    zc_assert_success(zeFabricVertexGetPropertiesExp(v, &zeroed));
    assert_int_equal(zeroed.stype, 0);
    assert_memory_equal(zeroed.uuid.id, zc_props(device).uuid.id, sizeof zeroed.uuid.id);
    ze_fabric_edge_handle_t e = zc_any_edge();
    if (e == NULL)
        return; /* single-tile and integrated: no edge */
    ze_fabric_vertex_handle_t va = NULL;
    zc_assert_result(zeFabricEdgeGetVerticesExp(e, &va, NULL), null_ptr);
    zc_assert_result(zeFabricEdgeGetVerticesExp(e, NULL, &va), null_ptr);
    zc_assert_result(zeFabricEdgeGetPropertiesExp(e, NULL), null_ptr);
    zc_assert_result(zeFabricEdgeGetVerticesExp((ze_fabric_edge_handle_t)dead, &va, &va), null_handle);
    ze_fabric_edge_exp_properties_t wrong = {.stype = ZE_STRUCTURE_TYPE_FABRIC_VERTEX_EXP_PROPERTIES};
    zc_assert_success(zeFabricEdgeGetPropertiesExp(e, &wrong));
    assert_int_equal(wrong.stype, ZE_STRUCTURE_TYPE_FABRIC_VERTEX_EXP_PROPERTIES);
    assert_true(wrong.model[0] != '\0');
}

int main(int argc, char **argv) {
    static const struct CMUnitTest tests[] = {
        cmocka_unit_test(fabric_vertices_are_the_devices),
        cmocka_unit_test(fabric_vertex_and_device_are_inverse),
        cmocka_unit_test(fabric_sub_vertices_are_the_sub_devices),
        cmocka_unit_test(fabric_vertex_properties_follow_the_device),
        cmocka_unit_test(fabric_edges_join_vertices_of_the_topology),
        cmocka_unit_test(fabric_fake_topology_of_the_scenario),
        cmocka_unit_test(fabric_fake_multi_hop_edges),
        cmocka_unit_test(fabric_p2p_bandwidth_follows_the_fabric),
        cmocka_unit_test_setup_teardown(fabric_fake_copies_take_their_route, zc_setup_exec, zc_teardown_exec),
        cmocka_unit_test(fabric_null_handles_and_pointers),
        cmocka_unit_test(fabric_fake_foreign_handles_and_stype),
    };
    static const zc_child_mode modes[] = {{"multi-hop", zc_multi_hop_child}};
    static const zc_suite suite = {ZC_EXECUTABLE,      tests, ZC_COUNT(tests), zc_setup_system,
                                   zc_teardown_system, modes, ZC_COUNT(modes)};
    return zc_main(argc, argv, &suite);
}
