/*
 * bench_gpu.c — the GPU sparse-frontier engine against the plain CSR baseline (issue 3, the shape of
 * the paper's Table 3.2): BFS level by level on an R-MAT graph and a 2D grid, with
 *   engine    mg__gpu_advance, automatic push/pull choice,
 *   sparse    mg__gpu_advance forced to push (MultiGraphS binning, global atomics: the default),
 *   sp-seg    the same push with destination segments built (mg__gpu_graph_segment, opt-in:
 *             destinations of groups 1-4 through shared memory, the others global atomics),
 *   baseline  mg__gpu_advance_baseline (one thread per active source, global atomics),
 * every BFS checked against the CPU mg_bfs depths. Each level is timed with CUDA events around the
 * whole advance call (its scratch allocations and the push/pull decision included: what a caller
 * pays); one warm-up BFS per variant, then the median of R runs per level. Then PageRank-style
 * steps (every vertex active: the engine pulls) against the baseline's push, median of R, each
 * checked against one step of the CPU engine.
 *
 *   bench_gpu [--rmat-scale S] [--grid W] [--runs R] [--rows N]
 * Defaults: R-MAT scale 22 (edge factor 16), a 2048 x 2048 grid, R = 5; tables longer than N rows
 * (default 40) are sampled evenly (totals always cover every level). MTEPS counts the edges of the
 * frontiers (sum of the frontier vertices' degrees over all levels) per second.
 */
#define _POSIX_C_SOURCE 200809L
#define BENCH_NAME "bench_gpu"
#include "bench_common.h"

#include <math.h>

enum { VARIANTS = 4 };
static const char *variant_names[VARIANTS] = {"engine", "sparse", "sp-seg", "baseline"};

/* graph_build with the destination segments (the sp-seg variant only) and the device form's
 * figures. */
static void graph_build_segmented(bench_graph *B, const char *name, const mg_gen_options *o) {
    graph_build(B, name, o);
    DIE_IF(mg__gpu_graph_segment(ctx, &B->dev, 0));
    printf("\n%s: n=%u m=%llu (stored directed edges), device form %.1f MB, preprocessing %.1f ms, "
           "groups 1-4 (in-degree >= 256): %u vertices in %u segment(s) of %u destinations "
           "(%.1f MB of segment offsets)\n",
           name, B->dev.n, (unsigned long long)B->dev.m, B->dev.device_bytes / 1e6, B->dev.seconds * 1e3,
           B->dev.group_start[4], B->dev.seg_count, B->dev.seg_size, B->dev.seg_bytes / 1e6);
}

/* Per-level record of one variant's runs. */
typedef struct {
    int levels;
    uint32_t *fv;     /* frontier vertices per level */
    uint64_t *fe;     /* frontier edges per level    */
    bool *pulled;
    double *ms;       /* [run * cap + level]         */
} level_log;

/* One BFS from source with variant v; times each level into ms[level]; returns the levels and
 * checks the depths against want. */
static int bfs_run(bench_graph *B, int v, uint32_t source, const int32_t *want, int32_t *buf,
                   mg__gpu_timer *timer, int cap, level_log *L, double *ms) {
    mg_program p;
    bfs_start(B, source, buf, &p);
    DIE_IF(mg_context_set_mode(ctx, v == 1 || v == 2 ? MG_MODE_SPARSE : MG_MODE_AUTO));
    const uint32_t seg_count = B->dev.seg_count;
    if (v != 2) B->dev.seg_count = 0; /* the engine then leaves d_seg_ptr alone */
    void *in = B->d_in, *out = B->d_out;
    uint32_t count = 1;
    int level = 0;
    while (count > 0) {
        if (level >= cap) {
            fprintf(stderr, "bench_gpu: %s BFS runs past %d levels\n", B->name, cap);
            exit(1);
        }
        mg__gpu_advance_args a = {.g = &B->dev, .program = &p, .type = MG_INT32, .d_in_list = in,
                                  .in_count = count, .d_x = B->d_y, .d_y = B->d_y, .d_out_list = out};
        mg_advance_info info;
        DIE_IF(mg__gpu_timer_start(ctx, timer));
        DIE_IF(v == 3 ? mg__gpu_advance_baseline(ctx, &a, &info) : mg__gpu_advance(ctx, &a, &info));
        DIE_IF(mg__gpu_timer_stop(ctx, timer, &ms[level]));
        L->fv[level] = info.frontier_vertices;
        L->fe[level] = info.frontier_edges;
        L->pulled[level] = info.pulled;
        count = a.out_count;
        void *t = in;
        in = out;
        out = t;
        level++;
    }
    DIE_IF(mg_context_set_mode(ctx, MG_MODE_AUTO));
    B->dev.seg_count = seg_count;
    bfs_check(B, want, buf, variant_names[v]);
    return level;
}

static void bench_bfs(bench_graph *B, int runs, int max_rows) {
    const uint32_t n = B->host->n;
    int32_t *want = xmalloc((size_t)n * 4), *buf = xmalloc((size_t)n * 4);
    const uint32_t source = bfs_reference(B, want);
    const uint64_t *off;
    mg_graph_csr(B->host, &off, NULL, NULL);
    int32_t maxd = 0;
    uint32_t reached = 0;
    for (uint32_t v = 0; v < n; v++) {
        if (want[v] > maxd) maxd = want[v];
        reached += want[v] >= 0;
    }
    const int cap = maxd + 2;
    mg__gpu_timer *timer = NULL;
    DIE_IF(mg__gpu_timer_create(ctx, &timer));
    level_log L[VARIANTS];
    double *med[VARIANTS];
    int levels = 0;
    for (int v = 0; v < VARIANTS; v++) {
        L[v].fv = calloc((size_t)cap, 4);
        L[v].fe = calloc((size_t)cap, 8);
        L[v].pulled = calloc((size_t)cap, 1);
        L[v].ms = calloc((size_t)cap * runs, 8);
        med[v] = calloc((size_t)cap, 8);
        double *scratch = calloc((size_t)cap, 8);
        bfs_run(B, v, source, want, buf, timer, cap, &L[v], scratch); /* warm-up */
        for (int r = 0; r < runs; r++) {
            L[v].levels = bfs_run(B, v, source, want, buf, timer, cap, &L[v], scratch);
            for (int l = 0; l < L[v].levels; l++) L[v].ms[(size_t)l * runs + r] = scratch[l];
        }
        free(scratch);
        for (int l = 0; l < L[v].levels; l++) med[v][l] = median(&L[v].ms[(size_t)l * runs], runs);
        levels = L[v].levels;
    }
    printf("%s BFS from vertex %u (degree %llu): %u vertices reached, %d levels, median of %d runs "
           "after a warm-up, all %d x %d BFS equal to mg_bfs\n",
           B->name, source, (unsigned long long)(off[source + 1] - off[source]), reached, levels,
           runs, VARIANTS, runs + 1);
    const int step = levels > max_rows ? (levels + max_rows - 1) / max_rows : 1;
    if (step > 1) printf("(every %d-th level shown; totals over all levels)\n", step);
    printf("%6s %10s %12s %5s %10s %10s %10s %10s %8s %8s\n", "level", "frontier", "frontier-e",
           "mode", "engine-ms", "sparse-ms", "spseg-ms", "base-ms", "sp/base", "sps/base");
    double tot[VARIANTS] = {0};
    uint64_t edges = 0;
    for (int l = 0; l < levels; l++) {
        for (int v = 0; v < VARIANTS; v++) tot[v] += med[v][l];
        edges += L[0].fe[l];
        if (l % step != 0 && l != levels - 1) continue;
        printf("%6d %10u %12llu %5s %10.3f %10.3f %10.3f %10.3f %8.2f %8.2f\n", l, L[0].fv[l],
               (unsigned long long)L[0].fe[l], L[0].pulled[l] ? "pull" : "push", med[0][l],
               med[1][l], med[2][l], med[3][l], med[1][l] / med[3][l], med[2][l] / med[3][l]);
    }
    printf("%s BFS totals: engine %.2f ms (%.0f MTEPS), sparse %.2f ms (%.0f MTEPS), sparse "
           "with segments %.2f ms (%.0f MTEPS), baseline %.2f ms (%.0f MTEPS); %llu frontier "
           "edges; sparse/baseline %.2f, sp-seg/baseline %.2f, engine/baseline %.2f\n",
           B->name, tot[0], edges / (tot[0] * 1e3), tot[1], edges / (tot[1] * 1e3), tot[2],
           edges / (tot[2] * 1e3), tot[3], edges / (tot[3] * 1e3), (unsigned long long)edges,
           tot[1] / tot[3], tot[2] / tot[3], tot[0] / tot[3]);
    for (int v = 0; v < VARIANTS; v++) {
        free(L[v].fv);
        free(L[v].fe);
        free(L[v].pulled);
        free(L[v].ms);
        free(med[v]);
    }
    mg__gpu_timer_free(&timer);
    free(want);
    free(buf);
}

/* PageRank-style step y = 0.85 * sum x[s]/outdeg(s) + 0.15/n, every vertex active: the engine
 * (pulls) and the baseline (pushes with atomics), each checked against the CPU engine's step. */
static void bench_pagerank(bench_graph *B, int runs) {
    const uint32_t n = B->host->n;
    double *x = xmalloc((size_t)n * 8), *got = xmalloc((size_t)n * 8), *cpu = xmalloc((size_t)n * 8);
    mg_program p;
    pagerank_step(B, &p, x, got, cpu);
    mg__gpu_timer *timer = NULL;
    DIE_IF(mg__gpu_timer_create(ctx, &timer));
    double med[3];
    bool pulled[3];
    const uint32_t seg_count = B->dev.seg_count;
    B->dev.seg_count = 0; /* the default engine: no destination segments */
    for (int v = 0; v < 3; v++) { /* engine (auto: pulls), engine forced to push, baseline */
        DIE_IF(mg_context_set_mode(ctx, v == 1 ? MG_MODE_SPARSE : MG_MODE_AUTO));
        double ms[64];
        for (int r = -1; r < runs; r++) { /* r = -1: warm-up */
            mg__gpu_advance_args a = {.g = &B->dev, .program = &p, .type = MG_DOUBLE, .d_x = B->d_x,
                                      .d_y = B->d_y};
            mg_advance_info info;
            DIE_IF(mg__gpu_timer_start(ctx, timer));
            DIE_IF(v == 2 ? mg__gpu_advance_baseline(ctx, &a, &info) : mg__gpu_advance(ctx, &a, &info));
            DIE_IF(mg__gpu_timer_stop(ctx, timer, r < 0 ? &ms[0] : &ms[r]));
            pulled[v] = info.pulled;
        }
        med[v] = median(ms, runs);
        DIE_IF(mg__gpu_copy_to_host(ctx, got, B->d_y, (size_t)n * 8));
        double worst = 0;
        for (uint32_t i = 0; i < n; i++) {
            const double rel = fabs(got[B->new_of_old[i]] - cpu[i]) / fabs(cpu[i]);
            if (!(rel <= worst)) worst = rel;
        }
        if (!(worst <= 1e-9)) {
            fprintf(stderr, "bench_gpu: %s pagerank step by %s differs from the CPU engine by %.2e\n",
                    B->name, v == 2 ? "baseline" : v ? "forced push" : "engine", worst);
            exit(1);
        }
    }
    B->dev.seg_count = seg_count;
    DIE_IF(mg_context_set_mode(ctx, MG_MODE_AUTO));
    mg__gpu_timer_free(&timer);
    const double me = (double)B->host->m;
    printf("%s pagerank step (all active, median of %d): engine %.3f ms (%s, %.0f MTEPS), engine "
           "forced push %.3f ms (%.0f MTEPS), baseline push %.3f ms (%.0f MTEPS); engine/baseline "
           "%.2f, push/baseline %.2f; all equal to the CPU engine's step\n",
           B->name, runs, med[0], pulled[0] ? "pull" : "push", me / (med[0] * 1e3), med[1],
           me / (med[1] * 1e3), med[2], me / (med[2] * 1e3), med[0] / med[2], med[1] / med[2]);
    free(x);
    free(got);
    free(cpu);
}

int main(int argc, char **argv) {
    int scale = 22, width = 2048, runs = 5, rows = 40;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--rmat-scale") == 0 && i + 1 < argc) scale = atoi(argv[++i]);
        else if (strcmp(argv[i], "--grid") == 0 && i + 1 < argc) width = atoi(argv[++i]);
        else if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc) runs = atoi(argv[++i]);
        else if (strcmp(argv[i], "--rows") == 0 && i + 1 < argc) rows = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: bench_gpu [--rmat-scale S] [--grid W] [--runs R] [--rows N]\n");
            return 2;
        }
    }
    if (scale < 4 || scale > 26 || width < 4 || width > 16384 || runs < 1 || runs > BENCH_MAX_RUNS ||
        rows < 1) {
        fprintf(stderr, "bench_gpu: --rmat-scale 4..26, --grid 4..16384, --runs 1..63, --rows >= 1\n");
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
        graph_build_segmented(&B, name, &o);
        bench_bfs(&B, runs, grid ? rows : 1000);
        bench_pagerank(&B, runs);
        graph_free(&B);
    }
    mg_context_free(&ctx);
    return 0;
}
