/* Block order for execution. The engine runs, at each step, the lowest-numbered block that some lane is waiting at
 * (spirv_run.c); for lanes that split to reconverge before a barrier, every block must come after the blocks that
 * can reach it without going round a loop, and a loop's blocks must all come before the blocks after the loop
 * (otherwise lanes that left a loop early would run on past a barrier while others still iterate). SPIR-V's own
 * block order promises neither: llvm-spirv often places a loop's exit before its body.
 *
 * The order is Kahn's topological sort of the forward edges (back edges, to a dominating header, removed) that
 * prefers, among ready blocks, those inside the innermost loop entered so far, and among those the lowest reverse
 * post-order number. Irreducible cycles (no dominating header) fall back to reverse post-order. */
#include "spirv_decode.h"

#include <stdlib.h>
#include <string.h>

#define ZF_NONE UINT32_MAX
/* Above this many blocks the quadratic parts are skipped: plain reverse post-order still runs every lane correctly,
 * only reconvergence may come later. */
#define ZF_CFG_MAX_SMART 8192u

typedef struct zf_cfg {
    uint32_t n;
    const uint32_t *succ_first, *succ;
    uint32_t *pred_first, *pred;
    uint32_t *rpo;     /* rpo[i] = block at reverse post-order position i */
    uint32_t *rpo_num; /* position of each block, ZF_NONE when unreachable */
    uint32_t reachable;
    uint32_t *idom;
    uint32_t *dom_in, *dom_out;
    uint32_t *loop_of;     /* innermost loop header of each block, ZF_NONE outside loops */
    uint32_t *loop_parent; /* per header: the enclosing loop's header */
    uint8_t *is_header;
} zf_cfg;

static void zf_cfg_free(zf_cfg *g) {
    void *parts[] = {g->pred_first, g->pred,    g->rpo,     g->rpo_num,     g->idom,
                     g->dom_in,     g->dom_out, g->loop_of, g->loop_parent, g->is_header};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        free(parts[i]);
}

static bool zf_cfg_alloc(zf_cfg *g) {
    uint32_t n = g->n;
    size_t edges = g->succ_first[n];
    g->pred_first = calloc(n + 1, sizeof(uint32_t));
    g->pred = calloc(edges ? edges : 1, sizeof(uint32_t));
    g->rpo = calloc(n, sizeof(uint32_t));
    g->rpo_num = malloc(n * sizeof(uint32_t));
    g->idom = malloc(n * sizeof(uint32_t));
    g->dom_in = calloc(n, sizeof(uint32_t));
    g->dom_out = calloc(n, sizeof(uint32_t));
    g->loop_of = malloc(n * sizeof(uint32_t));
    g->loop_parent = malloc(n * sizeof(uint32_t));
    g->is_header = calloc(n, 1);
    return g->pred_first && g->pred && g->rpo && g->rpo_num && g->idom && g->dom_in && g->dom_out && g->loop_of &&
           g->loop_parent && g->is_header;
}

static void zf_cfg_preds(zf_cfg *g) {
    uint32_t n = g->n;
    for (uint32_t e = 0; e < g->succ_first[n]; e++)
        g->pred_first[g->succ[e] + 1]++;
    for (uint32_t v = 0; v < n; v++)
        g->pred_first[v + 1] += g->pred_first[v];
    uint32_t *fill = calloc(n, sizeof *fill);
    for (uint32_t u = 0; u < n && fill != NULL; u++) {
        for (uint32_t e = g->succ_first[u]; e < g->succ_first[u + 1]; e++) {
            uint32_t v = g->succ[e];
            g->pred[g->pred_first[v] + fill[v]++] = u;
        }
    }
    free(fill);
}

/* Iterative depth-first search from the entry: reverse post-order. */
static bool zf_cfg_rpo(zf_cfg *g) {
    uint32_t n = g->n;
    uint32_t *stack = malloc(n * sizeof *stack), *next = malloc(n * sizeof *next);
    uint32_t *post = malloc(n * sizeof *post);
    uint8_t *seen = calloc(n, 1);
    bool ok = stack && next && post && seen;
    uint32_t top = 0, count = 0;
    if (ok) {
        stack[top++] = 0;
        seen[0] = 1;
        next[0] = g->succ_first[0];
    }
    while (ok && top > 0) {
        uint32_t u = stack[top - 1];
        if (next[u] < g->succ_first[u + 1]) {
            uint32_t v = g->succ[next[u]++];
            if (!seen[v]) {
                seen[v] = 1;
                next[v] = g->succ_first[v];
                stack[top++] = v;
            }
            continue;
        }
        post[count++] = u;
        top--;
    }
    for (uint32_t v = 0; ok && v < n; v++)
        g->rpo_num[v] = ZF_NONE;
    for (uint32_t i = 0; ok && i < count; i++) {
        g->rpo[i] = post[count - 1 - i];
        g->rpo_num[g->rpo[i]] = i;
    }
    g->reachable = count;
    free(stack);
    free(next);
    free(post);
    free(seen);
    return ok;
}

static uint32_t zf_intersect(const zf_cfg *g, uint32_t a, uint32_t b) {
    while (a != b) {
        while (g->rpo_num[a] > g->rpo_num[b])
            a = g->idom[a];
        while (g->rpo_num[b] > g->rpo_num[a])
            b = g->idom[b];
    }
    return a;
}

/* Cooper, Harvey and Kennedy's iterative dominators over reverse post-order. */
static void zf_cfg_dominators(zf_cfg *g) {
    for (uint32_t v = 0; v < g->n; v++)
        g->idom[v] = ZF_NONE;
    g->idom[0] = 0;
    bool changed = true;
    while (changed) {
        changed = false;
        for (uint32_t i = 1; i < g->reachable; i++) {
            uint32_t v = g->rpo[i], best = ZF_NONE;
            for (uint32_t e = g->pred_first[v]; e < g->pred_first[v + 1]; e++) {
                uint32_t p = g->pred[e];
                if (g->idom[p] == ZF_NONE)
                    continue;
                best = best == ZF_NONE ? p : zf_intersect(g, p, best);
            }
            if (best != ZF_NONE && g->idom[v] != best) {
                g->idom[v] = best;
                changed = true;
            }
        }
    }
}

/* Pre/post numbers of the dominator tree, for constant-time dominance tests. */
static bool zf_cfg_dom_numbers(zf_cfg *g) {
    uint32_t n = g->n;
    uint32_t *first = calloc(n + 1, sizeof *first), *child = malloc(n * sizeof *child);
    uint32_t *stack = malloc(n * sizeof *stack), *pos = calloc(n, sizeof *pos);
    bool ok = first && child && stack && pos;
    for (uint32_t v = 1; ok && v < n; v++)
        if (g->idom[v] != ZF_NONE)
            first[g->idom[v] + 1]++;
    for (uint32_t v = 0; ok && v < n; v++)
        first[v + 1] += first[v];
    for (uint32_t v = 1; ok && v < n; v++)
        if (g->idom[v] != ZF_NONE)
            child[first[g->idom[v]] + pos[g->idom[v]]++] = v;
    uint32_t top = 0, clock = 0;
    if (ok) {
        memset(pos, 0, n * sizeof *pos);
        stack[top++] = 0;
        g->dom_in[0] = clock++;
    }
    while (ok && top > 0) {
        uint32_t u = stack[top - 1];
        if (pos[u] < first[u + 1] - first[u]) {
            uint32_t v = child[first[u] + pos[u]++];
            g->dom_in[v] = clock++;
            stack[top++] = v;
            continue;
        }
        g->dom_out[u] = clock++;
        top--;
    }
    free(first);
    free(child);
    free(stack);
    free(pos);
    return ok;
}

static bool zf_dominates(const zf_cfg *g, uint32_t a, uint32_t b) {
    if (g->idom[a] == ZF_NONE || g->idom[b] == ZF_NONE)
        return false;
    return g->dom_in[a] <= g->dom_in[b] && g->dom_out[b] <= g->dom_out[a];
}

static bool zf_is_back_edge(const zf_cfg *g, uint32_t u, uint32_t v) {
    return g->rpo_num[u] != ZF_NONE && zf_dominates(g, v, u);
}

/* Body of the natural loop of header h: h and every block reaching a back edge into h without passing h. */
static uint32_t zf_loop_body(const zf_cfg *g, uint32_t h, uint8_t *in, uint32_t *work) {
    uint32_t size = 1, top = 0;
    in[h] = 1;
    for (uint32_t e = g->pred_first[h]; e < g->pred_first[h + 1]; e++) {
        uint32_t u = g->pred[e];
        if (zf_is_back_edge(g, u, h) && !in[u]) {
            in[u] = 1;
            work[top++] = u;
            size++;
        }
    }
    while (top > 0) {
        uint32_t u = work[--top];
        for (uint32_t e = g->pred_first[u]; e < g->pred_first[u + 1]; e++) {
            uint32_t p = g->pred[e];
            if (!in[p] && g->rpo_num[p] != ZF_NONE) {
                in[p] = 1;
                work[top++] = p;
                size++;
            }
        }
    }
    return size;
}

typedef struct zf_loop {
    uint32_t header;
    uint32_t size;
} zf_loop;

static int zf_loop_larger_first(const void *a, const void *b) {
    const zf_loop *x = a, *y = b;
    return x->size < y->size ? 1 : x->size > y->size ? -1 : (x->header > y->header) - (x->header < y->header);
}

/* Innermost loop of every block: loops marked from the largest to the smallest, inner ones overwrite. */
static bool zf_cfg_loops(zf_cfg *g) {
    uint32_t n = g->n, count = 0;
    zf_loop *loops = malloc(n * sizeof *loops);
    uint8_t *in = calloc(n, 1);
    uint32_t *work = malloc(n * sizeof *work);
    bool ok = loops && in && work;
    for (uint32_t v = 0; v < n; v++) {
        g->loop_of[v] = ZF_NONE;
        g->loop_parent[v] = ZF_NONE;
    }
    for (uint32_t h = 0; ok && h < n; h++) {
        for (uint32_t e = g->pred_first[h]; e < g->pred_first[h + 1] && !g->is_header[h]; e++)
            g->is_header[h] = zf_is_back_edge(g, g->pred[e], h);
        if (g->is_header[h]) {
            memset(in, 0, n);
            loops[count++] = (zf_loop){h, zf_loop_body(g, h, in, work)};
        }
    }
    if (ok)
        qsort(loops, count, sizeof *loops, zf_loop_larger_first);
    for (uint32_t i = 0; ok && i < count; i++) {
        uint32_t h = loops[i].header;
        memset(in, 0, n);
        zf_loop_body(g, h, in, work);
        g->loop_parent[h] = g->loop_of[h];
        for (uint32_t v = 0; v < n; v++)
            if (in[v])
                g->loop_of[v] = h;
    }
    free(loops);
    free(in);
    free(work);
    return ok;
}

/* Whether block v lies inside the loop headed by `loop` (ZF_NONE: the function, which holds everything). */
static bool zf_in_loop(const zf_cfg *g, uint32_t v, uint32_t loop) {
    if (loop == ZF_NONE)
        return true;
    for (uint32_t l = g->loop_of[v]; l != ZF_NONE; l = g->loop_parent[l])
        if (l == loop)
            return true;
    return false;
}

/* Picks the ready block to emit: inside the innermost open loop, lowest reverse post-order first. */
static uint32_t zf_pick(const zf_cfg *g, const uint32_t *ready, uint32_t count, uint32_t loop) {
    uint32_t best = ZF_NONE;
    for (uint32_t i = 0; i < count; i++) {
        uint32_t v = ready[i];
        if (zf_in_loop(g, v, loop) && (best == ZF_NONE || g->rpo_num[ready[best]] > g->rpo_num[v]))
            best = i;
    }
    return best;
}

static bool zf_cfg_kahn(zf_cfg *g, uint32_t *order) {
    uint32_t n = g->n, emitted = 0, ready_count = 0, open = 0;
    uint32_t *indeg = calloc(n, sizeof *indeg), *ready = malloc(n * sizeof *ready);
    uint32_t *stack = malloc((n + 1) * sizeof *stack);
    uint8_t *done = calloc(n, 1);
    bool ok = indeg && ready && stack && done;
    for (uint32_t u = 0; ok && u < n; u++) {
        if (g->rpo_num[u] == ZF_NONE)
            continue;
        for (uint32_t e = g->succ_first[u]; e < g->succ_first[u + 1]; e++)
            if (!zf_is_back_edge(g, u, g->succ[e]))
                indeg[g->succ[e]]++;
    }
    if (ok) {
        ready[ready_count++] = 0;
        stack[open++] = ZF_NONE;
    }
    while (ok && emitted < g->reachable) {
        uint32_t pick = ZF_NONE;
        while (pick == ZF_NONE && open > 0) {
            pick = zf_pick(g, ready, ready_count, stack[open - 1]);
            if (pick == ZF_NONE && open > 1)
                open--; /* the innermost loop has nothing more ready: it is complete */
            else if (pick == ZF_NONE)
                break;
        }
        uint32_t v;
        if (pick != ZF_NONE) {
            v = ready[pick];
            ready[pick] = ready[--ready_count];
        } else {
            /* An irreducible cycle: take the not yet emitted reachable block that comes first in reverse post-order. */
            v = ZF_NONE;
            for (uint32_t i = 0; i < g->reachable && v == ZF_NONE; i++)
                if (!done[g->rpo[i]])
                    v = g->rpo[i];
            for (uint32_t i = 0; i < ready_count; i++)
                if (ready[i] == v)
                    ready[i] = ready[--ready_count];
        }
        done[v] = 1;
        order[emitted++] = v;
        if (g->is_header[v])
            stack[open++] = v;
        for (uint32_t e = g->succ_first[v]; e < g->succ_first[v + 1]; e++) {
            uint32_t w = g->succ[e];
            if (!zf_is_back_edge(g, v, w) && !done[w] && indeg[w] > 0 && --indeg[w] == 0)
                ready[ready_count++] = w;
        }
    }
    free(indeg);
    free(ready);
    free(stack);
    free(done);
    return ok;
}

static void zf_cfg_append_unreachable(const zf_cfg *g, uint32_t *order) {
    uint32_t at = g->reachable;
    for (uint32_t v = 0; v < g->n; v++)
        if (g->rpo_num[v] == ZF_NONE)
            order[at++] = v;
}

bool zf_cfg_order(uint32_t n, const uint32_t *succ_first, const uint32_t *succ, uint32_t *order) {
    if (n == 0)
        return true;
    zf_cfg g = {.n = n, .succ_first = succ_first, .succ = succ};
    bool ok = zf_cfg_alloc(&g);
    if (ok) {
        zf_cfg_preds(&g);
        ok = zf_cfg_rpo(&g);
    }
    if (ok && n <= ZF_CFG_MAX_SMART) {
        zf_cfg_dominators(&g);
        ok = zf_cfg_dom_numbers(&g) && zf_cfg_loops(&g) && zf_cfg_kahn(&g, order);
    } else if (ok) {
        memcpy(order, g.rpo, g.reachable * sizeof *order);
    }
    if (ok)
        zf_cfg_append_unreachable(&g, order);
    zf_cfg_free(&g);
    return ok;
}
