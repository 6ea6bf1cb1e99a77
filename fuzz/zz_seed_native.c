/* Writes seed native binaries for the zz_native target (docs/fuzzing.md): each SPIR-V file given is built into a
 * module and its zeModuleGetNativeBinary container written to <out dir>/<name>.bin. Run by the build, so the seeds
 * always carry the current container and decoded-form versions. */
#include "zz_common.h"

#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint8_t *zz_slurp(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (f == NULL || fseek(f, 0, SEEK_END) != 0) {
        if (f != NULL)
            fclose(f);
        return NULL;
    }
    long length = ftell(f);
    uint8_t *data = length > 0 ? malloc((size_t)length) : NULL;
    rewind(f);
    if (data != NULL && fread(data, 1, (size_t)length, f) != (size_t)length) {
        free(data);
        data = NULL;
    }
    fclose(f);
    *size = (size_t)length;
    return data;
}

static bool zz_native_of(const zz_api *api, const uint8_t *spirv, size_t size, const char *out_path) {
    ze_module_desc_t desc = {.stype = ZE_STRUCTURE_TYPE_MODULE_DESC,
                             .format = ZE_MODULE_FORMAT_IL_SPIRV,
                             .inputSize = size,
                             .pInputModule = spirv};
    ze_module_handle_t module = NULL;
    if (api->module.pfnCreate(api->hcontext, api->hdevice, &desc, &module, NULL) != ZE_RESULT_SUCCESS)
        return false;
    size_t native_size = 0;
    uint8_t *native = NULL;
    bool ok = api->module.pfnGetNativeBinary(module, &native_size, NULL) == ZE_RESULT_SUCCESS &&
              (native = malloc(native_size)) != NULL &&
              api->module.pfnGetNativeBinary(module, &native_size, native) == ZE_RESULT_SUCCESS;
    FILE *f = ok ? fopen(out_path, "wb") : NULL;
    ok = f != NULL && fwrite(native, 1, native_size, f) == native_size;
    if (f != NULL)
        ok = fclose(f) == 0 && ok;
    free(native);
    api->module.pfnDestroy(module);
    return ok;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s <out dir> <module.spv>...\n", argv[0]);
        return 2;
    }
    const zz_api *api = zz_api_get();
    for (int i = 2; i < argc; i++) {
        size_t size = 0;
        uint8_t *spirv = zz_slurp(argv[i], &size);
        char name[4096];
        snprintf(name, sizeof name, "%s", argv[i]);
        char out[8192];
        snprintf(out, sizeof out, "%s/%s.bin", argv[1], basename(name));
        if (spirv == NULL || !zz_native_of(api, spirv, size, out)) {
            fprintf(stderr, "%s: no native binary from %s\n", argv[0], argv[i]);
            free(spirv);
            return 1;
        }
        free(spirv);
    }
    return 0;
}
