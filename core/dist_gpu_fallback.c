/*
 * dist_gpu_fallback.c — the GPU side of dist.h in a build without CUDA: no device to exchange on
 * (core/dist_gpu.cu is the real one).
 */
#include "dist.h"

#ifndef MG_HAVE_CUDA

bool mg__dist_gpu_available(void) { return false; }
void mg__dist_gpu_release(struct mg__dist *d) { (void)d; }

mg_status mg__dist_gpu_exchange(mg_context ctx, void *d_buffer, const uint64_t *at,
                                const uint64_t *bytes) {
    (void)d_buffer, (void)at, (void)bytes;
    return mg__error(ctx, MG_UNAVAILABLE, "this build has no CUDA backend");
}

mg_status mg__dist_gpu_sync_vector(mg_context ctx, mg_vector v) {
    (void)v;
    return mg__error(ctx, MG_UNAVAILABLE, "this build has no CUDA backend");
}

mg_status mg__dist_gpu_sync_joined(mg_context ctx, mg_vector y, mg_frontier out,
                                    const uint64_t *count) {
    (void)y;
    (void)out;
    (void)count;
    return mg__error(ctx, MG_UNAVAILABLE, "this build has no CUDA backend");
}

mg_status mg__dist_gpu_sync_frontier(mg_context ctx, mg_frontier f) {
    (void)f;
    return mg__error(ctx, MG_UNAVAILABLE, "this build has no CUDA backend");
}

mg_status mg__dist_gpu_degree_offsets(mg_context ctx, const struct mg_graph_s *g,
                                      const uint32_t *d_old_of_new, uint64_t **d_offsets) {
    (void)g;
    (void)d_old_of_new;
    *d_offsets = NULL;
    return mg__error(ctx, MG_UNAVAILABLE, "this build has no CUDA backend");
}

#endif
