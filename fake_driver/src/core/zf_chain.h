/* pNext chains: the one walker of the driver, in the manner of Mesa's vk_foreach_struct and vk_find_struct.
 *
 * Every structure of the API begins with stype and pNext (ze_base_desc_t for inputs, ze_base_properties_t for
 * outputs; zet_ structures share the layout). A walk visits at most ZF_MAX_CHAIN structures: a longer chain is taken
 * for a cycle. Descriptors (inputs) with a longer chain are refused with zf_chain_check before anything in them is
 * acted on; output chains are filled up to the bound. An output structure's own chain is followed only when its stype
 * is one expected for the argument (zf_out_chain); docs/chains.md states the rules. */
#ifndef ZF_CHAIN_H
#define ZF_CHAIN_H

#include "core/zf_core.h"

#include <stddef.h>
#include <stdint.h>

/* The lowest address a structure of a chain may have: Linux never maps the first 64 KiB (vm.mmap_min_addr), so a
 * pNext below is a small integer or a flag word, not a structure. */
#define ZF_CHAIN_LOWEST ((uintptr_t)64u << 10)
/* Bits of a user-space address: x86-64 user space ends at 2^47 (higher addresses are the kernel's or non-canonical),
 * AArch64's at 2^48. */
#if defined(__x86_64__)
#define ZF_CHAIN_USER_BITS 47u
#else
#define ZF_CHAIN_USER_BITS 48u
#endif

/* True when `next` may be a structure of a chain: above the first 64 KiB, in user space, 8-byte aligned (every
 * structure holds the pNext pointer). Arithmetic only: a walk makes no system call per structure. */
static inline bool zf_chain_plausible(const void *next) {
    uintptr_t address = (uintptr_t)next;
    return address >= ZF_CHAIN_LOWEST && (address >> ZF_CHAIN_USER_BITS) == 0 && (address & 7u) == 0;
}

/* Warns "<function>: a pNext chain points to <p>, which cannot be a structure (...): the walk stops there" and
 * returns NULL. */
const void *zf_chain_refuse(const void *next);

/* `next` when NULL or plausible, else NULL after the warning: where every walk takes its next structure from. */
static inline const void *zf_chain_trusted(const void *next) {
    return next == NULL || zf_chain_plausible(next) ? next : zf_chain_refuse(next);
}

/* Binds `ext` to each structure of the input chain starting at `head` (const ze_base_desc_t *), at most
 * ZF_MAX_CHAIN of them; a pointer that cannot be a structure (zf_chain_plausible) ends the walk with a warning.
 * `break` and `continue` work as in a plain for. */
#define zf_chain_foreach(ext, head)                                                                                    \
    for (unsigned zf_depth_##ext = 0; zf_depth_##ext == 0; zf_depth_##ext = 1)                                         \
        for (const ze_base_desc_t *ext = zf_chain_trusted(head); ext != NULL && zf_depth_##ext < ZF_MAX_CHAIN;         \
             ext = zf_chain_trusted(ext->pNext), zf_depth_##ext++)

/* The same over an output chain: `ext` is a ze_base_properties_t * the driver may fill. */
#define zf_chain_foreach_out(ext, head)                                                                                \
    for (unsigned zf_depth_##ext = 0; zf_depth_##ext == 0; zf_depth_##ext = 1)                                         \
        for (ze_base_properties_t *ext = (ze_base_properties_t *)zf_chain_trusted(head);                               \
             ext != NULL && zf_depth_##ext < ZF_MAX_CHAIN;                                                             \
             ext = (ze_base_properties_t *)zf_chain_trusted(ext->pNext), zf_depth_##ext++)

/* True when the chain starting at `head` has more than ZF_MAX_CHAIN structures (a cycle?). */
bool zf_chain_too_long(const void *head);

/* ZE_RESULT_SUCCESS, or ZE_RESULT_ERROR_INVALID_ARGUMENT with the diagnostic "<arg>->pNext chain is longer than N
 * structures (a cycle?)" when zf_chain_too_long. `arg` names the structure whose pNext starts the chain. */
ze_result_t zf_chain_check(const void *head, const char *arg);

/* The first structure of type `stype` among the first ZF_MAX_CHAIN of the chain, or NULL. */
const ze_base_desc_t *zf_chain_find(const void *head, uint32_t stype);
ze_base_properties_t *zf_chain_find_out(void *head, uint32_t stype);

/* The chain of the output structure `out` (the argument named `arg`) when out->stype is one of `expected[0..n)`.
 * Otherwise NULL, a tolerated violation (zf_tolerate_detail: counted, warned the first time per API function, at
 * debug level after): the caller fills the base fields only, keeping stype and pNext. Use the
 * zf_out_chain macro, which names the expected types in the message. */
void *zf_out_chain_of(void *out, const char *arg, const char *expected_names, const uint32_t *expected, size_t n);

#define zf_out_chain(out, arg, ...)                                                                                    \
    zf_out_chain_of((out), (arg), #__VA_ARGS__, (const uint32_t[]){__VA_ARGS__},                                       \
                    sizeof((const uint32_t[]){__VA_ARGS__}) / sizeof(uint32_t))

/* For getters that fill no extension structure: the same check and warning, for the same answer to a caller whatever
 * the getter. */
#define zf_out_check(out, arg, ...) ((void)zf_out_chain((out), (arg), __VA_ARGS__))

/* Exports of an allocation or image asked for by ze_external_memory_export_fd_t structures in an output chain, all or
 * none: `export` fills one request's fd from `source`; when one fails, the descriptors already exported are closed
 * (and their fd fields set back to -1) before its result is returned. Check the chain's length first
 * (zf_chain_check): a cycle would export once per visit. */
typedef ze_result_t (*zf_export_fd_fn)(ze_external_memory_export_fd_t *request, const void *source);
ze_result_t zf_chain_export_fds(void *chain, zf_export_fd_fn export_fd, const void *source);

#endif
