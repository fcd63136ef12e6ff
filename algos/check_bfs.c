/*
 * check_bfs.c — verifier of mg_bfs (after GAPBS's BFSVerifier and LAGraph's LG_check_bfs): a plain
 * serial queue BFS gives the depths, which must match exactly; a parent tree is not unique, so each
 * parent is checked for what makes it a BFS parent: an in-neighbour one level up.
 */
#include "algo_util.h"

/* Serial BFS depths from source over the out-edges (-1: unreached). */
static void serial_bfs(uint32_t n, const uint64_t *off, const uint32_t *idx, uint32_t source,
                       int32_t *depth, uint32_t *queue) {
    for (uint32_t v = 0; v < n; v++) depth[v] = -1;
    uint32_t head = 0, tail = 0;
    depth[source] = 0;
    queue[tail++] = source;
    while (head < tail) {
        uint32_t u = queue[head++];
        for (uint64_t e = off[u]; e < off[u + 1]; e++) {
            uint32_t v = idx[e];
            if (depth[v] < 0) {
                depth[v] = depth[u] + 1;
                queue[tail++] = v;
            }
        }
    }
}

mg_status mg_check_bfs(mg_context ctx, const mg_graph g, uint32_t source, const mg_vector depth,
                       const mg_vector parent) {
    mg_status status = MG_SUCCESS;
    const int32_t *want = NULL;
    int32_t *got = NULL, *par = NULL;
    uint32_t *queue = NULL;

    TRY(mg__algo_check_whole_graph(ctx, g, "mg_check_bfs: g"));
    const uint32_t n = mg_graph_num_vertices(g);
    if (source >= n)
        FAIL(ctx, MG_INVALID_ARGUMENT,
             "mg_check_bfs: source %u is out of range (the graph has %u vertices)", source, n);
    TRY(mg__algo_check_vector(ctx, g, depth, MG_INT32, "mg_check_bfs: depth"));
    if (parent != NULL) TRY(mg__algo_check_vector(ctx, g, parent, MG_VERTEX, "mg_check_bfs: parent"));
    const uint64_t *off, *in_off;
    const uint32_t *idx, *in_idx;
    const void *w;
    TRY(mg_graph_csr(g, &off, &idx, &w));
    TRY(mg_graph_csc(g, &in_off, &in_idx, &w));

    got = mg__algo_malloc(n, sizeof *got);
    if (parent != NULL) par = mg__algo_malloc(n, sizeof *par);
    if (got == NULL || (parent != NULL && par == NULL))
        FAIL(ctx, MG_OUT_OF_MEMORY, "mg_check_bfs: out of memory for %u vertices", n);
    TRY(mg_vector_extract(ctx, depth, got));
    if (parent != NULL) TRY(mg_vector_extract(ctx, parent, par));
    want = mg__algo_reference(g, MG__REFERENCE_BFS, &source, sizeof source);
    if (want == NULL) {
        int32_t *fresh = mg__algo_malloc(n, sizeof *fresh);
        queue = mg__algo_malloc(n, sizeof *queue);
        if (fresh == NULL || queue == NULL) {
            mg__algo_free(fresh);
            FAIL(ctx, MG_OUT_OF_MEMORY, "mg_check_bfs: out of memory for %u vertices", n);
        }
        serial_bfs(n, off, idx, source, fresh, queue);
        TRY(mg__algo_keep_reference(ctx, g, MG__REFERENCE_BFS, &source, sizeof source, fresh));
        want = fresh;
    }

    for (uint32_t v = 0; v < n; v++)
        if (got[v] != want[v])
            FAIL(ctx, MG_INVALID_ARGUMENT, "mg_check_bfs: vertex %u: depth expected %d, got %d", v,
                 want[v], got[v]);
    if (parent == NULL) goto cleanup;
    for (uint32_t v = 0; v < n; v++) {
        int32_t p = par[v];
        if (want[v] < 0) {
            if (p != -1)
                FAIL(ctx, MG_INVALID_ARGUMENT,
                     "mg_check_bfs: vertex %u is unreached but has parent %d (expected -1)", v, p);
        } else if (v == source) {
            if (p != (int32_t)source)
                FAIL(ctx, MG_INVALID_ARGUMENT,
                     "mg_check_bfs: source %u has parent %d (expected itself)", v, p);
        } else {
            if (p < 0 || (uint32_t)p >= n)
                FAIL(ctx, MG_INVALID_ARGUMENT,
                     "mg_check_bfs: vertex %u: parent %d is not a vertex (depth %d)", v, p, want[v]);
            if (want[p] != want[v] - 1)
                FAIL(ctx, MG_INVALID_ARGUMENT,
                     "mg_check_bfs: vertex %u: parent %d has depth %d, expected %d", v, p, want[p],
                     want[v] - 1);
            bool edge = false;
            for (uint64_t e = in_off[v]; e < in_off[v + 1] && !edge; e++) edge = in_idx[e] == (uint32_t)p;
            if (!edge)
                FAIL(ctx, MG_INVALID_ARGUMENT,
                     "mg_check_bfs: vertex %u: parent %d is not an in-neighbour", v, p);
        }
    }

cleanup:
    mg__algo_free(got);
    mg__algo_free(par);
    mg__algo_free(queue);
    return status;
}
