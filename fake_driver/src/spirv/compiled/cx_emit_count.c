/* Block counts the unchecked copy derives instead of counting (docs/spirv-execution.md, "Checks made per group"). The
 * executed-work record needs each block's count of work-item entries. In the vectorised loop over a group's
 * work-items a counter is a vector of 64-bit sums and a reduction after each row, which cost the 5-point stencil a
 * fifth of its time. An unchecked copy has no loops, and when no work-item can leave it early (no branch goes to its
 * fault exit: no unproven access, no call, no hang-detector poll), every work-item that enters a block leaves it by
 * one of the block's edges. Flow is then conserved at every block, and as in profilers that count arcs, the counts of
 * a few blocks give all the others: the edges, with one more from each exit to a root and from the root to the entry,
 * get a spanning tree; an edge outside it is measured by a block that keeps its counter (the edge's target when it is
 * that block's only way in, else its source when it is that block's only way out; the root's edge by the entry's
 * counter), an edge that no block measures must be in the tree, and the tree's edges follow from conservation, leaf by
 * leaf. The copy keeps its counters in an array of its own, of 32 bits (a work-item enters each of its blocks once at
 * most: it has no loops, and each function it calls is called from one place); after the wave's groups, the dropped
 * blocks' counts are computed from it, and it is added to the wave's counts. The checked copy counts every block, so a
 * group that runs it is counted exactly whatever happens in it. */
#include "cx_internal.h"

#include <stdlib.h>
#include <string.h>

#define ZF_CX_DERIVE_MAX_BLOCKS 64u /* larger functions keep every counter: the solution grows as blocks x edges */
#define ZF_CX_DERIVE_MAX_EDGES  64u /* per block */

typedef struct zf_cx_derived {
    uint32_t block;    /* unit block index */
    uint32_t first, n; /* its terms */
} zf_cx_derived;

typedef struct zf_cx_term {
    uint32_t block; /* a counted unit block */
    int64_t times;
} zf_cx_term;

struct zf_cx_counting {
    zf_cx_derived *derived;
    uint32_t num_derived, cap_derived;
    zf_cx_term *terms;
    uint32_t num_terms, cap_terms;
};

bool zf_cx_counting_start(zf_cx_em *e) {
    e->count_plan = calloc(1, sizeof *e->count_plan);
    return e->count_plan != NULL;
}

void zf_cx_counting_free(zf_cx_em *e) {
    if (e->count_plan == NULL)
        return;
    free(e->count_plan->derived);
    free(e->count_plan->terms);
    free(e->count_plan);
    e->count_plan = NULL;
}

static bool zf_cx_grow(void **array, uint32_t *cap, uint32_t need, size_t size) {
    if (need <= *cap)
        return true;
    uint32_t n = *cap ? 2 * *cap : 16;
    while (n < need)
        n *= 2;
    void *p = realloc(*array, (size_t)n * size);
    if (p == NULL)
        return false;
    *array = p;
    *cap = n;
    return true;
}

/* The flow graph of the function being emitted: its edges, then one from each exit to the root (node n) and the
 * root's to the entry (the last edge). */
typedef struct zf_cx_flow {
    uint32_t n, num_edges;
    uint32_t *from, *to;
    uint32_t *ins, *outs; /* per node: edges entering, leaving */
    uint32_t *measured;   /* per edge: the block whose counter measures it, UINT32_MAX: none */
    bool *tree;           /* per edge */
    int64_t *flow;        /* per edge: its flow as a combination of the counted blocks' counts (n per edge) */
    bool *solved;
    uint32_t *parent; /* union-find over nodes */
} zf_cx_flow;

static void zf_cx_flow_free(zf_cx_flow *g) {
    free(g->from);
    free(g->to);
    free(g->ins);
    free(g->outs);
    free(g->measured);
    free(g->tree);
    free(g->flow);
    free(g->solved);
    free(g->parent);
}

/* Block b's distinct targets into targets (at most ZF_CX_DERIVE_MAX_EDGES): switch cases with one target make one
 * edge, of their flows together. UINT32_MAX when there are more. */
static uint32_t zf_cx_targets(const zf_cx_em *e, uint32_t b, uint32_t *targets) {
    const zf_dblock *blk = &e->code->blocks[e->fn->block_first + b];
    const zf_dinst *term = &e->code->insts[blk->first + blk->count - 1];
    uint32_t edge, n = 0;
    for (uint32_t k = 0; zf_cx_term_edge(e->code, term, k, &edge); k++) {
        uint32_t t = e->code->edges[edge].target, q = 0;
        while (q < n && targets[q] != t)
            q++;
        if (q < n)
            continue;
        if (n == ZF_CX_DERIVE_MAX_EDGES)
            return UINT32_MAX;
        targets[n++] = t;
    }
    return n;
}

static bool zf_cx_flow_make(const zf_cx_em *e, zf_cx_flow *g) {
    uint32_t n = e->fn->block_count, m = 1, targets[ZF_CX_DERIVE_MAX_EDGES];
    for (uint32_t b = 0; b < n; b++) {
        uint32_t k = zf_cx_targets(e, b, targets);
        if (k == UINT32_MAX)
            return false; /* a switch of more targets than it is worth */
        m += k == 0 ? 1 : k;
    }
    *g = (zf_cx_flow){.n = n, .num_edges = m};
    g->from = calloc(m, sizeof *g->from);
    g->to = calloc(m, sizeof *g->to);
    g->ins = calloc(n + 1, sizeof *g->ins);
    g->outs = calloc(n + 1, sizeof *g->outs);
    g->measured = calloc(m, sizeof *g->measured);
    g->tree = calloc(m, sizeof *g->tree);
    g->flow = calloc((size_t)m * n, sizeof *g->flow);
    g->solved = calloc(m, sizeof *g->solved);
    g->parent = calloc(n + 1, sizeof *g->parent);
    if (!g->from || !g->to || !g->ins || !g->outs || !g->measured || !g->tree || !g->flow || !g->solved || !g->parent)
        return false;
    uint32_t j = 0;
    for (uint32_t b = 0; b < n; b++) {
        uint32_t k = zf_cx_targets(e, b, targets);
        for (uint32_t i = 0; i < k; i++, j++) {
            if (targets[i] >= n)
                return false;
            g->from[j] = b;
            g->to[j] = targets[i];
        }
        if (k == 0) { /* an exit: its edge to the root */
            g->from[j] = b;
            g->to[j++] = n;
        }
    }
    g->from[j] = n; /* the root's edge to the entry, the last */
    g->to[j] = 0;
    for (j = 0; j < m; j++) {
        g->outs[g->from[j]]++;
        g->ins[g->to[j]]++;
    }
    return true;
}

/* The block whose count is edge j's flow: its target entered only by it, else its source left only by it. */
static uint32_t zf_cx_measure(const zf_cx_flow *g, uint32_t j) {
    if (j == g->num_edges - 1)
        return 0; /* the root's edge: the entry's counter */
    if (g->to[j] < g->n && g->ins[g->to[j]] == 1)
        return g->to[j];
    if (g->outs[g->from[j]] == 1)
        return g->from[j];
    return UINT32_MAX;
}

static uint32_t zf_cx_root(uint32_t *parent, uint32_t x) {
    while (parent[x] != x)
        x = parent[x] = parent[parent[x]];
    return x;
}

static bool zf_cx_tree_take(zf_cx_flow *g, uint32_t j) {
    uint32_t a = zf_cx_root(g->parent, g->from[j]), b = zf_cx_root(g->parent, g->to[j]);
    if (a == b)
        return false;
    g->parent[a] = b;
    g->tree[j] = true;
    return true;
}

/* The spanning tree: every edge no block measures, then measured ones while they join parts, the root's last (its
 * counter, the entry's, is the cheapest to keep); false when the unmeasured edges make a cycle. */
static bool zf_cx_spanning_tree(zf_cx_flow *g) {
    for (uint32_t x = 0; x <= g->n; x++)
        g->parent[x] = x;
    for (uint32_t j = 0; j < g->num_edges; j++) {
        g->measured[j] = zf_cx_measure(g, j);
        if (g->measured[j] == UINT32_MAX && !zf_cx_tree_take(g, j))
            return false;
    }
    for (uint32_t j = 0; j < g->num_edges; j++)
        if (g->measured[j] != UINT32_MAX)
            zf_cx_tree_take(g, j);
    return true;
}

/* The tree's flows, from nodes with one unsolved edge: what conservation there leaves; false when an edge is left. */
static bool zf_cx_solve_tree(zf_cx_flow *g) {
    uint32_t n = g->n;
    for (uint32_t j = 0; j < g->num_edges; j++)
        if (!g->tree[j]) {
            g->flow[(size_t)j * n + g->measured[j]] = 1;
            g->solved[j] = true;
        }
    for (bool progress = true; progress;) {
        progress = false;
        for (uint32_t x = 0; x <= n; x++) {
            uint32_t unsolved = UINT32_MAX, count = 0;
            for (uint32_t j = 0; j < g->num_edges; j++)
                if ((g->from[j] == x || g->to[j] == x) && !g->solved[j]) {
                    unsolved = j;
                    count++;
                }
            if (count != 1)
                continue;
            /* in - out = 0 at x: the unsolved edge's flow is what the others leave */
            int64_t *f = g->flow + (size_t)unsolved * n;
            int32_t side = g->to[unsolved] == x ? 1 : -1;
            for (uint32_t j = 0; j < g->num_edges; j++) {
                if (j == unsolved || !(g->from[j] == x || g->to[j] == x))
                    continue;
                int32_t s = (g->to[j] == x ? 1 : -1) * -side;
                for (uint32_t k = 0; k < n; k++)
                    f[k] += s * g->flow[(size_t)j * n + k];
            }
            g->solved[unsolved] = progress = true;
        }
    }
    for (uint32_t j = 0; j < g->num_edges; j++)
        if (!g->solved[j])
            return false;
    return true;
}

static bool zf_cx_add_derived(zf_cx_em *e, uint32_t block, const int64_t *count, uint32_t n, uint32_t base) {
    struct zf_cx_counting *c = e->count_plan;
    uint32_t first = c->num_terms;
    for (uint32_t k = 0; k < n; k++) {
        if (count[k] == 0)
            continue;
        if (!zf_cx_grow((void **)&c->terms, &c->cap_terms, c->num_terms + 1, sizeof *c->terms))
            return false;
        c->terms[c->num_terms++] = (zf_cx_term){base + k, count[k]};
    }
    if (!zf_cx_grow((void **)&c->derived, &c->cap_derived, c->num_derived + 1, sizeof *c->derived))
        return false;
    c->derived[c->num_derived++] = (zf_cx_derived){base + block, first, c->num_terms - first};
    return true;
}

/* Each block's count from its entering edges; the counters of the blocks that measure no edge out of the tree are
 * dropped. */
static bool zf_cx_drop_counters(zf_cx_em *e, const zf_cx_flow *g, LLVMValueRef *count_stores) {
    uint32_t n = g->n, base = e->block_base[e->fn - e->code->funcs];
    bool *kept = calloc(n, sizeof *kept);
    int64_t *count = calloc(n, sizeof *count);
    bool ok = kept != NULL && count != NULL;
    for (uint32_t j = 0; ok && j < g->num_edges; j++)
        if (!g->tree[j])
            kept[g->measured[j]] = true;
    for (uint32_t b = 0; ok && b < n; b++) {
        if (kept[b])
            continue;
        memset(count, 0, n * sizeof *count);
        for (uint32_t j = 0; j < g->num_edges; j++)
            if (g->to[j] == b)
                for (uint32_t k = 0; k < n; k++)
                    count[k] += g->flow[(size_t)j * n + k];
        ok = zf_cx_add_derived(e, b, count, n, base);
        if (ok && count_stores[b] != NULL)
            LLVMInstructionEraseFromParent(count_stores[b]);
    }
    free(kept);
    free(count);
    return ok;
}

/* After an unchecked copy's body: the counters it can drop, dropped. */
void zf_cx_count_derive(zf_cx_em *e, LLVMValueRef *count_stores) {
    uint32_t n = e->fn->block_count;
    if (e->count_plan == NULL || n < 2 || n > ZF_CX_DERIVE_MAX_BLOCKS ||
        LLVMGetFirstUse(LLVMBasicBlockAsValue(e->fault_bb)) != NULL)
        return; /* a work-item may leave early: every block keeps its counter */
    zf_cx_flow g = {0};
    bool made = zf_cx_flow_make(e, &g);
    for (uint32_t b = 1; made && b < n; b++)
        made = g.ins[b] > 0; /* a block nothing enters keeps its counter (of 0) with every other */
    if (made && zf_cx_spanning_tree(&g) && zf_cx_solve_tree(&g)) {
        if (!zf_cx_drop_counters(e, &g, count_stores))
            zf_cx_fail(e, "out of host memory");
    }
    zf_cx_flow_free(&g);
}

uint32_t zf_cx_count_derived(const zf_cx_em *e) {
    return e->count_plan != NULL ? e->count_plan->num_derived : 0;
}

/* Entry j of the unchecked groups' 32-bit counters, widened. */
static LLVMValueRef zf_cx_ucount(zf_cx_em *e, LLVMValueRef ucounts, uint32_t j) {
    LLVMBuilderRef B = e->b;
    LLVMValueRef index = zf_cx_i64c(e, j);
    LLVMValueRef narrow = LLVMBuildBitCast(B, ucounts, LLVMPointerType(e->i32, 0), "");
    LLVMValueRef v = LLVMBuildLoad2(B, e->i32, LLVMBuildGEP2(B, e->i32, narrow, &index, 1, ""), "");
    return LLVMBuildZExt(B, v, e->i64, "");
}

/* At the wave's end: the unchecked groups' counts, the dropped ones computed from the kept ones, added to the wave's
 * counts. */
void zf_cx_count_resolve(zf_cx_em *e, LLVMValueRef ucounts, LLVMValueRef counts) {
    LLVMBuilderRef B = e->b;
    struct zf_cx_counting *c = e->count_plan;
    bool *dropped = calloc(e->num_blocks ? e->num_blocks : 1, sizeof *dropped);
    if (dropped == NULL) {
        zf_cx_fail(e, "out of host memory");
        return;
    }
    for (uint32_t d = 0; c != NULL && d < c->num_derived; d++) {
        LLVMValueRef sum = zf_cx_i64c(e, 0);
        for (uint32_t k = 0; k < c->derived[d].n; k++) {
            const zf_cx_term *t = &c->terms[c->derived[d].first + k];
            LLVMValueRef v = zf_cx_ucount(e, ucounts, t->block);
            sum = LLVMBuildAdd(B, sum, LLVMBuildMul(B, v, zf_cx_i64c(e, (uint64_t)t->times), ""), "");
        }
        dropped[c->derived[d].block] = true;
        LLVMValueRef index = zf_cx_i64c(e, c->derived[d].block);
        LLVMValueRef to = LLVMBuildGEP2(B, e->i64, counts, &index, 1, "");
        LLVMBuildStore(B, LLVMBuildAdd(B, LLVMBuildLoad2(B, e->i64, to, ""), sum, ""), to);
    }
    for (uint32_t j = 0; j < e->num_blocks; j++) {
        if (dropped[j])
            continue;
        LLVMValueRef index = zf_cx_i64c(e, j);
        LLVMValueRef to = LLVMBuildGEP2(B, e->i64, counts, &index, 1, "");
        LLVMBuildStore(B, LLVMBuildAdd(B, LLVMBuildLoad2(B, e->i64, to, ""), zf_cx_ucount(e, ucounts, j), ""), to);
    }
    free(dropped);
}
