/* The composition root's lifecycle: what must be torn down across areas, in an order only the top knows. Lower areas
 * never call up into this; they expose their own release functions. */
#include "core/zf_core.h"
#include "core/zf_fault.h"
#include "core/zf_object.h"
#include "core/zf_shared.h"
#include "driver/zf_driver.h"
#include "exec/zf_exec.h"
#include "memory/zf_memory.h"
#include "tools/metrics/zf_metric.h"
#include "tools/sysman/zf_sysman.h"

ze_result_t zfi_zeContextDestroy(ze_context_handle_t hContext) {
    zf_context *context = zf_context_from(hContext);
    zf_object_unregister(&context->header); /* the handle dies before its parts */
    zf_memory_release_context(context);
    zf_memory_release_reservations(context);
    zf_context_retire(context);
    return ZE_RESULT_SUCCESS;
}

/* What the areas above the driver start at zeInit, registered once when the library loads. */
__attribute__((constructor)) static void zf_driver_load(void) {
    zf_driver_on_init(zf_metrics_start_shared);
    zf_driver_on_init(zf_sm_start);
}

/* The driver's only destructor, so that unloading happens in a fixed order: first the threads that may still touch
 * objects (metric streamer threads, engine workers, the IPC server), then the cards shared with other processes,
 * then the objects themselves. */
__attribute__((destructor)) static void zf_driver_unload(void) {
    zf_metrics_shutdown();
    zf_engines_shutdown();
    zf_spirv_shutdown();
    zf_ipc_shutdown();
    zf_shared_detach_all();
    zf_registry_release();
    zf_fault_release();
}
