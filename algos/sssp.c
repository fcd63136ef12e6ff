/*
 * sssp.c — single-source shortest paths over non-negative weights.
 *
 * Algorithm: near-far delta-stepping (Meyer and Sanders, "Delta-stepping: a parallelizable shortest
 * path algorithm", J. Algorithms 2003; the near-far two-pile form of Davidson, Baxter, Garland and
 * Owens, IPDPS 2014, used by Gunrock). Relaxation is the edge program {x[s] + w, MIN, APPLY_MIN}
 * run in place on dist (x = y), so a relaxation may already see another from the same step (the
 * monotone case the engine allows). The "near" frontier holds the changed vertices whose distance
 * is below the current threshold; it is relaxed to exhaustion, while changed vertices at or past the
 * threshold wait in the "far" pile. When near runs dry the threshold moves to (least far distance)
 * + delta (empty buckets are skipped) and the next near set is selected from the pile; pile entries
 * whose distance has meanwhile dropped below the old threshold were already relaxed and are dropped.
 *
 * Weights: the loaders reject negative weights by default, but mg_graph_create_from_coo accepts
 * them, and a negative edge on an undirected graph is a negative cycle on which this loop would never
 * end. So the graph's cached weight range (mg_graph_weight_range, computed once when the graph is
 * built) is checked: a negative least weight or an infinite largest one is rejected.
 *
 * Default delta (delta == 0): 4 * w_max * n / m, i.e. a small multiple of the largest weight over
 * the mean degree, the choice Meyer and Sanders analyse for random weights (delta = Theta(1 / d) for
 * weights in [0, 1]). Measured with 2 threads, int weights 1..255: on Kronecker scale 19-20 the time
 * is flat for delta from 4 to 128 (the default gives 34); on a 2D grid (scale 18-20) larger is better
 * up to about 1000 (default 256: 2.4x faster than w_max * n / m = 64). On integer weights delta is
 * rounded down to an integer >= 1 (buckets of whole distances).
 * On a GPU a thin bucket widens the next (for the default delta; one given is kept): a bucket costs a few waits for the device (selecting,
 * counting and reducing the far pile) while its steps run on the device without them
 * (mg_advance_loop), so where a bucket starts with a near set that is cheap to push (at the mean
 * degree, under m / 32 edges: the push/pull rule's bound) delta doubles, up to kWidest times the
 * default (ADDS, Wang et al. PPoPP 2021, adjusts delta as it goes for the same reason). H100, 2048^2
 * grid: 142 ms at the default (255), 60-67 ms at 4096-16384; a fixed 16x the default made R-MAT 22
 * 13% slower (its buckets are not thin).
 */
#include "algo_util.h"

#include <math.h>

enum { kWidest = 16 };

mg_status mg_sssp(mg_context ctx, const mg_graph g, uint32_t source, double delta, mg_vector dist) {
    mg_status status = MG_SUCCESS;
    mg_frontier near = NULL, far = NULL;

    TRY(mg_ranks_begin(ctx)); /* a failure on one rank fails every rank (mgraph.h) */
    TRY(mg__algo_check_graph(ctx, g, "mg_sssp: g"));
    uint32_t n = mg_graph_num_vertices(g);
    uint64_t m = mg_graph_num_edges(g);
    if (source >= n)
        FAIL(ctx, MG_INVALID_ARGUMENT,
             "mg_sssp: source %u is out of range (the graph has %u vertices)", source, n);
    const bool real = mg_graph_weight_type(g) == MG_WEIGHT_FLOAT;
    const mg_type type = real ? MG_DOUBLE : MG_INT64;
    TRY(mg__algo_check_vector(ctx, g, dist, type, "mg_sssp: dist"));
    if (!(delta >= 0) || isinf(delta))
        FAIL(ctx, MG_INVALID_ARGUMENT, "mg_sssp: delta %g must be finite and >= 0 (0: default)",
             delta);

    const bool chosen = delta == 0;
    if (m > 0 && mg_graph_weight_type(g) != MG_WEIGHT_NONE) {
        double wmin, wmax;
        TRY(mg_graph_weight_range(g, &wmin, &wmax));
        if (wmin < 0)
            FAIL(ctx, MG_INVALID_ARGUMENT,
                 "mg_sssp: g has a negative edge weight (%g); shortest paths need weights >= 0", wmin);
        if (!isfinite(wmax))
            FAIL(ctx, MG_INVALID_ARGUMENT, "mg_sssp: g has a non-finite edge weight (%g)", wmax);
        if (delta == 0) delta = 4 * wmax * (double)n / (double)m;
    } else if (delta == 0 && m > 0) {
        delta = 4 * (double)n / (double)m; /* unit weights */
    }
    if (!real) delta = fmax(1.0, floor(delta));
    if (!(delta > 0)) delta = 1; /* no edges, or all weights zero */

    TRY(mg_vector_assign(ctx, dist, NULL, INFINITY)); /* INT64_MAX for integer distances */
    TRY(mg_vector_set(ctx, dist, source, 0));
    TRY(mg_frontier_create(ctx, &near, g));
    TRY(mg_frontier_create(ctx, &far, g));
    TRY(mg_frontier_add(ctx, near, source));

    mg_program relax;
    mg_program_init(&relax);
    relax.contribution = MG_CONTRIB_SRC_PLUS_WEIGHT;
    relax.combine = MG_COMBINE_MIN;
    relax.apply = MG_APPLY_MIN;

    /* near is relaxed to exhaustion by mg_advance_loop: what changes below the threshold is the
     * next near set, the rest goes to the far pile */
    mg_loop_options near_far;
    mg_loop_options_init(&near_far);
    near_far.far = far;
    const bool widen = chosen && mg_context_backend(ctx) == MG_BACKEND_GPU;
    const double widest = kWidest * delta, thin = n / 32.0; /* n / 32 vertices: m / 32 edges */
    double threshold = delta;
    for (;;) {
        uint32_t count;
        TRY(mg_frontier_count(ctx, near, &count));
        if (widen && count < thin && 2 * delta <= widest) delta *= 2;
        near_far.far_from = threshold;
        TRY(mg_advance_loop(ctx, g, &relax, near, dist, dist, NULL, &near_far, NULL));
        /* Drop pile entries relaxed since they were piled (now below the threshold). */
        TRY(mg_frontier_select(ctx, far, far, dist, MG_GE, threshold));
        TRY(mg_frontier_count(ctx, far, &count));
        if (count == 0) break;
        double least;
        TRY(mg_vector_reduce(ctx, dist, far, MG_OP_MIN, &least));
        threshold = least + delta;
        if (!(threshold > least)) threshold = nextafter(least, INFINITY); /* delta lost to rounding */
        TRY(mg_frontier_select(ctx, near, far, dist, MG_LT, threshold));
        TRY(mg_frontier_select(ctx, far, far, dist, MG_GE, threshold));
    }

cleanup:
    mg_frontier_free(&near);
    mg_frontier_free(&far);
    return mg_ranks_end(ctx, status, "mg_sssp");
}
