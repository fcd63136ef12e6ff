/*
 * tc.c — triangle counting over the masked SpGEMM (Azad, Buluc and Gilbert, "Parallel triangle
 * counting and enumeration using matrix algebra", 2015; Wolf et al., "Fast linear algebra-based
 * triangle counting with KokkosKernels", 2017).
 *
 * L is the strictly lower triangle of the undirected simple graph underlying g: L(i, j) = 1 for
 * each edge {i, j} with i > j. Then
 *     C<L> = L L:   C(i, j) = sum_k L(i, k) L(k, j) = #{ k : i > k > j, k ~ i, k ~ j } for i ~ j, i > j,
 * so each triangle {a < b < c} is counted exactly once, in C(c, a) through k = b, and the total
 * is the sum of C. Per vertex, C's row sums count each triangle at its largest vertex c and its
 * column sums at its smallest a; the middle vertex b is not in C's index, so a second product
 *     D<L> = L^T L: D(b, a) = sum_c L(c, b) L(c, a) = #{ c : c > b, c ~ b, c ~ a } for b ~ a, b > a
 * counts each triangle once, in D(b, a) through c, and D's row sums count it at b. Hence
 *     triangles(v) = (C 1)(v) + (C^T 1)(v) + (D 1)(v),
 * each triangle once at each of its three vertices; summed over v that is 3 x the total. The row
 * and column sums are SpMVs with a vector of ones, so every step runs on whatever the context's
 * backend provides. Counts are sums of ones in double: exact below 2^53.
 */
#include "algo_util.h"

mg_status mg_triangle_count(mg_context ctx, const mg_graph g, uint64_t *total, mg_vector per_vertex) {
    mg_status status = MG_SUCCESS;
    mg_matrix L = NULL, U = NULL, C = NULL, D = NULL;
    mg_dense ones = NULL, sums = NULL;
    double *host = NULL;
    int64_t *counts = NULL;

    TRY(mg__algo_check_whole_graph(ctx, g, "mg_triangle_count: g"));
    if (total == NULL) FAIL(ctx, MG_INVALID_ARGUMENT, "mg_triangle_count: total is NULL");
    if (per_vertex != NULL)
        TRY(mg__algo_check_vector(ctx, g, per_vertex, MG_INT64, "mg_triangle_count: per_vertex"));
    const uint32_t n = mg_graph_num_vertices(g);
    *total = 0;
    if (n == 0) goto cleanup;

    TRY(mg__algo_simple_matrix(ctx, g, MG__SIMPLE_LOWER, &L));
    mg_spgemm_options masked;
    mg_spgemm_options_init(&masked);
    masked.mask = L;
    TRY(mg_spgemm(ctx, L, L, &C, &masked));

    TRY(mg_dense_create(ctx, &ones, n, 1, MG_DOUBLE));
    TRY(mg_dense_fill(ctx, ones, 1.0));
    TRY(mg_dense_create(ctx, &sums, n, 1, MG_DOUBLE));
    TRY(mg_spmv(ctx, C, ones, sums, NULL));
    if (per_vertex != NULL) {
        TRY(mg__algo_simple_matrix(ctx, g, MG__SIMPLE_UPPER, &U));
        TRY(mg_spgemm(ctx, U, L, &D, &masked));
        mg_spmv_options add;
        mg_spmv_options_init(&add);
        add.beta = 1;
        TRY(mg_spmv(ctx, D, ones, sums, &add));
        add.transpose = true;
        TRY(mg_spmv(ctx, C, ones, sums, &add));
    }

    host = mg__algo_malloc(n, sizeof *host);
    if (host == NULL)
        FAIL(ctx, MG_OUT_OF_MEMORY, "mg_triangle_count: out of memory for %u vertices", n);
    TRY(mg_dense_extract(ctx, sums, host));
    double sum = 0;
    for (uint32_t v = 0; v < n; v++) sum += host[v];
    /* With per_vertex the sums hold every triangle three times, once at each vertex. */
    *total = (uint64_t)(per_vertex != NULL ? sum / 3 : sum);
    if (per_vertex != NULL) {
        counts = mg__algo_malloc(n, sizeof *counts);
        if (counts == NULL)
            FAIL(ctx, MG_OUT_OF_MEMORY, "mg_triangle_count: out of memory for %u vertices", n);
        for (uint32_t v = 0; v < n; v++) counts[v] = (int64_t)host[v];
        TRY(mg_vector_load(ctx, per_vertex, counts));
    }

cleanup:
    mg_matrix_free(&L);
    mg_matrix_free(&U);
    mg_matrix_free(&C);
    mg_matrix_free(&D);
    mg_dense_free(&ones);
    mg_dense_free(&sums);
    mg__algo_free(host);
    mg__algo_free(counts);
    return status;
}
