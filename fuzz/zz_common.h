/* What the fuzz targets share (docs/fuzzing.md): the driver's dispatch tables for targets that go through the Level
 * Zero API, small launches of decoded kernels on the execution engine, and the replay of saved inputs when a target
 * is built without libFuzzer.
 *
 * The targets link the driver statically (zf_core, the generated entry points and the composition root), so the
 * dispatch tables come straight from the driver's getters, the same functions the loader calls, without a loader in
 * between. */
#ifndef ZZ_COMMON_H
#define ZZ_COMMON_H

#include "spirv_exec.h"

#include <level_zero/ze_ddi.h>
#include <level_zero/zet_ddi.h>
#include <stddef.h>
#include <stdint.h>

/* libFuzzer's entry point, which every target defines. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Runs `one` on the contents of each file named in argv[1..] (directories are not read): what a target's main() does
 * without libFuzzer, so that saved reproducers run in the ordinary build. Returns the exit status. */
int zz_replay(int argc, char **argv, int (*one)(const uint8_t *data, size_t size));

/* The driver once initialized for the whole process: zeInit, the first driver and device, one context. */
typedef struct zz_api {
    ze_global_dditable_t global;
    ze_driver_dditable_t driver;
    ze_device_dditable_t device;
    ze_context_dditable_t context;
    ze_mem_dditable_t mem;
    ze_event_pool_dditable_t event_pool;
    ze_event_dditable_t event;
    ze_module_dditable_t module;
    ze_kernel_dditable_t kernel;
    ze_command_list_dditable_t command_list;
    ze_command_queue_dditable_t command_queue;
    ze_sampler_dditable_t sampler;
    ze_image_dditable_t image;
    zet_metric_group_dditable_t metric_group;
    zet_metric_group_exp_dditable_t metric_group_exp;
    zet_metric_dditable_t metric;
    ze_driver_handle_t hdriver;
    ze_device_handle_t hdevice;
    ze_context_handle_t hcontext;
} zz_api;

/* Aborts when the driver cannot start: a target without its driver would fuzz nothing. */
const zz_api *zz_api_get(void);

/* A reader of the fuzz input for choices (kernel, group size, argument bytes); reads past the end give zeros. */
typedef struct zz_bytes {
    const uint8_t *data;
    size_t size;
    size_t at;
} zz_bytes;
uint8_t zz_take8(zz_bytes *bytes);
uint32_t zz_take32(zz_bytes *bytes);

/* Launches one kernel of a decoded program small (1-2 work-groups of 1-8 work-items, pointer arguments bound to
 * small buffers, other arguments from `choices`). A loop whose exit a mutation removed is stopped by the engine's hang
 * detector after ZZ_HANG_TIMEOUT_NS of host time. */
void zz_launch_small(const zf_spirv_module *module, const zf_dprog *prog, zz_bytes *choices);

#endif
