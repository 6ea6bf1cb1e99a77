/* Conformance: IPC memory handles (zeMemGetIpcHandle, zeMemOpenIpcHandle, zeMemCloseIpcHandle): bad arguments, a
 * handle opened in the process that made it, export errors, garbage and forged handles refused, and an allocation
 * shared with a child process that reads and writes it. The fields a forged handle changes are in zefake's handle
 * layout (docs/memory.md). */
#include "zc_memory.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The fields of zefake's handle layout (zefake/zefake_ext.h, docs/memory.md) the forgeries change. */
#define ZC_IPC_FIELD(field) offsetof(zefake_ipc_mem_handle_layout_t, field)
#define ZC_IPC_TOKEN_BYTE   (ZC_IPC_FIELD(token) + 7)
#define ZC_IPC_ID_OFFSET    ZC_IPC_FIELD(id)
#define ZC_IPC_PID_OFFSET   ZC_IPC_FIELD(pid)
#define ZC_IPC_NONCE_OFFSET ZC_IPC_FIELD(nonce)
#define ZC_IPC_OFFSET_BYTE  ZC_IPC_FIELD(offset_pages) /* its low byte: where a sub-allocation starts in its memfd */

static void memory_ipc_bad_arguments(void **state) {
    ze_context_handle_t context = *state;
    ze_device_handle_t device = zc_sys()->roots[0];
    void *ptr = NULL;
    zc_assert_success(zc_alloc(context, ZC_DEVICE, device, 64, 0, &ptr));
    ze_ipc_mem_handle_t handle;
    memset(&handle, 0, sizeof handle);
    void *opened = NULL;
    zc_assert_result(zeMemGetIpcHandle(NULL, ptr, &handle), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zeMemGetIpcHandle(context, NULL, &handle), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zeMemGetIpcHandle(context, ptr, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zeMemOpenIpcHandle(NULL, device, handle, 0, &opened), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zeMemOpenIpcHandle(context, NULL, handle, 0, &opened), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zeMemOpenIpcHandle(context, device, handle, 0x4, &opened), ZE_RESULT_ERROR_INVALID_ENUMERATION);
    zc_assert_result(zeMemOpenIpcHandle(context, device, handle, 0, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(zeMemCloseIpcHandle(NULL, ptr), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(zeMemCloseIpcHandle(context, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_success(zeMemFree(context, ptr));
}

/* ------------------------------------------------------------------------------------------------------------------
 * IPC */

/* Skips unless the driver advertises memory IPC (the fake must). */
static void zc_require_ipc(void) {
    ze_driver_ipc_properties_t properties = {.stype = ZE_STRUCTURE_TYPE_DRIVER_IPC_PROPERTIES};
    zc_assert_success(zeDriverGetIpcProperties(zc_sys()->driver, &properties));
    if (zc_driver_is_fake())
        assert_true(properties.flags & ZE_IPC_PROPERTY_FLAG_MEMORY);
    else if (!(properties.flags & ZE_IPC_PROPERTY_FLAG_MEMORY))
        skip();
}

static void memory_ipc_open_in_same_process(void **state) {
    ze_context_handle_t context = *state;
    zc_require_ipc();
    zc_skip_unless_fake(); /* the host writes device memory */
    ze_device_handle_t device = zc_sys()->roots[0];
    const size_t size = (64u << 10) + 5;
    void *ptr = NULL;
    zc_assert_success(zc_alloc(context, ZC_DEVICE, device, size, 0, &ptr));
    zc_fill(ptr, size, 11);
    ze_ipc_mem_handle_t handle, again;
    zc_assert_success(zeMemGetIpcHandle(context, ptr, &handle));
    zc_assert_success(zeMemGetIpcHandle(context, ptr, &again));
    assert_memory_equal(handle.data, again.data, sizeof handle.data);
    void *first = NULL, *second = NULL;
    zc_assert_success(zeMemOpenIpcHandle(context, device, handle, 0, &first));
    zc_assert_success(zeMemOpenIpcHandle(context, device, handle, ZE_IPC_MEMORY_FLAG_BIAS_CACHED, &second));
    assert_ptr_not_equal(first, ptr);
    assert_ptr_not_equal(first, second); /* each open gives a pointer of its own */
    zc_assert_pattern(first, size, 11, "the opened mapping");
    zc_fill(second, size, 12);
    zc_assert_pattern(ptr, size, 12, "the exported allocation after a write through the opened mapping");
    ze_memory_allocation_properties_t properties = zc_alloc_properties(context, (char *)first + 3, NULL);
    assert_int_equal(properties.type, ZE_MEMORY_TYPE_DEVICE);
    void *base = NULL;
    size_t range = 0;
    zc_assert_success(zeMemGetAddressRange(context, (char *)first + 3, &base, &range));
    assert_ptr_equal(base, first);
    assert_int_equal(range, size);
    /* Opened mappings are closed, not freed; allocations are freed, not closed. */
    zc_assert_result(zeMemFree(context, first), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    zc_assert_result(zeMemCloseIpcHandle(context, ptr), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    zc_assert_result(zeMemGetIpcHandle(context, first, &again), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    zc_assert_success(zeMemCloseIpcHandle(context, first));
    zc_assert_result(zeMemCloseIpcHandle(context, first), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    /* Freeing the allocation revokes the handle; a mapping already open stays usable. */
    zc_assert_success(zeMemFree(context, ptr));
    zc_assert_pattern(second, size, 12, "an opened mapping after the exporter freed the allocation");
    zc_assert_result(zeMemOpenIpcHandle(context, device, handle, 0, &first), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    zc_assert_success(zeMemCloseIpcHandle(context, second));
}

/* ------------------------------------------------------------------------------------------------------------------
 * Two root devices (each tile a root device in the FLAT hierarchy, or two cards): memory of the first opened on the
 * last, in the same process and in another one, and copied by the last device's engine. Skipped with one root. */

/* Copies `size` bytes from `src` to `dst` on an immediate list of `device`. */
static ze_result_t zc_device_copy(ze_context_handle_t context, ze_device_handle_t device, void *dst, const void *src,
                                  size_t size) {
    ze_command_queue_desc_t desc = {
        ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, NULL, 0, 0, 0, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS,
        ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
    ze_command_list_handle_t list = NULL;
    ze_result_t result = zeCommandListCreateImmediate(context, device, &desc, &list);
    if (result != ZE_RESULT_SUCCESS)
        return result;
    result = zeCommandListAppendMemoryCopy(list, dst, src, size, NULL, 0, NULL);
    ze_result_t destroyed = zeCommandListDestroy(list);
    return result != ZE_RESULT_SUCCESS ? result : destroyed;
}

/* Opens `handle` on `device` of `context`, checks the pattern of `seed_in` through a copy by that device into host
 * memory, then writes the pattern of `seed_out` through a copy by that device, and closes. Prints each step. */
static void zc_open_on_device(ze_context_handle_t context, ze_device_handle_t device, ze_ipc_mem_handle_t handle,
                              size_t size, uint32_t seed_in, uint32_t seed_out) {
    void *opened = NULL, *host = NULL;
    ze_result_t result = zeMemOpenIpcHandle(context, device, handle, 0, &opened);
    printf("open=%u\n", (unsigned)result);
    if (result != ZE_RESULT_SUCCESS)
        return;
    zc_assert_success(zc_alloc(context, ZC_HOST, NULL, size, 0, &host));
    printf("copy_in=%u\n", (unsigned)zc_device_copy(context, device, host, opened, size));
    printf("pattern_ok=%d\n", zc_mismatch(host, size, seed_in) == size);
    zc_fill(host, size, seed_out);
    printf("copy_out=%u\n", (unsigned)zc_device_copy(context, device, opened, host, size));
    printf("close=%u\n", (unsigned)zeMemCloseIpcHandle(context, opened));
    zc_assert_success(zeMemFree(context, host));
}

/* Child mode "ipc-open-last <hex handle> <size>": opens its parent's handle on the last root device. */
static int zc_child_ipc_open_last(int argc, char **argv) {
    ze_ipc_mem_handle_t handle;
    if (argc != 2 || !zc_hex_decode(argv[0], handle.data, sizeof handle.data))
        return 2;
    ze_context_handle_t context = NULL;
    if (zc_setup_system(NULL) != 0 ||
        zeContextCreate(zc_sys()->driver, &zc_context_desc, &context) != ZE_RESULT_SUCCESS)
        return 3;
    zc_open_on_device(context, zc_sys()->roots[zc_sys()->num_roots - 1], handle, (size_t)strtoull(argv[1], NULL, 0), 31,
                      32);
    fflush(stdout);
    printf("destroy=%u\n", (unsigned)zeContextDestroy(context));
    zc_teardown_system(NULL);
    return 0;
}

static void zc_expect_opened(const zc_child *child) {
    assert_int_equal(zc_child_number(child, "open"), ZE_RESULT_SUCCESS);
    assert_int_equal(zc_child_number(child, "copy_in"), ZE_RESULT_SUCCESS);
    assert_int_equal(zc_child_number(child, "pattern_ok"), 1);
    assert_int_equal(zc_child_number(child, "copy_out"), ZE_RESULT_SUCCESS);
    assert_int_equal(zc_child_number(child, "close"), ZE_RESULT_SUCCESS);
}

static void memory_ipc_between_root_devices(void **state) {
    ze_context_handle_t context = *state;
    zc_require_ipc();
    if (zc_sys()->num_roots < 2)
        skip();
    const size_t size = (1u << 20) + 17;
    void *ptr = NULL, *host = NULL;
    zc_assert_success(zc_alloc(context, ZC_DEVICE, zc_sys()->roots[0], size, 0, &ptr));
    zc_assert_success(zc_alloc(context, ZC_HOST, NULL, size, 0, &host));
    zc_fill(host, size, 31);
    zc_assert_success(zc_device_copy(context, zc_sys()->roots[0], ptr, host, size));
    ze_ipc_mem_handle_t handle;
    zc_assert_success(zeMemGetIpcHandle(context, ptr, &handle));
    char hex[2 * ZE_MAX_IPC_HANDLE_SIZE + 1], size_text[32];
    zc_hex_encode(handle.data, sizeof handle.data, hex);
    snprintf(size_text, sizeof size_text, "%zu", size);
    const char *args[] = {hex, size_text, NULL};
    zc_child child;
    if (!zc_run_child_mode("ipc-open-last", args, NULL, ZC_CHILD_TIMEOUT_MS, &child))
        fail_msg("cannot start the child process");
    zc_assert_child_ok(&child, "the importing process");
    zc_expect_opened(&child);
    assert_int_equal(zc_child_number(&child, "destroy"), ZE_RESULT_SUCCESS);
    zc_child_free(&child);
    zc_assert_success(zc_device_copy(context, zc_sys()->roots[0], host, ptr, size));
    zc_assert_pattern(host, size, 32, "the exporter's allocation after the other device wrote it");
    zc_assert_success(zeMemFree(context, host));
    zc_assert_success(zeMemFree(context, ptr));
}

static void memory_ipc_export_errors(void **state) {
    ze_context_handle_t context = *state;
    zc_require_ipc();
    zc_skip_unless_fake();
    char *ptr = NULL;
    zc_assert_success(zc_alloc(context, ZC_DEVICE, zc_sys()->roots[0], 4096, 0, (void **)&ptr));
    ze_ipc_mem_handle_t handle;
    int on_stack = 0;
    zc_assert_result(zeMemGetIpcHandle(context, ptr + 1, &handle), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    zc_assert_result(zeMemGetIpcHandle(context, &on_stack, &handle), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    ze_context_handle_t other = zc_new_context();
    zc_assert_result(zeMemGetIpcHandle(other, ptr, &handle), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    zc_assert_success(zeContextDestroy(other));
    zc_assert_success(zeMemFree(context, ptr));
    zc_assert_result(zeMemGetIpcHandle(context, ptr, &handle), ZE_RESULT_ERROR_INVALID_ARGUMENT);
}

/* Opens a handle that must be refused; closes it if it was not, so a failure leaks nothing. */
static void zc_assert_ipc_refused(ze_context_handle_t context, ze_ipc_mem_handle_t handle, const char *what) {
    void *opened = NULL;
    ze_result_t result = zeMemOpenIpcHandle(context, zc_sys()->roots[0], handle, 0, &opened);
    if (result == ZE_RESULT_SUCCESS)
        zeMemCloseIpcHandle(context, opened);
    if (zc_driver_is_fake() ? result != ZE_RESULT_ERROR_INVALID_ARGUMENT : result == ZE_RESULT_SUCCESS)
        fail_msg("%s: zeMemOpenIpcHandle returned %s", what, zc_result_name(result));
}

static void memory_ipc_garbage_handles_refused(void **state) {
    ze_context_handle_t context = *state;
    zc_require_ipc();
    ze_ipc_mem_handle_t handle;
    memset(&handle, 0, sizeof handle);
    zc_assert_ipc_refused(context, handle, "a zeroed handle");
    for (size_t i = 0; i < sizeof handle.data; i++)
        handle.data[i] = (char)(i * 37 + 11);
    zc_assert_ipc_refused(context, handle, "a handle of arbitrary bytes");
}

static void zc_poke(ze_ipc_mem_handle_t *handle, size_t offset, const void *value, size_t size) {
    memcpy(handle->data + offset, value, size);
}

static void memory_ipc_forged_handles_refused(void **state) {
    ze_context_handle_t context = *state;
    zc_require_ipc();
    zc_skip_unless_fake(); /* the forgeries use zefake's handle layout (docs/memory.md) */
    ze_device_handle_t device = zc_sys()->roots[0];
    void *exported = NULL, *secret = NULL;
    zc_assert_success(zc_alloc(context, ZC_DEVICE, device, 4096, 0, &exported));
    zc_assert_success(zc_alloc(context, ZC_DEVICE, device, 4096, 0, &secret));
    ze_ipc_mem_handle_t valid, forged;
    zc_assert_success(zeMemGetIpcHandle(context, exported, &valid));

    forged = valid;
    forged.data[ZC_IPC_TOKEN_BYTE] ^= 1;
    zc_assert_ipc_refused(context, forged, "a handle with one bit of its token changed");
    /* The exported allocation's token does not open another allocation. */
    uint64_t secret_id = zc_alloc_properties(context, secret, NULL).id;
    forged = valid;
    zc_poke(&forged, ZC_IPC_ID_OFFSET, &secret_id, sizeof secret_id);
    zc_assert_ipc_refused(context, forged, "the exported token with the id of an allocation never exported");
    uint32_t pid = 1;
    forged = valid;
    zc_poke(&forged, ZC_IPC_PID_OFFSET, &pid, sizeof pid);
    zc_assert_ipc_refused(context, forged, "a handle naming another process");
    forged = valid;
    forged.data[ZC_IPC_NONCE_OFFSET] ^= 1;
    zc_assert_ipc_refused(context, forged, "a handle naming another server");
    forged = valid;
    forged.data[ZC_IPC_OFFSET_BYTE] ^= 1;
    zc_assert_ipc_refused(context, forged, "a handle with its offset changed");

    void *opened = NULL;
    zc_assert_success(zeMemOpenIpcHandle(context, device, valid, 0, &opened)); /* the genuine one still works */
    zc_assert_success(zeMemCloseIpcHandle(context, opened));
    zc_assert_success(zeMemFree(context, exported));
    zc_assert_success(zeMemFree(context, secret));
}

/* In the child: opens the handle on the first root device of a new context. With `expect_ok`, first tries a forged
 * copy (reported as forged=<result>), then checks the pattern of `seed_in`, writes the pattern of `seed_out` and
 * closes. Returns the exit status. */
static int zc_child_open(ze_context_handle_t context, const ze_ipc_mem_handle_t *handle, size_t size, uint32_t seed_in,
                         uint32_t seed_out, bool expect_ok) {
    ze_device_handle_t device = zc_sys()->roots[0];
    void *ptr = NULL;
    if (expect_ok) {
        ze_ipc_mem_handle_t forged = *handle;
        forged.data[ZC_IPC_TOKEN_BYTE] ^= 0x80;
        printf("forged=%u\n", (unsigned)zeMemOpenIpcHandle(context, device, forged, 0, &ptr));
    }
    ze_result_t result = zeMemOpenIpcHandle(context, device, *handle, 0, &ptr);
    printf("open=%u\n", (unsigned)result);
    if (!expect_ok)
        return result == ZE_RESULT_ERROR_INVALID_ARGUMENT ? 0 : 5;
    if (result != ZE_RESULT_SUCCESS)
        return 6;
    printf("pattern_ok=%d\n", zc_mismatch(ptr, size, seed_in) == size);
    zc_fill(ptr, size, seed_out);
    printf("close=%u\n", (unsigned)zeMemCloseIpcHandle(context, ptr));
    return 0;
}

/* Child mode "ipc-open <hex handle> <size> <seed in> <seed out> ok|refused": a fresh process that opens a handle of
 * its parent. With "refused" it exits 0 when the open is refused with ZE_RESULT_ERROR_INVALID_ARGUMENT. */
static int zc_child_ipc_open(int argc, char **argv) {
    ze_ipc_mem_handle_t handle;
    if (argc != 5 || !zc_hex_decode(argv[0], handle.data, sizeof handle.data))
        return 2;
    size_t size = (size_t)strtoull(argv[1], NULL, 0);
    uint32_t seed_in = (uint32_t)strtoul(argv[2], NULL, 0), seed_out = (uint32_t)strtoul(argv[3], NULL, 0);
    ze_context_handle_t context = NULL;
    if (zc_setup_system(NULL) != 0 ||
        zeContextCreate(zc_sys()->driver, &zc_context_desc, &context) != ZE_RESULT_SUCCESS)
        return 3;
    int status = zc_child_open(context, &handle, size, seed_in, seed_out, strcmp(argv[4], "ok") == 0);
    printf("destroy=%u\n", (unsigned)zeContextDestroy(context));
    zc_teardown_system(NULL);
    return status;
}

static void zc_run_ipc_child(const ze_ipc_mem_handle_t *handle, size_t size, const char *expect, zc_child *child) {
    char hex[2 * ZE_MAX_IPC_HANDLE_SIZE + 1];
    char size_text[32];
    zc_hex_encode(handle->data, sizeof handle->data, hex);
    snprintf(size_text, sizeof size_text, "%zu", size);
    const char *args[] = {hex, size_text, "21", "22", expect, NULL};
    if (!zc_run_child_mode("ipc-open", args, NULL, ZC_CHILD_TIMEOUT_MS, child))
        fail_msg("cannot start the child process");
}

static void memory_ipc_between_processes(void **state) {
    ze_context_handle_t context = *state;
    zc_require_ipc();
    zc_skip_unless_fake(); /* the host writes device memory */
    const size_t size = (1u << 20) + 17;
    void *ptr = NULL;
    zc_assert_success(zc_alloc(context, ZC_DEVICE, zc_sys()->roots[0], size, 0, &ptr));
    zc_fill(ptr, size, 21);
    ze_ipc_mem_handle_t handle;
    zc_assert_success(zeMemGetIpcHandle(context, ptr, &handle));
    zc_child child;
    zc_run_ipc_child(&handle, size, "ok", &child);
    zc_assert_child_ok(&child, "the importing process");
    assert_int_equal(zc_child_number(&child, "forged"), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    assert_int_equal(zc_child_number(&child, "open"), ZE_RESULT_SUCCESS);
    assert_int_equal(zc_child_number(&child, "pattern_ok"), 1);
    assert_int_equal(zc_child_number(&child, "close"), ZE_RESULT_SUCCESS);
    assert_int_equal(zc_child_number(&child, "destroy"), ZE_RESULT_SUCCESS);
    zc_child_free(&child);
    zc_assert_pattern(ptr, size, 22, "the exporter's allocation after the importer wrote it");
    /* Once freed, the allocation cannot be reached through its handle any more. */
    zc_assert_success(zeMemFree(context, ptr));
    zc_run_ipc_child(&handle, size, "refused", &child);
    zc_assert_child_ok(&child, "the importing process, after the free");
    zc_child_free(&child);
}

/* A small allocation is a range of an arena shared with its neighbours (docs/memory.md "Arenas"): its handle names
 * the arena's memfd with the range's offset, and the other process reaches exactly the allocation's bytes. */
static void memory_ipc_sub_allocation_between_processes(void **state) {
    ze_context_handle_t context = *state;
    zc_require_ipc();
    zc_skip_unless_fake(); /* the host writes device memory; the offset is in zefake's layout */
    const size_t size = 4096 + 9;
    void *before = NULL, *exported = NULL, *after = NULL;
    zc_assert_success(zc_alloc(context, ZC_DEVICE, zc_sys()->roots[0], size, 0, &before));
    zc_assert_success(zc_alloc(context, ZC_DEVICE, zc_sys()->roots[0], size, 0, &exported));
    zc_assert_success(zc_alloc(context, ZC_DEVICE, zc_sys()->roots[0], size, 0, &after));
    zc_fill(before, size, 31);
    zc_fill(exported, size, 21);
    zc_fill(after, size, 32);
    ze_ipc_mem_handle_t handle;
    zc_assert_success(zeMemGetIpcHandle(context, exported, &handle));
    uint32_t offset_pages = 0;
    memcpy(&offset_pages, handle.data + ZC_IPC_OFFSET_BYTE, sizeof offset_pages);
    assert_true(offset_pages != 0 || (uintptr_t)exported < (uintptr_t)before); /* not at the start of its arena */
    zc_child child;
    zc_run_ipc_child(&handle, size, "ok", &child);
    zc_assert_child_ok(&child, "the importing process");
    assert_int_equal(zc_child_number(&child, "open"), ZE_RESULT_SUCCESS);
    assert_int_equal(zc_child_number(&child, "pattern_ok"), 1);
    zc_child_free(&child);
    zc_assert_pattern(exported, size, 22, "the exported sub-allocation after the importer wrote it");
    zc_assert_pattern(before, size, 31, "the sub-allocation before it");
    zc_assert_pattern(after, size, 32, "the sub-allocation after it");
    zc_assert_success(zeMemFree(context, before));
    zc_assert_success(zeMemFree(context, exported));
    zc_assert_success(zeMemFree(context, after));
}

#if ZC_L0_AT_LEAST(6)
/* zeMemPutIpcHandle (1.6): once every handle of an allocation is put, another process can no longer open it through
 * the exporter; the allocation itself stays, and a new zeMemGetIpcHandle shares it again. */
static void memory_ipc_put_handle(void **state) {
    ze_context_handle_t context = *state;
    zc_require_ipc();
    zc_api_require(zeMemPutIpcHandle);
    const size_t size = 4096;
    void *ptr = NULL;
    zc_assert_success(zc_alloc(context, ZC_DEVICE, zc_sys()->roots[0], size, 0, &ptr));
    ze_ipc_mem_handle_t handle, second;
    zc_assert_success(zeMemGetIpcHandle(context, ptr, &handle));
    zc_assert_success(zeMemGetIpcHandle(context, ptr, &second));
    zc_assert_success(ZC_API(zeMemPutIpcHandle)(context, second));
    zc_assert_success(ZC_API(zeMemPutIpcHandle)(context, handle));
    zc_assert_result(ZC_API(zeMemPutIpcHandle)(NULL, handle), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    if (zc_driver_is_fake()) {
        zc_fill(ptr, size, 21);
        zc_child child;
        zc_run_ipc_child(&handle, size, "refused", &child);
        zc_assert_child_ok(&child, "the importing process, after the handles were put");
        zc_child_free(&child);
        ze_ipc_mem_handle_t again;
        zc_assert_success(zeMemGetIpcHandle(context, ptr, &again));
        zc_run_ipc_child(&again, size, "ok", &child);
        zc_assert_child_ok(&child, "the importing process, after a new zeMemGetIpcHandle");
        assert_int_equal(zc_child_number(&child, "pattern_ok"), 1);
        zc_child_free(&child);
        /* this suite runs in the strict profile: a handle put twice, or not the driver's, is refused (the default
         * profile answers SUCCESS as Intel's driver does: test_tolerances.c) */
        zc_assert_success(ZC_API(zeMemPutIpcHandle)(context, again));
        zc_assert_result(ZC_API(zeMemPutIpcHandle)(context, again), ZE_RESULT_ERROR_INVALID_ARGUMENT);
        ze_ipc_mem_handle_t garbage;
        memset(&garbage, 0x3c, sizeof garbage);
        zc_assert_result(ZC_API(zeMemPutIpcHandle)(context, garbage), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    }
    zc_assert_success(zeMemFree(context, ptr));
}

static int zc_export_dma_buf(ze_context_handle_t context, const void *ptr) {
    ze_external_memory_export_fd_t request = {ZE_STRUCTURE_TYPE_EXTERNAL_MEMORY_EXPORT_FD, NULL,
                                              ZE_EXTERNAL_MEMORY_TYPE_FLAG_DMA_BUF, -1};
    ze_memory_allocation_properties_t props = {ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES, &request, 0, 0, 0};
    zc_assert_success(zeMemGetAllocProperties(context, ptr, &props, NULL));
    assert_true(request.fd >= 0);
    return request.fd;
}

static bool zc_same_file(int a, int b) {
    struct stat sa, sb;
    return fstat(a, &sa) == 0 && fstat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* zeMemGetIpcHandleFromFileDescriptorExp and zeMemGetFileDescriptorFromIpcHandleExp (1.6): an exported descriptor
 * becomes an IPC handle of the same allocation, whose descriptor is a descriptor of the same memory. */
static void memory_ipc_handles_and_descriptors(void **state) {
    ze_context_handle_t context = *state;
    zc_require_ipc();
    zc_api_require(zeMemGetIpcHandleFromFileDescriptorExp);
    ze_external_memory_export_desc_t export_desc = {ZE_STRUCTURE_TYPE_EXTERNAL_MEMORY_EXPORT_DESC, NULL,
                                                    ZE_EXTERNAL_MEMORY_TYPE_FLAG_DMA_BUF};
    ze_device_mem_alloc_desc_t desc = {ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, &export_desc, 0, 0};
    void *ptr = NULL;
    zc_assert_success(zeMemAllocDevice(context, &desc, 1u << 16, 0, zc_sys()->roots[0], &ptr));
    int fd = zc_export_dma_buf(context, ptr);
    ze_ipc_mem_handle_t handle;
    zc_assert_success(ZC_API(zeMemGetIpcHandleFromFileDescriptorExp)(context, (uint64_t)fd, &handle));
    uint64_t back = UINT64_MAX;
    zc_assert_success(ZC_API(zeMemGetFileDescriptorFromIpcHandleExp)(context, handle, &back));
    assert_true(zc_same_file(fd, (int)back));
    ze_ipc_mem_handle_t direct;
    zc_assert_success(zeMemGetIpcHandle(context, ptr, &direct));
    zc_assert_success(ZC_API(zeMemGetFileDescriptorFromIpcHandleExp)(context, direct, &back));
    assert_true(zc_same_file(fd, (int)back));
    /* bad inputs */
    zc_assert_result(ZC_API(zeMemGetIpcHandleFromFileDescriptorExp)(NULL, (uint64_t)fd, &handle),
                     ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zc_assert_result(ZC_API(zeMemGetIpcHandleFromFileDescriptorExp)(context, (uint64_t)fd, NULL),
                     ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zc_assert_result(ZC_API(zeMemGetFileDescriptorFromIpcHandleExp)(context, handle, NULL),
                     ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    if (zc_driver_is_fake()) {
        int other = open("/dev/null", O_RDONLY | O_CLOEXEC);
        zc_assert_result(ZC_API(zeMemGetIpcHandleFromFileDescriptorExp)(context, (uint64_t)other, &handle),
                         ZE_RESULT_ERROR_INVALID_ARGUMENT);
        close(other);
        zc_assert_result(ZC_API(zeMemGetIpcHandleFromFileDescriptorExp)(context, UINT64_MAX, &handle),
                         ZE_RESULT_ERROR_INVALID_ARGUMENT);
        ze_ipc_mem_handle_t garbage;
        memset(&garbage, 0x3c, sizeof garbage);
        zc_assert_result(ZC_API(zeMemGetFileDescriptorFromIpcHandleExp)(context, garbage, &back),
                         ZE_RESULT_ERROR_INVALID_ARGUMENT);
    }
    close(fd);
    zc_assert_success(zeMemFree(context, ptr));
}
#endif

int main(int argc, char **argv) {
    static const struct CMUnitTest tests[] = {
#define ZC_FIXTURE context
        ZC_T(memory_ipc_bad_arguments),
        ZC_T(memory_ipc_open_in_same_process),
        ZC_T(memory_ipc_export_errors),
        ZC_T(memory_ipc_garbage_handles_refused),
        ZC_T(memory_ipc_forged_handles_refused),
        ZC_T(memory_ipc_between_processes),
        ZC_T(memory_ipc_between_root_devices),
        ZC_T(memory_ipc_sub_allocation_between_processes),
#if ZC_L0_AT_LEAST(6)
        ZC_T(memory_ipc_put_handle),
        ZC_T(memory_ipc_handles_and_descriptors),
#endif
#undef ZC_FIXTURE
    };
    static const zc_child_mode modes[] = {{"ipc-open", zc_child_ipc_open}, {"ipc-open-last", zc_child_ipc_open_last}};
    static const zc_suite suite = {
        ZC_EXECUTABLE, tests, ZC_COUNT(tests), zc_setup_system, zc_teardown_system, modes, ZC_COUNT(modes),
    };
    return zc_main(argc, argv, &suite);
}
