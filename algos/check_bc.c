/*
 * check_bc.c — verifier of mg_bc: plain serial Brandes (queue BFS counting shortest paths, then
 * dependencies accumulated in reverse BFS order, predecessors found through the in-edges), summed
 * over the same sources with the same conventions (one source: delta_s itself; several: the sum,
 * halved on undirected graphs). Each vertex must match to a relative 1e-9 (absolute 1e-9 near 0).
 * Path counts are long double here (x86-64: up to ~2^16384), so the reference needs no rescaling
 * on graphs where mg_bc's counts pass double's range and must be rescaled (a 2048 x 2048 grid's
 * reach 2^4090); counts past even that range are reported as such, not compared.
 */
#include "algo_util.h"

#include <math.h>
#include <string.h>

mg_status mg_check_bc(mg_context ctx, const mg_graph g, const uint32_t *sources, uint32_t nsources,
                      const mg_vector bc) {
    mg_status status = MG_SUCCESS;
    long double *sigma = NULL, *delta = NULL;
    const double *want = NULL;
    double *got = NULL;
    uint32_t *key = NULL;
    double *sum = NULL; /* the reference until the graph keeps it */
    int32_t *depth = NULL;
    uint32_t *order = NULL;

    TRY(mg__algo_check_whole_graph(ctx, g, "mg_check_bc: g"));
    TRY(mg__algo_check_vector(ctx, g, bc, MG_DOUBLE, "mg_check_bc: bc"));
    const uint32_t n = mg_graph_num_vertices(g);
    if (sources == NULL) nsources = n;
    for (uint32_t i = 0; sources != NULL && i < nsources; i++)
        if (sources[i] >= n)
            FAIL(ctx, MG_INVALID_ARGUMENT,
                 "mg_check_bc: sources[%u] = %u is out of range (the graph has %u vertices)", i,
                 sources[i], n);
    const uint64_t *off, *in_off;
    const uint32_t *idx, *in_idx;
    const void *w;
    TRY(mg_graph_csr(g, &off, &idx, &w));
    TRY(mg_graph_csc(g, &in_off, &in_idx, &w));
    got = mg__algo_malloc(n, sizeof *got);
    /* The key: whether all vertices are sources, then the list. */
    const size_t key_words = 1 + (sources ? (size_t)nsources : 0);
    key = mg__algo_malloc(key_words, sizeof *key);
    if (got == NULL || key == NULL)
        FAIL(ctx, MG_OUT_OF_MEMORY, "mg_check_bc: out of memory for %u vertices", n);
    TRY(mg_vector_extract(ctx, bc, got));
    key[0] = sources == NULL;
    if (sources) memcpy(key + 1, sources, (size_t)nsources * sizeof *sources);
    want = mg__algo_reference(g, MG__REFERENCE_BC, key, key_words * sizeof *key);
    if (want == NULL) {
        sum = mg__algo_malloc(n, sizeof *sum);
        sigma = mg__algo_malloc(n, sizeof *sigma);
        delta = mg__algo_malloc(n, sizeof *delta);
        depth = mg__algo_malloc(n, sizeof *depth);
        order = mg__algo_malloc(n, sizeof *order);
        if (!sum || !sigma || !delta || !depth || !order)
            FAIL(ctx, MG_OUT_OF_MEMORY, "mg_check_bc: out of memory for %u vertices", n);
        for (uint32_t v = 0; v < n; v++) sum[v] = 0;
        for (uint32_t i = 0; i < nsources; i++) {
            const uint32_t s = sources ? sources[i] : i;
            for (uint32_t v = 0; v < n; v++) {
                sigma[v] = 0;
                delta[v] = 0;
                depth[v] = -1;
            }
            uint32_t head = 0, tail = 0;
            sigma[s] = 1;
            depth[s] = 0;
            order[tail++] = s;
            while (head < tail) {
                uint32_t u = order[head++];
                for (uint64_t e = off[u]; e < off[u + 1]; e++) {
                    uint32_t v = idx[e];
                    if (depth[v] < 0) {
                        depth[v] = depth[u] + 1;
                        order[tail++] = v;
                    }
                    if (depth[v] == depth[u] + 1) sigma[v] += sigma[u];
                }
            }
            for (uint32_t k = 0; k < tail; k++)
                if (!isfinite(sigma[order[k]]))
                    FAIL(ctx, MG_INVALID_ARGUMENT,
                         "mg_check_bc: from source %u the shortest-path count of vertex %u exceeds "
                         "the reference's long double range", s, order[k]);
            /* Reverse BFS order: every successor's delta is final before its predecessors read it. */
            for (uint32_t k = tail; k-- > 1;) {
                uint32_t v = order[k];
                for (uint64_t e = in_off[v]; e < in_off[v + 1]; e++) {
                    uint32_t u = in_idx[e];
                    if (depth[u] == depth[v] - 1) delta[u] += sigma[u] / sigma[v] * (1 + delta[v]);
                }
            }
            for (uint32_t v = 0; v < n; v++)
                if (v != s) sum[v] += (double)delta[v];
        }
        want = sum;
        sum = NULL; /* the graph's from here on, even if keeping it fails */
        TRY(mg__algo_keep_reference(ctx, g, MG__REFERENCE_BC, key, key_words * sizeof *key,
                                    (double *)want));
    }
    const bool halve = nsources != 1 && !mg_graph_is_directed(g);
    for (uint32_t v = 0; v < n; v++) {
        double x = halve ? want[v] / 2 : want[v];
        if (!(fabs(got[v] - x) <= 1e-9 * fmax(1.0, fabs(x))))
            FAIL(ctx, MG_INVALID_ARGUMENT,
                 "mg_check_bc: vertex %u: centrality expected %.17g, got %.17g", v, x, got[v]);
    }

cleanup:
    mg__algo_free(sigma);
    mg__algo_free(delta);
    mg__algo_free(key);
    mg__algo_free(sum);
    mg__algo_free(got);
    mg__algo_free(depth);
    mg__algo_free(order);
    return status;
}
