/*
 * gpu_backend.cu — mg_advance on a GPU context. The edge work runs on the GPU: the graph's device
 * form (preprocess/, cached with the graph) and the kernels of sparse_engine.cu. The operands are
 * device-resident (core/gpu_resident.h): x and y in the engine's numbering, the input frontier as a
 * device list, the mask as a device bitmap. An operand still on the host moves to the device once;
 * y and the output frontier (device list + bitmap, count on the host) stay there, so an algorithm's
 * loop moves no whole vector between host and device.
 */
#include <cuda_runtime.h>
#include <omp.h>

extern "C" {
#include "mg_internal.h"
#include "core/gpu_resident.h"
}
#include "frontier/engine.h"
#include "frontier/gpu_engine.h"
#include "frontier/gpu_hybrid.h"
#include "frontier/baseline_engine.h"

#define TRY(call)                                                                                  \
    do {                                                                                           \
        mg_status s_ = (call);                                                                     \
        if (s_ != MG_SUCCESS) return s_;                                                           \
    } while (0)

extern "C" mg_status mg__gpu_run_advance(const mg__advance_call *call, mg_advance_info *info) {
    mg_context ctx = call->ctx;
    mg_graph g = (mg_graph)call->g;
    TRY(mg_graph_gpu_prepare(ctx, g, NULL));
    const mg__gpu_graph *gg = (const mg__gpu_graph *)g->gpu;

    TRY(mg__gpu_vector_to_device(ctx, call->y));
    if (call->x != NULL) TRY(mg__gpu_vector_to_device(ctx, (mg_vector)call->x));
    if (call->in != NULL) TRY(mg__gpu_frontier_need_dlist(ctx, call->in));
    if (call->mask != NULL) TRY(mg__gpu_frontier_need_dbitmap(ctx, call->mask));
    /* out differs from in and mask (mg_advance checks), so reserving it disturbs neither */
    if (call->out != NULL) TRY(mg__gpu_frontier_reserve_device(ctx, call->out));

    mg__gpu_advance_args a;
    memset(&a, 0, sizeof a);
    a.g = gg;
    a.program = call->program;
    a.type = call->y->type;
    a.d_in_list = call->in != NULL ? call->in->d_list : NULL; /* never NULL for a frontier */
    a.in_count = call->in != NULL ? call->in->count : 0;
    a.d_x = call->x != NULL ? call->x->d_data : NULL;
    a.d_y = call->y->d_data;
    a.d_mask = call->mask != NULL ? call->mask->d_bitmap : NULL;
    if (call->mask != NULL && call->mask != call->out && call->mask->on_device && call->mask->d_list_valid) {
        a.d_mask_list = call->mask->d_list;
        a.mask_count = call->mask->count;
    }
    a.d_out_list = call->out != NULL ? call->out->d_list : NULL;
    a.d_out_bitmap = call->out != NULL ? call->out->d_bitmap : NULL;
    if (call->dist != NULL) {
        a.share = g;
        a.dist = call->dist;
    }
    /* a user-defined program through its NVRTC-compiled kernels (udf_gpu.cu); else MultiGraph's
     * engines through the hybrid (gpu_hybrid.cu: ctx->mode forces one, else the cheapest by
     * sampling), or the Gunrock-style baseline with its own push/pull rule */
    if (call->program->udf != NULL) TRY(mg__gpu_udf_advance(ctx, &a, info));
    else if (ctx->engine == MG_ENGINE_BASELINE) TRY(mg__gpu_lb_advance(ctx, &a, info));
    else TRY(mg__gpu_hybrid_advance(ctx, (mg__gpu_graph *)gg, &a, info));

    if (call->out != NULL) {
        call->out->count = a.out_count;
        call->out->d_list_valid = call->out->d_bitmap_valid = true;
    }
    info->output_vertices = a.out_count;
    return MG_SUCCESS;
}

extern "C" mg_status mg__gpu_run_loop(const mg__advance_call *call, const mg_loop_options *o, int64_t first_step,
                                      uint32_t max_steps, uint32_t *largest, uint32_t *ran) {
    mg_context ctx = call->ctx;
    const mg_program *p = call->program;
    *ran = 0;
    /* the loop is the sparse engine's push: a forced pull or dense mode, the baseline engine and
     * user-defined programs take their steps one by one */
    const bool direct = mg__program_is_direct(p) && (p->apply == MG_APPLY_MIN || p->apply == MG_APPLY_MAX ||
                                                     p->apply == MG_APPLY_IF_UNSET);
    if (!direct || p->udf != NULL || ctx->engine == MG_ENGINE_BASELINE || ctx->mode == MG_MODE_PULL ||
        ctx->mode == MG_MODE_DENSE || max_steps == 0)
        return MG_SUCCESS;
    mg_graph g = (mg_graph)call->g;
    TRY(mg_graph_gpu_prepare(ctx, g, NULL));
    const mg__gpu_graph *gg = (const mg__gpu_graph *)g->gpu;
    mg_frontier in = (mg_frontier)call->in, mask = call->mask, far = o->far, out = call->out;
    TRY(mg__gpu_vector_to_device(ctx, call->y));
    if (call->x != NULL) TRY(mg__gpu_vector_to_device(ctx, (mg_vector)call->x));
    if (o->step_of != NULL) TRY(mg__gpu_vector_to_device(ctx, o->step_of));
    TRY(mg__gpu_frontier_need_dlist_room(ctx, in));
    if (mask != NULL) TRY(mg__gpu_frontier_need_dbitmap(ctx, mask));
    if (mask != NULL && o->mask_grows && mask->d_list_valid) TRY(mg__gpu_frontier_need_dlist_room(ctx, mask));
    if (far != NULL) {
        TRY(mg__gpu_frontier_need_dbitmap(ctx, far));
        if (far->d_list_valid) TRY(mg__gpu_frontier_need_dlist_room(ctx, far));
    }
    TRY(mg__gpu_frontier_reserve_device(ctx, out));

    mg__gpu_advance_args a;
    memset(&a, 0, sizeof a);
    a.g = gg;
    a.program = p;
    a.type = call->y->type;
    a.d_in_list = in->d_list;
    a.in_count = in->count;
    a.d_x = call->x != NULL ? call->x->d_data : NULL;
    a.d_y = call->y->d_data;
    a.d_mask = mask != NULL ? mask->d_bitmap : NULL;
    a.d_out_list = out->d_list;
    a.d_out_bitmap = out->d_bitmap;
    mg__gpu_loop L;
    memset(&L, 0, sizeof L);
    L.max_steps = max_steps < MG__GPU_LOOP_MAX_STEPS ? max_steps : MG__GPU_LOOP_MAX_STEPS;
    L.grid_hint = *largest;
    L.d_frontier = in->d_list;
    if (o->step_of != NULL) {
        L.d_step_of = o->step_of->d_data;
        L.step_of_32 = o->step_of->type == MG_INT32;
        L.first_step = first_step;
    }
    if (mask != NULL && o->mask_grows) {
        L.d_mask = mask->d_bitmap;
        L.d_mask_list = mask->d_list_valid ? mask->d_list : NULL;
        L.mask_count = mask->count;
    }
    if (far != NULL) {
        L.d_far = far->d_bitmap;
        L.d_far_list = far->d_list_valid ? far->d_list : NULL;
        L.far_count = far->count;
        L.far_from = o->far_from;
    }
    mg_advance_info infos[MG__GPU_LOOP_MAX_STEPS];
    const double t0 = omp_get_wtime();
    TRY(mg__gpu_advance_loop(ctx, &a, &L, infos));
    const double seconds = omp_get_wtime() - t0;

    in->count = L.left;
    in->d_list_valid = true;
    in->d_bitmap_valid = false;
    out->count = 0;
    out->d_list_valid = out->d_bitmap_valid = false;
    if (L.d_mask != NULL) mask->count += L.mask_added;
    if (far != NULL) far->count += L.far_added;
    *largest = L.left;
    for (uint32_t k = 0; k < L.ran; k++) {
        infos[k].seconds = seconds / L.ran;
        if (infos[k].frontier_vertices > *largest) *largest = infos[k].frontier_vertices;
        if (ctx->trace != NULL) ctx->trace(&infos[k], ctx->trace_user);
    }
    if (L.ran > 0) ctx->last_advance = infos[L.ran - 1];
    *ran = L.ran;
    return MG_SUCCESS;
}
