/*
 * dist.c — contexts over several ranks and graphs split over them (dist.h says the layout).
 *
 * Why replicated vectors with split edges: the edges are what outgrow a device (R-MAT 30 has 2^34
 * stored edges, its vertex values 2^30 x 8 bytes), and an advance's work is its edges; keeping every
 * vector whole on every rank lets each vector or frontier operation, and so each algorithm of
 * algos/, run unchanged with no communication but the one exchange after each advance. The cost is
 * that those operations do not get faster with more ranks (docs/ARCHITECTURE.md weighs it).
 */
#include "dist.h"

#include <math.h>
#include <omp.h>

#define SET "mg_context_set_ranks: "

void mg__dist_free(struct mg__dist *d) {
    if (d == NULL) return;
    mg__dist_gpu_release(d);
    mg__free(d->scratch);
    mg__free(d);
}

void mg__dist_graph_free(struct mg__graph_dist *d) {
    if (d == NULL) return;
    mg__free(d->first);
    mg__free(d->degree_offsets);
    mg__free(d->high);
    mg__free(d->high_start);
    mg__free(d);
}

mg_status mg_context_set_ranks(mg_context ctx, const mg_ranks *ranks) {
    mg_status status = mg__check_context(ctx);
    if (status != MG_SUCCESS) return status;
    if (ranks == NULL) return mg__error(ctx, MG_INVALID_ARGUMENT, SET "ranks is NULL");
    if (ranks->size < 1 || ranks->rank < 0 || ranks->rank >= ranks->size)
        return mg__error(ctx, MG_INVALID_ARGUMENT, SET "rank %d of %d ranks is out of range",
                         ranks->rank, ranks->size);
    if (ranks->local_rank < 0)
        return mg__error(ctx, MG_INVALID_ARGUMENT, SET "local_rank %d is negative", ranks->local_rank);
    if (ranks->allgatherv == NULL || ranks->broadcast == NULL || ranks->allreduce_sum_u64 == NULL)
        return mg__error(ctx, MG_INVALID_ARGUMENT, SET "ranks->%s is NULL",
                         ranks->allgatherv == NULL  ? "allgatherv"
                         : ranks->broadcast == NULL ? "broadcast"
                                                    : "allreduce_sum_u64");
    if (ctx->dist != NULL)
        return mg__error(ctx, MG_INVALID_ARGUMENT, SET "the context already has its ranks");
    if (ctx->backend == MG_BACKEND_GPU && ranks->size > 1 && !mg__dist_gpu_available())
        return mg__error(ctx, MG_UNAVAILABLE,
                         SET "the ranks' GPUs exchange through NCCL, which this build lacks "
                             "(configure where nccl.h and libnccl are found)");
    struct mg__dist *d = mg__calloc(1, sizeof *d);
    if (d != NULL) d->scratch = mg__malloc((size_t)ranks->size * 3 * sizeof *d->scratch);
    if (d == NULL || d->scratch == NULL) {
        mg__free(d);
        return mg__error(ctx, MG_OUT_OF_MEMORY, SET "out of memory");
    }
    d->ranks = *ranks;
    d->device = -1;
    /* Each rank takes its own GPU (its rank on the host, modulo the devices) before any device
     * work; no device is no error: the ranks run on the CPU. */
    if (mg__gpu_use_device(ctx, ranks->local_rank, &d->device) != MG_SUCCESS) {
        d->device = -1;
        ctx->error[0] = '\0';
    }
    if (ctx->backend == MG_BACKEND_GPU && d->device >= 0 &&
        (status = mg__gpu_keep_pool(ctx, d->device)) != MG_SUCCESS) {
        mg__free(d->scratch);
        mg__free(d);
        return status;
    }
    ctx->dist = d;
    return MG_SUCCESS;
}

mg_status mg_context_get_ranks(const mg_context ctx, int *rank, int *size) {
    mg_status status = mg__check_context(ctx);
    if (status != MG_SUCCESS) return status;
    if (rank != NULL) *rank = ctx->dist ? ctx->dist->ranks.rank : 0;
    if (size != NULL) *size = ctx->dist ? ctx->dist->ranks.size : 1;
    return MG_SUCCESS;
}

#define ADV_STEP "mg_advance: the step"

static mg_status collective_failed(mg_context ctx, const char *what, int rc) {
    return mg__error(ctx, MG_IO_ERROR, "the ranks' %s failed (code %d)", what, rc);
}

/* ---- the split ---------------------------------------------------------------------------------- */

/* What a destination costs a step, in edges: its in-edges, and a fixed part for each destination
 * with any. Balancing in-edges alone, R-MAT 26's two shares (on 2 H200s) took 14.3 and 17.6 ms a
 * PageRank step: the second holds 3.7 times the first's destinations (R-MAT's tail), each a
 * thread's pull that costs about as much as 10 edges of the first's hubs. On 4 H200s (session
 * 23) 5 and 3 were slower than 8: another share became the slowest. */
#define DESTINATION_EDGES 8

static inline uint64_t cost(uint64_t in_degree) {
    return in_degree + (in_degree > 0 ? DESTINATION_EDGES : 0);
}

/* Range ends at multiples of 64 where the cost seen so far passes r / size of the whole. */
void mg__dist_choose_ranges(const uint64_t *in_degree, uint32_t n, int size, uint32_t *first) {
    uint64_t total = 0;
    for (uint32_t v = 0; v < n; v++) total += cost(in_degree[v]);
    first[0] = 0;
    uint64_t seen = 0;
    uint32_t v = 0;
    for (int r = 1; r < size; r++) {
        const double target = (double)total * r / size;
        while (v < n && (double)seen < target) {
            const uint32_t end = v + 64 < n ? v + 64 : n;
            for (; v < end; v++) seen += cost(in_degree[v]);
        }
        first[r] = v;
    }
    first[size] = n;
}

void mg__dist_begin(mg_context ctx) {
    if (ctx != NULL && ctx->dist != NULL) ctx->dist->agreed = ctx->dist->failure_shared = false;
}

mg_status mg_ranks_begin(mg_context ctx) {
    mg_status status = mg__check_context(ctx);
    if (status == MG_SUCCESS) mg__dist_begin(ctx);
    return status;
}

mg_status mg_ranks_end(mg_context ctx, mg_status status, const char *what) {
    /* not mg__check_context: a failure's message stays */
    if (ctx == NULL || ctx->magic != MG__MAGIC_CONTEXT || !mg__dist_splits(ctx) || ctx->dist->failure_shared)
        return status;
    return mg__dist_agree_status(ctx, status, what != NULL ? what : "the call");
}

mg_status mg__dist_settle(mg_context ctx, mg_status status, const char *what) {
    if (status == MG_SUCCESS || !mg__dist_splits(ctx) || ctx->dist->agreed) return status;
    return mg__dist_agree_status(ctx, status, what);
}

mg_status mg__dist_agree_status(mg_context ctx, mg_status mine, const char *what) {
    const mg_ranks *R = &ctx->dist->ranks;
    ctx->dist->agreed = true;
    uint64_t failed = mine != MG_SUCCESS;
    const int rc = R->allreduce_sum_u64(R->user, &failed, 1);
    if (rc != 0 || failed) ctx->dist->failure_shared = true;
    if (mine != MG_SUCCESS) return mine;
    if (rc != 0) return collective_failed(ctx, "agreement on a result", rc);
    if (failed)
        return mg__error(ctx, MG_IO_ERROR, "%s: %llu other rank%s failed (their messages say why)", what,
                         (unsigned long long)failed, failed == 1 ? "" : "s");
    return MG_SUCCESS;
}

mg_status mg__dist_agree_step(mg_context ctx, mg_status mine, bool overlap, bool *all_overlap) {
    const mg_ranks *R = &ctx->dist->ranks;
    *all_overlap = false;
    mg_status status = mg__dist_agree_status(ctx, mine, ADV_STEP);
    if (status != MG_SUCCESS) return status;
    uint64_t not_offering = !overlap;
    const int rc = R->allreduce_sum_u64(R->user, &not_offering, 1);
    if (rc != 0) return collective_failed(ctx, "agreement on a step", rc);
    *all_overlap = not_offering == 0;
    return MG_SUCCESS;
}

/* Adds the in-edges coo's edges give each vertex as the builder stores them (opts: loops kept or
 * not, an undirected edge both ways) to in_degree. */
static void add_in_degrees(const mg__coo *coo, const mg_graph_options *opts, uint64_t *in_degree) {
    const bool directed = opts->directed, drop_loops = !opts->keep_self_loops;
#pragma omp parallel for schedule(static)
    for (int64_t e = 0; e < (int64_t)coo->m; e++) {
        const uint32_t u = coo->src[e], v = coo->dst[e];
        if (u == v && drop_loops) continue;
#pragma omp atomic
        in_degree[v]++;
        if (!directed && u != v) {
#pragma omp atomic
            in_degree[u]++;
        }
    }
}

/* Appends the arcs of coo into [lo, hi) to mine (an undirected edge {u, v} gives u -> v and
 * v -> u), in coo's order whatever the thread count: each thread counts its static block of edges,
 * then writes them from its place in the prefix. */
static mg_status append_own_arcs(mg_context ctx, const mg__coo *coo, const mg_graph_options *opts,
                                 uint32_t lo, uint32_t hi, mg__coo *mine) {
    const bool directed = opts->directed, drop_loops = !opts->keep_self_loops;
    const int64_t m = (int64_t)coo->m;
    const int threads = omp_get_max_threads();
    uint64_t *counts = mg__calloc((size_t)threads + 1, sizeof *counts);
    if (counts == NULL) return mg__error(ctx, MG_OUT_OF_MEMORY, "out of memory splitting a graph");
#define OWN_ARCS(BODY)                                                                             \
    for (int64_t e = m * t / threads; e < m * (t + 1) / threads; e++) {                             \
        const uint32_t u = coo->src[e], v = coo->dst[e];                                           \
        if (u == v && drop_loops) continue;                                                        \
        for (int turn = 0; turn < 1 + (!directed && u != v); turn++) {                             \
            const uint32_t s = turn ? v : u, d = turn ? u : v;                                     \
            if (d < lo || d >= hi) continue;                                                       \
            BODY;                                                                                  \
        }                                                                                          \
    }
#pragma omp parallel num_threads(threads)
    {
        const int64_t t = omp_get_thread_num();
        uint64_t c = 0;
        OWN_ARCS((void)s; c++)
        counts[t + 1] = c;
    }
    for (int t = 0; t < threads; t++) counts[t + 1] += counts[t];
    const uint64_t at = mine->m, kept = counts[threads];
    if (at + kept > mine->capacity) {
        /* room to grow by half again: a rank appends once per piece of every rank's part */
        const uint64_t want = at + kept > mine->capacity + mine->capacity / 2 ? at + kept
                                                                                : mine->capacity + mine->capacity / 2;
        const mg_status status = mg__coo_reserve(ctx, mine, want);
        if (status != MG_SUCCESS) {
            mg__free(counts);
            return status;
        }
    }
    const uint32_t *w_in = coo->weights;
    uint32_t *w_out = mine->weights;
#pragma omp parallel num_threads(threads)
    {
        const int64_t t = omp_get_thread_num();
        uint64_t k = at + counts[t];
        OWN_ARCS(mine->src[k] = s; mine->dst[k] = d; if (w_out != NULL) w_out[k] = w_in[e]; k++)
    }
#undef OWN_ARCS
    mine->m = at + kept;
    mg__free(counts);
    return MG_SUCCESS;
}

/* The share from this rank's arcs (their options applied: loops, duplicates) and the scratch
 * counts (n + 1) finish() takes. */
static mg_status build_from_arcs(mg_context ctx, mg__coo *mine, const mg_graph_options *opts, mg_graph *share,
                                 uint64_t **counts) {
    mg_graph_options local = *opts;
    local.directed = true; /* a share holds arcs: both of an undirected edge's when both are its */
    const uint32_t n = mine->n;
    mg_status status = mg__graph_build(ctx, share, mine, &local);
    mg__coo_free(mine);
    if (status != MG_SUCCESS) return status;
    *counts = mg__malloc(((size_t)n + 1) * sizeof **counts);
    if (*counts == NULL) return mg__error(ctx, MG_OUT_OF_MEMORY, "out of memory for a split graph's degrees");
    return MG_SUCCESS;
}

/* This rank's share of the whole list coo, with no collective (a failure here is agreed on before
 * the first one): d->first, *share and *counts (n + 1 entries, for the degrees). */
static mg_status build_share(mg_context ctx, const mg__coo *coo, const mg_graph_options *opts,
                             struct mg__graph_dist *d, mg_graph *share, uint64_t **counts_out) {
    mg_status status = MG_SUCCESS;
    const mg_ranks *R = &ctx->dist->ranks;
    const int size = R->size, rank = R->rank;
    const uint32_t n = coo->n;
    mg__coo mine;
    memset(&mine, 0, sizeof mine);
    uint64_t *in_degree = NULL;

    d->first = mg__malloc(((size_t)size + 1) * sizeof *d->first);
    in_degree = mg__calloc((size_t)n + 1, sizeof *in_degree);
    if (d->first == NULL || in_degree == NULL) MG__FAIL(ctx, MG_OUT_OF_MEMORY, "out of memory splitting a graph");
    add_in_degrees(coo, opts, in_degree);
    mg__dist_choose_ranges(in_degree, n, size, d->first);
    MG__TRY(mg__coo_init(ctx, &mine, 0, coo->weights != NULL, coo->weight_type));
    mine.n = n;
    mine.index_base = coo->index_base;
    MG__TRY(append_own_arcs(ctx, coo, opts, d->first[rank], d->first[rank + 1], &mine));
    MG__TRY(build_from_arcs(ctx, &mine, opts, share, counts_out));
cleanup:
    mg__coo_free(&mine);
    mg__free(in_degree);
    return status;
}

/* Every rank's high vertices into d->high and d->high_start (dist.h): this rank's from its share's
 * in-degrees, then from each rank to all. off, cnt: size entries of scratch. */
static mg_status high_vertices(mg_context ctx, const mg_graph share, struct mg__graph_dist *d, uint64_t *off,
                               uint64_t *cnt) {
    const mg_ranks *R = &ctx->dist->ranks;
    const int size = R->size, rank = R->rank;
    const uint32_t lo = d->first[rank], hi = d->first[rank + 1];
    const uint64_t *in = share->in.offsets;
    uint64_t mine = 0;
    for (uint32_t v = lo; v < hi; v++) mine += mg__degree_group(in[v + 1] - in[v]) < MG__DEGREE_GROUPS;
    const uint64_t lows = (hi - lo) - mine, want = (MG__DIST_HIGH_MULTIPLE - mine % MG__DIST_HIGH_MULTIPLE) %
                                                   MG__DIST_HIGH_MULTIPLE;
    const uint64_t fill = want < lows ? want : lows;
    mine += fill;
    d->high_start = mg__calloc((size_t)size + 1, sizeof *d->high_start);
    mg_status status = d->high_start == NULL ? mg__error(ctx, MG_OUT_OF_MEMORY, "out of memory splitting a graph")
                                             : MG_SUCCESS;
    MG__TRY(mg__dist_agree_status(ctx, status, "mg_graph (split over ranks)"));
    d->high_start[rank + 1] = mine;
    int rc = R->allreduce_sum_u64(R->user, d->high_start + 1, (uint64_t)size);
    if (rc != 0) MG__FAIL(ctx, MG_IO_ERROR, "mg_graph: the ranks' counts of high vertices failed (code %d)", rc);
    for (int r = 0; r < size; r++) d->high_start[r + 1] += d->high_start[r];
    const uint64_t total = d->high_start[size];
    d->high = mg__malloc((size_t)(total > 0 ? total : 1) * sizeof *d->high);
    status = d->high == NULL ? mg__error(ctx, MG_OUT_OF_MEMORY, "out of memory for %llu high vertices",
                                         (unsigned long long)total)
                             : MG_SUCCESS;
    MG__TRY(mg__dist_agree_status(ctx, status, "mg_graph (split over ranks)"));
    /* by group, then by id: the order of the device form's groups 1-5; then the fill */
    uint32_t *at = d->high + d->high_start[rank];
    for (int grp = 1; grp <= MG__DEGREE_GROUPS; grp++) {
        uint64_t left = grp < MG__DEGREE_GROUPS ? UINT64_MAX : fill;
        for (uint32_t v = lo; v < hi && left > 0; v++)
            if (mg__degree_group(in[v + 1] - in[v]) == grp) {
                *at++ = v;
                left--;
            }
    }
    for (int r = 0; r < size; r++) {
        off[r] = d->high_start[r] * sizeof *d->high;
        cnt[r] = (d->high_start[r + 1] - d->high_start[r]) * sizeof *d->high;
    }
    rc = R->allgatherv(R->user, d->high, off, cnt);
    if (rc != 0) MG__FAIL(ctx, MG_IO_ERROR, "mg_graph: the ranks' high vertices failed (code %d)", rc);
cleanup:
    return status;
}

/* After every rank built its share (and agreed on it): the whole graph's out-degrees, each
 * share's summed over the ranks (counts: n + 1 entries of scratch, taken), and its weight range,
 * from each share's. d becomes the share's. */
static mg_status finish(mg_context ctx, mg_graph share, struct mg__graph_dist *d, uint64_t *counts,
                        bool directed, double t0) {
    mg_status status = MG_SUCCESS;
    const mg_ranks *R = &ctx->dist->ranks;
    const int size = R->size, rank = R->rank;
    const uint32_t n = share->n;
    uint64_t *off = mg__malloc((size_t)size * sizeof *off), *cnt = mg__malloc((size_t)size * sizeof *cnt);
    double *w = mg__calloc((size_t)size * 3, sizeof *w);
    share->dist = d;
    d->rank = rank;
    d->size = size;
    d->directed = directed;
    status = off == NULL || cnt == NULL || w == NULL
                 ? mg__error(ctx, MG_OUT_OF_MEMORY, "out of memory splitting a graph")
                 : MG_SUCCESS;
    MG__TRY(mg__dist_agree_status(ctx, status, "mg_graph (split over ranks)"));

#pragma omp parallel for schedule(static)
    for (int64_t v = 0; v < (int64_t)n; v++) counts[v] = share->out.offsets[v + 1] - share->out.offsets[v];
    int rc = R->allreduce_sum_u64(R->user, counts, n);
    if (rc != 0) MG__FAIL(ctx, MG_IO_ERROR, "mg_graph: the ranks' sum of out-degrees failed (code %d)", rc);
    counts[n] = 0;
    d->m = mg__exclusive_scan_u64(counts, (size_t)n + 1);
    d->degree_offsets = counts;
    counts = NULL;

    for (int r = 0; r < size; r++) {
        off[r] = (uint64_t)r * 3 * sizeof *w;
        cnt[r] = 3 * sizeof *w;
    }
    w[3 * rank] = (double)share->m;
    w[3 * rank + 1] = share->weight_min;
    w[3 * rank + 2] = share->weight_max;
    rc = R->allgatherv(R->user, w, off, cnt);
    if (rc != 0) MG__FAIL(ctx, MG_IO_ERROR, "mg_graph: the ranks' weight ranges failed (code %d)", rc);
    double wmin = INFINITY, wmax = -INFINITY;
    for (int r = 0; r < size; r++)
        if (w[3 * r] > 0) {
            wmin = fmin(wmin, w[3 * r + 1]);
            wmax = fmax(wmax, w[3 * r + 2]);
        }
    if (d->m == 0) wmin = wmax = 0;
    share->weight_min = wmin;
    share->weight_max = wmax;
    MG__TRY(high_vertices(ctx, share, d, off, cnt));
    share->build_seconds = omp_get_wtime() - t0;

cleanup:
    mg__free(counts);
    mg__free(w);
    mg__free(off);
    mg__free(cnt);
    return status;
}

/* The end of both builds: every rank's status agreed on, then finish(). Takes share, d (unless
 * share has it) and counts; *g is the share on success. */
static mg_status complete(mg_context ctx, mg_graph *g, mg_status status, mg_graph share,
                          struct mg__graph_dist *d, uint64_t *counts, bool directed, double t0) {
    /* a rank that failed alone must not leave the others waiting in finish's collectives */
    status = mg__dist_agree_status(ctx, status, "mg_graph (split over ranks)");
    if (status == MG_SUCCESS) {
        status = finish(ctx, share, d, counts, directed, t0);
        d = NULL;
        counts = NULL;
    }
    if (status == MG_SUCCESS) {
        *g = share;
        return status;
    }
    mg__free(counts);
    mg__dist_graph_free(d);
    mg_graph_free(&share);
    return status;
}

mg_status mg__dist_build(mg_context ctx, mg_graph *g, const mg__coo *coo, const mg_graph_options *opts) {
    mg_status status = MG_SUCCESS;
    uint64_t *counts = NULL;
    mg_graph share = NULL;
    *g = NULL;
    const double t0 = omp_get_wtime();
    struct mg__graph_dist *d = mg__calloc(1, sizeof *d);
    if (d == NULL) status = mg__error(ctx, MG_OUT_OF_MEMORY, "out of memory splitting a graph");
    else status = build_share(ctx, coo, opts, d, &share, &counts);
    return complete(ctx, g, status, share, d, counts, opts->directed, t0);
}

mg_status mg__dist_build_own(mg_context ctx, mg_graph *g, const mg__coo *own, uint32_t *first, bool directed) {
    mg_status status = MG_SUCCESS;
    mg_graph share = NULL;
    *g = NULL;
    const double t0 = omp_get_wtime();
    struct mg__graph_dist *d = mg__calloc(1, sizeof *d);
    uint64_t *counts = mg__malloc(((size_t)own->n + 1) * sizeof *counts);
    if (d == NULL || counts == NULL) {
        mg__free(first);
        status = mg__error(ctx, MG_OUT_OF_MEMORY, "out of memory splitting a graph");
    } else {
        d->first = first;
        /* the arcs as they are: the file's graph was built with its options already */
        const mg_graph_options local = {.directed = true, .keep_self_loops = true, .keep_duplicates = true};
        status = mg__graph_build(ctx, &share, own, &local);
    }
    return complete(ctx, g, status, share, d, counts, directed, t0);
}

/* Edges a piece of a rank's part travels in, per broadcast: 16M (128-192 MB). */
#define PIECE_EDGES ((uint64_t)1 << 24)

mg_status mg__dist_build_parts(mg_context ctx, mg_graph *g, const mg__coo *part, const mg_graph_options *opts) {
    mg_status status = MG_SUCCESS;
    const mg_ranks *R = &ctx->dist->ranks;
    const int size = R->size, rank = R->rank;
    const uint32_t n = part->n;
    /* the type, not the array: a rank with an empty part has none, and the pieces must be alike */
    const bool weighted = part->weight_type != MG_WEIGHT_NONE;
    const char *what = "mg_graph (split over ranks)";
    uint64_t *in_degree = NULL, *sizes = NULL, *counts = NULL;
    uint32_t *buffer = NULL;
    mg__coo mine;
    memset(&mine, 0, sizeof mine);
    mg_graph share = NULL;
    *g = NULL;
    const double t0 = omp_get_wtime();
    struct mg__graph_dist *d = mg__calloc(1, sizeof *d);

    /* 1. every rank's in-degrees summed: the ranges; every rank's part size */
    const int arrays = weighted ? 3 : 2;
    in_degree = mg__calloc((size_t)n + 1, sizeof *in_degree);
    sizes = mg__calloc((size_t)size, sizeof *sizes);
    buffer = mg__malloc(mg__mul_size((size_t)PIECE_EDGES, 4 * (size_t)arrays));
    if (d != NULL) d->first = mg__malloc(((size_t)size + 1) * sizeof *d->first);
    if (d == NULL || d->first == NULL || in_degree == NULL || sizes == NULL || buffer == NULL)
        status = mg__error(ctx, MG_OUT_OF_MEMORY, "out of memory splitting a graph");
    if (status == MG_SUCCESS) status = mg__coo_init(ctx, &mine, 0, weighted, part->weight_type);
    MG__TRY(mg__dist_agree_status(ctx, status, what));
    add_in_degrees(part, opts, in_degree);
    sizes[rank] = part->m;
    int rc = R->allreduce_sum_u64(R->user, in_degree, n);
    if (rc == 0) rc = R->allreduce_sum_u64(R->user, sizes, (uint64_t)size);
    if (rc != 0) MG__FAIL(ctx, MG_IO_ERROR, "mg_graph: the ranks' sums of in-degrees failed (code %d)", rc);
    mg__dist_choose_ranges(in_degree, n, size, d->first);
    mg__free(in_degree);
    in_degree = NULL;
    const uint32_t lo = d->first[rank], hi = d->first[rank + 1];
    mine.n = n;
    mine.index_base = part->index_base;

    /* 2. every rank's part, piece by piece from its owner to all; each keeps the arcs into its
     * range. A rank that fails (out of memory) goes on taking part and says so at the end. */
    for (int q = 0; q < size; q++)
        for (uint64_t at = 0; at < sizes[q]; at += PIECE_EDGES) {
            const uint64_t count = sizes[q] - at < PIECE_EDGES ? sizes[q] - at : PIECE_EDGES;
            mg__coo piece = {.n = n, .m = count, .capacity = count, .weight_type = part->weight_type};
            if (q == rank) {
                piece.src = part->src + at;
                piece.dst = part->dst + at;
                piece.weights = weighted ? (uint32_t *)part->weights + at : NULL;
            } else {
                piece.src = buffer;
                piece.dst = buffer + PIECE_EDGES;
                piece.weights = weighted ? buffer + 2 * PIECE_EDGES : NULL;
            }
            void *arr[3] = {piece.src, piece.dst, piece.weights};
            for (int k = 0; k < arrays && rc == 0; k++) rc = R->broadcast(R->user, arr[k], count * 4, q);
            if (rc != 0) MG__FAIL(ctx, MG_IO_ERROR, "mg_graph: the ranks' exchange of edges failed (code %d)", rc);
            if (status == MG_SUCCESS) status = append_own_arcs(ctx, &piece, opts, lo, hi, &mine);
        }
    if (status == MG_SUCCESS) status = build_from_arcs(ctx, &mine, opts, &share, &counts);
    status = complete(ctx, g, status, share, d, counts, opts->directed, t0);
    share = NULL;
    d = NULL;
    counts = NULL;

cleanup:
    mg__coo_free(&mine);
    mg__free(in_degree);
    mg__free(sizes);
    mg__free(buffer);
    mg__free(counts);
    mg__dist_graph_free(d);
    mg_graph_free(&share);
    return status;
}

/* ---- the exchanges ------------------------------------------------------------------------------ */

/* Offsets and counts (bytes) of every rank's range of elements of es bytes, in the context's
 * scratch. An exchange runs after its call's agreement: what it allocates it agrees on again before
 * its first collective, so that no rank fails alone while the others wait in it. */
static void ranges(mg_context ctx, const struct mg__graph_dist *d, size_t es, uint64_t **off, uint64_t **cnt) {
    *off = ctx->dist->scratch;
    *cnt = ctx->dist->scratch + d->size;
    for (int r = 0; r < d->size; r++) {
        (*off)[r] = (uint64_t)d->first[r] * es;
        (*cnt)[r] = (uint64_t)(d->first[r + 1] - d->first[r]) * es;
    }
}

mg_status mg__dist_sync_vector(mg_context ctx, mg_vector v) {
    const struct mg__graph_dist *d = v->graph->dist;
    if (d == NULL) return MG_SUCCESS;
    if (v->on_device) return mg__dist_gpu_sync_vector(ctx, v);
    uint64_t *off, *cnt;
    ranges(ctx, d, mg__type_size(v->type), &off, &cnt);
    const mg_ranks *R = &ctx->dist->ranks;
    const int rc = R->allgatherv(R->user, v->data, off, cnt);
    return rc != 0 ? collective_failed(ctx, "exchange of a vector", rc) : MG_SUCCESS;
}

mg_status mg__dist_sync_dense(mg_context ctx, const struct mg_graph_s *g, mg_dense y) {
    mg_status status = MG_SUCCESS;
    uint64_t *off, *cnt;
    ranges(ctx, g->dist, mg__type_size(y->type) * y->cols, &off, &cnt);
    if (y->on_device) {
        status = mg__dist_gpu_exchange(ctx, y->d_data, off, cnt);
    } else {
        const mg_ranks *R = &ctx->dist->ranks;
        const int rc = R->allgatherv(R->user, y->data, off, cnt);
        if (rc != 0) status = collective_failed(ctx, "exchange of a product", rc);
    }
    return status;
}

mg_status mg__dist_sync_frontier(mg_context ctx, mg_frontier f) {
    const struct mg__graph_dist *d = f->graph->dist;
    if (d == NULL) return MG_SUCCESS;
    if (f->on_device) return mg__dist_gpu_sync_frontier(ctx, f);
    mg_status status = mg__frontier_need_bitmap(ctx, f);
    if ((status = mg__dist_agree_status(ctx, status, "the exchange of a frontier")) != MG_SUCCESS) return status;
    /* ranges start at multiples of 64: each is whole words of the bitmap */
    uint64_t *off = ctx->dist->scratch, *cnt = ctx->dist->scratch + d->size;
    for (int r = 0; r < d->size; r++) {
        const uint64_t w0 = d->first[r] / 64, w1 = mg__bitmap_words(d->first[r + 1]);
        off[r] = w0 * 8;
        cnt[r] = (w1 > w0 ? w1 - w0 : 0) * 8;
    }
    const mg_ranks *R = &ctx->dist->ranks;
    const int rc = R->allgatherv(R->user, f->bitmap, off, cnt);
    if (rc != 0) return collective_failed(ctx, "exchange of a frontier", rc);
    const int64_t words = (int64_t)mg__bitmap_words(f->n);
    uint64_t count = 0;
#pragma omp parallel for reduction(+ : count) schedule(static)
    for (int64_t w = 0; w < words; w++) count += (uint64_t)__builtin_popcountll(f->bitmap[w]);
    f->count = (uint32_t)count;
    f->bitmap_valid = true;
    f->list_valid = false;
    return MG_SUCCESS;
}

mg_status mg__dist_sum(mg_context ctx, const struct mg_graph_s *g, mg_status mine, double *value) {
    const struct mg__graph_dist *d = g->dist;
    /* each rank's part as the bits of its own slot, zeros elsewhere: a sum of the slots as
     * integers (one all-reduce) hands every rank every part exactly */
    uint64_t *slots = mg__calloc((size_t)d->size, sizeof *slots);
    mg_status status = mine;
    if (status == MG_SUCCESS && slots == NULL)
        status = mg__error(ctx, MG_OUT_OF_MEMORY, "out of memory adding the ranks' parts");
    status = mg__dist_agree_status(ctx, status, "the ranks' sum");
    if (status == MG_SUCCESS) {
        memcpy(&slots[d->rank], value, sizeof *value);
        const mg_ranks *R = &ctx->dist->ranks;
        const int rc = R->allreduce_sum_u64(R->user, slots, (uint64_t)d->size);
        if (rc != 0) {
            status = collective_failed(ctx, "sum of the ranks' parts", rc);
        } else {
            double s = 0;
            for (int r = 0; r < d->size; r++) {
                double part;
                memcpy(&part, &slots[r], sizeof part);
                s += part;
            }
            *value = s;
        }
    }
    mg__free(slots);
    return status;
}

mg_status mg__dist_agree(mg_context ctx, const struct mg_graph_s *g, mg_status mine, void *value, size_t bytes) {
    if (g->dist == NULL) return mine;
    const mg_status status = mg__dist_agree_status(ctx, mine, "the ranks' agreement on a result");
    if (status != MG_SUCCESS) return status;
    const mg_ranks *R = &ctx->dist->ranks;
    const int rc = R->broadcast(R->user, value, bytes, 0);
    return rc != 0 ? collective_failed(ctx, "broadcast of a result", rc) : MG_SUCCESS;
}

mg_status mg__dist_sync_joined(mg_context ctx, mg_vector y, mg_frontier out) {
    const struct mg__graph_dist *d = y->graph->dist;
    if (d == NULL) return MG_SUCCESS;
    const mg_ranks *R = &ctx->dist->ranks;
    const int size = d->size;
    const size_t es = mg__type_size(y->type);
    mg_status status = MG_SUCCESS;
    uint64_t *count = ctx->dist->scratch;
    uint32_t *ids = NULL;
    char *vals = NULL;
    memset(count, 0, (size_t)size * sizeof *count);
    uint64_t *off = count + size, *bytes = count + 2 * size;
    /* every rank's number of joined vertices (its slot of count) */
    count[d->rank] = out->count;
    for (int r = 0; r < size; r++) {
        off[r] = (uint64_t)r * sizeof *count;
        bytes[r] = sizeof *count;
    }
    int rc = R->allgatherv(R->user, count, off, bytes);
    if (rc != 0) MG__FAIL(ctx, MG_IO_ERROR, "the ranks' exchange of a step's sizes failed (code %d)", rc);
    if (y->on_device || out->on_device) {
        status = mg__dist_gpu_sync_joined(ctx, y, out, count);
        goto cleanup;
    }
    uint64_t total = 0;
    for (int r = 0; r < size; r++) total += count[r];
    status = mg__frontier_need_list(ctx, out);
    if (status == MG_SUCCESS) status = mg__frontier_reserve(ctx, out); /* keeps the list: room for all */
    if (status == MG_SUCCESS) {
        ids = mg__malloc((size_t)total * sizeof *ids + 1);
        vals = mg__malloc((size_t)total * es + 1);
        if (ids == NULL || vals == NULL) status = mg__error(ctx, MG_OUT_OF_MEMORY, "out of memory exchanging a step");
    }
    MG__TRY(mg__dist_agree_status(ctx, status, "the exchange of a step"));
    uint64_t at = 0;
    for (int r = 0; r < d->rank; r++) at += count[r];
    for (uint32_t i = 0; i < out->count; i++) {
        ids[at + i] = out->list[i];
        memcpy(vals + (at + i) * es, (const char *)y->data + (size_t)out->list[i] * es, es);
    }
    for (int pass = 0; pass < 2; pass++) {
        const size_t w = pass ? es : sizeof *ids;
        at = 0;
        for (int r = 0; r < size; r++) {
            off[r] = at * w;
            bytes[r] = count[r] * w;
            at += count[r];
        }
        rc = R->allgatherv(R->user, pass ? (void *)vals : (void *)ids, off, bytes);
        if (rc != 0) MG__FAIL(ctx, MG_IO_ERROR, "the ranks' exchange of a step failed (code %d)", rc);
    }
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < (int64_t)total; i++)
        memcpy((char *)y->data + (size_t)ids[i] * es, vals + i * es, es);
    /* the ranks' joined vertices, disjoint: the whole step's output */
    memcpy(out->list, ids, (size_t)total * sizeof *ids);
    out->count = (uint32_t)total;
    out->list_valid = true;
    out->bitmap_valid = false;
cleanup:
    mg__free(ids);
    mg__free(vals);
    return status;
}
