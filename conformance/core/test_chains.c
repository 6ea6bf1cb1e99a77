/* Conformance: pNext chains (docs/chains.md).
 *
 * - Every getter of an output structure with a pNext answers a structure whose bytes are all 0xA5 (garbage stype and
 *   pNext): it fills the same base fields as with the right stype, keeps stype and pNext, and never follows the
 *   garbage pointer. Another stype keeps an extension structure in the chain untouched; the right one fills it.
 * - Descriptors whose chain is a cycle are refused with ZE_RESULT_ERROR_INVALID_ARGUMENT; a chain of 32 structures is
 *   read, one of 33 is not.
 * - Output chains that act (exports as descriptors) are checked before the first export: a refused call leaves no
 *   descriptor open, and one export that fails closes those made before it.
 *
 * Following a garbage pointer or a cycle may crash or hang another driver: these checks are fake-only. */
#include "zc_harness.h"
#include "zc_kernel_files.h"

#include <dirent.h>
#include <level_zero/zet_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ZC_GARBAGE      0xA5
#define ZC_UNKNOWN_TYPE ((ze_structure_type_t)0x7fff0001)
#define ZC_FD_TYPE      ZE_EXTERNAL_MEMORY_TYPE_FLAG_DMA_BUF

/* What the getters need: a context, a device and one object of each kind. */
typedef struct zc_fixture {
    ze_context_handle_t context;
    ze_device_handle_t device;
    ze_module_handle_t module;
    ze_kernel_handle_t kernel;
    void *ptr;               /* exportable device memory */
    ze_image_handle_t image; /* exportable */
} zc_fixture;

static ze_image_desc_t zc_image_desc(const void *next) {
    ze_image_desc_t desc = {ZE_STRUCTURE_TYPE_IMAGE_DESC,
                            next,
                            0,
                            ZE_IMAGE_TYPE_2D,
                            {ZE_IMAGE_FORMAT_LAYOUT_8_8_8_8, ZE_IMAGE_FORMAT_TYPE_UINT, ZE_IMAGE_FORMAT_SWIZZLE_R,
                             ZE_IMAGE_FORMAT_SWIZZLE_G, ZE_IMAGE_FORMAT_SWIZZLE_B, ZE_IMAGE_FORMAT_SWIZZLE_A},
                            8,
                            8,
                            1,
                            1,
                            0};
    return desc;
}

static int zc_setup_chains(void **state) {
    zc_fixture *f = calloc(1, sizeof *f);
    if (f == NULL || zc_setup_context((void **)&f->context) != 0)
        return -1;
    f->device = zc_sys()->roots[0];
    f->module = zc_module_create(f->context, f->device, "vadd");
    f->kernel = zc_kernel_create(f->module, "vadd_int");
    ze_external_memory_export_desc_t exportable = {ZE_STRUCTURE_TYPE_EXTERNAL_MEMORY_EXPORT_DESC, NULL, ZC_FD_TYPE};
    const ze_device_mem_alloc_desc_t mem = {ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, &exportable, 0, 0};
    zc_assert_success(zeMemAllocDevice(f->context, &mem, 4096, 0, f->device, &f->ptr));
    ze_image_desc_t image = zc_image_desc(&exportable);
    zc_assert_success(zeImageCreate(f->context, f->device, &image, &f->image));
    *state = f;
    return 0;
}

static int zc_teardown_chains(void **state) {
    zc_fixture *f = *state;
    zeImageDestroy(f->image);
    zeMemFree(f->context, f->ptr);
    zeKernelDestroy(f->kernel);
    zeModuleDestroy(f->module);
    int r = zc_teardown_context((void **)&f->context);
    free(f);
    return r;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Every getter of an output structure */

typedef ze_result_t (*zc_getter_fn)(const zc_fixture *f, void *out);

typedef struct zc_getter {
    const char *name;
    size_t size;
    uint32_t stype; /* the one the argument expects */
    zc_getter_fn call;
} zc_getter;

static ze_result_t zc_driver_properties(const zc_fixture *f, void *out) {
    (void)f;
    return zeDriverGetProperties(zc_sys()->driver, out);
}
static ze_result_t zc_driver_ipc(const zc_fixture *f, void *out) {
    (void)f;
    return zeDriverGetIpcProperties(zc_sys()->driver, out);
}
static ze_result_t zc_device_properties(const zc_fixture *f, void *out) {
    return zeDeviceGetProperties(f->device, out);
}
static ze_result_t zc_device_compute(const zc_fixture *f, void *out) {
    return zeDeviceGetComputeProperties(f->device, out);
}
static ze_result_t zc_device_module(const zc_fixture *f, void *out) {
    return zeDeviceGetModuleProperties(f->device, out);
}
static ze_result_t zc_queue_group(const zc_fixture *f, void *out) {
    uint32_t one = 1;
    return zeDeviceGetCommandQueueGroupProperties(f->device, &one, out);
}
static ze_result_t zc_device_memory(const zc_fixture *f, void *out) {
    uint32_t one = 1;
    return zeDeviceGetMemoryProperties(f->device, &one, out);
}
static ze_result_t zc_memory_access(const zc_fixture *f, void *out) {
    return zeDeviceGetMemoryAccessProperties(f->device, out);
}
static ze_result_t zc_device_cache(const zc_fixture *f, void *out) {
    uint32_t one = 1;
    return zeDeviceGetCacheProperties(f->device, &one, out);
}
static ze_result_t zc_device_image(const zc_fixture *f, void *out) {
    return zeDeviceGetImageProperties(f->device, out);
}
static ze_result_t zc_external_memory(const zc_fixture *f, void *out) {
    return zeDeviceGetExternalMemoryProperties(f->device, out);
}
static ze_result_t zc_p2p(const zc_fixture *f, void *out) {
    return zeDeviceGetP2PProperties(f->device, f->device, out);
}
static ze_result_t zc_pci(const zc_fixture *f, void *out) {
    return zeDevicePciGetPropertiesExt(f->device, out);
}
static ze_result_t zc_mem_alloc(const zc_fixture *f, void *out) {
    return zeMemGetAllocProperties(f->context, f->ptr, out, NULL);
}
static ze_result_t zc_image_properties(const zc_fixture *f, void *out) {
    ze_image_desc_t desc = zc_image_desc(NULL);
    return zeImageGetProperties(f->device, &desc, out);
}
static ze_result_t zc_image_memory(const zc_fixture *f, void *out) {
    return zeImageGetMemoryPropertiesExp(f->image, out);
}
static ze_result_t zc_image_alloc(const zc_fixture *f, void *out) {
    return zeImageGetAllocPropertiesExt(f->context, f->image, out);
}
static ze_result_t zc_module_properties(const zc_fixture *f, void *out) {
    return zeModuleGetProperties(f->module, out);
}
static ze_result_t zc_kernel_properties(const zc_fixture *f, void *out) {
    return zeKernelGetProperties(f->kernel, out);
}
static ze_result_t zc_kernel_profile(const zc_fixture *f, void *out) {
    return zetKernelGetProfileInfo((zet_kernel_handle_t)f->kernel, out);
}
static ze_result_t zc_debug_properties(const zc_fixture *f, void *out) {
    return zetDeviceGetDebugProperties((zet_device_handle_t)f->device, out);
}

#define ZC_GETTER(fn, type, stype)                                                                                     \
    { #fn, sizeof(type), stype, fn }

static const zc_getter zc_getters[] = {
    ZC_GETTER(zc_driver_properties, ze_driver_properties_t, ZE_STRUCTURE_TYPE_DRIVER_PROPERTIES),
    ZC_GETTER(zc_driver_ipc, ze_driver_ipc_properties_t, ZE_STRUCTURE_TYPE_DRIVER_IPC_PROPERTIES),
    ZC_GETTER(zc_device_properties, ze_device_properties_t, ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES),
    ZC_GETTER(zc_device_compute, ze_device_compute_properties_t, ZE_STRUCTURE_TYPE_DEVICE_COMPUTE_PROPERTIES),
    ZC_GETTER(zc_device_module, ze_device_module_properties_t, ZE_STRUCTURE_TYPE_DEVICE_MODULE_PROPERTIES),
    ZC_GETTER(zc_queue_group, ze_command_queue_group_properties_t, ZE_STRUCTURE_TYPE_COMMAND_QUEUE_GROUP_PROPERTIES),
    ZC_GETTER(zc_device_memory, ze_device_memory_properties_t, ZE_STRUCTURE_TYPE_DEVICE_MEMORY_PROPERTIES),
    ZC_GETTER(zc_memory_access, ze_device_memory_access_properties_t,
              ZE_STRUCTURE_TYPE_DEVICE_MEMORY_ACCESS_PROPERTIES),
    ZC_GETTER(zc_device_cache, ze_device_cache_properties_t, ZE_STRUCTURE_TYPE_DEVICE_CACHE_PROPERTIES),
    ZC_GETTER(zc_device_image, ze_device_image_properties_t, ZE_STRUCTURE_TYPE_DEVICE_IMAGE_PROPERTIES),
    ZC_GETTER(zc_external_memory, ze_device_external_memory_properties_t,
              ZE_STRUCTURE_TYPE_DEVICE_EXTERNAL_MEMORY_PROPERTIES),
    ZC_GETTER(zc_p2p, ze_device_p2p_properties_t, ZE_STRUCTURE_TYPE_DEVICE_P2P_PROPERTIES),
    ZC_GETTER(zc_pci, ze_pci_ext_properties_t, ZE_STRUCTURE_TYPE_PCI_EXT_PROPERTIES),
    ZC_GETTER(zc_mem_alloc, ze_memory_allocation_properties_t, ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES),
    ZC_GETTER(zc_image_properties, ze_image_properties_t, ZE_STRUCTURE_TYPE_IMAGE_PROPERTIES),
    ZC_GETTER(zc_image_memory, ze_image_memory_properties_exp_t, ZE_STRUCTURE_TYPE_IMAGE_MEMORY_EXP_PROPERTIES),
    ZC_GETTER(zc_image_alloc, ze_image_allocation_ext_properties_t, ZE_STRUCTURE_TYPE_IMAGE_ALLOCATION_EXT_PROPERTIES),
    ZC_GETTER(zc_module_properties, ze_module_properties_t, ZE_STRUCTURE_TYPE_MODULE_PROPERTIES),
    ZC_GETTER(zc_kernel_properties, ze_kernel_properties_t, ZE_STRUCTURE_TYPE_KERNEL_PROPERTIES),
    ZC_GETTER(zc_kernel_profile, zet_profile_properties_t, ZET_STRUCTURE_TYPE_PROFILE_PROPERTIES),
    ZC_GETTER(zc_debug_properties, zet_device_debug_properties_t, ZET_STRUCTURE_TYPE_DEVICE_DEBUG_PROPERTIES),
};

/* Room for the largest structure above, aligned for any of them. */
typedef union zc_out_buffer {
    ze_base_properties_t base;
    ze_device_properties_t device;
    unsigned char bytes[1024];
} zc_out_buffer;

#define ZC_HEAD sizeof(ze_base_properties_t)

static void zc_check_garbage_answered(const zc_fixture *f, const zc_getter *g) {
    static zc_out_buffer pattern, right, garbage;
    memset(&pattern, ZC_GARBAGE, g->size);
    /* The fields the getter fills with the stype it expects (padding and unwritten fields keep the pattern). */
    memcpy(&right, &pattern, g->size);
    right.base.stype = (ze_structure_type_t)g->stype;
    right.base.pNext = NULL;
    ze_result_t result = g->call(f, &right);
    if (result != ZE_RESULT_SUCCESS)
        zc_fail("%s with the right stype returned %s", g->name, zc_result_name(result));
    if (memcmp(right.bytes + ZC_HEAD, pattern.bytes + ZC_HEAD, g->size - ZC_HEAD) == 0)
        zc_fail("%s wrote no field", g->name);
    memcpy(&garbage, &pattern, g->size);
    result = g->call(f, &garbage);
    if (result != ZE_RESULT_SUCCESS)
        zc_fail("%s with a structure of 0x%02x bytes returned %s", g->name, ZC_GARBAGE, zc_result_name(result));
    if (memcmp(garbage.bytes, pattern.bytes, ZC_HEAD) != 0)
        zc_fail("%s changed the caller's stype or pNext", g->name);
    if (memcmp(garbage.bytes + ZC_HEAD, right.bytes + ZC_HEAD, g->size - ZC_HEAD) != 0)
        zc_fail("%s filled other base fields than with the right stype", g->name);
}

static void getters_answer_garbage_output_structs(void **state) {
    zc_skip_unless_fake();
    for (size_t i = 0; i < ZC_COUNT(zc_getters); i++)
        zc_check_garbage_answered(*state, &zc_getters[i]);
}

/* pNext values no structure can have: a garbage fill, small integers, a kernel or non-canonical address, an odd one. */
static uintptr_t zc_bad_next(size_t which, const void *real) {
    const uintptr_t bad[] = {UINTPTR_MAX / 0xff * ZC_GARBAGE, 0x1000, 0xffff800000001000u, (uintptr_t)real + 1};
    return bad[which % 4];
}
#define ZC_BAD_NEXTS 4u

/* In a forked child: a crash is the failure this checks for. */
static int zc_getters_with_bad_next(void *arg) {
    const zc_fixture *f = arg;
    static zc_out_buffer out, real;
    for (size_t i = 0; i < ZC_COUNT(zc_getters); i++) {
        for (size_t b = 0; b < ZC_BAD_NEXTS; b++) {
            memset(&out, 0, sizeof out);
            out.base.stype = (ze_structure_type_t)zc_getters[i].stype;
            out.base.pNext = (void *)zc_bad_next(b, &real);
            ze_result_t result = zc_getters[i].call(f, &out);
            printf("%s.%zu=%s\n", zc_getters[i].name, b, zc_result_name(result));
            fflush(stdout);
            if (result != ZE_RESULT_SUCCESS || out.base.pNext != (void *)zc_bad_next(b, &real))
                return 1;
        }
    }
    ze_device_mem_alloc_desc_t desc = {ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, (void *)zc_bad_next(0, NULL), 0, 0};
    void *ptr = NULL;
    ze_result_t result = zeMemAllocDevice(f->context, &desc, 64, 0, f->device, &ptr);
    printf("zeMemAllocDevice=%s\n", zc_result_name(result));
    fflush(stdout);
    return result == ZE_RESULT_SUCCESS ? zeMemFree(f->context, ptr) != ZE_RESULT_SUCCESS : 1;
}

/* The right stype with a pNext that cannot point to a structure: the walk stops there with a warning, the getter
 * answers, the process lives. */
static void bad_pnext_pointers_stop_the_walk(void **state) {
    zc_skip_unless_fake();
    zc_child child;
    if (!zc_run_function(zc_getters_with_bad_next, *state, NULL, ZC_CHILD_TIMEOUT_MS, &child))
        zc_fail("cannot start a child process");
    zc_assert_child_ok(&child, "getters with pNext pointers that cannot be structures");
    if (strstr(child.err, "which cannot be a structure") == NULL)
        zc_fail("no warning names the refused pointer; stderr:\n%s", child.err);
    zc_child_free(&child);
}

/* The extension structures the driver fills, under the right stype of their base structure and under another. */
static void output_chain_followed_only_under_expected_stype(void **state) {
    const zc_fixture *f = *state;
    zc_skip_unless_fake();
    ze_eu_count_ext_t eus = {ZE_STRUCTURE_TYPE_EU_COUNT_EXT, NULL, 0};
    ze_device_luid_ext_properties_t luid = {ZE_STRUCTURE_TYPE_DEVICE_LUID_EXT_PROPERTIES, &eus, {{0}}, 0};
    ze_device_properties_t p = {.stype = 0, .pNext = &luid};
    zc_assert_success(zeDeviceGetProperties(f->device, &p));
    assert_int_equal(eus.numTotalEUs, 0);
    assert_int_equal(luid.nodeMask, 0);
    p.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES;
    zc_assert_success(zeDeviceGetProperties(f->device, &p));
    assert_int_equal(eus.numTotalEUs, p.numSlices * p.numSubslicesPerSlice * p.numEUsPerSubslice);
    assert_int_not_equal(luid.nodeMask, 0);

    ze_kernel_preferred_group_size_properties_t preferred = {ZE_STRUCTURE_TYPE_KERNEL_PREFERRED_GROUP_SIZE_PROPERTIES,
                                                             NULL, 0};
    ze_kernel_properties_t k = {.stype = ZE_STRUCTURE_TYPE_KERNEL_DESC, .pNext = &preferred};
    zc_assert_success(zeKernelGetProperties(f->kernel, &k));
    assert_int_equal(preferred.preferredMultiple, 0);
    k.stype = ZE_STRUCTURE_TYPE_KERNEL_PROPERTIES;
    zc_assert_success(zeKernelGetProperties(f->kernel, &k));
    assert_int_equal(preferred.preferredMultiple, k.maxSubgroupSize);

    ze_driver_memory_free_ext_properties_t policies = {ZE_STRUCTURE_TYPE_DRIVER_MEMORY_FREE_EXT_PROPERTIES, NULL, 0};
    ze_driver_properties_t d = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES, .pNext = &policies};
    zc_assert_success(zeDriverGetProperties(zc_sys()->driver, &d));
    assert_int_equal(policies.freePolicies, 0);
    d.stype = ZE_STRUCTURE_TYPE_DRIVER_PROPERTIES;
    zc_assert_success(zeDriverGetProperties(zc_sys()->driver, &d));
    assert_int_not_equal(policies.freePolicies, 0);
}

/* A cycle in a chain that is only filled: the walk stops at its bound and the call answers. */
static void output_chain_cycle_filled_up_to_bound(void **state) {
    const zc_fixture *f = *state;
    zc_skip_unless_fake();
    ze_eu_count_ext_t eus = {ZE_STRUCTURE_TYPE_EU_COUNT_EXT, NULL, 0};
    eus.pNext = &eus;
    ze_device_properties_t p = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES, .pNext = &eus};
    zc_assert_success(zeDeviceGetProperties(f->device, &p));
    assert_int_equal(eus.numTotalEUs, p.numSlices * p.numSubslicesPerSlice * p.numEUsPerSubslice);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Descriptors */

/* `n` structures of a type no driver knows, chained in order; the last ends the chain. */
static void zc_unknown_chain(ze_base_desc_t *chain, size_t n) {
    for (size_t i = 0; i < n; i++)
        chain[i] = (ze_base_desc_t){ZC_UNKNOWN_TYPE, i + 1 < n ? &chain[i + 1] : NULL};
}

static void input_descriptor_cycles_refused(void **state) {
    const zc_fixture *f = *state;
    zc_skip_unless_fake();
    ze_base_desc_t loop = {ZC_UNKNOWN_TYPE, NULL};
    loop.pNext = &loop;
    void *ptr = NULL;
    const ze_host_mem_alloc_desc_t host = {ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, &loop, 0};
    const ze_device_mem_alloc_desc_t device = {ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, &loop, 0, 0};
    const ze_host_mem_alloc_desc_t plain_host = {ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, NULL, 0};
    zc_assert_result(zeMemAllocHost(f->context, &host, 64, 0, &ptr), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    zc_assert_result(zeMemAllocDevice(f->context, &device, 64, 0, f->device, &ptr), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    zc_assert_result(zeMemAllocShared(f->context, &device, &plain_host, 64, 0, f->device, &ptr),
                     ZE_RESULT_ERROR_INVALID_ARGUMENT);
    ze_image_desc_t image = zc_image_desc(&loop);
    ze_image_handle_t handle = NULL;
    ze_image_properties_t image_props = {ZE_STRUCTURE_TYPE_IMAGE_PROPERTIES, NULL, 0};
    zc_assert_result(zeImageCreate(f->context, f->device, &image, &handle), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    zc_assert_result(zeImageGetProperties(f->device, &image, &image_props), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    zc_spirv spirv = zc_load_spirv("vadd");
    ze_module_desc_t module = {
        ZE_STRUCTURE_TYPE_MODULE_DESC, &loop, ZE_MODULE_FORMAT_IL_SPIRV, spirv.size, spirv.data, NULL, NULL};
    ze_module_handle_t m = NULL;
    ze_result_t result = zeModuleCreate(f->context, f->device, &module, &m, NULL);
    free(spirv.data);
    zc_assert_result(result, ZE_RESULT_ERROR_INVALID_ARGUMENT);
}

/* docs/chains.md: 32 structures are read, 33 are taken for a cycle. */
static void input_chain_bound_is_32_structures(void **state) {
    const zc_fixture *f = *state;
    zc_skip_unless_fake();
    ze_base_desc_t chain[33];
    void *ptr = NULL;
    zc_unknown_chain(chain, 32);
    ze_host_mem_alloc_desc_t host = {ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, chain, 0};
    zc_assert_success(zeMemAllocHost(f->context, &host, 64, 0, &ptr));
    zc_assert_success(zeMemFree(f->context, ptr));
    zc_unknown_chain(chain, 33);
    zc_assert_result(zeMemAllocHost(f->context, &host, 64, 0, &ptr), ZE_RESULT_ERROR_INVALID_ARGUMENT);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Exports: all or nothing */

static unsigned zc_open_fds(void) {
    DIR *dir = opendir("/proc/self/fd");
    if (dir == NULL)
        zc_fail("cannot list /proc/self/fd");
    unsigned n = 0;
    for (const struct dirent *e = readdir(dir); e != NULL; e = readdir(dir))
        n += e->d_name[0] != '.';
    closedir(dir);
    return n;
}

static ze_result_t zc_export_mem(const zc_fixture *f, void *chain) {
    ze_memory_allocation_properties_t p = {ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES, chain, 0, 0, 0};
    return zeMemGetAllocProperties(f->context, f->ptr, &p, NULL);
}

static ze_result_t zc_export_image(const zc_fixture *f, void *chain) {
    ze_image_allocation_ext_properties_t p = {ZE_STRUCTURE_TYPE_IMAGE_ALLOCATION_EXT_PROPERTIES, chain, 0};
    return zeImageGetAllocPropertiesExt(f->context, f->image, &p);
}

static void zc_check_exports(const zc_fixture *f, ze_result_t (*export_fn)(const zc_fixture *, void *),
                             const char *what) {
    unsigned before = zc_open_fds();
    ze_external_memory_export_fd_t request = {ZE_STRUCTURE_TYPE_EXTERNAL_MEMORY_EXPORT_FD, NULL, ZC_FD_TYPE, -1};
    /* A cycle: refused before any export. */
    request.pNext = &request;
    zc_assert_result(export_fn(f, &request), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    if (request.fd != -1 || zc_open_fds() != before)
        zc_fail("%s: a refused cyclic chain left %u descriptor(s) open", what, zc_open_fds() - before);
    /* Two requests, the second of a type that cannot be exported: the first one's descriptor is closed again. */
    ze_external_memory_export_fd_t bad = {ZE_STRUCTURE_TYPE_EXTERNAL_MEMORY_EXPORT_FD, NULL,
                                          ZE_EXTERNAL_MEMORY_TYPE_FLAG_OPAQUE_WIN32, -1};
    request.pNext = &bad;
    zc_assert_error(export_fn(f, &request));
    if (request.fd != -1 || zc_open_fds() != before)
        zc_fail("%s: a failed second export left %u descriptor(s) open", what, zc_open_fds() - before);
    /* One request: one descriptor. */
    request.pNext = NULL;
    zc_assert_success(export_fn(f, &request));
    assert_true(request.fd >= 0);
    assert_int_equal(zc_open_fds(), before + 1);
    close(request.fd);
}

static void refused_exports_leak_no_descriptor(void **state) {
    zc_skip_unless_fake();
    zc_check_exports(*state, zc_export_mem, "zeMemGetAllocProperties");
    zc_check_exports(*state, zc_export_image, "zeImageGetAllocPropertiesExt");
}

/* ------------------------------------------------------------------------------------------------------------------
 * The warning */

static int zc_child_zero_stype(int argc, char **argv) {
    (void)argc;
    (void)argv;
    uint32_t count = 1;
    ze_driver_handle_t driver = NULL;
    ze_device_handle_t device = NULL;
    if (zeInit(0) != ZE_RESULT_SUCCESS || zeDriverGet(&count, &driver) != ZE_RESULT_SUCCESS ||
        zeDeviceGet(driver, &count, &device) != ZE_RESULT_SUCCESS)
        return 2;
    for (int i = 0; i < 3; i++) {
        ze_device_properties_t p;
        memset(&p, 0, sizeof p);
        printf("call%d=%s\n", i, zc_result_name(zeDeviceGetProperties(device, &p)));
    }
    return 0;
}

static unsigned zc_occurrences(const char *text, const char *what) {
    unsigned n = 0;
    for (const char *at = strstr(text, what); at != NULL; at = strstr(at + 1, what))
        n++;
    return n;
}

/* A zero-initialised output structure works, with one warning naming the function and argument. */
static void zero_stype_warned_once(void **state) {
    (void)state;
    zc_skip_unless_fake();
    const char *const env[] = {"ZEFAKE_LOG=warn", NULL};
    zc_child child;
    if (!zc_run_child_mode("zero-stype", NULL, env, ZC_CHILD_TIMEOUT_MS, &child))
        zc_fail("cannot start a child process");
    zc_assert_child_ok(&child, "the zero-stype child");
    for (int i = 0; i < 3; i++) {
        char key[16], value[64];
        snprintf(key, sizeof key, "call%d", i);
        assert_true(zc_child_value(&child, key, value, sizeof value));
        assert_string_equal(value, "ZE_RESULT_SUCCESS");
    }
    unsigned warnings = zc_occurrences(child.err, "warn: zeDeviceGetProperties: pDeviceProperties->stype is 0x0");
    if (warnings != 1)
        zc_fail("%u warnings for three calls; stderr:\n%s", warnings, child.err);
    zc_child_free(&child);
}

int main(int argc, char **argv) {
    static const struct CMUnitTest tests[] = {
#define ZC_FIXTURE chains
        ZC_T(getters_answer_garbage_output_structs),
        ZC_T(bad_pnext_pointers_stop_the_walk),
        ZC_T(output_chain_followed_only_under_expected_stype),
        ZC_T(output_chain_cycle_filled_up_to_bound),
        ZC_T(input_descriptor_cycles_refused),
        ZC_T(input_chain_bound_is_32_structures),
        ZC_T(refused_exports_leak_no_descriptor),
        cmocka_unit_test(zero_stype_warned_once),
#undef ZC_FIXTURE
    };
    static const zc_child_mode modes[] = {{"zero-stype", zc_child_zero_stype}};
    static const zc_suite suite = {
        ZC_EXECUTABLE, tests, ZC_COUNT(tests), zc_setup_system, zc_teardown_system, modes, ZC_COUNT(modes),
    };
    return zc_main(argc, argv, &suite);
}
