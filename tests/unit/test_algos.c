/*
 * test_algos.c — the five built-in algorithms against their serial references (mg_check_*) and
 * against answers worked out by hand, on tiny graphs, on every generator family, and on the real
 * samples in datasets/samples; under forced push, forced pull and automatic mode, on 1 and 2
 * threads. Also: the
 * verifiers reject a corrupted result, bad arguments give MG_INVALID_ARGUMENT, and a failed
 * allocation anywhere in BFS, SSSP, CC, PageRank or BC gives MG_OUT_OF_MEMORY (the sanitizer build
 * proves nothing leaks).
 */
#include "check.h"
#include "mg_internal.h" /* mg__inject_alloc_failure */
#include "mgraph.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

static mg_context ctx;

/* ---- helpers ------------------------------------------------------------------------------------ */

typedef struct {
    uint32_t s, d;
} edge;

static mg_graph make_graph(uint32_t n, const edge *e, uint64_t m, const int32_t *w, bool directed,
                           bool keep_self_loops, bool keep_duplicates) {
    uint32_t src[64], dst[64];
    for (uint64_t i = 0; i < m; i++) {
        src[i] = e[i].s;
        dst[i] = e[i].d;
    }
    mg_graph_options o;
    mg_graph_options_init(&o);
    o.directed = directed;
    o.keep_self_loops = keep_self_loops;
    o.keep_duplicates = keep_duplicates;
    mg_graph g = NULL;
    CHECK_OK(ctx, mg_graph_create_from_coo(ctx, &g, n, m, src, dst, w,
                                           w ? MG_WEIGHT_INT32 : MG_WEIGHT_NONE, &o));
    return g;
}

static double get(mg_vector v, uint32_t i) {
    double x = NAN;
    CHECK_OK(ctx, mg_vector_get(ctx, v, i, &x));
    return x;
}

/* Every algorithm on g with its verifier. heavy: also PageRank to a tight tolerance, SSSP with
 * explicit deltas, and BC over all sources when n <= 256. */
static void run_all(mg_graph g, const char *what, bool heavy) {
    const uint32_t n = mg_graph_num_vertices(g);
    if (n == 0) return;
    mg_vector depth = NULL, parent = NULL, dist = NULL, label = NULL, rank = NULL, bc = NULL;
    CHECK_OK(ctx, mg_vector_create(ctx, &depth, g, MG_INT32));
    CHECK_OK(ctx, mg_vector_create(ctx, &parent, g, MG_VERTEX));
    CHECK_OK(ctx, mg_vector_create(ctx, &dist, g,
                                   mg_graph_weight_type(g) == MG_WEIGHT_FLOAT ? MG_DOUBLE : MG_INT64));
    CHECK_OK(ctx, mg_vector_create(ctx, &label, g, MG_VERTEX));
    CHECK_OK(ctx, mg_vector_create(ctx, &rank, g, MG_DOUBLE));
    CHECK_OK(ctx, mg_vector_create(ctx, &bc, g, MG_DOUBLE));
    int bad = check_failures_;

    const uint32_t sources[3] = {0, n / 2, n - 1};
    for (int i = 0; i < 3; i++) {
        CHECK_OK(ctx, mg_bfs(ctx, g, sources[i], depth, parent));
        CHECK_OK(ctx, mg_check_bfs(ctx, g, sources[i], depth, parent));
        CHECK_OK(ctx, mg_bfs(ctx, g, sources[i], depth, NULL));
        CHECK_OK(ctx, mg_check_bfs(ctx, g, sources[i], depth, NULL));
        CHECK_OK(ctx, mg_sssp(ctx, g, sources[i], 0, dist));
        CHECK_OK(ctx, mg_check_sssp(ctx, g, sources[i], dist));
    }
    if (heavy) {
        CHECK_OK(ctx, mg_sssp(ctx, g, sources[1], 3, dist)); /* a narrow, explicit delta */
        CHECK_OK(ctx, mg_check_sssp(ctx, g, sources[1], dist));
        CHECK_OK(ctx, mg_sssp(ctx, g, sources[1], 1e6, dist)); /* one bucket: Bellman-Ford-like */
        CHECK_OK(ctx, mg_check_sssp(ctx, g, sources[1], dist));
    }
    CHECK_OK(ctx, mg_cc(ctx, g, label));
    CHECK_OK(ctx, mg_check_cc(ctx, g, label));

    mg_pagerank_options po;
    for (int dd = 0; dd < 2; dd++) {
        for (int t = 0; t < (heavy ? 2 : 1); t++) {
            mg_pagerank_options_init(&po);
            po.data_driven = dd;
            if (t) {
                po.tolerance = 1e-9;
                po.max_iterations = 1000;
            }
            CHECK_OK(ctx, mg_pagerank(ctx, g, &po, rank));
            CHECK_OK(ctx, mg_check_pagerank(ctx, g, &po, rank));
            CHECK(po.iterations > 0);
        }
    }
    /* float iterates: the default tolerance, the least one allowed, and LDBC's fixed count with
     * the dangling rank spread each iteration */
    for (int t = 0; t < (heavy ? 3 : 1); t++) {
        mg_pagerank_options_init(&po);
        po.single_precision = true;
        if (t == 1) po.tolerance = 1e-6;
        if (t == 2) {
            po.tolerance = 0;
            po.max_iterations = 30;
            po.spread_each_iteration = true;
        }
        CHECK_OK(ctx, mg_pagerank(ctx, g, &po, rank));
        CHECK_OK(ctx, mg_check_pagerank(ctx, g, &po, rank));
        CHECK(po.iterations > 0);
    }

    CHECK_OK(ctx, mg_bc(ctx, g, &sources[1], 1, bc));
    CHECK_OK(ctx, mg_check_bc(ctx, g, &sources[1], 1, bc));
    CHECK_OK(ctx, mg_bc(ctx, g, sources, 3, bc));
    CHECK_OK(ctx, mg_check_bc(ctx, g, sources, 3, bc));
    if (heavy && n <= 256) {
        CHECK_OK(ctx, mg_bc(ctx, g, NULL, 0, bc));
        CHECK_OK(ctx, mg_check_bc(ctx, g, NULL, 0, bc));
    }
    if (check_failures_ != bad) fprintf(stderr, "  (failures above: %s)\n", what);

    mg_vector_free(&depth);
    mg_vector_free(&parent);
    mg_vector_free(&dist);
    mg_vector_free(&label);
    mg_vector_free(&rank);
    mg_vector_free(&bc);
}

/* ---- tiny graphs with known answers ------------------------------------------------------------- */

static void test_path(void) {
    const edge e[] = {{0, 1}, {1, 2}, {2, 3}, {3, 4}};
    const int32_t w[] = {5, 1, 7, 2};
    mg_graph g = make_graph(5, e, 4, w, false, false, false);
    mg_vector depth = NULL, parent = NULL, dist = NULL, label = NULL, bc = NULL;
    CHECK_OK(ctx, mg_vector_create(ctx, &depth, g, MG_INT32));
    CHECK_OK(ctx, mg_vector_create(ctx, &parent, g, MG_VERTEX));
    CHECK_OK(ctx, mg_vector_create(ctx, &dist, g, MG_INT64));
    CHECK_OK(ctx, mg_vector_create(ctx, &label, g, MG_VERTEX));
    CHECK_OK(ctx, mg_vector_create(ctx, &bc, g, MG_DOUBLE));

    CHECK_OK(ctx, mg_bfs(ctx, g, 0, depth, parent));
    for (uint32_t v = 0; v < 5; v++) {
        CHECK(get(depth, v) == v);
        CHECK(get(parent, v) == (v ? v - 1 : 0));
    }
    CHECK_OK(ctx, mg_bfs(ctx, g, 2, depth, parent));
    const double d2[] = {2, 1, 0, 1, 2}, p2[] = {1, 2, 2, 2, 3};
    for (uint32_t v = 0; v < 5; v++) CHECK(get(depth, v) == d2[v] && get(parent, v) == p2[v]);

    CHECK_OK(ctx, mg_sssp(ctx, g, 0, 0, dist));
    const double s0[] = {0, 5, 6, 13, 15};
    for (uint32_t v = 0; v < 5; v++) CHECK(get(dist, v) == s0[v]);
    CHECK_OK(ctx, mg_sssp(ctx, g, 4, 1, dist));
    const double s4[] = {15, 10, 9, 2, 0};
    for (uint32_t v = 0; v < 5; v++) CHECK(get(dist, v) == s4[v]);

    CHECK_OK(ctx, mg_cc(ctx, g, label));
    for (uint32_t v = 0; v < 5; v++) CHECK(get(label, v) == 0);

    /* All pairs on a 5-path: v lies on (v)(4-v) pairs' paths; one source 0: delta_0(v) = 4 - v. */
    CHECK_OK(ctx, mg_bc(ctx, g, NULL, 0, bc));
    const double all[] = {0, 3, 4, 3, 0};
    for (uint32_t v = 0; v < 5; v++) CHECK(fabs(get(bc, v) - all[v]) < 1e-12);
    const uint32_t src0 = 0;
    CHECK_OK(ctx, mg_bc(ctx, g, &src0, 1, bc));
    const double one[] = {0, 3, 2, 1, 0};
    for (uint32_t v = 0; v < 5; v++) CHECK(fabs(get(bc, v) - one[v]) < 1e-12);

    mg_vector_free(&depth);
    mg_vector_free(&parent);
    mg_vector_free(&dist);
    mg_vector_free(&label);
    mg_vector_free(&bc);
    run_all(g, "path", true);
    mg_graph_free(&g);
}

static void test_star(void) {
    /* Undirected star, centre 0, 4 leaves. PageRank by hand: r_l = b + d r_c / 4, r_c = b + 4 d r_l
     * with b = (1 - d) / 5 (no dangling vertex). BC (all sources, halved): the centre lies on all
     * C(4, 2) = 6 leaf pairs. */
    const edge e[] = {{0, 1}, {0, 2}, {0, 3}, {0, 4}};
    mg_graph g = make_graph(5, e, 4, NULL, false, false, false);
    mg_vector rank = NULL, bc = NULL;
    CHECK_OK(ctx, mg_vector_create(ctx, &rank, g, MG_DOUBLE));
    CHECK_OK(ctx, mg_vector_create(ctx, &bc, g, MG_DOUBLE));
    const double d = 0.85, b = (1 - d) / 5;
    const double rc = (b + 4 * d * b) / (1 - d * d), rl = b + d * rc / 4;
    for (int dd = 0; dd < 2; dd++) {
        mg_pagerank_options po;
        mg_pagerank_options_init(&po);
        po.tolerance = 1e-12;
        po.max_iterations = 10000;
        po.data_driven = dd;
        CHECK_OK(ctx, mg_pagerank(ctx, g, &po, rank));
        CHECK(fabs(get(rank, 0) - rc) < 1e-9);
        for (uint32_t v = 1; v < 5; v++) CHECK(fabs(get(rank, v) - rl) < 1e-9);
    }
    CHECK_OK(ctx, mg_bc(ctx, g, NULL, 0, bc));
    CHECK(fabs(get(bc, 0) - 6) < 1e-12);
    for (uint32_t v = 1; v < 5; v++) CHECK(get(bc, v) == 0);
    mg_vector_free(&rank);
    mg_vector_free(&bc);
    run_all(g, "star", true);
    mg_graph_free(&g);
}

static void test_components(void) {
    /* Triangle {0,1,2}, edge {3,4}, isolated 5 and 6; labels are the least ids. */
    const edge e[] = {{1, 2}, {2, 0}, {0, 1}, {4, 3}};
    mg_graph g = make_graph(7, e, 4, NULL, false, false, false);
    mg_vector label = NULL, depth = NULL, parent = NULL, dist = NULL;
    CHECK_OK(ctx, mg_vector_create(ctx, &label, g, MG_VERTEX));
    CHECK_OK(ctx, mg_vector_create(ctx, &depth, g, MG_INT32));
    CHECK_OK(ctx, mg_vector_create(ctx, &parent, g, MG_VERTEX));
    CHECK_OK(ctx, mg_vector_create(ctx, &dist, g, MG_INT64));
    CHECK_OK(ctx, mg_cc(ctx, g, label));
    const double want[] = {0, 0, 0, 3, 3, 5, 6};
    for (uint32_t v = 0; v < 7; v++) CHECK(get(label, v) == want[v]);
    CHECK_OK(ctx, mg_bfs(ctx, g, 4, depth, parent));
    for (uint32_t v = 0; v < 7; v++) {
        CHECK(get(depth, v) == (v == 4 ? 0 : v == 3 ? 1 : -1));
        CHECK(get(parent, v) == (v == 3 || v == 4 ? 4 : -1));
    }
    CHECK_OK(ctx, mg_sssp(ctx, g, 5, 0, dist)); /* an isolated source */
    int64_t dv[7];
    CHECK_OK(ctx, mg_vector_extract(ctx, dist, dv));
    for (uint32_t v = 0; v < 7; v++) CHECK(dv[v] == (v == 5 ? 0 : INT64_MAX));
    mg_vector_free(&label);
    mg_vector_free(&depth);
    mg_vector_free(&parent);
    mg_vector_free(&dist);
    run_all(g, "components", true);
    mg_graph_free(&g);
}

static void test_directed_cycle(void) {
    /* 0 -> 1 -> 2 -> 3 -> 0 plus a tail 5 -> 4 -> 0: weakly one component; PageRank of the cycle
     * alone would be uniform; BFS follows the direction. */
    const edge e[] = {{0, 1}, {1, 2}, {2, 3}, {3, 0}, {4, 0}, {5, 4}};
    mg_graph g = make_graph(6, e, 6, NULL, true, false, false);
    mg_vector depth = NULL, parent = NULL, label = NULL;
    CHECK_OK(ctx, mg_vector_create(ctx, &depth, g, MG_INT32));
    CHECK_OK(ctx, mg_vector_create(ctx, &parent, g, MG_VERTEX));
    CHECK_OK(ctx, mg_vector_create(ctx, &label, g, MG_VERTEX));
    CHECK_OK(ctx, mg_bfs(ctx, g, 1, depth, parent));
    const double d1[] = {3, 0, 1, 2, -1, -1}, p1[] = {3, 1, 1, 2, -1, -1};
    for (uint32_t v = 0; v < 6; v++) CHECK(get(depth, v) == d1[v] && get(parent, v) == p1[v]);
    CHECK_OK(ctx, mg_cc(ctx, g, label));
    for (uint32_t v = 0; v < 6; v++) CHECK(get(label, v) == 0);
    mg_vector_free(&depth);
    mg_vector_free(&parent);
    mg_vector_free(&label);
    run_all(g, "directed cycle", true);
    mg_graph_free(&g);

    /* The bare 4-cycle: PageRank exactly uniform; BC from 0: delta_0 = (0, 2, 1, 0). */
    g = make_graph(4, e, 4, NULL, true, false, false);
    mg_vector rank = NULL, bc = NULL;
    CHECK_OK(ctx, mg_vector_create(ctx, &rank, g, MG_DOUBLE));
    CHECK_OK(ctx, mg_vector_create(ctx, &bc, g, MG_DOUBLE));
    CHECK_OK(ctx, mg_pagerank(ctx, g, NULL, rank));
    for (uint32_t v = 0; v < 4; v++) CHECK(fabs(get(rank, v) - 0.25) < 1e-12);
    const uint32_t s = 0;
    CHECK_OK(ctx, mg_bc(ctx, g, &s, 1, bc));
    const double dep[] = {0, 2, 1, 0};
    for (uint32_t v = 0; v < 4; v++) CHECK(fabs(get(bc, v) - dep[v]) < 1e-12);
    /* All sources, directed (no halving): each vertex lies on 1 + 2 = 3 pairs' paths. */
    CHECK_OK(ctx, mg_bc(ctx, g, NULL, 0, bc));
    for (uint32_t v = 0; v < 4; v++) CHECK(fabs(get(bc, v) - 3) < 1e-12);
    mg_vector_free(&rank);
    mg_vector_free(&bc);
    mg_graph_free(&g);
}

static void test_loops_and_duplicates(void) {
    /* 0 -> 1 twice, 1 -> 1, 1 -> 2, 0 -> 2 with weights; duplicates and self-loops kept: two
     * shortest paths 0 -> 1 count separately in sigma. */
    const edge e[] = {{0, 1}, {0, 1}, {1, 1}, {1, 2}, {0, 3}, {3, 2}};
    const int32_t w[] = {4, 2, 1, 3, 1, 9};
    mg_graph g = make_graph(4, e, 6, w, true, true, true);
    CHECK(mg_graph_num_edges(g) == 6);
    mg_vector dist = NULL, bc = NULL, rank = NULL;
    CHECK_OK(ctx, mg_vector_create(ctx, &dist, g, MG_INT64));
    CHECK_OK(ctx, mg_vector_create(ctx, &bc, g, MG_DOUBLE));
    CHECK_OK(ctx, mg_vector_create(ctx, &rank, g, MG_DOUBLE));
    CHECK_OK(ctx, mg_sssp(ctx, g, 0, 0, dist));
    const double want[] = {0, 2, 5, 1};
    for (uint32_t v = 0; v < 4; v++) CHECK(get(dist, v) == want[v]);
    /* BC from 0: sigma(1) = 2, sigma(3) = 1, sigma(2) = 3; delta(1) = 2/3, delta(3) = 1/3. */
    const uint32_t s = 0;
    CHECK_OK(ctx, mg_bc(ctx, g, &s, 1, bc));
    CHECK(fabs(get(bc, 1) - 2.0 / 3) < 1e-12);
    CHECK(fabs(get(bc, 3) - 1.0 / 3) < 1e-12);
    CHECK(get(bc, 0) == 0 && get(bc, 2) == 0);
    CHECK_OK(ctx, mg_pagerank(ctx, g, NULL, rank));
    CHECK_OK(ctx, mg_check_pagerank(ctx, g, NULL, rank));
    mg_vector_free(&dist);
    mg_vector_free(&bc);
    mg_vector_free(&rank);
    run_all(g, "self-loops and duplicates", true);
    mg_graph_free(&g);
}

static void test_dangling(void) {
    /* 0 -> 1 -> 2, 2 dangling. With b = (1 - d + d r2) / 3: r0 = b, r1 = b (1 + d),
     * r2 = b (1 + d + d^2), and the sum is 1, so b = 1 / (3 + 2d + d^2). */
    const edge e[] = {{0, 1}, {1, 2}};
    mg_graph g = make_graph(3, e, 2, NULL, true, false, false);
    mg_vector rank = NULL;
    CHECK_OK(ctx, mg_vector_create(ctx, &rank, g, MG_DOUBLE));
    const double d = 0.85, b = 1 / (3 + 2 * d + d * d);
    const double want[] = {b, b * (1 + d), b * (1 + d + d * d)};
    for (int dd = 0; dd < 2; dd++) {
        mg_pagerank_options po;
        mg_pagerank_options_init(&po);
        po.tolerance = 1e-12;
        po.max_iterations = 1000;
        po.data_driven = dd;
        CHECK_OK(ctx, mg_pagerank(ctx, g, &po, rank));
        for (uint32_t v = 0; v < 3; v++) CHECK(fabs(get(rank, v) - want[v]) < 1e-9);
        CHECK_OK(ctx, mg_check_pagerank(ctx, g, &po, rank));
    }
    /* Too few iterations: MG_NOT_CONVERGED, still a normalised estimate. */
    mg_pagerank_options po;
    mg_pagerank_options_init(&po);
    po.tolerance = 1e-12;
    po.max_iterations = 2;
    CHECK(mg_pagerank(ctx, g, &po, rank) == MG_NOT_CONVERGED);
    CHECK(strstr(mg_context_error(ctx), "max_iterations") != NULL);
    CHECK(po.iterations == 2);
    double sum;
    CHECK_OK(ctx, mg_vector_reduce(ctx, rank, NULL, MG_OP_ADD, &sum));
    CHECK(fabs(sum - 1) < 1e-12);
    /* Tolerance 0: exactly max_iterations iterations, a success, held by the checker to the last
     * iteration's change — which a result off by more than that fails. */
    mg_pagerank_options_init(&po);
    po.tolerance = 0;
    po.max_iterations = 40;
    CHECK_OK(ctx, mg_pagerank(ctx, g, &po, rank));
    CHECK(po.iterations == 40 && po.change < 1e-6); /* a path converges exactly */
    CHECK_OK(ctx, mg_check_pagerank(ctx, g, &po, rank));
    const double r0 = get(rank, 0);
    CHECK_OK(ctx, mg_vector_set(ctx, rank, 0, r0 + 0.01));
    CHECK_OK(ctx, mg_vector_set(ctx, rank, 1, get(rank, 1) - 0.01));
    CHECK(mg_check_pagerank(ctx, g, &po, rank) == MG_INVALID_ARGUMENT);
    po.data_driven = true;
    CHECK(mg_pagerank(ctx, g, &po, rank) == MG_INVALID_ARGUMENT);
    /* float iterates: the exact ranks to float's rounding and the tolerance's bound */
    mg_pagerank_options_init(&po);
    po.single_precision = true;
    po.tolerance = 1e-6;
    po.max_iterations = 1000;
    CHECK_OK(ctx, mg_pagerank(ctx, g, &po, rank));
    for (uint32_t v = 0; v < 3; v++) CHECK(fabs(get(rank, v) - want[v]) < 1e-5);
    CHECK_OK(ctx, mg_check_pagerank(ctx, g, &po, rank));
    po.data_driven = true;
    CHECK(mg_pagerank(ctx, g, &po, rank) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), "single_precision") != NULL);
    po.data_driven = false;
    po.tolerance = 1e-7;
    CHECK(mg_pagerank(ctx, g, &po, rank) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), "float") != NULL);
    mg_vector_free(&rank);
    run_all(g, "dangling", true);
    mg_graph_free(&g);

    /* No edges at all: every vertex dangling, ranks uniform. */
    g = make_graph(5, e, 0, NULL, true, false, false);
    CHECK_OK(ctx, mg_vector_create(ctx, &rank, g, MG_DOUBLE));
    CHECK_OK(ctx, mg_pagerank(ctx, g, NULL, rank));
    for (uint32_t v = 0; v < 5; v++) CHECK(fabs(get(rank, v) - 0.2) < 1e-12);
    mg_vector_free(&rank);
    run_all(g, "no edges", true);
    mg_graph_free(&g);
}

static void test_float_weights(void) {
    const uint32_t src[] = {0, 0, 1, 2, 1};
    const uint32_t dst[] = {1, 2, 2, 3, 3};
    const float w[] = {0.5f, 2.25f, 0.25f, 1.5f, 4.0f};
    mg_graph_options o;
    mg_graph_options_init(&o);
    mg_graph g = NULL;
    CHECK_OK(ctx, mg_graph_create_from_coo(ctx, &g, 5, 5, src, dst, w, MG_WEIGHT_FLOAT, &o));
    mg_vector dist = NULL;
    CHECK_OK(ctx, mg_vector_create(ctx, &dist, g, MG_DOUBLE));
    CHECK_OK(ctx, mg_sssp(ctx, g, 0, 0, dist));
    const double want[] = {0, 0.5, 0.75, 2.25, INFINITY};
    for (uint32_t v = 0; v < 5; v++) CHECK(get(dist, v) == want[v]);
    CHECK_OK(ctx, mg_check_sssp(ctx, g, 0, dist));
    mg_vector_free(&dist);
    mg_graph_free(&g);
}

/* ---- generated and real graphs ------------------------------------------------------------------ */

static const char *family_name[] = {"rmat", "kronecker", "uniform", "geometric", "grid"};

/* Every family, directed and undirected. all_modes: each run under forced push, forced pull and
 * automatic mode on 1 and 2 threads (the heavy checks once, on 1 thread: thousands of calls on a few
 * hundred vertices would time only OpenMP barriers); otherwise automatic on 2 threads.
 * Int weights carry the whole run; unweighted and float-weighted copies run SSSP and BFS. */
static void test_generated(int scale, bool all_modes) {
    const mg_mode modes[] = {MG_MODE_AUTO, MG_MODE_SPARSE, MG_MODE_PULL};
    for (int kind = MG_GEN_RMAT; kind <= MG_GEN_GRID; kind++) {
        for (int directed = 0; directed < 2; directed++) {
            for (int wt = 0; wt < 3; wt++) {
                mg_gen_options go;
                mg_gen_options_init(&go);
                go.kind = (mg_generator)kind;
                go.scale = scale;
                go.edge_factor = 8;
                go.seed = 7 + (uint64_t)kind;
                go.weights = wt == 0 ? MG_WEIGHT_INT32 : wt == 1 ? MG_WEIGHT_NONE : MG_WEIGHT_FLOAT;
                if (wt == 2) {
                    go.weight_min = 0.5;
                    go.weight_max = 10;
                }
                go.graph.directed = directed;
                mg_graph g = NULL;
                CHECK_OK(ctx, mg_generate(ctx, &g, &go));
                if (g == NULL) continue;
                const uint32_t n = mg_graph_num_vertices(g);
                mg_vector dist = NULL, depth = NULL;
                CHECK_OK(ctx, mg_vector_create(ctx, &dist, g, wt == 2 ? MG_DOUBLE : MG_INT64));
                CHECK_OK(ctx, mg_vector_create(ctx, &depth, g, MG_INT32));
                for (int mi = 0; mi < (all_modes ? 3 : 1); mi++) {
                    for (int threads = all_modes ? 1 : 2; threads <= 2; threads++) {
                        char what[160];
                        snprintf(what, sizeof what, "%s scale %d %s weights %d mode %d threads %d",
                                 family_name[kind], scale, directed ? "directed" : "undirected", wt,
                                 (int)modes[mi], threads);
                        CHECK_OK(ctx, mg_context_set_mode(ctx, modes[mi]));
                        CHECK_OK(ctx, mg_context_set_threads(ctx, threads));
                        if (wt == 0) {
                            run_all(g, what, mi == 0 && threads == 1);
                            continue;
                        }
                        int bad = check_failures_;
                        CHECK_OK(ctx, mg_sssp(ctx, g, n / 3, 0, dist));
                        CHECK_OK(ctx, mg_check_sssp(ctx, g, n / 3, dist));
                        CHECK_OK(ctx, mg_bfs(ctx, g, n / 3, depth, NULL));
                        CHECK_OK(ctx, mg_check_bfs(ctx, g, n / 3, depth, NULL));
                        if (check_failures_ != bad) fprintf(stderr, "  (failures above: %s)\n", what);
                    }
                }
                CHECK_OK(ctx, mg_context_set_mode(ctx, MG_MODE_AUTO));
                mg_vector_free(&dist);
                mg_vector_free(&depth);
                mg_graph_free(&g);
            }
        }
    }
}

static void test_real(void) {
    const char *dir = getenv("MG_SAMPLES");
    CHECK(dir != NULL);
    if (dir == NULL) return;
    const char *files[] = {"roadNet-CA-sample.txt", "web-Google-sample.txt"};
    for (int f = 0; f < 2; f++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, files[f]);
        for (int undirected = 0; undirected < 2; undirected++) {
            mg_read_options ro;
            mg_read_options_init(&ro);
            ro.undirected = undirected;
            mg_graph g = NULL;
            CHECK_OK(ctx, mg_graph_read(ctx, &g, path, &ro));
            if (g == NULL) continue;
            const mg_mode modes[] = {MG_MODE_AUTO, MG_MODE_SPARSE, MG_MODE_PULL};
            for (int mi = 0; mi < 3; mi++) {
                CHECK_OK(ctx, mg_context_set_mode(ctx, modes[mi]));
                char what[1100];
                snprintf(what, sizeof what, "%s %s mode %d", path,
                         undirected ? "undirected" : "directed", (int)modes[mi]);
                if (mi == 0) run_all(g, what, false);
                /* From vertex 0, which has edges in both files; then CC and PageRank. */
                mg_vector depth = NULL, label = NULL, rank = NULL;
                CHECK_OK(ctx, mg_vector_create(ctx, &depth, g, MG_INT32));
                CHECK_OK(ctx, mg_vector_create(ctx, &label, g, MG_VERTEX));
                CHECK_OK(ctx, mg_vector_create(ctx, &rank, g, MG_DOUBLE));
                CHECK_OK(ctx, mg_bfs(ctx, g, 0, depth, NULL));
                CHECK_OK(ctx, mg_check_bfs(ctx, g, 0, depth, NULL));
                CHECK(get(depth, 0) == 0);
                if (mi > 0) {
                    CHECK_OK(ctx, mg_cc(ctx, g, label));
                    CHECK_OK(ctx, mg_check_cc(ctx, g, label));
                    CHECK_OK(ctx, mg_pagerank(ctx, g, NULL, rank));
                    CHECK_OK(ctx, mg_check_pagerank(ctx, g, NULL, rank));
                }
                mg_vector_free(&depth);
                mg_vector_free(&label);
                mg_vector_free(&rank);
            }
            CHECK_OK(ctx, mg_context_set_mode(ctx, MG_MODE_AUTO));
            mg_graph_free(&g);
        }
    }
}

/* From a corner of a 600 x 600 grid there are C(1198, 599) ~ 2^1193 shortest paths to the far corner:
 * past double's range, so BC must rescale its path counts (bc.c). The reference counts in long
 * double; every centrality must be finite and match it. The far corner ends every path through it,
 * so its centrality is exactly 0; the source's neighbour 1 carries many. */
static void test_bc_huge_path_counts(void) {
    mg_gen_options go;
    mg_gen_options_init(&go);
    go.kind = MG_GEN_GRID;
    go.width = go.height = 600;
    mg_graph g = NULL;
    CHECK_OK(ctx, mg_generate(ctx, &g, &go));
    if (g == NULL) return;
    const uint32_t n = mg_graph_num_vertices(g);
    mg_vector bc = NULL;
    CHECK_OK(ctx, mg_vector_create(ctx, &bc, g, MG_DOUBLE));
    const uint32_t corner = 0;
    CHECK_OK(ctx, mg_bc(ctx, g, &corner, 1, bc));
    CHECK_OK(ctx, mg_check_bc(ctx, g, &corner, 1, bc));
    double *v = malloc((size_t)n * sizeof *v);
    CHECK(v != NULL);
    if (v != NULL) {
        CHECK_OK(ctx, mg_vector_extract(ctx, bc, v));
        uint32_t bad = 0;
        for (uint32_t i = 0; i < n; i++) bad += !isfinite(v[i]);
        CHECK(bad == 0);
        CHECK(v[n - 1] == 0);
        CHECK(v[1] > 0);
        free(v);
    }
    mg_vector_free(&bc);
    mg_graph_free(&g);

}

/* A chain of k diamonds (t_{i-1} -> a_i, b_i -> t_i: t_i has 2^i shortest paths) beside a plain path
 * from the same source (one path to each of its vertices): BFS level 2k holds counts 1 and 2^k. With
 * k = 1000 the counts need rescaling and still fit; with k = 1900 one level spans more than double's
 * range: a clear MG_RANGE_ERROR, never NaN centralities. */
static mg_status bc_diamonds(uint32_t k, bool validate) {
    const uint32_t n = 1 + 3 * k + 2 * k; /* s, (a_i, b_i, t_i), p_1..p_2k */
    const uint64_t m = 4ull * k + 2ull * k;
    uint32_t *src = malloc(m * sizeof *src), *dst = malloc(m * sizeof *dst);
    CHECK(src != NULL && dst != NULL);
    mg_status st = MG_OUT_OF_MEMORY;
    if (src == NULL || dst == NULL) goto done;
    uint64_t e = 0;
    for (uint32_t i = 1; i <= k; i++) {
        const uint32_t t0 = i == 1 ? 0 : 3 * (i - 1), a = 3 * i - 2, b = 3 * i - 1, t = 3 * i;
        src[e] = t0, dst[e++] = a;
        src[e] = t0, dst[e++] = b;
        src[e] = a, dst[e++] = t;
        src[e] = b, dst[e++] = t;
    }
    for (uint32_t j = 1; j <= 2 * k; j++) {
        src[e] = j == 1 ? 0 : 3 * k + j - 1;
        dst[e++] = 3 * k + j;
    }
    mg_graph_options go;
    mg_graph_options_init(&go);
    go.directed = true;
    mg_graph g = NULL;
    mg_vector bc = NULL;
    CHECK_OK(ctx, mg_graph_create_from_coo(ctx, &g, n, m, src, dst, NULL, MG_WEIGHT_NONE, &go));
    CHECK_OK(ctx, mg_vector_create(ctx, &bc, g, MG_DOUBLE));
    const uint32_t source = 0;
    st = mg_bc(ctx, g, &source, 1, bc);
    if (st == MG_SUCCESS && validate) {
        CHECK_OK(ctx, mg_check_bc(ctx, g, &source, 1, bc));
        /* a_k and b_k each carry half of t_k's paths (1/2); t_{k-1} carries all of theirs:
         * 2 * (1 + 1/2) = 3, exactly, whatever the rescaling */
        CHECK(get(bc, 3 * (k - 1)) == 3);
    }
    mg_vector_free(&bc);
    mg_graph_free(&g);
done:
    free(src);
    free(dst);
    return st;
}

static void test_bc_diamonds(void) {
    CHECK(bc_diamonds(1000, true) == MG_SUCCESS);
    CHECK(bc_diamonds(1900, false) == MG_RANGE_ERROR);
    CHECK(strstr(mg_context_error(ctx), "more than double can hold") != NULL);
}

/* ---- the verifiers can fail --------------------------------------------------------------------- */

static void test_verifiers_reject(void) {
    mg_gen_options go;
    mg_gen_options_init(&go);
    go.kind = MG_GEN_KRONECKER;
    go.scale = 9;
    go.weights = MG_WEIGHT_INT32;
    mg_graph g = NULL;
    CHECK_OK(ctx, mg_generate(ctx, &g, &go));
    const uint32_t n = mg_graph_num_vertices(g);
    mg_vector depth = NULL, parent = NULL, dist = NULL, label = NULL, rank = NULL, bc = NULL;
    CHECK_OK(ctx, mg_vector_create(ctx, &depth, g, MG_INT32));
    CHECK_OK(ctx, mg_vector_create(ctx, &parent, g, MG_VERTEX));
    CHECK_OK(ctx, mg_vector_create(ctx, &dist, g, MG_INT64));
    CHECK_OK(ctx, mg_vector_create(ctx, &label, g, MG_VERTEX));
    CHECK_OK(ctx, mg_vector_create(ctx, &rank, g, MG_DOUBLE));
    CHECK_OK(ctx, mg_vector_create(ctx, &bc, g, MG_DOUBLE));

    /* Find a source and a vertex at depth >= 2 (so a wrong parent exists one level up too). */
    uint32_t src = 0, far = 0;
    for (; src < n && far == 0; src++) {
        CHECK_OK(ctx, mg_bfs(ctx, g, src, depth, parent));
        for (uint32_t v = 0; v < n; v++)
            if (get(depth, v) >= 2) far = v;
        if (far) break;
    }
    CHECK(far != 0);
    CHECK_OK(ctx, mg_check_bfs(ctx, g, src, depth, parent));
    double saved = get(depth, far);
    CHECK_OK(ctx, mg_vector_set(ctx, depth, far, saved + 1));
    CHECK(mg_check_bfs(ctx, g, src, depth, parent) == MG_INVALID_ARGUMENT);
    char msg[64];
    snprintf(msg, sizeof msg, "vertex %u", far);
    CHECK(strstr(mg_context_error(ctx), msg) != NULL);
    CHECK_OK(ctx, mg_vector_set(ctx, depth, far, saved));
    /* A parent at the right depth that is not an in-neighbour, and one at the wrong depth. */
    saved = get(parent, far);
    CHECK_OK(ctx, mg_vector_set(ctx, parent, far, src));
    CHECK(mg_check_bfs(ctx, g, src, depth, parent) == MG_INVALID_ARGUMENT);
    CHECK_OK(ctx, mg_vector_set(ctx, parent, far, far));
    CHECK(mg_check_bfs(ctx, g, src, depth, parent) == MG_INVALID_ARGUMENT);
    CHECK_OK(ctx, mg_vector_set(ctx, parent, far, saved));
    CHECK_OK(ctx, mg_check_bfs(ctx, g, src, depth, parent));
    /* The verifiers keep their serial result for the arguments it answers: a check for another
     * source computes another, and the kept one still serves its own source. */
    const uint32_t other = (src + 1) % n;
    mg_vector depth2 = NULL;
    CHECK_OK(ctx, mg_vector_create(ctx, &depth2, g, MG_INT32));
    CHECK_OK(ctx, mg_bfs(ctx, g, other, depth2, NULL));
    CHECK_OK(ctx, mg_check_bfs(ctx, g, other, depth2, NULL));
    CHECK(mg_check_bfs(ctx, g, src, depth2, NULL) == MG_INVALID_ARGUMENT);
    CHECK_OK(ctx, mg_check_bfs(ctx, g, src, depth, parent));
    CHECK(mg_check_bfs(ctx, g, other, depth, NULL) == MG_INVALID_ARGUMENT);
    mg_vector_free(&depth2);

    CHECK_OK(ctx, mg_sssp(ctx, g, src, 0, dist));
    CHECK_OK(ctx, mg_check_sssp(ctx, g, src, dist));
    CHECK_OK(ctx, mg_vector_set(ctx, dist, far, get(dist, far) - 1));
    CHECK(mg_check_sssp(ctx, g, src, dist) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), msg) != NULL);

    CHECK_OK(ctx, mg_cc(ctx, g, label));
    CHECK_OK(ctx, mg_check_cc(ctx, g, label));
    CHECK_OK(ctx, mg_vector_set(ctx, label, far, far));
    CHECK(mg_check_cc(ctx, g, label) == MG_INVALID_ARGUMENT);

    mg_pagerank_options po;
    mg_pagerank_options_init(&po);
    po.tolerance = 1e-10;
    CHECK_OK(ctx, mg_pagerank(ctx, g, &po, rank));
    CHECK_OK(ctx, mg_check_pagerank(ctx, g, &po, rank));
    /* Swap two different ranks: the sum stays 1, the L1 distance does not. */
    double a = get(rank, src), b = get(rank, far);
    CHECK(a != b);
    CHECK_OK(ctx, mg_vector_set(ctx, rank, src, b));
    CHECK_OK(ctx, mg_vector_set(ctx, rank, far, a));
    CHECK(mg_check_pagerank(ctx, g, &po, rank) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), "L1") != NULL);
    CHECK_OK(ctx, mg_vector_set(ctx, rank, far, a + 0.01)); /* no longer sums to 1 */
    CHECK(mg_check_pagerank(ctx, g, &po, rank) == MG_INVALID_ARGUMENT);
    /* A loose result (tolerance 1e-2) fails the check made for a tight tolerance. */
    po.tolerance = 1e-2;
    CHECK_OK(ctx, mg_pagerank(ctx, g, &po, rank));
    CHECK_OK(ctx, mg_check_pagerank(ctx, g, &po, rank));
    po.tolerance = 1e-10;
    CHECK(mg_check_pagerank(ctx, g, &po, rank) == MG_INVALID_ARGUMENT);
    /* Another damping is another reference. */
    po.damping = 0.5;
    CHECK(mg_check_pagerank(ctx, g, &po, rank) == MG_INVALID_ARGUMENT);
    CHECK_OK(ctx, mg_pagerank(ctx, g, &po, rank));
    CHECK_OK(ctx, mg_check_pagerank(ctx, g, &po, rank));
    po.damping = 0.85;
    CHECK(mg_check_pagerank(ctx, g, &po, rank) == MG_INVALID_ARGUMENT);

    CHECK_OK(ctx, mg_bc(ctx, g, &src, 1, bc));
    CHECK_OK(ctx, mg_check_bc(ctx, g, &src, 1, bc));
    uint32_t mid = 0; /* a vertex with a non-zero dependency */
    for (uint32_t v = 0; v < n; v++)
        if (get(bc, v) > 0) mid = v;
    CHECK(get(bc, mid) > 0);
    CHECK_OK(ctx, mg_vector_set(ctx, bc, mid, get(bc, mid) * (1 + 1e-6)));
    CHECK(mg_check_bc(ctx, g, &src, 1, bc) == MG_INVALID_ARGUMENT);
    /* A right answer to another question: one source's dependency checked as two sources'. */
    CHECK_OK(ctx, mg_bc(ctx, g, &src, 1, bc));
    const uint32_t two[2] = {src, far};
    CHECK(mg_check_bc(ctx, g, two, 2, bc) == MG_INVALID_ARGUMENT);
    CHECK_OK(ctx, mg_bc(ctx, g, two, 2, bc));
    CHECK_OK(ctx, mg_check_bc(ctx, g, two, 2, bc));

    mg_vector_free(&depth);
    mg_vector_free(&parent);
    mg_vector_free(&dist);
    mg_vector_free(&label);
    mg_vector_free(&rank);
    mg_vector_free(&bc);
    mg_graph_free(&g);
}

/* ---- bad arguments ------------------------------------------------------------------------------ */

static void test_bad_arguments(void) {
    const edge e[] = {{0, 1}, {1, 2}};
    const int32_t neg[] = {1, -3};
    mg_graph g = make_graph(3, e, 2, NULL, false, false, false);
    mg_graph other = make_graph(3, e, 2, NULL, false, false, false);
    mg_graph negative = make_graph(3, e, 2, neg, false, false, false);
    mg_vector i32 = NULL, vtx = NULL, i64 = NULL, dbl = NULL, foreign = NULL;
    CHECK_OK(ctx, mg_vector_create(ctx, &i32, g, MG_INT32));
    CHECK_OK(ctx, mg_vector_create(ctx, &vtx, g, MG_VERTEX));
    CHECK_OK(ctx, mg_vector_create(ctx, &i64, g, MG_INT64));
    CHECK_OK(ctx, mg_vector_create(ctx, &dbl, g, MG_DOUBLE));
    CHECK_OK(ctx, mg_vector_create(ctx, &foreign, other, MG_INT32));

    CHECK(mg_bfs(ctx, g, 3, i32, vtx) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), "mg_bfs: source 3") != NULL);
    CHECK(mg_bfs(ctx, g, 0, NULL, vtx) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), "mg_bfs: depth") != NULL);
    CHECK(mg_bfs(ctx, g, 0, dbl, vtx) == MG_INVALID_ARGUMENT);
    CHECK(mg_bfs(ctx, g, 0, i32, i32) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), "mg_bfs: parent") != NULL);
    CHECK(mg_bfs(ctx, g, 0, foreign, vtx) == MG_INVALID_ARGUMENT);
    CHECK(mg_bfs(ctx, NULL, 0, i32, vtx) == MG_INVALID_ARGUMENT);
    CHECK(mg_bfs(NULL, g, 0, i32, vtx) != MG_SUCCESS);

    CHECK(mg_sssp(ctx, g, 7, 0, i64) == MG_INVALID_ARGUMENT);
    CHECK(mg_sssp(ctx, g, 0, 0, dbl) == MG_INVALID_ARGUMENT); /* unweighted: MG_INT64 */
    CHECK(mg_sssp(ctx, g, 0, -1, i64) == MG_INVALID_ARGUMENT);
    CHECK(mg_sssp(ctx, g, 0, NAN, i64) == MG_INVALID_ARGUMENT);
    mg_vector negdist = NULL;
    CHECK_OK(ctx, mg_vector_create(ctx, &negdist, negative, MG_INT64));
    CHECK(mg_sssp(ctx, negative, 0, 0, negdist) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), "negative") != NULL);
    CHECK(mg_sssp(ctx, negative, 0, 5, negdist) == MG_INVALID_ARGUMENT);
    mg_vector_free(&negdist);

    CHECK(mg_cc(ctx, g, i32) == MG_INVALID_ARGUMENT);
    CHECK(mg_cc(ctx, g, NULL) == MG_INVALID_ARGUMENT);

    mg_pagerank_options po;
    mg_pagerank_options_init(&po);
    CHECK(mg_pagerank(ctx, g, &po, i64) == MG_INVALID_ARGUMENT);
    po.damping = 1;
    CHECK(mg_pagerank(ctx, g, &po, dbl) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), "damping") != NULL);
    mg_pagerank_options_init(&po);
    po.tolerance = -1;
    CHECK(mg_pagerank(ctx, g, &po, dbl) == MG_INVALID_ARGUMENT);
    mg_pagerank_options_init(&po);
    po.max_iterations = 0;
    CHECK(mg_pagerank(ctx, g, &po, dbl) == MG_INVALID_ARGUMENT);

    const uint32_t bad_sources[2] = {0, 3};
    CHECK(mg_bc(ctx, g, bad_sources, 2, dbl) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), "sources[1] = 3") != NULL);
    CHECK(mg_bc(ctx, g, NULL, 0, i32) == MG_INVALID_ARGUMENT);

    CHECK(mg_check_bfs(ctx, g, 5, i32, NULL) == MG_INVALID_ARGUMENT);
    CHECK(mg_check_sssp(ctx, g, 0, dbl) == MG_INVALID_ARGUMENT);
    CHECK(mg_check_cc(ctx, g, i32) == MG_INVALID_ARGUMENT);
    CHECK(mg_check_pagerank(ctx, g, NULL, i32) == MG_INVALID_ARGUMENT);
    CHECK(mg_check_bc(ctx, g, bad_sources, 2, dbl) == MG_INVALID_ARGUMENT);

    mg_vector_free(&i32);
    mg_vector_free(&vtx);
    mg_vector_free(&i64);
    mg_vector_free(&dbl);
    mg_vector_free(&foreign);
    mg_graph_free(&g);
    mg_graph_free(&other);
    mg_graph_free(&negative);
}

/* ---- failure injection -------------------------------------------------------------------------- */

typedef mg_status (*algo_fn)(mg_graph g, mg_vector a, mg_vector b);

static mg_status run_bfs(mg_graph g, mg_vector a, mg_vector b) {
    (void)b;
    return mg_bfs(ctx, g, 1, a, NULL);
}
static mg_status run_sssp(mg_graph g, mg_vector a, mg_vector b) {
    (void)a;
    return mg_sssp(ctx, g, 1, 0, b);
}
static mg_status run_cc(mg_graph g, mg_vector a, mg_vector b) {
    (void)a;
    (void)b;
    mg_vector label = NULL;
    mg_status st = mg_vector_create(ctx, &label, g, MG_VERTEX);
    if (st == MG_SUCCESS) st = mg_cc(ctx, g, label);
    mg_vector_free(&label);
    return st;
}
static mg_status run_pr(mg_graph g, mg_vector a, mg_vector b) {
    (void)a;
    (void)b;
    mg_vector rank = NULL;
    mg_status st = mg_vector_create(ctx, &rank, g, MG_DOUBLE);
    mg_pagerank_options po;
    mg_pagerank_options_init(&po);
    if (st == MG_SUCCESS) st = mg_pagerank(ctx, g, &po, rank);
    po.data_driven = true;
    if (st == MG_SUCCESS) st = mg_pagerank(ctx, g, &po, rank);
    mg_vector_free(&rank);
    return st;
}
static mg_status run_bc(mg_graph g, mg_vector a, mg_vector b) {
    (void)a;
    (void)b;
    mg_vector bc = NULL;
    mg_status st = mg_vector_create(ctx, &bc, g, MG_DOUBLE);
    const uint32_t s[2] = {0, 5};
    if (st == MG_SUCCESS) st = mg_bc(ctx, g, s, 2, bc);
    mg_vector_free(&bc);
    return st;
}
static mg_status run_checks(mg_graph g, mg_vector a, mg_vector b) {
    mg_status st = mg_check_bfs(ctx, g, 1, a, NULL);
    if (st == MG_SUCCESS) st = mg_check_sssp(ctx, g, 1, b);
    return st;
}

static void test_alloc_failures(void) {
    mg_gen_options go;
    mg_gen_options_init(&go);
    go.kind = MG_GEN_RMAT;
    go.scale = 8;
    go.weights = MG_WEIGHT_INT32;
    go.graph.directed = true;
    mg_graph g = NULL;
    CHECK_OK(ctx, mg_generate(ctx, &g, &go));
    mg_vector depth = NULL, dist = NULL;
    CHECK_OK(ctx, mg_vector_create(ctx, &depth, g, MG_INT32));
    CHECK_OK(ctx, mg_vector_create(ctx, &dist, g, MG_INT64));
    const algo_fn fns[] = {run_bfs, run_sssp, run_cc, run_pr, run_bc, run_checks};
    const char *names[] = {"bfs", "sssp", "cc", "pagerank", "bc", "checks"};
    for (int f = 0; f < 6; f++) {
        int failures = 0;
        for (uint64_t k = 1; k < 100000; k++) {
            mg__inject_alloc_failure(k);
            mg_status st = fns[f](g, depth, dist);
            mg__inject_alloc_failure(0);
            if (st == MG_SUCCESS) break;
            failures++;
            if (st != MG_OUT_OF_MEMORY) {
                fprintf(stderr, "%s: allocation %llu failed: %s (%s)\n", names[f],
                        (unsigned long long)k, mg_status_string(st), mg_context_error(ctx));
                CHECK(st == MG_OUT_OF_MEMORY);
                break;
            }
        }
        CHECK(failures > 0); /* the sweep really reached the algorithm's allocations */
    }
    CHECK_OK(ctx, mg_check_bfs(ctx, g, 1, depth, NULL));
    CHECK_OK(ctx, mg_check_sssp(ctx, g, 1, dist));
    mg_vector_free(&depth);
    mg_vector_free(&dist);
    mg_graph_free(&g);
}

static void timed(const char *name, void (*fn)(void)) {
    double t0 = omp_get_wtime();
    fn();
    if (getenv("MG_TEST_VERBOSE")) fprintf(stderr, "%s: %.2f s\n", name, omp_get_wtime() - t0);
}
static void generated_small(void) { test_generated(8, true); }
static void generated_large(void) { test_generated(11, false); }

int main(void) {
    if (mg_context_create(&ctx) != MG_SUCCESS) return 2;
    /* The tiny graphs run on one thread: thousands of calls on a handful of vertices would
     * otherwise measure only OpenMP's fork and barrier costs on a busy machine. */
    mg_context_set_threads(ctx, 1);
    timed("path", test_path);
    timed("star", test_star);
    timed("components", test_components);
    timed("directed cycle", test_directed_cycle);
    timed("loops and duplicates", test_loops_and_duplicates);
    timed("dangling", test_dangling);
    timed("float weights", test_float_weights);
    timed("verifiers reject", test_verifiers_reject);
    timed("bad arguments", test_bad_arguments);
    timed("alloc failures", test_alloc_failures);
    timed("generated scale 8, all modes and threads", generated_small);
    timed("generated scale 11", generated_large);
    timed("real samples", test_real);
    timed("bc with path counts past double", test_bc_huge_path_counts);
    timed("bc on diamond chains", test_bc_diamonds);
    mg_context_free(&ctx);
    return check_report();
}
