/*
 * bc.c — betweenness centrality (Brandes, "A faster algorithm for betweenness centrality",
 * J. Math. Sociol. 2001), one breadth-first pass forward and one backward per source, as in
 * LAGraph's LAGr_Betweenness and GAPBS bc.cc.
 *
 * Forward: a level-synchronous BFS whose edge program counts shortest paths: sigma[d] = sum of
 * sigma[s] over the frontier parents s of each unvisited d ({x[s], SUM, ASSIGN}, mask = visited,
 * complemented). The sums land in a scratch vector (a SUM may not run in place) and are copied into
 * sigma on the new level.
 * Backward, from the deepest level up: w = (1 + delta) / sigma on level l+1, then an advance along
 * the reversed edges (MG_EDGES_IN) from level l+1 into level l (mask = level l, MG_APPLY_AFFINE so
 * that a vertex with no successor gets 0), and delta = sigma * that sum on level l. The forward
 * pass keeps a copy of each level's frontier (a copy holds only its own vertices, so all levels
 * together cost O(n)); the backward pass frees each level once it is done with it, so at most two
 * levels carry a bitmap at a time. Selecting levels from a depth vector instead would cost O(n) per
 * level: quadratic on road networks, whose depth runs to thousands.
 * Shortest-path counts grow exponentially with depth on grids and road networks (from a corner of
 * a 600 x 600 grid they reach 2^1193, past double's 2^1024). Only the ratios of adjacent levels'
 * counts enter the dependencies, so a level whose counts could pass 2^kRescaleLog2 (the previous
 * level's bound times the largest in-degree) is multiplied by 2^f, exact, bringing its largest
 * count to [2^(kTargetLog2-1), 2^kTargetLog2); the backward pass multiplies that level's
 * predecessors' dependencies by the same 2^f (sigma_v / sigma_w = 2^f s_v / s_w). A level's least
 * count never falls below its parents' least, so checking it at each rescale keeps every stored
 * count within [2^kMinLog2, 2^kRescaleLog2 x the largest in-degree] and every quotient of the
 * backward pass finite. Where one level's counts span more than that (the middle level from a corner
 * of a 2048 x 2048 grid: 1 to 2^2041), double cannot hold them: MG_RANGE_ERROR, never a NaN.
 * The source's own delta is not part of its centrality and is zeroed before accumulation. With one
 * source bc = delta_s; with several (sources == NULL: all) bc sums them and is halved on undirected
 * graphs, where every path is counted from both ends (networkx's unnormalised betweenness).
 */
#include "algo_util.h"

#include <math.h>

enum { kRescaleLog2 = 960, kTargetLog2 = 896, kMinLog2 = -900 };

typedef struct {
    mg_vector sigma, sums, delta, w;
    mg_frontier frontier, next, visited;
    mg_frontier *levels; /* levels[l]: the vertices at distance l, for the backward pass */
    int *scale_log2;     /* scale_log2[l]: level l's counts were multiplied by 2^scale_log2[l] */
    uint32_t nlevels, capacity;
    double degree_log2;  /* log2 of the largest in-degree: a level's growth bound */
} bc_work;

static void free_levels(bc_work *k) {
    for (uint32_t l = 0; l < k->nlevels; l++) mg_frontier_free(&k->levels[l]);
    k->nlevels = 0;
}

/* Appends a copy of f as the next level. */
static mg_status push_level(mg_context ctx, const mg_graph g, bc_work *k, mg_frontier f) {
    mg_status status = MG_SUCCESS;
    if (k->nlevels == k->capacity) {
        uint32_t capacity = k->capacity ? 2 * k->capacity : 64;
        mg_frontier *grown = mg__algo_malloc(capacity, sizeof *grown);
        int *grown_scale = mg__algo_malloc(capacity, sizeof *grown_scale);
        if (grown == NULL || grown_scale == NULL) {
            mg__algo_free(grown);
            mg__algo_free(grown_scale);
            FAIL(ctx, MG_OUT_OF_MEMORY, "mg_bc: out of memory for %u levels", capacity);
        }
        for (uint32_t l = 0; l < k->nlevels; l++) {
            grown[l] = k->levels[l];
            grown_scale[l] = k->scale_log2[l];
        }
        mg__algo_free(k->levels);
        mg__algo_free(k->scale_log2);
        k->levels = grown;
        k->scale_log2 = grown_scale;
        k->capacity = capacity;
    }
    mg_frontier *level = &k->levels[k->nlevels];
    *level = NULL;
    k->scale_log2[k->nlevels] = 0;
    TRY(mg_frontier_create(ctx, level, g));
    k->nlevels++;
    TRY(mg_frontier_copy(ctx, *level, f));
cleanup:
    return status;
}

/* Leaves delta_s in work->delta (with delta_s(s) = 0). */
static mg_status one_source(mg_context ctx, const mg_graph g, uint32_t s, bc_work *k) {
    mg_status status = MG_SUCCESS;
    mg_program count;
    mg_program_init(&count);
    count.contribution = MG_CONTRIB_SRC;
    count.combine = MG_COMBINE_SUM;
    count.apply = MG_APPLY_ASSIGN;
    count.mask_complement = true;

    TRY(mg_vector_assign(ctx, k->sigma, NULL, 0));
    TRY(mg_vector_set(ctx, k->sigma, s, 1));
    TRY(mg_frontier_clear(ctx, k->frontier));
    TRY(mg_frontier_clear(ctx, k->visited));
    TRY(mg_frontier_add(ctx, k->frontier, s));
    TRY(mg_frontier_add(ctx, k->visited, s));
    free_levels(k);
    TRY(push_level(ctx, g, k, k->frontier));
    double bound_log2 = 0; /* the current level's counts are below 2^bound_log2 */
    for (;;) {
        TRY(mg_advance(ctx, g, &count, k->frontier, k->sigma, k->sums, k->visited, k->next));
        uint32_t found;
        TRY(mg_frontier_count(ctx, k->next, &found));
        if (found == 0) break;
        TRY(mg_vector_ewise(ctx, k->sigma, k->next, MG_OP_ADD, k->sigma, k->sums));
        TRY(mg_frontier_union(ctx, k->visited, k->next));
        TRY(push_level(ctx, g, k, k->next));
        bound_log2 += k->degree_log2;
        if (bound_log2 > kRescaleLog2) {
            double largest, least;
            TRY(mg_vector_reduce(ctx, k->sigma, k->next, MG_OP_MAX, &largest));
            TRY(mg_vector_reduce(ctx, k->sigma, k->next, MG_OP_MIN, &least));
            int e = 0;
            (void)frexp(largest, &e); /* largest in [2^(e-1), 2^e) */
            const int f = kTargetLog2 - e;
            if (!(ldexp(least, f) >= ldexp(1.0, kMinLog2)))
                FAIL(ctx, MG_RANGE_ERROR, "mg_bc: from source %u, the shortest-path counts of BFS level "
                     "%u span %.0f binary orders of magnitude (%g to %g after earlier rescaling), more "
                     "than double can hold together; betweenness is not computed", s, k->nlevels - 1,
                     log2(largest) - log2(least), least, largest);
            TRY(mg_vector_affine(ctx, k->sigma, k->next, ldexp(1.0, f), k->sigma, 0));
            k->scale_log2[k->nlevels - 1] = f;
            bound_log2 = kTargetLog2;
        }
        mg_frontier t = k->frontier;
        k->frontier = k->next;
        k->next = t;
    }

    mg_program gather;
    mg_program_init(&gather);
    gather.contribution = MG_CONTRIB_SRC;
    gather.combine = MG_COMBINE_SUM;
    gather.apply = MG_APPLY_AFFINE; /* alpha 1, beta 0: every level-l vertex gets its sum or 0 */
    gather.edges = MG_EDGES_IN;

    /* The deepest level's delta is 0; each step goes from level l+1 into level l. */
    TRY(mg_vector_assign(ctx, k->delta, NULL, 0));
    for (uint32_t l = k->nlevels - 1; l-- > 0;) {
        mg_frontier below = k->levels[l + 1], here = k->levels[l];
        TRY(mg_vector_affine(ctx, k->w, below, 1, k->delta, 1));
        TRY(mg_vector_ewise(ctx, k->w, below, MG_OP_DIV, k->w, k->sigma));
        TRY(mg_advance(ctx, g, &gather, below, k->w, k->sums, here, NULL));
        TRY(mg_vector_ewise(ctx, k->delta, here, MG_OP_MUL, k->sigma, k->sums));
        if (k->scale_log2[l + 1] != 0)
            TRY(mg_vector_affine(ctx, k->delta, here, ldexp(1.0, k->scale_log2[l + 1]), k->delta, 0));
        TRY(mg_frontier_free(&k->levels[l + 1])); /* done with it: release its list and bitmap */
    }
    TRY(mg_vector_set(ctx, k->delta, s, 0));
cleanup:
    return status;
}

mg_status mg_bc(mg_context ctx, const mg_graph g, const uint32_t *sources, uint32_t nsources,
                mg_vector bc) {
    mg_status status = MG_SUCCESS;
    bc_work k = {0};

    TRY(mg_ranks_begin(ctx)); /* a failure on one rank fails every rank (mgraph.h) */
    TRY(mg__algo_check_graph(ctx, g, "mg_bc: g"));
    TRY(mg__algo_check_vector(ctx, g, bc, MG_DOUBLE, "mg_bc: bc"));
    const uint32_t n = mg_graph_num_vertices(g);
    if (sources == NULL) nsources = n;
    for (uint32_t i = 0; sources != NULL && i < nsources; i++)
        if (sources[i] >= n)
            FAIL(ctx, MG_INVALID_ARGUMENT,
                 "mg_bc: sources[%u] = %u is out of range (the graph has %u vertices)", i,
                 sources[i], n);

    TRY(mg_vector_create(ctx, &k.sigma, g, MG_DOUBLE));
    TRY(mg_vector_create(ctx, &k.sums, g, MG_DOUBLE));
    TRY(mg_vector_create(ctx, &k.delta, g, MG_DOUBLE));
    TRY(mg_vector_create(ctx, &k.w, g, MG_DOUBLE));
    TRY(mg_frontier_create(ctx, &k.frontier, g));
    TRY(mg_frontier_create(ctx, &k.next, g));
    TRY(mg_frontier_create(ctx, &k.visited, g));
    double max_in_degree;
    TRY(mg_vector_degree(ctx, k.w, MG_EDGES_IN));
    TRY(mg_vector_reduce(ctx, k.w, NULL, MG_OP_MAX, &max_in_degree));
    k.degree_log2 = max_in_degree > 1 ? log2(max_in_degree) : 0;

    TRY(mg_vector_assign(ctx, bc, NULL, 0));
    for (uint32_t i = 0; i < nsources; i++) {
        TRY(one_source(ctx, g, sources ? sources[i] : i, &k));
        TRY(mg_vector_ewise(ctx, bc, NULL, MG_OP_ADD, bc, k.delta));
    }
    if (nsources != 1 && !mg_graph_is_directed(g)) TRY(mg_vector_affine(ctx, bc, NULL, 0.5, bc, 0));

cleanup:
    mg_vector_free(&k.sigma);
    mg_vector_free(&k.sums);
    free_levels(&k);
    mg__algo_free(k.levels);
    mg__algo_free(k.scale_log2);
    mg_vector_free(&k.delta);
    mg_vector_free(&k.w);
    mg_frontier_free(&k.frontier);
    mg_frontier_free(&k.next);
    mg_frontier_free(&k.visited);
    return mg_ranks_end(ctx, status, "mg_bc");
}
