/*
 * gpu_preprocess.h — the CUDA backend's preprocessing (internal): querying the device, and building
 * the preprocessed graph on the GPU from an edge list (mg__coo) with CUB.
 *
 * The preprocessed graph lives in device memory in a NEW vertex numbering: vertices are ordered by
 * their in-degree group (MultiGraph, Sec. 3.3 and Table 3.1: group 1 in-degree >= 2048,
 * 2: [1024,2048), 3: [512,1024), 4: [256,512), 5: [128,256), 6: < 128), group 1 first, and by old id
 * within a group, so each group is one contiguous range of new ids. The permutation is kept both ways
 * so results can go back to the caller's numbering.
 *
 * The functions are C-callable. In a build without CUDA (MG_HAVE_CUDA undefined) they exist too
 * (preprocess/gpu_fallback.c) and return MG_UNAVAILABLE, so C code and tests link everywhere.
 */
#ifndef MG_GPU_PREPROCESS_H
#define MG_GPU_PREPROCESS_H

#include "mg_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* mg__gpu_info and mg__gpu_query (the device query) live in core: see mg_internal.h. */

/* Number of in-degree groups (Table 3.1; mg__degree_group in mg_internal.h assigns them). */
#define MG__GPU_GROUPS MG__DEGREE_GROUPS
/* Timed phases of the build (mg_gpu_graph_info.phase_seconds). */
#define MG__GPU_BUILD_PHASES 5

/* The preprocessed graph on the device, all ids in the new numbering. Weights are int32_t or float
 * per edge (NULL when unweighted). */
typedef struct {
    int device;                 /* the device the arrays live on                                */
    uint32_t n;
    uint64_t m;                 /* stored directed edges (an undirected edge counts twice)      */
    bool directed;
    mg_weight_type weight_type;
    /* CSR by source: a row's destinations ascending (parallel edges kept: by weight after). */
    uint64_t *d_out_offsets;    /* n + 1 */
    uint32_t *d_out_indices;    /* m     */
    void *d_out_weights;        /* m or NULL */
    /* CSC by destination: a column's sources ascending. For an undirected graph these are the
     * CSR's arrays (in_shares_out), since the symmetrised edge set is its own transpose. */
    uint64_t *d_in_offsets;
    uint32_t *d_in_indices;
    void *d_in_weights;
    bool in_shares_out;
    /* A rank's share of a split graph (core/dist.h): n + 1 offsets whose differences are the whole
     * graph's out-degrees, in this form's numbering (what MG_CONTRIB_SRC_DIV_OUTDEG divides by);
     * NULL for a whole graph. */
    uint64_t *d_degree_offsets;
    uint32_t *d_new_of_old;     /* n: new id of each caller vertex */
    uint32_t *d_old_of_new;     /* n: caller id of each new vertex */
    /* Group g (1..6) holds the new ids [group_start[g-1], group_start[g]); group_start[0] = 0 and
     * group_start[6] = n. group_edges[g-1]: in-edges of group g's vertices. */
    uint32_t group_start[MG__GPU_GROUPS + 1];
    uint64_t group_edges[MG__GPU_GROUPS];
    /* The destinations of group 6 that a step can change: all of it, [group_start[5], n), on a
     * whole graph. On a rank's share (core/dist.h) every other rank's vertex has no edge in, so
     * all of them are in group 6: first the other ranks' high vertices (its front), then every
     * low vertex in caller order, this rank's own [own_from, own_to) among them; a pull passes
     * the others by (their values come from their owners after the step). */
    uint32_t own_from, own_to;
    uint32_t max_out_degree, max_in_degree;
    size_t device_bytes;        /* all the device memory the graph holds                        */
    size_t csr_bytes;           /* a plain CSR: (n+1)*8 + m*4 (+ m*4 weights)                   */
    double seconds;             /* preprocessing from the edge list on the device (CUDA events) */
    double upload_seconds;      /* the edge list's copy to the device before it                 */
    double phase_seconds[MG__GPU_BUILD_PHASES]; /* seconds's phases: expand, sort, renumber, csc, csr */
    /* Destination segments for the push's shared-memory atomics (Sec. 3.5, Figure 3.7): the
     * destinations of groups 1-4, new ids [0, group_start[4]), cut into seg_count segments of
     * seg_size ids (the last may be shorter), seg_size chosen so that a segment's values (8 bytes
     * each) and touched bits fit one block's opt-in shared memory. Rows are sorted by destination,
     * so a source's edges into one segment are contiguous in the CSR: d_seg_ptr[s * (seg_count + 1)
     * + j] (j = 0..seg_count) is the offset within row s of its first edge into segment j, and
     * entry seg_count that of its first edge to a group 5-6 destination. seg_count 0 and
     * d_seg_ptr NULL when groups 1-4 are empty (or m >= 2^32). Counted in device_bytes. */
    uint32_t seg_size, seg_count;
    uint32_t *d_seg_ptr;        /* n * (seg_count + 1) */
    size_t seg_bytes;
    /* The dense-frontier form (MultiGraphD, preprocess/dense_blocks.h), one per edge direction
     * (indexed by mg_edges), built on first use by the engine and freed with the graph. Not counted
     * in device_bytes (mg__gpu_dense_get_stats reports its own). */
    struct mg__gpu_dense *dense[2];
    bool dense_unfit[2];        /* its build failed for size (out of memory or the form's limits):
                                   the auto and hybrid modes go on without it, not trying again */
    /* What the hybrid (frontier/gpu_hybrid.cu) learnt of this graph, per program shape and kind
     * (key): the dense engine's cost of a step (the thesis' EDP, measured once), the fixed parts of
     * push and pull steps, and per frontier size class (vertices and edges, classes kReuse apart)
     * the sampled estimates and the measured times of the modes that ran. Zeroed with the graph. */
    struct {
        uint32_t key;             /* 0: unused                                                  */
        uint16_t vertex_class, edge_class; /* a step's frontier size classes                    */
        float est_ms[3];          /* sparse, pull, dense (a fixed part: [0]); dense < 0 when the
                                     form did not fit                                           */
        float ran_ms[3];          /* a step's time in that mode when it last ran (0: not yet)   */
    } hybrid_memo[128];
    uint32_t hybrid_memos;
} mg__gpu_graph;

/* Builds out from coo on the current device, with the CPU builder's rules (core/graph.c): when
 * !opts->directed every edge is added in both directions (a self-loop once); self-loops are dropped
 * unless opts->keep_self_loops; of parallel edges one is kept, with the least weight, unless
 * opts->keep_duplicates. opts NULL: mg_graph_options_init's defaults. On failure out is zeroed and
 * nothing stays allocated; MG_OUT_OF_MEMORY when device memory runs out, MG_DEVICE_ERROR naming the
 * CUDA call otherwise. */
mg_status mg__gpu_graph_build(mg_context ctx, const mg__coo *coo, const mg_graph_options *opts,
                              mg__gpu_graph *out);

/* An edge list made on demand: fill writes edges [first, first + count) into src, dst and, for a
 * weighted list, w (4-byte weights; NULL otherwise). */
typedef struct {
    void (*fill)(const void *arg, uint64_t first, uint64_t count, uint32_t *src, uint32_t *dst,
                 uint32_t *w);
    const void *arg;
} mg__edge_producer;

/* Vertices of group 6 to be numbered right after groups 1-5 in this order, ahead of the rest of
 * group 6 (which keeps its order); the first `own` of them join group 5 (pulled with the high
 * ones). On a rank's share (core/dist.h): its own fill, then the other ranks' high vertices, which
 * have no edge in there. ids: host memory, count entries, each once. */
typedef struct {
    const uint32_t *ids;
    uint64_t count, own;
} mg__gpu_front;

/* mg__gpu_graph_build from a producer rather than host arrays: shape gives the list's n, m,
 * weight_type and index_base (its arrays NULL). The list is made chunk by chunk into pinned
 * buffers and each chunk uploads while the next is made, so making and uploading it overlap and no
 * whole host copy of it exists (mg_graph_gpu_prepare's path: its edges come from a built graph).
 * front: NULL, or vertices to number first in group 6. */
mg_status mg__gpu_graph_build_produced(mg_context ctx, const mg__coo *shape,
                                       const mg__edge_producer *edges, const mg_graph_options *opts,
                                       const mg__gpu_front *front, mg__gpu_graph *out);

/* (Re)builds g's destination segments (the fields seg_*): seg_size 0 derives the size from the
 * device's opt-in shared memory per block; another value forces it (tests use small ones to get
 * several segments and a short last one). mg__gpu_graph_build calls it with 0. On failure
 * the graph keeps no segments (the engine then uses global atomics only). */
mg_status mg__gpu_graph_segment(mg_context ctx, mg__gpu_graph *g, uint32_t seg_size);

/* Frees the device arrays and zeroes g (NULL or a zeroed graph is fine). */
void mg__gpu_graph_free(mg__gpu_graph *g);

/* Copies bytes from device memory to host memory (for tests and result read-back). */
mg_status mg__gpu_copy_to_host(mg_context ctx, void *host, const void *device, size_t bytes);

#ifdef __cplusplus
}
#endif
#endif /* MG_GPU_PREPROCESS_H */
