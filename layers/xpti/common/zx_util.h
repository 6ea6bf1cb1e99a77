/* Small containers shared by the dispatcher and the emitter (each links its own copy): a hash map from 64-bit keys
 * to non-NULL pointers, and a growable array of pointers. Neither locks: their users hold their own locks. */
#ifndef ZX_UTIL_H
#define ZX_UTIL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ZX_COUNT(array) (sizeof(array) / sizeof((array)[0]))

/* Open addressing with linear probing; a slot is free when its value is NULL. */
typedef struct zx_map {
    uint64_t *keys;
    void **values;
    size_t capacity; /* a power of two, or 0 */
    size_t count;
} zx_map;

/* The value stored under key, or NULL. */
void *zx_map_get(const zx_map *map, uint64_t key);

/* Stores value (not NULL) under key, replacing any previous one. False when out of memory (nothing changes). */
bool zx_map_put(zx_map *map, uint64_t key, void *value);

/* Removes key; returns the value it had, or NULL. */
void *zx_map_remove(zx_map *map, uint64_t key);

/* Iterates: start with *pos = 0; returns false after the last entry. The map must not change meanwhile. */
bool zx_map_next(const zx_map *map, size_t *pos, uint64_t *key, void **value);

void zx_map_clear(zx_map *map);
void zx_map_free(zx_map *map);

/* A 64-bit mix of a key (splitmix64's finaliser); also used to combine hashes. */
uint64_t zx_mix64(uint64_t x);

/* FNV-1a of a string, mixed. */
uint64_t zx_hash_string(const char *text);

typedef struct zx_vec {
    void **items;
    size_t count;
    size_t capacity;
} zx_vec;

/* Appends; false when out of memory. */
bool zx_vec_push(zx_vec *vec, void *item);

/* Removes the item at index, keeping the order of the others. */
void zx_vec_remove_at(zx_vec *vec, size_t index);

void zx_vec_free(zx_vec *vec);

/* An insert-only set of 64-bit keys (not 0) that readers query without a lock while writers, one at a time (under
 * their own lock), add keys. A table more than half full is replaced by one twice its size; replaced tables stay
 * until zx_cset_free, so a reader still probing one never meets freed memory (together they take less room than the
 * current one). */
typedef struct zx_cset_table {
    size_t mask;
    struct zx_cset_table *older;
    _Atomic uint64_t slots[];
} zx_cset_table;

typedef struct zx_cset {
    _Atomic(zx_cset_table *) table;
    size_t count; /* the writers' */
} zx_cset;

/* Whether key was added; lock-free, safe against a concurrent zx_cset_add. */
bool zx_cset_contains(const zx_cset *set, uint64_t key);

/* Adds key (true when it was there already); false for 0 or out of memory. Writers serialise among themselves. */
bool zx_cset_add(zx_cset *set, uint64_t key);

void zx_cset_free(zx_cset *set);

#endif
