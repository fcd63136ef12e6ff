/* colour.c — graph colouring by Jones-Plassmann (M. T. Jones and P. E. Plassmann, "A parallel graph
 * coloring heuristic", SIAM J. Sci. Comput. 14(3), 1993): every vertex holds a random priority; in
 * each round the uncoloured vertices whose priority beats all their uncoloured neighbours' (an
 * independent set) take the smallest colour none of their coloured neighbours has.
 *   usage: colour [GRAPH_FILE]   (the graph is taken as undirected; none: a generated one)
 * "The smallest colour not used" is no reduction the built-in programs have, so it is composed:
 * for c = 0, 1, ... one mg_advance from the vertices of colour c marks the round's winners next
 * to one, and the unmarked winners take c. Only built-in programs, so no compiler is needed.
 * A vertex is coloured only after all its higher-priority neighbours, so the result is exactly
 * the serial greedy colouring in decreasing priority; the example checks that, that no edge has
 * both ends of one colour and that every vertex is coloured. */
#include <stdint.h>
#include <stdlib.h>

#include "example.h"

/* 0 when colour[] is the greedy colouring by decreasing prio[], proper and complete. */
static int serial_check(const mg_graph g, uint32_t n, const int32_t *prio, const int32_t *colour) {
    const uint64_t *off;
    const uint32_t *adj;
    if (mg_graph_csr(g, &off, &adj, NULL) != MG_SUCCESS) return -1;
    uint32_t *by_prio = malloc((size_t)n * sizeof *by_prio);
    int32_t *greedy = malloc((size_t)n * sizeof *greedy);
    uint32_t *used = calloc((size_t)n + 1, sizeof *used); /* used[c] == v + 1: a neighbour of v has c */
    int bad = by_prio && greedy && used ? 0 : -1;
    for (uint32_t v = 0; bad == 0 && v < n; v++) {
        by_prio[n - 1 - (uint32_t)prio[v]] = v;
        greedy[v] = -1;
    }
    for (uint32_t i = 0; bad == 0 && i < n; i++) {
        uint32_t v = by_prio[i];
        for (uint64_t e = off[v]; e < off[v + 1]; e++)
            if (greedy[adj[e]] >= 0) used[greedy[adj[e]]] = v + 1;
        int32_t c = 0;
        while (used[c] == v + 1) c++;
        greedy[v] = c;
    }
    for (uint32_t v = 0; bad == 0 && v < n; v++) {
        uint32_t clash = v;
        for (uint64_t e = off[v]; e < off[v + 1]; e++)
            if (colour[adj[e]] == colour[v]) clash = adj[e];
        if (clash != v)
            fprintf(stderr, "colour: vertices %u and %u are neighbours of colour %d\n", v, clash,
                    colour[v]);
        else if (colour[v] < 0 || colour[v] != greedy[v])
            fprintf(stderr, "colour: vertex %u: colour %d, the greedy colouring's %d\n", v,
                    colour[v], greedy[v]);
        bad = clash != v || colour[v] < 0 || colour[v] != greedy[v];
    }
    free(by_prio);
    free(greedy);
    free(used);
    return bad;
}

int main(int argc, char **argv) {
    mg_context ctx = NULL;
    mg_graph g = NULL;
    mg_vector prio = NULL, best = NULL, margin = NULL, colour = NULL, one = NULL, hit = NULL;
    mg_frontier uncoloured = NULL, winners = NULL, pending = NULL, of_c = NULL, take = NULL;
    int32_t *perm = NULL, *got = NULL;
    int ok = 0;
    mg_status st = mg_context_create(&ctx);
    if (st != MG_SUCCESS) return 1;
    TRY(example_graph(ctx, argc > 1 ? argv[1] : NULL, true, &g));
    uint32_t n = 0;
    TRY(mg_vector_create(ctx, &prio, g, MG_INT32));
    n = mg_vector_size(prio);
    TRY(mg_vector_create(ctx, &best, g, MG_INT32));
    TRY(mg_vector_create(ctx, &margin, g, MG_INT32));
    TRY(mg_vector_create(ctx, &colour, g, MG_INT32));
    TRY(mg_vector_create(ctx, &one, g, MG_INT32));
    TRY(mg_vector_create(ctx, &hit, g, MG_INT32));
    TRY(mg_frontier_create(ctx, &uncoloured, g));
    TRY(mg_frontier_create(ctx, &winners, g));
    TRY(mg_frontier_create(ctx, &pending, g));
    TRY(mg_frontier_create(ctx, &of_c, g));
    TRY(mg_frontier_create(ctx, &take, g));
    /* Distinct priorities (a random permutation from a fixed seed), so that no two neighbours tie. */
    perm = malloc((size_t)n * sizeof *perm);
    got = malloc((size_t)n * sizeof *got);
    if (perm == NULL || got == NULL) {
        fprintf(stderr, "colour: out of memory\n");
        goto done;
    }
    TRY(mg_random_permutation(ctx, n, 42, (uint32_t *)perm));
    TRY(mg_vector_load(ctx, prio, perm));
    TRY(mg_vector_assign(ctx, colour, NULL, -1));
    TRY(mg_vector_assign(ctx, one, NULL, 1));
    TRY(mg_frontier_fill(ctx, uncoloured));

    /* best[d] = the largest priority among d's uncoloured neighbours (-1 when none). */
    mg_program neighbours_best;
    mg_program_init(&neighbours_best);
    neighbours_best.contribution = MG_CONTRIB_SRC;
    neighbours_best.combine = MG_COMBINE_MAX;
    neighbours_best.apply = MG_APPLY_MAX;
    /* hit[d] = 1 for the pending winners next to a vertex of the colour tried (x = one). */
    mg_program mark = neighbours_best;

    uint32_t left, rounds = 0;
    int32_t colours = 0;
    TRY(mg_frontier_count(ctx, uncoloured, &left));
    while (left > 0) {
        rounds++;
        TRY(mg_vector_assign(ctx, best, uncoloured, -1));
        TRY(mg_advance(ctx, g, &neighbours_best, uncoloured, prio, best, uncoloured, NULL));
        TRY(mg_vector_ewise(ctx, margin, uncoloured, MG_OP_SUB, prio, best));
        TRY(mg_frontier_select(ctx, winners, uncoloured, margin, MG_GT, 0));
        uint32_t count;
        TRY(mg_frontier_count(ctx, winners, &count));
        if (count == 0) { /* only a self loop (a vertex its own neighbour) stops every vertex */
            fprintf(stderr, "colour: no uncoloured vertex is a local maximum: a self loop?\n");
            goto done;
        }
        /* The winners are independent: each takes the least colour its coloured neighbours lack. */
        TRY(mg_frontier_copy(ctx, pending, winners));
        for (int32_t c = 0; count > 0; c++) {
            TRY(mg_frontier_select(ctx, of_c, NULL, colour, MG_EQ, c));
            TRY(mg_vector_assign(ctx, hit, pending, 0));
            TRY(mg_advance(ctx, g, &mark, of_c, one, hit, pending, NULL));
            TRY(mg_frontier_select(ctx, take, pending, hit, MG_EQ, 0));
            TRY(mg_vector_assign(ctx, colour, take, c));
            TRY(mg_frontier_select(ctx, pending, pending, hit, MG_NE, 0));
            TRY(mg_frontier_count(ctx, pending, &count));
            if (c + 1 > colours) colours = c + 1;
        }
        TRY(mg_frontier_select(ctx, uncoloured, uncoloured, colour, MG_LT, 0));
        TRY(mg_frontier_count(ctx, uncoloured, &left));
    }

    TRY(mg_vector_extract(ctx, colour, got));
    int bad = serial_check(g, n, perm, got);
    if (bad < 0) fprintf(stderr, "colour: out of memory for the serial check\n");
    printf("colour: %u vertices, %d colours after %u rounds\n", n, colours, rounds);
    printf("colour: serial check %s\n", bad == 0 ? "PASS" : "FAIL");
    ok = bad == 0;
done:
    free(perm);
    free(got);
    mg_frontier_free(&take);
    mg_frontier_free(&of_c);
    mg_frontier_free(&pending);
    mg_frontier_free(&winners);
    mg_frontier_free(&uncoloured);
    mg_vector_free(&hit);
    mg_vector_free(&one);
    mg_vector_free(&colour);
    mg_vector_free(&margin);
    mg_vector_free(&best);
    mg_vector_free(&prio);
    mg_graph_free(&g);
    mg_context_free(&ctx);
    return ok ? 0 : 1;
}
