/* Sysman events (zes_api.h, "Events"): a device raises ZES_EVENT_TYPE_FLAG_DEVICE_RESET_REQUIRED when one of its
 * commands faults (the fault zesDeviceGetState reports as wedged until zesDeviceReset), FREQ_THROTTLED when its kernels
 * start running below the domain's maximum clock (sysman_core.c), and the threshold events when
 * its energy, temperature or RAS counts cross what was set (sysman_thresholds.c). Other registered events are
 * accepted and never raised: nothing in the model produces them. An event raised while registered stays pending until
 * a listener receives it; registering again keeps only the pending events still registered. A waiting listener wakes
 * when an event is raised, and checks the thresholds every ZF_SM_CHECK_MS, since idle energy and cooling cross them
 * without any command. docs/sysman.md. */
#include "tools/sysman/zf_sysman.h"

#include <time.h>

static pthread_cond_t zf_sm_event_cond;
static pthread_once_t zf_sm_event_once = PTHREAD_ONCE_INIT;

static void zf_sm_event_init(void) {
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&zf_sm_event_cond, &attr);
    pthread_condattr_destroy(&attr);
}

void zf_sm_raise(zf_sm_device *sm, zes_event_type_flags_t events) {
    pthread_once(&zf_sm_event_once, zf_sm_event_init);
    sm->pending |= events & sm->registered;
    pthread_cond_broadcast(&zf_sm_event_cond);
}

ze_result_t zfi_zesDeviceEventRegister(zes_device_handle_t hDevice, zes_event_type_flags_t events) {
    zf_sm_device *sm;
    ze_result_t result = zf_sm_device_of(hDevice, &sm);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    zf_sm_lock();
    sm->registered = events;
    sm->pending &= events;
    zf_sm_unlock();
    return ZE_RESULT_SUCCESS;
}

/* Every listened device must be a sysman device of the driver (the header's INVALID_ARGUMENT). */
static ze_result_t zf_sm_listened(ze_driver_handle_t hDriver, uint32_t count, zes_device_handle_t *phDevices,
                                  zf_sm_device **out) {
    for (uint32_t i = 0; i < count; i++) {
        if (!zf_handle_is_live(phDevices[i], ZF_OBJ_ZE_DEVICE) ||
            zf_device_from(phDevices[i])->driver != zf_driver_from(hDriver))
            return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "phDevices[%u] is not a device of hDriver", i);
        ze_result_t result = zf_sm_device_of(phDevices[i], &out[i]);
        if (result != ZE_RESULT_SUCCESS)
            return result;
    }
    return ZE_RESULT_SUCCESS;
}

/* Takes the pending events of the devices into pEvents (lock held); returns the number of devices with some. */
static uint32_t zf_sm_take_events(zf_sm_device **devices, uint32_t count, zes_event_type_flags_t *pEvents) {
    uint32_t with_events = 0;
    for (uint32_t i = 0; i < count; i++) {
        pEvents[i] = devices[i]->pending;
        devices[i]->pending = 0;
        with_events += pEvents[i] != 0;
    }
    return with_events;
}

static bool zf_sm_any_pending(zf_sm_device **devices, uint32_t count) {
    for (uint32_t i = 0; i < count; i++) {
        if (devices[i]->pending != 0)
            return true;
    }
    return false;
}

/* How often a waiting listener checks the thresholds, ms. */
#define ZF_SM_CHECK_MS 10u

/* Waits (lock held) until an event is pending or timeout_ms passes (UINT64_MAX: forever), checking the thresholds
 * first and every ZF_SM_CHECK_MS. */
static void zf_sm_wait_events(zf_sm_device **devices, uint32_t count, uint64_t timeout_ms) {
    pthread_once(&zf_sm_event_once, zf_sm_event_init);
    uint64_t deadline = timeout_ms >= UINT64_MAX / 1000000u ? UINT64_MAX : zf_host_now_ns() + timeout_ms * 1000000u;
    zf_sm_check_all();
    while (!zf_sm_any_pending(devices, count)) {
        uint64_t now = zf_host_now_ns();
        if (now >= deadline)
            break;
        uint64_t until = now + ZF_SM_CHECK_MS * 1000000u;
        until = until < deadline ? until : deadline;
        struct timespec ts = {.tv_sec = (time_t)(until / 1000000000u), .tv_nsec = (long)(until % 1000000000u)};
        zf_sm_cond_timedwait(&zf_sm_event_cond, &ts);
        zf_sm_check_all();
    }
}

/* Both listen functions: on time-out SUCCESS with no device events, as Intel's driver answers. */
static ze_result_t zf_sm_listen(ze_driver_handle_t hDriver, uint64_t timeout_ms, uint32_t count,
                                zes_device_handle_t *phDevices, uint32_t *pNumDeviceEvents,
                                zes_event_type_flags_t *pEvents) {
    zf_sm_device *devices[ZF_SCENARIO_MAX_DEVICES * (1 + ZF_SCENARIO_MAX_SUBDEVICES)];
    if (count > sizeof devices / sizeof devices[0])
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "count %u is more than the driver's %zu devices", count,
                       sizeof devices / sizeof devices[0]);
    ze_result_t result = zf_sm_listened(hDriver, count, phDevices, devices);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    zf_sm_lock();
    zf_sm_wait_events(devices, count, timeout_ms);
    *pNumDeviceEvents = zf_sm_take_events(devices, count, pEvents);
    zf_sm_unlock();
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zesDriverEventListen(ze_driver_handle_t hDriver, uint32_t timeout, uint32_t count,
                                     zes_device_handle_t *phDevices, uint32_t *pNumDeviceEvents,
                                     zes_event_type_flags_t *pEvents) {
    return zf_sm_listen(hDriver, timeout == UINT32_MAX ? UINT64_MAX : timeout, count, phDevices, pNumDeviceEvents,
                        pEvents);
}

ze_result_t zfi_zesDriverEventListenEx(ze_driver_handle_t hDriver, uint64_t timeout, uint32_t count,
                                       zes_device_handle_t *phDevices, uint32_t *pNumDeviceEvents,
                                       zes_event_type_flags_t *pEvents) {
    return zf_sm_listen(hDriver, timeout, count, phDevices, pNumDeviceEvents, pEvents);
}
