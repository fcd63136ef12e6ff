/*
 * test_tc.c — mg_triangle_count and mg_lcc (over the masked SpGEMM) against counts worked out by
 * hand, against their serial verifiers on generated graphs (directed and undirected, with and
 * without self loops and parallel edges), and, where ../shared/datasets/graphalytics is present,
 * against LDBC Graphalytics' reference LCC of its two example graphs. Also: the verifiers reject a
 * perturbed result, bad arguments are refused, and a failed allocation anywhere gives
 * MG_OUT_OF_MEMORY (the sanitizer build proves nothing leaks).
 */
#include "check.h"
#include "mg_internal.h" /* mg__inject_alloc_failure */
#include "mgraph.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static mg_context ctx;

typedef struct {
    uint32_t s, d;
} edge;

static mg_graph make_graph(uint32_t n, const edge *e, uint64_t m, bool directed, bool keep_loops,
                           bool keep_duplicates) {
    uint32_t src[64], dst[64];
    for (uint64_t i = 0; i < m; i++) {
        src[i] = e[i].s;
        dst[i] = e[i].d;
    }
    mg_graph_options o;
    mg_graph_options_init(&o);
    o.directed = directed;
    o.keep_self_loops = keep_loops;
    o.keep_duplicates = keep_duplicates;
    mg_graph g = NULL;
    CHECK_OK(ctx, mg_graph_create_from_coo(ctx, &g, n, m, src, dst, NULL, MG_WEIGHT_NONE, &o));
    return g;
}

/* Triangles of g: the total, with and without per-vertex counts, each checked by the verifier and
 * compared with the expected ones (per_vertex NULL: not compared). */
static void expect_triangles(mg_graph g, uint64_t total, const int64_t *per_vertex,
                             const char *what) {
    const uint32_t n = mg_graph_num_vertices(g);
    uint64_t got = UINT64_MAX, got_alone = UINT64_MAX;
    mg_vector t = NULL;
    CHECK_OK(ctx, mg_vector_create(ctx, &t, g, MG_INT64));
    CHECK_OK(ctx, mg_triangle_count(ctx, g, &got, t));
    CHECK_OK(ctx, mg_triangle_count(ctx, g, &got_alone, NULL));
    CHECK_OK(ctx, mg_check_triangle_count(ctx, g, got, t));
    CHECK_OK(ctx, mg_check_triangle_count(ctx, g, got_alone, NULL));
    if (got != total || got_alone != total)
        fprintf(stderr, "%s: %llu and %llu triangles, expected %llu\n", what,
                (unsigned long long)got, (unsigned long long)got_alone, (unsigned long long)total);
    CHECK(got == total && got_alone == total);
    if (per_vertex != NULL) {
        int64_t values[64];
        CHECK_OK(ctx, mg_vector_extract(ctx, t, values));
        for (uint32_t v = 0; v < n; v++) {
            if (values[v] != per_vertex[v])
                fprintf(stderr, "%s: vertex %u in %lld triangles, expected %lld\n", what, v,
                        (long long)values[v], (long long)per_vertex[v]);
            CHECK(values[v] == per_vertex[v]);
        }
    }
    mg_vector_free(&t);
}

/* LCC of g, checked by the verifier and compared with the expected values (NULL: not compared). */
static void expect_lcc(mg_graph g, const double *want, const char *what) {
    const uint32_t n = mg_graph_num_vertices(g);
    mg_vector lcc = NULL;
    CHECK_OK(ctx, mg_vector_create(ctx, &lcc, g, MG_DOUBLE));
    CHECK_OK(ctx, mg_lcc(ctx, g, lcc));
    CHECK_OK(ctx, mg_check_lcc(ctx, g, lcc));
    if (want != NULL) {
        double values[64];
        CHECK_OK(ctx, mg_vector_extract(ctx, lcc, values));
        for (uint32_t v = 0; v < n; v++) {
            if (fabs(values[v] - want[v]) > 1e-12)
                fprintf(stderr, "%s: vertex %u: LCC %.17g, expected %.17g\n", what, v, values[v],
                        want[v]);
            CHECK(fabs(values[v] - want[v]) <= 1e-12);
        }
    }
    mg_vector_free(&lcc);
}

/* K_n's edges, each once. */
static uint64_t complete(uint32_t n, edge *e) {
    uint64_t m = 0;
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = i + 1; j < n; j++) e[m++] = (edge){i, j};
    return m;
}

static void test_by_hand(void) {
    edge e[64];
    mg_graph g;

    const edge tri[] = {{0, 1}, {1, 2}, {2, 0}};
    g = make_graph(3, tri, 3, false, false, false);
    expect_triangles(g, 1, (const int64_t[]){1, 1, 1}, "triangle");
    expect_lcc(g, (const double[]){1, 1, 1}, "triangle");
    mg_graph_free(&g);

    uint64_t m = complete(4, e);
    g = make_graph(4, e, m, false, false, false);
    expect_triangles(g, 4, (const int64_t[]){3, 3, 3, 3}, "K4");
    expect_lcc(g, (const double[]){1, 1, 1, 1}, "K4");
    mg_graph_free(&g);

    m = complete(5, e);
    g = make_graph(5, e, m, false, false, false);
    expect_triangles(g, 10, (const int64_t[]){6, 6, 6, 6, 6}, "K5");
    mg_graph_free(&g);

    const edge square[] = {{0, 1}, {1, 2}, {2, 3}, {3, 0}};
    g = make_graph(4, square, 4, false, false, false);
    expect_triangles(g, 0, (const int64_t[]){0, 0, 0, 0}, "square");
    expect_lcc(g, (const double[]){0, 0, 0, 0}, "square");
    mg_graph_free(&g);

    /* Two triangles sharing vertex 2; vertex 5 isolated. */
    const edge bowtie[] = {{0, 1}, {1, 2}, {0, 2}, {2, 3}, {3, 4}, {2, 4}};
    g = make_graph(6, bowtie, 6, false, false, false);
    expect_triangles(g, 2, (const int64_t[]){1, 1, 2, 1, 1, 0}, "bowtie");
    /* vertex 2: 4 neighbours, 2 edges among them: 2 / 6 */
    expect_lcc(g, (const double[]){1, 1, 2.0 / 6, 1, 1, 0}, "bowtie");
    mg_graph_free(&g);

    /* K4 with self loops and repeated edges kept in the graph: still 4 triangles. */
    m = complete(4, e);
    e[m++] = (edge){0, 0};
    e[m++] = (edge){2, 2};
    e[m++] = (edge){0, 1};
    e[m++] = (edge){1, 0};
    e[m++] = (edge){3, 2};
    g = make_graph(4, e, m, false, true, true);
    expect_triangles(g, 4, (const int64_t[]){3, 3, 3, 3}, "K4 with loops and duplicates");
    expect_lcc(g, (const double[]){1, 1, 1, 1}, "K4 with loops and duplicates");
    mg_graph_free(&g);
    g = make_graph(4, e, m, true, true, true);
    expect_triangles(g, 4, (const int64_t[]){3, 3, 3, 3}, "directed K4 with loops and duplicates");
    mg_graph_free(&g);

    /* Directed: a -> b, b -> c, a -> c. Triangles ignore directions; for LCC each vertex has 2
     * neighbours and one arc between them: 1 / (2 * 1). */
    const edge dtri[] = {{0, 1}, {1, 2}, {0, 2}};
    g = make_graph(3, dtri, 3, true, false, false);
    expect_triangles(g, 1, (const int64_t[]){1, 1, 1}, "directed triangle");
    expect_lcc(g, (const double[]){0.5, 0.5, 0.5}, "directed triangle");
    mg_graph_free(&g);
    /* A directed cycle 0 -> 1 -> 2 -> 0 plus 1 -> 0: N(2) = {0, 1} with both arcs between them. */
    const edge dcyc[] = {{0, 1}, {1, 2}, {2, 0}, {1, 0}};
    g = make_graph(3, dcyc, 4, true, false, false);
    expect_triangles(g, 1, (const int64_t[]){1, 1, 1}, "directed cycle");
    expect_lcc(g, (const double[]){0.5, 0.5, 1.0}, "directed cycle");
    mg_graph_free(&g);
    /* A directed star into 0 with one arc 1 -> 2 among the leaves, 3 a leaf without: N(0) =
     * {1, 2, 3}, 1 arc of 6 possible. */
    const edge dstar[] = {{1, 0}, {2, 0}, {3, 0}, {1, 2}};
    g = make_graph(4, dstar, 4, true, false, false);
    expect_lcc(g, (const double[]){1.0 / 6, 0.5, 0.5, 0}, "directed star");
    mg_graph_free(&g);

    /* No edges at all. */
    g = make_graph(3, NULL, 0, false, false, false);
    expect_triangles(g, 0, (const int64_t[]){0, 0, 0}, "no edges");
    expect_lcc(g, (const double[]){0, 0, 0}, "no edges");
    mg_graph_free(&g);
}

static void test_generated(void) {
    const mg_generator kinds[] = {MG_GEN_RMAT, MG_GEN_UNIFORM, MG_GEN_GEOMETRIC};
    for (int k = 0; k < 3; k++)
        for (int variant = 0; variant < 3; variant++) {
            mg_gen_options go;
            mg_gen_options_init(&go);
            go.kind = kinds[k];
            go.scale = 10;
            go.edge_factor = 8;
            go.seed = 7 + (uint64_t)variant;
            go.graph.directed = variant > 0;
            go.graph.keep_self_loops = variant == 2;
            go.graph.keep_duplicates = variant == 2;
            mg_graph g = NULL;
            CHECK_OK(ctx, mg_generate(ctx, &g, &go));
            uint64_t total = 0;
            mg_vector t = NULL;
            CHECK_OK(ctx, mg_vector_create(ctx, &t, g, MG_INT64));
            CHECK_OK(ctx, mg_triangle_count(ctx, g, &total, t));
            CHECK_OK(ctx, mg_check_triangle_count(ctx, g, total, t));
            CHECK(kinds[k] == MG_GEN_UNIFORM || total > 0); /* R-MAT and geometric graphs have many */
            expect_lcc(g, NULL, "generated");
            mg_vector_free(&t);
            mg_graph_free(&g);
        }
}

static void test_verifiers_reject(void) {
    uint64_t m;
    edge e[64];
    m = complete(5, e);
    e[m++] = (edge){5, 0};
    mg_graph g = make_graph(6, e, m, true, false, false);
    mg_vector t = NULL, lcc = NULL;
    uint64_t total = 0;
    CHECK_OK(ctx, mg_vector_create(ctx, &t, g, MG_INT64));
    CHECK_OK(ctx, mg_vector_create(ctx, &lcc, g, MG_DOUBLE));
    CHECK_OK(ctx, mg_triangle_count(ctx, g, &total, t));
    CHECK_OK(ctx, mg_lcc(ctx, g, lcc));

    CHECK(mg_check_triangle_count(ctx, g, total + 1, t) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), "total expected 10") != NULL);
    CHECK_OK(ctx, mg_vector_set(ctx, t, 3, 7));
    CHECK(mg_check_triangle_count(ctx, g, total, t) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), "vertex 3: expected 6 triangles, got 7") != NULL);

    double x = 0;
    CHECK_OK(ctx, mg_vector_get(ctx, lcc, 0, &x));
    CHECK_OK(ctx, mg_vector_set(ctx, lcc, 0, x * (1 + 1e-9)));
    CHECK(mg_check_lcc(ctx, g, lcc) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), "vertex 0") != NULL);
    CHECK_OK(ctx, mg_vector_set(ctx, lcc, 0, x));
    CHECK_OK(ctx, mg_vector_set(ctx, lcc, 5, 0.25)); /* d = 1: must be 0 */
    CHECK(mg_check_lcc(ctx, g, lcc) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), "vertex 5") != NULL);
    CHECK_OK(ctx, mg_vector_set(ctx, lcc, 5, NAN));
    CHECK(mg_check_lcc(ctx, g, lcc) == MG_INVALID_ARGUMENT);

    mg_vector_free(&t);
    mg_vector_free(&lcc);
    mg_graph_free(&g);
}

static void test_bad_arguments(void) {
    const edge tri[] = {{0, 1}, {1, 2}, {2, 0}};
    mg_graph g = make_graph(3, tri, 3, false, false, false);
    mg_graph other = make_graph(3, tri, 3, false, false, false);
    mg_vector i32 = NULL, f64 = NULL, foreign = NULL;
    CHECK_OK(ctx, mg_vector_create(ctx, &i32, g, MG_INT32));
    CHECK_OK(ctx, mg_vector_create(ctx, &f64, g, MG_DOUBLE));
    CHECK_OK(ctx, mg_vector_create(ctx, &foreign, other, MG_INT64));
    uint64_t total;
    CHECK(mg_triangle_count(ctx, NULL, &total, NULL) == MG_INVALID_ARGUMENT);
    CHECK(mg_triangle_count(ctx, g, NULL, NULL) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), "mg_triangle_count: total") != NULL);
    CHECK(mg_triangle_count(ctx, g, &total, i32) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), "per_vertex must be MG_INT64") != NULL);
    CHECK(mg_triangle_count(ctx, g, &total, foreign) == MG_INVALID_ARGUMENT);
    CHECK(mg_lcc(ctx, g, NULL) == MG_INVALID_ARGUMENT);
    CHECK(mg_lcc(ctx, g, i32) == MG_INVALID_ARGUMENT);
    CHECK(strstr(mg_context_error(ctx), "mg_lcc: lcc must be MG_DOUBLE") != NULL);
    CHECK(mg_check_lcc(ctx, g, i32) == MG_INVALID_ARGUMENT);
    CHECK(mg_check_triangle_count(ctx, g, 1, f64) == MG_INVALID_ARGUMENT);
    mg_vector_free(&i32);
    mg_vector_free(&f64);
    mg_vector_free(&foreign);
    mg_graph_free(&g);
    mg_graph_free(&other);
}

typedef mg_status (*run_fn)(mg_graph g, mg_vector t, mg_vector lcc);
static mg_status run_tc(mg_graph g, mg_vector t, mg_vector lcc) {
    (void)lcc;
    uint64_t total;
    return mg_triangle_count(ctx, g, &total, t);
}
static mg_status run_lcc(mg_graph g, mg_vector t, mg_vector lcc) {
    (void)t;
    return mg_lcc(ctx, g, lcc);
}
static mg_status run_checks(mg_graph g, mg_vector t, mg_vector lcc) {
    uint64_t total;
    mg_status st = mg_triangle_count(ctx, g, &total, t);
    if (st == MG_SUCCESS) st = mg_check_triangle_count(ctx, g, total, t);
    if (st == MG_SUCCESS) st = mg_check_lcc(ctx, g, lcc);
    return st;
}

static void test_alloc_failures(void) {
    mg_gen_options go;
    mg_gen_options_init(&go);
    go.kind = MG_GEN_RMAT;
    go.scale = 7;
    for (int directed = 0; directed < 2; directed++) {
        go.graph.directed = directed;
        mg_graph g = NULL;
        CHECK_OK(ctx, mg_generate(ctx, &g, &go));
        mg_vector t = NULL, lcc = NULL;
        CHECK_OK(ctx, mg_vector_create(ctx, &t, g, MG_INT64));
        CHECK_OK(ctx, mg_vector_create(ctx, &lcc, g, MG_DOUBLE));
        CHECK_OK(ctx, mg_lcc(ctx, g, lcc));
        const run_fn fns[] = {run_tc, run_lcc, run_checks};
        const char *names[] = {"tc", "lcc", "checks"};
        for (int f = 0; f < 3; f++) {
            int failures = 0;
            for (uint64_t k = 1; k < 100000; k++) {
                mg__inject_alloc_failure(k);
                mg_status st = fns[f](g, t, lcc);
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
            CHECK(failures > 0);
        }
        mg_vector_free(&t);
        mg_vector_free(&lcc);
        mg_graph_free(&g);
    }
}

/* LDBC Graphalytics' example graphs (vertex ids as 0-based SNAP ids: the unlisted 0, and 1 in the
 * undirected one, are isolated extras) against its reference LCC, to 1e-4 relative as its
 * validation asks. Skipped without ../shared/datasets/graphalytics. */
static void test_graphalytics(void) {
    const char *dir = getenv("MG_SHARED_DATASETS");
    if (dir == NULL) return;
    const char *names[] = {"example-directed", "example-undirected"};
    for (int i = 0; i < 2; i++) {
        char path[4096], ref[4096];
        snprintf(path, sizeof path, "%s/graphalytics/%s.e", dir, names[i]);
        snprintf(ref, sizeof ref, "%s/graphalytics/%s-LCC", dir, names[i]);
        FILE *f = fopen(ref, "r");
        if (f == NULL) {
            fprintf(stderr, "graphalytics: %s absent, skipped\n", ref);
            continue;
        }
        mg_read_options ro;
        mg_read_options_init(&ro);
        ro.format = MG_FORMAT_SNAP;
        ro.undirected = i == 1;
        ro.ignore_weights = true;
        mg_graph g = NULL;
        mg_vector lcc = NULL;
        CHECK_OK(ctx, mg_graph_read(ctx, &g, path, &ro));
        CHECK_OK(ctx, mg_vector_create(ctx, &lcc, g, MG_DOUBLE));
        CHECK_OK(ctx, mg_lcc(ctx, g, lcc));
        CHECK_OK(ctx, mg_check_lcc(ctx, g, lcc));
        unsigned long id;
        double want;
        int lines = 0;
        while (fscanf(f, "%lu %lf", &id, &want) == 2) {
            double got = NAN;
            CHECK_OK(ctx, mg_vector_get(ctx, lcc, (uint32_t)id, &got));
            if (!(fabs(got - want) <= 1e-4 * fabs(want)))
                fprintf(stderr, "%s: vertex %lu: LCC %.17g, Graphalytics %.17g\n", names[i], id,
                        got, want);
            CHECK(fabs(got - want) <= 1e-4 * fabs(want));
            lines++;
        }
        CHECK(lines >= 9);
        fclose(f);
        mg_vector_free(&lcc);
        mg_graph_free(&g);
    }
}

int main(void) {
    if (mg_context_create(&ctx) != MG_SUCCESS) return 2;
    test_by_hand();
    test_generated();
    test_verifiers_reject();
    test_bad_arguments();
    test_alloc_failures();
    test_graphalytics();
    mg_context_free(&ctx);
    return check_report();
}
