/*
 * test_forest.c — mg_forest_link and mg_forest_compress on the CPU engine: the exact parents after
 * links along chosen edge windows (positions in the stored lists, out- and in-lists, a mask, a
 * window past a list's end), the least vertex as every root, linking every edge of generated graphs
 * on 1 and 2 threads (after a compression the parents are the components' least ids, which
 * mg_check_cc checks), and the bad input: wrong types, a parent above its vertex or negative (named,
 * nothing written), an unknown direction, a mask of another graph.
 */
#include "check.h"
#include "mgraph.h"

#include <stdlib.h>
#include <string.h>

static mg_context ctx;

static mg_graph from_edges(uint32_t n, uint64_t m, const uint32_t *src, const uint32_t *dst,
                           bool directed) {
    mg_graph_options o;
    mg_graph_options_init(&o);
    o.directed = directed;
    mg_graph g = NULL;
    CHECK_OK(ctx, mg_graph_create_from_coo(ctx, &g, n, m, src, dst, NULL, MG_WEIGHT_NONE, &o));
    return g;
}

/* parent's values equal want[0..n). */
static void expect_parents(mg_vector parent, const int32_t *want, uint32_t n, const char *what) {
    int32_t *got = malloc((size_t)n * 4);
    CHECK_OK(ctx, mg_vector_extract(ctx, parent, got));
    bool same = memcmp(got, want, (size_t)n * 4) == 0;
    if (!same) {
        fprintf(stderr, "%s: parents", what);
        for (uint32_t v = 0; v < n; v++) fprintf(stderr, " %d", got[v]);
        fprintf(stderr, "\n");
    }
    CHECK(same);
    free(got);
}

/* A star 0 - {1..5} (undirected: 0's list is 1 2 3 4 5 in stored order), a path 6-7-8 and an
 * isolated vertex 9. */
static void test_windows(void) {
    const uint32_t src[] = {0, 0, 0, 0, 0, 6, 7}, dst[] = {5, 3, 1, 4, 2, 7, 8};
    mg_graph g = from_edges(10, 7, src, dst, false);
    mg_vector p = NULL;
    mg_frontier hub = NULL;
    CHECK_OK(ctx, mg_vector_create(ctx, &p, g, MG_VERTEX));
    CHECK_OK(ctx, mg_frontier_create(ctx, &hub, g));
    CHECK_OK(ctx, mg_frontier_add(ctx, hub, 0));

    /* the hub's 3rd and 4th neighbours (3 and 4) join its tree, under it */
    CHECK_OK(ctx, mg_vector_assign_ids(ctx, p, NULL));
    CHECK_OK(ctx, mg_forest_link(ctx, p, hub, MG_EDGES_OUT, 2, 2));
    const int32_t two[] = {0, 1, 2, 0, 0, 5, 6, 7, 8, 9};
    expect_parents(p, two, 10, "window 2..3 of vertex 0");
    /* a window past the list's end links nothing; a count past it stops there */
    CHECK_OK(ctx, mg_forest_link(ctx, p, hub, MG_EDGES_OUT, 5, UINT32_MAX));
    expect_parents(p, two, 10, "window past the end");
    CHECK_OK(ctx, mg_forest_link(ctx, p, hub, MG_EDGES_OUT, 4, UINT32_MAX));
    const int32_t three[] = {0, 1, 2, 0, 0, 0, 6, 7, 8, 9};
    expect_parents(p, three, 10, "window 4.. of vertex 0");

    /* the leaves' first edges (to the hub) and the path's: after a compression each vertex is
     * under its component's least */
    CHECK_OK(ctx, mg_vector_assign_ids(ctx, p, NULL));
    CHECK_OK(ctx, mg_forest_link(ctx, p, NULL, MG_EDGES_OUT, 0, 1));
    CHECK_OK(ctx, mg_forest_compress(ctx, p, NULL));
    const int32_t done[] = {0, 0, 0, 0, 0, 0, 6, 6, 6, 9};
    expect_parents(p, done, 10, "first edges, compressed");
    CHECK_OK(ctx, mg_check_cc(ctx, g, p));
    /* the same links again change nothing */
    CHECK_OK(ctx, mg_forest_link(ctx, p, NULL, MG_EDGES_OUT, 0, UINT32_MAX));
    expect_parents(p, done, 10, "every edge of a linked graph");

    mg_frontier_free(&hub);
    mg_vector_free(&p);
    mg_graph_free(&g);
}

/* Arcs into 0 from 2 and 3 and 4 -> 1: 0's in-list joins 2 and 3; out-lists alone join 4 and 1
 * only from 4's side. A compression under a mask leaves the rest as they were. */
static void test_directed(void) {
    const uint32_t src[] = {2, 3, 4}, dst[] = {0, 0, 1};
    mg_graph g = from_edges(5, 3, src, dst, true);
    mg_vector p = NULL;
    mg_frontier zero = NULL;
    CHECK_OK(ctx, mg_vector_create(ctx, &p, g, MG_INT32));
    CHECK_OK(ctx, mg_frontier_create(ctx, &zero, g));
    CHECK_OK(ctx, mg_frontier_add(ctx, zero, 0));
    CHECK_OK(ctx, mg_vector_assign_ids(ctx, p, NULL));
    CHECK_OK(ctx, mg_forest_link(ctx, p, zero, MG_EDGES_OUT, 0, UINT32_MAX)); /* 0 has no out-arcs */
    const int32_t ids[] = {0, 1, 2, 3, 4};
    expect_parents(p, ids, 5, "0's out-list");
    CHECK_OK(ctx, mg_forest_link(ctx, p, zero, MG_EDGES_IN, 0, UINT32_MAX));
    const int32_t in[] = {0, 1, 0, 0, 4};
    expect_parents(p, in, 5, "0's in-list");
    CHECK_OK(ctx, mg_forest_link(ctx, p, NULL, MG_EDGES_OUT, 0, UINT32_MAX));
    const int32_t out[] = {0, 1, 0, 0, 1};
    expect_parents(p, out, 5, "every out-list");

    /* a chain 4 -> 3 -> 1 -> 0 (a forest: each parent below its vertex), compressed at 4 only */
    const int32_t chain[] = {0, 0, 2, 1, 3};
    CHECK_OK(ctx, mg_vector_load(ctx, p, chain));
    mg_frontier four = NULL;
    CHECK_OK(ctx, mg_frontier_create(ctx, &four, g));
    CHECK_OK(ctx, mg_frontier_add(ctx, four, 4));
    CHECK_OK(ctx, mg_forest_compress(ctx, p, four));
    const int32_t masked[] = {0, 0, 2, 1, 0};
    expect_parents(p, masked, 5, "compressed at 4");

    mg_frontier_free(&four);
    mg_frontier_free(&zero);
    mg_vector_free(&p);
    mg_graph_free(&g);
}

/* Every edge linked on 1 and 2 threads, then compressed: the parents are the components' least
 * ids, so mg_check_cc accepts them (concurrent links racing on the same roots included). */
static void test_generated(void) {
    const mg_generator kinds[] = {MG_GEN_RMAT, MG_GEN_UNIFORM, MG_GEN_GEOMETRIC};
    for (int k = 0; k < 3; k++)
        for (int directed = 0; directed < 2; directed++)
            for (int threads = 1; threads <= 2; threads++) {
                mg_gen_options go;
                mg_gen_options_init(&go);
                go.kind = kinds[k];
                go.scale = 14;
                go.edge_factor = k == 1 ? 0.6 : 4; /* sparse uniform: many components */
                go.graph.directed = directed;
                mg_graph g = NULL;
                CHECK_OK(ctx, mg_generate(ctx, &g, &go));
                CHECK_OK(ctx, mg_context_set_threads(ctx, threads));
                mg_vector p = NULL;
                CHECK_OK(ctx, mg_vector_create(ctx, &p, g, MG_VERTEX));
                CHECK_OK(ctx, mg_vector_assign_ids(ctx, p, NULL));
                CHECK_OK(ctx, mg_forest_link(ctx, p, NULL, MG_EDGES_OUT, 0, UINT32_MAX));
                CHECK_OK(ctx, mg_forest_compress(ctx, p, NULL));
                CHECK_OK(ctx, mg_check_cc(ctx, g, p));
                mg_vector_free(&p);
                mg_graph_free(&g);
            }
    CHECK_OK(ctx, mg_context_set_threads(ctx, 0));
}

static void expect_error(mg_status st, mg_status want, const char *text) {
    CHECK(st == want);
    if (strstr(mg_context_error(ctx), text) == NULL)
        fprintf(stderr, "expected '%s' in: %s\n", text, mg_context_error(ctx));
    CHECK(strstr(mg_context_error(ctx), text) != NULL);
}

static void test_bad_input(void) {
    const uint32_t src[] = {0, 1, 2}, dst[] = {1, 2, 3};
    mg_graph g = from_edges(5, 3, src, dst, false), other = from_edges(5, 3, src, dst, false);
    mg_vector p = NULL, wide = NULL, real = NULL;
    mg_frontier foreign = NULL;
    CHECK_OK(ctx, mg_vector_create(ctx, &p, g, MG_VERTEX));
    CHECK_OK(ctx, mg_vector_create(ctx, &wide, g, MG_INT64));
    CHECK_OK(ctx, mg_vector_create(ctx, &real, g, MG_DOUBLE));
    CHECK_OK(ctx, mg_frontier_create(ctx, &foreign, other));

    expect_error(mg_forest_link(ctx, wide, NULL, MG_EDGES_OUT, 0, 1), MG_INVALID_ARGUMENT,
                 "mg_forest_link: parent must be MG_VERTEX or MG_INT32");
    expect_error(mg_forest_compress(ctx, real, NULL), MG_INVALID_ARGUMENT,
                 "mg_forest_compress: parent must be MG_VERTEX or MG_INT32");
    expect_error(mg_forest_link(ctx, NULL, NULL, MG_EDGES_OUT, 0, 1), MG_INVALID_ARGUMENT,
                 "mg_forest_link: parent");
    CHECK_OK(ctx, mg_vector_assign_ids(ctx, p, NULL));
    expect_error(mg_forest_link(ctx, p, NULL, MG_EDGES_BOTH, 0, 1), MG_INVALID_ARGUMENT,
                 "which must be MG_EDGES_OUT or MG_EDGES_IN");
    expect_error(mg_forest_link(ctx, p, foreign, MG_EDGES_OUT, 0, 1), MG_INVALID_ARGUMENT,
                 "mg_forest_link: mask belongs to another graph");

    /* not a forest: a parent above its vertex, then a negative one; named, and nothing written */
    const int32_t up[] = {0, 0, 4, 3, 4}, negative[] = {0, 0, 1, -1, 4};
    CHECK_OK(ctx, mg_vector_load(ctx, p, up));
    expect_error(mg_forest_link(ctx, p, NULL, MG_EDGES_OUT, 0, UINT32_MAX), MG_INVALID_ARGUMENT,
                 "mg_forest_link: parent[2] = 4 is not a vertex in [0, 2]");
    expect_parents(p, up, 5, "after a refused link");
    expect_error(mg_forest_compress(ctx, p, NULL), MG_INVALID_ARGUMENT,
                 "mg_forest_compress: parent[2] = 4");
    expect_parents(p, up, 5, "after a refused compression");
    CHECK_OK(ctx, mg_vector_load(ctx, p, negative));
    expect_error(mg_forest_compress(ctx, p, NULL), MG_INVALID_ARGUMENT,
                 "mg_forest_compress: parent[3] = -1 is not a vertex in [0, 3]");
    expect_parents(p, negative, 5, "after a refused compression (negative)");

    mg_frontier_free(&foreign);
    mg_vector_free(&p);
    mg_vector_free(&wide);
    mg_vector_free(&real);
    mg_graph_free(&g);
    mg_graph_free(&other);
}

int main(void) {
    if (mg_context_create(&ctx) != MG_SUCCESS) return 1;
    test_windows();
    test_directed();
    test_generated();
    test_bad_input();
    mg_context_free(&ctx);
    return check_report();
}
