/* The card's shared segment (core/zf_shared.h) on its own: work a process publishes is another process's to every
 * other one, a child of fork() included, and never its own. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "core/zf_shared.h"

#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

static zf_shared_work zt_work(uint64_t start_ns) {
    return (zf_shared_work){.start_ns = start_ns, .end_ns = start_ns + 100};
}

/* In the child: publishes one entry and checks that its own entry is not another process's; exits 0 when so. */
static void zt_child_publishes(zf_card_share *shared) {
    uint64_t seq = zf_shared_next_seq(shared);
    zf_shared_work w = zt_work(2000), seen[4];
    zf_shared_publish(shared, &w);
    _exit(zf_shared_collect(shared, &seq, seen, 4) == 0 ? 0 : 1);
}

static void work_of_a_forked_child_is_another_process_s(void **state) {
    (void)state;
    char instance[64];
    snprintf(instance, sizeof instance, "zt-shared-%ld", (long)getpid());
    const uint8_t key[16] = {0x7a, 0x74};
    zf_card_share *shared = zf_shared_attach(instance, key);
    assert_non_null(shared);
    uint64_t seq = zf_shared_next_seq(shared);
    zf_shared_work mine = zt_work(1000), seen[4];
    zf_shared_publish(shared, &mine);
    assert_int_equal(zf_shared_collect(shared, &seq, seen, 4), 0); /* its own work */
    fflush(NULL);
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0)
        zt_child_publishes(shared);
    int status = 0;
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_int_equal(zf_shared_collect(shared, &seq, seen, 4), 1);
    assert_int_equal(seen[0].pid, child);
    assert_int_equal(seen[0].start_ns, 2000);
}

static int zt_detach(void **state) {
    (void)state;
    zf_shared_detach_all(); /* the segment goes with its last process, here even when a check failed */
    return 0;
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(work_of_a_forked_child_is_another_process_s, zt_detach),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
