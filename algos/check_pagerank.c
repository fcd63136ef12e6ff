/*
 * check_pagerank.c — verifier of mg_pagerank: a plain serial power iteration of networkx's
 * PageRank (a dangling vertex's rank spread over all vertices), run to an L1 change below 1e-12,
 * is the reference r.
 *
 * Bound. mg_pagerank solves the leaking system y = d P y + (1 - d) / n (P = A^T D^-1) to within
 * |y' - y|_1 <= d * tol / (1 - d) (by contraction for the power iteration, by the residual bound for
 * the push; see pagerank.c) and returns y' / |y'|_1. For non-negative a, b:
 * |a / |a| - b / |b||_1 <= 2 |a - b|_1 / |b|_1, and |y|_1 = s with (1 - d) / s = 1 - d + d * D(r)
 * (D(r): the rank on dangling vertices; see pagerank.c). So
 *     |result - r|_1 <= 2 d tol (1 - d + d D(r)) / (1 - d)^2,
 * i.e. 2 d tol / (1 - d) with no dangling vertex; the check allows that plus 1e-9 for rounding and
 * the reference's own error (at most 1e-12 * d / (1 - d)). The result must also be non-negative and
 * sum to 1 within 1e-9.
 *
 * Float iterates (opts->single_precision) stop at the fixed point of the rounded map, off the exact
 * one by (one iteration's rounding, L1) / (1 - d): each rank is a float sum, off by a few units of
 * 2^-24 of itself, and the ranks sum to 1, so the check allows 64 * 2^-24 / (1 - d) more (2.5e-5 at
 * d = 0.85; a fixed-iteration float run that stalled read 4e-8 on 256-vertex graphs).
 */
#include "algo_util.h"

#include <math.h>
#include <string.h>

/* Serial PageRank to an L1 change below 1e-12 into result; scratch: n more doubles. */
static void serial_pagerank(uint32_t n, const uint64_t *off, const uint32_t *idx, double d,
                            double *result, double *scratch) {
    double *r = result, *next = scratch;
    for (uint32_t v = 0; v < n; v++) r[v] = 1.0 / n;
    double change = INFINITY;
    for (int it = 0; it < 100000 && change > 1e-12; it++) {
        double dangling = 0;
        for (uint32_t v = 0; v < n; v++) {
            next[v] = 0;
            if (off[v + 1] == off[v]) dangling += r[v];
        }
        for (uint32_t u = 0; u < n; u++) {
            uint64_t deg = off[u + 1] - off[u];
            for (uint64_t e = off[u]; e < off[u + 1]; e++) next[idx[e]] += r[u] / (double)deg;
        }
        const double base = (1 - d + d * dangling) / n;
        change = 0;
        for (uint32_t v = 0; v < n; v++) {
            next[v] = d * next[v] + base;
            change += fabs(next[v] - r[v]);
        }
        double *t = r;
        r = next;
        next = t;
    }
    if (r != result) memcpy(result, r, (size_t)n * sizeof *r);
}

mg_status mg_check_pagerank(mg_context ctx, const mg_graph g, const mg_pagerank_options *opts,
                            const mg_vector rank) {
    mg_status status = MG_SUCCESS;
    double *next = NULL, *got = NULL;
    mg_pagerank_options o;
    mg_pagerank_options_init(&o);
    if (opts != NULL) o = *opts;

    TRY(mg__algo_check_whole_graph(ctx, g, "mg_check_pagerank: g"));
    TRY(mg__algo_check_vector(ctx, g, rank, MG_DOUBLE, "mg_check_pagerank: rank"));
    if (!(o.damping >= 0 && o.damping < 1) || !(o.tolerance >= 0))
        FAIL(ctx, MG_INVALID_ARGUMENT,
             "mg_check_pagerank: opts: damping %g must be in [0, 1) and tolerance %g >= 0", o.damping,
             o.tolerance);
    /* A fixed-iteration run (tolerance 0) is held to the change its last iteration made, which
     * plays the tolerance's part in the bound below (it is what the stopping rule guarantees). */
    const double tol = o.tolerance > 0 ? o.tolerance : o.change;
    const uint32_t n = mg_graph_num_vertices(g);
    if (n == 0) goto cleanup;
    const uint64_t *off;
    const uint32_t *idx;
    const void *w;
    TRY(mg_graph_csr(g, &off, &idx, &w));
    got = mg__algo_malloc(n, sizeof *got);
    if (got == NULL) FAIL(ctx, MG_OUT_OF_MEMORY, "mg_check_pagerank: out of memory for %u vertices", n);
    TRY(mg_vector_extract(ctx, rank, got));
    const double d = o.damping;
    /* The reference runs to an L1 change of 1e-12 whatever the tolerance: the damping decides it. */
    const double *r = mg__algo_reference(g, MG__REFERENCE_PAGERANK, &d, sizeof d);
    if (r == NULL) {
        double *cur = mg__algo_malloc(n, sizeof *cur);
        next = mg__algo_malloc(n, sizeof *next);
        if (cur == NULL || next == NULL) {
            mg__algo_free(cur);
            FAIL(ctx, MG_OUT_OF_MEMORY, "mg_check_pagerank: out of memory for %u vertices", n);
        }
        serial_pagerank(n, off, idx, d, cur, next);
        TRY(mg__algo_keep_reference(ctx, g, MG__REFERENCE_PAGERANK, &d, sizeof d, cur));
        r = cur;
    }

    double dangling = 0, sum = 0, l1 = 0;
    for (uint32_t v = 0; v < n; v++) {
        if (!(got[v] >= 0))
            FAIL(ctx, MG_INVALID_ARGUMENT, "mg_check_pagerank: vertex %u: rank %g is not >= 0", v,
                 got[v]);
        if (off[v + 1] == off[v]) dangling += r[v];
        sum += got[v];
        l1 += fabs(got[v] - r[v]);
    }
    if (fabs(sum - 1) > 1e-9)
        FAIL(ctx, MG_INVALID_ARGUMENT, "mg_check_pagerank: the ranks sum to %.17g, not 1", sum);
    const double bound = 2 * d * tol * (1 - d + d * dangling) / ((1 - d) * (1 - d)) + 1e-9 +
                         (o.single_precision ? 64 * ldexp(1, -24) / (1 - d) : 0);
    if (l1 > bound) {
        /* Name the vertex that is furthest off. */
        uint32_t worst = 0;
        for (uint32_t v = 1; v < n; v++)
            if (fabs(got[v] - r[v]) > fabs(got[worst] - r[worst])) worst = v;
        FAIL(ctx, MG_INVALID_ARGUMENT,
             "mg_check_pagerank: L1 distance to the reference %.3g exceeds the bound %.3g for "
             "tolerance %g (worst: vertex %u, rank expected %.17g, got %.17g)",
             l1, bound, tol, worst, r[worst], got[worst]);
    }

cleanup:
    mg__algo_free(next);
    mg__algo_free(got);
    return status;
}
