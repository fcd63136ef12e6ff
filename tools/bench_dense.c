/*
 * bench_dense.c — the dense-frontier engine (MultiGraphD, issue 4) on a PageRank iteration:
 * y = 0.85 * sum over in-edges of x[s] / outdeg(s) + 0.15 / n, every vertex active, float values,
 * on R-MAT and uniform random graphs (scale S, edge factor 16, mg_generate), each as generated and
 * with its vertices randomly renumbered. In the same run, on the same matrix:
 *   dense     mg__gpu_dense_advance on the form with the device-derived parameters,
 *   pull      mg__gpu_advance forced to pull (ctx mode MG_MODE_PULL; plain CSC, a thread or warp
 *             per destination),
 *   cusparse  cusparseSpMV on the CSR of the transition matrix (rows: destinations, values
 *             1/outdeg(source), float), alpha 0.85, beta 1 on y preset to 0.15/n (the preset is not
 *             timed).
 * Each is timed with CUDA events around the call (the engines' calls include their scratch handling
 * and result read-back), one warm-up, then the median of R runs. dense and cusparse are checked
 * against pull (largest relative difference over all vertices). Then a tuning sweep on the first
 * graph (heavy threshold x panel width, a few panel heights and unit sizes -> build time, memory,
 * iteration time), and a sweep of the band size (slots per band of row panels: shares of the H100's
 * L2, and one band) on the R-MAT and uniform graphs as generated.
 *
 *   bench_dense [--scale S] [--runs R] [--no-sweep] [--iterations 1 [--graph rmat|uniform]
 *               [--band-slots B]]
 * Defaults: S = 22, R = 7. --iterations 1 builds one graph (R-MAT unless --graph uniform) and runs
 * one dense iteration and nothing else (no warm-up), on the derived form or, with --band-slots, on
 * one with bands of B slots (0: derived, 4294967295: one band): for profiling the phase kernels, e.g.
 *   ncu --clock-control none --metrics dram__bytes_read.sum,dram__bytes_write.sum \
 *       -k regex:"heavy_kernel|light_kernel|phase2_kernel|source_values_kernel" \
 *       bench_dense --iterations 1
 */
#define _POSIX_C_SOURCE 200809L
#define BENCH_NAME "bench_dense"
#include "bench_common.h"
#include "../preprocess/dense_blocks.h"

#include <math.h>

#ifdef MG_BENCH_CUSPARSE
#include "bench_cusparse.h"
#endif

static uint64_t rng = 0x2545F4914F6CDD1Dull;
static uint64_t next_rand(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* A generated graph on the device (its host form is dropped once the device has it). */
typedef struct {
    char name[64];
    mg__gpu_graph dev;
    float *d_x, *d_y, *d_ref;
    float *h_y0;      /* 0.15 / n everywhere: cusparse's preset y */
} pr_graph;

static void pr_graph_build(pr_graph *B, mg_generator kind, int scale, bool renumber) {
    memset(B, 0, sizeof *B);
    snprintf(B->name, sizeof B->name, "%s%d%s", kind == MG_GEN_RMAT ? "rmat" : "uniform", scale,
             renumber ? " renum" : "");
    mg_gen_options o;
    mg_gen_options_init(&o);
    o.kind = kind;
    o.scale = scale;
    o.edge_factor = 16;
    o.seed = 1;
    mg_graph host = NULL;
    DIE_IF(mg_generate(ctx, &host, &o));
    const uint32_t n = host->n;
    const uint64_t m = host->m;
    const uint64_t *off;
    const uint32_t *idx;
    mg_graph_csr(host, &off, &idx, NULL);
    uint32_t *perm = malloc((size_t)n * 4 + 4);
    if (perm == NULL) exit(1);
    for (uint32_t v = 0; v < n; v++) perm[v] = v;
    if (renumber)
        for (uint32_t v = n - 1; v > 0; v--) {
            const uint32_t j = (uint32_t)(next_rand() % ((uint64_t)v + 1)), t = perm[v];
            perm[v] = perm[j];
            perm[j] = t;
        }
    /* the stored edges are already both ways: a directed list, kept as it is */
    mg__coo coo;
    DIE_IF(mg__coo_init(ctx, &coo, m, false, MG_WEIGHT_NONE));
    coo.n = n;
    coo.m = m;
#pragma omp parallel for schedule(dynamic, 4096)
    for (uint32_t v = 0; v < n; v++)
        for (uint64_t e = off[v]; e < off[v + 1]; e++) {
            coo.src[e] = perm[v];
            coo.dst[e] = perm[idx[e]];
        }
    mg_graph_free(&host);
    free(perm);
    mg_graph_options go;
    mg_graph_options_init(&go);
    go.directed = true;
    go.keep_self_loops = true;
    go.keep_duplicates = true;
    DIE_IF(mg__gpu_graph_build(ctx, &coo, &go, &B->dev));
    mg__coo_free(&coo);
    DIE_IF(mg__gpu_alloc(ctx, (void **)&B->d_x, (size_t)n * 4 + 4));
    DIE_IF(mg__gpu_alloc(ctx, (void **)&B->d_y, (size_t)n * 4 + 4));
    DIE_IF(mg__gpu_alloc(ctx, (void **)&B->d_ref, (size_t)n * 4 + 4));
    float *x = malloc((size_t)n * 4 + 4);
    B->h_y0 = malloc((size_t)n * 4 + 4);
    if (x == NULL || B->h_y0 == NULL) exit(1);
    for (uint32_t v = 0; v < n; v++) {
        x[v] = (float)((1.0 + v % 7) / n); /* not uniform: which source sends what matters */
        B->h_y0[v] = (float)(0.15 / n);
    }
    DIE_IF(mg__gpu_copy_to_device(ctx, B->d_x, x, (size_t)n * 4));
    free(x);
    printf("\n%s: n=%u m=%llu stored edges, CSR %.1f MB, device preprocessing %.1f ms\n", B->name,
           n, (unsigned long long)B->dev.m, B->dev.csr_bytes / 1e6, B->dev.seconds * 1e3);
}

static void pr_graph_free(pr_graph *B) {
    mg__gpu_graph_free(&B->dev);
    mg__gpu_free(B->d_x);
    mg__gpu_free(B->d_y);
    mg__gpu_free(B->d_ref);
    free(B->h_y0);
}

static void pagerank_program(mg_program *p, uint32_t n) {
    mg_program_init(p);
    p->contribution = MG_CONTRIB_SRC_DIV_OUTDEG;
    p->combine = MG_COMBINE_SUM;
    p->apply = MG_APPLY_AFFINE;
    p->alpha = 0.85;
    p->beta = 0.15 / n;
}

/* Median milliseconds of `runs` dense (d != NULL) or pull iterations after one warm-up (none when
 * runs is 0: one timed iteration). */
static double time_engine(pr_graph *B, const mg__gpu_dense *d, int runs, mg__gpu_timer *timer) {
    mg_program p;
    pagerank_program(&p, B->dev.n);
    DIE_IF(mg_context_set_mode(ctx, d ? MG_MODE_AUTO : MG_MODE_PULL));
    double ms[64];
    const int from = runs > 0 ? -1 : 0, to = runs > 0 ? runs : 1;
    for (int r = from; r < to; r++) {
        mg__gpu_advance_args a = {.g = &B->dev, .program = &p, .type = MG_FLOAT, .d_x = B->d_x,
                                  .d_y = d ? B->d_y : B->d_ref};
        mg_advance_info info;
        DIE_IF(mg__gpu_timer_start(ctx, timer));
        DIE_IF(d ? mg__gpu_dense_advance(ctx, d, &a, &info) : mg__gpu_advance(ctx, &a, &info));
        DIE_IF(mg__gpu_timer_stop(ctx, timer, r < 0 ? &ms[0] : &ms[r]));
        if (!d && !info.pulled) {
            fprintf(stderr, "bench_dense: the forced pull pushed\n");
            exit(1);
        }
    }
    DIE_IF(mg_context_set_mode(ctx, MG_MODE_AUTO));
    return median(ms, to);
}

/* Largest relative difference of the device array d_got from d_want (n floats). */
static double worst_difference(const float *d_got, const float *d_want, uint32_t n) {
    float *got = malloc((size_t)n * 4 + 4), *want = malloc((size_t)n * 4 + 4);
    if (got == NULL || want == NULL) exit(1);
    DIE_IF(mg__gpu_copy_to_host(ctx, got, d_got, (size_t)n * 4));
    DIE_IF(mg__gpu_copy_to_host(ctx, want, d_want, (size_t)n * 4));
    double worst = 0;
    for (uint32_t v = 0; v < n; v++) {
        const double rel = fabs((double)got[v] - want[v]) / fabs((double)want[v]);
        if (!(rel <= worst)) worst = rel;
    }
    free(got);
    free(want);
    return worst;
}

#ifdef MG_BENCH_CUSPARSE

/* cusparseSpMV on the transition matrix; returns the median ms, leaves y in B->d_y. */
static double time_cusparse(pr_graph *B, int runs, mg__gpu_timer *timer) {
    const uint32_t n = B->dev.n;
    const uint64_t m = B->dev.m;
    uint64_t *in_off = malloc(((size_t)n + 1) * 8), *out_off = malloc(((size_t)n + 1) * 8);
    uint32_t *in_idx = malloc((size_t)m * 4 + 4);
    int32_t *rows = malloc(((size_t)n + 1) * 4);
    float *vals = malloc((size_t)m * 4 + 4);
    if (!in_off || !out_off || !in_idx || !rows || !vals) exit(1);
    DIE_IF(mg__gpu_copy_to_host(ctx, in_off, B->dev.d_in_offsets, ((size_t)n + 1) * 8));
    DIE_IF(mg__gpu_copy_to_host(ctx, out_off, B->dev.d_out_offsets, ((size_t)n + 1) * 8));
    DIE_IF(mg__gpu_copy_to_host(ctx, in_idx, B->dev.d_in_indices, (size_t)m * 4));
    for (uint32_t v = 0; v <= n; v++) rows[v] = (int32_t)in_off[v];
#pragma omp parallel for schedule(static)
    for (uint64_t e = 0; e < m; e++) {
        const uint32_t s = in_idx[e];
        vals[e] = (float)(1.0 / (double)(out_off[s + 1] - out_off[s]));
    }
    void *d_rows = NULL, *d_vals = NULL, *d_buf = NULL;
    DIE_IF(mg__gpu_alloc(ctx, &d_rows, ((size_t)n + 1) * 4));
    DIE_IF(mg__gpu_alloc(ctx, &d_vals, (size_t)m * 4 + 4));
    DIE_IF(mg__gpu_copy_to_device(ctx, d_rows, rows, ((size_t)n + 1) * 4));
    DIE_IF(mg__gpu_copy_to_device(ctx, d_vals, vals, (size_t)m * 4));
    free(in_off);
    free(out_off);
    free(in_idx);
    free(rows);
    free(vals);
    cusparseHandle_t h;
    cusparseSpMatDescr_t A;
    cusparseDnVecDescr_t X, Y;
    CS(cusparseCreate(&h));
    CS(cusparseCreateCsr(&A, n, n, (int64_t)m, d_rows, B->dev.d_in_indices, d_vals, CUSPARSE_INDEX_32I,
                         CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
    CS(cusparseCreateDnVec(&X, n, B->d_x, CUDA_R_32F));
    CS(cusparseCreateDnVec(&Y, n, B->d_y, CUDA_R_32F));
    const float alpha = 0.85f, beta = 1.0f;
    size_t bytes = 0;
    CS(cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, A, X, &beta, Y, CUDA_R_32F,
                               CUSPARSE_SPMV_ALG_DEFAULT, &bytes));
    DIE_IF(mg__gpu_alloc(ctx, &d_buf, bytes ? bytes : 8));
    CS(cusparseSpMV_preprocess(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, A, X, &beta, Y, CUDA_R_32F,
                               CUSPARSE_SPMV_ALG_DEFAULT, d_buf));
    double ms[64];
    for (int r = -1; r < runs; r++) {
        DIE_IF(mg__gpu_copy_to_device(ctx, B->d_y, B->h_y0, (size_t)n * 4));
        DIE_IF(mg__gpu_timer_start(ctx, timer));
        CS(cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, A, X, &beta, Y, CUDA_R_32F,
                        CUSPARSE_SPMV_ALG_DEFAULT, d_buf));
        DIE_IF(mg__gpu_timer_stop(ctx, timer, r < 0 ? &ms[0] : &ms[r]));
    }
    CS(cusparseDestroySpMat(A));
    CS(cusparseDestroyDnVec(X));
    CS(cusparseDestroyDnVec(Y));
    CS(cusparseDestroy(h));
    mg__gpu_free(d_rows);
    mg__gpu_free(d_vals);
    mg__gpu_free(d_buf);
    return median(ms, runs);
}
#endif

static void print_form(const char *label, const mg__gpu_dense *d) {
    mg__gpu_dense_stats s;
    mg__gpu_dense_get_stats(d, &s);
    const double m = (double)(s.heavy_edges + s.light_edges);
    printf("%s: W=%u H=%u threshold=%u unit=%u band=%u slots; %u x %u panels; heavy %.1f%% of edges "
           "in %llu blocks (%llu units), light %llu blocks (%llu items); %.1fM slots in %u bands, "
           "%.2f%% of them escaped; %.1f MB = %.2fx CSR; build %.1f ms\n",
           label, s.params.panel_width, s.params.panel_height, s.params.heavy_threshold,
           s.params.unit_edges, s.params.band_slots, s.col_panels, s.row_panels,
           m ? 100.0 * s.heavy_edges / m : 0, (unsigned long long)s.heavy_blocks,
           (unsigned long long)s.heavy_units, (unsigned long long)s.light_blocks,
           (unsigned long long)s.light_items, s.slots / 1e6, s.bands,
           s.slots ? 100.0 * s.escapes / s.slots : 0, s.bytes / 1e6,
           (double)s.bytes / (double)s.csr_bytes, s.seconds * 1e3);
}

/* One graph: dense vs pull vs cusparse; appends a summary row. */
static void bench_graph_pagerank(pr_graph *B, int runs, mg__gpu_timer *timer, char *summary,
                                 size_t cap) {
    const uint32_t n = B->dev.n;
    const double m = (double)B->dev.m;
    const mg__gpu_dense *d = NULL;
    DIE_IF(mg__gpu_dense_get(ctx, &B->dev, MG_EDGES_OUT, &d));
    print_form("dense form (derived)", d);
    mg__gpu_dense_stats s;
    mg__gpu_dense_get_stats(d, &s);
    const double t_pull = time_engine(B, NULL, runs, timer);
    const double t_dense = time_engine(B, d, runs, timer);
    const double diff_dense = worst_difference(B->d_y, B->d_ref, n);
    double t_cs = NAN, diff_cs = NAN;
#ifdef MG_BENCH_CUSPARSE
    t_cs = time_cusparse(B, runs, timer);
    diff_cs = worst_difference(B->d_y, B->d_ref, n);
#endif
    if (!(diff_dense <= 1e-3) || (!isnan(diff_cs) && !(diff_cs <= 1e-3))) {
        fprintf(stderr, "bench_dense: %s: results differ from the pull: dense %.2e, cusparse %.2e\n",
                B->name, diff_dense, diff_cs);
        exit(1);
    }
    printf("%s pagerank iteration (float, median of %d): dense %.3f ms, pull %.3f ms, cusparse %.3f "
           "ms; largest relative difference from pull: dense %.1e, cusparse %.1e\n",
           B->name, runs, t_dense, t_pull, t_cs, diff_dense, diff_cs);
    const size_t used = strlen(summary);
    snprintf(summary + used, cap - used,
             "%-16s %7.3f %6.2f %7.3f %6.2f %7.3f %6.2f %8.2f %8.2f %6.2fx %8.1f\n", B->name, t_dense,
             m / (t_dense * 1e6), t_pull, m / (t_pull * 1e6), t_cs, m / (t_cs * 1e6), t_pull / t_dense,
             t_cs / t_dense, (double)s.bytes / (double)s.csr_bytes, s.seconds * 1e3);
}

/* Heavy threshold x panel width (panel height derived from the width), then a few panel heights
 * and unit sizes at the derived width and threshold, on B: build, memory, iteration time. */
static void sweep(pr_graph *B, int runs, mg__gpu_timer *timer) {
    static const mg__gpu_dense_params configs[] = {
        {4096, 0, 1024, 0, 0},     {4096, 0, 4096, 0, 0},     {4096, 0, 16384, 0, 0},
        {8192, 0, 1024, 0, 0},     {8192, 0, 4096, 0, 0},     {8192, 0, 16384, 0, 0},
        {8192, 0, 65536, 0, 0},    {16384, 0, 1024, 0, 0},    {16384, 0, 4096, 0, 0},
        {16384, 0, 16384, 0, 0},   {16384, 0, 65536, 0, 0},   {16384, 4096, 4096, 0, 0},
        {16384, 8192, 4096, 0, 0}, {16384, 0, 4096, 65536, 0},
    };
    const double m = (double)B->dev.m;
    printf("\ntuning sweep on %s (float pagerank iteration, median of %d; 0 = derived)\n", B->name, runs);
    printf("%6s %6s %9s %7s %7s %7s %7s %8s %8s %9s %8s %7s\n", "W", "H", "threshold", "unit",
           "heavy%", "units", "items", "slots(M)", "memxCSR", "build-ms", "dense-ms", "GTEPS");
    for (size_t i = 0; i < sizeof configs / sizeof configs[0]; i++) {
        mg__gpu_dense *d = NULL;
        DIE_IF(mg__gpu_dense_build(ctx, &B->dev, MG_EDGES_OUT, &configs[i], &d));
        mg__gpu_dense_stats s;
        mg__gpu_dense_get_stats(d, &s);
        const double t = time_engine(B, d, runs, timer);
        const double diff = worst_difference(B->d_y, B->d_ref, B->dev.n);
        printf("%6u %6u %9u %7u %7.1f %7llu %7llu %8.1f %8.2f %9.1f %8.3f %7.2f%s\n",
               s.params.panel_width, s.params.panel_height, s.params.heavy_threshold,
               s.params.unit_edges, 100.0 * s.heavy_edges / m, (unsigned long long)s.heavy_units,
               (unsigned long long)s.light_items, s.slots / 1e6, (double)s.bytes / (double)s.csr_bytes,
               s.seconds * 1e3, t, m / (t * 1e6), diff <= 1e-3 ? "" : "  (WRONG)");
        mg__gpu_dense_free(&d);
    }
}

/* The band size (slots per band of row panels; derived: one band) at the derived panels, on B:
 * 1/16 to all of the H100's 50 MB of L2 in 4-byte values, and one band. */
static void band_sweep(pr_graph *B, int runs, mg__gpu_timer *timer) {
    const mg__gpu_dense *derived = NULL;
    DIE_IF(mg__gpu_dense_get(ctx, &B->dev, MG_EDGES_OUT, &derived));
    mg__gpu_dense_stats ds;
    mg__gpu_dense_get_stats(derived, &ds);
    static const uint32_t band_slots[] = {781250, 1562500, 3125000, 6250000, 12500000, UINT32_MAX};
    const double m = (double)B->dev.m;
    printf("\nband sweep on %s (float pagerank iteration, median of %d)\n", B->name, runs);
    printf("%11s %9s %6s %8s %8s %7s\n", "band-slots", "band-MB", "bands", "items", "dense-ms", "GTEPS");
    for (size_t i = 0; i < sizeof band_slots / sizeof band_slots[0]; i++) {
        mg__gpu_dense_params prm = ds.params;
        prm.band_slots = band_slots[i];
        mg__gpu_dense *d = NULL;
        DIE_IF(mg__gpu_dense_build(ctx, &B->dev, MG_EDGES_OUT, &prm, &d));
        mg__gpu_dense_stats s;
        mg__gpu_dense_get_stats(d, &s);
        const double t = time_engine(B, d, runs, timer);
        const double diff = worst_difference(B->d_y, B->d_ref, B->dev.n);
        if (band_slots[i] == UINT32_MAX) printf("%11s %9s", "one band", "-");
        else printf("%11u %9.1f", band_slots[i], band_slots[i] * 4.0 / 1e6);
        printf(" %6u %8llu %8.3f %7.2f%s\n", s.bands, (unsigned long long)s.light_items, t,
               m / (t * 1e6), diff <= 1e-3 ? "" : "  (WRONG)");
        mg__gpu_dense_free(&d);
    }
}

int main(int argc, char **argv) {
    int scale = 22, runs = 7, iterations = 0;
    long long band_slots = -1; /* --band-slots: the form of --iterations 1 */
    bool do_sweep = true;
    mg_generator profile_kind = MG_GEN_RMAT;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--scale") == 0 && i + 1 < argc) scale = atoi(argv[++i]);
        else if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc) runs = atoi(argv[++i]);
        else if (strcmp(argv[i], "--iterations") == 0 && i + 1 < argc) iterations = atoi(argv[++i]);
        else if (strcmp(argv[i], "--no-sweep") == 0) do_sweep = false;
        else if (strcmp(argv[i], "--band-slots") == 0 && i + 1 < argc) band_slots = atoll(argv[++i]);
        else if (strcmp(argv[i], "--graph") == 0 && i + 1 < argc && strcmp(argv[i + 1], "rmat") == 0)
            profile_kind = MG_GEN_RMAT, i++;
        else if (strcmp(argv[i], "--graph") == 0 && i + 1 < argc && strcmp(argv[i + 1], "uniform") == 0)
            profile_kind = MG_GEN_UNIFORM, i++;
        else {
            fprintf(stderr, "usage: bench_dense [--scale S] [--runs R] [--no-sweep] [--iterations 1 "
                            "[--graph rmat|uniform] [--band-slots B]]\n");
            return 2;
        }
    }
    if (scale < 8 || scale > 26 || runs < 5 || runs > BENCH_MAX_RUNS ||
        (iterations != 0 && iterations != 1) ||
        band_slots < -1 || band_slots > 4294967295LL || (band_slots >= 0 && iterations != 1)) {
        fprintf(stderr, "bench_dense: --scale 8..26, --runs 5..63, --iterations 1, --band-slots "
                        "0..4294967295 with --iterations 1\n");
        return 2;
    }
    mg__gpu_info gi;
    const int early = bench_start(&gi);
    if (early >= 0) return early;
    printf("device: %s, %d SMs, %.1f GB, shared memory %zu B per block (opt-in), %zu B per SM\n",
           gi.name, gi.sm_count, gi.total_memory / 1e9, gi.shared_per_block_optin, gi.shared_per_sm);
    mg__gpu_timer *timer = NULL;
    DIE_IF(mg__gpu_timer_create(ctx, &timer));
    pr_graph B;
    if (iterations == 1) {
        pr_graph_build(&B, profile_kind, scale, false);
        const mg__gpu_dense *d = NULL;
        mg__gpu_dense *own = NULL;
        if (band_slots >= 0) {
            const mg__gpu_dense_params prm = {.band_slots = (uint32_t)band_slots};
            DIE_IF(mg__gpu_dense_build(ctx, &B.dev, MG_EDGES_OUT, &prm, &own));
            d = own;
        } else {
            DIE_IF(mg__gpu_dense_get(ctx, &B.dev, MG_EDGES_OUT, &d));
        }
        print_form(own ? "dense form (--band-slots)" : "dense form (derived)", d);
        printf("one dense iteration: %.3f ms\n", time_engine(&B, d, 0, timer));
        mg__gpu_dense_free(&own);
        pr_graph_free(&B);
        mg__gpu_timer_free(&timer);
        mg_context_free(&ctx);
        return 0;
    }
#ifndef MG_BENCH_CUSPARSE
    printf("(built without cuSPARSE: its column shows nan)\n");
#endif
    char summary[4096] = "";
    const mg_generator kinds[2] = {MG_GEN_RMAT, MG_GEN_UNIFORM};
    for (int k = 0; k < 2; k++)
        for (int renumber = 0; renumber < 2; renumber++) {
            pr_graph_build(&B, kinds[k], scale, renumber);
            bench_graph_pagerank(&B, runs, timer, summary, sizeof summary);
            if (do_sweep && k == 0 && !renumber) sweep(&B, runs, timer);
            if (do_sweep && !renumber) band_sweep(&B, runs, timer);
            pr_graph_free(&B);
        }
    printf("\npagerank iteration, float, median of %d (ms, GTEPS = stored edges / time); speedup = "
           "other / dense; mem = dense form / plain CSR; build = dense form on the device\n", runs);
    printf("%-16s %7s %6s %7s %6s %7s %6s %8s %8s %7s %8s\n", "graph", "dense", "GTEPS", "pull",
           "GTEPS", "cusprs", "GTEPS", "pull/dn", "cusp/dn", "mem", "build-ms");
    printf("%s", summary);
    mg__gpu_timer_free(&timer);
    mg_context_free(&ctx);
    return 0;
}
