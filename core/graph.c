/*
 * graph.c — graph objects: building CSR (out-edges) and CSC (in-edges) from edge lists in parallel,
 * symmetrising, dropping self-loops and parallel edges, and the read-only accessors.
 *
 * Build: count degrees with atomics, prefix-sum into offsets, scatter with atomic cursors, then sort
 * each row (so results do not depend on the thread schedule) and compact it. Weighted rows are sorted
 * as packed 64-bit keys (neighbour << 32 | order-preserving weight bits), so among parallel edges the
 * least weight comes first and is the one kept.
 */
#include "dist.h"

#include <math.h>
#include <omp.h>

void mg_graph_options_init(mg_graph_options *opts) {
    if (opts == NULL) return;
    opts->directed = true;
    opts->keep_self_loops = false;
    opts->keep_duplicates = false;
}

/* ---- coo --------------------------------------------------------------------------------------- */

mg_status mg__coo_init(mg_context ctx, mg__coo *coo, uint64_t capacity, bool weighted,
                       mg_weight_type weight_type) {
    memset(coo, 0, sizeof *coo);
    coo->weight_type = weighted ? weight_type : MG_WEIGHT_NONE;
    /* room for one edge at least: a weighted list has its weights array even while empty, so a
     * graph built from none (a rank's share that holds no edges) keeps its weight type */
    return mg__coo_reserve(ctx, coo, capacity > 0 ? capacity : 1);
}

mg_status mg__coo_reserve(mg_context ctx, mg__coo *coo, uint64_t capacity) {
    if (capacity <= coo->capacity) return MG_SUCCESS;
    size_t c = (size_t)capacity;
    uint32_t *src = mg__realloc(coo->src, mg__mul_size(c, sizeof *src));
    if (src == NULL) goto oom;
    coo->src = src;
    uint32_t *dst = mg__realloc(coo->dst, mg__mul_size(c, sizeof *dst));
    if (dst == NULL) goto oom;
    coo->dst = dst;
    if (coo->weight_type != MG_WEIGHT_NONE) {
        void *w = mg__realloc(coo->weights, mg__mul_size(c, 4));
        if (w == NULL) goto oom;
        coo->weights = w;
    }
    coo->capacity = capacity;
    return MG_SUCCESS;
oom:
    return mg__error(ctx, MG_OUT_OF_MEMORY, "out of memory reserving an edge list of %llu edges",
                     (unsigned long long)capacity);
}

void mg__coo_free(mg__coo *coo) {
    if (coo == NULL) return;
    mg__free(coo->src);
    mg__free(coo->dst);
    mg__free(coo->weights);
    memset(coo, 0, sizeof *coo);
}

/* ---- sorting rows ------------------------------------------------------------------------------ */

#define DEFINE_SORT(NAME, T)                                                                       \
    static void NAME(T *a, size_t n) {                                                             \
        while (n > 24) {                                                                           \
            T p0 = a[0], p1 = a[n / 2], p2 = a[n - 1];                                             \
            T pivot = p0 < p1 ? (p1 < p2 ? p1 : (p0 < p2 ? p2 : p0))                               \
                              : (p0 < p2 ? p0 : (p1 < p2 ? p2 : p1));                              \
            size_t i = 0, j = n - 1;                                                               \
            for (;;) {                                                                             \
                while (a[i] < pivot) i++;                                                          \
                while (pivot < a[j]) j--;                                                          \
                if (i >= j) break;                                                                 \
                T t = a[i]; a[i] = a[j]; a[j] = t;                                                 \
                i++; j--;                                                                          \
            }                                                                                      \
            /* recurse into the smaller side, loop on the larger (bounded stack) */                \
            if (j + 1 < n - j - 1) { NAME(a, j + 1); a += j + 1; n -= j + 1; }                     \
            else { NAME(a + j + 1, n - j - 1); n = j + 1; }                                        \
        }                                                                                          \
        for (size_t i = 1; i < n; i++) {                                                           \
            T x = a[i];                                                                            \
            size_t k = i;                                                                          \
            while (k > 0 && x < a[k - 1]) { a[k] = a[k - 1]; k--; }                                \
            a[k] = x;                                                                              \
        }                                                                                          \
    }
DEFINE_SORT(sort_u32, uint32_t)
DEFINE_SORT(sort_u64, uint64_t)

/* ---- CSR build --------------------------------------------------------------------------------- */

typedef struct {
    uint32_t n;
    uint64_t m;              /* input edges                                         */
    const uint32_t *rows;    /* row (the CSR's key) of each input edge              */
    const uint32_t *cols;
    const uint32_t *weights; /* raw 32-bit weight bits, or NULL                     */
    mg_weight_type weight_type;
    bool symmetrize;         /* also add (col, row) for every input edge row != col */
    bool drop_self_loops;
    bool drop_duplicates;
} csr_input;

/* Builds out (offsets, indices, weights) from in; *m_out receives the stored edge count. */
static mg_status build_csr(mg_context ctx, const csr_input *in, mg__csr *out, uint64_t *m_out) {
    mg_status status = MG_SUCCESS;
    const uint32_t n = in->n;
    const bool weighted = in->weights != NULL;
    uint64_t *offsets = NULL, *cursor = NULL, *keys = NULL;
    uint32_t *indices = NULL, *weights = NULL;
    memset(out, 0, sizeof *out);

    offsets = mg__calloc((size_t)n + 1, sizeof *offsets);
    cursor = mg__malloc(mg__mul_size((size_t)n + 1, sizeof *cursor));
    if (offsets == NULL || cursor == NULL)
        MG__FAIL(ctx, MG_OUT_OF_MEMORY, "out of memory building CSR offsets for %u vertices", n);

    /* Each thread owns a range of rows and scans every edge, touching only its own rows: the edge
     * list is read T times in order, but the random writes need no atomics (an atomic increment
     * on a cache-missing counter serialises the thread), and each row receives its edges in input
     * order, so the result does not depend on the schedule. */
    const int64_t m = (int64_t)in->m;
#pragma omp parallel
    {
        const uint32_t t = (uint32_t)omp_get_thread_num(), T = (uint32_t)omp_get_num_threads();
        const uint32_t lo = (uint32_t)((uint64_t)n * t / T), hi = (uint32_t)((uint64_t)n * (t + 1) / T);
        for (int64_t e = 0; e < m; e++) {
            uint32_t r = in->rows[e], c = in->cols[e];
            if (in->drop_self_loops && r == c) continue;
            if (r - lo < hi - lo) offsets[r]++;
            if (in->symmetrize && r != c && c - lo < hi - lo) offsets[c]++;
        }
    }
    const uint64_t total = mg__exclusive_scan_u64(offsets, (size_t)n + 1);
    memcpy(cursor, offsets, ((size_t)n + 1) * sizeof *cursor);

    /* Weighted rows carry packed keys; unweighted rows sort the indices directly. */
    if (weighted) {
        keys = mg__malloc(mg__mul_size((size_t)total, sizeof *keys));
        if (keys == NULL)
            MG__FAIL(ctx, MG_OUT_OF_MEMORY, "out of memory building CSR: %llu weighted edges",
                     (unsigned long long)total);
    } else {
        indices = mg__malloc(mg__mul_size((size_t)total, sizeof *indices));
        if (indices == NULL)
            MG__FAIL(ctx, MG_OUT_OF_MEMORY, "out of memory building CSR: %llu edges",
                     (unsigned long long)total);
    }

    /* Scatter with the same row ownership, the rows now split by edge count for balance. */
#pragma omp parallel
    {
        const uint32_t t = (uint32_t)omp_get_thread_num(), T = (uint32_t)omp_get_num_threads();
        const uint32_t lo = mg__row_of_edge(offsets, n, total * t / T);
        const uint32_t hi = t + 1 == T ? n : mg__row_of_edge(offsets, n, total * (t + 1) / T);
        for (int64_t e = 0; e < m; e++) {
            uint32_t r = in->rows[e], c = in->cols[e];
            if (in->drop_self_loops && r == c) continue;
            const bool mine_r = r - lo < hi - lo;
            const bool mine_c = in->symmetrize && r != c && c - lo < hi - lo;
            if (!mine_r && !mine_c) continue;
            uint64_t kw = weighted ? mg__weight_key(in->weight_type == MG_WEIGHT_INT32, in->weights[e]) : 0;
            if (mine_r) {
                uint64_t p = cursor[r]++;
                if (weighted) keys[p] = (uint64_t)c << 32 | kw;
                else indices[p] = c;
            }
            if (mine_c) {
                uint64_t p = cursor[c]++;
                if (weighted) keys[p] = (uint64_t)r << 32 | kw;
                else indices[p] = r;
            }
        }
    }

    /* Sort each row; with duplicates dropped, cursor[v] becomes the row's new length. */
#pragma omp parallel for schedule(dynamic, 512)
    for (int64_t v = 0; v < (int64_t)n; v++) {
        uint64_t lo = offsets[v], hi = offsets[v + 1], len = hi - lo;
        if (weighted) sort_u64(keys + lo, len);
        else sort_u32(indices + lo, len);
        if (!in->drop_duplicates || len == 0) {
            cursor[v] = len;
            continue;
        }
        uint64_t k = 1;
        for (uint64_t i = 1; i < len; i++) {
            if (weighted) {
                if ((keys[lo + i] >> 32) != (keys[lo + k - 1] >> 32)) keys[lo + k++] = keys[lo + i];
            } else if (indices[lo + i] != indices[lo + k - 1]) {
                indices[lo + k++] = indices[lo + i];
            }
        }
        cursor[v] = k;
    }

    uint64_t *new_offsets = cursor;
    new_offsets[n] = 0;
    const uint64_t kept = mg__exclusive_scan_u64(new_offsets, (size_t)n + 1);

    uint32_t *final_indices = (!weighted && kept == total) ? indices : NULL;
    if (final_indices == NULL) {
        final_indices = mg__malloc(mg__mul_size((size_t)kept, sizeof *final_indices));
        if (final_indices == NULL)
            MG__FAIL(ctx, MG_OUT_OF_MEMORY, "out of memory building CSR: %llu edges",
                     (unsigned long long)kept);
    }
    if (weighted) {
        weights = mg__malloc(mg__mul_size((size_t)kept, sizeof *weights));
        if (weights == NULL) {
            mg__free(final_indices);
            MG__FAIL(ctx, MG_OUT_OF_MEMORY, "out of memory building CSR weights: %llu edges",
                     (unsigned long long)kept);
        }
    }
    if (final_indices != indices || weighted) {
#pragma omp parallel for schedule(dynamic, 512)
        for (int64_t v = 0; v < (int64_t)n; v++) {
            uint64_t from = offsets[v], to = new_offsets[v], len = new_offsets[v + 1] - to;
            for (uint64_t i = 0; i < len; i++) {
                if (weighted) {
                    final_indices[to + i] = (uint32_t)(keys[from + i] >> 32);
                    weights[to + i] = mg__weight_from_key(in->weight_type == MG_WEIGHT_INT32, (uint32_t)keys[from + i]);
                } else {
                    final_indices[to + i] = indices[from + i];
                }
            }
        }
    }
    if (final_indices != indices) mg__free(indices);
    indices = NULL;
    mg__free(offsets);
    offsets = NULL;

    out->offsets = new_offsets;
    cursor = NULL;
    out->indices = final_indices;
    out->weights = weights;
    weights = NULL;
    *m_out = kept;

cleanup:
    mg__free(offsets);
    mg__free(cursor);
    mg__free(keys);
    mg__free(indices);
    mg__free(weights);
    return status;
}

static void free_csr(mg__csr *c) {
    mg__free(c->offsets);
    mg__free(c->indices);
    mg__free(c->weights);
    memset(c, 0, sizeof *c);
}

/* Row index of every stored edge (the COO rows of a CSR). */
static uint32_t *expand_rows(const mg__csr *c, uint32_t n, uint64_t m) {
    uint32_t *rows = mg__malloc(mg__mul_size((size_t)m, sizeof *rows));
    if (rows == NULL) return NULL;
#pragma omp parallel for schedule(dynamic, 1024)
    for (int64_t v = 0; v < (int64_t)n; v++)
        for (uint64_t e = c->offsets[v]; e < c->offsets[v + 1]; e++) rows[e] = (uint32_t)v;
    return rows;
}

mg_status mg__graph_from_coo(mg_context ctx, mg_graph *g, const mg__coo *coo,
                             const mg_graph_options *opts) {
    mg_graph_options defaults;
    if (opts == NULL) {
        mg_graph_options_init(&defaults);
        opts = &defaults;
    }
    if (mg__dist_splits(ctx)) return mg__dist_build(ctx, g, coo, opts);
    return mg__graph_build(ctx, g, coo, opts);
}

mg_status mg__graph_build(mg_context ctx, mg_graph *g, const mg__coo *coo,
                          const mg_graph_options *opts) {
    mg_status status = MG_SUCCESS;
    mg_graph graph = NULL;
    uint32_t *rows = NULL;
    mg_graph_options defaults;
    if (opts == NULL) {
        mg_graph_options_init(&defaults);
        opts = &defaults;
    }
    *g = NULL;
    const double t0 = omp_get_wtime();
    graph = mg__calloc(1, sizeof *graph);
    if (graph == NULL) MG__FAIL(ctx, MG_OUT_OF_MEMORY, "out of memory allocating a graph");
    graph->magic = MG__MAGIC_GRAPH;
    graph->n = coo->n;
    graph->directed = opts->directed;
    graph->index_base = coo->index_base;
    graph->weight_type = coo->weights != NULL ? coo->weight_type : MG_WEIGHT_NONE;

    csr_input in = {
        .n = coo->n, .m = coo->m, .rows = coo->src, .cols = coo->dst,
        .weights = graph->weight_type != MG_WEIGHT_NONE ? coo->weights : NULL,
        .weight_type = graph->weight_type, .symmetrize = !opts->directed,
        .drop_self_loops = !opts->keep_self_loops, .drop_duplicates = !opts->keep_duplicates,
    };
    MG__TRY(build_csr(ctx, &in, &graph->out, &graph->m));

    if (opts->directed) {
        /* The CSC is the CSR of the reversed edges that survived the first build. */
        rows = expand_rows(&graph->out, graph->n, graph->m);
        if (rows == NULL) MG__FAIL(ctx, MG_OUT_OF_MEMORY, "out of memory building the CSC");
        csr_input rev = {
            .n = graph->n, .m = graph->m, .rows = graph->out.indices, .cols = rows,
            .weights = graph->out.weights, .weight_type = graph->weight_type,
            .symmetrize = false, .drop_self_loops = false, .drop_duplicates = false,
        };
        uint64_t m_in = 0;
        MG__TRY(build_csr(ctx, &rev, &graph->in, &m_in));
    } else {
        graph->in = graph->out; /* symmetric: in-edges are the out-edges */
    }
    mg__graph_finish(graph);
    graph->build_seconds = omp_get_wtime() - t0;
    *g = graph;
    graph = NULL;

cleanup:
    mg__free(rows);
    if (graph != NULL) {
        graph->magic = MG__MAGIC_FREED;
        if (graph->in.offsets != graph->out.offsets) free_csr(&graph->in);
        free_csr(&graph->out);
        mg__free(graph);
    }
    return status;
}

void mg__graph_finish(mg_graph g) {
    double lo = g->m ? 1.0 : 0.0, hi = lo;
    if (g->weight_type != MG_WEIGHT_NONE && g->m > 0) {
        lo = INFINITY;
        hi = -INFINITY;
        const int64_t m = (int64_t)g->m;
        if (g->weight_type == MG_WEIGHT_INT32) {
            const int32_t *w = g->out.weights;
#pragma omp parallel for reduction(min : lo) reduction(max : hi) schedule(static)
            for (int64_t e = 0; e < m; e++) {
                const double x = (double)w[e];
                lo = x < lo ? x : lo;
                hi = x > hi ? x : hi;
            }
        } else {
            const float *w = g->out.weights;
#pragma omp parallel for reduction(min : lo) reduction(max : hi) schedule(static)
            for (int64_t e = 0; e < m; e++) {
                const double x = (double)w[e];
                lo = x < lo ? x : lo;
                hi = x > hi ? x : hi;
            }
        }
    }
    g->weight_min = lo;
    g->weight_max = hi;
}

double mg_graph_build_seconds(const mg_graph g) {
    return (g != NULL && g->magic == MG__MAGIC_GRAPH) ? g->build_seconds : 0.0;
}

mg_status mg_graph_weight_range(const mg_graph g, double *min_weight, double *max_weight) {
    if (g == NULL) return MG_INVALID_ARGUMENT;
    if (g->magic != MG__MAGIC_GRAPH) return MG_INVALID_OBJECT;
    if (min_weight) *min_weight = g->weight_min;
    if (max_weight) *max_weight = g->weight_max;
    return MG_SUCCESS;
}

/* ---- public construction ----------------------------------------------------------------------- */

mg_status mg_graph_create_from_coo(mg_context ctx, mg_graph *g, uint32_t n, uint64_t m,
                                   const uint32_t *src, const uint32_t *dst, const void *weights,
                                   mg_weight_type weight_type, const mg_graph_options *opts) {
    mg_status status = mg__check_context(ctx);
    if (status != MG_SUCCESS) return status;
    if (g == NULL) return mg__error(ctx, MG_INVALID_ARGUMENT, "mg_graph_create_from_coo: g is NULL");
    *g = NULL;
    if (m > 0 && (src == NULL || dst == NULL))
        return mg__error(ctx, MG_INVALID_ARGUMENT,
                         "mg_graph_create_from_coo: src and dst must not be NULL when m > 0");
    if (n == UINT32_MAX)
        return mg__error(ctx, MG_INVALID_ARGUMENT,
                         "mg_graph_create_from_coo: n = %u is too large (at most %u vertices)", n,
                         UINT32_MAX - 1);
    if (weight_type != MG_WEIGHT_NONE && weight_type != MG_WEIGHT_INT32 &&
        weight_type != MG_WEIGHT_FLOAT)
        return mg__error(ctx, MG_INVALID_ARGUMENT,
                         "mg_graph_create_from_coo: unknown weight_type %d", (int)weight_type);
    if (weight_type != MG_WEIGHT_NONE && weights == NULL && m > 0)
        return mg__error(ctx, MG_INVALID_ARGUMENT,
                         "mg_graph_create_from_coo: weights is NULL but weight_type is set");

    /* Validate ids in parallel; report the first bad edge. */
    int64_t bad = -1;
#pragma omp parallel for reduction(max : bad)
    for (int64_t e = 0; e < (int64_t)m; e++)
        if (src[e] >= n || dst[e] >= n) bad = bad < 0 ? e : bad;
    if (bad >= 0) {
        for (uint64_t e = 0; e < m; e++)
            if (src[e] >= n || dst[e] >= n) {
                bad = (int64_t)e;
                break;
            }
        return mg__error(ctx, MG_INVALID_ARGUMENT,
                         "mg_graph_create_from_coo: edge %lld (%u -> %u) has a vertex id >= n = %u",
                         (long long)bad, src[bad], dst[bad], n);
    }
    if (weight_type == MG_WEIGHT_FLOAT) {
        const float *w = weights;
        for (uint64_t e = 0; e < m; e++)
            if (isnan(w[e]))
                return mg__error(ctx, MG_INVALID_ARGUMENT,
                                 "mg_graph_create_from_coo: weight of edge %llu is NaN",
                                 (unsigned long long)e);
    }
    mg__coo coo = {
        .n = n, .m = m, .capacity = m, .src = (uint32_t *)src, .dst = (uint32_t *)dst,
        .weights = weight_type != MG_WEIGHT_NONE ? (void *)weights : NULL,
        .weight_type = weight_type, .index_base = 0, .symmetric = false,
    };
    return mg__graph_from_coo(ctx, g, &coo, opts);
}

static void free_reference(struct mg__reference *r) {
    if (r == NULL) return;
    mg__free(r->key);
    mg__free(r->values);
    mg__free(r);
}

const void *mg__graph_reference(const struct mg_graph_s *g, int slot, const void *key, size_t key_bytes) {
    const struct mg__reference *r = g->reference[slot];
    if (r == NULL || r->key_bytes != key_bytes || (key_bytes > 0 && memcmp(r->key, key, key_bytes) != 0))
        return NULL;
    return r->values;
}

mg_status mg__graph_keep_reference(struct mg_graph_s *g, int slot, const void *key, size_t key_bytes,
                                   void *values) {
    struct mg__reference *r = mg__malloc(sizeof *r);
    void *k = mg__malloc(key_bytes);
    if (r == NULL || k == NULL) {
        mg__free(r);
        mg__free(k);
        mg__free(values);
        return MG_OUT_OF_MEMORY;
    }
    if (key_bytes > 0) memcpy(k, key, key_bytes);
    r->key = k;
    r->key_bytes = key_bytes;
    r->values = values;
    free_reference(g->reference[slot]);
    g->reference[slot] = r;
    return MG_SUCCESS;
}

mg_status mg_graph_free(mg_graph *g) {
    if (g == NULL || *g == NULL) return MG_SUCCESS;
    mg_graph graph = *g;
    if (graph->magic != MG__MAGIC_GRAPH) return MG_INVALID_OBJECT;
    graph->magic = MG__MAGIC_FREED;
    if (graph->free_gpu != NULL) graph->free_gpu(graph->gpu);
    for (int i = 0; i < MG__REFERENCE_SLOTS; i++) free_reference(graph->reference[i]);
    if (graph->in.offsets != graph->out.offsets) free_csr(&graph->in);
    free_csr(&graph->out);
    mg__dist_graph_free(graph->dist);
    mg__free(graph);
    *g = NULL;
    return MG_SUCCESS;
}

/* ---- accessors --------------------------------------------------------------------------------- */

static bool live(const mg_graph g) { return g != NULL && g->magic == MG__MAGIC_GRAPH; }

uint32_t mg_graph_num_vertices(const mg_graph g) { return live(g) ? g->n : 0; }
/* a share answers for the whole graph (its own counts are the engines') */
uint64_t mg_graph_num_edges(const mg_graph g) { return live(g) ? (g->dist ? g->dist->m : g->m) : 0; }
bool mg_graph_is_directed(const mg_graph g) {
    return live(g) ? (g->dist ? g->dist->directed : g->directed) : true;
}
bool mg_graph_is_share(const mg_graph g) { return live(g) && g->dist != NULL && g->dist->size > 1; }
mg_weight_type mg_graph_weight_type(const mg_graph g) {
    return live(g) ? g->weight_type : MG_WEIGHT_NONE;
}
int mg_graph_index_base(const mg_graph g) { return live(g) ? g->index_base : 0; }

static mg_status view(const mg_graph g, const mg__csr *c, const uint64_t **offsets,
                      const uint32_t **indices, const void **weights) {
    if (offsets) *offsets = c->offsets;
    if (indices) *indices = c->indices;
    if (weights) *weights = c->weights;
    return MG_SUCCESS;
    (void)g;
}

mg_status mg_graph_csr(const mg_graph g, const uint64_t **offsets, const uint32_t **indices,
                       const void **weights) {
    if (g == NULL) return MG_INVALID_ARGUMENT;
    if (!live(g)) return MG_INVALID_OBJECT;
    return view(g, &g->out, offsets, indices, weights);
}

mg_status mg_graph_csc(const mg_graph g, const uint64_t **offsets, const uint32_t **indices,
                       const void **weights) {
    if (g == NULL) return MG_INVALID_ARGUMENT;
    if (!live(g)) return MG_INVALID_OBJECT;
    return view(g, &g->in, offsets, indices, weights);
}

mg_status mg_graph_get_stats(mg_context ctx, const mg_graph g, mg_graph_stats *stats) {
    mg_status status = mg__check_context(ctx);
    if (status != MG_SUCCESS) return status;
    if ((status = mg__check_whole_graph(ctx, g, "mg_graph_get_stats: g")) != MG_SUCCESS) return status;
    if (stats == NULL)
        return mg__error(ctx, MG_INVALID_ARGUMENT, "mg_graph_get_stats: stats is NULL");
    memset(stats, 0, sizeof *stats);
    stats->n = g->n;
    stats->m = g->m;
    stats->mean_degree = g->n ? (double)g->m / g->n : 0.0;
    uint32_t max_out = 0, max_in = 0, isolated = 0, sinks = 0;
    uint64_t loops = 0;
    uint32_t gv[6] = {0};
    uint64_t ge[6] = {0};
#pragma omp parallel for reduction(max : max_out, max_in) reduction(+ : isolated, sinks, loops) \
    reduction(+ : gv[:6], ge[:6])
    for (int64_t v = 0; v < (int64_t)g->n; v++) {
        uint64_t od = g->out.offsets[v + 1] - g->out.offsets[v];
        uint64_t id = g->in.offsets[v + 1] - g->in.offsets[v];
        if (od > max_out) max_out = (uint32_t)od;
        if (id > max_in) max_in = (uint32_t)id;
        if (od == 0 && id == 0) isolated++;
        if (od == 0) sinks++;
        for (uint64_t e = g->out.offsets[v]; e < g->out.offsets[v + 1]; e++)
            if (g->out.indices[e] == (uint32_t)v) loops++;
        int grp = mg__degree_group(id) - 1;
        gv[grp]++;
        ge[grp] += id;
    }
    stats->max_out_degree = max_out;
    stats->max_in_degree = max_in;
    stats->isolated = isolated;
    stats->zero_out_degree = sinks;
    stats->self_loops = loops;
    memcpy(stats->group_vertices, gv, sizeof gv);
    memcpy(stats->group_edges, ge, sizeof ge);
    return MG_SUCCESS;
}

/* Every stored arc of a directed graph; each undirected edge once (source <= destination), to be
 * symmetrised again. Nothing is dropped: the graph already holds what its options kept. */
mg_status mg__graph_edge_starts(mg_context ctx, const mg_graph g, uint64_t **start_out) {
    const uint32_t n = g->n;
    uint64_t *start = mg__malloc(mg__mul_size((size_t)n + 1, sizeof *start));
    *start_out = start;
    if (start == NULL)
        return mg__error(ctx, MG_OUT_OF_MEMORY, "mg__graph_edges: out of memory for the edges of %u "
                         "vertices", n);
#pragma omp parallel for schedule(static)
    for (int64_t v = 0; v < (int64_t)n; v++) {
        uint64_t k = 0;
        if (g->directed) {
            k = g->out.offsets[v + 1] - g->out.offsets[v];
        } else {
            for (uint64_t e = g->out.offsets[v]; e < g->out.offsets[v + 1]; e++)
                k += (uint32_t)v <= g->out.indices[e];
        }
        start[v] = k;
    }
    start[n] = 0;
    (void)mg__exclusive_scan_u64(start, (size_t)n + 1);
    return MG_SUCCESS;
}

/* The last vertex whose first edge is at or before position k (start is ascending, start[0] = 0). */
static uint32_t vertex_at(const uint64_t *start, uint32_t n, uint64_t k) {
    uint32_t lo = 0, hi = n; /* start[lo] <= k; the answer is in [lo, hi) */
    while (hi - lo > 1) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (start[mid] <= k) lo = mid; else hi = mid;
    }
    return lo;
}

void mg__graph_edges_fill(const mg_graph g, const uint64_t *start, uint64_t first, uint64_t count,
                          uint32_t *src, uint32_t *dst, uint32_t *w) {
    if (count == 0) return;
    const uint64_t end = first + count;
    const uint32_t v0 = vertex_at(start, g->n, first), v1 = vertex_at(start, g->n, end - 1);
    const uint32_t *weights = g->weight_type != MG_WEIGHT_NONE ? g->out.weights : NULL;
#pragma omp parallel for schedule(dynamic, 256)
    for (int64_t v = v0; v <= (int64_t)v1; v++) {
        uint64_t k = start[v], e = g->out.offsets[v];
        /* a directed row is all kept: a row begun in an earlier piece resumes where it stopped */
        if (g->directed && k < first) {
            e += first - k;
            k = first;
        }
        for (; e < g->out.offsets[v + 1] && k < end; e++) {
            const uint32_t d = g->out.indices[e];
            if (!g->directed && d < (uint32_t)v) continue;
            if (k >= first) {
                src[k - first] = (uint32_t)v;
                dst[k - first] = d;
                if (w != NULL && weights != NULL) w[k - first] = weights[e];
            }
            k++;
        }
    }
}

mg_status mg__graph_edges(mg_context ctx, const mg_graph g, mg__coo *coo) {
    mg_status status = MG_SUCCESS;
    const bool weighted = g->weight_type != MG_WEIGHT_NONE;
    uint64_t *start = NULL;
    MG__TRY(mg__graph_edge_starts(ctx, g, &start));
    const uint64_t m = start[g->n];
    MG__TRY(mg__coo_init(ctx, coo, m, weighted, g->weight_type));
    coo->n = g->n;
    coo->m = m;
    coo->index_base = g->index_base;
    coo->symmetric = !g->directed;
    mg__graph_edges_fill(g, start, 0, m, coo->src, coo->dst, weighted ? coo->weights : NULL);
cleanup:
    mg__free(start);
    return status;
}

mg_status mg_graph_permute(mg_context ctx, const mg_graph g, const uint32_t *new_of_old, mg_graph *out) {
    mg_status status = mg__check_context(ctx);
    if (status != MG_SUCCESS) return status;
    if (out == NULL) return mg__error(ctx, MG_INVALID_ARGUMENT, "mg_graph_permute: out is NULL");
    *out = NULL;
    if ((status = mg__check_whole_graph(ctx, g, "mg_graph_permute: g")) != MG_SUCCESS) return status;
    if (new_of_old == NULL && g->n > 0)
        return mg__error(ctx, MG_INVALID_ARGUMENT, "mg_graph_permute: new_of_old is NULL");
    mg__coo coo;
    memset(&coo, 0, sizeof coo);
    /* A permutation: every new id below n, none twice (the first repeat is named). */
    uint8_t *seen = mg__calloc(g->n ? g->n : 1, 1);
    if (seen == NULL)
        MG__FAIL(ctx, MG_OUT_OF_MEMORY, "mg_graph_permute: out of memory for %u vertices", g->n);
    for (uint32_t v = 0; v < g->n; v++) {
        const uint32_t w = new_of_old[v];
        if (w >= g->n)
            MG__FAIL(ctx, MG_INVALID_ARGUMENT, "mg_graph_permute: new_of_old[%u] = %u is out of range "
                     "(the graph has %u vertices)", v, w, g->n);
        if (seen[w]++)
            MG__FAIL(ctx, MG_INVALID_ARGUMENT, "mg_graph_permute: new_of_old[%u] = %u repeats an "
                     "earlier vertex's new id (not a permutation)", v, w);
    }
    MG__TRY(mg__graph_edges(ctx, g, &coo));
#pragma omp parallel for schedule(static)
    for (int64_t e = 0; e < (int64_t)coo.m; e++) {
        coo.src[e] = new_of_old[coo.src[e]];
        coo.dst[e] = new_of_old[coo.dst[e]];
    }
    /* the graph already holds what its options kept: keep all of it */
    mg_graph_options opts = {.directed = g->directed, .keep_self_loops = true, .keep_duplicates = true};
    MG__TRY(mg__graph_from_coo(ctx, out, &coo, &opts));
    (*out)->index_base = g->index_base;
cleanup:
    mg__free(seen);
    mg__coo_free(&coo);
    return status;
}
