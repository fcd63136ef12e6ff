/*
 * gpu_engine.h — what the GPU engines share (internal): their argument block and entry points, the
 * sparse-frontier engine (sparse_engine.cu), the dense one (dense_engine.cu) and the plain CSR
 * baseline kernel; the Gunrock-style engine is in baseline_engine.h. Each runs one step of an edge
 * program on a graph's device form (preprocess/gpu_preprocess.h), on raw device arrays in the device
 * numbering.
 *
 * Semantics are exactly those of the CPU engine (frontier/cpu_engine.c): every contribution,
 * combine and apply, MG_EDGES_OUT / MG_EDGES_IN, masks and their complement. Push (MultiGraphS,
 * Sec. 3.5: frontier vertices in groups of 64 per block, three stages of virtual warps of 4 threads,
 * warps and the whole block) when the frontier is small, pull (one thread or one warp per eligible
 * destination) otherwise; ctx->mode forces either. Positions are in the device numbering, but
 * values of MG_CONTRIB_SRC_ID are the caller's ids (d_old_of_new), as docs/ARCHITECTURE.md says.
 *
 * The functions are C-callable; without CUDA (gpu_engine_fallback.c) they return MG_UNAVAILABLE.
 * Wiring into mg_advance (device-resident vectors and frontiers) is not done here.
 */
#ifndef MG_GPU_ENGINE_H
#define MG_GPU_ENGINE_H

#include "mg_internal.h"
#include "../preprocess/gpu_preprocess.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    const mg__gpu_graph *g;          /* device graph (new numbering)                             */
    const mg_program *program;       /* host struct, same semantics as the CPU engine            */
    mg_type type;                    /* value type of x and y (MG_VERTEX counts as int32)        */
    const uint32_t *d_in_list;       /* active sources (new ids, each once), or NULL = every vertex */
    uint32_t in_count;
    const void *d_x;                 /* source values (NULL for MG_CONTRIB_SRC_ID)               */
    void *d_y;                       /* destination values, updated in place (may be d_x)        */
    const uint64_t *d_mask;          /* eligible-destination bitmap (NULL = all); complement via
                                        program->mask_complement                                 */
    const uint32_t *d_mask_list;     /* the mask's vertices, each once, where its list is current
                                        (NULL: not known; a pull may then visit just these)      */
    uint32_t mask_count;
    uint32_t *d_out_list;            /* capacity n: destinations that joined, each once (NULL: not
                                        wanted)                                                   */
    uint64_t *d_out_bitmap;          /* (n+63)/64 words, the same set (NULL: not wanted)          */
    uint32_t out_count;              /* OUT: how many joined                                     */
    /* A rank's share (core/dist.h) whose pull may agree on its step and send y's values to the
     * other ranks while it runs (frontier/engine.h); NULL for a whole graph, a sample, or a step
     * whose caller exchanges. */
    const struct mg_graph_s *share;
    struct mg__dist_step *dist;
} mg__gpu_advance_args;

/* One advance on the current device. Fills info (frontier size and edges, edges scanned, output
 * size, pulled; seconds is left 0). MG_INVALID_ARGUMENT for inconsistent arguments,
 * MG_OUT_OF_MEMORY when scratch memory cannot be had, MG_DEVICE_ERROR naming the failed CUDA call.
 * Scratch device memory is kept in ctx->gpu_workspace for the next call (freed with the context). */
mg_status mg__gpu_advance(mg_context ctx, mg__gpu_advance_args *a, mg_advance_info *info);

/* How mg__gpu_advance_forced steps: push from the frontier (MultiGraphS) or pull into destinations.
 * MG__GPU_STEP_RULE is mg__gpu_advance's own choice (ctx->mode, else its push/pull rule). */
typedef enum { MG__GPU_STEP_RULE = 0, MG__GPU_STEP_PUSH, MG__GPU_STEP_PULL } mg__gpu_step;

/* mg__gpu_advance forced to push or pull. stride > 1 runs a sample of the step, for the hybrid's
 * cost estimates (frontier/gpu_hybrid.cu): push from every stride-th frontier vertex (of the list,
 * or of all vertices), or pull into every stride-th destination (the device numbering sorts them by
 * in-degree group, so the sample spans every group). A sample updates a->d_y and the outputs like a
 * real step; the hybrid passes scratch copies. info describes the sample. */
mg_status mg__gpu_advance_forced(mg_context ctx, mg__gpu_advance_args *a, mg_advance_info *info,
                                 mg__gpu_step how, uint32_t stride);

/* A stretch of mg_advance_loop's steps run on the device without the host (mg__gpu_advance_loop). */
typedef struct {
    uint32_t max_steps;          /* launch at most this many steps (<= MG__GPU_LOOP_MAX_STEPS)        */
    uint32_t grid_hint;          /* the largest frontier expected: sizes the grids (they loop)     */
    uint32_t *d_frontier;        /* in: a->in_count vertices; out: what is left; room for n        */
    void *d_step_of;             /* NULL, or step_of's values (int32 if step_of_32, else int64)     */
    bool step_of_32;
    int64_t first_step;
    uint64_t *d_mask;            /* NULL, or the mask's bitmap, which gains each step's output      */
    uint32_t *d_mask_list;       /* NULL, or the mask's list (mask_count entries, room for n)       */
    uint32_t mask_count;
    uint64_t *d_far;             /* NULL, or the far pile's bitmap (y >= far_from goes there)       */
    uint32_t *d_far_list;        /* NULL, or its list (far_count entries, room for n)               */
    uint32_t far_count;
    double far_from;
    /* OUT */
    uint32_t ran;                /* steps taken (a step found its frontier too costly: not taken)  */
    uint32_t left;               /* the frontier's size after them                                 */
    uint32_t mask_added, far_added;
} mg__gpu_loop;
#define MG__GPU_LOOP_MAX_STEPS 256

/* Up to loop->max_steps steps of a push program (a->program's push updates y directly: MIN, MAX or
 * IF_UNSET; no MG_APPLY_AFFINE) from loop->d_frontier, each step's output handled as
 * mg_advance_loop says, with one wait for the device at the end. A step runs only while its
 * frontier's edges are few enough that the push/pull rule would push without asking (m / 32); the
 * loop stops before the first that is not, leaving it in d_frontier. a->d_out_list and
 * a->d_out_bitmap are scratch (room for n; the bitmap is cleared here and left clear). infos[k]
 * describes step k (room for max_steps). */
mg_status mg__gpu_advance_loop(mg_context ctx, mg__gpu_advance_args *a, mg__gpu_loop *loop,
                               mg_advance_info *infos);

/* The edges of the count vertices of d_list (NULL: every vertex, g->m) along edges, summed on the
 * device and waited for. */
mg_status mg__gpu_frontier_edges(mg_context ctx, const mg__gpu_graph *g, mg_edges edges,
                                 const uint32_t *d_list, uint32_t count, uint64_t *edges_out);

/* One advance through the dense-frontier engine (MultiGraphD, frontier/dense_engine.cu) on d, the
 * dense form of a->g for a->program->edges: the same arguments, semantics and results as
 * mg__gpu_advance (every source of the frontier is processed if active; the output frontier is
 * produced by phase 2). info->pulled is false. */
mg_status mg__gpu_dense_advance(mg_context ctx, const struct mg__gpu_dense *d, mg__gpu_advance_args *a,
                                mg_advance_info *info);

/* The plain CSR baseline (issue 3's comparison kernel, a benchmark comparison, not an engine): the
 * same program semantics, arguments and results as mg__gpu_advance, but always push, with one
 * thread per active source scanning all its edges with global atomics. ctx->mode is ignored. */
mg_status mg__gpu_advance_baseline(mg_context ctx, mg__gpu_advance_args *a, mg_advance_info *info);

/* One step of a user-defined program (a->program->udf; frontier/udf_gpu.cu): compiles or loads its
 * kernels for the current device at first use, then runs the step with udf.c's semantics. The same
 * arguments and results as mg__gpu_advance (ctx->mode: MG_MODE_SPARSE forces the push, which a mode
 * combine, apply_all or MG_EDGES_BOTH cannot run: MG_UNAVAILABLE). MG_UNAVAILABLE for a host-only
 * definition (no snippets), MG_COMPILE_ERROR with NVRTC's log. */
mg_status mg__gpu_udf_advance(mg_context ctx, mg__gpu_advance_args *a, mg_advance_info *info);

/* Generates u's GPU source and compiles it with NVRTC for sm_<arch> without loading it: NVRTC needs
 * no device, so a machine without one checks the kernels' source (tests/unit/test_udf_nvrtc.c).
 * *cubin_bytes: the CUBIN's size. */
mg_status mg__gpu_udf_compile(mg_context ctx, const struct mg_udf_s *u, int arch, size_t *cubin_bytes);

/* A CUDA event pair for timing device work on the default stream (benchmarks): start records the
 * first event, stop records the second, waits for it and gives the milliseconds between.
 * hold, before start, keeps the stream busy for us microseconds (a spinning kernel), so that the
 * timed work is queued while the GPU waits and the events time the GPU's work alone, as in calls
 * issued back to back, not the host's launch of it from an idle GPU. A held sample whose stop was
 * recorded only after the hold's end may include host time: late counts them (and resets; t not
 * NULL). */
typedef struct mg__gpu_timer mg__gpu_timer;
mg_status mg__gpu_timer_create(mg_context ctx, mg__gpu_timer **out);
mg_status mg__gpu_timer_hold(mg_context ctx, mg__gpu_timer *t, double us);
int mg__gpu_timer_late(mg__gpu_timer *t);
mg_status mg__gpu_timer_start(mg_context ctx, mg__gpu_timer *t);
mg_status mg__gpu_timer_stop(mg_context ctx, mg__gpu_timer *t, double *ms);
void mg__gpu_timer_free(mg__gpu_timer **t); /* NULL or *t NULL fine; sets *t NULL */

/* Device memory helpers (tests and the later wiring): allocate (bytes 0 gives NULL), free (NULL
 * fine), copy host -> device. */
mg_status mg__gpu_alloc(mg_context ctx, void **ptr, size_t bytes);
void mg__gpu_free(void *ptr);
mg_status mg__gpu_copy_to_device(mg_context ctx, void *device, const void *host, size_t bytes);

#ifdef __cplusplus
}
#endif
#endif /* MG_GPU_ENGINE_H */
