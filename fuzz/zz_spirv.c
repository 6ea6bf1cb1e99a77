/* Fuzz target: SPIR-V modules (docs/fuzzing.md). The input is a module as zeModuleCreate receives it: it is read,
 * specialized, laid out, decoded and validated; the decoded form must survive its own serialization (what native
 * binaries carry), and when a kernel has arguments a small launch can bind, it runs on 1-2 work-groups of 1-8
 * work-items. Launch choices (kernel, group size, argument bytes, specialization values) come from the last bytes of
 * the input, so mutations anywhere keep the module readable as often as possible. */
#include "zz_common.h"

#include <stdio.h>
#include <stdlib.h>

#define ZZ_CHOICE_BYTES 64u
#define ZZ_SPEC_MAX     4u

static zz_bytes zz_choices(const uint8_t *data, size_t size) {
    size_t n = size < ZZ_CHOICE_BYTES ? size : ZZ_CHOICE_BYTES;
    return (zz_bytes){data + size - n, n, 0};
}

/* Applies input-chosen values to the first few specialization constants (step 2 of the reader). */
static void zz_specialize(zf_spirv_module *module, zz_bytes *choices, zf_spirv_log *log) {
    uint32_t count = zf_spirv_spec_constant_count(module);
    for (uint32_t i = 0; i < count && i < ZZ_SPEC_MAX; i++) {
        if (zz_take8(choices) % 2 == 0)
            continue;
        uint64_t value = (uint64_t)zz_take32(choices) << 32 | zz_take32(choices);
        zf_spirv_set_spec_constant(module, zf_spirv_spec_constant_at(module, i)->spec_id, &value, log);
    }
}

/* The decoder's output is valid by construction, so the form loader must take it back. */
static void zz_round_trip(const zf_dprog *prog) {
    size_t size = zf_form_size(prog);
    uint8_t *bytes = malloc(size);
    if (bytes == NULL)
        return;
    zf_form_write(prog, bytes);
    char why[256] = "";
    zf_dprog *loaded = zf_form_load(bytes, size, why, sizeof why);
    if (loaded == NULL) {
        fprintf(stderr, "the form of a decoded module does not load back: %s\n", why);
        abort();
    }
    zf_dprog_free(loaded);
    free(bytes);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    zf_spirv_log log = {0};
    zf_spirv_module *module = NULL;
    zz_bytes choices = zz_choices(data, size);
    if (zf_spirv_read(data, size, &module, &log) == ZF_SPIRV_OK) {
        zz_specialize(module, &choices, &log);
        zf_dprog *prog = NULL;
        zf_decode_options options = {.itt_enabled = zz_take8(&choices) % 2};
        if (zf_spirv_finish(module, &log) == ZF_SPIRV_OK &&
            zf_spirv_decode(module, &options, &prog, &log) == ZF_SPIRV_OK) {
            zz_round_trip(prog);
            zz_launch_small(module, prog, &choices);
        }
        zf_dprog_free(prog);
    }
    zf_spirv_free(module);
    zf_spirv_log_free(&log);
    return 0;
}

#ifndef ZEFAKE_LIBFUZZER
int main(int argc, char **argv) {
    return zz_replay(argc, argv, LLVMFuzzerTestOneInput);
}
#endif
