/*
 * advance.c — mg_advance: checks an edge program and its operands once, then runs it on the
 * context's backend (the CPU engine today; the GPU engines plug in here).
 */
#include "engine.h"
#include "core/dist.h"
#ifdef MG_HAVE_CUDA
#include "core/gpu_resident.h"
#endif

#include <omp.h>

void mg_program_init(mg_program *p) {
    if (p == NULL) return;
    memset(p, 0, sizeof *p);
    p->contribution = MG_CONTRIB_SRC;
    p->combine = MG_COMBINE_MIN;
    p->apply = MG_APPLY_MIN;
    p->edges = MG_EDGES_OUT;
    p->alpha = 1.0;
    p->beta = 0.0;
    p->epsilon = 0.0;
    p->unset = -1.0;
    p->mask_complement = false;
}

static bool is_integer(mg_type t) { return t == MG_INT32 || t == MG_VERTEX || t == MG_INT64; }
static bool same_type(mg_type a, mg_type b) {
    return a == b || (a != MG_INT64 && b != MG_INT64 && is_integer(a) && is_integer(b));
}

#define ADV "mg_advance: "

mg_status mg_advance(mg_context ctx, const mg_graph g, const mg_program *p, const mg_frontier in,
                     const mg_vector x, mg_vector y, const mg_frontier mask, mg_frontier out) {
    return mg__advance(ctx, g, p, in, x, y, mask, out, NULL);
}

mg_status mg__advance(mg_context ctx, const mg_graph g, const mg_program *p, const mg_frontier in,
                      const mg_vector x, mg_vector y, const mg_frontier mask, mg_frontier out,
                      const uint64_t *mask_edges) {
    mg_status status = mg__check_context(ctx);
    if (status != MG_SUCCESS) return status;
    if ((status = mg__check_graph(ctx, g, ADV "g")) != MG_SUCCESS) return status;
    if (p == NULL) return mg__error(ctx, MG_INVALID_ARGUMENT, ADV "program is NULL");
    if (p->udf != NULL) {
        if (!mg__udf_check(p->udf))
            return mg__error(ctx, MG_INVALID_OBJECT, ADV "program->udf is not a live mg_udf");
        if (x == NULL) return mg__error(ctx, MG_INVALID_ARGUMENT, ADV "a user-defined program needs x");
    }
    if ((unsigned)p->contribution > MG_CONTRIB_SRC_ID)
        return mg__error(ctx, MG_INVALID_ARGUMENT, ADV "unknown contribution %d", (int)p->contribution);
    if ((unsigned)p->combine > MG_COMBINE_ANY)
        return mg__error(ctx, MG_INVALID_ARGUMENT, ADV "unknown combine %d", (int)p->combine);
    if ((unsigned)p->apply > MG_APPLY_AFFINE)
        return mg__error(ctx, MG_INVALID_ARGUMENT, ADV "unknown apply %d", (int)p->apply);
    if (p->edges != MG_EDGES_OUT && p->edges != MG_EDGES_IN && !(p->edges == MG_EDGES_BOTH && p->udf))
        return mg__error(ctx, MG_INVALID_ARGUMENT, ADV "unknown edge direction %d", (int)p->edges);
    if ((status = mg__check_vector(ctx, y, ADV "y")) != MG_SUCCESS) return status;
    if (y->graph != g) return mg__error(ctx, MG_INVALID_ARGUMENT, ADV "y belongs to another graph");
    if (p->udf != NULL && !same_type(y->type, mg__udf_type(p->udf)))
        return mg__error(ctx, MG_INVALID_ARGUMENT, ADV "y's value type differs from program->udf's");
    if (p->contribution == MG_CONTRIB_SRC_ID && p->udf == NULL) {
        if (!is_integer(y->type))
            return mg__error(ctx, MG_INVALID_ARGUMENT,
                             ADV "MG_CONTRIB_SRC_ID needs an integer y (MG_VERTEX, MG_INT32, MG_INT64)");
    } else {
        if ((status = mg__check_vector(ctx, x, ADV "x")) != MG_SUCCESS) return status;
        if (x->graph != g) return mg__error(ctx, MG_INVALID_ARGUMENT, ADV "x belongs to another graph");
        if (!same_type(x->type, y->type))
            return mg__error(ctx, MG_INVALID_ARGUMENT, ADV "x and y have different value types");
    }
    if (p->contribution == MG_CONTRIB_SRC_DIV_OUTDEG && is_integer(y->type) && p->udf == NULL)
        return mg__error(ctx, MG_INVALID_ARGUMENT,
                         ADV "MG_CONTRIB_SRC_DIV_OUTDEG needs MG_FLOAT or MG_DOUBLE values");
    if (in != NULL) {
        if ((status = mg__check_frontier(ctx, in, ADV "in")) != MG_SUCCESS) return status;
        if (in->graph != g) return mg__error(ctx, MG_INVALID_ARGUMENT, ADV "in belongs to another graph");
    }
    if (mask != NULL) {
        if ((status = mg__check_frontier(ctx, mask, ADV "mask")) != MG_SUCCESS) return status;
        if (mask->graph != g)
            return mg__error(ctx, MG_INVALID_ARGUMENT, ADV "mask belongs to another graph");
    }
    if (out != NULL) {
        if ((status = mg__check_frontier(ctx, out, ADV "out")) != MG_SUCCESS) return status;
        if (out->graph != g)
            return mg__error(ctx, MG_INVALID_ARGUMENT, ADV "out belongs to another graph");
        if (out == in || out == mask)
            return mg__error(ctx, MG_INVALID_ARGUMENT, ADV "out must differ from in and mask");
    }

    mg_program on_share;
    if (g->dist != NULL) {
        if (p->udf != NULL)
            return mg__error(ctx, MG_UNAVAILABLE,
                             ADV "user-defined programs do not run on a split graph yet (several ranks)");
        if (p->edges == MG_EDGES_IN && g->dist->directed)
            return mg__error(ctx, MG_UNAVAILABLE,
                             ADV "MG_EDGES_IN on a directed graph split over ranks: a rank holds the "
                                 "edges into its vertices only (make the graph undirected)");
        /* a share is stored directed; on an undirected graph the reversed edges are the same ones */
        on_share = *p;
        on_share.edges = MG_EDGES_OUT;
        p = &on_share;
    }
    /* on a split graph, a step without an output may have its exchange run beside it */
    mg__dist_step dist = {false, false};
    mg__advance_call call = {ctx, g, p, in, x, y, mask, out, g->dist != NULL && out == NULL ? &dist : NULL,
                             mask != NULL && mask_edges != NULL, mask_edges != NULL ? *mask_edges : 0};
    mg_advance_info info;
    memset(&info, 0, sizeof info);
    double t0 = omp_get_wtime();
    switch (ctx->backend) {
    case MG_BACKEND_CPU:
    case MG_BACKEND_AUTO:
#ifdef MG_HAVE_CUDA
        /* the CPU engine reads the values on the host (frontiers come back through
         * mg__frontier_need_list / need_bitmap) */
        if (x != NULL && x->on_device) status = mg__gpu_vector_to_host(ctx, x);
        if (status == MG_SUCCESS && y->on_device) status = mg__gpu_vector_to_host(ctx, y);
        if (status != MG_SUCCESS) break;
#endif
        status = p->udf != NULL ? mg__cpu_udf_advance(&call, &info) : mg__cpu_advance(&call, &info);
        break;
    case MG_BACKEND_GPU:
#ifdef MG_HAVE_CUDA
        status = mg__gpu_run_advance(&call, &info);
#else
        status = mg__error(ctx, MG_UNAVAILABLE, ADV "this build has no CUDA backend");
#endif
        break;
    }
    /* a split graph's ranks each completed their own destinations: every rank gets them all. A
     * share has edges into its rank's vertices only, so only those can join out or change; where
     * the apply changes no value without joining, the joined ones and their values are enough. */
    if (g->dist != NULL && !dist.agreed) {
        bool all;
        status = mg__dist_agree_step(ctx, status, false, &all);
    }
    if (status == MG_SUCCESS && g->dist != NULL && !dist.exchanged) {
        const bool joined_only = out != NULL && (p->apply == MG_APPLY_MIN || p->apply == MG_APPLY_MAX ||
                                                 p->apply == MG_APPLY_IF_UNSET || p->apply == MG_APPLY_ASSIGN);
        if (joined_only) {
            status = mg__dist_sync_joined(ctx, y, out);
        } else {
            status = mg__dist_sync_vector(ctx, y);
            if (status == MG_SUCCESS && out != NULL) status = mg__dist_sync_frontier(ctx, out);
        }
        if (out != NULL) info.output_vertices = out->count;
    }
    info.seconds = omp_get_wtime() - t0;
    if (status == MG_SUCCESS) {
        ctx->last_advance = info;
        if (ctx->trace != NULL) ctx->trace(&info, ctx->trace_user);
    }
    return status;
}
