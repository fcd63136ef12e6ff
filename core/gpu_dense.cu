/*
 * gpu_dense.cu — dense matrices and vectors on the device (core/gpu_resident.h): the moves between
 * host and device for the sparse kernels' operands. Unlike a graph's vectors, a dense object has no
 * renumbering: d_data is the host array's layout, so a move is one copy.
 */
#include <cuda_runtime.h>

extern "C" {
#include "mg_internal.h"
#include "gpu_resident.h"
}

namespace {

#include "gpu_util.cuh"

size_t dense_bytes(const struct mg_dense_s *X) {
    return (size_t)X->rows * X->cols * mg__type_size(X->type);
}

} // namespace

extern "C" mg_status mg__gpu_dense_reserve(mg_context ctx, mg_dense X) {
    if (X->d_data == nullptr) TRY(dalloc(ctx, &X->d_data, dense_bytes(X), "a dense matrix"));
    return MG_SUCCESS;
}

extern "C" mg_status mg__gpu_dense_to_device(mg_context ctx, mg_dense X) {
    if (X->on_device) return MG_SUCCESS;
    TRY(mg__gpu_dense_reserve(ctx, X));
    const size_t bytes = dense_bytes(X);
    if (bytes > 0) CU(cudaMemcpy(X->d_data, X->data, bytes, cudaMemcpyHostToDevice));
    X->on_device = true;
    return MG_SUCCESS;
}

extern "C" mg_status mg__dense_need_host(mg_context ctx, const mg_dense X) {
    if (!X->on_device) return MG_SUCCESS;
    const size_t bytes = dense_bytes(X);
    /* cudaMemcpy waits for the kernels before it on the default stream that write d_data */
    if (bytes > 0) CU(cudaMemcpy(X->data, X->d_data, bytes, cudaMemcpyDeviceToHost));
    X->on_device = false;
    return MG_SUCCESS;
}

extern "C" void mg__dense_release_device(mg_dense X) {
    dfree(X->d_data);
    X->d_data = nullptr;
    X->on_device = false;
}
