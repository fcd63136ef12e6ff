/*
 * spmv_gpu.cu — SpMV on the device over four semirings: a matrix's device form (sparse/spmv_gpu.h),
 * built once and cached on the matrix, and the row-binned CSR kernels.
 *
 * The kernel choice, per matrix, from its mean row length (nnz / rows): a CSR-vector kernel gives
 * each row `lanes` threads, the power of two at or above the mean (2 to 32), so a warp reads 32/lanes
 * short rows at once with few idle lanes (the adaptive CSR-vector of Bell and Garland, cuSPARSE's
 * rule of thumb); rows longer than 16 * lanes would keep their lanes looping while the rest of the
 * warp waits, so they are cut into chunks of kChunk entries, one thread block each, and a second
 * kernel combines each row's chunks (a single dense row of 100k entries then spreads over 49 blocks
 * instead of one warp). The vector kernel runs a persistent grid (8 blocks a multiprocessor) that
 * strides over the rows, which keeps CG's fused dot product at one atomic a block.
 *
 * Not done: the compressed-index form (column panels with 16-bit local column ids, halving index
 * bytes on wide matrices); see docs/ARCHITECTURE.md.
 *
 * Float arithmetic accumulates in float within a row (chunk partials in double), double in double.
 */
#include <cuda_runtime.h>
#include <cub/cub.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <math.h>

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
constexpr int kBlocksPerSm = 8;

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

/* One warp's partial dot products summed over the block, then one atomic. Every thread of the
 * block calls it. */
__device__ inline void block_dot_add(double v, double *dot) {
    __shared__ double warp_sums[kThreads / 32];
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(kFull, v, o);
    if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x >> 5] = v;
    __syncthreads();
    if (threadIdx.x == 0) {
        double s = 0;
        for (int w = 0; w < (int)(blockDim.x >> 5); w++) s += warp_sums[w];
        atomicAdd(dot, s);
    }
}

/* ---- kernels -------------------------------------------------------------------------------------- */

/* Rows of at most long_len entries, 2^lanes_log2 threads a row, a persistent grid striding over
 * warps' row groups (the stride is warp-uniform, so every lane reaches the shuffles). */
template <typename T, bool PATTERN, int SR>
__global__ void __launch_bounds__(kThreads)
spmv_vector(const uint64_t *__restrict__ off, const uint32_t *__restrict__ idx,
            const T *__restrict__ val, const T *__restrict__ x, T *__restrict__ y, uint32_t n,
            int lanes_log2, uint32_t long_len, T alpha, T beta, const T *__restrict__ dot_with,
            double *dot, const int *stop) {
    typedef semiring<T, SR> S;
    if (stop != nullptr && *stop != 0) return;
    const int lanes = 1 << lanes_log2;
    const unsigned wlane = threadIdx.x & 31, lane = threadIdx.x & (lanes - 1);
    const int rows_log2 = 5 - lanes_log2; /* rows a warp takes at once, log2 */
    const uint64_t warp = ((uint64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const uint64_t warps = ((uint64_t)gridDim.x * blockDim.x) >> 5;
    double my_dot = 0;
    for (uint64_t r0 = warp << rows_log2; r0 < n; r0 += warps << rows_log2) {
        const uint64_t row = r0 + (wlane >> lanes_log2);
        T sum = S::zero();
        bool mine = false;
        if (row < n) {
            const uint64_t b = __ldg(off + row), e = __ldg(off + row + 1);
            if (e - b <= long_len) {
                mine = true;
                /* no unrolling: a short row is about one pass of its lanes (unrolled by 4, the
                 * loop's remainder handling spilled registers) */
                for (uint64_t j = b + lane; j < e; j += lanes) {
                    const T xv = __ldg(x + __ldg(idx + j));
                    sum = S::add(sum, S::mul(PATTERN ? T(1) : __ldg(val + j), xv));
                }
            }
        }
        for (int o = lanes >> 1; o > 0; o >>= 1) sum = S::add(sum, __shfl_down_sync(kFull, sum, o, lanes));
        if (mine && lane == 0) {
            const T out = finish<T, SR>(sum, alpha, beta, y, row);
            y[row] = out;
            if (dot != nullptr) my_dot += (double)dot_with[row] * (double)out;
        }
    }
    if (dot != nullptr) block_dot_add(my_dot, dot);
}

/* One chunk of a long row per block: partial[c] = the semiring sum of its entries' products. */
template <typename T, bool PATTERN, int SR>
__global__ void __launch_bounds__(kThreads)
spmv_chunk(const uint64_t *__restrict__ off, const uint32_t *__restrict__ idx,
           const T *__restrict__ val, const T *__restrict__ x, const uint32_t *__restrict__ chunk_row,
           const uint64_t *__restrict__ chunk_begin, double *partial, const int *stop) {
    typedef semiring<T, SR> S;
    __shared__ T warp_sums[kThreads / 32];
    if (stop != nullptr && *stop != 0) return;
    const uint32_t c = blockIdx.x;
    const uint64_t b = chunk_begin[c], row_end = off[chunk_row[c] + 1];
    const uint64_t e = b + kChunk < row_end ? b + kChunk : row_end;
    T sum = S::zero();
#pragma unroll 4
    for (uint64_t j = b + threadIdx.x; j < e; j += blockDim.x) {
        const T xv = __ldg(x + __ldg(idx + j));
        sum = S::add(sum, S::mul(PATTERN ? T(1) : __ldg(val + j), xv));
    }
    for (int o = 16; o > 0; o >>= 1) sum = S::add(sum, __shfl_down_sync(kFull, sum, o));
    if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x >> 5] = sum;
    __syncthreads();
    if (threadIdx.x == 0) {
        T s = S::zero();
        for (int w = 0; w < (int)(blockDim.x >> 5); w++) s = S::add(s, warp_sums[w]);
        partial[c] = (double)s;
    }
}

/* Each long row's chunks combined (in double) and written to y. */
template <typename T, int SR>
__global__ void spmv_finish_long(const uint32_t *__restrict__ long_rows,
                                 const uint32_t *__restrict__ long_first,
                                 const double *__restrict__ partial, uint32_t nlong, T *y, T alpha,
                                 T beta, const T *dot_with, double *dot, const int *stop) {
    typedef semiring<double, SR> S;
    if (stop != nullptr && *stop != 0) return;
    GRID_STRIDE(i, nlong) {
        const uint32_t row = long_rows[i];
        double s = S::zero();
        for (uint32_t c = long_first[i]; c < long_first[i + 1]; c++) s = S::add(s, partial[c]);
        const T out = finish<T, SR>((T)s, alpha, beta, y, row);
        y[row] = out;
        if (dot != nullptr) atomicAdd(dot, (double)dot_with[row] * (double)out);
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
struct is_long_row {
    chunks_of_row c;
    __host__ __device__ uint32_t operator()(uint32_t i) const { return c(i) != 0 ? 1u : 0u; }
};

__global__ void fill_chunks(const uint64_t *off, uint32_t n, uint32_t long_len,
                            const uint32_t *chunk_first, const uint32_t *long_index,
                            uint32_t *long_rows, uint32_t *long_first, uint32_t *chunk_row,
                            uint64_t *chunk_begin) {
    GRID_STRIDE(i, n) {
        const uint64_t b = off[i], len = off[i + 1] - b;
        if (len <= long_len) continue;
        const uint32_t j = long_index[i], c0 = chunk_first[i];
        long_rows[j] = (uint32_t)i;
        long_first[j] = c0;
        const uint32_t chunks = (uint32_t)((len + kChunk - 1) / kChunk);
        for (uint32_t k = 0; k < chunks; k++) {
            chunk_row[c0 + k] = (uint32_t)i;
            chunk_begin[c0 + k] = b + (uint64_t)k * kChunk;
        }
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

void form_free(mg__spmv_form *f) {
    dfree(f->d_off);
    dfree(f->d_idx);
    dfree(f->d_val[0]);
    dfree(f->d_val[1]);
    dfree(f->d_long_rows);
    dfree(f->d_long_first);
    dfree(f->d_chunk_row);
    dfree(f->d_chunk_begin);
    dfree(f->d_partial);
    memset(f, 0, sizeof *f);
}

void gpu_matrix_free(void *p) {
    mg__gpu_matrix *g = static_cast<mg__gpu_matrix *>(p);
    if (g == nullptr) return;
    form_free(&g->csr);
    form_free(&g->csc);
    mg__free(g);
}

/* The long-row chunk lists of an uploaded form, made on the device: two scans over the rows (the
 * chunks before each row, the long rows before it) and one fill. */
mg_status form_bins(mg_context ctx, mg__spmv_form *f) {
    const uint64_t mean = f->n ? (f->nnz + f->n - 1) / f->n : 0;
    int lanes_log2 = 1;
    while (lanes_log2 < 5 && ((uint64_t)1 << lanes_log2) < mean) lanes_log2++;
    f->lanes_log2 = lanes_log2;
    f->long_len = 16u << lanes_log2;
    f->nlong = f->nchunks = 0;
    if (f->n == 0) return MG_SUCCESS;

    const chunks_of_row count{f->d_off, f->n, f->long_len};
    const auto chunks = thrust::make_transform_iterator(thrust::counting_iterator<uint32_t>(0), count);
    const auto longs =
        thrust::make_transform_iterator(thrust::counting_iterator<uint32_t>(0), is_long_row{count});
    const int64_t items = (int64_t)f->n + 1;
    dbuf chunk_first, long_index, temp;
    TRY(dbuf_alloc(ctx, &chunk_first, (size_t)items * 4, "the SpMV row bins"));
    TRY(dbuf_alloc(ctx, &long_index, (size_t)items * 4, "the SpMV row bins"));
    size_t bytes_a = 0, bytes_b = 0;
    CU(cub::DeviceScan::ExclusiveSum(nullptr, bytes_a, chunks, (uint32_t *)chunk_first.p, items));
    CU(cub::DeviceScan::ExclusiveSum(nullptr, bytes_b, longs, (uint32_t *)long_index.p, items));
    TRY(dbuf_alloc(ctx, &temp, bytes_a > bytes_b ? bytes_a : bytes_b, "the SpMV row bins' scan"));
    CU(cub::DeviceScan::ExclusiveSum(temp.p, bytes_a, chunks, (uint32_t *)chunk_first.p, items));
    CU(cub::DeviceScan::ExclusiveSum(temp.p, bytes_b, longs, (uint32_t *)long_index.p, items));
    CU(cudaMemcpy(&f->nchunks, (uint32_t *)chunk_first.p + f->n, 4, cudaMemcpyDeviceToHost));
    CU(cudaMemcpy(&f->nlong, (uint32_t *)long_index.p + f->n, 4, cudaMemcpyDeviceToHost));
    if (f->nlong == 0) return MG_SUCCESS;

    TRY(form_alloc(ctx, f, (void **)&f->d_long_rows, (size_t)f->nlong * 4, "the SpMV long rows"));
    TRY(form_alloc(ctx, f, (void **)&f->d_long_first, ((size_t)f->nlong + 1) * 4, "the SpMV long rows"));
    TRY(form_alloc(ctx, f, (void **)&f->d_chunk_row, (size_t)f->nchunks * 4, "the SpMV chunks"));
    TRY(form_alloc(ctx, f, (void **)&f->d_chunk_begin, (size_t)f->nchunks * 8, "the SpMV chunks"));
    TRY(form_alloc(ctx, f, (void **)&f->d_partial, (size_t)f->nchunks * 8, "the SpMV chunk sums"));
    CU(cudaMemcpy(f->d_long_first + f->nlong, &f->nchunks, 4, cudaMemcpyHostToDevice));
    fill_chunks<<<blocks_for(f->n), kThreads>>>(f->d_off, f->n, f->long_len,
                                                (const uint32_t *)chunk_first.p,
                                                (const uint32_t *)long_index.p, f->d_long_rows,
                                                f->d_long_first, f->d_chunk_row, f->d_chunk_begin);
    LAUNCHED("fill_chunks");
    return MG_SUCCESS;
}

/* Uploads one orientation (host CSR arrays of n rows) and bins its rows; the upload and the
 * binning are timed apart (CUDA events) and added to g's totals. */
mg_status form_build(mg_context ctx, mg__gpu_matrix *g, mg__spmv_form *f, uint32_t n,
                     uint32_t ncols, uint64_t nnz, const uint64_t *off, const uint32_t *idx,
                     const void *val) {
    timer_guard timer;
    double ms = 0;
    f->n = n;
    f->ncols = ncols;
    f->nnz = nnz;
    TRY(mg__gpu_timer_create(ctx, &timer.t));
    TRY(mg__gpu_timer_start(ctx, timer.t));
    TRY(form_alloc(ctx, f, (void **)&f->d_off, ((size_t)n + 1) * 8, "the matrix's row offsets"));
    TRY(form_alloc(ctx, f, (void **)&f->d_idx, (size_t)nnz * 4, "the matrix's column indices"));
    CU(cudaMemcpy(f->d_off, off, ((size_t)n + 1) * 8, cudaMemcpyHostToDevice));
    if (nnz > 0) CU(cudaMemcpy(f->d_idx, idx, (size_t)nnz * 4, cudaMemcpyHostToDevice));
    if (g->values != MG_VALUES_NONE) {
        const int k = g->values == MG_VALUES_DOUBLE;
        const size_t es = k ? 8 : 4;
        TRY(form_alloc(ctx, f, &f->d_val[k], (size_t)nnz * es, "the matrix's values"));
        if (nnz > 0) CU(cudaMemcpy(f->d_val[k], val, (size_t)nnz * es, cudaMemcpyHostToDevice));
    }
    TRY(mg__gpu_timer_stop(ctx, timer.t, &ms));
    g->upload_seconds += ms / 1e3;
    TRY(mg__gpu_timer_start(ctx, timer.t));
    TRY(form_bins(ctx, f));
    TRY(mg__gpu_timer_stop(ctx, timer.t, &ms));
    g->seconds += ms / 1e3;
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
    const mg_status st = form_build(ctx, g, &g->csr, A->rows, A->cols, A->nnz, A->csr.offsets,
                                    A->csr.indices, A->csr.weights);
    if (st != MG_SUCCESS) {
        gpu_matrix_free(g);
        return st;
    }
    *out = g;
    return MG_SUCCESS;
}

template <typename T>
mg_status launch_typed(mg_context ctx, const mg__gpu_matrix *g, const mg__spmv_form *f,
                       const T *val, mg_semiring sr, T alpha, T beta, const T *x, T *y,
                       const T *dot_with, double *dot, const int *stop) {
    if (f->n == 0) return MG_SUCCESS;
    const uint64_t rows_per_block = (uint64_t)kThreads >> f->lanes_log2;
    const uint64_t want = ((uint64_t)f->n + rows_per_block - 1) / rows_per_block;
    const uint64_t cap = (uint64_t)g->sms * kBlocksPerSm;
    const unsigned blocks = (unsigned)(want < cap ? want : cap);
    const bool pattern = val == nullptr;
#define MG_SPMV_KERNELS(SR)                                                                        \
    do {                                                                                           \
        if (pattern)                                                                               \
            spmv_vector<T, true, SR><<<blocks, kThreads>>>(f->d_off, f->d_idx, val, x, y, f->n,    \
                                                           f->lanes_log2, f->long_len, alpha,      \
                                                           beta, dot_with, dot, stop);             \
        else                                                                                       \
            spmv_vector<T, false, SR><<<blocks, kThreads>>>(f->d_off, f->d_idx, val, x, y, f->n,   \
                                                            f->lanes_log2, f->long_len, alpha,     \
                                                            beta, dot_with, dot, stop);            \
        LAUNCHED("spmv_vector");                                                                   \
        if (f->nlong == 0) break;                                                                  \
        if (pattern)                                                                               \
            spmv_chunk<T, true, SR><<<f->nchunks, kThreads>>>(f->d_off, f->d_idx, val, x,          \
                                                              f->d_chunk_row, f->d_chunk_begin,    \
                                                              f->d_partial, stop);                 \
        else                                                                                       \
            spmv_chunk<T, false, SR><<<f->nchunks, kThreads>>>(f->d_off, f->d_idx, val, x,         \
                                                               f->d_chunk_row, f->d_chunk_begin,   \
                                                               f->d_partial, stop);                \
        LAUNCHED("spmv_chunk");                                                                    \
        spmv_finish_long<T, SR><<<blocks_for(f->nlong), kThreads>>>(                               \
            f->d_long_rows, f->d_long_first, f->d_partial, f->nlong, y, alpha, beta, dot_with,     \
            dot, stop);                                                                            \
        LAUNCHED("spmv_finish_long");                                                              \
    } while (0)
    switch (sr) {
    case MG_SEMIRING_PLUS_TIMES: MG_SPMV_KERNELS(MG_SEMIRING_PLUS_TIMES); break;
    case MG_SEMIRING_MIN_PLUS: MG_SPMV_KERNELS(MG_SEMIRING_MIN_PLUS); break;
    case MG_SEMIRING_MAX_TIMES: MG_SPMV_KERNELS(MG_SEMIRING_MAX_TIMES); break;
    case MG_SEMIRING_OR_AND: MG_SPMV_KERNELS(MG_SEMIRING_OR_AND); break;
    }
#undef MG_SPMV_KERNELS
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
        const mg_status st = form_build(ctx, gm, &gm->csc, A->cols, A->rows, A->nnz, off, idx, val);
        if (st != MG_SUCCESS) {
            form_free(&gm->csc);
            return st;
        }
    }
    *g = gm;
    *f = transpose ? &gm->csc : &gm->csr;
    return MG_SUCCESS;
}

mg_status mg__gpu_form_values(mg_context ctx, const mg__gpu_matrix *g, mg__spmv_form *f, mg_type t,
                              const void **values) {
    *values = nullptr;
    if (g->values == MG_VALUES_NONE) return MG_SUCCESS;
    const int want = t == MG_DOUBLE, have = g->values == MG_VALUES_DOUBLE;
    if (f->d_val[want] == nullptr) {
        TRY(form_alloc(ctx, f, &f->d_val[want], (size_t)f->nnz * (want ? 8 : 4),
                       "the matrix's values converted"));
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

mg_status mg__gpu_spmv_launch(mg_context ctx, const mg__gpu_matrix *g, const mg__spmv_form *f,
                              mg_type t, const void *values, mg_semiring semiring, double alpha,
                              double beta, const void *x, void *y, const void *dot_with, double *dot,
                              const int *stop) {
    if (t == MG_DOUBLE)
        return launch_typed<double>(ctx, g, f, (const double *)values, semiring, alpha, beta,
                                    (const double *)x, (double *)y, (const double *)dot_with, dot,
                                    stop);
    return launch_typed<float>(ctx, g, f, (const float *)values, semiring, (float)alpha,
                               (float)beta, (const float *)x, (float *)y, (const float *)dot_with,
                               dot, stop);
}

extern "C" mg_status mg__gpu_spmv(mg_context ctx, const mg_matrix A, const mg_dense x, mg_dense y,
                                  const mg_spmv_options *opts) {
    mg__gpu_matrix *g = nullptr;
    mg__spmv_form *f = nullptr;
    const void *values = nullptr;
    TRY(mg__gpu_matrix_of(ctx, A, opts->transpose, &g, &f));
    TRY(mg__gpu_form_values(ctx, g, f, x->type, &values));
    TRY(mg__gpu_dense_to_device(ctx, x));
    /* y's old values are read only when beta is not 0; otherwise every entry is overwritten, and y
     * is marked device-resident only once that has succeeded, so a failure leaves it as it was */
    if (opts->beta != 0) TRY(mg__gpu_dense_to_device(ctx, y));
    else TRY(mg__gpu_dense_reserve(ctx, y));
    TRY(mg__gpu_spmv_launch(ctx, g, f, x->type, values, opts->semiring, opts->alpha, opts->beta,
                            x->d_data, y->d_data, nullptr, nullptr, nullptr));
    CU(cudaStreamSynchronize(0));
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
    TRY(mg__gpu_matrix_of(ctx, A, false, &g, &f));
    if (info == nullptr) return MG_SUCCESS;
    info->seconds = g->seconds;
    info->upload_seconds = g->upload_seconds;
    info->device_bytes = g->csr.bytes + g->csc.bytes;
    info->csr_bytes = ((size_t)A->rows + 1) * 8 + (size_t)A->nnz * 4 +
                      (size_t)A->nnz * (A->values == MG_VALUES_NONE ? 0 : A->values == MG_VALUES_FLOAT ? 4 : 8);
    snprintf(info->kernel, sizeof info->kernel, "csr-vector%d%s", 1 << f->lanes_log2,
             f->nlong > 0 ? "+split" : "");
    return MG_SUCCESS;
}
