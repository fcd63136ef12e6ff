/*
 * baseline_engine.cu — the Gunrock-style baseline engine (issue 5): one edge-program step on a graph's
 * device form, with mg__gpu_advance's semantics (the CPU engine, frontier/cpu_engine.c, is the
 * reference), computed the way established GPU graph frameworks do, so that MultiGraph's engines
 * are measured against a fair, load-balanced baseline rather than a strawman.
 *
 *  - push: Gunrock's load-balanced advance (Wang et al., "Gunrock", PPoPP 2016 / TOPC 2017, the
 *    "LB" strategy) with the merge-path partitioning of Merrill and Garland ("Merge-based parallel
 *    sparse matrix-vector multiplication", SC 2016). CUB scans the frontier vertices' degrees; the
 *    merged sequence of frontier vertices and frontier edges is cut into tiles of kTile items, one
 *    block per tile, so a block gets the same work whatever the degrees (a vertex of a million
 *    edges spreads over a thousand blocks, a run of isolated vertices costs one item each). Inside a
 *    tile every edge finds its source by binary search in the tile's slice of the scanned offsets
 *    (kept in shared memory), and consecutive threads take consecutive edges (coalesced reads).
 *    Destinations are updated with global atomics: directly in y when combine and apply agree
 *    (min/min, max/max, any/if-unset, sum/add), otherwise into an accumulator applied afterwards
 *    once per touched destination. The next frontier is Gunrock's fused advance + filter (LB_CULL):
 *    a destination that joined claims its bit in the output bitmap (duplicates culled) and the
 *    survivors are compacted with a block-wide CUB scan, one global atomic per tile.
 *  - pull: a CSC pull over the eligible destinations. MG_COMBINE_ANY (bottom-up BFS): a thread
 *    per destination, or its whole warp for one of more than 32 in-edges, stops at the first active
 *    in-neighbour; the same kernel combines every in-edge for the other combines on graphs whose
 *    in-degrees stay within 32 (road-like: nothing to balance). Otherwise (PageRank on a power-law
 *    graph, masked sums) the eligible destinations are compacted (CUB DeviceSelect) unless all
 *    are, their in-degrees scanned, and the same merge-path tiles run over their in-edges; each
 *    warp combines its run of a destination's edges with a segmented shuffle reduction and one
 *    atomic into an accumulator, then one pass applies every destination.
 *    x[s] / outdeg(s) is divided once per source before a pull (two offset reads per edge saved).
 *  - the choice: MG_MODE_SPARSE always pushes (BFS without direction optimisation); MG_MODE_PULL and
 *    MG_MODE_DENSE always pull; MG_MODE_AUTO pulls all-active and affine steps and, for
 *    MG_COMBINE_ANY (BFS), follows Beamer's direction-optimising rule as Gunrock's DOBFS does: from
 *    push to pull when the frontier's edges exceed the unvisited destinations' edges / alpha, back
 *    to push when the frontier shrinks below n / beta. Other programs push, as Gunrock's SSSP, BC
 *    and CC do. Like the other engines, a frontier whose edges are under m / 32 is pushed outright.
 *
 * Kernels are templates over value type, contribution and combine: for the built-in algorithms'
 * programs (Hot, gpu_engine_host.cuh) the per-edge code has no branches on those; every other
 * program runs its value type's generic instantiation (kRuntime). Scratch memory is taken per call
 * from the device's stream-ordered pool (cudaMallocAsync, released with cudaFreeAsync on every
 * path); the GPU backend tells the pool to keep what it holds (mg__gpu_keep_pool), so later calls
 * reuse that memory instead of mapping new memory. Every CUDA call is checked (MG_DEVICE_ERROR
 * naming it, MG_OUT_OF_MEMORY for allocations), except the cudaFreeAsync of the cleanup, which
 * runs in a destructor and has no status to report to.
 */
#include <cub/block/block_scan.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include "frontier/gpu_program.cuh" /* first: it includes mg_internal.h with C linkage */
#include "frontier/gpu_engine_host.cuh"
#include "frontier/baseline_engine.h"
#include "core/gpu_resident.h"

namespace {

constexpr const char *kEntry = "mg__gpu_lb_advance"; /* what errors name (gpu_engine_host.cuh) */
constexpr int kBlock = 256;               /* threads per block, all kernels                        */
constexpr int kItems = 4;                 /* merged items (vertices + edges) per thread of a tile  */
constexpr int kTile = kBlock * kItems;    /* merged items per tile (one block at a time)           */
constexpr int kBlocksPerSm = 8;           /* the tile kernels' grid: at most this many blocks / SM */
constexpr uint32_t kNone = 0xffffffffu;

/* Direction choice. kPushCheap is the other engines' "small frontier" bound; kDoAlpha and kDoBeta
 * are Beamer's alpha and beta (SC'12; GAPBS's defaults 15 and 18). */
constexpr uint64_t kPushCheap = 32;
constexpr uint64_t kDoAlpha = 15;
constexpr uint64_t kDoBeta = 18;

/* ---- device helpers ----------------------------------------------------------------------------- */

template <typename T> __device__ __forceinline__ T shfl_up(T v, int delta) {
    return __shfl_up_sync(0xffffffffu, v, delta);
}
template <> __device__ __forceinline__ int64_t shfl_up(int64_t v, int delta) {
    return (int64_t)__shfl_up_sync(0xffffffffu, (long long)v, delta);
}

/* Adds each thread's count to *total: a warp sum, one atomic per warp. Every lane must call it. */
__device__ __forceinline__ void add_warp_sum(ull *total, ull mine) {
    for (int o = 16; o > 0; o >>= 1) mine += __shfl_xor_sync(0xffffffffu, mine, o);
    if ((threadIdx.x & 31) == 0 && mine) atomicAdd(total, mine);
}

template <typename T> __device__ __forceinline__ void emit_joined(const Params<T> &P, uint32_t d) {
    atomicOr(reinterpret_cast<ull *>(&P.out_bm[d >> 6]), 1ull << (d & 63));
    append(P.out_list, P.out_count, d);
}

/* ---- merge-path tiles ------------------------------------------------------------------------- */

/* The merged sequence interleaves the row ends scan[1..count] with the edge ranks 0..total-1 (a row
 * end before an edge rank when not larger). Returns how many row ends precede diagonal diag: the
 * rows finished before the split (Merrill and Garland's MergePathSearch, CUB's SpMV). */
__device__ __forceinline__ uint32_t merge_path_rows(uint64_t diag, const uint64_t *scan, uint32_t count,
                                                    uint64_t total) {
    uint64_t lo = diag > total ? diag - total : 0, hi = diag < count ? diag : count;
    while (lo < hi) {
        const uint64_t mid = (lo + hi) >> 1;
        if (scan[mid + 1] <= diag - mid - 1) lo = mid + 1;
        else hi = mid;
    }
    return (uint32_t)lo;
}

/* One tile: edge ranks [y0, y1) of rows x0 .. x0 + nrows - 1 (local row r is row x0 + r). */
struct Tile {
    uint64_t y0, y1;
    uint32_t x0, nrows;
};

/* Finds tile `tile` (threads 0 and 32 search its two ends) and copies scan[x0 .. x0 + nrows] into
 * s_scan. Ends with the block synchronised. */
__device__ Tile tile_load(uint64_t tile, const uint64_t *scan, uint32_t count, uint64_t total,
                          uint32_t *s_x, uint64_t *s_scan) {
    const uint64_t items = count + total;
    const uint64_t d0 = tile * kTile, d1 = d0 + kTile < items ? d0 + kTile : items;
    if (threadIdx.x == 0) s_x[0] = merge_path_rows(d0, scan, count, total);
    if (threadIdx.x == 32) s_x[1] = merge_path_rows(d1, scan, count, total);
    __syncthreads();
    Tile t;
    t.x0 = s_x[0];
    const uint32_t x1 = s_x[1];
    t.y0 = d0 - t.x0;
    t.y1 = d1 - x1;
    /* rows x0 .. x1 hold the tile's edges; row count does not exist */
    const uint32_t last = x1 < count ? x1 : count - 1;
    t.nrows = t.x0 <= last ? last - t.x0 + 1 : 0;
    for (uint32_t r = threadIdx.x; r <= t.nrows; r += kBlock) s_scan[r] = scan[t.x0 + r];
    return t;
}

/* The local row of edge rank y: s_scan[r] <= y < s_scan[r + 1]. */
__device__ __forceinline__ uint32_t row_of(const uint64_t *s_scan, uint32_t nrows, uint64_t y) {
    uint32_t lo = 0, hi = nrows - 1;
    while (lo < hi) {
        const uint32_t mid = (lo + hi) >> 1;
        if (s_scan[mid + 1] > y) hi = mid;
        else lo = mid + 1;
    }
    return lo;
}

/* ---- push ------------------------------------------------------------------------------------- */

/* Edge e of a source with per-source value xs. True when its destination *d is new to the list the
 * push builds: the output (it joined: y improved) or, through the accumulator, the touched list. */
template <typename T>
__device__ __forceinline__ bool push_edge(const Params<T> &P, int K, int C, T xs, uint64_t e, uint32_t *dst) {
    const uint32_t d = P.push_idx[e];
    if (!eligible(P, d)) return false;
    const T c = edge_value<T>(P, K, xs, P.push_w, e);
    bool touched;
    const bool joined = push_update(P, C, d, c, &touched);
    *dst = d;
    if (joined) return bit_claim(P.out_bm, d);
    if (touched) return bit_claim(P.touched, d);
    return false;
}

/* The load-balanced advance: tiles of the merged (frontier vertices, frontier edges) sequence,
 * P.count rows with exclusive offsets scan[0..P.count] (the scanned degrees of P.list, or the CSR
 * offsets themselves when every vertex is active). Grid-stride over tiles: the number of tiles is
 * read on the device, so the host needs no wait for it. */
template <typename T, int K_, int C_>
__global__ void __launch_bounds__(kBlock) lb_push_kernel(Params<T> P, const uint64_t *scan, ull *frontier_edges) {
    const int K = resolved<K_>(P.contribution), C = resolved<C_>(P.combine);
    typedef cub::BlockScan<uint32_t, kBlock> BlockScan;
    __shared__ uint64_t s_scan[kTile + 2];
    __shared__ uint64_t s_first[kTile + 1]; /* CSR position of each row's first edge */
    __shared__ T s_xs[kTile + 1];
    __shared__ uint32_t s_x[2];
    __shared__ ull s_base;
    __shared__ typename BlockScan::TempStorage s_block_scan;
    const uint32_t count = P.count;
    const uint64_t total = scan[count];
    const uint64_t tiles = (count + total + kTile - 1) / kTile;
    if (blockIdx.x == 0 && threadIdx.x == 0) *frontier_edges = total;
    const bool direct = P.op == OP_MIN || P.op == OP_MAX || P.op == OP_IF_UNSET;
    uint32_t *const list = direct ? P.out_list : P.tlist;
    ull *const list_count = direct ? P.out_count : P.tcount;
    for (uint64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const Tile t = tile_load(tile, scan, count, total, s_x, s_scan);
        for (uint32_t r = threadIdx.x; r < t.nrows; r += kBlock) {
            const uint32_t s = P.list ? P.list[t.x0 + r] : t.x0 + r;
            s_first[r] = P.push_off[s];
            s_xs[r] = source_value<T>(P, K, s);
        }
        __syncthreads();
        uint32_t found[kItems];
        uint32_t nfound = 0;
#pragma unroll
        for (int j = 0; j < kItems; j++) {
            found[j] = kNone;
            const uint64_t y = t.y0 + threadIdx.x + (uint64_t)j * kBlock;
            if (y >= t.y1) continue;
            const uint32_t r = row_of(s_scan, t.nrows, y);
            uint32_t d;
            if (push_edge<T>(P, K, C, s_xs[r], s_first[r] + (y - s_scan[r]), &d)) {
                found[j] = d;
                nfound++;
            }
        }
        /* the filter: compact the tile's new vertices, one global atomic per tile */
        uint32_t offset, tile_total;
        BlockScan(s_block_scan).ExclusiveSum(nfound, offset, tile_total);
        if (threadIdx.x == 0 && tile_total) s_base = atomicAdd(list_count, (ull)tile_total);
        __syncthreads();
        if (list != nullptr && nfound) {
            ull pos = s_base + offset;
#pragma unroll
            for (int j = 0; j < kItems; j++)
                if (found[j] != kNone) list[pos++] = found[j];
        }
        __syncthreads(); /* the shared arrays are refilled for the next tile */
    }
}

/* After a push through the accumulator (or MG_APPLY_ADD straight into y): each touched destination
 * once. */
template <typename T> __global__ void apply_touched_kernel(Params<T> P) {
    const ull count = *P.tcount;
    for (ull i = blockIdx.x * (ull)blockDim.x + threadIdx.x; i < count; i += (ull)gridDim.x * blockDim.x) {
        const uint32_t d = P.tlist[i];
        const bool joins = P.op == OP_ADD ? fabs((double)load(P.y + d)) > P.eps : apply_one(P, d, P.acc[d], true);
        if (joins) emit_joined(P, d);
    }
}

/* After a push with MG_APPLY_AFFINE: every eligible destination. */
template <typename T> __global__ void apply_all_kernel(Params<T> P) {
    for (uint32_t d = blockIdx.x * blockDim.x + threadIdx.x; d < P.n; d += gridDim.x * blockDim.x) {
        if (!eligible(P, d)) continue;
        const bool found = bit(P.touched, d);
        if (apply_one(P, d, found ? P.acc[d] : (T)0, found)) emit_joined(P, d);
    }
}

/* ---- pull ------------------------------------------------------------------------------------- */

/* Destination d's in-edges [lo, hi) combined by one thread; MG_COMBINE_ANY stops at the first
 * active source. True when some source was active. */
template <typename T>
__device__ __forceinline__ bool pull_alone(const Params<T> &P, int K, int C, uint64_t lo, uint64_t hi, T *acc,
                                           ull *scanned) {
    bool found = false;
    for (uint64_t e = lo; e < hi; e++) {
        ++*scanned;
        const uint32_t s = P.pull_idx[e];
        if (P.active_bm != nullptr && !bit(P.active_bm, s)) continue;
        const T c = edge_value<T>(P, K, source_value<T>(P, K, s), P.pull_w, e);
        found = true;
        if (C == MG_COMBINE_ANY) {
            *acc = c;
            break;
        }
        *acc = combine<T>(C, *acc, c);
    }
    return found;
}

/* A thread per destination (coalesced eligibility tests) combines up to kWarpEdges in-edges alone;
 * destinations with more are taken by their whole warp, one after another, 32 edges at a time (the
 * thread and warp levels of Merrill, Garland and Grimshaw's gathering, "Scalable GPU graph
 * traversal", PPoPP 2012). MG_COMBINE_ANY stops at the first active source (bottom-up BFS). Used
 * for MG_COMBINE_ANY, and for the other combines on graphs whose in-degrees never pass kWarpEdges
 * (no imbalance for merge-path tiles to remove). Every lane runs the same number of rounds, so the
 * warp votes and the closing sum are converged. */
constexpr uint64_t kWarpEdges = 32;

template <typename T, int K_, int C_> __global__ void pull_rows_kernel(Params<T> P) {
    const int K = resolved<K_>(P.contribution), C = resolved<C_>(P.combine);
    const uint32_t lane = threadIdx.x & 31;
    const uint32_t stride = gridDim.x * blockDim.x;
    const uint32_t rounds = (P.n + stride - 1) / stride;
    ull scanned = 0;
    for (uint32_t round = 0; round < rounds; round++) {
        const uint32_t d = round * stride + blockIdx.x * blockDim.x + threadIdx.x;
        const bool todo = d < P.n && eligible(P, d) &&
                          (P.apply != MG_APPLY_IF_UNSET || load(P.y + d) == P.unset);
        uint64_t lo = 0, hi = 0;
        if (todo) {
            lo = P.pull_off[d];
            hi = P.pull_off[d + 1];
        }
        const bool big = todo && hi - lo > kWarpEdges;
        if (todo && !big) {
            T acc = identity<T>(C);
            const bool found = pull_alone<T>(P, K, C, lo, hi, &acc, &scanned);
            if ((found || P.apply == MG_APPLY_AFFINE) && apply_one(P, d, acc, found)) emit_joined(P, d);
        }
        for (unsigned bigs = __ballot_sync(0xffffffffu, big); bigs; bigs &= bigs - 1) {
            const int leader = __ffs(bigs) - 1;
            const uint32_t bd = __shfl_sync(0xffffffffu, d, leader);
            const uint64_t blo = __shfl_sync(0xffffffffu, (unsigned long long)lo, leader);
            const uint64_t bhi = __shfl_sync(0xffffffffu, (unsigned long long)hi, leader);
            T acc = identity<T>(C);
            bool found = false;
            for (uint64_t base = blo; base < bhi; base += 32) {
                const uint64_t e = base + lane;
                bool active = false;
                T v = identity<T>(C);
                if (e < bhi) {
                    scanned++;
                    const uint32_t s = P.pull_idx[e];
                    if (P.active_bm == nullptr || bit(P.active_bm, s)) {
                        v = edge_value<T>(P, K, source_value<T>(P, K, s), P.pull_w, e);
                        active = true;
                    }
                }
                const unsigned who = __ballot_sync(0xffffffffu, active);
                if (C == MG_COMBINE_ANY) {
                    if (who) {
                        acc = shfl(v, __ffs(who) - 1);
                        found = true;
                        break;
                    }
                } else {
                    acc = combine<T>(C, acc, v);
                    found = found || who != 0;
                }
            }
            if (C != MG_COMBINE_ANY)
                for (int o = 16; o > 0; o >>= 1) acc = combine<T>(C, acc, shfl_xor(acc, o));
            if ((uint32_t)leader == lane && (found || P.apply == MG_APPLY_AFFINE) && apply_one(P, bd, acc, found))
                emit_joined(P, bd);
        }
    }
    add_warp_sum(P.scanned, scanned);
}

/* Other combines: merge-path tiles over the in-edges of `count` destinations (rows[i], or i when
 * rows is NULL) with exclusive offsets scan[0..count]. Consecutive lanes hold consecutive edges, so
 * a destination's edges within one warp are a run of lanes: a segmented shuffle scan combines each
 * run and its last lane makes one atomic into the accumulator (and marks the destination touched). */
template <typename T, int K_, int C_>
__global__ void __launch_bounds__(kBlock) lb_pull_kernel(Params<T> P, const uint64_t *scan,
                                                        const uint32_t *rows, uint32_t count) {
    const int K = resolved<K_>(P.contribution), C = resolved<C_>(P.combine);
    __shared__ uint64_t s_scan[kTile + 2];
    __shared__ uint64_t s_first[kTile + 1]; /* CSC position of each row's first in-edge */
    __shared__ uint32_t s_row[kTile + 1];
    __shared__ uint32_t s_x[2];
    const uint64_t total = scan[count];
    const uint64_t tiles = (count + total + kTile - 1) / kTile;
    const uint32_t lane = threadIdx.x & 31;
    for (uint64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const Tile t = tile_load(tile, scan, count, total, s_x, s_scan);
        for (uint32_t r = threadIdx.x; r < t.nrows; r += kBlock) {
            const uint32_t d = rows ? rows[t.x0 + r] : t.x0 + r;
            s_row[r] = d;
            s_first[r] = P.pull_off[d];
        }
        __syncthreads();
        for (int j = 0; j < kItems; j++) {
            const uint64_t y = t.y0 + threadIdx.x + (uint64_t)j * kBlock;
            const bool valid = y < t.y1;
            if (!__any_sync(0xffffffffu, valid)) continue; /* warp-uniform */
            /* lanes past the tile's end get keys of their own, above every row */
            uint32_t key = t.nrows + lane;
            T c = identity<T>(C);
            int got = 0;
            if (valid) {
                key = row_of(s_scan, t.nrows, y);
                const uint64_t e = s_first[key] + (y - s_scan[key]);
                const uint32_t s = P.pull_idx[e];
                if (P.active_bm == nullptr || bit(P.active_bm, s)) {
                    c = edge_value<T>(P, K, source_value<T>(P, K, s), P.pull_w, e);
                    got = 1;
                }
            }
            /* keys never decrease along the lanes, so equal keys at distance o mean one run */
            for (int o = 1; o < 32; o <<= 1) {
                const T oc = shfl_up(c, o);
                const uint32_t okey = __shfl_up_sync(0xffffffffu, key, o);
                const int ogot = __shfl_up_sync(0xffffffffu, got, o);
                if (lane >= (uint32_t)o && okey == key) {
                    c = combine<T>(C, c, oc);
                    got |= ogot;
                }
            }
            const uint32_t next = __shfl_down_sync(0xffffffffu, key, 1);
            if (valid && got && (lane == 31 || next != key)) {
                const uint32_t d = s_row[key];
                atomic_combine<T>(C, P.acc + d, c);
                bit_claim(P.touched, d);
            }
        }
        __syncthreads(); /* the shared arrays are refilled for the next tile */
    }
}

/* After lb_pull_kernel: each of the rows once. */
template <typename T> __global__ void pull_apply_kernel(Params<T> P, const uint32_t *rows, uint32_t nrows) {
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < nrows; i += gridDim.x * blockDim.x) {
        const uint32_t d = rows ? rows[i] : i;
        const bool found = bit(P.touched, d);
        if ((found || P.apply == MG_APPLY_AFFINE) && apply_one(P, d, P.acc[d], found)) emit_joined(P, d);
    }
}

/* ---- small kernels ------------------------------------------------------------------------------ */

template <typename T> __global__ void fill_kernel(T *a, uint32_t n, T v) {
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) a[i] = v;
}

/* Beamer's m_u: the in-edges (along the pull) of the destinations a pull would still scan:
 * eligible and, for MG_APPLY_IF_UNSET, unset. */
template <typename T> __global__ void unvisited_edges_kernel(Params<T> P, ull *sum) {
    ull mine = 0;
    const uint32_t stride = gridDim.x * blockDim.x;
    const uint32_t rounds = (P.n + stride - 1) / stride;
    for (uint32_t r = 0; r < rounds; r++) {
        const uint32_t d = r * stride + blockIdx.x * blockDim.x + threadIdx.x;
        if (d < P.n && eligible(P, d) && (P.apply != MG_APPLY_IF_UNSET || load(P.y + d) == P.unset))
            mine += P.pull_off[d + 1] - P.pull_off[d];
    }
    add_warp_sum(sum, mine);
}

/* Degree of the i-th vertex of a list (or of vertex i), 0 past its end: scanned over count + 1
 * items, the last exclusive sum is the total. */
struct ListDegree {
    const uint64_t *off;
    const uint32_t *list;
    uint32_t count;
    __host__ __device__ uint64_t operator()(uint32_t i) const {
        if (i >= count) return 0;
        const uint32_t v = list ? list[i] : i;
        return off[v + 1] - off[v];
    }
};

/* The destinations a pull must visit: eligible and, for MG_APPLY_IF_UNSET, still unset. */
template <typename T> struct PullRow {
    const uint64_t *mask;
    bool complement;
    const T *y;
    T unset;
    bool need_unset;
    __host__ __device__ bool operator()(uint32_t d) const {
        if (mask != nullptr && (((mask[d >> 6] >> (d & 63)) & 1u) != 0) == complement) return false;
        return !need_unset || y[d] == unset;
    }
};

/* ---- host side ---------------------------------------------------------------------------------- */

/* One call's device scratch, from the stream-ordered pool, handed back (in stream order, after the
 * call's kernels) when the call returns, whichever way it returns. */
struct Scratch {
    static constexpr int kMax = 16;
    void *ptr[kMax] = {};
    int used = 0;
    Scratch() = default;
    Scratch(const Scratch &) = delete;
    Scratch &operator=(const Scratch &) = delete;
    ~Scratch() {
        for (int i = 0; i < used; i++) cudaFreeAsync(ptr[i], 0);
    }
};

template <typename U> mg_status take(mg_context ctx, Scratch &S, U **out, size_t bytes, const char *what) {
    *out = nullptr;
    if (S.used == Scratch::kMax)
        return mg__error(ctx, MG_DEVICE_ERROR, "mg__gpu_lb_advance: more than %d scratch arrays (for %s)",
                         Scratch::kMax, what);
    void *p = nullptr;
    const cudaError_t e = cudaMallocAsync(&p, bytes ? bytes : 8, 0);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return mg__error(ctx, e == cudaErrorMemoryAllocation ? MG_OUT_OF_MEMORY : MG_DEVICE_ERROR,
                         "mg__gpu_lb_advance: cudaMallocAsync of %zu bytes for %s: %s", bytes, what,
                         cudaGetErrorString(e));
    }
    S.ptr[S.used++] = p;
    *out = static_cast<U *>(p);
    return MG_SUCCESS;
}

/* Sub-array offsets within one allocation: 256 bytes, as cudaMalloc and CUB's scratch expect. */
constexpr size_t aligned(size_t bytes) { return (bytes + 255) & ~(size_t)255; }

/* Counters a call reads back at its end, in one copy. */
enum { CNT_OUT = 0, CNT_TOUCHED, CNT_SCANNED, CNT_FRONTIER_EDGES, CNT_UNVISITED_EDGES, CNT_ROWS, CNT_COUNT };

/* Blocks for the tile kernels: one per tile up to kBlocksPerSm per SM (they then loop). */
unsigned tile_grid(uint64_t items, int sms) {
    uint64_t tiles = (items + kTile - 1) / kTile;
    const uint64_t cap = (uint64_t)sms * kBlocksPerSm;
    if (tiles > cap) tiles = cap;
    return (unsigned)(tiles ? tiles : 1);
}

/* Kernel launches, instantiated by LAUNCH_BY_PROGRAM. A pull never sees MG_CONTRIB_SRC_DIV_OUTDEG
 * (the sources are divided first) and lb_pull_kernel never MG_COMBINE_ANY: no kernels for those. */
template <typename T, int K, int C>
void launch_push(const Params<T> &P, const uint64_t *scan, ull *frontier_edges, unsigned grid) {
    lb_push_kernel<T, K, C><<<grid, kBlock>>>(P, scan, frontier_edges);
}
template <typename T, int K, int C>
void launch_pull(const Params<T> &P, const uint64_t *scan, const uint32_t *rows, uint32_t count, unsigned grid) {
    if constexpr (K != MG_CONTRIB_SRC_DIV_OUTDEG && C != MG_COMBINE_ANY)
        lb_pull_kernel<T, K, C><<<grid, kBlock>>>(P, scan, rows, count);
}
template <typename T, int K, int C> void launch_pull_rows(const Params<T> &P) {
    if constexpr (K != MG_CONTRIB_SRC_DIV_OUTDEG) pull_rows_kernel<T, K, C><<<grid_for(P.n), kBlock>>>(P);
}


/* One call, resolved: the arguments, the scratch and the counters. */
template <typename T> struct Call {
    mg_context ctx;
    const mg__gpu_advance_args *a;
    const mg_program *p;
    const mg__gpu_graph *g;
    Params<T> P;
    Scratch S;
    ull *counters;
    int sms;
    size_t words;
};

/* The push: the accumulator when needed, the tiles over P.list's scanned degrees, the applies. */
template <typename T> mg_status push_step(Call<T> &c, const uint64_t *scan, uint64_t items) {
    mg_context ctx = c.ctx;
    Params<T> &P = c.P;
    const mg_program *p = c.p;
    const uint32_t n = P.n;
    P.op = push_op(p);
    if (P.op == OP_ACC || P.op == OP_ADD) {
        TRY(take(ctx, c.S, &P.touched, c.words * sizeof(uint64_t), "the touched bitmap"));
        TRY(take(ctx, c.S, &P.tlist, (size_t)n * sizeof(uint32_t), "the touched list"));
        CU(cudaMemsetAsync(P.touched, 0, c.words * sizeof(uint64_t)));
    }
    if (P.op == OP_ACC) {
        TRY(take(ctx, c.S, &P.acc, (size_t)n * sizeof(T), "the accumulator"));
        if (n > 0) {
            fill_kernel<T><<<grid_for(n), kBlock>>>(P.acc, n, host_identity<T>(p->combine));
            LAUNCHED("fill_kernel");
        }
    }
    if (P.count > 0) {
        const unsigned grid = tile_grid(items, c.sms);
        ull *const fe = c.counters + CNT_FRONTIER_EDGES;
        LAUNCH_BY_PROGRAM(Hot<T>, (int)p->contribution, (int)p->combine, launch_push, P, scan, fe, grid);
        LAUNCHED("lb_push_kernel");
    }
    if (p->apply == MG_APPLY_AFFINE) {
        if (n > 0) {
            apply_all_kernel<T><<<grid_for(n), kBlock>>>(P);
            LAUNCHED("apply_all_kernel");
        }
    } else if (P.op == OP_ACC || P.op == OP_ADD) {
        apply_touched_kernel<T><<<grid_for(n), kBlock>>>(P);
        LAUNCHED("apply_touched_kernel");
    }
    return MG_SUCCESS;
}

/* The pull: the frontier as a bitmap, x / outdeg divided once, then a thread (or warp) per
 * destination, or the tiles over the eligible destinations' in-edges and one apply pass. */
template <typename T> mg_status pull_step(Call<T> &c) {
    mg_context ctx = c.ctx;
    Params<T> &P = c.P;
    const mg_program *p = c.p;
    const uint32_t n = P.n;
    if (c.a->d_in_list != nullptr) {
        uint64_t *active = nullptr;
        TRY(take(ctx, c.S, &active, c.words * sizeof(uint64_t), "the active-source bitmap"));
        CU(cudaMemsetAsync(active, 0, c.words * sizeof(uint64_t)));
        mg__gpu_list_to_bitmap_async(c.a->d_in_list, c.a->in_count, active);
        LAUNCHED("list_to_bitmap");
        P.active_bm = active;
    }
    int K = (int)p->contribution;
    if (K == MG_CONTRIB_SRC_DIV_OUTDEG) {
        T *scaled = nullptr;
        TRY(take(ctx, c.S, &scaled, (size_t)n * sizeof(T), "the scaled source values"));
        if (n > 0) {
            scale_kernel<T><<<grid_for(n), kBlock>>>(P, scaled);
            LAUNCHED("scale_kernel");
        }
        P.x = scaled;
        K = P.contribution = MG_CONTRIB_SRC; /* what the generic kernels read */
    }
    if (n == 0) return MG_SUCCESS;
    const uint64_t max_degree = p->edges == MG_EDGES_OUT ? c.g->max_in_degree : c.g->max_out_degree;
    if (p->combine == MG_COMBINE_ANY || max_degree <= kWarpEdges) {
        LAUNCH_BY_PROGRAM(Hot<T>, K, (int)p->combine, launch_pull_rows, P);
        LAUNCHED("pull_rows_kernel");
        return MG_SUCCESS;
    }

    TRY(take(ctx, c.S, &P.touched, c.words * sizeof(uint64_t), "the touched bitmap"));
    CU(cudaMemsetAsync(P.touched, 0, c.words * sizeof(uint64_t)));
    TRY(take(ctx, c.S, &P.acc, (size_t)n * sizeof(T), "the accumulator"));
    fill_kernel<T><<<grid_for(n), kBlock>>>(P.acc, n, host_identity<T>(p->combine));
    LAUNCHED("fill_kernel");

    /* the rows: every destination (the CSC offsets as they are), or the compacted eligible ones with
     * their in-degrees scanned */
    const uint32_t *rows = nullptr;
    const uint64_t *scan = P.pull_off;
    uint32_t nrows = n;
    uint64_t items = (uint64_t)n + c.g->m;
    if (P.mask != nullptr || p->apply == MG_APPLY_IF_UNSET) {
        uint32_t *list = nullptr;
        TRY(take(ctx, c.S, &list, (size_t)n * sizeof(uint32_t), "the eligible destinations"));
        const PullRow<T> pred = {P.mask, P.complement, P.y, P.unset, p->apply == MG_APPLY_IF_UNSET};
        const thrust::counting_iterator<uint32_t> ids(0);
        ull *d_rows = c.counters + CNT_ROWS;
        size_t bytes = 0;
        CU(cub::DeviceSelect::If(nullptr, bytes, ids, list, d_rows, (int64_t)n, pred));
        void *temp = nullptr;
        TRY(take(ctx, c.S, &temp, bytes, "CUB's selection"));
        CU(cub::DeviceSelect::If(temp, bytes, ids, list, d_rows, (int64_t)n, pred));
        ull selected = 0;
        CU(cudaMemcpy(&selected, d_rows, sizeof selected, cudaMemcpyDeviceToHost));
        nrows = (uint32_t)selected;
        rows = list;
        uint64_t *row_scan = nullptr;
        TRY(take(ctx, c.S, &row_scan, ((size_t)nrows + 1) * sizeof(uint64_t), "the rows' scanned degrees"));
        const auto degrees = thrust::make_transform_iterator(ids, ListDegree{P.pull_off, list, nrows});
        bytes = 0;
        CU(cub::DeviceScan::ExclusiveSum(nullptr, bytes, degrees, row_scan, (int64_t)nrows + 1));
        TRY(take(ctx, c.S, &temp, bytes, "CUB's scan"));
        CU(cub::DeviceScan::ExclusiveSum(temp, bytes, degrees, row_scan, (int64_t)nrows + 1));
        scan = row_scan;
        items = (uint64_t)nrows + c.g->m;
    }
    /* every in-edge of the rows is read */
    CU(cudaMemcpyAsync(c.counters + CNT_SCANNED, scan + nrows, sizeof(ull), cudaMemcpyDeviceToDevice));
    if (nrows > 0) {
        const unsigned grid = tile_grid(items, c.sms);
        LAUNCH_BY_PROGRAM(Hot<T>, K, (int)p->combine, launch_pull, P, scan, rows, nrows, grid);
        LAUNCHED("lb_pull_kernel");
        pull_apply_kernel<T><<<grid_for(nrows), kBlock>>>(P, rows, nrows);
        LAUNCHED("pull_apply_kernel");
    }
    return MG_SUCCESS;
}

template <typename T> mg_status advance_t(mg_context ctx, mg__gpu_advance_args *a, mg_advance_info *info) {
    Call<T> c;
    c.ctx = ctx;
    c.a = a;
    c.p = a->program;
    c.g = a->g;
    const mg__gpu_graph *g = a->g;
    const mg_program *p = a->program;
    const uint32_t n = g->n;
    const bool along_out = p->edges == MG_EDGES_OUT;
    c.words = mg__bitmap_words(n);
    int device = 0;
    CU(cudaGetDevice(&device));
    CU(cudaDeviceGetAttribute(&c.sms, cudaDevAttrMultiProcessorCount, device));

    Params<T> &P = c.P;
    params_init(P, a);

    /* The scratch every call needs, in one allocation (a BFS level on a road graph is a few
     * microseconds of kernel work, so each call's API calls count): the counters, the output bitmap
     * when the caller has none (both zeroed by one memset), and for a frontier list its scanned
     * degrees (the push's partition and the frontier's edge count) and CUB's space for the scan. */
    const bool all_active = a->d_in_list == nullptr;
    const uint32_t count = P.count;
    const bool scanned_list = !all_active && count > 0;
    const auto degrees = thrust::make_transform_iterator(thrust::counting_iterator<uint32_t>(0),
                                                         ListDegree{P.push_off, P.list, count});
    uint64_t *fscan = nullptr;
    size_t scan_temp = 0;
    if (scanned_list) CU(cub::DeviceScan::ExclusiveSum(nullptr, scan_temp, degrees, fscan, (int64_t)count + 1));
    const size_t cnt_bytes = aligned(CNT_COUNT * sizeof(ull));
    const size_t bm_bytes = a->d_out_bitmap ? 0 : aligned(c.words * sizeof(uint64_t));
    const size_t fscan_bytes = scanned_list ? aligned(((size_t)count + 1) * sizeof(uint64_t)) : 0;
    unsigned char *slab = nullptr;
    TRY(take(ctx, c.S, &slab, cnt_bytes + bm_bytes + fscan_bytes + scan_temp,
             "the counters, the output bitmap and the frontier's scan"));
    c.counters = reinterpret_cast<ull *>(slab);
    P.out_count = c.counters + CNT_OUT;
    P.tcount = c.counters + CNT_TOUCHED;
    P.scanned = c.counters + CNT_SCANNED;
    P.out_bm = a->d_out_bitmap ? a->d_out_bitmap : reinterpret_cast<uint64_t *>(slab + cnt_bytes);
    CU(cudaMemsetAsync(slab, 0, cnt_bytes + bm_bytes));
    if (a->d_out_bitmap) CU(cudaMemsetAsync(a->d_out_bitmap, 0, c.words * sizeof(uint64_t)));
    const uint64_t *scan = P.push_off; /* every vertex active: the CSR's own offsets */
    if (scanned_list) {
        fscan = reinterpret_cast<uint64_t *>(slab + cnt_bytes + bm_bytes);
        CU(cub::DeviceScan::ExclusiveSum(slab + cnt_bytes + bm_bytes + fscan_bytes, scan_temp, degrees,
                                         fscan, (int64_t)count + 1));
        scan = fscan;
    }
    ull mf = all_active ? g->m : 0;
    bool mf_known = all_active || count == 0;

    /* Push or pull. */
    const uint64_t max_degree = along_out ? g->max_out_degree : g->max_in_degree;
    bool pull;
    if (ctx->mode == MG_MODE_SPARSE) pull = false;
    else if (ctx->mode == MG_MODE_PULL || ctx->mode == MG_MODE_DENSE) pull = true;
    else if (all_active || p->apply == MG_APPLY_AFFINE) pull = true;
    else if (p->combine != MG_COMBINE_ANY) pull = false;
    else if ((uint64_t)count * max_degree < g->m / kPushCheap) pull = false;
    else {
        CU(cudaMemcpy(&mf, scan + count, sizeof mf, cudaMemcpyDeviceToHost));
        mf_known = true;
        const mg_advance_info prev = ctx->last_advance;
        if (mf < g->m / kPushCheap) {
            pull = false;
        } else if (prev.pulled) {
            /* bottom-up until the frontier shrinks below n / beta (GAPBS: awake_count) */
            pull = count >= prev.frontier_vertices || (uint64_t)count * kDoBeta > n;
        } else {
            /* top-down until the frontier's edges exceed the unvisited edges / alpha */
            unvisited_edges_kernel<T><<<grid_for(n), kBlock>>>(P, c.counters + CNT_UNVISITED_EDGES);
            LAUNCHED("unvisited_edges_kernel");
            ull mu = 0;
            CU(cudaMemcpy(&mu, c.counters + CNT_UNVISITED_EDGES, sizeof mu, cudaMemcpyDeviceToHost));
            pull = mf * kDoAlpha > mu;
        }
    }

    if (pull) {
        if (!mf_known)
            CU(cudaMemcpyAsync(c.counters + CNT_FRONTIER_EDGES, scan + count, sizeof(ull), cudaMemcpyDeviceToDevice));
        TRY(pull_step(c));
    } else { /* lb_push_kernel writes the frontier's edge count */
        const uint64_t edges = mf_known ? mf : ((uint64_t)count * max_degree < g->m ? (uint64_t)count * max_degree : g->m);
        TRY(push_step(c, scan, (uint64_t)count + edges));
    }

    /* the one wait of a push (a pull may have waited once more for its row count) */
    ull host[CNT_COUNT];
    CU(cudaMemcpyAsync(host, c.counters, sizeof host, cudaMemcpyDeviceToHost));
    CU(cudaStreamSynchronize(0));
    if (!mf_known) mf = host[CNT_FRONTIER_EDGES];
    a->out_count = (uint32_t)host[CNT_OUT];
    info->frontier_vertices = count;
    info->frontier_edges = mf;
    info->edges_scanned = pull ? host[CNT_SCANNED] : mf;
    info->output_vertices = (uint32_t)host[CNT_OUT];
    info->pulled = pull;
    info->seconds = 0;
    ctx->last_advance = *info;
    return MG_SUCCESS;
}

} // namespace

extern "C" mg_status mg__gpu_lb_advance(mg_context ctx, mg__gpu_advance_args *a, mg_advance_info *info) {
    TRY(check_args(ctx, kEntry, a, info));
    switch (a->type) {
    case MG_INT32: case MG_VERTEX: return advance_t<int32_t>(ctx, a, info);
    case MG_INT64: return advance_t<int64_t>(ctx, a, info);
    case MG_FLOAT: return advance_t<float>(ctx, a, info);
    case MG_DOUBLE: return advance_t<double>(ctx, a, info);
    }
    return mg__error(ctx, MG_INVALID_ARGUMENT, "mg__gpu_lb_advance: unknown value type %d", (int)a->type);
}
