/*
 * bench_baseline.c — the Gunrock-style baseline engine (issue 5) beside our engines: BFS on an R-MAT
 * graph and a 2D grid, and a PageRank step, with
 *   lb-do     mg__gpu_lb_advance, automatic choice (direction-optimised BFS: Beamer's rule),
 *   lb-push   mg__gpu_lb_advance forced to push (BFS without direction optimisation),
 *   engine    mg__gpu_advance, automatic choice (MultiGraphS push / pull),
 *   baseline  mg__gpu_advance_baseline (one thread per active source, global atomics).
 * Each advance is timed with CUDA events around the whole call (its scratch allocations, the
 * push/pull decision and its read-back included: what a caller pays); one warm-up run per variant,
 * then R runs; a BFS's time is the sum of its levels, and the median of the R sums is reported, with
 * each level's median for short BFS. Every BFS is checked against mg_bfs's depths and every
 * PageRank step against the CPU engine's step.
 *
 *   bench_baseline [--rmat-scale S] [--grid W] [--runs R]
 * Defaults: R-MAT scale 22 (edge factor 16), a 2048 x 2048 grid, R = 5. MTEPS counts the stored
 * edges of the vertices the BFS reached (each undirected edge twice) per second.
 */
#define _POSIX_C_SOURCE 200809L
#define BENCH_NAME "bench_baseline"
#include "bench_common.h"
#include "../frontier/baseline_engine.h"

#include <math.h>

enum { VARIANTS = 4 };
static const char *variant_names[VARIANTS] = {"lb-do", "lb-push", "engine", "baseline"};

/* One advance by variant v, in the variant's mode. */
static mg_status advance(int v, mg__gpu_advance_args *a, mg_advance_info *info) {
    mg_status st = mg_context_set_mode(ctx, v == 1 ? MG_MODE_SPARSE : MG_MODE_AUTO);
    if (st != MG_SUCCESS) return st;
    if (v <= 1) return mg__gpu_lb_advance(ctx, a, info);
    if (v == 2) return mg__gpu_advance(ctx, a, info);
    return mg__gpu_advance_baseline(ctx, a, info);
}

/* One BFS from source by variant v: ms[level] per level; returns the levels (and the pulled ones
 * in *pulled, the frontier sizes in fv); exits if a depth differs from want. */
static int bfs_run(bench_graph *B, int v, uint32_t source, const int32_t *want, int32_t *buf,
                   mg__gpu_timer *timer, int cap, double *ms, uint32_t *fv, bool *pulled_at, int *pulled) {
    mg_program p;
    bfs_start(B, source, buf, &p);
    void *in = B->d_in, *out = B->d_out;
    uint32_t count = 1;
    int level = 0;
    *pulled = 0;
    while (count > 0) {
        if (level >= cap) {
            fprintf(stderr, "bench_baseline: %s BFS by %s runs past %d levels\n", B->name,
                    variant_names[v], cap);
            exit(1);
        }
        mg__gpu_advance_args a = {.g = &B->dev, .program = &p, .type = MG_INT32, .d_in_list = in,
                                  .in_count = count, .d_x = B->d_y, .d_y = B->d_y, .d_out_list = out};
        mg_advance_info info;
        DIE_IF(mg__gpu_timer_start(ctx, timer));
        DIE_IF(advance(v, &a, &info));
        DIE_IF(mg__gpu_timer_stop(ctx, timer, &ms[level]));
        fv[level] = info.frontier_vertices;
        pulled_at[level] = info.pulled;
        *pulled += info.pulled;
        count = a.out_count;
        void *t = in;
        in = out;
        out = t;
        level++;
    }
    DIE_IF(mg_context_set_mode(ctx, MG_MODE_AUTO));
    bfs_check(B, want, buf, variant_names[v]);
    return level;
}

static void bench_bfs(bench_graph *B, int runs, int max_level_rows) {
    const uint32_t n = B->host->n;
    int32_t *want = xmalloc((size_t)n * 4), *buf = xmalloc((size_t)n * 4);
    const uint32_t source = bfs_reference(B, want);
    const uint64_t *off;
    mg_graph_csr(B->host, &off, NULL, NULL);
    int32_t maxd = 0;
    uint64_t edges = 0; /* stored edges of the reached vertices */
    uint32_t reached = 0;
    for (uint32_t v = 0; v < n; v++) {
        if (want[v] > maxd) maxd = want[v];
        if (want[v] >= 0) {
            reached++;
            edges += off[v + 1] - off[v];
        }
    }
    const int cap = maxd + 2;
    mg__gpu_timer *timer = NULL;
    DIE_IF(mg__gpu_timer_create(ctx, &timer));
    double *ms = xmalloc((size_t)cap * runs * sizeof *ms), *scratch = xmalloc((size_t)cap * sizeof *scratch);
    double *level_med[VARIANTS], total_med[VARIANTS];
    uint32_t *fv = xmalloc((size_t)cap * 4);
    bool *pulled_at[VARIANTS];
    int levels[VARIANTS], pulled[VARIANTS];
    for (int v = 0; v < VARIANTS; v++) {
        level_med[v] = xmalloc((size_t)cap * sizeof(double));
        pulled_at[v] = xmalloc((size_t)cap);
        bfs_run(B, v, source, want, buf, timer, cap, scratch, fv, pulled_at[v], &pulled[v]); /* warm-up */
        double totals[BENCH_MAX_RUNS];
        for (int r = 0; r < runs; r++) {
            levels[v] = bfs_run(B, v, source, want, buf, timer, cap, scratch, fv, pulled_at[v], &pulled[v]);
            totals[r] = 0;
            for (int l = 0; l < levels[v]; l++) {
                ms[(size_t)l * runs + r] = scratch[l];
                totals[r] += scratch[l];
            }
        }
        total_med[v] = median(totals, runs);
        for (int l = 0; l < levels[v]; l++) level_med[v][l] = median(&ms[(size_t)l * runs], runs);
    }
    printf("%s BFS from vertex %u (degree %llu): %u vertices reached, %d levels, %llu edges of reached "
           "vertices; median of %d runs after a warm-up; all %d BFS equal to mg_bfs\n",
           B->name, source, (unsigned long long)(off[source + 1] - off[source]), reached, levels[0],
           (unsigned long long)edges, runs, VARIANTS * (runs + 1));
    if (levels[0] <= max_level_rows) {
        printf("%6s %10s %10s %10s %10s %10s %10s\n", "level", "frontier", "lb-do", "mode", "lb-push",
               "engine", "baseline");
        for (int l = 0; l < levels[0]; l++)
            printf("%6d %10u %10.3f %10s %10.3f %10.3f %10.3f\n", l, fv[l], level_med[0][l],
                   pulled_at[0][l] ? "pull" : "push", level_med[1][l], level_med[2][l], level_med[3][l]);
    }
    printf("%-10s %12s %10s %8s %10s\n", "variant", "total-ms", "MTEPS", "pulled", "vs-engine");
    for (int v = 0; v < VARIANTS; v++)
        printf("%-10s %12.3f %10.0f %8d %10.2f\n", variant_names[v], total_med[v],
               edges / (total_med[v] * 1e3), pulled[v], total_med[v] / total_med[2]);
    for (int v = 0; v < VARIANTS; v++) {
        free(level_med[v]);
        free(pulled_at[v]);
    }
    free(ms);
    free(scratch);
    free(fv);
    mg__gpu_timer_free(&timer);
    free(want);
    free(buf);
}

/* PageRank-style step y = 0.85 * sum x[s]/outdeg(s) + 0.15/n, every vertex active, each variant
 * checked against the CPU engine's step. */
static void bench_pagerank(bench_graph *B, int runs) {
    const uint32_t n = B->host->n;
    double *x = xmalloc((size_t)n * 8), *got = xmalloc((size_t)n * 8), *cpu = xmalloc((size_t)n * 8);
    mg_program p;
    pagerank_step(B, &p, x, got, cpu);
    mg__gpu_timer *timer = NULL;
    DIE_IF(mg__gpu_timer_create(ctx, &timer));
    double med[VARIANTS];
    bool pulled[VARIANTS];
    for (int v = 0; v < VARIANTS; v++) {
        double ms[BENCH_MAX_RUNS + 1];
        for (int r = 0; r <= runs; r++) { /* r = 0: warm-up */
            mg__gpu_advance_args a = {.g = &B->dev, .program = &p, .type = MG_DOUBLE, .d_x = B->d_x,
                                      .d_y = B->d_y};
            mg_advance_info info;
            DIE_IF(mg__gpu_timer_start(ctx, timer));
            DIE_IF(advance(v, &a, &info));
            DIE_IF(mg__gpu_timer_stop(ctx, timer, &ms[r]));
            pulled[v] = info.pulled;
        }
        med[v] = median(ms + 1, runs);
        DIE_IF(mg__gpu_copy_to_host(ctx, got, B->d_y, (size_t)n * 8));
        double worst = 0;
        for (uint32_t i = 0; i < n; i++) {
            const double rel = fabs(got[B->new_of_old[i]] - cpu[i]) / fabs(cpu[i]);
            if (!(rel <= worst)) worst = rel;
        }
        if (!(worst <= 1e-9)) {
            fprintf(stderr, "bench_baseline: %s pagerank step by %s differs from the CPU engine by %.2e\n",
                    B->name, variant_names[v], worst);
            exit(1);
        }
    }
    DIE_IF(mg_context_set_mode(ctx, MG_MODE_AUTO));
    mg__gpu_timer_free(&timer);
    printf("%s pagerank step (all active, median of %d after a warm-up, each equal to the CPU "
           "engine's step within 1e-9):\n%-10s %10s %6s %10s %10s\n", B->name, runs, "variant", "ms",
           "mode", "MTEPS", "vs-engine");
    for (int v = 0; v < VARIANTS; v++)
        printf("%-10s %10.3f %6s %10.0f %10.2f\n", variant_names[v], med[v], pulled[v] ? "pull" : "push",
               (double)B->host->m / (med[v] * 1e3), med[v] / med[2]);
    free(x);
    free(got);
    free(cpu);
}

int main(int argc, char **argv) {
    int scale = 22, width = 2048, runs = 5;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--rmat-scale") == 0 && i + 1 < argc) scale = atoi(argv[++i]);
        else if (strcmp(argv[i], "--grid") == 0 && i + 1 < argc) width = atoi(argv[++i]);
        else if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc) runs = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: bench_baseline [--rmat-scale S] [--grid W] [--runs R]\n");
            return 2;
        }
    }
    if (scale < 4 || scale > 26 || width < 4 || width > 16384 || runs < 1 || runs > BENCH_MAX_RUNS) {
        fprintf(stderr, "bench_baseline: --rmat-scale 4..26, --grid 4..16384, --runs 1..%d\n",
                BENCH_MAX_RUNS);
        return 2;
    }
    mg__gpu_info gi;
    const int early = bench_start(&gi);
    if (early >= 0) return early;
    printf("device: %s, %d SMs, %.1f GB\n", gi.name, gi.sm_count, gi.total_memory / 1e9);

    for (int grid = 0; grid <= 1; grid++) {
        mg_gen_options o;
        char name[64];
        bench_generator(&o, name, sizeof name, grid, grid ? width : scale);
        bench_graph B;
        graph_build(&B, name, &o);
        printf("\n%s: n=%u m=%llu (stored directed edges), max degree %u\n", name, B.dev.n,
               (unsigned long long)B.dev.m, B.dev.max_out_degree);
        bench_bfs(&B, runs, 40);
        bench_pagerank(&B, runs);
        graph_free(&B);
    }
    mg_context_free(&ctx);
    return 0;
}
