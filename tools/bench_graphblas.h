/*
 * bench_graphblas.h — what the CPU benchmarks against SuiteSparse:GraphBLAS (bench_spmv_cpu.c,
 * bench_spmm_cpu.c, bench_spgemm_cpu.c) share: GRB_OK, which exits naming the call and line; the
 * --threads option and the start (mgraph's CPU context and GraphBLAS on the same threads); A as a
 * GraphBLAS matrix in CSR; the name of a matrix's sparsity form. Include after bench_common.h and
 * bench_spmv_set.h.
 */
#ifndef MG_BENCH_GRAPHBLAS_H
#define MG_BENCH_GRAPHBLAS_H

#include <GraphBLAS.h>

#define GRB_OK(call)                                                                               \
    do {                                                                                           \
        const GrB_Info i_ = (call);                                                                \
        if (i_ != GrB_SUCCESS) {                                                                   \
            fprintf(stderr, BENCH_NAME ": %s failed: GrB_Info %d (" BENCH_NAME ".c:%d)\n", #call,  \
                    (int)i_, __LINE__);                                                            \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

/* --threads T at argv[*i]: 1 when it is that option (taken, *threads set), 0 when it is another,
 * 2 (after a message) for a bad value. */
static int parse_threads(int argc, char **argv, int *i, int *threads) {
    if (strcmp(argv[*i], "--threads") != 0) return 0;
    char *end = NULL;
    const long t = *i + 1 < argc ? strtol(argv[++*i], &end, 10) : 0;
    if (end == NULL || *end != '\0' || t < 1 || t > 1024) {
        fprintf(stderr, BENCH_NAME ": --threads %s: want 1..1024\n", end ? argv[*i] : "(none)");
        return 2;
    }
    *threads = (int)t;
    return 1;
}

/* ctx on the CPU backend and GraphBLAS (CSR by row), both on `threads` threads. */
static void graphblas_start(int threads) {
    if (mg_context_create(&ctx) != MG_SUCCESS) exit(1);
    DIE_IF(mg_context_set_backend(ctx, MG_BACKEND_CPU));
    DIE_IF(mg_context_set_threads(ctx, threads));
    omp_set_num_threads(threads);
    GRB_OK(GrB_init(GrB_NONBLOCKING));
    GRB_OK(GxB_Global_Option_set(GxB_NTHREADS, threads));
    GRB_OK(GxB_Global_Option_set(GxB_FORMAT, GxB_BY_ROW));
}

/* GraphBLAS's copy of A: CSR by row with 64-bit column indices (its format), values as A's. */
static GrB_Matrix graphblas_matrix(const mg_matrix A, bool single) {
    const uint32_t rows = mg_matrix_rows(A), cols = mg_matrix_cols(A);
    const uint64_t nnz = mg_matrix_nnz(A);
    const uint64_t *off;
    const uint32_t *idx;
    const void *val;
    DIE_IF(mg_matrix_csr(A, &off, &idx, &val));
    const size_t vs = single ? 4 : 8;
    GrB_Index *Ap = xmalloc(((size_t)rows + 1) * sizeof *Ap), *Aj = xmalloc(nnz * sizeof *Aj);
    void *Ax = xmalloc(nnz * vs);
    memcpy(Ap, off, ((size_t)rows + 1) * 8);
#pragma omp parallel for schedule(static)
    for (uint64_t k = 0; k < nnz; k++) Aj[k] = idx[k];
    memcpy(Ax, val, nnz * vs);
    GrB_Matrix G = NULL;
    GRB_OK(GrB_Matrix_new(&G, single ? GrB_FP32 : GrB_FP64, rows, cols));
    GRB_OK(GxB_Matrix_Option_set(G, GxB_FORMAT, GxB_BY_ROW));
    /* takes the arrays (NULL afterwards) */
    GRB_OK(GxB_Matrix_pack_CSR(G, &Ap, &Aj, &Ax, ((GrB_Index)rows + 1) * sizeof(GrB_Index),
                            nnz * sizeof(GrB_Index), nnz * vs, false, false, NULL));
    GRB_OK(GrB_Matrix_wait(G, GrB_MATERIALIZE));
    return G;
}

static inline const char *sparsity_name(int s) {
    return s == GxB_HYPERSPARSE ? "hypersparse" : s == GxB_SPARSE ? "sparse" : s == GxB_BITMAP ? "bitmap"
         : s == GxB_FULL ? "full" : "?";
}

#endif
