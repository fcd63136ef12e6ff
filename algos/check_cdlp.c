/*
 * check_cdlp.c — verifier of mg_cdlp: the same rounds, serially, one vertex at a time (its
 * neighbours' labels gathered from the CSR and, on a directed graph, the CSC, sorted and counted);
 * the answer is unique, so the labels must match exactly.
 */
#include "algo_util.h"

#include <stdlib.h>

static int cmp_i32(const void *p, const void *q) {
    int32_t a = *(const int32_t *)p, b = *(const int32_t *)q;
    return (a > b) - (a < b);
}

/* One round: next[v] = the most frequent label among v's neighbours, ties to the smallest. */
static void serial_round(uint32_t n, int dirs, const uint64_t *const off[2],
                         const uint32_t *const idx[2], const int32_t *cur, int32_t *next,
                         int32_t *buf) {
    for (uint32_t v = 0; v < n; v++) {
        uint64_t k = 0;
        for (int d = 0; d < dirs; d++)
            for (uint64_t e = off[d][v]; e < off[d][v + 1]; e++) buf[k++] = cur[idx[d][e]];
        if (k == 0) {
            next[v] = (int32_t)v;
            continue;
        }
        qsort(buf, k, sizeof *buf, cmp_i32);
        uint64_t best = 0;
        for (uint64_t i = 0, j; i < k; i = j) {
            for (j = i + 1; j < k && buf[j] == buf[i]; j++) {
            }
            if (j - i > best) {
                best = j - i;
                next[v] = buf[i];
            }
        }
    }
}

mg_status mg_check_cdlp(mg_context ctx, const mg_graph g, int iterations, const mg_vector labels) {
    mg_status status = MG_SUCCESS;
    int32_t *got = NULL, *cur = NULL, *next = NULL, *buf = NULL;

    TRY(mg__algo_check_whole_graph(ctx, g, "mg_check_cdlp: g"));
    TRY(mg__algo_check_vector(ctx, g, labels, MG_VERTEX, "mg_check_cdlp: labels"));
    const uint32_t n = mg_graph_num_vertices(g);
    const uint64_t *off[2];
    const uint32_t *idx[2];
    const void *w;
    TRY(mg_graph_csr(g, &off[0], &idx[0], &w));
    TRY(mg_graph_csc(g, &off[1], &idx[1], &w));
    const int dirs = mg_graph_is_directed(g) ? 2 : 1;
    uint64_t max_deg = 0;
    for (uint32_t v = 0; v < n; v++) {
        uint64_t deg = off[0][v + 1] - off[0][v] + (dirs == 2 ? off[1][v + 1] - off[1][v] : 0);
        if (deg > max_deg) max_deg = deg;
    }
    got = mg__algo_malloc(n, sizeof *got);
    cur = mg__algo_malloc(n, sizeof *cur);
    next = mg__algo_malloc(n, sizeof *next);
    buf = mg__algo_malloc(max_deg + 1, sizeof *buf);
    if (got == NULL || cur == NULL || next == NULL || buf == NULL)
        FAIL(ctx, MG_OUT_OF_MEMORY, "mg_check_cdlp: out of memory for %u vertices", n);
    TRY(mg_vector_extract(ctx, labels, got));
    for (uint32_t v = 0; v < n; v++) cur[v] = (int32_t)v;
    for (int i = 0; i < iterations; i++) {
        serial_round(n, dirs, off, idx, cur, next, buf);
        int32_t *t = cur;
        cur = next;
        next = t;
    }
    for (uint32_t v = 0; v < n; v++)
        if (got[v] != cur[v])
            FAIL(ctx, MG_INVALID_ARGUMENT,
                 "mg_check_cdlp: vertex %u: label expected %d after %d iterations, got %d", v, cur[v],
                 iterations, got[v]);
cleanup:
    mg__algo_free(got);
    mg__algo_free(cur);
    mg__algo_free(next);
    mg__algo_free(buf);
    return status;
}
