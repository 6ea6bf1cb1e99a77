/* Conformance (fake only): device selection by the environment. Child processes run with ZE_AFFINITY_MASK,
 * ZE_ENABLE_PCI_ID_DEVICE_ORDER or ZES_ENABLE_SYSMAN on a scenario of two cards of four tiles each, whose PCI
 * addresses are in the reverse order of the file, and report the devices they see; the masks are the examples of the
 * specification (PROG.rst, "Affinity Mask"). Devices are recognised by their UUIDs, which name the physical device
 * and tile wherever the mask puts them (docs/environment.md). */
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
        for (uint32_t s = 0; s < subs; s++) {
            snprintf(key, sizeof key, "r%u.s%u", r, s);
            zc_print_device(sub[s], key);
        }
    }
    return 0;
}

/* ------------------------------------------------------------------------------------------------------------------
 * The parent: what a mask must show */

typedef struct zc_seen {
    zc_child child;
} zc_seen;

/* Runs the child with the scenario and the given environment changes (NULL-terminated, up to 4). */
static zc_seen zc_see(const char *const changes[]) {
    char scenario[300];
    snprintf(scenario, sizeof scenario, "ZEFAKE_SCENARIO=%s", zc_scenario_path);
    const char *env[8] = {scenario, "ZE_AFFINITY_MASK", "ZE_ENABLE_PCI_ID_DEVICE_ORDER", "ZES_ENABLE_SYSMAN"};
    size_t n = 4;
    for (size_t i = 0; changes != NULL && changes[i] != NULL && n < 7; i++)
        env[n++] = changes[i];
    env[n] = NULL;
    zc_seen seen;
    if (!zc_run_child_mode("devices", NULL, env, ZC_CHILD_TIMEOUT_MS, &seen.child))
        zc_fail("cannot start the child process");
    zc_assert_child_ok(&seen.child, "the enumerating process");
    return seen;
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

int main(int argc, char **argv) {
    static const struct CMUnitTest tests[] = {
        cmocka_unit_test(affinity_unset_reports_every_device), cmocka_unit_test(affinity_whole_devices),
        cmocka_unit_test(affinity_one_tile_is_a_device),       cmocka_unit_test(affinity_some_tiles_renumbered),
        cmocka_unit_test(affinity_bad_entries_ignored),        cmocka_unit_test(affinity_pci_order),
        cmocka_unit_test(affinity_sysman_variable_accepted),   cmocka_unit_test(affinity_tile_and_whole_device),
    };
    static const zc_child_mode modes[] = {{"devices", zc_child_devices}};
    static const zc_suite suite = {ZC_EXECUTABLE,     tests, ZC_COUNT(tests), zc_group_setup,
                                   zc_group_teardown, modes, ZC_COUNT(modes)};
    return zc_main(argc, argv, &suite);
}
