/* Conformance: external memory (zeDeviceGetExternalMemoryProperties; ze_external_memory_export_desc_t,
 * ze_external_memory_export_fd_t and ze_external_memory_import_fd_t on device allocations): export as a DMA-BUF or
 * opaque descriptor, import in the same process and in another one that receives the descriptor over a unix socket,
 * and bad inputs. Images are test_image's. */
#include "zc_exec.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

static const ze_external_memory_type_flags_t zc_fd_types =
    ZE_EXTERNAL_MEMORY_TYPE_FLAG_OPAQUE_FD | ZE_EXTERNAL_MEMORY_TYPE_FLAG_DMA_BUF;

/* Skips unless the device exports and imports DMA-BUFs (the fake must). */
static void zc_require_dma_buf(ze_device_handle_t device) {
    ze_device_external_memory_properties_t p = {.stype = ZE_STRUCTURE_TYPE_DEVICE_EXTERNAL_MEMORY_PROPERTIES};
    zc_assert_success(zeDeviceGetExternalMemoryProperties(device, &p));
    bool supported =
        (p.memoryAllocationExportTypes & p.memoryAllocationImportTypes & ZE_EXTERNAL_MEMORY_TYPE_FLAG_DMA_BUF) != 0;
    if (zc_driver_is_fake() && !supported)
        zc_fail("the fake does not report DMA-BUF export and import");
    if (!supported)
        skip();
}

static void *zc_exportable(ze_context_handle_t context, ze_device_handle_t device, size_t size,
                           ze_external_memory_type_flags_t types) {
    ze_external_memory_export_desc_t export_desc = {ZE_STRUCTURE_TYPE_EXTERNAL_MEMORY_EXPORT_DESC, NULL, types};
    ze_device_mem_alloc_desc_t desc = {ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, &export_desc, 0, 0};
    void *ptr = NULL;
    zc_assert_success(zeMemAllocDevice(context, &desc, size, 0, device, &ptr));
    return ptr;
}

static ze_result_t zc_export_fd(ze_context_handle_t context, const void *ptr, ze_external_memory_type_flags_t type,
                                int *fd) {
    ze_external_memory_export_fd_t request = {ZE_STRUCTURE_TYPE_EXTERNAL_MEMORY_EXPORT_FD, NULL, type, -1};
    ze_memory_allocation_properties_t props = {ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES, &request, 0, 0, 0};
    ze_result_t result = zeMemGetAllocProperties(context, ptr, &props, NULL);
    *fd = request.fd;
    return result;
}

static ze_result_t zc_import(ze_context_handle_t context, ze_device_handle_t device, int fd,
                             ze_external_memory_type_flags_t type, size_t size, void **ptr) {
    ze_external_memory_import_fd_t import = {ZE_STRUCTURE_TYPE_EXTERNAL_MEMORY_IMPORT_FD, NULL, type, fd};
    ze_device_mem_alloc_desc_t desc = {ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, &import, 0, 0};
    return zeMemAllocDevice(context, &desc, size, 0, device, ptr);
}

static void external_properties_advertise_fd_types(void **state) {
    (void)state;
    zc_skip_unless_fake();
    const zc_system *sys = zc_sys();
    for (uint32_t i = 0; i < sys->num_all; i++) {
        ze_device_external_memory_properties_t p = {.stype = ZE_STRUCTURE_TYPE_DEVICE_EXTERNAL_MEMORY_PROPERTIES};
        zc_assert_success(zeDeviceGetExternalMemoryProperties(sys->all[i], &p));
        assert_int_equal(p.memoryAllocationImportTypes, zc_fd_types);
        assert_int_equal(p.memoryAllocationExportTypes, zc_fd_types);
        assert_int_equal(p.imageImportTypes, zc_fd_types);
        assert_int_equal(p.imageExportTypes, zc_fd_types);
    }
}

static void external_export_and_import_in_process(void **state) {
    zc_exec *x = *state;
    zc_require_dma_buf(x->device);
    const size_t size = (1u << 20) + 3;
    uint8_t *exported = zc_exportable(x->context, x->device, size, zc_fd_types);
    const ze_external_memory_type_flags_t types[] = {ZE_EXTERNAL_MEMORY_TYPE_FLAG_DMA_BUF,
                                                     ZE_EXTERNAL_MEMORY_TYPE_FLAG_OPAQUE_FD};
    for (size_t t = 0; t < ZC_COUNT(types); t++) {
        int fd = -1;
        zc_assert_success(zc_export_fd(x->context, exported, types[t], &fd));
        assert_true(fd >= 0);
        /* Imported in another context: the same memory. */
        ze_context_handle_t other = NULL;
        ze_context_desc_t cd = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0};
        zc_assert_success(zeContextCreate(zc_sys()->driver, &cd, &other));
        uint8_t *imported = NULL;
        zc_assert_success(zc_import(other, x->device, fd, types[t], size, (void **)&imported));
        close(fd); /* the allocation keeps its own reference */
        uint8_t *host = zc_host_alloc(x, size), *back = NULL;
        ze_host_mem_alloc_desc_t hd = {ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, NULL, 0};
        zc_assert_success(zeMemAllocHost(other, &hd, size, 0, (void **)&back));
        zc_fill_pattern(host, size, (uint32_t)t + 1);
        ze_command_list_handle_t list = zc_immediate(x, x->compute_ordinal, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
        zc_assert_success(zeCommandListAppendMemoryCopy(list, exported, host, size, NULL, 0, NULL));
        zc_assert_success(zeCommandListDestroy(list));
        ze_command_queue_desc_t qd = {
            ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, NULL, x->compute_ordinal, 0, 0, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS,
            ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
        ze_command_list_handle_t other_list = NULL;
        zc_assert_success(zeCommandListCreateImmediate(other, x->device, &qd, &other_list));
        zc_assert_success(zeCommandListAppendMemoryCopy(other_list, back, imported, size, NULL, 0, NULL));
        zc_assert_success(zeCommandListDestroy(other_list));
        if (memcmp(host, back, size) != 0)
            zc_fail("memory imported from a %s descriptor does not hold what the exporter wrote",
                    t == 0 ? "DMA-BUF" : "opaque");
        zc_assert_success(zeMemFree(other, imported));
        zc_assert_success(zeMemFree(other, back));
        zc_assert_success(zeContextDestroy(other));
        zc_free(x, host);
    }
    zc_free(x, exported);
}

static void external_bad_arguments(void **state) {
    zc_exec *x = *state;
    zc_require_dma_buf(x->device);
    zc_skip_unless_fake(); /* the specification names no error for these (docs/memory.md) */
    void *ptr = NULL;
    int fd = -1;
    /* Not exportable, or not as that type. */
    void *plain = zc_device_alloc(x, 4096);
    zc_assert_result(zc_export_fd(x->context, plain, ZE_EXTERNAL_MEMORY_TYPE_FLAG_DMA_BUF, &fd),
                     ZE_RESULT_ERROR_INVALID_ARGUMENT);
    void *opaque_only = zc_exportable(x->context, x->device, 4096, ZE_EXTERNAL_MEMORY_TYPE_FLAG_OPAQUE_FD);
    zc_assert_result(zc_export_fd(x->context, opaque_only, ZE_EXTERNAL_MEMORY_TYPE_FLAG_DMA_BUF, &fd),
                     ZE_RESULT_ERROR_INVALID_ARGUMENT);
    zc_assert_result(zc_export_fd(x->context, opaque_only, zc_fd_types, &fd), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    zc_assert_result(zc_export_fd(x->context, opaque_only, ZE_EXTERNAL_MEMORY_TYPE_FLAG_OPAQUE_WIN32, &fd),
                     ZE_RESULT_ERROR_UNSUPPORTED_FEATURE);
    zc_assert_result(zc_export_fd(x->context, opaque_only, 0x100, &fd), ZE_RESULT_ERROR_INVALID_ENUMERATION);
    /* Exporting as Windows handles; exporting host memory. */
    ze_external_memory_export_desc_t win32 = {ZE_STRUCTURE_TYPE_EXTERNAL_MEMORY_EXPORT_DESC, NULL,
                                              ZE_EXTERNAL_MEMORY_TYPE_FLAG_D3D12_HEAP};
    ze_device_mem_alloc_desc_t desc = {ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, &win32, 0, 0};
    zc_assert_result(zeMemAllocDevice(x->context, &desc, 4096, 0, x->device, &ptr),
                     ZE_RESULT_ERROR_UNSUPPORTED_FEATURE);
    ze_external_memory_export_desc_t dma = {ZE_STRUCTURE_TYPE_EXTERNAL_MEMORY_EXPORT_DESC, NULL,
                                            ZE_EXTERNAL_MEMORY_TYPE_FLAG_DMA_BUF};
    ze_host_mem_alloc_desc_t host = {ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, &dma, 0};
    zc_assert_result(zeMemAllocHost(x->context, &host, 4096, 0, &ptr), ZE_RESULT_ERROR_UNSUPPORTED_FEATURE);
    /* Importing: no descriptor, no or two types, a descriptor that is not memory, too little memory. */
    zc_assert_result(zc_import(x->context, x->device, -1, ZE_EXTERNAL_MEMORY_TYPE_FLAG_DMA_BUF, 4096, &ptr),
                     ZE_RESULT_ERROR_INVALID_ARGUMENT);
    zc_assert_success(zc_export_fd(x->context, opaque_only, ZE_EXTERNAL_MEMORY_TYPE_FLAG_OPAQUE_FD, &fd));
    zc_assert_result(zc_import(x->context, x->device, fd, 0, 4096, &ptr), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    zc_assert_result(zc_import(x->context, x->device, fd, zc_fd_types, 4096, &ptr), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    zc_assert_result(zc_import(x->context, x->device, fd, ZE_EXTERNAL_MEMORY_TYPE_FLAG_OPAQUE_FD, 1u << 20, &ptr),
                     ZE_RESULT_ERROR_INVALID_ARGUMENT);
    int pipe_fds[2];
    assert_int_equal(pipe(pipe_fds), 0);
    zc_assert_result(zc_import(x->context, x->device, pipe_fds[0], ZE_EXTERNAL_MEMORY_TYPE_FLAG_DMA_BUF, 4096, &ptr),
                     ZE_RESULT_ERROR_INVALID_ARGUMENT);
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    ze_external_memory_import_win32_handle_t import_win32 = {ZE_STRUCTURE_TYPE_EXTERNAL_MEMORY_IMPORT_WIN32, NULL,
                                                             ZE_EXTERNAL_MEMORY_TYPE_FLAG_OPAQUE_WIN32, NULL, NULL};
    desc.pNext = &import_win32;
    zc_assert_result(zeMemAllocDevice(x->context, &desc, 4096, 0, x->device, &ptr),
                     ZE_RESULT_ERROR_UNSUPPORTED_FEATURE);
    /* The same descriptor imported into a host allocation: only device memory imports. */
    ze_external_memory_import_fd_t import = {ZE_STRUCTURE_TYPE_EXTERNAL_MEMORY_IMPORT_FD, NULL,
                                             ZE_EXTERNAL_MEMORY_TYPE_FLAG_OPAQUE_FD, fd};
    host.pNext = &import;
    zc_assert_result(zeMemAllocHost(x->context, &host, 4096, 0, &ptr), ZE_RESULT_ERROR_UNSUPPORTED_FEATURE);
    close(fd);
    zc_free(x, plain);
    zc_free(x, opaque_only);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Between processes */

static int zc_send_fd(int socket_fd, int fd) {
    return zc_send_with_fd(socket_fd, "m", 1, fd) ? 0 : -1;
}

static int zc_receive_fd(int socket_fd) {
    char byte = 0;
    return zc_receive_with_fd(socket_fd, &byte, 1);
}

/* Child mode "import <socket fd> <size> <seed in> <seed out>": receives a descriptor, imports it as device memory,
 * checks the exporter's pattern, writes its own, and reports. */
static int zc_child_import(int argc, char **argv) {
    if (argc != 4)
        return 2;
    int fd = zc_receive_fd(atoi(argv[0]));
    size_t size = (size_t)strtoull(argv[1], NULL, 0);
    uint32_t seed_in = (uint32_t)strtoul(argv[2], NULL, 0), seed_out = (uint32_t)strtoul(argv[3], NULL, 0);
    printf("received=%d\n", fd >= 0);
    ze_context_handle_t context = NULL;
    ze_context_desc_t cd = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0};
    if (fd < 0 || zc_setup_system(NULL) != 0 || zeContextCreate(zc_sys()->driver, &cd, &context) != ZE_RESULT_SUCCESS)
        return 3;
    uint8_t *ptr = NULL;
    ze_result_t result =
        zc_import(context, zc_sys()->roots[0], fd, ZE_EXTERNAL_MEMORY_TYPE_FLAG_DMA_BUF, size, (void **)&ptr);
    printf("import=%u\n", (unsigned)result);
    close(fd);
    if (result != ZE_RESULT_SUCCESS)
        return 4;
    uint8_t *expected = malloc(size);
    zc_fill_pattern(expected, size, seed_in);
    printf("pattern_ok=%d\n", memcmp(ptr, expected, size) == 0);
    zc_fill_pattern(ptr, size, seed_out);
    free(expected);
    printf("free=%u\n", (unsigned)zeMemFree(context, ptr));
    printf("destroy=%u\n", (unsigned)zeContextDestroy(context));
    zc_teardown_system(NULL);
    return 0;
}

static void external_memory_shared_with_another_process(void **state) {
    zc_exec *x = *state;
    zc_require_dma_buf(x->device);
    zc_skip_unless_fake(); /* both processes read and write device memory from the host */
    const size_t size = (256u << 10) + 5;
    uint8_t *exported = zc_exportable(x->context, x->device, size, ZE_EXTERNAL_MEMORY_TYPE_FLAG_DMA_BUF);
    zc_fill_pattern(exported, size, 31);
    int fd = -1;
    zc_assert_success(zc_export_fd(x->context, exported, ZE_EXTERNAL_MEMORY_TYPE_FLAG_DMA_BUF, &fd));
    int sockets[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sockets), 0);
    assert_int_equal(zc_send_fd(sockets[0], fd), 0);
    close(fd);
    char socket_text[16], size_text[32];
    snprintf(socket_text, sizeof socket_text, "%d", sockets[1]);
    snprintf(size_text, sizeof size_text, "%zu", size);
    const char *args[] = {socket_text, size_text, "31", "32", NULL};
    zc_child child;
    bool started = zc_run_child_mode("import", args, NULL, ZC_CHILD_TIMEOUT_MS, &child);
    close(sockets[0]);
    close(sockets[1]);
    assert_true(started);
    zc_assert_child_ok(&child, "the importing process");
    assert_int_equal(zc_child_number(&child, "received"), 1);
    assert_int_equal(zc_child_number(&child, "import"), ZE_RESULT_SUCCESS);
    assert_int_equal(zc_child_number(&child, "pattern_ok"), 1);
    assert_int_equal(zc_child_number(&child, "free"), ZE_RESULT_SUCCESS);
    zc_child_free(&child);
    uint8_t *expected = malloc(size);
    zc_fill_pattern(expected, size, 32);
    if (memcmp(exported, expected, size) != 0)
        zc_fail("the exporter does not see what the importing process wrote");
    free(expected);
    zc_free(x, exported);
}

int main(int argc, char **argv) {
    static const struct CMUnitTest tests[] = {
#define ZC_FIXTURE exec
        cmocka_unit_test(external_properties_advertise_fd_types),
        ZC_T(external_export_and_import_in_process),
        ZC_T(external_bad_arguments),
        ZC_T(external_memory_shared_with_another_process),
#undef ZC_FIXTURE
    };
    static const zc_child_mode modes[] = {{"import", zc_child_import}};
    static const zc_suite suite = {
        ZC_EXECUTABLE, tests, ZC_COUNT(tests), zc_setup_system, zc_teardown_system, modes, ZC_COUNT(modes),
    };
    return zc_main(argc, argv, &suite);
}
