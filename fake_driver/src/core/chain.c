/* The pNext walker (zf_chain.h): bounded walks, look-ups by stype, and the rule for output structures whose stype is
 * not what the argument expects (docs/chains.md). */
#include "core/zf_chain.h"

#include <stdio.h>
#include <unistd.h>

/* Intel's driver follows any pNext and crashes on garbage; the walk stops instead, in both profiles, since the
 * structures before are real and a refusal would need a code the getters' @returns lack (docs/chains.md). */
const void *zf_chain_refuse(const void *next) {
    /* a call often walks one chain twice (its length, then its structures): one warning for the same pointer */
    static _Thread_local const void *last_refused;
    if (next == last_refused)
        return NULL;
    last_refused = next;
    zf_log(
        ZF_LOG_WARN,
        "%s: a pNext chain points to %p, which cannot be a structure (below 64 KiB, outside user space or not 8-byte "
        "aligned): the walk stops there",
        zf_current_api_name(), next);
    return NULL;
}

bool zf_chain_too_long(const void *head) {
    const ze_base_desc_t *ext = zf_chain_trusted(head);
    for (unsigned n = 0; ext != NULL; n++, ext = zf_chain_trusted(ext->pNext)) {
        if (n == ZF_MAX_CHAIN)
            return true;
    }
    return false;
}

ze_result_t zf_chain_check(const void *head, const char *arg) {
    if (!zf_chain_too_long(head))
        return ZE_RESULT_SUCCESS;
    return zf_fail(ZE_RESULT_ERROR_INVALID_ARGUMENT, "%s->pNext chain is longer than %u structures (a cycle?)", arg,
                   ZF_MAX_CHAIN);
}

const ze_base_desc_t *zf_chain_find(const void *head, uint32_t stype) {
    zf_chain_foreach(ext, head) {
        if ((uint32_t)ext->stype == stype)
            return ext;
    }
    return NULL;
}

ze_base_properties_t *zf_chain_find_out(void *head, uint32_t stype) {
    zf_chain_foreach_out(ext, head) {
        if ((uint32_t)ext->stype == stype)
            return ext;
    }
    return NULL;
}

/* Intel's driver answers such structures; the getters' @returns have no code to refuse them with, so both profiles
 * fill them (docs/tolerances.md), counted and warned once per getter. */
void *zf_out_chain_of(void *out, const char *arg, const char *expected_names, const uint32_t *expected, size_t n) {
    const ze_base_properties_t *base = out;
    for (size_t i = 0; i < n; i++) {
        if ((uint32_t)base->stype == expected[i])
            return base->pNext;
    }
    char detail[256];
    snprintf(detail, sizeof detail, "%s->stype is 0x%x, not %s", arg, (unsigned)base->stype, expected_names);
    zf_tolerate_unrefusable("stype is the type of this structure", detail,
                            "the structure's base fields are filled and its pNext chain is not followed");
    return NULL;
}

/* Closes the descriptors exported into the chain's requests before `failed`. */
static void zf_chain_unexport(void *chain, const ze_base_properties_t *failed) {
    zf_chain_foreach_out(ext, chain) {
        if (ext == failed)
            return;
        ze_external_memory_export_fd_t *request = (ze_external_memory_export_fd_t *)ext;
        if (ext->stype == ZE_STRUCTURE_TYPE_EXTERNAL_MEMORY_EXPORT_FD && request->fd >= 0) {
            close(request->fd);
            request->fd = -1;
        }
    }
}

ze_result_t zf_chain_export_fds(void *chain, zf_export_fd_fn export_fd, const void *source) {
    zf_chain_foreach_out(ext, chain) {
        if (ext->stype != ZE_STRUCTURE_TYPE_EXTERNAL_MEMORY_EXPORT_FD)
            continue;
        ze_result_t result = export_fd((ze_external_memory_export_fd_t *)ext, source);
        if (result != ZE_RESULT_SUCCESS) {
            zf_chain_unexport(chain, ext);
            return result;
        }
    }
    return ZE_RESULT_SUCCESS;
}
