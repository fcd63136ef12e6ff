/*
 * gpu_device.c — what CUDA device there is: the count and the properties the engines size
 * themselves by, and the setting of its stream-ordered memory pool. Plain C over the CUDA runtime
 * API (no kernels here). In a build without CUDA every call answers MG_UNAVAILABLE, so contexts can
 * ask without caring how the library was built.
 */
#include "mg_internal.h"

#ifdef MG_HAVE_CUDA
#include <cuda_runtime_api.h>

mg_status mg__gpu_device_count(mg_context ctx, const char *who, int *count) {
    *count = 0;
    cudaError_t e = cudaGetDeviceCount(count);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        *count = 0;
        return mg__error(ctx, MG_UNAVAILABLE, "%s: no CUDA device: cudaGetDeviceCount: %s", who,
                         cudaGetErrorString(e));
    }
    if (*count == 0)
        return mg__error(ctx, MG_UNAVAILABLE, "%s: no CUDA device: cudaGetDeviceCount found none",
                         who);
    return MG_SUCCESS;
}

mg_status mg__gpu_query(mg_context ctx, int device, mg__gpu_info *info) {
    if (info == NULL) return mg__error(ctx, MG_INVALID_ARGUMENT, "mg_gpu_query: info is NULL");
    memset(info, 0, sizeof *info);
    int count = 0;
    mg_status st = mg__gpu_device_count(ctx, "mg_gpu_query", &count);
    if (st != MG_SUCCESS) return st;
    int previous = 0;
    cudaError_t e = cudaGetDevice(&previous);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return mg__error(ctx, MG_UNAVAILABLE, "mg_gpu_query: no usable CUDA device: cudaGetDevice: %s",
                         cudaGetErrorString(e));
    }
    if (device < 0) device = previous;
    if (device >= count)
        return mg__error(ctx, MG_INVALID_ARGUMENT, "mg_gpu_query: device %d out of range (%d device%s)",
                         device, count, count == 1 ? "" : "s");
    struct cudaDeviceProp prop;
    e = cudaGetDeviceProperties(&prop, device);
    if (e != cudaSuccess)
        return mg__error(ctx, MG_DEVICE_ERROR, "mg_gpu_query: cudaGetDeviceProperties(%d): %s", device,
                         cudaGetErrorString(e));
    info->device = device;
    snprintf(info->name, sizeof info->name, "%s", prop.name);
    info->total_memory = prop.totalGlobalMem;
    info->sm_count = prop.multiProcessorCount;
    info->shared_per_block_optin = prop.sharedMemPerBlockOptin;
    info->shared_per_sm = prop.sharedMemPerMultiprocessor;
    info->cc_major = prop.major;
    info->cc_minor = prop.minor;
    /* free memory needs a context on that device: switch to it and back */
    e = cudaSetDevice(device);
    size_t free_b = 0, total_b = 0;
    if (e == cudaSuccess) e = cudaMemGetInfo(&free_b, &total_b);
    cudaError_t e2 = cudaSetDevice(previous);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return mg__error(ctx, MG_UNAVAILABLE, "mg_gpu_query: device %d (%s) cannot be used: %s",
                         device, prop.name, cudaGetErrorString(e));
    }
    if (e2 != cudaSuccess)
        return mg__error(ctx, MG_DEVICE_ERROR, "mg_gpu_query: cudaSetDevice(%d): %s", previous,
                         cudaGetErrorString(e2));
    info->free_memory = free_b;
    info->total_memory = total_b;
    return MG_SUCCESS;
}

mg_status mg__gpu_finish(mg_context ctx, const char *who) {
    const cudaError_t e = cudaStreamSynchronize(0);
    if (e != cudaSuccess)
        return mg__error(ctx, MG_DEVICE_ERROR, "%s: the device work queued before failed: %s", who,
                         cudaGetErrorString(e));
    return MG_SUCCESS;
}

mg_status mg__gpu_keep_pool(mg_context ctx, int device) {
    cudaMemPool_t pool;
    cudaError_t e = cudaDeviceGetDefaultMemPool(&pool, device);
    uint64_t keep = 0;
    if (e == cudaSuccess) e = cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
    if (e == cudaSuccess && keep != UINT64_MAX) {
        keep = UINT64_MAX;
        e = cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
    }
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return mg__error(ctx, MG_DEVICE_ERROR, "mg__gpu_keep_pool: device %d's default memory pool: %s",
                         device, cudaGetErrorString(e));
    }
    return MG_SUCCESS;
}

mg_status mg__gpu_use_device(mg_context ctx, int index, int *device) {
    int count = 0;
    mg_status status = mg__gpu_device_count(ctx, "mg_context_set_ranks", &count);
    if (status != MG_SUCCESS) return status;
    *device = index % count;
    const cudaError_t e = cudaSetDevice(*device);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return mg__error(ctx, MG_DEVICE_ERROR, "mg_context_set_ranks: cudaSetDevice(%d): %s", *device,
                         cudaGetErrorString(e));
    }
    return MG_SUCCESS;
}

#else

mg_status mg__gpu_use_device(mg_context ctx, int index, int *device) {
    (void)index;
    *device = -1;
    return mg__error(ctx, MG_UNAVAILABLE, "mg_context_set_ranks: this build has no CUDA backend");
}

mg_status mg__gpu_device_count(mg_context ctx, const char *who, int *count) {
    *count = 0;
    return mg__error(ctx, MG_UNAVAILABLE, "%s: this build has no CUDA backend", who);
}

mg_status mg__gpu_query(mg_context ctx, int device, mg__gpu_info *info) {
    (void)device;
    if (info != NULL) memset(info, 0, sizeof *info);
    return mg__error(ctx, MG_UNAVAILABLE, "mg_gpu_query: this build has no CUDA backend");
}

mg_status mg__gpu_finish(mg_context ctx, const char *who) {
    return mg__error(ctx, MG_UNAVAILABLE, "%s: this build has no CUDA backend", who);
}

mg_status mg__gpu_keep_pool(mg_context ctx, int device) {
    (void)device;
    return mg__error(ctx, MG_UNAVAILABLE, "mg__gpu_keep_pool: this build has no CUDA backend");
}

#endif
