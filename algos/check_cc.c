/*
 * check_cc.c — verifier of mg_cc: a serial BFS over out- and in-edges labels each (weakly) connected
 * component with its least vertex id (vertices are visited in increasing order, so the first vertex
 * of a component is its least); the result must equal these labels exactly (the API fixes the label
 * as the least id, so the answer is unique).
 */
#include "algo_util.h"

/* want[v] = the least vertex id of v's (weakly) connected component. */
static void serial_components(uint32_t n, const uint64_t *const off[2], const uint32_t *const idx[2],
                              int32_t *want, uint32_t *queue) {
    for (uint32_t v = 0; v < n; v++) want[v] = -1;
    for (uint32_t root = 0; root < n; root++) {
        if (want[root] >= 0) continue;
        uint32_t head = 0, tail = 0;
        want[root] = (int32_t)root;
        queue[tail++] = root;
        while (head < tail) {
            uint32_t u = queue[head++];
            for (int dir = 0; dir < 2; dir++)
                for (uint64_t e = off[dir][u]; e < off[dir][u + 1]; e++) {
                    uint32_t v = idx[dir][e];
                    if (want[v] < 0) {
                        want[v] = (int32_t)root;
                        queue[tail++] = v;
                    }
                }
        }
    }
}

mg_status mg_check_cc(mg_context ctx, const mg_graph g, const mg_vector label) {
    mg_status status = MG_SUCCESS;
    const int32_t *want = NULL;
    int32_t *got = NULL;
    uint32_t *queue = NULL;

    TRY(mg__algo_check_whole_graph(ctx, g, "mg_check_cc: g"));
    TRY(mg__algo_check_vector(ctx, g, label, MG_VERTEX, "mg_check_cc: label"));
    const uint32_t n = mg_graph_num_vertices(g);
    const uint64_t *off[2];
    const uint32_t *idx[2];
    const void *w;
    TRY(mg_graph_csr(g, &off[0], &idx[0], &w));
    TRY(mg_graph_csc(g, &off[1], &idx[1], &w));

    got = mg__algo_malloc(n, sizeof *got);
    if (got == NULL) FAIL(ctx, MG_OUT_OF_MEMORY, "mg_check_cc: out of memory for %u vertices", n);
    TRY(mg_vector_extract(ctx, label, got));
    want = mg__algo_reference(g, MG__REFERENCE_CC, NULL, 0);
    if (want == NULL) {
        int32_t *fresh = mg__algo_malloc(n, sizeof *fresh);
        queue = mg__algo_malloc(n, sizeof *queue);
        if (fresh == NULL || queue == NULL) {
            mg__algo_free(fresh);
            FAIL(ctx, MG_OUT_OF_MEMORY, "mg_check_cc: out of memory for %u vertices", n);
        }
        serial_components(n, off, idx, fresh, queue);
        TRY(mg__algo_keep_reference(ctx, g, MG__REFERENCE_CC, NULL, 0, fresh));
        want = fresh;
    }

    for (uint32_t v = 0; v < n; v++)
        if (got[v] != want[v])
            FAIL(ctx, MG_INVALID_ARGUMENT,
                 "mg_check_cc: vertex %u: label expected %d (the least id of its component), got %d",
                 v, want[v], got[v]);

cleanup:
    mg__algo_free(got);
    mg__algo_free(queue);
    return status;
}
