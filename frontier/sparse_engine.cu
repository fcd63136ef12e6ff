/*
 * sparse_engine.cu — the CUDA advance: one step of an edge program on a graph's device form, with the
 * CPU engine's semantics (frontier/cpu_engine.c is the reference; read its comments first).
 *
 *  - push (MultiGraphS, Sec. 3.5): the frontier is cut into groups of 64 vertices, one group per
 *    block of 256 threads, and each vertex's edges are split in three stages: the last E % 32 edges
 *    by a virtual warp of 4 threads (stage 1), the next (E - E % 32) % 256 by a warp, 8 vertices
 *    per warp (stage 2), the rest (a multiple of 256) by the whole block, vertex after vertex
 *    (stage 3; the vertices that still have edges are listed in shared memory with warp-aggregated
 *    atomics). Updates go to global memory with atomics; programs whose combine and apply agree
 *    (min/min, max/max, any/if-unset, sum/add) update y directly, the others combine into a scratch
 *    accumulator and a second kernel applies once per touched destination (every eligible one for
 *    MG_APPLY_AFFINE). Output lists are appended with warp-aggregated atomics (coalesced groups).
 *    A hub's stage-3 edges (kHubEdges and more) go instead to hub_kernel, in chunks of
 *    kHubChunk edges that the whole grid shares out (one block per chunk).
 *  - pull: one thread per eligible destination, one warp for the destinations of in-degree >= 128
 *    and one block for those of 2048 and more (degree groups 2-5 and 1, contiguous ranges of new
 *    ids at the front); no atomics on y, MG_COMBINE_ANY stops at the first active source.
 * The choice uses the CPU engine's constants (frontier edges against the eligible destinations'
 * edges); ctx->mode forces either.
 *
 * Kernels are templates over value type, contribution and combine: for the built-in algorithms'
 * programs (Hot, gpu_engine_host.cuh) the per-edge code has no branches on those; every other
 * program runs its value type's generic instantiation (kRuntime). The apply is a uniform runtime
 * switch.
 * Every CUDA call is checked (MG_DEVICE_ERROR naming it, MG_OUT_OF_MEMORY for allocations). Scratch
 * arrays live in a workspace on the context, kept between calls and freed with it; a call waits
 * for the device once, at its end (and once more only when the push/pull choice needs the
 * frontier's edge count).
 */
#include "frontier/gpu_program.cuh" /* first: it includes mg_internal.h with C linkage */
#include <atomic>
#include <chrono>
#include "frontier/gpu_engine_host.cuh"
#include "core/gpu_resident.h"
#include "core/dist.h"

namespace {

constexpr const char *kEntry = "mg__gpu_advance"; /* what errors name (gpu_engine_host.cuh) */

/* Same heuristics as the CPU engine (cpu_engine.c). */
constexpr uint64_t kPushCheap = 32;
constexpr uint64_t kPullFactorAny = 15;
constexpr uint64_t kPullFactor = 2;

constexpr int kBlock = 256;          /* threads per block, all kernels                    */
constexpr int kGroup = 64;           /* frontier vertices per push block (MultiGraphS)    */
constexpr uint64_t kHubEdges = 2048; /* stage-3 edges from which a vertex goes to hub_kernel */
constexpr uint64_t kHubChunk = 2048; /* edges of one hub_kernel work item                    */
constexpr unsigned kHubBlocks = 1024;
constexpr unsigned kApplyBlocks = 1024;       /* the most blocks an apply over the touched list takes */
constexpr uint32_t kMaskListShare = 16;       /* a mask of fewer than n / this pulls from its list    */
constexpr int kHubShift = 40;        /* hub_count: (hubs << kHubShift) | chunks              */

/* ---- push ------------------------------------------------------------------------------------- */

/* One edge e of source s (per-source value xs). */
template <typename T>
__device__ __forceinline__ void push_edge(const Params<T> &P, int K, int C, T xs, uint64_t e, ull *out_count) {
    const uint32_t d = P.push_idx[e];
    if (!eligible(P, d)) return;
    const T c = edge_value<T>(P, K, xs, P.push_w, e);
    bool touched;
    const bool joined = push_update(P, C, d, c, &touched);
    if (joined && bit_claim(P.out_bm, d)) append(P.out_list, out_count, d);
    if (touched && bit_claim(P.touched, d)) append(P.tlist, P.tcount, d);
}

/* MultiGraphS: a block of 256 threads per group of 64 frontier vertices, three stages. The body is
 * a device function so that loop_kernel runs it as a phase of each step; out_count and hub_count
 * are the step's counters. */
template <typename T, int K_, int C_>
__device__ __forceinline__ void push_body(const Params<T> &P, uint32_t count, ull *out_count, ull *hub_count) {
    const int K = resolved<K_>(P.contribution), C = resolved<C_>(P.combine);
    __shared__ uint64_t s_lo[kGroup];
    __shared__ uint64_t s_deg[kGroup];
    __shared__ T s_xs[kGroup];
    __shared__ uint32_t s_big[kGroup];   /* vertices with stage-3 edges */
    __shared__ uint32_t s_nbig;
    const int tid = threadIdx.x;
    const uint32_t groups = (count + kGroup - 1) / kGroup;
    for (uint32_t grp = blockIdx.x; grp < groups; grp += gridDim.x) {
        if (tid == 0) s_nbig = 0;
        __syncthreads();
        if (tid < kGroup) {
            const uint32_t i = grp * kGroup + tid;
            uint64_t lo = 0, deg = 0;
            T xs = (T)0;
            uint32_t s = 0;
            if (i < count) {
                s = P.list ? P.list[i] : i;
                lo = P.push_off[s];
                /* with segments, the edges into groups 1-4 went through seg_push_kernel */
                if (P.seg_ptr) lo += P.seg_ptr[(uint64_t)s * (P.nseg + 1) + P.nseg];
                deg = P.push_off[s + 1] - lo;
                if (deg) xs = source_value<T>(P, K, s);
            }
            s_lo[tid] = lo;
            s_deg[tid] = deg;
            s_xs[tid] = xs;
            /* vertices of 256 edges and more keep some for stage 3: list them (warp-aggregated);
             * a hub's stage-3 edges go to hub_kernel instead, in chunks the whole grid shares (one
             * block would take them in sequence: 1.5 ms for R-MAT 22's largest vertex; a loop of
             * the grid over each hub in turn, 5.9 ms for the 1,000-odd hubs of one SSSP step).
             * One atomic numbers the hub and its first chunk, so both grow together. */
            const uint64_t r3 = deg - deg % 32 - (deg - deg % 32) % 256;
            if (r3 >= kHubEdges && P.hubs != nullptr) {
                const ull chunks = (r3 + kHubChunk - 1) / kHubChunk;
                const ull at = atomicAdd(hub_count, (1ull << kHubShift) | chunks);
                P.hubs[at >> kHubShift] = (at & ((1ull << kHubShift) - 1)) << 32 | s;
            } else if (r3 > 0) {
                cg::coalesced_group g = cg::coalesced_threads();
                uint32_t base = 0;
                if (g.thread_rank() == 0) base = atomicAdd(&s_nbig, g.size());
                base = g.shfl(base, 0);
                s_big[base + g.thread_rank()] = tid;
            }
        }
        __syncthreads();
        /* stage 1: virtual warps of 4 threads, vertex k = tid / 4: its last E % 32 edges */
        {
            const int k = tid >> 2;
            const uint64_t deg = s_deg[k], r1 = deg % 32, from = s_lo[k] + deg - r1;
            const T xs = s_xs[k];
            for (uint64_t j = tid & 3; j < r1; j += 4) push_edge<T>(P, K, C, xs, from + j, out_count);
        }
        /* stage 2: warp w takes vertices 8w..8w+7, (E - E % 32) % 256 edges each */
        {
            const int w = tid >> 5, lane = tid & 31;
            for (int k = w * 8; k < w * 8 + 8; k++) {
                const uint64_t deg = s_deg[k], rest = deg - deg % 32, r2 = rest % 256;
                const uint64_t from = s_lo[k] + rest - r2;
                const T xs = s_xs[k];
                for (uint64_t j = lane; j < r2; j += 32) push_edge<T>(P, K, C, xs, from + j, out_count);
            }
        }
        /* stage 3: the whole block, vertex after vertex, a multiple of 256 edges each */
        const uint32_t nbig = s_nbig;
        for (uint32_t b = 0; b < nbig; b++) {
            const int k = s_big[b];
            const uint64_t deg = s_deg[k], rest = deg - deg % 32, r3 = rest - rest % 256;
            const T xs = s_xs[k];
            for (uint64_t j = tid; j < r3; j += kBlock) push_edge<T>(P, K, C, xs, s_lo[k] + j, out_count);
        }
        __syncthreads(); /* the shared arrays are rewritten for the next group */
    }
}
template <typename T, int K_, int C_> __global__ void __launch_bounds__(kBlock) push_kernel(Params<T> P) {
    push_body<T, K_, C_>(P, P.count, P.out_count, P.hub_count);
}

/* Stage 3 of the hubs push_kernel listed, a chunk of kHubChunk edges per block at a time: chunk c
 * belongs to the last hub whose first chunk is <= c (the list is in that order). */
template <typename T, int K_, int C_>
__device__ __forceinline__ void hub_body(const Params<T> &P, const ull *hub_count, ull *out_count) {
    const int K = resolved<K_>(P.contribution), C = resolved<C_>(P.combine);
    const ull counted = *hub_count;
    const uint32_t hubs = (uint32_t)(counted >> kHubShift);
    const ull chunks = counted & ((1ull << kHubShift) - 1);
    for (ull c = blockIdx.x; c < chunks; c += gridDim.x) {
        uint32_t a = 0, z = hubs; /* the hub: every thread searches alike (broadcast loads) */
        while (z - a > 1) {
            const uint32_t mid = a + (z - a) / 2;
            if ((P.hubs[mid] >> 32) <= c) a = mid;
            else z = mid;
        }
        const ull h = P.hubs[a];
        const uint32_t s = (uint32_t)h;
        uint64_t lo = P.push_off[s];
        if (P.seg_ptr) lo += P.seg_ptr[(uint64_t)s * (P.nseg + 1) + P.nseg];
        const uint64_t deg = P.push_off[s + 1] - lo, rest = deg - deg % 32, r3 = rest - rest % 256;
        const uint64_t from = (c - (h >> 32)) * kHubChunk;
        const uint64_t to = from + kHubChunk < r3 ? from + kHubChunk : r3;
        const T xs = source_value<T>(P, K, s);
        for (uint64_t j = from + threadIdx.x; j < to; j += kBlock) push_edge<T>(P, K, C, xs, lo + j, out_count);
    }
}
template <typename T, int K_, int C_> __global__ void __launch_bounds__(kBlock) hub_kernel(Params<T> P) {
    hub_body<T, K_, C_>(P, P.hub_count, P.out_count);
}

/* Destination segments with shared-memory atomics (Sec. 3.5, Figure 3.7): block b takes segment
 * b % nseg of the high in-degree destinations (groups 1-4) and sub-segment b / nseg of the frontier
 * (kSubSeg vertices, a warp per vertex). Contributions are combined in shared memory (value and a
 * touched bit per destination of the segment), then each touched destination is merged into global
 * memory once per block, with the same operation push_edge does per edge. */
constexpr int kSubSeg = 1024;
constexpr int kSegBlock = 1024;

/* Shared-memory min / max with atomics only (no plain read racing the CAS, which racecheck would
 * report): the first guess is the value the segment was reset to. */
template <typename T> __device__ __forceinline__ void shared_min(T *p, T v) {
    T old = Lim<T>::max();
    while (v < old) {
        typename Word<T>::U seen = cas(p, to_word(old), to_word(v));
        if (seen == to_word(old)) return;
        old = from_word<T>(seen);
    }
}
template <typename T> __device__ __forceinline__ void shared_max(T *p, T v) {
    T old = Lim<T>::lowest();
    while (v > old) {
        typename Word<T>::U seen = cas(p, to_word(old), to_word(v));
        if (seen == to_word(old)) return;
        old = from_word<T>(seen);
    }
}
template <typename T> __device__ __forceinline__ void shared_combine(int C, T *p, T v) {
    switch (C) {
    case MG_COMBINE_MIN: shared_min(p, v); break;
    case MG_COMBINE_MAX: shared_max(p, v); break;
    case MG_COMBINE_SUM: atomic_add(p, v); break;
    default: atomic_store(p, v); break;
    }
}

template <typename T, int K_, int C_>
__global__ void __launch_bounds__(kSegBlock) seg_push_kernel(Params<T> P, uint32_t subsegs) {
    const int K = resolved<K_>(P.contribution), C = resolved<C_>(P.combine);
    extern __shared__ __align__(16) unsigned char smem[];
    T *sval = reinterpret_cast<T *>(smem);
    uint32_t *sbit = reinterpret_cast<uint32_t *>(smem + (size_t)P.seg_size * sizeof(T));
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, warps = blockDim.x >> 5;
    const uint64_t total = (uint64_t)P.nseg * subsegs;
    T init = (T)0;
    if (P.op == OP_MIN) init = Lim<T>::max();
    else if (P.op == OP_MAX) init = Lim<T>::lowest();
    else if (P.op == OP_ACC) init = identity<T>(C);
    for (uint64_t b = blockIdx.x; b < total; b += gridDim.x) {
        const uint32_t seg = (uint32_t)(b % P.nseg), sub = (uint32_t)(b / P.nseg);
        const uint32_t d0 = seg * P.seg_size;
        const uint32_t dlen = P.seg_end - d0 < P.seg_size ? P.seg_end - d0 : P.seg_size;
        for (uint32_t i = tid; i < dlen; i += blockDim.x) sval[i] = init;
        for (uint32_t i = tid; i < (dlen + 31) / 32; i += blockDim.x) sbit[i] = 0;
        __syncthreads();
        const uint32_t first = sub * kSubSeg;
        const uint32_t last = P.count - first < (uint32_t)kSubSeg ? P.count : first + kSubSeg;
        for (uint32_t i = first + warp; i < last; i += warps) {
            const uint32_t s = P.list ? P.list[i] : i;
            const uint32_t *sp = P.seg_ptr + (uint64_t)s * (P.nseg + 1) + seg;
            const uint64_t base = P.push_off[s], lo = base + sp[0], hi = base + sp[1];
            if (lo == hi) continue;
            const T xs = source_value<T>(P, K, s);
            for (uint64_t e = lo + lane; e < hi; e += 32) {
                const uint32_t d = P.push_idx[e];
                if (!eligible(P, d)) continue;
                if (P.op == OP_IF_UNSET && load(P.y + d) != P.unset) continue;
                const T c = edge_value<T>(P, K, xs, P.push_w, e);
                const uint32_t l = d - d0, word = l >> 5, mask = 1u << (l & 31);
                switch (P.op) {
                case OP_MIN: shared_min(sval + l, c); break;
                case OP_MAX: shared_max(sval + l, c); break;
                case OP_IF_UNSET:
                    /* the first to claim the bit stores its value (MG_COMBINE_ANY) */
                    if (!(atomicOr(&sbit[word], mask) & mask)) sval[l] = c;
                    continue;
                case OP_ADD: atomic_add(sval + l, c); break;
                default: shared_combine<T>(C, sval + l, c); break;
                }
                atomicOr(&sbit[word], mask);
            }
        }
        __syncthreads();
        for (uint32_t i = tid; i < dlen; i += blockDim.x) {
            if (!((sbit[i >> 5] >> (i & 31)) & 1u)) continue;
            const uint32_t d = d0 + i;
            const T v = sval[i];
            bool touched;
            const bool joined = push_update(P, C, d, v, &touched);
            if (joined && bit_claim(P.out_bm, d)) append(P.out_list, P.out_count, d);
            if (touched && bit_claim(P.touched, d)) append(P.tlist, P.tcount, d);
        }
        __syncthreads(); /* the segment's shared arrays are reset for the next block's work */
    }
}

/* The plain CSR baseline (a benchmark comparison, not an engine): one thread per active source,
 * scanning all its out-edges alone with the same global atomics. High-degree sources serialise on
 * one thread and a warp's lanes read unrelated rows: exactly what MultiGraphS's stages avoid. */
template <typename T, int K_, int C_> __global__ void __launch_bounds__(kBlock) baseline_kernel(Params<T> P) {
    const int K = resolved<K_>(P.contribution), C = resolved<C_>(P.combine);
    const uint32_t stride = gridDim.x * blockDim.x;
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < P.count; i += stride) {
        const uint32_t s = P.list ? P.list[i] : i;
        const uint64_t lo = P.push_off[s], hi = P.push_off[s + 1];
        if (lo == hi) continue;
        const T xs = source_value<T>(P, K, s);
        for (uint64_t e = lo; e < hi; e++) push_edge<T>(P, K, C, xs, e, P.out_count);
    }
}

/* After a push through the accumulator (or MG_APPLY_ADD directly into y): apply at each touched
 * destination. */
template <typename T> __global__ void apply_touched_kernel(Params<T> P) {
    const ull count = *P.tcount, stride = (ull)gridDim.x * blockDim.x;
    ull joined = 0;
    /* every lane runs the same number of rounds, so add_sum below is converged */
    for (ull r = 0, rounds = (count + stride - 1) / stride; r < rounds; r++) {
        const ull i = r * stride + blockIdx.x * (ull)blockDim.x + threadIdx.x;
        if (i >= count) continue;
        const uint32_t d = P.tlist[i];
        bool joins;
        if (P.op == OP_ADD) joins = fabs((double)load(P.y + d)) > P.eps;
        else {
            joins = apply_one(P, d, P.acc[d], true);
            P.acc[d] = identity<T>(P.combine); /* the accumulator is clean for the next step */
        }
        if (joins) join_once(P, d, joined);
    }
    add_sum(P.out_count, joined);
}

/* After a push with MG_APPLY_AFFINE: every eligible destination. */
template <typename T> __global__ void apply_all_kernel(Params<T> P) {
    const uint32_t stride = gridDim.x * blockDim.x;
    ull joined = 0;
    for (uint32_t r = 0, rounds = (P.n + stride - 1) / stride; r < rounds; r++) {
        const uint32_t d = r * stride + blockIdx.x * blockDim.x + threadIdx.x;
        if (d >= P.n || !eligible(P, d)) continue;
        const bool found = bit(P.touched, d);
        const T v = found ? P.acc[d] : (T)0;
        if (found && P.op == OP_ACC) P.acc[d] = identity<T>(P.combine);
        if (apply_one(P, d, v, found)) join_once(P, d, joined);
    }
    add_sum(P.out_count, joined);
}

template <typename T> __global__ void fill_kernel(T *a, uint32_t n, T v) {
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) a[i] = v;
}

/* ---- pull ------------------------------------------------------------------------------------- */

/* Destination d by a team of W lanes (1: a thread, 32: a warp); lane 0 applies. */
template <typename T, int W>
__device__ __forceinline__ void pull_one(const Params<T> &P, int K, int C, uint32_t d, int lane,
                                         ull &scanned, ull &joined) {
    if (!eligible(P, d)) return;
    if (P.apply == MG_APPLY_IF_UNSET && load(P.y + d) != P.unset) return;
    T acc = identity<T>(C);
    bool found = false;
    const uint64_t lo = P.pull_off[d], hi = P.pull_off[d + 1];
    uint64_t e = lo + lane;
    for (; e < hi; e += W) {
        scanned++;
        const uint32_t s = P.pull_idx[e];
        if (P.active_bm && !bit(P.active_bm, s)) continue;
        const T c = edge_value<T>(P, K, source_value<T>(P, K, s), P.pull_w, e);
        found = true;
        if (C == MG_COMBINE_ANY) { acc = c; break; }
        acc = combine<T>(C, acc, c);
    }
    if (W > 1) {
        const unsigned who = __ballot_sync(0xffffffffu, found);
        if (C == MG_COMBINE_ANY) {
            acc = who ? shfl(acc, __ffs(who) - 1) : acc;
        } else {
            for (int o = 16; o > 0; o >>= 1) acc = combine<T>(C, acc, shfl_xor(acc, o));
        }
        found = who != 0;
        if (lane != 0) return;
    }
    if ((found || P.apply == MG_APPLY_AFFINE) && apply_one(P, d, acc, found)) join_once(P, d, joined);
}

/* One thread per destination from, from + step, ... below to (step > 1: the hybrid's sample). */
template <typename T, int K_, int C_>
__global__ void __launch_bounds__(kBlock)
pull_thread_kernel(Params<T> P, uint32_t from, uint32_t to, uint32_t step) {
    const int K = resolved<K_>(P.contribution), C = resolved<C_>(P.combine);
    ull scanned = 0, joined = 0;
    const uint32_t span = (to - from + step - 1) / step;
    const uint32_t stride = gridDim.x * blockDim.x;
    /* every lane runs the same number of rounds, so the warp reduction below is converged */
    const uint32_t rounds = (span + stride - 1) / stride;
    for (uint32_t r = 0; r < rounds; r++) {
        const uint32_t i = r * stride + blockIdx.x * blockDim.x + threadIdx.x;
        if (i < span) pull_one<T, 1>(P, K, C, from + i * step, 0, scanned, joined);
    }
    add_sum(P.scanned, scanned);
    add_sum(P.out_count, joined);
}

/* One warp per destination from, from + step, ... below to (the high in-degree groups). */
template <typename T, int K_, int C_>
__global__ void __launch_bounds__(kBlock)
pull_warp_kernel(Params<T> P, uint32_t from, uint32_t to, uint32_t step) {
    const int K = resolved<K_>(P.contribution), C = resolved<C_>(P.combine);
    ull scanned = 0, joined = 0;
    const int lane = threadIdx.x & 31;
    const uint32_t warps = gridDim.x * (blockDim.x / 32);
    const uint32_t span = (to - from + step - 1) / step;
    for (uint32_t i = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32; i < span; i += warps)
        pull_one<T, 32>(P, K, C, from + i * step, lane, scanned, joined);
    add_sum(P.scanned, scanned);
    add_sum(P.out_count, joined);
}

/* One warp per destination of a list (a small mask's own list: BC's backward pass pulls one level
 * of a grid's 4M vertices, which over all destinations was 60-70 us a step). */
template <typename T, int K_, int C_>
__global__ void __launch_bounds__(kBlock)
pull_list_kernel(Params<T> P, const uint32_t *list, uint32_t count) {
    const int K = resolved<K_>(P.contribution), C = resolved<C_>(P.combine);
    ull scanned = 0, joined = 0;
    const int lane = threadIdx.x & 31;
    const uint32_t warps = gridDim.x * (blockDim.x / 32);
    for (uint32_t i = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32; i < count; i += warps)
        pull_one<T, 32>(P, K, C, list[i], lane, scanned, joined);
    add_sum(P.scanned, scanned);
    add_sum(P.out_count, joined);
}

/* One block per destination from, from + step, ... below to (the hubs: in-degree group 1, 2048 edges
 * and more; a warp would take R-MAT 22's largest, 162,775 edges, in 5,000 rounds). */
template <typename T, int K_, int C_>
__global__ void __launch_bounds__(kBlock)
pull_block_kernel(Params<T> P, uint32_t from, uint32_t to, uint32_t step) {
    const int K = resolved<K_>(P.contribution), C = resolved<C_>(P.combine);
    __shared__ T s_acc[kBlock / 32];
    __shared__ bool s_found[kBlock / 32];
    ull scanned = 0, joined = 0;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const uint32_t span = (to - from + step - 1) / step;
    for (uint32_t i = blockIdx.x; i < span; i += gridDim.x) {
        const uint32_t d = from + i * step;
        if (!eligible(P, d)) continue; /* the same d for the whole block: a uniform branch */
        if (P.apply == MG_APPLY_IF_UNSET && load(P.y + d) != P.unset) continue;
        T acc = identity<T>(C);
        bool found = false;
        const uint64_t lo = P.pull_off[d], hi = P.pull_off[d + 1];
        for (uint64_t e = lo + threadIdx.x; e < hi; e += kBlock) {
            scanned++;
            const uint32_t s = P.pull_idx[e];
            if (P.active_bm && !bit(P.active_bm, s)) continue;
            const T c = edge_value<T>(P, K, source_value<T>(P, K, s), P.pull_w, e);
            found = true;
            if (C == MG_COMBINE_ANY) { acc = c; break; }
            acc = combine<T>(C, acc, c);
        }
        const unsigned who = __ballot_sync(0xffffffffu, found);
        if (C == MG_COMBINE_ANY) {
            acc = who ? shfl(acc, __ffs(who) - 1) : acc;
        } else {
            for (int o = 16; o > 0; o >>= 1) acc = combine<T>(C, acc, shfl_xor(acc, o));
        }
        if (lane == 0) {
            s_acc[warp] = acc;
            s_found[warp] = who != 0;
        }
        __syncthreads();
        if (threadIdx.x == 0) {
            T total = identity<T>(C);
            bool any = false;
            for (int w = 0; w < kBlock / 32; w++) {
                if (!s_found[w]) continue;
                total = any && C == MG_COMBINE_ANY ? total : any ? combine<T>(C, total, s_acc[w]) : s_acc[w];
                any = true;
            }
            if ((any || P.apply == MG_APPLY_AFFINE) && apply_one(P, d, total, any)) join_once(P, d, joined);
        }
        __syncthreads(); /* s_acc is rewritten for the next destination */
    }
    add_sum(P.scanned, scanned);
    add_sum(P.out_count, joined);
}

/* ---- small kernels for the decision and the frontier's bitmap --------------------------------- */

/* Sum of degrees over the eligible vertices of a mask. */
__global__ void eligible_sum_kernel(const uint64_t *off, uint32_t n, const uint64_t *mask, bool complement,
                                    ull *sum) {
    ull mine = 0;
    const uint32_t stride = gridDim.x * blockDim.x;
    const uint32_t rounds = (n + stride - 1) / stride;
    for (uint32_t r = 0; r < rounds; r++) {
        const uint32_t v = r * stride + blockIdx.x * blockDim.x + threadIdx.x;
        if (v < n && bit(mask, v) != complement) mine += off[v + 1] - off[v];
    }
    add_sum(sum, mine);
}

/* Every step-th vertex of the list (or of all vertices): the hybrid's sample of a frontier. */
__global__ void sample_list_kernel(const uint32_t *list, uint32_t count, uint32_t step, uint32_t *sample) {
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += gridDim.x * blockDim.x)
        sample[i] = list ? list[(uint64_t)i * step] : i * step;
}

/* ---- host side -------------------------------------------------------------------------------- */

/* Device scratch kept on the context between calls (ctx->gpu_workspace). A BFS level on a road
 * graph is a few microseconds of kernel work, so per-call cudaMalloc/cudaFree and synchronising
 * copies were most of its cost (docs/PERFORMANCE.md). The arrays hold `capacity` vertices (the
 * largest graph seen on this device) and are allocated when first needed; the counters come back
 * through pinned memory in one copy at the end of the call. */
enum { CNT_OUT = 0, CNT_TOUCHED, CNT_SCANNED, CNT_FRONTIER_EDGES, CNT_ELIGIBLE_EDGES, CNT_HUBS, CNT_COUNT };

struct Workspace {
    int device;
    int sms;              /* the device's multiprocessors (mg__gpu_advance_loop's grid), 0: not asked */
    uint32_t capacity;
    ull *counters;        /* CNT_COUNT, on the device */
    ull *host_counters;   /* CNT_COUNT, pinned        */
    uint64_t *out_bm, *active_bm, *touched;
    void *scaled;         /* a pull's x[s] / outdeg(s), capacity values of up to 8 bytes */
    uint32_t *tlist;
    uint32_t *sample;     /* a push sample's frontier (mg__gpu_advance_forced with stride > 1) */
    ull *hubs;            /* the push's vertices with kHubEdges stage-3 edges and more       */
    void *acc;            /* capacity values of up to 8 bytes */
    /* acc's first acc_n values are the identity whose bytes are acc_bits (acc_size of them) while
     * acc_clean: a push's apply puts back every value it read, so a step with a small frontier
     * does not fill all n (BC's forward pass on the 2048^2 grid: 4,096 steps, 32 MB each) */
    bool acc_clean;
    uint64_t acc_bits;
    uint32_t acc_size, acc_n;
    ull *loop, *host_loop;/* mg__gpu_advance_loop's per-step counters (LOOP_COUNTERS), device
                             and pinned                                                         */
};

void workspace_free(void *p) {
    Workspace *w = static_cast<Workspace *>(p);
    if (w == nullptr) return;
    void *const arrays[] = {w->counters, w->out_bm, w->active_bm, w->touched, w->scaled, w->tlist, w->sample, w->hubs, w->acc,
                            w->loop};
    for (void *a : arrays)
        if (a != nullptr) cudaFree(a);
    if (w->host_counters != nullptr) cudaFreeHost(w->host_counters);
    if (w->host_loop != nullptr) cudaFreeHost(w->host_loop);
    mg__free(w);
}

mg_status alloc_fail(mg_context ctx, cudaError_t e, size_t bytes, const char *what) {
    (void)cudaGetLastError();
    if (e == cudaErrorMemoryAllocation)
        return mg__error(ctx, MG_OUT_OF_MEMORY, "mg__gpu_advance: out of %s memory: %zu bytes for %s",
                         strcmp(what, "the pinned counters") == 0 ? "host" : "device", bytes, what);
    return mg__error(ctx, MG_DEVICE_ERROR, "mg__gpu_advance: allocating %zu bytes for %s: %s", bytes,
                     what, cudaGetErrorString(e));
}

/* The context's workspace, (re)made for n vertices on the current device. */
mg_status workspace_get(mg_context ctx, uint32_t n, Workspace **out) {
    Workspace *w = static_cast<Workspace *>(ctx->gpu_workspace);
    int device = 0;
    cudaError_t e = cudaGetDevice(&device);
    if (e != cudaSuccess) return engine_fail(ctx, e, kEntry, "cudaGetDevice", __FILE__, __LINE__);
    if (w != nullptr && (w->device != device || w->capacity < n)) {
        workspace_free(w);
        ctx->gpu_workspace = w = nullptr;
    }
    if (w == nullptr) {
        w = static_cast<Workspace *>(mg__calloc(1, sizeof *w));
        if (w == nullptr) return mg__error(ctx, MG_OUT_OF_MEMORY, "mg__gpu_advance: out of host memory");
        w->device = device;
        w->capacity = n > 0 ? n : 1;
        const size_t bytes = CNT_COUNT * sizeof(ull);
        e = cudaMalloc(&w->counters, bytes);
        if (e != cudaSuccess) {
            workspace_free(w);
            return alloc_fail(ctx, e, bytes, "the counters");
        }
        e = cudaMallocHost(&w->host_counters, bytes);
        if (e != cudaSuccess) {
            workspace_free(w);
            return alloc_fail(ctx, e, bytes, "the pinned counters");
        }
        ctx->gpu_workspace = w;
        ctx->free_gpu_workspace = workspace_free;
    }
    *out = w;
    return MG_SUCCESS;
}

/* *array (a workspace member of `bytes`, sized from the capacity), allocated on first use. */
template <typename U> mg_status workspace_array(mg_context ctx, U **array, size_t bytes, const char *what) {
    if (*array != nullptr) return MG_SUCCESS;
    void *p = nullptr;
    cudaError_t e = bytes == SIZE_MAX ? cudaErrorMemoryAllocation : cudaMalloc(&p, bytes);
    if (e != cudaSuccess) return alloc_fail(ctx, e, bytes, what);
    *array = static_cast<U *>(p);
    return MG_SUCCESS;
}

template <typename T, int K, int C> void launch_push(const Params<T> &P, unsigned grid) {
    push_kernel<T, K, C><<<grid, kBlock>>>(P);
}
template <typename T, int K, int C> void launch_hubs(const Params<T> &P) {
    hub_kernel<T, K, C><<<kHubBlocks, kBlock>>>(P);
}
template <typename T, int K, int C> void launch_seg(const Params<T> &P, uint32_t subsegs, size_t shmem,
                                                     cudaError_t *err) {
    *err = cudaFuncSetAttribute(seg_push_kernel<T, K, C>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                (int)shmem);
    if (*err != cudaSuccess) return;
    const uint64_t blocks = (uint64_t)P.nseg * subsegs;
    seg_push_kernel<T, K, C><<<(unsigned)(blocks > 65535u * 4 ? 65535u * 4 : blocks), kSegBlock, shmem>>>(
        P, subsegs);
}
template <typename T, int K, int C> void launch_baseline(const Params<T> &P, unsigned grid) {
    baseline_kernel<T, K, C><<<grid, kBlock>>>(P);
}
template <typename T, int K, int C> void launch_pull_list(const Params<T> &P, const uint32_t *list, uint32_t count) {
    const uint64_t threads = (uint64_t)count * 32;
    pull_list_kernel<T, K, C><<<grid_for(threads) < kApplyBlocks ? grid_for(threads) : kApplyBlocks, kBlock>>>(
        P, list, count);
}
template <typename T, int K, int C> void launch_pull(const Params<T> &P, uint32_t block_end, uint32_t warp_end,
                                                    uint32_t own_from, uint32_t own_to, uint32_t step) {
    if (block_end > 0)
        pull_block_kernel<T, K, C><<<grid_for((uint64_t)block_end * kBlock / step), kBlock>>>(P, 0, block_end, step);
    if (warp_end > block_end)
        pull_warp_kernel<T, K, C><<<grid_for((uint64_t)(warp_end - block_end) * 32 / step), kBlock>>>(
            P, block_end, warp_end, step);
    if (own_to > own_from)
        pull_thread_kernel<T, K, C><<<grid_for((own_to - own_from) / step), kBlock>>>(P, own_from, own_to, step);
}

/* how: MG__GPU_STEP_RULE (ctx->mode, else the push/pull rule below), or forced push or pull; a
 * stride > 1 runs a sample: every stride-th frontier vertex (push) or destination (pull). */
template <typename T>
mg_status advance_t(mg_context ctx, mg__gpu_advance_args *a, mg_advance_info *info, bool baseline,
                    mg__gpu_step how, uint32_t stride) {
    const mg__gpu_graph *g = a->g;
    const mg_program *p = a->program;
    const uint32_t n = g->n;
    const size_t words = mg__bitmap_words(n);
    const bool along_out = p->edges == MG_EDGES_OUT;
    Workspace *w = nullptr;
    TRY(workspace_get(ctx, n, &w));
    const size_t cap_words = mg__bitmap_words(w->capacity);
    Params<T> P;
    params_init(P, a);
    if (stride > 1 && how == MG__GPU_STEP_PUSH && P.count > 0) {
        const uint32_t sampled = (uint32_t)(((uint64_t)P.count + stride - 1) / stride);
        TRY(workspace_array(ctx, &w->sample, (size_t)w->capacity * sizeof(uint32_t), "the frontier sample"));
        sample_list_kernel<<<grid_for(sampled), kBlock>>>(P.list, sampled, stride, w->sample);
        LAUNCHED("sample_list_kernel");
        P.list = w->sample;
        P.count = sampled;
    }
    if (how != MG__GPU_STEP_PULL) stride = 1;

    ull *counters = w->counters;
    CU(cudaMemsetAsync(counters, 0, CNT_COUNT * sizeof(ull)));
    P.out_count = counters + CNT_OUT;
    P.tcount = counters + CNT_TOUCHED;
    P.scanned = counters + CNT_SCANNED;
    if (a->d_out_bitmap) P.out_bm = a->d_out_bitmap;
    else {
        TRY(workspace_array(ctx, &w->out_bm, cap_words * sizeof(uint64_t), "the output bitmap"));
        P.out_bm = w->out_bm;
    }
    CU(cudaMemsetAsync(P.out_bm, 0, words * sizeof(uint64_t)));

    /* The frontier's edges: summed on the device, read with the other counters at the end unless
     * the decision needs them now. Every vertex active: all m edges. */
    if (P.list != nullptr && P.count > 0) {
        mg__gpu_degree_sum_async(P.push_off, P.list, P.count, counters + CNT_FRONTIER_EDGES);
        LAUNCHED("degree_sum");
    }
    ull mf = P.list != nullptr ? 0 : g->m;
    bool mf_known = P.list == nullptr || P.count == 0;

    /* Decide push or pull, as cpu_engine.c does. When even the largest degree times the frontier
     * size is cheap, push without waiting for the sum (a road graph's levels never wait). */
    const uint64_t max_degree = along_out ? g->max_out_degree : g->max_in_degree;
    bool pull;
    if (how != MG__GPU_STEP_RULE) pull = how == MG__GPU_STEP_PULL;
    else if (baseline || ctx->mode == MG_MODE_SPARSE) pull = false; /* the baseline always pushes */
    else if (ctx->mode == MG_MODE_PULL || ctx->mode == MG_MODE_DENSE) pull = true; /* dense: dense_engine.cu */
    else if (a->d_in_list == nullptr || p->apply == MG_APPLY_AFFINE) pull = true;
    else if ((uint64_t)P.count * max_degree < g->m / kPushCheap) pull = false;
    else {
        CU(cudaMemcpy(&mf, counters + CNT_FRONTIER_EDGES, sizeof mf, cudaMemcpyDeviceToHost));
        mf_known = true;
        if (mf < g->m / kPushCheap) pull = false;
        else {
            ull elig = g->m;
            if (P.mask) {
                eligible_sum_kernel<<<grid_for(n), kBlock>>>(P.pull_off, n, P.mask, P.complement,
                                                             counters + CNT_ELIGIBLE_EDGES);
                LAUNCHED("eligible_sum_kernel");
                CU(cudaMemcpy(&elig, counters + CNT_ELIGIBLE_EDGES, sizeof elig, cudaMemcpyDeviceToHost));
            }
            const uint64_t factor = p->combine == MG_COMBINE_ANY ? kPullFactorAny : kPullFactor;
            pull = mf * factor > elig;
        }
    }

    int K = (int)p->contribution;
    const int C = (int)p->combine;
    bool acc_step = false; /* this step used (and put back) the accumulator */
    if (pull) {
        if (a->d_in_list != nullptr) {
            TRY(workspace_array(ctx, &w->active_bm, cap_words * sizeof(uint64_t), "the active-source bitmap"));
            CU(cudaMemsetAsync(w->active_bm, 0, words * sizeof(uint64_t)));
            mg__gpu_list_to_bitmap_async(a->d_in_list, a->in_count, w->active_bm);
            LAUNCHED("list_to_bitmap");
            P.active_bm = w->active_bm;
        }
        /* along MG_EDGES_OUT the pull scans in-edges: degree group 1 (in-degree >= 2048) gets a
         * block each, groups 2-5 (>= 128) a warp; along MG_EDGES_IN the groups say nothing about
         * out-degrees, unless the graph is undirected (then they are the same: BC's backward
         * pass pulls its hubs with blocks) */
        const bool grouped = along_out || g->in_shares_out;
        const uint32_t block_end = grouped ? g->group_start[1] : 0;
        const uint32_t warp_end = grouped ? g->group_start[MG__GPU_GROUPS - 1] : 0;
        const uint32_t own_from = grouped ? g->own_from : 0, own_to = grouped ? g->own_to : n;
        /* a small mask's destinations from its own list, a warp each (the whole pull, not a
         * sample), where no destination has hub degree: R-MAT 20's BC, whose early levels hold
         * its hubs, was 1.3x slower so than with a block per hub (A/B on the H100, session 18) */
        const uint64_t pull_degree = along_out ? g->max_in_degree : g->max_out_degree;
        const bool by_list = stride == 1 && a->d_mask_list != nullptr && !P.complement &&
                             a->mask_count < n / kMaskListShare && pull_degree < kHubEdges;
        /* the sources divided once (R-MAT 26's PageRank: one random read per edge, not two) */
        if (K == MG_CONTRIB_SRC_DIV_OUTDEG && !by_list && n > 0) {
            TRY(workspace_array(ctx, &w->scaled, (size_t)w->capacity * 8, "the scaled source values"));
            scale_kernel<T><<<grid_for(n), kBlock>>>(P, static_cast<T *>(w->scaled));
            LAUNCHED("scale_kernel");
            P.x = static_cast<const T *>(w->scaled);
            K = P.contribution = MG_CONTRIB_SRC;
        }
        /* On a rank's share the vector exchange can run beside the pull: the own low destinations
         * first (most of the vertices, the fewest edges), their values sent while the high ones
         * are pulled, then the high ones (core/dist.h). Not where the pull reads the values it
         * receives (x is y). The ranks agree on it here, before any of them sends. */
        bool overlap = false;
        if (a->dist != nullptr && stride == 1) {
            const bool offer = !by_list && n > 0 && grouped && static_cast<const void *>(P.x) != a->d_y;
            mg_status st = offer ? mg__dist_gpu_overlap_prepare(ctx) : MG_SUCCESS;
            st = mg__dist_agree_step(ctx, st, offer, &overlap);
            a->dist->agreed = true;
            if (st != MG_SUCCESS) return st;
        }
        if (by_list && a->mask_count > 0) {
            LAUNCH_BY_PROGRAM(Hot<T>, K, C, launch_pull_list, P, a->d_mask_list, a->mask_count);
            LAUNCHED("pull list kernel");
        } else if (overlap) {
            LAUNCH_BY_PROGRAM(Hot<T>, K, C, launch_pull, P, 0, 0, own_from, own_to, 1);
            LAUNCHED("pull kernel (own low destinations)");
            TRY(mg__dist_gpu_overlap_low(ctx, a->share, a->d_y, sizeof(T)));
            LAUNCH_BY_PROGRAM(Hot<T>, K, C, launch_pull, P, block_end, warp_end, 0, 0, 1);
            LAUNCHED("pull kernel (high destinations)");
            TRY(mg__dist_gpu_overlap_high(ctx, a->share, a->d_y, sizeof(T)));
            a->dist->exchanged = true;
        } else if (!by_list && n > 0) {
            LAUNCH_BY_PROGRAM(Hot<T>, K, C, launch_pull, P, block_end, warp_end, own_from, own_to, stride);
            LAUNCHED("pull kernel");
        }
    } else {
        P.op = push_op(p);
        if (P.op == OP_ACC || P.op == OP_ADD) {
            TRY(workspace_array(ctx, &w->touched, cap_words * sizeof(uint64_t), "the touched bitmap"));
            TRY(workspace_array(ctx, &w->tlist, (size_t)w->capacity * sizeof(uint32_t), "the touched list"));
            P.touched = w->touched;
            P.tlist = w->tlist;
            CU(cudaMemsetAsync(P.touched, 0, words * sizeof(uint64_t)));
        }
        if (P.op == OP_ACC) {
            TRY(workspace_array(ctx, &w->acc, (size_t)w->capacity * 8, "the accumulator"));
            P.acc = static_cast<T *>(w->acc);
            const T id = host_identity<T>(C);
            uint64_t bits = 0;
            memcpy(&bits, &id, sizeof id);
            const bool clean = w->acc_clean && w->acc_bits == bits && w->acc_size == sizeof(T) && w->acc_n >= n;
            w->acc_clean = false; /* until this step's apply has put back what it read */
            if (!clean && n > 0) {
                fill_kernel<T><<<grid_for(n), kBlock>>>(P.acc, n, id);
                LAUNCHED("fill_kernel");
                w->acc_bits = bits;
                w->acc_size = sizeof(T);
                w->acc_n = n;
            }
            acc_step = true;
        }
        if (P.count > 0 && baseline) {
            LAUNCH_BY_PROGRAM(Hot<T>, K, C, launch_baseline, P, grid_for(P.count));
            LAUNCHED("baseline_kernel");
        } else if (P.count > 0) {
            /* high in-degree destinations (groups 1-4) through shared-memory segments, along the
             * out-edges where the groups describe the destinations */
            if (along_out && g->seg_count > 0 && g->d_seg_ptr != nullptr) {
                P.seg_ptr = g->d_seg_ptr;
                P.nseg = g->seg_count;
                P.seg_size = g->seg_size;
                P.seg_end = g->group_start[4];
                const uint32_t subsegs = (P.count + kSubSeg - 1) / kSubSeg;
                const size_t shmem = (size_t)g->seg_size * sizeof(T) + ((size_t)g->seg_size + 31) / 32 * 4;
                cudaError_t err = cudaSuccess;
                LAUNCH_BY_PROGRAM(Hot<T>, K, C, launch_seg, P, subsegs, shmem, &err);
                CU(err);
                LAUNCHED("seg_push_kernel");
            }
            /* hubs only where the graph has them (a road graph's thousands of levels pay nothing) */
            if ((along_out ? g->max_out_degree : g->max_in_degree) >= kHubEdges) {
                TRY(workspace_array(ctx, &w->hubs, (size_t)w->capacity * sizeof(ull), "the hub list"));
                P.hubs = w->hubs;
                P.hub_count = counters + CNT_HUBS;
            }
            const uint32_t groups = (P.count + kGroup - 1) / kGroup;
            const unsigned grid = groups > 65535u * 4 ? 65535u * 4 : groups;
            LAUNCH_BY_PROGRAM(Hot<T>, K, C, launch_push, P, grid);
            LAUNCHED("push_kernel");
            if (P.hubs != nullptr) {
                LAUNCH_BY_PROGRAM(Hot<T>, K, C, launch_hubs, P);
                LAUNCHED("hub_kernel");
            }
        }
        if (p->apply == MG_APPLY_AFFINE) {
            if (n > 0) {
                apply_all_kernel<T><<<grid_for(n), kBlock>>>(P);
                LAUNCHED("apply_all_kernel");
            }
        } else if (P.op == OP_ACC || P.op == OP_ADD) {
            /* over the touched list (its length is on the device): a grid of at most kApplyBlocks
             * loops, where grid_for(n) launched 16k blocks a step on 4M vertices, nearly all idle */
            const uint32_t blocks = grid_for(n) < kApplyBlocks ? grid_for(n) : kApplyBlocks;
            apply_touched_kernel<T><<<blocks, kBlock>>>(P);
            LAUNCHED("apply_touched_kernel");
        }
    }
    /* the one wait of a call: the counters, after every kernel above */
    CU(cudaMemcpyAsync(w->host_counters, counters, CNT_COUNT * sizeof(ull), cudaMemcpyDeviceToHost));
    CU(cudaStreamSynchronize(0));
    if (acc_step) w->acc_clean = true;
    if (!mf_known) mf = w->host_counters[CNT_FRONTIER_EDGES];
    const ull out = w->host_counters[CNT_OUT];
    a->out_count = (uint32_t)out;
    info->frontier_vertices = P.count;
    info->frontier_edges = mf;
    info->edges_scanned = pull ? w->host_counters[CNT_SCANNED] : mf;
    info->output_vertices = (uint32_t)out;
    info->pulled = pull;
    info->seconds = 0;
    return MG_SUCCESS;
}


/* ---- mg__gpu_advance_loop: steps without the host ------------------------------------------- */

/* The loop's counters, one device array (zeroed per stretch) and its pinned copy: step j's
 * frontier size and edges (entry j), its raw output's size, and what the mask and far pile gained. */
constexpr uint32_t kLoopSteps = MG__GPU_LOOP_MAX_STEPS;
enum : uint32_t {
    LOOP_COUNT = 0,                           /* kLoopSteps + 1: the frontier entering step j   */
    LOOP_EDGES = LOOP_COUNT + kLoopSteps + 1, /* kLoopSteps + 1: its edges along the push         */
    LOOP_RAW = LOOP_EDGES + kLoopSteps + 1,   /* kLoopSteps: step j's output                      */
    LOOP_HUBS = LOOP_RAW + kLoopSteps,        /* kLoopSteps: step j's hub_count                   */
    LOOP_MASK = LOOP_HUBS + kLoopSteps,
    LOOP_FAR,
    LOOP_COUNTERS
};

struct LoopCommit {
    const uint32_t *raw;      /* step j's output (the push's out_list), raw count at LOOP_RAW + j */
    uint64_t *dedupe;         /* the push's out_bm: cleared again bit by bit                       */
    uint32_t *next;           /* the next frontier                                                 */
    const uint64_t *push_off; /* its edges                                                         */
    ull *counters;
    int32_t *step32;
    int64_t *step64;
    int64_t first_step;
    uint64_t *mask;
    uint32_t *mask_list;      /* already past the mask's own entries */
    uint64_t *far;
    uint32_t *far_list;       /* already past the pile's own entries */
    double far_from;
};

/* Step j's output, as mg_advance_loop says: each vertex gets its step, joins the mask, and goes to
 * the far pile or the next frontier (whose edges are summed for step j + 1's check). The loop keeps
 * every lane of a warp on the same trip, so the edge sums reduce per warp. */
template <typename T> __device__ __forceinline__ void commit_body(const LoopCommit &L, const T *y, uint32_t j) {
    const ull count = L.counters[LOOP_RAW + j];
    ull edges = 0;
    for (ull base = (ull)blockIdx.x * kBlock; base < count; base += (ull)gridDim.x * kBlock) {
        const ull i = base + threadIdx.x;
        if (i < count) {
            const uint32_t v = L.raw[i];
            atomicAnd(reinterpret_cast<ull *>(&L.dedupe[v >> 6]), ~(1ull << (v & 63)));
            if (L.step32 != nullptr) L.step32[v] = (int32_t)(L.first_step + j);
            if (L.step64 != nullptr) L.step64[v] = L.first_step + j;
            if (L.mask != nullptr && bit_claim(L.mask, v)) append(L.mask_list, L.counters + LOOP_MASK, v);
            if (L.far != nullptr && (double)load(y + v) >= L.far_from) {
                if (bit_claim(L.far, v)) append(L.far_list, L.counters + LOOP_FAR, v);
            } else {
                append(L.next, L.counters + LOOP_COUNT + j + 1, v);
                edges += L.push_off[v + 1] - L.push_off[v];
            }
        }
        for (int o = 16; o > 0; o >>= 1) edges += __shfl_xor_sync(0xffffffffu, edges, o);
        if ((threadIdx.x & 31) == 0 && edges) atomicAdd(L.counters + LOOP_EDGES + j + 1, edges);
        edges = 0;
    }
}

/* The stretch as one persistent kernel (a cooperative launch: every block resident, grid.sync()
 * between phases): per step the push (MultiGraphS, push_body), the hubs it listed, the commit. Every
 * thread reads the same counters after a grid.sync(), so all leave the loop together: at an empty
 * frontier, or before a step whose frontier has more than edge_limit edges (the host takes it). */
template <typename T, int K_, int C_>
__global__ void __launch_bounds__(kBlock) loop_kernel(Params<T> P, LoopCommit L, uint32_t steps, ull edge_limit,
                                                      bool hubs) {
    cg::grid_group grid = cg::this_grid();
    ull *c = L.counters;
    for (uint32_t j = 0; j < steps; j++) {
        const ull count = *(volatile ull *)&c[LOOP_COUNT + j];
        if (count == 0 || *(volatile ull *)&c[LOOP_EDGES + j] > edge_limit) break;
        push_body<T, K_, C_>(P, (uint32_t)count, c + LOOP_RAW + j, c + LOOP_HUBS + j);
        grid.sync();
        if (hubs) {
            hub_body<T, K_, C_>(P, c + LOOP_HUBS + j, c + LOOP_RAW + j);
            grid.sync();
        }
        commit_body<T>(L, P.y, j);
        grid.sync();
    }
}

uint64_t clamp_u64(uint64_t v, uint64_t lo, uint64_t hi) { return v < lo ? lo : v > hi ? hi : v; }

/* A cooperative launch of loop_kernel<T, K, C> on at most `want` blocks (never more than can be
 * resident at once, which a grid.sync() needs). */
constexpr int kLoopDevices = 64; /* devices whose occupancy launch_loop remembers */

template <typename T, int K, int C>
void launch_loop(Params<T> P, LoopCommit L, uint32_t steps, ull edge_limit, bool hubs, unsigned want,
                 int device, int sms, cudaError_t *err) {
    /* asked once per device (a process may hold GPUs of different architectures); SSSP runs a
     * stretch per bucket, hundreds a call */
    static std::atomic<int> remembered[kLoopDevices]; /* contexts on several threads share it */
    int per_sm = device >= 0 && device < kLoopDevices ? remembered[device].load(std::memory_order_relaxed) : 0;
    if (per_sm == 0) {
        *err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, loop_kernel<T, K, C>, kBlock, 0);
        if (*err != cudaSuccess) return;
        if (device >= 0 && device < kLoopDevices) remembered[device].store(per_sm, std::memory_order_relaxed);
    }
    const unsigned most = (unsigned)(sms * per_sm);
    const unsigned grid = want < most ? want : most;
    void *args[] = {&P, &L, &steps, &edge_limit, &hubs};
    *err = cudaLaunchCooperativeKernel(reinterpret_cast<const void *>(loop_kernel<T, K, C>), dim3(grid ? grid : 1),
                                       dim3(kBlock), args, 0, 0);
}

template <typename T> mg_status advance_loop_t(mg_context ctx, mg__gpu_advance_args *a, mg__gpu_loop *L,
                                               mg_advance_info *infos) {
    const mg__gpu_graph *g = a->g;
    const mg_program *p = a->program;
    Workspace *w = nullptr;
    TRY(workspace_get(ctx, g->n, &w));
    const size_t loop_bytes = LOOP_COUNTERS * sizeof(ull);
    TRY(workspace_array(ctx, &w->loop, loop_bytes, "the loop's counters"));
    if (w->host_loop == nullptr) {
        cudaError_t e = cudaMallocHost(&w->host_loop, loop_bytes);
        if (e != cudaSuccess) return alloc_fail(ctx, e, loop_bytes, "the pinned counters");
    }
    const uint32_t steps = L->max_steps < kLoopSteps ? L->max_steps : kLoopSteps;
    ull *c = w->loop;
    CU(cudaMemsetAsync(c, 0, loop_bytes));
    CU(cudaMemsetAsync(a->d_out_bitmap, 0, mg__bitmap_words(g->n) * sizeof(uint64_t)));
    w->host_loop[LOOP_COUNT] = a->in_count; /* the stretch's one upload: step 0's frontier size */
    CU(cudaMemcpyAsync(c + LOOP_COUNT, w->host_loop + LOOP_COUNT, sizeof(ull), cudaMemcpyHostToDevice));

    Params<T> P;
    params_init(P, a);
    P.list = L->d_frontier;
    P.op = push_op(p);
    P.out_bm = a->d_out_bitmap;
    const ull edge_limit = g->m / kPushCheap;
    if (a->in_count > 0) {
        mg__gpu_degree_sum_async(P.push_off, L->d_frontier, a->in_count, c + LOOP_EDGES);
        LAUNCHED("degree_sum");
    }
    LoopCommit C;
    memset(&C, 0, sizeof C);
    C.raw = a->d_out_list;
    C.dedupe = a->d_out_bitmap;
    C.next = L->d_frontier;
    C.push_off = P.push_off;
    C.counters = c;
    C.step32 = L->d_step_of && L->step_of_32 ? static_cast<int32_t *>(L->d_step_of) : nullptr;
    C.step64 = L->d_step_of && !L->step_of_32 ? static_cast<int64_t *>(L->d_step_of) : nullptr;
    C.first_step = L->first_step;
    C.mask = L->d_mask;
    C.mask_list = L->d_mask_list ? L->d_mask_list + L->mask_count : nullptr;
    C.far = L->d_far;
    C.far_list = L->d_far_list ? L->d_far_list + L->far_count : nullptr;
    C.far_from = L->far_from;
    /* hubs as in a step of advance_t: one block would take milliseconds over R-MAT's largest */
    const bool hubs = (p->edges == MG_EDGES_OUT ? g->max_out_degree : g->max_in_degree) >= kHubEdges;
    if (hubs) {
        TRY(workspace_array(ctx, &w->hubs, (size_t)w->capacity * sizeof(ull), "the hub list"));
        P.hubs = w->hubs;
    }
    /* blocks for the push of twice the largest frontier seen lately, one per SM at least (a
     * grid.sync() costs more the more blocks wait in it; the phases loop over what does not fit,
     * and a stretch's frontier may grow far past the one it started with) */
    if (w->sms == 0) CU(cudaDeviceGetAttribute(&w->sms, cudaDevAttrMultiProcessorCount, w->device));
    const uint64_t hint = L->grid_hint > a->in_count ? L->grid_hint : a->in_count;
    const unsigned want = (unsigned)clamp_u64((2 * hint + kGroup - 1) / kGroup, (uint64_t)w->sms, 65535);
    cudaError_t err = cudaSuccess;
    const int K = (int)p->contribution, Cb = (int)p->combine;
    LAUNCH_BY_PROGRAM(Hot<T>, K, Cb, launch_loop, P, C, steps, edge_limit, hubs, want, w->device, w->sms, &err);
    CU(err);
    CU(cudaMemcpyAsync(w->host_loop, c, loop_bytes, cudaMemcpyDeviceToHost));
    CU(cudaStreamSynchronize(0));
    const ull *h = w->host_loop;
    uint32_t ran = 0;
    while (ran < steps && h[LOOP_COUNT + ran] > 0 && h[LOOP_EDGES + ran] <= edge_limit) {
        mg_advance_info *info = &infos[ran];
        memset(info, 0, sizeof *info);
        info->frontier_vertices = (uint32_t)h[LOOP_COUNT + ran];
        info->frontier_edges = info->edges_scanned = h[LOOP_EDGES + ran];
        info->output_vertices = (uint32_t)h[LOOP_RAW + ran];
        ran++;
    }
    L->ran = ran;
    L->left = (uint32_t)h[LOOP_COUNT + ran];
    L->mask_added = (uint32_t)h[LOOP_MASK];
    L->far_added = (uint32_t)h[LOOP_FAR];
    return MG_SUCCESS;
}

/* Every entry point: the same checks, then the engine or the baseline. */
mg_status advance_entry(mg_context ctx, mg__gpu_advance_args *a, mg_advance_info *info, bool baseline,
                        mg__gpu_step how, uint32_t stride) {
    TRY(check_args(ctx, kEntry, a, info));
    switch (a->type) {
    case MG_INT32: case MG_VERTEX: return advance_t<int32_t>(ctx, a, info, baseline, how, stride);
    case MG_INT64: return advance_t<int64_t>(ctx, a, info, baseline, how, stride);
    case MG_FLOAT: return advance_t<float>(ctx, a, info, baseline, how, stride);
    case MG_DOUBLE: return advance_t<double>(ctx, a, info, baseline, how, stride);
    }
    return mg__error(ctx, MG_INVALID_ARGUMENT, "mg__gpu_advance: unknown value type %d", (int)a->type);
}

} // namespace

extern "C" mg_status mg__gpu_advance(mg_context ctx, mg__gpu_advance_args *a, mg_advance_info *info) {
    return advance_entry(ctx, a, info, false, MG__GPU_STEP_RULE, 1);
}

extern "C" mg_status mg__gpu_advance_forced(mg_context ctx, mg__gpu_advance_args *a, mg_advance_info *info,
                                            mg__gpu_step how, uint32_t stride) {
    if (how != MG__GPU_STEP_PUSH && how != MG__GPU_STEP_PULL)
        return mg__error(ctx, MG_INVALID_ARGUMENT, "mg__gpu_advance_forced: how must be push or pull");
    return advance_entry(ctx, a, info, false, how, stride > 1 ? stride : 1);
}

extern "C" mg_status mg__gpu_advance_baseline(mg_context ctx, mg__gpu_advance_args *a, mg_advance_info *info) {
    return advance_entry(ctx, a, info, true, MG__GPU_STEP_RULE, 1);
}

extern "C" mg_status mg__gpu_advance_loop(mg_context ctx, mg__gpu_advance_args *a, mg__gpu_loop *loop,
                                          mg_advance_info *infos) {
    mg_advance_info first;
    TRY(check_args(ctx, kEntry, a, &first));
    if (loop == nullptr || infos == nullptr || loop->d_frontier == nullptr || a->d_out_list == nullptr ||
        a->d_out_bitmap == nullptr)
        return mg__error(ctx, MG_INVALID_ARGUMENT, "mg__gpu_advance_loop: NULL loop, infos or list");
    const int op = push_op(a->program);
    if ((op != OP_MIN && op != OP_MAX && op != OP_IF_UNSET) || a->program->apply == MG_APPLY_AFFINE)
        return mg__error(ctx, MG_INVALID_ARGUMENT, "mg__gpu_advance_loop: the program's push does not "
                         "update y directly (MIN, MAX or IF_UNSET with their combine)");
    switch (a->type) {
    case MG_INT32: case MG_VERTEX: return advance_loop_t<int32_t>(ctx, a, loop, infos);
    case MG_INT64: return advance_loop_t<int64_t>(ctx, a, loop, infos);
    case MG_FLOAT: return advance_loop_t<float>(ctx, a, loop, infos);
    case MG_DOUBLE: return advance_loop_t<double>(ctx, a, loop, infos);
    }
    return mg__error(ctx, MG_INVALID_ARGUMENT, "mg__gpu_advance_loop: unknown value type %d", (int)a->type);
}

extern "C" mg_status mg__gpu_frontier_edges(mg_context ctx, const mg__gpu_graph *g, mg_edges edges,
                                            const uint32_t *d_list, uint32_t count, uint64_t *edges_out) {
    *edges_out = d_list == nullptr ? g->m : 0;
    if (d_list == nullptr || count == 0) return MG_SUCCESS;
    Workspace *w = nullptr;
    TRY(workspace_get(ctx, g->n, &w));
    const uint64_t *off = edges == MG_EDGES_OUT ? g->d_out_offsets : g->d_in_offsets;
    CU(cudaMemsetAsync(w->counters + CNT_FRONTIER_EDGES, 0, sizeof(ull)));
    mg__gpu_degree_sum_async(off, d_list, count, w->counters + CNT_FRONTIER_EDGES);
    LAUNCHED("degree_sum");
    CU(cudaMemcpy(w->host_counters + CNT_FRONTIER_EDGES, w->counters + CNT_FRONTIER_EDGES, sizeof(ull),
                  cudaMemcpyDeviceToHost));
    *edges_out = w->host_counters[CNT_FRONTIER_EDGES];
    return MG_SUCCESS;
}

/* ---- timing with CUDA events ------------------------------------------------------------------ */

struct mg__gpu_timer {
    cudaEvent_t start, stop;
    std::chrono::steady_clock::time_point held_until; /* mg__gpu_timer_hold's end, as the host sees it */
    bool held;
    int late; /* held samples whose stop was recorded after the hold's end */
};

namespace {
/* One thread that spins for ns nanoseconds of the global timer. */
__global__ void hold_kernel(unsigned long long ns) {
    unsigned long long start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do {
        __nanosleep(500);
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    } while (now - start < ns);
}
} // namespace

extern "C" mg_status mg__gpu_timer_create(mg_context ctx, mg__gpu_timer **out) {
    if (out == nullptr) return mg__error(ctx, MG_INVALID_ARGUMENT, "mg__gpu_timer_create: NULL out");
    *out = nullptr;
    mg__gpu_timer *t = static_cast<mg__gpu_timer *>(mg__calloc(1, sizeof *t));
    if (t == nullptr) return mg__error(ctx, MG_OUT_OF_MEMORY, "mg__gpu_timer_create: out of host memory");
    cudaError_t e = cudaEventCreate(&t->start);
    if (e == cudaSuccess) {
        e = cudaEventCreate(&t->stop);
        if (e != cudaSuccess) cudaEventDestroy(t->start);
    }
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        mg__free(t);
        return mg__error(ctx, MG_DEVICE_ERROR, "mg__gpu_timer_create: cudaEventCreate: %s",
                         cudaGetErrorString(e));
    }
    *out = t;
    return MG_SUCCESS;
}

extern "C" mg_status mg__gpu_timer_hold(mg_context ctx, mg__gpu_timer *t, double us) {
    if (t == nullptr) return mg__error(ctx, MG_INVALID_ARGUMENT, "mg__gpu_timer_hold: NULL timer");
    t->held_until = std::chrono::steady_clock::now() + std::chrono::nanoseconds((long long)(us * 1e3));
    hold_kernel<<<1, 1>>>((unsigned long long)(us * 1e3));
    const cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess)
        return mg__error(ctx, MG_DEVICE_ERROR, "mg__gpu_timer_hold: the hold kernel: %s", cudaGetErrorString(e));
    t->held = true;
    return MG_SUCCESS;
}

extern "C" int mg__gpu_timer_late(mg__gpu_timer *t) {
    const int late = t->late;
    t->late = 0;
    return late;
}

extern "C" mg_status mg__gpu_timer_start(mg_context ctx, mg__gpu_timer *t) {
    if (t == nullptr) return mg__error(ctx, MG_INVALID_ARGUMENT, "mg__gpu_timer_start: NULL timer");
    cudaError_t e = cudaEventRecord(t->start, 0);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return mg__error(ctx, MG_DEVICE_ERROR, "mg__gpu_timer_start: cudaEventRecord: %s",
                         cudaGetErrorString(e));
    }
    return MG_SUCCESS;
}

extern "C" mg_status mg__gpu_timer_stop(mg_context ctx, mg__gpu_timer *t, double *ms) {
    if (t == nullptr || ms == nullptr)
        return mg__error(ctx, MG_INVALID_ARGUMENT, "mg__gpu_timer_stop: NULL %s", t ? "ms" : "timer");
    *ms = 0;
    float f = 0;
    cudaError_t e = cudaEventRecord(t->stop, 0);
    if (t->held) {
        t->held = false;
        if (std::chrono::steady_clock::now() >= t->held_until) t->late++;
    }
    if (e == cudaSuccess) e = cudaEventSynchronize(t->stop);
    if (e == cudaSuccess) e = cudaEventElapsedTime(&f, t->start, t->stop);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return mg__error(ctx, MG_DEVICE_ERROR, "mg__gpu_timer_stop: %s", cudaGetErrorString(e));
    }
    *ms = f;
    return MG_SUCCESS;
}

extern "C" void mg__gpu_timer_free(mg__gpu_timer **t) {
    if (t == nullptr || *t == nullptr) return;
    cudaEventDestroy((*t)->start);
    cudaEventDestroy((*t)->stop);
    mg__free(*t);
    *t = nullptr;
}

extern "C" mg_status mg__gpu_alloc(mg_context ctx, void **ptr, size_t bytes) {
    if (ptr == nullptr) return mg__error(ctx, MG_INVALID_ARGUMENT, "mg__gpu_alloc: NULL ptr");
    *ptr = nullptr;
    if (bytes == 0) return MG_SUCCESS;
    cudaError_t e = cudaMalloc(ptr, bytes);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        *ptr = nullptr;
        return mg__error(ctx, e == cudaErrorMemoryAllocation ? MG_OUT_OF_MEMORY : MG_DEVICE_ERROR,
                         "mg__gpu_alloc: cudaMalloc of %zu bytes: %s", bytes, cudaGetErrorString(e));
    }
    return MG_SUCCESS;
}

extern "C" void mg__gpu_free(void *ptr) {
    if (ptr != nullptr) cudaFree(ptr);
}

extern "C" mg_status mg__gpu_copy_to_device(mg_context ctx, void *device, const void *host, size_t bytes) {
    if (bytes == 0) return MG_SUCCESS;
    if (host == nullptr || device == nullptr)
        return mg__error(ctx, MG_INVALID_ARGUMENT, "mg__gpu_copy_to_device: NULL %s pointer for %zu "
                         "bytes", host == nullptr ? "host" : "device", bytes);
    cudaError_t e = cudaMemcpy(device, host, bytes, cudaMemcpyHostToDevice);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return mg__error(ctx, MG_DEVICE_ERROR, "mg__gpu_copy_to_device: cudaMemcpy of %zu bytes: %s",
                         bytes, cudaGetErrorString(e));
    }
    return MG_SUCCESS;
}
