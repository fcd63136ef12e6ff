/*
 * bcsr_gpu.cu — the values of a block-CSR product C = A B on the device (mg_bcsr_multiply on a GPU
 * context). bcsr.c has already built C's block structure on the host; here a thread block owns one
 * output block (i, j) at a time (a grid-stride loop over C's blocks), one thread per entry of it.
 * A's blocks (i, l) are taken a chunk of blockDim at a time: each thread finds one of them its B
 * block (l, j) by binary search in B's sorted block row l (a search per thread, not one thread
 * searching for all), then, l ascending, each pair that exists is staged in shared memory and every
 * thread adds its row of A's block times its column of B's. Each entry has one owner, so unlike the
 * seed report's kernel (a block per block row of A, atomicAdd into C) there are no atomics, and each
 * entry sums in the CPU engine's order: uint64 results (wrapping modulo 2^64, as C's unsigned
 * arithmetic does) agree bit for bit with the CPU's.
 */
#include <cuda_runtime.h>

#include <stdint.h>

extern "C" {
#include "mg_internal.h"
}
#include "sparse/bcsr_internal.h"

namespace {
#include "gpu_util.cuh"

/* The block row holding output block p: the last i with off[i] <= p. */
__device__ uint32_t block_row_of(const uint64_t *off, uint32_t rows, uint64_t p) {
    uint32_t lo = 0, hi = rows;
    while (hi - lo > 1) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (off[mid] <= p) lo = mid;
        else hi = mid;
    }
    return lo;
}

/* B's block (l, j)'s position, or -1 when block row l does not store it. */
__device__ int64_t find_block(const uint32_t *cols, uint64_t lo, uint64_t hi, uint32_t j) {
    const uint64_t end = hi;
    while (lo < hi) {
        const uint64_t mid = lo + (hi - lo) / 2;
        if (cols[mid] < j) lo = mid + 1;
        else hi = mid;
    }
    return lo < end && cols[lo] == j ? (int64_t)lo : -1;
}

template <typename T>
__global__ void bcsr_product(uint32_t k, uint32_t c_block_rows, uint64_t c_nblocks,
                             const uint64_t *__restrict__ a_off, const uint32_t *__restrict__ a_col,
                             const T *__restrict__ a_val, const uint64_t *__restrict__ b_off,
                             const uint32_t *__restrict__ b_col, const T *__restrict__ b_val,
                             const uint64_t *__restrict__ c_off, const uint32_t *__restrict__ c_col,
                             T *__restrict__ c_val) {
    /* blockDim.x matches (B's block for each of a chunk of A's blocks, or -1), then A's block and
     * B's block (k*k values each); 8-byte words keep every part aligned */
    extern __shared__ uint64_t staged[];
    int64_t *match = reinterpret_cast<int64_t *>(staged);
    T *as = reinterpret_cast<T *>(staged + blockDim.x);
    T *bs = as + k * k;
    const uint32_t kk = k * k, t = threadIdx.x, r = t / k, c = t % k;
    for (uint64_t p = blockIdx.x; p < c_nblocks; p += gridDim.x) {
        const uint32_t i = block_row_of(c_off, c_block_rows, p);
        const uint32_t j = c_col[p];
        const uint64_t a_end = a_off[i + 1];
        T sum = 0;
        for (uint64_t chunk = a_off[i]; chunk < a_end; chunk += blockDim.x) {
            /* each thread looks up one of A's blocks (i, l): B's block (l, j), in parallel */
            if (chunk + t < a_end) {
                const uint32_t l = a_col[chunk + t];
                match[t] = find_block(b_col, b_off[l], b_off[l + 1], j);
            }
            __syncthreads();
            const uint64_t n = a_end - chunk < blockDim.x ? a_end - chunk : blockDim.x;
            for (uint64_t q = 0; q < n; q++) {
                const int64_t b = match[q]; /* the same for every thread of the block */
                if (b < 0) continue;
                if (t < kk) {
                    as[t] = a_val[(chunk + q) * kk + t];
                    bs[t] = b_val[(uint64_t)b * kk + t];
                }
                __syncthreads();
                if (t < kk)
                    for (uint32_t m = 0; m < k; m++) sum += as[r * k + m] * bs[m * k + c];
                __syncthreads(); /* the staged blocks are rewritten next */
            }
            __syncthreads(); /* match is rewritten next */
        }
        if (t < kk) c_val[p * kk + t] = sum;
    }
}

/* Every device array of one product, freed together. */
struct device_arrays {
    void *p[9] = {};
    ~device_arrays() {
        for (void *q : p)
            if (q != nullptr) cudaFree(q);
    }
};

mg_status upload(mg_context ctx, void **d, const void *h, size_t bytes, const char *what) {
    cudaError_t e = cudaMalloc(d, bytes ? bytes : 8);
    if (e != cudaSuccess) {
        *d = nullptr;
        (void)cudaGetLastError();
        return mg__error(ctx, e == cudaErrorMemoryAllocation ? MG_OUT_OF_MEMORY : MG_DEVICE_ERROR,
                         "mg_bcsr_multiply: cudaMalloc of %zu bytes for %s: %s", bytes, what,
                         cudaGetErrorString(e));
    }
    if (h != nullptr && bytes > 0 && (e = cudaMemcpy(*d, h, bytes, cudaMemcpyHostToDevice)) != cudaSuccess)
        return cu_fail(ctx, e, "mg_bcsr_multiply", what);
    return MG_SUCCESS;
}

template <typename T>
mg_status run(mg_context ctx, const mg_bcsr A, const mg_bcsr B, mg_bcsr C) {
    device_arrays d;
    const uint64_t kk = (uint64_t)C->k * C->k;
    const size_t vs = sizeof(T);
    TRY(upload(ctx, &d.p[0], A->offsets, ((size_t)A->block_rows + 1) * 8, "A's block offsets"));
    TRY(upload(ctx, &d.p[1], A->bcols, (size_t)A->nblocks * 4, "A's block columns"));
    TRY(upload(ctx, &d.p[2], A->values, (size_t)(A->nblocks * kk) * vs, "A's values"));
    TRY(upload(ctx, &d.p[3], B->offsets, ((size_t)B->block_rows + 1) * 8, "B's block offsets"));
    TRY(upload(ctx, &d.p[4], B->bcols, (size_t)B->nblocks * 4, "B's block columns"));
    TRY(upload(ctx, &d.p[5], B->values, (size_t)(B->nblocks * kk) * vs, "B's values"));
    TRY(upload(ctx, &d.p[6], C->offsets, ((size_t)C->block_rows + 1) * 8, "C's block offsets"));
    TRY(upload(ctx, &d.p[7], C->bcols, (size_t)C->nblocks * 4, "C's block columns"));
    TRY(upload(ctx, &d.p[8], nullptr, (size_t)(C->nblocks * kk) * vs, "C's values"));
    if (C->nblocks > 0) {
        const unsigned threads = (unsigned)((kk + 31) / 32 * 32);
        const unsigned grid = (unsigned)(C->nblocks < 65535u * 32u ? C->nblocks : 65535u * 32u);
        const size_t shared = threads * sizeof(int64_t) + 2 * kk * vs;
        bcsr_product<T><<<grid, threads, shared>>>(
            C->k, C->block_rows, C->nblocks, (const uint64_t *)d.p[0], (const uint32_t *)d.p[1],
            (const T *)d.p[2], (const uint64_t *)d.p[3], (const uint32_t *)d.p[4],
            (const T *)d.p[5], (const uint64_t *)d.p[6], (const uint32_t *)d.p[7], (T *)d.p[8]);
        cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess) return cu_fail(ctx, e, "mg_bcsr_multiply", "the bcsr_product launch");
        e = cudaMemcpy(C->values, d.p[8], (size_t)(C->nblocks * kk) * vs, cudaMemcpyDeviceToHost);
        if (e != cudaSuccess) return cu_fail(ctx, e, "mg_bcsr_multiply", "bcsr_product (or copying C back)");
    }
    return MG_SUCCESS;
}
} // namespace

extern "C" mg_status mg__gpu_bcsr_values(mg_context ctx, const mg_bcsr A, const mg_bcsr B, mg_bcsr C,
                                         const mg_bcsr_multiply_options *opts) {
    int count = 0, previous = 0;
    TRY(mg__gpu_device_count(ctx, "mg_bcsr_multiply", &count));
    cudaError_t e = cudaGetDevice(&previous);
    if (e != cudaSuccess) return cu_fail(ctx, e, "mg_bcsr_multiply", "cudaGetDevice");
    const int device = ((opts->device % count) + count) % count;
    if ((e = cudaSetDevice(device)) != cudaSuccess)
        return cu_fail(ctx, e, "mg_bcsr_multiply", "cudaSetDevice");
    mg_status status = C->type == MG_BCSR_UINT64  ? run<unsigned long long>(ctx, A, B, C)
                       : C->type == MG_BCSR_FLOAT ? run<float>(ctx, A, B, C)
                                                  : run<double>(ctx, A, B, C);
    /* The caller's device stays its own (the rest of the library works on the current device). */
    (void)cudaSetDevice(previous);
    return status;
}
