/*
 * test_graphalytics.c — the LDBC Graphalytics reader (core/io/graphalytics.c): properties, the id
 * mapping, weights, directedness, every kind of bad input with its file and line, a failed
 * allocation at each step; and PageRank's spread_each_iteration against the specification's
 * iterates worked by hand.
 */
#define _POSIX_C_SOURCE 200809L

#include "check.h"
#include "temp_dir.h"

#include "mg_internal.h" /* mg__inject_alloc_failure */
#include "mgraph.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char GOOD_PROPS[] =
    "# a comment\n"
    "graph.g.vertex-file = g.v\n"
    "graph.g.edge-file = g.e\n"
    "graph.g.meta.vertices = 4\n"
    "graph.g.directed = true\n"
    "graph.g.edge-properties.names = weight\n"
    "graph.g.algorithms = bfs, pr ,WCC, sssp\n"
    "graph.g.bfs.source-vertex = 77\n"
    "graph.g.pr.damping-factor = 0.85\n"
    "graph.g.pr.num-iterations = 2\n"
    "graph.g.sssp.weight-property = weight\n"
    "graph.g.sssp.source-vertex = 5\n"
    "graph.other.directed = maybe\n"; /* another graph's keys are not ours */

/* Writes text as tmp(name), then name's properties are read; returns the status. */
static mg_status props_of(mg_context ctx, const char *name, const char *text,
                          mg_graphalytics_properties *p) {
    return mg_graphalytics_read_properties(ctx, write_file(tmp(name), text, strlen(text)), p);
}

/* The call fails with status st and a message holding want (a file:line, a reason). */
static void check_fails(mg_context ctx, mg_status got, mg_status st, const char *want) {
    CHECK(got == st);
    const char *msg = mg_context_error(ctx);
    CHECK(msg != NULL && strstr(msg, want) != NULL);
    if (msg == NULL || strstr(msg, want) == NULL)
        fprintf(stderr, "  wanted '%s' in: %s\n", want, msg ? msg : "(none)");
}

static void test_properties(mg_context ctx) {
    mg_graphalytics_properties p;
    CHECK_OK(ctx, props_of(ctx, "g.properties", GOOD_PROPS, &p));
    CHECK(strcmp(p.name, "g") == 0);
    CHECK(strcmp(p.vertex_file, tmp("g.v")) == 0);
    CHECK(strcmp(p.edge_file, tmp("g.e")) == 0);
    CHECK(p.directed && p.weighted);
    CHECK(p.algorithms == (MG_GA_BFS | MG_GA_PR | MG_GA_WCC | MG_GA_SSSP));
    CHECK(p.bfs_source == 77 && p.sssp_source == 5);
    CHECK(p.pr_iterations == 2 && p.pr_damping == 0.85);

    static const struct {
        const char *text, *want;
    } BAD[] = {
        {"graph.b.vertex-file = b.v\nnonsense\n", "b.properties:2: expected 'key = value'"},
        {"graph.b.algorithms = bfs, dfs\n", "b.properties:1: graph.b.algorithms: unknown algorithm 'dfs'"},
        {"graph.b.directed = yes\n", "b.properties:1: graph.b.directed must be true or false"},
        {"graph.b.directed = true\ngraph.b.directed = false\n",
         "b.properties:2: graph.b.directed is repeated (first on line 1)"},
        {"graph.b.edge-file = b.e\ngraph.b.directed = true\n", "graph.b.vertex-file is missing"},
        {"graph.b.vertex-file = b.v\ngraph.b.edge-file = b.e\ngraph.b.directed = true\n"
         "graph.b.algorithms = bfs\n",
         "graph.b.bfs.source-vertex is missing (an algorithm listed needs it)"},
        {"graph.b.pr.damping-factor = 1.5\n", "b.properties:1: graph.b.pr.damping-factor must be"},
        {"graph.b.pr.num-iterations = -2\n", "b.properties:1: graph.b.pr.num-iterations must be"},
        {"graph.b.bfs.source-vertex = 12x\n", "b.properties:1: graph.b.bfs.source-vertex must be"},
        {"graph.b.edge-properties.names = weight, time\n", "only one (the weight) is supported"},
        {"graph.b.vertex-file = b.v\ngraph.b.edge-file = b.e\ngraph.b.directed = true\n"
         "graph.b.algorithms = sssp\ngraph.b.sssp.source-vertex = 1\n",
         "sssp is listed but graph.b.edge-properties.names names no weight"},
    };
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++)
        check_fails(ctx, props_of(ctx, "b.properties", BAD[i].text, &p), MG_PARSE_ERROR,
                    BAD[i].want);
    check_fails(ctx, props_of(ctx, "g.props", GOOD_PROPS, &p), MG_INVALID_ARGUMENT,
                "the name must be NAME.properties");
    check_fails(ctx, mg_graphalytics_read_properties(ctx, tmp("none.properties"), &p),
                MG_IO_ERROR, "none.properties");
}

/* Properties for graph "r" over r.v and r.e in the scratch folder. */
static mg_graphalytics_properties r_props(bool directed, bool weighted) {
    mg_graphalytics_properties p;
    memset(&p, 0, sizeof p);
    strcpy(p.name, "r");
    snprintf(p.vertex_file, sizeof p.vertex_file, "%s", tmp("r.v"));
    snprintf(p.edge_file, sizeof p.edge_file, "%s", tmp("r.e"));
    p.directed = directed;
    p.weighted = weighted;
    return p;
}

static void put(const char *name, const char *text) { write_file(tmp(name), text, strlen(text)); }

static void test_read(mg_context ctx) {
    /* Unsorted, non-contiguous ids, one past 2^32. */
    put("r.v", "5000000000\n7\n\n300\n2\n");
    put("r.e", "7 300 0.5\n300 5000000000 1.25\n2 7 3\n");
    mg_graphalytics_properties p = r_props(true, true);
    mg_graph g = NULL;
    uint64_t *ids = NULL, edges = 0;
    CHECK_OK(ctx, mg_graphalytics_read(ctx, &p, &g, &ids, &edges));
    if (g == NULL || ids == NULL) return;
    CHECK(mg_graph_num_vertices(g) == 4 && edges == 3 && mg_graph_is_directed(g));
    CHECK(mg_graph_weight_type(g) == MG_WEIGHT_FLOAT);
    CHECK(ids[0] == 2 && ids[1] == 7 && ids[2] == 300 && ids[3] == 5000000000ULL);
    uint32_t v = 9;
    CHECK_OK(ctx, mg_graphalytics_vertex(ctx, ids, 4, 300, &v));
    CHECK(v == 2);
    check_fails(ctx, mg_graphalytics_vertex(ctx, ids, 4, 8, &v), MG_INVALID_ARGUMENT,
                "no vertex has the id 8");
    const uint64_t *off;
    const uint32_t *idx;
    const void *w;
    CHECK_OK(ctx, mg_graph_csr(g, &off, &idx, &w));
    /* 7 -> 300 weighs 0.5: vertex 1's one edge goes to vertex 2. */
    CHECK(off[1] + 1 == off[2] && idx[off[1]] == 2 && ((const float *)w)[off[1]] == 0.5f);
    CHECK(off[4] == off[3]); /* 5000000000 has no out-edges */
    mg_graph_free(&g);
    free(ids);
    ids = NULL;

    /* Undirected and unweighted: each edge both ways. */
    put("r.e", "7 300\n300 5000000000\n");
    p = r_props(false, false);
    CHECK_OK(ctx, mg_graphalytics_read(ctx, &p, &g, &ids, NULL));
    if (g != NULL) {
        CHECK(!mg_graph_is_directed(g) && mg_graph_num_edges(g) == 4);
        CHECK(mg_graph_weight_type(g) == MG_WEIGHT_NONE);
    }
    mg_graph_free(&g);
    free(ids);
    ids = NULL;

    /* A failed allocation anywhere leaves nothing behind and says so. */
    put("r.e", "7 300 0.5\n300 5000000000 1.25\n2 7 3\n");
    p = r_props(true, true);
    bool succeeded = false;
    for (uint64_t k = 1; k < 200 && !succeeded; k++) {
        mg__inject_alloc_failure(k);
        mg_status st = mg_graphalytics_read(ctx, &p, &g, &ids, NULL);
        mg__inject_alloc_failure(0);
        succeeded = st == MG_SUCCESS;
        CHECK(succeeded || (st == MG_OUT_OF_MEMORY && g == NULL && ids == NULL));
    }
    CHECK(succeeded);
    mg_graph_free(&g);
    free(ids);
}

static void test_bad_input(mg_context ctx) {
    static const struct {
        const char *v, *e, *want;
    } BAD[] = {
        {"1\n2\n12x\n", "1 2 1\n", "r.v:3: the vertex id '12x' is not a whole number"},
        {"1\n-2\n", "1 2 1\n", "r.v:2: the vertex id '-2' is negative"},
        {"1 2\n", "1 2 1\n", "r.v:1: a vertex line holds one id, this one has 2 columns"},
        {"1\n2\n3\n2\n", "1 2 1\n", "r.v:4: the vertex id 2 is repeated (first on line 2)"},
        {"1\n2\n", "1 2 1\n2 9 1\n", "r.e:2: the destination 9 is not in the vertex file"},
        {"1\n2\n", "1 2\n", "r.e:1: an edge line needs 3 columns (source destination weight)"},
        {"1\n2\n", "1 2 -1\n", "r.e:1: the weight '-1' is not a finite, non-negative number"},
        {"1\n2\n", "1 2 inf\n", "r.e:1: the weight 'inf' is not a finite, non-negative number"},
        {"1\n2\n", "1 2 1\nx 2 1\n", "r.e:2: the source 'x' is not a whole number"},
    };
    mg_graphalytics_properties p = r_props(true, true);
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        put("r.v", BAD[i].v);
        put("r.e", BAD[i].e);
        mg_graph g = NULL;
        uint64_t *ids = NULL;
        check_fails(ctx, mg_graphalytics_read(ctx, &p, &g, &ids, NULL), MG_PARSE_ERROR,
                    BAD[i].want);
        CHECK(g == NULL && ids == NULL);
    }
    mg_graph g = NULL;
    uint64_t *ids = NULL;
    snprintf(p.vertex_file, sizeof p.vertex_file, "%s", tmp("absent.v"));
    check_fails(ctx, mg_graphalytics_read(ctx, &p, &g, &ids, NULL), MG_IO_ERROR, "absent.v");
}

/* 0 -> 1, 0 -> 2, 1 -> 2, vertex 2 dangling; d = 0.85, two iterations of the specification's
 * PR(v) = (1 - d) / n + d * sum PR(u) / outdeg(u) + d / n * dangling, from 1/3 each. */
static void test_pagerank_spread(mg_context ctx) {
    const uint32_t src[] = {0, 0, 1}, dst[] = {1, 2, 2};
    mg_graph g = NULL;
    mg_vector rank = NULL;
    CHECK_OK(ctx, mg_graph_create_from_coo(ctx, &g, 3, 3, src, dst, NULL, MG_WEIGHT_NONE, NULL));
    CHECK_OK(ctx, mg_vector_create(ctx, &rank, g, MG_DOUBLE));
    const double d = 0.85, n = 3;
    double r[3] = {1 / n, 1 / n, 1 / n};
    for (int it = 0; it < 2; it++) {
        double base = (1 - d) / n + d * r[2] / n;
        double next[3] = {base, base + d * r[0] / 2, base + d * r[0] / 2 + d * r[1]};
        memcpy(r, next, sizeof r);
    }
    mg_pagerank_options po;
    mg_pagerank_options_init(&po);
    CHECK(!po.spread_each_iteration);
    po.tolerance = 0;
    po.max_iterations = 2;
    po.spread_each_iteration = true;
    CHECK_OK(ctx, mg_pagerank(ctx, g, &po, rank));
    double got[3];
    CHECK_OK(ctx, mg_vector_extract(ctx, rank, got));
    for (int i = 0; i < 3; i++) CHECK(fabs(got[i] - r[i]) <= 1e-12);
    po.data_driven = true;
    po.tolerance = 1e-6;
    check_fails(ctx, mg_pagerank(ctx, g, &po, rank), MG_INVALID_ARGUMENT,
                "spread_each_iteration is for the topology-driven mode");
    mg_vector_free(&rank);
    mg_graph_free(&g);
}

int main(void) {
    if (temp_dir_make("graphalytics") != 0) return 2;
    mg_context ctx = NULL;
    if (mg_context_create(&ctx) != MG_SUCCESS) return 2;
    test_properties(ctx);
    test_read(ctx);
    test_bad_input(ctx);
    test_pagerank_spread(ctx);
    mg_context_free(&ctx);
    temp_dir_remove();
    return check_report();
}
