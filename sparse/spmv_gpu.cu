/*
 * spmv_gpu.cu — SpMV on the device over four semirings: a matrix's device form (sparse/spmv_gpu.h),
 * built once and cached on the matrix, and the row-binned CSR kernels.
 *
 * Rows of at most kLongRow entries go to the CSR-stream kernel (spmv_stream, below): row blocks
 * of about a bucket of entries each, read coalesced into shared memory and reduced per row there, so
 * short and medium rows alike read full cache lines with every lane busy. Measured on the H100
 * (docs/PERFORMANCE.md) it beat the adaptive CSR-vector kernel (lanes per row from the mean row
 * length) this file had first on 16 of 18 generated matrices, by up to 1.7x on R-MAT, so it is the
 * only one. Longer rows are cut into chunks of kChunk entries, one thread block each in the same
 * launch, the last of a row's chunks to finish combining them (a single dense row of 100k entries
 * spreads over 49 blocks). One launch a product: a matrix with long rows had three (chunks, then
 * their combination), which cost 9-20 us on matrices of 10k-850k entries (rajat01 0.42x -> 1.49x
 * cuSPARSE, R-MAT 15 0.51x -> 1.14x, A/B on the H100). The row blocks and chunk lists are made
 * with the rest of the SpMV layout on the first SpMV or CG call (mg__gpu_spmv_form_of), not with
 * the upload (SpMM, SDDMM and SpGEMM read the CSR alone): on the host for a small matrix, else by
 * one cooperative launch.
 *
 * Tried and dropped (docs/PERFORMANCE.md, session 12): 16-bit column offsets for the blocks whose
 * columns span less than 2^16 (2 bytes an entry less: 5% slower, the same binary on and off),
 * and again in session 18 as a kernel of its own for the short form (16-bit offsets from each
 * aligned run of 4096 entries' least column, no per-block branch): A/B on the 16M-64M stencils,
 * banded and block-diagonal matrices, float 25-40% slower, double 10-20% (a 16-bit load a lane
 * is as many requests for half the bytes);
 * 2048-entry buckets (fp32 stencils faster, fp64 slower: half the resident blocks); 4096-entry
 * tiles of 512 threads (slower everywhere); the row starts staged in shared memory in the entries'
 * round of loads (slower in an A/B, tools/gpu-ab.sh); the entries read in aligned quads with 16-byte
 * loads, a quarter of the load instructions (A/B: 5-10% slower in float, 10-20% in double on the
 * 16M-64M matrices: more registers a thread); blocks of over 128 rows given a lane a row, their
 * column ids and values staged in shared memory so that on a stencil neighbouring lanes gather
 * neighbouring entries of x (A/B, session 14: Poisson 3D 16M 9% slower in float, 9% in double,
 * uniform 1M x 16 22% slower, dblp-2010 and wave 10% slower); the load rounds past a block's end skipped
 * by a block-uniform branch instead of predicated off lane by lane (ncu, banded 64M: 24 of 32
 * threads a warp not predicated off, 25% more instructions than cuSPARSE's kernel for the same
 * DRAM bytes), A/B: block-diagonal 64M 17% faster in float, the stencils 4-12% slower; the
 * most-read columns' x in shared memory, read by persistent blocks of four teams (session 29: on
 * R-MAT 19 / 21 1.2-1.5x slower, the shared memory taking from L1 what the hubs saved the L2).
 *
 * The short form: a matrix of at least half a bucket per multiprocessor whose rows all have at
 * most kShortRow entries (stencils, meshes, banded and block-diagonal matrices) takes tiles of
 * kShortTile<T> entries (4096 float, 1536 double: the bucket is the tile less kShortRow, so no
 * load round is spent on a long row's overhang), 32-bit row offsets (cuSPARSE's own: 0.8 bytes an
 * entry less on a 2D stencil) and spmv_stream_pipelined, a persistent grid whose blocks issue the
 * next tile's loads, its entries and its row offsets, before reducing the current one (the offsets
 * staged in shared memory: read from global memory in the reduction they were a dependent round
 * trip per round of rows, four on a 2D stencil's 800-row tiles; A/B on the H100, session 16:
 * Poisson 2D 64M float 0.91 -> 1.03x cuSPARSE, double 1.15 -> 1.28x, Poisson 3D 64M float 0.92 ->
 * 1.00x). Measured on the H100 on the 16M-64M
 * stencils, banded and block-diagonal matrices (docs/PERFORMANCE.md, session 16): float
 * 0.80-0.87x -> 0.89-1.06x the best cuSPARSE algorithm, double 0.88-0.99x -> 1.07-1.14x. The tile
 * sizes are what that sweep picked: float tiles of 1024-1536 lost 5-20% even pipelined, double
 * tiles of 2048 lost 5-10% to 1280-1536 (fewer resident blocks).
 *
 * The entries are read with streaming loads (__ldcs: evict first), so a product whose x fits in L2
 * keeps it there while 100s of MB of entries stream past (A/B, session 14: uniform 4M x 16 in
 * double 0.953 -> 0.825 ms, block-diagonal 64M in double 0.345 -> 0.321; the rest within 2%).
 *
 * The diagonal form: a matrix of at least kHostFormRows rows whose entries lie on at most
 * kMaxDiagonals diagonals (col - row) filling most of their slots (stencils, banded matrices) is
 * stored by diagonal instead of binned (form_shaped): diagonal d's values in rows 0..n-1, 0 where a
 * row has no entry there, and a presence bit an entry. spmv_diag gives a thread a row: every load
 * is coalesced and an entry costs its value and a bit, 4.1 bytes in float where the CSR's minimum is
 * 8 + 4 rows / nnz (its column id, its value and the row offsets), 8.1 in double against 12 +; so it
 * runs above the probe's bandwidth by the CSR's byte count. Measured on the H100 against the best
 * cuSPARSE algorithm (session 24): Poisson 2D and 3D and 33-diagonal bands of 16M-64M entries
 * 0.96-1.04x -> 1.50-1.77x in float, 1.14-1.27x -> 1.51-1.75x in double.
 *
 * The profile form: a matrix that is not on few diagonals but whose every row is one run of
 * consecutive columns (block-diagonal matrices, variable bands), of 8 entries a row or more on
 * average, keeps the CSR's offsets and values and replaces the column ids by each row's first
 * column (form_shaped); spmv_profile gives a row a group of lanes, which read its values as
 * 16-byte vectors. Block-diagonal matrices of 16M-64M entries: 0.98-1.01x the best cuSPARSE
 * algorithm as CSR, 1.59-1.88x in this form (H100, session 25).
 *
 * Hub-first columns: a float matrix of at least kHubFirstNnz entries on the stream form whose most-read
 * columns are spread over its numbering (R-MAT, power-law graphs) keeps a second copy of its entries
 * with the columns numbered by falling count and each row's entries sorted by the new ids
 * (form_hub_first); each float product first copies x into that order. The L1 then holds the hubs'
 * lines, and a long row's hubs share its warps' gathers: R-MAT 21 in float 0.89-0.90x -> 1.09x the
 * best cuSPARSE algorithm (H100, session 30).
 *
 * Rows of nearly one length (at least 8 entries on average, none over twice the mean: uniform
 * matrices, some FEM meshes) take spmv_vector, CSR-vector with a group of lanes a row, and keep no
 * row blocks (form_bins decides, from the longest row it finds anyway).
 *
 * Float arithmetic accumulates in float within a row (chunk partials in double), double in double.
 */
#include <cuda_runtime.h>
#include <cub/cub.cuh>
#include <cuda/functional>
#include <cooperative_groups.h>

#include <math.h>

#include <algorithm>
#include <atomic>
#include <type_traits>

extern "C" {
#include "mg_internal.h"
#include "gpu_resident.h"
}
#include "frontier/gpu_engine.h"
#include "sparse/sparse_internal.h"
#include "sparse/spmv_gpu.h"

namespace {

#include "gpu_util.cuh"

constexpr unsigned kFull = 0xffffffffu;

/* ---- semirings ---------------------------------------------------------------------------------- */

template <typename T, int SR> struct semiring;
template <typename T> struct semiring<T, MG_SEMIRING_PLUS_TIMES> {
    __device__ static T zero() { return T(0); }
    __device__ static T mul(T a, T x) { return a * x; }
    __device__ static T add(T a, T b) { return a + b; }
};
template <typename T> struct semiring<T, MG_SEMIRING_MIN_PLUS> {
    __device__ static T zero() { return T(INFINITY); }
    __device__ static T mul(T a, T x) { return a + x; }
    __device__ static T add(T a, T b) { return fmin(a, b); }
};
template <typename T> struct semiring<T, MG_SEMIRING_MAX_TIMES> {
    __device__ static T zero() { return T(-INFINITY); }
    __device__ static T mul(T a, T x) { return a * x; }
    __device__ static T add(T a, T b) { return fmax(a, b); }
};
template <typename T> struct semiring<T, MG_SEMIRING_OR_AND> {
    __device__ static T zero() { return T(0); }
    __device__ static T mul(T a, T x) { return (a != T(0) && x != T(0)) ? T(1) : T(0); }
    __device__ static T add(T a, T b) { return (a != T(0) || b != T(0)) ? T(1) : T(0); }
};

/* The value a row's reduction `sum` leaves in y: alpha/beta for plus-times; the other semirings
 * take alpha 1 and beta 0 or 1 (y (+)= A x). beta 0 never reads y. */
template <typename T, int SR>
__device__ inline T finish(T sum, T alpha, T beta, const T *y, uint64_t row) {
    if (SR == MG_SEMIRING_PLUS_TIMES) {
        const T ax = alpha * sum;
        return beta != T(0) ? ax + beta * y[row] : ax;
    }
    return beta != T(0) ? semiring<T, SR>::add(y[row], sum) : sum;
}

/* The product's operand as the kernels read it: x[j] where a row reads column j, with the hooks
 * CG uses (spmv_gpu.h, mg__cg_step) to fold its direction update into the product. proceed() is
 * called once by every thread before it reads the operand or writes anything (the matrix's loads
 * may come first; false: the block returns); own(i, out, acc) by the thread that writes y[i] = out,
 * adding to its sums `acc`; flush(acc) by every thread of the block at its end. */
template <typename T> struct gather_x {
    static constexpr bool kChained = false;
    struct acc {};
    const T *__restrict__ x;
    __device__ bool proceed() { return true; }
    __device__ T operator()(uint32_t j) const { return __ldg(x + j); }
    __device__ void own(uint32_t, T, acc &) const {}
    __device__ void flush(acc &) const {}
};

/* CG's p = z + beta p_old, gathered where it is read; the row owner stores p[i] for the vector
 * update, adds p_i q_i to p'q and applies the previous iteration's step x[i] += alpha p_old[i]
 * (cg_update would otherwise read x and p and write x again: one vector pass of ten less, 4-6% of an
 * iteration at 50M entries). beta = rz[k] / rz[k-1], alpha = rz[k-1] / pq[k-1] and the convergence
 * test on rr[k] are read by every block (all agree, so all return together); iteration 0 has beta 0
 * and no step (p_old is zero then).
 * CG's launches depend on each other through device memory only, so they are chained
 * (launch_chained, gpu_util.cuh): proceed() waits for the launch before to end, and the kernels
 * issue their matrix loads before it. */
template <typename T> struct gather_cg {
    static constexpr bool kChained = true;
    struct acc {
        double v[1];
    };
    const T *__restrict__ z;
    const T *__restrict__ p_old;
    T *p_new, *x;
    const double *rz, *rr; /* rz[k] and rr[k]; rz[k - 1] is rz[-1] */
    double *pq;            /* pq[k]; pq[k - 1] is pq[-1] */
    double threshold;
    int *flag;
    int iter;
    T beta, alpha;
    __device__ bool proceed() {
        chain_wait();
        if (flag[0] != MG__CG_RUNNING) return false;
        if (iter == 0) {
            beta = alpha = T(0);
            return true;
        }
        alpha = (T)(rz[-1] / pq[-1]); /* cg_update checked it */
        const double r2 = *rr, b = rz[0] / rz[-1];
        const bool converged = r2 <= threshold;
        const bool bad = !converged && (!isfinite(r2) || !isfinite(b));
        if (converged || bad) {
            if (blockIdx.x == 0 && threadIdx.x == 0) {
                flag[0] = converged ? MG__CG_CONVERGED : MG__CG_BREAKDOWN_SCALAR;
                flag[1] = iter;
            }
            return false;
        }
        beta = (T)b;
        return true;
    }
    /* the same rounding wherever it is evaluated: one fused multiply-add */
    __device__ T operator()(uint32_t j) const { return fma(beta, __ldg(p_old + j), __ldg(z + j)); }
    __device__ void own(uint32_t i, T q, acc &a) const {
        const T po = __ldg(p_old + i), p = fma(beta, po, __ldg(z + i));
        if (iter != 0) x[i] = fma(alpha, po, x[i]);
        p_new[i] = p;
        a.v[0] += (double)p * (double)q;
    }
    __device__ void flush(acc &a) const {
        double *const dst[1] = {pq};
        block_sums_add<1>(a.v, dst);
    }
};

/* Row `row`'s result out, stored, and handed to the operand's owner hook (CG). */
template <typename T, typename G>
__device__ inline void store_row(const G &g, T *y, uint32_t row, T out, typename G::acc &acc) {
    y[row] = out;
    g.own(row, out, acc);
}

/* ---- kernels -------------------------------------------------------------------------------------- */

/* The long rows' chunks as the stream launch sees them (the form's arrays, spmv_gpu.h). */
struct Chunks {
    const uint32_t *long_of;  /* per chunk: its long row's index j */
    const uint64_t *begin;    /* per chunk: its first entry */
    const uint32_t *rows;     /* per long row: the row */
    const uint32_t *first;    /* per long row, + 1: its first chunk */
    double *partial;          /* per chunk */
    uint32_t *arrive;         /* per long row: its chunks done this call (0 between calls) */
};


/* Chunk c of a long row (a block of the stream launch past its row blocks): a row of one chunk is
 * written at once; otherwise each chunk leaves its sum in partial[] and the row's last chunk to
 * arrive (a counter per row, put back to 0 by that chunk for the next call) combines them in
 * chunk order, in double, so the result does not depend on which came last. */
template <typename T, bool PATTERN, int SR, typename O, typename G>
__device__ void spmv_chunk(const O *__restrict__ off, const uint32_t *__restrict__ idx,
                           const T *__restrict__ val, const G &x, T *__restrict__ y,
                           const Chunks &ch, uint32_t c, T alpha, T beta) {
    typedef semiring<T, SR> S;
    __shared__ T warp_sums[kStreamThreads / 32];
    const uint32_t j = ch.long_of[c], row = ch.rows[j];
    const uint32_t first = ch.first[j], count = ch.first[j + 1] - first;
    const uint64_t b = ch.begin[c], row_end = off[row + 1];
    const uint64_t e = b + kChunk < row_end ? b + kChunk : row_end;
    T sum = S::zero();
#pragma unroll 4
    for (uint64_t k = b + threadIdx.x; k < e; k += kStreamThreads) {
        const T xv = x(__ldcs(idx + k));
        sum = S::add(sum, S::mul(PATTERN ? T(1) : __ldcs(val + k), xv));
    }
    for (int o = 16; o > 0; o >>= 1) sum = S::add(sum, __shfl_down_sync(kFull, sum, o));
    if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x >> 5] = sum;
    __syncthreads();
    typename G::acc acc{};
    if (threadIdx.x == 0) {
        T s = S::zero();
        for (int w = 0; w < kStreamThreads / 32; w++) s = S::add(s, warp_sums[w]);
        bool done = count == 1;
        double total = (double)s;
        if (!done) {
            ch.partial[c] = total;
            __threadfence(); /* the sum is visible before the arrival that counts it */
            done = atomicAdd(ch.arrive + j, 1u) == count - 1;
            if (done) {
                typedef semiring<double, SR> D;
                total = D::zero();
                for (uint32_t k = first; k < first + count; k++) total = D::add(total, __ldcg(ch.partial + k));
                ch.arrive[j] = 0;
            }
        }
        if (done) store_row(x, y, row, finish<T, SR>((T)total, alpha, beta, y, row), acc);
    }
    x.flush(acc);
}

/* A tile's entries e0 .. e0 + len into registers: kPer independent loads of each array a thread. */
template <typename T, bool PATTERN, int kPer>
__device__ inline void load_tile(const uint32_t *__restrict__ idx, const T *__restrict__ val, uint64_t e0,
                                 uint32_t len, uint32_t (&col)[kPer], T (&a)[kPer]) {
#pragma unroll
    for (int i = 0; i < kPer; i++) {
        const uint32_t k = threadIdx.x + i * kStreamThreads;
        if (k < len) col[i] = __ldcs(idx + e0 + k);
    }
#pragma unroll
    for (int i = 0; i < kPer; i++) {
        const uint32_t k = threadIdx.x + i * kStreamThreads;
        if (k < len) a[i] = PATTERN ? T(1) : __ldcs(val + e0 + k);
    }
}

/* The loaded tile's products into shared memory. */
template <typename T, int SR, int kPer, typename G>
__device__ inline void tile_products(const G &x, uint32_t len, const uint32_t (&col)[kPer],
                                     const T (&a)[kPer], T *prod) {
#pragma unroll
    for (int i = 0; i < kPer; i++) {
        const uint32_t k = threadIdx.x + i * kStreamThreads;
        if (k < len) prod[k] = semiring<T, SR>::mul(a[i], x(col[i]));
    }
}

/* Rows rs .. re of a tile whose products (from entry e0 on) are in prod[], reduced and stored.
 * Pass 1: a group of lanes per row, sized to the block's rows; a row longer than kSerial entries
 * a lane is left to pass 2 (an R-MAT hub among hundreds of short rows kept one lane adding up to
 * 1024 products while the block waited: 2.2x the mean block time on R-MAT 15), unless it has at
 * most own_floor entries (the short form's 4096-entry float tiles give a banded matrix's 33-entry
 * rows 2 lanes: all of them in pass 2 made it 1.4x slower). Pass 2: a warp per longer row.
 * `longer` holds TILE / kSerial rows; *nlonger is 0 on entry (the caller's __syncthreads between
 * its reset and this call). */
template <typename T, int SR, uint32_t TILE, typename O, typename G>
__device__ inline void reduce_tile(const O *__restrict__ roff, uint32_t rs, uint32_t rows, uint64_t e0,
                                   const T *prod, uint32_t *longer, uint32_t *nlonger, const G &x,
                                   T *__restrict__ y, T alpha, T beta, typename G::acc &acc,
                                   uint32_t own_floor) {
    typedef semiring<T, SR> S;
    /* The lanes a row gets, a power of two: 32 halved until the groups cover the rows. Over half a
     * block's threads in rows is one lane at once: halving with a division a step, the loop was a
     * fifth of the kernel's instructions on dblp-2010 (ncu, session 27). */
    int lanes = rows > kStreamThreads / 2 ? 1 : 32;
    while (lanes > 1 && (uint32_t)(kStreamThreads / lanes) < rows) lanes >>= 1;
    const uint32_t groups = kStreamThreads / lanes, g = threadIdx.x / lanes;
    const uint32_t lane = threadIdx.x & (lanes - 1);
    const uint32_t most = lanes == 32 ? TILE : max((uint32_t)lanes * kSerial, own_floor);
    for (uint32_t first = 0; first < rows; first += groups) {
        const uint32_t r = first + g;
        T sum = S::zero();
        bool mine = false;
        if (r < rows) {
            const uint32_t b = (uint32_t)(roff[r] - e0), e = (uint32_t)(roff[r + 1] - e0);
            mine = e - b <= most;
            if (mine)
                for (uint32_t k = b + lane; k < e; k += lanes) sum = S::add(sum, prod[k]);
            else if (lane == 0)
                longer[atomicAdd(nlonger, 1u)] = r;
        }
        for (int o = lanes >> 1; o > 0; o >>= 1) sum = S::add(sum, __shfl_down_sync(kFull, sum, o, lanes));
        if (mine && lane == 0)
            store_row(x, y, rs + r, finish<T, SR>(sum, alpha, beta, y, rs + r), acc);
    }
    __syncthreads();
    for (uint32_t i = threadIdx.x / 32; i < *nlonger; i += kStreamThreads / 32) {
        const uint32_t r = longer[i];
        const uint32_t b = (uint32_t)(roff[r] - e0), e = (uint32_t)(roff[r + 1] - e0);
        T sum = S::zero();
        for (uint32_t k = b + (threadIdx.x & 31); k < e; k += 32) sum = S::add(sum, prod[k]);
        for (int o = 16; o > 0; o >>= 1) sum = S::add(sum, __shfl_down_sync(kFull, sum, o));
        if ((threadIdx.x & 31) == 0)
            store_row(x, y, rs + r, finish<T, SR>(sum, alpha, beta, y, rs + r), acc);
    }
}

/* CSR-stream (Greathouse and Daga's CSR-Adaptive): one thread block a row block, the rows whose
 * first entry falls in one bucket of nonzeros (so a block holds at most TILE entries: a bucket's
 * worth plus the last row's overhang, no row being longer than the form's long_len). Its entries
 * are read once, coalesced, TILE / kStreamThreads independent loads a thread in flight, their
 * products staged in shared memory; then each row is reduced from there by a group of lanes sized
 * to the block's rows. A block of one long row (blk_row's boundary around it) is left to the chunk
 * kernels. */
template <typename T, bool PATTERN, int SR, uint32_t TILE, typename O, typename G>
__global__ void __launch_bounds__(kStreamThreads)
spmv_stream(const O *__restrict__ off, const uint32_t *__restrict__ idx,
            const T *__restrict__ val, G x, T *__restrict__ y,
            const uint32_t *__restrict__ blk_row, uint32_t nblk, uint32_t long_len, Chunks chunks,
            T alpha, T beta) {
    if (blockIdx.x >= nblk) {
        if (x.proceed()) spmv_chunk<T, PATTERN, SR, O>(off, idx, val, x, y, chunks, blockIdx.x - nblk, alpha, beta);
        return;
    }
    constexpr int kPer = TILE / kStreamThreads;
    static_assert(TILE % kStreamThreads == 0, "a tile is whole loads of the block's threads");
    __shared__ T prod[TILE];
    __shared__ uint32_t longer[TILE / kSerial];
    __shared__ uint32_t nlonger;
    if (threadIdx.x == 0) nlonger = 0; /* read after the products' __syncthreads */
    const uint32_t rs = blk_row[blockIdx.x], re = blk_row[blockIdx.x + 1];
    const uint64_t e0 = off[rs];
    /* A long row is a block alone and the chunk kernels' (a row of 1025..2048 entries would fit
     * the tile, but the chunk path writes it too); any other block holds at most TILE. */
    const uint32_t len = (uint32_t)min((uint64_t)TILE, off[re] - e0);
    const bool alone = re - rs == 1 && len > long_len;
    if constexpr (!G::kChained)
        if (alone) return;
    uint32_t col[kPer];
    T a[kPer];
    if (!alone) load_tile<T, PATTERN>(idx, val, e0, len, col, a);
    /* The operand's hook runs (in a chain of launches, chain_wait: the launch before ends) only
     * once the matrix's loads are issued, which need nothing from it, so they overlap that end. */
    if (!x.proceed() || alone) return;
    tile_products<T, SR>(x, len, col, a, prod);
    __syncthreads();
    typename G::acc acc{};
    reduce_tile<T, SR, TILE, O>(off + rs, rs, re - rs, e0, prod, longer, &nlonger, x, y, alpha, beta, acc, 0);
    x.flush(acc);
}

/* The stream kernel for a matrix without long rows, as a persistent grid: each block takes the
 * row blocks b, b + grid, ... and issues the next one's loads before reducing the current one, so
 * its entries stream in while the last tile is summed (blk_e: each row block's first entry, read
 * ahead so the loads need not wait for off[]). */
template <typename T, bool PATTERN, int SR, uint32_t TILE, typename O, typename G>
__global__ void __launch_bounds__(kStreamThreads)
spmv_stream_pipelined(const O *__restrict__ off, const uint32_t *__restrict__ idx,
                      const T *__restrict__ val, G x, T *__restrict__ y,
                      const uint32_t *__restrict__ blk_row, const O *__restrict__ blk_e,
                      uint32_t nblk, T alpha, T beta) {
    constexpr int kPer = TILE / kStreamThreads;
    constexpr int kOffPer = (kStreamMaxRows + kStreamThreads) / kStreamThreads; /* rows + 1 offsets */
    __shared__ T prod[TILE];
    __shared__ uint32_t longer[TILE / kSerial];
    __shared__ uint32_t nlonger;
    __shared__ O roff[kOffPer * kStreamThreads]; /* the tile's row offsets: roff[r] = off[rs + r] */
    uint32_t b = blockIdx.x;
    if (b >= nblk) return;
    uint32_t col[kPer];
    T a[kPer];
    O ro[kOffPer];
    uint32_t rs = blk_row[b], re = blk_row[b + 1];
    uint64_t e0 = blk_e[b];
    uint32_t len = (uint32_t)min((uint64_t)TILE, blk_e[b + 1] - e0);
    load_tile<T, PATTERN>(idx, val, e0, len, col, a);
#pragma unroll
    for (int i = 0; i < kOffPer; i++) {
        const uint32_t k = threadIdx.x + i * kStreamThreads;
        if (k <= re - rs) ro[i] = off[rs + k];
    }
    if (!x.proceed()) return; /* (after the matrix's first loads, as in spmv_stream) */
    typename G::acc acc{};
    for (;;) {
        const uint32_t nb = b + gridDim.x;
        uint32_t nrs = 0, nre = 0;
        uint64_t ne0 = 0, ne1 = 0;
        if (nb < nblk) {
            nrs = blk_row[nb];
            nre = blk_row[nb + 1];
            ne0 = blk_e[nb];
            ne1 = blk_e[nb + 1];
        }
        if (threadIdx.x == 0) nlonger = 0;
#pragma unroll
        for (int i = 0; i < kOffPer; i++) {
            const uint32_t k = threadIdx.x + i * kStreamThreads;
            if (k <= re - rs) roff[k] = ro[i];
        }
        tile_products<T, SR>(x, len, col, a, prod);
        __syncthreads();
        const uint32_t nlen = (uint32_t)min((uint64_t)TILE, ne1 - ne0);
        if (nb < nblk) {
            load_tile<T, PATTERN>(idx, val, ne0, nlen, col, a);
#pragma unroll
            for (int i = 0; i < kOffPer; i++) {
                const uint32_t k = threadIdx.x + i * kStreamThreads;
                if (k <= nre - nrs) ro[i] = off[nrs + k];
            }
        }
        reduce_tile<T, SR, TILE, O>(roff, rs, re - rs, e0, prod, longer, &nlonger, x, y, alpha, beta, acc, kShortRow);
        if (nb >= nblk) break;
        __syncthreads(); /* prod, longer and roff are the next tile's */
        b = nb;
        rs = nrs;
        re = nre;
        e0 = ne0;
        len = nlen;
    }
    x.flush(acc);
}

/* ---- the form's sample ------------------------------------------------------------------------- */

/* kFormSamples evenly spaced rows, one a thread of one block, tell which form to try: their
 * diagonals (col - row), up to kMaxDiagonals, and whether each is one run of consecutive columns
 * no longer than kProfileLongest times the mean row. Sampling the host CSR instead cost 70-420 us
 * on matrices of 1M-16M entries (a DRAM miss, and a page walk, a row; H200, session 25), against a
 * product of 8-40 us. */
constexpr uint32_t kFormSamples = 1024;
/* The diagonals' hash set: every thread may insert one after the count passed kMaxDiagonals, so
 * kMaxDiagonals + kFormSamples fit, sparsely. */
constexpr uint32_t kSampleSlots = 4096;
constexpr int32_t kNoDiagonal = INT32_MIN;
constexpr uint64_t kProfileLongest = 8;
constexpr uint64_t kProfileMeanRow = 8; /* (peek_candidates) */

struct form_sample {
    int32_t diag[kMaxDiagonals + 1]; /* the first nd found (unordered) */
    uint32_t nd;                     /* kMaxDiagonals + 1: more than kMaxDiagonals */
    uint32_t runs;                   /* 1: every sampled row one short enough run */
};

/* What form_shaped reads back in its one round trip: the sample, and the verdicts of the diagonal
 * and profile builds queued after it (zeroed by sample_form, which runs first). */
struct form_answers {
    form_sample sample;
    unsigned long long diag_misses;
    unsigned long long profile_misses, profile_longest;
};

__global__ void __launch_bounds__(kFormSamples)
sample_form(const uint64_t *__restrict__ off, const uint32_t *__restrict__ idx, uint32_t n, uint64_t longest,
            form_answers *out) {
    __shared__ int32_t set[kSampleSlots];
    __shared__ uint32_t count;
    __shared__ uint32_t broken; /* a sampled row is not one run */
    __shared__ uint32_t found;
    for (uint32_t i = threadIdx.x; i < kSampleSlots; i += blockDim.x) set[i] = kNoDiagonal;
    /* every word, not just the counters: the one readback copies the whole block, diagonal slots
     * past nd and padding included (compute-sanitizer's initcheck reads those as uninitialised) */
    static_assert(sizeof(form_answers) % 4 == 0, "form_answers is zeroed word-wise");
    for (uint32_t i = threadIdx.x; i < sizeof(form_answers) / 4; i += blockDim.x)
        reinterpret_cast<uint32_t *>(out)[i] = 0;
    if (threadIdx.x == 0) count = 0, broken = 0;
    __syncthreads();
    const uint32_t samples = n < kFormSamples ? n : kFormSamples;
    if (threadIdx.x < samples) {
        const uint32_t row = (uint32_t)((uint64_t)threadIdx.x * n / samples);
        const uint64_t b = off[row], e = off[row + 1];
        if (e - b > longest) atomicOr(&broken, 1u);
        uint32_t before = 0;
        for (uint64_t k = b; k < e; k++) {
            const bool counting = *(volatile uint32_t *)&count <= kMaxDiagonals;
            if (!counting && *(volatile uint32_t *)&broken) break; /* both answers known */
            const uint32_t c = __ldg(idx + k);
            if (k > b && c != before + 1) atomicOr(&broken, 1u);
            before = c;
            if (!counting) continue;
            const int32_t dg = (int32_t)((int64_t)c - (int64_t)row);
            uint32_t h = ((uint32_t)dg * 2654435761u) >> 20;
            /* a slot is read before it is claimed: the threads of a band or stencil all find the
             * same few diagonals, and an atomic on each of their entries queued them on those slots */
            for (uint32_t probe = 0; probe < kSampleSlots; probe++, h = (h + 1) % kSampleSlots) {
                int32_t was = *(volatile int32_t *)(set + h);
                if (was == kNoDiagonal) {
                    was = atomicCAS(set + h, kNoDiagonal, dg);
                    if (was == kNoDiagonal) atomicAdd(&count, 1u);
                }
                if (was == kNoDiagonal || was == dg) break;
            }
        }
    }
    __syncthreads();
    if (threadIdx.x == 0) found = 0;
    __syncthreads();
    for (uint32_t h = threadIdx.x; h < kSampleSlots; h += blockDim.x)
        if (set[h] != kNoDiagonal) {
            const uint32_t at = atomicAdd(&found, 1u);
            if (at <= kMaxDiagonals) out->sample.diag[at] = set[h];
        }
    __syncthreads();
    if (threadIdx.x == 0) {
        out->sample.nd = min(found, kMaxDiagonals + 1);
        out->sample.runs = broken == 0;
    }
}

/* ---- the diagonal form -------------------------------------------------------------------------- */

/* A form's diagonals, passed by value: every thread reads the same one at a time (constant bank). */
struct diag_offsets {
    int32_t o[kMaxDiagonals];
};
/* Diagonals a thread loads at once before it combines them (the loads of a batch are in flight
 * together). */
constexpr uint32_t kDiagBatch = 4;

/* y = A x by diagonals, a thread a row: diagonal d's values for consecutive rows are consecutive,
 * and so are the x they multiply, so every load is coalesced and nothing but the values (and a
 * presence bit an entry) is read per entry: about 4.1 bytes an entry in float where the CSR reads
 * 8 + 4 * rows / nnz, 8.1 in double against 12 +. An entry absent from a diagonal (its bit clear:
 * out of the matrix, or a hole such as a 2D stencil's row ends) contributes nothing, so the
 * semirings and an x holding inf or NaN see only the stored entries. */
template <typename T, bool PATTERN, int SR, typename G>
__global__ void __launch_bounds__(kThreads)
spmv_diag(diag_offsets o, uint32_t nd, const T *__restrict__ val, const uint32_t *__restrict__ mask,
          uint32_t n, G x, T *__restrict__ y, T alpha, T beta) {
    typedef semiring<T, SR> S;
    if (!x.proceed()) return;
    const size_t words = ((size_t)n + 31) / 32;
    typename G::acc acc{};
    for (uint32_t row = blockIdx.x * kThreads + threadIdx.x; row < n; row += gridDim.x * kThreads) {
        const uint32_t bit = row & 31;
        T sum = S::zero();
        for (uint32_t d0 = 0; d0 < nd; d0 += kDiagBatch) {
            bool has[kDiagBatch];
            T a[kDiagBatch], xv[kDiagBatch];
#pragma unroll
            for (uint32_t i = 0; i < kDiagBatch; i++)
                has[i] = d0 + i < nd && (__ldg(mask + (d0 + i) * words + (row >> 5)) >> bit & 1u);
#pragma unroll
            for (uint32_t i = 0; i < kDiagBatch; i++)
                if (has[i]) {
                    a[i] = PATTERN ? T(1) : __ldcs(val + (size_t)(d0 + i) * n + row);
                    xv[i] = x((uint32_t)((int64_t)row + o.o[d0 + i]));
                }
#pragma unroll
            for (uint32_t i = 0; i < kDiagBatch; i++)
                if (has[i]) sum = S::add(sum, S::mul(a[i], xv[i]));
        }
        store_row(x, y, row, finish<T, SR>(sum, alpha, beta, y, row), acc);
    }
    x.flush(acc);
}

/* The diagonal form from the CSR, a warp per 32 rows: the lanes read the rows' entries together
 * (coalesced), find each entry's row among the 32 row starts (shuffles) and its diagonal among the
 * sample's nd (a binary search in shared memory; nothing is built when they are more than `most`),
 * and place its value in the warp's tile of nd x 32 values and its presence bit in the warp's word
 * of that diagonal (shared memory); then the warp writes each diagonal's 32 values and its word,
 * coalesced. An entry on no sampled diagonal (or a second one on the same: not in a matrix of
 * distinct coordinates) counts in ans->diag_misses, and the form is not used. Storing each value straight to its diagonal (32 diagonals a warp store on a
 * band) moved 2 GB of DRAM for 0.8 GB of data and took 2.7 ms on a 64M-entry band of 33
 * diagonals, 21 of its products (ncu, H100). Shared memory: diag_build_shared. */
constexpr uint32_t kDiagTileStride = 33; /* a diagonal's 32 rows in the tile, padded: no bank conflicts */

template <typename T> constexpr size_t diag_build_warp_bytes(uint32_t nd) {
    return (size_t)nd * kDiagTileStride * sizeof(T) + (size_t)nd * 4;
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
diag_build(const uint64_t *__restrict__ off, const uint32_t *__restrict__ idx, const T *__restrict__ val,
           uint32_t n, form_answers *ans, uint32_t most, T *__restrict__ dval, uint32_t *__restrict__ mask) {
    extern __shared__ __align__(16) unsigned char diag_shared[];
    __shared__ int32_t so[kMaxDiagonals];
    /* the sample's diagonals, when they are few enough (else nothing to build), ascending */
    const uint32_t nd = ans->sample.nd;
    if (nd == 0 || nd > most) return;
    if (threadIdx.x == 0)
        for (uint32_t d = 0; d < nd; d++) {
            const int32_t v = ans->sample.diag[d];
            uint32_t at = d;
            for (; at > 0 && so[at - 1] > v; at--) so[at] = so[at - 1];
            so[at] = v;
        }
    unsigned long long *const misses = &ans->diag_misses;
    __syncthreads();
    const uint32_t warps = blockDim.x / 32, lane = threadIdx.x & 31;
    T *const tile = reinterpret_cast<T *>(diag_shared) + (size_t)(threadIdx.x / 32) * nd * kDiagTileStride;
    uint32_t *const bits = reinterpret_cast<uint32_t *>(reinterpret_cast<T *>(diag_shared) +
                                                        (size_t)warps * nd * kDiagTileStride) +
                           (threadIdx.x / 32) * nd;
    const uint64_t words = ((uint64_t)n + 31) / 32;
    for (uint64_t w = (uint64_t)blockIdx.x * warps + threadIdx.x / 32; w < words; w += (uint64_t)gridDim.x * warps) {
        const uint64_t r0 = w * 32, row = r0 + lane;
        for (uint32_t d = lane; d < nd; d += 32) bits[d] = 0;
        if (dval != nullptr)
            for (uint32_t d = 0; d < nd; d++) tile[d * kDiagTileStride + lane] = T(0);
        const uint64_t start = off[row < n ? row : n];
        const uint64_t first = __shfl_sync(kFull, start, 0), end = off[r0 + 32 < n ? r0 + 32 : n];
        __syncwarp();
        bool miss = false;
        /* the next round's column and value are loaded before this round's are placed */
        uint32_t c = 0;
        T v = T(0);
        if (first + lane < end) {
            c = __ldcs(idx + first + lane);
            if (dval != nullptr) v = __ldcs(val + first + lane);
        }
        for (uint64_t base = first; base < end; base += 32) {
            const uint64_t e = base + lane;
            uint32_t c_next = 0;
            T v_next = T(0);
            if (e + 32 < end) {
                c_next = __ldcs(idx + e + 32);
                if (dval != nullptr) v_next = __ldcs(val + e + 32);
            }
            uint32_t j = 0; /* the last of the 32 rows starting at or before e: e's row */
            for (uint32_t step = 16; step > 0; step >>= 1) {
                const uint64_t s = __shfl_sync(kFull, start, j + step);
                if (s <= e) j += step;
            }
            if (e < end) {
                const int64_t dg = (int64_t)c - (int64_t)(r0 + j);
                uint32_t lo = 0, hi = nd;
                while (lo < hi) {
                    const uint32_t mid = (lo + hi) / 2;
                    if (so[mid] < dg) lo = mid + 1;
                    else hi = mid;
                }
                if (lo == nd || so[lo] != dg || (atomicOr(bits + lo, 1u << j) >> j & 1u))
                    miss = true;
                else if (dval != nullptr)
                    tile[lo * kDiagTileStride + j] = v;
            }
            c = c_next;
            v = v_next;
        }
        __syncwarp();
        for (uint32_t d = 0; d < nd; d++) {
            if (lane == 0) mask[d * words + w] = bits[d];
            if (dval != nullptr && row < n) dval[(size_t)d * n + row] = tile[d * kDiagTileStride + lane];
        }
        if (__ballot_sync(kFull, miss) != 0 && lane == 0) atomicAdd(misses, 1ull);
        __syncwarp();
    }
}

/* ---- the profile form --------------------------------------------------------------------------- */

/* A thread's place in a kernel that gives each row a group of 2^shift lanes (spmv_profile,
 * spmv_vector), and the group's end: its lanes' sums combined and stored by lane 0. */
struct row_group {
    uint32_t lanes, lane;
    uint64_t row;
    __device__ explicit row_group(uint32_t shift) {
        const uint64_t t = (uint64_t)blockIdx.x * kThreads + threadIdx.x;
        lanes = 1u << shift;
        row = t >> shift;
        lane = (uint32_t)(t & (lanes - 1));
    }
    template <typename T, int SR, typename G>
    __device__ void store(T sum, uint32_t n, const G &x, T *y, T alpha, T beta) const {
        for (uint32_t o = lanes >> 1; o > 0; o >>= 1)
            sum = semiring<T, SR>::add(sum, __shfl_down_sync(kFull, sum, o, lanes));
        typename G::acc acc{};
        if (row < n && lane == 0)
            store_row(x, y, (uint32_t)row, finish<T, SR>(sum, alpha, beta, y, (uint32_t)row), acc);
        x.flush(acc);
    }
};

/* Sixteen bytes of a value type, the unit spmv_profile loads its values in. */
template <typename T> struct vec16;
template <> struct vec16<float> {
    typedef float4 type;
    __device__ static void split(const float4 &v, float (&a)[4]) { a[0] = v.x, a[1] = v.y, a[2] = v.z, a[3] = v.w; }
};
template <> struct vec16<double> {
    typedef double2 type;
    __device__ static void split(const double2 &v, double (&a)[2]) { a[0] = v.x, a[1] = v.y; }
};
/* A profile row's group loads kProfileVectors of its 16-byte vectors a lane before it uses them;
 * launch_profile sizes the group so that is about a row. */
constexpr uint32_t kProfileVectors = 4;

/* y = A x for a matrix whose every row is one run of consecutive columns (block-diagonal matrices,
 * variable bands): a group of 2^shift threads a row (up to 32, from the mean row length) reads the
 * row's values and the run of x they multiply, both coalesced, from its first column (first[]) and
 * its offsets: no column ids, 4 bytes an entry in float and 8 in double against the CSR's 8 + and
 * 12 +. The values are read as the 16-byte vectors that hold the row (its first and last may be
 * shared with the next rows: their entries outside the row are skipped), kProfileVectors a lane
 * in flight: a thread's one row leaves it a load of its offsets, then one of its values, and with
 * 4-byte loads, 4 in flight, float ran at 55-60% of the probe's bandwidth where double (twice the
 * bytes a load) ran at 80% (H100, session 24). A group of four rows, their offsets loaded together
 * and one entry of each row a lane a round, was no faster in float and 10-15% slower in double.
 * val is a form's array (cudaMalloc: 16-byte aligned). */
template <typename T, bool PATTERN, int SR, typename G>
__global__ void __launch_bounds__(kThreads)
spmv_profile(const uint64_t *__restrict__ off, const uint32_t *__restrict__ first, const T *__restrict__ val,
             uint32_t n, uint32_t shift, G x, T *__restrict__ y, T alpha, T beta) {
    typedef semiring<T, SR> S;
    typedef typename vec16<T>::type V;
    constexpr uint32_t W = sizeof(V) / sizeof(T);
    if (!x.proceed()) return;
    const row_group g(shift);
    const uint32_t lanes = g.lanes;
    T sum = S::zero();
    if (g.row < n) {
        const uint64_t b = off[g.row], e = off[g.row + 1];
        const uint32_t c0 = first[g.row];
        const V *const v = reinterpret_cast<const V *>(val);
        for (uint64_t q0 = b / W + g.lane; q0 * W < e; q0 += (uint64_t)lanes * kProfileVectors) {
            T a[kProfileVectors][W];
#pragma unroll
            for (uint32_t i = 0; i < kProfileVectors; i++) {
                const uint64_t q = q0 + (uint64_t)i * lanes;
                if (!PATTERN && q * W < e) vec16<T>::split(__ldcs(v + q), a[i]);
            }
#pragma unroll
            for (uint32_t i = 0; i < kProfileVectors; i++) {
                const uint64_t q = q0 + (uint64_t)i * lanes;
#pragma unroll
                for (uint32_t c = 0; c < W; c++) {
                    const uint64_t k = q * W + c;
                    if (k >= b && k < e)
                        sum = S::add(sum, S::mul(PATTERN ? T(1) : a[i][c], x(c0 + (uint32_t)(k - b))));
                }
            }
        }
    }
    g.store<T, SR>(sum, n, x, y, alpha, beta);
}

/* CSR-vector (Bell and Garland) for rows of nearly one length: a group of 2^shift lanes a row, as
 * many as the mean row has entries (up to 32), each lane a strided share of the row's ids and
 * values. With every row about the same length no lane idles, and a row's loads are all in flight
 * at once without the stream kernel's staging and its chain of dependent loads (row block, its
 * offsets, the tile, the reduction's offsets). On the H100 (session 25): uniform matrices of 16
 * entries a row 1.25x faster at 1M entries, 1.04-1.10x at 16M, even at 64M; Dubcova1 (15.7 a row,
 * longest 25) 1.11-1.14x; where rows vary it loses: wave (13.6, longest 44) 0.78x, dblp-2010 (5.0,
 * longest 238) 0.50x, R-MAT 0.2-0.3x. form_bins takes it for kVectorMeanRow entries a row or more
 * on average and no row over kVectorLongest times the mean. */
template <typename T, bool PATTERN, int SR, typename G>
__global__ void __launch_bounds__(kThreads)
spmv_vector(const uint64_t *__restrict__ off, const uint32_t *__restrict__ idx, const T *__restrict__ val,
            uint32_t n, uint32_t shift, G x, T *__restrict__ y, T alpha, T beta) {
    typedef semiring<T, SR> S;
    const row_group g(shift);
    T sum = S::zero();
    uint64_t b = 0, e = 0;
    if (g.row < n) b = off[g.row], e = off[g.row + 1];
    /* a lane's first entry is loaded before the operand's first read (spmv_stream) */
    const uint64_t k0 = b + g.lane;
    uint32_t c0 = 0;
    T a0 = T(1);
    if (k0 < e) {
        c0 = __ldcs(idx + k0);
        if (!PATTERN) a0 = __ldcs(val + k0);
    }
    if (!x.proceed()) return;
    if (k0 < e) {
        sum = S::mul(a0, x(c0));
#pragma unroll 4
        for (uint64_t k = k0 + g.lanes; k < e; k += g.lanes)
            sum = S::add(sum, S::mul(PATTERN ? T(1) : __ldcs(val + k), x(__ldcs(idx + k))));
    }
    g.store<T, SR>(sum, n, x, y, alpha, beta);
}

/* The profile form's check and first columns, a warp per 32 rows: the lanes read the rows' column
 * ids together (coalesced) and compare each with the one before it unless it starts a row (found
 * among the 32 row starts by shuffles); a row's lane stores its first column and the warp's
 * longest row goes to ans->profile_longest. Any gap counts in ans->profile_misses, and the form is
 * not used. */
__global__ void __launch_bounds__(kThreads)
profile_build(const uint64_t *__restrict__ off, const uint32_t *__restrict__ idx, uint32_t n,
              uint32_t *__restrict__ first, form_answers *ans, uint32_t most_diagonals) {
    /* not when a sampled row is not a run, nor when the diagonal form queued before was built */
    const uint32_t nd = ans->sample.nd;
    if (!ans->sample.runs || (nd != 0 && nd <= most_diagonals && ans->diag_misses == 0)) return;
    unsigned long long *const misses = &ans->profile_misses, *const longest = &ans->profile_longest;
    const uint32_t lane = threadIdx.x & 31;
    const uint64_t words = ((uint64_t)n + 31) / 32;
    for (uint64_t w = ((uint64_t)blockIdx.x * kThreads + threadIdx.x) / 32; w < words;
         w += (uint64_t)gridDim.x * kThreads / 32) {
        const uint64_t r0 = w * 32, row = r0 + lane;
        const uint64_t start = off[row < n ? row : n];
        const uint64_t end = off[r0 + 32 < n ? r0 + 32 : n], from = __shfl_sync(kFull, start, 0);
        uint64_t len = 0;
        if (row < n) {
            len = off[row + 1] - start;
            first[row] = len ? idx[start] : 0;
        }
        bool miss = false;
        /* the next round's column is loaded before this round's is compared; lane 0 compares with
         * the round before's last */
        uint32_t c = from + lane < end ? __ldcs(idx + from + lane) : 0;
        uint32_t last = 0; /* a warp's first entry starts a row */
        for (uint64_t base = from; base < end; base += 32) {
            const uint64_t e = base + lane;
            const uint32_t c_next = e + 32 < end ? __ldcs(idx + e + 32) : 0;
            uint32_t j = 0;
            for (uint32_t step = 16; step > 0; step >>= 1) {
                const uint64_t s = __shfl_sync(kFull, start, j + step);
                if (s <= e) j += step;
            }
            const uint64_t row_start = __shfl_sync(kFull, start, j);
            uint32_t before = __shfl_up_sync(kFull, c, 1);
            if (lane == 0) before = last;
            last = __shfl_sync(kFull, c, 31);
            /* past the rows, or a row's first entry, is not compared */
            if (e < end && row_start != e) miss |= c != before + 1;
            c = c_next;
        }
        for (int o = 16; o > 0; o >>= 1) len = max(len, __shfl_down_sync(kFull, len, o));
        if (lane == 0) atomicMax(longest, (unsigned long long)len);
        if (__ballot_sync(kFull, miss) != 0 && lane == 0) atomicAdd(misses, 1ull);
    }
}

template <typename D, typename S>
__global__ void convert_values(D *dst, const S *src, uint64_t n) {
    GRID_STRIDE(i, n) dst[i] = (D)src[i];
}

/* Chunks of row i (0 for a row the vector kernel takes; i == n gives 0 so the exclusive scan's last
 * entry is the total). */
struct chunks_of_row {
    const uint64_t *off;
    uint32_t n, long_len;
    __host__ __device__ uint32_t operator()(uint32_t i) const {
        if (i >= n) return 0;
        const uint64_t len = off[i + 1] - off[i];
        return len > long_len ? (uint32_t)((len + kChunk - 1) / kChunk) : 0;
    }
};
/* Row i starts a stream block: the first row, every kStreamMaxRows-th row (a block's rows stay few
 * enough to reduce; empty rows share a bucket), a row whose first entry is in another bucket than
 * its predecessor's, and a long row and the row after it (a long row is a block alone). i == n
 * is selected too, so the selection ends with n. */
struct starts_stream_block {
    const uint64_t *off;
    uint32_t n, bucket, long_len;
    __host__ __device__ bool operator()(uint32_t i) const {
        if (i == 0 || i >= n || i % kStreamMaxRows == 0) return true;
        const uint64_t a = off[i - 1], b = off[i], c = off[i + 1];
        if (b - a > long_len || c - b > long_len) return true;
        if (b >> 32 == 0) return (uint32_t)a / bucket != (uint32_t)b / bucket; /* cheaper: most forms */
        return a / bucket != b / bucket;
    }
};

/* The whole form in one cooperative launch (form_rows): a thread block per multiprocessor, each
 * over a contiguous range of rows, in rounds of kFormPer consecutive rows a thread. Phase 1 finds
 * the longest row and counts each block's chunks, long rows and row block starts (for both
 * buckets a value type can take: the short form's, chosen by the longest row, and the other);
 * phase 2, after a grid.sync, writes the chunk lists, the row blocks, their first entries and the
 * 32-bit offsets, placed by a block scan over the rounds and the earlier blocks' totals. It
 * replaced a dozen CUB launches with two host round trips (0.2-0.3 ms, 15-27 calls of a 1M-entry
 * product), and, under 32768 rows, a launch of one block (0.05-0.16 ms, 5-12 calls; H100, sessions
 * 16-18). */
constexpr int kFormThreads = 512;
constexpr int kFormPer = 8;

struct form_counts {
    uint32_t starts[4]; /* float, double with the short form's buckets; float, double without */
    uint32_t chunks, longs;
};
struct form_sum {
    __device__ form_counts operator()(const form_counts &a, const form_counts &b) const {
        form_counts c;
        for (int k = 0; k < 4; k++) c.starts[k] = a.starts[k] + b.starts[k];
        c.chunks = a.chunks + b.chunks;
        c.longs = a.longs + b.longs;
        return c;
    }
};

struct form_rows_args {
    const uint64_t *off;
    uint32_t n;
    uint64_t nnz;
    uint32_t bucket[4];                       /* as form_counts::starts */
    uint32_t *blk_row[2], *blk_e[2], *off32;  /* blk_e[k] and off32 are NULL where they cannot be used */
    uint32_t *long_rows, *long_first, *chunk_long, *arrive;
    uint64_t *chunk_begin;
    form_counts *totals;                      /* gridDim.x: each block's phase 1 counts */
    unsigned long long *block_longest;        /* gridDim.x: each block's longest row */
    uint32_t *sizes;                          /* out: longest, chunks, long rows, row blocks + 1 float, double */
};

__global__ void __launch_bounds__(kFormThreads, 1) form_rows(form_rows_args a) {
    typedef cub::BlockReduce<form_counts, kFormThreads> Reduce;
    typedef cub::BlockReduce<unsigned long long, kFormThreads> ReduceMax;
    typedef cub::BlockScan<form_counts, kFormThreads> Scan;
    __shared__ union {
        typename Reduce::TempStorage reduce;
        typename ReduceMax::TempStorage most;
        typename Scan::TempStorage scan;
    } tmp;
    __shared__ form_counts carry;
    __shared__ unsigned long long most_shared;
    cooperative_groups::grid_group grid = cooperative_groups::this_grid();
    constexpr uint32_t kRound = kFormThreads * kFormPer;
    const form_counts none = {{0, 0, 0, 0}, 0, 0};
    const uint64_t items = (uint64_t)a.n + 1, span = (items + gridDim.x - 1) / gridDim.x;
    const uint64_t lo = min(items, blockIdx.x * span), hi = min(items, lo + span);
    const chunks_of_row chunks_of{a.off, a.n, kLongRow};
    starts_stream_block pred[4];
    for (int k = 0; k < 4; k++) pred[k] = {a.off, a.n, a.bucket[k], kLongRow};

    /* Phase 1 */
    unsigned long long longest = 0;
    form_counts mine = none;
    for (uint64_t base = lo; base < hi; base += kRound)
        for (int p = 0; p < kFormPer; p++) {
            const uint32_t i = (uint32_t)(base + threadIdx.x * kFormPer + p);
            if (i >= hi) continue;
            if (i < a.n) longest = max(longest, (unsigned long long)(a.off[i + 1] - a.off[i]));
            const uint32_t c = chunks_of(i);
            mine.chunks += c;
            mine.longs += c != 0;
            for (int k = 0; k < 4; k++) mine.starts[k] += pred[k](i);
        }
    longest = ReduceMax(tmp.most).Reduce(longest, cuda::maximum<unsigned long long>());
    if (threadIdx.x == 0) a.block_longest[blockIdx.x] = longest;
    __syncthreads();
    mine = Reduce(tmp.reduce).Reduce(mine, form_sum());
    if (threadIdx.x == 0) a.totals[blockIdx.x] = mine;
    grid.sync();

    /* Phase 2; every block decides the buckets alike, from every block's longest row */
    longest = 0;
    for (uint32_t b = threadIdx.x; b < gridDim.x; b += kFormThreads)
        longest = max(longest, *(volatile unsigned long long *)(a.block_longest + b));
    longest = ReduceMax(tmp.most).Reduce(longest, cuda::maximum<unsigned long long>());
    if (threadIdx.x == 0) most_shared = longest;
    __syncthreads();
    const unsigned long long most = most_shared;
    const bool short_rows = most <= kShortRow && a.nnz < (1ull << 32);
    /* each type's bucket, and from here on starts[k] counts type k's blocks */
    const starts_stream_block use[2] = {short_rows ? pred[0] : pred[2], short_rows ? pred[1] : pred[3]};
    const bool keep_e[2] = {short_rows && a.bucket[0] != kSmallBucket && a.blk_e[0] != nullptr,
                            short_rows && a.bucket[1] != kSmallBucket && a.blk_e[1] != nullptr};
    const bool keep_off32 = a.off32 != nullptr; /* the stream kernel reads them too */
    mine = none;
    for (uint32_t b = threadIdx.x; b < blockIdx.x; b += kFormThreads) mine = form_sum()(mine, a.totals[b]);
    mine = Reduce(tmp.reduce).Reduce(mine, form_sum());
    if (threadIdx.x == 0) {
        carry = mine;
        if (!short_rows) {
            carry.starts[0] = mine.starts[2];
            carry.starts[1] = mine.starts[3];
        }
    }
    __syncthreads();
    for (uint64_t base = lo; base < hi; base += kRound) {
        mine = none;
        uint32_t sel = 0; /* bit p: row p starts a float block; bit p + kFormPer: a double one */
        for (int p = 0; p < kFormPer; p++) {
            const uint32_t i = (uint32_t)(base + threadIdx.x * kFormPer + p);
            if (i >= hi) continue;
            const uint32_t c = chunks_of(i);
            mine.chunks += c;
            mine.longs += c != 0;
            for (int k = 0; k < 2; k++)
                if (use[k](i)) {
                    mine.starts[k]++;
                    sel |= 1u << (p + k * kFormPer);
                }
            if (keep_off32) a.off32[i] = (uint32_t)a.off[i];
        }
        form_counts at, round;
        Scan(tmp.scan).ExclusiveScan(mine, at, none, form_sum(), round);
        at = form_sum()(at, carry);
        for (int p = 0; p < kFormPer && (sel != 0 || mine.longs != 0); p++) {
            const uint32_t i = (uint32_t)(base + threadIdx.x * kFormPer + p);
            if (i >= hi) continue;
            for (int k = 0; k < 2; k++)
                if (sel >> (p + k * kFormPer) & 1u) {
                    a.blk_row[k][at.starts[k]] = i;
                    if (keep_e[k]) a.blk_e[k][at.starts[k]] = (uint32_t)a.off[i];
                    at.starts[k]++;
                }
            const uint32_t c = chunks_of(i);
            if (c == 0) continue;
            a.long_rows[at.longs] = i;
            a.long_first[at.longs] = at.chunks;
            a.arrive[at.longs] = 0;
            for (uint32_t q = 0; q < c; q++) {
                a.chunk_long[at.chunks + q] = at.longs;
                a.chunk_begin[at.chunks + q] = a.off[i] + (uint64_t)q * kChunk;
            }
            at.chunks += c;
            at.longs++;
        }
        __syncthreads(); /* carry and tmp are read */
        if (threadIdx.x == 0) carry = form_sum()(carry, round);
        __syncthreads();
    }
    if (blockIdx.x == gridDim.x - 1 && threadIdx.x == 0) { /* its carry: every block's */
        if (a.long_first != nullptr) a.long_first[carry.longs] = carry.chunks;
        a.sizes[0] = (uint32_t)min(most, 0xffffffffull);
        a.sizes[1] = carry.chunks;
        a.sizes[2] = carry.longs;
        a.sizes[3] = carry.starts[0];
        a.sizes[4] = carry.starts[1];
    }
}

/* ---- the device form ------------------------------------------------------------------------------ */

/* An event pair freed when it goes out of scope. */
struct timer_guard {
    mg__gpu_timer *t = nullptr;
    ~timer_guard() { mg__gpu_timer_free(&t); }
};

mg_status form_alloc(mg_context ctx, mg__spmv_form *f, void **p, size_t bytes, const char *what) {
    TRY(dalloc(ctx, p, bytes, what));
    f->bytes += bytes;
    return MG_SUCCESS;
}

/* The SpMV layout's arrays (spmv_layout), the upload's left. */
void layout_free(mg__spmv_form *f) {
    dfree(f->d_pack); /* and the row blocks' arrays carved from the packs */
    dfree(f->d_pack_short);
    dfree(f->d_pack_long);
    /* the form's own type's values and its bits are carved from d_diag_pack */
    for (int k = 0; k < 2; k++)
        if (f->d_diag_val[k] != f->d_diag_pack) dfree(f->d_diag_val[k]);
    dfree(f->d_diag_pack);
    dfree(f->d_first);
    dfree(f->d_hub_idx);
    dfree(f->d_hub_val);
    dfree(f->d_col_order); /* and d_xr, carved from its allocation */
}

void form_free(mg__spmv_form *f) {
    dfree(f->d_off);
    dfree(f->d_idx);
    dfree(f->d_val[0]);
    dfree(f->d_val[1]);
    layout_free(f);
    memset(f, 0, sizeof *f);
}

void gpu_matrix_free(void *p) {
    mg__gpu_matrix *g = static_cast<mg__gpu_matrix *>(p);
    if (g == nullptr) return;
    form_free(&g->csr);
    form_free(&g->csc);
    mg__spmm_forms_free(g->spmm);
    mg__free(g);
}

/* The stream kernel's tile and bucket for value type k (0 float, 1 double); longest: the longest
 * row (the big buckets' tile holds a bucket and the longest overhang). */
void form_tile(mg__spmv_form *f, int k, int sms, uint64_t longest) {
    const uint32_t big = kStreamBucket;
    if (f->nnz * 2 < (uint64_t)big * sms) {
        f->bucket[k] = kSmallBucket;
        f->tile[k] = kSmallBucket + kLongRow;
    } else if (f->short_rows) {
        f->tile[k] = k ? kShortTile<double> : kShortTile<float>;
        f->bucket[k] = f->tile[k] - kShortRow;
    } else {
        f->bucket[k] = big;
        f->tile[k] = big + (longest <= kMidRow ? kMidRow : kLongRow);
    }
}

/* The form of a matrix of fewer than kHostFormRows rows is made on the host, from the CSR it was
 * uploaded from, and goes up in one copy into one allocation (f->d_pack). form_rows's fixed cost
 * (its allocations and frees, the cooperative launch and the round trip: 60-80 us, 6-8 calls of a
 * 500-row product) is more than the host's time below about 12k rows (15 us and 7 ns a row, H100
 * host, session 18). The rules are starts_stream_block's and chunks_of_row's; a row's bucket is
 * tracked by its bounds, not divided for (two 64-bit divisions a row cost 75 us on 16k rows). */
constexpr uint32_t kHostFormRows = 12288;

/* The row blocks of bucket `bucket` into blk_row (the rows where starts_stream_block holds, then
 * n); returns their count. */
uint32_t host_row_blocks(const uint64_t *off, uint32_t n, uint32_t bucket, uint32_t long_len,
                         uint32_t *blk_row) {
    uint32_t nb = 0;
    uint64_t next = bucket; /* the first entry of the bucket after off[i - 1]'s */
    blk_row[nb++] = 0;
    for (uint32_t i = 1; i < n; i++) {
        const uint64_t a = off[i - 1], b = off[i], c = off[i + 1];
        bool start = i % kStreamMaxRows == 0 || b - a > long_len || c - b > long_len;
        if (b >= next) {
            start = true;
            next = b - b % bucket + bucket;
        }
        if (start) blk_row[nb++] = i;
    }
    blk_row[nb] = n;
    return nb;
}

/* A host buffer freed when it goes out of scope. */
struct host_buf {
    void *p = nullptr;
    ~host_buf() { mg__free(p); }
};

mg_status form_bins_host(mg_context ctx, mg__spmv_form *f, int sms, const uint64_t *off) {
    const uint32_t n = f->n;
    const chunks_of_row chunks_of{off, n, f->long_len};
    uint64_t longest = 0;
    for (uint32_t i = 0; i < n; i++) {
        const uint64_t len = off[i + 1] - off[i];
        longest = len > longest ? len : longest;
        const uint32_t c = chunks_of(i);
        f->nchunks += c;
        f->nlong += c != 0;
    }
    f->short_rows = longest <= kShortRow && f->nnz < (1ull << 32);
    form_tile(f, 0, sms, longest);
    form_tile(f, 1, sms, longest);
    const bool pipelined[2] = {f->short_rows && f->bucket[0] != kSmallBucket,
                               f->short_rows && f->bucket[1] != kSmallBucket};

    /* The pack, as on the device: the chunks' first entries, the 4-byte arrays (the 32-bit offsets
     * among them: a kernel converting them on the device cost these builds 25-35 us, H100, session
     * 33), then (not copied) the chunk sums. Sized here for the most row blocks there can be. */
    const bool off32 = f->nnz < (1ull << 32); /* (launch_stream) */
    const size_t items = (size_t)n + 1, nch = f->nchunks, nl = f->nlong;
    const size_t most_words = 5 * items + (nl ? 3 * nl + 1 + nch : 0);
    host_buf hb;
    hb.p = mg__malloc(nch * 8 + most_words * 4 + 8);
    if (hb.p == nullptr)
        return mg__error(ctx, MG_OUT_OF_MEMORY, "out of host memory for the SpMV row blocks (%zu bytes)",
                         nch * 8 + most_words * 4);
    char *const h = static_cast<char *>(hb.p);
    uint64_t *chunk_begin = reinterpret_cast<uint64_t *>(h);
    uint32_t *w = reinterpret_cast<uint32_t *>(chunk_begin + nch), *blk_row[2], *blk_e[2] = {};
    for (int k = 0; k < 2; k++) {
        blk_row[k] = w;
        f->nblk[k] = host_row_blocks(off, n, f->bucket[k], f->long_len, blk_row[k]);
        w += f->nblk[k] + 1;
    }
    for (int k = 0; k < 2; k++)
        if (pipelined[k]) {
            blk_e[k] = w;
            for (uint32_t b = 0; b <= f->nblk[k]; b++) blk_e[k][b] = (uint32_t)off[blk_row[k][b]];
            w += f->nblk[k] + 1;
        }
    uint32_t *long_rows = w, *long_first = w + nl, *arrive = long_first + nl + 1, *chunk_long = arrive + nl;
    if (nl != 0) {
        uint32_t j = 0, c0 = 0;
        for (uint32_t i = 0; i < n; i++) {
            const uint32_t c = chunks_of(i);
            if (c == 0) continue;
            long_rows[j] = i;
            long_first[j] = c0;
            arrive[j] = 0;
            for (uint32_t q = 0; q < c; q++) {
                chunk_long[c0 + q] = j;
                chunk_begin[c0 + q] = off[i] + (uint64_t)q * kChunk;
            }
            c0 += c;
            j++;
        }
        long_first[nl] = c0;
        w = chunk_long + nch;
    }
    uint32_t *const off32_h = off32 ? w : nullptr;
    if (off32) {
        for (size_t i = 0; i < items; i++) off32_h[i] = (uint32_t)off[i];
        w += items;
    }
    const size_t copied = ((size_t)(reinterpret_cast<char *>(w) - h) + 7) / 8 * 8;
    TRY(form_alloc(ctx, f, &f->d_pack, copied + nch * 8, "the SpMV row blocks"));
    CU(cudaMemcpy(f->d_pack, h, copied, cudaMemcpyHostToDevice));

    /* the same layout on the device */
    char *const d = static_cast<char *>(f->d_pack);
    const auto on_device = [&](const uint32_t *p) { return reinterpret_cast<uint32_t *>(d + ((const char *)p - h)); };
    for (int k = 0; k < 2; k++) {
        f->d_blk_row[k] = on_device(blk_row[k]);
        if (pipelined[k]) f->d_blk_e[k] = on_device(blk_e[k]);
    }
    if (off32) f->d_off32 = on_device(off32_h);
    if (nl != 0) {
        f->d_chunk_begin = reinterpret_cast<uint64_t *>(d);
        f->d_long_rows = on_device(long_rows);
        f->d_long_first = on_device(long_first);
        f->d_arrive = on_device(arrive);
        f->d_chunk_long = on_device(chunk_long);
        f->d_partial = reinterpret_cast<double *>(d + copied);
    }
    return MG_SUCCESS;
}

/* The row bins of an uploaded form (h_off: the host's row offsets it was uploaded from): a small
 * matrix's made on the host (form_bins_host), the others by form_rows's one launch into arrays of
 * the worst case's size (those it did not need freed after), then one host round trip for their
 * sizes. */
/* spmv_vector's rule: at least kVectorMeanRow entries a row on average, none over kVectorLongest
 * times the mean (measured on uniform matrices and Dubcova1, against wave's 3.25; spmv_vector). */
constexpr uint64_t kVectorMeanRow = 8;
constexpr uint64_t kVectorLongest = 2;

mg_status form_bins(mg_context ctx, mg__spmv_form *f, int sms, const uint64_t *h_off) {
    f->long_len = kLongRow;
    f->sms = (uint32_t)sms;
    f->nlong = f->nchunks = f->nblk[0] = f->nblk[1] = 0;
    if (f->n == 0) return MG_SUCCESS;
    if (f->n < kHostFormRows) return form_bins_host(ctx, f, sms, h_off);
    const size_t items = (size_t)f->n + 1;
    /* a long row has over kLongRow entries, and at most one chunk per kLongRow of them */
    const size_t most_long = f->nnz / (kLongRow + 1) + 1, most_chunks = f->nnz / kLongRow + 1;
    const unsigned grid = (unsigned)sms;
    form_rows_args a = {};
    a.off = f->d_off;
    a.n = f->n;
    a.nnz = f->nnz;
    mg__spmv_form shape = *f; /* the buckets each value type takes with and without the short form */
    for (int k = 0; k < 2; k++) {
        shape.short_rows = true;
        form_tile(&shape, k, sms, kLongRow);
        a.bucket[k] = shape.bucket[k];
        shape.short_rows = false;
        form_tile(&shape, k, sms, kLongRow);
        a.bucket[2 + k] = shape.bucket[k];
    }
    /* The arrays in three allocations, each given back whole when the form does not use it: the row
     * blocks of both value types, with form_rows's scratch after them (d_pack); the short form's
     * 32-bit offsets and blocks' first entries (d_pack_short); the long rows and their chunks
     * (d_pack_long). A scratch buffer, its memset and an allocation an array took 21-45 us of the
     * build, these three 7-21 us (event trace, H100, session 28). */
    const size_t rows_bytes = (2 * items * 4 + 7) / 8 * 8;
    const size_t pack_bytes = rows_bytes + (size_t)grid * (sizeof(form_counts) + 8) + 8 * 4;
    TRY(form_alloc(ctx, f, &f->d_pack, pack_bytes, "the SpMV row blocks"));
    char *const pack = static_cast<char *>(f->d_pack);
    f->d_blk_row[0] = a.blk_row[0] = reinterpret_cast<uint32_t *>(pack);
    f->d_blk_row[1] = a.blk_row[1] = a.blk_row[0] + items;
    a.block_longest = reinterpret_cast<unsigned long long *>(pack + rows_bytes);
    a.totals = reinterpret_cast<form_counts *>(a.block_longest + grid);
    a.sizes = reinterpret_cast<uint32_t *>(a.totals + grid);
    const bool short_e[2] = {a.bucket[0] != kSmallBucket && f->nnz < (1ull << 32),
                             a.bucket[1] != kSmallBucket && f->nnz < (1ull << 32)};
    const size_t short_bytes = ((short_e[0] || short_e[1]) ? 3 * items * 4 : 0);
    if (short_bytes != 0) {
        TRY(form_alloc(ctx, f, &f->d_pack_short, short_bytes, "the SpMV short form"));
        f->d_off32 = a.off32 = static_cast<uint32_t *>(f->d_pack_short);
        for (int k = 0; k < 2; k++)
            if (short_e[k]) f->d_blk_e[k] = a.blk_e[k] = a.off32 + (k + 1) * items;
    }
    const size_t long_bytes = f->nnz > kLongRow ? most_chunks * 20 + (3 * most_long + 1) * 4 : 0;
    if (long_bytes != 0) {
        TRY(form_alloc(ctx, f, &f->d_pack_long, long_bytes, "the SpMV long rows"));
        f->d_chunk_begin = a.chunk_begin = static_cast<uint64_t *>(f->d_pack_long);
        f->d_partial = reinterpret_cast<double *>(a.chunk_begin + most_chunks);
        f->d_long_rows = a.long_rows = reinterpret_cast<uint32_t *>(f->d_partial + most_chunks);
        f->d_long_first = a.long_first = a.long_rows + most_long;
        f->d_arrive = a.arrive = a.long_first + most_long + 1;
        f->d_chunk_long = a.chunk_long = a.arrive + most_long;
    }
    void *args[] = {&a};
    CU(cudaLaunchCooperativeKernel(reinterpret_cast<const void *>(form_rows), dim3(grid), dim3(kFormThreads),
                                   args, 0, 0));
    uint32_t h[5];
    CU(cudaMemcpy(h, a.sizes, sizeof h, cudaMemcpyDeviceToHost));
    f->nchunks = h[1];
    f->nlong = h[2];
    f->nblk[0] = h[3] - 1;
    f->nblk[1] = h[4] - 1;
    f->short_rows = h[0] <= kShortRow && f->nnz < (1ull << 32);
    form_tile(f, 0, sms, h[0]);
    form_tile(f, 1, sms, h[0]);
    /* rows of nearly one length take spmv_vector, which reads none of the row blocks */
    const uint64_t mean = f->nnz / f->n;
    f->csr_vector = mean >= kVectorMeanRow && h[0] <= kVectorLongest * mean;
    /* the short form's blocks' first entries are kept only where it is used (their room stays
     * allocated, 8 bytes a row: a smaller allocation for the 32-bit offsets the stream kernel
     * reads would cost the build another allocation and copy) */
    for (int k = 0; k < 2; k++)
        if (!f->short_rows || f->bucket[k] == kSmallBucket || f->csr_vector) f->d_blk_e[k] = nullptr;
    if (f->d_pack_short != nullptr && f->csr_vector) {
        dfree(f->d_pack_short);
        f->d_pack_short = nullptr;
        f->d_off32 = nullptr;
        f->bytes -= short_bytes;
    }
    if (f->csr_vector) {
        dfree(f->d_pack);
        f->d_pack = nullptr;
        f->d_blk_row[0] = f->d_blk_row[1] = nullptr;
        f->bytes -= pack_bytes;
        f->nblk[0] = f->nblk[1] = 0;
        f->nlong = 0;
    }
    if (f->nlong == 0 && f->d_pack_long != nullptr) {
        dfree(f->d_pack_long);
        f->d_pack_long = nullptr;
        f->d_chunk_begin = nullptr;
        f->d_partial = nullptr;
        f->d_long_rows = f->d_long_first = f->d_arrive = f->d_chunk_long = nullptr;
        f->nchunks = 0;
        f->bytes -= long_bytes;
    }
    return MG_SUCCESS;
}

/* The diagonal and profile forms a matrix may take, as far as kPeekRows rows of the host CSR
 * (among those sample_form reads) tell: most_diagonals, the most diagonals its diagonal form may
 * have (0: that form is ruled out), and whether the profile form is still possible. A diagonal form
 * pays on a matrix of at least kHostFormRows rows (below, a product is a launch's latency either
 * way) whose diagonals number at most kMaxDiagonals, fill at least 1 / kDiagFill of their n slots
 * each (in double they then move at most 1.2 * 8.1 bytes an entry, less than the CSR's 12 +, and in
 * float 5 against 8 +) and have kDiagRowsPerDiagonal rows each; a profile form on one of
 * kProfileMeanRow entries a row or more on average, every row a run of consecutive columns and none
 * longer than kProfileLongest times the mean. Most matrices of the CSR form (R-MAT, uniform, graphs)
 * are told here in a few us, where the device's sample costs them a launch and a round trip. */
constexpr uint32_t kPeekRows = 16;
static_assert(kFormSamples % kPeekRows == 0, "the peeked rows are sampled rows");
/* A thread a row leaves a matrix of few rows and many diagonals a short grid of long serial loops:
 * a band of 33 diagonals over 30303 rows ran 1.03x cuSPARSE by diagonals, 1.31x as CSR, where
 * 140608 rows of 7 and 484848 of 33 gained 1.4-1.7x (H100, session 24). */
constexpr uint32_t kDiagRowsPerDiagonal = 4096;

struct form_candidates {
    uint32_t most_diagonals;
    bool profile;
};

form_candidates peek_candidates(const uint64_t *off, const uint32_t *idx, uint32_t n, uint64_t nnz) {
    form_candidates c = {0, false};
    if (n < kHostFormRows || nnz == 0) return c;
    const uint64_t by_fill = (uint64_t)(kDiagFill * (double)nnz / n);
    c.most_diagonals = (uint32_t)std::min<uint64_t>({kMaxDiagonals, by_fill, n / kDiagRowsPerDiagonal});
    c.profile = nnz >= kProfileMeanRow * n;
    const uint64_t longest = kProfileLongest * (nnz / n);
    int32_t seen[kMaxDiagonals];
    uint32_t nd = 0;
    for (uint32_t s = 0; s < kPeekRows && (c.profile || c.most_diagonals != 0); s++) {
        const uint32_t row = (uint32_t)((uint64_t)s * n / kPeekRows);
        if (off[row + 1] - off[row] > longest) c.profile = false;
        for (uint64_t e = off[row]; e < off[row + 1]; e++) {
            if (e > off[row] && idx[e] != idx[e - 1] + 1) c.profile = false;
            const int32_t dg = (int32_t)((int64_t)idx[e] - (int64_t)row);
            if (c.most_diagonals != 0 && std::find(seen, seen + nd, dg) == seen + nd) {
                if (nd == c.most_diagonals) c.most_diagonals = 0;
                else seen[nd++] = dg;
            }
            if (!c.profile && c.most_diagonals == 0) break;
        }
    }
    return c;
}

/* The diagonal or profile form of an uploaded orientation, where the peek leaves them possible
 * (else, or when neither is made, the row bins are): the candidates' arrays in up to two
 * allocations, the diagonal one sized for the most diagonals the form may have, then sample_form,
 * diag_build and profile_build queued back to back, each deciding on the device from the ones
 * before whether it runs, and one round trip for their answers (form_answers, carved from the
 * first allocation). The diagonal form is kept when the sample saw few enough diagonals and every
 * entry lies on one; else the profile form when every row is one short enough run; the other
 * candidate's allocation is given back. Out of device memory, a candidate is dropped and the CSR
 * form serves instead. With a round trip after the sample and after each build, the 1M-entry
 * stencils, bands and block-diagonal matrices took 12-21 of their products (H100, session 27), in
 * one 8-14 (session 28). */
mg_status form_shaped(mg_context ctx, mg__gpu_matrix *g, mg__spmv_form *f, form_candidates c) {
    const uint32_t n = f->n;
    const int k = g->values == MG_VALUES_DOUBLE;
    const size_t es = k ? 8 : 4, words = ((size_t)n + 31) / 32;
    const auto align8 = [](size_t b) { return (b + 7) / 8 * 8; };
    /* the diagonal candidate: values, then presence bits, then (being first) the answers */
    const size_t val_bytes = g->values == MG_VALUES_NONE ? 0 : (size_t)c.most_diagonals * n * es;
    const size_t mask_at = align8(val_bytes), diag_bytes = mask_at + align8((size_t)c.most_diagonals * words * 4);
    const size_t first_bytes = align8((size_t)n * 4);
    dbuf diag_buf, profile_buf; /* given back on leaving, unless the form keeps them */
    for (int form = 0; form < 2; form++) {
        if (form == 0 ? c.most_diagonals == 0 : !c.profile) continue;
        const size_t bytes =
            (form == 0 ? diag_bytes : first_bytes) + (diag_buf.p == nullptr ? sizeof(form_answers) : 0);
        const mg_status st = form_alloc(ctx, f, form == 0 ? &diag_buf.p : &profile_buf.p, bytes,
                                        form == 0 ? "the diagonal form" : "the profile form");
        if (st == MG_OUT_OF_MEMORY) {
            ctx->error[0] = '\0'; /* the other form, or the CSR's, serves instead */
            if (form == 0) c.most_diagonals = 0;
            else c.profile = false;
            continue;
        }
        TRY(st);
    }
    void *const dp = diag_buf.p, *const pp = profile_buf.p;
    if (dp == nullptr && pp == nullptr) return MG_SUCCESS;
    form_answers *const ans = reinterpret_cast<form_answers *>(dp != nullptr ? static_cast<char *>(dp) + diag_bytes
                                                                             : static_cast<char *>(pp) + first_bytes);
    const size_t dp_bytes = diag_bytes + sizeof(form_answers), pp_bytes = first_bytes + (dp ? 0 : sizeof(form_answers));
    uint32_t *const mask = dp ? reinterpret_cast<uint32_t *>(static_cast<char *>(dp) + mask_at) : nullptr;

    const uint32_t samples = n < kFormSamples ? n : kFormSamples;
    sample_form<<<1, (samples + 31) / 32 * 32>>>(f->d_off, f->d_idx, n, kProfileLongest * (f->nnz / n), ans);
    LAUNCHED("sample_form");
    const uint64_t most_blocks = (uint64_t)f->sms * 16;
    if (dp != nullptr) {
        const uint32_t most = c.most_diagonals;
        const size_t warp_bytes = k ? diag_build_warp_bytes<double>(most) : diag_build_warp_bytes<float>(most);
        const uint32_t warps = (uint32_t)std::min<size_t>(kThreads / 32, std::max<size_t>(1, 48 * 1024 / warp_bytes));
        const uint64_t blocks = (words + warps - 1) / warps;
        const unsigned grid = (unsigned)(blocks < most_blocks ? blocks : most_blocks);
        if (k)
            diag_build<double><<<grid, warps * 32, warps * warp_bytes>>>(
                f->d_off, f->d_idx, (const double *)f->d_val[1], n, ans, most, val_bytes ? (double *)dp : nullptr,
                mask);
        else
            diag_build<float><<<grid, warps * 32, warps * warp_bytes>>>(
                f->d_off, f->d_idx, (const float *)f->d_val[0], n, ans, most, val_bytes ? (float *)dp : nullptr,
                mask);
        LAUNCHED("diag_build");
    }
    if (pp != nullptr) {
        const uint64_t blocks = ((uint64_t)n + kThreads - 1) / kThreads;
        profile_build<<<(unsigned)(blocks < most_blocks ? blocks : most_blocks), kThreads>>>(
            f->d_off, f->d_idx, n, static_cast<uint32_t *>(pp), ans, c.most_diagonals);
        LAUNCHED("profile_build");
    }
    form_answers h;
    CU(cudaMemcpy(&h, ans, sizeof h, cudaMemcpyDeviceToHost));

    const uint32_t nd = h.sample.nd;
    const bool diagonal = dp != nullptr && nd != 0 && nd <= c.most_diagonals && h.diag_misses == 0;
    const bool profile = !diagonal && pp != nullptr && h.sample.runs && h.profile_misses == 0 &&
                         h.profile_longest <= kProfileLongest * (f->nnz / n);
    if (diagonal) {
        f->ndiag = nd;
        std::copy(h.sample.diag, h.sample.diag + nd, f->diag_off);
        std::sort(f->diag_off, f->diag_off + nd); /* as diag_build ordered them */
        f->d_diag_pack = dp;
        f->d_diag_mask = mask;
        if (val_bytes) f->d_diag_val[k] = dp;
        diag_buf.p = nullptr;
    } else if (dp != nullptr) {
        f->bytes -= dp_bytes;
    }
    if (profile) {
        f->d_first = static_cast<uint32_t *>(pp);
        profile_buf.p = nullptr;
    } else if (pp != nullptr) {
        f->bytes -= pp_bytes;
    }
    return MG_SUCCESS;
}

/* A form's nnz values of es bytes each, allocated to a multiple of 16 bytes: spmv_profile reads a
 * row's values as the 16-byte vectors that hold it, and the last row's last vector may reach past
 * nnz (compute-sanitizer found it on 359983 floats, session 28). */
size_t values_bytes(uint64_t nnz, size_t es) { return ((size_t)nnz * es + 15) / 16 * 16; }

/* A form's value array, its tail past nnz zeroed: the lanes that load it discard it, but an
 * unwritten tail is what compute-sanitizer's initcheck reports (session 31). */
mg_status values_alloc(mg_context ctx, mg__spmv_form *f, void **p, size_t es, const char *what) {
    const size_t used = (size_t)f->nnz * es, bytes = values_bytes(f->nnz, es);
    TRY(form_alloc(ctx, f, p, bytes, what));
    if (bytes > used) CU(cudaMemset(static_cast<char *>(*p) + used, 0, bytes - used));
    return MG_SUCCESS;
}

/* ---- hub-first columns ------------------------------------------------------------------------- */

/* The stream kernel's gathers of x bound it on power-law matrices (prefer_split, below): one L2 tag
 * lookup for each 128-byte line of x a warp's gather touches that L1 does not hold. R-MAT's hubs are
 * spread over its numbering, so the lines L1 can keep hold a few hubs and many rarely read columns.
 * Numbered by falling count, the most-read columns share lines, and a long row's entries sorted by
 * the new ids put its hubs' gathers in the same warps: a cache simulation of R-MAT 21 on this
 * machine (132 caches of 152 KB, the kernel's tile order) gave 0.59 L2 requests and 0.77 L1
 * lookups an entry against 0.75 and 0.85. On the H100 (session 30) R-MAT 21's float product took
 * 0.436-0.438 ms against 0.479-0.482 (cuSPARSE's best 0.454-0.470), R-MAT 19's 0.095-0.096 against
 * 0.104, making x's renumbered copy included (15 us on R-MAT 21's 2M columns); double gained 2.5%
 * before that copy (its lines hold half the columns), so float products only. The build cost 8
 * calls of the product on R-MAT 21 (60M entries), 14 on R-MAT 19 (15M: its sorts, allocations and
 * round trip are as many fixed costs), so matrices of at least kHubFirstNnz entries take it, where
 * the counts say it pays: the kHubFirstCache most-read columns (128 KB of floats, about the L1 a
 * multiprocessor keeps beside the stream blocks) must hold kHubFirstGain of the entries more than
 * the kHubFirstCache / 32 most-read lines of the given numbering do (R-MAT 19 and 21: 0.13 and
 * 0.15; a mesh, or a matrix whose x fits L1: 0). The counts come from an eighth of the entries:
 * every kHubSampleStride-th run of kHubSampleRun (a quarter, and all of them, gave the same times). */
constexpr uint64_t kHubFirstNnz = 24u << 20;
constexpr uint32_t kHubFirstCache = 32768;
constexpr double kHubFirstGain = 0.08;
constexpr uint32_t kHubSampleRun = 1024;
constexpr uint32_t kHubSampleStride = 8;

/* count[idx[k]] += 1 for the sampled entries (s: the sample's index); order[j] = j. */
__global__ void hub_count(const uint32_t *__restrict__ idx, uint64_t samples, uint32_t *count,
                          uint32_t *order, uint32_t ncols) {
    GRID_STRIDE(s, samples) {
        const uint64_t k = (s / kHubSampleRun) * kHubSampleStride * kHubSampleRun + s % kHubSampleRun;
        atomicAdd(count + idx[k], 1u);
    }
    GRID_STRIDE(j, ncols) order[j] = (uint32_t)j;
}

/* lines[l] = the counts of columns 32 l .. 32 l + 31: a warp a line. */
__global__ void hub_lines(const uint32_t *__restrict__ count, uint32_t ncols, uint32_t *lines) {
    GRID_STRIDE(i, (uint64_t)(ncols + 31) / 32 * 32) {
        uint32_t c = i < ncols ? count[i] : 0;
        for (int o = 16; o > 0; o >>= 1) c += __shfl_down_sync(kFull, c, o);
        if ((i & 31) == 0) lines[i / 32] = c;
    }
}

/* sums[0] = the first `top` sorted counts, sums[1] = the first `top_lines` sorted line counts. */
__global__ void __launch_bounds__(kThreads) hub_sums(const uint32_t *__restrict__ count, uint32_t top,
                                                     const uint32_t *__restrict__ lines, uint32_t top_lines,
                                                     unsigned long long *sums) {
    unsigned long long a = 0, b = 0;
    for (uint32_t i = threadIdx.x; i < top; i += kThreads) a += count[i];
    for (uint32_t i = threadIdx.x; i < top_lines; i += kThreads) b += lines[i];
    typedef cub::BlockReduce<unsigned long long, kThreads> reduce_t;
    __shared__ typename reduce_t::TempStorage temp[2];
    a = reduce_t(temp[0]).Sum(a);
    b = reduce_t(temp[1]).Sum(b);
    if (threadIdx.x == 0) {
        sums[0] = a;
        sums[1] = b;
    }
}

__global__ void hub_rank(const uint32_t *__restrict__ order, uint32_t ncols, uint32_t *rank) {
    GRID_STRIDE(p, ncols) rank[order[p]] = (uint32_t)p;
}

/* One stream block's entries (the row blocks of the float bucket, then the long rows' chunks, as
 * spmv_stream takes them) with their new column ids, sorted by row and, within a row, by the
 * 32-column line of x the new id falls in (the order within a line changes no gather): keys of the
 * row within the block above the new id's `idbits` bits, sorted on the bits from the line's up to
 * the block's last row's, so a block of few rows takes fewer passes. */
constexpr int kHubTileItems = (kStreamBucket + kLongRow) / kStreamThreads;
constexpr int kHubRowBits = 11; /* a block's rows, kStreamMaxRows at most, and room for the pad */
static_assert(kStreamMaxRows < (1u << kHubRowBits) - 1, "a row number never has all its bits set");
static_assert(kChunk <= kStreamBucket + kLongRow, "a chunk fits a tile");

template <typename K, bool PATTERN>
__global__ void __launch_bounds__(kStreamThreads)
hub_tiles(const uint64_t *__restrict__ off, const uint32_t *__restrict__ idx, const float *__restrict__ val,
          const uint32_t *__restrict__ rank, int idbits, const uint32_t *__restrict__ blk_row, uint32_t nblk,
          uint32_t long_len, Chunks ch, uint32_t *hub_idx, float *hub_val) {
    typedef typename std::conditional<PATTERN, cub::NullType, float>::type V;
    typedef cub::BlockRadixSort<K, kStreamThreads, kHubTileItems, V> sort_t;
    __shared__ typename sort_t::TempStorage temp;
    __shared__ uint64_t roff[kStreamMaxRows + 1];
    __shared__ uint32_t nrows;
    if (blockIdx.x < nblk) {
        const uint32_t rs = blk_row[blockIdx.x], re = blk_row[blockIdx.x + 1];
        if (re - rs == 1 && off[re] - off[rs] > long_len) return; /* its chunks' */
        for (uint32_t r = threadIdx.x; r <= re - rs; r += kStreamThreads) roff[r] = off[rs + r];
        if (threadIdx.x == 0) nrows = re - rs;
    } else if (threadIdx.x == 0) {
        const uint32_t c = blockIdx.x - nblk, row = ch.rows[ch.long_of[c]];
        roff[0] = ch.begin[c];
        roff[1] = min(ch.begin[c] + kChunk, off[row + 1]);
        nrows = 1;
    }
    __syncthreads();
    const uint64_t e0 = roff[0];
    const uint32_t len = (uint32_t)(roff[nrows] - e0), first = threadIdx.x * kHubTileItems;
    /* the row of the thread's first entry (the last whose start is at or before it), then onwards */
    uint32_t lo = 0, hi = nrows;
    while (hi - lo > 1) {
        const uint32_t mid = (lo + hi) / 2;
        if (roff[mid] <= e0 + first) lo = mid;
        else hi = mid;
    }
    K key[kHubTileItems];
    V v[kHubTileItems];
#pragma unroll
    for (int i = 0; i < kHubTileItems; i++) {
        const uint32_t k = first + i;
        key[i] = ~K(0);
        if (k < len) {
            while (roff[lo + 1] <= e0 + k) lo++;
            key[i] = (K(lo) << idbits) | __ldg(rank + idx[e0 + k]);
            if constexpr (!PATTERN) v[i] = val[e0 + k];
        }
    }
    const int begin_bit = idbits < 5 ? idbits : 5;
    const int end_bit = idbits + 32 - __clz(nrows); /* row numbers below nrows < 2^(end_bit - idbits) */
    if constexpr (PATTERN) sort_t(temp).SortBlockedToStriped(key, begin_bit, end_bit);
    else sort_t(temp).SortBlockedToStriped(key, v, begin_bit, end_bit);
#pragma unroll
    for (int i = 0; i < kHubTileItems; i++) {
        const uint32_t k = i * kStreamThreads + threadIdx.x;
        if (k < len) {
            hub_idx[e0 + k] = (uint32_t)(key[i] & ((K(1) << idbits) - 1));
            if constexpr (!PATTERN) hub_val[e0 + k] = v[i];
        }
    }
}

template <typename K>
void launch_hub_tiles(const mg__spmv_form *f, const uint32_t *rank, int idbits, uint32_t *hub_idx, float *hub_val) {
    const Chunks ch{f->d_chunk_long, f->d_chunk_begin, f->d_long_rows, f->d_long_first, f->d_partial, f->d_arrive};
    const unsigned grid = f->nblk[0] + f->nchunks;
    const float *val = static_cast<const float *>(f->d_val[0]);
    if (val == nullptr)
        hub_tiles<K, true><<<grid, kStreamThreads>>>(f->d_off, f->d_idx, val, rank, idbits, f->d_blk_row[0],
                                                     f->nblk[0], f->long_len, ch, hub_idx, hub_val);
    else
        hub_tiles<K, false><<<grid, kStreamThreads>>>(f->d_off, f->d_idx, val, rank, idbits, f->d_blk_row[0],
                                                      f->nblk[0], f->long_len, ch, hub_idx, hub_val);
}

/* x in the hub-first order, before each product. */
__global__ void hub_x(const float *__restrict__ x, const uint32_t *__restrict__ order, uint32_t ncols,
                      float *xr) {
    GRID_STRIDE(p, ncols) xr[p] = __ldg(x + order[p]);
}

/* Device memory the form can go without: false, and no error, where there is no room. */
bool optional_alloc(void **p, size_t bytes) {
    if (cudaMallocAsync(p, bytes ? bytes : 8, 0) != cudaSuccess) {
        (void)cudaGetLastError();
        *p = nullptr;
        return false;
    }
    return true;
}

/* Counts the columns of f's entries, sorts them by falling count (a stable sort: ties keep their
 * order) and, where the rule above says it pays, keeps that order and a copy of the entries with
 * the new column ids, each row's (a long row's chunk's) sorted by them: a long row's hubs then
 * share its warps' lines (simulated on R-MAT 21: 0.77 L1 lookups an entry against 0.96 with the
 * rows in their old order, 0.85 in the old numbering; sorting only the rows of over 64 entries
 * gave the same). Out of device memory the form goes without. */
mg_status form_hub_first(mg_context ctx, mg__spmv_form *f) {
    const uint32_t m = f->ncols;
    const uint64_t run = kHubSampleStride * kHubSampleRun;
    const uint64_t samples = f->nnz / run * kHubSampleRun + std::min<uint64_t>(f->nnz % run, kHubSampleRun);
    const uint32_t nlines = (m + 31) / 32;
    const bool pattern = f->d_val[0] == nullptr;
    int bits = 1;
    while (bits < 32 && (samples >> bits) != 0) bits++;
    /* one scratch allocation: the counts (then the ranks), the identity, the sorted counts, the
     * lines' counts and sorted counts, the two sums, the sorts' temporary storage */
    size_t sort_bytes = 0, lines_bytes = 0;
    CU(cub::DeviceRadixSort::SortPairsDescending(nullptr, sort_bytes, (const uint32_t *)nullptr, (uint32_t *)nullptr,
                                                 (const uint32_t *)nullptr, (uint32_t *)nullptr, (int)m, 0, bits));
    CU(cub::DeviceRadixSort::SortKeysDescending(nullptr, lines_bytes, (const uint32_t *)nullptr, (uint32_t *)nullptr,
                                                (int)nlines, 0, bits));
    const size_t cols4 = ((size_t)m * 4 + 15) / 16 * 16, lines4 = ((size_t)nlines * 4 + 15) / 16 * 16;
    dbuf scratch;
    if (!optional_alloc(&scratch.p, 3 * cols4 + 2 * lines4 + 16 + std::max(sort_bytes, lines_bytes)))
        return MG_SUCCESS;
    char *at = static_cast<char *>(scratch.p);
    uint32_t *count = reinterpret_cast<uint32_t *>(at), *ids = reinterpret_cast<uint32_t *>(at + cols4);
    uint32_t *sorted = reinterpret_cast<uint32_t *>(at + 2 * cols4);
    uint32_t *lines = reinterpret_cast<uint32_t *>(at + 3 * cols4);
    uint32_t *lines_sorted = reinterpret_cast<uint32_t *>(at + 3 * cols4 + lines4);
    unsigned long long *sums = reinterpret_cast<unsigned long long *>(at + 3 * cols4 + 2 * lines4);
    void *temp = at + 3 * cols4 + 2 * lines4 + 16;
    /* the order, and room for x renumbered: kept if the rule takes the form */
    dbuf pack;
    if (!optional_alloc(&pack.p, 2 * cols4)) return MG_SUCCESS;
    uint32_t *order = static_cast<uint32_t *>(pack.p);
    CU(cudaMemsetAsync(count, 0, (size_t)m * 4, 0));
    hub_count<<<blocks_for(std::max<uint64_t>(samples, m)), kThreads>>>(f->d_idx, samples, count, ids, m);
    LAUNCHED("hub_count");
    CU(cub::DeviceRadixSort::SortPairsDescending(temp, sort_bytes, count, sorted, ids, order, (int)m, 0, bits));
    hub_lines<<<blocks_for((uint64_t)nlines * 32), kThreads>>>(count, m, lines);
    LAUNCHED("hub_lines");
    CU(cub::DeviceRadixSort::SortKeysDescending(temp, lines_bytes, lines, lines_sorted, (int)nlines, 0, bits));
    hub_sums<<<1, kThreads>>>(sorted, std::min(m, kHubFirstCache), lines_sorted,
                              std::min(nlines, kHubFirstCache / 32), sums);
    LAUNCHED("hub_sums");
    unsigned long long h[2];
    CU(cudaMemcpy(h, sums, sizeof h, cudaMemcpyDeviceToHost));
    if ((double)h[0] - (double)h[1] < kHubFirstGain * (double)samples) return MG_SUCCESS;

    /* taken: the entries with their new ids, sorted within each stream block */
    const size_t ids_bytes = (size_t)f->nnz * 4, vals_bytes = pattern ? 0 : values_bytes(f->nnz, 4);
    dbuf hub_idx, hub_val;
    if (!optional_alloc(&hub_idx.p, ids_bytes) || (!pattern && !optional_alloc(&hub_val.p, vals_bytes)))
        return MG_SUCCESS;
    hub_rank<<<blocks_for(m), kThreads>>>(order, m, count);
    LAUNCHED("hub_rank");
    int idbits = 1;
    while (idbits < 32 && ((uint64_t)(m - 1) >> idbits) != 0) idbits++;
    if (idbits + kHubRowBits <= 32)
        launch_hub_tiles<uint32_t>(f, count, idbits, static_cast<uint32_t *>(hub_idx.p), static_cast<float *>(hub_val.p));
    else
        launch_hub_tiles<unsigned long long>(f, count, idbits, static_cast<uint32_t *>(hub_idx.p),
                                             static_cast<float *>(hub_val.p));
    LAUNCHED("hub_tiles");
    f->d_col_order = order;
    f->d_xr = reinterpret_cast<float *>(static_cast<char *>(pack.p) + cols4);
    f->d_hub_idx = static_cast<uint32_t *>(hub_idx.p);
    f->d_hub_val = static_cast<float *>(hub_val.p);
    pack.p = hub_idx.p = hub_val.p = nullptr; /* the form's now */
    f->bytes += 2 * cols4 + ids_bytes + vals_bytes;
    return MG_SUCCESS;
}

/* The longest of off's n rows, into *most (0 beforehand): a thread's rows, then its warp's, then one
 * atomic a warp. */
__global__ void __launch_bounds__(kThreads)
longest_row(const uint64_t *__restrict__ off, uint32_t n, unsigned long long *most) {
    unsigned long long m = 0;
    for (uint32_t row = blockIdx.x * kThreads + threadIdx.x; row < n; row += gridDim.x * kThreads)
        m = max(m, (unsigned long long)(off[row + 1] - off[row]));
    for (int d = 16; d > 0; d >>= 1) m = max(m, __shfl_down_sync(0xffffffffu, m, d));
    if ((threadIdx.x & 31) == 0 && m != 0) atomicMax(most, m);
}

/* f->max_row, so SpMM's rule needs no SpMV layout for its long rows: from the host offsets off up
 * to kHostScanRows rows, else from the uploaded ones into the slot after them (form_upload
 * allocates n + 2): one small launch and a round trip, no allocation (a CUB reduction's temporary
 * storage cost more than the launch on matrices of 10k rows). */
mg_status form_max_row(mg_context ctx, mg__spmv_form *f, const uint64_t *off) {
    f->max_row = 0;
    if (f->n == 0 || f->nnz == 0) return MG_SUCCESS;
    if (f->n <= kHostScanRows) {
        for (uint32_t i = 0; i < f->n; i++) f->max_row = std::max(f->max_row, off[i + 1] - off[i]);
        return MG_SUCCESS;
    }
    unsigned long long *const most = reinterpret_cast<unsigned long long *>(f->d_off + f->n + 1);
    CU(cudaMemsetAsync(most, 0, 8));
    const uint32_t blocks = (uint32_t)(((uint64_t)f->n + kThreads - 1) / kThreads);
    longest_row<<<blocks < 8 * f->sms ? blocks : 8 * f->sms, kThreads>>>(f->d_off, f->n, most);
    LAUNCHED("longest_row");
    CU(cudaMemcpy(&f->max_row, most, 8, cudaMemcpyDeviceToHost));
    return MG_SUCCESS;
}

/* Uploads one orientation (host CSR arrays of n rows) and finds its longest row, timed apart (CUDA
 * events): the copies into g's upload_seconds, form_max_row's scan or launch into g's seconds (a
 * build, so the build time both prepare calls report holds it). The SpMV layout waits for
 * spmv_layout. */
mg_status form_upload(mg_context ctx, mg__gpu_matrix *g, mg__spmv_form *f, uint32_t n,
                      uint32_t ncols, uint64_t nnz, const uint64_t *off, const uint32_t *idx,
                      const void *val) {
    timer_guard timer;
    double ms = 0;
    f->n = n;
    f->ncols = ncols;
    f->nnz = nnz;
    f->sms = (uint32_t)g->sms;
    TRY(mg__gpu_timer_create(ctx, &timer.t));
    TRY(mg__gpu_timer_start(ctx, timer.t));
    /* n + 2: form_max_row's result follows the offsets */
    TRY(form_alloc(ctx, f, (void **)&f->d_off, ((size_t)n + 2) * 8, "the matrix's row offsets"));
    TRY(form_alloc(ctx, f, (void **)&f->d_idx, (size_t)nnz * 4, "the matrix's column indices"));
    CU(cudaMemcpy(f->d_off, off, ((size_t)n + 1) * 8, cudaMemcpyHostToDevice));
    if (nnz > 0) CU(cudaMemcpy(f->d_idx, idx, (size_t)nnz * 4, cudaMemcpyHostToDevice));
    if (g->values != MG_VALUES_NONE) {
        const int k = g->values == MG_VALUES_DOUBLE;
        const size_t es = k ? 8 : 4;
        TRY(values_alloc(ctx, f, &f->d_val[k], es, "the matrix's values"));
        if (nnz > 0) CU(cudaMemcpy(f->d_val[k], val, (size_t)nnz * es, cudaMemcpyHostToDevice));
    }
    TRY(mg__gpu_timer_stop(ctx, timer.t, &ms));
    g->upload_seconds += ms / 1e3;
    TRY(mg__gpu_timer_start(ctx, timer.t));
    TRY(form_max_row(ctx, f, off));
    TRY(mg__gpu_timer_stop(ctx, timer.t, &ms));
    g->seconds += ms / 1e3;
    return MG_SUCCESS;
}

/* The SpMV layout of an uploaded orientation (off, idx: the host CSR it was uploaded from), timed
 * (CUDA events) into g's seconds. A failure may leave part of it in f (mg__gpu_spmv_form_of gives
 * that back). */
mg_status spmv_layout(mg_context ctx, mg__gpu_matrix *g, mg__spmv_form *f, const uint64_t *off,
                      const uint32_t *idx) {
    timer_guard timer;
    double ms = 0;
    const uint32_t n = f->n, ncols = f->ncols;
    const uint64_t nnz = f->nnz;
    TRY(mg__gpu_timer_create(ctx, &timer.t));
    TRY(mg__gpu_timer_start(ctx, timer.t));
    const form_candidates c = peek_candidates(off, idx, n, nnz);
    if (c.most_diagonals != 0 || c.profile) TRY(form_shaped(ctx, g, f, c));
    if (f->ndiag == 0 && f->d_first == nullptr) TRY(form_bins(ctx, f, g->sms, off));
    /* (the stream form of the big buckets, launch_semiring's last case; CUB's sorts count in int) */
    if (g->values != MG_VALUES_DOUBLE && nnz >= kHubFirstNnz && ncols <= (uint32_t)INT32_MAX && f->ndiag == 0 &&
        f->d_first == nullptr && !f->csr_vector && !f->short_rows && f->bucket[0] == kStreamBucket)
        TRY(form_hub_first(ctx, f));
    TRY(mg__gpu_timer_stop(ctx, timer.t, &ms));
    g->seconds += ms / 1e3;
    f->laid_out = true;
    return MG_SUCCESS;
}

mg_status gpu_matrix_build(mg_context ctx, const mg_matrix A, mg__gpu_matrix **out) {
    *out = nullptr;
    int device = 0;
    cudaDeviceProp prop;
    CU(cudaGetDevice(&device));
    CU(cudaGetDeviceProperties(&prop, device));
    mg__gpu_matrix *g = static_cast<mg__gpu_matrix *>(mg__calloc(1, sizeof *g));
    if (g == nullptr)
        return mg__error(ctx, MG_OUT_OF_MEMORY, "mg_matrix_gpu_prepare: out of host memory");
    g->values = A->values;
    g->sms = prop.multiProcessorCount;
    const mg_status st = form_upload(ctx, g, &g->csr, A->rows, A->cols, A->nnz, A->csr.offsets,
                                     A->csr.indices, A->csr.weights);
    if (st != MG_SUCCESS) {
        gpu_matrix_free(g);
        return st;
    }
    *out = g;
    return MG_SUCCESS;
}

/* The pipelined kernel's resident blocks a multiprocessor (its persistent grid), asked once per
 * instantiation. */
template <typename T, int SR, uint32_t TILE, typename G>
uint32_t pipelined_per_sm(bool pattern) {
    static int per_sm[2];
    int &n = per_sm[pattern];
    if (n == 0) {
        const cudaError_t e =
            pattern ? cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                          &n, spmv_stream_pipelined<T, true, SR, TILE, uint32_t, G>, kStreamThreads, 0)
                    : cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                          &n, spmv_stream_pipelined<T, false, SR, TILE, uint32_t, G>, kStreamThreads, 0);
        if (e != cudaSuccess || n < 1) n = 1; /* a launch error, if any, is caught after the launch */
    }
    return (uint32_t)n;
}

/* The stream kernel's x gathers, not DRAM, bound it on power-law matrices: on R-MAT 21 in float the
 * L2's tag lookups were 86% busy (its sectors 37%, DRAM 32%; ncu, H100, session 29), one lookup per
 * gather that misses L1. So the big buckets' blocks ask for a shared-memory split that leaves L1
 * more room (cudaFuncAttributePreferredSharedMemoryCarveout, a percentage of the 256 KB):
 * - Float blocks (10 KB of shared memory each, 8 a multiprocessor) got a 132 KB split from the
 *   driver; 28% gives 100 KB: L1 hits 16.6% -> 19.3%, R-MAT 19 and 21 4-7% faster, the other float
 *   matrices of the big buckets within noise (A/B over the set, H100, session 29).
 * - Double blocks (19 KB each) lose a third of their residency at 100 KB (R-MAT 21 1.3x slower);
 *   43% (a 132 KB split: six blocks) made R-MAT 19 and 21 4-7% faster but the graphs of 1.6-2M
 *   entries (dblp-2010, coAuthorsDBLP, R-MAT 15) 8-11% slower, whose x (2.6 MB at most) L2 holds
 *   anyway and whose short products need every block in flight (five rounds alternated, H100,
 *   session 31). So double asks only from kDoubleSplitNnz entries and leaves the driver's choice
 *   below; sizes between 2M and 16M entries were not measured.
 * The small buckets' products are set by a launch's latency and keep the driver's choice. The
 * attribute belongs to the kernel, so it is set only when a launch wants another value than the
 * last (per process: another device starts from what it was given here, a hint only). */
constexpr uint64_t kDoubleSplitNnz = 8u << 20;

template <auto Kernel> void prefer_split(int percent) {
    static std::atomic<int> now{cudaSharedmemCarveoutDefault};
    if (now.exchange(percent, std::memory_order_relaxed) == percent) return;
    if (cudaFuncSetAttribute(reinterpret_cast<const void *>(Kernel), cudaFuncAttributePreferredSharedMemoryCarveout,
                             percent) != cudaSuccess)
        (void)cudaGetLastError(); /* a hint: the launch works without it */
}

/* The stream kernel over offsets of type O: the form's 32-bit ones where it has them (nnz < 2^32),
 * else the CSR's 64-bit ones. Fewer bytes and address instructions a row: on the H100 (session 33,
 * A/B) R-MAT 19 float 5% faster, matrices of 10k-50k entries 0-10%, dblp-2010 unchanged. */
template <typename T, int SR, uint32_t TILE, typename O, typename G>
void launch_stream_rows(const mg__spmv_form *f, int k, const O *off, const T *val, const G &x, T *y, T alpha,
                        T beta) {
    const Chunks ch{f->d_chunk_long, f->d_chunk_begin, f->d_long_rows, f->d_long_first, f->d_partial,
                    f->d_arrive};
    if constexpr (TILE == kStreamBucket + kLongRow) { /* (prefer_split) */
        const int percent = sizeof(T) == 4 ? 28 : f->nnz >= kDoubleSplitNnz ? 43 : cudaSharedmemCarveoutDefault;
        if (val == nullptr) prefer_split<spmv_stream<T, true, SR, TILE, O, G>>(percent);
        else prefer_split<spmv_stream<T, false, SR, TILE, O, G>>(percent);
    }
    const unsigned grid = f->nblk[k] + f->nchunks;
    if (val == nullptr)
        launch_chained(G::kChained, spmv_stream<T, true, SR, TILE, O, G>, grid, kStreamThreads, off, f->d_idx, val, x,
                       y, f->d_blk_row[k], f->nblk[k], f->long_len, ch, alpha, beta);
    else
        launch_chained(G::kChained, spmv_stream<T, false, SR, TILE, O, G>, grid, kStreamThreads, off, f->d_idx, val, x,
                       y, f->d_blk_row[k], f->nblk[k], f->long_len, ch, alpha, beta);
}

/* One launch: the row blocks, then a block per long-row chunk; for the short form the pipelined
 * kernel over a persistent grid. */
template <typename T, int SR, uint32_t TILE, typename G>
void launch_stream(const mg__spmv_form *f, int k, const T *val, const G &x, T *y, T alpha, T beta) {
    if (f->d_blk_e[k] != nullptr) {
        const uint32_t most = pipelined_per_sm<T, SR, TILE, G>(val == nullptr) * f->sms;
        const unsigned grid = f->nblk[k] < most ? f->nblk[k] : most;
        if (val == nullptr)
            launch_chained(G::kChained, spmv_stream_pipelined<T, true, SR, TILE, uint32_t, G>, grid, kStreamThreads,
                f->d_off32, f->d_idx, val, x, y, f->d_blk_row[k], f->d_blk_e[k], f->nblk[k], alpha, beta);
        else
            launch_chained(G::kChained, spmv_stream_pipelined<T, false, SR, TILE, uint32_t, G>, grid, kStreamThreads,
                f->d_off32, f->d_idx, val, x, y, f->d_blk_row[k], f->d_blk_e[k], f->nblk[k], alpha, beta);
        return;
    }
    if (f->d_off32 != nullptr) launch_stream_rows<T, SR, TILE>(f, k, f->d_off32, val, x, y, alpha, beta);
    else launch_stream_rows<T, SR, TILE>(f, k, (const uint64_t *)f->d_off, val, x, y, alpha, beta);
}

template <typename T, int SR, typename G>
void launch_diag(const mg__spmv_form *f, const T *val, const G &x, T *y, T alpha, T beta) {
    diag_offsets o;
    memcpy(o.o, f->diag_off, sizeof o.o);
    unsigned grid = (unsigned)(((uint64_t)f->n + kThreads - 1) / kThreads);
    if (G::kChained) {
        /* CG's product sums p'q: one atomic a block, so a grid of resident blocks that stride */
        static int resident[2];
        int &r = resident[val == nullptr];
        if (r == 0 && cudaOccupancyMaxActiveBlocksPerMultiprocessor(&r, val == nullptr ? spmv_diag<T, true, SR, G> : spmv_diag<T, false, SR, G>, kThreads, 0) != cudaSuccess) r = 1;
        grid = std::min<unsigned>(grid, (unsigned)(r * f->sms));
    }
    if (val == nullptr)
        launch_chained(G::kChained, spmv_diag<T, true, SR, G>, grid, kThreads, o, f->ndiag, val, f->d_diag_mask, f->n, x, y, alpha, beta);
    else
        launch_chained(G::kChained, spmv_diag<T, false, SR, G>, grid, kThreads, o, f->ndiag, val, f->d_diag_mask, f->n, x, y, alpha, beta);
}

/* The lanes of a profile row's group: about a row's vectors over kProfileVectors, 1 to 32. */
template <typename T> uint32_t profile_shift(const mg__spmv_form *f) {
    const uint64_t vectors = f->nnz / f->n * sizeof(T) / 16;
    uint32_t shift = 0;
    while (shift < 5 && ((uint64_t)kProfileVectors << shift) * 2 <= vectors) shift++;
    return shift;
}

template <typename T, int SR, typename G>
void launch_profile(const mg__spmv_form *f, const T *val, const G &x, T *y, T alpha, T beta) {
    const uint32_t shift = profile_shift<T>(f);
    const unsigned grid = (unsigned)((((uint64_t)f->n << shift) + kThreads - 1) / kThreads);
    if (val == nullptr)
        launch_chained(G::kChained, spmv_profile<T, true, SR, G>, grid, kThreads, f->d_off, f->d_first, val, f->n, shift, x, y, alpha, beta);
    else
        launch_chained(G::kChained, spmv_profile<T, false, SR, G>, grid, kThreads, f->d_off, f->d_first, val, f->n, shift, x, y, alpha, beta);
}

template <typename T, int SR, typename G>
void launch_vector(const mg__spmv_form *f, const T *val, const G &x, T *y, T alpha, T beta) {
    const uint64_t mean = f->nnz / f->n;
    uint32_t shift = 0; /* lanes a row: the mean row, rounded up to a power of two, 1 to 32 */
    while (shift < 5 && (1ull << shift) < mean) shift++;
    const unsigned grid = (unsigned)((((uint64_t)f->n << shift) + kThreads - 1) / kThreads);
    if (val == nullptr)
        launch_chained(G::kChained, spmv_vector<T, true, SR, G>, grid, kThreads, f->d_off, f->d_idx, val, f->n, shift, x, y, alpha, beta);
    else
        launch_chained(G::kChained, spmv_vector<T, false, SR, G>, grid, kThreads, f->d_off, f->d_idx, val, f->n, shift, x, y, alpha, beta);
}

template <typename T, int SR, typename G>
void launch_semiring(const mg__spmv_form *f, const T *val, const G &x, T *y, T alpha, T beta) {
    const int k = sizeof(T) == 8;
    if (f->ndiag != 0)
        launch_diag<T, SR>(f, val, x, y, alpha, beta);
    else if (f->d_first != nullptr)
        launch_profile<T, SR>(f, val, x, y, alpha, beta);
    else if (f->csr_vector)
        launch_vector<T, SR>(f, val, x, y, alpha, beta);
    else if (f->tile[k] == kSmallBucket + kLongRow) /* (and kStreamBucket + kMidRow) */
        launch_stream<T, SR, kSmallBucket + kLongRow>(f, k, val, x, y, alpha, beta);
    else if (f->short_rows)
        launch_stream<T, SR, kShortTile<T>>(f, k, val, x, y, alpha, beta);
    else
        launch_stream<T, SR, kStreamBucket + kLongRow>(f, k, val, x, y, alpha, beta);
}

template <typename T>
void launch_x(const mg__spmv_form *f, const T *val, mg_semiring sr, T alpha, T beta, const T *x, T *y) {
    const gather_x<T> gx{x};
    switch (sr) {
    case MG_SEMIRING_PLUS_TIMES:
        launch_semiring<T, MG_SEMIRING_PLUS_TIMES>(f, val, gx, y, alpha, beta);
        break;
    case MG_SEMIRING_MIN_PLUS:
        launch_semiring<T, MG_SEMIRING_MIN_PLUS>(f, val, gx, y, alpha, beta);
        break;
    case MG_SEMIRING_MAX_TIMES:
        launch_semiring<T, MG_SEMIRING_MAX_TIMES>(f, val, gx, y, alpha, beta);
        break;
    case MG_SEMIRING_OR_AND:
        launch_semiring<T, MG_SEMIRING_OR_AND>(f, val, gx, y, alpha, beta);
        break;
    }
}

template <typename T>
mg_status launch_typed(mg_context ctx, const mg__spmv_form *f, const T *val, mg_semiring sr, T alpha,
                       T beta, const T *x, T *y) {
    if (f->n == 0) return MG_SUCCESS;
    if constexpr (sizeof(T) == 4) {
        /* a hub-first form (form_hub_first): the stream form over its new column ids, x renumbered
         * to match */
        if (f->d_hub_idx != nullptr) {
            hub_x<<<blocks_for(f->ncols), kThreads>>>(x, f->d_col_order, f->ncols, f->d_xr);
            LAUNCHED("hub_x");
            mg__spmv_form hub_first = *f;
            hub_first.d_idx = f->d_hub_idx;
            launch_x<T>(&hub_first, val != nullptr ? f->d_hub_val : nullptr, sr, alpha, beta, f->d_xr, y);
            LAUNCHED("spmv_stream (hub-first)");
            return MG_SUCCESS;
        }
    }
    launch_x<T>(f, val, sr, alpha, beta, x, y);
    LAUNCHED("spmv_stream");
    return MG_SUCCESS;
}

template <typename T>
mg_status launch_cg(mg_context ctx, const mg__spmv_form *f, const T *val, const mg__cg_step *s,
                    T *q, double *pq) {
    if (f->n == 0) return MG_SUCCESS;
    const gather_cg<T> gc{(const T *)s->z, (const T *)s->p_old, (T *)s->p_new, (T *)s->x, s->rz, s->rr,
                          pq, s->threshold, s->flag, s->iter, T(0), T(0)};
    launch_semiring<T, MG_SEMIRING_PLUS_TIMES>(f, val, gc, q, T(1), T(0));
    LAUNCHED("spmv_stream (CG)");
    return MG_SUCCESS;
}

} // namespace

mg_status mg__gpu_matrix_of(mg_context ctx, const mg_matrix A, bool transpose, mg__gpu_matrix **g,
                            mg__spmv_form **f) {
    if (A->gpu == nullptr) {
        mg__gpu_matrix *built = nullptr;
        TRY(gpu_matrix_build(ctx, A, &built));
        A->gpu = built;
        A->free_gpu = gpu_matrix_free;
    }
    mg__gpu_matrix *gm = static_cast<mg__gpu_matrix *>(A->gpu);
    if (transpose && gm->csc.d_off == nullptr) {
        const uint64_t *off;
        const uint32_t *idx;
        const void *val;
        TRY(mg_matrix_csc(ctx, A, &off, &idx, &val));
        const mg_status st = form_upload(ctx, gm, &gm->csc, A->cols, A->rows, A->nnz, off, idx, val);
        if (st != MG_SUCCESS) {
            form_free(&gm->csc);
            return st;
        }
    }
    *g = gm;
    *f = transpose ? &gm->csc : &gm->csr;
    return MG_SUCCESS;
}

mg_status mg__gpu_host_orientation(mg_context ctx, const mg_matrix A, bool transpose, const uint64_t **off,
                                   const uint32_t **idx) {
    *off = A->csr.offsets;
    *idx = A->csr.indices;
    if (!transpose) return MG_SUCCESS;
    const void *val;
    return mg_matrix_csc(ctx, A, off, idx, &val);
}

mg_status mg__gpu_spmv_form_of(mg_context ctx, const mg_matrix A, bool transpose, mg__gpu_matrix **g,
                               mg__spmv_form **f) {
    TRY(mg__gpu_matrix_of(ctx, A, transpose, g, f));
    mg__spmv_form *const of = *f;
    if (of->laid_out) return MG_SUCCESS;
    const uint64_t *off;
    const uint32_t *idx;
    TRY(mg__gpu_host_orientation(ctx, A, transpose, &off, &idx));
    const mg__spmv_form before = *of; /* the upload alone: every layout field zero */
    const mg_status st = spmv_layout(ctx, *g, of, off, idx);
    if (st != MG_SUCCESS) {
        layout_free(of);
        *of = before;
    }
    return st;
}

mg_status mg__gpu_form_values(mg_context ctx, const mg__gpu_matrix *g, mg__spmv_form *f, mg_type t,
                              const void **values) {
    *values = nullptr;
    if (g->values == MG_VALUES_NONE) return MG_SUCCESS;
    const int want = t == MG_DOUBLE, have = g->values == MG_VALUES_DOUBLE;
    if (f->d_val[want] == nullptr) {
        TRY(values_alloc(ctx, f, &f->d_val[want], want ? 8 : 4, "the matrix's values converted"));
        if (f->nnz > 0) {
            if (want)
                convert_values<<<blocks_for(f->nnz), kThreads>>>((double *)f->d_val[1],
                                                                 (const float *)f->d_val[have], f->nnz);
            else
                convert_values<<<blocks_for(f->nnz), kThreads>>>((float *)f->d_val[0],
                                                                 (const double *)f->d_val[have], f->nnz);
            LAUNCHED("convert_values");
        }
    }
    *values = f->d_val[want];
    return MG_SUCCESS;
}

mg_status mg__gpu_spmv_values(mg_context ctx, const mg__gpu_matrix *g, mg__spmv_form *f, mg_type t,
                              const void **values) {
    /* the layout says which values a launch reads (the diagonal form has its own) */
    if (!f->laid_out)
        return mg__error(ctx, MG_INTERNAL_ERROR, "mg__gpu_spmv_values: the form's SpMV layout is not built");
    if (f->ndiag == 0) return mg__gpu_form_values(ctx, g, f, t, values);
    *values = nullptr;
    if (g->values == MG_VALUES_NONE) return MG_SUCCESS;
    const int want = t == MG_DOUBLE, have = g->values == MG_VALUES_DOUBLE;
    const uint64_t count = (uint64_t)f->ndiag * f->n;
    if (f->d_diag_val[want] == nullptr) {
        TRY(form_alloc(ctx, f, &f->d_diag_val[want], (size_t)count * (want ? 8 : 4),
                       "the diagonal form's values converted"));
        if (want)
            convert_values<<<blocks_for(count), kThreads>>>((double *)f->d_diag_val[1],
                                                            (const float *)f->d_diag_val[have], count);
        else
            convert_values<<<blocks_for(count), kThreads>>>((float *)f->d_diag_val[0],
                                                            (const double *)f->d_diag_val[have], count);
        LAUNCHED("convert_values");
    }
    *values = f->d_diag_val[want];
    return MG_SUCCESS;
}

mg_status mg__gpu_spmv_launch(mg_context ctx, const mg__spmv_form *f, mg_type t, const void *values,
                              mg_semiring semiring, double alpha, double beta, const void *x,
                              void *y) {
    if (!f->laid_out) /* its zeroed layout would be a launch of no blocks */
        return mg__error(ctx, MG_INTERNAL_ERROR, "mg__gpu_spmv_launch: the form's SpMV layout is not built");
    if (t == MG_DOUBLE)
        return launch_typed<double>(ctx, f, (const double *)values, semiring, alpha, beta,
                                    (const double *)x, (double *)y);
    return launch_typed<float>(ctx, f, (const float *)values, semiring, (float)alpha, (float)beta,
                               (const float *)x, (float *)y);
}

mg_status mg__gpu_spmv_cg(mg_context ctx, const mg__spmv_form *f, mg_type t, const void *values,
                          const mg__cg_step *step, void *q, double *pq) {
    if (!f->laid_out)
        return mg__error(ctx, MG_INTERNAL_ERROR, "mg__gpu_spmv_cg: the form's SpMV layout is not built");
    if (t == MG_DOUBLE)
        return launch_cg<double>(ctx, f, (const double *)values, step, (double *)q, pq);
    return launch_cg<float>(ctx, f, (const float *)values, step, (float *)q, pq);
}

extern "C" mg_status mg__gpu_spmv(mg_context ctx, const mg_matrix A, const mg_dense x, mg_dense y,
                                  const mg_spmv_options *opts) {
    mg__gpu_matrix *g = nullptr;
    mg__spmv_form *f = nullptr;
    const void *values = nullptr;
    TRY(mg__gpu_spmv_form_of(ctx, A, opts->transpose, &g, &f));
    TRY(mg__gpu_spmv_values(ctx, g, f, x->type, &values));
    TRY(mg__gpu_dense_to_device(ctx, x));
    /* y's old values are read only when beta is not 0; otherwise every entry is overwritten, and y
     * is marked device-resident only once that has succeeded, so a failure leaves it as it was */
    if (opts->beta != 0) TRY(mg__gpu_dense_to_device(ctx, y));
    else TRY(mg__gpu_dense_reserve(ctx, y));
    TRY(mg__gpu_spmv_launch(ctx, f, x->type, values, opts->semiring, opts->alpha, opts->beta,
                            x->d_data, y->d_data));
    /* no wait: launch errors are caught above, a fault while running surfaces where y is read
     * (mg__dense_need_host) or at mg_context_finish; back-to-back calls pay no round trip */
    y->on_device = true;
    return MG_SUCCESS;
}

extern "C" mg_status mg_matrix_gpu_prepare(mg_context ctx, const mg_matrix A,
                                           mg_gpu_matrix_info *info) {
    mg__gpu_matrix *g = nullptr;
    mg__spmv_form *f = nullptr;
    int devices = 0;
    if (info != nullptr) memset(info, 0, sizeof *info);
    TRY(mg__check_context(ctx));
    TRY(mg__check_matrix(ctx, A, "mg_matrix_gpu_prepare: A"));
    TRY(mg__gpu_device_count(ctx, "mg_matrix_gpu_prepare", &devices));
    TRY(mg__gpu_spmv_form_of(ctx, A, false, &g, &f));
    if (info == nullptr) return MG_SUCCESS;
    info->seconds = g->seconds;
    info->upload_seconds = g->upload_seconds;
    info->device_bytes = g->csr.bytes + g->csc.bytes;
    info->csr_bytes = ((size_t)A->rows + 1) * 8 + (size_t)A->nnz * 4 +
                      (size_t)A->nnz * (A->values == MG_VALUES_NONE ? 0 : A->values == MG_VALUES_FLOAT ? 4 : 8);
    const int k = A->values == MG_VALUES_DOUBLE;
    if (f->ndiag != 0)
        snprintf(info->kernel, sizeof info->kernel, "diagonal (%u)", f->ndiag);
    else if (f->d_first != nullptr)
        snprintf(info->kernel, sizeof info->kernel, "profile");
    else if (f->csr_vector)
        snprintf(info->kernel, sizeof info->kernel, "csr-vector");
    else if (f->d_blk_e[k] != nullptr)
        snprintf(info->kernel, sizeof info->kernel, "csr-pipelined");
    else
        snprintf(info->kernel, sizeof info->kernel, "csr-stream%s%s", f->nlong > 0 ? "+split" : "",
                 f->d_hub_idx != nullptr ? "+hub-first" : "");
    return MG_SUCCESS;
}
