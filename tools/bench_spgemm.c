/*
 * bench_spgemm.c — C = A A and C = A A^T on the GPU: mgraph's mg_spgemm against cusparseSpGEMM in
 * the same process, on the matrix set of bench_spmv_set.h (the real matrices and, by default, the
 * R-MAT and uniform generators), in fp32 and fp64. Built only with CUDA (it needs cuSPARSE).
 *
 * Per matrix, precision and product (A A only for a square A; A^T made explicitly on the host,
 * both libraries taking it as a plain CSR):
 *   mgraph     mg_spgemm on a GPU context: the call as a user makes it, the operands' device forms
 *              built by the warm-up and cached, C copied back to a host matrix; its peak device
 *              memory is what it reports (opts.device_bytes: its work and C's device arrays);
 *   cuSPARSE   the same CSRs (32-bit offsets and indices) through cusparseSpGEMM's whole sequence
 *              (work estimation, compute, C's allocation, copy) and C copied to the host as well,
 *              with CUSPARSE_SPGEMM_DEFAULT, ALG2 and ALG3 (the memory-saving ones: their
 *              estimateMemory step, chunk fraction 0.2). One the library refuses, or that runs out
 *              of device memory, shows "-" or "oom" and is left out of the best. Its peak device
 *              memory: the buffers it asks for, held together as the sequence holds them, plus C.
 * Timed with CUDA events around the whole call, one warm-up, the median of R runs. Every result is
 * validated before its row is printed: mgraph's C with mg_check_spgemm (the serial reference),
 * each cuSPARSE algorithm's against mgraph's validated C (the same entries, values within 1e-4 in
 * fp32 and 1e-10 in fp64 relative; with mg_check_spgemm where mgraph ran out of memory): a wrong
 * result is fatal. A product of more than --max-flops
 * multiply-adds (the serial check would take minutes) is skipped with a note.
 *
 * Columns: flops (multiply-adds: the sum over A's entries (i, k) of B's row k length), nnz_C,
 * mgraph_ms, cusparse_{default,alg2,alg3}_ms, speedup = the best cuSPARSE ms / mgraph's, the peak
 * device MB (mgraph's; cuSPARSE's default and least of the algorithms), mem_ratio = mgraph's peak /
 * cuSPARSE default's, GFLOPs = 2 flops / mgraph's time. Summaries: geometric means per precision
 * and product against the goals (>= 1.5x the best cuSPARSE, <= 0.7x its peak memory).
 *
 *   bench_spgemm [--max-flops N] [set options]     (--help lists them)
 * Exit 0 (also when no GPU can be used: it says it skipped), 1 on an error or a wrong result, 2 on
 * a usage error.
 */
#define _POSIX_C_SOURCE 200809L
#define BENCH_NAME "bench_spgemm"
#include "bench_common.h"
#include "bench_spmv_set.h"
#include "bench_cusparse.h"

static const column kColumns[] = {
    {"matrix", false},          {"prec", false},          {"op", false},
    {"rows", true},             {"nnz", true},            {"flops", true},
    {"nnz_C", true},            {"mgraph_ms", true},      {"cusparse_default_ms", true},
    {"cusparse_alg2_ms", true}, {"cusparse_alg3_ms", true}, {"speedup", true},
    {"mgraph_MB", true},        {"cusparse_default_MB", true}, {"cusparse_least_MB", true},
    {"mem_ratio", true},        {"GFLOPs", true},
};
enum { NCOLS = sizeof kColumns / sizeof kColumns[0] };

enum { NALGS = 3 };
static const cusparseSpGEMMAlg_t kAlgs[NALGS] = {CUSPARSE_SPGEMM_DEFAULT, CUSPARSE_SPGEMM_ALG2,
                                                 CUSPARSE_SPGEMM_ALG3};
static const char *const kAlgNames[NALGS] = {"default", "ALG2", "ALG3"};

/* Summaries of one precision and product. */
typedef struct {
    geo speedup, memory;
} summary;

/* Multiply-adds of A B. */
static double product_flops(const mg_matrix A, const mg_matrix B) {
    const uint64_t *ao, *bo;
    const uint32_t *ai, *bi;
    DIE_IF(mg_matrix_csr(A, &ao, &ai, NULL));
    DIE_IF(mg_matrix_csr(B, &bo, &bi, NULL));
    double flops = 0;
    for (uint64_t e = 0; e < mg_matrix_nnz(A); e++) flops += (double)(bo[ai[e] + 1] - bo[ai[e]]);
    return flops;
}

/* A^T as a new matrix (from A's CSC, as coordinates). */
static mg_matrix transpose(const mg_matrix A) {
    const uint64_t *off;
    const uint32_t *idx;
    const void *val;
    DIE_IF(mg_matrix_csc(ctx, A, &off, &idx, &val));
    const uint32_t cols = mg_matrix_cols(A);
    const uint64_t nnz = mg_matrix_nnz(A);
    uint32_t *r = xmalloc(nnz * 4);
    for (uint32_t j = 0; j < cols; j++)
        for (uint64_t e = off[j]; e < off[j + 1]; e++) r[e] = j;
    mg_matrix T = NULL;
    DIE_IF(mg_matrix_create_from_coo(ctx, &T, cols, mg_matrix_rows(A), nnz, r, idx, val,
                                     mg_matrix_values(A)));
    free(r);
    return T;
}

/* ---- cuSPARSE ---------------------------------------------------------------------------------- */

/* A CSR on the device as cuSPARSE takes it (32-bit offsets and indices). */
typedef struct {
    void *d_off, *d_idx, *d_val;
    cusparseSpMatDescr_t mat;
} device_csr;

static void csr_upload(const mg_matrix A, bool single, device_csr *d) {
    const uint32_t rows = mg_matrix_rows(A);
    const uint64_t nnz = mg_matrix_nnz(A);
    const size_t vs = single ? 4 : 8;
    const uint64_t *off;
    const uint32_t *idx;
    const void *val;
    DIE_IF(mg_matrix_csr(A, &off, &idx, &val));
    int32_t *off32 = xmalloc(((size_t)rows + 1) * 4);
    for (uint32_t i = 0; i <= rows; i++) off32[i] = (int32_t)off[i];
    CUDA(cudaMalloc(&d->d_off, ((size_t)rows + 1) * 4));
    CUDA(cudaMalloc(&d->d_idx, nnz * 4 + 4));
    CUDA(cudaMalloc(&d->d_val, nnz * vs + vs));
    CUDA(cudaMemcpy(d->d_off, off32, ((size_t)rows + 1) * 4, cudaMemcpyHostToDevice));
    CUDA(cudaMemcpy(d->d_idx, idx, nnz * 4, cudaMemcpyHostToDevice));
    CUDA(cudaMemcpy(d->d_val, val, nnz * vs, cudaMemcpyHostToDevice));
    CS(cusparseCreateCsr(&d->mat, rows, mg_matrix_cols(A), (int64_t)nnz, d->d_off, d->d_idx,
                         d->d_val, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                         single ? CUDA_R_32F : CUDA_R_64F));
    free(off32);
}

static void csr_free(device_csr *d) {
    CS(cusparseDestroySpMat(d->mat));
    CUDA(cudaFree(d->d_off));
    CUDA(cudaFree(d->d_idx));
    CUDA(cudaFree(d->d_val));
}

/* One cusparseSpGEMM sequence's outcome; C on the host when asked for. */
typedef struct {
    int failed;            /* 0, 1 refused (why says), 2 out of device memory */
    char why[128];
    size_t peak;           /* device bytes held at once: buffers and C */
    int64_t nnz;
    int32_t *off, *idx;    /* host C (keep) */
    void *val;
} cs_run;

/* Device memory for the sequence, counted; false (run marked out of memory) when it fails. */
static bool cs_alloc(cs_run *r, void **p, size_t bytes, size_t *live) {
    if (cudaMallocAsync(p, bytes ? bytes : 8, 0) != cudaSuccess) {
        (void)cudaGetLastError();
        *p = NULL;
        r->failed = 2;
        snprintf(r->why, sizeof r->why, "out of device memory for %zu bytes", bytes);
        return false;
    }
    *live += bytes;
    if (*live > r->peak) r->peak = *live;
    return true;
}

static void cs_free(void **p, size_t bytes, size_t *live) {
    if (*p == NULL) return;
    CUDA(cudaFreeAsync(*p, 0));
    *p = NULL;
    *live -= bytes;
}

#define CS_STEP(call)                                                                              \
    do {                                                                                           \
        const cusparseStatus_t s_ = (call);                                                        \
        if (s_ != CUSPARSE_STATUS_SUCCESS) {                                                       \
            r->failed = s_ == CUSPARSE_STATUS_INSUFFICIENT_RESOURCES ? 2 : 1;                     \
            snprintf(r->why, sizeof r->why, "%s", cusparseGetErrorString(s_));                     \
            goto done;                                                                             \
        }                                                                                          \
    } while (0)

/* C = A B with one algorithm, the whole sequence, C copied to the host (kept when keep). */
static void cs_spgemm(cusparseHandle_t h, cusparseSpGEMMAlg_t alg, bool single, const device_csr *A,
                      const device_csr *B, uint32_t rows, uint32_t cols, bool keep, cs_run *r) {
    memset(r, 0, sizeof *r);
    const cusparseOperation_t op = CUSPARSE_OPERATION_NON_TRANSPOSE;
    const cudaDataType type = single ? CUDA_R_32F : CUDA_R_64F;
    const float alpha_f = 1, beta_f = 0;
    const double alpha_d = 1, beta_d = 0;
    const void *alpha = single ? (const void *)&alpha_f : (const void *)&alpha_d;
    const void *beta = single ? (const void *)&beta_f : (const void *)&beta_d;
    const size_t vs = single ? 4 : 8;
    size_t live = 0, b1 = 0, b2 = 0, b3 = 0, c_idx_bytes = 0, c_val_bytes = 0;
    int64_t products = 0, crows = 0, ccols = 0;
    const size_t off_bytes = ((size_t)rows + 1) * 4;
    void *buf1 = NULL, *buf2 = NULL, *buf3 = NULL, *c_off = NULL, *c_idx = NULL, *c_val = NULL;
    cusparseSpMatDescr_t C = NULL;
    cusparseSpGEMMDescr_t d = NULL;
    CS(cusparseSpGEMM_createDescr(&d));
    if (!cs_alloc(r, &c_off, off_bytes, &live)) goto done;
    CS_STEP(cusparseCreateCsr(&C, rows, cols, 0, c_off, NULL, NULL, CUSPARSE_INDEX_32I,
                              CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, type));
    CS_STEP(cusparseSpGEMM_workEstimation(h, op, op, alpha, A->mat, B->mat, beta, C, type, alg, d,
                                          &b1, NULL));
    if (!cs_alloc(r, &buf1, b1, &live)) goto done;
    CS_STEP(cusparseSpGEMM_workEstimation(h, op, op, alpha, A->mat, B->mat, beta, C, type, alg, d,
                                          &b1, buf1));
    if (alg == CUSPARSE_SPGEMM_ALG2 || alg == CUSPARSE_SPGEMM_ALG3) {
        CS_STEP(cusparseSpGEMM_getNumProducts(d, &products));
        CS_STEP(cusparseSpGEMM_estimateMemory(h, op, op, alpha, A->mat, B->mat, beta, C, type, alg,
                                              d, 0.2f, &b3, NULL, NULL));
        if (!cs_alloc(r, &buf3, b3, &live)) goto done;
        CS_STEP(cusparseSpGEMM_estimateMemory(h, op, op, alpha, A->mat, B->mat, beta, C, type, alg,
                                              d, 0.2f, &b3, buf3, &b2));
        cs_free(&buf3, b3, &live);
    } else {
        CS_STEP(cusparseSpGEMM_compute(h, op, op, alpha, A->mat, B->mat, beta, C, type, alg, d, &b2,
                                       NULL));
    }
    if (!cs_alloc(r, &buf2, b2, &live)) goto done;
    CS_STEP(cusparseSpGEMM_compute(h, op, op, alpha, A->mat, B->mat, beta, C, type, alg, d, &b2,
                                   buf2));
    CS_STEP(cusparseSpMatGetSize(C, &crows, &ccols, &r->nnz));
    c_idx_bytes = (size_t)r->nnz * 4;
    c_val_bytes = (size_t)r->nnz * vs;
    if (!cs_alloc(r, &c_idx, c_idx_bytes, &live) || !cs_alloc(r, &c_val, c_val_bytes, &live)) goto done;
    CS_STEP(cusparseCsrSetPointers(C, c_off, c_idx, c_val));
    CS_STEP(cusparseSpGEMM_copy(h, op, op, alpha, A->mat, B->mat, beta, C, type, alg, d));
    /* to the host, as mg_spgemm returns C */
    r->off = xmalloc(off_bytes);
    r->idx = xmalloc(c_idx_bytes);
    r->val = xmalloc(c_val_bytes);
    CUDA(cudaMemcpy(r->off, c_off, off_bytes, cudaMemcpyDeviceToHost));
    CUDA(cudaMemcpy(r->idx, c_idx, c_idx_bytes, cudaMemcpyDeviceToHost));
    CUDA(cudaMemcpy(r->val, c_val, c_val_bytes, cudaMemcpyDeviceToHost));
done:
    if (!keep || r->failed) {
        free(r->off);
        free(r->idx);
        free(r->val);
        r->off = r->idx = NULL;
        r->val = NULL;
    }
    cs_free(&buf1, b1, &live);
    cs_free(&buf2, b2, &live);
    cs_free(&buf3, b3, &live);
    cs_free(&c_off, off_bytes, &live);
    cs_free(&c_idx, c_idx_bytes, &live);
    cs_free(&c_val, c_val_bytes, &live);
    if (C != NULL) CS(cusparseDestroySpMat(C));
    CS(cusparseSpGEMM_destroyDescr(d));
    CUDA(cudaStreamSynchronize(0));
}

/* cuSPARSE's C (host, kept) against mgraph's validated one: the same entries in each row (in any
 * order), values within tol relative to the larger of the two and of the row's largest value (an
 * entry that cancels to about 0, e.g. 2.5e-18 against cuSPARSE's 0 on Dubcova1 in fp32, differs by
 * rounding of its terms, not of its result). Exits naming the first difference. */
static void cs_check(const char *what, const char *alg, const cs_run *r, const mg_matrix C,
                     bool single) {
    const uint64_t *off;
    const uint32_t *idx;
    const void *val;
    DIE_IF(mg_matrix_csr(C, &off, &idx, &val));
    const uint32_t rows = mg_matrix_rows(C), cols = mg_matrix_cols(C);
    const double tol = single ? 1e-4 : 1e-10;
    if ((uint64_t)r->nnz != mg_matrix_nnz(C)) {
        fprintf(stderr, BENCH_NAME ": %s: cuSPARSE %s's C has %lld entries, mgraph's %llu\n", what,
                alg, (long long)r->nnz, (unsigned long long)mg_matrix_nnz(C));
        exit(1);
    }
    uint64_t *stamp = calloc((size_t)cols + 1, sizeof *stamp);
    double *want = xmalloc(((size_t)cols + 1) * sizeof *want);
    if (stamp == NULL) exit(1);
    for (uint32_t i = 0; i < rows; i++) {
        double row_max = 0;
        for (uint64_t e = off[i]; e < off[i + 1]; e++) {
            stamp[idx[e]] = (uint64_t)i + 1;
            want[idx[e]] = single ? ((const float *)val)[e] : ((const double *)val)[e];
            row_max = fmax(row_max, fabs(want[idx[e]]));
        }
        const bool sizes = (uint64_t)(r->off[i + 1] - r->off[i]) == off[i + 1] - off[i];
        for (int64_t e = r->off[i]; sizes && e < r->off[i + 1]; e++) {
            const uint32_t j = (uint32_t)r->idx[e];
            const double got = single ? ((const float *)r->val)[e] : ((const double *)r->val)[e];
            if (j >= cols || stamp[j] != (uint64_t)i + 1 ||
                !(got == want[j] || /* an inf both ways */
                  fabs(got - want[j]) <= tol * fmax(fmax(fabs(got), fabs(want[j])), row_max))) {
                fprintf(stderr, BENCH_NAME ": %s: cuSPARSE %s's C(%u, %u) = %.17g, mgraph's %s%.17g\n",
                        what, alg, i, j, got, j < cols && stamp[j] == (uint64_t)i + 1 ? "" : "(none) ",
                        j < cols ? want[j] : 0.0);
                exit(1);
            }
        }
        if (!sizes) {
            fprintf(stderr, BENCH_NAME ": %s: cuSPARSE %s's row %u has %d entries, mgraph's %llu\n",
                    what, alg, i, (int)(r->off[i + 1] - r->off[i]),
                    (unsigned long long)(off[i + 1] - off[i]));
            exit(1);
        }
    }
    free(stamp);
    free(want);
}

/* cuSPARSE's C (host, kept) checked with mg_check_spgemm, for a product mgraph could not make. */
static void cs_check_serial(const char *what, const char *alg, const cs_run *r, const mg_matrix A,
                            const mg_matrix B, bool single) {
    const uint32_t rows = mg_matrix_rows(A);
    uint32_t *ri = xmalloc((size_t)r->nnz * 4), *ci = xmalloc((size_t)r->nnz * 4);
    for (uint32_t i = 0; i < rows; i++)
        for (int64_t e = r->off[i]; e < r->off[i + 1]; e++) {
            ri[e] = i;
            ci[e] = (uint32_t)r->idx[e];
        }
    mg_matrix C = NULL;
    DIE_IF(mg_matrix_create_from_coo(ctx, &C, rows, mg_matrix_cols(B), (uint64_t)r->nnz, ri, ci,
                                     r->val, single ? MG_VALUES_FLOAT : MG_VALUES_DOUBLE));
    if (mg_check_spgemm(ctx, A, B, C, NULL) != MG_SUCCESS) {
        fprintf(stderr, BENCH_NAME ": %s: cuSPARSE %s's C is wrong: %s\n", what, alg,
                mg_context_error(ctx));
        exit(1);
    }
    mg_matrix_free(&C);
    free(ri);
    free(ci);
}

/* ---- one product --------------------------------------------------------------------------------- */

static void fmt_ms(char *cell, double ms) {
    if (ms >= 0) snprintf(cell, 64, "%.3f", ms);
}

static void bench_one(cusparseHandle_t h, const set_entry *e, const mg_matrix A, const mg_matrix B,
                      bool single, const char *op, int runs, double max_flops, out_format f,
                      mg__gpu_timer *timer, summary *s) {
    char what[128];
    snprintf(what, sizeof what, "%s %s %s", e->name, single ? "fp32" : "fp64", op);
    const double flops = product_flops(A, B);
    if (flops > max_flops) {
        table_note(f, "%s: %.3g multiply-adds, over --max-flops %.3g: skipped", what, flops, max_flops);
        return;
    }
    char cells[NCOLS][64];
    for (int c = 0; c < NCOLS; c++) snprintf(cells[c], 64, "-");
    table_row_head(cells, e->name, single, A);
    snprintf(cells[2], 64, "%s", op);
    snprintf(cells[3], 64, "%u", mg_matrix_rows(A));
    snprintf(cells[4], 64, "%llu", (unsigned long long)mg_matrix_nnz(A));
    snprintf(cells[5], 64, "%.0f", flops);

    /* mgraph: the warm-up validated, then the runs */
    size_t ours_bytes = 0;
    mg_spgemm_options o;
    mg_spgemm_options_init(&o);
    o.device_bytes = &ours_bytes;
    mg_matrix C = NULL;
    double ms[BENCH_MAX_RUNS], ours = -1;
    mg_status st = mg_spgemm(ctx, A, B, &C, &o);
    if (st == MG_OUT_OF_MEMORY) {
        table_note(f, "%s: mgraph: %s", what, mg_context_error(ctx));
        snprintf(cells[7], 64, "oom");
    } else {
        DIE_IF(st);
        if (mg_check_spgemm(ctx, A, B, C, NULL) != MG_SUCCESS) {
            fprintf(stderr, BENCH_NAME ": %s: mgraph's C is wrong: %s\n", what, mg_context_error(ctx));
            exit(1);
        }
        for (int r = 0; r < runs; r++) {
            mg_matrix R = NULL;
            DIE_IF(mg__gpu_timer_start(ctx, timer));
            DIE_IF(mg_spgemm(ctx, A, B, &R, &o));
            DIE_IF(mg__gpu_timer_stop(ctx, timer, &ms[r]));
            mg_matrix_free(&R);
        }
        ours = median(ms, runs);
        snprintf(cells[6], 64, "%llu", (unsigned long long)mg_matrix_nnz(C));
        fmt_ms(cells[7], ours);
        snprintf(cells[12], 64, "%.1f", ours_bytes / 1e6);
        snprintf(cells[16], 64, "%.2f", 2 * flops / (ours * 1e6));
    }

    /* cuSPARSE: each algorithm validated against mgraph's C, then timed */
    double best = -1, least_mb = -1, default_mb = -1;
    if (mg_matrix_nnz(A) < (1ull << 31) && mg_matrix_nnz(B) < (1ull << 31)) {
        device_csr dA, dB;
        csr_upload(A, single, &dA);
        csr_upload(B, single, &dB);
        for (int a = 0; a < NALGS; a++) {
            cs_run r;
            cs_spgemm(h, kAlgs[a], single, &dA, &dB, mg_matrix_rows(A), mg_matrix_cols(B), true, &r);
            if (r.failed) {
                snprintf(cells[8 + a], 64, r.failed == 2 ? "oom" : "-");
                table_note(f, "%s: cuSPARSE %s: %s", what, kAlgNames[a], r.why);
                continue;
            }
            if (C != NULL) cs_check(what, kAlgNames[a], &r, C, single);
            else cs_check_serial(what, kAlgNames[a], &r, A, B, single);
            free(r.off);
            free(r.idx);
            free(r.val);
            const double mb = r.peak / 1e6;
            for (int k = 0; k < runs; k++) {
                DIE_IF(mg__gpu_timer_start(ctx, timer));
                cs_spgemm(h, kAlgs[a], single, &dA, &dB, mg_matrix_rows(A), mg_matrix_cols(B), false, &r);
                DIE_IF(mg__gpu_timer_stop(ctx, timer, &ms[k]));
                if (r.failed) {
                    fprintf(stderr, BENCH_NAME ": %s: cuSPARSE %s failed in a timed run: %s\n", what,
                            kAlgNames[a], r.why);
                    exit(1);
                }
            }
            const double t = median(ms, runs);
            fmt_ms(cells[8 + a], t);
            if (best < 0 || t < best) best = t;
            if (least_mb < 0 || mb < least_mb) least_mb = mb;
            if (a == 0) default_mb = mb;
        }
        csr_free(&dA);
        csr_free(&dB);
    } else {
        table_note(f, "%s: 2^31 entries or more: cuSPARSE's 32-bit CSR cannot take it", what);
    }
    if (default_mb >= 0) snprintf(cells[13], 64, "%.1f", default_mb);
    if (least_mb >= 0) snprintf(cells[14], 64, "%.1f", least_mb);
    if (ours > 0 && best > 0) {
        snprintf(cells[11], 64, "%.2f", best / ours);
        geo_add(&s->speedup, best / ours, what);
    }
    if (ours > 0 && default_mb > 0) {
        snprintf(cells[15], 64, "%.2f", ours_bytes / 1e6 / default_mb);
        geo_add(&s->memory, ours_bytes / 1e6 / default_mb, what);
    }
    table_row(f, "spgemm", kColumns, NCOLS, cells);
    mg_matrix_free(&C);
}

static void usage(FILE *f) {
    fprintf(f, "usage: " BENCH_NAME " [--max-flops N] [--real DIR | --no-real] [--min-graph-nnz N]\n"
               "       [--sizes LIST] [--kinds LIST] [--precision P] [--runs R] [--format F]\n"
               "mgraph's mg_spgemm on the GPU against cusparseSpGEMM (default, ALG2, ALG3): A*A and\n"
               "A*A^T, each result validated, time, peak device memory and GFLOP/s.\n"
               "  --max-flops N       skip products of more multiply-adds (default 2G: the serial\n"
               "                      check's time)\n" SET_USAGE
               "                      (default sizes: 1M,4M; default kinds: rmat,uniform)\n"
               "exit: 0 done (or skipped: no GPU), 1 an error or a wrong result, 2 a usage error\n");
}

int main(int argc, char **argv) {
    set_options o;
    set_options_init(&o, "1M,4M");
    memset(o.kinds, 0, sizeof o.kinds);
    o.kinds[GEN_RMAT] = o.kinds[GEN_UNIFORM] = true;
    uint64_t max_flops = 2000000000ull;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--max-flops") == 0) {
            if (i + 1 >= argc || !parse_count(argv[i + 1], &max_flops)) {
                fprintf(stderr, BENCH_NAME ": --max-flops wants a count like 2G\n");
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
    mg__gpu_info gi;
    const int early = bench_start(&gi);
    if (early >= 0) return early;
    DIE_IF(mg_context_set_backend(ctx, MG_BACKEND_GPU));
    mg__gpu_timer *timer = NULL;
    DIE_IF(mg__gpu_timer_create(ctx, &timer));
    cusparseHandle_t h;
    CS(cusparseCreate(&h));
    table_note(o.format, "device %s; SpGEMM C = A A and C = A A^T, median of %d runs after a warm-up "
               "(CUDA events around the whole call, C copied to the host by both); flops = "
               "multiply-adds, GFLOPs = 2 flops / mgraph's time; speedup = best cuSPARSE ms / mgraph "
               "ms; MB = peak device memory beside the operands (mgraph: work and C; cuSPARSE: its "
               "buffers and C); mem_ratio = mgraph MB / cuSPARSE default MB",
               gi.name, o.runs);
    table_header(o.format, kColumns, NCOLS);
    summary s[2][2];
    memset(s, 0, sizeof s);
    static const char *const ops[2] = {"AA", "AAt"};
    for (int i = 0; i < count; i++)
        for (int p = 0; p < 2; p++) {
            const bool single = p == 0;
            if (single ? !o.single : !o.dbl) continue;
            mg_matrix A = NULL;
            set_load(&set[i], single ? MG_VALUES_FLOAT : MG_VALUES_DOUBLE, &A);
            if (mg_matrix_rows(A) == mg_matrix_cols(A))
                bench_one(h, &set[i], A, A, single, ops[0], o.runs, (double)max_flops, o.format,
                          timer, &s[p][0]);
            mg_matrix T = transpose(A);
            bench_one(h, &set[i], A, T, single, ops[1], o.runs, (double)max_flops, o.format, timer,
                      &s[p][1]);
            mg_matrix_free(&T);
            mg_matrix_free(&A);
        }
    for (int p = 0; p < 2; p++)
        for (int k = 0; k < 2; k++) {
            const summary *t = &s[p][k];
            if (t->speedup.count == 0) continue;
            table_note(o.format, "%s %s, %d products: geometric mean speedup %.2fx over the best "
                       "cuSPARSE (goal >= 1.5x), least %.2fx (%s); peak device memory %.2fx "
                       "cuSPARSE default's (geometric mean; goal <= 0.7x)",
                       p ? "fp64" : "fp32", ops[k], t->speedup.count, geo_mean(&t->speedup),
                       t->speedup.min, t->speedup.min_name, geo_mean(&t->memory));
        }
    CS(cusparseDestroy(h));
    mg__gpu_timer_free(&timer);
    mg_context_free(&ctx);
    return 0;
}
