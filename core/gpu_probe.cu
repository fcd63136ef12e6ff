/*
 * gpu_probe.cu — mg_gpu_probe: the device's parameters measured the way seed 002 (paper
 * 002_431603f522a9e498, "performance modeling: parameter identification") measures them, on a warm
 * device: PCIe latency (tiny copies) and bandwidth both ways, pinned and pageable; kernel launch
 * latency (an empty kernel); device memory bandwidth; atomics throughput; peak FMA rate. Unlike the
 * seed (10 runs, trimmed mean) every figure is the median of kRuns runs after kWarmup untimed ones,
 * timed with CUDA events on the default stream; the benchmarks use read_gbs as their roofline.
 */
#include <cuda_runtime.h>

#include <algorithm>
#include <stdlib.h>
#include <string.h>

extern "C" {
#include "mg_internal.h"
}

namespace {

#include "gpu_util.cuh"

constexpr int kWarmup = 2, kRuns = 9;
constexpr size_t kPcieBytes = size_t(64) << 20;
constexpr int kLatencyCopies = 200;     /* 4-byte copies per timed run                  */
constexpr int kLaunches = 1000;         /* empty kernels per timed run                  */
constexpr size_t kMaxBuffer = size_t(1) << 30;
constexpr size_t kAtomicWords = size_t(1) << 26; /* distinct words: 256 MiB, > 4x an H100's L2 */
constexpr int kContendedWords = 1024;
constexpr int kAtomicIters = 64;        /* atomics per thread, contended and shared     */
constexpr int kFmaIters = 4096;         /* loop trips of kFmaChains FMAs per thread     */
constexpr int kFmaChains = 8;           /* independent chains: the FMA latency hidden   */

#define PROBE_CU(expr)                                                                             \
    do {                                                                                           \
        cudaError_t e_ = (expr);                                                                   \
        if (e_ != cudaSuccess) return cu_fail(ctx, e_, "mg_gpu_probe", #expr);                     \
    } while (0)

/* What the measurements share; freed by probe_release on every path. */
struct Probe {
    cudaEvent_t start = nullptr, stop = nullptr;
    void *d_buf = nullptr;       /* the bandwidth and atomics buffer: >= 8x the L2     */
    size_t buf_bytes = 0;
    unsigned *d_small = nullptr; /* sinks and contended counters: small_words words    */
    size_t small_words = 0;
    void *h_pinned = nullptr, *h_pageable = nullptr; /* kPcieBytes each                */
    int sms = 0;
};

void probe_release(Probe &P) {
    if (P.start) cudaEventDestroy(P.start);
    if (P.stop) cudaEventDestroy(P.stop);
    if (P.d_buf) cudaFree(P.d_buf);
    if (P.d_small) cudaFree(P.d_small);
    if (P.h_pinned) cudaFreeHost(P.h_pinned);
    free(P.h_pageable);
    (void)cudaGetLastError();
}

/* Median milliseconds of kRuns runs of work() (after kWarmup), between two events on the default
 * stream. work enqueues and returns its CUDA status; `what` names it in an error. */
template <typename Work>
mg_status median_ms(mg_context ctx, Probe &P, const char *what, Work work, double *ms) {
    double t[kRuns];
    for (int r = -kWarmup; r < kRuns; r++) {
        PROBE_CU(cudaEventRecord(P.start, 0));
        const cudaError_t e = work();
        if (e != cudaSuccess) return cu_fail(ctx, e, "mg_gpu_probe", what);
        PROBE_CU(cudaEventRecord(P.stop, 0));
        PROBE_CU(cudaEventSynchronize(P.stop));
        float f = 0;
        PROBE_CU(cudaEventElapsedTime(&f, P.start, P.stop));
        if (r >= 0) t[r] = f;
    }
    std::sort(t, t + kRuns);
    *ms = t[kRuns / 2];
    if (!(*ms > 0))
        return mg__error(ctx, MG_INTERNAL_ERROR, "mg_gpu_probe: %s timed at %g ms", what, *ms);
    return MG_SUCCESS;
}

/* ---- kernels ----------------------------------------------------------------------------------- */

__global__ void empty_kernel() {}

/* Sum of n float4s, four independent 16-byte loads in flight per thread; one partial per block
 * (sink[blockIdx.x]), so no value is dead and no atomics contend. */
__global__ void read_kernel(const float4 *__restrict__ a, size_t n, float *sink) {
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    float s = 0;
    for (; i + 3 * stride < n; i += 4 * stride) {
        const float4 v0 = a[i], v1 = a[i + stride], v2 = a[i + 2 * stride], v3 = a[i + 3 * stride];
        s += (v0.x + v0.y + v0.z + v0.w) + (v1.x + v1.y + v1.z + v1.w) +
             (v2.x + v2.y + v2.z + v2.w) + (v3.x + v3.y + v3.z + v3.w);
    }
    for (; i < n; i += stride) {
        const float4 v = a[i];
        s += v.x + v.y + v.z + v.w;
    }
    for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
    __shared__ float warp_sums[32];
    if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x >> 5] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
        float b = 0;
        for (unsigned w = 0; w < blockDim.x / 32; w++) b += warp_sums[w];
        sink[blockIdx.x] = b;
    }
}

__global__ void copy_kernel(const float4 *__restrict__ src, float4 *__restrict__ dst, size_t n) {
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (; i + 3 * stride < n; i += 4 * stride) {
        const float4 v0 = src[i], v1 = src[i + stride], v2 = src[i + 2 * stride],
                     v3 = src[i + 3 * stride];
        dst[i] = v0;
        dst[i + stride] = v1;
        dst[i + 2 * stride] = v2;
        dst[i + 3 * stride] = v3;
    }
    for (; i < n; i += stride) dst[i] = src[i];
}

/* One atomicAdd on each of n distinct words. */
__global__ void atomic_distinct_kernel(unsigned *words, size_t n) {
    GRID_STRIDE(i, n) atomicAdd(&words[i], 1u);
}

/* Every thread of the grid adds kAtomicIters times into one of kContendedWords words. */
__global__ void atomic_contended_kernel(unsigned *words) {
    const unsigned w = (blockIdx.x * blockDim.x + threadIdx.x) % kContendedWords;
    for (int k = 0; k < kAtomicIters; k++) atomicAdd(&words[w], 1u);
}

/* Every thread adds kAtomicIters times into its own shared word (no bank conflict); each block
 * writes its total to out[blockIdx.x] (checked: blockDim.x * kAtomicIters). */
__global__ void atomic_shared_kernel(unsigned *out) {
    __shared__ unsigned s[1024];
    s[threadIdx.x] = 0;
    __syncthreads();
    for (int k = 0; k < kAtomicIters; k++) atomicAdd(&s[threadIdx.x], 1u);
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned total = 0;
        for (unsigned t = 0; t < blockDim.x; t++) total += s[t];
        out[blockIdx.x] = total;
    }
}

/* kFmaChains independent chains a = a * b + c per thread (b, c from the host, so nothing folds;
 * with b < 1 the chains converge to c / (1 - b): no overflow, no denormals). The sum is stored only
 * when it equals `never`, which the host makes impossible, so the chains stay live. */
template <typename T>
__global__ void fma_kernel(T b, T c, T never, T *out) {
    T a[kFmaChains];
#pragma unroll
    for (int k = 0; k < kFmaChains; k++) a[k] = (T)(threadIdx.x + k) * (T)1e-3;
#pragma unroll 16
    for (int it = 0; it < kFmaIters; it++) {
#pragma unroll
        for (int k = 0; k < kFmaChains; k++) a[k] = fma(a[k], b, c);
    }
    T s = 0;
#pragma unroll
    for (int k = 0; k < kFmaChains; k++) s += a[k];
    if (s == never) out[blockIdx.x] = s;
}

/* ---- measurements ------------------------------------------------------------------------------ */

/* A round trip of a 4-byte pinned copy: kLatencyCopies synchronous copies back to back between two
 * events, so each copy's return to the host and the next one's submission are inside the time. */
mg_status pcie_latency(mg_context ctx, Probe &P, cudaMemcpyKind kind, double *us) {
    void *dst = kind == cudaMemcpyHostToDevice ? P.d_small : P.h_pinned;
    const void *src = kind == cudaMemcpyHostToDevice ? P.h_pinned : (const void *)P.d_small;
    double ms = 0;
    TRY(median_ms(ctx, P, kind == cudaMemcpyHostToDevice ? "cudaMemcpy of 4 bytes to the device"
                                                         : "cudaMemcpy of 4 bytes to the host",
                  [&] {
                      for (int k = 0; k < kLatencyCopies; k++) {
                          const cudaError_t e = cudaMemcpy(dst, src, 4, kind);
                          if (e != cudaSuccess) return e;
                      }
                      return cudaSuccess;
                  },
                  &ms));
    *us = ms * 1e3 / kLatencyCopies;
    return MG_SUCCESS;
}

mg_status pcie_bandwidth(mg_context ctx, Probe &P, cudaMemcpyKind kind, bool pinned, double *gbs) {
    void *host = pinned ? P.h_pinned : P.h_pageable;
    const bool h2d = kind == cudaMemcpyHostToDevice;
    char what[96];
    snprintf(what, sizeof what, "cudaMemcpy of 64 MiB to the %s (%s)", h2d ? "device" : "host",
             pinned ? "pinned" : "pageable");
    double ms = 0;
    TRY(median_ms(ctx, P, what,
                  [&] { return h2d ? cudaMemcpy(P.d_buf, host, kPcieBytes, kind)
                                   : cudaMemcpy(host, P.d_buf, kPcieBytes, kind); },
                  &ms));
    *gbs = kPcieBytes / (ms * 1e6);
    return MG_SUCCESS;
}

mg_status launch_latency(mg_context ctx, Probe &P, double *us) {
    double ms = 0;
    TRY(median_ms(ctx, P, "the empty kernel",
                  [&] {
                      for (int k = 0; k < kLaunches; k++) empty_kernel<<<1, 1>>>();
                      return cudaGetLastError();
                  },
                  &ms));
    *us = ms * 1e3 / kLaunches;
    return MG_SUCCESS;
}

/* Blocks of kThreads that fill every SM once (a full wave: no tail). */
template <typename Kernel>
mg_status full_wave(mg_context ctx, const Probe &P, Kernel kernel, const char *what, unsigned *blocks) {
    int per_sm = 0;
    const cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kThreads, 0);
    if (e != cudaSuccess) return cu_fail(ctx, e, "mg_gpu_probe", what);
    *blocks = (unsigned)(std::max(per_sm, 1) * P.sms);
    return MG_SUCCESS;
}

mg_status memory_bandwidth(mg_context ctx, Probe &P, double *read_gbs, double *copy_gbs) {
    unsigned blocks = 0;
    TRY(full_wave(ctx, P, read_kernel, "cudaOccupancyMaxActiveBlocksPerMultiprocessor(read_kernel)",
                  &blocks));
    if (blocks > P.small_words)
        return mg__error(ctx, MG_INTERNAL_ERROR, "mg_gpu_probe: %u blocks for %zu sink words", blocks,
                         P.small_words);
    const size_t n4 = P.buf_bytes / 16;
    double ms = 0;
    TRY(median_ms(ctx, P, "the read kernel",
                  [&] {
                      read_kernel<<<blocks, kThreads>>>((const float4 *)P.d_buf, n4, (float *)P.d_small);
                      return cudaGetLastError();
                  },
                  &ms));
    *read_gbs = (double)n4 * 16 / (ms * 1e6);
    TRY(full_wave(ctx, P, copy_kernel, "cudaOccupancyMaxActiveBlocksPerMultiprocessor(copy_kernel)",
                  &blocks));
    const size_t half = n4 / 2;
    const float4 *src = (const float4 *)P.d_buf;
    TRY(median_ms(ctx, P, "the copy kernel",
                  [&] {
                      copy_kernel<<<blocks, kThreads>>>(src, (float4 *)P.d_buf + half, half);
                      return cudaGetLastError();
                  },
                  &ms));
    *copy_gbs = (double)half * 16 * 2 / (ms * 1e6);
    return MG_SUCCESS;
}

mg_status atomics(mg_context ctx, Probe &P, mg_gpu_probe_result *r) {
    const size_t words = std::min(kAtomicWords, P.buf_bytes / 4);
    double ms = 0;
    TRY(median_ms(ctx, P, "the distinct-address atomics kernel",
                  [&] {
                      atomic_distinct_kernel<<<blocks_for(words), kThreads>>>((unsigned *)P.d_buf, words);
                      return cudaGetLastError();
                  },
                  &ms));
    r->global_atomics_gops = words / (ms * 1e6);

    unsigned blocks = 0;
    TRY(full_wave(ctx, P, atomic_contended_kernel,
                  "cudaOccupancyMaxActiveBlocksPerMultiprocessor(atomic_contended_kernel)", &blocks));
    const double contended_ops = (double)blocks * kThreads * kAtomicIters;
    PROBE_CU(cudaMemset(P.d_small, 0, kContendedWords * sizeof(unsigned)));
    TRY(median_ms(ctx, P, "the contended atomics kernel",
                  [&] {
                      atomic_contended_kernel<<<blocks, kThreads>>>(P.d_small);
                      return cudaGetLastError();
                  },
                  &ms));
    r->global_atomics_contended_gops = contended_ops / (ms * 1e6);
    /* every add landed: the words hold (warm-up + runs) x the ops of one run */
    unsigned counts[kContendedWords];
    PROBE_CU(cudaMemcpy(counts, P.d_small, sizeof counts, cudaMemcpyDeviceToHost));
    double total = 0;
    for (int w = 0; w < kContendedWords; w++) total += counts[w];
    if (total != contended_ops * (kWarmup + kRuns))
        return mg__error(ctx, MG_INTERNAL_ERROR,
                         "mg_gpu_probe: the contended atomics counted %.0f adds, %.0f were made", total,
                         contended_ops * (kWarmup + kRuns));

    TRY(full_wave(ctx, P, atomic_shared_kernel,
                  "cudaOccupancyMaxActiveBlocksPerMultiprocessor(atomic_shared_kernel)", &blocks));
    if (blocks > P.small_words)
        return mg__error(ctx, MG_INTERNAL_ERROR, "mg_gpu_probe: %u blocks for %zu sink words", blocks,
                         P.small_words);
    TRY(median_ms(ctx, P, "the shared atomics kernel",
                  [&] {
                      atomic_shared_kernel<<<blocks, kThreads>>>(P.d_small);
                      return cudaGetLastError();
                  },
                  &ms));
    r->shared_atomics_gops = (double)blocks * kThreads * kAtomicIters / (ms * 1e6);
    unsigned first = 0;
    PROBE_CU(cudaMemcpy(&first, P.d_small, sizeof first, cudaMemcpyDeviceToHost));
    if (first != (unsigned)kThreads * kAtomicIters)
        return mg__error(ctx, MG_INTERNAL_ERROR,
                         "mg_gpu_probe: the shared atomics counted %u adds in a block, %d were made",
                         first, kThreads * kAtomicIters);
    return MG_SUCCESS;
}

template <typename T>
mg_status fma_rate(mg_context ctx, Probe &P, const char *what, double *gflops) {
    unsigned blocks = 0;
    TRY(full_wave(ctx, P, fma_kernel<T>, what, &blocks));
    if (blocks > P.small_words / (sizeof(T) / 4))
        return mg__error(ctx, MG_INTERNAL_ERROR, "mg_gpu_probe: %u blocks for %zu sink words", blocks,
                         P.small_words);
    double ms = 0;
    TRY(median_ms(ctx, P, what,
                  [&] {
                      /* the chains tend to 1 from below: -1 is never their sum */
                      fma_kernel<T><<<blocks, kThreads>>>((T)0.999, (T)0.001, (T)-1, (T *)P.d_small);
                      return cudaGetLastError();
                  },
                  &ms));
    *gflops = 2.0 * kFmaChains * kFmaIters * (double)blocks * kThreads / (ms * 1e6);
    return MG_SUCCESS;
}

/* The buffers and events; *r's name and L2 size. */
mg_status probe_setup(mg_context ctx, Probe &P, mg_gpu_probe_result *r) {
    int device = 0;
    PROBE_CU(cudaGetDevice(&device));
    cudaDeviceProp prop;
    PROBE_CU(cudaGetDeviceProperties(&prop, device));
    snprintf(r->name, sizeof r->name, "%s", prop.name);
    r->l2_bytes = (size_t)prop.l2CacheSize;
    P.sms = prop.multiProcessorCount;
    size_t free_b = 0, total_b = 0;
    PROBE_CU(cudaMemGetInfo(&free_b, &total_b));
    /* at least 8x the L2, so the reads come from memory; at most 1 GiB or half of what is free */
    P.buf_bytes = std::min(kMaxBuffer, free_b / 2) & ~(size_t)4095;
    const size_t need = std::max(8 * r->l2_bytes, kPcieBytes);
    if (P.buf_bytes < need)
        return mg__error(ctx, MG_OUT_OF_MEMORY,
                         "mg_gpu_probe: %zu bytes of device memory free, the bandwidth buffer needs %zu "
                         "(8x the L2) with as much again to spare",
                         free_b, need);
    PROBE_CU(cudaMalloc(&P.d_buf, P.buf_bytes));
    /* bytes 0x3c: floats of about 0.0115, not zeros */
    PROBE_CU(cudaMemset(P.d_buf, 0x3c, P.buf_bytes));
    P.small_words = 1 << 16;
    PROBE_CU(cudaMalloc((void **)&P.d_small, P.small_words * sizeof(unsigned)));
    PROBE_CU(cudaMemset(P.d_small, 0, P.small_words * sizeof(unsigned)));
    PROBE_CU(cudaMallocHost(&P.h_pinned, kPcieBytes));
    P.h_pageable = malloc(kPcieBytes);
    if (P.h_pageable == nullptr)
        return mg__error(ctx, MG_OUT_OF_MEMORY, "mg_gpu_probe: out of host memory (%zu bytes)", kPcieBytes);
    /* touched, so the pageable copies do not time page faults */
    memset(P.h_pageable, 0x3c, kPcieBytes);
    memset(P.h_pinned, 0x3c, kPcieBytes);
    PROBE_CU(cudaEventCreate(&P.start));
    PROBE_CU(cudaEventCreate(&P.stop));
    return MG_SUCCESS;
}

mg_status probe_all(mg_context ctx, Probe &P, mg_gpu_probe_result *r) {
    TRY(probe_setup(ctx, P, r));
    TRY(pcie_latency(ctx, P, cudaMemcpyHostToDevice, &r->h2d_latency_us));
    TRY(pcie_latency(ctx, P, cudaMemcpyDeviceToHost, &r->d2h_latency_us));
    TRY(pcie_bandwidth(ctx, P, cudaMemcpyHostToDevice, true, &r->h2d_pinned_gbs));
    TRY(pcie_bandwidth(ctx, P, cudaMemcpyDeviceToHost, true, &r->d2h_pinned_gbs));
    TRY(pcie_bandwidth(ctx, P, cudaMemcpyHostToDevice, false, &r->h2d_pageable_gbs));
    TRY(pcie_bandwidth(ctx, P, cudaMemcpyDeviceToHost, false, &r->d2h_pageable_gbs));
    TRY(launch_latency(ctx, P, &r->launch_latency_us));
    TRY(memory_bandwidth(ctx, P, &r->read_gbs, &r->copy_gbs));
    TRY(atomics(ctx, P, r));
    TRY(fma_rate<float>(ctx, P, "the fp32 FMA kernel", &r->fp32_gflops));
    TRY(fma_rate<double>(ctx, P, "the fp64 FMA kernel", &r->fp64_gflops));
    return MG_SUCCESS;
}

} // namespace

extern "C" mg_status mg_gpu_probe(mg_context ctx, mg_gpu_probe_result *probe) {
    mg_status status = mg__check_context(ctx);
    if (status != MG_SUCCESS) return status;
    if (probe == NULL) return mg__error(ctx, MG_INVALID_ARGUMENT, "mg_gpu_probe: probe is NULL");
    int devices = 0;
    status = mg__gpu_device_count(ctx, "mg_gpu_probe", &devices);
    if (status != MG_SUCCESS) return status;
    mg_gpu_probe_result r;
    memset(&r, 0, sizeof r);
    Probe P;
    status = probe_all(ctx, P, &r);
    probe_release(P);
    if (status == MG_SUCCESS) *probe = r;
    return status;
}
