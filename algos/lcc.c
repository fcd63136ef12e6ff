/*
 * lcc.c — the local clustering coefficient as LDBC Graphalytics defines it (the Graphalytics
 * specification, section "Local Clustering Coefficient"), over the masked SpGEMM.
 *
 * N(v) is v's neighbourhood in the undirected simple graph S underlying g (in- and out-neighbours,
 * v itself and repeats left out), d = |N(v)|. LCC(v) = arcs(v) / (d (d - 1)), 0 where d < 2, with
 * arcs(v) the arcs u -> w of the directed simple graph A with u, w in N(v). On an undirected graph
 * each edge among the neighbours is two arcs, so arcs(v) = 2 triangles(v) and LCC(v) =
 * triangles(v) / (d (d - 1) / 2): the undirected definition, computed from mg_triangle_count.
 * On a directed graph,
 *     P<S> = A S:   P(u, v) = sum_w A(u, w) S(w, v) = #{ w : u -> w, w ~ v }  for u ~ v,
 * so the column sum (P^T 1)(v) = sum over u in N(v) of #{ w in N(v) : u -> w } = arcs(v) (u != w:
 * A has no self loops; neither is v: S has none). d = (S 1)(v), S's row sums.
 */
#include "algo_util.h"

mg_status mg_lcc(mg_context ctx, const mg_graph g, mg_vector lcc) {
    mg_status status = MG_SUCCESS;
    mg_matrix S = NULL, A = NULL, P = NULL;
    mg_dense ones = NULL, arcs = NULL, degree = NULL;
    mg_vector triangles = NULL;
    double *numer = NULL, *d = NULL, *out = NULL;
    int64_t *count = NULL;

    TRY(mg__algo_check_whole_graph(ctx, g, "mg_lcc: g"));
    TRY(mg__algo_check_vector(ctx, g, lcc, MG_DOUBLE, "mg_lcc: lcc"));
    const uint32_t n = mg_graph_num_vertices(g);
    if (n == 0) goto cleanup;
    numer = mg__algo_malloc(n, sizeof *numer);
    d = mg__algo_malloc(n, sizeof *d);
    out = mg__algo_malloc(n, sizeof *out);
    if (numer == NULL || d == NULL || out == NULL)
        FAIL(ctx, MG_OUT_OF_MEMORY, "mg_lcc: out of memory for %u vertices", n);

    TRY(mg__algo_simple_matrix(ctx, g, MG__SIMPLE_SYMMETRIC, &S));
    TRY(mg_dense_create(ctx, &ones, n, 1, MG_DOUBLE));
    TRY(mg_dense_fill(ctx, ones, 1.0));
    TRY(mg_dense_create(ctx, &degree, n, 1, MG_DOUBLE));
    TRY(mg_spmv(ctx, S, ones, degree, NULL));
    TRY(mg_dense_extract(ctx, degree, d));
    if (mg_graph_is_directed(g)) {
        TRY(mg__algo_simple_matrix(ctx, g, MG__SIMPLE_DIRECTED, &A));
        mg_spgemm_options masked;
        mg_spgemm_options_init(&masked);
        masked.mask = S;
        TRY(mg_spgemm(ctx, A, S, &P, &masked));
        TRY(mg_dense_create(ctx, &arcs, n, 1, MG_DOUBLE));
        mg_spmv_options column_sums;
        mg_spmv_options_init(&column_sums);
        column_sums.transpose = true;
        TRY(mg_spmv(ctx, P, ones, arcs, &column_sums));
        TRY(mg_dense_extract(ctx, arcs, numer));
    } else {
        uint64_t total;
        count = mg__algo_malloc(n, sizeof *count);
        if (count == NULL) FAIL(ctx, MG_OUT_OF_MEMORY, "mg_lcc: out of memory for %u vertices", n);
        TRY(mg_vector_create(ctx, &triangles, g, MG_INT64));
        TRY(mg_triangle_count(ctx, g, &total, triangles));
        TRY(mg_vector_extract(ctx, triangles, count));
        for (uint32_t v = 0; v < n; v++) numer[v] = 2.0 * (double)count[v];
    }

    for (uint32_t v = 0; v < n; v++) out[v] = d[v] < 2 ? 0.0 : numer[v] / (d[v] * (d[v] - 1));
    TRY(mg_vector_load(ctx, lcc, out));

cleanup:
    mg_matrix_free(&S);
    mg_matrix_free(&A);
    mg_matrix_free(&P);
    mg_dense_free(&ones);
    mg_dense_free(&arcs);
    mg_dense_free(&degree);
    mg_vector_free(&triangles);
    mg__algo_free(numer);
    mg__algo_free(d);
    mg__algo_free(out);
    mg__algo_free(count);
    return status;
}
