/*
 * bench_spmv.c — y = A x on the GPU: mgraph's mg_spmv against cuSPARSE (cusparseSpMV) in the same
 * process, on the same matrices, in fp32 and fp64, with the device's measured read bandwidth
 * (mg_gpu_probe, run once at the start) as the roofline; then CG per iteration against its model.
 *
 * The set (bench_spmv_set.h): the real matrices of --real DIR (MANIFEST.tsv's kind=matrix rows and
 * its Matrix Market graphs of at least --min-graph-nnz entries) and generated R-MAT, uniform,
 * banded, Poisson 2D/3D and block-diagonal matrices of --sizes nonzeros (default 1M to 200M).
 * Every matrix carries values of the run's precision (a pattern gets random ones), x is random in
 * [0.5, 1.5).
 *
 * Per matrix and precision:
 *   mgraph    mg_matrix_gpu_prepare first (its build time is the preprocessing, reported with its
 *             ratio to one call), then mg_spmv on a GPU context, y left on the device;
 *   cuSPARSE  the same CSR (32-bit offsets and indices) with CUSPARSE_SPMV_ALG_DEFAULT,
 *             CUSPARSE_SPMV_CSR_ALG1 and CUSPARSE_SPMV_CSR_ALG2, each after its
 *             cusparseSpMV_preprocess (untimed); the best of the three is the baseline.
 * Each is timed with CUDA events on the default stream around the call (mg_spmv returns after its
 * work; the events time it all the same), one warm-up, the median of R runs. --timing gpu (the
 * default) queues each run behind a 200 us spin of the stream, so the events time the GPU's work
 * alone, as when calls are issued back to back: from an idle GPU (--timing call) a run also counts
 * the host's launch, 4-8 us on a 5-20 us product, whose spread between processes moved the small
 * products' ratios by 10-18% (H100, session 32). y is poisoned with
 * NaN before the runs and every result, mgraph's and each cuSPARSE algorithm's, is checked with
 * mg_check_spmv against the serial double reference before a row is printed (a wrong baseline
 * fails the run too). MB: the fewest bytes an SpMV moves (CSR with 4-byte offsets, x read once, y
 * written once); GB/s and % of the probe's read bandwidth from it; GFLOP/s = 2 nnz / time. The
 * summary: geometric mean speedup over the best cuSPARSE and the least, for all matrices and for
 * those whose bytes exceed 4x the L2, with their mean % of the bandwidth; the preprocessing in calls
 * (geometric mean, the most, and how many matrices took more than 5).
 *
 * --blocks: also y = A x on the dense-frontier engine's 2D heavy/light blocks (frontier/dense_engine.cu),
 * which the issue that made mg_spmv proposed to build it on: for a square fp32 matrix (the blocks
 * carry 4-byte weights), a graph of its entries (directed, self-loops and duplicates kept, the values
 * as float weights) and mg_advance of x[s] * w summed along reversed edges (row i gathers from its
 * columns), all vertices active, in MG_MODE_DENSE; the blocks are built by the first (untimed) call;
 * its y is checked like the others; blocks_speedup = the best cuSPARSE's ms / its ms. The graph's
 * device build hands the memory pool's unused memory back, so the next matrix's preprocessing
 * grows the pool again: take preprocessing figures from a run without --blocks.
 *
 * CG (--cg-nnz, --cg-iters; --no-cg skips it): the manifest's SPD matrices and Poisson 2D and 3D of
 * about --cg-nnz nonzeros: mg_cg's time per iteration (its own CUDA-event loop time / iterations,
 * median of R / 3 + 1 solves) against the model: one SpMV (measured here) + 9 n values of vector
 * traffic at the probe's read bandwidth, the least an iteration moves: q = A p with p'q fused into
 * it (the SpMV's own reads and writes are in its time), x += alpha p and r -= alpha q with r'r in
 * one pass (reads x, p, r, q, writes x, r: 6), p = r + beta p (reads r, p, writes p: 3). Jacobi is
 * off.
 *
 *   bench_spmv [--cg-nnz N] [--cg-iters K] [--no-cg] [--blocks] [set options]   (--help lists them)
 * Exit 0 (also when no GPU can be used: it says it skipped), 1 on an error or a wrong result, 2 on
 * a usage error.
 */
#define _POSIX_C_SOURCE 200809L
#define BENCH_NAME "bench_spmv"
#include "bench_common.h"
#include "bench_spmv_set.h"

#ifdef MG_BENCH_CUSPARSE
#include "bench_cusparse.h"
#endif

static const column kSpmvColumns[] = {
    {"matrix", false},       {"prec", false},       {"rows", true},           {"nnz", true},
    {"MB", true},            {"mgraph_ms", true},   {"cusparse_default_ms", true},
    {"cusparse_best_ms", true}, {"best_alg", false}, {"speedup", true},       {"GFLOPs", true},
    {"GBs", true},           {"pct_bw", true},      {"over_4xL2", false},     {"prep_ms", true},
    {"prep_per_call", true}, {"upload_ms", true},   {"kernel", false},        {"blocks_ms", true},
    {"blocks_speedup", true},
};
enum { NSPMV = sizeof kSpmvColumns / sizeof kSpmvColumns[0] };

static const column kCgColumns[] = {
    {"matrix", false},      {"prec", false},     {"rows", true},       {"nnz", true},
    {"iterations", true},   {"residual", true},  {"ms_per_iter", true}, {"spmv_ms", true},
    {"vector_MB", true},    {"model_ms", true},  {"ratio", true},
};
enum { NCG = sizeof kCgColumns / sizeof kCgColumns[0] };

/* Summaries of one precision. */
typedef struct {
    geo speedup, speedup_big, pct_big, prep;
    double worst_prep;
    char worst_prep_name[64];
    int prep_over_5; /* matrices whose preprocessing took more than 5 calls */
    geo blocks;      /* --blocks: the dense engine's ms / mg_spmv's */
    int blocks_faster;
} summary;

/* --timing gpu (the default): each run is queued behind a 200 us hold of the stream, so its events
 * time the GPU's work alone, as in calls issued back to back; --timing call: from an idle GPU, so a
 * run also times the host's launch of it (a few us: a fifth of a 20 us product). */
static bool held = true;
enum { kHoldUs = 200 };
static int late_runs; /* timed runs (not warm-ups) queued after their hold's end */

/* Run r of a timing loop starts (r < 0: warm-ups, whose late runs are dropped at run 0; the loop
 * adds its timed runs' with runs_late after its last). */
static void run_start(mg__gpu_timer *timer, int r) {
    if (r == 0) (void)mg__gpu_timer_late(timer);
    if (held) DIE_IF(mg__gpu_timer_hold(ctx, timer, kHoldUs));
    DIE_IF(mg__gpu_timer_start(ctx, timer));
}

static void runs_late(mg__gpu_timer *timer) { late_runs += mg__gpu_timer_late(timer); }

/* mg_spmv's median ms on a GPU context (y poisoned first). */
static double time_mgraph(const mg_matrix A, mg_dense x, mg_dense y, int runs, mg__gpu_timer *timer) {
    double ms[BENCH_MAX_RUNS];
    DIE_IF(mg_dense_fill(ctx, y, NAN));
    for (int r = -1; r < runs; r++) {
        run_start(timer, r);
        DIE_IF(mg_spmv(ctx, A, x, y, NULL));
        DIE_IF(mg__gpu_timer_stop(ctx, timer, r < 0 ? &ms[0] : &ms[r]));
    }
    runs_late(timer);
    return median(ms, runs);
}

static void check_result(const set_entry *e, bool single, const char *who, const mg_matrix A,
                         const mg_dense x, const mg_dense y) {
    if (mg_check_spmv(ctx, A, x, NULL, y, NULL) != MG_SUCCESS) {
        fprintf(stderr, BENCH_NAME ": %s %s: %s's y is wrong: %s\n", e->name, single ? "fp32" : "fp64",
                who, mg_context_error(ctx));
        exit(1);
    }
}

/* --blocks: y = A x on the dense engine's 2D blocks through the graph API, its median ms (NAN for
 * a matrix it cannot take), its y checked (hx: x on the host). */
static double time_blocks(const set_entry *e, const mg_matrix A, const mg_dense x, const void *hx, int runs,
                          mg__gpu_timer *timer) {
    const uint32_t n = mg_matrix_rows(A);
    if (n != mg_matrix_cols(A) || mg_matrix_values(A) != MG_VALUES_FLOAT) return NAN;
    const uint64_t *off;
    const uint32_t *idx;
    const void *val;
    DIE_IF(mg_matrix_csr(A, &off, &idx, &val));
    const uint64_t m = off[n];
    uint32_t *src = xmalloc(m * 4 + 4);
    for (uint32_t i = 0; i < n; i++)
        for (uint64_t k = off[i]; k < off[i + 1]; k++) src[k] = i;
    mg_graph_options go;
    mg_graph_options_init(&go);
    go.keep_self_loops = go.keep_duplicates = true;
    mg_graph g = NULL;
    DIE_IF(mg_graph_create_from_coo(ctx, &g, n, m, src, idx, val, MG_WEIGHT_FLOAT, &go));
    free(src);
    mg_vector gx = NULL, gy = NULL;
    DIE_IF(mg_vector_create(ctx, &gx, g, MG_FLOAT));
    DIE_IF(mg_vector_create(ctx, &gy, g, MG_FLOAT));
    DIE_IF(mg_vector_load(ctx, gx, hx));
    mg_program p;
    mg_program_init(&p);
    p.contribution = MG_CONTRIB_SRC_TIMES_WEIGHT;
    p.combine = MG_COMBINE_SUM;
    p.apply = MG_APPLY_AFFINE; /* y = 1 * sum + 0 on every row, empty ones too */
    p.edges = MG_EDGES_IN;
    DIE_IF(mg_context_set_mode(ctx, MG_MODE_DENSE));
    double ms[BENCH_MAX_RUNS];
    for (int r = -2; r < runs; r++) { /* the first call builds the blocks, the second warms up */
        run_start(timer, r);
        DIE_IF(mg_advance(ctx, g, &p, NULL, gx, gy, NULL, NULL));
        DIE_IF(mg__gpu_timer_stop(ctx, timer, r < 0 ? &ms[0] : &ms[r]));
    }
    runs_late(timer);
    DIE_IF(mg_context_set_mode(ctx, MG_MODE_AUTO));
    float *hy = xmalloc((size_t)n * 4 + 4);
    DIE_IF(mg_vector_extract(ctx, gy, hy));
    mg_dense y = NULL;
    DIE_IF(mg_dense_create(ctx, &y, n, 1, MG_FLOAT));
    DIE_IF(mg_dense_load(ctx, y, hy));
    check_result(e, true, "the dense engine's blocks", A, x, y);
    mg_dense_free(&y);
    free(hy);
    mg_vector_free(&gx);
    mg_vector_free(&gy);
    mg_graph_free(&g);
    return median(ms, runs);
}

#ifdef MG_BENCH_CUSPARSE

/* cusparseSpMV on A with each algorithm: the default's median ms, the best's and its name; each
 * algorithm's y checked (x: the same values as mgraph's, hx on the host). */
static void time_cusparse(const set_entry *e, const mg_matrix A, const mg_dense x, const void *hx,
                          bool single, int runs, mg__gpu_timer *timer, double *ms_default,
                          double *ms_best, const char **best) {
    const uint32_t rows = mg_matrix_rows(A), cols = mg_matrix_cols(A);
    const uint64_t nnz = mg_matrix_nnz(A);
    if (nnz >= (1ull << 31)) {
        fprintf(stderr, BENCH_NAME ": %s: %llu entries: the cuSPARSE comparison uses 32-bit offsets\n",
                e->name, (unsigned long long)nnz);
        exit(1);
    }
    const size_t vs = single ? 4 : 8;
    const cudaDataType dt = single ? CUDA_R_32F : CUDA_R_64F;
    const uint64_t *off;
    const uint32_t *idx;
    const void *val;
    DIE_IF(mg_matrix_csr(A, &off, &idx, &val));
    int32_t *rows32 = xmalloc(((size_t)rows + 1) * 4);
    for (uint32_t i = 0; i <= rows; i++) rows32[i] = (int32_t)off[i];
    void *d_rows = NULL, *d_cols = NULL, *d_vals = NULL, *d_x = NULL, *d_y = NULL;
    DIE_IF(mg__gpu_alloc(ctx, &d_rows, ((size_t)rows + 1) * 4));
    DIE_IF(mg__gpu_alloc(ctx, &d_cols, nnz * 4 + 4));
    DIE_IF(mg__gpu_alloc(ctx, &d_vals, nnz * vs + vs));
    DIE_IF(mg__gpu_alloc(ctx, &d_x, (size_t)cols * vs + vs));
    DIE_IF(mg__gpu_alloc(ctx, &d_y, (size_t)rows * vs + vs));
    DIE_IF(mg__gpu_copy_to_device(ctx, d_rows, rows32, ((size_t)rows + 1) * 4));
    DIE_IF(mg__gpu_copy_to_device(ctx, d_cols, idx, nnz * 4));
    DIE_IF(mg__gpu_copy_to_device(ctx, d_vals, val, nnz * vs));
    DIE_IF(mg__gpu_copy_to_device(ctx, d_x, hx, (size_t)cols * vs));
    free(rows32);
    void *hy = xmalloc((size_t)rows * vs + vs);
    mg_dense yc = NULL;
    DIE_IF(mg_dense_create(ctx, &yc, rows, 1, single ? MG_FLOAT : MG_DOUBLE));

    cusparseHandle_t h;
    cusparseSpMatDescr_t mA;
    cusparseDnVecDescr_t vX, vY;
    CS(cusparseCreate(&h));
    CS(cusparseCreateCsr(&mA, rows, cols, (int64_t)nnz, d_rows, d_cols, d_vals, CUSPARSE_INDEX_32I,
                         CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, dt));
    CS(cusparseCreateDnVec(&vX, cols, d_x, dt));
    CS(cusparseCreateDnVec(&vY, rows, d_y, dt));
    const float one_f = 1, zero_f = 0;
    const double one_d = 1, zero_d = 0;
    const void *alpha = single ? (const void *)&one_f : (const void *)&one_d;
    const void *beta = single ? (const void *)&zero_f : (const void *)&zero_d;
    static const cusparseSpMVAlg_t algs[] = {CUSPARSE_SPMV_ALG_DEFAULT, CUSPARSE_SPMV_CSR_ALG1,
                                             CUSPARSE_SPMV_CSR_ALG2};
    static const char *const names[] = {"default", "csr_alg1", "csr_alg2"};
    *ms_best = INFINITY;
    for (int a = 0; a < 3; a++) {
        size_t bytes = 0;
        void *d_buf = NULL;
        CS(cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, alpha, mA, vX, beta, vY, dt,
                                   algs[a], &bytes));
        DIE_IF(mg__gpu_alloc(ctx, &d_buf, bytes ? bytes : 8));
        CS(cusparseSpMV_preprocess(h, CUSPARSE_OPERATION_NON_TRANSPOSE, alpha, mA, vX, beta, vY, dt,
                                   algs[a], d_buf));
        CUDA(cudaMemset(d_y, 0xff, (size_t)rows * vs)); /* NaN: an unwritten row fails the check */
        double ms[BENCH_MAX_RUNS];
        for (int r = -1; r < runs; r++) {
            run_start(timer, r);
            CS(cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, alpha, mA, vX, beta, vY, dt, algs[a],
                            d_buf));
            DIE_IF(mg__gpu_timer_stop(ctx, timer, r < 0 ? &ms[0] : &ms[r]));
        }
        runs_late(timer);
        CUDA(cudaGetLastError());
        mg__gpu_free(d_buf);
        const double t = median(ms, runs);
        DIE_IF(mg__gpu_copy_to_host(ctx, hy, d_y, (size_t)rows * vs));
        DIE_IF(mg_dense_load(ctx, yc, hy));
        char who[64];
        snprintf(who, sizeof who, "cuSPARSE %s", names[a]);
        check_result(e, single, who, A, x, yc);
        if (a == 0) *ms_default = t;
        if (t < *ms_best) {
            *ms_best = t;
            *best = names[a];
        }
    }
    CS(cusparseDestroySpMat(mA));
    CS(cusparseDestroyDnVec(vX));
    CS(cusparseDestroyDnVec(vY));
    CS(cusparseDestroy(h));
    mg_dense_free(&yc);
    free(hy);
    mg__gpu_free(d_rows);
    mg__gpu_free(d_cols);
    mg__gpu_free(d_vals);
    mg__gpu_free(d_x);
    mg__gpu_free(d_y);
}
#endif

/* One matrix in one precision: a table row and the summaries. */
static void bench_one(const set_entry *e, bool single, int runs, bool blocks, out_format fmt,
                      const mg_gpu_probe_result *probe, mg__gpu_timer *timer, summary *s) {
    const mg_type type = single ? MG_FLOAT : MG_DOUBLE;
    const size_t vs = single ? 4 : 8;
    mg_matrix A = NULL;
    set_load(e, single ? MG_VALUES_FLOAT : MG_VALUES_DOUBLE, &A);
    const uint32_t rows = mg_matrix_rows(A), cols = mg_matrix_cols(A);
    const uint64_t nnz = mg_matrix_nnz(A);
    mg_gpu_matrix_info info;
    DIE_IF(mg_matrix_gpu_prepare(ctx, A, &info));
    void *hx = set_random_vector(cols, type, 42);
    mg_dense x = NULL, y = NULL;
    DIE_IF(mg_dense_create(ctx, &x, cols, 1, type));
    DIE_IF(mg_dense_create(ctx, &y, rows, 1, type));
    DIE_IF(mg_dense_load(ctx, x, hx));
    const double ms_mg = time_mgraph(A, x, y, runs, timer);
    check_result(e, single, "mgraph", A, x, y);
    double ms_default = NAN, ms_best = NAN;
    const char *best = "-";
#ifdef MG_BENCH_CUSPARSE
    time_cusparse(e, A, x, hx, single, runs, timer, &ms_default, &ms_best, &best);
#endif
    const double ms_blocks = blocks ? time_blocks(e, A, x, hx, runs, timer) : NAN;
    const double bytes = spmv_min_bytes(A, vs), gbs = bytes / (ms_mg * 1e6);
    const double pct = 100 * gbs / probe->read_gbs, speedup = ms_best / ms_mg;
    const bool big = bytes > 4.0 * (double)probe->l2_bytes;
    const double prep_ratio = info.seconds * 1e3 / ms_mg;
    char v[NSPMV][64];
    table_row_head(v, e->name, single, A);
    snprintf(v[4], 64, "%.1f", bytes / 1e6);
    snprintf(v[5], 64, "%.4f", ms_mg);
    snprintf(v[6], 64, "%.4f", ms_default);
    snprintf(v[7], 64, "%.4f", ms_best);
    snprintf(v[8], 64, "%s", best);
    snprintf(v[9], 64, "%.2f", speedup);
    snprintf(v[10], 64, "%.1f", 2.0 * (double)nnz / (ms_mg * 1e6));
    snprintf(v[11], 64, "%.0f", gbs);
    snprintf(v[12], 64, "%.1f", pct);
    snprintf(v[13], 64, "%s", big ? "yes" : "no");
    snprintf(v[14], 64, "%.3f", info.seconds * 1e3);
    snprintf(v[15], 64, "%.2f", prep_ratio);
    snprintf(v[16], 64, "%.3f", info.upload_seconds * 1e3);
    snprintf(v[17], 64, "%s", info.kernel[0] ? info.kernel : "-");
    snprintf(v[18], 64, "%.4f", ms_blocks);
    snprintf(v[19], 64, "%.2f", ms_best / ms_blocks);
    table_row(fmt, "spmv", kSpmvColumns, NSPMV, v);
    fflush(stdout);
    geo_add(&s->speedup, speedup, e->name);
    if (big) {
        geo_add(&s->speedup_big, speedup, e->name);
        geo_add(&s->pct_big, pct, e->name);
    }
    geo_add(&s->prep, prep_ratio, e->name);
    if (!isnan(ms_blocks)) {
        geo_add(&s->blocks, ms_blocks / ms_mg, e->name);
        s->blocks_faster += ms_blocks < ms_mg;
    }
    s->prep_over_5 += prep_ratio > 5;
    if (prep_ratio > s->worst_prep) {
        s->worst_prep = prep_ratio;
        snprintf(s->worst_prep_name, sizeof s->worst_prep_name, "%s", e->name);
    }
    free(hx);
    mg_dense_free(&x);
    mg_dense_free(&y);
    mg_matrix_free(&A);
}

/* CG solves that broke down (no row for them; the summary says how many). */
static int cg_breakdowns;

/* CG on one SPD matrix in one precision: a table row; the ratio into g. */
static void bench_cg(const set_entry *e, bool single, int runs, int iters, out_format fmt,
                     const mg_gpu_probe_result *probe, mg__gpu_timer *timer, geo *g) {
    const mg_type type = single ? MG_FLOAT : MG_DOUBLE;
    const size_t vs = single ? 4 : 8;
    mg_matrix A = NULL;
    set_load(e, single ? MG_VALUES_FLOAT : MG_VALUES_DOUBLE, &A);
    const uint32_t n = mg_matrix_rows(A);
    mg_gpu_matrix_info info;
    DIE_IF(mg_matrix_gpu_prepare(ctx, A, &info));
    void *hb = set_random_vector(n, type, 7);
    mg_dense b = NULL, x = NULL, q = NULL;
    DIE_IF(mg_dense_create(ctx, &b, n, 1, type));
    DIE_IF(mg_dense_create(ctx, &x, n, 1, type));
    DIE_IF(mg_dense_create(ctx, &q, n, 1, type));
    DIE_IF(mg_dense_load(ctx, b, hb));
    const double ms_spmv = time_mgraph(A, b, q, runs, timer);
    check_result(e, single, "mgraph", A, b, q);
    const int solves = runs / 3 + 1;
    double per_iter[BENCH_MAX_RUNS];
    int solves_done = 0;
    mg_cg_options co;
    for (int r = -1; r < solves; r++) {
        DIE_IF(mg_dense_fill(ctx, x, 0));
        mg_cg_options_init(&co);
        /* a fixed number of iterations: a tolerance no solve reaches */
        co.tolerance = 1e-30;
        co.max_iterations = iters;
        const mg_status st = mg_cg(ctx, A, b, x, &co);
        if (st == MG_BREAKDOWN) { /* rounding can end a long solve (fp32): no row, counted */
            fprintf(stderr, BENCH_NAME ": CG %s %s: %s\n", e->name, single ? "fp32" : "fp64",
                    mg_context_error(ctx));
            cg_breakdowns++;
            break;
        }
        if (st != MG_SUCCESS && st != MG_NOT_CONVERGED) {
            fprintf(stderr, BENCH_NAME ": %s %s: mg_cg: %s\n", e->name, single ? "fp32" : "fp64",
                    mg_context_error(ctx));
            exit(1);
        }
        if (co.iterations <= 0 || !isfinite(co.residual)) {
            fprintf(stderr, BENCH_NAME ": %s %s: mg_cg ran %d iterations to a residual of %g\n",
                    e->name, single ? "fp32" : "fp64", co.iterations, co.residual);
            exit(1);
        }
        if (r >= 0) per_iter[solves_done++] = co.seconds * 1e3 / co.iterations;
    }
    if (solves_done < solves) {
        free(hb);
        mg_dense_free(&b);
        mg_dense_free(&x);
        mg_dense_free(&q);
        mg_matrix_free(&A);
        return;
    }
    const double ms_iter = median(per_iter, solves);
    const double vector_bytes = 9.0 * n * (double)vs;
    const double model = ms_spmv + vector_bytes / (probe->read_gbs * 1e6);
    char v[NCG][64];
    table_row_head(v, e->name, single, A);
    snprintf(v[4], 64, "%d", co.iterations);
    snprintf(v[5], 64, "%.2e", co.residual);
    snprintf(v[6], 64, "%.4f", ms_iter);
    snprintf(v[7], 64, "%.4f", ms_spmv);
    snprintf(v[8], 64, "%.1f", vector_bytes / 1e6);
    snprintf(v[9], 64, "%.4f", model);
    snprintf(v[10], 64, "%.2f", ms_iter / model);
    table_row(fmt, "cg", kCgColumns, NCG, v);
    fflush(stdout);
    geo_add(g, ms_iter / model, e->name);
    free(hb);
    mg_dense_free(&b);
    mg_dense_free(&x);
    mg_dense_free(&q);
    mg_matrix_free(&A);
}

static void usage(FILE *f) {
    fprintf(f, "usage: " BENCH_NAME " [--cg-nnz N] [--cg-iters K] [--no-cg] [--blocks] [--timing T]\n"
               "       [--real DIR | --no-real]\n"
               "       [--min-graph-nnz N] [--sizes LIST] [--kinds LIST] [--precision P] [--runs R]\n"
               "       [--format F]\n"
               "mgraph's mg_spmv on the GPU against cuSPARSE (default and best CSR algorithm), each\n"
               "result validated, with the probe's read bandwidth as the roofline; then mg_cg per\n"
               "iteration against one SpMV + 9 vectors of traffic.\n"
               "  --cg-nnz N          the generated Poisson 2D/3D CG matrices' nonzeros (default 50M)\n"
               "  --cg-iters K        CG iterations per solve (default 200)\n"
               "  --no-cg             no CG part\n"
               "  --blocks            also time square fp32 matrices on the dense engine's 2D blocks\n"
               "                      (a graph of the entries, mg_advance in MG_MODE_DENSE)\n"
               "  --timing T          gpu (default): each run queued behind a 200 us hold of the\n"
               "                      stream, timing the GPU's work as in back-to-back calls; call:\n"
               "                      each run from an idle GPU, the host's launch included\n" SET_USAGE
               "                      (default sizes: 1M,16M,64M,200M)\n"
               "exit: 0 done (or skipped: no GPU), 1 an error or a wrong result, 2 a usage error\n");
}

int main(int argc, char **argv) {
    set_options o;
    set_options_init(&o, "1M,16M,64M,200M");
    uint64_t cg_nnz = 50000000;
    int cg_iters = 200;
    bool cg = true, blocks = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--no-cg") == 0) {
            cg = false;
            continue;
        }
        if (strcmp(argv[i], "--blocks") == 0) {
            blocks = true;
            continue;
        }
        if (strcmp(argv[i], "--timing") == 0) {
            const char *v = i + 1 < argc ? argv[++i] : "";
            if (strcmp(v, "gpu") != 0 && strcmp(v, "call") != 0) {
                fprintf(stderr, BENCH_NAME ": --timing wants gpu or call\n");
                return 2;
            }
            held = strcmp(v, "gpu") == 0;
            continue;
        }
        if (strcmp(argv[i], "--cg-nnz") == 0 || strcmp(argv[i], "--cg-iters") == 0) {
            uint64_t value = 0;
            if (i + 1 >= argc || !parse_count(argv[i + 1], &value) ||
                (strcmp(argv[i], "--cg-iters") == 0 && value > 100000)) {
                fprintf(stderr, BENCH_NAME ": %s wants %s\n", argv[i],
                        strcmp(argv[i], "--cg-nnz") == 0 ? "a count like 50M" : "1..100000");
                return 2;
            }
            if (strcmp(argv[i], "--cg-nnz") == 0) cg_nnz = value;
            else cg_iters = (int)value;
            i++;
            continue;
        }
        const int rc = set_parse_or_exit(argc, argv, &i, &o, usage);
        if (rc >= 0) return rc;
    }
    static set_entry set[SET_MAX];
    const int count = set_build(&o, set);
    if (count == 0 && !cg) {
        fprintf(stderr, BENCH_NAME ": nothing to run (no real matrices, --kinds none, --no-cg)\n");
        return 2;
    }
    /* Every kernel loaded when the context starts, not at its first launch: a matrix's preprocessing
     * is then its own build, not the process's one-time loading of the build kernels (the first
     * matrix of a run read 330-440 calls with lazy loading, H200, session 25). */
    setenv("CUDA_MODULE_LOADING", "EAGER", 0);
    mg__gpu_info gi;
    const int early = bench_start(&gi);
    if (early >= 0) return early;
    DIE_IF(mg_context_set_backend(ctx, MG_BACKEND_GPU));
    mg_gpu_probe_result probe;
    DIE_IF(mg_gpu_probe(ctx, &probe));
    mg__gpu_timer *timer = NULL;
    DIE_IF(mg__gpu_timer_create(ctx, &timer));
    table_note(o.format, "device %s, L2 %.1f MB; probe: read %.0f GB/s, copy %.0f GB/s, launch %.2f us",
               probe.name, probe.l2_bytes / 1e6, probe.read_gbs, probe.copy_gbs, probe.launch_latency_us);
#ifndef MG_BENCH_CUSPARSE
    table_note(o.format, "built without cuSPARSE: its columns show nan");
#endif
    set_warm_build(false);
    summary s[2];
    memset(s, 0, sizeof s);
    if (count > 0) {
        table_note(o.format, "SpMV y = A x, median of %d runs after a warm-up (CUDA events, %s); MB = the "
                   "minimum bytes (CSR with 4-byte offsets, x read, y written); speedup = best "
                   "cuSPARSE ms / mgraph ms; pct_bw = GB/s / the probe's read bandwidth; prep = "
                   "mg_matrix_gpu_prepare's device build (kernels loaded at the start: "
                   "CUDA_MODULE_LOADING=%s)", o.runs,
                   held ? "each run queued behind a hold of the stream: the GPU's time" :
                          "each run from an idle GPU: the host's launch included",
                   getenv("CUDA_MODULE_LOADING"));
        table_header(o.format, kSpmvColumns, NSPMV);
        for (int i = 0; i < count; i++) {
            if (o.single) bench_one(&set[i], true, o.runs, blocks, o.format, &probe, timer, &s[0]);
            if (o.dbl) bench_one(&set[i], false, o.runs, blocks, o.format, &probe, timer, &s[1]);
        }
        for (int p = 0; p < 2; p++) {
            if (s[p].speedup.count == 0) continue;
            const char *pn = p ? "fp64" : "fp32";
            table_note(o.format, "%s all %d: geometric mean speedup %.2fx, least %.2fx (%s); "
                       "preprocessing %.2f calls (geometric mean), at most %.2f (%s), over 5 on %d",
                       pn, s[p].speedup.count, geo_mean(&s[p].speedup), s[p].speedup.min,
                       s[p].speedup.min_name, geo_mean(&s[p].prep), s[p].worst_prep, s[p].worst_prep_name,
                       s[p].prep_over_5);
            if (s[p].speedup_big.count)
                table_note(o.format, "%s over 4x L2, %d: geometric mean speedup %.2fx, least %.2fx (%s); "
                           "geometric mean %.1f%% of the probe's bandwidth, least %.1f%% (%s)", pn,
                           s[p].speedup_big.count, geo_mean(&s[p].speedup_big), s[p].speedup_big.min,
                           s[p].speedup_big.min_name, geo_mean(&s[p].pct_big), s[p].pct_big.min,
                           s[p].pct_big.min_name);
            if (s[p].blocks.count)
                table_note(o.format, "%s, the dense engine's blocks (--blocks) on %d square matrices: "
                           "their time / mg_spmv's %.2f (geometric mean), least %.2f (%s); faster "
                           "than mg_spmv on %d", pn, s[p].blocks.count, geo_mean(&s[p].blocks),
                           s[p].blocks.min, s[p].blocks.min_name, s[p].blocks_faster);
        }
        if (late_runs)
            table_note(o.format, "--timing gpu: %d timed runs were queued only after the hold's end "
                       "(they may include the host's launch)", late_runs);
    }
    if (cg) {
        set_entry cgset[SET_MAX + 2];
        int ncg = 0;
        for (int i = 0; i < count; i++)
            if (set[i].spd && set[i].path[0]) cgset[ncg++] = set[i];
        set_generated(&cgset[ncg++], GEN_POISSON2D, cg_nnz);
        set_generated(&cgset[ncg++], GEN_POISSON3D, cg_nnz);
        table_note(o.format, "CG per iteration (%d iterations a solve, no preconditioner), median of %d "
                   "solves after a warm-up; model = one SpMV (measured) + 9 n values of vector "
                   "traffic (p'q fused into the SpMV; x, r and r'r one pass; p one pass) at the probe's read bandwidth; ratio = measured / model", cg_iters,
                   o.runs / 3 + 1);
        table_header(o.format, kCgColumns, NCG);
        geo g[2];
        memset(g, 0, sizeof g);
        for (int i = 0; i < ncg; i++) {
            if (o.single) bench_cg(&cgset[i], true, o.runs, cg_iters, o.format, &probe, timer, &g[0]);
            if (o.dbl) bench_cg(&cgset[i], false, o.runs, cg_iters, o.format, &probe, timer, &g[1]);
        }
        for (int p = 0; p < 2; p++)
            if (g[p].count)
                table_note(o.format, "CG %s: geometric mean ratio to the model %.2f over %d matrices, "
                           "best %.2f (%s)", p ? "fp64" : "fp32", geo_mean(&g[p]), g[p].count, g[p].min,
                           g[p].min_name);
        if (cg_breakdowns)
            table_note(o.format, "CG: %d matrix/precision pairs broke down (no row; stderr says where)",
                       cg_breakdowns);
    }
    mg__gpu_timer_free(&timer);
    mg_context_free(&ctx);
    return 0;
}
