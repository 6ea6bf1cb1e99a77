/* Handlers that involve more than one lane or the world outside the kernel: printf (to stdout, one line at a time
 * per work-item, in lane order within a wave), ITT annotations (delivered to the driver's callback), work-group and
 * sub-group collectives, sub-group shuffles and block reads and writes, barriers and fences. */
#include "spirv_num.h"
#include "spirv_run.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#define ZF_PRINTF_MAX 4096u

/* ------------------------------------------------------------------------------------------------------------------
 * printf */

typedef struct zf_line {
    char text[ZF_PRINTF_MAX];
    size_t length;
    bool truncated;
} zf_line;

static void __attribute__((format(printf, 2, 3))) zf_line_printf(zf_line *line, const char *format, ...) {
    if (line->length + 1 >= sizeof line->text) {
        line->truncated = true;
        return;
    }
    va_list args;
    va_start(args, format);
    int n = vsnprintf(line->text + line->length, sizeof line->text - line->length, format, args);
    va_end(args);
    if (n < 0)
        return;
    line->length += (size_t)n;
    if (line->length >= sizeof line->text) {
        line->length = sizeof line->text - 1;
        line->truncated = true;
    }
}

/* A NUL-terminated string in kernel-visible memory: the region holding its first byte bounds the search. */
static const char *zf_kernel_string(zf_x *x, uint32_t lane, uint64_t addr, size_t *length) {
    const uint8_t *p = zf_mem(x, lane, addr, 1, false);
    if (p == NULL)
        return NULL;
    const zf_region *r = &x->ctx->regions[x->ctx->last_region];
    size_t room = (uintptr_t)p >= r->lo && (uintptr_t)p < r->hi ? r->hi - (uintptr_t)p : 1;
    if (addr & ZF_PRIVATE_TAG) /* zf_mem checked the slot: the rest of the variable bounds the string */
        room = ZF_SPIRV_AT(x->ctx->slots, zf_pslot, zf_private_slot(addr))->size - zf_private_offset(addr);
    if (room > ZF_PRINTF_MAX)
        room = ZF_PRINTF_MAX;
    const uint8_t *end = memchr(p, 0, room);
    if (end == NULL) {
        zf_fault(x, lane, "printf: the string at 0x%" PRIx64 " has no end within %zu bytes", addr, room);
        return NULL;
    }
    *length = (size_t)(end - p);
    return (const char *)p;
}

typedef struct zf_spec {
    char flags[8];
    int width, precision; /* -1 when absent */
    uint32_t vector;      /* components, 0 for scalars */
    uint32_t length_bits; /* 8 hh, 16 h, 32 none or hl, 64 l */
    char conversion;
} zf_spec;

/* Parses one conversion after '%'; returns the characters consumed, 0 when malformed. */
static size_t zf_parse_spec(const char *s, zf_spec *spec) {
    size_t i = 0, f = 0;
    memset(spec, 0, sizeof *spec);
    spec->width = spec->precision = -1;
    spec->length_bits = 32;
    while (s[i] != '\0' && strchr("-+ #0", s[i]) != NULL && f < sizeof spec->flags - 1)
        spec->flags[f++] = s[i++];
    for (; s[i] >= '0' && s[i] <= '9'; i++)
        spec->width = (spec->width < 0 ? 0 : spec->width) * 10 + (s[i] - '0') % 1000;
    if (s[i] == '.') {
        spec->precision = 0;
        for (i++; s[i] >= '0' && s[i] <= '9'; i++)
            spec->precision = spec->precision * 10 + (s[i] - '0') % 1000;
    }
    if (s[i] == 'v') {
        for (i++; s[i] >= '0' && s[i] <= '9'; i++)
            spec->vector = spec->vector * 10 + (uint32_t)(s[i] - '0');
        if (spec->vector != 2 && spec->vector != 3 && spec->vector != 4 && spec->vector != 8 && spec->vector != 16)
            return 0;
    }
    if (s[i] == 'h' && s[i + 1] == 'h') {
        spec->length_bits = 8;
        i += 2;
    } else if (s[i] == 'h' && s[i + 1] == 'l') {
        spec->length_bits = 32;
        i += 2;
    } else if (s[i] == 'h') {
        spec->length_bits = 16;
        i++;
    } else if (s[i] == 'l') {
        spec->length_bits = 64;
        i++;
    }
    if (s[i] == '\0' || strchr("diouxXfFeEgGaAcsp", s[i]) == NULL)
        return 0;
    spec->conversion = s[i];
    return i + 1;
}

/* The host format for one element: flags, width and precision kept, the value passed as long long or double. */
static void zf_host_format(const zf_spec *spec, const char *length, char *out, size_t size) {
    char width[16] = "", precision[16] = "";
    if (spec->width >= 0)
        snprintf(width, sizeof width, "%d", spec->width);
    if (spec->precision >= 0)
        snprintf(precision, sizeof precision, ".%d", spec->precision);
    snprintf(out, size, "%%%s%s%s%s%c", spec->flags, width, precision, length, spec->conversion);
}

static void zf_print_element(zf_line *line, const zf_spec *spec, const uint8_t *base, uint32_t t, size_t i) {
    char format[64];
    char c = spec->conversion;
    if (strchr("fFeEgGaA", c) != NULL) {
        double v = zf_etype_is_float(t) ? zf_get_f(base, t, i) : (double)zf_get_s(base, t, i);
        zf_host_format(spec, "", format, sizeof format);
        zf_line_printf(line, format, v);
        return;
    }
    uint64_t raw = zf_etype_is_float(t) ? (uint64_t)(int64_t)zf_get_f(base, t, i) : zf_get_u(base, t, i);
    int64_t sv = zf_etype_is_float(t) ? (int64_t)raw : zf_get_s(base, t, i);
    uint32_t bits = spec->length_bits;
    uint64_t mask = bits == 64 ? UINT64_MAX : (1ull << bits) - 1;
    if (c == 'd' || c == 'i') {
        int64_t v = bits == 8 ? (int8_t)sv : bits == 16 ? (int16_t)sv : bits == 32 ? (int32_t)sv : sv;
        zf_host_format(spec, "ll", format, sizeof format);
        zf_line_printf(line, format, (long long)v);
    } else if (c == 'c') {
        zf_host_format(spec, "", format, sizeof format);
        zf_line_printf(line, format, (int)(unsigned char)raw);
    } else if (c == 'p') {
        zf_line_printf(line, "0x%" PRIx64, raw);
    } else {
        zf_host_format(spec, "ll", format, sizeof format);
        zf_line_printf(line, format, (unsigned long long)(raw & mask));
    }
}

/* Formats one work-item's printf into `line`; false when the format and arguments do not agree. */
static bool zf_format(zf_x *x, uint32_t lane, const char *fmt, const uint32_t *args, uint32_t nargs, zf_line *line) {
    uint32_t next = 0;
    for (size_t i = 0; fmt[i] != '\0' && !line->truncated;) {
        if (fmt[i] != '%') {
            const char *pct = strchr(fmt + i, '%');
            size_t run = pct != NULL ? (size_t)(pct - (fmt + i)) : strlen(fmt + i);
            zf_line_printf(line, "%.*s", (int)run, fmt + i);
            i += run;
            continue;
        }
        if (fmt[i + 1] == '%') {
            zf_line_printf(line, "%%");
            i += 2;
            continue;
        }
        zf_spec spec;
        size_t used = zf_parse_spec(fmt + i + 1, &spec);
        if (used == 0 || next >= nargs)
            return false;
        i += 1 + used;
        const uint32_t *arg = args + 4 * next++;
        const uint8_t *base = zf_reg(x, arg[0]);
        uint32_t t = arg[1], comps = arg[2], slot = zf_slot(comps);
        if (spec.conversion == 's') {
            uint64_t addr = zf_get_u(base, ZF_T_I64, lane);
            size_t length;
            const char *text = zf_kernel_string(x, lane, addr, &length);
            if (text == NULL)
                return false;
            char format[64];
            zf_host_format(&spec, "", format, sizeof format);
            zf_line_printf(line, format, text);
            continue;
        }
        uint32_t n = spec.vector ? spec.vector : 1;
        for (uint32_t c = 0; c < n && c < comps; c++) {
            if (c > 0)
                zf_line_printf(line, ",");
            zf_print_element(line, &spec, base, t, (size_t)lane * slot + c);
        }
    }
    return true;
}

void zf_h_printf(zf_x *x, const zf_dinst *in) {
    const uint32_t *aux = x->code->aux + in->aux;
    const uint64_t *fmt = (const uint64_t *)zf_reg(x, aux[0]);
    int32_t *d = (int32_t *)zf_reg(x, in->dst);
    zf_line *line = malloc(sizeof *line);
    if (line == NULL) {
        ZF_LANES(x, d[l] = -1);
        return;
    }
    ZF_LANES(x, {
        size_t length;
        const char *format = zf_kernel_string(x, l, fmt[l], &length);
        d[l] = -1;
        if (format == NULL)
            continue;
        line->length = 0;
        line->truncated = false;
        bool ok = zf_format(x, l, format, aux + 2, aux[1], line);
        zf_output(x->ctx, line->text, line->length);
        d[l] = ok ? 0 : -1;
    });
    free(line);
}

/* ------------------------------------------------------------------------------------------------------------------
 * ITT annotations */

void zf_h_itt(zf_x *x, const zf_dinst *in) {
    zf_ctx *ctx = x->ctx;
    const zf_xlaunch *launch = ctx->launch;
    const uint64_t *object = in->a != ZF_REF_NONE ? (const uint64_t *)zf_reg(x, in->a) : NULL;
    const uint32_t *op = in->b != ZF_REF_NONE ? (const uint32_t *)zf_reg(x, in->b) : NULL;
    const uint32_t *order = in->c != ZF_REF_NONE ? (const uint32_t *)zf_reg(x, in->c) : NULL;
    uint64_t gsize[3];
    for (int d = 0; d < 3; d++)
        gsize[d] = (uint64_t)launch->groups[d] * launch->group_size[d];
    ctx->annotations[in->aux] += x->n;
    if (ctx->env->annotate == NULL)
        return;
    ZF_LANES(x, {
        zf_xannotation a = {.kind = in->aux, .kernel = launch->name, .group_size = ctx->group_items};
        uint64_t global[3];
        zf_lane_ids(ctx, l, global, a.group_id, a.local_id);
        a.work_item = (global[2] - launch->offset[2]) * gsize[1] * gsize[0] +
                      (global[1] - launch->offset[1]) * gsize[0] + (global[0] - launch->offset[0]);
        a.object = object != NULL ? object[l] : 0;
        a.op_type = op != NULL ? op[l] : 0;
        a.mem_order = order != NULL ? order[l] : 0;
        ctx->env->annotate(ctx->env->user, &a);
    });
}

/* ------------------------------------------------------------------------------------------------------------------
 * Collectives. The lanes of a work-group are contiguous in a wave (and those of a sub-group within it), and lanes
 * come in local-id order, so scans run in work-item order. */

static uint64_t zf_group_key(const zf_ctx *ctx, uint32_t lane, bool subgroup) {
    uint32_t g = lane / ctx->group_items, r = lane % ctx->group_items;
    return subgroup ? (uint64_t)g << 32 | r / ctx->subgroup_size : g;
}

typedef struct zf_acc {
    bool is_float;
    double f;
    uint64_t u;
    int64_t s;
} zf_acc;

static void zf_acc_identity(zf_acc *acc, uint32_t kind, uint32_t t) {
    uint32_t bits = 8 * zf_etype_size(t);
    acc->is_float = zf_etype_is_float(t);
    acc->f = kind == ZF_GRP_FMIN ? INFINITY : kind == ZF_GRP_FMAX ? -INFINITY : 0;
    acc->u = kind == ZF_GRP_UMIN ? (bits == 64 ? UINT64_MAX : (1ull << bits) - 1) : 0;
    acc->s = kind == ZF_GRP_SMIN   ? (bits == 64 ? INT64_MAX : (int64_t)((1ull << (bits - 1)) - 1))
             : kind == ZF_GRP_SMAX ? (bits == 64 ? INT64_MIN : -(int64_t)(1ull << (bits - 1)))
                                   : 0;
}

static void zf_acc_add(zf_acc *acc, uint32_t kind, const uint8_t *v, uint32_t t, uint32_t lane) {
    switch (kind) {
    case ZF_GRP_IADD:
        acc->u += zf_get_u(v, t, lane);
        break;
    case ZF_GRP_FADD:
        acc->f = t == ZF_T_F64 ? acc->f + zf_get_f(v, t, lane) : (double)((float)acc->f + (float)zf_get_f(v, t, lane));
        break;
    case ZF_GRP_FMIN:
        acc->f = fmin(acc->f, zf_get_f(v, t, lane));
        break;
    case ZF_GRP_FMAX:
        acc->f = fmax(acc->f, zf_get_f(v, t, lane));
        break;
    case ZF_GRP_UMIN: {
        uint64_t u = zf_get_u(v, t, lane);
        acc->u = u < acc->u ? u : acc->u;
        break;
    }
    case ZF_GRP_UMAX: {
        uint64_t u = zf_get_u(v, t, lane);
        acc->u = u > acc->u ? u : acc->u;
        break;
    }
    case ZF_GRP_SMIN: {
        int64_t s = zf_get_s(v, t, lane);
        acc->s = s < acc->s ? s : acc->s;
        break;
    }
    default: {
        int64_t s = zf_get_s(v, t, lane);
        acc->s = s > acc->s ? s : acc->s;
        break;
    }
    }
}

static void zf_acc_put(const zf_acc *acc, uint32_t kind, uint8_t *d, uint32_t t, uint32_t lane) {
    if (acc->is_float)
        zf_put_f(d, t, lane, acc->f);
    else
        zf_put_u(d, t, lane, kind == ZF_GRP_SMIN || kind == ZF_GRP_SMAX ? (uint64_t)acc->s : acc->u);
}

/* The lane of a group or sub-group whose local id equals the broadcast's id operand. */
static uint32_t zf_broadcast_source(const zf_x *x, const zf_dinst *in, uint32_t first, uint32_t lane, bool subgroup) {
    const zf_xlaunch *launch = x->ctx->launch;
    uint32_t comps = (in->aux >> 16) & 0xFu, e = (in->aux >> 20) & 1u ? 8 : 4;
    const uint8_t *ids = zf_reg(x, in->b);
    uint64_t id[3] = {0, 0, 0};
    size_t stride = in->asize;
    for (uint32_t c = 0; c < comps && c < 3; c++) {
        id[c] = 0;
        memcpy(&id[c], ids + lane * stride + c * e, e);
    }
    uint64_t linear =
        subgroup ? id[0]
                 : id[2] * launch->group_size[1] * launch->group_size[0] + id[1] * launch->group_size[0] + id[0];
    return linear < x->ctx->group_items ? first + (uint32_t)linear : UINT32_MAX;
}

static void zf_group_run(zf_x *x, const zf_dinst *in, uint32_t from, uint32_t to, bool subgroup) {
    uint32_t kind = in->aux & 0xFFu, operation = (in->aux >> 12) & 0xFu, t = in->type;
    uint8_t *d = zf_reg(x, in->dst);
    const uint8_t *v = zf_reg(x, in->a);
    if (kind == ZF_GRP_ALL || kind == ZF_GRP_ANY) {
        bool r = kind == ZF_GRP_ALL;
        for (uint32_t k = from; k < to; k++)
            r = kind == ZF_GRP_ALL ? r && v[x->lanes[k]] : r || v[x->lanes[k]];
        for (uint32_t k = from; k < to; k++)
            d[x->lanes[k]] = r;
        return;
    }
    if (kind == ZF_GRP_BCAST) {
        uint32_t lane = x->lanes[from], items = x->ctx->group_items, size = zf_etype_size(t);
        uint32_t first = subgroup ? lane - (lane % items) % x->ctx->subgroup_size : lane - lane % items;
        uint32_t src = zf_broadcast_source(x, in, first, lane, subgroup);
        for (uint32_t k = from; k < to; k++) {
            if (src < x->L)
                memcpy(d + (size_t)x->lanes[k] * size, v + (size_t)src * size, size);
            else
                memset(d + (size_t)x->lanes[k] * size, 0, size);
        }
        return;
    }
    zf_acc acc;
    zf_acc_identity(&acc, kind, t);
    if (operation == SpvGroupOperationReduce) {
        for (uint32_t k = from; k < to; k++)
            zf_acc_add(&acc, kind, v, t, x->lanes[k]);
        for (uint32_t k = from; k < to; k++)
            zf_acc_put(&acc, kind, d, t, x->lanes[k]);
        return;
    }
    for (uint32_t k = from; k < to; k++) {
        uint32_t l = x->lanes[k];
        if (operation == SpvGroupOperationExclusiveScan)
            zf_acc_put(&acc, kind, d, t, l); /* before this lane's own value: d and v may be the same register */
        zf_acc mine = acc;
        zf_acc_add(&mine, kind, v, t, l);
        if (operation == SpvGroupOperationInclusiveScan)
            zf_acc_put(&mine, kind, d, t, l);
        acc = mine;
    }
}

void zf_h_group(zf_x *x, const zf_dinst *in) {
    bool subgroup = zf_group_scope_is_subgroup(in);
    uint32_t from = 0;
    while (from < x->n) {
        uint64_t key = zf_group_key(x->ctx, x->lanes[from], subgroup);
        uint32_t to = from + 1;
        while (to < x->n && zf_group_key(x->ctx, x->lanes[to], subgroup) == key)
            to++;
        zf_group_run(x, in, from, to, subgroup);
        from = to;
    }
}

/* intel_sub_group_shuffle and its down, up and xor forms. */
void zf_h_sgshuffle(zf_x *x, const zf_dinst *in) {
    const zf_ctx *ctx = x->ctx;
    size_t size = in->size;
    uint8_t *d = zf_reg(x, in->dst), *tmp = malloc(size * x->L);
    const uint8_t *a = zf_reg(x, in->a), *c = in->c != ZF_REF_NONE ? zf_reg(x, in->c) : NULL;
    const uint32_t *idx = (const uint32_t *)zf_reg(x, in->b);
    if (tmp == NULL) {
        ZF_LANES(x, zf_fault(x, l, "out of host memory for a sub-group shuffle"));
        return;
    }
    ZF_LANES(x, {
        uint32_t items = ctx->group_items, r = l % items, sg = r / ctx->subgroup_size;
        uint32_t first = l - r + sg * ctx->subgroup_size, me = r - sg * ctx->subgroup_size;
        uint32_t n =
            items - sg * ctx->subgroup_size < ctx->subgroup_size ? items - sg * ctx->subgroup_size : ctx->subgroup_size;
        int64_t k = in->aux == ZF_SG_SHUFFLE        ? (int64_t)idx[l]
                    : in->aux == ZF_SG_SHUFFLE_XOR  ? (int64_t)(me ^ idx[l])
                    : in->aux == ZF_SG_SHUFFLE_DOWN ? (int64_t)me + idx[l]
                                                    : (int64_t)me - idx[l];
        const uint8_t *src = NULL;
        if (k >= 0 && k < n)
            src = a + (size_t)(first + k) * size;
        else if (c != NULL && k >= n && k < 2 * (int64_t)n)
            src = c + (size_t)(first + k - n) * size;
        else if (c != NULL && k < 0 && k >= -(int64_t)n)
            src = c + (size_t)(first + n + k) * size;
        if (src != NULL)
            memcpy(tmp + l * size, src, size);
        else
            memset(tmp + l * size, 0, size);
    });
    ZF_LANES(x, memcpy(d + l * size, tmp + l * size, size));
    free(tmp);
}

/* intel_sub_group_block_read and _write on memory: the sub-group reads or writes a block of S x n elements at the
 * pointer, S being the (maximum) sub-group size, so that component k of lane i is element i + k * S (the last
 * sub-group of a group may have fewer lanes; the stride stays S). Each lane accesses its own elements through its own
 * pointer (OpenCL requires the same one in every lane), and all of them are checked before any is made: a fault stops
 * the lane without a partial write, as for a store. */
void zf_h_sgblock(zf_x *x, const zf_dinst *in) {
    const zf_ctx *ctx = x->ctx;
    bool write = in->aux == ZF_SGB_WRITE;
    uint32_t e = zf_etype_size(in->type), n = in->comps, sub = ctx->subgroup_size;
    size_t stride = (size_t)e * zf_slot(n);
    const uint64_t *ptr = (const uint64_t *)zf_reg(x, in->a);
    uint8_t *values = zf_reg(x, write ? in->b : in->dst);
    zf_count_access(x, ptr[x->lanes[0]], (uint64_t)e * n, write);
    ZF_LANES(x, {
        uint64_t lane = (l % ctx->group_items) % sub;
        uint8_t *at[8];
        uint32_t k = 0;
        for (; k < n; k++) {
            at[k] = zf_mem(x, l, ptr[l] + (lane + (uint64_t)k * sub) * e, e, write);
            if (at[k] == NULL)
                break;
        }
        for (uint32_t c = 0; k == n && c < n; c++) {
            uint8_t *value = values + (size_t)l * stride + (size_t)c * e;
            memcpy(write ? at[c] : value, write ? value : at[c], e);
        }
    });
}

void zf_h_barrier(zf_x *x, const zf_dinst *in) {
    (void)in; /* the lanes that reach it are all here: the wave runs in lock-step */
    if (x->ctx->lone_call)
        ZF_LANES(x, zf_fault(x, l,
                             "a work-group barrier in a function called through a function pointer from "
                             "compiled code, which runs the call for one work-item (ZEFAKE_EXEC=interp runs it)"));
}

#if defined(__SANITIZE_THREAD__)
/* ThreadSanitizer does not model fences: a sequentially consistent read-modify-write orders the same way for it. */
static unsigned zf_fence_word;
#define ZF_FULL_FENCE() ((void)__atomic_fetch_add(&zf_fence_word, 0u, __ATOMIC_SEQ_CST))
#else
#define ZF_FULL_FENCE() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#endif

void zf_h_fence(zf_x *x, const zf_dinst *in) {
    (void)x;
    (void)in;
    ZF_FULL_FENCE();
}
