/* Event pools and events: signalled by the host or by commands, waited for by the host or by commands, with kernel
 * timestamps from the device clock when the pool asks for them. */
#include "core/zf_core.h"
#include "exec/zf_event_ipc.h"
#include "exec/zf_exec.h"

#include <stdlib.h>
#include <sys/mman.h>

static zf_event_pool *zf_pool_from(ze_event_pool_handle_t handle) {
    return (zf_event_pool *)handle;
}

static ze_result_t zf_pool_check_devices(zf_context *context, uint32_t num_devices, ze_device_handle_t *devices) {
    for (uint32_t i = 0; i < num_devices; i++) {
        if (!zf_handle_is_live(devices[i], ZF_OBJ_ZE_DEVICE))
            return zf_fail(ZE_RESULT_ERROR_INVALID_NULL_HANDLE, "phDevices[%u] (%p) is not a live device handle", i,
                           (void *)devices[i]);
        if (zf_device_from(devices[i])->driver != context->driver)
            return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "phDevices[%u] belongs to another driver", i);
    }
    return ZE_RESULT_SUCCESS;
}

/* The most events a pool may hold: what the smallest maxMemAllocSize of its devices (those named, else the
 * context's) holds of ZF_EVENT_DEVICE_BYTES each. */
static uint64_t zf_pool_max_events(const zf_context *context, uint32_t num_devices, ze_device_handle_t *devices) {
    uint64_t smallest = UINT64_MAX;
    for (uint32_t i = 0; i < (num_devices > 0 ? num_devices : context->num_devices); i++) {
        const zf_device *device = num_devices > 0 ? zf_device_from(devices[i]) : context->devices[i];
        uint64_t size = device->desc->max_mem_alloc_size_bytes;
        smallest = size < smallest ? size : smallest;
    }
    return smallest / ZF_EVENT_DEVICE_BYTES;
}

static ze_result_t zf_pool_check_count(const zf_context *context, uint32_t count, uint32_t num_devices,
                                       ze_device_handle_t *devices) {
    uint64_t most = zf_pool_max_events(context, num_devices, devices);
    if (count <= most)
        return ZE_RESULT_SUCCESS;
    return zf_fail(ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY,
                   "desc->count %u: a pool holds at most %llu events (maxMemAllocSize / %u bytes per event)", count,
                   (unsigned long long)most, ZF_EVENT_DEVICE_BYTES);
}

/* The pool's slots by index. A large pool's are pages the system lends only where events are created (no reservation
 * of swap: MAP_NORESERVE), so a pool of 2^30 events costs what its live events use. */
#define ZF_POOL_MAPPED_BYTES ((size_t)1 << 20)

static zf_event **zf_pool_slots_new(uint32_t count) {
    size_t bytes = (size_t)count * sizeof(zf_event *);
    if (bytes < ZF_POOL_MAPPED_BYTES)
        return calloc(count, sizeof(zf_event *));
    void *slots = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    return slots == MAP_FAILED ? NULL : slots;
}

static void zf_pool_slots_free(zf_event **slots, uint32_t count) {
    size_t bytes = (size_t)count * sizeof(zf_event *);
    if (bytes < ZF_POOL_MAPPED_BYTES)
        free(slots);
    else if (slots != NULL)
        munmap(slots, bytes);
}

ze_result_t zfi_zeEventPoolCreate(ze_context_handle_t hContext, const ze_event_pool_desc_t *desc, uint32_t numDevices,
                                  ze_device_handle_t *phDevices, ze_event_pool_handle_t *phEventPool) {
    zf_context *context = zf_context_from(hContext);
    ze_result_t result = zf_pool_check_devices(context, numDevices, phDevices);
    if (result == ZE_RESULT_SUCCESS)
        result = zf_pool_check_count(context, desc->count, numDevices, phDevices);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    zf_event_pool *pool = calloc(1, sizeof *pool);
    if (pool == NULL)
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory for an event pool");
    pool->events = zf_pool_slots_new(desc->count);
    if (pool->events == NULL) {
        free(pool);
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory for %u events", desc->count);
    }
    pool->context = context;
    pool->flags = desc->flags;
    pool->count = desc->count;
    atomic_init(&pool->refs, 1);
    if (!zf_object_register(&pool->header, ZF_OBJ_ZE_EVENT_POOL, &context->header)) {
        zf_pool_slots_free(pool->events, pool->count);
        free(pool);
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory to register an event pool");
    }
    *phEventPool = (ze_event_pool_handle_t)pool;
    return ZE_RESULT_SUCCESS;
}

static bool zf_pool_has_events(zf_event_pool *pool) {
    return atomic_load(&pool->refs) > (zf_handle_is_live(pool, ZF_OBJ_ZE_EVENT_POOL) ? 1u : 0u);
}

static void zf_pool_free(zf_event_pool *pool) {
    zf_pool_slots_free(pool->events, pool->count);
    zf_object_retire(&pool->header);
}

/* Drops one reference (the handle's or an event's): the last frees the pool. */
static void zf_pool_unref(zf_event_pool *pool) {
    if (atomic_fetch_sub(&pool->refs, 1) == 1)
        zf_pool_free(pool);
}

/* Intel's driver destroys a pool whose events are alive and frees the memory they live in (docs/tolerances.md);
 * zefake kills the pool's handle at once and keeps its memory until its last event is destroyed, so that the events
 * stay usable until then instead of reading freed memory. The pool's references decide who frees it: the destroy
 * costs the same whatever the pool's count, and takes no lock of the driver's. */
ze_result_t zfi_zeEventPoolDestroy(ze_event_pool_handle_t hEventPool) {
    zf_event_pool *pool = zf_pool_from(hEventPool);
    bool busy = zf_pool_has_events(pool);
    if (busy && zf_strict())
        return zf_fail(ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE, "events created from the pool must be destroyed first");
    ze_result_t result = zf_event_ipc_pool_destroy(pool); /* stops sharing it; refuses an opened one */
    if (result != ZE_RESULT_SUCCESS)
        return result;
    if (busy)
        zf_tolerate("the application must destroy all event handles created from the pool before destroying the pool "
                    "itself",
                    "destroyed the pool");
    zf_object_unregister(&pool->header);
    zf_pool_unref(pool);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zeEventCreate(ze_event_pool_handle_t hEventPool, const ze_event_desc_t *desc,
                              ze_event_handle_t *phEvent) {
    zf_event_pool *pool = zf_pool_from(hEventPool);
    if (desc->index >= pool->count)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "desc->index %u is not less than the pool's count %u",
                       desc->index, pool->count);
    zf_event *event = calloc(1, sizeof *event);
    if (event == NULL)
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory for an event");
    event->pool = pool;
    event->index = desc->index;
    event->signal_scope = desc->signal;
    event->wait_scope = desc->wait;
    zf_sync_lock();
    bool taken = pool->events[desc->index] != NULL;
    if (!taken) {
        pool->events[desc->index] = event;
        atomic_fetch_add(&pool->refs, 1); /* before the event is seen: a destroy of the pool then keeps it */
    }
    zf_sync_unlock();
    if (taken) {
        free(event);
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "desc->index %u already holds a live event", desc->index);
    }
    if (!zf_object_register(&event->header, ZF_OBJ_ZE_EVENT, &pool->header)) {
        zf_sync_lock();
        pool->events[desc->index] = NULL;
        zf_sync_unlock();
        free(event);
        zf_pool_unref(pool);
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory to register an event");
    }
    zf_event_ipc_event_created(event);
    *phEvent = (ze_event_handle_t)event;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zeEventDestroy(ze_event_handle_t hEvent) {
    zf_event *event = zf_event_from(hEvent);
    zf_object_unregister(&event->header);
    zf_event_ipc_event_destroyed(event);
    zf_event_pool *pool = event->pool;
    zf_sync_lock();
    pool->events[event->index] = NULL;
    zf_sync_unlock();
    zf_object_retire(&event->header);
    zf_pool_unref(pool); /* the last event of a pool destroyed before its events frees it (zfi_zeEventPoolDestroy) */
    return ZE_RESULT_SUCCESS;
}

static zf_device *zf_context_first_device(zf_context *context) {
    return context->num_devices > 0 ? context->devices[0] : NULL;
}

ze_result_t zfi_zeEventHostSignal(ze_event_handle_t hEvent) {
    zf_event *event = zf_event_from(hEvent);
    zf_device *device = zf_context_first_device(event->pool->context);
    uint64_t now = device != NULL ? zf_clock_now_ns(zf_device_clock(device)) : 0;
    zf_sync_lock();
    event->signal_ns = now;
    event->start_ns = now;
    event->end_ns = now;
    event->timestamp_device = device;
    event->signaled = true; /* last: see zf_event */
    zf_event_ipc_host_changed(event);
    zf_sync_broadcast();
    zf_sync_unlock();
    return ZE_RESULT_SUCCESS;
}

/* The host has seen the event signalled: the device clock cannot read earlier than the signal. */
static inline void zf_event_observed(const zf_event *event) {
    zf_device *device = atomic_load_explicit(&event->timestamp_device, memory_order_relaxed);
    if (device != NULL)
        zf_clock_observe(zf_device_clock(device), atomic_load_explicit(&event->signal_ns, memory_order_relaxed));
}

static bool zf_event_is_signaled(const void *event) {
    return atomic_load_explicit(&((const zf_event *)event)->signaled, memory_order_acquire);
}

/* A signalled event is seen without the sync lock (an atomic read, no clock read); only a wait takes the lock. */
ze_result_t zfi_zeEventHostSynchronize(ze_event_handle_t hEvent, uint64_t timeout) {
    zf_event *event = zf_event_from(hEvent);
    if (!zf_event_is_signaled(event)) {
        if (timeout == 0)
            return ZE_RESULT_NOT_READY;
        zf_sync_lock();
        bool set = zf_sync_await(zf_event_is_signaled, event, timeout);
        zf_sync_unlock();
        if (!set)
            return ZE_RESULT_NOT_READY;
    }
    zf_event_observed(event);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zeEventQueryStatus(ze_event_handle_t hEvent) {
    zf_event *event = zf_event_from(hEvent);
    if (!zf_event_is_signaled(event))
        return ZE_RESULT_NOT_READY;
    zf_event_observed(event);
    return ZE_RESULT_SUCCESS;
}

bool zf_event_failed(ze_event_handle_t hEvent) {
    const zf_event *event = zf_event_from(hEvent);
    return event->signaled && event->faulted;
}

ze_result_t zfi_zeEventHostReset(ze_event_handle_t hEvent) {
    zf_event *event = zf_event_from(hEvent);
    zf_sync_lock();
    event->signaled = false;
    event->faulted = false;
    zf_event_ipc_host_changed(event);
    zf_sync_unlock();
    return ZE_RESULT_SUCCESS;
}

ze_result_t zf_event_timestamp_snapshot(zf_event *event, zf_event *copy) {
    if (!zf_pool_has_timestamps(event->pool))
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT,
                       "the event's pool was not created with KERNEL_TIMESTAMP (or KERNEL_MAPPED_TIMESTAMP)");
    zf_sync_lock();
    bool ready = event->signaled && event->timestamp_device != NULL;
    *copy = *event;
    zf_sync_unlock();
    return ready ? ZE_RESULT_SUCCESS : ZE_RESULT_NOT_READY;
}

ze_result_t zfi_zeEventQueryKernelTimestamp(ze_event_handle_t hEvent, ze_kernel_timestamp_result_t *dstptr) {
    zf_event copy;
    ze_result_t result = zf_event_timestamp_snapshot(zf_event_from(hEvent), &copy);
    if (result == ZE_RESULT_SUCCESS)
        zf_event_write_kernel_timestamp(&copy, dstptr);
    return result;
}

#if ZF_L0_AT_LEAST(9)
/* What the pool and the event were created with: the application may ask from any thread, lock-free. */
ze_result_t zfi_zeEventPoolGetContextHandle(ze_event_pool_handle_t hEventPool, ze_context_handle_t *phContext) {
    *phContext = (ze_context_handle_t)zf_pool_from(hEventPool)->context;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zeEventPoolGetFlags(ze_event_pool_handle_t hEventPool, ze_event_pool_flags_t *pFlags) {
    *pFlags = zf_pool_from(hEventPool)->flags;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zeEventGetEventPool(ze_event_handle_t hEvent, ze_event_pool_handle_t *phEventPool) {
    *phEventPool = (ze_event_pool_handle_t)zf_event_from(hEvent)->pool;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zeEventGetSignalScope(ze_event_handle_t hEvent, ze_event_scope_flags_t *pSignalScope) {
    *pSignalScope = zf_event_from(hEvent)->signal_scope;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zfi_zeEventGetWaitScope(ze_event_handle_t hEvent, ze_event_scope_flags_t *pWaitScope) {
    *pWaitScope = zf_event_from(hEvent)->wait_scope;
    return ZE_RESULT_SUCCESS;
}
#endif

/* ------------------------------------------------------------------------------------------------------------------
 * Event timestamps per device */

/* Which timestamps a device reports for an event (zeEventQueryTimestampsExp, zeEventQueryKernelTimestampsExt). A
 * kernel on a root device of N tiles ran on each of them (implicit scaling): the root reports N timestamps, one per
 * tile, and a tile its own. Any other command ran on one engine: one timestamp, which the device that ran it, its root
 * device and its card's other tiles all report. A device of another card has none. */
static uint32_t zf_timestamps_available(const zf_event *copy, const zf_device *device) {
    const zf_device *ran = copy->timestamp_device;
    if (copy->tiles > 1 && device == ran)
        return copy->tiles;
    return ran->root == device->root ? 1 : 0;
}

/* Timestamp t of those, as device time in ns. */
static void zf_timestamp_interval(const zf_event *copy, const zf_device *device, uint32_t t, uint64_t *start,
                                  uint64_t *end) {
    const zf_device *ran = copy->timestamp_device;
    uint32_t tile = UINT32_MAX;
    if (copy->tiles > 1 && device == ran)
        tile = t;
    else if (copy->tiles > 1 && device->is_subdevice && device->root == ran)
        tile = (uint32_t)(device - ran->subdevices);
    *start = copy->start_ns;
    *end = tile < copy->tiles ? copy->tile_end_ns[tile] : copy->end_ns;
}

ze_result_t zfi_zeEventQueryTimestampsExp(ze_event_handle_t hEvent, ze_device_handle_t hDevice, uint32_t *pCount,
                                          ze_kernel_timestamp_result_t *pTimestamps) {
    const zf_device *device = zf_device_from(hDevice);
    zf_event copy;
    ze_result_t result = zf_event_timestamp_snapshot(zf_event_from(hEvent), &copy);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    uint32_t count = zf_count_query(pCount, zf_timestamps_available(&copy, device), pTimestamps);
    for (uint32_t t = 0; t < count; t++) {
        uint64_t start, end;
        zf_timestamp_interval(&copy, device, t, &start, &end);
        zf_event_write_interval(&copy, start, end, &pTimestamps[t]);
    }
    return ZE_RESULT_SUCCESS;
}

#if ZF_L0_AT_LEAST(6)
/* ZE_extension_event_query_kernel_timestamps: the kernel timestamps of zeEventQueryTimestampsExp and, for an event of
 * a pool created with ZE_EVENT_POOL_FLAG_KERNEL_MAPPED_TIMESTAMP, the same intervals on the host's clock in ns (the
 * clock zeDeviceGetGlobalTimestamps pairs the device's with); the context-active intervals equal the global ones, as
 * the device runs one context at a time. An unsignalled event leaves the buffers unmodified. */
ze_result_t zfi_zeEventQueryKernelTimestampsExt(ze_event_handle_t hEvent, ze_device_handle_t hDevice, uint32_t *pCount,
                                                ze_event_query_kernel_timestamps_results_ext_properties_t *pResults) {
    const zf_device *device = zf_device_from(hDevice);
    zf_event copy;
    ze_result_t result = zf_event_timestamp_snapshot(zf_event_from(hEvent), &copy);
    if (result == ZE_RESULT_NOT_READY && *pCount == 0) {
        *pCount = zf_device_tiles(device);
        return ZE_RESULT_SUCCESS; /* the number of packets is known before the signal */
    }
    if (result != ZE_RESULT_SUCCESS)
        return result;
    uint32_t available = zf_timestamps_available(&copy, device);
    if (*pCount == 0 || pResults == NULL) {
        *pCount = available;
        return ZE_RESULT_SUCCESS;
    }
    if (pResults->stype != ZE_STRUCTURE_TYPE_EVENT_QUERY_KERNEL_TIMESTAMPS_RESULTS_EXT_PROPERTIES)
        return zf_fail(
            ZE_RESULT_ERROR_INVALID_ARGUMENT,
            "pResults->stype is 0x%x, not ZE_STRUCTURE_TYPE_EVENT_QUERY_KERNEL_TIMESTAMPS_RESULTS_EXT_PROPERTIES",
            (unsigned)pResults->stype);
    bool mapped = (copy.pool->flags & ZE_EVENT_POOL_FLAG_KERNEL_MAPPED_TIMESTAMP) != 0;
    uint32_t count = *pCount < available ? *pCount : available;
    const zf_clock *clock = zf_device_clock(copy.timestamp_device);
    for (uint32_t t = 0; t < count; t++) {
        uint64_t start, end;
        zf_timestamp_interval(&copy, device, t, &start, &end);
        if (pResults->pKernelTimestampsBuffer != NULL)
            zf_event_write_interval(&copy, start, end, &pResults->pKernelTimestampsBuffer[t]);
        if (mapped && pResults->pSynchronizedTimestampsBuffer != NULL) {
            ze_synchronized_timestamp_data_ext_t host = {zf_clock_host_ns(clock, start), zf_clock_host_ns(clock, end)};
            pResults->pSynchronizedTimestampsBuffer[t] = (ze_synchronized_timestamp_result_ext_t){host, host};
        }
    }
    *pCount = count;
    return ZE_RESULT_SUCCESS;
}
#endif
