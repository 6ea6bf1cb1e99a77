/* The tracing layer's tracers and the hooks its generated wrappers call: a face over the driver tree's tracer core
 * (common/tracecore/zf_tracecore.h, which states the rules: snapshots, pairing, destroy). The layer's
 * callback tables are arrays indexed by zl_api_id, covering the functions newer than the 1.0 set too. */
#ifndef ZL_TRACER_H
#define ZL_TRACER_H

#include "zf_tracecore.h"
#include "zl_generated.h"

#include <layers/zel_tracing_register_cb.h>

/* The layer's tracers; the generated wrappers trace through it (an idle core costs one load per call). */
extern zf_tracecore zl_core;

/* zelTracer<Name>RegisterCallback for the function `api`. */
ze_result_t zl_tracer_register(zel_tracer_handle_t hTracer, zl_api_id api, zel_tracer_reg_t type, zl_cb callback);

/* Called by the table getters: the loader has loaded the layer, so tracers may be created. */
void zl_layer_loaded(void);

#endif
