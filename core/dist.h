/*
 * dist.h — a context's ranks and a graph split over them (internal; issue 19, mgraph.h's mg_ranks).
 *
 * 1D, destination-owned: rank r owns the vertices [first[r], first[r + 1]) and holds every stored
 * edge into them, so one mg_advance on its share completes its own destinations; vectors and
 * frontiers stay whole and alike on every rank, and after each advance every range goes from its
 * owner to all (mg__dist_sync_*; on the GPU a pull's goes beside it, mg__dist_gpu_overlap_*).
 * Ranges are multiples of 64 vertices (whole bitmap words).
 */
#ifndef MG_DIST_H
#define MG_DIST_H

#include "mg_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

struct mg__dist {
    mg_ranks ranks;
    int device;            /* the rank's CUDA device, -1 where there is none              */
    /* GPU exchanges (core/dist_gpu.cu): the NCCL communicator, made on first use, and a staging
     * array of the vector exchange, kept between calls. */
    void *nccl;
    void *d_stage;
    size_t d_stage_bytes;
    uint32_t *d_count;
    /* an exchange beside a pull (mg__dist_gpu_overlap_*): its stream, and the events that order
     * it after the pull's two parts and the default stream after it; made on first use */
    void *stream;
    void *events[3];
    bool agreed;           /* the call under way has agreed on its status (mg__dist_settle)   */
    bool failure_shared;   /* an agreement of the call under way told every rank of a failure */
    /* 3 * size entries: the exchanges' offsets and counts, made with the ranks, so that an
     * exchange after its call's agreement needs no memory of its own for them */
    uint64_t *scratch;
};

struct mg__graph_dist {
    int rank, size;
    uint32_t *first;          /* size + 1 entries: rank r owns [first[r], first[r + 1])      */
    uint64_t m;               /* the whole graph's stored edges                               */
    bool directed;            /* the whole graph's                                            */
    uint64_t *degree_offsets; /* n + 1: prefix sums of the whole graph's out-degrees          */
    /* Every rank's high vertices (in-degree groups 1-5, mg__degree_group: its share holds all
     * their in-edges), caller ids, rank r's at [high_start[r], high_start[r + 1]) in the order of
     * its device form's groups 1-5 (by group, then id), then as many of its low ones (the first
     * by id) as make their count a multiple of MG__DIST_HIGH_MULTIPLE, where it has them. Each
     * rank's device form numbers its own first and the others' right after (mg__gpu_front), so
     * that every range goes from place to place in two pieces, each 16-byte aligned (NCCL moves
     * misaligned buffers much more slowly; core/dist_gpu.cu). */
    uint32_t *high;
    uint64_t *high_start;     /* size + 1                                                     */
};
#define MG__DIST_HIGH_MULTIPLE 4

/* Whether graphs made on ctx are split (several ranks). */
static inline bool mg__dist_splits(const mg_context ctx) {
    return ctx != NULL && ctx->dist != NULL && ctx->dist->ranks.size > 1;
}

/* The offsets whose differences are the whole graph's out-degrees (a share's own CSR counts only
 * its edges). */
static inline const uint64_t *mg__graph_degree_offsets(const struct mg_graph_s *g) {
    return g->dist != NULL ? g->dist->degree_offsets : g->out.offsets;
}

void mg__dist_free(struct mg__dist *d);
void mg__dist_graph_free(struct mg__graph_dist *d);

/* This rank's share of the graph coo describes (every rank passes the same coo and options). */
mg_status mg__dist_build(mg_context ctx, mg_graph *g, const mg__coo *coo, const mg_graph_options *opts);
/* This rank's share when each rank holds a part of the edge list (part: n the whole graph's,
 * every edge in one rank's part, the same options everywhere): the ranks' in-degrees summed give
 * the ranges, then every part goes piece by piece from its rank to all, each keeping the arcs into
 * its range. The share is the one mg__dist_build makes from the whole list, whatever the parts.
 * A failure on any rank fails all. */
mg_status mg__dist_build_parts(mg_context ctx, mg_graph *g, const mg__coo *part, const mg_graph_options *opts);
/* The ranges of a graph of these in-degrees (n entries) over size ranks: first[size + 1], as
 * mg__dist_build chooses them. */
void mg__dist_choose_ranges(const uint64_t *in_degree, uint32_t n, int size, uint32_t *first);
/* This rank's share from the arcs into its range alone (own: n is the whole graph's, every arc's
 * head in [first[rank], first[rank + 1])), for a reader that read only those; first (size + 1
 * entries, mg__malloc'ed, from mg__dist_choose_ranges) is taken, also on failure. A failure on
 * any rank fails all. */
mg_status mg__dist_build_own(mg_context ctx, mg_graph *g, const mg__coo *own, uint32_t *first, bool directed);

/* After an advance on a split graph: every rank's own range of v (of f) reaches every rank. */
mg_status mg__dist_sync_vector(mg_context ctx, mg_vector v);
mg_status mg__dist_sync_frontier(mg_context ctx, mg_frontier f);
/* The same after a step whose values change only where destinations join out (out != NULL and
 * an apply of MG_APPLY_MIN, MAX, IF_UNSET or ASSIGN): the joined vertices and their values alone
 * go from their owner to every rank (a BFS level moves its frontier, not n values). */
mg_status mg__dist_sync_joined(mg_context ctx, mg_vector y, mg_frontier out);
/* After mg_spmv's product on a view of a share (y: this rank's result, which its arcs complete on
 * its own range) and the ranks' agreement that every product succeeded: every rank's range of y's
 * rows from its owner to every rank, on the host or, device-resident, through NCCL. */
mg_status mg__dist_sync_dense(mg_context ctx, const struct mg_graph_s *g, mg_dense y);
/* A call's status agreed between the ranks before a collective: mine where it failed here, else a
 * failure naming `what` where another rank failed (whose own message says why), else success. So
 * a rank that fails alone (out of memory, a device error) leaves no other waiting for it. */
mg_status mg__dist_agree_status(mg_context ctx, mg_status mine, const char *what);
/* Every collective on a split graph comes after an mg__dist_agree_status, so a rank that failed
 * alone anywhere (mg_ranks_end) meets the others in their next agreement, whatever call they
 * are in, and all fail. */
/* mg_advance's agreement on a split graph, its one per call: advance.c's after the step, or, before
 * a GPU pull that sends its values while it runs (mg__dist_gpu_overlap_*), the engine's, offering
 * that (`overlap`). mg__dist_agree_status's result; then, where all succeeded, *all_overlap: every
 * rank offered. Ranks that offered when another did not go on as if they had not. */
mg_status mg__dist_agree_step(mg_context ctx, mg_status mine, bool overlap, bool *all_overlap);
/* A public call that makes a graph on a context of several ranks starts with mg__dist_begin and
 * ends with mg__dist_settle: a failure before the split's agreement (reading or generating on one
 * rank) takes part in that agreement then, so the others, waiting in it, fail too. */
void mg__dist_begin(mg_context ctx);
mg_status mg__dist_settle(mg_context ctx, mg_status status, const char *what);
/* (An algorithm over the ranks: mg_ranks_begin and mg_ranks_end, mgraph.h.) */
/* *value becomes the sum of every rank's *value, added in rank order (the same bits on every
 * rank), after the ranks agree on the call's status (mine). */
mg_status mg__dist_sum(mg_context ctx, const struct mg_graph_s *g, mg_status mine, double *value);
/* Rank 0's `bytes` at value on every rank: a floating-point result that every rank computed on
 * its own copy (sums on a GPU may differ in the last bits), so that every rank takes the same
 * branch after it; after the ranks agree on the call's status (mine). */
mg_status mg__dist_agree(mg_context ctx, const struct mg_graph_s *g, mg_status mine, void *value, size_t bytes);

/* ---- the GPU's side (core/dist_gpu.cu; without CUDA or NCCL, MG_UNAVAILABLE) ------------------ */

/* The vector exchange on device-resident values, through NCCL. */
mg_status mg__dist_gpu_sync_vector(mg_context ctx, mg_vector v);
/* mg__dist_sync_joined for device-resident y and out; count[r]: rank r's joined vertices. */
mg_status mg__dist_gpu_sync_joined(mg_context ctx, mg_vector y, mg_frontier out, const uint64_t *count);
/* The frontier exchange on a device-resident frontier, through NCCL. */
mg_status mg__dist_gpu_sync_frontier(mg_context ctx, mg_frontier f);
/* The device form's degree offsets in its own numbering (*d_offsets, n + 1 entries, cudaMalloc'ed):
 * what MG_CONTRIB_SRC_DIV_OUTDEG divides by on a share. old_of_new: the form's permutation. */
mg_status mg__dist_gpu_degree_offsets(mg_context ctx, const struct mg_graph_s *g,
                                      const uint32_t *d_old_of_new, uint64_t **d_offsets);
/* The exchange of y beside a pull on a share (frontier/sparse_engine.cu), in the two pieces of
 * each rank's values (core/dist_gpu.cu): _prepare, before the step's agreement
 * (mg__dist_agree_step; what can fail fails there); then, every rank having agreed, from a stream
 * of its own: _low after the own low destinations [own_from, own_to) are pulled on the default
 * stream sends every rank's low values; _high after the high ones [0, H) are pulled sends every
 * rank's high values, and makes the default stream wait for it all. elem: y's value size. */
mg_status mg__dist_gpu_overlap_prepare(mg_context ctx);
mg_status mg__dist_gpu_overlap_low(mg_context ctx, const struct mg_graph_s *g, void *d_y, size_t elem);
mg_status mg__dist_gpu_overlap_high(mg_context ctx, const struct mg_graph_s *g, void *d_y, size_t elem);
/* Every rank's byte range [at[r], at[r] + bytes[r]) of a device buffer in caller order from rank
 * r to all (one NCCL group of broadcasts). */
mg_status mg__dist_gpu_exchange(mg_context ctx, void *d_buffer, const uint64_t *at, const uint64_t *bytes);
/* Whether this build has NCCL (the GPU exchanges). */
bool mg__dist_gpu_available(void);
void mg__dist_gpu_release(struct mg__dist *d);

#ifdef __cplusplus
}
#endif
#endif /* MG_DIST_H */
