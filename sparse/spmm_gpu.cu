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
 * the SDDMM writes its results through it, so the user sees the CSR order). Rows longer than the
 * SpMV form's long_len stay out of the tiles and are processed by its chunk list (kChunk entries a
 * thread block, atomics into C for the SpMM), so a 100k-entry row does not serialise one warp.
 *
 * SpMM kernel: a thread block of kWarps warps per (panel, K chunk of 32 V columns), each warp kRows
 * rows, lanes across K with V-wide vector loads (float4/float2/double2), the rows' sums in
 * registers. The panel's dense columns are walked in tiles: the tile's B rows are staged in shared
 * memory (reused by every row of the panel), then every row consumes its entries of that tile; then
 * each row's sparse remainder reads B rows directly. SDDMM: the same panels and tiles, a warp per
 * row with A's row in registers, B's dense rows in shared memory, a warp-shuffle dot product.
 */
#include <cuda_runtime.h>
#include <cub/cub.cuh>

#include <stdio.h>
#include <string.h>

extern "C" {
#include "mg_internal.h"
#include "gpu_resident.h"
}
#include "frontier/gpu_engine.h"
#include "sparse/sparse_internal.h"
#include "sparse/spmv_gpu.h"

/* One orientation's SpMM / SDDMM form; d_dense_first NULL until built. */
struct mg__spmm_form {
    uint32_t npanels;
    uint64_t ndense;           /* (panel, column) pairs that are dense */
    uint64_t dense_entries;    /* entries in tiles */
    uint64_t *d_dense_first;   /* npanels + 1: each panel's first dense column in d_dcol */
    uint32_t *d_dcol;          /* ndense: the dense columns, by panel, ascending */
    uint32_t *d_rcol;          /* nnz: slot (dense entry) or column (the rest), reordered rows */
    uint32_t *d_rperm;         /* nnz: the entry's position within its row in CSR order */
    uint64_t *d_split;         /* n: each row's first entry that is not in a tile */
    void *d_rval[2];           /* nnz reordered values, float [0] and double [1]; NULL until made */
    size_t bytes;
    double seconds;            /* building it and its values (CUDA events) */
};

struct mg__spmm_forms {
    mg__spmm_form of[2];       /* the CSR's [0], the CSC's [1] */
};

namespace {

#include "gpu_util.cuh"

constexpr uint32_t kPanel = 64;         /* rows of a panel */
constexpr int kWarps = 8;               /* warps of a block: a panel's rows, kRows each */
constexpr int kRows = kPanel / kWarps;
constexpr int kBlock = kWarps * 32;
constexpr uint32_t kDenseMin = 4;       /* entries of a column in a panel that make it dense */
constexpr int kTileBytes = 16384;       /* the SpMM tile of staged B rows */
constexpr int kSddmmTileBytes = 32768;  /* the SDDMM's, at least one row of B */
constexpr uint32_t kSparse = 0xffffffffu; /* an order key's low word for an entry not in a tile */
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

/* ---- SpMM kernels -------------------------------------------------------------------------------- */

/* One block a (panel, K chunk): see the banner. Row j of warp w is panel * kPanel + j * kWarps + w,
 * so the warps of a block write neighbouring rows of C. A long row (the chunk kernel's) only gets
 * beta C here. */
template <typename T, int V, bool PATTERN>
__global__ void __launch_bounds__(kBlock)
spmm_panels(uint32_t n, uint32_t K, const uint64_t *__restrict__ off,
            const uint64_t *__restrict__ split, const uint32_t *__restrict__ rcol,
            const T *__restrict__ rval, const uint64_t *__restrict__ dense_first,
            const uint32_t *__restrict__ dcol, uint32_t long_len, const T *__restrict__ B,
            T *__restrict__ C, T alpha, T beta) {
    typedef vec<T, V> VT;
    constexpr uint32_t kCols = kTileBytes / (32 * sizeof(VT));
    __shared__ VT tile[kCols * 32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const uint32_t k_base = blockIdx.y * 32 * V;
    const uint32_t kk = k_base + lane * V;
    const bool k_in = kk < K;
    const uint32_t kr = k_in ? kk : K - V; /* lanes past K read a valid vector and write nothing */
    const uint64_t row0 = (uint64_t)blockIdx.x * kPanel;
    uint64_t cur[kRows];
    VT acc[kRows];
#pragma unroll
    for (int j = 0; j < kRows; j++) {
        const uint64_t r = row0 + j * kWarps + warp;
        cur[j] = r < n ? off[r] : 0;
        acc[j] = vzero<T, V>();
    }
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
            const uint64_t r = row0 + j * kWarps + warp;
            if (r >= n) continue;
            const uint64_t end = split[r];
            uint64_t e = cur[j];
            for (; e < end; e++) {
                const uint32_t s = rcol[e];
                if (s >= t_end) break;
                vfma(acc[j], PATTERN ? T(1) : rval[e], tile[(uint32_t)(s - t0) * 32 + lane]);
            }
            cur[j] = e;
        }
    }
#pragma unroll
    for (int j = 0; j < kRows; j++) {
        const uint64_t r = row0 + j * kWarps + warp;
        if (r >= n) continue;
        const uint64_t b = off[r], e_end = off[r + 1];
        if (e_end - b <= long_len) {
#pragma unroll 4
            for (uint64_t e = split[r]; e < e_end; e++)
                vfma(acc[j], PATTERN ? T(1) : rval[e], vload<T, V>(B + (uint64_t)rcol[e] * K + kr));
        }
        if (!k_in) continue;
        VT *c = reinterpret_cast<VT *>(C + r * K + kk);
        VT out;
        const VT old = beta != T(0) ? *c : vzero<T, V>();
#pragma unroll
        for (int i = 0; i < V; i++) out.v[i] = beta != T(0) ? alpha * acc[j].v[i] + beta * old.v[i]
                                                            : alpha * acc[j].v[i];
        *c = out;
    }
}

/* One chunk of a long row per (block, K chunk): the warps take every kWarps-th entry, their sums
 * meet in shared memory, and alpha times the total is added to C (spmm_panels wrote beta C first,
 * earlier on the stream). */
template <typename T, int V, bool PATTERN>
__global__ void __launch_bounds__(kBlock)
spmm_long(uint32_t K, const uint64_t *__restrict__ off, const uint32_t *__restrict__ chunk_long,
          const uint32_t *__restrict__ long_rows, const uint64_t *__restrict__ chunk_begin, const uint32_t *__restrict__ rcol,
          const T *__restrict__ rval, const T *__restrict__ B, T *C, T alpha) {
    typedef vec<T, V> VT;
    __shared__ VT part[kBlock];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const uint32_t kk = blockIdx.y * 32 * V + lane * V;
    const uint32_t kr = kk < K ? kk : K - V;
    const uint32_t row = long_rows[chunk_long[blockIdx.x]];
    const uint64_t b = chunk_begin[blockIdx.x], row_end = off[row + 1];
    const uint64_t e_end = b + kChunk < row_end ? b + kChunk : row_end;
    VT acc = vzero<T, V>();
#pragma unroll 4
    for (uint64_t e = b + warp; e < e_end; e += kWarps)
        vfma(acc, PATTERN ? T(1) : rval[e], vload<T, V>(B + (uint64_t)rcol[e] * K + kr));
    part[threadIdx.x] = acc;
    __syncthreads();
    if (warp != 0 || kk >= K) return;
    for (int w = 1; w < kWarps; w++)
#pragma unroll
        for (int i = 0; i < V; i++) acc.v[i] += part[w * 32 + lane].v[i];
#pragma unroll
    for (int i = 0; i < V; i++) atomicAdd(C + (uint64_t)row * K + kk + i, alpha * acc.v[i]);
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

/* C at S's CSR position of reordered entry e of row r (lane 0 writes). */
template <typename T>
__device__ inline void sddmm_write(T *C, uint64_t pos, T s, T dot, T alpha, T beta) {
    C[pos] = beta != T(0) ? alpha * s * dot + beta * C[pos] : alpha * s * dot;
}

/* One block a panel, a warp per row (rows as in spmm_panels); tiles of tile_cols dense B rows (the
 * whole of K) in dynamic shared memory, laid out [column][chunk][lane]. */
template <typename T, int V, int NC>
__global__ void __launch_bounds__(kBlock)
sddmm_panels(uint32_t n, uint32_t K, const uint64_t *__restrict__ off,
             const uint64_t *__restrict__ split, const uint32_t *__restrict__ rcol,
             const uint32_t *__restrict__ rperm, const T *__restrict__ rval,
             const uint64_t *__restrict__ dense_first, const uint32_t *__restrict__ dcol,
             uint32_t long_len, uint32_t tile_cols, const T *__restrict__ A,
             const T *__restrict__ B, T *C, T alpha, T beta) {
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
#pragma unroll
        for (int j = 0; j < kRows; j++) {
            const uint64_t r = row0 + j * kWarps + warp;
            if (r >= n) continue;
            const uint64_t end = split[r];
            uint64_t e = cur[j];
            if (e < end && rcol[e] < t_end) {
                const uint64_t b = off[r];
                load_row<T, V, NC>(A, r, K, lane, a);
                for (; e < end; e++) {
                    const uint32_t s = rcol[e];
                    if (s >= t_end) break;
                    const VT *bt = tile + (uint32_t)(s - t0) * NC * 32 + lane;
                    T dot = T(0);
#pragma unroll
                    for (int ch = 0; ch < NC; ch++)
#pragma unroll
                        for (int i = 0; i < V; i++) dot = fma(a[ch].v[i], bt[ch * 32].v[i], dot);
                    dot = warp_sum(dot);
                    if (lane == 0) sddmm_write(C, b + rperm[e], rval ? rval[e] : T(1), dot, alpha, beta);
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
        if (e_end - b > long_len || split[r] == e_end) continue;
        load_row<T, V, NC>(A, r, K, lane, a);
        for (uint64_t e = split[r]; e < e_end; e++) {
            const T *bj = B + (uint64_t)rcol[e] * K;
            T dot = T(0);
#pragma unroll
            for (int ch = 0; ch < NC; ch++) {
                const uint32_t k = ch * 32 * V + lane * V;
                /* a is 0 past K; b is read in bounds there and zeroed, so an Inf in B adds no NaN */
                VT bv = vload<T, V>(bj + (k < K ? k : K - V));
                if (k >= K) bv = vzero<T, V>();
#pragma unroll
                for (int i = 0; i < V; i++) dot = fma(a[ch].v[i], bv.v[i], dot);
            }
            dot = warp_sum(dot);
            if (lane == 0) sddmm_write(C, b + rperm[e], rval ? rval[e] : T(1), dot, alpha, beta);
        }
    }
}

/* One chunk of a long row per block: its warps take every kWarps-th entry, A's row in registers. */
template <typename T, int V, int NC>
__global__ void __launch_bounds__(kBlock)
sddmm_long(uint32_t K, const uint64_t *__restrict__ off, const uint32_t *__restrict__ chunk_long,
           const uint32_t *__restrict__ long_rows, const uint64_t *__restrict__ chunk_begin, const uint32_t *__restrict__ rcol,
           const uint32_t *__restrict__ rperm, const T *__restrict__ rval, const T *__restrict__ A,
           const T *__restrict__ B, T *C, T alpha, T beta) {
    typedef vec<T, V> VT;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const uint32_t row = long_rows[chunk_long[blockIdx.x]];
    const uint64_t b = chunk_begin[blockIdx.x], row_b = off[row], row_end = off[row + 1];
    const uint64_t e_end = b + kChunk < row_end ? b + kChunk : row_end;
    VT a[NC];
    load_row<T, V, NC>(A, row, K, lane, a);
    for (uint64_t e = b + warp; e < e_end; e += kWarps) {
        const T *bj = B + (uint64_t)rcol[e] * K;
        T dot = T(0);
#pragma unroll
        for (int ch = 0; ch < NC; ch++) {
            const uint32_t k = ch * 32 * V + lane * V;
            VT bv = vload<T, V>(bj + (k < K ? k : K - V));
            if (k >= K) bv = vzero<T, V>();
#pragma unroll
            for (int i = 0; i < V; i++) dot = fma(a[ch].v[i], bv.v[i], dot);
        }
        dot = warp_sum(dot);
        if (lane == 0) sddmm_write(C, row_b + rperm[e], rval ? rval[e] : T(1), dot, alpha, beta);
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
                           uint32_t long_len, uint32_t npanels, uint64_t *key) {
    GRID_STRIDE(e, nnz) {
        const uint32_t r = row_of(off, n, e);
        key[e] = off[r + 1] - off[r] > long_len ? (uint64_t)npanels << 32
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
                           uint32_t long_len, const uint64_t *dense, const uint64_t *dense_first,
                           uint64_t *key, uint32_t *pos) {
    GRID_STRIDE(e, nnz) {
        const uint32_t r = row_of(off, n, e);
        uint32_t slot = kSparse;
        if (off[r + 1] - off[r] <= long_len) {
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
    dfree(s->d_rval[0]);
    dfree(s->d_rval[1]);
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
    panel_keys<<<blocks_for(nnz), kThreads>>>(f->d_off, f->d_idx, f->n, nnz, f->long_len, s->npanels,
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

/* Builds s from f on the device (see the banner), timed by CUDA events into s->seconds. */
mg_status spmm_form_build(mg_context ctx, const mg__spmv_form *f, mg__spmm_form *s) {
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
        order_keys<<<blocks_for(nnz), kThreads>>>(f->d_off, f->d_idx, n, nnz, f->long_len,
                                                  (const uint64_t *)dense.p, s->d_dense_first,
                                                  (uint64_t *)key.p, (uint32_t *)pos.p);
        LAUNCHED("order_keys");
        /* stable: a row's entries outside the tiles keep their CSR order (a long row stays as is,
         * which its chunk list relies on) */
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

/* A's SpMM form for op(A) (built on first use), with the device CSR / CSC it indexes. */
mg_status spmm_form_of(mg_context ctx, const mg_matrix A, bool transpose, mg__gpu_matrix **g,
                       mg__spmv_form **f, mg__spmm_form **s) {
    TRY(mg__gpu_matrix_of(ctx, A, transpose, g, f));
    if ((*g)->spmm == nullptr) {
        (*g)->spmm = static_cast<mg__spmm_forms *>(mg__calloc(1, sizeof(mg__spmm_forms)));
        if ((*g)->spmm == nullptr)
            return mg__error(ctx, MG_OUT_OF_MEMORY, "the SpMM form: out of host memory");
    }
    *s = &(*g)->spmm->of[transpose ? 1 : 0];
    if ((*s)->d_dense_first == nullptr) {
        const mg_status st = spmm_form_build(ctx, *f, *s);
        if (st != MG_SUCCESS) {
            spmm_form_free(*s);
            return st;
        }
    }
    return MG_SUCCESS;
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

/* ---- launches ------------------------------------------------------------------------------------ */

template <typename T, int V, bool PATTERN>
mg_status spmm_launch_v(mg_context ctx, const mg__spmv_form *f, const mg__spmm_form *s,
                        const T *rval, uint32_t K, const T *B, T *C, T alpha, T beta) {
    const dim3 grid(s->npanels, (K + 32 * V - 1) / (32 * V));
    spmm_panels<T, V, PATTERN><<<grid, kBlock>>>(f->n, K, f->d_off, s->d_split, s->d_rcol, rval,
                                                 s->d_dense_first, s->d_dcol, f->long_len, B, C,
                                                 alpha, beta);
    LAUNCHED("spmm_panels");
    if (f->nlong == 0) return MG_SUCCESS;
    spmm_long<T, V, PATTERN><<<dim3(f->nchunks, grid.y), kBlock>>>(
        K, f->d_off, f->d_chunk_long, f->d_long_rows, f->d_chunk_begin, s->d_rcol, rval, B, C, alpha);
    LAUNCHED("spmm_long");
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

template <typename T>
mg_status spmm_launch(mg_context ctx, const mg__spmv_form *f, const mg__spmm_form *s,
                      const T *rval, uint32_t K, const T *B, T *C, T alpha, T beta) {
    if (f->n == 0) return MG_SUCCESS;
    const int V = lane_width(K, sizeof(T));
    if (((uint64_t)K + 32 * V - 1) / (32 * V) > 65535)
        return mg__error(ctx, MG_INVALID_ARGUMENT, "mg_spmm: K = %u is above the GPU engine's %u",
                         K, 65535u * 32u);
    if constexpr (sizeof(T) == 4)
        if (V == 4) return spmm_launch_p<T, 4>(ctx, f, s, rval, K, B, C, alpha, beta);
    if (V == 2) return spmm_launch_p<T, 2>(ctx, f, s, rval, K, B, C, alpha, beta);
    return spmm_launch_p<T, 1>(ctx, f, s, rval, K, B, C, alpha, beta);
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
        f->long_len, (uint32_t)cols, A, B, C, alpha, beta);
    LAUNCHED("sddmm_panels");
    if (f->nlong == 0) return MG_SUCCESS;
    sddmm_long<T, V, NC><<<f->nchunks, kBlock>>>(K, f->d_off, f->d_chunk_long, f->d_long_rows, f->d_chunk_begin,
                                                  s->d_rcol, s->d_rperm, rval, A, B, C, alpha, beta);
    LAUNCHED("sddmm_long");
    return MG_SUCCESS;
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

template <typename T>
mg_status sddmm_launch(mg_context ctx, const mg__spmv_form *f, const mg__spmm_form *s,
                       const T *rval, uint32_t K, const T *A, const T *B, T *C, T alpha, T beta) {
    if (f->n == 0 || f->nnz == 0) return MG_SUCCESS;
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
    const void *rval = nullptr;
    TRY(spmm_form_of(ctx, A, opts->transpose, &g, &f, &s));
    TRY(spmm_form_values(ctx, g, f, s, B->type, &rval));
    TRY(mg__gpu_dense_to_device(ctx, B));
    /* C's old values are read only when beta is not 0; C is marked device-resident only once the
     * kernels are queued, so a failure leaves it as it was */
    if (opts->beta != 0) TRY(mg__gpu_dense_to_device(ctx, C));
    else TRY(mg__gpu_dense_reserve(ctx, C));
    const uint32_t K = B->cols;
    if (B->type == MG_DOUBLE)
        TRY(spmm_launch<double>(ctx, f, s, (const double *)rval, K, (const double *)B->d_data,
                                (double *)C->d_data, opts->alpha, opts->beta));
    else
        TRY(spmm_launch<float>(ctx, f, s, (const float *)rval, K, (const float *)B->d_data,
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
    const void *rval = nullptr;
    TRY(spmm_form_of(ctx, S, false, &g, &f, &s));
    TRY(spmm_form_values(ctx, g, f, s, A->type, &rval));
    TRY(mg__gpu_dense_to_device(ctx, A));
    TRY(mg__gpu_dense_to_device(ctx, B));
    if (opts->beta != 0) TRY(mg__gpu_dense_to_device(ctx, C));
    else TRY(mg__gpu_dense_reserve(ctx, C));
    const uint32_t K = A->cols;
    if (A->type == MG_DOUBLE)
        TRY(sddmm_launch<double>(ctx, f, s, (const double *)rval, K, (const double *)A->d_data,
                                 (const double *)B->d_data, (double *)C->d_data, opts->alpha,
                                 opts->beta));
    else
        TRY(sddmm_launch<float>(ctx, f, s, (const float *)rval, K, (const float *)A->d_data,
                                (const float *)B->d_data, (float *)C->d_data, (float)opts->alpha,
                                (float)opts->beta));
    C->on_device = true;
    return MG_SUCCESS;
}

extern "C" mg_status mg_matrix_gpu_prepare_spmm(mg_context ctx, const mg_matrix A,
                                                mg_gpu_matrix_info *info) {
    mg__gpu_matrix *g = nullptr;
    mg__spmv_form *f = nullptr;
    mg__spmm_form *s = nullptr;
    const void *rval = nullptr;
    int devices = 0;
    if (info != nullptr) memset(info, 0, sizeof *info);
    TRY(mg__check_context(ctx));
    TRY(mg__check_matrix(ctx, A, "mg_matrix_gpu_prepare_spmm: A"));
    TRY(mg__gpu_device_count(ctx, "mg_matrix_gpu_prepare_spmm", &devices));
    TRY(spmm_form_of(ctx, A, false, &g, &f, &s));
    /* the matrix's own value type, so a product in it finds everything built */
    TRY(spmm_form_values(ctx, g, f, s, A->values == MG_VALUES_FLOAT ? MG_FLOAT : MG_DOUBLE, &rval));
    if (info == nullptr) return MG_SUCCESS;
    info->seconds = s->seconds;
    info->upload_seconds = g->upload_seconds;
    info->device_bytes = g->csr.bytes + g->csc.bytes + g->spmm->of[0].bytes + g->spmm->of[1].bytes;
    info->csr_bytes = ((size_t)A->rows + 1) * 8 + (size_t)A->nnz * 4 +
                      (size_t)A->nnz * (A->values == MG_VALUES_NONE ? 0 : A->values == MG_VALUES_FLOAT ? 4 : 8);
    const bool tiles = s->dense_entries > 0;
    snprintf(info->kernel, sizeof info->kernel, "aspt%s%s%s", tiles ? "-tiles" : "",
             s->dense_entries < A->nnz ? "+rows" : "", f->nlong > 0 ? "+split" : "");
    return MG_SUCCESS;
}
