/*
 * check_tc.c — verifier of mg_triangle_count, written apart from its SpGEMM path: the simple
 * undirected graph's sorted neighbour lists built here by sorting each vertex's in- and
 * out-neighbours, then for every edge {u < w} the merge of N(u) and N(w) past w finds each
 * triangle {u < w < z} exactly once (GAPBS tc's ordered intersection), crediting u, w and z.
 * The total and every vertex's count must be exact.
 */
#include "algo_util.h"

#include <stdlib.h>

static int by_id(const void *a, const void *b) {
    const uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

mg_status mg__check_simple_neighbours(mg_context ctx, const mg_graph g, bool out_only,
                                      const char *what, uint64_t **off_out, uint32_t **adj_out) {
    mg_status status = MG_SUCCESS;
    uint64_t *off = NULL;
    uint32_t *adj = NULL;
    const uint32_t n = mg_graph_num_vertices(g);
    const uint64_t *o[2];
    const uint32_t *x[2];
    const void *w;
    TRY(mg_graph_csr(g, &o[0], &x[0], &w));
    TRY(mg_graph_csc(g, &o[1], &x[1], &w));
    const int sides = out_only || !mg_graph_is_directed(g) ? 1 : 2;
    off = mg__algo_malloc((size_t)n + 1, sizeof *off);
    adj = mg__algo_malloc((size_t)o[0][n] * (size_t)sides + 1, sizeof *adj);
    if (off == NULL || adj == NULL)
        FAIL(ctx, MG_OUT_OF_MEMORY, "%s: out of memory for the neighbour lists of %u vertices", what,
             n);
    /* Each list is copied, sorted and made repeat-free in place, so it never outgrows its copy. */
    uint64_t k = 0;
    for (uint32_t v = 0; v < n; v++) {
        off[v] = k;
        for (int s = 0; s < sides; s++)
            for (uint64_t e = o[s][v]; e < o[s][v + 1]; e++)
                if (x[s][e] != v) adj[k++] = x[s][e];
        qsort(adj + off[v], k - off[v], sizeof *adj, by_id);
        uint64_t kept = off[v];
        for (uint64_t e = off[v]; e < k; e++)
            if (e == off[v] || adj[e] != adj[e - 1]) adj[kept++] = adj[e];
        k = kept;
    }
    off[n] = k;
    *off_out = off;
    *adj_out = adj;
    off = NULL;
    adj = NULL;

cleanup:
    mg__algo_free(off);
    mg__algo_free(adj);
    return status;
}

mg_status mg_check_triangle_count(mg_context ctx, const mg_graph g, uint64_t total,
                                  const mg_vector per_vertex) {
    mg_status status = MG_SUCCESS;
    uint64_t *off = NULL;
    uint32_t *adj = NULL;
    int64_t *want = NULL, *got = NULL;

    TRY(mg__algo_check_whole_graph(ctx, g, "mg_check_triangle_count: g"));
    if (per_vertex != NULL)
        TRY(mg__algo_check_vector(ctx, g, per_vertex, MG_INT64,
                                  "mg_check_triangle_count: per_vertex"));
    const uint32_t n = mg_graph_num_vertices(g);
    TRY(mg__check_simple_neighbours(ctx, g, false, "mg_check_triangle_count", &off, &adj));
    want = mg__algo_malloc((size_t)n + 1, sizeof *want);
    got = mg__algo_malloc((size_t)n + 1, sizeof *got);
    if (want == NULL || got == NULL)
        FAIL(ctx, MG_OUT_OF_MEMORY, "mg_check_triangle_count: out of memory for %u vertices", n);
    for (uint32_t v = 0; v < n; v++) want[v] = 0;

    uint64_t triangles = 0;
    for (uint32_t u = 0; u < n; u++)
        for (uint64_t e = off[u]; e < off[u + 1]; e++) {
            const uint32_t w = adj[e];
            if (w <= u) continue;
            /* z runs over the common neighbours of u and w above w. */
            uint64_t i = off[u], j = off[w];
            while (i < off[u + 1] && j < off[w + 1]) {
                if (adj[i] < adj[j]) {
                    i++;
                } else if (adj[j] < adj[i]) {
                    j++;
                } else {
                    const uint32_t z = adj[i];
                    if (z > w) {
                        triangles++;
                        want[u]++;
                        want[w]++;
                        want[z]++;
                    }
                    i++;
                    j++;
                }
            }
        }

    if (total != triangles)
        FAIL(ctx, MG_INVALID_ARGUMENT, "mg_check_triangle_count: total expected %llu triangles, got %llu",
             (unsigned long long)triangles, (unsigned long long)total);
    if (per_vertex != NULL) {
        TRY(mg_vector_extract(ctx, per_vertex, got));
        for (uint32_t v = 0; v < n; v++)
            if (got[v] != want[v])
                FAIL(ctx, MG_INVALID_ARGUMENT,
                     "mg_check_triangle_count: vertex %u: expected %lld triangles, got %lld", v,
                     (long long)want[v], (long long)got[v]);
    }

cleanup:
    mg__algo_free(off);
    mg__algo_free(adj);
    mg__algo_free(want);
    mg__algo_free(got);
    return status;
}
