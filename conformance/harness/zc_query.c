/* Count-style queries and the checks of their semantics.
 *
 * Items are filled with a byte pattern (then prepared: stype, pNext) before every call, so that the checks can tell
 * which items a call wrote. The checks keep their buffers in a static list, released at the start and end of each
 * check: a failure leaves the test through a longjmp, and the buffers must neither leak nor be freed early. */
#include "zc_harness.h"

#include <stdlib.h>
#include <string.h>

/* Extra items past the real number: a driver that writes them is caught. */
#define ZC_QUERY_SLACK   2u
#define ZC_QUERY_PATTERN 0xa5

/* Buffers of the check in progress: two per query call, four calls per check. */
#define ZC_QUERY_BUFFERS 8

static void *zc_query_buffers[ZC_QUERY_BUFFERS];

static void zc_query_release(void) {
    for (size_t i = 0; i < ZC_QUERY_BUFFERS; i++) {
        free(zc_query_buffers[i]);
        zc_query_buffers[i] = NULL;
    }
}

static void *zc_query_keep(void *buffer) {
    for (size_t i = 0; i < ZC_QUERY_BUFFERS; i++) {
        if (zc_query_buffers[i] == NULL) {
            zc_query_buffers[i] = buffer;
            return buffer;
        }
    }
    free(buffer);
    zc_fail("internal: more than %d buffers in one count-query check", ZC_QUERY_BUFFERS);
    return NULL;
}

static void *zc_items_new(const zc_count_query *query, uint32_t n) {
    unsigned char *items = malloc((size_t)(n + ZC_QUERY_SLACK) * query->item_size);
    if (items == NULL)
        zc_fail("out of memory for %u items of %s", n, query->what);
    memset(items, ZC_QUERY_PATTERN, (size_t)(n + ZC_QUERY_SLACK) * query->item_size);
    for (uint32_t i = 0; query->prepare != NULL && i < n + ZC_QUERY_SLACK; i++)
        query->prepare(items + (size_t)i * query->item_size);
    return items;
}

static void *zc_items_copy(const zc_count_query *query, const void *items, uint32_t n) {
    void *copy = malloc((size_t)(n + ZC_QUERY_SLACK) * query->item_size);
    if (copy == NULL)
        zc_fail("out of memory");
    memcpy(copy, items, (size_t)(n + ZC_QUERY_SLACK) * query->item_size);
    return copy;
}

static const unsigned char *zc_item(const zc_count_query *query, const void *items, uint32_t i) {
    return (const unsigned char *)items + (size_t)i * query->item_size;
}

static ze_result_t zc_query_call(const zc_count_query *query, uint32_t *count, void *items) {
    return query->call(query->ctx, count, items);
}

uint32_t zc_count(const zc_count_query *query) {
    uint32_t n = 0;
    ze_result_t result = zc_query_call(query, &n, NULL);
    if (result != ZE_RESULT_SUCCESS)
        zc_fail("%s(count = 0, NULL) returned %s", query->what, zc_result_name(result));
    return n;
}

void *zc_query_all(const zc_count_query *query, uint32_t *count) {
    uint32_t n = zc_count(query);
    void *items = zc_items_new(query, n);
    uint32_t got = n;
    ze_result_t result = zc_query_call(query, &got, items);
    if (result != ZE_RESULT_SUCCESS || got != n) {
        free(items);
        zc_fail("%s(count = %u) returned %s and count %u", query->what, n, zc_result_name(result), got);
    }
    *count = n;
    return items;
}

/* Items [from, to) must be byte-for-byte what they were before the call. */
static void zc_check_untouched(const zc_count_query *query, const void *before, const void *after, uint32_t from,
                               uint32_t to, const char *situation) {
    for (uint32_t i = from; i < to; i++) {
        if (memcmp(zc_item(query, before, i), zc_item(query, after, i), query->item_size) != 0)
            zc_fail("%s with %s wrote item %u; it may write %u item(s)", query->what, situation, i, from);
    }
}

/* Items [0, to) must equal those of the full query. */
static void zc_check_same_items(const zc_count_query *query, const void *full, const void *items, uint32_t to,
                                const char *situation) {
    for (uint32_t i = 0; i < to; i++) {
        if (memcmp(zc_item(query, full, i), zc_item(query, items, i), query->item_size) != 0)
            zc_fail("%s with %s gave item %u different from a full query", query->what, situation, i);
    }
}

/* Calls the query with *count = asked on fresh items; checks the result, the count it leaves, and that it wrote no
 * item from index may_write on. */
static void *zc_query_with(const zc_count_query *query, uint32_t n, uint32_t asked, uint32_t expected_count,
                           uint32_t may_write, const char *situation) {
    void *items = zc_query_keep(zc_items_new(query, n));
    void *before = zc_query_keep(zc_items_copy(query, items, n));
    uint32_t count = asked;
    ze_result_t result = zc_query_call(query, &count, items);
    if (result != ZE_RESULT_SUCCESS)
        zc_fail("%s with %s returned %s", query->what, situation, zc_result_name(result));
    if (count != expected_count)
        zc_fail("%s with %s left count %u, expected %u", query->what, situation, count, expected_count);
    zc_check_untouched(query, before, items, may_write, n + ZC_QUERY_SLACK, situation);
    return items;
}

void zc_check_count_semantics(const zc_count_query *query) {
    zc_query_release(); /* what a failed check left */
    uint32_t n = zc_count(query);
    uint32_t again = zc_count(query);
    if (again != n)
        zc_fail("%s counts %u, then %u", query->what, n, again);

    zc_query_with(query, n, 0, n, 0, "count 0 and an array");

    void *full = zc_query_with(query, n, n + ZC_QUERY_SLACK, n, n, "a count larger than the number");
    void *exact = zc_query_with(query, n, n, n, n, "the exact count");
    zc_check_same_items(query, full, exact, n, "the exact count");
    if (n >= 2) {
        void *fewer = zc_query_with(query, n, n - 1, n - 1, n - 1, "a count smaller than the number");
        zc_check_same_items(query, full, fewer, n - 1, "a count smaller than the number");
    }
    zc_query_release();
}
