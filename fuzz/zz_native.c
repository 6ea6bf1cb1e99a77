/* Fuzz target: native binaries (docs/modules.md, "Native binaries"; docs/fuzzing.md). The input is a container as
 * zeModuleGetNativeBinary writes it. Before zeModuleCreate(ZE_MODULE_FORMAT_NATIVE) sees it, the target makes the
 * device UUID, the total size and the checksum right (when the input is long enough to hold them), so that mutations
 * reach the sections instead of stopping at the checksum. When the driver accepts the binary, the decoded form it
 * carries is loaded by the engine's validator and launched small (zz_launch_small), with choices from the last bytes
 * of the input. */
#include "zz_common.h"

#include <stdlib.h>
#include <string.h>

#define ZZ_HEADER       64u
#define ZZ_SECTION      24u
#define ZZ_KIND_SPIRV   1u
#define ZZ_KIND_FORM    3u
#define ZZ_INPUT_LIMIT  (1u << 20)
#define ZZ_CHOICE_BYTES 16u

static uint64_t zz_le(const uint8_t *p, unsigned bytes) {
    uint64_t value = 0;
    for (unsigned i = 0; i < bytes; i++)
        value |= (uint64_t)p[i] << (8 * i);
    return value;
}

static void zz_put64(uint8_t *p, uint64_t value) {
    for (unsigned i = 0; i < 8; i++)
        p[i] = (uint8_t)(value >> (8 * i));
}

static uint64_t zz_fnv1a(const uint8_t *data, size_t size) {
    uint64_t hash = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < size; i++)
        hash = (hash ^ data[i]) * 0x100000001b3ull;
    return hash;
}

/* The fields a mutation almost never gets right: the device's UUID, the total size and the checksum. */
static void zz_seal(uint8_t *bin, size_t size, const zz_api *api) {
    if (size < ZZ_HEADER || memcmp(bin, "ZFNATIVE", 8) != 0)
        return;
    ze_device_module_properties_t props = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MODULE_PROPERTIES};
    if (api->device.pfnGetModuleProperties(api->hdevice, &props) == ZE_RESULT_SUCCESS)
        memcpy(bin + 16, props.nativeKernelSupported.id, 16);
    zz_put64(bin + 40, size);
    zz_put64(bin + 48, zz_fnv1a(bin + ZZ_HEADER, size - ZZ_HEADER));
}

/* The bytes of the first section of `kind`, bounds checked (the driver accepted the container, but the target does
 * not rely on that). */
static const uint8_t *zz_section(const uint8_t *bin, size_t size, uint32_t kind, size_t *out) {
    uint64_t count = zz_le(bin + 32, 4);
    for (uint64_t i = 0; i < count && ZZ_HEADER + (i + 1) * ZZ_SECTION <= size; i++) {
        const uint8_t *entry = bin + ZZ_HEADER + i * ZZ_SECTION;
        uint64_t offset = zz_le(entry + 8, 8), length = zz_le(entry + 16, 8);
        if (zz_le(entry, 4) == kind && offset <= size && length <= size - offset) {
            *out = (size_t)length;
            return bin + offset;
        }
    }
    return NULL;
}

/* The engine's view of an accepted binary: its SPIR-V read, its form validated and matched, then a small launch. */
static void zz_run(const uint8_t *bin, size_t size) {
    size_t spirv_size = 0, form_size = 0;
    const uint8_t *spirv = zz_section(bin, size, ZZ_KIND_SPIRV, &spirv_size);
    const uint8_t *form = zz_section(bin, size, ZZ_KIND_FORM, &form_size);
    if (spirv == NULL || form == NULL)
        return;
    zf_spirv_log log = {0};
    zf_spirv_module *module = NULL;
    char why[256];
    zf_dprog *prog = NULL;
    if (zf_spirv_read(spirv, spirv_size, &module, &log) != ZF_SPIRV_OK || zf_spirv_finish(module, &log) != ZF_SPIRV_OK)
        goto done;
    prog = zf_form_load(form, form_size, why, sizeof why);
    if (prog != NULL && zf_spirv_form_matches(module, prog, why, sizeof why)) {
        zz_bytes choices = {bin + size - ZZ_CHOICE_BYTES, ZZ_CHOICE_BYTES, 0};
        zz_launch_small(module, prog, &choices);
    }
done:
    zf_dprog_free(prog);
    zf_spirv_free(module);
    zf_spirv_log_free(&log);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > ZZ_INPUT_LIMIT)
        return 0;
    const zz_api *api = zz_api_get();
    uint8_t *bin = malloc(size + 1);
    if (bin == NULL)
        return 0;
    memcpy(bin, data, size);
    zz_seal(bin, size, api);
    ze_module_desc_t desc = {.stype = ZE_STRUCTURE_TYPE_MODULE_DESC,
                             .format = ZE_MODULE_FORMAT_NATIVE,
                             .inputSize = size,
                             .pInputModule = bin};
    ze_module_handle_t module = NULL;
    if (api->module.pfnCreate(api->hcontext, api->hdevice, &desc, &module, NULL) == ZE_RESULT_SUCCESS) {
        api->module.pfnDestroy(module);
        zz_run(bin, size);
    }
    free(bin);
    return 0;
}

#ifndef ZEFAKE_LIBFUZZER
int main(int argc, char **argv) {
    return zz_replay(argc, argv, LLVMFuzzerTestOneInput);
}
#endif
