/*
 * bench_spmm_cpu.c — C = A B on the CPU: mgraph's mg_spmm against SuiteSparse:GraphBLAS's GrB_mxm
 * with a dense B (plus-times semiring), in fp32 and fp64, for K = 32, 128 and 512 dense columns
 * (--ks), on the matrix set of bench_spmv_set.h (the real matrices and generated ones of 1M to 8M
 * nonzeros by default: with K = 512 a dense operand of 1M rows is 2-4 GB, and the machine this runs
 * on may have 24 GiB). Both run on the same threads (mg_context_set_threads, GxB_NTHREADS and
 * OpenMP's count set equal). GraphBLAS gets A in CSR (bench_graphblas.h) and B as a full matrix by
 * row (GxB_Matrix_pack_FullR), their conversion left out of the time as mgraph's matrix build is.
 * Each is timed (omp_get_wtime) after one warm-up, the median of R runs, GrB_mxm followed by
 * GrB_Matrix_wait so the time holds the finished product. Both results are checked with
 * mg_check_spmm against the serial double reference before a row is printed. A matrix and K whose
 * dense operands (B, mgraph's C, GraphBLAS's copies of both) would take more than --max-dense-gb
 * is skipped with a note. Built only where CMake finds GraphBLAS.
 *
 *   bench_spmm_cpu [--threads T] [--ks LIST] [--max-dense-gb G] [set options]   (--help lists them)
 */
#define _POSIX_C_SOURCE 200809L
#define BENCH_NAME "bench_spmm_cpu"
#include "bench_common.h"

#include <omp.h>

#include "bench_spmv_set.h"
#include "bench_graphblas.h"

static const column kColumns[] = {
    {"matrix", false},     {"prec", false},        {"K", true},           {"rows", true},
    {"nnz", true},         {"MB", true},           {"mgraph_ms", true},   {"graphblas_ms", true},
    {"speedup", true},     {"mgraph_GFLOPs", true}, {"mgraph_GBs", true}, {"graphblas_GFLOPs", true},
};
enum { NCOLS = sizeof kColumns / sizeof kColumns[0] };

static void check(const set_entry *e, bool single, uint32_t k, const char *who, const mg_matrix A,
                  const mg_dense B, const mg_dense C) {
    if (mg_check_spmm(ctx, A, B, NULL, C, NULL) != MG_SUCCESS) {
        fprintf(stderr, BENCH_NAME ": %s %s K %u: %s's C is wrong: %s\n", e->name,
                single ? "fp32" : "fp64", k, who, mg_context_error(ctx));
        exit(1);
    }
}

/* One matrix in one precision at one K: a table row, the speedup into g. */
static void bench_one(const set_entry *e, const mg_matrix A, GrB_Matrix G, uint32_t k, bool single,
                      int runs, double max_dense_gb, out_format fmt, geo *g) {
    const mg_type type = single ? MG_FLOAT : MG_DOUBLE;
    const size_t vs = single ? 4 : 8;
    const uint32_t rows = mg_matrix_rows(A), cols = mg_matrix_cols(A);
    const uint64_t nnz = mg_matrix_nnz(A);
    const size_t b_len = (size_t)cols * k, c_len = (size_t)rows * k;
    const double dense_gb = 2.0 * (double)(b_len + c_len) * vs / 1e9;
    if (dense_gb > max_dense_gb) {
        table_note(fmt, "%s %s K %u skipped: its dense operands take %.1f GB with GraphBLAS's "
                   "copies, over --max-dense-gb %.1f", e->name, single ? "fp32" : "fp64", k,
                   dense_gb, max_dense_gb);
        return;
    }
    void *hB = xmalloc(b_len * vs);
    uint64_t state = 42;
    for (size_t i = 0; i < b_len; i++) {
        const double v = set_value(&state); /* in [0.5, 1.5): never zero */
        if (single) ((float *)hB)[i] = (float)v;
        else ((double *)hB)[i] = v;
    }
    double *t = xmalloc(sizeof(double) * (size_t)runs);
    mg_dense B = NULL, C = NULL, Cg = NULL;
    DIE_IF(mg_dense_create(ctx, &B, cols, k, type));
    DIE_IF(mg_dense_create(ctx, &C, rows, k, type));
    DIE_IF(mg_dense_load(ctx, B, hB));
    for (int r = -1; r < runs; r++) {
        const double t0 = omp_get_wtime();
        DIE_IF(mg_spmm(ctx, A, B, C, NULL));
        if (r >= 0) t[r] = omp_get_wtime() - t0;
    }
    const double ms_mg = median(t, runs) * 1e3;
    check(e, single, k, "mgraph", A, B, C);

    GrB_Matrix gB = NULL, gC = NULL;
    const GrB_Type gt = single ? GrB_FP32 : GrB_FP64;
    GRB_OK(GrB_Matrix_new(&gB, gt, cols, k));
    void *vB = xmalloc(b_len * vs);
    memcpy(vB, hB, b_len * vs);
    GRB_OK(GxB_Matrix_pack_FullR(gB, &vB, (GrB_Index)(b_len * vs), false, NULL)); /* takes vB */
    GRB_OK(GrB_Matrix_wait(gB, GrB_MATERIALIZE));
    GRB_OK(GrB_Matrix_new(&gC, gt, rows, k));
    const GrB_Semiring sr = single ? GrB_PLUS_TIMES_SEMIRING_FP32 : GrB_PLUS_TIMES_SEMIRING_FP64;
    for (int r = -1; r < runs; r++) {
        const double t0 = omp_get_wtime();
        GRB_OK(GrB_mxm(gC, NULL, NULL, sr, G, gB, NULL));
        GRB_OK(GrB_Matrix_wait(gC, GrB_MATERIALIZE));
        if (r >= 0) t[r] = omp_get_wtime() - t0;
    }
    const double ms_grb = median(t, runs) * 1e3;

    /* GraphBLAS's C (an empty row of A leaves no entries: 0) through the same check */
    GrB_Index nvals = 0;
    GRB_OK(GrB_Matrix_nvals(&nvals, gC));
    GrB_Index *I = xmalloc((nvals + 1) * sizeof *I), *J = xmalloc((nvals + 1) * sizeof *J);
    void *X = xmalloc((nvals + 1) * vs), *dense = xmalloc(c_len * vs + vs);
    memset(dense, 0, c_len * vs + vs);
    if (single) GRB_OK(GrB_Matrix_extractTuples_FP32(I, J, X, &nvals, gC));
    else GRB_OK(GrB_Matrix_extractTuples_FP64(I, J, X, &nvals, gC));
    for (GrB_Index q = 0; q < nvals; q++)
        memcpy((char *)dense + (I[q] * k + J[q]) * vs, (char *)X + q * vs, vs);
    DIE_IF(mg_dense_create(ctx, &Cg, rows, k, type));
    DIE_IF(mg_dense_load(ctx, Cg, dense));
    check(e, single, k, "GraphBLAS", A, B, Cg);

    /* the fewest bytes: the CSR (4-byte offsets) once, B read once, C written once */
    const double bytes = (rows + 1.0) * 4 + (double)nnz * (4 + (double)vs) + (double)(b_len + c_len) * vs;
    const double flops = 2.0 * (double)nnz * k;
    char v[NCOLS][64];
    snprintf(v[0], 64, "%.63s", e->name);
    snprintf(v[1], 64, "%s", single ? "fp32" : "fp64");
    snprintf(v[2], 64, "%u", k);
    snprintf(v[3], 64, "%u", rows);
    snprintf(v[4], 64, "%llu", (unsigned long long)nnz);
    snprintf(v[5], 64, "%.1f", bytes / 1e6);
    snprintf(v[6], 64, "%.3f", ms_mg);
    snprintf(v[7], 64, "%.3f", ms_grb);
    snprintf(v[8], 64, "%.2f", ms_grb / ms_mg);
    snprintf(v[9], 64, "%.2f", flops / (ms_mg * 1e6));
    snprintf(v[10], 64, "%.1f", bytes / (ms_mg * 1e6));
    snprintf(v[11], 64, "%.2f", flops / (ms_grb * 1e6));
    table_row(fmt, "spmm_cpu", kColumns, NCOLS, v);
    fflush(stdout);
    geo_add(g, ms_grb / ms_mg, e->name);

    GrB_Matrix_free(&gB);
    GrB_Matrix_free(&gC);
    free(vB); /* NULL once packed */
    free(I);
    free(J);
    free(X);
    free(dense);
    free(hB);
    free(t);
    mg_dense_free(&B);
    mg_dense_free(&C);
    mg_dense_free(&Cg);
}

static void usage(FILE *f) {
    fprintf(f, "usage: " BENCH_NAME " [--threads T] [--ks LIST] [--max-dense-gb G] [--real DIR | --no-real]\n"
               "       [--min-graph-nnz N] [--sizes LIST] [--kinds LIST] [--precision P] [--runs R]\n"
               "       [--format F]\n"
               "mgraph's CPU mg_spmm against SuiteSparse:GraphBLAS GrB_mxm with a dense B (plus-times)\n"
               "on the same threads; a table row per matrix, precision and K, then geometric means.\n"
               "  --threads T         threads for both (default: OpenMP's, all cores)\n"
               "  --ks LIST           the dense columns K, e.g. 32,128,512 (default; each 1..1024)\n"
               "  --max-dense-gb G    skip a case whose dense operands take more (default 8)\n" SET_USAGE
               "                      (default sizes: 1M,8M)\n"
               "exit: 0 done, 1 an error or a wrong result, 2 a usage error\n");
}

int main(int argc, char **argv) {
    set_options o;
    set_options_init(&o, "1M,8M");
    int threads = omp_get_max_threads();
    uint32_t ks[SET_MAX_KS] = {32, 128, 512};
    int nks = 3;
    double max_dense_gb = 8;
    for (int i = 1; i < argc; i++) {
        const int tr = parse_threads(argc, argv, &i, &threads);
        if (tr == 2) return 2;
        if (tr == 1) continue;
        if (strcmp(argv[i], "--ks") == 0) {
            if (i + 1 >= argc || !parse_ks(argv[i + 1], ks, &nks)) {
                fprintf(stderr, BENCH_NAME ": --ks wants a list like 32,128,512 (each 1..1024, at "
                        "most %d)\n", SET_MAX_KS);
                return 2;
            }
            i++;
            continue;
        }
        if (strcmp(argv[i], "--max-dense-gb") == 0) {
            char *end = NULL;
            max_dense_gb = i + 1 < argc ? strtod(argv[++i], &end) : 0;
            if (end == NULL || *end != '\0' || !(max_dense_gb > 0)) {
                fprintf(stderr, BENCH_NAME ": --max-dense-gb %s: want a positive number\n",
                        end ? argv[i] : "(none)");
                return 2;
            }
            continue;
        }
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
    table_note(o.format, "CPU SpMM C = A B, B dense K columns, plus-times: mgraph mg_spmm vs "
               "SuiteSparse:GraphBLAS %d.%d.%d GrB_mxm, %d threads each, median of %d runs after a "
               "warm-up; MB = the minimum bytes (CSR with 4-byte offsets, B read, C written); "
               "GFLOPs = 2 nnz K / time; speedup = GraphBLAS ms / mgraph ms (goal >= 1.0x)",
               GxB_IMPLEMENTATION_MAJOR, GxB_IMPLEMENTATION_MINOR, GxB_IMPLEMENTATION_SUB, threads,
               o.runs);
    table_header(o.format, kColumns, NCOLS);
    geo g[2][SET_MAX_KS];
    memset(g, 0, sizeof g);
    for (int i = 0; i < count; i++)
        for (int p = 0; p < 2; p++) {
            const bool single = p == 0;
            if (single ? !o.single : !o.dbl) continue;
            mg_matrix A = NULL;
            set_load(&set[i], single ? MG_VALUES_FLOAT : MG_VALUES_DOUBLE, &A);
            GrB_Matrix G = graphblas_matrix(A, single);
            for (int j = 0; j < nks; j++)
                bench_one(&set[i], A, G, ks[j], single, o.runs, max_dense_gb, o.format, &g[p][j]);
            GrB_Matrix_free(&G);
            mg_matrix_free(&A);
        }
    for (int p = 0; p < 2; p++)
        for (int j = 0; j < nks; j++)
            if (g[p][j].count)
                table_note(o.format, "%s K %u: geometric mean speedup %.2fx over %d matrices (goal >= "
                           "1.0x), least %.2fx (%s)", p ? "fp64" : "fp32", ks[j], geo_mean(&g[p][j]),
                           g[p][j].count, g[p][j].min, g[p][j].min_name);
    GRB_OK(GrB_finalize());
    mg_context_free(&ctx);
    return 0;
}
