/*
 * baseline_engine.h — the Gunrock-style baseline GPU engine (internal, issue 5): one step of an edge
 * program on a graph's device form, with exactly the semantics of mg__gpu_advance (gpu_engine.h;
 * the reference is the CPU engine, frontier/cpu_engine.c), computed the way the established GPU
 * graph frameworks do it rather than the MultiGraph way:
 *
 *  - push (Gunrock's load-balanced advance, "LB"; Merrill and Garland's merge-path partitioning):
 *    the frontier's degrees are scanned with CUB, every block takes an equal slice of the merged
 *    sequence of frontier vertices and frontier edges, finds each edge's source by binary search in
 *    the scanned offsets, and updates destinations with global atomics; the next frontier is culled
 *    with a bitmap (duplicates removed) and compacted block by block (Gunrock's fused LB_CULL);
 *  - pull (direction-optimised BFS and all-active steps): a plain CSC pull over the eligible
 *    destinations — a thread (or, past 32 in-edges, a warp) per destination that stops at the
 *    first active source for MG_COMBINE_ANY (and combines all of them for other combines when no
 *    in-degree passes 32), otherwise the same merge-path partitioning over the destinations'
 *    in-edges with per-warp segmented reductions into an accumulator;
 *  - the choice: ctx->mode MG_MODE_SPARSE always pushes (BFS without direction optimisation),
 *    MG_MODE_PULL / MG_MODE_DENSE always pull; MG_MODE_AUTO pulls every all-active or affine step and
 *    switches MG_COMBINE_ANY programs (BFS) with Beamer's direction-optimising rule, as Gunrock's
 *    DOBFS does; other programs push, as Gunrock's SSSP, BC and CC do.
 *
 * It uses only the CSR and CSC of mg__gpu_graph (not its degree groups or segments). The function
 * is C-callable; without CUDA (baseline_engine_fallback.c) it returns MG_UNAVAILABLE.
 */
#ifndef MG_BASELINE_ENGINE_H
#define MG_BASELINE_ENGINE_H

#include "gpu_engine.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One advance: the arguments, results and errors of mg__gpu_advance. Scratch device memory comes
 * from the device's stream-ordered memory pool (cudaMallocAsync) and goes back to it before the
 * call returns. The direction-optimising rule needs the previous step's direction and frontier size:
 * they are read from ctx->last_advance, which this function sets to its own info on success (as
 * mg_advance does), so a caller looping over levels directly carries them too. */
mg_status mg__gpu_lb_advance(mg_context ctx, mg__gpu_advance_args *a, mg_advance_info *info);

#ifdef __cplusplus
}
#endif
#endif /* MG_BASELINE_ENGINE_H */
