/* hits.c — HITS (Kleinberg's hubs and authorities): a vertex is a good authority when good hubs
 * point to it, and a good hub when it points to good authorities. Each iteration is two mg_advance
 * calls, one along the edges (authority = sum of the hubs pointing in) and one against them
 * (hub = sum of the authorities pointed at), each followed by scaling the scores to sum 1.
 *   usage: hits [GRAPH_FILE]   (none: a generated directed graph)
 * Checks itself against the same iteration run serially over the CSR. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "example.h"

#define TOLERANCE 1e-10
#define MAX_ITERATIONS 1000

/* v /= sum(v) (positive: the caller has seen an edge). */
static void normalise(double *v, uint32_t n) {
    double sum = 0;
    for (uint32_t i = 0; i < n; i++) sum += v[i];
    for (uint32_t i = 0; i < n; i++) v[i] /= sum;
}

/* hub and auth by the serial iteration; returns the iterations, or -1 (out of memory). */
static int serial_hits(const mg_graph g, uint32_t n, double *hub, double *auth) {
    const uint64_t *off;
    const uint32_t *adj;
    if (mg_graph_csr(g, &off, &adj, NULL) != MG_SUCCESS) return -1;
    double *old = malloc((size_t)n * sizeof *old);
    int it = old ? 0 : -1;
    for (uint32_t v = 0; it == 0 && v < n; v++) hub[v] = 1.0 / n;
    for (double change = 1; it >= 0 && it < MAX_ITERATIONS && change >= TOLERANCE; it++) {
        for (uint32_t v = 0; v < n; v++) auth[v] = 0, old[v] = hub[v];
        for (uint32_t s = 0; s < n; s++)
            for (uint64_t e = off[s]; e < off[s + 1]; e++) auth[adj[e]] += hub[s];
        normalise(auth, n);
        for (uint32_t s = 0; s < n; s++) {
            hub[s] = 0;
            for (uint64_t e = off[s]; e < off[s + 1]; e++) hub[s] += auth[adj[e]];
        }
        normalise(hub, n);
        change = 0;
        for (uint32_t v = 0; v < n; v++) change += fabs(hub[v] - old[v]);
    }
    free(old);
    return it;
}

/* v = v / sum(v) through the API; *sum = 0 (and v unchanged) when there is nothing to scale. */
static mg_status scale_to_one(mg_context ctx, mg_vector v, double *sum) {
    mg_status st = mg_vector_reduce(ctx, v, NULL, MG_OP_ADD, sum);
    if (st != MG_SUCCESS || *sum <= 0) return st;
    return mg_vector_affine(ctx, v, NULL, 1 / *sum, v, 0);
}

int main(int argc, char **argv) {
    mg_context ctx = NULL;
    mg_graph g = NULL;
    mg_vector hub = NULL, old_hub = NULL, auth = NULL;
    double *got_hub = NULL, *got_auth = NULL, *want_hub = NULL, *want_auth = NULL;
    int ok = 0;
    mg_status st = mg_context_create(&ctx);
    if (st != MG_SUCCESS) return 1;
    TRY(example_graph(ctx, argc > 1 ? argv[1] : NULL, false, &g));
    TRY(mg_vector_create(ctx, &hub, g, MG_DOUBLE));
    TRY(mg_vector_create(ctx, &old_hub, g, MG_DOUBLE));
    TRY(mg_vector_create(ctx, &auth, g, MG_DOUBLE));
    uint32_t n = mg_vector_size(hub);
    TRY(mg_vector_assign(ctx, hub, NULL, 1.0 / n));

    /* y[d] = sum of x[s] over the edges (s, d) (edges OUT) or (d, s) (edges IN), for every d. */
    mg_program sum_in;
    mg_program_init(&sum_in);
    sum_in.contribution = MG_CONTRIB_SRC;
    sum_in.combine = MG_COMBINE_SUM;
    sum_in.apply = MG_APPLY_AFFINE;
    mg_program sum_out = sum_in;
    sum_out.edges = MG_EDGES_IN;

    int it = 0;
    double change = 1, sum;
    for (; it < MAX_ITERATIONS && change >= TOLERANCE; it++) {
        TRY(mg_vector_affine(ctx, old_hub, NULL, 1, hub, 0));
        TRY(mg_advance(ctx, g, &sum_in, NULL, hub, auth, NULL, NULL));
        TRY(scale_to_one(ctx, auth, &sum));
        if (sum <= 0) {
            fprintf(stderr, "hits: the graph has no edges, so no vertex is a hub or an authority\n");
            goto done;
        }
        TRY(mg_advance(ctx, g, &sum_out, NULL, auth, hub, NULL, NULL));
        TRY(scale_to_one(ctx, hub, &sum));
        TRY(mg_vector_l1_distance(ctx, hub, old_hub, &change));
    }
    if (change >= TOLERANCE) {
        fprintf(stderr, "hits: no convergence in %d iterations (change %g)\n", it, change);
        goto done;
    }

    got_hub = malloc((size_t)n * sizeof *got_hub);
    got_auth = malloc((size_t)n * sizeof *got_auth);
    want_hub = malloc((size_t)n * sizeof *want_hub);
    want_auth = malloc((size_t)n * sizeof *want_auth);
    if (!got_hub || !got_auth || !want_hub || !want_auth) {
        fprintf(stderr, "hits: out of memory for the serial check\n");
        goto done;
    }
    TRY(mg_vector_extract(ctx, hub, got_hub));
    TRY(mg_vector_extract(ctx, auth, got_auth));
    int serial_it = serial_hits(g, n, want_hub, want_auth);
    uint32_t top_hub = 0, top_auth = 0;
    double worst = 0;
    for (uint32_t v = 0; v < n; v++) {
        if (got_hub[v] > got_hub[top_hub]) top_hub = v;
        if (got_auth[v] > got_auth[top_auth]) top_auth = v;
        worst = fmax(worst, fmax(fabs(got_hub[v] - want_hub[v]), fabs(got_auth[v] - want_auth[v])));
    }
    printf("hits: %u vertices, %d iterations; best hub %u (%.6f), best authority %u (%.6f)\n", n, it,
           top_hub, got_hub[top_hub], top_auth, got_auth[top_auth]);
    ok = serial_it == it && worst < 1e-8;
    printf("hits: serial check (%d iterations, largest difference %.2g) %s\n", serial_it, worst,
           ok ? "PASS" : "FAIL");
done:
    free(got_hub);
    free(got_auth);
    free(want_hub);
    free(want_auth);
    mg_vector_free(&auth);
    mg_vector_free(&old_hub);
    mg_vector_free(&hub);
    mg_graph_free(&g);
    mg_context_free(&ctx);
    return ok ? 0 : 1;
}
