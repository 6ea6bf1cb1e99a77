/* zeInit and the driver object: scenario selection and the extension list (zefake's own extension functions are
 * handed out by the composition root, ze/zefake_ext.c). */
#include "core/zf_chain.h"
#include "core/zf_core.h"
#include "core/zf_fault.h"
#include "driver/zf_driver.h"
#include "driver/zf_fabric.h"
#include "zefake/zefake_ext.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t zf_init_lock = PTHREAD_MUTEX_INITIALIZER;
static zf_driver *zf_the_driver;
static bool zf_init_failed;

/* Extensions the driver implements, as advertised by zeDriverGetExtensionProperties (the list documents each). */
static const ze_driver_extension_properties_t zf_extensions[] = {
#define ZEFAKE_EXTENSION(name, version) {name, version},
#include "zefake/zefake_extensions.def"
#undef ZEFAKE_EXTENSION
};
#define ZF_NUM_EXTENSIONS (sizeof zf_extensions / sizeof zf_extensions[0])

static void (*zf_init_hooks[ZF_MAX_INIT_HOOKS])(zf_driver *driver);
static uint32_t zf_num_init_hooks;

void zf_driver_on_init(void (*hook)(zf_driver *driver)) {
    /* Hooks are registered when the library loads, where no caller could handle a failure: a hook that did not fit
     * would leave a driver that silently skips part of zeInit, so the load stops instead. */
    if (zf_num_init_hooks == ZF_MAX_INIT_HOOKS) {
        fprintf(stderr, "zefake: internal error: more than %u zeInit hooks (ZF_MAX_INIT_HOOKS, driver/driver.c)\n",
                ZF_MAX_INIT_HOOKS);
        abort();
    }
    zf_init_hooks[zf_num_init_hooks++] = hook;
}

zf_driver *zf_driver_get(void) {
    return zf_driver_is_initialized() ? zf_the_driver : NULL;
}

static bool zf_device_type_visible(ze_device_type_t type, ze_init_flags_t flags) {
    bool gpu_only = (flags & ZE_INIT_FLAG_GPU_ONLY) != 0;
    bool vpu_only = (flags & ZE_INIT_FLAG_VPU_ONLY) != 0;
    if (gpu_only == vpu_only)
        return true; /* neither or both: every device */
    return gpu_only ? type == ZE_DEVICE_TYPE_GPU : type == ZE_DEVICE_TYPE_VPU;
}

static void zf_driver_uuid(zf_driver *driver) {
    /* Stable across runs and machines: a fixed tag, then the driver version. */
    static const uint8_t tag[8] = {'z', 'e', 'f', 'a', 'k', 'e', 0, 1};
    memcpy(driver->uuid.id, tag, sizeof tag);
    uint32_t version = driver->scenario.driver_version;
    for (int i = 0; i < 4; i++)
        driver->uuid.id[8 + i] = (uint8_t)(version >> (8 * i));
}

/* Appends the devices a card stands for in zeDeviceGet: itself in COMPOSITE mode or when it has no tiles, else each
 * of its tiles (FLAT, COMBINED). */
static void zf_driver_list_card(zf_driver *driver, zf_device *card) {
    if (!zf_device_type_visible(card->desc->type, driver->init_flags))
        return;
    if (driver->hierarchy == ZF_HIERARCHY_COMPOSITE || card->num_subdevices == 0) {
        driver->visible[driver->num_devices++] = card;
        return;
    }
    for (uint32_t t = 0; t < card->num_subdevices; t++)
        driver->visible[driver->num_devices++] = &card->subdevices[t];
}

static bool zf_driver_select_visible(zf_driver *driver) {
    driver->visible =
        calloc((size_t)driver->scenario.num_devices * ZF_SCENARIO_MAX_SUBDEVICES, sizeof *driver->visible);
    if (driver->visible == NULL)
        return false;
    for (uint32_t i = 0; i < driver->scenario.num_devices; i++)
        zf_driver_list_card(driver, &driver->devices[i]);
    return true;
}

/* The card that devices[index] of the scenario file became after selection; NULL when the affinity mask hid it. */
static zf_device *zf_driver_card_of_file_index(zf_driver *driver, uint32_t index) {
    for (uint32_t i = 0; i < driver->scenario.num_devices; i++) {
        if (driver->origins[i].index == index)
            return &driver->devices[i];
    }
    return NULL;
}

static void zf_driver_arm_loss(zf_driver *driver, const zf_scenario_fault *fault, const char *origin) {
    zf_device *card = zf_driver_card_of_file_index(driver, fault->lost.device);
    if (card == NULL) {
        zf_log(ZF_LOG_INFO, "%s: devices[%u] is not selected (ZE_AFFINITY_MASK): nothing to lose", origin,
               fault->lost.device);
        return;
    }
    zf_device_arm_loss(card, fault->lost.after_commands);
}

/* Arms the scenario's `faults` (docs/scenarios.md): call rules in core/zf_fault.h, device_lost rules on their cards. */
static void zf_driver_arm_faults(zf_driver *driver) {
    const zf_scenario *s = &driver->scenario;
    for (uint32_t i = 0; i < s->num_faults; i++) {
        const zf_scenario_fault *fault = &s->faults[i];
        char origin[ZF_SCENARIO_TEXT_MAX + 32];
        snprintf(origin, sizeof origin, "faults[%u] of %s:%u", i, s->source, fault->line);
        if (fault->device_lost)
            zf_driver_arm_loss(driver, fault, origin);
        else if (!zf_fault_arm_call((zf_api_id)fault->api, fault->result, fault->after, fault->count, origin))
            zf_log(ZF_LOG_ERROR, "%s: out of host memory: the rule is not armed", origin);
    }
}

/* The registry the scenario's fault rules name functions and results from (the scenario library is a leaf). */
static const zf_scenario_api_names zf_api_names = {zf_api_number_from_name, zf_result_from_name};

static ze_result_t zf_driver_build(zf_driver **out) {
    zf_driver *driver = calloc(1, sizeof *driver);
    if (driver == NULL)
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    char error[ZF_SCENARIO_ERROR_MAX];
    const char *selector = getenv("ZEFAKE_SCENARIO");
    zf_scenario_use_api_names(&zf_api_names);
    if (!zf_scenario_load(selector, &driver->scenario, error)) {
        /* Always on stderr: the loader prints nothing, this is the only explanation the user gets. */
        fprintf(stderr, "zefake: error: cannot load scenario (ZEFAKE_SCENARIO=%s): %s\n",
                selector != NULL ? selector : "", error);
        free(driver);
        return ZE_RESULT_ERROR_UNINITIALIZED;
    }
    zf_device_select(driver); /* ZE_AFFINITY_MASK, ZE_ENABLE_PCI_ID_DEVICE_ORDER */
    zf_driver_uuid(driver);
    if (!zf_object_register(&driver->header, ZF_OBJ_ZE_DRIVER, NULL) || !zf_devices_create(driver) ||
        !zf_fabric_create(driver)) {
        fprintf(stderr, "zefake: error: out of host memory while building the driver\n");
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    zf_log(ZF_LOG_INFO, "scenario '%s' from %s: %u root device(s)", driver->scenario.name, driver->scenario.source,
           driver->scenario.num_devices);
    zf_profile_init(driver->scenario.strict);
    zf_driver_arm_faults(driver);
    *out = driver;
    return ZE_RESULT_SUCCESS;
}

/* Builds the driver once, for zeInit or zesInit, whichever comes first (zf_init_lock held); a failed build is not
 * tried again. */
static ze_result_t zf_driver_build_locked(void) {
    if (zf_the_driver != NULL)
        return ZE_RESULT_SUCCESS;
    if (zf_init_failed)
        return zf_fail(ZE_RESULT_ERROR_UNINITIALIZED, "an earlier zeInit or zesInit failed; see the error above");
    ze_result_t result = zf_driver_build(&zf_the_driver);
    if (result != ZE_RESULT_SUCCESS) {
        zf_init_failed = true;
        return result;
    }
    atomic_store_explicit(&zf_driver_built, true, memory_order_release);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zf_driver_build_once(zf_driver **out) {
    pthread_mutex_lock(&zf_init_lock);
    ze_result_t result = zf_driver_build_locked();
    *out = zf_the_driver;
    pthread_mutex_unlock(&zf_init_lock);
    return result;
}

/* zeInit's part (zf_init_lock held): the device types asked for decide what zeDeviceGet lists, then the core API is
 * ready and the areas above start. */
static ze_result_t zf_driver_open(zf_driver *driver, ze_init_flags_t flags) {
    driver->init_flags = flags;
    if (!zf_driver_select_visible(driver))
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory for the list of visible devices");
    zf_log(ZF_LOG_INFO, "zeInit: %u device(s) visible", driver->num_devices);
    atomic_store_explicit(&zf_driver_ready, true, memory_order_release);
    for (uint32_t i = 0; i < zf_num_init_hooks; i++)
        zf_init_hooks[i](driver);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zeInit(ze_init_flags_t flags) {
    if (zf_driver_is_initialized())
        return ZE_RESULT_SUCCESS; /* idempotent: the first successful call decided what is visible */
    pthread_mutex_lock(&zf_init_lock);
    ze_result_t result = zf_driver_build_locked();
    if (result == ZE_RESULT_SUCCESS && !zf_driver_is_initialized())
        result = zf_driver_open(zf_the_driver, flags);
    pthread_mutex_unlock(&zf_init_lock);
    return result;
}

ze_result_t zfi_zeDriverGet(uint32_t *pCount, ze_driver_handle_t *phDrivers) {
    zf_driver *driver = zf_the_driver;
    /* A driver with no device of the requested types is not reported at all. */
    uint32_t available = driver->num_devices > 0 ? 1 : 0;
    if (zf_count_query(pCount, available, phDrivers) > 0)
        phDrivers[0] = (ze_driver_handle_t)driver;
    return ZE_RESULT_SUCCESS;
}

#if ZF_L0_AT_LEAST(10)
/* The device types a ze_init_driver_type_flags_t asks for. UINT32_MAX stands for every type. */
static bool zf_driver_type_requested(ze_device_type_t type, ze_init_driver_type_flags_t flags) {
    if (type == ZE_DEVICE_TYPE_GPU)
        return (flags & ZE_INIT_DRIVER_TYPE_FLAG_GPU) != 0;
    return type == ZE_DEVICE_TYPE_VPU && (flags & ZE_INIT_DRIVER_TYPE_FLAG_NPU) != 0;
}

/* Whether one of the driver's visible root devices is of a requested type. */
static bool zf_driver_has_requested(const zf_driver *driver, ze_init_driver_type_flags_t flags) {
    for (uint32_t i = 0; i < driver->num_devices; i++)
        if (zf_driver_type_requested(driver->visible[i]->properties.type, flags))
            return true;
    return false;
}

static ze_result_t zf_check_init_desc(const ze_init_driver_type_desc_t *desc) {
    const ze_init_driver_type_flags_t known = ZE_INIT_DRIVER_TYPE_FLAG_GPU | ZE_INIT_DRIVER_TYPE_FLAG_NPU;
    if (desc->flags != UINT32_MAX && (desc->flags & ~known) != 0)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ENUMERATION,
                       "desc->flags 0x%x: only ZE_INIT_DRIVER_TYPE_FLAG_GPU, _NPU or UINT32_MAX",
                       (unsigned)desc->flags);
    /* Applications often zero the descriptor and set only flags; Intel's driver reads only flags. */
    if (desc->stype == ZE_STRUCTURE_TYPE_INIT_DRIVER_TYPE_DESC)
        return ZE_RESULT_SUCCESS;
    if (zf_strict())
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                       "desc->stype is 0x%x, not ZE_STRUCTURE_TYPE_INIT_DRIVER_TYPE_DESC", (unsigned)desc->stype);
    zf_tolerate("desc->stype is ZE_STRUCTURE_TYPE_INIT_DRIVER_TYPE_DESC", "read desc->flags");
    return ZE_RESULT_SUCCESS;
}

/* The first initialisation, by zeInit or zeInitDrivers, decides which devices are visible (zeInit's flags; every
 * device for zeInitDrivers, which never uninitialises or reinitialises a driver). The driver is then reported when
 * one of its devices is of a requested type; otherwise, as Intel's driver does for a type it does not drive, the
 * call answers UNINITIALIZED and the loader leaves the driver out. */
ze_result_t zfi_zeInitDrivers(uint32_t *pCount, ze_driver_handle_t *phDrivers, ze_init_driver_type_desc_t *desc) {
    ze_result_t result = zf_check_init_desc(desc);
    if (result == ZE_RESULT_SUCCESS)
        result = zfi_zeInit(0);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    if (!zf_driver_has_requested(zf_the_driver, desc->flags))
        return zf_fail(ZE_RESULT_ERROR_UNINITIALIZED, "desc->flags 0x%x: the driver has no device of those types",
                       (unsigned)desc->flags);
    return zfi_zeDriverGet(pCount, phDrivers);
}
#endif

#if ZF_L0_AT_LEAST(6)
/* The explanation the debug log gives of the last error a call returned on this thread (core/core.c). */
ze_result_t zfi_zeDriverGetLastErrorDescription(ze_driver_handle_t hDriver, const char **ppString) {
    (void)hDriver;
    *ppString = zf_last_error();
    return ZE_RESULT_SUCCESS;
}
#endif

ze_result_t zfi_zeDriverGetApiVersion(ze_driver_handle_t hDriver, ze_api_version_t *version) {
    (void)hDriver;
    *version = ZE_API_VERSION_CURRENT;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zeDriverGetProperties(ze_driver_handle_t hDriver, ze_driver_properties_t *pDriverProperties) {
    zf_driver *driver = zf_driver_from(hDriver);
    pDriverProperties->uuid = driver->uuid;
    pDriverProperties->driverVersion = driver->scenario.driver_version;
    void *chain = zf_out_chain(pDriverProperties, "pDriverProperties", ZE_STRUCTURE_TYPE_DRIVER_PROPERTIES);
    /* ZE_extension_memory_free_policies: zeMemFreeExt honours both policies. */
    zf_chain_foreach_out(ext, chain) {
        if (ext->stype == ZE_STRUCTURE_TYPE_DRIVER_MEMORY_FREE_EXT_PROPERTIES)
            ((ze_driver_memory_free_ext_properties_t *)ext)->freePolicies =
                ZE_DRIVER_MEMORY_FREE_POLICY_EXT_FLAG_BLOCKING_FREE | ZE_DRIVER_MEMORY_FREE_POLICY_EXT_FLAG_DEFER_FREE;
    }
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zeDriverGetIpcProperties(ze_driver_handle_t hDriver, ze_driver_ipc_properties_t *pIpcProperties) {
    (void)hDriver;
    zf_out_check(pIpcProperties, "pIpcProperties", ZE_STRUCTURE_TYPE_DRIVER_IPC_PROPERTIES);
    /* Memory IPC handles (memory_ipc.c) and event-pool IPC handles (event_ipc.c). */
    pIpcProperties->flags = ZE_IPC_PROPERTY_FLAG_MEMORY | ZE_IPC_PROPERTY_FLAG_EVENT_POOL;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zeDriverGetExtensionProperties(ze_driver_handle_t hDriver, uint32_t *pCount,
                                               ze_driver_extension_properties_t *pExtensionProperties) {
    (void)hDriver;
    uint32_t n = zf_count_query(pCount, ZF_NUM_EXTENSIONS, pExtensionProperties);
    for (uint32_t i = 0; i < n; i++)
        pExtensionProperties[i] = zf_extensions[i];
    return ZE_RESULT_SUCCESS;
}
