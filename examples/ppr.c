/* ppr.c — personalized PageRank: a random walk that follows an out-edge with probability d (0.85)
 * and otherwise restarts at a vertex of the source set S, chosen uniformly; a walker at a vertex
 * without out-edges restarts too. Each iteration is one mg_advance (rank / out-degree, summed along
 * the edges, times d) and the restart mass, whatever the sum lacks of 1, added over S:
 *   x' = d A^T D^-1 x + (1 - sum(d A^T D^-1 x)) r,   r = 1/|S| on S, 0 elsewhere.
 *   usage: ppr [GRAPH_FILE [SOURCE...]]   (0-based vertex ids; default source 0; none: a generated
 *          directed graph)
 * Checks itself against the same iteration run serially over the CSR. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "example.h"

#define DAMPING 0.85
#define TOLERANCE 1e-10
#define MAX_ITERATIONS 1000

/* want = the serial iteration from r to TOLERANCE; returns the iterations, or -1 (out of memory). */
static int serial_ppr(const mg_graph g, uint32_t n, const double *r, double *want) {
    const uint64_t *off;
    const uint32_t *adj;
    if (mg_graph_csr(g, &off, &adj, NULL) != MG_SUCCESS) return -1;
    double *next = malloc((size_t)n * sizeof *next);
    int it = next ? 0 : -1;
    for (uint32_t v = 0; it == 0 && v < n; v++) want[v] = r[v];
    for (double change = 1; it >= 0 && it < MAX_ITERATIONS && change >= TOLERANCE; it++) {
        double sum = 0;
        for (uint32_t v = 0; v < n; v++) next[v] = 0;
        for (uint32_t s = 0; s < n; s++)
            for (uint64_t e = off[s]; e < off[s + 1]; e++)
                next[adj[e]] += DAMPING * want[s] / (double)(off[s + 1] - off[s]);
        for (uint32_t v = 0; v < n; v++) sum += next[v];
        change = 0;
        for (uint32_t v = 0; v < n; v++) {
            next[v] += (1 - sum) * r[v];
            change += fabs(next[v] - want[v]);
            want[v] = next[v];
        }
    }
    free(next);
    return it;
}

int main(int argc, char **argv) {
    mg_context ctx = NULL;
    mg_graph g = NULL;
    mg_vector rank = NULL, next = NULL, restart = NULL, scaled = NULL;
    double *r = NULL, *got = NULL, *want = NULL;
    int ok = 0;
    mg_status st = mg_context_create(&ctx);
    if (st != MG_SUCCESS) return 1;
    TRY(example_graph(ctx, argc > 1 ? argv[1] : NULL, false, &g));
    TRY(mg_vector_create(ctx, &rank, g, MG_DOUBLE));
    TRY(mg_vector_create(ctx, &next, g, MG_DOUBLE));
    TRY(mg_vector_create(ctx, &restart, g, MG_DOUBLE));
    TRY(mg_vector_create(ctx, &scaled, g, MG_DOUBLE));
    uint32_t n = mg_vector_size(rank);
    r = calloc(n, sizeof *r);
    got = malloc((size_t)n * sizeof *got);
    want = malloc((size_t)n * sizeof *want);
    if (r == NULL || got == NULL || want == NULL) {
        fprintf(stderr, "ppr: out of memory\n");
        goto done;
    }
    int nsources = argc > 2 ? argc - 2 : 1;
    for (int i = 0; i < nsources; i++) {
        char *end = NULL;
        unsigned long s = argc > 2 ? strtoul(argv[2 + i], &end, 10) : 0;
        if ((argc > 2 && (*end != '\0' || end == argv[2 + i])) || s >= n) {
            fprintf(stderr, "ppr: source '%s' is not a vertex id below %u\n", argv[2 + i], n);
            goto done;
        }
        r[s] = 1; /* a source named twice counts once */
    }
    double count = 0;
    for (uint32_t v = 0; v < n; v++) count += r[v];
    for (uint32_t v = 0; v < n; v++) r[v] /= count;
    TRY(mg_vector_load(ctx, restart, r));
    TRY(mg_vector_load(ctx, rank, r));

    /* next[d] = DAMPING * sum over in-edges (s, d) of rank[s] / outdeg(s), for every d. */
    mg_program walk;
    mg_program_init(&walk);
    walk.contribution = MG_CONTRIB_SRC_DIV_OUTDEG;
    walk.combine = MG_COMBINE_SUM;
    walk.apply = MG_APPLY_AFFINE;
    walk.alpha = DAMPING;
    walk.beta = 0;

    int it = 0;
    double change = 1, sum;
    for (; it < MAX_ITERATIONS && change >= TOLERANCE; it++) {
        TRY(mg_advance(ctx, g, &walk, NULL, rank, next, NULL, NULL));
        TRY(mg_vector_reduce(ctx, next, NULL, MG_OP_ADD, &sum));
        TRY(mg_vector_affine(ctx, scaled, NULL, 1 - sum, restart, 0));
        TRY(mg_vector_ewise(ctx, next, NULL, MG_OP_ADD, next, scaled));
        TRY(mg_vector_l1_distance(ctx, next, rank, &change));
        mg_vector swap = rank;
        rank = next, next = swap;
    }
    if (change >= TOLERANCE) {
        fprintf(stderr, "ppr: no convergence in %d iterations (change %g)\n", it, change);
        goto done;
    }

    TRY(mg_vector_extract(ctx, rank, got));
    int serial_it = serial_ppr(g, n, r, want);
    if (serial_it < 0) {
        fprintf(stderr, "ppr: out of memory for the serial check\n");
        goto done;
    }
    uint32_t top = 0;
    double worst = 0;
    for (uint32_t v = 0; v < n; v++) {
        if (got[v] > got[top]) top = v;
        if (fabs(got[v] - want[v]) > worst) worst = fabs(got[v] - want[v]);
    }
    printf("ppr: %u vertices, %d source(s), %d iterations; the highest rank %.6f at vertex %u\n", n,
           nsources, it, got[top], top);
    printf("ppr: serial check (%d iterations, largest difference %.2g) %s\n", serial_it, worst,
           worst < 1e-8 ? "PASS" : "FAIL");
    ok = worst < 1e-8;
done:
    free(r);
    free(got);
    free(want);
    mg_vector_free(&scaled);
    mg_vector_free(&restart);
    mg_vector_free(&next);
    mg_vector_free(&rank);
    mg_graph_free(&g);
    mg_context_free(&ctx);
    return ok ? 0 : 1;
}
