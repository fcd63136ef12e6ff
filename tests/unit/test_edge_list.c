/*
 * test_edge_list.c — a graph's edge list made a piece at a time (mg__graph_edge_starts and
 * mg__graph_edges_fill, what the GPU build uploads chunk by chunk) equals the whole list
 * (mg__graph_edges), for pieces of every size from one edge up, on directed and undirected,
 * weighted and unweighted R-MAT graphs (hubs span many pieces) and a graph with isolated vertices.
 */
#include "check.h"
#include "mg_internal.h"

#include <stdlib.h>
#include <string.h>

static mg_context ctx;

static void same_in_pieces(const mg_graph g, const char *what) {
    mg__coo whole;
    memset(&whole, 0, sizeof whole);
    uint64_t *start = NULL;
    CHECK_OK(ctx, mg__graph_edges(ctx, g, &whole));
    CHECK_OK(ctx, mg__graph_edge_starts(ctx, g, &start));
    if (start == NULL || (whole.m > 0 && whole.src == NULL)) return;
    CHECK(start[g->n] == whole.m);
    const uint64_t m = whole.m;
    const bool weighted = g->weight_type != MG_WEIGHT_NONE;
    uint32_t *src = malloc((m + 1) * 4), *dst = malloc((m + 1) * 4), *w = malloc((m + 1) * 4);
    const uint64_t pieces[] = {1, 2, 3, 7, 64, 1000, m / 3 + 1, m};
    for (size_t p = 0; p < sizeof pieces / sizeof *pieces; p++) {
        const uint64_t piece = pieces[p] > 0 ? pieces[p] : 1;
        memset(src, 0xff, (m + 1) * 4);
        memset(dst, 0xff, (m + 1) * 4);
        memset(w, 0xff, (m + 1) * 4);
        for (uint64_t first = 0; first < m; first += piece) {
            const uint64_t count = m - first < piece ? m - first : piece;
            mg__graph_edges_fill(g, start, first, count, src + first, dst + first,
                                 weighted ? w + first : NULL);
        }
        const bool same = m == 0 || (memcmp(src, whole.src, m * 4) == 0 &&
                                     memcmp(dst, whole.dst, m * 4) == 0 &&
                                     (!weighted || memcmp(w, whole.weights, m * 4) == 0));
        if (!same) fprintf(stderr, "%s: pieces of %llu differ\n", what, (unsigned long long)piece);
        CHECK(same);
        CHECK(src[m] == UINT32_MAX && dst[m] == UINT32_MAX); /* nothing written past the end */
    }
    free(src);
    free(dst);
    free(w);
    mg__free(start);
    mg__coo_free(&whole);
}

int main(void) {
    if (mg_context_create(&ctx) != MG_SUCCESS) return 1;
    for (int directed = 0; directed < 2; directed++) {
        for (int weighted = 0; weighted < 2; weighted++) {
            mg_gen_options go;
            mg_gen_options_init(&go);
            go.kind = MG_GEN_RMAT;
            go.scale = 10;
            go.edge_factor = 8;
            go.weights = weighted ? MG_WEIGHT_INT32 : MG_WEIGHT_NONE;
            go.graph.directed = directed;
            mg_graph g = NULL;
            CHECK_OK(ctx, mg_generate(ctx, &g, &go));
            char what[64];
            snprintf(what, sizeof what, "rmat10 %s %s", directed ? "directed" : "undirected",
                     weighted ? "weighted" : "unweighted");
            if (g != NULL) same_in_pieces(g, what);
            mg_graph_free(&g);
        }
    }
    /* isolated vertices at both ends and in the middle, a self-loop, an empty graph */
    const uint32_t src[] = {2, 2, 3, 5, 5}, dst[] = {3, 5, 3, 2, 7};
    const float w[] = {1.5f, 2.5f, 3.5f, 4.5f, 5.5f};
    for (int directed = 0; directed < 2; directed++) {
        mg_graph_options o;
        mg_graph_options_init(&o);
        o.directed = directed;
        o.keep_self_loops = true;
        mg_graph g = NULL;
        CHECK_OK(ctx, mg_graph_create_from_coo(ctx, &g, 10, 5, src, dst, w, MG_WEIGHT_FLOAT, &o));
        if (g != NULL) same_in_pieces(g, directed ? "small directed" : "small undirected");
        mg_graph_free(&g);
        CHECK_OK(ctx, mg_graph_create_from_coo(ctx, &g, 3, 0, NULL, NULL, NULL, MG_WEIGHT_NONE, &o));
        if (g != NULL) same_in_pieces(g, "empty");
        mg_graph_free(&g);
    }
    mg_context_free(&ctx);
    return check_report();
}
