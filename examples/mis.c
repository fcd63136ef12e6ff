/* mis.c — a maximal independent set by Luby's algorithm: every undecided vertex holds a random
 * priority; in each round the undecided vertices whose priority beats all their undecided
 * neighbours' join the set, and their neighbours drop out. One mg_advance finds the neighbours' best
 * priority, another knocks the winners' neighbours out.
 *   usage: mis [GRAPH_FILE]   (the graph is taken as undirected; none: a generated one)
 * With the priorities fixed, Luby's rounds pick exactly the set a serial greedy pass in decreasing
 * priority picks; the example checks that, and that the set is independent and maximal. */
#include <stdint.h>
#include <stdlib.h>

#include "example.h"

enum { UNDECIDED = 0, IN_SET = 1, OUT = 2 };

/* 0 when in_set[] is the greedy set by decreasing prio[] and is independent and maximal. */
static int serial_check(const mg_graph g, uint32_t n, const int32_t *prio, const int32_t *state) {
    const uint64_t *off;
    const uint32_t *adj;
    if (mg_graph_csr(g, &off, &adj, NULL) != MG_SUCCESS) return -1;
    uint32_t *by_prio = malloc((size_t)n * sizeof *by_prio);
    char *in_set = calloc(n, 1), *blocked = calloc(n, 1);
    int bad = by_prio && in_set && blocked ? 0 : -1;
    for (uint32_t v = 0; bad == 0 && v < n; v++) by_prio[n - 1 - (uint32_t)prio[v]] = v;
    for (uint32_t i = 0; bad == 0 && i < n; i++) {
        uint32_t v = by_prio[i];
        if (blocked[v]) continue;
        in_set[v] = 1;
        for (uint64_t e = off[v]; e < off[v + 1]; e++) blocked[adj[e]] = 1;
    }
    for (uint32_t v = 0; bad == 0 && v < n; v++) {
        int has_set_neighbour = 0;
        for (uint64_t e = off[v]; e < off[v + 1]; e++) has_set_neighbour |= state[adj[e]] == IN_SET;
        if ((state[v] == IN_SET) != in_set[v] || (state[v] == IN_SET && has_set_neighbour) ||
            (state[v] != IN_SET && !has_set_neighbour)) {
            fprintf(stderr, "mis: vertex %u: state %d, greedy %s, a neighbour in the set: %s\n", v,
                    state[v], in_set[v] ? "in" : "out", has_set_neighbour ? "yes" : "no");
            bad = 1;
        }
    }
    free(by_prio);
    free(in_set);
    free(blocked);
    return bad;
}

int main(int argc, char **argv) {
    mg_context ctx = NULL;
    mg_graph g = NULL;
    mg_vector prio = NULL, best = NULL, margin = NULL, state = NULL, knock = NULL;
    mg_frontier undecided = NULL, winners = NULL;
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
    TRY(mg_vector_create(ctx, &state, g, MG_INT32));
    TRY(mg_vector_create(ctx, &knock, g, MG_INT32));
    TRY(mg_frontier_create(ctx, &undecided, g));
    TRY(mg_frontier_create(ctx, &winners, g));
    /* Distinct priorities (a random permutation), so that no two neighbours tie. */
    perm = malloc((size_t)n * sizeof *perm);
    got = malloc((size_t)n * sizeof *got);
    if (perm == NULL || got == NULL) {
        fprintf(stderr, "mis: out of memory\n");
        goto done;
    }
    TRY(mg_random_permutation(ctx, n, 42, (uint32_t *)perm));
    TRY(mg_vector_load(ctx, prio, perm));
    TRY(mg_vector_assign(ctx, state, NULL, UNDECIDED));
    TRY(mg_vector_assign(ctx, knock, NULL, OUT));
    TRY(mg_frontier_fill(ctx, undecided));

    /* best[d] = the largest priority among d's undecided neighbours (-1 when none). */
    mg_program neighbours_best;
    mg_program_init(&neighbours_best);
    neighbours_best.contribution = MG_CONTRIB_SRC;
    neighbours_best.combine = MG_COMBINE_MAX;
    neighbours_best.apply = MG_APPLY_MAX;
    /* state[d] = OUT for the undecided neighbours of a winner. */
    mg_program knock_out = neighbours_best;

    uint32_t left, rounds = 0;
    TRY(mg_frontier_count(ctx, undecided, &left));
    while (left > 0) {
        rounds++;
        TRY(mg_vector_assign(ctx, best, undecided, -1));
        TRY(mg_advance(ctx, g, &neighbours_best, undecided, prio, best, undecided, NULL));
        TRY(mg_vector_ewise(ctx, margin, undecided, MG_OP_SUB, prio, best));
        TRY(mg_frontier_select(ctx, winners, undecided, margin, MG_GT, 0));
        TRY(mg_vector_assign(ctx, state, winners, IN_SET));
        TRY(mg_advance(ctx, g, &knock_out, winners, knock, state, undecided, NULL));
        TRY(mg_frontier_select(ctx, undecided, undecided, state, MG_EQ, UNDECIDED));
        TRY(mg_frontier_count(ctx, undecided, &left));
    }

    TRY(mg_vector_extract(ctx, state, got));
    uint32_t size = 0;
    for (uint32_t v = 0; v < n; v++) size += got[v] == IN_SET;
    int bad = serial_check(g, n, perm, got);
    if (bad < 0) fprintf(stderr, "mis: out of memory for the serial check\n");
    printf("mis: %u vertices, an independent set of %u after %u rounds\n", n, size, rounds);
    printf("mis: serial check %s\n", bad == 0 ? "PASS" : "FAIL");
    ok = bad == 0;
done:
    free(perm);
    free(got);
    mg_frontier_free(&winners);
    mg_frontier_free(&undecided);
    mg_vector_free(&knock);
    mg_vector_free(&state);
    mg_vector_free(&margin);
    mg_vector_free(&best);
    mg_vector_free(&prio);
    mg_graph_free(&g);
    mg_context_free(&ctx);
    return ok ? 0 : 1;
}
