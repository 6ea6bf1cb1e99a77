/* Functions the loader may lack (zc_harness.h, ZC_API): the loader's export first, else the driver's own dispatch
 * tables. The driver is loaded as a loader loads it: dlopen of the file ZE_ENABLE_ALT_DRIVERS names (its first
 * entry), then every getter of zc_ddi.h asked with the headers' version; a getter the driver lacks leaves its table
 * empty. The tables are used only while the loader hands out the driver's own handles, as Debian's loader does with
 * one driver and no interception: the first driver handle of the loader and of the driver's zeDriverGet agree. */
#include "zc_harness.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static zc_ddi zc_tables;
static bool zc_tables_usable;
static pthread_once_t zc_tables_once = PTHREAD_ONCE_INIT;

/* The first entry of ZE_ENABLE_ALT_DRIVERS (comma separated), or NULL. */
static char *zc_driver_file(void) {
    const char *list = getenv("ZE_ENABLE_ALT_DRIVERS");
    if (list == NULL || *list == '\0')
        return NULL;
    size_t n = strcspn(list, ",");
    char *file = malloc(n + 1);
    if (file != NULL) {
        memcpy(file, list, n);
        file[n] = '\0';
    }
    return file;
}

/* With one driver and no interception the loader's driver handle is the driver's; a loader that is not initialised
 * yet has handed out no handle, so none can be mixed up. */
static bool zc_loader_passes_driver_handles(void) {
    uint32_t count = 1;
    ze_driver_handle_t from_loader = NULL, from_driver = NULL;
    if (zeDriverGet(&count, &from_loader) != ZE_RESULT_SUCCESS || count == 0)
        return true;
    count = 1;
    if (zc_tables.zeGetDriverProcAddrTable.pfnGet == NULL ||
        zc_tables.zeGetDriverProcAddrTable.pfnGet(&count, &from_driver) != ZE_RESULT_SUCCESS)
        return false;
    return from_loader == from_driver;
}

static void zc_tables_load(void) {
    char *file = zc_driver_file();
    void *lib = file != NULL ? dlopen(file, RTLD_NOW | RTLD_LOCAL) : NULL;
    free(file);
    if (lib == NULL)
        return;
#define ZC_FILL(getter, type)                                                                                          \
    do {                                                                                                               \
        ze_result_t(ZE_APICALL *fill)(ze_api_version_t, type *);                                                       \
        *(void **)&fill = dlsym(lib, #getter);                                                                         \
        if (fill != NULL && fill(ZE_API_VERSION_CURRENT, &zc_tables.getter) != ZE_RESULT_SUCCESS)                      \
            memset(&zc_tables.getter, 0, sizeof zc_tables.getter);                                                     \
    } while (0);
    ZC_DDI_GETTERS(ZC_FILL)
#undef ZC_FILL
    zc_tables_usable = zc_loader_passes_driver_handles();
    if (!zc_tables_usable)
        fprintf(stderr, "zc_api: the loader intercepts handles: functions it lacks are not called\n");
}

static void *zc_api_ddi(size_t slot) {
    pthread_once(&zc_tables_once, zc_tables_load);
    void *fn;
    memcpy(&fn, (const char *)&zc_tables + slot, sizeof fn);
    return fn;
}

static void *zc_from_tables(size_t slot) {
    void *fn = zc_api_ddi(slot);
    return zc_tables_usable ? fn : NULL;
}

void *zc_api_resolve(const char *name, size_t slot) {
    void *fn = dlsym(RTLD_DEFAULT, name);
    return fn != NULL ? fn : zc_from_tables(slot);
}

void *zc_api_driver_slot(size_t slot) {
    return zc_from_tables(slot);
}

const char *zc_api_source(const char *name, size_t slot) {
    if (dlsym(RTLD_DEFAULT, name) != NULL)
        return "loader";
    return zc_from_tables(slot) != NULL ? "driver tables" : "nowhere";
}

void zc_api_require_at(bool found, const char *name) {
    if (found)
        return;
    fprintf(stderr, "%s: neither the loader nor the driver's tables have it\n", name);
    skip();
}
