/*
 * gpu_util.cuh — the small CUDA helpers core's device code shares (gpu_vector.cu, gpu_frontier.cu):
 * launch geometry, a grid-stride loop, turning a CUDA error into an mg_status named after the
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
