/*
 * check_lcc.c — verifier of mg_lcc, written apart from its SpGEMM path, straight from LDBC
 * Graphalytics' definition: for each vertex v, mark its neighbours N(v) (in- and out-neighbours
 * of the simple graph, v left out), count the arcs u -> w of the simple graph with u and w both
 * marked (on an undirected graph each edge is two such arcs), and divide by d (d - 1), d = |N(v)|;
 * 0 where d < 2. Each value must match to 1e-12 relative: both sides divide the same integers.
 */
#include "algo_util.h"

#include <math.h>

mg_status mg_check_lcc(mg_context ctx, const mg_graph g, const mg_vector lcc) {
    mg_status status = MG_SUCCESS;
    uint64_t *noff = NULL, *aoff = NULL;
    uint32_t *nadj = NULL, *aadj = NULL, *mark = NULL;
    double *got = NULL;

    TRY(mg__algo_check_whole_graph(ctx, g, "mg_check_lcc: g"));
    TRY(mg__algo_check_vector(ctx, g, lcc, MG_DOUBLE, "mg_check_lcc: lcc"));
    const uint32_t n = mg_graph_num_vertices(g);
    TRY(mg__check_simple_neighbours(ctx, g, false, "mg_check_lcc", &noff, &nadj));
    TRY(mg__check_simple_neighbours(ctx, g, true, "mg_check_lcc", &aoff, &aadj));
    got = mg__algo_malloc((size_t)n + 1, sizeof *got);
    mark = mg__algo_malloc((size_t)n + 1, sizeof *mark);
    if (got == NULL || mark == NULL)
        FAIL(ctx, MG_OUT_OF_MEMORY, "mg_check_lcc: out of memory for %u vertices", n);
    TRY(mg_vector_extract(ctx, lcc, got));
    /* mark[u] == v + 1: u is a neighbour of v (no clearing between vertices). */
    for (uint32_t v = 0; v < n; v++) mark[v] = 0;

    for (uint32_t v = 0; v < n; v++) {
        const uint64_t d = noff[v + 1] - noff[v];
        for (uint64_t e = noff[v]; e < noff[v + 1]; e++) mark[nadj[e]] = v + 1;
        uint64_t arcs = 0;
        for (uint64_t e = noff[v]; e < noff[v + 1]; e++) {
            const uint32_t u = nadj[e];
            for (uint64_t f = aoff[u]; f < aoff[u + 1]; f++) arcs += mark[aadj[f]] == v + 1;
        }
        const double want = d < 2 ? 0.0 : (double)arcs / ((double)d * (double)(d - 1));
        if (!(fabs(got[v] - want) <= 1e-12 * fabs(want)))
            FAIL(ctx, MG_INVALID_ARGUMENT,
                 "mg_check_lcc: vertex %u: expected %.17g (%llu arcs among %llu neighbours), got "
                 "%.17g",
                 v, want, (unsigned long long)arcs, (unsigned long long)d, got[v]);
    }

cleanup:
    mg__algo_free(noff);
    mg__algo_free(nadj);
    mg__algo_free(aoff);
    mg__algo_free(aadj);
    mg__algo_free(mark);
    mg__algo_free(got);
    return status;
}
