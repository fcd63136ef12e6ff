/*
 * bench_spmv_cpu.c — y = A x on the CPU: mgraph's mg_spmv against SuiteSparse:GraphBLAS's GrB_mxv
 * (plus-times semiring), in fp32 and fp64, on the matrix set of bench_spmv_set.h (the real matrices
 * and generated ones of 1M to 50M nonzeros: what a 2-core, 24 GiB machine holds). Both run on the
 * same threads (mg_context_set_threads, GxB_NTHREADS and OpenMP's count set equal). GraphBLAS gets
 * the matrix in CSR (GxB_Matrix_pack_CSR: by row, sorted, then GrB_Matrix_wait), x as a full
 * vector, and its build and conversion are left out of the time, as mgraph's matrix build is. Each
 * is timed (omp_get_wtime) after one warm-up, the median of R runs, GrB_mxv followed by
 * GrB_Vector_wait so the time holds the finished product. Both results are validated with
 * mg_check_spmv against the serial double reference (so each agrees with the other within its
 * tolerance) before a row is printed. Built only where CMake finds GraphBLAS.
 *
 *   bench_spmv_cpu [--threads T] [set options]     (bench_spmv_cpu --help lists them)
 */
#define _POSIX_C_SOURCE 200809L
#define BENCH_NAME "bench_spmv_cpu"
#include "bench_common.h"

#include <omp.h>

#include "bench_spmv_set.h"
#include "bench_graphblas.h"

static const column kColumns[] = {
    {"matrix", false}, {"prec", false}, {"rows", true}, {"nnz", true}, {"MB", true},
    {"mgraph_ms", true}, {"graphblas_ms", true}, {"speedup", true}, {"mgraph_GFLOPs", true},
    {"mgraph_GBs", true}, {"graphblas_GBs", true}, {"graphblas_form", false},
};
enum { NCOLS = sizeof kColumns / sizeof kColumns[0] };

/* One matrix in one precision: a table row, and the speedup into g. */
static void bench_one(const set_entry *e, bool single, int runs, out_format fmt, geo *g) {
    const mg_type type = single ? MG_FLOAT : MG_DOUBLE;
    const size_t vs = single ? 4 : 8;
    mg_matrix A = NULL;
    set_load(e, single ? MG_VALUES_FLOAT : MG_VALUES_DOUBLE, &A);
    const uint32_t rows = mg_matrix_rows(A), cols = mg_matrix_cols(A);
    const uint64_t nnz = mg_matrix_nnz(A);
    void *hx = set_random_vector(cols, type, 42);
    double *t = xmalloc(sizeof(double) * (size_t)runs);

    mg_dense x = NULL, y = NULL, yg = NULL;
    DIE_IF(mg_dense_create(ctx, &x, cols, 1, type));
    DIE_IF(mg_dense_create(ctx, &y, rows, 1, type));
    DIE_IF(mg_dense_create(ctx, &yg, rows, 1, type));
    DIE_IF(mg_dense_load(ctx, x, hx));
    for (int r = -1; r < runs; r++) {
        const double t0 = omp_get_wtime();
        DIE_IF(mg_spmv(ctx, A, x, y, NULL));
        if (r >= 0) t[r] = omp_get_wtime() - t0;
    }
    const double ms_mg = median(t, runs) * 1e3;
    if (mg_check_spmv(ctx, A, x, NULL, y, NULL) != MG_SUCCESS) {
        fprintf(stderr, BENCH_NAME ": %s %s: mgraph's y is wrong: %s\n", e->name,
                single ? "fp32" : "fp64", mg_context_error(ctx));
        exit(1);
    }

    GrB_Matrix G = graphblas_matrix(A, single);
    GrB_Vector gx = NULL, gy = NULL;
    GRB_OK(GrB_Vector_new(&gx, single ? GrB_FP32 : GrB_FP64, cols));
    void *vx = xmalloc((size_t)cols * vs);
    memcpy(vx, hx, (size_t)cols * vs);
    GRB_OK(GxB_Vector_pack_Full(gx, &vx, (GrB_Index)cols * vs, false, NULL));
    GRB_OK(GrB_Vector_wait(gx, GrB_MATERIALIZE));
    GRB_OK(GrB_Vector_new(&gy, single ? GrB_FP32 : GrB_FP64, rows));
    const GrB_Semiring sr = single ? GrB_PLUS_TIMES_SEMIRING_FP32 : GrB_PLUS_TIMES_SEMIRING_FP64;
    for (int r = -1; r < runs; r++) {
        const double t0 = omp_get_wtime();
        GRB_OK(GrB_mxv(gy, NULL, NULL, sr, G, gx, NULL));
        GRB_OK(GrB_Vector_wait(gy, GrB_MATERIALIZE));
        if (r >= 0) t[r] = omp_get_wtime() - t0;
    }
    const double ms_grb = median(t, runs) * 1e3;
    int sparsity = 0;
    GRB_OK(GxB_Matrix_Option_get(G, GxB_SPARSITY_STATUS, &sparsity));

    /* GraphBLAS's y (empty rows have no entry: 0) through the same check */
    GrB_Index nvals = rows;
    GrB_Index *I = xmalloc(((size_t)rows + 1) * sizeof *I);
    void *X = xmalloc(((size_t)rows + 1) * vs), *dense = xmalloc(((size_t)rows + 1) * vs);
    memset(dense, 0, ((size_t)rows + 1) * vs);
    if (single) GRB_OK(GrB_Vector_extractTuples_FP32(I, X, &nvals, gy));
    else GRB_OK(GrB_Vector_extractTuples_FP64(I, X, &nvals, gy));
    for (GrB_Index k = 0; k < nvals; k++)
        memcpy((char *)dense + I[k] * vs, (char *)X + k * vs, vs);
    DIE_IF(mg_dense_load(ctx, yg, dense));
    if (mg_check_spmv(ctx, A, x, NULL, yg, NULL) != MG_SUCCESS) {
        fprintf(stderr, BENCH_NAME ": %s %s: GraphBLAS's y is wrong: %s\n", e->name,
                single ? "fp32" : "fp64", mg_context_error(ctx));
        exit(1);
    }

    const double bytes = spmv_min_bytes(A, vs);
    char v[NCOLS][64];
    table_row_head(v, e->name, single, A);
    snprintf(v[4], 64, "%.1f", bytes / 1e6);
    snprintf(v[5], 64, "%.3f", ms_mg);
    snprintf(v[6], 64, "%.3f", ms_grb);
    snprintf(v[7], 64, "%.2f", ms_grb / ms_mg);
    snprintf(v[8], 64, "%.2f", 2.0 * (double)nnz / (ms_mg * 1e6));
    snprintf(v[9], 64, "%.1f", bytes / (ms_mg * 1e6));
    snprintf(v[10], 64, "%.1f", bytes / (ms_grb * 1e6));
    snprintf(v[11], 64, "%s", sparsity_name(sparsity));
    table_row(fmt, "spmv_cpu", kColumns, NCOLS, v);
    fflush(stdout);
    geo_add(g, ms_grb / ms_mg, v[0]);

    GrB_Matrix_free(&G);
    GrB_Vector_free(&gx);
    GrB_Vector_free(&gy);
    free(vx); /* NULL once packed */
    free(I);
    free(X);
    free(dense);
    free(hx);
    free(t);
    mg_dense_free(&x);
    mg_dense_free(&y);
    mg_dense_free(&yg);
    mg_matrix_free(&A);
}

static void usage(FILE *f) {
    fprintf(f, "usage: " BENCH_NAME " [--threads T] [--real DIR | --no-real] [--min-graph-nnz N]\n"
               "       [--sizes LIST] [--kinds LIST] [--precision P] [--runs R] [--format F]\n"
               "mgraph's CPU mg_spmv against SuiteSparse:GraphBLAS GrB_mxv (plus-times) on the\n"
               "same threads; a table row per matrix and precision, then geometric means.\n"
               "  --threads T         threads for both (default: OpenMP's, all cores)\n" SET_USAGE
               "                      (default sizes: 1M,8M,32M)\n"
               "exit: 0 done, 1 an error or a wrong result, 2 a usage error\n");
}

int main(int argc, char **argv) {
    set_options o;
    set_options_init(&o, "1M,8M,32M");
    int threads = omp_get_max_threads();
    for (int i = 1; i < argc; i++) {
        const int tr = parse_threads(argc, argv, &i, &threads);
        if (tr == 2) return 2;
        if (tr == 1) continue;
        const int rc = set_parse_or_exit(argc, argv, &i, &o, usage);
        if (rc >= 0) return rc;
    }
    static set_entry set[SET_MAX];
    const int count = set_build(&o, set);
    if (count == 0) {
        fprintf(stderr, BENCH_NAME ": the set is empty (no real matrices and --kinds none)\n");
        return 2;
    }
    graphblas_start(threads);
    table_note(o.format, "CPU SpMV y = A x, plus-times: mgraph mg_spmv vs SuiteSparse:GraphBLAS %d.%d.%d "
               "GrB_mxv, %d threads each, median of %d runs after a warm-up; MB = the minimum bytes "
               "(CSR with 4-byte offsets, x read, y written); speedup = GraphBLAS ms / mgraph ms",
               GxB_IMPLEMENTATION_MAJOR, GxB_IMPLEMENTATION_MINOR, GxB_IMPLEMENTATION_SUB, threads,
               o.runs);
    table_header(o.format, kColumns, NCOLS);
    geo g[2] = {{0}};
    for (int i = 0; i < count; i++) {
        if (o.single) bench_one(&set[i], true, o.runs, o.format, &g[0]);
        if (o.dbl) bench_one(&set[i], false, o.runs, o.format, &g[1]);
    }
    for (int p = 0; p < 2; p++)
        if (g[p].count)
            table_note(o.format, "%s: geometric mean speedup %.2fx over %d matrices, least %.2fx (%s)",
                       p ? "fp64" : "fp32", geo_mean(&g[p]), g[p].count, g[p].min, g[p].min_name);
    GRB_OK(GrB_finalize());
    mg_context_free(&ctx);
    return 0;
}
