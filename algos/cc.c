/*
 * cc.c — connected components (weakly connected on directed graphs). Every vertex is labelled with
 * its component's least vertex id, by one of two algorithms:
 *
 * Afforest (Sutton, Ben-Nun and Barak, IPDPS 2018; GAPBS's cc), where the union-find forest
 * primitives run (mg_forest_link / _compress: a CPU context and a whole graph). Each vertex links
 * along its first two out-edges, with a compression after each round; then the most frequent root
 * among a sample of vertices is taken for the giant component's, and only the vertices outside it
 * link along the rest of their edges (and, on a directed graph, all their in-edges: an arc from the
 * giant into one of them is in that list only). The giant's own edges, most of a graph's, are never
 * read after the sample. A link hooks the larger root under the smaller, so each root is its tree's
 * least vertex, and the last compression writes it to every vertex. 2 threads, this machine
 * (session 31, medians): 1024^2 grid 7-13 ms, Kronecker 20 39-55 ms; FastSV took 66 and 113 ms.
 *
 * FastSV (Zhang, Azad, Hu, "FastSV: A Distributed-Memory Connected Component Algorithm with Fast
 * Convergence", SIAM PP 2020), as LAGraph's LG_CC_FastSV writes it over GraphBLAS, elsewhere (GPU
 * contexts and graphs split over ranks, until the forest primitives run there). Each vertex has a
 * parent f and a grandparent gp = f[f]. One iteration:
 *   mngp[u] = min(mngp[u], gp[v]) over u's neighbours v   (an edge program, both directions)
 *   f[f[u]] = min(f[f[u]], mngp[u])                        (stochastic hooking: a scatter-min)
 *   f = min(f, mngp)                                       (aggressive hooking)
 *   f = min(f, gp)                                         (shortcutting)
 *   gp = f[f]                                              (a gather)
 * until gp stops changing. Hooking onto grandparents and pointer jumping make the number of
 * iterations grow with log(diameter), not with the diameter as one-hop label propagation does
 * (thousands of steps on road networks and meshes).
 *
 * Two savings over LAGraph's loop, neither changing the result: f starts as each vertex's least
 * neighbour or itself (ECL-CC's initialisation, one in-place edge program), and only the vertices
 * whose gp changed send it to their neighbours (mngp keeps the least it was ever sent, and gp only
 * decreases), so late iterations touch few edges (while more than a quarter changed, all send:
 * cheaper than testing who did).
 *
 * Why FastSV's labels are the least ids: every f[v] is a vertex of v's component no larger than v,
 * so the least vertex u of a component keeps f[u] = u. When gp does not change, f[u] <= gp[u] =
 * f[f[u]] <= f[u] makes every tree a star, and along each edge (u, v) f[u] <= mngp[u] <= gp[v] =
 * f[v] and the reverse: one star per component, rooted at its least vertex.
 * Work: O(n + edges of the changed vertices) per iteration.
 */
#include "algo_util.h"

#include <stdlib.h>

enum { kLinkRounds = 2, kGiantSamples = 1024 };

static int compare_u32(const void *a, const void *b) {
    const uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static mg_status afforest(mg_context ctx, const mg_graph g, mg_vector f) {
    mg_status status = MG_SUCCESS;
    mg_frontier rest = NULL;
    const uint32_t n = mg_graph_num_vertices(g);

    TRY(mg_vector_assign_ids(ctx, f, NULL));
    for (uint32_t r = 0; r < kLinkRounds; r++) {
        TRY(mg_forest_link(ctx, f, NULL, MG_EDGES_OUT, r, 1));
        TRY(mg_forest_compress(ctx, f, NULL));
    }
    /* the giant component's root: the most frequent among roots sampled at fixed pseudo-random
     * vertices (it only decides which edges are skipped, not the labels) */
    double giant = 0;
    if (n > 0) {
        uint32_t roots[kGiantSamples];
        uint64_t x = 0x9E3779B97F4A7C15ull;
        for (int i = 0; i < kGiantSamples; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            double root;
            TRY(mg_vector_get(ctx, f, (uint32_t)(x % n), &root));
            roots[i] = (uint32_t)root;
        }
        qsort(roots, kGiantSamples, sizeof roots[0], compare_u32);
        for (int i = 0, best = 0; i < kGiantSamples;) {
            int j = i;
            while (j < kGiantSamples && roots[j] == roots[i]) j++;
            if (j - i > best) best = j - i, giant = roots[i];
            i = j;
        }
    }
    TRY(mg_frontier_create(ctx, &rest, g));
    TRY(mg_frontier_select(ctx, rest, NULL, f, MG_NE, giant));
    uint32_t outside;
    TRY(mg_frontier_count(ctx, rest, &outside));
    if (outside == 0) goto cleanup; /* one component, every vertex already under its root */
    TRY(mg_forest_link(ctx, f, rest, MG_EDGES_OUT, kLinkRounds, UINT32_MAX));
    if (mg_graph_is_directed(g)) TRY(mg_forest_link(ctx, f, rest, MG_EDGES_IN, 0, UINT32_MAX));
    TRY(mg_forest_compress(ctx, f, NULL));

cleanup:
    mg_frontier_free(&rest);
    return status;
}

static mg_status fastsv(mg_context ctx, const mg_graph g, mg_vector label) {
    mg_status status = MG_SUCCESS;
    mg_vector gp = NULL, gp_next = NULL, mngp = NULL, parent = NULL;
    mg_frontier changed = NULL;
    const bool directed = mg_graph_is_directed(g);
    const mg_edges both[2] = {MG_EDGES_OUT, MG_EDGES_IN};
    mg_vector f = label;
    TRY(mg_vector_create(ctx, &gp, g, MG_VERTEX));
    TRY(mg_vector_create(ctx, &gp_next, g, MG_VERTEX));
    TRY(mg_vector_create(ctx, &mngp, g, MG_VERTEX));
    TRY(mg_vector_create(ctx, &parent, g, MG_VERTEX));
    TRY(mg_frontier_create(ctx, &changed, g));

    /* y[d] = min(y[d], x[s]) along every edge s -> d of the sources (and d -> s when directed) */
    mg_program hook;
    mg_program_init(&hook);
    hook.contribution = MG_CONTRIB_SRC;
    hook.combine = MG_COMBINE_MIN;
    hook.apply = MG_APPLY_MIN;

    TRY(mg_vector_assign_ids(ctx, f, NULL));
    for (int k = 0; k < 1 + directed; k++) {
        hook.edges = both[k];
        TRY(mg_advance(ctx, g, &hook, NULL, f, f, NULL, NULL));
    }
    TRY(mg_vector_gather(ctx, gp, NULL, f, f));
    TRY(mg_vector_affine(ctx, mngp, NULL, 1, gp, 0));

    const uint32_t n = mg_graph_num_vertices(g);
    mg_frontier in = NULL; /* the first iteration sends every vertex's gp */
    for (;;) {
        for (int k = 0; k < 1 + directed; k++) {
            hook.edges = both[k];
            TRY(mg_advance(ctx, g, &hook, in, gp, mngp, NULL, NULL));
        }
        /* the scatter's targets are the parents before this iteration's hooks move them */
        TRY(mg_vector_affine(ctx, parent, NULL, 1, f, 0));
        TRY(mg_vector_scatter(ctx, f, NULL, MG_OP_MIN, mngp, parent));
        TRY(mg_vector_ewise(ctx, f, NULL, MG_OP_MIN, f, mngp));
        TRY(mg_vector_ewise(ctx, f, NULL, MG_OP_MIN, f, gp));
        TRY(mg_vector_gather(ctx, gp_next, NULL, f, f));
        /* changed = {v : gp decreased}; parent is free again and holds the decrease */
        TRY(mg_vector_ewise(ctx, parent, NULL, MG_OP_SUB, gp, gp_next));
        TRY(mg_frontier_select(ctx, changed, NULL, parent, MG_GT, 0));
        mg_vector t = gp;
        gp = gp_next;
        gp_next = t;
        uint32_t count;
        TRY(mg_frontier_count(ctx, changed, &count));
        if (count == 0) break;
        /* Where most vertices changed, all send (an unchanged gp sent again changes no mngp): an
         * all-active step tests no source's bit per edge, and on a GPU runs the dense engine's
         * 2D blocks (H100, 2048^2 grid: 0.17 ms a step, against 0.48-0.68 ms for a pull from
         * the changed half to nearly all of the vertices, ten iterations running). */
        in = count > n / 4 ? NULL : changed;
    }

cleanup:
    mg_vector_free(&gp);
    mg_vector_free(&gp_next);
    mg_vector_free(&mngp);
    mg_vector_free(&parent);
    mg_frontier_free(&changed);
    return status;
}

mg_status mg_cc(mg_context ctx, const mg_graph g, mg_vector label) {
    mg_status status = MG_SUCCESS;
    TRY(mg_ranks_begin(ctx)); /* a failure on one rank fails every rank (mgraph.h) */
    TRY(mg__algo_check_graph(ctx, g, "mg_cc: g"));
    TRY(mg__algo_check_vector(ctx, g, label, MG_VERTEX, "mg_cc: label"));
    if (mg_context_backend(ctx) == MG_BACKEND_CPU && !mg_graph_is_share(g))
        TRY(afforest(ctx, g, label));
    else
        TRY(fastsv(ctx, g, label));
cleanup:
    return mg_ranks_end(ctx, status, "mg_cc");
}
