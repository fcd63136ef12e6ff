/*
 * bench_dist.c — PageRank and BFS on an R-MAT graph split over MPI ranks (issue 19's scaling runs):
 *
 *     mpirun -np P bench_dist --scale S [--edge-factor F] [--directed] [--backend gpu|cpu]
 *                             [--modes auto,sparse,pull,dense,hybrid] [--iterations I] [--runs N]
 *                             [--check-scale C]
 *
 * Every rank generates the same R-MAT graph (mg_generate on a context over the ranks keeps the
 * rank's share), then times, from one warm-up and N timed runs (medians, the slowest rank's time
 * for each run), PageRank of I fixed iterations (time per iteration, and the marginal iteration:
 * the I-iteration call less a 1-iteration call, over I - 1) and BFS from the first vertex
 * with an out-edge (GTEPS: the reached vertices' out-edges of the whole graph over the time), and
 * the exchange of one PageRank vector between the ranks alone (what each iteration pays to
 * communicate; and its collective alone, on an array already in caller order), and each rank's PageRank steps on its share without the exchange; the timings once per mode of --modes (default
 * auto), from one graph; and mg_spmv's y = A^T x (double) on the share's view of the graph
 * (mg_graph_matrix), exchange included, once. Before timing, the same algorithms on a graph of the same family at --check-scale
 * (default min(S, 16)) are compared with one whole-graph CPU context on rank 0: BFS depths exactly,
 * ranks within 1e-9 relative, the product within 1e-9 relative of its terms' magnitude. Lines `bench_dist:` of results, rank 0: the graph's, then one per mode.
 */
#include <mpi.h>

#include "dist.h"
#include "../frontier/engine.h"
#include "mgraph.h"
#include "mgraph_mpi.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;
static mg_context ctx;

#define DIE_IF(st)                                                                                 \
    do {                                                                                           \
        if ((st) != MG_SUCCESS) {                                                                  \
            fprintf(stderr, "bench_dist: rank %d: %s (bench_dist.c:%d)\n", rank,                   \
                    mg_context_error(ctx), __LINE__);                                              \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                          \
        }                                                                                          \
    } while (0)

static int cmp_double(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *t, int n) {
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    return t[n / 2];
}

/* The slowest rank's wall time of fn, each rank starting together. */
static double own_time; /* this rank's time of the last timed() */
static double timed(void (*fn)(void *), void *arg) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    fn(arg);
    DIE_IF(mg_context_finish(ctx));
    double t = MPI_Wtime() - t0, slowest = 0;
    own_time = t;
    MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return slowest;
}

typedef struct {
    mg_graph g;
    mg_vector v, w;
    uint32_t source;
    int iterations;
    mg_matrix A; /* the graph's view, x and y of its product (spmv below) */
    mg_dense x, y;
} job;

/* y = A^T x, iterations times */
static void spmv(void *arg) {
    job *j = arg;
    mg_spmv_options o;
    mg_spmv_options_init(&o);
    o.transpose = true;
    for (int k = 0; k < j->iterations; k++) DIE_IF(mg_spmv(ctx, j->A, j->x, j->y, &o));
}

/* A's view of g, x = 1 + (i mod 13) / 8 (never all equal, never zero), y of A's columns */
static void spmv_operands(mg_context c, job *j) {
    const uint32_t n = mg_graph_num_vertices(j->g);
    double *x = malloc((size_t)n * sizeof *x + 1);
    for (uint32_t i = 0; i < n; i++) x[i] = 1.0 + (double)(i % 13u) / 8.0;
    if (mg_graph_matrix(c, j->g, &j->A) != MG_SUCCESS || mg_dense_create(c, &j->x, n, 1, MG_DOUBLE) != MG_SUCCESS ||
        mg_dense_create(c, &j->y, n, 1, MG_DOUBLE) != MG_SUCCESS || mg_dense_load(c, j->x, x) != MG_SUCCESS) {
        fprintf(stderr, "bench_dist: rank %d: %s\n", rank, mg_context_error(c));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    free(x);
}

/* the exchange's collective alone: every range of y (caller order) from its owner to all, without
 * the gather and scatter around it that a vector in a share's device numbering needs (after
 * mg_spmv on a GPU, y is on the device) */
static void ranges_only(void *arg) {
    job *j = arg;
    for (int k = 0; k < j->iterations; k++) DIE_IF(mg__dist_sync_dense(ctx, j->g, j->y));
}

static void spmv_free(job *j) {
    mg_matrix_free(&j->A);
    mg_dense_free(&j->x);
    mg_dense_free(&j->y);
}

static void pagerank(void *arg) {
    job *j = arg;
    mg_pagerank_options o;
    mg_pagerank_options_init(&o);
    o.tolerance = 0; /* exactly o.max_iterations iterations */
    o.max_iterations = j->iterations;
    DIE_IF(mg_pagerank(ctx, j->g, &o, j->v));
}

/* --trace: one line per step of one BFS run, from rank 0 (the step's whole time, exchange
 * included) */
static void print_step(const mg_advance_info *info, void *user) {
    int *step = user;
    if (rank == 0)
        printf("bench_dist: trace bfs step %d %s frontier %u edges %llu scanned %llu joined %u ms %.3f\n", ++*step,
               info->dense ? "dense" : info->pulled ? "pull" : "push", info->frontier_vertices,
               (unsigned long long)info->frontier_edges, (unsigned long long)info->edges_scanned,
               info->output_vertices, info->seconds * 1e3);
}

static void bfs(void *arg) {
    job *j = arg;
    DIE_IF(mg_bfs(ctx, j->g, j->source, j->v, NULL));
}

/* mg_pagerank's step program (damping 0.85) */
static mg_program pagerank_step(mg_graph g) {
    mg_program step;
    mg_program_init(&step);
    step.contribution = MG_CONTRIB_SRC_DIV_OUTDEG;
    step.combine = MG_COMBINE_SUM;
    step.apply = MG_APPLY_AFFINE;
    step.alpha = 0.85;
    step.beta = 0.15 / mg_graph_num_vertices(g);
    return step;
}

/* PageRank's step alone (its program, old into new), exchange included */
static void pagerank_steps(void *arg) {
    job *j = arg;
    const mg_program step = pagerank_step(j->g);
    for (int k = 0; k < j->iterations; k++) DIE_IF(mg_advance(ctx, j->g, &step, NULL, j->v, j->w, NULL, NULL));
}

/* PageRank's step on this rank's share alone: the engine, without the exchange (what each rank's
 * own edges cost it; the exchange waits for the slowest) */
static void engine_steps(void *arg) {
    job *j = arg;
    const mg_program step = pagerank_step(j->g);
    mg__advance_call call = {ctx, j->g, &step, NULL, j->v, j->w, NULL, NULL, NULL, false, 0};
    mg_advance_info info;
    for (int k = 0; k < j->iterations; k++)
        DIE_IF(mg_context_backend(ctx) == MG_BACKEND_GPU ? mg__gpu_run_advance(&call, &info)
                                                          : mg__cpu_advance(&call, &info));
}

/* steps old into new with a swap after each, no L1 distance between */
static void steps_swapped(void *arg) {
    job *j = arg;
    const mg_program step = pagerank_step(j->g);
    mg_vector a = j->v, b = j->w;
    for (int k = 0; k < j->iterations; k++) {
        DIE_IF(mg_advance(ctx, j->g, &step, NULL, a, b, NULL, NULL));
        mg_vector t = a;
        a = b;
        b = t;
    }
}

/* mg_pagerank's loop over the public calls: a step old into new, their L1 distance, a swap */
static void step_and_distance(void *arg) {
    job *j = arg;
    const mg_program step = pagerank_step(j->g);
    mg_vector a = j->v, b = j->w;
    for (int k = 0; k < j->iterations; k++) {
        double change;
        DIE_IF(mg_advance(ctx, j->g, &step, NULL, a, b, NULL, NULL));
        DIE_IF(mg_vector_l1_distance(ctx, a, b, &change));
        mg_vector t = a;
        a = b;
        b = t;
    }
}

static void l1_distances(void *arg) {
    job *j = arg;
    double change;
    for (int k = 0; k < j->iterations; k++) DIE_IF(mg_vector_l1_distance(ctx, j->v, j->w, &change));
}

static void exchange(void *arg) {
    job *j = arg;
    for (int k = 0; k < j->iterations; k++) DIE_IF(mg__dist_sync_vector(ctx, j->v));
}

static mg_graph generate(mg_context c, int scale, double ef, bool directed) {
    mg_gen_options o;
    mg_gen_options_init(&o);
    o.kind = MG_GEN_RMAT;
    o.scale = scale;
    o.edge_factor = ef;
    o.seed = 1;
    o.graph.directed = directed;
    mg_graph g = NULL;
    if (mg_generate(c, &g, &o) != MG_SUCCESS) {
        fprintf(stderr, "bench_dist: rank %d: %s\n", rank, mg_context_error(c));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return g;
}

static uint32_t first_source(mg_graph g) {
    mg_vector deg = NULL;
    DIE_IF(mg_vector_create(ctx, &deg, g, MG_INT64));
    DIE_IF(mg_vector_degree(ctx, deg, MG_EDGES_OUT));
    const uint32_t n = mg_graph_num_vertices(g);
    int64_t *d = malloc((size_t)n * sizeof *d);
    DIE_IF(mg_vector_extract(ctx, deg, d));
    uint32_t s = 0;
    while (s < n && d[s] == 0) s++;
    free(d);
    mg_vector_free(&deg);
    return s < n ? s : 0;
}

/* The split runs against one whole-graph CPU context on rank 0 (every rank holds the results). */
static void check(int scale, double ef, bool directed, int iterations) {
    mg_graph g = generate(ctx, scale, ef, directed);
    const uint32_t n = mg_graph_num_vertices(g);
    job j = {g, NULL, NULL, first_source(g), iterations, NULL, NULL, NULL};
    int32_t *depth = malloc((size_t)n * sizeof *depth);
    double *rank_split = malloc((size_t)n * sizeof *rank_split);
    double *y_split = malloc((size_t)n * sizeof *y_split);
    spmv_operands(ctx, &j);
    j.iterations = 1;
    spmv(&j);
    j.iterations = iterations;
    DIE_IF(mg_dense_extract(ctx, j.y, y_split));
    spmv_free(&j);
    DIE_IF(mg_vector_create(ctx, &j.v, g, MG_INT32));
    bfs(&j);
    DIE_IF(mg_vector_extract(ctx, j.v, depth));
    mg_vector_free(&j.v);
    DIE_IF(mg_vector_create(ctx, &j.v, g, MG_DOUBLE));
    pagerank(&j);
    DIE_IF(mg_vector_extract(ctx, j.v, rank_split));
    mg_vector_free(&j.v);
    int bad = 0;
    if (rank == 0) {
        mg_context whole_ctx = NULL;
        mg_context_create(&whole_ctx);
        mg_graph whole = generate(whole_ctx, scale, ef, directed);
        mg_vector d = NULL, r = NULL;
        mg_pagerank_options o;
        mg_pagerank_options_init(&o);
        o.tolerance = 0;
        o.max_iterations = iterations;
        int32_t *depth_whole = malloc((size_t)n * sizeof *depth_whole);
        double *rank_whole = malloc((size_t)n * sizeof *rank_whole);
        double *y_whole = malloc((size_t)n * sizeof *y_whole);
        job jw = {whole, NULL, NULL, 0, 1, NULL, NULL, NULL};
        spmv_operands(whole_ctx, &jw);
        mg_spmv_options so;
        mg_spmv_options_init(&so);
        so.transpose = true;
        if (mg_spmv(whole_ctx, jw.A, jw.x, jw.y, &so) != MG_SUCCESS ||
            mg_dense_extract(whole_ctx, jw.y, y_whole) != MG_SUCCESS) {
            fprintf(stderr, "bench_dist: the whole-graph product failed: %s\n", mg_context_error(whole_ctx));
            bad = 1;
        }
        spmv_free(&jw);
        if (mg_vector_create(whole_ctx, &d, whole, MG_INT32) != MG_SUCCESS ||
            mg_vector_create(whole_ctx, &r, whole, MG_DOUBLE) != MG_SUCCESS ||
            mg_bfs(whole_ctx, whole, j.source, d, NULL) != MG_SUCCESS ||
            mg_pagerank(whole_ctx, whole, &o, r) != MG_SUCCESS ||
            mg_vector_extract(whole_ctx, d, depth_whole) != MG_SUCCESS ||
            mg_vector_extract(whole_ctx, r, rank_whole) != MG_SUCCESS) {
            fprintf(stderr, "bench_dist: the whole-graph reference failed: %s\n", mg_context_error(whole_ctx));
            bad = 1;
        }
        uint32_t bad_depth = 0, bad_rank = 0, bad_y = 0;
        for (uint32_t v = 0; !bad && v < n; v++) {
            bad_depth += depth[v] != depth_whole[v];
            bad_rank += !(fabs(rank_split[v] - rank_whole[v]) <= 1e-9 * fabs(rank_whole[v]) + 1e-15);
            /* every term is positive: the sum is its terms' magnitude */
            bad_y += !(fabs(y_split[v] - y_whole[v]) <= 1e-9 * fabs(y_whole[v]));
        }
        printf("bench_dist: check: rmat%d%s on %d ranks against one CPU context: bfs %s (%u of %u "
               "depths differ), pagerank %s (%u of %u ranks off by over 1e-9 relative), spmv %s (%u "
               "of %u entries off)\n",
               scale, directed ? " directed" : "", size, bad_depth ? "FAIL" : "PASS", bad_depth, n,
               bad_rank ? "FAIL" : "PASS", bad_rank, n, bad_y ? "FAIL" : "PASS", bad_y, n);
        bad |= bad_depth || bad_rank || bad_y;
        free(y_whole);
        free(depth_whole);
        free(rank_whole);
        mg_vector_free(&d);
        mg_vector_free(&r);
        mg_graph_free(&whole);
        mg_context_free(&whole_ctx);
    }
    MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
    free(depth);
    free(rank_split);
    free(y_split);
    mg_graph_free(&g);
    if (bad) MPI_Abort(MPI_COMM_WORLD, 1);
}

static const char *mode_names[] = {"auto", "sparse", "pull", "dense", "hybrid"};
static const mg_mode mode_values[] = {MG_MODE_AUTO, MG_MODE_SPARSE, MG_MODE_PULL, MG_MODE_DENSE,
                                      MG_MODE_HYBRID};

/* The modes of a comma-separated list into modes[] (at most 5); false for an unknown one. */
static bool parse_modes(const char *list, int *modes, int *count) {
    *count = 0;
    char buf[128];
    snprintf(buf, sizeof buf, "%s", list);
    for (char *tok = strtok(buf, ","); tok != NULL; tok = strtok(NULL, ",")) {
        int k = 0;
        while (k < 5 && strcmp(tok, mode_names[k]) != 0) k++;
        if (k == 5 || *count == 5) return false;
        modes[(*count)++] = k;
    }
    return *count > 0;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int scale = 20, runs = 5, iterations = 20, check_scale = -1, modes[5] = {0}, nmodes = 1;
    double ef = 16;
    bool directed = false, gpu = true, usage = false, trace = false;
    for (int i = 1; i < argc && !usage; i++) {
        const bool has = i + 1 < argc;
        if (!strcmp(argv[i], "--scale") && has) scale = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--edge-factor") && has) ef = atof(argv[++i]);
        else if (!strcmp(argv[i], "--runs") && has) runs = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--iterations") && has) iterations = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--check-scale") && has) check_scale = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--directed")) directed = true;
        else if (!strcmp(argv[i], "--trace")) trace = true;
        else if (!strcmp(argv[i], "--modes") && has) usage = !parse_modes(argv[++i], modes, &nmodes);
        else if (!strcmp(argv[i], "--backend") && has) gpu = strcmp(argv[++i], "cpu") != 0;
        else usage = true;
    }
    if (usage || runs < 1 || runs > 63 || iterations < 1 || scale < 1 || scale > 31) {
        if (rank == 0)
            fprintf(stderr, "usage: mpirun -np P bench_dist --scale S (1..31) [--edge-factor F] [--directed] "
                            "[--backend gpu|cpu] [--modes auto,sparse,pull,dense,hybrid] [--iterations I] "
                            "[--runs N (1..63)] [--check-scale C] [--trace]\n");
        MPI_Finalize();
        return 2;
    }
    if (check_scale < 0) check_scale = scale < 16 ? scale : 16;
    mg_context_create(&ctx);
    DIE_IF(mg_context_set_mpi(ctx, MPI_COMM_WORLD));
    if (gpu) DIE_IF(mg_context_set_backend(ctx, MG_BACKEND_GPU));

    check(check_scale, ef, directed, iterations);

    double t0 = MPI_Wtime();
    mg_graph g = generate(ctx, scale, ef, directed);
    const double build = MPI_Wtime() - t0;
    const uint32_t n = mg_graph_num_vertices(g);
    const uint64_t m = mg_graph_num_edges(g);
    const uint64_t *off;
    const uint32_t *idx;
    const void *w;
    DIE_IF(mg_graph_csr(g, &off, &idx, &w));
    unsigned long long mine = off[n], most = 0;
    MPI_Reduce(&mine, &most, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    if (gpu) DIE_IF(mg_graph_gpu_prepare(ctx, g, NULL));
    const double upload = MPI_Wtime() - t0;

    /* the whole graph's out-edges of each vertex, for BFS's traversed edges */
    int64_t *degree = malloc((size_t)n * sizeof *degree);
    int32_t *depth = malloc((size_t)n * sizeof *depth);
    mg_vector deg = NULL;
    DIE_IF(mg_vector_create(ctx, &deg, g, MG_INT64));
    DIE_IF(mg_vector_degree(ctx, deg, MG_EDGES_OUT));
    DIE_IF(mg_vector_extract(ctx, deg, degree));
    mg_vector_free(&deg);

    job j = {g, NULL, NULL, first_source(g), iterations, NULL, NULL, NULL};
    double t[63], own[63];
    spmv_operands(ctx, &j);
    spmv(&j); /* the view's device form is built here, on the first product */
    for (int r = 0; r < runs; r++) t[r] = timed(spmv, &j);
    const double spmv_ms = median(t, runs) / iterations * 1e3;
    double ranges_ms = 0;
    if (size > 1) {
        ranges_only(&j);
        for (int r = 0; r < runs; r++) t[r] = timed(ranges_only, &j);
        ranges_ms = median(t, runs) / iterations * 1e3;
    }
    spmv_free(&j);
    DIE_IF(mg_vector_create(ctx, &j.v, g, MG_DOUBLE));
    DIE_IF(mg_vector_create(ctx, &j.w, g, MG_DOUBLE));
    pagerank(&j);
    exchange(&j);
    for (int r = 0; r < runs; r++) t[r] = timed(exchange, &j);
    const double x_ms = median(t, runs) / iterations * 1e3;
    l1_distances(&j);
    for (int r = 0; r < runs; r++) t[r] = timed(l1_distances, &j);
    const double l1_ms = median(t, runs) / iterations * 1e3;
    if (rank == 0)
        printf("bench_dist: ranks %d backend %s rmat%d%s n %u m %llu largest_share %llu build_s %.2f "
               "upload_s %.2f exchange_ms %.3f exchange_collective_ms %.3f l1_ms %.3f spmv_at_ms %.3f\n",
               size, gpu ? "gpu" : "cpu", scale, directed ? "-directed" : "", n, (unsigned long long)m,
               most, build, upload, x_ms, ranges_ms, l1_ms, spmv_ms);

    for (int k = 0; k < nmodes; k++) {
        DIE_IF(mg_context_set_mode(ctx, mode_values[modes[k]]));
        mg_vector v = j.v;
        DIE_IF(mg_vector_create(ctx, &j.v, g, MG_INT32));
        bfs(&j);
        for (int r = 0; r < runs; r++) t[r] = timed(bfs, &j);
        const double bfs_ms = median(t, runs) * 1e3;
        if (trace) {
            int step = 0;
            DIE_IF(mg_context_set_trace(ctx, print_step, &step));
            bfs(&j);
            DIE_IF(mg_context_set_trace(ctx, NULL, NULL));
        }
        DIE_IF(mg_vector_extract(ctx, j.v, depth));
        mg_vector_free(&j.v);
        j.v = v;
        /* traversed edges: the reached vertices' out-edges of the whole graph */
        uint64_t traversed = 0;
        for (uint32_t u = 0; u < n; u++)
            if (depth[u] >= 0) traversed += (uint64_t)degree[u];
        pagerank(&j);
        for (int r = 0; r < runs; r++) t[r] = timed(pagerank, &j);
        const double pr_ms = median(t, runs) / iterations * 1e3;
        /* what one more iteration costs: a call's own work (its vectors, the normalisation) aside */
        j.iterations = 1;
        for (int r = 0; r < runs; r++) t[r] = timed(pagerank, &j);
        j.iterations = iterations;
        const double pr_one_ms = median(t, runs) * 1e3;
        const double pr_marginal_ms = iterations > 1 ? (pr_ms * iterations - pr_one_ms) / (iterations - 1) : pr_ms;
        pagerank_steps(&j);
        for (int r = 0; r < runs; r++) {
            t[r] = timed(pagerank_steps, &j);
            own[r] = own_time;
        }
        const double step_ms = median(t, runs) / iterations * 1e3;
        step_and_distance(&j);
        for (int r = 0; r < runs; r++) t[r] = timed(step_and_distance, &j);
        const double loop_ms = median(t, runs) / iterations * 1e3;
        for (int r = 0; r < runs; r++) t[r] = timed(steps_swapped, &j);
        const double swapped_ms = median(t, runs) / iterations * 1e3;
        /* each rank's own engine steps, without the exchange (which waits for the slowest) */
        engine_steps(&j);
        for (int r = 0; r < runs; r++) {
            (void)timed(engine_steps, &j);
            own[r] = own_time;
        }
        const double own_ms = median(own, runs) / iterations * 1e3;
        double *owns = malloc((size_t)size * sizeof *owns);
        MPI_Gather(&own_ms, 1, MPI_DOUBLE, owns, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);

        if (rank == 0) {
            printf("bench_dist: ranks %d mode %s rmat%d%s pr_iteration_ms %.3f pr_marginal_iteration_ms %.3f "
                   "pr_step_ms %.3f pr_step_swapped_ms %.3f pr_step_l1_ms %.3f bfs_ms %.3f bfs_gteps %.3f engine_step_ms_by_rank",
                   size, mode_names[modes[k]], scale, directed ? "-directed" : "", pr_ms, pr_marginal_ms, step_ms, swapped_ms, loop_ms, bfs_ms,
                   traversed / (bfs_ms * 1e-3) / 1e9);
            for (int r = 0; r < size; r++) printf(" %.3f", owns[r]);
            printf("\n");
        }
        free(owns);
    }
    mg_vector_free(&j.v);
    mg_vector_free(&j.w);
    free(degree);
    free(depth);
    mg_graph_free(&g);
    mg_context_free(&ctx);
    MPI_Finalize();
    return 0;
}
