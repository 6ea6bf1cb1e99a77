/* Conformance: API tracing, the contract of the seeds (tools API tracing and the loader's tracing layer), checked
 * against one tracer implementation per executable (ZC_TRACING_TARGET, zc_tracing.h): lifecycle, callback order,
 * instance data, parameters and results, zeInit and enumeration, recursion, changing callbacks while disabled, bad
 * inputs, the layer's own registration and reset functions, and the target itself. Callbacks and tracers under
 * threads are test_tracing_threads.c's. The stock layer's known defects are listed in
 * conformance/expected/tracing-stock.txt.
 *
 * Callbacks that record events run on the main thread only. No test asserts anything about time. */
#include "zc_tracing.h"

#include <dlfcn.h>
#include <layers/zel_tracing_register_cb.h>
#include <loader/ze_loader.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------------------------------------------------
 * Recording callbacks of zeDeviceGetProperties (main thread only) */

typedef struct zc_event {
    int tracer;         /* the recorder's id */
    char kind;          /* 'P' prologue, 'E' epilogue, 'Q' the alternative prologue */
    ze_result_t result; /* the result the callback was given */
    void *instance;     /* *ppTracerInstanceUserData when it was called */
    void *token;        /* what a prologue stored there */
} zc_event;

typedef struct zc_recorder {
    int id;
    unsigned calls;                       /* prologues so far: gives each call its own token */
    ze_device_properties_t *redirect;     /* when set, the prologue puts this in place of the properties pointer */
    ze_device_handle_t prologue_device;   /* the device handle the prologue saw */
    ze_device_properties_t *epilogue_out; /* the properties pointer the epilogue saw */
} zc_recorder;

#define ZC_MAX_EVENTS 64
static zc_event zc_events[ZC_MAX_EVENTS];
static unsigned zc_event_count;
static unsigned zc_events_lost;

static void zc_events_reset(void) {
    zc_event_count = 0;
    zc_events_lost = 0;
}

static void zc_record(zc_recorder *recorder, char kind, ze_result_t result, void **instance) {
    if (zc_event_count == ZC_MAX_EVENTS) {
        zc_events_lost++;
        return;
    }
    zc_event *event = &zc_events[zc_event_count++];
    *event = (zc_event){recorder->id, kind, result, *instance, NULL};
    if (kind == 'E')
        return;
    event->token = (void *)(uintptr_t)(recorder->id * 100000u + ++recorder->calls);
    *instance = event->token;
}

static void ZE_APICALL zc_properties_prologue(ze_device_get_properties_params_t *params, ze_result_t result,
                                              void *user_data, void **instance) {
    zc_recorder *recorder = user_data;
    zc_record(recorder, 'P', result, instance);
    recorder->prologue_device = *params->phDevice;
    if (recorder->redirect != NULL)
        *params->ppDeviceProperties = recorder->redirect;
}

static void ZE_APICALL zc_properties_epilogue(ze_device_get_properties_params_t *params, ze_result_t result,
                                              void *user_data, void **instance) {
    zc_recorder *recorder = user_data;
    zc_record(recorder, 'E', result, instance);
    recorder->epilogue_out = *params->ppDeviceProperties;
}

/* Another prologue, to tell whether a change of callbacks took effect. */
static void ZE_APICALL zc_properties_alternative(ze_device_get_properties_params_t *params, ze_result_t result,
                                                 void *user_data, void **instance) {
    (void)params;
    zc_record(user_data, 'Q', result, instance);
}

static void *zc_recording_tracer(zc_recorder *recorder) {
    ze_callbacks_t prologues = {0}, epilogues = {0};
    prologues.Device.pfnGetPropertiesCb = zc_properties_prologue;
    epilogues.Device.pfnGetPropertiesCb = zc_properties_epilogue;
    return zc_tracer_with(recorder, &prologues, &epilogues);
}

/* Checks the events of `calls` calls made with the tracers `order` enabled in that order: per call, the prologues
 * in order with empty instance slots, then the epilogues in the same order, each seeing its own prologue's token. */
static void zc_check_calls(unsigned calls, const int *order, unsigned n) {
    assert_int_equal(zc_events_lost, 0);
    assert_int_equal(zc_event_count, calls * 2 * n);
    for (unsigned c = 0; c < calls; c++) {
        const zc_event *call = &zc_events[c * 2 * n];
        for (unsigned i = 0; i < n; i++) {
            const zc_event *prologue = &call[i];
            const zc_event *epilogue = &call[n + i];
            if (prologue->kind != 'P' || prologue->tracer != order[i] || epilogue->kind != 'E' ||
                epilogue->tracer != order[i])
                fail_msg("call %u, position %u: got %c%d then %c%d, expected P%d then E%d", c, i, prologue->kind,
                         prologue->tracer, epilogue->kind, epilogue->tracer, order[i], order[i]);
            if (prologue->instance != NULL)
                fail_msg("call %u: tracer %d's instance slot was %p in its prologue, not NULL", c, order[i],
                         prologue->instance);
            if (epilogue->instance != prologue->token)
                fail_msg("call %u: tracer %d's epilogue saw %p, its prologue stored %p", c, order[i],
                         epilogue->instance, prologue->token);
        }
    }
}

/* ------------------------------------------------------------------------------------------------------------------
 * Lifecycle, order, instance data, parameters, results */

static void tracer_created_disabled_keeps_user_data(void **state) {
    (void)state;
    zc_events_reset();
    zc_recorder recorder = {.id = 7};
    void *tracer = zc_recording_tracer(&recorder);
    zc_get_properties();
    assert_int_equal(zc_event_count, 0); /* created disabled */
    zc_assert_success(zc_tr_enable(tracer, true));
    zc_get_properties();
    const int order[] = {7}; /* the id comes through the user data */
    zc_check_calls(1, order, 1);
    zc_tracer_finish(tracer);
    zc_get_properties();
    assert_int_equal(zc_event_count, 2);
}

/* More tracers than implementations are likely to keep in a call's stack frame. */
#define ZC_MANY_TRACERS 6

static void instance_data_per_call_and_tracer(void **state) {
    (void)state;
    zc_events_reset();
    zc_recorder recorders[ZC_MANY_TRACERS];
    void *tracers[ZC_MANY_TRACERS];
    int order[ZC_MANY_TRACERS];
    for (int i = 0; i < ZC_MANY_TRACERS; i++) {
        recorders[i] = (zc_recorder){.id = i + 1};
        order[i] = i + 1;
        tracers[i] = zc_recording_tracer(&recorders[i]);
        zc_assert_success(zc_tr_enable(tracers[i], true));
    }
    for (int i = 0; i < 3; i++)
        zc_get_properties();
    zc_check_calls(3, order, ZC_MANY_TRACERS);
    for (int i = 0; i < ZC_MANY_TRACERS; i++)
        zc_tracer_finish(tracers[i]);
}

static void tracers_run_in_enable_order(void **state) {
    (void)state;
    zc_events_reset();
    zc_recorder r1 = {.id = 1}, r2 = {.id = 2}, r3 = {.id = 3};
    void *t1 = zc_recording_tracer(&r1);
    void *t2 = zc_recording_tracer(&r2);
    void *t3 = zc_recording_tracer(&r3);
    zc_assert_success(zc_tr_enable(t3, true));
    zc_assert_success(zc_tr_enable(t1, true));
    zc_assert_success(zc_tr_enable(t2, true));
    zc_get_properties();
    const int first[] = {3, 1, 2};
    zc_check_calls(1, first, 3);
    /* Enabled again, tracer 1 goes last. */
    zc_assert_success(zc_tr_enable(t1, false));
    zc_assert_success(zc_tr_enable(t1, true));
    zc_events_reset();
    zc_get_properties();
    const int second[] = {3, 2, 1};
    zc_check_calls(1, second, 3);
    zc_tracer_finish(t1);
    zc_tracer_finish(t2);
    zc_tracer_finish(t3);
}

static void epilogue_sees_the_call_result(void **state) {
    (void)state;
    zc_events_reset();
    zc_recorder recorder = {.id = 1};
    void *tracer = zc_recording_tracer(&recorder);
    zc_assert_success(zc_tr_enable(tracer, true));
    zc_assert_result(zeDeviceGetProperties(zc_device(), NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_get_properties();
    zc_tracer_finish(tracer);
    const int order[] = {1};
    zc_check_calls(2, order, 1);
    assert_int_equal(zc_events[0].result, ZE_RESULT_SUCCESS); /* a prologue is given the "current" result */
    assert_string_equal(zc_result_name(zc_events[1].result), zc_result_name(ZE_RESULT_ERROR_INVALID_NULL_POINTER));
    assert_string_equal(zc_result_name(zc_events[3].result), zc_result_name(ZE_RESULT_SUCCESS));
}

static void prologue_changes_reach_the_driver(void **state) {
    (void)state;
    zc_events_reset();
    ze_device_properties_t substitute = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
    zc_recorder recorder = {.id = 1, .redirect = &substitute};
    void *tracer = zc_recording_tracer(&recorder);
    zc_assert_success(zc_tr_enable(tracer, true));
    ze_device_properties_t mine = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
    memset(mine.name, 'x', sizeof mine.name);
    zc_assert_success(zeDeviceGetProperties(zc_device(), &mine));
    zc_tracer_finish(tracer);
    assert_true(substitute.name[0] != '\0'); /* the driver filled the prologue's structure */
    assert_int_equal(mine.name[0], 'x');     /* and not the application's */
    assert_int_equal(mine.name[sizeof mine.name - 1], 'x');
    assert_ptr_equal(recorder.epilogue_out, &substitute);
}

typedef struct zc_count_redirect {
    uint32_t other; /* the count the prologue substitutes for the caller's */
    unsigned prologues;
} zc_count_redirect;

static void ZE_APICALL zc_device_get_redirect(ze_device_get_params_t *params, ze_result_t result, void *user_data,
                                              void **instance) {
    (void)result;
    (void)instance;
    zc_count_redirect *redirect = user_data;
    redirect->prologues++;
    *params->ppCount = &redirect->other;
}

static void prologue_changes_count_pointer(void **state) {
    (void)state;
    zc_count_redirect redirect = {.other = 1234};
    ze_callbacks_t prologues = {0}, epilogues = {0};
    prologues.Device.pfnGetCb = zc_device_get_redirect;
    void *tracer = zc_tracer_with(&redirect, &prologues, &epilogues);
    zc_assert_success(zc_tr_enable(tracer, true));
    /* A count query; under loader intercept the loader walks the caller's array by the caller's count after the
     * call, so the array stays NULL and the count 0 for every target. */
    uint32_t count = 0;
    ze_result_t result = zeDeviceGet(zc_sys()->driver, &count, NULL);
    zc_tracer_finish(tracer);
    zc_assert_success(result);
    assert_true(redirect.prologues >= 1);
    /* The driver answered the prologue's counter; the caller's, which would have become the device count, did not. */
    assert_int_equal(redirect.other, zc_sys()->num_roots);
    assert_int_equal(count, 0);
}

/* Without intercept the driver gets the application's handles; with it, the loader's translation of them. */
static void callbacks_see_the_call_arguments(void **state) {
    (void)state;
    zc_events_reset();
    zc_recorder recorder = {.id = 1};
    void *tracer = zc_recording_tracer(&recorder);
    zc_assert_success(zc_tr_enable(tracer, true));
    zc_get_properties();
    zc_tracer_finish(tracer);
    void *expected = zc_device();
#if ZC_TRACING_TARGET == ZC_TRACING_DRIVER && ZC_TRACING_INTERCEPT
    zc_assert_success(zelLoaderTranslateHandle(ZEL_HANDLE_DEVICE, zc_device(), &expected));
    assert_ptr_not_equal(expected, zc_device());
#endif
    assert_ptr_equal(recorder.prologue_device, expected);
}

/* ------------------------------------------------------------------------------------------------------------------
 * zeInit, enumeration, recursion */

typedef struct zc_api_counts {
    unsigned init[2], driver_get[2], device_get[2], subdevices[2]; /* [0] prologues, [1] epilogues */
} zc_api_counts;

#define ZC_COUNTING_CALLBACK(name, params_t, field, index)                                                             \
    static void ZE_APICALL name(params_t *params, ze_result_t result, void *user_data, void **instance) {              \
        (void)params;                                                                                                  \
        (void)result;                                                                                                  \
        (void)instance;                                                                                                \
        ((zc_api_counts *)user_data)->field[index]++;                                                                  \
    }

ZC_COUNTING_CALLBACK(zc_init_prologue, ze_init_params_t, init, 0)
ZC_COUNTING_CALLBACK(zc_init_epilogue, ze_init_params_t, init, 1)
ZC_COUNTING_CALLBACK(zc_driver_get_prologue, ze_driver_get_params_t, driver_get, 0)
ZC_COUNTING_CALLBACK(zc_driver_get_epilogue, ze_driver_get_params_t, driver_get, 1)
ZC_COUNTING_CALLBACK(zc_device_get_prologue, ze_device_get_params_t, device_get, 0)
ZC_COUNTING_CALLBACK(zc_device_get_epilogue, ze_device_get_params_t, device_get, 1)
ZC_COUNTING_CALLBACK(zc_subdevices_prologue, ze_device_get_sub_devices_params_t, subdevices, 0)
ZC_COUNTING_CALLBACK(zc_subdevices_epilogue, ze_device_get_sub_devices_params_t, subdevices, 1)

/* A layer sees each application call once; a driver sees what the loader makes of it (at least one call). */
static void zc_check_traced(const char *what, const unsigned counts[2]) {
    if (counts[0] != counts[1])
        fail_msg("%s: %u prologues but %u epilogues", what, counts[0], counts[1]);
    if (ZC_LAYER_TARGET ? counts[0] != 1 : counts[0] < 1)
        fail_msg("%s: traced %u times for one call", what, counts[0]);
}

static void init_and_enumeration_traced_after_enabling(void **state) {
    (void)state;
    zc_api_counts counts = {0};
    ze_callbacks_t prologues = {0}, epilogues = {0};
    prologues.Global.pfnInitCb = zc_init_prologue;
    epilogues.Global.pfnInitCb = zc_init_epilogue;
    prologues.Driver.pfnGetCb = zc_driver_get_prologue;
    epilogues.Driver.pfnGetCb = zc_driver_get_epilogue;
    prologues.Device.pfnGetCb = zc_device_get_prologue;
    epilogues.Device.pfnGetCb = zc_device_get_epilogue;
    prologues.Device.pfnGetSubDevicesCb = zc_subdevices_prologue;
    epilogues.Device.pfnGetSubDevicesCb = zc_subdevices_epilogue;
    void *tracer = zc_tracer_with(&counts, &prologues, &epilogues);
    zc_assert_success(zc_tr_enable(tracer, true));
    uint32_t n = 0;
    ze_result_t results[4];
    results[0] = zeInit(0);
    results[1] = zeDriverGet(&n, NULL);
    results[2] = zeDeviceGet(zc_sys()->driver, &n, NULL);
    results[3] = zeDeviceGetSubDevices(zc_device(), &n, NULL);
    zc_tracer_finish(tracer);
    for (int i = 0; i < 4; i++)
        zc_assert_success(results[i]);
    zc_check_traced("zeInit", counts.init);
    zc_check_traced("zeDriverGet", counts.driver_get);
    zc_check_traced("zeDeviceGet", counts.device_get);
    zc_check_traced("zeDeviceGetSubDevices", counts.subdevices);
}

typedef struct zc_nesting {
    zc_api_counts counts; /* first: the counting callbacks take the user data as zc_api_counts */
    unsigned properties[2];
    ze_result_t inner[2];
    ze_device_handle_t device;
} zc_nesting;

static void ZE_APICALL zc_nesting_prologue(ze_device_get_properties_params_t *params, ze_result_t result,
                                           void *user_data, void **instance) {
    (void)params;
    (void)result;
    (void)instance;
    zc_nesting *nesting = user_data;
    nesting->properties[0]++;
    ze_device_properties_t properties = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
    /* The application's handle, not the one in params: under loader intercept a driver's callback sees the driver's
     * handle, which the loader cannot take back. */
    nesting->inner[0] = zeDeviceGetProperties(nesting->device, &properties);
    uint32_t n = 0;
    nesting->inner[1] = zeDeviceGet(zc_sys()->driver, &n, NULL);
}

static void ZE_APICALL zc_nesting_epilogue(ze_device_get_properties_params_t *params, ze_result_t result,
                                           void *user_data, void **instance) {
    (void)params;
    (void)result;
    (void)instance;
    ((zc_nesting *)user_data)->properties[1]++;
}

static void calls_from_callbacks_not_traced(void **state) {
    (void)state;
    zc_nesting nesting = {.device = zc_device()};
    ze_callbacks_t prologues = {0}, epilogues = {0};
    prologues.Device.pfnGetPropertiesCb = zc_nesting_prologue;
    epilogues.Device.pfnGetPropertiesCb = zc_nesting_epilogue;
    prologues.Device.pfnGetCb = zc_device_get_prologue;
    epilogues.Device.pfnGetCb = zc_device_get_epilogue;
    void *tracer = zc_tracer_with(&nesting, &prologues, &epilogues);
    zc_assert_success(zc_tr_enable(tracer, true));
    zc_get_properties();
    unsigned nested_device_get = nesting.counts.device_get[0] + nesting.counts.device_get[1];
    uint32_t n = 0;
    ze_result_t direct = zeDeviceGet(zc_sys()->driver, &n, NULL);
    zc_tracer_finish(tracer);
    zc_assert_success(nesting.inner[0]);
    zc_assert_success(nesting.inner[1]);
    zc_assert_success(direct);
    assert_int_equal(nesting.properties[0], 1); /* the inner zeDeviceGetProperties was not traced */
    assert_int_equal(nesting.properties[1], 1);
    assert_int_equal(nested_device_get, 0);
    assert_true(nesting.counts.device_get[0] >= 1); /* the application's own zeDeviceGet was */
    assert_int_equal(nesting.counts.device_get[0], nesting.counts.device_get[1]);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Changing callbacks: only while disabled */

static void set_callbacks_only_while_disabled(void **state) {
    (void)state;
    zc_events_reset();
    zc_recorder recorder = {.id = 1};
    void *tracer = zc_recording_tracer(&recorder);
    zc_assert_success(zc_tr_enable(tracer, true));
    ze_callbacks_t alternative = {0}, none = {0};
    alternative.Device.pfnGetPropertiesCb = zc_properties_alternative;
    zc_assert_result(zc_tr_set(tracer, true, &alternative), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    zc_assert_result(zc_tr_set(tracer, false, &none), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    zc_get_properties();
    const int order[] = {1};
    zc_check_calls(1, order, 1); /* nothing changed */
    zc_assert_success(zc_tr_enable(tracer, false));
    zc_assert_success(zc_tr_set(tracer, true, &alternative));
    zc_assert_success(zc_tr_set(tracer, false, &none));
    zc_assert_success(zc_tr_enable(tracer, true));
    zc_events_reset();
    zc_get_properties();
    zc_tracer_finish(tracer);
    assert_int_equal(zc_event_count, 1);
    assert_int_equal(zc_events[0].kind, 'Q');
}

static void destroy_refused_while_enabled(void **state) {
    (void)state;
    zc_events_reset();
    zc_recorder recorder = {.id = 1};
    void *tracer = zc_recording_tracer(&recorder);
    zc_assert_success(zc_tr_enable(tracer, true));
    zc_assert_result(zc_tr_destroy(tracer), ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE);
    zc_get_properties(); /* still there and still enabled */
    const int order[] = {1};
    zc_check_calls(1, order, 1);
    zc_tracer_finish(tracer);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Bad inputs to the tracer functions */

static void create_null_descriptor(void **state) {
    (void)state;
    int user = 0;
    void *tracer = NULL;
    zc_assert_result(zc_tr_create_desc(&user, &tracer, true), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
}

static void create_null_handle_pointer(void **state) {
    (void)state;
    int user = 0;
    zc_assert_result(zc_tr_create(&user, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
}

/* The headers: `nullptr == desc->pUserData` is ZE_RESULT_ERROR_INVALID_NULL_POINTER. */
static void create_null_user_data(void **state) {
    (void)state;
    void *tracer = NULL;
    ze_result_t result = zc_tr_create(NULL, &tracer);
    if (result == ZE_RESULT_SUCCESS && tracer != NULL)
        zc_tr_destroy(tracer);
    zc_assert_result(result, ZE_RESULT_ERROR_INVALID_NULL_POINTER);
}

static void create_before_init_uninitialized(void **state) {
    (void)state;
    zc_child child;
    assert_true(zc_run_child_mode("before-init", NULL, NULL, ZC_CHILD_TIMEOUT_MS, &child));
    zc_assert_child_ok(&child, "the before-init child");
    char value[128];
    assert_true(zc_child_value(&child, "create", value, sizeof value));
    zc_child_free(&child);
    assert_string_equal(value, "ZE_RESULT_ERROR_UNINITIALIZED");
}

static int zc_child_before_init(int argc, char **argv) {
    (void)argc;
    (void)argv;
    int user = 0;
    void *tracer = NULL;
    printf("create=%s\n", zc_result_name(zc_tr_create(&user, &tracer)));
    return 0;
}

static void callbacks_null_tables(void **state) {
    (void)state;
    int user = 0;
    void *tracer = NULL;
    zc_assert_success(zc_tr_create(&user, &tracer));
    zc_assert_result(zc_tr_set(tracer, true, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zc_tr_set(tracer, false, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_success(zc_tr_destroy(tracer));
}

#if !ZC_TRACING_INTERCEPT
/* (With loader intercept the loader itself dereferences tracer handles before any implementation sees them.) */

static void null_tracer_handle(void **state) {
    (void)state;
    ze_callbacks_t none = {0};
    zc_assert_result(zc_tr_destroy(NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zc_tr_set(NULL, true, &none), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zc_tr_set(NULL, false, &none), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zc_tr_enable(NULL, true), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zc_tr_enable(NULL, false), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
}

static void destroyed_tracer_handle(void **state) {
    (void)state;
    int user = 0;
    void *tracer = NULL;
    zc_assert_success(zc_tr_create(&user, &tracer));
    zc_assert_success(zc_tr_destroy(tracer));
    ze_callbacks_t none = {0};
    zc_assert_result(zc_tr_enable(tracer, true), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zc_tr_set(tracer, true, &none), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zc_tr_destroy(tracer), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
}
#endif

#if ZC_TRACING_TARGET == ZC_TRACING_DRIVER && !ZC_TRACING_INTERCEPT
static void create_null_context(void **state) {
    (void)state;
    int user = 0;
    zet_tracer_exp_desc_t desc = {ZET_STRUCTURE_TYPE_TRACER_EXP_DESC, NULL, &user};
    zet_tracer_exp_handle_t tracer = NULL;
    zc_assert_result(zetTracerExpCreate(NULL, &desc, &tracer), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
}
#endif

/* ------------------------------------------------------------------------------------------------------------------
 * The layer's own functions: per-function registration and the reset */

#if ZC_LAYER_TARGET

/* A registration function as the test can call it: the loader's export, else the loaded layer's (the loader exports
 * those of its own version only), else NULL: a layer older than the headers has no registration for that function. */
#define ZC_REGISTRATION(function) ((__typeof__(&function))zc_registration(#function))
static void *zc_registration(const char *name) {
    void *fn = dlsym(RTLD_DEFAULT, name);
    void *layer = fn == NULL ? dlopen(ZC_LAYER_SONAME, RTLD_NOLOAD | RTLD_LAZY) : NULL;
    if (layer != NULL) {
        fn = dlsym(layer, name);
        dlclose(layer);
    }
    return fn;
}

static void register_only_while_disabled(void **state) {
    (void)state;
    zc_events_reset();
    zc_recorder recorder = {.id = 1};
    void *tracer = zc_recording_tracer(&recorder);
    zel_tracer_handle_t handle = tracer;
    zc_assert_success(zc_tr_enable(tracer, true));
#define ZL_REGISTRATION(function, cb_type)                                                                             \
    if (ZC_REGISTRATION(function) != NULL) {                                                                           \
        zc_assert_result(ZC_REGISTRATION(function)(handle, ZEL_REGISTER_PROLOGUE, NULL),                               \
                         ZE_RESULT_ERROR_INVALID_ARGUMENT);                                                            \
        zc_assert_result(ZC_REGISTRATION(function)(handle, ZEL_REGISTER_EPILOGUE, NULL),                               \
                         ZE_RESULT_ERROR_INVALID_ARGUMENT);                                                            \
    }
#include "zl_registrations.h"
#undef ZL_REGISTRATION
    zc_assert_result(
        zelTracerDeviceGetPropertiesRegisterCallback(handle, ZEL_REGISTER_PROLOGUE, zc_properties_alternative),
        ZE_RESULT_ERROR_INVALID_ARGUMENT);
    zc_get_properties();
    const int order[] = {1};
    zc_check_calls(1, order, 1); /* nothing changed */
    zc_assert_success(zc_tr_enable(tracer, false));
    zc_assert_success(
        zelTracerDeviceGetPropertiesRegisterCallback(handle, ZEL_REGISTER_PROLOGUE, zc_properties_alternative));
    zc_assert_success(zelTracerDeviceGetPropertiesRegisterCallback(handle, ZEL_REGISTER_EPILOGUE, NULL));
    zc_assert_success(zc_tr_enable(tracer, true));
    zc_events_reset();
    zc_get_properties();
    zc_tracer_finish(tracer);
    assert_int_equal(zc_event_count, 1);
    assert_int_equal(zc_events[0].kind, 'Q');
}

typedef ze_result_t(ZE_APICALL *zc_reset_fn)(zel_tracer_handle_t);

/* zelTracerResetAllCallbacks from the loaded layer: the loader does not export it. */
static zc_reset_fn zc_reset_function(void) {
    void *layer = dlopen(ZC_LAYER_SONAME, RTLD_NOLOAD | RTLD_LAZY);
    if (layer == NULL)
        fail_msg("%s is not loaded", ZC_LAYER_SONAME);
    zc_reset_fn reset = (zc_reset_fn)dlsym(layer, "zelTracerResetAllCallbacks");
    dlclose(layer);
    if (reset == NULL)
        fail_msg("the loaded tracing layer does not export zelTracerResetAllCallbacks");
    return reset;
}

static void ZE_APICALL zc_timestamps_prologue(ze_device_get_global_timestamps_params_t *params, ze_result_t result,
                                              void *user_data, void **instance) {
    (void)params;
    (void)result;
    (void)instance;
    zc_record(user_data, 'T', ZE_RESULT_SUCCESS, instance);
}

static void reset_all_callbacks_only_while_disabled(void **state) {
    (void)state;
    zc_reset_fn reset = zc_reset_function();
    zc_events_reset();
    zc_recorder recorder = {.id = 1};
    void *tracer = zc_recording_tracer(&recorder);
    zel_tracer_handle_t handle = tracer;
    /* A function newer than the 1.0 callback set too. */
    zc_assert_success(
        zelTracerDeviceGetGlobalTimestampsRegisterCallback(handle, ZEL_REGISTER_PROLOGUE, zc_timestamps_prologue));
    zc_assert_success(zc_tr_enable(tracer, true));
    zc_assert_result(reset(handle), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    zc_get_properties();
    const int order[] = {1};
    zc_check_calls(1, order, 1);
    zc_assert_success(zc_tr_enable(tracer, false));
    zc_assert_success(reset(handle));
    zc_assert_success(zc_tr_enable(tracer, true));
    zc_events_reset();
    zc_get_properties();
    uint64_t host = 0, device = 0;
    zc_assert_success(zeDeviceGetGlobalTimestamps(zc_device(), &host, &device));
    zc_tracer_finish(tracer);
    assert_int_equal(zc_event_count, 0);
}

static void reset_bad_handles(void **state) {
    (void)state;
    zc_reset_fn reset = zc_reset_function();
    zc_assert_result(reset(NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    int user = 0;
    void *tracer = NULL;
    zc_assert_success(zc_tr_create(&user, &tracer));
    zc_assert_success(zc_tr_destroy(tracer));
    zc_assert_result(reset((zel_tracer_handle_t)tracer), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
}

static void register_null_tracer_every_function(void **state) {
    (void)state;
#define ZL_REGISTRATION(function, cb_type)                                                                             \
    if (ZC_REGISTRATION(function) != NULL)                                                                             \
        zc_assert_result(ZC_REGISTRATION(function)(NULL, ZEL_REGISTER_PROLOGUE, NULL),                                 \
                         ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
#include "zl_registrations.h"
#undef ZL_REGISTRATION
}

static void register_destroyed_tracer_every_function(void **state) {
    (void)state;
    int user = 0;
    void *tracer = NULL;
    zc_assert_success(zc_tr_create(&user, &tracer));
    zc_assert_success(zc_tr_destroy(tracer));
    zel_tracer_handle_t handle = tracer;
#define ZL_REGISTRATION(function, cb_type)                                                                             \
    if (ZC_REGISTRATION(function) != NULL)                                                                             \
        zc_assert_result(ZC_REGISTRATION(function)(handle, ZEL_REGISTER_EPILOGUE, NULL),                               \
                         ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
#include "zl_registrations.h"
#undef ZL_REGISTRATION
}

/* zel_tracer_reg_t has two values; any other must be refused and change nothing. */
static void register_bad_type_every_function(void **state) {
    (void)state;
    zc_events_reset();
    zc_recorder recorder = {.id = 1};
    void *tracer = zc_recording_tracer(&recorder);
    zel_tracer_handle_t handle = tracer;
    const zel_tracer_reg_t bad = (zel_tracer_reg_t)7;
#define ZL_REGISTRATION(function, cb_type)                                                                             \
    if (ZC_REGISTRATION(function) != NULL)                                                                             \
        zc_assert_error(ZC_REGISTRATION(function)(handle, bad, NULL));
#include "zl_registrations.h"
#undef ZL_REGISTRATION
    zc_assert_success(zc_tr_enable(tracer, true));
    zc_get_properties();
    zc_tracer_finish(tracer);
    const int order[] = {1};
    zc_check_calls(1, order, 1);
}

#endif

/* ------------------------------------------------------------------------------------------------------------------
 * The target itself */

/* The loader loaded the tracing layer of the target, or none for the driver's tracers. */
static void target_configuration(void **state) {
    (void)state;
    void *layer = dlopen(ZC_LAYER_SONAME, RTLD_NOLOAD | RTLD_LAZY);
#if ZC_TRACING_TARGET == ZC_TRACING_DRIVER
    if (layer != NULL)
        dlclose(layer);
    assert_null(layer);
#else
    assert_non_null(layer);
    Dl_info info = {0};
    void *getter = dlsym(layer, "zelGetTracerApiProcAddrTable");
    bool found = getter != NULL && dladdr(getter, &info) != 0 && info.dli_fname != NULL;
    dlclose(layer);
    assert_true(found);
    print_message("tracing layer: %s\n", info.dli_fname);
#if ZC_TRACING_TARGET == ZC_TRACING_OURS
    assert_int_equal(strncmp(info.dli_fname, ZC_OUR_LAYER_DIR "/", strlen(ZC_OUR_LAYER_DIR "/")), 0);
#else
    assert_int_not_equal(strncmp(info.dli_fname, ZC_OUR_LAYER_DIR "/", strlen(ZC_OUR_LAYER_DIR "/")), 0);
#endif
#endif
}

int main(int argc, char **argv) {
    if (getenv(ZC_READY_VARIABLE) == NULL)
        return zc_tracing_reexec(argv);
    static const struct CMUnitTest tests[] = {
        cmocka_unit_test(target_configuration),
        cmocka_unit_test(tracer_created_disabled_keeps_user_data),
        cmocka_unit_test(instance_data_per_call_and_tracer),
        cmocka_unit_test(tracers_run_in_enable_order),
        cmocka_unit_test(epilogue_sees_the_call_result),
        cmocka_unit_test(prologue_changes_reach_the_driver),
        cmocka_unit_test(prologue_changes_count_pointer),
        cmocka_unit_test(callbacks_see_the_call_arguments),
        cmocka_unit_test(init_and_enumeration_traced_after_enabling),
        cmocka_unit_test(calls_from_callbacks_not_traced),
        cmocka_unit_test(set_callbacks_only_while_disabled),
        cmocka_unit_test(destroy_refused_while_enabled),
        cmocka_unit_test(create_null_descriptor),
        cmocka_unit_test(create_null_handle_pointer),
        cmocka_unit_test(create_null_user_data),
        cmocka_unit_test(create_before_init_uninitialized),
        cmocka_unit_test(callbacks_null_tables),
#if !ZC_TRACING_INTERCEPT
        cmocka_unit_test(null_tracer_handle),
        cmocka_unit_test(destroyed_tracer_handle),
#endif
#if ZC_TRACING_TARGET == ZC_TRACING_DRIVER && !ZC_TRACING_INTERCEPT
        cmocka_unit_test(create_null_context),
#endif
#if ZC_LAYER_TARGET
        cmocka_unit_test(register_only_while_disabled),
        cmocka_unit_test(reset_all_callbacks_only_while_disabled),
        cmocka_unit_test(reset_bad_handles),
        cmocka_unit_test(register_null_tracer_every_function),
        cmocka_unit_test(register_destroyed_tracer_every_function),
        cmocka_unit_test(register_bad_type_every_function),
#endif
    };
    static const zc_child_mode modes[] = {{"before-init", zc_child_before_init}};
    static const zc_suite suite = {
        ZC_EXECUTABLE, tests, ZC_COUNT(tests), zc_setup_tracing, zc_teardown_tracing, modes, ZC_COUNT(modes),
    };
    return zc_main(argc, argv, &suite);
}
