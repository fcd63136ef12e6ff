/*
 * udf_gpu.cuh — the device loops of user-defined edge programs (issue 18), the GPU twin of the
 * MG__UDF_KERNELS text in udf.c (the reference for every rule below). This file is CUDA source
 * text: CMake embeds it into the library as a string (udf_gpu_text.h), and frontier/udf_gpu.cu
 * appends it to the user's snippets and compiles the whole with NVRTC at a program's first GPU use,
 * so the snippets inline into the loops. The host includes it too, without MG_UDF_GPU_KERNELS, for
 * the argument block alone. NVRTC has no system headers here: the generated prelude defines T, the
 * fixed-width types and limits, MG_WORD (the unsigned type of T's size), the four snippet
 * functions mg_udf_contribution, mg_udf_combine, mg_udf_identity and mg_udf_apply, and MG_ANY (an
 * ANY combine: 0 or 1) and MG_SOURCE_ONLY (the definition's source_only).
 *
 * Positions are the device numbering of the graph's device form (preprocess/gpu_preprocess.h); the
 * snippets' src and dst are the caller's ids (old_of_new), as on the CPU.
 *
 * Kernels (extern "C", loaded by name):
 *   mg_udf_pull_team    a team of `team` lanes per eligible destination of [from, to): combines
 *                       the contributions of its active in-sources and applies (an ANY: the team
 *                       stops after the round of edges where one of its lanes met an active
 *                       source, and takes that lane's contribution);
 *   mg_udf_pull_block   the same, a block per destination (the hubs);
 *   mg_udf_prepare      source_only: the contribution of each active source into pre[s], which
 *                       the pulls then read per edge;
 *   mg_udf_count        a mode: the active contributions of each eligible destination;
 *   mg_udf_collect      a mode: writes them to buf[seg[d], seg[d + 1]) (the host sorts each
 *                       segment with CUB in between);
 *   mg_udf_mode_apply   a mode: the most frequent of the sorted segment, ties to the smallest, and
 *                       the apply;
 *   mg_udf_fill         push: acc = identity (once: each push leaves it so);
 *   mg_udf_push         push: one warp per active source, compare-and-swap of the combine into
 *                       acc[d] (an ANY: a store of the whole word where d is not yet touched), d
 *                       marked in touched;
 *   mg_udf_apply_touched push: one thread per touched word applies acc[d] to its destinations and
 *                       resets acc[d] and the word.
 */
#ifndef MG_UDF_GPU_CUH
#define MG_UDF_GPU_CUH

typedef struct {
    uint32_t n;
    int wt;          /* mg_weight_type: 0 none, 1 int32, 2 float */
    int apply_all;
    int complement;
    uint32_t from, to; /* pull kernels: the destinations [from, to) */
    uint32_t team;     /* mg_udf_pull_team: lanes per destination (a power of two, 1 to 32) */
    const uint64_t *off; /* pull: the edges into a destination; push: a source's edges */
    const uint32_t *idx;
    const void *w;
    const uint64_t *off2; /* pull along both directions: the other edges (NULL: none) */
    const uint32_t *idx2;
    const void *w2;
    const uint64_t *src_off;     /* the sources' edges along the program's direction (src_degree) */
    const uint32_t *old_of_new;  /* caller id of each device position */
    const uint32_t *list;        /* push: the active sources (NULL: all) */
    uint32_t count;              /* push: how many */
    const uint64_t *active_bm;   /* pull: the active sources (NULL: all) */
    const uint64_t *mask_bm;     /* eligible destinations (NULL: all; see complement) */
    const void *x;
    void *y;
    void *acc;                   /* push: n values */
    void *pre;                   /* source_only: n values, each active source's contribution */
    uint64_t *touched;           /* push: bitmap */
    uint64_t *out_bm;            /* the output frontier's bitmap (NULL: not wanted) */
    uint32_t *out_list;          /* and its list (NULL: not wanted) */
    unsigned long long *counters; /* [0] destinations joined, [1] edges scanned */
    uint64_t *counts;            /* a mode: per destination, then the exclusive scan's input */
    const uint64_t *seg;         /* a mode: n + 1 segment offsets into buf */
    void *buf;                   /* a mode: the contributions, sorted per segment */
} mg__udf_gpu_args;

#ifdef MG_UDF_GPU_KERNELS

#define MG_FULL 0xffffffffu
#define MG_BLOCK 256

__device__ __forceinline__ double mg_weight(int wt, const void *w, uint64_t e) {
    if (wt == 1) return (double)((const int32_t *)w)[e];
    if (wt == 2) return (double)((const float *)w)[e];
    return 1.0;
}
__device__ __forceinline__ int mg_bit(const uint64_t *bm, uint32_t v) { return (int)((bm[v >> 6] >> (v & 63)) & 1); }
__device__ __forceinline__ int mg_eligible(const mg__udf_gpu_args &a, uint32_t d) {
    return a.mask_bm == 0 || mg_bit(a.mask_bm, d) != a.complement;
}
__device__ __forceinline__ int mg_active(const mg__udf_gpu_args &a, uint32_t s) {
    return a.active_bm == 0 || mg_bit(a.active_bm, s);
}
__device__ __forceinline__ T mg_contribution_at(const mg__udf_gpu_args &a, const void *w, uint64_t e,
                                                uint32_t s, uint32_t dst) {
    if (MG_SOURCE_ONLY) return ((const T *)a.pre)[s];
    return mg_udf_contribution(a.old_of_new[s], dst, ((const T *)a.x)[s], mg_weight(a.wt, w, e),
                               a.src_off[s + 1] - a.src_off[s]);
}

/* Counts d as joined and appends it to the list: one atomic per group of lanes appending together. */
__device__ __forceinline__ void mg_append(const mg__udf_gpu_args &a, uint32_t d) {
    const unsigned group = __activemask();
    const int lane = (int)(threadIdx.x & 31), leader = __ffs(group) - 1;
    unsigned long long base = 0;
    if (lane == leader) base = atomicAdd(&a.counters[0], (unsigned long long)__popc(group));
    base = __shfl_sync(group, base, leader);
    if (a.out_list) a.out_list[base + __popc(group & ((1u << lane) - 1u))] = d;
}
__device__ __forceinline__ void mg_join(const mg__udf_gpu_args &a, uint32_t d) {
    if (a.out_bm) atomicOr((unsigned long long *)&a.out_bm[d >> 6], 1ull << (d & 63));
    mg_append(a, d);
}

/* The apply of destination d with the combined value c; found: a contribution arrived. */
__device__ __forceinline__ void mg_apply_at(const mg__udf_gpu_args &a, uint32_t d, T c, int found) {
    T *y = (T *)a.y;
    T dv = y[d];
    const int joins = mg_udf_apply(a.old_of_new[d], &dv, c, found);
    y[d] = dv;
    if (joins) mg_join(a, d);
}

/* Every lane of a warp reaches this: edges scanned, one atomic per warp. */
__device__ __forceinline__ void mg_add_scanned(const mg__udf_gpu_args &a, unsigned long long mine) {
    for (int o = 16; o > 0; o >>= 1) mine += __shfl_xor_sync(MG_FULL, mine, o);
    if ((threadIdx.x & 31) == 0 && mine) atomicAdd(&a.counters[1], mine);
}

/* Destination d's contributions combined by lanes lane, lane + W, ... of its edges; *found: one
 * arrived at this lane. */
__device__ __forceinline__ T mg_gather(const mg__udf_gpu_args &a, uint32_t d, int lane, int W, int *found,
                                       unsigned long long *scanned) {
    const uint32_t dst = a.old_of_new[d];
    T c = mg_udf_identity();
    for (int pass = 0; pass < 2; pass++) {
        const uint64_t *off = pass ? a.off2 : a.off;
        const uint32_t *idx = pass ? a.idx2 : a.idx;
        const void *w = pass ? a.w2 : a.w;
        if (off == 0) break;
        const uint64_t hi = off[d + 1];
        for (uint64_t e = off[d] + lane; e < hi; e += W) {
            ++*scanned;
            const uint32_t s = idx[e];
            if (!mg_active(a, s)) continue;
            c = mg_udf_combine(c, mg_contribution_at(a, w, e, s, dst));
            *found = 1;
        }
    }
    return c;
}

/* An ANY's gather, reached by every lane of the warp (mine: the lane's team has a destination):
 * the team reads d's edges W at a time, all teams of the warp in step, and stops after the round
 * in which one of its lanes met an active source; the team's lowest such lane gives the combined
 * value (zero where none arrived). */
__device__ __forceinline__ T mg_gather_any(const mg__udf_gpu_args &a, uint32_t d, int mine, int lane, int W,
                                           unsigned team_bits, int *found, unsigned long long *scanned) {
    const uint32_t dst = mine ? a.old_of_new[d] : 0;
    T c = (T)0;
    int mine_found = 0, done = !mine;
    for (int pass = 0; pass < 2; pass++) {
        const uint64_t *off = pass ? a.off2 : a.off; /* the same for the whole warp */
        const uint32_t *idx = pass ? a.idx2 : a.idx;
        const void *w = pass ? a.w2 : a.w;
        if (off == 0) break;
        const uint64_t lo = mine ? off[d] : 0, hi = mine ? off[d + 1] : 0;
        for (uint64_t base = lo;; base += (uint64_t)W) {
            const int more = !done && base < hi;
            if (!__any_sync(MG_FULL, more)) break;
            const uint64_t e = base + (uint64_t)lane;
            if (more && e < hi) {
                ++*scanned;
                const uint32_t s = idx[e];
                if (mg_active(a, s)) {
                    c = mg_contribution_at(a, w, e, s, dst);
                    mine_found = 1;
                }
            }
            if (__ballot_sync(MG_FULL, mine_found) & team_bits) done = 1;
        }
    }
    const unsigned got = __ballot_sync(MG_FULL, mine_found) & team_bits;
    *found = got != 0;
    const T v = __shfl_sync(MG_FULL, c, got ? __ffs(got) - 1 : (int)(threadIdx.x & 31));
    return got ? v : (T)0;
}

/* The same for a block per destination: rounds of MG_BLOCK edges until a thread met an active
 * source; one of those threads' contributions (a whole T: one shared-memory store wins). */
__device__ __forceinline__ T mg_gather_any_block(const mg__udf_gpu_args &a, uint32_t d, int *found,
                                                 unsigned long long *scanned) {
    __shared__ T s_any;
    const uint32_t dst = a.old_of_new[d];
    T c = (T)0;
    int mine_found = 0, any = 0;
    for (int pass = 0; pass < 2 && !any; pass++) {
        const uint64_t *off = pass ? a.off2 : a.off;
        const uint32_t *idx = pass ? a.idx2 : a.idx;
        const void *w = pass ? a.w2 : a.w;
        if (off == 0) break;
        const uint64_t hi = off[d + 1];
        for (uint64_t base = off[d]; base < hi && !any; base += MG_BLOCK) {
            const uint64_t e = base + threadIdx.x;
            if (e < hi) {
                ++*scanned;
                const uint32_t s = idx[e];
                if (mg_active(a, s)) {
                    c = mg_contribution_at(a, w, e, s, dst);
                    mine_found = 1;
                }
            }
            any = __syncthreads_or(mine_found);
        }
    }
    if (mine_found) s_any = c;
    __syncthreads();
    if (any) c = s_any;
    __syncthreads(); /* s_any is written again for the block's next destination */
    *found = any;
    return c;
}

/* A team of a.team lanes (a power of two, 1 to 32) per eligible destination of [from, to): every
 * lane of a warp runs the same rounds and reaches the shuffles, a destination out of range or not
 * eligible combining nothing, so the warp stays converged; the team's first lane applies. */
extern "C" __global__ void __launch_bounds__(MG_BLOCK) mg_udf_pull_team(mg__udf_gpu_args a) {
    unsigned long long scanned = 0;
    const uint32_t W = a.team, lane = threadIdx.x & 31, first = lane & ~(W - 1);
    const unsigned team_bits = W == 32 ? MG_FULL : ((1u << W) - 1u) << first;
    const uint32_t span = a.to - a.from, teams = gridDim.x * (blockDim.x / W);
    const uint32_t rounds = (span + teams - 1) / teams;
    for (uint32_t r = 0; r < rounds; r++) {
        const uint32_t i = r * teams + (blockIdx.x * blockDim.x + threadIdx.x) / W;
        const uint32_t d = a.from + i;
        const int mine = i < span && mg_eligible(a, d);
        int found = 0;
        T c;
        if (MG_ANY) {
            c = mg_gather_any(a, d, mine, (int)(lane - first), (int)W, team_bits, &found, &scanned);
        } else {
            c = mine ? mg_gather(a, d, (int)(lane - first), (int)W, &found, &scanned) : mg_udf_identity();
            for (uint32_t o = W / 2; o > 0; o >>= 1) c = mg_udf_combine(c, __shfl_xor_sync(MG_FULL, c, (int)o));
            found = (__ballot_sync(MG_FULL, found) & team_bits) != 0;
        }
        if (mine && lane == first && (found || a.apply_all)) mg_apply_at(a, d, c, found);
    }
    mg_add_scanned(a, scanned);
}

/* A block per eligible destination of [from, to): the hubs (in-degree group 1, 2048 in-edges and
 * more), which a warp would walk in thousands of rounds (R-MAT 22's largest: 162,775 edges). */
extern "C" __global__ void __launch_bounds__(MG_BLOCK) mg_udf_pull_block(mg__udf_gpu_args a) {
    __shared__ T s_c[MG_BLOCK / 32];
    __shared__ int s_found[MG_BLOCK / 32];
    unsigned long long scanned = 0;
    const int lane = (int)(threadIdx.x & 31), warp = (int)(threadIdx.x / 32);
    for (uint32_t i = blockIdx.x; i < a.to - a.from; i += gridDim.x) {
        const uint32_t d = a.from + i;
        if (!mg_eligible(a, d)) continue; /* the same d for the whole block */
        int found = 0;
        if (MG_ANY) {
            const T c = mg_gather_any_block(a, d, &found, &scanned);
            if (threadIdx.x == 0 && (found || a.apply_all)) mg_apply_at(a, d, c, found);
            continue;
        }
        T c = mg_gather(a, d, (int)threadIdx.x, MG_BLOCK, &found, &scanned);
        for (int o = 16; o > 0; o >>= 1) c = mg_udf_combine(c, __shfl_xor_sync(MG_FULL, c, o));
        found = __any_sync(MG_FULL, found);
        if (lane == 0) {
            s_c[warp] = c;
            s_found[warp] = found;
        }
        __syncthreads();
        if (threadIdx.x == 0) {
            for (int w = 1; w < MG_BLOCK / 32; w++) {
                c = mg_udf_combine(c, s_c[w]);
                found |= s_found[w];
            }
            if (found || a.apply_all) mg_apply_at(a, d, c, found);
        }
        __syncthreads(); /* s_c is written again for the next destination */
    }
    mg_add_scanned(a, scanned);
}

/* ---- a mode combine ------------------------------------------------------------------------- */

extern "C" __global__ void __launch_bounds__(MG_BLOCK) mg_udf_count(mg__udf_gpu_args a) {
    unsigned long long scanned = 0;
    const uint32_t stride = gridDim.x * blockDim.x, rounds = (a.n + stride - 1) / stride;
    for (uint32_t r = 0; r < rounds; r++) {
        const uint32_t d = r * stride + blockIdx.x * blockDim.x + threadIdx.x;
        if (d >= a.n) continue;
        uint64_t k = 0;
        if (mg_eligible(a, d)) {
            for (int pass = 0; pass < 2; pass++) {
                const uint64_t *off = pass ? a.off2 : a.off;
                const uint32_t *idx = pass ? a.idx2 : a.idx;
                if (off == 0) break;
                for (uint64_t e = off[d]; e < off[d + 1]; e++) k += (uint64_t)mg_active(a, idx[e]);
                scanned += off[d + 1] - off[d];
            }
        }
        a.counts[d] = k;
    }
    mg_add_scanned(a, scanned);
}

extern "C" __global__ void __launch_bounds__(MG_BLOCK) mg_udf_collect(mg__udf_gpu_args a) {
    T *buf = (T *)a.buf;
    for (uint32_t d = blockIdx.x * blockDim.x + threadIdx.x; d < a.n; d += gridDim.x * blockDim.x) {
        uint64_t at = a.seg[d];
        if (at == a.seg[d + 1]) continue; /* ineligible, or nothing arrives */
        const uint32_t dst = a.old_of_new[d];
        for (int pass = 0; pass < 2; pass++) {
            const uint64_t *off = pass ? a.off2 : a.off;
            const uint32_t *idx = pass ? a.idx2 : a.idx;
            const void *w = pass ? a.w2 : a.w;
            if (off == 0) break;
            for (uint64_t e = off[d]; e < off[d + 1]; e++) {
                const uint32_t s = idx[e];
                if (mg_active(a, s)) buf[at++] = mg_contribution_at(a, w, e, s, dst);
            }
        }
    }
}

extern "C" __global__ void __launch_bounds__(MG_BLOCK) mg_udf_mode_apply(mg__udf_gpu_args a) {
    const T *buf = (const T *)a.buf;
    for (uint32_t d = blockIdx.x * blockDim.x + threadIdx.x; d < a.n; d += gridDim.x * blockDim.x) {
        const uint64_t lo = a.seg[d], hi = a.seg[d + 1];
        if (!mg_eligible(a, d) || (lo == hi && !a.apply_all)) continue;
        T best = (T)0;
        uint64_t best_count = 0;
        for (uint64_t i = lo; i < hi;) {
            uint64_t j = i + 1;
            while (j < hi && buf[j] == buf[i]) j++;
            if (j - i > best_count) {
                best_count = j - i;
                best = buf[i];
            }
            i = j;
        }
        mg_apply_at(a, d, best, lo < hi);
    }
}

/* ---- source_only ---------------------------------------------------------------------------- */

extern "C" __global__ void __launch_bounds__(MG_BLOCK) mg_udf_prepare(mg__udf_gpu_args a) {
    const T *x = (const T *)a.x;
    T *pre = (T *)a.pre;
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < a.count; i += gridDim.x * blockDim.x) {
        const uint32_t s = a.list ? a.list[i] : i;
        pre[s] = mg_udf_contribution(a.old_of_new[s], 0u, x[s], 1.0, a.src_off[s + 1] - a.src_off[s]);
    }
}

/* ---- push (a reduce or an ANY without apply_all) -------------------------------------------- */

extern "C" __global__ void __launch_bounds__(MG_BLOCK) mg_udf_fill(mg__udf_gpu_args a) {
    T *acc = (T *)a.acc;
    for (uint32_t v = blockIdx.x * blockDim.x + threadIdx.x; v < a.n; v += gridDim.x * blockDim.x)
        acc[v] = mg_udf_identity();
}

__device__ __forceinline__ MG_WORD mg_to_word(T v) {
    union { T t; MG_WORD u; } b;
    b.t = v;
    return b.u;
}
__device__ __forceinline__ T mg_from_word(MG_WORD u) {
    union { T t; MG_WORD u; } b;
    b.u = u;
    return b.t;
}

extern "C" __global__ void __launch_bounds__(MG_BLOCK) mg_udf_push(mg__udf_gpu_args a) {
    const int lane = (int)(threadIdx.x & 31);
    const uint32_t warps = gridDim.x * (blockDim.x / 32);
    for (uint32_t i = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32; i < a.count; i += warps) {
        const uint32_t s = a.list ? a.list[i] : i;
        const uint32_t src = a.old_of_new[s];
        const T xs = ((const volatile T *)a.x)[s];
        const uint64_t lo = a.off[s], hi = a.off[s + 1];
        T vs = xs;
        if (MG_SOURCE_ONLY) vs = mg_udf_contribution(src, 0u, xs, 1.0, hi - lo);
        for (uint64_t e = lo + lane; e < hi; e += 32) {
            const uint32_t d = a.idx[e];
            if (!mg_eligible(a, d)) continue;
            const unsigned long long b = 1ull << (d & 63);
            /* ANY: the first writer to find d untouched, or one racing it: a whole word either way */
            if (MG_ANY && (*(volatile unsigned long long *)&a.touched[d >> 6] & b)) continue;
            const T v = MG_SOURCE_ONLY ? vs : mg_udf_contribution(src, a.old_of_new[d], xs, mg_weight(a.wt, a.w, e), hi - lo);
            MG_WORD *p = (MG_WORD *)((T *)a.acc + d);
            if (MG_ANY) {
                *(volatile MG_WORD *)p = mg_to_word(v);
                atomicOr((unsigned long long *)&a.touched[d >> 6], b);
                continue;
            }
            MG_WORD old = *(volatile MG_WORD *)p;
            for (;;) {
                const MG_WORD nw = mg_to_word(mg_udf_combine(mg_from_word(old), v));
                if (nw == old) break; /* the combine leaves it as it is */
                const MG_WORD seen = atomicCAS(p, old, nw);
                if (seen == old) break;
                old = seen;
            }
            if (!(*(volatile unsigned long long *)&a.touched[d >> 6] & b))
                atomicOr((unsigned long long *)&a.touched[d >> 6], b);
        }
    }
}

/* Also leaves acc and touched as mg_udf_fill and a cleared bitmap did, for the next push: only the
 * touched entries changed, so resetting them here spares a pass over all n. */
extern "C" __global__ void __launch_bounds__(MG_BLOCK) mg_udf_apply_touched(mg__udf_gpu_args a) {
    T *acc = (T *)a.acc;
    T *y = (T *)a.y;
    const uint32_t words = (a.n + 63) / 64;
    for (uint32_t wd = blockIdx.x * blockDim.x + threadIdx.x; wd < words; wd += gridDim.x * blockDim.x) {
        uint64_t todo = a.touched[wd], word_out = 0;
        if (todo) a.touched[wd] = 0;
        while (todo) {
            const uint32_t d = wd * 64 + (uint32_t)(__ffsll((long long)todo) - 1);
            todo &= todo - 1;
            T dv = y[d];
            const int joins = mg_udf_apply(a.old_of_new[d], &dv, acc[d], 1);
            acc[d] = mg_udf_identity();
            y[d] = dv;
            if (joins) {
                word_out |= 1ull << (d & 63);
                mg_append(a, d);
            }
        }
        if (a.out_bm) a.out_bm[wd] = word_out; /* this thread owns the word */
    }
}

#endif /* MG_UDF_GPU_KERNELS */
#endif /* MG_UDF_GPU_CUH */
