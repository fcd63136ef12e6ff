/*
 * check_sssp.c — verifier of mg_sssp (after GAPBS's SSSPVerifier): Dijkstra's algorithm with an
 * indexed binary heap (decrease-key, so memory is O(n) whatever m is) gives the distances. Integer
 * distances (int weights, unweighted) must match exactly; double distances (float weights) to a
 * relative 1e-9 (absolute below 1), since the order in which a path's weights are added may differ;
 * unreached vertices must hold exactly INT64_MAX or +infinity.
 */
#include "algo_util.h"

#include <math.h>

typedef struct {
    bool real;        /* keys in fd (float weights) or id (integers) */
    int64_t *id;
    double *fd;
    uint32_t *heap;   /* heap[0..size) of vertices          */
    uint32_t *pos;    /* position in heap, UINT32_MAX: none */
    uint32_t size;
} heap_t;

static bool less(const heap_t *h, uint32_t a, uint32_t b) {
    return h->real ? h->fd[a] < h->fd[b] : h->id[a] < h->id[b];
}

static void place(heap_t *h, uint32_t i, uint32_t v) {
    h->heap[i] = v;
    h->pos[v] = i;
}

static void sift_up(heap_t *h, uint32_t i) {
    uint32_t v = h->heap[i];
    while (i > 0 && less(h, v, h->heap[(i - 1) / 2])) {
        place(h, i, h->heap[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    place(h, i, v);
}

static uint32_t pop(heap_t *h) {
    uint32_t top = h->heap[0], v = h->heap[--h->size], i = 0;
    h->pos[top] = UINT32_MAX;
    if (h->size == 0) return top;
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= h->size) break;
        if (c + 1 < h->size && less(h, h->heap[c + 1], h->heap[c])) c++;
        if (!less(h, h->heap[c], v)) break;
        place(h, i, h->heap[c]);
        i = c;
    }
    place(h, i, v);
    return top;
}

/* Lowers v's key (already written) and restores the heap, inserting v if it is not there. */
static void push_or_decrease(heap_t *h, uint32_t v) {
    if (h->pos[v] == UINT32_MAX) {
        h->heap[h->size] = v;
        h->pos[v] = h->size++;
    }
    sift_up(h, h->pos[v]);
}

mg_status mg_check_sssp(mg_context ctx, const mg_graph g, uint32_t source, const mg_vector dist) {
    mg_status status = MG_SUCCESS;
    heap_t h = {0};
    void *got = NULL;

    TRY(mg__algo_check_whole_graph(ctx, g, "mg_check_sssp: g"));
    const uint32_t n = mg_graph_num_vertices(g);
    if (source >= n)
        FAIL(ctx, MG_INVALID_ARGUMENT,
             "mg_check_sssp: source %u is out of range (the graph has %u vertices)", source, n);
    const mg_weight_type wt = mg_graph_weight_type(g);
    h.real = wt == MG_WEIGHT_FLOAT;
    TRY(mg__algo_check_vector(ctx, g, dist, h.real ? MG_DOUBLE : MG_INT64, "mg_check_sssp: dist"));
    const uint64_t *off;
    const uint32_t *idx;
    const void *weights;
    TRY(mg_graph_csr(g, &off, &idx, &weights));
    const int32_t *wi = wt == MG_WEIGHT_INT32 ? weights : NULL;
    const float *wf = wt == MG_WEIGHT_FLOAT ? weights : NULL;

    got = mg__algo_malloc(n, 8);
    if (got == NULL) FAIL(ctx, MG_OUT_OF_MEMORY, "mg_check_sssp: out of memory for %u vertices", n);
    TRY(mg_vector_extract(ctx, dist, got));
    const void *want_values = mg__algo_reference(g, MG__REFERENCE_SSSP, &source, sizeof source);
    if (want_values == NULL) {
        h.heap = mg__algo_malloc(n, sizeof *h.heap);
        h.pos = mg__algo_malloc(n, sizeof *h.pos);
        if (h.real) h.fd = mg__algo_malloc(n, sizeof *h.fd);
        else h.id = mg__algo_malloc(n, sizeof *h.id);
        if (h.heap == NULL || h.pos == NULL || (h.fd == NULL && h.id == NULL))
            FAIL(ctx, MG_OUT_OF_MEMORY, "mg_check_sssp: out of memory for %u vertices", n);
        for (uint32_t v = 0; v < n; v++) {
            h.pos[v] = UINT32_MAX;
            if (h.real) h.fd[v] = INFINITY;
            else h.id[v] = INT64_MAX;
        }
        if (h.real) h.fd[source] = 0;
        else h.id[source] = 0;
        push_or_decrease(&h, source);
        while (h.size > 0) {
            uint32_t u = pop(&h);
            for (uint64_t e = off[u]; e < off[u + 1]; e++) {
                uint32_t v = idx[e];
                if (h.real) {
                    if (wf[e] < 0)
                        FAIL(ctx, MG_INVALID_ARGUMENT,
                             "mg_check_sssp: edge %u -> %u has weight %g < 0", u, v, wf[e]);
                    double d = h.fd[u] + (double)wf[e];
                    if (d < h.fd[v]) {
                        h.fd[v] = d;
                        push_or_decrease(&h, v);
                    }
                } else {
                    int64_t wgt = wi ? wi[e] : 1;
                    if (wgt < 0)
                        FAIL(ctx, MG_INVALID_ARGUMENT,
                             "mg_check_sssp: edge %u -> %u has weight %lld < 0", u, v, (long long)wgt);
                    int64_t d = h.id[u] + wgt;
                    if (d < h.id[v]) {
                        h.id[v] = d;
                        push_or_decrease(&h, v);
                    }
                }
            }
        }
        void *fresh = h.real ? (void *)h.fd : (void *)h.id;
        h.fd = NULL; /* the graph owns the distances now */
        h.id = NULL;
        TRY(mg__algo_keep_reference(ctx, g, MG__REFERENCE_SSSP, &source, sizeof source, fresh));
        want_values = fresh;
    }

    for (uint32_t v = 0; v < n; v++) {
        if (h.real) {
            double want = ((const double *)want_values)[v], have = ((const double *)got)[v];
            bool ok = isinf(want) ? (isinf(have) && have > 0)
                                  : fabs(have - want) <= 1e-9 * fmax(1.0, fabs(want));
            if (!ok)
                FAIL(ctx, MG_INVALID_ARGUMENT,
                     "mg_check_sssp: vertex %u: distance expected %.17g, got %.17g", v, want, have);
        } else {
            int64_t want = ((const int64_t *)want_values)[v], have = ((const int64_t *)got)[v];
            if (want != have)
                FAIL(ctx, MG_INVALID_ARGUMENT,
                     "mg_check_sssp: vertex %u: distance expected %lld, got %lld", v,
                     (long long)want, (long long)have);
        }
    }

cleanup:
    mg__algo_free(h.heap);
    mg__algo_free(h.pos);
    mg__algo_free(h.fd);
    mg__algo_free(h.id);
    mg__algo_free(got);
    return status;
}
