/*
 * bfs.c — breadth-first search: depths and a BFS-tree parent from one source.
 *
 * Algorithm: level-synchronous BFS (as in LAGraph's LAGr_BreadthFirstSearch and GAPBS bfs.cc), one
 * advance per level. The edge program sends the source's id
 * (MG_CONTRIB_SRC_ID) to unvisited destinations (mask = visited, complemented), keeps any one of
 * them (MG_COMBINE_ANY) and writes it only where the parent is still unset (MG_APPLY_IF_UNSET), so
 * a pulling engine may stop at a destination's first frontier parent: the engine is free to switch
 * between push and pull per level (direction-optimising BFS, Beamer, Asanovic and Patterson,
 * SC 2012). The vertices that joined form the next frontier and get depth = level: the level loop
 * is mg_advance_loop's, which records the step in depth and grows visited.
 */
#include "algo_util.h"

mg_status mg_bfs(mg_context ctx, const mg_graph g, uint32_t source, mg_vector depth,
                 mg_vector parent) {
    mg_status status = MG_SUCCESS;
    mg_vector own_parent = NULL;
    mg_frontier frontier = NULL, visited = NULL;

    TRY(mg_ranks_begin(ctx)); /* a failure on one rank fails every rank (mgraph.h) */
    TRY(mg__algo_check_graph(ctx, g, "mg_bfs: g"));
    uint32_t n = mg_graph_num_vertices(g);
    if (source >= n)
        FAIL(ctx, MG_INVALID_ARGUMENT, "mg_bfs: source %u is out of range (the graph has %u vertices)",
             source, n);
    TRY(mg__algo_check_vector(ctx, g, depth, MG_INT32, "mg_bfs: depth"));
    if (parent != NULL) {
        TRY(mg__algo_check_vector(ctx, g, parent, MG_VERTEX, "mg_bfs: parent"));
    } else {
        /* The parents double as the visited test of MG_APPLY_IF_UNSET, so keep them internally. */
        TRY(mg_vector_create(ctx, &own_parent, g, MG_VERTEX));
        parent = own_parent;
    }

    TRY(mg_vector_assign(ctx, depth, NULL, -1));
    TRY(mg_vector_assign(ctx, parent, NULL, -1));
    TRY(mg_vector_set(ctx, depth, source, 0));
    TRY(mg_vector_set(ctx, parent, source, source));
    TRY(mg_frontier_create(ctx, &frontier, g));
    TRY(mg_frontier_create(ctx, &visited, g));
    TRY(mg_frontier_add(ctx, frontier, source));
    TRY(mg_frontier_add(ctx, visited, source));

    mg_program visit;
    mg_program_init(&visit);
    visit.contribution = MG_CONTRIB_SRC_ID;
    visit.combine = MG_COMBINE_ANY;
    visit.apply = MG_APPLY_IF_UNSET;
    visit.unset = -1;
    visit.mask_complement = true; /* eligible: not yet visited */

    /* each level's vertices get depth = level and join visited; on a GPU, stretches of small
     * levels run without the host between them (road networks have thousands) */
    mg_loop_options levels;
    mg_loop_options_init(&levels);
    levels.step_of = depth;
    levels.first_step = 1;
    levels.mask_grows = true;
    TRY(mg_advance_loop(ctx, g, &visit, frontier, NULL, parent, visited, &levels, NULL));

cleanup:
    mg_vector_free(&own_parent);
    mg_frontier_free(&frontier);
    mg_frontier_free(&visited);
    return mg_ranks_end(ctx, status, "mg_bfs");
}
