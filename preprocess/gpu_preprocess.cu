/*
 * gpu_preprocess.cu — GPU preprocessing from an edge list with CUB (MultiGraph Sec. 3.3, Table 3.1):
 * symmetrise, drop self-loops and parallel edges with the CPU builder's rules (core/graph.c), count
 * in-degrees, put every vertex in its in-degree group, renumber the vertices so each group is a
 * contiguous range (group 1 first, old id order within a group), and build the CSC (by destination)
 * and CSR (by source) in the new numbering. Everything runs on one stream owned by the call.
 *
 * Edges travel as 64-bit keys (major << nb | minor), nb = the bits of the largest id, so a radix sort
 * only does passes over 2*nb bits. Weights travel beside them as order-preserving 32-bit keys: a
 * stable sort by weight first, then a stable sort by edge, puts parallel edges in ascending weight
 * order, so keeping the first of each run keeps the least weight, as the CPU build does.
 *
 * Errors: every CUDA and CUB call is checked; a failure returns MG_DEVICE_ERROR naming the call and
 * file:line, a failed cudaMalloc MG_OUT_OF_MEMORY with its size and purpose. All device memory of a
 * build is tracked in one list, freed in one place on failure.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>
#include <cub/cub.cuh>

extern "C" {
#include "mg_internal.h"
}
#include "preprocess/gpu_preprocess.h"
#include "preprocess/dense_blocks.h"

namespace {

constexpr int kThreads = 256;

/* ---- device helpers ---------------------------------------------------------------------------- */

#define GRID_STRIDE(i, count)                                                                      \
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < (count);                \
         i += (uint64_t)gridDim.x * blockDim.x)

/* ---- kernels ----------------------------------------------------------------------------------- */

/* One key per stored direction of every input edge, keyed by destination: (dst << nb | src). The
 * reversed copy of a symmetrised edge goes to slot m0 + e; flags say which slots survive (self-loops
 * are dropped unless kept, and never doubled, as in the CPU build). bad receives the least index of
 * an edge with an id >= n. */
__global__ void expand_kernel(const uint32_t *src, const uint32_t *dst, const uint32_t *w,
                              uint64_t m0, uint32_t n, int nb, bool symmetrize, bool drop_loops,
                              bool w_int, uint64_t *keys, uint32_t *wkeys, uint8_t *flags,
                              unsigned long long *bad) {
    GRID_STRIDE(e, m0) {
        const uint32_t s = src[e], d = dst[e];
        const bool ok = s < n && d < n;
        if (!ok) atomicMin(bad, (unsigned long long)e);
        const bool keep = ok && !(drop_loops && s == d);
        keys[e] = ((uint64_t)d << nb) | s;
        flags[e] = keep;
        uint32_t wk = 0;
        if (wkeys != nullptr) {
            wk = mg__weight_key(w_int, w[e]);
            wkeys[e] = wk;
        }
        if (symmetrize) {
            keys[m0 + e] = ((uint64_t)s << nb) | d;
            flags[m0 + e] = keep && s != d;
            if (wkeys != nullptr) wkeys[m0 + e] = wk;
        }
    }
}

/* In- and out-degrees in the old numbering (out may be NULL: an undirected graph's equal in). */
__global__ void degree_kernel(const uint64_t *keys, uint64_t m, int nb, uint32_t *in_deg,
                              uint32_t *out_deg) {
    const uint64_t mask = (UINT64_C(1) << nb) - 1;
    GRID_STRIDE(i, m) {
        const uint64_t k = keys[i];
        atomicAdd(&in_deg[k >> nb], 1u);
        if (out_deg != nullptr) atomicAdd(&out_deg[k & mask], 1u);
    }
}

__global__ void group_kernel(const uint32_t *in_deg, uint32_t n, uint8_t *group, uint32_t *ids) {
    GRID_STRIDE(v, n) {
        group[v] = (uint8_t)mg__degree_group(in_deg[v]);
        ids[v] = (uint32_t)v;
    }
}

/* ends[g] = one past the last new id of group g (0 when the group is empty); groups are sorted. */
__global__ void group_ends_kernel(const uint8_t *sorted_group, uint32_t n, uint32_t *ends) {
    GRID_STRIDE(i, n) {
        if (i + 1 == n || sorted_group[i + 1] != sorted_group[i])
            ends[sorted_group[i]] = (uint32_t)(i + 1);
    }
}

__global__ void invert_kernel(const uint32_t *old_of_new, uint32_t n, uint32_t *new_of_old) {
    GRID_STRIDE(i, n) new_of_old[old_of_new[i]] = (uint32_t)i;
}

/* out[new id] = deg[old id], as the 64-bit counts the offsets scan runs over. */
__global__ void permute_degree_kernel(const uint32_t *deg, const uint32_t *new_of_old, uint32_t n,
                                      uint64_t *out) {
    GRID_STRIDE(v, n) out[new_of_old[v]] = deg[v];
}

/* Relabels (major << nb | minor) keys to the new numbering; swap also exchanges major and minor. */
__global__ void relabel_kernel(const uint64_t *in, uint64_t m, int nb, const uint32_t *new_of_old,
                               uint64_t *out) {
    const uint64_t mask = (UINT64_C(1) << nb) - 1;
    GRID_STRIDE(i, m) {
        const uint64_t k = in[i];
        out[i] = ((uint64_t)new_of_old[k >> nb] << nb) | new_of_old[k & mask];
    }
}

__global__ void swap_kernel(const uint64_t *in, uint64_t m, int nb, uint64_t *out) {
    const uint64_t mask = (UINT64_C(1) << nb) - 1;
    GRID_STRIDE(i, m) {
        const uint64_t k = in[i];
        out[i] = ((k & mask) << nb) | (k >> nb);
    }
}

/* The sorted keys' minor ids become the indices, the weight keys the weights. */
__global__ void extract_kernel(const uint64_t *keys, const uint32_t *wkeys, uint64_t m, int nb,
                               bool w_int, uint32_t *indices, uint32_t *weights) {
    const uint64_t mask = (UINT64_C(1) << nb) - 1;
    GRID_STRIDE(i, m) {
        indices[i] = (uint32_t)(keys[i] & mask);
        if (weights != nullptr) weights[i] = mg__weight_from_key(w_int, wkeys[i]);
    }
}

/* ---- host side: one build's resources ---------------------------------------------------------- */

#include "preprocess/gpu_build.cuh"

unsigned grid_for(uint64_t count) {
    uint64_t g = (count + kThreads - 1) / kThreads;
    return (unsigned)(g > (UINT64_C(1) << 20) ? (UINT64_C(1) << 20) : g);
}

#define LAUNCH(kernel, count, ...)                                                                 \
    do {                                                                                           \
        if ((count) > 0) {                                                                         \
            kernel<<<grid_for(count), kThreads, 0, b->stream>>>(__VA_ARGS__);                      \
            CU_NAMED(cudaGetLastError(), "launch of " #kernel);                                    \
        }                                                                                          \
    } while (0)

mg_status copy_count(Build *b, uint64_t *host, const int64_t *dev) {
    int64_t v = 0;
    CU(cudaMemcpyAsync(&v, dev, sizeof v, cudaMemcpyDeviceToHost, b->stream));
    CU(cudaStreamSynchronize(b->stream));
    *host = (uint64_t)v;
    return MG_SUCCESS;
}

int bits_for(uint32_t n) {
    int nb = 1;
    while (nb < 32 && ((uint64_t)(n > 0 ? n - 1 : 0) >> nb) != 0) nb++;
    return nb;
}

/* Builds the CSR of keys (major << nb | minor, already relabelled) into offsets / indices / weights:
 * sorts keys (and weight keys) by (major, minor) stably, then extracts. deg_new holds n + 1 counts
 * (the majors' degrees in the new numbering, last 0) and becomes the offsets by an in-place scan. */
mg_status build_rows(Build *b, cub::DoubleBuffer<uint64_t> &K, cub::DoubleBuffer<uint32_t> &W,
                     bool weighted, bool w_int, uint64_t m, uint32_t n, int nb, uint64_t *offsets,
                     uint32_t *indices, uint32_t *weights) {
    if (weighted)
        CUB_RUN(cub::DeviceRadixSort::SortPairs, K, W, (int64_t)m, 0, 2 * nb, b->stream);
    else
        CUB_RUN(cub::DeviceRadixSort::SortKeys, K, (int64_t)m, 0, 2 * nb, b->stream);
    CUB_RUN(cub::DeviceScan::ExclusiveSum, offsets, offsets, (int64_t)n + 1, b->stream);
    LAUNCH(extract_kernel, m, K.Current(), weighted ? W.Current() : nullptr, m, nb, w_int, indices,
           weights);
    return MG_SUCCESS;
}

/* Pieces of a produced edge list: two sets of pinned buffers, one filled while the other uploads. */
constexpr uint64_t kUploadChunk = UINT64_C(1) << 21;

mg_status upload_chunks(Build *b, const mg__edge_producer *edges, uint64_t m, bool weighted,
                        uint32_t *const dev[3], uint32_t *host, uint64_t chunk, cudaEvent_t done[2]) {
    int set = 0;
    for (uint64_t first = 0; first < m; first += chunk, set ^= 1) {
        const uint64_t count = m - first < chunk ? m - first : chunk;
        uint32_t *h[3];
        for (int k = 0; k < 3; k++) h[k] = host + ((uint64_t)set * 3 + k) * chunk;
        CU(cudaEventSynchronize(done[set])); /* this set's previous upload has left it */
        edges->fill(edges->arg, first, count, h[0], h[1], weighted ? h[2] : nullptr);
        for (int k = 0; k < (weighted ? 3 : 2); k++)
            CU(cudaMemcpyAsync(dev[k] + first, h[k], count * 4, cudaMemcpyHostToDevice, b->stream));
        CU(cudaEventRecord(done[set], b->stream));
    }
    return MG_SUCCESS;
}

mg_status upload_produced(Build *b, const mg__edge_producer *edges, uint64_t m, bool weighted,
                          uint32_t *const dev[3]) {
    const uint64_t chunk = m < kUploadChunk ? m : kUploadChunk;
    uint32_t *host = nullptr;
    cudaEvent_t done[2] = {nullptr, nullptr};
    cudaError_t e = cudaMallocHost((void **)&host, (size_t)(2 * 3 * chunk * 4));
    if (e == cudaSuccess) e = cudaEventCreateWithFlags(&done[0], cudaEventDisableTiming);
    if (e == cudaSuccess) e = cudaEventCreateWithFlags(&done[1], cudaEventDisableTiming);
    mg_status st = e == cudaSuccess
        ? upload_chunks(b, edges, m, weighted, dev, host, chunk, done)
        : cuda_fail(b, e, "cudaMallocHost / cudaEventCreate (the upload's pinned buffers)", __FILE__,
                    __LINE__);
    /* the pinned buffers go only after the copies out of them */
    e = cudaStreamSynchronize(b->stream);
    if (st == MG_SUCCESS && e != cudaSuccess)
        st = cuda_fail(b, e, "cudaStreamSynchronize (upload)", __FILE__, __LINE__);
    for (cudaEvent_t ev : done)
        if (ev != nullptr) cudaEventDestroy(ev);
    if (host != nullptr) cudaFreeHost(host);
    return st;
}

/* the front's marks: a bit per vertex */
__global__ void mark_kernel(const uint32_t *ids, uint64_t count, uint64_t *bits) {
    GRID_STRIDE(i, count) atomicOr((unsigned long long *)&bits[ids[i] >> 6], 1ull << (ids[i] & 63));
}

struct unmarked {
    const uint64_t *bits;
    __device__ bool operator()(uint32_t v) const { return !((bits[v >> 6] >> (v & 63)) & 1); }
};

/* V.Current(): the new-to-old permutation by groups. Into V.Alternate(): the same with the front's
 * vertices (mg__gpu_front) moved to right after the first `high` ids, in the front's order; the
 * rest of group 6 keeps its order. Each front vertex must be in group 6 (no edge in), once. */
mg_status place_front(Build *b, const mg__gpu_front *front, uint32_t n, uint32_t high,
                      cub::DoubleBuffer<uint32_t> &V) {
    const uint64_t count = front->count;
    if (count > (uint64_t)n - high || front->own > count)
        return mg__error(b->ctx, MG_INTERNAL_ERROR, "%s: %llu vertices (%llu own) to place after %u high ones of %u",
                         b->who, (unsigned long long)count, (unsigned long long)front->own, high, n);
    for (uint64_t i = 0; i < count; i++)
        if (front->ids[i] >= n)
            return mg__error(b->ctx, MG_INTERNAL_ERROR, "%s: vertex %u to place is not below n = %u", b->who,
                             front->ids[i], n);
    uint32_t *out = V.Alternate();
    uint64_t *bits = nullptr;
    int64_t *d_kept = nullptr;
    const uint64_t words = ((uint64_t)n + 63) / 64;
    DALLOC(bits, words, "the placed vertices' bits");
    DALLOC(d_kept, 1, "a count");
    CU(cudaMemsetAsync(bits, 0, words * 8, b->stream));
    CU(cudaMemcpyAsync(out, V.Current(), (size_t)high * 4, cudaMemcpyDeviceToDevice, b->stream));
    CU(cudaMemcpyAsync(out + high, front->ids, count * 4, cudaMemcpyHostToDevice, b->stream));
    LAUNCH(mark_kernel, count, out + high, count, bits);
    CUB_RUN(cub::DeviceSelect::If, V.Current() + high, out + high + count, d_kept, (int64_t)(n - high),
            unmarked{bits}, b->stream);
    uint64_t kept = 0;
    TRY(copy_count(b, &kept, d_kept));
    dfree(b, bits);
    dfree(b, d_kept);
    if (kept != n - high - count)
        return mg__error(b->ctx, MG_INTERNAL_ERROR, "%s: of %llu vertices to place after the %u high ones, "
                         "%llu are high or repeated", b->who, (unsigned long long)count, high,
                         (unsigned long long)(kept + count - (n - high)));
    return MG_SUCCESS;
}

mg_status build(Build *b, const mg__coo *coo, const mg__edge_producer *edges,
                const mg_graph_options *opts, const mg__gpu_front *front, mg__gpu_graph *out) {
    const uint32_t n = coo->n;
    const uint64_t m0 = coo->m;
    const bool weighted =
        (coo->weights != nullptr || edges != nullptr) && coo->weight_type != MG_WEIGHT_NONE;
    const bool w_int = coo->weight_type == MG_WEIGHT_INT32;
    const bool symmetrize = !opts->directed;
    const int nb = bits_for(n);
    const uint64_t m1 = symmetrize ? 2 * m0 : m0;

    CU(cudaGetDevice(&out->device));
    CU(cudaStreamCreateWithFlags(&b->stream, cudaStreamNonBlocking));
    CU(cudaEventCreate(&b->start));
    CU(cudaEventRecord(b->start, b->stream));

    /* 0. upload (timed apart: the preprocessing proper starts from the edge list on the device) */
    uint32_t *d_src = nullptr, *d_dst = nullptr, *d_w = nullptr;
    DALLOC(d_src, m0, "the edge sources");
    DALLOC(d_dst, m0, "the edge destinations");
    if (weighted) DALLOC(d_w, m0, "the edge weights");
    if (m0 > 0 && edges != nullptr) {
        uint32_t *const dev[3] = {d_src, d_dst, d_w};
        TRY(upload_produced(b, edges, m0, weighted, dev));
    } else if (m0 > 0) {
        CU(cudaMemcpyAsync(d_src, coo->src, m0 * 4, cudaMemcpyHostToDevice, b->stream));
        CU(cudaMemcpyAsync(d_dst, coo->dst, m0 * 4, cudaMemcpyHostToDevice, b->stream));
        if (weighted)
            CU(cudaMemcpyAsync(d_w, coo->weights, m0 * 4, cudaMemcpyHostToDevice, b->stream));
    }
    TRY(mark(b));

    /* 1. expand to one key per stored direction, then keep the flagged ones */
    uint64_t *k0 = nullptr, *k1 = nullptr;
    uint32_t *w0 = nullptr, *w1 = nullptr;
    uint8_t *flags = nullptr;
    int64_t *d_count = nullptr;
    unsigned long long *d_bad = nullptr;
    DALLOC(k0, m1, "edge keys");
    DALLOC(k1, m1, "edge keys (sort buffer)");
    DALLOC(flags, m1, "edge flags");
    DALLOC(d_count, 1, "a selection count");
    DALLOC(d_bad, 1, "the bad-edge marker");
    if (weighted) {
        DALLOC(w0, m1, "weight keys");
        DALLOC(w1, m1, "weight keys (sort buffer)");
    }
    CU(cudaMemsetAsync(d_bad, 0xff, sizeof *d_bad, b->stream));
    LAUNCH(expand_kernel, m0, d_src, d_dst, d_w, m0, n, nb, symmetrize, !opts->keep_self_loops,
           w_int, k0, w0, flags, d_bad);
    unsigned long long bad = 0;
    CU(cudaMemcpyAsync(&bad, d_bad, sizeof bad, cudaMemcpyDeviceToHost, b->stream));
    CU(cudaStreamSynchronize(b->stream));
    if (bad != ~0ULL) {
        uint32_t s = 0, d = 0;
        CU(cudaMemcpy(&s, d_src + bad, 4, cudaMemcpyDeviceToHost));
        CU(cudaMemcpy(&d, d_dst + bad, 4, cudaMemcpyDeviceToHost));
        return mg__error(b->ctx, MG_INVALID_ARGUMENT, "mg__gpu_graph_build: edge %llu (%u -> %u) "
                         "has a vertex id >= n = %u", bad, s, d, n);
    }
    dfree(b, d_src);
    dfree(b, d_dst);
    dfree(b, d_w);

    cub::DoubleBuffer<uint64_t> K(k0, k1);
    cub::DoubleBuffer<uint32_t> W(w0, w1);
    uint64_t m = 0;
    CUB_RUN(cub::DeviceSelect::Flagged, K.Current(), flags, K.Alternate(), d_count, (int64_t)m1,
            b->stream);
    if (weighted)
        CUB_RUN(cub::DeviceSelect::Flagged, W.Current(), flags, W.Alternate(), d_count,
                (int64_t)m1, b->stream);
    K.selector ^= 1;
    W.selector ^= 1;
    TRY(copy_count(b, &m, d_count));
    dfree(b, flags);
    TRY(mark(b));

    /* 2. parallel edges in ascending weight (the stable sorts after keep that order); without
     * duplicates, sort by (dst, src) and keep the first of each run. Kept duplicates need no sort
     * in the old numbering: the degrees and groups below take the edges in any order, and the CSC
     * sorts them in the new one (mg_graph_gpu_prepare's path: its edges come from a built graph). */
    if (weighted) CUB_RUN(cub::DeviceRadixSort::SortPairs, W, K, (int64_t)m, 0, 32, b->stream);
    if (!opts->keep_duplicates) {
        if (weighted)
            CUB_RUN(cub::DeviceRadixSort::SortPairs, K, W, (int64_t)m, 0, 2 * nb, b->stream);
        else
            CUB_RUN(cub::DeviceRadixSort::SortKeys, K, (int64_t)m, 0, 2 * nb, b->stream);
        if (weighted)
            CUB_RUN(cub::DeviceSelect::UniqueByKey, K.Current(), W.Current(), K.Alternate(),
                    W.Alternate(), d_count, (int64_t)m, b->stream);
        else
            CUB_RUN(cub::DeviceSelect::Unique, K.Current(), K.Alternate(), d_count, (int64_t)m,
                    b->stream);
        K.selector ^= 1;
        W.selector ^= 1;
        TRY(copy_count(b, &m, d_count));
    }

    TRY(mark(b));

    /* 3. degrees, groups, and the new numbering (stable by old id within a group) */
    uint32_t *in_deg = nullptr, *out_deg = nullptr, *ids0 = nullptr, *ids1 = nullptr;
    uint32_t *new_of_old = nullptr, *ends = nullptr;
    uint8_t *g0 = nullptr, *g1 = nullptr;
    DALLOC(in_deg, n, "in-degrees");
    if (!symmetrize) DALLOC(out_deg, n, "out-degrees");
    DALLOC(g0, n, "vertex groups");
    DALLOC(g1, n, "vertex groups (sort buffer)");
    DALLOC(ids0, n, "the new-to-old permutation");
    DALLOC(ids1, n, "the new-to-old permutation (sort buffer)");
    DALLOC(new_of_old, n, "the old-to-new permutation");
    DALLOC(ends, MG__GPU_GROUPS + 1, "group ends");
    if (n > 0) CU(cudaMemsetAsync(in_deg, 0, (size_t)n * 4, b->stream));
    if (out_deg != nullptr) CU(cudaMemsetAsync(out_deg, 0, (size_t)n * 4, b->stream));
    CU(cudaMemsetAsync(ends, 0, (MG__GPU_GROUPS + 1) * 4, b->stream));
    LAUNCH(degree_kernel, m, K.Current(), m, nb, in_deg, out_deg);
    /* the largest degrees bound a frontier's edges without a pass over it (the engine's push test) */
    uint32_t *max_deg = nullptr;
    DALLOC(max_deg, 2, "the largest degrees");
    CU(cudaMemsetAsync(max_deg, 0, 2 * sizeof *max_deg, b->stream));
    if (n > 0) {
        CUB_RUN(cub::DeviceReduce::Max, in_deg, max_deg, (int64_t)n, b->stream);
        if (out_deg != nullptr) CUB_RUN(cub::DeviceReduce::Max, out_deg, max_deg + 1, (int64_t)n, b->stream);
    }
    LAUNCH(group_kernel, n, in_deg, n, g0, ids0);
    cub::DoubleBuffer<uint8_t> G(g0, g1);
    cub::DoubleBuffer<uint32_t> V(ids0, ids1);
    CUB_RUN(cub::DeviceRadixSort::SortPairs, G, V, (int64_t)n, 0, 3, b->stream);
    LAUNCH(group_ends_kernel, n, G.Current(), n, ends);
    uint32_t h_ends[MG__GPU_GROUPS + 1] = {0};
    uint32_t h_max_deg[2] = {0, 0};
    CU(cudaMemcpyAsync(h_ends, ends, sizeof h_ends, cudaMemcpyDeviceToHost, b->stream));
    CU(cudaMemcpyAsync(h_max_deg, max_deg, sizeof h_max_deg, cudaMemcpyDeviceToHost, b->stream));
    CU(cudaStreamSynchronize(b->stream));
    out->max_in_degree = h_max_deg[0];
    out->max_out_degree = out_deg != nullptr ? h_max_deg[1] : h_max_deg[0];
    dfree(b, max_deg);
    out->group_start[0] = 0;
    for (int g = 1; g <= MG__GPU_GROUPS; g++)
        out->group_start[g] = h_ends[g] != 0 ? h_ends[g] : out->group_start[g - 1];
    if (front != nullptr && front->count > 0) {
        TRY(place_front(b, front, n, out->group_start[MG__GPU_GROUPS - 1], V));
        V.selector ^= 1;
        out->group_start[MG__GPU_GROUPS - 1] += (uint32_t)front->own;
    }
    out->own_from = out->group_start[MG__GPU_GROUPS - 1];
    out->own_to = n;
    uint32_t *old_of_new = V.Current();
    LAUNCH(invert_kernel, n, old_of_new, n, new_of_old);
    dfree(b, V.Alternate());
    dfree(b, g0);
    dfree(b, g1);
    dfree(b, ends);

    TRY(mark(b));

    /* 4. the CSC in the new numbering: relabel the (dst, src) keys, sort, scan the degrees */
    uint64_t *in_offsets = nullptr, *out_offsets = nullptr;
    uint32_t *in_indices = nullptr, *out_indices = nullptr, *in_w = nullptr, *out_w = nullptr;
    DALLOC(in_offsets, (uint64_t)n + 1, "CSC offsets");
    DALLOC(in_indices, m, "CSC indices");
    if (weighted) DALLOC(in_w, m, "CSC weights");
    CU(cudaMemsetAsync(in_offsets + n, 0, sizeof *in_offsets, b->stream));
    LAUNCH(permute_degree_kernel, n, in_deg, new_of_old, n, in_offsets);
    LAUNCH(relabel_kernel, m, K.Current(), m, nb, new_of_old, K.Alternate());
    K.selector ^= 1;
    TRY(build_rows(b, K, W, weighted, w_int, m, n, nb, in_offsets, in_indices, in_w));
    dfree(b, in_deg);
    TRY(mark(b));

    /* 5. the CSR: the sorted CSC keys with major and minor swapped, sorted again (stably, so
     * parallel edges keep their ascending weights) */
    if (!symmetrize) {
        DALLOC(out_offsets, (uint64_t)n + 1, "CSR offsets");
        DALLOC(out_indices, m, "CSR indices");
        if (weighted) DALLOC(out_w, m, "CSR weights");
        CU(cudaMemsetAsync(out_offsets + n, 0, sizeof *out_offsets, b->stream));
        LAUNCH(permute_degree_kernel, n, out_deg, new_of_old, n, out_offsets);
        LAUNCH(swap_kernel, m, K.Current(), m, nb, K.Alternate());
        K.selector ^= 1;
        TRY(build_rows(b, K, W, weighted, w_int, m, n, nb, out_offsets, out_indices, out_w));
    }

    /* in-edges per group, from the CSC offsets at the group boundaries */
    uint64_t bounds[MG__GPU_GROUPS + 1] = {0};
    for (int g = 0; g <= MG__GPU_GROUPS; g++)
        CU(cudaMemcpyAsync(&bounds[g], in_offsets + out->group_start[g], sizeof bounds[g],
                           cudaMemcpyDeviceToHost, b->stream));
    TRY(mark(b));
    CU(cudaEventSynchronize(b->marks[b->nmarks - 1]));
    double phases[1 + MG__GPU_BUILD_PHASES];
    TRY(phase_seconds(b, phases, 1 + MG__GPU_BUILD_PHASES));

    out->n = n;
    out->m = m;
    out->directed = opts->directed;
    out->weight_type = weighted ? coo->weight_type : MG_WEIGHT_NONE;
    for (int g = 0; g < MG__GPU_GROUPS; g++) out->group_edges[g] = bounds[g + 1] - bounds[g];
    out->d_in_offsets = in_offsets;
    out->d_in_indices = in_indices;
    out->d_in_weights = in_w;
    out->in_shares_out = symmetrize;
    out->d_out_offsets = symmetrize ? in_offsets : out_offsets;
    out->d_out_indices = symmetrize ? in_indices : out_indices;
    out->d_out_weights = symmetrize ? in_w : out_w;
    out->d_new_of_old = new_of_old;
    out->d_old_of_new = old_of_new;
    out->upload_seconds = phases[0];
    out->seconds = 0;
    for (int i = 0; i < MG__GPU_BUILD_PHASES; i++) {
        out->phase_seconds[i] = phases[1 + i];
        out->seconds += phases[1 + i];
    }
    void *const kept[] = {in_offsets, in_indices, in_w, out_offsets, out_indices, out_w,
                          new_of_old, old_of_new};
    size_t total = 0;
    for (void *p : kept)
        for (int i = 0; i < kBuildMaxAllocs; i++)
            if (p != nullptr && b->ptr[i] == p) total += b->bytes[i];
    for (void *p : kept) dkeep(b, p);
    out->device_bytes = total;
    out->csr_bytes = ((size_t)n + 1) * 8 + (size_t)m * 4 + (weighted ? (size_t)m * 4 : 0);
    return MG_SUCCESS;
}

/* Destination segments: row s's offsets of its first edge to a destination >= min(j * S, H),
 * j = 0..k (rows are sorted by destination: a binary search each). */
__global__ void segment_kernel(const uint64_t *off, const uint32_t *idx, uint32_t n, uint32_t S,
                               uint32_t H, uint32_t k, uint32_t *seg_ptr) {
    for (uint64_t s = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; s < n;
         s += (uint64_t)gridDim.x * blockDim.x) {
        const uint64_t lo = off[s], hi = off[s + 1];
        uint64_t from = lo;
        for (uint32_t j = 0; j <= k; j++) {
            const uint64_t b = (uint64_t)j * S < H ? (uint64_t)j * S : H;
            uint64_t a = from, z = hi; /* lower bound of b in idx[from, hi) */
            while (a < z) {
                const uint64_t mid = a + (z - a) / 2;
                if (idx[mid] < b) a = mid + 1;
                else z = mid;
            }
            seg_ptr[s * (k + 1) + j] = (uint32_t)(a - lo);
            from = a;
        }
    }
}

/* Shared memory a segment kernel keeps for itself; the rest holds, per destination, an 8-byte value
 * and a touched bit (65 / 8 bytes). */
constexpr uint32_t kSegReserve = 2048;

} // namespace

extern "C" mg_status mg__gpu_graph_segment(mg_context ctx, mg__gpu_graph *g, uint32_t seg_size) {
    if (g == nullptr) return mg__error(ctx, MG_INVALID_ARGUMENT, "mg__gpu_graph_segment: g is NULL");
    if (g->d_seg_ptr != nullptr) cudaFree(g->d_seg_ptr);
    g->device_bytes -= g->seg_bytes;
    g->d_seg_ptr = nullptr;
    g->seg_count = 0;
    g->seg_size = 0;
    g->seg_bytes = 0;
    const uint32_t H = g->group_start[4]; /* groups 1-4 */
    if (H == 0 || g->n == 0 || g->m > UINT32_MAX) return MG_SUCCESS;
    uint32_t S = seg_size;
    if (S == 0) {
        int optin = 0;
        cudaError_t e = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, g->device);
        if (e != cudaSuccess) {
            (void)cudaGetLastError();
            return mg__error(ctx, MG_DEVICE_ERROR, "mg__gpu_graph_segment: cudaDeviceGetAttribute: %s",
                             cudaGetErrorString(e));
        }
        if ((uint32_t)optin <= kSegReserve + 8 * 65) return MG_SUCCESS; /* too little to be worth it */
        S = (uint32_t)(((uint64_t)optin - kSegReserve) * 8 / 65) / 32 * 32;
    } else {
        S = seg_size;
    }
    const uint32_t k = (uint32_t)(((uint64_t)H + S - 1) / S);
    const size_t bytes = (size_t)g->n * (k + 1) * sizeof(uint32_t);
    uint32_t *p = nullptr;
    cudaError_t e = cudaMalloc(&p, bytes);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return mg__error(ctx, e == cudaErrorMemoryAllocation ? MG_OUT_OF_MEMORY : MG_DEVICE_ERROR,
                         "mg__gpu_graph_segment: cudaMalloc of %zu bytes for the segment offsets: %s",
                         bytes, cudaGetErrorString(e));
    }
    uint64_t blocks = ((uint64_t)g->n + 255) / 256;
    segment_kernel<<<(unsigned)(blocks > 65535 * 8 ? 65535 * 8 : blocks), 256>>>(
        g->d_out_offsets, g->d_out_indices, g->n, S, H, k, p);
    e = cudaGetLastError();
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        cudaFree(p);
        return mg__error(ctx, MG_DEVICE_ERROR, "mg__gpu_graph_segment: segment_kernel: %s",
                         cudaGetErrorString(e));
    }
    g->d_seg_ptr = p;
    g->seg_count = k;
    g->seg_size = S;
    g->seg_bytes = bytes;
    g->device_bytes += bytes;
    return MG_SUCCESS;
}

/* The checks and the build of both entry points: edges NULL takes the list from coo's arrays. */
static mg_status build_checked(mg_context ctx, const mg__coo *coo, const mg__edge_producer *edges,
                               const mg_graph_options *opts, const mg__gpu_front *front, mg__gpu_graph *out) {
    if (out == nullptr)
        return mg__error(ctx, MG_INVALID_ARGUMENT, "mg__gpu_graph_build: out is NULL");
    memset(out, 0, sizeof *out);
    if (coo == nullptr)
        return mg__error(ctx, MG_INVALID_ARGUMENT, "mg__gpu_graph_build: coo is NULL");
    if (edges != nullptr && edges->fill == nullptr)
        return mg__error(ctx, MG_INVALID_ARGUMENT, "mg__gpu_graph_build: the producer has no fill");
    if (edges == nullptr && coo->m > 0 && (coo->src == nullptr || coo->dst == nullptr))
        return mg__error(ctx, MG_INVALID_ARGUMENT,
                         "mg__gpu_graph_build: coo has %llu edges but no src or dst array",
                         (unsigned long long)coo->m);
    if (coo->n == UINT32_MAX)
        return mg__error(ctx, MG_INVALID_ARGUMENT, "mg__gpu_graph_build: n = %u is too large (at "
                         "most %u vertices)", coo->n, UINT32_MAX - 1);
    if (coo->m > (UINT64_C(1) << 40))
        return mg__error(ctx, MG_INVALID_ARGUMENT, "mg__gpu_graph_build: %llu edges exceed the "
                         "limit of 2^40", (unsigned long long)coo->m);
    mg_graph_options defaults;
    if (opts == nullptr) {
        mg_graph_options_init(&defaults);
        opts = &defaults;
    }
    int count = 0;
    mg_status st = mg__gpu_device_count(ctx, "mg__gpu_graph_build", &count);
    if (st != MG_SUCCESS) return st;

    Build b;
    b.ctx = ctx;
    b.who = "mg__gpu_graph_build";
    st = build(&b, coo, edges, opts, front, out);
    release(&b);
    if (st != MG_SUCCESS) {
        memset(out, 0, sizeof *out);
        return st;
    }
    /* Destination segments (mg__gpu_graph_segment) are not built by default: on R-MAT 22 the
     * shared-memory segment push measured slower than global atomics (docs/PERFORMANCE.md). */
    return MG_SUCCESS;
}

extern "C" mg_status mg__gpu_graph_build(mg_context ctx, const mg__coo *coo,
                                         const mg_graph_options *opts, mg__gpu_graph *out) {
    return build_checked(ctx, coo, nullptr, opts, nullptr, out);
}

extern "C" mg_status mg__gpu_graph_build_produced(mg_context ctx, const mg__coo *shape,
                                                  const mg__edge_producer *edges,
                                                  const mg_graph_options *opts,
                                                  const mg__gpu_front *front, mg__gpu_graph *out) {
    if (edges == nullptr)
        return mg__error(ctx, MG_INVALID_ARGUMENT, "mg__gpu_graph_build_produced: edges is NULL");
    return build_checked(ctx, shape, edges, opts, front, out);
}

extern "C" void mg__gpu_graph_free(mg__gpu_graph *g) {
    if (g == nullptr) return;
    (void)cudaDeviceSynchronize(); /* cudaFree does not wait for pool memory (gpu_build.cuh) */
    void *const arrays[] = {g->d_out_offsets, g->d_out_indices, g->d_out_weights,
                            g->in_shares_out ? nullptr : g->d_in_offsets,
                            g->in_shares_out ? nullptr : g->d_in_indices,
                            g->in_shares_out ? nullptr : g->d_in_weights,
                            g->d_new_of_old, g->d_old_of_new, g->d_seg_ptr, g->d_degree_offsets};
    for (void *p : arrays)
        if (p != nullptr) cudaFree(p);
    mg__gpu_dense_free(&g->dense[MG_EDGES_OUT]);
    mg__gpu_dense_free(&g->dense[MG_EDGES_IN]);
    memset(g, 0, sizeof *g);
}

extern "C" mg_status mg__gpu_copy_to_host(mg_context ctx, void *host, const void *device,
                                          size_t bytes) {
    if (bytes == 0) return MG_SUCCESS;
    if (host == nullptr || device == nullptr)
        return mg__error(ctx, MG_INVALID_ARGUMENT, "mg__gpu_copy_to_host: NULL %s pointer for %zu "
                         "bytes", host == nullptr ? "host" : "device", bytes);
    cudaError_t e = cudaMemcpy(host, device, bytes, cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return mg__error(ctx, MG_DEVICE_ERROR, "mg__gpu_copy_to_host: cudaMemcpy of %zu bytes: %s",
                         bytes, cudaGetErrorString(e));
    }
    return MG_SUCCESS;
}
