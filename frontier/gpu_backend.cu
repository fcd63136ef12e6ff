/*
 * gpu_backend.cu — mg_advance on a GPU context. The edge work runs on the GPU: the graph's device
 * form (preprocess/, cached with the graph) and the kernels of sparse_engine.cu. The operands are
 * device-resident (core/gpu_resident.h): x and y in the engine's numbering, the input frontier as a
 * device list, the mask as a device bitmap. An operand still on the host moves to the device once;
 * y and the output frontier (device list + bitmap, count on the host) stay there, so an algorithm's
 * loop moves no whole vector between host and device.
 */
#include <cuda_runtime.h>

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
    a.d_out_list = call->out != NULL ? call->out->d_list : NULL;
    a.d_out_bitmap = call->out != NULL ? call->out->d_bitmap : NULL;
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
