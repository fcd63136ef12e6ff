/*
 * gpu_hybrid.h — MultiGraph's hybrid engine (thesis Sec. 3.6, Algorithm 6), internal: runs one step
 * of an edge program on the GPU in the mode that ctx->mode forces, by the engines' rules in
 * MG_MODE_AUTO, or, in MG_MODE_HYBRID, in the one whose sampled cost is least: push from the frontier (MultiGraphS), pull into the
 * destinations (bottom-up, stopping at the first active source for MG_COMBINE_ANY), or the dense
 * engine (MultiGraphD). See gpu_hybrid.cu for how the costs are sampled.
 */
#ifndef MG_GPU_HYBRID_H
#define MG_GPU_HYBRID_H

#include "frontier/gpu_engine.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One step with the arguments and results of mg__gpu_advance; info also gets the hybrid's
 * estimates (info->sampled). g is not const: the dense form and the hybrid's memo are cached on it. */
mg_status mg__gpu_hybrid_advance(mg_context ctx, mg__gpu_graph *g, mg__gpu_advance_args *a,
                                 mg_advance_info *info);

#ifdef __cplusplus
}
#endif
#endif /* MG_GPU_HYBRID_H */
