/*
 * dist_gpu.cu — the exchanges of a split graph between the ranks' GPUs, through NCCL (dist.h).
 *
 * A device-resident vector or frontier is in its device form's numbering, which differs between
 * ranks only in where the high vertices are (each share's form numbers its own first,
 * preprocess/gpu_graph.c): every rank's low vertices come after all high ones in caller order, so
 * a vector's exchange is, for each rank, two NCCL broadcasts from place to place, its high values
 * and its low ones (one group of 2P broadcasts: an allgather of unequal blocks, no copy). A pull's
 * exchange runs beside it in those two parts (mg__dist_gpu_overlap_*, dist.h). A frontier goes as
 * a caller-numbered bitmap (ranges are whole words), then back to a device list.
 */
#include <cuda_runtime.h>

extern "C" {
#include "mg_internal.h"
#include "dist.h"
#include "gpu_resident.h"
}
#include "preprocess/gpu_preprocess.h"

#ifdef MG_HAVE_NCCL
#include <nccl.h>
#endif

namespace {

#include "gpu_util.cuh"

#ifdef MG_HAVE_NCCL

#define NCCL(expr)                                                                                 \
    do {                                                                                           \
        ncclResult_t r_ = (expr);                                                                  \
        if (r_ != ncclSuccess)                                                                     \
            return mg__error(ctx, MG_DEVICE_ERROR, "%s: %s: %s", __func__, #expr,                  \
                             ncclGetErrorString(r_));                                              \
    } while (0)

/* The ranks' NCCL communicator, made on the first exchange: rank 0's id reaches the others through
 * the caller's broadcast (MPI). */
mg_status comm_of(mg_context ctx, ncclComm_t *comm) {
    struct mg__dist *d = ctx->dist;
    if (d->nccl == nullptr) {
        ncclUniqueId id;
        if (d->ranks.rank == 0) NCCL(ncclGetUniqueId(&id));
        const int rc = d->ranks.broadcast(d->ranks.user, &id, sizeof id, 0);
        if (rc != 0)
            return mg__error(ctx, MG_IO_ERROR, "the ranks' broadcast of NCCL's id failed (code %d)", rc);
        ncclComm_t c;
        NCCL(ncclCommInitRank(&c, d->ranks.size, id, d->ranks.rank));
        d->nccl = c;
    }
    *comm = (ncclComm_t)d->nccl;
    return MG_SUCCESS;
}

/* A staging array of at least `bytes`, kept on the context (every step exchanges one). */
mg_status stage_of(mg_context ctx, size_t bytes, void **p) {
    struct mg__dist *d = ctx->dist;
    if (d->d_stage_bytes < bytes) {
        if (d->d_stage != nullptr) CU(cudaFree(d->d_stage));
        d->d_stage = nullptr;
        d->d_stage_bytes = 0;
        CU(cudaMalloc(&d->d_stage, bytes ? bytes : 8));
        d->d_stage_bytes = bytes;
    }
    if (d->d_count == nullptr) CU(cudaMalloc(&d->d_count, sizeof *d->d_count));
    *p = d->d_stage;
    return MG_SUCCESS;
}

/* bytes[r] from each rank r (from `send` there) into recv[r] here, in one group on stream s */
mg_status broadcast_into(mg_context ctx, cudaStream_t s, const char *send, char *const *recv,
                         const uint64_t *bytes) {
    ncclComm_t comm;
    TRY(comm_of(ctx, &comm));
    const int size = ctx->dist->ranks.size;
    NCCL(ncclGroupStart());
    for (int r = 0; r < size; r++)
        if (bytes[r] > 0) NCCL(ncclBroadcast(send, recv[r], bytes[r], ncclUint8, r, comm, s));
    NCCL(ncclGroupEnd());
    return MG_SUCCESS;
}

/* the exchanges below that keep a value per rank on the stack (the others have no limit) */
constexpr int kMaxRanks = 64;
mg_status check_ranks(mg_context ctx, int size) {
    if (size > kMaxRanks)
        return mg__error(ctx, MG_INVALID_ARGUMENT, "more than %d ranks' GPUs are not supported yet", kMaxRanks);
    return MG_SUCCESS;
}

/* every rank's byte range [at[r], at[r] + bytes[r]) of buffer from rank r, in one group */
mg_status broadcast_ranges(mg_context ctx, cudaStream_t s, char *buffer, const uint64_t *at,
                           const uint64_t *bytes) {
    const int size = ctx->dist->ranks.size;
    TRY(check_ranks(ctx, size));
    char *recv[kMaxRanks];
    for (int r = 0; r < size; r++) recv[r] = buffer + at[r];
    return broadcast_into(ctx, s, buffer + at[ctx->dist->ranks.rank], recv, bytes);
}

/* A share's device numbering (core/dist.h, preprocess/gpu_graph.c): every rank's high vertices
 * first, this rank's own before the others' (by rank), then every rank's low ones in caller order,
 * the same on every rank. So rank r's values go as two pieces, each from its place there to its
 * place here: its high ones (from [0, H_r)) and its low ones. */
uint64_t high_count(const struct mg__graph_dist *d, int r) { return d->high_start[r + 1] - d->high_start[r]; }
uint64_t high_at(const struct mg__graph_dist *d, int r) {
    return r == d->rank ? 0 : r < d->rank ? high_count(d, d->rank) + d->high_start[r] : d->high_start[r];
}
uint64_t low_count(const struct mg__graph_dist *d, int r) { return d->first[r + 1] - d->first[r] - high_count(d, r); }
uint64_t low_at(const struct mg__graph_dist *d, int r) {
    return d->high_start[d->size] + d->first[r] - d->high_start[r];
}

/* every rank's high and/or low values from their owner into place in data here, one group on s */
mg_status send_pieces(mg_context ctx, cudaStream_t s, char *data, size_t elem, const struct mg__graph_dist *d,
                      bool low, bool high) {
    ncclComm_t comm;
    TRY(comm_of(ctx, &comm));
    NCCL(ncclGroupStart());
    for (int r = 0; r < d->size; r++) {
        if (high && high_count(d, r) > 0)
            NCCL(ncclBroadcast(data, data + high_at(d, r) * elem, high_count(d, r) * elem, ncclUint8, r, comm, s));
        if (low && low_count(d, r) > 0) {
            char *at = data + low_at(d, r) * elem;
            NCCL(ncclBroadcast(at, at, low_count(d, r) * elem, ncclUint8, r, comm, s));
        }
    }
    NCCL(ncclGroupEnd());
    return MG_SUCCESS;
}

/* the exchange beside a pull's stream and events, made once */
mg_status overlap_stream(mg_context ctx) {
    struct mg__dist *d = ctx->dist;
    if (d->stream == nullptr) {
        /* the greatest priority: NCCL's blocks start as the pull's retire, not after all of them
         * (R-MAT 26 on 4 H200s: 5.18 against 5.26 ms per PageRank iteration) */
        cudaStream_t s;
        int least = 0, greatest = 0;
        CU(cudaDeviceGetStreamPriorityRange(&least, &greatest));
        CU(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, greatest));
        d->stream = s;
    }
    for (void *&ev : d->events)
        if (ev == nullptr) {
            cudaEvent_t e;
            CU(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
            ev = e;
        }
    return MG_SUCCESS;
}

__global__ void own_bits(uint64_t *bits, const uint32_t *list, uint32_t count,
                         const uint32_t *old_of_new, uint32_t lo, uint32_t hi) {
    GRID_STRIDE(i, count) {
        const uint32_t v = old_of_new[list[i]];
        if (v >= lo && v < hi) atomicOr((unsigned long long *)&bits[v >> 6], 1ull << (v & 63));
    }
}

/* the set bits of a caller-numbered bitmap as a list of device ids (one atomic per word) */
__global__ void bits_to_list(const uint64_t *bits, uint64_t words, const uint32_t *new_of_old,
                             uint32_t *list, uint32_t *count) {
    GRID_STRIDE(w, words) {
        uint64_t word = bits[w];
        if (word == 0) continue;
        uint32_t at = atomicAdd(count, (uint32_t)__popcll(word));
        while (word) {
            const int b = __ffsll((long long)word) - 1;
            word &= word - 1;
            list[at++] = new_of_old[w * 64 + (uint64_t)b];
        }
    }
}

/* this rank's joined vertices as caller ids, with their values, at its place in the stage */
template <typename E>
__global__ void pack_joined(uint32_t *ids, E *vals, const uint32_t *list, uint32_t count,
                            const E *data, const uint32_t *old_of_new) {
    GRID_STRIDE(i, count) {
        ids[i] = old_of_new[list[i]];
        vals[i] = data[list[i]];
    }
}

/* every rank's joined vertices: their values into data, their device ids into the new list */
template <typename E>
__global__ void unpack_joined(E *data, uint32_t *list, const uint32_t *ids, const E *vals,
                              uint64_t total, const uint32_t *new_of_old) {
    GRID_STRIDE(i, total) {
        const uint32_t e = new_of_old[ids[i]];
        data[e] = vals[i];
        list[i] = e;
    }
}

template <typename E>
mg_status sync_joined(mg_context ctx, mg_vector y, mg_frontier out, const uint64_t *count,
                      const mg__gpu_graph *gg) {
    const struct mg__graph_dist *d = y->graph->dist;
    const int size = d->size;
    TRY(check_ranks(ctx, size));
    uint64_t total = 0, mine = 0, at_ids[kMaxRanks], at_vals[kMaxRanks], b_ids[kMaxRanks], b_vals[kMaxRanks];
    for (int r = 0; r < size; r++) {
        if (r == d->rank) mine = total;
        total += count[r];
    }
    /* the stage: every rank's ids, then (8-byte aligned) every rank's values */
    const uint64_t vals_at = (total * 4 + 7) / 8 * 8;
    void *p = nullptr;
    mg_status st = mg__gpu_vector_to_device(ctx, y);
    if (st == MG_SUCCESS) st = mg__gpu_frontier_need_dlist_room(ctx, out); /* room for all joined */
    if (st == MG_SUCCESS) st = stage_of(ctx, vals_at + total * sizeof(E), &p);
    TRY(mg__dist_agree_status(ctx, st, "the exchange of a step"));
    char *stage = static_cast<char *>(p);
    uint32_t *ids = reinterpret_cast<uint32_t *>(stage);
    E *vals = reinterpret_cast<E *>(stage + vals_at);
    if (out->count > 0) {
        pack_joined<E><<<blocks_for(out->count), kThreads>>>(ids + mine, vals + mine, out->d_list, out->count,
                                                             static_cast<const E *>(y->d_data), gg->d_old_of_new);
        LAUNCHED("pack_joined");
    }
    uint64_t at = 0;
    for (int r = 0; r < size; r++) {
        at_ids[r] = at * 4;
        b_ids[r] = count[r] * 4;
        at_vals[r] = vals_at + at * sizeof(E);
        b_vals[r] = count[r] * sizeof(E);
        at += count[r];
    }
    TRY(broadcast_ranges(ctx, 0, stage, at_ids, b_ids));
    TRY(broadcast_ranges(ctx, 0, stage, at_vals, b_vals));
    TRY(mg__gpu_frontier_reserve_device(ctx, out));
    if (total > 0) {
        unpack_joined<E><<<blocks_for(total), kThreads>>>(static_cast<E *>(y->d_data), out->d_list, ids, vals,
                                                          total, gg->d_new_of_old);
        LAUNCHED("unpack_joined");
    }
    y->on_device = true;
    out->count = (uint32_t)total;
    out->d_list_valid = true;
    out->d_bitmap_valid = false;
    return MG_SUCCESS;
}

mg_status sync_vector(mg_context ctx, mg_vector v) {
    TRY(mg__dist_agree_status(ctx, MG_SUCCESS, "the exchange of a vector"));
    return send_pieces(ctx, 0, static_cast<char *>(v->d_data), mg__type_size(v->type), v->graph->dist, true, true);
}

#endif /* MG_HAVE_NCCL */

} // namespace

#ifdef MG_HAVE_NCCL

extern "C" bool mg__dist_gpu_available(void) { return true; }

extern "C" void mg__dist_gpu_release(struct mg__dist *d) {
    if (d->nccl != nullptr) (void)ncclCommDestroy((ncclComm_t)d->nccl);
    if (d->d_stage != nullptr) (void)cudaFree(d->d_stage);
    if (d->d_count != nullptr) (void)cudaFree(d->d_count);
    if (d->stream != nullptr) (void)cudaStreamDestroy((cudaStream_t)d->stream);
    for (void *&ev : d->events)
        if (ev != nullptr) (void)cudaEventDestroy((cudaEvent_t)ev);
    d->nccl = nullptr;
    d->d_stage = nullptr;
    d->d_count = nullptr;
    d->stream = nullptr;
    for (void *&ev : d->events) ev = nullptr;
}

extern "C" mg_status mg__dist_gpu_exchange(mg_context ctx, void *d_buffer, const uint64_t *at,
                                           const uint64_t *bytes) {
    return broadcast_ranges(ctx, 0, static_cast<char *>(d_buffer), at, bytes);
}

extern "C" mg_status mg__dist_gpu_sync_vector(mg_context ctx, mg_vector v) {
    if (v->graph->gpu == nullptr)
        return mg__error(ctx, MG_INTERNAL_ERROR, "a device vector of a graph with no device form");
    return sync_vector(ctx, v);
}

extern "C" mg_status mg__dist_gpu_overlap_prepare(mg_context ctx) { return overlap_stream(ctx); }

extern "C" mg_status mg__dist_gpu_overlap_low(mg_context ctx, const struct mg_graph_s *g, void *d_y, size_t elem) {
    struct mg__dist *D = ctx->dist;
    cudaStream_t s = (cudaStream_t)D->stream;
    CU(cudaEventRecord((cudaEvent_t)D->events[0], 0));
    CU(cudaStreamWaitEvent(s, (cudaEvent_t)D->events[0], 0));
    return send_pieces(ctx, s, static_cast<char *>(d_y), elem, g->dist, true, false);
}

extern "C" mg_status mg__dist_gpu_overlap_high(mg_context ctx, const struct mg_graph_s *g, void *d_y, size_t elem) {
    struct mg__dist *D = ctx->dist;
    cudaStream_t s = (cudaStream_t)D->stream;
    CU(cudaEventRecord((cudaEvent_t)D->events[1], 0));
    CU(cudaStreamWaitEvent(s, (cudaEvent_t)D->events[1], 0));
    TRY(send_pieces(ctx, s, static_cast<char *>(d_y), elem, g->dist, false, true));
    CU(cudaEventRecord((cudaEvent_t)D->events[2], s));
    CU(cudaStreamWaitEvent(0, (cudaEvent_t)D->events[2], 0));
    return MG_SUCCESS;
}

extern "C" mg_status mg__dist_gpu_sync_joined(mg_context ctx, mg_vector y, mg_frontier out,
                                              const uint64_t *count) {
    const mg__gpu_graph *gg = (const mg__gpu_graph *)y->graph->gpu;
    if (gg == nullptr) return mg__error(ctx, MG_INTERNAL_ERROR, "a device vector of a graph with no device form");
    return mg__type_size(y->type) == 4 ? sync_joined<uint32_t>(ctx, y, out, count, gg)
                                       : sync_joined<uint64_t>(ctx, y, out, count, gg);
}

extern "C" mg_status mg__dist_gpu_sync_frontier(mg_context ctx, mg_frontier f) {
    const struct mg__graph_dist *d = f->graph->dist;
    const mg__gpu_graph *gg = (const mg__gpu_graph *)f->graph->gpu;
    if (gg == nullptr) return mg__error(ctx, MG_INTERNAL_ERROR, "a device frontier of a graph with no device form");
    const int size = d->size, rank = d->rank;
    TRY(check_ranks(ctx, size));
    const uint32_t n = f->n, lo = d->first[rank], hi = d->first[rank + 1];
    const uint64_t words = mg__bitmap_words(n);
    void *p = nullptr;
    mg_status st = mg__gpu_frontier_need_dlist_room(ctx, f); /* room for every vertex */
    if (st == MG_SUCCESS) st = stage_of(ctx, words * 8, &p);
    TRY(mg__dist_agree_status(ctx, st, "the exchange of a frontier"));
    uint64_t *bits = static_cast<uint64_t *>(p);
    CU(cudaMemsetAsync(bits, 0, words * 8, 0));
    if (f->count > 0) {
        own_bits<<<blocks_for(f->count), kThreads>>>(bits, f->d_list, f->count, gg->d_old_of_new, lo, hi);
        LAUNCHED("own_bits");
    }
    uint64_t at[kMaxRanks], bytes[kMaxRanks];
    for (int r = 0; r < size; r++) {
        const uint64_t w0 = d->first[r] / 64, w1 = mg__bitmap_words(d->first[r + 1]);
        at[r] = w0 * 8;
        bytes[r] = (w1 > w0 ? w1 - w0 : 0) * 8;
    }
    TRY(broadcast_ranges(ctx, 0, (char *)bits, at, bytes));
    TRY(mg__gpu_frontier_reserve_device(ctx, f));
    uint32_t *count = ctx->dist->d_count;
    CU(cudaMemsetAsync(count, 0, sizeof *count, 0));
    if (words > 0) {
        bits_to_list<<<blocks_for(words), kThreads>>>(bits, words, gg->d_new_of_old, f->d_list, count);
        LAUNCHED("bits_to_list");
    }
    uint32_t total = 0;
    CU(cudaMemcpy(&total, count, sizeof total, cudaMemcpyDeviceToHost));
    f->count = total;
    f->d_list_valid = true;
    f->d_bitmap_valid = false;
    return MG_SUCCESS;
}

#else /* CUDA without NCCL */

extern "C" mg_status mg__dist_gpu_exchange(mg_context ctx, void *d_buffer, const uint64_t *at,
                                           const uint64_t *bytes) {
    (void)d_buffer, (void)at, (void)bytes;
    return mg__error(ctx, MG_UNAVAILABLE, "a split graph's GPUs exchange through NCCL, which this build lacks");
}

extern "C" bool mg__dist_gpu_available(void) { return false; }
extern "C" void mg__dist_gpu_release(struct mg__dist *d) { (void)d; }

extern "C" mg_status mg__dist_gpu_overlap_prepare(mg_context ctx) {
    return mg__error(ctx, MG_UNAVAILABLE, "a split graph's GPUs exchange through NCCL, which this build lacks");
}
extern "C" mg_status mg__dist_gpu_overlap_low(mg_context ctx, const struct mg_graph_s *g, void *d_y, size_t elem) {
    (void)g, (void)d_y, (void)elem;
    return mg__error(ctx, MG_UNAVAILABLE, "a split graph's GPUs exchange through NCCL, which this build lacks");
}
extern "C" mg_status mg__dist_gpu_overlap_high(mg_context ctx, const struct mg_graph_s *g, void *d_y, size_t elem) {
    (void)g, (void)d_y, (void)elem;
    return mg__error(ctx, MG_UNAVAILABLE, "a split graph's GPUs exchange through NCCL, which this build lacks");
}

extern "C" mg_status mg__dist_gpu_sync_vector(mg_context ctx, mg_vector v) {
    (void)v;
    return mg__error(ctx, MG_UNAVAILABLE, "a split graph's GPUs exchange through NCCL, which this build lacks");
}

extern "C" mg_status mg__dist_gpu_sync_joined(mg_context ctx, mg_vector y, mg_frontier out,
                                              const uint64_t *count) {
    (void)y;
    (void)out;
    (void)count;
    return mg__error(ctx, MG_UNAVAILABLE, "a split graph's GPUs exchange through NCCL, which this build lacks");
}

extern "C" mg_status mg__dist_gpu_sync_frontier(mg_context ctx, mg_frontier f) {
    (void)f;
    return mg__error(ctx, MG_UNAVAILABLE, "a split graph's GPUs exchange through NCCL, which this build lacks");
}

#endif

extern "C" mg_status mg__dist_gpu_degree_offsets(mg_context ctx, const struct mg_graph_s *g,
                                                 const uint32_t *d_old_of_new, uint64_t **d_offsets) {
    *d_offsets = nullptr;
    const uint32_t n = g->n;
    uint32_t *old_of_new = (uint32_t *)mg__malloc(((size_t)n + 1) * sizeof *old_of_new);
    uint64_t *off = (uint64_t *)mg__malloc(((size_t)n + 1) * sizeof *off);
    if (old_of_new == nullptr || off == nullptr) {
        mg__free(old_of_new);
        mg__free(off);
        return mg__error(ctx, MG_OUT_OF_MEMORY, "out of memory for a split graph's device degrees");
    }
    cudaError_t e = cudaMemcpy(old_of_new, d_old_of_new, (size_t)n * 4, cudaMemcpyDeviceToHost);
    if (e == cudaSuccess) {
        const uint64_t *whole = g->dist->degree_offsets;
        uint64_t sum = 0;
        for (uint32_t i = 0; i < n; i++) {
            off[i] = sum;
            sum += whole[old_of_new[i] + 1] - whole[old_of_new[i]];
        }
        off[n] = sum;
        void *p = nullptr;
        e = cudaMalloc(&p, ((size_t)n + 1) * 8);
        if (e == cudaSuccess) e = cudaMemcpy(p, off, ((size_t)n + 1) * 8, cudaMemcpyHostToDevice);
        if (e == cudaSuccess) *d_offsets = (uint64_t *)p;
        else if (p != nullptr) (void)cudaFree(p);
    }
    mg__free(old_of_new);
    mg__free(off);
    if (e != cudaSuccess) return cu_fail(ctx, e, __func__, "a split graph's device degrees");
    return MG_SUCCESS;
}
