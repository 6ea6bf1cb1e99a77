/* Memory accesses of kernels. Every load, store, atomic and copy goes through zf_mem: the address must lie in a
 * region this thread already knows (its private and local memory, built-in values, module globals, allocations it
 * met before), else the driver is asked (env->lookup):
 *   - inside a USM allocation of the launch's context: the allocation is held until the launch ends and cached;
 *   - overrunning an allocation, in the unused tail of its mapping, or in freed memory: a fault;
 *   - in mapped virtual memory: allowed as its access attribute says (stores to read-only mappings fault), and in
 *     unmapped virtual memory a fault;
 *   - outside every allocation: ordinary host memory (as the built-in kernels accept it), allowed where the process's
 *     mappings say it is readable (and writable for stores); an allocation of another context or an unmapped
 *     address (NULL...) is a fault.
 * A fault stops the lane's work-item (it never touches the memory) and is reported with the kernel, the work-item
 * and the address (zf_fault). */
#include "spirv_run.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/uio.h>
#include <unistd.h>

bool zf_region_add(zf_ctx *ctx, const void *base, size_t size, zf_region_kind kind, void *hold, uintptr_t guard) {
    if (ctx->num_regions == ctx->cap_regions) {
        uint32_t cap = ctx->cap_regions ? ctx->cap_regions * 2 : 16;
        zf_region *regions = realloc(ctx->regions, cap * sizeof *regions);
        if (regions == NULL)
            return false;
        ctx->regions = regions;
        ctx->cap_regions = cap;
    }
    uintptr_t lo = (uintptr_t)base;
    ctx->regions[ctx->num_regions++] =
        (zf_region){lo, lo + size, guard > lo + size ? guard : lo + size, hold, (uint8_t)kind, 1};
    return true;
}

void zf_regions_reset(zf_ctx *ctx) {
    for (uint32_t i = 0; i < ctx->num_regions; i++)
        if (ctx->regions[i].hold != NULL && ctx->env->release != NULL)
            ctx->env->release(ctx->env->user, ctx->regions[i].hold);
    ctx->num_regions = ctx->last_region = 0;
    free(ctx->maps); /* the process's mappings change between launches */
    ctx->maps = NULL;
    ctx->maps_read = false;
}

void zf_regions_release(zf_ctx *ctx) {
    zf_regions_reset(ctx);
    free(ctx->regions);
    ctx->regions = NULL;
    ctx->cap_regions = 0;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Faults */

/* A fault is a slow path (a look-up of the host's mappings, at least a branch out of the block): each looks at the
 * clock, and past the hang limit the next block looks at the deadline, so a launch whose every work-item faults at
 * once is stopped as soon as one whose work-items run many blocks (docs/spirv-execution.md, "Hangs"). */
static void zf_fault_timed(zf_ctx *ctx) {
    if (ctx->deadline_ns != 0 && ctx->hang_countdown > 1 && zf_spirv_now_ns() >= ctx->deadline_ns)
        ctx->hang_countdown = 1;
}

void zf_fault(zf_x *x, uint32_t lane, const char *format, ...) {
    zf_ctx *ctx = x->ctx;
    if (ctx->dead[lane])
        return;
    ctx->dead[lane] = 1;
    x->killed = true;
    zf_fault_timed(ctx);
    if (ctx->faults++ > 0)
        return;
    char what[192];
    va_list args;
    va_start(args, format);
    vsnprintf(what, sizeof what, format, args);
    va_end(args);
    uint64_t global[3], group[3], local[3];
    zf_lane_ids(ctx, lane, global, group, local);
    snprintf(ctx->first_fault, sizeof ctx->first_fault,
             "kernel '%s': work-item (%" PRIu64 ", %" PRIu64 ", %" PRIu64 ") of group (%" PRIu64 ", %" PRIu64
             ", %" PRIu64 "): %s",
             ctx->launch->name != NULL ? ctx->launch->name : "?", global[0], global[1], global[2], group[0], group[1],
             group[2], what);
}

/* ------------------------------------------------------------------------------------------------------------------
 * Host mappings */

char *zf_host_maps_read(void) {
    int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    size_t cap = 1 << 16, len = 0;
    char *text = malloc(cap);
    while (text != NULL) {
        if (len + 4096 + 1 > cap) {
            char *bigger = realloc(text, cap * 2);
            if (bigger == NULL) {
                free(text);
                text = NULL;
                break;
            }
            text = bigger;
            cap *= 2;
        }
        ssize_t got = read(fd, text + len, cap - len - 1);
        if (got <= 0)
            break;
        len += (size_t)got;
    }
    close(fd);
    if (text != NULL)
        text[len] = '\0';
    return text;
}

bool zf_host_maps_find(const char *maps, uintptr_t addr, zf_host_mapping *out) {
    for (const char *line = maps; line != NULL && *line != '\0';) {
        unsigned long lo, hi;
        char perms[5] = "";
        int used = 0;
        if (sscanf(line, "%lx-%lx %4s %*s %*s %*s%n", &lo, &hi, perms, &used) >= 3 && addr >= lo && addr < hi) {
            const char *path = line + used;
            while (*path == ' ')
                path++;
            out->lo = lo;
            out->hi = hi;
            out->readable = perms[0] == 'r';
            out->writable = perms[1] == 'w';
            out->usm = strncmp(path, "/memfd:zefake-usm", 17) == 0; /* docs/memory.md: every allocation is one */
            return true;
        }
        line = strchr(line, '\n');
        line = line != NULL ? line + 1 : NULL;
    }
    return false;
}

/* Walks the mappings of [addr, addr + size), which may be several that follow each other. */
static const char *zf_host_range_verdict(const char *maps, uintptr_t addr, size_t size, bool write) {
    uintptr_t end = addr + size < addr ? UINTPTR_MAX : addr + size;
    for (uintptr_t at = addr; at < end;) {
        zf_host_mapping m;
        if (!zf_host_maps_find(maps, at, &m))
            return "not mapped";
        if (!m.readable || (write && !m.writable))
            return write ? "mapped without write access" : "mapped without read access";
        at = m.hi;
    }
    return NULL;
}

/* The probe: one byte of every page of the range read by the kernel for the process itself (process_vm_readv), and
 * for a write written back (process_vm_writev), in batches of ZF_PROBE_PAGES pages per system call. A page the
 * process may not access fails the call with EFAULT instead of raising a signal: this costs a system call per batch
 * where reading /proc/self/maps costs tens of microseconds with a few hundred mappings. */
#define ZF_PROBE_PAGES 64u

typedef enum zf_probe_verdict { ZF_PROBE_OK, ZF_PROBE_FAULT, ZF_PROBE_UNAVAILABLE } zf_probe_verdict;

static zf_probe_verdict zf_probe_batch(struct iovec *remote, unsigned n, uint8_t *bytes, bool write) {
    struct iovec local = {bytes, n};
    ssize_t got = process_vm_readv(getpid(), &local, 1, remote, n, 0);
    if (got < 0 && (errno == ENOSYS || errno == EPERM))
        return ZF_PROBE_UNAVAILABLE; /* a sandbox forbids it (seccomp): the mappings decide */
    if (got != (ssize_t)n)
        return ZF_PROBE_FAULT;
    if (write && process_vm_writev(getpid(), &local, 1, remote, n, 0) != (ssize_t)n)
        return ZF_PROBE_FAULT; /* the same bytes written back: the command overwrites them anyway */
    return ZF_PROBE_OK;
}

static zf_probe_verdict zf_probe_range(uintptr_t addr, size_t size, bool write) {
    static _Atomic bool unavailable;
    if (atomic_load_explicit(&unavailable, memory_order_relaxed))
        return ZF_PROBE_UNAVAILABLE;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), last = addr + (size - 1);
    if (last < addr)
        return ZF_PROBE_FAULT; /* the range wraps around the address space */
    struct iovec remote[ZF_PROBE_PAGES];
    uint8_t bytes[ZF_PROBE_PAGES];
    unsigned n = 0;
    for (uintptr_t at = addr;; at = (at & ~(page - 1)) + page) {
        remote[n++] = (struct iovec){(void *)at, 1};
        bool done = (at & ~(page - 1)) == (last & ~(page - 1));
        if (n == ZF_PROBE_PAGES || done) {
            zf_probe_verdict verdict = zf_probe_batch(remote, n, bytes, write);
            if (verdict == ZF_PROBE_UNAVAILABLE)
                atomic_store_explicit(&unavailable, true, memory_order_relaxed);
            if (verdict != ZF_PROBE_OK || done)
                return verdict;
            n = 0;
        }
    }
}

const char *zf_host_range_unusable(const void *ptr, size_t size, bool write) {
    if (size == 0)
        return NULL;
    zf_probe_verdict probe = zf_probe_range((uintptr_t)ptr, size, write);
    if (probe == ZF_PROBE_OK)
        return NULL;
    const char *fault = write ? "not writable by the process" : "not readable by the process";
    char *maps = zf_host_maps_read(); /* to say why, or to decide without the probe */
    if (maps == NULL)
        return probe == ZF_PROBE_FAULT ? fault : NULL; /* neither can tell: access as before */
    const char *verdict = zf_host_range_verdict(maps, (uintptr_t)ptr, size, write);
    free(maps);
    return verdict == NULL && probe == ZF_PROBE_FAULT ? fault : verdict;
}

static uint8_t *zf_host_access(zf_x *x, uint32_t lane, uint64_t addr, uint32_t size, bool write) {
    zf_ctx *ctx = x->ctx;
    if (!ctx->maps_read) {
        ctx->maps = zf_host_maps_read();
        ctx->maps_read = true;
    }
    zf_host_mapping m;
    if (!zf_host_maps_find(ctx->maps, (uintptr_t)addr, &m)) {
        zf_fault(x, lane, "%s of %u bytes at 0x%" PRIx64 ": the address is not mapped", write ? "store" : "load", size,
                 addr);
        return NULL;
    }
    if (m.usm) {
        zf_fault(x, lane, "%s of %u bytes at 0x%" PRIx64 ": outside every allocation of the kernel's context",
                 write ? "store" : "load", size, addr);
        return NULL;
    }
    if (!ctx->env->system_memory) {
        zf_fault(x, lane,
                 "%s of %u bytes at 0x%" PRIx64 ": not in an allocation of the kernel's context, and the device has "
                 "no access to other host memory (sharedSystemAllocCapabilities is 0)",
                 write ? "store" : "load", size, addr);
        return NULL;
    }
    if (!m.readable || (write && !m.writable) || addr + size > m.hi) {
        zf_fault(x, lane, "%s of %u bytes at 0x%" PRIx64 ": host memory that is not %s", write ? "store" : "load", size,
                 addr, write ? "writable" : "readable");
        return NULL;
    }
    if (zf_region_add(ctx, (const void *)m.lo, m.hi - m.lo, ZF_REGION_HOST, NULL, 0)) {
        ctx->regions[ctx->num_regions - 1].writable = m.writable;
        ctx->last_region = ctx->num_regions - 1;
    }
    return (uint8_t *)(uintptr_t)addr;
}

/* ------------------------------------------------------------------------------------------------------------------
 * The slow path */

/* An access past the end of allocation `r` inside its padding, performed when the driver tolerates it: the driver
 * hears of the first of this thread's launch. */
static bool zf_padding_access(zf_x *x, uint32_t lane, const zf_region *r, uint64_t addr, uint32_t size, bool write) {
    zf_ctx *ctx = x->ctx;
    if (ctx->env->padding == NULL || addr < r->lo || addr + size > r->guard || (write && !r->writable))
        return false;
    if (!ctx->padding_told) {
        ctx->padding_told = true;
        uint64_t global[3], group[3], local[3];
        zf_lane_ids(ctx, lane, global, group, local);
        char text[ZF_FAULT_TEXT_MAX];
        snprintf(text, sizeof text,
                 "kernel '%s': work-item (%" PRIu64 ", %" PRIu64 ", %" PRIu64 ") %s %u bytes at offset %" PRIu64
                 " of allocation [0x%" PRIxPTR ", +%zu), reaching %" PRIu64 " bytes past its end, into its padding",
                 ctx->launch->name != NULL ? ctx->launch->name : "?", global[0], global[1], global[2],
                 write ? "stores" : "loads", size, addr - r->lo, r->lo, (size_t)(r->hi - r->lo), addr + size - r->hi);
        ctx->env->padding(ctx->env->user, text);
    }
    return true;
}

static uint8_t *zf_region_verdict(zf_x *x, uint32_t lane, const zf_region *r, uint64_t addr, uint32_t size,
                                  bool write) {
    if (zf_padding_access(x, lane, r, addr, size, write))
        return (uint8_t *)(uintptr_t)addr;
    const char *what = write ? "store" : "load";
    if (addr < r->lo) {
        zf_fault(x, lane,
                 "out-of-bounds %s of %u bytes at 0x%" PRIx64 ": starts %" PRIu64
                 " bytes before allocation [0x%" PRIxPTR ", +%zu)",
                 what, size, addr, (uint64_t)(r->lo - addr), r->lo, (size_t)(r->hi - r->lo));
        return NULL;
    }
    if (addr < r->hi && addr + size > r->hi) {
        zf_fault(x, lane,
                 "out-of-bounds %s of %u bytes at 0x%" PRIx64 ": runs past the end of allocation [0x%" PRIxPTR
                 ", +%zu)",
                 what, size, addr, r->lo, (size_t)(r->hi - r->lo));
        return NULL;
    }
    zf_fault(x, lane,
             "out-of-bounds %s of %u bytes at 0x%" PRIx64 ": %" PRIu64 " bytes past the end of allocation [0x%" PRIxPTR
             ", +%zu)",
             what, size, addr, addr - r->hi, r->lo, (size_t)(r->hi - r->lo));
    return NULL;
}

/* Mapped virtual memory: cached as a region of its access, so that later stores to read-only pages fault too. */
static uint8_t *zf_mapped_access(zf_x *x, uint32_t lane, uint64_t addr, uint32_t size, bool write,
                                 const zf_mem_info *info) {
    zf_ctx *ctx = x->ctx;
    if (write && info->read_only) {
        zf_fault(x, lane, "store of %u bytes at 0x%" PRIx64 ": virtual memory mapped read-only", size, addr);
        return NULL;
    }
    if (zf_region_add(ctx, (const void *)info->base, info->size, ZF_REGION_HOST, NULL, 0)) {
        ctx->regions[ctx->num_regions - 1].writable = !info->read_only;
        ctx->last_region = ctx->num_regions - 1;
    }
    return (uint8_t *)(uintptr_t)addr;
}

static uint8_t *zf_ask_driver(zf_x *x, uint32_t lane, uint64_t addr, uint32_t size, bool write) {
    zf_ctx *ctx = x->ctx;
    const char *what = write ? "store" : "load";
    zf_mem_info info = {0};
    zf_mem_kind kind =
        ctx->env->lookup != NULL ? ctx->env->lookup(ctx->env->user, (uintptr_t)addr, size, &info) : ZF_MEM_UNKNOWN;
    switch (kind) {
    case ZF_MEM_INSIDE:
        if (!zf_region_add(ctx, (const void *)info.base, info.size, ZF_REGION_ALLOCATION, info.hold, info.guard_end)) {
            if (ctx->env->release != NULL)
                ctx->env->release(ctx->env->user, info.hold);
            zf_fault(x, lane, "out of host memory to track an allocation");
            return NULL;
        }
        ctx->last_region = ctx->num_regions - 1;
        if (addr < info.base || addr + size > info.base + info.size) /* into its padding */
            return zf_region_verdict(x, lane, &ctx->regions[ctx->last_region], addr, size, write);
        return (uint8_t *)(uintptr_t)addr;
    case ZF_MEM_OVERRUN:
        zf_fault(x, lane, "out-of-bounds %s of %u bytes at 0x%" PRIx64 ": it overruns an allocation", what, size, addr);
        return NULL;
    case ZF_MEM_FREED:
        zf_fault(x, lane, "%s of %u bytes at 0x%" PRIx64 ": the memory was freed", what, size, addr);
        return NULL;
    case ZF_MEM_MAPPED:
        return zf_mapped_access(x, lane, addr, size, write, &info);
    case ZF_MEM_UNMAPPED:
        zf_fault(x, lane, "%s of %u bytes at 0x%" PRIx64 ": virtual memory that is not mapped with access", what, size,
                 addr);
        return NULL;
    default:
        return zf_host_access(x, lane, addr, size, write);
    }
}

uint8_t *zf_mem_slow(zf_x *x, uint32_t lane, uint64_t addr, uint32_t size, bool write) {
    zf_ctx *ctx = x->ctx;
    if (addr + size < addr) {
        zf_fault(x, lane, "%s of %u bytes at 0x%" PRIx64 " wraps around the address space", write ? "store" : "load",
                 size, addr);
        return NULL;
    }
    for (uint32_t i = 0; i < ctx->num_regions; i++) {
        const zf_region *r = &ctx->regions[i];
        if (addr >= r->lo && addr + size <= r->hi) {
            if (write && !r->writable) {
                zf_fault(x, lane, "store of %u bytes at 0x%" PRIx64 ": read-only memory", size, addr);
                return NULL;
            }
            ctx->last_region = i;
            return (uint8_t *)(uintptr_t)addr;
        }
        if (r->kind == ZF_REGION_ALLOCATION && addr < r->guard && addr + size > r->lo)
            return zf_region_verdict(x, lane, r, addr, size, write);
    }
    return zf_ask_driver(x, lane, addr, size, write);
}

uint32_t zf_mem_storage_of(const zf_ctx *ctx, uint64_t addr) {
    if (ctx->local != NULL && addr >= (uintptr_t)ctx->local &&
        addr < (uintptr_t)ctx->local + ctx->local_stride * ctx->groups_per_wave)
        return 4;
    return addr >> 62 == 1 ? 7 : 5;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Private memory */

/* How a private slot is named in a fault. */
static void zf_slot_text(const zf_pslot *s, char *text, size_t size) {
    if (s->id == 0)
        snprintf(text, size, "the private copy of by-value argument %u (%u bytes)", s->arg, s->size);
    else if (s->name != NULL && s->name[0] != '\0')
        snprintf(text, size, "private variable '%s' (%%%u, %u bytes)", s->name, s->id, s->size);
    else
        snprintf(text, size, "private variable %%%u (%u bytes)", s->id, s->size);
}

/* The slot an out-of-bounds private address of `lane` most likely meant: the address's own slot, or the next one
 * when an access before a lane's copy borrowed from the slot bits. *offset receives the access's signed offset in the
 * lane's copy. */
static const zf_pslot *zf_private_target(const zf_ctx *ctx, uint32_t lane, uint64_t addr, int64_t *offset) {
    uint32_t first = zf_private_slot(addr);
    for (uint32_t k = 0; k < 2; k++) {
        uint32_t s = first + k; /* wraps to slot 0 after the field 0 */
        if (s >= ctx->slots.count)
            continue;
        int64_t rel = (int64_t)(addr - zf_private_address(s, lane));
        if (rel > -(1ll << 27) && rel < (1ll << 27)) {
            *offset = rel;
            return ZF_SPIRV_AT(ctx->slots, zf_pslot, s);
        }
    }
    return NULL;
}

uint8_t *zf_private_refused(zf_x *x, uint32_t lane, uint64_t addr, uint32_t size, bool write) {
    if (addr >> 62 != 1)
        return zf_mem_slow(x, lane, addr, size, write);
    const char *what = write ? "store" : "load";
    int64_t offset = 0;
    const zf_pslot *s = zf_private_target(x->ctx, lane, addr, &offset);
    if (s == NULL) {
        zf_fault(x, lane,
                 "%s of %u bytes at 0x%" PRIx64 ": a private address of another work-item or of a function that has "
                 "returned",
                 what, size, addr);
        return NULL;
    }
    char name[160];
    zf_slot_text(s, name, sizeof name);
    zf_fault(x, lane, "out-of-bounds %s of %u bytes at offset %" PRId64 " of %s", what, size, offset, name);
    return NULL;
}
