/*
 * test_cc.c — mg_cc on a CPU context (Afforest: links and compressions, no edge programs) on graphs
 * of large diameter, where one-hop label propagation needs a step per hop: long grids, paths of 100k
 * vertices with their ids shuffled (so no sweep order helps), directed ones whose edges point
 * against each other (weak connectivity: the vertices outside the sampled giant link along their
 * in-lists too), many components and isolated vertices, R-MAT; under every CPU mode and on 1 and 2
 * threads, each checked by mg_check_cc. The bound on edge-program steps (a small multiple of
 * log2(diameter)) is FastSV's, which a CPU context no longer runs: it holds with none here, and
 * test_gpu_cc holds the GPU's FastSV to it. FastSV on the CPU engine runs on graphs split over
 * ranks (tests/mpi, tests/e2e/cli_mpi.sh).
 */
#include "check.h"
#include "mgraph.h"

#include <math.h>
#include <stdlib.h>

static mg_context ctx;
static unsigned steps; /* mg_advance calls since the last reset (the trace hook) */

static void count_step(const mg_advance_info *info, void *user) {
    (void)info;
    (void)user;
    steps++;
}

/* mg_cc on g under each mode and thread count, checked; the steps of each run at most max_steps. */
static void check_cc(mg_graph g, const char *what, unsigned max_steps) {
    const mg_mode modes[] = {MG_MODE_AUTO, MG_MODE_SPARSE, MG_MODE_PULL};
    mg_vector label = NULL;
    CHECK_OK(ctx, mg_vector_create(ctx, &label, g, MG_VERTEX));
    for (int threads = 1; threads <= 2; threads++)
        for (int m = 0; m < 3; m++) {
            CHECK_OK(ctx, mg_context_set_threads(ctx, threads));
            CHECK_OK(ctx, mg_context_set_mode(ctx, modes[m]));
            steps = 0;
            CHECK_OK(ctx, mg_cc(ctx, g, label));
            CHECK_OK(ctx, mg_check_cc(ctx, g, label));
            if (steps > max_steps)
                fprintf(stderr, "%s: %u steps (at most %u expected), %d threads, mode %d\n", what,
                        steps, max_steps, threads, (int)modes[m]);
            CHECK(steps <= max_steps);
        }
    CHECK_OK(ctx, mg_context_set_mode(ctx, MG_MODE_AUTO));
    mg_vector_free(&label);
}

/* Steps FastSV may take on a graph of this diameter: its iterations grow with log2(diameter)
 * (one or two steps each); label propagation would take about `diameter`. */
static unsigned log_bound(double diameter, bool directed) {
    return (unsigned)((2 * log2(diameter + 2) + 4) * (directed ? 2 : 1));
}

static mg_graph from_edges(uint32_t n, uint64_t m, const uint32_t *src, const uint32_t *dst,
                           bool directed) {
    mg_graph_options o;
    mg_graph_options_init(&o);
    o.directed = directed;
    mg_graph g = NULL;
    CHECK_OK(ctx, mg_graph_create_from_coo(ctx, &g, n, m, src, dst, NULL, MG_WEIGHT_NONE, &o));
    return g;
}

static void test_grids(void) {
    const uint32_t sizes[][2] = {{1000, 3}, {3, 1000}, {300, 300}, {1, 1}};
    for (int k = 0; k < 4; k++) {
        mg_gen_options go;
        mg_gen_options_init(&go);
        go.kind = MG_GEN_GRID;
        go.width = sizes[k][0];
        go.height = sizes[k][1];
        mg_graph g = NULL;
        CHECK_OK(ctx, mg_generate(ctx, &g, &go));
        check_cc(g, "grid", log_bound(sizes[k][0] + sizes[k][1], false));
        mg_graph_free(&g);
    }
}

/* A path of n vertices whose ids are shuffled; directed: each edge in a random direction (weakly
 * connected only). Then the same with every third edge dropped: n/3 components. */
static void test_paths(uint32_t n) {
    uint32_t *order = malloc((size_t)n * sizeof *order), *src = malloc((size_t)n * sizeof *src),
             *dst = malloc((size_t)n * sizeof *dst);
    CHECK_OK(ctx, mg_random_permutation(ctx, n, 7, order));
    for (int directed = 0; directed < 2; directed++)
        for (int cut = 0; cut < 2; cut++) {
            uint64_t m = 0;
            for (uint32_t i = 0; i + 1 < n; i++) {
                if (cut && i % 3 == 2) continue;
                const bool flip = directed && (order[i] ^ order[i + 1]) % 2;
                src[m] = flip ? order[i + 1] : order[i];
                dst[m] = flip ? order[i] : order[i + 1];
                m++;
            }
            mg_graph g = from_edges(n, m, src, dst, directed);
            check_cc(g, cut ? "cut path" : "path", log_bound(cut ? 3 : n, directed));
            mg_graph_free(&g);
        }
    free(order);
    free(src);
    free(dst);
}

/* Stars, isolated vertices and small random trees side by side; a directed graph whose arcs all
 * point at one vertex, and one whose arcs all leave it. */
static void test_components(void) {
    enum { N = 20000 };
    uint32_t *src = malloc(N * sizeof *src), *dst = malloc(N * sizeof *dst);
    uint64_t m = 0;
    uint64_t rng = 12345;
    for (uint32_t v = 1; v < N; v++) {
        rng = rng * 6364136223846793005ull + 1442695040888963407ull;
        if ((rng >> 33) % 4 == 0) continue; /* about a quarter stay isolated or roots */
        const uint32_t back = 1 + (uint32_t)((rng >> 40) % 16);
        if (back > v) continue;
        src[m] = v;
        dst[m] = v - back;
        m++;
    }
    for (int directed = 0; directed < 2; directed++) {
        mg_graph g = from_edges(N, m, src, dst, directed);
        check_cc(g, "forest", log_bound(N, directed));
        mg_graph_free(&g);
    }
    for (int into = 0; into < 2; into++) {
        for (uint32_t v = 0; v + 1 < N; v++) {
            src[v] = into ? v : N - 1;
            dst[v] = into ? N - 1 : v;
        }
        mg_graph g = from_edges(N, N - 1, src, dst, true);
        check_cc(g, "directed star", log_bound(2, true));
        mg_graph_free(&g);
    }
    mg_graph g = from_edges(N, 0, src, dst, true); /* isolated vertices only */
    check_cc(g, "no edges", log_bound(0, true));
    mg_graph_free(&g);
    free(src);
    free(dst);
}

static void test_generated(void) {
    const mg_generator kinds[] = {MG_GEN_RMAT, MG_GEN_KRONECKER, MG_GEN_UNIFORM, MG_GEN_GEOMETRIC};
    for (int k = 0; k < 4; k++)
        for (int directed = 0; directed < 2; directed++) {
            mg_gen_options go;
            mg_gen_options_init(&go);
            go.kind = kinds[k];
            go.scale = 13;
            go.edge_factor = k == 2 ? 0.6 : 4; /* sparse uniform: many components */
            go.graph.directed = directed;
            mg_graph g = NULL;
            CHECK_OK(ctx, mg_generate(ctx, &g, &go));
            check_cc(g, "generated", log_bound(mg_graph_num_vertices(g), directed));
            mg_graph_free(&g);
        }
}

int main(void) {
    if (mg_context_create(&ctx) != MG_SUCCESS) return 1;
    CHECK_OK(ctx, mg_context_set_trace(ctx, count_step, NULL));
    test_grids();
    test_paths(100000);
    test_components();
    test_generated();
    mg_context_free(&ctx);
    return check_report();
}
