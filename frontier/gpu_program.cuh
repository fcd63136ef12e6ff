/*
 * gpu_program.cuh — the device side of an edge program, shared by the GPU engines (sparse_engine.cu,
 * dense_engine.cu, baseline_engine.cu): the kernel parameter block, typed atomics (min, max, add,
 * store by compare-and-swap where the hardware has none), combine identities, the contribution of a
 * source and an edge, the mask test, warp-aggregated list appends, a push's update of one
 * destination, and apply_one, the per-destination merge with the CPU engine's semantics
 * (frontier/cpu_engine.c is the reference). Everything is in an unnamed namespace: each engine's
 * translation unit gets its own copy.
 */
#ifndef MG_GPU_PROGRAM_CUH
#define MG_GPU_PROGRAM_CUH

#include <math.h>
#include <stdint.h>
#include <string.h>

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda_runtime.h>

extern "C" {
#include "mg_internal.h"
}

namespace {

namespace cg = cooperative_groups;

typedef unsigned long long ull;

/* What the push does per edge. */
enum PushOp { OP_MIN = 0, OP_MAX, OP_IF_UNSET, OP_ADD, OP_ACC };

template <typename T> struct Params {
    uint32_t n;
    const uint64_t *push_off; const uint32_t *push_idx; const void *push_w;
    const uint64_t *pull_off; const uint32_t *pull_idx; const void *pull_w;
    const uint64_t *outdeg_off;
    const uint32_t *old_of_new;
    int wt;                          /* mg_weight_type                                   */
    const uint32_t *list;            /* push: active sources (NULL: all)                 */
    uint32_t count;
    const uint64_t *active_bm;       /* pull: active sources (NULL: all)                 */
    const uint64_t *mask;
    bool complement;
    const T *x;
    T *y;
    T *acc;                          /* push, OP_ACC: n values at the combine's identity */
    uint64_t *touched;               /* push, OP_ACC / OP_ADD: bitmap                    */
    uint32_t *tlist;
    ull *tcount;
    uint64_t *out_bm;                /* always present (scratch when the caller has none) */
    bool out_wanted;                 /* the caller has an output frontier                 */
    uint32_t *out_list;              /* NULL: not wanted                                  */
    ull *out_count;
    ull *scanned;
    int apply;
    int op;
    const uint32_t *seg_ptr;         /* push with segments: the graph's d_seg_ptr (NULL: none)  */
    uint32_t nseg, seg_size, seg_end;/* seg_count, seg_size, group_start[4]                     */
    ull *hubs;                       /* push: (first chunk << 32) | vertex, of the vertices whose
                                        stage 3 hub_kernel runs (NULL: none)                    */
    ull *hub_count;                  /* (hubs << 40) | chunks                                   */
    int contribution, combine;       /* the program's, for the generic kernels (kRuntime)       */
    T unset;
    double alpha, beta, eps;
};

/* A kernel's contribution and combine come as template arguments: constants for the programs of
 * the built-in algorithms (the engines' hot lists, frontier/gpu_engine_host.cuh), so their per-edge
 * code has no branches on the program, or kRuntime for the one generic instantiation per value type
 * that every other program runs, which reads them from Params. The helpers below take them as
 * arguments; inlined with a constant, their switches fold away. */
constexpr int kRuntime = -1;
template <int V> __device__ __forceinline__ int resolved(int runtime) { return V == kRuntime ? runtime : V; }

/* ---- per-type helpers ------------------------------------------------------------------------ */

template <typename T> struct Lim;
template <> struct Lim<int32_t> {
    __device__ static int32_t max() { return INT32_MAX; }
    __device__ static int32_t lowest() { return INT32_MIN; }
};
template <> struct Lim<int64_t> {
    __device__ static int64_t max() { return INT64_MAX; }
    __device__ static int64_t lowest() { return INT64_MIN; }
};
template <> struct Lim<float> {
    __device__ static float max() { return INFINITY; }
    __device__ static float lowest() { return -INFINITY; }
};
template <> struct Lim<double> {
    __device__ static double max() { return INFINITY; }
    __device__ static double lowest() { return -INFINITY; }
};

/* The unsigned word of T's size, for compare-and-swap loops. */
template <typename T> struct Word { typedef unsigned int U; };
template <> struct Word<int64_t> { typedef ull U; };
template <> struct Word<double> { typedef ull U; };

template <typename T> __device__ __forceinline__ typename Word<T>::U to_word(T v) {
    typename Word<T>::U u;
    memcpy(&u, &v, sizeof u);
    return u;
}
template <typename T> __device__ __forceinline__ T from_word(typename Word<T>::U u) {
    T v;
    memcpy(&v, &u, sizeof v);
    return v;
}

template <typename T> __device__ __forceinline__ T load(const T *p) {
    return from_word<T>(*(const volatile typename Word<T>::U *)p);
}

template <typename T> __device__ __forceinline__ typename Word<T>::U cas(T *p, typename Word<T>::U expect,
                                                                         typename Word<T>::U val) {
    return atomicCAS(reinterpret_cast<typename Word<T>::U *>(p), expect, val);
}

/* Atomic min / max: true when this call lowered / raised *p. */
template <typename T> __device__ bool atomic_min(T *p, T v) {
    T old = load(p);
    while (v < old) {
        typename Word<T>::U seen = cas(p, to_word(old), to_word(v));
        if (seen == to_word(old)) return true;
        old = from_word<T>(seen);
    }
    return false;
}
template <typename T> __device__ bool atomic_max(T *p, T v) {
    T old = load(p);
    while (v > old) {
        typename Word<T>::U seen = cas(p, to_word(old), to_word(v));
        if (seen == to_word(old)) return true;
        old = from_word<T>(seen);
    }
    return false;
}
__device__ __forceinline__ void atomic_add(int32_t *p, int32_t v) { atomicAdd(p, v); }
__device__ __forceinline__ void atomic_add(int64_t *p, int64_t v) {
    atomicAdd(reinterpret_cast<ull *>(p), (ull)v); /* two's complement: the same bits */
}
__device__ __forceinline__ void atomic_add(float *p, float v) { atomicAdd(p, v); }
__device__ __forceinline__ void atomic_add(double *p, double v) { atomicAdd(p, v); }

template <typename T> __device__ __forceinline__ void atomic_store(T *p, T v) {
    atomicExch(reinterpret_cast<typename Word<T>::U *>(p), to_word(v));
}

template <typename T> __device__ __forceinline__ T identity(int C) {
    return C == MG_COMBINE_MIN ? Lim<T>::max() : (C == MG_COMBINE_MAX ? Lim<T>::lowest() : (T)0);
}
template <typename T> __device__ __forceinline__ T combine(int C, T a, T b) {
    switch (C) {
    case MG_COMBINE_MIN: return b < a ? b : a;
    case MG_COMBINE_MAX: return b > a ? b : a;
    case MG_COMBINE_SUM: return a + b;
    default: return b;
    }
}
template <typename T> __device__ __forceinline__ void atomic_combine(int C, T *p, T v) {
    switch (C) {
    case MG_COMBINE_MIN: atomic_min(p, v); break;
    case MG_COMBINE_MAX: atomic_max(p, v); break;
    case MG_COMBINE_SUM: atomic_add(p, v); break;
    default: atomic_store(p, v); break;
    }
}

/* Shuffles of T (int64_t goes as long long). */
template <typename T> __device__ __forceinline__ T shfl_xor(T v, int lane_mask) {
    return __shfl_xor_sync(0xffffffffu, v, lane_mask);
}
template <> __device__ __forceinline__ int64_t shfl_xor(int64_t v, int lane_mask) {
    return (int64_t)__shfl_xor_sync(0xffffffffu, (long long)v, lane_mask);
}
template <typename T> __device__ __forceinline__ T shfl(T v, int src) {
    return __shfl_sync(0xffffffffu, v, src);
}
template <> __device__ __forceinline__ int64_t shfl(int64_t v, int src) {
    return (int64_t)__shfl_sync(0xffffffffu, (long long)v, src);
}

__device__ __forceinline__ bool bit(const uint64_t *bm, uint32_t v) { return (bm[v >> 6] >> (v & 63)) & 1u; }

/* Sets bit v; true if this call set it. */
__device__ __forceinline__ bool bit_claim(uint64_t *bm, uint32_t v) {
    const ull b = 1ull << (v & 63);
    if (*(volatile ull *)&bm[v >> 6] & b) return false;
    return !(atomicOr(reinterpret_cast<ull *>(&bm[v >> 6]), b) & b);
}

template <typename T> __device__ __forceinline__ bool eligible(const Params<T> &P, uint32_t d) {
    return P.mask == nullptr || (bit(P.mask, d) != P.complement);
}

/* Appends v to list (when not NULL) and counts it: one atomic per coalesced group of threads
 * (warp aggregation, the paper's ref. [37]). Called only by the threads that append. */
__device__ __forceinline__ void append(uint32_t *list, ull *count, uint32_t v) {
    cg::coalesced_group g = cg::coalesced_threads();
    ull base = 0;
    if (g.thread_rank() == 0) base = atomicAdd(count, (ull)g.size());
    base = g.shfl(base, 0);
    if (list != nullptr) list[base + g.thread_rank()] = v;
}

/* Destination d joined out, reached once in the step (a pull, the apply passes): its bit set in
 * the caller's output bitmap, one atomicOr per word for the lanes that share it, and listed.
 * Without an output frontier it is only counted in *joined, which the kernel adds to P.out_count
 * once per warp at its end (add_sum): an atomic per changed destination on one counter, and a bit
 * each, made R-MAT 26's PageRank pull 1.9x slower when its values changed (session 19's loss). */
template <typename T> __device__ __forceinline__ void join_once(const Params<T> &P, uint32_t d, ull &joined) {
    if (!P.out_wanted) {
        joined++;
        return;
    }
    cg::coalesced_group g = cg::coalesced_threads();
    cg::coalesced_group word = cg::labeled_partition(g, (int)(d >> 6));
    const ull bits = cg::reduce(word, 1ull << (d & 63), cg::bit_or<ull>());
    if (word.thread_rank() == 0) atomicOr(reinterpret_cast<ull *>(&P.out_bm[d >> 6]), bits);
    append(P.out_list, P.out_count, d);
}

/* *total += mine over the warp, one atomic (every lane of the warp calls it, converged). */
__device__ __forceinline__ void add_sum(ull *total, ull mine) {
    for (int o = 16; o > 0; o >>= 1) mine += __shfl_xor_sync(0xffffffffu, mine, o);
    if ((threadIdx.x & 31) == 0 && mine) atomicAdd(total, mine);
}

__device__ __forceinline__ double weight_at(const void *w, int wt, uint64_t e) {
    if (wt == MG_WEIGHT_INT32) return (double)static_cast<const int32_t *>(w)[e];
    if (wt == MG_WEIGHT_FLOAT) return (double)static_cast<const float *>(w)[e];
    return 1.0;
}

/* The per-source part of a contribution. */
template <typename T> __device__ __forceinline__ T source_value(const Params<T> &P, int K, uint32_t s) {
    if (K == MG_CONTRIB_SRC_ID) return (T)P.old_of_new[s]; /* values are caller ids */
    T v = load(P.x + s);
    if (K == MG_CONTRIB_SRC_DIV_OUTDEG) {
        const uint64_t deg = P.outdeg_off[s + 1] - P.outdeg_off[s];
        v = deg ? (T)(v / (T)deg) : (T)0;
    }
    return v;
}
/* x[s] / outdeg(s) once per source, with source_value's arithmetic (the same bits): a pull then
 * reads one value per edge where it read a value and two offsets. */
template <typename T> __global__ void scale_kernel(Params<T> P, T *scaled) {
    for (uint32_t s = blockIdx.x * blockDim.x + threadIdx.x; s < P.n; s += gridDim.x * blockDim.x)
        scaled[s] = source_value<T>(P, MG_CONTRIB_SRC_DIV_OUTDEG, s);
}
/* The per-edge part. */
template <typename T> __device__ __forceinline__ T edge_value(const Params<T> &P, int K, T xs, const void *w,
                                                                    uint64_t e) {
    switch (K) {
    case MG_CONTRIB_SRC_PLUS_ONE: return xs + (T)1;
    case MG_CONTRIB_SRC_PLUS_WEIGHT: return xs + (T)weight_at(w, P.wt, e);
    case MG_CONTRIB_SRC_TIMES_WEIGHT: return xs * (T)weight_at(w, P.wt, e);
    default: return xs;
    }
}

/* A push's update of destination d with contribution c, by P.op: directly into y (true when y
 * improved: d joins), or, for MG_APPLY_ADD and through the accumulator, *touched (d is applied
 * later). */
template <typename T>
__device__ __forceinline__ bool push_update(const Params<T> &P, int C, uint32_t d, T c, bool *touched) {
    *touched = false;
    switch (P.op) {
    case OP_MIN: return atomic_min(P.y + d, c);
    case OP_MAX: return atomic_max(P.y + d, c);
    case OP_IF_UNSET: {
        const typename Word<T>::U unset = to_word(P.unset);
        return to_word(load(P.y + d)) == unset && cas(P.y + d, unset, to_word(c)) == unset;
    }
    case OP_ADD: atomic_add(P.y + d, c); break;
    default: atomic_combine<T>(C, P.acc + d, c); break;
    }
    *touched = true;
    return false;
}

/* Merges c into y[d] (d owned by the caller's thread); true when d joins. As apply_* in
 * cpu_engine.c. */
template <typename T> __device__ bool apply_one(const Params<T> &P, uint32_t d, T c, bool found) {
    const T old = load(P.y + d);
    T nv = old;
    bool joins = false;
    switch (P.apply) {
    case MG_APPLY_MIN: joins = found && c < old; if (joins) nv = c; break;
    case MG_APPLY_MAX: joins = found && c > old; if (joins) nv = c; break;
    case MG_APPLY_IF_UNSET: joins = found && old == P.unset; if (joins) nv = c; break;
    case MG_APPLY_ASSIGN: joins = found; if (joins) nv = c; break;
    case MG_APPLY_ADD:
        if (found) { nv = old + c; joins = fabs((double)nv) > P.eps; }
        break;
    case MG_APPLY_AFFINE:
        nv = (T)(P.alpha * (double)(found ? c : (T)0) + P.beta);
        joins = fabs((double)nv - (double)old) > P.eps;
        break;
    }
    if (nv != old || P.apply == MG_APPLY_AFFINE) P.y[d] = nv;
    return joins;
}

} // namespace

#endif /* MG_GPU_PROGRAM_CUH */
