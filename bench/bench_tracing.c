/* Cost of a traced zeDeviceGetProperties, with one enabled tracer whose prologue and epilogue are empty, as a ratio
 * to the same call untraced, for the driver's own tracer (zetTracerExp*), the loader's stock tracing layer and
 * layers/tracing. Each configuration needs its own loader set-up, so each runs in a child process (this program
 * re-executed) that measures its own untraced baseline in the same process.
 * Usage: zefake-bench-tracing [--quick]; the layer's directory is compiled in (ZB_LAYER_DIR). */
#include <dlfcn.h>
#include <level_zero/layers/zel_tracing_api.h>
#include <level_zero/ze_api.h>
#include <level_zero/zet_api.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define ZB_PROGRAM "zefake-bench-tracing"
#include "zb_bench.h"

#define ZB_REPEATS 7

typedef struct zb_config {
    const char *name;   /* as printed */
    const char *mode;   /* the child's tracer API: "driver" or "layer" */
    bool tracing_layer; /* ZE_ENABLE_TRACING_LAYER=1 */
    bool our_layer;     /* layers/tracing first in LD_LIBRARY_PATH */
} zb_config;

static const zb_config zb_configs[] = {
    {"stock tracing layer", "layer", true, false},
    {"our tracing layer", "layer", true, true},
    {"driver tracer (zetTracerExp)", "driver", false, false},
};

/* ------------------------------------------------------------------------------------------------------------------
 * The child: one configuration */

static void ZE_APICALL zb_empty_callback(ze_device_get_properties_params_t *params, ze_result_t result, void *user_data,
                                         void **instance) {
    (void)params;
    (void)result;
    (void)user_data;
    (void)instance;
}

/* Median ns per zeDeviceGetProperties over ZB_REPEATS runs. */
static double zb_properties(ze_device_handle_t device, uint64_t iterations) {
    ze_device_properties_t props = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
    double samples[ZB_REPEATS];
    for (uint64_t i = 0; i < iterations / 10 + 1; i++) /* warm up */
        zeDeviceGetProperties(device, &props);
    for (int r = 0; r < ZB_REPEATS; r++) {
        uint64_t start = zb_now_ns();
        for (uint64_t i = 0; i < iterations; i++)
            zeDeviceGetProperties(device, &props);
        samples[r] = (double)(zb_now_ns() - start) / (double)iterations;
    }
    return zb_median(samples, ZB_REPEATS);
}

static bool zb_device(ze_driver_handle_t *driver, ze_device_handle_t *device) {
    uint32_t count = 1;
    if (zeInit(0) != ZE_RESULT_SUCCESS || zeDriverGet(&count, driver) != ZE_RESULT_SUCCESS || count == 0)
        return false;
    count = 1;
    return zeDeviceGet(*driver, &count, device) == ZE_RESULT_SUCCESS && count == 1;
}

/* An enabled tracer with the empty callbacks, through the driver's tools API or the layer's API. */
static bool zb_enable_tracer(const char *mode, ze_driver_handle_t driver) {
    static int user_data;
    ze_callbacks_t callbacks = {0};
    callbacks.Device.pfnGetPropertiesCb = zb_empty_callback;
    if (strcmp(mode, "driver") == 0) {
        ze_context_desc_t context_desc = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0};
        ze_context_handle_t context = NULL;
        zet_tracer_exp_desc_t desc = {ZET_STRUCTURE_TYPE_TRACER_EXP_DESC, NULL, &user_data};
        zet_tracer_exp_handle_t tracer = NULL;
        return zeContextCreate(driver, &context_desc, &context) == ZE_RESULT_SUCCESS &&
               zetTracerExpCreate(context, &desc, &tracer) == ZE_RESULT_SUCCESS &&
               zetTracerExpSetPrologues(tracer, &callbacks) == ZE_RESULT_SUCCESS &&
               zetTracerExpSetEpilogues(tracer, &callbacks) == ZE_RESULT_SUCCESS &&
               zetTracerExpSetEnabled(tracer, 1) == ZE_RESULT_SUCCESS;
    }
    zel_tracer_desc_t desc = {ZEL_STRUCTURE_TYPE_TRACER_DESC, NULL, &user_data};
    zel_tracer_handle_t tracer = NULL;
    return zelTracerCreate(&desc, &tracer) == ZE_RESULT_SUCCESS &&
           zelTracerSetPrologues(tracer, &callbacks) == ZE_RESULT_SUCCESS &&
           zelTracerSetEpilogues(tracer, &callbacks) == ZE_RESULT_SUCCESS &&
           zelTracerSetEnabled(tracer, 1) == ZE_RESULT_SUCCESS;
}

/* Which tracing layer the loader loaded: ours exports zelTracerResetAllCallbacks, the stock one does not. */
static const char *zb_loaded_layer(void) {
    void *layer = dlopen("libze_tracing_layer.so.1", RTLD_NOLOAD | RTLD_LAZY);
    if (layer == NULL)
        return "none";
    bool ours = dlsym(layer, "zelTracerResetAllCallbacks") != NULL;
    dlclose(layer);
    return ours ? "ours" : "stock";
}

static int zb_child(const char *mode, uint64_t iterations) {
    ze_driver_handle_t driver;
    ze_device_handle_t device;
    if (!zb_device(&driver, &device)) {
        fprintf(stderr, "zefake-bench-tracing: no driver (set ZE_ENABLE_ALT_DRIVERS)\n");
        return EXIT_FAILURE;
    }
    double untraced = zb_properties(device, iterations);
    if (!zb_enable_tracer(mode, driver)) {
        fprintf(stderr, "zefake-bench-tracing: cannot enable a %s tracer\n", mode);
        return EXIT_FAILURE;
    }
    double traced = zb_properties(device, iterations);
    printf("layer=%s untraced=%.1f traced=%.1f ratio=%.2f\n", zb_loaded_layer(), untraced, traced, traced / untraced);
    return EXIT_SUCCESS;
}

/* ------------------------------------------------------------------------------------------------------------------
 * The parent: one child per configuration */

static void zb_child_environment(const zb_config *config) {
    if (config->tracing_layer)
        setenv("ZE_ENABLE_TRACING_LAYER", "1", 1);
    else
        unsetenv("ZE_ENABLE_TRACING_LAYER");
    if (!config->our_layer)
        return;
    const char *old = getenv("LD_LIBRARY_PATH");
    char path[8192];
    snprintf(path, sizeof path, "%s%s%s", ZB_LAYER_DIR, old != NULL && *old != '\0' ? ":" : "", old ? old : "");
    setenv("LD_LIBRARY_PATH", path, 1);
}

static void zb_prepare_child(const void *config) {
    zb_child_environment(config);
}

/* Runs one configuration; its report line goes into `line`. */
static bool zb_run_child(const zb_config *config, bool quick, char *line, size_t size) {
    char *args[] = {"zefake-bench-tracing", "--child", (char *)config->mode, quick ? "--quick" : NULL, NULL};
    return zb_child_line(args, zb_prepare_child, config, line, size);
}

int main(int argc, char **argv) {
    bool quick = false;
    const char *child_mode = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0)
            quick = true;
        else if (strcmp(argv[i], "--child") == 0 && i + 1 < argc)
            child_mode = argv[++i];
    }
    uint64_t iterations = quick ? 20000 : 1000000;
    if (child_mode != NULL)
        return zb_child(child_mode, iterations);
    int status = EXIT_SUCCESS;
    printf("traced zeDeviceGetProperties, one enabled tracer with empty callbacks (ns per call, ratio to untraced):\n");
    for (size_t i = 0; i < sizeof zb_configs / sizeof zb_configs[0]; i++) {
        char line[256] = "";
        if (!zb_run_child(&zb_configs[i], quick, line, sizeof line)) {
            printf("  %-30s failed\n", zb_configs[i].name);
            status = EXIT_FAILURE;
            continue;
        }
        printf("  %-30s %s", zb_configs[i].name, line);
    }
    return status;
}
