/* The ITT stream (docs/xpti.md, "sycl.experimental.level_zero.itt"): ITT device annotations taken by kernels.
 *
 * They do not come through the tracer: the fake driver delivers them to the one callback set with
 * zefakeSetAnnotationCallback (zefake/zefake_ext.h), once per annotation per work-item, on its worker threads and
 * possibly on several at once. So the stream is offered only when a driver lists ZE_experimental_zefake, and the
 * callback is registered only when someone listened to the stream at start: otherwise the driver does not even
 * build an annotation.
 *
 * The callback's path takes no lock: it reads the published context (an acquire load), asks the framework whether
 * anyone listens to the annotation's trace type, and notifies with a copy of the annotation on its stack, in the
 * stream's own layout (zexpti.h), so that subscribers depend on this stream's contract and not on the driver's
 * header. The driver guarantees that once zefakeSetAnnotationCallback(NULL) returns no call of the callback is
 * running or to come; zx_itt_stop relies on it so that nothing calls into this library after finish. */
#include "zx_emitter.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <zefake/zefake_ext.h>

/* Enough for any real system; more drivers or extensions than this are not looked at rather than trusted. */
#define ZX_ITT_MAX_DRIVERS    16
#define ZX_ITT_MAX_EXTENSIONS 1024

/* The driver's struct is read up to atomic_order: a shorter one (a driver older than the extension's first version,
 * or a bad one) is dropped rather than read past its end. */
#define ZX_ITT_DRIVER_MIN (offsetof(zefake_annotation_t, atomic_order) + sizeof(uint32_t))

/* The stream's kinds are the driver's values, and the payload's layout is what docs/xpti.md documents. */
_Static_assert(ZX_ITT_WI_START == (int)ZEFAKE_ANNOTATION_WI_START, "kind values");
_Static_assert(ZX_ITT_WI_FINISH == (int)ZEFAKE_ANNOTATION_WI_FINISH, "kind values");
_Static_assert(ZX_ITT_WG_BARRIER == (int)ZEFAKE_ANNOTATION_WG_BARRIER, "kind values");
_Static_assert(ZX_ITT_WI_RESUME == (int)ZEFAKE_ANNOTATION_WI_RESUME, "kind values");
_Static_assert(ZX_ITT_ATOMIC_OP_START == (int)ZEFAKE_ANNOTATION_ATOMIC_OP_START, "kind values");
_Static_assert(ZX_ITT_ATOMIC_OP_FINISH == (int)ZEFAKE_ANNOTATION_ATOMIC_OP_FINISH, "kind values");
_Static_assert(offsetof(zx_itt_annotation, kernel_name) == 8, "documented layout");
_Static_assert(offsetof(zx_itt_annotation, group_id) == 24, "documented layout");
_Static_assert(offsetof(zx_itt_annotation, local_id) == 48, "documented layout");
_Static_assert(offsetof(zx_itt_annotation, work_item_id) == 72, "documented layout");
_Static_assert(offsetof(zx_itt_annotation, atomic_object) == 88, "documented layout");
_Static_assert(sizeof(zx_itt_annotation) == 104, "documented layout");

typedef ze_result_t(ZE_APICALL *zx_pfn_driver_get)(uint32_t *, ze_driver_handle_t *);
typedef ze_result_t(ZE_APICALL *zx_pfn_extensions)(ze_driver_handle_t, uint32_t *, ze_driver_extension_properties_t *);
typedef ze_result_t(ZE_APICALL *zx_pfn_extension_function)(ze_driver_handle_t, const char *, void **);

/* Under the set-up lock (the callback never reads them). */
static zefake_pfnSetAnnotationCallback_t zx_itt_set;
static bool zx_itt_registered;

/* ------------------------------------------------------------------------------------------------------------------
 * The callback (driver worker threads) */

static void zx_itt_copy(zx_itt_annotation *out, const zefake_annotation_t *a) {
    *out = (zx_itt_annotation){
        .size = sizeof *out,
        .kind = (uint32_t)a->kind,
        .kernel_name = a->kernel_name != NULL ? a->kernel_name : "",
        .device = (void *)a->device,
        .group_id = {a->group_id[0], a->group_id[1], a->group_id[2]},
        .local_id = {a->local_id[0], a->local_id[1], a->local_id[2]},
        .work_item_id = a->work_item_id,
        .group_size = a->group_size,
        .atomic_op = a->atomic_op,
        .atomic_object = a->atomic_object,
        .atomic_order = a->atomic_order,
    };
}

static void ZE_APICALL zx_itt_on_annotation(const zefake_annotation_t *a, void *user_data) {
    (void)user_data;
    const zx_ctx *ctx = zx_ctx_get();
    if (ctx == NULL || a == NULL || a->size < ZX_ITT_DRIVER_MIN || (uint32_t)a->kind >= ZX_ITT_KIND_COUNT)
        return;
    uint16_t type = (uint16_t)(ZX_TP_ITT_BASE + (uint32_t)a->kind);
    if (!zx_wants(ctx, ZX_S_ITT, type))
        return;
    zx_itt_annotation payload;
    zx_itt_copy(&payload, a);
    zx_notify(ctx, ZX_S_ITT, type, NULL, NULL, payload.work_item_id, &payload);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Finding the extension */

static bool zx_itt_listed(zx_pfn_extensions extensions, ze_driver_handle_t driver) {
    uint32_t count = 0;
    if (extensions(driver, &count, NULL) != ZE_RESULT_SUCCESS || count == 0)
        return false;
    count = count < ZX_ITT_MAX_EXTENSIONS ? count : ZX_ITT_MAX_EXTENSIONS;
    ze_driver_extension_properties_t *props = calloc(count, sizeof *props);
    bool found = false;
    if (props != NULL && extensions(driver, &count, props) == ZE_RESULT_SUCCESS) {
        for (uint32_t i = 0; i < count && i < ZX_ITT_MAX_EXTENSIONS && !found; i++)
            found = strncmp(props[i].name, ZEFAKE_EXTENSION_NAME, sizeof props[i].name) == 0;
    }
    free(props);
    return found;
}

/* The first driver that lists the extension and hands out the function. The callback is global to the fake driver,
 * so one is enough. */
static zefake_pfnSetAnnotationCallback_t zx_itt_find(void) {
    zx_pfn_driver_get driver_get;
    zx_pfn_extensions extensions;
    zx_pfn_extension_function function;
    *(void **)&driver_get = zx_loader_symbol("zeDriverGet");
    *(void **)&extensions = zx_loader_symbol("zeDriverGetExtensionProperties");
    *(void **)&function = zx_loader_symbol("zeDriverGetExtensionFunctionAddress");
    ze_driver_handle_t drivers[ZX_ITT_MAX_DRIVERS];
    uint32_t count = ZX_ITT_MAX_DRIVERS;
    if (driver_get == NULL || extensions == NULL || function == NULL ||
        driver_get(&count, drivers) != ZE_RESULT_SUCCESS)
        return NULL;
    for (uint32_t i = 0; i < count && i < ZX_ITT_MAX_DRIVERS; i++) {
        void *address = NULL;
        if (zx_itt_listed(extensions, drivers[i]) &&
            function(drivers[i], ZEFAKE_FN_SET_ANNOTATION_CALLBACK, &address) == ZE_RESULT_SUCCESS && address != NULL) {
            zefake_pfnSetAnnotationCallback_t set;
            *(void **)&set = address;
            return set;
        }
    }
    return NULL;
}

bool zx_itt_probe(void) {
    zx_itt_set = zx_itt_find();
    if (zx_itt_set == NULL)
        zx_diag("info: no Level Zero driver offers %s (%s); stream %s not offered", ZEFAKE_EXTENSION_NAME,
                ZEFAKE_FN_SET_ANNOTATION_CALLBACK, ZX_STREAM_ITT);
    return zx_itt_set != NULL;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Start and stop */

void zx_itt_start(const zx_ctx *ctx) {
    if (zx_itt_set == NULL || !ctx->listened[ZX_S_ITT])
        return;
    ze_result_t result = zx_itt_set(zx_itt_on_annotation, NULL);
    zx_itt_registered = result == ZE_RESULT_SUCCESS;
    if (!zx_itt_registered)
        zx_diag("cannot set the ITT annotation callback (0x%x); stream %s stays silent", (unsigned)result,
                ZX_STREAM_ITT);
}

/* The driver holds one callback: this removes whichever is set, the emitter's unless a tool replaced it since. */
void zx_itt_stop(void) {
    if (zx_itt_registered)
        zx_itt_set(NULL, NULL);
    zx_itt_registered = false;
}
