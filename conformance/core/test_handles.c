/* Conformance: handles that are not live objects of the right type. The specification leaves a destroyed or foreign
 * handle undefined; zefake promises ZE_RESULT_ERROR_INVALID_NULL_HANDLE for each (README "Supported API": every handle
 * is checked to be a live object of the right type), so these cases run on the fake only. */
#include "zc_exec.h"

#include <stdint.h>
#include <string.h>

#define ZC_CYCLES 100000

/* A destroyed event stays invalid however many events are created and destroyed after it, including ones that get
 * its address again; the live events of the same pool keep working meanwhile. */
static void handle_stale_after_many_cycles(void **state) {
    zc_skip_unless_fake();
    zc_exec *x = *state;
    ze_event_pool_handle_t pool = zc_event_pool(x, 2, 0);
    ze_event_handle_t keeper = zc_event(pool, 1);
    ze_event_handle_t first = zc_event(pool, 0);
    zc_assert_success(zeEventDestroy(first));
    ze_event_handle_t last = NULL;
    for (int i = 0; i < ZC_CYCLES; i++) {
        last = zc_event(pool, 0);
        zc_assert_success(zeEventDestroy(last));
        if (last != first)
            zc_assert_result(zeEventQueryStatus(first), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    }
    zc_assert_result(zeEventQueryStatus(first), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zeEventHostSignal(last), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zeEventDestroy(last), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_success(zeEventHostSignal(keeper));
    zc_assert_success(zeEventQueryStatus(keeper));
    zc_assert_success(zeEventDestroy(keeper));
    zc_assert_success(zeEventPoolDestroy(pool));
}

/* Live handles of other types, the middle of a live object, and a copy of a live object's bytes elsewhere. */
static void handle_wrong_type_or_forged(void **state) {
    zc_skip_unless_fake();
    zc_exec *x = *state;
    ze_event_pool_handle_t pool = zc_event_pool(x, 1, 0);
    ze_event_handle_t event = zc_event(pool, 0);
    zc_assert_result(zeEventQueryStatus((ze_event_handle_t)pool), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zeEventQueryStatus((ze_event_handle_t)x->context), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zeEventQueryStatus((ze_event_handle_t)x->device), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zeEventPoolDestroy((ze_event_pool_handle_t)event), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zeContextGetStatus((ze_context_handle_t)event), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zeEventQueryStatus((ze_event_handle_t)((uintptr_t)event + 8)),
                     ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    uint8_t forged[256] __attribute__((aligned(16)));
    memcpy(forged, (const void *)event, 32); /* the header of a live event, at an address that is no event */
    zc_assert_result(zeEventQueryStatus((ze_event_handle_t)forged), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zeEventQueryStatus(event), ZE_RESULT_NOT_READY);
    zc_assert_success(zeEventDestroy(event));
    zc_assert_success(zeEventPoolDestroy(pool));
}

/* Addresses that were never objects: odd, the top of the address space, kernel space, the stack, low numbers. */
static void handle_random_pointers(void **state) {
    zc_skip_unless_fake();
    (void)state;
    int local = 0;
    const uintptr_t bogus[] = {1,
                               8,
                               4096,
                               0x10000,
                               (uintptr_t)&local,
                               (uintptr_t)&local + 3,
                               (uintptr_t)1 << 47,
                               (uintptr_t)0xFFFF800000000000ull,
                               UINTPTR_MAX,
                               UINTPTR_MAX - 7};
    for (size_t i = 0; i < ZC_COUNT(bogus); i++) {
        zc_assert_result(zeEventQueryStatus((ze_event_handle_t)bogus[i]), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
        zc_assert_result(zeContextGetStatus((ze_context_handle_t)bogus[i]), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    }
}

int main(int argc, char **argv) {
#define ZC_FIXTURE exec
    static const struct CMUnitTest tests[] = {
        ZC_T(handle_stale_after_many_cycles),
        ZC_T(handle_wrong_type_or_forged),
        ZC_T(handle_random_pointers),
    };
    static const zc_suite suite = {ZC_EXECUTABLE, tests, ZC_COUNT(tests), zc_setup_system, zc_teardown_system, NULL, 0};
    return zc_main(argc, argv, &suite);
}
