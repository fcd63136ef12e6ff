/*
 * bench_udf.c — BFS and PageRank, built-in against the same programs user-defined (issue 18), on one
 * backend: on the CPU host function pointers and the JIT, on the GPU the NVRTC-compiled kernels (a
 * host-only program cannot run there), written as a user would: BFS parents with an MG_UDF_ANY
 * combine, PageRank's contribution marked source_only; on a generated Kronecker graph (Graph500's) or R-MAT (edge
 * factor 16, seed 1, as the other GPU benchmarks). Each (algorithm, runner) runs once to warm up,
 * then RUNS times, each run waited for (mg_context_finish); it prints the median, the ratio to the
 * built-in, the compile seconds of the user-defined program at its first use (CPU: jit_seconds at
 * definition; GPU: gpu_jit_seconds at its first step) and of a second definition of the same
 * program (the in-memory cache: 0), and checks the result against the built-in's: BFS depths equal
 * (parents may differ), PageRank's normalised ranks within a relative 1e-6. The JIT's cache folder
 * is a fresh one unless MG_JIT_CACHE is set; a second process reuses the disk cache
 * (tests/unit/test_udf.c checks it). Exit 1 when a result differs, 77 for --backend gpu without a
 * usable GPU, 2 for bad usage.
 *
 * Usage: bench_udf [--backend cpu|gpu] [--graph kronecker|rmat] [--scale N] [--runs N]
 *                  [--source V] [SCALE [RUNS]]
 * Defaults: cpu, kronecker, scale 20, 3 runs, BFS from vertex 0; with --backend gpu: rmat, scale 22,
 * BFS from a vertex of largest degree. PageRank: 20 iterations, damping 0.85.
 */
#define _POSIX_C_SOURCE 200809L
#define BENCH_NAME "bench_udf"
#include "bench_common.h" /* ctx, DIE_IF, median */

#include <math.h>
#include <omp.h>

static void bfs_contribution(void *value, uint32_t src, uint32_t dst, const void *src_value,
                             double weight, uint64_t src_degree, void *user) {
    (void)dst, (void)src_value, (void)weight, (void)src_degree, (void)user;
    *(int32_t *)value = (int32_t)src;
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
static const double zero = 0.0;

static mg_udf define(bool pagerank, mg_udf_runner runner, double *ab) {
    char apply[200];
    mg_udf_def def;
    mg_udf_def_init(&def);
    def.runner = runner;
    if (pagerank) {
        snprintf(apply, sizeof apply, "dst_value = %.17g * combined + %.17g; joins = 1;", ab[0], ab[1]);
        def.type = MG_DOUBLE;
        def.apply_all = true;
        def.source_only = true; /* divided once per source, as the built-in does */
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
        def.combine_kind = MG_UDF_ANY; /* any parent will do, as the built-in's MG_COMBINE_ANY */
        def.contribution = "(int32_t)src";
        def.apply = "if (dst_value == -1) { dst_value = combined; joins = 1; }";
        def.contribution_fn = bfs_contribution;
        def.apply_fn = if_unset;
    }
    mg_udf u = NULL;
    DIE_IF(mg_program_define(ctx, &def, &u));
    return u;
}

/* The compile seconds of u so far: the CPU's at definition, or the GPU's at its first step. */
static double jit_seconds(mg_udf u, bool gpu) {
    mg_udf_info info;
    DIE_IF(mg_udf_get_info(ctx, u, &info));
    return gpu ? info.gpu_jit_seconds : info.jit_seconds;
}

/* BFS levels as mg_bfs runs them: parents by the user's program, depths per level. */
static void udf_bfs(mg_graph g, uint32_t source, mg_udf u, mg_vector parent, mg_vector depth,
                    mg_frontier f[3]) {
    DIE_IF(mg_vector_assign(ctx, parent, NULL, -1));
    DIE_IF(mg_vector_assign(ctx, depth, NULL, -1));
    DIE_IF(mg_vector_set(ctx, parent, source, source));
    DIE_IF(mg_vector_set(ctx, depth, source, 0));
    for (int i = 0; i < 3; i++) DIE_IF(mg_frontier_clear(ctx, f[i]));
    DIE_IF(mg_frontier_add(ctx, f[0], source));
    DIE_IF(mg_frontier_add(ctx, f[2], source));
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


/* The operands of the runs, kept between them. */
typedef struct {
    mg_graph g;
    uint32_t n, source;
    mg_vector parent, depth, a, b;
    mg_frontier f[3];
    double ab[2];
} bench;

enum { PR_ITERATIONS = 20 };

/* One run of algo (0 BFS, 1 PageRank) by the built-in (u NULL) or by u, waited for; its seconds. */
static double run_once(bench *B, int algo, mg_udf u) {
    const double t0 = omp_get_wtime();
    if (algo == 0 && u == NULL) {
        DIE_IF(mg_bfs(ctx, B->g, B->source, B->depth, B->parent));
    } else if (algo == 0) {
        udf_bfs(B->g, B->source, u, B->parent, B->depth, B->f);
    } else if (u == NULL) {
        mg_pagerank_options po;
        mg_pagerank_options_init(&po);
        po.tolerance = 0;
        po.max_iterations = PR_ITERATIONS;
        DIE_IF(mg_pagerank(ctx, B->g, &po, B->a));
    } else {
        mg_program p;
        mg_program_init(&p);
        p.udf = u;
        DIE_IF(mg_vector_assign(ctx, B->a, NULL, 1.0 / B->n));
        /* an even count: the last step writes a */
        for (int i = 0; i < PR_ITERATIONS; i++)
            DIE_IF(mg_advance(ctx, B->g, &p, NULL, i % 2 ? B->b : B->a, i % 2 ? B->a : B->b, NULL, NULL));
    }
    DIE_IF(mg_context_finish(ctx));
    return omp_get_wtime() - t0;
}

/* The last run's result into want (the built-in's) or checked against it: BFS depths equal, the
 * PageRank normalised (mg_pagerank returns y / sum(y), the user's steps the leaking y) and equal
 * within a relative 1e-6 (sums in another order). Returns the number of vertices that differ. */
static uint32_t result_check(bench *B, int algo, bool keep, void *want, void *got) {
    const uint32_t n = B->n;
    DIE_IF(mg_vector_extract(ctx, algo ? B->a : B->depth, keep ? want : got));
    if (keep) return 0;
    uint32_t wrong = 0;
    if (algo == 0) {
        const int32_t *w = want, *x = got;
        for (uint32_t v = 0; v < n; v++) wrong += w[v] != x[v];
        return wrong;
    }
    const double *w = want;
    double *x = got, sum = 0;
    for (uint32_t v = 0; v < n; v++) sum += x[v];
    for (uint32_t v = 0; v < n; v++) wrong += !(fabs(x[v] / sum - w[v]) <= 1e-6 * fabs(w[v]) + 1e-15);
    return wrong;
}

#define USAGE "usage: bench_udf [--backend cpu|gpu] [--graph kronecker|rmat] [--scale 1..30] " \
              "[--runs 1..%d] [--source V] [SCALE [RUNS]]\n"

static int usage(const char *why) {
    fprintf(stderr, "bench_udf: %s\n" USAGE "Try 'bench_udf --help'.\n", why, BENCH_MAX_RUNS);
    return 2;
}

static int help(void) {
    printf(USAGE
           "BFS and PageRank, the built-in programs against the same programs user-defined (host\n"
           "functions and the JIT on the CPU, NVRTC kernels on the GPU), on a generated graph; each\n"
           "checked against the built-in's result.\n"
           "  --backend B   cpu (default) or gpu (exit 77 without a usable GPU)\n"
           "  --graph G     kronecker (Graph500's; the CPU's default) or rmat (edge factor 16,\n"
           "                seed 1; the GPU's default)\n"
           "  --scale N     2^N vertices (default 20 on the CPU, 22 on the GPU)\n"
           "  --runs N      timed runs after one warm-up, the median reported (default 3)\n"
           "  --source V    BFS's source (default: 0 on the CPU, a vertex of largest degree on the GPU)\n"
           "  SCALE [RUNS]  the same as --scale and --runs\n"
           "The JIT's cache is a fresh folder unless MG_JIT_CACHE names one.\n"
           "exit: 0 done, 1 a result differs or an error, 2 a usage error, 77 no usable GPU\n",
           BENCH_MAX_RUNS);
    return 0;
}

/* An integer option's value in [lo, hi], else -1. */
static long parse_int(const char *s, long lo, long hi) {
    char *end = NULL;
    const long v = s != NULL ? strtol(s, &end, 10) : -1;
    return s != NULL && *s != '\0' && *end == '\0' && v >= lo && v <= hi ? v : -1;
}

int main(int argc, char **argv) {
    bool gpu = false, graph_set = false, rmat = false;
    long scale = -1, runs = 3, source = -1;
    int positional = 0;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            return help();
        } else if (strcmp(arg, "--backend") == 0) {
            if (val == NULL || (strcmp(val, "cpu") != 0 && strcmp(val, "gpu") != 0))
                return usage("--backend takes cpu or gpu");
            gpu = strcmp(val, "gpu") == 0;
            i++;
        } else if (strcmp(arg, "--graph") == 0) {
            if (val == NULL || (strcmp(val, "kronecker") != 0 && strcmp(val, "rmat") != 0))
                return usage("--graph takes kronecker or rmat");
            rmat = strcmp(val, "rmat") == 0;
            graph_set = true;
            i++;
        } else if (strcmp(arg, "--scale") == 0 || (arg[0] != '-' && positional == 0)) {
            if ((scale = parse_int(arg[0] == '-' ? val : arg, 1, 30)) < 0) return usage("the scale must be 1..30");
            i += arg[0] == '-';
            positional += arg[0] != '-';
        } else if (strcmp(arg, "--runs") == 0 || (arg[0] != '-' && positional == 1)) {
            if ((runs = parse_int(arg[0] == '-' ? val : arg, 1, BENCH_MAX_RUNS)) < 0)
                return usage("the runs must be 1..63");
            i += arg[0] == '-';
            positional += arg[0] != '-';
        } else if (strcmp(arg, "--source") == 0) {
            if ((source = parse_int(val, 0, UINT32_MAX)) < 0) return usage("--source takes a vertex id");
            i++;
        } else {
            char why[300];
            snprintf(why, sizeof why, "unknown argument '%.200s'", arg);
            return usage(why);
        }
    }
    if (!graph_set) rmat = gpu; /* the graphs: Kronecker 20 on the CPU, R-MAT 22 on the GPU */
    if (scale < 0) scale = gpu ? 22 : 20;

    char dir[] = "/tmp/mg_bench_udf_XXXXXX";
    if (getenv("MG_JIT_CACHE") == NULL) {
        if (mkdtemp(dir) == NULL) return 2;
        setenv("MG_JIT_CACHE", dir, 1);
    }
    if (mg_context_create(&ctx) != MG_SUCCESS) return 1;
    const mg_status st = mg_context_set_backend(ctx, gpu ? MG_BACKEND_GPU : MG_BACKEND_CPU);
    if (st == MG_UNAVAILABLE) {
        fprintf(stderr, "bench_udf: skipped: %s\n", mg_context_error(ctx));
        mg_context_free(&ctx);
        return 77;
    }
    DIE_IF(st);
    mg_gen_options o;
    mg_gen_options_init(&o);
    o.kind = rmat ? MG_GEN_RMAT : MG_GEN_KRONECKER;
    o.scale = (int)scale;
    if (rmat) o.edge_factor = 16; /* bench_generator's R-MAT (bench_common.h) */
    o.seed = 1;
    bench B;
    memset(&B, 0, sizeof B);
    DIE_IF(mg_generate(ctx, &B.g, &o));
    B.n = mg_graph_num_vertices(B.g);
    if (source >= (long)B.n) {
        fprintf(stderr, "bench_udf: --source %ld is out of range (the graph has %u vertices)\n", source, B.n);
        mg_graph_free(&B.g);
        mg_context_free(&ctx);
        return 2;
    }
    if (source < 0 && rmat) {
        /* as the GPU BFS benchmarks do (bench_common.h): a vertex of largest degree, in the giant
         * component, where R-MAT's vertex 0 may be isolated */
        const uint64_t *off;
        DIE_IF(mg_graph_csr(B.g, &off, NULL, NULL));
        source = 0;
        for (uint32_t v = 1; v < B.n; v++)
            if (off[v + 1] - off[v] > off[source + 1] - off[source]) source = v;
    }
    B.source = source < 0 ? 0 : (uint32_t)source;
    char where[32] = "GPU";
    if (!gpu) snprintf(where, sizeof where, "CPU, %d threads", omp_get_max_threads());
    printf("bench_udf: %s, %s scale %ld (%u vertices, %llu stored edges), BFS from %u, %ld runs\n", where,
           rmat ? "R-MAT" : "Kronecker", scale, B.n, (unsigned long long)mg_graph_num_edges(B.g), B.source, runs);

    DIE_IF(mg_vector_create(ctx, &B.parent, B.g, MG_VERTEX));
    DIE_IF(mg_vector_create(ctx, &B.depth, B.g, MG_INT32));
    DIE_IF(mg_vector_create(ctx, &B.a, B.g, MG_DOUBLE));
    DIE_IF(mg_vector_create(ctx, &B.b, B.g, MG_DOUBLE));
    for (int i = 0; i < 3; i++) DIE_IF(mg_frontier_create(ctx, &B.f[i], B.g));
    B.ab[0] = 0.85;
    B.ab[1] = 0.15 / B.n;
    void *want = xmalloc((size_t)B.n * 8), *got = xmalloc((size_t)B.n * 8);
    /* the GPU runs the snippets only (NVRTC): a host-only program cannot run there */
    static const char *const runner_names[3] = {"built-in", "host", "jit"};
    int failed = 0;

    for (int algo = 0; algo < 2; algo++) {
        double builtin = 0;
        for (int r = 0; r < 3; r++) {
            if (gpu && r == 1) continue;
            mg_udf u = NULL, again = NULL;
            double jit_first = 0, jit_second = 0;
            if (r > 0) u = define(algo == 1, r == 1 ? MG_UDF_HOST : MG_UDF_JIT, B.ab);
            run_once(&B, algo, u); /* the warm-up: the GPU compiles u's kernels at its first step */
            if (r > 0) {
                jit_first = jit_seconds(u, gpu);
                /* the same program again: the in-memory cache's (CPU at definition, GPU at the
                 * first step) */
                again = define(algo == 1, r == 1 ? MG_UDF_HOST : MG_UDF_JIT, B.ab);
                if (gpu) run_once(&B, algo, again);
                jit_second = jit_seconds(again, gpu);
            }
            double t[BENCH_MAX_RUNS];
            for (long k = 0; k < runs; k++) t[k] = run_once(&B, algo, u);
            const double med = median(t, (int)runs);
            if (r == 0) builtin = med;
            const uint32_t wrong = result_check(&B, algo, r == 0, want, got);
            printf("%-8s %-8s median %.4f s  x%.2f of built-in", algo ? "pagerank" : "bfs",
                   runner_names[r], med, med / builtin);
            if (r == 2) printf("  %s first use %.3f s, second use %.3f s", gpu ? "nvrtc" : "jit", jit_first, jit_second);
            if (r > 0) printf("  %s", wrong ? "DIFFERS" : "equal");
            printf("\n");
            if (wrong) {
                fprintf(stderr, "bench_udf: %s by %s: %u vertices differ from the built-in's\n",
                        algo ? "pagerank" : "bfs", runner_names[r], wrong);
                failed = 1;
            }
            mg_udf_free(&u);
            mg_udf_free(&again);
        }
    }
    free(want);
    free(got);
    for (int i = 0; i < 3; i++) mg_frontier_free(&B.f[i]);
    mg_vector_free(&B.parent);
    mg_vector_free(&B.depth);
    mg_vector_free(&B.a);
    mg_vector_free(&B.b);
    mg_graph_free(&B.g);
    mg_context_free(&ctx);
    return failed;
}
