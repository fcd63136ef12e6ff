/*
 * cc.c — connected components (weakly connected on directed graphs).
 *
 * Algorithm: FastSV (Zhang, Azad, Hu, "FastSV: A Distributed-Memory Connected Component Algorithm
 * with Fast Convergence", SIAM PP 2020), as LAGraph's LG_CC_FastSV writes it over GraphBLAS. Each
 * vertex has a parent f (initially itself) and a grandparent gp = f[f]. One iteration:
 *   mngp[u] = min(mngp[u], gp[v]) over u's neighbours v   (an edge program, both directions)
 *   f[f[u]] = min(f[f[u]], mngp[u])                        (stochastic hooking: a scatter-min)
 *   f = min(f, mngp)                                       (aggressive hooking)
 *   f = min(f, gp)                                         (shortcutting)
 *   gp = f[f]                                              (a gather)
 * until gp stops changing. Hooking onto grandparents and pointer jumping make the number of
 * iterations grow with log(diameter), not with the diameter as one-hop label propagation does
 * (thousands of steps on road networks and meshes). Every f[v] is a vertex of v's component no
 * larger than v, so the least vertex u of a component keeps f[u] = u; at the end every component
 * is one star, rooted at u: f is the least id of each component, the label the API promises.
 * Work: O(m + n) per iteration.
 */
#include "algo_util.h"

mg_status mg_cc(mg_context ctx, const mg_graph g, mg_vector label) {
    mg_status status = MG_SUCCESS;
    mg_vector gp = NULL, gp_next = NULL, mngp = NULL, parent = NULL;

    TRY(mg__algo_check_graph(ctx, g, "mg_cc: g"));
    TRY(mg__algo_check_vector(ctx, g, label, MG_VERTEX, "mg_cc: label"));
    const bool directed = mg_graph_is_directed(g);
    mg_vector f = label;
    TRY(mg_vector_assign_ids(ctx, f, NULL));
    TRY(mg_vector_create(ctx, &gp, g, MG_VERTEX));
    TRY(mg_vector_create(ctx, &gp_next, g, MG_VERTEX));
    TRY(mg_vector_create(ctx, &mngp, g, MG_VERTEX));
    TRY(mg_vector_create(ctx, &parent, g, MG_VERTEX));
    TRY(mg_vector_assign_ids(ctx, gp, NULL));
    TRY(mg_vector_assign_ids(ctx, mngp, NULL));

    /* mngp[d] = min(mngp[d], gp[s]) along every edge s -> d (and d -> s when directed) */
    mg_program hook;
    mg_program_init(&hook);
    hook.contribution = MG_CONTRIB_SRC;
    hook.combine = MG_COMBINE_MIN;
    hook.apply = MG_APPLY_MIN;

    for (double changed = 1; changed != 0;) {
        hook.edges = MG_EDGES_OUT;
        TRY(mg_advance(ctx, g, &hook, NULL, gp, mngp, NULL, NULL));
        if (directed) {
            hook.edges = MG_EDGES_IN;
            TRY(mg_advance(ctx, g, &hook, NULL, gp, mngp, NULL, NULL));
        }
        /* the scatter's targets are the parents before this iteration's hooks move them */
        TRY(mg_vector_affine(ctx, parent, NULL, 1, f, 0));
        TRY(mg_vector_scatter(ctx, f, NULL, MG_OP_MIN, mngp, parent));
        TRY(mg_vector_ewise(ctx, f, NULL, MG_OP_MIN, f, mngp));
        TRY(mg_vector_ewise(ctx, f, NULL, MG_OP_MIN, f, gp));
        TRY(mg_vector_gather(ctx, gp_next, NULL, f, f));
        TRY(mg_vector_l1_distance(ctx, gp_next, gp, &changed));
        mg_vector t = gp;
        gp = gp_next;
        gp_next = t;
    }

cleanup:
    mg_vector_free(&gp);
    mg_vector_free(&gp_next);
    mg_vector_free(&mngp);
    mg_vector_free(&parent);
    return status;
}
