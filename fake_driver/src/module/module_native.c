/* The native binary of a module (docs/modules.md, "Native binaries"): written by zeModuleGetNativeBinary (a header,
 * a section table and a checksum over the sections, all integers little-endian) and parsed back when a module is
 * created from ZE_MODULE_FORMAT_NATIVE. Nothing in a binary is trusted: every offset, size and count is checked
 * against the binary before it is used. */

#include "core/zf_bytes.h"
#include "core/zf_core.h"
#include "driver/zf_driver.h"
#include "module/module_internal.h"
#include "module/zf_module.h"

#include <elf.h>
#include <level_zero/zet_api.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------------------------------------------------
 * Native binaries: a container for the specialized SPIR-V (docs/modules.md, "Native binaries"). */

#define ZF_NATIVE_MAGIC        "ZFNATIVE"
#define ZF_NATIVE_VERSION      1u
#define ZF_NATIVE_HEADER_SIZE  64u
#define ZF_NATIVE_SECTION_SIZE 24u
/* Bounds the section table before it is walked; the table must fit the binary as well. */
#define ZF_NATIVE_MAX_SECTIONS (1u << 20)
#define ZF_SECTION_SPIRV       1u
#define ZF_SECTION_OPTIONS     2u
#define ZF_SECTION_DECODED     3u
/* A module of several programs (ZE_experimental_module_program): one section per program, in input order, each a
 * whole native binary of one program; such a container has no other sections (docs/extensions.md). */
#define ZF_SECTION_PROGRAM 4u

static void zf_native_kernel_uuid(zf_device *device, ze_native_kernel_uuid_t *uuid) {
    ze_device_module_properties_t props = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MODULE_PROPERTIES};
    zfi_zeDeviceGetModuleProperties((ze_device_handle_t)device, &props); /* the UUID the device advertises */
    *uuid = props.nativeKernelSupported;
}

/* The sections of one program's native binary: the specialized SPIR-V, the build options and the decoded form. */
#define ZF_NATIVE_PARTS 3u

/* Writes the header and the section table of a binary of `count` sections of the given kinds and sizes (the whole
 * binary is `size` bytes); offsets[i] receives where section i starts. */
static void zf_native_frame(uint8_t *out, size_t size, zf_device *device, const uint32_t *kinds, const size_t *sizes,
                            uint32_t count, size_t *offsets) {
    memset(out, 0, size);
    memcpy(out, ZF_NATIVE_MAGIC, 8);
    zf_le32_put(out + 8, ZF_NATIVE_VERSION);
    zf_le32_put(out + 12, ZF_NATIVE_HEADER_SIZE);
    ze_native_kernel_uuid_t uuid;
    zf_native_kernel_uuid(device, &uuid);
    memcpy(out + 16, uuid.id, 16);
    zf_le32_put(out + 32, count);
    zf_le64_put(out + 40, size);
    size_t at = ZF_NATIVE_HEADER_SIZE + (size_t)count * ZF_NATIVE_SECTION_SIZE;
    for (uint32_t i = 0; i < count; i++) {
        uint8_t *entry = out + ZF_NATIVE_HEADER_SIZE + (size_t)i * ZF_NATIVE_SECTION_SIZE;
        zf_le32_put(entry, kinds[i]);
        zf_le64_put(entry + 8, at);
        zf_le64_put(entry + 16, sizes[i]);
        offsets[i] = at;
        at += zf_align8(sizes[i]);
    }
}

/* The checksum, once every section is written. */
static void zf_native_seal(uint8_t *out, size_t size) {
    zf_le64_put(out + 48, zf_fnv1a(out + ZF_NATIVE_HEADER_SIZE, size - ZF_NATIVE_HEADER_SIZE, 0xcbf29ce484222325ull));
}

static size_t zf_native_program_size(const zf_program *program, const char *options) {
    size_t count;
    zf_spirv_words(program->spirv, &count);
    return ZF_NATIVE_HEADER_SIZE + ZF_NATIVE_PARTS * ZF_NATIVE_SECTION_SIZE + zf_align8(count * 4) +
           zf_align8(strlen(options) + 1) + zf_align8(zf_form_size(program->code));
}

static void zf_native_program_write(const zf_program *program, const char *options, uint8_t *out, size_t size) {
    size_t count, offsets[ZF_NATIVE_PARTS];
    const uint32_t *words = zf_spirv_words(program->spirv, &count);
    const uint32_t kinds[ZF_NATIVE_PARTS] = {ZF_SECTION_SPIRV, ZF_SECTION_OPTIONS, ZF_SECTION_DECODED};
    const size_t sizes[ZF_NATIVE_PARTS] = {count * 4, strlen(options) + 1, zf_form_size(program->code)};
    zf_native_frame(out, size, program->device, kinds, sizes, ZF_NATIVE_PARTS, offsets);
    memcpy(out + offsets[0], words, sizes[0]);
    memcpy(out + offsets[1], options, sizes[1]);
    zf_form_write(program->code, out + offsets[2]);
    zf_native_seal(out, size);
}

/* A module of one program is that program's binary; a module of several wraps theirs in ZF_SECTION_PROGRAM
 * sections. */
static size_t zf_native_size(const zf_module *module) {
    if (module->num_programs == 1)
        return zf_native_program_size(module->program, module->build_options[0]);
    size_t size = ZF_NATIVE_HEADER_SIZE + (size_t)module->num_programs * ZF_NATIVE_SECTION_SIZE;
    for (uint32_t i = 0; i < module->num_programs; i++)
        size += zf_align8(zf_native_program_size(module->programs[i], module->build_options[i]));
    return size;
}

static bool zf_native_write(const zf_module *module, uint8_t *out, size_t size) {
    if (module->num_programs == 1) {
        zf_native_program_write(module->program, module->build_options[0], out, size);
        return true;
    }
    uint32_t n = module->num_programs;
    uint32_t *kinds = calloc(n, sizeof *kinds);
    size_t *sizes = calloc(n, sizeof *sizes), *offsets = calloc(n, sizeof *offsets);
    bool ok = kinds != NULL && sizes != NULL && offsets != NULL;
    for (uint32_t i = 0; ok && i < n; i++) {
        kinds[i] = ZF_SECTION_PROGRAM;
        sizes[i] = zf_native_program_size(module->programs[i], module->build_options[i]);
    }
    if (ok) {
        zf_native_frame(out, size, module->program->device, kinds, sizes, n, offsets);
        for (uint32_t i = 0; i < n; i++)
            zf_native_program_write(module->programs[i], module->build_options[i], out + offsets[i], sizes[i]);
        zf_native_seal(out, size);
    }
    free(kinds);
    free(sizes);
    free(offsets);
    return ok;
}

ze_result_t zf_native_reject(zf_spirv_log *log, const char *why) {
    zf_spirv_log_printf(log, "native binary: %s", why);
    return zf_fail(ZE_RESULT_ERROR_INVALID_NATIVE_BINARY, "native binary: %s", why);
}

static ze_result_t zf_native_section(const uint8_t *data, size_t size, const uint8_t *entry, zf_native_view *view,
                                     zf_spirv_log *log) {
    uint32_t kind = zf_le32_get(entry);
    uint64_t offset = zf_le64_get(entry + 8), length = zf_le64_get(entry + 16);
    if (offset > size || length > size - offset)
        return zf_native_reject(log, "a section lies outside the binary");
    if (kind == ZF_SECTION_SPIRV) {
        if (view->spirv != NULL)
            return zf_native_reject(log, "two SPIR-V sections");
        view->spirv = data + offset;
        view->spirv_size = (size_t)length;
    } else if (kind == ZF_SECTION_OPTIONS) {
        if (length == 0 || data[offset + length - 1] != '\0' || strlen((const char *)data + offset) + 1 != length)
            return zf_native_reject(log, "the build options section is not one NUL-terminated string");
        view->options = (const char *)data + offset;
    } else if (kind == ZF_SECTION_DECODED) {
        if (view->decoded != NULL)
            return zf_native_reject(log, "two decoded-form sections");
        view->decoded = data + offset;
        view->decoded_size = (size_t)length;
    } else if (kind == ZF_SECTION_PROGRAM) {
        view->num_programs++;
    }
    return ZE_RESULT_SUCCESS; /* unknown sections belong to later versions of the format and are skipped */
}

ze_result_t zf_native_parse(const uint8_t *data, size_t size, zf_device *device, zf_native_view *view,
                            zf_spirv_log *log) {
    memset(view, 0, sizeof *view);
    view->options = "";
    if (size < ZF_NATIVE_HEADER_SIZE || memcmp(data, ZF_NATIVE_MAGIC, 8) != 0)
        return zf_native_reject(log, "no zefake native binary header (magic \"ZFNATIVE\")");
    if (zf_le32_get(data + 8) != ZF_NATIVE_VERSION || zf_le32_get(data + 12) != ZF_NATIVE_HEADER_SIZE)
        return zf_native_reject(log, "an unknown container version");
    ze_native_kernel_uuid_t uuid;
    zf_native_kernel_uuid(device, &uuid);
    if (memcmp(data + 16, uuid.id, 16) != 0)
        return zf_native_reject(log, "built for another kind of device (its native kernel UUID differs)");
    uint32_t sections = zf_le32_get(data + 32);
    if (zf_le64_get(data + 40) != size)
        return zf_native_reject(log, "its recorded size differs from inputSize");
    if (zf_fnv1a(data + ZF_NATIVE_HEADER_SIZE, size - ZF_NATIVE_HEADER_SIZE, 0xcbf29ce484222325ull) !=
        zf_le64_get(data + 48))
        return zf_native_reject(log, "the checksum does not match: the binary is corrupted");
    if (sections == 0 || sections > ZF_NATIVE_MAX_SECTIONS ||
        ZF_NATIVE_HEADER_SIZE + (size_t)sections * ZF_NATIVE_SECTION_SIZE > size)
        return zf_native_reject(log, "a bad section table");
    for (uint32_t i = 0; i < sections; i++) {
        ze_result_t r =
            zf_native_section(data, size, data + ZF_NATIVE_HEADER_SIZE + i * ZF_NATIVE_SECTION_SIZE, view, log);
        if (r != ZE_RESULT_SUCCESS)
            return r;
    }
    if (view->num_programs > 0 && (view->spirv != NULL || view->decoded != NULL))
        return zf_native_reject(log, "program sections beside a program's own sections");
    if (view->spirv == NULL && view->num_programs == 0)
        return zf_native_reject(log, "no SPIR-V section");
    return ZE_RESULT_SUCCESS;
}

/* The program sections of a binary zf_native_parse accepted, as inputs of a module (each one a native binary). */
void zf_native_programs(const uint8_t *data, const zf_module_input *outer, zf_module_input *inputs) {
    uint32_t sections = zf_le32_get(data + 32), n = 0;
    for (uint32_t i = 0; i < sections; i++) {
        const uint8_t *entry = data + ZF_NATIVE_HEADER_SIZE + (size_t)i * ZF_NATIVE_SECTION_SIZE;
        if (zf_le32_get(entry) != ZF_SECTION_PROGRAM)
            continue;
        inputs[n] = *outer;
        inputs[n].data = data + zf_le64_get(entry + 8);
        inputs[n].size = (size_t)zf_le64_get(entry + 16);
        n++;
    }
}

ze_result_t zfi_zeModuleGetNativeBinary(ze_module_handle_t hModule, size_t *pSize, uint8_t *pModuleNativeBinary) {
    const zf_module *module = zf_module_from(hModule);
    size_t needed = zf_native_size(module);
    if (pModuleNativeBinary == NULL) {
        *pSize = needed;
        return ZE_RESULT_SUCCESS;
    }
    if (*pSize < needed) {
        size_t given = *pSize;
        *pSize = needed;
        return zf_fail(ZE_RESULT_ERROR_INVALID_SIZE, "*pSize is %zu, the native binary needs %zu bytes", given, needed);
    }
    if (!zf_native_write(module, pModuleNativeBinary, needed))
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "no host memory to write the native binary");
    *pSize = needed;
    return ZE_RESULT_SUCCESS;
}
