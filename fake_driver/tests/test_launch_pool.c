/* The launch-record pool of a command list (module/zf_kernel.h) on its own: a block given back is the next one taken
 * (so launches in a steady state allocate nothing), blocks come back zeroed, a block given back on another thread (an
 * engine's worker) is reused by the appending thread, and the pool keeps at most ZF_LAUNCH_POOL_KEEP blocks. Leaks at
 * destroy are found by the sanitizer build of this test. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "module/zf_kernel.h"

#include <pthread.h>
#include <string.h>

static void zt_block_given_back_is_taken_again(void **state) {
    (void)state;
    zf_launch_pool *pool = zf_launch_pool_create();
    assert_non_null(pool);
    uint8_t *a = zf_launch_pool_take(pool, 100);
    assert_non_null(a);
    memset(a, 0xAB, 100);
    zf_launch_pool_give(pool, a);
    assert_int_equal(zf_launch_pool_kept(pool), 1);
    uint8_t *b = zf_launch_pool_take(pool, 100);
    assert_ptr_equal(a, b);
    assert_int_equal(zf_launch_pool_kept(pool), 0);
    for (size_t i = 0; i < 100; i++)
        assert_int_equal(b[i], 0);
    zf_launch_pool_give(pool, b);
    zf_launch_pool_destroy(pool); /* with a block kept */
}

static void *zt_give_on_thread(void *arg) {
    void **pair = arg;
    zf_launch_pool_give(pair[0], pair[1]);
    return NULL;
}

static void zt_block_given_back_on_another_thread(void **state) {
    (void)state;
    zf_launch_pool *pool = zf_launch_pool_create();
    void *a = zf_launch_pool_take(pool, ZF_LAUNCH_BLOCK_SIZE);
    void *pair[2] = {pool, a};
    pthread_t thread;
    assert_int_equal(pthread_create(&thread, NULL, zt_give_on_thread, pair), 0);
    pthread_join(thread, NULL);
    assert_ptr_equal(zf_launch_pool_take(pool, ZF_LAUNCH_BLOCK_SIZE), a);
    zf_launch_pool_give(pool, a);
    zf_launch_pool_destroy(pool);
}

static void zt_pool_keeps_a_bounded_number(void **state) {
    (void)state;
    enum { n = ZF_LAUNCH_POOL_KEEP + 40 };
    static void *blocks[n];
    zf_launch_pool *pool = zf_launch_pool_create();
    for (int i = 0; i < n; i++)
        blocks[i] = zf_launch_pool_take(pool, 64);
    for (int i = 0; i < n; i++)
        zf_launch_pool_give(pool, blocks[i]);
    assert_int_equal(zf_launch_pool_kept(pool), ZF_LAUNCH_POOL_KEEP);
    zf_launch_pool_destroy(pool);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(zt_block_given_back_is_taken_again),
        cmocka_unit_test(zt_block_given_back_on_another_thread),
        cmocka_unit_test(zt_pool_keeps_a_bounded_number),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
