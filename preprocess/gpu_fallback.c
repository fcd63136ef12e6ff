/*
 * gpu_fallback.c — the GPU preprocessing entry points for a build without CUDA: each reports
 * MG_UNAVAILABLE, so the C code and the tests that call them link in CPU-only builds. With CUDA the
 * real ones are in gpu_preprocess.cu and dense_blocks.cu and this file is empty.
 */
#ifndef MG_HAVE_CUDA

#include "preprocess/gpu_preprocess.h"
#include "preprocess/dense_blocks.h"

mg_status mg__gpu_graph_build(mg_context ctx, const mg__coo *coo, const mg_graph_options *opts,
                              mg__gpu_graph *out) {
    (void)coo;
    (void)opts;
    if (out != NULL) memset(out, 0, sizeof *out);
    return mg__error(ctx, MG_UNAVAILABLE, "mg__gpu_graph_build: this build has no CUDA backend");
}

mg_status mg__gpu_graph_build_produced(mg_context ctx, const mg__coo *shape,
                                       const mg__edge_producer *edges, const mg_graph_options *opts,
                                       const mg__gpu_front *front, mg__gpu_graph *out) {
    (void)edges;
    (void)front;
    return mg__gpu_graph_build(ctx, shape, opts, out);
}

mg_status mg__gpu_graph_segment(mg_context ctx, mg__gpu_graph *g, uint32_t seg_size) {
    (void)g;
    (void)seg_size;
    return mg__error(ctx, MG_UNAVAILABLE, "mg__gpu_graph_segment: this build has no CUDA backend");
}

void mg__gpu_graph_free(mg__gpu_graph *g) {
    if (g != NULL) memset(g, 0, sizeof *g);
}

mg_status mg__gpu_copy_to_host(mg_context ctx, void *host, const void *device, size_t bytes) {
    (void)host;
    (void)device;
    (void)bytes;
    return mg__error(ctx, MG_UNAVAILABLE, "mg__gpu_copy_to_host: this build has no CUDA backend");
}

mg_status mg__gpu_dense_build(mg_context ctx, const mg__gpu_graph *g, mg_edges edges,
                              const mg__gpu_dense_params *params, mg__gpu_dense **out) {
    (void)g;
    (void)edges;
    (void)params;
    if (out != NULL) *out = NULL;
    return mg__error(ctx, MG_UNAVAILABLE, "mg__gpu_dense_build: this build has no CUDA backend");
}

mg_status mg__gpu_dense_get(mg_context ctx, mg__gpu_graph *g, mg_edges edges, const mg__gpu_dense **out) {
    (void)g;
    (void)edges;
    if (out != NULL) *out = NULL;
    return mg__error(ctx, MG_UNAVAILABLE, "mg__gpu_dense_get: this build has no CUDA backend");
}

void mg__gpu_dense_get_stats(const mg__gpu_dense *d, mg__gpu_dense_stats *stats) {
    (void)d;
    if (stats != NULL) memset(stats, 0, sizeof *stats);
}

void mg__gpu_dense_free(mg__gpu_dense **d) {
    if (d != NULL) *d = NULL;
}

#else
/* The CUDA build defines these in gpu_preprocess.cu and dense_blocks.cu; keep the translation unit
 * non-empty. */
typedef int mg__gpu_fallback_unused;
#endif
