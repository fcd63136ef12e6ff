/*
 * spgemm_gpu.cu — the GPU engine of mg_spgemm: C = A B over a semiring, optionally masked (C<M>,
 * C<!M>), Gustavson row by row (ACM TOMS 4(3), 1978) with the row binning and shared-memory
 * accumulators of the SpGEMM kernels in shared/papers/000 (a block per row, hash accumulators in
 * shared memory, warp-level work for short rows) and nsparse (Nagasaka et al., ICPP 2017).
 *
 * 1. Bounds: a warp per row sums B's row lengths over A's row (the row's flops) and caps it by C's
 *    columns, by |M_i| for C<M> and by cols - |M_i| for C<!M> (a mask row's columns are distinct).
 *    The bound picks the row's bin (for the widest, its column range too: see below); a CUB
 *    radix sort on the bin (4 bits) lists the rows by bin.
 * 2. Symbolic pass: each row's distinct output columns are counted, then a CUB scan gives C's row
 *    offsets, and C is allocated at its exact size. 3. Numeric pass: the same accumulation with
 *    values, each row written sorted at its offset. Two passes rather than one with block-level
 *    reservation: a one-pass kernel must hold every row's output somewhere before C's size is
 *    known, the sum of the bounds (up to the flops, often several times nnz(C)), while the
 *    symbolic pass needs only a count per row; the issue's goal is a peak below cuSPARSE's, and the
 *    second walk over the flops is cheap next to that memory (its B rows are in L2 again).
 *
 * Bins (a row whose bound is at most half a table's slots takes that table: linear probing never
 * fills it): bounds up to 16 and 64 take a warp per row with 32- and 128-slot tables, 8 rows a
 * block; up to 256, 1024, 2048 and 4096 a block of 128 to 1024 threads per row with 512 to 8192
 * slots. The tables live in shared memory: keys (a column, or kEmpty) and values set to the
 * semiring's identity before the row, updated with shared atomics (CAS loops for min and max).
 * A numeric row's entries are then gathered to the table's front and sorted there by a bitonic
 * sort over the next power of two of its count (kEmpty pads it and sorts last), then copied out. Wider rows (bound over 4096, or over the largest table the
 * device's shared memory holds) are accumulated densely over their column range [lo, hi] (B's rows
 * are sorted: the least first and greatest last column of the B rows they read), a value and a hit
 * flag per column, then block scans over the flags place the entries in column order, no sort.
 * A range of at most W columns (16384 where the shared memory allows, else 4096) fits one tile in
 * shared memory; a wider one (a hub row) gets a window of global memory, one per block, the whole
 * range where at most a quarter of the free memory (and 512 MiB) allows, else in pieces, each B
 * row's first column in a piece found by binary search. A range cut into many shared tiles would
 * search every B row again for every tile. Nothing is O(rows x cols); device memory is C, the row
 * lists and offsets (a few words per row), the windows and CUB's temporaries.
 *
 * The mask: a product (i, j) is kept when j is (C<M>) or is not (C<!M>) in M's row i, found by
 * binary search in that sorted row. Arithmetic as the CPU engine: double, or float when A and B
 * both are float (every product and sum rounded to float: __fmul_rn and friends keep the compiler
 * from fusing them), a pattern operand reading 1, or-and on two patterns giving a pattern. Min,
 * max and or-and do not depend on the order of the updates, so their values match the CPU's bit
 * for bit (but for the sign of a zero that ties); a plus-times sum is added in the order the
 * atomics land, within rounding of the CPU's.
 *
 * Device memory is checked before each allocation against what the device has free (the driver's
 * free memory plus what the stream-ordered pool holds unused): a product too large for the device
 * fails with MG_OUT_OF_MEMORY saying how many bytes it needed; the peak (work and C's device
 * arrays, not the operands' device forms, which are cached on the matrices) is reported through
 * opts->device_bytes. C is copied back to a host mg_matrix, as the CPU engine returns.
 */
#include <cuda_runtime.h>
#include <cub/cub.cuh>
#include <thrust/iterator/transform_iterator.h>

#include <chrono>
#include <math.h>
#include <stdio.h>
#include <string.h>

extern "C" {
#include "mg_internal.h"
}
#include "sparse/sparse_internal.h"
#include "sparse/spmv_gpu.h"

namespace {

#include "gpu_util.cuh"

enum { MASK_NONE, MASK_KEEP, MASK_SKIP };

constexpr uint32_t kEmpty = 0xffffffffu; /* a free slot: above any column (cols < 2^31) */
/* The hash bins: table slots, threads per row (the group), threads per A entry (the unit). */
constexpr int kBins = 6;
constexpr uint32_t kTable[kBins] = {32, 128, 512, 2048, 4096, 8192};
constexpr uint32_t kGroup[kBins] = {32, 32, 128, 256, 512, 1024};
constexpr uint32_t kUnit[kBins] = {8, 16, 32, 32, 32, 32};
constexpr uint8_t kBinTile = kBins;       /* wider: the column range fits one shared-memory tile */
constexpr uint8_t kBinWindow = kBins + 1; /* wider still: a window of global memory */
constexpr uint8_t kBinEmpty = kBins + 2;  /* bound 0: nothing to compute */
constexpr int kBinKeys = kBins + 3;
constexpr int kBinBits = 4;
static_assert(kBinKeys <= (1 << kBinBits), "bins fit the radix sort's bits");
constexpr uint32_t kWideThreads = 1024;
constexpr uint32_t kItems = 16, kChunk = kWideThreads * kItems; /* columns a block scan places */
constexpr uint32_t kWideTile = kChunk, kNarrowTile = 4096;
/* The global windows: at most this share of the free memory, and of this many bytes. */
constexpr size_t kWindowShare = 4, kWindowMax = size_t(512) << 20;

struct operands {
    const uint64_t *a_off, *b_off, *m_off;
    const uint32_t *a_idx, *b_idx, *m_idx;
    const void *a_val, *b_val; /* the arithmetic's type; NULL for a pattern (reads 1) */
    int mask;
    int semiring;
    uint32_t cols;
    uint32_t *c_cnt;           /* symbolic: each row's size */
    const uint64_t *c_off;     /* numeric: C's row offsets, columns and values (NULL: pattern) */
    uint32_t *c_idx;
    void *c_val;
};

__host__ __device__ constexpr int log2_of(uint32_t x) { return x <= 1 ? 0 : 1 + log2_of(x / 2); }
/* Threads of a block whose groups have g threads: 8 warp groups (each syncs alone), or one larger
 * group (a block: two groups of one block would each need the other at every __syncthreads, and
 * their row counts can differ). */
__host__ __device__ constexpr uint32_t block_of(uint32_t g) { return g == 32 ? 256 : g; }

template <uint32_t G> __device__ inline void group_sync() {
    static_assert(G == 32 || block_of(G) == G, "a group is a warp or the whole block");
    if constexpr (G == 32) __syncwarp();
    else __syncthreads();
}

template <typename V> __device__ inline V value_of(const void *v, uint64_t e) {
    return v == nullptr ? V(1) : static_cast<const V *>(v)[e];
}

__device__ inline float mul_rn(float a, float b) { return __fmul_rn(a, b); }
__device__ inline double mul_rn(double a, double b) { return __dmul_rn(a, b); }
__device__ inline float add_rn(float a, float b) { return __fadd_rn(a, b); }
__device__ inline double add_rn(double a, double b) { return __dadd_rn(a, b); }

/* *p = v if v is below (LESS) or above *p, as the CPU's `p < acc ? p : acc`: a NaN v never
 * replaces, so the result is the extreme of the non-NaN terms whatever the order. */
template <bool LESS> __device__ inline void atomic_extreme(float *p, float v) {
    unsigned *u = reinterpret_cast<unsigned *>(p);
    unsigned old = *reinterpret_cast<volatile unsigned *>(u);
    while (LESS ? v < __uint_as_float(old) : v > __uint_as_float(old)) {
        const unsigned seen = atomicCAS(u, old, __float_as_uint(v));
        if (seen == old) break;
        old = seen;
    }
}

template <bool LESS> __device__ inline void atomic_extreme(double *p, double v) {
    unsigned long long *u = reinterpret_cast<unsigned long long *>(p);
    unsigned long long old = *reinterpret_cast<volatile unsigned long long *>(u);
    while (LESS ? v < __longlong_as_double((long long)old) : v > __longlong_as_double((long long)old)) {
        const unsigned long long seen = atomicCAS(u, old, (unsigned long long)__double_as_longlong(v));
        if (seen == old) break;
        old = seen;
    }
}

template <typename V> __host__ __device__ inline V identity_of(int sr) {
    return sr == MG_SEMIRING_MIN_PLUS ? V(INFINITY) : sr == MG_SEMIRING_MAX_TIMES ? V(-INFINITY) : V(0);
}

/* *acc (+)= a (*) b over the semiring. */
template <typename V> __device__ inline void combine(int sr, V *acc, V a, V b) {
    switch (sr) {
    case MG_SEMIRING_PLUS_TIMES: atomicAdd(acc, mul_rn(a, b)); break;
    case MG_SEMIRING_MIN_PLUS: atomic_extreme<true>(acc, add_rn(a, b)); break;
    case MG_SEMIRING_MAX_TIMES: atomic_extreme<false>(acc, mul_rn(a, b)); break;
    case MG_SEMIRING_OR_AND:
        if (a != V(0) && b != V(0)) *reinterpret_cast<volatile V *>(acc) = V(1);
        break;
    }
}

/* Whether the mask lets product (i, j) through. */
__device__ inline bool allowed(const operands &o, uint32_t i, uint32_t j) {
    if (o.mask == MASK_NONE) return true;
    uint64_t lo = o.m_off[i], hi = o.m_off[i + 1];
    const uint64_t end = hi;
    while (lo < hi) {
        const uint64_t mid = lo + (hi - lo) / 2;
        if (o.m_idx[mid] < j) lo = mid + 1;
        else hi = mid;
    }
    const bool in = lo < end && o.m_idx[lo] == j;
    return in == (o.mask == MASK_KEEP);
}

/* A row's column range [*lo, *hi] narrowed, for C<M>, to its mask row's (products outside it are
 * dropped); *lo > *hi when nothing is left. */
__device__ inline void mask_range(const operands &o, uint32_t i, uint32_t *lo, uint32_t *hi) {
    if (o.mask != MASK_KEEP || o.m_off[i] == o.m_off[i + 1]) return;
    *lo = max(*lo, o.m_idx[o.m_off[i]]);
    *hi = min(*hi, o.m_idx[o.m_off[i + 1] - 1]);
}

/* ---- 1. bounds and bins -------------------------------------------------------------------------- */

/* The largest bound of each hash bin in use (the ones the device's shared memory holds), and the
 * shared-memory tile's columns. */
struct bin_limits {
    int bins;
    uint32_t bound[kBins];
    uint32_t tile;
};

/* A warp per row: the bound on its distinct columns, the bin it picks and its id for the sort. */
__global__ void row_bins(operands o, uint32_t rows, bin_limits lim, uint8_t *bin, uint32_t *ids) {
    const uint32_t lane = threadIdx.x % 32;
    const uint64_t warps = (uint64_t)gridDim.x * (blockDim.x / 32);
    for (uint64_t i = ((uint64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32; i < rows; i += warps) {
        /* the flops, and the column range B's sorted rows give */
        uint64_t flops = 0;
        uint32_t lo = UINT32_MAX, hi = 0;
        for (uint64_t e = o.a_off[i] + lane; e < o.a_off[i + 1]; e += 32) {
            const uint32_t k = o.a_idx[e];
            const uint64_t b0 = o.b_off[k], b1 = o.b_off[k + 1];
            flops += b1 - b0;
            if (b0 == b1) continue;
            lo = min(lo, o.b_idx[b0]);
            hi = max(hi, o.b_idx[b1 - 1]);
        }
        for (int d = 16; d > 0; d /= 2) {
            flops += __shfl_down_sync(0xffffffffu, flops, d);
            lo = min(lo, __shfl_down_sync(0xffffffffu, lo, d));
            hi = max(hi, __shfl_down_sync(0xffffffffu, hi, d));
        }
        if (lane != 0) continue;
        mask_range(o, (uint32_t)i, &lo, &hi);
        uint64_t bound = lo <= hi ? (flops < o.cols ? flops : o.cols) : 0;
        if (o.mask != MASK_NONE) {
            const uint64_t m = o.m_off[i + 1] - o.m_off[i];
            const uint64_t cap = o.mask == MASK_KEEP ? m : o.cols - m;
            if (cap < bound) bound = cap;
        }
        uint8_t b = bound == 0                           ? kBinEmpty
                    : (uint64_t)hi - lo + 1 <= lim.tile ? kBinTile
                                                        : kBinWindow;
        for (int t = lim.bins - 1; t >= 0; t--)
            if (bound > 0 && bound <= lim.bound[t]) b = (uint8_t)t;
        bin[i] = b;
        ids[i] = (uint32_t)i;
    }
}

__global__ void bin_histogram(const uint8_t *bin, uint32_t rows, uint32_t *hist) {
    __shared__ uint32_t h[kBinKeys];
    if (threadIdx.x < kBinKeys) h[threadIdx.x] = 0;
    __syncthreads();
    GRID_STRIDE(i, rows) atomicAdd(&h[bin[i]], 1u);
    __syncthreads();
    if (threadIdx.x < kBinKeys && h[threadIdx.x] != 0) atomicAdd(&hist[threadIdx.x], h[threadIdx.x]);
}

/* ---- 2 and 3. the hash bins ---------------------------------------------------------------------- */

/* The threads an A entry of row i gets, out of g: at least u, more when the row has fewer
 * entries than g / u (a row of 2 A entries over long B rows would leave most threads idle). */
__device__ inline uint32_t unit_of(const operands &o, uint32_t i, uint32_t g, uint32_t u) {
    const uint64_t na = o.a_off[i + 1] - o.a_off[i];
    uint32_t units = 1;
    while (units < g / u && units * 2 <= na) units *= 2;
    return g / units;
}

/* Row i's products, split over a group of G threads: units of unit_of(..., U) threads take A's
 * entries in turn, a unit's threads B's row k in strides of the unit. f(j, e, p): column j, A's
 * entry, B's entry. */
template <uint32_t G, uint32_t U, typename F>
__device__ inline void for_products(const operands &o, uint32_t i, uint32_t t, F f) {
    const uint32_t u = unit_of(o, i, G, U), units = G / u;
    const uint32_t unit = t / u, lane = t % u;
    for (uint64_t e = o.a_off[i] + unit; e < o.a_off[i + 1]; e += units) {
        const uint32_t k = o.a_idx[e];
        for (uint64_t p = o.b_off[k] + lane; p < o.b_off[k + 1]; p += u) f(o.b_idx[p], e, p);
    }
}

/* Column j's slot in a table of T slots (inserted if new; *fresh says so). The table never fills:
 * it receives at most T / 2 distinct columns. */
template <uint32_t T> __device__ inline uint32_t insert(uint32_t *keys, uint32_t j, bool *fresh) {
    uint32_t h = (j * 0x9E3779B1u) >> (32 - log2_of(T));
    for (;;) {
        const uint32_t k = reinterpret_cast<volatile uint32_t *>(keys)[h];
        if (k == j) break;
        if (k == kEmpty) {
            const uint32_t seen = atomicCAS(&keys[h], kEmpty, j);
            if (seen == kEmpty) {
                *fresh = true;
                return h;
            }
            if (seen == j) break;
        }
        h = (h + 1) & (T - 1);
    }
    *fresh = false;
    return h;
}

/* Symbolic (NUMERIC false): c_cnt[i] = row i's size. Numeric: row i written sorted at c_off[i]:
 * its n entries gathered to the front of the table (each thread holds its T / G slots in
 * registers meanwhile), then a bitonic sort over the next power of two, not over all T slots
 * (a row's count is often far below its bound). A block holds block_of(G) / G groups, a row each
 * at a time, each with a table of T keys (and T values of V for the numeric pass) and a counter
 * in dynamic shared memory. */
template <uint32_t T, uint32_t G, uint32_t U, bool NUMERIC, typename V>
__global__ void __launch_bounds__(block_of(G))
    spgemm_hash(const operands o, const uint32_t *rows, uint32_t nrows) {
    constexpr uint32_t P = block_of(G) / G;
    extern __shared__ __align__(16) unsigned char smem[];
    const uint32_t g = threadIdx.x / G, t = threadIdx.x % G;
    V *vals = reinterpret_cast<V *>(smem) + (size_t)g * T;
    uint32_t *keys = reinterpret_cast<uint32_t *>(smem + (NUMERIC ? P * T * sizeof(V) : 0)) + (size_t)g * T;
    uint32_t *count = reinterpret_cast<uint32_t *>(smem + P * T * (4 + (NUMERIC ? sizeof(V) : 0))) + g;
    const V identity = identity_of<V>(o.semiring);
    for (uint64_t r = (uint64_t)blockIdx.x * P + g; r < nrows; r += (uint64_t)gridDim.x * P) {
        const uint32_t i = rows[r];
        for (uint32_t s = t; s < T; s += G) {
            keys[s] = kEmpty;
            if (NUMERIC) vals[s] = identity;
        }
        if (t == 0) *count = 0;
        group_sync<G>();
        for_products<G, U>(o, i, t, [&](uint32_t j, uint64_t e, uint64_t p) {
            if (!allowed(o, i, j)) return;
            bool fresh;
            const uint32_t h = insert<T>(keys, j, &fresh);
            if constexpr (NUMERIC)
                combine(o.semiring, &vals[h], value_of<V>(o.a_val, e), value_of<V>(o.b_val, p));
            else if (fresh)
                atomicAdd(count, 1u);
        });
        group_sync<G>();
        if constexpr (!NUMERIC) {
            if (t == 0) o.c_cnt[i] = *count;
        } else {
            constexpr uint32_t kPer = T / G;
            static_assert(kPer * G == T, "a group's threads share the table evenly");
            uint32_t held_key[kPer];
            V held_val[kPer];
#pragma unroll
            for (uint32_t q = 0; q < kPer; q++) {
                held_key[q] = keys[t + q * G];
                held_val[q] = vals[t + q * G];
            }
            group_sync<G>();
#pragma unroll
            for (uint32_t q = 0; q < kPer; q++)
                if (held_key[q] != kEmpty) {
                    const uint32_t at = atomicAdd(count, 1u);
                    keys[at] = held_key[q];
                    vals[at] = held_val[q];
                }
            group_sync<G>();
            /* the symbolic pass's size, by construction; the least of the two bounds the writes */
            const uint64_t sized = o.c_off[i + 1] - o.c_off[i];
            const uint32_t n = *count < sized ? *count : (uint32_t)sized;
            uint32_t span = 1;
            while (span < n) span <<= 1;
            for (uint32_t s = n + t; s < span; s += G) keys[s] = kEmpty;
            group_sync<G>();
            /* bitonic sort of the first span slots by column, the free ones last */
            for (uint32_t k = 2; k <= span; k <<= 1)
                for (uint32_t d = k >> 1; d > 0; d >>= 1) {
                    for (uint32_t s = t; s < span; s += G) {
                        const uint32_t x = s ^ d;
                        if (x <= s) continue;
                        const uint32_t ks = keys[s], kx = keys[x];
                        if ((ks > kx) == ((s & k) == 0)) {
                            keys[s] = kx;
                            keys[x] = ks;
                            const V v = vals[s];
                            vals[s] = vals[x];
                            vals[x] = v;
                        }
                    }
                    group_sync<G>();
                }
            const uint64_t at = o.c_off[i];
            for (uint32_t s = t; s < n; s += G) {
                o.c_idx[at + s] = keys[s];
                if (o.c_val != nullptr) static_cast<V *>(o.c_val)[at + s] = vals[s];
            }
        }
        group_sync<G>(); /* the next row reuses the table */
    }
}

/* Dynamic shared memory of bin b's kernel: the tables and a counter per group. */
size_t hash_shared(int b, bool numeric, size_t value_bytes) {
    const size_t groups = block_of(kGroup[b]) / kGroup[b];
    return groups * kTable[b] * (4 + (numeric ? value_bytes : 0)) + groups * 4;
}

/* ---- the tile path --------------------------------------------------------------------------------- */

/* A block per row: the row's column range [lo, hi] (from B's sorted rows) in windows of `width`
 * columns, a hit flag and (numeric) a value per column: W columns in shared memory, or (GLOBAL)
 * each block's own g_width columns at g_hit / g_vals. The products falling in a window are
 * accumulated there (each B row's first column in it found by binary search), then block scans
 * over the flags, kChunk columns at a time, place the window's entries in column order. */
template <uint32_t W, bool NUMERIC, typename V, bool GLOBAL>
__global__ void __launch_bounds__(kWideThreads)
    spgemm_tiles(const operands o, const uint32_t *rows, uint32_t nrows, uint8_t *g_hit,
                 V *g_vals, uint64_t g_width) {
    using scan_t = cub::BlockScan<uint32_t, kWideThreads>;
    __shared__ typename scan_t::TempStorage scan_tmp;
    __shared__ uint32_t range_lo, range_hi;
    extern __shared__ __align__(16) unsigned char smem[];
    const uint64_t width = GLOBAL ? g_width : W;
    V *vals = GLOBAL ? g_vals + blockIdx.x * g_width : reinterpret_cast<V *>(smem);
    uint8_t *hit = GLOBAL ? g_hit + blockIdx.x * g_width : smem + (NUMERIC ? W * sizeof(V) : 0);
    const uint32_t tid = threadIdx.x;
    const V identity = identity_of<V>(o.semiring);
    for (uint32_t r = blockIdx.x; r < nrows; r += gridDim.x) {
        const uint32_t i = rows[r];
        if (tid == 0) {
            range_lo = UINT32_MAX;
            range_hi = 0;
        }
        __syncthreads();
        for (uint64_t e = o.a_off[i] + tid; e < o.a_off[i + 1]; e += kWideThreads) {
            const uint32_t k = o.a_idx[e];
            if (o.b_off[k] == o.b_off[k + 1]) continue;
            atomicMin(&range_lo, o.b_idx[o.b_off[k]]);
            atomicMax(&range_hi, o.b_idx[o.b_off[k + 1] - 1]);
        }
        __syncthreads();
        uint32_t lo = range_lo, hi = range_hi;
        mask_range(o, i, &lo, &hi); /* as row_bins did: lo <= hi for a row it put here */
        const uint32_t u = unit_of(o, i, kWideThreads, 32), unit = tid / u, lane = tid % u;
        uint64_t written = 0;
        for (uint64_t tlo = lo; tlo <= hi; tlo += width) {
            const uint64_t thi = tlo + width, span = thi <= hi ? width : hi + 1 - tlo;
            for (uint64_t s = tid; s < span; s += kWideThreads) {
                hit[s] = 0;
                if (NUMERIC) vals[s] = identity;
            }
            __syncthreads();
            for (uint64_t e = o.a_off[i] + unit; e < o.a_off[i + 1]; e += kWideThreads / u) {
                const uint32_t k = o.a_idx[e];
                uint64_t first = o.b_off[k], end = o.b_off[k + 1];
                while (first < end) { /* B's row k from the window's first column on */
                    const uint64_t mid = first + (end - first) / 2;
                    if (o.b_idx[mid] < tlo) first = mid + 1;
                    else end = mid;
                }
                for (uint64_t p = first + lane; p < o.b_off[k + 1]; p += u) {
                    const uint32_t j = o.b_idx[p];
                    if (j >= thi) break;
                    if (!allowed(o, i, j)) continue;
                    hit[j - tlo] = 1;
                    if constexpr (NUMERIC)
                        combine(o.semiring, &vals[j - tlo], value_of<V>(o.a_val, e),
                                value_of<V>(o.b_val, p));
                }
            }
            __syncthreads();
            for (uint64_t c = 0; c < span; c += kChunk) {
                uint32_t pos[kItems];
#pragma unroll
                for (uint32_t q = 0; q < kItems; q++) {
                    const uint64_t s = c + tid * kItems + q;
                    pos[q] = s < span ? hit[s] : 0;
                }
                uint32_t total;
                scan_t(scan_tmp).ExclusiveSum(pos, pos, total);
                if constexpr (NUMERIC) {
                    const uint64_t at = o.c_off[i] + written;
#pragma unroll
                    for (uint32_t q = 0; q < kItems; q++) {
                        const uint64_t s = c + tid * kItems + q;
                        if (s >= span || !hit[s]) continue;
                        o.c_idx[at + pos[q]] = (uint32_t)(tlo + s);
                        if (o.c_val != nullptr) static_cast<V *>(o.c_val)[at + pos[q]] = vals[s];
                    }
                }
                written += total;
                __syncthreads(); /* the scan's storage is reused; the next window resets the flags */
            }
        }
        if (!NUMERIC && tid == 0) o.c_cnt[i] = (uint32_t)written;
    }
}

size_t tiles_shared(uint32_t W, bool numeric, size_t value_bytes) {
    return (size_t)W * (1 + (numeric ? value_bytes : 0));
}

/* ---- the host side --------------------------------------------------------------------------------- */

struct widen {
    __host__ __device__ uint64_t operator()(uint32_t x) const { return x; }
};

/* Device memory taken for one call: what is held now and the most held at once, each allocation
 * checked first against what the device has free. */
struct budget {
    size_t live = 0, peak = 0;
    size_t need = 0; /* set when an allocation did not fit: what the call needed at once */
};

struct tracked {
    void *p = nullptr;
    size_t bytes = 0;
    budget *b = nullptr;
    void release() {
        if (p != nullptr) {
            cudaFreeAsync(p, 0);
            b->live -= bytes;
        }
        p = nullptr;
    }
    ~tracked() { release(); }
};

/* What an allocation can have now: the driver's free memory plus what the default stream-ordered
 * pool holds unused (the backend keeps freed memory in it, mg__gpu_keep_pool). */
mg_status device_free(mg_context ctx, size_t *bytes) {
    size_t free_b = 0, total = 0;
    int device = 0;
    cudaMemPool_t pool;
    uint64_t reserved = 0, used = 0;
    CU(cudaMemGetInfo(&free_b, &total));
    CU(cudaGetDevice(&device));
    CU(cudaDeviceGetDefaultMemPool(&pool, device));
    CU(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &reserved));
    CU(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used));
    *bytes = free_b + (size_t)(reserved > used ? reserved - used : 0);
    return MG_SUCCESS;
}

/* Whether `bytes` more fit on the device; else MG_OUT_OF_MEMORY saying what the call needs. */
mg_status fits(mg_context ctx, budget *b, size_t bytes, const char *what) {
    size_t free_b = 0;
    TRY(device_free(ctx, &free_b));
    if (bytes <= free_b) return MG_SUCCESS;
    b->need = b->live + bytes;
    return mg__error(ctx, MG_OUT_OF_MEMORY,
                     "mg_spgemm: the product needs %zu bytes of device memory at once (%zu for %s) "
                     "but the device has %zu free",
                     b->need, bytes, what, free_b);
}

mg_status take(mg_context ctx, budget *b, tracked *t, size_t bytes, const char *what) {
    TRY(fits(ctx, b, bytes, what));
    t->b = b;
    TRY(dalloc(ctx, &t->p, bytes, what));
    t->bytes = bytes;
    b->live += bytes;
    if (b->live > b->peak) b->peak = b->live;
    return MG_SUCCESS;
}

template <uint32_t T, uint32_t G, uint32_t U, bool NUMERIC, typename V>
mg_status launch_hash(mg_context ctx, const operands &o, const uint32_t *rows, uint32_t n, int b) {
    constexpr uint32_t B = block_of(G), P = B / G;
    const size_t shared = hash_shared(b, NUMERIC, sizeof(V));
    auto kernel = spgemm_hash<T, G, U, NUMERIC, V>;
    CU(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shared));
    const uint64_t blocks = ((uint64_t)n + P - 1) / P;
    kernel<<<(unsigned)(blocks < (1u << 30) ? blocks : (1u << 30)), B, shared>>>(o, rows, n);
    LAUNCHED("spgemm_hash");
    return MG_SUCCESS;
}

template <bool NUMERIC, typename V>
mg_status launch_bin(mg_context ctx, int b, const operands &o, const uint32_t *rows, uint32_t n) {
    if (n == 0) return MG_SUCCESS;
    switch (b) {
    case 0: return launch_hash<kTable[0], kGroup[0], kUnit[0], NUMERIC, V>(ctx, o, rows, n, 0);
    case 1: return launch_hash<kTable[1], kGroup[1], kUnit[1], NUMERIC, V>(ctx, o, rows, n, 1);
    case 2: return launch_hash<kTable[2], kGroup[2], kUnit[2], NUMERIC, V>(ctx, o, rows, n, 2);
    case 3: return launch_hash<kTable[3], kGroup[3], kUnit[3], NUMERIC, V>(ctx, o, rows, n, 3);
    case 4: return launch_hash<kTable[4], kGroup[4], kUnit[4], NUMERIC, V>(ctx, o, rows, n, 4);
    default: return launch_hash<kTable[5], kGroup[5], kUnit[5], NUMERIC, V>(ctx, o, rows, n, 5);
    }
}

template <uint32_t W, bool NUMERIC, typename V>
mg_status launch_tiles_w(mg_context ctx, const operands &o, const uint32_t *rows, uint32_t n) {
    const size_t shared = tiles_shared(W, NUMERIC, sizeof(V));
    auto kernel = spgemm_tiles<W, NUMERIC, V, false>;
    CU(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shared));
    kernel<<<n < (1u << 30) ? n : (1u << 30), kWideThreads, shared>>>(o, rows, n, nullptr, nullptr, 0);
    LAUNCHED("spgemm_tiles");
    return MG_SUCCESS;
}

/* The widest rows: in `slots` global windows of `width` columns at hit / vals when there are
 * some, else in shared-memory tiles. */
template <bool NUMERIC, typename V>
mg_status launch_tiles(mg_context ctx, uint32_t tile, const operands &o, const uint32_t *rows,
                       uint32_t n, uint32_t slots, uint8_t *hit, V *vals, uint64_t width) {
    if (n == 0) return MG_SUCCESS;
    if (slots > 0) {
        spgemm_tiles<kWideTile, NUMERIC, V, true><<<slots, kWideThreads>>>(o, rows, n, hit, vals, width);
        LAUNCHED("spgemm_tiles");
        return MG_SUCCESS;
    }
    if (tile == kWideTile) return launch_tiles_w<kWideTile, NUMERIC, V>(ctx, o, rows, n);
    return launch_tiles_w<kNarrowTile, NUMERIC, V>(ctx, o, rows, n);
}

/* The shared memory a block may have (opt-in), less what a kernel declares statically. */
template <typename K> mg_status shared_room(mg_context ctx, K kernel, size_t *room) {
    int device = 0, optin = 0;
    cudaFuncAttributes attr;
    CU(cudaGetDevice(&device));
    CU(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    CU(cudaFuncGetAttributes(&attr, kernel));
    *room = (size_t)optin > attr.sharedSizeBytes ? (size_t)optin - attr.sharedSizeBytes : 0;
    return MG_SUCCESS;
}

/* The passes over device operands o (rows x cols), C's arrays left in c_off / c_idx / c_val and
 * its size in *nnz. V is the arithmetic's type (float also for a pattern product: its values are
 * never written). */
template <typename V>
mg_status run_passes(mg_context ctx, operands o, uint32_t rows, size_t value_bytes, budget *bud,
                     tracked *c_off, tracked *c_idx, tracked *c_val, uint64_t *nnz) {
    /* which bins the device's shared memory holds, and the tile width */
    size_t room = 0;
    TRY(shared_room(ctx, spgemm_hash<kTable[kBins - 1], kGroup[kBins - 1], kUnit[kBins - 1], true, V>,
                    &room));
    bin_limits lim;
    lim.bins = 0;
    while (lim.bins < kBins && hash_shared(lim.bins, true, sizeof(V)) <= room) {
        lim.bound[lim.bins] = kTable[lim.bins] / 2;
        lim.bins++;
    }
    const int bins = lim.bins;
    TRY(shared_room(ctx, spgemm_tiles<kWideTile, true, V, false>, &room));
    lim.tile = tiles_shared(kWideTile, true, sizeof(V)) <= room ? kWideTile : kNarrowTile;

    /* 1. bounds, bins, the rows listed by bin */
    tracked bin_in, bin_out, ids_in, ids, hist, temp;
    TRY(take(ctx, bud, &bin_in, rows, "the rows' bins"));
    TRY(take(ctx, bud, &bin_out, rows, "the rows' bins"));
    TRY(take(ctx, bud, &ids_in, (size_t)rows * 4, "the rows listed by bin"));
    TRY(take(ctx, bud, &ids, (size_t)rows * 4, "the rows listed by bin"));
    TRY(take(ctx, bud, &hist, kBinKeys * 4, "the bins' sizes"));
    CU(cudaMemsetAsync(hist.p, 0, kBinKeys * 4, 0));
    row_bins<<<blocks_for((uint64_t)rows * 32), kThreads>>>(o, rows, lim, (uint8_t *)bin_in.p,
                                                            (uint32_t *)ids_in.p);
    LAUNCHED("row_bins");
    bin_histogram<<<blocks_for(rows), kThreads>>>((const uint8_t *)bin_in.p, rows, (uint32_t *)hist.p);
    LAUNCHED("bin_histogram");
    size_t bytes = 0;
    CU(cub::DeviceRadixSort::SortPairs(nullptr, bytes, (const uint8_t *)bin_in.p, (uint8_t *)bin_out.p,
                                       (const uint32_t *)ids_in.p, (uint32_t *)ids.p, (int)rows, 0,
                                       kBinBits));
    TRY(take(ctx, bud, &temp, bytes, "the rows' sort by bin"));
    CU(cub::DeviceRadixSort::SortPairs(temp.p, bytes, (const uint8_t *)bin_in.p, (uint8_t *)bin_out.p,
                                       (const uint32_t *)ids_in.p, (uint32_t *)ids.p, (int)rows, 0,
                                       kBinBits));
    uint32_t count[kBinKeys];
    CU(cudaMemcpy(count, hist.p, sizeof count, cudaMemcpyDeviceToHost));
    temp.release();
    bin_in.release();
    bin_out.release();
    ids_in.release();
    uint32_t first[kBinKeys + 1] = {0};
    for (int b = 0; b < kBinKeys; b++) first[b + 1] = first[b] + count[b];
    const uint32_t *by_bin = (const uint32_t *)ids.p;

    /* The widest ranges' global windows: a row's whole range in one where the budget allows,
     * else as many columns as it does; too few for more than a shared tile: shared tiles. */
    tracked win_hit, win_vals;
    uint32_t slots = 0;
    uint64_t width = 0;
    if (count[kBinWindow] > 0) {
        size_t free_b = 0;
        int device = 0, sms = 0;
        TRY(device_free(ctx, &free_b));
        CU(cudaGetDevice(&device));
        CU(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
        const size_t budget = free_b / kWindowShare < kWindowMax ? free_b / kWindowShare : kWindowMax;
        const uint64_t column = 1 + sizeof(V), most = count[kBinWindow] < (uint32_t)sms ? count[kBinWindow] : sms;
        uint64_t fit = budget / ((uint64_t)o.cols * column);
        fit = fit < 1 ? 1 : fit > most ? most : fit;
        width = budget / fit / column < o.cols ? budget / fit / column : o.cols;
        if (width > lim.tile) {
            slots = (uint32_t)fit;
            TRY(take(ctx, bud, &win_hit, (size_t)(slots * width), "the widest rows' windows"));
            TRY(take(ctx, bud, &win_vals, (size_t)(slots * width * sizeof(V)), "the widest rows' windows"));
        }
    }
    uint8_t *const w_hit = (uint8_t *)win_hit.p;
    V *const w_vals = (V *)win_vals.p;

    /* 2. symbolic: each row's size (0 for the rows left out), then C's offsets */
    tracked cnt;
    TRY(take(ctx, bud, &cnt, ((size_t)rows + 1) * 4, "C's row sizes"));
    CU(cudaMemsetAsync(cnt.p, 0, ((size_t)rows + 1) * 4, 0));
    o.c_cnt = (uint32_t *)cnt.p;
    for (int b = 0; b < bins; b++)
        TRY((launch_bin<false, V>(ctx, b, o, by_bin + first[b], count[b])));
    TRY((launch_tiles<false, V>(ctx, lim.tile, o, by_bin + first[kBinTile], count[kBinTile], 0,
                                nullptr, nullptr, 0)));
    TRY((launch_tiles<false, V>(ctx, lim.tile, o, by_bin + first[kBinWindow], count[kBinWindow],
                                slots, w_hit, w_vals, width)));
    TRY(take(ctx, bud, c_off, ((size_t)rows + 1) * 8, "C's row offsets"));
    const auto sizes = thrust::make_transform_iterator((const uint32_t *)cnt.p, widen{});
    CU(cub::DeviceScan::ExclusiveSum(nullptr, bytes, sizes, (uint64_t *)c_off->p, (int64_t)rows + 1));
    TRY(take(ctx, bud, &temp, bytes, "the scan of C's row sizes"));
    CU(cub::DeviceScan::ExclusiveSum(temp.p, bytes, sizes, (uint64_t *)c_off->p, (int64_t)rows + 1));
    CU(cudaMemcpy(nnz, (uint64_t *)c_off->p + rows, 8, cudaMemcpyDeviceToHost));
    temp.release();
    cnt.release();
    o.c_cnt = nullptr;

    /* 3. numeric: C at its size, every row written sorted */
    const uint64_t n = *nnz;
    if (n > (uint64_t)(SIZE_MAX / 16))
        return mg__error(ctx, MG_OUT_OF_MEMORY, "mg_spgemm: C would have %llu entries",
                         (unsigned long long)n);
    char what[64];
    snprintf(what, sizeof what, "C's %llu entries", (unsigned long long)n);
    TRY(fits(ctx, bud, (size_t)n * (4 + value_bytes), what));
    TRY(take(ctx, bud, c_idx, (size_t)n * 4, "C's column indices"));
    if (value_bytes > 0) TRY(take(ctx, bud, c_val, (size_t)n * value_bytes, "C's values"));
    o.c_off = (const uint64_t *)c_off->p;
    o.c_idx = (uint32_t *)c_idx->p;
    o.c_val = c_val->p;
    for (int b = 0; b < bins; b++)
        TRY((launch_bin<true, V>(ctx, b, o, by_bin + first[b], count[b])));
    TRY((launch_tiles<true, V>(ctx, lim.tile, o, by_bin + first[kBinTile], count[kBinTile], 0,
                               nullptr, nullptr, 0)));
    TRY((launch_tiles<true, V>(ctx, lim.tile, o, by_bin + first[kBinWindow], count[kBinWindow],
                               slots, w_hit, w_vals, width)));
    return MG_SUCCESS;
}

/* An operand's device CSR and its values in the arithmetic's type (NULL when a pattern or when
 * the product needs no values). */
mg_status device_operand(mg_context ctx, const mg_matrix X, mg_type t, bool values,
                         const uint64_t **off, const uint32_t **idx, const void **val) {
    mg__gpu_matrix *g = nullptr;
    mg__spmv_form *f = nullptr;
    TRY(mg__gpu_matrix_of(ctx, X, false, &g, &f));
    *off = f->d_off;
    *idx = f->d_idx;
    *val = nullptr;
    if (values) TRY(mg__gpu_form_values(ctx, g, f, t, val));
    return MG_SUCCESS;
}

} // namespace

extern "C" mg_status mg__gpu_spgemm(mg_context ctx, const mg_matrix A, const mg_matrix B,
                                    mg_matrix *C, const mg_spgemm_options *opts) {
    mg_status status = MG_SUCCESS;
    const auto t0 = std::chrono::steady_clock::now();
    const bool pattern = opts->semiring == MG_SEMIRING_OR_AND && A->values == MG_VALUES_NONE &&
                         B->values == MG_VALUES_NONE;
    const bool single = A->values == MG_VALUES_FLOAT && B->values == MG_VALUES_FLOAT;
    const mg_values out_type = pattern ? MG_VALUES_NONE : single ? MG_VALUES_FLOAT : MG_VALUES_DOUBLE;
    const size_t value_bytes = out_type == MG_VALUES_DOUBLE ? 8 : out_type == MG_VALUES_FLOAT ? 4 : 0;
    const uint32_t rows = A->rows;
    budget bud;
    tracked c_off, c_idx, c_val;
    uint64_t nnz = 0;
    mg_matrix M = nullptr;

    /* A product with no flops is C's empty rows: no device work. */
    if (rows > 0 && A->nnz > 0 && B->nnz > 0) {
        operands o;
        memset(&o, 0, sizeof o);
        o.semiring = (int)opts->semiring;
        o.cols = B->cols;
        const mg_type t = single || pattern ? MG_FLOAT : MG_DOUBLE;
        MG__TRY(device_operand(ctx, A, t, !pattern, &o.a_off, &o.a_idx, &o.a_val));
        MG__TRY(device_operand(ctx, B, t, !pattern, &o.b_off, &o.b_idx, &o.b_val));
        o.mask = MASK_NONE;
        if (opts->mask != nullptr) {
            const void *unused;
            MG__TRY(device_operand(ctx, opts->mask, t, false, &o.m_off, &o.m_idx, &unused));
            o.mask = opts->complement ? MASK_SKIP : MASK_KEEP;
        }
        if (t == MG_FLOAT)
            status = run_passes<float>(ctx, o, rows, value_bytes, &bud, &c_off, &c_idx, &c_val, &nnz);
        else
            status = run_passes<double>(ctx, o, rows, value_bytes, &bud, &c_off, &c_idx, &c_val, &nnz);
        if (status != MG_SUCCESS) goto cleanup;
    }

    M = static_cast<mg_matrix>(mg__calloc(1, sizeof *M));
    if (M == nullptr) MG__FAIL(ctx, MG_OUT_OF_MEMORY, "mg_spgemm: out of memory allocating C");
    M->magic = MG__MAGIC_MATRIX;
    M->owns_csr = true;
    M->owns_csc = true;
    M->csr.offsets = static_cast<uint64_t *>(mg__calloc((size_t)rows + 1, sizeof(uint64_t)));
    M->csr.indices = static_cast<uint32_t *>(mg__malloc(mg__mul_size((size_t)nnz, 4)));
    if (value_bytes > 0) M->csr.weights = mg__malloc(mg__mul_size((size_t)nnz, value_bytes));
    if (M->csr.offsets == nullptr || M->csr.indices == nullptr ||
        (value_bytes > 0 && M->csr.weights == nullptr))
        MG__FAIL(ctx, MG_OUT_OF_MEMORY,
                 "mg_spgemm: out of host memory for C: %llu entries need %.0f bytes",
                 (unsigned long long)nnz, (double)nnz * (double)(4 + value_bytes) + 8.0 * rows);
    if (c_off.p != nullptr) {
        cudaError_t e = cudaMemcpy(M->csr.offsets, c_off.p, ((size_t)rows + 1) * 8, cudaMemcpyDeviceToHost);
        if (e == cudaSuccess && nnz > 0)
            e = cudaMemcpy(M->csr.indices, c_idx.p, (size_t)nnz * 4, cudaMemcpyDeviceToHost);
        if (e == cudaSuccess && nnz > 0 && value_bytes > 0)
            e = cudaMemcpy(M->csr.weights, c_val.p, (size_t)nnz * value_bytes, cudaMemcpyDeviceToHost);
        if (e != cudaSuccess) {
            status = cu_fail(ctx, e, "mg_spgemm", "copying C to the host");
            goto cleanup;
        }
    }
    M->rows = rows;
    M->cols = B->cols;
    M->nnz = nnz;
    M->values = out_type;
    M->index_base = A->index_base;
    M->build_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    *C = M;
    M = nullptr;

cleanup:
    if (opts->device_bytes != nullptr)
        *opts->device_bytes = status == MG_SUCCESS ? bud.peak : bud.need;
    mg_matrix_free(&M);
    return status;
}
