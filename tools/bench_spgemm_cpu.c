/*
 * bench_spgemm_cpu.c — sparse C = A A and C = A A^T on the CPU (plus-times, fp64): mgraph's
 * mg_spgemm against SuiteSparse:GraphBLAS's GrB_mxm (A^T through its descriptor GrB_DESC_T1), on the
 * matrix set of bench_spmv_set.h, both on the same threads. mgraph's A^T is built beforehand (as a
 * matrix from A's CSC), outside the time, as GraphBLAS's A is. Each is timed after one warm-up, the
 * median of R runs (GrB_mxm with GrB_Matrix_wait). Both results go through mg_check_spgemm (the
 * serial double reference: pattern and values) before a row is printed. Built only where CMake
 * finds GraphBLAS.
 *
 *   bench_spgemm_cpu [--threads T] [set options]   (--help lists them)
 */
#define _POSIX_C_SOURCE 200809L
#define BENCH_NAME "bench_spgemm_cpu"
#include "bench_common.h"

#include <omp.h>

#include "bench_spmv_set.h"
#include "bench_graphblas.h"

static const column kColumns[] = {
    {"matrix", false},   {"product", false},    {"rows", true},        {"nnz_A", true},
    {"nnz_C", true},     {"mgraph_ms", true},   {"graphblas_ms", true}, {"speedup", true},
    {"mgraph_GFLOPs", true},
};
enum { NCOLS = sizeof kColumns / sizeof kColumns[0] };

static void check(const set_entry *e, const char *what, const char *who, const mg_matrix A,
                  const mg_matrix B, const mg_matrix C) {
    if (mg_check_spgemm(ctx, A, B, C, NULL) != MG_SUCCESS) {
        fprintf(stderr, BENCH_NAME ": %s %s: %s's C is wrong: %s\n", e->name, what, who,
                mg_context_error(ctx));
        exit(1);
    }
}

/* A^T as a matrix of its own (A's CSC read as a CSR). */
static mg_matrix transpose(const mg_matrix A) {
    const uint64_t *off;
    const uint32_t *idx;
    const void *val;
    DIE_IF(mg_matrix_csc(ctx, A, &off, &idx, &val));
    const uint32_t cols = mg_matrix_cols(A);
    const uint64_t nnz = mg_matrix_nnz(A);
    uint32_t *r = xmalloc((nnz + 1) * sizeof *r);
    for (uint32_t j = 0; j < cols; j++)
        for (uint64_t e = off[j]; e < off[j + 1]; e++) r[e] = j;
    mg_matrix T = NULL;
    DIE_IF(mg_matrix_create_from_coo(ctx, &T, cols, mg_matrix_rows(A), nnz, r, idx, val,
                                     MG_VALUES_DOUBLE));
    free(r);
    return T;
}

static void bench_one(const set_entry *e, const mg_matrix A, const mg_matrix B, GrB_Matrix G,
                      bool transposed, int runs, out_format fmt, geo *g) {
    const char *what = transposed ? "A*A^T" : "A*A";
    double *t = xmalloc(sizeof(double) * (size_t)runs);
    mg_matrix C = NULL;
    for (int r = -1; r < runs; r++) {
        mg_matrix_free(&C);
        const double t0 = omp_get_wtime();
        DIE_IF(mg_spgemm(ctx, A, B, &C, NULL));
        if (r >= 0) t[r] = omp_get_wtime() - t0;
    }
    const double ms_mg = median(t, runs) * 1e3;
    check(e, what, "mgraph", A, B, C);

    const uint32_t rows = mg_matrix_rows(A), cols = mg_matrix_cols(B);
    GrB_Matrix gC = NULL;
    GRB_OK(GrB_Matrix_new(&gC, GrB_FP64, rows, cols));
    for (int r = -1; r < runs; r++) {
        const double t0 = omp_get_wtime();
        GRB_OK(GrB_mxm(gC, NULL, NULL, GrB_PLUS_TIMES_SEMIRING_FP64, G, G,
                       transposed ? GrB_DESC_T1 : NULL));
        GRB_OK(GrB_Matrix_wait(gC, GrB_MATERIALIZE));
        if (r >= 0) t[r] = omp_get_wtime() - t0;
    }
    const double ms_grb = median(t, runs) * 1e3;
    GrB_Index nvals = 0;
    GRB_OK(GrB_Matrix_nvals(&nvals, gC));
    GrB_Index *I = xmalloc((nvals + 1) * sizeof *I), *J = xmalloc((nvals + 1) * sizeof *J);
    double *X = xmalloc((nvals + 1) * sizeof *X);
    uint32_t *I32 = xmalloc((nvals + 1) * sizeof *I32), *J32 = xmalloc((nvals + 1) * sizeof *J32);
    GRB_OK(GrB_Matrix_extractTuples_FP64(I, J, X, &nvals, gC));
    for (GrB_Index q = 0; q < nvals; q++) {
        I32[q] = (uint32_t)I[q];
        J32[q] = (uint32_t)J[q];
    }
    mg_matrix Cg = NULL;
    DIE_IF(mg_matrix_create_from_coo(ctx, &Cg, rows, cols, nvals, I32, J32, X, MG_VALUES_DOUBLE));
    check(e, what, "GraphBLAS", A, B, Cg);

    /* multiply-adds: B's row length over A's entries */
    const uint64_t *ao, *bo;
    const uint32_t *ai;
    DIE_IF(mg_matrix_csr(A, &ao, &ai, NULL));
    DIE_IF(mg_matrix_csr(B, &bo, NULL, NULL));
    double madds = 0;
    for (uint64_t q = 0; q < mg_matrix_nnz(A); q++) madds += (double)(bo[ai[q] + 1] - bo[ai[q]]);
    char v[NCOLS][64];
    snprintf(v[0], 64, "%.63s", e->name);
    snprintf(v[1], 64, "%s", what);
    snprintf(v[2], 64, "%u", rows);
    snprintf(v[3], 64, "%llu", (unsigned long long)mg_matrix_nnz(A));
    snprintf(v[4], 64, "%llu", (unsigned long long)mg_matrix_nnz(C));
    snprintf(v[5], 64, "%.3f", ms_mg);
    snprintf(v[6], 64, "%.3f", ms_grb);
    snprintf(v[7], 64, "%.2f", ms_grb / ms_mg);
    snprintf(v[8], 64, "%.3f", 2 * madds / (ms_mg * 1e6));
    table_row(fmt, "spgemm_cpu", kColumns, NCOLS, v);
    fflush(stdout);
    geo_add(g, ms_grb / ms_mg, e->name);
    GrB_Matrix_free(&gC);
    free(I);
    free(J);
    free(X);
    free(I32);
    free(J32);
    free(t);
    mg_matrix_free(&C);
    mg_matrix_free(&Cg);
}

static void usage(FILE *f) {
    fprintf(f, "usage: " BENCH_NAME " [--threads T] [--real DIR | --no-real] [--min-graph-nnz N]\n"
               "       [--sizes LIST] [--kinds LIST] [--runs R] [--format F]\n"
               "mgraph's CPU mg_spgemm against SuiteSparse:GraphBLAS GrB_mxm, C = A A and A A^T\n"
               "(plus-times, fp64) on the same threads; a row per matrix and product, then\n"
               "geometric means.\n"
               "  --threads T         threads for both (default: OpenMP's, all cores)\n" SET_USAGE
               "                      (default sizes: 64K,256K)\n"
               "exit: 0 done, 1 an error or a wrong result, 2 a usage error\n");
}

int main(int argc, char **argv) {
    set_options o;
    set_options_init(&o, "64K,256K");
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
    table_note(o.format, "CPU SpGEMM C = A A and A A^T, plus-times fp64: mgraph mg_spgemm vs "
               "SuiteSparse:GraphBLAS %d.%d.%d GrB_mxm, %d threads each, median of %d runs after a "
               "warm-up; GFLOPs = 2 multiply-adds / time; speedup = GraphBLAS ms / mgraph ms "
               "(goal >= 1.0x)", GxB_IMPLEMENTATION_MAJOR, GxB_IMPLEMENTATION_MINOR,
               GxB_IMPLEMENTATION_SUB, threads, o.runs);
    table_header(o.format, kColumns, NCOLS);
    geo g[2];
    memset(g, 0, sizeof g);
    for (int i = 0; i < count; i++) {
        mg_matrix A = NULL;
        set_load(&set[i], MG_VALUES_DOUBLE, &A);
        GrB_Matrix G = graphblas_matrix(A, false);
        mg_matrix T = transpose(A);
        if (mg_matrix_rows(A) == mg_matrix_cols(A)) bench_one(&set[i], A, A, G, false, o.runs, o.format, &g[0]);
        bench_one(&set[i], A, T, G, true, o.runs, o.format, &g[1]);
        GrB_Matrix_free(&G);
        mg_matrix_free(&T);
        mg_matrix_free(&A);
    }
    for (int p = 0; p < 2; p++)
        if (g[p].count)
            table_note(o.format, "%s: geometric mean speedup %.2fx over %d matrices (goal >= 1.0x), "
                       "least %.2fx (%s)", p ? "A*A^T" : "A*A", geo_mean(&g[p]), g[p].count,
                       g[p].min, g[p].min_name);
    GRB_OK(GrB_finalize());
    mg_context_free(&ctx);
    return 0;
}
