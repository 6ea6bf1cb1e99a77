/* Conformance (fake only): device selection by the environment. Child processes run with ZE_AFFINITY_MASK,
 * ZE_ENABLE_PCI_ID_DEVICE_ORDER or ZES_ENABLE_SYSMAN on a scenario of two cards of four tiles each, whose PCI
 * addresses are in the reverse order of the file, and report the devices they see; the masks are the examples of the
 * specification (PROG.rst, "Affinity Mask"), read in the COMPOSITE hierarchy they were written for. Devices are
 * recognised by their UUIDs, which name the physical device and tile wherever the mask puts them
 * (docs/environment.md). The hierarchy tests run ZE_FLAT_DEVICE_HIERARCHY's three modes on the default scenario (one
 * card of two tiles) and the mask in FLAT and COMBINED mode, where its ordinals count tiles. */
#include "zc_harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Card A (file order 0, PCI bus 5) and card B (file order 1, PCI bus 3), four tiles each. */
static const char zc_scenario_yaml[] = "schema: 1\n"
                                       "name: affinity\n"
                                       "devices:\n"
                                       "  - name: card A\n"
                                       "    type: gpu\n"
                                       "    device_id: 0x1111\n"
                                       "    subdevices: 4\n"
                                       "    topology:\n"
                                       "      slices: 4\n"
                                       "    memories:\n"
                                       "      - name: HBM\n"
                                       "        total_size: 16 GiB\n"
                                       "    pci:\n"
                                       "      bus: 5\n"
                                       "  - name: card B\n"
                                       "    type: gpu\n"
                                       "    device_id: 0x2222\n"
                                       "    subdevices: 4\n"
                                       "    topology:\n"
                                       "      slices: 4\n"
                                       "    memories:\n"
                                       "      - name: HBM\n"
                                       "        total_size: 16 GiB\n"
                                       "    pci:\n"
                                       "      bus: 3\n";

static char zc_scenario_path[256];

static int zc_write_scenario(void **state) {
    (void)state;
    snprintf(zc_scenario_path, sizeof zc_scenario_path, "/tmp/zc-affinity-%d.yaml", (int)getpid());
    FILE *file = fopen(zc_scenario_path, "w");
    if (file == NULL)
        return -1;
    bool written = fputs(zc_scenario_yaml, file) >= 0;
    return fclose(file) == 0 && written ? 0 : -1;
}

static int zc_remove_scenario(void **state) {
    (void)state;
    unlink(zc_scenario_path);
    return 0;
}

static int zc_group_setup(void **state) {
    return zc_setup_system(state) == 0 ? zc_write_scenario(state) : -1;
}

static int zc_group_teardown(void **state) {
    zc_remove_scenario(state);
    return zc_teardown_system(state);
}

/* ------------------------------------------------------------------------------------------------------------------
 * The child: what it sees */

static void zc_print_uuid(const char *key, const ze_device_uuid_t *uuid) {
    printf("%s=", key);
    for (size_t i = 0; i < sizeof uuid->id; i++)
        printf("%02x", uuid->id[i]);
    printf("\n");
}

static void zc_print_device(ze_device_handle_t device, const char *key) {
    ze_device_properties_t p = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
    zeDeviceGetProperties(device, &p);
    char name[64];
    snprintf(name, sizeof name, "%s.uuid", key);
    zc_print_uuid(name, &p.uuid);
    printf("%s.slices=%u\n%s.subdevice=%d\n%s.id=%u\n", key, p.numSlices, key,
           (p.flags & ZE_DEVICE_PROPERTY_FLAG_SUBDEVICE) != 0, key, p.subdeviceId);
    ze_device_memory_properties_t memory = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MEMORY_PROPERTIES};
    uint32_t count = 1;
    zeDeviceGetMemoryProperties(device, &count, &memory);
    printf("%s.memory=%llu\n", key, (unsigned long long)memory.totalSize);
}

/* "<key>.parent=0|1" and, for a parent, its UUID, its sub-device count and whether the device is one of them: what
 * zeDeviceGetRootDevice (Level Zero 1.7) answers, asked through zeDriverGetExtensionFunctionAddress (as builds with
 * older headers offer it) and, with headers that have it, as an API function: both must agree ("<key>.agree"). */
static void zc_print_parent(ze_driver_handle_t driver, ze_device_handle_t device, const char *key) {
    typedef ze_result_t(ZE_APICALL * get_root_t)(ze_device_handle_t, ze_device_handle_t *);
    get_root_t get_root = NULL;
    if (zeDriverGetExtensionFunctionAddress(driver, "zeDeviceGetRootDevice", (void **)&get_root) != ZE_RESULT_SUCCESS)
        return;
    ze_device_handle_t parent = NULL;
    printf("%s.root_result=%u\n", key, (unsigned)get_root(device, &parent));
#if ZC_L0_AT_LEAST(7)
    ze_device_handle_t api_parent = (ze_device_handle_t)&api_parent;
    if (ZC_API(zeDeviceGetRootDevice) != NULL)
        ZC_API(zeDeviceGetRootDevice)(device, &api_parent);
    printf("%s.agree=%d\n", key, ZC_API(zeDeviceGetRootDevice) == NULL || api_parent == parent);
#endif
    printf("%s.parent=%d\n", key, parent != NULL);
    if (parent == NULL)
        return;
    char name[48];
    snprintf(name, sizeof name, "%s.parent", key);
    zc_print_device(parent, name);
    uint32_t subs = 8;
    ze_device_handle_t sub[8];
    zeDeviceGetSubDevices(parent, &subs, sub);
    int has_self = 0;
    for (uint32_t s = 0; s < subs; s++)
        has_self |= sub[s] == device;
    printf("%s.parent.subs=%u\n%s.parent.has_self=%d\n", key, subs, key, has_self);
}

/* Child mode "devices": every root device and sub-device, as "r<i>..." and "r<i>.s<j>..." lines. */
static int zc_child_devices(int argc, char **argv) {
    (void)argc;
    (void)argv;
    printf("init=%u\n", (unsigned)zeInit(0));
    uint32_t drivers = 0;
    zeDriverGet(&drivers, NULL);
    printf("drivers=%u\n", drivers);
    if (drivers == 0)
        return 0;
    ze_driver_handle_t driver = NULL;
    drivers = 1;
    zeDriverGet(&drivers, &driver);
    uint32_t roots = 16;
    ze_device_handle_t devices[16];
    zeDeviceGet(driver, &roots, devices);
    printf("roots=%u\n", roots);
    for (uint32_t r = 0; r < roots; r++) {
        char key[32];
        snprintf(key, sizeof key, "r%u", r);
        zc_print_device(devices[r], key);
        uint32_t subs = 8;
        ze_device_handle_t sub[8];
        zeDeviceGetSubDevices(devices[r], &subs, sub);
        printf("r%u.subs=%u\n", r, subs);
        zc_print_parent(driver, devices[r], key);
        for (uint32_t s = 0; s < subs; s++) {
            snprintf(key, sizeof key, "r%u.s%u", r, s);
            zc_print_device(sub[s], key);
            zc_print_parent(driver, sub[s], key);
        }
    }
    return 0;
}

/* ------------------------------------------------------------------------------------------------------------------
 * The parent: what a mask must show */

typedef struct zc_seen {
    zc_child child;
} zc_seen;

/* Runs the child on a scenario (a path or a shipped name) in a hierarchy ("ZE_FLAT_DEVICE_HIERARCHY=...", or the
 * bare name to leave it unset) with the given environment changes (NULL-terminated, up to 4). */
static zc_seen zc_see_in(const char *scenario_name, const char *hierarchy, const char *const changes[]) {
    char scenario[300];
    snprintf(scenario, sizeof scenario, "ZEFAKE_SCENARIO=%s", scenario_name);
    const char *env[10] = {scenario, "ZE_AFFINITY_MASK", "ZE_ENABLE_PCI_ID_DEVICE_ORDER", "ZES_ENABLE_SYSMAN",
                           hierarchy};
    size_t n = 5;
    for (size_t i = 0; changes != NULL && changes[i] != NULL && n < 9; i++)
        env[n++] = changes[i];
    env[n] = NULL;
    zc_seen seen;
    if (!zc_run_child_mode("devices", NULL, env, ZC_CHILD_TIMEOUT_MS, &seen.child))
        zc_fail("cannot start the child process");
    zc_assert_child_ok(&seen.child, "the enumerating process");
    return seen;
}

/* The specification's examples are written for cards with sub-devices: the COMPOSITE hierarchy. */
static zc_seen zc_see(const char *const changes[]) {
    return zc_see_in(zc_scenario_path, "ZE_FLAT_DEVICE_HIERARCHY=COMPOSITE", changes);
}

static void zc_value(const zc_seen *seen, const char *key, char *value, size_t size) {
    if (!zc_child_value(&seen->child, key, value, size))
        zc_fail("the child reported no %s; its output:\n%s", key, seen->child.out);
}

/* The UUID the unmasked system gives card `card` (0 = A), tile `tile` (-1: the card itself). */
static void zc_reference_uuid(const zc_seen *all, int card, int tile, char *uuid, size_t size) {
    char key[32];
    if (tile < 0)
        snprintf(key, sizeof key, "r%d.uuid", card);
    else
        snprintf(key, sizeof key, "r%d.s%d.uuid", card, tile);
    zc_value(all, key, uuid, size);
}

/* Asserts that `key` of `seen` is the UUID of card/tile in the unmasked system. */
static void zc_assert_is(const zc_seen *seen, const zc_seen *all, const char *key, int card, int tile) {
    char got[64], want[64];
    zc_value(seen, key, got, sizeof got);
    zc_reference_uuid(all, card, tile, want, sizeof want);
    if (strcmp(got, want) != 0)
        zc_fail("%s is %s; expected card %c%s%d (%s)", key, got, "AB"[card], tile < 0 ? "" : " tile ", tile, want);
}

static void zc_seen_free(zc_seen *seen) {
    zc_child_free(&seen->child);
}

static zc_seen zc_see_mask(const char *mask) {
    char variable[128];
    snprintf(variable, sizeof variable, "ZE_AFFINITY_MASK=%s", mask);
    const char *changes[] = {variable, NULL};
    return zc_see(changes);
}

static void affinity_unset_reports_every_device(void **state) {
    (void)state;
    zc_skip_unless_fake();
    zc_seen all = zc_see(NULL);
    assert_int_equal(zc_child_number(&all.child, "roots"), 2);
    assert_int_equal(zc_child_number(&all.child, "r0.subs"), 4);
    assert_int_equal(zc_child_number(&all.child, "r1.subs"), 4);
    zc_seen same = zc_see_mask("0, 1"); /* "all devices and sub-devices are reported" */
    assert_int_equal(zc_child_number(&same.child, "roots"), 2);
    for (int tile = 0; tile < 4; tile++) {
        char key[32];
        snprintf(key, sizeof key, "r1.s%d.uuid", tile);
        zc_assert_is(&same, &all, key, 1, tile);
    }
    zc_seen_free(&same);
    zc_seen_free(&all);
}

static void affinity_whole_devices(void **state) {
    (void)state;
    zc_skip_unless_fake();
    zc_seen all = zc_see(NULL);
    zc_seen first = zc_see_mask("0"); /* device 0 with all its sub-devices */
    assert_int_equal(zc_child_number(&first.child, "roots"), 1);
    assert_int_equal(zc_child_number(&first.child, "r0.subs"), 4);
    zc_assert_is(&first, &all, "r0.uuid", 0, -1);
    zc_seen second = zc_see_mask("1"); /* device 1, reported as device 0 */
    assert_int_equal(zc_child_number(&second.child, "roots"), 1);
    assert_int_equal(zc_child_number(&second.child, "r0.subs"), 4);
    zc_assert_is(&second, &all, "r0.uuid", 1, -1);
    zc_assert_is(&second, &all, "r0.s3.uuid", 1, 3);
    zc_seen_free(&first);
    zc_seen_free(&second);
    zc_seen_free(&all);
}

static void affinity_one_tile_is_a_device(void **state) {
    (void)state;
    zc_skip_unless_fake();
    zc_seen all = zc_see(NULL);
    zc_seen tile = zc_see_mask("0.0"); /* device 0, sub-device 0, reported as device 0 */
    assert_int_equal(zc_child_number(&tile.child, "roots"), 1);
    assert_int_equal(zc_child_number(&tile.child, "r0.subs"), 0);
    assert_int_equal(zc_child_number(&tile.child, "r0.subdevice"), 0);
    zc_assert_is(&tile, &all, "r0.uuid", 0, 0);
    assert_int_equal(zc_child_number(&tile.child, "r0.slices"), zc_child_number(&all.child, "r0.s0.slices"));
    assert_int_equal(zc_child_number(&tile.child, "r0.memory"), zc_child_number(&all.child, "r0.s0.memory"));
    zc_seen_free(&tile);
    zc_seen_free(&all);
}

static void affinity_some_tiles_renumbered(void **state) {
    (void)state;
    zc_skip_unless_fake();
    zc_seen all = zc_see(NULL);
    /* "device 1 is reported as device 0; with its sub-devices 1 and 2 reported as sub-devices 0 and 1" */
    zc_seen two = zc_see_mask("1.1, 1.2");
    assert_int_equal(zc_child_number(&two.child, "roots"), 1);
    assert_int_equal(zc_child_number(&two.child, "r0.subs"), 2);
    zc_assert_is(&two, &all, "r0.s0.uuid", 1, 1);
    zc_assert_is(&two, &all, "r0.s1.uuid", 1, 2);
    assert_int_equal(zc_child_number(&two.child, "r0.s1.id"), 1);
    assert_int_equal(zc_child_number(&two.child, "r0.slices"), 2 * zc_child_number(&all.child, "r1.s0.slices"));
    assert_int_equal(zc_child_number(&two.child, "r0.memory"), 2 * zc_child_number(&all.child, "r1.s0.memory"));
    /* "both devices; device 0 reports sub-devices 2 and 3 as 0 and 1; device 1 reports 0 and 3; the order is
     * unchanged" */
    zc_seen mixed = zc_see_mask("0.2, 1.3, 1.0, 0.3");
    assert_int_equal(zc_child_number(&mixed.child, "roots"), 2);
    zc_assert_is(&mixed, &all, "r0.s0.uuid", 0, 2);
    zc_assert_is(&mixed, &all, "r0.s1.uuid", 0, 3);
    zc_assert_is(&mixed, &all, "r1.s0.uuid", 1, 0);
    zc_assert_is(&mixed, &all, "r1.s1.uuid", 1, 3);
    zc_seen_free(&two);
    zc_seen_free(&mixed);
    zc_seen_free(&all);
}

/* The example: one tile of device 0 (a device of its own) and the whole of device 1. */
static void affinity_tile_and_whole_device(void **state) {
    (void)state;
    zc_skip_unless_fake();
    zc_seen all = zc_see(NULL);
    zc_seen mixed = zc_see_mask("0.1,1");
    assert_int_equal(zc_child_number(&mixed.child, "roots"), 2);
    assert_int_equal(zc_child_number(&mixed.child, "r0.subs"), 0);
    zc_assert_is(&mixed, &all, "r0.uuid", 0, 1);
    assert_int_equal(zc_child_number(&mixed.child, "r1.subs"), 4);
    zc_assert_is(&mixed, &all, "r1.uuid", 1, -1);
    zc_assert_is(&mixed, &all, "r1.s0.uuid", 1, 0);
    zc_seen_free(&mixed);
    zc_seen_free(&all);
}

static void affinity_bad_entries_ignored(void **state) {
    (void)state;
    zc_skip_unless_fake();
    zc_seen all = zc_see(NULL);
    zc_seen seen = zc_see_mask("7,x,0.9,1.,,1.3");
    assert_int_equal(zc_child_number(&seen.child, "roots"), 1);
    zc_assert_is(&seen, &all, "r0.uuid", 1, 3);
    if (strstr(seen.child.err, "ZE_AFFINITY_MASK") == NULL)
        zc_fail("the ignored entries were not reported; stderr:\n%s", seen.child.err);
    zc_seen none = zc_see_mask("5");
    assert_int_equal(zc_child_number(&none.child, "drivers"), 0);
    zc_seen_free(&none);
    zc_seen_free(&seen);
    zc_seen_free(&all);
}

static void affinity_pci_order(void **state) {
    (void)state;
    zc_skip_unless_fake();
    zc_seen all = zc_see(NULL); /* file order: A (bus 5), then B (bus 3) */
    const char *ordered[] = {"ZE_ENABLE_PCI_ID_DEVICE_ORDER=1", NULL};
    zc_seen by_pci = zc_see(ordered);
    assert_int_equal(zc_child_number(&by_pci.child, "roots"), 2);
    zc_assert_is(&by_pci, &all, "r0.uuid", 1, -1);
    zc_assert_is(&by_pci, &all, "r1.uuid", 0, -1);
    /* The mask's ordinals are those of the order reported. */
    const char *both[] = {"ZE_ENABLE_PCI_ID_DEVICE_ORDER=1", "ZE_AFFINITY_MASK=0.1", NULL};
    zc_seen masked = zc_see(both);
    assert_int_equal(zc_child_number(&masked.child, "roots"), 1);
    zc_assert_is(&masked, &all, "r0.uuid", 1, 1);
    const char *off[] = {"ZE_ENABLE_PCI_ID_DEVICE_ORDER=0", NULL};
    zc_seen unchanged = zc_see(off);
    zc_assert_is(&unchanged, &all, "r0.uuid", 0, -1);
    zc_seen_free(&unchanged);
    zc_seen_free(&masked);
    zc_seen_free(&by_pci);
    zc_seen_free(&all);
}

static void affinity_sysman_variable_accepted(void **state) {
    (void)state;
    zc_skip_unless_fake();
    const char *sysman[] = {"ZES_ENABLE_SYSMAN=1", NULL};
    zc_seen seen = zc_see(sysman);
    assert_int_equal(zc_child_number(&seen.child, "init"), ZE_RESULT_SUCCESS);
    assert_int_equal(zc_child_number(&seen.child, "roots"), 2);
    zc_seen_free(&seen);
}

/* ------------------------------------------------------------------------------------------------------------------
 * ZE_FLAT_DEVICE_HIERARCHY */

static zc_seen zc_see_default(const char *hierarchy) {
    return zc_see_in("default", hierarchy, NULL);
}

static void zc_assert_same(const zc_seen *a, const char *key_a, const zc_seen *b, const char *key_b) {
    char got[64], want[64];
    zc_value(a, key_a, got, sizeof got);
    zc_value(b, key_b, want, sizeof want);
    if (strcmp(got, want) != 0)
        zc_fail("%s is %s, expected %s (%s)", key_a, got, want, key_b);
}

static void hierarchy_composite_card_with_tiles(void **state) {
    (void)state;
    zc_skip_unless_fake();
    zc_seen seen = zc_see_default("ZE_FLAT_DEVICE_HIERARCHY=COMPOSITE");
    assert_int_equal(zc_child_number(&seen.child, "roots"), 1);
    assert_int_equal(zc_child_number(&seen.child, "r0.subs"), 2);
    assert_int_equal(zc_child_number(&seen.child, "r0.s1.subdevice"), 1);
    assert_int_equal(zc_child_number(&seen.child, "r0.root_result"), ZE_RESULT_SUCCESS);
    assert_int_equal(zc_child_number(&seen.child, "r0.parent"), 0);    /* a root device has no root */
    assert_int_equal(zc_child_number(&seen.child, "r0.s1.parent"), 1); /* a tile's is its card */
    zc_assert_same(&seen, "r0.s1.parent.uuid", &seen, "r0.uuid");
#if ZC_L0_AT_LEAST(7)
    assert_int_equal(zc_child_number(&seen.child, "r0.agree"), 1);
    assert_int_equal(zc_child_number(&seen.child, "r0.s1.agree"), 1);
#endif
    zc_seen_free(&seen);
}

static void hierarchy_flat_tiles_are_devices(void **state) {
    (void)state;
    zc_skip_unless_fake();
    zc_seen composite = zc_see_default("ZE_FLAT_DEVICE_HIERARCHY=COMPOSITE");
    const char *const modes[] = {"ZE_FLAT_DEVICE_HIERARCHY=FLAT", "ZE_FLAT_DEVICE_HIERARCHY"}; /* FLAT is the default */
    for (size_t m = 0; m < 2; m++) {
        zc_seen flat = zc_see_default(modes[m]);
        assert_int_equal(zc_child_number(&flat.child, "roots"), 2);
        for (int r = 0; r < 2; r++) {
            char key[32], tile[32];
            snprintf(key, sizeof key, "r%d.subs", r);
            assert_int_equal(zc_child_number(&flat.child, key), 0);
            snprintf(key, sizeof key, "r%d.subdevice", r);
            assert_int_equal(zc_child_number(&flat.child, key), 0);
            snprintf(key, sizeof key, "r%d.parent", r);
            assert_int_equal(zc_child_number(&flat.child, key), 0);
            snprintf(key, sizeof key, "r%d.uuid", r);
            snprintf(tile, sizeof tile, "r0.s%d.uuid", r);
            zc_assert_same(&flat, key, &composite, tile);
            snprintf(key, sizeof key, "r%d.memory", r);
            snprintf(tile, sizeof tile, "r0.s%d.memory", r);
            assert_int_equal(zc_child_number(&flat.child, key), zc_child_number(&composite.child, tile));
        }
        zc_seen_free(&flat);
    }
    zc_seen_free(&composite);
}

static void hierarchy_combined_tiles_with_their_card(void **state) {
    (void)state;
    zc_skip_unless_fake();
    zc_seen composite = zc_see_default("ZE_FLAT_DEVICE_HIERARCHY=COMPOSITE");
    zc_seen combined = zc_see_default("ZE_FLAT_DEVICE_HIERARCHY=COMBINED");
    assert_int_equal(zc_child_number(&combined.child, "roots"), 2);
    for (int r = 0; r < 2; r++) {
        char key[40], tile[32];
        snprintf(key, sizeof key, "r%d.subs", r);
        assert_int_equal(zc_child_number(&combined.child, key), 0);
        snprintf(key, sizeof key, "r%d.uuid", r);
        snprintf(tile, sizeof tile, "r0.s%d.uuid", r);
        zc_assert_same(&combined, key, &composite, tile);
        /* The composite card: its root device, with the root devices as its sub-devices. */
        snprintf(key, sizeof key, "r%d.parent.uuid", r);
        zc_assert_same(&combined, key, &composite, "r0.uuid");
        snprintf(key, sizeof key, "r%d.parent.subs", r);
        assert_int_equal(zc_child_number(&combined.child, key), 2);
        snprintf(key, sizeof key, "r%d.parent.has_self", r);
        assert_int_equal(zc_child_number(&combined.child, key), 1);
    }
    zc_seen_free(&combined);
    zc_seen_free(&composite);
}

static void hierarchy_unknown_value_keeps_the_default(void **state) {
    (void)state;
    zc_skip_unless_fake();
    const char *const log[] = {"ZEFAKE_LOG=warn", NULL};
    zc_seen seen = zc_see_in("default", "ZE_FLAT_DEVICE_HIERARCHY=flat", log); /* Intel spells it in capitals */
    assert_int_equal(zc_child_number(&seen.child, "roots"), 2);
    if (strstr(seen.child.err, "ZE_FLAT_DEVICE_HIERARCHY=flat") == NULL)
        zc_fail("no warning names the value; stderr:\n%s", seen.child.err);
    zc_seen_free(&seen);
}

/* In FLAT and COMBINED mode the mask's ordinals count tiles: 0..3 are card A's, 4..7 card B's. */
static void hierarchy_flat_mask_counts_tiles(void **state) {
    (void)state;
    zc_skip_unless_fake();
    zc_seen all = zc_see(NULL);
    const char *const one[] = {"ZE_AFFINITY_MASK=5", NULL};
    zc_seen tile = zc_see_in(zc_scenario_path, "ZE_FLAT_DEVICE_HIERARCHY=FLAT", one);
    assert_int_equal(zc_child_number(&tile.child, "roots"), 1);
    zc_assert_is(&tile, &all, "r0.uuid", 1, 1);
    const char *const two[] = {"ZE_AFFINITY_MASK=7, 0.0, 1.1", "ZEFAKE_LOG=warn", NULL};
    zc_seen pair = zc_see_in(zc_scenario_path, "ZE_FLAT_DEVICE_HIERARCHY=FLAT", two);
    assert_int_equal(zc_child_number(&pair.child, "roots"), 2);
    zc_assert_is(&pair, &all, "r0.uuid", 0, 0);
    zc_assert_is(&pair, &all, "r1.uuid", 1, 3);
    if (strstr(pair.child.err, "1.1") == NULL) /* a flat device has no sub-device 1 */
        zc_fail("no warning names 1.1; stderr:\n%s", pair.child.err);
    const char *const card_a[] = {"ZE_AFFINITY_MASK=3,2", NULL};
    zc_seen combined = zc_see_in(zc_scenario_path, "ZE_FLAT_DEVICE_HIERARCHY=COMBINED", card_a);
    assert_int_equal(zc_child_number(&combined.child, "roots"), 2);
    zc_assert_is(&combined, &all, "r0.uuid", 0, 2);
    zc_assert_is(&combined, &all, "r1.uuid", 0, 3);
    assert_int_equal(zc_child_number(&combined.child, "r0.parent.subs"), 2); /* the card of the tiles kept */
    zc_seen_free(&combined);
    zc_seen_free(&pair);
    zc_seen_free(&tile);
    zc_seen_free(&all);
}

static void hierarchy_scenario_key_sets_the_default(void **state) {
    (void)state;
    zc_skip_unless_fake();
    static const char yaml[] = "schema: 1\nname: composite\ndevice_hierarchy: composite\ndevices:\n"
                               "  - {name: card, type: gpu, device_id: 0x1, subdevices: 2}\n";
    char path[256];
    snprintf(path, sizeof path, "/tmp/zc-hierarchy-%d.yaml", (int)getpid());
    FILE *file = fopen(path, "w");
    assert_non_null(file);
    fputs(yaml, file);
    fclose(file);
    zc_seen by_key = zc_see_in(path, "ZE_FLAT_DEVICE_HIERARCHY", NULL);
    zc_seen by_env = zc_see_in(path, "ZE_FLAT_DEVICE_HIERARCHY=FLAT", NULL);
    unlink(path);
    assert_int_equal(zc_child_number(&by_key.child, "roots"), 1);
    assert_int_equal(zc_child_number(&by_key.child, "r0.subs"), 2);
    assert_int_equal(zc_child_number(&by_env.child, "roots"), 2); /* the variable overrides the scenario */
    zc_seen_free(&by_env);
    zc_seen_free(&by_key);
}

int main(int argc, char **argv) {
    static const struct CMUnitTest tests[] = {
        cmocka_unit_test(affinity_unset_reports_every_device),
        cmocka_unit_test(affinity_whole_devices),
        cmocka_unit_test(affinity_one_tile_is_a_device),
        cmocka_unit_test(affinity_some_tiles_renumbered),
        cmocka_unit_test(affinity_bad_entries_ignored),
        cmocka_unit_test(affinity_pci_order),
        cmocka_unit_test(affinity_sysman_variable_accepted),
        cmocka_unit_test(affinity_tile_and_whole_device),
        cmocka_unit_test(hierarchy_composite_card_with_tiles),
        cmocka_unit_test(hierarchy_flat_tiles_are_devices),
        cmocka_unit_test(hierarchy_combined_tiles_with_their_card),
        cmocka_unit_test(hierarchy_unknown_value_keeps_the_default),
        cmocka_unit_test(hierarchy_flat_mask_counts_tiles),
        cmocka_unit_test(hierarchy_scenario_key_sets_the_default),
    };
    static const zc_child_mode modes[] = {{"devices", zc_child_devices}};
    static const zc_suite suite = {ZC_EXECUTABLE,     tests, ZC_COUNT(tests), zc_group_setup,
                                   zc_group_teardown, modes, ZC_COUNT(modes)};
    return zc_main(argc, argv, &suite);
}
