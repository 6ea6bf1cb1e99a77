/* The driver's two registration lists on their own: the one list of execution observers (exec/zf_exec.h) takes
 * ZF_MAX_OBSERVERS, refuses one more with an error, and frees an entry when its observer is removed; the zeInit hooks
 * (driver/zf_driver.h) take ZF_MAX_INIT_HOOKS and stop the process on one more instead of dropping it. The table of
 * command kinds (exec/command.c) has an entry for every kind. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "driver/zf_driver.h"
#include "exec/zf_exec.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

static void zt_observe(const zf_work_record *record, void *user_data) {
    (void)record;
    (void)user_data;
}

static void zt_observer_list_is_bounded_and_loud(void **state) {
    (void)state;
    static int users[ZF_MAX_OBSERVERS + 1];
    for (uint32_t i = 0; i < ZF_MAX_OBSERVERS; i++)
        assert_true(zf_engine_add_observer(zt_observe, &users[i]));
    assert_false(zf_engine_add_observer(zt_observe, &users[ZF_MAX_OBSERVERS]));
    zf_engine_remove_observer(zt_observe, &users[3]);
    assert_true(zf_engine_add_observer(zt_observe, &users[ZF_MAX_OBSERVERS]));
    assert_false(zf_engine_add_observer(zt_observe, &users[3]));
    for (uint32_t i = 0; i <= ZF_MAX_OBSERVERS; i++)
        zf_engine_remove_observer(zt_observe, &users[i]);
    assert_true(zf_engine_add_observer(zt_observe, &users[0])); /* all removed: room again */
    zf_engine_remove_observer(zt_observe, &users[0]);
}

static void zt_hook(zf_driver *driver) {
    (void)driver;
}

/* Registers `count` hooks in a child process and returns how it ended. */
static int zt_register_hooks(uint32_t count) {
    pid_t child = fork();
    if (child == 0) {
        for (uint32_t i = 0; i < count; i++)
            zf_driver_on_init(zt_hook);
        _exit(0);
    }
    int status = 0;
    assert_int_equal(waitpid(child, &status, 0), child);
    return status;
}

static void zt_init_hooks_beyond_the_limit_stop_the_load(void **state) {
    (void)state;
    int status = zt_register_hooks(ZF_MAX_INIT_HOOKS);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    status = zt_register_hooks(ZF_MAX_INIT_HOOKS + 1);
    assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
}

/* docs/command-lists.md, "Command kinds": a kind without its entry would run as a barrier. */
static void zt_every_command_kind_has_its_entry(void **state) {
    (void)state;
    for (int kind = 0; kind < ZF_CMD_COUNT; kind++) {
        if (zf_command_kinds[kind].name == NULL)
            fail_msg("command kind %d has no entry in zf_command_kinds", kind);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(zt_observer_list_is_bounded_and_loud),
        cmocka_unit_test(zt_init_hooks_beyond_the_limit_stop_the_load),
        cmocka_unit_test(zt_every_command_kind_has_its_entry),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
