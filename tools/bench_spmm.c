/*
 * bench_spmm.c — C = A B and C = S .* (A B^T) on the GPU: mgraph's mg_spmm and mg_sddmm against
 * cuSPARSE (cusparseSpMM, cusparseSDDMM) in the same process, on the matrix set of bench_spmv_set.h,
 * for K = 32, 128 and 512 dense columns (--ks) in fp32 and fp64, with the device's measured read
 * bandwidth and FMA peak (mg_gpu_probe, once at the start) as the roofline.
 *
 * Per matrix, precision and K (B, and sddmm's A and B, random in [0.5, 1.5), row-major):
 *   mgraph     mg_matrix_gpu_prepare_spmm for the K first, on a matrix loaded for that K (its
 *              build, every device form the SpMM uses, is the preprocessing, reported with its
 *              ratio to one call, and the kernel it names), then mg_spmm / mg_sddmm on a GPU
 *              context, C left on the device;
 *   cuSPARSE   the same CSR (32-bit offsets and indices), B and C row-major: cusparseSpMM with
 *              CUSPARSE_SPMM_ALG_DEFAULT, CSR_ALG1, CSR_ALG2 and CSR_ALG3 (each after
 *              cusparseSpMM_preprocess, untimed; one the library refuses for these operands is
 *              named and left out); the best is the baseline, the default shown beside it; the
 *              blocked-ELL path (cusparseCreateBlockedEll, CUSPARSE_SPMM_BLOCKED_ELL_ALG1, blocks
 *              of 32) where it applies: when the blocked-ELL form, every block row padded to the
 *              fullest one's blocks, stores at most 4x the nonzeros. Of the generated set that is
 *              the block-diagonal matrices (full 32 x 32 blocks) and, by their width, the banded
 *              and Poisson 2D ones of small side; R-MAT, uniform, Poisson 3D and most real graphs
 *              scatter their entries over many blocks a row and are skipped (the row says "-").
 *              Its time counts toward the best as any algorithm's;
 *              cusparseSDDMM (CUSPARSE_SDDMM_ALG_DEFAULT, after its preprocess) with C the CSR of
 *              S's pattern: cuSPARSE samples on the pattern (C = A B^T .* spy(C)) while mg_sddmm
 *              also multiplies by S's values, one multiply per nonzero more for mgraph; its result
 *              is checked against S with every value 1.
 * Each is timed with CUDA events on the default stream around the call (the mgraph calls return
 * once queued; the stop event waits for them all the same), one warm-up, the median of R runs
 * (with --calls N a run is N calls back to back, its time over N: launch latency and host work
 * then overlap the previous call, as in a loop of products); C
 * is poisoned with NaN before the runs and every result, mgraph's and each cuSPARSE algorithm's,
 * is checked with mg_check_spmm / mg_check_sddmm against the serial double reference before its
 * row is printed (a wrong baseline fails the run too).
 *
 * Counts: flops 2 nnz K (both); bytes, the fewest a call moves: SpMM the CSR (4-byte offsets,
 * indices, values) once, B (cols x K) read once, C (rows x K) written once; SDDMM the CSR once, A
 * (rows x K) and B (cols x K) read once, C (nnz values) written once. The bound is the longer of
 * bytes / the probe's read bandwidth and flops / its FMA peak of the precision (column "bound":
 * bw or fma); pct_bound = that time / the measured time. Summaries: geometric mean speedups over
 * the best cuSPARSE per precision and K against the goals (SpMM fp32 >= 1.5x at K = 32 and
 * 128, no matrix below 0.9x; SDDMM >= 1.5x; preprocessing <= 5 calls).
 *
 * A matrix and K whose dense operands (mgraph's and cuSPARSE's copies) would not fit the device's
 * free memory is skipped with a note.
 *
 *   bench_spmm [--ks LIST] [--no-sddmm] [set options]     (--help lists them)
 * Exit 0 (also when no GPU can be used: it says it skipped), 1 on an error or a wrong result, 2 on
 * a usage error.
 */
#define _POSIX_C_SOURCE 200809L
#define BENCH_NAME "bench_spmm"
#include "bench_common.h"
#include "bench_spmv_set.h"

#ifdef MG_BENCH_CUSPARSE
#include "bench_cusparse.h"
#endif

/* Calls in one timed sample (--calls): 1 times each call alone, the GPU idle between the start
 * event and the call's first launch (the call's host work and launch latency counted); more puts
 * the calls back to back, as in a loop of products, and reports the sample's time over them. */
static int calls = 1;

static const column kSpmmColumns[] = {
    {"matrix", false},         {"prec", false},      {"K", true},          {"rows", true},
    {"nnz", true},             {"MB", true},         {"mgraph_ms", true},  {"cusparse_default_ms", true},
    {"cusparse_best_ms", true}, {"best_alg", false}, {"ell_ms", true},     {"speedup", true},
    {"GFLOPs", true},          {"bound", false},     {"pct_bound", true},  {"prep_ms", true},
    {"prep_per_call", true},   {"kernel", false},
};
enum { NSPMM = sizeof kSpmmColumns / sizeof kSpmmColumns[0] };

static const column kSddmmColumns[] = {
    {"matrix", false}, {"prec", false},  {"K", true},         {"rows", true},      {"nnz", true},
    {"MB", true},      {"mgraph_ms", true}, {"cusparse_ms", true}, {"speedup", true},
    {"GFLOPs", true},  {"bound", false}, {"pct_bound", true},
};
enum { NSDDMM = sizeof kSddmmColumns / sizeof kSddmmColumns[0] };

/* Summaries of one precision and K. */
typedef struct {
    geo spmm, sddmm;
    double worst_prep;
    char worst_prep_name[64];
} summary;

/* One measurement's roofline: the bound's time (ms) and its name. */
static double bound_ms(double bytes, double flops, bool single, const mg_gpu_probe_result *p,
                       const char **which) {
    const double bw = bytes / (p->read_gbs * 1e6);
    const double fma = flops / ((single ? p->fp32_gflops : p->fp64_gflops) * 1e6);
    *which = fma > bw ? "fma" : "bw";
    return fma > bw ? fma : bw;
}

/* A host rows x k array of random values in [0.5, 1.5) of the type (set_value's, never zero). */
static void *random_dense(uint32_t rows, uint32_t k, mg_type type, uint64_t seed) {
    const size_t n = (size_t)rows * k;
    void *x = xmalloc(n * (type == MG_FLOAT ? 4 : 8));
    uint64_t state = seed | 1;
    for (size_t i = 0; i < n; i++) {
        const double v = set_value(&state);
        if (type == MG_FLOAT) ((float *)x)[i] = (float)v;
        else ((double *)x)[i] = v;
    }
    return x;
}

/* mgraph's SpMM options: the defaults, or with --tf32 TF32 allowed (mg_check_spmm then holds
 * mgraph's float results to TF32's tolerance; cuSPARSE's are held to float's). */
static mg_spmm_options spmm_opts;

/* Whether C passes mg_check_spmm with opts (a wrong C is fatal unless `may_fail`, then false). */
static bool check_spmm_or(const set_entry *e, bool single, uint32_t k, const char *who,
                          const mg_matrix A, const mg_dense B, const mg_dense C,
                          const mg_spmm_options *opts, bool may_fail) {
    if (mg_check_spmm(ctx, A, B, NULL, C, opts) == MG_SUCCESS) return true;
    if (may_fail) {
        fprintf(stderr, BENCH_NAME ": %s %s K %u: %s's SpMM is outside the fp32 tolerance (%s): "
                "its time is marked * and left out of the best\n", e->name, single ? "fp32" : "fp64",
                k, who, mg_context_error(ctx));
        return false;
    }
    fprintf(stderr, BENCH_NAME ": %s %s K %u: %s's SpMM is wrong: %s\n", e->name,
            single ? "fp32" : "fp64", k, who, mg_context_error(ctx));
    exit(1);
}

static void check_spmm(const set_entry *e, bool single, uint32_t k, const char *who,
                       const mg_matrix A, const mg_dense B, const mg_dense C) {
    (void)check_spmm_or(e, single, k, who, A, B, C, strcmp(who, "mgraph") == 0 ? &spmm_opts : NULL,
                        false);
}

static void check_sddmm(const set_entry *e, bool single, uint32_t k, const char *who,
                        const mg_matrix S, const mg_dense A, const mg_dense B, const mg_dense C) {
    if (mg_check_sddmm(ctx, S, A, B, NULL, C, NULL) != MG_SUCCESS) {
        fprintf(stderr, BENCH_NAME ": %s %s K %u: %s's SDDMM is wrong: %s\n", e->name,
                single ? "fp32" : "fp64", k, who, mg_context_error(ctx));
        exit(1);
    }
}

/* The median ms of mg_spmm (sddmm false) or mg_sddmm on a GPU context, C poisoned first. */
static double time_mgraph(bool sddmm, const mg_matrix A, mg_dense L, mg_dense B, mg_dense C,
                          int runs, mg__gpu_timer *timer) {
    double ms[BENCH_MAX_RUNS];
    DIE_IF(mg_dense_fill(ctx, C, NAN));
    for (int r = -1; r < runs; r++) {
        DIE_IF(mg__gpu_timer_start(ctx, timer));
        for (int c = 0; c < calls; c++)
            DIE_IF(sddmm ? mg_sddmm(ctx, A, L, B, C, NULL) : mg_spmm(ctx, A, B, C, &spmm_opts));
        DIE_IF(mg__gpu_timer_stop(ctx, timer, r < 0 ? &ms[0] : &ms[r]));
        ms[r < 0 ? 0 : r] /= calls;
    }
    DIE_IF(mg_context_finish(ctx));
    return median(ms, runs);
}

#ifdef MG_BENCH_CUSPARSE

/* A's CSR on the device with 32-bit offsets and indices, as cuSPARSE takes it. */
typedef struct {
    void *d_rows, *d_cols, *d_vals;
} device_csr;

static void csr_upload(const set_entry *e, const mg_matrix A, size_t vs, device_csr *d) {
    const uint32_t rows = mg_matrix_rows(A);
    const uint64_t nnz = mg_matrix_nnz(A);
    if (nnz >= (1ull << 31)) {
        fprintf(stderr, BENCH_NAME ": %s: %llu entries: the cuSPARSE comparison uses 32-bit offsets\n",
                e->name, (unsigned long long)nnz);
        exit(1);
    }
    const uint64_t *off;
    const uint32_t *idx;
    const void *val;
    DIE_IF(mg_matrix_csr(A, &off, &idx, &val));
    int32_t *rows32 = xmalloc(((size_t)rows + 1) * 4);
    for (uint32_t i = 0; i <= rows; i++) rows32[i] = (int32_t)off[i];
    DIE_IF(mg__gpu_alloc(ctx, &d->d_rows, ((size_t)rows + 1) * 4));
    DIE_IF(mg__gpu_alloc(ctx, &d->d_cols, nnz * 4 + 4));
    DIE_IF(mg__gpu_alloc(ctx, &d->d_vals, nnz * vs + vs));
    DIE_IF(mg__gpu_copy_to_device(ctx, d->d_rows, rows32, ((size_t)rows + 1) * 4));
    DIE_IF(mg__gpu_copy_to_device(ctx, d->d_cols, idx, nnz * 4));
    DIE_IF(mg__gpu_copy_to_device(ctx, d->d_vals, val, nnz * vs));
    free(rows32);
}

static void csr_free(device_csr *d) {
    mg__gpu_free(d->d_rows);
    mg__gpu_free(d->d_cols);
    mg__gpu_free(d->d_vals);
}

/* Times one cusparseSpMM algorithm on (mA, mB, mC), d_C poisoned first: the median ms, or a
 * negative value when cuSPARSE refuses the algorithm for these operands. */
static double time_spmm_alg(cusparseHandle_t h, cusparseSpMatDescr_t mA, cusparseDnMatDescr_t mB,
                            cusparseDnMatDescr_t mC, void *d_C, size_t c_bytes, bool single,
                            cusparseSpMMAlg_t alg, int runs, mg__gpu_timer *timer) {
    const cudaDataType dt = single ? CUDA_R_32F : CUDA_R_64F;
    const float one_f = 1, zero_f = 0;
    const double one_d = 1, zero_d = 0;
    const void *alpha = single ? (const void *)&one_f : (const void *)&one_d;
    const void *beta = single ? (const void *)&zero_f : (const void *)&zero_d;
    const cusparseOperation_t nt = CUSPARSE_OPERATION_NON_TRANSPOSE;
    size_t bytes = 0;
    if (cusparseSpMM_bufferSize(h, nt, nt, alpha, mA, mB, beta, mC, dt, alg, &bytes) !=
        CUSPARSE_STATUS_SUCCESS)
        return -1;
    void *d_buf = NULL;
    DIE_IF(mg__gpu_alloc(ctx, &d_buf, bytes ? bytes : 8));
    if (cusparseSpMM_preprocess(h, nt, nt, alpha, mA, mB, beta, mC, dt, alg, d_buf) !=
        CUSPARSE_STATUS_SUCCESS) {
        mg__gpu_free(d_buf);
        return -1;
    }
    CUDA(cudaMemset(d_C, 0xff, c_bytes)); /* NaN: an unwritten entry fails the check */
    double ms[BENCH_MAX_RUNS];
    for (int r = -1; r < runs; r++) {
        DIE_IF(mg__gpu_timer_start(ctx, timer));
        for (int c = 0; c < calls; c++) CS(cusparseSpMM(h, nt, nt, alpha, mA, mB, beta, mC, dt, alg, d_buf));
        DIE_IF(mg__gpu_timer_stop(ctx, timer, r < 0 ? &ms[0] : &ms[r]));
        ms[r < 0 ? 0 : r] /= calls;
    }
    CUDA(cudaGetLastError());
    mg__gpu_free(d_buf);
    return median(ms, runs);
}

/* A's blocked-ELL form, blocks of ELL_BLOCK, when it stores at most ELL_MAX_FILL x the nonzeros
 * (see the banner); false when it does not apply. Rows and columns are padded to whole blocks. */
enum { ELL_BLOCK = 32, ELL_MAX_FILL = 4 };

static bool ell_build(const mg_matrix A, size_t vs, int32_t **col_ind, void **values,
                      uint32_t *ell_cols) {
    const uint32_t rows = mg_matrix_rows(A), cols = mg_matrix_cols(A);
    const uint64_t nnz = mg_matrix_nnz(A);
    const uint32_t brows = (rows + ELL_BLOCK - 1) / ELL_BLOCK, bcols = (cols + ELL_BLOCK - 1) / ELL_BLOCK;
    const uint64_t *off;
    const uint32_t *idx;
    const void *val;
    DIE_IF(mg_matrix_csr(A, &off, &idx, &val));
    /* the block columns of each block row, marked in `seen` (stamped by block row) */
    int64_t *seen = xmalloc((size_t)bcols * sizeof *seen);
    for (uint32_t j = 0; j < bcols; j++) seen[j] = -1;
    uint32_t widest = 0;
    for (uint32_t br = 0; br < brows; br++) {
        uint32_t count = 0;
        const uint32_t end = (br + 1) * ELL_BLOCK < rows ? (br + 1) * ELL_BLOCK : rows;
        for (uint32_t i = br * ELL_BLOCK; i < end; i++)
            for (uint64_t k = off[i]; k < off[i + 1]; k++)
                if (seen[idx[k] / ELL_BLOCK] != br) {
                    seen[idx[k] / ELL_BLOCK] = br;
                    count++;
                }
        if (count > widest) widest = count;
    }
    const double stored = (double)brows * widest * ELL_BLOCK * ELL_BLOCK;
    if (nnz == 0 || stored > ELL_MAX_FILL * (double)nnz) {
        free(seen);
        return false;
    }
    /* slot[j]: block column j's place in the current block row */
    int32_t *ind = xmalloc((size_t)brows * widest * sizeof *ind);
    char *v = xmalloc((size_t)(stored * vs));
    memset(v, 0, (size_t)(stored * vs));
    uint32_t *slot = xmalloc((size_t)bcols * sizeof *slot);
    for (uint32_t j = 0; j < bcols; j++) seen[j] = -1;
    const size_t row_len = (size_t)widest * ELL_BLOCK; /* values of one row of the ELL form */
    for (uint32_t br = 0; br < brows; br++) {
        uint32_t used = 0;
        const uint32_t end = (br + 1) * ELL_BLOCK < rows ? (br + 1) * ELL_BLOCK : rows;
        for (uint32_t i = br * ELL_BLOCK; i < end; i++)
            for (uint64_t k = off[i]; k < off[i + 1]; k++) {
                const uint32_t bj = idx[k] / ELL_BLOCK;
                if (seen[bj] != br) {
                    seen[bj] = br;
                    slot[bj] = used;
                    ind[(size_t)br * widest + used++] = (int32_t)bj;
                }
                const size_t at = (size_t)i * row_len + (size_t)slot[bj] * ELL_BLOCK + idx[k] % ELL_BLOCK;
                memcpy(v + at * vs, (const char *)val + k * vs, vs);
            }
        for (uint32_t s = used; s < widest; s++) ind[(size_t)br * widest + s] = -1;
    }
    free(seen);
    free(slot);
    *col_ind = ind;
    *values = v;
    *ell_cols = (uint32_t)row_len;
    return true;
}

/* The blocked-ELL SpMM's median ms (negative: it does not apply, or cuSPARSE refuses it); its C
 * checked: in fp32 cuSPARSE runs it on TF32 tensor cores (measured on the H100: 1e-4 relative
 * error, ten times mg_check_spmm's fp32 tolerance), and such a result sets *inexact instead of
 * stopping the run. hB: B's values (cols x k). */
static double time_ell(const set_entry *e, const mg_matrix A, const mg_dense B, const void *hB,
                       uint32_t k, bool single, int runs, mg__gpu_timer *timer, bool *inexact) {
    *inexact = false;
    const size_t vs = single ? 4 : 8;
    const uint32_t rows = mg_matrix_rows(A), cols = mg_matrix_cols(A);
    int32_t *ind = NULL;
    void *vals = NULL;
    uint32_t ell_cols = 0;
    if (!ell_build(A, vs, &ind, &vals, &ell_cols)) return -1;
    const uint32_t prow = (rows + ELL_BLOCK - 1) / ELL_BLOCK * ELL_BLOCK;
    const uint32_t pcol = (cols + ELL_BLOCK - 1) / ELL_BLOCK * ELL_BLOCK;
    const size_t n_ind = (size_t)(prow / ELL_BLOCK) * (ell_cols / ELL_BLOCK);
    void *d_ind = NULL, *d_vals = NULL, *d_B = NULL, *d_C = NULL;
    DIE_IF(mg__gpu_alloc(ctx, &d_ind, n_ind * 4));
    DIE_IF(mg__gpu_alloc(ctx, &d_vals, (size_t)prow * ell_cols * vs));
    DIE_IF(mg__gpu_alloc(ctx, &d_B, (size_t)pcol * k * vs));
    DIE_IF(mg__gpu_alloc(ctx, &d_C, (size_t)prow * k * vs));
    DIE_IF(mg__gpu_copy_to_device(ctx, d_ind, ind, n_ind * 4));
    DIE_IF(mg__gpu_copy_to_device(ctx, d_vals, vals, (size_t)prow * ell_cols * vs));
    CUDA(cudaMemset(d_B, 0, (size_t)pcol * k * vs));
    DIE_IF(mg__gpu_copy_to_device(ctx, d_B, hB, (size_t)cols * k * vs));
    free(ind);
    free(vals);
    const cudaDataType dt = single ? CUDA_R_32F : CUDA_R_64F;
    cusparseHandle_t h;
    cusparseSpMatDescr_t mA;
    cusparseDnMatDescr_t mB, mC;
    CS(cusparseCreate(&h));
    CS(cusparseCreateBlockedEll(&mA, prow, pcol, ELL_BLOCK, ell_cols, d_ind, d_vals,
                                CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, dt));
    CS(cusparseCreateDnMat(&mB, pcol, k, k, d_B, dt, CUSPARSE_ORDER_ROW));
    CS(cusparseCreateDnMat(&mC, prow, k, k, d_C, dt, CUSPARSE_ORDER_ROW));
    const double ms = time_spmm_alg(h, mA, mB, mC, d_C, (size_t)prow * k * vs, single,
                                    CUSPARSE_SPMM_BLOCKED_ELL_ALG1, runs, timer);
    if (ms >= 0) {
        void *hC = xmalloc((size_t)rows * k * vs);
        mg_dense Cc = NULL;
        DIE_IF(mg__gpu_copy_to_host(ctx, hC, d_C, (size_t)rows * k * vs));
        DIE_IF(mg_dense_create(ctx, &Cc, rows, k, single ? MG_FLOAT : MG_DOUBLE));
        DIE_IF(mg_dense_load(ctx, Cc, hC));
        *inexact = !check_spmm_or(e, single, k, "cuSPARSE blocked-ELL", A, B, Cc, NULL, single);
        mg_dense_free(&Cc);
        free(hC);
    }
    CS(cusparseDestroySpMat(mA));
    CS(cusparseDestroyDnMat(mB));
    CS(cusparseDestroyDnMat(mC));
    CS(cusparseDestroy(h));
    mg__gpu_free(d_ind);
    mg__gpu_free(d_vals);
    mg__gpu_free(d_B);
    mg__gpu_free(d_C);
    return ms;
}

/* cusparseSpMM on A's CSR with each algorithm: the default's median ms, the best's and its name
 * (refused algorithms named on stderr); each result checked. hB: B's values (cols x k). */
static void time_cusparse_spmm(const set_entry *e, const mg_matrix A, const mg_dense B,
                               const void *hB, uint32_t k, bool single, int runs,
                               mg__gpu_timer *timer, double *ms_default, double *ms_best,
                               const char **best) {
    const uint32_t rows = mg_matrix_rows(A), cols = mg_matrix_cols(A);
    const size_t vs = single ? 4 : 8;
    const cudaDataType dt = single ? CUDA_R_32F : CUDA_R_64F;
    device_csr d;
    csr_upload(e, A, vs, &d);
    void *d_B = NULL, *d_C = NULL;
    DIE_IF(mg__gpu_alloc(ctx, &d_B, (size_t)cols * k * vs + vs));
    DIE_IF(mg__gpu_alloc(ctx, &d_C, (size_t)rows * k * vs + vs));
    DIE_IF(mg__gpu_copy_to_device(ctx, d_B, hB, (size_t)cols * k * vs));
    void *hC = xmalloc((size_t)rows * k * vs + vs);
    mg_dense Cc = NULL;
    DIE_IF(mg_dense_create(ctx, &Cc, rows, k, single ? MG_FLOAT : MG_DOUBLE));
    cusparseHandle_t h;
    cusparseSpMatDescr_t mA;
    cusparseDnMatDescr_t mB, mC;
    CS(cusparseCreate(&h));
    CS(cusparseCreateCsr(&mA, rows, cols, (int64_t)mg_matrix_nnz(A), d.d_rows, d.d_cols, d.d_vals,
                         CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, dt));
    CS(cusparseCreateDnMat(&mB, cols, k, k, d_B, dt, CUSPARSE_ORDER_ROW));
    CS(cusparseCreateDnMat(&mC, rows, k, k, d_C, dt, CUSPARSE_ORDER_ROW));
    static const cusparseSpMMAlg_t algs[] = {CUSPARSE_SPMM_ALG_DEFAULT, CUSPARSE_SPMM_CSR_ALG1,
                                             CUSPARSE_SPMM_CSR_ALG2, CUSPARSE_SPMM_CSR_ALG3};
    static const char *const names[] = {"default", "csr_alg1", "csr_alg2", "csr_alg3"};
    *ms_best = INFINITY;
    for (int a = 0; a < 4; a++) {
        const double t = time_spmm_alg(h, mA, mB, mC, d_C, (size_t)rows * k * vs, single, algs[a],
                                       runs, timer);
        if (t < 0) {
            fprintf(stderr, BENCH_NAME ": %s %s K %u: cuSPARSE refuses SpMM %s for row-major "
                    "operands: left out\n", e->name, single ? "fp32" : "fp64", k, names[a]);
            continue;
        }
        DIE_IF(mg__gpu_copy_to_host(ctx, hC, d_C, (size_t)rows * k * vs));
        DIE_IF(mg_dense_load(ctx, Cc, hC));
        char who[64];
        snprintf(who, sizeof who, "cuSPARSE %s", names[a]);
        check_spmm(e, single, k, who, A, B, Cc);
        if (a == 0) *ms_default = t;
        if (t < *ms_best) {
            *ms_best = t;
            *best = names[a];
        }
    }
    CS(cusparseDestroySpMat(mA));
    CS(cusparseDestroyDnMat(mB));
    CS(cusparseDestroyDnMat(mC));
    CS(cusparseDestroy(h));
    mg_dense_free(&Cc);
    free(hC);
    csr_free(&d);
    mg__gpu_free(d_B);
    mg__gpu_free(d_C);
}

/* cusparseSDDMM on S's pattern: its median ms; its C checked against S with values 1 (cuSPARSE
 * samples the pattern, see the banner). hL, hB: A (rows x k) and B (cols x k). */
static double time_cusparse_sddmm(const set_entry *e, const mg_matrix S, const mg_dense L,
                                  const mg_dense B, const void *hL, const void *hB, uint32_t k,
                                  bool single, int runs, mg__gpu_timer *timer) {
    const uint32_t rows = mg_matrix_rows(S), cols = mg_matrix_cols(S);
    const uint64_t nnz = mg_matrix_nnz(S);
    const size_t vs = single ? 4 : 8;
    const mg_type type = single ? MG_FLOAT : MG_DOUBLE;
    const cudaDataType dt = single ? CUDA_R_32F : CUDA_R_64F;
    device_csr d;
    csr_upload(e, S, vs, &d);
    void *d_L = NULL, *d_B = NULL, *d_buf = NULL;
    DIE_IF(mg__gpu_alloc(ctx, &d_L, (size_t)rows * k * vs + vs));
    DIE_IF(mg__gpu_alloc(ctx, &d_B, (size_t)cols * k * vs + vs));
    DIE_IF(mg__gpu_copy_to_device(ctx, d_L, hL, (size_t)rows * k * vs));
    DIE_IF(mg__gpu_copy_to_device(ctx, d_B, hB, (size_t)cols * k * vs));
    cusparseHandle_t h;
    cusparseSpMatDescr_t mC;
    cusparseDnMatDescr_t mL, mB;
    CS(cusparseCreate(&h));
    CS(cusparseCreateCsr(&mC, rows, cols, (int64_t)nnz, d.d_rows, d.d_cols, d.d_vals,
                         CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, dt));
    CS(cusparseCreateDnMat(&mL, rows, k, k, d_L, dt, CUSPARSE_ORDER_ROW));
    /* B^T as a k x cols column-major matrix: the same memory as B row-major */
    CS(cusparseCreateDnMat(&mB, k, cols, k, d_B, dt, CUSPARSE_ORDER_COL));
    const float one_f = 1, zero_f = 0;
    const double one_d = 1, zero_d = 0;
    const void *alpha = single ? (const void *)&one_f : (const void *)&one_d;
    const void *beta = single ? (const void *)&zero_f : (const void *)&zero_d;
    const cusparseOperation_t nt = CUSPARSE_OPERATION_NON_TRANSPOSE;
    size_t bytes = 0;
    CS(cusparseSDDMM_bufferSize(h, nt, nt, alpha, mL, mB, beta, mC, dt, CUSPARSE_SDDMM_ALG_DEFAULT,
                                &bytes));
    DIE_IF(mg__gpu_alloc(ctx, &d_buf, bytes ? bytes : 8));
    CS(cusparseSDDMM_preprocess(h, nt, nt, alpha, mL, mB, beta, mC, dt, CUSPARSE_SDDMM_ALG_DEFAULT,
                                d_buf));
    CUDA(cudaMemset(d.d_vals, 0xff, nnz * vs)); /* NaN: an unwritten entry fails the check */
    double ms[BENCH_MAX_RUNS];
    for (int r = -1; r < runs; r++) {
        DIE_IF(mg__gpu_timer_start(ctx, timer));
        for (int c = 0; c < calls; c++)
            CS(cusparseSDDMM(h, nt, nt, alpha, mL, mB, beta, mC, dt, CUSPARSE_SDDMM_ALG_DEFAULT, d_buf));
        DIE_IF(mg__gpu_timer_stop(ctx, timer, r < 0 ? &ms[0] : &ms[r]));
        ms[r < 0 ? 0 : r] /= calls;
    }
    CUDA(cudaGetLastError());
    /* the check: C against S with values 1 */
    void *hC = xmalloc(nnz * vs + vs), *ones = xmalloc(nnz * vs + vs);
    for (uint64_t i = 0; i < nnz; i++) {
        if (single) ((float *)ones)[i] = 1;
        else ((double *)ones)[i] = 1;
    }
    mg_dense Cc = NULL, On = NULL;
    mg_matrix S1 = NULL;
    DIE_IF(mg__gpu_copy_to_host(ctx, hC, d.d_vals, nnz * vs));
    DIE_IF(mg_dense_create(ctx, &Cc, (uint32_t)nnz, 1, type));
    DIE_IF(mg_dense_load(ctx, Cc, hC));
    DIE_IF(mg_dense_create(ctx, &On, (uint32_t)nnz, 1, type));
    DIE_IF(mg_dense_load(ctx, On, ones));
    DIE_IF(mg_matrix_with_values(ctx, S, On, &S1));
    check_sddmm(e, single, k, "cuSPARSE", S1, L, B, Cc);
    mg_matrix_free(&S1);
    mg_dense_free(&Cc);
    mg_dense_free(&On);
    free(hC);
    free(ones);
    CS(cusparseDestroySpMat(mC));
    CS(cusparseDestroyDnMat(mL));
    CS(cusparseDestroyDnMat(mB));
    CS(cusparseDestroy(h));
    csr_free(&d);
    mg__gpu_free(d_L);
    mg__gpu_free(d_B);
    mg__gpu_free(d_buf);
    return median(ms, runs);
}
#endif

/* The device memory one K needs beside the matrix: mgraph's B, C, sddmm's A, B and C, and
 * cuSPARSE's copies of them (twice, for the blocked-ELL padding and its C). */
static double dense_bytes(const mg_matrix A, uint32_t k, size_t vs) {
    const double rows = mg_matrix_rows(A), cols = mg_matrix_cols(A);
    return 2.0 * (2.0 * (rows + cols) * k * vs + (double)mg_matrix_nnz(A) * vs) * 2.0;
}

/* One matrix in one precision at one K: the SpMM row, the SDDMM row, the summaries. */
static void bench_one(const set_entry *e, const mg_matrix A, const mg_gpu_matrix_info *info,
                      uint32_t k, bool single, bool sddmm, int runs, out_format fmt,
                      const mg_gpu_probe_result *probe, mg__gpu_timer *timer, summary *s) {
    const mg_type type = single ? MG_FLOAT : MG_DOUBLE;
    const size_t vs = single ? 4 : 8;
    const uint32_t rows = mg_matrix_rows(A), cols = mg_matrix_cols(A);
    const uint64_t nnz = mg_matrix_nnz(A);
    mg__gpu_info gi;
    DIE_IF(mg__gpu_query(ctx, 0, &gi));
    if (dense_bytes(A, k, vs) > 0.9 * (double)gi.free_memory) {
        table_note(fmt, "%s %s K %u skipped: its dense operands (%.1f GB with cuSPARSE's copies) "
                   "would not fit the device's %.1f GB free", e->name, single ? "fp32" : "fp64", k,
                   dense_bytes(A, k, vs) / 1e9, gi.free_memory / 1e9);
        return;
    }
    void *hB = random_dense(cols, k, type, 42), *hL = random_dense(rows, k, type, 7);
    mg_dense B = NULL, C = NULL, L = NULL, Cs = NULL;
    DIE_IF(mg_dense_create(ctx, &B, cols, k, type));
    DIE_IF(mg_dense_create(ctx, &C, rows, k, type));
    DIE_IF(mg_dense_load(ctx, B, hB));
    const double flops = 2.0 * (double)nnz * k;
    const double csr = (rows + 1.0) * 4 + (double)nnz * (4 + (double)vs);

    const double ms_mg = time_mgraph(false, A, NULL, B, C, runs, timer);
    check_spmm(e, single, k, "mgraph", A, B, C);
    double ms_default = NAN, ms_best = NAN, ms_ell = -1;
    bool ell_inexact = false;
    const char *best = "-";
#ifdef MG_BENCH_CUSPARSE
    time_cusparse_spmm(e, A, B, hB, k, single, runs, timer, &ms_default, &ms_best, &best);
    ms_ell = time_ell(e, A, B, hB, k, single, runs, timer, &ell_inexact);
    if (ms_ell >= 0 && !ell_inexact && ms_ell < ms_best) {
        ms_best = ms_ell;
        best = "blocked_ell";
    }
#endif
    const char *bound = NULL;
    double bytes = csr + ((double)cols + rows) * k * vs;
    double t_bound = bound_ms(bytes, flops, single, probe, &bound);
    const double speedup = ms_best / ms_mg, prep_ratio = info->seconds * 1e3 / ms_mg;
    char v[NSPMM][64];
    snprintf(v[0], 64, "%.63s", e->name);
    snprintf(v[1], 64, "%s", single ? "fp32" : "fp64");
    snprintf(v[2], 64, "%u", k);
    snprintf(v[3], 64, "%u", rows);
    snprintf(v[4], 64, "%llu", (unsigned long long)nnz);
    snprintf(v[5], 64, "%.1f", bytes / 1e6);
    snprintf(v[6], 64, "%.4f", ms_mg);
    snprintf(v[7], 64, "%.4f", ms_default);
    snprintf(v[8], 64, "%.4f", ms_best);
    snprintf(v[9], 64, "%s", best);
    if (ms_ell >= 0) snprintf(v[10], 64, "%.4f%s", ms_ell, ell_inexact ? "*" : "");
    else snprintf(v[10], 64, "-");
    snprintf(v[11], 64, "%.2f", speedup);
    snprintf(v[12], 64, "%.1f", flops / (ms_mg * 1e6));
    snprintf(v[13], 64, "%s", bound);
    snprintf(v[14], 64, "%.1f", 100 * t_bound / ms_mg);
    snprintf(v[15], 64, "%.3f", info->seconds * 1e3);
    snprintf(v[16], 64, "%.2f", prep_ratio);
    snprintf(v[17], 64, "%s", info->kernel[0] ? info->kernel : "-");
    table_row(fmt, "spmm", kSpmmColumns, NSPMM, v);
    fflush(stdout);
    geo_add(&s->spmm, speedup, e->name);
    if (prep_ratio > s->worst_prep) {
        s->worst_prep = prep_ratio;
        snprintf(s->worst_prep_name, sizeof s->worst_prep_name, "%.63s", e->name);
    }

    if (sddmm) {
        DIE_IF(mg_dense_create(ctx, &L, rows, k, type));
        DIE_IF(mg_dense_load(ctx, L, hL));
        DIE_IF(mg_dense_create(ctx, &Cs, (uint32_t)nnz, 1, type));
        const double ms_sd = time_mgraph(true, A, L, B, Cs, runs, timer);
        check_sddmm(e, single, k, "mgraph", A, L, B, Cs);
        double ms_cs = NAN;
#ifdef MG_BENCH_CUSPARSE
        ms_cs = time_cusparse_sddmm(e, A, L, B, hL, hB, k, single, runs, timer);
#endif
        bytes = csr + ((double)rows + cols) * k * vs + (double)nnz * vs;
        t_bound = bound_ms(bytes, flops, single, probe, &bound);
        char w[NSDDMM][64];
        memcpy(w, v, 6 * sizeof w[0]);
        snprintf(w[5], 64, "%.1f", bytes / 1e6);
        snprintf(w[6], 64, "%.4f", ms_sd);
        snprintf(w[7], 64, "%.4f", ms_cs);
        snprintf(w[8], 64, "%.2f", ms_cs / ms_sd);
        snprintf(w[9], 64, "%.1f", flops / (ms_sd * 1e6));
        snprintf(w[10], 64, "%s", bound);
        snprintf(w[11], 64, "%.1f", 100 * t_bound / ms_sd);
        table_row(fmt, "sddmm", kSddmmColumns, NSDDMM, w);
        fflush(stdout);
        geo_add(&s->sddmm, ms_cs / ms_sd, e->name);
    }
    free(hB);
    free(hL);
    mg_dense_free(&B);
    mg_dense_free(&C);
    mg_dense_free(&L);
    mg_dense_free(&Cs);
}

static void usage(FILE *f) {
    fprintf(f, "usage: " BENCH_NAME " [--ks LIST] [--calls N] [--no-sddmm] [--real DIR | --no-real]\n"
               "       [--min-graph-nnz N] [--sizes LIST] [--kinds LIST] [--precision P] [--runs R]\n"
               "       [--format F]\n"
               "mgraph's mg_spmm and mg_sddmm on the GPU against cuSPARSE (cusparseSpMM: default,\n"
               "CSR_ALG1/2/3, blocked ELL where it applies; cusparseSDDMM), each result validated,\n"
               "with the probe's read bandwidth or FMA peak, whichever bounds, as the roofline.\n"
               "  --ks LIST           the dense operands' columns K, e.g. 32,128,512 (default; 1..1024)\n"
               "  --calls N           calls a timed sample, back to back, reported per call\n"
               "                      (default 1: each call alone, its host work and launch counted)\n"
               "  --no-sddmm          SpMM only\n"
               "  --tf32              mgraph's fp32 SpMM may take TF32 tensor cores (opts.tf32; its\n"
               "                      results checked to TF32's tolerance, cuSPARSE's to float's)\n" SET_USAGE
               "                      (default sizes: 1M,16M,64M)\n"
               "exit: 0 done (or skipped: no GPU), 1 an error or a wrong result, 2 a usage error\n");
}

int main(int argc, char **argv) {
    set_options o;
    set_options_init(&o, "1M,16M,64M");
    uint32_t ks[SET_MAX_KS] = {32, 128, 512};
    int nks = 3;
    bool sddmm = true;
    mg_spmm_options_init(&spmm_opts);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--tf32") == 0) {
            spmm_opts.tf32 = true;
            continue;
        }
        if (strcmp(argv[i], "--no-sddmm") == 0) {
            sddmm = false;
            continue;
        }
        if (strcmp(argv[i], "--calls") == 0) {
            char *end = NULL;
            const long v = i + 1 < argc ? strtol(argv[i + 1], &end, 10) : 0;
            if (i + 1 >= argc || *argv[i + 1] == '\0' || *end != '\0' || v < 1 || v > 1000) {
                fprintf(stderr, BENCH_NAME ": --calls wants a count of 1..1000 (calls a timed sample)\n");
                return 2;
            }
            calls = (int)v;
            i++;
            continue;
        }
        if (strcmp(argv[i], "--ks") == 0) {
            if (i + 1 >= argc || !parse_ks(argv[i + 1], ks, &nks)) {
                fprintf(stderr, BENCH_NAME ": --ks wants a list like 32,128,512 (each 1..1024, at "
                        "most %d)\n", SET_MAX_KS);
                return 2;
            }
            i++;
            continue;
        }
        const int rc = set_parse_or_exit(argc, argv, &i, &o, usage);
        if (rc >= 0) return rc;
    }
    static set_entry set[SET_MAX];
    const int count = set_build(&o, set);
    if (count == 0) {
        fprintf(stderr, BENCH_NAME ": nothing to run (no real matrices, --kinds none)\n");
        return 2;
    }
    setenv("CUDA_MODULE_LOADING", "EAGER", 0); /* see set_warm_build */
    mg__gpu_info gi;
    const int early = bench_start(&gi);
    if (early >= 0) return early;
    DIE_IF(mg_context_set_backend(ctx, MG_BACKEND_GPU));
    set_warm_build(true);
    mg_gpu_probe_result probe;
    DIE_IF(mg_gpu_probe(ctx, &probe));
    mg__gpu_timer *timer = NULL;
    DIE_IF(mg__gpu_timer_create(ctx, &timer));
    table_note(o.format, "device %s, L2 %.1f MB; probe: read %.0f GB/s, fp32 FMA %.0f GFLOP/s, fp64 "
               "FMA %.0f GFLOP/s", probe.name, probe.l2_bytes / 1e6, probe.read_gbs,
               probe.fp32_gflops, probe.fp64_gflops);
#ifndef MG_BENCH_CUSPARSE
    table_note(o.format, "built without cuSPARSE: its columns show nan");
#endif
    table_note(o.format, "SpMM C = A B and SDDMM C = S .* (A B^T), K dense columns, median of %d runs "
               "of %d call%s back to back (ms per call) after a warm-up (CUDA events); flops 2 nnz K; MB = the minimum bytes (SpMM: CSR with "
               "4-byte offsets, B read, C written; SDDMM: CSR, A and B read, C's nnz values written); "
               "bound: bw (bytes / the probe's read bandwidth) or fma (flops / its FMA peak), the "
               "longer; pct_bound = that time / mgraph's; speedup = best cuSPARSE ms / mgraph ms; "
               "ell_ms: blocked ELL (blocks of 32) where it stores at most 4x the nonzeros, else - (* its "
               "result is outside the fp32 tolerance: TF32 tensor cores; not counted as best); "
               "prep = mg_matrix_gpu_prepare_spmm's device builds for the K (the CSR's form and the SpMM's)", o.runs,
               calls, calls == 1 ? "" : "s");
    summary s[2][SET_MAX_KS];
    memset(s, 0, sizeof s);
    table_header(o.format, kSpmmColumns, NSPMM);
    if (sddmm) table_note(o.format, "SDDMM rows (table \"sddmm\") follow each SpMM row: matrix, prec, "
                          "K, rows, nnz, MB, mgraph_ms, cusparse_ms, speedup, GFLOPs, bound, pct_bound");
    for (int i = 0; i < count; i++)
        for (int p = 0; p < 2; p++) {
            const bool single = p == 0;
            if (single ? !o.single : !o.dbl) continue;
            /* each K's preprocessing on a matrix of its own: what a first call at that K builds */
            for (int j = 0; j < nks; j++) {
                mg_matrix A = NULL;
                set_load(&set[i], single ? MG_VALUES_FLOAT : MG_VALUES_DOUBLE, &A);
                mg_gpu_matrix_info info;
                DIE_IF(mg_matrix_gpu_prepare_spmm(ctx, A, ks[j], &spmm_opts, &info));
                bench_one(&set[i], A, &info, ks[j], single, sddmm, o.runs, o.format, &probe, timer,
                          &s[p][j]);
                mg_matrix_free(&A);
            }
        }
    for (int p = 0; p < 2; p++)
        for (int j = 0; j < nks; j++) {
            const summary *t = &s[p][j];
            if (t->spmm.count == 0) continue;
            const char *pn = p ? "fp64" : "fp32";
            table_note(o.format, "SpMM %s%s K %u, %d matrices: geometric mean speedup %.2fx over the "
                       "best cuSPARSE (goal fp32, K 32 and 128: >= 1.5x), least %.2fx (%s; goal >= "
                       "0.9x); preprocessing at most %.2f calls (%s; goal <= 5)", pn,
                       !p && spmm_opts.tf32 ? " (TF32 allowed)" : "", ks[j],
                       t->spmm.count, geo_mean(&t->spmm), t->spmm.min, t->spmm.min_name,
                       t->worst_prep, t->worst_prep_name);
            if (t->sddmm.count)
                table_note(o.format, "SDDMM %s K %u, %d matrices: geometric mean speedup %.2fx over "
                           "cusparseSDDMM (goal >= 1.5x), least %.2fx (%s)", pn, ks[j],
                           t->sddmm.count, geo_mean(&t->sddmm), t->sddmm.min, t->sddmm.min_name);
        }
    mg__gpu_timer_free(&timer);
    mg_context_free(&ctx);
    return 0;
}
