/*
 * test_graphalytics.c — the LDBC Graphalytics reader (core/io/graphalytics.c): properties, the id
 * mapping, weights, directedness, every kind of bad input with its file and line, a failed
 * allocation at each step; PageRank's spread_each_iteration against the specification's
 * iterates worked by hand; and the writer: generated graphs of each weight type and directedness
 * read back identical, the properties it writes, its refusals, and a failed allocation or file
 * that leaves no file behind.
 */
#define _POSIX_C_SOURCE 200809L

#include "check.h"
#include "temp_dir.h"

#include "mg_internal.h" /* mg__inject_alloc_failure */
#include "mgraph.h"

#include <dirent.h>
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

/* The entries of the scratch folder, for "nothing was left behind". */
static int entries(void) {
    DIR *d = opendir(tmpdir);
    int count = 0;
    if (d == NULL) return -1;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        count += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return count;
}

/* Whether a and b have the same vertices, edges (in CSR order) and weights, as floats. */
static bool same_graph(const mg_graph a, const mg_graph b) {
    const uint64_t *oa, *ob;
    const uint32_t *ia, *ib;
    const void *wa, *wb;
    if (mg_graph_num_vertices(a) != mg_graph_num_vertices(b) ||
        mg_graph_num_edges(a) != mg_graph_num_edges(b) ||
        mg_graph_is_directed(a) != mg_graph_is_directed(b) ||
        (mg_graph_weight_type(a) == MG_WEIGHT_NONE) != (mg_graph_weight_type(b) == MG_WEIGHT_NONE) ||
        mg_graph_csr(a, &oa, &ia, &wa) != MG_SUCCESS || mg_graph_csr(b, &ob, &ib, &wb) != MG_SUCCESS)
        return false;
    const uint32_t n = mg_graph_num_vertices(a);
    if (memcmp(oa, ob, ((size_t)n + 1) * sizeof *oa) != 0 ||
        memcmp(ia, ib, (size_t)oa[n] * sizeof *ia) != 0)
        return false;
    for (uint64_t e = 0; wa != NULL && e < oa[n]; e++) {
        const float x = mg_graph_weight_type(a) == MG_WEIGHT_INT32 ? (float)((const int32_t *)wa)[e]
                                                                   : ((const float *)wa)[e];
        if (x != ((const float *)wb)[e]) return false;
    }
    return true;
}

static void test_write_round_trip(mg_context ctx) {
    const mg_weight_type types[] = {MG_WEIGHT_NONE, MG_WEIGHT_INT32, MG_WEIGHT_FLOAT};
    for (int directed = 0; directed < 2; directed++) {
        for (int t = 0; t < 3; t++) {
            mg_gen_options go;
            mg_gen_options_init(&go);
            go.kind = MG_GEN_RMAT;
            go.scale = 7;
            go.edge_factor = 6;
            go.weights = types[t];
            go.weight_min = 0.001;
            go.graph.directed = directed;
            go.graph.keep_self_loops = true; /* an undirected self loop is stored once */
            mg_graph g = NULL, back = NULL;
            uint64_t *ids = NULL, edges = 0;
            mg_graphalytics_properties p, want;
            CHECK_OK(ctx, mg_generate(ctx, &g, &go));
            CHECK_OK(ctx, mg_graphalytics_write(ctx, g, tmp("w.properties"), NULL));
            CHECK_OK(ctx, mg_graphalytics_read_properties(ctx, tmp("w.properties"), &p));
            CHECK_OK(ctx, mg_graphalytics_default_properties(ctx, g, &want));
            CHECK(p.directed == (bool)directed && p.weighted == (types[t] != MG_WEIGHT_NONE));
            CHECK(p.algorithms == want.algorithms && p.bfs_source == want.bfs_source);
            CHECK(p.algorithms == (MG_GA_BFS | MG_GA_CDLP | MG_GA_LCC | MG_GA_PR | MG_GA_WCC |
                                   (p.weighted ? MG_GA_SSSP : 0u)));
            CHECK(p.pr_damping == 0.85 && p.pr_iterations == 10 && p.cdlp_iterations == 10);
            CHECK_OK(ctx, mg_graphalytics_read(ctx, &p, &back, &ids, &edges));
            if (back != NULL && ids != NULL) {
                CHECK(same_graph(g, back));
                bool identity = true;
                for (uint32_t v = 0; v < mg_graph_num_vertices(g); v++) identity &= ids[v] == v;
                CHECK(identity);
                /* An undirected edge is one line: a self loop is stored once, others twice. */
                mg_graph_stats st;
                CHECK_OK(ctx, mg_graph_get_stats(ctx, g, &st));
                const uint64_t m = mg_graph_num_edges(g);
                CHECK(edges == (directed ? m : (m + st.self_loops) / 2));
                /* The default source has the most out-edges. */
                const uint64_t *off;
                const uint32_t *idx;
                const void *w;
                CHECK_OK(ctx, mg_graph_csr(g, &off, &idx, &w));
                const uint64_t s = p.bfs_source;
                for (uint32_t v = 0; v < mg_graph_num_vertices(g); v++)
                    CHECK(off[v + 1] - off[v] <= off[s + 1] - off[s]);
            }
            free(ids);
            mg_graph_free(&back);
            mg_graph_free(&g);
        }
    }
}

static void test_write_refusals(mg_context ctx) {
    const uint32_t src[] = {0, 1}, dst[] = {1, 2};
    const int32_t neg[] = {3, -1};
    mg_graph g = NULL, gneg = NULL;
    mg_graph_options go;
    mg_graph_options_init(&go);
    go.directed = true;
    CHECK_OK(ctx, mg_graph_create_from_coo(ctx, &g, 4, 2, src, dst, NULL, MG_WEIGHT_NONE, &go));
    CHECK_OK(ctx, mg_graph_create_from_coo(ctx, &gneg, 3, 2, src, dst, neg, MG_WEIGHT_INT32, &go));
    mg_graphalytics_properties p;
    CHECK_OK(ctx, mg_graphalytics_default_properties(ctx, g, &p));
    CHECK(p.bfs_source == 0 && !(p.algorithms & MG_GA_SSSP));
    const int before = entries();
    check_fails(ctx, mg_graphalytics_write(ctx, g, tmp("x.props"), NULL), MG_INVALID_ARGUMENT,
                "the name must be NAME.properties");
    check_fails(ctx, mg_graphalytics_write(ctx, g, tmp("a=b.properties"), NULL),
                MG_INVALID_ARGUMENT, "may not hold spaces, '=' or ':'");
    check_fails(ctx, mg_graphalytics_write(ctx, gneg, tmp("x.properties"), NULL),
                MG_INVALID_ARGUMENT, "negative weight (-1)");
    p.algorithms |= MG_GA_SSSP;
    check_fails(ctx, mg_graphalytics_write(ctx, g, tmp("x.properties"), &p), MG_INVALID_ARGUMENT,
                "lists sssp but the graph has no weights");
    p.algorithms &= ~(unsigned)MG_GA_SSSP;
    p.bfs_source = 4;
    check_fails(ctx, mg_graphalytics_write(ctx, g, tmp("x.properties"), &p), MG_INVALID_ARGUMENT,
                "props->bfs_source 4 is not a vertex (ids 0 to 3)");
    p.bfs_source = 3;
    p.pr_damping = 2;
    check_fails(ctx, mg_graphalytics_write(ctx, g, tmp("x.properties"), &p), MG_INVALID_ARGUMENT,
                "props->pr_damping 2 is not in [0, 1]");
    check_fails(ctx, mg_graphalytics_write(ctx, g, tmp("no/such/x.properties"), NULL), MG_IO_ERROR,
                "no/such/x.v");
    CHECK(entries() == before);

    /* A file that cannot be created (x.e a folder) leaves neither of the others, nor a temporary. */
    CHECK(mkdir(tmp("x.e"), 0777) == 0);
    check_fails(ctx, mg_graphalytics_write(ctx, g, tmp("x.properties"), NULL), MG_IO_ERROR,
                "x.e is a directory");
    CHECK(entries() == before + 1);
    rmdir(tmp("x.e"));

    /* Chosen parameters are written as given: sources, iterations, damping, a subset. */
    p.algorithms = MG_GA_BFS | MG_GA_PR;
    p.pr_damping = 0.5;
    p.pr_iterations = 3;
    CHECK_OK(ctx, mg_graphalytics_write(ctx, g, tmp("x.properties"), &p));
    mg_graphalytics_properties q;
    CHECK_OK(ctx, mg_graphalytics_read_properties(ctx, tmp("x.properties"), &q));
    CHECK(q.algorithms == (MG_GA_BFS | MG_GA_PR) && q.bfs_source == 3 && q.pr_damping == 0.5 &&
          q.pr_iterations == 3 && q.directed && !q.weighted);

    /* A failed allocation at any step fails cleanly and leaves the earlier dataset as it was. */
    bool succeeded = false;
    for (uint64_t k = 1; k < 100 && !succeeded; k++) {
        mg__inject_alloc_failure(k);
        mg_status st = mg_graphalytics_write(ctx, g, tmp("x.properties"), NULL);
        mg__inject_alloc_failure(0);
        succeeded = st == MG_SUCCESS;
        CHECK(succeeded || st == MG_OUT_OF_MEMORY);
        CHECK(entries() == before + 3);
        if (!succeeded) {
            CHECK_OK(ctx, mg_graphalytics_read_properties(ctx, tmp("x.properties"), &q));
            CHECK(q.algorithms == (MG_GA_BFS | MG_GA_PR));
        }
    }
    CHECK(succeeded);
    mg_graph_free(&gneg);
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
    test_write_round_trip(ctx);
    test_write_refusals(ctx);
    mg_context_free(&ctx);
    temp_dir_remove();
    return check_report();
}
