/*
 * gpu_build.cuh — what the GPU preprocessing builds (gpu_preprocess.cu, dense_blocks.cu) share: one
 * build's stream, timing events and device blocks, tracked so that a single cleanup path frees
 * whatever is left after a failure; allocation that reports MG_OUT_OF_MEMORY naming the purpose;
 * CUB's two-phase calls with grown temporary storage; CUDA errors as an mg_status naming the entry
 * point, the call, file and line. Include inside an unnamed namespace, after mg_internal.h and cub.
 *
 * Device blocks come from the stream-ordered pool on the build's stream: a build allocates and
 * frees some twenty blocks of up to a gigabyte, and cudaMalloc / cudaFree synchronised the device
 * and mapped memory anew for each (a freed sort buffer is now reused by the next block on the
 * stream). The blocks a build keeps are freed later with cudaFree, which does not wait for pool
 * memory: the owners synchronise first. After a build, release() hands the pool's unused memory
 * back (the temporaries of a large graph run to gigabytes).
 */
#ifndef MG_GPU_BUILD_CUH
#define MG_GPU_BUILD_CUH

constexpr int kBuildMaxAllocs = 48; /* device blocks one build may hold at once */
constexpr int kBuildMaxMarks = 8;   /* timed phases of one build */

struct Build {
    mg_context ctx;
    const char *who = "";       /* the entry point named in messages ("mg__gpu_graph_build") */
    cudaStream_t stream = nullptr;
    cudaEvent_t start = nullptr, stop = nullptr;
    cudaEvent_t marks[kBuildMaxMarks] = {}; /* phase ends, recorded by mark()                  */
    int nmarks = 0;
    void *ptr[kBuildMaxAllocs] = {};
    size_t bytes[kBuildMaxAllocs] = {};
    void *temp = nullptr;       /* CUB temporary storage, grown as needed (also in ptr[]) */
    size_t temp_bytes = 0;
};

mg_status cuda_fail(const Build *b, cudaError_t e, const char *call, const char *file, int line) {
    (void)cudaGetLastError(); /* clear a non-sticky error so later calls start clean */
    if (e == cudaErrorMemoryAllocation)
        return mg__error(b->ctx, MG_OUT_OF_MEMORY, "%s: out of device memory in %s (%s:%d)", b->who,
                         call, file, line);
    return mg__error(b->ctx, MG_DEVICE_ERROR, "%s: %s failed: %s: %s (%s:%d)", b->who, call,
                     cudaGetErrorName(e), cudaGetErrorString(e), file, line);
}

#define CU_NAMED(expr, name)                                                                       \
    do {                                                                                           \
        cudaError_t e_ = (expr);                                                                   \
        if (e_ != cudaSuccess) return cuda_fail(b, e_, (name), __FILE__, __LINE__);                \
    } while (0)
#define CU(expr) CU_NAMED(expr, #expr)
#define TRY(expr)                                                                                  \
    do {                                                                                           \
        mg_status s_ = (expr);                                                                     \
        if (s_ != MG_SUCCESS) return s_;                                                           \
    } while (0)

/* Allocates count elements (NULL for none) and records the block for the cleanup path. */
template <typename T>
mg_status dalloc(Build *b, T **p, uint64_t count, const char *what, const char *file, int line) {
    *p = nullptr;
    if (count == 0) return MG_SUCCESS;
    const size_t bytes = mg__mul_size((size_t)count, sizeof(T));
    int slot = 0;
    while (slot < kBuildMaxAllocs && b->ptr[slot] != nullptr) slot++;
    if (slot == kBuildMaxAllocs)
        return mg__error(b->ctx, MG_INTERNAL_ERROR, "%s: more than %d device blocks at once (%s:%d)",
                         b->who, kBuildMaxAllocs, file, line);
    void *q = nullptr;
    cudaError_t e = bytes == SIZE_MAX ? cudaErrorMemoryAllocation
                                      : cudaMallocAsync(&q, bytes, b->stream);
    if (e == cudaErrorMemoryAllocation) {
        (void)cudaGetLastError();
        return mg__error(b->ctx, MG_OUT_OF_MEMORY, "%s: out of device memory: cudaMallocAsync of "
                         "%zu bytes for %s (%s:%d)", b->who, bytes, what, file, line);
    }
    if (e != cudaSuccess) return cuda_fail(b, e, "cudaMallocAsync", file, line);
    b->ptr[slot] = q;
    b->bytes[slot] = bytes;
    *p = static_cast<T *>(q);
    return MG_SUCCESS;
}
#define DALLOC(p, count, what) TRY(dalloc(b, &(p), (count), (what), __FILE__, __LINE__))

/* Frees a tracked block in stream order: work queued before on the stream may still use it. */
void dfree(Build *b, void *p) {
    if (p == nullptr) return;
    for (int i = 0; i < kBuildMaxAllocs; i++)
        if (b->ptr[i] == p) {
            cudaFreeAsync(p, b->stream);
            b->ptr[i] = nullptr;
            b->bytes[i] = 0;
            return;
        }
}

/* Hands a block over to the result (the cleanup path no longer frees it); returns its bytes. */
size_t dkeep(Build *b, void *p) {
    for (int i = 0; i < kBuildMaxAllocs; i++)
        if (p != nullptr && b->ptr[i] == p) {
            b->ptr[i] = nullptr;
            return b->bytes[i];
        }
    return 0;
}

mg_status temp_need(Build *b, size_t bytes, const char *what) {
    if (bytes <= b->temp_bytes && b->temp != nullptr) return MG_SUCCESS;
    dfree(b, b->temp);
    b->temp = nullptr;
    b->temp_bytes = 0;
    uint8_t *t = nullptr;
    DALLOC(t, bytes < 16 ? 16 : bytes, what);
    b->temp = t;
    b->temp_bytes = bytes < 16 ? 16 : bytes;
    return MG_SUCCESS;
}

/* CUB's two phases: ask for the temporary storage, provide it, run. */
#define CUB_RUN(fn, ...)                                                                           \
    do {                                                                                           \
        size_t tb_ = 0;                                                                            \
        CU_NAMED(fn(nullptr, tb_, __VA_ARGS__), #fn " (size query)");                              \
        TRY(temp_need(b, tb_, "temporary storage of " #fn));                                       \
        CU_NAMED(fn(b->temp, tb_, __VA_ARGS__), #fn);                                              \
    } while (0)

/* Ends a timed phase: an event on the stream (no wait); phase_seconds reads them afterwards. */
mg_status mark(Build *b) {
    if (b->nmarks == kBuildMaxMarks)
        return mg__error(b->ctx, MG_INTERNAL_ERROR, "%s: more than %d timed phases", b->who,
                         kBuildMaxMarks);
    CU(cudaEventCreate(&b->marks[b->nmarks]));
    CU(cudaEventRecord(b->marks[b->nmarks], b->stream));
    b->nmarks++;
    return MG_SUCCESS;
}

/* Seconds from b->start to the first mark and between marks (call after the stream is done). */
mg_status phase_seconds(Build *b, double *out, int count) {
    for (int i = 0; i < count; i++) {
        float ms = 0;
        if (i < b->nmarks) CU(cudaEventElapsedTime(&ms, i ? b->marks[i - 1] : b->start, b->marks[i]));
        out[i] = ms / 1e3;
    }
    return MG_SUCCESS;
}

/* The one cleanup path: whatever is still tracked (all of it after a failure, the temporaries after
 * a success) goes back to the pool, the stream drains, and the pool returns what nothing holds. */
void release(Build *b) {
    for (int i = 0; i < kBuildMaxAllocs; i++)
        if (b->ptr[i] != nullptr) cudaFreeAsync(b->ptr[i], b->stream);
    if (b->stream != nullptr) (void)cudaStreamSynchronize(b->stream);
    int device = 0;
    cudaMemPool_t pool;
    if (cudaGetDevice(&device) == cudaSuccess && cudaDeviceGetDefaultMemPool(&pool, device) == cudaSuccess)
        (void)cudaMemPoolTrimTo(pool, 0);
    for (int i = 0; i < b->nmarks; i++) cudaEventDestroy(b->marks[i]);
    if (b->start != nullptr) cudaEventDestroy(b->start);
    if (b->stop != nullptr) cudaEventDestroy(b->stop);
    if (b->stream != nullptr) cudaStreamDestroy(b->stream);
    (void)cudaGetLastError();
}

#endif /* MG_GPU_BUILD_CUH */
