/*
 * cc.c — connected components (weakly connected on directed graphs).
 *
 * Algorithm: minimum-label propagation (the data-driven form of Shiloach-Vishkin's hooking without
 * pointer jumping; Ligra's Components and Gunrock's CC without the hooking phase). Every vertex starts
 * with its own id as label; each round runs the edge program {x[s], MIN, APPLY_MIN} in place
 * (x = y = label, so a lowered label can travel further within the same step) from the vertices
 * whose label changed in the previous round. On a directed graph each round goes along the stored
 * edges and then along the reversed ones (MG_EDGES_IN), which is what weak connectivity needs. When
 * nothing changes, every label is the least id of its component: the least id reaches every vertex
 * of the component along some path, and no label is ever lower than that.
 * Work: O(m * rounds), rounds <= the largest component diameter + 1.
 */
#include "algo_util.h"

mg_status mg_cc(mg_context ctx, const mg_graph g, mg_vector label) {
    mg_status status = MG_SUCCESS;
    mg_frontier changed = NULL, forward = NULL, backward = NULL;

    TRY(mg__algo_check_graph(ctx, g, "mg_cc: g"));
    TRY(mg__algo_check_vector(ctx, g, label, MG_VERTEX, "mg_cc: label"));
    const bool directed = mg_graph_is_directed(g);
    TRY(mg_vector_assign_ids(ctx, label, NULL));
    TRY(mg_frontier_create(ctx, &changed, g));
    TRY(mg_frontier_create(ctx, &forward, g));
    if (directed) TRY(mg_frontier_create(ctx, &backward, g));

    mg_program hook;
    mg_program_init(&hook);
    hook.contribution = MG_CONTRIB_SRC;
    hook.combine = MG_COMBINE_MIN;
    hook.apply = MG_APPLY_MIN;

    /* The first round starts from every vertex (in = NULL). */
    mg_frontier in = NULL;
    for (;;) {
        hook.edges = MG_EDGES_OUT;
        TRY(mg_advance(ctx, g, &hook, in, label, label, NULL, forward));
        if (directed) {
            hook.edges = MG_EDGES_IN;
            TRY(mg_advance(ctx, g, &hook, in, label, label, NULL, backward));
            TRY(mg_frontier_union(ctx, forward, backward));
        }
        uint32_t count;
        TRY(mg_frontier_count(ctx, forward, &count));
        if (count == 0) break;
        mg_frontier t = changed;
        changed = forward;
        forward = t;
        in = changed;
    }

cleanup:
    mg_frontier_free(&changed);
    mg_frontier_free(&forward);
    mg_frontier_free(&backward);
    return status;
}
