/*
 * gpu_backend.cu — mg_advance on a GPU context, first form. The edge work runs on the GPU: the
 * graph's device form (preprocess/, cached with the graph) and the kernels of gpu_engine.cu.
 * Vectors and frontiers still live on the host in the caller's numbering and travel with each call:
 * permuted into the engine's numbering on the way in, back on the way out. That is correct for every
 * program and keeps the algorithms unchanged; it costs O(n) transfers per call, which device-resident
 * vectors and frontiers (the next step, docs/ARCHITECTURE.md) remove.
 */
#include <cuda_runtime.h>

extern "C" {
#include "mg_internal.h"
}
#include "frontier/engine.h"
#include "frontier/gpu_engine.h"

namespace {

constexpr int kThreads = 256;

inline unsigned blocks_for(uint64_t n) {
    uint64_t b = (n + kThreads - 1) / kThreads;
    return (unsigned)(b < 65535u * 32u ? (b ? b : 1) : 65535u * 32u);
}

/* dst[new] = src[old_of_new[new]]: caller order -> engine order (element of 4 or 8 bytes). */
template <typename E>
__global__ void to_engine_order(E *dst, const E *src, const uint32_t *old_of_new, uint32_t n) {
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (uint64_t)gridDim.x * blockDim.x)
        dst[i] = src[old_of_new[i]];
}

/* dst[old] = src[new_of_old[old]]: engine order -> caller order. */
template <typename E>
__global__ void to_caller_order(E *dst, const E *src, const uint32_t *new_of_old, uint32_t n) {
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (uint64_t)gridDim.x * blockDim.x)
        dst[i] = src[new_of_old[i]];
}

/* ids[i] = map[ids[i]], and optionally set each mapped id's bit. */
__global__ void map_ids(uint32_t *ids, uint32_t count, const uint32_t *map, uint64_t *bitmap) {
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < count;
         i += (uint64_t)gridDim.x * blockDim.x) {
        uint32_t v = map[ids[i]];
        ids[i] = v;
        if (bitmap != nullptr)
            atomicOr((unsigned long long *)&bitmap[v >> 6], 1ull << (v & 63));
    }
}

/* Device buffers of one call, freed together. */
struct buffers {
    void *p[8] = {};
    int k = 0;
    ~buffers() {
        for (int i = 0; i < k; i++) cudaFree(p[i]);
    }
};

mg_status cu_fail(mg_context ctx, cudaError_t e, const char *what) {
    (void)cudaGetLastError();
    if (e == cudaErrorMemoryAllocation)
        return mg__error(ctx, MG_OUT_OF_MEMORY, "mg_advance: out of device memory: %s", what);
    return mg__error(ctx, MG_DEVICE_ERROR, "mg_advance: %s: %s", what, cudaGetErrorString(e));
}

#define CU(expr)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (expr);                                                                   \
        if (e_ != cudaSuccess) return cu_fail(ctx, e_, #expr);                                     \
    } while (0)
#define LAUNCHED(what) CU((cudaGetLastError()))

mg_status alloc(mg_context ctx, buffers &b, void **ptr, size_t bytes, const char *what) {
    cudaError_t e = cudaMalloc(ptr, bytes ? bytes : 8);
    if (e != cudaSuccess) {
        *ptr = nullptr;
        (void)cudaGetLastError();
        return mg__error(ctx, e == cudaErrorMemoryAllocation ? MG_OUT_OF_MEMORY : MG_DEVICE_ERROR,
                         "mg_advance: cudaMalloc of %zu bytes for %s: %s", bytes, what,
                         cudaGetErrorString(e));
    }
    b.p[b.k++] = *ptr;
    return MG_SUCCESS;
}

#define TRY(call)                                                                                  \
    do {                                                                                           \
        mg_status s_ = (call);                                                                     \
        if (s_ != MG_SUCCESS) return s_;                                                           \
    } while (0)

/* Uploads a host vector (caller order) into dst (engine order), through scratch. */
mg_status upload_values(mg_context ctx, const struct mg_vector_s *v, void *dst, void *scratch,
                        const mg__gpu_graph *gg) {
    const size_t es = mg__type_size(v->type);
    CU(cudaMemcpy(scratch, v->data, (size_t)v->n * es, cudaMemcpyHostToDevice));
    if (es == 4)
        to_engine_order<<<blocks_for(v->n), kThreads>>>((uint32_t *)dst, (const uint32_t *)scratch,
                                                         gg->d_old_of_new, v->n);
    else
        to_engine_order<<<blocks_for(v->n), kThreads>>>((uint64_t *)dst, (const uint64_t *)scratch,
                                                         gg->d_old_of_new, v->n);
    LAUNCHED("to_engine_order");
    return MG_SUCCESS;
}

mg_status download_values(mg_context ctx, struct mg_vector_s *v, const void *src, void *scratch,
                          const mg__gpu_graph *gg) {
    const size_t es = mg__type_size(v->type);
    if (es == 4)
        to_caller_order<<<blocks_for(v->n), kThreads>>>((uint32_t *)scratch, (const uint32_t *)src,
                                                         gg->d_new_of_old, v->n);
    else
        to_caller_order<<<blocks_for(v->n), kThreads>>>((uint64_t *)scratch, (const uint64_t *)src,
                                                         gg->d_new_of_old, v->n);
    LAUNCHED("to_caller_order");
    CU(cudaMemcpy(v->data, scratch, (size_t)v->n * es, cudaMemcpyDeviceToHost));
    return MG_SUCCESS;
}

/* Uploads a frontier's vertices as an engine-numbered list (and bitmap, if asked for). */
mg_status upload_frontier(mg_context ctx, mg_frontier f, uint32_t *d_list, uint64_t *d_bitmap,
                          const mg__gpu_graph *gg) {
    TRY(mg__frontier_need_list(ctx, f));
    if (d_bitmap != nullptr) CU(cudaMemset(d_bitmap, 0, mg__bitmap_words(f->n) * sizeof(uint64_t)));
    if (f->count == 0) return MG_SUCCESS;
    CU(cudaMemcpy(d_list, f->list, (size_t)f->count * sizeof(uint32_t), cudaMemcpyHostToDevice));
    map_ids<<<blocks_for(f->count), kThreads>>>(d_list, f->count, gg->d_new_of_old, d_bitmap);
    LAUNCHED("map_ids");
    return MG_SUCCESS;
}

} // namespace

extern "C" mg_status mg__gpu_run_advance(const mg__advance_call *call, mg_advance_info *info) {
    mg_context ctx = call->ctx;
    mg_graph g = (mg_graph)call->g;
    TRY(mg_graph_gpu_prepare(ctx, g, NULL));
    const mg__gpu_graph *gg = (const mg__gpu_graph *)g->gpu;
    const uint32_t n = g->n;
    const size_t es = mg__type_size(call->y->type);
    const size_t words = mg__bitmap_words(n);
    buffers b;
    void *scratch = nullptr, *d_y = nullptr, *d_x = nullptr;
    uint32_t *d_in = nullptr, *d_mask_list = nullptr, *d_out = nullptr;
    uint64_t *d_mask = nullptr, *d_out_bm = nullptr;

    TRY(alloc(ctx, b, &scratch, (size_t)n * es, "transfers"));
    TRY(alloc(ctx, b, &d_y, (size_t)n * es, "y"));
    TRY(upload_values(ctx, call->y, d_y, scratch, gg));
    if (call->x != NULL && call->x != call->y) {
        TRY(alloc(ctx, b, &d_x, (size_t)n * es, "x"));
        TRY(upload_values(ctx, call->x, d_x, scratch, gg));
    } else if (call->x != NULL) {
        d_x = d_y;
    }
    if (call->in != NULL) {
        TRY(alloc(ctx, b, (void **)&d_in, (size_t)n * sizeof(uint32_t), "the input frontier"));
        TRY(upload_frontier(ctx, call->in, d_in, nullptr, gg));
    }
    if (call->mask != NULL) {
        TRY(alloc(ctx, b, (void **)&d_mask_list, (size_t)n * sizeof(uint32_t), "the mask"));
        TRY(alloc(ctx, b, (void **)&d_mask, words * sizeof(uint64_t), "the mask bitmap"));
        TRY(upload_frontier(ctx, call->mask, d_mask_list, d_mask, gg));
    }
    /* The kernels always produce an output; a caller that wants none just does not get it. */
    TRY(alloc(ctx, b, (void **)&d_out, (size_t)n * sizeof(uint32_t), "the output frontier"));
    TRY(alloc(ctx, b, (void **)&d_out_bm, words * sizeof(uint64_t), "the output bitmap"));

    mg__gpu_advance_args a;
    memset(&a, 0, sizeof a);
    a.g = gg;
    a.program = call->program;
    a.type = call->y->type;
    a.d_in_list = d_in;
    a.in_count = call->in != NULL ? call->in->count : 0;
    a.d_x = d_x;
    a.d_y = d_y;
    a.d_mask = d_mask;
    a.d_out_list = d_out;
    a.d_out_bitmap = d_out_bm;
    TRY(mg__gpu_advance(ctx, &a, info));

    TRY(download_values(ctx, call->y, d_y, scratch, gg));
    if (call->out != NULL) {
        mg_frontier out = call->out;
        TRY(mg__frontier_reserve(ctx, out));
        if (a.out_count > 0) {
            map_ids<<<blocks_for(a.out_count), kThreads>>>(d_out, a.out_count, gg->d_old_of_new,
                                                           nullptr);
            LAUNCHED("map_ids");
            CU(cudaMemcpy(out->list, d_out, (size_t)a.out_count * sizeof(uint32_t),
                          cudaMemcpyDeviceToHost));
        }
        out->count = a.out_count;
        out->list_valid = true;
        out->bitmap_valid = false;
    }
    info->output_vertices = a.out_count;
    return MG_SUCCESS;
}
