/* Unit test of the emitter's and dispatcher's containers (common/zx_util.c): random puts, replacements and removals
 * on the map, checked against a plain array after every step (removal shifts entries back, the part that is easy to
 * get wrong), with keys chosen to collide; the vector's ordered removal; and the concurrent set, added to by one
 * thread while another finds every key published so far and none other. Exits non-zero at the first mismatch. */
#include "zx_util.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define KEYS  512
#define STEPS 200000

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static int check_map(const zx_map *map, void *const *expected) {
    size_t live = 0;
    for (uint64_t k = 0; k < KEYS; k++) {
        live += expected[k] != NULL;
        if (zx_map_get(map, k * 4096) != expected[k]) {
            fprintf(stderr, "test_zx_util: key %llu: got %p, expected %p\n", (unsigned long long)k,
                    zx_map_get(map, k * 4096), expected[k]);
            return 1;
        }
    }
    size_t seen = 0, pos = 0;
    uint64_t key;
    void *value;
    while (zx_map_next(map, &pos, &key, &value))
        seen++;
    if (seen != live || map->count != live) {
        fprintf(stderr, "test_zx_util: %zu entries iterated, count %zu, expected %zu\n", seen, map->count, live);
        return 1;
    }
    return 0;
}

static int test_map(void) {
    static void *expected[KEYS];
    zx_map map = {0};
    for (int step = 0; step < STEPS; step++) {
        uint64_t k = rng() % KEYS; /* keys k * 4096: the same low bits, so probe runs form */
        void *value = (void *)(uintptr_t)(rng() | 1);
        if (rng() % 3 == 0) {
            if (zx_map_remove(&map, k * 4096) != expected[k])
                return 1;
            expected[k] = NULL;
        } else {
            if (!zx_map_put(&map, k * 4096, value))
                return 1;
            expected[k] = value;
        }
        if (step % 997 == 0 && check_map(&map, expected) != 0)
            return 1;
    }
    int failed = check_map(&map, expected);
    zx_map_clear(&map);
    failed |= zx_map_get(&map, 0) != NULL || map.count != 0;
    failed |= zx_map_put(&map, 1, NULL); /* NULL values are refused */
    zx_map_free(&map);
    return failed;
}

static int test_vec(void) {
    zx_vec vec = {0};
    for (uintptr_t i = 1; i <= 100; i++) {
        if (!zx_vec_push(&vec, (void *)i))
            return 1;
    }
    zx_vec_remove_at(&vec, 0);
    zx_vec_remove_at(&vec, 50);
    zx_vec_remove_at(&vec, 500); /* out of range: nothing */
    int failed = vec.count != 98 || vec.items[0] != (void *)2 || vec.items[49] != (void *)51 ||
                 vec.items[50] != (void *)53 || vec.items[97] != (void *)100;
    zx_vec_free(&vec);
    return failed;
}

#define CSET_KEYS 20000

static zx_cset cset;
static atomic_ulong cset_published; /* keys 1..cset_published were added */

/* Keys k * 4096 (colliding low bits); every published key is there, an odd key never is. */
static void *cset_reader(void *arg) {
    (void)arg;
    uintptr_t failures = 0;
    unsigned long upto = 0;
    while (upto < CSET_KEYS) {
        upto = atomic_load_explicit(&cset_published, memory_order_acquire);
        for (unsigned long k = upto > 64 ? upto - 64 : 1; k <= upto; k++)
            failures += !zx_cset_contains(&cset, k * 4096);
        failures += zx_cset_contains(&cset, upto * 4096 + 1);
    }
    return (void *)failures;
}

static int test_cset(void) {
    pthread_t reader;
    if (pthread_create(&reader, NULL, cset_reader, NULL) != 0)
        return 1;
    int failed = 0;
    for (unsigned long k = 1; k <= CSET_KEYS; k++) {
        failed |= !zx_cset_add(&cset, k * 4096);
        atomic_store_explicit(&cset_published, k, memory_order_release);
    }
    void *reader_failures;
    pthread_join(reader, &reader_failures);
    failed |= reader_failures != NULL;
    failed |= !zx_cset_add(&cset, 4096) || cset.count != CSET_KEYS; /* already there: no second copy */
    failed |= zx_cset_add(&cset, 0) || zx_cset_contains(&cset, 0);
    for (unsigned long k = 1; k <= CSET_KEYS; k++)
        failed |= !zx_cset_contains(&cset, k * 4096);
    zx_cset_free(&cset);
    failed |= zx_cset_contains(&cset, 4096);
    if (failed)
        fprintf(stderr, "test_zx_util: the concurrent set lost or invented a key\n");
    return failed;
}

int main(void) {
    int failed = test_map() | test_vec() | test_cset();
    puts(failed ? "test_zx_util: FAILED" : "test_zx_util: map, vector and concurrent set behave");
    return failed;
}
