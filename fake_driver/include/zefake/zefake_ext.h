/* zefake's driver extension: what tools and tests may ask the fake driver beyond the Level Zero specification.
 *
 * The driver advertises ZEFAKE_EXTENSION_NAME in zeDriverGetExtensionProperties; the functions below are reached
 * through zeDriverGetExtensionFunctionAddress(hDriver, "<name>", &pfn). They take no driver handles, so they work the
 * same whether or not the loader wraps handles (ZE_ENABLE_LOADER_INTERCEPT=1). See docs/extensions.md. */
#ifndef ZEFAKE_EXT_H
#define ZEFAKE_EXT_H

#include <level_zero/ze_api.h>
#include <stdint.h>

#if defined(__cplusplus)
extern "C" {
#endif

#define ZEFAKE_EXTENSION_NAME    "ZE_experimental_zefake"
#define ZEFAKE_EXTENSION_VERSION ZE_MAKE_VERSION(1, 0)

#define ZEFAKE_NAME_MAX 64
#define ZEFAKE_TEXT_MAX 256

/* What the driver is running. Callers set `size` to sizeof(zefake_info_t); later versions only append fields. */
typedef struct zefake_info_t {
    uint32_t size;                         /* [in] sizeof(zefake_info_t) of the caller */
    uint32_t extension_version;            /* [out] ZEFAKE_EXTENSION_VERSION of the driver */
    char scenario_name[ZEFAKE_NAME_MAX];   /* [out] the scenario's `name` */
    char scenario_source[ZEFAKE_TEXT_MAX]; /* [out] its file, or "<embedded default>" */
    uint32_t api_functions;                /* [out] API functions in the headers the driver was built with */
    uint32_t api_implemented;              /* [out] of which implemented (the others answer UNSUPPORTED_FEATURE) */
} zefake_info_t;

/* "zefakeGetInfo": fills *info. ZE_RESULT_ERROR_INVALID_NULL_POINTER for NULL, ZE_RESULT_ERROR_INVALID_SIZE when
 * info->size is smaller than the first version of the struct. */
typedef ze_result_t(ZE_APICALL *zefake_pfnGetInfo_t)(zefake_info_t *info);
#define ZEFAKE_FN_GET_INFO "zefakeGetInfo"

/* "zefakeIsApiImplemented": whether `name` (e.g. "zeDeviceGet") has an implementation in the driver.
 * ZE_RESULT_ERROR_INVALID_NULL_POINTER for NULL arguments, ZE_RESULT_ERROR_INVALID_FUNCTION_NAME for a name that is not
 * an API function of the driver's headers. */
typedef ze_result_t(ZE_APICALL *zefake_pfnIsApiImplemented_t)(const char *name, ze_bool_t *implemented);
#define ZEFAKE_FN_IS_API_IMPLEMENTED "zefakeIsApiImplemented"

#if defined(__cplusplus)
}
#endif

#endif
