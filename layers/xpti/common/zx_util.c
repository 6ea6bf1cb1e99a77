/* Containers of zx_util.h. The map deletes by shifting later entries of the probe run back (no tombstones), so a
 * long-running emitter that creates and destroys handles forever never needs a rebuild. */
#include "zx_util.h"

#include <stdlib.h>
#include <string.h>

uint64_t zx_mix64(uint64_t x) {
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    x ^= x >> 31;
    return x;
}

uint64_t zx_hash_string(const char *text) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (const unsigned char *p = (const unsigned char *)text; *p != '\0'; p++) {
        h ^= *p;
        h *= 0x100000001b3ull;
    }
    return zx_mix64(h);
}

static size_t zx_map_home(const zx_map *map, uint64_t key) {
    return (size_t)zx_mix64(key) & (map->capacity - 1);
}

/* The slot holding key, or the free slot where it would go. The map must have a free slot. */
static size_t zx_map_find(const zx_map *map, uint64_t key) {
    size_t mask = map->capacity - 1;
    size_t i = zx_map_home(map, key);
    while (map->values[i] != NULL && map->keys[i] != key)
        i = (i + 1) & mask;
    return i;
}

void *zx_map_get(const zx_map *map, uint64_t key) {
    if (map->count == 0)
        return NULL;
    return map->values[zx_map_find(map, key)];
}

static bool zx_map_grow(zx_map *map) {
    size_t capacity = map->capacity != 0 ? 2 * map->capacity : 16;
    zx_map bigger = {calloc(capacity, sizeof(uint64_t)), calloc(capacity, sizeof(void *)), capacity, 0};
    if (bigger.keys == NULL || bigger.values == NULL) {
        zx_map_free(&bigger);
        return false;
    }
    for (size_t i = 0; i < map->capacity; i++) {
        if (map->values[i] == NULL)
            continue;
        size_t slot = zx_map_find(&bigger, map->keys[i]);
        bigger.keys[slot] = map->keys[i];
        bigger.values[slot] = map->values[i];
        bigger.count++;
    }
    zx_map_free(map);
    *map = bigger;
    return true;
}

bool zx_map_put(zx_map *map, uint64_t key, void *value) {
    if (value == NULL)
        return false;
    /* Kept at most 3/4 full, so probe runs stay short and a free slot always exists. */
    if (4 * (map->count + 1) > 3 * map->capacity && !zx_map_grow(map))
        return false;
    size_t slot = zx_map_find(map, key);
    if (map->values[slot] == NULL)
        map->count++;
    map->keys[slot] = key;
    map->values[slot] = value;
    return true;
}

void *zx_map_remove(zx_map *map, uint64_t key) {
    if (map->count == 0)
        return NULL;
    size_t mask = map->capacity - 1;
    size_t hole = zx_map_find(map, key);
    void *old = map->values[hole];
    if (old == NULL)
        return NULL;
    map->values[hole] = NULL;
    map->count--;
    /* Moves back every later entry of the run whose home is not between the hole and its slot. */
    for (size_t i = (hole + 1) & mask; map->values[i] != NULL; i = (i + 1) & mask) {
        size_t home = zx_map_home(map, map->keys[i]);
        bool stays = hole <= i ? (hole < home && home <= i) : (hole < home || home <= i);
        if (stays)
            continue;
        map->keys[hole] = map->keys[i];
        map->values[hole] = map->values[i];
        map->values[i] = NULL;
        hole = i;
    }
    return old;
}

bool zx_map_next(const zx_map *map, size_t *pos, uint64_t *key, void **value) {
    for (size_t i = *pos; i < map->capacity; i++) {
        if (map->values[i] == NULL)
            continue;
        *key = map->keys[i];
        *value = map->values[i];
        *pos = i + 1;
        return true;
    }
    return false;
}

void zx_map_clear(zx_map *map) {
    if (map->capacity != 0)
        memset(map->values, 0, map->capacity * sizeof(void *));
    map->count = 0;
}

void zx_map_free(zx_map *map) {
    free(map->keys);
    free(map->values);
    *map = (zx_map){0};
}

bool zx_vec_push(zx_vec *vec, void *item) {
    if (vec->count == vec->capacity) {
        size_t capacity = vec->capacity != 0 ? 2 * vec->capacity : 8;
        void **items = realloc(vec->items, capacity * sizeof(void *));
        if (items == NULL)
            return false;
        vec->items = items;
        vec->capacity = capacity;
    }
    vec->items[vec->count++] = item;
    return true;
}

void zx_vec_remove_at(zx_vec *vec, size_t index) {
    if (index >= vec->count)
        return;
    memmove(&vec->items[index], &vec->items[index + 1], (vec->count - index - 1) * sizeof(void *));
    vec->count--;
}

void zx_vec_free(zx_vec *vec) {
    free(vec->items);
    *vec = (zx_vec){0};
}

/* ------------------------------------------------------------------------------------------------------------------
 * The insert-only concurrent set */

static zx_cset_table *zx_cset_table_new(size_t capacity) {
    zx_cset_table *table = calloc(1, sizeof *table + capacity * sizeof(_Atomic uint64_t));
    if (table != NULL)
        table->mask = capacity - 1;
    return table;
}

/* The slot holding key, or the empty slot where it goes; the table always has an empty slot. */
static _Atomic uint64_t *zx_cset_slot(const zx_cset_table *table, uint64_t key) {
    size_t i = (size_t)zx_mix64(key) & table->mask;
    for (;;) {
        _Atomic uint64_t *slot = (_Atomic uint64_t *)&table->slots[i];
        uint64_t held = atomic_load_explicit(slot, memory_order_acquire);
        if (held == key || held == 0)
            return slot;
        i = (i + 1) & table->mask;
    }
}

bool zx_cset_contains(const zx_cset *set, uint64_t key) {
    const zx_cset_table *table = atomic_load_explicit((_Atomic(zx_cset_table *) *)&set->table, memory_order_acquire);
    if (table == NULL || key == 0)
        return false;
    return atomic_load_explicit(zx_cset_slot(table, key), memory_order_acquire) == key;
}

/* A twice bigger table holding every key, published once complete; the old one is kept (readers may be in it). */
static zx_cset_table *zx_cset_grow(zx_cset *set, zx_cset_table *old) {
    zx_cset_table *table = zx_cset_table_new(old != NULL ? 2 * (old->mask + 1) : 64);
    if (table == NULL)
        return NULL;
    for (size_t i = 0; old != NULL && i <= old->mask; i++) {
        uint64_t key = atomic_load_explicit(&old->slots[i], memory_order_relaxed);
        if (key != 0)
            atomic_store_explicit(zx_cset_slot(table, key), key, memory_order_relaxed);
    }
    table->older = old;
    atomic_store_explicit(&set->table, table, memory_order_release);
    return table;
}

bool zx_cset_add(zx_cset *set, uint64_t key) {
    if (key == 0)
        return false;
    zx_cset_table *table = atomic_load_explicit(&set->table, memory_order_relaxed);
    if (table != NULL && atomic_load_explicit(zx_cset_slot(table, key), memory_order_relaxed) == key)
        return true;
    if (table == NULL || 2 * (set->count + 1) > table->mask + 1)
        table = zx_cset_grow(set, table);
    if (table == NULL)
        return false;
    atomic_store_explicit(zx_cset_slot(table, key), key, memory_order_release);
    set->count++;
    return true;
}

void zx_cset_free(zx_cset *set) {
    zx_cset_table *table = atomic_load_explicit(&set->table, memory_order_relaxed);
    while (table != NULL) {
        zx_cset_table *older = table->older;
        free(table);
        table = older;
    }
    atomic_store_explicit(&set->table, NULL, memory_order_relaxed);
    set->count = 0;
}
