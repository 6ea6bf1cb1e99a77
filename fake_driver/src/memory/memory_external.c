/* External memory: device allocations (and, through memory_backing.c, images) exported as file descriptors and
 * imported from them (ze_external_memory_export_desc_t, ze_external_memory_export_fd_t,
 * ze_external_memory_import_fd_t).
 *
 * Every allocation is a memfd already, so exporting hands out a new descriptor of it, and importing maps the
 * descriptor the application gives. Both types zefake advertises, OPAQUE_FD and DMA_BUF, are served by the same
 * memfd: a process that imports it, or receives it over a unix socket and imports it there, shares the pages. A
 * real dma-buf of another driver can be imported too when the kernel lets it be mapped. docs/memory.md. */
#include "core/zf_core.h"
#include "memory/memory_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* The types zefake imports and exports, and every type the header defines. */
#define ZF_EXTERNAL_FD_TYPES      (ZE_EXTERNAL_MEMORY_TYPE_FLAG_OPAQUE_FD | ZE_EXTERNAL_MEMORY_TYPE_FLAG_DMA_BUF)
#define ZF_EXTERNAL_DEFINED_TYPES 0xffu

/* Flags naming external memory types: undefined bits, then Windows types, are refused. */
static ze_result_t zf_external_check_types(ze_external_memory_type_flags_t flags, const char *what) {
    if (flags & ~ZF_EXTERNAL_DEFINED_TYPES)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ENUMERATION, "%s 0x%x has undefined bits", what, (unsigned)flags);
    if (flags & ~ZF_EXTERNAL_FD_TYPES)
        return zf_fail(ZE_RESULT_ERROR_UNSUPPORTED_FEATURE,
                       "%s 0x%x names Windows handle types; zefake supports OPAQUE_FD and DMA_BUF", what,
                       (unsigned)flags);
    return ZE_RESULT_SUCCESS;
}

/* A descriptor is of exactly one type: zero or both bits leave it unknown. */
static ze_result_t zf_external_check_one_type(ze_external_memory_type_flags_t flags, const char *what) {
    ze_result_t result = zf_external_check_types(flags, what);
    if (result == ZE_RESULT_SUCCESS && flags != ZE_EXTERNAL_MEMORY_TYPE_FLAG_OPAQUE_FD &&
        flags != ZE_EXTERNAL_MEMORY_TYPE_FLAG_DMA_BUF)
        result = zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "%s 0x%x must name exactly one type of descriptor", what,
                         (unsigned)flags);
    return result;
}

static ze_result_t zf_external_read_import(const ze_external_memory_import_fd_t *import, const char *arg,
                                           zf_external_request *request) {
    ze_result_t result = zf_external_check_one_type(import->flags, "ze_external_memory_import_fd_t.flags");
    if (result != ZE_RESULT_SUCCESS)
        return result;
    if (import->fd < 0)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "%s chain: ze_external_memory_import_fd_t.fd is %d", arg,
                       import->fd);
    if (request->import_fd >= 0)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "%s chain: more than one descriptor to import", arg);
    request->import_fd = import->fd;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zf_external_read(const ze_base_desc_t *ext, const char *arg, bool supported, zf_external_request *request) {
    if (ext->stype == ZE_STRUCTURE_TYPE_EXTERNAL_MEMORY_IMPORT_WIN32)
        return zf_fail(ZE_RESULT_ERROR_UNSUPPORTED_FEATURE, "%s chain: Windows handles cannot be imported on Linux",
                       arg);
    if (ext->stype == ZE_STRUCTURE_TYPE_EXTERNAL_MEMORY_EXPORT_DESC) {
        ze_external_memory_type_flags_t flags = ((const ze_external_memory_export_desc_t *)ext)->flags;
        if (flags == 0)
            return ZE_RESULT_SUCCESS; /* nothing asked */
        ze_result_t result = zf_external_check_types(flags, "ze_external_memory_export_desc_t.flags");
        if (result == ZE_RESULT_SUCCESS && !supported)
            result = zf_fail(ZE_RESULT_ERROR_UNSUPPORTED_FEATURE,
                             "%s chain: only device allocations and images can be exported", arg);
        request->export_types |= flags;
        return result;
    }
    if (!supported)
        return zf_fail(ZE_RESULT_ERROR_UNSUPPORTED_FEATURE,
                       "%s chain: only device allocations and images can import external memory", arg);
    return zf_external_read_import((const ze_external_memory_import_fd_t *)ext, arg, request);
}

/* The bytes behind a descriptor: a memfd's (or any file's) size, else what seeking to its end says, as a dma-buf
 * answers. -1 when it has no size (a pipe, a socket). */
static off_t zf_external_fd_size(int fd) {
    struct stat st;
    if (fstat(fd, &st) != 0)
        return -1;
    if (S_ISREG(st.st_mode))
        return st.st_size;
    /* The descriptor's offset is the application's: put it back. */
    off_t current = lseek(fd, 0, SEEK_CUR);
    off_t end = lseek(fd, 0, SEEK_END);
    if (current >= 0)
        lseek(fd, current, SEEK_SET);
    return end;
}

ze_result_t zf_external_import_block(int fd, size_t size, size_t alignment, zf_mem_block **out) {
    off_t available = zf_external_fd_size(fd);
    if (available < 0)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "fd %d is not memory (neither a memfd nor a dma-buf): %s", fd,
                       strerror(errno));
    if ((uint64_t)available < size)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "fd %d holds %lld bytes, fewer than the %zu asked", fd,
                       (long long)available, size);
    size_t page = zf_host_page_size();
    size_t map_size = (size + page - 1) & ~(page - 1);
    int own = fcntl(fd, F_DUPFD_CLOEXEC, 0); /* the application keeps its descriptor */
    if (own < 0)
        return zf_fail(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "cannot duplicate fd %d: %s", fd, strerror(errno));
    zf_mem_block *block = calloc(1, sizeof *block);
    void *base = block != NULL ? zf_map_aligned(own, map_size, alignment > page ? alignment : page) : MAP_FAILED;
    if (base == MAP_FAILED) {
        int error = errno;
        ze_result_t result = block == NULL ? ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY : ZE_RESULT_ERROR_INVALID_ARGUMENT;
        close(own);
        free(block);
        return zf_fail(result, "cannot map %zu bytes of fd %d for reading and writing: %s", map_size, fd,
                       strerror(error));
    }
    block->fd = own;
    block->info.base = base;
    block->info.size = size;
    block->map_size = map_size;
    block->page_size = page;
    block->refs = 1;
    *out = block;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zf_external_export(zf_context *context, const void *ptr, ze_external_memory_export_fd_t *request) {
    ze_result_t result = zf_external_check_one_type(request->flags, "ze_external_memory_export_fd_t.flags");
    if (result != ZE_RESULT_SUCCESS)
        return result;
    const char *why = NULL;
    int fd = zf_index_export_fd(context, ptr, request->flags, &why);
    if (fd < 0)
        return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "ptr %p cannot be exported as a descriptor: %s", ptr, why);
    request->fd = fd;
    return ZE_RESULT_SUCCESS;
}
