/* kcore.c — k-core decomposition: the core number of every vertex (the largest k such that the
 * vertex is in a subgraph where every vertex has degree >= k), by peeling: at level k, remove the
 * vertices of degree <= k, which lowers their neighbours' degrees, until none is left; then raise k
 * to the least remaining degree. One mg_advance per round lowers the degrees.
 *   usage: kcore [GRAPH_FILE]   (the graph is taken as undirected; none: a generated one)
 * Checks itself against a serial peeling (one vertex at a time, from a stack). */
#include <stdint.h>
#include <stdlib.h>

#include "example.h"

/* core[v] by serial peeling over the CSR, one vertex at a time from a stack: at level k every alive
 * vertex of degree <= k is stacked; popping one lowers its neighbours, stacking those that fall to k. */
static int serial_cores(const mg_graph g, uint32_t n, int32_t *core) {
    const uint64_t *off;
    const uint32_t *adj;
    if (mg_graph_csr(g, &off, &adj, NULL) != MG_SUCCESS) return -1;
    int64_t *deg = malloc((size_t)n * sizeof *deg);
    uint32_t *stack = malloc((size_t)n * sizeof *stack);
    char *state = calloc(n, 1); /* 0 alive, 1 stacked, 2 peeled */
    int rc = deg && stack && state ? 0 : -1;
    for (uint32_t v = 0; rc == 0 && v < n; v++) deg[v] = (int64_t)(off[v + 1] - off[v]);
    int64_t k = 0;
    for (uint32_t done = 0; rc == 0 && done < n;) {
        int64_t least = INT64_MAX;
        for (uint32_t v = 0; v < n; v++)
            if (state[v] == 0 && deg[v] < least) least = deg[v];
        if (least > k) k = least;
        uint32_t top = 0;
        for (uint32_t v = 0; v < n; v++)
            if (state[v] == 0 && deg[v] <= k) state[v] = 1, stack[top++] = v;
        while (top > 0) {
            uint32_t v = stack[--top];
            state[v] = 2, core[v] = (int32_t)k, done++;
            for (uint64_t e = off[v]; e < off[v + 1]; e++) {
                uint32_t u = adj[e];
                if (state[u] == 0 && --deg[u] <= k) state[u] = 1, stack[top++] = u;
            }
        }
    }
    free(deg);
    free(stack);
    free(state);
    return rc;
}

int main(int argc, char **argv) {
    mg_context ctx = NULL;
    mg_graph g = NULL;
    mg_vector deg = NULL, core = NULL, minus_one = NULL, peeled = NULL;
    mg_frontier alive = NULL, peel = NULL;
    int32_t *got = NULL, *want = NULL;
    int ok = 0;
    mg_status st = mg_context_create(&ctx);
    if (st != MG_SUCCESS) return 1;
    TRY(example_graph(ctx, argc > 1 ? argv[1] : NULL, true, &g));
    TRY(mg_vector_create(ctx, &deg, g, MG_INT32));
    TRY(mg_vector_create(ctx, &core, g, MG_INT32));
    TRY(mg_vector_create(ctx, &minus_one, g, MG_INT32));
    TRY(mg_vector_create(ctx, &peeled, g, MG_INT32));
    TRY(mg_frontier_create(ctx, &alive, g));
    TRY(mg_frontier_create(ctx, &peel, g));
    TRY(mg_vector_degree(ctx, deg, MG_EDGES_OUT));
    TRY(mg_vector_assign(ctx, minus_one, NULL, -1));
    TRY(mg_vector_assign(ctx, peeled, NULL, 0));
    TRY(mg_frontier_fill(ctx, alive));

    /* Each peeled vertex sends -1 to each neighbour still alive, summed into its degree. */
    mg_program lower;
    mg_program_init(&lower);
    lower.contribution = MG_CONTRIB_SRC;
    lower.combine = MG_COMBINE_SUM;
    lower.apply = MG_APPLY_ADD;

    double k = 0, least;
    uint32_t left, npeel;
    TRY(mg_frontier_count(ctx, alive, &left));
    while (left > 0) {
        TRY(mg_vector_reduce(ctx, deg, alive, MG_OP_MIN, &least));
        if (least > k) k = least;
        TRY(mg_frontier_select(ctx, peel, alive, deg, MG_LE, k));
        TRY(mg_frontier_count(ctx, peel, &npeel));
        /* Peel at level k until no alive vertex has degree <= k; the loop above then raises k. */
        while (npeel > 0) {
            TRY(mg_vector_assign(ctx, core, peel, k));
            TRY(mg_vector_assign(ctx, peeled, peel, 1));
            TRY(mg_frontier_select(ctx, alive, alive, peeled, MG_EQ, 0));
            TRY(mg_advance(ctx, g, &lower, peel, minus_one, deg, alive, NULL));
            TRY(mg_frontier_select(ctx, peel, alive, deg, MG_LE, k));
            TRY(mg_frontier_count(ctx, peel, &npeel));
        }
        TRY(mg_frontier_count(ctx, alive, &left));
    }

    uint32_t n = mg_vector_size(core);
    got = malloc(n * sizeof *got);
    want = malloc(n * sizeof *want);
    if (got == NULL || want == NULL || serial_cores(g, n, want) != 0) {
        fprintf(stderr, "kcore: out of memory for the serial check\n");
        goto done;
    }
    TRY(mg_vector_extract(ctx, core, got));
    int32_t top = 0;
    uint32_t at_top = 0, bad = 0;
    for (uint32_t v = 0; v < n; v++) {
        if (got[v] != want[v] && bad++ == 0)
            fprintf(stderr, "kcore: vertex %u has core %d, the serial peeling says %d\n", v, got[v], want[v]);
        if (got[v] > top) top = got[v], at_top = 0;
        if (got[v] == top) at_top++;
    }
    printf("kcore: %u vertices, degeneracy %d (%u vertices in the %d-core)\n", n, top, at_top, top);
    printf("kcore: serial check %s\n", bad == 0 ? "PASS" : "FAIL");
    ok = bad == 0;
done:
    free(got);
    free(want);
    mg_frontier_free(&peel);
    mg_frontier_free(&alive);
    mg_vector_free(&peeled);
    mg_vector_free(&minus_one);
    mg_vector_free(&core);
    mg_vector_free(&deg);
    mg_graph_free(&g);
    mg_context_free(&ctx);
    return ok ? 0 : 1;
}
