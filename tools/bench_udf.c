/*
 * bench_udf.c — BFS and PageRank, built-in against the same programs user-defined (issue 18): host
 * function pointers and the JIT, on a generated Kronecker graph (Graph500's). Prints one line per
 * (algorithm, runner) with the median time and the ratio to the built-in, and the JIT's compile
 * seconds at first use (a fresh cache folder unless MG_JIT_CACHE is set) and at second use (the
 * in-memory cache: 0). A second process reuses the disk cache (tests/unit/test_udf.c checks it).
 *
 * Usage: bench_udf [SCALE (default 20)] [RUNS (default 3)]
 */
#define _POSIX_C_SOURCE 200809L
#include "mgraph.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static mg_context ctx;

#define DIE_IF(st)                                                                                 \
    do {                                                                                           \
        if ((st) != MG_SUCCESS) {                                                                  \
            fprintf(stderr, "bench_udf: %s (bench_udf.c:%d)\n", mg_context_error(ctx), __LINE__);  \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static void bfs_contribution(void *value, uint32_t src, uint32_t dst, const void *src_value,
                             double weight, uint64_t src_degree, void *user) {
    (void)dst, (void)src_value, (void)weight, (void)src_degree, (void)user;
    *(int32_t *)value = (int32_t)src;
}
static void min_i32(void *a, const void *b, void *user) {
    (void)user;
    if (*(const int32_t *)b < *(int32_t *)a) *(int32_t *)a = *(const int32_t *)b;
}
static bool if_unset(void *dst_value, const void *combined, bool found, uint32_t dst, void *user) {
    (void)found, (void)dst, (void)user;
    if (*(int32_t *)dst_value != -1) return false;
    *(int32_t *)dst_value = *(const int32_t *)combined;
    return true;
}
static void pr_contribution(void *value, uint32_t src, uint32_t dst, const void *src_value,
                            double weight, uint64_t src_degree, void *user) {
    (void)src, (void)dst, (void)weight, (void)user;
    *(double *)value = src_degree ? *(const double *)src_value / (double)src_degree : 0.0;
}
static void sum_f64(void *a, const void *b, void *user) {
    (void)user;
    *(double *)a += *(const double *)b;
}
static bool affine(void *dst_value, const void *combined, bool found, uint32_t dst, void *user) {
    (void)found, (void)dst;
    const double *ab = user;
    *(double *)dst_value = ab[0] * *(const double *)combined + ab[1];
    return true;
}
static const int32_t i32_max = INT32_MAX;
static const double zero = 0.0;

static mg_udf define(bool pagerank, mg_udf_runner runner, double *ab, double *jit_s) {
    char apply[200];
    mg_udf_def def;
    mg_udf_def_init(&def);
    def.runner = runner;
    if (pagerank) {
        snprintf(apply, sizeof apply, "dst_value = %.17g * combined + %.17g; joins = 1;", ab[0], ab[1]);
        def.type = MG_DOUBLE;
        def.apply_all = true;
        def.contribution = "src_degree ? src_value / (double)src_degree : 0.0";
        def.combine = "a + b";
        def.identity = "0.0";
        def.apply = apply;
        def.contribution_fn = pr_contribution;
        def.combine_fn = sum_f64;
        def.identity_value = &zero;
        def.apply_fn = affine;
        def.user = ab;
    } else {
        def.type = MG_VERTEX;
        def.contribution = "(int32_t)src";
        def.combine = "a < b ? a : b";
        def.identity = "INT32_MAX";
        def.apply = "if (dst_value == -1) { dst_value = combined; joins = 1; }";
        def.contribution_fn = bfs_contribution;
        def.combine_fn = min_i32;
        def.identity_value = &i32_max;
        def.apply_fn = if_unset;
    }
    mg_udf u = NULL;
    mg_udf_info info;
    DIE_IF(mg_program_define(ctx, &def, &u));
    DIE_IF(mg_udf_get_info(ctx, u, &info));
    *jit_s = info.jit_seconds;
    return u;
}

/* BFS levels as mg_bfs runs them: parents by the user's program, depths per level. */
static void udf_bfs(mg_graph g, mg_udf u, mg_vector parent, mg_vector depth, mg_frontier f[3]) {
    DIE_IF(mg_vector_assign(ctx, parent, NULL, -1));
    DIE_IF(mg_vector_assign(ctx, depth, NULL, -1));
    DIE_IF(mg_vector_set(ctx, parent, 0, 0));
    DIE_IF(mg_vector_set(ctx, depth, 0, 0));
    for (int i = 0; i < 3; i++) DIE_IF(mg_frontier_clear(ctx, f[i]));
    DIE_IF(mg_frontier_add(ctx, f[0], 0));
    DIE_IF(mg_frontier_add(ctx, f[2], 0));
    mg_program p;
    mg_program_init(&p);
    p.udf = u;
    p.mask_complement = true;
    for (int32_t level = 1;; level++) {
        uint32_t count = 0;
        DIE_IF(mg_advance(ctx, g, &p, f[0], parent, parent, f[2], f[1]));
        DIE_IF(mg_frontier_count(ctx, f[1], &count));
        if (count == 0) break;
        DIE_IF(mg_vector_assign(ctx, depth, f[1], level));
        DIE_IF(mg_frontier_union(ctx, f[2], f[1]));
        mg_frontier t = f[0];
        f[0] = f[1];
        f[1] = t;
    }
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    const int scale = argc > 1 ? atoi(argv[1]) : 20, runs = argc > 2 ? atoi(argv[2]) : 3;
    if (scale < 1 || scale > 30 || runs < 1 || runs > 63) {
        fprintf(stderr, "usage: bench_udf [SCALE 1..30] [RUNS 1..63]\n");
        return 2;
    }
    char dir[] = "/tmp/mg_bench_udf_XXXXXX";
    if (getenv("MG_JIT_CACHE") == NULL) {
        if (mkdtemp(dir) == NULL) return 2;
        setenv("MG_JIT_CACHE", dir, 1);
    }
    DIE_IF(mg_context_create(&ctx));
    DIE_IF(mg_context_set_backend(ctx, MG_BACKEND_CPU));
    mg_gen_options o;
    mg_gen_options_init(&o);
    o.kind = MG_GEN_KRONECKER;
    o.scale = scale;
    mg_graph g = NULL;
    DIE_IF(mg_generate(ctx, &g, &o));
    const uint32_t n = mg_graph_num_vertices(g);
    printf("bench_udf: Kronecker scale %d (%u vertices, %llu stored edges), %d threads, %d runs\n",
           scale, n, (unsigned long long)mg_graph_num_edges(g), omp_get_max_threads(), runs);

    mg_vector parent = NULL, depth = NULL, a = NULL, b = NULL;
    mg_frontier f[3] = {NULL, NULL, NULL};
    DIE_IF(mg_vector_create(ctx, &parent, g, MG_VERTEX));
    DIE_IF(mg_vector_create(ctx, &depth, g, MG_INT32));
    DIE_IF(mg_vector_create(ctx, &a, g, MG_DOUBLE));
    DIE_IF(mg_vector_create(ctx, &b, g, MG_DOUBLE));
    for (int i = 0; i < 3; i++) DIE_IF(mg_frontier_create(ctx, &f[i], g));
    double ab[2] = {0.85, 0.15 / n};
    const int pr_iters = 20;
    static const char *const runner_names[3] = {"built-in", "host", "jit"};

    for (int algo = 0; algo < 2; algo++) {
        double builtin = 0;
        for (int r = 0; r < 3; r++) {
            double jit_first = 0, jit_second = 0;
            mg_udf u = NULL, again = NULL;
            if (r > 0) {
                u = define(algo == 1, r == 1 ? MG_UDF_HOST : MG_UDF_JIT, ab, &jit_first);
                again = define(algo == 1, r == 1 ? MG_UDF_HOST : MG_UDF_JIT, ab, &jit_second);
            }
            double t[64];
            for (int k = 0; k < runs; k++) {
                double t0 = omp_get_wtime();
                if (algo == 0 && r == 0) {
                    DIE_IF(mg_bfs(ctx, g, 0, depth, parent));
                } else if (algo == 0) {
                    udf_bfs(g, u, parent, depth, f);
                } else if (r == 0) {
                    mg_pagerank_options po;
                    mg_pagerank_options_init(&po);
                    po.tolerance = 0;
                    po.max_iterations = pr_iters;
                    DIE_IF(mg_pagerank(ctx, g, &po, a));
                } else {
                    mg_program p;
                    mg_program_init(&p);
                    p.udf = u;
                    DIE_IF(mg_vector_assign(ctx, a, NULL, 1.0 / n));
                    for (int i = 0; i < pr_iters; i++)
                        DIE_IF(mg_advance(ctx, g, &p, NULL, i % 2 ? b : a, i % 2 ? a : b, NULL, NULL));
                }
                t[k] = omp_get_wtime() - t0;
            }
            qsort(t, (size_t)runs, sizeof *t, cmp);
            const double med = t[runs / 2];
            if (r == 0) builtin = med;
            printf("%-8s %-8s median %.4f s  x%.2f of built-in", algo ? "pagerank" : "bfs",
                   runner_names[r], med, med / builtin);
            if (r == 2) printf("  jit first use %.3f s, second use %.3f s", jit_first, jit_second);
            printf("\n");
            mg_udf_free(&u);
            mg_udf_free(&again);
        }
    }
    for (int i = 0; i < 3; i++) mg_frontier_free(&f[i]);
    mg_vector_free(&parent);
    mg_vector_free(&depth);
    mg_vector_free(&a);
    mg_vector_free(&b);
    mg_graph_free(&g);
    mg_context_free(&ctx);
    return 0;
}
