/* The test kernels (compiled by conformance/kernels/kernels.cmake into ZF_TEST_KERNEL_DIR) as the SPIR-V unit tests
 * read them: the file's bytes, and the module the reader makes of a file that must be valid. Included once by each
 * test executable, after cmocka.h. */
#ifndef ZT_SPIRV_FILES_H
#define ZT_SPIRV_FILES_H

#include "spirv.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct zt_blob {
    uint8_t *data;
    size_t size;
} zt_blob;

static inline zt_blob zt_load(const char *name) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s.spv", ZF_TEST_KERNEL_DIR, name);
    FILE *file = fopen(path, "rb");
    if (file == NULL)
        fail_msg("cannot open %s", path);
    zt_blob blob = {0};
    fseek(file, 0, SEEK_END);
    blob.size = (size_t)ftell(file);
    fseek(file, 0, SEEK_SET);
    blob.data = malloc(blob.size);
    assert_non_null(blob.data);
    assert_int_equal(fread(blob.data, 1, blob.size, file), blob.size);
    fclose(file);
    return blob;
}

/* Reads and finishes a module that must be valid. */
static inline zf_spirv_module *zt_read_ok(const char *name) {
    zt_blob blob = zt_load(name);
    zf_spirv_log log = {0};
    zf_spirv_module *m = NULL;
    zf_spirv_status s = zf_spirv_read(blob.data, blob.size, &m, &log);
    if (s == ZF_SPIRV_OK)
        s = zf_spirv_finish(m, &log);
    if (s != ZF_SPIRV_OK)
        fail_msg("%s: status %d: %s", name, (int)s, zf_spirv_log_text(&log));
    zf_spirv_log_free(&log);
    free(blob.data);
    return m;
}

#endif
