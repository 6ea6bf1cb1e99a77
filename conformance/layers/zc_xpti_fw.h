/* The functions of the XPTI framework under test (zc_xpti_framework()), looked up once by the tests that call the
 * dispatcher directly: the 48 of the proxy are required, the later ones (ZX_XPTI_FUNCTIONS_DETAIL) and our one
 * addition (zx_xpti_metadata_at) are NULL when the framework lacks them. */
#ifndef ZC_XPTI_FW_H
#define ZC_XPTI_FW_H

#include "zc_xpti.h"
#include "zx_xpti.h"

#include <dlfcn.h>
#include <stdbool.h>

typedef struct zc_fw {
#define ZC_FW_MEMBER(ret, name, params) zx_pfn_##name name;
    ZX_XPTI_FUNCTIONS(ZC_FW_MEMBER)
    ZX_XPTI_FUNCTIONS_CURRENT(ZC_FW_MEMBER)
    ZX_XPTI_FUNCTIONS_DETAIL(ZC_FW_MEMBER)
#undef ZC_FW_MEMBER
    zx_pfn_xpti_metadata_at metadata_at; /* ours only: NULL with another framework */
} zc_fw;

/* False when the framework or one of the required functions is missing. */
static inline bool zc_fw_load(zc_fw *fw) {
    void *lib = dlopen(zc_xpti_framework(), RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL)
        return false;
#define ZC_FW_LOOKUP(ret, name, params)                                                                                \
    *(void **)&fw->name = dlsym(lib, #name);                                                                           \
    if (fw->name == NULL)                                                                                              \
        return false;
    ZX_XPTI_FUNCTIONS(ZC_FW_LOOKUP)
    ZX_XPTI_FUNCTIONS_CURRENT(ZC_FW_LOOKUP)
#undef ZC_FW_LOOKUP
#define ZC_FW_OPTIONAL(ret, name, params) *(void **)&fw->name = dlsym(lib, #name);
    ZX_XPTI_FUNCTIONS_DETAIL(ZC_FW_OPTIONAL)
#undef ZC_FW_OPTIONAL
    *(void **)&fw->metadata_at = dlsym(lib, ZX_XPTI_METADATA_AT);
    return true;
}

#endif
