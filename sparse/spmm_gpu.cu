/*
 * spmm_gpu.cu — SpMM (C = alpha op(A) B + beta C) and SDDMM on the device with adaptive sparse
 * tiling (ASpT: Hong, Sukumaran-Rajam et al., PPoPP 2019; the thesis in shared/papers, chapters 4
 * and 5), over the device CSR / CSC that spmv_gpu.cu uploads and caches on the matrix.
 *
 * The form (one per orientation, built on the device on first use and cached beside the SpMV form):
 * rows are cut into panels of kPanel rows; a column with at least kDenseMin entries in a panel is
 * dense there. Each row's entries are reordered (a stable radix sort on (row, slot) keys) so its
 * dense entries come first, ordered by the column's slot among the panel's dense columns, the rest
 * after in CSR order. rcol holds the slot for a dense entry and the column for the others; rperm
 * each entry's position in its row's CSR order (values are gathered through it once per type, and
 * the SDDMM writes its results through it, so the user sees the CSR order). Rows of more than
 * kLongSpmm (128) entries stay out of the panels: they are cut into segments of kSeg (128)
 * entries, a warp each, listed on the device when the form is built (a scan of the rows' segment
 * counts and a fill), so a long row never serialises one warp. Each part is built when a call (or
 * mg_matrix_gpu_prepare_spmm's K) first needs it: the panels, tiles and reordering for the panel
 * kernels, the segments for them and for the row groups of a matrix with rows over kLongRow
 * (1024); the row-group kernels below read the CSR as it is and take shorter rows whole.
 *
 * Every loop over a row's entries reads them 32 at a time (GE-SpMM's coalesced row caching:
 * Huang et al., SC'20): lane i loads entry i's column and value, the warp takes the 32 by shuffles
 * and loads the B rows of kUnroll (8) of them before using any, so those loads are in flight
 * together instead of each waiting for its column's load.
 *
 * SpMM: a thread block of kWarps warps per (panel, K chunk of 32 V columns), each warp kRows rows,
 * lanes across K with V-wide vector loads (float4/float2/double2), the rows' sums in registers.
 * The panel's dense columns are walked in tiles: the tile's B rows are staged in shared memory
 * (reused by every row of the panel), then every row consumes its entries of that tile; then the
 * warp takes its rows' sparse remainders as one stream of 32-entry batches read straight from B.
 * A segment warp's sum is added to C atomically (the panel kernel wrote beta C first; the warps of
 * a block on one row add theirs in shared memory first), so long rows' sums vary in order from run
 * to run; the other rows' do not. Where K is 8 to 16 16-byte vectors and the mean row is at most
 * 128 and none over kLongRow (rows_lanes), a plainer kernel serves instead: spmm_rows, 1, 2 or 4
 * groups of K / V lanes a row (rows_groups: more on matrices of few rows) reading the CSR in its
 * own order, every row whole. SDDMM: the same panels
 * and tiles, a warp per row with A's row in registers, B's dense rows in shared memory,
 * warp-shuffle dot products written 32 at a time; a long row's segments each load A's row and
 * write their own entries. Under a like rule sddmm_rows serves instead: groups of K / V lanes a
 * row with A's row in their registers, reading the CSR G entries at a time, a halving reduction
 * leaving lane i entry i's dot product to write in CSR order; rows whole where none is over
 * kLongRow, else the rows over kLongSpmm in segments as above.
 *
 * TF32 (opts->tf32, float; session 42): rows are cut into windows of kWindow (16), each window's
 * distinct columns taken once, in blocks of 8, and its 16 x 8 blocks of A multiplied by B's rows
 * on the tensor cores (mma m16n8k8, spmm_windows), so a B row is read once a window however many
 * of its rows hold that column. The windows are counted by a merge of the window's sorted rows
 * (window_merge) and built only where a distinct column serves kWindowsReuse entries or more
 * (windows_eligible says where they are considered at all); elsewhere the exact kernels run.
 */
#include <cuda_runtime.h>
#include <cub/cub.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <atomic>

#include <stdio.h>
#include <string.h>

extern "C" {
#include "mg_internal.h"
#include "gpu_resident.h"
}
#include "frontier/gpu_engine.h"
#include "sparse/sparse_internal.h"
#include "sparse/spmv_gpu.h"

/* One orientation's SpMM / SDDMM form in parts, each built on first use: the long rows' segments
 * (segmented), which the panel kernels use and the SDDMM's row groups where a row is over
 * kLongRow; the SpMM row groups' list of rows over kLongGroup (long_listed), a block each; and the
 * panels and tiles (d_dense_first not NULL), which only the panel kernels use. */
struct mg__spmm_form {
    bool segmented;
    uint32_t npanels;
    uint64_t ndense;           /* (panel, column) pairs that are dense */
    uint64_t dense_entries;    /* entries in tiles */
    uint64_t *d_dense_first;   /* npanels + 1: each panel's first dense column in d_dcol */
    uint32_t *d_dcol;          /* ndense: the dense columns, by panel, ascending */
    uint32_t *d_rcol;          /* nnz: slot (dense entry) or column (the rest), reordered rows */
    uint32_t *d_rperm;         /* nnz: the entry's position within its row in CSR order */
    uint64_t *d_split;         /* n: each row's first entry that is not in a tile */
    uint32_t nsegs;            /* segments of the rows of more than kLongSpmm entries */
    uint32_t *d_seg_row;       /* nsegs: the segment's row, ascending */
    uint64_t *d_seg_begin;     /* nsegs: its first entry */
    bool long_listed;          /* the row groups' long rows listed (d_long_rows) */
    uint32_t nlong;            /* rows of more than kLongGroup entries, a block each in spmm_rows */
    uint32_t *d_long_rows;     /* nlong: those rows, in no set order */
    void *d_rval[2];           /* nnz reordered values, float [0] and double [1]; NULL until made */
    bool windowed;             /* the TF32 windows built (spmm_windows_build) */
    uint32_t nwin;             /* windows of kWindow rows */
    uint32_t nwblocks;         /* their blocks of 8 distinct columns, all windows together */
    uint32_t *d_wblock;        /* nwin + 1: each window's first block */
    uint32_t *d_wcol;          /* nwblocks * 8: a window's distinct columns ascending, its last
                                  repeated to fill its last block */
    float *d_wfrag;            /* nwblocks * 128: the blocks' 16 x 8 values of A, rounded to TF32,
                                  in the order of the mma's A fragment */
    size_t bytes;
    double seconds;            /* building its parts and values (CUDA events) */
};

struct mg__spmm_forms {
    mg__spmm_form of[2];       /* the CSR's [0], the CSC's [1] */
};

namespace {

#include "gpu_util.cuh"

/* Rows of a panel: 16, two a warp. With 64 (8 a warp, each row's batches a chain of dependent
 * loads) the real matrices of 10k-600k entries took 2x cuSPARSE's time; A/B on the H100 (session
 * 14, 15 real matrices, K 32): geometric mean 0.49x -> 0.69x cuSPARSE's best in fp32, 0.53x ->
 * 0.76x in fp64; at K 128 SpMM and SDDMM faster on every real matrix measured (e.g. 2dcyl1 SpMM
 * 0.0349 -> 0.0139 ms). */
constexpr uint32_t kPanel = 16;
constexpr int kWarps = 8;               /* warps of a block: a panel's rows, kRows each */
constexpr int kRows = kPanel / kWarps;
constexpr int kBlock = kWarps * 32;
constexpr uint32_t kDenseMin = 4;       /* entries of a column in a panel that make it dense */
constexpr int kTileBytes = 16384;       /* the SpMM tile of staged B rows */
constexpr int kSddmmTileBytes = 32768;  /* the SDDMM's, at least one row of B */
constexpr uint32_t kSparse = 0xffffffffu; /* an order key's low word for an entry not in a tile */
/* Rows of more than kLongSpmm entries leave the panels: they are cut into segments of kSeg
 * entries, a warp each (spmm_segments, sddmm_segments), so no warp holds more than kSeg entries of
 * one row. A panel warp's row then costs it at most kLongSpmm / 32 = 4 batches of 32 entries, as a
 * segment costs its warp; a longer row would be the one its block (and the warp's other rows)
 * waits for. Segments cost an atomic per value of C per kSeg entries (fewer where a block's warps
 * share a row), and their rows get no tiles. Both are first choices, not yet tuned on the H100. */
constexpr uint32_t kSeg = 128;
constexpr uint32_t kLongSpmm = kSeg;
/* The SpMM's row groups give a row of more than kLongGroup entries a block of its own (spmm_rows),
 * up to rows of kBlockRowMax (a block's 256 batches; a matrix with a longer row keeps the panels,
 * whose segments put a warp on every kSeg entries). A/B on the H200 (session 40, s40d, float,
 * validated; x = cuSPARSE's best / mgraph): against the panels, which took every matrix with a row
 * over kLongRow, and against rows to 256 in one group, a block from 1024 / from 256 on:
 * rajat01 K 32 0.87x -> 0.46x / 1.10x, K 128 0.64x -> 0.29x / 0.75x; adder_dcop_05 0.75x -> 1.50x /
 * 1.44x, 0.57x -> 1.32x / 1.57x; mbeacxc (rows to 484, groups before) 1.03x -> 1.10x / 1.53x, 0.97x
 * -> 0.88x / 1.28x; R-MAT 15 0.54x -> 0.46x / 0.66x, 0.77x -> 0.64x / 0.86x; in double 0.66x ->
 * 0.74x / 1.00x; dblp-2010 (rows to 238) unchanged; R-MAT 19 (16M entries) 1.42x -> 1.69x (from
 * 1024). From 128 instead of 256 (session 41, s41a, both precisions, K 32 and 128): rajat01 fp32
 * K 32 1.21x -> 1.64x, K 128 0.83x -> 1.18x, fp64 1.01x -> 1.34x; mbeacxc 1.46x -> 1.73x (fp64
 * 1.43x -> 1.67x); adder_dcop_05 1.46x -> 1.59x; dblp-2010 (47 rows over 128) 1.15x -> 1.31x;
 * R-MAT 15 0.87x -> 0.93x (fp64 0.94x -> 1.03x); no cell slower beyond the runs' spread. */
constexpr uint64_t kLongGroup = 128;
constexpr uint64_t kBlockRowMax = 65536;
/* The TF32 path (opts->tf32, float): windows of kWindow rows (the mma's M), each window's distinct
 * columns once, in blocks of 8 (the mma's K); kWindowWarps warps a thread block, a window each. */
constexpr uint32_t kWindow = 16;
constexpr int kWindowWarps = 4;
constexpr double kWindowsReuse = 4.0; /* entries a distinct column of a window; see windows_eligible */
constexpr unsigned kFull = 0xffffffffu;

/* ---- vectors of V values a lane ------------------------------------------------------------------ */

template <typename T, int V> struct alignas(sizeof(T) * V) vec {
    T v[V];
};

template <typename T, int V> __device__ inline vec<T, V> vzero() {
    vec<T, V> r;
#pragma unroll
    for (int i = 0; i < V; i++) r.v[i] = T(0);
    return r;
}

/* V values at p (aligned to the vector: K is a multiple of V), through the read-only cache. */
template <typename T, int V> __device__ inline vec<T, V> vload(const T *p) {
    static_assert(sizeof(T) * V <= 16, "at most 16 bytes a lane");
    vec<T, V> r;
    if constexpr (V == 4) {
        const float4 q = __ldg(reinterpret_cast<const float4 *>(p));
        r.v[0] = q.x, r.v[1] = q.y, r.v[2] = q.z, r.v[3] = q.w;
    } else if constexpr (V == 2 && sizeof(T) == 4) {
        const float2 q = __ldg(reinterpret_cast<const float2 *>(p));
        r.v[0] = q.x, r.v[1] = q.y;
    } else if constexpr (V == 2) {
        const double2 q = __ldg(reinterpret_cast<const double2 *>(p));
        r.v[0] = q.x, r.v[1] = q.y;
    } else {
        r.v[0] = __ldg(p);
    }
    return r;
}

template <typename T, int V> __device__ inline void vfma(vec<T, V> &acc, T a, const vec<T, V> &b) {
#pragma unroll
    for (int i = 0; i < V; i++) acc.v[i] = fma(a, b.v[i], acc.v[i]);
}

/* ---- batches of 32 entries ----------------------------------------------------------------------- */

/* Every loop over a row's entries takes them 32 at a time: lane i loads entry i's column and value
 * (one coalesced load each), then the warp walks the 32 with shuffles, the B rows of kUnroll of
 * them loaded before any is used. A B load then depends on registers only and kUnroll of them are
 * in flight per warp; entry by entry, each waited for its column's load first, and a 1000-entry
 * row was 250 dependent round trips on one warp (GE-SpMM's coalesced row caching: Huang, Dai, Wang
 * and Yu, SC'20). kUnroll vectors of B are 32 registers at V = 4 floats (or 2 doubles). */
constexpr int kUnroll = 8;
/* Blocks a multiprocessor must hold at once (__launch_bounds__' second argument: at most 128
 * registers a thread). Without it ptxas held spmm_panels<float, 2> and several SDDMM kernels to
 * 64 registers and spilled (ptxas -v, CUDA 13, sm_90); with it none of them spills. The SDDMM
 * with A's row in 16 or more vectors a lane needs more than 128, so it asks for one. */
constexpr int kMinBlocks = 2;
template <int NC> constexpr int kSddmmMinBlocks = NC >= 16 ? 1 : kMinBlocks;

/* Lane's entry e of a batch: its column (0 where !ok) and value (0 where !ok, 1 for a pattern). */
template <typename T, bool PATTERN>
__device__ inline void batch_entry(const uint32_t *__restrict__ rcol, const T *__restrict__ rval,
                                   uint64_t e, bool ok, uint32_t &col, T &val) {
    col = ok ? rcol[e] : 0;
    val = ok ? (PATTERN ? T(1) : rval[e]) : T(0);
}

/* The B rows (this lane's V values at kr) of a batch's entries i0 .. i0 + kUnroll - 1, lane i
 * holding entry i's column; zeros from cnt on (a 0 value times an Inf in B would be a NaN). i0 is
 * a multiple of kUnroll, so i0 + u stays below 32. */
template <typename T, int V>
__device__ inline void batch_rows(const T *__restrict__ B, uint32_t K, uint32_t kr, uint32_t col,
                                  uint32_t i0, uint32_t cnt, vec<T, V> (&bv)[kUnroll]) {
#pragma unroll
    for (int u = 0; u < kUnroll; u++) {
        const uint32_t c = __shfl_sync(kFull, col, i0 + u);
        bv[u] = i0 + u < cnt ? vload<T, V>(B + (uint64_t)c * K + kr) : vzero<T, V>();
    }
}

/* ---- SpMM kernels -------------------------------------------------------------------------------- */

/* acc[j] += x for j == jr (a register array is indexed by constants only). */
template <typename T, int V>
__device__ inline void add_to_row(vec<T, V> (&acc)[kRows], int jr, const vec<T, V> &x) {
#pragma unroll
    for (int j = 0; j < kRows; j++)
        if (j == jr)
#pragma unroll
            for (int i = 0; i < V; i++) acc[j].v[i] += x.v[i];
}

/* One block a (panel, K chunk): see the banner. Row j of warp w is panel * kPanel + j * kWarps + w,
 * so the warps of a block write neighbouring rows of C. A row of more than kLongSpmm entries (the
 * segments') only gets beta C here.
 *
 * Why this is balanced: no row here has more than kLongSpmm entries, and a warp takes its rows'
 * remainders as one stream, 32 entries a batch across row boundaries, so its work is
 * ceil(remainder entries / 32) batches however they fall into rows (8 rows of 8 entries are 2 full
 * batches, not 8 quarter-filled ones), at most kRows * kLongSpmm / 32 = 32 batches. A row's entries
 * of a tile are read 32 at a time the same way. A row stays on one warp (its tile sums are in that
 * warp's registers), so its sum is made in the same order on every run. */
template <typename T, int V, bool PATTERN>
__global__ void __launch_bounds__(kBlock, kMinBlocks)
spmm_panels(uint32_t n, uint32_t K, const uint64_t *__restrict__ off,
            const uint64_t *__restrict__ split, const uint32_t *__restrict__ rcol,
            const T *__restrict__ rval, const uint64_t *__restrict__ dense_first,
            const uint32_t *__restrict__ dcol, const T *__restrict__ B,
            T *__restrict__ C, T alpha, T beta) {
    typedef vec<T, V> VT;
    constexpr uint32_t kCols = kTileBytes / (32 * sizeof(VT));
    __shared__ VT tile[kCols * 32];
    /* per warp and row (uniform, so in shared memory rather than registers, which ptxas spilled):
     * the next tile entry, the tile entries not yet taken, the remainder's first entry less its
     * stream position */
    __shared__ uint64_t cur[kWarps][kRows];
    __shared__ uint32_t left[kWarps][kRows];
    __shared__ uint64_t delta[kWarps][kRows];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const uint32_t k_base = blockIdx.y * 32 * V;
    const uint32_t kk = k_base + lane * V;
    const bool k_in = kk < K;
    const uint32_t kr = k_in ? kk : K - V; /* lanes past K read a valid vector and write nothing */
    const uint64_t row0 = (uint64_t)blockIdx.x * kPanel;
    /* lane j < kRows reads row j's bounds; the warp gets them by shuffles */
    const uint64_t rl = row0 + (uint64_t)(lane % kRows) * kWarps + warp;
    const bool lrow = lane < kRows && rl < n;
    const uint64_t l_begin = lrow ? off[rl] : 0, l_split = lrow ? split[rl] : 0;
    const uint64_t l_end = lrow ? off[rl + 1] : 0;
    if (lane < kRows) {
        cur[warp][lane] = l_begin;
        left[warp][lane] = (uint32_t)(l_split - l_begin);
    }
    __syncwarp();
    VT acc[kRows];
#pragma unroll
    for (int j = 0; j < kRows; j++) acc[j] = vzero<T, V>();
    const uint64_t d0 = dense_first[blockIdx.x], nd = dense_first[blockIdx.x + 1] - d0;
    for (uint64_t t0 = 0; t0 < nd; t0 += kCols) {
        const uint32_t nc = (uint32_t)min((uint64_t)kCols, nd - t0);
        __syncthreads(); /* the previous tile's readers are done */
        for (uint32_t i = threadIdx.x; i < nc * 32; i += kBlock) {
            const uint32_t k = k_base + (i & 31) * V;
            tile[i] = vload<T, V>(B + (uint64_t)dcol[d0 + t0 + (i >> 5)] * K + (k < K ? k : K - V));
        }
        __syncthreads();
        const uint64_t t_end = t0 + kCols;
#pragma unroll
        for (int j = 0; j < kRows; j++) {
            /* a row's tile entries are in slot order: this tile's are a prefix of those left */
            uint64_t e = cur[warp][j];
            uint32_t l = left[warp][j];
            while (l > 0) {
                uint32_t s;
                T v;
                batch_entry<T, PATTERN>(rcol, rval, e + lane, (uint32_t)lane < l, s, v);
                const uint32_t cnt = __popc(__ballot_sync(kFull, (uint32_t)lane < l && s < t_end));
#pragma unroll 8
                for (uint32_t i = 0; i < cnt; i++)
                    vfma(acc[j], __shfl_sync(kFull, v, i),
                         tile[(uint32_t)(__shfl_sync(kFull, s, i) - t0) * 32 + lane]);
                e += cnt;
                l -= cnt;
                if (cnt < 32) break;
            }
            __syncwarp(); /* every lane has read the row's cursor */
            if (lane == 0) {
                cur[warp][j] = e;
                left[warp][j] = l;
            }
            __syncwarp();
        }
    }
    /* the remainders as one stream: an inclusive scan of their lengths over lanes 0 .. kRows - 1 */
    const uint32_t l_rem = lrow && l_end - l_begin <= kLongSpmm ? (uint32_t)(l_end - l_split) : 0;
    uint32_t incl = l_rem;
#pragma unroll
    for (int o = 1; o < kRows; o <<= 1) {
        const uint32_t t = __shfl_up_sync(kFull, incl, o);
        if (lane >= o) incl += t;
    }
    const uint32_t total = __shfl_sync(kFull, incl, kRows - 1), l_start = incl - l_rem;
    if (lane < kRows) delta[warp][lane] = l_split - l_start;
    __syncwarp();
    uint32_t start[kRows];
#pragma unroll
    for (int j = 0; j < kRows; j++) start[j] = __shfl_sync(kFull, l_start, j);
    VT part = vzero<T, V>();
    int jcur = 0;
    for (uint32_t p0 = 0; p0 < total; p0 += 32) {
        const uint32_t p = p0 + lane;
        int jl = 0; /* the row of stream position p: the last one starting at or before it */
#pragma unroll
        for (int j = 1; j < kRows; j++) jl += p >= start[j];
        uint32_t col;
        T val;
        batch_entry<T, PATTERN>(rcol, rval, delta[warp][jl] + p, p < total, col, val);
        const uint32_t cnt = min(32u, total - p0);
        for (uint32_t i0 = 0; i0 < cnt; i0 += kUnroll) {
            VT bv[kUnroll];
            batch_rows<T, V>(B, K, kr, col, i0, cnt, bv);
#pragma unroll
            for (int u = 0; u < kUnroll; u++) {
                const int j = __shfl_sync(kFull, jl, i0 + u);
                const T v = __shfl_sync(kFull, val, i0 + u);
                if (i0 + u < cnt && j != jcur) {
                    add_to_row<T, V>(acc, jcur, part);
                    part = vzero<T, V>();
                    jcur = j;
                }
                vfma(part, v, bv[u]);
            }
        }
    }
    add_to_row<T, V>(acc, jcur, part);
    if (!k_in) return;
#pragma unroll
    for (int j = 0; j < kRows; j++) {
        const uint64_t r = row0 + j * kWarps + warp;
        if (r >= n) continue;
        VT *c = reinterpret_cast<VT *>(C + r * K + kk);
        VT out;
        const VT old = beta != T(0) ? *c : vzero<T, V>();
#pragma unroll
        for (int i = 0; i < V; i++) out.v[i] = beta != T(0) ? alpha * acc[j].v[i] + beta * old.v[i]
                                                            : alpha * acc[j].v[i];
        *c = out;
    }
}

/* The sums over entries e0, e0 + stride, ... of [b, e) in batches of G (lane g of the group loading
 * entry e0 + g's column and value, then the group's B rows loaded, U entries at a time, before any
 * is used) of A's value times B's row: this lane's NV vectors of V values at kr[0 .. NV - 1], into
 * acc. With NV > 1 (8 lanes of 4 vectors), U is 2 entries (8 loads in flight a lane): ptxas (CUDA
 * 13, sm_90) gives float 86 registers and double 96 (2 blocks a multiprocessor); at U 4 float took
 * 64 and lost on 14 of 15 matrices in s41c (the schedule holds fewer loads in flight), double 154
 * (1 block). */
template <typename T, int V, int G, int NV, bool PATTERN>
__device__ inline void row_part(uint64_t e0, uint64_t e, uint64_t stride, int g, unsigned gmask, uint32_t K,
                                const uint32_t (&kr)[NV], const uint32_t *__restrict__ idx,
                                const T *__restrict__ val, const T *__restrict__ B, vec<T, V> (&acc)[NV]) {
    typedef vec<T, V> VT;
    constexpr int U = NV == 1 ? (G < kUnroll ? G : kUnroll) : 2;
    static_assert(U >= 1 && G % U == 0, "whole unrolled steps in a batch");
#pragma unroll
    for (int j = 0; j < NV; j++) acc[j] = vzero<T, V>();
    for (; e0 < e; e0 += stride) {
        uint32_t c = 0;
        T v = T(0);
        if (e0 + g < e) {
            c = __ldg(idx + e0 + g);
            v = PATTERN ? T(1) : __ldg(val + e0 + g);
        }
        const uint32_t cnt = (uint32_t)min((uint64_t)G, e - e0);
#pragma unroll
        for (int u0 = 0; u0 < G; u0 += U) {
            VT bv[U][NV];
#pragma unroll
            for (int u = 0; u < U; u++) {
                const uint32_t cu = __shfl_sync(gmask, c, u0 + u, G);
                const bool ok = (uint32_t)(u0 + u) < cnt;
#pragma unroll
                for (int j = 0; j < NV; j++) bv[u][j] = ok ? vload<T, V>(B + (uint64_t)cu * K + kr[j]) : vzero<T, V>();
            }
#pragma unroll
            for (int u = 0; u < U; u++) {
                const T vu = __shfl_sync(gmask, v, u0 + u, G);
#pragma unroll
                for (int j = 0; j < NV; j++) vfma(acc[j], vu, bv[u][j]);
            }
        }
    }
}

/* C's V values at kk of a row: alpha sum + beta C (C not read where beta is 0). */
template <typename T, int V>
__device__ inline void store_row(T *__restrict__ C, uint64_t row, uint32_t K, uint32_t kk,
                                 const vec<T, V> &acc, T alpha, T beta) {
    typedef vec<T, V> VT;
    VT *c = reinterpret_cast<VT *>(C + row * K + kk);
    VT out;
    const VT old = beta != T(0) ? *c : vzero<T, V>();
#pragma unroll
    for (int i = 0; i < V; i++) out.v[i] = beta != T(0) ? alpha * acc.v[i] + beta * old.v[i] : alpha * acc.v[i];
    *c = out;
}

/* R groups of G lanes a row, each lane NV vectors of V values of K, G apart (a group's lanes read
 * G V consecutive values of each, G V NV of K a block's y): group r takes the row's entries
 * r G .. r G + G - 1, then every R G-th batch on (row_part); the R groups' sums are added by
 * shuffles at the end. R > 1 shortens a row's chain of dependent batches R times and puts R times
 * the lanes to work, for matrices of few rows. A row of more than long_row entries is left to a
 * block of its own: blocks 0 .. nlong - 1 take long_rows' rows (so they start first), kBlock / G
 * groups each, their sums added in shared memory. Without those blocks one group walked a row of
 * thousands alone while the launch waited for it. */
template <typename T, int V, int G, int R, int NV, bool PATTERN>
__global__ void __launch_bounds__(kBlock)
spmm_rows(uint32_t n, uint32_t K, const uint64_t *__restrict__ off, const uint32_t *__restrict__ idx,
          const T *__restrict__ val, const T *__restrict__ B, T *__restrict__ C, T alpha, T beta,
          const uint32_t *__restrict__ long_rows, uint32_t nlong, uint64_t long_row) {
    typedef vec<T, V> VT;
    static_assert(G * R <= 32 && (R & (R - 1)) == 0, "a row's groups within a warp");
    const int lane = threadIdx.x & 31, g = lane & (G - 1);
    const unsigned gmask = G == 32 ? kFull : ((1u << G) - 1) << (lane & ~(G - 1));
    uint32_t kk[NV], kr[NV]; /* this lane's vectors' first values; kr: clamped (read, not written) */
#pragma unroll
    for (int j = 0; j < NV; j++) {
        kk[j] = (blockIdx.y * NV + j) * G * V + g * V;
        kr[j] = kk[j] < K ? kk[j] : K - V;
    }
    VT acc[NV];
    if (blockIdx.x < nlong) {
        __shared__ VT part[NV][kBlock];
        const uint32_t row = long_rows[blockIdx.x];
        const int q = threadIdx.x / G;
        row_part<T, V, G, NV, PATTERN>(off[row] + (uint64_t)q * G, off[row + 1], kBlock, g, gmask, K, kr, idx,
                                       val, B, acc);
#pragma unroll
        for (int j = 0; j < NV; j++) part[j][threadIdx.x] = acc[j];
        __syncthreads();
        if (q != 0) return;
#pragma unroll
        for (int j = 0; j < NV; j++) {
            if (kk[j] >= K) continue;
            VT sum = part[j][g];
            for (int p = 1; p < kBlock / G; p++)
#pragma unroll
                for (int i = 0; i < V; i++) sum.v[i] += part[j][p * G + g].v[i];
            store_row<T, V>(C, row, K, kk[j], sum, alpha, beta);
        }
        return;
    }
    const int r = (lane / G) & (R - 1);
    const unsigned rmask = G * R == 32 ? kFull : ((1u << (G * R)) - 1) << (lane & ~(G * R - 1));
    const uint64_t row = ((uint64_t)(blockIdx.x - nlong) * kBlock + threadIdx.x) / (G * R);
    if (row >= n) return; /* the row's R groups together: their shuffles name only their lanes */
    const uint64_t b = off[row], e = off[row + 1];
    if (e - b > long_row) return;
    row_part<T, V, G, NV, PATTERN>(b + (uint64_t)r * G, e, (uint64_t)G * R, g, gmask, K, kr, idx, val, B, acc);
#pragma unroll
    for (int m = G; m < G * R; m <<= 1)
#pragma unroll
        for (int j = 0; j < NV; j++)
#pragma unroll
            for (int i = 0; i < V; i++) acc[j].v[i] += __shfl_xor_sync(rmask, acc[j].v[i], m);
    if (r != 0) return;
#pragma unroll
    for (int j = 0; j < NV; j++)
        if (kk[j] < K) store_row<T, V>(C, row, K, kk[j], acc[j], alpha, beta);
}

/* A warp per segment of kSeg entries of a long row and K chunk, kWarps segments a block; alpha
 * times the sum is added to C (spmm_panels wrote beta C first, earlier on the stream). Segments are
 * listed by row, so a block's warps on one row are neighbours: the first of them adds their sums
 * from shared memory, one atomic per value for the block's part of the row. */
template <typename T, int V, bool PATTERN>
__global__ void __launch_bounds__(kBlock)
spmm_segments(uint32_t nsegs, uint32_t K, const uint64_t *__restrict__ off,
              const uint32_t *__restrict__ seg_row, const uint64_t *__restrict__ seg_begin,
              const uint32_t *__restrict__ rcol, const T *__restrict__ rval,
              const T *__restrict__ B, T *C, T alpha) {
    typedef vec<T, V> VT;
    __shared__ VT part[kBlock];
    __shared__ uint32_t rows[kWarps];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const uint32_t kk = blockIdx.y * 32 * V + lane * V;
    const uint32_t kr = kk < K ? kk : K - V;
    const uint32_t seg = blockIdx.x * kWarps + warp;
    const bool has = seg < nsegs;
    const uint32_t row = has ? seg_row[seg] : 0xffffffffu;
    VT acc = vzero<T, V>();
    if (has) {
        const uint64_t b = seg_begin[seg], row_end = off[row + 1];
        const uint64_t e_end = b + kSeg < row_end ? b + kSeg : row_end;
        for (uint64_t e0 = b; e0 < e_end; e0 += 32) {
            uint32_t col;
            T val;
            batch_entry<T, PATTERN>(rcol, rval, e0 + lane, e0 + lane < e_end, col, val);
            const uint32_t cnt = (uint32_t)min((uint64_t)32, e_end - e0);
            for (uint32_t i0 = 0; i0 < cnt; i0 += kUnroll) {
                VT bv[kUnroll];
                batch_rows<T, V>(B, K, kr, col, i0, cnt, bv);
#pragma unroll
                for (int u = 0; u < kUnroll; u++) vfma(acc, __shfl_sync(kFull, val, i0 + u), bv[u]);
            }
        }
    }
    part[threadIdx.x] = acc;
    if (lane == 0) rows[warp] = row;
    __syncthreads();
    if (!has || (warp > 0 && rows[warp - 1] == row) || kk >= K) return;
    for (int w = warp + 1; w < kWarps && rows[w] == row; w++)
#pragma unroll
        for (int i = 0; i < V; i++) acc.v[i] += part[w * 32 + lane].v[i];
#pragma unroll
    for (int i = 0; i < V; i++) atomicAdd(C + (uint64_t)row * K + kk + i, alpha * acc.v[i]);
}

/* ---- TF32 windows -------------------------------------------------------------------------------- */

/* x rounded to TF32 (10 bits of mantissa, to nearest, ties away from zero), as mma takes it. */
__device__ inline uint32_t tf32_of(float x) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    uint32_t r;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
    return r;
#else
    return (__float_as_uint(x) + 0x1000u) & ~0x1fffu;
#endif
}

/* d += a b on the tensor cores (m16n8k8, TF32 in, float sums): a this lane's 4 values of the 16 x 8
 * A fragment, b0 and b1 its 2 of the 8 x 8 B fragment. Only devices of compute capability 8.0 on
 * run it (windows_device). */
__device__ inline void mma_tf32(float (&d)[4], const float4 &a, uint32_t b0, uint32_t b1) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
                 "{%8, %9}, {%0, %1, %2, %3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(__float_as_uint(a.x)), "r"(__float_as_uint(a.y)), "r"(__float_as_uint(a.z)),
                   "r"(__float_as_uint(a.w)), "r"(b0), "r"(b1));
#endif
}

/* One block of a window: 4 mma, the j-th taking value j of the lane's two B vectors x and y. */
__device__ inline void window_block(float (&acc)[4][4], const float4 &a, const float4 &x, const float4 &y) {
    mma_tf32(acc[0], a, tf32_of(x.x), tf32_of(y.x));
    mma_tf32(acc[1], a, tf32_of(x.y), tf32_of(y.y));
    mma_tf32(acc[2], a, tf32_of(x.z), tf32_of(y.z));
    mma_tf32(acc[3], a, tf32_of(x.w), tf32_of(y.w));
}

/* C = alpha A B + beta C on the TF32 windows: S warps per (window, 32 columns of K at 32
 * blockIdx.y), K a multiple of 4. A window's block b holds 8 columns wcol[8 b .. 8 b + 7] and A's
 * 16 x 8 values there in the mma's A-fragment order (lane 4 g + t: (g, t), (g + 8, t), (g, t + 4),
 * (g + 8, t + 4)), so a lane reads its 4 as one float4. Lane (g, t) reads B rows wcol[8 b + t] and
 * wcol[8 b + t + 4] at columns 4 g .. 4 g + 3 of the warp's 32, a float4 each; mma j takes their
 * value j as its B fragment, so its column g is the warp's column 4 g + j and its sums (g, 2 t),
 * (g, 2 t + 1) are columns 8 t + j and 8 t + 4 + j, stored as two float4 a row. A warp reads each
 * B row a window needs once, 128 bytes, however many of the window's rows hold the column. Blocks
 * are taken two at a time, their loads issued before either's mma. With S > 1 (windows too few
 * to fill the device, windows_split) warp s of a window takes the s-th S-th of its blocks and the
 * S sums are added in shared memory. */
template <bool BETA, int S>
__global__ void __launch_bounds__(kWindowWarps * 32)
spmm_windows(uint32_t nwin, uint32_t n, uint32_t K, const uint32_t *__restrict__ wblock,
             const uint32_t *__restrict__ wcol, const float4 *__restrict__ wfrag, const float *__restrict__ B,
             float *__restrict__ C, float alpha, float beta) {
    static_assert(kWindowWarps % S == 0, "whole windows a thread block");
    const uint32_t wi = threadIdx.x / 32, lane = threadIdx.x & 31, s = wi % S;
    const uint32_t w = blockIdx.x * (kWindowWarps / S) + wi / S;
    const uint32_t g = lane >> 2, t = lane & 3, kb = blockIdx.y * 32 + 4 * g;
    const bool k_in = kb < K;
    const float4 zero = make_float4(0.f, 0.f, 0.f, 0.f);
    const auto b_at = [&](uint32_t col) { return k_in ? *(const float4 *)(B + (uint64_t)col * K + kb) : zero; };
    float acc[4][4] = {};
    uint32_t b = 0, end = 0;
    if (w < nwin) {
        const uint32_t first = wblock[w], len = wblock[w + 1] - first;
        b = first + (uint32_t)((uint64_t)len * s / S);
        end = first + (uint32_t)((uint64_t)len * (s + 1) / S);
    }
    for (; b + 2 <= end; b += 2) {
        const float4 a0 = wfrag[(uint64_t)b * 32 + lane], a1 = wfrag[(uint64_t)(b + 1) * 32 + lane];
        const float4 x0 = b_at(wcol[(uint64_t)b * 8 + t]), y0 = b_at(wcol[(uint64_t)b * 8 + t + 4]);
        const float4 x1 = b_at(wcol[(uint64_t)b * 8 + 8 + t]), y1 = b_at(wcol[(uint64_t)b * 8 + 12 + t]);
        window_block(acc, a0, x0, y0);
        window_block(acc, a1, x1, y1);
    }
    if (b < end)
        window_block(acc, wfrag[(uint64_t)b * 32 + lane], b_at(wcol[(uint64_t)b * 8 + t]),
                     b_at(wcol[(uint64_t)b * 8 + t + 4]));
    if (S > 1) {
        __shared__ float part[S > 1 ? kWindowWarps : 1][16][32];
#pragma unroll
        for (int i = 0; i < 16; i++) part[wi][i][lane] = acc[i / 4][i % 4];
        __syncthreads();
        if (s != 0) return;
#pragma unroll
        for (int o = 1; o < S; o++)
#pragma unroll
            for (int i = 0; i < 16; i++) acc[i / 4][i % 4] += part[wi + o][i][lane];
    }
    if (w >= nwin) return;
    const uint32_t c0 = blockIdx.y * 32 + 8 * t;
#pragma unroll
    for (int h = 0; h < 2; h++) { /* rows g and g + 8 */
        const uint32_t r = w * kWindow + g + 8 * h;
        if (r >= n) continue;
#pragma unroll
        for (int q = 0; q < 2; q++) { /* columns c0 and c0 + 4 */
            const uint32_t c = c0 + 4 * q;
            if (c >= K) continue;
            float4 *const p = (float4 *)(C + (uint64_t)r * K + c);
            const int i = 2 * h + q;
            float4 v = make_float4(alpha * acc[0][i], alpha * acc[1][i], alpha * acc[2][i], alpha * acc[3][i]);
            if (BETA) {
                const float4 old = *p;
                v.x += beta * old.x;
                v.y += beta * old.y;
                v.z += beta * old.z;
                v.w += beta * old.w;
            }
            *p = v;
        }
    }
}

/* ---- SDDMM kernels ------------------------------------------------------------------------------- */

/* Row i of A (K values) in registers: NC chunks of 32 V, zeros past K. */
template <typename T, int V, int NC>
__device__ inline void load_row(const T *__restrict__ A, uint64_t i, uint32_t K, int lane,
                                vec<T, V> (&a)[NC]) {
#pragma unroll
    for (int ch = 0; ch < NC; ch++) {
        const uint32_t k = ch * 32 * V + lane * V;
        a[ch] = k < K ? vload<T, V>(A + i * K + k) : vzero<T, V>();
    }
}

template <typename T> __device__ inline T warp_sum(T v) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(kFull, v, o);
    return v;
}

/* C at S's CSR position pos of an entry of value s. */
template <typename T>
__device__ inline void sddmm_write(T *C, uint64_t pos, T s, T dot, T alpha, T beta) {
    C[pos] = beta != T(0) ? alpha * s * dot + beta * C[pos] : alpha * s * dot;
}

/* The SDDMM of a row's reordered entries [e_begin, e_end) read straight from B (b: the row's first
 * entry; a: its row of A), 32 a batch as the SpMM's: lane i loads entry i's column, the B rows of
 * kUnroll / NC entries are loaded together (at most kUnroll vectors a lane), their dot products
 * reduced across the warp side by side, lane i keeps entry i's and the batch is written at once.
 * rcol, rperm, rval: the panels' reordered form, or the CSR's own columns and values with rperm
 * NULL (C then written at each entry's own position). */
template <typename T, int V, int NC>
__device__ inline void sddmm_range(const vec<T, V> (&a)[NC], uint64_t e_begin, uint64_t e_end,
                                   uint64_t b, uint32_t K, int lane, const uint32_t *__restrict__ rcol,
                                   const uint32_t *__restrict__ rperm, const T *__restrict__ rval,
                                   const T *__restrict__ B, T *C, T alpha, T beta) {
    typedef vec<T, V> VT;
    constexpr int U = NC >= kUnroll ? 1 : kUnroll / NC;
    for (uint64_t e0 = e_begin; e0 < e_end; e0 += 32) {
        const uint64_t e = e0 + lane;
        const bool ok = e < e_end;
        const uint32_t col = ok ? rcol[e] : 0;
        const uint32_t cnt = (uint32_t)min((uint64_t)32, e_end - e0);
        T mine = T(0);
        for (uint32_t i0 = 0; i0 < cnt; i0 += U) {
            VT bv[U][NC];
#pragma unroll
            for (int u = 0; u < U; u++) {
                const T *bj = B + (uint64_t)__shfl_sync(kFull, col, i0 + u) * K;
#pragma unroll
                for (int ch = 0; ch < NC; ch++) {
                    /* a is 0 past K; so is b (not read there), so an Inf in B adds no NaN */
                    const uint32_t k = ch * 32 * V + lane * V;
                    bv[u][ch] = i0 + u < cnt && k < K ? vload<T, V>(bj + k) : vzero<T, V>();
                }
            }
#pragma unroll
            for (int u = 0; u < U; u++) {
                T dot = T(0);
#pragma unroll
                for (int ch = 0; ch < NC; ch++)
#pragma unroll
                    for (int i = 0; i < V; i++) dot = fma(a[ch].v[i], bv[u][ch].v[i], dot);
                dot = warp_sum(dot);
                if ((uint32_t)lane == i0 + u) mine = dot;
            }
        }
        if (ok) sddmm_write(C, rperm != nullptr ? b + rperm[e] : e, rval ? rval[e] : T(1), mine, alpha, beta);
    }
}

/* One block a panel, a warp per row (rows as in spmm_panels); tiles of tile_cols dense B rows (the
 * whole of K) in dynamic shared memory, laid out [column][chunk][lane]. A row's entries are read 32
 * at a time (tiles and remainder alike); a row of more than kLongSpmm entries is the segments'. */
template <typename T, int V, int NC>
__global__ void __launch_bounds__(kBlock, kSddmmMinBlocks<NC>)
sddmm_panels(uint32_t n, uint32_t K, const uint64_t *__restrict__ off,
             const uint64_t *__restrict__ split, const uint32_t *__restrict__ rcol,
             const uint32_t *__restrict__ rperm, const T *__restrict__ rval,
             const uint64_t *__restrict__ dense_first, const uint32_t *__restrict__ dcol,
             uint32_t tile_cols, const T *__restrict__ A, const T *__restrict__ B, T *C, T alpha,
             T beta) {
    typedef vec<T, V> VT;
    extern __shared__ __align__(16) unsigned char smem[];
    VT *tile = reinterpret_cast<VT *>(smem);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const uint64_t row0 = (uint64_t)blockIdx.x * kPanel;
    VT a[NC];
    uint64_t cur[kRows];
#pragma unroll
    for (int j = 0; j < kRows; j++) {
        const uint64_t r = row0 + j * kWarps + warp;
        cur[j] = r < n ? off[r] : 0;
    }
    const uint64_t d0 = dense_first[blockIdx.x], nd = dense_first[blockIdx.x + 1] - d0;
    for (uint64_t t0 = 0; t0 < nd; t0 += tile_cols) {
        const uint32_t nc = (uint32_t)min((uint64_t)tile_cols, nd - t0);
        __syncthreads();
        for (uint32_t i = threadIdx.x; i < nc * NC * 32; i += kBlock) {
            const uint32_t c = i / (NC * 32), k = (i % (NC * 32)) * V;
            tile[i] = k < K ? vload<T, V>(B + (uint64_t)dcol[d0 + t0 + c] * K + k) : vzero<T, V>();
        }
        __syncthreads();
        const uint64_t t_end = t0 + tile_cols;
#pragma unroll 1
        for (int j = 0; j < kRows; j++) {
            const uint64_t r = row0 + j * kWarps + warp;
            if (r >= n) continue;
            const uint64_t end = split[r];
            uint64_t e = cur[j];
            if (e < end && rcol[e] < t_end) {
                const uint64_t b = off[r];
                load_row<T, V, NC>(A, r, K, lane, a);
                /* the row's tile entries are in slot order: this tile's are a prefix */
                for (;;) {
                    const uint64_t el = e + lane;
                    const uint32_t s = el < end ? rcol[el] : kSparse;
                    const uint32_t cnt = __popc(__ballot_sync(kFull, s < t_end));
                    T mine = T(0);
                    for (uint32_t i = 0; i < cnt; i++) {
                        const VT *bt = tile + (uint32_t)(__shfl_sync(kFull, s, i) - t0) * NC * 32 + lane;
                        T dot = T(0);
#pragma unroll
                        for (int ch = 0; ch < NC; ch++)
#pragma unroll
                            for (int v = 0; v < V; v++) dot = fma(a[ch].v[v], bt[ch * 32].v[v], dot);
                        dot = warp_sum(dot);
                        if ((uint32_t)lane == i) mine = dot;
                    }
                    if ((uint32_t)lane < cnt)
                        sddmm_write(C, b + rperm[el], rval ? rval[el] : T(1), mine, alpha, beta);
                    e += cnt;
                    if (cnt < 32) break;
                }
            }
            cur[j] = e;
        }
    }
#pragma unroll 1
    for (int j = 0; j < kRows; j++) {
        const uint64_t r = row0 + j * kWarps + warp;
        if (r >= n) continue;
        const uint64_t b = off[r], e_end = off[r + 1];
        if (e_end - b > kLongSpmm || split[r] == e_end) continue;
        load_row<T, V, NC>(A, r, K, lane, a);
        sddmm_range<T, V, NC>(a, split[r], e_end, b, K, lane, rcol, rperm, rval, B, C, alpha, beta);
    }
}

/* A warp per segment of a long row, A's row in its registers (loaded once per kSeg entries). The
 * entries' products are independent, so a long row's segments need no combining. */
template <typename T, int V, int NC>
__global__ void __launch_bounds__(kBlock, kSddmmMinBlocks<NC>)
sddmm_segments(uint32_t nsegs, uint32_t K, const uint64_t *__restrict__ off,
               const uint32_t *__restrict__ seg_row, const uint64_t *__restrict__ seg_begin,
               const uint32_t *__restrict__ rcol, const uint32_t *__restrict__ rperm,
               const T *__restrict__ rval, const T *__restrict__ A, const T *__restrict__ B, T *C,
               T alpha, T beta) {
    typedef vec<T, V> VT;
    const int lane = threadIdx.x & 31;
    const uint32_t seg = blockIdx.x * kWarps + (threadIdx.x >> 5);
    if (seg >= nsegs) return; /* the whole warp: nothing below syncs the block */
    const uint32_t row = seg_row[seg];
    const uint64_t b = seg_begin[seg], row_end = off[row + 1];
    const uint64_t e_end = b + kSeg < row_end ? b + kSeg : row_end;
    VT a[NC];
    load_row<T, V, NC>(A, row, K, lane, a);
    sddmm_range<T, V, NC>(a, b, e_end, off[row], K, lane, rcol, rperm, rval, B, C, alpha, beta);
}

/* R groups of G lanes a row of S (rows as spmm_rows', group r taking every R-th batch of G
 * entries), lane g holding V values of A's row in registers (zeros past K), loaded once a group. The row's CSR entries are read G at a time, lane i
 * loading entry i's column and value; the B rows of U (kUnroll) of them are loaded before any is
 * used, so U loads a lane (U G 16-byte loads a group) are in flight together. A batch's G partial
 * dot products are then reduced by halving: at each step a lane keeps half of its sums, adds its
 * partner's half of them and sends the other half, so lane i ends with entry i's dot product after
 * G - 1 shuffles (a butterfly per entry takes G log2 G) and the batch is one coalesced store in
 * CSR order, no rperm. Rows of more than long_row entries are sddmm_segments' (see
 * sddmm_rows_launch). */
template <typename T, int V, int G, int R, bool PATTERN>
__global__ void __launch_bounds__(kBlock)
sddmm_rows(uint32_t n, uint32_t K, uint64_t long_row, const uint64_t *__restrict__ off,
           const uint32_t *__restrict__ idx, const T *__restrict__ val, const T *__restrict__ A,
           const T *__restrict__ B, T *__restrict__ C, T alpha, T beta) {
    typedef vec<T, V> VT;
    constexpr int U = G < kUnroll ? G : kUnroll;
    static_assert(G >= 2 && G <= 32 && (G & (G - 1)) == 0, "a power-of-two group within a warp");
    static_assert(G * R <= 32 && (R & (R - 1)) == 0, "a row's groups within a warp");
    const int lane = threadIdx.x & 31, g = lane & (G - 1), r = (lane / G) & (R - 1);
    const unsigned gmask = G == 32 ? kFull : ((1u << G) - 1) << (lane & ~(G - 1));
    const uint64_t row = ((uint64_t)blockIdx.x * kBlock + threadIdx.x) / (G * R);
    if (row >= n) return; /* the whole group: its shuffles name only its own lanes */
    const uint64_t b = off[row], e = off[row + 1];
    if (e - b > long_row) return;
    const uint32_t kk = g * V;
    const bool k_in = kk < K; /* lanes past K add zeros: a 0 from A times an Inf in B is a NaN */
    const VT a = k_in ? vload<T, V>(A + row * K + kk) : vzero<T, V>();
    for (uint64_t e0 = b + (uint64_t)r * G; e0 < e; e0 += (uint64_t)G * R) {
        const bool ok = e0 + g < e;
        uint32_t c = 0;
        T v = T(0);
        if (ok) {
            c = __ldg(idx + e0 + g);
            v = PATTERN ? T(1) : __ldg(val + e0 + g);
        }
        const uint32_t cnt = (uint32_t)min((uint64_t)G, e - e0);
        T p[G];
#pragma unroll
        for (int u0 = 0; u0 < G; u0 += U) {
            VT bv[U];
#pragma unroll
            for (int u = 0; u < U; u++) {
                const uint32_t cu = __shfl_sync(gmask, c, u0 + u, G);
                bv[u] = (uint32_t)(u0 + u) < cnt && k_in ? vload<T, V>(B + (uint64_t)cu * K + kk)
                                                         : vzero<T, V>();
            }
#pragma unroll
            for (int u = 0; u < U; u++) {
                T dot = T(0);
#pragma unroll
                for (int i = 0; i < V; i++) dot = fma(a.v[i], bv[u].v[i], dot);
                p[u0 + u] = dot;
            }
        }
        /* after the step of m, p[j] is entry j + (g & (G - m))'s sum over the lanes equal to g mod m.
         * j runs to G / 2, not m, so it unrolls whole before m does: with j < m the fp64 G 16
         * kernel was unrolled by 4 and kept p in local memory (ptxas -v, CUDA 13, sm_90). */
#pragma unroll
        for (int m = G / 2; m > 0; m >>= 1) {
            const bool hi = (g & m) != 0;
#pragma unroll
            for (int j = 0; j < G / 2; j++) {
                if (j >= m) break;
                const T keep = hi ? p[j + m] : p[j], send = hi ? p[j] : p[j + m];
                p[j] = keep + __shfl_xor_sync(gmask, send, m, G);
            }
        }
        if (ok) sddmm_write(C, e0 + g, v, p[0], alpha, beta);
    }
}

/* ---- building the form --------------------------------------------------------------------------- */

/* The row holding entry e: the last r with off[r] <= e (off[0] = 0 <= e < off[n] = nnz). */
__device__ inline uint32_t row_of(const uint64_t *off, uint32_t n, uint64_t e) {
    uint32_t lo = 0, hi = n;
    while (hi - lo > 1) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (off[mid] <= e) lo = mid;
        else hi = mid;
    }
    return lo;
}

/* First index in [lo, hi) of sorted keys with keys[i] >= x. */
__device__ inline uint64_t lower_bound(const uint64_t *keys, uint64_t lo, uint64_t hi, uint64_t x) {
    while (lo < hi) {
        const uint64_t mid = lo + (hi - lo) / 2;
        if (keys[mid] < x) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* key[e] = (panel << 32) | column, or (npanels << 32) for an entry of a long row (no panel). */
__global__ void panel_keys(const uint64_t *off, const uint32_t *idx, uint32_t n, uint64_t nnz,
                           uint32_t npanels, uint64_t *key) {
    GRID_STRIDE(e, nnz) {
        const uint32_t r = row_of(off, n, e);
        key[e] = off[r + 1] - off[r] > kLongSpmm ? (uint64_t)npanels << 32
                                                 : ((uint64_t)(r / kPanel) << 32) | idx[e];
    }
}

__global__ void dense_flags(const uint64_t *uniq, const uint32_t *count, uint32_t runs,
                            uint32_t npanels, uint8_t *flag) {
    GRID_STRIDE(i, runs) flag[i] = count[i] >= kDenseMin && (uniq[i] >> 32) < npanels;
}

__global__ void panel_starts(const uint64_t *dense, uint64_t ndense, uint32_t npanels,
                             uint64_t *dense_first, uint32_t *dcol) {
    GRID_STRIDE(p, (uint64_t)npanels + 1) dense_first[p] = lower_bound(dense, 0, ndense, p << 32);
    GRID_STRIDE(i, ndense) dcol[i] = (uint32_t)dense[i];
}

/* Each entry's order key (row << 32 | slot among its panel's dense columns, kSparse if not dense)
 * and its position within its row. */
__global__ void order_keys(const uint64_t *off, const uint32_t *idx, uint32_t n, uint64_t nnz,
                           const uint64_t *dense, const uint64_t *dense_first,
                           uint64_t *key, uint32_t *pos) {
    GRID_STRIDE(e, nnz) {
        const uint32_t r = row_of(off, n, e);
        uint32_t slot = kSparse;
        if (off[r + 1] - off[r] <= kLongSpmm) {
            const uint32_t p = r / kPanel;
            const uint64_t x = ((uint64_t)p << 32) | idx[e];
            const uint64_t lo = dense_first[p], hi = dense_first[p + 1];
            const uint64_t i = lower_bound(dense, lo, hi, x);
            if (i < hi && dense[i] == x) slot = (uint32_t)(i - lo);
        }
        key[e] = ((uint64_t)r << 32) | slot;
        pos[e] = (uint32_t)(e - off[r]);
    }
}

/* rcol from the sorted keys, and the entries in tiles counted (a warp's count, one atomic). */
__global__ void reordered_columns(const uint64_t *off, const uint32_t *idx, uint64_t nnz,
                                  const uint64_t *key, const uint32_t *rperm, uint32_t *rcol,
                                  unsigned long long *dense_entries) {
    GRID_STRIDE(k, nnz) {
        const uint32_t slot = (uint32_t)key[k], r = (uint32_t)(key[k] >> 32);
        rcol[k] = slot != kSparse ? slot : idx[off[r] + rperm[k]];
        const unsigned active = __activemask();
        const unsigned dense = __ballot_sync(active, slot != kSparse);
        if ((threadIdx.x & 31) == (unsigned)(__ffs(active) - 1) && dense != 0)
            atomicAdd(dense_entries, (unsigned long long)__popc(dense));
    }
}

/* split[r]: row r's first entry whose key says it is not in a tile. */
__global__ void row_splits(const uint64_t *off, uint32_t n, const uint64_t *key, uint64_t *split) {
    GRID_STRIDE(r, n) split[r] = lower_bound(key, off[r], off[r + 1], (r << 32) | kSparse);
}

template <typename T>
__global__ void gather_values(const uint64_t *off, uint32_t n, uint64_t nnz, const uint32_t *rperm,
                              const T *val, T *rval) {
    GRID_STRIDE(k, nnz) rval[k] = val[off[row_of(off, n, k)] + rperm[k]];
}

/* Segments of row i (0 for a row the panels take; i == n gives 0 so the exclusive scan's last
 * entry is the total). */
struct segs_of_row {
    const uint64_t *off;
    uint32_t n;
    __host__ __device__ uint32_t operator()(uint32_t i) const {
        if (i >= n) return 0;
        const uint64_t len = off[i + 1] - off[i];
        return len > kLongSpmm ? (uint32_t)((len + kSeg - 1) / kSeg) : 0;
    }
};

__global__ void fill_segments(const uint64_t *off, uint32_t n, const uint32_t *seg_first,
                              uint32_t *seg_row, uint64_t *seg_begin) {
    GRID_STRIDE(i, n) {
        const uint64_t b = off[i], len = off[i + 1] - b;
        if (len <= kLongSpmm) continue;
        const uint32_t c0 = seg_first[i], segs = (uint32_t)((len + kSeg - 1) / kSeg);
        for (uint32_t k = 0; k < segs; k++) {
            seg_row[c0 + k] = (uint32_t)i;
            seg_begin[c0 + k] = b + (uint64_t)k * kSeg;
        }
    }
}

/* Bits that hold every value below `count`. */
int bits_for(uint64_t count) {
    int b = 1;
    while (b < 64 && (1ull << b) < count) b++;
    return b;
}

/* An event pair freed when it goes out of scope. */
struct timer_guard {
    mg__gpu_timer *t = nullptr;
    ~timer_guard() { mg__gpu_timer_free(&t); }
};

mg_status spmm_alloc(mg_context ctx, mg__spmm_form *s, void **p, size_t bytes, const char *what) {
    TRY(dalloc(ctx, p, bytes, what));
    s->bytes += bytes;
    return MG_SUCCESS;
}

void spmm_form_free(mg__spmm_form *s) {
    dfree(s->d_dense_first);
    dfree(s->d_dcol);
    dfree(s->d_rcol);
    dfree(s->d_rperm);
    dfree(s->d_split);
    dfree(s->d_seg_row);
    dfree(s->d_seg_begin);
    dfree(s->d_long_rows);
    dfree(s->d_rval[0]);
    dfree(s->d_rval[1]);
    dfree(s->d_wblock);
    dfree(s->d_wcol);
    dfree(s->d_wfrag);
    memset(s, 0, sizeof *s);
}

/* The dense (panel, column) pairs of f: the entries' panel keys sorted, run-length counted, and
 * those of kDenseMin or more selected. Leaves them (sorted) in *dense, their count in s->ndense, and
 * fills s->d_dense_first and s->d_dcol. */
mg_status dense_columns(mg_context ctx, const mg__spmv_form *f, mg__spmm_form *s, dbuf *dense) {
    const uint64_t nnz = f->nnz;
    dbuf key, sorted, temp, uniq, count, runs, flag, ndense;
    TRY(dbuf_alloc(ctx, &key, nnz * 8, "the SpMM panel keys"));
    TRY(dbuf_alloc(ctx, &sorted, nnz * 8, "the SpMM panel keys"));
    panel_keys<<<blocks_for(nnz), kThreads>>>(f->d_off, f->d_idx, f->n, nnz, s->npanels,
                                              (uint64_t *)key.p);
    LAUNCHED("panel_keys");
    const int end_bit = 32 + bits_for((uint64_t)s->npanels + 1);
    size_t bytes = 0;
    CU(cub::DeviceRadixSort::SortKeys(nullptr, bytes, (const uint64_t *)key.p, (uint64_t *)sorted.p,
                                      (int64_t)nnz, 0, end_bit));
    TRY(dbuf_alloc(ctx, &temp, bytes, "the SpMM panel keys' sort"));
    CU(cub::DeviceRadixSort::SortKeys(temp.p, bytes, (const uint64_t *)key.p, (uint64_t *)sorted.p,
                                      (int64_t)nnz, 0, end_bit));
    /* key now holds the runs' keys */
    TRY(dbuf_alloc(ctx, &count, nnz * 4, "the SpMM column counts"));
    TRY(dbuf_alloc(ctx, &runs, 4, "the SpMM column counts"));
    size_t bytes_rle = 0;
    CU(cub::DeviceRunLengthEncode::Encode(nullptr, bytes_rle, (const uint64_t *)sorted.p,
                                          (uint64_t *)key.p, (uint32_t *)count.p, (uint32_t *)runs.p,
                                          (int64_t)nnz));
    if (bytes_rle > bytes) {
        dfree(temp.p);
        temp.p = nullptr;
        TRY(dbuf_alloc(ctx, &temp, bytes_rle, "the SpMM column counts"));
        bytes = bytes_rle;
    }
    CU(cub::DeviceRunLengthEncode::Encode(temp.p, bytes_rle, (const uint64_t *)sorted.p,
                                          (uint64_t *)key.p, (uint32_t *)count.p, (uint32_t *)runs.p,
                                          (int64_t)nnz));
    uint32_t nruns = 0;
    CU(cudaMemcpy(&nruns, runs.p, 4, cudaMemcpyDeviceToHost));
    TRY(dbuf_alloc(ctx, &flag, nruns, "the SpMM dense columns"));
    TRY(dbuf_alloc(ctx, dense, (size_t)nruns * 8, "the SpMM dense columns"));
    TRY(dbuf_alloc(ctx, &ndense, 8, "the SpMM dense columns"));
    dense_flags<<<blocks_for(nruns), kThreads>>>((const uint64_t *)key.p, (const uint32_t *)count.p, nruns,
                                                 s->npanels,
                                                 (uint8_t *)flag.p);
    LAUNCHED("dense_flags");
    size_t bytes_sel = 0;
    CU(cub::DeviceSelect::Flagged(nullptr, bytes_sel, (const uint64_t *)key.p,
                                  (const uint8_t *)flag.p, (uint64_t *)dense->p,
                                  (unsigned long long *)ndense.p, (int64_t)nruns));
    if (bytes_sel > bytes) {
        dfree(temp.p);
        temp.p = nullptr;
        TRY(dbuf_alloc(ctx, &temp, bytes_sel, "the SpMM dense columns' selection"));
    }
    CU(cub::DeviceSelect::Flagged(temp.p, bytes_sel, (const uint64_t *)key.p,
                                  (const uint8_t *)flag.p, (uint64_t *)dense->p,
                                  (unsigned long long *)ndense.p, (int64_t)nruns));
    unsigned long long nd = 0;
    CU(cudaMemcpy(&nd, ndense.p, 8, cudaMemcpyDeviceToHost));
    s->ndense = nd;
    TRY(spmm_alloc(ctx, s, (void **)&s->d_dense_first, ((size_t)s->npanels + 1) * 8,
                   "the SpMM panels"));
    TRY(spmm_alloc(ctx, s, (void **)&s->d_dcol, (size_t)nd * 4, "the SpMM dense columns"));
    panel_starts<<<blocks_for(nd > s->npanels ? nd : (uint64_t)s->npanels + 1), kThreads>>>(
        (const uint64_t *)dense->p, nd, s->npanels, s->d_dense_first, s->d_dcol);
    LAUNCHED("panel_starts");
    return MG_SUCCESS;
}

/* The segment list of f's long rows, made on the device: a scan of the rows' segment counts and
 * one fill (as the SpMV form's chunk list). */
mg_status form_segments(mg_context ctx, const mg__spmv_form *f, mg__spmm_form *s) {
    const segs_of_row count{f->d_off, f->n};
    const auto segs = thrust::make_transform_iterator(thrust::counting_iterator<uint32_t>(0), count);
    const int64_t items = (int64_t)f->n + 1;
    dbuf seg_first, temp;
    TRY(dbuf_alloc(ctx, &seg_first, (size_t)items * 4, "the SpMM segments"));
    size_t bytes = 0;
    CU(cub::DeviceScan::ExclusiveSum(nullptr, bytes, segs, (uint32_t *)seg_first.p, items));
    TRY(dbuf_alloc(ctx, &temp, bytes, "the SpMM segments' scan"));
    CU(cub::DeviceScan::ExclusiveSum(temp.p, bytes, segs, (uint32_t *)seg_first.p, items));
    CU(cudaMemcpy(&s->nsegs, (uint32_t *)seg_first.p + f->n, 4, cudaMemcpyDeviceToHost));
    if (s->nsegs == 0) return MG_SUCCESS;
    TRY(spmm_alloc(ctx, s, (void **)&s->d_seg_row, (size_t)s->nsegs * 4, "the SpMM segments"));
    TRY(spmm_alloc(ctx, s, (void **)&s->d_seg_begin, (size_t)s->nsegs * 8, "the SpMM segments"));
    fill_segments<<<blocks_for(f->n), kThreads>>>(f->d_off, f->n, (const uint32_t *)seg_first.p,
                                                  s->d_seg_row, s->d_seg_begin);
    LAUNCHED("fill_segments");
    return MG_SUCCESS;
}

/* s's segments of f's long rows, timed by CUDA events into s->seconds. */
mg_status spmm_segments_build(mg_context ctx, const mg__spmv_form *f, mg__spmm_form *s) {
    timer_guard timer;
    double ms = 0;
    s->segmented = true;
    if (f->max_row <= kLongSpmm) return MG_SUCCESS; /* none: no scan, no allocation */
    TRY(mg__gpu_timer_create(ctx, &timer.t));
    TRY(mg__gpu_timer_start(ctx, timer.t));
    TRY(form_segments(ctx, f, s));
    TRY(mg__gpu_timer_stop(ctx, timer.t, &ms));
    s->seconds += ms / 1e3;
    return MG_SUCCESS;
}

/* The rows of more than `limit` entries into rows[0 .. *count - 1], in no set order (*count 0
 * beforehand; such rows are few, so the atomic is seldom contended). */
__global__ void list_long_rows(const uint64_t *off, uint32_t n, uint64_t limit, uint32_t *rows,
                               uint32_t *count) {
    GRID_STRIDE(i, n) {
        if (off[i + 1] - off[i] > limit) rows[atomicAdd(count, 1u)] = (uint32_t)i;
    }
}

/* The rows of more than kLongGroup entries of a small matrix's host offsets off into s's list: a
 * count, then the list made on the host and copied up (kHostScanRows). */
mg_status long_rows_host(mg_context ctx, const mg__spmv_form *f, const uint64_t *off, mg__spmm_form *s) {
    uint32_t nlong = 0;
    for (uint32_t i = 0; i < f->n; i++) nlong += off[i + 1] - off[i] > kLongGroup;
    uint32_t *rows = static_cast<uint32_t *>(mg__malloc((size_t)nlong * 4));
    if (rows == nullptr) return mg__error(ctx, MG_OUT_OF_MEMORY, "the SpMM long rows: out of host memory");
    for (uint32_t i = 0, k = 0; i < f->n; i++)
        if (off[i + 1] - off[i] > kLongGroup) rows[k++] = i;
    mg_status st = spmm_alloc(ctx, s, (void **)&s->d_long_rows, (size_t)nlong * 4, "the SpMM long rows");
    if (st == MG_SUCCESS) {
        const cudaError_t e = cudaMemcpy(s->d_long_rows, rows, (size_t)nlong * 4, cudaMemcpyHostToDevice);
        if (e != cudaSuccess) st = cu_fail(ctx, e, "cudaMemcpy", "the SpMM long rows");
    }
    mg__free(rows);
    if (st == MG_SUCCESS) s->nlong = nlong;
    return st;
}

/* s's list of f's rows of more than kLongGroup entries (the row groups' blocks), timed by CUDA
 * events into s->seconds: from the host offsets off up to kHostScanRows rows, else on the device,
 * one launch and a round trip for the count (the list's last slot). */
mg_status long_rows_build(mg_context ctx, const mg__spmv_form *f, const uint64_t *off, mg__spmm_form *s) {
    timer_guard timer;
    double ms = 0;
    s->long_listed = true;
    if (f->max_row <= kLongGroup) return MG_SUCCESS; /* none: no launch, no allocation */
    TRY(mg__gpu_timer_create(ctx, &timer.t));
    TRY(mg__gpu_timer_start(ctx, timer.t));
    if (f->n <= kHostScanRows) {
        TRY(long_rows_host(ctx, f, off, s));
        TRY(mg__gpu_timer_stop(ctx, timer.t, &ms));
        s->seconds += ms / 1e3;
        return MG_SUCCESS;
    }
    const uint64_t most = f->nnz / (kLongGroup + 1); /* rows that can be longer */
    TRY(spmm_alloc(ctx, s, (void **)&s->d_long_rows, (size_t)(most + 1) * 4, "the SpMM long rows"));
    uint32_t *const count = s->d_long_rows + most;
    CU(cudaMemsetAsync(count, 0, 4));
    list_long_rows<<<blocks_for(f->n), kThreads>>>(f->d_off, f->n, kLongGroup, s->d_long_rows, count);
    LAUNCHED("list_long_rows");
    CU(cudaMemcpy(&s->nlong, count, 4, cudaMemcpyDeviceToHost));
    TRY(mg__gpu_timer_stop(ctx, timer.t, &ms));
    s->seconds += ms / 1e3;
    return MG_SUCCESS;
}

/* s's panels and tiles from f on the device (see the banner), timed by CUDA events into s->seconds. */
mg_status spmm_tiles_build(mg_context ctx, const mg__spmv_form *f, mg__spmm_form *s) {
    timer_guard timer;
    double ms = 0;
    const uint64_t nnz = f->nnz;
    const uint32_t n = f->n;
    s->npanels = (uint32_t)(((uint64_t)n + kPanel - 1) / kPanel);
    TRY(mg__gpu_timer_create(ctx, &timer.t));
    TRY(mg__gpu_timer_start(ctx, timer.t));
    TRY(spmm_alloc(ctx, s, (void **)&s->d_rcol, nnz * 4, "the SpMM reordered columns"));
    TRY(spmm_alloc(ctx, s, (void **)&s->d_rperm, nnz * 4, "the SpMM entry order"));
    TRY(spmm_alloc(ctx, s, (void **)&s->d_split, (size_t)n * 8, "the SpMM row splits"));
    if (nnz == 0) {
        TRY(spmm_alloc(ctx, s, (void **)&s->d_dense_first, ((size_t)s->npanels + 1) * 8,
                       "the SpMM panels"));
        CU(cudaMemset(s->d_dense_first, 0, ((size_t)s->npanels + 1) * 8));
        if (n > 0) CU(cudaMemcpy(s->d_split, f->d_off, (size_t)n * 8, cudaMemcpyDeviceToDevice));
    } else {
        dbuf dense, key, sorted, pos, temp, counter;
        TRY(dense_columns(ctx, f, s, &dense));
        TRY(dbuf_alloc(ctx, &key, nnz * 8, "the SpMM order keys"));
        TRY(dbuf_alloc(ctx, &sorted, nnz * 8, "the SpMM order keys"));
        TRY(dbuf_alloc(ctx, &pos, nnz * 4, "the SpMM order keys"));
        TRY(dbuf_alloc(ctx, &counter, 8, "the SpMM tile count"));
        order_keys<<<blocks_for(nnz), kThreads>>>(f->d_off, f->d_idx, n, nnz,
                                                  (const uint64_t *)dense.p, s->d_dense_first,
                                                  (uint64_t *)key.p, (uint32_t *)pos.p);
        LAUNCHED("order_keys");
        /* stable: a row's entries outside the tiles keep their CSR order (B's rows are then read
         * in column order; a long row stays as it is) */
        const int end_bit = 32 + bits_for(n);
        size_t bytes = 0;
        CU(cub::DeviceRadixSort::SortPairs(nullptr, bytes, (const uint64_t *)key.p,
                                           (uint64_t *)sorted.p, (const uint32_t *)pos.p,
                                           s->d_rperm, (int64_t)nnz, 0, end_bit));
        TRY(dbuf_alloc(ctx, &temp, bytes, "the SpMM entry order's sort"));
        CU(cub::DeviceRadixSort::SortPairs(temp.p, bytes, (const uint64_t *)key.p,
                                           (uint64_t *)sorted.p, (const uint32_t *)pos.p,
                                           s->d_rperm, (int64_t)nnz, 0, end_bit));
        CU(cudaMemset(counter.p, 0, 8));
        reordered_columns<<<blocks_for(nnz), kThreads>>>(f->d_off, f->d_idx, nnz,
                                                         (const uint64_t *)sorted.p, s->d_rperm,
                                                         s->d_rcol, (unsigned long long *)counter.p);
        LAUNCHED("reordered_columns");
        row_splits<<<blocks_for(n), kThreads>>>(f->d_off, n, (const uint64_t *)sorted.p, s->d_split);
        LAUNCHED("row_splits");
        unsigned long long de = 0;
        CU(cudaMemcpy(&de, counter.p, 8, cudaMemcpyDeviceToHost));
        s->dense_entries = de;
    }
    TRY(mg__gpu_timer_stop(ctx, timer.t, &ms));
    s->seconds += ms / 1e3;
    return MG_SUCCESS;
}

/* A's SpMM form for op(A), with the device CSR / CSC it indexes: the panels and tiles where
 * tiles(f) says the call needs them, the segments with them or where a row is over kLongRow (the
 * row groups' limit for whole rows); each part built on first use, and a failure frees the whole
 * form, to be built again by the next call. */
template <typename Tiles>
mg_status spmm_form_of(mg_context ctx, const mg_matrix A, bool transpose, bool sddmm, Tiles tiles,
                       mg__gpu_matrix **g, mg__spmv_form **f, mg__spmm_form **s) {
    TRY(mg__gpu_matrix_of(ctx, A, transpose, g, f));
    if ((*g)->spmm == nullptr) {
        (*g)->spmm = static_cast<mg__spmm_forms *>(mg__calloc(1, sizeof(mg__spmm_forms)));
        if ((*g)->spmm == nullptr)
            return mg__error(ctx, MG_OUT_OF_MEMORY, "the SpMM form: out of host memory");
    }
    *s = &(*g)->spmm->of[transpose ? 1 : 0];
    mg_status st = MG_SUCCESS;
    const bool panels = tiles(*f);
    if (!(*s)->segmented && (panels || (sddmm && (*f)->max_row > kLongRow))) st = spmm_segments_build(ctx, *f, *s);
    if (st == MG_SUCCESS && !(*s)->long_listed && !panels && !sddmm) {
        const uint64_t *off;
        const uint32_t *idx;
        st = mg__gpu_host_orientation(ctx, A, transpose, &off, &idx);
        if (st == MG_SUCCESS) st = long_rows_build(ctx, *f, off, *s);
    }
    if (st == MG_SUCCESS && (*s)->d_dense_first == nullptr && panels) st = spmm_tiles_build(ctx, *f, *s);
    if (st != MG_SUCCESS) spmm_form_free(*s);
    return st;
}

/* s's values reordered, in type t (gathered on first use); NULL for a pattern. */
mg_status spmm_form_values(mg_context ctx, const mg__gpu_matrix *g, mg__spmv_form *f,
                           mg__spmm_form *s, mg_type t, const void **values) {
    *values = nullptr;
    if (g->values == MG_VALUES_NONE) return MG_SUCCESS;
    const int k = t == MG_DOUBLE;
    if (s->d_rval[k] == nullptr) {
        const void *val = nullptr;
        timer_guard timer;
        double ms = 0;
        TRY(mg__gpu_form_values(ctx, g, f, t, &val));
        TRY(mg__gpu_timer_create(ctx, &timer.t));
        TRY(mg__gpu_timer_start(ctx, timer.t));
        TRY(spmm_alloc(ctx, s, &s->d_rval[k], (size_t)f->nnz * (k ? 8 : 4), "the SpMM values"));
        if (f->nnz > 0) {
            if (k)
                gather_values<double><<<blocks_for(f->nnz), kThreads>>>(
                    f->d_off, f->n, f->nnz, s->d_rperm, (const double *)val, (double *)s->d_rval[1]);
            else
                gather_values<float><<<blocks_for(f->nnz), kThreads>>>(
                    f->d_off, f->n, f->nnz, s->d_rperm, (const float *)val, (float *)s->d_rval[0]);
            LAUNCHED("gather_values");
        }
        TRY(mg__gpu_timer_stop(ctx, timer.t, &ms));
        s->seconds += ms / 1e3;
    }
    *values = s->d_rval[k];
    return MG_SUCCESS;
}

/* ---- building the TF32 windows ------------------------------------------------------------------- */

/* Half a warp a window, lane i of the half its row i (rows sorted, distinct columns): the rows'
 * columns walked as one merge, each step's least head among the 16 being the window's next
 * distinct column, taken by the rows that hold it. A lane keeps its row's next 8 columns (and
 * values) in registers, loaded 4 together a chunk ahead of their use, so a step seldom waits on
 * memory. FILL false: the window's blocks of 8 (distinct columns / 8, rounded up) into count[w];
 * FILL true: the columns into wcol from 8 wblock[w] on (the last repeated to the block's end) and
 * A's values (val in float; NULL: 1), rounded to TF32, into the fragment slots (wfrag zeroed). */
template <bool FILL>
__global__ void window_merge(const uint64_t *__restrict__ off, const uint32_t *__restrict__ idx,
                             const float *__restrict__ val, uint32_t n, uint32_t nwin, uint32_t *count,
                             const uint32_t *__restrict__ wblock, uint32_t *wcol, float *wfrag) {
    const uint32_t w = (blockIdx.x * blockDim.x + threadIdx.x) / kWindow, lr = threadIdx.x % kWindow;
    const unsigned half = 0xffffu << (threadIdx.x & 16);
    const uint32_t r = w * kWindow + lr;
    uint64_t p = 0, e = 0;
    if (w < nwin && r < n) {
        p = off[r];
        e = off[r + 1];
    }
    uint32_t c[4], nc[4]; /* this chunk of 4 of the row, and the next, loaded a chunk ahead */
    float v[4], nv[4];
    int used = 0;
    const auto load = [&](uint64_t at, uint32_t (&cols)[4], float (&vals)[4]) {
#pragma unroll
        for (int i = 0; i < 4; i++) {
            cols[i] = at + i < e ? idx[at + i] : UINT32_MAX;
            if (FILL) vals[i] = at + i >= e ? 0.f : val != nullptr ? val[at + i] : 1.f;
        }
    };
    load(p, c, v);
    load(p + 4, nc, nv);
    const uint64_t base = FILL && w < nwin ? (uint64_t)wblock[w] * 8 : 0;
    uint32_t steps = 0, last = 0;
    for (;;) {
        uint32_t m = c[0];
#pragma unroll
        for (int d = 8; d >= 1; d >>= 1) m = min(m, __shfl_xor_sync(half, m, d, 16));
        if (m == UINT32_MAX) break; /* the same in all 16 lanes */
        if (c[0] == m) {
            if (FILL) {
                const uint32_t cc = steps % 8, lane = (lr % 8) * 4 + cc % 4, slot = (lr >= 8) + 2 * (cc >= 4);
                wfrag[(base + steps - cc) * 16 + lane * 4 + slot] = __uint_as_float(tf32_of(v[0]));
            }
            p++;
            c[0] = c[1], c[1] = c[2], c[2] = c[3], c[3] = UINT32_MAX;
            if (FILL) v[0] = v[1], v[1] = v[2], v[2] = v[3];
            if (++used == 4) {
#pragma unroll
                for (int i = 0; i < 4; i++) c[i] = nc[i], v[i] = nv[i];
                load(p + 4, nc, nv);
                used = 0;
            }
        }
        if (FILL && lr == 0) wcol[base + steps] = m;
        last = m;
        steps++;
    }
    if (w >= nwin || lr != 0) return;
    if (!FILL) count[w] = (steps + 7) / 8;
    else
        for (uint32_t q = steps; q % 8 != 0; q++) wcol[base + q] = last;
}

/* s's TF32 windows of f (values val in float; NULL for a pattern) on the device, timed by CUDA
 * events into s->seconds: a merge pass counting each window's blocks, their scan, and where a
 * distinct column serves kWindowsReuse entries or more a second pass filling the columns and
 * values; else only the count is kept (d_wfrag NULL: the windows do not pay). */
mg_status spmm_windows_build(mg_context ctx, const mg__spmv_form *f, const float *val, mg__spmm_form *s) {
    timer_guard timer;
    double ms = 0;
    const uint32_t n = f->n;
    s->windowed = true;
    s->nwin = (uint32_t)(((uint64_t)n + kWindow - 1) / kWindow);
    TRY(mg__gpu_timer_create(ctx, &timer.t));
    TRY(mg__gpu_timer_start(ctx, timer.t));
    TRY(spmm_alloc(ctx, s, (void **)&s->d_wblock, ((size_t)s->nwin + 1) * 4, "the SpMM TF32 windows"));
    dbuf count, temp;
    TRY(dbuf_alloc(ctx, &count, ((size_t)s->nwin + 1) * 4, "the SpMM TF32 windows' blocks"));
    const unsigned grid = (unsigned)(((uint64_t)s->nwin * kWindow + kThreads - 1) / kThreads);
    CU(cudaMemsetAsync((uint32_t *)count.p + s->nwin, 0, 4));
    window_merge<false><<<grid, kThreads>>>(f->d_off, f->d_idx, nullptr, n, s->nwin, (uint32_t *)count.p,
                                            nullptr, nullptr, nullptr);
    LAUNCHED("window_merge");
    size_t bytes = 0;
    CU(cub::DeviceScan::ExclusiveSum(nullptr, bytes, (const uint32_t *)count.p, s->d_wblock, (int64_t)s->nwin + 1));
    TRY(dbuf_alloc(ctx, &temp, bytes, "the SpMM TF32 windows' scan"));
    CU(cub::DeviceScan::ExclusiveSum(temp.p, bytes, (const uint32_t *)count.p, s->d_wblock, (int64_t)s->nwin + 1));
    CU(cudaMemcpy(&s->nwblocks, s->d_wblock + s->nwin, 4, cudaMemcpyDeviceToHost));
    if (s->nwblocks > 0 && (double)f->nnz >= kWindowsReuse * 8 * s->nwblocks) {
        TRY(spmm_alloc(ctx, s, (void **)&s->d_wcol, (size_t)s->nwblocks * 8 * 4, "the SpMM TF32 windows' columns"));
        TRY(spmm_alloc(ctx, s, (void **)&s->d_wfrag, (size_t)s->nwblocks * 128 * 4, "the SpMM TF32 windows' values"));
        CU(cudaMemsetAsync(s->d_wfrag, 0, (size_t)s->nwblocks * 128 * 4));
        window_merge<true><<<grid, kThreads>>>(f->d_off, f->d_idx, val, n, s->nwin, nullptr, s->d_wblock,
                                               s->d_wcol, s->d_wfrag);
        LAUNCHED("window_merge");
    }
    TRY(mg__gpu_timer_stop(ctx, timer.t, &ms));
    s->seconds += ms / 1e3;
    return MG_SUCCESS;
}

/* ---- launches ------------------------------------------------------------------------------------ */

template <typename T, int V, bool PATTERN>
mg_status spmm_launch_v(mg_context ctx, const mg__spmv_form *f, const mg__spmm_form *s,
                        const T *rval, uint32_t K, const T *B, T *C, T alpha, T beta) {
    const dim3 grid(s->npanels, (K + 32 * V - 1) / (32 * V));
    spmm_panels<T, V, PATTERN><<<grid, kBlock>>>(f->n, K, f->d_off, s->d_split, s->d_rcol, rval,
                                                 s->d_dense_first, s->d_dcol, B, C, alpha, beta);
    LAUNCHED("spmm_panels");
    if (s->nsegs == 0) return MG_SUCCESS;
    spmm_segments<T, V, PATTERN><<<dim3((s->nsegs + kWarps - 1) / kWarps, grid.y), kBlock>>>(
        s->nsegs, K, f->d_off, s->d_seg_row, s->d_seg_begin, s->d_rcol, rval, B, C, alpha);
    LAUNCHED("spmm_segments");
    return MG_SUCCESS;
}

template <typename T, int V>
mg_status spmm_launch_p(mg_context ctx, const mg__spmv_form *f, const mg__spmm_form *s,
                        const T *rval, uint32_t K, const T *B, T *C, T alpha, T beta) {
    if (rval == nullptr) return spmm_launch_v<T, V, true>(ctx, f, s, rval, K, B, C, alpha, beta);
    return spmm_launch_v<T, V, false>(ctx, f, s, rval, K, B, C, alpha, beta);
}

/* V (values a lane) from K: vectors only where K is a multiple of them and they fill the lanes. */
int lane_width(uint32_t K, size_t type_size) {
    if (type_size == 4 && K % 4 == 0 && K >= 128) return 4;
    if (K % 2 == 0 && K >= 64) return 2;
    return 1;
}

template <typename T, int V, int G, int R, int NV, bool PATTERN>
mg_status spmm_rows_launch(mg_context ctx, const mg__spmv_form *f, const mg__spmm_form *s, const T *val,
                           uint32_t K, const T *B, T *C, T alpha, T beta) {
    const dim3 grid((unsigned)(s->nlong + ((uint64_t)f->n * G * R + kBlock - 1) / kBlock),
                    (K + G * V * NV - 1) / (G * V * NV));
    spmm_rows<T, V, G, R, NV, PATTERN><<<grid, kBlock>>>(f->n, K, f->d_off, f->d_idx, val, B, C, alpha, beta,
                                                     s->d_long_rows, s->nlong,
                                                     s->nlong ? kLongGroup : UINT64_MAX);
    LAUNCHED("spmm_rows");
    return MG_SUCCESS;
}

/* The row groups' lanes a row (8 or 16: K / V rounded up) where they are taken, else 0: K of 8 to
 * 16 vectors of 16 bytes (the SpMM to K kRowsSplitMaxK, split), rows of at most kRowsMean entries
 * on average, and for the SpMM none longer than kBlockRowMax (f->max_row, found with the upload,
 * so neither operation builds the SpMV layout). History, all
 * on the H200: at K 32 spmm_rows took 0.33-0.96x the panels' time on 16 of 21 matrices (session
 * 36; the stencils 0.38-0.40x, wave 0.33x, dblp-2010 0.48x) and sddmm_rows 0.34-0.62x (session
 * 37). Session 38 (s38b, K 32, R groups a row as rows_groups) gave the rest to the groups where
 * they won: the SpMM on bcsstk33 and mbeacxc (means 68 and 100, rows under 500) 0.0387 -> 0.0342
 * and 0.0290 -> 0.0252 ms in float, ties in double; not on rows of thousands (rajat01,
 * adder_dcop_05, R-MAT 15: 3-38% slower, one group holds up the launch), which keep the panels.
 * The SDDMM won there too (rajat01 0.0314 -> 0.0258, adder_dcop_05 0.0303 -> 0.0227, R-MAT 15
 * 0.0736 -> 0.0654 ms in float, 11-26% in double), so it takes every mean row up to 128. The
 * SpMM's groups take every row whole: until session 39 rows over kLongSpmm went to segments (a
 * second launch, atomics into C), and dropping that (s39b, K 32, float) took bcsstk33 (rows to 141)
 * 0.0346 -> 0.0222 ms, mbeacxc (to 484) 0.0267 -> 0.0182, dblp-2010 0.1153 -> 0.0909 and
 * coAuthorsDBLP 0.1159 -> 0.0897; in double 0.0491 -> 0.0267 (bcsstk33); at K 128 bcsstk33
 * 0.0555 -> 0.0408; no matrix slower. Session 40 gave rows over kLongGroup a block each, and the
 * matrices with rows over kLongRow (1024) left the panels for the groups (see kLongGroup). */
constexpr uint64_t kRowsMean = 128;

/* Beyond 16 vectors the SpMM's groups split K over blockIdx.y (the SDDMM needs the whole row of A
 * in one group, so it cannot). A/B at K 128 on the H200 (session 37, MG_SPMM_ROWS_SPLIT):
 * cuSPARSE's geometric mean 0.75x -> 0.89x in float (4 chunks of 8 V), 0.67x -> 0.77x in double
 * (8 chunks); 16 lanes a row gave 0.85x / 0.76x. K over 128 keeps the panels. Session 41 (s41a)
 * tried the chunks fastest in the grid (a B row's pieces read at about the same time: 0.97x ->
 * 1.00x, within the spread) and a warp of 32 lanes a row, one chunk (0.97x -> 0.90x; dblp-2010
 * 0.66x -> 0.53x). Since session 42 a lane holds kSplitVectors vectors, G V apart, on matrices
 * of kSplitVectorsRows rows or more, so a group reads a whole 128-float row of B an entry (4
 * independent loads a lane). A/B s42a (H200, K 128, 15 real matrices, float / double): 1.06x ->
 * 1.09x / 1.02x -> 1.09x; dblp-2010 0.68x -> 0.85x / 0.66x -> 0.91x, coAuthorsDBLP 0.78x ->
 * 0.85x / 0.75x -> 0.92x, wave 1.08x -> 1.21x / 1.02x -> 1.29x. */
constexpr uint32_t kRowsSplitMaxK = 128;
constexpr uint32_t kSplitVectors = 4;
template <typename T> uint32_t rows_lanes(const mg__spmv_form *f, uint32_t K, bool sddmm) {
    constexpr uint32_t V = 16 / sizeof(T);
    if (K % V != 0 || K / V < 8 || f->nnz > kRowsMean * f->n) return 0;
    if (!sddmm && f->max_row > kBlockRowMax) return 0;
    if (K / V <= 16) return K / V <= 8 ? 8 : 16;
    return !sddmm && K <= kRowsSplitMaxK ? 8 : 0; /* only the SpMM splits K */
}
uint32_t rows_lanes_of(const mg__spmv_form *f, mg_type t, uint32_t K, bool sddmm) {
    return t == MG_DOUBLE ? rows_lanes<double>(f, K, sddmm) : rows_lanes<float>(f, K, sddmm);
}

/* Vectors of V a lane in the SpMM's row groups (kSplitVectors where K is split on a matrix of at
 * least kSplitVectorsRows rows, else 1), and K's chunks over blockIdx.y for G lanes a group. In
 * s41c (double) the 4 vectors won from 8738 rows (bcsstk33) up and lost below 7135 (bips98_606
 * even, rajat01 and the smaller ones slower). */
constexpr uint32_t kSplitVectorsRows = 8192;
uint32_t rows_vectors(const mg__spmv_form *f, uint32_t K, uint32_t V) {
    return K / V > 16 && f->n >= kSplitVectorsRows ? kSplitVectors : 1;
}
uint32_t rows_chunks(const mg__spmv_form *f, uint32_t K, uint32_t G, uint32_t V) {
    const uint32_t span = G * V * rows_vectors(f, K, V);
    return (K + span - 1) / span;
}

/* The groups of G lanes a row (1, 2 or 4, at most a warp), from the lanes a launch of one group a
 * row would have (n G for each of the SpMM's K chunks): R = 4 to 16384, 2 to 65536, else 1, so a
 * small matrix's rows are walked in a quarter or a half of the dependent batches while a large one
 * keeps a group a row (its lanes busy already; more groups there would idle on short rows). At K
 * 32 on the H200 (session 38, s38b, every matrix at R 1, 2 and 4), against R 1: mahindas 0.63x,
 * mbeacxc 0.77x, fidapex6 0.71-0.80x, 2dcyl1 0.80x, zenios 0.74-0.77x, bcsstk16 0.85x (n G 10k-39k);
 * flat on bcsstk33 and blockdiag (70k-140k); 1.3-2.9x slower on the 150k-330k-row matrices. */
uint32_t rows_groups(const mg__spmv_form *f, uint32_t G, uint32_t chunks) {
    const uint64_t lanes = (uint64_t)f->n * G * chunks;
    const uint32_t R = lanes <= 16384 ? 4 : lanes <= 65536 ? 2 : 1;
    return R > 32 / G ? 32 / G : R;
}

template <typename T, int W>
using rows_kernel = mg_status (*)(mg_context, const mg__spmv_form *, const mg__spmm_form *, const T *,
                                  uint32_t, const T *, T *, T, T);
template <typename T, int W>
using sddmm_kernel = mg_status (*)(mg_context, const mg__spmv_form *, const mg__spmm_form *, const T *,
                                   uint32_t, const T *, const T *, T *, T, T);

/* The row-group launch of G lanes (8 or 16), R groups a row (1, 2 or 4, G R <= 32) and NV vectors
 * a lane (1, or kSplitVectors with 8 lanes). */
template <typename T, int W>
rows_kernel<T, W> spmm_rows_pick(uint32_t G, uint32_t R, uint32_t NV, bool pattern) {
    constexpr int S = kSplitVectors;
    if (NV == S) {
        if (R >= 4) return pattern ? spmm_rows_launch<T, W, 8, 4, S, true> : spmm_rows_launch<T, W, 8, 4, S, false>;
        if (R == 2) return pattern ? spmm_rows_launch<T, W, 8, 2, S, true> : spmm_rows_launch<T, W, 8, 2, S, false>;
        return pattern ? spmm_rows_launch<T, W, 8, 1, S, true> : spmm_rows_launch<T, W, 8, 1, S, false>;
    }
    if (G == 16) {
        if (R >= 2) return pattern ? spmm_rows_launch<T, W, 16, 2, 1, true> : spmm_rows_launch<T, W, 16, 2, 1, false>;
        return pattern ? spmm_rows_launch<T, W, 16, 1, 1, true> : spmm_rows_launch<T, W, 16, 1, 1, false>;
    }
    if (R >= 4) return pattern ? spmm_rows_launch<T, W, 8, 4, 1, true> : spmm_rows_launch<T, W, 8, 4, 1, false>;
    if (R == 2) return pattern ? spmm_rows_launch<T, W, 8, 2, 1, true> : spmm_rows_launch<T, W, 8, 2, 1, false>;
    return pattern ? spmm_rows_launch<T, W, 8, 1, 1, true> : spmm_rows_launch<T, W, 8, 1, 1, false>;
}

template <typename T>
mg_status spmm_launch(mg_context ctx, const mg__spmv_form *f, const mg__spmm_form *s, const T *val,
                      const T *rval, uint32_t K, const T *B, T *C, T alpha, T beta) {
    if (f->n == 0) return MG_SUCCESS;
    constexpr int W = 16 / sizeof(T);
    const bool pattern = val == nullptr;
    const uint32_t lanes = rows_lanes<T>(f, K, false);
    if (lanes != 0) {
        const rows_kernel<T, W> launch = spmm_rows_pick<T, W>(lanes, rows_groups(f, lanes, rows_chunks(f, K, lanes, W)),
                                                              rows_vectors(f, K, W), pattern);
        return launch(ctx, f, s, val, K, B, C, alpha, beta);
    }
    const int V = lane_width(K, sizeof(T));
    if (((uint64_t)K + 32 * V - 1) / (32 * V) > 65535)
        return mg__error(ctx, MG_INVALID_ARGUMENT, "mg_spmm: K = %u is above the GPU engine's %u",
                         K, 65535u * 32u);
    if constexpr (sizeof(T) == 4)
        if (V == 4) return spmm_launch_p<T, 4>(ctx, f, s, rval, K, B, C, alpha, beta);
    if (V == 2) return spmm_launch_p<T, 2>(ctx, f, s, rval, K, B, C, alpha, beta);
    return spmm_launch_p<T, 1>(ctx, f, s, rval, K, B, C, alpha, beta);
}

/* Whether this device runs the TF32 windows: compute capability 8.0 or more, and spmm_windows
 * compiled for it with the mma (a PTX of 8.0 or more; a build for older devices has none). Asked
 * once a device (every call of a product asks). */
bool windows_device() {
    static std::atomic<int> known[64]; /* 0 not asked, 1 runs them, 2 does not */
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= 64) {
        (void)cudaGetLastError();
        return false;
    }
    if (known[dev].load() == 0) {
        int major = 0;
        cudaFuncAttributes fa;
        bool ok = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) == cudaSuccess &&
                  cudaFuncGetAttributes(&fa, spmm_windows<false, 1>) == cudaSuccess && major >= 8 &&
                  fa.ptxVersion >= 80;
        (void)cudaGetLastError();
        known[dev].store(ok ? 1 : 2);
    }
    return known[dev].load() == 1;
}

/* The TF32 windows' rule, before they are built: float with opts->tf32, K a multiple of 4 (whole
 * float4 loads), a device that runs them, at least kWindowsMinRows rows and no row over
 * kWindowsMaxRow (a window's blocks are one warp's chain). In s42b (H200, a first kernel of one
 * warp a window, K 32 and 128, against cuSPARSE's best) the matrices of 500-3000 rows (31-180
 * windows, too few warps) ran 0.8-0.95x where the row groups reach 1.0-1.9x, and rows of thousands
 * (rajat01, adder_dcop_05: one warp walks the long row's window) 0.24-0.42x. Then the windows are
 * counted (spmm_windows_build) and taken where a distinct column of a window serves
 * kWindowsReuse entries or more: each B row is then read a quarter as often as by the row
 * kernels. s42b, windows against the row groups (x cuSPARSE's best, K 32 / 128): bcsstk16 (6.5
 * entries a column) 1.05 / 1.65 against 1.01 / 0.83; bcsstk33 (5.8) 1.18 / 1.95 against 0.98 /
 * 0.94; Dubcova1 (1.9) 0.60 / 1.02 against 1.00 / 1.34. Below 4 the windows won only where B is
 * far over the L2 (dblp-2010, 2.0, K 128: 1.14 against 0.85) and lost on others of that size in
 * s42c (uniform 62500, 1.0, K 128: 0.78; wave, 1.8: 1.03 against 1.21). */
constexpr uint32_t kWindowsMinRows = 4096;
constexpr uint64_t kWindowsMaxRow = 256;
bool windows_eligible(const mg__spmv_form *f, uint32_t K) {
    return K >= 4 && K % 4 == 0 && (K + 31) / 32 <= 65535 && f->n >= kWindowsMinRows &&
           f->max_row <= kWindowsMaxRow && windows_device();
}

/* Warps a window (1, 2 or 4): enough for about 16 warps a multiprocessor where the windows and
 * K's chunks of 32 are fewer (bcsstk33 at K 32: 546 windows, 4 a window). A/B s42e (H200, fp32,
 * x cuSPARSE's best, one warp a window -> this): K 32 bcsstk16 0.95x -> 1.33x, bcsstk33 0.97x ->
 * 1.35x, blockdiag15616-64 1.58x -> 1.94x; K 128 bcsstk16 1.45x -> 1.58x, the rest within the
 * runs' spread. */
uint32_t windows_split(const mg__spmv_form *f, const mg__spmm_form *s, uint32_t K) {
    const uint64_t warps = (uint64_t)s->nwin * ((K + 31) / 32), want = (uint64_t)f->sms * 16;
    return warps >= want ? 1 : 2 * warps >= want ? 2 : 4;
}

template <int S>
void windows_launch_s(const mg__spmv_form *f, const mg__spmm_form *s, uint32_t K, const float *B, float *C,
                      float alpha, float beta) {
    const dim3 grid((unsigned)(((uint64_t)s->nwin * S + kWindowWarps - 1) / kWindowWarps), (K + 31) / 32);
    if (beta != 0)
        spmm_windows<true, S><<<grid, kWindowWarps * 32>>>(s->nwin, f->n, K, s->d_wblock, s->d_wcol,
                                                           (const float4 *)s->d_wfrag, B, C, alpha, beta);
    else
        spmm_windows<false, S><<<grid, kWindowWarps * 32>>>(s->nwin, f->n, K, s->d_wblock, s->d_wcol,
                                                            (const float4 *)s->d_wfrag, B, C, alpha, beta);
}

mg_status spmm_windows_launch(mg_context ctx, const mg__spmv_form *f, const mg__spmm_form *s, uint32_t K,
                              const float *B, float *C, float alpha, float beta) {
    if (f->n == 0) return MG_SUCCESS;
    const uint32_t split = windows_split(f, s, K);
    if (split == 4) windows_launch_s<4>(f, s, K, B, C, alpha, beta);
    else if (split == 2) windows_launch_s<2>(f, s, K, B, C, alpha, beta);
    else windows_launch_s<1>(f, s, K, B, C, alpha, beta);
    LAUNCHED("spmm_windows");
    return MG_SUCCESS;
}

/* A's SpMM form for products of K columns (orientation transpose): with tf32 where the rule takes
 * them the TF32 windows (*windows true; built on first use from A's values in float), else the
 * parts the exact kernels need, panels(f) saying whether those are the panel kernels. */
template <typename Panels>
mg_status spmm_form_for(mg_context ctx, const mg_matrix A, bool transpose, bool tf32, uint32_t K, Panels panels,
                        mg__gpu_matrix **g, mg__spmv_form **f, mg__spmm_form **s, bool *windows) {
    *windows = false;
    const auto eligible = [&](const mg__spmv_form *of) { return tf32 && windows_eligible(of, K); };
    const auto exact_panels = [&](const mg__spmv_form *of) { return !eligible(of) && panels(of); };
    TRY(spmm_form_of(ctx, A, transpose, false, exact_panels, g, f, s));
    if (!eligible(*f)) return MG_SUCCESS;
    if (!(*s)->windowed) {
        const void *val = nullptr;
        if ((*g)->values != MG_VALUES_NONE) TRY(mg__gpu_form_values(ctx, *g, *f, MG_FLOAT, &val));
        const mg_status st = spmm_windows_build(ctx, *f, static_cast<const float *>(val), *s);
        if (st != MG_SUCCESS) {
            spmm_form_free(*s);
            return st;
        }
    }
    *windows = (*s)->d_wfrag != nullptr;
    return *windows ? MG_SUCCESS : spmm_form_of(ctx, A, transpose, false, panels, g, f, s);
}

template <typename T, int V, int NC>
mg_status sddmm_segments_launch(mg_context ctx, const mg__spmv_form *f, const mg__spmm_form *s,
                                const uint32_t *rcol, const uint32_t *rperm, const T *rval, uint32_t K,
                                const T *A, const T *B, T *C, T alpha, T beta) {
    if (s->nsegs == 0) return MG_SUCCESS;
    sddmm_segments<T, V, NC><<<(s->nsegs + kWarps - 1) / kWarps, kBlock>>>(
        s->nsegs, K, f->d_off, s->d_seg_row, s->d_seg_begin, rcol, rperm, rval, A, B, C, alpha, beta);
    LAUNCHED("sddmm_segments");
    return MG_SUCCESS;
}

template <typename T, int V, int NC>
mg_status sddmm_launch_nc(mg_context ctx, const mg__spmv_form *f, const mg__spmm_form *s,
                          const T *rval, uint32_t K, const T *A, const T *B, T *C, T alpha,
                          T beta) {
    constexpr size_t col_bytes = (size_t)NC * 32 * sizeof(vec<T, V>);
    size_t cols = kSddmmTileBytes / col_bytes;
    cols = cols < 1 ? 1 : cols > 64 ? 64 : cols;
    sddmm_panels<T, V, NC><<<s->npanels, kBlock, cols * col_bytes>>>(
        f->n, K, f->d_off, s->d_split, s->d_rcol, s->d_rperm, rval, s->d_dense_first, s->d_dcol,
        (uint32_t)cols, A, B, C, alpha, beta);
    LAUNCHED("sddmm_panels");
    return sddmm_segments_launch<T, V, NC>(ctx, f, s, s->d_rcol, s->d_rperm, rval, K, A, B, C, alpha, beta);
}

/* sddmm_rows, taking every row whole where none is over kLongRow (one launch); else the rows over
 * kLongSpmm go to segments on the CSR itself (no panels need be built): a warp of V wide lanes
 * covers K (at most 16 V here), so one chunk, the lanes past K idle. Whole rows to 1024 entries won
 * on the H200 (session 39, s39b, against segments from 129 on): bcsstk33 (rows to 141) 0.0332 ->
 * 0.0239 ms in float, 0.0438 -> 0.0316 in double; mbeacxc (to 484) 0.0251 -> 0.0179; dblp-2010
 * 0.1128 -> 0.0964, coAuthorsDBLP 0.1194 -> 0.0956 (K 32). The SpMM's groups gained more (see
 * rows_lanes). */
template <typename T, int V, int G, int R, bool PATTERN>
mg_status sddmm_rows_launch(mg_context ctx, const mg__spmv_form *f, const mg__spmm_form *s,
                            const T *val, uint32_t K, const T *A, const T *B, T *C, T alpha, T beta) {
    const unsigned grid = (unsigned)(((uint64_t)f->n * G * R + kBlock - 1) / kBlock);
    const bool whole = f->max_row <= kLongRow;
    sddmm_rows<T, V, G, R, PATTERN><<<grid, kBlock>>>(f->n, K, whole ? kLongRow : kLongSpmm, f->d_off,
                                                      f->d_idx, val, A, B, C, alpha, beta);
    LAUNCHED("sddmm_rows");
    if (whole) return MG_SUCCESS;
    return sddmm_segments_launch<T, V, 1>(ctx, f, s, f->d_idx, nullptr, val, K, A, B, C, alpha, beta);
}

/* NC, the chunks of 32 V of K a lane holds: the least power of two that covers K, at most 32. */
template <typename T, int V>
mg_status sddmm_launch_v(mg_context ctx, const mg__spmv_form *f, const mg__spmm_form *s,
                         const T *rval, uint32_t K, const T *A, const T *B, T *C, T alpha, T beta) {
    const uint32_t chunks = (K + 32 * V - 1) / (32 * V);
    if (chunks <= 1) return sddmm_launch_nc<T, V, 1>(ctx, f, s, rval, K, A, B, C, alpha, beta);
    if (chunks <= 2) return sddmm_launch_nc<T, V, 2>(ctx, f, s, rval, K, A, B, C, alpha, beta);
    if (chunks <= 4) return sddmm_launch_nc<T, V, 4>(ctx, f, s, rval, K, A, B, C, alpha, beta);
    if (chunks <= 8) return sddmm_launch_nc<T, V, 8>(ctx, f, s, rval, K, A, B, C, alpha, beta);
    if (chunks <= 16) return sddmm_launch_nc<T, V, 16>(ctx, f, s, rval, K, A, B, C, alpha, beta);
    if (chunks <= 32) return sddmm_launch_nc<T, V, 32>(ctx, f, s, rval, K, A, B, C, alpha, beta);
    return mg__error(ctx, MG_INVALID_ARGUMENT,
                     "mg_sddmm: K = %u is above the GPU engine's %u (A's row is held in registers)",
                     K, 32u * 32u * V);
}

/* sddmm_rows's launch, as spmm_rows_pick. */
template <typename T, int W>
sddmm_kernel<T, W> sddmm_rows_pick(uint32_t G, uint32_t R, bool pattern) {
    if (G == 16) {
        if (R >= 2) return pattern ? sddmm_rows_launch<T, W, 16, 2, true> : sddmm_rows_launch<T, W, 16, 2, false>;
        return pattern ? sddmm_rows_launch<T, W, 16, 1, true> : sddmm_rows_launch<T, W, 16, 1, false>;
    }
    if (R >= 4) return pattern ? sddmm_rows_launch<T, W, 8, 4, true> : sddmm_rows_launch<T, W, 8, 4, false>;
    if (R == 2) return pattern ? sddmm_rows_launch<T, W, 8, 2, true> : sddmm_rows_launch<T, W, 8, 2, false>;
    return pattern ? sddmm_rows_launch<T, W, 8, 1, true> : sddmm_rows_launch<T, W, 8, 1, false>;
}

/* lanes: sddmm_rows's group (rows_lanes), or 0 for the panels. */
template <typename T>
mg_status sddmm_launch(mg_context ctx, const mg__spmv_form *f, const mg__spmm_form *s, uint32_t lanes,
                       const T *val, const T *rval, uint32_t K, const T *A, const T *B, T *C, T alpha,
                       T beta) {
    if (f->n == 0 || f->nnz == 0) return MG_SUCCESS;
    constexpr int W = 16 / sizeof(T);
    const bool pattern = val == nullptr;
    if (lanes != 0) {
        const sddmm_kernel<T, W> launch = sddmm_rows_pick<T, W>(lanes, rows_groups(f, lanes, 1), pattern);
        return launch(ctx, f, s, val, K, A, B, C, alpha, beta);
    }
    const int V = lane_width(K, sizeof(T));
    if constexpr (sizeof(T) == 4)
        if (V == 4) return sddmm_launch_v<T, 4>(ctx, f, s, rval, K, A, B, C, alpha, beta);
    if (V == 2) return sddmm_launch_v<T, 2>(ctx, f, s, rval, K, A, B, C, alpha, beta);
    return sddmm_launch_v<T, 1>(ctx, f, s, rval, K, A, B, C, alpha, beta);
}

} // namespace

void mg__spmm_forms_free(mg__spmm_forms *s) {
    if (s == nullptr) return;
    spmm_form_free(&s->of[0]);
    spmm_form_free(&s->of[1]);
    mg__free(s);
}

extern "C" mg_status mg__gpu_spmm(mg_context ctx, const mg_matrix A, const mg_dense B, mg_dense C,
                                  const mg_spmm_options *opts) {
    mg__gpu_matrix *g = nullptr;
    mg__spmv_form *f = nullptr;
    mg__spmm_form *s = nullptr;
    const void *rval = nullptr, *val = nullptr; /* the panels' reordered values, or the CSR's own */
    const uint32_t K = B->cols;
    const auto panels = [&](const mg__spmv_form *of) { return rows_lanes_of(of, B->type, K, false) == 0; };
    bool windows = false;
    TRY(spmm_form_for(ctx, A, opts->transpose, opts->tf32 && B->type == MG_FLOAT, K, panels, &g, &f, &s, &windows));
    if (!windows && panels(f)) TRY(spmm_form_values(ctx, g, f, s, B->type, &rval));
    else if (!windows) TRY(mg__gpu_form_values(ctx, g, f, B->type, &val));
    TRY(mg__gpu_dense_to_device(ctx, B));
    /* C's old values are read only when beta is not 0; C is marked device-resident only once the
     * kernels are queued, so a failure leaves it as it was */
    if (opts->beta != 0) TRY(mg__gpu_dense_to_device(ctx, C));
    else TRY(mg__gpu_dense_reserve(ctx, C));
    if (windows)
        TRY(spmm_windows_launch(ctx, f, s, K, (const float *)B->d_data, (float *)C->d_data, (float)opts->alpha,
                                (float)opts->beta));
    else if (B->type == MG_DOUBLE)
        TRY(spmm_launch<double>(ctx, f, s, (const double *)val, (const double *)rval, K,
                                (const double *)B->d_data, (double *)C->d_data, opts->alpha, opts->beta));
    else
        TRY(spmm_launch<float>(ctx, f, s, (const float *)val, (const float *)rval, K, (const float *)B->d_data,
                               (float *)C->d_data, (float)opts->alpha, (float)opts->beta));
    /* no wait: a fault while running surfaces where C is read or at mg_context_finish */
    C->on_device = true;
    return MG_SUCCESS;
}

extern "C" mg_status mg__gpu_sddmm(mg_context ctx, const mg_matrix S, const mg_dense A,
                                   const mg_dense B, mg_dense C, const mg_sddmm_options *opts) {
    mg__gpu_matrix *g = nullptr;
    mg__spmv_form *f = nullptr;
    mg__spmm_form *s = nullptr;
    const void *rval = nullptr, *val = nullptr; /* the panels' reordered values, or the CSR's own */
    const uint32_t K = A->cols;
    const auto panels = [&](const mg__spmv_form *of) { return rows_lanes_of(of, A->type, K, true) == 0; };
    TRY(spmm_form_of(ctx, S, false, true, panels, &g, &f, &s));
    const uint32_t lanes = panels(f) ? 0 : rows_lanes_of(f, A->type, K, true);
    if (lanes == 0) TRY(spmm_form_values(ctx, g, f, s, A->type, &rval));
    else TRY(mg__gpu_form_values(ctx, g, f, A->type, &val));
    TRY(mg__gpu_dense_to_device(ctx, A));
    TRY(mg__gpu_dense_to_device(ctx, B));
    if (opts->beta != 0) TRY(mg__gpu_dense_to_device(ctx, C));
    else TRY(mg__gpu_dense_reserve(ctx, C));
    if (A->type == MG_DOUBLE)
        TRY(sddmm_launch<double>(ctx, f, s, lanes, (const double *)val, (const double *)rval, K,
                                 (const double *)A->d_data, (const double *)B->d_data,
                                 (double *)C->d_data, opts->alpha, opts->beta));
    else
        TRY(sddmm_launch<float>(ctx, f, s, lanes, (const float *)val, (const float *)rval, K,
                                (const float *)A->d_data, (const float *)B->d_data,
                                (float *)C->d_data, (float)opts->alpha, (float)opts->beta));
    C->on_device = true;
    return MG_SUCCESS;
}

extern "C" mg_status mg_matrix_gpu_prepare_spmm(mg_context ctx, const mg_matrix A, uint32_t k,
                                                const mg_spmm_options *opts, mg_gpu_matrix_info *info) {
    mg__gpu_matrix *g = nullptr;
    mg__spmv_form *f = nullptr;
    mg__spmm_form *s = nullptr;
    const void *values = nullptr;
    int devices = 0;
    if (info != nullptr) memset(info, 0, sizeof *info);
    TRY(mg__check_context(ctx));
    TRY(mg__check_matrix(ctx, A, "mg_matrix_gpu_prepare_spmm: A"));
    TRY(mg__gpu_device_count(ctx, "mg_matrix_gpu_prepare_spmm", &devices));
    mg_spmm_options o;
    mg_spmm_options_init(&o);
    if (opts != nullptr) o = *opts;
    /* the matrix's own value type, so a product in it finds everything built (float with tf32,
     * whose products are float's); a pattern's products may be in either */
    const mg_type own = A->values == MG_VALUES_DOUBLE && !o.tf32 ? MG_DOUBLE : MG_FLOAT;
    const auto panels = [&](const mg__spmv_form *of) {
        if (k == 0) return true;
        if (A->values == MG_VALUES_NONE)
            return rows_lanes_of(of, MG_FLOAT, k, false) == 0 || rows_lanes_of(of, MG_DOUBLE, k, false) == 0;
        return rows_lanes_of(of, own, k, false) == 0;
    };
    bool windows = false;
    TRY(spmm_form_for(ctx, A, o.transpose, o.tf32 && own == MG_FLOAT, k, panels, &g, &f, &s, &windows));
    const uint32_t lanes = k == 0 || windows ? 0 : rows_lanes_of(f, own, k, false);
    if (!windows && lanes == 0) TRY(spmm_form_values(ctx, g, f, s, own, &values));
    else if (!windows) TRY(mg__gpu_form_values(ctx, g, f, own, &values));
    if (info == nullptr) return MG_SUCCESS;
    info->seconds = g->seconds + s->seconds;
    info->upload_seconds = g->upload_seconds;
    info->device_bytes = g->csr.bytes + g->csc.bytes + g->spmm->of[0].bytes + g->spmm->of[1].bytes;
    info->csr_bytes = ((size_t)A->rows + 1) * 8 + (size_t)A->nnz * 4 +
                      (size_t)A->nnz * (A->values == MG_VALUES_NONE ? 0 : A->values == MG_VALUES_FLOAT ? 4 : 8);
    if (windows)
        snprintf(info->kernel, sizeof info->kernel, "tc-windows (tf32; %.1f entries a column)",
                 (double)f->nnz / ((double)s->nwblocks * 8));
    else if (lanes != 0) {
        const uint32_t V = own == MG_DOUBLE ? 2 : 4, R = rows_groups(f, lanes, rows_chunks(f, k, lanes, V));
        const uint32_t nv = rows_vectors(f, k, V);
        char vectors[24] = "", blocks[32] = "";
        if (nv > 1) snprintf(vectors, sizeof vectors, " of %u vectors", nv);
        if (s->nlong > 0) snprintf(blocks, sizeof blocks, "; %u row%s a block", s->nlong, s->nlong == 1 ? "" : "s");
        snprintf(info->kernel, sizeof info->kernel, "csr-groups (%u lanes%s%s%s)", lanes, vectors,
                 R == 4 ? " x4" : R == 2 ? " x2" : "", blocks);
    }
    else
        snprintf(info->kernel, sizeof info->kernel, "aspt%s%s%s", s->dense_entries > 0 ? "-tiles" : "",
                 s->dense_entries < A->nnz ? "+rows" : "", s->nsegs > 0 ? "+split" : "");
    return MG_SUCCESS;
}
