/*
 * gpu_util.cuh — the small CUDA helpers core's device code shares (gpu_vector.cu, gpu_frontier.cu):
 * launch geometry, a grid-stride loop, a block's sums added to device totals, turning a CUDA error into an mg_status named after the
 * function, and a temporary device buffer released when it goes out of scope. Include inside an
 * anonymous namespace, after mg_internal.h.
 */
#ifndef MG_GPU_UTIL_CUH
#define MG_GPU_UTIL_CUH

constexpr int kThreads = 256;

inline unsigned blocks_for(uint64_t n) {
    uint64_t b = (n + kThreads - 1) / kThreads;
    return (unsigned)(b < 65535u * 32u ? (b ? b : 1) : 65535u * 32u);
}

/* K per-thread partial sums added to dst[0..K) with one atomic each per block of kThreads threads.
 * Every thread of the block calls it. */
template <int K> __device__ inline void block_sums_add(double (&v)[K], double *const (&dst)[K]) {
    __shared__ double sums[K][kThreads / 32];
#pragma unroll
    for (int k = 0; k < K; k++) {
        for (int o = 16; o > 0; o >>= 1) v[k] += __shfl_down_sync(0xffffffffu, v[k], o);
        if ((threadIdx.x & 31) == 0) sums[k][threadIdx.x >> 5] = v[k];
    }
    __syncthreads();
    if (threadIdx.x < K) {
        double s = 0;
        for (int w = 0; w < kThreads / 32; w++) s += sums[threadIdx.x][w];
        atomicAdd(dst[threadIdx.x], s);
    }
}

/* Programmatic dependent launch (compute capability 9.0 on): a kernel started by launch_chained may
 * be scheduled while the kernel before it in the stream is still running; its chain_wait() lets the
 * launch after it be scheduled in turn, then waits until the one before has ended with its writes
 * visible. Every thread calls chain_wait() before it reads what the kernel before wrote. A chain of
 * short dependent kernels (CG's iterations) so overlaps each launch's start with the end of the one
 * before. Kernels built for an older architecture (the PTX version tells) are launched plainly. */
__device__ inline void chain_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    cudaTriggerProgrammaticLaunchCompletion();
    cudaGridDependencySynchronize();
#endif
}

template <typename... P, typename... A>
void launch_chained(bool chained, void (*kernel)(P...), unsigned grid, unsigned threads, A... args) {
    static int built_for[64]; /* per device: 0 not asked, 1 chain_wait compiled in, 2 not */
    int device = 0;
    if (chained && cudaGetDevice(&device) == cudaSuccess && device < 64) {
        if (__atomic_load_n(&built_for[device], __ATOMIC_RELAXED) == 0) {
            cudaFuncAttributes fa;
            const bool ok = cudaFuncGetAttributes(&fa, kernel) == cudaSuccess && fa.ptxVersion >= 90;
            (void)cudaGetLastError();
            __atomic_store_n(&built_for[device], ok ? 1 : 2, __ATOMIC_RELAXED);
        }
        if (__atomic_load_n(&built_for[device], __ATOMIC_RELAXED) == 1) {
            cudaLaunchAttribute attr[1];
            attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
            attr[0].val.programmaticStreamSerializationAllowed = 1;
            cudaLaunchConfig_t cfg = {};
            cfg.gridDim = dim3(grid);
            cfg.blockDim = dim3(threads);
            cfg.attrs = attr;
            cfg.numAttrs = 1;
            (void)cudaLaunchKernelEx(&cfg, kernel, args...); /* an error is the caller's LAUNCHED's */
            return;
        }
    }
    kernel<<<grid, threads>>>(args...);
}

#define GRID_STRIDE(i, n)                                                                          \
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < (uint64_t)(n);          \
         i += (uint64_t)gridDim.x * blockDim.x)

mg_status cu_fail(mg_context ctx, cudaError_t e, const char *fn, const char *what) {
    (void)cudaGetLastError();
    if (e == cudaErrorMemoryAllocation)
        return mg__error(ctx, MG_OUT_OF_MEMORY, "%s: out of device memory: %s", fn, what);
    return mg__error(ctx, MG_DEVICE_ERROR, "%s: %s: %s", fn, what, cudaGetErrorString(e));
}

#define CU(expr)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (expr);                                                                   \
        if (e_ != cudaSuccess) return cu_fail(ctx, e_, __func__, #expr);                           \
    } while (0)
#define LAUNCHED(what) CU(cudaGetLastError())
#define TRY(call)                                                                                  \
    do {                                                                                           \
        mg_status s_ = (call);                                                                     \
        if (s_ != MG_SUCCESS) return s_;                                                           \
    } while (0)

/* Device memory of vectors and frontiers: from the stream-ordered allocator on the default stream
 * (the GPU backend keeps its pool's freed memory, mg__gpu_keep_pool), released with dfree. An
 * algorithm makes and frees its frontiers and vectors on every call; with cudaMalloc / cudaFree each
 * of those synchronised the device and mapped memory anew (R-MAT 22 BFS: 1.5 ms of steps in runs
 * of 4 to 35 ms). A failure is MG_OUT_OF_MEMORY (or MG_DEVICE_ERROR) naming the purpose. */
inline mg_status dalloc(mg_context ctx, void **p, size_t bytes, const char *what) {
    cudaError_t e = cudaMallocAsync(p, bytes ? bytes : 8, 0);
    if (e != cudaSuccess) {
        *p = nullptr;
        (void)cudaGetLastError();
        return mg__error(ctx, e == cudaErrorMemoryAllocation ? MG_OUT_OF_MEMORY : MG_DEVICE_ERROR,
                         "cudaMallocAsync of %zu bytes for %s: %s", bytes, what, cudaGetErrorString(e));
    }
    return MG_SUCCESS;
}

inline void dfree(void *p) {
    if (p != nullptr) (void)cudaFreeAsync(p, 0);
}

/* A temporary device buffer, released when it goes out of scope. It comes from the stream-ordered
 * allocator on the default stream, whose allocation and release do not synchronise the device as
 * cudaMalloc / cudaFree do (a reduction per SSSP bucket on a road graph paid that every time). */
struct dbuf {
    void *p = nullptr;
    ~dbuf() { if (p) cudaFreeAsync(p, 0); }
};

inline mg_status dbuf_alloc(mg_context ctx, dbuf *b, size_t bytes, const char *what) {
    cudaError_t e = cudaMallocAsync(&b->p, bytes ? bytes : 8, 0);
    if (e != cudaSuccess) {
        b->p = nullptr;
        (void)cudaGetLastError();
        return mg__error(ctx, e == cudaErrorMemoryAllocation ? MG_OUT_OF_MEMORY : MG_DEVICE_ERROR,
                         "cudaMallocAsync of %zu bytes for %s: %s", bytes, what, cudaGetErrorString(e));
    }
    return MG_SUCCESS;
}

#endif
