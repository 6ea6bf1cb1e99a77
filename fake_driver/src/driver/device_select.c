/* Device selection by the environment (docs/environment.md): ZE_ENABLE_PCI_ID_DEVICE_ORDER=1 orders the root devices
 * by PCI address; ZE_AFFINITY_MASK ("0", "1.1,1.2", "0.2, 1.3, 1.0, 0.3"...) keeps only the devices and tiles it
 * lists, reported in their own order with consecutive ordinals, as the specification describes.
 *
 * Selection rewrites the scenario before any device exists: a device keeping k of its N tiles becomes a device of k
 * tiles (k/N of its slices and memory; no sub-devices when k is 1, the tile itself then being the device), so every
 * query, memory limit and engine agrees with what is visible. The UUIDs keep naming the physical device and tile.
 *
 * ZE_FLAT_DEVICE_HIERARCHY (or the scenario's device_hierarchy) decides what the mask's ordinals count: the cards in
 * COMPOSITE mode, the tiles (each card without tiles counting as one) in FLAT and COMBINED mode, where every tile is
 * a root device; the cards stay the owners of their tiles either way, driver.c only changes what zeDeviceGet lists. */
#include "core/zf_core.h"
#include "driver/zf_driver.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* Per device of the scenario file: selected whole, or the tiles selected. */
typedef struct zf_selection {
    bool whole;
    uint32_t tiles; /* bit per sub-device */
} zf_selection;

static bool zf_pci_before(const zf_scenario_pci *a, const zf_scenario_pci *b) {
    if (a->domain != b->domain)
        return a->domain < b->domain;
    if (a->bus != b->bus)
        return a->bus < b->bus;
    if (a->device != b->device)
        return a->device < b->device;
    return a->function < b->function;
}

/* Stable insertion sort of the devices (16 at most) by PCI address, keeping the permutation in `order`. */
static void zf_sort_by_pci(zf_scenario *s, uint32_t order[]) {
    for (uint32_t i = 1; i < s->num_devices; i++) {
        zf_scenario_device moving = s->devices[i];
        uint32_t moving_index = order[i];
        uint32_t j = i;
        for (; j > 0 && zf_pci_before(&moving.pci, &s->devices[j - 1].pci); j--) {
            s->devices[j] = s->devices[j - 1];
            order[j] = order[j - 1];
        }
        s->devices[j] = moving;
        order[j] = moving_index;
    }
}

static bool zf_pci_order_requested(void) {
    const char *value = getenv("ZE_ENABLE_PCI_ID_DEVICE_ORDER");
    if (value == NULL || value[0] == '\0' || strcmp(value, "0") == 0)
        return false;
    if (strcmp(value, "1") == 0)
        return true;
    zf_log(ZF_LOG_WARN, "ZE_ENABLE_PCI_ID_DEVICE_ORDER=%s is neither 0 nor 1; the order is left unchanged", value);
    return false;
}

/* Reads a decimal number; false when there is none or it is too large. */
static bool zf_read_number(const char **text, uint32_t *out) {
    const char *p = *text;
    if (!isdigit((unsigned char)*p))
        return false;
    uint64_t value = 0;
    while (isdigit((unsigned char)*p)) {
        value = value * 10 + (uint64_t)(*p++ - '0');
        if (value > UINT32_MAX)
            return false;
    }
    *text = p;
    *out = (uint32_t)value;
    return true;
}

/* Parses one entry, "D" or "D.S" with blanks around; false when malformed. sub is UINT32_MAX for a whole device. */
static bool zf_parse_entry(const char *entry, uint32_t *device, uint32_t *sub) {
    while (isspace((unsigned char)*entry))
        entry++;
    *sub = UINT32_MAX;
    if (!zf_read_number(&entry, device))
        return false;
    if (*entry == '.') {
        entry++;
        if (!zf_read_number(&entry, sub))
            return false;
    }
    while (isspace((unsigned char)*entry))
        entry++;
    return *entry == '\0';
}

/* FLAT and COMBINED ordinals count tiles: flat device `flat` is tile `*sub` of card `*device` (UINT32_MAX for a card
 * without tiles, which is a device of its own); false when there is no such device. */
static bool zf_flat_to_card(const zf_scenario *s, uint32_t flat, uint32_t *device, uint32_t *sub) {
    for (uint32_t d = 0; d < s->num_devices; d++) {
        uint32_t tiles = s->devices[d].num_subdevices;
        uint32_t count = tiles > 0 ? tiles : 1;
        if (flat < count) {
            *device = d;
            *sub = tiles > 0 ? flat : UINT32_MAX;
            return true;
        }
        flat -= count;
    }
    return false;
}

/* Turns a FLAT or COMBINED entry into the card and tile it names; false (reported) when it names none. A flat device
 * has no sub-devices, so only `<device>.0` (the device itself) is accepted besides `<device>`. */
static bool zf_flat_entry(const zf_scenario *s, uint32_t *device, uint32_t *sub) {
    uint32_t flat = *device;
    if (*sub != UINT32_MAX && *sub != 0) {
        zf_log(ZF_LOG_WARN,
               "ZE_AFFINITY_MASK: device %u has no sub-devices in the FLAT/COMBINED hierarchy, not %u.%u; "
               "ignored",
               flat, flat, *sub);
        return false;
    }
    if (!zf_flat_to_card(s, flat, device, sub)) {
        zf_log(ZF_LOG_WARN, "ZE_AFFINITY_MASK: there is no device %u in the FLAT/COMBINED hierarchy; ignored", flat);
        return false;
    }
    return true;
}

/* Records one entry; an entry naming no device of the system is reported and ignored. */
static void zf_select_entry(const zf_scenario *s, bool flat, const char *entry, zf_selection *selected) {
    uint32_t device = 0, sub = 0;
    if (!zf_parse_entry(entry, &device, &sub)) {
        zf_log(ZF_LOG_WARN, "ZE_AFFINITY_MASK: '%s' is not <device> or <device>.<sub-device>; ignored", entry);
        return;
    }
    if (flat && !zf_flat_entry(s, &device, &sub))
        return;
    if (device >= s->num_devices) {
        zf_log(ZF_LOG_WARN, "ZE_AFFINITY_MASK: there is no device %u (the system has %u); ignored", device,
               s->num_devices);
        return;
    }
    uint32_t tiles = s->devices[device].num_subdevices;
    if (sub == UINT32_MAX || (tiles == 0 && sub == 0)) {
        selected[device].whole = true; /* a device without sub-devices is its own only tile */
        return;
    }
    if (sub >= tiles) {
        zf_log(ZF_LOG_WARN, "ZE_AFFINITY_MASK: device %u has %u sub-devices, not %u.%u; ignored", device, tiles, device,
               sub);
        return;
    }
    selected[device].tiles |= 1u << sub;
}

/* Splits the mask at commas; false when it is unset or empty (everything is visible). */
static bool zf_parse_mask(const zf_scenario *s, bool flat, zf_selection *selected) {
    const char *mask = getenv("ZE_AFFINITY_MASK");
    if (mask == NULL || mask[0] == '\0')
        return false;
    char *copy = strdup(mask);
    if (copy == NULL) {
        zf_log(ZF_LOG_ERROR, "ZE_AFFINITY_MASK: out of host memory; the mask is ignored");
        return false;
    }
    char *save = NULL;
    for (char *entry = strtok_r(copy, ",", &save); entry != NULL; entry = strtok_r(NULL, ",", &save))
        zf_select_entry(s, flat, entry, selected);
    free(copy);
    return true;
}

/* A device reduced to k of its N tiles: each tile keeps 1/N of the slices, the memory and its bandwidth. */
static void zf_keep_tiles(zf_scenario_device *d, uint32_t mask, zf_device_origin *origin) {
    uint32_t n = d->num_subdevices, k = 0;
    for (uint32_t t = 0; t < n; t++) {
        if (mask & (1u << t))
            origin->tiles[k++] = (uint8_t)t;
    }
    origin->num_tiles = k;
    if (k == n)
        return;
    d->topology.slices = d->topology.slices / n * k;
    for (uint32_t m = 0; m < d->num_memories; m++)
        d->memories[m].total_size_bytes = d->memories[m].total_size_bytes / n * k;
    d->performance.memory_bandwidth_gbps = d->performance.memory_bandwidth_gbps / n * k;
    d->num_subdevices = k > 1 ? k : 0;
}

static void zf_whole_origin(const zf_scenario_device *d, zf_device_origin *origin) {
    origin->num_tiles = d->num_subdevices;
    for (uint32_t t = 0; t < d->num_subdevices; t++)
        origin->tiles[t] = (uint8_t)t;
}

/* ZE_FLAT_DEVICE_HIERARCHY as Intel's driver spells it, or the scenario's choice when unset. */
static zf_device_hierarchy zf_hierarchy_requested(zf_device_hierarchy fallback) {
    static const char *const names[] = {
        [ZF_HIERARCHY_FLAT] = "FLAT", [ZF_HIERARCHY_COMPOSITE] = "COMPOSITE", [ZF_HIERARCHY_COMBINED] = "COMBINED"};
    const char *value = getenv("ZE_FLAT_DEVICE_HIERARCHY");
    if (value == NULL || value[0] == '\0')
        return fallback;
    for (uint32_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (strcmp(value, names[i]) == 0)
            return (zf_device_hierarchy)i;
    }
    zf_log(ZF_LOG_WARN, "ZE_FLAT_DEVICE_HIERARCHY=%s is not FLAT, COMPOSITE or COMBINED; the scenario's %s is used",
           value, names[fallback]);
    return fallback;
}

void zf_device_select(zf_driver *driver) {
    zf_scenario *s = &driver->scenario;
    driver->hierarchy = zf_hierarchy_requested(s->device_hierarchy);
    uint32_t order[ZF_SCENARIO_MAX_DEVICES];
    for (uint32_t i = 0; i < s->num_devices; i++)
        order[i] = i;
    if (zf_pci_order_requested())
        zf_sort_by_pci(s, order);
    zf_selection selected[ZF_SCENARIO_MAX_DEVICES] = {0};
    bool masked = zf_parse_mask(s, driver->hierarchy != ZF_HIERARCHY_COMPOSITE, selected);
    uint32_t kept = 0;
    for (uint32_t i = 0; i < s->num_devices; i++) {
        if (masked && !selected[i].whole && selected[i].tiles == 0)
            continue;
        zf_device_origin *origin = &driver->origins[kept];
        *origin = (zf_device_origin){.index = order[i], .physical_tiles = s->devices[i].num_subdevices};
        s->devices[kept] = s->devices[i];
        if (masked && !selected[i].whole)
            zf_keep_tiles(&s->devices[kept], selected[i].tiles, origin);
        else
            zf_whole_origin(&s->devices[kept], origin);
        kept++;
    }
    if (masked)
        zf_log(ZF_LOG_INFO, "ZE_AFFINITY_MASK=%s: %u of %u device(s) visible", getenv("ZE_AFFINITY_MASK"), kept,
               s->num_devices);
    s->num_devices = kept;
}
