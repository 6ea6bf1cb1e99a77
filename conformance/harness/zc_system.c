/* The system fixture (the first driver, its devices and sub-devices) and what the harness knows about the target. */
#include "zc_harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static zc_system zc_the_system;
static bool zc_system_ready;

/* In fixtures a failed step is reported and the fixture returns -1, which fails every test of the group. */
#define ZC_SETUP_CALL(call)                                                                                            \
    do {                                                                                                               \
        ze_result_t zc_setup_result_ = (call);                                                                         \
        if (zc_setup_result_ != ZE_RESULT_SUCCESS) {                                                                   \
            print_error("%s:%d: %s returned %s (target %s)\n", __FILE__, __LINE__, #call,                              \
                        zc_result_name(zc_setup_result_), zc_target());                                                \
            return -1;                                                                                                 \
        }                                                                                                              \
    } while (0)

static int zc_enumerate_subdevices(zc_system *sys, uint32_t root) {
    uint32_t n = 0;
    ZC_SETUP_CALL(zeDeviceGetSubDevices(sys->roots[root], &n, NULL));
    sys->num_subdevices[root] = n;
    sys->subdevices[root] = calloc(n + 1, sizeof *sys->subdevices[root]);
    if (sys->subdevices[root] == NULL)
        return -1;
    if (n > 0)
        ZC_SETUP_CALL(zeDeviceGetSubDevices(sys->roots[root], &n, sys->subdevices[root]));
    sys->num_all += n;
    return 0;
}

static int zc_enumerate_devices(zc_system *sys) {
    uint32_t n = 0;
    ZC_SETUP_CALL(zeDeviceGet(sys->driver, &n, NULL));
    if (n == 0) {
        print_error("the driver reports no device (target %s)\n", zc_target());
        return -1;
    }
    sys->roots = calloc(n, sizeof *sys->roots);
    sys->num_subdevices = calloc(n, sizeof *sys->num_subdevices);
    sys->subdevices = calloc(n, sizeof *sys->subdevices);
    if (sys->roots == NULL || sys->num_subdevices == NULL || sys->subdevices == NULL)
        return -1;
    ZC_SETUP_CALL(zeDeviceGet(sys->driver, &n, sys->roots));
    sys->num_roots = n;
    sys->num_all = n;
    for (uint32_t i = 0; i < n; i++) {
        if (zc_enumerate_subdevices(sys, i) != 0)
            return -1;
    }
    return 0;
}

static int zc_collect_all(zc_system *sys) {
    sys->all = calloc(sys->num_all, sizeof *sys->all);
    if (sys->all == NULL)
        return -1;
    uint32_t k = 0;
    for (uint32_t i = 0; i < sys->num_roots; i++)
        sys->all[k++] = sys->roots[i];
    for (uint32_t i = 0; i < sys->num_roots; i++) {
        for (uint32_t j = 0; j < sys->num_subdevices[i]; j++)
            sys->all[k++] = sys->subdevices[i][j];
    }
    return 0;
}

int zc_setup_system(void **state) {
    (void)state;
    zc_system *sys = &zc_the_system;
    ze_result_t init = zeInit(0);
    if (init != ZE_RESULT_SUCCESS) {
        /* The loader says nothing of its own: name where it looked. */
        const char *alt = getenv("ZE_ENABLE_ALT_DRIVERS");
        print_error("zeInit(0) returned %s: the loader has no working driver (target %s, ZE_ENABLE_ALT_DRIVERS=%s)\n",
                    zc_result_name(init), zc_target(), alt != NULL ? alt : "unset: the loader's own search");
        return -1;
    }
    uint32_t n = 0;
    ZC_SETUP_CALL(zeDriverGet(&n, NULL));
    if (n == 0) {
        print_error("zeDriverGet reports no driver (target %s)\n", zc_target());
        return -1;
    }
    ze_driver_handle_t *drivers = calloc(n, sizeof *drivers);
    if (drivers == NULL)
        return -1;
    ze_result_t result = zeDriverGet(&n, drivers);
    sys->driver = drivers[0];
    free(drivers);
    ZC_SETUP_CALL(result);
    if (zc_enumerate_devices(sys) != 0 || zc_collect_all(sys) != 0)
        return -1;
    zc_system_ready = true;
    return 0;
}

int zc_teardown_system(void **state) {
    (void)state;
    zc_system *sys = &zc_the_system;
    for (uint32_t i = 0; sys->subdevices != NULL && i < sys->num_roots; i++)
        free(sys->subdevices[i]);
    free(sys->subdevices);
    free(sys->num_subdevices);
    free(sys->roots);
    free(sys->all);
    memset(sys, 0, sizeof *sys);
    zc_system_ready = false;
    return 0;
}

const zc_system *zc_sys(void) {
    if (!zc_system_ready)
        zc_fail("the suite did not run zc_setup_system");
    return &zc_the_system;
}

int zc_setup_context(void **state) {
    ze_context_desc_t desc = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0};
    ze_context_handle_t context = NULL;
    ZC_SETUP_CALL(zeContextCreate(zc_sys()->driver, &desc, &context));
    *state = context;
    return 0;
}

int zc_teardown_context(void **state) {
    ZC_SETUP_CALL(zeContextDestroy((ze_context_handle_t)*state));
    return 0;
}

const char *zc_target(void) {
    const char *target = getenv("ZC_TARGET");
    return target != NULL && *target != '\0' ? target : "unknown";
}

static bool zc_extension_listed(ze_driver_handle_t driver, const char *name) {
    uint32_t n = 0;
    if (zeDriverGetExtensionProperties(driver, &n, NULL) != ZE_RESULT_SUCCESS || n == 0)
        return false;
    ze_driver_extension_properties_t *extensions = calloc(n, sizeof *extensions);
    if (extensions == NULL)
        return false;
    bool found = false;
    if (zeDriverGetExtensionProperties(driver, &n, extensions) == ZE_RESULT_SUCCESS) {
        for (uint32_t i = 0; i < n && !found; i++)
            found = strncmp(extensions[i].name, name, ZE_MAX_EXTENSION_NAME) == 0;
    }
    free(extensions);
    return found;
}

bool zc_driver_is_fake(void) {
    /* Asked once: the answer cannot change while the driver is loaded. */
    static int is_fake = -1;
    if (is_fake < 0)
        is_fake = zc_extension_listed(zc_sys()->driver, ZEFAKE_EXTENSION_NAME);
    return is_fake != 0;
}

void zc_skip_unless_fake(void) {
    if (zc_driver_is_fake())
        return;
    if (strcmp(zc_target(), "fake") == 0)
        zc_fail("the target is the fake driver but it does not advertise %s", ZEFAKE_EXTENSION_NAME);
    print_message("fake-only check: target %s lacks %s, skipped\n", zc_target(), ZEFAKE_EXTENSION_NAME);
    skip();
}

void *zc_fake_function(const char *name) {
    void *function = NULL;
    zc_assert_success(zeDriverGetExtensionFunctionAddress(zc_sys()->driver, name, &function));
    if (function == NULL)
        zc_fail("zeDriverGetExtensionFunctionAddress(\"%s\") succeeded with a NULL address", name);
    return function;
}

void zc_fake_info(zefake_info_t *info) {
    zefake_pfnGetInfo_t get_info = (zefake_pfnGetInfo_t)zc_fake_function(ZEFAKE_FN_GET_INFO);
    memset(info, 0, sizeof *info);
    info->size = sizeof *info;
    zc_assert_success(get_info(info));
}
