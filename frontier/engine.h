/*
 * engine.h — what every engine behind mg_advance provides. advance.c validates the arguments once
 * and hands a checked call to the context's backend.
 */
#ifndef MG_ENGINE_H
#define MG_ENGINE_H

#include "mg_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A step on a rank's share (core/dist.h) whose engine may agree on it itself and send y's values
 * to the other ranks while it runs (the GPU pull: mg__dist_agree_step, mg__dist_gpu_overlap_*);
 * it says here what it did, and advance.c does the rest. */
typedef struct mg__dist_step {
    bool agreed;    /* the step's agreement is made (a failure after it is a device error)      */
    bool exchanged; /* every rank's range of y reached every rank                              */
} mg__dist_step;

typedef struct {
    mg_context ctx;
    const struct mg_graph_s *g;
    const mg_program *program;
    mg_frontier in;    /* NULL: all vertices active         */
    const struct mg_vector_s *x; /* NULL for MG_CONTRIB_SRC_ID */
    struct mg_vector_s *y;
    mg_frontier mask;  /* NULL: every destination eligible   */
    mg_frontier out;   /* NULL: output frontier not wanted   */
    mg__dist_step *dist; /* NULL: the engine leaves a share's agreement and exchange to the caller */
    /* The in-edges (by the pull's offsets) of the mask's members, where the caller knows them
     * (mg_advance_loop keeps the count of a growing mask from step to step): the CPU's push/pull
     * rule then needs no pass over every vertex. */
    bool mask_edges_known;
    uint64_t mask_edges;
} mg__advance_call;

/* mg_advance with the mask's in-edges known (mask_edges; NULL: unknown), for mg_advance_loop. */
mg_status mg__advance(mg_context ctx, const mg_graph g, const mg_program *p, const mg_frontier in,
                      const mg_vector x, mg_vector y, const mg_frontier mask, mg_frontier out,
                      const uint64_t *mask_edges);

/* Programs whose apply the combining atomic does itself (min/min, max/max, any/if-unset, sum/add):
 * an engine's push updates y directly; the others combine into an accumulator first. */
static inline bool mg__program_is_direct(const mg_program *p) {
    switch (p->apply) {
    case MG_APPLY_MIN: return p->combine == MG_COMBINE_MIN || p->combine == MG_COMBINE_ANY;
    case MG_APPLY_MAX: return p->combine == MG_COMBINE_MAX || p->combine == MG_COMBINE_ANY;
    case MG_APPLY_IF_UNSET: return p->combine == MG_COMBINE_ANY;
    case MG_APPLY_ADD: return p->combine == MG_COMBINE_SUM;
    default: return false;
    }
}

mg_status mg__cpu_advance(const mg__advance_call *call, mg_advance_info *info);
/* The CPU engines' direction rule (cpu_engine.c; udf.c runs it too): the sum of the degrees (off)
 * of the listed vertices, and whether a step of a frontier with mf edges should pull rather than
 * push, on a graph of m edges whose eligible destinations (mask_bm, complemented or not; NULL:
 * all) have the in-edges pull_off; stops_early: a pull may stop at a destination's first active
 * source (MG_COMBINE_ANY, MG_UDF_ANY); call: the step (its mask's in-edges, when known). */
uint64_t mg__cpu_degree_sum(const uint64_t *off, const uint32_t *list, int64_t count);
bool mg__cpu_pull_pays(const mg__advance_call *call, uint64_t mf, bool stops_early, const uint64_t *pull_off,
                       const uint64_t *mask_bm, bool complement);
/* User-defined programs (udf.c): the handle's check and type, and the CPU engine that runs them. */
bool mg__udf_check(const struct mg_udf_s *u);
mg_type mg__udf_type(const struct mg_udf_s *u);
mg_status mg__cpu_udf_advance(const mg__advance_call *call, mg_advance_info *info);
/* What the GPU half (udf_gpu.cu) reads and keeps of a definition: its def (snippets and identity
 * are the definition's own copies), its info (the gpu_ fields), its loaded GPU library per device
 * below MG__UDF_GPU_DEVICES (others are looked up by key each step), the JIT's cache folder (fn
 * names the caller in messages) and the hash that names cached files. */
#define MG__UDF_GPU_DEVICES 16
const mg_udf_def *mg__udf_def(const struct mg_udf_s *u);
mg_udf_info *mg__udf_info_of(struct mg_udf_s *u);
const void **mg__udf_gpu_slot(struct mg_udf_s *u, int device);
mg_status mg__udf_cache_dir(mg_context ctx, const char *fn, char *dir, size_t size);
uint64_t mg__udf_hash(uint64_t h, const char *s);
/* The GPU backend (gpu_backend.cu; CUDA builds only). */
mg_status mg__gpu_run_advance(const mg__advance_call *call, mg_advance_info *info);
/* mg_advance_loop's steps from call->in (call->out: scratch) on the device, at most max_steps of
 * them, without the host between steps (mg__gpu_advance_loop), numbered from first_step; *ran = 0
 * when the program or ctx->mode wants every step from the host, or when the first step's frontier
 * is too costly to push. *largest: in, the largest frontier lately (sizes the grids); out, the
 * largest of these steps'. */
mg_status mg__gpu_run_loop(const mg__advance_call *call, const mg_loop_options *o, int64_t first_step,
                           uint32_t max_steps, uint32_t *largest, uint32_t *ran);

#ifdef __cplusplus
}
#endif

#endif
