/* The conformance harness: what every conformance executable shares.
 *
 * - zc_main runs a suite under cmocka, turns expected failures (conformance/expected/<target>.txt) into tests that
 *   pass when the original test fails in a child process, and summarises the JUnit XML results on stdout so that
 *   ctest --output-on-failure shows why a test failed.
 * - The system fixture initialises Level Zero once per process and enumerates the first driver's devices.
 * - Helpers check count-style queries, name result codes, and run child processes (a fresh process is the only way
 *   to test zeInit failures, other environment variables, or crashes).
 *
 * Tests run against whatever driver the loader gives them (ZC_TARGET names it). Checks that need the fake driver's
 * knowledge call zc_skip_unless_fake() first. */
#ifndef ZC_HARNESS_H
#define ZC_HARNESS_H

/* cmocka.h needs these before it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <level_zero/ze_api.h>
#include <stdbool.h>
#include <zefake/zefake_ext.h>

#include "zc_ddi.h" /* generated from the headers (fake_driver/gen/zfgen.py) */

#define ZC_COUNT(array) (sizeof(array) / sizeof((array)[0]))

/* How long a child process may run before the harness kills it. ctest gives a whole executable 60 s. */
#define ZC_CHILD_TIMEOUT_MS 20000u

/* ------------------------------------------------------------------------------------------------------------------
 * Running a suite */

/* A mode of the executable for re-executed children: `<exe> --zc-child <name> [args...]` calls run(argc, argv) with
 * the arguments after the name; its return value is the exit status. */
typedef struct zc_child_mode {
    const char *name;
    int (*run)(int argc, char **argv);
} zc_child_mode;

typedef struct zc_suite {
    const char *name;               /* the executable's name: expected-failure keys and the XML group */
    const struct CMUnitTest *tests; /* must outlive zc_main (cmocka copies no names) */
    size_t num_tests;
    CMFixtureFunction setup;    /* group setup, may be NULL; its state is not passed to tests */
    CMFixtureFunction teardown; /* group teardown, may be NULL */
    const zc_child_mode *modes; /* may be NULL */
    size_t num_modes;
} zc_suite;

/* The executable's main. Without arguments it runs every test. Other forms:
 *   --list                 print the test names
 *   --filter <pattern>     run the tests matching a cmocka pattern (* and ?)
 *   --zc-run-one <test>    run one test with plain output (used for expected failures)
 *   --zc-child <mode> ...  run a child mode */
int zc_main(int argc, char **argv, const zc_suite *suite);

/* ------------------------------------------------------------------------------------------------------------------
 * Result codes */

/* "ZE_RESULT_ERROR_INVALID_NULL_HANDLE", or "unknown ze_result_t". */
const char *zc_result_name(ze_result_t result);

void zc_assert_result_at(ze_result_t got, ze_result_t expected, const char *call, const char *file, int line);
void zc_assert_error_at(ze_result_t got, const char *call, const char *file, int line);

/* Fails the test with a printf-style message. Unlike cmocka's fail_msg, the message also goes into the JUnit XML. */
void zc_fail_at(const char *file, int line, const char *format, ...) __attribute__((format(printf, 3, 4)));
#define zc_fail(...) zc_fail_at(__FILE__, __LINE__, __VA_ARGS__)

/* Fails the test unless `call` returns `expected`; the message names both codes. */
#define zc_assert_result(call, expected) zc_assert_result_at((call), (expected), #call, __FILE__, __LINE__)
#define zc_assert_success(call)          zc_assert_result(call, ZE_RESULT_SUCCESS)
/* Fails the test if `call` succeeds: for inputs where the spec requires an error but not which one. */
#define zc_assert_error(call) zc_assert_error_at((call), #call, __FILE__, __LINE__)

/* ------------------------------------------------------------------------------------------------------------------
 * The system under test */

typedef struct zc_system {
    ze_driver_handle_t driver; /* the first driver */
    uint32_t num_roots;
    ze_device_handle_t *roots;       /* its root devices */
    uint32_t *num_subdevices;        /* per root device */
    ze_device_handle_t **subdevices; /* per root device */
    uint32_t num_all;
    ze_device_handle_t *all; /* the root devices, then every sub-device */
} zc_system;

/* Group fixture: zeInit(0), the first driver, its devices and sub-devices. Fails the group when there is none. */
int zc_setup_system(void **state);
int zc_teardown_system(void **state);

/* The system of zc_setup_system (asserts that it ran). */
const zc_system *zc_sys(void);

/* Test fixture: *state becomes a context of zc_sys()->driver, destroyed by the teardown. */
int zc_setup_context(void **state);
int zc_teardown_context(void **state);

/* One test with its file's fixture: a file whose tests share one defines ZC_FIXTURE as its name (exec, spirv,
 * context...) before its list of tests, and ZC_T(fn) sets up and tears down each test with zc_setup_<fixture> and
 * zc_teardown_<fixture>. */
#define ZC_T(fn)                 ZC_T_WITH_(fn, ZC_FIXTURE)
#define ZC_T_WITH_(fn, fixture)  ZC_T_WITH__(fn, fixture)
#define ZC_T_WITH__(fn, fixture) cmocka_unit_test_setup_teardown(fn, zc_setup_##fixture, zc_teardown_##fixture)

/* ------------------------------------------------------------------------------------------------------------------
 * The target */

/* ZC_TARGET as set by ctest ("fake", "system", or a driver name), "unknown" when run by hand. */
const char *zc_target(void);

/* True when the first driver advertises ZEFAKE_EXTENSION_NAME. */
bool zc_driver_is_fake(void);

/* For fake-only checks: skips the test on other drivers. When the target is "fake" a missing extension is a failure,
 * so that a broken extension list cannot silently skip every fake-only check. */
void zc_skip_unless_fake(void);

/* A zefake extension function (asserts that the driver hands it out). */
void *zc_fake_function(const char *name);

/* zefakeGetInfo into *info (asserts success). */
void zc_fake_info(zefake_info_t *info);

/* ------------------------------------------------------------------------------------------------------------------
 * Count-style queries: `*pCount == 0` asks for the number, a larger count is corrected, a smaller one limits the
 * items written. */

typedef ze_result_t (*zc_count_fn)(void *ctx, uint32_t *count, void *items);

typedef struct zc_count_query {
    const char *what; /* names the query in messages, e.g. "zeDeviceGet" */
    zc_count_fn call;
    void *ctx; /* passed to call */
    size_t item_size;
    void (*prepare)(void *item); /* sets stype/pNext of an item before the call; NULL for handles */
} zc_count_query;

/* The number of items (asserts success). */
uint32_t zc_count(const zc_count_query *query);

/* All items, in a malloc'ed array the caller frees; *count receives their number (asserts success). */
void *zc_query_all(const zc_count_query *query, uint32_t *count);

/* Checks the count semantics of the spec: zero asks for the number and writes no item; a larger count is corrected
 * and items past the number stay untouched; a smaller count is kept and limits the items written; repeated queries
 * give the same items. */
void zc_check_count_semantics(const zc_count_query *query);

/* ------------------------------------------------------------------------------------------------------------------
 * Functions the loader may lack (zc_api.c)
 *
 * A loader exports the functions of its own version: Debian bookworm's 1.8.12 none of those spec 1.5 to 1.12 added.
 * ZC_API(fn) is `fn` as a test can call it: the loader's export when the loader has one; else the slot of the
 * driver's own dispatch table, loaded as a loader loads it (the driver file ZE_ENABLE_ALT_DRIVERS names, its getters
 * asked with the headers' version), provided the loader hands out the driver's own handles (one driver, no
 * interception), so that handles from the loader may be passed to it; else NULL. */
#define ZC_API(fn) ((__typeof__(&fn))zc_api_resolve(#fn, ZC_SLOT_##fn))
void *zc_api_resolve(const char *name, size_t slot);
/* Skips the test, naming the function, when ZC_API(fn) is NULL. */
#define zc_api_require(fn) zc_api_require_at(ZC_API(fn) != NULL, #fn)
void zc_api_require_at(bool found, const char *name);
/* `fn` from the driver's own dispatch tables even when the loader exports it, NULL when they cannot be used: for calls
 * a loader that predates zesInit refuses, sysman's after zesInit and before zeInit (a newer loader dispatches them),
 * and for a process that uses only handles the driver's tables gave (zeInitDrivers through them, before zeInit). */
#define ZC_DRIVER_API(fn) ((__typeof__(&fn))zc_api_driver_slot(ZC_SLOT_##fn))
void *zc_api_driver_slot(size_t slot);
/* Where ZC_API found `name`: "loader", "driver tables" or "nowhere". */
const char *zc_api_source(const char *name, size_t slot);
/* What a generated caller returns when ZC_API found nothing: no result code has this value. */
#define ZC_API_MISSING ((ze_result_t)0x7ffffffe)

/* ------------------------------------------------------------------------------------------------------------------
 * Child processes */

typedef struct zc_child {
    bool exited; /* ended through exit: exit_code is valid */
    int exit_code;
    int signal;     /* the signal that ended it, 0 when it exited */
    bool timed_out; /* killed by the harness after the timeout */
    char *out;      /* its stdout, NUL-terminated (never NULL after a run) */
    char *err;      /* its stderr */
} zc_child;

/* Environment changes for a child: "NAME=value" sets a variable, "NAME" (no '=') removes it; a later change of the
 * same variable wins. NULL-terminated. */

/* Runs argv (argv[0] is searched in PATH) with the environment changed. False if the process could not be started;
 * otherwise true and *child describes how it ended. */
bool zc_run_command(const char *const argv[], const char *const env[], unsigned timeout_ms, zc_child *child);

/* Runs fn(arg) in a forked copy of this process; its return value is the exit status. For crashes and checks on the
 * current process state; use zc_run_child_mode for a fresh process. */
bool zc_run_function(int (*fn)(void *), void *arg, const char *const env[], unsigned timeout_ms, zc_child *child);

/* Re-executes this executable (/proc/self/exe) with the given arguments (NULL-terminated, may be NULL). */
bool zc_run_self(const char *const args[], const char *const env[], unsigned timeout_ms, zc_child *child);

/* Re-executes this executable in a child mode: `--zc-child <mode> args...`. */
bool zc_run_child_mode(const char *mode, const char *const args[], const char *const env[], unsigned timeout_ms,
                       zc_child *child);

/* zc_run_child_mode with ZEFAKE_SCENARIO naming a temporary file holding `yaml` (removed once the child ended). */
bool zc_run_child_in_scenario(const char *mode, const char *yaml, unsigned timeout_ms, zc_child *child);

void zc_child_free(zc_child *child);

/* True when the child exited with status 0. */
bool zc_child_ok(const zc_child *child);

/* "exit status 1", "signal 11 (Segmentation fault)", "timed out"... */
const char *zc_child_status(const zc_child *child, char *buf, size_t size);

/* Fails the test, showing the child's status and output, unless it exited with status 0. */
void zc_assert_child_ok_at(const zc_child *child, const char *what, const char *file, int line);
#define zc_assert_child_ok(child, what) zc_assert_child_ok_at((child), (what), __FILE__, __LINE__)

/* Children report facts as "key=value" lines on stdout. Copies the value of the first line for `key` into value and
 * returns true, or returns false when there is no such line. */
bool zc_child_value(const zc_child *child, const char *key, char *value, size_t size);

/* The value of `key` as an unsigned number (fails the test when missing or not a number). */
uint64_t zc_child_number(const zc_child *child, const char *key);

/* Bytes as a hexadecimal argument for a child (an IPC handle, say): `text` holds 2 * size + 1 characters. Decoding
 * is false unless `text` is exactly 2 * size hexadecimal digits. */
void zc_hex_encode(const void *bytes, size_t size, char *text);
bool zc_hex_decode(const char *text, void *bytes, size_t size);

/* One message of `size` bytes over a unix socket with descriptor `fd` attached (SCM_RIGHTS), as processes pass memory
 * descriptors; true when all of it was sent. */
bool zc_send_with_fd(int socket_fd, const void *data, size_t size, int fd);
/* Receives such a message of exactly `size` bytes; the descriptor that came with it, or -1. */
int zc_receive_with_fd(int socket_fd, void *data, size_t size);

#endif
